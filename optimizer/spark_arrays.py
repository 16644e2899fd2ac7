"""Spark's array functions as DuckDB gives their answer: types, values, NULLs and errors.

DuckDB has list functions under many of Spark's names, but with other answers: its
``list_distinct`` drops the NULL and loses the order of first occurrence, its ``list_position``
is NULL where Spark's ``array_position`` is 0, its lambdas count an index from 1 where Spark's
count from 0, its ``list_sort`` turns a ``-0.0`` into ``0.0``, and its ``flatten`` skips a NULL
inner array where Spark's whole answer is NULL. :func:`rewrite_array_function` writes each call
of :data:`ARRAY_FUNCTIONS` as DuckDB SQL that gives Spark's answer, and
:func:`array_function_type` gives its Spark type. A call whose answer vpush cannot give (an
element type whose equality or order DuckDB computes otherwise, a coercion vpush does not do) is
refused with ``VPUSH_UNSUPPORTED_FUNCTION`` rather than answered differently.

Spark compares elements as its ordering does (``SQLOrderingUtil``): ``NaN`` equals ``NaN`` and
``-0.0`` equals ``0.0``; DuckDB's ``=`` and ``list_position`` agree, and ``list_position`` finds a
NULL element as Spark's set functions do, so these build on them. Every array argument is used
whole inside DuckDB lambdas (DuckDB captures it), so no row is looped over in Python.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp

from vpush.optimizer.dialect import call_arguments, call_name, sql_call as _f
from vpush.optimizer.errors import refuse_on_duckdb as _refuse
from vpush.optimizer.interval_text import MICROS_PER_DAY, MICROS_PER_UNIT, MONTHS_PER_UNIT
from vpush.optimizer.spark_intervals import multi_unit_span, span_interval
from vpush.optimizer.spark_math import has_map
from vpush.optimizer.spark_ordering import nested_sort_key
from vpush.optimizer.spark_semantics import (
    TIMESTAMP_ADD_INTERVAL_FUNCTION,
    different_element_types,
    map_from_arrays_checked,
    nested_common_type,
    nested_wider_type,
    no_wider_type,
    spark_error,
    tightest_common,
)
from vpush.optimizer.variant_types import (
    VARIANT,
    VOID,
    ArrayType,
    AtomicType,
    DecimalType,
    MapType,
    SparkType,
    StringType,
    StructField,
    StructType,
    coercible,
    leaves,
)

__all__ = ["ARRAY_FUNCTIONS", "MAX_ARRAY_LENGTH", "NestedCast", "array_call", "array_function_type", "is_unbound",
           "lambda_variable_type", "rewrite_array_function", "variable_reference"]

TypeOf = Callable[[exp.Expr], "SparkType | None"]
NestedCast = Callable[[exp.Expr, SparkType, SparkType], exp.Expr]
"""Spark's cast of a value of one type to another, part by part (the rewrite's own
``_Rewriter._nested_cast``, which :func:`~vpush.optimizer.spark_semantics.rebuilt_as` walks):
an argument is coerced by it to the type Spark's coercion gives, before DuckDB's function runs."""

ARRAY_FUNCTIONS = frozenset({
    "array_distinct", "array_join", "sort_array", "array_sort", "array_max", "array_min", "array_position",
    "array_remove", "array_union", "array_intersect", "array_except", "arrays_overlap", "flatten", "slice",
    "array_compact", "array_append", "array_prepend", "array_repeat", "exists", "forall", "transform", "filter",
    "aggregate", "reduce", "sequence", "array_insert", "arrays_zip", "map_entries", "map_filter", "transform_values",
    "map_concat", "zip_with", "transform_keys", "map_zip_with",
})
"""The array functions this module answers, by the name the user calls them with."""

MAX_ARRAY_LENGTH = 2_147_483_632
"""Spark's largest array (``ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH``): a longer ``sequence``
or ``array_repeat`` raises ``COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER``."""

_INTEGRAL = ("tinyint", "smallint", "int", "bigint")
_NUMERIC = (*_INTEGRAL, "float", "double")  # Spark's numericPrecedence, decimals aside
_INT = AtomicType("int")
_BIGINT = AtomicType("bigint")
_BOOLEAN = AtomicType("boolean")
_X, _I, _K, _A, _B, _E = "__vpush_x", "__vpush_i", "__vpush_k", "__vpush_a", "__vpush_b", "__vpush_e"
_M = "__vpush_m"
_MAP_LAMBDAS = ("map_filter", "transform_values")


def array_call(node: exp.Expr) -> tuple[str, list[exp.Expr]] | None:
    """The name and arguments of a call to a function of :data:`ARRAY_FUNCTIONS`, else None.
    (sqlglot keeps no trace of ``transform``, which it parses into a node of its own.)

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> name, arguments = array_call(sqlglot.parse_one("SELECT slice(a, 2, 3)", read=VpushSpark).expressions[0])
        >>> name, [a.sql() for a in arguments]
        ('slice', ['a', '2', '3'])
    """
    if isinstance(node, exp.Transform) and isinstance(node.expression, exp.Lambda):
        return "transform", [node.this, node.expression]
    called = call_name(node)
    if called not in ARRAY_FUNCTIONS:
        return None
    arguments = call_arguments(node)
    if arguments is None or any(a is None for a in arguments):
        return None
    return called, [a for a in arguments if a is not None]


def _is_integral(t: SparkType | None) -> bool:
    return isinstance(t, AtomicType) and t.name in _INTEGRAL


def _common(a: SparkType | None, b: SparkType | None) -> SparkType | None:
    """The type Spark coerces two element types to, where vpush does it: equal types, or the
    later of two numbers other than decimals in Spark's numeric precedence (an int beside a
    double: a double)."""
    if a is not None and a == b:
        return a
    if isinstance(a, AtomicType) and isinstance(b, AtomicType) and a.name in _NUMERIC and b.name in _NUMERIC:
        return a if _NUMERIC.index(a.name) >= _NUMERIC.index(b.name) else b
    return None


def _flat(t: SparkType | None) -> bool:
    """An element type whose equality and order are the same in DuckDB and Spark (nested values
    with NULLs inside and variants are not)."""
    return isinstance(t, (AtomicType, StringType, DecimalType)) and t != VARIANT


def _comparable(t: SparkType | None) -> bool:
    """An element type whose equality DuckDB computes as Spark's ordering does: :func:`_flat`, or
    arrays and structs of such (DuckDB's ``=`` and ``list_position`` of nested values take a NULL
    inside as equal to a NULL, ``-0.0`` as ``0.0`` and NaN as NaN, as Spark's ``ordering.equiv``
    does; a map has no equality in Spark, a variant none alike)."""
    if isinstance(t, ArrayType):
        return _comparable(t.element)
    if isinstance(t, StructType):
        return all(_comparable(f.type) for f in t.fields)
    return _flat(t)


def _tightest(a: SparkType | None, b: SparkType | None) -> SparkType | None:
    """:func:`_common`, or else Spark's tightest common type of two types whose widening vpush
    knows (None where there is none)."""
    common = _common(a, b)
    if common is not None or a is None or b is None or not _widening_known(a, b):
        return common
    return _nested_tightest(a, b)


def _widening_known(a: SparkType, b: SparkType) -> bool:
    """Whether vpush knows Spark's widening of every part of ``a`` and ``b`` (a map's keys are
    cast by no rule of vpush's)."""
    return coercible(a) and coercible(b) and not has_map(a) and not has_map(b)


def _nested_tightest(a: SparkType, b: SparkType) -> SparkType | None:
    """Spark's ``findTightestCommonType`` of ``a`` and ``b``, part by part (decimals that differ
    have none): None where there is none."""
    return nested_wider_type(a, b, strings=False) if tightest_common(a, b) else None


def _coerced_element(called: str, types: list[SparkType], *, value: bool) -> SparkType | None:
    """The element type Spark coerces an array's elements and a value (``value``), or two arrays'
    elements, to where they differ: its ``findTightestCommonType`` (decimals that differ have
    none), part by part (a struct's fields by position, named alike). None where vpush does not
    know the parts' widening.

    Raises:
        OptimizeError: Spark's ``ARRAY_FUNCTION_DIFF_TYPES`` / ``BINARY_ARRAY_DIFF_TYPES`` where it
            finds no such type.
    """
    a, b = (t.element if isinstance(t, ArrayType) and (k == 0 or not value) else t for k, t in enumerate(types))
    if not _widening_known(a, b):
        return None  # refused
    wide = _nested_tightest(a, b)
    if wide is None:
        raise different_element_types(called, types, value=value)
    return wide


def _fractional(t: SparkType | None) -> bool:
    return isinstance(t, AtomicType) and t.name in ("float", "double")


