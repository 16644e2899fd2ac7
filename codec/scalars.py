"""Python values for Variant primitives that Python's own types cannot hold exactly.

Decoding gives natural Python values wherever they are exact: ``None``, ``bool``, ``int``,
``decimal.Decimal``, ``float`` (double), ``str``, ``bytes``, ``datetime.date``,
``datetime.datetime`` (aware in UTC for ``timestamp``, naive for ``timestamp_ntz``),
``datetime.time``, ``uuid.UUID``, ``dict`` and ``list``. These classes cover the rest:

- :class:`Float32`, a ``float`` that remembers it was a 4-byte float;
- :class:`VariantScalar`, a primitive type with its raw stored number, for nanosecond timestamps
  (Python has no nanoseconds) and dates or timestamps outside Python's years 1 to 9999. Encoding a
  ``VariantScalar`` also forces a type, e.g. ``VariantScalar(PrimitiveType.INT32, 5)``.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from vpush.codec.header import PrimitiveType


class Float32(float):
    """A Variant ``float`` (4 bytes), as opposed to a ``double``.

    Example:
        >>> Float32(1.5) == 1.5, repr(Float32(1.5))
        (True, 'Float32(1.5)')
    """

    def __repr__(self) -> str:
        return f"Float32({float(self)!r})"


@dataclasses.dataclass(frozen=True)
class VariantScalar:
    """A primitive of an explicit type with its stored value (days, micros, nanos, or a number).

    Example:
        >>> VariantScalar(PrimitiveType.TIMESTAMP_NANOS, 1)
        VariantScalar(type=<PrimitiveType.TIMESTAMP_NANOS: 18>, raw=1)
    """

    type: PrimitiveType
    raw: Any
