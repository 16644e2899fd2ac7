"""Reconstruction: round trips through shred, the spec's table and its conflicts, the vectorized
kernels against the row-by-row encoder, the draft layout, and files written by DuckDB.

Hypothesis runs the profile tests/conftest.py loads (derandomized, 50 examples, no deadline).
"""

from __future__ import annotations

import datetime as dt
import decimal
import io
import sys
import uuid
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from strategies import SHREDDED_PRIMITIVE_TYPES, decimals, shredding_schemas, values  # noqa: E402

from vpush.codec.builder import encode, encode_array, encode_object  # noqa: E402
from vpush.codec.errors import InvalidShreddingError, MalformedVariantError  # noqa: E402
from vpush.codec.header import PrimitiveType, VariantType  # noqa: E402
from vpush.codec.layout import VariantLayout, find_variant_columns  # noqa: E402
from vpush.codec.metadata import build_metadata  # noqa: E402
from vpush.codec.scalars import Float32, VariantScalar  # noqa: E402
from vpush.codec.shred import shred, write_shredded_parquet  # noqa: E402
from vpush.codec.unshred import UNSHREDDED_TYPE, encode_arrays, encode_objects, unshred  # noqa: E402
from vpush.codec.value import Variant, variant_equal  # noqa: E402

VARIANT = pa.struct([("metadata", pa.binary()), ("value", pa.binary())])
EMPTY_METADATA = b"\x01\x00\x00"
# DuckDB's own reading of a VARIANT column, as spec bytes (ENGINE_NOTES.md).
AS_SPEC_BYTES = "variant_to_parquet_variant(v)::STRUCT(metadata BLOB, value BLOB)"

# -- strategies: shredding schemas and values that often fit them -------------------------------
PRIMITIVE_TYPES = SHREDDED_PRIMITIVE_TYPES
schemas = shredding_schemas(["a", "b", "c", "é", "_x"], max_fields=3, max_leaves=6)


def _fitting(t: pa.DataType) -> st.SearchStrategy[Any]:
    """Values of type ``t``, sometimes with extra fields or of another type."""
    small = values.filter(lambda v: not isinstance(v, (dict, list)) or len(v) < 3)
    if pa.types.is_struct(t):
        fields = {f.name: _fitting(f.type) for f in t}
        extras = st.dictionaries(st.sampled_from(["x", "y", "a"]), small, max_size=2)
        return st.one_of(
            st.builds(lambda d, e: {**e, **d}, st.fixed_dictionaries({}, optional=fields), extras),
            small,
        )
    if pa.types.is_list(t):
        return st.one_of(st.lists(st.one_of(_fitting(t.value_type), small), max_size=4), small)
    prims: dict[str, st.SearchStrategy[Any]] = {
        "bool": st.booleans(),
        "int8": st.integers(-(2**7), 2**7 - 1),
        "int16": st.integers(-(2**15), 2**15 - 1),
        "int32": st.integers(-(2**31), 2**31 - 1),
        "int64": st.integers(-(2**63), 2**63 - 1),
        "float": st.floats(width=32).map(Float32),
        "double": st.floats(),
        "string": st.text(max_size=70),
        "binary": st.binary(max_size=10),
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
        "extension<arrow.uuid>": st.uuids(),
    }
    if pa.types.is_decimal(t):
        exact = decimals(t.precision, t.scale)
    else:
        exact = prims[str(t)]
    return st.one_of(exact, exact, small)


@st.composite
def shredding_cases(draw: st.DrawFn) -> tuple[pa.DataType, list[Any]]:
    schema = draw(schemas)
    rows = draw(
        st.lists(st.one_of(_fitting(schema), st.none().map(lambda _: _SQL_NULL)), min_size=1, max_size=6)
    )
    return schema, rows


_SQL_NULL = object()


def _variants(rows: list[Any]) -> pa.StructArray:
    encoded = [None if r is _SQL_NULL else encode(r) for r in rows]
    return pa.array([None if e is None else {"metadata": e[0], "value": e[1]} for e in encoded], VARIANT)


# -- comparing -----------------------------------------------------------------------------------
_INTS = {VariantType.INT8, VariantType.INT16, VariantType.INT32, VariantType.INT64}
_DECIMALS = {VariantType.DECIMAL4, VariantType.DECIMAL8, VariantType.DECIMAL16}