def array_function_type(called: str, arguments: list[exp.Expr], of: TypeOf) -> SparkType | None:
    """The Spark type of ``called(*arguments)``, or None where vpush does not know it.

    Example:
        >>> ints = {"a": ArrayType(_INT)}
        >>> array_function_type("array_position", [exp.column("a"), exp.Literal.number(2)], lambda n: ints.get(n.name)).to_spark()
        'bigint'
    """
    types = [of(a) for a in arguments]
    source = types[0] if types else None
    if called in ("exists", "forall", "arrays_overlap"):
        return _BOOLEAN
    if called == "array_join":
        return StringType()
    if called == "array_position":
        return _BIGINT
    if called == "array_repeat":
        if isinstance(arguments[0], exp.Null):
            return ArrayType(VOID)  # array_repeat(NULL, n): n NULLs, an array<void>
        return ArrayType(source) if source is not None else None
    if called == "sequence":
        widest = source
        for t in types[1:]:
            widest = _common(widest, t)
        if widest is not None and _is_integral(widest):
            return ArrayType(widest)
        temporal = len(types) >= 2 and types[0] == types[1] and types[0] in (_DATE, *_TIMESTAMPS)
        return ArrayType(types[0]) if temporal and (len(arguments) == 2 or date_step(arguments[2]) is not None) else None  # type: ignore[arg-type]
    if called in ("aggregate", "reduce"):
        if len(arguments) == 4 and isinstance(arguments[3], exp.Lambda):
            return of(arguments[3].this)
        return types[1] if len(types) > 1 else None
    if called == "map_concat":
        return _concat_maps_type(types)
    if called == "zip_with":
        body = of(arguments[2].this) if len(arguments) == 3 and isinstance(arguments[2], exp.Lambda) else None
        return ArrayType(body) if body is not None and all(isinstance(t, ArrayType) for t in types[:2]) else None
    if called == "map_zip_with":
        key = _zip_key(types)
        body = of(arguments[2].this) if len(arguments) == 3 and isinstance(arguments[2], exp.Lambda) else None
        return MapType(key, body) if key is not None and body is not None else None
    if called == "transform_keys":
        body = of(arguments[1].this) if len(arguments) == 2 and isinstance(arguments[1], exp.Lambda) else None
        return MapType(body, source.value) if isinstance(source, MapType) and body is not None else None
    if called in ("map_entries", *_MAP_LAMBDAS):
        if not isinstance(source, MapType):
            return None
        if called == "map_entries":
            return ArrayType(StructType((StructField("key", source.key), StructField("value", source.value))))
        if called == "map_filter":
            return source
        body = of(arguments[1].this) if len(arguments) == 2 and isinstance(arguments[1], exp.Lambda) else None
        return MapType(source.key, body) if body is not None else None
    if called == "arrays_zip":
        if not types or not all(isinstance(t, ArrayType) for t in types):
            return None
        return ArrayType(StructType(tuple(StructField(_zip_name(a, k), t.element) for k, (a, t) in enumerate(zip(arguments, types))
                                          if isinstance(t, ArrayType))))
    if not isinstance(source, ArrayType):
        return None
    if called in ("array_max", "array_min"):
        return source.element
    if called == "flatten":
        return source.element if isinstance(source.element, ArrayType) else None
    if called == "transform":
        body = of(arguments[1].this) if isinstance(arguments[1], exp.Lambda) else None
        return ArrayType(body) if body is not None else None
    if called in ("array_union", "array_intersect", "array_except"):
        other = types[1] if len(types) > 1 else None
        element = _tightest(source.element, other.element) if isinstance(other, ArrayType) else None
        return ArrayType(element) if element is not None else None
    if called in ("array_append", "array_prepend", "array_insert", "array_remove"):
        value = arguments[-1]
        element = source.element if isinstance(value, exp.Null) else _tightest(source.element, types[-1])
        return ArrayType(element) if element is not None else None
    return source  # array_distinct, sort_array, array_sort, slice, array_compact, filter


_UNBOUND = object()


def variable_reference(node: exp.Expr) -> bool:
    """Whether ``node`` may name a lambda variable: sqlglot parses the variables in a lambda's
    body as bare identifiers (a column elsewhere), not as a lambda's parameters, a field's name
    or an alias."""
    if isinstance(node, exp.Column):
        return not node.table
    parent = node.parent
    if not isinstance(node, exp.Identifier) or parent is None:
        return False
    if isinstance(parent, exp.Lambda):
        return node.arg_key == "this"  # a body that is the variable alone
    if isinstance(parent, (exp.Column, exp.Alias, exp.TableAlias, exp.Table)):
        return False
    if isinstance(parent, exp.Dot):
        return node.arg_key == "this"  # x.a in a lambda's body: the variable's field
    if isinstance(parent, exp.PropertyEQ) and node.arg_key == "expression":
        return isinstance(parent.parent, exp.Struct)  # a struct's field's value (named_struct('pos', i)), not a name
    return not (isinstance(parent, exp.PropertyEQ) and node.arg_key == "this")


def lambda_variable_type(column: exp.Column | exp.Identifier, of: TypeOf) -> SparkType | None | object:
    """The Spark type of ``column`` where it names a variable of an enclosing lambda of an array
    function (the element, Spark's 0-based ``int`` index, or the accumulator, typed as the zero of
    ``aggregate``); :data:`_UNBOUND` where it names no lambda variable."""
    if not variable_reference(column):
        return _UNBOUND
    name = column.name.lower()
    node = column.parent
    while node is not None:
        if isinstance(node, exp.Lambda):
            names = [v.name.lower() for v in node.expressions]
            if name in names:
                return _variable_type(node, names.index(name), of)
        node = node.parent
    return _UNBOUND


def _variable_type(lam: exp.Lambda, position: int, of: TypeOf) -> SparkType | None:
    found = array_call(lam.parent) if lam.parent is not None else None
    if found is None:
        return None
    called, arguments = found
    place = next((k for k, a in enumerate(arguments) if a is lam), None)
    source = of(arguments[0])
    if called == "zip_with":
        array = of(arguments[position]) if position < 2 else None
        return array.element if isinstance(array, ArrayType) else None
    if called in (*_MAP_LAMBDAS, "transform_keys"):
        return (source.key if position == 0 else source.value) if isinstance(source, MapType) else None
    if called == "map_zip_with":
        if position == 0:
            return _zip_key([of(a) for a in arguments[:2]])
        zipped = of(arguments[position - 1]) if position < 3 else None
        return zipped.value if isinstance(zipped, MapType) else None
    element = source.element if isinstance(source, ArrayType) else None
    if called in ("aggregate", "reduce"):
        if place == 2:
            return of(arguments[1]) if position == 0 else element
        return of(arguments[1]) if place == 3 and position == 0 else None
    return element if position == 0 else _INT


def is_unbound(typed: object) -> bool:
    """Whether :func:`lambda_variable_type` found no lambda variable."""
    return typed is _UNBOUND


def _var(name: str) -> exp.Column:
    return exp.Column(this=exp.to_identifier(name))


def _lambda(body: exp.Expr, *names: str) -> exp.Lambda:
    return exp.Lambda(this=body, expressions=[exp.to_identifier(n) for n in names])


def _is_null(node: exp.Expr) -> exp.Expression:
    return exp.Is(this=node.copy(), expression=exp.Null())


def _any_null(*nodes: exp.Expr) -> exp.Expression:
    tests = [_is_null(n) for n in nodes]
    out = tests[0]
    for test in tests[1:]:
        out = exp.Or(this=out, expression=test)
    return out


def _null_if_any(value: exp.Expr, to: SparkType, *nodes: exp.Expr) -> exp.Expression:
    """``value``, or NULL (of Spark's type ``to``) where one of ``nodes`` is NULL."""
    sql_type = to.to_sql_type()
    assert sql_type is not None
    return exp.Case(ifs=[exp.If(this=_any_null(*nodes), true=exp.cast(exp.Null(), sql_type))], default=value)


def _as(node: exp.Expr, have: SparkType | None, want: SparkType) -> exp.Expr:
    if have == want:
        return node
    sql_type = want.to_sql_type()
    assert sql_type is not None
    return exp.cast(node, sql_type)


def _bound(value: exp.Expr, name: str, build: Callable[[exp.Expr], exp.Expr]) -> exp.Expr:
    """``build(value)``, with ``value`` computed once per row where it is more than a column or a
    literal: DuckDB computes an expression inside a lambda again for each element (no common
    subexpressions there), so ``value`` is bound to the variable ``name`` of a one-element
    ``list_transform``."""
    if isinstance(value, (exp.Column, exp.Identifier, exp.Literal, exp.Null)):
        return build(value)
    each = _f("list_transform", exp.Array(expressions=[value]), _lambda(build(_var(name)), name))
    return _f("list_extract", each, exp.Literal.number(1))


def _distinct(array: exp.Expr) -> exp.Expression:
    """The elements of ``array`` in the order of their first occurrence, one NULL kept (Spark's
    ``array_distinct``; DuckDB's ``list_position`` finds the first equal element, NULL included)."""
    first = exp.EQ(this=_f("list_position", array.copy(), _var(_X)), expression=_var(_I))
    return _f("list_filter", array.copy(), _lambda(first, _X, _I))


def _normalized(array: exp.Expr, element: SparkType) -> exp.Expr:
    """``array`` with each ``-0.0`` made ``0.0``, inside nested elements too, as Spark's set
    functions (``array_distinct``, ``array_union``, ``array_intersect``, ``array_except``) give
    it: they hash a float's normalized bits, and normalize the floats of a nested element
    (``NormalizeFloatingNumbers``; measured on ``array_union(array(array(-0.0D)), ...)``)."""
    if not any(_fractional(leaf) for leaf in leaves(element)):
        return array
    return _f("list_transform", array, _lambda(_normalized_value(_var(_X), element, 0), _X))


def _normalized_value(value: exp.Expr, of_type: SparkType, depth: int) -> exp.Expr:
    """``value`` (of ``of_type``) with each float's ``-0.0`` made ``0.0``, part by part."""
    sql_type = of_type.to_sql_type()
    assert sql_type is not None
    if _fractional(of_type):
        zero = exp.If(this=exp.EQ(this=value.copy(), expression=exp.Literal.number(0)), true=exp.cast(exp.Literal.number(0), sql_type))
        return exp.Case(ifs=[zero], default=value.copy())
    if not any(_fractional(leaf) for leaf in leaves(of_type)):
        return value
    if isinstance(of_type, ArrayType):
        name = f"__vpush_z{depth}"
        return _f("list_transform", value.copy(), _lambda(_normalized_value(_var(name), of_type.element, depth + 1), name))
    if isinstance(of_type, StructType):
        built = exp.Struct(expressions=[
            exp.PropertyEQ(this=exp.to_identifier(f.name, quoted=True),
                           expression=_normalized_value(_f("struct_extract", value.copy(), exp.Literal.string(f.name)), f.type, depth + 1))
            for f in of_type.fields])
        return exp.Case(ifs=[exp.If(this=_is_null(value), true=exp.cast(exp.Null(), sql_type))], default=built)
    return value  # (a map's values: no set function compares maps)


def _contains(array: exp.Expr, value: exp.Expr) -> exp.Expression:
    """Whether ``array`` holds an element equal to ``value`` (a NULL holds a NULL), as a boolean."""
    return exp.Not(this=_is_null(_f("list_position", array.copy(), value.copy())))


def _sorted(array: exp.Expr, element: SparkType, *, nulls_first: bool, descending: bool) -> exp.Expr:
    """``array`` sorted as Spark's stable sort does. DuckDB's ``list_sort`` is right but for a
    float's ``-0.0``, which it turns into ``0.0`` (Spark keeps it, after or before an equal
    ``0.0`` as in the input): floats are sorted by (NULL rank, value, position) and read back
    from the input by position. So are arrays and structs, by a key that DuckDB orders as Spark
    orders them (:func:`~vpush.optimizer.spark_ordering.nested_sort_key`: a NULL inside first)."""
    if not _fractional(element) and _flat(element):
        order = exp.Literal.string("DESC" if descending else "ASC")
        nulls = exp.Literal.string("NULLS FIRST" if nulls_first else "NULLS LAST")
        return _f("list_sort", array.copy(), order, nulls)
    # descending: sort ascending with NULLs first and later positions first, then reverse
    rank = exp.Not(this=_is_null(_var(_X))) if nulls_first or descending else _is_null(_var(_X))
    order_key: exp.Expr = exp.Neg(this=_var(_I)) if descending else _var(_I)
    key = _f("struct_pack", exp.PropertyEQ(this=exp.to_identifier("n"), expression=rank),
             exp.PropertyEQ(this=exp.to_identifier("x"), expression=nested_sort_key(_var(_X), element) or _var(_X)),
             exp.PropertyEQ(this=exp.to_identifier("o"), expression=order_key),
             exp.PropertyEQ(this=exp.to_identifier("i"), expression=_var(_I)))

    def by_position(bound: exp.Expr) -> exp.Expr:
        keys = _f("list_sort", _f("list_transform", bound.copy(), _lambda(key, _X, _I)), exp.Literal.string("ASC"))
        picked = _f("list_extract", bound.copy(), _f("struct_extract", _var(_K), exp.Literal.string("i")))
        out = _f("list_transform", keys, _lambda(picked, _K))
        return _f("list_reverse", out) if descending else out

    return _bound(array, _A, by_position)


