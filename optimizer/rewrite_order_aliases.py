"""An ORDER BY expression over a projection's alias, with the alias written out as Spark reads it.

Spark resolves a name in the ORDER BY of a SELECT against the SELECT's outputs first: in
``SELECT -id AS id FROM t ORDER BY id + 0`` the ``id`` sorted by is the alias, ``-id``. DuckDB
binds a name inside an ORDER BY expression to the FROM's column first, and to an alias only where
no column has the name; then it refuses an alias whose expression has side effects (``Alias "s"
referenced - but the expression has side effects``), which every cast or aggregate vpush writes
with Spark's errors (DuckDB's ``error()``) has. Written out, the ORDER BY means what Spark's does
on both counts. A bare name (``ORDER BY s``) is left alone: DuckDB binds it to the alias first.
``ORDER BY s.n`` (``s.n.m``) of an alias ``s`` of a struct is the struct's field, as Spark reads it where no
source is named ``s`` (DuckDB looked for a table ``s``).
"""
from __future__ import annotations

from sqlglot import exp

from vpush.optimizer.check_grouped_references import under_aggregate
from vpush.optimizer.dialect import inside_within


def _outputs(select: exp.Select) -> dict[str, exp.Expr] | None:
    """Each output name carried by exactly one projection, with that projection's expression
    where it is an alias of something other than a column of the same name; None where a star
    hides the outputs' names."""
    counts: dict[str, int] = {}
    aliased: dict[str, exp.Expr] = {}
    for projection in select.expressions:
        if projection.is_star:
            return None
        name = projection.alias_or_name.lower()
        counts[name] = counts.get(name, 0) + 1
        if isinstance(projection, exp.Alias) and not (
            isinstance(projection.this, exp.Column) and projection.this.name.lower() == name
        ):
            aliased[name] = projection.this
    return {name: node for name, node in aliased.items() if counts[name] == 1}


def _written_out(key: exp.Expr, outputs: dict[str, exp.Expr], sources: set[str]) -> exp.Expr:
    def visit(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Column) or not isinstance(node.this, exp.Identifier) or _inside_scope(node, key):
            return node  # a subquery's or a lambda's name is its own
        if under_aggregate(node, key, windows=True):
            return node  # an aggregate's argument (a window's too): Spark's error (spark_semantics._check_aliases_in_aggregates)
        if node.table:
            # s.n (s.n.m) of an alias s of a struct (no source named s): the struct's field, as Spark reads it
            parts = node.parts
            struct = outputs.get(parts[0].name.lower())
            if struct is None or parts[0].name.lower() in sources or not all(isinstance(p, exp.Identifier) for p in parts):
                return node
            read: exp.Expr = exp.Paren(this=struct.copy())
            for part in parts[1:]:
                read = exp.Dot(this=read, expression=part.copy())
            return read
        source = outputs.get(node.name.lower())
        return node if source is None else exp.Paren(this=source.copy())

    return key.transform(visit, copy=False)


def _inside_scope(node: exp.Expr, key: exp.Expr) -> bool:
    """Whether ``node`` lies in a subquery or a lambda inside the ORDER BY key ``key``."""
    return inside_within(node, (exp.Select, exp.Lambda), key)


def rewrite_order_aliases(expression: exp.Expr) -> exp.Expr:
    """Write out the aliases an ORDER BY expression names, in every SELECT of ``expression``.

    Example:
        >>> from sqlglot import parse_one
        >>> rewrite_order_aliases(parse_one("SELECT -id AS id, k FROM t ORDER BY id + 0, k, id")).sql()
        'SELECT -id AS id, k FROM t ORDER BY (-id) + 0, k, id'

    Args:
        expression: A parsed query; changed in place.

    Returns:
        ``expression``.
    """
    for select in list(expression.find_all(exp.Select)):
        order = select.args.get("order")
        if order is None or select.args.get("distinct") is not None:
            continue  # a DISTINCT's ORDER BY may name only its outputs (vpush checks it so)
        outputs = _outputs(select)
        if outputs and (select.args.get("group") is not None or any(p.find(exp.AggFunc) for p in select.expressions)):
            # An aggregating SELECT's ORDER BY may name a grouping key's alias, which DuckDB matches
            # to the key only as the alias (a key with error() in it is not matched when written
            # out): only aggregates are written out.
            outputs = {name: node for name, node in outputs.items() if node.find(exp.AggFunc) is not None}
        if not outputs:
            continue
        for ordered in order.expressions:
            key = ordered.this if isinstance(ordered, exp.Ordered) else ordered
            if isinstance(key, exp.Literal) or (isinstance(key, exp.Column) and not key.table):
                continue  # a bare name is the alias in DuckDB too; a literal is a place
            named = [outputs[c.parts[0].name.lower()] for c in key.find_all(exp.Column)
                     if isinstance(c.this, exp.Identifier) and c.parts[0].name.lower() in outputs]
            # Windows and subqueries in an output stay where they are: not written twice.
            if named and not any(n.find(exp.Window, exp.Select) is not None for n in named):
                sources = {s.alias_or_name.lower() for s in select.find_all(exp.Table, exp.Subquery, exp.Lateral)}
                written = _written_out(key, outputs, sources)
                if written is not key:  # the key itself was the name (s.n)
                    key.replace(written)
    return expression
