"""Spark's casts of strings to dates and timestamps, for whole Arrow columns.

DuckDB's own ``CAST(s AS DATE)`` is not Spark's: Spark takes a year alone (``'2024'`` is
2024-01-01), one-digit months and days, anything after a ``T`` or a space behind a date, zones
written in the text (``'2024-01-01 10:00 America/New_York'``) and a time alone, and raises
``CAST_INVALID_INPUT`` where DuckDB raises its own error. The compiled kernel
(``codec/spark_datetime.c``) parses every row as Spark's ``DateTimeUtils`` does; this module
turns its fields into dates or instants: a written zone is resolved once per distinct text, and
local times become instants through the zone's offsets as java.time chooses them (the earlier
offset in an overlap, the offset before a gap), looked up once per span of constant offset, not
once per row. The per-row reference is :mod:`vpush.exec.variant_cast` (checked against PySpark).

Example:
    >>> string_to_date_column(pa.array(["2024", " 2024-1-5 ", "2024-02-30", None]), strict=False).to_pylist()
    [datetime.date(2024, 1, 1), datetime.date(2024, 1, 5), None, None]
    >>> string_to_timestamp_column(pa.array(["2024-01-01 10:00:00 +02:00"]), time_zone="UTC", ntz=False, strict=True)[0]
    <pyarrow.TimestampScalar: '2024-01-01T08:00:00.000000+0000'>
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from vpush.codec.java_format import resolve_time_zone
from vpush.codec.native import NativeUnsupportedError, parse_datetimes_native, zone_spans
from vpush.exec.errors import ExecutionError
from vpush.optimizer.errors import spark_string_value
from vpush.exec.variant_cast import CAST_INVALID_INPUT, spark_zone_of, string_to_timestamp

__all__ = [
    "CANNOT_PARSE_TIMESTAMP", "TRUNCATE_LEVELS", "add_interval_column", "formatted_string_column", "string_to_date_column",
    "local_utc_offsets", "shift_utc_column", "string_to_timestamp_column", "truncate_timestamp_column", "utc_offsets_at",
]

_LOCAL, _ZONED, _FAILED, _TIME_ONLY, _TIME_ZONED = 1, 2, 3, 4, 5
_DAY = 86_400
_MICROS = 1_000_000
# The seconds whose every microsecond fits a signed 64-bit count of microseconds, and the
# fractions that still fit at the two edges.
_LOW_SECOND, _HIGH_SECOND = -9_223_372_036_855, 9_223_372_036_854
_LOW_FRACTION, _HIGH_FRACTION = 224_192, 775_807


def _strings(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else pa.array([], values.type)
    if pa.types.is_string_view(values.type):
        values = values.cast(pa.large_string())
    return values


def _invalid(values: pa.Array, failed: np.ndarray, target: str) -> ExecutionError:
    text = values[int(np.flatnonzero(failed)[0])].as_py()
    return ExecutionError(
        f"The value {spark_string_value(text)} of the type \"STRING\" cannot be cast to \"{target}\" because it is malformed. "
        "Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate "
        "malformed input and return NULL instead.",
        error_class=CAST_INVALID_INPUT,
    )


def string_to_date_column(values: pa.Array | pa.ChunkedArray, *, strict: bool) -> pa.Array:
    """Spark's ``CAST(s AS DATE)`` of every string: a date32 array, NULL where ``s`` is.

    Args:
        values: a string array (any Arrow string type).
        strict: raise for a string that is not a date (``cast``); else NULL (``try_cast``).

    Raises:
        ExecutionError: ``CAST_INVALID_INPUT``, naming the first such string, when ``strict``.
    """
    values = _strings(values)
    status, days, _, _ = parse_datetimes_native(values, "date")
    failed = status == _FAILED
    if strict and failed.any():
        raise _invalid(values, failed, "DATE")
    valid = (status == _LOCAL)
    return pa.array(days.astype(np.int32), pa.date32(), mask=~valid)


def string_to_timestamp_column(values: pa.Array | pa.ChunkedArray, *, time_zone: str, ntz: bool, strict: bool) -> pa.Array:
    """Spark's ``CAST(s AS TIMESTAMP)`` (in ``time_zone`` where the text names no zone) or, with
    ``ntz``, ``CAST(s AS TIMESTAMP_NTZ)`` (a zone written is checked, then ignored), of every
    string: microseconds in a ``timestamp[us, tz=UTC]`` array (``timestamp[us]`` for ``ntz``).

    Raises:
        ExecutionError: ``CAST_INVALID_INPUT``, naming the first string that is not a
            timestamp, when ``strict``; an unknown session time zone.
    """
    values = _strings(values)
    try:
        session = resolve_time_zone(time_zone)
    except Exception as exc:  # noqa: BLE001 - CodecError: the message names the zone
        raise ExecutionError(str(exc)) from None
    status, seconds, micros, zones = parse_datetimes_native(values, "timestamp_ntz" if ntz else "timestamp")
    status = status.copy()
    offsets = np.zeros(len(values), np.int64)
    zoned = np.flatnonzero(status == _ZONED)
    if len(zoned):
        # One resolution per distinct zone text; its rows' offsets in one pass.
        texts = zones.take(pa.array(zoned)).dictionary_encode()
        for code, text in enumerate(texts.dictionary.to_pylist()):
            rows = zoned[np.asarray(texts.indices) == code]
            zone = spark_zone_of(text)
            if zone is None:
                status[rows] = _FAILED
            elif not ntz:
                offsets[rows] = local_utc_offsets(zone, seconds[rows])
    if not ntz:
        local = np.flatnonzero(status == _LOCAL)
        offsets[local] = local_utc_offsets(session, seconds[local])
    result = np.zeros(len(values), np.int64)
    timed = np.flatnonzero((status == _TIME_ONLY) | (status == _TIME_ZONED))
    for row in timed:  # a time alone is today's date: rare, one row at a time by the reference
        instant = string_to_timestamp(values[int(row)].as_py(), session, ntz)
        if instant is None:
            status[row] = _FAILED
        else:
            result[row] = instant
    instants = seconds - offsets
    fits = (
        ((instants > _LOW_SECOND) & (instants < _HIGH_SECOND))
        | ((instants == _HIGH_SECOND) & (micros <= _HIGH_FRACTION))
        | ((instants == _LOW_SECOND) & (micros >= _LOW_FRACTION))
    )
    parsed = (status == _LOCAL) | (status == _ZONED)
    status[parsed & ~fits] = _FAILED  # Math.multiplyExact / addExact overflow
    parsed &= fits
    result[parsed] = instants[parsed] * _MICROS + micros[parsed]
    failed = status == _FAILED
    if strict and failed.any():
        raise _invalid(values, failed, "TIMESTAMP_NTZ" if ntz else "TIMESTAMP")
    valid = parsed.copy()
    valid[timed] = ~failed[timed]
    return pa.array(result, pa.timestamp("us") if ntz else pa.timestamp("us", tz="UTC"), mask=~valid)


def local_to_timestamp_column(values: pa.Array | pa.ChunkedArray, *, time_zone: str) -> pa.Array:
    """Spark's ``CAST(x AS TIMESTAMP)`` of every ``timestamp_ntz``: the local time in the session
    zone, resolved as java.time resolves it (an overlap's earlier offset, a gap's offset before
    it), where DuckDB's cast takes an overlap's later one.

    Raises:
        ExecutionError: an unknown session time zone.
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    try:
        session = resolve_time_zone(time_zone)
    except Exception as exc:  # noqa: BLE001 - CodecError: the message names the zone
        raise ExecutionError(str(exc)) from None
    micros = np.asarray(values.cast(pa.int64()).fill_null(0), np.int64)
    offsets = local_utc_offsets(session, np.floor_divide(micros, _MICROS))
    return pa.array(micros - offsets * _MICROS, pa.timestamp("us", tz="UTC"), mask=np.asarray(values.is_null()))