def _same(a: Variant, b: Variant) -> bool:
    """Equal values of the same type, except that integer and decimal widths may differ (shred
    widens); stricter than variant_equal, which also equates micros with nanos and ints with
    decimals."""
    ta, tb = a.type, b.type
    if not (ta == tb or (ta in _INTS and tb in _INTS) or (ta in _DECIMALS and tb in _DECIMALS)):
        return False
    if ta in _DECIMALS:
        return a.value_bytes()[1] == b.value_bytes()[1] and variant_equal(a, b)  # same scale
    if ta == VariantType.OBJECT:
        fa, fb = dict(a.items()), dict(b.items())
        return fa.keys() == fb.keys() and all(_same(fa[k], fb[k]) for k in fa)
    if ta == VariantType.ARRAY:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a.elements(), b.elements()))
    return variant_equal(a, b)


def _check_rows(original: pa.StructArray, rebuilt: pa.StructArray) -> None:
    assert rebuilt.type.equals(UNSHREDDED_TYPE)
    assert len(rebuilt) == len(original)
    for k, (want, got) in enumerate(zip(original.to_pylist(), rebuilt.to_pylist())):
        if want is None:
            assert got is None, f"row {k} should stay SQL NULL"
            continue
        assert got is not None, f"row {k} should not be SQL NULL"
        assert got["metadata"] == want["metadata"], "the final layout keeps each row's metadata"
        rebuilt_variant = Variant(got["metadata"], got["value"])
        rebuilt_variant.validate()
        assert _same(rebuilt_variant, Variant(want["metadata"], want["value"])), f"row {k} differs"


def _through_parquet(column: pa.Array, **options: Any) -> tuple[VariantLayout, pa.Array]:
    buf = io.BytesIO()
    pq.write_table(pa.table({"v": column}), buf, **options)
    pf = pq.ParquetFile(buf)
    return find_variant_columns(pf, file="mem.parquet")["v"], pf.read().column("v")


# -- round trips ---------------------------------------------------------------------------------
@given(shredding_cases())
def test_round_trip(case: tuple[pa.DataType, list[Any]]) -> None:
    schema, rows = case
    original = _variants(rows)
    layout, column = _through_parquet(shred(original, schema))
    _check_rows(original, unshred(layout, column, file="mem.parquet"))


@given(shredding_cases())
def test_round_trip_sliced_and_chunked(case: tuple[pa.DataType, list[Any]]) -> None:
    """Arrow offsets: a sliced struct, and a column in several chunks."""
    schema, rows = case
    original = _variants([*rows, 1, {"a": 1}])
    shredded = shred(original, schema)
    layout, _ = _through_parquet(shredded)
    _check_rows(original.slice(1), unshred(layout, shredded.slice(1)))
    chunked = pa.chunked_array([shredded.slice(0, 2), shredded.slice(2)])
    _check_rows(original, unshred(layout, chunked))


@given(st.lists(values, min_size=1, max_size=5))
def test_unshredded_column_passes_through(rows: list[Any]) -> None:
    original = _variants(rows)
    layout, column = _through_parquet(original)
    assert not layout.is_shredded
    _check_rows(original, unshred(layout, column))


def test_fully_shredded_object_is_byte_exact() -> None:
    """Fields of exactly the leaf types come back byte for byte (the kernel's layout)."""
    rows = [{"a": VariantScalar(PrimitiveType.INT64, i), "b": f"s{i}", "c": [True, None]} for i in range(300)]
    rows.append({"a": VariantScalar(PrimitiveType.INT64, 5)})
    original = _variants(rows)
    shredded = shred(
        original, pa.struct([("a", pa.int64()), ("b", pa.string()), ("c", pa.list_(pa.bool_()))])
    )
    layout, column = _through_parquet(shredded)
    assert shredded.field("value").null_count == len(rows), "every row fully shredded"
    assert unshred(layout, column).field("value").to_pylist() == original.field("value").to_pylist()


# -- the spec's table ----------------------------------------------------------------------------
def _shredded(rows: list[dict[str, Any] | None], typed: pa.DataType) -> tuple[VariantLayout, pa.Array]:
    fields = [
        pa.field("metadata", pa.binary(), nullable=False),
        pa.field("value", pa.binary()),
        pa.field("typed_value", typed),
    ]
    return _through_parquet(pa.array(rows, pa.struct(fields)))


