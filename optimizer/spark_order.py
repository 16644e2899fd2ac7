"""Aggregates whose answer depends on the order Spark meets the rows in, computed in that order on
DuckDB.

Spark updates an aggregate's buffer row by row within a task, in the order its file scan reads
the rows: the files as ``FilePartition`` orders them (largest first), each file's rows in order.
DuckDB aggregates in parallel, chunks in any order. Where a SELECT reads one table directly, the
table's scan gives :data:`~vpush.optimizer.plan.ORDER_COLUMN` (each row's place in Spark's order,
:attr:`~vpush.optimizer.plan.Scan.ordered`); where it reads a subquery or a CTE that projects,
filters and sorts one table, or a ``UNION ALL`` of such, each of them gives the column on (a
sort's row number, by its keys and then the rows' order, as Spark's stable sort; a branch's
place after the branches before it); where it joins two tables Spark makes a broadcast hash
join, :mod:`~vpush.optimizer.spark_joins` gives each joined row's place. These aggregates take
their rows in that order:

- ``max_by``/``min_by``: the last of the rows tied on the ordering (Spark's ``MaxMinBy`` keeps
  the old value only where it is strictly better), by the ordering and the row's place;
- ``first``/``last``/``any_value`` (with or without IGNORE NULLS): the first or last row;
- ``collect_list``/``array_agg``: the values in order;
- ``sum``/``avg`` of doubles and floats, and ``avg`` of integers (over a double sum): added in
  order, as Spark adds them (their last bits depend on it);
- the moments (``var_pop``, ``stddev``, ``skewness``, ``kurtosis``, ``covar_*``, ``corr``):
  Spark's own update and merge formulas over the values in order, by a compiled kernel
  (:mod:`vpush.codec.spark_aggregates`); where no order is known, over DuckDB's order;
- ``sum``/``try_sum`` of integers: Spark adds longs with ANSI checks, so a running total that
  passes a ``bigint`` raises (``try_sum``: NULL) even where the total fits. A cheap check (the
  count times the largest and the smallest value) proves for most data that no running total
  can pass; where it cannot, the query raises :data:`~vpush.optimizer.plan.ORDERED_RETRY_MARKER`
  and the engine runs the :func:`ordered_choice`'s second form, which adds the values in order.
- ``sum``/``avg`` (and their ``try_`` forms) with GROUP BY of decimals whose total is a
  ``decimal(38,s)``: Spark's hash aggregation keeps each group's running total in a
  ``decimal(38,s)`` field, NULL once it passes 38 digits, and raises for it at the end; the
  same cheap check (the count times the largest magnitude) and, where it fails, the values
  added in order (:func:`ordered_decimal_total`).

With GROUP BY beside a typed aggregate (``collect_list``, ``string_agg``, ``percentile_approx``, ...:
:func:`object_hash_aggregation`), Spark's ``ObjectHashAggregateExec`` falls back to sorting past
128 groups (:func:`hash_fallback_place`): each group's rows after that place fill a new buffer and
the kept one is merged into it, which these aggregates follow (:func:`split_at_fallback`, the
kernel's split of positioned lists).

With several tasks (Spark's file scan groups the files into about as many as its default
parallelism), Spark updates a buffer per task and merges the tasks' buffers in task order: each
row's place carries its task (:data:`~vpush.optimizer.plan.ORDER_TASK_SHIFT`), and the kernels
of the sums of doubles, longs and decimals and of ``mode`` follow Spark's merge; the others give
the same rows in the same order as one task, and the same answer except in the last bits of the
moments and where noted in README.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from vpush.codec.spark_aggregates import BIVARIATE_KINDS, POSITION, POSITIONED_VALUE
from vpush.optimizer.errors import refuse_on_duckdb
from vpush.optimizer.plan import ORDER_COLUMN, ORDER_TASK_SHIFT, ORDERED_RETRY_MARKER, ORDERED_SCAN, SCAN_INDEX
from vpush.optimizer.rewrite_time_windows import SESSIONS_MERGED, TIME_WINDOW_JOIN, order_past_time_window
from vpush.optimizer.spark_joins import join_order
from vpush.optimizer.variant_types import ArrayType, AtomicType, DecimalType, SparkType, StringType, StructField, StructType

__all__ = [
    "DOUBLE_SUM_FUNCTION", "HISTOGRAM_NUMERIC_FUNCTION", "MODE_FUNCTIONS", "PERCENTILE_APPROX_FUNCTION", "histogram_numeric_call", "ORDER_FREE_PERCENTILE_ROWS", "percentile_approx_call",
    "HASH_FALLBACK_GROUPS", "hash_fallback_place", "MOMENT_FUNCTIONS", "ordered_mode", "ordered_double_sum", "positioned_list", "window_in_order", "ORDERED_CHOICE_FUNCTION", "LONG_SUM_FUNCTION", "choose_ordered", "first_or_last", "last_of_ties",
    "moment_call", "moment_function", "ordered", "ordered_choice", "ordered_decimal_total", "ordered_long_sum", "scan_order", "SORTS_KEPT",
    "exclude_from_stars", "spark_keeps_sorts", "OBJECT_HASH", "object_hash_aggregation", "split_at_fallback", "positioned_items",
    "values_of", "field_of", "at", "collected_past_fallback", "joined_past_fallback", "first_or_last_past_fallback",
    "extreme_past_fallback", "several_tasks", "largest_task_set", "SORT_AGGREGATE", "RADIX_PLACES_FUNCTION",
    "radix_sort_aggregation", "mark_radix_sort", "RADIX_SORTED", "follow_radix_sorts",
]

ORDERED_CHOICE_FUNCTION = "vpush_ordered_choice"
"""A placeholder call ``vpush_ordered_choice(fast, exact)`` that :func:`choose_ordered` resolves into
the plan's two DuckDB queries."""

LONG_SUM_FUNCTION = "vpush_spark_long_sum"
MODE_FUNCTIONS = {duck: f"vpush_spark_mode_{duck.lower()}" for duck in ("INTEGER", "BIGINT", "VARCHAR", "BOOLEAN", "DATE")}
"""The engine functions of :func:`vpush.codec.spark_aggregates.spark_mode`, by the DuckDB type of
the values: (STRUCT(v T, o BIGINT)[]) -> T."""
"""The engine function of :func:`vpush.codec.spark_aggregates.spark_long_sum` (``LIST(BIGINT)``)."""

MOMENT_FUNCTIONS: dict[type[exp.Expr], str] = {
    exp.VariancePop: "var_pop", exp.Variance: "var_samp", exp.StddevPop: "stddev_pop", exp.StddevSamp: "stddev_samp",
    exp.Stddev: "stddev_samp", exp.Skewness: "skewness", exp.Kurtosis: "kurtosis", exp.CovarPop: "covar_pop",
    exp.CovarSamp: "covar_samp", exp.Corr: "corr", exp.RegrSxx: "regr_sxx", exp.RegrSyy: "regr_syy",
    exp.RegrSxy: "regr_sxy", exp.RegrSlope: "regr_slope", exp.RegrIntercept: "regr_intercept", exp.RegrR2: "regr_r2",
}
"""Spark's moment aggregates by their sqlglot node, with the kind the kernel computes (``std`` is
parsed as a call: :func:`moment_function` takes it by name)."""

_LONG_RANGE = (-(2**63), 2**63 - 1)


def moment_function(kind: str) -> str:
    """The engine function that computes the moment ``kind`` over lists of doubles."""
    return f"vpush_spark_{kind}"


def scan_order(scope: Scope) -> exp.Expr | None:
    """The order column of the rows ``scope``'s SELECT aggregates (over a broadcast hash join of
    two tables, the place :func:`~vpush.optimizer.spark_joins.join_order` gives), or None where
    vpush does not know Spark's order of them (another join, a lateral view, a DISTINCT
    aggregate beside the others).

    The SELECT reads one table directly (whose scan is then marked ordered), or a subquery or a
    CTE that projects, filters and sorts such rows (:func:`_carry_order` makes it give the column
    too), or a ``UNION ALL`` of such; each row's time windows follow it.

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` where the rows are time windows
            (:mod:`~vpush.optimizer.rewrite_time_windows`) whose order vpush does not know.
    """
    if scope.expression.meta.get(SESSIONS_MERGED) is not None:
        refuse_on_duckdb("session_window", "an aggregate that depends on the order of rows, over merged sessions (Spark "
                         "sorts each group's rows by their session's start within each task, then merges the tasks' sessions)")
    column = _scan_order(scope)
    if column is None and _expands_time_windows(scope.expression):
        refuse_on_duckdb("window", "an aggregate that depends on the order of rows, over time windows of rows whose "
                         "order vpush does not follow (a join, a sorted subquery)")
    return column


