"""Everyday relational queries (aggregates, windows, joins, set operations, subqueries, ordering)
give Spark's answer on both engines, or Spark's error class.

Found by comparing many such queries with PySpark over a small table with NULLs, duplicates, NaN,
-0.0, infinities, big and negative numbers, decimals, dates, timestamps, arrays, structs and maps;
each query here is one DuckDB answered otherwise. Each runs once on Spark (the oracle), and on
vpush through the DuckDB and the Spark engine, and must agree on names, types and rows, or raise
the same error class.
"""
from __future__ import annotations

import datetime as dt
import decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest

import vpush
from support.compare import assert_same_answer
from support.tables import connect_tables, table_folder, tables_fixtures
from vpush.codec.errors import VpushError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

D = decimal.Decimal
NAN, INF = float("nan"), float("inf")

TABLE = pa.table(
    {
        "id": pa.array([1, 2, 3, 4, 5, 6, 7, 8], pa.int32()),
        "i": pa.array([1, 2, None, 2, -7, 2147483647, 0, None], pa.int32()),
        "b": pa.array([10, -3, 7, 9223372036854775807, 0, -9223372036854775807, 10, None], pa.int64()),
        "f": pa.array([1.5, NAN, -0.0, 0.0, INF, -INF, None, NAN], pa.float64()),
        "d": pa.array([D("1.25"), D("-3.10"), None, D("99999999.99"), D("0.05"), D("1.25"), D("0.00"), D("-0.01")],
                      pa.decimal128(10, 2)),
        "g": pa.array(["a", "b", "a", None, "", "é", "b", "Z"]),
        "h": pa.array(["x", "x", "y", "y", None, "x", "y", "x"]),
        "day": pa.array([dt.date(2024, 1, 1), dt.date(2024, 1, 2), None, dt.date(2024, 1, 2), dt.date(1969, 12, 31),
                         dt.date(2024, 3, 10), dt.date(2024, 11, 3), dt.date(2024, 1, 5)], pa.date32()),
        "w": pa.array([D("9000000000000000.123456789012345678")] * 4 + [D("50000000000000000.5")] * 3 + [D("-1.000000000000000005")],
                      pa.decimal128(38, 18)),
        "flag": pa.array([True, False, None, True, True, False, None, True]),
        "arr": pa.array([[1, 2], [], None, [None, 3], [2, 1], [1, 2], [3], [None]], pa.list_(pa.int32())),
        "st": pa.array([{"a": 1, "b": "x"}, {"a": None, "b": "y"}, None, {"a": 1, "b": "x"}, {"a": 2, "b": None},
                        {"a": 1, "b": "x"}, {"a": 0, "b": ""}, {"a": None, "b": None}],
                       pa.struct([("a", pa.int32()), ("b", pa.string())])),
    }
)

