"""Spark's product of two decimals whose exact value may need more than DuckDB's 38 digits.

Spark multiplies two decimals exactly (java ``BigDecimal``), then rounds the product HALF_UP to
the result type's scale (``DecimalType.adjustPrecisionScale``: precision loss allowed, the default)
and fails only if the rounded value does not fit. DuckDB's decimals hold 38 digits, so where the
operands' precisions add up to more than 38 its product overflows where Spark answers
(``99999999.99`` to the fourth power: ``decimal(38,6)`` in Spark, ``ARITHMETIC_OVERFLOW`` in
DuckDB). The rewrite (:mod:`vpush.optimizer.spark_semantics`) calls the engine function of this
module there, one per pair of operand types (:func:`~vpush.optimizer.spark_semantics.decimal_product_function`);
it computes on whole Arrow columns in 256 bits (``decimal256``, 76 digits: every product of two
38-digit decimals fits), rounds with Arrow's half-away-from-zero mode (Spark's HALF_UP), and
checks the result against Spark's precision.
"""
from __future__ import annotations

import decimal
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
from duckdb.func import FunctionNullHandling

from vpush.exec.errors import ExecutionError
from vpush.optimizer.spark_semantics import decimal_product_types
from vpush.optimizer.variant_types import DecimalType

__all__ = ["multiply_decimals", "register_decimal_product"]

MAX_DECIMAL256_PRECISION = 76
# Spark's words for a decimal that does not fit its type (Decimal.toPrecision under ANSI).
_OUT_OF_RANGE = "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION"


def _as_decimal256(values: pa.Array | pa.ChunkedArray, of_type: DecimalType, precision: int) -> pa.Array:
    """``values`` (DuckDB's ``DECIMAL(38, s)``) as ``decimal256(precision, s)``.

    The values are of the Spark type ``of_type``, so they fit its precision; ``precision`` may be
    declared smaller than that only to keep Arrow's product type within 76 digits (see
    :func:`multiply_decimals`): the buffers are reinterpreted, not cast, since a checked cast would
    refuse the values the type understates.
    """
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    wide = array.cast(pa.decimal256(of_type.precision, of_type.scale))
    if precision == of_type.precision:
        return wide
    return pa.Array.from_buffers(pa.decimal256(precision, of_type.scale), len(wide), wide.buffers(), wide.null_count)


def multiply_decimals(
    x: pa.Array | pa.ChunkedArray, y: pa.Array | pa.ChunkedArray, a: DecimalType, b: DecimalType, result: DecimalType
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
            not fit ``result`` (Spark's error under ANSI mode).
    """
    # Arrow types a product decimal256(p1 + p2 + 1, s1 + s2) and refuses past 76 digits; the
    # product of a p1-digit and a p2-digit integer has at most p1 + p2 digits, so declaring one
    # operand a digit narrower loses nothing (Arrow's kernel multiplies the 256-bit integers).
    declared = min(a.precision, MAX_DECIMAL256_PRECISION - 1 - b.precision)
    product = pc.multiply(_as_decimal256(x, a, declared), _as_decimal256(y, b, b.precision))
    exact_scale = a.scale + b.scale
    int_digits = product.type.precision - exact_scale
    rounded = product
    if result.scale < exact_scale:
        # HALF_UP depends only on the first digit cut (at least 5: away from zero), so the cast
        # truncates (toward zero) to one digit past the result's scale, and Arrow rounds that one
        # digit. Arrow's round of many digits at once is wrong for large values (pyarrow 26:
        # 9999999999999999999999999999.9999999999 at scale 40 to 6 digits gives ...9.999999).
        guard = pa.decimal256(min(int_digits + result.scale + 2, MAX_DECIMAL256_PRECISION), result.scale + 1)
        rounded = pc.round(product.cast(guard, safe=False), ndigits=result.scale, round_mode="half_towards_infinity")
    try:
        # checked: the digit past the scale is 0 now, and a value past the precision raises
        return rounded.cast(pa.decimal128(result.precision, result.scale))
    except pa.ArrowInvalid:
        raise _out_of_range(rounded, result) from None


def _out_of_range(rounded: pa.Array, result: DecimalType) -> ExecutionError:
    """Spark's error for the first of ``rounded`` (at ``result``'s scale) past its precision."""
    bound = decimal.Decimal(10) ** (result.precision - result.scale)
    too_big = pc.greater_equal(pc.abs(rounded), pa.scalar(bound, pa.decimal256(result.precision - result.scale + 1, 0)))
    first = rounded.filter(too_big)[0].as_py()
    value = first.quantize(decimal.Decimal(1).scaleb(-result.scale), context=decimal.Context(prec=100))
    return ExecutionError(
        f"{value} cannot be represented as Decimal({result.precision}, {result.scale}). If necessary set "
        '"spark.sql.ansi.enabled" to "false" to bypass this error, and return NULL instead.',
        error_class=_OUT_OF_RANGE,
    )


def register_decimal_product(connection: duckdb.DuckDBPyConnection, name: str) -> None:
    """Create the product function ``name`` (see the module's docstring) unless it is there."""
    from vpush.exec.variant_functions import _create_once, _guarded

    a, b, result = decimal_product_types(name)

    def product(x: pa.Array, y: pa.Array) -> pa.Array:
        return multiply_decimals(x, y, a, b, result)

    def decimal_type(precision: int, scale: int) -> Any:
        return duckdb.sqltype(f"DECIMAL({precision}, {scale})")

    _create_once(
        connection, name, _guarded(product, "decimal multiplication"),
        [decimal_type(38, a.scale), decimal_type(38, b.scale)], decimal_type(result.precision, result.scale),
        null_handling=FunctionNullHandling.DEFAULT,
    )
