"""Spark's ``format_string``/``printf`` on the DuckDB engine: ``java.util.Formatter`` of a literal format.

Spark formats its arguments' internal values with Java's ``Formatter`` (``Locale.US``), so a
string argument is printed as its text, an integer as Java's ``Byte``/``Short``/``Integer``/``Long``
(``%x`` of a negative one adds 2^8, 2^16, 2^32 or 2^64), a boolean as ``true``/``false``, a double
or float as ``Double.toString``/``Float.toString``, a decimal as Spark's ``Decimal`` prints itself
(``java.math.BigDecimal.toString``: ``1.0E-7``, ``0E-18``), and a NULL argument as ``null`` under
any conversion (``NULL`` under ``%X %E %G``, which upper-case it; cut to the precision). vpush
writes each specifier of a literal format as DuckDB SQL joined by ``||``:

```
%s %-Ns %Ns          a string, integer, boolean, double, float or decimal, padded to N UTF-16 units
%S %.Ms              of other than a string: upper-cased (NAN, 1.0E-5), cut to M characters
%d with - 0 + , ' '  an integer: the sign, the zeros the width asks for, the digits (grouped by ,)
%x %X with - 0       an integer as unsigned hexadecimal of its type's width
%f %e %E %g %G       a double, or a float widened to one (Formatter casts it), by the engine
  with - 0 + ' ' , ( #   function JAVA_FORMATTER_FUNCTION: FloatingDecimal's digits in the form
  a width, a precision   Formatter asks for, rounded HALF_UP at the precision (0.125 -> 0.13,
                         1.005 -> 1.01: Double.toString(1.005) is 1.005), -0.0 printed -0.00,
                         NaN, Infinity, -Infinity (vpush.codec.native.format_java_formatter_native)
%% %n                '%' and '\n' (the JVM's line separator on Linux)
```
An argument of a conversion Java's ``Formatter`` does not take (``%f`` of an integer or of a
decimal, which Spark passes as its own ``Decimal`` class; ``%d`` of a double) fails when a row
holds a value, as Spark fails: Java's ``IllegalFormatConversionException`` (``f !=
java.lang.Integer``), which Spark gives no error class; a NULL prints ``null``. Such a call
of constants only is refused: Spark fails as it folds it when planning, rows or not, unless it
prunes the plan first (``LIMIT 0``).

Anything else is refused: another conversion (``%a``, ``%o``, ``%c``, ``%b``, ``%h``, dates),
``%S`` or a precision of ``%s`` of a string (Java upper-cases by its own tables and cuts UTF-16
units), a precision of ``%d`` (Java rejects it), argument indexes (``%1$s``, ``%<s``), the
flag ``#`` but of ``%f %e``, a width or precision over 10000, a format that is not a literal, an
argument of another type (a date's ``%s`` is its day number), fewer arguments than specifiers,
and the flag combinations Java rejects (``%-05d``, ``%05s``, ``%,e``, ``%#g``, ``%-f``: Spark
raises an ``IllegalArgumentException`` without an error class).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from sqlglot import exp

from vpush.optimizer.dialect import sql_call as _fn
from vpush.optimizer.errors import refuse_on_duckdb as _refuse
from vpush.optimizer.variant_types import AtomicType, DecimalType, SparkType, StringType

if TYPE_CHECKING:
    TypeOf = Callable[[exp.Expr], SparkType | None]

__all__ = ["JAVA_FORMATTER_FUNCTION", "rewrite_format_string"]

JAVA_FORMATTER_FUNCTION = "vpush_java_formatter"
"""The engine function that gives ``java.util.Formatter``'s text of a double under one ``%e %E
%f %g %G`` specifier: (DOUBLE, VARCHAR specifier) -> VARCHAR, NULL for NULL
(:func:`vpush.codec.native.format_java_formatter_native`)."""

# java.util.Formatter's specifier: %[index$][flags][width][.precision][t]conversion
_SPECIFIER = re.compile(r"%(\d+\$)?([-#+ 0,(<]*)?(\d+)?(\.\d+)?([tT])?([a-zA-Z%])")
_BITS = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}
_BOOLEAN = AtomicType("boolean")
_FRACTIONAL = (AtomicType("double"), AtomicType("float"))
_FLOATING = "eEfgG"
_LIMIT = 10000
# The Java class Spark passes for a value of each type (its internal value, boxed), which
# Formatter names when it does not take it: IllegalFormatConversionException's "f != java.lang.Integer"
_JAVA_CLASSES = {
    "tinyint": "java.lang.Byte", "smallint": "java.lang.Short", "int": "java.lang.Integer", "bigint": "java.lang.Long",
    "double": "java.lang.Double", "float": "java.lang.Float", "boolean": "java.lang.Boolean", "date": "java.lang.Integer",
}


def _text(value: str) -> exp.Expression:
    return exp.Literal.string(value)


def _join(*parts: exp.Expr) -> exp.Expression:
    joined = parts[0]
    for part in parts[1:]:
        joined = exp.DPipe(this=joined, expression=part, safe=True)
    return joined  # type: ignore[return-value]


def _utf16_length(text: exp.Expr) -> exp.Expression:
    """Java's ``String.length()``: the code points, and one more for each past U+FFFF."""
    astral = _fn("regexp_replace", text.copy(), _text(r"[^\x{10000}-\x{10FFFF}]"), _text(""), _text("g"))
    return exp.Add(this=_fn("length", text.copy()), expression=_fn("length", astral))


