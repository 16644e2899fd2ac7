"""The constants Spark computes as it plans a query, for the DuckDB engine to compute first.

Spark's optimizer folds each expression of constants only (``ConstantFolding``), rows or not:
one that raises fails the query before any row is read, unless it stands in a branch of a
conditional expression (``CASE``, ``if``, ``coalesce``/``nvl``, ``nvl2``, ``nanvl``,
``nullif``), where the failure is left to the rows that reach it. So ``WHERE id > 100 AND
cast('q' AS int) = id`` raises ``CAST_INVALID_INPUT`` though no id passes 100, as do ``WHERE x
<= NULL AND ...``, ``SELECT cast('q' AS int) FROM t WHERE false``, ``SELECT 1/0 FROM t WHERE id >
100`` and ``WHERE cast(v:a AS date) <> ''`` (the string Spark casts to a date to compare it;
measured on PySpark 4.3). DuckDB computes such a constant only for a row that reaches it, and
vpush's pruning may leave none: it answered ``[]``.

:func:`folded_constants` finds them in the Spark query, as parsed: in the conditions (``WHERE``,
``HAVING``, ``QUALIFY``, a join's ``ON``, an aggregate's ``FILTER``), sort keys (``ORDER BY``,
``SORT BY``, a window's), ``DISTRIBUTE BY`` keys (a constant one too) and grouping keys of every query and in the outermost projections (an aggregate's arguments among them;
those of each branch of a set operation), in a lambda's body where it reads none of the lambda's
variables (``x -> x + 1 / 0``), outside a conditional expression that reads a row (``coalesce(1/0,
i) = id`` answers; ``coalesce(1/0, 1)`` is computed whole, and raises), a null test of a value
Spark's analysis types as not nullable (its ``NullPropagation`` makes the test a constant first:
``make_date(2024, 13, 1) IS NULL`` answers, ``(1 / 0) IS NULL`` raises; one whose nullability
vpush does not know is left to the rows), a constant window partition or grouping key (Spark drops
those first: ``GROUP BY id, 1 / 0`` answers; ``PARTITION BY id + 1 / 0`` raises), a CTE (Spark
drops one no query reads), any query of a statement with a ``LIMIT 0`` (Spark drops what it limits
before it folds) and of one that reads ``VALUES`` or a query without ``FROM`` (Spark filters those
rows before it folds); and a string literal compared with a cast or a ``variant_get`` to a date,
timestamp, boolean or integer, or with a registered table's column of such a type, as the cast
Spark's coercion gives it. A subquery's or CTE's column is put in place of the references that read
it, as Spark's ``CollapseProject`` and ``PushDownPredicates`` do before it folds (one nothing reads
is dropped by its ``ColumnPruning``: :class:`_DerivedColumns`). An ``AND`` or ``OR`` among the
constants computes its left side first and its right one only where the left does not decide, as
Spark's does. The plan computes them in a query of their own, which the DuckDB engine runs first
(the Spark engine's Spark folds them itself). Left to the rows as before: a subquery's column
read by a nested query, and a ``UNION ALL``'s column read only in a conditional expression's
branch (Spark folds the branch's projection before it collapses the one over it into it when a
filter stands between them: ``SELECT CASE WHEN id > 1 THEN c END FROM (... UNION ALL ...) WHERE
id > 100`` raises).
"""

from __future__ import annotations

import decimal
import re
from typing import TYPE_CHECKING

from sqlglot import exp

from vpush.optimizer.bind_sqlglot import reads_as
from vpush.optimizer.dialect import COMPARISONS, VariantGet, comparison_operands, lambda_variables, in_scope

if TYPE_CHECKING:
    from vpush.optimizer.spark_semantics import ExpressionTypes

__all__ = ["decide_null_tests", "folded_constants"]

# what reads a row, or is not computed once: never part of a constant
_NOT_CONSTANT = (
    exp.Column, exp.Star, exp.AggFunc, exp.Window, exp.Query, exp.Subquery, exp.Lambda, exp.Placeholder, exp.Parameter,
    exp.Rand, exp.Randn, exp.Uuid,
)
# Spark's conditional expressions: a failure in their branches is left to the rows that reach it
_CONDITIONAL = (exp.Case, exp.If, exp.Coalesce, exp.Nullif, exp.Nvl2, exp.Nanvl)
# functions Spark does not fold (RaiseError is not foldable; assert_true is an if over it)
_UNFOLDED = frozenset({"raise_error", "assert_true"})
# constants that raise for no value: a literal, and what only compares or combines literals
_CANNOT_RAISE = (
    exp.Literal, exp.Boolean, exp.Null, exp.Paren, exp.Identifier, exp.Var, exp.DataType, exp.Tuple,
    exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ, exp.Is, exp.Not, exp.And, exp.Or,
    exp.In, exp.Between,
)
_CONDITIONS = ("where", "having", "qualify")
# a query's sort keys: Spark folds them as it plans the query (``ORDER BY 1 / 0`` raises, in a
# subquery too)
_ORDERS = ("order", "sort")
# what names a value rather than computes one (``struct(x AS a)``'s ``a := x``, ``f(k => v)``)
_NAMING = (exp.Alias, exp.PropertyEQ, exp.Kwarg)
# where a constant is left to the rows: a conditional expression's branches; a nested query (its
# conditions are places of their own); a lambda; a type; a window's partition (``PARTITION BY
# 1/0`` answers)
_LEFT_TO_ROWS = (*_CONDITIONAL, exp.Query, exp.Subquery, exp.Lambda, exp.DataType, exp.Window)
_TEXT_TYPES = {
    exp.DataType.Type.DATE: "date", exp.DataType.Type.TIMESTAMP: "timestamp", exp.DataType.Type.TIMESTAMPTZ: "timestamp",
    exp.DataType.Type.TIMESTAMPLTZ: "timestamp", exp.DataType.Type.TIMESTAMPNTZ: "timestamp_ntz",
}
_INT_NAMES = {
    exp.DataType.Type.TINYINT: "tinyint", exp.DataType.Type.SMALLINT: "smallint", exp.DataType.Type.INT: "int",
    exp.DataType.Type.BIGINT: "bigint",
}
_NUMBER_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")
_SPARK_NAMES = {
    "date": exp.DataType.Type.DATE, "timestamp": exp.DataType.Type.TIMESTAMP, "timestamp_ntz": exp.DataType.Type.TIMESTAMPNTZ,
    "boolean": exp.DataType.Type.BOOLEAN, "tinyint": exp.DataType.Type.TINYINT, "smallint": exp.DataType.Type.SMALLINT,
    "int": exp.DataType.Type.INT, "bigint": exp.DataType.Type.BIGINT, "float": exp.DataType.Type.FLOAT,
    "double": exp.DataType.Type.DOUBLE, "decimal": exp.DataType.Type.DECIMAL,
}
# the types a string literal is cast to beside a value of that type (Spark's coercion), as a cast
# of the literal: integers compared as bigints, fractions as doubles
_COERCED = {
    **dict.fromkeys((exp.DataType.Type.FLOAT, exp.DataType.Type.DOUBLE, exp.DataType.Type.DECIMAL), exp.DataType.build("double")),
    exp.DataType.Type.DATE: exp.DataType.build("date"),
    exp.DataType.Type.TIMESTAMP: exp.DataType.build("timestamp"),
    exp.DataType.Type.TIMESTAMPLTZ: exp.DataType.build("timestamp"),
    exp.DataType.Type.TIMESTAMPNTZ: exp.DataType.build("timestamp_ntz", dialect="spark"),
    exp.DataType.Type.BOOLEAN: exp.DataType.build("boolean"),
    **dict.fromkeys(
        (exp.DataType.Type.TINYINT, exp.DataType.Type.SMALLINT, exp.DataType.Type.INT, exp.DataType.Type.BIGINT),
        exp.DataType.build("bigint"),
    ),
}


