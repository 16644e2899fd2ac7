"""Where Spark's optimizer replaces part of a plan by an empty relation before anything runs.

``PruneFilters`` replaces a filter whose condition folds to ``false`` or ``NULL`` (after
``ConstantFolding``, ``BooleanSimplification``, ``NullPropagation`` and
``ReplaceNullWithFalseInPredicate``, which reads a ``NULL`` under a filter's ANDs and ORs as
``false``) by an empty ``LocalRelation``, with everything beneath it; ``OptimizeLimitZero`` does the
same for ``LIMIT 0``, and ``PropagateEmptyRelation`` for an inner join whose condition is
``false``. What such a relation held is never computed: a ``variant_get`` with a path Spark
refuses, which Spark parses only where it computes the call, raises nothing there. Measured on
PySpark 4.3 (``tests/test_unwrap_casts.py``): ``WHERE false``, ``WHERE 1 = 0``, ``WHERE CAST(NULL
AS BOOLEAN)``, ``WHERE id > 1 AND NULL``, ``WHERE 'a' = 'b'``, ``WHERE 1 IS NULL``, ``WHERE 1 IN
(2, 3)``, ``LIMIT 0``, ``HAVING false``, ``JOIN ... ON false``, an outer query's filter over a
subquery or a CTE, a global aggregate over such a filter (it still answers one row), the
subquery of an ``IN`` or a scalar subquery; not ``WHERE false OR <call>``, ``WHERE id < 0 AND id >
10`` (Spark proves no contradiction), the preserved side of a ``LEFT JOIN ... ON false``, nor a
call of constants only (``ConstantFolding`` computes it first).
"""

from __future__ import annotations

import decimal
import enum
from collections.abc import Callable
from typing import Any

from sqlglot import exp

from vpush.optimizer.dialect import number_constant, within

__all__ = ["dropped_unread"]


class _Truth(enum.Enum):
    TRUE = "true"
    FALSE = "false"
    NULL = "null"
    UNKNOWN = "unknown"


_COMPARISONS: dict[type[exp.Expr], Callable[[Any, Any], bool]] = {
    exp.EQ: lambda a, b: a == b, exp.NEQ: lambda a, b: a != b, exp.LT: lambda a, b: a < b,
    exp.LTE: lambda a, b: a <= b, exp.GT: lambda a, b: a > b, exp.GTE: lambda a, b: a >= b,
}


def dropped_unread(node: exp.Expr) -> bool:
    """Whether Spark's optimizer drops ``node`` (an expression of a parsed query, not of constants
    only) with a relation it replaces by an empty one, so that it is never computed.

    Example:
        >>> import sqlglot
        >>> query = sqlglot.parse_one("SELECT * FROM (SELECT upper(s) AS u FROM t) WHERE 1 = 0 AND x > 1")
        >>> dropped_unread(query.find(exp.Upper)), dropped_unread(sqlglot.parse_one("SELECT upper(s) FROM t").find(exp.Upper))
        (True, False)
    """
    if node.find(exp.Column) is None:
        return False  # ConstantFolding computes it before any relation is pruned
    return _dropped(node)


def _dropped(current: exp.Expr) -> bool:
    """Whether a query around ``current`` is one Spark proves empty, up to the statement (through
    derived tables, set operations and subqueries in expressions; a CTE at each place it is read)."""
    while True:
        query = current.parent
        while query is not None and not isinstance(query, (exp.Select, exp.SetOperation)):
            query = query.parent
        if query is None:
            return False
        if isinstance(query, exp.Select) and _empty(query):
            return True
        if isinstance(query.parent, exp.CTE):
            return _cte_dropped(query.parent)
        current = query


def _cte_dropped(cte: exp.CTE) -> bool:
    """Every read of ``cte`` is dropped (Spark inlines a CTE into each query that reads it)."""
    statement = cte.find_ancestor(exp.Query)
    name = cte.alias_or_name.lower()
    if statement is None:
        return False
    # a table of its name inside its own query is another table (Spark's CTEs are not recursive)
    references = [t for t in statement.find_all(exp.Table)
                  if t.name.lower() == name and not t.args.get("db") and not within(t, cte)]
    return bool(references) and all(_dropped(t) for t in references)