def _expands_time_windows(query: exp.Expr | None) -> bool:
    """Whether ``query``'s rows are time windows of its source's, or its source's are."""
    if not isinstance(query, exp.Select):
        return False
    if any(TIME_WINDOW_JOIN in j.meta for j in query.args.get("joins") or []):
        return True
    source = query.args.get("from_")
    return source is not None and _expands_time_windows(_query(source.this))


def _scan_order(scope: Scope) -> exp.Expr | None:
    select = scope.expression
    if not isinstance(select, exp.Select) or select.args.get("laterals"):
        return None
    if any(not isinstance(d.parent, exp.Select) for d in select.find_all(exp.Distinct)):
        # Spark computes the other aggregates of a SELECT with a DISTINCT one per distinct value
        # first, and merges those buffers in its hash table's order
        return None
    joins = select.args.get("joins") or []
    windows = [j for j in joins if TIME_WINDOW_JOIN in j.meta]
    if windows and len(windows) != len(joins):
        return None  # a join beside time windows (scan_order refuses it)
    if joins and not windows:
        place = join_order(select)
        if place is not None:
            place.meta[_WIDE_ORDER] = not isinstance(place, exp.Column)
        return place
    source = _from(select)
    keep_sorts = select.meta.get(SORTS_KEPT, True)
    kind = _carries(source, keep_sorts) if source is not None else None
    if source is None or kind is None:
        return None
    _carry_order(source, keep_sorts)
    column = _order_of(source)
    for window in windows:
        # each row's time windows after it, in Spark's Expand order
        column = order_past_time_window(window, column)
    column.meta[_WIDE_ORDER] = kind == _WIDE or bool(windows)
    return column


def _order_of(source: exp.Expr) -> exp.Column:
    """:data:`ORDER_COLUMN` of a SELECT's source (unqualified where the source has no name)."""
    alias = source.alias_or_name
    return exp.column(exp.to_identifier(ORDER_COLUMN, quoted=True), table=exp.to_identifier(alias, quoted=True) if alias else None)


SORTS_KEPT = "vpush_sorts_kept"
"""The meta key on a SELECT with aggregates: False where Spark's optimizer drops the sorts below
it (``EliminateSorts``: every aggregate's answer is the same in any order), True or absent
otherwise (:func:`spark_keeps_sorts`)."""

_CARRIED = "vpush_order_carried"
_WIDE_ORDER = "vpush_wide_order"  # on an order column that is a hugeint (a UNION ALL's)

DOUBLE_SUM_FUNCTION = "vpush_spark_double_sum"
"""The engine function of :func:`vpush.codec.spark_aggregates.spark_double_sum`."""


def spark_keeps_sorts(select: exp.Select, floating: Callable[[exp.Expr], bool]) -> bool:
    """Whether Spark keeps a sort in the subqueries below ``select``'s aggregates: its
    ``EliminateSorts`` drops them where every aggregate is ``min``, ``max``, ``count``, a bit
    aggregate, or ``sum``/``avg`` of an argument that is not a float or a double (``floating``);
    every other aggregate (``first``, ``collect_list``, the moments over their doubles) keeps them.

    Example:
        >>> from sqlglot import parse_one
        >>> spark_keeps_sorts(parse_one("SELECT sum(b), max(x) FROM s"), lambda node: False)
        False
        >>> spark_keeps_sorts(parse_one("SELECT sum(b), first(x) FROM s"), lambda node: False)
        True
    """
    for node in _own_nodes(select):
        if not isinstance(node, exp.AggFunc) or isinstance(node.parent, exp.Window):
            continue
        if isinstance(node, (exp.Min, exp.Max, exp.Count, exp.BitwiseAndAgg, exp.BitwiseOrAgg, exp.BitwiseXorAgg)):
            continue
        if isinstance(node, (exp.Sum, exp.Avg)) and not isinstance(node.this, exp.Distinct) and not floating(node.this):
            continue
        return True
    return False


def _own_nodes(node: exp.Expr) -> list[exp.Expr]:
    out = [node]
    for child in node.iter_expressions():
        if not isinstance(child, (exp.Select, exp.Subquery, exp.SetOperation, exp.From, exp.Join)):
            out.extend(_own_nodes(child))
    return out


def _from(select: exp.Select) -> exp.Expr | None:
    """The one source ``select`` reads (no join but its time windows', no lateral view)."""
    if any(TIME_WINDOW_JOIN not in j.meta for j in select.args.get("joins") or []) or select.args.get("laterals"):
        return None
    from_ = select.args.get("from_")
    return from_.this if from_ is not None else None


def _query(source: exp.Expr) -> exp.Expr | None:
    """The scan, or the query, that a SELECT's source ``source`` reads: a table that becomes a
    scan itself, a subquery's query, or a CTE's (one referenced once: its output changes)."""
    if isinstance(source, exp.Table) and not source.args.get("sample") and not source.args.get("pivots"):
        if SCAN_INDEX in source.meta:
            return source
        if source.args.get("db"):
            return None
        for parent in _ancestors(source):
            with_ = parent.args.get("with_") if isinstance(parent, exp.Query) else None
            for cte in with_.expressions if with_ is not None else []:
                if cte.alias_or_name.lower() == source.name.lower():
                    uses = [t for t in parent.find_all(exp.Table) if not t.args.get("db") and t.name.lower() == source.name.lower()]
                    return cte.this if len(uses) == 1 else None
        return None
    if isinstance(source, exp.Subquery) and not source.args.get("sample") and not source.args.get("pivots"):
        return source.this.unnest() if isinstance(source.this, exp.Subquery) else source.this
    return None


def _ancestors(node: exp.Expr) -> list[exp.Expr]:
    out = []
    parent = node.parent
    while parent is not None:
        out.append(parent)
        parent = parent.parent
    return out


def _branches(union: exp.Union) -> list[exp.Expr]:
    """The queries a chain of ``UNION ALL`` puts together, in order."""
    out: list[exp.Expr] = []
    for side in (union.this, union.expression):
        side = side.unnest() if isinstance(side, exp.Subquery) else side
        if isinstance(side, exp.Union) and not side.args.get("distinct") and not side.args.get("order") and not side.args.get("limit"):
            out.extend(_branches(side))
        else:
            out.append(side)
    return out


_NARROW, _SORTED, _WIDE = "narrow", "sorted", "wide"


def _carries(source: exp.Expr, keep_sorts: bool) -> str | None:
    """How the rows of a SELECT's source ``source`` come in Spark's order (in one task), or None
    where vpush does not follow it: ``narrow`` (a scan's order: a ``bigint``), ``sorted`` (an
    ``ORDER BY`` below: a row number) or ``wide`` (a ``UNION ALL``'s branches: a ``hugeint``)."""
    query = _query(source)
    if query is None:
        return None
    if isinstance(query, exp.Table):
        return _NARROW
    if isinstance(query, exp.Union):
        if query.args.get("distinct") or query.args.get("order") or query.args.get("limit") or query.args.get("offset"):
            return None
        kinds = [_select_carries(b, keep_sorts) if isinstance(b, exp.Select) else None for b in _branches(query)]
        return _WIDE if all(k in (_NARROW, _SORTED) for k in kinds) else None
    return _select_carries(query, keep_sorts) if isinstance(query, exp.Select) else None


def _select_carries(select: exp.Select, keep_sorts: bool) -> str | None:
    # a SELECT that only projects, filters and sorts the rows of one source keeps their order
    if select.meta.get(_CARRIED):
        return str(select.meta[_CARRIED])
    for key in ("group", "having", "qualify", "limit", "offset", "distinct", "windows", "laterals", "connect", "prewhere"):
        if select.args.get(key):
            return None
    if any(isinstance(n, (exp.AggFunc, exp.Window, exp.UDTF, exp.Explode)) for n in _own_nodes(select)):
        return None
    source = _from(select)
    inner = _carries(source, keep_sorts) if source is not None else None
    if inner is not None and select.args.get("joins"):
        inner = _WIDE  # its time windows' places (order_past_time_window) are hugeints
    if inner is None or not select.args.get("order") or not keep_sorts:
        return inner
    # Spark drops a sort below another (EliminateSorts): vpush follows one sort only
    return _SORTED if inner == _NARROW else None