def folded_constants(expression: exp.Expr, types: ExpressionTypes | None = None) -> list[exp.Expr]:
    """Copies of the constants of the Spark query ``expression`` that Spark computes as it plans
    it and that may raise, in the query's order; ``column_types``: the Spark type of each column
    (by its lower-cased name) of each registered table the query reads, by ``id`` of its node.

    Example:
        >>> import sqlglot
        >>> query = sqlglot.parse_one("SELECT id, 1 / 0 FROM t WHERE id > 100 AND CAST('q' AS INT) = id "
        ...     "AND CASE WHEN id > 1 THEN CAST('r' AS INT) END = 1 AND CAST(s AS DATE) <> ''", read="spark")
        >>> [c.sql(dialect="spark") for c in folded_constants(query)]
        ['1 / 0', "CAST('q' AS INT)", "CAST('' AS DATE)"]
    """
    if any(_is_zero(limit) for limit in expression.find_all(exp.Limit)) or not _reads_tables_only(expression):
        return []
    if types is not None:
        _mark_types(expression, types)
    derived = _DerivedColumns(expression)
    places = [e for p in _outermost_projections(expression) for e in derived.projected(p)]
    for query in expression.find_all(exp.Select, exp.SetOperation):
        if query.find_ancestor(exp.CTE) is not None:
            continue
        own = [query.args[key].this for key in _CONDITIONS if query.args.get(key) is not None]
        own.extend(join.args["on"] for join in query.args.get("joins") or [] if join.args.get("on") is not None)
        own.extend(ordered.this for key in _ORDERS if query.args.get(key) is not None for ordered in query.args[key].expressions)
        own.extend(_keys(query.args.get("group")))
        distribute = query.args.get("distribute")  # (its constant keys too: DISTRIBUTE BY 1 / 0 raises)
        own.extend(distribute.expressions if distribute is not None else [])
        places.extend(derived.substitute(p, query) for p in own)
    places.extend(derived.read_whole)
    found: list[exp.Expr] = []
    for place in places:
        for variant in _variants(place):
            _collect(variant, found, frozenset())
    return [_in_spark_order(c) for c in found]


def _outermost_projections(query: exp.Expr) -> list[exp.Expr]:
    """The projections of the statement's query, of each branch where it is a set operation
    (Spark folds a branch's before it drops one whose filter is false)."""
    if isinstance(query, exp.Subquery):
        return _outermost_projections(query.this)
    if isinstance(query, exp.SetOperation):
        return [*_outermost_projections(query.this), *_outermost_projections(query.expression)]
    return list(query.expressions) if isinstance(query, exp.Select) else []


