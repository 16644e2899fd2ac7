"""Spark's array functions on the DuckDB engine, each checked against PySpark on both engines.

The calls run over a Parquet file of arrays holding NULLs, NaNs, both zeros, empty and NULL
arrays (``vpush.optimizer.spark_arrays`` does the rewriting); the checks are those of
``tests/test_spark_functions.py``: names, types and values must agree exactly.
"""
from __future__ import annotations

import decimal
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_spark_functions import _assert_raises_as_spark, _check, _chunks

import vpush
from support.refused import assert_refused_on_duckdb
from support.tables import register_views, table_fixtures
from support.writers import write_with_spark
from vpush.codec.errors import VpushError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

D = decimal.Decimal
NAN = float("nan")

TABLE = pa.table(
    {
        "a": pa.array([[1, 2, None, 2, 1], [], None, [3], [None], [5, 4, 5]], pa.list_(pa.int32())),
        "b": pa.array([[2, 3], [1], [1], None, [None, 3], []], pa.list_(pa.int32())),
        "l": pa.array([[1, 5], [2], None, [], [7, None], [1]], pa.list_(pa.int64())),
        "f": pa.array([[0.0, -0.0, NAN, NAN, None, 1.0], [-0.0, 0.0], [], None, [2.5, -1.0, -0.0], [NAN]], pa.list_(pa.float64())),
        "g": pa.array([["b", "a", None, "b"], [], None, ["é", "z", "A"], [None], ["x"]], pa.list_(pa.string())),
        "nest": pa.array([[[1, 2], [3]], [[1], None], None, [], [[None]], [[4], [5, 6]]], pa.list_(pa.list_(pa.int32()))),
        "dt": pa.array([[19723, None, 19000, 19723], [], None, [0], [None], [20000, 1]], pa.list_(pa.int32())).cast(pa.list_(pa.date32())),
        "ts": pa.array([[1_700_000_000_000_000, None, 0, 1_700_000_000_000_000], [], None, [5], [None], [-5, 7]],
                       pa.list_(pa.int64())).cast(pa.list_(pa.timestamp("us", tz="UTC"))),
        "dec": pa.array([[D("1.50"), D("-0.25"), None, D("1.5")], [], None, [D("0.00")], [None], [D("9.99"), D("-9.99")]],
                        pa.list_(pa.decimal128(5, 2))),
        "bo": pa.array([[True, None, False, True], [], None, [False], [None], [True]], pa.list_(pa.bool_())),
        "i": pa.array([1, 2, None, 5, 0, -1], pa.int32()),
        "n": pa.array([3, 0, -1, None, 2, 1], pa.int32()),
        "s": pa.array(["a", "b", None, "z", "x", ""]),
    }
)

