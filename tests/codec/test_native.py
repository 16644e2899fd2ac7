"""The compiled reconstruction kernel (``vpush.codec.native``) against the pure-Python reference.

- the parquet-testing suite: every valid case by value, every must-fail case raising our errors;
- round trips: random values shredded with random schemas, rebuilt byte for byte as
  ``vpush.codec.unshred`` rebuilds them, and equal by value to the input;
- a seeded corruption fuzz of residual values and metadata: only our errors, never a crash;
- Arrow offsets (sliced structs, children with their own offsets), chunks, dictionary, large and
  view encodings, and the kernel's limits.

The suite is apache/parquet-testing at commit 1a2a75127be06fc0123f03ebd36c966f7beda27d (Apache
License 2.0), read from ``../shared/conformance`` next to the repository, never copied.
"""

from __future__ import annotations

import datetime as dt
import decimal
import io
import itertools
import json
import random
import re
import sys
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from strategies import SHREDDED_PRIMITIVE_TYPES, decimals, shredding_schemas, values
from vpush.codec.builder import encode, encode_value
from vpush.codec.errors import CodecError, InvalidShreddingError, MalformedVariantError
from vpush.codec.header import PrimitiveType, VariantType
from vpush.codec.layout import PrimitiveLayout, VariantLayout, find_variant_columns
from vpush.codec.metadata import VariantMetadata, build_metadata
from vpush.codec.native import NATIVE_AVAILABLE, UNSHREDDED_TYPE, NativeUnsupportedError, unshred_native
from vpush.codec.scalars import Float32, VariantScalar
from vpush.codec.shred import shred
from vpush.codec.unshred import unshred
from vpush.codec.value import Variant, variant_equal

VARIANT = pa.struct([("metadata", pa.binary()), ("value", pa.binary())])
EMPTY_METADATA = b"\x01\x00\x00"
SUITE = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "parquet-testing"
CASES_DIR = SUITE / "shredded_variant"
MISSING = f"the conformance suite is missing: expected apache/parquet-testing under {SUITE}"


def test_kernel_is_built() -> None:
    import vpush.codec._native as kernel

    assert NATIVE_AVAILABLE, "setup.py builds vpush.codec._native with the package"
    assert Path(kernel.__file__).parent.name == "codec", "the kernel loads as vpush.codec._native"


# -- helpers -------------------------------------------------------------------------------------
def _variants(rows: list[Any]) -> pa.StructArray:
    """Unshredded Variant rows; ``SQL_NULL`` rows are null."""
    encoded = [None if r is SQL_NULL else encode(r) for r in rows]
    return pa.array([None if e is None else {"metadata": e[0], "value": e[1]} for e in encoded], VARIANT)


SQL_NULL = object()


def _through_parquet(column: pa.Array, **options: Any) -> tuple[VariantLayout, pa.ChunkedArray]:
    buf = io.BytesIO()
    pq.write_table(pa.table({"v": column}), buf, **options)
    pf = pq.ParquetFile(buf)
    return find_variant_columns(pf, file="mem.parquet")["v"], pf.read().column("v")


def _outcome(fn: Any) -> Any:
    """The rows a call returns, or the type of the CodecError it raises."""
    try:
        return fn().to_pylist()
    except CodecError as err:
        return type(err)


def _same_as_reference(layout: VariantLayout, column: pa.Array | pa.ChunkedArray) -> pa.StructArray:
    """The kernel's result, after checking it is byte for byte the reference's."""
    got = unshred_native(column, layout=layout)
    want = unshred(layout, column)
    assert got.type.equals(UNSHREDDED_TYPE)
    assert got.to_pylist() == want.to_pylist(), "the kernel writes the reference's bytes"
    return got


def _check_values(original: pa.StructArray, rebuilt: pa.StructArray) -> None:
    assert len(rebuilt) == len(original)
    for k, (want, got) in enumerate(zip(original.to_pylist(), rebuilt.to_pylist())):
        if want is None:
            assert got is None, f"row {k} should stay SQL NULL"
            continue
        assert got is not None, f"row {k} should not be SQL NULL"
        assert got["metadata"] == want["metadata"], "the metadata column is passed through"
        variant = Variant(got["metadata"], got["value"])
        variant.validate()
        assert variant_equal(variant, Variant(want["metadata"], want["value"])), f"row {k} differs by value"


# -- the conformance suite -----------------------------------------------------------------------
# Must-fail cases: the kernel raises (40, 42, 87, 128); 127 and 137 break the schema, which
# vpush.codec.layout rejects before any data is read: their one row's typed_value is null, so
# the data alone would just read as a null.
MUST_FAIL = {40, 42, 87, 128}
SCHEMA_INVALID = {
    127: "schema-invalid (typed_value INT(32, unsigned)): layout.py rejects it before the kernel runs",
    137: "schema-invalid (typed_value fixed_len_byte_array(4)): layout.py rejects it before the kernel runs",
}
# INVALID cases: a reader may raise or return the expected value; the kernel does as the
# reference does (43 and 125 raise, 84 reads).
INVALID = {43, 84, 125}


def _cases() -> list[Any]:
    if not (CASES_DIR / "cases.json").is_file():
        return [pytest.param({"missing": True}, id="suite-missing")]
    params = []
    for case in json.loads((CASES_DIR / "cases.json").read_text()):
        if "parquet_file" not in case:
            continue
        number = case["case_number"]
        params.append(pytest.param(case, id=f"case-{number:03d}"))
    return params


