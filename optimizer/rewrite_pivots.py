"""Spark's ``PIVOT`` and ``UNPIVOT`` as plain SELECTs DuckDB runs with Spark's answer.

``FROM src PIVOT (agg1 [AS a1], ... FOR k IN (v1 [AS n1], ...))`` groups ``src`` by its columns
that neither the aggregates nor ``k`` name (in ``src``'s order) and gives, for each value and
then each aggregate, the aggregate over the rows where ``k <=> v`` (the value cast to ``k``'s
type). Spark's ``ResolvePivot`` names a column after the value (its alias, else the literal as
written), followed by ``_`` and the aggregate's alias or SQL when there are several aggregates.
Where every aggregate is a number or a boolean, Spark aggregates by ``(group, k)`` first and
picks the cells out (``PivotFirst``): a group without a row of that value gets NULL, even for
``count``; otherwise each aggregate's arguments become ``if(k <=> v, x, NULL)``, so ``count``
gives 0 there (measured on PySpark 4.3). DuckDB's own ``PIVOT`` counts 0 either way, so each cell
is written as the aggregate ``FILTER (WHERE k <=> v)``, under ``CASE WHEN count(1) FILTER (...)
> 0`` in the first case::

    SELECT g, CASE WHEN count(1) FILTER (WHERE k <=> 0) > 0 THEN sum(b) FILTER (WHERE k <=> 0) END AS `0`
    FROM src GROUP BY g

``FROM src UNPIVOT [INCLUDE | EXCLUDE NULLS] (v FOR n IN (c1 [AS a1], ...))`` (or several value
columns, ``((v1, v2) FOR n IN ((c1, c2) [AS a1], ...))``) gives, for each row of ``src`` and
then each entry in order, ``src``'s other columns, the entry's name (its alias, else its columns'
names joined by ``_``) and its values, widened to one type per value column as Spark widens them
(``UNPIVOT_VALUE_DATA_TYPE_MISMATCH`` where there is none). Rows whose values are all NULL are
dropped unless ``INCLUDE NULLS``. It becomes Spark's ``inline`` of an array of structs (a lateral
join that keeps each row's entries in order), filtered.

Both are rewritten before the query's scopes are typed; what needs the types (the values' casts,
``PivotFirst``, the value columns' common type) is settled by :func:`settle_pivot` when the
generated SELECT is typed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from vpush.optimizer.dialect import TYPED_LITERAL
from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.expand_using_stars import COLUMN_NAMES
from vpush.optimizer.rewrite_generators import inline_of_structs
from vpush.optimizer.variant_types import AtomicType, DecimalType, SparkType

__all__ = ["PIVOTED", "rewrite_pivots", "settle_pivot"]

PIVOTED = "vpush_pivoted"
"""The meta key under which a SELECT written for a PIVOT or UNPIVOT keeps what :func:`settle_pivot`
settles once the SELECT is typed."""

_HIDDEN = "__vpush"
_CONDITION = "vpush_pivot_condition"
_NUMBERS = frozenset({"tinyint", "smallint", "int", "bigint", "float", "double"})
# Spark's PivotFirst.supportsDataType: the types an UnsafeRow updates in place.
_PIVOT_FIRST = _NUMBERS | {"boolean"}


@dataclass
class _Pivoted:
    """What a SELECT written for a PIVOT leaves to settle: each cell (an alias of the
    aggregate), and each condition ``k <=> v`` whose value is cast to ``k``'s type."""

    cells: list[tuple[exp.Expr, list[exp.NullSafeEQ]]] = field(default_factory=list)
    # UNPIVOT: the value columns' expressions per value column, with the names Spark shows
    unpivoted: list[list[exp.Expr]] = field(default_factory=list)


def _unsupported(what: str) -> OptimizeError:
    return OptimizeError(
        f"{what}: the DuckDB engine does not give Spark's answer for it yet; the Spark engine "
        "(vpush.connect(engine='spark')) runs it",
        error_class="VPUSH_UNSUPPORTED_FUNCTION",
    )


def _spark_sql(node: exp.Expr) -> str:
    return node.sql(dialect="vpushspark")


def _source_names(source: exp.Expr, ctes: dict[str, exp.Expr]) -> list[str] | None:
    """The columns of a FROM source in order, as spelt, or None where vpush cannot tell."""
    if isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier):
        names = source.meta.get(COLUMN_NAMES)
        if names is not None:
            return [n for n in names if not n.startswith(_HIDDEN)]
        cte = ctes.get(source.name.lower())
        return None if cte is None else _query_names(cte)
    if isinstance(source, exp.Subquery):
        return _query_names(source.this)
    return None


