"""Spark's integer and NaN math functions on the DuckDB engine: factorial, nanvl, bit_count, getbit.

DuckDB has functions under these names with other answers: its ``factorial`` is a 128-bit
integer and raises past 33 (Spark's is a ``bigint``, NULL outside 0..20), its ``bit_count`` counts
the bits of the argument's own width (Spark's sign-extends to a ``long`` first, so
``bit_count(-1)`` of any integer is 64), its ``get_bit`` takes a bit string. Each rewrite here
gives Spark's type, value and error, checked against PySpark by ``tests/test_spark_functions.py``;
a form it cannot answer exactly (an argument Spark would cast from a string, say) is refused.
Spark's hashes (``hash``, ``xxhash64``, ``crc32``), ``conv`` and ``approx_count_distinct``
(HyperLogLog++ over the values' xxhash64) go to vpush's compiled kernels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from sqlglot import exp

from vpush.codec.spark_hll import DEFAULT_RELATIVE_SD, MAX_PRECISION, MIN_PRECISION, hll_precision
from vpush.optimizer.errors import OptimizeError, refuse_on_duckdb as _refuse
from vpush.optimizer.variant_types import (
    MAX_DECIMAL_PRECISION,
    VOID,
    ArrayType,
    AtomicType,
    DecimalType,
    MapType,
    SparkType,
    StringType,
    StructType,
    leaves,
)

if TYPE_CHECKING:
    TypeOf = Callable[[exp.Expr], SparkType | None]

__all__ = ["APPROX_COUNT_DISTINCT_FUNCTION", "CONV_FUNCTION", "HASH_ENGINE_FUNCTIONS", "KERNEL_CALLS", "MATH_FUNCTIONS", "NESTED_HASH_PREFIX", "has_map", "integral_decimal", "is_integral", "is_number", "math_type", "nested", "nested_hash_call", "rewrite_approx_count_distinct", "rewrite_kernel_call",
           "rewrite_math", "set_hash_call", "unsafe_layout", "wider_decimal"]

MATH_FUNCTIONS = frozenset({"factorial", "nanvl", "bit_count", "getbit", "bit_get", "width_bucket"})
"""The functions this module answers."""

INTEGER_WIDTHS = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}
"""The bits of Spark's integral types."""

INTEGER_DIGITS = {"tinyint": 3, "smallint": 5, "int": 10, "bigint": 20}
"""The decimal digits of Spark's integral types (``DecimalType.forType``: an int is a ``decimal(10,0)``)."""


def is_integral(kind: SparkType | None) -> bool:
    """Whether ``kind`` is one of Spark's integral types (``tinyint`` to ``bigint``)."""
    return isinstance(kind, AtomicType) and kind.name in INTEGER_WIDTHS


def is_number(kind: SparkType | None) -> bool:
    """Whether ``kind`` is one of Spark's numeric types: integral, ``float``, ``double``, decimal."""
    return is_integral(kind) or isinstance(kind, DecimalType) or (isinstance(kind, AtomicType) and kind.name in ("float", "double"))


def integral_decimal(kind: AtomicType) -> DecimalType:
    """The decimal an integral type widens to (``DecimalType.forType``).

    Example:
        >>> integral_decimal(AtomicType("int"))
        DecimalType(precision=10, scale=0)
    """
    return DecimalType(INTEGER_DIGITS[kind.name], 0)


def wider_decimal(decimals: list[DecimalType]) -> DecimalType:
    """The decimal Spark widens ``decimals`` to (``DecimalPrecision.widerDecimalType``): the most
    digits before and after the point; past 38 digits the digits before it are kept
    (``boundedPreferIntegralDigits``).

    Example:
        >>> wider_decimal([DecimalType(10, 0), DecimalType(5, 2)])
        DecimalType(precision=12, scale=2)
    """
    scale = max(d.scale for d in decimals)
    digits = max(d.precision - d.scale for d in decimals)
    if digits + scale <= MAX_DECIMAL_PRECISION:
        return DecimalType(digits + scale, scale)
    return DecimalType(MAX_DECIMAL_PRECISION, max(MAX_DECIMAL_PRECISION - digits, 0))


def _name(t: SparkType | None) -> str | None:
    if isinstance(t, DecimalType):
        return "decimal"
    return t.name if isinstance(t, AtomicType) else None


