"""Tables registered by name on a vpush connection (either engine) and as Spark views, for the
tests that compare the two over the same files."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import vpush

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def connect_tables(tables: Mapping[str, Path], spark: SparkSession | None = None) -> vpush.Connection:
    """A connection in UTC with every table registered: on the Spark engine when ``spark`` is
    given, else on DuckDB."""
    connection = vpush.connect(engine="spark", spark=spark, time_zone="UTC") if spark else vpush.connect(time_zone="UTC")
    for name, path in tables.items():
        connection.register(name, path)
    return connection


def register_views(spark: SparkSession, tables: Mapping[str, Path]) -> SparkSession:
    """``spark`` with every table a temporary view over its Parquet files."""
    for name, path in tables.items():
        spark.read.parquet(str(path)).createOrReplaceTempView(name)
    return spark


def table_folder(root: Path, table: pa.Table) -> Path:
    """A folder ``root/t`` holding ``table`` as one Parquet file, to register as a table."""
    folder = root / "t"
    folder.mkdir(parents=True)
    pq.write_table(table, folder / "part-0.parquet")
    return folder


def table_fixtures(name: str, table: pa.Table) -> tuple[Any, Any, Any, Any]:
    """The module-scoped fixtures of tests over ``table`` as ``t``, to assign to these names:
    ``table_path`` (its folder, under a temporary folder named ``name``), ``con`` (a DuckDB-engine
    connection), ``spark_con`` (a Spark-engine connection) and ``spark_view`` (the session with
    the view ``t``)."""

    @pytest.fixture(scope="module", name="table_path")
    def table_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return table_folder(tmp_path_factory.mktemp(name), table)

    @pytest.fixture(scope="module", name="con")
    def con(table_path: Path) -> vpush.Connection:
        return connect_tables({"t": table_path})

    @pytest.fixture(scope="module", name="spark_con")
    def spark_con(spark: SparkSession, table_path: Path) -> vpush.Connection:
        return connect_tables({"t": table_path}, spark)

    @pytest.fixture(scope="module", name="spark_view")
    def spark_view(spark: SparkSession, table_path: Path) -> SparkSession:
        return register_views(spark, {"t": table_path})

    return table_path, con, spark_con, spark_view


def tables_fixtures(
    write: Callable[..., Mapping[str, Path]], name: str, *, both_engines: bool = False, with_spark: bool = False
) -> tuple[Any, Any, Any, Any]:
    """The module-scoped fixtures of tests that compare vpush with Spark over the tables
    ``write(root)`` writes (under a temporary folder named ``name``; it returns each table's
    folder by its name), to assign to these names: ``tables`` (that mapping), ``spark_views``
    (the session with a view of each), ``con`` (a connection with every table registered: on
    the DuckDB engine, or with ``both_engines`` once on each, ids ``duckdb`` and ``spark``) and
    ``spark_con`` (a Spark-engine connection). With ``with_spark``, ``write(root, spark)`` is
    given the test session too, for tables Spark writes."""

    @pytest.fixture(scope="module", name="tables")
    def tables(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
        root = tmp_path_factory.mktemp(name)
        return dict(write(root, spark) if with_spark else write(root))

    @pytest.fixture(scope="module", name="spark_views")
    def spark_views(spark: SparkSession, tables: dict[str, Path]) -> SparkSession:
        return register_views(spark, tables)

    if both_engines:
        @pytest.fixture(scope="module", name="con", params=["duckdb", "spark"])
        def con(request: pytest.FixtureRequest, spark: SparkSession, tables: dict[str, Path]) -> vpush.Connection:
            return connect_tables(tables, spark if request.param == "spark" else None)
    else:
        @pytest.fixture(scope="module", name="con")
        def con(tables: dict[str, Path]) -> vpush.Connection:
            return connect_tables(tables)

    @pytest.fixture(scope="module", name="spark_con")
    def spark_con(spark: SparkSession, tables: dict[str, Path]) -> vpush.Connection:
        return connect_tables(tables, spark)

    return tables, spark_views, con, spark_con
