"""A Delta ``add`` action's ``stats`` for one Parquet file, from the file's footer.

What Delta Spark writes (and :mod:`vpush.optimizer.delta_statistics` reads back):
``numRecords``; per top-level column of a primitive type, ``nullCount``, and ``minValues`` /
``maxValues`` where the footer bounds it (timestamps cut to milliseconds, strings to 32
characters with U+10FFFF appended to a cut maximum; never for ``float`` and ``double``, whose
footer bounds leave NaN out); per Variant column, its ``nullCount``, and
as ``minValues`` / ``maxValues`` a Variant object keyed by normalized path, Z85-encoded, for each
shredded primitive path whose ``value`` column is all-null in the whole file (Delta Spark's
``VariantStatsData``: otherwise the typed bounds would miss the residual values).
"""
from __future__ import annotations

import datetime as dt
import decimal
import json
import re
import uuid
from collections.abc import Mapping
from typing import Any

from vpush.codec.builder import encode_object, encode_primitive
from vpush.codec.header import PrimitiveType, VariantType
from vpush.codec.layout import VariantLayout
from vpush.codec.metadata import build_metadata
from vpush.codec.z85 import encode_z85
from vpush.optimizer.catalog import FileInfo
from vpush.optimizer.delta_statistics import STRING_PREFIX_LENGTH, normalized_json_path
from vpush.optimizer.statistics import ColumnStatistics

__all__ = ["collect_delta_statistics"]

_EPOCH_DATE = dt.date(1970, 1, 1)
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_EPOCH_NAIVE = dt.datetime(1970, 1, 1)
_CUT_MARK = "\U0010ffff"
# The footer's float and double bounds leave NaN out (parquet-cpp, DuckDB), while Delta readers
# take maxValues as Spark's max, where NaN sorts above every number: a file holding a NaN would
# be skipped by `x > 5`. Delta Spark drops footer bounds of such writers for the same reason.
_UNBOUNDED_TYPES = (VariantType.FLOAT, VariantType.DOUBLE)
_PRIMITIVES = {
    VariantType.INT8: PrimitiveType.INT8,
    VariantType.INT16: PrimitiveType.INT16,
    VariantType.INT32: PrimitiveType.INT32,
    VariantType.INT64: PrimitiveType.INT64,
    VariantType.FLOAT: PrimitiveType.FLOAT,
    VariantType.DOUBLE: PrimitiveType.DOUBLE,
    VariantType.DECIMAL4: PrimitiveType.DECIMAL4,
    VariantType.DECIMAL8: PrimitiveType.DECIMAL8,
    VariantType.DECIMAL16: PrimitiveType.DECIMAL16,
    VariantType.DATE: PrimitiveType.DATE,
    VariantType.TIMESTAMP: PrimitiveType.TIMESTAMP,
    VariantType.TIMESTAMP_NTZ: PrimitiveType.TIMESTAMP_NTZ,
    VariantType.STRING: PrimitiveType.STRING,
}


def _java_prefix(text: str) -> str:
    """The first :data:`STRING_PREFIX_LENGTH` UTF-16 units of ``text`` (Java's ``take``), not
    splitting a surrogate pair."""
    out, units = [], 0
    for c in text:
        width = 2 if ord(c) > 0xFFFF else 1
        if units + width > STRING_PREFIX_LENGTH:
            break
        out.append(c)
        units += width
    return "".join(out)


def _string_bounds(low: str, high: str) -> tuple[str, str | None]:
    low = _java_prefix(low)
    prefix = _java_prefix(high)
    if prefix == high:
        return low, high
    cut = prefix + _CUT_MARK
    return low, cut if cut > high else None


