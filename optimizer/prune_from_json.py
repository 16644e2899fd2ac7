"""Spark's pruning of ``from_json``'s schema through subqueries, on the DuckDB engine.

Spark's optimizer merges a query's projection into the subquery's below it (``CollapseProject``)
and pushes a WHERE through the subquery's projection (``PushDownPredicates``); then
``OptimizeCsvJsonExprs`` prunes the schema of each ``from_json`` (without options) whose one
field the expression above takes, of a struct or of an array's structs. A field left out of the
schema is skipped unread, so a syntax error inside it fails the whole record where the field's
own converter would have caught it: the answer can differ. Measured on PySpark 4.3 with
``EXPLAIN EXTENDED`` over a subquery ``(SELECT from_json(j, schema) AS s, ... FROM z)``:

- the outer projection's ``s.b`` (``s['b']``, ``s.b[0]``, ``s.b.c``) is pruned when every column
  of the subquery it reads is read once, or is a column or a constant (a projection is merged only
  then), and none is random (``rand()``); ``s.b, s.a``, ``s.b, s`` or ``s.*`` are not merged;
- each field the outer WHERE takes is pruned (the filter is pushed below the subquery);
- a CTE is a subquery (Spark inlines it), a LIMIT below or ORDER BY above changes nothing.

Those shapes are answered here: each pruned ``s.b`` becomes a hidden column of the subquery,
``from_json(...).b`` (which :func:`vpush.optimizer.rewrite_from_json.rewrite_from_json` prunes as
Spark does), read in its place. Other shapes that take a field of such a column (an
aggregation, a join, a set operation, a column passed on whole and taken apart further up,
``struct(s.a, s.b)``, which Spark rebuilds from one ``from_json`` of both fields) are refused
with ``VPUSH_UNSUPPORTED_FUNCTION``.
"""

from __future__ import annotations

import dataclasses
import itertools

from sqlglot import exp

from vpush.optimizer.dialect import call_name
from vpush.optimizer.errors import OptimizeError, refuse_on_duckdb
from vpush.optimizer.rewrite_from_json import from_json_schema
from vpush.optimizer.variant_types import ArrayType, StructType

__all__ = ["prune_from_json"]

_HIDDEN = "__vpush_from_json_"
# Spark's nondeterministic functions: a projection of one is never merged into another
_RANDOM = frozenset({
    "rand", "randn", "random", "uuid", "shuffle", "monotonically_increasing_id", "spark_partition_id",
    "input_file_name", "input_file_block_start", "input_file_block_length", "randstr", "uniform",
})
_CLAUSES = ("group", "having", "distinct", "qualify", "laterals")


@dataclasses.dataclass
class _Reference:
    """A reference to a subquery's column in the query above: ``node`` stands for the column
    (``field`` None) or for one field of it, followed by the fields ``rest``."""

    node: exp.Expr
    field: str | None
    rest: list[exp.Expr] = dataclasses.field(default_factory=list)


def prune_from_json(expression: exp.Expr) -> exp.Expr:
    """Prune ``from_json`` through subqueries as Spark's optimizer does, in place: each field
    that Spark takes from a pruned call becomes a hidden column of the subquery.

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> sql = "SELECT s.b FROM (SELECT from_json(j, 'a INT, b INT') AS s FROM z)"
        >>> prune_from_json(sqlglot.parse_one(sql, read=VpushSpark)).sql(dialect=VpushSpark)
        "SELECT `__vpush_from_json_0` AS `b` FROM (SELECT FROM_JSON(j, 'a INT, b INT') AS s, FROM_JSON(j, 'a INT, b INT').`b` AS `__vpush_from_json_0` FROM z)"

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for a field taken in a shape whose pruning
            vpush does not follow.
    """
    counter = itertools.count()
    for node in list(expression.find_all(exp.Struct)):
        for value in node.expressions:
            value = value.expression if isinstance(value, exp.PropertyEQ) else value
            if isinstance(value, exp.Dot) and _prunable(value.this):
                refuse_on_duckdb("from_json", "struct(...) of its fields (Spark reads them with one pruned call)")
    for select in list(expression.find_all(exp.Select)):
        for projection in list(select.expressions):
            if isinstance(projection, exp.Alias) and _prunable(projection.this):
                _prune_consumers(select, projection.alias_or_name, projection.this, counter)
    return expression


def _prunable(node: exp.Expr) -> bool:
    """Whether ``node`` is a ``from_json`` whose schema Spark prunes to a field taken from it."""
    if not isinstance(node, exp.FromJson) and call_name(node) != "from_json":
        return False
    if isinstance(node, exp.FromJson):
        schema, options = node.expression, node.args.get("options")
    else:
        arguments = list(node.expressions)
        schema, options = (arguments[1] if len(arguments) > 1 else None), (arguments[2] if len(arguments) > 2 else None)
    if options is not None or schema is None:
        return False
    if not (isinstance(schema, exp.Literal) and schema.is_string):
        return True  # schema_of_json(...): a shape taken apart is refused
    try:
        target = from_json_schema(schema.name)
    except OptimizeError:
        return False  # refused or raised where the call is rewritten
    struct = target.element if isinstance(target, ArrayType) else target
    return isinstance(struct, StructType) and len(struct.fields) > 1


