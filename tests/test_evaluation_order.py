"""Where a failing cast raises, on multi-row-group files: Spark computes a strict ``variant_get``
in its scan for every row of every row group it reads; vpush computes it for every row of every
row group it reads (``tests/differential/test_casts.py`` checks where each kind of cast is
computed). vpush skips row groups Spark reads, which leaves one difference, by design."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import vpush
from support.writers import write_with_duckdb
from vpush.codec.errors import VpushError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Two row groups of 2,048 rows: `n` is 0..4095, shredded (so its bounds are trusted), and `x` is
# an int except in row 0 (the first row group), where it is a string no int cast takes.
SELECT = (
    "SELECT i AS id, {'n': i, 'x': CASE WHEN i = 0 THEN 'abc'::VARIANT ELSE (i % 7)::BIGINT::VARIANT END}::VARIANT AS v "
    "FROM range(4096) t(i)"
)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("order") / "t"
    write_with_duckdb(folder / "part-0.parquet", SELECT, "STRUCT(n BIGINT)", 2048)
    return folder


def _spark_error(spark: SparkSession, table: Path, sql: str) -> str | None:
    spark.read.parquet(str(table)).createOrReplaceTempView("t")
    try:
        spark.sql(sql).collect()
    except Exception as exc:  # noqa: BLE001 - Py4J or PySpark: the error class is in the text
        text = str(exc)
        return "INVALID_VARIANT_CAST" if "[INVALID_VARIANT_CAST]" in text else text
    return None


def _vpush_error(engine: str, spark: SparkSession, table: Path, sql: str) -> str | None:
    con = vpush.connect(engine=engine, spark=spark if engine == "spark" else None, time_zone="UTC")
    con.register("t", table)
    try:
        con.sql(sql).to_arrow()
    except VpushError as exc:
        return exc.error_class
    return None


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_failing_row_in_a_row_group_both_read(engine: str, spark: SparkSession, table: Path) -> None:
    """The WHERE keeps both row groups: the failing row, which it drops, raises on both."""
    sql = "SELECT id, variant_get(v, '$.x', 'int') AS x FROM t WHERE variant_get(v, '$.n', 'bigint') % 1000 = 1"
    assert _spark_error(spark, table, sql) == "INVALID_VARIANT_CAST"
    assert _vpush_error(engine, spark, table, sql) == "INVALID_VARIANT_CAST"


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_colon_cast_raises_only_for_rows_kept(engine: str, spark: SparkSession, table: Path) -> None:
    """``v:x::int`` is computed for the rows the WHERE keeps: the failing row is not one."""
    sql = "SELECT id, v:x::int AS x FROM t WHERE variant_get(v, '$.n', 'bigint') % 1000 = 1"
    assert _spark_error(spark, table, sql) is None
    assert _vpush_error(engine, spark, table, sql) is None


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT v:x::int AS x FROM t ORDER BY id DESC LIMIT 2",
        "SELECT id, v:x::bigint AS x, to_json(v) AS j FROM t ORDER BY id DESC LIMIT 2 OFFSET 1",
    ],
)
def test_colon_cast_raises_for_a_row_the_limit_drops(engine: str, sql: str, spark: SparkSession, table: Path) -> None:
    """Spark computes the SELECT's projection for every row, before its top-n: the failing row
    (the last by ``id DESC``) raises though the LIMIT drops it (vpush computed the projection
    after the LIMIT, where it called an engine function, and answered)."""
    assert _spark_error(spark, table, sql) == "INVALID_VARIANT_CAST"
    assert _vpush_error(engine, spark, table, sql) == "INVALID_VARIANT_CAST"


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_failing_row_in_a_row_group_the_where_rules_out(engine: str, spark: SparkSession, table: Path) -> None:
    """The `n` bounds rule out the first row group, but `$.x` is not shredded: its residual there
    might not cast, so vpush reads the row group as Spark does, and raises as Spark does."""
    sql = "SELECT id, variant_get(v, '$.x', 'int') AS x FROM t WHERE variant_get(v, '$.n', 'bigint') >= 3000"
    assert _spark_error(spark, table, sql) == "INVALID_VARIANT_CAST"
    assert _vpush_error(engine, spark, table, sql) == "INVALID_VARIANT_CAST"
    con = vpush.connect(time_zone="UTC")
    con.register("t", table)
    explained = con.sql(sql).explain()
    assert "row groups read 2 of 2" in explained
    assert "1 row group(s) the WHERE rules out read all the same: variant_get(v, '$.x', 'int') may fail" in explained


@pytest.mark.parametrize(
    "select",
    [
        "variant_get(v, '$.n', 'int')",  # bigint bounds within int's range: no value fails
        "variant_get(v, '$.x', 'string')",  # every variant casts to a string
        "try_variant_get(v, '$.x', 'int')",  # NULL where the cast fails
        "v:x::int",  # computed for the rows the WHERE keeps
    ],
)
def test_row_groups_still_skipped_where_no_cast_can_fail(select: str, spark: SparkSession, table: Path) -> None:
    sql = f"SELECT id, {select} AS x FROM t WHERE variant_get(v, '$.n', 'bigint') >= 3000"
    spark.read.parquet(str(table)).createOrReplaceTempView("t")
    expected = sorted(tuple(r) for r in spark.sql(sql).collect())
    con = vpush.connect(time_zone="UTC")
    con.register("t", table)
    assert "row groups read 1 of 2" in con.sql(sql).explain()
    assert sorted(tuple(r.values()) for r in con.sql(sql).to_arrow().to_pylist()) == expected


def test_narrowing_cast_reads_the_row_groups_whose_bounds_do_not_fit(spark: SparkSession, table: Path) -> None:
    """`n` as a smallint fits in the first row group (0..2047) but not in the second: the WHERE
    rules out the first, whose bounds prove no failure, so it stays skipped; Spark raises for
    the second, which both read."""
    sql = "SELECT variant_get(v, '$.n', 'tinyint') AS x FROM t WHERE variant_get(v, '$.n', 'bigint') < 100"
    assert _spark_error(spark, table, sql) == "INVALID_VARIANT_CAST"
    assert _vpush_error("duckdb", spark, table, sql) == "INVALID_VARIANT_CAST"
    con = vpush.connect(time_zone="UTC")
    con.register("t", table)
    assert "row groups read 2 of 2" in con.sql(sql).explain()


@pytest.fixture(scope="module")
def delta_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Delta table of two files: the log's `n` bounds rule the second out for `n < 500`, and
    only the second holds an `x` no int cast takes."""
    from support.delta import DeltaLog, field, metadata, protocol

    root = tmp_path_factory.mktemp("order") / "delta"
    first = (
        "SELECT i AS id, {'n': i, 'x': (i % 7)::BIGINT::VARIANT}::VARIANT AS v FROM range(1000) t(i)"
    )
    second = (
        "SELECT i AS id, {'n': i, 'x': CASE WHEN i = 1500 THEN 'abc'::VARIANT ELSE (i % 7)::BIGINT::VARIANT END}"
        "::VARIANT AS v FROM range(1000, 2000) t(i)"
    )
    write_with_duckdb(root / "part-0.parquet", first, "STRUCT(n BIGINT)", 1000)
    write_with_duckdb(root / "part-1.parquet", second, "STRUCT(n BIGINT)", 1000)
    log = DeltaLog(root)
    log.commit(protocol(), metadata([field("id", "long"), field("v", "variant")]))
    log.commit(log.add(root / "part-0.parquet"), log.add(root / "part-1.parquet"))
    return root


def test_delta_file_the_log_rules_out_is_read_where_a_cast_may_fail(spark: SparkSession, delta_table: Path) -> None:
    """Spark over the live files reads the second file and raises: vpush opens the footer of the
    file its log rules out, finds the cast may fail there, and reads it."""
    sql = "SELECT id, variant_get(v, '$.x', 'int') AS x FROM t WHERE variant_get(v, '$.n', 'bigint') < 500"
    parquet = [str(delta_table / "part-0.parquet"), str(delta_table / "part-1.parquet")]
    spark.read.parquet(*parquet).createOrReplaceTempView("t")
    with pytest.raises(Exception, match="INVALID_VARIANT_CAST"):
        spark.sql(sql).collect()
    con = vpush.connect(time_zone="UTC")
    con.register("t", delta_table)
    assert "skipped by the Delta log" not in con.sql(sql).explain()
    with pytest.raises(VpushError) as caught:
        con.sql(sql).to_arrow()
    assert caught.value.error_class == "INVALID_VARIANT_CAST"
    safe = sql.replace("'int'", "'string'")
    assert "files skipped by the Delta log 1 of 2" in con.sql(safe).explain()
    assert con.sql(safe).to_arrow().num_rows == 500
