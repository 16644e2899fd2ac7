"""Comparisons Spark's optimizer decides without computing their expression
(``UnwrapCastInBinaryComparison``): a widened number compared with a constant outside its type,
or between two of its values, is false in a WHERE, HAVING, QUALIFY, join condition, IF or CASE
WHEN condition and ``filter``'s predicate, and ``<=>`` such a constant is false anywhere. A strict
cast in the expression then fails for no row on Spark (a folded filter reads no row at all), and so
on vpush; everywhere else the comparison is computed and the cast still fails. Each query runs on
Spark and on vpush through both engines, over a shredded variant column (DuckDB's writer, values
the extraction cannot cast in residual rows) and plain columns."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import vpush
from support.compare import assert_same_answer
from support.tables import connect_tables, tables_fixtures
from support.writers import write_with_duckdb

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# `n` shredded as an int (a string in every fifth row, kept in the residual), `s` text that casts
# to an int in some rows only, `f` a double.
ROWS = """
SELECT i AS id, CAST(i AS INTEGER) AS k, CASE WHEN i % 3 = 0 THEN 'abc' ELSE CAST(i AS VARCHAR) END AS s,
       CASE WHEN i % 5 = 0 THEN {{'n': 'x' || i, 'f': i / 4}}::VARIANT ELSE {{'n': CAST(i AS INTEGER), 'f': i / 4}}::VARIANT END AS v