@pytest.mark.parametrize("case", _cases())
def test_conformance(case: dict[str, Any]) -> None:
    if case.get("missing"):
        pytest.fail(MISSING)
    number = case["case_number"]
    path = CASES_DIR / case["parquet_file"]
    pf = pq.ParquetFile(path)
    if number in SCHEMA_INVALID:
        # The kernel never sees these: the layout is rejected first, naming the file.
        with pytest.raises(InvalidShreddingError) as rejected:
            find_variant_columns(pf, file=str(path))
        assert rejected.value.file == str(path), SCHEMA_INVALID[number]
        return
    layout = find_variant_columns(pf, file=str(path))["var"]
    column = pf.read(columns=["var"]).column("var")
    if number in MUST_FAIL:
        with pytest.raises(InvalidShreddingError) as info:
            unshred_native(column, layout=layout, file=str(path))
        assert info.value.file == str(path), "the error names the file"
        assert info.value.column_path is not None and info.value.column_path.startswith("var")
        with pytest.raises(InvalidShreddingError):
            unshred_native(column)  # the same without the layout
        return
    if number in INVALID and _outcome(lambda: unshred(layout, column)) is InvalidShreddingError:
        with pytest.raises(InvalidShreddingError):
            unshred_native(column, layout=layout)
        return
    rebuilt = _same_as_reference(layout, column)
    assert unshred_native(column).to_pylist() == rebuilt.to_pylist(), "the layout changes no byte here"
    files = case.get("variant_files") or [case["variant_file"]]
    assert len(rebuilt) == len(files)
    for k, (row, name) in enumerate(zip(rebuilt.to_pylist(), files)):
        if name is None:
            assert row is None, f"case {number} row {k} is SQL NULL"
            continue
        expected = Variant.from_concatenated((CASES_DIR / name).read_bytes())
        assert row is not None, f"case {number} row {k} is not SQL NULL"
        assert variant_equal(expected, Variant(row["metadata"], row["value"])), (
            f"case {number} row {k} differs"
        )


# -- round trips -----------------------------------------------------------------------------------
PRIMITIVE_TYPES = SHREDDED_PRIMITIVE_TYPES
schemas = shredding_schemas(["a", "b", "c", "é", "_x", ""], max_fields=4, max_leaves=8)


def _exact(t: pa.DataType) -> st.SearchStrategy[Any]:
    """Values that go to a primitive typed_value of type ``t``."""
    if pa.types.is_decimal(t):
        return decimals(t.precision, t.scale)
    if isinstance(t, pa.BaseExtensionType):
        return st.uuids()
    by_name: dict[str, st.SearchStrategy[Any]] = {
        "bool": st.booleans(),
        "int8": st.integers(-(2**7), 2**7 - 1),
        "int16": st.integers(-(2**15), 2**15 - 1),
        "int32": st.integers(-(2**31), 2**31 - 1),
        "int64": st.integers(-(2**63), 2**63 - 1),
        "float": st.floats(width=32, allow_nan=False).map(Float32),
        "double": st.floats(allow_nan=False),
        "string": st.text(max_size=80),
        "binary": st.binary(max_size=80),
        "date32[day]": st.dates(),
        "time64[us]": st.times(),
        "timestamp[us, tz=UTC]": st.datetimes(timezones=st.just(dt.timezone.utc)),
        "timestamp[us]": st.datetimes(),
        "timestamp[ns, tz=UTC]": st.integers(-(2**63), 2**63 - 1).map(
            lambda x: VariantScalar(PrimitiveType.TIMESTAMP_NANOS, x)
        ),
        "timestamp[ns]": st.integers(-(2**63), 2**63 - 1).map(
            lambda x: VariantScalar(PrimitiveType.TIMESTAMP_NTZ_NANOS, x)
        ),
    }
    return by_name[str(t)]


def _fitting(t: pa.DataType) -> st.SearchStrategy[Any]:
    """Values shaped like ``t`` most of the time (so that typed_value is used), with extra
    fields (a residual) and values of other types (in value) now and then."""
    other = values.filter(lambda v: not isinstance(v, (dict, list)) or len(v) < 4)
    if pa.types.is_struct(t):
        fields = {f.name: _fitting(f.type) for f in t}
        extras = st.dictionaries(st.sampled_from(["x", "y", "a", "zz"]), other, max_size=3)
        shaped = st.builds(lambda d, e: {**e, **d}, st.fixed_dictionaries({}, optional=fields), extras)
        return st.one_of(shaped, shaped, other)
    if pa.types.is_list(t):
        shaped = st.lists(_fitting(t.value_type), max_size=4)
        return st.one_of(shaped, shaped, other)
    return st.one_of(_exact(t), _exact(t), other)


@st.composite
def shredding_cases(draw: st.DrawFn) -> tuple[pa.DataType, list[Any]]:
    schema = draw(schemas)
    rows = draw(st.lists(st.one_of(_fitting(schema), st.just(SQL_NULL)), min_size=1, max_size=8))
    return schema, rows


@given(shredding_cases())
def test_round_trip_matches_reference(case: tuple[pa.DataType, list[Any]]) -> None:
    schema, rows = case
    original = _variants(rows)
    shredded = shred(original, schema)
    layout, column = _through_parquet(shredded)
    rebuilt = _same_as_reference(layout, column)
    _check_values(original, rebuilt)
    assert unshred_native(shredded).to_pylist() == rebuilt.to_pylist(), (
        "in-memory shred output reads the same"
    )


