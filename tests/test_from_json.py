"""Spark's ``from_json`` on the DuckDB engine, checked against PySpark.

One column of JSON texts holds every kind Spark's JacksonParser converts differently: valid
records, malformed text (truncated, trailing commas, unquoted names, bad escapes, raw control
characters), values of the wrong type for their field (partial results), integers at and past
each type's range, doubles and floats (NaN, the infinities, quoted or not, past the range),
decimals (HALF_UP rounding, commas, exponents, overflow), strings from other values (Jackson's
compact copy), duplicate keys, case, unicode and escapes, nested structs, arrays and maps, a
top-level array or scalar, the empty text and NULL. Each batch of schemas is one query, run on
PySpark (the oracle) and through vpush on both engines; names, types and values must agree
exactly, or both raise the same error class.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_json_functions import _answers, _assert_same
from test_spark_functions import _chunks

import vpush
from support.compare import assert_error_as_spark

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TEXTS = [
    '{"a":1,"b":"x"}', '{"a":1', "xx", "", "   ", "null", "1", '"x"', '[{"a":1}]', "[]", None,
    '{"a":"x","b":"y"}', '{"a":1.0}', '{"a":"1"}', '{"a":2147483648}', '{"a":-0,"b":-1}', '{"a":01}',
    '{"a":255,"b":256,"c":-129}', '{"a":32768,"b":-32768}', '{"a":9223372036854775807,"b":9223372036854775808,"c":-9223372036854775808}',
    '{"a":1e2}', '{"a":1,"b":{"x":[1,2.50,"s",null,true]},"c":[1, 2]}', '{"a":1.50,"b":-0,"c":1E400,"d":-0.0}',
    '{"a":true,"b":"true","c":1}',
    '{"a":NaN,"b":"NaN","c":Infinity,"d":-Infinity,"e":"-Infinity","f":"+Infinity","g":"INF","h":1e400}',
    '{"a":+INF,"b":-INF,"c":+Infinity,"d":"Inf","e":"1.5","f":" NaN","g":"+INF","h":"-INF"}', '{"a":INF}', '{"a":-NaN}',
    '{"a":1.23456789012345678,"b":3.4028235e39,"c":1,"d":16777217,"e":1e-50}',
    '{"a":1.255,"b":"1.5","c":123456,"d":1e2,"e":1.5e-7}', '{"a":1.005,"b":-1.005,"c":0.000,"d":-0.0}',
    '{"a":"1,000.5","b":"+1.5","c":".5","d":"5.","e":" 1","f":"1e2","g":true}',
    '{"a":99999.995,"b":-0.005,"c":1E-50,"d":1e30,"e":"12e-1"}', '{"a":"1e2147483648","b":"1e-2147483649","c":"-"}',
    '{"a":1,"a":2}', '{"a":1,"a":null}', '{"a":1,"a":"x"}', '{"A":1}',
    '{"a":[1,"x",3],"b":2}', '{"a":[1],"a":[1,"x"]}', '{"a":[[1,"x"],2],"b":3}', '{"a":[1,"x",{"b":5}],"b":2}',
    '{"a":1} xyz', '{"a":1,}', "{'a':'x'}", "{a:1}", '{"a":"","b":""}', '{"a":"\\u00e9\\ud83d\\ude00\\n","b":"\\ud800"}',
    '{"a":"x\ty","b":2}', '{"a":"\\x","b":2}', '{"b":2,"a":"\\u12"}', '{"a":"x\ty\tz","b":2}',
    '{"b":[{"x":"bad"},{"x":1}],"a":2}', '{"b":[{"x":2},null],"a":"3"}',
    '{"m":{"k":"x","b":5},"b":2}', '{"m":{"k":{"x":"bad"}},"b":2}', '{"m":{"k":{"x":1},"j":null},"b":2}',
    '{"s":{"x":[1,"y",3],"z":4},"z":5}', '{"s":{"x":[1,2],"z":"4"},"z":5}',
    '[1,2,null,"x"]', '[1,null]', '[{"a":"x"},{"a":1}]', '{"a":{"b":1}}', '{"a":1.0E10,"b":1e-5,"c":0.1,"d":12345678.9}',
    '{"\\u0061":1,"b":"é😀\\"\\\\/"}', '{"a":1}   {"a":2}', "1 2", '{"a":[1,}', ' {"a" : 7 , "b" : [ ] } ',
    '{"a":{"a":1,"b":[true,false]},"b":{"a":null}}', '{"b":"a\\u0000b","a":[]}', '{"a":1e309,"b":-1e309,"c":4.9e-324}',
    '{"a":123456789012345678901234567890,"b":0.1e1,"c":-123456789012345678901234567890}', "[[1,2],[3]]",
    '{"k1":[1],"k2":null,"k3":[]}', '{"a":{"x":1},"b":[{"x":[1]}]}', '{"a":[{"b":"\\u0001"}],"b":"s"}',
    # syntax errors Jackson reads on past: a bad word, number, comma, colon, name or bracket inside
    # a field's value (the field fails where the error is caught; a name whose value fails ends
    # its object), single-quoted strings read at once
    '{"a":1,"b":[1,2,{"c":"x"}],"c":{"d":[tNaNrue,null],"e":"s"},"d":1.5}',
    '{"a":1,"b":[1,2,{"c":"x"}],"c":{"d"01:[true,null],"e":"s"},"d":1.5}',
    '{"b":["x",2],"a":"q","c":{"e"7,"d":[1]},"d":"NaN"}', '{"c":{"d":[}1,2],"e":{"f":1}},"a":-5,"b":[]}',
    '{"c":{"d":[1,2],"e":{"f":}},"a":-5,"b":[]}', '{"b":["x",2\\],"a":"q","c":{"e":7,"d":[1]},"d":"NaN"}',
    '{"a":[1,tru],"b":2}', '{"c":{"x":"1","y":truex,"z":3},"b":4}', '{"a":[1,2 3],"b":2}', '{"c":{"x":1 "y":2},"b":3}',
    '{"c":{x:1},"b":3}', '{"a":[1,]],"b":2}', '{"b":["x",2],"a":"q","c":{"e":\'7,"d":[1]},"d":"NaN"}',
    '{"c":{"d":[NaN1,2],"e":{"f":\'1}},"a":-5,"b":[]}', '{"a":[01,2],"b":3}', '{"a":[1.x,2],"b":3}', '{"a":[-x],"b":3}',
    '{"c":{"d":[true$,1]},"b":5}', '{"a":["x\\qy",2],"b":3}',
]

CALLS = [
    "from_json(j, 'a INT, b STRING')",
    "from_json(j, 'a BIGINT, b BIGINT, c BIGINT')",
    "from_json(j, 'a TINYINT, b TINYINT, c SMALLINT')",
    "from_json(j, 'a SMALLINT, b SMALLINT')",
    "from_json(j, 'a STRING, b STRING, c STRING, d STRING')",
    "from_json(j, 'a BOOLEAN, b BOOLEAN, c BOOLEAN')",
    "from_json(j, 'a DOUBLE, b DOUBLE, c DOUBLE, d DOUBLE, e DOUBLE, f DOUBLE, g DOUBLE, h DOUBLE')",
    "from_json(j, 'a FLOAT, b FLOAT, c FLOAT, d FLOAT, e FLOAT, h FLOAT')",
    "from_json(j, 'a DECIMAL(5,2), b DECIMAL(5,2), c DECIMAL(5,2), d DECIMAL(38,0), e DECIMAL(5,2)')",
    "from_json(j, 'a DECIMAL(10,2), b DECIMAL(10,2), c DECIMAL(38,18), d DECIMAL(10,2), e DECIMAL(10,2), f DECIMAL(10,2), "
    "g DECIMAL(10,2)')",
    "from_json(j, 'a DECIMAL(38,38), b DECIMAL(1,0), c DECIMAL(38,0)')",
    "from_json(j, 'a array<int>, b int')",
    "from_json(j, 'a array<array<int>>, b int')",
    "from_json(j, 'b array<struct<x:int>>, a int')",
    "from_json(j, 's struct<x:array<int>,z:int>, z int')",
    "from_json(j, 'struct<a:struct<a:int,b:array<boolean>>,b:struct<a:string>>')",
    "from_json(j, 'a struct<x:int>, b array<struct<x:array<string>>>')",
    "from_json(j, 'array<int>')",
    "from_json(j, 'array<string>')",
    "from_json(j, 'array<struct<a:int>>')",
    "from_json(j, 'array<array<int>>')",
    "from_json(j, 'a string')",
    "from_json(j, 'A int, b string')",
    "from_json(j, 'a double, z string')",
    "from_json(j, 'a array<struct<b:string>>, b string')",
    "from_json(j, 'a INT, b array<string>, c struct<d:array<boolean>,e:string>, d double')",
    "from_json(j, 'c map<string,string>, b array<int>, a string').c", "from_json(j, 'c map<string,string>, b array<int>, a string').b",
    "from_json(j, 'array<struct<a:int,b:array<int>,c:struct<d:array<boolean>>>>')",
]

# Maps over texts whose objects hold each key once (DuckDB's maps cannot hold a key twice:
# test_from_json_refused_on_duckdb).
MAP_TEXTS = [
    '{"a":1,"b":"x","c":3}', '{"a":1,"b":null}', '{"m":{"k":"x","b":5},"b":2}', '{"m":{"k":{"x":"bad"}},"b":2}',
    '{"m":{"a":1,"b":{"x":2}},"b":"y"}', "{}", "[]", "null", "", None, '{"k1":[1],"k2":null,"k3":[]}', '{"a":',
    '{"k":[1,"x"],"j":[2]}', '{"\\u00e9":"\\ud800","b\\"c":1.50,"d":{"e":[1,{}]}}', '{"m":{"k":{"x":1},"j":null},"b":2}',
    '{"m":{}, "b":[true]}',
]

MAP_CALLS = [
    "from_json(m, 'map<string,int>')",
    "from_json(m, 'map<string,string>')",
    "from_json(m, 'map<string,array<int>>')",
    "from_json(m, 'm map<string,int>, b int').m", "from_json(m, 'm map<string,int>, b int').b",
    "from_json(m, 'm map<string,struct<x:int>>, b string').m", "from_json(m, 'm map<string,struct<x:int>>, b string').b",
    "from_json(m, 'map<string,map<string,string>>')",
]

SCHEMA_OF_JSON_CALLS = [
    "from_json(j, schema_of_json('{\"a\":1,\"b\":[\"x\"]}'))",
    "from_json(j, 'a INT', map('mode', 'PERMISSIVE'))",
    "from_json(j, 'a INT', map('MODE', 'permissive'))",
]


@pytest.fixture(scope="module")
def table_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("from_json") / "z"
    folder.mkdir()
    maps = MAP_TEXTS + [None] * (len(TEXTS) - len(MAP_TEXTS))
    pq.write_table(pa.table({"j": pa.array(TEXTS, pa.string()), "m": pa.array(maps, pa.string())}), folder / "part-0.parquet")
    return folder


def _unordered_maps(value: Any) -> Any:
    """``value`` with each map as its entries sorted (PySpark's maps come in a Java HashMap's order)."""
    if isinstance(value, dict):
        return ("map", sorted(((k, _unordered_maps(v)) for k, v in value.items()), key=repr))
    if isinstance(value, (list, tuple)):
        return type(value)(_unordered_maps(v) for v in value)
    return value


def _comparable(answer: Any) -> Any:
    if answer[0] == "error":
        return answer
    return (answer[0], sorted((_unordered_maps(row) for row in answer[1]), key=repr))


@pytest.mark.parametrize("calls", _chunks(CALLS + MAP_CALLS + SCHEMA_OF_JSON_CALLS, 20))
def test_from_json_as_spark(calls: list[str], spark: SparkSession, table_folder: Path) -> None:
    expected, duckdb_answer, spark_engine_answer = (
        _comparable(a) for a in _answers(spark, table_folder, "UTC", f"SELECT {', '.join(calls)} FROM z")
    )
    assert expected[0] != "error"
    _assert_same(calls, expected, duckdb_answer)
    _assert_same(calls, expected, spark_engine_answer)


@pytest.mark.parametrize(
    ("sql", "error_class"),
    [
        ("SELECT from_json(j, 'a INT', map('mode', 'FAILFAST')) FROM z", "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION"),
        ("SELECT from_json(m, 'map<string,int>', map('mode', 'FAILFAST')) FROM z", "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION"),
        ("SELECT from_json(j, 'a INT', map('mode', 'DROPMALFORMED')) FROM z", "PARSE_MODE_UNSUPPORTED"),
        ("SELECT from_json(j, 'int') FROM z", "DATATYPE_MISMATCH.INVALID_JSON_SCHEMA"),
    ],
)
def test_from_json_raises_as_spark(sql: str, error_class: str, spark: SparkSession, table_folder: Path) -> None:
    spark.read.parquet(str(table_folder)).createOrReplaceTempView("z")
    for engine in ("duckdb", "spark"):
        connection = vpush.connect(engine=engine, spark=spark if engine == "spark" else None, time_zone="UTC")
        connection.register("z", table_folder)
        assert_error_as_spark(spark, connection, sql, error_class)


def test_failfast_answers_good_records_as_spark(spark: SparkSession, table_folder: Path) -> None:
    """FAILFAST over records that are all good gives PERMISSIVE's answer."""
    sql = "SELECT from_json(j, 'a INT, b STRING', map('mode', 'FAILFAST')) FROM z WHERE j IN ('{\"a\":1,\"b\":\"x\"}', '', '[]x')"
    spark.read.parquet(str(table_folder)).createOrReplaceTempView("z")
    expected, duckdb_answer, spark_engine_answer = _answers(spark, table_folder, "UTC", sql)
    assert expected[0] != "error"
    assert duckdb_answer == expected
    assert spark_engine_answer == expected


