"""Spark 4.3's ``variant_get`` cast of one extracted value to a scalar type, in Python.

Spark's ``VariantGet.cast``: a variant null is NULL; an object or array casts to a string only
(as its JSON); a scalar of the target type is returned as it is; any other scalar becomes a
literal of its own Spark type, cast with ``Cast(..., EvalMode.TRY)``, and a NULL from that cast
is a failed cast: ``INVALID_VARIANT_CAST`` for ``variant_get``, NULL for ``try_variant_get``.
The rules below were measured on PySpark 4.3 (``tests/exec/test_variant_cast.py``); the cases
vpush does not model yet (a string read as a timestamp, a number read as binary, ...) raise a
clear "not supported yet" rather than guess.

The cast sees only residual values (those not in a shredded column) and unshredded paths; the
typed columns are cast in SQL by the engine.
"""
from __future__ import annotations

import datetime as dt
import decimal
import math
import re
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from vpush.codec.header import PrimitiveType, VariantType
from vpush.codec.java_format import _zone_offset, format_java_double, format_java_float, resolve_time_zone
from vpush.codec.json import to_json
from vpush.codec.metadata import VariantMetadata
from vpush.codec.path import VariantPath, extract
from vpush.codec.scalars import Float32
from vpush.codec.value import Variant
from vpush.exec.errors import ExecutionError
from vpush.optimizer.variant_types import AtomicType, DecimalType, SparkType, StringType

__all__ = ["INVALID_VARIANT_CAST", "arrow_type", "cast_variant", "variant_get_column"]

