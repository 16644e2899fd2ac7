"""Spark's ``to_json`` of structs, arrays and maps on the DuckDB engine, checked against PySpark.

One small table holds a column of every type Spark's JSON writer prints differently: integers,
booleans, doubles and floats (NaN, infinities, -0.0, exponents), decimals (Java's
``BigDecimal.toString``: ``1E-8``, ``0E-8``), strings needing Jackson's escapes, binaries (base64),
dates and timestamps in far years, at daylight-saving changes and in local mean time, timestamps
without zone, and JSON text for variants inside. Each batch of calls is one query, run on PySpark
(the oracle) and through vpush on both engines in UTC and in a zone with daylight saving and local
mean time; names, types and values must agree exactly, or both raise the same error class.
"""
from __future__ import annotations

import datetime
import decimal
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_spark_functions import _answer, _answers_in_zone, _chunks, _vpush_run

import vpush
from support.compare import assert_error_as_spark

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

D = decimal.Decimal
UTC = datetime.timezone.utc


def _instant(*fields: int) -> datetime.datetime:
    return datetime.datetime(*fields, tzinfo=UTC)  # type: ignore[misc]


TABLE = pa.table({
    "i": pa.array([1, None, -7, 2147483647, 0, 5, -2147483648, 42], pa.int32()),
    "b": pa.array([10, -3, None, 9223372036854775807, 0, -9223372036854775808, 7, 1], pa.int64()),
    "y": pa.array([1, -128, 127, None, 0, 5, 6, 7], pa.int8()),
    "s": pa.array([1, 2, 3, 4, 5, 6, None, -32768], pa.int16()),
    "bo": pa.array([True, False, None, True, False, True, True, False]),
    "f": pa.array([1.5, math.nan, math.inf, -math.inf, -0.0, 1e20, 1e-5, None], pa.float64()),
    "r": pa.array([0.1, 1e10, math.nan, None, 3.4028235e38, -0.0, 1.1, 1e-5], pa.float32()),
    "d": pa.array([D("1.25"), D("-3.10"), None, D("99999999.99"), D("0.05"), D("-0.50"), D("0.00"), D("100.00")],
                  pa.decimal128(10, 2)),
    "e": pa.array([D("0.0000000100"), D("0E-10"), D("-0.0000001234"), D("0.000001"), D("1234567890.0000000001"), None,
                   D("1E-10"), D("0.5")], pa.decimal128(20, 10)),
    "g": pa.array(['a"b\\c', "x\n\t\u0001\u001f\u007f", "é😀\u2028/", "", None, "<>&'", "\b\f\r", "plain"]),
    "bn": pa.array([b"", b"\x01\x02\xff", b"a", b"ab", b"abc", None, b"\x00" * 7, b"hello world"], pa.binary()),
    "day": pa.array([19723, -719_893, None, 2_932_897, -25_567, 0, -141_428, 19_792], pa.int32()).cast(pa.date32()),
    "ts": pa.array(
        [_instant(2024, 1, 2, 3, 4, 5, 123456), _instant(2024, 3, 10, 10, 30), _instant(2024, 11, 3, 8, 59, 59, 999999),
         None, _instant(1883, 11, 18, 12), _instant(1, 1, 1), _instant(9999, 12, 31, 23, 59, 59), _instant(1970, 1, 1)],
        pa.timestamp("us", tz="UTC"),
    ),
    "nt": pa.array(
        [datetime.datetime(2024, 1, 2, 3, 4, 5, 500000), None, datetime.datetime(1, 1, 1), datetime.datetime(2024, 3, 10, 2, 30),
         datetime.datetime(9999, 12, 31, 23, 59, 59, 999999), datetime.datetime(1969, 12, 31, 23, 59, 59, 1),
         datetime.datetime(2000, 2, 29), datetime.datetime(1582, 10, 10)],
        pa.timestamp("us"),
    ),
    # maps keyed by types map() does not build on DuckDB
    "mf": pa.array([[(1.5, 1), (-0.0, 2), (1e20, None)], None, [], [(math.nan, 3)], [(1e-5, 4)], [(0.1, 5)], [(2.0, 6)],
                    [(-math.inf, 7)]], pa.map_(pa.float64(), pa.int32())),
    "mt": pa.array([[(_instant(2024, 1, 1), "a")], [(_instant(1, 1, 1), None)], None, [], [(_instant(1969, 12, 31), "x")],
                    [(_instant(2024, 3, 10, 10, 30), "y")], [(_instant(1970, 1, 1, 0, 0, 0, 1), "z")], [(_instant(9999, 1, 1), "w")]],
                   pa.map_(pa.timestamp("us", tz="UTC"), pa.string())),
    "md": pa.array([[(D("1.50"), 1.5)], [(D("0.00"), None)], [(D("-3.25"), 2.0)], None, [], [(D("100.00"), 1e-7)],
                    [(D("0.01"), -0.0)], [(D("1.00"), 3.0)]], pa.map_(pa.decimal128(10, 2), pa.float32())),
    "mr": pa.array([[(0.1, "a")], None, [(1e10, "b")], [(-0.0, "c")], [], [(3.4028235e38, "d")], [(1.1, None)], [(1e-5, "e")]],
                   pa.map_(pa.float32(), pa.string())),
    "j": pa.array(['{"b":1,"a":[1,2.50,null]}', "null", None, '"x\\n"', "1e400", '{"z":{}}', "[]", "-0.0"]),
})