@pytest.mark.parametrize(
    "call",
    [
        "from_json(j, 'a DATE')", "from_json(j, 'a TIMESTAMP')", "from_json(j, 'a BINARY')", "from_json(j, 'map<int,int>')",
        "from_json(j, 'a INT, A INT')", "from_json(j, 'a INT', map('allowComments', 'true'))", "from_json(j, g)",
        "from_json(j, 'a INT', map('mode', 'x'))", "from_json(j, 'a STRING COLLATE UTF8_LCASE')",
        "from_json('{\"a\":1,\"a\":2}', 'map<string,int>')", "from_json('{\"a\":\"\\u0661\"}', 'a DECIMAL(5,2)')",
    ],
)
def test_from_json_refused_on_duckdb(call: str, table_folder: Path) -> None:
    """Types, options and rows vpush does not answer on DuckDB are refused (the Spark engine runs
    them)."""
    connection = vpush.connect(time_zone="UTC")
    connection.register("z", table_folder)
    with pytest.raises(vpush.VpushError) as raised:
        connection.sql(f"SELECT {call}, j AS g FROM z").to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION", str(raised.value)


S = "'c map<string,string>, b array<int>, a string'"
SUB = f"(SELECT from_json(j, {S}) AS s, m FROM z)"

# Spark prunes from_json's schema to the one field taken from it through subqueries where its
# optimizer merges the projections (CollapseProject) or pushes a WHERE down (PushDownPredicates),
# then OptimizeCsvJsonExprs prunes; pruned, a syntax error inside a field left out fails the
# record (settled with EXPLAIN EXTENDED on PySpark 4.3).
PRUNED_SHAPES = [
    f"SELECT s.b FROM {SUB}",  # pruned
    f"SELECT s.b, s.a FROM {SUB}",  # s read twice (or s.*, or s.b beside s): not merged, not pruned
    f"SELECT s.b FROM {SUB} WHERE s.a IS NOT NULL",  # both pruned
    f"WITH w AS {SUB} SELECT s.b FROM w WHERE m IS NULL",
    f"WITH w AS {SUB} SELECT s.a FROM w WHERE s.b IS NULL UNION ALL SELECT s.a FROM w",  # each reference its own
    f"WITH w AS {SUB}, w2 AS (SELECT s.b AS b, m FROM w) SELECT b FROM w2 WHERE m IS NULL",
    f"SELECT s['b'], upper(m) FROM {SUB}",
    f"SELECT t.s.b AS x, t.m FROM {SUB} t WHERE t.s.a > 'a'",
    f"SELECT s.b, x, x FROM (SELECT from_json(j, {S}) AS s, upper(j) AS x FROM z)",  # x not cheap: not merged
    f"SELECT s.b, x, x FROM (SELECT from_json(j, {S}) AS s, m AS x FROM z)",  # a column: merged
    f"SELECT s.b FROM (SELECT from_json(j, {S}) AS s FROM z LIMIT 1000) ORDER BY 1",
    f"SELECT from_json(j, {S}, map('mode', 'PERMISSIVE')).b FROM z",  # options: not pruned
]


