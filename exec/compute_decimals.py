"""Spark's decimal ``+ - * /`` where the exact value may need more than DuckDB's 38 digits.

Spark computes a decimal sum, difference, product or quotient exactly (java ``BigDecimal``),
rounds it HALF_UP to the result type's scale (``DecimalType.adjustPrecisionScale``: precision
loss allowed, the default) and fails only if the rounded value does not fit
(``NUMERIC_VALUE_OUT_OF_RANGE`` under ANSI; ``try_add``/``try_subtract``/``try_multiply``/
``try_divide`` answer NULL there, and ``try_divide`` for a zero divisor too). DuckDB's decimals
hold 38 digits, so where the exact value may need more its arithmetic overflows where Spark
answers (``99999999.99`` to the fourth power, ``decimal(38,10) + decimal(38,30)``: a
``decimal(38,6)`` and a ``decimal(38,9)`` in Spark). The rewrite
(:mod:`vpush.optimizer.spark_semantics`) calls the engine function of this module there, one per
operation and pair of operand types (:func:`~vpush.optimizer.spark_semantics.decimal_function`);
it computes on whole Arrow columns in 256 bits (``decimal256``, 76 digits), rounds with Arrow's
half-away-from-zero mode (Spark's HALF_UP), and checks the result against Spark's precision.
"""
from __future__ import annotations

import decimal
from typing import Any, TypeAlias

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
from duckdb.func import FunctionNullHandling

from vpush.exec.errors import ExecutionError
from vpush.optimizer.spark_semantics import decimal_function_types
from vpush.optimizer.variant_types import MAX_DECIMAL_PRECISION, DecimalType

__all__ = ["add_decimals", "compute_decimals", "div_decimals", "divide_decimals", "finish_total", "multiply_decimals", "register_decimal_function",
           "remainder_decimals", "total_decimals"]

MAX_DECIMAL256_PRECISION = 76
# Spark's words for a decimal that does not fit its type (Decimal.toPrecision under ANSI), and
# for a zero divisor.
_OUT_OF_RANGE = "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION"
_DIVIDE_BY_ZERO = "DIVIDE_BY_ZERO"
# The digits a decimal256 integer of up to 76 digits is declared with.
_INTEGER = pa.decimal256(MAX_DECIMAL256_PRECISION, 0)
_ZERO = pa.scalar(decimal.Decimal(0), _INTEGER)
_ONE = pa.scalar(decimal.Decimal(1), _INTEGER)
_ONE75 = pa.scalar(decimal.Decimal(1), pa.decimal256(75, 0))
# The digits of the integral quotient of Spark's decimal ``%``, ``pmod`` and ``div``: java's
# ``divideToIntegralValue`` under Spark's ``MathContext`` (38 + 1 digits) fails past them.
_DIVISION_DIGITS = MAX_DECIMAL_PRECISION + 1

Column: TypeAlias = "pa.Array | pa.ChunkedArray"


def _declared(array: pa.Array, of_type: pa.DataType) -> pa.Array:
    """The 256-bit integers of ``array`` read as ``of_type`` (reinterpreted, not cast: a checked
    cast would refuse the values a narrower declared precision understates)."""
    return pa.Array.from_buffers(of_type, len(array), array.buffers(), array.null_count, array.offset)


def _as_decimal256(values: Column, of_type: DecimalType, precision: int | None = None) -> pa.Array:
    """``values`` (DuckDB's ``DECIMAL(38, s)``) as ``decimal256(precision, s)``.

    The values are of the Spark type ``of_type``, so they fit its precision; ``precision`` may be
    declared smaller than that only to keep Arrow's result type within 76 digits where the value
    is known to fit (see :func:`multiply_decimals` and :func:`add_decimals`).
    """
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    wide = array.cast(pa.decimal256(of_type.precision, of_type.scale))
    if precision is None or precision == of_type.precision:
        return wide
    return _declared(wide, pa.decimal256(precision, of_type.scale))


