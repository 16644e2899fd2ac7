"""Checks of one SELECT as Spark's analyzer resolves it, where DuckDB's binder answers otherwise
(each measured on PySpark 4.3)."""
from __future__ import annotations

from collections.abc import Callable, Collection

from sqlglot import exp

from vpush.optimizer.dialect import VariantGet, VpushSpark, in_scope
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
    """Raise Spark's error for an ORDER BY of an aggregate over an aggregating SELECT whose HAVING
    needs an aggregate (or a grouping key) the SELECT does not project.

    Spark's ``ResolveAggregateFunctions`` adds such a HAVING's missing expressions to the
    ``Aggregate`` and puts a ``Project`` of the SELECT's own columns over the HAVING's filter; the
    ORDER BY's ``Sort`` then stands over that ``Project``, not over the ``Aggregate``, and an
    aggregate there cannot be resolved. Its argument is a column the sort cannot see
    (``UNRESOLVED_COLUMN``) unless it is a grouping key; else the aggregate itself is refused
    there (``UNSUPPORTED_EXPR_FOR_OPERATOR``), even one the SELECT projects. A HAVING of what the
    SELECT projects (``count(*) > 1`` beside ``count(*) AS n``, ``n > 1``, a projected key) adds
    nothing, and Spark answers (as DuckDB does). Measured on PySpark 4.3
    (``tests/test_spark_relational.py``).

    Example:
        >>> from vpush.optimizer.plan_query import parse_spark
        >>> check_order_by_aggregates(parse_spark("SELECT g FROM t GROUP BY g HAVING count(*) > 1 ORDER BY count(*)"))
        Traceback (most recent call last):
        ...
        vpush.optimizer.errors.OptimizeError: [UNSUPPORTED_EXPR_FOR_OPERATOR] The query operator Sort contains one or more unsupported expressions: count(1)
        >>> check_order_by_aggregates(parse_spark("SELECT g, count(*) AS n FROM t GROUP BY g HAVING n > 1 ORDER BY max(i)"))
    """
    group, having, order = select.args.get("group"), select.args.get("having"), select.args.get("order")
    if having is None or order is None:
        return
    keys = list(group.expressions) if group is not None else []
    if not adds_to_aggregate(having.this, select, keys):
        return
    key_names = {k.name.lower() for k in keys if isinstance(k, exp.Column)}
    for agg in _aggregates(order):
        for column in agg.find_all(exp.Column):
            if column.name.lower() not in key_names:
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


def adds_to_aggregate(node: exp.Expr, select: exp.Select, keys: list[exp.Expr]) -> bool:
    """Whether Spark's ``buildAggExprList`` adds an expression of the HAVING ``node`` to the
    ``Aggregate``: an aggregate or a grouping key that no projection of ``select`` is (whole, or
    under its alias); a column that names a projection's alias is its output."""
    projected = [canonical_sql(p.this if isinstance(p, exp.Alias) else p) for p in select.expressions]
    aliases = {p.alias.lower() for p in select.expressions if isinstance(p, exp.Alias)}
    grouped = [canonical_sql(k) for k in keys]

    def adds(part: exp.Expr) -> bool:
        text = canonical_sql(part)
        if text in projected:
            return False
        if isinstance(part, exp.AggFunc) or text in grouped:
            return part.find_ancestor(exp.Window) is None
        if isinstance(part, exp.Column):
            return False  # a projection's alias, or a column resolved (or refused) elsewhere
        if isinstance(part, (exp.Select, exp.Subquery, exp.Window)):
            return False
        return any(adds(child) for child in part.iter_expressions())

    if isinstance(node, exp.Column) and node.name.lower() in aliases:
        return False
    return adds(node)


# Spark's Canonicalize: the operands of these put in one order (a chain of one of the first six
# flattened first), and the comparisons read one way (a > b as b < a, NOT a <= b as b < a)
_ASSOCIATIVE = (exp.Add, exp.Mul, exp.And, exp.Or, exp.BitwiseAnd, exp.BitwiseOr, exp.BitwiseXor)
_SYMMETRIC = (exp.EQ, exp.NEQ, exp.NullSafeEQ)
_FLIPPED: dict[type[exp.Expr], type[exp.Binary]] = {exp.GT: exp.LT, exp.GTE: exp.LTE}
_NEGATED: dict[type[exp.Expr], Callable[[exp.Expr, exp.Expr], exp.Expr]] = {
    exp.GT: lambda a, b: exp.LTE(this=a, expression=b),
    exp.GTE: lambda a, b: exp.LT(this=a, expression=b),
    exp.LT: lambda a, b: exp.LTE(this=b, expression=a),
    exp.LTE: lambda a, b: exp.LT(this=b, expression=a),
}


def canonical_sql(node: exp.Expr, sources: Collection[str] = ()) -> str:
    """The text of ``node`` in Spark's canonical form (``Expression.canonicalized``, which
    ``semanticEquals`` compares): names in lower case, a qualifier naming one of ``sources``
    dropped, parentheses dropped, the operands of ``+``, ``*``, ``AND``, ``OR``, ``=`` and the
    bitwise operators sorted, comparisons read as ``<``/``<=``, ``count(*)`` as ``count(1)``, a
    colon extraction as its ``variant_get``.

    Example:
        >>> from vpush.optimizer.plan_query import parse_spark
        >>> canonical_sql(parse_spark("SELECT NOT 1 >= T.s + i").expressions[0], ["t"])
        '1 < i + s'
    """
    return _canonical_form(node.copy(), sources).sql(dialect=VpushSpark)


def _canonical_form(part: exp.Expr, sources: Collection[str]) -> exp.Expr:
    """``part`` (a copy, changed in place) in canonical form, its operands first."""
    for child in list(part.iter_expressions()):
        formed = _canonical_form(child, sources)
        if formed is not child:
            child.replace(formed)
    if isinstance(part, exp.Paren):
        return part.this
    if isinstance(part, exp.Column) and not isinstance(part.this, exp.Star):
        qualifier = part.table.lower()
        table = None if not qualifier or qualifier in sources else exp.to_identifier(qualifier)
        return exp.Column(this=exp.to_identifier(part.name.lower()), table=table)
    if isinstance(part, VariantGet) and part.args.get("colon"):
        part.set("colon", None)
    if isinstance(part, exp.Count) and isinstance(part.this, exp.Star):
        part.set("this", exp.Literal.number(1))
    if isinstance(part, exp.Not) and type(part.this) in _NEGATED:
        part = _NEGATED[type(part.this)](part.this.this, part.this.expression)
    if type(part) in _FLIPPED:
        return _FLIPPED[type(part)](this=part.expression, expression=part.this)
    if isinstance(part, (*_ASSOCIATIVE, *_SYMMETRIC)):
        kind = type(part)
        operands = _chain(part, kind) if isinstance(part, _ASSOCIATIVE) else [part.this, part.expression]
        operands.sort(key=lambda o: o.sql(dialect=VpushSpark))
        built = operands[0]
        for operand in operands[1:]:
            built = kind(this=built, expression=operand)
        return built
    return part


def _chain(node: exp.Expr, kind: type[exp.Expr]) -> list[exp.Expr]:
    """The operands of a chain of ``kind`` (``a + b + c``: a, b, c)."""
    if type(node) is not kind:
        return [node]
    return [*_chain(node.this, kind), *_chain(node.expression, kind)]