@given(shredding_cases(), st.integers(0, 3), st.integers(1, 3))
def test_sliced_and_chunked(case: tuple[pa.DataType, list[Any]], start: int, pieces: int) -> None:
    """Arrow offsets: a sliced struct, children with offsets of their own, and chunks."""
    schema, rows = case
    original = _variants([1, {"a": 1}, *rows, None, [2]])
    shredded = shred(original, schema)
    layout, _ = _through_parquet(shredded)
    start = min(start, len(shredded) - 1)
    sliced = shredded.slice(start)
    _check_values(original.slice(start), _same_as_reference(layout, sliced))
    # The same rows, with the offset in every child instead of in the struct.
    children = [sliced.field(i) for i in range(sliced.type.num_fields)]
    regrouped = pa.StructArray.from_arrays(children, fields=list(sliced.type), mask=sliced.is_null())
    assert unshred_native(regrouped).to_pylist() == unshred_native(sliced).to_pylist()
    bounds = sorted({0, len(shredded), *[(len(shredded) * k) // (pieces + 1) for k in range(1, pieces + 1)]})
    chunked = pa.chunked_array(
        [shredded.slice(a, b - a) for a, b in itertools.pairwise(bounds)], shredded.type
    )
    rebuilt = _same_as_reference(layout, chunked)
    _check_values(original, rebuilt)
    assert unshred_native(chunked, use_threads=False).to_pylist() == rebuilt.to_pylist()


@given(st.lists(st.one_of(values, st.just(SQL_NULL)), min_size=1, max_size=6))
def test_unshredded_column_passes_through(rows: list[Any]) -> None:
    original = _variants(rows)
    layout, column = _through_parquet(original)
    _check_values(original, _same_as_reference(layout, column))


# -- the spec's table, conflicts and errors ----------------------------------------------------------
def _column(rows: list[dict[str, Any] | None], typed: pa.DataType | None) -> pa.StructArray:
    fields = [pa.field("metadata", pa.binary()), pa.field("value", pa.binary())]
    if typed is not None:
        fields.append(pa.field("typed_value", typed))
    return pa.array(rows, pa.struct(fields))


def _group(typed: pa.DataType) -> pa.StructType:
    return pa.struct([("value", pa.binary()), ("typed_value", typed)])


def _object(**fields: pa.DataType) -> pa.StructType:
    return pa.struct([pa.field(name, _group(t), nullable=False) for name, t in fields.items()])


METADATA_AB = build_metadata(["a", "b"])


def test_conflicts_raise_with_row_and_path() -> None:
    typed = _object(a=pa.int64())
    rows = [
        {"metadata": METADATA_AB, "value": None, "typed_value": {"a": {"value": None, "typed_value": 1}}},
        {"metadata": METADATA_AB, "value": None, "typed_value": {"a": {"value": b"\x00", "typed_value": 2}}},
    ]
    column = _column(rows, typed)
    layout, _ = _through_parquet(column)
    with pytest.raises(InvalidShreddingError, match="row 1: value and typed_value are both non-null") as info:
        unshred_native(column, layout=layout, file="f.parquet")
    assert (info.value.file, info.value.column_path) == ("f.parquet", "v.typed_value.a")
    # Rows are numbered across chunks.
    chunked = pa.chunked_array([column.slice(0, 1), column.slice(0, 1), column, column])
    for use_threads in (True, False):
        with pytest.raises(InvalidShreddingError, match="row 3:"):
            unshred_native(chunked, use_threads=use_threads)
        with pytest.raises(InvalidShreddingError, match="row 2:"):
            unshred_native(chunked.slice(1), use_threads=use_threads)


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (encode("a")[1], "partially shredded value must be an object"),
        (b"\x00", "partially shredded value must be an object"),
        (encode_value({"a": 1, "b": 2}, {"a": 0, "b": 1}), "both a shredded field and in the value object"),
    ],
)
def test_partially_shredded_conflicts(value: bytes, match: str) -> None:
    metadata = build_metadata(["a", "b"])
    typed = _object(b=pa.int64())
    column = _column(
        [{"metadata": metadata, "value": value, "typed_value": {"b": {"value": None, "typed_value": None}}}],
        typed,
    )
    layout, _ = _through_parquet(column)
    with pytest.raises(InvalidShreddingError, match=match):
        unshred_native(column, layout=layout)
    with pytest.raises(InvalidShreddingError):
        unshred(layout, column)


def test_name_missing_from_metadata() -> None:
    typed = _object(a=pa.int64(), q=pa.int64())
    present = {
        "metadata": METADATA_AB,
        "value": None,
        "typed_value": {"a": {"value": None, "typed_value": 1}, "q": {"value": None, "typed_value": 2}},
    }
    absent = {
        "metadata": METADATA_AB,
        "value": None,
        "typed_value": {"a": {"value": None, "typed_value": 1}, "q": {"value": None, "typed_value": None}},
    }
    layout, _ = _through_parquet(_column([absent], typed))
    assert Variant(*unshred_native(_column([absent], typed)).to_pylist()[0].values()).to_python() == {"a": 1}
    with pytest.raises(InvalidShreddingError, match="'q' is not in the row's metadata") as info:
        unshred_native(_column([absent, present], typed), layout=layout)
    assert info.value.column_path == "v.typed_value.q"


def test_missing_values_and_sql_nulls() -> None:
    """Case 129 (missing top-level value: Variant null) and case 85 (missing element: null)."""
    typed = pa.list_(pa.field("element", _group(pa.int64()), nullable=False))
    rows = [
        {"metadata": EMPTY_METADATA, "value": None, "typed_value": None},
        None,
        {
            "metadata": EMPTY_METADATA,
            "value": None,
            "typed_value": [{"value": None, "typed_value": None}, {"value": None, "typed_value": 3}],
        },
    ]
    out = unshred_native(_column(rows, typed)).to_pylist()
    assert out[0] == {"metadata": EMPTY_METADATA, "value": b"\x00"}
    assert out[1] is None
    assert Variant(EMPTY_METADATA, out[2]["value"]).to_python() == [None, 3]
    assert unshred_native(_column([], typed)).to_pylist() == []
    assert unshred_native(pa.chunked_array([], _column([], typed).type)).to_pylist() == []


def test_null_metadata_raises() -> None:
    column = _column([{"metadata": None, "value": b"\x00"}], None)
    with pytest.raises(MalformedVariantError, match="row 0: metadata is null"):
        unshred_native(column)


def test_partial_read_is_refused() -> None:
    column = _column([{"metadata": EMPTY_METADATA, "value": None, "typed_value": 1}], pa.int64())
    layout, _ = _through_parquet(column)
    partial = pa.StructArray.from_arrays(
        [column.field("metadata"), column.field("typed_value")], ["metadata", "typed_value"]
    )
    with pytest.raises(InvalidShreddingError, match="no value field"):
        unshred_native(partial, layout=layout)


def test_draft_and_unusual_encodings_are_left_to_python() -> None:
    draft = pa.array(
        [{"untyped_value": EMPTY_METADATA + b"\x00"}], pa.struct([("untyped_value", pa.binary())])
    )
    with pytest.raises(NativeUnsupportedError):
        unshred_native(draft)
    with pytest.raises(NotImplementedError):  # a caller may catch it as that, too
        unshred_native(draft)
    union = pa.UnionArray.from_sparse(pa.array([0], pa.int8()), [pa.array([1])])
    column = pa.StructArray.from_arrays(
        [pa.array([EMPTY_METADATA]), pa.array([None], pa.binary()), union],
        ["metadata", "value", "typed_value"],
    )
    with pytest.raises(NativeUnsupportedError):
        unshred_native(column)


@pytest.mark.parametrize(
    ("typed", "match"),
    [
        (pa.uint32(), "no Variant equivalent"),
        (pa.binary(4), "no Variant equivalent"),
        (pa.float16(), "no Variant equivalent"),
        (pa.struct([("a", pa.int64())]), "must be a group of value and typed_value"),
    ],
)
def test_schemas_the_spec_does_not_allow(typed: pa.DataType, match: str) -> None:
    column = pa.StructArray.from_arrays(
        [pa.array([EMPTY_METADATA]), pa.array([b"\x00"]), pa.nulls(1, typed)],
        ["metadata", "value", "typed_value"],
    )
    with pytest.raises(InvalidShreddingError, match=match):
        unshred_native(column)


def test_nesting_past_the_cap_is_left_to_python() -> None:
    typed: pa.DataType = pa.int64()
    for _ in range(70):
        typed = pa.struct([("a", typed)])
    shredded = shred(_variants([1, {"a": {"a": 2}}]), typed)
    with pytest.raises(NativeUnsupportedError, match="nested deeper"):
        unshred_native(shredded)


# -- primitives, widths and encodings --------------------------------------------------------------
def test_every_primitive_type_byte_for_byte() -> None:
    rows = [
        True, False, 5, -300, 70000, 2**40, Float32(1.5), 2.25, decimal.Decimal("-1.25"),
        decimal.Decimal("12345678901.5"), decimal.Decimal("1" * 30), "short", "x" * 64, b"\x00\x01",
        dt.date(2024, 2, 29), dt.time(12, 30, 1, 5), dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc),
        dt.datetime(2024, 1, 1, 1), VariantScalar(PrimitiveType.TIMESTAMP_NANOS, -5),
        VariantScalar(PrimitiveType.TIMESTAMP_NTZ_NANOS, 7), uuid.UUID(int=12345), None,
    ]  # fmt: skip
    for t in PRIMITIVE_TYPES:
        original = _variants(rows)
        shredded = shred(original, t)
        layout, column = _through_parquet(shredded)
        _check_values(original, _same_as_reference(layout, column))