def _query_names(query: exp.Expr) -> list[str] | None:
    if not isinstance(query, exp.Select):
        return None
    names = []
    for projection in query.expressions:
        if projection.is_star:
            return None
        if not isinstance(projection, (exp.Alias, exp.Column)):
            return None  # an unaliased expression: Spark's name for it is not at hand here
        names.append(projection.alias_or_name)
    return names


def _column(name: str, table: str | None = None) -> exp.Column:
    return exp.column(exp.to_identifier(name, quoted=True), table=exp.to_identifier(table, quoted=True) if table else None)


def _value_name(value: exp.Expr) -> str:
    """Spark's name of a pivot value: the literal cast to a string, as written."""
    if isinstance(value, exp.Null):
        return "null"
    if isinstance(value, exp.Boolean):
        return "true" if value.this else "false"
    sign = ""
    while isinstance(value, exp.Neg):
        sign, value = ("" if sign else "-"), value.this
    if isinstance(value, exp.Cast) and value.meta.get(TYPED_LITERAL):
        value = value.this
    if isinstance(value, exp.Literal):
        return sign + str(value.this)
    raise OptimizeError(
        f'[NON_LITERAL_PIVOT_VALUES] Literal expressions required for pivot values, found "{_spark_sql(value)}".',
        error_class="NON_LITERAL_PIVOT_VALUES",
    )


def _aggregate_sql_name(node: exp.Expr) -> str:
    from vpush.optimizer.spark_semantics import spark_name

    name = spark_name(node)
    if name is None:
        raise _unsupported(f"PIVOT of {_spark_sql(node)} among several aggregates (its Spark name)")
    return name


def _aggregate_required(node: exp.Expr) -> OptimizeError:
    return OptimizeError(
        f"Aggregate expression required for pivot, but '{_spark_sql(node)}' did not appear in any aggregate function.",
        error_class="_LEGACY_ERROR_TEMP_1006",
    )


def _filtered(aggregate: exp.Expr, condition: exp.Expr) -> exp.Expr:
    """``aggregate`` with each aggregate call in it taking only the rows where ``condition``."""
    calls: list[exp.Expr] = [n for n in aggregate.walk() if isinstance(n, exp.AggFunc)
                             and not isinstance(n.parent, exp.Filter) and n.find_ancestor(exp.AggFunc) is None]
    calls += [n for n in aggregate.walk() if isinstance(n, exp.Filter) and n.find_ancestor(exp.AggFunc) is None]
    for column in aggregate.find_all(exp.Column):
        # Spark's ResolvePivot checks each aggregate: a column outside every aggregate fails it
        if column.find_ancestor(exp.AggFunc, exp.Filter, exp.Anonymous) is None:
            raise _aggregate_required(column)
    if not calls and aggregate.find(exp.Anonymous) is not None:
        raise _unsupported(f"PIVOT of {_spark_sql(aggregate)} (an aggregate vpush does not know)")
    if not calls:
        raise _aggregate_required(aggregate)
    for call in calls:
        if isinstance(call, exp.Filter):
            where = call.expression
            where.set("this", exp.and_(exp.paren(where.this, copy=False), condition.copy(), copy=False))
        else:
            wrapped = exp.Filter(this=call.copy(), expression=exp.Where(this=condition.copy()))
            if call is aggregate:
                return wrapped
            call.replace(wrapped)
    return aggregate