def math_type(called: str, arguments: list[exp.Expr], of: TypeOf) -> SparkType | None:
    """The Spark type of a call to one of :data:`MATH_FUNCTIONS`, or None where vpush does not
    answer it (the call is then refused by :func:`rewrite_math`).

    Example:
        >>> math_type("nanvl", [exp.column("a"), exp.column("b")], lambda n: AtomicType("float"))
        AtomicType(name='float')
    """
    names = [_name(of(a)) for a in arguments]
    if called == "factorial":
        return AtomicType("bigint") if names and names[0] in ("tinyint", "smallint", "int") else None
    if called == "nanvl" and len(names) == 2:
        # Spark casts both to one of double and float (a NULL literal to the other's type)
        known = [n for n, a in zip(names, arguments) if not isinstance(a, exp.Null)]
        if not known or not all(n in INTEGER_WIDTHS or n in ("double", "float", "decimal") for n in known):
            return None
        return AtomicType("float") if all(n == "float" for n in known) else AtomicType("double")
    if called == "bit_count" and names:
        boolean = names[0] == "boolean" or isinstance(arguments[0], (exp.Predicate, exp.Connector, exp.Not))
        return AtomicType("int") if names[0] in INTEGER_WIDTHS or boolean else None
    if called == "width_bucket" and len(names) == 4:
        numbers = all(n in INTEGER_WIDTHS or n in ("double", "float", "decimal") or isinstance(a, exp.Null)
                      for n, a in zip(names[:3], arguments))
        return AtomicType("bigint") if numbers and (names[3] in INTEGER_WIDTHS or isinstance(arguments[3], exp.Null)) else None
    if called in ("getbit", "bit_get") and len(names) == 2:
        position = names[1] in INTEGER_WIDTHS or isinstance(arguments[1], exp.Null)
        return AtomicType("tinyint") if names[0] in INTEGER_WIDTHS and position else None
    return None


def rewrite_math(called: str, arguments: list[exp.Expr], of: TypeOf) -> exp.Expr:
    """A call to one of :data:`MATH_FUNCTIONS` as DuckDB SQL giving Spark's answer.

    Example:
        >>> rewrite_math("bit_count", [exp.column("i")], lambda n: AtomicType("int")).sql("duckdb")
        'CAST(BIT_COUNT(CAST(i AS BIGINT)) AS INT)'

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for arguments vpush does not answer as
            Spark does.
    """
    result = math_type(called, arguments, of)
    if result is None:
        _refuse(called, "arguments of these types")
    if called == "factorial":
        n = arguments[0]
        # Spark: NULL outside 0..20 (20! is the last that fits a long)
        inside = exp.Between(this=n.copy(), low=exp.Literal.number(0), high=exp.Literal.number(20))
        value = exp.cast(exp.Anonymous(this="factorial", expressions=[exp.cast(n, exp.DataType.build("INT"))]), exp.DataType.build("BIGINT"))
        return exp.Case(ifs=[exp.If(this=inside, true=value)], default=exp.cast(exp.Null(), exp.DataType.build("BIGINT")))
    if called == "nanvl":
        to = exp.DataType.build(_name(result) or "double")
        left, right = (exp.cast(a, to) for a in arguments)
        return exp.Case(ifs=[exp.If(this=exp.Anonymous(this="isnan", expressions=[left.copy()]), true=right)], default=left)
    if called == "width_bucket":
        return _width_bucket(arguments)
    if called == "bit_count":
        # Long.bitCount of the value sign-extended to a long (a boolean as 1 or 0)
        counted = exp.Anonymous(this="bit_count", expressions=[exp.cast(arguments[0], exp.DataType.build("BIGINT"))])
        return exp.cast(counted, exp.DataType.build("INT"))
    return _getbit(called, arguments, of)