def test_decimal_width_follows_the_layout() -> None:
    """A Parquet INT64 decimal is a decimal8 whatever its precision (layout.primitive_layout)."""
    column = _column(
        [{"metadata": EMPTY_METADATA, "value": None, "typed_value": decimal.Decimal("1.25")}],
        pa.decimal128(5, 2),
    )
    by_precision = unshred_native(column).to_pylist()[0]["value"]
    assert Variant(EMPTY_METADATA, by_precision).type == VariantType.DECIMAL4
    layout = VariantLayout(
        name="v", path="v", value="v.value", metadata="v.metadata",
        typed_value=PrimitiveLayout("v.typed_value", VariantType.DECIMAL8, "INT64", 5, 2),
    )  # fmt: skip
    got = unshred_native(column, layout=layout).to_pylist()
    assert Variant(EMPTY_METADATA, got[0]["value"]).type == VariantType.DECIMAL8
    assert got == unshred(layout, column).to_pylist()


@pytest.mark.parametrize(("typed", "raw"), [(pa.decimal128(9, 0), 10**9), (pa.decimal128(18, 0), -(10**18))])
def test_decimal_beyond_its_precision_raises(typed: pa.DataType, raw: int) -> None:
    # pyarrow does not check values against the declared precision; a Parquet file may hold them.
    column = _column(
        [
            {
                "metadata": EMPTY_METADATA,
                "value": None,
                "typed_value": decimal.Decimal(raw - (1 if raw > 0 else -1)),
            }
        ],
        typed,
    )
    buffers = column.field("typed_value").buffers()
    data = bytearray(buffers[1].to_pybytes())
    data[:16] = raw.to_bytes(16, "little", signed=True)
    bad = pa.Array.from_buffers(typed, 1, [None, pa.py_buffer(bytes(data))])
    column = pa.StructArray.from_arrays(
        [column.field("metadata"), column.field("value"), bad], ["metadata", "value", "typed_value"]
    )
    with pytest.raises(InvalidShreddingError, match="more digits than decimal"):
        unshred_native(column)


