"""Skip the files of a Delta table that its log proves hold no row the WHERE keeps.

This runs before any footer is opened: each live file's partition values and ``stats`` (from its
``add`` action, :mod:`vpush.optimizer.delta_statistics`) go through the same evaluator, with the
same proofs, as a row group's footer statistics. A file without statistics, or whose statistics
do not bound a referenced column or path, is read; its footer's row groups are then pruned as any
Parquet file's (:func:`vpush.optimizer.prune_scan.prune_scan`).
"""
from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from typing import Any

import pyarrow as pa
from sqlglot import exp

from vpush.optimizer.bound import BooleanExpression, LeafRef, PartitionRef
from vpush.optimizer.catalog import Table
from vpush.optimizer.delta_statistics import LogStatistics, bind_log_statistics, parse_log_statistics
from vpush.optimizer.evaluate_row_groups import ROWS_CANNOT_MATCH, InclusiveStatsEvaluator
from vpush.optimizer.prune_scan import scan_predicate
from vpush.optimizer.statistics import RowGroupStatistics

__all__ = ["DeltaPruning", "prune_delta_files"]


@dataclasses.dataclass(frozen=True)
class DeltaPruning:
    """The live files to read, and (file, reason) for each file the log rules out."""

    files: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...] = ()


@functools.lru_cache(maxsize=4096)
def _parsed(stats: str, schema: str) -> LogStatistics | None:
    return parse_log_statistics(stats, json.loads(schema))


def _names(expression: BooleanExpression) -> list[str]:
    """What a bound expression reads, for the reason shown: ``v:$['a']`` or a column name."""
    found: dict[str, None] = {}

    def visit(node: Any) -> None:
        for child in ("left", "right"):
            if hasattr(node, child):
                visit(getattr(node, child))
        term = getattr(node, "term", None)
        if isinstance(term, LeafRef) and term.column_path is not None:
            found[term.column_path.replace("\x00", ":")] = None
        elif isinstance(term, PartitionRef):
            found[term.name] = None

    visit(expression)
    return list(found)


def prune_delta_files(node: exp.Table, table: Table, data_schema: pa.Schema, *, time_zone: str) -> DeltaPruning:
    """The live files of Delta table ``table`` that might hold a row its WHERE keeps.

    Example:
        >>> import sqlglot, pyarrow as pa
        >>> from vpush.optimizer.delta_log import DeltaFile, DeltaSnapshot
        >>> schema = {"type": "struct", "fields": [{"name": "id", "type": "long"}]}
        >>> files = tuple(DeltaFile(f"/t/{i}.parquet", 1, {}, '{"numRecords": 5, "minValues": {"id": %d}, '
        ...     '"maxValues": {"id": %d}, "nullCount": {"id": 0}}' % (10 * i, 10 * i + 4)) for i in range(3))
        >>> snapshot = DeltaSnapshot("/t", 0, 1, (), schema, (), {}, files)
        >>> table = Table("t", "/t", tuple(f.path for f in files), delta=snapshot)
        >>> select = sqlglot.parse_one("SELECT * FROM t WHERE id = 12", read="spark")
        >>> prune_delta_files(select.find(exp.Table), table, pa.schema([("id", pa.int64())]), time_zone="UTC").files
        ('/t/1.parquet',)

    Args:
        node: the table's reference in the query, still in its SELECT.
        table: the registered Delta table (``table.delta`` set).
        data_schema: its columns (:func:`vpush.optimizer.delta_table.delta_arrow_schema`).
        time_zone: Spark's session time zone.
    """
    snapshot = table.delta
    if snapshot is None:
        return DeltaPruning(table.files)
    variants = {str(f["name"]).lower() for f in snapshot.schema.get("fields", ()) if f.get("type") == "variant"}
    predicate = scan_predicate(node, table, data_schema, variants, time_zone=time_zone)
    if predicate is None:
        return DeltaPruning(table.files)
    schema_text = json.dumps(snapshot.schema, sort_keys=True)
    kept: list[str] = []
    skipped: list[tuple[str, str]] = []
    for file in snapshot.files:
        values: Mapping[str, Any] = table.partitioning.values(file.path, session_time_zone=time_zone)
        by_partition = bind_log_statistics(predicate, _NO_STATISTICS)
        if InclusiveStatsEvaluator(by_partition).evaluate(_NO_STATISTICS.statistics, values) == ROWS_CANNOT_MATCH:
            # Proof: the partition values alone make the predicate FALSE or NULL for every row
            # (with no statistics, every other reference is unbound, so ALWAYS_TRUE).
            names = [n for n in _names(by_partition) if n in values]
            shown = ", ".join(f"{k}={'NULL' if values[k] is None else values[k]}" for k in names)
            skipped.append((file.path, f"partition {shown} cannot match" if shown else "the WHERE is never true"))
            continue
        stats = _parsed(file.stats, schema_text) if file.stats is not None else None
        if stats is not None:
            bound = bind_log_statistics(predicate, stats)
            if InclusiveStatsEvaluator(bound).evaluate(stats.statistics, values) == ROWS_CANNOT_MATCH:
                # Proof: the evaluator's, over bounds that hold every value of the file (or a
                # row count of zero).
                if stats.statistics.num_rows == 0:
                    skipped.append((file.path, "no rows (log)"))
                else:
                    reason = ", ".join(n for n in _names(bound) if n not in values) or "the file"
                    skipped.append((file.path, f"log statistics of {reason} rule out rows"))
                continue
        kept.append(file.path)
    return DeltaPruning(tuple(kept), tuple(skipped))


_NO_STATISTICS = LogStatistics(RowGroupStatistics(-1, -1, {}), {})
