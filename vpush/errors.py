"""Every error vpush raises derives from :class:`VpushError`."""
from __future__ import annotations

from vpush.codec.errors import (
    CodecError,
    InvalidShreddingError,
    JsonParseError,
    MalformedVariantError,
    VariantEncodeError,
    VariantPathError,
    VariantTooLargeError,
    VpushError,
)
from vpush.exec.errors import ExecutionError
from vpush.optimizer.errors import CatalogError, OptimizeError

__all__ = [
    "CatalogError",
    "CodecError",
    "ExecutionError",
    "InvalidShreddingError",
    "JsonParseError",
    "MalformedVariantError",
    "OptimizeError",
    "VariantEncodeError",
    "VariantPathError",
    "VariantTooLargeError",
    "VpushError",
]