# Spark's date_trunc levels that cut the microseconds since the epoch (DateTimeUtils.truncTimestamp:
# floorMod in UTC), those that cut the local time and keep its offset where it is still valid
# (ZonedDateTime.truncatedTo), and those that cut the local date and take its start of day.
_UTC_LEVELS = {"microsecond": 1, "millisecond": 1_000, "second": _MICROS}
_LOCAL_LEVELS = {"minute": 60 * _MICROS, "hour": 3_600 * _MICROS, "day": _DAY * _MICROS}
_DATE_LEVELS = ("week", "month", "quarter", "year")
TRUNCATE_LEVELS = (*_UTC_LEVELS, *_LOCAL_LEVELS, *_DATE_LEVELS)
"""The levels :func:`truncate_timestamp_column` takes (DuckDB's names of Spark's ``date_trunc`` units)."""


def truncate_timestamp_column(values: pa.Array | pa.ChunkedArray, level: str, *, time_zone: str) -> pa.Array:
    """Spark's ``date_trunc(level, ts)`` of every timestamp in the session time zone.

    A minute, hour or day cut keeps the local time's offset where the cut time still has it
    (java.time's ``ZonedDateTime.truncatedTo``: 01:30 PDT on a fall-back night cuts to 01:00 PDT,
    where DuckDB's cut takes the later 01:00 PST); a week (from Monday), month, quarter or year
    is the start of that local date as java.time resolves it (the earlier offset of an overlap,
    the end of a gap).

    Example:
        >>> fall = pa.array([1_730_622_600_000_000], pa.timestamp("us", tz="UTC"))  # 01:30 PDT
        >>> truncate_timestamp_column(fall, "hour", time_zone="America/Los_Angeles")[0]
        <pyarrow.TimestampScalar: '2024-11-03T08:00:00.000000+0000'>

    Raises:
        ExecutionError: an unknown level or session time zone.
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else pa.array([], pa.timestamp("us", tz="UTC"))
    if level not in TRUNCATE_LEVELS:
        raise ExecutionError(f"date_trunc: the level {level!r} is not one of {TRUNCATE_LEVELS}")
    try:
        session = resolve_time_zone(time_zone)
    except Exception as exc:  # noqa: BLE001 - CodecError: the message names the zone
        raise ExecutionError(str(exc)) from None
    micros = np.asarray(values.cast(pa.timestamp("us", tz="UTC")).cast(pa.int64()).fill_null(0), np.int64)
    if level in _UTC_LEVELS:
        result = micros - np.mod(micros, _UTC_LEVELS[level])
    else:
        offsets = utc_offsets_at(session, np.floor_divide(micros, _MICROS)) * _MICROS
        local = micros + offsets
        if level in _LOCAL_LEVELS:
            cut = local - np.mod(local, _LOCAL_LEVELS[level])
            kept = cut - offsets
            still_valid = utc_offsets_at(session, np.floor_divide(kept, _MICROS)) * _MICROS == offsets
        else:
            days = np.floor_divide(local, _DAY * _MICROS)
            cut = _first_day(days, level) * (_DAY * _MICROS)
            kept, still_valid = cut, np.zeros(len(cut), bool)
        resolved = cut - local_utc_offsets(session, np.floor_divide(cut, _MICROS)) * _MICROS
        result = np.where(still_valid, kept, resolved)
    return pa.array(result, pa.timestamp("us", tz="UTC"), mask=np.asarray(values.is_null()))


def add_interval_column(
    values: pa.Array | pa.ChunkedArray, months: pa.Array | pa.ChunkedArray, days: pa.Array | pa.ChunkedArray,
    micros: pa.Array | pa.ChunkedArray, *, time_zone: str,
) -> pa.Array:
    """Spark's ``DateTimeUtils.timestampAddInterval`` of every timestamp in the session time zone:
    java.time's ``atZone(zone).plusMonths(months).plusDays(days).plus(micros, MICROS)``. Months
    (a day past the month's end is its last) and days move the local time; each keeps the offset
    it had where that offset is still valid for the moved local time (in an overlap too: 01:30 PST
    on the day after a fall-back night, less a day, is 01:30 PST), else takes the earlier offset of
    an overlap or the offset before a gap (a local time in a gap moves forward by the gap); the
    microseconds then move the instant. A result past the 64-bit microseconds (where Java's
    arithmetic would overflow) is NULL: ``sequence`` computes candidates past its stop, which such
    a NULL drops.

    Example:
        >>> pst = pa.array([1_730_712_600_000_000], pa.timestamp("us", tz="UTC"))  # 2024-11-04 01:30 PST
        >>> add_interval_column(pst, pa.array([0]), pa.array([-1]), pa.array([0]), time_zone="America/Los_Angeles")[0]
        <pyarrow.TimestampScalar: '2024-11-03T09:30:00.000000+0000'>

    Raises:
        ExecutionError: an unknown session time zone.
    """
    values, months, days, micros = (a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in (values, months, days, micros))
    try:
        session = resolve_time_zone(time_zone)
    except Exception as exc:  # noqa: BLE001 - CodecError: the message names the zone
        raise ExecutionError(str(exc)) from None
    missing = np.asarray(values.is_null(), bool) | np.asarray(months.is_null(), bool) | np.asarray(days.is_null(), bool) \
        | np.asarray(micros.is_null(), bool)
    instants = np.asarray(values.cast(pa.timestamp("us", tz="UTC")).cast(pa.int64()).fill_null(0), np.int64)
    day_micros = _DAY * _MICROS
    overflow = np.zeros(len(instants), bool)

    def past_range(approximate: np.ndarray) -> np.ndarray:
        # int64 arithmetic wraps silently: its float estimate tells where it would
        return np.abs(approximate) >= _RANGE_MICROS

    for kind, amounts in (("months", months), ("days", days)):
        amount = np.asarray(amounts.cast(pa.int64()).fill_null(0), np.int64)
        offsets = utc_offsets_at(session, np.floor_divide(instants, _MICROS)) * _MICROS
        local = instants + offsets
        if kind == "days":
            overflow |= past_range(local.astype(np.float64) + amount.astype(np.float64) * day_micros)
            amount = np.where(overflow, 0, amount)
            moved = local + amount * day_micros
        else:
            day = np.floor_divide(local, day_micros)
            month = day.astype("datetime64[D]").astype("datetime64[M]")
            first = month.astype("datetime64[D]").astype(np.int64)
            overflow |= past_range((first.astype(np.float64) + amount.astype(np.float64) * 31) * day_micros)
            amount = np.where(overflow, 0, amount)
            target = month + amount.astype("timedelta64[M]")
            target_first = target.astype("datetime64[D]").astype(np.int64)
            length = (target + np.timedelta64(1, "M")).astype("datetime64[D]").astype(np.int64) - target_first
            moved = (target_first + np.minimum(day - first, length - 1)) * day_micros + (local - day * day_micros)
        kept = moved - offsets
        still_valid = utc_offsets_at(session, np.floor_divide(kept, _MICROS)) * _MICROS == offsets
        resolved = moved - local_utc_offsets(session, np.floor_divide(moved, _MICROS)) * _MICROS
        instants = np.where(amount == 0, instants, np.where(still_valid, kept, resolved))
    micro = np.asarray(micros.cast(pa.int64()).fill_null(0), np.int64)
    overflow |= past_range(instants.astype(np.float64) + micro.astype(np.float64))
    return pa.array(np.where(overflow, 0, instants + np.where(overflow, 0, micro)), pa.timestamp("us", tz="UTC"), mask=missing | overflow)


_RANGE_MICROS = 9.2e18
"""Microseconds from the epoch past which :func:`add_interval_column` gives NULL: within int64's
9.223e18, less the float estimate's error (DuckDB's timestamps end at 9.2233e18 too)."""


def shift_utc_column(values: pa.Array | pa.ChunkedArray, zones: str | pa.Array | pa.ChunkedArray, *, to_utc: bool) -> pa.Array:
    """Spark's ``from_utc_timestamp(ts, zone)`` (``to_utc`` false: the wall time of each instant in
    ``zone``, read as UTC) or ``to_utc_timestamp(ts, zone)`` (the wall time in UTC read in ``zone``,
    as java.time resolves it: an overlap's earlier offset, a gap's offset before it).

    Args:
        values: the timestamps.
        zones: one zone for every row, or a column of zones (NULL where a zone is NULL).
        to_utc: ``to_utc_timestamp`` rather than ``from_utc_timestamp``.

    Example:
        >>> noon = pa.array([1_704_110_400_000_000], pa.timestamp("us", tz="UTC"))  # 2024-01-01 12:00 UTC
        >>> shift_utc_column(noon, "Asia/Kolkata", to_utc=False)[0]
        <pyarrow.TimestampScalar: '2024-01-01T17:30:00.000000+0000'>

    Raises:
        ExecutionError: ``INVALID_TIMEZONE`` for a zone Spark does not know, in a row whose
        timestamp is not NULL (Spark reads the zone of such a row only, a literal one too).
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else pa.array([], pa.timestamp("us", tz="UTC"))
    missing = np.asarray(values.is_null(), bool)
    if isinstance(zones, str):
        names, which = [zones], np.zeros(len(values), np.int64)
    else:
        # one lookup per distinct zone, not per row
        encoded = (zones.combine_chunks() if isinstance(zones, pa.ChunkedArray) else zones).cast(pa.string()).dictionary_encode()
        names, which = encoded.dictionary.to_pylist(), np.asarray(encoded.indices.fill_null(-1), np.int64)
        missing |= which < 0
    micros = np.asarray(values.cast(pa.timestamp("us", tz="UTC")).cast(pa.int64()).fill_null(0), np.int64)
    seconds = np.floor_divide(micros, _MICROS)
    shifted = micros.copy()
    for index, zone in enumerate(names):
        rows = (which == index) & ~missing
        if not rows.any():
            continue
        try:
            region = resolve_time_zone(zone)
        except Exception:  # noqa: BLE001 - CodecError: an unknown zone
            raise ExecutionError(
                f"The datetime zone id '{zone}' is invalid. Please, provide a valid time zone.", error_class="INVALID_TIMEZONE"
            ) from None
        at = seconds[rows]
        offsets = -local_utc_offsets(region, at) if to_utc else utc_offsets_at(region, at)
        shifted[rows] = micros[rows] + offsets * _MICROS
    return pa.array(shifted, pa.timestamp("us", tz="UTC"), mask=missing)