def _object_type(**fields: pa.DataType) -> pa.StructType:
    return pa.struct(
        [
            pa.field(k, pa.struct([("value", pa.binary()), ("typed_value", t)]), nullable=False)
            for k, t in fields.items()
        ]
    )


def test_top_level_table() -> None:
    meta = EMPTY_METADATA
    layout, column = _shredded(
        [
            {"metadata": meta, "value": None, "typed_value": 34},
            {"metadata": meta, "value": b"\x00", "typed_value": None},
            {"metadata": meta, "value": b"\x0dn/a", "typed_value": None},
            {"metadata": meta, "value": None, "typed_value": None},
            None,
        ],
        pa.int64(),
    )
    out = unshred(layout, column).to_pylist()
    assert [Variant(r["metadata"], r["value"]).to_python() for r in out[:4]] == [34, None, "n/a", None]
    assert out[3]["value"] == b"\x00", "missing at the top level is a Variant null (case 129)"
    assert out[4] is None, "a null group is SQL NULL"


def test_object_table() -> None:
    """The spec's `event` table: missing, null, residual and empty objects."""
    metadata = build_metadata(["email", "event_ts", "event_type"])
    ids = {"email": 0, "event_ts": 1, "event_type": 2}
    email = encode_object([("email", ids["email"], b"\x0da@b")])
    typed = _object_type(event_type=pa.string(), event_ts=pa.int64())

    def row(value: bytes | None, t: Any) -> dict[str, Any]:
        return {"metadata": metadata, "value": value, "typed_value": t}

    def fields(et: tuple[Any, Any], ts: tuple[Any, Any]) -> dict[str, Any]:
        return {
            "event_type": {"value": et[0], "typed_value": et[1]},
            "event_ts": {"value": ts[0], "typed_value": ts[1]},
        }

    layout, column = _shredded(
        [
            row(None, fields((None, "noop"), (None, 17))),
            row(email, fields((None, "login"), (None, 18))),
            row(email, fields((None, None), (None, None))),
            row(b"\x0dn/a", None),
            row(None, fields((b"\x00", None), (None, 19))),
            row(None, fields((None, "noop"), (b"\x0d123", None))),
            row(None, fields((None, None), (None, None))),
            row(b"\x00", None),
        ],
        typed,
    )
    got = [Variant(r["metadata"], r["value"]).to_python() for r in unshred(layout, column).to_pylist()]
    assert got == [
        {"event_type": "noop", "event_ts": 17},
        {"email": "a@b", "event_type": "login", "event_ts": 18},
        {"email": "a@b"},
        "n/a",
        {"event_type": None, "event_ts": 19},
        {"event_type": "noop", "event_ts": "123"},
        {},
        None,
    ]


@pytest.mark.parametrize(
    ("typed", "row", "column_path", "match"),
    [
        (pa.int64(), {"value": b"\x0c\x01", "typed_value": 1}, "v", "both non-null"),
        (pa.list_(pa.int64()), None, None, None),
        (
            _object_type(a=pa.int64()),
            {"value": b"\x0c\x01", "typed_value": {"a": {"value": None, "typed_value": 1}}},
            "v.value",
            "not an object",
        ),
        (
            _object_type(a=pa.int64()),
            {"value": b"\x00", "typed_value": {"a": {"value": None, "typed_value": None}}},
            "v.value",
            "not an object",
        ),
    ],
)
def test_conflicts_raise(
    typed: pa.DataType, row: dict[str, Any] | None, column_path: str | None, match: str | None
) -> None:
    if row is None:
        return  # list conflicts are covered by test_array_conflicts
    good = {"metadata": build_metadata(["a"]), "value": None, "typed_value": None}
    layout, column = _shredded([good, {"metadata": build_metadata(["a"]), **row}], typed)
    with pytest.raises(InvalidShreddingError, match=match) as info:
        unshred(layout, column, file="f.parquet")
    assert (info.value.file, info.value.column_path) == ("f.parquet", column_path)
    assert "row 1" in str(info.value), "the error names the row"


