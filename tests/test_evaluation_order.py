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


@pytest.mark.xfail(
    strict=True,
    raises=pytest.fail.Exception,
    reason="vpush skips the row group that holds the failing row (its `n` bounds rule it out); Spark reads it and raises",
)
@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_failing_row_in_a_row_group_vpush_skips(engine: str, spark: SparkSession, table: Path) -> None:
    sql = "SELECT id, variant_get(v, '$.x', 'int') AS x FROM t WHERE variant_get(v, '$.n', 'bigint') >= 3000"
    assert _spark_error(spark, table, sql) == "INVALID_VARIANT_CAST"
    if _vpush_error(engine, spark, table, sql) != "INVALID_VARIANT_CAST":
        pytest.fail("vpush answered where Spark raised")