CALLS = [
    # distinct elements in the order of their first occurrence, one NULL kept; NaN equals NaN, -0.0 equals 0.0
    "array_distinct(a)", "array_distinct(f)", "array_distinct(g)", "array_distinct(l)",
    "array_join(g, ',')", "array_join(g, '-', 'null')", "array_join(a, '+')", "array_join(g, ',', s)",
    "array_join(l, '')",
    # NULLs first ascending, last descending; equal zeros keep their order (a stable sort)
    "sort_array(a)", "sort_array(a, false)", "sort_array(f)", "sort_array(f, false)", "sort_array(g)", "sort_array(g, false)",
    "sort_array(l, true)", "array_sort(a)", "array_sort(f)", "array_sort(g)",
    "array_max(a)", "array_min(a)", "array_max(f)", "array_min(f)", "array_max(g)", "array_min(g)",
    "array_position(a, 2)", "array_position(a, i)", "array_position(g, s)", "array_position(f, 0.0D) AS p", "array_position(l, i)",
    "array_position(a, NULL)", "array_position(f, double('NaN')) AS q",
    "array_remove(a, 2)", "array_remove(a, i)", "array_remove(f, double('NaN')) AS r", "array_remove(g, s)", "array_remove(l, 1)",
    "array_remove(f, -0.0D) AS z",
    "array_union(a, b)", "array_union(f, f)", "array_union(a, l)", "array_union(g, array(s))", "array_union(b, a)",
    "array_intersect(a, b)", "array_intersect(f, array(-0.0D, double('NaN'), NULL)) AS fi", "array_intersect(b, a)",
    "array_intersect(g, array('b', NULL))", "array_except(a, b)", "array_except(b, a)", "array_except(f, array(0.0D)) AS fe",
    "array_except(l, a)",
    "arrays_overlap(a, b)", "arrays_overlap(b, array(3))", "arrays_overlap(a, array(NULL, 9))", "arrays_overlap(g, array(s))",
    "arrays_overlap(f, array(-0.0D)) AS o",
    "flatten(nest)", "flatten(array(a, b))", "flatten(array(g))",
    "slice(a, 2, 2)", "slice(a, -2, 5)", "slice(a, -1, 2)", "slice(g, 2, 10)", "slice(a, 9, 1)", "slice(a, -9, 1)",
    "slice(nest, 1, 1)", "slice(a, if(i = 0, NULL, i), 2)", "slice(a, 1, 0)",
    "array_compact(a)", "array_compact(g)", "array_compact(nest)",
    "array_append(a, 7)", "array_append(a, i)", "array_append(a, NULL)", "array_append(l, i)", "array_append(g, s)",
    "array_prepend(a, 7)", "array_prepend(g, s)", "array_prepend(nest, a)", "array_prepend(a, NULL)",
    "array_repeat(s, 2)", "array_repeat(i, n)", "array_repeat(a, 2)", "array_repeat(g, 0)",
    # Spark's three-valued exists and forall; lambdas with an index from 0, capturing columns
    "exists(a, x -> x > 1)", "exists(a, x -> x > 4)", "forall(a, x -> x > 0)", "forall(g, x -> x != 'b')",
    "exists(f, x -> x = 0)", "forall(b, x -> x IS NOT NULL)",
    "transform(a, x -> x + 1)", "transform(a, (x, i) -> x + i)", "transform(g, x -> concat(x, '!'))",
    "transform(a, x -> x * 1.5)", "transform(f, x -> x / 2)", "transform(nest, y -> size(y))", "transform(a, x -> x + i)",
    "transform(g, (x, k) -> k)", "transform(a, x -> array(x, n))",
    "filter(a, (x, k) -> k > 1)", "filter(g, x -> x IS NOT NULL)",
    "aggregate(b, 0, (acc, x) -> acc + x)", "aggregate(a, 0, (acc, x) -> acc + x, acc -> acc * 2)",
    "reduce(l, 0L, (acc, x) -> acc + x) AS rl", "aggregate(g, '', (acc, x) -> concat(acc, x))",
    "aggregate(b, i, (acc, x) -> acc * 10 + x)", "reduce(a, 0, (acc, x) -> acc + coalesce(x, 100), acc -> acc - 1)",
    "sequence(1, n)", "sequence(n, 1)", "sequence(1, 10, 3)", "sequence(i, 5)", "sequence(n, 5, 2)", "sequence(10, 1, -4)",
    "sequence(1L, 3L) AS sl", "sequence(n, n, 0)",
    "array_insert(a, 1, 9)", "array_insert(a, -1, 9)", "array_insert(a, 8, 9)", "array_insert(a, -8, 9)",
    # nested lambdas, a variable named as a column, floats
    "transform(nest, y -> transform(y, x -> x + 1))", "transform(a, i -> i + 1)", "filter(nest, y -> exists(y, x -> x > 2))",
    "aggregate(nest, 0, (acc, y) -> acc + size(y))", "transform(a, x -> aggregate(b, x, (acc, y) -> acc + y))",
    "array_distinct(transform(f, x -> float(x))) AS df", "sort_array(transform(f, x -> float(x)), false) AS sf",
    "array_union(transform(f, x -> float(x)), array(float(-0.0))) AS uf", "size(a)", "array_contains(a, 2)",
    # dates, timestamps, decimals and booleans
    "array_distinct(dt)", "sort_array(dt, false)", "array_sort(ts)", "array_max(ts)", "array_min(dt)", "array_distinct(dec)",
    "sort_array(dec)", "array_position(dec, CAST(1.5 AS DECIMAL(5,2))) AS pd", "array_union(bo, array(false))", "array_remove(bo, true)",
    "array_intersect(dt, array(DATE '2024-01-01'))", "exists(bo, x -> x)", "forall(bo, x -> x)", "array_compact(ts)",
    # arguments that are expressions (computed once per row inside DuckDB's lambdas)
    "array_union(array_distinct(a), transform(b, x -> x + 1))", "array_intersect(transform(a, x -> x), array_compact(b))",
    "array_except(slice(a, 1, 3), array(2))", "arrays_overlap(a, transform(b, x -> x + 1))",
    "array_join(g, NULL)", "slice(a, 1, NULL)", "slice(a, NULL, 1)", "array_repeat(s, NULL)", "array_append(nest, NULL)",
    "array_remove(a, NULL)", "flatten(array(array(1), NULL))",
    "sort_array(transform(f, x -> x * 2), false)", "array_distinct(transform(f, x -> x * 2))", "array_repeat(concat(s, 'x'), 2)",
    "array_insert(a, 3, NULL)", "array_insert(g, -2, s)", "array_insert(l, 2, i)", "array_insert(a, n + 2, 5)",
    # maps' entries in the map's order; zipped arrays as long as the longest, fields named after columns
    "map_entries(map('k', i, 'j', n))", "map_entries(map('p', a, 'q', b))", "map_filter(map('x', i, 'y', n), (k, v) -> v > 1)",
    "map_filter(map('x', i, 'y', n), (k, v) -> k = 'y' OR v IS NULL)", "map_filter(map('p', g), (k, v) -> size(v) > 1)",
    "transform_values(map('x', i, 'y', n), (k, v) -> v + 1)", "transform_values(map('x', i), (k, v) -> concat(k, s))",
    "transform_values(map('p', a, 'q', b), (k, v) -> size(v))", "arrays_zip(a, b)", "arrays_zip(a, g, l)", "arrays_zip(a, array(1))",
    "arrays_zip(nest)", "arrays_zip(array(i), array(s, 'y'))", "map_concat(map('x', i), map('y', n))", "map_concat(map('x', i))",
    "map_concat(map('x', i), if(i > 1, map('z', 1), NULL))", "map_concat(map('x', a), map('y', b), map('w', a))",
    # as long as the longer array; NULL for a NULL array
    "zip_with(a, b, (x, y) -> x + y)", "zip_with(g, a, (x, y) -> concat(x, string(y)))", "zip_with(f, l, (p, q) -> p * q)",
    "zip_with(a, array(s), (x, y) -> coalesce(y, string(x)))", "zip_with(nest, b, (x, y) -> size(x) + y)",
    "zip_with(dt, ts, (x, y) -> y)",
    "transform_keys(map('x', i, 'y', n), (k, v) -> concat(k, '!'))", "transform_keys(map(1, s, 2, s), (k, v) -> k * 10)",
    "transform_keys(map('x', a), (k, v) -> coalesce(size(v), -1))", "transform_keys(map(coalesce(i, 9), n), (k, v) -> k + 100)",
    # the first map's keys in its order, then the second's that the first lacks; NULL for a NULL map
    "map_zip_with(map('x', i, 'y', n), map('y', s, 'z', s), (k, v1, v2) -> concat(k, string(v1), v2))",
    "map_zip_with(map(coalesce(i, 9), s), map(1L, n, 5L, i), (k, a1, a2) -> coalesce(a1, string(a2 + k)))",
    "map_zip_with(map('p', a), map('p', b, 'q', a), (k, x, y) -> size(x) + size(y))",
    "map_zip_with(map('x', i), if(i > 1, map('x', n), NULL), (k, v1, v2) -> v1 * v2)",
    "map_zip_with(map(DATE '2024-01-01', i), map(DATE '2024-01-01', n, DATE '2023-01-01', i), (k, v1, v2) -> datediff(k, DATE '2020-01-01') + v1)",
    "map_zip_with(map(true, s), map(false, s, true, 'b'), (k, v1, v2) -> v2)",
    # an integer beside a double: doubles
    "array_union(a, f)", "array_except(f, a)", "array_remove(f, i)",
    # arrays of arrays and structs sorted as Spark orders them (a NULL inside first; stable)
    "sort_array(nest)", "sort_array(nest, false)", "array_sort(nest)", "sort_array(arrays_zip(a, g))",
    "sort_array(arrays_zip(f, dt), false)", "sort_array(array(named_struct('x', i, 'y', s), named_struct('x', n, 'y', s)), false)",
    # arrays of arrays compared as Spark's ordering compares them (a NULL inside equal to a NULL)
    "arrays_overlap(nest, nest)", "arrays_overlap(nest, array(array(1), array(CAST(NULL AS INT))))", "array_position(nest, array(3))",
    "array_remove(nest, array(1))", "array_union(nest, array(array(1, 2), array(9)))", "array_except(nest, array(array(3)))",
    # the set functions of dates, timestamps, decimals, booleans, floats and binaries: the first
    # occurrences in order (1.50 and 1.5 one decimal; -0.0 as 0.0, one NaN)
    "array_distinct(dt)", "array_union(ts, ts)", "array_except(dec, array(CAST(1.5 AS decimal(5, 2))))", "array_intersect(bo, array(true, NULL))",
    "array_distinct(dec)", "array_union(dec, dec)", "array_distinct(bo)", "array_intersect(dt, dt)", "array_except(ts, array(TIMESTAMP'1970-01-01 00:00:00'))",
    "array_distinct(transform(f, x -> CAST(x AS float))) AS ff", "array_union(transform(f, x -> CAST(x AS float)), array(CAST(0.0 AS float))) AS fu",
    "array_distinct(transform(g, x -> CAST(x AS binary))) AS bd", "array_except(transform(g, x -> CAST(x AS binary)), array(X'61', NULL)) AS be",
    # get: 0-based, NULL outside the array (a negative index too), typed as an element
    "get(a, 0)", "get(a, 4)", "get(a, -1)", "get(a, CAST(i AS bigint))", "get(a, i * 0.5)", "get(a, '1')", "get(g, i)", "get(nest, 1)", "get(dt, n)", "typeof(get(nest, 0))",
    "get(transform(a, x -> named_struct('v', x)), 1).v AS gv",
    # of nested elements (tests/test_nested_queries.py has more)
    "array_distinct(nest)", "array_max(nest)", "array_min(nest)", "sort_array(nest, false)",
    # sequence of dates: by a day (back where the stop comes first), whole days or weeks, months (from the
    # start each time: Jan 31, Feb 29, Mar 31) or years
    "sequence(DATE '2024-01-30', DATE '2024-02-02') AS d1", "sequence(DATE '2024-02-02', DATE '2024-01-30' + i) AS d2",
    "sequence(DATE '2024-01-31' + n, DATE '2024-06-30', INTERVAL 1 MONTH) AS d3", "sequence(DATE '2024-01-01', DATE '2024-02-01', INTERVAL 1 WEEK) AS d4",
    "sequence(DATE '2024-01-05', DATE '2024-01-01', -INTERVAL 2 DAYS) AS d5", "sequence(DATE '2024-03-31', DATE '2023-11-01' + i, INTERVAL -1 MONTH) AS d6",
    "sequence(DATE '2024-01-01', DATE '2026-01-05', INTERVAL '1-1' YEAR TO MONTH) AS d7", "sequence(DATE '2020-02-29', DATE '2028-03-01', INTERVAL 2 YEARS) AS d8",
    "sequence(DATE '2024-01-01', DATE '2024-01-05', INTERVAL '2 00:00:00' DAY TO SECOND) AS d9", "sequence(DATE '2024-01-01', DATE '2024-01-03', INTERVAL 48 HOURS) AS d10",
    "sequence(DATE '2024-01-01', DATE '2025-03-05', INTERVAL 1 YEAR 1 MONTH) AS d11", "sequence(DATE '2024-01-01', DATE '2024-01-01', INTERVAL -1 MONTH) AS d12",
    "sequence(DATE '2024-01-01', if(i > 1, NULL, DATE '2024-01-03'), INTERVAL 1 MONTH) AS d13", "size(sequence(DATE '1970-01-01', DATE '5000-01-01')) AS d14",
    "typeof(sequence(DATE '2024-01-01', DATE '2024-01-05')) AS d15",
    # sequence of timestamps (the session time zone UTC: a day and a month are whole there)
    "sequence(TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-01-01 03:00:00', INTERVAL 1 HOUR) AS t1",
    "sequence(TIMESTAMP '2024-01-01 03:00:00', timestamp_seconds(1704067200L + i * 60), INTERVAL -90 MINUTES) AS t2",
    "sequence(TIMESTAMP '2024-01-01 03:00:00', TIMESTAMP '2024-01-04 00:00:00') AS t3", "sequence(TIMESTAMP '2024-01-01 03:00:00', TIMESTAMP '2024-01-01 00:00:00') AS t4",
    "sequence(TIMESTAMP '2024-01-30 23:00:00', TIMESTAMP '2024-05-01 00:00:00', INTERVAL 1 MONTH) AS t5",
    "sequence(TIMESTAMP '2024-05-01 00:00:00', TIMESTAMP '2024-01-30 23:00:00', INTERVAL -1 MONTH) AS t6",
    "sequence(TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-01-01 00:00:00', INTERVAL 0 HOUR) AS t7",
    "sequence(TIMESTAMP_NTZ '2024-01-31 12:00:00', TIMESTAMP_NTZ '2024-06-12 12:00:00', INTERVAL 1 MONTH) AS t8",
    "sequence(TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-01-03 00:00:00', INTERVAL 36 HOURS) AS t9",
    "sequence(TIMESTAMP '2024-01-01 00:00:00', if(i > 1, NULL, TIMESTAMP '2024-01-01 02:00:00'), INTERVAL 1 HOUR) AS t10",
    "typeof(sequence(TIMESTAMP_NTZ '2024-01-01 00:00:00', TIMESTAMP_NTZ '2024-01-01 00:00:01', INTERVAL 1 SECOND)) AS t11",
    # seconds with a fraction; a step of days going down keeps an element a microsecond short of the
    # stop (Spark's loop tests t < stop + sign, negated), one of less than a day does not
    "sequence(TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-01-01 00:00:01', INTERVAL '0.25' SECOND) AS t12",
    "sequence(TIMESTAMP '2024-01-01 00:00:05', TIMESTAMP '2024-01-01 00:00:00', INTERVAL -1.5 SECONDS) AS t13",
    "sequence(TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-01-03 00:00:01', INTERVAL 1 DAY 0.5 SECONDS) AS t14",
    "sequence(TIMESTAMP '2024-01-04 00:00:00', TIMESTAMP '2024-01-01 00:00:00.000001', INTERVAL -1 DAY) AS t15",
    "sequence(TIMESTAMP '2024-01-04 00:00:00', TIMESTAMP '2024-01-01 00:00:00.000001') AS t16",
    "sequence(TIMESTAMP_NTZ '2024-04-10 00:00:00', TIMESTAMP_NTZ '2024-01-10 00:00:00.000001', INTERVAL -1 MONTH) AS t17",
    "sequence(TIMESTAMP '2024-01-01 03:00:00', TIMESTAMP '2024-01-01 00:00:00.000001', INTERVAL -1 HOUR) AS t18",
    "sequence(DATE '2024-01-01', DATE '2024-01-05', INTERVAL 36 HOURS) AS d16",
]

