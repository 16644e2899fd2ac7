"""The compiled extraction kernel (``extract_native``) against the pure-Python reference, the loop
of ``extract_column`` (run here with the kernel switched off).

- random values and random paths, over every Arrow form of the input: the same rows;
- field lookup as Spark's ``Variant.getFieldByKey``: unsorted small objects scanned in stored
  order, wide objects binary-searched in UTF-8 or UTF-16 order, keys from U+E000 up and beyond
  the BMP, empty keys;
- a seeded corruption fuzz of values and metadata: the kernel raises exactly where the reference
  raises, and otherwise returns the same rows, and never crashes.
"""

from __future__ import annotations

import itertools
import random
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from strategies import values
from support.unsorted import stored_object
from vpush.codec import native
from vpush.codec.builder import encode, encode_array, encode_string
from vpush.codec.errors import MalformedVariantError, VariantPathError, VariantTooLargeError
from vpush.codec.header import int_size, object_header
from vpush.codec.metadata import EMPTY_METADATA_BYTES, build_metadata
from vpush.codec.native import NATIVE_AVAILABLE, UNSHREDDED_TYPE, NativeUnsupportedError, extract_native
from vpush.codec.path import VariantPath, extract_column

pytestmark = pytest.mark.skipif(not NATIVE_AVAILABLE, reason="the compiled kernel is not built")

SQL_NULL = object()
"""A row whose metadata and value are both null."""
BINARY_KINDS = [pa.binary(), pa.large_binary(), pa.binary_view()]


# -- helpers -------------------------------------------------------------------------------------
@contextmanager
def _python_only() -> Iterator[None]:
    with mock.patch.object(native, "NATIVE_AVAILABLE", False):
        yield


def _reference(
    metadata: pa.Array | pa.ChunkedArray, value: pa.Array | pa.ChunkedArray, path: tuple[Any, ...]
) -> Any:
    with _python_only():
        return _outcome(lambda: extract_column(metadata, value, VariantPath(path)))


def _outcome(fn: Callable[[], pa.StructArray]) -> Any:
    """The array a call returns, or MalformedVariantError if it raises one."""
    try:
        return fn()
    except MalformedVariantError:
        return MalformedVariantError


def _check_same(
    metadata: pa.Array | pa.ChunkedArray, value: pa.Array | pa.ChunkedArray, path: tuple[Any, ...]
) -> Any:
    """Assert the kernel and the reference agree; return the reference's outcome."""
    want = _reference(metadata, value, path)
    got = _outcome(lambda: extract_native(metadata, value, path))
    if want is MalformedVariantError or got is MalformedVariantError:
        assert got is want, f"path {path}: the kernel raises exactly where the reference raises"
        return want
    assert got.type == UNSHREDDED_TYPE, "struct<metadata: binary, value: binary>"
    assert got.to_pylist() == want.to_pylist(), f"path {path}: the same rows as the reference"
    assert got.equals(want), f"path {path}: the same array as the reference"
    return want


def _columns(
    rows: list[tuple[bytes | None, bytes | None]], kind: pa.DataType | None = None
) -> tuple[pa.Array, pa.Array]:
    kind = kind if kind is not None else pa.binary()
    return pa.array([r[0] for r in rows], kind), pa.array([r[1] for r in rows], kind)


def _object_in_order(names: list[str]) -> tuple[bytes, bytes]:
    """(metadata, value) of an object with fields ``names`` stored in that order, each holding its
    own name as a string; the dictionary lists the names in reverse."""
    dictionary = list(reversed(names))
    fields = [(dictionary.index(name), encode_string(name)) for name in names]
    return build_metadata(dictionary, sort=False), stored_object(fields)


def _utf8_order(name: str) -> bytes:
    return name.encode("utf-8")