def _json_bound(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        millis = value.replace(microsecond=value.microsecond // 1000 * 1000)
        text = millis.isoformat(timespec="milliseconds")
        return text.replace("+00:00", "Z")
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def _variant_bound(value: Any, vt: VariantType) -> bytes | None:
    ptype = _PRIMITIVES.get(vt)
    if ptype is None:
        return None
    if vt == VariantType.DATE:
        value = (value - _EPOCH_DATE).days
    elif vt == VariantType.TIMESTAMP:
        value = (value - _EPOCH_UTC) // dt.timedelta(microseconds=1)
    elif vt == VariantType.TIMESTAMP_NTZ:
        value = (value - _EPOCH_NAIVE) // dt.timedelta(microseconds=1)
    return encode_primitive(ptype, value)


def _variant_statistics(layout: VariantLayout, merged: Any) -> tuple[str, str] | None:
    lows: list[tuple[str, bytes]] = []
    highs: list[tuple[str, bytes]] = []
    if layout.draft:
        return None
    for keys, leaf in layout.typed_leaves():
        value = merged.column(leaf.value) if leaf.value is not None else None
        if leaf.value is not None and (value is None or not value.all_null):
            continue  # residuals of this path are not in the typed bounds
        typed: ColumnStatistics | None = merged.column(leaf.typed_value)
        if typed is None or typed.non_null_count == 0 or not typed.has_min_max:
            continue
        vt = leaf.type.variant_type
        if vt in _UNBOUNDED_TYPES:
            continue
        low, high = typed.min, typed.max
        if vt == VariantType.STRING:
            low, high = _string_bounds(low, high)
            if high is None:
                continue
        low_bytes, high_bytes = _variant_bound(low, vt), _variant_bound(high, vt)
        if low_bytes is None or high_bytes is None:
            continue
        path = normalized_json_path(keys)
        lows.append((path, low_bytes))
        highs.append((path, high_bytes))
    if not lows:
        return None
    paths = [p for p, _ in lows]
    metadata = build_metadata(paths)
    ids = {k: i for i, k in enumerate(sorted(set(paths), key=lambda k: k.encode("utf-8")))}
    low_value = encode_object([(p, ids[p], b) for p, b in lows])
    high_value = encode_object([(p, ids[p], b) for p, b in highs])
    return encode_z85(metadata + low_value), encode_z85(metadata + high_value)


def collect_delta_statistics(info: FileInfo, schema: Mapping[str, Any]) -> str:
    """The ``stats`` JSON text of an ``add`` action for the file ``info``.

    Example:
        >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq
        >>> from vpush.optimizer.catalog import Catalog
        >>> path = os.path.join(tempfile.mkdtemp(), "a.parquet")
        >>> pq.write_table(pa.table({"id": [3, None, 5]}), path)
        >>> schema = {"type": "struct", "fields": [{"name": "id", "type": "long"}]}
        >>> collect_delta_statistics(Catalog().file_info(path), schema)
        '{"numRecords": 3, "minValues": {"id": 3}, "maxValues": {"id": 5}, "nullCount": {"id": 1}}'

    Args:
        info: the file's footer (``Catalog.file_info``).
        schema: the table's parsed ``schemaString``.
    """
    merged = info.statistics.merged
    lows: dict[str, Any] = {}
    highs: dict[str, Any] = {}
    nulls: dict[str, int] = {}
    for field in schema.get("fields", ()):
        name = str(field["name"])
        if field.get("type") == "variant":
            layout = next((v for k, v in info.variant_columns.items() if k.lower() == name.lower()), None)
            if layout is None:
                continue
            top = merged.column(layout.metadata) if layout.metadata is not None else None
            if top is not None:
                nulls[name] = top.null_count
            found = _variant_statistics(layout, merged)
            if found is not None:
                lows[name], highs[name] = found
            continue
        leaf = info.statistics.leaves.get(name)
        column = merged.column(name) if leaf is not None else None
        if leaf is None or column is None or leaf.variant_type is None:
            continue
        nulls[name] = column.null_count
        if not column.has_min_max or leaf.variant_type in (VariantType.BOOLEAN, VariantType.BINARY, *_UNBOUNDED_TYPES):
            continue
        low, high = column.min, column.max
        if leaf.variant_type == VariantType.STRING:
            low, high = _string_bounds(low, high)
            if high is None:
                continue
        lows[name] = _json_bound(low)
        highs[name] = _json_bound(high)
    # json writes a Decimal only through float, which would round it: decimals go in as marked
    # strings (the mark unique to this call) and come out as the number's own text.
    mark = uuid.uuid4().hex

    def exact(value: Any) -> Any:
        return f"{mark}{value}{mark}" if isinstance(value, decimal.Decimal) else value

    lows = {k: exact(v) for k, v in lows.items()}
    highs = {k: exact(v) for k, v in highs.items()}
    stats = {"numRecords": info.num_rows, "minValues": lows, "maxValues": highs, "nullCount": nulls}
    text = json.dumps(stats, ensure_ascii=False)
    return re.sub(f'"{mark}([^"]*){mark}"', lambda m: m.group(1), text)
