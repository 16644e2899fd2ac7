"""Decimal products whose exact value needs more than 38 digits give Spark's answers on DuckDB.

Spark multiplies two decimals exactly and rounds HALF_UP to the result type's scale (precision
loss allowed, the default); DuckDB's decimals hold 38 digits, so vpush computes such products
with 256-bit Arrow arithmetic (:mod:`vpush.exec.compute_decimals`). Each query runs on Spark
(the oracle) and through vpush on both engines over one Parquet file, and must agree on names,
types and rows, or both raise the same error class.
"""
from __future__ import annotations

import decimal
import random
from typing import TYPE_CHECKING

import pyarrow as pa
import pytest
from sqlglot import exp

import vpush
from support.compare import assert_same_answer
from support.tables import table_fixtures
from vpush.codec.errors import VpushError
from vpush.exec.errors import ExecutionError
from vpush.exec.compute_decimals import compute_decimals
from vpush.optimizer.spark_semantics import _decimal_result
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
        # a running total past 38 digits whose final total fits
        "v": pa.array([D(9) * D(10) ** 37, D(9) * D(10) ** 37, D(-9) * D(10) ** 37, D(1), None, D(0)], pa.decimal128(38, 0)),
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

# Sums, differences and quotients whose exact value may need more than 38 digits (decimal(38,10)
# and decimal(38,30): a sum of 59 digits, a quotient of 107, both rounded to Spark's scale), ties
# and both signs; zero divisors (DIVIDE_BY_ZERO), values past the result type
# (NUMERIC_VALUE_OUT_OF_RANGE), and the try_ functions' NULLs for both.
WIDE_QUERIES: list[str] = [
    # greatest/least and round of decimals typed as Spark types them (DuckDB's made a quotient a double)
    "SELECT id, greatest(d, k) / 2 AS c, round(d, 1) / k AS e, least(d, id) / 3 AS f, round(d, -1) AS g, round(x, 2) AS h FROM t",
    "SELECT id, x + y AS s, x - y AS u, y - x AS v FROM t WHERE id <> 3",
    "SELECT id, x + z AS s, z - x AS u, x + h AS v, h - y AS w FROM t WHERE id IN (2, 4, 6)",
    "SELECT id, x / y AS q, y / x AS r, x / h AS o FROM t WHERE id <> 3",
    "SELECT id, x / z AS q, z / x AS r, h / y AS o, d / x AS p FROM t WHERE id IN (2, 3, 6)",
    "SELECT id, x / 3 AS q, -x / 7 AS r, x / b AS o, b / x AS p FROM t WHERE id IN (2, 5, 6)",
    "SELECT id, x + y AS s FROM t",
    "SELECT id, x / y AS q FROM t",
    "SELECT id, z / x AS q FROM t WHERE id IN (2, 3, 6)",
    "SELECT id, try_add(x, y) AS s, try_subtract(y, x) AS u, try_multiply(x, y) AS m, try_divide(x, y) AS q, "
    "try_divide(z, x) AS r, try_divide(x, b) AS o, try_add(d, h) AS v, try_divide(d, 4) AS w FROM t",
    # fast paths: quotients and sums whose integers fit 38 digits stay DuckDB's
    "SELECT id, d / h AS q, h / k AS r, d + h AS s, h - k AS u, h / 3 AS o FROM t WHERE id <> 4",
    # remainders, pmod and div: exact at the larger scale (DuckDB's % went through doubles past
    # 38 digits there), pmod typed as %, div a bigint wrapped around 64 bits; a NULL dividend
    # with a zero divisor is NULL (Spark skips it before the divisor's check)
    "SELECT id, x % y AS q, y % x AS r, pmod(x, y) AS p, pmod(-x, y) AS n, pmod(x, -y) AS m FROM t WHERE id IN (2, 5)",
    "SELECT id, h % k AS q, pmod(h, k) AS p, pmod(-h, k) AS n, pmod(h, -k) AS m, pmod(x, d) AS o, pmod(x, -7) AS u FROM t",
    "SELECT id, d div h AS q, h div d AS r, -h div d AS n, x div 3 AS o, x div y AS m, y div x AS u FROM t WHERE id IN (1, 2, 5)",
    "SELECT id, d div k AS q, d % (k - k) AS r, d / (h - h) AS s FROM t WHERE id = 4",
    "SELECT id, d div (k - k) AS q FROM t",
    "SELECT id, x % (y - y) AS q FROM t",
    # a NULL dividend that is an expression, over a zero divisor: NULL (Spark's DivModLike looks
    # at the dividend first), for decimals, integers and doubles; a dividend that is not NULL
    # raises, its own overflow first
    "SELECT id, (d + 1) / (k - k) AS q, (d + 1) % (k - k) AS r, pmod(d + 1, k - k) AS p, (d + 1) div (k - k) AS v, "
    "try_divide(d + 1, k - k) AS w, (d / k) / (k - k) / (h - h) AS u, (x + 1) / (y - y) AS o FROM t WHERE id IN (3, 4) AND d IS NULL",
    "SELECT id, (x + 1) / (y - y) AS q, (x * 2) % (z - z) AS r, pmod(x - 1, z - z) AS p, (x + 1) div (z - z) AS v FROM t WHERE id = 4",
    "SELECT id, (b + 1) / (id - id) AS q, (b + 1) % (id - id) AS r, pmod(b + 1, id - id) AS p, (b + 1) div (id - id) AS v, "
    "(b * 1.5D) / (id - id) AS w, (b * 1.5D) % (id - id) AS u, pmod(b * 1.5D, id - id) AS o FROM t WHERE id = 4",
    "SELECT id, (b + 1) / (id - id) AS q FROM t WHERE id = 1",
    "SELECT id, (d + 1) % (k - k) AS q FROM t WHERE id = 1",
    "SELECT id, CAST(b AS double) % (id - id) AS q FROM t WHERE id = 2",
    "SELECT id, pmod(CAST(b AS double), id - id) AS q FROM t WHERE id = 2",
    "SELECT id, pmod(b, id - id) AS q FROM t WHERE id = 2",
    # decimals through abs, coalesce, nvl, if and CASE typed as Spark types them (DuckDB's
    # division of the untyped result was a double)
    "SELECT id, abs(d) / k AS a, coalesce(d, 1) / k AS b, nvl(d, 0) * 2 AS f, if(id > 2, d, k) / 3 AS g, abs(x) / 7 AS h, "
    "CASE WHEN id > 3 THEN d ELSE b END / 2 AS c, coalesce(x, z) / y AS q FROM t WHERE id <> 1",
    # past 38 digits Spark keeps the digits before the point (boundedPreferIntegralDigits)
    "SELECT id, coalesce(x, z) AS a, if(id > 1, x, z) AS b, CASE WHEN id > 1 THEN y ELSE z END AS c, coalesce(y, b) AS e, "
    "coalesce(d, b) AS f FROM t",
    # pmod by an expression (its divisor was written without parentheses: b % id - 7)
    "SELECT id, pmod(b, id - 7) AS q, pmod(-b, id + 2) AS r, pmod(b * 1.5D, id - 7) AS s, pmod(d, k - 3) AS u FROM t",
    # decimal %, pmod and div whose integral quotient needs 39 digits: Spark's MathContext takes
    # 39 (% and pmod answer), div's decimal(38,0) does not (NUMERIC_VALUE_OUT_OF_RANGE)
    "SELECT id, z % 0.07 AS q, pmod(z, 0.07) AS p, pmod(-z, 0.07) AS r, z div 0.7 AS v FROM t",
    "SELECT id, z div 0.07 AS q FROM t",
    "SELECT id, -z div 0.07 AS q FROM t WHERE id = 1",
    # sums and averages of decimal(38,s): a total past 38 digits is ARITHMETIC_OVERFLOW, an average
    # past its type NUMERIC_VALUE_OUT_OF_RANGE (the sum times 10^4 may pass DuckDB's 128 bits)
    "SELECT sum(x) AS s FROM t",
    "SELECT sum(x) AS s, avg(x) AS a, sum(y) AS t, avg(y) AS b, avg(z) AS c FROM t WHERE id > 3",
    "SELECT avg(z) AS a FROM t",
    "SELECT id % 2 AS g, avg(y) AS a, avg(x) AS b, avg(-z) AS c, sum(z) AS s FROM t WHERE id > 1 GROUP BY id % 2",
    "SELECT id, avg(z) OVER (ORDER BY id) AS a FROM t WHERE id > 1",
    # a running total past 38 digits whose final total fits (9E37 + 9E37 - 9E37): Spark's total is
    # exact without GROUP BY and over windows, checked at the end (ARITHMETIC_OVERFLOW without a
    # window, NUMERIC_VALUE_OUT_OF_RANGE over one, NULL for try_sum/try_avg)
    "SELECT sum(v) AS s, try_sum(v) AS t, sum(v) FILTER (WHERE id < 6) AS f, try_avg(v) AS a, try_sum(x) AS x, try_avg(x) AS b, "
    "try_avg(z) AS z, try_sum(y) AS y FROM t",
    "SELECT avg(v) AS a FROM t",
    "SELECT avg(v) AS a FROM t WHERE id <> 3",
    "SELECT sum(v) AS s FROM t HAVING sum(v) > 0",
    "SELECT sum(y) AS s, avg(y) AS a, sum(0 - x) AS n, sum(z) AS z, avg(z) AS b, sum(v) + 1 AS p FROM t WHERE id <> 1",
    "SELECT id, sum(v) OVER () AS s, sum(v) OVER (PARTITION BY id > 0) AS p, try_sum(v) OVER (ORDER BY id) AS t, "
    "sum(v) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS f, "
    "try_avg(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS a, avg(v) OVER (ORDER BY id DESC) AS b FROM t",
    "SELECT id, sum(v) OVER (ORDER BY id) AS s FROM t",
    "SELECT id, sum(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS s FROM t",
    "SELECT id, avg(v) OVER () AS a FROM t",
    "SELECT id, try_sum(x) OVER (PARTITION BY id % 2 ORDER BY id) AS s, avg(x) OVER (PARTITION BY id % 2) AS a, "
    "sum(y) OVER (ORDER BY id) AS y FROM t WHERE id <> 3",
    # negation (-x, negative) and abs of a negative value round a decimal of more than 34 digits
    # HALF_EVEN to 34 (Scala's BigDecimal under MathContext.DECIMAL128), NUMERIC_VALUE_OUT_OF_RANGE
    # where that passes the type; a minus sign before a number is Spark's literal, not negated
    "SELECT id, -x AS n, -y AS m, negative(x) AS o, abs(-y) AS a, abs(x) AS b, -(-x) AS c, -z AS d, abs(z - 1) AS e FROM t WHERE id <> 3",
    "SELECT id, -x AS n FROM t",
    "SELECT id, abs(-x) AS n FROM t WHERE id > 2",
    "SELECT -12345678901234567890123456789012345 AS a, -(12345678901234567890123456789012345) AS b, "
    "- -12345678901234567890123456789012335 AS c, abs(-12345678901234567890123456789012325) AS d, -CAST(12345678901234567890123456789012345 AS decimal(36,1)) AS e",
    "SELECT -(99999999999999999999999999999999999) AS a",
    "SELECT sum(-y) AS s, max(-x) AS m, min(abs(-y)) AS a FROM t WHERE id <> 3 HAVING sum(-x) < 0",
    # with GROUP BY Spark's running total of each group is a decimal(38,s) in its order of rows:
    # one past 38 digits is ARITHMETIC_OVERFLOW (try_sum, try_avg: NULL) though the total fits
    "SELECT id % 2 AS g, sum(v) AS s, avg(v) AS a, sum(y) AS y FROM t GROUP BY id % 2",
    "SELECT id > 0 AS g, sum(v) AS s FROM t GROUP BY id > 0",
    "SELECT id % 3 AS g, sum(x) AS s FROM t GROUP BY id % 3 HAVING sum(x) > 0",
    "SELECT id % 2 AS g, try_sum(x) AS s, try_avg(z) AS a, try_sum(v) AS v, try_avg(v) AS w, try_sum(y) FILTER (WHERE id > 1) AS y FROM t GROUP BY id % 2",
    "SELECT g, try_sum(x) AS s, try_avg(z) AS a FROM (SELECT id % 2 AS g, x, z FROM t) GROUP BY g",
    "SELECT id > 0 AS g, try_sum(v) AS s, try_avg(v) AS a, sum(z) AS z FROM t GROUP BY id > 0",
    "SELECT id > 0 AS g, sum(v) AS s FROM t WHERE id <> 2 GROUP BY id > 0",
    # avg(d) FILTER of decimals: Spark's exact decimal average (DuckDB's was a double)
    "SELECT id % 2 AS g, avg(d) FILTER (WHERE id > 1) AS a, avg(h) FILTER (WHERE id < 5) AS b, avg(x) FILTER (WHERE id > 2) AS c FROM t GROUP BY id % 2",
    "SELECT avg(d) FILTER (WHERE id > 1) AS a, avg(k) FILTER (WHERE id = 9) AS b FROM t",
]