def _pivot(pivot: exp.Pivot, source: exp.Expr, names: list[str]) -> tuple[exp.Select, _Pivoted]:
    fields = pivot.args.get("fields") or []
    if len(fields) != 1 or not isinstance(fields[0], exp.In) or not isinstance(fields[0].this, exp.Column):
        raise _unsupported(f"PIVOT over {', '.join(_spark_sql(f) for f in fields)} (one column FOR is answered)")
    column = fields[0].this
    aggregates = list(pivot.expressions)
    referenced = {c.name.lower() for a in [*aggregates, column] for c in a.find_all(exp.Column)}
    grouped = [n for n in names if n.lower() not in referenced]
    settled = _Pivoted()
    projections: list[exp.Expr] = [_column(n) for n in grouped]
    for value in fields[0].expressions:
        alias = value.alias if isinstance(value, exp.PivotAlias) else None
        literal = value.this if isinstance(value, exp.PivotAlias) else value
        shown = alias or _value_name(literal)
        for aggregate in aggregates:
            inner = aggregate.this if isinstance(aggregate, exp.Alias) else aggregate
            name = shown
            if len(aggregates) > 1:
                name += "_" + (aggregate.alias if isinstance(aggregate, exp.Alias) else _aggregate_sql_name(inner))
            condition = exp.NullSafeEQ(this=column.copy(), expression=literal.copy())
            condition.meta[_CONDITION] = True
            cell = exp.alias_(_filtered(inner.copy(), condition), exp.to_identifier(name, quoted=True), copy=False)
            settled.cells.append((cell, [c for c in cell.find_all(exp.NullSafeEQ) if c.meta.get(_CONDITION)]))
            projections.append(cell)
    select = exp.select(*projections, copy=False).from_(source, copy=False)
    if grouped:
        select.set("group", exp.Group(expressions=[_column(n) for n in grouped]))
    return select, settled


def _unpivot(pivot: exp.Pivot, source: exp.Expr, names: list[str], alias: str) -> tuple[exp.Select, _Pivoted]:
    values = pivot.expressions
    value_names = [v.name for v in (values[0].expressions if len(values) == 1 and isinstance(values[0], exp.Tuple) else values)]
    fields = pivot.args.get("fields") or []
    if len(fields) != 1 or not isinstance(fields[0], exp.In) or not value_names or not all(value_names):
        raise _unsupported("this UNPIVOT")
    name_column = fields[0].this.name
    entries: list[tuple[str, list[exp.Expr]]] = []
    for entry in fields[0].expressions:
        given = entry.alias if isinstance(entry, exp.PivotAlias) else None
        inner = entry.this if isinstance(entry, exp.PivotAlias) else entry
        columns = list(inner.expressions) if isinstance(inner, exp.Tuple) else [inner]
        if len(columns) != len(value_names) or not all(isinstance(c, exp.Column) for c in columns):
            raise _unsupported(f"UNPIVOT of {_spark_sql(entry)} into {len(value_names)} value columns")
        entries.append((given or "_".join(c.name for c in columns), columns))
    unpivoted = {c.name.lower() for _, columns in entries for c in columns}
    others = [n for n in names if n.lower() not in unpivoted]
    settled = _Pivoted(unpivoted=[[columns[k] for _, columns in entries] for k in range(len(value_names))])
    rows = [[(f"{_HIDDEN}_n", exp.Literal.string(shown)), *((f"{_HIDDEN}_v{k}", c) for k, c in enumerate(columns))]
            for shown, columns in entries]
    outputs = [name_column, *value_names]
    inline = exp.Aliases(this=inline_of_structs(rows), expressions=[exp.to_identifier(n, quoted=True) for n in outputs])
    inner = exp.select(*[_column(n) for n in others], inline, copy=False).from_(source, copy=False)
    outer = exp.select(*[_column(n) for n in [*others, *outputs]], copy=False).from_(
        exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=True))), copy=False)
    if not pivot.args.get("include_nulls"):
        nulls = [exp.Is(this=_column(n), expression=exp.Null()) for n in value_names]
        outer.set("where", exp.Where(this=exp.not_(exp.paren(exp.and_(*nulls, copy=False), copy=False), copy=False)))
    return outer, settled


