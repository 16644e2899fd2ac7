"""A whole variant that a query projects only for the rows its ORDER BY ... LIMIT keeps is
rebuilt for those rows only (``Scan.deferred``): same answers as Spark, same names, and the
variant is still read whole wherever the query needs it for every row."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import vpush
from support.tables import connect_tables
from support.writers import write_with_duckdb

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Two files of several row groups; `o` stays in the residual `value`, `n` is shredded.
SELECT = """
SELECT i AS id, {{'n': (i * 3)::INTEGER, 'o': {{'k': i % 5, 's': 'x' || i}}}}::VARIANT AS v
FROM range({start}, {stop}) t(i)
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("deferred") / "t"
    root.mkdir()
    for k, (start, stop) in enumerate(((0, 300), (300, 700))):
        write_with_duckdb(root / f"part-{k}.parquet", SELECT.format(start=start, stop=stop), "STRUCT(n INTEGER)", 64)
    return root


@pytest.fixture(scope="module")
def con(folder: Path) -> vpush.Connection:
    return connect_tables({"t": folder})


@pytest.fixture(scope="module")
def spark_t(spark: SparkSession, folder: Path) -> SparkSession:
    spark.read.parquet(str(folder)).createOrReplaceTempView("t")
    return spark


DEFERRED = [
    "SELECT id, to_json(v) AS j FROM t WHERE v:n::int % 7 = 1 ORDER BY id DESC LIMIT 9",
    "SELECT id, to_json(v) AS j, v:o.k::string AS k FROM t ORDER BY v:n::int LIMIT 5 OFFSET 3",
    "SELECT t.id, to_json(t.v) FROM t WHERE id >= 250 ORDER BY t.id LIMIT 100",
]

NOT_DEFERRED = [
    # the variant is needed for every row: in the WHERE, or in the sort key
    "SELECT id, to_json(v) AS j FROM t WHERE is_variant_null(v) = false ORDER BY id LIMIT 4",
    "SELECT id, to_json(v) AS j FROM t ORDER BY to_json(v) LIMIT 4",
    # no LIMIT
    "SELECT id, to_json(v) AS j FROM t WHERE id < 20 ORDER BY id",
    # a projection that may raise (a strict cast): Spark computes the projection for every row
    # before its top-n (tests/test_evaluation_order.py), so the variant is read for every row
    "SELECT id, to_json(v) AS j, v:o.k::int AS k FROM t ORDER BY v:n::int LIMIT 5 OFFSET 3",
]


def _spark_rows(spark: SparkSession, sql: str) -> list[tuple[object, ...]]:
    return [tuple(row) for row in spark.sql(sql).collect()]


@pytest.mark.parametrize("sql", DEFERRED)
def test_deferred_rows_are_sparks(sql: str, con: vpush.Connection, spark_t: SparkSession) -> None:
    relation = con.sql(sql)
    assert relation.plan.scans[0].deferred == ("v",)
    got = relation.to_arrow()
    expected = spark_t.sql(sql)
    assert got.schema.names == expected.columns
    assert [tuple(r.values()) for r in got.to_pylist()] == _spark_rows(spark_t, sql)


@pytest.mark.parametrize("sql", NOT_DEFERRED)
def test_not_deferred_where_every_row_needs_it(sql: str, con: vpush.Connection, spark_t: SparkSession) -> None:
    relation = con.sql(sql)
    assert relation.plan.scans[0].deferred == ()
    assert [tuple(r.values()) for r in relation.to_arrow().to_pylist()] == _spark_rows(spark_t, sql)


def test_a_bare_variant_projection_keeps_its_name_and_bytes(con: vpush.Connection) -> None:
    sql = "SELECT id, v, to_json(v) AS j FROM t ORDER BY id DESC LIMIT 6"
    relation = con.sql(sql)
    assert relation.plan.scans[0].deferred == ("v",)
    got = relation.to_arrow()
    assert got.schema.names == ["id", "v", "j"]
    # The same rows read whole, without the LIMIT (nothing deferred), hold the same bytes.
    whole = con.sql("SELECT id, v FROM t WHERE id >= 694 ORDER BY id DESC").to_arrow()
    assert got.column("v").to_pylist() == whole.column("v").to_pylist()
    assert got.column("id").to_pylist() == list(range(699, 693, -1))