# Forms vpush does not answer as Spark does: refused on DuckDB, answered by the Spark engine.
REFUSED = [
    "array_sort(array(3, 1, 2), (x, y) -> y - x)", "array_join(f, ',')",
    "sequence(DATE '2024-01-01', TIMESTAMP '2024-01-03 00:00:00')",
    "array_join(g, s)", "transform_keys(map(1, i), (k, v) -> k / 2)",
    "zip_with(a, b, (x, y) -> size(filter(b, z -> z > x)))", "zip_with(dt, ts, (x, y) -> x IS NULL AND y IS NULL)",
    "map_zip_with(map('x', i), map('x', n), (k, v1, v2) -> v1 IS NULL)",
    "map_zip_with(map('x', a), map('x', b), (k, v1, v2) -> transform(v1, e -> e + 1))",
]

# Refused on DuckDB; on Spark they raise (an order that is no literal, a merge or value of another type).
REFUSED_SPARK_RAISES = ["sort_array(a, i > 0)", "array_insert(a, NULL, 1)", "exists(a, x -> x)", "filter(g, x -> x)", "aggregate(l, 0, (acc, x) -> acc + x)",
                        "map_zip_with(map('x', i), map(1, n), (k, v1, v2) -> v1)"]


table_path, con, spark_con, spark_view = table_fixtures("arrays", TABLE)


