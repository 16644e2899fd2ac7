"""A filter that may raise kept below any filter DuckDB would move under it, as Spark keeps it.

Spark tests a relation's own filter before any filter it later pushes to that relation: an outer
query's WHERE over a subquery or a CTE is combined after the subquery's own conjuncts
(``CombineFilters``, through the projection: ``PushPredicateThroughNonJoin``), a HAVING over
grouping keys is pushed below the aggregate after the WHERE, and a filter inferred across a
join's equality (``InferFiltersFromConstraints``: ``a.id <> 6`` from ``a.id = b.id AND b.id <>
6``) comes after the side's own conjuncts. So ``SELECT id FROM (SELECT * FROM t WHERE i + 1 > 1)
WHERE id <> 6`` raises the overflow for the largest ``i`` (at id 6), as does ``SELECT a.id FROM t
a JOIN t b ON a.id = b.id WHERE a.i + 1 > 1 AND b.id <> 6`` (measured on PySpark 4.3). DuckDB
pushes such a filter into the scan, below the one that may raise, and answers.

Where a filter may raise (:func:`~vpush.optimizer.order_conjuncts.may_raise`) and DuckDB could
move another below it, the relation and its filter are held apart under ``OFFSET 0``, which
DuckDB pushes no filter through (checked with EXPLAIN on DuckDB 2.0: a streaming limit, which
costs nothing measurable on 1M rows):

    SELECT p FROM src WHERE w GROUP BY ...   ->   SELECT p FROM (SELECT * FROM src WHERE w OFFSET 0) AS src GROUP BY ...

for a query DuckDB may push into (a subquery or CTE read in a FROM or join, a branch of a set
operation that is one, or a query with a HAVING), its projection left above so that DuckDB still
computes it only for the rows the outer filter keeps, as Spark does; and, in a join, each side
whose own conjuncts (the WHERE's first, then an ON's, as Spark places them: those of an inner
join, and of the right side of a LEFT join) may raise is held with them:

    FROM t a JOIN t b ON a.id = b.id WHERE ADD(a.i, 1) > 1 AND b.id <> 6
      ->   FROM (SELECT * FROM t AS a WHERE ADD(a.i, 1) > 1 OFFSET 0) AS a JOIN t b ON a.id = b.id WHERE b.id <> 6

A filter none of whose conjuncts may raise is left to DuckDB, its pushdown into the Parquet scan
included.
"""

from __future__ import annotations

from sqlglot import exp

from vpush.optimizer.order_conjuncts import may_raise

__all__ = ["isolate_raising_filters"]


def isolate_raising_filters(expression: exp.Expr) -> exp.Expr:
    """Hold each filter that may raise under ``OFFSET 0`` where DuckDB would otherwise test
    another filter before it (see the module's docstring). In place, on the DuckDB query.

    Example:
        >>> import sqlglot
        >>> isolate_raising_filters(sqlglot.parse_one(
        ...     "SELECT id FROM (SELECT * FROM t WHERE ADD(i, 1) > 1) AS s WHERE id <> 6")).sql()
        'SELECT id FROM (SELECT * FROM (SELECT * FROM t WHERE ADD(i, 1) > 1 OFFSET 0) AS "t") AS s WHERE id <> 6'
        >>> isolate_raising_filters(sqlglot.parse_one(
        ...     "SELECT a.id FROM t AS a JOIN t AS b ON a.id = b.id WHERE ADD(a.i, 1) > 1 AND b.id <> 6")).sql()
        'SELECT a.id FROM (SELECT * FROM t AS a WHERE ADD(a.i, 1) > 1 OFFSET 0) AS a JOIN t AS b ON a.id = b.id WHERE b.id <> 6'
        >>> isolate_raising_filters(sqlglot.parse_one("SELECT id FROM (SELECT * FROM t WHERE i > 1) AS s WHERE id <> 6")).sql()
        'SELECT id FROM (SELECT * FROM t WHERE i > 1) AS s WHERE id <> 6'
    """
    for select in list(expression.find_all(exp.Select)):
        if _is_held(select) or select.args.get("laterals") or select.args.get("pivots"):
            continue
        if select.args.get("joins"):
            _hold_sides(select)
        elif _may_be_pushed_into(select):
            _hold_where(select)
    return expression


def _is_held(select: exp.Select) -> bool:
    """Whether ``select`` is one this rule wrote (``SELECT * FROM r WHERE w OFFSET 0``): running
    the rule twice equals running it once."""
    offset = select.args.get("offset")
    return (
        isinstance(offset, exp.Offset)
        and isinstance(offset.expression, exp.Literal)
        and offset.expression.name == "0"
        and len(select.expressions) == 1
        and isinstance(select.expressions[0], exp.Star)
    )


def _may_be_pushed_into(select: exp.Select) -> bool:
    """Whether DuckDB may push a filter into ``select``'s FROM: a HAVING of its own (over grouping
    keys), or a query that is read as a relation (a subquery in a FROM or join, a CTE, or a branch
    of a set operation that is one)."""
    if select.args.get("having") is not None:
        return True
    node: exp.Expr = select
    while isinstance(node.parent, (exp.SetOperation, exp.Subquery)):
        if isinstance(node.parent, exp.SetOperation) and node.arg_key not in ("this", "expression"):
            return False  # the ORDER BY or LIMIT of a set operation
        node = node.parent
        if isinstance(node, exp.Subquery) and isinstance(node.parent, (exp.From, exp.Join)):
            return True
    return isinstance(node.parent, exp.CTE)