def _nested_extreme(array: exp.Expr, element: SparkType, *, largest: bool) -> exp.Expr:
    """Spark's ``array_max`` (``largest``) or ``array_min`` of arrays or structs: the first of the
    non-NULL elements that no later one passes in Spark's order (``ArrayMax`` keeps its extreme
    unless an element is strictly greater), NULL where there is none. Each element's key
    (:func:`~vpush.optimizer.spark_ordering.nested_sort_key`: a NULL inside first, ``-0.0`` equal
    to ``0.0``, NaN last) goes with its position, negated for the largest so that the first of
    equal keys wins; DuckDB's ``list_max``/``list_min`` skip the NULL elements' NULL keys."""
    key = nested_sort_key(_var(_X), element)
    if key is None:
        _refuse("array_max" if largest else "array_min", f"arrays of {element.to_spark()} (nested or variant elements compare otherwise in DuckDB)")
    place: exp.Expr = exp.Neg(this=_var(_I)) if largest else _var(_I)
    keyed = _f("struct_pack", exp.PropertyEQ(this=exp.to_identifier("k"), expression=key),
               exp.PropertyEQ(this=exp.to_identifier("o"), expression=place),
               exp.PropertyEQ(this=exp.to_identifier("i"), expression=_var(_I)))
    each = exp.Case(ifs=[exp.If(this=_is_null(_var(_X)), true=exp.Null())], default=keyed)

    def extreme(bound: exp.Expr) -> exp.Expr:
        best = _f("list_max" if largest else "list_min", _f("list_transform", bound.copy(), _lambda(each, _X, _I)))
        return _f("list_extract", bound.copy(), _f("struct_extract", best, exp.Literal.string("i")))

    return _bound(array, _A, extreme)


def _array_of(called: str, node: exp.Expr, of: TypeOf, *, flat: bool = True, nested: bool = False) -> ArrayType:
    """The array type of ``node``; with ``flat``, refused unless its elements are :func:`_flat`
    (or, with ``nested``, :func:`_comparable`)."""
    t = of(node)
    if not isinstance(t, ArrayType) or t.element is None:
        _refuse(called, "an argument that is not an array of a type vpush knows")
    if flat and not (_flat(t.element) or (nested and _comparable(t.element))):
        _refuse(called, f"arrays of {t.element.to_spark()} (nested or variant elements compare otherwise in DuckDB)")
    return t


def _with_value(called: str, array: exp.Expr, value: exp.Expr, of: TypeOf, *, flat: bool = True,
                cast: NestedCast | None = None) -> tuple[exp.Expr, exp.Expr, SparkType]:
    """``array`` and ``value`` coerced to one element type as Spark does (equal types, a NULL
    value, the wider integer; with ``cast``, Spark's tightest common type of any two, each part
    cast by Spark's cast), or refused."""
    source = _array_of(called, array, of, flat=flat, nested=cast is not None)
    if isinstance(value, exp.Null):
        return array, _as(value, None, source.element), source.element
    element = _common(source.element, of(value))
    given = of(value)
    if element is None and cast is not None and given is not None:
        wide = _coerced_element(called, [source, given], value=True)
        if wide is not None:
            if flat and not _comparable(wide):
                _refuse(called, f"arrays of {wide.to_spark()} (nested or variant elements compare otherwise in DuckDB)")
            return _cast_as(array, source, ArrayType(wide), cast), _cast_as(value, given, wide, cast), wide
    if element is None:
        given = of(value)
        if given is not None and no_wider_type(source.element, given):
            raise different_element_types(called, [source, given], value=True)
        _refuse(called, "a value of another type than the array's elements (Spark's coercion)")
    return _as(array, source, ArrayType(element)), _as(value, of(value), element), element


def _cast_as(node: exp.Expr, have: SparkType, want: SparkType, cast: NestedCast) -> exp.Expr:
    return node if have == want else cast(node, have, want)


def _two_arrays(called: str, left: exp.Expr, right: exp.Expr, of: TypeOf,
                cast: NestedCast | None = None) -> tuple[exp.Expr, exp.Expr, SparkType]:
    """``left`` and ``right`` coerced to one element type as Spark does (equal types, numbers
    widened; with ``cast``, Spark's tightest common type of any two, each cast by Spark's cast),
    or refused."""
    nested = cast is not None
    a, b = _array_of(called, left, of, nested=nested), _array_of(called, right, of, nested=nested)
    element = _common(a.element, b.element)
    if element is None and cast is not None:
        wide = _coerced_element(called, [a, b], value=False)
        if wide is not None:
            if not _comparable(wide):
                _refuse(called, f"arrays of {wide.to_spark()} (nested or variant elements compare otherwise in DuckDB)")
            return _cast_as(left, a, ArrayType(wide), cast), _cast_as(right, b, ArrayType(wide), cast), wide
    if element is None:
        datetimes = all(isinstance(t, AtomicType) and t.name in ("date", "timestamp", "timestamp_ntz") for t in (a.element, b.element))
        if not datetimes and not tightest_common(a.element, b.element):
            raise different_element_types(called, [a, b], value=False)
        _refuse(called, "arrays of different element types (Spark's coercion)")
    return _as(left, a, ArrayType(element)), _as(right, b, ArrayType(element)), element


def _int_argument(called: str, node: exp.Expr, of: TypeOf, what: str) -> exp.Expr:
    t = of(node)
    if isinstance(node, exp.Null):
        return exp.cast(node, exp.DataType.build("INT"))
    if not (isinstance(t, AtomicType) and t.name in ("tinyint", "smallint", "int")):
        _refuse(called, f"a {what} that is not an int")
    return node


def _parameter_error(called: str, parameter: str, expects: str, value: exp.Expr) -> exp.Expression:
    text = exp.DPipe(
        this=exp.Literal.string(f"The value of parameter(s) `{parameter}` in `{called}` is invalid: {expects}, but got "),
        expression=exp.DPipe(this=exp.cast(value.copy(), exp.DataType.build("VARCHAR")), expression=exp.Literal.string(".")),
    )
    return spark_error(f"INVALID_PARAMETER_VALUE.{parameter.upper()}", text, None)


def _too_long(called: str, count: exp.Expr) -> exp.Expression:
    """Spark's error for an array longer than :data:`MAX_ARRAY_LENGTH`: each function raises its
    own (``array_repeat``'s generated code allocates the array, and fails there)."""
    limit = f"the array size limit {MAX_ARRAY_LENGTH}"
    if called == "array_repeat":
        error_class, before, after = ("_LEGACY_ERROR_TEMP_2176", "Cannot create array with ",
                                      f" elements of data due to exceeding the limit {MAX_ARRAY_LENGTH} elements for ArrayData.  array_repeat failed.")
    elif called == "array_insert":
        error_class, before, after = ("COLLECTION_SIZE_LIMIT_EXCEEDED.FUNCTION", "Can't create array with ",
                                      f" elements which exceeding {limit}, unsuccessful try to create arrays in the function `{called}`.")
    else:
        error_class, before, after = ("COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER", "Can't create array with ",
                                      f" elements which exceeding {limit}, the value of parameter(s) `count` in the function `{called}` is invalid.")
    text = exp.DPipe(this=exp.Literal.string(before),
                     expression=exp.DPipe(this=exp.cast(count.copy(), exp.DataType.build("VARCHAR")), expression=exp.Literal.string(after)))
    return spark_error(error_class, text, None)


def _count(count: exp.Expr) -> exp.Expression:
    """``count`` for DuckDB's ``range``, 0 past Spark's largest array. DuckDB folds a constant
    ``range`` when it plans the query, in every branch of a ``CASE``: the branch that raises
    Spark's error must not build the array first."""
    return exp.Case(ifs=[exp.If(this=exp.GT(this=count.copy(), expression=exp.Literal.number(MAX_ARRAY_LENGTH)), true=exp.Literal.number(0))],
                    default=_f("greatest", count, exp.Literal.number(0)))


def _three_valued(truths: exp.Expr, decisive: bool) -> exp.Expression:
    """Spark's ``exists`` (``decisive`` true) and ``forall`` (false) over a list of booleans: the
    decisive value if any element has it, else NULL if any is NULL, else its opposite."""
    hit = _f("list_contains", truths.copy(), exp.Boolean(this=decisive))
    unknown = exp.LT(this=_f("list_count", truths.copy()), expression=_f("len", truths.copy()))
    return exp.Case(
        ifs=[exp.If(this=_is_null(truths), true=exp.cast(exp.Null(), exp.DataType.build("BOOLEAN"))),
             exp.If(this=hit, true=exp.Boolean(this=decisive)),
             exp.If(this=unknown, true=exp.cast(exp.Null(), exp.DataType.build("BOOLEAN")))],
        default=exp.Boolean(this=not decisive),
    )


def _duckdb_lambda(called: str, lam: exp.Expr, arity: tuple[int, ...]) -> exp.Lambda:
    """A Spark lambda as DuckDB's: Spark's index variable counts from 0 as an ``int``, DuckDB's
    from 1 as a ``bigint``, so each use of it becomes ``CAST(i - 1 AS INT)``."""
    if not isinstance(lam, exp.Lambda) or len(lam.expressions) not in arity:
        _refuse(called, "this argument in place of a lambda")
    if len(lam.expressions) == 2 and called not in ("aggregate", "reduce"):
        index = lam.expressions[1].name.lower()
        body = lam.this
        for ref in list(body.find_all(exp.Column, exp.Identifier)):
            if variable_reference(ref) and ref.name.lower() == index:
                zero_based = exp.cast(exp.Paren(this=exp.Sub(this=_var(_I), expression=exp.Literal.number(1))), exp.DataType.build("INT"))
                if ref is body:
                    body = zero_based
                else:
                    ref.replace(zero_based)
        return _lambda(body, lam.expressions[0].name, _I)
    return lam