def _round_half_up(exact: pa.Array, scale: int) -> pa.Array:
    """``exact`` (a decimal256) rounded HALF_UP to ``scale`` digits, where it has more."""
    exact_scale = exact.type.scale
    if scale >= exact_scale:
        return exact
    # HALF_UP depends only on the first digit cut (at least 5: away from zero), so the cast
    # truncates (toward zero) to one digit past the result's scale, and Arrow rounds that one
    # digit. Arrow's round of many digits at once is wrong for large values (pyarrow 26:
    # 9999999999999999999999999999.9999999999 at scale 40 to 6 digits gives ...9.999999).
    int_digits = exact.type.precision - exact_scale
    guard = pa.decimal256(min(int_digits + scale + 2, MAX_DECIMAL256_PRECISION), scale + 1)
    return pc.round(exact.cast(guard, safe=False), ndigits=scale, round_mode="half_towards_infinity")


def _fitted(rounded: pa.Array, result: DecimalType, null_on_error: bool) -> pa.Array:
    """``rounded`` (at or below ``result``'s scale) as ``result``; where a value does not fit,
    Spark's error, or NULL with ``null_on_error`` (its ``try_`` functions)."""
    target = pa.decimal128(result.precision, result.scale)
    try:
        # checked: the digits past the scale are 0, and a value past the precision raises
        return rounded.cast(target)
    except pa.ArrowInvalid:
        fits = _fits(rounded, result)
        if not null_on_error:
            raise _out_of_range(rounded.filter(pc.invert(fits))[0].as_py(), result) from None
        return pc.if_else(fits, rounded, pa.scalar(None, rounded.type)).cast(target)


def _fits(values: pa.Array, result: DecimalType) -> pa.Array:
    """Where ``values`` (at ``result``'s scale or below) fit ``result``'s precision."""
    bound = decimal.Decimal(10) ** (result.precision - result.scale)
    return pc.less(pc.abs(values), pa.scalar(bound, pa.decimal256(result.precision - result.scale + 1, 0)))


def _out_of_range(value: decimal.Decimal, result: DecimalType) -> ExecutionError:
    """Spark's error for ``value`` past ``result``'s precision."""
    shown = value.quantize(decimal.Decimal(1).scaleb(-result.scale), rounding=decimal.ROUND_HALF_UP, context=decimal.Context(prec=200))
    return ExecutionError(
        f"{shown} cannot be represented as Decimal({result.precision}, {result.scale}). If necessary set "
        '"spark.sql.ansi.enabled" to "false" to bypass this error, and return NULL instead.',
        error_class=_OUT_OF_RANGE,
    )


def multiply_decimals(
    x: Column, y: Column, a: DecimalType, b: DecimalType, result: DecimalType, *, null_on_error: bool = False
) -> pa.Array:
    """``x * y`` of a ``a`` column by a ``b`` column as Spark computes it: exact, rounded HALF_UP
    to ``result``'s scale; NULL where either is NULL.

    Example:
        >>> from decimal import Decimal
        >>> x = pa.array([Decimal("99999999.99"), None], pa.decimal128(38, 2))
        >>> y = pa.array([Decimal("999999999999999999999999.999999"), Decimal(1)], pa.decimal128(38, 6))
        >>> multiply_decimals(x, y, DecimalType(10, 2), DecimalType(30, 6), DecimalType(38, 6)).to_pylist()
        [Decimal('99999999989999999999999999999900.000000'), None]

    Raises:
        ExecutionError: ``NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION`` where a rounded product does
            not fit ``result`` (Spark's error under ANSI mode), unless ``null_on_error``.
    """
    # Arrow types a product decimal256(p1 + p2 + 1, s1 + s2) and refuses past 76 digits; the
    # product of a p1-digit and a p2-digit integer has at most p1 + p2 digits, so declaring one
    # operand a digit narrower loses nothing (Arrow's kernel multiplies the 256-bit integers).
    declared = min(a.precision, MAX_DECIMAL256_PRECISION - 1 - b.precision)
    product = pc.multiply(_as_decimal256(x, a, declared), _as_decimal256(y, b))
    return _fitted(_round_half_up(product, result.scale), result, null_on_error)


