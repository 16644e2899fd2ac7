"""VariantPath parsing and extraction, against golden cases, PySpark 4.3 and random values."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from strategies import values
from support.unsorted import unsorted_variant
from vpush.codec.builder import encode
from vpush.codec.errors import VariantPathError
from vpush.codec.json import parse_json, to_json
from vpush.codec.path import INVALID_VARIANT_GET_PATH, VariantPath, extract, extract_column
from vpush.codec.value import Variant

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Each checked against Spark 4.3's variant_get (test_valid_paths_extract_as_spark).
VALID_PATHS: list[tuple[str, tuple[Any, ...]]] = [
    ("$", ()),
    ("$.a", ("a",)),
    ("$.a.b", ("a", "b")),
    ("$.a.b[1]", ("a", "b", 1)),
    ("$.a.b[2].c", ("a", "b", 2, "c")),
    ("$['a']", ("a",)),
    ('$["a"]', ("a",)),
    ("$['a.b']", ("a.b",)),
    ("$['']", ("",)),
    ('$[""]', ("",)),
    ("$['a?']", ("a?",)),
    ("$.a?", ("a?",)),
    ('$["it\'s"]', ("it's",)),
    ("$.it's", ("it's",)),
    ("$.a ", ("a ",)),
    ("$. a", (" a",)),
    ("$.a .b", ("a ", "b")),
    ("$[01]", (1,)),
    ("$[2147483647]", (2147483647,)),
    ("$.a]", ("a]",)),
    ("$.*", ("*",)),
    ("$.é", ("é",)),
    ("$.\U0001f600", ("\U0001f600",)),
    ('$.q"k', ('q"k',)),
    ("$.'a'", ("'a'",)),
    ("$[\"'a'\"]", ("'a'",)),
    ("$.a\\b", ("a\\b",)),
    ("$.$", ("$",)),
    ("$.0", ("0",)),
    ('$["a"]["b"]', ("a", "b")),
    ("$['a]']", ("a]",)),
    ('$.a"]', ('a"]',)),
    ("$.a\tb", ("a\tb",)),
    ("$[0]", (0,)),
    ("$[1][1]", (1, 1)),
    ("$[2].a[0]", (2, "a", 0)),
    ("$[5]", (5,)),
    ("$.a.b[0][0]", ("a", "b", 0, 0)),
    ("$.a[0]", ("a", 0)),
    ("$.k00", ("k00",)),
    ("$.k31", ("k31",)),
    ("$.\uff61", ("\uff61",)),
    ("$.\ue000x", ("\ue000x",)),
    ("$.\U00010000", ("\U00010000",)),
]

INVALID_PATHS = [
    "", "a", "$a", "$$", "$.", "$..a", " $.a", "$ .a", "$ ", "$['it''s']", "$['it\\'s']", '$["q\\"k"]',
    "$[ 0]",
    "$[0 ]", "$[-1]", "$[+1]", "$[1e2]", "$[2147483648]", "$[99999999999]", "$.a[", "$[0", "$['a", "$[*]",
    "$[\u0661]", "$['']x", "$[]",
]  # fmt: skip

SPARK_DOC = (
    '{"a":{"b":[10,20,{"c":"x"}]},"a.b":1,"":2,"a?":3,"it\'s":4,"q\\"k":5," a":6,"a ":7,"é":8,'
    '"\U0001f600":9,'
    '"a]":10,"$":11,"*":12,"0":13,"\'a\'":14,"a\\\\b":15,"a\\"]":16,"a\\tb":17}'
)
# More than 31 fields, with keys whose UTF-8 and UTF-16 orders differ: Spark binary-searches these.
WIDE_KEYS = [f"k{i:02d}" for i in range(36)] + ["\U0001f600", "\uff61", "\ue000x", "\U00010000"]


def _documents() -> list[tuple[bytes, bytes]]:
    wide = {key: i for i, key in enumerate(WIDE_KEYS)}
    return [
        parse_json(SPARK_DOC),
        parse_json('[1,[2,3],{"a":[4]},null]'),
        parse_json('"text"'),
        parse_json("null"),
        parse_json('{"a":{"b":[[1],[2]]}}'),
        parse_json(to_json(*encode(wide))),  # Spark's own field order (UTF-16)
        encode(wide),  # the spec's field order (UTF-8), as another writer stores it
    ]


@pytest.mark.parametrize(("text", "segments"), VALID_PATHS)
def test_parse_valid(text: str, segments: tuple[Any, ...]) -> None:
    path = VariantPath.parse(text)
    assert path.segments == segments, "Should parse as Spark's VariantPathParser"
    assert VariantPath.parse(path.to_spark()) == path, "to_spark() should parse back to the same path"


@pytest.mark.parametrize("text", INVALID_PATHS)
def test_parse_invalid(text: str) -> None:
    with pytest.raises(VariantPathError) as info:
        VariantPath.parse(text)
    assert info.value.error_class == INVALID_VARIANT_GET_PATH, "Should carry Spark's error class"


def test_segments_are_checked() -> None:
    with pytest.raises(VariantPathError):
        VariantPath((-1,))
    with pytest.raises(VariantPathError):
        VariantPath((1.5,))  # type: ignore[arg-type]
    with pytest.raises(VariantPathError):
        VariantPath((True,))


def test_to_spark_and_normalized_forms() -> None:
    path = VariantPath(("a", "", "x.y", "[", "it's", "it's.x", 3))
    assert path.to_spark() == "$.a['']['x.y']['['].it's[\"it's.x\"][3]", "Dots where Spark allows them"
    assert path.to_normalized() == "$['a']['']['x.y']['[']['it\\'s']['it\\'s.x'][3]", "Always bracketed"
    assert str(path) == path.to_normalized(), "str() is the normalized form"
    with pytest.raises(VariantPathError):
        VariantPath(("a'b\".c",)).to_spark()


@pytest.mark.spark
def test_valid_paths_extract_as_spark(spark: SparkSession) -> None:
    from pyspark.sql import functions as F
    from pyspark.sql.types import VariantVal

    documents = _documents()
    df = spark.createDataFrame(
        [(i, VariantVal(v, m)) for i, (m, v) in enumerate(documents)], "id int, v variant"
    )
    columns = [
        F.to_json(F.variant_get("v", text, "variant")).alias(f"p{i}")
        for i, (text, _) in enumerate(VALID_PATHS)
    ]
    rows = df.select("id", *columns).collect()
    mismatches = []
    for row in rows:
        meta, value = documents[row.id]
        for i, (text, _) in enumerate(VALID_PATHS):
            found = extract(meta, value, VariantPath.parse(text))
            ours = None if found is None else to_json(meta, found.value_bytes())
            if ours is not None and row.id == len(documents) - 1:
                # Spark's variant_get rebuilds the value it returns, re-sorting object fields in
                # Java's order; extract() keeps the stored bytes of this spec-ordered document.
                ours = to_json(*parse_json(ours))
            if ours != row[f"p{i}"]:
                mismatches.append((row.id, text, row[f"p{i}"], ours))
    assert not mismatches, f"Should extract what Spark's variant_get returns: {mismatches[:5]}"


@pytest.mark.spark
def test_invalid_paths_rejected_by_spark(spark: SparkSession) -> None:
    from pyspark.sql import functions as F

    df = spark.createDataFrame([("1",)], "j string").select(F.parse_json("j").alias("v"))
    accepted = []
    for text in INVALID_PATHS:
        try:
            df.select(F.variant_get("v", text, "variant")).collect()
            accepted.append(text)
        except Exception as exc:  # noqa: BLE001 - any Spark error type; the class is checked below
            if INVALID_VARIANT_GET_PATH not in str(exc):
                accepted.append(f"{text!r}: {str(exc)[:100]}")
    assert not accepted, f"Spark should reject these paths with INVALID_VARIANT_GET_PATH: {accepted}"


def _walk(value: Any, segments: tuple[Any, ...]) -> Any:
    for seg in segments:
        if isinstance(seg, str):
            found = isinstance(value, dict) and seg in value
        else:
            found = isinstance(value, list) and seg < len(value)
        if not found:
            return _MISSING
        value = value[seg]
    return value


_MISSING = object()


@st.composite
def _value_and_path(draw: st.DrawFn) -> tuple[Any, tuple[Any, ...]]:
    """A value and a path that mostly follows its structure, sometimes off it."""
    value = draw(values)
    node = value
    segments: list[Any] = []
    while draw(st.integers(0, 4)) > 0:
        if isinstance(node, dict) and node and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(node)))
            segments.append(key)
            node = node[key]
        elif isinstance(node, list) and node and draw(st.booleans()):
            index = draw(st.integers(0, len(node) - 1))
            segments.append(index)
            node = node[index]
        else:
            segments.append(draw(st.one_of(st.text(max_size=3), st.integers(0, 8))))
            node = None
    return value, tuple(segments)


@given(_value_and_path())
def test_extract_equals_walking_to_python(case: tuple[Any, tuple[Any, ...]]) -> None:
    value, segments = case
    meta, encoded = encode(value)
    found = extract(meta, encoded, VariantPath(segments))
    expected = _walk(Variant(meta, encoded).to_python(), segments)
    if expected is _MISSING:
        assert found is None, "Missing key, index past the end or wrong type: NULL"
    else:
        assert found is not None and found.to_python() == expected, "Should be the value on the path"


def test_extract_column_rows_and_nulls() -> None:
    rows = [
        parse_json('{"a": [1, {"b": "x"}]}'),
        parse_json('{"a": [1]}'),
        None,
        parse_json('{"a": [null, 2]}'),
    ]
    meta = pa.array([r[0] if r else None for r in rows], pa.binary())
    value = pa.array([r[1] if r else None for r in rows], pa.large_binary())
    out = extract_column(meta, value, "$.a[1]")
    assert out.type == pa.struct([("metadata", pa.binary()), ("value", pa.binary())]), (
        "struct<metadata, value>"
    )
    assert out.is_null().to_pylist() == [False, True, True, False], "Null where missing or SQL NULL"
    first = out[0].as_py()
    assert first is not None, "The first row has a value at $.a[1]"
    assert first["metadata"] == rows[0][0], "Keeps the row's own metadata"  # type: ignore[index]
    assert to_json(first["metadata"], first["value"]) == '{"b":"x"}', "The child is valid with it"
    assert out[3].as_py()["value"] == b"\x0c\x02", "Other rows extract independently"  # type: ignore[index]
    chunked = extract_column(pa.chunked_array([meta]), pa.chunked_array([value]), VariantPath.parse("$.a[0]"))
    assert chunked.is_null().to_pylist() == [False, False, True, False], "Chunked input works too"


def test_fields_of_an_unsorted_object_are_found_as_spark_finds_them() -> None:
    """DuckDB 2.0.0 wrote object fields in insertion order, against the spec (2.0.1 sorts them),
    and files it wrote stay in the wild; Spark scans small objects one field at a time and finds
    them all."""
    metadata, value = unsorted_variant([("s", 1), ("a", 2), ("arr", [3])])
    names = [name for name, _ in Variant(metadata, value).items()]
    assert names == ["s", "a", "arr"], "The object keeps its fields unsorted, as DuckDB 2.0.0 wrote them"
    for key, want in (("s", 1), ("a", 2), ("arr", [3])):
        found = extract(metadata, value, VariantPath.parse(f"$.{key}"))
        assert found is not None and found.to_python() == want, f"Should find {key!r} by scanning"


def test_fields_of_an_object_written_by_duckdb_are_found() -> None:
    """Whatever order the installed DuckDB writes fields in, every one is found."""
    import duckdb

    rows = duckdb.sql(
        "SELECT variant_to_parquet_variant({'s': 1, 'a': 2, 'arr': [3]}::VARIANT)::STRUCT(metadata BLOB, value BLOB) AS v"
    ).fetchall()
    metadata, value = rows[0][0]["metadata"], rows[0][0]["value"]
    for key, want in (("s", 1), ("a", 2), ("arr", [3])):
        found = extract(metadata, value, VariantPath.parse(f"$.{key}"))
        assert found is not None and found.to_python() == want, f"Should find {key!r}"
