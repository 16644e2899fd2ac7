"""Spark's variant functions on the DuckDB engine give Spark's answers, names and errors.

``to_json``, ``is_variant_null``, ``is_valid_variant``, ``schema_of_variant``, ``schema_of_variant_agg``,
``parse_json`` and ``try_parse_json`` run over one table of three files: written by Spark
(shredded), by DuckDB (shredded) and by DuckDB (not shredded), with SQL NULLs, variant nulls,
top-level scalars of every type Spark writes, nested objects and arrays, and JSON strings. Every
query runs on Spark (the oracle) over the same files and on vpush. A second table holds DuckDB's
objects with unsorted fields, which Spark prints in stored order and ``schema_of_variant`` rejects.
"""
from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest

import vpush
from support.compare import assert_error_as_spark
from support.function_table import write_function_table
from support.refused import assert_refused_on_duckdb
from support.unsorted import unsorted_variant
from vpush.codec.errors import VpushError
from vpush.codec.json import parse_json, to_json
from vpush.exec.variant_functions import (
    is_variant_null_column,
    merge_schemas,
    parse_schema,
    print_schema,
    schema_of_variant,
    to_json_column,
)
from vpush.optimizer.plan import VARIANT_ARROW_TYPE

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _write_unsorted(path: Path) -> None:
    """Objects whose fields are stored unsorted, as DuckDB 2.0.0 wrote them (2.0.1 sorts them):
    ``{b, a, c}`` in even rows, ``{z: {q}, a}`` in odd ones."""
    import pyarrow.parquet as pq

    from vpush.codec.write_variant_parquet import annotate_variant_columns

    rows = []
    for i in range(4):
        if i % 2 == 0:
            rows.append(unsorted_variant([("b", i), ("a", f"x{i}"), ("c", [i, None])]))
        else:
            inner = unsorted_variant([("q", True)], dictionary=["z", "q", "a"])[1]
            rows.append(unsorted_variant([("z", inner), ("a", 1)], dictionary=["z", "q", "a"]))
    layout = pa.struct([pa.field("metadata", pa.binary(), nullable=False), pa.field("value", pa.binary(), nullable=False)])
    v = pa.array([{"metadata": m, "value": b} for m, b in rows], layout)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": pa.array(range(4), pa.int64()), "v": v}), path)
    annotate_variant_columns(path, ["v"])


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory, spark: SparkSession) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("functions")
    folder = write_function_table(spark, root)
    _write_unsorted(root / "u" / "part-0.parquet")
    spark.read.parquet(str(root / "u")).createOrReplaceTempView("u")
    return {"t": folder, "u": root / "u"}


@pytest.fixture(scope="module")
def con(tables: dict[str, Path]) -> vpush.Connection:
    connection = vpush.connect(time_zone="UTC")
    for name, folder in tables.items():
        connection.register(name, folder)
    return connection


def _normal(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"metadata", "value"}:
        return None if value["value"] is None else ("variant", to_json(value["metadata"], value["value"]))
    if hasattr(value, "metadata") and hasattr(value, "value"):  # Spark's VariantVal
        return ("variant", to_json(bytes(value.metadata), bytes(value.value)))
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.timezone.utc)
    return value


