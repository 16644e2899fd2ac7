"""A filter's conjuncts are tested in Spark's order where one may raise (``optimizer/order_conjuncts.py``).

Spark's filter tests its conjuncts from left to right, each only on the rows those before it
kept; ``AND`` and ``OR`` inside a condition compute their right side only where the left one does
not decide. So ``i + 1 > 1 AND id <> 6`` raises the overflow for the row where ``i`` is the
largest int (id 6) and ``id <> 6 AND i + 1 > 1`` answers, in a WHERE, a join's ON, a HAVING, a
WHERE over a subquery's projection, and for a variant cast (``v:a::int`` of a string) as for
integer arithmetic; DuckDB had tested ``id <> 6`` first (in its scan, or by its cost) and
answered both. Each query runs once on Spark (the oracle) and on vpush through both engines.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest

import vpush
from support.compare import assert_same_answer
from support.tables import connect_tables, table_folder, tables_fixtures

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TABLE = pa.table(
    {
        "id": pa.array([1, 2, 3, 4, 5, 6, 7, 8], pa.int32()),
        "i": pa.array([1, 2, None, 2, -7, 2147483647, 0, None], pa.int32()),
        "g": pa.array(["a", "b", "a", None, "", "é", "b", "Z"]),
    }
)


def _write(root: Path, spark: SparkSession) -> dict[str, Path]:
    """``t``: id, i (the largest int at id 6), g, and v (a variant whose ``a`` is a string at id 6,
    else an int); ``u``: id and v, whose ``a`` is ``'abc'`` at id 1 and a date's text at id 2, and
    whose ``b`` (``'x'``, ``'y'``) Spark's writer shreds with no residual, so its statistics rule
    out ``v:b::string = 'z'``; ``z``: id 1-4 and v, ``a`` the id and ``b`` ``'s'``, shredded;
    ``words``: id and s, the words Spark reads as booleans."""
    folder = root / "t"
    plain = table_folder(root / "plain", TABLE)
    spark.read.parquet(str(plain)).selectExpr(
        "id", "i", "g",
        "parse_json(CASE WHEN id = 6 THEN '{\"a\": \"x\"}' ELSE concat('{\"a\": ', id, '}') END) AS v",
    ).coalesce(1).write.parquet(str(folder))
    spark.sql(
        "SELECT id, parse_json(j) AS v FROM VALUES (1, '{\"a\": \"abc\", \"b\": \"x\"}'), "
        "(2, '{\"a\": \"2024-01-01\", \"b\": \"y\"}') AS q(id, j)"
    ).coalesce(1).write.parquet(str(root / "u"))
    spark.sql("SELECT id, parse_json(concat('{\"a\": ', id, ', \"b\": \"s\"}')) AS v FROM range(1, 5)").coalesce(1).write.parquet(str(root / "z"))
    spark.sql("SELECT * FROM VALUES (1, 'yes'), (2, ' true '), (3, 'T'), (4, '1'), (5, 'n'), (6, '0'), (7, 'False') AS q(id, s)").coalesce(1).write.parquet(str(root / "words"))
    return {"t": folder, "u": root / "u", "z": root / "z", "words": root / "words"}


tables, spark_views, con, spark_con = tables_fixtures(_write, "conjunct_order", both_engines=True, with_spark=True)

# Measured on PySpark 4.3: the first raises, the second (its conjuncts the other way round) answers.
PAIRS = [
    ("SELECT id FROM t WHERE i + 1 > 1 AND id <> 6", "SELECT id FROM t WHERE id <> 6 AND i + 1 > 1"),
    ("SELECT id FROM t WHERE i + 1 > 1 AND id <> 6 AND id > 0", "SELECT id FROM t WHERE id > 0 AND id <> 6 AND i + 1 > 1"),
    ("SELECT id FROM t WHERE i * 2 > 1 AND g <> 'é'", "SELECT id FROM t WHERE g <> 'é' AND i * 2 > 1"),
    ("SELECT id FROM t WHERE i + i > 1 AND id < 6", "SELECT id FROM t WHERE id < 6 AND i + i > 1"),
    ("SELECT id FROM t WHERE i + 1 > 1 AND i < 100", "SELECT id FROM t WHERE i < 100 AND i + 1 > 1"),
    ("SELECT id FROM t WHERE i + 1 > 1 AND id IN (1, 2, 3)", "SELECT id FROM t WHERE id IN (1, 2, 3) AND i + 1 > 1"),
    ("SELECT id FROM t WHERE i + 1 > 1 OR id = 6", "SELECT id FROM t WHERE id = 6 OR i + 1 > 1"),
    ("SELECT id FROM t WHERE (i + 1 > 1 AND id <> 6) OR id = 100", "SELECT id FROM t WHERE (id <> 6 AND i + 1 > 1) OR id = 100"),
    ("SELECT id FROM t WHERE coalesce(i + 1 > 1, false) AND id <> 6", "SELECT id FROM t WHERE id <> 6 AND coalesce(i + 1 > 1, false)"),
    ("SELECT id FROM t WHERE IF(i + 1 > 1, true, false) AND id <> 6", "SELECT id FROM t WHERE IF(id <> 6, i + 1 > 1, false)"),
    ("SELECT id FROM t WHERE CASE WHEN i + 1 > 1 THEN id <> 6 END", "SELECT id FROM t WHERE CASE WHEN id <> 6 THEN i + 1 > 1 END"),
    # a cast Spark tests on the rows the conjuncts before it keep (not pushed into the scan)
    ("SELECT id FROM t WHERE v:a::int > 0 AND id <> 6", "SELECT id FROM t WHERE id <> 6 AND v:a::int > 0"),
    ("SELECT id FROM t WHERE CAST(v:a AS int) > 0 AND id <> 6", "SELECT id FROM t WHERE id <> 6 AND CAST(v:a AS int) > 0"),
    ("SELECT id FROM t WHERE CAST(variant_get(v, '$.a', 'string') AS INT) > 0 AND id <> 6",
     "SELECT id FROM t WHERE id <> 6 AND CAST(variant_get(v, '$.a', 'string') AS INT) > 0"),
    ("SELECT id FROM t WHERE CAST(g AS INT) IS NULL AND id = 4", "SELECT id FROM t WHERE id = 4 AND CAST(g AS INT) IS NULL"),
    # Spark infers isnotnull(i) from i > 0 but tests it after the cast written first
    ("SELECT id FROM t WHERE CAST(CASE WHEN id = 3 THEN 'x' ELSE '1' END AS INT) > 0 AND i > 0",
     "SELECT id FROM t WHERE i > 0 AND CAST(CASE WHEN id = 3 THEN 'x' ELSE '1' END AS INT) > 0"),
    # a join's ON: the conjuncts of one side pushed to it in their order
    ("SELECT a.id FROM t a JOIN t b ON a.id = b.id AND a.i + 1 > 1 AND a.id <> 6",
     "SELECT a.id FROM t a JOIN t b ON a.id = b.id AND a.id <> 6 AND a.i + 1 > 1"),
    ("SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND b.i + 1 > 1 AND b.id <> 6",
     "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND b.id <> 6 AND b.i + 1 > 1"),
    ("SELECT b.id FROM t a RIGHT JOIN t b ON a.id = b.id AND a.i + 1 > 1 AND a.id <> 6",
     "SELECT b.id FROM t a RIGHT JOIN t b ON a.id = b.id AND a.id <> 6 AND a.i + 1 > 1"),
    ("SELECT a.id FROM t a LEFT SEMI JOIN t b ON a.id = b.id AND b.i + 1 > 1 AND b.id <> 6",
     "SELECT a.id FROM t a LEFT SEMI JOIN t b ON a.id = b.id AND b.id <> 6 AND b.i + 1 > 1"),
    ("SELECT a.id FROM t a LEFT ANTI JOIN t b ON a.id = b.id AND b.i + 1 > 1 AND b.id <> 6",
     "SELECT a.id FROM t a LEFT ANTI JOIN t b ON a.id = b.id AND b.id <> 6 AND b.i + 1 > 1"),
    # a WHERE over a join: its conjuncts pushed to the sides as an ON's are
    ("SELECT a.id FROM t a JOIN t b ON a.id = b.id WHERE a.i + 1 > 1 AND a.id <> 6",
     "SELECT a.id FROM t a JOIN t b ON a.id = b.id WHERE a.id <> 6 AND a.i + 1 > 1"),
    ("SELECT a.id FROM t a, t b WHERE a.id = b.id AND a.i + 1 > 1 AND a.id <> 6",
     "SELECT a.id FROM t a, t b WHERE a.id = b.id AND a.id <> 6 AND a.i + 1 > 1"),
    ("SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id WHERE b.i + 1 > 1 AND b.id <> 6",
     "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id WHERE b.id <> 6 AND b.i + 1 > 1"),
    ("SELECT a.id FROM t a JOIN t b USING (id) WHERE a.i + 1 > 1 AND a.id <> 6",
     "SELECT a.id FROM t a JOIN t b USING (id) WHERE a.id <> 6 AND a.i + 1 > 1"),
    ("SELECT a.id FROM t a CROSS JOIN t b WHERE a.i + 1 > 1 AND a.id <> 6 AND b.id = 1",
     "SELECT a.id FROM t a CROSS JOIN t b WHERE a.id <> 6 AND a.i + 1 > 1 AND b.id = 1"),
    # a HAVING over a join's grouping keys, pushed below the aggregate to a side
    ("SELECT a.id, count(*) AS n FROM t a JOIN t b ON a.id = b.id GROUP BY a.id, a.i HAVING a.i + 1 > 1 AND a.id <> 6",
     "SELECT a.id, count(*) AS n FROM t a JOIN t b ON a.id = b.id GROUP BY a.id, a.i HAVING a.id <> 6 AND a.i + 1 > 1"),
    # a correlated subquery's WHERE (Spark makes it a join, its equality the key)
    ("SELECT a.id FROM t a WHERE EXISTS (SELECT 1 FROM t b WHERE b.id = a.id AND b.i + 1 > 1 AND b.id <> 6)",
     "SELECT a.id FROM t a WHERE EXISTS (SELECT 1 FROM t b WHERE b.id = a.id AND b.id <> 6 AND b.i + 1 > 1)"),
    # a HAVING over grouping columns (pushed below the aggregate)
    ("SELECT id, count(*) AS n FROM t GROUP BY id, i HAVING i + 1 > 1 AND id <> 6",
     "SELECT id, count(*) AS n FROM t GROUP BY id, i HAVING id <> 6 AND i + 1 > 1"),
    # a WHERE over a subquery's projection that may raise (Spark substitutes it into the filter)
    ("SELECT id FROM (SELECT id, i + 1 AS j FROM t) WHERE j > 1 AND id <> 6",
     "SELECT id FROM (SELECT id, i + 1 AS j FROM t) WHERE id <> 6 AND j > 1"),
    ("SELECT id FROM (SELECT id, i + 1 AS j FROM t) s WHERE s.j > 1 AND s.id <> 6",
     "SELECT id FROM (SELECT id, i + 1 AS j FROM t) s WHERE s.id <> 6 AND s.j > 1"),
    # a conjunct after one that may raise rules out no row group by a variant path's statistics:
    # Spark's Parquet reader does not test it, and its filter raises for the row first
    ("SELECT id FROM u WHERE cast(v:a AS date) > DATE'2000-01-01' AND v:b::string = 'z'",
     "SELECT id FROM u WHERE v:b::string = 'z' AND cast(v:a AS date) > DATE'2000-01-01'"),
    ("SELECT id FROM u WHERE v:a::int > 0 AND v:b::string = 'z'", "SELECT id FROM u WHERE v:b::string = 'z' AND v:a::int > 0"),
    ("SELECT id FROM u WHERE length(v:a::string) + 2147483647 > 0 AND v:b::string = 'z'",
     "SELECT id FROM u WHERE v:b::string = 'z' AND length(v:a::string) + 2147483647 > 0"),
    ("SELECT id FROM u WHERE v:b::string = true AND v:b::string > 'zz'", "SELECT id FROM u WHERE v:b::string > 'zz' AND v:b::string = true"),
    ("SELECT id FROM u WHERE CAST(v:b::string AS INT) > 0 AND v:b::string > 'zz'",
     "SELECT id FROM u WHERE v:b::string > 'zz' AND CAST(v:b::string AS INT) > 0"),
]

QUERIES = [sql for pair in PAIRS for sql in pair] + [
    # an aggregate in a HAVING is computed before the HAVING: it raises whatever the order
    "SELECT id, count(*) AS n FROM t GROUP BY id, i HAVING max(i) + 1 > 1 AND min(id) <> 6",
    "SELECT id, count(*) AS n FROM t GROUP BY id, i HAVING min(id) <> 6 AND max(i) + 1 > 1",
    # ... while Spark pushes a conjunct over the grouping columns below it
    "SELECT id, count(*) AS n FROM t GROUP BY id, i HAVING max(i) + 1 > 1 AND id <> 6",
    # a strict variant_get is computed in Spark's scan, for every row it reads
    "SELECT id FROM t WHERE variant_get(v, '$.a', 'int') > 0 AND id <> 6",
    "SELECT id FROM t WHERE id <> 6 AND variant_get(v, '$.a', 'int') > 0",
    "SELECT id FROM t WHERE try_variant_get(v, '$.a', 'int') > 0 AND id <> 6",
    "SELECT id FROM (SELECT * FROM t WHERE id <> 6) WHERE i + 1 > 1",
    "WITH c AS (SELECT * FROM t WHERE id <> 6) SELECT id FROM c WHERE i + 1 > 1",
    "SELECT id FROM t WHERE id <> 6 GROUP BY id, i HAVING i + 1 > 1",
    # the conjuncts of an outer join's preserved side stay in the join's condition, in order, and
    # Spark filters the null-supplied side with those of one key column, the key's other column in
    # its place (b.id <> 6): no pair of id 6 meets the conjunct that may raise, so these answer
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND a.i + 1 > 1 AND a.id <> 6",
    "SELECT b.id FROM t a RIGHT JOIN t b ON a.id = b.id AND b.i + 1 > 1 AND b.id <> 6",
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND a.g = b.g AND a.i + 1 > 1 AND 6 > a.id",
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND a.i + 1 > 1 AND a.id - 1 NOT IN (5, 9)",
    "SELECT a.id FROM t a LEFT ANTI JOIN t b ON a.id = b.id AND a.i + 1 > 1 AND a.id <> 6",
    # ... after the side's own conjuncts; from no conjunct of two columns; nor over a key that is an expression
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND b.i + 1 > 1 AND a.id <> 6 AND b.id <> 6",
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND a.i + 1 > 1 AND a.id <> a.i - 2147483641",
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id * 2 = b.id * 2 AND a.i + 1 > 1 AND a.id <> 6",
    "SELECT a.id FROM t a FULL JOIN t b ON a.id = b.id AND a.i + 1 > 1 AND a.id <> 6",
    # parentheses split as Spark's splitConjunctivePredicates splits them (its tree has none)
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND (a.i + 1 > 1 AND a.id <> 6)",
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id WHERE (a.i + 1 > 1 AND b.g <> 'q') AND a.id <> 6",
    # a conjunct of two sides, in the join's condition after each side's
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id AND a.i + b.i > 0 AND a.id <> 6",
    # nothing that may raise: left as written
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id AND a.id <> 6 AND a.i > 0",
    # ... but a plain column compared with a constant is tested on each row group's statistics by
    # Spark's Parquet reader, before its filter reads a row
    "SELECT id FROM u WHERE cast(v:a AS date) > DATE'2000-01-01' AND id > 5",
    "SELECT id FROM u WHERE try_cast(v:a AS date) > DATE'2000-01-01' AND v:b::string = 'z'",
]

# Spark's answer to each query, computed once for both engines
_SPARK_ANSWERS: dict[str, tuple[Any, ...]] = {}


@pytest.mark.parametrize("sql", QUERIES)
def test_matches_spark(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_views, con, _SPARK_ANSWERS)


def test_the_first_of_each_pair_raises_on_spark(spark_views: SparkSession) -> None:
    """The pairs differ as measured: Spark raises for the first and answers the second (else
    the comparisons above would not tell the order)."""
    from support.compare import spark_answer

    for first, second in PAIRS:
        for sql in (first, second):
            if sql not in _SPARK_ANSWERS:
                _SPARK_ANSWERS[sql] = spark_answer(spark_views, sql)
        assert _SPARK_ANSWERS[first][0] == "error", first
        assert _SPARK_ANSWERS[second][0] != "error", second


# Spark tests a relation's own filter before one it pushes to it later (a subquery's or a CTE's
# WHERE before the outer query's; a join side's conjuncts before one inferred across the join's
# equality); DuckDB had pushed the later one into its scan first and answered
# (optimizer/isolate_raising_filters.py). Each checked on PySpark 4.3, both ways where they differ.
HELD = [
    "SELECT id FROM (SELECT * FROM t WHERE i + 1 > 1) WHERE id <> 6",
    "WITH c AS (SELECT * FROM t WHERE i + 1 > 1) SELECT id FROM c WHERE id <> 6",
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id WHERE a.i + 1 > 1 AND b.id <> 6",
    "SELECT a.id FROM t a JOIN t b ON a.i + 1 > 1 AND a.id = b.id AND b.id <> 6",
    # a CTE read twice (Spark inlines it per reference), an aggregate or a window over the subquery
    "WITH c AS (SELECT * FROM t WHERE i + 1 > 1) SELECT id FROM c WHERE id <> 6 UNION ALL SELECT id FROM c WHERE id < 3",
    "WITH c AS (SELECT * FROM t WHERE id + 1 > 1) SELECT id FROM c WHERE id <> 6 UNION ALL SELECT id FROM c WHERE id < 3",
    "SELECT count(*) FROM (SELECT * FROM t WHERE i + 1 > 1) WHERE id <> 6",
    "SELECT id, row_number() OVER (ORDER BY id) AS r FROM (SELECT * FROM t WHERE i + 1 > 1) WHERE id <> 6",
    "SELECT * FROM (SELECT id, count(*) AS n FROM t WHERE i + 1 > 1 GROUP BY id) WHERE id <> 6",
    "SELECT * FROM (SELECT DISTINCT id, i FROM t WHERE i + 1 > 1) WHERE id <> 6",
    "SELECT id FROM t WHERE i + 1 > 1 GROUP BY id HAVING id <> 6",
    "SELECT id FROM t WHERE i + 1 > 1 GROUP BY id HAVING count(*) > 0 AND id <> 6",
    "SELECT id FROM (SELECT * FROM (SELECT * FROM t WHERE i + 1 > 1) WHERE g <> 'x') WHERE id <> 6",
    "SELECT id FROM (SELECT * FROM (SELECT * FROM t WHERE i + 1 > 1)) WHERE id <> 6",
    # the subquery's projection that may raise is computed only for the rows the outer filter keeps
    "SELECT id FROM (SELECT id, i * 2 AS j FROM t WHERE id + 1 > 1) WHERE id <> 6 AND j > 0",
    "SELECT id FROM (SELECT id, i * 2 AS j FROM t WHERE id + 1 > 1) WHERE j > 0 AND id <> 6",
    "SELECT id, j FROM (SELECT id, i * 2 AS j FROM t WHERE id + 1 > 1) WHERE id <> 6",
    "SELECT id FROM (SELECT id, i + 1 AS j FROM t WHERE i * 2 > 1) WHERE id <> 6 AND j > 1",
    "WITH c AS (SELECT id, i * 2 AS j FROM t WHERE id + 1 > 1) SELECT id FROM c WHERE id <> 6 AND j > 0 UNION ALL SELECT id FROM c WHERE id < 3",
    # the subquery as a side of a join; a LEFT join
    "SELECT s.id FROM (SELECT * FROM t WHERE i + 1 > 1) s JOIN t b ON s.id = b.id WHERE s.id <> 6",
    "SELECT s.id FROM (SELECT * FROM t WHERE i + 1 > 1) s JOIN t b ON s.id = b.id WHERE b.id <> 6",
    "SELECT s.id FROM (SELECT * FROM t WHERE i + 1 > 1) s LEFT JOIN t b ON s.id = b.id WHERE s.id <> 6",
    "SELECT b.id FROM t b LEFT JOIN (SELECT * FROM t WHERE i + 1 > 1) s ON s.id = b.id AND s.id <> 6",
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id WHERE a.i + 1 > 1 AND b.id <> 6",
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND b.i + 1 > 1 WHERE a.id <> 6",
    # a side's WHERE conjuncts come before its ON conjuncts; an inferred filter after both
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id AND a.i + 1 > 1 WHERE a.id <> 6",
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id AND a.id <> 6 WHERE a.i + 1 > 1",
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id WHERE b.id <> 6 AND a.i + 1 > 1",
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id WHERE a.i + 1 > 1 AND b.id < 6",
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id JOIN t c ON b.id = c.id WHERE a.i + 1 > 1 AND c.id <> 6",
    # an outer join a WHERE comparison over its null-supplied side makes inner; a RIGHT join; a FULL one
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND a.i + 1 > 1 WHERE b.id <> 6",
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND a.i + 1 > 1 WHERE b.id IS NULL OR b.id <> 6",
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND b.i + 1 > 1 WHERE b.id <> 6",
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id WHERE b.i + 1 > 1 AND a.id <> 6",
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id WHERE b.id <> 6 AND a.i + 1 > 1",
    "SELECT a.id, b.id FROM t a LEFT JOIN t b ON a.id = b.id AND b.id <> 6 WHERE a.i + 1 > 1",
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id LEFT JOIN t c ON b.id = c.id AND c.i + 1 > 1 WHERE a.id <> 6",
    "SELECT b.id FROM t a RIGHT JOIN t b ON a.id = b.id AND a.i + 1 > 1 AND b.id <> 6",
    "SELECT b.id FROM t a RIGHT JOIN t b ON a.id = b.id AND a.i + 1 > 1 WHERE a.id <> 6",
    "SELECT b.id FROM t a RIGHT JOIN t b ON a.id = b.id WHERE b.i + 1 > 1 AND a.id <> 6",
    "SELECT b.id FROM t a RIGHT JOIN t b ON a.id = b.id AND b.id <> 6 WHERE b.i + 1 > 1",
    "SELECT a.id FROM t a FULL JOIN t b ON a.id = b.id AND a.i + 1 > 1 AND b.id <> 6",
    # a comma join and a cross join with their condition in the WHERE; a side's projection that may raise
    "SELECT a.id FROM t a, t b WHERE a.id = b.id AND a.i + 1 > 1 AND b.id <> 6",
    "SELECT a.id FROM t a CROSS JOIN t b WHERE a.id = b.id AND a.i + 1 > 1 AND b.id <> 6",
    "SELECT a.id FROM t a JOIN (SELECT id, i + 1 AS j FROM t) s ON a.id = s.id WHERE s.j > 1 AND a.id <> 6",
    # nothing may raise: left to DuckDB
    "SELECT id FROM (SELECT * FROM t WHERE id > 1) WHERE id <> 6",
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id WHERE a.i > 1 AND b.id <> 6",
]


@pytest.mark.parametrize("sql", HELD)
def test_filter_below_one_that_may_raise(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_views, con, _SPARK_ANSWERS)


# Spark infers a filter of one side across a join's equality (a.id <> 6 from b.id <> 6 and
# a.id = b.id) and tests it, over Parquet, after the conjuncts written for that side; over the
# Spark engine's data source it had tested it first (a source's filter) and answered
INFERRED = [
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id AND b.id <> 6 AND a.i + 1 > 1",
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id AND a.id <> 6 WHERE a.i + 1 > 1",
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id AND a.i + 1 > 1 WHERE a.id <> 6",
]


@pytest.mark.parametrize("sql", INFERRED)
def test_spark_engine_tests_inferred_filters_after(sql: str, spark_views: SparkSession, spark_con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_views, spark_con, _SPARK_ANSWERS)


# Where the Spark engine holds a join's conditions in their order, Spark still plans the join on
# its keys (a hash or sort-merge join, never a nested loop over the whole condition), and the
# filter over a scan tests no source filter before the held conjuncts but the keys' isnotnull,
# which Spark over Parquet tests first too.
HELD_JOINS = [
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id AND a.i + 1 > 1 AND a.id <> 6",
    "SELECT a.id FROM t a LEFT JOIN t b ON a.id = b.id AND b.i + 1 > 1 AND b.id <> 6",
    "SELECT a.id FROM t a, t b WHERE a.id = b.id AND a.i + 1 > 1 AND a.id <> 6",
    "SELECT a.id FROM t a LEFT SEMI JOIN t b ON a.id = b.id AND b.i + 1 > 1 AND b.id <> 6",
    "SELECT a.id FROM t a WHERE EXISTS (SELECT 1 FROM t b WHERE b.id = a.id AND b.i + 1 > 1 AND b.id <> 6)",
]


def _filters_before_held(plan: str) -> list[str]:
    """The conditions a physical plan's filters test before their first held (coalesce) conjunct,
    other than isnotnull."""
    found = []
    for line in plan.splitlines():
        head, _, rest = line.partition("Filter ")
        if not rest or "coalesce(" not in rest or "Join" in head:
            continue
        before = re.sub(r"isnotnull\([^()]*\)", "", rest[: rest.index("coalesce(")])
        if re.sub(r"[()\s]|AND", "", before):
            found.append(rest)
    return found


@pytest.mark.parametrize("sql", HELD_JOINS)
def test_held_join_keeps_its_plan(sql: str, spark_con: vpush.Connection) -> None:
    frame = spark_con.sql(sql).to_spark()
    plan = str(frame._jdf.queryExecution().executedPlan().toString())
    assert "coalesce(" in plan, f"Should hold the conjuncts:\n{plan}"
    assert re.search(r"(BroadcastHashJoin|SortMergeJoin|ShuffledHashJoin) \[id#\d+\], \[id#\d+\]", plan), (
        f"Should join on the key id:\n{plan}"
    )
    assert "NestedLoopJoin" not in plan and "CartesianProduct" not in plan, f"Should not join on the whole condition:\n{plan}"
    assert _filters_before_held(plan) == [], f"Should test no source filter before the held conjuncts:\n{plan}"


def test_nothing_that_may_raise_is_left_as_written(spark_con: vpush.Connection) -> None:
    """A join's conditions none of whose parts may raise keep their source filters and their
    inferred ones (the Spark query is the one written)."""
    for sql in (
        "SELECT a.id FROM t a JOIN t b ON a.id = b.id AND a.id <> 6 AND a.i > 0",
        "SELECT a.id FROM t a JOIN t b ON a.id = b.id WHERE b.id <> 6 AND a.i > 0",
    ):
        spark_sql = spark_con.plan(sql).sql("spark")
        assert "COALESCE" not in spark_sql.upper(), f"Should leave {sql!r} as written: {spark_sql}"


def test_held_conditions_keep_their_pruning(tmp_path: Path) -> None:
    """vpush skips row groups by the query as written: a condition held for the Spark engine
    prunes as it does unheld (ids 1-40 in row groups of 10; a.id <= 15 reads the first two)."""
    import pyarrow.parquet as pq

    folder = tmp_path / "t"
    folder.mkdir()
    rows = pa.table({"id": pa.array(range(1, 41), pa.int32()), "i": pa.array([1] * 39 + [2147483647], pa.int32())})
    pq.write_table(rows, folder / "part-0.parquet", row_group_size=10)
    with connect_tables({"t": folder}) as connection:
        held = connection.plan("SELECT a.id FROM t a JOIN t b ON a.id = b.id WHERE a.i + 1 > 1 AND a.id <= 15")
        plain = connection.plan("SELECT a.id FROM t a JOIN t b ON a.id = b.id WHERE a.id <= 15")
    assert "COALESCE" in held.sql("spark"), "Should hold the WHERE on the Spark engine"
    read = [[f.row_groups for f in scan.files] for scan in held.scans]
    assert read == [[f.row_groups for f in scan.files] for scan in plain.scans], "Should prune as the unheld WHERE does"
    assert read[0] == [(0, 1)], "Should skip the row groups past id 15"


def test_row_group_read_where_a_conjunct_before_may_raise(tables: dict[str, Path]) -> None:
    """The statistics of ``v:b`` rule out ``u``'s row group; it is read where a conjunct Spark
    tests before that one (a cast of ``v:a``) may fail in it, and skipped where none comes before."""
    with connect_tables(tables) as connection:
        first = connection.sql("SELECT id FROM u WHERE v:a::int > 0 AND v:b::string = 'z'").explain()
        after = connection.sql("SELECT id FROM u WHERE v:b::string = 'z' AND v:a::int > 0").explain()
    assert "may fail in it, and Spark tests it on the rows first" in first, first
    assert "row groups read 0 of 1" in after, after


def test_row_group_skipped_where_no_conjunct_spark_tests_on_it_may_raise(tables: dict[str, Path]) -> None:
    """``lower`` raises for no value and ``z``'s ``a`` is typed ints with no residual, so the
    row group that ``a``'s statistics rule out is skipped, the function before it or not."""
    with connect_tables(tables) as connection:
        for sql in ("SELECT id FROM z WHERE lower(v:b::string) = 'zz' AND v:a::int > 100",
                    "SELECT id FROM z WHERE v:b::string LIKE 'z%' AND v:a::int > 100",
                    "SELECT id FROM z WHERE coalesce(v:b::string, '') = 'zz' AND v:a::int > 100"):
            shown = connection.sql(sql).explain()
            assert "row groups read 0 of 1" in shown, shown


