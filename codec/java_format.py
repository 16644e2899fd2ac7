"""Text as the JVM prints it under Spark 4.3 on Java 17: doubles, floats, dates and timestamps.

Spark's ``to_json(variant)`` and its casts to string print numbers with Java's
``Double.toString`` and ``Float.toString`` and dates and times with ``java.time`` formatters:

```
double, float   Java 17 FloatingDecimal digits: 1.0E10, 0.001, 1.0E-4, 9.999999999999999E22
date            ISO_LOCAL_DATE, any year: 2024-01-02, -0044-03-15, +12345-01-01
timestamp       date ' ' ISO_LOCAL_TIME offset: 2024-01-02 03:04:05.123456+00:00, 1799-12-31 16:07:02-07:52
time of day     ISO_LOCAL_TIME: 03:04:05, 03:04:05.1 (fraction without trailing zeros)
```
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
import struct
import zoneinfo
from collections.abc import Callable

import pyarrow as pa

from vpush.codec.errors import CodecError

_DOUBLE = struct.Struct("<d")

# -- Java's Double.toString and Float.toString, as JDK 17 prints them ----------------------------
#
# Java 17 still uses FloatingDecimal's digit generation, which is not always the shortest
# (JDK-4511638, fixed only in JDK 19): integers below 2**63 keep more digits, E-notation always
# gets a second digit, and the stopping test is symmetric around powers of two. This is the same
# digit loop, checked against Java 17 on a million values, with Java's int and long arithmetic
# (including its overflows) where Java uses them.

# Bits of 5**i, rounded up: Java's estimate of operand sizes, which picks int, long or big-integer
# arithmetic (and with it the overflow behaviour and one comparison).
_N5_BITS = (
    0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56, 59, 61,
)  # fmt: skip
# Digits of 2**i after the first: how many low digits of a large integer Java does not print.
_POW2_INSIGNIFICANT_DIGITS = (
    0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9,
    9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16,
    16, 17, 17, 17, 18, 18, 18, 19,
)  # fmt: skip
_SIGNIFICAND_BITS = 52
_SIGNIFICAND_MASK = (1 << _SIGNIFICAND_BITS) - 1


def _wrap32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x


def _wrap64(x: int) -> int:
    x &= 0xFFFFFFFFFFFFFFFF
    return x - (1 << 64) if x >> 63 else x


def _estimate_decimal_exponent(significand: int, binary_exponent: int) -> int:
    scaled = _DOUBLE.unpack(struct.pack("<Q", (1023 << 52) | (significand & _SIGNIFICAND_MASK)))[0]
    return math.floor((scaled - 1.5) * 0.289529654 + 0.176091259 + binary_exponent * 0.301029995663981)


def _java_digits(binary_exponent: int, significand: int, significant_bits: int) -> tuple[list[int], int]:
    """Decimal digits and exponent (value = 0.d1d2... * 10**exponent) of a positive finite
    number ``significand * 2**(binary_exponent - 52)``, where bit 52 of ``significand`` is set."""
    trailing = (significand & -significand).bit_length() - 1
    fraction_bits = _SIGNIFICAND_BITS + 1 - trailing
    tiny_bits = max(0, fraction_bits - binary_exponent - 1)
    if -21 <= binary_exponent <= 62 and tiny_bits == 0:
        # An integer below 2**63: printed from its long value, dropping the digits finer than
        # the double's precision (rounded half up), then trailing zeros.
        insignificant = 0
        if binary_exponent > significant_bits:
            p2 = binary_exponent - significant_bits - 1
            insignificant = _POW2_INSIGNIFICANT_DIGITS[p2] if 1 < p2 < len(_POW2_INSIGNIFICANT_DIGITS) else 0
        whole = (
            significand << (binary_exponent - 52)
            if binary_exponent >= 52
            else significand >> (52 - binary_exponent)
        )
        if insignificant:
            whole, residue = divmod(whole, 10**insignificant)
            if residue >= 10**insignificant // 2:
                whole += 1
        text = str(whole)
        return [int(d) for d in text.rstrip("0")], len(text) + insignificant
    exp10 = _estimate_decimal_exponent(significand, binary_exponent)
    b5 = max(0, -exp10)
    b2 = b5 + tiny_bits + binary_exponent
    s5 = max(0, exp10)
    s2 = s5 + tiny_bits
    m5 = b5
    m2 = b2 - significant_bits
    significand >>= trailing
    b2 -= fraction_bits - 1
    common = min(b2, s2)
    b2, s2, m2 = b2 - common, s2 - common, m2 - common
    if fraction_bits == 1:
        m2 -= 1  # a power of two: the next smaller double is half as far
    if m2 < 0:
        b2, s2, m2 = b2 - m2, s2 - m2, 0
    b_bits = fraction_bits + b2 + (_N5_BITS[b5] if b5 < len(_N5_BITS) else b5 * 3)
    ten_s_bits = s2 + 1 + (_N5_BITS[s5 + 1] if s5 + 1 < len(_N5_BITS) else (s5 + 1) * 3)
    digits: list[int] = []
    wrap: Callable[[int], int] | None = None
    if b_bits < 64 and ten_s_bits < 64:
        wrap = _wrap32 if b_bits < 32 and ten_s_bits < 32 else _wrap64
    b = significand * 5**b5 << b2
    s = 5**s5 << s2
    m = 5**m5 << m2
    tens = s * 10
    first = True
    low = high = False
    while first or not (low or high):
        q, b = divmod(b, s)
        if wrap is not None:
            b, m = wrap(10 * b), wrap(10 * m)
            if first or m > 0:
                low, high = b < m, wrap(b + m) > tens
            else:
                low = high = True  # Java's int or long m overflowed (not checked on the first digit)
        else:
            b, m = 10 * b, 10 * m
            low, high = b < m, b + m >= tens  # the big-integer path compares with >=
        if first and q == 0 and not high:
            exp10 -= 1  # the estimate was one too high: drop the leading zero
        else:
            digits.append(q)
        if first and (exp10 < -3 or exp10 >= 8):
            low = high = False  # E-notation: always a second digit
        first = False
    if high and (not low or _round_half(b, tens, digits, wrap)):
        i = len(digits) - 1
        while i > 0 and digits[i] == 9:
            digits[i] = 0
            i -= 1
        if digits[i] == 9:
            digits[0] = 1
            exp10 += 1
        else:
            digits[i] += 1
    return digits, exp10 + 1


def _round_half(b: int, tens: int, digits: list[int], wrap: Callable[[int], int] | None) -> bool:
    """Whether to round the last digit up when both stopping tests hold: by the remainder, ties
    to odd digits."""
    difference = wrap((b << 1) - tens) if wrap is not None else (b << 1) - tens
    return difference > 0 or (difference == 0 and digits[-1] & 1 == 1)


def _java_layout(negative: bool, digits: list[int], exp10: int) -> str:
    text = "".join(map(str, digits))
    sign = "-" if negative else ""
    if 0 < exp10 < 8:
        if len(text) <= exp10:
            return f"{sign}{text}{'0' * (exp10 - len(text))}.0"
        return f"{sign}{text[:exp10]}.{text[exp10:]}"
    if -3 < exp10 <= 0:
        return f"{sign}0.{'0' * -exp10}{text}"
    return f"{sign}{text[0]}.{text[1:] or '0'}E{exp10 - 1}"


def format_java_double(value: float) -> str:
    """Java 17's ``Double.toString(value)`` (what Spark prints for a double).

    Example:
        >>> [format_java_double(x) for x in (1.0, 1e7, 1e-3, 1e-4, -0.0, 2.0**62, float("nan"))]
        ['1.0', '1.0E7', '0.001', '1.0E-4', '-0.0', '4.6116860184273879E18', 'NaN']
    """
    bits = struct.unpack("<Q", _DOUBLE.pack(value))[0]
    negative = bool(bits >> 63)
    exponent = (bits >> 52) & 0x7FF
    significand = bits & _SIGNIFICAND_MASK
    if exponent == 0x7FF:
        return "NaN" if significand else ("-Infinity" if negative else "Infinity")
    if exponent == 0:
        if significand == 0:
            return "-0.0" if negative else "0.0"
        shift = 53 - significand.bit_length()  # normalize a subnormal
        significand <<= shift
        exponent = 1 - shift
        significant_bits = 53 - shift
    else:
        significand |= 1 << 52
        significant_bits = 53
    digits, exp10 = _java_digits(exponent - 1023, significand, significant_bits)
    return _java_layout(negative, digits, exp10)


def format_java_float(value: float) -> str:
    """Java 17's ``Float.toString`` of ``value`` rounded to a 32-bit float.

    Example:
        >>> [format_java_float(x) for x in (1.5, 1e10, 0.1, 3.4028235e38)]
        ['1.5', '1.0E10', '0.1', '3.4028235E38']
    """
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    negative = bool(bits >> 31)
    exponent = (bits >> 23) & 0xFF
    significand = bits & 0x7FFFFF
    if exponent == 0xFF:
        return "NaN" if significand else ("-Infinity" if negative else "Infinity")
    if exponent == 0:
        if significand == 0:
            return "-0.0" if negative else "0.0"
        shift = 24 - significand.bit_length()
        significand <<= shift
        exponent = 1 - shift
        significant_bits = 24 - shift
    else:
        significand |= 1 << 23
        significant_bits = 24
    # Java widens the float's bits to a double's position and keeps the float's precision.
    digits, exp10 = _java_digits(exponent - 127, significand << 29, significant_bits)
    return _java_layout(negative, digits, exp10)


# -- dates and times (java.time) -----------------------------------------------------------------

_SECONDS_PER_DAY = 86_400
_SECONDS_PER_400_YEARS = 146_097 * _SECONDS_PER_DAY
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
# Python's datetime covers years 1 to 9999; one day of margin keeps local times inside it.
_ZONEINFO_MIN_SECONDS = int((dt.datetime(1, 1, 2, tzinfo=dt.timezone.utc) - _EPOCH_UTC).total_seconds())
_ZONEINFO_MAX_SECONDS = int((dt.datetime(9999, 12, 30, tzinfo=dt.timezone.utc) - _EPOCH_UTC).total_seconds())
_OFFSET_ID = re.compile(r"([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?")
# java.time.ZoneId.SHORT_IDS, which Spark passes when it resolves a session time zone.
JAVA_SHORT_IDS = {
    "ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
    "ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo", "BST": "Asia/Dhaka",
    "CAT": "Africa/Harare", "CNT": "America/St_Johns", "CST": "America/Chicago", "CTT": "Asia/Shanghai",
    "EAT": "Africa/Addis_Ababa", "ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis",
    "IST": "Asia/Kolkata", "JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
    "NST": "Pacific/Auckland", "PLT": "Asia/Karachi", "PNT": "America/Phoenix", "PRT": "America/Puerto_Rico",
    "PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal", "VST": "Asia/Ho_Chi_Minh",
    "EST": "-05:00", "MST": "-07:00", "HST": "-10:00",
}  # fmt: skip


@functools.lru_cache(maxsize=64)
def resolve_time_zone(name: str) -> int | zoneinfo.ZoneInfo:
    """A session time zone as Spark resolves it: a fixed offset in seconds, or a region's rules.

    Accepts region ids (``America/Los_Angeles``), offsets (``+08:00``, ``-8``, ``UTC+05:30``),
    ``UTC``/``GMT``/``Z`` and Java's short ids (``PST``, ``EST``).

    Raises:
        CodecError: an unknown zone.

    Example:
        >>> resolve_time_zone("+05:30"), resolve_time_zone("EST"), str(resolve_time_zone("PST"))
        (19800, -18000, 'America/Los_Angeles')
    """
    name = JAVA_SHORT_IDS.get(name, name)
    if name in ("Z", "UTC", "GMT", "UT"):
        return 0
    for prefix in ("UTC", "GMT", "UT", ""):
        if name.startswith(prefix):
            match = _OFFSET_ID.fullmatch(name, len(prefix))
            if match is not None:
                sign, hours, minutes, seconds = match.groups()
                total = int(hours) * 3600 + int(minutes or 0) * 60 + int(seconds or 0)
                if total > 18 * 3600:
                    break
                return -total if sign == "-" else total
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise CodecError(f"unknown time zone {name!r}") from None


def offset_id(seconds: int) -> str:
    """java.time's id of a fixed offset (``ZoneOffset.getId``): ``+05:30``, ``-08:00``,
    ``+05:21:10``; ``UTC`` for none.

    Example:
        >>> offset_id(19800), offset_id(-28800), offset_id(0)
        ('+05:30', '-08:00', 'UTC')
    """
    if seconds == 0:
        return "UTC"
    size = abs(seconds)
    text = f"{'-' if seconds < 0 else '+'}{size // 3600:02d}:{size // 60 % 60:02d}"
    return text + (f":{size % 60:02d}" if size % 60 else "")


def duckdb_time_zone(name: str) -> str:
    """The name DuckDB (ICU) knows a Spark session time zone by: a region as it is, a fixed
    offset as ``GMT+05:30`` (DuckDB refuses ``+05:30`` and reads ``UTC+05:30`` as ``Etc/GMT-5``).

    Example:
        >>> duckdb_time_zone("+05:30"), duckdb_time_zone("PST"), duckdb_time_zone("Europe/Paris")
        ('GMT+05:30', 'America/Los_Angeles', 'Europe/Paris')
    """
    try:
        zone = resolve_time_zone(name)
    except CodecError:  # DuckDB's own spellings (america/new_york): as they are
        return name
    if isinstance(zone, int):
        text = offset_id(zone)
        return text if zone == 0 else "GMT" + text
    return name if name == zone.key else zone.key


def zone_offset(zone: int | zoneinfo.ZoneInfo, epoch_seconds: int) -> int:
    """The UTC offset, in seconds, of a zone from :func:`resolve_time_zone` at an instant (seconds
    since the epoch), as java.time gives it for any year."""
    if isinstance(zone, int):
        return zone
    # Beyond Python's years, java.time keeps a zone's first offset before its first transition
    # and repeats its yearly rules after the last; those rules repeat every 400 years, as the
    # Gregorian calendar does.
    seconds = max(epoch_seconds, _ZONEINFO_MIN_SECONDS)
    if seconds > _ZONEINFO_MAX_SECONDS:
        seconds -= -(-(seconds - _ZONEINFO_MAX_SECONDS) // _SECONDS_PER_400_YEARS) * _SECONDS_PER_400_YEARS
    local = (_EPOCH_UTC + dt.timedelta(seconds=seconds)).astimezone(zone)
    offset = local.utcoffset()
    return 0 if offset is None else int(offset.total_seconds())


def format_date(days: int) -> str:
    """The ISO date of a day number (days since 1970-01-01), for any year, as java.time prints
    it: four digits at least, '+' before years past 9999, '-' before years before 0.

    Example:
        >>> format_date(19723), format_date(-735525), format_date(3789391)
        ('2024-01-01', '-0044-03-15', '+12345-01-01')
    """
    shifted = days + 719_468  # days since 0000-03-01
    era = shifted // 146_097
    day_of_era = shifted - era * 146_097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + 3 if month_index < 10 else month_index - 9
    year = year_of_era + era * 400 + (1 if month <= 2 else 0)
    if year > 9999:
        year_text = f"+{year}"
    elif year < 0:
        year_text = f"-{-year:04d}"
    else:
        year_text = f"{year:04d}"
    return f"{year_text}-{month:02d}-{day:02d}"


def format_time_of_day(seconds: int, nanos: int) -> str:
    """``HH:mm:ss`` then, when not zero, the fraction without trailing zeros (ISO_LOCAL_TIME).

    Example:
        >>> format_time_of_day(3723, 0), format_time_of_day(3723, 120_000_000)
        ('01:02:03', '01:02:03.12')
    """
    text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    if nanos:
        text += "." + f"{nanos:09d}".rstrip("0")
    return text


def _local_date_time(epoch_seconds: int, nanos: int) -> str:
    days, seconds = divmod(epoch_seconds, _SECONDS_PER_DAY)
    return f"{format_date(days)} {format_time_of_day(seconds, nanos)}"


def _offset_text(offset: int) -> str:
    """java.time's ``+HH:MM`` offset pattern: seconds of an offset are not printed."""
    if offset == 0:
        return "+00:00"
    sign = "-" if offset < 0 else "+"
    offset = abs(offset)
    return f"{sign}{offset // 3600:02d}:{offset // 60 % 60:02d}"


