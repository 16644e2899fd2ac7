"""Dates and timestamps as Spark prints them, in DuckDB SQL: years, and ``date_format`` patterns.

Spark formats with Java's ``DateTimeFormatter`` (Locale.US) after turning ``y`` into ``u``, the
proleptic year, so year 0 is 1 BC and the year before it is ``-1``; DuckDB's ``strftime`` prints
``%Y`` the same way (its ``year`` of a ``TIMESTAMPTZ`` is the year of the era). DuckDB's ``strftime`` prints most fields as Java does for the common pattern letters;
the years (Java pads and signs them by the letter count), ``DD`` and the fractions of a second
are built here. A letter or form whose Java output vpush does not reproduce (week-based fields,
zones, eras, quarters, five letters or more) is refused rather than printed differently.
"""

from __future__ import annotations

from typing import NoReturn

from sqlglot import exp

from vpush.codec.datetime_pattern import DatetimePatternError, pattern_pieces
from vpush.optimizer.errors import OptimizeError

__all__ = ["proleptic_year", "spark_date_format", "year_text"]

# Pattern letters DuckDB's strftime prints as Java does (Locale.US), by their letters.
_STRFTIME_FIELDS = {
    "M": "%-m", "MM": "%m", "MMM": "%b", "MMMM": "%B", "d": "%-d", "dd": "%d", "D": "%-j", "DDD": "%j",
    "H": "%-H", "HH": "%H", "h": "%-I", "hh": "%I", "m": "%-M", "mm": "%M", "s": "%-S", "ss": "%S",
    "a": "%p", "E": "%a", "EE": "%a", "EEE": "%a", "EEEE": "%A",
}
MAX_FRACTION_LETTERS = 6
"""``S`` repeated up to this many times is a fraction of a second DuckDB holds (microseconds)."""

def year_text(year: exp.Expression) -> exp.Expression:
    """A year as Spark prints it in a date or timestamp: four digits at least, a minus sign
    before the years before year 0 and a plus sign after year 9999 (DuckDB prints ``-44`` and,
    for a date cast to a string, ``0045-03-15 (BC)``)."""
    return exp.Case(
        ifs=[
            exp.If(this=exp.GT(this=year.copy(), expression=exp.Literal.number(9999)),
                   true=exp.DPipe(this=exp.Literal.string("+"), expression=exp.cast(year.copy(), exp.DataType.build("VARCHAR")))),
            exp.If(this=exp.LT(this=year.copy(), expression=exp.Literal.number(0)),
                   true=exp.DPipe(this=exp.Literal.string("-"), expression=_padded(exp.Neg(this=exp.Paren(this=year.copy())), 4))),
        ],
        default=_padded(year, 4),
    )


def proleptic_year(value: exp.Expr) -> exp.Expression:
    """The proleptic year of a DuckDB date or timestamp (year 0 is 1 BC), in the session time zone
    for a ``TIMESTAMPTZ``: its ``year`` there is the year of the era (2 for the year -1)."""
    return exp.cast(exp.Anonymous(this="strftime", expressions=[value.copy(), exp.Literal.string("%Y")]), exp.DataType.build("BIGINT"))


def _padded(value: exp.Expr, width: int) -> exp.Expression:
    return exp.Anonymous(this="printf", expressions=[exp.Literal.string(f"%0{width}d"), value])  # lpad would cut


def _refuse(pattern: str, why: str) -> NoReturn:
    raise OptimizeError(
        f"date_format with the pattern '{pattern}': the DuckDB engine does not give Spark's answer for {why} yet; "
        "the Spark engine (vpush.connect(engine='spark')) runs it as Spark does",
        error_class="VPUSH_UNSUPPORTED_FUNCTION",
    )


def _tokens(pattern: str) -> list[tuple[bool, str]]:
    """The pattern's pieces (:func:`~vpush.codec.datetime_pattern.pattern_pieces`); what that
    refuses (an unclosed quote, a reserved character, an optional section) is refused here too."""
    try:
        return pattern_pieces(pattern)
    except DatetimePatternError as exc:
        _refuse(pattern, exc.why)


def _year_field(letters: str, year: exp.Expression) -> exp.Expression:
    """Java's ``u`` field (Spark's ``y``): one letter, the year as is; two, its last two digits;
    three, at least three digits with a minus sign; four, :func:`year_text`."""
    if letters == "y":
        return exp.cast(year, exp.DataType.build("VARCHAR"))
    if letters == "yy":
        return _padded(exp.Mod(this=exp.Abs(this=year), expression=exp.Literal.number(100)), 2)
    if letters == "yyy":
        negative = exp.LT(this=year.copy(), expression=exp.Literal.number(0))
        signed = exp.DPipe(this=exp.Literal.string("-"), expression=_padded(exp.Neg(this=exp.Paren(this=year.copy())), 3))
        return exp.Case(ifs=[exp.If(this=negative, true=signed)], default=_padded(year, 3))
    return year_text(year)


def spark_date_format(value: exp.Expr, pattern: str) -> exp.Expression:
    """Spark's ``date_format(value, pattern)`` for a literal pattern, ``value`` a DuckDB
    ``TIMESTAMPTZ`` (printed in the session time zone, DuckDB's ``TimeZone``).

    Example:
        >>> spark_date_format(exp.column("ts"), "HH:mm 'h'").sql(dialect="duckdb")
        "STRFTIME(ts, '%H:%M h')"

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` naming the pattern, for a letter or form
            vpush does not print as Spark does.
    """
    pieces: list[exp.Expression] = []
    layout: list[str] = []

    def flush() -> None:
        if layout:
            pieces.append(exp.Anonymous(this="strftime", expressions=[value.copy(), exp.Literal.string("".join(layout))]))
            layout.clear()

    for is_field, text in _tokens(pattern):
        if not is_field:
            layout.append(text.replace("%", "%%"))
        elif text in _STRFTIME_FIELDS:
            layout.append(_STRFTIME_FIELDS[text])
        elif text in ("y", "yy", "yyy", "yyyy"):  # an era (G) would make them years of era: refused below
            flush()
            pieces.append(_year_field(text, proleptic_year(value)))
        elif text == "DD":
            flush()
            pieces.append(_padded(exp.Anonymous(this="dayofyear", expressions=[value.copy()]), 2))
        elif set(text) == {"S"} and len(text) <= MAX_FRACTION_LETTERS:
            flush()
            micros = exp.Anonymous(this="strftime", expressions=[value.copy(), exp.Literal.string("%f")])
            pieces.append(exp.Anonymous(this="substr", expressions=[micros, exp.Literal.number(1), exp.Literal.number(len(text))]))
        else:
            _refuse(pattern, f"the letters '{text}'")
    flush()
    if not pieces:
        return exp.Anonymous(this="strftime", expressions=[value.copy(), exp.Literal.string("")])
    result = pieces[0]
    for piece in pieces[1:]:
        result = exp.DPipe(this=result, expression=piece)
    return result