QUERIES: list[Any] = [
    # a CTE whose query reads the table of its name (Spark's CTEs are not recursive; DuckDB had
    # refused a circular reference)
    "WITH t AS (SELECT id, i FROM t WHERE id > 2) SELECT t.id, i FROM t ORDER BY id",
    "WITH t AS (SELECT id FROM t), u AS (SELECT id FROM t WHERE id < 3) SELECT count(*) AS n FROM u",
    "WITH T AS (SELECT id AS k FROM t) SELECT a.k FROM T a JOIN t b ON a.k = b.id ORDER BY 1",
    # lateral column aliases: a later projection reads an earlier one's alias (DuckDB's binder
    # refused an alias of a cast that may raise), a source's column first; none in a window
    "SELECT CAST(CAST(i AS STRING) AS INT) AS c, c + 1 AS d, c * 2 FROM t",
    "SELECT i AS x, x + 1 AS y, y + 1 AS z FROM t",
    "SELECT id + 100 AS id, id * 2 AS d FROM t",
    "SELECT count(*) AS n, n + 1 AS m FROM t",
    "SELECT id AS c, row_number() OVER (ORDER BY c) AS r FROM t",
    # in an aggregating SELECT Spark computes them in a projection over the aggregate (DuckDB's
    # binder refused an alias that may raise, also in HAVING, where Spark reads an alias first)
    "SELECT CAST(CAST(i AS STRING) AS INT) AS c, c + 1, count(*) AS n FROM t WHERE id <> 6 GROUP BY i",
    "SELECT CAST(g AS INT) AS c, c + 1 AS d, count(*) AS n FROM t GROUP BY g",
    "SELECT CAST(g AS INT) AS c, c + 1 AS d, count(*) AS n FROM t GROUP BY g HAVING n > 100",
    "SELECT CAST(CAST(i AS STRING) AS INT) AS c, c + 1 AS d, count(*) AS n FROM t WHERE id <> 6 GROUP BY i HAVING d > 1 ORDER BY d DESC",
    "SELECT CAST(CAST(i AS STRING) AS INT) AS c, c + 1 AS d FROM t WHERE id <> 6 GROUP BY c HAVING d > 1",
    "SELECT CAST(CAST(i AS STRING) AS INT) AS c, c + 1 AS d FROM t WHERE id <> 6 GROUP BY 1 HAVING c > 1",
    "SELECT b + 1 AS x, x + 1, count(*) AS c FROM t WHERE id < 4 GROUP BY x",
    "SELECT b + 1 AS x, x + 1, count(*) AS c FROM t WHERE id < 4 GROUP BY ROLLUP(x)",
    "SELECT sum(i) AS s, s / count(*) AS a, max(i) AS m, m - s FROM t GROUP BY h",
    "SELECT sum(i) AS s, s + 1 AS a, a * 2 FROM t HAVING a > 0",
    "SELECT count(*) AS n, n + 1 FROM t GROUP BY h",
    "SELECT upper(h) AS x, x || 'a', count(*) FROM t GROUP BY upper(h)",
    "SELECT h AS x, count(*) AS n, x || n FROM t GROUP BY h ORDER BY x",
    "SELECT h AS i, count(*) AS n FROM t GROUP BY h HAVING i > 0",
    "SELECT h AS i, count(*) AS n FROM t GROUP BY h, i HAVING i > 0",
    "SELECT upper(h) AS h, count(*) AS n FROM t GROUP BY h HAVING h > 'X'",
    "SELECT sum(i) AS d FROM t GROUP BY h HAVING d > 0",
    "SELECT i AS c, sum(c) FROM t GROUP BY i",
    "SELECT CAST(CAST(i AS STRING) AS INT) AS c, count(*) FILTER (WHERE c > 0) AS n FROM t GROUP BY i",
    "SELECT id AS c, c + 1 FROM t GROUP BY i",
    "SELECT h AS x, x || g FROM t GROUP BY h",
    "SELECT h AS x, max(id) AS m, row_number() OVER (ORDER BY m) AS r FROM t GROUP BY h",
    # an aggregating SELECT's ORDER BY resolves over the aggregate's output: a column neither
    # grouped, projected nor aggregated is unresolved there (after the SELECT list's own check)
    "SELECT h, count(*) FROM t GROUP BY h ORDER BY id",
    "SELECT count(*) FROM t ORDER BY id",
    "SELECT h, count(*) AS n FROM t GROUP BY h HAVING count(*) > 1 ORDER BY h || g",
    "SELECT h, g, count(*) FROM t GROUP BY h ORDER BY id",
    "SELECT h AS x, count(*) AS n FROM t GROUP BY 1 ORDER BY h",
    "SELECT upper(h) AS u, count(*) AS n FROM t GROUP BY upper(h) ORDER BY u",
    "SELECT h, count(*) AS n FROM t GROUP BY h ORDER BY max(id)",
    # Spark averages integers over a double sum: past 2^53 it loses what an exact sum keeps
    "SELECT avg(b) AS a, avg(i) AS c FROM t",
    "SELECT id, avg(b) OVER (ORDER BY id) AS a FROM t",
    # the average of wide decimals whose sum times 10^4 passes 128 bits; one out of decimal(38,22)'s range
    "SELECT avg(w) AS a, avg(-w) AS n FROM t WHERE id < 5 OR id = 8",
    "SELECT h, avg(w) AS a FROM t WHERE id < 5 OR id = 8 GROUP BY h",
    "SELECT avg(w) FROM t WHERE id > 4",
    # percentile and median of decimals interpolate as doubles
    "SELECT percentile(d, 0.25) AS p, median(d) AS m, percentile(d, array(0.1, 0.5)) AS a, median(f) AS mf FROM t",
    "SELECT h, median(d) AS m, percentile(f, array(0.3, 0.9)) AS q, percentile(b, 0.7) AS pb FROM t GROUP BY h",
    "SELECT median(i) AS m, percentile(d, 0.5) AS p FROM t WHERE id > 100",
    "SELECT percentile(i, 1.5) FROM t",
    "SELECT percentile(i, array(0.5, -0.1)) FROM t",
    # first/last ignoring NULLs as aggregates; first_value/last_value outside a window
    "SELECT first(i, true) AS a, last(i, true) AS b, first(i) AS c, last(i) AS d FROM (SELECT * FROM t ORDER BY id)",
    "SELECT first(i) IGNORE NULLS AS a, last(i) IGNORE NULLS AS b, first_value(g) AS c, last_value(g, true) AS d "
    "FROM (SELECT * FROM t ORDER BY id)",
    "SELECT h, last(i, true) AS l FROM (SELECT * FROM t ORDER BY id) GROUP BY h",
    # window functions over windows Spark refuses
    "SELECT percent_rank() OVER (PARTITION BY h) FROM t",
    "SELECT row_number() OVER (PARTITION BY h) FROM t",
    "SELECT lag(i) OVER (PARTITION BY h) FROM t",
    "SELECT nth_value(i, 2) OVER (PARTITION BY h) FROM t",
    "SELECT row_number() OVER (ORDER BY id ROWS 1 PRECEDING) FROM t",
    "SELECT ntile(2) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM t",
    "SELECT lag(i) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t",
    "SELECT ntile(0) OVER (ORDER BY id) FROM t",
    "SELECT ntile(i) OVER (ORDER BY id) FROM t",
    "SELECT nth_value(i, 0) OVER (ORDER BY id) FROM t",
    "SELECT id, rank() OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS r, "
    "first_value(i) OVER (PARTITION BY h) AS f FROM t",
    # -0.0 and 0.0 are one grouping and distinct key, given as 0.0 (NaN too is one key)
    "SELECT f, count(*) AS c FROM t GROUP BY f ORDER BY f",
    "SELECT f, count(*) AS c, max(id) AS m FROM t GROUP BY 1 HAVING f >= 0 OR isnull(f) ORDER BY 1",
    "SELECT h, f * 2 AS k, sum(id) AS s FROM t GROUP BY h, f",
    "SELECT h, f, count(*) AS c FROM t GROUP BY ROLLUP(h, f)",
    "SELECT f, i % 2 AS k, count(*) AS c FROM t GROUP BY GROUPING SETS ((f), (i % 2))",
    "SELECT h, g, count(*) AS c, sum(i) AS s FROM t GROUP BY h, g WITH CUBE",
    "SELECT h, count(*) AS c FROM t GROUP BY h WITH ROLLUP",
    "SELECT DISTINCT f FROM t",
    "SELECT DISTINCT h, f AS x FROM t",
    "SELECT f FROM t WHERE id < 5 UNION SELECT -f FROM t",
    "SELECT f FROM t INTERSECT SELECT -f FROM t",
    "SELECT -f AS n FROM t EXCEPT SELECT f FROM t WHERE id = 1",
    "SELECT f FROM t UNION ALL SELECT -f FROM t",
    # a star's floats too, and each projection by its place after a star or a repeated name; a
    # constant -0.0 as it is (Spark folds it out of the keys)
    "SELECT DISTINCT *, -f AS z FROM (SELECT id % 2 AS k, f FROM t)", "SELECT DISTINCT *, b.f AS z FROM t a JOIN t b ON a.id = b.id",
    "SELECT DISTINCT h, f, h, -0.0D AS z FROM t", "SELECT * FROM (SELECT h, f FROM t) WHERE h = 'x' UNION SELECT h, -f FROM t",
    # x IN (subquery) in a SELECT list is never NULL in Spark (an existence join)
    "SELECT id, i IN (SELECT i FROM t WHERE id > 4) AS a, i NOT IN (SELECT i FROM t WHERE id < 3) AS b, "
    "NOT (i IN (SELECT i FROM t WHERE id > 4)) AS c, i NOT IN (SELECT i FROM t WHERE id > 100) AS e, "
    "f IN (SELECT -f FROM t WHERE id > 1) AS n FROM t",
    "SELECT id FROM t WHERE NOT (i IN (SELECT i FROM t WHERE id > 4))",
    "SELECT id FROM t WHERE i NOT IN (SELECT i FROM t WHERE id < 3)",
    # a scalar subquery of more than one row
    "SELECT id, (SELECT g FROM t AS u WHERE u.h = t.h) AS m FROM t",
    # arrays and structs ordered as Spark orders them: a NULL inside before every value
    "SELECT id, st FROM t ORDER BY st, id",
    "SELECT id, st FROM t ORDER BY st DESC, id",
    "SELECT id, arr FROM t ORDER BY arr, id",
    "SELECT id, arr FROM t ORDER BY arr DESC NULLS FIRST, id",
    "SELECT min(st) AS a, max(st) AS b, min(arr) AS c, max(arr) AS d, max_by(id, arr) AS e, min_by(id, st) AS f FROM t",
    "SELECT h, max(arr) AS m FROM t GROUP BY h",
    "SELECT id, st < named_struct('a', 1, 'b', 'y') AS a, arr < array(1, 3) AS b, arr >= array(NULL, 5) AS c FROM t",
    # a string beside an integer is read as a bigint (Spark's ANSI coercion); booleans and numbers do not compare
    "SELECT id, i = '2' AS a, i > ' 1' AS b, i IN ('2', '7') AS c, i BETWEEN '0' AND '3' AS d FROM t",
    "SELECT id, i = '2.5' AS a FROM t",
    "SELECT id, i IN ('2', 'x') AS a FROM t",
    "SELECT flag = 1 FROM t",
    "SELECT id, flag = 'true' AS a, flag > false AS b FROM t",
    # a sum or average of booleans is Spark's analysis error
    "SELECT sum(flag) FROM t",
    "SELECT avg(flag) OVER (ORDER BY id) FROM t",
    "SELECT sum(NULL) AS s, avg(NULL) AS a, count(NULL) AS c FROM t",
    "SELECT h, i FROM t GROUP BY h",
    "SELECT h, sum(i) AS s, count(*) AS c FROM t GROUP BY h HAVING s > 0 AND c > 1",
    "SELECT sum(i) AS s FROM t HAVING s > 0",
    # USING and NATURAL joins with their columns named
    "SELECT k, id, g FROM (SELECT id, i AS k FROM t) a FULL JOIN (SELECT i AS k, g FROM t WHERE id > 3) b USING (k)",
    # `*` over a join USING or NATURAL: the join columns first (the right side's for a RIGHT join,
    # coalesce of both for a FULL one), then each side's others; a side's a.* its join columns first
    "SELECT * FROM (SELECT id, i AS k FROM t) a JOIN (SELECT i AS k, g FROM t) b USING (k)",
    "SELECT * FROM (SELECT id, i AS k FROM t) a NATURAL FULL JOIN (SELECT i AS k, g FROM t) b",
    "SELECT a.*, g FROM (SELECT id, i AS k FROM t) a JOIN (SELECT i AS k, g FROM t) b USING (k)",
    "SELECT *, b.* FROM (SELECT id, i AS k, g FROM t) a RIGHT JOIN (SELECT g, i AS k, d FROM t WHERE id > 2) b USING (g, k)",
    "SELECT * FROM (SELECT id FROM t WHERE id < 3) a NATURAL JOIN (SELECT g FROM t WHERE id < 3) b",
    "SELECT k, id, g FROM (SELECT id, i AS k FROM t) a NATURAL RIGHT JOIN (SELECT i AS k, g FROM t WHERE id > 3) b",
    # Spark's classes for positions out of range and a negative limit
    "SELECT id, i FROM t ORDER BY 3",
    "SELECT max(i) FROM t GROUP BY 2",
    "SELECT id FROM t ORDER BY id LIMIT -1",
    # an aggregate in a window's ORDER BY
    "SELECT h, sum(i) AS s, rank() OVER (ORDER BY sum(i)) AS r FROM t GROUP BY h",
    # lag/lead's fractional default for an integer is truncated; count_if over a window a bigint
    "SELECT id, lag(i, 1, 1.5) OVER (ORDER BY id) AS a, lead(i, 2, -2.7) OVER (ORDER BY id) AS b, "
    "count_if(i > 0) OVER (ORDER BY id) AS c FROM t",
    # aggregates whose answer depends on the order Spark meets the rows in (here: the file's)
    # Spark adds bigints one row at a time and overflows on the way (10 - 3 + 7 + 2^63-1), though the total fits
    "SELECT sum(b) FROM t",
    "SELECT h, try_sum(b) AS s, sum(b) FILTER (WHERE id <> 4) AS f FROM t GROUP BY h",
    "SELECT sum(b) FILTER (WHERE id <> 4) AS s, try_sum(i) AS i FROM t",
    # Spark keeps the last of the rows tied on the ordering
    "SELECT max_by(id, h) AS a, min_by(id, h) AS b FROM t",
    "SELECT h, max_by(id, f) AS a, min_by(g, flag) AS b, max_by(g, arr) AS c FROM t GROUP BY h",
    # Spark's moments by its own update and merge formulas, to the last bit
    "SELECT stddev_samp(d) AS s, var_pop(d) AS v FROM t WHERE id < 4",
    "SELECT stddev(i) AS a, std(b) AS b, stddev_pop(d) AS c, variance(i) AS e, var_samp(w) AS g, skewness(d) AS k, "
    "kurtosis(i) AS u FROM t",
    "SELECT h, corr(i, d) AS c, covar_pop(b, i) AS p, covar_samp(d, id) AS s, kurtosis(d) AS k FROM t GROUP BY h",
    "SELECT skewness(f) AS s, kurtosis(f) AS k, var_pop(f) AS v, corr(f, id) AS c FROM t WHERE id < 5",
    "SELECT skewness(f) AS s, var_pop(f) AS v, corr(f, id) AS c, regr_intercept(id, f) AS r, regr_sxx(id, f) AS x "
    "FROM t WHERE id IN (1, 3, 4, 5)",
    "SELECT var_samp(f) AS v, regr_intercept(id, f) AS r, regr_slope(f, id) AS s FROM t WHERE id IN (1, 6)",
    "SELECT var_samp(i) FILTER (WHERE id > 2) AS v, corr(id, i) FILTER (WHERE h = 'x') AS c, skewness(id) AS k FROM t",
    "SELECT stddev(i), variance(d), skewness(id), kurtosis(d), corr(i, id), covar_pop(i, d), covar_samp(i, d) FROM t",
    # regr_* over the pairs where neither is NULL; regr_r2 NULL where x is constant, 1 where y is
    "SELECT h, regr_slope(i, d) AS a, regr_intercept(d, id) AS b, regr_r2(i, id) AS c, regr_r2(1.0D, id) AS r, "
    "regr_r2(id, 2) AS q, regr_sxx(i, f) AS e, regr_syy(b, d) AS s, regr_sxy(d, i) AS x FROM t GROUP BY h",
    "SELECT regr_slope(i, d), regr_intercept(d, id), regr_r2(i, id), regr_sxx(i, d), regr_syy(i, d), regr_sxy(i, d) FROM t",
    # first, last, any_value and collect_list take the rows in order
    "SELECT first(g) AS a, last(g) AS b, any_value(h) AS c, first(g, true) AS d, last(h) IGNORE NULLS AS e, "
    "collect_list(g) AS l, first_value(h) AS f FROM t",
    "SELECT h, first(i) AS a, last(i) AS b, collect_list(id) AS l, array_agg(i) AS m, string_agg(g, '-') AS s FROM t GROUP BY h",
    "SELECT h, collect_list(g) FILTER (WHERE id > 1) AS l, listagg(g) FILTER (WHERE id > 1) AS s, "
    "max_by(id, flag) FILTER (WHERE id < 8) AS m, last(g) FILTER (WHERE id < 7) AS z FROM t GROUP BY h",
    # doubles, and integers averaged as doubles, added in order
    "SELECT sum(f) AS s, avg(f) AS a, avg(b) AS ab FROM t WHERE id < 5",
    # an ORDER BY expression names the SELECT's alias before the FROM's column (DuckDB: the column),
    # and an alias of a cast or aggregate that may fail (DuckDB refused it: side effects)
    "SELECT -id AS id FROM t ORDER BY id + 0",
    "SELECT id AS k, -i AS i FROM t ORDER BY i * 2 NULLS LAST, k",
    "SELECT CAST(g AS INT) AS c FROM t WHERE g = '' ORDER BY c + 1",
    "SELECT CAST(h AS INT) AS c FROM t ORDER BY c + 1",
    "SELECT CAST(CAST(i AS STRING) AS INT) AS c FROM t ORDER BY c % 3, c NULLS LAST",
    "SELECT h, collect_list(id) AS l FROM t GROUP BY h ORDER BY size(l) DESC, h",
    "SELECT h, string_agg(g, ',') AS l, count(*) AS n FROM t GROUP BY h ORDER BY length(l), n * -1, h",
    "SELECT DISTINCT upper(h) AS u FROM t ORDER BY length(u), u",
    # a field of a struct the SELECT names (DuckDB looked for a table s)
    "SELECT named_struct('a', i, 'b', id) AS s FROM t ORDER BY s.a NULLS LAST, s.b DESC",
    "SELECT struct(h AS k, count(*) AS n) AS s FROM t GROUP BY h ORDER BY s.n DESC, s.k NULLS FIRST",
    # a list of distinct values sorted (unsorted, its order is Spark's hash aggregation's: refused)
    "SELECT h, array_sort(collect_list(DISTINCT g)) AS l, size(array_agg(DISTINCT i)) AS n FROM t GROUP BY h",
    # a GROUP BY position or alias naming an aggregate
    "SELECT h, count(*) FROM t GROUP BY 1, 2",
    "SELECT h, count(*) + 1 AS n FROM t GROUP BY 2",
    "SELECT h, count(*) AS n FROM t GROUP BY n",
    # a HAVING's column neither grouped nor aggregated
    "SELECT h FROM t GROUP BY h HAVING id > 1",
    "SELECT h, count(*) FROM t GROUP BY 1 HAVING count(*) > 1 AND i > 0",
    # a scalar subquery typed as its one output (decimal arithmetic over it as Spark's), read as
    # often as DuckDB plans it (x / (SELECT ...) was a DuckDB error: its scan read twice)
    "SELECT id / (SELECT max(i) FROM t) AS x FROM t",
    "SELECT d / (SELECT sum(d) FROM t) AS share, d * (SELECT max(d) FROM t) AS p FROM t",
    "SELECT (SELECT max(d) FROM t) + 1 AS x, nullif((SELECT min(i) FROM t), 3) AS y",
    # a decimal past 38 digits
    "SELECT CAST(d AS DECIMAL(40, 2)) FROM t",
    # QUALIFY over an alias whose expression may raise (DuckDB's binder refused error() there):
    # answered, or Spark's error where a row the window reads fails
    "SELECT CAST(CAST(i AS STRING) AS INT) AS c FROM t QUALIFY row_number() OVER (ORDER BY c NULLS LAST) = 1",
    "SELECT id, CAST(CAST(i AS STRING) AS INT) AS c FROM t QUALIFY row_number() OVER (PARTITION BY c ORDER BY id) = 1",
    "SELECT id, CAST(CAST(i AS STRING) AS INT) AS c FROM t QUALIFY rank() OVER (ORDER BY c DESC) <= 2",
    "SELECT id, CAST(CAST(i AS STRING) AS INT) AS c FROM t QUALIFY dense_rank() OVER (PARTITION BY h ORDER BY c) = 1",
    "SELECT id, CAST(CAST(i AS STRING) AS INT) AS c FROM t QUALIFY lag(c) OVER (ORDER BY c, id) IS NOT NULL",
    "SELECT id, CAST(g AS INT) AS c FROM t QUALIFY row_number() OVER (ORDER BY c) = 1",
    "SELECT id, CAST(g AS INT) AS c FROM t WHERE g IS NULL QUALIFY row_number() OVER (ORDER BY c) = 1",
    "SELECT id, CAST(g AS INT) AS c FROM t WHERE g IS NULL OR g = 'a' QUALIFY row_number() OVER (ORDER BY id DESC) = 1",
    "WITH x AS (SELECT id, CAST(CAST(i AS STRING) AS INT) AS c FROM t) SELECT id, c FROM x "
    "QUALIFY row_number() OVER (ORDER BY c NULLS LAST, id) = 1",
    "WITH x AS (SELECT id, CAST(CAST(i AS STRING) AS INT) AS c FROM t QUALIFY rank() OVER (ORDER BY c) <= 3) SELECT * FROM x",
    "SELECT id, variant_get(parse_json(CAST(i AS STRING)), '$', 'int') AS c FROM t QUALIFY row_number() OVER (ORDER BY c DESC) = 1",
    "SELECT id, variant_get(parse_json(CAST(b AS STRING)), '$', 'int') AS c FROM t QUALIFY rank() OVER (ORDER BY c) = 1",
    "SELECT h, sum(i) AS s FROM t GROUP BY h QUALIFY rank() OVER (ORDER BY s) = 1",
    # integer arithmetic with a constant, compared with a constant: Spark computes it for every
    # row and raises its overflow where DuckDB's optimizer had moved the constant (i + 1 > 1 as
    # i > 0), in a WHERE, a join's ON, a HAVING, a projection and a filter pushed into a subquery
    "SELECT id FROM t WHERE i + 1 > 1",
    "SELECT id FROM t WHERE 1 + i = 5",
    "SELECT id FROM t WHERE i * 2 > 4",
    "SELECT id FROM t WHERE (i + 1) * 2 > 4",
    "SELECT id FROM t WHERE i - 1 < 0",
    "SELECT id FROM t WHERE id <> 6 AND i + 1 > 1",
    "SELECT id FROM t WHERE b - 2 < 0",
    "SELECT id FROM t WHERE b * 2 >= 20",
    "SELECT id FROM t WHERE CAST(id AS TINYINT) + 127Y > 1",
    "SELECT id FROM t WHERE CAST(id AS SMALLINT) * 32767S = 5",
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id AND a.i + 1 > 1",
    "SELECT h, count(*) AS n FROM t GROUP BY h HAVING max(i) + 1 > 1",
    "SELECT h, count(*) AS n FROM t GROUP BY h HAVING min(i) - 1 < 0",
    "SELECT i + 1 > 1 AS c FROM t",
    "SELECT id FROM (SELECT id, i * 2 AS x FROM t) WHERE x = 5",
    # (and an integer negation compared with a constant: -x < 5 as x > -5)
    "SELECT id FROM t WHERE -(b - 1) > 0",
    "SELECT id FROM t WHERE -(CAST(id AS TINYINT) - 2Y - 127Y) > 0",
    "SELECT id FROM t WHERE -i < 5",
    # (DuckDB's optimizer wrote sum(i + 1) as sum(i) + count(i))
    "SELECT sum(i + 1) AS s FROM t",
    "SELECT h, sum(b - 1) AS s FROM t WHERE id <> 4 GROUP BY h",
    # an ORDER BY aggregate under a HAVING that needs an aggregate or key the SELECT does not
    # project: Spark's Sort stands over a Project of the SELECT's columns, not over its Aggregate,
    # and resolves neither the aggregate's column (UNRESOLVED_COLUMN) nor, of keys, the aggregate
    # (UNSUPPORTED_EXPR_FOR_OPERATOR); a HAVING of what the SELECT projects adds nothing
    "SELECT h AS x, count(*) AS n FROM t GROUP BY h HAVING max(id) > 6 ORDER BY max(i)",
    "SELECT h AS x, count(*) AS n FROM t GROUP BY h HAVING max(id) > 6 ORDER BY x, max(id) DESC",
    "SELECT h AS x, count(*) AS n FROM t GROUP BY h HAVING max(id) > 6 ORDER BY count(*)",
    "SELECT h AS x, count(*) AS n FROM t GROUP BY h HAVING max(id) > 6 ORDER BY max(h)",
    "SELECT count(*) AS n FROM t GROUP BY h HAVING h > 'a' ORDER BY max(i)",
    "SELECT h, count(*) + 1 AS n FROM t GROUP BY h HAVING count(*) > 1 ORDER BY max(i)",
    "SELECT count(*) AS n FROM t HAVING max(id) > 6 ORDER BY count(*)",
    "SELECT h AS x, count(*) AS n FROM t GROUP BY h ORDER BY max(i)",
    "SELECT h AS x, count(*) AS n FROM t GROUP BY h HAVING max(id) > 6 ORDER BY n DESC, x",
    "SELECT h AS x, count(*) AS n FROM t GROUP BY h HAVING count(1) > 1 AND x > 'a' ORDER BY max(i)",
    "SELECT h, max(id) AS m FROM t GROUP BY h HAVING MAX(id) > 6 ORDER BY max(i)",
    "SELECT upper(h) AS u, count(*) AS n FROM t GROUP BY upper(h) HAVING upper(h) > 'A' ORDER BY max(i)",
    "SELECT max(id) AS m FROM t HAVING max(id) > 6 ORDER BY max(i)",
    # a subquery's `SELECT * FROM t [LIMIT n]` under a reader that names no columns itself (a
    # star, a set operation): every column read (none had been: one column of NULLs)
    "SELECT * FROM (SELECT * FROM t)",
    "SELECT * FROM (SELECT * FROM t LIMIT 100)",
    "SELECT s.* FROM (SELECT * FROM t LIMIT 100) s",
    "SELECT * FROM (SELECT * FROM (SELECT * FROM t LIMIT 100))",
    "(SELECT * FROM t LIMIT 100) UNION ALL (SELECT * FROM t LIMIT 100)",
    # an aggregate of a HAVING reads a source's column before an alias of its name (vpush had read
    # the alias: max(g) for max(i)); of an ORDER BY, or of a name only an alias gives, Spark's
    # MISSING_ATTRIBUTES (vpush had answered, or raised NESTED_AGGREGATE_FUNCTION)
    "SELECT h AS i, count(*) AS n FROM t GROUP BY h HAVING max(i) > 1",
    "SELECT h AS i, max(id) AS m FROM t GROUP BY h HAVING max(i) FILTER (WHERE i > 0) > 1 AND upper(i) <> 'Y'",
    "SELECT h AS g, max(id) AS id FROM t GROUP BY h HAVING sum(id) > 16",
    "SELECT h AS x, count(*) AS n FROM t GROUP BY h HAVING max(x) > 'a'",
    "SELECT h, count(*) AS n FROM t GROUP BY h HAVING max(n) > 1",
    "SELECT h AS i, count(*) AS n FROM t GROUP BY h ORDER BY max(i)",
    "SELECT h AS x, count(*) AS n FROM t GROUP BY h ORDER BY max(upper(x))",
    "SELECT count(*) AS n FROM t ORDER BY max(n)",
    "SELECT h AS h, count(*) AS n FROM t GROUP BY h ORDER BY count(h)",
    # a window in an ORDER BY, which Spark's Sort never computes: in an aggregating SELECT its
    # aggregate goes into the Aggregate (MISSING_ATTRIBUTES of an alias, NESTED_AGGREGATE_FUNCTION,
    # else UNSUPPORTED_EXPR_FOR_WINDOW), any other UNSUPPORTED_EXPR_FOR_OPERATOR (vpush had answered)
    "SELECT h AS i, sum(id) AS m FROM t GROUP BY h ORDER BY max(i) OVER ()",
    "SELECT h, count(*) AS n FROM t GROUP BY h ORDER BY row_number() OVER (ORDER BY h), max(id) OVER ()",
    "SELECT h, count(*) AS n FROM t GROUP BY h ORDER BY sum(count(*)) OVER ()",
    "SELECT h, sum(i) AS m FROM t GROUP BY h ORDER BY lag(m) OVER (ORDER BY h)",
    "SELECT id FROM t UNION ALL SELECT id FROM t ORDER BY max(id) OVER ()",
    # a HAVING's name that is both a source's column and an alias of another type: Spark coerces
    # the comparison by the column's type, then reads the alias, the casts kept (vpush had compared
    # the alias as it is: answered where Spark raises, or other rows); a qualified name reads no alias
    "SELECT day AS i, count(*) AS n FROM t GROUP BY day HAVING i = '2024-01-01'",
    "SELECT CAST(id AS STRING) AS f, count(*) AS n FROM t GROUP BY id HAVING f = '1.0' OR f IN (' 2', NULL)",
    "SELECT f AS i, count(*) AS n FROM t GROUP BY f HAVING i = 1.5 OR coalesce(i, 0) > 1",
    "SELECT h AS i, count(*) AS n FROM t GROUP BY h HAVING t.i = 'x'",
    "SELECT h AS k, k || 'z' AS i, count(*) AS n FROM t GROUP BY h HAVING coalesce(i, NULL) IS NULL",
    # a QUALIFY without a window function (DuckDB's binder failed without Spark's class)
    "SELECT g, count(*) AS n FROM t GROUP BY g QUALIFY n > 0",
    "SELECT i FROM t WINDOW w AS (ORDER BY i) QUALIFY i > 0",
    # a HAVING's name that is an alias of a column grouped by position and a source's column of
    # another type: coerced by the column's type, which is not grouped (DuckDB's binder had failed)
    "SELECT i AS g, count(*) AS n FROM t GROUP BY 1 HAVING g > 2",
    "SELECT i AS g, count(*) AS n FROM t GROUP BY 1 HAVING g IN (1, 2) OR coalesce(g, 5) > 4",
    # an ORDER BY expression over an alias of a window or of what may raise: sorted over the
    # SELECT's outputs (DuckDB's binder had refused the alias: side effects)
    "SELECT g, sum(count(*)) OVER () AS r FROM t GROUP BY g ORDER BY r + 1, g",
    "SELECT h, sum(i) OVER (PARTITION BY h) AS r FROM t ORDER BY r * 2, id",
    "SELECT CAST(g AS INT) AS c, count(*) AS n FROM t WHERE g = '' OR g IS NULL GROUP BY g ORDER BY c + 1",
    # a window or aggregate in a SORT BY, CLUSTER BY or DISTRIBUTE BY, a subquery where Spark's
    # Sort or RepartitionByExpression cannot hold it, a window of a subquery over the outer query
    # (vpush had answered)
    "SELECT id FROM t SORT BY rank() OVER (ORDER BY id)",
    "SELECT id FROM t CLUSTER BY rank() OVER (ORDER BY id)",
    "SELECT id FROM t SORT BY max(id)",
    "SELECT h, count(*) AS n FROM t GROUP BY h SORT BY max(id) OVER ()",
    "SELECT id FROM t ORDER BY (SELECT max(id) OVER ())",
    "SELECT id FROM t ORDER BY EXISTS (SELECT 1 FROM t u WHERE u.id > t.id), id",
    "SELECT id FROM t DISTRIBUTE BY id IN (SELECT i FROM t)",
    "SELECT id FROM t WHERE id > (SELECT max(id) OVER ())",
    "SELECT id FROM t ORDER BY (SELECT max(id) FROM t u), id",
    # a null test of what cannot be null, a subquery's column too, is false before any row is
    # read (Spark's NullPropagation; DuckDB had computed the date and raised); not a grouping
    # set's key
    "SELECT id FROM (SELECT id, make_date(2024, 13, 1) AS d FROM t) WHERE d IS NULL AND id > 100",
    "SELECT id, d IS NULL AS n FROM (SELECT id, make_date(2024, 13, 1) AS d FROM t) ORDER BY id",
    "SELECT one, count(*) AS n FROM (SELECT 1 AS one, id FROM t) GROUP BY ROLLUP(one) HAVING one IS NULL",
    # greatest/least of a HAVING name that is a column of the others' type and an alias of a
    # string or a date: Spark finds no common type once it reads the alias (vpush had cast the
    # string, DuckDB's binder refused the date)
    "SELECT h AS i, count(*) AS n FROM t GROUP BY h HAVING greatest(i, 2) > 1",
    "SELECT day AS i, count(*) AS n FROM t GROUP BY day HAVING least(i, 2, NULL) > 1",
]


