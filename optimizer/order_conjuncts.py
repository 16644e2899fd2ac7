"""A filter's conjuncts tested in Spark's order on DuckDB, where a conjunct may raise.

Spark's ``Filter`` tests the conjuncts of its condition from left to right, and tests a
conjunct only on the rows every conjunct before it kept (``FilterExec``; ``And`` and ``Or``
evaluate their right side only where the left one does not decide): ``WHERE i + 1 > 1 AND id
<> 6`` raises ``ARITHMETIC_OVERFLOW`` for the row where ``i`` is the largest int, though ``id <>
6`` drops it, and ``WHERE id <> 6 AND i + 1 > 1`` answers (measured on PySpark 4.3). DuckDB
tests them in the order its optimizer chooses: a comparison of a column with a constant
first, in its scan, then by its own cost. Where the order can change the answer, that is where
a conjunct may raise and another conjunct is beside it, the conjuncts are written so that
DuckDB tests them in Spark's order:

    p1 AND p2 AND r AND q   ->   p1 AND p2 AND CASE WHEN p1 AND p2 THEN CASE WHEN r THEN q ELSE false END ELSE false END

DuckDB computes a CASE's THEN only for the rows its WHEN keeps and does not flatten the CASE
back into a conjunction (checked with EXPLAIN on DuckDB 2.0). The conjuncts before the first
that may raise (``p1``, ``p2``) cannot raise, so DuckDB may still test them in any order and
in its scan; tested once more in the WHEN, they keep ``r`` from rows they drop whatever order
DuckDB picks. A conjunct after one that may raise is tested only after it.

Spark pushes the conjuncts that read one side of a join to that side, each side's in their
order, and a HAVING's conjuncts that read no aggregate below the aggregate: each such group is
ordered apart, as Spark tests it. Inside a condition an ``AND`` or ``OR`` one of whose sides
may raise is written as ``CASE WHEN NOT a THEN false ELSE a AND b END`` (``CASE WHEN a THEN
true ELSE a OR b END``): ``b`` computed only where ``a`` does not decide, as Spark does.

An outer query's filter that DuckDB would push below a subquery's or a CTE's own filter which
may raise, and a filter it would infer across a join's equality, are kept above by
:func:`~vpush.optimizer.isolate_raising_filters.isolate_raising_filters`, which runs first.
Conditions none of whose parts may raise are left as they are (the benchmark's queries among
them).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from vpush.optimizer.dialect import COMPARISONS, comparison_operands, conjuncts, cte_of, in_scope
from vpush.optimizer.plan import SCAN_INDEX
from vpush.optimizer.rewrite_variants import ONCE_FUNCTION_PREFIX, may_fail

__all__ = ["hold_filter_order", "holds_a_filter", "may_raise", "order_conjuncts"]

HELD = "vpush_held_filter"
"""Meta key of a ``coalesce(c, false)`` that :func:`hold_filter_order` wrote."""

# Nodes that raise for no row (on the DuckDB tree, after Spark's errors became error() calls):
# references, constants, comparisons, logic, TRY_CAST, and the branches of a CASE
_SAFE = (
    exp.Column, exp.Identifier, exp.Alias, exp.Literal, exp.Boolean, exp.Null, exp.Star, exp.Paren, exp.DataType,
    exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ, exp.Is,
    exp.Not, exp.And, exp.Or, exp.In, exp.Between, exp.TryCast, exp.Coalesce, exp.Case, exp.If,
    exp.Dot, exp.Tuple, exp.Var, exp.Like, exp.ILike,  # a LIKE with ESCAPE (an Escape node) may raise
    # string and test functions DuckDB computes for any input of their types
    exp.Lower, exp.Upper, exp.Length, exp.StartsWith, exp.EndsWith, exp.Trim, exp.Concat, exp.DPipe, exp.Contains,
    exp.Replace, exp.StrPosition, exp.IsNan, exp.IsInf,
)
# engine functions (by name) that raise for no input of their types: a filter of lower(s) = 'x'
# keeps the conjuncts after it free for DuckDB's scan
_SAFE_FUNCTIONS = frozenset({
    "lower", "upper", "length", "strlen", "starts_with", "ends_with", "prefix", "suffix", "contains", "concat", "trim",
    "ltrim", "rtrim", "replace", "isnan", "isinf", "isfinite", "struct_extract", "list_extract", "epoch_us", "epoch_ms",
    "len", "array_length",
})
# Computed apart from the filter's order: an aggregate before a HAVING, a subquery by itself
_OPAQUE = (exp.AggFunc, exp.Window, exp.Subquery, exp.Query)
# what DuckDB may compute once for the whole query: nothing that reads a row
_ROW_READS = (exp.Column, exp.Star, exp.AggFunc, exp.Window, exp.Query, exp.Subquery)


def may_raise(node: exp.Expr, select: exp.Select | None = None) -> bool:
    """Whether computing ``node`` (a part of the DuckDB query) may raise for some row: anything
    but a reference, a constant, a comparison, logic, ``TRY_CAST``, ``COALESCE``, ``CASE`` and
    the extractions that cannot fail, or a column of a subquery of ``select``'s FROM whose
    projection may raise. A part that reads no row (DuckDB computes it once, whatever the
    order) cannot, unless it calls ``error``.

    Example:
        >>> import sqlglot
        >>> [may_raise(sqlglot.parse_one(s)) for s in ("id <> 6", "ADD(i, 1) > 1", "TRY_CAST(g AS INT) > 0", "CAST('1' AS INT) = id")]
        [False, True, False, False]
        >>> [may_raise(sqlglot.parse_one(s, dialect="duckdb")) for s in ("lower(s) = 'x'", "starts_with(s, 'a')", "CAST(s AS INT) > 0")]
        [False, False, True]
    """
    if isinstance(node, _OPAQUE):
        return False
    if node.find(*_ROW_READS) is None:
        return any(call.name.lower() == "error" for call in node.find_all(exp.Anonymous))
    if isinstance(node, exp.Column):
        return select is not None and _column_may_raise(node, select)
    if isinstance(node, exp.Anonymous):
        name = node.name.lower()
        if not name.startswith(ONCE_FUNCTION_PREFIX) and name not in _SAFE_FUNCTIONS:  # (ONCE: an extraction that cannot fail)
            return True
    elif isinstance(node, exp.Cast) and not isinstance(node, exp.TryCast):
        if not node.to.is_type(*exp.DataType.TEXT_TYPES):  # DuckDB casts anything to text
            return True
    elif not isinstance(node, _SAFE):
        return True
    return any(may_raise(child, select) for child in node.iter_expressions())


def _column_may_raise(column: exp.Column, select: exp.Select) -> bool:
    """Whether ``column`` reads a projection of a subquery in ``select``'s FROM or joins that may raise."""
    sources = _derived_sources(select)
    if column.table:
        derived = [sources[column.table]] if column.table in sources else []
    else:
        derived = list(sources.values())
    for query, is_scan in derived:
        for projection in _projections(query, column.name):
            inner = projection.find_ancestor(exp.Select)
            if (may_fail(projection) if is_scan else may_raise(projection, inner)):
                return True
    return False