table_path, con, spark_con, spark_view = table_fixtures("decimal_products", NUMBERS)
# Spark's answer by query, for each query to run on Spark once for both engines
SPARK_ANSWERS: dict[str, tuple[object, ...]] = {}


@pytest.mark.parametrize("sql", QUERIES + WIDE_QUERIES)
def test_matches_spark(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_view, con, SPARK_ANSWERS)


@pytest.mark.parametrize("sql", QUERIES + WIDE_QUERIES)
def test_spark_engine_matches_spark(sql: str, spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_view, spark_con, SPARK_ANSWERS)


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


_EXACT = {"product": "multiply", "sum": "add", "difference": "subtract", "quotient": "divide"}


@pytest.mark.parametrize("operation", list(_EXACT))
def test_results_equal_exact_arithmetic_rounded_half_up(operation: str) -> None:
    """compute_decimals against Python's exact decimals rounded HALF_UP (Spark's BigDecimal
    arithmetic and ``toPrecision``), over random operand types up to 38 and 38 digits (Spark's
    result types: ``_decimal_result``), ties included; values past the result's precision raise
    Spark's error, or are NULL in the try_ form; a zero divisor raises DIVIDE_BY_ZERO."""
    rng = random.Random(20240517)
    context = decimal.Context(prec=200)
    exact_of = getattr(context, _EXACT[operation])
    for _ in range(60):
        a, b = (DecimalType(p, rng.randint(0, p)) for p in (rng.randint(1, 38), rng.randint(1, 38)))
        result = _decimal_result(operation, a, b)
        xs = [_random_decimal(rng, a) for _ in range(200)]
        ys = [_random_decimal(rng, b) for _ in range(200)]
        if operation == "quotient":
            ys = [None if y is not None and y == 0 else y for y in ys]
        expected = []
        for x, y in zip(xs, ys):
            if x is None or y is None:
                expected.append(None)
                continue
            exact = exact_of(x, y)
            expected.append(exact.quantize(decimal.Decimal(1).scaleb(-result.scale), rounding=decimal.ROUND_HALF_UP, context=context))
        fits = [e is None or abs(e) < decimal.Decimal(10) ** (result.precision - result.scale) for e in expected]
        xs_kept = [x for x, ok in zip(xs, fits) if ok]
        ys_kept = [y for y, ok in zip(ys, fits) if ok]
        arrays = (pa.array(xs_kept, pa.decimal128(38, a.scale)), pa.array(ys_kept, pa.decimal128(38, b.scale)))
        got = compute_decimals(operation, *arrays, a, b, result)
        assert got.type == pa.decimal128(result.precision, result.scale)
        assert got.to_pylist() == [e for e, ok in zip(expected, fits) if ok], f"{a} {operation} {b} -> {result}"
        every = (pa.array(xs, pa.decimal128(38, a.scale)), pa.array(ys, pa.decimal128(38, b.scale)))
        tried = compute_decimals(f"try_{operation}", *every, a, b, result)
        assert tried.to_pylist() == [e if ok else None for e, ok in zip(expected, fits)], "Should be NULL where it does not fit"
        if not all(fits):
            with pytest.raises(ExecutionError) as raised:
                compute_decimals(operation, *every, a, b, result)
            assert raised.value.error_class == "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", "Should be Spark's class"