tables, spark_views, con, _ = tables_fixtures(lambda root: {"t": table_folder(root, TABLE)}, "relational", both_engines=True)


# Spark's answer to each query, computed once for both engines
_SPARK_ANSWERS: dict[str, tuple[Any, ...]] = {}


def test_having_alias_shadowing_a_column_of_another_type(spark_views: SparkSession, tables: dict[str, Path]) -> None:
    assert_same_answer("SELECT h AS i, count(*) AS n FROM t GROUP BY h HAVING i = 'x'", spark_views, connect_tables(tables), {})


# Found this session and not yet mended: each differs from Spark (measured on PySpark 4.3).
NOT_MENDED = [
    # the window's alias g shadows the string column g in an ORDER BY expression: DuckDB's binder
    # error without a class, where Spark answers
    "SELECT h AS x, sum(count(*)) OVER () AS h FROM t GROUP BY h ORDER BY h + 1, x",
    # an alias of a window in an ORDER BY expression beside an aggregate: DuckDB's binder error,
    # where Spark raises UNRESOLVED_COLUMN
    "SELECT h, sum(count(*)) OVER () AS r FROM t GROUP BY h ORDER BY r + 1, max(id)",
    # a scalar subquery of the grouped column, sorted by: answered, where Spark raises
    # SCALAR_SUBQUERY_IS_IN_GROUP_BY_OR_AGGREGATE_FUNCTION
    "SELECT h, (SELECT count(*) FROM t u WHERE u.h = t.h) AS n FROM t GROUP BY h ORDER BY n, h",
    # NOT of a parenthesized list (Spark's struct): DuckDB's conversion error without a class,
    # where Spark raises DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE
    "SELECT NOT (i, 1) FROM t",
    # a DISTRIBUTE BY's keys are not computed on DuckDB: answered, where Spark computes every
    # row's key and raises CAST_INVALID_INPUT
    "SELECT id FROM t DISTRIBUTE BY cast(g AS int)",
    # a SORT BY in a subquery does not give the aggregates above it its order (Spark's one
    # partition: sorted)
    "SELECT collect_list(id) FROM (SELECT id FROM t SORT BY id DESC)",
]