@pytest.mark.parametrize("sql", PRUNED_SHAPES)
def test_field_taken_through_a_subquery_as_spark(sql: str, spark: SparkSession, table_folder: Path) -> None:
    """Pruned as Spark prunes, the map ``c`` is skipped unread and its syntax error fails the
    record (``b`` NULL); unpruned, the map fails alone and ``b`` is read."""
    expected, duckdb_answer, spark_engine_answer = (_comparable(a) for a in _answers(spark, table_folder, "UTC", sql))
    assert expected[0] != "error"
    assert duckdb_answer == expected
    assert spark_engine_answer == expected


@pytest.mark.parametrize(
    "sql",
    [
        f"SELECT max(s.b) FROM {SUB}",
        f"SELECT u.b FROM (SELECT s AS u FROM {SUB})",
        f"SELECT x.s.b FROM {SUB} x JOIN z ON x.m = z.m",
        f"SELECT s.b FROM (SELECT from_json(j, {S}) AS s FROM z UNION ALL SELECT from_json(m, {S}) AS s FROM z)",
        f"SELECT struct(from_json(j, {S}).b, from_json(j, {S}).a) FROM z",
        f"SELECT struct(s.b) FROM {SUB}",
    ],
)
def test_field_taken_in_other_shapes_refused(sql: str, table_folder: Path) -> None:
    """Shapes whose pruning vpush does not follow (Spark prunes each of them: an aggregate's or a
    join's field extracted below it, a column passed on whole, the branches of a union, a struct
    of fields read by one call of them all) are refused on DuckDB (the Spark engine runs them)."""
    connection = vpush.connect(time_zone="UTC")
    connection.register("z", table_folder)
    with pytest.raises(vpush.VpushError) as raised:
        connection.sql(sql).to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION", str(raised.value)
