"""Hive-style partition folders: Spark's type inference and values, checked against PySpark."""
from __future__ import annotations

import datetime as dt
import decimal
import math
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sqlglot
from sqlglot import exp

from vpush.optimizer.bind_sqlglot import bind_sqlglot
from vpush.optimizer.bound import ColumnRef, PartitionRef, SqlType
from vpush.optimizer.catalog import Catalog
from vpush.optimizer.errors import CatalogError
from vpush.optimizer.evaluate_row_groups import ROWS_CANNOT_MATCH, InclusiveStatsEvaluator
from vpush.optimizer.partitions import (
    Partitioning,
    discover_partitions,
    infer_partition_type,
    unescape_path_name,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

UTC = dt.timezone.utc
D = decimal.Decimal

# Each column is one inference case: the raw (escaped) folder values its files take, cycled.
CASES: dict[str, list[str]] = {
    "c_int": ["1", "01", "-5", "+7", "-0"],
    "c_big": ["1", "2147483648"],
    "c_dec": ["1", "99999999999999999999", "3000000000"],
    "c_exp": ["1e3", "1.5e1"],
    "c_dbl": ["1.5", "2"],
    "c_dblbig": ["1.5", "2147483648"],
    "c_special": ["NaN", "1", "Infinity", "-Infinity", "1.5d"],
    "c_blank": [" 1", "0x1p3"],
    "c_date": ["2024-01-05", "2024-02-29"],
    "c_baddate": ["2024-02-30", "2024-01-05"],
    "c_ts": ["2024-01-05 10%3A00%3A00", "2024-01-05 10%3A00%3A00.5"],
    "c_dts": ["2024-01-05", "2024-01-05 10%3A00%3A00"],
    "c_ts6": ["2024-01-05 10%3A00%3A00.123456"],
    "c_null": ["__HIVE_DEFAULT_PARTITION__", "3"],
    "c_allnull": ["__HIVE_DEFAULT_PARTITION__"],
    "c_str": ["a%20b", "x%2Fy", "%C3%A9", "%zz", "a=b"],
    "c_mixed": ["01", "a"],
    "c_intdate": ["1", "2024-01-05"],
    "c_bool": ["true"],
}
FILES = max(len(v) for v in CASES.values())


def _folder(root: Path) -> list[str]:
    files = []
    for i in range(FILES):
        parts = [f"{name}={values[i % len(values)]}" for name, values in CASES.items()]
        folder = root.joinpath(*parts)
        folder.mkdir(parents=True)
        path = folder / f"part-{i}.parquet"
        pq.write_table(pa.table({"x": [i]}), path)
        files.append(str(path))
    return files


def _comparable(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, dt.datetime):
        return round((value - dt.datetime(1970, 1, 1, tzinfo=UTC)).total_seconds() * 1_000_000)
    return value


@pytest.mark.spark
def test_inference_matches_spark(tmp_path: Path, spark: SparkSession) -> None:
    root = tmp_path / "t"
    files = _folder(root)
    partitioning = Catalog().register("t", root).partitioning
    frame = spark.read.parquet(str(root))
    spark_types = {f.name: f.dataType.simpleString() for f in frame.schema.fields if f.name != "x"}
    ours = {f.name: str(f.type) for f in partitioning.fields}
    assert ours == spark_types, "Should infer Spark's partition column types"
    columns = ", ".join(
        f"unix_micros({name}) AS {name}" if spark_types[name] == "timestamp" else name for name in CASES
    )
    rows = {r["x"]: r.asDict() for r in frame.selectExpr("x", *columns.split(", ")).collect()}
    for i, path in enumerate(sorted(files, key=lambda p: int(Path(p).stem.split("-")[1]))):
        values = partitioning.values(path, session_time_zone="UTC")
        for name in CASES:
            assert _comparable(values[name]) == _comparable(rows[i][name]), (
                f"Should read {name} of file {i} as Spark does"
            )


@pytest.mark.spark
def test_conflicts_fail_like_spark(tmp_path: Path, spark: SparkSession) -> None:
    for name, folders in {"names": ["a=1", "b=2"], "bases": ["x/a=1", "y/a=2"]}.items():
        root = tmp_path / name
        for i, folder in enumerate(folders):
            (root / folder).mkdir(parents=True)
            pq.write_table(pa.table({"x": [i]}), root / folder / f"part-{i}.parquet")
        with pytest.raises(CatalogError, match="conflicting"):
            Catalog().register(name, root)
        with pytest.raises(Exception, match="CONFLICTING"):
            spark.read.parquet(str(root)).collect()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1", "int"),
        ("-0", "int"),
        ("2147483648", "bigint"),
        ("9223372036854775808", "decimal(19,0)"),
        ("1e3", "decimal(4,0)"),
        ("1.50e1", "double"),
        ("1.5", "double"),
        ("NaN", "double"),
        ("-Infinity", "double"),
        ("1.5f", "double"),
        ("0x1.8p1", "double"),
        ("nan", "string"),
        ("1_000", "string"),
        ("2024-01-05", "date"),
        ("2024-1-5", "string"),
        ("2024-01-05 10%3A00%3A00", "timestamp"),
        ("2024-01-05 10%3A00%3A00.12", "string"),
        ("2024-01-05T10%3A00%3A00", "string"),
        ("__HIVE_DEFAULT_PARTITION__", "void"),
        ("true", "string"),
    ],
)
def test_infer_partition_type(raw: str, expected: str) -> None:
    assert str(infer_partition_type(raw)) == expected