def _carry_order(source: exp.Expr, keep_sorts: bool) -> None:
    """Make the query ``source`` reads give :data:`ORDER_COLUMN` (:func:`_carries` said how)."""
    query = _query(source)
    if isinstance(query, exp.Table):
        query.meta[ORDERED_SCAN] = True
    elif isinstance(query, exp.Union):
        for rank, branch in enumerate(_branches(query)):
            assert isinstance(branch, exp.Select)
            _carry_select(branch, keep_sorts, rank)
    elif isinstance(query, exp.Select):
        _carry_select(query, keep_sorts, None)


def _carry_select(select: exp.Select, keep_sorts: bool, branch: int | None) -> None:
    if select.meta.get(_CARRIED):
        return
    kind = _select_carries(select, keep_sorts)
    select.meta[_CARRIED] = kind
    source = _from(select)
    assert source is not None
    _carry_order(source, keep_sorts)
    place: exp.Expr = _order_of(source)
    if not isinstance(_query(source), exp.Table):
        exclude_from_stars(select, source.alias_or_name, [ORDER_COLUMN])
    for window in select.args.get("joins") or []:
        place = order_past_time_window(window, place)  # (_from: only time windows' joins)
    order = select.args.get("order")
    if order is not None and keep_sorts:
        # Spark's sort is stable: rows tied on its keys keep the order they came in
        keys = [_resolved_key(select, k.copy()) for k in order.expressions] + [exp.Ordered(this=place, nulls_first=False)]
        place = exp.Window(this=exp.RowNumber(), order=exp.Order(expressions=keys))
    if branch is not None:
        # each branch of a UNION ALL after the ones before it
        place = exp.Add(this=exp.cast(place, exp.DataType.build("HUGEINT")), expression=exp.cast(
            exp.Literal.number(branch << 64), exp.DataType.build("HUGEINT")))
    select.append("expressions", exp.alias_(place, exp.to_identifier(ORDER_COLUMN, quoted=True), copy=False))


def _resolved_key(select: exp.Select, key: exp.Ordered) -> exp.Ordered:
    """An ORDER BY key of ``select`` as a window's key: an ordinal or a projection's alias is
    replaced by the projection's expression (DuckDB and Spark take the alias first)."""
    projections = {p.alias.lower(): p for p in select.expressions if isinstance(p, exp.Alias)}
    for node in [key.this, *key.this.find_all(exp.Column)]:
        if isinstance(node, exp.Literal) and node is key.this and node.is_int:
            position = int(node.name) - 1
            if 0 <= position < len(select.expressions):
                key.set("this", select.expressions[position].unalias().copy())
            break
        if isinstance(node, exp.Column) and not node.table and node.name.lower() in projections:
            replacement = projections[node.name.lower()].this.copy()
            if node is key.this:
                key.set("this", replacement)
            else:
                node.replace(exp.Paren(this=replacement))
    return key


def exclude_from_stars(select: exp.Select, alias: str, names: list[str]) -> None:
    """Keep the columns ``names`` that vpush adds to the source ``alias`` out of ``*`` and
    ``alias.*`` in ``select``.

    Example:
        >>> select = exp.select("*").from_("t")
        >>> exclude_from_stars(select, "t", ["o"])
        >>> select.sql("duckdb")
        'SELECT * EXCLUDE ("o") FROM t'
    """
    for projection in select.expressions:
        star = projection
        if isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star):
            if projection.table.lower() != alias.lower():
                continue
            star = projection.this
        if isinstance(star, exp.Star):
            excluded = list(star.args.get("except_") or [])
            there = {e.name.lower() for e in excluded}
            star.set("except_", excluded + [exp.column(exp.to_identifier(n, quoted=True)) for n in names if n.lower() not in there])


def ordered(value: exp.Expr, order: exp.Expr | None, *, descending: bool = False) -> exp.Expr:
    """``value ORDER BY order`` for an aggregate's argument (``value`` alone without an order).

    Example:
        >>> exp.Sum(this=ordered(exp.column("x"), exp.column("o", table="t"))).sql("duckdb")
        'SUM(x ORDER BY t.o ASC)'
    """
    if order is None:
        return value
    return exp.Order(this=value, expressions=[exp.Ordered(this=order.copy(), desc=descending)])


def positioned_list(value: exp.Expr, of_type: str, order: exp.Expr | None, condition: exp.Expr | None) -> exp.Expr:
    """The list of each group's ``value`` (cast to ``of_type``) where ``condition`` holds, each
    item with its row's place in ``order`` (:data:`~vpush.codec.spark_aggregates.POSITION`): the
    kernel puts the values in that order itself, cheaper than DuckDB's sort for an ordered
    aggregate. A ``hugeint`` order (a UNION ALL's) DuckDB sorts by; without one, the places are
    0 and the values come in DuckDB's order.

    Example:
        >>> positioned_list(exp.column("x"), "DOUBLE", exp.column("o"), None).sql("duckdb")
        "LIST({'v': CAST(x AS DOUBLE), 'o': o})"
    """
    narrow = order is not None and not order.meta.get(_WIDE_ORDER)
    place = order.copy() if narrow and order is not None else exp.cast(exp.Literal.number(0), exp.DataType.build("BIGINT"))
    item: exp.Expr = exp.Struct(expressions=[
        exp.PropertyEQ(this=exp.to_identifier(POSITIONED_VALUE), expression=exp.cast(value.copy(), exp.DataType.build(of_type))),
        exp.PropertyEQ(this=exp.to_identifier(POSITION), expression=place),
    ])
    if not narrow:
        item = ordered(item, order)
    return _filtered(exp.Anonymous(this="list", expressions=[item]), condition)


PERCENTILE_APPROX_FUNCTION = "vpush_spark_percentile_approx"
"""The engine function of :func:`vpush.codec.spark_aggregates.spark_percentile_approx`
(positioned doubles, the percentages, the accuracy: a list of doubles)."""

ORDER_FREE_PERCENTILE_ROWS = 50_000
"""``QuantileSummaries.defaultHeadSize``: a group of fewer values stays in the summary's head until
the task serializes it, where they are sorted, so its ``percentile_approx`` does not depend on the
order of rows."""


HASH_FALLBACK_GROUPS = 128
"""``spark.sql.objectHashAggregate.sortBased.fallbackThreshold``'s default: once a task's
``ObjectHashAggregateExec`` (the aggregation of ``percentile_approx``, ``collect_list``, ...) holds
that many groups and more rows follow, it sorts the rest by group and merges each group's buffer of
the later rows with the one it kept."""


def percentile_approx_call(
    value: exp.Expr, order: exp.Expr | None, condition: exp.Expr | None, percentages: list[float], accuracy: int,
    functions: dict[str, SparkType], fallback: exp.Expr | None = None,
) -> exp.Expression:
    """Spark's ``percentile_approx`` of ``value`` (a double, as Spark converts its argument) at
    ``percentages`` with ``accuracy``, fed its rows in ``order`` (DuckDB's without one): the engine
    call, a list of doubles per group, NULL where no row has a value; ``condition`` is the
    aggregate's FILTER, ``fallback`` the place after which Spark's hash aggregation fell back to
    sorting (:func:`hash_fallback_place`; NULL where it did not).

    Example:
        >>> call = percentile_approx_call(exp.column("x"), exp.column("o"), None, [0.5], 100, {})
        >>> call.sql("duckdb")
        "VPUSH_SPARK_PERCENTILE_APPROX(LIST({'v': CAST(x AS DOUBLE), 'o': o}) FILTER(WHERE NOT x IS NULL), [CAST('0.5' AS DOUBLE)], 100, CAST(NULL AS BIGINT))"
    """
    functions[PERCENTILE_APPROX_FUNCTION] = ArrayType(AtomicType("double"))
    double = exp.DataType.build("DOUBLE")
    # as text: DuckDB reads a numeric literal as a decimal, whose cast may round otherwise than Java's
    wanted = exp.Array(expressions=[exp.cast(exp.Literal.string(repr(p)), double) for p in percentages])
    values = positioned_list(value, "DOUBLE", order, _both(condition, _present(value)))
    place = fallback if fallback is not None else exp.cast(exp.Null(), exp.DataType.build("BIGINT"))
    return exp.Anonymous(this=PERCENTILE_APPROX_FUNCTION, expressions=[values, wanted, exp.Literal.number(accuracy), place])


