"""Aggregates whose answer depends on the order Spark meets the rows in, over a table of several
files of several row groups each, on DuckDB running with several threads.

Spark reads the files in ``FilePartition``'s order (by size, largest first; here three files of
different sizes), each file's rows in order. Its answer to a floating-point sum or a moment also
depends on how its tasks split the rows (each task's buffer merged into the final one), so those
are compared with Spark reading the table as one task (``spark.sql.files.minPartitionNum=1``), the
order vpush emulates; the answers that depend only on the order of rows (``first``, ``last``,
``collect_list``, ``max_by`` ties, a running total that overflows) are compared with Spark's default
tasks too. Each query runs on Spark (the oracle) and on vpush through both engines.
"""
from __future__ import annotations

import decimal
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import vpush
from support.compare import assert_same_answer
from support.tables import register_views

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_ROWS_PER_FILE = (300, 900, 500)  # the middle file is the largest: Spark reads it first
_BIG = 2**62
# a decimal(38,2): two pass 38 digits, not DuckDB's 128 bits
_WIDE = decimal.Decimal(6) * decimal.Decimal(10) ** 35


def _wide_decimals(rng: np.random.Generator, seed: int, g: np.ndarray) -> pa.Array:
    """Decimals of 30 digits or fewer, with ``_WIDE`` in places: in Spark's order (the largest file,
    seed 1, first) group 1's running total passes 38 digits (``_WIDE`` twice) and its total fits
    (``-_WIDE`` in the second file); group 2's stays inside them (``_WIDE``, ``-_WIDE``, ``_WIDE``).
    Both files are read by Spark's first task."""
    unscaled = rng.integers(-(10**15), 10**15, len(g)) * rng.integers(0, 10**15, len(g))
    values = [decimal.Decimal(int(u)).scaleb(-2) for u in unscaled]
    ones, twos = list(np.flatnonzero(g == 1)), list(np.flatnonzero(g == 2))
    if seed == 1:
        values[ones[0]] = values[ones[3]] = _WIDE
        values[twos[0]], values[twos[1]] = _WIDE, -_WIDE
    elif seed == 2:
        values[ones[0]] = -_WIDE
        values[twos[0]] = _WIDE
    return pa.array(values, pa.decimal128(38, 2), mask=rng.random(len(g)) < 0.05)


