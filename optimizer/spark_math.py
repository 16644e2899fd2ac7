"""Spark's integer and NaN math functions on the DuckDB engine: factorial, nanvl, bit_count, getbit.

DuckDB has functions under these names with other answers: its ``factorial`` is a 128-bit
integer and raises past 33 (Spark's is a ``bigint``, NULL outside 0..20), its ``bit_count`` counts
the bits of the argument's own width (Spark's sign-extends to a ``long`` first, so
``bit_count(-1)`` of any integer is 64), its ``get_bit`` takes a bit string. Each rewrite here
gives Spark's type, value and error, checked against PySpark by ``tests/test_spark_functions.py``;
a form it cannot answer exactly (an argument Spark would cast from a string, say) is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NoReturn

from sqlglot import exp

from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.variant_types import AtomicType, DecimalType, SparkType

if TYPE_CHECKING:
    TypeOf = Callable[[exp.Expr], SparkType | None]

__all__ = ["MATH_FUNCTIONS", "math_type", "rewrite_math"]

MATH_FUNCTIONS = frozenset({"factorial", "nanvl", "bit_count", "getbit", "bit_get"})
"""The functions this module answers."""

_WIDTHS = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}


def _name(t: SparkType | None) -> str | None:
    if isinstance(t, DecimalType):
        return "decimal"
    return t.name if isinstance(t, AtomicType) else None


def _refuse(called: str, what: str) -> NoReturn:
    raise OptimizeError(
        f"{called}: the DuckDB engine does not give Spark's answer for {what} yet; the Spark engine runs it",
        error_class="VPUSH_UNSUPPORTED_FUNCTION",
    )


def math_type(called: str, arguments: list[exp.Expr], of: TypeOf) -> SparkType | None:
    """The Spark type of a call to one of :data:`MATH_FUNCTIONS`, or None where vpush does not
    answer it (the call is then refused by :func:`rewrite_math`).

    Example:
        >>> math_type("nanvl", [exp.column("a"), exp.column("b")], lambda n: AtomicType("float"))
        AtomicType(name='float')
    """
    names = [_name(of(a)) for a in arguments]
    if called == "factorial":
        return AtomicType("bigint") if names and names[0] in ("tinyint", "smallint", "int") else None
    if called == "nanvl" and len(names) == 2:
        # Spark casts both to one of double and float (a NULL literal to the other's type)
        known = [n for n, a in zip(names, arguments) if not isinstance(a, exp.Null)]
        if not known or not all(n in _WIDTHS or n in ("double", "float", "decimal") for n in known):
            return None
        return AtomicType("float") if all(n == "float" for n in known) else AtomicType("double")
    if called == "bit_count" and names:
        boolean = names[0] == "boolean" or isinstance(arguments[0], (exp.Predicate, exp.Connector, exp.Not))
        return AtomicType("int") if names[0] in _WIDTHS or boolean else None
    if called in ("getbit", "bit_get") and len(names) == 2:
        position = names[1] in _WIDTHS or isinstance(arguments[1], exp.Null)
        return AtomicType("tinyint") if names[0] in _WIDTHS and position else None
    return None


def rewrite_math(called: str, arguments: list[exp.Expr], of: TypeOf) -> exp.Expr:
    """A call to one of :data:`MATH_FUNCTIONS` as DuckDB SQL giving Spark's answer.

    Example:
        >>> rewrite_math("bit_count", [exp.column("i")], lambda n: AtomicType("int")).sql("duckdb")
        'CAST(BIT_COUNT(CAST(i AS BIGINT)) AS INT)'

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for arguments vpush does not answer as
            Spark does.
    """
    result = math_type(called, arguments, of)
    if result is None:
        _refuse(called, "arguments of these types")
    if called == "factorial":
        n = arguments[0]
        # Spark: NULL outside 0..20 (20! is the last that fits a long)
        inside = exp.Between(this=n.copy(), low=exp.Literal.number(0), high=exp.Literal.number(20))
        value = exp.cast(exp.Anonymous(this="factorial", expressions=[exp.cast(n, exp.DataType.build("INT"))]), exp.DataType.build("BIGINT"))
        return exp.Case(ifs=[exp.If(this=inside, true=value)], default=exp.cast(exp.Null(), exp.DataType.build("BIGINT")))
    if called == "nanvl":
        to = exp.DataType.build(_name(result) or "double")
        left, right = (exp.cast(a, to) for a in arguments)
        return exp.Case(ifs=[exp.If(this=exp.Anonymous(this="isnan", expressions=[left.copy()]), true=right)], default=left)
    if called == "bit_count":
        # Long.bitCount of the value sign-extended to a long (a boolean as 1 or 0)
        counted = exp.Anonymous(this="bit_count", expressions=[exp.cast(arguments[0], exp.DataType.build("BIGINT"))])
        return exp.cast(counted, exp.DataType.build("INT"))
    return _getbit(called, arguments, of)


def _getbit(called: str, arguments: list[exp.Expr], of: TypeOf) -> exp.Expr:
    """Spark's ``getbit(x, pos)``: bit ``pos`` of ``x`` (0 the lowest) as a ``tinyint``; a position
    outside the width of ``x``'s type raises ``INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE``."""
    from vpush.optimizer.spark_semantics import spark_error

    value, position = arguments
    width = _WIDTHS[_name(of(value)) or "bigint"]
    at = exp.cast(position, exp.DataType.build("INT"))
    bit = exp.BitwiseAnd(
        this=exp.Paren(this=exp.BitwiseRightShift(this=exp.cast(value, exp.DataType.build("BIGINT")), expression=at)),
        expression=exp.Literal.number(1),
    )
    outside = exp.Or(
        this=exp.LT(this=position.copy(), expression=exp.Literal.number(0)),
        expression=exp.GTE(this=position.copy(), expression=exp.Literal.number(width)),
    )
    message = exp.DPipe(
        this=exp.Literal.string(f"The value of parameter(s) `pos` in `{called}` is invalid: expects a bit position between 0 and "
                                f"{width - 1}, but got "),
        expression=exp.cast(position.copy(), exp.DataType.build("VARCHAR")),
    )
    raised = spark_error("INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE", message, exp.DataType.build("TINYINT"))
    return exp.Case(ifs=[exp.If(this=outside, true=raised)], default=exp.cast(exp.Paren(this=bit), exp.DataType.build("TINYINT")))
