"""Shredding: which values go to typed_value (exact types, integer and decimal widening), partial
objects, arrays, nulls, the schema text parser, the Arrow types written, and the file writer."""

from __future__ import annotations

import datetime as dt
import decimal
import io
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vpush.codec.builder import encode
from vpush.codec.errors import InvalidShreddingError, MalformedVariantError
from vpush.codec.header import PrimitiveType
from vpush.codec.layout import ObjectLayout, find_variant_columns
from vpush.codec.scalars import Float32, VariantScalar
from vpush.codec.shred import parse_shredding_schema, shred, shredded_type, write_shredded_parquet
from vpush.codec.unshred import unshred
from vpush.codec.value import Variant

VARIANT = pa.struct([("metadata", pa.binary()), ("value", pa.binary())])
UTC = dt.timezone.utc


def _variants(rows: list[Any]) -> pa.StructArray:
    return pa.array([{"metadata": m, "value": v} for m, v in (encode(r) for r in rows)], VARIANT)


def _split(value: Any, schema: pa.DataType | str) -> tuple[Any, Any]:
    """(value as Python or None, typed_value as pyarrow gives it) for one value."""
    out = shred(_variants([value]), schema).to_pylist()[0]
    metadata = encode(value)[0]
    return (Variant(metadata, out["value"]).to_python() if out["value"] is not None else None), out[
        "typed_value"
    ]


# -- which values are typed ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "schema", "typed"),
    [
        (5, pa.int64(), 5),  # int8 widens to int64
        (VariantScalar(PrimitiveType.INT16, 300), pa.int16(), 300),
        (VariantScalar(PrimitiveType.INT64, 5), pa.int64(), 5),
        (True, pa.bool_(), True),
        (Float32(1.5), pa.float32(), 1.5),
        (1.5, pa.float64(), 1.5),
        ("x" * 100, pa.string(), "x" * 100),  # a long string is a string
        (b"\x00\x01", pa.binary(), b"\x00\x01"),
        (decimal.Decimal("1.25"), pa.decimal128(9, 2), decimal.Decimal("1.25")),
        (decimal.Decimal("1.25"), pa.decimal128(38, 2), decimal.Decimal("1.25")),  # decimal4 widens
        (dt.date(2024, 2, 29), pa.date32(), dt.date(2024, 2, 29)),
        (dt.time(1, 2, 3, 4), pa.time64("us"), dt.time(1, 2, 3, 4)),
        (dt.datetime(2024, 1, 1, tzinfo=UTC), pa.timestamp("us", "UTC"), dt.datetime(2024, 1, 1, tzinfo=UTC)),
        (dt.datetime(2024, 1, 1), pa.timestamp("us"), dt.datetime(2024, 1, 1)),
        (uuid.UUID(int=7), pa.uuid(), uuid.UUID(int=7)),
    ],
)
def test_typed(value: Any, schema: pa.DataType, typed: Any) -> None:
    residual, got = _split(value, schema)
    assert residual is None, "a matching value leaves value null"
    assert got == typed


@pytest.mark.parametrize(
    ("value", "schema", "why"),
    [
        (VariantScalar(PrimitiveType.INT64, 5), pa.int32(), "no narrowing, even when the value fits"),
        (300, pa.int8(), "int16 does not fit int8"),
        (decimal.Decimal("5"), pa.int64(), "a decimal never goes to an integer column"),
        (5, pa.decimal128(9, 0), "an integer never goes to a decimal column"),
        (decimal.Decimal("1.5"), pa.decimal128(9, 2), "scales must be equal"),
        (decimal.Decimal("12345.67"), pa.decimal128(5, 2), "more digits than the precision"),
        (Float32(1.5), pa.float64(), "float and double stay apart"),
        (1.5, pa.float32(), "float and double stay apart"),
        ("123", pa.int64(), "strings never parse"),
        (1, pa.string(), "no casts to string"),
        (dt.datetime(2024, 1, 1, tzinfo=UTC), pa.timestamp("us"), "with and without time zone stay apart"),
        (dt.datetime(2024, 1, 1), pa.timestamp("ns"), "micros never widen to nanos"),
        (VariantScalar(PrimitiveType.TIMESTAMP_NTZ_NANOS, 1), pa.timestamp("us"), "nanos never narrow"),
        (dt.date(2024, 1, 1), pa.timestamp("us"), "a date is not a timestamp"),
        (b"x" * 16, pa.uuid(), "16 bytes of binary are not a uuid"),
        (None, pa.int64(), "a Variant null is never typed"),
        ({"a": 1}, pa.int64(), "an object under a primitive schema"),
        ([1], pa.struct([("a", pa.int64())]), "an array under an object schema"),
        ({"a": 1}, pa.list_(pa.int64()), "an object under an array schema"),
    ],
)
def test_untyped(value: Any, schema: pa.DataType, why: str) -> None:
    residual, typed = _split(value, schema)
    assert typed is None, why
    assert Variant(*encode(value)).to_python() == residual, "the value is kept whole in value"


