"""Spark's text of ANSI interval values, as its CSV and JSON writers and ``show()`` print them
(``IntervalUtils.toDayTimeIntervalString`` and ``toYearMonthIntervalString``, ANSI style), and as
its parser names an interval literal (:mod:`vpush.optimizer.spark_intervals`): one rule for both,
vectorized over a column, and :func:`interval_body` for one value at plan time.

Measured on PySpark 4.3 (``tests/test_cli.py``), by the interval type's fields:

```
interval day                 INTERVAL '1' DAY, INTERVAL '-60' DAY, INTERVAL '0' DAY
interval day to second       INTERVAL '3 04:05:06.789' DAY TO SECOND, '-1 03:04:05.5'
interval day to hour/minute  INTERVAL '1 02' DAY TO HOUR, INTERVAL '1 02:03' DAY TO MINUTE
interval hour [to ...]       INTERVAL '25' HOUR, '02:03' HOUR TO MINUTE, '02:03:04.5' HOUR TO SECOND
interval minute [to second]  INTERVAL '90' MINUTE, INTERVAL '03:04.000001' MINUTE TO SECOND
interval second              INTERVAL '01.5' SECOND, '-00.000001', '00', '1000000'
interval year / month        INTERVAL '3' YEAR, INTERVAL '14' MONTH
interval year to month       INTERVAL '1-2' YEAR TO MONTH, INTERVAL '-178956970-8' YEAR TO MONTH
```

The sign comes first; the first field is unbounded (an hour or minute two digits at least), the
others two digits; seconds carry their fraction without trailing zeros, and a second below ten
a leading zero. Fields past the type's last are not printed.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from vpush.optimizer.errors import OptimizeError

__all__ = ["MICROS_PER_DAY", "MICROS_PER_UNIT", "MONTHS_PER_UNIT", "format_intervals", "interval_body"]

MICROS_PER_UNIT = {"WEEK": 604_800_000_000, "DAY": 86_400_000_000, "HOUR": 3_600_000_000, "MINUTE": 60_000_000,
                   "SECOND": 1_000_000, "MILLISECOND": 1_000, "MICROSECOND": 1}
"""Spark's interval units of a fixed length, in microseconds (``IntervalUtils``: a week is seven
days, a day of a day-time interval 24 hours). The one table of them: the interval modules, the
``sequence`` step, ``timestampadd`` and ``window``'s durations read it."""
MONTHS_PER_UNIT = {"YEAR": 12, "MONTH": 1}
"""Spark's interval units of the calendar, in months."""
MICROS_PER_DAY = MICROS_PER_UNIT["DAY"]
_DAY_TIME = ("DAY", "HOUR", "MINUTE", "SECOND")
_YEAR_MONTH = ("YEAR", "MONTH")
_SEPARATOR = {"HOUR": " ", "MINUTE": ":", "SECOND": ":"}


def format_intervals(column: pa.Array | pa.ChunkedArray, type_name: str) -> pa.Array:
    """Spark's text of each value of an interval column of the type ``type_name``; NULL where
    the value is NULL.

    Example:
        >>> column = pa.array([93_784_500_000, -1, 0, None], pa.duration("us"))
        >>> format_intervals(column, "interval day to second").to_pylist()
        ["INTERVAL '1 02:03:04.5' DAY TO SECOND", "INTERVAL '-0 00:00:00.000001' DAY TO SECOND", \
"INTERVAL '0 00:00:00' DAY TO SECOND", None]
        >>> format_intervals(pa.array([14, -14, None], pa.int32()), "interval year to month").to_pylist()
        ["INTERVAL '1-2' YEAR TO MONTH", "INTERVAL '-1-2' YEAR TO MONTH", None]

    Args:
        column: a day-time interval as a ``duration`` (of microseconds) or its microseconds, a
            year-month interval as its months (integers).
        type_name: Spark's name of the type (``interval day``, ``interval hour to second``,
            ``interval year to month``).

    Raises:
        OptimizeError: a name that is no interval type.
    """
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    words = type_name.upper().split()
    if len(words) not in (2, 4) or words[0] != "INTERVAL" or (len(words) == 4 and words[2] != "TO"):
        raise OptimizeError(f"not an interval type: {type_name!r}")
    start, end = words[1], words[-1]
    if pa.types.is_duration(array.type):
        array = array.cast(pa.duration("us")).cast(pa.int64())
    body = _bodies(np.asarray(array.cast(pa.int64()).fill_null(0), np.int64), start, end, type_name)
    qualifier = start if start == end else f"{start} TO {end}"
    text = pc.binary_join_element_wise("INTERVAL '", body, f"' {qualifier}", "")
    return pc.if_else(array.is_valid(), text, pa.scalar(None, pa.string())) if array.null_count else text


