"""The Parquet schema of a file as a tree of :class:`SchemaElement`: repetition, physical type,
logical type (or the one a legacy converted type stands for) and children, for groups too.

pyarrow's ``ParquetFile.schema`` exposes these only for leaf columns; group annotations (``LIST``,
``VARIANT``) and group repetition appear only in its text. So the footer pyarrow holds is
serialized again and its ``SchemaElement`` list decoded with :mod:`vpush.codec.parquet_footer`
(field ids from apache/parquet-format ``src/main/thrift/parquet.thrift``).
"""

from __future__ import annotations

import dataclasses
import struct
from typing import TYPE_CHECKING

from vpush.codec.errors import CodecError
from vpush.codec.parquet_footer import (
    FILE_METADATA_SCHEMA,
    CompactType,
    ThriftList,
    ThriftStruct,
    decode_struct,
)

if TYPE_CHECKING:
    import pyarrow.parquet as pq

MAX_SCHEMA_DEPTH = 1000
"""Deepest schema nesting accepted (a damaged footer could claim any depth)."""

# parquet.thrift enum values.
PHYSICAL_TYPE_NAMES = (
    "BOOLEAN",
    "INT32",
    "INT64",
    "INT96",
    "FLOAT",
    "DOUBLE",
    "BYTE_ARRAY",
    "FIXED_LEN_BYTE_ARRAY",
)
REPETITION_NAMES = ("REQUIRED", "OPTIONAL", "REPEATED", "VECTOR")
CONVERTED_TYPE_NAMES = (
    "UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS", "TIME_MICROS",
    "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8",
    "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL",
)  # fmt: skip
# LogicalType union members (parquet.thrift); 9 is reserved.
_LOGICAL_TYPE_NAMES = {
    1: "STRING", 2: "MAP", 3: "LIST", 4: "ENUM", 5: "DECIMAL", 6: "DATE", 7: "TIME", 8: "TIMESTAMP",
    10: "INTEGER", 11: "UNKNOWN", 12: "JSON", 13: "BSON", 14: "UUID", 15: "FLOAT16", 16: "VARIANT",
    17: "GEOMETRY", 18: "GEOGRAPHY", 19: "VECTOR",
}  # fmt: skip
_TIME_UNITS = {1: "MILLIS", 2: "MICROS", 3: "NANOS"}
# SchemaElement field ids.
_SE_TYPE, _SE_TYPE_LENGTH, _SE_REPETITION, _SE_NAME, _SE_NUM_CHILDREN = 1, 2, 3, 4, 5
_SE_CONVERTED_TYPE, _SE_SCALE, _SE_PRECISION, _SE_LOGICAL_TYPE = 6, 7, 8, 10


@dataclasses.dataclass(frozen=True)
class LogicalType:
    """A Parquet logical type (or the one a legacy converted type stands for).

    ``kind`` is the LogicalType union member's name (``"STRING"``, ``"INTEGER"``, ``"DECIMAL"``,
    ``"TIMESTAMP"``, ``"LIST"``, ``"VARIANT"``, ...), or ``"INTERVAL"``, ``"MAP_KEY_VALUE"`` for
    converted types that have none.
    """

    kind: str
    bit_width: int | None = None
    signed: bool | None = None
    precision: int | None = None
    scale: int | None = None
    utc: bool | None = None
    unit: str | None = None
    version: int | None = None

    def __str__(self) -> str:
        args = [
            f"{name}={val}"
            for name, val in dataclasses.asdict(self).items()
            if name != "kind" and val is not None
        ]
        return f"{self.kind}({', '.join(args)})" if args else self.kind


