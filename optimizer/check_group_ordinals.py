"""Spark's error for a GROUP BY position that names an aggregate (``GROUP BY 2`` over
``SELECT g, count(*)``): ``GROUP_BY_POS_AGGREGATE``, where DuckDB's binder refuses it without a
class of Spark's."""
from __future__ import annotations

from sqlglot import exp

from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.spark_semantics import spark_name


def check_group_ordinals(expression: exp.Expr) -> None:
    """Raise ``GROUP_BY_POS_AGGREGATE`` where a SELECT's GROUP BY position names a projection
    that holds an aggregate (not under a window), as Spark's analyzer does.

    Example:
        >>> from sqlglot import parse_one
        >>> check_group_ordinals(parse_one("SELECT g, count(*) FROM t GROUP BY 1"))
        >>> check_group_ordinals(parse_one("SELECT g, count(*) FROM t GROUP BY 1, 2"))
        Traceback (most recent call last):
        vpush.optimizer.errors.OptimizeError: [GROUP_BY_POS_AGGREGATE] GROUP BY 2 refers to an expression count(1) that contains an aggregate function. Aggregate functions are not allowed in GROUP BY.

    Raises:
        OptimizeError: ``GROUP_BY_POS_AGGREGATE``.
    """
    for select in expression.find_all(exp.Select):
        group = select.args.get("group")
        if group is None:
            continue
        for key in group.expressions:
            if not (isinstance(key, exp.Literal) and key.is_int):
                continue
            place = int(key.this)
            if not 1 <= place <= len(select.expressions):
                continue  # GROUP_BY_POS_OUT_OF_RANGE, raised where the query runs
            projection = select.expressions[place - 1]
            target = projection.this if isinstance(projection, exp.Alias) else projection
            if _holds_aggregate(target):
                shown = spark_name(target) or target.sql(dialect="spark")
                raise OptimizeError(
                    f"GROUP BY {place} refers to an expression {shown} that contains an aggregate function. "
                    "Aggregate functions are not allowed in GROUP BY.",
                    error_class="GROUP_BY_POS_AGGREGATE",
                )


def _holds_aggregate(node: exp.Expr) -> bool:
    """Whether ``node`` calls an aggregate outside a window and a subquery."""
    for found in node.find_all(exp.AggFunc):
        parent = found.parent
        inside = False
        while parent is not None and parent is not node.parent:
            if isinstance(parent, (exp.Window, exp.Select)):
                inside = True
                break
            parent = parent.parent
        if not inside:
            return True
    return False
