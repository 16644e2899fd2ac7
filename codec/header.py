"""The Variant encoding's header bytes, numbered exactly as VariantEncoding.md.

```
value_metadata:   7                                  2 1          0
                 +------------------------------------+------------+
                 |            value_header            | basic_type |
                 +------------------------------------+------------+
object header:    is_large << 4 | field_id_size_minus_one << 2 | field_offset_size_minus_one
array header:     is_large << 2 | field_offset_size_minus_one
metadata header:  offset_size_minus_one << 6 | sorted_strings << 4 | version
```
"""
from __future__ import annotations

import enum

VERSION = 1
VERSION_MASK = 0x0F
SORTED_STRINGS_MASK = 0x10
BASIC_TYPE_MASK = 0x03
MAX_SHORT_STRING_BYTES = 63
MAX_DECIMAL4_PRECISION = 9
MAX_DECIMAL8_PRECISION = 18
MAX_DECIMAL16_PRECISION = 38
MAX_DECIMAL_SCALE = 38
U8_MAX = 0xFF
U16_MAX = 0xFFFF
U24_MAX = 0xFFFFFF
U32_MAX = 0xFFFFFFFF


class BasicType(enum.IntEnum):
    """The 2-bit ``basic_type`` of a value."""

    PRIMITIVE = 0
    SHORT_STRING = 1
    OBJECT = 2
    ARRAY = 3


class PrimitiveType(enum.IntEnum):
    """The 6-bit ``primitive_header`` of a primitive value (``basic_type`` 0)."""

    NULL = 0
    TRUE = 1
    FALSE = 2
    INT8 = 3
    INT16 = 4
    INT32 = 5
    INT64 = 6
    DOUBLE = 7
    DECIMAL4 = 8
    DECIMAL8 = 9
    DECIMAL16 = 10
    DATE = 11
    TIMESTAMP = 12
    TIMESTAMP_NTZ = 13
    FLOAT = 14
    BINARY = 15
    STRING = 16
    TIME = 17
    TIMESTAMP_NANOS = 18
    TIMESTAMP_NTZ_NANOS = 19
    UUID = 20


class VariantType(enum.Enum):
    """The logical type of a value: a primitive type, or one of the container types.

    A short string has type ``STRING``, as the spec says the two are semantically identical.
    """

    NULL = "null"
    BOOLEAN = "boolean"
    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    DOUBLE = "double"
    DECIMAL4 = "decimal4"
    DECIMAL8 = "decimal8"
    DECIMAL16 = "decimal16"
    DATE = "date"
    TIMESTAMP = "timestamp"
    TIMESTAMP_NTZ = "timestamp_ntz"
    FLOAT = "float"
    BINARY = "binary"
    STRING = "string"
    TIME = "time"
    TIMESTAMP_NANOS = "timestamp_nanos"
    TIMESTAMP_NTZ_NANOS = "timestamp_ntz_nanos"
    UUID = "uuid"
    OBJECT = "object"
    ARRAY = "array"


PRIMITIVE_TO_VARIANT_TYPE: dict[PrimitiveType, VariantType] = {
    PrimitiveType.NULL: VariantType.NULL,
    PrimitiveType.TRUE: VariantType.BOOLEAN,
    PrimitiveType.FALSE: VariantType.BOOLEAN,
    PrimitiveType.INT8: VariantType.INT8,
    PrimitiveType.INT16: VariantType.INT16,
    PrimitiveType.INT32: VariantType.INT32,
    PrimitiveType.INT64: VariantType.INT64,
    PrimitiveType.DOUBLE: VariantType.DOUBLE,
    PrimitiveType.DECIMAL4: VariantType.DECIMAL4,
    PrimitiveType.DECIMAL8: VariantType.DECIMAL8,
    PrimitiveType.DECIMAL16: VariantType.DECIMAL16,
    PrimitiveType.DATE: VariantType.DATE,
    PrimitiveType.TIMESTAMP: VariantType.TIMESTAMP,
    PrimitiveType.TIMESTAMP_NTZ: VariantType.TIMESTAMP_NTZ,
    PrimitiveType.FLOAT: VariantType.FLOAT,
    PrimitiveType.BINARY: VariantType.BINARY,
    PrimitiveType.STRING: VariantType.STRING,
    PrimitiveType.TIME: VariantType.TIME,
    PrimitiveType.TIMESTAMP_NANOS: VariantType.TIMESTAMP_NANOS,
    PrimitiveType.TIMESTAMP_NTZ_NANOS: VariantType.TIMESTAMP_NTZ_NANOS,
    PrimitiveType.UUID: VariantType.UUID,
}

# Fixed payload size in bytes after the header byte, for primitives that have one. BINARY and
# STRING carry a 4-byte length instead; the decimals' sizes include their scale byte.
PRIMITIVE_FIXED_SIZE: dict[PrimitiveType, int] = {
    PrimitiveType.NULL: 0,
    PrimitiveType.TRUE: 0,
    PrimitiveType.FALSE: 0,
    PrimitiveType.INT8: 1,
    PrimitiveType.INT16: 2,
    PrimitiveType.INT32: 4,
    PrimitiveType.INT64: 8,
    PrimitiveType.DOUBLE: 8,
    PrimitiveType.DECIMAL4: 5,
    PrimitiveType.DECIMAL8: 9,
    PrimitiveType.DECIMAL16: 17,
    PrimitiveType.DATE: 4,
    PrimitiveType.TIMESTAMP: 8,
    PrimitiveType.TIMESTAMP_NTZ: 8,
    PrimitiveType.FLOAT: 4,
    PrimitiveType.TIME: 8,
    PrimitiveType.TIMESTAMP_NANOS: 8,
    PrimitiveType.TIMESTAMP_NTZ_NANOS: 8,
    PrimitiveType.UUID: 16,
}


def primitive_header(primitive: PrimitiveType) -> int:
    """The ``value_metadata`` byte of a primitive value.

    Example:
        >>> hex(primitive_header(PrimitiveType.INT64))
        '0x18'
    """
    return (int(primitive) << 2) | BasicType.PRIMITIVE


def short_string_header(length: int) -> int:
    """The ``value_metadata`` byte of a short string of ``length`` bytes.

    Example:
        >>> hex(short_string_header(3))
        '0xd'
    """
    return (length << 2) | BasicType.SHORT_STRING


def object_header(is_large: bool, field_id_size: int, field_offset_size: int) -> int:
    """The ``value_metadata`` byte of an object."""
    header = (int(is_large) << 4) | ((field_id_size - 1) << 2) | (field_offset_size - 1)
    return (header << 2) | BasicType.OBJECT


def array_header(is_large: bool, field_offset_size: int) -> int:
    """The ``value_metadata`` byte of an array."""
    header = (int(is_large) << 2) | (field_offset_size - 1)
    return (header << 2) | BasicType.ARRAY


def int_size(value: int) -> int:
    """The fewest bytes (1 to 4) that hold the unsigned ``value``, as offsets and ids need.

    Example:
        >>> [int_size(v) for v in (0, 255, 256, 65536, 2**24)]
        [1, 1, 2, 3, 4]
    """
    if value <= U8_MAX:
        return 1
    if value <= U16_MAX:
        return 2
    if value <= U24_MAX:
        return 3
    return 4
