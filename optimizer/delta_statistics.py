"""Per-file statistics from a Delta log's ``add`` actions, for skipping files before any footer.

Each ``add`` may carry ``stats``, a JSON text: ``numRecords``, and per column ``nullCount``,
``minValues`` and ``maxValues`` mirroring the schema. vpush turns them into one
:class:`~vpush.optimizer.statistics.RowGroupStatistics` per file (``row_group`` -1), so that the
evaluator that prunes row groups (:class:`~vpush.optimizer.evaluate_row_groups.InclusiveStatsEvaluator`)
prunes files with the same proofs. Keys are a top-level column's name, or for a Variant path the
column's name, a NUL, and the normalized path (``v\\x00$['a']['b']``).

Plain columns, as Delta Spark writes their bounds:

- integers, ``float``/``double``, ``decimal``: JSON numbers (read exactly, as decimals first; a
  ``float`` bound is Java's shortest text of a float32, so it is rounded to float32 and moved one
  float32 step outward);
- ``date``: ``yyyy-MM-dd``;
- ``timestamp`` and ``timestamp_ntz``: ISO 8601 cut to milliseconds, so the maximum is widened by
  999 microseconds (the minimum, cut down, stays a lower bound);
- ``string``: cut to a prefix of 32 characters, a cut maximum with a high character appended. A
  string bound of 32 UTF-16 units or more, or one holding U+FFFD, U+FFFF or U+10FFFF (tie-breakers
  of Delta Spark releases) or a lone surrogate, may be cut: both bounds are then dropped and the
  file is read;
- other types (boolean, binary, nested): not used.

Variant columns (the variantShredding feature): ``minValues.v`` and ``maxValues.v`` are Z85 text
(:mod:`vpush.codec.z85`) of the Variant metadata bytes followed by the value bytes, zero-padded to
a multiple of 4 bytes; the value is an object whose keys are normalized paths (``$['a']['b']``,
``'`` and ``\\`` escaped with a backslash, control characters as ``\\b \\f \\n \\r \\t`` or
``\\uXXXX``) and whose values are the bounds of that path, each of the type the path has in every
row of the file. This follows Delta Spark's ``DeltaStatsJsonUtils.encodeVariantAsZ85`` and
``VariantStatsData``; the JSON example in the protocol's RFC does not decode that way (its texts
are not a multiple of 5 characters). Delta Spark writes a path's bounds only from a shredded
``typed_value`` whose ``value`` column is all-null in the file, so they bound every value the path
holds; the protocol has no null count per path, so a path's counts are recorded as the safe
extremes (every row may be null, and at least one value exists, since bounds were written).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import json
import math
from collections.abc import Mapping
from typing import Any

import numpy

from vpush.codec.errors import MalformedVariantError
from vpush.codec.header import VariantType
from vpush.codec.value import Variant
from vpush.codec.z85 import decode_z85
from vpush.optimizer.bound import BooleanExpression, ColumnRef, LeafRef, Term, VariantRef, bind_terms
from vpush.optimizer.statistics import ColumnStatistics, RowGroupStatistics

__all__ = [
    "STRING_PREFIX_LENGTH",
    "LogStatistics",
    "bind_log_statistics",
    "normalized_json_path",
    "parse_log_statistics",
]

STRING_PREFIX_LENGTH = 32
"""Delta Spark's ``stringPrefixLength``: string bounds are cut to this many UTF-16 units."""
MAX_TIMESTAMP_CUT = dt.timedelta(microseconds=999)
"""How much a timestamp bound may lose to Delta Spark's millisecond formatting (it cuts down)."""
# What Delta Spark appends to a cut maximum: U+10FFFF now; U+FFFF or U+FFFD in older releases
# (U+FFFD sorts below U+10000 in UTF-8 order, so such a bound may not be an upper bound at all).
_CUT_MARKS = ("\ufffd", "\uffff", "\U0010ffff")
_VARIANT_SEPARATOR = "\x00"
_CONTROL_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_PLAIN_TYPES = {
    "long": VariantType.INT64,
    "integer": VariantType.INT32,
    "short": VariantType.INT16,
    "byte": VariantType.INT8,
    "float": VariantType.FLOAT,
    "double": VariantType.DOUBLE,
    "date": VariantType.DATE,
    "timestamp": VariantType.TIMESTAMP,
    "timestamp_ntz": VariantType.TIMESTAMP_NTZ,
    "string": VariantType.STRING,
}
_DECIMAL_PRECISION = {VariantType.DECIMAL4: 9, VariantType.DECIMAL8: 18, VariantType.DECIMAL16: 38}
_INTEGERS = (VariantType.INT8, VariantType.INT16, VariantType.INT32, VariantType.INT64)


