"""An ORDER BY expression over an alias DuckDB will not read there, sorted in a query around.

Spark resolves a name in a SELECT's ORDER BY against the SELECT's outputs first, and sorts over
a projection of them: ``SELECT g, sum(count(*)) OVER () AS r FROM t GROUP BY g ORDER BY r + 1``
sorts by the window's value plus one (measured on PySpark 4.3).
:func:`~vpush.optimizer.rewrite_order_aliases.rewrite_order_aliases` writes such an alias out
in the key, but not one of a window (computed twice, a window over ties may number the rows
otherwise) nor of a grouping key (DuckDB matches a key that may raise to the GROUP BY only as
the alias). DuckDB's binder then refuses the alias inside an expression where its expression
has side effects (``Alias "r" referenced - but the expression has side effects``), which every
check vpush writes with Spark's errors (DuckDB's ``error()``) has. Here the SELECT is put in a
subquery and sorted over its outputs, which is Spark's plan:

    SELECT id, w AS r FROM t ORDER BY r + 1, i LIMIT 2
    -> SELECT id, r FROM (SELECT id, w AS r, i AS __vpush_sort_1 FROM t) AS __vpush_sorted
       ORDER BY r + 1, __vpush_sort_1 LIMIT 2

A key that names no output (a source's column) is computed inside, as a hidden output; a key
that names both an output and something else, an aggregate (Spark's ``Sort`` over the window's
projection resolves none: ``UNRESOLVED_COLUMN``) or a subquery leaves the SELECT as it is, and
so does a DISTINCT that would need a hidden output (Spark's DISTINCT sorts by its outputs only).
"""
from __future__ import annotations

from sqlglot import exp

from vpush.optimizer.dialect import inside_within

__all__ = ["nest_order_aliases"]

_SORTED = "__vpush_sorted"
"""The alias of the subquery a SELECT is put in."""

_HIDDEN_KEY = "__vpush_sort_"
"""The prefix of a hidden output's name: a sort key computed inside, by its place."""

_MOVED = ("order", "limit", "offset")
"""What the query around takes from the SELECT."""


def _named_outputs(select: exp.Select) -> dict[str, exp.Expr] | None:
    """Each output's expression by its lower-cased name; None where a star, a nameless or a
    repeated name leaves an output that the query around could not name."""
    outputs: dict[str, exp.Expr] = {}
    for projection in select.expressions:
        name = projection.alias_or_name.lower()
        if projection.is_star or not name or name in outputs:
            return None
        outputs[name] = projection.unalias()
    return outputs


def _output_names(key: exp.Expr, outputs: dict[str, exp.Expr]) -> list[str]:
    """The outputs ``key`` names unqualified (not in a lambda of its own)."""
    return [
        c.name.lower() for c in key.find_all(exp.Column)
        if not c.table and isinstance(c.this, exp.Identifier) and c.name.lower() in outputs and not inside_within(c, exp.Lambda, key)
    ]


def _refused_by_duckdb(key: exp.Expr, outputs: dict[str, exp.Expr]) -> bool:
    """Whether ``key`` (not a bare name, which DuckDB reads as the alias) names an output whose
    expression holds a window or a call of ``error()``."""
    if isinstance(key, exp.Column):
        return False
    return any(
        outputs[name].find(exp.Window) is not None
        or any(call.name.lower() == "error" for call in outputs[name].find_all(exp.Anonymous))
        for name in _output_names(key, outputs)
    )


def _nested(select: exp.Select) -> exp.Select | None:
    """The query around ``select`` that sorts it as Spark does; None where it is left as it is."""
    order = select.args.get("order")
    outputs = _named_outputs(select)
    if order is None or outputs is None:
        return None
    keys = [o.this if isinstance(o, exp.Ordered) else o for o in order.expressions]
    if not any(_refused_by_duckdb(k, outputs) for k in keys) or any(k.find(exp.Select) is not None for k in keys):
        return None
    hidden: list[int] = []
    for index, key in enumerate(keys):
        named = _output_names(key, outputs)
        if isinstance(key, exp.Literal) or (named and len(named) == len(list(key.find_all(exp.Column)))):
            continue  # a place, or over the outputs only: sorted in the query around
        if named or key.find(exp.AggFunc) is not None:
            # over an output and a source's column at once; an aggregate beside a window, which
            # Spark's Sort, standing over the window's projection, cannot resolve
            return None
        hidden.append(index)
    if hidden and select.args.get("distinct") is not None:
        return None
    around = exp.Select(expressions=[
        exp.Column(this=(p.args["alias"] if isinstance(p, exp.Alias) else p.this).copy()) for p in select.expressions
    ])
    for key in _MOVED:
        moved = select.args.get(key)
        if moved is not None:
            around.set(key, moved.pop())
    for index in hidden:
        name = f"{_HIDDEN_KEY}{index}"
        key = keys[index]
        key.replace(exp.column(name, quoted=True))
        select.append("expressions", exp.Alias(this=key, alias=exp.to_identifier(name, quoted=True)))
    return around


def nest_order_aliases(expression: exp.Expr) -> exp.Expr:
    """Put each SELECT of ``expression`` whose ORDER BY expression names an alias DuckDB would
    refuse there (of a window, or of an expression that calls ``error()``) in a subquery,
    sorted over its outputs.

    Example:
        >>> from sqlglot import parse_one
        >>> nest_order_aliases(parse_one("SELECT g, sum(n) OVER () AS r FROM t ORDER BY r + 1, id LIMIT 2")).sql()
        'SELECT g, r FROM (SELECT g, SUM(n) OVER () AS r, id AS "__vpush_sort_1" FROM t) AS "__vpush_sorted" ORDER BY r + 1, "__vpush_sort_1" LIMIT 2'

    Args:
        expression: A query on its way to DuckDB, after Spark's semantics; changed in place.

    Returns:
        ``expression``, or the query around it where it is such a SELECT itself.
    """
    for select in list(expression.find_all(exp.Select)):
        around = _nested(select)
        if around is None:
            continue
        if select is expression:
            expression = around
        else:
            select.replace(around)
        around.set("from_", exp.From(this=exp.Subquery(this=select, alias=exp.TableAlias(this=exp.to_identifier(_SORTED, quoted=True)))))
    return expression