def test_array_conflicts() -> None:
    element = pa.struct([("value", pa.binary()), ("typed_value", pa.int64())])
    typed = pa.list_(pa.field("element", element, nullable=False))
    layout, column = _shredded(
        [{"metadata": EMPTY_METADATA, "value": None, "typed_value": [{"value": b"\x00", "typed_value": 3}]}],
        typed,
    )
    with pytest.raises(InvalidShreddingError, match="row 0") as info:
        unshred(layout, column)
    assert info.value.column_path == "v.typed_value.list.element"
    layout, column = _shredded([{"metadata": EMPTY_METADATA, "value": b"\x00", "typed_value": []}], typed)
    with pytest.raises(InvalidShreddingError, match="shredded array") as info:
        unshred(layout, column)
    assert info.value.column_path == "v"


def test_missing_element_is_variant_null() -> None:
    element = pa.struct([("value", pa.binary()), ("typed_value", pa.int64())])
    typed = pa.list_(pa.field("element", element, nullable=False))
    layout, column = _shredded(
        [
            {
                "metadata": EMPTY_METADATA,
                "value": None,
                "typed_value": [{"value": None, "typed_value": None}, {"typed_value": 2}],
            }
        ],
        typed,
    )
    row = unshred(layout, column).to_pylist()[0]
    assert Variant(row["metadata"], row["value"]).to_python() == [None, 2], "case 85"


def test_shredded_name_in_residual_raises() -> None:
    metadata = build_metadata(["a", "b"])
    residual = encode_object([("a", 0, b"\x00")])
    layout, column = _shredded(
        [
            {
                "metadata": metadata,
                "value": residual,
                "typed_value": {"a": {"value": None, "typed_value": None}},
            }
        ],
        _object_type(a=pa.int64()),
    )
    with pytest.raises(InvalidShreddingError, match="both a shredded field and in the value") as info:
        unshred(layout, column)
    assert info.value.column_path == "v.value"


def test_name_missing_from_metadata_raises() -> None:
    layout, column = _shredded(
        [
            {
                "metadata": build_metadata(["b"]),
                "value": None,
                "typed_value": {"a": {"value": None, "typed_value": 1}},
            }
        ],
        _object_type(a=pa.int64()),
    )
    with pytest.raises(InvalidShreddingError, match="not in the row's metadata") as info:
        unshred(layout, column)
    assert info.value.column_path == "v.typed_value.a"


def test_missing_field_not_in_metadata_is_fine() -> None:
    """Only present fields need a field id."""
    layout, column = _shredded(
        [
            {
                "metadata": EMPTY_METADATA,
                "value": None,
                "typed_value": {"a": {"value": None, "typed_value": None}},
            }
        ],
        _object_type(a=pa.int64()),
    )
    row = unshred(layout, column).to_pylist()[0]
    assert Variant(row["metadata"], row["value"]).to_python() == {}


def test_null_metadata_raises() -> None:
    typed = _object_type(a=pa.int64())
    column = pa.array(
        [{"metadata": None, "value": None, "typed_value": {"a": {"value": None, "typed_value": 1}}}],
        pa.struct([("metadata", pa.binary()), ("value", pa.binary()), ("typed_value", typed)]),
    )
    layout, _ = _shredded([{"metadata": EMPTY_METADATA, "value": b"\x00", "typed_value": None}], typed)
    with pytest.raises(MalformedVariantError, match="metadata is null") as info:
        unshred(layout, column, file="f.parquet")
    assert (info.value.file, info.value.column_path) == ("f.parquet", "v.metadata")


def test_partial_read_is_refused() -> None:
    layout, column = _shredded([{"metadata": EMPTY_METADATA, "value": None, "typed_value": 1}], pa.int64())
    partial = pa.StructArray.from_arrays(
        [column.chunk(0).field("metadata"), column.chunk(0).field("typed_value")], ["metadata", "typed_value"]
    )
    with pytest.raises(InvalidShreddingError, match="no value field"):
        unshred(layout, partial)