@dataclasses.dataclass(frozen=True)
class _Leaf:
    type: VariantType
    precision: int | None = None
    scale: int | None = None


@dataclasses.dataclass(frozen=True)
class LogStatistics:
    """One file's statistics from the log: as a merged row group, and each key's type."""

    statistics: RowGroupStatistics
    leaves: Mapping[str, _Leaf]


def normalized_json_path(keys: tuple[str, ...]) -> str:
    """The path Delta's Variant statistics key a field by: ``$`` then ``['name']`` per level.

    Example:
        >>> normalized_json_path(("user", "id")), normalized_json_path(()), normalized_json_path(("it's",))
        ("$['user']['id']", '$', "$['it\\\\'s']")
    """
    parts = ["$"]
    for key in keys:
        escaped = []
        for c in key:
            if c in ("\\", "'"):
                escaped.append("\\" + c)
            elif c in _CONTROL_ESCAPES:
                escaped.append(_CONTROL_ESCAPES[c])
            elif ord(c) < 0x20:
                escaped.append(f"\\u{ord(c):04x}")
            else:
                escaped.append(c)
        parts.append("['" + "".join(escaped) + "']")
    return "".join(parts)


def _utf16_length(text: str) -> int:
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


def _is_surrogate(c: str) -> bool:
    return 0xD800 <= ord(c) <= 0xDFFF


def _string_bounds(low: Any, high: Any) -> tuple[Any, Any]:
    if not isinstance(low, str) or not isinstance(high, str):
        return None, None
    for bound in (low, high):
        if _utf16_length(bound) >= STRING_PREFIX_LENGTH or any(m in bound for m in _CUT_MARKS):
            return None, None  # possibly cut: no proof either way, read the file
        if any(_is_surrogate(c) for c in bound):
            return None, None  # cut inside a surrogate pair: not a string Spark compares
    return low, high


def _float32_bound(number: float, upper: bool) -> float:
    """A float column's bound as a float32 value, one float32 step outward.

    Delta Spark writes a float bound as Java's ``Float.toString`` ("1.1"), whose nearest double
    is not the float32 the file holds (1.100000023841858, above it): read as a double, a maximum
    would fall below its own value. Rounding to float32 recovers it; the step outward keeps the
    bound safe for a writer that prints fewer digits than a round trip needs.
    """
    rounded = float(numpy.float32(number))
    if math.isinf(rounded) and not math.isinf(number):
        return math.inf if upper else -math.inf  # past float32's range: no useful bound
    step = numpy.float32(math.inf if upper else -math.inf)
    return float(numpy.nextafter(numpy.float32(rounded), step))


def _plain_value(raw: Any, vt: VariantType, upper: bool) -> Any:
    """A plain column's bound from its JSON form, or None when it is unusable."""
    try:
        if vt in _INTEGERS:
            if isinstance(raw, (int, decimal.Decimal)) and not isinstance(raw, bool) and raw == int(raw):
                return int(raw)
            return None
        if vt in (VariantType.FLOAT, VariantType.DOUBLE):
            if isinstance(raw, (int, decimal.Decimal)) and not isinstance(raw, bool):
                number = float(raw)
                if math.isnan(number):
                    return None
                return _float32_bound(number, upper) if vt == VariantType.FLOAT else number
            return None
        if vt in _DECIMAL_PRECISION:
            return decimal.Decimal(raw) if isinstance(raw, (int, decimal.Decimal)) else None
        if vt == VariantType.DATE:
            return dt.date.fromisoformat(raw) if isinstance(raw, str) else None
        if vt in (VariantType.TIMESTAMP, VariantType.TIMESTAMP_NTZ):
            if not isinstance(raw, str):
                return None
            value = dt.datetime.fromisoformat(raw.replace("Z", "+00:00"))
            if vt == VariantType.TIMESTAMP:
                if value.tzinfo is None:
                    return None
                value = value.astimezone(dt.timezone.utc)
            elif value.tzinfo is not None:
                return None
            return value + MAX_TIMESTAMP_CUT if upper else value
        if vt == VariantType.STRING:
            return raw if isinstance(raw, str) else None
    except (ValueError, ArithmeticError, OverflowError, TypeError):
        return None
    return None


