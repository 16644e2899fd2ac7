"""Seven queries over a shredded event log, on vpush, DuckDB and Spark reading the same files,
against a lower bound, side by side in one run.

    .venv/bin/python bench/queries.py [--rows 5000000] [--files 10] [--row-group-rows N]
        [--repeat 9] [--dir build/bench/queries] [--out docs/bench] [--no-payload]
        [--skip-spark] [--skip-json] [--only Q1,Q6] [--engines "vpush on Spark,Spark"] [--verbose]

The data is ``vpush sample events`` (``ts`` grows with ``id`` across row groups and files; by
default 5 row groups per file, so about 50), generated once under ``--dir`` in a folder named
after its parameters and reused. ``--no-payload`` uses the log without the unshredded
``payload``: the top-level residual ``value`` is then all-null and DuckDB's own fast path (typed
reads, row-group pruning) works. The window is the middle 1% of the span of ``ts`` from the
footers. The queries, written once as Spark SQL:

- Q1 the count of the events in the window (``variant_get``);
- Q2 ``sum(amount)`` grouped by ``type``;
- Q3 one user's events (``event:user.id::bigint = ...``);
- Q4 the top 10 countries for purchases;
- Q5 the count where ``try_variant_get(event, '$.status', 'bigint') = 404`` (``status`` holds
  residual strings in a few row groups);
- Q6 the top referrers of the window, from the unshredded ``payload``;
- Q7 ``to_json(event)`` of the first 100 events of the window.

Engines:

- vpush, through the public API, runs the Spark SQL text (planning is timed);
- DuckDB runs the same query in its own SQL over ``read_parquet`` (``event`` as VARIANT), in the
  ``TRY_CAST(event.path AS type)`` form it pushes into shredded scans;
- DuckDB on JSON text, the baseline with no Variant at all: the same rows in a copy whose
  ``event`` is a string column holding DuckDB's JSON of each event (same files and row groups,
  written once beside the log, see ``common.ensure_json_copy``), queried with ``->>`` and casts;
- Spark runs the Spark SQL text natively (``spark.read.parquet``, local[2]);
- the lower bound is defined so that it cannot be tuned: each run reads the footers, keeps the
  row groups whose statistics might match the WHERE's range conjuncts by the same safety rule
  (a ``typed_value``'s min/max is trusted only where its sibling ``value`` is all-null in that
  row group), reads only the needed leaves (``read_row_group(columns=leaves, use_threads=True)``,
  string leaves as dictionaries, a ``value`` leaf and the metadata only where the footer shows
  residuals), decodes residual rows with vpush's codec only where the query needs them (a
  path of the unshredded ``payload`` only for the rows that pass the range conjuncts), and lets
  DuckDB compute the answer over the Arrow result. Q7 takes two passes: the 100 ids from the
  ``id`` and ``ts`` leaves, then only those rows rebuilt (``vpush.codec``'s ``unshred`` and
  ``to_json``) from their row groups.

Every answer is compared with Spark's (the lower bound's with ``--skip-spark``); DuckDB's JSON
(Q7, on VARIANT and on JSON text) is compared after parsing, its ``+00`` offsets read as Spark's ``+00:00``. Per query the
engines run in turn, one run each per round after one warm-up each (DuckDB's warm-up is
``EXPLAIN ANALYZE``, which counts the row groups it scans), so that a change in the load of this
shared machine falls on all of them; a baseline (DuckDB, DuckDB on JSON text, Spark, vpush on
Spark) whose warm-up takes over 2 s runs 3 rounds only, to keep ``make bench`` short. Times and bytes are medians; bytes read are the
``rchar`` of the process (the JVM's for Spark) during a run; ratios are to the lower bound of
the same run. Row groups read: vpush from its plan, DuckDB from its profile, Spark from the
records its scan output.

Targets (issue C): vpush within 1.5x of the lower bound on every query; on the log without the
payload, also within 1.2x of DuckDB's time (or 5 ms). The exit status is 0 when every target
holds and every answer agrees, else 1, with one line per missed target. A query vpush does not
support yet is shown as such and leaves its target pending. Results go to ``--out``/queries.md
and queries.json (``queries-nopayload.*`` with ``--no-payload``).
"""

from __future__ import annotations

import argparse
import decimal
import json
import math
import os
import re
import sys
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from rich.console import Console

import vpush
from common import (
    update_readme,
    BYTES_PER_MB,
    LazySpark,
    Runner,
    ensure_events,
    ensure_json_copy,
    events_folder_name,
    first_line,
    footer_facts,
    jvm_pid,
    make_console,
    markdown_table,
    measure_interleaved,
    micros,
    part_files,
    print_notes,
    print_table,
    ratio,
    spark_scan_metrics,
    timestamp_literal,
    versions as run_versions,
)
from vpush.codec import native as codec_native
from vpush.codec.json import to_json
from vpush.codec.layout import find_variant_columns
from vpush.codec.native import NativeUnsupportedError, extract_native
from vpush.codec.rebuild_variants import rebuild_variants
from vpush.codec.value import Variant
from vpush.optimizer.plan import LeafInput

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from vpush.optimizer.plan import Plan

WINDOW_SHARE = 0.01
ROW_GROUPS_PER_FILE = 5  # the default --row-group-rows gives about 50 row groups for 10 files
USER_ID = 123_456  # a user of the long tail: about 70 events in 5M
FIRST_EVENTS = 100
BOUND_TARGET = 1.5  # vpush's time at most this many times the lower bound's
DUCKDB_TARGET = 1.2  # without the payload: vpush's time at most this many times DuckDB's ...
DUCKDB_SLACK_SECONDS = 0.005  # ... or at most this much slower
SLOW_SECONDS = 2.0  # a baseline (DuckDB, Spark) whose warm-up takes longer runs SLOW_REPEAT rounds only
SLOW_REPEAT = 3
VARIANT = "event"
METADATA_LEAF = "event.metadata"
VALUE_LEAF = "event.value"
SPARK_CONF = {"spark.driver.memory": "2g", "spark.sql.session.timeZone": "UTC"}
BOUND, VPUSH, VPUSH_SPARK, DUCKDB, SPARK = "lower bound", "vpush", "vpush on Spark", "DuckDB", "Spark"
JSON_TEXT = "DuckDB on JSON text"
ENGINES = (BOUND, VPUSH, VPUSH_SPARK, DUCKDB, JSON_TEXT, SPARK)
SPARK_ENGINES = (VPUSH_SPARK, SPARK)
SPARK_SKIP_TARGET = 3.0  # vpush on Spark at least this many times faster than Spark where row groups are skipped
_DUCKDB_ROW_GROUPS = re.compile(r"Row Groups Scanned:\s*([\d,]+)\s*/\s*([\d,]+)")
_DUCKDB_OFFSET = re.compile(r'("\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?[+-]\d\d)"')
_INTEGRAL = re.compile(r"\s*[+-]?\d+\s*")

# Arrow types of the columns the lower bound hands to DuckDB, by kind.
KIND_TYPES: dict[str, pa.DataType] = {
    "timestamp": pa.timestamp("us", tz="UTC"),
    "string": pa.dictionary(pa.int32(), pa.string()),
    "bigint": pa.int64(),
    "decimal": pa.decimal128(10, 2),
}


# ----------------------------------------------------------------------------- the queries


@dataclass(frozen=True)
class Leaf:
    """A column the lower bound reads: a shredded field of ``event`` (its ``typed_value`` leaf,
    and its ``value`` leaf where the footer shows residuals) or, with no path, a top-level
    column of that name."""

    name: str
    path: tuple[str, ...]
    kind: str

    @property
    def typed(self) -> str:
        return self._leaf("typed_value")

    @property
    def value(self) -> str:
        return self._leaf("value")

    def _leaf(self, last: str) -> str:
        if not self.path:
            return self.name
        return ".".join([VARIANT, *(f"typed_value.{name}" for name in self.path), last])