def _first_day(days: np.ndarray, level: str) -> np.ndarray:
    """The first day (days since the epoch) of the week (from Monday), month, quarter or year of
    each day, in the proleptic Gregorian calendar as java.time counts it."""
    if level == "week":
        return days - np.mod(days + 3, 7)  # 1970-01-01 was a Thursday
    months = days.astype("datetime64[D]").astype("datetime64[M]")
    if level == "year":
        months = months.astype("datetime64[Y]").astype("datetime64[M]")
    elif level == "quarter":
        index = months.astype(np.int64)
        months = (index - np.mod(index, 3)).astype("datetime64[M]")
    return months.astype("datetime64[D]").astype(np.int64)


def local_utc_offsets(zone: int | Any, local: np.ndarray) -> np.ndarray:
    """The offset java.time gives each local time (seconds since the epoch, read as UTC) in
    ``zone``: the one valid offset; in an overlap the earlier; in a gap the one before it."""
    if isinstance(zone, int) or not len(local):
        return np.full(len(local), zone if isinstance(zone, int) else 0, np.int64)
    lookup = _Offsets(zone)
    # No offset passes 18 hours, and no two changes of offset lie within a day and a half:
    # a day either side of a local time lies on either side of at most one change.
    before, after = lookup(local - _DAY), lookup(local + _DAY)
    keeps_before = lookup(local - before) == before
    takes_after = ~keeps_before & (lookup(local - after) == after)
    return np.where(takes_after, after, before)