def test_remainders_and_div_equal_exact_arithmetic() -> None:
    """``%`` and ``div`` of random decimal types against Python's exact decimals (``remainder``
    takes the dividend's sign, as Java's; ``div`` truncates and wraps around 64 bits as
    ``longValue``), over the rows whose integral quotient fits the 39 digits of Spark's
    ``MathContext`` (past them Spark fails with Java's ``Division impossible``, and so does vpush,
    without a class); ``div``'s quotient past 38 digits raises ``NUMERIC_VALUE_OUT_OF_RANGE``."""
    rng = random.Random(7)
    context = decimal.Context(prec=200)
    for _ in range(40):
        a, b = (DecimalType(p, rng.randint(0, p)) for p in (rng.randint(1, 38), rng.randint(1, 38)))
        scale = max(a.scale, b.scale)
        result = DecimalType(min(a.precision - a.scale, b.precision - b.scale) + scale, scale)
        pairs = [(x, y) for x, y in zip((_random_decimal(rng, a) for _ in range(200)), (_random_decimal(rng, b) for _ in range(200)))
                 if x is None or y is None or (y != 0 and abs(context.divide_int(x, y)) < decimal.Decimal(10) ** 39)]
        xs, ys = pa.array([x for x, _ in pairs], pa.decimal128(38, a.scale)), pa.array([y for _, y in pairs], pa.decimal128(38, b.scale))
        remainders = [None if x is None or y is None else context.remainder(x, y) for x, y in pairs]
        assert compute_decimals("remainder", xs, ys, a, b, result).to_pylist() == remainders, f"{a} % {b}"
        wide = [x is not None and y is not None and abs(context.divide_int(x, y)) >= decimal.Decimal(10) ** 38 for x, y in pairs]
        if any(wide):
            with pytest.raises(ExecutionError) as raised:
                compute_decimals("div", xs, ys, a, b, DecimalType(20, 0))
            assert raised.value.error_class == "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", "Should be Spark's class past decimal(38,0)"
        kept = [p for p, w in zip(pairs, wide) if not w]
        xs, ys = pa.array([x for x, _ in kept], pa.decimal128(38, a.scale)), pa.array([y for _, y in kept], pa.decimal128(38, b.scale))
        quotients = [None if x is None or y is None else (int(context.divide_int(x, y)) + 2**63) % 2**64 - 2**63 for x, y in kept]
        assert compute_decimals("div", xs, ys, a, b, DecimalType(20, 0)).to_pylist() == quotients, f"{a} div {b}"


