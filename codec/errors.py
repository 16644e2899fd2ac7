"""Errors: one base class, :class:`VpushError`, for everything vpush raises.

It lives in the codec, the lowest floor, so that every package can derive its own base from it
(``CodecError`` here, ``OptimizeError`` and ``ExecutionError`` above). Each error carries where it
happened, as far as it is known: the file, the Parquet column path, the JSON path of the variant
and the byte offset in the value; and, for errors that Spark also raises, Spark's error class.
"""
from __future__ import annotations

from typing import Any

_CONTEXT_FIELDS = ("file", "column_path", "json_path", "offset", "error_class")

# Spark's error class for variant bytes that break the encoding spec
MALFORMED_VARIANT = "MALFORMED_VARIANT"


class VpushError(Exception):
    """Base class of every error that vpush raises.

    Example:
        >>> err = VpushError("bad value", file="a.parquet", column_path="v.value", offset=3)
        >>> str(err)
        'bad value (file a.parquet, column v.value, byte offset 3)'
        >>> str(VpushError("x", error_class="INVALID_VARIANT_CAST"))
        '[INVALID_VARIANT_CAST] x'
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        column_path: str | None = None,
        json_path: str | None = None,
        offset: int | None = None,
        error_class: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.column_path = column_path
        self.json_path = json_path
        self.offset = offset
        self.error_class = error_class

    def with_context(self, **context: Any) -> VpushError:
        """Fill in the context fields that are still unknown, and return ``self``.

        A reader catches an error from deeper down, where the file was not known, adds it and
        re-raises the same object: ``raise err.with_context(file=path)``.
        """
        for key, val in context.items():
            if key not in _CONTEXT_FIELDS:
                raise TypeError(f"unknown error context field {key!r}")
            if getattr(self, key) is None and val is not None:
                setattr(self, key, val)
        return self

    def __str__(self) -> str:
        where = []
        if self.file is not None:
            where.append(f"file {self.file}")
        if self.column_path is not None:
            where.append(f"column {self.column_path}")
        if self.json_path is not None:
            where.append(f"path {self.json_path}")
        if self.offset is not None:
            where.append(f"byte offset {self.offset}")
        text = self.message
        if self.error_class is not None:
            text = f"[{self.error_class}] {text}"
        if where:
            text = f"{text} ({', '.join(where)})"
        return text


class CodecError(VpushError):
    """Base class of the codec's errors."""


class MalformedVariantError(CodecError, ValueError):
    """Variant bytes (metadata or value) that do not follow the encoding spec.

    ``needed`` and ``available`` say how many bytes a read wanted and how many were left, when a
    buffer was too short.
    """

    def __init__(
        self,
        message: str,
        *,
        needed: int | None = None,
        available: int | None = None,
        **context: Any,
    ) -> None:
        super().__init__(message, **context)
        self.needed = needed
        self.available = available


class InvalidShreddingError(MalformedVariantError):
    """A shredded Parquet layout, or shredded data, that breaks the shredding spec."""


class VariantEncodeError(CodecError, ValueError):
    """A Python value that cannot be encoded as a Variant."""


class VariantPathError(CodecError, ValueError):
    """A JSON path that does not follow Spark's variant path grammar."""


class JsonParseError(CodecError, ValueError):
    """JSON text that Spark's ``parse_json`` would reject."""


class VariantTooLargeError(CodecError):
    """Valid data whose rebuilt values do not fit one Arrow ``binary`` array (2 GiB): rebuild
    smaller batches."""
