"""A data engineer's pipeline SQL over three variant tables that join give Spark's answer on both
engines, or Spark's error class.

Found probing about 480 such queries (joins on extracted keys of different types, subqueries,
CTEs, grouping sets, windows, set operations, date and decimal arithmetic, in UTC and in
America/Los_Angeles) against PySpark; each query here is one of them, those DuckDB answered
otherwise first among them. The tables: ``events``, in two files Spark shredded differently (its
``user_id`` a string in one and a bigint in the other, residuals in some row groups only, values
from typed SQL values: decimal(38,18), doubles with NaN and infinities, dates, timestamps,
timestamp_ntz, binaries, arrays of objects; SQL NULLs and variant nulls in the join key);
``users``, written by DuckDB (a key of another type in one row); ``orders``, Spark's, its key a
decimal(10,0).
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import vpush
from support.compare import assert_same_answer
from support.tables import connect_tables, tables_fixtures
from support.writers import write_with_duckdb, write_with_spark

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

EVENTS_ONE = """
SELECT id, CASE
  WHEN id = 5 THEN NULL
  WHEN id = 6 THEN parse_json('null')
  WHEN id BETWEEN 11 AND 20 THEN to_variant_object(named_struct(
     'user_id', CASE WHEN id % 4 = 0 THEN NULL ELSE CAST(id % 6 AS STRING) END,
     'ts', CAST(timestamp'2024-03-10 01:30:00' + make_dt_interval(0, id, 0, 0) AS STRING),
     'amount', CAST(CAST(id * 1.25 AS decimal(10,2)) AS STRING),
     'score', CAST(id AS double) / 3,
     'day', date_add(date'2024-02-27', id),
     'kind', CASE WHEN id % 3 = 0 THEN 'click' ELSE 'view' END))
  ELSE to_variant_object(named_struct(
     'user_id', CASE WHEN id = 7 THEN parse_json('null') WHEN id = 8 THEN NULL
                     ELSE parse_json(concat('"', CAST(id % 6 AS STRING), '"')) END,
     'ts', timestamp'2024-03-09 22:00:00' + make_dt_interval(0, id * 3, id, 0),
     'amount', CAST(id * 1234.567890123456789 AS decimal(38,18)),
     'score', CASE WHEN id = 21 THEN double('NaN') WHEN id = 22 THEN double('Infinity')
                   WHEN id = 23 THEN double('-Infinity') WHEN id = 24 THEN -0.0D ELSE CAST(id AS double) / 7 END,
     'day', date_add(date'2024-02-27', id),
     'ntz', CAST(timestamp_ntz'2024-11-03 00:30:00' + make_dt_interval(0, id, 0, 0) AS timestamp_ntz),
     'bin', CAST(concat('b', id % 5) AS binary),
     'kind', CASE WHEN id % 3 = 0 THEN 'click' WHEN id % 3 = 1 THEN 'view' ELSE 'buy' END,
     'items', array(named_struct('sku', concat('s', id % 3), 'qty', id % 4, 'price', CAST(id / 7 AS decimal(6,2))))))
  END AS v
FROM (SELECT CAST(id AS INT) AS id FROM range(1, 41))
"""

EVENTS_TWO = """
SELECT id, CASE
  WHEN id = 45 THEN NULL
  WHEN id BETWEEN 61 AND 70 THEN to_variant_object(named_struct(
     'user_id', CAST(id % 7 AS STRING),
     'ts', timestamp_ntz'2024-11-02 20:00:00' + make_dt_interval(0, id, 0, 0),
     'amount', CAST(id / 3 AS decimal(10,2)),
     'score', CAST(id AS float) / 4,
     'kind', 'view'))
  ELSE to_variant_object(named_struct(
     'user_id', CASE WHEN id = 46 THEN parse_json('null') ELSE CAST(CAST(id % 7 AS bigint) AS variant) END,
     'ts', timestamp_ntz'2024-11-02 20:00:00' + make_dt_interval(0, id, id, 0),
     'amount', CAST(id * 10.01 AS decimal(10,2)),
     'score', CAST(id AS float) / 4,
     'day', date_add(date'2024-10-30', id - 40),
     'kind', CASE WHEN id % 2 = 0 THEN 'click' ELSE 'buy' END))
  END AS v
