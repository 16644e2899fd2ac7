"""Spark's variable substitution in SQL text (``${name}``, on by default): Spark replaces each
reference before it parses, in string literals and identifiers alike; vpush does the same on both
engines, checked against PySpark, and the DuckDB engine refuses what it cannot know."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pytest

import vpush
from support.tables import table_folder
from vpush import VpushError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Unset configuration keys are '' (also under Spark's prefixes), an unknown prefix and a missing
# environment variable keep the reference, a value of the environment is the JVM's (inherited)
QUERIES = [
    "SELECT '${a}x' AS c, '${hivevar:zz}|${hiveconf:q}|${sparkconf:my.key}|${spark:k}' AS d, '${foo:b}' AS e",
    "SELECT '${env:HOME}' AS h, '${env:VPUSH_NO_SUCH_VARIABLE}' AS m, '${ a}|${}|${a b}|$${a}}|${a' AS odd",
    "SELECT 1 AS c${a}d, x${x} FROM t${t} WHERE x > ${nothing}0",
    "SELECT regexp_replace(CAST(x AS STRING), '(1)', 'q${g}r') AS r FROM t",
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return table_folder(tmp_path_factory.mktemp("variables"), pa.table({"x": [1, 2, 3]}))


def _rows(frame: object) -> list[dict[str, object]]:
    return [row.asDict() for row in frame.collect()]  # type: ignore[attr-defined]


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize("sql", QUERIES)
def test_substituted_as_spark(sql: str, engine: str, spark: SparkSession, folder: Path) -> None:
    spark.read.parquet(str(folder)).createOrReplaceTempView("t")
    wanted = spark.sql(sql)
    con = vpush.connect(engine=engine, spark=spark if engine == "spark" else None, time_zone="UTC")
    con.register("t", folder)
    got = con.sql(sql).to_arrow()
    assert got.column_names == wanted.columns
    assert sorted(map(str, got.to_pylist())) == sorted(map(str, _rows(wanted)))


def test_the_spark_engine_reads_its_session(spark: SparkSession) -> None:
    sql = "SELECT '${spark.sql.session.timeZone}' AS z, '${system:java.version}' AS v, '${spark.master}' AS m"
    got = vpush.connect(engine="spark", spark=spark).sql(sql).to_arrow().to_pylist()
    assert got == _rows(spark.sql(sql)) and got[0]["z"] == "UTC" and got[0]["v"]


def test_an_unset_key_spark_checks_raises_as_spark(spark: SparkSession) -> None:
    """Spark reads an unset key as '' checked against the key's type: a boolean's fails."""
    sql = "SELECT '${spark.sql.ansi.enabled}' AS a"
    with pytest.raises(Exception) as spark_raised:
        spark.sql(sql).collect()
    wanted = spark_raised.value.getCondition()  # type: ignore[attr-defined]
    assert wanted == "INVALID_CONF_VALUE.TYPE_MISMATCH"
    with pytest.raises(VpushError) as raised:
        vpush.connect(engine="spark", spark=spark).sql(sql).to_arrow()
    assert raised.value.error_class == wanted


@pytest.mark.parametrize("sql", ["SELECT '${spark.app.name}' AS n", "SELECT '${system:user.name}' AS u", "SELECT '${hiveconf:spark.master}'"])
def test_refused_on_duckdb(sql: str) -> None:
    """Spark's own configuration and the JVM's system properties: the DuckDB engine has neither."""
    with pytest.raises(VpushError) as raised:
        vpush.connect(time_zone="UTC").sql(sql).to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"
    assert "${" in str(raised.value)