def _padded(text: exp.Expr, width: int | None, left: bool, length: exp.Expr | None = None) -> exp.Expr:
    """``text`` padded with spaces to ``width`` (Java's ``Formatter`` justification), on the right
    when ``left``-justified."""
    if width is None:
        return text
    size = length if length is not None else _fn("length", text.copy())
    missing = exp.Sub(this=exp.Literal.number(width), expression=exp.Paren(this=size))
    spaces = _fn("repeat", _text(" "), _fn("greatest", missing, exp.Literal.number(0)))
    return _join(text, spaces) if left else _join(spaces, text.copy())


def _integral(t: SparkType | None) -> str | None:
    return t.name if isinstance(t, AtomicType) and t.name in _BITS else None


def _java_class(t: SparkType | None, conversion: str) -> str | None:
    """The Java class of the value Spark hands ``Formatter`` for type ``t``, where ``conversion``
    does not take it; None where not known (a date under ``%d``, which prints its day number)."""
    if t == AtomicType("date") and conversion in ("d", "x", "X"):
        return None
    if isinstance(t, StringType):
        return "org.apache.spark.unsafe.types.UTF8String"
    if isinstance(t, DecimalType):
        return "org.apache.spark.sql.types.Decimal"
    return _JAVA_CLASSES.get(t.name) if isinstance(t, AtomicType) else None


def _big_decimal_text(value: exp.Expr, scale: int) -> exp.Expression:
    """``java.math.BigDecimal.toString`` of a decimal of ``scale`` (Spark's ``Decimal.toString``):
    its plain digits, or where the exponent of its first digit is below -6, the unscaled digits
    in E-notation (``1.200E-7``, ``0E-18``)."""
    plain = exp.cast(value.copy(), exp.DataType.build("VARCHAR"))
    if scale == 0:
        return plain
    unsigned = _fn("replace", _fn("replace", plain.copy(), _text("-"), _text("")), _text("."), _text(""))
    stripped = _fn("ltrim", unsigned, _text("0"))
    coefficient = exp.Case(ifs=[exp.If(this=exp.EQ(this=stripped.copy(), expression=_text("")), true=_text("0"))], default=stripped)
    adjusted = exp.Sub(this=_fn("length", coefficient.copy()), expression=exp.Literal.number(1 + scale))
    fraction = exp.Case(
        ifs=[exp.If(this=exp.GT(this=_fn("length", coefficient.copy()), expression=exp.Literal.number(1)),
                    true=_join(_text("."), _fn("substr", coefficient.copy(), exp.Literal.number(2))))],
        default=_text(""),
    )
    sign = exp.Case(ifs=[exp.If(this=exp.LT(this=value.copy(), expression=exp.Literal.number(0)), true=_text("-"))], default=_text(""))
    scientific = _join(sign, _fn("left", coefficient.copy(), exp.Literal.number(1)), fraction, _text("E"),
                       exp.cast(adjusted.copy(), exp.DataType.build("VARCHAR")))
    return exp.Case(ifs=[exp.If(this=exp.GTE(this=adjusted, expression=exp.Literal.number(-6)), true=plain)], default=scientific)


