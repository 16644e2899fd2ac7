"""Split Variant values into the shredded layout: ``struct<metadata, value>`` in,
``struct<metadata, value, typed_value>`` out, for a shredding schema given as an Arrow type.

Per level, a value goes to ``typed_value`` only when it has the schema's type, else to
``value`` as Variant bytes:

- an object under a struct schema: ``typed_value`` holds one ``{value, typed_value}`` group per
  schema field (both null when the object lacks it), and the fields the schema does not name go to
  ``value`` as a residual object (null when there are none), with their original field ids;
- an array under a list schema: every element is shredded with the element schema;
- a primitive under a primitive schema when its Variant type matches exactly, except that an
  integer may widen to a wider integer (int8 into int32...) and a decimal to a wider decimal of the
  same scale whose precision holds its digits. Nothing else converts: a decimal never goes to an
  integer column nor an integer to a decimal one, float and double stay apart, micros never widen to
  nanos, strings never parse. (The draft's rule lets any exact number go to any numeric column that
  holds it exactly; the narrower rule keeps ``schema_of_variant`` unchanged except for the width.)
- a Variant null always goes to ``value`` (``00``); a SQL NULL row stays a null row.

The Arrow fields are nullable or not as the spec wants the Parquet fields to be ``optional`` or
``required``, so that pyarrow writes the layout :mod:`vpush.codec.layout` accepts.
"""

from __future__ import annotations

import dataclasses
import decimal
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from vpush.codec.builder import encode_object
from vpush.codec.decoder import read_bytes, read_int
from vpush.codec.errors import InvalidShreddingError, MalformedVariantError
from vpush.codec.header import (
    MAX_DECIMAL4_PRECISION,
    MAX_DECIMAL8_PRECISION,
    MAX_DECIMAL16_PRECISION,
    BasicType,
    VariantType,
)
from vpush.codec.metadata import EMPTY_METADATA_BYTES, VariantMetadata
from vpush.codec.value import Variant

_INT_WIDTHS = {VariantType.INT8: 1, VariantType.INT16: 2, VariantType.INT32: 4, VariantType.INT64: 8}
_DECIMAL_WIDTHS = {VariantType.DECIMAL4: 4, VariantType.DECIMAL8: 8, VariantType.DECIMAL16: 16}
_RAW_INT = {  # temporal types, stored as their raw count of days, micros or nanos
    VariantType.DATE: 4,
    VariantType.TIME: 8,
    VariantType.TIMESTAMP: 8,
    VariantType.TIMESTAMP_NTZ: 8,
    VariantType.TIMESTAMP_NANOS: 8,
    VariantType.TIMESTAMP_NTZ_NANOS: 8,
}


@dataclasses.dataclass(frozen=True)
class _Spec:
    """One node of a shredding schema."""

    path: str
    arrow_type: pa.DataType
    variant_type: VariantType | None = None
    fields: tuple[tuple[str, _Spec], ...] = ()
    element: _Spec | None = None

    @property
    def is_object(self) -> bool:
        return pa.types.is_struct(self.arrow_type)

    @property
    def is_array(self) -> bool:
        return self.element is not None


def _variant_type_of(arrow_type: pa.DataType, path: str) -> tuple[VariantType, pa.DataType]:
    """The Variant type a primitive column of ``arrow_type`` holds, and the Arrow type written
    (a 16-byte fixed binary becomes ``arrow.uuid`` so that Parquet gets the UUID annotation)."""
    t = arrow_type
    simple = {
        pa.bool_(): VariantType.BOOLEAN,
        pa.int8(): VariantType.INT8,
        pa.int16(): VariantType.INT16,
        pa.int32(): VariantType.INT32,
        pa.int64(): VariantType.INT64,
        pa.float32(): VariantType.FLOAT,
        pa.float64(): VariantType.DOUBLE,
        pa.date32(): VariantType.DATE,
        pa.time64("us"): VariantType.TIME,
    }
    for candidate, vt in simple.items():
        if t.equals(candidate):
            return vt, t
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return VariantType.STRING, t
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return VariantType.BINARY, t
    if pa.types.is_timestamp(t) and t.unit in ("us", "ns"):
        utc = t.tz is not None
        if t.unit == "us":
            return (VariantType.TIMESTAMP if utc else VariantType.TIMESTAMP_NTZ), t
        return (VariantType.TIMESTAMP_NANOS if utc else VariantType.TIMESTAMP_NTZ_NANOS), t
    if pa.types.is_decimal(t) and 0 < t.precision <= MAX_DECIMAL16_PRECISION and 0 <= t.scale <= t.precision:
        if t.precision <= MAX_DECIMAL4_PRECISION:
            return VariantType.DECIMAL4, t
        if t.precision <= MAX_DECIMAL8_PRECISION:
            return VariantType.DECIMAL8, t
        return VariantType.DECIMAL16, t
    if isinstance(t, pa.BaseExtensionType) and t.extension_name == "arrow.uuid":
        return VariantType.UUID, t
    if pa.types.is_fixed_size_binary(t) and t.byte_width == 16:
        return VariantType.UUID, pa.uuid()
    raise InvalidShreddingError(
        f"unsupported shredding type {t}: it has no Variant equivalent", column_path=path
    )