class _DerivedColumns:
    """The columns of the subqueries and CTEs a query reads in its ``FROM``, as the expressions
    that compute them, to put in place of the references that read them, as Spark's
    ``CollapseProject`` and ``PushDownPredicates`` do before it folds: ``ColumnPruning`` has
    dropped a column nothing reads (``SELECT id FROM (SELECT id, 1 / 0 AS z FROM t)`` answers),
    and one read only in a conditional expression's branch is computed there (``SELECT CASE WHEN
    id > 1 THEN z END ...`` answers), while ``SELECT z FROM (SELECT id, 1 / 0 AS z FROM t) WHERE
    id > 100`` raises. A ``UNION ALL``'s column is each of its branches' expressions (a place
    that reads it has a variant for each: :func:`_variants`); those of a ``DISTINCT`` query or a
    set operation but ``UNION ALL``, which read all their columns, are :attr:`read_whole`."""

    def __init__(self, statement: exp.Expr) -> None:
        names = [cte.alias_or_name.lower() for cte in statement.find_all(exp.CTE)]
        recursive = any(w.args.get("recursive") for w in statement.find_all(exp.With))
        # (a CTE that names its columns, ``WITH c(a, b)``, is not followed: its names are not its query's)
        self._ctes = {} if recursive else {
            cte.alias_or_name.lower(): cte.this for cte in statement.find_all(exp.CTE)
            if names.count(cte.alias_or_name.lower()) == 1 and not _named_columns(cte)
        }
        self._outputs: dict[int, dict[str, exp.Expr | None]] = {}
        self.read_whole: list[exp.Expr] = []
        """The columns of the derived queries that read all their own (``DISTINCT``), as places."""

    def substitute(self, place: exp.Expr, query: exp.Expr | None) -> exp.Expr:
        """A copy of ``place``, an expression of ``query``, with each column it reads of a
        derived table of ``query`` replaced by the expression that computes it."""
        sources = self._sources(query) if isinstance(query, exp.Select) else {}
        if not sources:
            return place
        # a name the query's own projections give is left alone: ``ORDER BY z`` may read those
        aliases = {p.alias.lower() for p in query.expressions if isinstance(p, exp.Alias)} if isinstance(query, exp.Select) else set()
        copy = place.copy()
        for column in [c for c in in_scope(copy) if isinstance(c, exp.Column) and not isinstance(c.this, exp.Star)]:
            if (not column.table and column.name.lower() in aliases and column.find_ancestor(exp.Alias) is None) or _lambda_name(column):
                continue
            definition = self._definition(column, sources)
            if definition is not None:
                replacement = exp.Paren(this=definition.copy())
                replacement.meta[_DERIVED] = True
                if column is copy:
                    return replacement
                column.replace(replacement)
        return copy

    def projected(self, projection: exp.Expr) -> list[exp.Expr]:
        """What projection ``projection`` of a query computes: its columns of derived tables put in
        place, or for a star those tables' columns."""
        query = projection.parent
        if not isinstance(query, exp.Select):
            return [projection]
        if _star(projection) is not None:
            if _modified_star(projection):
                return []
            return [c for c in self._starred(projection, self._sources(query)).values() if c is not None]
        return [self.substitute(projection, query)]

    def _starred(self, star: exp.Expr, sources: dict[str, exp.Expr]) -> dict[str, exp.Expr | None]:
        qualifier = _star(star) or ""
        columns: dict[str, exp.Expr | None] = {}
        for alias, source in sources.items():
            if not qualifier or qualifier == alias:
                columns.update(self._columns(source))
        return columns

    def _definition(self, column: exp.Column, sources: dict[str, exp.Expr]) -> exp.Expr | None:
        name, qualifier = column.name.lower(), column.table.lower()
        if qualifier:
            outputs = [self._columns(sources[qualifier])] if qualifier in sources else []
        else:
            outputs = [o for o in map(self._columns, sources.values()) if name in o]
        return outputs[0].get(name) if len(outputs) == 1 else None

    def _sources(self, select: exp.Select) -> dict[str, exp.Expr]:
        """The derived tables ``select`` reads in its ``FROM`` and joins, by their names."""
        found: dict[str, exp.Expr] = {}
        from_ = select.args.get("from_") or select.args.get("from")
        for source in [from_.this if from_ is not None else None, *(j.this for j in select.args.get("joins") or [])]:
            if source is not None and source.args.get("pivots"):
                continue  # (a pivot's columns are not its subquery's)
            if isinstance(source, exp.Subquery) and not _named_columns(source):  # (one without a name read by its columns' names only)
                found[source.alias.lower() or f"#{len(found)}"] = source.this
            elif (isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier) and not source.args.get("db")
                  and source.name.lower() in self._ctes):
                found[source.alias_or_name.lower()] = self._ctes[source.name.lower()]
        return found

    def _union_columns(self, union: exp.Union, names: list[str]) -> dict[str, exp.Expr]:
        """The columns of ``UNION ALL`` ``union`` by name, each the :func:`_branches` of its
        branches' expressions (by position), as Spark's ``PushProjectionThroughUnion`` and
        ``PushDownPredicates`` put each branch's in place of a reference before it folds
        (``SELECT c FROM (SELECT cast('q' AS int) AS c FROM t UNION ALL ...) WHERE id > 100``
        raises); none where a branch is not a SELECT of plain projections."""
        values: list[list[exp.Expr]] = []
        for branch in _union_all_branches(union):
            while isinstance(branch, exp.Subquery):
                branch = branch.this
            if not isinstance(branch, exp.Select) or any(_star(p) is not None for p in branch.expressions) or len(branch.expressions) != len(names):
                return {}
            values.append([self.substitute(p.this if isinstance(p, exp.Alias) else p, branch) for p in branch.expressions])
        if branch_count := len(values):
            return {name: _branches([values[k][j] for k in range(branch_count)]) for j, name in enumerate(names) if name}
        return {}

    def _columns(self, query: exp.Expr) -> dict[str, exp.Expr | None]:
        """The columns of derived ``query`` by name: the expression computing each (a ``UNION
        ALL``'s: :func:`_branches`), None where it is not followed."""
        while isinstance(query, exp.Subquery):
            query = query.this
        if id(query) in self._outputs:
            return self._outputs[id(query)]
        self._outputs[id(query)] = {}  # (a query that reads itself finds nothing)
        columns: dict[str, exp.Expr | None] = {}
        if isinstance(query, exp.SetOperation):
            names = [p.alias_or_name.lower() for p in _outermost_projections(_union_all_branches(query)[0])]
            columns = dict.fromkeys(names, None)
            if query.args.get("distinct") or not isinstance(query, exp.Union):
                self.read_whole.extend(_whole(self, query))
            else:
                columns.update(self._union_columns(query, names))
        elif isinstance(query, exp.Select):
            sources = self._sources(query)
            if any(_star(p) is not None and _modified_star(p) for p in query.expressions):
                self._outputs[id(query)] = {}
                return {}  # (the columns such a star gives are not followed)
            for projection in query.expressions:
                if _star(projection) is not None:
                    columns.update(self._starred(projection, sources))
                elif projection.alias_or_name:
                    value = projection.this if isinstance(projection, exp.Alias) else projection
                    columns[projection.alias_or_name.lower()] = self.substitute(value, query)
            if query.args.get("distinct"):
                self.read_whole.extend(c for c in columns.values() if c is not None)
        self._outputs[id(query)] = columns
        return columns