@dataclass(frozen=True)
class Range:
    """A conjunct of the WHERE that footer statistics can rule out: ``lo <= leaf < hi``, or
    ``lo <= leaf <= hi`` when ``closed`` (an equality has ``lo == hi``)."""

    leaf: Leaf
    lo: Any
    hi: Any
    closed: bool = False


@dataclass(frozen=True)
class Residual:
    """A path of the unshredded residual (``event.value``), decoded as a string only for the
    rows that pass every range."""

    name: str
    path: tuple[str, ...]


@dataclass(frozen=True)
class Bound:
    """How the lower bound answers a query: the leaves it reads, the range conjuncts that select
    row groups (and rows, before residuals are decoded), the DuckDB SQL over the Arrow result
    ``t``, and for Q7 the second pass."""

    leaves: tuple[Leaf, ...]
    sql: str
    ranges: tuple[Range, ...] = ()
    residual: Residual | None = None
    rebuild_sql: str | None = None
    """Two passes: ``sql`` returns ``id`` and ``origin`` (the row group) of the rows wanted; those
    rows are rebuilt as ``id, event_json`` and this SQL runs over them."""


@dataclass(frozen=True)
class Query:
    name: str
    title: str
    spark: str
    duckdb: str
    """DuckDB's SQL, with ``{source}`` for the ``read_parquet(...)``."""
    bound: Bound
    json: str
    """DuckDB's SQL over the JSON-text copy (``event`` a string), with ``{source}`` as above."""
    json_columns: tuple[int, ...] = ()


ID = Leaf("id", (), "bigint")
TS = Leaf("ts", ("ts",), "timestamp")
TYPE = Leaf("type", ("type",), "string")
AMOUNT = Leaf("amount", ("amount",), "decimal")
USER = Leaf("user_id", ("user", "id"), "bigint")
COUNTRY = Leaf("country", ("user", "country"), "string")
STATUS = Leaf("status", ("status",), "bigint")


def make_queries(lo: int, hi: int) -> list[Query]:
    """The seven queries for the window ``[lo, hi)`` (microseconds since the epoch, UTC)."""
    lo_text, hi_text = timestamp_literal(lo), timestamp_literal(hi)
    spark_window = (
        f"variant_get(event, '$.ts', 'timestamp') >= TIMESTAMP '{lo_text}' "
        f"AND variant_get(event, '$.ts', 'timestamp') < TIMESTAMP '{hi_text}'"
    )
    spark_window_path = (
        f"event:ts::timestamp >= TIMESTAMP '{lo_text}' AND event:ts::timestamp < TIMESTAMP '{hi_text}'"
    )
    duck_ts = "TRY_CAST(event.ts AS TIMESTAMPTZ)"
    duck_window = f"{duck_ts} >= TIMESTAMPTZ '{lo_text}+00' AND {duck_ts} < TIMESTAMPTZ '{hi_text}+00'"
    bound_window = f"ts >= TIMESTAMPTZ '{lo_text}+00' AND ts < TIMESTAMPTZ '{hi_text}+00'"
    json_ts = "TRY_CAST(event->>'$.ts' AS TIMESTAMPTZ)"
    json_window = f"{json_ts} >= TIMESTAMPTZ '{lo_text}+00' AND {json_ts} < TIMESTAMPTZ '{hi_text}+00'"
    json_amount = "TRY_CAST(event->>'$.amount' AS DECIMAL(10,2))"
    window = Range(TS, lo, hi)
    return [
        Query(
            "Q1",
            "count in a 1% time window",
            f"SELECT count(*) AS events FROM events WHERE {spark_window}",
            f"SELECT count(*) AS events FROM {{source}} WHERE {duck_window}",
            Bound((TS,), f"SELECT count(*) AS events FROM t WHERE {bound_window}", (window,)),
            f"SELECT count(*) AS events FROM {{source}} WHERE {json_window}",
        ),
        Query(
            "Q2",
            "sum(amount) grouped by type",
            "SELECT event:type::string AS type, sum(event:amount::decimal(10,2)) AS amount "
            "FROM events GROUP BY event:type::string ORDER BY type",
            "SELECT TRY_CAST(event.type AS VARCHAR) AS type, "
            "sum(TRY_CAST(event.amount AS DECIMAL(10,2))) AS amount FROM {source} GROUP BY 1 ORDER BY type",
            Bound((TYPE, AMOUNT), "SELECT type, sum(amount) AS amount FROM t GROUP BY type ORDER BY type"),
            f"SELECT event->>'$.type' AS type, sum({json_amount}) AS amount FROM {{source}} GROUP BY 1 ORDER BY type",
        ),
        Query(
            "Q3",
            "one user's events",
            "SELECT id, event:ts::timestamp AS ts, event:type::string AS type, "
            f"event:amount::decimal(10,2) AS amount FROM events WHERE event:user.id::bigint = {USER_ID} "
            "ORDER BY id",
            f"SELECT id, {duck_ts} AS ts, TRY_CAST(event.type AS VARCHAR) AS type, "
            "TRY_CAST(event.amount AS DECIMAL(10,2)) AS amount FROM {source} "
            f"WHERE TRY_CAST(event.user.id AS BIGINT) = {USER_ID} ORDER BY id",
            Bound(
                (ID, TS, TYPE, AMOUNT, USER),
                f"SELECT id, ts, type, amount FROM t WHERE user_id = {USER_ID} ORDER BY id",
                (Range(USER, USER_ID, USER_ID, closed=True),),
            ),
            f"SELECT id, {json_ts} AS ts, event->>'$.type' AS type, {json_amount} AS amount FROM {{source}} "
            f"WHERE TRY_CAST(event->>'$.user.id' AS BIGINT) = {USER_ID} ORDER BY id",
        ),
        Query(
            "Q4",
            "top 10 countries for purchases",
            "SELECT event:user.country::string AS country, count(*) AS purchases FROM events "
            "WHERE event:type::string = 'purchase' GROUP BY event:user.country::string "
            "ORDER BY purchases DESC, country LIMIT 10",
            "SELECT TRY_CAST(event.user.country AS VARCHAR) AS country, count(*) AS purchases "
            "FROM {source} WHERE TRY_CAST(event.type AS VARCHAR) = 'purchase' GROUP BY 1 "
            "ORDER BY purchases DESC, country LIMIT 10",
            Bound(
                (TYPE, COUNTRY),
                "SELECT country, count(*) AS purchases FROM t WHERE type = 'purchase' GROUP BY country "
                "ORDER BY purchases DESC, country LIMIT 10",
                (Range(TYPE, "purchase", "purchase", closed=True),),
            ),
            "SELECT event->>'$.user.country' AS country, count(*) AS purchases FROM {source} "
            "WHERE event->>'$.type' = 'purchase' GROUP BY 1 ORDER BY purchases DESC, country LIMIT 10",
        ),
        Query(
            "Q5",
            "count where status = 404 (try_variant_get)",
            "SELECT count(*) AS events FROM events WHERE try_variant_get(event, '$.status', 'bigint') = 404",
            "SELECT count(*) AS events FROM {source} WHERE TRY_CAST(event.status AS BIGINT) = 404",
            Bound((STATUS,), "SELECT count(*) AS events FROM t WHERE status = 404", (Range(STATUS, 404, 404, True),)),
            "SELECT count(*) AS events FROM {source} WHERE TRY_CAST(event->>'$.status' AS BIGINT) = 404",
        ),
        Query(
            "Q6",
            "top referrers of the window, from the unshredded payload",
            "SELECT event:payload.referrer::string AS referrer, count(*) AS events FROM events "
            f"WHERE {spark_window_path} AND event:payload.referrer::string IS NOT NULL "
            "GROUP BY event:payload.referrer::string ORDER BY events DESC, referrer LIMIT 10",
            "SELECT TRY_CAST(event.payload.referrer AS VARCHAR) AS referrer, count(*) AS events "
            f"FROM {{source}} WHERE {duck_window} AND TRY_CAST(event.payload.referrer AS VARCHAR) IS NOT NULL "
            "GROUP BY 1 ORDER BY events DESC, referrer LIMIT 10",
            Bound(
                (TS,),
                f"SELECT referrer, count(*) AS events FROM t WHERE {bound_window} AND referrer IS NOT NULL "
                "GROUP BY referrer ORDER BY events DESC, referrer LIMIT 10",
                (window,),
                residual=Residual("referrer", ("payload", "referrer")),
            ),
            "SELECT event->>'$.payload.referrer' AS referrer, count(*) AS events "
            f"FROM {{source}} WHERE {json_window} AND event->>'$.payload.referrer' IS NOT NULL "
            "GROUP BY 1 ORDER BY events DESC, referrer LIMIT 10",
        ),
        Query(
            "Q7",
            f"to_json(event) of the first {FIRST_EVENTS} events of the window",
            f"SELECT id, to_json(event) AS event_json FROM events WHERE {spark_window_path} "
            f"ORDER BY id LIMIT {FIRST_EVENTS}",
            f"SELECT id, CAST(event AS JSON) AS event_json FROM {{source}} WHERE {duck_window} "
            f"ORDER BY id LIMIT {FIRST_EVENTS}",
            Bound(
                (ID, TS),
                f"SELECT id, origin FROM t WHERE {bound_window} ORDER BY id LIMIT {FIRST_EVENTS}",
                (window,),
                rebuild_sql="SELECT id, event_json FROM t ORDER BY id",
            ),
            f"SELECT id, event AS event_json FROM {{source}} WHERE {json_window} ORDER BY id LIMIT {FIRST_EVENTS}",
            json_columns=(1,),
        ),
    ]