def _derived_sources(select: exp.Select) -> dict[str, tuple[exp.Query, bool]]:
    """The subqueries and CTEs that ``select``'s FROM and joins read, by alias, each with whether
    it is a scan's relation (its extractions' casts cannot fail unless :func:`may_fail` says so)."""
    out: dict[str, tuple[exp.Query, bool]] = {}
    source = select.args.get("from_") or select.args.get("from")
    relations = [source.this] if source is not None else []
    relations += [j.this for j in select.args.get("joins") or []]
    for relation in relations:
        if isinstance(relation, exp.Subquery) and isinstance(relation.this, exp.Query):
            out[relation.alias] = (relation.this, SCAN_INDEX in relation.meta)
        elif isinstance(relation, exp.Table) and not relation.args.get("db"):
            cte = _cte(relation)
            if cte is not None:
                out[relation.alias_or_name] = (cte, False)
    return out


def _cte(table: exp.Table) -> exp.Query | None:
    """The query of the CTE that ``table`` names (:func:`~vpush.optimizer.dialect.cte_of`)."""
    cte = cte_of(table)
    return cte.this if cte is not None and isinstance(cte.this, exp.Query) else None


def _projections(query: exp.Query, name: str) -> list[exp.Expr]:
    """The projections named ``name`` of a SELECT, or of each branch of a set operation; all of a
    query read through a star (where the name may be any of them)."""
    if isinstance(query, exp.SetOperation):
        return [p for branch in (query.this, query.expression) if isinstance(branch, exp.Query) for p in _projections(branch, name)]
    if not isinstance(query, exp.Select):
        return []
    named = [p for p in query.expressions if p.alias_or_name.lower() == name.lower()]
    return named or [p for p in query.expressions if isinstance(p, exp.Star)]


