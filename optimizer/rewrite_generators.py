"""Spark's generators over SQL arrays and maps (``explode``, ``posexplode``, ``inline`` and their
``_outer`` forms) as DuckDB runs them.

Spark runs a generator in the SELECT list, or in ``LATERAL VIEW [OUTER] f(...) t AS c1, c2``, as a
``Generate`` operator: each input row becomes one row per element (array order), with no row
for a NULL or empty input, or one row of NULLs for it in the ``_outer`` forms (and ``LATERAL VIEW
OUTER``). DuckDB's ``UNNEST`` in a SELECT list drops such rows too but names, types and places
its columns otherwise, and does not take structs apart unless asked. So each generator becomes a
``CROSS JOIN LATERAL (SELECT UNNEST(...) AS c, ...) AS g`` after the SELECT's FROM and joins::

    explode(a)            col    UNNEST(a)
    posexplode(a)         pos    CAST(UNNEST(range(len(a))) AS INT), col  UNNEST(a)
    explode(m)            key    UNNEST(map_keys(m)), value  UNNEST(map_values(m))
    inline(a)             f...   struct_extract(UNNEST(a), 'f') per field of the struct
    ..._outer             each list L as CASE WHEN len(a) > 0 THEN L ELSE [NULL] END

DuckDB zips the UNNESTs of one SELECT, and plans a lateral join over a bare UNNEST projection as an
unnest operator that keeps each row's elements in array order (a ``LEFT JOIN LATERAL`` would be
decorrelated into a hash join, which loses that order: measured on DuckDB 2.0).

A SELECT-list generator is then a column of that join, under the name Spark gives it (``col``,
``pos``, ``key``, ``value``, the struct's field names) or its aliases. Spark applies it after the
WHERE, which cannot see its columns; the join's columns have internal names and ``*`` excludes
them, so the WHERE and ``*`` see what they see in Spark. What vpush cannot answer as Spark does
(a generator over an aggregate: Spark generates after grouping) is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from vpush.optimizer.dialect import DEFERRED_ARITY_ERROR, call_name
from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.variant_types import ArrayType, AtomicType, MapType, SparkType, StringType, StructType

__all__ = [
    "GENERATORS", "check_generators_rewritten", "inline_of_structs", "is_generator", "rewrite_generator_tables", "rewrite_generators",
    "rewrite_generators_after_aggregation",
]

GENERATORS = frozenset({"explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer", "json_tuple", "stack"})
"""The Spark generators the DuckDB engine runs, by the lower-cased name the user writes."""

JSON_TUPLE_FIELD = "json_tuple"
"""The call each field of a ``json_tuple`` in a SELECT list becomes: ``json_tuple(json, field)``
of one field, which :mod:`vpush.optimizer.spark_semantics` answers (one column, a string)."""

_INT = AtomicType("int")
_PREFIX = "__vpush_generate_"


@dataclass
class _Generator:
    """One generator call: where it stands, what it is called, and the names the user gave."""

    call: exp.Expr
    name: str
    aliases: list[str] | None
    outer: bool
    lateral_alias: str | None = None


def is_generator(node: exp.Expr) -> bool:
    """Whether ``node`` is a call of one of :data:`GENERATORS`.

    Example:
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> import sqlglot
        >>> [is_generator(p) for p in sqlglot.parse_one("SELECT explode(a), a FROM t", dialect=VpushSpark).expressions]
        [True, False]
    """
    return _generator_name(node) is not None


def _generator_name(node: exp.Expr) -> str | None:
    name = call_name(node)
    if name in GENERATORS and DEFERRED_ARITY_ERROR not in node.meta:  # explode(): Spark's error, raised as columns resolve
        return name
    return None


def _argument(call: exp.Expr) -> exp.Expr:
    """The one argument of a generator call (``inline_outer`` is a call sqlglot does not know)."""
    if isinstance(call, exp.Anonymous):
        return call.expressions[0]
    return call.this


def _generators_in(node: exp.Expr) -> list[exp.Expr]:
    """The generator calls in ``node``, not entering nested queries (scopes of their own)."""
    found = [node] if _generator_name(node) is not None else []
    for child in node.iter_expressions():
        if not isinstance(child, (exp.Select, exp.Subquery, exp.SetOperation)):
            found.extend(_generators_in(child))
    return found


def _spark_sql(node: exp.Expr) -> str:
    return node.sql(dialect="vpushspark")


def _unsupported(what: str, call: exp.Expr) -> OptimizeError:
    return OptimizeError(
        f"{_spark_sql(call)}: the DuckDB engine does not give Spark's answer for {what} yet; the Spark engine "
        "(vpush.connect(engine='spark')) runs it as Spark does",
        error_class="VPUSH_UNSUPPORTED_FUNCTION",
    )


def _json_tuple_columns(generator: _Generator, type_of: Callable[[exp.Expr], SparkType | None]) -> list[tuple[str, exp.Expr]]:
    """Spark's ``json_tuple(json, f1, f2, ...)`` in a SELECT list: one row for each row, its
    columns ``c0, c1, ...`` (or the aliases) the value of each top-level field as a string (see
    :data:`JSON_TUPLE_FIELD`), as one-field calls, since the generator neither drops nor repeats
    rows. Field names must be string literals (others are refused)."""
    call = generator.call
    arguments = list(call.expressions) if isinstance(call, exp.Anonymous) else []
    if len(arguments) < 2:
        raise _unsupported("`json_tuple` with fewer than two arguments", call)
    for argument in arguments:
        typed = type_of(argument)
        if isinstance(argument, exp.Null) or (typed is not None and not isinstance(typed, StringType)):
            raise OptimizeError(
                f'Cannot resolve "{_spark_sql(call)}" due to data type mismatch: all arguments of the function '
                "`json_tuple` must be strings.",
                error_class="DATATYPE_MISMATCH.NON_STRING_TYPE",
            )
    if type_of(arguments[0]) is None:
        raise _unsupported("`json_tuple` of an argument whose type vpush does not know", call)
    if not all(isinstance(a, exp.Literal) and a.is_string for a in arguments[1:]):
        raise _unsupported("`json_tuple` with field names that are not string literals", call)
    names = generator.aliases or [f"c{k}" for k in range(len(arguments) - 1)]
    if len(names) != len(arguments) - 1:
        raise OptimizeError(
            "The number of aliases supplied in the AS clause does not match the number of columns output "
            f"by the UDTF. Expected {len(arguments) - 1} aliases, but got {', '.join(names)}.",
            error_class="UDTF_ALIAS_NUMBER_MISMATCH",
        )
    return [(name, exp.Anonymous(this=JSON_TUPLE_FIELD, expressions=[arguments[0].copy(), field.copy()]))
            for name, field in zip(names, arguments[1:])]


def _stack_as_inline(call: exp.Expr, type_of: Callable[[exp.Expr], SparkType | None]) -> exp.Expr:
    """Spark's ``stack(n, a1, ..., ak)``: n rows of ``ceil(k / n)`` columns ``col0, col1, ...``
    filled row by row (NULL past ``ak``), as ``inline`` of an array of structs. Spark requires
    each column's values to be of one type (NULLs aside): ``STACK_COLUMN_DIFF_TYPES``."""
    arguments = list(call.expressions) if isinstance(call, exp.Anonymous) else [call.this, *call.expressions]
    count = arguments[0] if arguments else None
    rows = int(count.this) if isinstance(count, exp.Literal) and not count.is_string and str(count.this).isdigit() else 0
    values = arguments[1:]
    if rows < 1 or not values:
        raise _unsupported("`stack` without a positive integer literal of rows and values", call)
    width = -(-len(values) // rows)
    types = [type_of(v) for v in values]
    column_types: list[exp.DataType] = []
    for column in range(width):
        placed = [(k, types[k]) for k in range(column, len(values), width) if not isinstance(values[k], exp.Null)]
        if not placed or any(t is None for _, t in placed):
            raise _unsupported("`stack` of a column whose type vpush does not know (or of NULLs only)", call)
        first, first_type = placed[0]
        if any(isinstance(t, (ArrayType, MapType, StructType)) and t == first_type for _, t in placed[1:]):
            # Spark compares nested types with their nullability (array('q') is not an array<string>
            # that may hold NULL), which vpush's types do not keep
            raise _unsupported("`stack` of nested values", call)
        to = first_type.to_sql_type() if first_type is not None else None
        if to is None:
            raise _unsupported("`stack` of a column whose type vpush does not know", call)
        column_types.append(to)
        for k, other in placed[1:]:
            if other != first_type:
                assert first_type is not None and other is not None
                raise OptimizeError(
                    f'Cannot resolve "{_spark_sql(call)}" due to data type mismatch: The data type of the column '
                    f'({column}) do not have the same type: "{first_type.to_sql()}" ({first + 1}) <> '
                    f'"{other.to_sql()}" ({k + 1}).',
                    error_class="DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES",
                )
    rows_of_fields = []
    for row in range(rows):
        fields: list[tuple[str, exp.Expr]] = []
        for column in range(width):
            k = row * width + column
            if k < len(values) and not isinstance(values[k], exp.Null):
                fields.append((f"col{column}", values[k].copy()))
            else:  # NULL of the column's type: the array's structs are of one type
                fields.append((f"col{column}", exp.Cast(this=exp.Null(), to=column_types[column].copy())))
        rows_of_fields.append(fields)
    return inline_of_structs(rows_of_fields)


def inline_of_structs(rows: Sequence[Sequence[tuple[str, exp.Expr]]]) -> exp.Expr:
    """``inline(array(named_struct('f', v, ...), ...))``, one struct per row of ``(field, value)``
    pairs (the values themselves, not copies), parsed rather than built: the generator and
    ``named_struct`` are known by the call the parser traced.

    Example:
        >>> inline_of_structs([[("a", exp.Literal.number(1))], [("a", exp.Literal.number(2))]]).sql(dialect="vpushspark")
        "INLINE(ARRAY(NAMED_STRUCT('a', 1), NAMED_STRUCT('a', 2)))"
    """
    slots: dict[str, exp.Expr] = {}
    structs = []
    for row in rows:
        fields = []
        for name, value in row:
            slot = f"{_PREFIX}slot_{len(slots)}"
            slots[slot] = value
            fields.append(f"{exp.Literal.string(name).sql(dialect='vpushspark')}, {slot}")
        structs.append(f"named_struct({', '.join(fields)})")
    inline = sqlglot.parse_one(f"SELECT inline(array({', '.join(structs)}))", read="vpushspark").expressions[0]
    for node in list(inline.find_all(exp.Column)):
        if node.name in slots:
            node.replace(slots[node.name])
    return inline


def _aggregates(select: exp.Select) -> bool:
    """Whether the SELECT groups: Spark then generates over the groups, after the aggregation."""
    if select.args.get("group") is not None or select.args.get("having") is not None:
        return True
    for projection in select.expressions:
        for node in projection.walk():
            if isinstance(node, exp.AggFunc) and not isinstance(node.parent, exp.Window):
                return True
    return False


def _output(generator: _Generator, argument: SparkType | None) -> list[tuple[str, SparkType]]:
    """The columns Spark's generator gives for an argument of type ``argument``."""
    name, call = generator.name, generator.call
    if argument is None:
        raise _unsupported(f"`{name}` of an argument whose type vpush does not know", call)
    positions = [("pos", _INT)] if name.startswith("posexplode") else []
    if name.startswith("inline"):
        if not (isinstance(argument, ArrayType) and isinstance(argument.element, StructType)):
            raise OptimizeError(
                f'Cannot resolve "{_spark_sql(call)}" due to data type mismatch: The first parameter requires '
                f'the "ARRAY<STRUCT>" type, however "{_spark_sql(_argument(call))}" has the type "{argument.to_sql()}"',
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        return [(f.name, f.type) for f in argument.element.fields]
    if isinstance(argument, ArrayType):
        return [*positions, ("col", argument.element)]
    if isinstance(argument, MapType):
        return [*positions, ("key", argument.key), ("value", argument.value)]
    raise OptimizeError(
        f'Cannot resolve "{_spark_sql(call)}" due to data type mismatch: The first parameter requires the '
        f'("ARRAY" or "MAP") type, however "{_spark_sql(_argument(call))}" has the type "{argument.to_sql()}"',
        error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
    )


def _unnest(items: exp.Expr, count: exp.Expr, outer: bool) -> exp.Expr:
    """``UNNEST(items)``; in the outer form one NULL where ``count`` is not positive or NULL."""
    if outer:
        items = exp.Case(
            ifs=[exp.If(this=exp.GT(this=count.copy(), expression=exp.Literal.number(0)), true=items)],
            default=exp.Array(expressions=[exp.Null()]),
        )
    return exp.Explode(this=items)


def _lateral_select(generator: _Generator, argument: exp.Expr, argument_type: SparkType, names: list[str]) -> exp.Select:
    """The SELECT of UNNESTs whose zipped rows are the generator's, its columns named ``names``."""
    outer = generator.outer
    if isinstance(argument_type, MapType):
        lists = [exp.func("map_keys", argument.copy()), exp.func("map_values", argument.copy())]
        count: exp.Expr = exp.func("len", exp.func("map_keys", argument.copy()))
        values = [_unnest(items, count, outer) for items in lists]
    else:
        count = exp.func("len", argument.copy())
        if generator.name.startswith("inline"):
            assert isinstance(argument_type, ArrayType) and isinstance(argument_type.element, StructType)
            values = [
                exp.func("struct_extract", _unnest(argument.copy(), count, outer), exp.Literal.string(f.name))
                for f in argument_type.element.fields
            ]
        else:
            values = [_unnest(argument.copy(), count, outer)]
    if generator.name.startswith("posexplode"):
        # range(n) counts from 0 as Spark's pos does; Spark's pos is an int.
        positions = _unnest(exp.func("range", count.copy()), count, outer)
        values.insert(0, exp.cast(positions, exp.DataType.build("int"), copy=False))
    return exp.select(
        *(exp.alias_(v, exp.to_identifier(n, quoted=True), copy=False) for v, n in zip(values, names)), copy=False
    )


def rewrite_generators(
    select: exp.Select,
    type_of: Callable[[exp.Expr], SparkType | None],
    transform: Callable[[exp.Expr], exp.Expr],
    known: Callable[[dict[str, Mapping[str, SparkType]]], None] | None = None,
) -> dict[str, Mapping[str, SparkType]]:
    """Rewrite the generators of ``select`` (one SELECT, Spark SQL) into lateral joins of UNNESTs,
    in place; return the joins' columns by the joins' aliases, for typing the rest of the SELECT.

    Args:
        select: the SELECT; its FROM and joins typed by ``type_of``.
        type_of: the Spark type of an expression of the SELECT.
        transform: rewrites an expression of the SELECT into DuckDB SQL with Spark's answer.
        known: told each LATERAL VIEW's columns with their types as soon as they are known, so
            that ``type_of`` types a later view's argument that reads them
            (``LATERAL VIEW explode(aa) t1 AS a LATERAL VIEW explode(a) t2 AS x``).

    Raises:
        OptimizeError: Spark's error class where Spark raises (a generator nested in an
            expression or outside the SELECT list, an argument of the wrong type, a wrong number
            of aliases); ``VPUSH_UNSUPPORTED_FUNCTION`` for a generator vpush does not answer as Spark.

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> from vpush.optimizer.variant_types import parse_variant_type
        >>> select = sqlglot.parse_one("SELECT id, posexplode(a) FROM t", dialect=VpushSpark)
        >>> types = {"a": parse_variant_type("array<string>")}
        >>> columns = rewrite_generators(select, lambda n: types.get(n.name), lambda n: n)
        >>> {alias: {name: t.to_spark() for name, t in cs.items()} for alias, cs in columns.items()}
        {'__vpush_generate_0': {'__vpush_generate_0_0': 'int', '__vpush_generate_0_1': 'string'}}
        >>> select.sql(dialect="duckdb")  # doctest: +ELLIPSIS
        'SELECT id, "__vpush_generate_0"."__vpush_generate_0_0" AS "pos", ... CROSS JOIN LATERAL (SELECT CAST(UNNEST(RANGE(LENGTH(a))) AS INT) AS "__vpush_generate_0_0", UNNEST(a) AS "__vpush_generate_0_1") AS "__vpush_generate_0"'
    """
    for node in [*select.expressions, *(lateral.this for lateral in select.args.get("laterals") or [])]:
        call = node.this if isinstance(node, (exp.Alias, exp.Aliases)) else node
        if _generator_name(call) == "stack":
            call.replace(_stack_as_inline(call, type_of))
    laterals = [
        lateral for lateral in select.args.get("laterals") or []
        if lateral.args.get("view") and _generator_name(lateral.this) is not None
    ]
    in_list: list[tuple[int, _Generator]] = []
    for index, projection in enumerate(select.expressions):
        inner, aliases = projection, None
        if isinstance(projection, exp.Alias):
            inner, aliases = projection.this, [projection.alias]
        elif isinstance(projection, exp.Aliases):
            inner, aliases = projection.this, [a.name for a in projection.expressions]
        name = _generator_name(inner)
        nested = [g for g in _generators_in(inner) if g is not inner]
        if nested or (name is None and _generators_in(inner)):
            raise OptimizeError(
                f'The generator is not supported: nested in expressions "{_spark_sql(projection)}"',
                error_class="UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS",
            )
        if name is not None:
            in_list.append((index, _Generator(inner, name, aliases, name.endswith("_outer"))))
    for key, part in select.args.items():
        if key in ("expressions", "laterals") or not isinstance(part, exp.Expr):
            continue
        parts = part if isinstance(part, list) else [part]
        for piece in parts:
            if isinstance(piece, exp.Expr) and _generators_in(piece):
                if key in ("from_", "joins"):  # Spark's table-valued form, FROM explode(...)
                    raise _unsupported("a generator in FROM", _generators_in(piece)[0])
                raise OptimizeError(
                    f"The generator is not supported: outside the SELECT clause, found: {_spark_sql(piece)}",
                    error_class="UNSUPPORTED_GENERATOR.OUTSIDE_SELECT",
                )
    for lateral in laterals:
        for _ in _generators_in(_argument(lateral.this)):
            raise OptimizeError(
                f'The generator is not supported: nested in expressions "{_spark_sql(lateral.this)}"',
                error_class="UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS",
            )
    if in_list and _aggregates(select):
        raise _unsupported("a generator in a SELECT that groups or aggregates", in_list[0][1].call)
    for lateral in laterals:
        if _generator_name(lateral.this) == "json_tuple":
            raise _unsupported("`json_tuple` in a LATERAL VIEW", lateral.this)
    tuples = {index: _json_tuple_columns(g, type_of) for index, g in in_list if g.name == "json_tuple"}
    in_list = [(index, g) for index, g in in_list if g.name != "json_tuple"]
    produced: dict[str, Mapping[str, SparkType]] = {}
    joins: list[exp.Join] = []
    generators: list[_Generator] = []
    for lateral in laterals:
        alias = lateral.args.get("alias")
        columns = [c.name for c in alias.columns] if isinstance(alias, exp.TableAlias) and alias.columns else None
        name = _generator_name(lateral.this)
        assert name is not None
        generator = _Generator(lateral.this, name, columns, bool(lateral.args.get("outer")) or name.endswith("_outer"))
        generator.lateral_alias = alias.name if isinstance(alias, exp.TableAlias) and alias.name else None
        generators.append(generator)
    generators += [g for _, g in in_list]
    outputs: list[list[tuple[str, SparkType]]] = []
    for generator in generators:
        output = _output(generator, type_of(_argument(generator.call)))
        if generator.aliases is not None and len(generator.aliases) != len(output) and select.meta.get(_TABLE_VALUED):
            raise OptimizeError(
                "Number of given aliases does not match number of output columns. Function name: "
                f"{generator.name}; number of aliases: {len(generator.aliases)}; number of output columns: {len(output)}.",
                error_class="NUM_TABLE_VALUE_ALIASES_MISMATCH",
            )
        if generator.aliases is not None and len(generator.aliases) != len(output):
            raise OptimizeError(
                "The number of aliases supplied in the AS clause does not match the number of columns output "
                f"by the UDTF. Expected {len(output)} aliases, but got {', '.join(generator.aliases)}.",
                error_class="UDTF_ALIAS_NUMBER_MISMATCH",
            )
        outputs.append(output)
        if known is not None and generator.lateral_alias is not None:
            names = generator.aliases or [n for n, _ in output]
            known({generator.lateral_alias.lower(): {n.lower(): t for n, (_, t) in zip(names, output)}})
    # Only now that nothing can be refused is the tree changed.
    first_in_list = len(laterals)
    replaced: dict[int, list[exp.Expr]] = {}
    hidden: list[str] = []
    for k, (generator, output) in enumerate(zip(generators, outputs)):
        argument_type = type_of(_argument(generator.call))
        assert argument_type is not None
        argument = transform(_argument(generator.call))
        names = generator.aliases or [n for n, _ in output]
        alias = generator.lateral_alias or f"{_PREFIX}{k}"
        in_select = k >= first_in_list
        inner_names = [f"{_PREFIX}{k}_{j}" for j in range(len(names))] if in_select else names
        produced[alias.lower()] = {n.lower(): t for n, (_, t) in zip(inner_names, output)}
        join = exp.Join(
            this=exp.Lateral(
                this=exp.Subquery(this=_lateral_select(generator, argument, argument_type, inner_names)),
                alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=generator.lateral_alias is None)),
            ),
            kind="CROSS",
        )
        joins.append(join)
        if in_select:
            hidden += inner_names
            index = in_list[k - first_in_list][0]
            replaced[index] = [
                exp.alias_(
                    exp.column(exp.to_identifier(inner, quoted=True), table=exp.to_identifier(alias, quoted=True)),
                    exp.to_identifier(name, quoted=True),
                    copy=False,
                )
                for inner, name in zip(inner_names, names)
            ]
    for index, columns in tuples.items():
        replaced[index] = [exp.alias_(transform(call), exp.to_identifier(name, quoted=True), copy=False) for name, call in columns]
    if not generators and not tuples:
        return produced
    remaining = [lateral for lateral in select.args.get("laterals") or [] if lateral not in laterals]
    select.set("laterals", remaining or None)
    if select.args.get("from_") is None and joins:
        # a SELECT without FROM: its first generator is the FROM (there is nothing to join to)
        first = joins.pop(0)
        source = first.this.this.copy()
        source.set("alias", first.this.args["alias"].copy())
        select.set("from_", exp.From(this=source))
    for join in joins:
        select.append("joins", join)
    if replaced:
        expressions: list[exp.Expr] = []
        for index, projection in enumerate(select.expressions):
            expressions.extend(replaced.get(index, [projection]))
        select.set("expressions", expressions)
        for projection in select.expressions:
            if isinstance(projection, exp.Star):
                excluded = list(projection.args.get("except_") or [])
                excluded += [exp.column(exp.to_identifier(n, quoted=True)) for n in hidden]
                projection.set("except_", excluded)
    return produced