def interval_body(value: int, start: str, end: str) -> str:
    """Spark's text of one interval between the quotes, by :func:`format_intervals`'s rule:
    ``value`` months (year-month) or microseconds (day-time), of the fields ``start`` to ``end``.

    Example:
        >>> interval_body(-93_784_500_000, "DAY", "SECOND"), interval_body(14, "YEAR", "MONTH")
        ('-1 02:03:04.5', '1-2')
    """
    body = _bodies(np.array([value], np.int64), start.upper(), end.upper(), f"interval {start} to {end}")[0]
    return str(body.as_py())


def _bodies(values: np.ndarray, start: str, end: str, type_name: str) -> pa.Array:
    fields = next((f for f in (_DAY_TIME, _YEAR_MONTH) if start in f and end in f), None)
    if fields is None or fields.index(start) > fields.index(end):
        raise OptimizeError(f"not an interval type: {type_name!r}")
    negative = values < 0
    # the magnitude, Long.MinValue's too (whose negation overflows a long)
    magnitude = np.where(negative, (-(values + 1)).astype(np.uint64) + np.uint64(1), values.astype(np.uint64))
    sign = pc.if_else(pa.array(negative), "-", "")
    if fields is _YEAR_MONTH:
        return _year_month(values, magnitude, sign, start, end)
    return _day_time(magnitude, sign, start, end)


def _text(numbers: np.ndarray) -> pa.Array:
    return pa.array(numbers).cast(pa.string())


def _two_digits(numbers: np.ndarray) -> pa.Array:
    return pc.utf8_lpad(_text(numbers), width=2, padding="0")


def _seconds(micros: np.ndarray) -> pa.Array:
    """``BigDecimal.valueOf(micros, 6).stripTrailingZeros.toPlainString``, a leading zero below ten."""
    whole, fraction = np.divmod(micros, np.uint64(1_000_000))
    digits = pc.replace_substring_regex(pc.utf8_lpad(_text(fraction), width=6, padding="0"), "0+$", "")
    point = pc.if_else(pa.array(fraction != 0), ".", "")
    return pc.binary_join_element_wise(_two_digits(whole), point, digits, "")


def _day_time(magnitude: np.ndarray, sign: pa.Array, start: str, end: str) -> pa.Array:
    rest = magnitude
    parts: list[pa.Array | str] = [sign]
    for field in _DAY_TIME[_DAY_TIME.index(start) : _DAY_TIME.index(end) + 1]:
        if field != start:
            parts.append(_SEPARATOR[field])
        if field == "SECOND":
            parts.append(_seconds(rest))
            break
        whole, rest = np.divmod(rest, np.uint64(MICROS_PER_UNIT[field]))
        parts.append(_text(whole) if field == "DAY" else _two_digits(whole))
    return pc.binary_join_element_wise(*parts, "")


def _year_month(months: np.ndarray, magnitude: np.ndarray, sign: pa.Array, start: str, end: str) -> pa.Array:
    years, rest = np.divmod(magnitude, np.uint64(12))
    if start == end == "MONTH":
        return _text(months)
    if start == end:
        return pc.binary_join_element_wise(sign, _text(years), "")
    return pc.binary_join_element_wise(sign, _text(years), "-", _text(rest), "")