def test_primitive_types_of_the_file() -> None:
    """Each leaf type becomes the Variant type of its column (int16 stays int16, etc.)."""
    cases = [
        (pa.int8(), 5, VariantType.INT8),
        (pa.int16(), 5, VariantType.INT16),
        (pa.int32(), 5, VariantType.INT32),
        (pa.decimal128(9, 2), decimal.Decimal("1.25"), VariantType.DECIMAL4),
        (pa.decimal128(18, 2), decimal.Decimal("1.25"), VariantType.DECIMAL8),
        (pa.decimal128(30, 2), decimal.Decimal("-1.25"), VariantType.DECIMAL16),
        (pa.timestamp("ns"), 5, VariantType.TIMESTAMP_NTZ_NANOS),
        (pa.string(), "x" * 64, VariantType.STRING),
        (pa.binary(), b"", VariantType.BINARY),
    ]
    for typed, raw, expected in cases:
        layout, column = _shredded([{"metadata": EMPTY_METADATA, "value": None, "typed_value": raw}], typed)
        row = unshred(layout, column).to_pylist()[0]
        v = Variant(row["metadata"], row["value"])
        assert v.type == expected, f"{typed} should give {expected}"
        assert v.to_python() == (
            raw if not pa.types.is_timestamp(typed) else VariantScalar(PrimitiveType.TIMESTAMP_NTZ_NANOS, raw)
        )


def test_read_with_dictionary_and_large_types() -> None:
    """pyarrow may hand over dictionary-encoded or large string columns."""
    original = _variants([{"a": "x", "b": 1}, {"a": "y"}, 2])
    shredded = shred(original, "struct<a: string, b: bigint>")
    buf = io.BytesIO()
    pq.write_table(pa.table({"v": shredded}), buf)
    pf = pq.ParquetFile(buf, read_dictionary=["v.typed_value.a.typed_value"])
    layout = find_variant_columns(pf)["v"]
    _check_rows(original, unshred(layout, pf.read().column("v")))


# -- the kernels against the row-by-row encoder --------------------------------------------------
@given(
    st.integers(1, 6).flatmap(
        lambda k: st.lists(
            st.lists(
                st.one_of(st.none(), st.tuples(st.integers(0, 2**25), st.binary(max_size=300))),
                min_size=k,
                max_size=k,
            ),
            min_size=1,
            max_size=5,
        )
    )
)
def test_encode_objects_matches_encode_object(rows: list[list[tuple[int, bytes] | None]]) -> None:
    k = len(rows[0])
    present = np.array([[c is not None for c in r] for r in rows])
    ids = np.array([[c[0] if c is not None else 0 for c in r] for r in rows], dtype=np.int64)
    datas, starts, lengths = [], np.zeros((len(rows), k), np.int64), np.zeros((len(rows), k), np.int64)
    for j in range(k):
        blob = b""
        for i, r in enumerate(rows):
            cell = r[j]
            starts[i, j] = len(blob)
            if cell is not None:
                blob += cell[1]
                lengths[i, j] = len(cell[1])
        datas.append(np.frombuffer(blob, np.uint8))
    sizes, out = encode_objects(ids, present, starts, lengths, datas)
    pos = 0
    for i, r in enumerate(rows):
        names = [f"f{j}" for j in range(k)]  # f0 < f1 < ...: already sorted, as the kernel wants
        want = encode_object([(names[j], c[0], c[1]) for j, c in enumerate(r) if c is not None])
        assert out[pos : pos + sizes[i]].tobytes() == want, f"object {i}"
        pos += sizes[i]


@given(st.lists(st.lists(st.binary(min_size=1, max_size=200), max_size=8), min_size=1, max_size=5))
def test_encode_arrays_matches_encode_array(rows: list[list[bytes]]) -> None:
    flat = [e for r in rows for e in r]
    offsets = np.concatenate([[0], np.cumsum([len(e) for e in flat])]).astype(np.int64)
    counts = np.array([len(r) for r in rows])
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    sizes, out = encode_arrays(offsets, np.frombuffer(b"".join(flat), np.uint8), first, counts)
    assert out.tobytes() == b"".join(encode_array(r) for r in rows)
    assert sizes.tolist() == [len(encode_array(r)) for r in rows]


def test_large_containers() -> None:
    """Over 255 fields or elements switches to the 4-byte count (is_large)."""
    obj = {f"k{i:03d}": i for i in range(300)}
    arr = list(range(300))
    original = _variants([obj, arr])
    schema = pa.struct([(f"k{i:03d}", pa.int64()) for i in range(300)])
    _check_rows(original, unshred(*_through_parquet(shred(original, schema))))
    _check_rows(original, unshred(*_through_parquet(shred(original, pa.list_(pa.int64())))))


