"""Round trips with the real writers, through the public API.

Files written by DuckDB and by Spark (several shredding schemas, residuals in some row groups
only, values built from typed SQL values and from JSON) read by vpush give the same variants as
Spark reads from the same files; files vpush writes are read back by DuckDB and by Spark.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pytest
from support.writers import leaf_counts, write_with_duckdb, write_with_spark

import vpush
from vpush.codec.builder import encode
from vpush.codec.shred import write_shredded_parquet
from vpush.codec.value import Variant, variant_equal

ROWS = 5000

# Typed Spark SQL values: a shredded object with a residual in rows 2100..2149 only (a string in
# the bigint field `a`), nested objects, arrays, decimals, dates, timestamps, and rows that are
# not objects at all.
SPARK_SELECT = f"""
SELECT id, CASE
  WHEN id % 11 = 0 THEN parse_json('{{"a": 1, "extra": {{"k": [1, "x", null]}}}}')
  WHEN id % 13 = 0 THEN cast(id AS variant)
  WHEN id % 17 = 0 THEN NULL
  WHEN id % 19 = 0 THEN parse_json('null')
  WHEN id BETWEEN 2100 AND 2149 THEN to_variant_object(named_struct('a', 'n/a', 'b', cast(id AS string)))
  ELSE to_variant_object(named_struct(
    'a', id, 'b', concat('s', cast(id AS string)),
    'c', named_struct('d', cast(id AS double) / 4, 'e', cast(id AS decimal(12, 2))),
    'tags', array(cast(id % 3 AS string), 'z'),
    'day', date_add(date'2024-01-01', cast(id % 400 AS int)),
    'ts', timestamp_micros(1700000000000000 + id * 1000003)))
END AS v
FROM range({ROWS})
"""

SPARK_SCHEMAS = [
    "a bigint, b string, c struct<d double, e decimal(12,2)>, tags array<string>, day date, ts timestamp",
    "a bigint",
    "c struct<d double>, tags array<string>",
    "a string, b bigint",  # wrong-typed shredding: most values land in the residuals
]

DUCKDB_SELECT = f"""
SELECT i AS id, CASE
  WHEN i % 11 = 0 THEN '{{"a": 1, "extra": {{"k": [1, "x", null]}}}}'::JSON::VARIANT
  WHEN i % 13 = 0 THEN i::VARIANT
  WHEN i % 17 = 0 THEN NULL
  WHEN i BETWEEN 2100 AND 2149 THEN {{'a': 'n/a', 'b': i::VARCHAR}}::VARIANT
  ELSE {{'a': i::BIGINT, 'b': 's' || i::VARCHAR,
        'c': {{'d': i::DOUBLE / 4, 'e': i::DECIMAL(12, 2)}},
        'tags': [(i % 3)::VARCHAR, 'z'],
        'day': DATE '2024-01-01' + (i % 400)::INTEGER,
        'ts': make_timestamp(1700000000000000 + i * 1000003)}}::VARIANT
