"""Spark's ANSI interval literals of a span of fields (``INTERVAL '1 02:03:04' DAY TO SECOND``,
``INTERVAL '1-2' YEAR TO MONTH``): their value and the text Spark names them by.

DuckDB's parser refuses ``DAY TO SECOND`` and its kin, so the DuckDB engine writes such a literal
as the one-unit interval of its total (months, or microseconds), which the rest of the rewrite
adds to dates and timestamps as Spark does. The forms and the field ranges are Spark's
``IntervalUtils.fromDayTimeString`` and ``fromYearMonthString``.
"""
from __future__ import annotations

import re

from sqlglot import exp

from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.interval_text import MICROS_PER_UNIT, interval_body

_FIELDS = ("DAY", "HOUR", "MINUTE", "SECOND")
_UPPER = {"HOUR": 24, "MINUTE": 60, "SECOND": 60}
_UNIT_WORDS = {"YEAR": "YEAR", "YEARS": "YEAR", "MONTH": "MONTH", "MONTHS": "MONTH", "DAY": "DAY", "DAYS": "DAY",
               "HOUR": "HOUR", "HOURS": "HOUR", "MINUTE": "MINUTE", "MINUTES": "MINUTE", "SECOND": "SECOND",
               "SECONDS": "SECOND"}
_YEAR_MONTH = re.compile(r"([+-])?(\d+)-(\d{1,2})\Z")
_SECONDS = r"(\d{1,2})(?:\.(\d{1,9}))?"
_DAY_TIME = {
    ("DAY", "HOUR"): re.compile(r"([+-])?(\d+) (\d{1,2})\Z"),
    ("DAY", "MINUTE"): re.compile(r"([+-])?(\d+) (\d{1,2}):(\d{1,2})\Z"),
    ("DAY", "SECOND"): re.compile(rf"([+-])?(\d+) (\d{{1,2}}):(\d{{1,2}}):{_SECONDS}\Z"),
    ("HOUR", "MINUTE"): re.compile(r"([+-])?(\d+):(\d{1,2})\Z"),
    ("HOUR", "SECOND"): re.compile(rf"([+-])?(\d+):(\d{{1,2}}):{_SECONDS}\Z"),
    ("MINUTE", "SECOND"): re.compile(rf"([+-])?(\d+):{_SECONDS}\Z"),
}


def interval_fields(node: exp.Interval) -> tuple[str, str] | None:
    """The first and last field of an interval literal or type (``INTERVAL '1' DAY`` and
    ``INTERVAL 2 HOURS``: one field; ``INTERVAL '1 02' DAY TO HOUR``, ``INTERVAL DAY TO SECOND``),
    or None for fields that are no interval's.

    Example:
        >>> from vpush.optimizer.plan_query import parse_spark
        >>> interval_fields(parse_spark("SELECT INTERVAL '1 2' DAY TO HOUR").expressions[0])
        ('DAY', 'HOUR')
    """
    unit = node.args.get("unit")
    if isinstance(unit, exp.IntervalSpan):
        start, end = unit.this.name.upper(), unit.expression.name.upper()
    elif isinstance(unit, exp.Var):
        start = end = _UNIT_WORDS.get(unit.name.upper(), "")
    else:
        return None
    for fields in (("YEAR", "MONTH"), _FIELDS):
        if start in fields and end in fields and fields.index(start) <= fields.index(end):
            return start, end
    return None


def _span(node: exp.Interval) -> tuple[str, str, str] | None:
    """``(text, from, to)`` of a span literal, or None for another interval."""
    unit, value = node.args.get("unit"), node.this
    fields = interval_fields(node)
    if not isinstance(unit, exp.IntervalSpan) or fields is None or not isinstance(value, exp.Literal) or not value.is_string:
        return None
    return value.this.strip(), *fields