_TABLE_VALUED = "vpush_table_valued_generator"
"""The meta key of a SELECT written for a generator in a FROM: Spark names a wrong number of
aliases there ``NUM_TABLE_VALUE_ALIASES_MISMATCH``."""


def rewrite_generator_tables(expression: exp.Expr) -> exp.Expr:
    """Spark's table-valued generators as SELECT-list ones, in place: ``FROM explode(a) [AS e[(c)]]``
    becomes ``FROM (SELECT explode(a) [AS (c)]) AS e``, and a trailing ``, LATERAL explode(t.a)
    [AS e(c)]`` of a FROM (which reads the columns before it) becomes ``LATERAL VIEW explode(t.a)
    e [AS c]``, which :func:`rewrite_generators` answers.

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> tree = sqlglot.parse_one("SELECT * FROM posexplode(array(1, 2)) AS e(p, x)", read=VpushSpark)
        >>> rewrite_generator_tables(tree).sql(dialect=VpushSpark)
        'SELECT * FROM (SELECT POSEXPLODE(ARRAY(1, 2)) AS (p, x)) AS e'
    """
    for index, table in enumerate([t for t in expression.find_all(exp.Table) if _generator_name(t.this) is not None]):
        alias = table.args.get("alias")
        call = table.this
        columns = [c.copy() for c in alias.columns] if isinstance(alias, exp.TableAlias) else []
        projection: exp.Expr = exp.Aliases(this=call, expressions=columns) if columns else call
        select = exp.Select(expressions=[projection])
        select.meta[_TABLE_VALUED] = True
        name = alias.this.copy() if isinstance(alias, exp.TableAlias) and alias.this else exp.to_identifier(f"{_PREFIX}table_{index}")
        table.replace(exp.Subquery(this=select, alias=exp.TableAlias(this=name)))
    for select in list(expression.find_all(exp.Select)):
        joins = list(select.args.get("joins") or [])
        trailing: list[exp.Join] = []
        while joins and isinstance(joins[-1].this, exp.Lateral) and _generator_name(joins[-1].this.this) is not None \
                and not joins[-1].args.get("on") and joins[-1].args.get("kind", "CROSS") in ("", "CROSS", None):
            trailing.insert(0, joins.pop())
        for join in trailing:
            lateral = join.this
            join.pop()
            lateral.set("view", True)
            select.append("laterals", lateral)
    return expression