def test_dictionary_large_and_view_encodings() -> None:
    original = _variants([{"a": "x", "b": 1}, {"a": "y", "c": [1, "two"]}, 2, SQL_NULL, {"a": "y" * 70}])
    shredded = shred(original, "struct<a: string, b: bigint, c: array<string>>")
    layout, column = _through_parquet(shredded)
    expected = unshred(layout, column).to_pylist()
    buf = io.BytesIO()
    pq.write_table(pa.table({"v": shredded}), buf)
    pf = pq.ParquetFile(buf, read_dictionary=["v.value", "v.metadata", "v.typed_value.a.typed_value"])
    assert unshred_native(pf.read().column("v"), layout=layout).to_pylist() == expected
    large = shredded.cast(_retyped(shredded.type, pa.large_binary(), pa.large_string(), pa.large_list))
    assert unshred_native(large, layout=layout).to_pylist() == expected
    views = shredded.cast(_retyped(shredded.type, pa.binary_view(), pa.string_view(), pa.list_))
    assert unshred_native(views, layout=layout).to_pylist() == expected


def _retyped(t: pa.DataType, binary: pa.DataType, string: pa.DataType, list_type: Any) -> pa.DataType:
    """``t`` with every binary, string and list replaced by the given encodings."""
    if pa.types.is_struct(t):
        return pa.struct(
            [pa.field(f.name, _retyped(f.type, binary, string, list_type), f.nullable) for f in t]
        )
    if pa.types.is_list(t):
        element = t.value_field
        return list_type(
            pa.field(element.name, _retyped(element.type, binary, string, list_type), element.nullable)
        )
    if pa.types.is_binary(t):
        return binary
    if pa.types.is_string(t):
        return string
    return t


def test_wide_and_big_containers() -> None:
    """More than 255 fields or elements (is_large) and 2- and 3-byte offsets and ids."""
    wide = {f"k{i:03d}": i for i in range(300)}
    rows = [wide, {**wide, "extra": "e" * 70000}, list(range(300)), ["x" * 300] * 300, {"k001": "s" * 70000}]
    for schema in ("struct<k000: bigint, k299: bigint, k150: string>", "array<string>", "array<bigint>"):
        original = _variants(rows)
        layout, column = _through_parquet(shred(original, schema))
        _check_values(original, _same_as_reference(layout, column))
    all_fields = pa.struct([(k, pa.int64()) for k in wide])
    original = _variants(rows)
    layout, column = _through_parquet(shred(original, all_fields))
    _check_values(original, _same_as_reference(layout, column))


def test_many_distinct_and_unsorted_metadata() -> None:
    """More distinct dictionaries than the kernel remembers, in turn; unsorted dictionaries with
    repeated names and unused keys (ids come from the first occurrence, as metadata_key_ids)."""
    rng = random.Random(7)
    schema = "struct<a: bigint, b: string, n: struct<c: bigint>>"
    rows: list[Any] = []
    for i in range(60):
        keys = ["a", "b", "n", "c", "r", f"u{i % 13}", "a", "c"]
        rng.shuffle(keys)
        metadata = build_metadata(keys, sort=(i % 3 == 0))
        value = {"a": i, "b": str(i), "n": {"c": i, "r": 1}, "r": [i], f"u{i % 13}": None}
        rows.append((metadata, value))
    column_rows = []
    for metadata, value in rows:
        view = VariantMetadata(metadata)
        ids = {k: view.find(k) for k in view.keys}
        column_rows.append({"metadata": metadata, "value": encode_value(value, ids)})
    original = pa.array(column_rows * 3, VARIANT)
    layout, column = _through_parquet(shred(original, schema))
    _check_values(original, _same_as_reference(layout, column))


# -- corruption fuzz -----------------------------------------------------------------------------
FUZZ_CASES = 3000
FUZZ_COMPARED = 300  # of which the reference is also run, and must agree


def _fuzz_base() -> list[tuple[pa.StructArray, str]]:
    """Valid shredded columns with residual objects (top-level and nested), and which leaf to damage."""
    rows: list[Any] = [
        {"a": 1, "b": "x", "r": [1, {"q": 2}], "s": "long" * 20, "t": {"u": 1.5}},
        {"a": "n/a", "n": {"c": 3, "d": ["e", None]}, "z": None},
        {"b": "y", "n": {"c": "x", "extra": {"deep": [1, 2, 3]}}},
    ]
    shredded = shred(_variants(rows), "struct<a: bigint, b: string, n: struct<c: bigint>>")
    return [(shredded, "value"), (shredded, "metadata"), (shredded, "typed_value.n.value")]


def _replace_leaf(array: pa.StructArray, path: list[str], leaf: pa.Array) -> pa.StructArray:
    children = []
    for i, field in enumerate(array.type):
        child = array.field(i)
        if field.name == path[0]:
            child = leaf if len(path) == 1 else _replace_leaf(child, path[1:], leaf)
        children.append(child)
    return pa.StructArray.from_arrays(
        children, fields=list(array.type), mask=array.is_null() if array.null_count else None
    )