_TYPE_KEY = "vpush_fold_type"
"""The key of a value's Spark type (its name) in its node's ``meta`` (:func:`_mark_types`)."""
_TABLE_COLUMN = "vpush_fold_table_column"
"""The key in a column's ``meta`` that marks it as a registered table's (:func:`_mark_types`)."""


def _mark_types(statement: exp.Expr, types: ExpressionTypes) -> None:
    """Mark what a comparison compares with a string literal, and each derived query's
    projections (which a reference may be replaced by), with its Spark type as ``types`` gives
    it, and each column that reads a registered table as such; not a name its query's own
    projections give outside them (``ORDER BY x`` may read those)."""
    marked: list[exp.Expr] = []
    for comparison in statement.find_all(*COMPARISONS):
        if any(isinstance(o, exp.Literal) and o.is_string for o in comparison_operands(comparison)):
            marked.extend(o for o in comparison_operands(comparison) if not isinstance(o, exp.Literal))
    for select in statement.find_all(exp.Select):
        if select is not statement:
            marked.extend(p.this if isinstance(p, exp.Alias) else p for p in select.expressions)
    for node in marked:
        value: exp.Expr = node.unnest() if isinstance(node, exp.Paren) else node
        if not _alias_reference(value) and not (isinstance(value, exp.Column) and _lambda_name(value)):
            kind = types.of(value)
            if kind is not None:
                node.meta[_TYPE_KEY] = kind.to_spark()
    for column in statement.find_all(exp.Column):
        if not _alias_reference(column) and not _lambda_name(column) and types.reads_table(column):
            column.meta[_TABLE_COLUMN] = True


def _alias_reference(node: exp.Expr) -> bool:
    """Whether ``node`` is an unqualified column of a name its SELECT's projections give, read
    outside them (``ORDER BY x``, which may read the projection)."""
    if not isinstance(node, exp.Column) or node.table:
        return False
    select = node.find_ancestor(exp.Select)
    if select is None or node.find_ancestor(exp.Alias) is not None:
        return False
    return node.name.lower() in {p.alias.lower() for p in select.expressions if isinstance(p, exp.Alias)}


_DERIVED = "vpush_fold_derived"
"""The key in the ``meta`` of a subquery's or CTE's column put in place of a reference to it."""
_BRANCHES = "vpush_fold_branches"
"""The key in the ``meta`` of a tuple that stands for a ``UNION ALL``'s column: its branches'
expressions, one of which each variant of a place reads (:func:`_variants`)."""
_MOST_VARIANTS = 16


def _branches(values: list[exp.Expr]) -> exp.Expr:
    tuple_ = exp.Tuple(expressions=[v.copy() for v in values])
    tuple_.meta[_BRANCHES] = True
    if len({v.meta.get(_TYPE_KEY) for v in tuple_.expressions}) > 1:
        # branches of different types: the union's column is of their wider type, which Spark's
        # coercion casts each to (a string beside it is cast to that type, not a branch's own)
        for value in tuple_.expressions:
            value.meta.pop(_TYPE_KEY, None)
    return tuple_


def _union_all_branches(query: exp.Expr) -> list[exp.Expr]:
    """The branches of ``UNION ALL`` ``query``, those of the ``UNION ALL``s in it flattened."""
    while isinstance(query, exp.Subquery):
        query = query.this
    if isinstance(query, exp.Union) and not query.args.get("distinct"):
        return [*_union_all_branches(query.this), *_union_all_branches(query.expression)]
    return [query]


def _variants(place: exp.Expr) -> list[exp.Expr]:
    """``place`` with each ``UNION ALL`` column in it (:func:`_branches`) replaced by the
    expression of one branch: a variant for each branch (the k-th of each such column, or its
    last; at most :data:`_MOST_VARIANTS`), as Spark folds each branch's."""
    counts = [len(t.expressions) for t in place.walk() if t.meta.get(_BRANCHES)]
    if not counts:
        return [place]
    out = []
    for k in range(min(max(counts), _MOST_VARIANTS)):
        copy = place.copy()
        while (found := next((t for t in copy.walk() if t.meta.get(_BRANCHES)), None)) is not None:
            choice = found.expressions[min(k, len(found.expressions) - 1)]
            if found is copy:
                copy = choice.pop()
            else:
                found.replace(choice)
        out.append(copy)
    return out


def _star(projection: exp.Expr) -> str | None:
    """The qualifier of star ``projection`` (``s.*``), ``""`` for ``*``; None for another projection."""
    if isinstance(projection, exp.Star):
        return ""
    if isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star):
        return projection.table.lower()
    return None


def _modified_star(projection: exp.Expr) -> bool:
    """Whether star ``projection`` leaves out, replaces or renames columns (``* EXCEPT (z)``)."""
    star = projection if isinstance(projection, exp.Star) else projection.this
    return isinstance(star, exp.Star) and any(star.args.get(k) for k in ("except_", "replace", "rename", "ilike"))


def _named_columns(node: exp.Expr) -> bool:
    """Whether subquery or CTE ``node`` names its columns itself (``AS s(a, b)``)."""
    alias = node.args.get("alias")
    return isinstance(alias, exp.TableAlias) and bool(alias.columns)


def _lambda_name(column: exp.Column) -> bool:
    """Whether ``column`` names a variable of a lambda around it in any case (Spark resolves
    ``Z -> z + 1`` so; sqlglot's parser leaves ``z`` a column)."""
    return not column.table and column.name.lower() in lambda_variables(column)


def _whole(derived: _DerivedColumns, query: exp.Expr) -> list[exp.Expr]:
    """Every projection of each branch of set operation ``query``, its derived columns put in place."""
    return [e for p in _outermost_projections(query) for e in derived.projected(p)]