@pytest.mark.parametrize("sql", [
    "SELECT id, x % 0.000000000000000000000000000007 AS q FROM t",
    "SELECT id, pmod(x, 0.000000000000000000000000000007) AS q FROM t WHERE id = 1",
    "SELECT id, x div 0.000000000000000000000000000007 AS q FROM t WHERE id = 3",
    "SELECT id, (z * 9) div 0.007 AS q FROM t WHERE id = 1",
])
def test_an_integral_quotient_past_39_digits_fails_as_in_spark(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    """Spark fails with Java's ``ArithmeticException: Division impossible`` (no error class)
    where the integral quotient of ``%``, ``pmod`` or ``div`` needs more than 39 digits; vpush
    raises its error without a class, its message beginning with Java's."""
    with pytest.raises(Exception, match="Division impossible"):
        spark_view.sql(sql).collect()
    with pytest.raises(ExecutionError, match="^Division impossible") as raised:
        con.sql(sql).to_arrow()
    assert raised.value.error_class is None, "Spark's error has no class"


def test_a_zero_divisor_raises_or_is_null() -> None:
    """x / 0 raises DIVIDE_BY_ZERO (or the earlier row's overflow, in row order, as Spark's
    row-by-row evaluation does); try_divide gives NULL."""
    x = pa.array([D(1), D(10) ** 37, D(5)], pa.decimal128(38, 0))
    y = pa.array([D(2), D("0.001"), D(0)], pa.decimal128(38, 3))
    a, b, result = DecimalType(38, 0), DecimalType(38, 3), DecimalType(38, 6)
    assert compute_decimals("try_quotient", x, y, a, b, result).to_pylist() == [D("0.5"), None, None]
    with pytest.raises(ExecutionError) as raised:
        compute_decimals("quotient", x, y, a, b, result)
    assert raised.value.error_class == "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", "Row 2 overflows before row 3's zero"
    with pytest.raises(ExecutionError) as raised:
        compute_decimals("quotient", x.slice(2), y.slice(2), a, b, result)
    assert raised.value.error_class == "DIVIDE_BY_ZERO"


def test_grouped_try_sums_of_wide_decimals_over_a_broadcast_join(spark_view: SparkSession, con: vpush.Connection) -> None:
    """Over a join Spark makes a broadcast hash join, vpush follows its order of rows: answered."""
    sql = "SELECT a.id % 2 AS g, try_avg(a.z) AS a, try_sum(b.z) AS s FROM t AS a JOIN t AS b ON a.id = b.id GROUP BY a.id % 2"
    assert_same_answer(sql, spark_view, con)


@pytest.mark.parametrize("sql", ["SELECT a.id % 2 AS g, try_avg(a.z) AS a FROM t AS a JOIN (SELECT id FROM t) AS b ON a.id = b.id GROUP BY a.id % 2"])
def test_grouped_try_sums_of_wide_decimals_are_refused(sql: str, con: vpush.Connection) -> None:
    """With GROUP BY Spark's total of decimals of more than 28 digits is NULL once its running
    total passes 38 digits in its order of rows, which vpush follows where a SELECT reads one
    table, a subquery of it, or a broadcast hash join of two tables, but not over a join of a
    subquery: refused there."""
    with pytest.raises(VpushError) as raised:
        con.sql(sql).to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION", "Should be refused"


def test_split_sums_equal_exact_totals() -> None:
    """A decimal sum split into a bigint sum of units and a sum of small decimals
    (``_split_decimal``) and put together by ``finish_total`` equals Python's exact total, for
    every scale, values at the ends of ``decimal(38,s)`` and running totals far past 38 digits."""
    import duckdb

    from vpush.exec.compute_decimals import finish_total
    from vpush.optimizer.spark_semantics import _split_decimal

    connection = duckdb.connect()
    rng = random.Random(38)
    for scale in (0, 1, 10, 19, 20, 21, 30, 37, 38):
        big = [D(10**38 - 1), D(-(10**38) + 1)] + [D(rng.randrange(-(10**38) + 1, 10**38)) for _ in range(300)]
        small = [D(rng.randrange(-(10**19), 10**19)) for _ in range(100)]
        # group 4: running totals far past 38 digits that cancel; group 5: small values only
        cancelling = big[:60] + [v.copy_negate() for v in big[:60]] + small[:3]
        groups = [rng.randrange(4) for _ in big + small] + [4] * len(cancelling) + [5] * len(small)
        values = pa.array([v.scaleb(-scale, decimal.Context(prec=80)) for v in big + small + cancelling + small], pa.decimal128(38, scale))
        numbers = pa.table({"g": pa.array(groups, pa.int32()), "x": values})
        q, rest = _split_decimal(exp.column("x"), scale)
        sums = connection.sql(
            f"SELECT g, sum({q.sql('duckdb')}) AS q, sum({rest.sql('duckdb')}) AS r, count(x) AS n FROM numbers GROUP BY g ORDER BY g"
        ).to_arrow_table()
        got = finish_total("try_window_average", sums["q"], sums["r"], scale, DecimalType(38, min(scale + 4, 38)), sums["n"])
        totals = finish_total("try_total", sums["q"], sums["r"], scale, DecimalType(38, scale))
        context = decimal.Context(prec=100)
        for i, g in enumerate(sums["g"].to_pylist()):
            with decimal.localcontext(context):
                exact = sum((v for v, k in zip(values.to_pylist(), groups) if k == g), D(0))
            count = groups.count(g)
            unit = D(1).scaleb(-min(scale + 4, 38))
            average = context.divide(exact, count).quantize(unit, rounding=decimal.ROUND_HALF_UP, context=context)
            assert got[i].as_py() == (average if abs(average) < D(10) ** (38 - min(scale + 4, 38)) else None), f"scale {scale} group {g}"
            assert totals[i].as_py() == (exact if abs(exact) < D(10) ** (38 - scale) else None), f"scale {scale} group {g}"
            assert g < 4 or totals[i].as_py() is not None, "Should fit: the running total cancels"
