"""Spark 4.3's ``variant_get`` cast of one extracted value to a scalar, array, map or struct type,
in Python.

This follows ``VariantGet.cast`` (``variantExpressions.scala``) step by step:

```
variant null                      NULL, whatever the target
object, array                     to string only (its JSON in the session time zone), else a failed cast
uuid                              to string only, else a failed cast
time, nanosecond timestamps       UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT, even for try_variant_get (and
                                  when Spark writes a container holding one as JSON)
any other scalar                  a literal of its Spark type (every integer width is a BIGINT,
                                  a decimal loses its trailing zeros), then
  BIGINT or DECIMAL to TIMESTAMP  seconds times 10^6, exact: an overflow fails
  otherwise                       Cast.canAnsiCast(type, target) and Cast(..., EvalMode.TRY);
                                  a NULL result is a failed cast
```

Arrays, maps and structs follow the same function: an array casts each element to the element
type, an object casts to ``map<string, T>`` (its fields in stored order) or to a struct (each
field looked up by its exact name as ``getFieldByKey`` does, NULL where absent); any other value
is a failed cast. A ``variant`` inside keeps the value as it is, a variant null included. A failed
cast inside fails there: ``variant_get`` raises naming the inner value and type, and
``try_variant_get`` gives NULL in that place only.

A failed cast is ``INVALID_VARIANT_CAST`` for ``variant_get`` and NULL for ``try_variant_get``.
A TRY cast runs the ANSI cast and turns its errors into NULL, except that strings cast to
``float``, ``double``, ``date`` and the timestamps take the legacy (non-ANSI) path
(``Cast.canUseLegacyCastForTryCast``). Hence the string rules below mix three parsers: Spark's
own for integers, booleans, dates and timestamps (``UTF8String``, ``SparkDateTimeUtils``), and
Java's ``BigDecimal(String)`` and ``Double.parseDouble`` for decimals and floating point.

Two results differ from Spark's on purpose: a binary holding invalid UTF-8 cast to a string has
U+FFFD in place of the bad bytes (Spark keeps the bytes, which no Arrow string may hold), and
:func:`cast_variant` cannot return a date or timestamp outside Python's years 1 to 9999 (it
raises; :func:`variant_get_column` returns them). ``tests/exec/test_variant_cast.py`` checks the
rest against PySpark, cell by cell.
"""
from __future__ import annotations

import datetime as dt
import decimal
import math
import re
import uuid
import zoneinfo
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from vpush.codec.decoder import read_bytes, read_int
from vpush.codec.errors import CodecError, MalformedVariantError, VpushError
from vpush.codec.header import (
    MAX_DECIMAL4_PRECISION,
    MAX_DECIMAL8_PRECISION,
    MAX_DECIMAL16_PRECISION,
    BasicType,
    PrimitiveType,
)
from vpush.codec.java_format import (
    JAVA_SHORT_IDS,
    format_date,
    format_java_double,
    format_java_float,
    format_time_of_day,
    resolve_time_zone,
    zone_offset,
)
from vpush.codec.json import to_json
from vpush.codec.metadata import VariantMetadata
from vpush.codec.native import (
    EXPLODE_ARRAY,
    EXPLODE_NULL,
    EXPLODE_OBJECT,
    container_kinds_native,
    explode_native,
    extract_native,
    variant_rebuild_native,
)
from vpush.codec.path import VariantPath, extract, extract_column, get_field
from vpush.codec.value import Variant
from vpush.exec.errors import ExecutionError
from vpush.optimizer.plan import VARIANT_ARROW_TYPE
from vpush.optimizer.variant_types import (
    VARIANT,
    ArrayType,
    AtomicType,
    DecimalType,
    MapType,
    SparkType,
    StringType,
    StructType,
)

__all__ = ["INVALID_VARIANT_CAST", "UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT", "arrow_type", "cast_variant", "variant_get_column"]

INVALID_VARIANT_CAST = "INVALID_VARIANT_CAST"
CAST_INVALID_INPUT = "CAST_INVALID_INPUT"
UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT = "UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT"

