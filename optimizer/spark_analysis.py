"""Checks of one SELECT as Spark's analyzer resolves it, where DuckDB's binder answers otherwise
(each measured on PySpark 4.3)."""
from __future__ import annotations

from sqlglot import exp

from vpush.optimizer.dialect import in_scope
from vpush.optimizer.errors import OptimizeError


def _aggregates(node: exp.Expr | None) -> list[exp.AggFunc]:
    """The aggregates in ``node``, not those of a window or of a nested query."""
    if node is None:
        return []
    home = node.find_ancestor(exp.Select)
    return [
        agg for agg in node.find_all(exp.AggFunc)
        if agg.find_ancestor(exp.Window) is None and agg.find_ancestor(exp.Select) is home
    ]


def aggregating(select: exp.Select) -> bool:
    """Whether ``select`` aggregates its rows: a GROUP BY, a HAVING, or an aggregate of its own
    (not a window's) among its projections.

    Example:
        >>> import sqlglot
        >>> aggregating(sqlglot.parse_one("SELECT max(a) OVER () FROM t"))
        False
        >>> aggregating(sqlglot.parse_one("SELECT 1 FROM t HAVING true"))
        True
    """
    return select.args.get("group") is not None or select.args.get("having") is not None or any(
        isinstance(n, exp.AggFunc) and n.find_ancestor(exp.Window, exp.Select) is select for p in select.expressions for n in in_scope(p))


def check_order_by_aggregates(select: exp.Select) -> None:
    """Raise Spark's error for an ORDER BY of an aggregate over a grouped SELECT with a HAVING of
    an aggregate and no aggregate among its projections: Spark cannot add the ORDER BY's aggregate
    below the HAVING's filter. Its argument is then a column the sort cannot see
    (``UNRESOLVED_COLUMN``) unless it is a grouping key; else the aggregate itself is refused
    there (``UNSUPPORTED_EXPR_FOR_OPERATOR``). With an aggregate projected, or a HAVING of the
    grouping keys only, Spark answers (as DuckDB does).

    Example:
        >>> from vpush.optimizer.plan_query import parse_spark
        >>> check_order_by_aggregates(parse_spark("SELECT g FROM t GROUP BY g HAVING count(*) > 1 ORDER BY count(*)"))
        Traceback (most recent call last):
        ...
        vpush.optimizer.errors.OptimizeError: [UNSUPPORTED_EXPR_FOR_OPERATOR] The query operator Sort contains one or more unsupported expressions: count(1)
    """
    group, having, order = select.args.get("group"), select.args.get("having"), select.args.get("order")
    if group is None or having is None or order is None:
        return
    if not _aggregates(having) or any(_aggregates(p) for p in select.expressions):
        return
    keys = {k.name.lower() for k in group.expressions if isinstance(k, exp.Column)}
    for agg in _aggregates(order):
        for column in agg.find_all(exp.Column):
            if column.name.lower() not in keys:
                raise OptimizeError(
                    f"A column, variable, or function parameter with name `{column.name}` cannot be resolved.",
                    error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION",
                )
    ordered = _aggregates(order)
    if ordered:
        shown = ordered[0].sql(dialect="spark").replace("COUNT(*)", "count(1)")
        raise OptimizeError(
            f"The query operator Sort contains one or more unsupported expressions: {shown}",
            error_class="UNSUPPORTED_EXPR_FOR_OPERATOR",
        )