END AS v
FROM range({ROWS}) t(i)
"""

DUCKDB_SCHEMAS = [
    "STRUCT(a BIGINT, b VARCHAR, c STRUCT(d DOUBLE, e DECIMAL(12, 2)), tags VARCHAR[], day DATE, ts TIMESTAMP)",
    "STRUCT(a BIGINT)",
    "STRUCT(a VARCHAR, b BIGINT)",
    None,
]


def _vpush_rows(path: Path) -> list[Any]:
    con = vpush.connect(time_zone="UTC")
    con.register("t", path)
    table = con.sql("SELECT id, v FROM t ORDER BY id").to_arrow()
    assert table.schema.field("v").type == pa.struct([("metadata", pa.binary()), ("value", pa.binary())])
    return table.to_pylist()


def _spark_rows(spark: Any, path: Path) -> list[Any]:
    return [(r["id"], r["v"]) for r in spark.read.parquet(str(path)).orderBy("id").collect()]


def _assert_same(vpush_rows: list[Any], spark_rows: list[Any]) -> None:
    assert len(vpush_rows) == len(spark_rows) == ROWS
    for mine, (sid, sv) in zip(vpush_rows, spark_rows):
        assert mine["id"] == sid
        if sv is None:
            assert mine["v"] is None, f"row {sid}: SQL NULL"
            continue
        assert mine["v"] is not None, f"row {sid}: should not be SQL NULL"
        got = Variant(mine["v"]["metadata"], mine["v"]["value"])
        want = Variant(bytes(sv.metadata), bytes(sv.value))
        assert variant_equal(got, want), f"row {sid}: vpush {got!r} != Spark {want!r}"


@pytest.mark.parametrize("schema", SPARK_SCHEMAS)
def test_spark_written_files_read_as_spark_reads_them(spark: Any, tmp_path: Path, schema: str) -> None:
    files = write_with_spark(spark, tmp_path / "t", SPARK_SELECT, schema, row_group_size_rows=1000)
    counts = leaf_counts(files[0])
    assert len(counts) == 5, "five row groups"
    if schema.startswith("a bigint"):
        residual = [rg.get("v.typed_value.a.value", (0, 0))[0] for rg in counts]
        assert residual[2] > 0 and residual[0] == residual[4] == 0, f"residuals only in row group 2: {residual}"
    _assert_same(_vpush_rows(tmp_path / "t"), _spark_rows(spark, tmp_path / "t"))


@pytest.mark.parametrize("schema", DUCKDB_SCHEMAS)
def test_duckdb_written_files_read_as_spark_reads_them(spark: Any, tmp_path: Path, schema: str | None) -> None:
    path = tmp_path / "t" / "part-0.parquet"
    write_with_duckdb(path, DUCKDB_SELECT, schema, 2048)
    _assert_same(_vpush_rows(tmp_path / "t"), _spark_rows(spark, tmp_path / "t"))


def test_vpush_written_files_read_by_duckdb_and_spark(spark: Any, tmp_path: Path) -> None:
    values: list[Any] = []
    for i in range(ROWS):
        if i % 17 == 0:
            values.append(None)
        elif 2100 <= i < 2150:
            values.append({"a": "n/a", "b": str(i)})
        elif i % 13 == 0:
            values.append([i, "x", None])
        else:
            values.append({"a": i, "b": f"s{i}", "c": {"d": i / 4}, "tags": [str(i % 3), "z"]})
    encoded = [None if v is None else dict(zip(("metadata", "value"), encode(v))) for v in values]
    variant_type = pa.struct([pa.field("metadata", pa.binary(), nullable=False), pa.field("value", pa.binary())])
    table = pa.table({"id": pa.array(range(ROWS), pa.int64()), "v": pa.array(encoded, variant_type)})
    out = tmp_path / "vpush" / "part-0.parquet"
    out.parent.mkdir()
    write_shredded_parquet(
        table, out, {"v": "a bigint, b string, c struct<d double>, tags array<string>"}, row_group_size=1000
    )
    # Spark reads the file as variant, and its values are the ones vpush wrote.
    _assert_same(_vpush_rows(out.parent), _spark_rows(spark, out.parent))
    spark_rows = _spark_rows(spark, out.parent)
    for (sid, sv), want in zip(spark_rows, values):
        if want is None:
            assert sv is None
        else:
            assert Variant(bytes(sv.metadata), bytes(sv.value)).to_python() == want, f"row {sid}"
    # DuckDB reads it as VARIANT too.
    con = duckdb.connect()
    kinds = con.execute(f"SELECT typeof(v) FROM read_parquet('{out}') LIMIT 1").fetchall()
    assert kinds == [("VARIANT",)]
    got = con.execute(
        f"SELECT id, v.b::VARCHAR FROM read_parquet('{out}') WHERE id IN (1, 2100) ORDER BY id"
    ).fetchall()
    assert got == [(1, "s1"), (2100, "2100")]