def test_variant_null_is_00() -> None:
    out = shred(_variants([None]), pa.int64()).to_pylist()[0]
    assert out["value"] == b"\x00" and out["typed_value"] is None


def test_partial_object_keeps_field_ids() -> None:
    value = {"a": 1, "b": "x", "c": [1]}
    metadata, _ = encode(value)
    out = shred(_variants([value]), pa.struct([("b", pa.string())])).to_pylist()[0]
    assert out["metadata"] == metadata, "the row's metadata is kept"
    residual = Variant(metadata, out["value"])
    assert residual.to_python() == {"a": 1, "c": [1]}
    assert residual.field_ids() == [0, 2], "residual fields keep their ids in the metadata"
    assert out["typed_value"] == {"b": {"value": None, "typed_value": "x"}}


def test_object_cases() -> None:
    schema = pa.struct([("a", pa.int64()), ("b", pa.string())])
    rows = [{"a": 1, "b": "x"}, {"a": None}, {}, {"a": "n/a", "z": 1}, "s"]
    out = shred(_variants(rows), schema).to_pylist()
    assert [r["typed_value"] for r in out] == [
        {"a": {"value": None, "typed_value": 1}, "b": {"value": None, "typed_value": "x"}},
        {"a": {"value": b"\x00", "typed_value": None}, "b": {"value": None, "typed_value": None}},
        {"a": {"value": None, "typed_value": None}, "b": {"value": None, "typed_value": None}},
        {"a": {"value": b"\x0dn/a", "typed_value": None}, "b": {"value": None, "typed_value": None}},
        None,
    ]
    assert [r["value"] is None for r in out] == [True, True, True, False, False]


def test_array_cases() -> None:
    out = shred(_variants([["a", None, 1], [], "x"]), pa.list_(pa.string())).to_pylist()
    assert out[0]["typed_value"] == [
        {"value": None, "typed_value": "a"},
        {"value": b"\x00", "typed_value": None},
        {"value": b"\x0c\x01", "typed_value": None},
    ]
    assert out[1]["typed_value"] == [] and out[1]["value"] is None
    assert out[2]["typed_value"] is None and out[2]["value"] == b"\x05x"


def test_sql_null_rows() -> None:
    variants = pa.array([None, {"metadata": b"\x01\x00\x00", "value": b"\x0c\x01"}], VARIANT)
    out = shred(variants, "bigint")
    assert out.to_pylist()[0] is None
    assert out.field("metadata").null_count == 0, "metadata is required in Parquet"
    assert out.to_pylist()[1]["typed_value"] == 1


def test_null_value_in_a_row_raises() -> None:
    with pytest.raises(MalformedVariantError, match="row 0"):
        shred(pa.array([{"metadata": b"\x01\x00\x00", "value": None}], VARIANT), "bigint")


def test_chunked_input() -> None:
    chunked = pa.chunked_array([_variants([1]), _variants([2, "x"])])
    assert shred(chunked, "bigint").field("typed_value").to_pylist() == [1, 2, None]


# -- schemas -------------------------------------------------------------------------------------
def test_arrow_types_written() -> None:
    """Field groups and list elements are non-nullable, so Parquet gets `required` groups; a
    16-byte fixed binary becomes arrow.uuid, so Parquet gets the UUID annotation."""
    t = shredded_type(pa.struct([("a", pa.list_(pa.binary(16)))]))
    assert not t.field("metadata").nullable and t.field("value").nullable
    field_a = t.field("typed_value").type.field("a")
    assert not field_a.nullable
    element = field_a.type.field("typed_value").type.value_field
    assert not element.nullable and element.name == "element"
    assert element.type.field("typed_value").type == pa.uuid()