@pytest.mark.xfail(strict=True, reason="found this session, not yet mended (see the comments of NOT_MENDED)")
@pytest.mark.parametrize("sql", NOT_MENDED)
def test_not_yet_as_spark(sql: str, spark_views: SparkSession, tables: dict[str, Path]) -> None:
    assert_same_answer(sql, spark_views, connect_tables(tables), {})


@pytest.mark.xfail(strict=True, reason="Spark coerces a HAVING's name that is both a source's column and an alias of another "
                   "type by the column's type in a CASE/if branch or arithmetic too (cast('x' AS bigint) here); vpush, only in "
                   "comparisons, IN, BETWEEN, coalesce, greatest and least")
def test_having_alias_shadowing_a_column_in_a_branch(spark_views: SparkSession, tables: dict[str, Path]) -> None:
    assert_same_answer("SELECT h AS i, count(*) AS n FROM t GROUP BY h HAVING if(n > 0, i, 'a') = 'x'", spark_views, connect_tables(tables), {})


def test_having_alias_shadowing_a_column_in_arithmetic_refused(tables: dict[str, Path]) -> None:
    """Decimal arithmetic over such a name (Spark: CAST_INVALID_INPUT) is refused with a vpush
    error on DuckDB, where it had failed an internal assertion."""
    with pytest.raises(VpushError) as raised:
        connect_tables(tables).sql("SELECT h AS i, count(*) AS n FROM t GROUP BY h HAVING i + 1.5 > 2").to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"


