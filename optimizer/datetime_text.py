"""Dates and timestamps as Spark prints them, in DuckDB SQL: years, and ``date_format`` patterns.

Spark formats with Java's ``DateTimeFormatter`` (Locale.US) after turning ``y`` into ``u``, the
proleptic year, so year 0 is 1 BC and the year before it is ``-1``; DuckDB's ``strftime`` prints
``%Y`` the same way (its ``year`` of a ``TIMESTAMPTZ`` is the year of the era). DuckDB's ``strftime`` prints most fields as Java does for the common pattern letters;
the years (Java pads and signs them by the letter count), ``DD`` and the fractions of a second
are built here, and so are the clock hours (``k``, ``K``), the quarters and the zone offsets (``X``, ``x``, ``Z``, ``O``) from DuckDB's offset of the
session time zone in seconds. A pattern Spark rejects raises Spark's error class (Spark checks it
as ``DateTimeFormatterHelper`` builds its formatter, then asks whether ``SimpleDateFormat`` took
it); a letter or form whose Java output vpush does not reproduce (zone names, eras, ...)
is refused rather than printed differently.
"""

from __future__ import annotations

from typing import NoReturn

from sqlglot import exp

from vpush.codec.datetime_pattern import (
    ILLEGAL_CHARACTER,
    JAVA_LETTERS,
    PATTERN_RECOGNITION,
    WEEK_BASED_PATTERN,
    WITH_SUGGESTION,
    DatetimePatternError,
    pattern_pieces,
)
from vpush.optimizer.errors import OptimizeError

__all__ = ["proleptic_year", "spark_date_format", "year_text"]

# Pattern letters DuckDB's strftime prints as Java does (Locale.US), by their letters.
_STRFTIME_FIELDS = {
    "M": "%-m", "MM": "%m", "MMM": "%b", "MMMM": "%B", "d": "%-d", "dd": "%d", "D": "%-j", "DDD": "%j",
    "H": "%-H", "HH": "%H", "h": "%-I", "hh": "%I", "m": "%-M", "mm": "%M", "s": "%-S", "ss": "%S",
    "a": "%p", "E": "%a", "EE": "%a", "EEE": "%a", "EEEE": "%A",
    "L": "%-m", "LL": "%m", "LLL": "%b", "LLLL": "%B",  # the stand-alone month, in Locale.US as the month
}
# Java's quarter in Locale.US by its letters (Q and the stand-alone q alike), and its full names.
_QUARTERS = ("Q", "QQ", "QQQ", "QQQQ", "q", "qq", "qqq", "qqqq")
_QUARTER_NAMES = ("1st quarter", "2nd quarter", "3rd quarter", "4th quarter")
MAX_FRACTION_LETTERS = 6
"""``S`` repeated up to this many times is a fraction of a second DuckDB holds (microseconds)."""

# What Spark's DateTimeFormatterHelper.convertIncompatiblePattern rejects outside quotes, in this
# order: week-based letters, letters it does not support, and runs of letters too long.
_WEEK_BASED_LETTERS = "YWwuec"
_UNSUPPORTED_LETTERS = "ABnNp"
_TOO_LONG = ("GGGGG", "MMMMM", "LLLLL", "EEEEE", "QQQQQ", "qqqqq", "yyyyyyy")
_LENGTH = "INVALID_DATETIME_PATTERN.LENGTH"
# The most of each of java.time's pattern letters it prints (measured on PySpark 4.3), and the
# counts it takes of the letters that take only some.
_JAVA_MOST = {"a": 1, "F": 1, "d": 2, "h": 2, "k": 2, "H": 2, "K": 2, "m": 2, "s": 2, "D": 3, "E": 4, "G": 4, "L": 4,
              "M": 4, "Q": 4, "q": 4, "z": 4, "Z": 5, "x": 5, "X": 5, "S": 9}
_JAVA_COUNTS = {"O": (1, 4), "v": (1, 4), "V": (2,)}
# java.text.SimpleDateFormat's pattern letters (X at most three times): a pattern it takes makes
# Spark's error INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION.
_LEGACY_LETTERS = frozenset("GyMdkHmsSEDFwWahKzZYuXL")
_MOST_LEGACY_X = 3