def add_decimals(
    x: Column, y: Column, a: DecimalType, b: DecimalType, result: DecimalType, *, subtract: bool = False,
    null_on_error: bool = False,
) -> pa.Array:
    """``x + y`` (``x - y`` with ``subtract``) of a ``a`` column and a ``b`` column as Spark
    computes it: exact, rounded HALF_UP to ``result``'s scale; NULL where either is NULL.

    Example:
        >>> from decimal import Decimal
        >>> x = pa.array([Decimal("1234567890123456789012345678.0123456789")], pa.decimal128(38, 10))
        >>> y = pa.array([Decimal("12345678.123456789012345678901234567890")], pa.decimal128(38, 30))
        >>> add_decimals(x, y, DecimalType(38, 10), DecimalType(38, 30), DecimalType(38, 9)).to_pylist()
        [Decimal('1234567890123456789024691356.135802468')]

    Raises:
        ExecutionError: ``NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION`` where a rounded value does
            not fit ``result``, unless ``null_on_error``.
    """
    wide_a, wide_b = _as_decimal256(x, a), _as_decimal256(y, b)
    if subtract:
        wide_b = pc.negate(wide_b)
    # Arrow types the sum decimal256(max(i1, i2) + max(s1, s2) + 1, max(s1, s2)) (i: integer
    # digits) and refuses past 76 digits: only for decimal(38,0) with decimal(38,38).
    if max(a.precision - a.scale, b.precision - b.scale) + max(a.scale, b.scale) + 1 <= MAX_DECIMAL256_PRECISION:
        exact = pc.add(wide_a, wide_b)
        return _fitted(_round_half_up(exact, result.scale), result, null_on_error)
    whole, fraction = (wide_a, wide_b) if a.scale == 0 else (wide_b, wide_a)
    # An integer plus a fraction of the same sign rounds as the integer plus the rounded
    # fraction (HALF_UP is symmetric); of opposite signs, a unit moves from one to the other.
    unit, zero = (pa.scalar(decimal.Decimal(n), pa.decimal256(1, 0)) for n in (1, 0))
    moved = pc.if_else(
        pc.and_(pc.greater(whole, zero), pc.less(fraction, zero)), unit,
        pc.if_else(pc.and_(pc.less(whole, zero), pc.greater(fraction, zero)), pc.negate(unit), zero),
    )
    whole = pc.subtract(whole, moved).cast(pa.decimal256(38, 0))
    fraction = pc.add(fraction, moved).cast(pa.decimal256(38, 38))
    exact = pc.add(whole, _round_half_up(fraction, result.scale))
    return _fitted(_round_half_up(exact, result.scale), result, null_on_error)


def _times_ten_to(values: pa.Array, power: int) -> pa.Array:
    """``values`` (decimal256 integers) times ``10 ** power``; the products must fit 76 digits."""
    if power == 0:
        return values
    factor = pa.scalar(decimal.Decimal(10) ** power, pa.decimal256(power + 1, 0))
    return _declared(pc.multiply(_declared(values, pa.decimal256(MAX_DECIMAL256_PRECISION - power - 2, 0)), factor), _INTEGER)


def _divmod_shifted(n: pa.Array, m: pa.Array, k: int) -> tuple[pa.Array, pa.Array]:
    """The quotient and remainder of ``n * 10**k`` by ``m`` (non-negative decimal256 integers,
    ``m`` above 0), where ``n * 10**k`` fits 76 digits.

    Arrow's decimal division scales the dividend up by ``S + s2 - s1`` digits (``S = max(4, s1 +
    p2 - s2 + 1)``, the result's scale) and divides the integers, truncating: declared as
    ``decimal256(76 - k', 4)`` by ``decimal256(k' - 1, 0)`` the scale-up is ``k'`` (at least 2);
    a smaller ``k`` drops the extra digits again (a truncated quotient truncated further).
    """
    shifted = max(k, 2)
    quotient = pc.divide(
        _declared(n, pa.decimal256(MAX_DECIMAL256_PRECISION - shifted, 4)), _declared(m, pa.decimal256(shifted - 1, 0))
    )
    quotient = _declared(quotient, pa.decimal256(MAX_DECIMAL256_PRECISION, shifted - k))
    if shifted != k:
        quotient = quotient.cast(pa.decimal256(MAX_DECIMAL256_PRECISION, 0), safe=False)
    quotient = _declared(quotient, _INTEGER)
    remainder = pc.subtract(
        _declared(_times_ten_to(n, k), pa.decimal256(MAX_DECIMAL256_PRECISION - 1, 0)),
        _declared(pc.multiply(_declared(quotient, pa.decimal256(37, 0)), _declared(m, pa.decimal256(38, 0))),
                  pa.decimal256(MAX_DECIMAL256_PRECISION - 1, 0)),
    )
    return quotient, _declared(remainder, _INTEGER)