def _width_bucket(arguments: list[exp.Expr]) -> exp.Expr:
    """Spark's ``width_bucket(v, min, max, n)`` (``WidthBucket.computeBucketNumber``): NULL for a
    NULL, for ``n`` at or below 0 or ``Long.MaxValue``, for a NaN ``v``, for ``min = max`` and for
    a NaN or infinite bound; 0 before the range, ``n + 1`` past it, else the bucket of equal
    width, computed in doubles in Java's order and truncated."""
    double, bigint = exp.DataType.build("DOUBLE"), exp.DataType.build("BIGINT")
    v, low, high = (exp.cast(a, double) for a in arguments[:3])
    n = exp.cast(arguments[3], bigint)

    def fn(name: str, value: exp.Expr) -> exp.Expression:
        return exp.Anonymous(this=name, expressions=[value.copy()])

    empty: list[exp.Expression] = [exp.Is(this=x.copy(), expression=exp.Null()) for x in (v, low, high, n)] + [
        exp.LTE(this=n.copy(), expression=exp.Literal.number(0)),
        exp.EQ(this=n.copy(), expression=exp.Literal.number(str((1 << 63) - 1))),
        fn("isnan", v), exp.EQ(this=low.copy(), expression=high.copy()),
        fn("isnan", low), fn("isinf", low), fn("isnan", high), fn("isinf", high),
    ]
    null: exp.Expression = empty[0]
    for test in empty[1:]:
        null = exp.Or(this=null, expression=test)
    past = exp.Add(this=n.copy(), expression=exp.Literal.number(1))

    def bucket(top: exp.Expr, bottom: exp.Expr) -> exp.Expression:
        # (n.toDouble * (top - bottom) / (high - low)).toLong + 1, with high > low
        ratio = exp.Div(this=exp.Mul(this=exp.cast(n.copy(), double), expression=exp.Paren(this=exp.Sub(this=top.copy(), expression=bottom.copy()))),
                        expression=exp.Paren(this=exp.Sub(this=high.copy(), expression=low.copy())) if top is v else
                        exp.Paren(this=exp.Sub(this=low.copy(), expression=high.copy())), typed=False, safe=False)
        # Java's toLong saturates (an infinite quotient is Long.MaxValue, and + 1 then wraps) and
        # takes NaN (infinity over infinity, for bounds a whole double range apart) as 0
        saturated = exp.GTE(this=ratio.copy(), expression=exp.Literal.number("9.223372036854775807e18"))
        wrapped = exp.cast(exp.Literal.number(str(-(1 << 63))), bigint)
        return exp.Case(ifs=[exp.If(this=fn("isnan", ratio), true=exp.Literal.number(1)), exp.If(this=saturated, true=wrapped)],
                        default=exp.Add(this=exp.cast(fn("trunc", ratio), bigint), expression=exp.Literal.number(1)))

    rising = exp.Case(ifs=[exp.If(this=exp.LT(this=v.copy(), expression=low.copy()), true=exp.Literal.number(0)),
                           exp.If(this=exp.GTE(this=v.copy(), expression=high.copy()), true=past.copy())],
                      default=bucket(v, low))
    falling = exp.Case(ifs=[exp.If(this=exp.GT(this=v.copy(), expression=low.copy()), true=exp.Literal.number(0)),
                            exp.If(this=exp.LTE(this=v.copy(), expression=high.copy()), true=past.copy())],
                       default=bucket(low, v))
    return exp.cast(exp.Case(ifs=[exp.If(this=null, true=exp.Null()), exp.If(this=exp.LT(this=low.copy(), expression=high.copy()), true=rising)],
                             default=falling), bigint)


def _getbit(called: str, arguments: list[exp.Expr], of: TypeOf) -> exp.Expr:
    """Spark's ``getbit(x, pos)``: bit ``pos`` of ``x`` (0 the lowest) as a ``tinyint``; a position
    outside the width of ``x``'s type raises ``INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE``."""
    from vpush.optimizer.spark_semantics import spark_error

    value, position = arguments
    width = INTEGER_WIDTHS[_name(of(value)) or "bigint"]
    at = exp.cast(position, exp.DataType.build("INT"))
    bit = exp.BitwiseAnd(
        this=exp.Paren(this=exp.BitwiseRightShift(this=exp.cast(value, exp.DataType.build("BIGINT")), expression=at)),
        expression=exp.Literal.number(1),
    )
    outside = exp.Or(
        this=exp.LT(this=position.copy(), expression=exp.Literal.number(0)),
        expression=exp.GTE(this=position.copy(), expression=exp.Literal.number(width)),
    )
    message = exp.DPipe(
        this=exp.Literal.string(f"The value of parameter(s) `pos` in `{called}` is invalid: expects a bit position between 0 and "
                                f"{width - 1}, but got "),
        expression=exp.cast(position.copy(), exp.DataType.build("VARCHAR")),
    )
    raised = spark_error("INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE", message, exp.DataType.build("TINYINT"))
    return exp.Case(ifs=[exp.If(this=outside, true=raised)], default=exp.cast(exp.Paren(this=bit), exp.DataType.build("TINYINT")))


