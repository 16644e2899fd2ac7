"""``collect_set``'s elements in Spark's order.

Spark's ``CollectSet`` keeps its elements in a Scala 2.13 ``mutable.HashSet`` and answers them in
the order that set iterates: by bucket (the element's improved hash ``h ^ (h >>> 16)`` masked by
the table's length), and within a bucket by the improved hash as a signed int. The hash is Scala's
``##`` of the element the set keeps (Spark 4's ``CollectSet.convertToBufferElement``): an int's (a
byte's, a short's, a date's days) own value; a long's (a timestamp's microseconds) own value where
it fits an int, else ``(int)(l ^ (l >>> 32))``; a boolean's 1231 or 1237; a string's
``UTF8String.hashCode`` (Murmur3 with seed 42, Spark's ``hash(s)``); a double's, the long's of its
``Double.doubleToLongBits`` (NaN and -0.0 normalized); a float's, its bits as an int; a binary's,
the Murmur3 of ``UnsafeArrayData.fromPrimitiveArray`` of its bytes; a decimal's, Spark's
``Decimal.hashCode`` (``scala.math.BigDecimal``'s); a struct's or an array's, the Murmur3 (seed 42)
of its ``UnsafeRow`` or ``UnsafeArrayData`` bytes. The last five come from the compiled kernel
(:func:`vpush.optimizer.spark_math.set_hash_call`). The final
aggregation merges the task's set into an empty one sized for it, so the table's length is the
least power of two of at least 16 that holds the elements under the load factor 0.75 (the same
length the set reaches adding them one by one, as a window's frame does). So the order is a
function of the set alone, written here as DuckDB SQL over DuckDB's list of distinct elements.
Over several Spark tasks the final set is empty (16 buckets) and merges each task's set with
``++=``, which sizes the table for the incoming set only (``sizeHint``) and adds its elements
without growing: the table is the one for the largest task's set.

Elements of one improved hash (two longs, two strings) follow in their own order here, where
Spark keeps the order it met them in.
"""
from __future__ import annotations

from typing import Callable

from sqlglot import exp

from vpush.optimizer.spark_math import rewrite_kernel_call, set_hash_call, unsafe_layout
from vpush.optimizer.variant_types import ArrayType, AtomicType, DecimalType, SparkType, StringType, StructType

_ELEMENT = "__vpush_set_element"
_SORTED = "__vpush_set_sorted"
_HASHED = "__vpush_set_hashed"
_INTS = ("tinyint", "smallint", "int")
_LONGS = ("bigint", "timestamp", "timestamp_ntz")
_BY_KERNEL = ("double", "float", "binary")
_LOAD_FACTOR = 0.75
_MAX_TABLE = 1 << 30


def orders_set(element: SparkType | None) -> bool:
    """Whether :func:`spark_set_order` gives Spark's order for a set of ``element``."""
    if isinstance(element, StringType):
        return element.collation is None or element.collation.upper() == "UTF8_BINARY"
    if isinstance(element, DecimalType):
        return True
    if isinstance(element, (ArrayType, StructType)):
        return unsafe_layout(element)
    return isinstance(element, AtomicType) and element.name in (*_INTS, *_LONGS, *_BY_KERNEL, "date", "boolean")


def _n(value: int) -> exp.Expression:
    return exp.Literal.number(value)


def _fn(name: str, *arguments: exp.Expr) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(arguments))


def _bigint(node: exp.Expr) -> exp.Expression:
    return exp.cast(node, exp.DataType.build("BIGINT"))


def _signed(unsigned: exp.Expr) -> exp.Expression:
    """A 32-bit pattern (0 to 2^32 - 1) as Java's signed int."""
    return exp.Case(
        ifs=[exp.If(this=exp.GTE(this=unsigned.copy(), expression=_n(1 << 31)), true=exp.Sub(this=unsigned.copy(), expression=_n(1 << 32)))],
        default=unsigned.copy(),
    )


def _low32(node: exp.Expr) -> exp.Expression:
    return exp.BitwiseAnd(this=exp.Paren(this=node), expression=_n(0xFFFFFFFF))


