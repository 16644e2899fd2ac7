"""Skip the files and row groups of one table reference that cannot hold a row its WHERE keeps.

Only the WHERE of the SELECT that reads the table directly is used, and only its conjuncts that
read nothing but this table's plain and partition columns. Dropping a conjunct only widens the
filter, so pruning with the rest stays exact. Where another operator stands between the WHERE and
the table (an outer, semi or anti join, a lateral view, a sample), nothing is pruned: a filter on
the null-extended side of a LEFT JOIN, for one, removes rows that pruning the scan would keep.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import pyarrow as pa
from sqlglot import exp

from vpush.optimizer.bind_sqlglot import bind_sqlglot
from vpush.optimizer.check_join_references import resolves_to
from vpush.optimizer.dialect import conjuncts
from vpush.optimizer.bound import (
    ALWAYS_TRUE,
    And,
    BooleanExpression,
    ColumnRef,
    LeafRef,
    Or,
    PartitionRef,
    Ref,
    SqlType,
    VariantRef,
    bind,
    bind_variant,
    sql_type_of_arrow,
)
from vpush.optimizer.catalog import FileInfo, Table
from vpush.optimizer.evaluate_row_groups import ROWS_CANNOT_MATCH, InclusiveStatsEvaluator, cast_may_fail
from vpush.optimizer.rewrite_table_samples import passes_rows
from vpush.optimizer.rewrite_variants import match_extraction
from vpush.optimizer.variant_types import VARIANT

__all__ = ["FilePruning", "owning_select", "prune_scan", "read_where_casts_may_fail", "scan_predicate", "select_through_limit"]

_INNER_JOIN_KINDS = frozenset({"", "INNER", "CROSS"})
# A conjunct holding any of these is not a plain row filter over this table (a subquery may read
# the outer row; an aggregate or window belongs to another clause), so it is left out.
_NOT_ROW_FILTERS = (exp.Subquery, exp.Select, exp.AggFunc, exp.Window, exp.Exists)


@dataclasses.dataclass(frozen=True)
class FilePruning:
    """What pruning leaves of one file: the row groups to read, and why the others are skipped."""

    row_groups: tuple[int, ...]
    skipped: tuple[tuple[int, str], ...] = ()
    read_for_errors: tuple[tuple[int, str], ...] = ()
    """(row group, why) for each row group the WHERE rules out but that is read all the same: a
    strict cast Spark computes for every row its scan reads might fail there (see
    :func:`read_where_casts_may_fail`)."""


def _single_source(select: exp.Select) -> bool | None:
    """True when the SELECT reads one relation, False with inner joins only, None otherwise."""
    if select.args.get("laterals"):
        return None
    joins = select.args.get("joins") or []
    for join in joins:
        if join.side or (join.kind or "").upper() not in _INNER_JOIN_KINDS:
            return None
    return not joins


def owning_select(node: exp.Table) -> tuple[exp.Select | None, bool]:
    """The SELECT that reads table reference ``node`` directly, and whether it is its only
    source; (None, False) when something stands between them (a sample, a pivot, an outer join,
    a lateral view), where neither pruning nor placing extractions on the scan is safe."""
    if node.args.get("sample") or node.args.get("pivots") or node.args.get("laterals"):
        return None, False
    holder = node.parent
    if not isinstance(holder, (exp.From, exp.Join)):
        return None, False
    select = holder.parent
    if not isinstance(select, exp.Select):
        return None, False
    single = _single_source(select)
    if single is None:
        return None, False
    return select, single


def select_through_limit(node: exp.Table) -> tuple[exp.Select, str, bool] | None:
    """Where table reference ``node`` is read by ``SELECT * FROM node [LIMIT n]`` (what
    :func:`~vpush.optimizer.rewrite_table_samples.rewrite_table_samples` makes of a sample), a
    subquery in the FROM or an inner join of another SELECT: that SELECT, the subquery's alias
    ('' without one) and whether the subquery is its only source. The subquery's columns are the
    table's, so an extraction of one of them there reads the table's variant. None otherwise.

    Example:
        >>> import sqlglot
        >>> tree = sqlglot.parse_one("SELECT s.v FROM (SELECT * FROM t LIMIT 2) AS s")
        >>> outer, alias, single = select_through_limit(next(tree.find(exp.Subquery).find_all(exp.Table)))
        >>> outer is tree, alias, single
        (True, 's', True)
    """
    inner, _ = owning_select(node)
    if inner is None or inner.parent is None or not passes_rows(inner):
        return None
    subquery = inner.parent
    if not isinstance(subquery, exp.Subquery) or any(
        subquery.args.get(k) for k in ("sample", "pivots", "laterals", "joins", "order", "limit", "offset")
    ):
        return None
    alias = subquery.args.get("alias")
    if alias is not None and alias.columns:
        return None  # AS s(a, b) renames the columns
    holder = subquery.parent
    outer = holder.parent if isinstance(holder, (exp.From, exp.Join)) else None
    if not isinstance(outer, exp.Select):
        return None
    if isinstance(holder, exp.Join) and (holder.side or (holder.kind or "").upper() not in _INNER_JOIN_KINDS):
        return None
    single = _single_source(outer)
    if single is None:
        return None
    return outer, subquery.alias, single


def _condition(node: exp.Table, names: set[str]) -> exp.Expression | None:
    """The conjuncts of the WHERE over table reference ``node`` that read only its columns
    (lower-cased ``names``), ANDed; None when there are none or pruning is unsafe."""
    select, single = owning_select(node)
    where = select.args.get("where") if select is not None else None
    if select is None or not isinstance(where, exp.Where):
        return None
    alias = (node.alias or node.name).lower()
    kept: list[exp.Expression] = []
    for conjunct in conjuncts(where.this):
        if not isinstance(conjunct, exp.Expression) or conjunct.find(*_NOT_ROW_FILTERS) is not None:
            continue
        columns = list(conjunct.find_all(exp.Column))
        if columns and all(_is_own(c, alias, names, single or resolves_to(node, c, select)) for c in columns):
            kept.append(conjunct)
    if not kept:
        return None
    condition = kept[0].copy()
    for conjunct in kept[1:]:
        condition = exp.And(this=condition, expression=conjunct.copy())
    return condition


def _is_own(column: exp.Column, alias: str, names: set[str], unqualified: bool) -> bool:
    """Whether ``column`` surely names a column of this table: qualified by its alias, or
    unqualified where ``unqualified`` (the table is the only source, or the only one of the
    SELECT's sources with a column of that name); Spark resolves names case-insensitively."""
    if column.args.get("db") or column.args.get("catalog") or not isinstance(column.this, exp.Identifier):
        return False
    qualifier = column.table.lower()
    return column.name.lower() in names and (qualifier == alias or (not qualifier and unqualified))


def _references(expression: BooleanExpression) -> list[str]:
    """The leaf columns and partition columns a bound expression reads, in order, once each."""
    found: dict[str, None] = {}

    def visit(node: BooleanExpression) -> None:
        if isinstance(node, (And, Or)):
            visit(node.left)
            visit(node.right)
            return
        term = getattr(node, "term", None)
        if isinstance(term, LeafRef) and term.column_path is not None:
            found[term.column_path] = None
        elif isinstance(term, PartitionRef):
            found[term.name] = None

    visit(expression)
    return list(found)


def _partition_reason(values: Mapping[str, Any], names: list[str]) -> str:
    """Why the partition values alone rule a file out."""
    shown = [f"{k}={'NULL' if v is None else v}" for k, v in values.items() if k in names]
    return f"partition {', '.join(shown)} cannot match" if shown else "the WHERE is never true"


def scan_predicate(
    node: exp.Table,
    table: Table,
    data_schema: pa.Schema,
    variants: Collection[str],
    *,
    time_zone: str,
) -> BooleanExpression | None:
    """The WHERE over table reference ``node`` as an unbound pruning expression, or None when
    nothing in it can prune (no WHERE, nothing of this table's, or only what does not bind).

    Args:
        node: the table's reference in the query, still in its SELECT.
        table: the registered table (its partition columns).
        data_schema: the table's columns.
        variants: the lower-cased names of its variant columns.
        time_zone: Spark's session time zone, for timestamp literals.
    """
    fields = {f.name.lower(): f for f in table.partitioning.fields}
    plain = {f.name.lower(): f for f in data_schema if f.name.lower() not in fields}
    condition = _condition(node, set(fields) | set(plain))
    if condition is None:
        return None

    def resolve(column: exp.Expression) -> Ref | None:
        matched = match_extraction(column)
        if matched is not None:
            base, segments, target, strict = matched
            sql_type = SqlType.parse(target.to_spark()) if target != VARIANT else None
            if (
                isinstance(base, exp.Column)
                and base.name.lower() in variants
                and sql_type is not None
                and all(isinstance(s, str) for s in segments)
            ):
                keys = tuple(str(s) for s in segments)
                return VariantRef(base.name, keys, sql_type, strict)
            return None
        if not isinstance(column, exp.Column):
            return None
        key = column.name.lower()
        if key in fields and fields[key].type.name != "void":
            return PartitionRef(fields[key].name, fields[key].type)
        field = plain.get(key)
        if field is None or key in variants:
            return None
        sql_type = sql_type_of_arrow(field.type)
        return ColumnRef(field.name, sql_type) if sql_type is not None else None

    predicate = bind_sqlglot(condition, resolve, session_time_zone=time_zone)
    return None if predicate == ALWAYS_TRUE else predicate


def prune_scan(
    node: exp.Table,
    table: Table,
    infos: Sequence[FileInfo],
    data_schema: pa.Schema,
    *,
    time_zone: str,
) -> list[FilePruning]:
    """The row groups to read of each file of ``table``, for the table reference ``node``.

    Example:
        >>> import os, tempfile, sqlglot, pyarrow as pa, pyarrow.parquet as pq
        >>> from vpush.optimizer.catalog import Catalog
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     pq.write_table(pa.table({"id": range(6)}), os.path.join(folder, "a.parquet"), row_group_size=2)
        ...     table = Catalog().register("t", folder)
        ...     infos = [Catalog().file_info(f) for f in table.files]
        >>> select = sqlglot.parse_one("SELECT * FROM t WHERE id >= 4", read="spark")
        >>> prune_scan(select.find(exp.Table), table, infos, infos[0].arrow_schema, time_zone="UTC")
        [FilePruning(row_groups=(2,), skipped=((0, 'statistics of id rule out rows'), (1, 'statistics of id rule out rows')), read_for_errors=())]

    Args:
        node: the table's reference in the query, still in its SELECT.
        table: the registered table.
        infos: its files' footers, in ``table.files`` order.
        data_schema: the columns the files hold (the union over files), variants included.
        time_zone: Spark's session time zone, for timestamp literals and partition values.

    Returns:
        One :class:`FilePruning` per file, in order; every row group when nothing prunes.
    """
    everything = [FilePruning(tuple(range(info.num_row_groups))) for info in infos]
    # A variant column is compared only through an extraction (a VariantRef), never whole.
    variants = {name.lower() for info in infos for name in info.variant_columns}
    predicate = scan_predicate(node, table, data_schema, variants, time_zone=time_zone)
    if predicate is None:
        return everything
    pruned = []
    for info in infos:
        values = table.partitioning.values(info.path, session_time_zone=time_zone)
        bound = bind(predicate, info)
        evaluator = InclusiveStatsEvaluator(bound)
        names = _references(bound)
        all_groups = range(info.num_row_groups)
        if evaluator.evaluate_file(values, None) == ROWS_CANNOT_MATCH:
            # Proof: the partition values alone make the predicate FALSE or NULL for every row.
            reason = _partition_reason(values, names)
            pruned.append(FilePruning((), tuple((rg, reason) for rg in all_groups)))
            continue
        column_names = [n for n in names if n not in values]
        by_statistics = f"statistics of {', '.join(column_names) or 'the file'} rule out rows"
        if evaluator.evaluate_file(values, info.statistics) == ROWS_CANNOT_MATCH:
            pruned.append(FilePruning((), tuple((rg, by_statistics) for rg in all_groups)))
            continue
        kept: list[int] = []
        skipped: list[tuple[int, str]] = []
        for rg in info.statistics.row_groups:
            if evaluator.evaluate(rg, values) != ROWS_CANNOT_MATCH:
                kept.append(rg.row_group)
            else:
                skipped.append((rg.row_group, "no rows" if rg.num_rows == 0 else by_statistics))
        pruned.append(FilePruning(tuple(kept), tuple(skipped)))
    return pruned


def read_where_casts_may_fail(
    pruned: Sequence[FilePruning], infos: Sequence[FileInfo], casts: Sequence[tuple[VariantRef | None, str]]
) -> list[FilePruning]:
    """Read again each skipped row group where one of ``casts`` might fail.

    Spark computes each strict ``variant_get`` (and cast of a variant column) in its scan, for
    every row of every row group it reads, before any filter: a value no cast takes raises
    ``INVALID_VARIANT_CAST`` even in a row the WHERE drops. Spark prunes no row group by a variant
    path's statistics, so a row group vpush rules out that way could hold the failing row: it is
    skipped only where the statistics prove that no cast of the query fails in it
    (:func:`~vpush.optimizer.evaluate_row_groups.cast_may_fail`).

    Args:
        pruned: what pruning left of each file, in ``infos`` order.
        infos: the files' footers.
        casts: each strict cast Spark computes in its scan that may fail as a cast, as a
            reference (None where the path or type is not modelled: any row group with rows may
            fail) and as the user wrote it, for the explanation.
    """
    if not casts:
        return list(pruned)
    out = []
    for pruning, info in zip(pruned, infos):
        if not pruning.skipped:
            out.append(pruning)
            continue
        bound = [(None if ref is None else bind_variant(ref, info), text) for ref, text in casts]
        by_group = {rg.row_group: rg for rg in info.statistics.row_groups}
        skipped: list[tuple[int, str]] = []
        read: list[tuple[int, str]] = []
        for rg, reason in pruning.skipped:
            failing = [text for ref, text in bound if cast_may_fail(ref, by_group[rg])]
            if failing:
                read.append((rg, f"{failing[0]} may fail in it, and Spark computes it for every row it reads"))
            else:
                skipped.append((rg, reason))
        if not read:
            out.append(pruning)
            continue
        groups = tuple(sorted({*pruning.row_groups, *(rg for rg, _ in read)}))
        out.append(FilePruning(groups, tuple(skipped), (*pruning.read_for_errors, *read)))
    return out