# -- hash, xxhash64, crc32 ---------------------------------------------------------------------------
HASH_SEED = 42
"""The seed of Spark's ``hash`` and ``xxhash64``."""

_HASH_RESULTS = {"hash": "INTEGER", "xxhash64": "BIGINT"}
# The DuckDB type each Spark type is handed to the kernel as (decimals: their unscaled integer)
_HASH_INPUTS = {
    "boolean": "INTEGER", "tinyint": "INTEGER", "smallint": "INTEGER", "int": "INTEGER", "date": "DATE",
    "bigint": "BIGINT", "timestamp": "TIMESTAMPTZ", "timestamp_ntz": "TIMESTAMP", "float": "FLOAT", "double": "DOUBLE",
    "string": "VARCHAR", "binary": "BLOB",
}

HASH_ENGINE_FUNCTIONS: dict[str, tuple[str, str]] = {
    **{f"vpush_{name}_{duck.lower()}": (name, duck) for name in _HASH_RESULTS
       for duck in sorted(set(_HASH_INPUTS.values()) | {"HUGEINT"})},
    "vpush_crc32_varchar": ("crc32", "VARCHAR"), "vpush_crc32_blob": ("crc32", "BLOB"),
    **{f"vpush_set_hash_{duck.lower()}": ("set_hash", duck) for duck in ("DOUBLE", "FLOAT", "BLOB", "BIGINT", "HUGEINT")},
}
"""The engine functions of :mod:`vpush.codec.spark_hash`, by name: Spark's function and the DuckDB
type of the value each takes (a ``hash`` or ``xxhash64`` step takes the running hash too, an
``INTEGER`` or a ``BIGINT``, and gives the next; ``set_hash``, the hash of ``collect_set``'s
element, takes a decimal's scale too, an ``INTEGER``, beside its unscaled value)."""


NESTED_HASH_PREFIX = "vpush_nested_"
"""The engine functions of :func:`vpush.codec.spark_hash.nested_hash_step` and
:func:`~vpush.codec.spark_hash.nested_set_hash`, one per kind and argument type:
``vpush_nested_{hash,xxhash64,set_hash}_<digest of the type>``, whose argument type the plan's
functions give (a ``hash`` or ``xxhash64`` step takes the running hash too and gives the next, as
:data:`HASH_ENGINE_FUNCTIONS`'; ``set_hash`` gives an ``INTEGER``)."""


def unsafe_layout(source: SparkType) -> bool:
    """Whether :func:`nested_hash_call`'s ``set_hash`` takes ``source``: a struct or array of atoms
    the kernel writes as Spark does, without a map."""
    return isinstance(source, (ArrayType, StructType)) and not has_map(source) and _hashed_atoms(source)


def nested(source: SparkType | None) -> bool:
    """Whether ``source`` is a struct, an array or a map."""
    return isinstance(source, (ArrayType, MapType, StructType))


def has_map(source: SparkType) -> bool:
    """Whether ``source`` is a map or holds one."""
    if isinstance(source, MapType):
        return True
    if isinstance(source, ArrayType):
        return has_map(source.element)
    return isinstance(source, StructType) and any(has_map(f.type) for f in source.fields)


def _hashed_atoms(source: SparkType) -> bool:
    """Whether every atom inside ``source`` is one the kernel hashes as Spark does."""
    return all(_hashed_atom(t) for t in leaves(source))


def _hashed_atom(atom: SparkType) -> bool:
    if isinstance(atom, StringType):
        return atom.collation is None or atom.collation.upper() == "UTF8_BINARY"
    return isinstance(atom, DecimalType) or _name(atom) in _HASH_INPUTS