def _output_name(projection: exp.Expr) -> str | None:
    if isinstance(projection, exp.Alias):
        return projection.alias
    if isinstance(projection, exp.Column) and isinstance(projection.this, exp.Identifier):
        return projection.name
    return None


def _generate_after_aggregation(select: exp.Select, index: int) -> None:
    """``SELECT g, explode(agg) ... GROUP BY g`` as Spark runs it, generating over the groups:
    ``SELECT g, explode(a) FROM (SELECT g, agg AS a ... GROUP BY g)``, the ORDER BY and LIMIT
    outside. Left as it is (and refused) where the other projections are not named columns or
    aliases, or an ORDER BY key is not one of the names."""
    positions = [k for k, p in enumerate(select.expressions)
                 if _generator_name(p.this if isinstance(p, (exp.Alias, exp.Aliases)) else p) not in (None, "json_tuple", "stack")]
    if len(positions) != 1 or select.args.get("distinct") or select.args.get("qualify"):
        return
    position = positions[0]
    names = [_output_name(p) for k, p in enumerate(select.expressions) if k != position]
    if any(n is None for n in names):
        return
    order = select.args.get("order")
    if order is not None and not all(isinstance(o.this, exp.Column) and not o.this.table and o.this.name in names
                                     for o in order.expressions):
        return
    projection = select.expressions[position]
    call = projection.this if isinstance(projection, (exp.Alias, exp.Aliases)) else projection
    argument = _argument(call)
    hidden = f"{_PREFIX}aggregated_{index}"
    argument.replace(exp.column(exp.to_identifier(hidden, quoted=True)))
    outer_projections = [exp.column(exp.to_identifier(n, quoted=True)) for n in names if n is not None]
    projection.replace(exp.alias_(argument, exp.to_identifier(hidden, quoted=True), copy=False))
    outer_projections.insert(position, projection)
    moved = {key: select.args.get(key) for key in ("order", "limit", "offset")}
    # the SELECT node stays the outer one (it may be the root); what it had moves into the inner
    inner = exp.Select()
    for key, part in list(select.args.items()):
        if key not in moved and part is not None:
            inner.set(key, part)
            select.set(key, None)
    select.set("expressions", outer_projections)
    select.set("from_", exp.From(this=exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier(hidden, quoted=True)))))


