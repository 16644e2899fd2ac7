"""Spark's ``make_timestamp`` family: a timestamp from its fields, as Spark 4.3's ``MakeTimestamp``.

Spark casts the seconds to ``decimal(16,6)`` (rounding half up), takes their unscaled value as a
Java ``int`` of microseconds (wrapping past 2**31, as Spark's ``toInt`` does), builds a
``LocalDateTime`` (each field out of its range is a ``DateTimeException``: Spark's
``DATETIME_FIELD_OUT_OF_BOUNDS``; 60 seconds with no fraction is the next minute, with a fraction
``INVALID_FRACTION_OF_SECOND``) and, for a timestamp, resolves it in the zone as java.time does (an
overlap's earlier offset, a gap's offset before it). The ``try_`` forms give NULL for those
errors; every form gives NULL for a NULL field or zone.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from vpush.codec.java_format import resolve_time_zone
from vpush.exec.errors import ExecutionError
from vpush.exec.string_datetimes import local_utc_offsets

__all__ = ["make_timestamp"]

_MICROS = 1_000_000
_DAY = 86_400
_MAX_YEAR = 999_999_999  # java.time's Year.MAX_VALUE
_DAYS_IN_MONTH = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], np.int64)
# The microseconds a long holds: beyond them Spark's instantToMicros raises "long overflow".
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _ints(values: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    return np.asarray(values.cast(pa.int64()).fill_null(0), np.int64), np.asarray(values.is_null(), bool)


def _days_from_civil(year: np.ndarray, month: np.ndarray, day: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 of each proleptic Gregorian date (Howard Hinnant's days_from_civil)."""
    y = year - (month <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    doy = (153 * np.where(month > 2, month - 3, month + 9) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def make_timestamp(
    year: pa.Array | pa.ChunkedArray,
    month: pa.Array | pa.ChunkedArray,
    day: pa.Array | pa.ChunkedArray,
    hour: pa.Array | pa.ChunkedArray,
    minute: pa.Array | pa.ChunkedArray,
    micros: pa.Array | pa.ChunkedArray,
    zones: str | pa.Array | pa.ChunkedArray | None,
    *,
    strict: bool,
    strict_zone: bool | None = None,
) -> pa.Array:
    """Spark's ``make_timestamp`` (``zones`` given: a ``timestamp[us, tz=UTC]`` array) or
    ``make_timestamp_ntz`` (``zones`` None: a ``timestamp[us]`` array) of every row; not
    ``strict``, the ``try_`` forms.

    Example:
        >>> ints = lambda *v: pa.array(v, pa.int32())
        >>> make_timestamp(ints(2024, 2024), ints(3, 2), ints(10, 30), ints(2, 1), ints(30, 0),
        ...                pa.array([0, 60_000_000]), "America/Los_Angeles", strict=False).cast(pa.string()).to_pylist()
        ['2024-03-10 10:30:00.000000Z', None]

    Args:
        year, month, day, hour, minute: the fields, as ints.
        micros: the seconds, as the unscaled value of Spark's ``decimal(16,6)`` of them (a bigint).
        zones: one zone for every row, a column of zones, or None for ``timestamp_ntz``.
        strict: raise for a field out of range, rather than give NULL.
        strict_zone: raise for a zone Spark does not know, rather than give NULL (default:
            ``strict``; Spark's ``try_make_timestamp_ltz`` raises, its ``try_make_timestamp`` not).

    Raises:
        ExecutionError: ``DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION``,
            ``INVALID_FRACTION_OF_SECOND`` (when ``strict``), ``INVALID_TIMEZONE``, or a timestamp
            past the microseconds a long holds (Spark's ``long overflow``, without a class).
    """
    columns = [_ints(c) for c in (year, month, day, hour, minute, micros)]
    (y, y_null), (mo, mo_null), (d, d_null), (h, h_null), (mi, mi_null), (us, us_null) = columns
    missing = y_null | mo_null | d_null | h_null | mi_null | us_null
    # Spark's unscaled value .toInt: a Java int, wrapping
    total = (us + (1 << 31)) % (1 << 32) - (1 << 31)
    seconds, fraction = np.divmod(total, _MICROS)
    leap = seconds == 60
    fraction_error = leap & (fraction != 0)
    date_ok = (np.abs(y) <= _MAX_YEAR) & (mo >= 1) & (mo <= 12) & (d >= 1) & (d <= 31)
    month_days = _DAYS_IN_MONTH[np.where(date_ok, mo, 0)]
    leap_year = (y % 4 == 0) & ((y % 100 != 0) | (y % 400 == 0))
    month_days = month_days + ((mo == 2) & leap_year)
    field_ok = date_ok & (d <= month_days) & (h >= 0) & (h <= 23) & (mi >= 0) & (mi <= 59) & (
        leap | ((seconds >= 0) & (seconds <= 59)))
    failed = ~missing & (fraction_error | ~field_ok)
    if strict and failed.any():
        row = int(np.flatnonzero(failed)[0])
        if fraction_error[row]:
            raise ExecutionError(
                f"Valid range for seconds is [0, 60] (inclusive), but the provided value is {total[row] / _MICROS}. To "
                "avoid this error, use `try_make_timestamp`, which returns NULL on error.",
                error_class="INVALID_FRACTION_OF_SECOND",
            )
        fields = f"{y[row]}-{mo[row]}-{d[row]} {h[row]}:{mi[row]}:{seconds[row]}"
        raise ExecutionError(f"Invalid date or time {fields}", error_class="DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION")
    valid = ~missing & ~failed
    # Whole days stay far inside int64 for |year| <= 999,999,999; the seconds may not.
    days = _days_from_civil(np.where(valid, y, 1970), np.where(valid, mo, 1), np.where(valid, d, 1))
    clock = np.where(valid, h * 3600 + mi * 60 + np.where(leap, 60, seconds), 0)
    local = days * _DAY + clock
    offsets = np.zeros(len(local), np.int64)
    if zones is not None:
        valid &= _zone_offsets(zones, local, valid, offsets, strict if strict_zone is None else strict_zone)
    instants = local - offsets
    # the microseconds must fit a long: Spark's Math.multiplyExact raises "long overflow"
    too_far = valid & ((instants > _INT64_MAX // _MICROS - 1) | (instants < _INT64_MIN // _MICROS + 1))
    if too_far.any():
        raise ExecutionError("long overflow: make_timestamp gives a timestamp beyond the microseconds a long holds")
    result = np.where(valid, instants * _MICROS + np.where(valid, fraction, 0), 0)
    kind = pa.timestamp("us") if zones is None else pa.timestamp("us", tz="UTC")
    return pa.array(result, kind, mask=~valid)


def _zone_offsets(
    zones: str | pa.Array | pa.ChunkedArray, local: np.ndarray, valid: np.ndarray, out: np.ndarray, strict: bool
) -> np.ndarray:
    """Write into ``out`` the offset java.time gives each valid local time in its zone; return
    which rows have a zone Spark knows (not NULL; an unknown one raises when ``strict``). One
    lookup per distinct zone."""
    if isinstance(zones, str):
        names, which = [zones], np.zeros(len(local), np.int64)
    else:
        column = zones.combine_chunks() if isinstance(zones, pa.ChunkedArray) else zones
        encoded = column.cast(pa.string()).dictionary_encode()
        names, which = encoded.dictionary.to_pylist(), np.asarray(encoded.indices.fill_null(-1), np.int64)
    for index, name in enumerate(names):
        rows = (which == index) & valid
        if not rows.any():
            continue
        try:
            region = resolve_time_zone(name)
        except Exception:  # noqa: BLE001 - CodecError: a zone Spark does not know
            if not strict:
                which[which == index] = -1
                continue
            raise ExecutionError(
                f"The timezone: {name} is invalid. The timezone must be either a region-based zone ID or a zone offset.",
                error_class="INVALID_TIMEZONE",
            ) from None
        out[rows] = local_utc_offsets(region, local[rows])
    return which >= 0  # type: ignore[no-any-return]