IMPLICIT_CAST = "SELECT id FROM u WHERE v:b::string = 5 AND v:b::string > 'zz'"


def test_implicit_cast_of_a_string_before_a_conjunct_that_rules_out_the_row_group(spark_views: SparkSession, tables: dict[str, Path]) -> None:
    """Spark casts ``v:b``'s text to a bigint to compare it with 5, and raises for ``'x'``
    before ``v:b::string > 'zz'`` (which ``b``'s statistics rule out) drops the row."""
    assert_same_answer(IMPLICIT_CAST, spark_views, connect_tables(tables), _SPARK_ANSWERS)


def test_implicit_cast_before_a_source_filter_on_the_spark_engine(spark_views: SparkSession, spark_con: vpush.Connection) -> None:
    """On the Spark engine the extraction is a column of vpush's source, and Spark tests first the
    conjunct it could give that source (``v:b::string > 'zz'``): the filter is held in its order,
    the comparison of a string column with a number being one that may raise."""
    assert_same_answer(IMPLICIT_CAST, spark_views, spark_con, _SPARK_ANSWERS)
    for sql in ("SELECT id FROM u WHERE v:b::string = DATE'2024-01-01' AND v:b::string > 'zz'",
                "SELECT id FROM u WHERE v:b::string BETWEEN 1 AND 2 AND v:b::string > 'zz'",
                # a subquery's or a CTE's string column (vpush had known the scans' by their names only)
                "SELECT id FROM (SELECT id, v:b::string AS s FROM u) WHERE s = 5 AND s > 'zz'",
                "WITH c AS (SELECT id, v:b::string AS s FROM u) SELECT id FROM c WHERE s = DATE'2024-01-01' AND s > 'zz'"):
        assert_same_answer(sql, spark_views, spark_con, _SPARK_ANSWERS)