def order_conjuncts(expression: exp.Expr) -> exp.Expr:
    """Make DuckDB test the conjuncts of each WHERE, HAVING and join ON in Spark's order where
    one may raise (see the module's docstring). In place, on the DuckDB query.

    Example:
        >>> import sqlglot
        >>> order_conjuncts(sqlglot.parse_one("SELECT id FROM t WHERE ADD(i, 1) > 1 AND id <> 6")).sql()
        'SELECT id FROM t WHERE CASE WHEN ADD(i, 1) > 1 THEN id <> 6 ELSE FALSE END'
        >>> order_conjuncts(sqlglot.parse_one("SELECT id FROM t WHERE id <> 6 AND ADD(i, 1) > 1")).sql()
        'SELECT id FROM t WHERE id <> 6 AND CASE WHEN id <> 6 THEN ADD(i, 1) > 1 ELSE FALSE END'
        >>> order_conjuncts(sqlglot.parse_one("SELECT id FROM t WHERE id <> 6 AND i > 1")).sql()
        'SELECT id FROM t WHERE id <> 6 AND i > 1'
    """
    for select in list(expression.find_all(exp.Select)):
        where = select.args.get("where")
        if where is not None:
            where.set("this", _ordered(where.this, select, _side if select.args.get("joins") else _one))
        having = select.args.get("having")
        if having is not None:
            having.set("this", _ordered(having.this, select, _aggregated))
        for join in select.args.get("joins") or []:
            on = join.args.get("on")
            if on is not None:
                join.set("on", _ordered(on, select, _side))
    return expression