def _damage(rng: random.Random, data: bytes) -> bytes:
    choice = rng.randrange(5)
    raw = bytearray(data)
    if choice == 0 and raw:
        for _ in range(rng.randint(1, 3)):
            raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
    elif choice == 1:
        del raw[rng.randrange(len(raw) + 1) :]
    elif choice == 2:
        raw += bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
    elif choice == 3 and raw:
        raw[rng.randrange(len(raw))] = rng.choice([0x00, 0xFF, 0x7F, 0x80, 0x02, 0x03, 0x12, 0xC1])
    else:
        raw = bytearray(rng.randrange(256) for _ in range(rng.randint(0, 12)))
    return bytes(raw)


def _leaf(array: pa.StructArray, path: list[str]) -> pa.Array:
    node: pa.Array = array
    for name in path:
        node = node.field(name)
    return node


def test_corruption_fuzz_raises_only_our_errors() -> None:
    rng = random.Random(20240601)
    bases = _fuzz_base()
    layout, _ = _through_parquet(bases[0][0])
    outcomes = {"ok": 0, "error": 0}
    for k in range(FUZZ_CASES):
        base, where = bases[k % len(bases)]
        path = where.split(".")
        leaf = _leaf(base, path).to_pylist()
        candidates = [i for i, x in enumerate(leaf) if x is not None]
        i = rng.choice(candidates)
        leaf[i] = _damage(rng, leaf[i])
        damaged = _replace_leaf(base, path, pa.array(leaf, pa.binary()))
        try:
            got: Any = unshred_native(damaged, layout=layout).to_pylist()
            outcomes["ok"] += 1
        except MalformedVariantError as err:  # InvalidShreddingError is one too
            got = MalformedVariantError
            outcomes["error"] += 1
            assert err.column_path is not None and err.column_path.startswith("v."), (
                "the error names the column"
            )
        if k < FUZZ_COMPARED:
            want = _outcome(lambda damaged=damaged: unshred(layout, damaged))
            if got is MalformedVariantError:
                assert isinstance(want, type) and issubclass(want, CodecError), (
                    f"case {k}: the reference raises too"
                )
            else:
                assert want == got, f"case {k}: the same bytes as the reference"
    assert outcomes["ok"] > FUZZ_CASES // 20 and outcomes["error"] > FUZZ_CASES // 4, outcomes


def test_metadata_fuzz_every_prefix_and_byte() -> None:
    """Every truncation and every single-byte value at every position of one metadata."""
    base = shred(_variants([{"a": 1, "rest": "x"}]), "struct<a: bigint>")
    metadata = base.field("metadata")[0].as_py()
    damaged_list = [metadata[:n] for n in range(len(metadata))]
    for pos in range(len(metadata)):
        for byte in (0x00, 0x01, 0x11, 0x41, 0x51, 0x81, 0xC1, 0xFF, 0x80, metadata[pos] ^ 0x20):
            damaged_list.append(metadata[:pos] + bytes([byte]) + metadata[pos + 1 :])
    for damaged in damaged_list:
        column = _replace_leaf(base, ["metadata"], pa.array([damaged], pa.binary()))
        try:
            unshred_native(column)
        except MalformedVariantError:
            pass


# -- review regressions ----------------------------------------------------------------------------
def _top(typed: pa.Array, vt: VariantType, physical: str = "") -> tuple[VariantLayout, pa.StructArray]:
    layout = VariantLayout(
        name="v", path="v", value="v.value", metadata="v.metadata",
        typed_value=PrimitiveLayout("v.typed_value", vt, physical),
    )  # fmt: skip
    n = len(typed)
    column = pa.StructArray.from_arrays(
        [pa.array([EMPTY_METADATA] * n), pa.nulls(n, pa.binary()), typed], ["metadata", "value", "typed_value"]
    )
    return layout, column