def _plain_leaf(delta_type: Any) -> _Leaf | None:
    if not isinstance(delta_type, str):
        return None
    vt = _PLAIN_TYPES.get(delta_type)
    if vt is not None:
        return _Leaf(vt)
    if delta_type.startswith("decimal(") and delta_type.endswith(")"):
        precision, scale = (int(x) for x in delta_type[8:-1].split(","))
        kind = VariantType.DECIMAL4 if precision <= 9 else VariantType.DECIMAL8 if precision <= 18 else VariantType.DECIMAL16
        return _Leaf(kind, precision, scale)
    return None


def _variant_bounds(low_text: Any, high_text: Any) -> dict[str, tuple[_Leaf, Any, Any]]:
    """Per normalized path, (type, min, max) from a Variant column's two Z85 texts."""
    if not isinstance(low_text, str) or not isinstance(high_text, str):
        return {}
    try:
        low_object = Variant.from_concatenated(decode_z85(low_text))
        high_object = Variant.from_concatenated(decode_z85(high_text))
        if low_object.type != VariantType.OBJECT or high_object.type != VariantType.OBJECT:
            return {}
        highs = dict(high_object.items())
        out: dict[str, tuple[_Leaf, Any, Any]] = {}
        for path, low in low_object.items():
            high = highs.get(path)
            if high is None or low.type != high.type:
                continue
            found = _variant_leaf(low, high)
            if found is not None:
                out[path] = found
        return out
    except (MalformedVariantError, TypeError, ValueError):
        return {}  # statistics that do not decode prove nothing: read the file


def _variant_leaf(low: Variant, high: Variant) -> tuple[_Leaf, Any, Any] | None:
    vt = low.type
    lo, hi = low.scalar(), high.scalar()
    if vt in _INTEGERS:
        return _Leaf(vt), int(lo), int(hi)
    if vt in (VariantType.FLOAT, VariantType.DOUBLE):
        lo, hi = float(lo), float(hi)
        return None if math.isnan(lo) or math.isnan(hi) else (_Leaf(vt), lo, hi)
    if vt in _DECIMAL_PRECISION:
        scale = -int(lo.as_tuple().exponent)
        if scale != -int(hi.as_tuple().exponent):
            return None
        # The widest precision of the width: every value of the path fits it.
        return _Leaf(vt, _DECIMAL_PRECISION[vt], scale), lo, hi
    if vt == VariantType.DATE and isinstance(lo, dt.date) and isinstance(hi, dt.date):
        return _Leaf(vt), lo, hi
    if vt in (VariantType.TIMESTAMP, VariantType.TIMESTAMP_NTZ):
        if isinstance(lo, dt.datetime) and isinstance(hi, dt.datetime):
            return _Leaf(vt), lo, hi
        return None
    if vt == VariantType.STRING:
        lo, hi = _string_bounds(lo, hi)
        return (_Leaf(vt), lo, hi) if lo is not None else None
    return None