def test_unescape_path_name() -> None:
    assert unescape_path_name("a%3Db") == "a=b"
    assert unescape_path_name("100%") == "100%", "Should keep a trailing %"
    assert unescape_path_name("%4") == "%4"
    assert unescape_path_name("%C3%A9") == "\u00c3\u00a9", "Should map %XX to U+00XX, as Spark does"


def test_values_and_time_zones() -> None:
    p = discover_partitions("/t", ["/t/ts=2024-01-05 10%3A00%3A00/d=2024-01-05/a.parquet",
                                   "/t/ts=2024-01-06/d=__HIVE_DEFAULT_PARTITION__/b.parquet"])
    assert [(f.name, str(f.type)) for f in p.fields] == [("ts", "timestamp"), ("d", "date")]
    assert p.values("/t/ts=2024-01-05 10%3A00%3A00/d=2024-01-05/a.parquet", session_time_zone="Europe/Paris") == {
        "ts": dt.datetime(2024, 1, 5, 9, tzinfo=UTC),
        "d": dt.date(2024, 1, 5),
    }
    assert p.values("/t/ts=2024-01-06/d=__HIVE_DEFAULT_PARTITION__/b.parquet") == {
        "ts": dt.datetime(2024, 1, 6, tzinfo=UTC),
        "d": None,
    }
    with pytest.raises(CatalogError):
        p.values("/t/other.parquet")


def test_folder_walk() -> None:
    deep = discover_partitions("/t", ["/t/a=1/x/f.parquet", "/t/a=2/x/g.parquet"])
    assert deep.names == ("a",), "Should skip plain folders below the partition folders"
    mid = discover_partitions("/t", ["/t/a=1/x/b=2/f.parquet"])
    assert mid.names == ("b",), "Should stop at a plain folder above a partition folder"
    plain = discover_partitions("/t", ["/t/x/f.parquet", "/t/g.parquet"])
    assert plain == Partitioning(), "Should find no partitions without key=value folders"
    assert discover_partitions("/t", ["/t/P=1/f.parquet", "/t/p=2/g.parquet"]).names == ("P",), (
        "Should match names ignoring case"
    )


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (["/t/a=1/f.parquet", "/t/b=1/g.parquet"], "conflicting partition column names"),
        (["/t/x/a=1/f.parquet", "/t/y/a=1/g.parquet"], "conflicting directory structures"),
        (["/t/a=1/f.parquet", "/t/g.parquet"], "beside partition folders"),
        (["/t/a=/f.parquet"], "empty partition column value"),
        (["/t/=1/f.parquet"], "empty partition column name"),
        (["/t/a=1/A=2/f.parquet"], "appears twice"),
    ],
)
def test_inconsistent_folders(files: list[str], message: str) -> None:
    with pytest.raises(CatalogError, match=message):
        discover_partitions("/t", files)


def test_partition_pruning_drops_files(tmp_path: Path) -> None:
    root = tmp_path / "events"
    for year, month in [(2023, "12"), (2024, "01"), (2024, "02")]:
        folder = root / f"year={year}" / f"month={month}"
        folder.mkdir(parents=True)
        pq.write_table(pa.table({"id": [year * 100 + int(month)]}), folder / "part-0.parquet")
    catalog = Catalog()
    table = catalog.register("events", root)
    fields = {f.name: f.type for f in table.partitioning.fields}
    assert {k: str(v) for k, v in fields.items()} == {"year": "int", "month": "int"}

    def resolve(node: exp.Expression) -> PartitionRef | ColumnRef | None:
        if isinstance(node, exp.Column) and node.name in fields:
            return PartitionRef(node.name, fields[node.name])
        if isinstance(node, exp.Column) and node.name == "id":
            return ColumnRef("id", SqlType("bigint"))
        return None

    predicate = bind_sqlglot(sqlglot.parse_one("year = 2024 AND month >= '02'", read="spark"), resolve)
    evaluator = InclusiveStatsEvaluator(predicate)
    kept = [
        f for f in table.files
        if evaluator.evaluate_file(table.partitioning.values(f), catalog.file_info(f).statistics)
        != ROWS_CANNOT_MATCH
    ]
    assert [Path(f).parent.name for f in kept] == ["month=02"], "Should keep only year=2024/month=02"


def test_unpartitioned_locations(tmp_path: Path) -> None:
    path = tmp_path / "a=1" / "f.parquet"
    path.parent.mkdir()
    pq.write_table(pa.table({"x": [1]}), path)
    assert Catalog().register("t", path).partitioning == Partitioning(), "Should not partition a single file"
    assert Catalog().register("t", tmp_path).partitioning.names == ("a",)