def divide_decimals(
    x: Column, y: Column, a: DecimalType, b: DecimalType, result: DecimalType, *, null_on_error: bool = False
) -> pa.Array:
    """``x / y`` of a ``a`` column by a ``b`` column as Spark computes it: the exact quotient
    rounded HALF_UP to ``result``'s scale (Spark's ``DecimalPrecision`` type); NULL where either
    is NULL.

    Example:
        >>> from decimal import Decimal
        >>> x = pa.array([Decimal("1234567890123456789012345678.0123456789"), Decimal(-1)], pa.decimal128(38, 10))
        >>> y = pa.array([Decimal("12345678.123456789012345678901234567890"), Decimal(3)], pa.decimal128(38, 30))
        >>> divide_decimals(x, y, DecimalType(38, 10), DecimalType(38, 30), DecimalType(38, 6)).to_pylist()
        [Decimal('100000006300000462510.033869'), Decimal('-0.333333')]

    Raises:
        ExecutionError: ``DIVIDE_BY_ZERO`` for a zero divisor and
            ``NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION`` where a rounded quotient does not fit
            ``result`` (the first such row's), unless ``null_on_error``: NULL there instead.
    """
    wide_x, wide_y = _as_decimal256(x, a), _as_decimal256(y, b)
    int_x, int_y = _declared(wide_x, _INTEGER), _declared(wide_y, _INTEGER)
    negative = pc.not_equal(pc.less(int_x, _ZERO), pc.less(int_y, _ZERO))
    n, m = pc.abs(int_x), pc.abs(int_y)
    # the quotient's unscaled integer at the result's scale is (x * 10^shift) / y on the integers
    shift = result.scale - a.scale + b.scale
    zero = pc.equal(m, _ZERO)
    if shift >= 0:
        # Where x * 10^shift >= 10^p * y the quotient cannot fit decimal(p, s): those rows fail
        # and are left out, and for the rest x * 10^shift is below 10^(p + 38), at most 76 digits.
        excess = shift - result.precision
        big = (pc.greater_equal(_times_ten_to(n, excess), m) if excess >= 0
               else pc.greater_equal(n, _times_ten_to(m, -excess)))
        failed = pc.or_(zero, big)
    else:
        m = _times_ten_to(m, -shift)
        failed = zero  # x / (y * 10^-shift) is below 10^38
    n = pc.if_else(failed, _ZERO, n)
    m = pc.if_else(failed, _ONE, m)
    first = min(shift, MAX_DECIMAL256_PRECISION - 38) if shift >= 0 else 0
    quotient, remainder = _divmod_shifted(n, m, first)
    if shift > first:
        # the rest of the digits from the remainder (below m, at most 38 digits): long division
        rest, remainder = _divmod_shifted(remainder, m, shift - first)
        quotient = pc.add(_declared(_times_ten_to(quotient, shift - first), pa.decimal256(75, 0)), _declared(rest, pa.decimal256(75, 0)))
        quotient = _declared(quotient, _INTEGER)
    # HALF_UP: up where twice the remainder reaches the divisor
    up = pc.greater_equal(remainder, _declared(pc.subtract(_declared(m, pa.decimal256(75, 0)), _declared(remainder, pa.decimal256(75, 0))), _INTEGER))
    magnitude = _declared(pc.if_else(up, _declared(pc.add(_declared(quotient, pa.decimal256(75, 0)), _ONE75), _INTEGER), quotient), _INTEGER)
    signed = pc.if_else(negative, pc.negate(magnitude), magnitude)
    rounded = _declared(signed, pa.decimal256(MAX_DECIMAL256_PRECISION, result.scale))
    if not null_on_error and pc.any(failed).as_py():
        row = pc.index(failed, True).as_py()
        before = rounded.slice(0, row)
        if len(before) and not pc.all(_fits(before, result)).as_py():
            return _fitted(before, result, null_on_error)  # an earlier row's quotient fails first
        if zero[row].as_py():
            raise ExecutionError(
                "Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead.",
                error_class=_DIVIDE_BY_ZERO,
            )
        exact = decimal.Context(prec=200).divide(wide_x[row].as_py(), wide_y[row].as_py())
        raise _out_of_range(exact, result)
    if null_on_error:
        rounded = pc.if_else(failed, pa.scalar(None, rounded.type), rounded)
    return _fitted(rounded, result, null_on_error)