def _hold_where(select: exp.Select) -> None:
    """``select``'s FROM and WHERE held under ``OFFSET 0`` where the WHERE may raise."""
    where = select.args.get("where")
    source = select.args.get("from_") or select.args.get("from")
    if where is None or source is None or not isinstance(source.this, (exp.Table, exp.Subquery)):
        return
    if where.this.find(exp.Query, exp.Subquery) is not None or not may_raise(where.this, select):
        return  # a subquery in the WHERE: its correlation is left where it is
    where.pop()
    source.set("this", _held(source.this, [where.this]))


def _hold_sides(select: exp.Select) -> None:
    """Each side of ``select``'s joins whose own conjuncts may raise, held with them."""
    joins = select.args["joins"]
    source = select.args.get("from_") or select.args.get("from")
    if source is None:
        return
    relations = [source.this] + [join.this for join in joins]
    if not all(isinstance(r, (exp.Table, exp.Subquery)) and r.alias_or_name for r in relations):
        return
    names = [r.alias_or_name for r in relations]
    if len(set(names)) != len(names):
        return
    kinds = [_join_kind(join) for join in joins]
    if None in kinds:
        return
    # the right side of a LEFT join is null-supplying: Spark pushes it a WHERE conjunct only
    # after turning the join into an inner one, which is not modelled here
    supplied = {names[index + 1] for index, kind in enumerate(kinds) if kind == "left"}
    groups: dict[str, list[tuple[exp.Expr, exp.Expr]]] = {name: [] for name in names}
    where = select.args.get("where")
    if where is not None:
        for conjunct in _conjuncts(where.this):
            side = _side(conjunct, names)
            if side is not None and side not in supplied:
                groups[side].append((where, conjunct))
    ons: dict[str, set[int]] = {name: set() for name in names}
    for index, (join, kind) in enumerate(zip(joins, kinds)):
        on = join.args.get("on")
        if on is None:
            continue
        for conjunct in _conjuncts(on):
            side = _side(conjunct, names)
            if side is None:
                continue
            if (kind == "inner" and side not in supplied) or (kind == "left" and side == names[index + 1]):
                groups[side].append((join, conjunct))
                ons[side].add(index)
    for relation, name in zip(relations, names):
        group = groups[name]
        # the ON conjuncts of two joins pushed to one side: Spark's order between them is not modelled
        if not group or len(ons[name]) > 1 or not any(may_raise(c, select) for _, c in group):
            continue
        for owner, conjunct in group:
            _remove(owner, conjunct)
        place = exp.Null()
        relation.replace(place)
        place.replace(_held(relation, [c for _, c in group]))
    if where is not None and where.this is None:
        where.pop()


def _join_kind(join: exp.Join) -> str | None:
    """``inner`` (also a cross join), ``left``, or None for a join this rule leaves alone."""
    side, kind = join.side.upper(), join.kind.upper()
    if join.args.get("using") or join.args.get("method"):
        return None
    if not side and kind in ("", "INNER", "CROSS"):
        return "inner"
    if side == "LEFT" and kind in ("", "OUTER"):
        return "left"
    return None


def _conjuncts(condition: exp.Expr) -> list[exp.Expr]:
    condition = condition.unnest()
    return list(condition.flatten()) if isinstance(condition, exp.And) else [condition]


def _side(conjunct: exp.Expr, names: list[str]) -> str | None:
    """The one relation a conjunct reads, by qualified columns only (an unqualified column could
    be any side's), and without a subquery; else None."""
    if conjunct.find(exp.Query, exp.Subquery, exp.AggFunc, exp.Window) is not None:
        return None
    tables = {column.table for column in conjunct.find_all(exp.Column)}
    if len(tables) != 1:
        return None
    table = next(iter(tables))
    return table if table in names else None


def _remove(owner: exp.Expr, conjunct: exp.Expr) -> None:
    """Take ``conjunct`` out of a WHERE or a join's ON (an ON left empty becomes ``TRUE``)."""
    key = "this" if isinstance(owner, exp.Where) else "on"
    rest = [c for c in _conjuncts(owner.args[key]) if c is not conjunct]
    if rest:
        owner.set(key, exp.and_(*rest, copy=False))
    elif isinstance(owner, exp.Where):
        owner.set("this", None)
    else:
        owner.set("on", exp.true())


def _held(relation: exp.Expr, conjuncts: list[exp.Expr]) -> exp.Subquery:
    """``(SELECT * FROM relation WHERE conjuncts OFFSET 0) AS <relation's name>``."""
    alias = relation.args.get("alias")
    if isinstance(alias, exp.TableAlias) and isinstance(alias.this, exp.Identifier):
        name = alias.this.copy()
    else:
        name = exp.to_identifier(relation.name, quoted=True)
    inner = exp.Select(expressions=[exp.Star()])
    inner.set("from_", exp.From(this=relation))
    inner.set("where", exp.Where(this=exp.and_(*conjuncts, copy=False)))
    inner.set("offset", exp.Offset(expression=exp.Literal.number(0)))
    return exp.Subquery(this=inner, alias=exp.TableAlias(this=name))