def rewrite_generators_after_aggregation(expression: exp.Expr) -> exp.Expr:
    """Each SELECT that groups or aggregates and has a generator in its list, generating over the
    groups as Spark does (see :func:`_generate_after_aggregation`), in place.

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> tree = sqlglot.parse_one("SELECT g, explode(collect_list(i)) AS x FROM t GROUP BY g ORDER BY g", read=VpushSpark)
        >>> rewrite_generators_after_aggregation(tree).sql(dialect=VpushSpark)
        'SELECT `g`, EXPLODE(`__vpush_generate_aggregated_0`) AS x FROM (SELECT g, COLLECT_LIST(i) AS `__vpush_generate_aggregated_0` FROM t GROUP BY g) AS `__vpush_generate_aggregated_0` ORDER BY g'
    """
    selects = [s for s in expression.find_all(exp.Select) if _aggregates(s) and any(is_generator(
        p.this if isinstance(p, (exp.Alias, exp.Aliases)) else p) for p in s.expressions)]
    for index, select in enumerate(selects):
        _generate_after_aggregation(select, index)
    return expression


def check_generators_rewritten(expression: exp.Expr) -> None:
    """Raise for a generator left in a query for DuckDB: DuckDB's ``UNNEST`` would answer it,
    with other names and rows than Spark's.

    Raises:
        OptimizeError: naming the call, with ``VPUSH_UNSUPPORTED_FUNCTION``.
    """
    for node in expression.walk():
        name = _generator_name(node)
        if name is not None:
            raise _unsupported(f"`{name}` here (vpush runs it in a SELECT list or a LATERAL VIEW)", node)
