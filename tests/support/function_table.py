"""The table the variant-function tests run over, on Spark and on vpush alike.

Three files in one folder: written by Spark (shredded, with residuals), by DuckDB (shredded) and
by DuckDB (not shredded, ids 200 to 214), holding SQL NULLs, variant nulls, top-level scalars of
every type Spark writes, nested objects and arrays, and JSON strings (column ``j``).
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import vpush
from support.writers import write_with_duckdb, write_with_spark

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

JSON_TEXTS = "CASE id % 5 WHEN 0 THEN '{\"x\": 5, \"y\": [1]}' WHEN 1 THEN '[1,2' WHEN 2 THEN NULL WHEN 3 THEN '1.50' ELSE '\"é\"' END"
SPARK_SELECT = f"""
SELECT id, {JSON_TEXTS} AS j, CASE id % 9
  WHEN 0 THEN NULL
  WHEN 1 THEN parse_json('null')
  WHEN 2 THEN parse_json(concat('{{"a": ', id, ', "s": "k', id % 4, '", "o": {{"x": ', id % 5, ', "y": [1, 2.50, "z", null]}}}}'))
  WHEN 3 THEN parse_json('{{"a": null, "o": {{"x": null}}, "arr": [[], {{}}, 1e3, {{"b": 1}}]}}')
  WHEN 4 THEN to_variant_object(named_struct('a', cast(id AS int), 'ts', timestamp_seconds(1704067200 + id * 3600),
    'd', date_from_unix_date(id * 1000), 'dec', cast(id / 7 AS decimal(12, 4)), 'f', cast(id / 3 AS float),
    'b', cast(concat('b', id) AS binary), 'ntz', cast(timestamp_seconds(1704067200 + id) AS timestamp_ntz)))
  WHEN 5 THEN cast(cast(id * 1.5 AS decimal(10, 2)) AS variant)
  WHEN 6 THEN cast(concat('s', id, '"\\n/') AS variant)
  WHEN 7 THEN parse_json(concat('[', id, ', 1.5e300, -0.0, "\\\\u00e9\\\\u0001", {{"a": [1, 2]}}]'))
  ELSE cast(id / 3.0D AS variant)
END AS v
FROM range(0, 45)
"""
DUCKDB_SELECT = f"""
SELECT i AS id, {JSON_TEXTS.replace('id %', 'i %')} AS j, CASE i % 5
  WHEN 0 THEN {{'a': i, 's': 'k' || (i % 4), 'o': {{'x': i % 5, 'y': 'y' || i}}}}::VARIANT
  WHEN 1 THEN NULL
  WHEN 2 THEN (i * 2.5)::DOUBLE::VARIANT
  WHEN 3 THEN '{{"a": "str", "arr": [1, null, 2.5]}}'::JSON::VARIANT
  ELSE {{'a': i::INTEGER, 'ts': make_timestamptz(1704067200000000 + i * 1000000), 'd': (i / 100)::DECIMAL(10,2)}}::VARIANT
END AS v
FROM range(100, 130) t(i)
"""
# Ids of the rows DuckDB wrote without shredding: vpush returns their stored bytes as they are.
UNSHREDDED_IDS = range(200, 215)


def write_function_table(spark: SparkSession, root: Path) -> Path:
    """Write the table's three files to ``root / "t"`` and show them to Spark as the view ``t``."""
    folder = root / "t"
    folder.mkdir()
    for i, f in enumerate(write_with_spark(spark, root / "spark", SPARK_SELECT, "a bigint, s string, o struct<x bigint>")):
        shutil.copy(f, folder / f"part-s{i}.parquet")
    write_with_duckdb(folder / "part-d.parquet", DUCKDB_SELECT, "STRUCT(a BIGINT, o STRUCT(x BIGINT))", 2048)
    write_with_duckdb(folder / "part-u.parquet", DUCKDB_SELECT.replace("range(100, 130)", "range(200, 215)"), None, 2048)
    spark.read.parquet(str(folder)).createOrReplaceTempView("t")
    return folder


def connect_function_table(spark: SparkSession, root: Path) -> vpush.Connection:
    """Write the table under ``root`` (see :func:`write_function_table`) and return a UTC
    connection with it registered as ``t``, as Spark sees it."""
    connection = vpush.connect(time_zone="UTC")
    connection.register("t", write_function_table(spark, root))
    return connection