def _as_text(value: exp.Expr, t: SparkType | None, functions: dict[str, SparkType] | None) -> exp.Expression | None:
    """``%s`` of a value: its text as Java's ``toString`` gives it, None for a type vpush does not
    print as Java does."""
    if isinstance(value, exp.Null):
        return _text("null")
    if isinstance(t, StringType) or _integral(t) is not None or t == _BOOLEAN:
        return exp.cast(value.copy(), exp.DataType.build("VARCHAR"))
    if isinstance(t, DecimalType):
        return _big_decimal_text(value, t.scale)
    if isinstance(t, AtomicType) and t in _FRACTIONAL and functions is not None:
        from vpush.optimizer.spark_semantics import JAVA_TEXT_FUNCTIONS

        functions[JAVA_TEXT_FUNCTIONS[t.name]] = StringType()
        return exp.Anonymous(this=JAVA_TEXT_FUNCTIONS[t.name], expressions=[value.copy()])
    return None


def _decimal(value: exp.Expr, flags: str, width: int | None) -> exp.Expression:
    """``%d`` of an integer: the sign (``-``, or ``+``/`` `` by the flags), the zeros the ``0`` flag
    and the width ask for, and the digits, grouped by threes with ``,``."""
    magnitude = _fn("abs", exp.cast(value.copy(), exp.DataType.build("HUGEINT")))
    digits = _fn("format", _text("{:,}"), magnitude) if "," in flags else exp.cast(magnitude, exp.DataType.build("VARCHAR"))
    positive = "+" if "+" in flags else " " if " " in flags else ""
    sign = exp.Case(ifs=[exp.If(this=exp.LT(this=value.copy(), expression=exp.Literal.number(0)), true=_text("-"))],
                    default=_text(positive))
    if "0" in flags and width is not None:
        missing = exp.Sub(this=exp.Literal.number(width), expression=_fn("length", _join(sign.copy(), digits.copy())))
        zeros = _fn("repeat", _text("0"), _fn("greatest", missing, exp.Literal.number(0)))
        return _join(sign, zeros, digits)
    return _padded(_join(sign, digits), width, "-" in flags)  # type: ignore[return-value]


def _hexadecimal(value: exp.Expr, bits: int, flags: str, width: int | None, upper: bool) -> exp.Expression:
    """``%x`` of an integer: a negative one plus 2^bits of its type, in hexadecimal."""
    wide = exp.cast(value.copy(), exp.DataType.build("HUGEINT"))
    unsigned = exp.Case(
        ifs=[exp.If(this=exp.LT(this=value.copy(), expression=exp.Literal.number(0)),
                    true=exp.Add(this=wide.copy(), expression=exp.cast(exp.Literal.number(2**bits), exp.DataType.build("HUGEINT"))))],
        default=wide,
    )
    digits = _fn("to_hex", unsigned)
    if not upper:
        digits = _fn("lower", digits)
    if "0" in flags and width is not None:
        missing = exp.Sub(this=exp.Literal.number(width), expression=_fn("length", digits.copy()))
        return _join(_fn("repeat", _text("0"), _fn("greatest", missing, exp.Literal.number(0))), digits)
    return _padded(digits, width, "-" in flags)  # type: ignore[return-value]