def _collect(node: exp.Expr, found: list[exp.Expr], bound: frozenset[str]) -> None:
    """Add the raising constants under ``node`` to ``found``, the largest first, none where
    they are left to the rows (:data:`_LEFT_TO_ROWS`); ``bound``: the variables of the lambdas
    ``node`` is in, which read a value."""
    if isinstance(node, _NAMING):  # an alias, a struct's field, a named argument: its value may be one
        value = node.this if isinstance(node, exp.Alias) else node.args.get("expression")
        if isinstance(value, exp.Expr):
            _collect(value, found, bound)
        return
    if isinstance(node, exp.Window):
        # its function's arguments and sort keys are folded, its partition keys but for a constant
        # one, which Spark drops first (PARTITION BY 1 / 0 answers; PARTITION BY id + 1 / 0 raises)
        order = node.args.get("order")
        # (the function's arguments, not the function: row_number() is no constant of its own)
        for child in [*node.this.iter_expressions(), *_keys(node), *(o.this for o in (order.expressions if order is not None else []))]:
            _collect(child, found, bound)
        return
    if isinstance(node, exp.Where):  # an aggregate's FILTER: its condition is folded
        _collect(node.this, found, bound)
        return
    if isinstance(node, exp.Lambda):
        # Spark folds what in a lambda's body reads none of its variables: ``x -> x + 1 / 0`` raises
        _collect(node.this, found, bound | {v.name.lower() for v in node.expressions})
        return
    if _call_name(node) in _UNFOLDED or isinstance(node, (exp.Query, exp.Subquery, exp.DataType, exp.JSONPath)):
        return  # (a JSON path is its call's argument as sqlglot reads it, not an expression of its own)
    if isinstance(node, exp.Mul) and _minus_one(node.expression):
        # sqlglot's date_sub(d, n): date_add(d, n * -1), a product Spark does not compute
        _collect(node.this, found, bound)
        return
    if _constant(node, bound):  # a conditional one too: Spark computes it whole, its taken branch only
        propagated = _null_propagated(node.copy())
        if propagated is not None and _may_raise(propagated):
            found.append(propagated)
        return
    tested = _null_tested(node)
    if tested is not None:
        # NullPropagation makes the test of a value that cannot be null a constant first; Spark
        # folds the constants of one that can be null: ``(1 / 0 + i) IS NULL`` raises
        if _spark_nullable(tested) is True:
            _collect(tested, found, bound)
        return
    if isinstance(node, _LEFT_TO_ROWS):
        return
    if isinstance(node, COMPARISONS):
        found.extend(_coerced_strings(node))
    for child in node.iter_expressions():
        _collect(child, found, bound)


def decide_null_tests(expression: exp.Expr) -> exp.Expr:
    """Make each null test in ``expression`` of a value Spark's analysis types as not nullable
    ``false`` (``true`` for ``isnotnull``), as Spark's ``NullPropagation`` does before a row is
    read, so that the value is never computed: ``SELECT id FROM (SELECT id, make_date(2024, 13,
    1) AS d FROM t) WHERE d IS NULL AND id > 100`` answers ``[]`` on PySpark 4.3 (its plan is an
    empty relation), where DuckDB computed the date for a row and raised. A column of a subquery
    or CTE is its expression there, followed only through a query of one source, no join and
    no grouping sets, whose columns keep their nullability; a registered table's column is
    nullable (after :func:`folded_constants` marked them); anything else whose nullability
    vpush does not know leaves the test to the rows. In place.

    Example:
        >>> import sqlglot
        >>> decide_null_tests(sqlglot.parse_one("SELECT make_date(2024, 13, 1) IS NULL AS a, (1 / 0) IS NULL AS b", read="spark")).sql("spark")
        'SELECT FALSE AS a, (1 / 0) IS NULL AS b'
    """
    from vpush.optimizer.spark_semantics import spark_name, wrap_in_place  # (which reads this module)

    derived: dict[tuple[int, str], exp.Expr | None] = {}
    for test in [n for n in expression.walk() if _null_tested(n) is not None]:
        tested = _null_tested(test)
        select = test.find_ancestor(exp.Select)
        if tested is None or (select is not None and _grouping_sets(select) and tested.find(exp.Column) is not None):
            continue  # (a grouping key is null in the rows of the sets that leave it out)
        if _spark_nullable(_derived_in_place(tested, select, derived)) is not False:
            continue
        projection = _projection_holding(test, select)
        if projection is not None and not isinstance(projection, exp.Alias):
            name = spark_name(projection)
            if name is None:
                continue  # (its name as Spark gives it, which the decided test would lose, not known)
            wrap_in_place(projection, exp.Alias(alias=exp.to_identifier(name, quoted=True)))
        test.replace(exp.Boolean(this=_call_name(test) == "isnotnull"))
    return expression


def _projection_holding(node: exp.Expr, select: exp.Select | None) -> exp.Expr | None:
    """The projection of ``select`` that ``node`` lies in, if any."""
    while node.parent is not None and node.parent is not select:
        node = node.parent
    return node if select is not None and node.parent is select and node.arg_key == "expressions" else None


def _grouping_sets(select: exp.Select) -> bool:
    group = select.args.get("group")
    return group is not None and (
        any(group.args.get(key) for key in ("rollup", "cube", "grouping_sets")) or group.find(exp.Rollup, exp.Cube, exp.GroupingSets) is not None)


_DERIVED_SIZE = 2000
"""The most nodes a column's derived expression may have: past it the column stays (its
nullability unknown), as a column read twice at each of many levels doubles it at each."""


