"""DuckDB's own Parquet reader takes over a part only where it reads exactly what vpush would:
residual-free typed leaves of annotated columns. The answers are the same with it and without
it, on files from both writers, and Spark's; anything less clean stays on vpush's scan."""
from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pytest

import vpush
from support.compare import rows
from support.writers import write_with_duckdb, write_with_spark
from vpush.codec.builder import encode
from vpush.codec.shred import write_shredded_parquet
from vpush.exec.duckdb_engine import DuckDBEngine
from vpush.optimizer.plan import VARIANT_ARROW_TYPE

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CLEAN_SELECT = (
    "SELECT i AS id, {'a': i, 's': 'k' || (i % 7), 'o': {'x': (i % 100)::INTEGER}, "
    "'ts': make_timestamptz(1704067200000000 + i * 1000000), 'd': (i / 100)::DECIMAL(10,2)}::VARIANT AS v "
    "FROM range(5000) t(i)"
)
CLEAN_SHREDDING = "STRUCT(a BIGINT, s VARCHAR, o STRUCT(x INTEGER), ts TIMESTAMPTZ, d DECIMAL(10,2))"
SPARK_SELECT = """
SELECT id, to_variant_object(named_struct('a', id, 's', concat('k', id % 7),
  'o', named_struct('x', cast(id % 100 AS int)), 'ts', timestamp_seconds(1704067200 + id),
  'd', cast(id / 100 AS decimal(10,2)))) AS v
FROM range(5000, 8000)
"""
SPARK_SCHEMA = "a bigint, s string, o struct<x int>, ts timestamp, d decimal(10,2)"
QUERIES = [
    "SELECT count(*) AS n, sum(v:a::bigint) AS a, min(v:ts::timestamp) AS ts FROM t",
    "SELECT v:s::string AS s, count(*) AS n, sum(v:d::decimal(10,2)) AS d FROM t GROUP BY v:s::string ORDER BY s",
    "SELECT id, v:o.x::int AS x FROM t WHERE v:a::bigint BETWEEN 4990 AND 5010 ORDER BY id",
    "SELECT count(*) AS n FROM t WHERE try_variant_get(v, '$.o.x', 'int') = 42",
    "SELECT v:missing::string AS m, count(*) AS n FROM t GROUP BY 1",
    # in Spark's order of rows (its files by size, largest first), with DuckDB's reader numbering them
    "SELECT first(v:s::string) AS f, last(v:a::bigint) AS l, max_by(id, v:o.x::int) AS m, "
    "collect_list(v:a::bigint)[2999] AS c, sum(v:a::bigint) AS s FROM t",
]


@pytest.fixture(scope="module")
def clean_table(tmp_path_factory: pytest.TempPathFactory, spark: SparkSession) -> Path:
    root = tmp_path_factory.mktemp("native")
    folder = root / "t"
    write_with_duckdb(folder / "part-duckdb.parquet", CLEAN_SELECT, CLEAN_SHREDDING, 2048)
    for i, f in enumerate(write_with_spark(spark, root / "spark", SPARK_SELECT, SPARK_SCHEMA, row_group_size_rows=1024)):
        shutil.copy(f, folder / f"part-spark{i}.parquet")
    spark.read.parquet(str(folder)).createOrReplaceTempView("native_t")
    return folder


def _connection(folder: Path, native: bool) -> vpush.Connection:
    con = vpush.Connection(DuckDBEngine(time_zone="UTC", native_scans=native), time_zone="UTC")
    con.register("t", folder)
    return con


def test_clean_files_are_read_by_duckdb(clean_table: Path) -> None:
    plan = _connection(clean_table, True).sql(QUERIES[0]).plan
    assert all(part.native is not None for scan in plan.scans for part in scan.parts)


@pytest.mark.parametrize("sql", QUERIES)
def test_same_answer_with_and_without_duckdbs_reader(clean_table: Path, spark: SparkSession, sql: str) -> None:
    native = _connection(clean_table, True).sql(sql).to_arrow()
    assert rows(native) == rows(_connection(clean_table, False).sql(sql).to_arrow())
    expected = spark.sql(sql.replace("FROM t", "FROM native_t")).collect()
    assert rows(native) == [tuple(r) for r in expected]


@pytest.mark.parametrize(
    ("select", "shredding", "why"),
    [
        (
            "SELECT i AS id, CASE WHEN i = 3000 THEN {'a': 'x'}::VARIANT ELSE {'a': i}::VARIANT END AS v FROM range(4096) t(i)",
            "STRUCT(a BIGINT)",
            "a residual of a in one row group",
        ),
        (
            "SELECT i AS id, {'a': i, 'extra': 'e'}::VARIANT AS v FROM range(100) t(i)",
            "STRUCT(a BIGINT)",
            "keys beside a in the top-level value",
        ),
        (
            "SELECT i AS id, {'a': i}::VARIANT AS v FROM range(100) t(i)",
            None,
            "no shredding",
        ),
    ],
)
def test_anything_less_clean_stays_on_vpushs_scan(tmp_path: Path, select: str, shredding: str | None, why: str) -> None:
    write_with_duckdb(tmp_path / "t.parquet", select, shredding, 2048)
    con = _connection(tmp_path, True)
    rel = con.sql("SELECT sum(try_variant_get(v, '$.a', 'bigint')) AS a FROM t")
    assert all(part.native is None for scan in rel.plan.scans for part in scan.parts), why
    assert rows(rel.to_arrow()) == rows(_connection(tmp_path, False).sql(rel.plan.source_sql).to_arrow())


def test_partitioned_files_stay_on_vpushs_scan(tmp_path: Path) -> None:
    write_with_duckdb(tmp_path / "day=1" / "t.parquet", CLEAN_SELECT, CLEAN_SHREDDING, 2048)
    con = _connection(tmp_path, True)
    rel = con.sql("SELECT day, count(v:a::bigint) AS n FROM t GROUP BY day")
    assert all(part.native is None for scan in rel.plan.scans for part in scan.parts)
    assert rows(rel.to_arrow()) == [(1, 5000)]


def test_floating_leaves_stay_on_vpushs_scan(tmp_path: Path, spark: SparkSession) -> None:
    # pyarrow's bounds of row group 0 are [1.0, 1.0]: its NaN is left out, and DuckDB's reader,
    # trusting them, would drop the row where Spark keeps it (NaN > 5 is TRUE in Spark).
    values = [{"a": 1.0}, {"a": math.nan}, {"a": 2.0}, {"a": 3.0}]
    encoded = [encode(value) for value in values]
    v = pa.StructArray.from_arrays(
        [pa.array([m for m, _ in encoded], pa.binary()), pa.array([x for _, x in encoded], pa.binary())],
        fields=list(VARIANT_ARROW_TYPE),
    )
    table = pa.table({"id": pa.array(range(len(values)), pa.int64()), "v": v})
    write_shredded_parquet(table, tmp_path / "t.parquet", {"v": "struct<a: double>"}, row_group_size=2)
    sql = "SELECT id FROM t WHERE v:a::double > 5"
    rel = _connection(tmp_path, True).sql(sql)
    spark.read.parquet(str(tmp_path)).createOrReplaceTempView("nan_t")
    assert [tuple(r) for r in spark.sql(sql.replace("FROM t", "FROM nan_t")).collect()] == [(1,)]
    assert rows(rel.to_arrow()) == [(1,)], "Should keep the NaN row, as Spark does"
    assert all(part.native is None for scan in rel.plan.scans for part in scan.parts), "a double leaf"