def _nest(operands: list[str], *, left: bool = True) -> str:
    """``operands`` joined by AND and OR in turn, each joined with the nest so far on its ``left``
    side or on its right: ``((a AND b) OR c) AND d``, or ``a AND (b OR (c AND d))``."""
    nest = operands[0] if left else operands[-1]
    for k, operand in enumerate(operands[1:] if left else reversed(operands[:-1])):
        connective = " OR " if k % 2 else " AND "
        nest = f"({nest}{connective}{operand})" if left else f"({operand}{connective}{nest})"
    return nest


# Spark computes a constant as it plans the query (ConstantFolding), rows or not, but for one in a
# conditional expression's branch; the DuckDB engine computes those first (optimizer/fold_constants.py)
FOLDED = [
    "SELECT id FROM t WHERE id > 100 AND cast('q' AS int) = id",
    "SELECT id FROM t WHERE g <= NULL AND cast('q' AS int) = id",
    "SELECT cast('q' AS int) FROM t WHERE false",
    "SELECT id, 1 / 0 FROM t WHERE id > 100",
    "SELECT id FROM t WHERE id > 100 AND DATE'2024-01-01' <> ''",
    "SELECT id FROM u WHERE cast(v:a AS date) <> '' AND v:b::string <= NULL",
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id AND b.id > 100 AND 2147483647 + 1 > a.i",
    "SELECT id, count(*) AS n FROM t GROUP BY id HAVING id > 100 AND 5 % 0 = 1",
    "SELECT id FROM (SELECT id FROM t WHERE id > 100 AND variant_get(v, '$.a', 'int') = 'q')",
    # ... and where Spark answers: in a branch, a projection nothing reads, under LIMIT 0, in a CTE no query reads
    "SELECT id FROM t WHERE id > 100 AND CASE WHEN id > 1 THEN cast('q' AS int) END = 1",
    "SELECT id FROM t WHERE id > 100 AND coalesce(i, cast('q' AS int)) = 1",
    "SELECT id FROM t WHERE id > 100 AND if(i > 1, 1 / 0, 2) = 1",
    "SELECT id FROM (SELECT id, cast('q' AS int) AS c FROM t) WHERE id > 100",
    "SELECT id FROM t WHERE cast('q' AS int) = id LIMIT 0",
    "WITH c AS (SELECT id FROM t WHERE cast('q' AS int) = id) SELECT id FROM t WHERE id > 100",
    "SELECT id FROM t WHERE id > 100 AND try_cast('q' AS int) = id",
    "SELECT * FROM VALUES (1) AS v(x) WHERE x > 100 AND cast('q' AS int) = x",
    "SELECT id FROM t WHERE id > 100 AND make_date(2024, 13, 1) IS NULL",
    "SELECT id, sum(i) OVER (PARTITION BY 1 / 0) AS s FROM t WHERE id > 100",
    "SELECT id, 1 / 0 AS x FROM t WHERE id > 100",
    "SELECT struct(CAST(NULL AS INT) AS x, id) AS s FROM t WHERE id > 100",
    # an aggregate's argument is folded; a conditional expression of constants only is folded
    # whole (its taken branch only), one that reads a row not even in its first argument
    "SELECT sum(1 / 0) AS s FROM t WHERE id > 100",
    "SELECT id FROM t WHERE id > 100 AND coalesce(1 / 0, 1) = id",
    "SELECT id FROM t WHERE id > 100 AND coalesce(1 / 0, i) = id",
    "SELECT id FROM t WHERE id > 100 AND CASE WHEN 1 / 0 > i THEN 1 END = id",
    "SELECT id FROM t WHERE id > 100 AND CASE WHEN false THEN 1 / 0 END = id",
    # a sort key (in a subquery too; not under LIMIT 0 nor in a branch), a lambda's body where it
    # reads no variable, each branch of a set operation, an AND or OR computed left side first
    "SELECT id FROM t WHERE id > 100 ORDER BY id + cast('q' AS int)",
    "SELECT count(*) FROM (SELECT id FROM t WHERE id > 100 ORDER BY 1 / 0)",
    "SELECT id FROM t WHERE id > 100 ORDER BY id + cast('q' AS int) LIMIT 0",
    "SELECT id FROM t WHERE id > 100 ORDER BY coalesce(i, 1 / 0)",
    "SELECT transform(array(id), (x, k) -> k + 1 / 0) AS a FROM t WHERE id > 100",
    "SELECT id FROM t WHERE id > 100 AND exists(array(1), x -> CASE WHEN x > 1 THEN 1 / 0 END = 1)",
    "SELECT id FROM t WHERE id > 100 UNION ALL SELECT cast('q' AS int) FROM t WHERE false",
    "SELECT id FROM t WHERE cast('q' AS int) = 1 AND false",
    "SELECT id FROM t WHERE true OR cast('q' AS int) = 1",
    # a subquery's or CTE's column is computed where it is read (not where nothing reads it, nor
    # where only a branch or a short-circuited AND does), all of a DISTINCT one's
    "SELECT c FROM (SELECT id, cast('q' AS int) AS c FROM t) WHERE id > 100",
    "SELECT s.* FROM (SELECT id, cast('q' AS int) AS c FROM t) s WHERE id > 100",
    "WITH c AS (SELECT id, 1 / 0 AS z FROM t) SELECT max(z) AS m FROM c WHERE id > 100",
    "SELECT id FROM (SELECT DISTINCT id, 1 / 0 AS z FROM t) WHERE id > 100",
    "SELECT CASE WHEN id > 1 THEN c END AS x FROM (SELECT id, cast('q' AS int) AS c FROM t) WHERE id > 100",
    "SELECT id FROM (SELECT id, 1 / 0 AS z FROM t) WHERE false AND z = 1",
    "SELECT id, 5 AS z FROM (SELECT id, 1 / 0 AS z FROM t) WHERE id > 100 ORDER BY z",
    # a string compared with a registered table's integer column: Spark's cast of it to a bigint
    # (not where the name is a subquery's string column or a projection's alias)
    "SELECT id FROM t WHERE id > 100 AND i = 'q'",
    "SELECT id FROM z WHERE id > 100 AND z.id IN ('q', 1)",
    "SELECT id FROM t WHERE id > 100 AND id = ' 7 '",
    "SELECT id FROM (SELECT g AS id FROM t) WHERE id = 'q'",
    "SELECT g AS id FROM t WHERE g = 'zz' ORDER BY id = 'q'",
    # a window's function and sort keys, a grouping or partition key but a constant one; and a
    # constant with an IS NULL inside is not computed whole (Spark's NullDownPropagation)
    "SELECT id, sum(i) OVER (PARTITION BY id ORDER BY 1 / 0) AS s FROM t WHERE id > 100",
    "SELECT id, rank() OVER (PARTITION BY 1 / 0 ORDER BY id) AS r FROM t WHERE id > 100",
    "SELECT id FROM t WHERE id > 100 GROUP BY id, id + cast('q' AS int)",
    "SELECT id FROM t WHERE id > 100 GROUP BY id, 1 / 0",
    "SELECT id FROM t WHERE id > 100 AND make_date(2024, 13, 1) IS NOT NULL",
    # found by the reviewer: a subquery's or CTE's own column names, a star that leaves columns out,
    # a lambda's variable in another case, and many constant conjuncts (the text had doubled with each)
    "SELECT i FROM (SELECT id, 1 / 0 AS i FROM t) AS s(i, z) WHERE i > 100",
    "WITH c(z, k) AS (SELECT id, 1 / 0 AS z FROM t) SELECT z FROM c WHERE z > 100",
    "SELECT * EXCEPT (z) FROM (SELECT id, 1 / 0 AS z FROM t) WHERE id > 100",
    "SELECT transform(array(1), Z -> z + 1) AS a FROM (SELECT id, 1 / 0 AS z FROM t) WHERE id > 100",
    "SELECT id FROM t WHERE id > 100 AND exists(array('a'), I -> i = 'q')",
    "SELECT id FROM t WHERE " + " AND ".join(f"cast(concat('{k}', '') AS int) = {k}" for k in range(14)),
    # AND/OR in Spark's order past 6 connectives: each operand computed once, where those before it do not decide
    "SELECT id FROM t WHERE " + " AND ".join([*(f"cast(concat('{k}', '') AS int) = {k}" for k in range(20)), "false", "cast('q' AS int) = 1"]),
    "SELECT id FROM t WHERE " + " AND ".join([*(f"cast(concat('{k}', '') AS int) = {k}" for k in range(20)), "cast('q' AS int) = 1", "false"]),
    "SELECT id FROM t WHERE id > 100 AND ((1 = 1 AND NULL) OR (false AND 1 / 0 = 1) OR true OR (true AND 1 / 0 = 1))",
    "SELECT id FROM t WHERE id > 100 AND ((1 = 1 AND NULL) OR (false AND 1 / 0 = 1) OR (NULL AND 1 / 0 = 1))",
    # a null test of a nullable value is computed, of one that cannot be null made a constant
    # first (Spark's NullPropagation): IS TRUE is no null test
    "SELECT id FROM t WHERE id > 100 AND (1 / 0) IS NULL",
    "SELECT id FROM t WHERE id > 100 AND cast('q' AS int) IS NOT NULL",
    "SELECT id FROM t WHERE id > 100 AND (1 / 0 + i) IS NULL",
    "SELECT id FROM t WHERE id > 100 AND (make_date(2024, 13, 1) IS NULL OR 1 / 0 = 1)",
    "SELECT id FROM t WHERE id > 100 AND (cast(NULL AS int) IS NULL OR 1 / 0 = 1)",
    "SELECT id, isnotnull(make_date(2024, 13, 1)) AS x FROM t WHERE id > 100",
    "SELECT id FROM t WHERE id > 100 AND nvl(1 / 0, 2) IS NULL",
    "SELECT id FROM t WHERE id > 100 AND cast('q' AS boolean) IS TRUE",
    # a string beside a fraction is cast to a double (Java's parseDouble: ' 1.5 ' and '1e400' read),
    # beside any value the analysis types: a struct's field, an expression, a subquery's column
    "SELECT id FROM t WHERE id > 100 AND cast(i AS double) = 'q'",
    "SELECT id FROM t WHERE id > 100 AND cast(i AS decimal(5, 2)) IN (' 1.5 ', '1e400')",
    "SELECT id FROM t WHERE id > 100 AND named_struct('x', i).x = 'q'",
    "SELECT id FROM t WHERE id > 100 AND abs(i) + 1 < 'q'",
    "SELECT x FROM (SELECT i + 1 AS x, id FROM t) WHERE id > 100 AND x = 'q'",
    # a UNION ALL's column is each branch's where it is read (not where nothing reads it)
    "SELECT c FROM (SELECT id, cast('q' AS int) AS c FROM t UNION ALL SELECT id, 1 FROM t) WHERE id > 100",
    "SELECT c FROM (SELECT id, 1 AS c FROM t UNION ALL SELECT id, 2 FROM t UNION ALL SELECT id, 1 / 0 FROM t) WHERE id > 100",
    "SELECT id FROM (SELECT id, cast('q' AS int) AS c FROM t UNION ALL SELECT id, 1 FROM t) WHERE id > 100",
    "SELECT count(*) AS n FROM (SELECT id, 1 / 0 AS c FROM t UNION ALL SELECT id, 1 FROM t) WHERE id > 100",
    # DISTRIBUTE BY keys (a constant one too), an aggregate's FILTER, a window's key that reads a
    # subquery's column (not in a branch)
    "SELECT id FROM t WHERE id > 100 DISTRIBUTE BY 1 / 0",
    "SELECT count(*) FILTER (WHERE 1 / 0 = 1) AS n FROM t WHERE id > 100",
    "SELECT count(*) FILTER (WHERE z = 1) AS n FROM (SELECT id, 1 / 0 AS z FROM t) WHERE id > 100",
    "SELECT id, sum(i) OVER (PARTITION BY z) AS s FROM (SELECT id, i, 1 / 0 AS z FROM t) WHERE id > 100",
    "SELECT id, sum(i) OVER (PARTITION BY CASE WHEN id > 1 THEN z END) AS s FROM (SELECT id, i, 1 / 0 AS z FROM t) WHERE id > 100",
    # a UNION ALL's column of branches of different types: a string beside it is cast to their
    # wider type (a double here), not a branch's own (vpush had cast '1.5' to an int and raised)
    "SELECT c FROM (SELECT cast(i AS double) AS c FROM t UNION ALL SELECT id AS c FROM t) WHERE c = '1.5'",
    "SELECT c FROM (SELECT id AS c FROM t UNION ALL SELECT cast(i AS double) AS c FROM t) WHERE c IN ('1.5', '2')",
    # a 12-level nest of AND in OR in AND... among constants and columns, leaning left and right
    # (its left side written twice at each level: 30 to 80 s to plan); a number's text beside a
    # double, which cannot fail to read; a negated smallest int where Spark computes it
    "SELECT id FROM t WHERE " + _nest([f"cast(concat('{k}', '') AS int) = {k}" if k % 3 else f"id > {k}" for k in range(13)]),
    "SELECT id FROM t WHERE " + _nest([f"cast(concat('{k}', '') AS int) = {k}" if k % 3 else f"id > {k}" for k in range(12)] + ["cast('q' AS int) = 1"]),
    "SELECT id FROM t WHERE " + _nest([f"cast(concat('{k}', '') AS int) = {k}" if k % 3 else f"id > {k}" for k in range(13)], left=False),
    "SELECT id FROM t WHERE cast(i AS double) IN ('1', '2.5', ' +.5 ', '-7', '1.')",
    "SELECT id FROM t WHERE id > 100 AND -(-2147483648) IS NULL",
    "SELECT CASE WHEN id > 100 THEN -(-2147483648) END AS x FROM t",
    "SELECT -(-2147483648) AS x FROM t LIMIT 0",
    "SELECT id FROM t WHERE id > 100 AND -(-2147483648) = 1",
    "SELECT id FROM t WHERE -(-2147483648) IS NULL",  # Spark's NullPropagation: false before any row
    "SELECT CASE WHEN id > 100 THEN -(-2147483648) END FROM t",  # named as Spark names it
    "SELECT isnull(make_date(2024, 13, 1)), 1 IS NULL, id IS NOT NULL FROM t",  # decided, named as written
    # Spark's Concat computes every argument of a constant one (DuckDB's binder made NULL || x NULL unseen)
    "SELECT id FROM t WHERE concat(NULL, cast('q' AS int)) = 'a'",
    "SELECT id FROM t WHERE upper(NULL || cast('q' AS int)) = 'a'",
    "SELECT id FROM t WHERE concat(NULL, cast(g AS int)) = 'a'",
]