# -- the draft layout ----------------------------------------------------------------------------
def _concat(value: Any) -> bytes:
    metadata, data = encode(value)
    return metadata + data


def test_draft_layout_file() -> None:
    """The draft's own examples, written by hand with pyarrow."""
    bin_ = pa.binary()
    c_leaf = pa.struct([("untyped_value", bin_), ("typed_value", pa.string())])
    b_obj = pa.struct([("untyped_value", bin_), ("object", pa.struct([("c", c_leaf)]))])
    element = pa.struct([("untyped_value", bin_), ("typed_value", pa.int64())])
    arr = pa.struct([("untyped_value", bin_), ("array", pa.list_(element))])
    top = pa.struct(
        [
            ("untyped_value", bin_),
            (
                "object",
                pa.struct(
                    [
                        ("a", pa.struct([("untyped_value", bin_), ("typed_value", pa.int64())])),
                        ("b", b_obj),
                        ("arr", arr),
                    ]
                ),
            ),
        ]
    )
    rows = [
        (
            {"object": {"a": {"typed_value": 123}, "b": {"object": {"c": {"typed_value": "hello"}}}}},
            {"a": 123, "b": {"c": "hello"}},
        ),
        (
            {
                "object": {
                    "a": {"untyped_value": _concat(1.23)},
                    "b": {"object": {"c": {"typed_value": "123"}}},
                }
            },
            {"a": 1.23, "b": {"c": "123"}},
        ),
        (
            {
                "object": {
                    "a": {"untyped_value": _concat([1, 2, 3])},
                    "b": {"object": {"c": {"untyped_value": _concat(None)}}},
                }
            },
            {"a": [1, 2, 3], "b": {"c": None}},
        ),
        ({"untyped_value": _concat({"c": 456}), "object": {"a": {"typed_value": 123}}}, {"a": 123, "c": 456}),
        (
            {
                "object": {
                    "a": {"typed_value": 123},
                    "b": {"untyped_value": _concat({"d": 456}), "object": {"c": {"typed_value": "hello"}}},
                }
            },
            {"a": 123, "b": {"c": "hello", "d": 456}},
        ),
        ({"untyped_value": _concat([{"a": 1}, "x"])}, [{"a": 1}, "x"]),
        (
            {"object": {"arr": {"array": [{"typed_value": 1}, {"untyped_value": _concat("x")}, {}]}}},
            {"arr": [1, "x", None]},
        ),
        ({}, None),
        (None, "SQL NULL"),
    ]
    buf = io.BytesIO()
    pq.write_table(pa.table({"v": pa.array([r for r, _ in rows], top)}), buf)
    pf = pq.ParquetFile(buf)
    layout = find_variant_columns(pf)["v"]
    assert layout.draft
    out = unshred(layout, pf.read().column("v")).to_pylist()
    for k, ((_, want), got) in enumerate(zip(rows, out)):
        if want == "SQL NULL":
            assert got is None
            continue
        v = Variant(got["metadata"], got["value"])
        v.validate()
        assert v.to_python() == want, f"row {k}"


def test_draft_conflict_raises() -> None:
    top = pa.struct([("untyped_value", pa.binary()), ("typed_value", pa.int64())])
    column = pa.array([{"untyped_value": _concat("x"), "typed_value": 1}], top)
    buf = io.BytesIO()
    pq.write_table(pa.table({"v": column}), buf)
    pf = pq.ParquetFile(buf)
    with pytest.raises(InvalidShreddingError, match="both non-null"):
        unshred(find_variant_columns(pf)["v"], pf.read().column("v"))