CALLS = [
    "to_json(named_struct('i', i, 'b', b, 'y', y, 's', s, 'bo', bo))",
    "to_json(named_struct('f', f, 'r', r))",
    "to_json(named_struct('d', d, 'e', e))",
    "to_json(named_struct('g', g, 'bn', bn))",
    "to_json(named_struct('day', day, 'ts', ts, 'nt', nt))",
    "to_json(struct(i, g))",
    "to_json(named_struct('a b', i, 'c\\\\d', g, 'é\"', bo))",
    "to_json(array(f, f * 2))",
    "to_json(array(g, NULL, g))",
    "to_json(array(day, day))",
    "to_json(array(ts))",
    "to_json(array(nt))",
    "to_json(array(d, d))",
    "to_json(array(r))",
    "to_json(array(bn))",
    "to_json(array(array(i), NULL))",
    "to_json(if(i > 0, named_struct('a', i), NULL))",
    "to_json(if(i > 0, array(i), NULL))",
    "to_json(map(coalesce(g, 'z'), i))",
    "to_json(map(coalesce(i, 0), g))",
    "to_json(map(coalesce(day, DATE'2024-01-01'), i))",
    "to_json(mf)", "to_json(mt)", "to_json(md)", "to_json(mr)", "to_json(named_struct('mf', mf, 'mt', mt))",
    "to_json(array(md, md))",
    "to_json(map(coalesce(bo, true), i))",
    "to_json(map(coalesce(b, 0L), named_struct('x', g)))",
    "to_json(map('k', array(i), 'j', NULL))",
    "to_json(named_struct('a', array(named_struct('x', i, 'y', array(g))), 'm', map('k', named_struct('z', f, 'w', ts))))",
    "to_json(array(named_struct('a', i, 'b', array(named_struct('c', g, 'd', d)))))",
    "to_json(named_struct('v', try_parse_json(j), 'i', i))",
    "to_json(array(try_parse_json(j), NULL))",
    "to_json(map('k', try_parse_json(j)))",
    "to_json(named_struct('n', named_struct('m', named_struct('o', CAST(NULL AS STRING)))))",
    "to_json(named_struct('i', i, 'g', g, 'a', array(i), 'm', map('k', i), 'n', named_struct('x', g)), map('ignoreNullFields', 'false'))",
    "to_json(array(named_struct('i', i)), map('IGNORENULLFIELDS', 'FALSE'))", "to_json(named_struct('i', i), map('ignoreNullFields', 'true'))",
]

ZONES = ["UTC", "America/Los_Angeles"]


@pytest.fixture(scope="module")
def table_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("json") / "z"
    folder.mkdir()
    pq.write_table(TABLE, folder / "part-0.parquet")
    return folder


def _answers(spark: SparkSession, folder: Path, zone: str, sql: str) -> tuple[Any, Any, Any]:
    """Spark's answer to ``sql`` over ``folder`` as table ``z`` in the session time zone ``zone``,
    and vpush's on the DuckDB and Spark engines in that zone."""
    expected, duckdb_answer = _answers_in_zone(spark, folder, zone, sql)
    connection = vpush.connect(engine="spark", spark=spark, time_zone=zone)
    connection.register("z", folder)
    return expected, duckdb_answer, _answer(_vpush_run(connection), sql, set())


