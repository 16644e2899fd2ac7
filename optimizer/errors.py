"""The optimizer's errors."""
from __future__ import annotations

from vpush.codec.errors import VpushError


class OptimizeError(VpushError):
    """SQL that vpush cannot plan: a parse error, an unknown table, a bad path or type."""


class CatalogError(OptimizeError):
    """A table location that cannot be read: no such file, no Parquet files, a bad footer."""