# ----------------------------------------------------------------------------- the lower bound


def _all_null(group: pq.RowGroupMetaData, index: dict[str, int], path: str) -> bool:
    """The footer proves the column chunk holds nulls only."""
    stats = group.column(index[path]).statistics
    return stats is not None and stats.has_null_count and stats.null_count == group.num_rows


def _stat_key(leaf: Leaf, value: Any) -> Any:
    return micros(value) if leaf.kind == "timestamp" else value


def _might_match(group: pq.RowGroupMetaData, index: dict[str, int], rng: Range) -> bool:
    """The safety rule: ``typed_value`` bounds are trusted only where the sibling ``value`` is
    all-null in the row group; a field all-null there (missing from every row) cannot match."""
    leaf = rng.leaf
    if leaf.path and not _all_null(group, index, leaf.value):
        return True
    stats = group.column(index[leaf.typed]).statistics
    if stats is None:
        return True
    if stats.has_null_count and stats.null_count == group.num_rows:
        return False
    if not stats.has_min_max:
        return True
    low, high = _stat_key(leaf, stats.min), _stat_key(leaf, stats.max)
    if high < rng.lo:
        return False
    return low <= rng.hi if rng.closed else low < rng.hi


def _column(table: pa.Table, dotted: str) -> pa.ChunkedArray:
    """A leaf of the nested table pyarrow reads, with the nulls of its parents."""
    names = dotted.split(".")
    column = table.column(names[0])
    if len(names) == 1:
        return column
    indices = []
    arrow_type = column.type
    for name in names[1:]:
        i = arrow_type.get_field_index(name)
        indices.append(i)
        arrow_type = arrow_type.field(i).type
    return pc.struct_field(column, indices)


def _residual_scalar(kind: str, variant: Variant, path: str) -> Any:
    """A residual value cast as ``try_variant_get`` does, for the values this data holds."""
    value = variant.to_python()
    if value is None:
        return None
    if kind == "bigint":
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            return int(value) if _INTEGRAL.fullmatch(value) else None
        if isinstance(value, decimal.Decimal) and value == value.to_integral_value():
            return int(value)
        return None
    if kind == "string" and isinstance(value, str):
        return value
    raise NotImplementedError(f"the lower bound does not cast a residual {type(value).__name__} at {path} to {kind}")


def _with_residuals(typed: pa.ChunkedArray, value: pa.ChunkedArray, metadata: pa.ChunkedArray, leaf: Leaf) -> pa.Array:
    """The typed leaf with its residual rows decoded by the codec (only those rows)."""
    typed_array = typed.combine_chunks()
    if pa.types.is_dictionary(typed_array.type):
        typed_array = typed_array.cast(typed_array.type.value_type)
    present = value.is_valid().combine_chunks()
    rows = np.flatnonzero(present.to_numpy(zero_copy_only=False))
    decoded = [
        _residual_scalar(leaf.kind, Variant(metadata[int(i)].as_py(), value[int(i)].as_py()), leaf.value)
        for i in rows
    ]
    filled = pc.replace_with_mask(typed_array, present, pa.array(decoded, typed_array.type))
    return filled.dictionary_encode() if leaf.kind == "string" else filled


def _short_strings(extracted: pa.StructArray, metadata: pa.Array) -> pa.Array:
    """The extracted values as strings: short strings (the header's basic_type 1) at once, by
    dropping each value's header byte from the buffer; any other value through the codec."""
    values = extracted.field("value")
    n = len(values)
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int32)[values.offset : values.offset + n + 1]
    data = values.buffers()[2]
    data_bytes = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    starts = offsets[:-1]
    nonempty = np.diff(offsets) > 0
    ok = extracted.is_valid().to_numpy(zero_copy_only=False) & nonempty
    headers = np.zeros(n, dtype=np.uint8)
    headers[ok] = data_bytes[starts[ok]]
    short = ok & ((headers & 3) == 1)
    header_at = np.zeros(len(data_bytes), dtype=bool)
    header_at[starts[nonempty]] = True
    new_offsets = offsets.copy()
    new_offsets[1:] -= np.cumsum(nonempty, dtype=np.int32)
    validity = pa.array(short).buffers()[1]
    out = pa.Array.from_buffers(
        pa.string(), n, [validity, pa.py_buffer(new_offsets), pa.py_buffer(data_bytes[~header_at])]
    )
    out.validate(full=True)  # UTF-8 of the strings kept
    others = np.flatnonzero(ok & ~short)
    if len(others):
        replaced = out.to_pylist()
        for i in others:
            replaced[i] = _residual_scalar("string", Variant(metadata[int(i)].as_py(), values[int(i)].as_py()), "$")
        out = pa.array(replaced, pa.string())
    return out


def _to_json(event: pa.StructArray) -> pa.Array:
    """Spark's ``to_json`` of rebuilt variants: the codec's compiled kernel where the codec has
    one, else its reference row by row."""
    metadata, value = event.field("metadata"), event.field("value")
    kernel = getattr(codec_native, "to_json_native", None)
    if kernel is not None:
        try:
            return pc.if_else(event.is_valid(), kernel(metadata, value, time_zone="UTC"), pa.scalar(None, pa.string()))
        except NativeUnsupportedError:
            pass
    texts = [
        to_json(m, v, time_zone="UTC") if ok and m is not None else None
        for ok, m, v in zip(event.is_valid().to_pylist(), metadata.to_pylist(), value.to_pylist())
    ]
    return pa.array(texts, pa.string())


@dataclass
class _Read:
    """What one run of the lower bound read."""

    row_groups: set[tuple[str, int]] = field(default_factory=set)