def _assert_same(calls: list[str], expected: Any, got: Any) -> None:
    if got != expected and "error" not in (got[0], expected[0]):
        for k, call in enumerate(calls):  # name the first call that differs
            assert (got[0][k], sorted((r[k] for r in got[1]), key=repr)) == (
                expected[0][k], sorted((r[k] for r in expected[1]), key=repr)), call
    assert got == expected


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize("calls", _chunks(CALLS, 12))
def test_to_json_as_spark(calls: list[str], zone: str, spark: SparkSession, table_folder: Path) -> None:
    expected, duckdb_answer, spark_engine_answer = _answers(spark, table_folder, zone, f"SELECT {', '.join(calls)} FROM z")
    assert expected[0] != "error"
    _assert_same(calls, expected, duckdb_answer)
    _assert_same(calls, expected, spark_engine_answer)


@pytest.mark.parametrize(
    ("call", "error_class"),
    [("to_json(i)", "DATATYPE_MISMATCH.INVALID_JSON_SCHEMA"), ("to_json(g)", "DATATYPE_MISMATCH.INVALID_JSON_SCHEMA"),
     ("to_json(map(g, i))", "NULL_MAP_KEY"), ("schema_of_json(g)", "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT")],
)
def test_to_json_raises_as_spark(call: str, error_class: str, spark: SparkSession, table_folder: Path) -> None:
    spark.read.parquet(str(table_folder)).createOrReplaceTempView("z")
    for engine in ("duckdb", "spark"):
        connection = vpush.connect(engine=engine, spark=spark if engine == "spark" else None, time_zone="UTC")
        connection.register("z", table_folder)
        assert_error_as_spark(spark, connection, f"SELECT {call} FROM z", error_class)


@pytest.mark.parametrize(
    "call",
    ["to_json(named_struct('a', i), map('pretty', 'true'))", "to_json(named_struct('a', i), map('ignoreNullFields', 'x'))",
     "to_json(named_struct('a', i), map('ignoreNullFields', 'false', 'dateFormat', 'yyyy'))", "to_json(map(bn, i))", "to_json(map(array(i), 1))",
     "to_json(named_struct('t', INTERVAL '1' DAY))", "to_json(named_struct('', i))", "to_json(named_struct('a', i, 'A', i))"],
)
def test_to_json_refused_on_duckdb(call: str, table_folder: Path) -> None:
    """Options, and values Spark prints as the JVM's object text, are refused rather than
    printed differently (the Spark engine runs them)."""
    connection = vpush.connect(time_zone="UTC")
    connection.register("z", table_folder)
    with pytest.raises(vpush.VpushError) as raised:
        connection.sql(f"SELECT {call} FROM z").to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"


SCHEMA_TEXTS = [
    '{"b":1,"a":2}', '{"a":null}', '{"a":[]}', "[1, 1.5]", "[true, 1]", '{"a":12345678901234567890}', '{"a b":1, "c`d":2}',
    "null", '"x"', "true", "1.5", "[]", "{}", '[{"a":1},{"b":"x"}]', '[{"a":1},2]', "[[1],[1.5]]", "[1, null]",
    '{"a":1,"a":"x"}', '{"A":1,"a":2,"_":3,"é":4}', "1e400", "[1, 12345678901234567890]", '{"a":1} x', "[1.0, 2]", "-0",
    '"2024-01-01"', ' {"a" : {"b": [{"c": NaN}, {"d": -1}]} } ', '[[], [[1]], null]', '[{"a":[1]},{"a":[null, 2.5]}]',
    "[12345678901234567890, 1.5]", '[{"a":1}, {"a":{"b":1}}]',
]


def test_schema_of_json_as_spark(spark: SparkSession, table_folder: Path) -> None:
    """Literal texts of every kind Spark's inference merges or quotes, in one query (the last
    unaliased: Spark names it after its text)."""
    calls = [f"schema_of_json('{t}') AS s{k}" for k, t in enumerate(SCHEMA_TEXTS)] + ["schema_of_json('[1, {\"a\": 2}]')"]
    sql = f"SELECT {', '.join(calls)} FROM z LIMIT 1"
    expected, duckdb_answer, spark_engine_answer = _answers(spark, table_folder, "UTC", sql)
    _assert_same(calls, expected, duckdb_answer)
    _assert_same(calls, expected, spark_engine_answer)