def _derived_in_place(value: exp.Expr, select: exp.Select | None, derived: dict[tuple[int, str], exp.Expr | None]) -> exp.Expr:
    """A copy of ``value``, an expression of ``select``, with each column of the one subquery or
    CTE ``select`` reads (no join) replaced by the expression that computes it, where that
    query is a SELECT without grouping sets (whose columns are as nullable as their
    expressions), in turn. ``derived`` keeps each source column's expression, derived once."""
    copy = value.copy()
    found = _only_derived_source(select) if select is not None else None
    if found is None:
        return copy
    name, source = found
    while len(source.expressions) == 1 and isinstance(source.expressions[0], exp.Star):
        found = _only_derived_source(source)  # (SELECT * of a query: its columns)
        if found is None:
            return copy
        source = found[1]
    computed = {p.alias_or_name.lower(): p.unalias() for p in source.expressions if p.alias_or_name and not p.is_star}
    for column in [c for c in copy.find_all(exp.Column) if isinstance(c.this, exp.Identifier) and not _lambda_name(c)]:
        if column.find_ancestor(exp.Query) is not None or (column.table and column.table.lower() != name):
            continue  # (a subquery's own column; another query's)
        key = (id(source), column.name.lower())
        if key not in derived:
            definition = computed.get(key[1])
            if definition is None or sum(p.alias_or_name.lower() == key[1] for p in source.expressions) != 1:
                derived[key] = None
            else:
                found_expression = _derived_in_place(definition, source, derived)
                derived[key] = found_expression if sum(1 for _ in found_expression.walk()) <= _DERIVED_SIZE else None
        known = derived[key]
        if known is None:
            continue
        replacement = exp.Paren(this=known.copy())
        if column is copy:
            return replacement
        column.replace(replacement)
    return copy


def _only_derived_source(select: exp.Select) -> tuple[str, exp.Select] | None:
    """The name (lower case) and the SELECT of the subquery or CTE that is ``select``'s one
    source, where it has neither a join nor grouping sets; None otherwise."""
    from_ = select.args.get("from_") or select.args.get("from")
    if from_ is None or select.args.get("joins") or select.args.get("laterals"):
        return None
    source = from_.this
    query: exp.Expr | None = None
    if isinstance(source, exp.Subquery) and not _named_columns(source) and not source.args.get("pivots"):
        query = source.this
    elif isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier) and not source.args.get("db"):
        ctes = [c for c in select.root().find_all(exp.CTE) if c.alias_or_name.lower() == source.name.lower()]
        query = ctes[0].this if len(ctes) == 1 and not _named_columns(ctes[0]) and not source.args.get("pivots") else None
    while isinstance(query, exp.Subquery):
        query = query.this
    if not isinstance(query, exp.Select) or query.args.get("joins") or query.args.get("laterals") or _grouping_sets(query):
        return None
    return source.alias_or_name.lower(), query


def _null_tested(node: exp.Expr) -> exp.Expr | None:
    """What null test ``node`` tests: ``x`` of ``x IS NULL``, ``isnull(x)`` or ``isnotnull(x)``
    (``x IS NOT NULL`` is ``NOT x IS NULL`` as sqlglot reads it; ``x IS TRUE`` is Spark's ``x <=>
    true``, no null test)."""
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return node.this
    if _call_name(node) in ("isnull", "isnotnull") and len(node.expressions) == 1:
        return node.expressions[0]
    return None


def _null_propagated(constant: exp.Expr) -> exp.Expr | None:
    """Constant ``constant`` with each null test of a value Spark's analysis types as not
    nullable made ``false`` (``true`` for ``isnotnull``), as Spark's ``NullPropagation`` makes
    it before ``ConstantFolding`` computes the rest (``make_date(2024, 13, 1) IS NULL`` answers
    though ``make_date(2024, 13, 1)`` raises; ``(1 / 0) IS NULL`` raises); None where vpush does
    not know whether a tested value is nullable (the constant is left to the rows)."""
    tests = [n for n in constant.walk() if _null_tested(n) is not None]
    for test in reversed(tests):  # the innermost first, as Spark's rule goes up the tree
        tested = _null_tested(test)
        nullable = _spark_nullable(tested) if tested is not None else None
        if nullable is None:
            return None
        if nullable:
            continue
        decided = exp.Boolean(this=_call_name(test) == "isnotnull")
        if test is constant:
            return decided
        test.replace(decided)
    return constant


# Spark's expressions that are null where an argument is (their ``nullable`` is any argument's)
_NULL_WITH_ARGUMENT = (
    exp.Paren, exp.Add, exp.Sub, exp.Mul, exp.Neg, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Not, exp.And,
    exp.Or, exp.In, exp.Between, exp.Upper, exp.Lower, exp.Length, exp.Substring, exp.Concat, exp.DPipe, exp.Abs, exp.Round,
    exp.Sqrt, exp.TimestampFromParts,
)
# (``make_date`` raises for a day that does not exist rather than give null, in ANSI mode)
_NULL_WITH_ARGUMENT_CALLS = frozenset({"make_date"})
# Spark's always nullable ones (``DivModLike``: division and remainders, null in legacy mode for a zero divisor)
_ALWAYS_NULLABLE = (exp.Null, exp.Div, exp.Mod, exp.IntDiv)
_NEVER_NULL = (exp.Literal, exp.Boolean, exp.Is, exp.NullSafeEQ, exp.NullSafeNEQ)
_INTEGRAL = frozenset(_INT_NAMES)


def _spark_nullable(node: exp.Expr) -> bool | None:
    """Whether Spark's analysis types ``node`` as nullable (its ``nullable``), as measured on
    PySpark 4.3 for each kind here; None where vpush does not know."""
    if _typed_literal(node) or isinstance(node, _NEVER_NULL) or _null_tested(node) is not None:
        return False
    if isinstance(node, _ALWAYS_NULLABLE) or _call_name(node) == "pmod":
        return True
    if isinstance(node, exp.Column):
        return True if node.meta.get(_TABLE_COLUMN) else None  # (a registered table's column: Spark reads Parquet columns as nullable)
    if isinstance(node, exp.Cast):
        return _cast_nullable(node)
    if isinstance(node, exp.Coalesce):
        return _all_or_none([_spark_nullable(a) for a in [node.this, *node.expressions]], all_of=True)
    if isinstance(node, (exp.If, exp.Case)):
        if isinstance(node, exp.Case):
            branches = [i.args.get("true") for i in node.args.get("ifs") or []] + [node.args.get("default")]
        else:
            branches = [node.args.get("true"), node.args.get("false")]
        if any(b is None for b in branches):
            return True  # (no ELSE: null where no branch is taken)
        return _all_or_none([_spark_nullable(b) for b in branches if b is not None], all_of=False)
    if isinstance(node, _NULL_WITH_ARGUMENT) or _call_name(node) in _NULL_WITH_ARGUMENT_CALLS:
        return _all_or_none([_spark_nullable(a) for a in node.iter_expressions()], all_of=False)
    return None


