"""The compiled StrictMath kernel gives Spark's bits: every function against PySpark itself.

A seeded set of doubles (random bit patterns over the whole range, subnormals, values near 1,
near the overflow and underflow thresholds of exp, the signed zeros, NaN, the infinities,
negatives, and for pow integer and huge exponents) goes through Spark's SQL functions in a local
session, and through :func:`vpush.codec.strict_math.strict_math`; each result must have the same
64 bits (any NaN equals any NaN, as Spark does not keep a NaN's payload) and the same NULLs.
"""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from support.doubles import seeded_doubles
from vpush.codec.native import NATIVE_AVAILABLE
from vpush.codec.strict_math import STRICT_MATH_FUNCTIONS, strict_math

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = pytest.mark.skipif(not NATIVE_AVAILABLE, reason="the compiled kernel is not built")

# Spark's SQL names for the kernel's functions (log2(x) is Spark's StrictMath.log(x) / StrictMath.log(2)).
SQL = {"ln": "ln(x)", "log10": "log10(x)", "log2": "log2(x)", "log1p": "log1p(x)", "exp": "exp(x)",
       "expm1": "expm1(x)", "sinh": "sinh(x)", "cosh": "cosh(x)", "tanh": "tanh(x)", "cbrt": "cbrt(x)",
       "log": "log(x, y)", "pow": "pow(x, y)", "asin": "asin(x)", "acos": "acos(x)", "atan": "atan(x)",
       "atan2": "atan2(x, y)", "hypot": "hypot(x, y)", "asinh": "asinh(x)", "acosh": "acosh(x)", "atanh": "atanh(x)",
       "degrees": "degrees(x)", "radians": "radians(x)", "rint": "rint(x)"}


@pytest.fixture(scope="module")
def spark_answers(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> pa.Table:
    xs, ys = seeded_doubles(20260525)
    path = Path(tmp_path_factory.mktemp("strict_math")) / "xy.parquet"
    pq.write_table(pa.table({"x": pa.array(xs, pa.float64()), "y": pa.array(ys, pa.float64())}), path)
    spark.read.parquet(str(path)).createOrReplaceTempView("xy")
    calls = ", ".join(f"{call} AS {name}" for name, call in SQL.items())
    return spark.sql(f"SELECT x, y, {calls}, log(2.0, x) AS log_2, log(x) AS log_e, power(x, y) AS power FROM xy").toArrow()


def _differences(got: pa.Array, want: pa.Array, x: pa.Array, y: pa.Array) -> list[tuple[float, float, object, object]]:
    wrong = []
    for a, b, g, w in zip(x.to_pylist(), y.to_pylist(), got.to_pylist(), want.to_pylist()):
        same = (g is None and w is None) or (
            g is not None and w is not None
            and ((math.isnan(g) and math.isnan(w)) or struct.pack("<d", g) == struct.pack("<d", w))
        )
        if not same:
            wrong.append((a, b, g, w))
    return wrong


@pytest.mark.parametrize("name", sorted(STRICT_MATH_FUNCTIONS))
def test_kernel_has_sparks_bits(name: str, spark_answers: pa.Table) -> None:
    x, y = spark_answers.column("x").combine_chunks(), spark_answers.column("y").combine_chunks()
    got = strict_math(name, x, y) if STRICT_MATH_FUNCTIONS[name] == 2 else strict_math(name, x)
    wrong = _differences(got, spark_answers.column(name).combine_chunks(), x, y)
    assert wrong == [], f"{len(wrong)} of {len(x)} rows differ from Spark, the first: {wrong[:5]}"


@pytest.mark.parametrize(
    ("column", "name", "base"), [("log_2", "log", 2.0), ("log_e", "ln", None), ("power", "pow", None)]
)
def test_other_spellings_have_sparks_bits(column: str, name: str, base: float | None, spark_answers: pa.Table) -> None:
    """``log(2.0, x)``, one-argument ``log(x)`` (Spark's ``log(E(), x)``, computed as ``ln``) and ``power``."""
    x, y = spark_answers.column("x").combine_chunks(), spark_answers.column("y").combine_chunks()
    if base is not None:
        got = strict_math(name, pa.array([base] * len(x), pa.float64()), x)
    else:
        got = strict_math(name, x, y) if name == "pow" else strict_math(name, x)
    wrong = _differences(got, spark_answers.column(column).combine_chunks(), x, y)
    assert wrong == [], f"{len(wrong)} rows differ from Spark, the first: {wrong[:5]}"


def test_nulls_slices_and_chunks() -> None:
    """A null argument gives NULL; a slice and a chunked array give the rows they hold."""
    values = pa.array([1.0, None, 2.0, 0.0, -1.0, float("nan"), 3.0, None, 10.0, 4.0], pa.float64())
    whole = strict_math("ln", values).to_pylist()
    assert whole[1] is None and whole[3] is None and whole[4] is None, "NULL, and ln at or below 0, give NULL"
    assert math.isnan(whole[5]), "ln(NaN) is NaN in Spark, not NULL"
    for start in range(len(values)):
        sliced = strict_math("ln", values.slice(start, 3)).to_pylist()
        assert [repr(v) for v in sliced] == [repr(v) for v in whole[start : start + 3]], "A slice keeps its rows"
    chunked = strict_math("ln", pa.chunked_array([values.slice(0, 4), values.slice(4)]))
    assert [repr(v) for v in chunked.to_pylist()] == [repr(v) for v in whole], "Chunks are combined"
    bases = pa.array([None, 2.0, 0.0, 2.0, 7.0], pa.float64()).slice(1)
    logs = strict_math("log", bases, pa.array([8.0, 8.0, None, 0.0]))
    assert logs.to_pylist() == [3.0, None, None, None], "log(b, x) is NULL for a NULL, or a base or value at or below 0"
    assert strict_math("exp", pa.array([1, 0], pa.int32())).to_pylist() == [2.7182818284590455, 1.0], "ints widen"
    assert strict_math("ln", pa.array([], pa.float64())).to_pylist() == [], "No rows, no results"


@pytest.mark.parametrize("call", [("ln", 2), ("pow", 1), ("sqrt", 1)])
def test_refuses_what_it_does_not_compute(call: tuple[str, int]) -> None:
    name, count = call
    with pytest.raises(ValueError, match=name):
        strict_math(name, pa.array([1.0]), pa.array([1.0]) if count == 2 else None)
