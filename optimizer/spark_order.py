"""Aggregates whose answer depends on the order Spark meets the rows in, computed in that order on
DuckDB.

Spark updates an aggregate's buffer row by row within a task, in the order its file scan reads
the rows: the files as ``FilePartition`` orders them (largest first), each file's rows in order.
DuckDB aggregates in parallel, chunks in any order. Where a SELECT reads one table directly (no
join, no subquery), the table's scan gives :data:`~vpush.optimizer.plan.ORDER_COLUMN` (each
row's place in Spark's order, :attr:`~vpush.optimizer.plan.Scan.ordered`), and these aggregates
take their rows in that order:

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

With several tasks (files), Spark merges each task's buffer in task order; vpush emulates one
task, which gives the same rows in the same order, and the same answer except in the last bits
of the floating-point aggregates.
"""
from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from vpush.codec.spark_aggregates import BIVARIATE_KINDS
from vpush.optimizer.plan import ORDER_COLUMN, ORDERED_RETRY_MARKER, ORDERED_SCAN, SCAN_INDEX
from vpush.optimizer.variant_types import AtomicType, SparkType

__all__ = [
    "MOMENT_FUNCTIONS", "ORDERED_CHOICE_FUNCTION", "LONG_SUM_FUNCTION", "choose_ordered", "first_or_last", "last_of_ties",
    "moment_call", "moment_function", "ordered", "ordered_choice", "ordered_decimal_total", "ordered_long_sum", "scan_order",
]

ORDERED_CHOICE_FUNCTION = "vpush_ordered_choice"
"""A placeholder call ``vpush_ordered_choice(fast, exact)`` that :func:`choose_ordered` resolves into
the plan's two DuckDB queries."""

LONG_SUM_FUNCTION = "vpush_spark_long_sum"
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


def scan_order(scope: Scope) -> exp.Column | None:
    """The order column of the one table ``scope``'s SELECT reads directly (marking its scan
    ordered), or None where the SELECT reads a join, a subquery or anything else (there Spark's
    order is its join's or its exchange's, which vpush does not follow), or has a DISTINCT
    aggregate."""
    select = scope.expression
    if not isinstance(select, exp.Select) or select.args.get("joins") or select.args.get("laterals"):
        return None
    if len(scope.sources) != 1:
        return None
    if any(not isinstance(d.parent, exp.Select) for d in select.find_all(exp.Distinct)):
        # Spark computes the other aggregates of a SELECT with a DISTINCT one per distinct value
        # first, and merges those buffers in its hash table's order
        return None
    ((alias, source),) = scope.sources.items()
    if not isinstance(source, exp.Table) or SCAN_INDEX not in source.meta:
        return None
    source.meta[ORDERED_SCAN] = True
    return exp.column(exp.to_identifier(ORDER_COLUMN, quoted=True), table=exp.to_identifier(alias, quoted=True))


def ordered(value: exp.Expr, order: exp.Column | None, *, descending: bool = False) -> exp.Expr:
    """``value ORDER BY order`` for an aggregate's argument (``value`` alone without an order).

    Example:
        >>> exp.Sum(this=ordered(exp.column("x"), exp.column("o", table="t"))).sql("duckdb")
        'SUM(x ORDER BY t.o ASC)'
    """
    if order is None:
        return value
    return exp.Order(this=value, expressions=[exp.Ordered(this=order.copy(), desc=descending)])


def _filtered(call: exp.Expr, condition: exp.Expr | None) -> exp.Expr:
    return call if condition is None else exp.Filter(this=call, expression=exp.Where(this=condition))


def _both(left: exp.Expr | None, right: exp.Expr) -> exp.Expr:
    return right if left is None else exp.and_(exp.Paren(this=left.copy()), right, copy=False)


def _present(value: exp.Expr) -> exp.Expr:
    return exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null()))


def moment_call(
    kind: str, values: list[exp.Expr], order: exp.Column | None, condition: exp.Expr | None, functions: dict[str, SparkType]
) -> exp.Expression:
    """The engine call of the moment ``kind`` over the lists of its arguments as doubles, in
    ``order``, leaving out the rows where one is NULL (Spark's update skips them) and those
    ``condition`` (an aggregate's FILTER) leaves out."""
    kept: exp.Expr | None = condition
    for value in values:
        kept = _both(kept, _present(value))
    lists = [
        _filtered(exp.Anonymous(this="list", expressions=[ordered(exp.cast(v.copy(), exp.DataType.build("DOUBLE")), order)]), kept)
        for v in values
    ]
    if (kind in BIVARIATE_KINDS) != (len(values) == 2):
        raise ValueError(f"{kind} takes {'two' if kind in BIVARIATE_KINDS else 'one'} argument(s)")
    functions[moment_function(kind)] = AtomicType("double")
    return exp.Anonymous(this=moment_function(kind), expressions=lists)


def last_of_ties(call: exp.ArgMax | exp.ArgMin, key: exp.Expr, order: exp.Column) -> exp.Expression:
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


def first_or_last(value: exp.Expr, last: bool, order: exp.Column) -> exp.Expression:
    """Spark's ``first``/``last`` as an aggregate: the value of the first or last row in ``order``."""
    return exp.Anonymous(this="arg_max_null" if last else "arg_min_null", expressions=[value, order.copy()])


def ordered_long_sum(
    value: exp.Expr, order: exp.Column, condition: exp.Expr | None, checked: exp.Expr, overflow: exp.Expr,
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
    values = _filtered(
        exp.Anonymous(this="list", expressions=[ordered(exp.cast(value.copy(), exp.DataType.build("BIGINT")), order)]),
        _both(condition, _present(value)),
    )
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
    value: exp.Expr, order: exp.Column, condition: exp.Expr | None, scale: int, checked: exp.Expr, to: exp.DataType,
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
    values = _filtered(exp.Anonymous(this="list", expressions=[ordered(value.copy(), order)]), _both(condition, _present(value)))
    total = exp.Anonymous(this=function, expressions=[values])
    return ordered_choice(fast, finish(total, count.copy()))


def ordered_choice(fast: exp.Expr, exact: exp.Expr) -> exp.Expression:
    """A placeholder for ``fast`` in the plan's first DuckDB query and ``exact`` in its ordered one."""
    return exp.Anonymous(this=ORDERED_CHOICE_FUNCTION, expressions=[fast, exact])


def choose_ordered(expression: exp.Expression) -> tuple[exp.Expression, exp.Expression | None]:
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