def remainder_decimals(x: Column, y: Column, a: DecimalType, b: DecimalType, result: DecimalType) -> pa.Array:
    """``x % y`` of a ``a`` column by a ``b`` column as Spark computes it (``BigDecimal.remainder``:
    exact, with the dividend's sign, at the larger scale); NULL where either is NULL.

    Example:
        >>> from decimal import Decimal
        >>> x = pa.array([Decimal("-31622776601683793319.9880107773")], pa.decimal128(38, 10))
        >>> y = pa.array([Decimal("-0.5")], pa.decimal128(38, 30))
        >>> remainder_decimals(x, y, DecimalType(38, 10), DecimalType(38, 30), DecimalType(38, 30)).to_pylist()
        [Decimal('-0.488010777300000000000000000000')]

    Raises:
        ExecutionError: ``REMAINDER_BY_ZERO`` for a zero divisor (the first row's).
    """
    negative, _, _, remainder = _integral_divmod(x, y, a, b, "Remainder by zero. Use `try_mod` to tolerate divisor "
                                                    "being 0 and return NULL instead.", "REMAINDER_BY_ZERO")
    signed = pc.if_else(negative, pc.negate(remainder), remainder)
    return _fitted(_declared(signed, pa.decimal256(MAX_DECIMAL256_PRECISION, max(a.scale, b.scale))), result, null_on_error=False)


def _integral_divmod(
    x: Column, y: Column, a: DecimalType, b: DecimalType, zero_message: str, zero_class: str, *, quotient_digits: int = _DIVISION_DIGITS
) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array]:
    """Where ``x`` is negative, where the quotient is, and the integral quotient and remainder
    of ``|x|`` by ``|y|``
    (Java's ``BigDecimal.divideAndRemainder`` under Spark's ``MathContext`` of 39 digits).

    Raises:
        ExecutionError: for the first row that fails, as Spark's row-by-row evaluation does:
            ``zero_class`` for a zero divisor (a NULL dividend is NULL before its divisor is
            looked at, as Spark's ``DivModLike``), Spark's error without a class (java's
            ``ArithmeticException: Division impossible``) where the integral quotient needs
            more than 39 digits, and ``NUMERIC_VALUE_OUT_OF_RANGE`` where it needs more than
            ``quotient_digits`` (``div``'s ``decimal(38,0)``).
    """
    int_x, int_y = (_declared(_as_decimal256(v, t), _INTEGER) for v, t in ((x, a), (y, b)))
    negative = pc.less(int_x, _ZERO)
    n, m = pc.abs(int_x), pc.abs(int_y)
    zero = pc.fill_null(pc.and_(pc.equal(m, _ZERO), pc.is_valid(n)), False)
    # both at the larger scale (at most 38 + 38 digits): the quotient and remainder of their integers
    scale = max(a.scale, b.scale)
    quotient, remainder = _divmod_shifted(n, _times_ten_to(pc.if_else(pc.equal(m, _ZERO), _ONE, m), scale - b.scale), scale - a.scale)
    wide = pc.fill_null(pc.greater_equal(quotient, pa.scalar(decimal.Decimal(10) ** quotient_digits, pa.decimal256(quotient_digits + 1, 0))), False)
    failed = pc.or_(zero, wide)
    if pc.any(failed).as_py():
        row = pc.index(failed, True).as_py()
        if zero[row].as_py():
            raise ExecutionError(zero_message, error_class=zero_class)
        if quotient[row].as_py() >= decimal.Decimal(10) ** _DIVISION_DIGITS:
            raise ExecutionError("Division impossible: the integral quotient of a decimal %, pmod or div needs more than "
                                 f"{_DIVISION_DIGITS} digits (Java's BigDecimal under Spark's MathContext)")
        sign = -1 if pc.not_equal(negative, pc.less(int_y, _ZERO))[row].as_py() else 1
        raise _out_of_range(sign * quotient[row].as_py(), DecimalType(quotient_digits, 0))
    return negative, pc.not_equal(negative, pc.less(int_y, _ZERO)), quotient, remainder