@dataclasses.dataclass(frozen=True)
class SchemaElement:
    """One node of a Parquet schema: a group (with children) or a primitive column."""

    name: str
    path: tuple[str, ...]
    repetition: str | None
    physical_type: str | None
    type_length: int | None
    logical_type: LogicalType | None
    children: tuple[SchemaElement, ...] = ()

    @property
    def is_group(self) -> bool:
        """True for a group (no physical type)."""
        return self.physical_type is None

    @property
    def dotted(self) -> str:
        """The column path as pyarrow's ``columns=`` takes it: names joined by dots."""
        return ".".join(self.path)

    def child(self, name: str) -> SchemaElement | None:
        """The child called ``name``, or None."""
        return next((c for c in self.children if c.name == name), None)

    def describe(self) -> str:
        """A short rendering for error messages, like ``optional int32 typed_value (INTEGER(...))``."""
        kind = "group" if self.is_group else (self.physical_type or "").lower()
        if self.physical_type == "FIXED_LEN_BYTE_ARRAY":
            kind = f"fixed_len_byte_array({self.type_length})"
        text = f"{(self.repetition or '').lower()} {kind} {self.name}".strip()
        return f"{text} ({self.logical_type})" if self.logical_type is not None else text


def _parse_time_unit(value: object) -> str | None:
    if isinstance(value, ThriftStruct) and value.fields:
        return _TIME_UNITS.get(value.fields[0].field_id, f"UNIT_{value.fields[0].field_id}")
    return None


def _parse_logical_type(element: ThriftStruct) -> LogicalType | None:
    logical = element.value(_SE_LOGICAL_TYPE)
    if isinstance(logical, ThriftStruct) and logical.fields:
        member = logical.fields[0]
        kind = _LOGICAL_TYPE_NAMES.get(member.field_id, f"LOGICAL_{member.field_id}")
        body = member.value if isinstance(member.value, ThriftStruct) else ThriftStruct()

        def num(field_id: int) -> int | None:
            val = body.value(field_id)
            return val if isinstance(val, int) and not isinstance(val, bool) else None

        def flag(field_id: int) -> bool | None:
            val = body.value(field_id)
            return val if isinstance(val, bool) else None

        if kind == "DECIMAL":
            return LogicalType(kind, precision=num(2), scale=num(1))
        if kind in ("TIME", "TIMESTAMP"):
            return LogicalType(kind, utc=flag(1), unit=_parse_time_unit(body.value(2)))
        if kind == "INTEGER":
            return LogicalType(kind, bit_width=num(1), signed=flag(2))
        if kind == "VARIANT":
            return LogicalType(kind, version=num(1))
        return LogicalType(kind)
    converted = element.value(_SE_CONVERTED_TYPE)
    if not isinstance(converted, int) or isinstance(converted, bool):
        return None
    name = (
        CONVERTED_TYPE_NAMES[converted]
        if 0 <= converted < len(CONVERTED_TYPE_NAMES)
        else f"CONVERTED_{converted}"
    )
    # LogicalTypes.md "Backward compatibility": what each converted type means as a logical type.
    if name == "UTF8":
        return LogicalType("STRING")
    if name == "DECIMAL":
        precision, scale = element.value(_SE_PRECISION), element.value(_SE_SCALE)
        return LogicalType(
            "DECIMAL",
            precision=precision if isinstance(precision, int) else None,
            scale=scale if isinstance(scale, int) else 0,
        )
    if name.startswith(("TIME_", "TIMESTAMP_")):
        kind, unit = name.split("_")
        return LogicalType(kind, utc=True, unit=unit)
    if name.startswith(("INT_", "UINT_")):
        return LogicalType("INTEGER", bit_width=int(name.split("_")[1]), signed=name.startswith("INT_"))
    return LogicalType(name)


def _element(item: ThriftStruct, path: tuple[str, ...], children: tuple[SchemaElement, ...]) -> SchemaElement:
    physical = item.value(_SE_TYPE)
    repetition = item.value(_SE_REPETITION)
    length = item.value(_SE_TYPE_LENGTH)
    is_group = bool(children) or physical is None
    return SchemaElement(
        name=path[-1] if path else "",
        path=path,
        repetition=(
            REPETITION_NAMES[repetition]
            if isinstance(repetition, int) and 0 <= repetition < len(REPETITION_NAMES)
            else None
        ),
        physical_type=(
            None
            if is_group
            else PHYSICAL_TYPE_NAMES[physical]
            if isinstance(physical, int) and 0 <= physical < len(PHYSICAL_TYPE_NAMES)
            else f"TYPE_{physical!r}"
        ),
        type_length=length if isinstance(length, int) and not isinstance(length, bool) else None,
        logical_type=_parse_logical_type(item),
        children=children,
    )


