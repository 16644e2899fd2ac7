"""Footer statistics as typed values: files from pyarrow, DuckDB and Spark."""
from __future__ import annotations

import datetime as dt
import decimal
import math
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from support.writers import leaf_counts, write_with_duckdb, write_with_spark

from vpush.codec.header import VariantType
from vpush.optimizer.catalog import Catalog
from vpush.optimizer.statistics import ColumnStatistics, FileStatistics, file_statistics

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

UTC = dt.timezone.utc
D = decimal.Decimal


def _stats(path: Path) -> FileStatistics:
    return file_statistics(pq.ParquetFile(path).metadata)


def _column(stats: FileStatistics, path: str, row_group: int = 0) -> ColumnStatistics:
    found = stats.row_groups[row_group].column(path)
    assert found is not None, f"Should have statistics for {path}"
    return found


@pytest.fixture(scope="module")
def pyarrow_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stats") / "types.parquet"
    table = pa.table(
        {
            "i8": pa.array([1, -3, None], pa.int8()),
            "u32": pa.array([1, 2**32 - 1, None], pa.uint32()),
            "d_flba": pa.array([D("1.25"), D("-3.50"), None], pa.decimal128(5, 2)),
            "d_wide": pa.array([D("1.25"), D("-3.50"), None], pa.decimal128(30, 2)),
            "day": pa.array([dt.date(2024, 1, 1), dt.date(1960, 1, 1), None]),
            "ts_utc": pa.array([1, 2, None], pa.timestamp("us", "UTC")),
            "ts_ntz": pa.array([1, 2, None], pa.timestamp("us")),
            "ts_ms": pa.array([1, 2, None], pa.timestamp("ms")),
            "ts_ns": pa.array([1500, 2001, None], pa.timestamp("ns", "UTC")),
            "time": pa.array([1, 2, None], pa.time64("us")),
            "f32": pa.array([1.5, math.nan, None], pa.float32()),
            "f64": pa.array([math.nan, 2.5, -0.0], pa.float64()),
            "all_nan": pa.array([math.nan, math.nan, None], pa.float64()),
            "s": pa.array(["b", "é", None]),
            "empty_s": pa.array(["", "m", None]),
            "bin": pa.array([b"\xff", b"", None]),
            "flag": pa.array([True, None, True]),
            "id": pa.array([uuid.UUID(int=5).bytes, uuid.UUID(int=1).bytes, None], pa.uuid()),
            "nothing": pa.array([None, None, None], pa.int64()),
            "lst": pa.array([[1, 2, 3], [], None], pa.list_(pa.int64())),
        }
    )
    pq.write_table(table, path)
    return path


@pytest.mark.parametrize(
    ("column", "low", "high", "exact", "variant_type"),
    [
        ("i8", -3, 1, True, VariantType.INT8),
        ("u32", 1, 2**32 - 1, True, VariantType.INT64),
        ("d_flba", D("-3.50"), D("1.25"), True, VariantType.DECIMAL4),
        ("d_wide", D("-3.50"), D("1.25"), True, VariantType.DECIMAL16),
        ("day", dt.date(1960, 1, 1), dt.date(2024, 1, 1), True, VariantType.DATE),
        (
            "ts_utc",
            dt.datetime(1970, 1, 1, 0, 0, 0, 1, UTC),
            dt.datetime(1970, 1, 1, 0, 0, 0, 2, UTC),
            True,
            VariantType.TIMESTAMP,
        ),
        ("ts_ntz", dt.datetime(1970, 1, 1, 0, 0, 0, 1), dt.datetime(1970, 1, 1, 0, 0, 0, 2), True,
         VariantType.TIMESTAMP_NTZ),
        ("ts_ms", dt.datetime(1970, 1, 1, 0, 0, 0, 1000), dt.datetime(1970, 1, 1, 0, 0, 0, 2000), True,
         VariantType.TIMESTAMP_NTZ),
        # Nanoseconds widen outward to whole microseconds: 1500 ns -> 1 us, 2001 ns -> 3 us.
        (
            "ts_ns",
            dt.datetime(1970, 1, 1, 0, 0, 0, 1, UTC),
            dt.datetime(1970, 1, 1, 0, 0, 0, 3, UTC),
            False,
            VariantType.TIMESTAMP_NANOS,
        ),
        ("time", dt.time(0, 0, 0, 1), dt.time(0, 0, 0, 2), True, VariantType.TIME),
        ("f32", 1.5, 1.5, True, VariantType.FLOAT),
        ("f64", -0.0, 2.5, True, VariantType.DOUBLE),
        ("s", "b", "é", False, VariantType.STRING),
        ("empty_s", "", "m", False, VariantType.STRING),
        ("bin", b"", b"\xff", False, VariantType.BINARY),
        ("flag", True, True, True, VariantType.BOOLEAN),
        ("id", uuid.UUID(int=1).bytes, uuid.UUID(int=5).bytes, True, VariantType.UUID),
    ],
)
def test_typed_bounds_per_logical_type(
    pyarrow_file: Path, column: str, low: object, high: object, exact: bool, variant_type: VariantType
) -> None:
    stats = _stats(pyarrow_file)
    col = _column(stats, column)
    assert (col.min, col.max) == (low, high), f"Should give typed bounds for {column}"
    assert type(col.min) is type(low), f"Should give {type(low).__name__} bounds for {column}"
    assert col.bounds_exact is exact, f"Should mark {column} bounds exact={exact}"
    assert stats.leaves[column].variant_type == variant_type