def _spec(arrow_type: pa.DataType, path: str) -> _Spec:
    if pa.types.is_struct(arrow_type):
        if arrow_type.num_fields == 0:
            raise InvalidShreddingError("a shredded object needs at least one field", column_path=path)
        names = [arrow_type.field(i).name for i in range(arrow_type.num_fields)]
        if len(set(names)) != len(names):
            raise InvalidShreddingError(f"a shredded object names a field twice: {names}", column_path=path)
        fields = tuple(
            (name, _spec(arrow_type.field(name).type, f"{path}.{name}.typed_value")) for name in names
        )
        typed = pa.struct([pa.field(name, _level_type(s), nullable=False) for name, s in fields])
        return _Spec(path, typed, fields=fields)
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        element = _spec(arrow_type.value_type, f"{path}.list.element.typed_value")
        typed = pa.list_(pa.field("element", _level_type(element), nullable=False))
        return _Spec(path, typed, element=element)
    vt, written = _variant_type_of(arrow_type, path)
    return _Spec(path, written, variant_type=vt)


def _level_type(spec: _Spec) -> pa.StructType:
    # value and typed_value are optional; the groups holding them are required (spec: field
    # groups and list elements "must be required").
    return pa.struct([pa.field("value", pa.binary()), pa.field("typed_value", spec.arrow_type)])


def shredded_type(typed_value_type: pa.DataType | str) -> pa.StructType:
    """The Arrow type :func:`shred` returns for a shredding schema.

    Example:
        >>> shredded_type(pa.int64())
        StructType(struct<metadata: binary not null, value: binary, typed_value: int64>)
    """
    return _top_type(_spec(_as_type(typed_value_type), "typed_value"))


def _top_type(spec: _Spec) -> pa.StructType:
    return pa.struct(
        [
            pa.field("metadata", pa.binary(), nullable=False),
            pa.field("value", pa.binary()),
            pa.field("typed_value", spec.arrow_type),
        ]
    )


# -- matching -----------------------------------------------------------------------------------
def _decimal_parts(v: Variant) -> tuple[int, int]:
    """(unscaled, scale) of a Variant decimal."""
    width = _DECIMAL_WIDTHS[v.type]
    return read_int(v.buf, v.pos + 2, width, "decimal"), read_int(v.buf, v.pos + 1, 1, "decimal scale") & 0xFF


def _typed_raw(spec: _Spec, v: Variant) -> tuple[bool, Any]:
    """(True, the column value) when ``v`` goes to ``typed_value``, else (False, None)."""
    want, have = spec.variant_type, v.type
    assert want is not None  # only primitive specs get here
    if want in _INT_WIDTHS:
        if have in _INT_WIDTHS and _INT_WIDTHS[have] <= _INT_WIDTHS[want]:
            return True, v.scalar()
        return False, None
    if want in _DECIMAL_WIDTHS:
        if have not in _DECIMAL_WIDTHS:
            return False, None
        unscaled, scale = _decimal_parts(v)
        t = spec.arrow_type
        if scale != t.scale or len(str(abs(unscaled))) > t.precision:
            return False, None
        return True, decimal.Decimal(unscaled).scaleb(
            -scale, decimal.Context(prec=MAX_DECIMAL16_PRECISION + 2)
        )
    if have != want:
        return False, None
    if want in _RAW_INT:
        return True, read_int(v.buf, v.pos + 1, _RAW_INT[want], want.value)
    if want == VariantType.UUID:
        return True, read_bytes(v.buf, v.pos + 1, 16, "uuid")
    return True, v.scalar()