FROM (SELECT CAST(id AS INT) AS id FROM range(41, 81))
"""

USERS = """
SELECT i AS id, CASE
  WHEN i = 9 THEN NULL
  WHEN i = 10 THEN 'null'::JSON::VARIANT
  WHEN i = 7 THEN {'uid': 7::BIGINT, 'name': 'n7', 'tier': 'gold', 'signup': DATE '2023-12-31', 'credit': 7.5::DECIMAL(12,2)}::VARIANT
  WHEN i = 8 THEN {'uid': '3', 'name': 'dup3', 'tier': NULL, 'signup': '2024-01-05', 'credit': 0.01::DECIMAL(12,2)}::VARIANT
  ELSE {'uid': (i % 7)::INTEGER, 'name': 'n' || i, 'tier': CASE WHEN i % 2 = 0 THEN 'gold' ELSE 'free' END,
        'signup': DATE '2024-01-01' + i::INTEGER, 'credit': (i * 100.25)::DECIMAL(12,2)}::VARIANT
  END AS v
FROM range(0, 12) t(i)
"""

ORDERS = """
SELECT id, CASE WHEN id = 106 THEN NULL ELSE to_variant_object(named_struct(
  'user_id', CASE WHEN id = 107 THEN NULL ELSE CAST(id % 8 AS decimal(10,0)) END,
  'total', CAST(id * 3.3 AS decimal(10,2)),
  'placed', timestamp'2024-03-10 00:00:00' + make_dt_interval(0, (id - 100) * 5, 0, 0),
  'status', CASE WHEN id % 3 = 0 THEN 'new' WHEN id % 3 = 1 THEN 'paid' ELSE NULL END)) END AS v
