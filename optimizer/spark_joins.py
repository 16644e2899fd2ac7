"""The order in which Spark's broadcast hash join gives its rows, for the aggregates whose answer
depends on it (:func:`~vpush.optimizer.spark_order.scan_order`).

With its default settings (``spark.sql.autoBroadcastJoinThreshold`` 10 MB, no cost-based
optimizer, sort-merge joins preferred) Spark joins two tables on equal keys by a
``BroadcastHashJoinExec`` where the side it may build (the right one of a left outer, semi or
anti join, the left one of a right outer join, the smaller of an inner join's two: the right one
on a tie) is estimated at the threshold or less; otherwise by a sort-merge join, whose order vpush
does not follow. Its estimate of a table read from Parquet files is the files' total size,
scaled by Spark's row sizes (:func:`spark_default_size`, 8 bytes more per row) of the columns
read above the join (a filter pushed into the table's side reads its own) over those of all the
table's columns: ``floor(bytes * (8 + read) / (8 + all))``, as ``SizeInBytesOnlyStatsPlanVisitor``
scales a projection (measured on Spark 4.3 against ``optimizedPlan().stats``).

The join gives the streamed side's rows in their order, each with its matches in the build
side's hash map, newest first: the build side's rows in the reverse of the order they were
inserted (its scan's), for ``LongHashedRelation`` (integral keys) and ``UnsafeHashedRelation``
(other keys) alike (measured on Spark 4.3); a left outer join's unmatched row in its place; a
semi or anti join only the streamed rows it keeps.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from sqlglot import exp

from vpush.optimizer.dialect import conjuncts, lambda_variables
from vpush.optimizer.plan import ORDER_COLUMN, ORDERED_SCAN, SCAN_INDEX
from vpush.optimizer.variant_types import AtomicType, DecimalType, SparkType, StringType

__all__ = [
    "BROADCAST_THRESHOLD_BYTES", "HINTED", "SPARK_SIZE", "SparkSize", "broadcast_sides", "hint_broadcasts", "join_order",
    "spark_default_size",
]

BROADCAST_THRESHOLD_BYTES = 10 * 1024 * 1024
"""``spark.sql.autoBroadcastJoinThreshold``'s default."""

SPARK_SIZE = "vpush_spark_size"
"""The meta key of a table reference that becomes a scan: its :class:`SparkSize`."""

HINTED = "vpush_hinted"
"""The meta key of a SELECT that carried a hint (``/*+ MERGE */``, ...), which DuckDB's SQL drops."""

_ROW_OVERHEAD = 8  # EstimationUtils.getSizeForRowSize: 8 bytes per row beside the columns'
_ATOMIC_SIZES = {
    "boolean": 1, "tinyint": 1, "smallint": 2, "int": 4, "bigint": 8, "float": 4, "double": 8, "date": 4,
    "timestamp": 8, "timestamp_ntz": 8, "binary": 100, "void": 1,
}
_NESTED_SIZE = 4096  # above VariantType's 2048: a variant or nested column's share may grow when
# Spark pushes its extractions into the scan, so these only bound the estimate


@dataclasses.dataclass(frozen=True)
class SparkSize:
    """What Spark's size estimate of a table is made of: its files' total size in bytes, and each
    column's default size by lower-cased name (None for a column whose size is not known exactly:
    a variant, array, map or struct). ``partitioned``: Spark may leave some files out of its
    estimate (partition pruning)."""

    file_bytes: int
    column_sizes: Mapping[str, int | None]
    partitioned: bool = False


def spark_default_size(spark_type: SparkType | None) -> int | None:
    """Spark's ``DataType.defaultSize`` of an atomic type (None for another).

    Example:
        >>> spark_default_size(StringType()), spark_default_size(DecimalType(20, 2))
        (20, 16)
    """
    if isinstance(spark_type, StringType):
        return 20
    if isinstance(spark_type, DecimalType):
        return 8 if spark_type.precision <= 18 else 16
    if isinstance(spark_type, AtomicType):
        return _ATOMIC_SIZES.get(spark_type.name)
    return None


@dataclasses.dataclass(frozen=True)
class _Bounds:
    low: int
    high: int


