"""Spark's number format functions on the DuckDB engine: ``to_number(s, fmt)`` and
``try_to_number(s, fmt)`` (a ``decimal(p, s)`` typed by the format), ``to_char(x, fmt)`` and
``to_varchar(x, fmt)`` of a number.

Spark checks a literal format before it runs anything (``INVALID_FORMAT.*``) and takes only a
foldable one; it casts an integer to a decimal, a double to ``decimal(30,15)`` and a float to
``decimal(14,7)`` before printing. The compiled kernel (:mod:`vpush.codec.spark_number_format`)
reads and prints each row: ``to_char`` hands it the decimal as DuckDB prints it, whose digits are
those of Spark's ``toPlainString`` once the zeros at either end are stripped, as Spark strips them.
"""

from __future__ import annotations

from typing import Callable

from sqlglot import exp

from vpush.codec.errors import CodecError
from vpush.codec.spark_number_format import number_format
from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.variant_types import DecimalType, SparkType, StringType

__all__ = ["NUMBER_FORMAT_CALLS", "NUMBER_FORMAT_FUNCTION", "number_format_type", "rewrite_number_format"]

NUMBER_FORMAT_FUNCTION = "vpush_number_format"
"""The engine function of :mod:`vpush.codec.spark_number_format`: (text VARCHAR, format VARCHAR,
kind INTEGER) -> VARCHAR, the kind one of :data:`KINDS`."""

KINDS = {"to_char": 0, "to_varchar": 0, "to_number": 1, "try_to_number": 2}
"""The engine function's kind argument for each function."""

NUMBER_FORMAT_CALLS = frozenset(KINDS)

_INTEGRAL = frozenset({"tinyint", "smallint", "int", "bigint"})
# the decimal Spark casts a double or float to (DecimalType.forType)
_FRACTIONAL_DECIMALS = {"double": DecimalType(30, 15), "float": DecimalType(14, 7)}


def _format(called: str, fmt: exp.Expr | None) -> str | None:
    """The literal format (None for a NULL one), checked as Spark checks it."""
    if isinstance(fmt, exp.Null):
        return None
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        raise OptimizeError(
            f"{called}: the DuckDB engine does not give Spark's answer for a format that is not a literal yet; the Spark engine runs it",
            error_class="VPUSH_UNSUPPORTED_FUNCTION",
        )
    try:
        number_format(fmt.name)
    except CodecError as exc:
        raise OptimizeError(exc.message, error_class=exc.error_class) from None
    return fmt.name


def number_format_type(called: str, arguments: list[exp.Expr | None]) -> SparkType | None:
    """Spark's type of a number format call: a string for ``to_char``, the format's decimal for
    ``to_number`` (``decimal(10,0)`` for a NULL format); None where the format is not a literal.

    Example:
        >>> number_format_type("to_number", [exp.column("s"), exp.Literal.string("S9,999.99")])
        DecimalType(precision=6, scale=2)
    """
    if called in ("to_char", "to_varchar"):
        return StringType()
    fmt = arguments[1] if len(arguments) == 2 else None
    if isinstance(fmt, exp.Null):
        return DecimalType(10, 0)
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        return None
    try:
        parsed = number_format(fmt.name)
    except CodecError:
        return None  # raised where the call is rewritten
    return DecimalType(parsed.precision, parsed.scale)


def rewrite_number_format(
    called: str, value: exp.Expr, fmt: exp.Expr | None, source: SparkType | None, functions: dict[str, SparkType],
    to_decimal: Callable[[exp.Expr, DecimalType], exp.Expr],
) -> exp.Expr:
    """A number format call as the engine function over the value's text, a ``to_number`` cast
    to its decimal; ``to_decimal`` is Spark's cast of a double or float to a decimal.

    Example:
        >>> used = {}
        >>> rewrite_number_format("to_number", exp.column("s"), exp.Literal.string("9.9"), StringType(), used, None).sql("duckdb")
        "CAST(VPUSH_NUMBER_FORMAT(CAST(s AS TEXT), '9.9', 1) AS DECIMAL(2, 1))"

    Raises:
        OptimizeError: Spark's ``INVALID_FORMAT.*`` for a format it rejects; ``DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION``
            for a ``to_number`` format of over 38 digits; ``VPUSH_UNSUPPORTED_FUNCTION`` for a format
            that is not a literal and a value other than a number (``to_char``) or a string or integer (``to_number``).
    """
    name = source.to_spark() if source is not None else None
    printing = called in ("to_char", "to_varchar")
    # to_char of a binary is hex, base64 or decode by its format, of a string Spark's implicit cast
    # to a decimal; to_number of an integer reads Spark's text of it, its digits
    if not (isinstance(value, exp.Null) or (
        isinstance(source, DecimalType) or name in _INTEGRAL or name in _FRACTIONAL_DECIMALS if printing else isinstance(source, StringType) or name in _INTEGRAL
    )):
        raise OptimizeError(
            f"{called}: the DuckDB engine does not give Spark's answer for a {name or 'value of a type vpush does not know'} yet; the Spark engine runs it",
            error_class="VPUSH_UNSUPPORTED_FUNCTION",
        )
    text = _format(called, fmt)
    result: SparkType = StringType()
    if printing and name in _FRACTIONAL_DECIMALS:
        value = to_decimal(value, _FRACTIONAL_DECIMALS[name])
    if not printing:
        if text is None:
            return exp.cast(exp.Null(), exp.DataType.build("DECIMAL(10, 0)"))
        parsed = number_format(text)
        if parsed.precision > 38:
            raise OptimizeError(
                f"Decimal precision {parsed.precision} exceeds max precision 38.", error_class="DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION"
            )
        result = DecimalType(parsed.precision, parsed.scale)
    if text is None:
        return exp.cast(exp.Null(), exp.DataType.build("VARCHAR"))
    functions[NUMBER_FORMAT_FUNCTION] = StringType()
    call: exp.Expr = exp.Anonymous(
        this=NUMBER_FORMAT_FUNCTION,
        expressions=[exp.cast(value, exp.DataType.build("VARCHAR")), exp.Literal.string(text), exp.Literal.number(KINDS[called])],
    )
    if isinstance(result, DecimalType):
        call = exp.cast(call, exp.DataType.build(f"DECIMAL({result.precision}, {result.scale})"))
    return call