HISTOGRAM_NUMERIC_FUNCTION = "vpush_spark_histogram_numeric"
"""The engine function of :func:`vpush.codec.spark_aggregates.spark_histogram_numeric`
(positioned doubles, the bins, the fallback place: a list of ``{x, y}`` doubles)."""


def histogram_numeric_call(
    value: exp.Expr, order: exp.Expr | None, condition: exp.Expr | None, nbins: int, functions: dict[str, SparkType],
    fallback: exp.Expr | None = None,
) -> exp.Expression:
    """Spark's ``histogram_numeric`` of ``value`` (a double, as Spark converts its argument) with
    ``nbins`` bins, fed its rows in ``order`` (DuckDB's without one): the engine call, a list of
    ``{x, y}`` doubles per group, NULL where no row has a value; ``condition`` and ``fallback``
    as :func:`percentile_approx_call` takes them.

    Example:
        >>> histogram_numeric_call(exp.column("x"), exp.column("o"), None, 3, {}).sql("duckdb")
        "VPUSH_SPARK_HISTOGRAM_NUMERIC(LIST({'v': CAST(x AS DOUBLE), 'o': o}) FILTER(WHERE NOT x IS NULL), 3, CAST(NULL AS BIGINT))"
    """
    functions[HISTOGRAM_NUMERIC_FUNCTION] = ArrayType(StructType((StructField("x", AtomicType("double")), StructField("y", AtomicType("double")))))
    values = positioned_list(value, "DOUBLE", order, _both(condition, _present(value)))
    place = fallback if fallback is not None else exp.cast(exp.Null(), exp.DataType.build("BIGINT"))
    return exp.Anonymous(this=HISTOGRAM_NUMERIC_FUNCTION, expressions=[values, exp.Literal.number(nbins), place])


def hash_fallback_place(order: exp.Expr) -> exp.Expression | None:
    """In a SELECT with GROUP BY, the place of the row after which Spark's ``ObjectHashAggregateExec``
    falls back to sorting: the first row of the :data:`HASH_FALLBACK_GROUPS`-th group it meets,
    where a row follows it (else NULL); a window over the groups' first places. None for a
    ``hugeint`` order (a UNION ALL's), whose places the kernel does not get.

    Example:
        >>> hash_fallback_place(exp.column("o")).sql("duckdb")[:87]
        'CASE WHEN NTH_VALUE(MIN(o), 128) OVER (ORDER BY MIN(o) ROWS BETWEEN UNBOUNDED PRECEDING'
    """
    if order.meta.get(_WIDE_ORDER):
        return None
    first = exp.Min(this=order.copy())
    nth = exp.Window(
        this=exp.NthValue(this=first, offset=exp.Literal.number(HASH_FALLBACK_GROUPS)),
        order=exp.Order(expressions=[exp.Ordered(this=first.copy())]),
        spec=exp.WindowSpec(kind="ROWS", start="UNBOUNDED", start_side="PRECEDING", end="UNBOUNDED", end_side="FOLLOWING"),
    )
    last = exp.Window(this=exp.Max(this=exp.Max(this=order.copy())))
    return exp.Case(ifs=[exp.If(this=exp.LT(this=nth, expression=last), true=nth.copy())])


def several_tasks(order: exp.Expr) -> exp.Expression:
    """Whether the rows of a SELECT with GROUP BY (an aggregate's window over its groups) come
    from more than one Spark task: their places in ``order`` hold more than one task
    (:data:`~vpush.optimizer.plan.ORDER_TASK_SHIFT`).

    Example:
        >>> several_tasks(exp.column("o")).sql("duckdb")
        '(MAX(MAX(o)) OVER () >> 52) <> (MIN(MIN(o)) OVER () >> 52)'
    """
    def task(extreme: type[exp.Max] | type[exp.Min]) -> exp.Expression:
        return exp.BitwiseRightShift(this=exp.Window(this=extreme(this=extreme(this=order.copy()))), expression=exp.Literal.number(ORDER_TASK_SHIFT))

    return exp.NEQ(this=task(exp.Max), expression=task(exp.Min))


def largest_task_set(member: exp.Expr, order: exp.Expr, condition: exp.Expr | None) -> exp.Expression | None:
    """The most distinct non-NULL values of ``member`` that one Spark task's rows of a group hold
    (where ``condition``, a FILTER, holds), each row's task from its place in ``order``; None
    for a ``UNION ALL``'s order (its branches' places carry no task: read as one task).

    Example:
        >>> str(largest_task_set(exp.column("x"), exp.column("o"), None).sql("duckdb"))[:60]
        'LIST_MAX(LIST_TRANSFORM(LIST_DISTINCT(LIST_TRANSFORM(LIST_DI'
    """
    if order.meta.get(_WIDE_ORDER):
        return None
    task = exp.BitwiseRightShift(this=order.copy(), expression=exp.Literal.number(ORDER_TASK_SHIFT))
    pair = exp.Struct(expressions=[exp.PropertyEQ(this=exp.to_identifier("t"), expression=task),
                                   exp.PropertyEQ(this=exp.to_identifier("v"), expression=member.copy())])
    # list_distinct of the list, not LIST(DISTINCT ...): a DISTINCT aggregate would tell the
    # SELECT's other aggregates that vpush does not know Spark's order of rows (scan_order)
    pairs = exp.Anonymous(this="list_distinct", expressions=[
        _filtered(exp.Anonymous(this="list", expressions=[pair]), _both(condition, _present(member)))])
    item, each = exp.to_identifier("__vpush_pair"), exp.to_identifier("__vpush_task")
    tasks = exp.Anonymous(this="list_distinct", expressions=[exp.Anonymous(this="list_transform", expressions=[
        pairs, exp.Lambda(this=exp.column("t", table=item.copy()), expressions=[item.copy()])])])
    same = exp.EQ(this=exp.column("t", table=item.copy()), expression=exp.column(each.copy()))
    count = exp.Anonymous(this="len", expressions=[exp.Anonymous(this="list_filter", expressions=[
        pairs.copy(), exp.Lambda(this=same, expressions=[item.copy()])])])
    return exp.Anonymous(this="list_max", expressions=[exp.Anonymous(this="list_transform", expressions=[
        tasks, exp.Lambda(this=count, expressions=[each.copy()])])])


def ordered_double_sum(
    value: exp.Expr, order: exp.Expr, condition: exp.Expr | None, functions: dict[str, SparkType], fallback: exp.Expr | None = None,
) -> exp.Expression:
    """Spark's ``sum`` of ``value`` as doubles, added in ``order`` (NULL where no row has one);
    ``condition`` is the aggregate's FILTER, ``fallback`` the place after which Spark's hash
    aggregation fell back to sorting (:func:`hash_fallback_place`; None or NULL where it did not)."""
    functions[DOUBLE_SUM_FUNCTION] = AtomicType("double")
    values = positioned_list(value, "DOUBLE", order, _both(condition, _present(value)))
    return exp.Anonymous(this=DOUBLE_SUM_FUNCTION, expressions=[values, _place(fallback)])


def _place(fallback: exp.Expr | None) -> exp.Expr:
    return fallback if fallback is not None else exp.cast(exp.Null(), exp.DataType.build("BIGINT"))


_BY_ROW = (exp.RowNumber, exp.Lag, exp.Lead, exp.Ntile)
_BY_ORDER = (exp.First, exp.Last, exp.FirstValue, exp.LastValue, exp.AnyValue, exp.ArrayAgg)