class LowerBound:
    """Answers one query as the issue defines the lower bound (see the module's docstring)."""

    def __init__(self, files: Sequence[Path], bound: Bound) -> None:
        self.files = [str(f) for f in files]
        self.bound = bound
        self.con = duckdb.connect()
        self.con.execute("SET TimeZone = 'UTC'")
        self.last = _Read()

    def _schema(self) -> pa.Schema:
        fields = [pa.field(leaf.name, KIND_TYPES[leaf.kind]) for leaf in self.bound.leaves]
        if self.bound.residual is not None:
            fields.append(pa.field(self.bound.residual.name, pa.string()))
        if self.bound.rebuild_sql is not None:
            fields.append(pa.field("origin", pa.int32()))
        return pa.schema(fields)

    def run(self) -> pa.Table:
        bound = self.bound
        read = _Read()
        schema = self._schema()
        dictionary_leaves = [leaf.typed for leaf in bound.leaves if leaf.kind == "string"]
        batches: list[pa.RecordBatch] = []
        origins: list[tuple[pq.ParquetFile, str, int]] = []
        for path in self.files:
            # The footer is read here, inside the timed run.
            parquet = pq.ParquetFile(path, read_dictionary=dictionary_leaves or None)
            meta = parquet.metadata
            if not meta.num_row_groups:
                continue
            first = meta.row_group(0)
            index = {first.column(c).path_in_schema: c for c in range(first.num_columns)}
            for rg in range(meta.num_row_groups):
                group = meta.row_group(rg)
                if not all(_might_match(group, index, rng) for rng in bound.ranges):
                    continue
                residual_leaves = {leaf for leaf in bound.leaves if leaf.path and not _all_null(group, index, leaf.value)}
                top = bound.residual is not None and not _all_null(group, index, VALUE_LEAF)
                columns = [leaf.typed for leaf in bound.leaves]
                columns += [leaf.value for leaf in bound.leaves if leaf in residual_leaves]
                if residual_leaves or top:
                    columns.append(METADATA_LEAF)
                if top:
                    columns.append(VALUE_LEAF)
                table = parquet.read_row_group(rg, columns=columns, use_threads=True)
                read.row_groups.add((path, rg))
                metadata = _column(table, METADATA_LEAF) if residual_leaves or top else None
                arrays: list[pa.Array | pa.ChunkedArray] = []
                for leaf in bound.leaves:
                    typed = _column(table, leaf.typed)
                    if leaf in residual_leaves:
                        assert metadata is not None
                        arrays.append(_with_residuals(typed, _column(table, leaf.value), metadata, leaf))
                    else:
                        arrays.append(typed)
                if bound.residual is not None:
                    arrays = self._decode_residual(table, arrays, metadata if top else None)
                if bound.rebuild_sql is not None:
                    origins.append((parquet, path, rg))
                    arrays.append(pa.repeat(pa.scalar(len(origins) - 1, pa.int32()), len(arrays[0])))
                columns_out = [a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in arrays]
                batches.append(pa.RecordBatch.from_arrays(columns_out, schema=schema))
        self.con.register("t", pa.Table.from_batches(batches, schema=schema))
        try:
            result = self.con.sql(bound.sql).to_arrow_table()
        finally:
            self.con.unregister("t")
        if bound.rebuild_sql is not None:
            result = self._rebuild(result, origins, read)
        self.last = read
        return result

    def _decode_residual(
        self, table: pa.Table, arrays: list[pa.Array | pa.ChunkedArray], metadata: pa.ChunkedArray | None
    ) -> list[pa.Array | pa.ChunkedArray]:
        """The leaves cut down to the rows that pass every range, plus the residual path decoded
        for those rows only (nulls where the footer shows no residual at all)."""
        assert self.bound.residual is not None
        keep: pa.Array | None = None
        for rng in self.bound.ranges:
            column = arrays[self.bound.leaves.index(rng.leaf)]
            lo, hi = self._literal(rng.leaf, rng.lo), self._literal(rng.leaf, rng.hi)
            upper = pc.less_equal(column, hi) if rng.closed else pc.less(column, hi)
            passed = pc.and_(pc.greater_equal(column, lo), upper)
            keep = passed if keep is None else pc.and_(keep, passed)
        if keep is not None:
            arrays = [pc.filter(a, keep) for a in arrays]
        n = len(arrays[0])
        if metadata is None:
            return [*arrays, pa.nulls(n, pa.string())]
        value = _column(table, VALUE_LEAF)
        if keep is not None:
            metadata, value = pc.filter(metadata, keep), pc.filter(value, keep)
        meta_array, value_array = metadata.combine_chunks(), value.combine_chunks()
        extracted = extract_native(meta_array, value_array, self.bound.residual.path)
        return [*arrays, _short_strings(extracted, meta_array)]

    @staticmethod
    def _literal(leaf: Leaf, value: Any) -> pa.Scalar:
        if leaf.kind == "timestamp":
            return pa.scalar(value, pa.timestamp("us", tz="UTC"))
        return pa.scalar(value)

    def _rebuild(
        self, picked: pa.Table, origins: list[tuple[pq.ParquetFile, str, int]], read: _Read
    ) -> pa.Table:
        """Q7's second pass: only the picked rows rebuilt, as Spark's ``to_json`` writes them."""
        assert self.bound.rebuild_sql is not None
        ids = picked.column("id")
        pieces: list[pa.Table] = []
        for origin in sorted(set(picked.column("origin").to_pylist())):
            parquet, path, rg = origins[origin]
            wanted = pc.filter(ids, pc.equal(picked.column("origin"), origin))
            table = parquet.read_row_group(rg, columns=["id", VARIANT], use_threads=True)
            read.row_groups.add((path, rg))
            rows = table.filter(pc.is_in(table.column("id"), value_set=wanted.combine_chunks()))
            layout = find_variant_columns(parquet, file=path)[VARIANT]
            event = rebuild_variants(layout, rows.column(VARIANT).combine_chunks(), file=path)
            pieces.append(pa.table({"id": rows.column("id"), "event_json": _to_json(event)}))
        schema = pa.schema([("id", pa.int64()), ("event_json", pa.string())])
        rebuilt = pa.concat_tables(pieces) if pieces else schema.empty_table()
        self.con.register("t", rebuilt)
        try:
            return self.con.sql(self.bound.rebuild_sql).to_arrow_table()
        finally:
            self.con.unregister("t")


# ----------------------------------------------------------------------------- engines


@dataclass
class Result:
    """One engine's line of the table for one query."""

    query: str
    engine: str
    rows: int | None = None
    seconds: float | None = None
    bytes_read: int | None = None
    row_groups_read: int | None = None
    row_groups_total: int | None = None
    times: list[float] = field(default_factory=list)
    agrees: bool | None = None
    note: str = ""
    error: str | None = None
    unsupported: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None and self.seconds is not None


@dataclass(frozen=True)
class Dataset:
    folder: Path
    files: tuple[Path, ...]
    file_bytes: tuple[int, ...]
    rows: int
    row_groups: int
    ts_min: int
    ts_max: int
    generated_seconds: float | None
    generated_now: bool
    json_folder: Path | None = None
    """The JSON-text copy (see ``common.ensure_json_copy``), if wanted."""
    json_seconds: float | None = None
    json_now: bool = False

    @property
    def json_bytes(self) -> int:
        return sum(p.stat().st_size for p in part_files(self.json_folder)) if self.json_folder else 0