class _Offsets:
    """A region's UTC offset at many instants: one span lookup per span of constant offset the
    instants touch (:func:`vpush.codec.native.zone_spans`), then a sorted search."""

    def __init__(self, zone: Any) -> None:
        self.spans = zone_spans(zone)

    def __call__(self, instants: np.ndarray) -> np.ndarray:
        points = np.unique(instants)
        starts: list[int] = []
        offsets: list[int] = []
        at = 0
        while at < len(points):
            low, high, offset = self.spans(int(points[at]))
            starts.append(low)
            offsets.append(offset)
            at = int(np.searchsorted(points, high, side="left"))
        found = np.searchsorted(np.array(starts, np.int64), instants, side="right") - 1
        return np.array(offsets, np.int64)[found]



CANNOT_PARSE_TIMESTAMP = "CANNOT_PARSE_TIMESTAMP"
FORMATTED_TARGETS = ("timestamp", "date", "unix_seconds", "timestamp_ntz")
"""What :func:`formatted_string_column` gives: Spark's ``to_timestamp``, ``to_date``,
``unix_timestamp`` or ``to_timestamp_ntz`` of a string by a pattern."""


def formatted_string_column(
    values: pa.Array | pa.ChunkedArray, pattern: str, *, time_zone: str, target: str, strict: bool
) -> pa.Array:
    """Spark's ``to_timestamp(s, pattern)`` (``target`` ``timestamp``: a ``timestamp[us, tz=UTC]``
    array), ``to_date(s, pattern)`` (``date``: date32, the date of that instant in the session
    time zone, as Spark casts it) or ``unix_timestamp(s, pattern)`` (``unix_seconds``: int64
    seconds, the microseconds divided toward zero as Spark's long division does) of every string,
    or ``to_timestamp_ntz(s, pattern)`` (``timestamp_ntz``: a ``timestamp[us]`` array of the local
    times, any offset the text writes ignored, as Spark's does). Local times become instants in ``time_zone`` as java.time chooses (the offset before a gap),
    unless the text writes an offset.

    Example:
        >>> formatted_string_column(pa.array(["05/01/2024 10:30", "5/1/2024 10:30", None]), "dd/MM/yyyy HH:mm",
        ...                         time_zone="UTC", target="unix_seconds", strict=False).to_pylist()
        [1704450600, None, None]

    Raises:
        ExecutionError: ``CANNOT_PARSE_TIMESTAMP``, naming the first string the pattern does not
            parse, when ``strict``; an unknown session time zone.
        DatetimePatternError: a pattern Spark rejects or vpush does not parse.
    """
    from vpush.codec.datetime_pattern import compile_pattern
    from vpush.codec.native import parse_formatted_native

    if target not in FORMATTED_TARGETS:
        raise ExecutionError(f"formatted_string_column: the target {target!r} is not one of {FORMATTED_TARGETS}")
    values = _strings(values)
    try:
        session = resolve_time_zone(time_zone)
    except Exception as exc:  # noqa: BLE001 - CodecError: the message names the zone
        raise ExecutionError(str(exc)) from None
    status, local, micros, written = parse_formatted_native(values, compile_pattern(pattern))
    status = status.copy()
    if target == "timestamp_ntz":
        offsets = np.zeros(len(local), np.int64)  # Spark's to_timestamp_ntz keeps the local time, an offset written or not
    else:
        offsets = written.astype(np.int64)
        local_rows = np.flatnonzero(status == 1)
        offsets[local_rows] = local_utc_offsets(session, local[local_rows])
    instants = local - offsets
    fits = (
        ((instants > _LOW_SECOND) & (instants < _HIGH_SECOND))
        | ((instants == _HIGH_SECOND) & (micros <= _HIGH_FRACTION))
        | ((instants == _LOW_SECOND) & (micros >= _LOW_FRACTION))
    )
    parsed = (status == 1) | (status == 2)
    overflows = parsed & ~fits
    if overflows.any():
        # Spark's Math.multiplyExact raises an ArithmeticException, with no error class, in try_to_timestamp too
        text = values[int(np.flatnonzero(overflows)[0])].as_py()
        raise ExecutionError(f"long overflow: the text '{text}' by the pattern '{pattern}' is beyond the timestamps")
    parsed &= fits
    failed = status == 3
    if strict and failed.any():
        text = values[int(np.flatnonzero(failed)[0])].as_py()
        raise ExecutionError(
            f"Text '{text}' could not be parsed by the datetime pattern '{pattern}'. Use `try_to_timestamp` to tolerate "
            "invalid input string and return NULL instead.",
            error_class=CANNOT_PARSE_TIMESTAMP,
        )
    instants = np.where(parsed, instants, 0)
    if target == "unix_seconds":
        seconds = instants + ((instants < 0) & (micros > 0))  # toward zero, as Java's long division
        return pa.array(seconds, pa.int64(), mask=~parsed)
    if target == "date":
        here = instants + utc_offsets_at(session, instants)
        return pa.array((here // _DAY).astype(np.int32), pa.date32(), mask=~parsed)
    result = instants * _MICROS + np.where(parsed, micros, 0)
    if target == "timestamp_ntz":
        return pa.array(result, pa.timestamp("us"), mask=~parsed)
    return pa.array(result, pa.timestamp("us", tz="UTC"), mask=~parsed)


def utc_offsets_at(zone: int | Any, instants: np.ndarray) -> np.ndarray:
    """The offset of ``zone`` at each instant (seconds since the epoch)."""
    if isinstance(zone, int) or not len(instants):
        return np.full(len(instants), zone if isinstance(zone, int) else 0, np.int64)
    return _Offsets(zone)(instants)