def rewrite_array_function(called: str, arguments: list[exp.Expr], of: TypeOf, result: SparkType | None,
                           cast: NestedCast | None = None) -> exp.Expr:
    """``called(*arguments)`` (arguments already rewritten) as DuckDB SQL giving Spark's answer;
    ``cast`` coerces an argument of another type than Spark's common one (without it, refused).

    Example:
        >>> ints = {"a": ArrayType(_INT)}
        >>> rewrite_array_function("array_compact", [exp.column("a")], lambda n: ints.get(n.name), None).sql("duckdb")
        'LIST_FILTER(a, LAMBDA __vpush_x : NOT __vpush_x IS NULL)'

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for a form vpush does not answer as Spark.
    """
    count = len(arguments)
    if called in ("array_distinct", "array_compact", "array_max", "array_min", "flatten") and count == 1:
        array = arguments[0]
        source = _array_of(called, array, of, flat=called not in ("flatten", "array_compact", "array_max", "array_min"),
                           nested=called == "array_distinct")
        if called == "array_distinct":
            return _normalized(_bound(array, _A, _distinct), source.element)
        if called == "array_compact":
            return _f("list_filter", array.copy(), _lambda(exp.Not(this=_is_null(_var(_X))), _X))
        if called in ("array_max", "array_min") and not _flat(source.element):
            return _nested_extreme(array, source.element, largest=called == "array_max")
        if called in ("array_max", "array_min"):
            extreme = "list_max" if called == "array_max" else "list_min"
            if source.element in (AtomicType("double"), AtomicType("float")):
                # Spark keeps the first element of the extreme value, -0.0 and 0.0 being one value
                # (array_max([-0.0, 0.0]) is -0.0); DuckDB's list_max gives another
                def first_extreme(a: exp.Expr) -> exp.Expr:
                    def first_equal(m: exp.Expr) -> exp.Expr:
                        equal = _f("list_filter", a.copy(), _lambda(exp.EQ(this=_var(_X), expression=m.copy()), _X))
                        return _f("list_extract", equal, exp.Literal.number(1))
                    return _bound(_f(extreme, a.copy()), _M, first_equal)
                return _bound(array, _A, first_extreme)
            return _f(extreme, array)
        if not isinstance(source.element, ArrayType):
            _refuse(called, "an argument that is not an array of arrays")
        # Spark: NULL when the array or any array in it is NULL; DuckDB skips a NULL inner array
        holes = exp.LT(this=_f("list_count", array.copy()), expression=_f("len", array.copy()))
        flat_type = source.element.to_sql_type()
        assert flat_type is not None
        return exp.Case(ifs=[exp.If(this=exp.Or(this=_is_null(array), expression=holes), true=exp.cast(exp.Null(), flat_type))],
                        default=_f("flatten", array.copy()))
    if called in ("sort_array", "array_sort") and count in (1, 2):
        source = _array_of(called, arguments[0], of, flat=False)
        if not _flat(source.element) and nested_sort_key(exp.column("x"), source.element) is None:
            _refuse(called, f"arrays of {source.element.to_spark()} (nested or variant elements compare otherwise in DuckDB)")
        if called == "array_sort":
            if count == 2:
                _refuse(called, "a comparator lambda")
            return _sorted(arguments[0], source.element, nulls_first=False, descending=False)
        ascending = arguments[1] if count == 2 else exp.true()
        if not isinstance(ascending, exp.Boolean):
            _refuse(called, "an order that is not the literal true or false")
        asc = bool(ascending.this)
        return _sorted(arguments[0], source.element, nulls_first=asc, descending=not asc)
    if called == "array_join" and count in (2, 3):
        source = _array_of(called, arguments[0], of)
        if not (isinstance(source.element, StringType) or _is_integral(source.element) or source.element == VOID):
            _refuse(called, "arrays of elements other than strings and integers (Spark's cast to string)")
        delimiter = arguments[1]
        if not (isinstance(delimiter, exp.Null) or (isinstance(delimiter, exp.Literal) and delimiter.is_string)):
            _refuse(called, "a delimiter that is not a literal string (DuckDB's array_to_string takes a constant)")
        if count == 3 and not isinstance(of(arguments[2]), StringType) and not isinstance(arguments[2], exp.Null):
            _refuse(called, "a null replacement that is not a string")
        texts: exp.Expr = arguments[0]
        if not isinstance(source.element, StringType):
            texts = exp.cast(texts, exp.DataType.build("VARCHAR[]"))
        if count == 3:
            texts = _f("list_transform", texts, _lambda(exp.Coalesce(this=_var(_X), expressions=[arguments[2].copy()]), _X))
        # DuckDB's is NULL for an array of NULLs only, Spark's the empty string
        joined = _f("coalesce", _f("array_to_string", texts, arguments[1].copy()), exp.Literal.string(""))
        return _null_if_any(joined, StringType(), *arguments)
    if called == "array_position" and count == 2:
        array, value, _ = _with_value(called, arguments[0], arguments[1], of, cast=cast)
        found = _f("coalesce", _f("list_position", array.copy(), value.copy()), exp.Literal.number(0))
        return _null_if_any(exp.cast(found, exp.DataType.build("BIGINT")), _BIGINT, array, value)
    if called == "array_remove" and count == 2:
        array, value, element = _with_value(called, arguments[0], arguments[1], of, cast=cast)
        # a NULL element is kept: Spark compares only non-NULL elements
        keep = exp.Or(this=_is_null(_var(_X)), expression=exp.NEQ(this=_var(_X), expression=value.copy()))
        return _null_if_any(_f("list_filter", array.copy(), _lambda(keep, _X)), ArrayType(element), array, value)
    if called in ("array_union", "array_intersect", "array_except", "arrays_overlap") and count == 2:
        left, right, element = _two_arrays(called, arguments[0], arguments[1], of, cast)
        if called == "arrays_overlap":
            return _bound(right, _B, lambda r: _overlap(left, r))

        def combined(a: exp.Expr, b: exp.Expr) -> exp.Expr:
            if called == "array_union":
                # the first occurrences in a, then those in b of elements not in a
                fresh = _f("list_filter", _distinct(b), _lambda(exp.Not(this=_contains(a, _var(_X))), _X))
                return _f("list_concat", _distinct(a), fresh)
            found = _contains(b, _var(_X))
            test = found if called == "array_intersect" else exp.Not(this=found)
            return _f("list_filter", _distinct(a), _lambda(test, _X))

        value = _bound(left, _A, lambda a: _bound(right, _B, lambda b: combined(a, b)))
        return _null_if_any(_normalized(value, element), ArrayType(element), left, right)
    if called == "slice" and count == 3:
        return _slice(arguments[0], _int_argument(called, arguments[1], of, "start"), _int_argument(called, arguments[2], of, "length"), of)
    if called in ("array_append", "array_prepend") and count == 2:
        array, value, element = _with_value(called, arguments[0], arguments[1], of, flat=False, cast=cast)
        built = _f("list_append", array.copy(), value) if called == "array_append" else _f("list_prepend", value, array.copy())
        return _null_if_any(built, ArrayType(element), array)
    if called == "array_repeat" and count == 2:
        value, times = arguments[0], _int_argument(called, arguments[1], of, "count")
        if not isinstance(value, exp.Null) and of(value) is None:
            _refuse(called, "a value of a type vpush does not know")
        length = _count(exp.cast(times.copy(), exp.DataType.build("BIGINT")))
        repeated = _bound(value, _A, lambda v: _f("list_transform", _f("range", length), _lambda(v.copy(), _X)))
        repeated_type = result.to_sql_type() if result is not None else None
        assert repeated_type is not None
        return exp.Case(ifs=[exp.If(this=_is_null(times), true=exp.cast(exp.Null(), repeated_type)),
                             exp.If(this=exp.GT(this=times.copy(), expression=exp.Literal.number(MAX_ARRAY_LENGTH)), true=_too_long(called, times))],
                        default=repeated)
    if called in ("exists", "forall", "filter", "transform") and count == 2:
        _array_of(called, arguments[0], of, flat=False)
        body = of(arguments[1].this) if isinstance(arguments[1], exp.Lambda) else None
        if called != "transform" and body is not None and body != _BOOLEAN:
            _refuse(called, f"a lambda of type {body.to_spark()} (Spark requires a boolean)")
        lam = _duckdb_lambda(called, arguments[1], (1, 2))
        if called == "filter":
            return _f("list_filter", arguments[0], lam)
        mapped = _f("list_transform", arguments[0], lam)
        if called == "transform":
            return mapped
        return _three_valued(mapped, decisive=called == "exists")
    if called in ("aggregate", "reduce") and count in (3, 4):
        return _aggregate(called, arguments, of, result)
    if called == "sequence" and count in (2, 3):
        return _sequence(arguments, of, result)
    if called == "array_insert" and count == 3:
        return _insert(arguments, of, cast)
    if called == "map_entries" and count == 1:
        if not isinstance(of(arguments[0]), MapType):
            _refuse(called, "an argument that is not a map of a type vpush knows")
        return _f("map_entries", arguments[0])  # a list of struct(key, value), in the map's order
    if called in _MAP_LAMBDAS and count == 2:
        return _map_lambda(called, arguments, of, result)
    if called == "arrays_zip" and count >= 1:
        return _zip(arguments, result)
    if called == "zip_with" and count == 3:
        return _zip_with(arguments, result)
    if called == "transform_keys" and count == 2:
        return _transform_keys(arguments, of, result)
    if called == "map_concat" and count >= 1:
        return _map_concat(_coerced_maps(arguments, of, result, cast), result)
    if called == "map_zip_with" and count == 3:
        return _map_zip_with(arguments, of, result)
    _refuse(called, "this form")


# Map keys DuckDB compares as Spark does (no floats: Spark's NaN and -0.0 keys; no nested values)
_PLAIN_KEYS = (*(AtomicType(n) for n in _INTEGRAL), StringType(), _BOOLEAN, AtomicType("date"), AtomicType("float"), AtomicType("double"))
_DOUBLE = AtomicType("double")
_EXACT_IN_DOUBLE = (AtomicType("tinyint"), AtomicType("smallint"), _INT, AtomicType("float"))
"""Keys a cast to a double keeps apart (a bigint's may not: 2^53 + 1 is 2^53)."""