def _empty(select: exp.Select) -> bool:
    """Whether Spark proves ``select``'s relation empty: a filter (WHERE, HAVING) that folds to
    ``false`` or ``NULL``, a ``LIMIT 0``, or an inner join on ``false``."""
    for key in ("where", "having"):
        clause = select.args.get(key)
        if clause is not None and _truth(clause.this, predicate=True) in (_Truth.FALSE, _Truth.NULL):
            return True
    limit = select.args.get("limit")
    if isinstance(limit, exp.Limit) and isinstance(limit.expression, exp.Literal) and limit.expression.name == "0":
        return True
    for join in select.args.get("joins") or []:
        inner = not join.side and join.kind in ("", "INNER")
        condition = join.args.get("on")
        if inner and condition is not None and _truth(condition, predicate=True) in (_Truth.FALSE, _Truth.NULL):
            return True
    return False


def _truth(node: exp.Expr, predicate: bool) -> _Truth:
    """What Spark's constant folding makes of the boolean ``node``; under a filter's ANDs and ORs
    (``predicate``) a ``NULL`` counts as ``false`` (``ReplaceNullWithFalseInPredicate``)."""
    node = node.unnest()
    if isinstance(node, exp.Boolean):
        return _Truth.TRUE if node.this else _Truth.FALSE
    if isinstance(node, exp.Null) or (isinstance(node, exp.Cast) and isinstance(node.this.unnest(), exp.Null)):
        return _Truth.FALSE if predicate else _Truth.NULL
    if isinstance(node, (exp.And, exp.Or)):
        sides = {_truth(node.this, predicate), _truth(node.expression, predicate)}
        absorbing, neutral = (_Truth.FALSE, _Truth.TRUE) if isinstance(node, exp.And) else (_Truth.TRUE, _Truth.FALSE)
        if absorbing in sides:
            return absorbing
        if sides == {neutral}:
            return neutral
        if _Truth.UNKNOWN in sides:
            return _Truth.UNKNOWN
        return _Truth.NULL if not predicate else _Truth.FALSE
    if isinstance(node, exp.Not):
        inner = _truth(node.this, predicate=False)
        flipped = {_Truth.TRUE: _Truth.FALSE, _Truth.FALSE: _Truth.TRUE}.get(inner, inner)
        return _Truth.FALSE if predicate and flipped is _Truth.NULL else flipped
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        value = _constant(node.this)
        return _Truth.UNKNOWN if value is _NOT_CONSTANT else (_Truth.TRUE if value is None else _Truth.FALSE)
    if isinstance(node, exp.In) and not node.args.get("query") and not node.args.get("unnest"):
        values = [_constant(v) for v in [node.this, *node.expressions]]
        if _NOT_CONSTANT in values or None in values or not _comparable(values):
            return _Truth.UNKNOWN
        return _Truth.TRUE if values[0] in values[1:] else _Truth.FALSE
    compare = _COMPARISONS.get(type(node))
    if compare is not None:
        left, right = _constant(node.this), _constant(node.expression)
        if _NOT_CONSTANT in (left, right):
            return _Truth.UNKNOWN
        if left is None or right is None:
            return _Truth.FALSE if predicate else _Truth.NULL
        if not _comparable([left, right]):
            return _Truth.UNKNOWN
        return _Truth.TRUE if compare(left, right) else _Truth.FALSE
    return _Truth.UNKNOWN


_NOT_CONSTANT = object()


def _constant(node: exp.Expr) -> object:
    """A literal's value (a number as a Decimal, a string, a boolean; ``None`` for NULL), or
    :data:`_NOT_CONSTANT`."""
    node = node.unnest()
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Literal) and node.is_string:
        return node.this
    # an exact number, through minus signs (a suffixed literal, 1L or 2BD, is a cast: not folded
    # here; a double, 1e0, is compared as doubles by Spark: not followed here)
    number = number_constant(node, at_cast=lambda _: None)
    return decimal.Decimal(number) if isinstance(number, (int, decimal.Decimal)) else _NOT_CONSTANT


def _comparable(values: list[object]) -> bool:
    """All of one kind (numbers, strings or booleans): Spark's coercion of mixed kinds is not
    followed here."""
    return len({type(v) for v in values}) == 1