def _scala_hash(value: exp.Expr, element: SparkType, functions: dict[str, SparkType]) -> exp.Expression:
    """Scala's ``##`` of the buffer's element ``value``, as a BIGINT holding a signed int."""
    if isinstance(element, StringType):  # Spark's hash(s), seeded with 42, is UTF8String's hashCode
        return _bigint(rewrite_kernel_call("hash", [value], lambda _: element, functions))
    if isinstance(element, (DecimalType, ArrayType, StructType)) or (isinstance(element, AtomicType) and element.name in _BY_KERNEL):
        return _bigint(set_hash_call(value, element, functions))
    assert isinstance(element, AtomicType)
    if element.name in _INTS:
        return _bigint(value)
    if element.name == "date":
        return _bigint(exp.Sub(this=value, expression=exp.cast(exp.Literal.string("1970-01-01"), exp.DataType.build("DATE"))))
    if element.name == "boolean":
        return exp.Case(ifs=[exp.If(this=value, true=_n(1231))], default=_n(1237))
    long = _bigint(value) if element.name == "bigint" else _fn("epoch_us", value)
    folded = _fn("xor", _low32(long.copy()), _low32(exp.BitwiseRightShift(this=long.copy(), expression=_n(32))))
    fits = exp.Between(this=long.copy(), low=_n(-(1 << 31)), high=_n((1 << 31) - 1))
    return exp.Case(ifs=[exp.If(this=fits, true=long.copy())], default=_signed(folded))


def _table_length(count: Callable[[], exp.Expr]) -> exp.Expression:
    """The least power of two of at least 16 whose table holds ``count`` elements (fewer than
    three quarters of it, as Scala's ``HashSet`` grows)."""
    ifs = []
    length = 16
    while length < _MAX_TABLE:
        ifs.append(exp.If(this=exp.LT(this=count(), expression=_n(int(length * _LOAD_FACTOR))), true=_n(length)))
        length *= 2
    return exp.Case(ifs=ifs, default=_n(_MAX_TABLE))


def spark_set_order(
    values: exp.Expression, element: SparkType, functions: dict[str, SparkType], sized: exp.Expression | None = None,
) -> exp.Expression:
    """``values`` (a DuckDB list of distinct elements of ``element``) in the order Spark's
    ``collect_set`` gives them (see the module's docstring); the engine functions used are added
    to ``functions``. ``sized``: the count of elements the final set's table is sized for, where
    it is not the set's own (several Spark tasks: :func:`~vpush.optimizer.spark_order.largest_task_set`).

    Example:
        >>> import duckdb
        >>> used = {}
        >>> sql = spark_set_order(exp.column("s"), AtomicType("int"), used).sql("duckdb")
        >>> duckdb.sql(f"SELECT {sql} FROM (SELECT [5, 10, 1, 2, 17, 16] AS s)").fetchall()[0][0]
        [16, 1, 17, 2, 5, 10]
    """
    from vpush.optimizer.spark_semantics import _with_operands  # (spark_semantics imports this module)

    if sized is None:
        return _with_operands({"s": values}, lambda operand: _ordered(lambda: operand("s"), element, functions, None))
    return _with_operands({"s": values, "n": sized}, lambda operand: _ordered(lambda: operand("s"), element, functions, lambda: operand("n")))


def _ordered(
    bound: Callable[[], exp.Expression], element: SparkType, functions: dict[str, SparkType], sized: Callable[[], exp.Expression] | None,
) -> exp.Expression:
    """The list ``bound()`` (each call a mention of the one value :func:`_with_operands` binds)
    sorted by Spark's bucket and hash, the table sized for ``sized()`` elements (by default the
    list's)."""
    each, paired = exp.column(_ELEMENT), exp.column(_HASHED)

    def field(node: exp.Expr, name: str) -> exp.Expression:
        return exp.Dot(this=node.copy(), expression=exp.to_identifier(name))

    # each element's hash computed once (a kernel's call among them), as 32 unsigned bits
    pairs = _fn("list_transform", bound(), exp.Lambda(this=exp.Struct(expressions=[
        exp.PropertyEQ(this=exp.to_identifier("x"), expression=_low32(_scala_hash(each, element, functions))),
        exp.PropertyEQ(this=exp.to_identifier("v"), expression=each.copy()),
    ]), expressions=[exp.to_identifier(_ELEMENT)]))
    improved = _fn("xor", field(paired, "x"), exp.BitwiseRightShift(this=field(paired, "x"), expression=_n(16)))
    count = sized if sized is not None else (lambda: _fn("len", bound()))
    bucket = exp.BitwiseAnd(this=improved.copy(), expression=exp.Sub(this=_table_length(count), expression=_n(1)))
    keyed = exp.Struct(expressions=[
        exp.PropertyEQ(this=exp.to_identifier("b"), expression=bucket),
        exp.PropertyEQ(this=exp.to_identifier("h"), expression=_signed(improved)),
        exp.PropertyEQ(this=exp.to_identifier("v"), expression=field(paired, "v")),
    ])
    keys = _fn("list_transform", pairs, exp.Lambda(this=keyed, expressions=[exp.to_identifier(_HASHED)]))
    return _fn("list_transform", _fn("list_sort", keys), exp.Lambda(
        this=exp.Dot(this=exp.column(_SORTED), expression=exp.to_identifier("v")), expressions=[exp.to_identifier(_SORTED)]))
