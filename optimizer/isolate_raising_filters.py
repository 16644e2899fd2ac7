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
whose own conjuncts may raise is held with them. Those are the ones Spark pushes to that side,
the WHERE's first, then an ON's: a WHERE's over a side no outer join null-supplies, an inner
join's ON's over such a side, and an outer join's ON's over the side it null-supplies (a LEFT
join's right side, the first join's left side for a RIGHT join); an outer join whose
null-supplied side a WHERE comparison reads is an inner one (Spark's EliminateOuterJoin, which
DuckDB does too), and is written so where a side is held:

    FROM t a JOIN t b ON a.id = b.id WHERE ADD(a.i, 1) > 1 AND b.id <> 6
      ->   FROM (SELECT * FROM t AS a WHERE ADD(a.i, 1) > 1 OFFSET 0) AS a JOIN t b ON a.id = b.id WHERE b.id <> 6

An outer join's null-supplied side is also given, where the join's condition may raise, the
filter Spark infers for it from the condition (``InferFiltersFromConstraints``; DuckDB infers
nothing from an outer join's condition), after the side's own conjuncts:

    FROM t a LEFT JOIN t b ON a.id = b.id AND ADD(a.i, 1) > 1 AND a.id <> 6
      ->   FROM t a LEFT JOIN (SELECT * FROM t AS b WHERE b.id <> 6) AS b ON ...

A filter none of whose conjuncts may raise is left to DuckDB, its pushdown into the Parquet scan
included.
"""

from __future__ import annotations

from sqlglot import exp

from vpush.optimizer.dialect import conjuncts
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
        >>> isolate_raising_filters(sqlglot.parse_one(  # nothing outside filters: DuckDB's parallel scan kept
        ...     "SELECT ty, COUNT(*) FROM (SELECT ty FROM t WHERE ADD(i, 1) > 1) AS s GROUP BY ty")).sql()
        'SELECT ty, COUNT(*) FROM (SELECT ty FROM t WHERE ADD(i, 1) > 1) AS s GROUP BY ty'
    """
    selects = list(expression.find_all(exp.Select))
    filtering = _filtering_within(selects)
    total = sum(1 for select in selects if _filters(select))
    for select in selects:
        if _is_held(select) or select.args.get("laterals") or select.args.get("pivots"):
            continue
        if select.args.get("joins"):
            _hold_sides(select)
        elif _may_be_pushed_into(select, filtered_around=total > filtering.get(id(select), 0)):
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


def _may_be_pushed_into(select: exp.Select, *, filtered_around: bool) -> bool:
    """Whether DuckDB may push a filter into ``select``'s FROM: a HAVING of its own with a conjunct
    over grouping keys, or a query that is read as a relation (a subquery in a FROM or join, a
    CTE, or a branch of a set operation that is one) where a query around it filters. Holding
    costs DuckDB its parallel scan (a LIMIT or OFFSET keeps the rows' order on one thread), so a
    relation nothing outside filters (``filtered_around`` false) is left as it is."""
    having = select.args.get("having")
    if having is not None and _pushable(having.this):
        return True
    node: exp.Expr = select
    while isinstance(node.parent, (exp.SetOperation, exp.Subquery)):
        if isinstance(node.parent, exp.SetOperation) and node.arg_key not in ("this", "expression"):
            return False  # the ORDER BY or LIMIT of a set operation
        node = node.parent
        if isinstance(node, exp.Subquery) and isinstance(node.parent, (exp.From, exp.Join)):
            return filtered_around
    return isinstance(node.parent, exp.CTE) and filtered_around


def _pushable(condition: exp.Expr) -> bool:
    """Whether a HAVING's ``condition`` has a conjunct DuckDB may push below the aggregate: one
    without an aggregate, a window or a subquery."""
    return any(part.find(exp.AggFunc, exp.Window, exp.Query) is None for part in conjuncts(condition))


def _filters(select: exp.Select) -> bool:
    """Whether ``select`` filters (a WHERE, a QUALIFY, a join, a HAVING with a conjunct over
    grouping keys): only a query around one that does may make DuckDB push a filter into it."""
    having = select.args.get("having")
    return any(select.args.get(key) for key in ("where", "qualify", "joins")) or (having is not None and _pushable(having.this))


def _filtering_within(selects: list[exp.Select]) -> dict[int, int]:
    """For each of the statement's SELECTs (by id), how many of them that filter it holds, itself
    included: a query is filtered around where the statement has more (one pass, over the
    statement as written: a filter the rule moves stays around the queries it was around)."""
    within: dict[int, int] = {}
    for select in selects:
        if not _filters(select):
            continue
        node: exp.Expr | None = select
        while node is not None:
            if isinstance(node, exp.Select):
                within[id(node)] = within.get(id(node), 0) + 1
            node = node.parent
    return within


def _hold_where(select: exp.Select) -> None:
    """``select``'s FROM and WHERE held under ``OFFSET 0`` where the WHERE may raise."""
    where = select.args.get("where")
    source = select.args.get("from_") or select.args.get("from")
    if where is None or source is None or not isinstance(source.this, (exp.Table, exp.Subquery)) or not source.this.alias_or_name:
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
    names = [r.alias_or_name.lower() for r in relations]  # qualifiers in any case, as DuckDB and Spark read them
    if len(set(names)) != len(names):
        return
    kinds = [_join_kind(join, index) for index, join in enumerate(joins)]
    if None in kinds:
        return
    where = select.args.get("where")
    rejected = {_side(c, names) for c in conjuncts(where.this) if _rejects_nulls(c)} if where is not None else set()
    # a WHERE conjunct that drops the rows where the null-supplying side of an outer join is NULL
    # makes it an inner join, for Spark (EliminateOuterJoin) as for DuckDB
    made_inner = [
        index for index, kind in enumerate(kinds)
        if (kind == "left" and names[index + 1] in rejected) or (kind == "right" and names[0] in rejected)
    ]
    for index in made_inner:
        kinds[index] = "inner"
    supplied = {names[index + 1] for index, kind in enumerate(kinds) if kind == "left"}
    supplied |= {names[0] for kind in kinds if kind == "right"}
    groups: dict[str, list[tuple[exp.Expr, exp.Expr]]] = {name: [] for name in names}
    if where is not None:
        for conjunct in conjuncts(where.this):
            side = _side(conjunct, names)
            if side is not None and side not in supplied:
                groups[side].append((where, conjunct))
    ons: dict[str, set[int]] = {name: set() for name in names}
    for index, (join, kind) in enumerate(zip(joins, kinds)):
        on = join.args.get("on")
        if on is None:
            continue
        for conjunct in conjuncts(on):
            side = _side(conjunct, names)
            if side is None:
                continue
            # Spark pushes an ON conjunct to a side an inner join does not null-supply, and to the
            # null-supplying side of an outer join
            if (
                (kind == "inner" and side not in supplied)
                or (kind == "left" and side == names[index + 1])
                or (kind == "right" and side == names[0])
            ):
                groups[side].append((join, conjunct))
                ons[side].add(index)
    inferred = _inferred(select, joins, kinds, names)
    held = False
    for relation, name in zip(relations, names):
        group = groups[name]
        # the ON conjuncts of two joins pushed to one side: Spark's order between them is not modelled
        if len(ons[name]) > 1:
            continue
        # Spark tests a side's own conjuncts, then those it infers for it (CombineFilters puts the
        # filter InferFiltersFromConstraints adds above the side after the side's own)
        own = [c for _, c in group]
        written = {c.sql() for c in own}
        extra = [c for c in inferred[name] if c.sql() not in written]  # a conjunct the side has already: not again
        hold = any(may_raise(c, select) for c in own + extra)
        if not hold and not extra:
            continue
        if hold:
            held = True
            for owner, conjunct in group:
                _remove(owner, conjunct)
        place = exp.Null()
        relation.replace(place)
        place.replace(_held(relation, own + extra if hold else extra, offset=hold))
    if where is not None and where.this is None:
        where.pop()
    if held:
        for index in made_inner:  # written inner too (the same rows): a WHERE conjunct may have moved into a side
            joins[index].set("side", None)
            joins[index].set("kind", None)


def _inferred(select: exp.Select, joins: list[exp.Join], kinds: list[str | None], names: list[str]) -> dict[str, list[exp.Expr]]:
    """The conjuncts Spark infers for the side an outer join null-supplies, by name, where the
    join's condition may raise (else they change no answer).

    Spark's ``InferFiltersFromConstraints`` filters only that side of an outer join (a LEFT
    join's right side, a RIGHT join's left), with each conjunct of the join's condition that
    reads one column of a preserved relation, that column replaced by the null-supplied side's
    column an equality of the two columns in the condition pairs it with (one replacement at a
    time: a conjunct of two columns gives none). So ``a LEFT JOIN b ON a.id = b.id AND a.i + 1 >
    1 AND a.id <> 6`` filters ``b`` with ``b.id <> 6`` and tests ``a.i + 1 > 1`` for no pair of
    id 6, where DuckDB, which infers nothing from an outer join's condition, raises (measured on
    PySpark 4.3 with ``<>``, ``<``, ``IN``, literals on either side, arithmetic, keys of several
    columns, a RIGHT join). A key of an expression (``a.id + 1 = b.id``) gives nothing, as in
    Spark. The ``isnotnull`` of the keys Spark adds too drops no row a key equality keeps.
    """
    out: dict[str, list[exp.Expr]] = {name: [] for name in names}
    for index, (join, kind) in enumerate(zip(joins, kinds)):
        on = join.args.get("on")
        if kind not in ("left", "right") or on is None:
            continue
        supplied = names[index + 1] if kind == "left" else names[0]
        parts = conjuncts(on)
        pairs: dict[tuple[str, str], list[exp.Column]] = {}  # a preserved column -> the supplied columns equal to it
        for conjunct in parts:
            if isinstance(conjunct, exp.EQ) and isinstance(conjunct.this, exp.Column) and isinstance(conjunct.expression, exp.Column):
                for mine, other in ((conjunct.this, conjunct.expression), (conjunct.expression, conjunct.this)):
                    if other.table.lower() == supplied and mine.table.lower() not in ("", supplied):
                        pairs.setdefault((mine.table.lower(), mine.name.lower()), []).append(other)
        found: list[exp.Expr] = []
        for conjunct in parts:
            side = _side(conjunct, names)
            columns = {column.name.lower() for column in conjunct.find_all(exp.Column)}
            if side is None or side == supplied or len(columns) != 1 or _nondeterministic(conjunct):
                continue
            for other in pairs.get((side, next(iter(columns))), []):
                copied = conjunct.copy()
                for column in list(copied.find_all(exp.Column)):
                    column.replace(other.copy())
                found.append(copied)
        if found and any(may_raise(c, select) for c in parts + found):
            seen = {c.sql() for c in out[supplied]}
            for conjunct in found:
                if conjunct.sql() not in seen:
                    seen.add(conjunct.sql())
                    out[supplied].append(conjunct)
    return out


def _join_kind(join: exp.Join, index: int) -> str | None:
    """``inner`` (also a cross join), ``left`` (also a left anti join: Spark pushes its ON's
    conjuncts over the right side there, and infers filters for that side alone, as for a left
    join), ``right`` (the first join only: its left side one relation), or None for a join this
    rule leaves alone."""
    side, kind = join.side.upper(), join.kind.upper()
    if kind == "ANTI" and side in ("", "LEFT") and not join.args.get("using") and not join.args.get("method"):
        return "left"
    if join.args.get("using") or join.args.get("method") or kind not in ("", "INNER", "CROSS", "OUTER"):
        return None
    if not side and kind != "OUTER":
        return "inner"
    if side == "LEFT":
        return "left"
    if side == "RIGHT" and index == 0:
        return "right"
    return None


# what Spark leaves out of a plan's constraints (it infers only from deterministic conjuncts)
_NONDETERMINISTIC = (exp.Rand, exp.Randn, exp.Uuid, exp.Shuffle, exp.Randstr, exp.Uniform)
_NONDETERMINISTIC_NAMES = frozenset({"monotonically_increasing_id", "spark_partition_id", "input_file_name",
                                     "input_file_block_start", "input_file_block_length"})


def _nondeterministic(node: exp.Expr) -> bool:
    """Whether ``node`` calls one of Spark's nondeterministic functions."""
    return node.find(*_NONDETERMINISTIC) is not None or any(
        call.name.lower() in _NONDETERMINISTIC_NAMES for call in node.find_all(exp.Anonymous))


# comparisons that are NULL where an operand is: a WHERE conjunct of one of them over a column
# drops the rows where that column is NULL
_NULL_REJECTING = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


# and the arithmetic that is NULL where an operand is (vpush's checked integer arithmetic included)
_NULL_PROPAGATING = (exp.Column, exp.Literal, exp.Paren, exp.Neg, exp.Add, exp.Sub, exp.Mul, exp.Identifier)
_NULL_PROPAGATING_FUNCTIONS = frozenset({"add", "subtract", "multiply"})


def _rejects_nulls(conjunct: exp.Expr) -> bool:
    """Whether ``conjunct`` is NULL where its columns are NULL: a comparison of columns and
    constants through arithmetic, reading some column.

    Example:
        >>> import sqlglot
        >>> [_rejects_nulls(sqlglot.parse_one(s)) for s in ("b.id <> 6", "ADD(b.i, 1) > 1", "b.id IS NULL", "coalesce(b.id, 0) = 0")]
        [True, True, False, False]
    """
    if not isinstance(conjunct, _NULL_REJECTING) or conjunct.find(exp.Column) is None:
        return False
    return all(
        isinstance(node, _NULL_PROPAGATING)
        or (isinstance(node, exp.Anonymous) and node.name.lower() in _NULL_PROPAGATING_FUNCTIONS)
        for side in (conjunct.this, conjunct.expression)
        for node in side.walk()
    )


def _side(conjunct: exp.Expr, names: list[str]) -> str | None:
    """The one relation a conjunct reads, by qualified columns only (an unqualified column could
    be any side's), and without a subquery; else None."""
    if conjunct.find(exp.Query, exp.Subquery, exp.AggFunc, exp.Window) is not None:
        return None
    tables = {column.table.lower() for column in conjunct.find_all(exp.Column)}
    if len(tables) != 1:
        return None
    table = next(iter(tables))
    return table if table in names else None


def _remove(owner: exp.Expr, conjunct: exp.Expr) -> None:
    """Take ``conjunct`` out of a WHERE or a join's ON (an ON left empty becomes ``TRUE``)."""
    key = "this" if isinstance(owner, exp.Where) else "on"
    rest = [c for c in conjuncts(owner.args[key]) if c is not conjunct]
    if rest:
        owner.set(key, exp.and_(*rest, copy=False))
    elif isinstance(owner, exp.Where):
        owner.set("this", None)
    else:
        owner.set("on", exp.true())


def _held(relation: exp.Expr, conjuncts: list[exp.Expr], *, offset: bool = True) -> exp.Subquery:
    """``(SELECT * FROM relation WHERE conjuncts OFFSET 0) AS <relation's name>``; without the
    ``OFFSET 0`` where nothing DuckDB could push below the conjuncts would matter."""
    alias = relation.args.get("alias")
    if isinstance(alias, exp.TableAlias) and isinstance(alias.this, exp.Identifier):
        name = alias.this.copy()
    else:
        name = exp.to_identifier(relation.name, quoted=True)
    inner = exp.Select(expressions=[exp.Star()])
    inner.set("from_", exp.From(this=relation))
    inner.set("where", exp.Where(this=exp.and_(*conjuncts, copy=False)))
    if offset:
        inner.set("offset", exp.Offset(expression=exp.Literal.number(0)))
    return exp.Subquery(this=inner, alias=exp.TableAlias(this=name))