def _primitive_array(spec: _Spec, raw: list[Any]) -> pa.Array:
    t = spec.arrow_type
    vt = spec.variant_type
    if vt in _RAW_INT:
        storage = pa.array(raw, pa.int32() if vt == VariantType.DATE else pa.int64())
        return storage.view(t)
    if vt == VariantType.UUID:
        storage = pa.array(raw, pa.binary(16))
        return pa.ExtensionArray.from_storage(t, storage) if isinstance(t, pa.BaseExtensionType) else storage
    return pa.array(raw, t)


# -- shredding ----------------------------------------------------------------------------------
def _shred_level(spec: _Spec, items: Sequence[Variant | None]) -> pa.StructArray:
    """The ``{value, typed_value}`` group of ``spec`` for each item (None = missing)."""
    n = len(items)
    values: list[bytes | None] = [None] * n
    if spec.is_object:
        typed_valid = np.zeros(n, dtype=bool)
        children: dict[str, list[Variant | None]] = {name: [None] * n for name, _ in spec.fields}
        for i, v in enumerate(items):
            if v is None:
                continue
            if v.basic_type != BasicType.OBJECT:
                values[i] = v.value_bytes()
                continue
            typed_valid[i] = True
            rest = []
            for fid, (name, child) in zip(v.field_ids(), v.items()):
                slot = children.get(name)
                if slot is not None:
                    slot[i] = child
                else:
                    rest.append((name, fid, child.value_bytes()))
            if rest:
                values[i] = encode_object(rest)
        groups = [_shred_level(s, children[name]) for name, s in spec.fields]
        typed = pa.StructArray.from_arrays(
            groups,
            fields=list(spec.arrow_type),
            mask=pa.array(~typed_valid) if not typed_valid.all() else None,
        )
    elif spec.element is not None:
        typed_valid = np.zeros(n, dtype=bool)
        offsets = np.zeros(n + 1, dtype=np.int32)
        flat: list[Variant | None] = []
        for i, v in enumerate(items):
            if v is not None and v.basic_type == BasicType.ARRAY:
                typed_valid[i] = True
                flat.extend(v.elements())
            elif v is not None:
                values[i] = v.value_bytes()
            offsets[i + 1] = len(flat)
        elements = _shred_level(spec.element, flat)
        typed = pa.ListArray.from_arrays(
            pa.array(offsets), elements, type=spec.arrow_type, mask=pa.array(~typed_valid)
        )
    else:
        raw: list[Any] = [None] * n
        for i, v in enumerate(items):
            if v is None:
                continue
            matched, item = _typed_raw(spec, v)
            if matched:
                raw[i] = item
            else:
                values[i] = v.value_bytes()
        typed = _primitive_array(spec, raw)
    return pa.StructArray.from_arrays([pa.array(values, pa.binary()), typed], fields=list(_level_type(spec)))


def shred(variants: pa.StructArray | pa.ChunkedArray, typed_value_type: pa.DataType | str) -> pa.StructArray:
    """Shred Variant values (``struct<metadata, value>``) into ``typed_value_type``.

    Example:
        >>> from vpush.codec.builder import encode
        >>> rows = [encode({"a": 1, "b": "x"}), encode({"a": "n/a"}), encode(7)]
        >>> v = pa.array([{"metadata": m, "value": x} for m, x in rows],
        ...              pa.struct([("metadata", pa.binary()), ("value", pa.binary())]))
        >>> out = shred(v, "struct<a: bigint>")
        >>> out.field("typed_value").field("a").field("typed_value").to_pylist()
        [1, None, None]
        >>> [Variant(m, x).to_python() if x else x for (m, _), x in zip(rows, out.field("value").to_pylist())]
        [{'b': 'x'}, None, 7]
        >>> out.field("typed_value").field("a").field("value").to_pylist()
        [None, b'\\rn/a', None]

    Args:
        variants: the values; rows that are null stay null.
        typed_value_type: the Arrow type of the top-level ``typed_value`` (a struct for an
            object, a list for an array, a primitive type), or the same as Spark DDL text,
            see :func:`parse_shredding_schema`.

    Returns:
        ``struct<metadata not null, value, typed_value>`` in the final layout of the spec, ready
        for ``write_variant_parquet``.

    Raises:
        InvalidShreddingError: a schema type that has no Variant equivalent (unsigned integers,
            millisecond timestamps, ...), or an empty struct.
        MalformedVariantError: a non-null row whose metadata or value is null or damaged.
    """
    spec = _spec(_as_type(typed_value_type), "typed_value")
    if isinstance(variants, pa.ChunkedArray):
        variants = variants.combine_chunks() if variants.num_chunks != 1 else variants.chunk(0)
    if not pa.types.is_struct(variants.type) or {"metadata", "value"} - {f.name for f in variants.type}:
        raise InvalidShreddingError(
            f"shred needs struct<metadata, value> Variant values, not {variants.type}"
        )
    n = len(variants)
    valid = (
        np.ones(n, dtype=bool)
        if variants.null_count == 0
        else variants.is_valid().to_numpy(zero_copy_only=False)
    )
    metadata = variants.field("metadata").cast(pa.binary()).to_pylist()
    value = variants.field("value").cast(pa.binary()).to_pylist()
    views: dict[bytes, VariantMetadata] = {}
    items: list[Variant | None] = [None] * n
    for i in np.flatnonzero(valid).tolist():
        meta, val = metadata[i], value[i]
        if meta is None or val is None:
            raise MalformedVariantError(f"row {i}: a non-null Variant needs both metadata and value")
        view = views.get(meta)
        if view is None:
            view = views[meta] = VariantMetadata(meta)
        items[i] = Variant(view, val)
    level = _shred_level(spec, items)
    fields = list(_top_type(spec))
    meta_out = pa.array([m if m is not None else EMPTY_METADATA_BYTES for m in metadata], pa.binary())
    return pa.StructArray.from_arrays(
        [meta_out, level.field("value"), level.field("typed_value")],
        fields=fields,
        mask=pa.array(~valid) if not valid.all() else None,
    )


