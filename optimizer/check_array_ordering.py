"""Spark's analysis errors for array functions that compare or order elements it cannot order.

Spark's array functions that compare elements (``array_contains``, ``array_position``,
``array_remove``, the set functions, ``arrays_overlap``, ``array_distinct``) or order them
(``array_max``, ``array_min``, ``sort_array``, ``array_sort``) check at analysis that the element
type is orderable (``RowOrdering.isOrderable``: no map and no variant anywhere in it), after the
arguments are coerced to one type, and raise ``DATATYPE_MISMATCH.INVALID_ORDERING_TYPE`` where it
is not. Before that they raise ``NULL_TYPE`` for a bare NULL given to ``array_contains`` and
``BINARY_ARRAY_DIFF_TYPES`` for one given to the set functions (measured on PySpark 4.3). DuckDB
compares maps and variants as it compares structs, so vpush answered ``array_contains`` over
arrays of maps where Spark raises: :func:`check_array_ordering` raises Spark's error instead.
"""
from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from vpush.optimizer.dialect import call_arguments, call_name
from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.variant_types import (
    VARIANT,
    VOID,
    ArrayType,
    AtomicType,
    MapType,
    SparkType,
    StringType,
    StructField,
    StructType,
    coercible,
)

__all__ = ["check_array_ordering", "orderable"]

TypeOf = Callable[[exp.Expr], "SparkType | None"]

_WITH_VALUE = ("array_contains", "array_position", "array_remove")
_TWO_ARRAYS = ("array_union", "array_intersect", "array_except", "arrays_overlap")
_ONE_ARRAY = ("array_distinct", "array_max", "array_min")

def orderable(of_type: SparkType) -> bool:
    """Whether Spark orders values of ``of_type`` (``RowOrdering.isOrderable``): neither a map nor
    a variant, nor an array or struct holding one.

    Example:
        >>> from vpush.optimizer.variant_types import AtomicType, StringType
        >>> orderable(ArrayType(AtomicType("int"))), orderable(StructType((StructField("m", MapType(StringType(), AtomicType("int"))),)))
        (True, False)
    """
    if isinstance(of_type, MapType):
        return False
    if isinstance(of_type, ArrayType):
        return orderable(of_type.element)
    if isinstance(of_type, StructType):
        return all(orderable(f.type) for f in of_type.fields)
    return of_type != VARIANT


def _tightest(a: SparkType, b: SparkType) -> SparkType | None:
    """Spark's ``findTightestCommonType`` of two types holding maps, part by part (a map's keys and
    values, an array's elements, a struct's fields by position, named alike but for case)."""
    from vpush.optimizer.spark_semantics import nested_wider_type, tightest_common

    if a == b:
        return a
    if isinstance(a, MapType) and isinstance(b, MapType):
        key, value = _tightest(a.key, b.key), _tightest(a.value, b.value)
        return None if key is None or value is None else MapType(key, value)
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        element = _tightest(a.element, b.element)
        return None if element is None else ArrayType(element)
    if isinstance(a, StructType) and isinstance(b, StructType):
        if [f.name.lower() for f in a.fields] != [f.name.lower() for f in b.fields]:
            return None
        fields = [_tightest(x.type, y.type) for x, y in zip(a.fields, b.fields)]
        return None if any(f is None for f in fields) else StructType(
            tuple(StructField(x.name, f) for x, f in zip(a.fields, fields) if f is not None))
    if any(isinstance(t, (MapType, ArrayType, StructType)) for t in (a, b)) or not tightest_common(a, b):
        return None
    return nested_wider_type(a, b, strings=False)


def _wider(a: SparkType, b: SparkType) -> SparkType | None:
    """Spark's ``findWiderTypeWithoutStringPromotionForTwo`` (``array_contains``'s coercion)."""
    from vpush.optimizer.spark_semantics import nested_wider_type

    return a if a == b else nested_wider_type(a, b, strings=False)


def _mismatch(text: str, detail: str, error_class: str) -> OptimizeError:
    return OptimizeError(f'Cannot resolve "{text}" due to data type mismatch: {detail}', error_class=f"DATATYPE_MISMATCH.{error_class}")


def _unordered(text: str, called: str, of_type: SparkType) -> OptimizeError:
    return _mismatch(text, f'The `{called}` does not support ordering on type "{of_type.to_sql()}".', "INVALID_ORDERING_TYPE")


def _shown(types: list[str]) -> str:
    return ", ".join(f'"{t}"' for t in types)


