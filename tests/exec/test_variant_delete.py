"""``variant_delete`` on the DuckDB engine answers as PySpark 4.3 does, byte for byte.

Spark's ``VariantBuilder.deleteAtPath`` rebuilds every row with its builder (a new dictionary, in
the order the stored fields are first met; containers rewritten; scalars copied as they are), so
the bytes are compared: over JSON literals with every kind of path (keys, indexes, odd keys,
missing keys, indexes past the end, keys into arrays and scalars, repeated and NULL paths), and
over the table of ``test_variant_functions`` (Spark- and DuckDB-written files, shredded and not).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import vpush
from support.compare import assert_error_as_spark, compare_variants_by_id, variant_bytes, variants_by_id
from support.function_table import UNSHREDDED_IDS, connect_function_table

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

J = '{"b": {"y": [1, {"q": 2, "r": 3}, 3], "x": 1}, "a": 1, "c": null, "d.e": 5, "arr": [10, 20, 30], "é": {"\\"q": 1}}'
LITERAL_CASES = [
    (J, ["$.a"]), (J, ["$.b.x"]), (J, ["$.b.y[1].q"]), (J, ["$.zz"]), (J, ["$.a.b"]), (J, ["$.arr[1]"]),
    (J, ["$.arr[5]"]), (J, ["$.b", "$.a"]), (J, ["$.b.y[0]", "$.b.y[0]"]), (J, ["$['d.e']"]), (J, ["$.c"]),
    (J, ["$[0]"]), (J, ["$.é['\"q']"]), (J, ["$.arr[0]", "$.zz", "$.b.y"]), ("[1, 2, 3]", ["$[0]"]),
    ("[1, 2, 3]", ["$.a"]), ("1", ["$.a"]), ('"s"', ["$[0]"]), ("null", ["$.a"]), ('{"a": 1}', ["$.a"]),
    ('{"a": {"b": 1}}', ["$.a.b"]), ("[[1, 2]]", ["$[0][1]"]), ("[1, 2, 3]", ["$[2]", "$[0]"]),
    ('{"a": 1000000, "b": 1.50, "c": "x", "d": 1e300}', ["$.c"]), ("[" + ", ".join(str(i) for i in range(300)) + "]", ["$[7]"]),
]  # fmt: skip


def _sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def test_literals_as_spark(spark: SparkSession) -> None:
    calls = [f"variant_delete(parse_json({_sql_string(j)}), {', '.join(_sql_string(p) for p in paths)})" for j, paths in LITERAL_CASES]
    sql = "SELECT " + ", ".join(f"{c} AS c{i}" for i, c in enumerate(calls))
    want = [variant_bytes(v) for v in spark.sql(sql).collect()[0]]
    got = [variant_bytes(v) for v in vpush.connect().sql(sql).to_arrow().to_pylist()[0].values()]
    for case, g, w in zip(LITERAL_CASES, got, want):
        assert g == w, f"{case}: vpush {g!r} != Spark {w!r}"


def test_names_and_nulls_as_spark(spark: SparkSession) -> None:
    sql = ("SELECT variant_delete(parse_json('{\"a\":1, \"b\": 2}'), '$.a'), variant_delete(NULL, '$.a'), "
           "variant_delete(parse_json('{\"a\":1}'), NULL), variant_delete(parse_json('{\"a\":1, \"b\": 2}'), '$.a', NULL, '$.b')")  # fmt: skip
    frame = spark.sql(sql)
    got = vpush.connect().sql(sql).to_arrow()
    assert got.column_names == frame.columns
    assert [variant_bytes(v) for v in got.to_pylist()[0].values()] == [variant_bytes(v) for v in frame.collect()[0]]


@pytest.mark.parametrize("path", ["$", "a", "$.", "$.arr[-1]", "$[", "$.a..b", '$.é["\\"q"]'])
def test_invalid_paths_as_spark(spark: SparkSession, path: str) -> None:
    sql = f"SELECT variant_delete(parse_json('{{\"a\": 1}}'), {_sql_string(path)})"
    assert_error_as_spark(spark, vpush.connect(), sql, "INVALID_VARIANT_PATH")


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory, spark: SparkSession) -> vpush.Connection:
    return connect_function_table(spark, tmp_path_factory.mktemp("variant_delete"))


# Rows rebuilt from shredded columns carry vpush's scalar widths (see test_to_variant_object):
# equal by value there, byte for byte in DuckDB's unshredded file (UNSHREDDED_IDS) and elsewhere.
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id, variant_delete(v, '$.a') FROM t",
        "SELECT id, variant_delete(v, '$.o.x', '$.arr[0]', '$.missing') FROM t",
        "SELECT id, variant_delete(v:o, '$.y[1]') AS o FROM t",
        "SELECT id, to_json(variant_delete(v, '$.s')) AS j FROM t",
    ],
)
def test_table_as_spark(spark: SparkSession, con: vpush.Connection, sql: str) -> None:
    got, want = variants_by_id(spark, con, sql)
    assert compare_variants_by_id(got, want, UNSHREDDED_IDS) > len(UNSHREDDED_IDS)


# -- variant_strip_nulls: the same rebuild, without the variant nulls -------------------------------
STRIP_CASES = [
    J, '{"a": null, "b": {"c": null, "d": 1}, "e": [null, 1, {"f": null}], "g": {"h": null}}', "null", "[null, null]",
    '{"a": null}', "1", '[1, [null], {"x": null}]', '{"b": 1, "a": [null]}', "[]", "{}",
]  # fmt: skip


def test_strip_nulls_literals_as_spark(spark: SparkSession) -> None:
    calls = [f"variant_strip_nulls(parse_json({_sql_string(j)}){flag})" for j in STRIP_CASES for flag in ("", ", true", ", false")]
    sql = "SELECT " + ", ".join(f"{c} AS c{i}" for i, c in enumerate(calls))
    want = [variant_bytes(v) for v in spark.sql(sql).collect()[0]]
    got = [variant_bytes(v) for v in vpush.connect().sql(sql).to_arrow().to_pylist()[0].values()]
    for call, g, w in zip(calls, got, want):
        assert g == w, f"{call}: vpush {g!r} != Spark {w!r}"


def test_strip_nulls_names_nulls_and_errors_as_spark(spark: SparkSession) -> None:
    sql = "SELECT variant_strip_nulls(parse_json('[null, 1]')), variant_strip_nulls(NULL), variant_strip_nulls(parse_json('[null]'), NULL)"
    frame = spark.sql(sql)
    got = vpush.connect().sql(sql).to_arrow()
    assert got.column_names == frame.columns
    assert [variant_bytes(v) for v in got.to_pylist()[0].values()] == [variant_bytes(v) for v in frame.collect()[0]]
    for bad, error_class in (("variant_strip_nulls(1)", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
                             ("variant_strip_nulls(parse_json('1'), 1)", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE")):  # fmt: skip
        assert_error_as_spark(spark, vpush.connect(), f"SELECT {bad}", error_class)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id, variant_strip_nulls(v) FROM t",
        "SELECT id, variant_strip_nulls(v, false) FROM t",
        "SELECT id, variant_strip_nulls(variant_delete(v, '$.a'), true) FROM t",
    ],
)
def test_strip_nulls_table_as_spark(spark: SparkSession, con: vpush.Connection, sql: str) -> None:
    test_table_as_spark(spark, con, sql)