def test_window_of_an_alias_in_an_aggregating_order_by(spark_views: SparkSession, tables: dict[str, Path]) -> None:
    assert_same_answer("SELECT h, sum(i) AS m FROM t GROUP BY h ORDER BY max(m) OVER ()", spark_views, connect_tables(tables), {})


@pytest.mark.parametrize("sql", QUERIES)
def test_matches_spark(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_views, con, _SPARK_ANSWERS)


def test_star_over_two_joins_of_subqueries(spark_views: SparkSession, con: vpush.Connection) -> None:
    """``*`` over two USING joins of subqueries: the join key first, then each side's others."""
    sql = ("SELECT * FROM (SELECT id, i AS k FROM t) a JOIN (SELECT i AS k, g FROM t) b USING (k) "
           "JOIN (SELECT i AS k FROM t) c USING (k)")
    assert_same_answer(sql, spark_views, con, _SPARK_ANSWERS)


def test_list_of_distinct_values_refused_on_duckdb(spark: SparkSession, spark_views: SparkSession, tables: dict[str, Path]) -> None:
    """Spark lists the distinct values in its hash aggregation's order (found probing: DuckDB's
    order differed): the DuckDB engine refuses it, the Spark engine gives Spark's answer."""
    sql = "SELECT h, collect_list(DISTINCT g) AS l FROM t GROUP BY h"
    with pytest.raises(VpushError) as raised:
        connect_tables(tables).sql(sql).to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"
    assert_same_answer(sql, spark_views, connect_tables(tables, spark), _SPARK_ANSWERS)