# a conjunct with an IN subquery beside one that may raise: its table named twice in DuckDB's query
# (the conjunct repeated in the CASE that orders them) was a reader DuckDB could scan once
IN_SUBQUERY = [
    "SELECT id FROM t WHERE id IN (SELECT id FROM u) AND v:a::int > 0",
    "SELECT id FROM t WHERE id IN (SELECT id FROM u) AND v:a::int > 0 AND id < 3",
    "SELECT id FROM z WHERE id IN (SELECT id FROM u) AND v:a::int > 0",
]


# a string compared with a boolean is read by Spark's cast to a boolean (t true y yes 1, f false n
# no 0, trimmed, in any case), where DuckDB's cast read fewer words and raised
STRING_BESIDE_BOOLEAN = [
    "SELECT id, s = true AS e, s <=> false AS n, s IN (true) AS i FROM words ORDER BY id",
    "SELECT id FROM words WHERE s = false ORDER BY id",
    "SELECT id FROM t WHERE g = true",
]


@pytest.mark.parametrize("sql", STRING_BESIDE_BOOLEAN)
def test_string_beside_a_boolean(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_views, con, _SPARK_ANSWERS)


@pytest.mark.parametrize("sql", IN_SUBQUERY)
def test_in_subquery_beside_a_conjunct_that_may_raise(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_views, con, _SPARK_ANSWERS)