def write_shredded_parquet(
    table: pa.Table,
    where: str | os.PathLike[str],
    shredding: Mapping[str, pa.DataType | str],
    *,
    variant_columns: Sequence[str] = (),
    **parquet_options: Any,
) -> None:
    """Shred the named Variant columns of ``table`` and write it with the ``VARIANT`` annotation.

    Example:
        >>> import tempfile, pyarrow.parquet as pq
        >>> from vpush.codec.builder import encode
        >>> m, x = encode({"a": 1})
        >>> layout = pa.struct([("metadata", pa.binary()), ("value", pa.binary())])
        >>> v = pa.array([{"metadata": m, "value": x}], layout)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     write_shredded_parquet(pa.table({"v": v}), folder + "/t.parquet", {"v": "struct<a: bigint>"})
        ...     "v (Variant(1))" in str(pq.ParquetFile(folder + "/t.parquet").schema)
        True

    Args:
        table: the data; each key of ``shredding`` names a ``struct<metadata, value>`` column.
        where: the destination path.
        shredding: column name -> shredding schema (see :func:`shred`).
        variant_columns: further, unshredded Variant columns to annotate.
        **parquet_options: passed on to ``pyarrow.parquet.write_table``.

    Raises:
        InvalidShreddingError: a named column that is missing, or a schema type with no Variant
            equivalent.
    """
    from vpush.codec.write_variant_parquet import write_variant_parquet

    for name, schema in shredding.items():
        index = table.schema.get_field_index(name)
        if index < 0:
            raise InvalidShreddingError("no such column in the table", column_path=name)
        shredded = shred(table.column(index), schema)
        table = table.set_column(
            index, pa.field(name, shredded.type, table.schema.field(index).nullable), shredded
        )
    for name in variant_columns:
        index = table.schema.get_field_index(name)
        if name not in shredding and index >= 0:
            column = _unshredded_column(table.column(index), name)
            table = table.set_column(
                index, pa.field(name, column.type, table.schema.field(index).nullable), column
            )
    write_variant_parquet(
        table, where, [*shredding, *(c for c in variant_columns if c not in shredding)], **parquet_options
    )


def _unshredded_column(column: pa.ChunkedArray, name: str) -> pa.Array:
    """An unshredded Variant column with both binaries non-nullable (Parquet ``required``, as the
    spec wants when there is no typed_value); null rows keep empty placeholders."""
    array = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if not pa.types.is_struct(array.type) or {f.name for f in array.type} != {"metadata", "value"}:
        raise InvalidShreddingError(
            f"an unshredded Variant column is struct<metadata, value>, not {array.type}", column_path=name
        )
    valid = array.is_valid()
    metadata = array.field("metadata").cast(pa.binary())
    value = array.field("value").cast(pa.binary())
    if pc.any(pc.and_(valid, pc.or_(metadata.is_null(), value.is_null()))).as_py():
        raise MalformedVariantError("a non-null Variant needs both metadata and value", column_path=name)
    return pa.StructArray.from_arrays(
        [metadata.fill_null(EMPTY_METADATA_BYTES), value.fill_null(b"\x00")],
        fields=[
            pa.field("metadata", pa.binary(), nullable=False),
            pa.field("value", pa.binary(), nullable=False),
        ],
        mask=pc.invert(valid) if array.null_count else None,
    )