def format_timestamp(raw: int, units_per_second: int, zone: int | zoneinfo.ZoneInfo | None) -> str:
    """A timestamp as Spark's variant JSON shows it: local date and time in ``zone`` and the
    offset, or, with ``zone`` None (timestamp_ntz), the date and time at UTC without offset.

    Args:
        raw: the count of units since 1970-01-01 00:00:00 UTC.
        units_per_second: 1_000_000 for microseconds, 1_000_000_000 for nanoseconds.
        zone: from :func:`resolve_time_zone`, or None.

    Example:
        >>> format_timestamp(1704164645123456, 1_000_000, resolve_time_zone("America/Los_Angeles"))
        '2024-01-01 19:04:05.123456-08:00'
        >>> format_timestamp(1_500_000_000, 1_000_000_000, None)
        '1970-01-01 00:00:01.5'
    """
    seconds, fraction = divmod(raw, units_per_second)
    nanos = fraction * (1_000_000_000 // units_per_second)
    if zone is None:
        return _local_date_time(seconds, nanos)
    offset = zone_offset(zone, seconds)
    return _local_date_time(seconds + offset, nanos) + _offset_text(offset)


# -- bytes as a Java String ------------------------------------------------------------------------
def java_string_of_bytes(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Binary or string values as the text Java's ``new String(bytes, UTF_8)`` makes of them:
    each malformed UTF-8 sequence becomes U+FFFD.

    A Spark string may hold any bytes (a binary cast to a string keeps them), which PySpark's
    rows decode this way; an Arrow or DuckDB string must be valid UTF-8. A valid array (nearly
    every one) is only checked and viewed as strings; an invalid one is decoded value by value.

    Example:
        >>> java_string_of_bytes(pa.array([b"AB", b"\\x80\\xffA", None])).to_pylist()
        ['AB', '\\ufffd\\ufffdA', None]
    """
    large = pa.types.is_large_binary(values.type) or pa.types.is_large_string(values.type)
    if isinstance(values, pa.ChunkedArray):
        chunks = [java_string_of_bytes(chunk) for chunk in values.chunks]
        return pa.chunked_array(chunks, pa.large_string() if large else pa.string())
    raw = values.view(pa.large_binary() if large else pa.binary())
    target = pa.large_string() if large else pa.string()
    try:
        return raw.cast(target)  # checks that every value is UTF-8
    except pa.ArrowInvalid:
        return pa.array([None if b is None else b.decode("utf-8", "replace") for b in raw.to_pylist()], target)
