"""Spark's ``get_json_object`` on the DuckDB engine, checked against PySpark on both engines.

The calls run over a Parquet file of JSON texts that Jackson (with Spark's single quotes and raw
control characters) reads and fails to read in many ways: numbers Jackson re-prints (``1.50`` as
``1.5``, ``1e400`` as ``"Infinity"``), escapes and characters past U+FFFF, duplicate and null
fields, text after the root value, truncated and over-deep texts. The checks are those of
``tests/test_spark_functions.py``: names, types and values must agree exactly.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pytest
from test_spark_functions import _check, _chunks

import vpush
from support.tables import connect_tables, register_views, table_folder
from vpush.codec.errors import VpushError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TEXTS = [
    '{"a":1,"b":[1,2,{"c":"x"}],"d":{"e":null,"f":1.50,"g":"h\\"i","u":"\\u00e9"}}',
    '{"a":1,"a":2}', '{"a":null,"a":2}', '  {"a" : "x"}  ', '{"a":NaN}', '{"a":01}', '"str"', '"a\\qb"',
    '{"a":"\\ud83d\\ude00 😀 é"}', '{"a":"é\\n\\u0001\\u007f/\\/\\b\\f\\r\\t\\u2028"}', "{'a':'q\"\\''}", "{'a':1, \"b\":'2'}",
    '{"a":-0}', '{"a":-0.0e0}', '{"a":1e400,"b":-1e400}', '{"a":1.}', '{"a":.5}', '{"a":+1}', '{"a":1,}', '{"a":[1,]}',
    '{"a":"x\ty\n"}', '{"a":"\\q"}', '{"a":1}x', '{"a":1}}', '[1,2', '{"a":{"b":1}', '{"b":1,"a":2', '{"a":2,"b":',
    '{"a":1.0}', '{"a":123456789.0}', '{"a":1.23456789012345678901}', '{"a":9223372036854775808}', '{"a":1e-7}',
    '{"a":[0.1,2e22,1E2,-5,0.001,1e7]}', '{"a":[{"b":"\\""}],"c":true,"d":false,"e":null}', 'null', '1', '1x', '1 x',
    'true', 'truex', '[null,[],{}]', '', '   ', '{"a":"\\u00"}', '{"a" 1}', '{1:2}', '{"a":tru}', '{"a":1}  ',
    '{"a b":1,"a.b":2,"$":3,"":4,"\\u0061":5}', '{"\\u0061":5,"a":6}', '[1,[2,3],{"a":[4,5]}]', '{"é":{"ü":[10,11]}}',
    '{"a":[[1,2],[3]],"b":{"a":{"a":7}}}', '{"a":"\\ud83d"}', '{"a":[null]}', '{"a" : [ 1 , { "b" : 2 } ] , "b" : 3 }',
    "[" * 1000 + "]" * 1000, "[" * 1001 + "]" * 1001, '{"a":[' + "[" * 999 + "]" * 999 + "]}", None,
]

TABLE = pa.table({"j": pa.array(TEXTS, pa.string()), "n": pa.array(range(len(TEXTS)), pa.int32())})

PATHS = ["$", "$.a", "$.b", "$.a[0]", "$.a[1]", "$['a']", "$.b[2].c", "$.d.e", "$.d.f", "$.d.g", "$.d.u", "$[0]", "$[1]",
         "$[2]", "$[2].a[1]", "$['a.b']", "$.$", "$.é.ü[1]", "$.a[1].b", "$.a[0][1]", "$.b.a.a", "$.c", "$.e", "$.a[01]",
         "$.a[5]", "$.a.b", "$['a'][0]", "$.b[0]"]

CALLS = [f"get_json_object(j, '{p}')" if "'" not in p else f'get_json_object(j, "{p}")' for p in PATHS] + [
    "get_json_object(j, NULL)", "get_json_object(NULL, '$.a')", "get_json_object('{\"k\": [1, 2]}', '$.k[1]')",
    "get_json_object(concat('{\"n\":', string(n), '}'), '$.n') AS n2",
]

# Paths vpush does not evaluate (wildcards, whitespace Spark drops in places, a path that is not a literal)
REFUSED = ["get_json_object(j, '$.a[*]')", "get_json_object(j, '$.*')", "get_json_object(j, '$. a')",
           "get_json_object(j, '$[*].a')", "get_json_object(j, j)", "get_json_object(j, '$..a')"]


@pytest.fixture(scope="module")
def table_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return table_folder(tmp_path_factory.mktemp("json"), TABLE)


@pytest.fixture(scope="module")
def con(table_path: Path) -> vpush.Connection:
    return connect_tables({"t": table_path})


@pytest.fixture(scope="module")
def spark_con(spark: SparkSession, table_path: Path) -> vpush.Connection:
    return connect_tables({"t": table_path}, spark)


@pytest.fixture(scope="module")
def spark_view(spark: SparkSession, table_path: Path) -> SparkSession:
    return register_views(spark, {"t": table_path})


@pytest.mark.parametrize("calls", _chunks(CALLS, 16))
def test_duckdb_engine_answers_as_spark(calls: list[str], spark_view: SparkSession, con: vpush.Connection) -> None:
    _check(["n", *calls], spark_view, con)


def test_spark_engine_answers_as_spark(spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    _check(["n", *CALLS, *REFUSED], spark_view, spark_con)


@pytest.mark.parametrize("call", REFUSED)
def test_refused_on_duckdb(call: str, con: vpush.Connection) -> None:
    with pytest.raises(VpushError) as raised:
        con.sql(f"SELECT {call} FROM t").to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"
    assert "get_json_object" in str(raised.value)
