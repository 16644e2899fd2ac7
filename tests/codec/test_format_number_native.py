"""The compiled ``format_number`` of doubles gives Spark's text: against PySpark itself.

Java formats a double by the digits of ``Double.toString`` rounded half to even, where a tie at
their last digit is settled by what ``FloatingDecimal`` noted about them (rounded up, inexact,
exact), so ``2.675`` gives ``2.67`` and ``0.125`` gives ``0.12``. A seeded set of doubles (random
bit patterns over the whole range, decimal ties of every size, binary fractions, underflows to
zero at the kept place, the extremes, signed zeros, NaN, the infinities) with places from 0 to
400 goes through Spark's SQL and through :func:`vpush.codec.native.format_number_native`.
"""

from __future__ import annotations

import random
import struct
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from support.doubles import SPECIAL
from vpush.codec.native import NATIVE_AVAILABLE, NativeUnsupportedError, format_number_native

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = pytest.mark.skipif(not NATIVE_AVAILABLE, reason="the compiled kernel is not built")

TIES = [0.125, 0.375, 2.675, 1.005, 0.5, 1.5, 2.5, -2.5, 9.995, 99.995, 0.045, 0.0005, 0.0015, 0.0009, 0.00049999,
        123456789.125, 999999.9999999, 1e22, 1e23, 2.0**63, 2.0**53 + 2, 0.1, 0.7, 1 / 3]


def _rows(seed: int) -> tuple[list[float], list[int | None]]:
    rng = random.Random(seed)
    xs: list[float] = [*SPECIAL, *TIES, *(-x for x in TIES)]
    for k in range(3000):
        kind = k % 5
        if kind == 0:
            xs.append(struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0])
        elif kind == 1:
            xs.append(round(rng.uniform(-1e6, 1e6), rng.randrange(0, 6)))
        elif kind == 2:
            xs.append(rng.randrange(-10**6, 10**6) / 2 ** rng.randrange(1, 12))
        elif kind == 3:
            xs.append(rng.uniform(-1.0, 1.0) * 10.0 ** rng.randrange(-8, 20))
        else:  # a decimal text ending in 5: a tie in decimal, above or below it in binary
            xs.append(float(f"{rng.randrange(1, 10**6)}.{rng.randrange(0, 10)}5") * rng.choice([1, -1, 0.01, 0.001]))
    places: list[int | None] = [rng.choice([0, 1, 2, 3, 4, 6, 10]) for _ in xs]
    places[:12] = [400, 341, 340, 0, -1, None, 2, 2, 300, 1, 0, 5]
    return xs, places


def test_format_number_of_doubles_as_spark(spark: SparkSession, tmp_path: Path) -> None:
    xs, places = _rows(20261126)
    table = pa.table({"x": pa.array(xs, pa.float64()), "d": pa.array(places, pa.int32())})
    pq.write_table(table, tmp_path / "xd.parquet")
    spark.read.parquet(str(tmp_path / "xd.parquet")).createOrReplaceTempView("xd")
    want = spark.sql("SELECT format_number(x, d) AS n, format_number(CAST(x AS FLOAT), 3) AS f FROM xd").toArrow()
    got = format_number_native(table.column("x"), table.column("d"))
    wrong = [(x, d, g, w) for x, d, g, w in zip(xs, places, got.to_pylist(), want.column("n").to_pylist()) if g != w]
    assert not wrong, wrong[:10]
    # a float is formatted as the double it widens to
    floats = table.column("x").cast(pa.float32(), safe=False).cast(pa.float64())
    widened = format_number_native(floats, pa.array([3] * len(xs), pa.int32())).to_pylist()
    wrong_floats = [(x, g, w) for x, g, w in zip(xs, widened, want.column("f").to_pylist()) if g != w]
    assert not wrong_floats, wrong_floats[:10]


def test_format_number_native_takes_chunks_and_slices() -> None:
    values = pa.chunked_array([[1234.5, None], [0.125, -7.0]])
    places = pa.chunked_array([[1], [2, None, 0]], pa.int32())
    assert format_number_native(values, places).to_pylist() == ["1,234.5", None, None, "-7"]
    sliced = format_number_native(pa.array([9.0, 1e6, 2.5])[1:], pa.array([5, 0, 0], pa.int32())[1:])
    assert sliced.to_pylist() == ["1,000,000", "2"]
    with pytest.raises(NativeUnsupportedError):
        format_number_native(pa.array([1], pa.int64()), pa.array([1], pa.int32()))