@pytest.mark.parametrize("sql", FOLDED)
def test_constants_spark_folds(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_views, con, _SPARK_ANSWERS)


# found, not mended: Spark's NullPropagation makes the null test of a constant that cannot be null
# false over rows too; Spark computes a constant struct's fields, then the field read (vpush had
# only the field read); Spark's Substring computes none of its arguments after a NULL one
CONSTANTS_COMPUTED_OTHERWISE = [
    "SELECT id FROM t WHERE named_struct('a', NULL, 'b', cast('q' AS int)).a = 1",
    "SELECT id FROM t WHERE substring(NULL, cast('q' AS int)) = 'a'",
]


@pytest.mark.xfail(strict=True, reason="the DuckDB engine computes these constants otherwise than Spark's evaluation "
                   "does (see CONSTANTS_COMPUTED_OTHERWISE)")
@pytest.mark.parametrize("sql", CONSTANTS_COMPUTED_OTHERWISE)
def test_constants_computed_otherwise(sql: str, spark_views: SparkSession, tables: dict[str, Path]) -> None:
    assert_same_answer(sql, spark_views, connect_tables(tables), _SPARK_ANSWERS)


# Spark's ReplaceExceptWithFilter makes the right branch of such an EXCEPT a filter of the left
# one, computed on the left branch's rows (its WHERE in a coalesce, which it does not fold): these
# answer on Spark, where no left row reaches the condition ...
EXCEPT_AS_FILTER = [
    "SELECT id FROM t WHERE id > 100 EXCEPT SELECT id FROM t WHERE id < cast('q' AS int)",
    "SELECT id, g FROM t WHERE id > 100 EXCEPT SELECT id, g FROM t AS x WHERE x.g = 'a' AND id < 1 / 0",
]
# ... and these raise: the condition reads a column the left branch does not project, EXCEPT ALL,
# or the left branch's rows reach the condition (vpush had answered, leaving it to the right's rows)
NOT_EXCEPT_AS_FILTER = [
    "SELECT id FROM t WHERE id > 100 EXCEPT SELECT id FROM t WHERE i < cast('q' AS int)",
    "SELECT id FROM t WHERE id > 100 EXCEPT ALL SELECT id FROM t WHERE id < cast('q' AS int)",
    "SELECT g FROM t EXCEPT SELECT g FROM t WHERE cast('q' AS int) = 1 AND g > 'zz'",
]


@pytest.mark.parametrize("sql", NOT_EXCEPT_AS_FILTER)
def test_except_not_made_a_filter_raises(sql: str, spark_views: SparkSession, tables: dict[str, Path]) -> None:
    assert_same_answer(sql, spark_views, connect_tables(tables), _SPARK_ANSWERS)


@pytest.mark.xfail(strict=True, reason="vpush computes the right branch's constants first; Spark makes the EXCEPT a filter "
                   "computed on the left branch's rows, none here, and answers")
@pytest.mark.parametrize("sql", EXCEPT_AS_FILTER)
def test_except_made_a_filter(sql: str, spark_views: SparkSession, tables: dict[str, Path]) -> None:
    assert_same_answer(sql, spark_views, connect_tables(tables), _SPARK_ANSWERS)


@pytest.mark.xfail(strict=True, reason="the Spark engine reads each branch of the EXCEPT through a scan of its own, so "
                   "Spark does not find the branches read one relation and keeps the EXCEPT: it raises")
def test_except_made_a_filter_on_the_spark_engine(spark_views: SparkSession, spark_con: vpush.Connection) -> None:
    assert_same_answer(EXCEPT_AS_FILTER[0], spark_views, spark_con, _SPARK_ANSWERS)
