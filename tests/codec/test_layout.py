"""Recognising Variant columns in Parquet schemas and checking them against the shredding spec,
on tiny files written with pyarrow (annotated by patching the footer where needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from vpush.codec.errors import InvalidShreddingError
from vpush.codec.header import VariantType
from vpush.codec.layout import (
    ArrayLayout,
    LogicalType,
    ObjectLayout,
    PrimitiveLayout,
    SchemaElement,
    VariantLayout,
    find_variant_columns,
    parquet_schema,
    variant_layout,
)
from vpush.codec.parquet_footer import (
    FILE_METADATA_SCHEMA,
    CompactType,
    ThriftField,
    ThriftList,
    ThriftStruct,
    read_footer,
    write_footer,
)

EMPTY_METADATA = b"\x01\x00\x00"
BIN = pa.binary()


def _group(*fields: pa.Field) -> pa.StructType:
    return pa.struct(list(fields))


def _level(typed: pa.DataType | None = None, *, value: bool = True) -> pa.StructType:
    fields = [pa.field("value", BIN)] if value else []
    if typed is not None:
        fields.append(pa.field("typed_value", typed))
    return pa.struct(fields)


def _variant(
    typed: pa.DataType | None = None, *, metadata: pa.DataType | None = BIN, value: bool = True
) -> pa.StructType:
    fields = [pa.field("metadata", metadata, nullable=False)] if metadata is not None else []
    fields.extend(_level(typed, value=value))
    return pa.struct(fields)


def _annotate(path: Path, column: str) -> None:
    """Add the VARIANT annotation to top-level group ``column``, whatever it holds (the real
    writer refuses malformed groups, and these tests need them)."""
    footer = read_footer(path)
    schema = footer.metadata.value(FILE_METADATA_SCHEMA)
    assert isinstance(schema, ThriftList)
    for item in schema.items:
        assert isinstance(item, ThriftStruct)
        if item.value(4) == column.encode():
            version = ThriftStruct([ThriftField(1, CompactType.I8, 1)])
            item.set(10, CompactType.STRUCT, ThriftStruct([ThriftField(16, CompactType.STRUCT, version)]))
    with open(path, "r+b") as handle:
        write_footer(handle, footer, footer.metadata)


def _one_row(column_type: pa.DataType) -> pa.Array:
    """One row of ``column_type``: nulls wherever allowed, empty metadata in required binaries."""
    if pa.types.is_struct(column_type):
        children = [_one_row(f.type) if not f.nullable else pa.nulls(1, f.type) for f in column_type]
        return pa.StructArray.from_arrays(children, fields=list(column_type))
    if pa.types.is_list(column_type):
        return pa.array([[]], column_type)
    if column_type.equals(BIN):
        return pa.array([EMPTY_METADATA])
    return pa.array([0]).cast(column_type)


def _write(
    tmp_path: Path, column_type: pa.DataType, *, annotate: bool = True, rows: list[Any] | None = None
) -> Path:
    path = tmp_path / "t.parquet"
    data = pa.array(rows, column_type) if rows is not None else _one_row(column_type)
    pq.write_table(pa.table({"id": [1] * len(data), "v": data}), path)
    if annotate:
        _annotate(path, "v")
    return path


def _layouts(path: Path) -> dict[str, VariantLayout]:
    return find_variant_columns(pq.ParquetFile(path), file=str(path))


def _invalid(path: Path, column_path: str, match: str) -> None:
    with pytest.raises(InvalidShreddingError, match=match) as info:
        _layouts(path)
    assert info.value.file == str(path), "errors should name the file"
    assert info.value.column_path == column_path, "errors should name the column path"


# -- disallowed typed_value types ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("typed", "why"),
    [
        (pa.uint32(), "unsigned integer (case 127)"),
        (pa.uint8(), "unsigned integer"),
        (pa.binary(4), "fixed_len_byte_array(4) (case 137)"),
        (pa.binary(16), "fixed_len_byte_array(16) without the UUID annotation"),
        (pa.timestamp("ms"), "millisecond timestamp"),
        (pa.time32("ms"), "millisecond time"),
        (pa.time64("ns"), "nanosecond time"),
        (pa.float16(), "float16"),
        (pa.map_(pa.string(), pa.int64()), "a MAP group"),
    ],
)
def test_disallowed_typed_value(tmp_path: Path, typed: pa.DataType, why: str) -> None:
    path = _write(tmp_path, _variant(typed))
    _invalid(path, "v.typed_value", "unsupported shredded")


def test_int96_typed_value(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    v = pa.array([None], _variant(pa.timestamp("ns")))
    pq.write_table(pa.table({"v": v}), path, use_deprecated_int96_timestamps=True)
    _annotate(path, "v")
    assert "int96" in str(pq.ParquetFile(path).schema), "pyarrow should have written INT96"
    _invalid(path, "v.typed_value", "unsupported shredded value type: optional int96")


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        (pa.bool_(), VariantType.BOOLEAN),
        (pa.int8(), VariantType.INT8),
        (pa.int16(), VariantType.INT16),
        (pa.int32(), VariantType.INT32),
        (pa.int64(), VariantType.INT64),
        (pa.float32(), VariantType.FLOAT),
        (pa.float64(), VariantType.DOUBLE),
        (pa.decimal128(9, 2), VariantType.DECIMAL4),
        (pa.decimal128(18, 2), VariantType.DECIMAL8),
        (pa.decimal128(38, 2), VariantType.DECIMAL16),
        (pa.date32(), VariantType.DATE),
        (pa.time64("us"), VariantType.TIME),
        (pa.timestamp("us", "UTC"), VariantType.TIMESTAMP),
        (pa.timestamp("us"), VariantType.TIMESTAMP_NTZ),
        (pa.timestamp("ns", "UTC"), VariantType.TIMESTAMP_NANOS),
        (pa.timestamp("ns"), VariantType.TIMESTAMP_NTZ_NANOS),
        (pa.binary(), VariantType.BINARY),
        (pa.string(), VariantType.STRING),
        (pa.uuid(), VariantType.UUID),
    ],
)
def test_allowed_typed_value(tmp_path: Path, typed: pa.DataType, expected: VariantType) -> None:
    layout = _layouts(_write(tmp_path, _variant(typed)))["v"]
    assert isinstance(layout.typed_value, PrimitiveLayout)
    assert layout.typed_value.variant_type == expected, f"{typed} should map to {expected}"
    assert layout.typed_value.path == "v.typed_value"


def test_decimal_keeps_precision_and_scale(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    pq.write_table(
        pa.table({"v": pa.array([None], _variant(pa.decimal128(7, 3)))}), path, store_decimal_as_integer=True
    )
    _annotate(path, "v")
    typed = _layouts(path)["v"].typed_value
    assert isinstance(typed, PrimitiveLayout)
    assert (typed.physical_type, typed.precision, typed.scale) == ("INT32", 7, 3)


# -- structure ---------------------------------------------------------------------------------
def test_optional_field_group_is_read(tmp_path: Path) -> None:
    """Case 84 is INVALID (field groups must be required); vpush reads it: a null group means the
    field is missing."""
    typed = pa.struct([pa.field("a", _level(pa.int64()), nullable=True)])
    layout = _layouts(_write(tmp_path, _variant(typed)))["v"]
    assert isinstance(layout.typed_value, ObjectLayout)
    field = layout.typed_value.field("a")
    assert field is not None and not field.required


def test_repeated_field_group_fails(tmp_path: Path) -> None:
    element = pa.struct([pa.field("value", BIN)])
    typed = pa.struct([pa.field("a", pa.list_(element))])  # a LIST group, not a field group
    path = _write(tmp_path, _variant(typed))
    _invalid(path, "v.typed_value.a", "unexpected field 'list'")


def test_list_element_must_be_required(tmp_path: Path) -> None:
    typed = pa.list_(pa.field("element", _level(pa.int64()), nullable=True))
    path = _write(tmp_path, _variant(typed))
    _invalid(path, "v.typed_value.list.element", "required group")


def test_list_element_must_be_a_group(tmp_path: Path) -> None:
    path = _write(tmp_path, _variant(pa.list_(pa.field("element", pa.int64(), nullable=False))))
    _invalid(path, "v.typed_value.list.element", "must be a group")


def test_extra_fields(tmp_path: Path) -> None:
    extra = pa.struct([*_variant(pa.int64()), pa.field("other", pa.int32())])
    _invalid(_write(tmp_path, extra), "v", "unexpected field 'other'")
    ignored = pa.struct([*_variant(pa.int64()), pa.field("_spark_extension", pa.int32())])
    layout = _layouts(_write(tmp_path, ignored))["v"]
    assert "v._spark_extension" not in layout.columns(), "fields starting with _ are ignored"


def test_extra_field_in_field_group(tmp_path: Path) -> None:
    group = pa.struct([pa.field("value", BIN), pa.field("typed_value", pa.int64()), pa.field("x", pa.int8())])
    typed = pa.struct([pa.field("a", group, nullable=False)])
    _invalid(_write(tmp_path, _variant(typed)), "v.typed_value.a", "unexpected field 'x'")


def test_field_group_must_be_a_group(tmp_path: Path) -> None:
    typed = pa.struct([pa.field("a", pa.int64())])
    _invalid(_write(tmp_path, _variant(typed)), "v.typed_value.a", "must be a group")


def test_missing_metadata(tmp_path: Path) -> None:
    _invalid(_write(tmp_path, _variant(pa.int64(), metadata=None)), "v", "needs a metadata field")


@pytest.mark.parametrize(
    ("column_type", "column_path"),
    [
        (_variant(pa.int64(), metadata=pa.string()), "v.metadata"),
        (_variant(pa.int64(), metadata=pa.int32()), "v.metadata"),
        (pa.struct([pa.field("metadata", BIN, nullable=False), pa.field("value", pa.int64())]), "v.value"),
        (
            _variant(pa.struct([pa.field("a", pa.struct([pa.field("value", pa.string())]), nullable=False)])),
            "v.typed_value.a.value",
        ),
    ],
)
def test_non_binary_metadata_or_value(tmp_path: Path, column_type: pa.DataType, column_path: str) -> None:
    _invalid(_write(tmp_path, column_type), column_path, "must be (plain )?binary")


def test_level_without_value_or_typed_value(tmp_path: Path) -> None:
    typed = pa.struct([pa.field("a", pa.struct([pa.field("_x", BIN)]), nullable=False)])
    _invalid(_write(tmp_path, _variant(typed)), "v.typed_value.a", "needs a value or a typed field")


def test_empty_object_fails() -> None:
    """Parquet cannot store an empty group, so this is a hand-built schema."""
    meta = SchemaElement("metadata", ("v", "metadata"), "REQUIRED", "BYTE_ARRAY", None, None)
    typed = SchemaElement("typed_value", ("v", "typed_value"), "OPTIONAL", None, None, None, ())
    group = SchemaElement(
        "v", ("v",), "OPTIONAL", None, None, LogicalType("VARIANT", version=1), (meta, typed)
    )
    with pytest.raises(InvalidShreddingError, match="at least one field") as info:
        variant_layout(group, file="f.parquet")
    assert (info.value.file, info.value.column_path) == ("f.parquet", "v.typed_value")


def test_two_level_list_fails() -> None:
    element = SchemaElement("element", ("v", "typed_value", "element"), "REPEATED", "INT64", None, None)
    typed = SchemaElement(
        "typed_value", ("v", "typed_value"), "OPTIONAL", None, None, LogicalType("LIST"), (element,)
    )
    meta = SchemaElement("metadata", ("v", "metadata"), "REQUIRED", "BYTE_ARRAY", None, None)
    group = SchemaElement("v", ("v",), "OPTIONAL", None, None, LogicalType("VARIANT"), (meta, typed))
    with pytest.raises(InvalidShreddingError, match="3-level list"):
        variant_layout(group)


def test_unsupported_variant_version(tmp_path: Path) -> None:
    path = _write(tmp_path, _variant(pa.int64()))
    footer = read_footer(path)
    schema = footer.metadata.value(FILE_METADATA_SCHEMA)
    assert isinstance(schema, ThriftList)
    for item in schema.items:
        assert isinstance(item, ThriftStruct)
        if item.value(4) == b"v":
            version = ThriftStruct([ThriftField(1, CompactType.I8, 2)])
            item.set(10, CompactType.STRUCT, ThriftStruct([ThriftField(16, CompactType.STRUCT, version)]))
    with open(path, "r+b") as handle:
        write_footer(handle, footer, footer.metadata)
    _invalid(path, "v", "specification version 2")


# -- recognition ---------------------------------------------------------------------------------
def test_unannotated_variant_is_recognised(tmp_path: Path) -> None:
    """Spark 4.0 writes value before metadata and no annotation; fields are matched by name."""
    spark = pa.struct([pa.field("value", BIN, nullable=False), pa.field("metadata", BIN, nullable=False)])
    layout = _layouts(_write(tmp_path, spark, annotate=False))["v"]
    assert (layout.annotated, layout.draft, layout.metadata, layout.value) == (
        False,
        False,
        "v.metadata",
        "v.value",
    )
    assert layout.value_required and not layout.is_shredded


def test_annotation_is_seen(tmp_path: Path) -> None:
    layout = _layouts(_write(tmp_path, _variant(pa.int64())))["v"]
    assert layout.annotated


@pytest.mark.parametrize(
    "column_type",
    [
        pa.struct([pa.field("metadata", BIN), pa.field("x", pa.int64())]),
        pa.struct([pa.field("metadata", BIN), pa.field("value", pa.int64())]),
        pa.struct([pa.field("typed_value", pa.int64())]),
        pa.struct([pa.field("metadata", BIN), pa.field("value", BIN), pa.field("other", BIN)]),
    ],
)
def test_plain_structs_are_not_variants(tmp_path: Path, column_type: pa.DataType) -> None:
    assert _layouts(_write(tmp_path, column_type, annotate=False)) == {}


def test_nested_in_plain_struct(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    s = pa.array(
        [{"v": {"metadata": EMPTY_METADATA, "value": b"\x00"}, "n": 1}],
        pa.struct([pa.field("v", _variant()), pa.field("n", pa.int64())]),
    )
    pq.write_table(pa.table({"s": s}), path)
    layouts = _layouts(path)
    assert list(layouts) == ["s.v"]
    assert layouts["s.v"].metadata == "s.v.metadata"


def test_draft_layout_is_recognised(tmp_path: Path) -> None:
    leaf = pa.struct([pa.field("untyped_value", BIN), pa.field("typed_value", pa.int64())])
    element = pa.struct([pa.field("untyped_value", BIN), pa.field("typed_value", pa.string())])
    obj = pa.struct(
        [
            pa.field("a", leaf),
            pa.field(
                "tags", pa.struct([pa.field("untyped_value", BIN), pa.field("array", pa.list_(element))])
            ),
        ]
    )
    draft = pa.struct([pa.field("untyped_value", BIN), pa.field("object", obj)])
    layout = _layouts(_write(tmp_path, draft, annotate=False))["v"]
    assert layout.draft and layout.metadata is None and not layout.annotated
    assert (layout.value, layout.value_field, layout.typed_field) == (
        "v.untyped_value",
        "untyped_value",
        "object",
    )
    assert isinstance(layout.typed_value, ObjectLayout)
    tags = layout.typed_value.field("tags")
    assert tags is not None and isinstance(tags.typed_value, ArrayLayout)
    assert tags.typed_field == "array" and not tags.typed_value.element.required, (
        "draft elements may be optional"
    )
    leaf_cols = layout.typed_leaf(["a"])
    assert leaf_cols is not None and leaf_cols.value == "v.object.a.untyped_value"
    assert leaf_cols.typed_value == "v.object.a.typed_value"


def test_draft_with_two_typed_forms_fails(tmp_path: Path) -> None:
    draft = pa.struct(
        [
            pa.field("untyped_value", BIN),
            pa.field("typed_value", pa.int64()),
            pa.field("array", pa.list_(pa.struct([pa.field("untyped_value", BIN)]))),
        ]
    )
    _invalid(_write(tmp_path, draft, annotate=False), "v", "more than one of object, array and typed_value")


# -- helpers for the optimizer -------------------------------------------------------------------
def test_leaf_helpers(tmp_path: Path) -> None:
    inner = pa.struct([pa.field("c", _level(pa.string()), nullable=False)])
    typed = pa.struct(
        [
            pa.field("a", _level(pa.int64()), nullable=False),
            pa.field("b", _level(inner), nullable=False),
            pa.field(
                "t", _level(pa.list_(pa.field("element", _level(pa.int32()), nullable=False))), nullable=False
            ),
        ]
    )
    layout = _layouts(_write(tmp_path, _variant(typed)))["v"]
    leaf = layout.typed_leaf(["b", "c"])
    assert leaf is not None
    assert (leaf.value, leaf.typed_value, leaf.type.variant_type) == (
        "v.typed_value.b.typed_value.c.value",
        "v.typed_value.b.typed_value.c.typed_value",
        VariantType.STRING,
    )
    assert layout.typed_leaf(["b"]) is None, "b is an object, not a primitive"
    assert layout.typed_leaf(["t"]) is None, "t is an array"
    assert layout.typed_leaf(["x"]) is None, "x is not shredded"
    assert layout.typed_leaf([]) is None
    assert [p for p, _ in layout.typed_leaves()] == [("a",), ("b", "c")]
    level_b = layout.level(["b"])
    assert level_b is not None and level_b.path == "v.typed_value.b"
    pf = pq.ParquetFile(_write(tmp_path, _variant(typed)))
    physical = [
        pf.schema.column(i).path for i in range(len(pf.schema)) if pf.schema.column(i).path.startswith("v.")
    ]
    assert sorted(layout.columns()) == sorted(physical), "columns() lists every leaf of the Variant"
    table = pf.read_row_group(0, columns=[leaf.value, leaf.typed_value])
    assert table.num_columns == 1, "the paths are ones pyarrow reads"


def test_parquet_schema_elements(tmp_path: Path) -> None:
    path = _write(tmp_path, _variant(pa.list_(pa.field("element", _level(pa.int8()), nullable=False))))
    root = parquet_schema(pq.ParquetFile(path))
    v = root.child("v")
    assert (
        v is not None and v.logical_type == LogicalType("VARIANT", version=1) and v.repetition == "OPTIONAL"
    )
    typed = v.child("typed_value")
    assert typed is not None and typed.logical_type is not None and typed.logical_type.kind == "LIST"
    element = typed.children[0].children[0]
    assert (element.name, element.repetition, element.is_group) == ("element", "REQUIRED", True)
    leaf = element.child("typed_value")
    assert leaf is not None and leaf.logical_type == LogicalType("INTEGER", bit_width=8, signed=True)


def test_many_row_groups_footer(tmp_path: Path) -> None:
    """Only the schema is decoded: a footer with many row groups is as quick as a small one."""
    path = tmp_path / "t.parquet"
    v = pa.array([{"metadata": EMPTY_METADATA, "value": b"\x00"}] * 2000, _variant())
    pq.write_table(
        pa.table({"v": v, **{f"c{i}": pa.array(range(2000)) for i in range(20)}}), path, row_group_size=10
    )
    assert pq.ParquetFile(path).num_row_groups == 200
    assert list(_layouts(path)) == ["v"]


def test_list_element_without_typed_value_needs_a_required_value(tmp_path: Path) -> None:
    # The spec: "When typed_value is omitted, value must be required" (list elements).
    optional = pa.list_(pa.field("element", _level(), nullable=False))
    _invalid(_write(tmp_path, _variant(optional)), "v.typed_value.list.element.value", "required value")
    required = pa.struct([pa.field("value", BIN, nullable=False)])
    path = _write(tmp_path, _variant(pa.list_(pa.field("element", required, nullable=False))))
    assert _layouts(path)["v"].typed_value is not None