def test_constant_negative_zero_through_a_subquery_in_a_distinct(spark_views: SparkSession, tables: dict[str, Path]) -> None:
    """Spark's FoldablePropagation carries a constant -0.0 through a subquery into a DISTINCT's
    keys, which then give it as it is; vpush had normalized the column to 0.0. A column that is
    not a constant is normalized still."""
    for sql in ("SELECT DISTINCT h, z FROM (SELECT h, -0.0D AS z FROM t)",
                "SELECT DISTINCT z FROM (SELECT * FROM (SELECT h, -0.0D AS z FROM t)) s",
                "SELECT DISTINCT z FROM (SELECT h, -0.0D * h AS z FROM t)"):
        assert_same_answer(sql, spark_views, connect_tables(tables), _SPARK_ANSWERS)


def test_conjunct_that_raises_before_one_that_drops_the_row(spark_views: SparkSession, tables: dict[str, Path]) -> None:
    """Spark's filter tests its left conjunct first and raises the overflow for the row that
    ``id <> 6`` drops; DuckDB had tested ``id <> 6`` first (in its scan) and answered
    (``optimizer/order_conjuncts.py``; its neighbours in ``tests/test_conjunct_order.py``)."""
    assert_same_answer("SELECT id FROM t WHERE i + 1 > 1 AND id <> 6", spark_views, connect_tables(tables), _SPARK_ANSWERS)


def test_lateral_alias_that_may_raise_in_an_aggregating_select(spark_views: SparkSession, tables: dict[str, Path]) -> None:
    """Spark computes the alias in a projection over its aggregate (here raising for the largest
    int plus one); DuckDB's binder refused the alias, as one whose expression may raise."""
    sql = "SELECT CAST(CAST(i AS STRING) AS INT) AS c, c + 1 AS d, count(*) AS n FROM t GROUP BY i"
    assert_same_answer(sql, spark_views, connect_tables(tables), _SPARK_ANSWERS)


@pytest.mark.parametrize("sql", [
    "SELECT id FROM t WHERE i + 1 > 1",
    "SELECT id FROM t WHERE b * 2 >= 20",
    "SELECT id FROM t WHERE 2147483647 - i > 1",
    "SELECT id FROM t WHERE CAST(id AS TINYINT) + 127Y > 1",
    "SELECT id FROM t WHERE CAST(id AS SMALLINT) * 32767S = 5",
    "SELECT id FROM t WHERE -(b - 1) > 0",
    "SELECT id FROM t WHERE -(CAST(id AS SMALLINT) - 2S - 32767S) > 0",
])
def test_integer_overflow_in_sparks_words(sql: str, spark_views: SparkSession, tables: dict[str, Path]) -> None:
    """The overflow of an integer ``+``, ``-``, ``*`` or negation raises Spark's error class and message
    (Spark's ends with how to turn ANSI mode off, which vpush leaves out)."""
    with pytest.raises(Exception) as spark_error:
        spark_views.sql(sql).collect()
    with pytest.raises(VpushError) as raised:
        connect_tables(tables).sql(sql).to_arrow()
    assert str(raised.value) in str(spark_error.value)
    assert raised.value.error_class is not None and str(raised.value).startswith(f"[{raised.value.error_class}] ")