def window_in_order(window: exp.Window, order: exp.Expr) -> None:
    """Give ``window``'s function the rows in Spark's order where it depends on it: Spark sorts a
    window's rows by its partition and ORDER BY keys stably, tied rows in the order they came
    (measured on Spark 4.3), where DuckDB's window sort leaves ties in any order. A function of
    rows (``row_number``, ``lag``, ``lead``, ``ntile``) or a ROWS frame takes ``order`` as the
    window's last key (peers do not matter there); ``first``/``last``/``first_value``/
    ``last_value``/``any_value``/``collect_list`` take their frame's rows by the window's keys
    and then ``order`` (the frame itself is unchanged).

    Example:
        >>> window = exp.Window(this=exp.First(this=exp.column("x")), partition_by=[exp.column("g")])
        >>> window_in_order(window, exp.column("o"))
        >>> window.sql("duckdb")
        'FIRST(x ORDER BY o) OVER (PARTITION BY g)'
    """
    function = window.this.this if isinstance(window.this, exp.Filter) else window.this
    spec = window.args.get("spec")
    keys = list(window.args["order"].expressions) if window.args.get("order") is not None else []
    last = exp.Ordered(this=order.copy(), nulls_first=False)
    if isinstance(function, _BY_ROW) or (spec is not None and str(spec.args.get("kind") or "").upper() == "ROWS"):
        window.set("order", exp.Order(expressions=[*keys, last]))
    if isinstance(function, _BY_ORDER) and not isinstance(function.this, (exp.Order, exp.Distinct)):
        function.set("this", exp.Order(this=function.this, expressions=[*(k.copy() for k in keys), last.copy()]))


def _filtered(call: exp.Expr, condition: exp.Expr | None) -> exp.Expr:
    return call if condition is None else exp.Filter(this=call, expression=exp.Where(this=condition))


def _both(left: exp.Expr | None, right: exp.Expr) -> exp.Expr:
    return right if left is None else exp.and_(exp.Paren(this=left.copy()), right, copy=False)


def _present(value: exp.Expr) -> exp.Expr:
    return exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null()))


def moment_call(
    kind: str, values: list[exp.Expr], order: exp.Expr | None, condition: exp.Expr | None, functions: dict[str, SparkType],
    fallback: exp.Expr | None = None,
) -> exp.Expression:
    """The engine call of the moment ``kind`` over the lists of its arguments as doubles, in
    ``order``, leaving out the rows where one is NULL (Spark's update skips them) and those
    ``condition`` (an aggregate's FILTER) leaves out; ``fallback`` as :func:`ordered_double_sum`
    takes it."""
    kept: exp.Expr | None = condition
    for value in values:
        kept = _both(kept, _present(value))
    lists = [positioned_list(v, "DOUBLE", order, kept) for v in values]
    if (kind in BIVARIATE_KINDS) != (len(values) == 2):
        raise ValueError(f"{kind} takes {'two' if kind in BIVARIATE_KINDS else 'one'} argument(s)")
    functions[moment_function(kind)] = AtomicType("double")
    return exp.Anonymous(this=moment_function(kind), expressions=[*lists, _place(fallback)])


def last_of_ties(call: exp.ArgMax | exp.ArgMin, key: exp.Expr, order: exp.Expr) -> exp.Expression:
    """Spark's ``max_by``/``min_by``: the value at the extreme ``key``, the last row in ``order``
    among rows tied on it (NULL keys skipped; the value kept even when NULL).

    Example:
        >>> call = exp.ArgMin(this=exp.column("id"), expression=exp.column("h"))
        >>> last_of_ties(call, exp.column("h"), exp.column("o")).sql("duckdb")
        "ARG_MIN_NULL(id, CASE WHEN h IS NULL THEN NULL ELSE {'k': h, 'o': -o} END)"
    """
    place = order.copy() if isinstance(call, exp.ArgMax) else exp.Neg(this=order.copy())
    ranked = exp.Case(
        ifs=[exp.If(this=exp.Is(this=key.copy(), expression=exp.Null()), true=exp.Null())],
        default=exp.Struct(expressions=[exp.PropertyEQ(this=exp.to_identifier("k"), expression=key),
                                        exp.PropertyEQ(this=exp.to_identifier("o"), expression=place)]),
    )
    name = "arg_max_null" if isinstance(call, exp.ArgMax) else "arg_min_null"
    return exp.Anonymous(this=name, expressions=[call.this, ranked])


def first_or_last(value: exp.Expr, last: bool, order: exp.Expr) -> exp.Expression:
    """Spark's ``first``/``last`` as an aggregate: the value of the first or last row in ``order``."""
    return exp.Anonymous(this="arg_max_null" if last else "arg_min_null", expressions=[value, order.copy()])


def ordered_long_sum(
    value: exp.Expr, order: exp.Expr, condition: exp.Expr | None, checked: exp.Expr, overflow: exp.Expr,
    functions: dict[str, SparkType],
) -> exp.Expression:
    """Spark's ``sum`` of integers (a ``bigint``) where a running total may pass a long: ``checked``
    (the total, with the existing checks) where no running total can pass, else the retry marker;
    in the exact form, the values added in ``order`` by the kernel, ``overflow`` where a running
    total passes. ``condition`` is the aggregate's FILTER."""
    count = _filtered(exp.Count(this=value.copy()), condition)
    wide = exp.cast(count, exp.DataType.build("HUGEINT"))
    high = exp.Anonymous(this="greatest", expressions=[_filtered(exp.Max(this=value.copy()), condition), exp.Literal.number(0)])
    low = exp.Anonymous(this="least", expressions=[_filtered(exp.Min(this=value.copy()), condition), exp.Literal.number(0)])
    # Every running total lies between the count times the smallest value (or 0) and the count
    # times the largest (or 0): where both fit a long, no running total passes one.
    safe = exp.and_(
        exp.LTE(this=exp.Mul(this=wide, expression=high), expression=exp.Literal.number(_LONG_RANGE[1])),
        exp.GTE(this=exp.Mul(this=wide.copy(), expression=low), expression=exp.Literal.number(_LONG_RANGE[0])),
        copy=False,
    )
    retry = exp.cast(exp.Anonymous(this="error", expressions=[exp.Literal.string(ORDERED_RETRY_MARKER)]), exp.DataType.build("BIGINT"))
    fast = exp.Case(ifs=[exp.If(this=safe, true=checked)], default=retry)
    values = positioned_list(value, "BIGINT", order, _both(condition, _present(value)))
    total = exp.Anonymous(this=LONG_SUM_FUNCTION, expressions=[values])
    functions[LONG_SUM_FUNCTION] = AtomicType("bigint")
    exact = exp.Case(
        ifs=[
            exp.If(this=exp.EQ(this=count.copy(), expression=exp.Literal.number(0)), true=exp.cast(exp.Null(), exp.DataType.build("BIGINT"))),
            exp.If(this=exp.Is(this=total.copy(), expression=exp.Null()), true=overflow),
        ],
        default=total,
    )
    return ordered_choice(fast, exact)


def ordered_decimal_total(
    value: exp.Expr, order: exp.Expr, condition: exp.Expr | None, scale: int, checked: exp.Expr, to: exp.DataType,
    finish: Callable[[exp.Expression, exp.Expr], exp.Expression], function: str,
) -> exp.Expression:
    """Spark's ``sum``/``avg`` with GROUP BY of decimals whose total is a ``decimal(38, scale)``,
    where a running total may pass 38 digits (Spark's hash aggregation then raises, though the
    total fits): ``checked`` (the exact total's answer, typed ``to``) where no running total can
    pass, else the retry marker; in the exact form, ``finish(total, count)`` of the total the
    engine function ``function`` adds in ``order`` (NULL where a running total passed) and the
    count of values. ``condition`` is the aggregate's FILTER."""
    count = _filtered(exp.Count(this=value.copy()), condition)
    largest = _filtered(exp.Max(this=exp.Abs(this=value.copy())), condition)
    # Every running total is at most the count times the largest magnitude: where that stays
    # below 10^(38 - scale) (with a margin for the doubles' rounding), none passes 38 digits.
    bound = exp.Mul(this=exp.cast(count, exp.DataType.build("DOUBLE")),
                    expression=exp.cast(exp.Coalesce(this=largest, expressions=[exp.Literal.number(0)]), exp.DataType.build("DOUBLE")))
    safe = exp.LT(this=bound, expression=exp.Literal.number(f"0.99e{38 - scale}"))
    retry = exp.cast(exp.Anonymous(this="error", expressions=[exp.Literal.string(ORDERED_RETRY_MARKER)]), to)
    fast = exp.Case(ifs=[exp.If(this=safe, true=checked)], default=retry)
    values = positioned_list(value, f"DECIMAL(38, {scale})", order, _both(condition, _present(value)))
    total = exp.Anonymous(this=function, expressions=[values])
    return ordered_choice(fast, finish(total, count.copy()))