def parse_log_statistics(stats: str | None, schema: Mapping[str, Any]) -> LogStatistics | None:
    """One ``add``'s ``stats`` text as statistics, or None when it proves nothing.

    Example:
        >>> schema = {"type": "struct", "fields": [{"name": "id", "type": "long"}]}
        >>> text = '{"numRecords": 3, "minValues": {"id": 1}, "maxValues": {"id": 9}, "nullCount": {"id": 0}}'
        >>> column = parse_log_statistics(text, schema).statistics.column("id")
        >>> column.num_rows, column.null_count, column.min, column.max
        (3, 0, 1, 9)

    Args:
        stats: the JSON text (None when the writer wrote none).
        schema: the snapshot's parsed ``schemaString``.
    """
    if stats is None:
        return None
    try:
        parsed = json.loads(stats, parse_float=decimal.Decimal)
    except ValueError:
        return None
    if not isinstance(parsed, dict) or parsed.get("tightBounds") is False:
        return None  # wide bounds (deletion vectors): counts are not exact
    num_rows = parsed.get("numRecords")
    if not isinstance(num_rows, int) or isinstance(num_rows, bool) or num_rows < 0:
        return None
    lows = _section(parsed, "minValues")
    highs = _section(parsed, "maxValues")
    nulls = _section(parsed, "nullCount")
    columns: dict[str, ColumnStatistics | None] = {}
    leaves: dict[str, _Leaf] = {}
    for field in schema.get("fields", ()):
        name = str(field.get("name"))
        if field.get("type") == "variant":
            for path, (leaf, lo, hi) in _variant_bounds(lows.get(name), highs.get(name)).items():
                key = name + _VARIANT_SEPARATOR + path
                leaves[key] = leaf
                columns[key] = ColumnStatistics(key, num_rows, num_rows, 1, lo, hi)
            continue
        plain = _plain_leaf(field.get("type"))
        null_count = nulls.get(name)
        if plain is None or not isinstance(null_count, int) or isinstance(null_count, bool):
            continue
        lo = _plain_value(lows.get(name), plain.type, upper=False)
        hi = _plain_value(highs.get(name), plain.type, upper=True)
        if plain.type == VariantType.STRING:
            lo, hi = _string_bounds(lo, hi)
        if lo is None or hi is None:
            lo = hi = None
        leaves[name] = plain
        columns[name] = ColumnStatistics(name, num_rows, null_count, num_rows - null_count, lo, hi)
    return LogStatistics(RowGroupStatistics(-1, num_rows, columns), leaves)


def _section(parsed: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    found = parsed.get(name)
    return found if isinstance(found, dict) else {}


def _lookup(leaves: Mapping[str, _Leaf], key: str) -> str | None:
    if key in leaves:
        return key
    folded = [k for k in leaves if k.lower() == key.lower()]
    return folded[0] if len(folded) == 1 else None


def _bind_term(term: Term, stats: LogStatistics) -> Term | None:
    if isinstance(term, VariantRef):
        # Column names resolve ignoring case; the path's keys are case-sensitive, as Variant's.
        columns = {k.split(_VARIANT_SEPARATOR, 1)[0] for k in stats.leaves if _VARIANT_SEPARATOR in k}
        column = _lookup(dict.fromkeys(columns, _Leaf(VariantType.NULL)), term.column)
        if column is None:
            return None
        key = column + _VARIANT_SEPARATOR + normalized_json_path(term.path)
        found = stats.leaves.get(key)
        if found is None:
            return None
        return LeafRef(key, None, found.type, term.type, term.strict, True, found.precision, found.scale)
    if isinstance(term, ColumnRef):
        plain = {k: v for k, v in stats.leaves.items() if _VARIANT_SEPARATOR not in k}
        name = _lookup(plain, term.column)
        if name is None:
            return None
        leaf = plain[name]
        return LeafRef(name, None, leaf.type, term.type, True, False, leaf.precision, leaf.scale)
    return term  # PartitionRef


def bind_log_statistics(expression: BooleanExpression, stats: LogStatistics) -> BooleanExpression:
    """Resolve the references of ``expression`` against one file's log statistics.

    A reference without statistics (a column or path the file's ``stats`` do not bound) makes
    its predicate ``ALWAYS_TRUE``, as :func:`vpush.optimizer.bound.bind` does for a footer.

    Example:
        >>> from vpush.optimizer.bound import Gt, Literal, SqlType
        >>> schema = {"type": "struct", "fields": [{"name": "id", "type": "long"}]}
        >>> stats = parse_log_statistics('{"numRecords": 2, "minValues": {"id": 1}, '
        ...     '"maxValues": {"id": 2}, "nullCount": {"id": 0}}', schema)
        >>> bind_log_statistics(Gt(ColumnRef("ID", SqlType("bigint")), Literal(5, SqlType("bigint"))), stats).term.column_path
        'id'
    """
    return bind_terms(expression, lambda term: _bind_term(term, stats))
