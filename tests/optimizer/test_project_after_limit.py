"""Projections that call vpush's engine functions run after ORDER BY ... LIMIT, not before,
and only where that keeps the query's meaning."""
from __future__ import annotations

import duckdb
import pytest
import sqlglot

from vpush.optimizer.plan_query import project_after_limit


def _rewrite(sql: str) -> str:
    return project_after_limit(sqlglot.parse_one(sql, read="duckdb")).sql(dialect="duckdb")


def test_the_projection_moves_past_the_limit() -> None:
    sql = "SELECT id, vpush_to_json(v, 'UTC') AS j FROM (SELECT * FROM s) AS t WHERE k > 1 ORDER BY id LIMIT 3"
    assert _rewrite(sql) == (
        'SELECT id, VPUSH_TO_JSON(v, \'UTC\') AS j FROM (SELECT * FROM (SELECT * FROM s) AS t '
        'WHERE k > 1 ORDER BY id LIMIT 3) AS "t" ORDER BY id'
    )


@pytest.mark.parametrize(
    "sql",
    [
        # no engine function: nothing to gain
        "SELECT id, v FROM (SELECT * FROM s) AS t ORDER BY id LIMIT 3",
        # no LIMIT
        "SELECT id, vpush_to_json(v, 'UTC') AS j FROM (SELECT * FROM s) AS t ORDER BY id",
        # the sort key is the computed projection
        "SELECT id, vpush_to_json(v, 'UTC') AS j FROM (SELECT * FROM s) AS t ORDER BY j LIMIT 3",
        # a renamed column is a projection the key would name
        "SELECT id AS k, vpush_to_json(v, 'UTC') AS j FROM (SELECT * FROM s) AS t ORDER BY k LIMIT 3",
        # aggregates, DISTINCT and joins keep their shape
        "SELECT count(*), vpush_to_json(any_value(v), 'UTC') FROM (SELECT * FROM s) AS t ORDER BY 1 LIMIT 3",
        "SELECT DISTINCT id, vpush_to_json(v, 'UTC') FROM (SELECT * FROM s) AS t ORDER BY id LIMIT 3",
        "SELECT t.id, vpush_to_json(t.v, 'UTC') FROM (SELECT * FROM s) AS t JOIN u ON t.id = u.id ORDER BY t.id LIMIT 3",
        # a projection that may raise: Spark computes it for every row, before its top-n
        "SELECT id, vpush_to_json(v, 'UTC') AS j, vpush_variant_get_bigint(m, v, '$', TRUE, 'UTC', f, '$.a') AS a "
        "FROM (SELECT * FROM s) AS t ORDER BY id LIMIT 3",
        "SELECT id, CAST(vpush_to_json(v, 'UTC') AS INT) AS j FROM (SELECT * FROM s) AS t ORDER BY id LIMIT 3",
        "SELECT id, vpush_parse_json(s) AS j FROM (SELECT * FROM s) AS t ORDER BY id LIMIT 3",
        "SELECT id, vpush_to_json(v, 'UTC') AS j, ADD(k, 2147483647) AS x FROM (SELECT * FROM s) AS t ORDER BY id LIMIT 3",
        "SELECT id, vpush_to_json(v, 'UTC') AS j, k * id AS x FROM (SELECT * FROM s) AS t ORDER BY id LIMIT 3",
    ],
)
def test_left_alone(sql: str) -> None:
    assert _rewrite(sql) == sqlglot.parse_one(sql, read="duckdb").sql(dialect="duckdb")


def test_the_answer_is_the_same() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE s AS SELECT i AS id, i % 7 AS k, i::VARCHAR AS v FROM range(1000) r(i)")
    con.create_function("vpush_to_json", lambda v, tz: f"<{v}>", ["VARCHAR", "VARCHAR"], "VARCHAR")
    sql = "SELECT id, vpush_to_json(v, 'UTC') AS j FROM (SELECT * FROM s) AS t WHERE k > 1 ORDER BY id DESC LIMIT 5 OFFSET 2"
    assert _rewrite(sql) != sql
    assert con.sql(_rewrite(sql)).fetchall() == con.sql(sql).fetchall()
