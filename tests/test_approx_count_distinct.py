"""Spark's ``approx_count_distinct`` (HyperLogLog++) on the DuckDB engine, estimate for estimate.

The estimate is not the true count, so only Spark's own answer will do: the same hashes
(xxhash64, seed 42, of every type Spark hashes), the same registers, the same bias correction and
rounding. One seeded table of about 54,000 rows, in groups of 1 to 40,000 rows that hold from
a third to all of their values distinct (and a group of NULLs only), is counted by every type
Spark hashes and at every precision from 4 to 12 bits, so that linear counting, the
bias-corrected estimate and the raw one all answer somewhere; one Spark query answers it all.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from test_spark_functions import _answers_in_zone, _assert_raises_as_spark

import vpush
from support.refused import assert_refused_on_duckdb
from support.tables import table_fixtures

from vpush.codec.spark_hll import hll_precision

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

GROUP_SIZES = [1, 2, 3, 7, 20, 60, 150, 400, 1_000, 3_000, 9_000, 40_000]


def _deviation(precision: int) -> str:
    """A relative standard deviation Spark turns into ``precision`` index bits, well inside its range."""
    text = f"{1.106 / 2 ** ((precision - 0.5) / 2):.6f}"
    assert hll_precision(float(text)) == precision
    return text


def _table() -> pa.Table:
    rng = np.random.default_rng(2024)
    keys, values = [], []
    for k, size in enumerate(GROUP_SIZES):
        pool = max(1, int(size * rng.uniform(0.3, 1.6)))  # some groups nearly all distinct, some a third
        keys.append(np.full(size, k, np.int32))
        values.append(rng.integers(0, pool, size) + rng.integers(-(2**40), 2**40))
    keys.append(np.full(5, len(GROUP_SIZES), np.int32))
    values.append(np.zeros(5, np.int64))
    key = np.concatenate(keys)
    n = np.concatenate(values)
    nulls = rng.random(len(n)) < 0.01
    nulls[-5:] = True  # the last group: NULLs only
    mask = pa.array(nulls)

    def column(array: np.ndarray, arrow_type: pa.DataType) -> pa.Array:
        values = pa.array(array)
        if pa.types.is_decimal(arrow_type):
            values = values.cast(pa.decimal128(38, arrow_type.scale))  # (an int64 is cast to 19 digits and the scale)
        return pc.if_else(mask, pa.scalar(None, arrow_type), values.cast(arrow_type, safe=False))

    doubles = n.astype(np.float64) / 8.0
    special = rng.random(len(n))
    doubles[special < 0.002] = -0.0
    doubles[(special >= 0.002) & (special < 0.004)] = 0.0
    doubles[(special >= 0.004) & (special < 0.006)] = np.nan
    doubles[(special >= 0.006) & (special < 0.007)] = np.frombuffer(np.uint64(0x7FF8000000000123).tobytes(), np.float64)[0]
    return pa.table({
        "k": key,
        "n": column(n % 2**31, pa.int32()),
        "l": column(n * np.int64(0x1E3779B97F4A7C15), pa.int64()),  # wraps: every bit varies
        "x": column(doubles, pa.float64()),
        "r": column(np.where(special < 0.007, doubles, (n % 2**22) / 8.0).astype(np.float32), pa.float32()),  # exact in 24 bits
        "s": pc.if_else(mask, pa.scalar(None, pa.string()), pc.binary_join_element_wise("v", pa.array(n).cast(pa.string()), "")),
        "day": column((n % 2_000_000 - 700_000).astype(np.int32), pa.date32()),
        "dn": column(n % 10**7, pa.decimal128(10, 2)),
        "dw": column(n, pa.decimal128(38, 10)),
        "flag": column(n % 2 == 0, pa.bool_()),
        "ts": column(n * 1_000_003, pa.timestamp("us", tz="UTC")),
    })


def test_estimates_as_spark(spark: SparkSession, tmp_path: Path) -> None:
    pq.write_table(_table(), tmp_path / "part-0.parquet")
    columns = ["n", "l", "x", "r", "s", "day", "dn", "dw", "flag", "ts"]
    calls = [f"approx_count_distinct({c})" for c in columns]
    many = [c for c in columns if c != "flag"]
    # (Spark's buffer for p bits holds 2^p / 10 longs, and its time grows with their sum: 14 bits
    # alone would add half again; 13 to 18 bits go through the same code with their own tables)
    for precision in range(4, 13):
        column = many[precision % len(many)]
        calls.append(f"approx_count_distinct({column}, {_deviation(precision)}) AS p{precision}")
    # (0.05D and 0.2BD only here: the Spark engine writes a typed literal back as a CAST, which Spark
    # refuses as a deviation)
    calls += ["approx_count_distinct(DISTINCT s, 1e-1) AS e7", "approx_count_distinct(day, 0.05D) AS d9",
              "approx_count_distinct(dn, 0.2BD) AS b5"]
    sql = f"SELECT k, count(*) AS c, {', '.join(calls)} FROM z GROUP BY k"
    expected, got = _answers_in_zone(spark, tmp_path, "UTC", sql)
    assert got[0] == expected[0]
    for k, call in enumerate(calls, start=2):
        assert [r[k] for r in got[1]] == [r[k] for r in expected[1]], call
    assert got == expected
    assert len(expected[1]) == len(GROUP_SIZES) + 1


SMALL = pa.table({"i": pa.array([1, 2, None, 2], pa.int32()), "a": pa.array([[1], [2], None, []], pa.list_(pa.int32()))})
table_path, con, spark_con, spark_view = table_fixtures("approx_count_distinct", SMALL)


@pytest.mark.parametrize(("call", "wanted"), [
    ("approx_count_distinct(i, 0.5)", "FAILED_FUNCTION_CALL"),  # fewer than 4 bits
    ("approx_count_distinct(i, 1)", "_LEGACY_ERROR_TEMP_1104"),  # not a double or decimal literal
    ("approx_count_distinct(i, i)", "_LEGACY_ERROR_TEMP_1104"),
    ("approx_count_distinct(i, '0.1')", "_LEGACY_ERROR_TEMP_1104"),
    ("approx_count_distinct(i, 0.1F)", "_LEGACY_ERROR_TEMP_1104"),
    ("approx_count_distinct(i, CAST(0.1 AS DOUBLE))", "_LEGACY_ERROR_TEMP_1104"),
])
def test_raises_as_spark(call: str, wanted: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    _assert_raises_as_spark(call, spark_view, con, (wanted,))


@pytest.mark.parametrize("call", ["approx_count_distinct(i, 0.001)", "approx_count_distinct(i, -0.1)"])
def test_refused_on_duckdb(call: str, con: vpush.Connection) -> None:
    """Deviations under about 0.0022 (more than 18 bits), and negative ones."""
    assert_refused_on_duckdb(con, call)