@pytest.mark.parametrize("sql", ["SELECT median(day) FROM t", "SELECT percentile(g, 0.5) FROM t", "SELECT avg(day) FROM t",
                                 "SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY day) FROM t",
                                 "SELECT * FROM t NATURAL JOIN (SELECT * FROM t)"])
def test_refused_on_duckdb(sql: str, tables: dict[str, Path]) -> None:
    """Spark raises its own error for these (``UNSUPPORTED_TIME_TYPE`` for a date); the DuckDB
    engine refuses them rather than interpolate dates or strings."""
    with pytest.raises(VpushError) as raised:
        connect_tables(tables).sql(sql).to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"


@pytest.mark.parametrize(
    "sql", ["SELECT x.* EXCEPT (st.a) FROM t x JOIN t y USING (id)", "SELECT t.* EXCEPT (st.b) FROM t JOIN (SELECT id FROM t) t USING (id)"]
)
def test_star_except_of_a_field_over_a_join_refused(sql: str, tables: dict[str, Path]) -> None:
    """Spark drops the field from the struct (``st`` a ``struct<b:string>``); vpush writes such a
    star out, keeping the whole struct, so it refuses the field (the first on DuckDB only: the
    Spark engine runs it)."""
    with pytest.raises(VpushError) as raised:
        connect_tables(tables).sql(sql).to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"


@pytest.mark.parametrize(
    "sql", ["SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY d) AS c, percentile_disc(0.25) WITHIN GROUP (ORDER BY d DESC) AS d FROM t",
            # a PIVOT groups by every column of its source it does not name (the scan had read g alone: one group)
            "SELECT count(*) AS n FROM (SELECT * FROM t LIMIT 100) PIVOT (count(*) FOR g IN ('a', 'b'))"]
)
def test_spark_engine_matches_spark(sql: str, spark: SparkSession, spark_views: SparkSession, tables: dict[str, Path]) -> None:
    """Spark's own functions the Spark engine writes back as Spark SQL (sqlglot wrote
    percentile_cont as percentile_approx)."""
    assert_same_answer(sql, spark_views, connect_tables(tables, spark))


# A join USING or NATURAL gives one key column (the left side's, the right side's for a right
# join, an unqualified coalesce for a full one); a later join of a table with a column of that name
# adds a second, so an unqualified reference to it is AMBIGUOUS_REFERENCE in Spark (naming both),
# anywhere but an ORDER BY, which finds no such column below the SELECT (UNRESOLVED_COLUMN). DuckDB
# bound the name to the USING column and answered.
JOINED_NAMES = [
    "SELECT id FROM t x JOIN t USING (id) JOIN t u ON false",
    "SELECT id FROM t x JOIN t y USING (id) JOIN t u ON true",
    "SELECT id FROM t x JOIN t y USING (id) JOIN t ON true",
    "SELECT id FROM t JOIN t USING (id) JOIN t u ON true",
    "SELECT ID FROM t x LEFT JOIN t y USING (id) JOIN t u ON false",
    "SELECT id FROM t x RIGHT JOIN t USING (id) JOIN t u ON false",
    "SELECT id FROM t x FULL JOIN t y USING (id) JOIN t u ON false",
    "SELECT g FROM t x NATURAL JOIN t y, t u",
    "SELECT 1 AS a FROM t x JOIN t y USING (id) JOIN t u ON id = u.id",
    "SELECT 1 AS a FROM t x JOIN t y USING (id) JOIN t u ON false WHERE id > 1",
    "SELECT x.id AS id, count(*) AS n FROM t x JOIN t y USING (id) JOIN t u ON true GROUP BY id",
    "SELECT i FROM t x JOIN t y USING (id, i) JOIN (SELECT 1 AS i) s ON true",
    "SELECT count(*) AS n, max(x.i) AS m FROM t x JOIN t y USING (id) JOIN t u ON true GROUP BY x.id ORDER BY id",
    "SELECT id, t.id FROM t, t",
    "SELECT t.id FROM t JOIN t ON true",
    # ... and what Spark answers beside them
    "SELECT x.id, y.id AS y, u.id AS u FROM t x JOIN t y USING (id) JOIN t u ON false",
    "SELECT id FROM t x JOIN t y USING (id) JOIN t u USING (id)",
    "SELECT id FROM t x JOIN t y USING (id) LEFT SEMI JOIN t u ON true",
    "SELECT x.id AS id, count(*) AS n FROM t x JOIN t y USING (id) JOIN t u ON x.id = u.id GROUP BY x.id HAVING id > 1",
    "SELECT x.id AS id FROM t x JOIN t y USING (id) JOIN t u ON x.id = u.id ORDER BY id",
    "SELECT transform(arr, id -> id + 1) AS a, s.i FROM t x JOIN t y USING (id, i) JOIN (SELECT 1 AS i) s ON true",
    # a later USING key the left side has twice: Spark joins on the first (DuckDB's binder had
    # found it ambiguous), and keeps the other beside the key (unqualified, ambiguous)
    "SELECT x.i, z.id, z.i AS zi FROM t x JOIN t y USING (id) RIGHT JOIN t z USING (i)",
    "SELECT i FROM t x JOIN t y USING (id) JOIN t z USING (i)",
    # a parenthesized join (its inner join had been dropped: a parser error on DuckDB, and on the
    # Spark engine a join left out, its rows all kept)
    "SELECT count(*) AS n FROM t x JOIN (t y JOIN t u ON y.id = u.id AND u.id > 2) ON x.id = y.id",
    "SELECT id FROM t x JOIN (t y JOIN t u USING (id)) USING (id)",
    "SELECT x.i, u.i AS j FROM t x JOIN (t y JOIN t u ON y.id = u.id) ON x.id = y.id",
    "SELECT count(*) AS n FROM t x LEFT JOIN (t y JOIN t u USING (id)) USING (id)",
    # a star's EXCEPT list names columns of that star, found among them only (DuckDB had kept
    # them all; `x.* EXCEPT (i)` had been ambiguous with y.i)
    "SELECT x.* EXCEPT (x.i) FROM t x JOIN t y USING (id)",
    "SELECT x.* EXCEPT (i), 1 AS one FROM t x JOIN t y USING (id)",
    "SELECT * EXCEPT (ID, X.G) FROM t x FULL JOIN t y USING (id)",
    "SELECT * EXCEPT (x.g, y.g) FROM t x JOIN t y USING (id) JOIN t u USING (id)",
    "SELECT * EXCEPT (y.id) FROM t x JOIN t y USING (id)",
    "SELECT * EXCEPT (id, id) FROM t x JOIN t y USING (id)",
    # over a join ON or a comma: a name both sides carry is ambiguous (DuckDB had dropped both)
    "SELECT * EXCEPT (g) FROM t x, t y",
    "SELECT * EXCEPT (g) FROM t x JOIN t y ON x.id = y.id",
    "SELECT * EXCEPT (x.g, y.i) FROM t x JOIN t y ON x.id = y.id",
    "SELECT y.* EXCEPT (g) FROM t x CROSS JOIN t y",
    "SELECT x.* EXCEPT (nope) FROM t x, t y",
    # a star of a semi or anti join's right side, whose columns the join does not give
    "SELECT z.* FROM t x LEFT SEMI JOIN t z USING (id)",
    "SELECT x.*, z.* FROM t x LEFT ANTI JOIN t z ON x.id = z.id",
    # beside a LATERAL VIEW, whose columns the star gives too
    "SELECT * EXCEPT (x, y.g, y.i) FROM t z, t y LATERAL VIEW explode(array(z.i, 1)) e AS x",
    # a struct's star: its EXCEPT names the struct's fields (x.st.* had kept them all)
    "SELECT x.st.* EXCEPT (a) FROM t x",
    "SELECT x.st.* EXCEPT (b) FROM t x, t y",
    "SELECT st.* EXCEPT (a) FROM t x JOIN (SELECT 1 AS z) y ON true",
    # a lambda's variable named like a joined source: the body reads the variable (DuckDB's
    # binder had read x.i as the source x's column)
    "SELECT transform(array(named_struct('i', 9)), x -> x.i + 1) AS r FROM t s JOIN t x ON s.id = x.id",
    "SELECT filter(array(x.i, 5, s.i), x -> x > 4) AS r, exists(array(named_struct('g', 'q')), s -> s.g = 'q') AS e FROM t s JOIN t x USING (id)",
    # a field of a name a subquery gives twice: Spark's reference to the name is ambiguous (vpush
    # had read the last one's type: INVALID_EXTRACT_BASE_FIELD_TYPE of a string)
    "SELECT x.i FROM (SELECT named_struct('i', i) AS x, g AS x FROM t) s",
    "SELECT s.x.i FROM (SELECT named_struct('i', i) AS x, named_struct('i', id) AS x FROM t) s",
    "SELECT 1 AS a FROM (SELECT st AS x, g AS x FROM t) s WHERE x.a > 0",
    "SELECT x.a FROM (SELECT x, x FROM (SELECT st AS x FROM t)) s",
]