def _schema_items(parquet_file: pq.ParquetFile, file: str | None) -> list[ThriftStruct]:
    """The footer's ``SchemaElement`` list, decoded from a re-serialization of the footer pyarrow
    holds (works whatever the file's source: path, buffer or remote stream)."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    parquet_file.metadata.write_metadata_file(sink)
    data = sink.getvalue().to_pybytes()
    # A metadata file is framed like a data file: PAR1, FileMetaData, u32 length, PAR1.
    (length,) = struct.unpack_from("<I", data, len(data) - 8)
    start = len(data) - 8 - length
    items = _schema_prefix(data, start, file)
    if items is None:
        metadata, _ = decode_struct(data[start : len(data) - 8], file=file)
        schema = metadata.value(FILE_METADATA_SCHEMA)
        if not isinstance(schema, ThriftList):
            raise CodecError("footer has no schema", file=file)
        items = [s for s in schema.items if isinstance(s, ThriftStruct)]
    return items


def _schema_prefix(data: bytes, pos: int, file: str | None) -> list[ThriftStruct] | None:
    """Decode only ``version`` and ``schema``, the first two FileMetaData fields, so that row
    group metadata (most of a big footer) is never decoded; None when the bytes do not start
    that way, and the caller decodes everything."""
    try:
        field_id = 0
        header = data[pos]
        if header == (1 << 4) | CompactType.I32:  # field 1, i32 version: skip its varint
            pos += 1
            while data[pos] & 0x80:
                pos += 1
            pos += 1
            field_id = 1
            header = data[pos]
        if header & 0x0F != CompactType.LIST or field_id + (header >> 4) != FILE_METADATA_SCHEMA:
            return None
        pos += 1
        list_header = data[pos]
        pos += 1
        if list_header & 0x0F != CompactType.STRUCT:
            return None
        count = list_header >> 4
        if count == 0x0F:
            count, shift = 0, 0
            while True:
                byte = data[pos]
                pos += 1
                count |= (byte & 0x7F) << shift
                shift += 7
                if not byte & 0x80:
                    break
        items = []
        for _ in range(count):
            item, pos = decode_struct(data, pos, file=file)
            items.append(item)
        return items
    except IndexError:
        return None


def parquet_schema(parquet_file: pq.ParquetFile, *, file: str | None = None) -> SchemaElement:
    """The Parquet schema of an open file as a tree of :class:`SchemaElement`.

    Example:
        >>> import io, pyarrow as pa, pyarrow.parquet as pq
        >>> buf = io.BytesIO()
        >>> pq.write_table(pa.table({"s": [{"a": 1}]}), buf)
        >>> root = parquet_schema(pq.ParquetFile(buf))
        >>> root.children[0].describe(), root.children[0].children[0].describe()
        ('optional group s', 'optional int64 a')

    Raises:
        CodecError: a damaged footer.
    """
    items = _schema_items(parquet_file, file)
    if not items:
        raise CodecError("footer has an empty schema", file=file)
    # The list is the tree in depth-first order; num_children says where each group ends.
    position = 1

    def build(item: ThriftStruct, path: tuple[str, ...], depth: int) -> SchemaElement:
        nonlocal position
        if depth > MAX_SCHEMA_DEPTH:
            raise CodecError(f"schema nested deeper than {MAX_SCHEMA_DEPTH} levels", file=file)
        count = item.value(_SE_NUM_CHILDREN)
        kids = []
        for _ in range(count if isinstance(count, int) else 0):
            if position >= len(items):
                raise CodecError("schema ends inside a group", file=file, column_path=".".join(path))
            child = items[position]
            position += 1
            raw = child.value(_SE_NAME)
            name = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else ""
            kids.append(build(child, (*path, name), depth + 1))
        return _element(item, path, tuple(kids))

    return build(items[0], (), 0)
