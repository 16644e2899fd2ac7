"""Partition columns and file / row-group pruning in the plan, checked against Spark's answers.

The table: `year=2023/` holds ids 0..499 and `year=2024/` ids 500..949 then 50 NULLs, each file
in five row groups of 100 rows, so each predicate below rules out known row groups.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import vpush
from vpush.optimizer.plan_query import plan_query

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROW_GROUP_ROWS = 100
SPARK_TYPES = {pa.int32(): "int", pa.int64(): "bigint", pa.string(): "string", pa.float64(): "double"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pruning")
    ids = {2023: list(range(500)), 2024: [*range(500, 950), *[None] * 50]}
    for year, values in ids.items():
        (root / "t" / f"year={year}").mkdir(parents=True)
        table = pa.table(
            {
                "id": pa.array(values, pa.int64()),
                "name": [None if i is None else f"n{i % 7}" for i in values],
                "score": [None if i is None else i / 4 for i in values],
            }
        )
        pq.write_table(table, root / "t" / f"year={year}" / "part-0.parquet", row_group_size=ROW_GROUP_ROWS)
    (root / "u").mkdir()
    pq.write_table(pa.table({"k": pa.array([5, 750, 2000], pa.int64()), "label": ["a", "b", "c"]}), root / "u" / "u.parquet")
    return root


@pytest.fixture(scope="module")
def con(folder: Path) -> vpush.Connection:
    connection = vpush.connect(time_zone="UTC")
    connection.register("t", folder / "t")
    connection.register("u", folder / "u")
    return connection


@pytest.fixture(scope="module")
def spark_views(spark: SparkSession, folder: Path) -> SparkSession:
    spark.read.parquet(str(folder / "t")).createOrReplaceTempView("t")
    spark.read.parquet(str(folder / "u")).createOrReplaceTempView("u")
    return spark


def _rows(table: pa.Table) -> list[tuple[Any, ...]]:
    return sorted((tuple(r.values()) for r in table.to_pylist()), key=repr)


def _unpruned(con: vpush.Connection, sql: str) -> pa.Table:
    plan = plan_query(sql, con.catalog, time_zone=con.time_zone, prune=False)
    return con.engine.execute(plan).read_all()


def _counts(con: vpush.Connection, sql: str, table: str = "t") -> tuple[int, int]:
    """(row groups read, files read) of the scan of ``table``."""
    scan = next(s for s in con.sql(sql).plan.scans if s.table == table)
    return sum(len(f.row_groups) for f in scan.files), sum(1 for f in scan.files if f.row_groups)


# (WHERE, row groups read of 10, files read of 2)
CASES = [
    ("id < 100", 1, 1),
    ("id IN (5, 750)", 2, 2),
    ("id IS NULL", 1, 1),
    ("year = 2024", 5, 1),
    ("id < 50 OR id > 940", 2, 2),
    ("NOT (id >= 100)", 1, 1),
    ("id BETWEEN 150 AND 250", 2, 1),
    ("year = 2023 AND id BETWEEN 550 AND 560", 0, 0),
    ("year = 2024 AND NOT (id IS NOT NULL)", 1, 1),
    ("abs(id) < 5", 10, 2),
    ("name = 'n3' AND score < 10", 1, 1),
    ("score > 230", 10, 2),  # NaN > 230 is true in Spark, and NaN is outside a double's statistics
]


@pytest.mark.parametrize(("where", "row_groups", "files"), CASES)
def test_pruned_answers_equal_spark_and_unpruned(
    con: vpush.Connection, spark_views: SparkSession, where: str, row_groups: int, files: int
) -> None:
    sql = f"SELECT * FROM t WHERE {where}"
    got = con.sql(sql).to_arrow()
    expected = spark_views.sql(sql)
    assert got.column_names == expected.columns, "partition columns come after the file columns"
    assert [SPARK_TYPES[f.type] for f in got.schema] == [t for _, t in expected.dtypes], "Spark's types"
    assert _rows(got) == sorted((tuple(r) for r in expected.collect()), key=repr), "Spark's rows"
    assert _rows(got) == _rows(_unpruned(con, sql)), "pruning must not change the answer"
    assert _counts(con, sql) == (row_groups, files), "Should read exactly the row groups that may match"


def test_partition_column_groups(con: vpush.Connection, spark_views: SparkSession) -> None:
    sql = "SELECT year, count(*) AS n, count(id) AS ids FROM t GROUP BY year"
    got = con.sql(sql).to_arrow()
    assert got.schema.field("year").type == pa.int32(), "Spark infers int for year=2023"
    assert _rows(got) == sorted((tuple(r) for r in spark_views.sql(sql).collect()), key=repr)


def test_explain_shows_row_groups_and_skipped_files(con: vpush.Connection) -> None:
    text = con.sql("SELECT id FROM t WHERE id < 100").explain()
    assert "files read 1 of 2, row groups read 1 of 10" in text
    assert "row groups read 1 of 5 (skipped: 4 statistics of id rule out rows), columns id" in text
    assert "year=2024/part-0.parquet: skipped, statistics of id rule out rows" in text
    text = con.sql("SELECT name FROM t WHERE year = 2024").explain()
    assert "year=2023/part-0.parquet: skipped, partition year=2023 cannot match" in text
    assert "columns read: name" in text


def test_unknown_function_prunes_nothing(con: vpush.Connection) -> None:
    text = con.sql("SELECT id FROM t WHERE abs(id) < 5 AND NOT (upper(name) = 'X')").explain()
    assert "row groups read 10 of 10" in text, "Should not skip: abs() and upper() are not read"


def test_where_on_the_outer_side_of_a_left_join(con: vpush.Connection, spark_views: SparkSession) -> None:
    # Pruning t by `t.id IS NULL` would drop every matching row of t and keep u's rows
    # null-extended: a wrong answer.
    sql = "SELECT u.k, u.label, t.id, t.year FROM u LEFT JOIN t ON u.k = t.id WHERE t.id IS NULL OR t.year = 2024"
    assert _rows(con.sql(sql).to_arrow()) == sorted((tuple(r) for r in spark_views.sql(sql).collect()), key=repr)
    assert _counts(con, sql) == (10, 2), "Should not prune the right side of a LEFT JOIN"


def test_table_in_subqueries(con: vpush.Connection, spark_views: SparkSession) -> None:
    sql = """
        SELECT s.year, count(*) AS n
        FROM (SELECT id, year FROM t WHERE year = 2024) s
        WHERE s.id > 900 OR s.id IN (SELECT k FROM u WHERE k < 10)
        GROUP BY s.year
    """
    assert _rows(con.sql(sql).to_arrow()) == sorted((tuple(r) for r in spark_views.sql(sql).collect()), key=repr)
    assert _counts(con, sql) == (5, 1), "Only the inner WHERE prunes t"
    assert _counts(con, sql, "u") == (1, 1), "u has one row group, which may match"


@pytest.fixture(scope="module")
def spark_con(spark: SparkSession, folder: Path) -> vpush.Connection:
    connection = vpush.connect(engine="spark", spark=spark, time_zone="UTC")
    connection.register("t", folder / "t")
    connection.register("u", folder / "u")
    return connection


@pytest.mark.parametrize(("where", "row_groups", "files"), CASES)
def test_spark_engine_prunes_and_gives_sparks_answer(
    spark_con: vpush.Connection, spark_views: SparkSession, where: str, row_groups: int, files: int
) -> None:
    """Partition columns and skipped row groups through the Spark engine: one task per row group
    read, and Spark's own names, types and rows."""
    sql = f"SELECT * FROM t WHERE {where}"
    got = spark_con.sql(sql).to_arrow()
    expected = spark_views.sql(sql)
    assert got.column_names == expected.columns
    assert [SPARK_TYPES[f.type] for f in got.schema] == [t for _, t in expected.dtypes]
    assert _rows(got) == sorted((tuple(r) for r in expected.collect()), key=repr)
    assert _counts(spark_con, sql) == (row_groups, files)


@pytest.mark.parametrize(("sql", "read"), [
    ("WITH c AS (SELECT id, name FROM t WHERE score > 1) SELECT * FROM c", "id, name, score"),
    ("SELECT * FROM (WITH c AS (SELECT id FROM t) SELECT * FROM c)", "id"),
    ("WITH t AS (SELECT id FROM t) SELECT * FROM t", "id"),  # the CTE's own query reads the table
    ("WITH c AS (SELECT * FROM t) SELECT id FROM c", "id, name, score, year"),
])
def test_a_star_over_a_cte_reads_what_the_cte_names(sql: str, read: str, con: vpush.Connection) -> None:
    """A ``*`` over a CTE or a subquery reads what its query names, not every column (it had read
    them all, a variant column's every leaf among them); a ``*`` over the table reads them all."""
    assert f"columns read: {read}\n" in con.sql(sql).explain()