# Two sources of one name in a SELECT: Spark resolves a qualified name to the join's output
# column of that qualifier, else to the one source's own column; where several carry it,
# AMBIGUOUS_REFERENCE (UNRESOLVED_COLUMN in an ORDER BY or a correlated subquery). `t.*` gives
# the join keys the output leaves out first (the right side's for an inner or left join), then
# the output's. vpush had refused them all (VPUSH_UNSUPPORTED_FUNCTION).
SELF_JOINS = [
    "SELECT id, t.id AS k FROM t JOIN t USING (id)",
    "SELECT t.* FROM t JOIN t USING (h, id)",
    "SELECT t.* FROM t LEFT JOIN (SELECT * FROM t WHERE id < 3) t USING (id) JOIN t USING (h)",
    "SELECT t.id, count(*) AS n, max(g) FILTER (WHERE id > 2) AS m FROM t FULL JOIN t USING (id, g) GROUP BY t.id",
    "SELECT count(*) AS n FROM t, t",
    "WITH c AS (SELECT id, g FROM t) SELECT * FROM c JOIN c USING (id)",
    "SELECT * FROM (SELECT id, i FROM t) JOIN (SELECT id, g FROM t) USING (id)",
    "SELECT count(*) AS n FROM range(3), range(3)",
    "SELECT t.id AS a, t.i FROM t JOIN (SELECT id AS k FROM t) t ON t.id = t.k",
    "SELECT id, (SELECT max(u.i) FROM t u WHERE u.id < t.id) AS m FROM t LEFT JOIN t USING (id)",
    "SELECT t.g FROM t JOIN t USING (id)",
    "SELECT count(*) AS n FROM t JOIN t ON t.id = t.id",
    "SELECT id FROM t JOIN t USING (id) ORDER BY t.i",
    "SELECT id FROM t JOIN t USING (id) WHERE EXISTS (SELECT 1 FROM t u WHERE u.i = t.i)",
    # a source whose star reads a join (its columns found through it), beside a LATERAL VIEW
    "WITH q AS (SELECT x.*, y.g AS k FROM t x JOIN t y USING (id)) SELECT * FROM q JOIN q USING (id)",
    "WITH q AS (SELECT * FROM t x JOIN (SELECT id AS k, g AS z FROM t) y ON x.id = y.k) SELECT id, q.id AS a, q.* FROM q JOIN q USING (id)",
    "WITH q AS (SELECT * FROM t x JOIN (SELECT id AS k, g AS z FROM t) y ON x.id = y.k) SELECT id, q.z FROM q JOIN q USING (id)",
    "SELECT t.*, x FROM t JOIN t USING (id) LATERAL VIEW explode(array(t.id, 1)) e AS x",
    "SELECT x FROM t JOIN t USING (id) LATERAL VIEW explode(array(g)) e AS x",
    # `t.*` gives both sides' `id` (the right side's hidden key), so its EXCEPT list finds two
    "SELECT t.* EXCEPT (t.id) FROM t JOIN t USING (id)",
    "SELECT t.* EXCEPT (id) FROM t RIGHT JOIN t USING (id)",
    "SELECT t.* EXCEPT (i) FROM t JOIN (SELECT id, g FROM t) t USING (id)",
    "SELECT t.* EXCEPT (nope) FROM t JOIN t USING (id)",
    "SELECT * EXCEPT (id) FROM t RIGHT JOIN t USING (id)",
    "SELECT * EXCEPT (t.k) FROM t JOIN (SELECT id, g AS k FROM t) t USING (id)",
    # a subquery's star whose EXCEPT names one side's column, under a join USING
    "SELECT * FROM (SELECT * EXCEPT (x.g) FROM t x JOIN (SELECT id AS k, g FROM t) y ON x.id = y.k) s JOIN t USING (id)",
]


# A side's `a.*` over several joins USING or NATURAL: the keys of that side the joins' output
# leaves out (Spark's hidden output, the last join's first), then its columns of the output in
# order; nothing of a semi or anti join's right side. The DuckDB engine had refused them.
SIDE_STARS = [
    "SELECT x.*, z.* FROM t x JOIN t y USING (id) JOIN t z USING (id)",
    "SELECT z.*, y.*, x.id FROM t x LEFT JOIN (SELECT id, g AS k FROM t WHERE id > 2) y USING (id) "
    "RIGHT JOIN (SELECT h, id, i AS j FROM t WHERE id < 7) z USING (id)",
    "SELECT y.*, x.*, z.* FROM (SELECT id, g FROM t WHERE id < 6) x FULL JOIN (SELECT id, h FROM t WHERE id > 2) y USING (id) "
    "FULL JOIN (SELECT i, id FROM t WHERE id <> 4) z USING (id)",
    "SELECT y.*, z.* FROM t x JOIN (SELECT id, i AS k FROM t) y USING (id) JOIN (SELECT i AS k, h FROM t) z USING (k)",
    "SELECT *, x.* FROM (SELECT id, g FROM t) x JOIN (SELECT id, h FROM t) y USING (id) LEFT ANTI JOIN (SELECT id FROM t WHERE id > 4) z USING (id)",
]


@pytest.mark.parametrize("sql", JOINED_NAMES + SELF_JOINS + SIDE_STARS)
def test_names_over_joins(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_views, con, _SPARK_ANSWERS)