INVALID_VARIANT_CAST = "INVALID_VARIANT_CAST"
_INT_RANGES = {
    "tinyint": (-(2**7), 2**7 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "int": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}
_INTS = frozenset({VariantType.INT8, VariantType.INT16, VariantType.INT32, VariantType.INT64})
_DECIMALS = frozenset({VariantType.DECIMAL4, VariantType.DECIMAL8, VariantType.DECIMAL16})
_NUMBERS = frozenset({*_INTS, *_DECIMALS, VariantType.DOUBLE, VariantType.FLOAT, VariantType.BOOLEAN})
_SAME = {
    VariantType.BOOLEAN: "boolean",
    VariantType.DOUBLE: "double",
    VariantType.FLOAT: "float",
    VariantType.STRING: "string",
    VariantType.BINARY: "binary",
    VariantType.DATE: "date",
    VariantType.TIMESTAMP: "timestamp",
    VariantType.TIMESTAMP_NTZ: "timestamp_ntz",
}
# Spark's string-to-boolean words (UTF8String's StringUtils.isTrueString / isFalseString).
_TRUE_WORDS = frozenset({"t", "true", "y", "yes", "1"})
_FALSE_WORDS = frozenset({"f", "false", "n", "no", "0"})
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+\Z")
_DECIMAL_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
_JAVA_DOUBLE_EXTRAS = re.compile(r"[dDfFxXpP]|inf|nan", re.IGNORECASE)
_DATE_TEXT = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
_WIDE = decimal.Context(prec=200, rounding=decimal.ROUND_HALF_UP)
_EPOCH_DATE = dt.date(1970, 1, 1)
_UTC = dt.timezone.utc
_MICROS = 1_000_000
_ARROW_TYPES = {
    "boolean": pa.bool_(),
    "tinyint": pa.int8(),
    "smallint": pa.int16(),
    "int": pa.int32(),
    "bigint": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "string": pa.string(),
    "binary": pa.binary(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us", tz="UTC"),
    "timestamp_ntz": pa.timestamp("us"),
}


class _Failed(Exception):
    """Spark's TRY cast gave NULL: the value does not cast."""


class _NotYet(Exception):
    """A cast vpush does not model yet."""


def arrow_type(target: SparkType) -> pa.DataType:
    """The Arrow type of a cast's results."""
    if isinstance(target, DecimalType):
        return pa.decimal128(target.precision, target.scale)
    name = target.to_spark() if not isinstance(target, StringType) else "string"
    found = _ARROW_TYPES.get(name)
    if found is None:
        raise ExecutionError(f"variant_get to {target.to_spark()} is not supported yet")
    return found


def _strip(text: str) -> str:
    # UTF8String.trimAll: white space and ISO control characters at both ends.
    return text.strip("".join(chr(c) for c in range(0x21)) + "\x7f")


def _ascii(text: str) -> str:
    """``text`` when it is ASCII; Java's number parsers read some non-ASCII digits that vpush
    does not model."""
    if not text.isascii():
        raise _NotYet
    return text


def _to_int(value: Any, vt: VariantType, name: str) -> int:
    low, high = _INT_RANGES[name]
    if vt == VariantType.TIMESTAMP and isinstance(value, dt.datetime):
        result = _micros(value) // _MICROS  # seconds since the epoch, floored
    elif vt in _INTS:
        result = int(value)
    elif vt in _DECIMALS:
        result = int(value)  # truncates toward zero, as Decimal.toLong
    elif vt in (VariantType.DOUBLE, VariantType.FLOAT):
        if math.isnan(value) or math.isinf(value):
            raise _Failed
        result = int(value)  # truncates toward zero
    elif vt == VariantType.BOOLEAN:
        result = 1 if value else 0
    elif vt == VariantType.STRING:
        # Spark's TRY cast reads only [sign]digits (UTF8String.toLongExact): "1.5" fails.
        text = _ascii(_strip(value))
        if not _INTEGER_TEXT.match(text):
            raise _Failed
        result = int(text)
    else:
        raise _NotYet
    if not low <= result <= high:
        raise _Failed
    return result


def _to_decimal(value: Any, vt: VariantType, target: DecimalType) -> decimal.Decimal:
    if vt == VariantType.TIMESTAMP and isinstance(value, dt.datetime):
        exact = decimal.Decimal(_micros(value)).scaleb(-6)
    elif vt in _INTS or vt == VariantType.BOOLEAN:
        exact = decimal.Decimal(int(value))
    elif vt in _DECIMALS:
        exact = value
    elif vt in (VariantType.DOUBLE, VariantType.FLOAT):
        if math.isnan(value) or math.isinf(value):
            raise _Failed
        # Spark's Decimal(double) reads the double's shortest decimal text (Double.toString);
        # a float is widened to a double first (1.1f reads as 1.100000023841858).
        text = format_java_double(float(value))
        exact = decimal.Decimal(text)
    elif vt == VariantType.STRING:
        text = _ascii(_strip(value))
        if not _DECIMAL_TEXT.match(text):
            raise _Failed
        exact = decimal.Decimal(text)
    else:
        raise _NotYet
    if exact.is_finite() and exact != 0 and exact.adjusted() >= target.precision - target.scale:
        raise _Failed  # at least 10^(p-s) in magnitude: overflows before any rounding
    quantum = decimal.Decimal(1).scaleb(-target.scale)
    rounded = exact.quantize(quantum, context=_WIDE)
    if abs(rounded) >= decimal.Decimal(10) ** (target.precision - target.scale):
        raise _Failed
    return rounded


def _to_float(value: Any, vt: VariantType, name: str) -> float:
    if vt == VariantType.TIMESTAMP and isinstance(value, dt.datetime):
        result = _micros(value) / _MICROS
    elif vt in _INTS or vt in _DECIMALS:
        result = float(value)
    elif vt in (VariantType.DOUBLE, VariantType.FLOAT):
        result = float(value)
    elif vt == VariantType.BOOLEAN:
        result = 1.0 if value else 0.0
    elif vt == VariantType.STRING:
        text = _ascii(_strip(value))
        if not _DECIMAL_TEXT.match(text):
            # Java's parseDouble also reads "Infinity", "NaN", "1d", hex floats: not modelled.
            if _JAVA_DOUBLE_EXTRAS.search(text):
                raise _NotYet
            raise _Failed
        result = float(text)
    else:
        raise _NotYet
    if name == "float":
        return _java_float(result)
    return result


def _java_float(value: float) -> float:
    """Java's ``(float) d``: round to the nearest float, overflow to infinity."""
    if math.isnan(value) or math.isinf(value):
        return value
    try:
        return float(struct.unpack("f", struct.pack("f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def _to_boolean(value: Any, vt: VariantType) -> bool:
    if vt in _INTS or vt in _DECIMALS or vt in (VariantType.DOUBLE, VariantType.FLOAT):
        return bool(value != 0)
    if vt == VariantType.STRING:
        word = _strip(value).lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
        raise _Failed
    raise _NotYet


def _timestamp_text(micros: int, zone_offset: int) -> str:
    seconds, fraction = divmod(micros, _MICROS)
    local = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=seconds + zone_offset)
    text = local.strftime("%Y-%m-%d %H:%M:%S")
    if fraction:
        text += "." + f"{fraction:06d}".rstrip("0")
    return text


def _micros(moment: dt.datetime) -> int:
    base = dt.datetime(1970, 1, 1, tzinfo=_UTC) if moment.tzinfo is not None else dt.datetime(1970, 1, 1)
    delta = moment - base
    return (delta.days * 86_400 + delta.seconds) * _MICROS + delta.microseconds


def _to_string(value: Any, vt: VariantType, time_zone: str) -> str:
    if vt in _INTS:
        return str(int(value))
    if vt in _DECIMALS:
        # Spark's Variant.getDecimal strips trailing zeros: 1.50 reads as 1.5.
        return format(value.normalize(context=_WIDE), "f")
    if vt == VariantType.BOOLEAN:
        return "true" if value else "false"
    if vt == VariantType.DOUBLE:
        return format_java_double(value)
    if vt == VariantType.FLOAT:
        return format_java_float(value)
    if vt == VariantType.STRING:
        return str(value)
    if vt == VariantType.BINARY:
        return bytes(value).decode("utf-8", errors="replace")
    if vt == VariantType.DATE and isinstance(value, dt.date):
        return value.isoformat()
    if vt == VariantType.TIMESTAMP and isinstance(value, dt.datetime):
        micros = _micros(value)
        return _timestamp_text(micros, _zone_offset(resolve_time_zone(time_zone), micros // _MICROS))
    if vt == VariantType.TIMESTAMP_NTZ and isinstance(value, dt.datetime):
        return _timestamp_text(_micros(value), 0)
    raise _NotYet


def _to_date(value: Any, vt: VariantType, time_zone: str) -> dt.date:
    if vt in _NUMBERS or vt == VariantType.BINARY:
        raise _Failed  # Spark casts no number to a date
    if vt == VariantType.TIMESTAMP and isinstance(value, dt.datetime):
        micros = _micros(value)
        offset = _zone_offset(resolve_time_zone(time_zone), micros // _MICROS)
        return _EPOCH_DATE + dt.timedelta(seconds=micros // _MICROS + offset)
    if vt == VariantType.TIMESTAMP_NTZ and isinstance(value, dt.datetime):
        return value.date()
    if vt == VariantType.STRING:
        found = _DATE_TEXT.match(_strip(value))
        if found is None:
            raise _NotYet
        try:
            return dt.date(int(found.group(1)), int(found.group(2)), int(found.group(3)))
        except ValueError:
            raise _Failed from None
    raise _NotYet


def _to_timestamp(value: Any, vt: VariantType, ntz: bool, time_zone: str) -> dt.datetime:
    zone = resolve_time_zone(time_zone)
    if vt in _NUMBERS and ntz:
        raise _Failed  # Spark casts no number to timestamp_ntz
    if vt in (VariantType.BOOLEAN, VariantType.BINARY):
        raise _Failed  # measured: NULL in Spark's TRY cast
    if vt in (VariantType.DOUBLE, VariantType.FLOAT, *_DECIMALS) and not ntz:
        # Seconds since the epoch, truncated to microseconds (Spark multiplies a double in
        # double arithmetic, a decimal exactly).
        if vt in _DECIMALS:
            micros = int(value * _MICROS)
        else:
            if math.isnan(value) or math.isinf(value):
                raise _Failed
            micros = int(float(value) * _MICROS)
        if not -(2**63) <= micros < 2**63:
            raise _Failed
        try:
            return dt.datetime(1970, 1, 1, tzinfo=_UTC) + dt.timedelta(microseconds=micros)
        except OverflowError:
            raise _NotYet from None  # beyond Python's years
    if vt in _INTS and not ntz:
        micros = int(value) * _MICROS  # seconds since the epoch
        if not -(2**63) <= micros < 2**63:
            raise _Failed
        try:
            return dt.datetime(1970, 1, 1, tzinfo=_UTC) + dt.timedelta(microseconds=micros)
        except OverflowError:
            raise _NotYet from None  # beyond Python's years
    if vt == VariantType.DATE and isinstance(value, dt.date):
        midnight = dt.datetime(value.year, value.month, value.day)
        if ntz:
            return midnight
        return _local_to_utc(midnight, zone)
    if vt == VariantType.TIMESTAMP and isinstance(value, dt.datetime) and ntz:
        micros = _micros(value)
        offset = _zone_offset(zone, micros // _MICROS)
        return dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=micros + offset * _MICROS)
    if vt == VariantType.TIMESTAMP_NTZ and isinstance(value, dt.datetime) and not ntz:
        return _local_to_utc(value, zone)
    raise _NotYet


def _local_to_utc(local: dt.datetime, zone: Any) -> dt.datetime:
    """A wall-clock time in the session zone as an instant (java.time: earlier offset in overlaps,
    shifted forward in gaps)."""
    if isinstance(zone, int):
        return (local - dt.timedelta(seconds=zone)).replace(tzinfo=_UTC)
    aware = local.replace(tzinfo=zone, fold=0)
    result = aware.astimezone(_UTC)
    if result.astimezone(zone).replace(tzinfo=None) != local:  # a gap: java.time moves forward
        result = local.replace(tzinfo=zone, fold=1).astimezone(_UTC)
    return result


def _cast_scalar(v: Variant, target: SparkType, time_zone: str) -> Any:
    vt = v.type
    value = v.scalar()
    if isinstance(target, StringType):
        return _to_string(value, vt, time_zone)
    if isinstance(target, DecimalType):
        if vt in (VariantType.TIMESTAMP_NTZ, VariantType.DATE, VariantType.BINARY):
            raise _Failed  # measured: NULL in Spark's TRY cast
        return _to_decimal(value, vt, target)
    if not isinstance(target, AtomicType):
        raise _NotYet
    name = target.name
    if _SAME.get(vt) == name:
        return float(value) if isinstance(value, Float32) else value
    if vt in (VariantType.TIMESTAMP_NTZ, VariantType.DATE, VariantType.BINARY) or (
        vt == VariantType.TIMESTAMP and name == "boolean"
    ):
        if name in _INT_RANGES or name in ("double", "float", "boolean"):
            raise _Failed  # measured: NULL in Spark's TRY cast
    if name in _INT_RANGES:
        return _to_int(value, vt, name)
    if name in ("double", "float"):
        return _to_float(value, vt, name)
    if name == "boolean":
        return _to_boolean(value, vt)
    if name == "date":
        return _to_date(value, vt, time_zone)
    if name in ("timestamp", "timestamp_ntz"):
        return _to_timestamp(value, vt, name == "timestamp_ntz", time_zone)
    if name == "binary" and vt == VariantType.STRING:
        return str(value).encode("utf-8")
    if name == "binary" and vt in (*_NUMBERS, VariantType.DATE, VariantType.TIMESTAMP, VariantType.TIMESTAMP_NTZ):
        raise _Failed  # measured: Spark's TRY cast of these to binary is NULL
    raise _NotYet


def cast_variant(value: Variant | None, target: SparkType, *, strict: bool, time_zone: str) -> Any:
    """The value ``variant_get``/``try_variant_get`` returns for ``value`` and a scalar target.

    Raises:
        ExecutionError: ``INVALID_VARIANT_CAST`` when ``strict`` and the value does not cast;
            "not supported yet" for a cast vpush does not model.

    Example:
        >>> from vpush.codec.json import parse_json
        >>> from vpush.optimizer.variant_types import parse_variant_type
        >>> meta, raw = parse_json('"12"')
        >>> cast_variant(Variant(meta, raw), parse_variant_type("int"), strict=True, time_zone="UTC")
        12
    """
    if value is None or value.is_null():
        return None
    vt = value.type
    try:
        if vt in (VariantType.OBJECT, VariantType.ARRAY):
            if isinstance(target, StringType):
                return to_json(value.metadata, value.value_bytes(), time_zone=time_zone)
            raise _Failed
        return _cast_scalar(value, target, time_zone)
    except _Failed:
        if not strict:
            return None
        text = to_json(value.metadata, value.value_bytes(), time_zone=time_zone)
        raise ExecutionError(
            f"the variant value `{text}` cannot be cast into {target.to_spark().upper()}; "
            "use try_variant_get to get NULL instead",
            error_class=INVALID_VARIANT_CAST,
        ) from None
    except _NotYet:
        raise ExecutionError(
            f"vpush cannot cast a variant {vt.value} to {target.to_spark()} yet (not supported yet: "
            "see the README's status table)"
        ) from None


def variant_get_column(
    metadata: pa.Array, value: pa.Array, path: str, target: SparkType, *, strict: bool, time_zone: str
) -> pa.Array:
    """:func:`cast_variant` of the value at ``path`` of every row (NULL where either input is
    NULL or the path finds nothing).

    Residual numbers and booleans cast to a number (the usual residuals: a writer that shreds
    only exact types leaves INTEGER and JSON numbers in a BIGINT field's ``value``) are decoded
    and cast vectorized (:func:`_fast_numbers`); every other row loops in Python.

    Raises:
        ExecutionError: as :func:`cast_variant`, naming the row of the batch.
    """
    if isinstance(metadata, pa.ChunkedArray):
        metadata = metadata.combine_chunks()
    if isinstance(value, pa.ChunkedArray):
        value = value.combine_chunks()
    out_type = arrow_type(target)
    rows: Sequence[int] = range(len(value))
    fast = _fast_numbers(value, target) if path == "$" else None
    if fast is not None:
        result, done = fast
        rows = [int(i) for i in np.flatnonzero(~done)]
        if not rows:
            return result
    parsed = VariantPath.parse(path)
    views: dict[bytes, VariantMetadata] = {}
    slow: list[Any] = []
    for row in rows:
        meta, raw = metadata[row].as_py(), value[row].as_py()
        if meta is None or raw is None:
            slow.append(None)
            continue
        view = views.get(meta)
        if view is None:
            view = views[meta] = VariantMetadata(meta)
        try:
            slow.append(cast_variant(extract(view, raw, parsed), target, strict=strict, time_zone=time_zone))
        except ExecutionError as exc:
            exc.message += f" (row {row} of the batch)"
            raise exc.with_context(json_path=path)
    if fast is None:
        return pa.array(slow, type=out_type)
    mask = np.zeros(len(value), dtype=bool)
    mask[rows] = True
    return pc.replace_with_mask(fast[0], pa.array(mask), pa.array(slow, type=out_type))


_INT_WIDTHS = {PrimitiveType.INT8: 1, PrimitiveType.INT16: 2, PrimitiveType.INT32: 4, PrimitiveType.INT64: 8}
_NUMPY_INTS = {"tinyint": np.int8, "smallint": np.int16, "int": np.int32, "bigint": np.int64}


def _fast_numbers(value: pa.Array, target: SparkType) -> tuple[pa.Array, np.ndarray] | None:
    """Cast the rows whose value is an integer, a double, a boolean or a variant null to an
    integer or double ``target``, vectorized: (results, which rows are done). A row left undone
    (anything else, a value that fails the cast, a truncated value) goes to :func:`cast_variant`,
    which also raises the error for a failed cast."""
    if not isinstance(target, AtomicType) or (target.name not in _NUMPY_INTS and target.name != "double"):
        return None
    if not (pa.types.is_binary(value.type) or pa.types.is_large_binary(value.type)):
        return None
    n = len(value)
    offset_type = np.int64 if pa.types.is_large_binary(value.type) else np.int32
    buffers = value.buffers()
    offsets = np.frombuffer(buffers[1], dtype=offset_type)[value.offset : value.offset + n + 1].astype(np.int64)
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    starts = offsets[:-1]
    lengths = offsets[1:] - starts
    valid = value.is_valid().to_numpy(zero_copy_only=False) & (lengths >= 1)
    header = np.zeros(n, dtype=np.uint8)
    header[valid] = data[starts[valid]]
    primitive = valid & ((header & 3) == 0)
    type_id = header >> 2
    numbers = np.zeros(n, dtype=np.float64 if target.name == "double" else np.int64)
    done = ~value.is_valid().to_numpy(zero_copy_only=False)  # SQL NULL rows: NULL
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
        gathered = data[(starts[rows] + 1)[:, None] + np.arange(width)]
        decoded = np.ascontiguousarray(gathered).view(dtype).reshape(len(rows))
        if dtype == "<f8" and target.name != "double":
            finite = np.isfinite(decoded)
            rows, decoded = rows[finite], np.trunc(decoded[finite])  # NaN and infinities fail
            low, high = _INT_RANGES[target.name]
            # Exactly representable bounds: the cast fails at and beyond 2^(bits-1).
            inside = (decoded >= float(low)) & (decoded < -float(low))
            rows, decoded = rows[inside], decoded[inside].astype(np.int64)
        elif dtype != "<f8" and target.name != "double":
            low, high = _INT_RANGES[target.name]
            inside = (decoded >= low) & (decoded <= high)
            rows, decoded = rows[inside], decoded[inside]
        numbers[rows] = decoded
        done[rows] = True
    if target.name == "double":
        result = pa.array(numbers, type=pa.float64(), mask=nulls)
    else:
        result = pa.array(numbers.astype(_NUMPY_INTS[target.name]), mask=nulls)
    return result, done
