"""Spark's generators over SQL arrays and maps (``explode``, ``posexplode``, ``inline`` and their
``_outer`` forms) on both engines, against PySpark over the same Parquet files.

Each query runs on PySpark (the oracle) and through vpush, and must give the same column names,
types and rows (compared sorted, as in ``tests/test_spark_functions.py``), or the same error
class. The arrays hold NULL elements, and rows hold NULL and empty arrays and maps, so that the
plain forms drop rows and the ``_outer`` forms keep one row of NULLs; a column named ``col`` sits
beside the generators' own ``col``.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import vpush
from support.tables import tables_fixtures
from support.writers import write_with_duckdb
from test_spark_functions import _answer, _assert_raises_as_spark, _spark_run, _vpush_run
from vpush.codec.errors import VpushError
from vpush.optimizer.rewrite_generators import GENERATORS

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_POINT = pa.struct([("x", pa.int32()), ("y", pa.string())])
TABLE = pa.table(
    {
        "id": pa.array([1, 2, 3, 4, 5, 6], pa.int32()),
        "a": pa.array([[1, 2, None], [], None, [5], [3, 3, 1], [None]], pa.list_(pa.int32())),
        "w": pa.array([["x", "y"], ["z"], [], None, ["x"], ["y", None, "x"]], pa.list_(pa.string())),
        "s": pa.array(
            [[{"x": 1, "y": "a"}, None], [], None, [{"x": 2, "y": None}], [{"x": None, "y": "b"}], [None]],
            pa.list_(_POINT),
        ),
        "m": pa.array(
            [[("a", 1), ("b", None)], [], None, [("z", 3)], [("b", 2), ("a", 4)], [("c", 5)]],
            pa.map_(pa.string(), pa.int32()),
        ),
        "col": pa.array([7, 8, 9, 10, 11, 12], pa.int32()),
    }
)

# A variant column: tags shredded as a string array by DuckDB, m an object read as a map.
_ROWS = """
  CASE i % 5
    WHEN 0 THEN '{"tags": ["a", "b"], "m": {"x": 1, "y": 2}}'
    WHEN 1 THEN '{"tags": ["c", null, "a"], "m": {"z": null}}'
    WHEN 2 THEN '{"tags": [], "m": {}}'
    WHEN 3 THEN '{"other": true}'
    ELSE '{"tags": ["b"], "m": {"x": 3}}'
  END
