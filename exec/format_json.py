"""Spark's ``to_json`` of a struct, an array or a map: the text its ``JacksonGenerator`` writes.

Every value is printed by Arrow compute over whole columns, a level of nesting at a time: each
child column is printed first, then joined into its parent's text. Spark 4.3's rules (settled on
PySpark, with ``spark.sql.jsonGenerator.ignoreNullFields`` at its default, true):

```
struct          {"a":1,"c":"x"}: a NULL field is left out (printed null with the option
                ignoreNullFields 'false'), fields in the struct's order
array           [1,null,3]: a NULL element is null
map             {"k":1,"j":null}: keys as Spark's toString of them (a date its day number, a
                timestamp its microseconds), a NULL value null
boolean, ints   true, 42
double, float   Java's Double/Float.toString: 1.0E10, 0.1; NaN and infinities quoted ("NaN")
decimal         Java's BigDecimal.toString: 100.00, 1E-8, 0E-8 (Arrow prints the same)
string          Jackson's escapes: \\" \\\\ \\b \\f \\n \\r \\t, other controls \\u001F; no others
binary          base64, with padding
date            yyyy-MM-dd (-0044-03-15, +10000-01-01)
timestamp       yyyy-MM-dd'T'HH:mm:ss.SSSXXX in the session zone: 2024-01-02T03:04:05.123Z,
                ...-08:00, ...-07:52:58 (local mean time)
timestamp_ntz   yyyy-MM-dd'T'HH:mm:ss.SSS
variant         Spark's to_json of the variant (:func:`vpush.exec.variant_functions.to_json_column`)
```
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from vpush.codec.java_format import resolve_time_zone
from vpush.codec.native import format_java_native, to_json_native, to_variant_native
from vpush.exec.errors import ExecutionError
from vpush.exec.string_datetimes import utc_offsets_at
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

__all__ = ["format_json"]

_MICROS = 1_000_000
_DAY_SECONDS = 86_400
_INTEGERS = frozenset({"tinyint", "smallint", "int", "bigint"})


def format_json(
    values: pa.Array | pa.ChunkedArray, spark_type: SparkType, *, time_zone: str, ignore_null_fields: bool = True
) -> pa.Array:
    """Spark's ``to_json`` of every row of a column of ``spark_type`` (a struct, array or map),
    NULL where the row is NULL.

    Example:
        >>> from vpush.optimizer.variant_types import parse_variant_type
        >>> column = pa.array([{"a": 1, "b": None}, {"a": None, "b": [1.5, None]}, None])
        >>> format_json(column, parse_variant_type("struct<a:bigint,b:array<double>>"), time_zone="UTC").to_pylist()
        ['{"a":1}', '{"b":[1.5,null]}', None]

    Args:
        values: the column, as DuckDB hands it over (fields by position).
        spark_type: its Spark type: the names printed are its field names.
        time_zone: the session time zone, for timestamps.
        ignore_null_fields: leave a NULL struct field out (Spark's default), rather than print null.

    Raises:
        ExecutionError: a type vpush does not print (the optimizer refuses those: a time, an
            interval, a map keyed by a binary or a nested value), or an Arrow type that is not
            ``spark_type``'s.
    """
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    return _json(array, spark_type, time_zone, ignore_null_fields)


def _concat(*parts: pa.Array | str) -> pa.Array:
    """Every row's parts one after the other; NULL where any part is."""
    return pc.binary_join_element_wise(*parts, "")


def _masked(text: pa.Array, array: pa.Array) -> pa.Array:
    """``text``, NULL where ``array`` is NULL."""
    if not array.null_count:
        return text
    return pc.if_else(array.is_valid(), text, pa.scalar(None, pa.string()))


def _json(array: pa.Array, spark_type: SparkType, time_zone: str, ignore_null_fields: bool) -> pa.Array:
    if isinstance(spark_type, StructType):
        return _masked(_struct(array, spark_type, time_zone, ignore_null_fields), array)
    if isinstance(spark_type, ArrayType):
        if not (pa.types.is_list(array.type) or pa.types.is_large_list(array.type)):
            raise ExecutionError(f"to_json: DuckDB gave {array.type}, expected {spark_type.to_spark()}")
        elements = _children(array, array.values)
        printed = _json(elements, spark_type.element, time_zone, ignore_null_fields).fill_null("null")
        joined = pc.binary_join(_relisted(array, printed), ",")
        return _masked(_concat("[", joined, "]"), array)
    if isinstance(spark_type, MapType):
        if not isinstance(array, pa.MapArray):
            raise ExecutionError(f"to_json: DuckDB gave {array.type}, expected {spark_type.to_spark()}")
        entries = _children(array, array.values)
        keys = _string(_key_text(entries.field(0), spark_type.key))
        printed = _json(entries.field(1), spark_type.value, time_zone, ignore_null_fields).fill_null("null")
        joined = pc.binary_join(_relisted(array, _concat(keys, ":", printed)), ",")
        return _masked(_concat("{", joined, "}"), array)
    return _scalar(array, spark_type, time_zone)


def _children(array: pa.Array, children: pa.Array) -> pa.Array:
    """The elements (entries) of the lists (maps) of ``array``'s rows, its slice's only."""
    offsets = array.offsets
    start, end = offsets[0].as_py(), offsets[-1].as_py()
    return children.slice(start, end - start)


def _relisted(array: pa.Array, printed: pa.Array) -> pa.Array:
    """``printed`` (one text per element) grouped back into ``array``'s lists."""
    offsets = pc.subtract(array.offsets, array.offsets[0])
    if pa.types.is_large_list(array.type):
        return pa.LargeListArray.from_arrays(offsets, printed)
    return pa.ListArray.from_arrays(offsets, printed)


def _struct(array: pa.Array, spark_type: StructType, time_zone: str, ignore_null_fields: bool) -> pa.Array:
    if not pa.types.is_struct(array.type) or array.type.num_fields != len(spark_type.fields):
        raise ExecutionError(f"to_json: DuckDB gave {array.type}, expected {spark_type.to_spark()}")
    if not spark_type.fields:
        return pa.array(["{}"] * len(array), pa.string())
    # each field as ',"name":value' ('' where NULL: Spark leaves it out); the first comma is cut
    parts: list[pa.Array | str] = []
    for k, field in enumerate(spark_type.fields):
        child = _json(array.field(k), field.type, time_zone, ignore_null_fields)  # field() keeps the slice
        if not ignore_null_fields:
            child = child.fill_null("null")
        name = _string(pa.array([field.name], pa.string()))[0].as_py()
        parts.append(_concat(f",{name}:", child).fill_null(""))
    joined = _concat(*parts)
    return _concat("{", pc.utf8_slice_codeunits(joined, 1), "}")


def _scalar(array: pa.Array, spark_type: SparkType, time_zone: str) -> pa.Array:
    if spark_type == VARIANT:
        from vpush.exec.variant_functions import to_json_column

        return to_json_column(array, time_zone)
    if isinstance(spark_type, StringType):
        return _string(array)
    if isinstance(spark_type, DecimalType):
        return array.cast(pa.string())  # Arrow's text of a decimal is Java's BigDecimal.toString
    name = spark_type.to_spark()
    if name == "void":
        return pa.nulls(len(array), pa.string())  # array(NULL)'s elements: each a NULL
    if name == "boolean" or name in _INTEGERS:
        return array.cast(pa.string())
    if name in ("float", "double"):
        # Jackson quotes what is not a JSON number
        return pc.replace_substring_regex(format_java_native(array), "^(NaN|-?Infinity)$", '"\\1"')
    if name == "binary":
        return _via_variant(array)
    if name == "date":
        days = np.asarray(array.cast(pa.int32()).fill_null(0), np.int64)
        return _masked(_concat('"', _date_text(days), '"'), array)
    if name in ("timestamp", "timestamp_ntz"):
        micros = np.asarray(array.cast(pa.int64()).fill_null(0), np.int64)
        seconds = np.floor_divide(micros, _MICROS)
        offsets = np.zeros(len(micros), np.int64)
        if name == "timestamp":
            offsets = utc_offsets_at(resolve_time_zone(time_zone), seconds)
        local = seconds + offsets
        days, clock = np.divmod(local, _DAY_SECONDS)
        millis = np.floor_divide(micros - seconds * _MICROS, 1000)
        text = [_date_text(days), "T", _digits(clock // 3600, 2), ":", _digits(clock // 60 % 60, 2), ":",
                _digits(clock % 60, 2), ".", _digits(millis, 3)]
        if name == "timestamp":
            text.append(_offset_text(offsets))
        return _masked(_concat('"', *text, '"'), array)
    raise ExecutionError(f"to_json of {name} is not supported on the DuckDB engine")


def _key_text(keys: pa.Array, spark_type: SparkType) -> pa.Array:
    """Spark's text of map keys: the ``toString`` of its value as it holds it."""
    if isinstance(spark_type, StringType):
        return keys
    if isinstance(spark_type, DecimalType):
        return keys.cast(pa.string())
    name = spark_type.to_spark()
    if name in ("float", "double"):
        return format_java_native(keys)
    if name in ("date", "timestamp", "timestamp_ntz"):
        return keys.cast(pa.int32() if name == "date" else pa.int64()).cast(pa.string())
    if name == "boolean" or name in _INTEGERS:
        return keys.cast(pa.string())
    raise ExecutionError(f"to_json of a map keyed by {name} is not supported on the DuckDB engine")


def _via_variant(array: pa.Array) -> pa.Array:
    """Strings and binaries as Spark's ``to_json`` of a variant prints them (Jackson's string
    escapes, base64), which is the text its ``to_json`` of a struct gives them: each value
    becomes the only element of a variant array, printed by the compiled kernels, and the
    brackets are cut."""
    offsets = pa.array(np.arange(len(array) + 1, dtype=np.int32))
    listed = pa.ListArray.from_arrays(offsets, array)
    variant = to_variant_native(listed, b"\x00\x00")
    text = to_json_native(variant.field("metadata"), variant.field("value"))
    return _masked(pc.utf8_slice_codeunits(text, 1, -1), array)


def _string(array: pa.Array) -> pa.Array:
    if pa.types.is_string_view(array.type) or pa.types.is_large_string(array.type):
        array = array.cast(pa.string())
    return _via_variant(array)


def _digits(values: np.ndarray, width: int) -> pa.Array:
    """Non-negative integers, zero-padded to ``width`` digits."""
    return pc.utf8_lpad(pa.array(values, pa.int64()).cast(pa.string()), width, "0")


def _date_text(days: np.ndarray) -> pa.Array:
    """``yyyy-MM-dd`` of days since the epoch, as java.time prints a year: four digits at least,
    a minus sign before year 0001 (year 0 is 1 BC) and a plus sign after 9999."""
    # Howard Hinnant's civil_from_days, in the proleptic Gregorian calendar
    z = days + 719_468
    era = np.floor_divide(z, 146_097)
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = np.where(mp < 10, mp + 3, mp - 9)
    year = yoe + era * 400 + (month <= 2)
    padded = _digits(np.abs(year), 4)
    sign = pa.array(np.where(year < 0, "-", np.where(year > 9999, "+", "")), pa.string())
    return _concat(sign, padded, "-", _digits(month, 2), "-", _digits(day, 2))


def _offset_text(offsets: np.ndarray) -> pa.Array:
    """java.time's ``XXX``: ``Z`` for no offset, else ``+HH:MM``, with ``:ss`` when the offset
    has seconds (local mean time)."""
    size = np.abs(offsets)
    sign = pa.array(np.where(offsets < 0, "-", "+"), pa.string())
    seconds = pa.array(np.where(size % 60 != 0, ":", ""), pa.string())
    seconds = _concat(seconds, pc.if_else(pa.array(size % 60 != 0), _digits(size % 60, 2), ""))
    text = _concat(sign, _digits(size // 3600, 2), ":", _digits(size // 60 % 60, 2), seconds)
    return pc.if_else(pa.array(offsets == 0), "Z", text)