def _bounds(size: SparkSize, read: set[str]) -> _Bounds:
    """Spark's estimate of the table's side, reading the columns ``read`` above the join: exact
    where every column's size is known, else between a floor and the files' size."""
    if all(v is not None for v in size.column_sizes.values()) and not size.partitioned:
        total = _ROW_OVERHEAD + sum(v or 0 for v in size.column_sizes.values())
        kept = _ROW_OVERHEAD + sum(v or 0 for k, v in size.column_sizes.items() if k in read)
        estimate = max(size.file_bytes * kept // total, 1)
        return _Bounds(estimate, estimate)
    if size.partitioned:
        return _Bounds(0, size.file_bytes)
    total = _ROW_OVERHEAD + sum(_NESTED_SIZE if v is None else v for v in size.column_sizes.values())
    kept = _ROW_OVERHEAD + sum(v for k, v in size.column_sizes.items() if k in read and v is not None)
    return _Bounds(size.file_bytes * kept // total, size.file_bytes)


_NONDETERMINISTIC = frozenset({"rand", "random", "randn", "uuid", "shuffle", "monotonically_increasing_id", "spark_partition_id"})


def join_order(select: exp.Select) -> exp.Expr | None:
    """Each joined row's place in the order Spark's broadcast hash join gives ``select``'s rows
    (its one join of two tables read directly), marking the tables' scans ordered; None where
    vpush does not know it (another join, a join Spark may sort and merge, a hint, a subquery).

    The place is the streamed row's place, then the match's place in the build side reversed:
    a ``hugeint``; a semi or anti join's is the streamed row's place.

    Example:
        >>> from sqlglot import parse_one
        >>> select = parse_one("SELECT first(d.n) FROM e JOIN d ON e.k = d.k", read="spark")
        >>> for table, n in zip(select.find_all(exp.Table), (10_000, 500)):
        ...     table.meta[SCAN_INDEX] = 0
        ...     table.meta[SPARK_SIZE] = SparkSize(n, {"k": 4, "n": 20})
        >>> join_order(select).sql("duckdb")[:60]
        'CAST("e"."__vpush_order" AS INT128) * 18446744073709551616 +'
    """
    if _PLACE in select.meta:
        # decided once, on the SELECT as written (the aggregates' rewrites add lambdas' columns)
        known = select.meta[_PLACE]
        return known.copy() if known is not None else None
    place = _join_order(select)
    select.meta[_PLACE] = place
    return place.copy() if place is not None else None


_PLACE = "vpush_join_place"


def _bound_by_lambda(column: exp.Column) -> bool:
    return (column.table or column.name).lower() in lambda_variables(column)


def _join_order(select: exp.Select) -> exp.Expr | None:
    sides = broadcast_sides(select)
    if sides is None:
        return None
    how, build, streamed = sides
    streamed.meta[ORDERED_SCAN] = True
    place = _order_of(streamed)
    if how in ("semi", "anti"):
        return place
    build.meta[ORDERED_SCAN] = True
    hugeint = exp.DataType.build("HUGEINT")
    # newest match first: the build side's places reversed (an unmatched row has none)
    reversed_match = exp.Sub(this=exp.Literal.number(2**63 - 1), expression=exp.Coalesce(
        this=_order_of(build), expressions=[exp.Literal.number(0)]))
    return exp.Add(
        this=exp.Mul(this=exp.cast(place, hugeint), expression=exp.Literal.number(2**64)),
        expression=exp.cast(reversed_match, hugeint),
    )


def hint_broadcasts(expression: exp.Expr) -> None:
    """Hints each join of two scans that Spark makes a broadcast hash join by its estimate of the
    files (:func:`broadcast_sides`) to broadcast that side, for the Spark engine: Spark cannot
    estimate the size of vpush's data source, so it plans a sort-merge join, which adaptive
    execution turns into a broadcast hash join building whichever side's shuffle ends first
    (another order of rows each run). A SELECT the user hinted keeps its own hints."""
    for select in list(expression.find_all(exp.Select)):
        if select.args.get("hint") is not None:
            continue
        sides = broadcast_sides(select)
        if sides is None:
            continue
        build = sides[1]
        select.set("hint", exp.Hint(expressions=[exp.JoinHint(
            this="BROADCAST", expressions=[exp.Table(this=exp.to_identifier(build.alias_or_name, quoted=True))])]))


def broadcast_sides(select: exp.Select) -> tuple[str, exp.Table, exp.Table] | None:
    """How ``select``'s one join of two scans joins (``inner``, ``left``, ``right``, ``semi`` or
    ``anti``), the table Spark builds its broadcast hash join on and the one it streams; None
    where Spark sorts and merges, or where vpush does not know which it does."""
    joins = select.args.get("joins") or []
    from_ = select.args.get("from_")
    if len(joins) != 1 or from_ is None or select.meta.get(HINTED) or select.args.get("laterals"):
        return None
    join = joins[0]
    left, right = from_.this, join.this
    if not all(isinstance(t, exp.Table) and SCAN_INDEX in t.meta and isinstance(t.meta.get(SPARK_SIZE), SparkSize) for t in (left, right)):
        return None
    if join.args.get("method") or select.find(exp.Subquery, exp.Exists) is not None:
        return None
    side, kind = (join.side or "").upper(), (join.kind or "").upper()
    kinds = {("", ""): "inner", ("", "INNER"): "inner", ("", "CROSS"): "inner", ("LEFT", ""): "left", ("LEFT", "OUTER"): "left",
             ("RIGHT", ""): "right", ("RIGHT", "OUTER"): "right", ("LEFT", "SEMI"): "semi", ("LEFT", "ANTI"): "anti"}
    how = kinds.get((side, kind))
    if how is None:
        return None
    names = {t.alias_or_name.lower(): t for t in (left, right)}
    if len(names) != 2:
        return None
    columns = {alias: {c.lower() for c in t.meta[SPARK_SIZE].column_sizes} for alias, t in names.items()}
    aliases = {p.alias.lower() for p in select.expressions if isinstance(p, exp.Alias)}

    keys = {i.name.lower() for i in join.args.get("using") or []}

    def sides(node: exp.Expr) -> set[str] | None:
        found: set[str] = set()
        for column in [node] if isinstance(node, exp.Column) else node.find_all(exp.Column):
            if isinstance(column.this, exp.Star) or _bound_by_lambda(column):
                continue
            table = column.table.lower()
            if table:
                if table not in names:
                    return None
                found.add(table)
                continue
            owners = [a for a, cols in columns.items() if column.name.lower() in cols]
            if column.name.lower() in keys:
                found.update(owners)  # a USING key: both sides' columns
                continue
            if len(owners) != 1:
                if not owners and column.name.lower() in aliases:
                    continue
                return None
            found.add(owners[0])
        return found

    on = join.args.get("on")
    using = join.args.get("using") or []
    where = select.args.get("where")
    # an outer join's WHERE on its nullable side may make it an inner join (EliminateOuterJoin)
    nullable = {"left": right, "right": left}.get(how)
    if nullable is not None and where is not None:
        touched = sides(where.this)
        if touched is None or nullable.alias_or_name.lower() in touched:
            return None
    conditions = conjuncts(on) + (conjuncts(where.this) if where is not None and how == "inner" else [])
    left_name, right_name = left.alias_or_name.lower(), right.alias_or_name.lower()
    equal = bool(using)
    pushed: set[int] = set()
    for condition in conditions:
        touched = sides(condition)
        if touched is None:
            return None
        if isinstance(condition, exp.EQ):
            a, b = sides(condition.this), sides(condition.expression)
            if a is not None and b is not None and {frozenset(a), frozenset(b)} == {frozenset({left_name}), frozenset({right_name})}:
                equal = True
        # a condition of one side is pushed into it (an outer join's ON: of its nullable side)
        one = len(touched) == 1 if how == "inner" else touched == ({left_name} if how == "right" else {right_name})
        deterministic = not any(isinstance(f, (exp.Rand, exp.Randn)) or (isinstance(f, exp.Anonymous) and f.name.lower() in _NONDETERMINISTIC)
                                for f in condition.find_all(exp.Func))
        if one and deterministic:
            pushed.update(id(c) for c in condition.find_all(exp.Column))
    if not equal:
        return None  # no equal keys: a nested loop join
    read: dict[str, set[str]] = {left_name: set(), right_name: set()}
    for name in using:
        for alias in read:
            read[alias].add(name.name.lower())
    for node in select.find_all(exp.Column, exp.Star):
        if isinstance(node, exp.Star):
            star = node.parent if isinstance(node.parent, exp.Column) else node
            if star.parent is select:  # `*` or `t.*` projected: every column of its side(s)
                table = star.table.lower() if isinstance(star, exp.Column) else ""
                for alias in read if not table else [table]:
                    read.setdefault(alias, set()).update(columns.get(alias, set()))
            continue
        if not isinstance(node, exp.Column) or id(node) in pushed or isinstance(node.this, exp.Star) or _bound_by_lambda(node):
            continue
        owner = sides(node)
        if owner is None:
            return None
        for alias in owner:
            read[alias].add(node.name.lower())
    bounds = {alias: _bounds(names[alias].meta[SPARK_SIZE], read[alias]) for alias in (left_name, right_name)}
    low_left, low_right = bounds[left_name], bounds[right_name]
    build: exp.Table | None = None
    if how in ("left", "semi", "anti"):
        build = right if low_right.high <= BROADCAST_THRESHOLD_BYTES else None
    elif how == "right":
        build = left if low_left.high <= BROADCAST_THRESHOLD_BYTES else None
    elif low_right.high <= BROADCAST_THRESHOLD_BYTES and low_right.high <= low_left.low:
        build = right  # the smaller side (the right one on a tie), or the only one small enough
    elif low_left.high <= BROADCAST_THRESHOLD_BYTES and low_left.high < low_right.low:
        build = left
    if build is None:
        return None
    return how, build, left if build is right else right


def _order_of(table: exp.Table) -> exp.Column:
    return exp.column(exp.to_identifier(ORDER_COLUMN, quoted=True), table=exp.to_identifier(table.alias_or_name, quoted=True))