def test_decimal_bounds_keep_their_scale(pyarrow_file: Path) -> None:
    col = _column(_stats(pyarrow_file), "d_flba")
    assert col.min.as_tuple().exponent == -2, "Should keep the column's scale (2)"


def test_aware_and_naive_timestamps(pyarrow_file: Path) -> None:
    stats = _stats(pyarrow_file)
    assert _column(stats, "ts_utc").min.tzinfo is not None, "Should be aware for isAdjustedToUTC"
    assert _column(stats, "ts_ntz").min.tzinfo is None, "Should be naive without isAdjustedToUTC"


def test_counts_are_non_null_and_null(pyarrow_file: Path) -> None:
    stats = _stats(pyarrow_file)
    counts = leaf_counts(pyarrow_file)[0]
    for path, col in stats.row_groups[0].columns.items():
        assert col is not None
        assert (col.non_null_count, col.null_count) == counts[path], f"Should match the footer for {path}"
        assert col.num_rows == 3


def test_nan_drops_bounds_but_not_counts(pyarrow_file: Path) -> None:
    stats = _stats(pyarrow_file)
    all_nan = _column(stats, "all_nan")
    assert not all_nan.has_min_max, "Should have no bounds for a NaN-only chunk"
    assert all_nan.non_null_count == 2, "Should still count the NaN values as values"
    # pyarrow leaves NaN out of min/max: the bounds of f64 ignore its NaN row.
    assert _column(stats, "f64").max == 2.5


def test_all_null_column(pyarrow_file: Path) -> None:
    col = _column(_stats(pyarrow_file), "nothing")
    assert not col.has_min_max and col.all_null, "Should be all-null without bounds"
    assert (col.null_count, col.non_null_count) == (3, 0)


def test_list_leaves_count_elements_and_are_marked(pyarrow_file: Path) -> None:
    stats = _stats(pyarrow_file)
    col = _column(stats, "lst.list.element")
    assert col.repeated and stats.leaves["lst.list.element"].repeated, "Should mark leaves under a list"
    assert (col.non_null_count, col.null_count) == (3, 2), "Should count elements (and empty/null lists)"
    assert not col.all_null, "Should never call a repeated leaf all-null"


def test_missing_statistics_are_none(tmp_path: Path) -> None:
    path = tmp_path / "nostats.parquet"
    pq.write_table(pa.table({"a": [1, 2], "b": [3, 4]}), path, write_statistics=["b"])
    stats = _stats(path)
    assert stats.row_groups[0].column("a") is None, "Should give None without statistics"
    assert stats.row_groups[0].column("b") is not None
    assert stats.merged.column("a") is None, "Should merge missing statistics to None"


def test_merged_file_statistics(tmp_path: Path) -> None:
    path = tmp_path / "rg.parquet"
    pq.write_table(pa.table({"a": [5, None, None, None, 1, 9]}), path, row_group_size=2)
    stats = _stats(path)
    assert [rg.column("a").non_null_count for rg in stats.row_groups] == [1, 0, 2]  # type: ignore[union-attr]
    merged = stats.merged.column("a")
    assert merged is not None
    assert (merged.min, merged.max, merged.null_count, merged.non_null_count) == (1, 9, 3, 3)
    assert stats.merged.num_rows == 6 and stats.merged.row_group == -1


def test_catalog_caches_statistics(tmp_path: Path) -> None:
    path = tmp_path / "c.parquet"
    pq.write_table(pa.table({"a": [1]}), path)
    catalog = Catalog()
    info = catalog.file_info(str(path))
    assert info.statistics is info.statistics, "Should compute statistics once per footer"
    assert catalog.file_info(str(path)).statistics is info.statistics, "Should come from the cache"


