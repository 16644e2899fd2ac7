"""Skip the files and row groups of one table reference that cannot hold a row its WHERE keeps.

Only the WHERE of the SELECT that reads the table directly is used, and only its conjuncts that
read nothing but this table's plain and partition columns. Dropping a conjunct only widens the
filter, so pruning with the rest stays exact. Where another operator stands between the WHERE and
the table (an outer, semi or anti join, a lateral view, a sample), nothing is pruned: a filter on
the null-extended side of a LEFT JOIN, for one, removes rows that pruning the scan would keep.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import pyarrow as pa
from sqlglot import exp

from vpush.optimizer.bind_sqlglot import bind_sqlglot
from vpush.optimizer.check_join_references import resolves_to
from vpush.optimizer.dialect import COMPARISONS, VpushSpark, comparison_operands, conjuncts
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
from vpush.optimizer.statistics import RowGroupStatistics
from vpush.optimizer.variant_types import VARIANT, StringType

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


def _own_conjuncts(node: exp.Table, names: set[str]) -> list[exp.Expression]:
    """The conjuncts of the WHERE over table reference ``node`` that read only its columns
    (lower-cased ``names``), in the WHERE's order; empty when there are none or pruning is unsafe.
    Those that are not plain row filters (a subquery compared with a column) are among them, for
    the order Spark tests them in (:func:`_row_filters` leaves them out of pruning)."""
    select, single = owning_select(node)
    where = select.args.get("where") if select is not None else None
    if select is None or not isinstance(where, exp.Where):
        return []
    alias = (node.alias or node.name).lower()
    kept: list[exp.Expression] = []
    for conjunct in conjuncts(where.this):
        if not isinstance(conjunct, exp.Expression):
            continue
        columns = [c for c in conjunct.find_all(exp.Column) if c.parent_select is select]
        if columns and all(_is_own(c, alias, names, single or resolves_to(node, c, select)) for c in columns):
            kept.append(conjunct)
    return kept


def _anded(parts: Sequence[exp.Expression]) -> exp.Expression:
    condition = parts[0].copy()
    for conjunct in parts[1:]:
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
    resolve = _Resolver(table, data_schema, variants)
    return _bound(_row_filters(_own_conjuncts(node, resolve.names)), resolve, time_zone)


def _row_filters(own: Sequence[exp.Expression]) -> list[exp.Expression]:
    return [c for c in own if c.find(*_NOT_ROW_FILTERS) is None]


def _bound(parts: Sequence[exp.Expression], resolve: _Resolver, time_zone: str) -> BooleanExpression | None:
    if not parts:
        return None
    predicate = bind_sqlglot(_anded(parts), resolve, session_time_zone=time_zone)
    return None if predicate == ALWAYS_TRUE else predicate


class _Resolver:
    """The pruning reference of a column or an extraction of one table (``bind_sqlglot``'s resolver)."""

    def __init__(self, table: Table, data_schema: pa.Schema, variants: Collection[str]) -> None:
        self.fields = {f.name.lower(): f for f in table.partitioning.fields}
        self.plain = {f.name.lower(): f for f in data_schema if f.name.lower() not in self.fields}
        self.variants = variants
        self.names = set(self.fields) | set(self.plain)

    def __call__(self, column: exp.Expr) -> Ref | None:
        matched = match_extraction(column)
        if matched is not None:
            base, segments, target, strict = matched
            sql_type = SqlType.parse(target.to_spark()) if target != VARIANT else None
            if (
                isinstance(base, exp.Column)
                and base.name.lower() in self.variants
                and sql_type is not None
                and all(isinstance(s, str) for s in segments)
            ):
                keys = tuple(str(s) for s in segments)
                return VariantRef(base.name, keys, sql_type, strict)
            return None
        if not isinstance(column, exp.Column):
            return None
        key = column.name.lower()
        if key in self.fields and self.fields[key].type.name != "void":
            return PartitionRef(self.fields[key].name, self.fields[key].type)
        field = self.plain.get(key)
        if field is None or key in self.variants:
            return None
        sql_type = sql_type_of_arrow(field.type)
        return ColumnRef(field.name, sql_type) if sql_type is not None else None



@dataclasses.dataclass(frozen=True)
class _RaisingWhere:
    """A WHERE one of whose conjuncts may raise for a row as Spark computes it, in Spark's order."""

    prefixes: tuple[BooleanExpression | None, ...]
    """For each conjunct, those up to it with the ones Spark's scan tests before its filter reads
    a row (partition filters; a plain column compared with constants, which its Parquet reader
    tests on each row group's statistics), as pruning expressions."""
    in_scan: BooleanExpression | None
    """Those Spark's scan tests alone: a row group they rule out is never read."""
    errors: tuple[tuple[VariantRef | None, ...] | None, ...]
    """For each conjunct, what may raise in it (:func:`_row_errors`), None where nothing does."""
    shown: tuple[str, ...]
    """Each conjunct as written, for the explanation."""


def _raising_where(own: Sequence[exp.Expression], resolve: _Resolver, time_zone: str) -> _RaisingWhere | None:
    """Spark's order of ``own`` (the WHERE's conjuncts over the table), or None when none may
    raise. Spark tests them from left to right, each on the rows those before it kept
    (``FilterExec``), and its Parquet reader prunes no row group by a variant path, so a row group
    a conjunct rules out holds rows that reach every conjunct before it: ``WHERE cast(v:a AS date) >
    DATE'2000-01-01' AND v:b::string = 'z'`` raises for a row whose ``a`` is ``'abc'`` whatever
    ``b``'s statistics say (measured on PySpark 4.3)."""
    errors = tuple(_row_errors(c, resolve) for c in own)
    if all(e is None for e in errors):
        return None
    in_scan = [c for c in own if _tested_in_scan(c, resolve)]
    prefixes = tuple(_bound(_row_filters([*own[: j + 1], *in_scan]), resolve, time_zone) for j in range(len(own)))
    shown = tuple(c.sql(dialect=VpushSpark, normalize_functions="lower") for c in own)
    return _RaisingWhere(prefixes, _bound(_row_filters(in_scan), resolve, time_zone), errors, shown)


def _failing_before(where: _RaisingWhere, info: FileInfo) -> Callable[[RowGroupStatistics, Mapping[str, Any]], str | None]:
    """For the row groups of ``info`` the whole WHERE rules out: the first conjunct that may
    raise in one among those Spark tests on its rows (up to the first prefix that rules it out),
    or None where none may (it is skipped). The pruning expressions are bound once per file."""
    in_scan = None if where.in_scan is None else InclusiveStatsEvaluator(bind(where.in_scan, info))
    prefixes = [None if p is None else InclusiveStatsEvaluator(bind(p, info)) for p in where.prefixes]
    errors = [None if refs is None else [None if ref is None else bind_variant(ref, info) for ref in refs] for refs in where.errors]

    def failing(row_group: RowGroupStatistics, values: Mapping[str, Any]) -> str | None:
        if in_scan is not None and in_scan.evaluate(row_group, values) == ROWS_CANNOT_MATCH:
            return None
        last = next((j for j, p in enumerate(prefixes) if p is not None and p.evaluate(row_group, values) == ROWS_CANNOT_MATCH),
                    len(prefixes) - 1)
        for i in range(last + 1):
            refs = errors[i]
            # (None: a part that may raise anywhere, or a path the file shreds as an object or array)
            if refs is not None and any(ref is None or cast_may_fail(ref, row_group) for ref in refs):
                return where.shown[i]
        return None

    return failing


_LOGIC = (exp.And, exp.Or, exp.Not, exp.Paren, exp.Is)
# spark.sql.parquet.pushdown.inFilterThreshold: a longer IN list is tested as its range only
_IN_FILTER_THRESHOLD = 10
# Spark functions that raise for no value (their arguments may: those are looked at too)
_NEVER_RAISE = (exp.Lower, exp.Upper, exp.Length, exp.Trim, exp.Coalesce, exp.Concat, exp.DPipe, exp.StartsWith, exp.EndsWith)
_TYPE_KINDS = {
    **dict.fromkeys(("tinyint", "smallint", "int", "bigint", "float", "double", "decimal"), "number"),
    **dict.fromkeys(("date", "timestamp", "timestamp_ntz"), "time"),
}


def _row_errors(node: exp.Expr, resolve: _Resolver) -> tuple[VariantRef | None, ...] | None:
    """What in ``node`` may raise for a row (see :attr:`_RaisingWhere.errors`), or None when
    nothing does: columns, constants (Spark computes those as it plans the query, rows or not),
    comparisons of like types, logic, and extractions that cannot fail as casts. Anything else may."""
    matched = match_extraction(node)
    if matched is not None:
        base, _, target, strict = matched
        if not isinstance(base, exp.Column):
            return (None,)
        if not strict or isinstance(target, StringType) or target == VARIANT:
            return None
        ref = resolve(node)
        return (ref if isinstance(ref, VariantRef) else None,)
    if isinstance(node, _NOT_ROW_FILTERS) or isinstance(node, exp.Column) or node.find(exp.Column) is None:
        return None  # a subquery runs apart (an IN's as a join after the filter); a constant as Spark plans
    if isinstance(node, (*COMPARISONS, exp.Like, exp.ILike)):
        if not _like_kinds(node, resolve):
            return (None,)  # Spark casts a string it reads to the other side's type, which may fail
    elif not isinstance(node, (*_LOGIC, *_NEVER_RAISE)):
        return (None,)
    found = [e for child in node.iter_expressions() if (e := _row_errors(child, resolve)) is not None]
    return tuple(ref for e in found for ref in e) if found else None


def _kind(node: exp.Expr, resolve: _Resolver) -> str | None:
    """The family of ``node``'s type as Spark compares it (number, time, string, ...), or None."""
    if isinstance(node, exp.Literal):
        return "string" if node.is_string else "number"
    if isinstance(node, exp.Null):
        return "null"
    if isinstance(node, exp.Boolean):
        return "boolean"
    if isinstance(node, (exp.Lower, exp.Upper, exp.Trim, exp.Concat, exp.DPipe)):
        return "string"
    if isinstance(node, exp.Length):
        return "number"
    if isinstance(node, exp.Coalesce):
        kinds = {_kind(o, resolve) for o in [node.this, *node.expressions]} - {"null"}
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(node, exp.Cast) and node.find(exp.Column) is None:
        sql_type = SqlType.parse(node.to)
    else:
        ref = resolve(node)
        sql_type = ref.type if isinstance(ref, (ColumnRef, PartitionRef, VariantRef)) else None
    return None if sql_type is None else _TYPE_KINDS.get(sql_type.name, sql_type.name)


def _like_kinds(node: exp.Expr, resolve: _Resolver) -> bool:
    """Whether Spark compares ``node``'s operands without a cast of a value it reads that may
    fail: all of one family, or a constant string beside others of one family (Spark casts the
    constant as it plans the query)."""
    kinds = []
    for operand in comparison_operands(node):
        kind = _kind(operand, resolve)
        if kind is None:
            return False
        if kind != "null" and not (kind == "string" and operand.find(exp.Column) is None):
            kinds.append(kind)
    return len(set(kinds)) <= 1


def _tested_in_scan(node: exp.Expr, resolve: _Resolver) -> bool:
    """Whether Spark's scan tests conjunct ``node`` before its filter reads a row: a partition
    filter, or a pushed filter on plain columns (a column compared with constants, IS NULL, and
    AND/OR/NOT of those), which its Parquet reader tests on each row group's statistics."""
    refs = [resolve(c) for c in node.find_all(exp.Column)]
    if refs and all(isinstance(r, PartitionRef) for r in refs):
        return True
    if isinstance(node, (exp.And, exp.Or)):
        return _tested_in_scan(node.this, resolve) and _tested_in_scan(node.expression, resolve)
    if isinstance(node, (exp.Not, exp.Paren)):
        return _tested_in_scan(node.this, resolve)
    if isinstance(node, exp.Is):
        return isinstance(node.this, exp.Column) and isinstance(resolve(node.this), ColumnRef)
    if not isinstance(node, COMPARISONS) or (isinstance(node, exp.In) and len(node.expressions) > _IN_FILTER_THRESHOLD):
        return False
    read = [o for o in comparison_operands(node) if o.find(exp.Column) is not None]
    return len(read) == 1 and isinstance(read[0], exp.Column) and isinstance(resolve(read[0]), ColumnRef) and _like_kinds(node, resolve)


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
    resolve = _Resolver(table, data_schema, variants)
    own = _own_conjuncts(node, resolve.names)
    predicate = _bound(_row_filters(own), resolve, time_zone)
    if predicate is None:
        return everything
    raising = _raising_where(own, resolve, time_zone)
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
        whole_file = evaluator.evaluate_file(values, info.statistics) == ROWS_CANNOT_MATCH
        failing_in = None if raising is None else _failing_before(raising, info)
        kept: list[int] = []
        skipped: list[tuple[int, str]] = []
        read: list[tuple[int, str]] = []
        for rg in info.statistics.row_groups:
            if not whole_file and evaluator.evaluate(rg, values) != ROWS_CANNOT_MATCH:
                kept.append(rg.row_group)
            elif rg.num_rows == 0:
                skipped.append((rg.row_group, "no rows"))
            elif failing_in is not None and (failing := failing_in(rg, values)) is not None:
                read.append((rg.row_group, f"{failing} may fail in it, and Spark tests it on the rows first"))
            else:
                skipped.append((rg.row_group, by_statistics))
        groups = tuple(sorted([*kept, *(rg for rg, _ in read)]))
        pruned.append(FilePruning(groups, tuple(skipped), tuple(read)))
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
