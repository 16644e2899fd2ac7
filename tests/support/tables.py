"""Tables registered by name on a vpush connection (either engine) and as Spark views, for the
tests that compare the two over the same files."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

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