def _all_or_none(nullable: list[bool | None], *, all_of: bool) -> bool | None:
    """Whether all (``all_of``) or any of ``nullable`` is true; None where that is not known."""
    if all_of:
        return False if False in nullable else None if None in nullable else True
    return True if True in nullable else None if None in nullable else False


def _cast_nullable(cast: exp.Cast) -> bool | None:
    """Spark's ``Cast.nullable``: its argument's, or true where the cast may give null in legacy
    mode (``Cast.forceNullable``: a string to anything but a string or a binary, a fraction to
    an integer); a ``try_cast``'s is true."""
    to, value = cast.to.this, cast.this
    if isinstance(cast, exp.TryCast) or cast.args.get("safe"):
        return True
    if _spark_nullable(value) is True:
        return True
    if isinstance(value, exp.Literal) and value.is_string:
        return None if to in exp.DataType.TEXT_TYPES or to in (exp.DataType.Type.BINARY, exp.DataType.Type.VARBINARY) else True
    if isinstance(value, exp.Literal) and to in _INTEGRAL:
        return not value.this.lstrip("+-").isdigit()  # (an integer literal narrowed overflows, never null)
    return None


def _keys(node: exp.Expr | None) -> list[exp.Expr]:
    """The grouping keys of ``GROUP BY`` ``node`` or a window's partition keys but for the
    constant ones, which Spark drops before it folds (``RemoveLiteralFromGroupExpressions``:
    ``GROUP BY id, 1 / 0`` answers, ``GROUP BY id + cast('q' AS int)`` raises)."""
    if node is None:
        return []
    if isinstance(node, exp.Group):
        return [k for k in node.expressions if not _constant(k)]
    # a window's key that reads a subquery's column is kept: Spark does not collapse the
    # subquery's projection into the window, and folds it there (PARTITION BY z raises for 1 / 0 AS z)
    return [k for k in node.args.get("partition_by") or [] if not _constant(k) or k.meta.get(_DERIVED)]


def _in_spark_order(constant: exp.Expr) -> exp.Expr:
    """``constant`` with each chain of ``AND`` (or of ``OR``) made to compute its operands from
    left to right, each only where those before it do not decide, as Spark's do (``cast('q' AS
    int) = 1 AND false`` raises, ``false AND cast('q' AS int) = 1`` is false), and each whatever
    those after it (DuckDB's optimizer makes ``x AND false`` false without computing ``x``).

    ``a AND b AND c`` becomes a fold over the positions of the operands after the first, from
    the first's value, that computes the operand of each step only where the result so far is
    not false (a conditional expression's branch): ``aggregate(array(2, 3), a, (r, k) -> CASE
    WHEN r <=> false THEN false ELSE r AND CASE WHEN k = 2 THEN b ELSE c END END)``. Each
    operand is written once and the chain nests no deeper than one step (writing the left side
    twice doubled the text with each connective; nesting a step in the one before it exhausted
    the parser's recursion). The first operand is the fold's start, outside its lambda: a nest
    of ``AND`` in ``OR`` in ``AND``... as a lambda in a lambda took DuckDB twice as long to bind
    with each level (4.5 s for 12). A chain of two whose first operand holds no chain is ``CASE
    WHEN a <=> false THEN false ELSE a AND b END``, so that a nest on the right is no lambda
    either.

    Example:
        >>> import sqlglot
        >>> _in_spark_order(sqlglot.parse_one("1 / 0 = 1 AND false", read="spark")).sql(dialect="spark")
        'CASE WHEN 1 / 0 = 1 IS NOT DISTINCT FROM FALSE THEN FALSE ELSE 1 / 0 = 1 AND FALSE END'
        >>> _in_spark_order(sqlglot.parse_one("(1 / 0 = 1 OR a) AND b", read="spark")).sql(dialect="spark")
        'AGGREGATE(ARRAY(2), CASE WHEN 1 / 0 = 1 IS NOT DISTINCT FROM TRUE THEN TRUE ELSE 1 / 0 = 1 OR a END, (vpush_result1, vpush_step1) -> CASE WHEN vpush_result1 IS NOT DISTINCT FROM FALSE THEN FALSE ELSE vpush_result1 AND b END)'
    """
    chains = [c for c in constant.find_all(exp.And, exp.Or) if not isinstance(_unwrapped_parent(c), type(c))]
    for k, chain in enumerate(reversed(chains)):  # the innermost first
        first, *rest = _operands(chain, type(chain))
        decided = exp.false() if isinstance(chain, exp.And) else exp.true()
        ordered: exp.Expr
        if len(rest) == 1 and not any(n.meta.get(_ORDERED) for n in first.walk()):
            ordered = exp.Case(ifs=[exp.If(this=exp.NullSafeEQ(this=first.copy(), expression=decided), true=decided.copy())],
                               default=type(chain)(this=first, expression=rest[0]))
        else:
            result, step = exp.to_identifier(f"vpush_result{k}"), exp.to_identifier(f"vpush_step{k}")
            operand = exp.Case(ifs=[exp.If(this=exp.EQ(this=step.copy(), expression=exp.Literal.number(i + 2)), true=o)
                                    for i, o in enumerate(rest[:-1])], default=rest[-1]) if len(rest) > 1 else rest[0]
            body = exp.Case(ifs=[exp.If(this=exp.NullSafeEQ(this=result.copy(), expression=decided), true=decided.copy())],
                            default=type(chain)(this=result.copy(), expression=operand))
            ordered = exp.Reduce(this=exp.Array(expressions=[exp.Literal.number(i + 2) for i in range(len(rest))]),
                                 initial=exp.cast(first, exp.DataType.build("boolean")) if isinstance(first, exp.Null) else first,
                                 merge=exp.Lambda(this=body, expressions=[result, step]))
        ordered.meta[_ORDERED] = True
        if chain is constant:
            return ordered
        chain.replace(ordered)
    return constant