_Zone = int | zoneinfo.ZoneInfo
_INT_RANGES = {name: (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
               for name, bits in (("tinyint", 8), ("smallint", 16), ("int", 32), ("bigint", 64))}  # fmt: skip
_LONG_MIN, _LONG_MAX = _INT_RANGES["bigint"]
_INT_MIN, _INT_MAX = _INT_RANGES["int"]
_MICROS = 1_000_000
_SECONDS_PER_DAY = 86_400
_SECONDS_PER_400_YEARS = 146_097 * _SECONDS_PER_DAY
_EPOCH_DATE = dt.date(1970, 1, 1)
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_EPOCH_NAIVE = dt.datetime(1970, 1, 1)
# Local times that Python's zoneinfo can look up, with a day of margin at both ends.
_MIN_LOCAL_SECONDS = int((dt.datetime(1, 1, 2) - _EPOCH_NAIVE).total_seconds())
_MAX_LOCAL_SECONDS = int((dt.datetime(9999, 12, 30) - _EPOCH_NAIVE).total_seconds())
_WIDE = decimal.Context(prec=1000, rounding=decimal.ROUND_HALF_UP, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
_MAX_DECIMAL_DIGITS = {
    PrimitiveType.DECIMAL4: MAX_DECIMAL4_PRECISION,
    PrimitiveType.DECIMAL8: MAX_DECIMAL8_PRECISION,
    PrimitiveType.DECIMAL16: MAX_DECIMAL16_PRECISION,
}
_INT_WIDTHS = {PrimitiveType.INT8: 1, PrimitiveType.INT16: 2, PrimitiveType.INT32: 4, PrimitiveType.INT64: 8}
# Spark's VariantUtil.getType knows neither a time of day nor nanosecond timestamps.
_LAST_PRIMITIVE = max(PrimitiveType)
_UNKNOWN_TO_SPARK = frozenset({PrimitiveType.TIME, PrimitiveType.TIMESTAMP_NANOS, PrimitiveType.TIMESTAMP_NTZ_NANOS})
# UTF8String.isWhitespaceOrISOControl on single bytes: only ASCII ever matches.
_TRIM_ALL = "".join(chr(c) for c in range(0x21)) + "\x7f"
# java.lang.String.trim.
_JAVA_TRIM = "".join(chr(c) for c in range(0x21))
_TRUE_WORDS = frozenset({"t", "true", "y", "yes", "1"})
_FALSE_WORDS = frozenset({"f", "false", "n", "no", "0"})
_LONG_TEXT = re.compile(r"[+-]?[0-9]+\Z")
# java.math.BigDecimal(String): any Unicode decimal digits (Character.digit), as Python's \d.
_BIG_DECIMAL_TEXT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")
# Double.parseDouble (FloatingDecimal.readJavaFormatString): ASCII digits only.
_JAVA_DOUBLE_TEXT = re.compile(
    r"(?P<sign>[+-]?)(?:(?P<special>NaN|Infinity)"
    r"|(?P<dec>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?"
    r"|0[xX](?P<hex>[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP](?P<exp>[+-]?[0-9]+)[fFdD]?)\Z"
)
# Cast.processFloatingPointSpecialLiterals, after trim and lower case.
_SPECIAL_FLOATS = {
    "inf": math.inf, "+inf": math.inf, "infinity": math.inf, "+infinity": math.inf,
    "-inf": -math.inf, "-infinity": -math.inf, "nan": math.nan,
}  # fmt: skip
# SparkDateTimeUtils.getZoneId rewrites these two pre-3.0 offset spellings first.
_SINGLE_HOUR_OFFSET = re.compile(r"([+-])([0-9]):")
_SINGLE_MINUTE_OFFSET = re.compile(r"([+-])([0-9][0-9]):([0-9])$")
_REGION_ID = re.compile(r"[A-Za-z][A-Za-z0-9~/._+-]+\Z")
# (significant bits, least exponent, greatest exponent) of q * 2**e for a float and a double.
_FLOAT32 = (24, -149, 104)
_FLOAT64 = (53, -1074, 971)
_ARROW_TYPES = {
    "boolean": pa.bool_(), "tinyint": pa.int8(), "smallint": pa.int16(), "int": pa.int32(), "bigint": pa.int64(),
    "float": pa.float32(), "double": pa.float64(), "binary": pa.binary(), "date": pa.date32(),
    "timestamp": pa.timestamp("us", tz="UTC"), "timestamp_ntz": pa.timestamp("us"),
}  # fmt: skip


class _Failed(Exception):
    """The TRY cast gives NULL: the value does not cast."""


def _is_nested(target: SparkType) -> bool:
    return isinstance(target, (ArrayType, MapType, StructType))


def _nested_arrow_type(target: SparkType) -> pa.DataType:
    """The Arrow type of a cast inside an array, map or struct, where ``variant`` may stand too."""
    if target == VARIANT:
        return VARIANT_ARROW_TYPE
    if isinstance(target, ArrayType):
        return pa.list_(_nested_arrow_type(target.element))
    if isinstance(target, MapType):
        if not isinstance(target.key, StringType):
            raise ExecutionError(f"variant_get to {target.to_spark()}: a map's key must be a string")
        return pa.map_(pa.string(), _nested_arrow_type(target.value))
    if isinstance(target, StructType):
        names = [f.name for f in target.fields]
        if len(set(names)) != len(names):
            raise ExecutionError(f"variant_get to {target.to_spark()}: repeated field names are not supported yet")
        return pa.struct([pa.field(f.name, _nested_arrow_type(f.type)) for f in target.fields])
    return arrow_type(target)


def arrow_type(target: SparkType) -> pa.DataType:
    """The Arrow type of a cast's results.

    Raises:
        ExecutionError: a target that is not a scalar type vpush casts to.

    Example:
        >>> from vpush.optimizer.variant_types import parse_variant_type
        >>> arrow_type(parse_variant_type("decimal(5,2)")), arrow_type(parse_variant_type("timestamp"))
        (Decimal128Type(decimal128(5, 2)), TimestampType(timestamp[us, tz=UTC]))
    """
    if isinstance(target, DecimalType):
        return pa.decimal128(target.precision, target.scale)
    if isinstance(target, StringType):
        return pa.string()
    if _is_nested(target):
        return _nested_arrow_type(target)
    found = _ARROW_TYPES.get(target.name) if isinstance(target, AtomicType) else None
    if found is None:
        raise ExecutionError(f"variant_get to {target.to_spark()} is not supported yet")
    return found


# -- the literal Spark builds from the variant ---------------------------------------------------


def _literal(v: Variant) -> tuple[str, Any]:
    """(Spark type, value) of a variant: ``null``, ``container``, ``uuid``, ``boolean``, ``long``,
    ``double``, ``float``, ``decimal``, ``string``, ``binary``, ``date`` (days), ``timestamp`` and
    ``timestamp_ntz`` (microseconds)."""
    basic = v.basic_type
    if basic == BasicType.SHORT_STRING:
        return "string", v.scalar()
    if basic != BasicType.PRIMITIVE:
        return "container", None
    ptype = _known_primitive(v)
    v.size()  # the whole payload lies inside the buffer before any read
    p = v.pos + 1
    if ptype == PrimitiveType.NULL:
        return "null", None
    if ptype in (PrimitiveType.TRUE, PrimitiveType.FALSE):
        return "boolean", ptype == PrimitiveType.TRUE
    if ptype in _INT_WIDTHS:
        return "long", read_int(v.buf, p, _INT_WIDTHS[ptype], ptype.name.lower())
    if ptype == PrimitiveType.DATE:
        return "date", read_int(v.buf, p, 4, "date")
    if ptype in (PrimitiveType.TIMESTAMP, PrimitiveType.TIMESTAMP_NTZ):
        return ptype.name.lower(), read_int(v.buf, p, 8, "timestamp")
    if ptype == PrimitiveType.UUID:
        return "uuid", str(uuid.UUID(bytes=read_bytes(v.buf, p, 16, "uuid")))
    scalar = v.scalar()
    if ptype in _MAX_DECIMAL_DIGITS:
        if scalar != 0 and len(scalar.as_tuple().digits) > _MAX_DECIMAL_DIGITS[ptype]:
            # Spark's VariantUtil.checkDecimal: MALFORMED_VARIANT.
            raise MalformedVariantError(f"{ptype.name.lower()} {scalar} is over its precision", offset=v.pos)
        return "decimal", scalar
    if ptype in (PrimitiveType.DOUBLE, PrimitiveType.FLOAT):
        return ptype.name.lower(), float(scalar)
    return ("binary" if ptype == PrimitiveType.BINARY else "string"), scalar


def _known_primitive(v: Variant) -> PrimitiveType:
    """The primitive type of ``v`` if Spark's ``VariantUtil.getType`` knows it."""
    type_id = v.buf[v.pos] >> 2
    if type_id in _UNKNOWN_TO_SPARK or type_id > _LAST_PRIMITIVE:
        raise ExecutionError(
            f"Unknown primitive type with id {type_id} was found in a variant value",
            error_class=UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT,
            offset=v.pos,
        )
    return PrimitiveType(type_id)


def _spark_json(v: Variant, time_zone: str) -> str:
    """``Variant.toJson``: vpush's ``to_json``, but failing where Spark cannot read a value."""
    todo = [v]
    while todo:
        node = todo.pop()
        basic = node.basic_type
        if basic == BasicType.OBJECT:
            todo.extend(child for _, child in node.items())
        elif basic == BasicType.ARRAY:
            todo.extend(node.elements())
        elif basic == BasicType.PRIMITIVE:
            _known_primitive(node)
    return to_json(v.metadata, v.value_bytes(), time_zone=time_zone)


# -- numbers -------------------------------------------------------------------------------------


def _nearest_binary(exact: Fraction, bits: int, least: int, greatest: int) -> float:
    """``exact`` rounded half to even to a binary float of ``bits`` significant bits (Java's
    correctly rounded ``(float)``, ``BigDecimal.floatValue`` and ``Float.parseFloat``)."""
    if exact == 0:
        return 0.0
    n, d = abs(exact.numerator), exact.denominator
    e = max(n.bit_length() - d.bit_length() - bits, least)
    while True:
        num, den = (n, d << e) if e >= 0 else (n << -e, d)
        q, r = divmod(num, den)
        if q < 1 << bits:
            break
        e += 1
    if 2 * r > den or (2 * r == den and q & 1):
        q += 1
    if q == 1 << bits:
        q, e = q >> 1, e + 1
    result = math.inf if e > greatest else math.ldexp(q, e)
    return -result if exact < 0 else result


def _to_float32(value: float | decimal.Decimal) -> float:
    if isinstance(value, float) and not math.isfinite(value):
        return value
    if value == 0:
        return math.copysign(0.0, value) if isinstance(value, float) else 0.0
    return _nearest_binary(Fraction(value), *_FLOAT32)


def _fractional_to_integral(x: float, name: str) -> int:
    """Spark's DoubleExactNumeric: in range after truncation, else a failed cast; a ``bigint``
    passes up to 2**63 (Long.MAX_VALUE as a double) and saturates, as Java's ``(long) d``."""
    low, high = _INT_RANGES["bigint" if name == "bigint" else "int"]
    if not math.isfinite(x) or math.floor(x) > float(high) or math.ceil(x) < float(low):
        raise _Failed
    result = max(min(int(x), _LONG_MAX), _LONG_MIN)
    low, high = _INT_RANGES[name]
    if not low <= result <= high:
        raise _Failed
    return result


def _fit_decimal(exact: decimal.Decimal, target: DecimalType) -> decimal.Decimal:
    """``Decimal.changePrecision``: round half up to the scale; more digits than the precision
    fail."""
    if exact.is_zero():
        exact = abs(exact)
    elif exact.adjusted() >= target.precision - target.scale:
        raise _Failed  # at least 10**(p-s) before rounding: overflows
    rounded = exact.quantize(decimal.Decimal(1).scaleb(-target.scale), context=_WIDE)
    if rounded.adjusted() >= target.precision - target.scale and not rounded.is_zero():
        raise _Failed
    return rounded


def _java_decimal(text: str) -> decimal.Decimal:
    """``new java.math.BigDecimal(text.trim())`` with Spark's limit of 38 integral digits
    (``Decimal.fromStringANSI``)."""
    text = text.strip(_JAVA_TRIM)
    if not _BIG_DECIMAL_TEXT.match(text):
        raise _Failed
    exact = decimal.Decimal(text)
    exponent = exact.as_tuple().exponent
    if not isinstance(exponent, int) or not -(2**31) < exponent <= 2**31 or exact.adjusted() + 1 > 38:
        raise _Failed  # BigDecimal's scale is an int; more integral digits than any decimal type
    return exact


def _java_double(text: str, bits: tuple[int, int, int]) -> float:
    """Java's ``Double.parseDouble`` / ``Float.parseFloat``, then Spark's special words."""
    trimmed = text.strip(_JAVA_TRIM)
    found = _JAVA_DOUBLE_TEXT.match(trimmed)
    if found is None:
        special = _SPECIAL_FLOATS.get(trimmed.lower())
        if special is None:
            raise _Failed
        return special
    sign = -1 if found.group("sign") == "-" else 1
    if found.group("special") is not None:
        return sign * (math.nan if found.group("special") == "NaN" else math.inf)
    if found.group("dec") is not None:
        exact = decimal.Decimal(found.group("dec"))
        if exact.is_zero() or exact.adjusted() < -400:
            return math.copysign(0.0, sign)
        if exact.adjusted() > 400:
            return sign * math.inf
        return sign * _nearest_binary(Fraction(exact), *bits)
    digits = found.group("hex")
    whole, _, fraction = digits.partition(".")
    mantissa = int(whole + fraction or "0", 16)
    exponent = int(found.group("exp")) - 4 * len(fraction)
    if mantissa == 0 or exponent < -(2**12) - 4 * len(digits):
        return math.copysign(0.0, sign)
    if exponent > 2**12:
        return sign * math.inf
    return sign * _nearest_binary(Fraction(mantissa) * Fraction(2) ** exponent, *bits)


# -- strings to dates and timestamps (SparkDateTimeUtils) ----------------------------------------


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date, any year."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


def _checked_days(year: int, month: int, day: int) -> int:
    """``LocalDate.of`` and ``localDateToDays``: invalid fields or a day beyond an int fail."""
    if not 1 <= month <= 12:
        raise _Failed
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    length = 29 if month == 2 and leap else (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    days = _days_from_civil(year, month, day)
    if not 1 <= day <= length or not _INT_MIN <= days <= _INT_MAX:
        raise _Failed
    return days


def _trimmed(text: str) -> bytes:
    return text.encode("utf-8").strip(_TRIM_ALL.encode("ascii"))


def _string_to_date(text: str) -> int:
    """``stringToDate``: ``[+-]yyyy*``, ``[+-]yyyy*-[m]m``, ``[+-]yyyy*-[m]m-[d]d`` and the
    last followed by anything after a space or a ``T``."""
    data = _trimmed(text)
    if not data:
        raise _Failed
    segments, sign, i, value, digits, j = [1, 1, 1], 1, 0, 0, 0, 0
    if data[0] in b"+-":
        sign, j = (-1 if data[0] == ord("-") else 1), 1
    while j < len(data) and i < 3 and data[j] not in b" T":
        if i < 2 and data[j] == ord("-"):
            if not _date_digits_ok(i, digits):
                raise _Failed
            segments[i], value, digits, i = value, 0, 0, i + 1
        elif 0x30 <= data[j] <= 0x39:
            value, digits = value * 10 + data[j] - 0x30, digits + 1
        else:
            raise _Failed
        j += 1
    if not _date_digits_ok(i, digits) or (i < 2 and j < len(data)):
        raise _Failed
    segments[i] = value
    return _checked_days(sign * segments[0], segments[1], segments[2])


def _date_digits_ok(segment: int, digits: int) -> bool:
    return 4 <= digits <= 7 if segment == 0 else 0 < digits <= 2


def _timestamp_digits_ok(segment: int, digits: int) -> bool:
    if segment == 0:
        return 4 <= digits <= 6
    return segment == 6 or (segment == 7 and digits <= 2) or (segment != 7 and 0 < digits <= 2)


def _parse_timestamp_text(text: str) -> tuple[list[int], _Zone | None, bool]:
    """``parseTimestampString``, byte by byte: (year, month, day, hour, minute, second, micros),
    the zone written in the text, and whether it is a time only. Fraction digits past the sixth
    are dropped, as ``instantToMicros`` floors them."""
    raw = text.encode("utf-8")
    start = len(raw) - len(raw.lstrip(_TRIM_ALL.encode("ascii")))
    data = _trimmed(text)
    if not data:
        raise _Failed
    segments = [1, 1, 1, 0, 0, 0, 0, 0]
    i = value = digits = digits_fraction = 0
    zone_text: str | None = None
    just_time = False
    year_sign: int | None = None
    j = 0
    if data[0] in b"+-":
        year_sign, j = (-1 if data[0] == ord("-") else 1), 1

    def close(segment: int) -> None:
        nonlocal value, digits
        if not _timestamp_digits_ok(segment, digits):
            raise _Failed
        segments[segment], value, digits = value, 0, 0

    while j < len(data):
        b = data[j]
        if 0x30 <= b <= 0x39:
            digits_fraction += i == 6
            if i != 6 or digits < 6:
                value = value * 10 + b - 0x30
            digits += 1
        elif start + j == 0 and b == ord("T"):
            just_time, i = True, i + 3
        elif i < 2:
            if b == ord("-"):
                close(i)
                i += 1
            elif i == 0 and b == ord(":") and year_sign is None:
                just_time = True
                close(3)
                i = 4
            else:
                raise _Failed
        elif i == 2 and b in b" T" or i in (3, 4) and b == ord(":") or i == 5 and b == ord("."):
            close(i)
            i += 1
        elif i in (5, 6):
            close(i)
            i = 7  # the rest is the zone; a missing fraction stays 0
            zone_text = data[j:].decode("utf-8")
            break
        else:
            raise _Failed
        j += 1
    close(i)
    segments[6] *= 10 ** max(0, 6 - digits_fraction)
    segments[0] *= year_sign or 1
    zone = _zone_of(zone_text.strip(_JAVA_TRIM)) if zone_text is not None else None
    return segments, zone, just_time


def _zone_of(text: str) -> _Zone:
    """``getZoneId`` in a timestamp string: ``ZoneId.of(text, SHORT_IDS)`` after Spark's two
    pre-3.0 offset rewrites."""
    text = _SINGLE_HOUR_OFFSET.sub(r"\g<1>0\g<2>:", text, count=1)
    text = _SINGLE_MINUTE_OFFSET.sub(r"\g<1>\g<2>:0\g<3>", text, count=1)
    text = JAVA_SHORT_IDS.get(text, text)
    if len(text) <= 1 or text[0] in "+-":
        return _offset_of(text)
    for prefix in ("UTC", "GMT", "UT"):
        if text.startswith(prefix):
            rest = text[len(prefix) :]
            if not rest:
                return 0
            if rest[0] in "+-":
                return _offset_of(rest)
            break
    if not _REGION_ID.match(text):
        raise _Failed
    try:
        return zoneinfo.ZoneInfo(text)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise _Failed from None


def _offset_of(text: str) -> int:
    """``ZoneOffset.of``: ``Z``, ``+h``, ``+hh``, ``+hhmm``, ``+hh:mm``, ``+hhmmss``, ``+hh:mm:ss``."""
    if text == "Z":
        return 0
    if len(text) == 2:
        text = text[0] + "0" + text[1]
    layouts = {3: (1, None, None), 5: (1, 3, None), 6: (1, 4, None), 7: (1, 3, 5), 9: (1, 4, 7)}
    layout = layouts.get(len(text))
    if layout is None or text[0] not in "+-":
        raise _Failed
    parts = []
    for pos in layout:
        if pos is None:
            parts.append(0)
            continue
        pair = text[pos : pos + 2]
        if (len(text) in (6, 9) and pos > 1 and text[pos - 1] != ":") or not re.fullmatch("[0-9][0-9]", pair):
            raise _Failed
        parts.append(int(pair))
    hours, minutes, seconds = parts
    if hours > 18 or minutes > 59 or seconds > 59 or (hours == 18 and minutes + seconds > 0):
        raise _Failed
    total = hours * 3600 + minutes * 60 + seconds
    return -total if text[0] == "-" else total


def _local_offset(zone: _Zone, local_seconds: int) -> int:
    """The offset java.time gives a wall-clock time: the earlier offset in an overlap and the
    offset before a gap (``ZonedDateTime.of``), which is zoneinfo's ``fold=0``. Before Python's
    years the zone's first offset holds; after them its rules repeat every 400 years."""
    if isinstance(zone, int):
        return zone
    seconds = max(local_seconds, _MIN_LOCAL_SECONDS)
    if seconds > _MAX_LOCAL_SECONDS:
        seconds -= -(-(seconds - _MAX_LOCAL_SECONDS) // _SECONDS_PER_400_YEARS) * _SECONDS_PER_400_YEARS
    offset = (_EPOCH_NAIVE + dt.timedelta(seconds=seconds)).replace(tzinfo=zone).utcoffset()
    return 0 if offset is None else int(offset.total_seconds())


def _checked_micros(micros: int) -> int:
    if not _LONG_MIN <= micros <= _LONG_MAX:
        raise _Failed  # Math.multiplyExact / addExact overflow
    return micros


def _string_to_timestamp(text: str, zone: _Zone, ntz: bool) -> int:
    """``stringToTimestamp`` (in the zone written, else the session's) or, for ``ntz``,
    ``stringToTimestampWithoutTimeZone`` (a zone written is checked, then ignored)."""
    segments, written_zone, just_time = _parse_timestamp_text(text)
    if just_time and ntz:
        raise _Failed
    year, month, day, hour, minute, second, micros = segments[:7]
    if hour > 23 or minute > 59 or second > 59:
        raise _Failed  # LocalTime.of
    zone = written_zone if written_zone is not None and not ntz else zone
    if just_time:  # LocalDate.now(zone)
        now = int(dt.datetime.now(dt.timezone.utc).timestamp())
        days = (now + zone_offset(zone, now)) // _SECONDS_PER_DAY
    else:
        days = _checked_days(year, month, day)
    local = days * _SECONDS_PER_DAY + hour * 3600 + minute * 60 + second
    offset = 0 if ntz else _local_offset(zone, local)
    return _checked_micros((local - offset) * _MICROS + micros)



def spark_zone_of(text: str) -> _Zone | None:
    """The zone a timestamp string names after its time (``Z``, ``+01:00``, ``UTC+1``,
    ``America/New_York``, ...), as Spark's cast resolves it; None where Spark's cast fails."""
    try:
        return _zone_of(text.strip(_JAVA_TRIM))
    except _Failed:
        return None


def string_to_timestamp(text: str, zone: _Zone, ntz: bool) -> int | None:
    """Spark's cast of one string to a timestamp (microseconds; ``zone`` where the text names
    none) or, with ``ntz``, to a timestamp_ntz; None where Spark's cast fails."""
    try:
        return _string_to_timestamp(text, zone, ntz)
    except _Failed:
        return None

# -- one cast per target -------------------------------------------------------------------------


def _timestamp_text(micros: int, offset_of: _Zone | None) -> str:
    seconds, fraction = divmod(micros, _MICROS)
    if offset_of is not None:
        seconds += zone_offset(offset_of, seconds)
    days, second_of_day = divmod(seconds, _SECONDS_PER_DAY)
    return f"{format_date(days)} {format_time_of_day(second_of_day, fraction * 1000)}"


def _to_string(kind: str, x: Any, zone: _Zone) -> str:
    if kind == "boolean":
        return "true" if x else "false"
    if kind == "long":
        return str(x)
    if kind == "double":
        return format_java_double(x)
    if kind == "float":
        return format_java_float(x)
    if kind == "decimal":
        # Variant.getDecimal strips trailing zeros; a decimal casts to a plain string.
        return format(x.normalize(context=_WIDE), "f")
    if kind == "date":
        return format_date(x)
    if kind in ("timestamp", "timestamp_ntz"):
        return _timestamp_text(x, zone if kind == "timestamp" else None)
    if kind == "binary":
        return bytes(x).decode("utf-8", errors="replace")
    return str(x)


def _to_integral(kind: str, x: Any, name: str) -> int:
    low, high = _INT_RANGES[name]
    if kind == "boolean":
        return int(x)
    if kind in ("double", "float"):
        return _fractional_to_integral(x, name)
    if kind == "decimal" and name != "bigint":
        # Decimal.roundToInt: a Decimal built from a BigDecimal goes through a double.
        return _fractional_to_integral(float(x), name)
    if kind == "decimal":
        result = int(x)  # roundToLong: BigInteger truncation, exact range
    elif kind == "string":
        text = x.strip(_TRIM_ALL)  # UTF8String.toLongExact: [sign]digits, no fraction
        if not text.isascii() or not _LONG_TEXT.match(text):
            raise _Failed
        result = int(text)
    elif kind == "timestamp":
        result = x // _MICROS
    elif kind == "long":
        result = x
    else:
        raise _Failed
    if not low <= result <= high:
        raise _Failed
    return result


def _to_fractional(kind: str, x: Any, name: str) -> float:
    bits = _FLOAT32 if name == "float" else _FLOAT64
    if kind == "string":
        return _java_double(x, bits)
    if kind == "boolean":
        return 1.0 if x else 0.0
    if kind == "timestamp":
        result = float(x) / _MICROS  # Java divides the long's double by 1e6
    elif kind in ("long", "decimal"):
        return float(x) if name == "double" else _to_float32(x)
    elif kind in ("double", "float"):
        result = x
    else:
        raise _Failed
    return result if name == "double" else _to_float32(result)


def _to_decimal(kind: str, x: Any, target: DecimalType) -> decimal.Decimal:
    if kind == "boolean":
        exact = decimal.Decimal(int(x))
    elif kind in ("long", "decimal"):
        exact = decimal.Decimal(x)
    elif kind == "timestamp":
        exact = decimal.Decimal(x).scaleb(-6)  # measured: exact, not through a double
    elif kind in ("double", "float"):
        if not math.isfinite(x):
            raise _Failed
        exact = decimal.Decimal(format_java_double(x))  # Decimal(double): Double.toString
    elif kind == "string":
        exact = _java_decimal(x)
    else:
        raise _Failed
    return _fit_decimal(exact, target)


def _to_boolean(kind: str, x: Any) -> bool:
    if kind in ("boolean", "long", "double", "float", "decimal"):
        return bool(x != 0)
    if kind == "string":
        word = x.strip(_TRIM_ALL).lower()
        if word in _TRUE_WORDS or word in _FALSE_WORDS:
            return word in _TRUE_WORDS
    raise _Failed


def _to_date(kind: str, x: Any, zone: _Zone) -> int:
    if kind == "date":
        return int(x)
    if kind == "string":
        return _string_to_date(x)
    if kind in ("timestamp", "timestamp_ntz"):
        seconds = x // _MICROS
        offset = zone_offset(zone, seconds) if kind == "timestamp" else 0
        return (seconds + offset) // _SECONDS_PER_DAY
    raise _Failed


def _to_timestamp(kind: str, x: Any, zone: _Zone, ntz: bool) -> int:
    if kind == "string":
        return _string_to_timestamp(x, zone, ntz)
    if kind == "date":
        local = x * _SECONDS_PER_DAY
        return _checked_micros((local - (0 if ntz else _local_offset(zone, local))) * _MICROS)
    if kind == "timestamp":
        return _checked_micros(x + zone_offset(zone, x // _MICROS) * _MICROS) if ntz else int(x)
    if kind == "timestamp_ntz":
        return int(x) if ntz else _checked_micros(x - _local_offset(zone, x // _MICROS) * _MICROS)
    if ntz:
        raise _Failed  # no number casts to timestamp_ntz
    if kind == "long":
        return _checked_micros(x * _MICROS)  # VariantGet.castLongToTimestamp
    if kind == "decimal":
        return _checked_micros(int(x.scaleb(6, context=_WIDE)))  # castDecimalToTimestamp
    if kind in ("double", "float"):
        # Cast's doubleToTimestampAnsi: DoubleExactNumeric.toLong(d * 1e6).
        return _fractional_to_integral(x * _MICROS, "bigint")
    raise _Failed


def _cast_scalar(kind: str, x: Any, target: SparkType, zone: _Zone) -> Any:
    """The cast of a literal, raw: a date as days and timestamps as microseconds."""
    if isinstance(target, StringType):
        return _to_string(kind, x, zone)
    if isinstance(target, DecimalType):
        return _to_decimal(kind, x, target)
    name = target.name if isinstance(target, AtomicType) else ""
    if name in _INT_RANGES:
        return _to_integral(kind, x, name)
    if name in ("float", "double"):
        return _to_fractional(kind, x, name)
    if name == "boolean":
        return _to_boolean(kind, x)
    if name == "date":
        return _to_date(kind, x, zone)
    if name in ("timestamp", "timestamp_ntz"):
        return _to_timestamp(kind, x, zone, name == "timestamp_ntz")
    if name == "binary" and kind in ("binary", "string"):
        return bytes(x) if kind == "binary" else x.encode("utf-8")
    raise _Failed


def _cast_inner(value: Variant, target: SparkType, zone: _Zone, time_zone: str, strict: bool) -> Any:
    """A value inside an array, map or struct: a failed cast fails here, naming this value."""
    try:
        return _cast_raw(value, target, zone, time_zone, strict)
    except _Failed:
        if strict:
            raise _invalid_cast(value, target, time_zone) from None
        return None


def _cast_nested(value: Variant, target: SparkType, zone: _Zone, time_zone: str, strict: bool) -> Any:
    basic = value.basic_type
    if isinstance(target, ArrayType):
        if basic != BasicType.ARRAY:
            raise _Failed
        return [_cast_inner(e, target.element, zone, time_zone, strict) for e in value.elements()]
    if basic != BasicType.OBJECT:
        raise _Failed
    if isinstance(target, MapType):
        return [(name, _cast_inner(child, target.value, zone, time_zone, strict)) for name, child in value.items()]
    assert isinstance(target, StructType)
    row: dict[str, Any] = {}
    for field in target.fields:
        child = get_field(value, field.name)
        row[field.name] = None if child is None else _cast_inner(child, field.type, zone, time_zone, strict)
    return row


def _cast_raw(value: Variant, target: SparkType, zone: _Zone, time_zone: str, strict: bool = False) -> Any:
    if target == VARIANT:
        # Spark keeps the value, before any test of its type (a variant null stays one), rebuilt
        # by its builder: a dictionary of just the value's keys
        rebuilt = variant_rebuild_native(pa.array([value.metadata.data], pa.binary()), pa.array([value.value_bytes()], pa.binary()))
        return rebuilt[0].as_py()
    if _is_nested(target):
        if value.basic_type == BasicType.PRIMITIVE and value.primitive_type == PrimitiveType.NULL:
            return None
        return _cast_nested(value, target, zone, time_zone, strict)
    kind, x = _literal(value)
    if kind == "null":
        return None
    if kind in ("container", "uuid"):
        if not isinstance(target, StringType):
            raise _Failed
        return x if kind == "uuid" else _spark_json(value, time_zone)
    return _cast_scalar(kind, x, target, zone)


def _invalid_cast(value: Variant, target: SparkType, time_zone: str) -> ExecutionError:
    text = _spark_json(value, time_zone)
    return ExecutionError(
        f'The variant value `{text}` cannot be cast into `"{target.to_sql()}"`. '
        "Please use `try_variant_get` instead.",
        error_class=INVALID_VARIANT_CAST,
    )


def _zone(time_zone: str) -> _Zone:
    try:
        return resolve_time_zone(time_zone)
    except CodecError as exc:
        raise ExecutionError(str(exc)) from None


def _to_python(raw: Any, target: SparkType) -> Any:
    name = target.name if isinstance(target, AtomicType) else ""
    if raw is None or name not in ("date", "timestamp", "timestamp_ntz"):
        return raw
    try:
        if name == "date":
            return _EPOCH_DATE + dt.timedelta(days=raw)
        return (_EPOCH_UTC if name == "timestamp" else _EPOCH_NAIVE) + dt.timedelta(microseconds=raw)
    except OverflowError:
        raise ExecutionError(
            f"the {name} result lies outside Python's years 1 to 9999: not supported yet by cast_variant "
            "(variant_get_column returns it)"
        ) from None


def cast_variant(value: Variant | None, target: SparkType, *, strict: bool, time_zone: str) -> Any:
    """The value ``variant_get`` (``strict``) or ``try_variant_get`` returns for an extracted
    value and a scalar target.

    Args:
        value: the value found at the path, or None when the path found nothing.
        target: ``boolean``, an integer, ``float``, ``double``, ``decimal(p,s)``, ``string``,
            ``binary``, ``date``, ``timestamp`` or ``timestamp_ntz``.
        strict: raise on a failed cast (``variant_get``) instead of returning None.
        time_zone: the session time zone.

    Returns:
        None, or a bool, int, float, ``decimal.Decimal``, str, bytes, ``datetime.date``, an aware
        UTC ``datetime.datetime`` (``timestamp``) or a naive one (``timestamp_ntz``).

    Raises:
        ExecutionError: ``INVALID_VARIANT_CAST`` when ``strict`` and the value does not cast;
            ``UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT`` for a time or nanosecond timestamp, which Spark
            4.3 cannot read; "not supported yet" for another target type, or a date or
            timestamp outside Python's years.
        MalformedVariantError: damaged bytes.

    Example:
        >>> from vpush.codec.json import parse_json
        >>> from vpush.optimizer.variant_types import parse_variant_type
        >>> cast_variant(Variant(*parse_json('" 12 "')), parse_variant_type("int"), strict=True, time_zone="UTC")
        12
        >>> cast_variant(Variant(*parse_json('1.5')), parse_variant_type("date"), strict=False, time_zone="UTC")
        >>> cast_variant(Variant(*parse_json('2.5')), parse_variant_type("decimal(2,0)"), strict=True, time_zone="UTC")
        Decimal('3')
    """
    arrow_type(target)  # rejects the targets not supported yet, whatever the value
    if value is None:
        return None
    try:
        raw = _cast_raw(value, target, _zone(time_zone), time_zone, strict)
    except _Failed:
        if strict:
            raise _invalid_cast(value, target, time_zone) from None
        return None
    if _is_nested(target):
        return pa.array([raw], arrow_type(target))[0].as_py()
    return _to_python(raw, target)


def variant_get_column(
    metadata: pa.Array, value: pa.Array, path: str, target: SparkType, *, strict: bool, time_zone: str
) -> pa.Array:
    """:func:`cast_variant` of the value at ``path`` of every row, as an Arrow array of
    :func:`arrow_type` (NULL where either input is NULL or the path finds nothing). Dates and
    timestamps beyond Python's years come out too.

    Residual numbers and booleans cast to a number (the usual residuals: a writer that shreds
    only exact types leaves INTEGER and JSON numbers in a BIGINT field's ``value``) are decoded
    and cast vectorized (:func:`_fast_numbers`); every other row loops in Python.

    Raises:
        ExecutionError: as :func:`cast_variant`, naming the row of the batch.

    Example:
        >>> from vpush.codec.json import parse_json
        >>> from vpush.optimizer.variant_types import parse_variant_type
        >>> rows = [parse_json('{"a": "2024-01-02"}'), parse_json('{"a": 1}'), None]
        >>> meta = pa.array([r[0] if r else None for r in rows], pa.binary())
        >>> value = pa.array([r[1] if r else None for r in rows], pa.binary())
        >>> variant_get_column(meta, value, "$.a", parse_variant_type("date"), strict=False, time_zone="UTC").to_pylist()
        [datetime.date(2024, 1, 2), None, None]
    """
    if isinstance(metadata, pa.ChunkedArray):
        metadata = metadata.combine_chunks()
    if isinstance(value, pa.ChunkedArray):
        value = value.combine_chunks()
    out_type = arrow_type(target)
    zone = _zone(time_zone)
    user_path = path
    if path != "$":
        # The compiled kernel takes the values out of every row first; what is left is a cast.
        try:
            found_values = extract_column(metadata, value, path)
        except VpushError as exc:
            raise exc.with_context(json_path=user_path) from None
        metadata, value = found_values.flatten()
        path = "$"
    if _is_nested(target) and path == "$":
        try:
            return _cast_nested_column(metadata, value, target, strict, time_zone)
        except VpushError as exc:
            raise exc.with_context(json_path=user_path) from None
    rows: Sequence[int] = range(len(value))
    fast = (
        (_fast_numbers(value, target) or _fast_strings(value, target) or _fast_datetimes(value, target, time_zone))
        if path == "$"
        else None
    )
    if fast is not None:
        rows = [int(i) for i in np.flatnonzero(~fast[1])]
        if not rows:
            return fast[0]
    parsed = VariantPath.parse(path)
    views: dict[bytes, VariantMetadata] = {}
    slow: list[Any] = []
    for row in rows:
        meta, raw = metadata[row].as_py(), value[row].as_py()
        found = None
        try:
            if meta is not None and raw is not None:
                view = views.get(meta)
                if view is None:
                    view = views[meta] = VariantMetadata(meta)
                found = extract(view, raw, parsed)
            slow.append(_cast_raw(found, target, zone, time_zone, strict) if found is not None else None)
        except _Failed:
            if strict and found is not None:
                error = _invalid_cast(found, target, time_zone)
                error.message += f" (row {row} of the batch)"
                raise error.with_context(json_path=user_path) from None
            slow.append(None)
        except VpushError as exc:
            exc.message += f" (row {row} of the batch)"
            raise exc.with_context(json_path=user_path) from None
    if fast is None:
        return pa.array(slow, type=out_type)
    mask = np.zeros(len(value), dtype=bool)
    mask[rows] = True
    return pc.replace_with_mask(fast[0], pa.array(mask), pa.array(slow, type=out_type))


def _cast_column(metadata: pa.Array, value: pa.Array, target: SparkType, strict: bool, time_zone: str) -> pa.Array:
    """Every value (the whole value, path ``$``) cast to ``target``, which may be nested."""
    if target == VARIANT:
        return variant_rebuild_native(metadata, value)  # as Spark rebuilds it (see _cast_raw)
    if _is_nested(target):
        return _cast_nested_column(metadata, value, target, strict, time_zone)
    return variant_get_column(metadata, value, "$", target, strict=strict, time_zone=time_zone)


def _cast_nested_column(metadata: pa.Array, value: pa.Array, target: SparkType, strict: bool, time_zone: str) -> pa.Array:
    """:func:`_cast_nested` of every row, vectorized: the compiled kernel takes the arrays and
    objects apart, the values inside are cast as one column each (a struct's fields are taken
    out by name with the extraction kernel), and the results are put back together."""
    n = len(value)
    # A struct takes its fields out by name: it needs only each row's kind.
    kinds, counts = container_kinds_native(metadata, value)
    wanted = EXPLODE_ARRAY if isinstance(target, ArrayType) else EXPLODE_OBJECT
    valid = kinds == wanted
    # A variant null is NULL whatever the target; any other value of another kind fails.
    first = pc.binary_slice(value.cast(pa.binary()), 0, 1)
    variant_null = pc.fill_null(pc.equal(first, pa.scalar(b"\x00", pa.binary())), False).to_numpy(zero_copy_only=False)
    failed = (kinds != wanted) & (kinds != EXPLODE_NULL) & ~variant_null
    if strict and failed.any():
        row = int(np.flatnonzero(failed)[0])
        error = _invalid_cast(Variant(metadata[row].as_py(), value[row].as_py()), target, time_zone)
        error.message += f" (row {row} of the batch)"
        raise error
    mask = pa.array(~valid)
    if isinstance(target, StructType):
        if not target.fields:
            return pa.array([{} if ok else None for ok in valid.tolist()], pa.struct([]))
        fields = []
        for field in target.fields:
            found_metadata, found_value = extract_native(metadata, value, (field.name,)).flatten()
            fields.append(_cast_column(found_metadata, found_value, field.type, strict, time_zone))
        return pa.StructArray.from_arrays(fields, fields=[pa.field(f.name, a.type) for f, a in zip(target.fields, fields)], mask=mask)
    _, _, values, keys = explode_native(metadata, value, keys=isinstance(target, MapType))
    # Only the elements of the rows of the wanted kind; others count none.
    parents = np.repeat(np.arange(n, dtype=np.int64), counts)
    keep = valid[parents]
    used = np.where(valid, counts, 0)
    offsets = pa.array(np.concatenate([[0], np.cumsum(used, dtype=np.int64)]).astype(np.int32))
    kept = pa.array(np.flatnonzero(keep))
    child_metadata = metadata.take(pa.array(parents[keep]))
    child_values = values.take(kept)
    if isinstance(target, ArrayType):
        items = _cast_column(child_metadata, child_values, target.element, strict, time_zone)
        return pa.ListArray.from_arrays(offsets, items, mask=mask)
    assert isinstance(target, MapType)
    items = _cast_column(child_metadata, child_values, target.value, strict, time_zone)
    return pa.MapArray.from_arrays(offsets, keys.take(kept), items, mask=mask)


def _binary_buffers(value: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The row offsets (int64, one more than the rows), the data bytes and the validity of a
    binary or large_binary array, as NumPy arrays over its buffers."""
    n = len(value)
    offset_type = np.int64 if pa.types.is_large_binary(value.type) else np.int32
    buffers = value.buffers()
    offsets = np.frombuffer(buffers[1], dtype=offset_type)[value.offset : value.offset + n + 1].astype(np.int64)
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    return offsets, data, value.is_valid().to_numpy(zero_copy_only=False)


def _fast_strings(value: pa.Array, target: SparkType) -> tuple[pa.Array, np.ndarray] | None:
    """Cast the rows whose value is a string (short or long) or a variant null to ``string``,
    vectorized: (results, which rows are done). A string casts to itself, so the result is the
    bytes after the value's header; every other row goes to :func:`cast_variant`. Returns None
    (everything to :func:`cast_variant`) when some string is not valid UTF-8, so that the error
    is the codec's."""
    if not isinstance(target, StringType):
        return None
    if not (pa.types.is_binary(value.type) or pa.types.is_large_binary(value.type)):
        return None
    n = len(value)
    offsets, data, present = _binary_buffers(value)
    starts = offsets[:-1]
    lengths = offsets[1:] - starts
    valid = present & (lengths >= 1)
    header = np.zeros(n, dtype=np.int64)
    header[valid] = data[starts[valid]]
    short = valid & ((header & 3) == 1) & (lengths >= 1 + (header >> 2))
    primitive = valid & ((header & 3) == 0)
    long_ = primitive & ((header >> 2) == PrimitiveType.STRING) & (lengths >= 5)
    size = np.where(short, header >> 2, 0)
    skip = np.where(short, 1, 5)
    long_rows = np.flatnonzero(long_)
    if len(long_rows):
        declared = _little_endian(data, starts[long_rows] + 1, 4, "<u4").astype(np.int64)
        fits = lengths[long_rows] >= 5 + declared
        long_[long_rows[~fits]] = False
        size[long_rows[fits]] = declared[fits]
    strings = short | long_
    variant_null = primitive & ((header >> 2) == PrimitiveType.NULL)
    size = np.where(strings, size, 0)
    out_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(size, out=out_offsets[1:])
    total = int(out_offsets[-1])
    if total > np.iinfo(np.int32).max:
        return None
    firsts = starts + skip
    index = np.repeat(firsts - out_offsets[:-1], size) + np.arange(total, dtype=np.int64)
    validity = pa.array(strings, pa.bool_()).buffers()[1]
    result = pa.Array.from_buffers(
        pa.string(), n, [validity, pa.py_buffer(out_offsets.astype(np.int32)), pa.py_buffer(data[index])]
    )
    try:
        result.validate(full=True)
    except pa.ArrowInvalid:
        return None
    return result, strings | variant_null | ~present


_DATETIME_TARGETS = frozenset({"date", "timestamp", "timestamp_ntz"})


def _fast_datetimes(value: pa.Array, target: SparkType, time_zone: str) -> tuple[pa.Array, np.ndarray] | None:
    """Cast the rows whose value is a string Spark's cast parses (or a variant null) to a date,
    timestamp or timestamp_ntz, vectorized by the compiled parser
    (:mod:`vpush.exec.string_datetimes`): (results, which rows are done). The strings it
    refuses, and every value of another type, go to :func:`cast_variant`, which raises or
    gives NULL for them as Spark does."""
    if not (isinstance(target, AtomicType) and target.name in _DATETIME_TARGETS):
        return None
    found = _fast_strings(value, StringType())
    if found is None:
        return None
    from vpush.exec.string_datetimes import string_to_date_column, string_to_timestamp_column

    texts, done = found
    if target.name == "date":
        cast = string_to_date_column(texts, strict=False)
    else:
        cast = string_to_timestamp_column(texts, time_zone=time_zone, ntz=target.name == "timestamp_ntz", strict=False)
    is_text = texts.is_valid().to_numpy(zero_copy_only=False)
    parsed = cast.is_valid().to_numpy(zero_copy_only=False)
    return cast.cast(arrow_type(target)), (done & ~is_text) | parsed


_NUMPY_INTS = {"tinyint": np.int8, "smallint": np.int16, "int": np.int32, "bigint": np.int64}


def _little_endian(data: np.ndarray, at: np.ndarray, width: int, dtype: str) -> np.ndarray:
    """The numbers of ``width`` little-endian bytes at each offset ``at`` of ``data``."""
    gathered = data[at[:, None] + np.arange(width)]
    return np.ascontiguousarray(gathered).view(dtype).reshape(len(at))


_POWERS_OF_TEN = np.array([float(10**k) for k in range(23)])
"""10**0 to 10**22, every one exact as a double."""


def _fast_numbers(value: pa.Array, target: SparkType) -> tuple[pa.Array, np.ndarray] | None:
    """Cast the rows whose value is an integer, a double, a boolean or a variant null to an
    integer or double ``target`` (and a decimal of up to 2**53 units to a double), vectorized: (results, which rows are done). A row left undone
    (anything else, a value that fails the cast, a truncated value) goes to :func:`cast_variant`,
    which also raises the error for a failed cast."""
    if not isinstance(target, AtomicType) or (target.name not in _NUMPY_INTS and target.name != "double"):
        return None
    if not (pa.types.is_binary(value.type) or pa.types.is_large_binary(value.type)):
        return None
    n = len(value)
    offsets, data, present = _binary_buffers(value)
    starts = offsets[:-1]
    lengths = offsets[1:] - starts
    valid = present & (lengths >= 1)
    header = np.zeros(n, dtype=np.uint8)
    header[valid] = data[starts[valid]]
    primitive = valid & ((header & 3) == 0)
    type_id = header >> 2
    numbers = np.zeros(n, dtype=np.float64 if target.name == "double" else np.int64)
    done = ~present  # SQL NULL rows: NULL
    nulls = done.copy()
    variant_null = primitive & (type_id == PrimitiveType.NULL)
    done |= variant_null
    nulls |= variant_null
    for flag, truth in ((PrimitiveType.TRUE, 1), (PrimitiveType.FALSE, 0)):
        rows = primitive & (type_id == flag)
        numbers[rows] = truth
        done |= rows
    sources: list[tuple[int, int, str]] = [(int(t), w, f"<i{w}") for t, w in _INT_WIDTHS.items()]
    sources.append((int(PrimitiveType.DOUBLE), 8, "<f8"))
    for type_id_value, width, dtype in sources:
        rows = np.flatnonzero(primitive & (type_id == type_id_value) & (lengths >= 1 + width))
        if not len(rows):
            continue
        decoded = _little_endian(data, starts[rows] + 1, width, dtype)
        if dtype == "<f8" and target.name != "double":
            finite = np.isfinite(decoded)
            rows, decoded = rows[finite], np.trunc(decoded[finite])  # NaN and infinities fail
            low, high = _INT_RANGES[target.name]
            # Java's (long) d saturates, and DoubleExactNumeric lets 2**63 itself through.
            limit = -float(low) if target.name == "bigint" else float(high)
            inside = (decoded >= float(low)) & (decoded <= limit)
            rows, decoded = rows[inside], decoded[inside]
            saturated = decoded >= 2.0**63
            decoded = np.where(saturated, 0.0, decoded).astype(np.int64)
            decoded[saturated] = _LONG_MAX
        elif dtype != "<f8" and target.name != "double":
            low, high = _INT_RANGES[target.name]
            inside = (decoded >= low) & (decoded <= high)
            rows, decoded = rows[inside], decoded[inside]
        numbers[rows] = decoded
        done[rows] = True
    if target.name == "double":
        # a decimal of at most 2**53 units and scale 22: both exact as doubles, so one IEEE
        # division is the correctly rounded value, as Java's BigDecimal.doubleValue gives it
        for decimal_type, width in ((PrimitiveType.DECIMAL4, 4), (PrimitiveType.DECIMAL8, 8)):
            rows = np.flatnonzero(primitive & (type_id == decimal_type) & (lengths >= 2 + width))
            if not len(rows):
                continue
            scales = data[starts[rows] + 1].astype(np.int64)
            units = _little_endian(data, starts[rows] + 2, width, f"<i{width}").astype(np.int64)
            bound = min(10 ** _MAX_DECIMAL_DIGITS[decimal_type] - 1, 2**53)
            exact = (scales <= 22) & (np.abs(units) <= bound)
            rows, scales, units = rows[exact], scales[exact], units[exact]
            numbers[rows] = units.astype(np.float64) / _POWERS_OF_TEN[scales]
            done[rows] = True
        result = pa.array(numbers, type=pa.float64(), mask=nulls)
    else:
        result = pa.array(numbers.astype(_NUMPY_INTS[target.name]), mask=nulls)
    return result, done