def nested_hash_call(
    kind: str, value: exp.Expr, source: SparkType, seed: exp.Expr | None, functions: dict[str, SparkType], maps: bool = False,
) -> exp.Expr:
    """Spark's ``hash`` or ``xxhash64`` (``kind``) of the struct, array or map ``value`` seeded with
    ``seed`` (maps inside only where ``maps``: approx_count_distinct's hash), or (``set_hash``, no
    seed) Scala's ``##`` of the ``UnsafeRow`` or ``UnsafeArrayData`` ``collect_set`` keeps for a
    struct or array; the engine function used is added to ``functions`` with the argument's type.

    Example:
        >>> nested_hash_call("hash", exp.column("a"), ArrayType(AtomicType("int")), exp.Literal.number(42), {}).sql("duckdb")
        'VPUSH_NESTED_HASH_284E7F59648137EF(a, 42)'

    Raises:
        OptimizeError: ``DATATYPE_MISMATCH.HASH_MAP_TYPE`` for a map inside a ``hash`` or
            ``xxhash64``, as Spark raises; ``VPUSH_UNSUPPORTED_FUNCTION`` for an atom inside that
            vpush does not hash as Spark does (a variant, an interval, a collated string).
    """
    import hashlib

    shown = "collect_set" if kind == "set_hash" else kind
    if kind != "set_hash" and not maps and has_map(source):
        raise OptimizeError(
            f'Cannot resolve "{kind}(...)" due to data type mismatch: Input to the function `{kind}` cannot contain elements of '
            'the "MAP" type. In Spark, same maps may have different hashcode, thus hash expressions are prohibited on "MAP" '
            'elements. To restore previous behavior set "spark.sql.legacy.allowHashOnMapType" to "true".',
            error_class="DATATYPE_MISMATCH.HASH_MAP_TYPE",
        )
    if not _hashed_atoms(source):
        _refuse(shown, f"an argument of type {source.to_spark()} (a variant, an interval or a collated string inside)")
    name = f"{NESTED_HASH_PREFIX}{kind}_{hashlib.sha1(source.to_spark().encode()).hexdigest()[:16]}"
    functions[name] = source
    return exp.Anonymous(this=name, expressions=[value] if seed is None else [value, seed])


def _hash_input(called: str, value: exp.Expr, source: SparkType | None) -> tuple[str, exp.Expr]:
    """The DuckDB type ``value`` goes to the kernel as, and the SQL that gives it so."""
    if isinstance(source, DecimalType):
        scale = exp.Literal.number(10**source.scale)
        if source.precision <= 18:  # Spark hashes the unscaled long
            # (widened first: DuckDB's product keeps the decimal's 18 digits and overflows past them)
            wide = exp.Cast(this=value, to=exp.DataType.build(f"DECIMAL(38, {source.scale})"))  # (exp.cast drops it past a cast)
            return "BIGINT", exp.cast(exp.Mul(this=wide, expression=scale), exp.DataType.build("BIGINT"))
        # the unscaled value of up to 38 digits, whole part and fraction apart (DuckDB's product of
        # the decimal and 10^scale overflows its 38 digits)
        whole = exp.Anonymous(this="trunc", expressions=[value.copy()])
        fraction = exp.Paren(this=exp.Sub(this=value, expression=whole.copy()))
        unscaled = exp.Add(
            this=exp.Mul(this=exp.cast(whole, exp.DataType.build("HUGEINT")), expression=exp.cast(scale, exp.DataType.build("HUGEINT"))),
            expression=exp.cast(exp.Mul(this=fraction, expression=scale.copy()), exp.DataType.build("HUGEINT")),
        )
        return "HUGEINT", unscaled
    name = source.to_spark() if source is not None else None
    if isinstance(value, (exp.Predicate, exp.Connector, exp.Not)):
        name = "boolean"
    if name is None or name not in _HASH_INPUTS:
        _refuse(called, f"an argument of type {name or 'unknown to vpush'} (arrays, maps and structs among them)")
    duck = _HASH_INPUTS[name]
    return duck, exp.cast(value, exp.DataType.build(duck))


def set_hash_call(value: exp.Expr, source: SparkType, functions: dict[str, SparkType]) -> exp.Expr:
    """Scala's ``##`` of the element Spark's ``collect_set`` keeps for ``value`` (a double, float,
    binary or decimal: :func:`vpush.codec.spark_hash.scala_hash`; a struct or array:
    :func:`nested_hash_call`), as an ``INTEGER``; the engine function used is added to ``functions``.

    Example:
        >>> set_hash_call(exp.column("d"), DecimalType(10, 2), {}).sql("duckdb")
        'VPUSH_SET_HASH_BIGINT(CAST(CAST(d AS DECIMAL(38, 2)) * 100 AS BIGINT), 2)'

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for another type.
    """
    if isinstance(source, (ArrayType, StructType)):
        return nested_hash_call("set_hash", value, source, None, functions)
    if not (isinstance(source, DecimalType) or _name(source) in ("double", "float", "binary")):
        _refuse("collect_set", f"elements of type {source.to_spark()} in Spark's order")
    duck, typed = _hash_input("collect_set", value, source)
    name = f"vpush_set_hash_{duck.lower()}"
    functions[name] = AtomicType("int")
    scale = [exp.Literal.number(source.scale)] if isinstance(source, DecimalType) else []
    return exp.Anonymous(this=name, expressions=[typed, *scale])