def _checked_flags(called: str, conversion: str, flags: str, width: int | None) -> None:
    """Refuse the flags Java rejects for ``conversion`` (or vpush does not print)."""
    allowed = {"s": "-", "S": "-", "d": "-0+ ,", "x": "-0", "X": "-0", "f": "-#+ 0,(", "e": "-#+ 0(", "E": "-#+ 0(",
               "g": "-+ 0,(", "G": "-+ 0,("}[conversion]
    if any(f not in allowed for f in flags) or len(set(flags)) != len(flags):
        _refuse(called, f"the flags {flags!r} of %{conversion}")
    if ("-" in flags or "0" in flags) and width is None:
        _refuse(called, f"the flag '-' or '0' without a width (Java's MissingFormatWidthException) in %{conversion}")
    if ("-" in flags and "0" in flags) or ("+" in flags and " " in flags):
        _refuse(called, f"the flags {flags!r} together (Java's IllegalFormatFlagsException)")


def _conversion_fails(conversion: str, java_class: str) -> exp.Expression:
    """Java's ``IllegalFormatConversionException`` (no error class in Spark), as a DuckDB error."""
    message = f"format_string: {conversion.lower()} != {java_class} (Java's IllegalFormatConversionException)"
    return exp.cast(_fn("error", _text(message)), exp.DataType.build("VARCHAR"))


def _row_dependent(node: exp.Expr) -> bool:
    """Whether ``node`` reads a column, aggregates or windows (Spark does not fold it)."""
    return any(isinstance(n, (exp.Column, exp.AggFunc, exp.Window, exp.Subquery, exp.Select)) for n in node.walk())


def _null_text(conversion: str, width: int | None, precision: int | None, flags: str) -> exp.Expression:
    """Java's ``null`` for a NULL argument: upper-cased by an upper-case conversion, cut to the
    precision, justified by the width (never zero-padded)."""
    text = "NULL" if conversion in ("X", "E", "G") else "null"
    return _padded(_text(text[:precision] if precision is not None else text), width, "-" in flags)  # type: ignore[return-value]


def _unless_null(value: exp.Expr, null: exp.Expression, formatted: exp.Expression) -> exp.Expression:
    return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=null)], default=formatted)


