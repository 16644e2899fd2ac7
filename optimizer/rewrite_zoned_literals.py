"""A timestamp literal with a zone, as the same instant written in the session time zone; a date
or timestamp literal Spark's parser cannot read, Spark's ``INVALID_TYPED_LITERAL``.

Spark reads ``TIMESTAMP '2024-01-02T03:04:05Z'`` as an instant and names the column after that
instant printed in the session time zone (``TIMESTAMP '2024-01-02 03:04:05'`` in UTC,
``TIMESTAMP '2024-01-01 19:04:05'`` in America/Los_Angeles). Written that way, the literal is
one vpush already reads (in the session zone) and names as Spark does, on either engine; an
instant in an overlap's later hour keeps its offset, and ``TIMESTAMP_NTZ`` drops its zone.
"""
from __future__ import annotations

import datetime as dt
import re
import zoneinfo

from sqlglot import exp

from vpush.optimizer.errors import OptimizeError, spark_string_value
from vpush.optimizer.dialect import TYPED_LITERAL

_ZONED = re.compile(
    r"\s*(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6}))?)?(?:\s*(\S.*?))?\s*\Z"
)
_OFFSET = re.compile(r"(?:UTC|GMT|UT)?([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?\Z", re.IGNORECASE)
_INSTANT_TYPES = (exp.DType.TIMESTAMP, exp.DType.TIMESTAMPTZ, exp.DType.TIMESTAMPLTZ)
# each typed literal's type: Spark's name for it, and the cast that reads its text
_DATETIME_LITERALS = {
    exp.DType.DATE: ("DATE", "date"),
    exp.DType.TIMESTAMP: ("TIMESTAMP", "timestamp"),
    exp.DType.TIMESTAMPTZ: ("TIMESTAMP", "timestamp"),
    exp.DType.TIMESTAMPLTZ: ("TIMESTAMP_LTZ", "timestamp"),
    exp.DType.TIMESTAMPNTZ: ("TIMESTAMP_NTZ", "timestamp_ntz"),
}
_NOT_A_DATETIME = 3
"""The status Spark's string cast (``parse_datetimes_native``) gives a text it cannot read."""


def _zone(text: str) -> dt.tzinfo | None:
    """The zone Spark reads after a timestamp's time (``Z``, ``+01:00``, ``UTC+1``, a region
    id), or None for text this function does not read."""
    if text.upper() in ("Z", "UTC", "GMT", "UT"):
        return dt.timezone.utc
    offset = _OFFSET.match(text)
    if offset is not None:
        sign, hours, minutes, seconds = offset.groups()
        delta = dt.timedelta(hours=int(hours), minutes=int(minutes or 0), seconds=int(seconds or 0))
        return dt.timezone(-delta if sign == "-" else delta) if delta < dt.timedelta(hours=18, seconds=1) else None
    try:
        return zoneinfo.ZoneInfo(text)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


def _in_session_zone(text: str, session: dt.tzinfo | None) -> str | None:
    """The zoned timestamp ``text`` as its instant's local time in ``session``, or for a None
    session its own local time (a ``TIMESTAMP_NTZ`` literal, whose zone Spark reads and drops).
    The later of an overlap's two times keeps its offset (``2024-11-03 01:30:00-08:00`` in
    America/Los_Angeles), which the local time alone would read as the earlier instant. A time
    without a zone in a gap of ``session`` is the later time java.time moves it to (Spark names
    ``TIMESTAMP'2024-03-10 02:30:00'`` in America/Los_Angeles ``TIMESTAMP '2024-03-10 03:30:00'``)."""
    match = _ZONED.match(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zone_text = match.groups()
    if zone_text is None and session is None:
        return None
    zone = session if zone_text is None else _zone(zone_text)
    if zone is None:
        return None
    if session is None:
        zone = None
    try:
        local = dt.datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0),
                            int((fraction or "").ljust(6, "0")), tzinfo=zone)
        shown = local if session is None else local.astimezone(dt.timezone.utc).astimezone(session)
        earlier = shown.replace(fold=0).astimezone(dt.timezone.utc) if session is not None else None
    except (ValueError, OverflowError):
        return None
    clock = shown.strftime("%H:%M:%S")
    micros = f"{shown.microsecond:06d}".rstrip("0")
    local_text = f"{shown.year:04d}-{shown.month:02d}-{shown.day:02d} {clock}" + (f".{micros}" if micros else "")
    if zone_text is None and shown.replace(tzinfo=None) == local.replace(tzinfo=None):
        return None  # not in a gap: the text stays as written
    if earlier is not None and earlier != shown.astimezone(dt.timezone.utc):
        offset = int(shown.utcoffset().total_seconds())  # type: ignore[union-attr]
        sign, minutes = "+-"[offset < 0], abs(offset) // 60
        return local_text + f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"
    return local_text


def rewrite_zoned_literals(expression: exp.Expr, time_zone: str) -> exp.Expr:
    """Write each zoned ``TIMESTAMP '...'`` literal as its instant in ``time_zone``.

    Example:
        >>> from vpush.optimizer.plan_query import parse_spark
        >>> tree = parse_spark("SELECT TIMESTAMP'2024-01-02T03:04:05+01:00'")
        >>> rewrite_zoned_literals(tree, "America/Los_Angeles").sql(dialect="spark")
        "SELECT CAST('2024-01-01 18:04:05' AS TIMESTAMP)"
    """
    session = _zone(time_zone)
    for node in expression.find_all(exp.Cast):
        literal = node.this
        if not node.meta.get(TYPED_LITERAL) or not isinstance(literal, exp.Literal) or not literal.is_string:
            continue
        _check_datetime_literal(node, literal.this)
        if not isinstance(node.to, exp.DataType):
            continue
        if node.to.this == exp.DType.TIMESTAMPNTZ:
            shown = _in_session_zone(literal.this, None)
        elif session is not None and node.to.this in _INSTANT_TYPES:
            shown = _in_session_zone(literal.this, session)
        else:
            continue
        if shown is not None:
            literal.set("this", shown)
    return expression


def _check_datetime_literal(node: exp.Cast, text: str) -> None:
    """Spark's parser reads a ``DATE``/``TIMESTAMP``/``TIMESTAMP_LTZ``/``TIMESTAMP_NTZ`` literal as
    its cast of the text does, and raises ``INVALID_TYPED_LITERAL`` for a text the cast cannot
    read, even where no row is read (DuckDB's cast raised ``CAST_INVALID_INPUT`` for each row)."""
    kind = _DATETIME_LITERALS.get(node.to.this) if isinstance(node.to, exp.DataType) else None
    if kind is None:
        return
    import pyarrow as pa

    from vpush.codec.native import NativeUnsupportedError, parse_datetimes_native

    try:
        status = parse_datetimes_native(pa.array([text], pa.string()), kind[1])[0]
    except NativeUnsupportedError:
        return  # no compiled kernel: the engine's cast raises for the rows
    if int(status[0]) == _NOT_A_DATETIME:
        raise OptimizeError(
            f'The value of the typed literal "{kind[0]}" is invalid: {spark_string_value(text)}.', error_class="INVALID_TYPED_LITERAL"
        )