@pytest.mark.parametrize(
    "schema",
    [
        pa.uint32(),
        pa.timestamp("ms"),
        pa.time32("s"),
        pa.float16(),
        pa.binary(4),
        pa.struct([]),
        pa.date64(),
        pa.null(),
        pa.map_(pa.string(), pa.int64()),
        pa.struct([("a", pa.uint8())]),
    ],
)
def test_unsupported_schema(schema: pa.DataType) -> None:
    with pytest.raises(InvalidShreddingError):
        shred(_variants([1]), schema)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("bigint", pa.int64()),
        ("struct<a: bigint, b: string>", pa.struct([("a", pa.int64()), ("b", pa.string())])),
        ("STRUCT<a:INT,b:ARRAY<DOUBLE>>", pa.struct([("a", pa.int32()), ("b", pa.list_(pa.float64()))])),
        ("a bigint, b array<string>", pa.struct([("a", pa.int64()), ("b", pa.list_(pa.string()))])),
        ("a: tinyint", pa.struct([("a", pa.int8())])),
        ("STRUCT(a BIGINT, b VARCHAR)", pa.struct([("a", pa.int64()), ("b", pa.string())])),
        ("decimal(9, 2)", pa.decimal128(9, 2)),
        ("decimal", pa.decimal128(10, 0)),
        ("timestamp", pa.timestamp("us", "UTC")),
        ("timestamp_ntz", pa.timestamp("us")),
        ("struct<`a b`: date, `x``y`: binary>", pa.struct([("a b", pa.date32()), ("x`y", pa.binary())])),
        ("varchar(10)", pa.string()),
        ("array<struct<c: boolean>>", pa.list_(pa.struct([("c", pa.bool_())]))),
        ("date string", pa.struct([("date", pa.string())])),
    ],
)
def test_parse_shredding_schema(text: str, expected: pa.DataType) -> None:
    assert parse_shredding_schema(text) == expected


@pytest.mark.parametrize(
    "text", ["", "struct<a bigint", "map<string, int>", "bigint extra", "array<>", "a:", "#"]
)
def test_parse_errors(text: str) -> None:
    with pytest.raises(InvalidShreddingError, match="cannot parse"):
        parse_shredding_schema(text)


# -- writing -------------------------------------------------------------------------------------
def test_write_shredded_parquet(tmp_path: Path) -> None:
    rows = [{"a": 1, "b": [dt.date(2024, 1, 1)]}, {"a": "x"}, 3]
    plain = _variants(rows)
    path = tmp_path / "t.parquet"
    table = pa.table({"id": [1, 2, 3], "v": plain, "w": plain})
    write_shredded_parquet(
        table, path, {"v": "struct<a: bigint, b: array<date>>"}, variant_columns=["w"], row_group_size=2
    )
    pf = pq.ParquetFile(path)
    assert pf.num_row_groups == 2
    layouts = find_variant_columns(pf, file=str(path))
    assert set(layouts) == {"v", "w"} and layouts["v"].annotated and layouts["w"].annotated
    assert isinstance(layouts["v"].typed_value, ObjectLayout) and not layouts["w"].is_shredded
    for name in ("v", "w"):
        got = unshred(layouts[name], pf.read().column(name)).to_pylist()
        assert [Variant(r["metadata"], r["value"]).to_python() for r in got] == rows


def test_write_unknown_column(tmp_path: Path) -> None:
    with pytest.raises(InvalidShreddingError, match="no such column"):
        write_shredded_parquet(pa.table({"v": _variants([1])}), tmp_path / "t.parquet", {"x": "bigint"})


@given(
    st.lists(
        st.dictionaries(st.sampled_from("abc"), st.one_of(st.integers(-5, 5), st.text(max_size=3))),
        min_size=1,
        max_size=5,
    )
)
def test_shredded_is_valid_layout(rows: list[dict[str, Any]]) -> None:
    """What shred writes, the layout accepts, and every field lands in typed or value."""
    out = shred(_variants(rows), "struct<a: bigint, b: string>")
    buf = io.BytesIO()
    pq.write_table(pa.table({"v": out}), buf)
    layout = find_variant_columns(pq.ParquetFile(buf))["v"]
    assert layout.typed_leaf(["a"]) is not None and layout.typed_leaf(["b"]) is not None
    typed = out.field("typed_value").to_pylist()
    for row, t in zip(rows, typed):
        for name in ("a", "b"):
            group = t[name]
            present = group["value"] is not None or group["typed_value"] is not None
            assert present == (name in row), "a field is present exactly when the object has it"