def ordered_choice(fast: exp.Expr, exact: exp.Expr) -> exp.Expression:
    """A placeholder for ``fast`` in the plan's first DuckDB query and ``exact`` in its ordered one."""
    return exp.Anonymous(this=ORDERED_CHOICE_FUNCTION, expressions=[fast, exact])


def choose_ordered(expression: exp.Expr) -> tuple[exp.Expr, exp.Expr | None]:
    """The query with each :func:`ordered_choice` resolved: its fast form, and (where it holds one)
    its exact form, or None.

    Example:
        >>> query = exp.select(ordered_choice(exp.column("fast"), exp.column("exact"))).from_("t")
        >>> fast, exact = choose_ordered(query)
        >>> fast.sql(), exact.sql() if exact is not None else None
        ('SELECT fast FROM t', 'SELECT exact FROM t')
    """
    if not any(_is_choice(node) for node in expression.find_all(exp.Anonymous)):
        return expression, None
    exact = expression.copy()
    for tree, pick in ((expression, 0), (exact, 1)):
        for node in [n for n in tree.find_all(exp.Anonymous) if _is_choice(n)]:
            node.replace(node.expressions[pick])
    return expression, exact


def _is_choice(node: exp.Expr) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.lower() == ORDERED_CHOICE_FUNCTION



def ordered_mode(value: exp.Expr, duck: str, order: exp.Expr) -> exp.Expr | None:
    """Spark's ``mode(x)`` of the values (a ``duck`` type of :data:`MODE_FUNCTIONS`) in ``order``,
    by the kernel; None where the order is a ``UNION ALL``'s, whose branches are tasks of their
    own in Spark (their buffers merged in the order the shuffle brings them).

    Example:
        >>> ordered_mode(exp.column("x"), "INTEGER", exp.column("o")).sql("duckdb")
        "VPUSH_SPARK_MODE_INTEGER(LIST({'v': CAST(x AS INT), 'o': o}) FILTER(WHERE NOT x IS NULL))"
    """
    if order.meta.get(_WIDE_ORDER):
        return None
    return exp.Anonymous(this=MODE_FUNCTIONS[duck], expressions=[positioned_list(value, duck, order, _present(value))])


OBJECT_HASH = "vpush_object_hash"
"""The meta key on a SELECT that Spark aggregates by ``ObjectHashAggregateExec`` (GROUP BY and a
``TypedImperativeAggregate`` among its aggregates: :func:`object_hash_aggregation`)."""

_TYPED_IMPERATIVE = (
    exp.ArrayAgg, exp.ArrayUniqueAgg, exp.GroupConcat, exp.Quantile, exp.Median, exp.Mode, exp.ApproxQuantile, exp.ApproxTopK,
    exp.PercentileCont, exp.PercentileDisc,
)
_TYPED_IMPERATIVE_NAMES = frozenset({
    "histogram_numeric", "count_min_sketch", "hll_sketch_agg", "hll_union_agg", "kll_sketch_agg_bigint", "kll_sketch_agg_float",
    "kll_sketch_agg_double", "theta_sketch_agg", "theta_union_agg", "theta_intersection_agg",
})


def object_hash_aggregation(select: exp.Select) -> bool:
    """Whether Spark aggregates ``select``'s rows by ``ObjectHashAggregateExec``: it has GROUP BY
    and a ``TypedImperativeAggregate`` (``collect_list``, ``collect_set``, ``string_agg``,
    ``percentile``, ``percentile_approx``, ``median``, ``mode``, ``histogram_numeric``, the
    sketches, ...: measured with Spark 4.3's EXPLAIN) among its aggregates, which every other
    aggregate of the SELECT then shares. Without such an aggregate Spark's ``HashAggregateExec``
    (or ``SortAggregateExec``) keeps its groups as they come, past 128 of them too.

    Example:
        >>> from sqlglot import parse_one
        >>> object_hash_aggregation(parse_one("SELECT g, first(x), collect_list(y) FROM t GROUP BY g", read="spark"))
        True
        >>> object_hash_aggregation(parse_one("SELECT g, first(x) FROM t GROUP BY g", read="spark"))
        False
    """
    if select.args.get("group") is None:
        return False
    for node in _own_nodes(select):
        if isinstance(node, exp.AggFunc) and isinstance(node.parent, exp.Window):
            continue
        if isinstance(node, _TYPED_IMPERATIVE) or (isinstance(node, exp.Anonymous) and node.name.lower() in _TYPED_IMPERATIVE_NAMES):
            return True
    return False


_SPLIT, _ITEM = "__vpush_split", "__vpush_item"
_LATEST_PLACE = 2**63 - 1


def split_at_fallback(items: exp.Expr, place: exp.Expr, body: Callable[[exp.Expr, exp.Expr], exp.Expr]) -> exp.Expression:
    """``body(later, earlier)`` of a group's positioned ``items`` (structs with a field
    :data:`~vpush.codec.spark_aggregates.POSITION`) split at the fallback ``place``
    (:func:`hash_fallback_place`, NULL where Spark's hash aggregation does not fall back): the
    items placed after it (which Spark's ``SortBasedAggregator`` feeds to a new buffer) and those
    at or before it (the buffer kept in the hash map, merged into the new one), each list in the
    items' order; ``items`` and ``place`` computed once (bound in a one-element ``list_transform``).

    Example:
        >>> split = split_at_fallback(exp.column("l"), exp.column("p"), lambda a, b: exp.Anonymous(this="list_concat", expressions=[a, b]))
        >>> split.sql("duckdb")[:100]
        "LIST_EXTRACT(LIST_TRANSFORM([{'s': l, 'p': COALESCE(p, 9223372036854775807)}], LAMBDA __vpush_split "
    """
    bound = exp.Struct(expressions=[
        exp.PropertyEQ(this=exp.to_identifier("s"), expression=items),
        exp.PropertyEQ(this=exp.to_identifier("p"), expression=exp.Coalesce(this=place, expressions=[exp.Literal.number(_LATEST_PLACE)])),
    ])
    split = exp.to_identifier(_SPLIT)

    def part(later: bool) -> exp.Expression:
        position = exp.column(POSITION, table=_ITEM)
        cut = exp.column("p", table=_SPLIT)
        test = exp.GT(this=position, expression=cut) if later else exp.LTE(this=position, expression=cut)
        return exp.Anonymous(this="list_filter", expressions=[exp.column("s", table=_SPLIT), exp.Lambda(this=test, expressions=[exp.to_identifier(_ITEM)])])

    once = exp.Anonymous(this="list_transform", expressions=[
        exp.Array(expressions=[bound]), exp.Lambda(this=body(part(True), part(False)), expressions=[split])])
    return exp.Anonymous(this="list_extract", expressions=[once, exp.Literal.number(1)])


def positioned_items(fields: dict[str, exp.Expr], order: exp.Expr, condition: exp.Expr | None) -> exp.Expr:
    """The list of each group's rows as structs of ``fields`` and their place in ``order``
    (:data:`~vpush.codec.spark_aggregates.POSITION`), in that order, where ``condition`` holds."""
    item = exp.Struct(expressions=[exp.PropertyEQ(this=exp.to_identifier(name), expression=value.copy()) for name, value in fields.items()]
                      + [exp.PropertyEQ(this=exp.to_identifier(POSITION), expression=order.copy())])
    return _filtered(exp.Anonymous(this="list", expressions=[ordered(item, order)]), condition)


def values_of(items: exp.Expr, field: str = POSITIONED_VALUE) -> exp.Expression:
    """The field ``field`` of each item of the list ``items``."""
    return exp.Anonymous(this="list_transform", expressions=[
        items, exp.Lambda(this=exp.column(field, table=_ITEM), expressions=[exp.to_identifier(_ITEM)])])


def field_of(item: exp.Expr, field: str = POSITIONED_VALUE) -> exp.Expression:
    """The field ``field`` of the struct ``item``."""
    return exp.Anonymous(this="struct_extract", expressions=[item, exp.Literal.string(field)])


def at(items: exp.Expr, index: int) -> exp.Expression:
    """The item of the list ``items`` at the 1-based ``index`` (-1: the last), NULL past its end."""
    return exp.Anonymous(this="list_extract", expressions=[items, exp.Literal.number(index)])


def _concatenated(later: exp.Expr, earlier: exp.Expr) -> exp.Expression:
    # Collect.merge appends the kept buffer's values to the new one's
    return exp.Anonymous(this="list_concat", expressions=[later, earlier])


