"""The test writers make real annotated, shredded files that both engines read back."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pyarrow.parquet as pq
from support.writers import (
    SPARK_FORCE_SHREDDING,
    leaf_counts,
    row_group_rows,
    write_with_duckdb,
    write_with_spark,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROWS = 5000
# Sum of a = 0 .. ROWS - 1.
EXPECTED_SUM = ROWS * (ROWS - 1) // 2

DUCKDB_SELECT = f"""
    SELECT i AS id, {{'a': i, 'b': 'x' || (i % 10)}}::VARIANT AS v FROM range({ROWS}) t(i)
"""
SPARK_SELECT = f"""
    SELECT id, to_variant_object(named_struct('a', id, 'b', concat('x', id % 10))) AS v
    FROM range(0, {ROWS}, 1, 2)
"""


def _schema_text(path: Path) -> str:
    return str(pq.ParquetFile(path).schema)


def _duckdb_reads(files: list[Path]) -> tuple[int, int, str]:
    paths = ", ".join(f"'{f}'" for f in files)
    with duckdb.connect() as con:
        ((count, total, kind),) = con.execute(
            f"SELECT count(*), sum(v.a::BIGINT), any_value(typeof(v)) FROM read_parquet([{paths}])"
        ).fetchall()
    return int(count), int(total), str(kind)


def _spark_reads(spark: SparkSession, files: list[Path]) -> tuple[str, int, int]:
    frame = spark.read.parquet(*[str(f) for f in files])
    variant_type = frame.schema["v"].dataType.simpleString()
    row = frame.selectExpr("count(*) AS n", "sum(variant_get(v, '$.a', 'bigint')) AS total").collect()[0]
    return variant_type, int(row["n"]), int(row["total"])


def _assert_shredded(path: Path) -> None:
    text = _schema_text(path)
    assert "v (Variant(1))" in text, f"Should carry the Variant annotation:\n{text}"
    for rg, counts in enumerate(leaf_counts(path)):
        for field in ("a", "b"):
            non_null, _ = counts[f"v.typed_value.{field}.value"]
            assert non_null == 0, f"Should be perfectly shredded: {field}.value in row_group {rg}"
            _, nulls = counts[f"v.typed_value.{field}.typed_value"]
            assert nulls == 0, f"Should hold every row: {field}.typed_value in row_group {rg}"
        non_null, _ = counts["v.value"]
        assert non_null == 0, f"Should leave no residual object in row_group {rg}"


def test_duckdb_writer_shreds_and_both_engines_read(tmp_path: Path, spark: SparkSession) -> None:
    files = write_with_duckdb(tmp_path / "d.parquet", DUCKDB_SELECT, "STRUCT(a BIGINT, b VARCHAR)", 2048)
    assert files == [tmp_path / "d.parquet"]
    assert row_group_rows(files[0]) == [2048, 2048, 904], "DuckDB cuts row groups at 2,048 rows"
    _assert_shredded(files[0])
    assert _duckdb_reads(files) == (ROWS, EXPECTED_SUM, "VARIANT")
    assert _spark_reads(spark, files) == ("variant", ROWS, EXPECTED_SUM)


def test_spark_writer_shreds_and_both_engines_read(tmp_path: Path, spark: SparkSession) -> None:
    files = write_with_spark(spark, tmp_path / "s", SPARK_SELECT, "a bigint, b string", 1000)
    assert len(files) == 1, "coalesce(1) writes one file"
    assert row_group_rows(files[0]) == [1000] * 5, "parquet.block.row.count.limit gives exact groups"
    _assert_shredded(files[0])
    assert _duckdb_reads(files) == (ROWS, EXPECTED_SUM, "VARIANT")
    assert _spark_reads(spark, files) == ("variant", ROWS, EXPECTED_SUM)
    assert spark.conf.get(SPARK_FORCE_SHREDDING, None) is None, "Should restore the session conf"


def test_spark_writer_keeps_partitions_as_files(tmp_path: Path, spark: SparkSession) -> None:
    files = write_with_spark(spark, tmp_path / "s", SPARK_SELECT, "a bigint", 1000, files=None)
    assert len(files) == 2, "one file per partition of range(..., 2)"
    minima = [pq.ParquetFile(f).metadata.row_group(0).column(0).statistics.min for f in files]
    assert minima == [0, ROWS // 2], "files sorted by name follow the partitions"


def test_unshredded_writes(tmp_path: Path, spark: SparkSession) -> None:
    duck = write_with_duckdb(tmp_path / "d.parquet", DUCKDB_SELECT, None, 2048)
    sparks = write_with_spark(spark, tmp_path / "s", SPARK_SELECT, None)
    for path in (*duck, *sparks):
        text = _schema_text(path)
        assert "v (Variant(1))" in text, f"Should be annotated: {path.name}"
        assert "typed_value" not in text, f"Should not be shredded: {path.name}\n{text}"
    assert _duckdb_reads(sparks) == (ROWS, EXPECTED_SUM, "VARIANT")
    assert _spark_reads(spark, duck) == ("variant", ROWS, EXPECTED_SUM)


def test_duckdb_shreds_exact_types_only(tmp_path: Path) -> None:
    """ENGINE_NOTES: an INTEGER value is not shredded into a BIGINT field but kept in `value`."""
    select = "SELECT i AS id, {'a': i::INTEGER}::VARIANT AS v FROM range(100) t(i)"
    files = write_with_duckdb(tmp_path / "i.parquet", select, "STRUCT(a BIGINT)", 2048)
    (counts,) = leaf_counts(files[0])
    assert counts["v.typed_value.a.value"] == (100, 0), "INTEGER values should fall back to value"
    assert counts["v.typed_value.a.typed_value"] == (0, 100), "and leave typed_value null"