# Java's zone offsets by their letters (DateTimeFormatterBuilder.appendPattern): the offset's
# fields after the hours (minutes: 'always' or 'nonzero'; seconds: 'never' or 'nonzero'), the
# separator, and the text of a zero offset; 'GMT' forms are the localized offsets.
_OFFSETS = {
    "X": ("nonzero", "never", "", "Z"), "XX": ("always", "never", "", "Z"), "XXX": ("always", "never", ":", "Z"),
    "XXXX": ("always", "nonzero", "", "Z"), "XXXXX": ("always", "nonzero", ":", "Z"),
    "x": ("nonzero", "never", "", "+00"), "xx": ("always", "never", "", "+0000"), "xxx": ("always", "never", ":", "+00:00"),
    "xxxx": ("always", "nonzero", "", "+0000"), "xxxxx": ("always", "nonzero", ":", "+00:00"),
    "Z": ("always", "never", "", "+0000"), "ZZ": ("always", "never", "", "+0000"), "ZZZ": ("always", "never", "", "+0000"),
    "ZZZZZ": ("always", "nonzero", ":", "Z"),
}
_LOCALIZED_OFFSETS = {"O": False, "OOOO": True, "ZZZZ": True}
"""The localized offsets (``GMT+8``), by their letters: whether the hours are padded (FULL)."""

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


def _rejected(pattern: str, error_class: str, why: str) -> NoReturn:
    raise OptimizeError(f"date_format: Spark rejects the datetime pattern '{pattern}': {why}", error_class=error_class)


def _letter_runs(pattern: str) -> tuple[list[str], list[str], bool]:
    """The runs of one letter outside quotes, the other characters there, and whether every
    quote is closed (``''`` is a quote, in quotes or not)."""
    runs: list[str] = []
    others: list[str] = []
    quoted = False
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "'":
            if i + 1 < n and pattern[i + 1] == "'":
                i += 2
                continue
            quoted = not quoted
            i += 1
        elif quoted:
            i += 1
        elif ("a" <= c <= "z") or ("A" <= c <= "Z"):
            j = i
            while j < n and pattern[j] == c:
                j += 1
            runs.append(pattern[i:j])
            i = j
        else:
            others.append(c)
            i += 1
    return runs, others, not quoted


def _java_error(runs: list[str], others: list[str]) -> tuple[str, str] | None:
    """What java.time's ``DateTimeFormatterBuilder.appendPattern`` rejects: a reserved character,
    a ``]`` that closes no section, a letter it does not know or a run of a count it does not take."""
    depth = 0
    for c in others:
        depth += {"[": 1, "]": -1}.get(c, 0)
        if c in "{}#" or depth < 0:
            return (WITH_SUGGESTION, f"the character {c!r}")
    for run in runs:
        letter, count = run[0], len(run)
        if letter not in JAVA_LETTERS or count > _JAVA_MOST.get(letter, count) or count not in _JAVA_COUNTS.get(letter, (count,)):
            return (WITH_SUGGESTION, f"the letters '{run}'")
    return None


def _check_pattern(pattern: str) -> None:
    """Spark's error for a ``date_format`` pattern it rejects (measured on PySpark 4.3): its own
    check first (week-based letters, letters it does not support, runs too long), then
    java.time's; either error becomes ``DATETIME_PATTERN_RECOGNITION`` where ``SimpleDateFormat``
    takes the pattern."""
    runs, others, closed = _letter_runs(pattern)
    legacy = closed and all(r[0] in _LEGACY_LETTERS and (r[0] != "X" or len(r) <= _MOST_LEGACY_X) for r in runs)
    error: tuple[str, str] | None = None
    for part in (pattern + " ").split("'")[::2]:  # convertIncompatiblePattern: outside quotes
        week = next((c for c in part if c in _WEEK_BASED_LETTERS), None)
        unsupported = next((c for c in part if c in _UNSUPPORTED_LETTERS), None)
        long = next((r for r in _TOO_LONG if r in part), None)
        if week is not None:
            error = (WEEK_BASED_PATTERN, f"the week-based letter '{week}'")
        elif unsupported is not None:
            error = (ILLEGAL_CHARACTER, f"the letter '{unsupported}'")
        elif long is not None:
            error = (_LENGTH, f"too many letters '{long[0]}'")
        if error is not None:
            break
    if error is None and not closed:
        error = (WITH_SUGGESTION, "a quote that is not closed")
    if error is None:
        error = _java_error(runs, others)
    if error is not None:
        _rejected(pattern, PATTERN_RECOGNITION if legacy else error[0], error[1])


def _tokens(pattern: str) -> list[tuple[bool, str]]:
    """The pattern's pieces (:func:`~vpush.codec.datetime_pattern.pattern_pieces`), the
    brackets of optional sections among them, after Spark's check (:func:`_check_pattern`)."""
    _check_pattern(pattern)
    try:
        return pattern_pieces(pattern, sections=True)
    except DatetimePatternError as exc:  # checked above: not met
        _refuse(pattern, exc.why)


