"""Spark's ``regexp_count``, ``regexp_extract_all``, ``regexp_substr`` and ``regexp_instr`` (and the
patterns of ``rlike``, ``regexp_extract`` and ``regexp_replace``) on the DuckDB engine, checked
against PySpark on both engines.

DuckDB runs them with RE2 on the pattern ``vpush.optimizer.java_regex`` writes for Java's; the
texts hold the line terminators Java's ``.`` stops at (``\\r``, U+0085, U+2028), the vertical tab
Java's ``\\s`` matches, characters past U+FFFF, and NULL. Patterns whose meaning vpush cannot show
to be the same are refused on DuckDB and run by the Spark engine.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pytest
from test_spark_functions import _assert_raises_as_spark, _check, _chunks

import vpush
from support.tables import connect_tables, register_views, table_folder
from vpush.codec.errors import VpushError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TABLE = pa.table({
    "s": pa.array(["a1b22c", "abcab", "", None, "a\r\nb\u0085c\u2028d", "x\u000by z", "😀ab😀b", "aaa", "AbC.d-e", "é1ü22"]),
    "n": pa.array(range(10), pa.int32()),
})

CALLS = [
    "regexp_count(s, 'ab')", "regexp_count(s, '.')", "regexp_count(s, '\\\\s')", "regexp_count(s, '\\\\S+')", "regexp_count(s, 'aa')",
    "regexp_count(s, '[a-c]')", "regexp_count(s, '\\\\d+')", "regexp_count(s, '[^\\\\s]')", "regexp_count(s, NULL)",
    "regexp_extract_all(s, '([a-z])(\\\\d+)?')", "regexp_extract_all(s, '([a-z])(\\\\d+)?', 2)", "regexp_extract_all(s, '.', 0)",
    "regexp_extract_all(s, '(a|ab)(c|bcd)?', 0)", "regexp_extract_all(s, '[^a-c]+', 0)", "regexp_extract_all(s, 'b.', 0)",
    "regexp_extract_all(s, '\\\\w+', 0)", "regexp_extract_all(s, '(\\\\d)(x)?', 2)", "regexp_extract_all(s, '(?:a)(b+?)', 1)",
    "regexp_extract_all(s, 'a{2}|b{1,}', 0)", "regexp_extract_all(s, '[\\\\.\\\\-]', 0)",
    "regexp_substr(s, 'b+')", "regexp_substr(s, 'x*')", "regexp_substr(s, '.b')", "regexp_substr(s, '[\\\\s]+')", "regexp_substr(s, '\\\\d\\\\d')",
    "regexp_instr(s, 'b')", "regexp_instr(s, 'x*')", "regexp_instr(s, '\\\\d')", "regexp_instr(s, 'b', 0)", "regexp_instr(s, '.b')",
    "regexp_instr(s, 'z|d')", "regexp_substr(NULL, 'a')",
    # the listed functions' patterns are written in RE2 the same way
    "s RLIKE '.b'", "s RLIKE '\\\\s'", "regexp_like(s, '^a.b')", "regexp_extract(s, 'a.', 0)", "regexp_extract(s, '(\\\\S)\\\\s', 1)",
    "regexp_replace(s, '\\\\s', '_')", "regexp_replace(s, '.', 'x')",
]

# Patterns whose meaning vpush cannot show to be the same in Java and RE2, and forms it does not take
REFUSED = [
    "regexp_count(s, 'a*')", "regexp_count(s, 'b$')", "regexp_extract_all(s, '(?i)a', 0)", "regexp_substr(s, '\\\\bx')",
    "regexp_instr(s, '(b)', 1)", "regexp_count(s, s)", "regexp_extract_all(s, 'a++', 0)", "regexp_count(s, '[a&&b]')",
    "regexp_count(s, '\\\\p{L}')", "rlike(s, 'b$')", "regexp_extract(s, '(?i)a', 0)", "regexp_replace(s, 'x*', '-')", "rlike(s, s)",
]


@pytest.fixture(scope="module")
def table_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return table_folder(tmp_path_factory.mktemp("regexp"), TABLE)


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
    assert call.split("(")[0] in str(raised.value)


@pytest.mark.parametrize("call", ["regexp_extract_all(s, 'a')", "regexp_extract_all(s, '(b)', 2)", "regexp_extract_all(s, '(b)', -1)"])
def test_group_index_out_of_range_raises_as_spark(call: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    """Spark raises for a row with a match when the pattern has fewer groups than the index."""
    _assert_raises_as_spark(call, spark_view, con, ("INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX",))