def div_decimals(x: Column, y: Column, a: DecimalType, b: DecimalType) -> pa.Array:
    """``x div y`` of a ``a`` column by a ``b`` column as Spark computes it: the quotient
    truncated toward zero, as a bigint wrapped around 64 bits (``BigDecimal.longValue``); NULL
    where either is NULL.

    Example:
        >>> from decimal import Decimal
        >>> x = pa.array([Decimal("999999999999999999"), Decimal("-7.5")], pa.decimal128(38, 1))
        >>> y = pa.array([Decimal("0.07"), Decimal("2")], pa.decimal128(38, 30))
        >>> div_decimals(x, y, DecimalType(38, 1), DecimalType(38, 30)).to_pylist()
        [-4161029787995265916, -3]

    Raises:
        ExecutionError: ``DIVIDE_BY_ZERO`` for a zero divisor; without a class where the
            quotient needs more than 39 digits (Spark's ``Division impossible``), NUMERIC_VALUE_OUT_OF_RANGE more than 38.
    """
    _, negative, quotient, _ = _integral_divmod(x, y, a, b, "Division by zero. Use `try_divide` to tolerate divisor being 0 "
                                                "and return NULL instead.", _DIVIDE_BY_ZERO, quotient_digits=MAX_DECIMAL_PRECISION)
    two_64 = pa.scalar(decimal.Decimal(2**64), pa.decimal256(20, 0))
    _, low = _divmod_shifted(quotient, _declared(pa.repeat(two_64, len(quotient)).cast(pa.decimal256(20, 0)), _INTEGER), 0)
    # the two's complement of a negative quotient's low 64 bits (below 2^64: 20 digits), then
    # read as a signed long
    low = _declared(low, pa.decimal256(20, 0))
    wide = pa.decimal256(22, 0)
    low = pc.if_else(pc.and_(negative, pc.not_equal(low, _ZERO)), pc.subtract(two_64, low).cast(wide), low.cast(wide))
    high = pc.greater_equal(low, pa.scalar(decimal.Decimal(2**63), pa.decimal256(19, 0)))
    return pc.if_else(high, pc.subtract(low, two_64).cast(wide), low).cast(pa.int64())


# Where Spark's sum or average of decimals overflows between its partial and final aggregation.
_SUM_OVERFLOW = "Overflow in sum of decimals. Use '{}' to tolerate overflow and return NULL instead."


def total_decimals(q: Column, rest: Column, scale: int) -> pa.Array:
    """The exact total ``q * 10^20 + rest`` (unscaled) of the two sums a decimal ``sum`` of scale
    ``scale`` was split into (:func:`~vpush.optimizer.spark_semantics._split_decimal`), as a
    ``decimal256(76, scale)``.

    Example:
        >>> from decimal import Decimal
        >>> q, rest = pa.array([Decimal(18 * 10**17)], pa.decimal128(38, 0)), pa.array([Decimal(1)], pa.decimal128(38, 0))
        >>> total_decimals(q, rest, 0).to_pylist()
        [Decimal('180000000000000000000000000000000000001')]
    """
    units = _times_ten_to(_declared(_as_decimal256(q, DecimalType(MAX_DECIMAL_PRECISION, 0)), _INTEGER), 20)
    small = _declared(_as_decimal256(rest, DecimalType(MAX_DECIMAL_PRECISION, scale)), _INTEGER)
    wide = pa.decimal256(MAX_DECIMAL256_PRECISION - 1, 0)
    return _declared(pc.add(_declared(units, wide), _declared(small, wide)), pa.decimal256(MAX_DECIMAL256_PRECISION, scale))


