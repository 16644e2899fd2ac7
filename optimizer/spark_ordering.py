"""Spark's order of arrays and structs, as a value DuckDB orders the same way.

Spark orders an array element by element (a shorter prefix first) and a struct field by field,
and inside either a NULL comes before every value, ascending (``ArrayData``/``InternalRow``
orderings). DuckDB orders nested values the same way except that it puts a NULL inside them after
every value, so ``max(array(NULL, 3), array(3))`` and ``ORDER BY st`` differ from Spark's. A sort
key wraps every nested position as ``{n: x IS NOT NULL, v: x}``: ``false`` sorts first, so a NULL
element or field sorts before the values, and the whole key orders as Spark orders the value.
"""
from __future__ import annotations

from sqlglot import exp

from vpush.optimizer.variant_types import ArrayType, MapType, SparkType, StructType

_ELEMENT = "__vpush_element"


def nested_sort_key(value: exp.Expr, of_type: SparkType | None) -> exp.Expr | None:
    """A DuckDB expression that orders as Spark orders ``value`` of the array or struct type
    ``of_type`` (NULL where ``value`` is NULL); None for any other type, or one holding a map.

    Example:
        >>> from vpush.optimizer.variant_types import AtomicType
        >>> key = nested_sort_key(exp.column("a"), ArrayType(AtomicType("int")))
        >>> "{'n': NOT __vpush_element0 IS NULL, 'v': __vpush_element0}" in key.sql("duckdb")
        True
    """
    if not isinstance(of_type, (ArrayType, StructType)):
        return None
    return _key(value, of_type, 0)


def _key(value: exp.Expr, of_type: SparkType, depth: int) -> exp.Expr | None:
    if isinstance(of_type, MapType):
        return None
    if isinstance(of_type, ArrayType):
        name = f"{_ELEMENT}{depth}"
        inner = _position(exp.column(exp.to_identifier(name)), of_type.element, depth + 1)
        if inner is None:
            return None
        return exp.Anonymous(this="list_transform", expressions=[value, exp.Lambda(this=inner, expressions=[exp.to_identifier(name)])])
    if isinstance(of_type, StructType):
        names = [f.name for f in of_type.fields]
        if len(set(names)) != len(names) or not names:
            return None
        fields = []
        for index, field in enumerate(of_type.fields):
            part = _position(exp.Dot(this=value.copy(), expression=exp.to_identifier(field.name, quoted=True)), field.type, depth)
            if part is None:
                return None
            fields.append(exp.PropertyEQ(this=exp.to_identifier(f"f{index}"), expression=part))
        missing = exp.Is(this=value.copy(), expression=exp.Null())
        return exp.Case(ifs=[exp.If(this=missing, true=exp.Null())], default=exp.Struct(expressions=fields))
    return value


def _position(value: exp.Expr, of_type: SparkType, depth: int) -> exp.Expr | None:
    """A nested element or field: NULL before every value."""
    inner = _key(value.copy(), of_type, depth)
    if inner is None:
        return None
    present = exp.Not(this=exp.Is(this=value, expression=exp.Null()))
    return exp.Struct(expressions=[
        exp.PropertyEQ(this=exp.to_identifier("n"), expression=present),
        exp.PropertyEQ(this=exp.to_identifier("v"), expression=inner),
    ])