def _consumers(query: exp.Expr) -> list[tuple[exp.Select, str]] | None:
    """The SELECTs reading ``query`` as a FROM source, each with the source's alias; None where
    ``query`` is read otherwise (a set operation's branch)."""
    parent = query.parent
    if parent is None:
        return []
    if isinstance(parent, exp.SetOperation):
        return None
    if isinstance(parent, exp.Subquery):
        place = parent.parent
        if isinstance(place, (exp.From, exp.Join)) and isinstance(place.parent, exp.Select):
            return [(place.parent, parent.alias_or_name)]
        return [] if not isinstance(place, (exp.From, exp.Join)) else None
    if isinstance(parent, exp.CTE) and isinstance(parent.parent, exp.With) and parent.parent.parent is not None:
        name = parent.alias_or_name.lower()
        found = []
        for table in parent.parent.parent.find_all(exp.Table):
            if table.name.lower() == name and not table.args.get("db") and isinstance(table.parent, (exp.From, exp.Join)):
                if not isinstance(table.parent.parent, exp.Select):
                    return None
                found.append((table.parent.parent, table.alias_or_name))
        return found
    return []


def _own_columns(select: exp.Select) -> list[exp.Column]:
    return [c for c in select.find_all(exp.Column) if c.find_ancestor(exp.Select) is select]


def _sources(select: exp.Select) -> list[str]:
    from_ = select.args.get("from_")
    places = ([from_.this] if from_ is not None else []) + [j.this for j in select.args.get("joins") or []]
    return [p.alias_or_name.lower() for p in places]


def _references(select: exp.Select, alias: str, name: str) -> list[_Reference]:
    """The references in ``select`` to the column ``name`` of its source ``alias``."""
    others = {s for s in _sources(select) if s != alias.lower()}
    found = []
    for column in _own_columns(select):
        parts = list(column.parts)
        if len(parts) > 1 and parts[0].name.lower() == alias.lower() and parts[1].name.lower() == name.lower():
            parts = parts[1:]
        elif parts[0].name.lower() in others or parts[0].name.lower() != name.lower():
            continue
        if len(parts) > 1 and isinstance(parts[1], exp.Star):
            found.append(_Reference(column, None))  # s.*: every field, each read apart
        elif len(parts) > 1:
            found.append(_Reference(column, parts[1].name, parts[2:]))
        elif isinstance(column.parent, exp.Dot) and column.arg_key == "this" and isinstance(column.parent.expression, exp.Identifier):
            found.append(_Reference(column.parent, column.parent.expression.name))
        elif (
            isinstance(column.parent, exp.Bracket) and column.arg_key == "this" and len(column.parent.expressions) == 1
            and isinstance(key := column.parent.expressions[0], exp.Literal) and key.is_string
        ):
            found.append(_Reference(column.parent, key.name))
        else:
            found.append(_Reference(column, None))
    return found


def _random(node: exp.Expr) -> bool:
    return any(call_name(n) in _RANDOM or type(n).__name__.lower() in _RANDOM for n in node.walk())


def _cheap(node: exp.Expr) -> bool:
    """Spark's ``CollapseProject.isCheap``: a column, a constant, a field of a cheap value."""
    if isinstance(node, exp.Column) or node.find(exp.Column) is None:
        return True
    return isinstance(node, (exp.Dot, exp.Bracket)) and _cheap(node.this)


def _aggregates(node: exp.Expr) -> bool:
    return any(isinstance(n, (exp.AggFunc, exp.Window)) for n in node.walk())


def _merged(select: exp.Select, alias: str, producer: exp.Select) -> bool:
    """Whether Spark merges ``select``'s projection into ``producer``'s (its source ``alias``):
    every column of ``producer`` read more than once is cheap, and none read is random."""
    produced = {p.alias_or_name.lower(): p.this if isinstance(p, exp.Alias) else p for p in producer.expressions}
    counts: dict[str, int] = {}
    if _has_star(select):
        for name in produced:
            counts[name] = counts.get(name, 0) + 1
    for name in produced:
        for reference in _references(select, alias, name):
            if reference.node.find_ancestor(exp.Where, exp.Order) is None:
                counts[name] = counts.get(name, 0) + 1
    return all(
        not _random(produced[name]) and (count == 1 or _cheap(produced[name]))
        for name, count in counts.items() if name in produced
    )


def _prune_consumers(producer: exp.Select, name: str, call: exp.Expr, counter: itertools.count[int]) -> None:
    consumers = _consumers(producer)
    if consumers is None:
        if _taken_apart_above(producer.parent, name):
            refuse_on_duckdb("from_json", "a field taken through a set operation")
        return
    for select, alias in consumers:
        references = _references(select, alias, name)
        fields = [r for r in references if r.field is not None]
        if not fields:
            for reference in references:
                passed = reference.node.parent if isinstance(reference.node.parent, exp.Alias) else reference.node
                if passed.parent is select and passed.arg_key == "expressions" and _taken_apart_above(select, passed.alias_or_name):
                    refuse_on_duckdb("from_json", "a field taken from its struct passed on whole through a subquery")
            continue
        _check_shape(select, producer, fields)
        if any(_has_star(s) for s, _ in consumers):
            refuse_on_duckdb("from_json", "a field taken from a subquery that a * also reads")
        merged = _merged(select, alias, producer)
        for reference in fields:
            if reference.node.find_ancestor(exp.Where) is not None or merged:
                _take_pruned(select, alias, producer, call, reference, next(counter))