def collected_past_fallback(value: exp.Expr, order: exp.Expr, place: exp.Expr, condition: exp.Expr | None = None) -> exp.Expression:
    """Spark's ``collect_list`` of ``value`` where its hash aggregation may fall back at ``place``
    (:func:`hash_fallback_place`): the values of a group's later rows first, then those of its
    rows up to the place, each part in ``order`` (NULLs left out, and the rows where the FILTER
    ``condition`` does not hold; NULL for no value).

    Example:
        >>> call = collected_past_fallback(exp.column("x"), exp.column("o"), exp.column("p"))
        >>> call.sql("duckdb")[:80]
        "LIST_EXTRACT(LIST_TRANSFORM([{'s': LIST({'v': x, 'o': o} ORDER BY o ASC) FILTER("
    """
    items = positioned_items({POSITIONED_VALUE: value}, order, _both(condition, _present(value)))
    return split_at_fallback(items, place, lambda later, earlier: values_of(_concatenated(later, earlier)))


def joined_past_fallback(
    value: exp.Expr, separator: exp.Expr, order: exp.Expr, place: exp.Expr, condition: exp.Expr | None = None,
) -> exp.Expression:
    """Spark's ``string_agg``/``listagg`` of the strings ``value`` joined by ``separator`` where its
    hash aggregation may fall back at ``place``: as :func:`collected_past_fallback` orders them
    (``ListAgg`` collects as ``collect_list`` does); NULL for no value; ``condition`` its FILTER."""
    items = positioned_items({POSITIONED_VALUE: value}, order, _both(condition, _present(value)))

    def joined(later: exp.Expr, earlier: exp.Expr) -> exp.Expression:
        both = _concatenated(later, earlier)
        text = exp.Anonymous(this="array_to_string", expressions=[values_of(both), separator.copy()])
        empty = exp.EQ(this=exp.Coalesce(this=exp.Anonymous(this="len", expressions=[both.copy()]), expressions=[exp.Literal.number(0)]),
                       expression=exp.Literal.number(0))
        return exp.Case(ifs=[exp.If(this=empty, true=exp.Null())], default=text)

    return split_at_fallback(items, place, joined)


def first_or_last_past_fallback(value: exp.Expr, last: bool, order: exp.Expr, place: exp.Expr, condition: exp.Expr | None) -> exp.Expression:
    """Spark's ``first``/``last`` of ``value`` (over the rows where ``condition`` holds: IGNORE
    NULLS) where its hash aggregation may fall back at ``place``: ``First.merge`` keeps the new
    buffer's value where it has one (the first of the later rows), else the kept one's;
    ``Last.merge`` the kept buffer's (the last of the rows up to the place), else the new one's."""
    items = positioned_items({POSITIONED_VALUE: value}, order, condition)

    def pick(later: exp.Expr, earlier: exp.Expr) -> exp.Expression:
        chosen = exp.Coalesce(this=at(earlier, -1), expressions=[at(later, -1)]) if last else exp.Coalesce(
            this=at(later, 1), expressions=[at(earlier, 1)])
        return field_of(chosen)

    return split_at_fallback(items, place, pick)


def extreme_past_fallback(
    call: exp.ArgMax | exp.ArgMin, key: exp.Expr, order: exp.Expr, place: exp.Expr, condition: exp.Expr | None = None,
) -> exp.Expression:
    """Spark's ``max_by``/``min_by`` (``call``, ordered by ``key``) where its hash aggregation may
    fall back at ``place``: each part's value at its extreme key, the last of the rows tied on it
    (:func:`last_of_ties`); ``MaxMinBy``'s merge keeps the new buffer's (the later rows') only
    where its key is strictly better than the kept one's. ``condition`` is its FILTER."""
    most = isinstance(call, exp.ArgMax)
    rank = order.copy() if most else exp.Neg(this=order.copy())
    # sorted by the key, then the place (negated for min_by): the first item is the part's choice
    items = positioned_items({"k": key, "q": rank, POSITIONED_VALUE: call.this}, order, _both(condition, _present(key)))

    def pick(later: exp.Expr, earlier: exp.Expr) -> exp.Expression:
        best = [at(exp.Anonymous(this="list_sort", expressions=[part, exp.Literal.string("DESC" if most else "ASC")]), 1)
                for part in (later, earlier)]
        better = (exp.GT if most else exp.LT)(this=field_of(best[0], "k"), expression=field_of(best[1].copy(), "k"))
        return exp.Case(ifs=[
            exp.If(this=exp.Is(this=best[1].copy(), expression=exp.Null()), true=field_of(best[0].copy())),
            exp.If(this=exp.Is(this=best[0].copy(), expression=exp.Null()), true=field_of(best[1].copy())),
            exp.If(this=better, true=field_of(best[0].copy())),
        ], default=field_of(best[1].copy()))

    return split_at_fallback(items, place, pick)


SORT_AGGREGATE = "vpush_sort_aggregate"
"""The meta key on a SELECT that Spark aggregates by ``SortAggregateExec`` over a radix sort of its
one GROUP BY key (:func:`radix_sort_aggregation`)."""

RADIX_PLACES_FUNCTION = "vpush_spark_radix_places"
"""The engine function of :func:`vpush.codec.spark_aggregates.spark_radix_places` (``BOOLEAN[]``
-> ``BIGINT[]``)."""