FROM range({start}, {stop}) t(i)
"""

QUERIES = [
    # a constant outside an int's range: no row matches, so none is computed
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'int') = 3000000000",
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'int') >= 2147483648",
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'int') < -2147483649",
    "SELECT count(*) FROM t WHERE 3000000000 < variant_get(v, '$.n', 'int')",
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'smallint') = 100000",
    "SELECT id FROM t WHERE variant_get(v, '$.n', 'int') = 1099511627776 OR id = 7",
    "SELECT id, variant_get(v, '$.n', 'int') AS n FROM t WHERE variant_get(v, '$.n', 'int') = 3000000000 AND id > 2",
    "SELECT max(variant_get(v, '$.n', 'int')) AS m FROM t WHERE variant_get(v, '$.n', 'int') = 3000000000",
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'int') BETWEEN 3000000000 AND 4000000000",
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'int') IN (3000000000, 4000000000)",
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'int') IN (3000000000, NULL)",
    "SELECT count(*) FROM t WHERE cast(variant_get(v, '$.n', 'int') AS bigint) = 3000000000",
    # a constant between two ints, or past a decimal's scale or a float's precision
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'int') = 1.5",
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'int') = -1.5BD",
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'int') = 1.5D",
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'decimal(18,4)') = -1E-10BD",
    "SELECT count(*) FROM t WHERE cast(s AS decimal(5,2)) = 1.255",
    "SELECT count(*) FROM t WHERE cast(s AS float) = 1.1",
    "SELECT count(*) FROM t WHERE cast(s AS int) = 0.00000000000000000001",
    # in a join's condition, a HAVING, a QUALIFY, a CASE WHEN or IF condition, filter's predicate
    "SELECT count(*) FROM t a JOIN t b ON a.id = b.id AND cast(a.s AS int) = 3000000000",
    "SELECT k % 2 AS g, max(cast(s AS int)) AS m FROM t GROUP BY k % 2 HAVING max(cast(s AS int)) = 3000000000",
    "SELECT max(cast(s AS int)) AS m FROM t HAVING max(cast(s AS int)) = 3000000000",
    "SELECT id FROM t QUALIFY row_number() OVER (ORDER BY cast(s AS int)) = 3000000000",
    "SELECT id, CASE WHEN cast(s AS int) = 3000000000 THEN 1 ELSE 0 END AS c FROM t",
    "SELECT id, if(variant_get(v, '$.n', 'int') = 1.5, 1, 0) AS c FROM t",
    "SELECT count(*) FROM t WHERE CASE WHEN cast(s AS int) = 3000000000 THEN true ELSE k = 5 END",
    "SELECT id, filter(array(s), x -> cast(x AS int) = 3000000000) AS f FROM t",
    # an expression never NULL: false (or true) anywhere
    "SELECT id, coalesce(cast(s AS int), 0) = 3000000000 AS a, coalesce(cast(s AS int), 0) < 3000000000 AS b FROM t",
    "SELECT count(*) FROM t WHERE coalesce(cast(s AS int), 0) <= 2147483647L",
    # <=> is false anywhere
    "SELECT id, variant_get(v, '$.n', 'int') <=> 3000000000 AS a, NOT (cast(s AS int) <=> 1.5) AS b FROM t",
    # where Spark still computes the expression: the casts fail as they do there
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'int') < 3000000000",
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'int') = 1.0",
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'int') > 2147483647",
    "SELECT count(*) FROM t WHERE NOT (cast(s AS int) = 3000000000)",
    "SELECT count(*) FROM t WHERE (cast(s AS int) = 3000000000) IS NULL",
    "SELECT count(*) FROM t WHERE variant_get(v, '$.n', 'bigint') = 1.5D",
    "SELECT count(*) FROM t WHERE cast(s AS decimal(5,2)) = 100000.5",
    "SELECT count(*) FROM t WHERE cast(s AS int) BETWEEN 1 AND 4000000000",
    "SELECT count(*) FILTER (WHERE cast(s AS int) = 3000000000) AS c FROM t",
    "SELECT id, variant_get(v, '$.n', 'int') = 3000000000 AS a FROM t",
    "SELECT id, exists(array(s), x -> cast(x AS int) = 3000000000) AS e FROM t",
    # values that match or not, as computed
    "SELECT id FROM t WHERE try_variant_get(v, '$.n', 'int') > 2.5 AND id < 8",
    "SELECT id FROM t WHERE try_variant_get(v, '$.n', 'int') <= -0.5 OR try_variant_get(v, '$.n', 'tinyint') >= 3.5BD",
    "SELECT id, try_variant_get(v, '$.f', 'float') = 0.25 AS q FROM t WHERE id < 6",
]


def _write_tables(root: Path) -> dict[str, Path]:
    for part, (start, stop) in enumerate(((1, 40), (40, 90))):
        write_with_duckdb(root / "t" / f"part-{part}.parquet", ROWS.format(start=start, stop=stop), "STRUCT(n INTEGER)", 16)
    return {"t": root / "t"}


tables, spark_views, con, _ = tables_fixtures(_write_tables, "unwrap", both_engines=True)


_SPARK_ANSWERS: dict[str, tuple[object, ...]] = {}


@pytest.mark.parametrize("sql", QUERIES)
def test_matches_spark(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_views, con, _SPARK_ANSWERS)


_BAD_PATH = "variant_get(v, '$[', 'int')"


@pytest.mark.parametrize("sql", [
    # Spark's optimizer replaces the relation by an empty one (PruneFilters, OptimizeLimitZero,
    # PropagateEmptyRelation) before it computes the call, whose path it checks only there
    f"SELECT {_BAD_PATH} AS a FROM t WHERE false",
    f"SELECT {_BAD_PATH}, variant_get(v, '$[') + 1 FROM t WHERE 1 = 0",
    f"SELECT {_BAD_PATH} FROM t WHERE id > 1 AND NULL",
    f"SELECT {_BAD_PATH} FROM t WHERE 'a' = 'b' OR 1 IN (2, 3)",
    f"SELECT {_BAD_PATH} FROM t LIMIT 0",
    f"SELECT id FROM t WHERE {_BAD_PATH} = 1 AND NOT true",
    f"SELECT max({_BAD_PATH}) AS m, count(*) AS n FROM t WHERE false",
    f"SELECT max({_BAD_PATH}) AS m FROM t HAVING false",
    f"SELECT * FROM (SELECT {_BAD_PATH} AS a FROM t) WHERE CAST(NULL AS BOOLEAN)",
    f"WITH c AS (SELECT {_BAD_PATH} AS a FROM t) SELECT a FROM c LIMIT 0",
    f"SELECT x.a FROM (SELECT {_BAD_PATH} AS a FROM t) x JOIN t ON false",
    f"SELECT t.id, x.a FROM t LEFT JOIN (SELECT {_BAD_PATH} AS a FROM t WHERE false) x ON true",
    f"SELECT id FROM t WHERE id IN (SELECT {_BAD_PATH} FROM t WHERE false) OR id = 1",
    f"SELECT {_BAD_PATH} AS a FROM t WHERE false UNION ALL SELECT 1",
    # and where it does not: the path is checked (a condition Spark does not fold, the preserved
    # side of an outer join, a CTE read elsewhere too, a call of constants, an analysis error first)
    f"SELECT {_BAD_PATH} FROM t WHERE false OR id > 1000",
    f"SELECT {_BAD_PATH} FROM t WHERE id < 0 AND id > 10",
    f"SELECT x.a FROM (SELECT {_BAD_PATH} AS a FROM t) x LEFT JOIN t ON false",
    f"WITH c AS (SELECT {_BAD_PATH} AS a FROM t) SELECT a FROM c WHERE false UNION ALL SELECT a FROM c",
    "SELECT variant_get(parse_json('1'), '$[', 'int') FROM t WHERE false",
    f"SELECT {_BAD_PATH} FROM t WHERE NULL",
    # a double literal compared as a double (true here), not as an exact decimal
    f"SELECT {_BAD_PATH} FROM t WHERE 9007199254740993 = 9007199254740992e0",
    f"SELECT {_BAD_PATH} FROM t WHERE 1e0 = 1.0000000000000000001",
    # a CTE's own query reads the table of its name, not itself
    f"WITH t AS (SELECT {_BAD_PATH} AS x FROM t) SELECT * FROM t WHERE false",
])
def test_path_of_a_call_on_no_rows(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    """A call with a path Spark refuses raises ``INVALID_VARIANT_GET_PATH`` unless Spark's
    optimizer drops it with rows it proves empty (``optimizer/spark_empty_relations.py``)."""
    assert_same_answer(sql, spark_views, con, _SPARK_ANSWERS)


@pytest.mark.parametrize("sql", [
    # the only aggregate of a SELECT without GROUP BY, in a comparison Spark folds: its plan still
    # aggregates (one row, also of no rows) and computes no cast
    "SELECT count(cast(s AS int)) = 1.5 AS c FROM t",
    "SELECT count(cast(s AS int)) = 1.5 FROM t",
    "SELECT count(cast(s AS int)) = 1.5 AS c FROM t WHERE id > 1000",
    "SELECT count(cast(s AS int)) <=> 1.5 AS c, 1 AS one FROM t",
    "SELECT count(variant_get(v, '$.n', 'int')) = 1.5 AS c FROM t",
    "SELECT coalesce(max(cast(s AS int)), 0) = 3000000000 AS c FROM t",
    # a subquery's or a CTE's column that reads an extraction, compared where Spark folds it:
    # Spark then prunes the column and computes no extraction (nor one that nothing reads)
    "SELECT id FROM (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) WHERE n = 3000000000 OR id = 7",
    "SELECT id FROM (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) WHERE id = 7",
    "SELECT id FROM (SELECT id, variant_get(v, '$.n', 'int') + 0 AS n FROM t) WHERE n = 3000000000 OR id = 7",
    "SELECT id FROM (SELECT id, n AS m FROM (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t)) WHERE m = 3000000000 OR id = 7",
    "WITH x AS (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) SELECT id FROM x WHERE n = 3000000000 OR id = 7",
    "SELECT s.id FROM (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) s JOIN t u ON s.id = u.id WHERE s.n = 3000000000 OR s.id = 7",
    "SELECT id FROM (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) WHERE cast(n AS bigint) = 3000000000 OR id = 7",
    "SELECT count(*) FROM (SELECT variant_get(v, '$.n', 'int') AS n FROM t) WHERE n = 3000000000",
    # a path Spark refuses where it computes the call: not where it folds the comparison first
    "SELECT count(*) FROM t WHERE variant_get(v, '$[', 'int') = 3000000000",
    "SELECT id FROM t WHERE variant_get(v, '$[', 'int') = 3000000000 OR id = 7",
    "SELECT id, variant_get(v, '$[', 'int') <=> 3000000000 AS a FROM t WHERE id = 7",
    "SELECT count(*) FROM t WHERE try_variant_get(v, '$[', 'int') IN (3000000000, 4000000000)",
    "SELECT id FROM (SELECT id, variant_get(v, '$[', 'int') AS n FROM t) WHERE n = 3000000000 OR id = 7",
    "SELECT count(*) FROM t WHERE variant_get(v, '$[', 'int') = 3",
    "SELECT id, variant_get(v, '$[', 'int') = 3000000000 AS a FROM t WHERE id = 7",
    # where Spark still computes the extraction: it fails as there
    "SELECT id, n FROM (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) WHERE n = 3000000000 OR id = 7",
    "SELECT id FROM (SELECT DISTINCT id, variant_get(v, '$.n', 'int') AS n FROM t) WHERE n = 3000000000 OR id = 7",
    "SELECT id FROM (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t ORDER BY n) WHERE n = 3000000000 OR id = 7",
    "SELECT id, n = 3000000000 AS a FROM (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) WHERE id = 7",
    "SELECT id FROM (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) WHERE n = 3 OR id = 7",
])
def test_folded_where_spark_computes_nothing(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_views, con, _SPARK_ANSWERS)


# a CTE read twice (a self-join, a subquery, a UNION): a comparison folded through either
# reference, and the CTE's column pruned where no reference reads it any more (read by one SELECT);
# computed, and raising, where a reference reads it
CTE_READ_TWICE = [
    "WITH x AS (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) "
    "SELECT a.id FROM x a JOIN x b ON a.id = b.id WHERE a.n = 3000000000 OR a.id = 7",
    "WITH x AS (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) "
    "SELECT a.id FROM x a JOIN x b ON a.id = b.id WHERE a.n = 3000000000 OR b.n = 4000000000 OR a.id = 7",
    "WITH x AS (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) "
    "SELECT a.id, b.n FROM x a JOIN x b ON a.id = b.id WHERE a.n = 3000000000 OR a.id = 7",
    "WITH x AS (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) "
    "SELECT a.id FROM x a JOIN x b ON a.id = b.id AND b.n = 3000000000 WHERE a.id = 7",
    "WITH x AS (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) "
    "SELECT id FROM x WHERE n = 3000000000 OR id IN (SELECT id FROM x WHERE id = 7)",
    "WITH x AS (SELECT id, variant_get(v, '$.n', 'int') AS n FROM t) "
    "SELECT id FROM x WHERE n = 3000000000 UNION ALL SELECT id FROM x WHERE id = 7",
]


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize("sql", CTE_READ_TWICE)
def test_folded_over_a_cte_read_twice(sql: str, engine: str, spark: SparkSession, spark_views: SparkSession,
                                      tables: dict[str, Path]) -> None:
    assert_same_answer(sql, spark_views, connect_tables(tables, spark if engine == "spark" else None), _SPARK_ANSWERS)