def _concat_maps_type(types: list[SparkType | None]) -> SparkType | None:
    """The type of ``map_concat`` of maps of ``types``: Spark's ``findWiderCommonType`` of them (a
    string value beside a number a bigint, read strictly), where vpush knows how to cast each
    map to it (its keys the same, or integers widened); else None."""
    maps = [t for t in types if isinstance(t, MapType)]
    if not maps or len(maps) < len(types):
        return None
    if all(t == maps[0] for t in maps):
        return maps[0]
    if not all(coercible(t) for t in maps):
        return None
    wide = nested_common_type(list(maps))
    if not isinstance(wide, MapType):
        return None
    def keys_cast(t: MapType) -> bool:
        # integers widened, or numbers cast to doubles (a bigint's or decimal's by the rewrite's
        # cast, refused where two keys of one map become one: spark_semantics._rekeyed_map)
        return t.value == wide.value and ((_is_integral(t.key) or isinstance(t.key, DecimalType) or t.key in _EXACT_IN_DOUBLE)
                                          if wide.key == _DOUBLE else _is_integral(t.key))

    if any(t.key != wide.key and not keys_cast(t) for t in maps):
        return None  # (a map's keys cast: Spark keeps only keys a cast makes equal, vpush no such rule)
    return wide


def _coerced_maps(arguments: list[exp.Expr], of: TypeOf, result: SparkType | None, cast: NestedCast | None) -> list[exp.Expr]:
    """``map_concat``'s maps each cast to ``result`` (:func:`_concat_maps_type`): its values by
    Spark's cast (``cast``), integer keys widened by DuckDB's cast, which is Spark's."""
    out = []
    for argument in arguments:
        kind = of(argument)
        if not isinstance(result, MapType) or kind == result or isinstance(argument, exp.Null):
            out.append(argument)
        elif isinstance(kind, MapType) and cast is not None and (kind.key == result.key or (
                result.key == _DOUBLE and kind.key not in _EXACT_IN_DOUBLE)):
            out.append(cast(argument, kind, result))
        elif isinstance(kind, MapType) and (_is_integral(kind.key) or kind.key in _EXACT_IN_DOUBLE):
            out.append(_as(argument, kind, result))
        else:
            _refuse("map_concat", "maps of different types vpush does not cast as Spark does")
    return out


def _map_concat(arguments: list[exp.Expr], result: SparkType | None) -> exp.Expr:
    """Spark's ``map_concat``: the maps' entries in order; NULL where a map is NULL; a key in two
    of them raises ``DUPLICATED_MAP_KEY`` (Spark's default ``mapKeyDedupPolicy``)."""
    if not isinstance(result, MapType) or result.key not in _PLAIN_KEYS:
        _refuse("map_concat", "maps of different types (Spark's coercion), or keys that are not integers, floats, doubles, strings, "
                "booleans or dates")
    assert isinstance(result, MapType)  # for mypy: refused above
    if len(arguments) == 1:
        return arguments[0]
    entries = _f("list_concat", *[_f("map_entries", a.copy()) for a in arguments])
    if _fractional(result.key):
        # Spark's map builder normalizes a float key's -0.0 to 0.0; DuckDB's list_position finds
        # an equal key as Spark's ordering does (-0.0 equal to 0.0, NaN to NaN)
        key, value = exp.column("key", table=_E), exp.column("value", table=_E)
        zero = exp.cast(exp.Literal.number(0), result.key.to_sql_type() or exp.DataType.build("DOUBLE"))
        normal = exp.Case(ifs=[exp.If(this=exp.EQ(this=key.copy(), expression=exp.Literal.number(0)), true=zero)], default=key.copy())
        entries = _f("list_transform", entries, _lambda(_f("struct_pack", exp.PropertyEQ(this=exp.to_identifier("key"), expression=normal),
                                                             exp.PropertyEQ(this=exp.to_identifier("value"), expression=value)), _E))

    def checked(all_entries: exp.Expr) -> exp.Expr:
        keys = _f("list_transform", all_entries.copy(), _lambda(exp.column("key", table=_E), _E))
        repeated = _f("list_filter", keys.copy(), _lambda(
            exp.LT(this=_f("list_position", keys.copy(), _var(_X)), expression=_var(_I)), _X, _I))
        text = exp.DPipe(this=exp.DPipe(this=exp.Literal.string("Duplicate map key "),
                                        expression=exp.cast(_f("list_extract", repeated, exp.Literal.number(1)), exp.DataType.build("VARCHAR"))),
                         expression=exp.Literal.string(" was found, please check the input data."))
        duplicated = exp.GT(this=_f("len", repeated.copy()), expression=exp.Literal.number(0))
        return exp.Case(ifs=[exp.If(this=duplicated, true=spark_error("DUPLICATED_MAP_KEY", text, None))],
                        default=_f("map_from_entries", all_entries.copy()))

    return _null_if_any(_bound(entries, _B, checked), result, *arguments)


def _zip_name(argument: exp.Expr, position: int) -> str:
    """The name Spark gives ``arrays_zip``'s field for an argument: a column's name, else its
    position from 0."""
    return argument.name if isinstance(argument, exp.Column) and not isinstance(argument.this, exp.Star) else str(position)


def _zip(arguments: list[exp.Expr], result: SparkType | None) -> exp.Expr:
    """Spark's ``arrays_zip``: the i-th elements of every array as a struct, as long as the
    longest array (NULL past a shorter one's end); NULL where an array is NULL."""
    if not isinstance(result, ArrayType) or not isinstance(result.element, StructType):
        _refuse("arrays_zip", "arguments that are not arrays of types vpush knows")
    assert isinstance(result, ArrayType) and isinstance(result.element, StructType)  # for mypy: refused above
    inside = arguments[0].parent if arguments else None
    while inside is not None and call_name(inside) != "typeof":
        inside = inside.parent
    if len({f.name.lower() for f in result.element.fields}) < len(result.element.fields) and inside is None:
        # (under typeof only its type is given, which vpush knows)
        _refuse("arrays_zip", "arrays of the same name (DuckDB's structs take a field name once)")
    lengths = [_f("len", a.copy()) for a in arguments]
    longest = lengths[0] if len(lengths) == 1 else _f("greatest", *lengths)
    fields = [
        exp.PropertyEQ(this=exp.to_identifier(field.name, quoted=True),
                       expression=_f("list_extract", a.copy(), exp.Add(this=_var(_I), expression=exp.Literal.number(1))))
        for field, a in zip(result.element.fields, arguments)
    ]
    zipped = _f("list_transform", _f("range", longest), _lambda(exp.Struct(expressions=fields), _I))
    return _null_if_any(zipped, result, *arguments)


def _substituted(body: exp.Expr, variables: dict[str, Callable[[], exp.Expr]]) -> exp.Expr:
    """``body`` with each use of a lambda variable named in ``variables`` replaced by what its
    function gives."""
    for ref in list(body.find_all(exp.Column, exp.Identifier)):
        if variable_reference(ref) and ref.name.lower() in variables:
            value = variables[ref.name.lower()]()
            if ref is body:
                body = value
            else:
                ref.replace(value)
    return body


def _zip_with(arguments: list[exp.Expr], result: SparkType | None) -> exp.Expr:
    """Spark's ``zip_with(a, b, (x, y) -> e)``: ``e`` of the i-th elements, as long as the longer
    array (NULL past the shorter one's end); NULL where an array is NULL."""
    left, right, lam = arguments
    if not isinstance(result, ArrayType) or not isinstance(lam, exp.Lambda) or len(lam.expressions) != 2 or lam.this.find(exp.Lambda):
        _refuse("zip_with", "arguments other than two arrays of types vpush knows and a lambda of two variables (without lambdas in it)")
    assert isinstance(lam, exp.Lambda) and result is not None  # for mypy: refused above

    def element(array: exp.Expr) -> Callable[[], exp.Expr]:
        return lambda: _f("list_extract", array.copy(), exp.Add(this=_var(_I), expression=exp.Literal.number(1)))

    x, y = (v.name.lower() for v in lam.expressions)
    body = _substituted(lam.this, {x: element(left), y: element(right)})
    longest = _f("greatest", _f("len", left.copy()), _f("len", right.copy()))
    return _null_if_any(_f("list_transform", _f("range", longest), _lambda(body, _I)), result, left, right)


def _zip_key(types: list[SparkType | None]) -> SparkType | None:
    """The key type of ``map_zip_with``'s two maps as Spark coerces them (equal keys, or the wider of
    two integers), where DuckDB compares those keys as Spark does; else None."""
    if len(types) < 2 or not all(isinstance(t, MapType) for t in types[:2]):
        return None
    first, second = types[0], types[1]
    assert isinstance(first, MapType) and isinstance(second, MapType)  # for mypy: checked above
    key = _common(first.key, second.key)
    return key if key in _PLAIN_KEYS else None


def _map_zip_with(arguments: list[exp.Expr], of: TypeOf, result: SparkType | None) -> exp.Expr:
    """Spark's ``map_zip_with(m1, m2, (k, v1, v2) -> e)``: the map of ``e`` to each key of ``m1``,
    in its order, then each key of ``m2`` that ``m1`` lacks, in ``m2``'s order, ``v1`` and ``v2``
    being the key's value in each map (NULL where it lacks the key); NULL where a map is NULL."""
    left, right, lam = arguments
    if not (isinstance(result, MapType) and isinstance(lam, exp.Lambda) and len(lam.expressions) == 3 and not lam.this.find(exp.Lambda)):
        _refuse("map_zip_with", "arguments other than two maps keyed alike by integers, strings, booleans or dates and a lambda "
                "of three variables (without lambdas in it)")
    assert isinstance(result, MapType) and isinstance(lam, exp.Lambda)  # for mypy: refused above
    key_type = exp.DataType.build(f"{result.key.to_sql_type().sql('duckdb')}[]", dialect="duckdb")  # type: ignore[union-attr]
    left_keys, right_keys = (exp.cast(_f("map_keys", m.copy()), key_type) for m in (left, right))
    more = _f("list_filter", right_keys, _lambda(exp.Not(this=_f("list_contains", left_keys.copy(), _var(_X))), _X))
    keys = _f("list_concat", left_keys, more)

    def value(m: exp.Expr, m_keys: exp.Expr) -> Callable[[], exp.Expr]:
        return lambda: _f("list_extract", _f("map_values", m.copy()), _f("list_position", m_keys.copy(), _var(_K)))

    k, v1, v2 = (v.name.lower() for v in lam.expressions)
    body = _substituted(lam.this, {k: lambda: _var(_K), v1: value(left, left_keys), v2: value(right, right_keys)})
    zipped = _f("map", keys.copy(), _f("list_transform", keys, _lambda(body, _K)))
    return _null_if_any(zipped, result, left, right)