def _zone_offset(value: exp.Expr, letters: str) -> exp.Expression:
    """Java's zone offset of ``value`` in the session time zone for ``letters`` (``X`` to
    ``XXXXX``, ``x`` to ``xxxxx``, ``Z`` to ``ZZZZZ``, ``O``, ``OOOO``), as
    ``OffsetIdPrinterParser`` and ``LocalizedOffsetIdPrinterParser`` print it: the zero text
    where the fields printed are all zero (``-00:00:30`` as ``XX`` is ``Z``), seconds only
    where the form has them (local mean time: ``-07:52:58`` in Los Angeles before 1883)."""
    seconds = exp.Anonymous(this="date_part", expressions=[exp.Literal.string("timezone"), value.copy()])
    magnitude = exp.Abs(this=seconds.copy())
    hours = exp.IntDiv(this=magnitude.copy(), expression=exp.Literal.number(3600))
    minutes = exp.Mod(this=exp.Paren(this=exp.IntDiv(this=magnitude.copy(), expression=exp.Literal.number(60))), expression=exp.Literal.number(60))
    rest = exp.Mod(this=magnitude.copy(), expression=exp.Literal.number(60))
    sign = exp.Case(ifs=[exp.If(this=exp.LT(this=seconds.copy(), expression=exp.Literal.number(0)), true=exp.Literal.string("-"))],
                    default=exp.Literal.string("+"))

    def optional(separator: str, field: exp.Expression, shown: exp.Expression) -> exp.Expression:
        text = exp.DPipe(this=exp.Literal.string(separator), expression=_padded(field, 2))
        return exp.Case(ifs=[exp.If(this=shown, true=text)], default=exp.Literal.string(""))

    if letters in _LOCALIZED_OFFSETS:
        full = _LOCALIZED_OFFSETS[letters]
        parts: list[exp.Expression] = [exp.Literal.string("GMT"), sign, _padded(hours, 2) if full else exp.cast(hours, exp.DataType.build("VARCHAR"))]
        nonzero_rest = exp.NEQ(this=rest.copy(), expression=exp.Literal.number(0))
        if full:
            parts += [exp.Literal.string(":"), _padded(minutes, 2), optional(":", rest, nonzero_rest)]
        else:
            either = exp.Or(this=exp.NEQ(this=minutes.copy(), expression=exp.Literal.number(0)), expression=nonzero_rest.copy())
            parts += [optional(":", minutes, either), optional(":", rest, nonzero_rest)]
        zero_text = "GMT"
        shown_least = 1
    else:
        minute_form, second_form, separator, zero_text = _OFFSETS[letters]
        parts = [sign, _padded(hours, 2)]
        if minute_form == "always":
            parts.append(exp.DPipe(this=exp.Literal.string(separator), expression=_padded(minutes, 2)))
        else:
            parts.append(optional(separator, minutes, exp.GT(this=minutes.copy(), expression=exp.Literal.number(0))))
        if second_form == "nonzero":
            parts.append(optional(separator, rest, exp.GT(this=rest.copy(), expression=exp.Literal.number(0))))
        shown_least = 60 if second_form == "never" else 1  # below it, every field printed is zero
    text = parts[0]
    for part in parts[1:]:
        text = exp.DPipe(this=text, expression=part)
    zero = exp.LT(this=magnitude, expression=exp.Literal.number(shown_least))
    return exp.Case(ifs=[exp.If(this=zero, true=exp.Literal.string(zero_text))], default=text)


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
        OptimizeError: Spark's error class for a pattern Spark rejects; ``VPUSH_UNSUPPORTED_FUNCTION``
            naming the pattern, for a letter or form vpush does not print as Spark does.
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
        elif text in ("k", "kk", "K", "KK"):  # the clock hour 1-24, the hour of the half day 0-11
            flush()
            hour = exp.Anonymous(this="hour", expressions=[value.copy()])
            shown = exp.Case(ifs=[exp.If(this=exp.EQ(this=hour.copy(), expression=exp.Literal.number(0)), true=exp.Literal.number(24))],
                             default=hour) if text[0] == "k" else exp.Mod(this=hour, expression=exp.Literal.number(12))
            pieces.append(_padded(shown, len(text)))
        elif text in _QUARTERS:
            flush()
            quarter = exp.Anonymous(this="quarter", expressions=[value.copy()])
            if len(text) == 4:
                names = exp.Array(expressions=[exp.Literal.string(n) for n in _QUARTER_NAMES])
                pieces.append(exp.Anonymous(this="list_extract", expressions=[names, quarter]))
            else:
                prefix = "Q" if len(text) == 3 else ""
                pieces.append(exp.DPipe(this=exp.Literal.string(prefix), expression=_padded(quarter, 2 if len(text) == 2 else 1)))
        elif text in ("[", "]"):
            continue  # every field of an instant is there: an optional section prints as written
        elif text in _OFFSETS or text in _LOCALIZED_OFFSETS:
            flush()
            pieces.append(_zone_offset(value, text))
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