def load_dataset(
    folder_parent: Path,
    rows: int,
    files: int,
    row_group_rows: int | None,
    payload: bool,
    json_copy: bool,
    console: Console,
    spark: Callable[[], SparkSession],
) -> Dataset:
    """The sample event log of these parameters (written unless a finished one is there), and its
    JSON-text copy when ``json_copy``; by default ``ROW_GROUPS_PER_FILE`` row groups per file."""
    from vpush.sample import EventsSpec

    if row_group_rows is None:
        row_group_rows = max(1, rows // (files * ROW_GROUPS_PER_FILE))
    folder = folder_parent / events_folder_name(rows, files, row_group_rows, "duckdb", payload)
    spec = EventsSpec(rows=rows, files=files, row_group_rows=row_group_rows, payload=payload)
    generated, generated_now = ensure_events(folder, spec, console, spark)
    paths = part_files(folder)
    facts = footer_facts(paths, TS.typed)
    json_folder, json_seconds, json_now = ensure_json_copy(folder, console) if json_copy else (None, None, False)
    return Dataset(
        folder=folder,
        files=paths,
        file_bytes=tuple(p.stat().st_size for p in paths),
        rows=facts.rows,
        row_groups=facts.row_groups,
        ts_min=facts.leaf_min,
        ts_max=facts.leaf_max,
        generated_seconds=generated,
        generated_now=generated_now,
        json_folder=json_folder,
        json_seconds=json_seconds,
        json_now=json_now,
    )


def window(data: Dataset) -> tuple[int, int]:
    """The middle ``WINDOW_SHARE`` of the span of ``ts``, in microseconds since the epoch."""
    span = data.ts_max - data.ts_min
    lo = data.ts_min + span // 2
    return lo, lo + math.ceil(span * WINDOW_SHARE)


def plan_bytes(plan: Plan) -> int:
    """The bytes a plan's scans read, from the footers: each file's footer, and the compressed
    column chunks of the leaves read in each row group kept (the top-level columns read, every
    leaf of a rebuilt level, each leaf input unless the footer shows it all-null there)."""
    total = 0
    for scan in plan.scans:
        parts = scan.parts or (None,)
        for part in parts:
            files = part.files if part is not None else scan.files
            for file in files:
                if not file.row_groups:
                    continue
                meta = pq.ParquetFile(file.path).metadata
                total += meta.serialized_size
                for rg in file.row_groups:
                    group = meta.row_group(rg)
                    unread = file.unread.get(rg, frozenset())
                    prefixes = [c + "." for c in file.columns]
                    exact = set(file.columns)
                    if part is not None:
                        for item in part.inputs:
                            if item.name in unread:
                                continue
                            if isinstance(item, LeafInput):
                                exact.add(item.path)
                            else:
                                layout = file.input_layouts[item.column]
                                level = layout.level(item.level) if item.level else layout
                                if level is not None:
                                    prefixes.append(level.path + ".")
                                    exact.add(level.path)
                                if layout.metadata is not None:
                                    exact.add(layout.metadata)
                    for c in range(group.num_columns):
                        chunk = group.column(c)
                        path = chunk.path_in_schema
                        if path in exact or any(path.startswith(p) for p in prefixes):
                            total += chunk.total_compressed_size
    return total


def _plan_row_groups(plan: Plan) -> tuple[int, int]:
    read = sum(len(f.row_groups) for s in plan.scans for f in s.files)
    total = sum(f.num_row_groups for s in plan.scans for f in s.files)
    return read, total


def _canonical_json(text: Any) -> Any:
    """DuckDB's JSON of a variant, for comparison: parsed, with decimals exact and its ``+00``
    offsets read as Spark's ``+00:00``."""
    if not isinstance(text, str):
        return text
    return json.loads(_DUCKDB_OFFSET.sub(r'\1:00"', text), parse_float=decimal.Decimal)


def _rows(table: pa.Table) -> list[tuple[Any, ...]]:
    return [tuple(row.values()) for row in table.to_pylist()]


@dataclass
class _Entry:
    """One engine's part in one query: its line of the table, its runner (None when it cannot
    run: the line says why), and what to fill in from its runs."""

    result: Result
    runner: Runner | None = None
    finish: Callable[[], None] = lambda: None
    json_answer: bool = False
    """Whether its JSON column is DuckDB's rendering, compared after parsing."""


class _Engines:
    """The engines' runners for one query at a time, set up once (connections, registrations);
    ``engines`` says which take part."""

    def __init__(
        self,
        data: Dataset,
        spark: LazySpark | None,
        console: Console,
        verbose: bool,
        engines: Sequence[str] = ENGINES,
    ) -> None:
        self.data = data
        self.console = console
        self.verbose = verbose
        self.engines = [e for e in ENGINES if e in engines]
        self.vpush = vpush.connect(time_zone="UTC")
        self.vpush.register("events", data.folder)
        self.duck = duckdb.connect()
        self.duck.execute("SET TimeZone = 'UTC'")
        self.duck.execute("SET enable_progress_bar = false")
        self.source = _read_parquet(data.folder)
        self.json_source = _read_parquet(data.json_folder) if data.json_folder is not None else None
        self.spark_session: SparkSession | None = None
        self.spark_error: str | None = None
        self.vpush_spark: vpush.Connection | None = None
        if spark is not None and any(e in SPARK_ENGINES for e in self.engines):
            try:
                self.spark_session = spark()
                self.spark_session.read.parquet(str(data.folder)).createOrReplaceTempView("events")
                self.vpush_spark = vpush.connect(engine="spark", spark=self.spark_session, time_zone="UTC")
                self.vpush_spark.register("events", data.folder)
            except Exception as exc:  # noqa: BLE001 - py4j and JVM failures share no base; the others still run
                self.spark_error = f"not available ({first_line(exc)})"
        if self.spark_session is None and self.spark_error is None:
            self.engines = [e for e in self.engines if e not in SPARK_ENGINES]
        if self.json_source is None:
            self.engines = [e for e in self.engines if e != JSON_TEXT]

    def entry(self, engine: str, query: Query) -> _Entry:
        """The engine's runner for the query, and what to fill in once its runs are done."""
        result = Result(query.name, engine)
        if engine == BOUND:
            bound = LowerBound(self.data.files, query.bound)

            def bound_finish() -> None:
                result.row_groups_read, result.row_groups_total = len(bound.last.row_groups), self.data.row_groups

            return _Entry(result, Runner(bound.run), bound_finish)
        if engine == VPUSH:
            try:
                relation = self.vpush.sql(query.spark)
                relation.plan.sql("duckdb")  # a query vpush cannot run yet is refused here
            except vpush.VpushError as exc:
                message = first_line(exc)
                result.unsupported = "not supported" in message
                result.error = ("not supported yet" if result.unsupported else "failed") + f" ({message})"
                return _Entry(result)
            result.row_groups_read, result.row_groups_total = _plan_row_groups(relation.plan)
            if self.verbose:
                self.console.print(relation.explain(), markup=False, highlight=False)
            return _Entry(result, Runner(lambda: self.vpush.sql(query.spark).to_arrow()))
        if engine in SPARK_ENGINES and self.spark_session is None:
            result.error = self.spark_error or "not available"
            return _Entry(result)
        if engine == VPUSH_SPARK:
            connection = self.vpush_spark
            assert connection is not None
            try:
                plan = connection.sql(query.spark).plan
            except vpush.VpushError as exc:
                result.error = f"failed ({first_line(exc)})"
                return _Entry(result)
            result.row_groups_read, result.row_groups_total = _plan_row_groups(plan)
            # Its tasks read in Python workers that send Arrow batches to the JVM over a socket:
            # rchar of the process tree counts those batches again (the JVM reads the socket), and
            # a worker that exits takes its count along. Its MB read are therefore the column
            # chunks (and footers) its tasks read, from the footers, set after the runs.
            result.note = "MB read: the column chunks and footers its tasks read, from the footers"

            def on_spark_finish() -> None:
                result.bytes_read = plan_bytes(plan)

            return _Entry(result, Runner(lambda: connection.sql(query.spark).to_arrow(), may_shorten=True),
                          on_spark_finish)  # fmt: skip
        if engine in (DUCKDB, JSON_TEXT):
            source = self.source if engine == DUCKDB else self.json_source
            assert source is not None
            sql = (query.duckdb if engine == DUCKDB else query.json).format(source=source)
            profile: list[str] = []

            def duck_warm_up() -> None:
                rows = self.duck.sql("EXPLAIN ANALYZE " + sql).fetchall()
                profile[:] = [str(v) for row in rows for v in row]

            def duck_finish() -> None:
                scanned = _DUCKDB_ROW_GROUPS.findall("\n".join(profile))
                if scanned:
                    result.row_groups_read = sum(int(a.replace(",", "")) for a, _ in scanned)
                    result.row_groups_total = sum(int(b.replace(",", "")) for _, b in scanned)
                if self.verbose and profile:
                    self.console.print("\n".join(profile), markup=False, highlight=False)

            runner = Runner(lambda: self.duck.sql(sql).to_arrow_table(), warm_up=duck_warm_up, may_shorten=True)
            return _Entry(result, runner, duck_finish, json_answer=bool(query.json_columns))
        if engine == SPARK:
            session = self.spark_session
            assert session is not None
            frames: list[DataFrame] = []

            def spark_run() -> pa.Table:
                frame = session.sql(query.spark)
                frames[:] = [frame]
                return frame.toArrow()

            def spark_finish() -> None:
                if not frames:
                    return
                records = spark_scan_metrics(frames[0]).get("number of output rows")
                if records is not None:
                    result.note = f"{records:,}"
                    if records >= self.data.rows:
                        result.row_groups_read = result.row_groups_total = self.data.row_groups

            return _Entry(result, Runner(spark_run, pid=jvm_pid(session), may_shorten=True), spark_finish)
        raise ValueError(f"unknown engine {engine!r}")

    def run_query(self, query: Query, repeat: int) -> list[Result]:
        """Time one query on every engine, interleaved; fill in each engine's line."""
        entries = [self.entry(engine, query) for engine in self.engines]
        timed = [e for e in entries if e.runner is not None]
        runs = _measure_all([e.runner for e in timed if e.runner is not None], [e.result for e in timed],
                            repeat, self.console)  # fmt: skip
        answers: dict[str, list[tuple[Any, ...]]] = {}
        for entry, run in zip(timed, runs):
            if run is None:
                continue
            table: pa.Table = run.result
            result = entry.result
            answers[result.engine] = _rows(table)
            result.rows = table.num_rows
            result.seconds = run.seconds
            result.times = run.times
            result.bytes_read = run.bytes_read
            entry.finish()
        json_engines = {e.result.engine for e in entries if e.json_answer}
        compare_answers(query, [e.result for e in entries], answers, json_engines, self.console)
        return [e.result for e in entries]


def _read_parquet(folder: Path) -> str:
    glob = str(folder / "part-*.parquet").replace("'", "''")
    return f"read_parquet('{glob}')"


def compare_answers(
    query: Query,
    results: Sequence[Result],
    answers: dict[str, list[tuple[Any, ...]]],
    json_engines: Collection[str],
    console: Console,
) -> None:
    """Each result's ``agrees`` from its answer's rows, against Spark's (the lower bound's without
    Spark); the JSON columns of ``json_engines`` (DuckDB's rendering) are compared after parsing."""
    reference = SPARK if SPARK in answers else BOUND
    if reference not in answers:
        return
    for result in results:
        got = answers.get(result.engine)
        if got is None:
            continue
        want = answers[reference]
        if result.engine in json_engines and query.json_columns:
            got, want = _parsed(got, query.json_columns), _parsed(want, query.json_columns)
        result.agrees = got == want
        if not result.agrees:
            console.print(
                f"[bold red]ANSWER MISMATCH[/] {query.name}: {result.engine} differs from {reference}: "
                f"{_first_difference(got, want)}"
            )


def _parsed(rows: list[tuple[Any, ...]], json_columns: Sequence[int]) -> list[tuple[Any, ...]]:
    return [tuple(_canonical_json(v) if i in json_columns else v for i, v in enumerate(row)) for row in rows]


def _same_answer(a: pa.Table, b: pa.Table) -> bool:
    return bool(_rows(a) == _rows(b))


def _measure_all(runners: Sequence[Runner], results: Sequence[Result], repeat: int, console: Console) -> list[Any]:
    """The runs of every runner, interleaved; if one fails, each runner apart, so that one
    failing engine does not hide the others (its result gets the error, its runs None)."""
    try:
        return list(measure_interleaved(runners, repeat, same=_same_answer, slow_seconds=SLOW_SECONDS,
                                        slow_repeat=SLOW_REPEAT))  # fmt: skip
    except Exception as exc:  # noqa: BLE001 - any engine's failure; retried apart below
        console.print(f"interleaved runs failed ({first_line(exc)}); running each engine apart")
    out: list[Any] = []
    for result, runner in zip(results, runners):
        try:
            out.extend(measure_interleaved([runner], repeat, same=_same_answer, slow_seconds=SLOW_SECONDS,
                                           slow_repeat=SLOW_REPEAT))  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - reported in the table
            result.error = f"failed ({first_line(exc)})"
            out.append(None)
    return out


def _first_difference(got: list[tuple[Any, ...]], expected: list[tuple[Any, ...]]) -> str:
    if len(got) != len(expected):
        return f"{len(got)} rows, expected {len(expected)}"
    for i, (a, b) in enumerate(zip(got, expected)):
        if a != b:
            return f"row {i}: {a!r}, expected {b!r}"
    return "no difference"


# ----------------------------------------------------------------------------- report


HEADERS = ("query", "engine", "result rows", "row groups read", "MB read", "ms", "vs lower bound", "runs")


def _cells(r: Result, base: Result) -> list[str]:
    if r.error is not None:
        return [r.query, r.engine, r.error.split(" (")[0], "", "", "", "", ""]
    groups = ""
    if r.row_groups_read is not None and r.row_groups_total is not None:
        groups = f"{r.row_groups_read} of {r.row_groups_total}"
    answer = f"{r.rows:,}" if r.rows is not None else ""
    if r.agrees is False:
        answer += " (WRONG)"
    return [
        r.query,
        r.engine,
        answer,
        groups,
        f"{r.bytes_read / BYTES_PER_MB:,.2f}" if r.bytes_read is not None else "",
        f"{r.seconds * 1000:,.1f}" if r.seconds is not None else "",
        _ratio_text(r.seconds, base.seconds if base.ok else None),
        str(len(r.times)),
    ]


def _ratio_text(value: float | None, base: float | None) -> str:
    """Like ``ratio``, with two decimals near the targets."""
    if value is None or not base:
        return ""
    share = value / base
    return f"{share:.2f}x" if share < 10 else ratio(value, base)


@dataclass
class Verdict:
    query: str
    bound_ratio: float | None = None
    bound_met: bool | None = None
    duckdb_ratio: float | None = None
    duckdb_met: bool | None = None
    spark_speedup: float | None = None
    """Spark's time over vpush on Spark's."""
    spark_met: bool | None = None
    agree: bool = True
    pending: bool = False
    misses: list[str] = field(default_factory=list)


def _verdict(name: str, results: Sequence[Result], payload: bool) -> Verdict:
    by_engine = {r.engine: r for r in results}
    verdict = Verdict(name)
    bound, mine, duck = (by_engine.get(e, Result(name, e, error="not run")) for e in (BOUND, VPUSH, DUCKDB))
    for r in results:
        if r.agrees is False:
            verdict.agree = False
            verdict.misses.append(f"{name}: {r.engine}'s answer differs from the reference")
        if r.error is not None and r.engine in (BOUND, VPUSH) and not r.unsupported:
            verdict.misses.append(f"{name}: {r.engine} {r.error}")
    if mine.unsupported:
        verdict.pending = True
        return verdict
    if mine.ok and bound.ok:
        assert mine.seconds is not None and bound.seconds is not None
        verdict.bound_ratio = mine.seconds / bound.seconds
        verdict.bound_met = verdict.bound_ratio <= BOUND_TARGET
        if not verdict.bound_met:
            verdict.misses.append(
                f"{name}: vpush {mine.seconds * 1000:,.1f} ms is {verdict.bound_ratio:.2f}x the lower bound's "
                f"{bound.seconds * 1000:,.1f} ms (target: at most {BOUND_TARGET}x)"
            )
    if not payload and mine.ok and duck.ok:
        assert mine.seconds is not None and duck.seconds is not None
        verdict.duckdb_ratio = mine.seconds / duck.seconds
        allowed = max(duck.seconds * DUCKDB_TARGET, duck.seconds + DUCKDB_SLACK_SECONDS)
        verdict.duckdb_met = mine.seconds <= allowed
        if not verdict.duckdb_met:
            verdict.misses.append(
                f"{name}: vpush {mine.seconds * 1000:,.1f} ms is {verdict.duckdb_ratio:.2f}x DuckDB's "
                f"{duck.seconds * 1000:,.1f} ms (target: at most {DUCKDB_TARGET}x or "
                f"{DUCKDB_SLACK_SECONDS * 1000:.0f} ms more)"
            )
    elif not payload and not mine.unsupported and VPUSH in by_engine and DUCKDB in by_engine:
        verdict.duckdb_met = False
        verdict.misses.append(f"{name}: no DuckDB or vpush time to compare")
    _spark_verdict(verdict, by_engine)
    return verdict


def _spark_verdict(verdict: Verdict, by_engine: dict[str, Result]) -> None:
    """Issue D's targets: vpush on Spark reads fewer bytes than Spark, and is at least
    ``SPARK_SKIP_TARGET`` times faster where it skips row groups."""
    on_spark, spark = by_engine.get(VPUSH_SPARK), by_engine.get(SPARK)
    if on_spark is None or spark is None:
        return
    name = verdict.query
    if not (on_spark.ok and spark.ok):
        verdict.spark_met = False
        verdict.misses.append(f"{name}: no time for vpush on Spark or Spark to compare")
        return
    assert on_spark.seconds is not None and spark.seconds is not None
    verdict.spark_speedup = spark.seconds / on_spark.seconds
    skips = (on_spark.row_groups_read or 0) < (on_spark.row_groups_total or 0)
    fewer_bytes = (on_spark.bytes_read or 0) < (spark.bytes_read or 0)
    verdict.spark_met = fewer_bytes and (verdict.spark_speedup >= SPARK_SKIP_TARGET or not skips)
    if not fewer_bytes:
        verdict.misses.append(
            f"{name}: vpush on Spark read {(on_spark.bytes_read or 0) / BYTES_PER_MB:,.2f} MB, Spark "
            f"{(spark.bytes_read or 0) / BYTES_PER_MB:,.2f} MB (target: fewer)"
        )
    if skips and verdict.spark_speedup < SPARK_SKIP_TARGET:
        verdict.misses.append(
            f"{name}: vpush on Spark is {verdict.spark_speedup:.2f}x faster than Spark where it skips row groups "
            f"(target: at least {SPARK_SKIP_TARGET:.0f}x)"
        )


def _verdict_cells(v: Verdict, payload: bool, spark: bool) -> list[str]:
    def mark(value: float | None, met: bool | None) -> str:
        if v.pending:
            return "pending: not supported yet"
        if value is None:
            return "n/a"
        return f"{value:.2f}x {'met' if met else 'MISSED'}"

    cells = [v.query, mark(v.bound_ratio, v.bound_met)]
    if not payload:
        cells.append(mark(v.duckdb_ratio, v.duckdb_met))
    if spark:
        cells.append(
            "n/a" if v.spark_speedup is None else f"{v.spark_speedup:.1f}x faster {'met' if v.spark_met else 'MISSED'}"
        )
    cells.append("agree" if v.agree else "DISAGREE")
    return cells


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--row-group-rows", type=int, default=None,
                        help=f"default: rows / files / {ROW_GROUPS_PER_FILE}")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--dir", type=Path, default=Path("build") / "bench" / "queries")
    parser.add_argument("--out", type=Path, default=Path("docs") / "bench")
    parser.add_argument(
        "--readme", type=Path, default=Path("README.md"),
        help="where the summary table goes (between its bench markers), when --out is docs/bench",
    )
    parser.add_argument("--no-payload", dest="payload", action="store_false",
                        help="the log without the unshredded payload (DuckDB's fast path works)")  # fmt: skip
    parser.add_argument("--skip-spark", action="store_true", help="no Spark (answers checked against the lower bound)")
    parser.add_argument("--skip-json", action="store_true", help="no JSON-text copy (its engine left out)")
    parser.add_argument("--only", default="", help="comma-separated query names, e.g. Q1,Q6 (default: all)")
    parser.add_argument("--engines", default="",
                        help=f"comma-separated engines to run (default: all of {', '.join(ENGINES)}); "
                        "the targets of an engine left out are not judged")  # fmt: skip
    parser.add_argument("--verbose", action="store_true", help="print vpush's explain() and DuckDB's profiles")
    args = parser.parse_args(argv)
    engines: Sequence[str] = ENGINES
    if args.engines:
        engines = [e.strip() for e in args.engines.split(",") if e.strip()]
        unknown = [e for e in engines if e not in ENGINES]
        if unknown:
            parser.error(f"unknown engines {unknown}; choose from {', '.join(ENGINES)}")
    if args.row_group_rows is None:
        args.row_group_rows = max(1, args.rows // (args.files * ROW_GROUPS_PER_FILE))

    began = time.perf_counter()
    load = os.getloadavg()[0]  # the machine may be shared: times are only comparable within a run
    console = make_console()
    spark = LazySpark("vpush-bench-queries", SPARK_CONF)
    all_results: list[Result] = []
    try:
        data = load_dataset(args.dir, args.rows, args.files, args.row_group_rows, args.payload,
                            not args.skip_json, console, spark)  # fmt: skip
        lo, hi = window(data)
        queries = make_queries(lo, hi)
        if args.only:
            wanted = {name.strip().upper() for name in args.only.split(",")}
            queries = [q for q in queries if q.name in wanted]
        console.print(f"window [{timestamp_literal(lo)}, {timestamp_literal(hi)}) UTC: 1% of the span of ts")
        runners = _Engines(data, None if args.skip_spark else spark, console, args.verbose, engines)
        for query in queries:
            console.print(f"{query.name}: {query.title} ...")
            all_results.extend(runners.run_query(query, args.repeat))
    finally:
        spark.stop()
    elapsed = time.perf_counter() - began

    by_query: dict[str, list[Result]] = {}
    for r in all_results:
        by_query.setdefault(r.query, []).append(r)
    verdicts = [_verdict(name, results, args.payload) for name, results in by_query.items()]
    misses = [line for v in verdicts for line in v.misses]
    pending = [v.query for v in verdicts if v.pending]

    total_bytes = sum(data.file_bytes)
    versions = run_versions()
    title = (
        f"Seven queries on {data.rows:,} events: {len(data.files)} files, {data.row_groups} row groups, "
        f"{total_bytes / BYTES_PER_MB:,.1f} MB (duckdb writer{', no payload' if not args.payload else ''})"
    )
    context = [
        "vpush and Spark run the Spark SQL below; DuckDB runs the same queries in its own SQL over "
        "`read_parquet` (event as VARIANT), and over a JSON-text copy of the same rows (the baseline "
        "with no Variant at all: `event` a string column holding DuckDB's JSON of each event, same "
        "row groups, queried with `->>` and casts); the lower bound reads the footers, the row groups whose "
        "statistics might match (typed_value bounds trusted only where the sibling `value` is "
        "all-null), only the needed leaves (strings as dictionaries), decodes residual rows with "
        "vpush's codec only where the query needs them, and lets DuckDB compute over the Arrow "
        "result (Q7: the 100 ids first, then only those rows rebuilt). See bench/queries.py.",
        "",
        f"Per query the engines run in turn after one warm-up each; times and MB read are medians of "
        f"the runs shown (DuckDB, DuckDB on JSON text, Spark and vpush on Spark run {SLOW_REPEAT} when their warm-up took over {SLOW_SECONDS:.0f} s); "
        "vpush's connection keeps a query's plan from its warm-up, as it does for any query run again, "
        "and checks it against the files' sizes and times at each run (planning anew takes a few ms); "
        f"MB read = `rchar` of the process (the JVM's for Spark) during a run; ratios are to the "
        f"lower bound of the same run; {pa.cpu_count()} cores, load average {load:.1f} at the start; "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
        + ".",
    ]
    rows: list[list[str]] = []
    for name, results in by_query.items():
        base = next((r for r in results if r.engine == BOUND), Result(name, BOUND, error="not run"))
        rows.extend(_cells(r, base) for r in results)
    target_headers = ["query", f"vpush / lower bound (target <= {BOUND_TARGET}x)"]
    if not args.payload:
        target_headers.append(
            f"vpush / DuckDB (target <= {DUCKDB_TARGET}x or +{DUCKDB_SLACK_SECONDS * 1000:.0f} ms)"
        )
    spark_compared = any(v.spark_speedup is not None or v.spark_met is not None for v in verdicts)
    if spark_compared:
        target_headers.append(
            f"vpush on Spark vs Spark (target: fewer bytes; >= {SPARK_SKIP_TARGET:.0f}x faster where row groups are skipped)"
        )
    target_headers.append("answers")
    target_rows = [_verdict_cells(v, args.payload, spark_compared) for v in verdicts]
    spark_records = "; ".join(f"{r.query} {r.note}" for r in all_results if r.engine == SPARK and r.note)
    on_spark_notes = (
        ["vpush on Spark: MB read are the column chunks and footers its tasks read, from the footers "
         "(rchar would count its Arrow batches again, where the JVM reads them from its Python workers)"]
        if any(r.engine == VPUSH_SPARK for r in all_results)
        else []
    )
    notes = [
        *on_spark_notes,
        f"files: {len(data.files)} of about {data.file_bytes[0] / BYTES_PER_MB:,.1f} MB; window "
        f"[{timestamp_literal(lo)}, {timestamp_literal(hi)}) UTC",
        *(f"{r.query} {r.engine}: {r.error}" for r in all_results if r.error),
        *(
            ["records Spark's scans output (a sort samples its input first, so Q3 scans twice): " + spark_records]
            if spark_records
            else []
        ),
        (
            f"answers compared with {'Spark' if not args.skip_spark else 'the lower bound'}'s: "
            + ("all agree" if all(v.agree for v in verdicts) else "SOME DISAGREE")
            + "; DuckDB's JSON is compared after parsing, its `+00` offsets read as `+00:00`"
        ),
        *(f"target missed: {line}" for line in misses),
        *(f"{name}: vpush does not support it yet; its target is pending" for name in pending),
        "data written in "
        + (f"{data.generated_seconds:,.0f} s" if data.generated_seconds is not None else "(unknown)")
        + f"{' (this run)' if data.generated_now else ' (an earlier run; reused)'}"
        + (
            ""
            if data.json_folder is None
            else f"; JSON-text copy ({data.json_bytes / BYTES_PER_MB:,.1f} MB) written in "
            + (f"{data.json_seconds:,.0f} s" if data.json_seconds is not None else "(unknown)")
            + (" (this run)" if data.json_now else " (an earlier run; reused)")
        )
        + f"; whole run {elapsed:,.0f} s",
    ]
    sql_lines = ["## The queries", ""]
    for query in queries:
        sql_lines += [
            f"**{query.name}**, {query.title}.",
            "",
            f"- Spark SQL (vpush, Spark): `{query.spark}`",
            f"- DuckDB: `{query.duckdb.format(source='read_parquet(...)')}`",
            f"- DuckDB on JSON text: `{query.json.format(source='read_parquet(...json copy...)')}`",
            f"- lower bound: leaves {', '.join(_bound_leaves(query.bound))}; SQL over the Arrow result: "
            f"`{query.bound.sql}`" + (f", then `{query.bound.rebuild_sql}`" if query.bound.rebuild_sql else ""),
            "",
        ]

    print_table(console, title, HEADERS, rows, left=("query", "engine"))
    print_table(console, "targets", target_headers, target_rows)
    print_notes(console, notes, misses)

    stem = "queries" if args.payload else "queries-nopayload"
    args.out.mkdir(parents=True, exist_ok=True)
    markdown = [
        f"# {title}",
        "",
        *context,
        "",
        *markdown_table(HEADERS, rows),
        "",
        *markdown_table(target_headers, target_rows),
        "",
        *(f"- {n}" for n in notes),
        "",
        *sql_lines,
    ]
    (args.out / f"{stem}.md").write_text("\n".join(markdown), encoding="utf-8")
    payload = {
        "rows": data.rows,
        "files": [{"name": p.name, "bytes": b} for p, b in zip(data.files, data.file_bytes)],
        "row_groups": data.row_groups,
        "row_group_rows": args.row_group_rows,
        "payload": args.payload,
        "window": [timestamp_literal(lo), timestamp_literal(hi)],
        "queries": [
            {"name": q.name, "title": q.title, "spark": q.spark, "duckdb": q.duckdb, "json": q.json,
             "bound": _bound_json(q.bound)}
            for q in queries
        ],
        "repeat": args.repeat,
        "versions": versions,
        "cores": pa.cpu_count(),
        "load_average_at_start": load,
        "results": [asdict(r) for r in all_results],
        "targets": [asdict(v) for v in verdicts],
        "targets_met": not misses,
        "pending": pending,
        "generation_seconds": data.generated_seconds,
        "json_copy": None if data.json_folder is None else {
            "files": len(part_files(data.json_folder)), "bytes": data.json_bytes, "generation_seconds": data.json_seconds},
        "run_seconds": elapsed,
    }
    (args.out / f"{stem}.json").write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")
    if args.out == Path("docs") / "bench":
        summary = _readme_summary(title, context, all_results, target_headers, target_rows, stem)
        if update_readme(args.readme, stem, summary):
            console.print(f"  {args.readme}: the {stem} summary updated")
    return 0 if not misses else 1


def _readme_summary(
    title: str, context: list[str], results: list[Result], target_headers: list[str], target_rows: list[list[str]], stem: str
) -> str:
    """The README's table of a run: per query, each engine's median ms, then the targets."""
    engines = list(dict.fromkeys(r.engine for r in results))
    by_query: dict[str, dict[str, Result]] = {}
    for r in results:
        by_query.setdefault(r.query, {})[r.engine] = r
    def ms(result: Result | None) -> str:
        seconds = result.seconds if result is not None and result.ok else None
        return f"{seconds * 1000:,.1f}" if seconds is not None else ""

    rows = [[query, *(ms(found.get(e)) for e in engines)] for query, found in by_query.items()]
    lines = [
        f"**{title}**",
        "",
        *context,
        "",
        *markdown_table(["query", *(f"{e} ms" for e in engines)], rows),
        "",
        *markdown_table(target_headers, target_rows),
        "",
        f"Result rows, row groups and MB read per engine, and the queries' SQL: [docs/bench/{stem}.md](docs/bench/{stem}.md).",
    ]
    return "\n".join(lines)


def _bound_leaves(bound: Bound) -> list[str]:
    leaves = [leaf.typed for leaf in bound.leaves]
    leaves += [f"{leaf.value} where the footer shows residuals" for leaf in bound.leaves if leaf.path]
    if bound.residual is not None:
        leaves.append(f"{METADATA_LEAF} and {VALUE_LEAF} (for $.{'.'.join(bound.residual.path)}) where not all-null")
    if bound.rebuild_sql is not None:
        leaves.append(f"then id and every leaf of {VARIANT} in the row groups of the rows picked")
    return leaves


def _bound_json(bound: Bound) -> dict[str, Any]:
    return {
        "leaves": _bound_leaves(bound),
        "ranges": [{"leaf": r.leaf.typed, "lo": r.lo, "hi": r.hi, "closed": r.closed} for r in bound.ranges],
        "sql": bound.sql,
        "rebuild_sql": bound.rebuild_sql,
    }


if __name__ == "__main__":
    sys.exit(main())