# SortPrefixUtils.canSortFullyWithPrefix (measured on Spark 4.3: timestamp_ntz and the ANSI
# intervals too; a decimal of more than 18 digits and a string sort by their comparator, stably)
_RADIX_KEYS = frozenset({"boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "date", "timestamp", "timestamp_ntz"})
_MAX_LONG_DIGITS = 18
# UnsafeRow.isMutable: what HashAggregateExec keeps in its buffer (decimals, ANSI intervals too;
# not Spark's calendar `interval`)
_IMMUTABLE = frozenset({"binary", "variant", "interval"})
_BY_VALUE = (exp.First, exp.Last, exp.AnyValue, exp.FirstValue, exp.LastValue, exp.Min, exp.Max, exp.ArgMax, exp.ArgMin)
_RADIX_ROWS, _RADIX_PLACES, _RADIX_SOURCE = "__vpush_radix_rows", "__vpush_radix_places", "__vpush_radix_source"
_NULL_KEY, _READ_PLACE, _PLACES, _NEW_PLACE = "__vpush_null_key", "__vpush_read_place", "__vpush_places", "__vpush_place"


def _radix_sortable(kind: SparkType | None) -> bool:
    if isinstance(kind, AtomicType):
        return kind.name in _RADIX_KEYS or kind.name.startswith("interval ")  # the ANSI intervals, not the calendar one
    return isinstance(kind, DecimalType) and kind.precision <= _MAX_LONG_DIGITS


def _mutable(kind: SparkType | None) -> bool:
    if kind is None:
        return True  # unknown: left as before
    if isinstance(kind, AtomicType):
        return kind.name not in _IMMUTABLE
    return isinstance(kind, DecimalType)


def _group_key(select: exp.Select) -> exp.Expr | None:
    """The one GROUP BY key of ``select`` (an ordinal or an alias as its projection), or None."""
    group = select.args.get("group")
    if group is None or any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets", "totals")) or len(group.expressions) != 1:
        return None
    key = group.expressions[0]
    if isinstance(key, (exp.Rollup, exp.Cube, exp.GroupingSets)):
        return None
    return _resolved_key(select, exp.Ordered(this=key.copy())).this.unalias()


def radix_sort_aggregation(select: exp.Select, of: Callable[[exp.Expr], SparkType | None]) -> bool:
    """Whether Spark aggregates ``select``'s rows by ``SortAggregateExec`` over a radix sort: one
    GROUP BY key of a type whose sort prefix orders it fully (``SortExec.canUseRadixSort``:
    integral, boolean, date, timestamp, floating, a decimal of at most 18 digits, an interval),
    and an aggregate whose buffer ``HashAggregateExec`` cannot keep (``first``, ``last``,
    ``min``, ``max``, ``max_by``, ... of a string, a binary, an array, a struct, a map, a
    variant), without a ``TypedImperativeAggregate`` (:func:`object_hash_aggregation`).
    ``of`` types an expression as Spark does.

    Example:
        >>> from sqlglot import parse_one
        >>> types = {"k": AtomicType("bigint"), "s": StringType(), "x": AtomicType("int")}
        >>> of = lambda node: types.get(node.name) if isinstance(node, exp.Column) else None
        >>> radix_sort_aggregation(parse_one("SELECT k, first(s) FROM t GROUP BY k", read="spark"), of)
        True
        >>> radix_sort_aggregation(parse_one("SELECT k, first(x) FROM t GROUP BY k", read="spark"), of)
        False
        >>> radix_sort_aggregation(parse_one("SELECT s, first(s) FROM t GROUP BY s", read="spark"), of)
        False
    """
    key = _group_key(select)
    if key is None or object_hash_aggregation(select):
        return False
    kind = of(key)
    if kind is None and isinstance(key.unnest(), (exp.Predicate, exp.Connector, exp.Not)):
        kind = AtomicType("boolean")  # (a comparison: the typer leaves it untyped)
    if not _radix_sortable(kind):
        return False
    for node in _own_nodes(select):
        if not isinstance(node, _BY_VALUE) or any(isinstance(a, exp.Window) for a in _ancestors(node)):
            continue
        values = [node.this, node.expression] if isinstance(node, (exp.ArgMax, exp.ArgMin)) else [node.this]
        if any(not _mutable(of(v)) for v in values if v is not None):
            return True
    return False


def mark_radix_sort(select: exp.Select, columns: Mapping[str, Collection[str]]) -> None:
    """Mark ``select`` (a :func:`radix_sort_aggregation`, marked :data:`SORT_AGGREGATE`, once
    rewritten) for :func:`follow_radix_sorts` where an aggregate of it follows Spark's order of
    rows (:data:`ORDER_COLUMN`) over one table's scan or a subquery that projects and filters it:
    the meta key :data:`RADIX_SORTED` holds the lower-cased names of its source's columns
    (``columns``, by the source's lower-cased alias). Left unmarked where the SELECT reads a join,
    a sorted subquery or a ``UNION ALL`` (their rows reach Spark's sort in other tasks)."""
    source = _from(select)
    if (not select.meta.get(SORT_AGGREGATE) or _group_key(select) is None or source is None or select.args.get("joins")
            or _carries(source, select.meta.get(SORTS_KEPT, True)) != _NARROW):
        return
    within = set(map(id, source.walk()))
    if any(c.name == ORDER_COLUMN for c in select.find_all(exp.Column) if id(c) not in within):
        select.meta[RADIX_SORTED] = frozenset(name.lower() for name in columns.get(source.alias_or_name.lower(), ()))
        if not source.alias_or_name:
            # (the SELECT reads its columns unqualified: the name is the wrapping subquery's)
            source.set("alias", exp.TableAlias(this=exp.to_identifier(_RADIX_SOURCE, quoted=True)))


RADIX_SORTED = "vpush_radix_sorted"
"""The meta key :func:`mark_radix_sort` sets on a SELECT whose source :func:`follow_radix_sorts` wraps."""


def follow_radix_sorts(expression: exp.Expr, functions: dict[str, SparkType]) -> None:
    """Give the aggregates of each SELECT of ``expression`` marked :data:`RADIX_SORTED` the rows of
    each group in the order Spark's radix sort leaves them
    (:func:`vpush.codec.spark_aggregates.spark_radix_places`): its source (the scan, as it finally
    reads), with the WHERE, becomes a subquery that gives the columns the SELECT reads and
    :data:`ORDER_COLUMN` as each row's place in that order (its task kept), from the places the
    engine function computes over each task's NULL keys. In place; records the engine function
    in ``functions``."""
    for select in [s for s in expression.find_all(exp.Select) if RADIX_SORTED in s.meta]:
        _follow_radix_sort(select, select.meta.pop(RADIX_SORTED), functions)


def _read_column(column: exp.Column, alias: str, source_columns: frozenset[str]) -> str | None:
    """The column of the source ``alias`` that ``column`` reads (``alias.c``, ``c``, or a field of
    it: ``alias.c.f``, ``c.f``), or None."""
    parts = [p.name for p in column.parts]
    if len(parts) > 1 and parts[0].lower() == alias.lower():
        return parts[1]
    return parts[0] if parts[0].lower() in source_columns else None


def _cte(name: str) -> exp.Table:
    return exp.Table(this=exp.to_identifier(name, quoted=True))


def _follow_radix_sort(select: exp.Select, source_columns: frozenset[str], functions: dict[str, SparkType]) -> None:
    key = _group_key(select)
    source = _from(select)
    if key is None or source is None:
        return
    alias = source.alias_or_name
    within = set(map(id, source.walk()))
    read = {_read_column(c, alias, source_columns) for c in select.find_all(exp.Column) if id(c) not in within} - {None, ORDER_COLUMN}
    names = sorted({n.lower(): n for n in read if n is not None}.values(), key=str.lower)
    table = exp.to_identifier(alias, quoted=True)

    def own(name: str, of_table: str = _RADIX_ROWS) -> exp.Column:
        return exp.column(exp.to_identifier(name, quoted=True), table=exp.to_identifier(of_table, quoted=True))

    rows = exp.select(
        *[exp.alias_(exp.column(exp.to_identifier(n, quoted=True), table=table.copy()), exp.to_identifier(n, quoted=True)) for n in names],
        exp.alias_(exp.column(exp.to_identifier(ORDER_COLUMN, quoted=True), table=table.copy()), exp.to_identifier(_READ_PLACE, quoted=True)),
        exp.alias_(exp.Is(this=exp.Paren(this=key.copy()), expression=exp.Null()), exp.to_identifier(_NULL_KEY, quoted=True)),
        copy=False,
    ).from_(source.pop(), copy=False)
    where = select.args.get("where")
    if where is not None:
        rows.set("where", where.pop())
    task = exp.BitwiseRightShift(this=own(_READ_PLACE), expression=exp.Literal.number(ORDER_TASK_SHIFT))

    def listed(name: str) -> exp.Expression:
        return exp.Anonymous(this="list", expressions=[exp.Order(this=own(name), expressions=[exp.Ordered(this=own(_READ_PLACE))])])

    per_task = exp.select(
        exp.alias_(listed(_READ_PLACE), exp.to_identifier(_READ_PLACE, quoted=True)),
        exp.alias_(listed(_NULL_KEY), exp.to_identifier(_NULL_KEY, quoted=True)),
        copy=False,
    ).from_(_cte(_RADIX_ROWS), copy=False).group_by(task, copy=False)
    functions[RADIX_PLACES_FUNCTION] = ArrayType(AtomicType("bigint"))
    places = exp.select(
        exp.alias_(exp.Explode(this=exp.column(exp.to_identifier(_READ_PLACE, quoted=True))), exp.to_identifier(_READ_PLACE, quoted=True)),
        exp.alias_(exp.Explode(this=exp.Anonymous(this=RADIX_PLACES_FUNCTION, expressions=[exp.column(exp.to_identifier(_NULL_KEY, quoted=True))])),
                   exp.to_identifier(_NEW_PLACE, quoted=True)),
        copy=False,
    ).from_(exp.Subquery(this=per_task, alias=exp.TableAlias(this=exp.to_identifier(_PLACES, quoted=True))), copy=False)
    kept = exp.BitwiseLeftShift(this=exp.Paren(this=task.copy()), expression=exp.Literal.number(ORDER_TASK_SHIFT))
    placed = exp.select(
        *[exp.alias_(own(n), exp.to_identifier(n, quoted=True)) for n in names],
        exp.alias_(exp.Add(this=exp.Paren(this=kept), expression=own(_NEW_PLACE, _RADIX_PLACES)), exp.to_identifier(ORDER_COLUMN, quoted=True)),
        copy=False,
    ).from_(_cte(_RADIX_ROWS), copy=False).join(
        _cte(_RADIX_PLACES),
        on=exp.EQ(this=own(_READ_PLACE), expression=own(_READ_PLACE, _RADIX_PLACES)), copy=False)
    placed.set("with_", exp.With(expressions=[
        exp.CTE(this=rows, alias=exp.TableAlias(this=exp.to_identifier(_RADIX_ROWS, quoted=True)), materialized=True),
        exp.CTE(this=places, alias=exp.TableAlias(this=exp.to_identifier(_RADIX_PLACES, quoted=True))),
    ]))
    select.set("from_", exp.From(this=exp.Subquery(this=placed, alias=exp.TableAlias(this=table.copy()))))
    exclude_from_stars(select, alias, [ORDER_COLUMN])