def _transform_keys(arguments: list[exp.Expr], of: TypeOf, result: SparkType | None) -> exp.Expr:
    """Spark's ``transform_keys(m, (k, v) -> e)``: the map of ``e`` to each value, in the map's
    order; a NULL new key raises ``NULL_MAP_KEY`` and a repeated one ``DUPLICATED_MAP_KEY``."""
    source, lam = of(arguments[0]), arguments[1]
    if not (isinstance(source, MapType) and isinstance(lam, exp.Lambda) and len(lam.expressions) == 2 and not lam.this.find(exp.Lambda)
            and isinstance(result, MapType) and result.key in _PLAIN_KEYS):
        _refuse("transform_keys", "arguments other than a map and a lambda of two variables giving integers, strings, booleans or dates")
    assert isinstance(lam, exp.Lambda)  # for mypy: refused above
    k, v = (name.name.lower() for name in lam.expressions)
    body = _substituted(lam.this, {k: lambda: exp.column("key", table=_E), v: lambda: exp.column("value", table=_E)})
    keys = _f("list_transform", _f("map_entries", arguments[0].copy()), _lambda(body, _E))
    return map_from_arrays_checked(keys, _f("map_values", arguments[0]))


def _map_lambda(called: str, arguments: list[exp.Expr], of: TypeOf, result: SparkType | None) -> exp.Expr:
    """Spark's ``map_filter(m, (k, v) -> p)`` and ``transform_values(m, (k, v) -> e)`` over the
    map's entries in its order: the lambda's variables become the entry's ``key`` and ``value``."""
    source, lam = of(arguments[0]), arguments[1]
    if not isinstance(source, MapType) or not isinstance(lam, exp.Lambda) or len(lam.expressions) != 2 or result is None:
        _refuse(called, "arguments other than a map of a type vpush knows and a lambda of two variables")
    assert isinstance(lam, exp.Lambda)  # for mypy: refused above
    body_type = of(lam.this)
    if called == "map_filter" and body_type is not None and body_type != _BOOLEAN:
        _refuse(called, f"a lambda of type {body_type.to_spark()} (Spark requires a boolean)")
    names = {v.name.lower(): part for v, part in zip(lam.expressions, ("key", "value"))}
    body = lam.this
    for ref in list(body.find_all(exp.Column, exp.Identifier)):
        if variable_reference(ref) and ref.name.lower() in names:
            field = exp.column(names[ref.name.lower()], table=_E)
            if ref is body:
                body = field
            else:
                ref.replace(field)
    entries = _f("map_entries", arguments[0])
    if called == "map_filter":
        kept = _f("list_filter", entries, _lambda(body, _E))
    else:
        pair = exp.Struct(expressions=[exp.PropertyEQ(this=exp.to_identifier("key"), expression=exp.column("key", table=_E)),
                                       exp.PropertyEQ(this=exp.to_identifier("value"), expression=body)])
        kept = _f("list_transform", entries, _lambda(pair, _E))
    return _f("map_from_entries", kept)


def _overlap(left: exp.Expr, right: exp.Expr) -> exp.Expression:
    """Spark's ``arrays_overlap``: true for a common non-NULL element; else NULL where both arrays
    are non-empty and either holds a NULL; else false. NULL for a NULL array."""
    common = exp.And(this=exp.Not(this=_is_null(_var(_X))), expression=_contains(right, _var(_X)))
    found = exp.GT(this=_f("len", _f("list_filter", left.copy(), _lambda(common, _X))), expression=exp.Literal.number(0))

    def holes(array: exp.Expr) -> exp.Expression:
        return exp.LT(this=_f("list_count", array.copy()), expression=_f("len", array.copy()))

    both = exp.And(this=exp.GT(this=_f("len", left.copy()), expression=exp.Literal.number(0)),
                   expression=exp.GT(this=_f("len", right.copy()), expression=exp.Literal.number(0)))
    unknown = exp.And(this=both, expression=exp.Paren(this=exp.Or(this=holes(left), expression=holes(right))))
    null = exp.cast(exp.Null(), exp.DataType.build("BOOLEAN"))
    return exp.Case(ifs=[exp.If(this=_any_null(left, right), true=null), exp.If(this=found, true=exp.true()),
                         exp.If(this=unknown, true=null.copy())], default=exp.false())


def _slice(array: exp.Expr, start: exp.Expr, length: exp.Expr, of: TypeOf) -> exp.Expression:
    """Spark's ``slice(a, start, length)``: 1-based, a negative start from the end, an empty array
    for a start outside; ``INVALID_PARAMETER_VALUE.START`` for 0 and ``.LENGTH`` for a negative
    length (only where no argument is NULL)."""
    source = _array_of("slice", array, of, flat=False)
    size = exp.cast(_f("len", array.copy()), exp.DataType.build("BIGINT"))
    wide = exp.cast(start.copy(), exp.DataType.build("BIGINT"))
    first = exp.Case(ifs=[exp.If(this=exp.LT(this=start.copy(), expression=exp.Literal.number(0)),
                                 true=exp.Add(this=wide.copy(), expression=size.copy()))],
                     default=exp.Sub(this=wide.copy(), expression=exp.Literal.number(1)))
    outside = exp.Or(this=exp.LT(this=first.copy(), expression=exp.Literal.number(0)), expression=exp.GTE(this=first.copy(), expression=size))
    piece = _f("list_slice", array.copy(), exp.Add(this=first.copy(), expression=exp.Literal.number(1)),
               exp.Add(this=first, expression=exp.cast(length.copy(), exp.DataType.build("BIGINT"))))
    empty = _f("list_slice", array.copy(), exp.Literal.number(1), exp.Literal.number(0))
    sql_type = source.to_sql_type()
    assert sql_type is not None
    return exp.Case(
        ifs=[exp.If(this=_any_null(array, start, length), true=exp.cast(exp.Null(), sql_type)),
             exp.If(this=exp.EQ(this=start.copy(), expression=exp.Literal.number(0)),
                    true=_parameter_error("slice", "start", "Expects a positive or a negative value for `start`", start)),
             exp.If(this=exp.LT(this=length.copy(), expression=exp.Literal.number(0)),
                    true=_parameter_error("slice", "length", "Expects `length` greater than or equal to 0", length)),
             exp.If(this=outside, true=empty)],
        default=piece,
    )


_PREDICATES = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ, exp.And, exp.Or, exp.Not, exp.Is, exp.In, exp.Between)


def _aggregate(called: str, arguments: list[exp.Expr], of: TypeOf, result: SparkType | None) -> exp.Expr:
    """Spark's ``aggregate``/``reduce(a, zero, merge[, finish])`` as DuckDB's ``list_reduce`` from
    ``zero``: the accumulator is ``zero``'s type, and Spark refuses a merge of another type."""
    array, zero, merge = arguments[0], arguments[1], arguments[2]
    _array_of(called, array, of, flat=False)
    zero_type = of(zero)
    if zero_type is None and isinstance(zero.unnest() if isinstance(zero, exp.Paren) else zero, _PREDICATES):
        zero_type = AtomicType("boolean")  # (a comparison or a condition, which the typer leaves untyped)
    if zero_type is None or not isinstance(merge, exp.Lambda) or of(merge.this) != zero_type:
        _refuse(called, "a merge whose type vpush does not know to be the zero's (Spark's coercion)")
    sql_type = zero_type.to_sql_type()
    assert sql_type is not None
    reduced: exp.Expr = _f("list_reduce", array, _duckdb_lambda(called, merge, (2,)), exp.cast(zero, sql_type))
    if len(arguments) == 4:
        finish = _duckdb_lambda(called, arguments[3], (1,))
        reduced = _f("list_extract", _f("list_transform", exp.Array(expressions=[reduced]), finish), exp.Literal.number(1))
    return reduced


def date_step(node: exp.Expr) -> tuple[str, int] | None:
    """A literal interval given as ``sequence``'s step over dates, as ``(unit, amount)``: ``MONTH``
    for a year-month interval, ``DAY`` for a day-time one of whole days (``INTERVAL 2 WEEKS``),
    ``MICROSECOND`` for another day-time one; None for anything else (not a literal).

    Example:
        >>> from vpush.optimizer.plan_query import parse_spark
        >>> [date_step(parse_spark(f"SELECT {i}").expressions[0]) for i in ("INTERVAL 1 YEAR", "-INTERVAL '2' WEEK", "INTERVAL 36 HOURS")]
        [('MONTH', 12), ('DAY', -14), ('MICROSECOND', 129600000000)]
        >>> [date_step(parse_spark(f"SELECT {i}").expressions[0]) for i in ("INTERVAL 1.5 SECONDS", "INTERVAL 1 DAY 0.25 SECONDS")]
        [('MICROSECOND', 1500000), ('MICROSECOND', 86400250000)]
    """
    sign = 1
    while isinstance(node, (exp.Paren, exp.Neg)):
        sign = -sign if isinstance(node, exp.Neg) else sign
        node = node.this
    if isinstance(node, exp.Add):
        parts: list[exp.Expr] = []
        pending: list[exp.Expr] = [node]
        while pending:
            part = pending.pop()
            if isinstance(part, exp.Add):
                pending += [part.expression, part.this]
            else:
                parts.append(part)
        joined = multi_unit_span(parts)
        if joined is None:
            # day-time units with a fraction of a second (INTERVAL 1 DAY 0.5 SECONDS): one
            # day-time interval of their sum, as Spark's parser reads them
            steps = [date_step(part) for part in parts]
            if any(step is None or step[0] == "MONTH" for step in steps):
                return None
            micros = sum(step[1] * (MICROS_PER_DAY if step[0] == "DAY" else 1) for step in steps if step is not None)
            node = exp.Interval(this=exp.Literal.string(str(micros)), unit=exp.var("MICROSECOND"))
        else:
            node = joined
    if not isinstance(node, exp.Interval):
        return None
    span = span_interval(node)
    if span is not None:
        unit, amount = span[0], span[1]
    else:
        word, value = node.args.get("unit"), node.this
        if not isinstance(word, exp.Var) or not isinstance(value, exp.Literal):
            return None
        name = word.name.upper()
        name = name[:-1] if name.endswith("S") else name
        text = value.name.strip()
        if name == "SECOND" and _SECONDS_FRACTION.match(text):
            # Spark's seconds with up to six decimals (INTERVAL 1.5 SECONDS, INTERVAL '0.25' SECOND)
            whole, _, fraction = text.lstrip("+-").partition(".")
            micros = int(whole or "0") * MICROS_PER_UNIT["SECOND"] + int(fraction.ljust(6, "0"))
            text, name = str(-micros if text.startswith("-") else micros), "MICROSECOND"
        if not text.lstrip("+-").isdigit():
            return None
        if name in MONTHS_PER_UNIT:
            unit, scale = "MONTH", MONTHS_PER_UNIT[name]
        elif name in ("WEEK", "DAY"):
            unit, scale = "DAY", MICROS_PER_UNIT[name] // MICROS_PER_DAY
        elif name in MICROS_PER_UNIT:
            unit, scale = "MICROSECOND", MICROS_PER_UNIT[name]
        else:
            return None
        amount = int(text) * scale
    amount *= sign
    if unit == "MICROSECOND" and amount % MICROS_PER_DAY == 0:
        return "DAY", amount // MICROS_PER_DAY
    return unit, amount