def rewrite_pivots(expression: exp.Expr) -> exp.Expr:
    """Replace each ``PIVOT``/``UNPIVOT`` of ``expression`` (Spark SQL) by a subquery of a plain
    SELECT over its source, in place; the source node itself moves into it (a table keeps its
    identity: its scan is found by it).

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> tree = sqlglot.parse_one("SELECT * FROM (SELECT g, k, b FROM t) PIVOT (sum(b) FOR k IN (0, 1 AS one))", read=VpushSpark)
        >>> rewrite_pivots(tree).sql(dialect=VpushSpark)
        'SELECT * FROM (SELECT `g`, SUM(b) FILTER(WHERE k IS NOT DISTINCT FROM 0) AS `0`, SUM(b) FILTER(WHERE k IS NOT DISTINCT FROM 1) AS `one` FROM (SELECT g, k, b FROM t) GROUP BY `g`) AS `__vpush_pivot_0`'

    Raises:
        OptimizeError: Spark's error class where Spark raises (a value that is not a literal, an
            aggregate missing); ``VPUSH_UNSUPPORTED_FUNCTION`` where the source's columns are not
            known, or for a pivot over several columns.
    """
    ctes = {cte.alias_or_name.lower(): cte.this for cte in expression.find_all(exp.CTE)}
    for index, node in enumerate([n for n in expression.find_all(exp.Table, exp.Subquery) if n.args.get("pivots")]):
        pivots = node.args["pivots"]
        word = "UNPIVOT" if pivots[0].args.get("unpivot") else "PIVOT"
        if len(pivots) != 1:
            raise _unsupported(f"several {word}s of one source")
        pivot = pivots[0]
        names = _source_names(node, ctes)
        if names is None:
            raise _unsupported(f"{word} of {_spark_sql(node)} (a source whose columns vpush does not know here)")
        given = pivot.args.get("alias")
        alias = given.name if isinstance(given, exp.TableAlias) and given.name else f"{_HIDDEN}_pivot_{index}"
        node.set("pivots", None)
        subquery = exp.Subquery(alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))
        node.replace(subquery)
        if pivot.args.get("unpivot"):
            select, settled = _unpivot(pivot, node, names, f"{_HIDDEN}_unpivot_{index}")
            settled_on = select.args["from_"].this.this  # the inner SELECT, whose inline is typed
        else:
            select, settled = _pivot(pivot, node, names)
            settled_on = select
        settled_on.meta[PIVOTED] = settled
        subquery.set("this", select)
    return expression


def _type_name(spark_type: SparkType | None) -> str | None:
    if isinstance(spark_type, DecimalType):
        return "decimal"
    return spark_type.to_spark() if isinstance(spark_type, AtomicType) else None


def settle_pivot(select: exp.Select, type_of: Callable[[exp.Expr], SparkType | None]) -> None:
    """Settle what a SELECT written by :func:`rewrite_pivots` leaves to its types, in place:
    each pivot value cast to the pivot column's type, each cell NULL where its group has no row
    of the value when Spark's ``PivotFirst`` runs it, and an UNPIVOT's value columns checked.

    Raises:
        OptimizeError: ``UNPIVOT_VALUE_DATA_TYPE_MISMATCH`` as Spark; ``VPUSH_UNSUPPORTED_FUNCTION``
            where a type vpush needs is unknown.
    """
    settled = select.meta.get(PIVOTED)
    if not isinstance(settled, _Pivoted):
        return
    for columns in settled.unpivoted:
        _check_unpivoted(columns, [type_of(c) for c in columns])
    for condition in [c for _, conditions in settled.cells for c in conditions]:
        column, value = type_of(condition.this), type_of(condition.expression)
        if column is None or (value is None and not isinstance(condition.expression, exp.Null)):
            raise _unsupported(f"PIVOT FOR {_spark_sql(condition.this)} IN ({_spark_sql(condition.expression)})")
        to = column.to_sql_type()
        if value is not None and value != column and to is not None:
            condition.set("expression", exp.Cast(this=condition.expression, to=to))
    types = [type_of(cell.this) for cell, _ in settled.cells]
    if not all(t is not None for t in types):
        raise _unsupported(f"PIVOT of {_spark_sql(settled.cells[types.index(None)][0].this)}")
    if all((_type_name(t) in _PIVOT_FIRST or _type_name(t) == "decimal") for t in types):
        for cell, conditions in settled.cells:
            rows = exp.Filter(this=exp.Count(this=exp.Literal.number(1)), expression=exp.Where(this=conditions[0].copy()))
            cell.set("this", exp.Case(ifs=[exp.If(this=exp.GT(this=rows, expression=exp.Literal.number(0)), true=cell.this)]))


def _check_unpivoted(columns: Sequence[exp.Expr], types: Sequence[SparkType | None]) -> None:
    """Spark's UnpivotCoercion: one value column's types must be one type, or all numbers."""
    if any(t is None for t in types):
        raise _unsupported(f"UNPIVOT of {', '.join(_spark_sql(c) for c in columns)} (a type vpush does not know)")
    if len(set(types)) == 1 or all(_type_name(t) in _NUMBERS or _type_name(t) == "decimal" for t in types):
        return
    shown = sorted({(str(t).upper(), _spark_sql(c)) for c, t in zip(columns, types)})
    raise OptimizeError(
        "Unpivot value columns must share a least common type, some types do not: ["
        + ", ".join(f'"{t}" (`{n}`)' for t, n in shown) + "].",
        error_class="UNPIVOT_VALUE_DATA_TYPE_MISMATCH",
    )