def _both_raise(layout: VariantLayout, column: pa.Array, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        unshred_native(column, layout=layout)
    with pytest.raises(error, match=match):
        unshred(layout, column)


@pytest.mark.parametrize("kind", [pa.binary(), pa.large_binary()])
def test_binary_offsets_outside_the_data_raise(kind: pa.DataType) -> None:
    width = "<iii" if kind == pa.binary() else "<qqq"
    import struct

    offsets = pa.py_buffer(struct.pack(width, 0, 2**31 - 1, 2))
    value = pa.Array.from_buffers(kind, 2, [None, offsets, pa.py_buffer(b"\x0c\x05")])
    value.validate()  # the cheap validation checks only the first and last offsets
    column = pa.StructArray.from_arrays([pa.array([EMPTY_METADATA] * 2), value], ["metadata", "value"])
    with pytest.raises(InvalidShreddingError, match="row 0: bad Arrow binary offsets"):
        unshred_native(column)
    backwards = pa.Array.from_buffers(kind, 2, [None, pa.py_buffer(struct.pack(width, 0, 2, 1)), pa.py_buffer(b"\x0c\x05")])  # fmt: skip
    column = pa.StructArray.from_arrays([pa.array([EMPTY_METADATA] * 2), backwards], ["metadata", "value"])
    with pytest.raises(InvalidShreddingError, match="row 0: bad Arrow binary offsets"):  # past 1
        unshred_native(column)
    layout, _ = _top(pa.nulls(2, pa.int64()), VariantType.INT64)
    with pytest.raises(InvalidShreddingError):
        unshred(layout, column)


@pytest.mark.parametrize(
    ("metadata", "match"),
    [
        (b"\x01\x01\x01\x02xa", "first metadata offset must be 0"),
        (b"\x11\x02\x00\x01\x02ba", "marked sorted"),
        (b"\x41\x01\x00", "truncated"),
        (b"\xff\xff", "version"),
    ],
)
def test_every_rows_metadata_is_checked(metadata: bytes, match: str) -> None:
    column = _column(
        [
            {"metadata": EMPTY_METADATA, "value": b"\x0c\x01", "typed_value": None},
            {"metadata": metadata, "value": None, "typed_value": 5},
        ],
        pa.int64(),
    )
    layout, _ = _through_parquet(column)
    _both_raise(layout, column, MalformedVariantError, f"row 1: .*{match}")


@pytest.mark.parametrize(
    "value",
    [b"\x0c\x05\xff", b"\x0c", b"", b"\x02\x01\x00\x00\x02\x0c\x01\xee", b"\x03\x01\x00\x03\x0c\x01", b"\xff\x00\x01"],
)
def test_value_size_must_equal_its_bytes(value: bytes) -> None:
    typed = _object(a=pa.int64())
    rows = [
        {"metadata": METADATA_AB, "value": b"\x00", "typed_value": None},
        {"metadata": METADATA_AB, "value": value, "typed_value": None},
    ]
    column = _column(rows, typed)
    layout, _ = _through_parquet(column)
    _both_raise(layout, column, MalformedVariantError, "row 1: ")
    # a residual object with trailing bytes, and a field's value
    residual = encode_value({"b": 1}, {"a": 0, "b": 1}) + b"\xee"
    partial = [{"metadata": METADATA_AB, "value": residual, "typed_value": {"a": {"value": None, "typed_value": 1}}}]
    _both_raise(layout, _column(partial, typed), MalformedVariantError, "row 0: value is")
    inner = [{"metadata": METADATA_AB, "value": None, "typed_value": {"a": {"value": value, "typed_value": None}}}]
    _both_raise(layout, _column(inner, typed), MalformedVariantError, "row 0: ")


def test_duplicate_residual_names_raise_malformed_in_both() -> None:
    metadata = b"\x01\x03\x00\x01\x02\x03bba"
    residual = bytes([0x02, 2, 0, 1, 0, 2, 4]) + b"\x0c\x01\x0c\x02"
    column = _column(
        [{"metadata": metadata, "value": residual, "typed_value": {"a": {"value": None, "typed_value": 5}}}],
        _object(a=pa.int64()),
    )
    layout, _ = _through_parquet(column)
    _both_raise(layout, column, MalformedVariantError, "row 0: duplicate field name 'b'")


def test_typed_strings_must_be_utf8() -> None:
    bad = pa.array([b"ok", b"\xed\xa0\x80"]).view(pa.string())  # a surrogate
    layout, column = _top(bad, VariantType.STRING, "BYTE_ARRAY")
    _both_raise(layout, column, InvalidShreddingError, "row 1: .*not valid UTF-8")
    layout, column = _top(pa.array([b"\xff"]), VariantType.STRING, "BYTE_ARRAY")  # binary column
    _both_raise(layout, column, InvalidShreddingError, "row 0: .*not valid UTF-8")


def test_the_layout_names_the_primitive_type() -> None:
    # Conversions are the reference's: the kernel refuses, and rebuild_variants falls back.
    for typed, vt in [
        (pa.array([300], pa.int32()), VariantType.INT8),
        (pa.array([1000], pa.timestamp("ns", "UTC")), VariantType.TIMESTAMP),
        (pa.array([1], pa.timestamp("ms", "UTC")), VariantType.TIMESTAMP),
        (pa.array([1.0], pa.float16()), VariantType.FLOAT),
    ]:
        layout, column = _top(typed, vt)
        with pytest.raises(NativeUnsupportedError):
            unshred_native(column, layout=layout)
    # Relabellings the kernel follows, byte for byte.
    for typed, vt in [
        (pa.array([1], pa.timestamp("us")), VariantType.TIMESTAMP),
        (pa.array([1], pa.timestamp("ns", "UTC")), VariantType.TIMESTAMP_NTZ_NANOS),
        (pa.array(["x"]), VariantType.BINARY),
        (pa.array([b"y"]), VariantType.STRING),
    ]:
        layout, column = _top(typed, vt)
        got = unshred_native(column, layout=layout).to_pylist()
        assert got == unshred(layout, column).to_pylist()
        assert Variant(EMPTY_METADATA, got[0]["value"]).type == vt


def test_decimals_past_their_width_raise_in_both() -> None:
    def raw(t: pa.DataType, unscaled: int) -> pa.Array:
        return pa.Array.from_buffers(t, 1, [None, pa.py_buffer(unscaled.to_bytes(16, "little", signed=True))])

    layout, column = _top(raw(pa.decimal128(18, 0), -(2**63)), VariantType.DECIMAL8)
    _both_raise(layout, column, InvalidShreddingError, "more digits than decimal8")
    layout, column = _top(raw(pa.decimal128(38, 0), 10**38), VariantType.DECIMAL16)
    _both_raise(layout, column, InvalidShreddingError, "more digits than decimal16")
    layout, column = _top(pa.array([decimal.Decimal("-1.25")], pa.decimal256(40, 2)), VariantType.DECIMAL16)
    _both_raise(layout, column, InvalidShreddingError, "decimal")


def test_too_large_is_its_own_error() -> None:
    from vpush.codec.native import _ERR_TOO_LARGE, _error
    from vpush.codec.errors import VariantTooLargeError

    err = _error((_ERR_TOO_LARGE, 3, b"", b"too big", -1), "v", "f.parquet", 10)
    assert isinstance(err, VariantTooLargeError) and not isinstance(err, MalformedVariantError)
    assert str(err).startswith("row 13: too big")


def test_field_names_are_not_c_strings() -> None:
    import vpush.codec.unshred as reference

    assert UNSHREDDED_TYPE is reference.UNSHREDDED_TYPE, "defined once"
    column = _column(
        [{"metadata": build_metadata(["a\0b"]), "value": None, "typed_value": {"a\0b": {"value": None, "typed_value": 1}}}],
        _object(**{"a\0b": pa.int64()}),
    )
    with pytest.raises(NativeUnsupportedError, match="NUL"):
        unshred_native(column)
    # A field literally named "a.typed_value.b" beside a field "a" holding "b": layout keys are
    # tuples of names, so the decimal widths cannot be mixed up.
    inner = _object(b=pa.decimal128(5, 2))
    typed = _object(**{"a": inner, "a.typed_value.b": pa.decimal128(5, 2)})
    one = decimal.Decimal("1.25")
    metadata = build_metadata(["a", "a.typed_value.b", "b"])
    column = _column(
        [{"metadata": metadata, "value": None, "typed_value": {
            "a": {"value": None, "typed_value": {"b": {"value": None, "typed_value": one}}},
            "a.typed_value.b": {"value": None, "typed_value": one}}}],
        typed,
    )  # fmt: skip
    from vpush.codec.layout import ObjectLayout, ValueLayout

    def field(name: str, path: str, vt: VariantType) -> ValueLayout:
        return ValueLayout(name=name, path=path, value=f"{path}.value",
                           typed_value=PrimitiveLayout(f"{path}.typed_value", vt, "INT64", 5, 2))  # fmt: skip

    a_b = field("b", "v.typed_value.a.typed_value.b", VariantType.DECIMAL8)
    a = ValueLayout(name="a", path="v.typed_value.a", value="v.typed_value.a.value",
                    typed_value=ObjectLayout("v.typed_value.a.typed_value", (a_b,)))  # fmt: skip
    dotted = field("a.typed_value.b", "v.typed_value.a.typed_value.b", VariantType.DECIMAL4)
    layout = VariantLayout(name="v", path="v", value="v.value", metadata="v.metadata",
                           typed_value=ObjectLayout("v.typed_value", (a, dotted)))  # fmt: skip
    got = unshred_native(column, layout=layout).to_pylist()
    assert got == unshred(layout, column).to_pylist()
    rebuilt = Variant(metadata, got[0]["value"])
    assert rebuilt.get("a").get("b").type == VariantType.DECIMAL8
    assert rebuilt.get("a.typed_value.b").type == VariantType.DECIMAL4


_EIGHT_WORDS = bytes(64)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda k: k.spark_conv(b"", b"", None, 0, 4, _EIGHT_WORDS, None, 0, _EIGHT_WORDS, None, 0, 2), ValueError,
         "spark_conv: a buffer is shorter than its offset and length need"),
        (lambda k: k.spark_conv(_EIGHT_WORDS, None, None, 0, 4, _EIGHT_WORDS, None, 0, _EIGHT_WORDS, None, 0, 2), ValueError,
         "spark_conv: the offsets, data and bases are needed"),
        (lambda k: k.spark_number_format(True, None, 0, 0, 4, False, _EIGHT_WORDS, _EIGHT_WORDS, None, 0, 4, 1), ValueError,
         "spark_number_format: the tokens, offsets and data are needed"),
        (lambda k: k.spark_hll(12, _EIGHT_WORDS, _EIGHT_WORDS, 1, None, None, 0, 1), ValueError,
         "spark_hll: the starts, ends and hashes are needed"),
        (lambda k: k.spark_hash(0, 0, b"", None, None, 0, _EIGHT_WORDS, 0, 2), ValueError,
         "spark_hash: a buffer is shorter than its offset and length need"),
        (lambda k: k.spark_hash(0, 0, _EIGHT_WORDS, None, None, 0, None, 0, 2), ValueError,
         "spark_hash: values, offsets (bytes only) and seeds (hashes; scales of decimals) are needed"),
        (lambda k: k.parse_formatted(None, b"", bytes(8), b"", None, 0, 1, 4), TypeError, "bytes-like object is required"),
        (lambda k: k.parse_datetimes(b"", b"", None, 0, 1, 4, 0), ValueError,
         "parse_datetimes: the buffers are shorter than offset + length"),
        (lambda k: k.format_java(_EIGHT_WORDS, None, 0, 1, 8, b"", None, 0), ValueError,
         "format_java: the buffers are shorter than offset + length"),
        (lambda k: k.format_java_formatter(None, None, 0, 1, "f", 0, -1, -1), TypeError, "bytes-like object is required"),
        (lambda k: k.to_json(5, 0), TypeError, "not iterable"),
    ],
    ids=["conv_short", "conv_missing", "number_format_missing", "hll_missing", "hash_short", "hash_missing",
         "parse_formatted_none", "parse_datetimes_short", "format_java_places_short", "formatter_none", "to_json_not_pieces"],
)
def test_kernel_wrappers_check_their_buffers(call: Any, error: type[Exception], message: str) -> None:
    """The wrappers' shared buffer and piece handling (hold_buffers, piece_tuple) refuses a short,
    missing or absent buffer with the wrapper's own error, as each did before it was shared."""
    import vpush.codec._native as kernel

    with pytest.raises(error, match=re.escape(message)):
        call(kernel)