def _file(seed: int, rows: int, first_id: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(rows) * 10.0 ** rng.integers(-3, 12, rows)
    x[rng.random(rows) < 0.05] = 0.0
    # a running total of `big` passes a bigint in Spark's order (the largest file first: 2^62 + 2^62),
    # not in path order (the smallest file's -2^62 - 2^62 first), and the total fits
    big = rng.integers(0, 1000, rows)
    if seed == 1:
        big[:2] = _BIG
    elif seed == 0:
        big[-2:] = -_BIG
    g = rng.integers(0, 4, rows)
    return pa.table({
        "id": pa.array(np.arange(first_id, first_id + rows), pa.int64()),
        "g": pa.array(g, pa.int32()),
        "k": pa.array(rng.integers(0, 5, rows), pa.int32()),
        "x": pa.array(x, pa.float64(), mask=rng.random(rows) < 0.1),
        "y": pa.array(rng.standard_normal(rows) * 1e3, pa.float64()),
        "b": pa.array(rng.integers(-(2**58), 2**58, rows), pa.int64()),
        "big": pa.array(big, pa.int64()),
        "s": pa.array([f"s{v}" for v in rng.integers(0, 50, rows)], mask=rng.random(rows) < 0.2),
        "dec": _wide_decimals(rng, seed, g),
    })


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("order") / "t"
    root.mkdir()
    for seed, rows in enumerate(_ROWS_PER_FILE):
        pq.write_table(_file(seed, rows, 100_000 * seed), root / f"part-{seed}.parquet", row_group_size=128)
    return root


@pytest.fixture(scope="module")
def other(folder: Path) -> Path:
    """A second table of two files (the first the larger), for UNION ALL."""
    root = folder.parent / "u"
    root.mkdir()
    for seed, rows in enumerate((400, 200)):
        pq.write_table(_file(seed + 10, rows, 1_000_000 + 100_000 * seed), root / f"part-{seed}.parquet", row_group_size=128)
    return root


@pytest.fixture(scope="module")
def spark_view(spark: SparkSession, folder: Path, other: Path) -> SparkSession:
    return register_views(spark, {"t": folder, "u": other})


@pytest.fixture(scope="module")
def con(folder: Path, other: Path) -> vpush.Connection:
    connection = vpush.connect(connection=duckdb.connect(config={"threads": 4}), time_zone="UTC")
    connection.register("t", folder)
    connection.register("u", other)
    return connection


@pytest.fixture(scope="module")
def spark_con(spark: SparkSession, folder: Path) -> vpush.Connection:
    connection = vpush.connect(engine="spark", spark=spark, time_zone="UTC")
    connection.register("t", folder)
    return connection


@pytest.fixture
def one_task(spark_view: SparkSession) -> Iterator[SparkSession]:
    """Spark reading the table as one task, the order vpush emulates for merges."""
    spark_view.conf.set("spark.sql.files.minPartitionNum", "1")
    try:
        yield spark_view
    finally:
        spark_view.conf.unset("spark.sql.files.minPartitionNum")


ORDER_ONLY = [
    # the order of rows alone decides these: Spark's tasks merge in task order
    "SELECT first(x) AS a, last(x) AS b, first(s, true) AS c, last(s) IGNORE NULLS AS d, any_value(id) AS e, "
    "size(collect_list(id)) AS n, collect_list(id)[0] AS l0, collect_list(id)[1699] AS ln, collect_list(id)[900] AS lm FROM t",
    "SELECT g, first(id) AS a, last(id) AS b, collect_list(s) AS c, array_agg(k) AS d "
    "FROM t GROUP BY g",
    "SELECT g, max_by(id, k) AS a, min_by(id, k) AS b, max_by(s, g) AS c FROM t GROUP BY g",
    "SELECT sum(big) FROM t",
    "SELECT g, try_sum(big) AS s, sum(b) AS b, try_sum(big) FILTER (WHERE id > 100) AS f FROM t GROUP BY g",
    # decimal(38,2) sums with GROUP BY: Spark's hash aggregation keeps each group's running total
    # in a decimal(38,2), NULL once past 38 digits (ARITHMETIC_OVERFLOW at the end, NULL for
    # try_sum/try_avg) though the total fits; group 2's stays inside 38 digits and is exact;
    # groups 0 and 3 pass the cheap bound (no ordered pass)
    "SELECT g, try_sum(dec) AS s, try_avg(dec) AS a, sum(dec) FILTER (WHERE g <> 1) AS f, avg(dec) FILTER (WHERE g <> 1 AND g <> 2) AS b, "
    "count(dec) AS n FROM t GROUP BY g",
    "SELECT g, sum(dec) AS s FROM t GROUP BY g",
    "SELECT g, avg(dec) AS a FROM t WHERE g = 1 GROUP BY g",
    "SELECT id % 97 AS m, sum(dec) AS s, try_avg(dec) AS a FROM t GROUP BY id % 97 HAVING sum(dec) <> 0",
    "SELECT k, sum(dec) AS s FROM t WHERE g = 2 GROUP BY k",
]

# Spark keeps a subquery's ORDER BY below an aggregate whose answer depends on the order (a stable
# sort: tied rows in the order they came), and reads a UNION ALL's branches in order
THROUGH_SUBQUERIES = [
    "SELECT first(id) AS a, last(id) AS b, collect_list(id) AS c, last(s, true) AS d FROM (SELECT * FROM t ORDER BY k)",
    "SELECT g, first(id) AS a, last(s) IGNORE NULLS AS b, collect_list(id) AS c, max_by(id, k) AS m "
    "FROM (SELECT * FROM t ORDER BY k DESC, x) GROUP BY g ORDER BY g",
    "SELECT collect_list(j) AS c FROM (SELECT id + 1 AS j, k FROM t WHERE k > 1 ORDER BY j % 7)",
    "SELECT collect_list(id) AS c, first(s) AS f FROM (SELECT id, s FROM t ORDER BY 2 NULLS LAST)",
    "WITH c AS (SELECT id, g FROM t WHERE k <> 2) SELECT g, collect_list(id) AS l, first(id) AS f FROM c GROUP BY g",
    "SELECT collect_list(id) AS l FROM (SELECT * FROM (SELECT id, k FROM t WHERE g > 0) AS a WHERE k < 4) AS b",
    "SELECT collect_list(id) AS l, last(id) AS z FROM (SELECT id FROM t UNION ALL SELECT id FROM u)",
    "SELECT g, collect_list(id) AS l FROM (SELECT id, g FROM u UNION ALL SELECT id, g FROM t WHERE k > 2 "
    "UNION ALL SELECT id, g FROM (SELECT * FROM u ORDER BY k)) GROUP BY g ORDER BY g",
    "SELECT sum(big) AS s FROM (SELECT big FROM t WHERE g >= 0)",
    # every aggregate the same in any order (a sum of longs): Spark drops the sort, and the running
    # total passes a bigint in the order of the files; first() keeps it, and the sorted total fits
    "SELECT sum(big) AS s FROM (SELECT big, id FROM t ORDER BY big)",
    "SELECT sum(big) AS s, first(id) AS f FROM (SELECT big, id FROM t ORDER BY big)",
]

# Spark sorts a window's rows stably: rows tied on its keys (or all of a partition's rows, without
# ORDER BY) in the order they came
WINDOWS = [
    "SELECT id, row_number() OVER (PARTITION BY g ORDER BY k) AS r, ntile(7) OVER (PARTITION BY g ORDER BY k) AS n, "
    "lag(s) OVER (PARTITION BY g ORDER BY k) AS l, collect_list(id) OVER (PARTITION BY g ORDER BY k "
    "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS c FROM t",
    "SELECT id, lead(s, 2) OVER (PARTITION BY k ORDER BY g DESC) AS d FROM t",
    "SELECT id, first(id) OVER (PARTITION BY g) AS f, any_value(id) OVER (PARTITION BY g) AS a FROM t WHERE id % 3 <> 0",
    "SELECT id, last(id) OVER (PARTITION BY k ORDER BY g) AS z, "
    "first_value(s) OVER (PARTITION BY k ORDER BY g ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING) AS v FROM t",
    "SELECT id, row_number() OVER (ORDER BY k) AS r FROM (SELECT id, k FROM t UNION ALL SELECT id, k FROM u)",
]

ONE_TASK = [
    "SELECT sum(x) AS s, avg(x) AS a, avg(b) AS ab, sum(y) AS y, avg(y) FILTER (WHERE g = 1) AS f FROM t",
    "SELECT g, sum(x) AS s, avg(y) AS a, avg(b) AS ab FROM t GROUP BY g",
    "SELECT var_pop(x) AS a, var_samp(y) AS b, stddev(y) AS c, stddev_pop(b) AS d, skewness(y) AS e, kurtosis(b) AS f FROM t",
    "SELECT g, corr(x, y) AS c, covar_pop(y, b) AS p, covar_samp(b, x) AS s, kurtosis(y) AS k FROM t GROUP BY g",
    "SELECT g, regr_slope(y, b) AS a, regr_intercept(x, y) AS b, regr_r2(b, y) AS c, regr_sxy(y, x) AS d, "
    "regr_sxx(x, y) AS e, regr_syy(y, x) AS f FROM t GROUP BY g",
]

# percentile_approx: Spark's QuantileSummaries compressed (small accuracies make it merge samples
# on these small groups); below 50,000 values a group's answer does not depend on the order of rows
PERCENTILES = [
    "SELECT percentile_approx(x, array(0, 0.1, 0.25, 0.5, 0.75, 0.9, 1), 10) AS a, approx_percentile(y, 0.5, 100) AS b, "
    "percentile_approx(b, array(0.01, 0.3, 0.99), 37) AS c, percentile_approx(k, 0.5, 3) AS d, percentile_approx(id, 0.4) AS e, "
    "percentile_approx(CASE WHEN k = 0 THEN double('NaN') WHEN x = 0 THEN -0.0D WHEN k = 1 THEN 0.0D ELSE x END, "
    "array(0, 0.3, 0.5, 0.7, 1), 3) AS f, percentile_approx(CASE WHEN k < 2 THEN -0.0D ELSE double('NaN') END, 0.6, 1) AS z FROM t",
    "SELECT g, percentile_approx(x, array(0.2, 0.5, 0.8), 10) AS a, percentile_approx(y, 0.5, 50) FILTER (WHERE k > 1) AS f, "
    "percentile_approx(CAST(y AS FLOAT), 0.7, 20) AS r, percentile_approx(CAST(b % 1000 AS SMALLINT), 0.3, 7) AS s, "
    "percentile_approx(CAST(k AS TINYINT), array(0.5), 2) AS t, percentile_approx(x, 0.5, 10) FILTER (WHERE id < 0) AS n, "
    "percentile_approx(CAST(NULL AS DOUBLE), 0.5) AS z FROM t GROUP BY g",
    "SELECT g, percentile_approx(CAST(y AS DECIMAL(12, 3)), array(0.1, 0.6), 20) AS d, "
    "percentile_approx(date_from_unix_date(CAST(id % 20000 AS INT)), 0.5, 10) AS day, "
    "percentile_approx(timestamp_micros(b DIV 1000), array(0.3, 0.9), 15) AS ts, "
    "percentile_approx(CAST(timestamp_micros(b DIV 1000) AS TIMESTAMP_NTZ), 0.5, 15) AS ntz FROM t GROUP BY g",
    "SELECT g, percentile_approx(id, array(0.25, 0.5), 10) AS p FROM (SELECT * FROM t ORDER BY k DESC, x) GROUP BY g ORDER BY g",
    # past 128 groups Spark's hash aggregation falls back to sorting the later rows by group, and
    # merges each group's digest of them with the one of the rows before
    "SELECT id % 300 AS m, percentile_approx(y, array(0.25, 0.5, 0.75), 2) AS p, percentile_approx(x, 0.5, 4) FILTER (WHERE k > 0) AS f "
    "FROM t GROUP BY id % 300",
    "SELECT g, percentile_approx(x, array(0.3, 0.7), 10) AS p, count(*) AS n FROM t GROUP BY ROLLUP(g)",
    # a join: vpush does not know Spark's order of rows, which does not matter below 50,000 values
    "SELECT u.g, percentile_approx(t.x, array(0.3, 0.6), 20) AS p FROM t JOIN (SELECT DISTINCT g FROM u) AS u ON t.g = u.g GROUP BY u.g",
]

_ANSWERS: dict[str, tuple[Any, ...]] = {}


@pytest.mark.parametrize("sql", ORDER_ONLY)
def test_order_of_rows(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_view, con, _ANSWERS)


@pytest.mark.parametrize("sql", THROUGH_SUBQUERIES)
def test_order_of_rows_through_subqueries(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_view, con, _ANSWERS)


@pytest.mark.parametrize("sql", WINDOWS)
def test_order_of_rows_in_windows(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_view, con, _ANSWERS)


# Spark's default tasks (local[2]: the two larger files in one task, the smallest in another):
# each task's buffer, the tasks' buffers merged in task order
IN_SPARK_TASKS = ONE_TASK + PERCENTILES[:3] + [
    "SELECT g, mode(k % 3) AS a, mode(s) AS b, mode(id % 7) AS c, mode(CAST(id % 5 = 0 AS STRING)) AS d FROM t GROUP BY g",
    "SELECT mode(id % 11) AS a, mode(k) AS b, try_sum(big) AS c FROM t",
]


@pytest.mark.parametrize("sql", IN_SPARK_TASKS)
def test_order_of_rows_in_spark_tasks(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_view, con, _ANSWERS)


@pytest.mark.parametrize("sql", [ORDER_ONLY[0], ORDER_ONLY[3], ORDER_ONLY[5]])
def test_order_of_rows_on_the_spark_engine(sql: str, spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    """The Spark engine's tasks take the files largest first too."""
    assert_same_answer(sql, spark_view, spark_con, _ANSWERS)


@pytest.mark.parametrize("sql", ONE_TASK)
def test_order_of_rows_in_one_task(sql: str, one_task: SparkSession, folder: Path) -> None:
    connection = vpush.connect(connection=duckdb.connect(config={"threads": 4}), time_zone="UTC", parallelism=1)
    connection.register("t", folder)
    assert_same_answer(sql, one_task, connection)


@pytest.mark.parametrize("sql", PERCENTILES)
def test_percentile_approx_in_one_task(sql: str, one_task: SparkSession, folder: Path, other: Path) -> None:
    connection = vpush.connect(connection=duckdb.connect(config={"threads": 4}), time_zone="UTC", parallelism=1)
    connection.register("t", folder)
    connection.register("u", other)
    assert_same_answer(sql, one_task, connection)


def test_percentile_approx_of_times_in_los_angeles(one_task: SparkSession, folder: Path) -> None:
    """Dates and timestamps as Spark's days and microseconds whatever the session time zone."""
    one_task.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        connection = vpush.connect(time_zone="America/Los_Angeles", parallelism=1)
        connection.register("t", folder)
        assert_same_answer(PERCENTILES[2], one_task, connection)
    finally:
        one_task.conf.set("spark.sql.session.timeZone", "UTC")


@pytest.fixture(scope="module")
def many_groups(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file of 1,500 rows in about 300 groups (``m``), the table ``f``, which Spark reads as one task: its
    hash aggregation beside ``collect_list`` holds 128 groups after about 180 rows and sorts the
    rest by group. Values with NULLs (``n``), ties on ``k`` and strings."""
    root = tmp_path_factory.mktemp("fallback") / "t"
    root.mkdir()
    rng = np.random.default_rng(7)
    rows = 1500
    x = rng.standard_normal(rows) * 10.0 ** rng.integers(-3, 8, rows)
    pq.write_table(pa.table({
        "id": pa.array(np.arange(rows), pa.int64()),
        "m": pa.array(rng.integers(0, 300, rows), pa.int32()),
        "k": pa.array(rng.integers(0, 3, rows), pa.int32()),
        "x": pa.array(x, pa.float64()),
        "n": pa.array(rng.integers(0, 1000, rows), pa.int64(), mask=rng.random(rows) < 0.4),
        "s": pa.array([f"s{v}" for v in rng.integers(0, 900, rows)], mask=rng.random(rows) < 0.2),
    }), root / "part-0.parquet")
    return root


PAST_THE_FALLBACK = [
    # collect_list (and the aggregates beside it) past 128 groups: the rows after the place where
    # Spark's ObjectHashAggregateExec fell back to sorting go to a new buffer, the kept one merged
    # into it (Collect: appended; First: the new one's if set; Last: the kept one's if set;
    # MaxMinBy: the new one's only where strictly better)
    "SELECT m, collect_list(id) AS l, collect_list(s) AS ls, array_agg(n) AS a FROM f GROUP BY m",
    "SELECT m, collect_list(id) AS l, first(n) AS f, last(n) AS z, any_value(s) AS a, max_by(id, k) AS mx, min_by(s, k) AS mn, "
    "max_by(n, x) AS mxx FROM f GROUP BY m",
    "SELECT m, string_agg(s, ',') AS sa, listagg(s) AS la, first(n, true) AS fi, last(n) IGNORE NULLS AS li, "
    "first_value(s) AS fv, last_value(id) AS lv FROM f GROUP BY m",
    "SELECT m % 150 AS h, collect_set(id) AS cs, percentile_approx(x, 0.5, 2) AS p, first(id) AS f FROM f WHERE k > 0 GROUP BY m % 150",
    "SELECT m, k, collect_list(id) AS l, max_by(s, n) AS mx FROM (SELECT * FROM f ORDER BY s) GROUP BY m, k ORDER BY m, k",
    # with a FILTER: the rows it keeps, split at the place the aggregation's rows give
    "SELECT m, collect_list(id) FILTER (WHERE k > 0) AS l, string_agg(s, '/') FILTER (WHERE n > 100) AS sa, "
    "first(n) FILTER (WHERE k < 2) AS f, last(s) FILTER (WHERE k <> 1) AS z, max_by(id, k) FILTER (WHERE n IS NOT NULL) AS mx, "
    "min_by(n, x) FILTER (WHERE k > 0) AS mn, any_value(s) FILTER (WHERE id % 2 = 0) AS a FROM f GROUP BY m",
    # sums of doubles: the later rows' sum, the kept one added to it; the moments: Spark's merge of
    # the kept buffer into the later rows' (an empty one where none came later)
    "SELECT m, collect_list(id) AS l, sum(x) AS s, avg(x) AS a, avg(n) AS an, sum(x) FILTER (WHERE k > 0) AS sf, var_pop(x) AS v, "
    "var_samp(x) FILTER (WHERE k = 1) AS vf FROM f GROUP BY m",
    "SELECT m, percentile_approx(x, 0.5, 2) AS p, stddev(x) AS b, skewness(x) AS c, kurtosis(x) AS d, covar_pop(x, id) AS e, "
    "corr(x, n) AS f, covar_samp(n, x) AS g FROM f GROUP BY m",
    "SELECT m, collect_list(id) AS l, regr_intercept(x, id) AS a, regr_slope(x, n) AS b, regr_r2(x, id) AS c, regr_sxx(x, id) AS d, "
    "regr_syy(n, x) AS e, regr_sxy(x, id) AS g FROM f GROUP BY m",
    # fewer than 128 groups: no fallback; without a typed aggregate: HashAggregateExec keeps every group
    "SELECT k, collect_list(id) AS l, first(id) AS f, sum(x) AS s, var_pop(x) AS v FROM f GROUP BY k",
    "SELECT m, first(id) AS f, last(s) AS z, max_by(id, k) AS mx, sum(x) AS s FROM f GROUP BY m",
]


def _compare_over(
    sql: str, spark: SparkSession, tables: dict[str, Path], answers: dict[str, tuple[Any, ...]] | None = None, parallelism: int | None = None,
) -> None:
    """``sql`` on Spark over views of ``tables`` and on the DuckDB engine (four threads; Spark's
    tasks as ``parallelism`` gives them, by default the ``spark`` fixture's)."""
    view = register_views(spark, tables)
    connection = vpush.connect(connection=duckdb.connect(config={"threads": 4}), time_zone="UTC", parallelism=parallelism)
    for name, path in tables.items():
        connection.register(name, path)
    assert_same_answer(sql, view, connection, answers)


@pytest.mark.parametrize("sql", PAST_THE_FALLBACK)
def test_past_the_hash_fallback(sql: str, spark: SparkSession, many_groups: Path) -> None:
    _compare_over(sql, spark, {"f": many_groups}, _ANSWERS)


@pytest.mark.parametrize("sql", [PAST_THE_FALLBACK[1], PAST_THE_FALLBACK[2]])
def test_past_the_hash_fallback_on_the_spark_engine(sql: str, spark: SparkSession, many_groups: Path) -> None:
    view = register_views(spark, {"f": many_groups})
    connection = vpush.connect(engine="spark", spark=spark, time_zone="UTC")
    connection.register("f", many_groups)
    assert_same_answer(sql, view, connection, _ANSWERS)


def test_collect_list_past_the_hash_fallback(one_task: SparkSession, folder: Path) -> None:
    connection = vpush.connect(time_zone="UTC", parallelism=1)
    connection.register("t", folder)
    assert_same_answer("SELECT id % 300 AS m, collect_list(id) AS l FROM t GROUP BY id % 300", one_task, connection)


REFUSED_PAST_THE_FALLBACK = [
    # where vpush does not find the place: HAVING (DuckDB's windows come after it), ROLLUP (the
    # rows Spark's Expand makes)
    "SELECT m, collect_list(id) AS l FROM f GROUP BY m HAVING count(*) > 1",
    "SELECT m, collect_list(id) AS l FROM f GROUP BY ROLLUP(m)",
    # a UNION ALL's branches: tasks of their own, each falling back on its own
    "SELECT m, collect_list(id) AS l, first(s) AS f FROM (SELECT id, m, s FROM f UNION ALL SELECT id, m, s FROM f WHERE k > 0) GROUP BY m",
]


def test_refused_past_the_hash_fallback(many_groups: Path) -> None:
    """Where vpush does not follow Spark's merge, VPUSH_UNSUPPORTED_FUNCTION; answered where the
    query holds fewer than 128 groups (but for HAVING, refused as written)."""
    connection = vpush.connect(time_zone="UTC")
    connection.register("f", many_groups)
    for sql in REFUSED_PAST_THE_FALLBACK:
        with pytest.raises(vpush.VpushError) as raised:
            connection.sql(sql).to_arrow()
        assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION", sql
        if "HAVING" not in sql:
            few = connection.sql(sql.replace("SELECT m,", "SELECT m % 100 AS h,").replace("BY m", "BY m % 100").replace("(m)", "(m % 100)")).to_arrow()
            assert few.num_rows >= 100, sql


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two files of 40,000 and 25,000 rows (Spark reads the larger first): group 0 holds about
    58,500 values, past the 50,000 of Spark's summary's head, so the order of rows decides which
    values its first compression merges."""
    root = tmp_path_factory.mktemp("large") / "t"
    root.mkdir()
    for seed, rows in ((0, 25_000), (1, 40_000)):
        rng = np.random.default_rng(100 + seed)
        x = np.round(rng.standard_normal(rows) * 1000.0, 1) + seed * 300.0
        pq.write_table(pa.table({
            "g": pa.array((rng.random(rows) < 0.1).astype(np.int32)),
            "x": pa.array(x, pa.float64(), mask=rng.random(rows) < 0.02),
            "i": pa.array(rng.integers(-5000, 5000, rows), pa.int64()),
        }), root / f"part-{seed}.parquet", row_group_size=8192)
    return root


LARGE = [
    "SELECT g, percentile_approx(x, array(0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99), 100) AS a, percentile_approx(i, 0.5) AS b, "
    "percentile_approx(x, array(0.2, 0.7), 10000) AS c FROM t GROUP BY g",
    "SELECT percentile_approx(x, array(0.05, 0.5, 0.95), 1000) AS a, percentile_approx(i, 0.3, 30) FILTER (WHERE x > 0) AS b FROM t",
    "SELECT i % 200 AS m, percentile_approx(x, array(0.1, 0.5, 0.9), 30) AS p FROM t GROUP BY i % 200",
]


@pytest.mark.parametrize("sql", LARGE)
def test_percentile_approx_past_the_head(sql: str, one_task: SparkSession, large: Path) -> None:
    """Past 50,000 values in a group, in Spark's order of rows (the larger file first)."""
    _compare_over(sql, one_task, {"t": large}, parallelism=1)


def test_percentile_approx_past_the_head_over_a_join(large: Path) -> None:
    """Over a join vpush does not know Spark's order of rows: a group of 50,000 values or more is
    refused when met (a smaller one is answered)."""
    connection = vpush.connect(time_zone="UTC")
    connection.register("t", large)
    joined = "SELECT percentile_approx(t.i, 0.5, 100) AS p FROM t JOIN (SELECT DISTINCT g FROM t) AS u ON t.g = u.g"
    with pytest.raises(vpush.VpushError) as raised:
        connection.sql(joined).to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION", "should refuse: Spark's answer depends on the order"
    small = connection.sql(joined + " WHERE t.g = 1").to_arrow()
    assert small.num_rows == 1 and small.column("p")[0].as_py() is not None, "should answer: the group stays in the head"
    many = "SELECT t.i % 200 AS m, percentile_approx(t.x, 0.5, 30) AS p FROM t JOIN (SELECT DISTINCT g FROM t) AS u ON t.g = u.g GROUP BY t.i % 200"
    with pytest.raises(vpush.VpushError) as raised:
        connection.sql(many).to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION", "should refuse: past 128 groups Spark's digests merge in its order"
    exact = connection.sql(many.replace("0.5, 30)", "0.5, 10000)")).to_arrow()
    assert exact.num_rows == 399, "should answer: each group's digests keep every value"


@pytest.fixture(scope="module")
def two_tasks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two files Spark reads in two tasks: the larger holds 6E37 for group 1, the smaller 6E37
    and -6E37."""
    root = tmp_path_factory.mktemp("tasks") / "t"
    root.mkdir()
    wide = decimal.Decimal(6) * decimal.Decimal(10) ** 37
    files = {"part-0.parquet": [(1, wide)] + [(2, decimal.Decimal(i)) for i in range(200)], "part-1.parquet": [(1, wide), (1, -wide)]}
    for name, rows in files.items():
        pq.write_table(pa.table({"g": pa.array([g for g, _ in rows], pa.int32()), "v": pa.array([v for _, v in rows], pa.decimal128(38, 0))}),
                       root / name)
    return root


_TASKS_SQL = "SELECT g, try_sum(v) AS s, sum(v) FILTER (WHERE g = 2) AS f FROM u GROUP BY g"


def test_grouped_decimal_sum_in_one_task(one_task: SparkSession, two_tasks: Path) -> None:
    """Read as one task, Spark's running total of group 1 passes 38 digits (6E37 + 6E37): NULL."""
    view = register_views(one_task, {"u": two_tasks})
    connection = vpush.connect(time_zone="UTC", parallelism=1)
    connection.register("u", two_tasks)
    assert_same_answer(_TASKS_SQL, view, connection)


def test_grouped_decimal_sum_in_two_tasks(spark: SparkSession, two_tasks: Path) -> None:
    """In its two tasks Spark's running totals are 6E37, and 6E37 then 0, merged into 6E37: each
    task's total, the tasks' totals added in task order."""
    view = register_views(spark, {"u": two_tasks})
    connection = vpush.connect(time_zone="UTC")
    connection.register("u", two_tasks)
    assert_same_answer(_TASKS_SQL, view, connection)


@pytest.fixture(scope="module")
def wide_totals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file whose group 1 runs past 38 digits (6E37 + 6E37) and ends inside them (- 6E37),
    group 2 ends past them, group 3 holds a NULL."""
    root = tmp_path_factory.mktemp("wide") / "t"
    root.mkdir()
    wide = decimal.Decimal(6) * decimal.Decimal(10) ** 37
    rows = [(1, wide), (1, wide), (1, -wide), (2, wide), (2, wide), (3, decimal.Decimal(5)), (3, None)]
    pq.write_table(pa.table({"g": pa.array([g for g, _ in rows], pa.int32()), "v": pa.array([v for _, v in rows], pa.decimal128(38, 0))}),
                   root / "part-0.parquet")
    return root


@pytest.mark.parametrize("sql", [
    "SELECT g, try_sum(v) AS s, try_avg(v) AS a, try_sum(v) FILTER (WHERE g > 1) AS f, collect_list(g) AS l FROM w GROUP BY g",
    "SELECT g, sum(v) AS s, avg(v) AS a, percentile_approx(g, 0.5) AS p FROM w WHERE g <> 2 GROUP BY g",
    "SELECT g, sum(v) AS s, string_agg(CAST(g AS STRING)) AS l FROM w GROUP BY g",
])
def test_grouped_decimal_sum_beside_a_typed_aggregate(sql: str, spark: SparkSession, wide_totals: Path) -> None:
    """Beside collect_list (an ObjectHashAggregateExec) Spark keeps each group's decimal total
    exactly, as without GROUP BY: group 1's 6E37 (NULL past 38 digits in a HashAggregateExec)."""
    _compare_over(sql, spark, {"w": wide_totals})


def test_files_in_spark_order(folder: Path) -> None:
    """The files are ranked largest first, as Spark's FilePartition reads them, and the Spark
    engine's tasks take them in that order."""
    from vpush.exec.spark_tasks import plan_tasks

    sizes = {p.name: p.stat().st_size for p in folder.iterdir()}
    assert sorted(sizes, key=lambda n: -sizes[n]) == ["part-1.parquet", "part-2.parquet", "part-0.parquet"], "fixture sizes"
    connection = vpush.connect(time_zone="UTC")
    connection.register("t", folder)
    plan = connection.sql("SELECT first(id) FROM t").plan
    scan = plan.scans[0]
    assert scan.ordered, "first() should read the scan's order column"
    assert {Path(f.path).name: f.spark_rank for f in scan.files} == {"part-1.parquet": 0, "part-2.parquet": 1, "part-0.parquet": 2}
    tasks = plan_tasks(plan, scan, pa.schema([]), "UTC", parallelism=2)
    read = [Path(ref.path).name for task in tasks.tasks for _, refs in task for ref in refs]
    assert list(dict.fromkeys(read)) == ["part-1.parquet", "part-2.parquet", "part-0.parquet"], "tasks largest file first"


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file of hundreds of distinct doubles (whole ones within an int and past it, halves a
    float holds, -0.0 beside 0.0, NaN, the infinities, the least subnormal), floats, decimals of
    several scales (whole, ones a double prints as they are, ones past a double's digits),
    binaries (empty, past 64 bytes) and structs, each value several times, in three groups."""
    root = tmp_path_factory.mktemp("sets") / "t"
    root.mkdir()
    rng = np.random.default_rng(7)
    special = [0.0, -0.0, float("nan"), float("inf"), -float("inf"), 5e-324, 1.0, -1.0, 2.0**31, -(2.0**31), 2.0**40, -(2.0**53), 1e300, 0.1, 0.5, 3.4e38,
               3.5e38]
    doubles = np.concatenate([special, rng.standard_normal(200) * 10.0 ** rng.integers(-5, 9, 200), rng.integers(-400, 400, 120) / 4,
                              rng.integers(-(2**45), 2**45, 60).astype(np.float64)])
    rows = np.concatenate([rng.permutation(len(doubles)) for _ in range(3)])[:1000]
    x = doubles[rows]
    unscaled = rng.integers(-(10**12), 10**12, len(doubles))
    quarters = [decimal.Decimal(int(u)) / 4 for u in rng.integers(-4000, 4000, len(doubles))]
    wide = [decimal.Decimal(int(u) * int(v)).scaleb(-10) for u, v in zip(unscaled, rng.integers(0, 10**14, len(doubles)))]
    blobs = [bytes(rng.integers(0, 256, int(n), dtype=np.uint8)) for n in rng.integers(0, 90, len(doubles))]
    pq.write_table(pa.table({
        "g": pa.array(rng.integers(0, 3, len(rows)), pa.int32()),
        "x": pa.array(x, pa.float64(), mask=rng.random(len(rows)) < 0.05),
        "f": pa.array(np.where(np.abs(x) < 3.4e38, x, np.copysign(np.inf, x)).astype(np.float32), pa.float32()),
        "e": pa.array([decimal.Decimal(int(unscaled[r])).scaleb(-6) for r in rows], pa.decimal128(18, 6)),
        "q": pa.array([quarters[r] for r in rows], pa.decimal128(9, 2)),
        "w": pa.array([wide[r] for r in rows], pa.decimal128(38, 10)),
        "z": pa.array([decimal.Decimal(int(unscaled[r]) * 10**6) for r in rows], pa.decimal128(20, 0)),
        "b": pa.array([blobs[r] for r in rows], pa.binary()),
    }), root / "part-0.parquet")
    return root


SETS = [
    # collect_set of doubles, floats, decimals and binaries in the order of Spark's Scala HashSet:
    # by the hash of the element CollectSet keeps (a double's bits as a long, a float's as an int,
    # a binary as an UnsafeArrayData, Spark's Decimal by scala.math.BigDecimal's hash)
    "SELECT collect_set(x) AS x, collect_set(f) AS f, collect_set(e) AS e, collect_set(q) AS q, collect_set(w) AS w, "
    "collect_set(z) AS z, collect_set(b) AS b FROM s",
    "SELECT g, collect_set(x) AS x, collect_set(f) AS f, collect_set(CAST(e AS decimal(30, 2))) AS e, collect_set(w) AS w, "
    "collect_set(b) AS b FROM s GROUP BY g",
    "SELECT g, collect_set(x) FILTER (WHERE f > 0) AS x, collect_set(q) FILTER (WHERE e > 0) AS q, collect_set(DISTINCT z) AS z, "
    "collect_set(x * 0) AS n FROM s GROUP BY g",
    "SELECT g, collect_set(x) OVER (PARTITION BY g) AS x, collect_set(q) OVER (PARTITION BY g) AS q FROM s WHERE abs(e) < 1",
    # arrays of integers, dates and timestamps (NULL elements among them): each an UnsafeArrayData
    "SELECT g, collect_set(array(g, CAST(q * 4 AS int), IF(g = 1, NULL, 7))) AS a, collect_set(array(CAST(z / 1000 AS bigint), NULL)) AS l, "
    "collect_set(array(date_add(DATE'2024-01-01', CAST(q AS int)), NULL)) AS d, collect_set(array(CAST(CAST(q AS smallint) AS tinyint))) AS t, "
    "collect_set(array(timestamp_micros(CAST(e * 1000 AS bigint)))) AS ts FROM s GROUP BY g",
    # structs and arrays of any elements: each an UnsafeRow or UnsafeArrayData, hashed by its bytes
    # (NULLs inside, strings, doubles with -0.0 and NaN, decimals narrow and wide, nested arrays)
    "SELECT collect_set(named_struct('x', x, 'w', w, 'b', IF(g = 1, NULL, b), 'a', array(q, NULL, q * 2), 'f', f)) AS r, "
    "collect_set(array(w, IF(g = 2, NULL, w))) AS w, collect_set(array(CAST(z AS string), CAST(x AS string), '')) AS s, "
    "collect_set(array(x, x * 0)) AS x, collect_set(array(array(e), array(CAST(NULL AS decimal(18, 6)), e))) AS e FROM s",
    "SELECT g, collect_set(array(named_struct('q', q, 's', CAST(q AS string)), NULL)) AS a, "
    "collect_set(named_struct('n', named_struct('z', z, 'f', f), 'b', g > 0, 'd', date_add(DATE'2024-01-01', CAST(q AS int)))) AS n, "
    "collect_set(named_struct('x', x * 0)) FILTER (WHERE g < 2) AS k FROM s GROUP BY g",
]
_SET_ANSWERS: dict[str, tuple[Any, ...]] = {}


@pytest.mark.parametrize("sql", SETS)
def test_collect_set_in_sparks_order(sql: str, spark: SparkSession, sets: Path) -> None:
    _compare_over(sql, spark, {"s": sets}, _SET_ANSWERS)


@pytest.mark.parametrize("sql", SETS[1:2])
def test_collect_set_in_sparks_order_on_the_spark_engine(sql: str, spark: SparkSession, sets: Path) -> None:
    view = register_views(spark, {"s": sets})
    connection = vpush.connect(engine="spark", spark=spark, time_zone="UTC")
    connection.register("s", sets)
    assert_same_answer(sql, view, connection, _SET_ANSWERS)


def test_collect_set_of_structs_in_sparks_order(spark: SparkSession, sets: Path) -> None:
    _compare_over("SELECT collect_set(named_struct('g', g, 'q', q)) AS r FROM s", spark, {"s": sets}, _SET_ANSWERS)


@pytest.fixture(scope="module")
def task_sets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three files of 700, 300 and 500 rows in 40 groups, whose sets differ from file to file:
    Spark's tasks (two under local[2], three with three partitions) hold sets of other sizes
    than the whole table's, and their sums and moments other partial buffers."""
    root = tmp_path_factory.mktemp("task_sets") / "t"
    root.mkdir()
    rng = np.random.default_rng(5)
    for index, rows in enumerate((700, 300, 500)):
        g = rng.integers(0, 40, rows)
        x = (rng.integers(0, 1000, rows) % (g + 3)) * 7919 + index * (g % 3)
        pq.write_table(pa.table({
            "g": pa.array(g, pa.int32()),
            "x": pa.array(x, pa.int64()),
            "s": pa.array([f"v{v}" for v in x]),
            "y": pa.array(rng.standard_normal(rows) * 10.0 ** rng.integers(-3, 9, rows), pa.float64()),
        }), root / f"part-{index}.parquet", row_group_size=100)
    return root


_TASKS_QUERY = (
    "SELECT g, collect_set(x) AS a, collect_set(s) AS b, collect_set(x) FILTER (WHERE y > 0) AS c, collect_list(x) AS l, "
    "first(s) AS f, last(x) AS z, sum(y) AS t, var_samp(y) AS v, percentile_approx(y, 0.5, 4) AS p, mode(x % 5) AS m FROM t GROUP BY g"
)


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize("parallelism", [2, 3])
def test_aggregates_over_several_tasks(parallelism: int, engine: str, spark: SparkSession, task_sets: Path) -> None:
    """Spark's tasks as its default parallelism groups the files (the fixture's local[2], or three
    partitions as ``spark.sql.files.minPartitionNum`` asks, which local[3] would give): each task's
    buffer, merged in task order; ``collect_set``'s final table sized for the largest task's set."""
    spark.conf.set("spark.sql.files.minPartitionNum", str(parallelism))
    try:
        view = register_views(spark, {"t": task_sets})
        if engine == "spark":
            connection = vpush.connect(engine="spark", spark=spark, time_zone="UTC")
        else:
            connection = vpush.connect(time_zone="UTC", parallelism=parallelism)
        connection.register("t", task_sets)
        assert_same_answer(_TASKS_QUERY, view, connection, _TASK_ANSWERS.setdefault(parallelism, {}))
    finally:
        spark.conf.unset("spark.sql.files.minPartitionNum")


_TASK_ANSWERS: dict[int, dict[str, tuple[Any, ...]]] = {}


def test_parallelism_is_checked() -> None:
    """A parallelism is a whole number of tasks, and the DuckDB engine's setting."""
    for bad in (0, -2, 1.5, True):
        with pytest.raises(vpush.VpushError):
            vpush.connect(time_zone="UTC", parallelism=bad)  # type: ignore[arg-type]
    with pytest.raises(vpush.VpushError):
        vpush.connect(engine="spark", parallelism=2)
    assert vpush.connect(time_zone="UTC").engine.parallelism == 2, "the tests' default: the spark fixture's local[2]"  # type: ignore[attr-defined]


def test_collect_set_of_one_small_file_reads_no_order(tmp_path: Path) -> None:
    """One file of at most 4 MiB is one Spark task: collect_set's table is sized for its own set,
    without the scan's order column (which two files need, to size it for the larger task's)."""
    for index in range(2):
        pq.write_table(pa.table({"g": pa.array([1, 2, 1], pa.int32()), "x": pa.array([index, 5, 7], pa.int64())}), tmp_path / f"part-{index}.parquet")
    connection = vpush.connect(time_zone="UTC")
    connection.register("one", tmp_path / "part-0.parquet")
    connection.register("two", tmp_path)
    sql = "SELECT g, collect_set(x) AS s FROM {} GROUP BY g"
    assert not connection.sql(sql.format("one")).plan.scans[0].ordered, "one small file: one task, no order column"
    assert connection.sql(sql.format("two")).plan.scans[0].ordered, "two files: each row's task from the order column"


def test_past_the_hash_fallback_over_several_tasks_refused(folder: Path) -> None:
    """Past 128 groups beside collect_list each of Spark's tasks falls back at its own place and
    the final aggregation merges the tasks' buffers in another order: refused when met (the same
    query as one task is answered, above)."""
    connection = vpush.connect(time_zone="UTC")
    connection.register("t", folder)
    for sql in ("SELECT id % 300 AS m, collect_list(id) AS l FROM t GROUP BY id % 300",
                "SELECT id % 300 AS m, sum(x) AS s, first(s) AS f, percentile_approx(y, 0.5, 2) AS p FROM t GROUP BY id % 300"):
        with pytest.raises(vpush.VpushError) as raised:
            connection.sql(sql).to_arrow()
        assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION", sql
    few = connection.sql("SELECT id % 100 AS m, collect_list(id) AS l FROM t GROUP BY id % 100").to_arrow()
    assert few.num_rows == 100, "fewer than 128 groups: answered"


def _null_keyed(seed: int, rows: int, first_id: int) -> pa.Table:
    """Rows whose key ``k`` is NULL in runs of every density: NULL first, nine in ten NULL, one in
    three, then none; ``s`` a string, ``x`` a double."""
    rng = np.random.default_rng(seed)
    density = np.select([np.arange(rows) < 5, np.arange(rows) < rows // 3, np.arange(rows) < 2 * rows // 3], [1.0, 0.9, 0.33], 0.0)
    k = rng.integers(0, 6, rows)
    return pa.table({
        "id": pa.array(np.arange(first_id, first_id + rows), pa.int64()),
        "k": pa.array(k, pa.int64(), mask=rng.random(rows) < density),
        "s": pa.array([f"s{i}" for i in range(first_id, first_id + rows)], mask=rng.random(rows) < 0.1),
        "x": pa.array(rng.standard_normal(rows), pa.float64()),
    })


@pytest.fixture(scope="module")
def null_keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two files (Spark's two tasks, the larger first) of :func:`_null_keyed` rows."""
    root = tmp_path_factory.mktemp("radix") / "n"
    root.mkdir()
    for seed, rows in enumerate((200, 300)):
        pq.write_table(_null_keyed(seed + 20, rows, 10_000 * seed), root / f"part-{seed}.parquet", row_group_size=64)
    return root


# Spark aggregates a string's first/last (a buffer its hash aggregation cannot keep) by
# SortAggregateExec over each task's rows sorted by the key: by its radix sort where the key's
# sort prefix orders it fully, which puts each NULL-keyed row first by moving the row at the
# null boundary to the end; by its stable comparator sort otherwise (a string, a wide decimal)
RADIX_KEYS = {
    "bigint": "k", "int": "CAST(k AS INT)", "tinyint": "CAST(k AS TINYINT)", "boolean": "k % 2 = 0",
    "date": "date_add(DATE'2024-01-01', CAST(k AS INT))", "timestamp": "timestamp_seconds(k * 3600)",
    "timestamp_ntz": "CAST(timestamp_seconds(k * 3600) AS TIMESTAMP_NTZ)", "double": "k / 3", "decimal": "CAST(k AS DECIMAL(10, 2))",
    "string": "CAST(k AS STRING)", "wide decimal": "CAST(k AS DECIMAL(20, 2))",
}
RADIX_SORTED = [
    *(f"SELECT {key} AS g, first(s) AS f, last(s) AS l, count(*) AS n FROM n GROUP BY 1" for key in RADIX_KEYS.values()),
    "SELECT k, first(s) IGNORE NULLS AS f, last(s, true) AS l, first_value(s) AS fv, last_value(s) AS lv, any_value(s) AS a FROM n GROUP BY k",
    # every order-dependent aggregate of the SELECT follows the sort, a first of bigints too
    "SELECT k, max_by(s, id % 3) AS m, min_by(s, id % 4) AS mi, first(id) AS f, last(x) AS l, min(s) AS lo FROM n GROUP BY k",
    "SELECT k, first(s) AS f, last(s) AS l FROM n WHERE id % 3 <> 1 GROUP BY k",
    "SELECT k, first(s) AS f, last(s) AS l FROM (SELECT k, concat(s, 'x') AS s FROM n WHERE id % 5 <> 0) GROUP BY k",
    "SELECT k, first(s) AS f, last(s) AS l FROM n GROUP BY k HAVING count(*) > 3",
    # a hash aggregation (ints only) keeps the order read
    "SELECT k, first(id) AS f, last(id) AS l FROM n GROUP BY k",
]


@pytest.mark.parametrize("sql", RADIX_SORTED)
def test_order_of_rows_radix_sorted(sql: str, spark: SparkSession, null_keys: Path) -> None:
    """Spark's two tasks and one: each task's rows sorted as its sort leaves them."""
    view = register_views(spark, {"n": null_keys})
    for tasks in (2, 1):
        connection = vpush.connect(time_zone="UTC", parallelism=tasks)
        connection.register("n", null_keys)
        if tasks == 1:
            view.conf.set("spark.sql.files.minPartitionNum", "1")
            view.conf.set("spark.sql.files.maxPartitionBytes", str(1 << 30))
            view.conf.set("spark.sql.files.openCostInBytes", "0")
        try:
            assert_same_answer(sql, view, connection)
        finally:
            for key in ("spark.sql.files.minPartitionNum", "spark.sql.files.maxPartitionBytes", "spark.sql.files.openCostInBytes"):
                view.conf.unset(key)


@pytest.mark.parametrize("sql", [RADIX_SORTED[0], RADIX_SORTED[-5]])
def test_order_of_rows_radix_sorted_on_the_spark_engine(sql: str, spark: SparkSession, null_keys: Path) -> None:
    view = register_views(spark, {"n": null_keys})
    connection = vpush.connect(engine="spark", spark=spark, time_zone="UTC")
    connection.register("n", null_keys)
    assert_same_answer(sql, view, connection)


@pytest.mark.xfail(strict=True, reason="Spark's radix sort of a sorted subquery's rows (its range partitions) is not followed")
def test_order_of_rows_radix_sorted_over_a_sorted_subquery(spark: SparkSession, null_keys: Path) -> None:
    """Over a sorted subquery Spark's tasks are its sort's range partitions, each sorted again by
    the GROUP BY key with the NULL-keyed rows moved first by swaps; vpush takes the sort's order
    (README, differences)."""
    view = register_views(spark, {"n": null_keys})
    connection = vpush.connect(time_zone="UTC")
    connection.register("n", null_keys)
    assert_same_answer("SELECT k, first(s) AS f, last(s) AS l FROM (SELECT * FROM n ORDER BY x) GROUP BY k", view, connection)