def _utf16_order(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


def _all_keys(value: Any, out: set[str]) -> set[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            _all_keys(v, out)
    elif isinstance(value, list):
        for v in value:
            _all_keys(v, out)
    return out


def test_kernel_has_extract() -> None:
    assert native._native is not None and hasattr(native._native, "extract"), "setup.py builds the kernel"


# -- random values, random paths -----------------------------------------------------------------
@st.composite
def extraction_cases(draw: st.DrawFn) -> tuple[list[tuple[bytes | None, bytes | None]], tuple[Any, ...]]:
    rows = draw(st.lists(st.one_of(values, st.just(SQL_NULL)), min_size=1, max_size=6))
    encoded: list[tuple[bytes | None, bytes | None]] = []
    keys: set[str] = set()
    for row in rows:
        if row is SQL_NULL:
            encoded.append((None, None))
            continue
        meta, val = encode(row)
        _all_keys(row, keys)
        # Null in one input only: the row is null all the same.
        null_side = draw(st.sampled_from(["none", "none", "none", "metadata", "value"]))
        encoded.append((None if null_side == "metadata" else meta, None if null_side == "value" else val))
    segment = st.one_of(
        st.sampled_from(sorted(keys)) if keys else st.text(max_size=2),
        st.sampled_from(sorted(keys)) if keys else st.text(max_size=2),
        st.text(max_size=3),
        st.integers(0, 6),
        st.just(2**31 - 1),
    )
    path = tuple(draw(st.lists(segment, max_size=4)))
    return encoded, path


@given(extraction_cases(), st.sampled_from(BINARY_KINDS))
def test_random_values_match_reference(
    case: tuple[list[tuple[bytes | None, bytes | None]], tuple[Any, ...]], kind: pa.DataType
) -> None:
    rows, path = case
    metadata, value = _columns(rows, kind)
    want = _check_same(metadata, value, path)
    assert want is not MalformedVariantError, "valid values never raise"


@given(extraction_cases(), st.integers(0, 3), st.integers(1, 4), st.integers(1, 4))
def test_sliced_and_chunked_match_reference(
    case: tuple[list[tuple[bytes | None, bytes | None]], tuple[Any, ...]],
    start: int,
    meta_pieces: int,
    value_pieces: int,
) -> None:
    rows, path = case
    padded = [(b"\x00", b"\xff")] * start + rows  # damaged rows before the slice are never read
    metadata, value = _columns(padded, pa.binary())
    metadata, value = metadata.slice(start), value.slice(start)
    _check_same(metadata, value, path)

    def chunked(array: pa.Array, pieces: int) -> pa.ChunkedArray:
        cuts = sorted({0, len(array), *(len(array) * k // pieces for k in range(1, pieces))})
        return pa.chunked_array([array.slice(a, b - a) for a, b in itertools.pairwise(cuts)], array.type)

    # Chunk boundaries that differ between metadata and value.
    _check_same(chunked(metadata, meta_pieces), chunked(value, value_pieces), path)
    _check_same(chunked(metadata.cast(pa.large_binary()), meta_pieces), value, path)


def test_dictionary_encoded_input() -> None:
    rows = [encode({"a": i % 3, "b": [i]}) for i in range(10)]
    metadata = pa.array([r[0] for r in rows], pa.binary()).dictionary_encode()
    value = pa.array([r[1] for r in rows], pa.binary()).dictionary_encode()
    for path in [("a",), ("b", 0), ("c",)]:
        _check_same(metadata, value, path)


def test_nulls_in_either_input_and_empty_input() -> None:
    meta, val = encode({"a": 1})
    rows = [(meta, val), (None, val), (meta, None), (None, None), (meta, val)]
    metadata, value = _columns(rows)
    out = extract_native(metadata, value, ("a",))
    assert out.is_null().to_pylist() == [False, True, True, True, False], "Null where either input is null"
    _check_same(metadata, value, ("a",))
    _check_same(metadata, value, ())
    empty = extract_native(pa.array([], pa.binary()), pa.array([], pa.binary()), ("a",))
    assert empty.type == UNSHREDDED_TYPE and len(empty) == 0, "No rows in, no rows out"
    chunked = extract_native(pa.chunked_array([], pa.binary()), pa.chunked_array([], pa.binary()), ())
    assert len(chunked) == 0, "A chunked array without chunks has no rows"


def test_top_level_keeps_only_the_value_bytes() -> None:
    """Bytes after the top-level value are not part of it: `$` returns the value alone."""
    meta, val = encode([1, 2])
    metadata, value = _columns([(meta, val + b"\x00\x00")])
    out = _check_same(metadata, value, ())
    assert out.field("value")[0].as_py() == val, "Trailing bytes are not copied"


def test_length_mismatch_and_bad_segments() -> None:
    meta, val = encode({"a": 1})
    with pytest.raises(ValueError, match="metadata has 2 rows but value has 1"):
        extract_native(pa.array([meta, meta]), pa.array([val]), ("a",))
    with pytest.raises(VariantPathError):
        extract_native(pa.array([meta]), pa.array([val]), (-1,))
    with pytest.raises(VariantPathError):
        extract_native(pa.array([meta]), pa.array([val]), (True,))


def test_input_the_kernel_leaves_to_python() -> None:
    meta, val = encode({"a": 1})
    with pytest.raises(NativeUnsupportedError):
        extract_native(pa.array([meta]), pa.array([val.decode("latin-1")], pa.string()), ("a",))
    with pytest.raises(NativeUnsupportedError):
        extract_native(pa.array([meta]), pa.array([val]), ("\ud800",))
    # extract_column falls back to its loop for both; a lone surrogate never matches a valid name
    assert extract_column(pa.array([meta]), pa.array([val]), VariantPath(("\ud800",))).to_pylist() == [
        None
    ], "The fallback runs"


# -- field lookup as Spark's getFieldByKey --------------------------------------------------------
WIDE_NAMES = [f"k{i:02d}" for i in range(30)] + [
    "",
    "a",
    "ab",
    "\x00",
    "é",
    "\ue000",
    "a\ue000",
    "\uffff",
    "\U00010000",
    "a\U0001f600",
    "\U0001f600",
    "\U0010ffff",
    "z\U00010000b",
]
ABSENT_NAMES = ["aa", "b", "\ue001", "a\U0001f601", "\U0001f5ff", "k", "k300", "\U0010fffe"]


@pytest.mark.parametrize("order", ["utf8", "utf16", "shuffled", "reversed"])
@pytest.mark.parametrize("width", [32, 33, len(WIDE_NAMES), 300])
def test_wide_objects_in_every_order(order: str, width: int) -> None:
    names = (WIDE_NAMES + [f"w{i:03d}" for i in range(width)])[:width]
    if order == "utf8":
        names.sort(key=_utf8_order)
    elif order == "utf16":
        names.sort(key=_utf16_order)
    elif order == "shuffled":
        random.Random(width).shuffle(names)
    else:
        names.sort(key=_utf8_order, reverse=True)
    metadata, value = _columns([_object_in_order(names)])
    for name in names + ABSENT_NAMES:
        out = _check_same(metadata, value, (name,))
        # Spark sorts in UTF-16 order; for names below U+E000 the UTF-8 order agrees.
        spark_sorted = order == "utf16" or (order == "utf8" and max(name, default="") < "\ue000")
        if name in names and spark_sorted:
            found = out.field("value")[0].as_py() if out.null_count == 0 else None
            assert found == encode_string(name), f"Should find {name!r} in an object sorted as Spark sorts"


@pytest.mark.parametrize("order", ["stored", "reversed"])
def test_small_unsorted_objects_are_scanned(order: str) -> None:
    names = ["s", "a", "arr", "", "\U0001f600", "\ue000", "b"]
    if order == "reversed":
        names.reverse()
    metadata, value = _columns([_object_in_order(names)])
    for name in names:
        out = _check_same(metadata, value, (name,))
        assert out.field("value")[0].as_py() == encode_string(name), f"Should find {name!r} by scanning"
    for name in [n for n in ABSENT_NAMES if n not in names]:
        assert _check_same(metadata, value, (name,)).null_count == 1, f"{name!r} is absent"


def test_duckdb_unsorted_objects() -> None:
    duckdb = pytest.importorskip("duckdb")
    rows = duckdb.sql(
        "SELECT variant_to_parquet_variant(v)::STRUCT(metadata BLOB, value BLOB) FROM ("
        "SELECT {'s': 1, 'a': 2, 'arr': [{'z': 4, 'b': 5}]}::VARIANT AS v "
        "UNION ALL SELECT {'b': 'x', 'a': [1, 2]}::VARIANT) t"
    ).fetchall()
    metadata, value = _columns([(r[0]["metadata"], r[0]["value"]) for r in rows])
    for path in [("s",), ("a",), ("arr", 0, "z"), ("arr", 0, "b"), ("b",), ("a", 1), ("arr", 1), ("q",)]:
        _check_same(metadata, value, path)
    for path in [("s",), ("arr", 0, "z"), ("arr", 0, "b")]:
        found = extract_native(metadata, value, path)
        assert found.null_count == 1, f"{path} is in DuckDB's first object, unsorted"


def test_duplicate_names_and_shared_field_values() -> None:
    """Field ids repeated and several fields sharing one value: what the reference finds."""
    dictionary = ["a", "b", "a"]
    one = b"\x0c\x01"
    small = stored_object([(2, one), (0, one), (1, one)])
    meta = build_metadata(dictionary, sort=False)
    wide = stored_object([(i % 3, one) for i in range(40)])
    metadata, value = _columns([(meta, small), (meta, wide)])
    for path in [("a",), ("b",), ("c",)]:
        _check_same(metadata, value, path)


def test_many_distinct_metadata() -> None:
    """More distinct dictionaries than the kernel remembers, interleaved, and one bad row."""
    rows = [encode({f"f{i % 11}": i, "x": [i]}) for i in range(60)]
    metadata, value = _columns(rows)
    for path in [("f3",), ("x", 0), ("f3", 0)]:
        _check_same(metadata, value, path)
    bad = list(rows)
    bad[37] = (bad[37][0][:-1], bad[37][1])
    metadata, value = _columns(bad)
    with pytest.raises(MalformedVariantError, match="row 37, metadata"):
        extract_native(metadata, value, ())


# -- errors ----------------------------------------------------------------------------------------
def test_errors_name_the_row_and_the_byte_offset() -> None:
    good = encode({"a": [1, 2]})
    # The array's second offset (4) is past its last (2): element 1 cannot start there.
    damaged = (good[0], b"\x02\x01\x00\x00\x07\x03\x02\x00\x04\x02\x0c\x01")
    metadata, value = _columns([good, good, damaged])
    with pytest.raises(MalformedVariantError) as info:
        extract_native(metadata, value, ("a", 1))
    assert info.value.offset == 8, "The offset of the bad element offset"
    assert "row 2, value" in str(info.value) and "byte offset 8" in str(info.value), str(info.value)
    with _python_only(), pytest.raises(MalformedVariantError):
        extract_column(metadata, value, VariantPath(("a", 1)))
    # Element 0 is fine: the reference reads only what the path needs.
    _check_same(metadata, value, ("a", 0))


@pytest.mark.parametrize(
    ("metadata", "match"),
    [
        (b"", "truncated metadata header"),
        (b"\x02\x00\x00", "version 2"),
        (b"\x21\x00\x00", "bit 5"),
        (b"\x01", "dictionary_size"),
        (b"\x01\x05\x00", "offsets"),
        (b"\x01\x01\x00\x05a", "strings"),
        (b"\x01\x00\x00\x00", "buffer holds 4"),
    ],
)
def test_bad_metadata_raises_on_every_path(metadata: bytes, match: str) -> None:
    meta, val = encode(1)
    for path in [(), ("a",), (0,)]:
        with pytest.raises(MalformedVariantError, match=match):
            extract_native(pa.array([meta, metadata]), pa.array([val, val]), path)
        assert _reference(pa.array([meta, metadata]), pa.array([val, val]), path) is MalformedVariantError, (
            "The reference raises too"
        )


def test_dictionary_strings_are_checked_only_when_a_name_is_read() -> None:
    # Two strings, the second not UTF-8; a first offset of 1 is allowed until validate().
    metadata = b"\x01\x02\x01\x02\x03?a\xff"
    array_value = encode_array([b"\x0c\x01"])
    object_value = stored_object([(0, b"\x0c\x01")])
    for value, path in [(array_value, (0,)), (object_value, ("a",)), (object_value, (0,))]:
        _check_same(pa.array([metadata]), pa.array([value]), path)
    with pytest.raises(MalformedVariantError, match="not valid UTF-8"):
        extract_native(pa.array([metadata]), pa.array([object_value]), ("a",))


def test_field_id_outside_the_dictionary() -> None:
    value = stored_object([(5, b"\x0c\x01")])
    with pytest.raises(MalformedVariantError, match="field id 5") as info:
        extract_native(pa.array([EMPTY_METADATA_BYTES]), pa.array([value]), ("a",))
    assert info.value.offset == 2, "The field id's byte offset"
    _check_same(pa.array([EMPTY_METADATA_BYTES]), pa.array([value]), ("a",))


def test_too_large_maps_to_its_own_error() -> None:
    err = native._extract_error((native._ERR_TOO_LARGE, 7, b"", b"too many bytes", -1))
    assert isinstance(err, VariantTooLargeError) and "row 7" in str(err), "Its own error, with the row"


# -- corruption fuzz -------------------------------------------------------------------------------
FUZZ_CASES = 4000


def _fuzz_rows() -> list[tuple[bytes, bytes]]:
    wide = {f"w{i:02d}": i for i in range(40)}
    wide["\U0001f600"] = {"deep": [1, "x" * 70]}
    wide["\ue000"] = [None, 2.5]
    return [
        encode({"a": [1, {"b": "x", "c": [True, None]}], "s": "long" * 20, "n": {"m": 1}}),
        encode([1, [2, [3, {"a": 4}]], "y"]),
        encode(wide),
        _object_in_order(["s", "a", "\ue000", "arr", "\U0001f600", ""]),
        encode("just a string"),
    ]


FUZZ_PATHS: list[tuple[Any, ...]] = [
    (),
    ("a",),
    ("a", 1, "b"),
    ("a", 1, "c", 0),
    ("a", 0),
    ("n", "m"),
    ("s",),
    (0,),
    (1, 1, 1, "a"),
    (2,),
    ("w07",),
    ("w39",),
    ("\U0001f600", "deep", 1),
    ("\ue000", 1),
    ("zz",),
    ("",),
    ("arr",),
]


def _damage(rng: random.Random, data: bytes) -> bytes:
    raw = bytearray(data)
    choice = rng.randrange(6)
    if choice == 0 and raw:
        for _ in range(rng.randint(1, 3)):
            raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
    elif choice == 1:
        del raw[rng.randrange(len(raw) + 1) :]
    elif choice == 2:
        raw += bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
    elif choice == 3 and raw:
        raw[rng.randrange(len(raw))] = rng.choice(
            [0x00, 0xFF, 0x7F, 0x80, 0x02, 0x03, 0x12, 0xC1, 0x13, 0x1F]
        )
    elif choice == 4 and len(raw) > 2:
        # A header or a count early on: sizes, offsets and counts live there.
        raw[rng.randrange(min(len(raw), 8))] = rng.randrange(256)
    else:
        raw = bytearray(rng.randrange(256) for _ in range(rng.randint(0, 12)))
    return bytes(raw)


def test_corruption_fuzz_matches_reference() -> None:
    rng = random.Random(20261122)
    rows = _fuzz_rows()
    outcomes = {"ok": 0, "error": 0}
    for case in range(FUZZ_CASES):
        damaged = [list(r) for r in rows]
        target = rng.randrange(len(rows))
        side = rng.choice([0, 1, 1, 1])  # mostly the value
        damaged[target][side] = _damage(rng, damaged[target][side])
        metadata, value = _columns([(r[0], r[1]) for r in damaged])
        path = rng.choice(FUZZ_PATHS)
        want = _reference(metadata, value, path)
        try:
            got: Any = extract_native(metadata, value, path)
        except MalformedVariantError as err:
            assert want is MalformedVariantError, f"case {case}: the reference raises too ({err})"
            assert f"row {target}," in str(err) and err.offset is not None, (
                f"case {case}: the error names the damaged row and a byte offset: {err}"
            )
            outcomes["error"] += 1
            continue
        assert want is not MalformedVariantError, f"case {case}: the kernel raises where the reference does"
        assert got.equals(want), f"case {case}: the same rows as the reference"
        outcomes["ok"] += 1
    assert outcomes["ok"] > FUZZ_CASES // 5 and outcomes["error"] > FUZZ_CASES // 10, outcomes


def test_metadata_fuzz_every_prefix_and_byte() -> None:
    """Every truncation and every single-byte change of one metadata, on every path."""
    meta, val = _fuzz_rows()[0]
    damaged_list = [meta[:n] for n in range(len(meta))]
    for pos in range(len(meta)):
        for byte in (0x00, 0x01, 0x11, 0x41, 0x51, 0x81, 0xC1, 0xFF, 0x80, meta[pos] ^ 0x20):
            damaged_list.append(meta[:pos] + bytes([byte]) + meta[pos + 1 :])
    for damaged in damaged_list:
        for path in [(), ("a", 1, "b"), ("s",), ("zz",)]:
            _check_same(pa.array([damaged]), pa.array([val]), path)


def test_value_fuzz_every_prefix_and_byte() -> None:
    """Every truncation and every byte value at the first 12 positions of one value."""
    meta, val = _fuzz_rows()[0]
    damaged_list = [val[:n] for n in range(len(val))]
    for pos in range(min(12, len(val))):
        for byte in range(256):
            damaged_list.append(val[:pos] + bytes([byte]) + val[pos + 1 :])
    metadata = pa.array([meta] * len(damaged_list))
    for path in [(), ("a", 1, "b"), ("s",), ("n", "m")]:
        for k in range(len(damaged_list)):
            _check_same(metadata.slice(k, 1), pa.array([damaged_list[k]]), path)