def finish_total(operation: str, q: Column, rest: Column, scale: int, result: DecimalType, count: Column | None = None) -> pa.Array:
    """Spark's ``sum`` (``operation`` ``total``) or ``avg`` (``average``) of decimals from the
    split sums ``q`` and ``rest`` (and the count, for an average): the exact total checked at the
    end. Without a window a total past the sum's type is Spark's ``ARITHMETIC_OVERFLOW`` (its
    partial aggregation hands it on as that type); over one (``window_``) a sum past its type is
    ``NUMERIC_VALUE_OUT_OF_RANGE``, and an average is the exact total divided by the count.
    ``try_`` operations answer NULL where the others raise.

    Example:
        >>> from decimal import Decimal
        >>> q, rest = pa.array([Decimal(18 * 10**17)], pa.decimal128(38, 0)), pa.array([Decimal(1)], pa.decimal128(38, 0))
        >>> finish_total("window_average", q, rest, 0, DecimalType(38, 4), pa.array([20000], pa.int64())).to_pylist()
        [Decimal('9000000000000000000000000000000000.0001')]
    """
    null_on_error = operation.startswith("try_")
    total = total_decimals(q, rest, scale)
    sum_type = DecimalType(MAX_DECIMAL_PRECISION, scale)
    if "window" not in operation or "average" not in operation:
        fits = pc.fill_null(_fits(total, sum_type), True)
        if null_on_error:
            total = pc.if_else(fits, total, pa.scalar(None, total.type))
        elif not pc.all(fits).as_py():
            if "window" in operation:
                raise _out_of_range(total.filter(pc.invert(fits))[0].as_py(), sum_type)
            raise ExecutionError(_SUM_OVERFLOW.format("try_avg" if "average" in operation else "try_sum"), error_class="ARITHMETIC_OVERFLOW")
    if "average" not in operation:
        return total.cast(pa.decimal128(result.precision, result.scale))
    assert count is not None  # an average's function takes the count
    counts = (count.combine_chunks() if isinstance(count, pa.ChunkedArray) else count).cast(pa.decimal128(20, 0))
    return divide_decimals(total, counts, DecimalType(MAX_DECIMAL256_PRECISION, scale), DecimalType(20, 0), result, null_on_error=null_on_error)


def compute_decimals(operation: str, x: Column, y: Column, a: DecimalType, b: DecimalType, result: DecimalType) -> pa.Array:
    """``operation`` (one of :data:`~vpush.optimizer.spark_semantics.DECIMAL_OPERATIONS`) of a
    ``a`` column and a ``b`` column as Spark computes it.

    Example:
        >>> from decimal import Decimal
        >>> x, y = pa.array([Decimal(1)], pa.decimal128(38, 0)), pa.array([Decimal(0)], pa.decimal128(38, 0))
        >>> compute_decimals("try_quotient", x, y, DecimalType(38, 0), DecimalType(38, 0), DecimalType(38, 6)).to_pylist()
        [None]
    """
    null_on_error = operation.startswith("try_")
    name = operation.removeprefix("try_")
    if name == "product":
        return multiply_decimals(x, y, a, b, result, null_on_error=null_on_error)
    if name == "quotient":
        return divide_decimals(x, y, a, b, result, null_on_error=null_on_error)
    if name == "remainder":
        return remainder_decimals(x, y, a, b, result)
    if name == "div":
        return div_decimals(x, y, a, b)
    return add_decimals(x, y, a, b, result, subtract=name == "difference", null_on_error=null_on_error)


def register_decimal_function(connection: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Create the engine function ``name`` (see the module's docstring) unless it is there."""
    from vpush.exec.variant_functions import _create_once, _guarded

    operation, a, b, result = decimal_function_types(name)
    if operation == "ordered_total":
        from vpush.codec.spark_aggregates import spark_decimal_sum

        from vpush.codec.spark_aggregates import POSITION, POSITIONED_VALUE

        listed = duckdb.sqltype(f"STRUCT({POSITIONED_VALUE} DECIMAL(38, {a.scale}), {POSITION} BIGINT)[]")
        return _create_once(connection, name, _guarded(spark_decimal_sum, "sum"), [listed], duckdb.sqltype(f"DECIMAL(38, {result.scale})"))

    def compute(x: pa.Array, y: pa.Array) -> pa.Array:
        if operation.endswith("total"):
            return finish_total(operation, x, y, b.scale, result)
        return compute_decimals(operation, x, y, a, b, result)

    def average(x: pa.Array, y: pa.Array, count: pa.Array) -> pa.Array:
        return finish_total(operation, x, y, b.scale, result, count)

    def decimal_type(precision: int, scale: int) -> Any:
        return duckdb.sqltype(f"DECIMAL({precision}, {scale})")

    returned = duckdb.sqltype("BIGINT") if operation == "div" else decimal_type(result.precision, result.scale)
    counted = [duckdb.sqltype("BIGINT")] if operation.endswith("average") else []

    return _create_once(
        connection, name, _guarded(average if counted else compute, f"decimal {operation.replace('_', ' ')}"),
        [decimal_type(38, a.scale), decimal_type(38, b.scale), *counted], returned,
        # a try_ function answers NULL for some rows without a NULL argument, which DuckDB takes
        # only from a function that is handed the NULLs too (SPECIAL: Arrow passes them through)
        null_handling=FunctionNullHandling.SPECIAL if operation.startswith("try_") else FunctionNullHandling.DEFAULT,
    )