CONV_FUNCTION = "vpush_conv"
"""The engine function of :func:`vpush.codec.spark_conv.spark_conv`: (VARCHAR, INTEGER, INTEGER) -> VARCHAR."""

KERNEL_CALLS: dict[str, SparkType] = {
    "hash": AtomicType("int"), "xxhash64": AtomicType("bigint"), "crc32": AtomicType("bigint"), "conv": StringType(),
}
"""The functions :func:`rewrite_kernel_call` answers by vpush's compiled kernels, with their Spark types."""


def _conv(arguments: list[exp.Expr], of: TypeOf, functions: dict[str, SparkType]) -> exp.Expr:
    text, *bases = arguments
    source = of(text)
    if not (isinstance(source, StringType) or _name(source) in INTEGER_WIDTHS or isinstance(text, exp.Null)):
        _refuse("conv", "a number other than a string or an integer (Spark prints a double or decimal as Java does)")
    if not all(_name(of(b)) in ("tinyint", "smallint", "int") or isinstance(b, exp.Null) for b in bases):
        _refuse("conv", "bases other than ints")
    functions[CONV_FUNCTION] = KERNEL_CALLS["conv"]
    return exp.Anonymous(this=CONV_FUNCTION, expressions=[exp.cast(text, exp.DataType.build("VARCHAR")),
                                                            *(exp.cast(b, exp.DataType.build("INT")) for b in bases)])


def rewrite_kernel_call(called: str, arguments: list[exp.Expr], of: TypeOf, functions: dict[str, SparkType]) -> exp.Expr:
    """Spark's ``hash(...)`` or ``xxhash64(...)`` as a chain of kernel steps seeded with 42 (a
    NULL argument leaves the running hash as it is), ``crc32(x)`` or ``conv(n, from, to)`` as one
    kernel call; the engine functions used are added to ``functions`` with their Spark types.

    Example:
        >>> used = {}
        >>> rewrite_kernel_call("hash", [exp.column("i"), exp.Null()], lambda n: AtomicType("int"), used).sql("duckdb")
        'VPUSH_HASH_INTEGER(CAST(i AS INT), 42)'

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for an argument of a type vpush does not
            answer as Spark does.
    """
    if called == "conv":
        return _conv(arguments, of, functions)
    if called == "crc32":
        duck, value = _hash_input(called, arguments[0], of(arguments[0]))
        if duck not in ("VARCHAR", "BLOB"):
            _refuse(called, "an argument other than a string or a binary")
        name = f"vpush_crc32_{duck.lower()}"
        functions[name] = AtomicType("bigint")
        return exp.Anonymous(this=name, expressions=[value])
    result = AtomicType("int") if called == "hash" else AtomicType("bigint")
    running: exp.Expr = exp.Literal.number(HASH_SEED)
    if called == "xxhash64":
        running = exp.cast(running, exp.DataType.build("BIGINT"))
    for argument in arguments:
        if isinstance(argument, exp.Null):
            continue  # Spark skips a NULL
        source = of(argument)
        if nested(source):
            assert source is not None
            running = nested_hash_call(called, argument, source, running, functions)
            continue
        duck, value = _hash_input(called, argument, source)
        name = f"vpush_{called}_{duck.lower()}"
        functions[name] = result
        running = exp.Anonymous(this=name, expressions=[value, running])
    return running if not isinstance(running, exp.Literal) else exp.cast(running, exp.DataType.build("INT"))


# -- approx_count_distinct ---------------------------------------------------------------------------
APPROX_COUNT_DISTINCT_FUNCTION = "vpush_approx_count_distinct"
"""The engine function of :func:`vpush.codec.spark_hll.hll_estimates`: (BIGINT[], INTEGER) -> BIGINT,
Spark's HyperLogLog++ estimate of a list of xxhash64 values at a precision."""

_DOUBLE_LITERAL_ERROR = "_LEGACY_ERROR_TEMP_1104"