def _taken_apart_above(query: exp.Expr | None, name: str) -> bool:
    """Whether a query reading ``query`` takes a field of its column ``name`` (or of that column
    passed on whole)."""
    while isinstance(query, exp.SetOperation) and isinstance(query.parent, exp.SetOperation):
        query = query.parent
    if query is None:
        return False
    consumers = _consumers(query)
    if consumers is None:
        return True
    for select, alias in consumers:
        for reference in _references(select, alias, name):
            if reference.field is not None:
                return True
            passed = reference.node.parent if isinstance(reference.node.parent, exp.Alias) else reference.node
            if passed.parent is select and passed.arg_key == "expressions" and _taken_apart_above(select, passed.alias_or_name):
                return True
    return False


def _check_shape(select: exp.Select, producer: exp.Select, fields: list[_Reference]) -> None:
    """Refuse where ``select`` takes fields in a shape whose pruning vpush does not follow."""
    what = None
    if any(select.args.get(k) for k in (*_CLAUSES, "joins")) or any(_aggregates(p) for p in select.expressions):
        what = "a field taken through a subquery by an aggregation, a join or DISTINCT"
    elif any(producer.args.get(k) for k in (*_CLAUSES, "order")) or any(_aggregates(p) or _random(p) for p in producer.expressions):
        what = "a field taken from a subquery that aggregates, orders or draws random values"
    elif any(isinstance(r.node.parent, exp.Struct) or isinstance(r.node.parent, exp.PropertyEQ) for r in fields):
        what = "struct(...) of fields taken through a subquery (Spark reads them with one pruned call)"
    elif any(r.node.find_ancestor(exp.Where, exp.Order) is None and r.node.find_ancestor(exp.Select) is select
             and not _in_projection(select, r.node) for r in fields):
        what = "a field taken through a subquery outside the projection and WHERE"
    elif any(r.node.find_ancestor(exp.Order) is not None for r in fields):
        what = "a field taken through a subquery in ORDER BY"
    elif select.args.get("where") is not None and _random(select.args["where"]):
        what = "a field taken through a subquery filtered by random values"
    if what is not None:
        refuse_on_duckdb("from_json", what)


def _has_star(select: exp.Select) -> bool:
    return any(p.is_star for p in select.expressions)


def _in_projection(select: exp.Select, node: exp.Expr) -> bool:
    return any(node is p or any(node is n for n in p.walk()) for p in select.expressions)


def _take_pruned(select: exp.Select, alias: str, producer: exp.Select, call: exp.Expr, reference: _Reference, index: int) -> None:
    """Read ``reference``'s field from a hidden column of ``producer``: ``call`` pruned to it."""
    assert reference.field is not None  # noqa: S101 - only fields are taken
    hidden = f"{_HIDDEN}{index}"
    taken = exp.Dot(this=call.copy(), expression=exp.to_identifier(reference.field, quoted=True))
    producer.append("expressions", exp.alias_(taken, exp.to_identifier(hidden, quoted=True), copy=False))
    projection = next((p for p in select.expressions if reference.node is p or any(reference.node is n for n in p.walk())), None)
    if projection is not None and not isinstance(projection, exp.Alias):
        # the projection keeps the name Spark gives it as written
        if isinstance(projection, exp.Column):
            named: str | None = projection.name
        else:
            from vpush.optimizer.spark_semantics import spark_name

            shown = projection.copy()
            source = spark_name(reference.node.this, top=False) if isinstance(reference.node, exp.Bracket) else None
            if isinstance(reference.node, exp.Bracket) and reference.node is projection:
                named = None if source is None else f"{source}.{reference.field}"  # s['b'] is named s.b
            else:
                if isinstance(reference.node, exp.Bracket):  # s['b'] inside is printed as s.b is
                    dotted = exp.Dot(this=reference.node.this.copy(), expression=exp.to_identifier(reference.field))
                    next(n for n, m in zip(shown.walk(), projection.walk()) if m is reference.node).replace(dotted)
                named = spark_name(shown)
        if named is None:
            refuse_on_duckdb("from_json", f"a field taken through a subquery in {projection.sql(dialect='vpushspark')}")
        wrapped = exp.Alias(alias=exp.to_identifier(named, quoted=True))
        projection.replace(wrapped)
        wrapped.set("this", projection)
    table = exp.to_identifier(alias, quoted=True) if alias else None
    replacement: exp.Expr = exp.column(exp.to_identifier(hidden, quoted=True), table=table)
    for part in reference.rest:
        replacement = exp.Dot(this=replacement, expression=part.copy())
    reference.node.replace(replacement)