def span_interval(node: exp.Interval) -> tuple[str, int, str] | None:
    """A span literal as ``(unit, amount, name)``: its total in ``MONTH`` or ``MICROSECOND``, and
    Spark's name of it (its fields printed again: ``INTERVAL '1 02:03:04' DAY TO SECOND``); None
    for another interval or a text of another form.

    Raises:
        OptimizeError: a field out of its range, with Spark's error class.

    Example:
        >>> from vpush.optimizer.plan_query import parse_spark
        >>> span_interval(parse_spark("SELECT INTERVAL '1 2:3:4.50' DAY TO SECOND").expressions[0])
        ('MICROSECOND', 93784500000, "INTERVAL '1 02:03:04.5' DAY TO SECOND")
    """
    span = _span(node)
    if span is None:
        return None
    text, start, end = span
    if (start, end) == ("YEAR", "MONTH"):
        match = _YEAR_MONTH.match(text)
        if match is None:
            return None
        if int(match.group(3)) > 11:
            raise OptimizeError(f"Error parsing interval year-month string: month {match.group(3)} outside range [0, 11]",
                                error_class="INVALID_INTERVAL_FORMAT.INTERVAL_PARSING")
        sign = -1 if match.group(1) == "-" else 1
        months = sign * (int(match.group(2)) * 12 + int(match.group(3)))
        return "MONTH", months, f"INTERVAL '{interval_body(months, start, end)}' YEAR TO MONTH"
    pattern = _DAY_TIME.get((start, end))
    match = pattern.match(text) if pattern is not None else None
    if match is None:
        return None
    groups = match.groups()
    sign = -1 if groups[0] == "-" else 1
    fields = _FIELDS[_FIELDS.index(start) : _FIELDS.index(end) + 1]
    total = 0
    for k, field in enumerate(fields):
        value = int(groups[1 + k])
        if k > 0 and value >= _UPPER[field]:
            raise OptimizeError(f"{field.lower()} {value} outside range [0, {_UPPER[field] - 1}]",
                                error_class="_LEGACY_ERROR_TEMP_0063")
        total += value * MICROS_PER_UNIT[field]
    if end == "SECOND" and groups[-1]:
        total += int(groups[-1][:6].ljust(6, "0"))
    total *= sign
    return "MICROSECOND", total, f"INTERVAL '{interval_body(total, start, end)}' {start} TO {end}"


def one_unit_interval(node: exp.Interval) -> exp.Interval | None:
    """A span literal as the one-unit interval of its total (``INTERVAL '93784000000'
    MICROSECOND``), which DuckDB reads; None for another interval."""
    found = span_interval(node)
    if found is None:
        return None
    unit, amount, _ = found
    return exp.Interval(this=exp.Literal.string(str(amount)), unit=exp.var(unit))


_ORDER = ("YEAR", "MONTH", *_FIELDS)


def multi_unit_span(parts: list[exp.Expr]) -> exp.Interval | None:
    """The literal ``INTERVAL 1 DAY 2 HOURS`` (sqlglot's parser reads it as a sum of one-unit
    intervals, ``parts``) as Spark's parser reads it: one ANSI interval from its largest unit to
    its smallest, ``INTERVAL '1 02' DAY TO HOUR``. None for a fraction, a unit other than these,
    or one part.

    Raises:
        OptimizeError: units of both year-month and day-time (Spark's ``_LEGACY_ERROR_TEMP_0029``).

    Example:
        >>> from sqlglot import exp
        >>> parts = [exp.Interval(this=exp.Literal.string(v), unit=exp.var(u)) for v, u in (("1", "DAY"), ("30", "MINUTES"))]
        >>> multi_unit_span(parts).sql(dialect="spark")
        "INTERVAL '1 00:30' DAY TO MINUTE"
    """
    if len(parts) < 2:
        return None
    amounts: dict[str, int] = {}
    for part in parts:
        unit, value = part.args.get("unit"), part.this
        if not isinstance(part, exp.Interval) or not isinstance(unit, exp.Var) or not isinstance(value, exp.Literal):
            return None
        word = _UNIT_WORDS.get(unit.name.upper())
        text = value.this.strip()
        if word is None or word in amounts or not text.lstrip("+-").isdigit():
            return None
        amounts[word] = int(text)
    units = sorted(amounts, key=_ORDER.index)
    if set(units) <= {"YEAR", "MONTH"}:
        text = interval_body(amounts.get("YEAR", 0) * 12 + amounts.get("MONTH", 0), units[0], units[-1])
    elif set(units) <= set(_FIELDS):
        text = interval_body(sum(amount * MICROS_PER_UNIT[unit] for unit, amount in amounts.items()), units[0], units[-1])
    else:
        raise OptimizeError(
            f"Cannot mix year-month and day-time fields: INTERVAL {' '.join(f'{amounts[u]} {u}' for u in units)}",
            error_class="_LEGACY_ERROR_TEMP_0029",
        )
    span = exp.IntervalSpan(this=exp.var(units[0]), expression=exp.var(units[-1]))
    return exp.Interval(this=exp.Literal.string(text), unit=span)