def check_array_ordering(node: exp.Expr, of: TypeOf) -> None:
    """Raise Spark's analysis error where ``node`` calls an array function that compares or
    orders elements Spark cannot order (a map or a variant, or a value holding one), or gives
    ``array_contains`` or a set function a bare NULL; else do nothing (the rewrite answers or
    refuses the call).

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> from vpush.optimizer.variant_types import AtomicType, StringType
        >>> call = sqlglot.parse_one("SELECT array_distinct(a)", read=VpushSpark).expressions[0]
        >>> check_array_ordering(call, lambda n: ArrayType(MapType(AtomicType("int"), StringType())))
        Traceback (most recent call last):
        vpush.optimizer.errors.OptimizeError: [DATATYPE_MISMATCH.INVALID_ORDERING_TYPE] Cannot resolve "array_distinct(a)" due to data type mismatch: The `array_distinct` does not support ordering on type "MAP<INT, STRING>".

    Raises:
        OptimizeError: ``DATATYPE_MISMATCH.INVALID_ORDERING_TYPE``, ``NULL_TYPE``,
            ``ARRAY_FUNCTION_DIFF_TYPES`` or ``BINARY_ARRAY_DIFF_TYPES``, in Spark's words.
    """
    from vpush.optimizer.spark_semantics import spark_name

    called = call_name(node)
    if called not in (*_WITH_VALUE, *_TWO_ARRAYS, *_ONE_ARRAY, "sort_array", "array_sort"):
        return
    arguments = call_arguments(node)
    if not arguments or any(a is None for a in arguments):
        return
    given = [a for a in arguments if a is not None]
    text = spark_name(node) or called
    # a bare NULL, or a value of its type (`array(NULL)[0]`, Spark's NullType)
    bare = [isinstance(a, exp.Null) or of(a) == VOID for a in given]
    types = [None if null else of(a) for a, null in zip(given, bare)]
    if called == "array_contains" and len(given) == 2 and any(bare):
        raise _mismatch(text, f"Null typed values cannot be used as arguments of `{called}`.", "NULL_TYPE")
    if called == "array_position" and len(given) == 2 and bare[1] and types[0] == ArrayType(VOID):
        # measured: the NULL is not cast to the elements' type, both being NullType
        raise _mismatch(text, f"Null typed values cannot be used as arguments of `{called}`.", "NULL_TYPE")
    if called in _TWO_ARRAYS and len(given) == 2:
        if all(bare) or any(t is None and not null for t, null in zip(types, bare)):
            return
        if any(bare):
            shown = _shown([VOID.to_sql() if t is None else t.to_sql() for t in types])
            raise _mismatch(text, f'Input to function `{called}` should have been two "ARRAY" with same element type, '
                            f"but it's [{shown}].", "BINARY_ARRAY_DIFF_TYPES")
        left, right = types
        if not (isinstance(left, ArrayType) and isinstance(right, ArrayType)) or (orderable(left.element) and orderable(right.element)):
            return
        common = _tightest(left.element, right.element)
        if common is None:
            if coercible(left.element) and coercible(right.element):
                raise _mismatch(text, f'Input to function `{called}` should have been two "ARRAY" with same element type, '
                                f"but it's [{_shown([left.to_sql(), right.to_sql()])}].", "BINARY_ARRAY_DIFF_TYPES")
            return
        raise _unordered(text, called, common)
    if called in _WITH_VALUE and len(given) == 2:
        source, value = types
        if not isinstance(source, ArrayType) or bare[0]:
            return
        if bare[1]:
            if not orderable(source.element):
                raise _unordered(text, called, source.element)
            return
        if value is None or (orderable(source.element) and orderable(value)):
            return
        common = _wider(source.element, value) if called == "array_contains" else _tightest(source.element, value)
        if common is None:
            if coercible(source.element) and coercible(value):
                raise _mismatch(text, f'Input to `{called}` should have been "ARRAY" followed by a value with same element type, '
                                f"but it's [{_shown([source.to_sql(), value.to_sql()])}].", "ARRAY_FUNCTION_DIFF_TYPES")
            return
        raise _unordered(text, called, common)
    source = types[0]
    if not isinstance(source, ArrayType) or orderable(source.element):
        return
    if called in _ONE_ARRAY and len(given) == 1:
        raise _unordered(text, called, source.element)
    if called == "sort_array" and len(given) in (1, 2):
        raise _unordered(text, called, source)
    if called == "array_sort" and len(given) == 1:
        # Spark sorts by its default comparator, a lambda whose `<` it checks
        raise _unordered("(namedlambdavariable() < namedlambdavariable())", "<", source.element)