def hold_filter_order(expression: exp.Expr, is_string: Callable[[exp.Column], bool] = lambda column: False) -> exp.Expr:
    """Keep Spark from testing a filter's conjuncts out of their order on the Spark engine. There
    vpush's scans are a Python data source, and over such a source Spark's filter tests first the
    conjuncts it can translate into a source's filter (its plan reads ``NOT (id = 6) AND ((i + 1)
    > 1)`` for ``WHERE i + 1 > 1 AND id <> 6``), so it answered where Spark over the Parquet
    files raises. A condition written ``coalesce(c, false)`` (the same rows: a NULL and a false
    drop the row alike) is one conjunct that no source takes, whose ``AND`` Spark evaluates left
    to right (measured), and which Spark keeps in its place among the others.

    - A SELECT without joins: Spark tests its WHERE's conjuncts, then its HAVING's over grouping
      keys (pushed below the aggregate, where a source filter among them would move ahead of the
      WHERE). Where a conjunct of these that may raise has another after it, the WHERE is wrapped
      whole and each such HAVING conjunct by itself (Spark still pushes it below the aggregate;
      one with an aggregate stays above it).
    - A SELECT with joins: Spark pushes each conjunct of its ONs, its WHERE and its HAVING (one
      that reads no aggregate) that reads one side to that side, and infers more across the
      join's equalities (``a.id <> 6`` from ``b.id <> 6`` and ``a.id = b.id``), which it tests
      after those written for that side over Parquet, first over a source. So where any of them
      may raise and another is beside it, each conjunct is wrapped by itself (Spark still pushes
      it to its side, and what it infers from it is wrapped too), but for an equality of two
      columns (a join's key, or a correlated subquery's, which Spark's planner must see) and a
      conjunct holding a subquery (which Spark turns into a join): no source filter is either,
      so Spark moves neither. So is a WHERE without joins that holds such an equality or a
      subquery, with the rule of the first case.
    - A WHERE over a subquery or a CTE whose own WHERE may raise, or that of a query it reads in
      turn (Spark combines the filters, the innermost first): wrapped, so that the inner ones
      are tested first.

    Pruning is not at stake: vpush skips row groups by the query as written, before this. In
    place, on the Spark query.

    Example:
        >>> import sqlglot
        >>> hold_filter_order(sqlglot.parse_one("SELECT id FROM t WHERE i + 1 > 1 AND id <> 6")).sql()
        'SELECT id FROM t WHERE COALESCE(i + 1 > 1 AND id <> 6, FALSE)'
        >>> hold_filter_order(sqlglot.parse_one("SELECT id FROM t WHERE id <> 6 AND i + 1 > 1")).sql()
        'SELECT id FROM t WHERE id <> 6 AND i + 1 > 1'
        >>> hold_filter_order(sqlglot.parse_one("SELECT 1 FROM a JOIN b ON a.k = b.k AND b.x <> 6 AND a.i + 1 > 1")).sql()
        'SELECT 1 FROM a JOIN b ON a.k = b.k AND COALESCE(b.x <> 6, FALSE) AND COALESCE(a.i + 1 > 1, FALSE)'
    """
    for select in list(expression.find_all(exp.Select)):
        joins = select.args.get("joins") or []
        where = select.args.get("where")
        conditions = [(join, "on") for join in joins if join.args.get("on") is not None]
        if where is not None:
            conditions.append((where, "this"))
        having = select.args.get("having")
        if joins and having is not None:
            conditions.append((having, "this"))  # its conjuncts over grouping keys pushed to the sides
        parts = [c for node, key in conditions for c in conjuncts(node.args[key])]
        free = [c for c in parts if not _kept_plain(c) and c.find(exp.AggFunc) is None]
        # Spark tests a subquery's own filter first, then the outer one, as one filter
        below = any(_filter_may_raise(query) for query, is_scan in _derived_sources(select).values() if not is_scan)
        if joins or len(free) < len(parts):
            # Spark may test an inferred conjunct of one side after any of the others
            raising = free if joins else free[:-1]
            if (below and free) or (len(free) > 1 and any(_may_raise_on_spark(c, select, is_string) for c in raising)):
                for conjunct in free:
                    _wrap(conjunct)
            continue
        # Spark pushes a HAVING's conjuncts over grouping keys below the aggregate, after the
        # WHERE's, into one filter (a conjunct with an aggregate stays above it)
        pushed = [c for c in conjuncts(having.this) if c.find(exp.AggFunc) is None] if having is not None else []
        tested = (conjuncts(where.this) if where is not None else []) + pushed
        if not (below and where is not None) and not any(_may_raise_on_spark(c, select, is_string) for c in tested[:-1]):
            continue
        if where is not None:
            where.set("this", _held(exp.Coalesce(this=where.this, expressions=[exp.false()])))
        for conjunct in pushed:
            _wrap(conjunct)  # each by itself: Spark still pushes it below the aggregate
    return expression


def _filter_may_raise(query: exp.Query, seen: frozenset[int] = frozenset()) -> bool:
    """Whether a conjunct of the WHERE of ``query`` (a subquery or a CTE another SELECT reads), or
    of a subquery or CTE it reads in turn, may raise: Spark combines their filters with the outer
    one, the innermost first (a recursive CTE's reference to itself is not followed)."""
    if not isinstance(query, exp.Select) or id(query) in seen:
        return False
    where = query.args.get("where")
    if where is not None and any(may_raise(c, query) for c in conjuncts(where.this)):
        return True
    return any(
        _filter_may_raise(inner, seen | {id(query)}) for inner, is_scan in _derived_sources(query).values() if not is_scan
    )


def _kept_plain(conjunct: exp.Expr) -> bool:
    """Whether :func:`hold_filter_order` leaves a conjunct of a SELECT with joins as written: an
    equality of two columns' expressions (a join's key, which Spark's planner must see), or a
    conjunct holding a subquery (which Spark turns into a join); no source filter is either."""
    if conjunct.find(exp.Query, exp.Subquery, exp.Exists) is not None:
        return True
    return (
        isinstance(conjunct, (exp.EQ, exp.NullSafeEQ))
        and conjunct.left.find(exp.Column) is not None
        and conjunct.right.find(exp.Column) is not None
    )