FROM (SELECT CAST(id AS INT) AS id FROM range(100, 118))
"""

QUERIES: list[Any] = [
    # count_if of a group whose predicate is NULL in every row: 0 (DuckDB's was NULL), with a FILTER too
    "SELECT v:kind::string AS kind, count_if(v:score::double > 2) AS c, count_if(v:score::double > 2) FILTER (WHERE id > 1000) AS f, "
    "count_if(id > 3) FILTER (WHERE id < 10) AS g FROM events GROUP BY 1",
    "SELECT count_if(v:score::double > 2) AS c FROM events WHERE id = 5",
    "SELECT id, count_if(v:score::double > 2) OVER (PARTITION BY v:kind::string) AS w FROM events",
    # a double key -0.0 grouped by position, alias or expression: Spark's group is 0.0 (DuckDB gave -0.0)
    "SELECT v:score::double AS s, count(*) AS n FROM events WHERE id BETWEEN 20 AND 26 GROUP BY 1",
    "SELECT v:score::double AS s, count(*) AS n FROM events WHERE id BETWEEN 20 AND 26 GROUP BY s",
    "SELECT v:score::double * 1 AS s, count(*) AS n FROM events WHERE id BETWEEN 20 AND 26 GROUP BY 1 ORDER BY 1",
    "SELECT -s AS s2, count(*) AS n FROM (SELECT -v:score::double AS s FROM events WHERE id = 24) GROUP BY -s",
    "SELECT v:score::double AS s, count(*) AS n FROM events WHERE id BETWEEN 20 AND 26 GROUP BY ROLLUP(1)",
    "SELECT v:score::float AS s, count(*) AS n FROM events WHERE id BETWEEN 20 AND 26 GROUP BY CUBE(s)",
    "SELECT v:score::double AS s, count(*) AS n FROM events WHERE id BETWEEN 20 AND 26 GROUP BY GROUPING SETS ((1), ())",
    # a string compared with a decimal or double: both doubles (DuckDB read '3.04' as decimal(2,1) 3.0)
    "SELECT id, v:user_id::string AS u FROM events WHERE concat(v:user_id::string, '.04') = 3.0",
    "SELECT id, concat(v:user_id::string, '.04') IN (3.0, 4.0) AS m, concat(v:user_id::string, '.0') = 4.0D AS d, "
    "concat(v:user_id::string, '.04') BETWEEN 3.0 AND 3.01 AS b FROM events",
    "SELECT e.id, o.id FROM events e JOIN orders o ON concat(e.v:user_id::string, '.4') = o.v:user_id::decimal(10,0)",
    "SELECT id FROM events WHERE v:kind::string = 3.5",
    "SELECT id, CASE concat(v:user_id::string, '.04') WHEN 3.0 THEN 'x' ELSE 'y' END AS c, "
    "nullif(concat(v:user_id::string, '.04'), 3.0) AS n FROM events",
    "SELECT id, CASE v:user_id::string WHEN 3.0 THEN 1.5 WHEN '2' THEN 2 END AS c FROM events",
    "SELECT id FROM events WHERE concat(v:user_id::string, '.04') <=> 3.0 OR concat(v:user_id::string, '.04') NOT IN (3.0, 4.0)",
    # x IN (subquery) of a string and a number, date or timestamp (DuckDB's binder refused them)
    "SELECT id FROM events WHERE v:user_id::string IN (SELECT v:user_id::int FROM orders)",
    "SELECT id FROM events WHERE v:user_id::int IN (SELECT v:kind::string FROM events)",
    "SELECT id FROM events WHERE v:user_id::int IN (SELECT v:user_id::string FROM events)",
    "SELECT id FROM events WHERE v:user_id::string IN (SELECT v:user_id::decimal(10,0) FROM orders)",
    "SELECT id FROM events WHERE concat(v:user_id::string, '.04') IN (SELECT v:user_id::decimal(10,0) FROM orders)",
    "SELECT id FROM events WHERE v:user_id::decimal(10,2) IN (SELECT concat(v:user_id::string, '.00') AS x FROM events)",
    "SELECT id FROM events WHERE v:day::string IN (SELECT v:signup::date FROM users)",
    "SELECT id FROM users WHERE v:signup::date IN (SELECT v:signup::string FROM users)",
    "SELECT id FROM events WHERE v:ts::string IN (SELECT v:ts::timestamp FROM events WHERE id < 5)",
    "SELECT id, v:user_id::string IN (SELECT v:user_id::int FROM orders) AS m FROM events",
    "SELECT id, v:user_id::string NOT IN (SELECT v:user_id::int FROM orders) AS m FROM events",
    # a scalar or LATERAL subquery correlated on a variant (extracted from or not): Spark's
    # UNSUPPORTED_CORRELATED_REFERENCE_DATA_TYPE (DuckDB answered); EXISTS and IN take it
    "SELECT e.id, (SELECT max(u.id) FROM users u WHERE u.v:uid::int = e.v:user_id::int) AS c FROM events e",
    "SELECT e.id FROM events e WHERE e.id > (SELECT max(u.id) FROM users u WHERE u.v:uid::int = e.v:user_id::int)",
    "SELECT e.id, x.m FROM events e, LATERAL (SELECT max(u.id) AS m FROM users u WHERE u.v:uid::int = e.v:user_id::int) x",
    "SELECT e.id, (SELECT max(u.id) FROM users u WHERE to_json(u.v) = to_json(e.v)) AS c FROM events e",
    "SELECT e.id, (SELECT max(u.id) FROM users u WHERE u.v:uid::int = e.k) AS c FROM (SELECT id, v:user_id::int AS k FROM events) e",
    "SELECT e.id, x.m FROM events e, LATERAL (SELECT max(u.id) AS m FROM users u WHERE u.id = e.id) x",
    "SELECT id FROM events e WHERE EXISTS (SELECT 1 FROM users u WHERE u.v:uid::int = e.v:user_id::int)",
    # variants inside arrays, maps and structs, from the scan or computed by Spark, on the Spark
    # engine (its scan's array<variant> reached Spark as array<struct<value, metadata>>:
    # DATATYPE_MISMATCH.DATA_DIFF_TYPES; Spark's result came back so)
    "SELECT e.id, CAST(e.v:items AS array<variant>) AS a FROM events e WHERE e.id < 3",
    "SELECT e.id, size(CAST(e.v:items AS array<variant>)) AS a, CAST(e.v:items AS array<variant>)[0] AS f FROM events e",
    "SELECT e.id, CAST(e.v:items[0] AS struct<sku: variant, qty: int>) AS s, "
    "map_values(CAST(e.v:items[0] AS map<string, variant>)) AS m FROM events e",
    "SELECT id, array(v:kind, v:user_id) AS a, named_struct('k', v:kind) AS s FROM events",
    # a grouped SELECT's QUALIFY holding an aggregate: Spark resolves it over the aggregate's output
    "SELECT v:user_id::string AS u, max(id) AS m FROM events GROUP BY 1 QUALIFY row_number() OVER (ORDER BY max(id) DESC) <= 3",
    "SELECT v:user_id::string AS u FROM events GROUP BY 1 QUALIFY sum(id) > 3",
    "SELECT v:user_id::string AS u, count(*) AS n FROM events GROUP BY 1 QUALIFY rank() OVER (ORDER BY count(*)) = 1",
    "SELECT v:user_id::string AS u, max(id) AS m FROM events GROUP BY 1 QUALIFY sum(max(id)) OVER () > 3",
    "SELECT v:user_id::string AS u, max(id) AS m FROM events GROUP BY 1 QUALIFY max(id) OVER () = m",
    "SELECT v:user_id::string AS u, max(id) AS m FROM events GROUP BY 1 QUALIFY count(*) OVER () = 8 AND max(m) OVER () = m",
    "SELECT v:user_id::string AS u, max(id) AS m FROM events GROUP BY 1 QUALIFY row_number() OVER (ORDER BY m DESC, u) <= 3",
    # a LEFT SEMI or ANTI join's right side read outside its ON: Spark's UNRESOLVED_COLUMN
    "SELECT e.id, o.id FROM events e LEFT SEMI JOIN orders o ON o.v:total::decimal(10,2) = concat(e.v:user_id::string, '30.00')",
    "SELECT e.id FROM events e LEFT ANTI JOIN orders o ON o.v:user_id::int = e.v:user_id::int WHERE o.id > 3",
    # the probe's pipeline shapes that agreed from the start
    "SELECT e.id AS l, u.id AS r FROM events e FULL OUTER JOIN users u ON e.v:user_id::string = u.v:uid::int",
    "SELECT e.id AS l, o.id AS r FROM events e LEFT JOIN orders o ON e.v:user_id::bigint <=> o.v:user_id::decimal(10,0)",
    "SELECT e.id FROM events e LEFT ANTI JOIN users u ON e.v:user_id::string = u.v:uid::string",
    "SELECT e.id, u.id FROM events e LEFT JOIN users u ON e.v:user_id::int = u.v:uid::int AND u.v:tier::string = 'gold'",
    "SELECT e.id, u.id FROM events e LEFT JOIN users u ON e.v:user_id::int = u.v:uid::int WHERE u.v:tier::string = 'gold'",
    "SELECT id FROM events WHERE v:user_id::bigint NOT IN (SELECT v:user_id::decimal(10,0) FROM orders WHERE id <> 107 AND id <> 106)",
    "SELECT id FROM events e WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.v:uid::int = e.v:user_id::int)",
    "WITH ev AS (SELECT id, v:user_id::bigint AS uid, v:amount::decimal(38,18) AS amt, v:ts::timestamp AS ts FROM events WHERE v IS NOT NULL), "
    "us AS (SELECT v:uid::bigint AS uid, v:tier::string AS tier FROM users), "
    "j AS (SELECT ev.*, us.tier FROM ev LEFT JOIN us ON ev.uid = us.uid), "
    "agg AS (SELECT tier, count(*) AS n, sum(amt) AS total, max(ts) AS last_ts FROM j GROUP BY tier) "
    "SELECT * FROM agg ORDER BY tier NULLS LAST",
    "SELECT kind, uid, count(*) AS n, grouping(kind) AS gk, grouping(uid) AS gu, grouping_id() AS gid "
    "FROM (SELECT v:kind::string AS kind, v:user_id::bigint AS uid FROM events) GROUP BY CUBE(kind, uid)",
    "SELECT id, count(*) OVER (PARTITION BY v:user_id::int ORDER BY v:ts::timestamp RANGE BETWEEN INTERVAL 2 DAYS PRECEDING AND CURRENT ROW) AS n FROM events",
    "SELECT id, v:user_id::bigint AS uid FROM events QUALIFY row_number() OVER (PARTITION BY v:user_id::bigint ORDER BY v:ts::timestamp DESC) = 1",
    "SELECT v:user_id::bigint AS k FROM events EXCEPT ALL SELECT v:uid::int FROM users",
    "SELECT v:amount::decimal(10,2) AS x FROM events UNION SELECT v:score::double FROM events WHERE id < 30",
    "SELECT id, coalesce(v:user_id::bigint, v:amount::decimal(10,2)) AS c, nvl(v:ts::timestamp, v:day::date) AS t FROM events",
    "SELECT v:kind::string AS k, sum(v:amount::decimal(38,18)) AS s, avg(v:amount::decimal(38,18)) AS a FROM events GROUP BY 1",
    "SELECT id, v:score::double AS s FROM events ORDER BY s DESC NULLS FIRST, id LIMIT 10 OFFSET 3",
]

# in America/Los_Angeles: timestamps, timestamp_ntz and dates through the session zone
ZONED_QUERIES = [
    "SELECT id, v:ts::timestamp AS t, v:ts::timestamp_ntz AS n, v:ntz::timestamp AS nt, to_date(v:ts::timestamp) AS d FROM events",
    "SELECT id, date_trunc('DAY', v:ts::timestamp) AS d, unix_timestamp(v:ts::string) AS u, v:ts::string AS s FROM events",
    "SELECT id, count(*) OVER (ORDER BY v:ts::timestamp RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND CURRENT ROW) AS n FROM events",
    "SELECT id FROM events WHERE v:ts::string IN (SELECT v:ts::timestamp FROM events WHERE id < 5)",
]


def _write_tables(root: Path, spark: SparkSession) -> dict[str, Path]:
    events = root / "events"
    events.mkdir()
    one = write_with_spark(spark, root / "one", EVENTS_ONE, "user_id string, ts timestamp, amount decimal(38,18), score double, "
                           "day date, ntz timestamp_ntz, bin binary, kind string, items array<struct<sku string, qty int, price decimal(6,2)>>", 10)
    two = write_with_spark(spark, root / "two", EVENTS_TWO, "user_id bigint, ts timestamp_ntz, amount decimal(10,2), kind string", 10)
    shutil.copy(one[0], events / "part-00000.parquet")
    shutil.copy(two[0], events / "part-00001.parquet")
    write_with_duckdb(root / "users" / "part-0.parquet", USERS,
                      "STRUCT(uid INTEGER, name VARCHAR, tier VARCHAR, signup DATE, credit DECIMAL(12,2))", 2048)
    write_with_spark(spark, root / "orders", ORDERS, "user_id decimal(10,0), total decimal(10,2), placed timestamp, status string", 6)
    return {"events": events, "users": root / "users", "orders": root / "orders"}


tables, spark_views, con, _ = tables_fixtures(_write_tables, "pipeline", both_engines=True, with_spark=True)


# Spark's answer to each query, computed once for both engines
_SPARK_ANSWERS: dict[str, tuple[Any, ...]] = {}
_ZONED_ANSWERS: dict[str, tuple[Any, ...]] = {}


@pytest.mark.parametrize("sql", QUERIES)
def test_matches_spark(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_views, con, _SPARK_ANSWERS)


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_matches_spark_in_another_time_zone(engine: str, spark_views: SparkSession, tables: dict[str, Path]) -> None:
    zone = "America/Los_Angeles"
    connection = vpush.connect(engine="spark", spark=spark_views, time_zone=zone) if engine == "spark" else vpush.connect(time_zone=zone)
    for name, path in tables.items():
        connection.register(name, path)
    try:
        for sql in ZONED_QUERIES:
            spark_views.conf.set("spark.sql.session.timeZone", zone)
            assert_same_answer(sql, spark_views, connection, _ZONED_ANSWERS)
    finally:
        spark_views.conf.set("spark.sql.session.timeZone", "UTC")


def test_first_of_strings_by_a_key_with_nulls(spark_views: SparkSession, tables: dict[str, Path]) -> None:
    """``first``/``last`` of strings grouped by an integral key some rows have NULL: Spark
    aggregates them by ``SortAggregateExec``, whose sort (``UnsafeInMemorySorter`` with radix
    sort) puts each NULL-keyed row first by swapping it with the row at the null boundary, which
    goes to the end: a group's rows are not in the order read (with
    ``spark.sql.sort.enableRadixSort=false`` they are). The DuckDB engine takes them in the order
    the sort leaves them (``spark_order.follow_radix_sorts``)."""
    sql = "SELECT v:user_id::bigint AS uid, first(CAST(id AS STRING)) AS f, last(CAST(id AS STRING)) AS l FROM events GROUP BY 1"
    assert_same_answer(sql, spark_views, connect_tables(tables), _SPARK_ANSWERS)


@pytest.mark.parametrize("sql", [
    "SELECT id, v:amount::decimal(10,2) + '1.5' AS a, v:amount::decimal(10,2) * '2' AS b FROM events WHERE id < 5",
    "SELECT id, v:score::double + v:user_id::string AS a FROM events WHERE id < 5",
    "SELECT v:user_id::string AS u FROM events GROUP BY 1 HAVING u > 2.5",
    "SELECT id, v:amount::decimal(10,2) / '4' AS a, '2' % v:score::double AS b, typeof(v:user_id::string - 1) AS t FROM events WHERE id < 5",
    "SELECT v:user_id::string AS u, count(*) AS n FROM events GROUP BY 1 ORDER BY u > 2.5, u",
    # Java's Double.parseDouble takes a d/f suffix
    "SELECT id, CAST(concat(CAST(id AS STRING), '.5d') AS DOUBLE) AS d, try_cast(concat(' ', CAST(id AS STRING), 'F ') AS FLOAT) AS f, "
    "v:amount::decimal(10,2) + concat(CAST(id AS STRING), 'D') AS a, try_cast(concat(CAST(id AS STRING), 'dd') AS DOUBLE) AS n FROM events WHERE id < 5",
])
def test_strings_beside_fractions(sql: str, spark_views: SparkSession, tables: dict[str, Path]) -> None:
    """Spark reads a string in arithmetic beside a decimal, double or float as a double (as Java
    parses one), beside an integer as a bigint, and a HAVING's or ORDER BY's alias by its
    projection's type (DuckDB's binder had refused the pairs, without Spark's error class)."""
    assert_same_answer(sql, spark_views, connect_tables(tables), _SPARK_ANSWERS)
