"""Spark's ``format_string``/``printf`` on the DuckDB engine: ``java.util.Formatter`` of a literal format.

Spark formats its arguments' internal values with Java's ``Formatter`` (``Locale.US``), so a
string argument is printed as its text, an integer as Java's ``Byte``/``Short``/``Integer``/``Long``
(``%x`` of a negative one adds 2^8, 2^16, 2^32 or 2^64), a boolean as ``true``/``false``, and a NULL
argument as ``null`` under any conversion (``NULL`` under ``%X``, which upper-cases it). vpush writes each specifier of a literal format as DuckDB
SQL joined by ``||``:

```
%s %-Ns %Ns          a string, an integer or a boolean, padded to N UTF-16 units (Java's length)
%d with - 0 + , ' '  an integer: the sign, the zeros the width asks for, the digits (grouped by ,)
%x %X with - 0       an integer as unsigned hexadecimal of its type's width
%% %n                '%' and '\n' (the JVM's line separator on Linux)
```
Anything else is refused: another conversion (``%f`` and ``%e`` of doubles print Java's digits),
a precision, argument indexes (``%1$s``, ``%<s``), the flags ``#`` and ``(``, a format that is not a
literal, an argument of another type (a decimal, whose ``%s`` is Spark's own text; a date, whose
``%s`` is its day number), fewer arguments than specifiers, and the flag combinations Java rejects
(``%-05d``, ``%05s``: Spark raises an ``IllegalArgumentException`` without an error class).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from sqlglot import exp

from vpush.optimizer.dialect import sql_call as _fn
from vpush.optimizer.errors import refuse_on_duckdb as _refuse
from vpush.optimizer.variant_types import AtomicType, SparkType, StringType

if TYPE_CHECKING:
    TypeOf = Callable[[exp.Expr], SparkType | None]

__all__ = ["rewrite_format_string"]

# java.util.Formatter's specifier: %[index$][flags][width][.precision][t]conversion
_SPECIFIER = re.compile(r"%(\d+\$)?([-#+ 0,(<]*)?(\d+)?(\.\d+)?([tT])?([a-zA-Z%])")
_BITS = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}
_BOOLEAN = AtomicType("boolean")


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


def _as_text(value: exp.Expr, t: SparkType | None) -> exp.Expression | None:
    """``%s`` of a value: its text as Java's ``toString`` gives it, None for a type vpush does not
    print as Java does."""
    if isinstance(value, exp.Null):
        return _text("null")
    if isinstance(t, StringType) or _integral(t) is not None or t == _BOOLEAN:
        return exp.cast(value.copy(), exp.DataType.build("VARCHAR"))
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
    allowed = {"s": "-", "d": "-0+ ,", "x": "-0", "X": "-0"}[conversion]
    if any(f not in allowed for f in flags) or len(set(flags)) != len(flags):
        _refuse(called, f"the flags {flags!r} of %{conversion}")
    if ("-" in flags or "0" in flags) and width is None:
        _refuse(called, f"the flag '-' or '0' without a width (Java's MissingFormatWidthException) in %{conversion}")
    if ("-" in flags and "0" in flags) or ("+" in flags and " " in flags):
        _refuse(called, f"the flags {flags!r} together (Java's IllegalFormatFlagsException)")


def rewrite_format_string(called: str, arguments: list[exp.Expr], of: TypeOf) -> exp.Expression:
    """Spark's ``format_string(format, args...)`` (and ``printf``) of a literal format, as DuckDB
    SQL (see the module's table); NULL for a NULL format.

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
        index, flags, width_text, precision, time, conversion = match.groups()
        flags = flags or ""
        width = int(width_text) if width_text is not None else None
        if index or precision or time or "<" in flags:
            _refuse(called, f"the specifier {match.group(0)!r} (argument indexes, precisions and dates are not printed)")
        if conversion in ("%", "n"):
            if flags or width is not None:
                _refuse(called, f"the specifier {match.group(0)!r}")
            parts.append(_text("%" if conversion == "%" else "\n"))
            continue
        if conversion not in ("s", "d", "x", "X"):
            _refuse(called, f"the conversion %{conversion} (Java's own digits or text)")
        _checked_flags(called, conversion, flags, width)
        if used >= len(values):
            _refuse(called, f"fewer arguments than the specifiers of {text!r} (Java's MissingFormatArgumentException)")
        value, typed = values[used], of(values[used])
        used += 1
        printed: exp.Expression
        if conversion == "s":
            as_text = _as_text(value, typed)
            if as_text is None:
                _refuse(called, f"%s of a {typed.to_spark() if typed is not None else 'value of a type vpush does not know'}")
            assert as_text is not None  # for mypy: refused above
            shown = _fn("coalesce", as_text, _text("null"))
            parts.append(_padded(shown, width, "-" in flags, _utf16_length(shown)))
            continue
        # a NULL argument prints as `null` (upper-cased by %X), justified by the width (not zero-padded)
        null = _padded(_text("NULL" if conversion == "X" else "null"), width, "-" in flags)
        if isinstance(value, exp.Null):
            parts.append(null)
            continue
        name = _integral(typed)
        if name is None:
            _refuse(called, f"%{conversion} of a {typed.to_spark() if typed is not None else 'value of a type vpush does not know'}")
        assert name is not None  # for mypy: refused above
        formatted = _decimal(value, flags, width) if conversion == "d" else _hexadecimal(value, _BITS[name], flags, width, conversion == "X")
        parts.append(exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=null)], default=formatted))
    if "%" in text[at:]:
        _refuse(called, f"the format {text!r} (a '%' Java does not read as a specifier)")
    if at < len(text) or not parts:
        parts.append(_text(text[at:]))
    return _join(*parts)