def _relative_sd(accuracy: exp.Expr | None) -> float:
    """The relative standard deviation asked of ``approx_count_distinct``: Spark takes only a
    double or decimal literal (``0.01``, ``1e-2``, ``0.01D``, ``0.01BD``)."""
    from vpush.optimizer.dialect import TYPED_LITERAL

    if accuracy is None:
        return DEFAULT_RELATIVE_SD
    literal: exp.Expr = accuracy
    if isinstance(accuracy, exp.Cast) and accuracy.meta.get(TYPED_LITERAL):
        while isinstance(literal, exp.Cast):
            literal = literal.this  # 0.01D, 0.01BD (and the cast the typing of literals gave 0.01)
        if not accuracy.to.is_type("double", "decimal"):
            literal = exp.Null()  # 1F, 1L: refused as Spark does
    elif not (isinstance(literal, exp.Literal) and not literal.is_string and set(literal.name) & set(".eE")):
        literal = exp.Null()  # an integer, a string, NULL, a column, a cast: refused as Spark does
    if isinstance(accuracy, exp.Neg):
        _refuse("approx_count_distinct", "a negative relative standard deviation")
    if not isinstance(literal, exp.Literal):
        raise OptimizeError(
            f"{accuracy.sql(dialect='spark')}: the second argument of approx_count_distinct should be a double literal",
            error_class=_DOUBLE_LITERAL_ERROR,
        )
    return float(literal.name)


def rewrite_approx_count_distinct(node: exp.ApproxDistinct, of: TypeOf, functions: dict[str, SparkType]) -> tuple[exp.Expr, int]:
    """Spark's ``approx_count_distinct(x [, rsd])`` split in two: the DuckDB ``list`` aggregate of
    Spark's xxhash64 of each value (NULL for a NULL value, which Spark skips) and the precision
    (index bits) ``rsd`` gives; :data:`APPROX_COUNT_DISTINCT_FUNCTION` of the two is the estimate.
    ``DISTINCT`` changes nothing and is dropped.

    Example:
        >>> used = {}
        >>> values, p = rewrite_approx_count_distinct(exp.ApproxDistinct(this=exp.column("i")), lambda n: AtomicType("int"), used)
        >>> values.sql("duckdb"), p
        ('LIST(CASE WHEN NOT i IS NULL THEN VPUSH_XXHASH64_INTEGER(CAST(i AS INT), CAST(42 AS BIGINT)) END)', 9)

    Raises:
        OptimizeError: ``FAILED_FUNCTION_CALL`` for a deviation over 0.39 (fewer than 4 bits),
            ``_LEGACY_ERROR_TEMP_1104`` for one that is not a double or decimal literal, as Spark
            raises; ``VPUSH_UNSUPPORTED_FUNCTION`` for a value of a type vpush does not hash as
            Spark does (a variant, an interval) or a deviation under 0.0022.
    """
    called = "approx_count_distinct"
    value, accuracy = node.this, node.args.get("accuracy")
    if isinstance(value, exp.Distinct) and 1 <= len(value.expressions) <= 2:
        value, *rest = value.expressions  # approx_count_distinct(DISTINCT x, rsd) parses so
        accuracy = rest[0] if rest else accuracy
    precision = hll_precision(_relative_sd(accuracy))
    if precision < MIN_PRECISION:
        raise OptimizeError(
            "approx_count_distinct: HLL++ requires at least 4 bits for addressing; use a lower error, at most 39%",
            error_class="FAILED_FUNCTION_CALL",
        )
    if precision > MAX_PRECISION:
        _refuse(called, f"a relative standard deviation that needs more than {MAX_PRECISION} bits (under about 0.0022)")
    source = of(value)
    if isinstance(value, exp.Null) or source == VOID:
        hashed: exp.Expr = exp.cast(exp.Null(), exp.DataType.build("BIGINT"))
    else:
        seed = exp.cast(exp.Literal.number(HASH_SEED), exp.DataType.build("BIGINT"))
        present = exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null()))
        if nested(source):
            assert source is not None
            call = nested_hash_call("xxhash64", value.copy(), source, seed, functions, maps=True)
        else:
            duck, typed = _hash_input(called, value.copy(), source)
            name = f"vpush_xxhash64_{duck.lower()}"
            functions[name] = AtomicType("bigint")
            call = exp.Anonymous(this=name, expressions=[typed, seed])
        hashed = exp.Case(ifs=[exp.If(this=present, true=call)])
    functions[APPROX_COUNT_DISTINCT_FUNCTION] = AtomicType("bigint")
    return exp.Anonymous(this="list", expressions=[hashed]), precision