@pytest.mark.parametrize("calls", _chunks(CALLS, 12))
def test_duckdb_engine_answers_as_spark(calls: list[str], spark_view: SparkSession, con: vpush.Connection) -> None:
    _check(calls, spark_view, con)


@pytest.mark.parametrize("calls", _chunks(CALLS, 60))
def test_spark_engine_answers_as_spark(calls: list[str], spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    _check(calls, spark_view, spark_con)


@pytest.mark.parametrize("call", REFUSED + REFUSED_SPARK_RAISES)
def test_refused_on_duckdb(call: str, con: vpush.Connection) -> None:
    """Each is refused with an error naming the function, rather than answered differently."""
    assert_refused_on_duckdb(con, call)


def test_refused_calls_run_on_the_spark_engine(spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    _check(REFUSED, spark_view, spark_con)


@pytest.mark.parametrize(
    ("call", "wanted"),
    [("slice(a, 0, 1)", "INVALID_PARAMETER_VALUE.START"), ("slice(a, 1, -1)", "INVALID_PARAMETER_VALUE.LENGTH"),
     ("slice(a, n, 1)", "INVALID_PARAMETER_VALUE.START"), ("slice(b, 1, n)", "INVALID_PARAMETER_VALUE.LENGTH"),
     ("array_insert(a, 0, 9)", "INVALID_INDEX_OF_ZERO"), ("array_insert(a, n, 9)", "INVALID_INDEX_OF_ZERO"),
     ("sequence(0L, 3000000000L)", "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER"),
     ("array_repeat(s, 2147483647)", "_LEGACY_ERROR_TEMP_2176"),
     ("array_insert(a, 2147483647, 1)", "COLLECTION_SIZE_LIMIT_EXCEEDED.FUNCTION"),
     ("array_insert(a, -2147483647, 1)", "COLLECTION_SIZE_LIMIT_EXCEEDED.FUNCTION"),
     ("transform_keys(map('x', i, 'y', n), (k, v) -> 'same')", "DUPLICATED_MAP_KEY"),
     ("transform_keys(map('x', i), (k, v) -> v)", "NULL_MAP_KEY"),
     ("array_remove(a, 'x')", "DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES"),
     ("array_intersect(a, g)", "DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES"),
     ("array_position(a, 1.5)", "DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES"),
     ("sort_array(array(map('k', i)))", "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE")],
)
def test_array_functions_raise_as_spark(call: str, wanted: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    _assert_raises_as_spark(call, spark_view, con, (wanted,))


@pytest.mark.parametrize("call", ["sequence(1, 5, -1)", "sequence(n, 1, 1)", "sequence(1, 2, 0)",
                                  "sequence(DATE '2024-01-05', DATE '2024-01-01' + i, INTERVAL 2 DAY)",
                                  "sequence(DATE '2024-01-31', DATE '2024-01-01', INTERVAL 1 MONTH)",
                                  "sequence(TIMESTAMP '2024-01-03 00:00:00', TIMESTAMP '2024-01-01 00:00:00', INTERVAL 1 DAY)",
                                  "sequence(TIMESTAMP '2024-03-03 00:00:00', TIMESTAMP '2024-01-01 00:00:00', INTERVAL 0 MONTH)"])
def test_sequence_with_a_wrong_step_raises_as_spark(call: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    """Spark raises a plain Java error (no error class) naming the boundaries; so does vpush."""
    with pytest.raises(Exception) as spark_raised:
        spark_view.sql(f"SELECT {call} FROM t").collect()
    assert "Illegal sequence boundaries" in str(spark_raised.value)
    with pytest.raises(VpushError) as raised:
        con.sql(f"SELECT {call} FROM t").to_arrow()
    assert raised.value.error_class is None
    assert "Illegal sequence boundaries" in str(raised.value)


# Arrays as queries mostly meet them: extracted from a variant column (shredded by Spark, with
# rows whose tags are not strings, missing, a JSON null or an SQL NULL).
EVENTS = """
  CASE id % 5
    WHEN 0 THEN '{"tags": ["b", "a", "b"], "n": [3, 1, 2, 3]}'
    WHEN 1 THEN '{"tags": ["c", null], "n": [5, null, 5]}'
    WHEN 2 THEN '{"tags": [], "n": []}'
    WHEN 3 THEN '{"other": 1}'
    ELSE '{"tags": null, "n": [7]}'
  END
"""
EVENT_CALLS = [
    "array_distinct(variant_get(v, '$.tags', 'array<string>')) AS d",
    "array_join(variant_get(v, '$.tags', 'array<string>'), '|') AS j",
    "sort_array(variant_get(v, '$.n', 'array<int>'), false) AS s",
    "array_position(variant_get(v, '$.tags', 'array<string>'), 'a') AS p",
    "transform(variant_get(v, '$.n', 'array<int>'), (x, i) -> x * i) AS t",
    "exists(variant_get(v, '$.tags', 'array<string>'), x -> x = 'c') AS e",
    "aggregate(variant_get(v, '$.n', 'array<int>'), 0, (acc, x) -> acc + coalesce(x, 0)) AS total",
    "array_union(variant_get(v, '$.tags', 'array<string>'), array('z')) AS u",
    "slice(v:n::array<bigint>, 2, 2) AS sl",
]


@pytest.mark.parametrize(("call", "kind"), [("sequence(DATE '2024-01-01', DATE '2024-01-05', INTERVAL 12 HOURS)", "interval day to second"),
                                            ("sequence(DATE '2024-01-01', DATE '2024-01-05' + i, INTERVAL 0 MONTH)", "interval year to month"),
                                            ("sequence(DATE '2024-01-01', DATE '2024-01-01', INTERVAL 0 DAY)", "interval day to second")])
def test_date_sequence_by_less_than_a_day_raises_as_spark(call: str, kind: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    """A step of dates of no whole day or month: Spark raises for each row, without an error class."""
    message = f"sequence step must be an {kind} of day granularity if start and end values are dates"
    with pytest.raises(Exception) as spark_raised:
        spark_view.sql(f"SELECT {call} FROM t").collect()
    assert message in str(spark_raised.value)
    with pytest.raises(VpushError) as raised:
        con.sql(f"SELECT {call} FROM t").to_arrow()
    assert raised.value.error_class is None
    assert message in str(raised.value)


def test_array_functions_over_variant_extractions(spark: SparkSession, tmp_path: Path) -> None:
    folder = tmp_path / "events"
    write_with_spark(spark, folder, f"SELECT id, parse_json({EVENTS}) AS v FROM range(20)", "tags array<string>, n array<int>", 8)
    spark.read.parquet(str(folder)).createOrReplaceTempView("t")
    duckdb_con = vpush.connect(time_zone="UTC")
    duckdb_con.register("t", folder)
    _check(["id", *EVENT_CALLS], spark, duckdb_con)


# In a zone whose offset changes, days and months move the local time, each keeping the offset it
# had where still valid (01:30 PST, the second 01:30 of the fall-back night, less a day is 01:30 PST
# on the day before, where there is only one), else an overlap's earlier one; a local time in a gap
# moves forward by the gap. Hours and seconds move the instant.
ZONED_SEQUENCES = [
    "sequence(TIMESTAMP '2024-03-09 02:30:00', TIMESTAMP '2024-03-12 02:30:00', INTERVAL 1 DAY) AS z1",
    "sequence(TIMESTAMP '2024-03-09 02:30:00', TIMESTAMP '2024-03-12 03:00:00') AS z2",
    "sequence(TIMESTAMP '2024-02-10 02:30:00', TIMESTAMP '2024-05-10 03:00:00', INTERVAL 1 MONTH) AS z3",
    "sequence(TIMESTAMP '2024-11-02 01:30:00', TIMESTAMP '2024-11-05 01:30:00', INTERVAL 1 DAY) AS z4",
    "sequence(TIMESTAMP '2024-11-04 01:30:00', TIMESTAMP '2024-11-01 01:30:00') AS z5",
    "sequence(TIMESTAMP '2024-12-03 01:30:00', TIMESTAMP '2024-10-01 01:30:00', INTERVAL -1 MONTH) AS z6",
    "sequence(timestamp_seconds(1730626200L + i), TIMESTAMP '2024-10-30 01:30:00', INTERVAL -1 DAY) AS z7",
    "sequence(TIMESTAMP '2024-11-02 00:30:00', TIMESTAMP '2024-11-04 01:30:00', INTERVAL 1 DAY 2 HOURS) AS z8",
    "sequence(TIMESTAMP '2024-03-10 00:00:00', TIMESTAMP '2024-03-10 04:00:00', INTERVAL 1 HOUR) AS z9",
    "sequence(TIMESTAMP_NTZ '2024-03-09 02:30:00', TIMESTAMP_NTZ '2024-03-12 02:30:00', INTERVAL 1 DAY) AS z10",
    "sequence(DATE '2024-03-08', DATE '2024-03-14', INTERVAL 36 HOURS) AS z11",
    "sequence(DATE '2024-11-08', DATE '2024-10-25', INTERVAL -30 HOURS) AS z12",
    # steps so long that the candidates past the stop leave the 64-bit microseconds
    "sequence(TIMESTAMP '2000-01-01 00:00:00', TIMESTAMP '2000-06-01 00:00:00', INTERVAL 150000 YEARS) AS z13",
    "sequence(TIMESTAMP '2000-06-01 00:00:00', TIMESTAMP '2000-01-01 00:00:00', INTERVAL -100000000 DAYS) AS z14",
]
# Spark checks the boundaries by the step estimated in microseconds (a month as 28 days), and names
# the step as it was given (months, or microseconds).
ZONED_WRONG_STEPS = [
    "sequence(TIMESTAMP '2024-03-09 02:30:00', TIMESTAMP '2024-03-01 02:30:00', INTERVAL 1 MONTH)",
    "sequence(TIMESTAMP '2024-03-09 02:30:00', TIMESTAMP '2024-03-01 02:30:00', INTERVAL 1 DAY 2 HOURS)",
]


@pytest.mark.parametrize("zone", ["America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe"])
def test_timestamp_sequence_in_zones_with_daylight_saving(zone: str, table_path: Path, spark_view: SparkSession) -> None:
    """Spark's sequence of timestamps by days, months and the default day, in the session time
    zone's calendar, across changes of offset (Lord Howe's of half an hour too)."""
    zoned = vpush.connect(time_zone=zone)
    zoned.register("t", table_path)
    register_views(spark_view, {"t": table_path})  # a test above takes the name for its own view
    spark_view.conf.set("spark.sql.session.timeZone", zone)
    try:
        _check(ZONED_SEQUENCES, spark_view, zoned)
        for call in ZONED_WRONG_STEPS:
            with pytest.raises(Exception) as spark_raised:
                spark_view.sql(f"SELECT {call} FROM t").collect()
            wanted = re.search(r"Illegal sequence boundaries: -?\d+ to -?\d+ by -?\d+", str(spark_raised.value))
            assert wanted is not None
            with pytest.raises(VpushError, match=wanted.group(0)):
                zoned.sql(f"SELECT {call} FROM t").to_arrow()
    finally:
        spark_view.conf.set("spark.sql.session.timeZone", "UTC")