def _sorted(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return sorted(rows, key=repr)


def _vpush_rows(table: pa.Table) -> list[tuple[Any, ...]]:
    return _sorted([tuple(_normal(v) for v in row.values()) for row in table.to_pylist()])


def _spark_rows(spark: SparkSession, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    frame = spark.sql(sql)
    return frame.columns, _sorted([tuple(_normal(v) for v in row) for row in frame.collect()])


QUERIES = [
    # SQL NULL, variant null, top-level scalars, objects and arrays; scan-placed extractions
    "SELECT id, to_json(v), is_variant_null(v), schema_of_variant(v) FROM t",
    "SELECT id, to_json(v:a), is_variant_null(v:a), schema_of_variant(v:o), to_json(v:o.y) FROM t",
    "SELECT id, to_json(variant_get(v, '$.o.y', 'variant')), is_variant_null(variant_get(v, '$.a')), "
    "schema_of_variant(v:arr[3]) FROM t",
    # aggregates, grouped and not, with NULL and absent inputs
    "SELECT schema_of_variant_agg(v), schema_of_variant_agg(v:o), schema_of_variant_agg(v:missing) FROM t",
    "SELECT id % 3 AS g, schema_of_variant_agg(v:a) AS a, schema_of_variant_agg(v) AS s FROM t GROUP BY id % 3",
    "SELECT schema_of_variant_agg(v) FROM t WHERE id < 0",
    # parse_json: valid, invalid (try_), NULL; nested with extractions and to_json
    "SELECT id, try_parse_json(j), to_json(try_parse_json(j)), try_variant_get(try_parse_json(j), '$.x', 'int') FROM t",
    "SELECT id, variant_get(parse_json(j), '$.y[0]', 'int') AS y, schema_of_variant(parse_json(j)) FROM t WHERE id % 5 = 0",
    # in WHERE, GROUP BY, ORDER BY, under other functions, over a subquery's column
    "SELECT id FROM t WHERE is_variant_null(v:a) OR is_variant_null(v)",
    "SELECT to_json(v:s) AS s, count(*) AS n FROM t GROUP BY to_json(v:s)",
    "SELECT id, upper(to_json(v:o)), concat(to_json(v), '!') FROM t",
    "SELECT id, to_json(x), schema_of_variant(x) FROM (SELECT id, v:o AS x FROM t)",
    "SELECT id, schema_of_variant(parse_json(to_json(v))), to_json(parse_json(to_json(v))) = to_json(v) FROM t",
    "SELECT is_variant_null(NULL), to_json(parse_json('[1, {\"b\": 2, \"a\": 1.0e0}]'))",
    # DuckDB's objects with unsorted fields print in stored order (and are valid to Spark)
    "SELECT id, to_json(v), is_variant_null(v), is_valid_variant(v) FROM u",
    # is_valid_variant over Spark's and DuckDB's files, shredded and not, whole and extracted
    "SELECT id, is_valid_variant(v), is_valid_variant(v:o), is_valid_variant(v:o.y[1]), is_valid_variant(try_parse_json(j)) FROM t",
]


@pytest.mark.parametrize("sql", QUERIES)
def test_same_answer_and_names_as_spark(spark: SparkSession, con: vpush.Connection, sql: str) -> None:
    names, want = _spark_rows(spark, sql)
    got = con.sql(sql).to_arrow()
    assert got.column_names == names
    assert _vpush_rows(got) == want


@pytest.mark.parametrize("time_zone", ["America/Los_Angeles", "Asia/Kathmandu"])
def test_to_json_in_the_session_time_zone(spark: SparkSession, tables: dict[str, Path], time_zone: str) -> None:
    sql = "SELECT id, to_json(v), to_json(v:ts) FROM t"
    previous = spark.conf.get("spark.sql.session.timeZone") or "UTC"
    spark.conf.set("spark.sql.session.timeZone", time_zone)
    try:
        _, want = _spark_rows(spark, sql)
    finally:
        spark.conf.set("spark.sql.session.timeZone", previous)
    connection = vpush.connect(time_zone=time_zone)
    connection.register("t", tables["t"])
    assert _vpush_rows(connection.sql(sql).to_arrow()) == want


def test_window_and_filter_names(spark: SparkSession, con: vpush.Connection) -> None:
    sql = "SELECT id, schema_of_variant_agg(v:a) OVER (PARTITION BY id % 2 ORDER BY id) FROM t WHERE id < 20"
    names, want = _spark_rows(spark, sql)
    got = con.sql(sql).to_arrow()
    assert got.column_names == names
    assert _vpush_rows(got) == want
    sql = "SELECT schema_of_variant_agg(v) FILTER (WHERE id > 100), schema_of_variant_agg(v:o) FILTER (WHERE id < 9) FROM t"
    names, want = _spark_rows(spark, sql)
    got = con.sql(sql).to_arrow()
    assert got.column_names == names
    assert _vpush_rows(got) == want


@pytest.mark.parametrize(
    ("sql", "error_class"),
    [
        ("SELECT parse_json(j) FROM t", "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION"),
        ("SELECT schema_of_variant(v) FROM u", "MALFORMED_VARIANT"),
        ("SELECT schema_of_variant_agg(v) FROM u", "MALFORMED_VARIANT"),
        ("SELECT is_variant_null(id) FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
        ("SELECT schema_of_variant(j) FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
        ("SELECT to_json(j) FROM t", "DATATYPE_MISMATCH.INVALID_JSON_SCHEMA"),
        ("SELECT to_json() FROM t", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
        ("SELECT to_json(v, map('a', 'b'), 1) FROM t", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
        ("SELECT variant_get(id, '$.a', 'int') FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
        ("SELECT try_variant_get(j, '$.a') FROM t", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
        ("SELECT no_such_function(id) FROM t", "UNRESOLVED_ROUTINE"),
        ("SELECT my.catalog_fn(v) FROM t", "UNRESOLVED_ROUTINE"),
    ],
)
def test_errors_are_sparks(spark: SparkSession, con: vpush.Connection, sql: str, error_class: str) -> None:
    assert_error_as_spark(spark, con, sql, error_class)


@pytest.mark.parametrize(
    "call", ["variant_get(v, concat('$.', 'a'), 'int')", "try_variant_get(v, '$.a', concat('in', 't'))"]
)
def test_a_computed_path_or_type_is_refused(con: vpush.Connection, call: str) -> None:
    """Spark computes them per row; the DuckDB engine plans each extraction from its literals."""
    assert_refused_on_duckdb(con, call)


def test_not_supported_yet(con: vpush.Connection) -> None:
    for sql in ("SELECT to_variant_object(named_struct('a', id, 'A', 2)) FROM t",):
        with pytest.raises(VpushError, match="not supported"):
            con.sql(sql).to_arrow()


def test_show_and_df_render_variants_as_to_json(con: vpush.Connection) -> None:
    frame = con.sql("SELECT id, v FROM t WHERE id IN (1, 2, 9) ORDER BY id").df()
    assert frame["v"].tolist()[0] == "null"
    assert frame["v"].tolist()[1].startswith('{"a":2,"o":{"x":2,"y":[1,2.5,"z",null]}')
    assert frame["v"].isna().tolist() == [False, False, True], "a SQL NULL stays missing"


# -- the functions themselves, without Spark ------------------------------------------------------
def _variants(texts: list[str | None]) -> pa.StructArray:
    parsed = [None if t is None else parse_json(t) for t in texts]
    return pa.StructArray.from_arrays(
        [pa.array([p[0] if p else None for p in parsed], pa.binary()), pa.array([p[1] if p else None for p in parsed], pa.binary())],
        fields=list(VARIANT_ARROW_TYPE),
        mask=pa.array([p is None for p in parsed]),
    )


def test_is_variant_null_and_to_json_columns() -> None:
    variants = _variants(["null", None, '"null"', "{}"])
    assert is_variant_null_column(variants).to_pylist() == [True, False, False, False]
    assert to_json_column(variants, "UTC").to_pylist() == ["null", None, '"null"', "{}"]
    empty = pa.StructArray.from_arrays([pa.array([b"\x01\x00\x00"]), pa.array([b""])], fields=list(VARIANT_ARROW_TYPE))
    with pytest.raises(VpushError) as error:
        is_variant_null_column(empty)
    assert error.value.error_class == "MALFORMED_VARIANT"


def test_to_json_rejects_what_spark_cannot_read() -> None:
    time_of_day = bytes([17 << 2]) + (3_600_000_000).to_bytes(8, "little")
    variants = pa.StructArray.from_arrays([pa.array([b"\x01\x00\x00"]), pa.array([time_of_day])], fields=list(VARIANT_ARROW_TYPE))
    with pytest.raises(VpushError) as error:
        to_json_column(variants, "UTC")
    assert error.value.error_class == "UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT"


# What Spark 4.3 answers for schema_of_variant(parse_json(text)), measured with PySpark.
SCHEMAS = [
    ("1.50", "DECIMAL(2,1)"), ("100.0", "DECIMAL(3,0)"), ("0.00", "DECIMAL(1,0)"), ("0.01", "DECIMAL(2,2)"),
    ("-0.0", "DECIMAL(1,0)"), ("1E2", "DOUBLE"), ("12345678901234567890", "DECIMAL(20,0)"),
    ("[1, 1.5]", "ARRAY<DECIMAL(21,1)>"), ("[1.5, 1e2]", "ARRAY<DOUBLE>"), ("[]", "ARRAY<VOID>"), ("{}", "OBJECT<>"),
    ("[null, 1]", "ARRAY<BIGINT>"), ('{"b":1,"a":2}', "OBJECT<a: BIGINT, b: BIGINT>"),
    ('{"a b": 1, "1a": 2, "123": 3, "x`y": 4, "": 5, "_": 6, "é": 7, "A": 8, "a.b": 9}',
     "OBJECT<``: BIGINT, `123`: BIGINT, `1a`: BIGINT, A: BIGINT, _: BIGINT, `a b`: BIGINT, `a.b`: BIGINT, "
     "`x``y`: BIGINT, `é`: BIGINT>"),
    ("[1, true]", "ARRAY<VARIANT>"), ('[[1], [1.5]]', "ARRAY<ARRAY<DECIMAL(21,1)>>"),
    ('[{"a":1}, {"A":2}]', "ARRAY<OBJECT<a: BIGINT>>"), ('[{"A":1}, {"a":2}]', "ARRAY<OBJECT<A: BIGINT>>"),
    ('[{"a":1}, {"A":"x"}]', "ARRAY<OBJECT<A: STRING, a: BIGINT>>"),
    ('[{"a":1,"b":2}, {"A":1,"c":2}]', "ARRAY<OBJECT<A: BIGINT, a: BIGINT, b: BIGINT, c: BIGINT>>"),
    ("[12345678901234567890123456789012345678, 0.5]", "ARRAY<DOUBLE>"), ("[1, 123456789012345678901.5]", "ARRAY<DECIMAL(22,1)>"),
    ("[[1,2],[[1]]]", "ARRAY<ARRAY<VARIANT>>"), ('[{"a":[1]}, {"a":[1.5]}]', "ARRAY<OBJECT<a: ARRAY<DECIMAL(21,1)>>>"),
    ('"x"', "STRING"), ("true", "BOOLEAN"), ("null", "VOID"), ("[1, 12345678901234567890]", "ARRAY<DECIMAL(20,0)>"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "schema"), SCHEMAS)
def test_schema_of_variant_as_spark_prints_it(text: str, schema: str) -> None:
    found = schema_of_variant(*parse_json(text))
    assert print_schema(found) == schema
    assert parse_schema(schema) == found, "the printed schema reads back"


# What Spark 4.3's schema_of_variant_agg answers over two typed variants (PySpark).
MERGES = [
    ("FLOAT", "DOUBLE", "DOUBLE"), ("FLOAT", "BIGINT", "FLOAT"), ("FLOAT", ("DECIMAL", 3, 2), "DOUBLE"),
    ("DOUBLE", ("DECIMAL", 3, 2), "DOUBLE"), ("DATE", "TIMESTAMP", "TIMESTAMP"), ("DATE", "TIMESTAMP_NTZ", "TIMESTAMP_NTZ"),
    ("TIMESTAMP", "TIMESTAMP_NTZ", "TIMESTAMP"), ("DATE", "BIGINT", "VARIANT"), ("BINARY", "STRING", "VARIANT"),
    (("DECIMAL", 3, 2), "BIGINT", "DECIMAL(22,2)"), ("FLOAT", "DATE", "VARIANT"), ("VOID", "UUID", "UUID"),
]  # fmt: skip


@pytest.mark.parametrize(("a", "b", "merged"), MERGES)
def test_merge_as_spark(a: Any, b: Any, merged: str) -> None:
    assert print_schema(merge_schemas(a, b)) == merged
    assert print_schema(merge_schemas(b, a)) == merged


# -- the compiled schema_of_variant against the Python reference -----------------------------------
sys.path.insert(0, str(Path(__file__).parent.parent / "codec"))
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from strategies import values  # noqa: E402

from vpush.codec.builder import encode  # noqa: E402
from vpush.codec.errors import MalformedVariantError  # noqa: E402
from vpush.codec.native import NativeUnsupportedError, schema_of_variant_native  # noqa: E402

_mergeable_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False),
    st.decimals(allow_nan=False, allow_infinity=False, places=3, min_value=-(10**30), max_value=10**30),
    st.dates(), st.datetimes(), st.datetimes(timezones=st.just(dt.timezone.utc)), st.text(max_size=3),
)  # fmt: skip
_mergeable = st.recursive(
    _mergeable_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.sampled_from(["a", "A", "b", "é", "É", "c"]), children, max_size=3)
    ),
    max_leaves=12,
)
"""Values whose arrays mix the types Spark's merge widens: numbers, dates and times, and objects
with keys that differ only in case."""


def _python_schema(metadata: bytes, value: bytes) -> Any:
    try:
        return print_schema(schema_of_variant(metadata, value))
    except MalformedVariantError:
        return ("error", "malformed")
    except VpushError as exc:
        return ("error", exc.error_class)


def _native_schema(rows: list[tuple[bytes, bytes]]) -> list[Any] | None:
    """The kernel's schemas row by row (None where it leaves the batch to Python)."""
    out: list[Any] = []
    for metadata, value in rows:
        try:
            out.append(schema_of_variant_native(pa.array([metadata]), pa.array([value]))[0].as_py())
        except NativeUnsupportedError:
            return None
        except MalformedVariantError:
            out.append(("error", "malformed"))
        except VpushError as exc:
            out.append(("error", exc.error_class))
    return out


@given(st.lists(st.one_of(values, st.lists(_mergeable, max_size=5)).map(encode), min_size=1, max_size=4))
def test_compiled_schema_matches_reference(rows: list[tuple[bytes, bytes]]) -> None:
    from vpush.exec.variant_functions import schema_of_variant_column

    want = [_python_schema(m, v) for m, v in rows]
    got = _native_schema(rows)
    if got is not None:
        assert got == want
    if all(isinstance(w, str) for w in want):  # the whole column, by the kernel or by Python
        column = pa.StructArray.from_arrays(
            [pa.array([m for m, _ in rows]), pa.array([v for _, v in rows])], fields=list(VARIANT_ARROW_TYPE)
        )
        assert schema_of_variant_column(column).to_pylist() == want


def test_compiled_schema_corruption_fuzz() -> None:
    import random

    rng = random.Random(20260202)
    base = [encode([{"a": 1, "b": [1.5, None]}, {"a": 2.5, "c": "x"}]), encode({"k": [1, 2**40], "z": {"q": True}})]
    outcomes = {"ok": 0, "error": 0}
    for case in range(1500):
        metadata, value = base[case % 2]
        damage_value = rng.random() < 0.8
        raw = bytearray(value if damage_value else metadata)
        for _ in range(rng.randint(1, 3)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        if rng.random() < 0.2:
            del raw[rng.randrange(len(raw) + 1) :]
        row = (metadata, bytes(raw)) if damage_value else (bytes(raw), value)
        want = _python_schema(*row)
        assert _native_schema([row]) in ([want], None), f"case {case}: the kernel raises where the reference raises"
        outcomes["error" if isinstance(want, tuple) else "ok"] += 1
    assert outcomes["ok"] > 100 and outcomes["error"] > 100, outcomes
