"""Decimal products whose exact value needs more than 38 digits give Spark's answers on DuckDB.

Spark multiplies two decimals exactly and rounds HALF_UP to the result type's scale (precision
loss allowed, the default); DuckDB's decimals hold 38 digits, so vpush computes such products
with 256-bit Arrow arithmetic (:mod:`vpush.exec.multiply_decimals`). Each query runs on Spark
(the oracle) and through vpush on both engines over one Parquet file, and must agree on names,
types and rows, or both raise the same error class.
"""
from __future__ import annotations

import decimal
import random
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import vpush
from support.tables import connect_tables, register_views
from test_spark_semantics import _assert_same_answer
from vpush.exec.errors import ExecutionError
from vpush.exec.multiply_decimals import multiply_decimals
from vpush.optimizer.variant_types import DecimalType

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

D = decimal.Decimal

# ``h`` holds ties at the cut of ``h * h``'s scale (decimal(38,17)): 0.0000000025 * 0.0000000020
# is 5E-18 exactly, and 5000000000.0000000025 * 2000000000.0000000020 ends in ...500 past it.
NUMBERS = pa.table(
    {
        "id": pa.array([1, 2, 3, 4, 5, 6], pa.int32()),
        "d": pa.array([D("99999999.99"), D("-99999999.99"), None, D("1.25"), D("0.05"), D("-0.01")], pa.decimal128(10, 2)),
        "h": pa.array(
            [D("5000000000.0000000025"), D("-0.0000000025"), D("0.0000000025"), None, D("-5000000000.0000000025"),
             D("9999999999.9999999999")],
            pa.decimal128(20, 10),
        ),
        "k": pa.array(
            [D("2000000000.0000000020"), D("0.0000000020"), D("0.0000000020"), D("1"), D("2000000000.0000000020"),
             D("-9999999999.9999999999")],
            pa.decimal128(20, 10),
        ),
        "x": pa.array(
            [D("1234567890123456789012345678.0123456789"), D("-0.0000000005"), D("9999999999999999999999999999.9999999999"),
             None, D("-31622776601683793319.9880107773"), D("0.0000000001")],
            pa.decimal128(38, 10),
        ),
        "y": pa.array(
            [D("12345678.123456789012345678901234567890"), D("-0.000000000000000000000000000001"), D("1"), D("3"),
             D("-0.5"), None],
            pa.decimal128(38, 30),
        ),
        "z": pa.array([D(10) ** 37, D(-3), D(7), None, D(10) ** 19, D(1)], pa.decimal128(38, 0)),
        "b": pa.array([9223372036854775807, -3, 7, None, 10, 0], pa.int64()),
    }
)

QUERIES: list[str] = [
    # the case: a chain whose last product needs 40 digits, decimal(38,6) in Spark
    "SELECT id, d * d * d * d AS m FROM t",
    "SELECT id, d * d * d * d * d AS m FROM t",
    "SELECT id, (d * d) * (d * d) AS m, d * (d * (d * d)) AS n FROM t",
    # ties at the cut of the scale, both signs: HALF_UP rounds away from zero
    "SELECT id, h * k AS m, k * h AS n, -h * k AS o FROM t",
    "SELECT id, h * h AS m FROM t",
    # mixed scales, 38 digits by 38 (the exact product: up to 76 digits)
    "SELECT id, x * y AS m FROM t WHERE id <> 1",
    "SELECT id, x * x AS m FROM t WHERE id IN (2, 5, 6)",
    "SELECT id, y * y AS m FROM t",
    "SELECT id, x * d AS m, d * x AS n, x * h AS o FROM t",
    # by integers, integer literals, decimal literals
    "SELECT id, x * b AS m FROM t WHERE id <> 1",
    "SELECT id, x * 3 AS m, x * -7 AS n, x * 1.5 AS o, 2.25 * x AS p, x * 0.001 AS q FROM t",
    "SELECT id, z * z AS m FROM t WHERE id <> 1",
    "SELECT id, y * 100 AS m, y * b AS n FROM t",
    # NULLs, and in expressions around them
    "SELECT id, x * CAST(NULL AS decimal(38,2)) AS m, coalesce(x * y, 0) AS n FROM t WHERE id <> 1",
    "SELECT sum(x * d) AS s, max(h * k) AS m FROM t",
    "SELECT id FROM t WHERE h * k > 1 ORDER BY id",
    # overflow even after rounding: Spark's error class
    "SELECT id, x * y AS m FROM t",
    "SELECT id, z * z AS m FROM t",
    "SELECT id, x * x AS m FROM t",
    "SELECT id, x * b AS m FROM t",
    # the fast path: products that fit in 38 digits stay DuckDB's
    "SELECT id, d * 2 AS m, d * b AS n, d * h AS o, h * 3 AS p FROM t WHERE id <> 1",
]


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("decimal_products")
    path = root / "t" / "part-0.parquet"
    path.parent.mkdir()
    pq.write_table(NUMBERS, path)
    return {"t": path.parent}


@pytest.fixture(scope="module")
def con(tables: dict[str, Path]) -> vpush.Connection:
    return connect_tables(tables)