@pytest.fixture(scope="module")
def duckdb_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("duck") / "d.parquet"
    select = """
        SELECT i AS id,
               CASE WHEN i = 3000 THEN {'a': 'n/a'}::VARIANT
                    ELSE {'a': i, 'd': (i / 4)::DECIMAL(9, 2),
                          'f': CASE WHEN i = 5 THEN 'nan'::DOUBLE ELSE i::DOUBLE END,
                          's': CASE WHEN i = 7 THEN 'x' || repeat('é', 200) ELSE repeat('y', 300) || i::VARCHAR END,
                          't': TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds(i),
                          'dt': DATE '2024-01-01' + i::INT, 'b': i % 2 = 0}::VARIANT
               END AS v
        FROM range(4096) t(i)
    """
    shredding = "STRUCT(a BIGINT, d DECIMAL(9, 2), f DOUBLE, s VARCHAR, t TIMESTAMPTZ, dt DATE, b BOOLEAN)"
    return write_with_duckdb(path, select, shredding, 2048)[0]


def test_duckdb_shredded_leaves(duckdb_file: Path) -> None:
    stats = _stats(duckdb_file)
    leaf = "v.typed_value.{}.typed_value"
    first, second = stats.row_groups
    assert (_column(stats, leaf.format("a")).min, _column(stats, leaf.format("a")).max) == (0, 2047)
    assert _column(stats, leaf.format("d")).max == D("511.75")
    assert _column(stats, leaf.format("dt")).max == dt.date(2024, 1, 1) + dt.timedelta(days=2047)
    assert _column(stats, leaf.format("t")).min == dt.datetime(2024, 1, 1, tzinfo=UTC)
    assert (_column(stats, leaf.format("b")).min, _column(stats, leaf.format("b")).max) == (False, True)
    assert _column(stats, "v.typed_value.a.value").all_null, "Should see no residual in row group 0"
    residual = _column(stats, "v.typed_value.a.value", 1)
    assert (residual.non_null_count, residual.all_null) == (1, False), "Should see the 'n/a' residual"
    counts = leaf_counts(duckdb_file)
    for i, rg in enumerate((first, second)):
        for path, col in rg.columns.items():
            assert col is not None and (col.non_null_count, col.null_count) == counts[i][path]


def test_duckdb_nan_chunk_has_no_bounds(duckdb_file: Path) -> None:
    col = _column(_stats(duckdb_file), "v.typed_value.f.typed_value")
    assert not col.has_min_max, "Should have no bounds: DuckDB writes none when a chunk holds NaN"
    assert _column(_stats(duckdb_file), "v.typed_value.f.typed_value", 1).has_min_max


def test_duckdb_truncated_string_bounds_are_inclusive(duckdb_file: Path) -> None:
    stats = _stats(duckdb_file)
    values = [f"{'y' * 300}{i}" for i in range(2048) if i != 7] + ["x" + "é" * 200]
    col = _column(stats, "v.typed_value.s.typed_value")
    assert not col.bounds_exact, "Should never call string bounds exact"
    assert col.has_min_max
    # DuckDB cuts bounds at 256 bytes (max incremented): still valid inclusive bounds.
    assert col.min <= min(values) and col.max >= max(values), "Should bound every value"
    assert len(col.max.encode()) <= 256 and col.max not in values, "Should be a truncated bound"


def test_string_bound_cut_inside_a_character_is_dropped() -> None:
    from types import SimpleNamespace

    from vpush.optimizer.statistics import LeafColumn, _bounds

    leaf = LeafColumn("s", "BYTE_ARRAY", "STRING", VariantType.STRING)
    cut = SimpleNamespace(has_min_max=True, min_raw=b"a\xc3", max_raw=b"b")
    assert _bounds(cut, leaf, {}) == (None, None, False), "Should drop a bound that is not UTF-8"


@pytest.mark.spark
def test_spark_shredded_leaves(tmp_path: Path, spark: SparkSession) -> None:
    select = """
        SELECT id, CASE WHEN id = 7 THEN parse_json('{"a": "x"}')
                        ELSE parse_json(concat('{"a": ', id, ', "s": "k', id % 10, '"}')) END AS v
        FROM range(20)
    """
    (path,) = write_with_spark(spark, tmp_path / "s", select, "a bigint, s string", 10)
    stats = _stats(path)
    assert [rg.num_rows for rg in stats.row_groups] == [10, 10]
    a0, a1 = (_column(stats, "v.typed_value.a.typed_value", i) for i in (0, 1))
    assert (a0.min, a0.max, a0.null_count) == (0, 9, 1), "Should skip the residual row 7"
    assert (a1.min, a1.max, a1.null_count) == (10, 19, 0)
    assert not _column(stats, "v.typed_value.a.value", 0).all_null
    assert _column(stats, "v.typed_value.a.value", 1).all_null
    assert (_column(stats, "v.typed_value.s.typed_value", 1).min, _column(stats, "v.typed_value.s.typed_value", 1).max) == ("k0", "k9")
    counts = leaf_counts(path)
    for i, rg in enumerate(stats.row_groups):
        for leaf, col in rg.columns.items():
            assert col is not None and (col.non_null_count, col.null_count) == counts[i][leaf]