# -- files written by DuckDB ---------------------------------------------------------------------
def test_duckdb_shredded_file(tmp_path: Path) -> None:
    path = tmp_path / "duck.parquet"
    con = duckdb.connect()
    con.execute(f"""
        COPY (
            SELECT i AS id, CASE i % 5
                WHEN 0 THEN {{'a': i, 'b': 'x' || i}}::VARIANT
                WHEN 1 THEN {{'a': 'str', 'c': [1, 2]}}::VARIANT
                WHEN 2 THEN [i, i + 1]::VARIANT
                WHEN 3 THEN {{'b': 'only b', 'a': 1.5::DOUBLE, 'd': {{'e': NULL}}}}::VARIANT
                ELSE {{'a': i::TINYINT}}::VARIANT END AS v
            FROM range(50) t(i)
        ) TO '{path}' (FORMAT parquet, SHREDDING {{'v': 'STRUCT(a BIGINT, b VARCHAR)'}}, ROW_GROUP_SIZE 20)
    """)
    expected = con.execute(f"SELECT id, {AS_SPEC_BYTES} FROM '{path}' ORDER BY id").fetchall()
    pf = pq.ParquetFile(path)
    layout = find_variant_columns(pf, file=str(path))["v"]
    assert layout.annotated and layout.typed_leaf(["a"]) is not None
    got = pa.chunked_array(
        [unshred(layout, pf.read_row_group(i).column("v")) for i in range(pf.num_row_groups)], UNSHREDDED_TYPE
    ).to_pylist()
    ids = pf.read(columns=["id"]).column("id").to_pylist()
    by_id = dict(zip(ids, got))
    for row_id, want in expected:
        mine = by_id[row_id]
        assert variant_equal(
            Variant(mine["metadata"], mine["value"]), Variant(want["metadata"], want["value"])
        ), row_id


def test_duckdb_reads_what_shred_writes(tmp_path: Path) -> None:
    """The reverse check: DuckDB reconstructs vpush's shredded files to the same values."""
    rows = [
        {"a": 1, "b": ["x", 2]},
        {"a": "n/a", "z": {"y": 1}},
        [1, 2],
        7,
        {"b": []},
        {"a": dt.date(2024, 1, 2), "u": uuid.UUID(int=5)},
    ]
    original = _variants(rows)
    path = tmp_path / "mine.parquet"
    write_shredded_parquet(
        pa.table({"id": list(range(len(rows))), "v": original}),
        path,
        {"v": "struct<a: bigint, b: array<string>>"},
    )
    con = duckdb.connect()
    got = con.execute(f"SELECT {AS_SPEC_BYTES} FROM '{path}' ORDER BY id").fetchall()
    for k, ((row,), want) in enumerate(zip(got, original.to_pylist())):
        assert variant_equal(
            Variant(row["metadata"], row["value"]), Variant(want["metadata"], want["value"])
        ), k


def test_decimal_beyond_its_width_raises() -> None:
    """pyarrow does not check a column's values against its declared precision; a decimal4
    column holding ten digits must not be cut to four bytes silently."""
    column = pa.array(
        [{"metadata": EMPTY_METADATA, "value": None, "typed_value": decimal.Decimal("12345678901")}],
        pa.struct([("metadata", pa.binary()), ("value", pa.binary()), ("typed_value", pa.decimal128(20, 0))]),
    )
    layout, _ = _shredded(
        [{"metadata": EMPTY_METADATA, "value": None, "typed_value": 1}], pa.decimal128(9, 0)
    )
    with pytest.raises(InvalidShreddingError, match="more digits than decimal4") as info:
        unshred(layout, column, file="f.parquet")
    assert info.value.column_path == "v.typed_value"


# -- review regressions --------------------------------------------------------------------------
def _top(typed: pa.Array, vt: VariantType, physical: str) -> tuple[VariantLayout, pa.StructArray]:
    from vpush.codec.layout import PrimitiveLayout

    layout = VariantLayout(
        name="v", path="v", value="v.value", metadata="v.metadata",
        typed_value=PrimitiveLayout("v.typed_value", vt, physical),
    )  # fmt: skip
    n = len(typed)
    column = pa.StructArray.from_arrays(
        [pa.array([b"\x01\x00\x00"] * n), pa.nulls(n, pa.binary()), typed], ["metadata", "value", "typed_value"]
    )
    return layout, column


def test_decimal8_of_int64_min_raises() -> None:
    # np.abs(-2**63) overflows to -2**63, which used to pass the 18-digit check.
    raw = pa.py_buffer((-(2**63)).to_bytes(16, "little", signed=True))
    layout, column = _top(pa.Array.from_buffers(pa.decimal128(18, 0), 1, [None, raw]), VariantType.DECIMAL8, "INT64")
    with pytest.raises(InvalidShreddingError, match="row 0: a decimal in typed_value has more digits"):
        unshred(layout, column)