@pytest.fixture(scope="module")
def spark_con(spark: SparkSession, tables: dict[str, Path]) -> vpush.Connection:
    return connect_tables(tables, spark)


@pytest.fixture(scope="module")
def spark_views(spark: SparkSession, tables: dict[str, Path]) -> SparkSession:
    return register_views(spark, tables)


@pytest.mark.parametrize("sql", QUERIES)
def test_matches_spark(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    _assert_same_answer(sql, spark_views, con)


@pytest.mark.parametrize("sql", QUERIES)
def test_spark_engine_matches_spark(sql: str, spark_views: SparkSession, spark_con: vpush.Connection) -> None:
    _assert_same_answer(sql, spark_views, spark_con)


def test_products_that_fit_stay_plain_duckdb(con: vpush.Connection) -> None:
    """Where the exact product fits in 38 digits, DuckDB multiplies: no engine function."""
    plan = con.sql("SELECT d * 2 AS m, d * b AS n, d * h AS o FROM t").plan.sql("duckdb").lower()
    assert "vpush_decimal_product" not in plan, "Should be DuckDB's own product: it fits in 38 digits"
    wide = con.sql("SELECT d * d * d * d AS m FROM t").plan.sql("duckdb").lower()
    assert wide.count("vpush_decimal_product") == 1, "Only the last product of the chain needs more than 38 digits"


def _random_decimal(rng: random.Random, of_type: DecimalType) -> decimal.Decimal | None:
    if rng.random() < 0.05:
        return None
    digits = rng.choice([of_type.precision, of_type.precision, rng.randint(1, of_type.precision)])
    unscaled = rng.randrange(10 ** (digits - 1) if digits > 1 else 0, 10**digits)
    if rng.random() < 0.3:
        # a tie at some cut: ...5 followed by zeros
        cut = rng.randint(1, digits)
        unscaled = unscaled // 10**cut * 10**cut + 5 * 10 ** (cut - 1)
        unscaled = min(unscaled, 10**of_type.precision - 1)
    return decimal.Decimal(unscaled * rng.choice([-1, 1])).scaleb(-of_type.scale)


def test_products_equal_exact_arithmetic_rounded_half_up() -> None:
    """multiply_decimals against Python's exact decimals rounded HALF_UP (Spark's BigDecimal
    product and ``toPrecision``), over random operand types up to 38 x 38 digits, ties included."""
    rng = random.Random(20240517)
    context = decimal.Context(prec=200)
    for _ in range(60):
        a, b = (DecimalType(p, rng.randint(0, p)) for p in (rng.randint(1, 38), rng.randint(1, 38)))
        int_digits = a.precision - a.scale + b.precision - b.scale + 1
        result = DecimalType(38, max(38 - int_digits, min(a.scale + b.scale, 6))) if a.precision + b.precision + 1 > 38 else (
            DecimalType(a.precision + b.precision + 1, a.scale + b.scale)
        )
        xs = [_random_decimal(rng, a) for _ in range(200)]
        ys = [_random_decimal(rng, b) for _ in range(200)]
        expected = []
        for x, y in zip(xs, ys):
            if x is None or y is None:
                expected.append(None)
                continue
            exact = context.multiply(x, y)
            expected.append(exact.quantize(decimal.Decimal(1).scaleb(-result.scale), rounding=decimal.ROUND_HALF_UP, context=context))
        fits = [e is None or abs(e) < decimal.Decimal(10) ** (result.precision - result.scale) for e in expected]
        xs_kept = [x for x, ok in zip(xs, fits) if ok]
        ys_kept = [y for y, ok in zip(ys, fits) if ok]
        got = multiply_decimals(
            pa.array(xs_kept, pa.decimal128(38, a.scale)), pa.array(ys_kept, pa.decimal128(38, b.scale)), a, b, result
        )
        assert got.type == pa.decimal128(result.precision, result.scale)
        assert got.to_pylist() == [e for e, ok in zip(expected, fits) if ok], f"{a} * {b} -> {result}"
        if not all(fits):
            with pytest.raises(ExecutionError) as raised:
                multiply_decimals(pa.array(xs, pa.decimal128(38, a.scale)), pa.array(ys, pa.decimal128(38, b.scale)), a, b, result)
            assert raised.value.error_class == "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", "Should be Spark's class"


# Remaining differences on DuckDB (README): the exact intermediate of a division or a sum of two
# decimals past 38 digits still overflows there, where Spark rounds and answers.
NOT_YET = [
    pytest.param("SELECT id, x / y AS q FROM t WHERE id = 1", id="division-past-38-digits"),
    pytest.param("SELECT id, x + y AS s FROM t WHERE id = 1", id="sum-past-38-digits"),
]


@pytest.mark.xfail(strict=True, reason="DuckDB engine: the exact intermediate is computed in 38 digits and overflows")
@pytest.mark.parametrize("sql", NOT_YET)
def test_not_yet_matching_spark(sql: str, spark_views: SparkSession, con: vpush.Connection) -> None:
    _assert_same_answer(sql, spark_views, con)