def _may_raise_on_spark(conjunct: exp.Expr, select: exp.Select, is_string: Callable[[exp.Column], bool]) -> bool:
    """:func:`may_raise`, or a comparison of a string column (``is_string``: as the query's types
    give it, a subquery's column of a string too) with a number, a boolean or a typed literal (a
    date...), which Spark's coercion reads as one (``v:b::string = 5``: the text cast to a
    bigint, ``CAST_INVALID_INPUT`` for ``'x'``)."""
    if may_raise(conjunct, select):
        return True
    for node in conjunct.find_all(*COMPARISONS):
        sides = comparison_operands(node)
        if any(_not_text(s) for s in sides) and any(isinstance(s, exp.Column) and is_string(s) for s in sides):
            return True
    return False


def _not_text(node: exp.Expr) -> bool:
    """A constant other than a string: a number, a boolean, a typed literal (``DATE'2024-01-01'``)."""
    if isinstance(node, exp.Boolean) or (isinstance(node, exp.Literal) and not node.is_string):
        return True
    return isinstance(node, exp.Cast) and node.find(exp.Column) is None and not node.to.is_type(*exp.DataType.TEXT_TYPES)


def _wrap(conjunct: exp.Expr) -> None:
    """``conjunct`` written ``coalesce(conjunct, false)`` in its place."""
    wrapped = _held(exp.Coalesce(expressions=[exp.false()]))
    conjunct.replace(wrapped)
    wrapped.set("this", conjunct)


def _held(node: exp.Coalesce) -> exp.Coalesce:
    node.meta[HELD] = True
    return node


def holds_a_filter(expression: exp.Expr) -> bool:
    """Whether :func:`hold_filter_order` wrote a condition of ``expression`` in a ``coalesce``:
    Spark folds no constant in it that raises (a conditional expression's branch), which the
    Spark engine then computes first (:mod:`vpush.optimizer.fold_constants`)."""
    return any(node.meta.get(HELD) for node in expression.find_all(exp.Coalesce))


def _one(conjunct: exp.Expr) -> object:
    """A query without joins tests all its conjuncts in one filter."""
    return None


def _side(conjunct: exp.Expr) -> object:
    """The one relation a conjunct reads (Spark pushes it to that side of a join), or None."""
    tables = {c.table for c in conjunct.find_all(exp.Column)}
    return next(iter(tables)) if len(tables) == 1 else None


def _aggregated(conjunct: exp.Expr) -> object:
    """Whether a HAVING's conjunct reads an aggregate (Spark pushes the others below the aggregate)."""
    return conjunct.find(exp.AggFunc) is not None


def _ordered(condition: exp.Expr, select: exp.Select, group_of: Callable[[exp.Expr], object]) -> exp.Expr:
    """``condition`` with its conjuncts in Spark's order, group by group (``group_of`` a conjunct's
    group: a side of a join, or a HAVING's part above or below its aggregate)."""
    if not may_raise(condition, select):
        return condition
    condition = condition.unnest()
    if not isinstance(condition, exp.And):
        return _ordered_inside(condition, select)
    conjuncts = [_ordered_inside(c, select) for c in condition.flatten()]
    # Spark makes a conjunct with an IN or EXISTS subquery a join above a filter of the others
    # (RewritePredicateSubquery), which it tests first: WHERE id IN (SELECT ...) AND v:a::int > 0
    # casts every row's a
    conjuncts.sort(key=_joined_after)
    groups: dict[object, list[exp.Expr]] = {}
    for conjunct in conjuncts:
        groups.setdefault(group_of(conjunct), []).append(conjunct)
    return exp.and_(*[_chain(group, select) for group in groups.values()], copy=False)


def _joined_after(conjunct: exp.Expr) -> bool:
    return any(isinstance(node, exp.Exists) or (isinstance(node, exp.In) and node.args.get("query")) for node in in_scope(conjunct))