def test_duplicate_residual_names_are_malformed_with_row() -> None:
    metadata = b"\x01\x03\x00\x01\x02\x03bba"  # unsorted, "b" twice
    residual = bytes([0x02, 2, 0, 1, 0, 2, 4]) + b"\x0c\x01\x0c\x02"  # ids 0 and 1: both "b"
    layout, column = _shredded(
        [{"metadata": metadata, "value": residual, "typed_value": {"a": {"value": None, "typed_value": 5}}}],
        _object_type(a=pa.int64()),
    )
    with pytest.raises(MalformedVariantError, match="row 0: duplicate field name 'b'") as info:
        unshred(layout, column, file="f.parquet")
    assert (info.value.file, info.value.column_path) == ("f.parquet", "v.value")


@pytest.mark.parametrize(
    ("metadata", "match"),
    [
        (b"\x01\x01\x01\x02xa", "first metadata offset must be 0"),
        (b"\x11\x02\x00\x01\x02ba", "marked sorted"),
        (b"\x41\x01\x00", "truncated"),
    ],
)
def test_every_rows_metadata_is_checked(metadata: bytes, match: str) -> None:
    # Row 1 holds no object: its metadata used to be returned unchecked.
    layout, column = _shredded(
        [
            {"metadata": b"\x01\x00\x00", "value": b"\x0c\x01", "typed_value": None},
            {"metadata": metadata, "value": b"\x0c\x01", "typed_value": None},
        ],
        pa.int64(),
    )
    with pytest.raises(MalformedVariantError, match=f"row 1: .*{match}") as info:
        unshred(layout, column)
    assert info.value.column_path == "v.metadata"


@pytest.mark.parametrize("value", [b"\x0c\x05\xff", b"\x0c", b"", b"\x02\x01\x00\x00\x02\x0c\x01\xee"])
def test_value_size_must_equal_its_bytes(value: bytes) -> None:
    layout, column = _shredded(
        [
            {"metadata": build_metadata(["a"]), "value": b"\x00", "typed_value": None},
            {"metadata": build_metadata(["a"]), "value": value, "typed_value": None},
        ],
        pa.int64(),
    )
    with pytest.raises(MalformedVariantError, match="row 1: "):
        unshred(layout, column)


def test_typed_string_must_be_utf8() -> None:
    bad = pa.array([b"ok", b"\xff\xfe"], pa.binary()).view(pa.string())
    layout, column = _top(bad, VariantType.STRING, "BYTE_ARRAY")
    with pytest.raises(InvalidShreddingError, match="row 1: a string in typed_value is not valid UTF-8"):
        unshred(layout, column)
    # a STRING layout over a binary column too
    layout, column = _top(pa.array([b"\xc0\x80"]), VariantType.STRING, "BYTE_ARRAY")
    with pytest.raises(InvalidShreddingError, match="row 0: .*not valid UTF-8"):
        unshred(layout, column)


def test_bad_arrow_offsets_raise() -> None:
    import struct

    offsets = pa.py_buffer(struct.pack("<iii", 0, 2**31 - 1, 2))
    value = pa.Array.from_buffers(pa.binary(), 2, [None, offsets, pa.py_buffer(b"\x0c\x05")])
    value.validate()  # the cheap validation sees only the first and the last offset
    layout, _ = _top(pa.nulls(2, pa.int64()), VariantType.INT64, "INT64")
    column = pa.StructArray.from_arrays([pa.array([b"\x01\x00\x00"] * 2), value], ["metadata", "value"])
    with pytest.raises(InvalidShreddingError, match="not valid"):
        unshred(layout, column)


def test_decimal16_over_38_digits_raises() -> None:
    raw = pa.py_buffer((10**38).to_bytes(16, "little", signed=True))
    typed = pa.Array.from_buffers(pa.decimal128(38, 0), 1, [None, raw])
    layout, column = _top(typed, VariantType.DECIMAL16, "FIXED_LEN_BYTE_ARRAY")
    with pytest.raises(InvalidShreddingError, match="more digits than decimal16"):
        unshred(layout, column)
    ok = pa.array([decimal.Decimal(10**38 - 1), decimal.Decimal(-(10**38) + 1)], pa.decimal128(38, 0))
    layout, column = _top(ok, VariantType.DECIMAL16, "FIXED_LEN_BYTE_ARRAY")
    assert len(unshred(layout, column)) == 2