_ORDERED = "vpush_fold_ordered"
"""The key in the ``meta`` of a chain of ``AND`` or ``OR`` :func:`_in_spark_order` wrote in Spark's order."""


def _unwrapped_parent(node: exp.Expr) -> exp.Expr | None:
    parent = node.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    return parent


def _operands(node: exp.Expr, kind: type[exp.Connector]) -> list[exp.Expr]:
    """The operands of chain ``node`` of connectives ``kind`` from left to right (Spark's tree
    has no parentheses; ``(a AND b) AND c`` computes as ``a AND (b AND c)``)."""
    while isinstance(node, exp.Paren):
        node = node.this
    if not isinstance(node, kind):
        return [node]
    return [*_operands(node.this, kind), *_operands(node.expression, kind)]


def _may_raise(node: exp.Expr) -> bool:
    """Whether constant ``node`` may raise: anything but literals (typed ones that surely read
    among them) and what compares or combines them, or a string compared with a date, ...
    (:func:`_coerced_strings`) that may not read as one."""
    if _typed_literal(node) or isinstance(node, exp.DataType):
        return False
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return False  # a negative number, as Spark's parser reads it
    if not isinstance(node, _CANNOT_RAISE) or (isinstance(node, COMPARISONS) and _coerced_strings(node)):
        return True
    return any(_may_raise(child) for child in node.iter_expressions())


def _coerced_strings(node: exp.Expr) -> list[exp.Expr]:
    """The casts Spark's coercion gives a comparison's string literals beside a cast or a
    ``variant_get`` to a date, timestamp, boolean or integer (the first such operand's type),
    but for those that surely succeed."""
    operands = comparison_operands(node)
    target = next((t for o in operands if (t := _typed_as(o)) is not None), None)
    if target is None:
        return []
    strings = [o for o in operands if isinstance(o, exp.Literal) and o.is_string]
    casts = [exp.Cast(this=s.copy(), to=target.copy()) for s in strings]
    return [c for c in casts if not _typed_literal(c)]


def _typed_as(node: exp.Expr) -> exp.DataType | None:
    if isinstance(node, exp.Paren):
        return _typed_as(node.unnest())  # (a subquery's column put in place)
    if _TYPE_KEY in node.meta:
        name = node.meta[_TYPE_KEY]
        return _COERCED.get(_SPARK_NAMES.get("decimal" if name.startswith("decimal(") else name, exp.DataType.Type.UNKNOWN))
    if isinstance(node, exp.Cast):
        return _COERCED.get(node.to.this)
    if isinstance(node, VariantGet) and node.target_type is not None:
        return _COERCED.get(_SPARK_NAMES.get(node.target_type.to_spark(), exp.DataType.Type.UNKNOWN))
    return None


def _typed_literal(node: exp.Expr) -> bool:
    """A cast of a literal that surely succeeds, as Spark's typed literals are read by sqlglot:
    ``TIMESTAMP '2024-01-01 10:00'``, ``DATE '2024-01-01'``, ``1L``, ``2.5D``, ``1.5BD``."""
    if not (isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal)):
        return False
    kind, text = node.to.this, node.this.this
    if node.this.is_string and kind in _TEXT_TYPES:
        return reads_as(text, _TEXT_TYPES[kind])
    if not _NUMBER_TEXT.fullmatch(text):
        return False
    if kind in (exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT):
        return True  # (Spark reads a number's text as Java's parseDouble does: '1e400' is infinity, no error)
    if kind in _INT_NAMES:
        return reads_as(text, _INT_NAMES[kind])
    if kind == exp.DataType.Type.DECIMAL and len(node.to.expressions) == 2:
        precision, scale = (int(p.this.this) for p in node.to.expressions)
        value = decimal.Decimal(text)
        exact = value.quantize(decimal.Decimal(1).scaleb(-scale))  # (1.5BD: a string cast to decimal(2,1))
        return value == exact and len(exact.as_tuple().digits) <= precision
    return False


def _constant(node: exp.Expr, bound: frozenset[str] = frozenset()) -> bool:
    return not any(isinstance(n, _NOT_CONSTANT) or _call_name(n) in _UNFOLDED or _reads_variable(n, bound) for n in node.walk())


def _reads_variable(node: exp.Expr, bound: frozenset[str]) -> bool:
    """Whether ``node`` is a lambda's variable of ``bound`` (sqlglot reads one as a bare
    identifier; a column's name is an identifier in a :class:`~sqlglot.exp.Column`)."""
    return bool(bound) and isinstance(node, exp.Identifier) and not isinstance(node.parent, exp.Column) and node.name.lower() in bound


def _call_name(node: exp.Expr) -> str:
    return node.name.lower() if isinstance(node, exp.Anonymous) else ""


def _reads_tables_only(expression: exp.Expr) -> bool:
    """Whether every query of the statement reads tables (or nothing at all, as the outermost
    one may): Spark tests a filter over ``VALUES`` or a query without ``FROM`` on its rows before
    it folds (``ConvertToLocalRelation``), so ``SELECT * FROM VALUES (1) AS v(x) WHERE x > 100 AND
    cast('q' AS int) = x`` answers ``[]``."""
    if expression.find(exp.Values) is not None:
        return False
    return all(select is expression or select.args.get("from_") or select.args.get("from") for select in expression.find_all(exp.Select))


def _minus_one(node: exp.Expr) -> bool:
    return isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and node.this.this == "1"


def _is_zero(limit: exp.Limit) -> bool:
    value = limit.expression
    return isinstance(value, exp.Literal) and not value.is_string and value.this in ("0", "0.0")