def _chain(conjuncts: list[exp.Expr], select: exp.Select) -> exp.Expr:
    """One group's conjuncts, each that may raise tested only on the rows those before it keep,
    and before those after it."""
    raising = [may_raise(c, select) for c in conjuncts]
    if True not in raising:
        return exp.and_(*conjuncts, copy=False)
    first = raising.index(True)
    prefix, rest = conjuncts[:first], conjuncts[first:]
    # runs of conjuncts that cannot raise are tested together; each that may raise by itself
    steps: list[list[exp.Expr]] = []
    for conjunct, raises in zip(rest, raising[first:]):
        if raises or not steps or may_raise(steps[-1][-1], select):
            steps.append([conjunct])
        else:
            steps[-1].append(conjunct)
    folded = exp.and_(*steps[-1], copy=False)
    for step in reversed(steps[:-1]):
        folded = _when(exp.and_(*step, copy=False), folded)
    if not prefix:
        return folded
    guard = exp.and_(*[p.copy() for p in prefix], copy=False)
    return exp.and_(*prefix, _when(guard, folded), copy=False)


def _when(condition: exp.Expr, then: exp.Expr) -> exp.Case:
    return exp.Case(ifs=[exp.If(this=condition, true=then)], default=exp.false())


def _ordered_inside(node: exp.Expr, select: exp.Select) -> exp.Expr:
    """``node`` with each ``AND`` and ``OR`` inside it one of whose sides may raise written so
    that DuckDB computes its right side only where its left does not decide, as Spark does
    (innermost first; a nested query is a scope of its own).

    Such a rewrite reads its left side twice, to decide and to combine; where that side holds a
    rewrite of its own (a nest of ``AND`` in ``OR`` in ``AND``...) it is computed once, the
    variable of a lambda applied to it, instead: written twice at each level, a 12-level nest
    was 4,096 copies of its innermost side, and took 30 to 80 s to plan. DuckDB takes no
    subquery in a lambda, so a right side that holds one keeps the copy.

    Example:
        >>> import sqlglot
        >>> _ordered_inside(sqlglot.parse_one("ADD(i, 1) > 1 OR a"), exp.select("*")).sql()
        'CASE WHEN ADD(i, 1) > 1 THEN TRUE ELSE (ADD(i, 1) > 1 OR a) END'
        >>> _ordered_inside(sqlglot.parse_one("(ADD(i, 1) > 1 OR a) AND b"), exp.select("*")).sql("duckdb")
        'LIST_EXTRACT(LIST_TRANSFORM([(CASE WHEN ADD(i, 1) > 1 THEN TRUE ELSE (ADD(i, 1) > 1 OR a) END)], LAMBDA __vpush_left1 : CASE WHEN NOT (__vpush_left1) THEN FALSE ELSE (__vpush_left1 AND b) END), 1)'
    """
    for k, logic in enumerate(reversed([n for n in in_scope(node) if isinstance(n, (exp.And, exp.Or))])):
        left, right = logic.this, logic.expression
        if not (may_raise(left, select) or may_raise(right, select)):
            continue
        bound = any(n.meta.get(_ORDERED) for n in left.walk()) and right.find(exp.Query, exp.Subquery, exp.Exists) is None
        value = exp.to_identifier(f"__vpush_left{k}") if bound else left.copy()
        if isinstance(logic, exp.And):
            decided = exp.If(this=exp.Not(this=exp.Paren(this=value)), true=exp.false())
        else:
            decided = exp.If(this=value, true=exp.true())
        case = exp.Case(ifs=[decided])
        case.meta[_ORDERED] = True
        replacement: exp.Expr = case
        if bound:
            left.replace(value.copy())
            applied = exp.Anonymous(this="list_transform", expressions=[exp.Array(expressions=[left]), exp.Lambda(this=case, expressions=[value.copy()])])
            replacement = exp.Anonymous(this="list_extract", expressions=[applied, exp.Literal.number(1)])
        if logic is node:
            node = replacement
        else:
            logic.replace(replacement)
        case.set("default", exp.Paren(this=logic))
    return node


_ORDERED = "vpush_ordered_logic"
"""The key in the ``meta`` of a ``CASE`` :func:`_ordered_inside` wrote."""
