"""Footer statistics of a Parquet file, per row group and leaf column, as typed Python values.

What a footer says of one column chunk, and what vpush takes from it:

```
pyarrow                                  here
ColumnChunkMetaData.num_values           (not used: counts null slots, and elements under lists)
statistics.null_count                    null_count      (slots where the leaf or an ancestor is null)
statistics.num_values                    non_null_count  (slots holding a value)
statistics.min / max (has_min_max)       min / max       typed, see below
```

Bounds are converted to Python values of the column's logical type: ``int`` (signed and unsigned),
``Decimal`` at the column's scale, ``date``, ``datetime`` (aware in UTC when the timestamp is
adjusted to UTC, naive otherwise), ``time``, ``str`` (STRING, ENUM, JSON), ``bytes``, ``bool`` and
``float``. A column chunk without statistics, or without a null count, has no
:class:`ColumnStatistics` at all (None): the evaluator then reads the row group.

Bounds are *inclusive*: every value v of the chunk has ``min <= v <= max``, and no more is
assumed unless ``bounds_exact`` says so:

- BYTE_ARRAY bounds may be truncated. The spec lets a writer shorten them (a prefix as min, a
  prefix with its last byte incremented as max), and DuckDB 2.0 does so past 256 bytes. The
  footer's ``is_min_value_exact`` / ``is_max_value_exact`` flags say when, but pyarrow does not
  expose them, so BYTE_ARRAY bounds always count as inexact: a valid lower and upper bound, never
  proof that a value occurs. A bound that is not valid UTF-8 in a STRING column (a truncation
  inside a character) is dropped.
- TIMESTAMP(NANOS) bounds are widened to whole microseconds (min floored, max ceiled) so that they
  are ``datetime`` values; they are inexact too.
- A NaN bound drops both bounds: writers differ in whether NaN takes part in min/max, so the other
  bound cannot be trusted either. pyarrow and DuckDB leave NaN out of min/max (DuckDB writes no
  bounds at all when a chunk holds one), so a float column's bounds say nothing about NaN.

Leaves under a LIST (``repeated``) count elements, not rows: their counts never prove anything
about rows, and the evaluator does not use them.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import functools
import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from vpush.codec.header import VariantType

if TYPE_CHECKING:
    import pyarrow.parquet as pq

__all__ = [
    "ColumnStatistics",
    "FileStatistics",
    "LeafColumn",
    "RowGroupStatistics",
    "file_statistics",
]

_EPOCH_NAIVE = dt.datetime(1970, 1, 1)
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
NANOS_PER_MICRO = 1000
MICROS_PER_MILLI = 1000
_STRING_TYPES = frozenset({"STRING", "ENUM", "JSON"})
_BOUND_TYPES: dict[VariantType, type] = {
    VariantType.DECIMAL4: decimal.Decimal,
    VariantType.DECIMAL8: decimal.Decimal,
    VariantType.DECIMAL16: decimal.Decimal,
    VariantType.DATE: dt.date,
    VariantType.TIME: dt.time,
}
_INT_TYPES = {
    (8, True): VariantType.INT8,
    (16, True): VariantType.INT16,
    (32, True): VariantType.INT32,
    (64, True): VariantType.INT64,
    # Unsigned integers have no Variant type; their bounds are plain ints all the same, and the
    # evaluator treats every integer type alike (by value range), so the widest label fits.
    (8, False): VariantType.INT16,
    (16, False): VariantType.INT32,
    (32, False): VariantType.INT64,
    (64, False): VariantType.INT64,
}


@dataclasses.dataclass(frozen=True)
class LeafColumn:
    """One leaf column of a file's schema: its dotted path, types and repetition.

    ``variant_type`` is the Variant type its values stand for (the spec's "Shredded Value Types",
    extended to millisecond timestamps and unsigned integers for plain columns), or None for a type
    vpush does not compare (INT96, FLOAT16, INTERVAL, ...).
    """

    column_path: str
    physical_type: str
    logical_type: str
    variant_type: VariantType | None
    precision: int | None = None
    scale: int | None = None
    repeated: bool = False


@dataclasses.dataclass(frozen=True)
class ColumnStatistics:
    """The statistics of one leaf column in one row group (or, merged, in one file).

    ``min`` and ``max`` are both None or both set (``has_min_max``). They are inclusive bounds;
    ``bounds_exact`` is True only when they are the true extremes (fixed-width physical types, not
    widened), so that ``min == max`` proves every value equal.
    """

    column_path: str
    num_rows: int
    null_count: int
    non_null_count: int
    min: Any = None
    max: Any = None
    bounds_exact: bool = False
    repeated: bool = False

    @property
    def has_min_max(self) -> bool:
        """True when both bounds are known."""
        return self.min is not None and self.max is not None

    @property
    def all_null(self) -> bool:
        """True when no row holds a value (for a leaf outside lists)."""
        return not self.repeated and self.non_null_count == 0 and self.null_count == self.num_rows

    @property
    def holds_no_value(self) -> bool:
        """True when no slot holds a value: :attr:`all_null`, or a leaf under a list (a list
        element's ``value``) whose every element, in every row, is null."""
        return self.all_null or (self.repeated and self.non_null_count == 0)


@dataclasses.dataclass(frozen=True)
class RowGroupStatistics:
    """The statistics of one row group: its row count and each leaf's :class:`ColumnStatistics`
    (None where the footer has none). ``row_group`` is the index, or -1 for a whole file merged."""

    row_group: int
    num_rows: int
    columns: Mapping[str, ColumnStatistics | None]

    def column(self, column_path: str) -> ColumnStatistics | None:
        """The statistics of the leaf at ``column_path`` (dotted), or None."""
        return self.columns.get(column_path)


@dataclasses.dataclass(frozen=True)
class FileStatistics:
    """The statistics of a whole file: one :class:`RowGroupStatistics` per row group, and the leaf
    columns of its schema."""

    num_rows: int
    row_groups: tuple[RowGroupStatistics, ...]
    leaves: Mapping[str, LeafColumn]

    @functools.cached_property
    def merged(self) -> RowGroupStatistics:
        """The file as one row group: counts added, bounds widened over row groups with values.

        A leaf without statistics in any row group has none here either; bounds are known only
        when every row group holding a value has them.
        """
        columns: dict[str, ColumnStatistics | None] = {}
        for path, leaf in self.leaves.items():
            parts = [rg.column(path) for rg in self.row_groups]
            columns[path] = _merge(path, leaf, self.num_rows, parts)
        return RowGroupStatistics(row_group=-1, num_rows=self.num_rows, columns=columns)


def _merge(
    path: str, leaf: LeafColumn, num_rows: int, parts: list[ColumnStatistics | None]
) -> ColumnStatistics | None:
    present = [p for p in parts if p is not None]
    if len(present) != len(parts):
        return None
    with_values = [p for p in present if p.non_null_count > 0]
    lows = [p.min for p in with_values if p.has_min_max]
    highs = [p.max for p in with_values if p.has_min_max]
    known = bool(with_values) and len(lows) == len(with_values)
    return ColumnStatistics(
        column_path=path,
        num_rows=num_rows,
        null_count=sum(p.null_count for p in present),
        non_null_count=sum(p.non_null_count for p in present),
        min=min(lows) if known else None,
        max=max(highs) if known else None,
        bounds_exact=known and all(p.bounds_exact for p in with_values),
        repeated=leaf.repeated,
    )


def _logical(column: Any) -> tuple[str, dict[str, Any]]:
    """The logical type's name and its parameters (pyarrow spells them only as JSON)."""
    logical = column.logical_type
    try:
        details = json.loads(logical.to_json())
    except (ValueError, AttributeError):
        details = {}
    name = str(details.get("Type") or getattr(logical, "type", "NONE")).upper()
    return name, details


def _leaf_column(column: Any) -> LeafColumn:
    physical = str(column.physical_type)
    name, details = _logical(column)
    repeated = int(column.max_repetition_level) > 0
    precision = scale = None
    vt: VariantType | None = None
    if name == "DECIMAL":
        scale = int(details.get("scale", column.scale))
        precision = int(details.get("precision", column.precision))
        vt = (
            VariantType.DECIMAL4
            if precision <= 9
            else VariantType.DECIMAL8
            if precision <= 18
            else VariantType.DECIMAL16
        )
    elif physical == "BOOLEAN":
        vt = VariantType.BOOLEAN
    elif physical in ("INT32", "INT64") and name in ("NONE", "INT"):
        if name == "NONE":
            vt = VariantType.INT32 if physical == "INT32" else VariantType.INT64
        else:
            vt = _INT_TYPES.get((int(details.get("bitWidth", 64)), bool(details.get("isSigned", True))))
    elif name == "DATE":
        vt = VariantType.DATE
    elif name == "TIME":
        vt = VariantType.TIME
    elif name == "TIMESTAMP":
        utc = bool(details.get("isAdjustedToUTC"))
        nanos = details.get("timeUnit") == "nanoseconds"
        vt = {
            (True, False): VariantType.TIMESTAMP,
            (False, False): VariantType.TIMESTAMP_NTZ,
            (True, True): VariantType.TIMESTAMP_NANOS,
            (False, True): VariantType.TIMESTAMP_NTZ_NANOS,
        }[(utc, nanos)]
    elif physical == "FLOAT" and name == "NONE":
        vt = VariantType.FLOAT
    elif physical == "DOUBLE" and name == "NONE":
        vt = VariantType.DOUBLE
    elif physical == "BYTE_ARRAY" and name in _STRING_TYPES:
        vt = VariantType.STRING
    elif physical == "BYTE_ARRAY" and name == "NONE":
        vt = VariantType.BINARY
    elif physical == "FIXED_LEN_BYTE_ARRAY" and name == "UUID":
        vt = VariantType.UUID
    return LeafColumn(
        column_path=str(column.path),
        physical_type=physical,
        logical_type=name,
        variant_type=vt,
        precision=precision,
        scale=scale,
        repeated=repeated,
    )


def _timestamp(raw: int, details: Mapping[str, Any], upper: bool) -> tuple[dt.datetime, bool]:
    """A TIMESTAMP bound as a datetime, and whether it is exact (nanos are widened outward)."""
    unit = details.get("timeUnit")
    exact = True
    if unit == "milliseconds":
        micros = raw * MICROS_PER_MILLI
    elif unit == "nanoseconds":
        micros, rest = divmod(raw, NANOS_PER_MICRO)
        if rest:
            exact = False
            micros += 1 if upper else 0
    else:
        micros = raw
    epoch = _EPOCH_UTC if details.get("isAdjustedToUTC") else _EPOCH_NAIVE
    return epoch + dt.timedelta(microseconds=micros), exact and unit != "nanoseconds"


def _bounds(stats: Any, leaf: LeafColumn, details: Mapping[str, Any]) -> tuple[Any, Any, bool]:
    """(min, max, exact) of a chunk, or (None, None, False) when they cannot be used."""
    none: tuple[Any, Any, bool] = (None, None, False)
    if not stats.has_min_max or leaf.variant_type is None:
        return none
    vt, physical = leaf.variant_type, leaf.physical_type
    try:
        if leaf.logical_type == "TIMESTAMP" and physical == "INT64":
            ts_low, low_exact = _timestamp(int(stats.min_raw), details, upper=False)
            ts_high, high_exact = _timestamp(int(stats.max_raw), details, upper=True)
            return ts_low, ts_high, low_exact and high_exact
        if physical == "BYTE_ARRAY":
            low_raw, high_raw = bytes(stats.min_raw), bytes(stats.max_raw)
            if vt == VariantType.STRING:
                return low_raw.decode("utf-8"), high_raw.decode("utf-8"), False
            if vt == VariantType.BINARY:
                return low_raw, high_raw, False
        if vt == VariantType.UUID:
            return bytes(stats.min_raw), bytes(stats.max_raw), True
        low: Any = stats.min
        high: Any = stats.max
    except (ValueError, OverflowError, TypeError, ArithmeticError):
        # An out-of-range date or timestamp, a bound cut inside a UTF-8 character: unusable.
        return none
    if vt in (VariantType.FLOAT, VariantType.DOUBLE):
        low, high = float(low), float(high)
        if math.isnan(low) or math.isnan(high):
            return none
    elif vt == VariantType.BOOLEAN:
        low, high = bool(low), bool(high)
    elif vt in (VariantType.INT8, VariantType.INT16, VariantType.INT32, VariantType.INT64):
        low, high = int(low), int(high)
    expected = _BOUND_TYPES.get(vt)
    if expected is not None and not (isinstance(low, expected) and isinstance(high, expected)):
        return none  # pyarrow gave something else (an old writer's converted type): do not guess
    return low, high, physical != "BYTE_ARRAY"


def _row_group(
    metadata: pq.FileMetaData,
    index: int,
    leaves: list[LeafColumn],
    details: list[Mapping[str, Any]],
) -> RowGroupStatistics:
    group = metadata.row_group(index)
    num_rows = int(group.num_rows)
    columns: dict[str, ColumnStatistics | None] = {}
    for j, leaf in enumerate(leaves):
        chunk = group.column(j)
        stats = chunk.statistics if chunk.is_stats_set else None
        if stats is None or not stats.has_null_count:
            columns[leaf.column_path] = None
            continue
        low, high, exact = _bounds(stats, leaf, details[j])
        columns[leaf.column_path] = ColumnStatistics(
            column_path=leaf.column_path,
            num_rows=num_rows,
            null_count=int(stats.null_count),
            non_null_count=int(stats.num_values),
            min=low,
            max=high,
            bounds_exact=exact,
            repeated=leaf.repeated,
        )
    return RowGroupStatistics(row_group=index, num_rows=num_rows, columns=columns)


def file_statistics(metadata: pq.FileMetaData) -> FileStatistics:
    """The statistics of every row group and leaf column of a file, from its footer.

    Example:
        >>> import io, pyarrow as pa, pyarrow.parquet as pq
        >>> buf = io.BytesIO()
        >>> pq.write_table(pa.table({"a": [3, None, 5]}), buf, row_group_size=2)
        >>> stats = file_statistics(pq.ParquetFile(buf).metadata)
        >>> a = stats.row_groups[0].column("a")
        >>> a.num_rows, a.null_count, a.non_null_count, a.min, a.max, a.bounds_exact
        (2, 1, 1, 3, 3, True)
        >>> stats.merged.column("a").max
        5

    Args:
        metadata: the file's footer, as pyarrow reads it (``FileInfo.metadata``).

    Returns:
        A :class:`FileStatistics`; leaves are keyed by dotted path, as ``columns=`` takes them.
    """
    schema = metadata.schema
    leaves: list[LeafColumn] = []
    details: list[Mapping[str, Any]] = []
    for j in range(int(metadata.num_columns)):
        column = schema.column(j)
        leaves.append(_leaf_column(column))
        details.append(_logical(column)[1])
    groups = tuple(_row_group(metadata, i, leaves, details) for i in range(int(metadata.num_row_groups)))
    return FileStatistics(
        num_rows=int(metadata.num_rows),
        row_groups=groups,
        leaves={leaf.column_path: leaf for leaf in leaves},
    )