"""
EVENTS_SELECT = f"SELECT i AS id, CASE WHEN i % 7 = 6 THEN NULL ELSE ({_ROWS})::JSON::VARIANT END AS v FROM range(30) t(i)"

QUERIES = [
    # a SELECT without FROM
    "SELECT explode(sequence(1, 3))",
    "SELECT posexplode(array(1, 2)), explode(array(3, 4)) AS y",
    # the SELECT list, unaliased: Spark's names
    "SELECT id, explode(a) FROM t",
    "SELECT id, explode_outer(a) FROM t",
    "SELECT id, posexplode(a) FROM t",
    "SELECT id, posexplode_outer(a) FROM t",
    "SELECT id, inline(s) FROM t",
    "SELECT id, inline_outer(s) FROM t",
    "SELECT id, explode(m) FROM t",
    "SELECT id, explode_outer(m) FROM t",
    "SELECT id, posexplode(m) FROM t",
    "SELECT id, posexplode_outer(m) FROM t",
    "SELECT id, explode(array(id, 2, NULL)) FROM t",
    "SELECT id, explode(map('a', id, 'b', 2)) FROM t",
    "SELECT id, explode(w) FROM t",
    # aliases
    "SELECT id, explode(a) AS x FROM t",
    "SELECT id, posexplode(a) AS (p, x) FROM t",
    "SELECT inline(s) AS (p, q) FROM t",
    "SELECT explode(m) AS (k, v) FROM t",
    "SELECT id, posexplode_outer(m) AS (p, k, v) FROM t",
    # with other columns, *, two generators (Spark 4.3 takes the product), nested queries
    "SELECT *, explode(a) FROM t",
    "SELECT t.*, posexplode(w) FROM t",
    "SELECT id, explode(a), explode(w) FROM t",
    "SELECT x FROM (SELECT explode(a) AS x FROM t) WHERE x IS NOT NULL",
    "WITH g AS (SELECT id, explode_outer(w) AS tag FROM t) SELECT tag, count(*) FROM g GROUP BY tag",
    # WHERE (before the generator), ORDER BY, DISTINCT, LIMIT, windows (after it)
    "SELECT id, explode(a) AS x FROM t WHERE id > 1 ORDER BY x DESC, id",
    "SELECT DISTINCT explode(w) AS tag FROM t",
    "SELECT id, explode(a) AS x, count(*) OVER (PARTITION BY id) AS n FROM t",
    "SELECT explode(a) FROM t ORDER BY col LIMIT 3",
    # LATERAL VIEW [OUTER]
    "SELECT id, tag FROM t LATERAL VIEW explode(w) v AS tag",
    "SELECT id, v.col FROM t LATERAL VIEW explode(a) v",
    "SELECT id, p, x FROM t LATERAL VIEW OUTER posexplode(a) v AS p, x",
    "SELECT id, x FROM t LATERAL VIEW explode_outer(a) v AS x",
    "SELECT id, k, val FROM t LATERAL VIEW OUTER explode(m) v AS k, val",
    "SELECT id, x, y FROM t LATERAL VIEW explode(a) v AS x LATERAL VIEW explode(w) u AS y",
    "SELECT * FROM t LATERAL VIEW inline(s) v",
    "SELECT id, x FROM t LATERAL VIEW explode(a) v AS x WHERE x > 1 OR id = 4",
    "SELECT x, count(*) AS n FROM t LATERAL VIEW explode(a) v AS x GROUP BY x",
    "SELECT tag, count(*), sum(id) FROM t LATERAL VIEW OUTER explode(w) v AS tag GROUP BY tag ORDER BY tag",
    "SELECT id, tag, explode(a) FROM t LATERAL VIEW explode(w) v AS tag",
    # json_tuple: one row for each row, c0, c1, ... (or the aliases), beside other generators too
    """SELECT id, json_tuple(concat('{"a":', string(id), ',"b":"x","a":null}'), 'a', 'b', 'c') FROM t""",
    """SELECT id, explode(a), json_tuple(concat('{"k":', string(id), '}'), 'k') AS (k) FROM t""",
    """SELECT *, json_tuple(concat('{"k":[', string(id), ']}'), 'k') FROM t WHERE id > 2""",
    # stack(n, ...): n rows of ceil(k / n) columns col0, col1, ..., NULL past the last value
    "SELECT stack(2, 1, 'a', 2, 'b')",
    "SELECT id, stack(2, id, col, 7, NULL, 9) FROM t",
    "SELECT stack(3, id, 'x', col, NULL, 1, 'y') AS (x, y) FROM t WHERE id < 3",
    "SELECT stack(1, w, a, s, m) FROM t",
    "SELECT id, n FROM t LATERAL VIEW stack(2, id, col) v AS n",
    # table-valued generators in FROM (and after a FROM, LATERAL: reading its columns)
    "SELECT * FROM explode(array(1, 2, NULL))",
    "SELECT col + 1 FROM explode(array(1, 2)) AS e",
    "SELECT e.x FROM explode(array(1, 2)) AS e(x)",
    "SELECT * FROM posexplode(array('a', 'b'))",
    "SELECT * FROM explode_outer(map('a', 1, 'b', 2))",
    "SELECT * FROM inline(array(named_struct('p', 1, 'q', 'x'), named_struct('p', 2, 'q', 'y')))",
    "SELECT * FROM stack(2, 1, 'a', 2, 'b') AS s(n, c)",
    "SELECT id, c FROM t, LATERAL explode(a) AS e(c)",
    "SELECT t.id, e.* FROM t, LATERAL posexplode_outer(w) e",
    # a generator over aggregates: Spark generates after grouping
    "SELECT explode(collect_list(id)) FROM t",
    "SELECT col > 9 AS big, explode(collect_list(id)) AS x FROM t GROUP BY col > 9 ORDER BY big",
    "SELECT id, posexplode(array(count(*), max(col))) FROM t GROUP BY id HAVING id > 2",
    # of a join USING's key, read unqualified: one column, of its sides' type (refused before)
    "SELECT id, x FROM t JOIN (SELECT id, col AS c FROM t) u USING (id) LATERAL VIEW explode(array(id, c)) e AS x",
    "SELECT id, explode(array(id, 1)) AS x FROM t x RIGHT JOIN (SELECT id FROM t WHERE id > 2) y USING (id)",
    "SELECT explode_outer(a) AS x FROM t x FULL JOIN (SELECT a, id FROM t WHERE id < 3) y USING (a, id)",
    "SELECT explode(array(id)) AS x FROM t x NATURAL JOIN (SELECT id, col FROM t) y",
]

EVENT_QUERIES = [
    "SELECT id, explode(variant_get(v, '$.tags', 'array<string>')) AS tag FROM e",
    "SELECT id, tag FROM e LATERAL VIEW explode(variant_get(v, '$.tags', 'array<string>')) t AS tag",
    "SELECT id, tag FROM e LATERAL VIEW OUTER explode(try_variant_get(v, '$.tags', 'array<string>')) t AS tag",
    "SELECT id, posexplode_outer(variant_get(v, '$.tags', 'array<string>')) FROM e",
    "SELECT id, explode(variant_get(v, '$.m', 'map<string,int>')) FROM e",
    "SELECT tag, count(*) FROM e LATERAL VIEW explode(variant_get(v, '$.tags', 'array<string>')) t AS tag GROUP BY tag",
]

# Spark raises these at analysis; vpush raises the same class on the DuckDB engine.
SPARK_RAISES = [
    ("id, explode(a) + 1", "UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS"),
    ("explode(explode(array(a)))", "UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS"),
    ("explode(id)", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
    ("inline(a)", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
    ("posexplode(a) AS p", "UDTF_ALIAS_NUMBER_MISMATCH"),
    ("explode(a) AS (p, q)", "UDTF_ALIAS_NUMBER_MISMATCH"),
    ("inline(s) AS p", "UDTF_ALIAS_NUMBER_MISMATCH"),
    ("stack(2, id, col, 'x', 1)", "DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES"),
    ("stack(2, id, a)", "DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES"),
    ("explode(a, a)", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
    ("posexplode()", "REQUIRED_PARAMETER_NOT_FOUND"),
]

# Spark answers these; vpush refuses them on DuckDB rather than answer otherwise.
REFUSED = [
    # after an aggregation, beside a projection that is not a named column (its name not yet known)
    "SELECT id, count(*), explode(array(1)) FROM t GROUP BY id",
    "SELECT stack(2, w, w) FROM t",  # Spark's array types keep whether they hold NULLs: vpush's do not
    """SELECT id, j FROM t LATERAL VIEW json_tuple(concat('{"k":', string(id), '}'), 'k') v AS j""",
]


def _write_tables(root: Path) -> dict[str, Path]:
    (root / "t").mkdir()
    pq.write_table(TABLE, root / "t" / "part-0.parquet")
    write_with_duckdb(root / "e" / "part-0.parquet", EVENTS_SELECT, "STRUCT(tags VARCHAR[])", 2048)
    return {"t": root / "t", "e": root / "e"}


tables, spark_views, con, spark_con = tables_fixtures(_write_tables, "explode")


def _same(sql: str, spark: SparkSession, con: vpush.Connection) -> None:
    expected = _answer(_spark_run(spark), sql, set())
    assert expected[0] != "error", f"Spark should answer {sql}"
    assert _answer(_vpush_run(con), sql, set()) == expected, sql


@pytest.mark.parametrize("sql", QUERIES + EVENT_QUERIES)
def test_duckdb_engine_answers_as_spark(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    _same(sql, spark_views, con)


@pytest.mark.parametrize("sql", QUERIES + EVENT_QUERIES)
def test_spark_engine_answers_as_spark(sql: str, spark_views: SparkSession, spark_con: vpush.Connection) -> None:
    _same(sql, spark_views, spark_con)


def test_elements_come_in_array_order(spark_views: SparkSession, con: vpush.Connection) -> None:
    """Within one input row the generated rows follow the array, as in Spark (not sorted: the
    rows of each id in the order the engine gives them)."""
    sql = "SELECT id, explode(a), explode_outer(w) FROM t"

    def by_id(rows: list[tuple[Any, ...]]) -> dict[Any, list[tuple[Any, ...]]]:
        out: dict[Any, list[tuple[Any, ...]]] = {}
        for row in rows:
            out.setdefault(row[0], []).append(row)
        return out

    want = by_id(_spark_run(spark_views)(sql)[2])
    got = by_id(_vpush_run(con)(sql)[2])
    assert got == want


@pytest.mark.parametrize(("call", "wanted"), SPARK_RAISES)
def test_raises_as_spark(call: str, wanted: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    _assert_raises_as_spark(call, spark_views, con, (wanted,))


@pytest.mark.parametrize(("sql", "wanted"), [
    ("SELECT id FROM t WHERE size(array(explode(a))) > 0", "UNSUPPORTED_GENERATOR.OUTSIDE_SELECT"),
    ("SELECT * FROM inline()", "REQUIRED_PARAMETER_NOT_FOUND"),
    ("SELECT id FROM t LATERAL VIEW explode() e", "REQUIRED_PARAMETER_NOT_FOUND"),
])
def test_statements_raise_as_spark(sql: str, wanted: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    with pytest.raises(Exception) as spark_raised:
        spark_views.sql(sql).collect()
    assert spark_raised.value.getCondition() == wanted  # type: ignore[attr-defined]
    with pytest.raises(VpushError) as raised:
        con.sql(sql).to_arrow()
    assert raised.value.error_class == wanted


@pytest.mark.parametrize("sql", REFUSED)
def test_refused_on_duckdb_and_answered_on_spark(sql: str, spark_views: SparkSession, con: vpush.Connection, spark_con: vpush.Connection) -> None:
    with pytest.raises(VpushError) as raised:
        con.sql(sql).to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"
    _same(sql, spark_views, spark_con)


def test_every_generator_is_tested() -> None:
    called = " ".join(QUERIES + EVENT_QUERIES).lower()
    assert sorted(name for name in GENERATORS if f"{name}(" not in called) == []