_SECONDS_FRACTION = re.compile(r"[+-]?\d*\.\d{1,6}\Z")
_DATE = AtomicType("date")
_TIMESTAMPS = (AtomicType("timestamp"), AtomicType("timestamp_ntz"))


def _sequence(arguments: list[exp.Expr], of: TypeOf, result: SparkType | None) -> exp.Expr:
    """Spark's ``sequence`` of integers: inclusive, a step of 1 or -1 by default; a step that
    does not lead from start to stop raises (Spark's message, no error class), as does a sequence
    longer than Spark's largest array. Of dates: see :func:`_date_sequence`."""
    if isinstance(result, ArrayType) and result.element in (_DATE, *_TIMESTAMPS):
        temporal_step = date_step(arguments[2]) if len(arguments) == 3 else ("DAY", 0)  # ("DAY", 0): by a day, either way
        if temporal_step is None:
            _refuse("sequence", f"{result.element.to_spark()}s by a step that is not an interval literal")
        return (_date_sequence if result.element == _DATE else _timestamp_sequence)(arguments, result, *temporal_step)
    if not isinstance(result, ArrayType) or not _is_integral(result.element):
        _refuse("sequence", "arguments other than integers, dates or timestamps of one type, or a step that is not an interval literal")
    wide = exp.DataType.build("BIGINT")
    a, b = exp.cast(arguments[0].copy(), wide), exp.cast(arguments[1].copy(), wide)
    step = exp.cast(arguments[2].copy(), wide) if len(arguments) == 3 else None
    return _integral_sequence(a, b, step, arguments, result, lambda series: series)


def _integral_sequence(a: exp.Expr, b: exp.Expr, given_step: exp.Expr | None, arguments: list[exp.Expr], result: ArrayType,
                       elements: Callable[[exp.Expr], exp.Expr], *, shown_step: exp.Expr | None = None) -> exp.Expr:
    """The sequence of bigints from ``a`` to ``b`` by ``given_step`` (1 or -1 where None), each
    element made by ``elements`` of the series; NULL where one of ``arguments`` is. Spark's error
    names the step as ``shown_step`` where given (else the step)."""
    step = given_step if given_step is not None else exp.Case(
        ifs=[exp.If(this=exp.LTE(this=a.copy(), expression=b.copy()), true=exp.Literal.number(1))], default=exp.Literal.number(-1))
    fine = exp.Or(
        this=exp.Or(this=exp.And(this=exp.GT(this=step.copy(), expression=exp.Literal.number(0)), expression=exp.LTE(this=a.copy(), expression=b.copy())),
                    expression=exp.And(this=exp.LT(this=step.copy(), expression=exp.Literal.number(0)), expression=exp.GTE(this=a.copy(), expression=b.copy()))),
        expression=exp.And(this=exp.EQ(this=step.copy(), expression=exp.Literal.number(0)), expression=exp.EQ(this=a.copy(), expression=b.copy())),
    )
    text = exp.DPipe(this=exp.Literal.string("requirement failed: Illegal sequence boundaries: "), expression=exp.DPipe(
        this=exp.cast(a.copy(), exp.DataType.build("VARCHAR")), expression=exp.DPipe(this=exp.Literal.string(" to "), expression=exp.DPipe(
            this=exp.cast(b.copy(), exp.DataType.build("VARCHAR")), expression=exp.DPipe(this=exp.Literal.string(" by "), expression=exp.cast(
                (shown_step if shown_step is not None else step).copy(), exp.DataType.build("VARCHAR")))))))
    hugeint = exp.DataType.build("HUGEINT")
    length = exp.Add(this=exp.IntDiv(this=exp.Paren(this=exp.Sub(this=exp.cast(b.copy(), hugeint), expression=exp.cast(a.copy(), hugeint))),
                                     expression=exp.Anonymous(this="nullif", expressions=[exp.cast(step.copy(), hugeint), exp.Literal.number(0)])),
                     expression=exp.Literal.number(1))
    sql_type = result.to_sql_type()
    assert sql_type is not None
    # the series DuckDB builds (and may fold when planning) is [a] where Spark raises
    safe_stop = exp.Case(ifs=[exp.If(this=exp.Not(this=exp.Paren(this=fine.copy())), true=a.copy()),
                              exp.If(this=exp.GT(this=length.copy(), expression=exp.Literal.number(MAX_ARRAY_LENGTH)), true=a.copy())],
                         default=b.copy())
    safe_step = exp.Case(ifs=[exp.If(this=exp.EQ(this=step.copy(), expression=exp.Literal.number(0)), true=exp.Literal.number(1))], default=step.copy())
    series = exp.Case(ifs=[exp.If(this=exp.EQ(this=a.copy(), expression=safe_stop.copy()), true=exp.Array(expressions=[a.copy()]))],
                      default=_f("generate_series", a.copy(), safe_stop, safe_step))
    return exp.Case(
        ifs=[exp.If(this=_any_null(*arguments), true=exp.cast(exp.Null(), sql_type)),
             exp.If(this=exp.Not(this=exp.Paren(this=fine)), true=spark_error("", text, None)),
             exp.If(this=exp.GT(this=length, expression=exp.Literal.number(MAX_ARRAY_LENGTH)), true=_too_long("sequence", length.copy()))],
        default=exp.cast(elements(series), sql_type),
    )


_EPOCH = exp.cast(exp.Literal.string("1970-01-01"), exp.DataType.build("DATE"))


def _timestamp_sequence(arguments: list[exp.Expr], result: ArrayType, unit: str, amount: int) -> exp.Expr:
    """Spark's ``sequence`` of timestamps (``TemporalSequenceImpl``): by a literal step of less
    than a day as its microseconds (``Illegal sequence boundaries`` with the boundaries' and the
    step's microseconds; a step of 0 only from a timestamp to itself); by months, by a step of a
    day or more (its whole days, then the rest), and by a day by default (back where the stop
    comes first), each ``start + i * step`` added in the session time zone's calendar
    (:func:`_calendar_sequence`)."""
    micros = amount * MICROS_PER_DAY if unit == "DAY" else amount
    if unit == "MONTH" and amount == 0:
        return _by_months(arguments, result, amount)
    if unit == "MONTH" or abs(micros) >= MICROS_PER_DAY or len(arguments) == 2:
        return _calendar_sequence(arguments, result, amount if unit == "MONTH" else 0, 0 if unit == "MONTH" else micros)
    wide = exp.DataType.build("BIGINT")
    start = exp.cast(arguments[0].copy(), result.element.to_sql_type())  # type: ignore[arg-type]
    a, b = (_f("epoch_us", exp.cast(t.copy(), result.element.to_sql_type())) for t in arguments[:2])  # type: ignore[arg-type]
    moment = exp.to_identifier("__vpush_us")
    return _integral_sequence(exp.cast(a, wide), exp.cast(b, wide), exp.Literal.number(micros), arguments[:2], result, lambda series: _f(
        "list_transform", series, exp.Lambda(this=exp.Add(this=start.copy(), expression=exp.Anonymous(this="to_microseconds", expressions=[
            exp.Sub(this=exp.column(moment.this), expression=exp.Paren(this=a.copy()))])), expressions=[moment])))


def _calendar_sequence(arguments: list[exp.Expr], result: ArrayType, months: int, micros: int) -> exp.Expr:
    """Spark's loop of ``TemporalSequenceImpl`` for a step of ``months`` or of ``micros`` (a day or
    more; the default step where there are two arguments): the ``i``-th element is
    ``timestampAddInterval(start, i * months, i * days, i * rest)`` (days and months moved in the
    session time zone's local time, :data:`TIMESTAMP_ADD_INTERVAL_FUNCTION`; a timestamp_ntz's in
    UTC; dates from their midnights in the session time zone, each element's date there), kept
    while it is at most the stop (going up) or at least the stop less a microsecond
    (going down: Spark's test is ``t < stop + sign`` negated). The boundaries are checked, and
    the array's length bounded, by the step estimated as microseconds (a month as 28 days), and
    Spark names the step in its error as it was given: months, or microseconds."""
    sql_type = result.to_sql_type()
    assert sql_type is not None
    ntz = result.element == _TIMESTAMPS[1]
    wide = exp.DataType.build("BIGINT")
    tz = exp.DataType.build("TIMESTAMPTZ")
    start, stop = ((_f("timezone", exp.Literal.string("UTC"), exp.cast(t.copy(), exp.DataType.build("TIMESTAMP"))) if ntz
                    else exp.cast(t.copy(), tz)) for t in arguments[:2])
    a, b = (exp.cast(_f("epoch_us", t), wide) for t in (start, stop))
    days = abs(micros) // MICROS_PER_DAY * (1 if micros >= 0 else -1)
    rest = micros - days * MICROS_PER_DAY
    day_step: exp.Expr = exp.Literal.number(days)
    if len(arguments) == 2:
        day_step = exp.Case(ifs=[exp.If(this=exp.LTE(this=a.copy(), expression=b.copy()), true=exp.Literal.number(1))],
                            default=exp.Literal.number(-1))
    estimated = exp.Mul(this=day_step.copy(), expression=exp.Literal.number(MICROS_PER_DAY)) if len(arguments) == 2 else \
        exp.Literal.number(months * 28 * MICROS_PER_DAY + micros)
    zone = exp.Literal.string("UTC") if ntz else exp.Anonymous(this="current_setting", expressions=[exp.Literal.string("TimeZone")])
    index, moment = exp.to_identifier("__vpush_i"), exp.to_identifier("__vpush_t")

    def times(amount: exp.Expr) -> exp.Expr:
        return exp.Mul(this=exp.column(index.this), expression=amount.copy())

    added = exp.Anonymous(this=TIMESTAMP_ADD_INTERVAL_FUNCTION, expressions=[
        start.copy(), times(exp.Literal.number(months)), times(day_step), times(exp.Literal.number(rest)), zone])
    going_up = months > 0 or micros > 0
    kept: exp.Expr = exp.LTE(this=_f("epoch_us", exp.column(moment.this)), expression=b.copy())
    if len(arguments) == 2 or not going_up:
        below = exp.GTE(this=_f("epoch_us", exp.column(moment.this)), expression=exp.Sub(this=b.copy(), expression=exp.Literal.number(1)))
        kept = below if len(arguments) == 3 else exp.Case(ifs=[exp.If(this=exp.LTE(this=a.copy(), expression=b.copy()), true=kept)], default=below)

    def elements(series: exp.Expr) -> exp.Expr:
        # the estimate counts a month as 28 days and a day as 24 hours: two more candidates cover
        # the days a change of offset shortens, and every element is a moved start (no loop)
        candidates = _f("range", exp.Literal.number(0), exp.Add(this=_f("len", series), expression=exp.Literal.number(2)))
        moved = _f("list_filter", _f("list_transform", candidates, exp.Lambda(this=added, expressions=[index])),
                   exp.Lambda(this=kept, expressions=[moment]))
        if ntz or result.element == _DATE:
            local = _f("timezone", exp.Literal.string("UTC"), exp.column(moment.this)) if ntz else \
                exp.cast(exp.column(moment.this), exp.DataType.build("DATE"))
            moved = _f("list_transform", moved, exp.Lambda(this=local, expressions=[moment]))
        return moved

    shown = None if len(arguments) == 2 else exp.Literal.number(months if months else micros)
    return _integral_sequence(a, b, estimated, arguments[:2], result, elements, shown_step=shown)


