"""The scan schema the Spark engine derives from the plan is the one DuckDB gives by running the
scan's query on no rows: for plain columns of many Arrow types and extractions of many target
types, in two time zones. (Every scan the Spark engine runs in the suite is checked the same way,
``tests/conftest.py``; this covers types the other tests' tables lack.)"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import vpush
from support.writers import write_with_duckdb
from vpush.exec.derive_scan_schema import derive_scan_schema
from vpush.exec.spark_engine import duckdb_scan_schema

TARGETS = (
    "boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "decimal(5,2)",
    "decimal(38,10)", "date", "timestamp", "timestamp_ntz", "string", "binary", "variant",
    "array<bigint>", "array<array<string>>", "map<string,int>", "struct<a:int,`b c`:array<timestamp>>",
    "array<struct<x:variant>>",
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file with a shredded variant ``v`` and plain columns of many Arrow types."""
    root = tmp_path_factory.mktemp("derive")
    write_with_duckdb(
        root / "v.parquet",
        "SELECT i AS id, {'a': i, 's': 's' || i, 't': make_timestamp(i)}::VARIANT AS v FROM range(10) t(i)",
        "STRUCT(a BIGINT, s VARCHAR, t TIMESTAMPTZ)",
        2048,
    )
    base = pq.read_table(root / "v.parquet")
    n = base.num_rows
    plain = {
        "flag": pa.array([True] * n),
        "u8": pa.array(range(n), pa.uint8()),
        "f32": pa.array([1.5] * n, pa.float32()),
        "dec": pa.array([None] * n, pa.decimal128(12, 3)),
        "day": pa.array([None] * n, pa.date32()),
        "ns": pa.array(range(n), pa.timestamp("ns")),
        "ms_utc": pa.array(range(n), pa.timestamp("ms", tz="UTC")),
        "text": pa.array(["x"] * n, pa.large_string()),
        "blob": pa.array([b"x"] * n, pa.binary()),
        "items": pa.array([[1, 2]] * n, pa.list_(pa.int32())),
        "pairs": pa.array([[("k", 1)]] * n, pa.map_(pa.string(), pa.int64())),
        "rec": pa.array([{"a": 1, "b": "x"}] * n, pa.struct([("a", pa.int16()), ("b", pa.string())])),
    }
    table = base
    for name, array in plain.items():
        table = table.append_column(name, array)
    pq.write_table(table, root / "v.parquet", store_schema=False)
    return root


@pytest.mark.parametrize("time_zone", ["UTC", "America/New_York"])
def test_derived_schema_is_duckdbs(folder: Path, time_zone: str) -> None:
    """Every plain column and every target type: the derived schema equals DuckDB's exactly."""
    con = vpush.connect(time_zone=time_zone)
    con.register("t", folder)
    extractions = ", ".join(f"variant_get(v, '$.a', '{t}') AS x{i}" for i, t in enumerate(TARGETS))
    extractions += ", v:s::string AS s, v:t::timestamp AS ts, variant_get(v, '$.missing', 'int') AS m"
    for sql in (
        f"SELECT *, {extractions} FROM t",
        "SELECT count(*) FROM t WHERE v:a::bigint > 3",
        "SELECT id FROM t WHERE v:a::int > 3",
    ):
        plan = con.sql(sql).plan
        for scan in plan.scans:
            derived = derive_scan_schema(scan, time_zone)
            assert derived is not None, f"Should derive the schema of every type here: {sql}"
            expected = duckdb_scan_schema(plan, scan, time_zone)
            assert derived.equals(expected, check_metadata=True), f"{sql}\n{derived}\n!=\n{expected}"


def test_an_unknown_type_falls_back_to_duckdb(tmp_path: Path) -> None:
    """A plain column of a type the derivation does not know (a duration) gives None, so that
    the engine asks DuckDB."""
    write_with_duckdb(tmp_path / "v.parquet", "SELECT i AS id, {'a': i}::VARIANT AS v FROM range(3) t(i)",
                      "STRUCT(a BIGINT)", 2048)  # fmt: skip
    table = pq.read_table(tmp_path / "v.parquet")
    table = table.append_column("took", pa.array([1, 2, 3], pa.duration("us")))
    pq.write_table(table, tmp_path / "v.parquet")
    con = vpush.connect(time_zone="UTC")
    con.register("t", tmp_path)
    plan = con.sql("SELECT took, v:a::bigint AS a FROM t").plan
    assert derive_scan_schema(plan.scans[0], "UTC") is None, "Should fall back: durations are not derived"