# -- Spark DDL ----------------------------------------------------------------------------------
_TOKEN = re.compile(r"\s*(?:(`(?:[^`]|``)*`)|([A-Za-z_][A-Za-z0-9_]*)|(\d+)|([<>(),:\[\]]))")
_SIMPLE_TYPES: dict[str, pa.DataType] = {
    "boolean": pa.bool_(),
    "bool": pa.bool_(),
    "tinyint": pa.int8(),
    "byte": pa.int8(),
    "smallint": pa.int16(),
    "short": pa.int16(),
    "int": pa.int32(),
    "integer": pa.int32(),
    "bigint": pa.int64(),
    "long": pa.int64(),
    "float": pa.float32(),
    "real": pa.float32(),
    "double": pa.float64(),
    "string": pa.string(),
    "varchar": pa.string(),
    "char": pa.string(),
    "binary": pa.binary(),
    "blob": pa.binary(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us", "UTC"),
    "timestamp_ltz": pa.timestamp("us", "UTC"),
    "timestamptz": pa.timestamp("us", "UTC"),
    "timestamp_ntz": pa.timestamp("us"),
    "time": pa.time64("us"),
    "uuid": pa.uuid(),
}


class _DdlParser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[str] = []
        pos = 0
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            if match is None or match.end() == pos:
                if text[pos:].strip() == "":
                    break
                raise self.error(f"unexpected character {text[pos:].strip()[0]!r}")
            self.tokens.append(next(g for g in match.groups() if g is not None))
            pos = match.end()
        self.pos = 0

    def error(self, message: str) -> InvalidShreddingError:
        return InvalidShreddingError(f"cannot parse shredding schema {self.text!r}: {message}")

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise self.error(f"expected {expected or 'more'}, found {token or 'the end'}")
        self.pos += 1
        return token

    def name(self) -> str:
        token = self.take()
        return token[1:-1].replace("``", "`") if token.startswith("`") else token

    def fields(self, close: str | None) -> pa.DataType:
        fields = []
        while True:
            name = self.name()
            if self.peek() == ":":
                self.take()
            fields.append(pa.field(name, self.type()))
            if self.peek() != ",":
                break
            self.take()
        if close is not None:
            self.take(close)
        return pa.struct(fields)

    def type(self) -> pa.DataType:
        word = self.take().lower()
        if word == "struct":
            opener = self.take()
            if opener not in ("<", "("):
                raise self.error(f"expected < after struct, found {opener}")
            return self.fields(">" if opener == "<" else ")")
        if word in ("array", "list"):
            self.take("<")
            element = self.type()
            self.take(">")
            return pa.list_(element)
        if word in ("decimal", "dec", "numeric"):
            precision, scale = 10, 0  # Spark's default DECIMAL
            if self.peek() == "(":
                self.take()
                precision = int(self.take())
                if self.peek() == ",":
                    self.take()
                    scale = int(self.take())
                self.take(")")
            return pa.decimal128(precision, scale)
        if word not in _SIMPLE_TYPES:
            raise self.error(f"unknown type {word!r}")
        if word in ("varchar", "char", "time") and self.peek() == "(":
            self.take()
            self.take()
            self.take(")")
        return _SIMPLE_TYPES[word]


def parse_shredding_schema(text: str) -> pa.DataType:
    """Parse a shredding schema written as Spark DDL: ``struct<a: bigint, b: array<string>>``,
    a bare field list ``a bigint, b string``, or one type (``decimal(9,2)``, ``timestamp_ntz``).
    ``struct(a bigint)`` (DuckDB's form) is read too; ``timestamp`` is Spark's (with time zone).

    Example:
        >>> parse_shredding_schema("a bigint, b array<string>")
        StructType(struct<a: int64, b: list<item: string>>)

    Raises:
        InvalidShreddingError: text that does not parse.
    """
    parser = _DdlParser(text)
    # Two words in a row (``a bigint``) or a colon (``a: bigint``) start a field list.
    if len(parser.tokens) > 1 and parser.tokens[1] not in ("<", "("):
        result = parser.fields(None)
    else:
        result = parser.type()
    if parser.peek() is not None:
        raise parser.error(f"unexpected {parser.peek()!r} after the type")
    return result


def _as_type(typed_value_type: pa.DataType | str) -> pa.DataType:
    return parse_shredding_schema(typed_value_type) if isinstance(typed_value_type, str) else typed_value_type