def _date_sequence(arguments: list[exp.Expr], result: ArrayType, unit: str, amount: int) -> exp.Expr:
    """Spark's ``sequence`` of dates (``TemporalSequenceImpl``): by a day by default (back by a
    day where the stop comes first); by a literal step of whole days as the integers of their
    days are (``Illegal sequence boundaries: 19727 to 19723 by 2``); by months as
    ``add_months(start, i * months)`` for each ``i`` up to the stop (Jan 31 by a month: Feb 29,
    Mar 31), a step that leads away from the stop raising with the boundaries as the
    microseconds of their midnights in the session time zone, the step as its months. A step of
    no whole day or month raises (Spark's ``sequence step must be an interval ... of day
    granularity``, no error class) for each row; a step of days and a part of a day (``INTERVAL 36
    HOURS``) moves each date's midnight in the session time zone (:func:`_calendar_sequence`)."""
    sql_type = result.to_sql_type()
    assert sql_type is not None
    days = [exp.Sub(this=exp.cast(a.copy(), exp.DataType.build("DATE")), expression=_EPOCH.copy()) for a in arguments[:2]]
    if unit == "DAY" and (amount != 0 or len(arguments) == 2):
        wide = exp.DataType.build("BIGINT")
        a, b = (exp.cast(d, wide) for d in days)
        given = exp.Literal.number(amount) if len(arguments) == 3 else None
        return _integral_sequence(a, b, given, arguments[:2], result, lambda series: _f(
            "list_transform", series, exp.Lambda(this=exp.Add(this=_EPOCH.copy(), expression=exp.cast(exp.column("__vpush_day"), exp.DataType.build("INT"))),
                                                 expressions=[exp.to_identifier("__vpush_day")])))
    if unit == "MICROSECOND" and abs(amount) >= MICROS_PER_DAY:
        return _calendar_sequence(arguments, result, 0, amount)
    if unit != "MONTH" or amount == 0:
        kind = "interval year to month" if unit == "MONTH" else "interval day to second"
        return spark_error("", exp.Literal.string(f"sequence step must be an {kind} of day granularity if start and end values are dates"),
                           sql_type)
    return _by_months(arguments, result, amount)


def _by_months(arguments: list[exp.Expr], result: ArrayType, amount: int) -> exp.Expr:
    """The sequence of dates or timestamps from the start by ``amount`` months, each
    ``start + i * amount`` months (the session time zone's calendar), up to the stop; Spark's error
    for a step that leads away from it (the boundaries as microseconds, the step as its months)."""
    sql_type = result.to_sql_type()
    element_type = result.element.to_sql_type()
    assert sql_type is not None and element_type is not None
    start, stop = (exp.cast(a.copy(), element_type) for a in arguments[:2])
    months_of = lambda d: exp.Paren(this=exp.Add(  # noqa: E731
        this=exp.Mul(this=exp.Anonymous(this="year", expressions=[d]), expression=exp.Literal.number(12)),
        expression=exp.Anonymous(this="month", expressions=[d.copy()])))
    # every i from 0 to the months between start and stop over the step, and one more; then
    # those up to the stop (add_months(start, i * m) only grows with i)
    last = exp.Add(this=exp.IntDiv(this=exp.Paren(this=exp.Sub(this=months_of(stop.copy()), expression=months_of(start.copy()))),
                                   expression=exp.Literal.number(amount)), expression=exp.Literal.number(1)) if amount else exp.Literal.number(0)
    index = exp.to_identifier("__vpush_month")
    moved = _f("list_transform", _f("range", exp.Literal.number(0), exp.Add(this=exp.Anonymous(this="greatest", expressions=[
        last, exp.Literal.number(0)]), expression=exp.Literal.number(1))), exp.Lambda(this=exp.cast(exp.Add(
            this=start.copy(), expression=exp.Anonymous(this="to_months", expressions=[
                exp.Mul(this=exp.cast(exp.column(index.this), exp.DataType.build("INT")), expression=exp.Literal.number(amount))])),
        element_type), expressions=[index]))
    element = exp.to_identifier("__vpush_date")
    kept = (exp.LTE if amount > 0 else exp.GTE)(this=exp.column(element.this), expression=stop.copy())
    series = _f("list_filter", moved, exp.Lambda(this=kept, expressions=[element]))
    fine = exp.EQ(this=start.copy(), expression=stop.copy()) if amount == 0 else (exp.LTE if amount > 0 else exp.GTE)(
        this=start.copy(), expression=stop.copy())
    micros = [_f("epoch_us", exp.cast(d.copy(), exp.DataType.build("TIMESTAMPTZ")) if result.element == _DATE else d.copy()) for d in (start, stop)]
    text = exp.DPipe(this=exp.Literal.string("requirement failed: Illegal sequence boundaries: "), expression=exp.DPipe(
        this=exp.cast(micros[0], exp.DataType.build("VARCHAR")), expression=exp.DPipe(this=exp.Literal.string(" to "), expression=exp.DPipe(
            this=exp.cast(micros[1], exp.DataType.build("VARCHAR")), expression=exp.Literal.string(f" by {amount}")))))
    return exp.Case(
        ifs=[exp.If(this=_any_null(*arguments[:2]), true=exp.cast(exp.Null(), sql_type)),
             exp.If(this=exp.Not(this=exp.Paren(this=fine)), true=spark_error("", text, None))],
        default=exp.cast(series, sql_type),
    )


def _insert(arguments: list[exp.Expr], of: TypeOf, cast: NestedCast | None = None) -> exp.Expr:
    """Spark's ``array_insert(a, pos, v)``: 1-based; a negative position counts from the end, -1
    inserting after the last element; a position past either end pads with NULLs; 0 raises
    ``INVALID_INDEX_OF_ZERO``."""
    array, value, element = _with_value("array_insert", arguments[0], arguments[2], of, flat=False, cast=cast)
    if isinstance(arguments[1], exp.Null):
        _refuse("array_insert", "a NULL position (Spark requires an int there: DATATYPE_MISMATCH)")
    position = _int_argument("array_insert", arguments[1], of, "position")
    wide = exp.DataType.build("BIGINT")
    pos, size = exp.cast(position.copy(), wide), exp.cast(_f("len", array.copy()), wide)
    element_type = element.to_sql_type()
    assert element_type is not None
    nulls = _f("list_transform", _f("range", _count(exp.Sub(this=pos.copy(), expression=exp.Paren(this=exp.Add(this=size.copy(), expression=exp.Literal.number(1)))))),
               _lambda(exp.cast(exp.Null(), element_type), _X))
    # from the front (pos > 0): elements before pos, NULLs up to pos, the value, the rest
    front = _f("list_concat", _f("list_concat", _f("list_slice", array.copy(), exp.Literal.number(1), exp.Sub(this=pos.copy(), expression=exp.Literal.number(1))), nulls),
               _f("list_concat", exp.Array(expressions=[value.copy()]), _f("list_slice", array.copy(), pos.copy(), size.copy())))
    # from the back (pos < 0): -1 appends; past the front, the value, NULLs, then the array
    back_at = exp.Add(this=exp.Add(this=size.copy(), expression=pos.copy()), expression=exp.Literal.number(1))  # elements before it
    before_front = exp.LT(this=back_at.copy(), expression=exp.Literal.number(0))
    pad = _f("list_transform", _f("range", _count(exp.Neg(this=exp.Paren(this=back_at.copy())))), _lambda(exp.cast(exp.Null(), element_type), _X))
    back = exp.Case(
        ifs=[exp.If(this=before_front, true=_f("list_concat", _f("list_concat", exp.Array(expressions=[value.copy()]), pad), array.copy()))],
        default=_f("list_concat", _f("list_concat", _f("list_slice", array.copy(), exp.Literal.number(1), back_at.copy()), exp.Array(expressions=[value.copy()])),
                   _f("list_slice", array.copy(), exp.Add(this=back_at.copy(), expression=exp.Literal.number(1)), size.copy())),
    )
    zero_text = "The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1)."
    grown = exp.Case(
        ifs=[exp.If(this=exp.GT(this=pos.copy(), expression=exp.Literal.number(0)),
                    true=_f("greatest", exp.Add(this=size.copy(), expression=exp.Literal.number(1)), pos.copy()))],
        default=exp.Add(this=exp.Add(this=size.copy(), expression=exp.Literal.number(1)),
                        expression=_f("greatest", exp.Neg(this=exp.Paren(this=back_at.copy())), exp.Literal.number(0))),
    )
    sql_type = ArrayType(element).to_sql_type()
    assert sql_type is not None
    return exp.Case(
        ifs=[exp.If(this=_any_null(array, position), true=exp.cast(exp.Null(), sql_type)),
             exp.If(this=exp.EQ(this=position.copy(), expression=exp.Literal.number(0)), true=spark_error("INVALID_INDEX_OF_ZERO", zero_text, None)),
             exp.If(this=exp.GT(this=grown.copy(), expression=exp.Literal.number(MAX_ARRAY_LENGTH)), true=_too_long("array_insert", grown)),
             exp.If(this=exp.GT(this=position.copy(), expression=exp.Literal.number(0)), true=front)],
        default=back,
    )