def rewrite_format_string(
    called: str, arguments: list[exp.Expr], of: TypeOf, functions: dict[str, SparkType] | None = None
) -> exp.Expression:
    """Spark's ``format_string(format, args...)`` (and ``printf``) of a literal format, as DuckDB
    SQL (see the module's table); NULL for a NULL format. The engine functions the SQL calls
    are added to ``functions`` (without it, the forms that need one are refused).

    Example:
        >>> rewrite_format_string("printf", [exp.Literal.string("%%|%n")], lambda n: None).sql("duckdb")
        "'%' || '|' || '\\n'"

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for a format or argument vpush does not
            print as Java does.
    """
    pattern, values = arguments[0], arguments[1:]
    if isinstance(pattern, exp.Null):
        return exp.cast(exp.Null(), exp.DataType.build("VARCHAR"))
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        _refuse(called, "a format that is not a string literal")
    text = pattern.name
    parts: list[exp.Expr] = []
    at = used = 0
    for match in _SPECIFIER.finditer(text):
        if "%" in text[at:match.start()]:
            _refuse(called, f"the format {text!r} (a '%' Java does not read as a specifier)")
        if match.start() > at:
            parts.append(_text(text[at:match.start()]))
        at = match.end()
        index, flags, width_text, precision_text, time, conversion = match.groups()
        flags = flags or ""
        width = int(width_text) if width_text is not None else None
        precision = int(precision_text[1:]) if precision_text is not None else None
        if index or time or "<" in flags or (precision is not None and conversion not in _FLOATING + "sS"):
            _refuse(called, f"the specifier {match.group(0)!r} (argument indexes, precisions of %d %x, and dates are not printed)")
        if conversion in ("%", "n"):
            if flags or width is not None:
                _refuse(called, f"the specifier {match.group(0)!r}")
            parts.append(_text("%" if conversion == "%" else "\n"))
            continue
        if conversion not in ("s", "S", "d", "x", "X") and conversion not in _FLOATING:
            _refuse(called, f"the conversion %{conversion} (Java's own digits or text)")
        _checked_flags(called, conversion, flags, width)
        if (width or 0) > _LIMIT or (precision or 0) > _LIMIT:
            _refuse(called, f"the specifier {match.group(0)!r} (a width or precision over {_LIMIT})")
        if used >= len(values):
            _refuse(called, f"fewer arguments than the specifiers of {text!r} (Java's MissingFormatArgumentException)")
        value, typed = values[used], of(values[used])
        used += 1
        shown_type = typed.to_spark() if typed is not None else "value of a type vpush does not know"
        if conversion in ("s", "S"):
            as_text = _as_text(value, typed, functions)
            if as_text is None:
                _refuse(called, f"%{conversion} of a {shown_type}")
            if isinstance(typed, StringType) and (conversion == "S" or precision is not None):
                # Java cuts UTF-16 units (a surrogate pair may be split) and upper-cases by its own tables
                _refuse(called, f"%{conversion} of a string with a precision or upper-cased (Java's UTF-16 units and case tables)")
            assert as_text is not None  # for mypy: refused above
            shown: exp.Expression = _fn("coalesce", as_text, _text("null"))
            if precision is not None:
                shown = _fn("left", shown, exp.Literal.number(precision))
            if conversion == "S":
                shown = _fn("upper", shown)
            parts.append(_padded(shown, width, "-" in flags, _utf16_length(shown)))
            continue
        # a NULL argument prints as `null` (upper-cased by %X %E %G), justified by the width (not zero-padded)
        null = _null_text(conversion, width, precision, flags)
        if isinstance(value, exp.Null):
            parts.append(null)
            continue
        name = _integral(typed)
        takes = name is not None if conversion in ("d", "x", "X") else typed in _FRACTIONAL
        if not takes:
            java_class = _java_class(typed, conversion)
            if java_class is None:
                _refuse(called, f"%{conversion} of a {shown_type}")
            assert java_class is not None  # for mypy: refused above
            if not any(_row_dependent(a) for a in arguments):
                # Spark fails on a call of constants as it plans the query (ConstantFolding), rows or
                # not, unless the plan is pruned first (LIMIT 0): neither answer is always Spark's
                _refuse(called, f"%{conversion} of a {shown_type} in a call of constants (Spark fails when it folds it)")
            parts.append(_unless_null(value, null, _conversion_fails(conversion, java_class)))
            continue
        formatted: exp.Expression
        if conversion in _FLOATING:
            if functions is None:
                _refuse(called, f"%{conversion} of a {shown_type} (without the engine function)")
            assert functions is not None  # for mypy: refused above
            functions[JAVA_FORMATTER_FUNCTION] = StringType()
            specifier = f"%{flags}{'' if width is None else width}{'' if precision is None else f'.{precision}'}{conversion}"
            formatted = exp.Anonymous(this=JAVA_FORMATTER_FUNCTION,
                                      expressions=[exp.cast(value.copy(), exp.DataType.build("DOUBLE")), _text(specifier)])
        elif conversion == "d":
            formatted = _decimal(value, flags, width)
        else:
            assert name is not None  # for mypy: an integer, checked above
            formatted = _hexadecimal(value, _BITS[name], flags, width, conversion == "X")
        parts.append(_unless_null(value, null, formatted))
    if "%" in text[at:]:
        _refuse(called, f"the format {text!r} (a '%' Java does not read as a specifier)")
    if at < len(text) or not parts:
        parts.append(_text(text[at:]))
    return _join(*parts)
