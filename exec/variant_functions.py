"""Spark's variant functions other than extraction, as DuckDB functions over the variant struct.

The rewrite (:func:`vpush.optimizer.rewrite_variants.rewrite_remaining`) turns each call into a
call of one of these, over the variant as DuckDB carries it, ``STRUCT(metadata BLOB, value BLOB)``:

```
to_json(v)                  vpush_to_json(v, zone)          VARCHAR   the compiled kernel
is_variant_null(v)          vpush_is_variant_null(v)        BOOLEAN   Arrow compute
is_valid_variant(v)         vpush_is_valid_variant(v)       BOOLEAN   the compiled kernel
to_variant_object(x)        vpush_to_variant_object_<h>(x)  STRUCT    the compiled kernel, one
                                                                      function per type of x
to_json(x) of a struct,     vpush_to_json_of_<h>(x, zone, ignore_null_fields)   VARCHAR   Arrow compute per level
array or map                                                Arrow compute per level
                                                            (vpush.exec.format_json), one function per type of x
make_timestamp(...), ...    vpush_make_timestamp(y, mo, d, h, mi, us, mode, zone)   TIMESTAMPTZ
make_timestamp_ntz(...)     vpush_make_timestamp_ntz(y, mo, d, h, mi, us, mode)     TIMESTAMP
                                                            numpy (vpush.exec.make_timestamp)
variant_delete(v, p, ...)   vpush_variant_delete(v, [p, ...])  STRUCT the compiled kernel
variant_strip_nulls(v, a)   vpush_variant_strip_nulls(v, a)  STRUCT   the compiled kernel
variant_set(v, p, x[, c])   vpush_variant_modify(v, x', 0, p, c, strict, name)   the compiled
variant_insert(v, p, x)     vpush_variant_modify(v, x', 1, p, true, strict, name) kernel; x' is
variant_array_append(...)   vpush_variant_modify(v, x', 2, p, true, strict, name) x as a variant
schema_of_variant(v)        vpush_schema_of_variant(v)      VARCHAR   the compiled kernel
schema_of_variant_agg(v)    vpush_schema_of_variant_merge(list(DISTINCT vpush_schema_of_variant(v)))
                                                            VARCHAR   merged once per distinct schema
parse_json(s)               vpush_parse_json(s, true)       STRUCT    the codec's parser, once per
try_parse_json(s)           vpush_parse_json(s, false)                distinct text of a batch
variant_explode(v)          UNNEST(vpush_variant_explode(v, false))   one row per element or field:
variant_explode_outer(v)    UNNEST(vpush_variant_explode(v, true))    STRUCT(pos, key, value)[]
CAST(d AS STRING)           vpush_java_text_double(d)       VARCHAR   the compiled kernel (Java 17's
CAST(f AS STRING)           vpush_java_text_float(f)                  Double/Float.toString)
ln(x), log(b, x), exp(x),   vpush_strict_ln(x), ...         DOUBLE    the compiled kernel (Java's
pow(x, y), ...              vpush_strict_pow(x, y)                    StrictMath, Spark's NULLs)
```

Each is a vectorized (Arrow) function and answers as Spark 4.3 does:

- ``to_json``: the text of :func:`vpush.codec.json.to_json` (Spark's exactly), failing with
  ``UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT`` on a time or nanosecond timestamp as Spark does;
- ``is_variant_null``: true for a variant null only, false for a SQL NULL (Spark's
  ``isVariantNull`` reads the first byte, and an empty value is ``MALFORMED_VARIANT``);
- ``is_valid_variant``: whether Spark 4.3's readers can read the value and everything inside it,
  NULL for a SQL NULL (:func:`vpush.codec.native.is_valid_variant_native`, whose rules are Spark's
  ``VariantUtil.isValidVariant``, looser than the spec's validation);
- ``to_variant_object``: the variant Spark's ``VariantBuilder`` makes of a struct, array or map
  (:func:`vpush.codec.native.to_variant_native`: the same bytes), NULL for NULL; a key repeated
  in a map or struct raises ``VARIANT_DUPLICATE_KEY``;
- ``variant_delete``: Spark's ``deleteAtPath`` for each path in order, every row rebuilt by
  Spark's builder (:func:`vpush.codec.native.variant_delete_native`), a NULL path skipped;
- ``variant_strip_nulls``: every row rebuilt by Spark's builder without the object fields (and
  with ``include_arrays``, the array elements) that are variant nulls; NULL for a NULL flag;
- ``variant_set``, ``variant_insert``, ``variant_array_append`` and their ``try_`` forms: Spark's
  ``setAtPath``, ``insertAtPath`` and ``arrayAppendAtPath``
  (:func:`vpush.codec.native.variant_modify_native`), raising ``VARIANT_PATH_TYPE_MISMATCH`` and
  ``VARIANT_DUPLICATE_KEY`` as Spark words them, NULL in their place for the ``try_`` forms;
- ``schema_of_variant``: Spark's ``SchemaOfVariant.schemaOf`` printed by ``printSchema``: every
  integer is ``BIGINT``, a decimal is typed after its trailing zeros are stripped, objects keep
  their stored (sorted) order and ``OBJECT<>`` names are back-quoted unless plain identifiers,
  array elements merge by ``JsonInferSchema.compatibleType`` with ``VARIANT`` as the fallback;
- ``schema_of_variant_agg``: the same merge over the rows' schemas. DuckDB's Python functions
  cannot aggregate, so the rewrite collects each group's distinct schemas with ``list`` and
  merges them here, which gives Spark's answer because the merge does not depend on the order of
  the schemas (except, as in Spark, which spelling survives of object keys that differ only in
  case: Spark keeps the first one its partitions meet);
- ``parse_json``: :func:`vpush.codec.json.parse_json`, raising Spark's
  ``MALFORMED_RECORD_IN_PARSING`` (or ``VARIANT_SIZE_LIMIT``); ``try_parse_json`` gives NULL.

Errors reach the engine through :func:`vpush.exec.variant_udf.keep_error`, which DuckDB's
error message then refers to.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from duckdb.func import FunctionNullHandling, PythonUDFType

from vpush.codec.errors import CodecError, MalformedVariantError, VpushError
from vpush.codec.header import BasicType, PrimitiveType
from vpush.codec.json import parse_json, to_json, try_parse_json
from vpush.codec.java_decimal_format import parse_decimal_pattern
from vpush.codec.java_format import java_string_of_bytes
from vpush.codec.native import (
    NativeUnsupportedError,
    explode_native,
    format_java_native,
    format_java_formatter_native,
    format_integer_pattern_native,
    format_number_native,
    format_number_pattern_native,
    get_json_object_native,
    json_shape_native,
    parse_url_native,
    is_valid_variant_native,
    to_variant_native,
    variant_delete_native,
    variant_strip_nulls_native,
    variant_modify_native,
    schema_of_variant_native,
    to_json_native,
)
from vpush.codec.strict_math import STRICT_MATH_FUNCTIONS as STRICT_MATH_ARITY
from vpush.codec.spark_aggregates import (
    BIVARIATE_KINDS,
    MOMENT_KINDS,
    POSITION,
    POSITIONED_VALUE,
    spark_double_sum,
    spark_radix_places,
    spark_long_sum,
    spark_mode,
    spark_moments,
    spark_histogram_numeric,
    spark_percentile_approx,
)
from vpush.codec.spark_conv import spark_conv
from vpush.codec.spark_number_format import format_numbers, parse_numbers
from vpush.codec.spark_hash import crc32, nested_hash_step, nested_set_hash, scala_hash, spark_hash_step
from vpush.codec.spark_hll import hll_estimates
from vpush.codec.strict_math import strict_math
from vpush.codec.value import MAX_NESTING_DEPTH, Variant
from vpush.exec.errors import ExecutionError
from vpush.exec.string_datetimes import (
    add_interval_column,
    formatted_string_column,
    local_to_timestamp_column,
    shift_utc_column,
    string_to_date_column,
    string_to_timestamp_column,
    truncate_timestamp_column,
)
from vpush.exec.variant_udf import keep_error
from vpush.optimizer.spark_math import APPROX_COUNT_DISTINCT_FUNCTION, CONV_FUNCTION, HASH_ENGINE_FUNCTIONS, NESTED_HASH_PREFIX
from vpush.optimizer.spark_number_format import NUMBER_FORMAT_FUNCTION
from vpush.optimizer.spark_urls import PARSE_URL_FUNCTIONS
from vpush.optimizer.spark_format_string import JAVA_FORMATTER_FUNCTION
from vpush.optimizer.spark_order import (
    DOUBLE_SUM_FUNCTION, HISTOGRAM_NUMERIC_FUNCTION, LONG_SUM_FUNCTION, MODE_FUNCTIONS, PERCENTILE_APPROX_FUNCTION, RADIX_PLACES_FUNCTION, moment_function,
)
from vpush.optimizer.plan import VARIANT_ARROW_TYPE
from vpush.optimizer.rewrite_from_json import FROM_JSON_FUNCTION
from vpush.optimizer.variant_types import VARIANT, ArrayType, MapType, SparkType, StructType
from vpush.exec.convert_from_json import convert_from_json
from vpush.exec.rebuild_rows import rebuild_rows
from vpush.optimizer.spark_semantics import (
    DATE_TRUNC_FUNCTION,
    FORMAT_NUMBER_FUNCTION,
    FORMAT_PATTERN_FUNCTIONS,
    FORMATTED_DATETIME_FUNCTIONS,
    GET_JSON_OBJECT_FUNCTION,
    JSON_SHAPE_FUNCTIONS,
    JSON_TUPLE_FUNCTION,
    JAVA_TEXT_FUNCTIONS,
    NTZ_TO_TIMESTAMP_FUNCTION,
    STRICT_MATH_FUNCTIONS,
    STRING_DATETIME_FUNCTIONS,
    TIMESTAMP_ADD_INTERVAL_FUNCTION,
    UTC_SHIFT_FUNCTION,
    MAKE_TIMESTAMP_FUNCTIONS,
)
from vpush.optimizer.rewrite_variants import (
    REBUILD_VARIANT_FUNCTION,
    IS_VALID_VARIANT_FUNCTION,
    IS_VARIANT_NULL_FUNCTION,
    PARSE_JSON_FUNCTION,
    SCHEMA_MERGE_FUNCTION,
    SCHEMA_OF_VARIANT_FUNCTION,
    TO_JSON_FUNCTION,
    VARIANT_DELETE_FUNCTION,
    VARIANT_EXPLODE_FUNCTION,
    VARIANT_MODIFY_FUNCTION,
    VARIANT_STRIP_NULLS_FUNCTION,
    duckdb_type,
)

__all__ = [
    "FUNCTIONS",
    "is_valid_variant_column",
    "is_variant_null_column",
    "merge_schemas",
    "parse_json_column",
    "parse_schema",
    "print_schema",
    "register",
    "schema_of_variant",
    "schema_of_variant_column",
    "to_json_column",
    "to_variant_object_column",
]

MALFORMED_VARIANT = "MALFORMED_VARIANT"
UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT = "UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT"
_UNKNOWN_TO_SPARK = frozenset({PrimitiveType.TIME, PrimitiveType.TIMESTAMP_NANOS, PrimitiveType.TIMESTAMP_NTZ_NANOS})
_VARIANT_STRUCT = "STRUCT(metadata BLOB, value BLOB)"


def _combine(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _first(array: pa.Array | pa.ChunkedArray) -> Any:
    """The first non-null value of a constant argument (a literal the rewrite wrote)."""
    for chunk in array.chunks if isinstance(array, pa.ChunkedArray) else [array]:
        valid = chunk.drop_null()
        if len(valid):
            return valid[0].as_py()
    return None


def _fields(variant: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, pa.Array]:
    """The metadata and value of a variant struct column, null wherever the struct is."""
    metadata, value = _combine(variant).flatten()
    return metadata, value


def _guarded(function: Callable[..., pa.Array], what: str) -> Callable[..., pa.Array]:
    """``function``, with every error handed to the engine by key (DuckDB keeps only text)."""

    def run(*args: Any) -> pa.Array:
        try:
            return function(*args)
        except VpushError as exc:
            if isinstance(exc, MalformedVariantError):
                exc.with_context(error_class=MALFORMED_VARIANT)
            raise keep_error(exc) from None
        except Exception as exc:  # noqa: BLE001 - any other failure must still reach the user named
            raise keep_error(ExecutionError(f"{what} failed: {exc}")) from None

    return functools.wraps(function)(run)  # DuckDB counts the parameters of the signature


# -- to_number / to_char ---------------------------------------------------------------------------
_JAVA_SPECIFIER = re.compile(r"%([-#+ 0,(]*)(\d+)?(?:\.(\d+))?([eEfgG])")


def _java_formatter(values: pa.Array, specifiers: pa.Array) -> pa.Array:
    """Every double under one ``%e %E %f %g %G`` specifier of ``java.util.Formatter``, a literal
    the same on every row (vpush.optimizer.spark_format_string)."""
    if len(values) == 0:
        return pa.nulls(0, pa.string())
    match = _JAVA_SPECIFIER.fullmatch(specifiers[0].as_py())
    if match is None:
        raise ExecutionError(f"format_string: not a specifier the engine function prints: {specifiers[0].as_py()!r}")
    flags, width, precision, conversion = match.groups()
    return format_java_formatter_native(values, conversion, flags, None if width is None else int(width),
                                        None if precision is None else int(precision))


def _format_pattern(integers: bool) -> Callable[[pa.Array, pa.Array], pa.Array]:
    """``format_number(x, pattern)`` of doubles, decimals (their text) or, with ``integers``,
    integers (their text), the pattern a literal the same on every row
    (vpush.optimizer.spark_semantics)."""

    def run(values: pa.Array, patterns: pa.Array) -> pa.Array:
        if len(values) == 0:
            return pa.nulls(0, pa.string())
        pattern = parse_decimal_pattern(patterns[0].as_py())
        if integers:
            return format_integer_pattern_native(values, pattern)
        return format_number_pattern_native(values, pattern)

    return run


def _number_format(texts: pa.Array, formats: pa.Array, kinds: pa.Array) -> pa.Array:
    """The rows read (kind 1: to_number, 2: try_to_number) or printed (0: to_char) by the
    format, one literal the same on every row (vpush.optimizer.spark_number_format)."""
    if len(texts) == 0:
        return pa.nulls(0, pa.string())
    fmt, kind = formats[0].as_py(), kinds[0].as_py()
    if kind == 0:
        return format_numbers(texts, fmt)
    return parse_numbers(texts, fmt, mismatch_null=kind == 2)


# -- to_json ---------------------------------------------------------------------------------------
def _check_known_types(node: Variant) -> None:
    """Raise as Spark's ``VariantUtil.getType`` does on a type Spark 4.3 cannot read."""
    todo = [node]
    while todo:
        current = todo.pop()
        basic = current.basic_type
        if basic == BasicType.OBJECT:
            todo.extend(child for _, child in current.items())
        elif basic == BasicType.ARRAY:
            todo.extend(current.elements())
        elif basic == BasicType.PRIMITIVE and current.buf[current.pos] >> 2 in _UNKNOWN_TO_SPARK:
            raise CodecError(
                f"Unknown primitive type with id {current.buf[current.pos] >> 2} was found in a variant value",
                error_class=UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT,
                offset=current.pos,
            )


def to_json_column(variant: pa.Array | pa.ChunkedArray, time_zone: str) -> pa.Array:
    """Spark's ``to_json`` of every row of a variant struct column: the compiled kernel, or the
    Python reference row by row where the kernel cannot read the input."""
    metadata, value = _fields(variant)
    try:
        return to_json_native(metadata, value, time_zone=time_zone, reject_unknown_types=True)
    except NativeUnsupportedError:
        pass
    texts: list[str | None] = []
    for m, v in zip(metadata.to_pylist(), value.to_pylist()):
        if m is None or v is None:
            texts.append(None)
            continue
        _check_known_types(Variant(m, v))
        texts.append(to_json(m, v, time_zone=time_zone))
    return pa.array(texts, pa.string())


def _to_json(variant: pa.Array | pa.ChunkedArray, time_zone: pa.Array) -> pa.Array:
    return to_json_column(variant, _first(time_zone) or "UTC")


# -- is_variant_null ---------------------------------------------------------------------------------
def is_variant_null_column(variant: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Spark's ``is_variant_null``: whether each value's first byte is the null header; false
    for a SQL NULL.

    Raises:
        MalformedVariantError: an empty value (Spark's ``MALFORMED_VARIANT``).
    """
    _, value = _fields(variant)
    if pa.types.is_binary_view(value.type):
        value = value.cast(pa.binary())  # the compute kernels below read offset binaries
    if len(value) and pc.any(pc.equal(pc.binary_length(value), 0)).as_py():
        row = pc.index(pc.binary_length(value), 0).as_py()
        raise MalformedVariantError(f"row {row}: an empty variant value", error_class=MALFORMED_VARIANT)
    first = pc.binary_slice(value, 0, 1)
    return pc.fill_null(pc.equal(first, pa.scalar(b"\x00", pa.binary())), False)


# -- is_valid_variant -------------------------------------------------------------------------------
def is_valid_variant_column(variant: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Spark's ``is_valid_variant`` of every row of a variant struct column: false for bytes Spark
    4.3 cannot read (never an error), NULL for a SQL NULL.

    Raises:
        NativeUnsupportedError: the compiled kernel is not built (there is no Python reference).
    """
    metadata, value = _fields(variant)
    return is_valid_variant_native(metadata, value)


# -- to_variant_object ------------------------------------------------------------------------------
def _variant_nodes(arrow_type: pa.DataType, spark_type: SparkType) -> bytes:
    """One byte per node of ``arrow_type`` in preorder (a map's entries struct counts), 1 where
    ``spark_type`` has a variant there: the flags :func:`to_variant_native` reads."""
    out = bytearray()
    todo: list[tuple[pa.DataType | None, SparkType | None]] = [(arrow_type, spark_type)]
    while todo:
        arrow, spark = todo.pop()
        out.append(1 if spark == VARIANT else 0)
        if arrow is None or spark == VARIANT:
            continue
        if isinstance(arrow, pa.MapType) and isinstance(spark, MapType):
            out.append(0)  # the entries struct
            todo += [(arrow.item_type, spark.value), (arrow.key_type, spark.key)]
        elif (pa.types.is_list(arrow) or pa.types.is_large_list(arrow)) and isinstance(spark, ArrayType):
            todo.append((arrow.value_type, spark.element))
        elif pa.types.is_struct(arrow) and isinstance(spark, StructType):
            if arrow.num_fields != len(spark.fields):
                raise ExecutionError(f"to_variant_object: DuckDB gave {arrow}, expected {spark.to_spark()}")
            todo += [(arrow.field(i).type, spark.fields[i].type) for i in reversed(range(arrow.num_fields))]
    return bytes(out)


def to_variant_object_column(values: pa.Array | pa.ChunkedArray, spark_type: SparkType) -> pa.StructArray:
    """Spark's ``to_variant_object`` of every row of a column of ``spark_type`` (a struct, array or
    map), byte for byte as Spark builds it.

    Raises:
        CodecError: a key repeated in a map or struct (``VARIANT_DUPLICATE_KEY``).
    """
    array = _combine(values)
    return to_variant_native(array, _variant_nodes(array.type, spark_type))


def _duckdb_type(spark_type: SparkType) -> duckdb.sqltypes.DuckDBPyType:
    """``spark_type`` as a DuckDB type object: built, not parsed, since DuckDB's type parser
    rejects some field names its structs hold (the empty one)."""
    if spark_type == VARIANT:
        return duckdb.sqltype(_VARIANT_STRUCT)
    if isinstance(spark_type, ArrayType):
        return duckdb.list_type(_duckdb_type(spark_type.element))
    if isinstance(spark_type, MapType):
        return duckdb.map_type(_duckdb_type(spark_type.key), _duckdb_type(spark_type.value))
    if isinstance(spark_type, StructType):
        return duckdb.struct_type({f.name: _duckdb_type(f.type) for f in spark_type.fields})
    return duckdb.sqltype(duckdb_type(spark_type).sql(dialect="duckdb"))


def register_to_variant_object(connection: duckdb.DuckDBPyConnection, name: str, spark_type: SparkType) -> bool:
    """Create ``name``, the ``to_variant_object`` of arguments of ``spark_type``, unless it is
    there."""

    def build(values: pa.Array | pa.ChunkedArray) -> pa.Array:
        return to_variant_object_column(values, spark_type)

    return _create_once(connection, name, _guarded(build, "to_variant_object"), [_duckdb_type(spark_type)], duckdb.sqltype(_VARIANT_STRUCT))


def register_to_json_of(connection: duckdb.DuckDBPyConnection, name: str, spark_type: SparkType) -> bool:
    """Create ``name``, Spark's ``to_json`` of arguments of ``spark_type`` (a struct, array or map:
    :func:`vpush.exec.format_json.format_json`) in a time zone, unless it is there."""
    from vpush.exec.format_json import format_json

    def build(values: pa.Array | pa.ChunkedArray, time_zone: pa.Array, ignore_null_fields: pa.Array) -> pa.Array:
        return format_json(
            values, spark_type, time_zone=_first(time_zone) or "UTC", ignore_null_fields=_first(ignore_null_fields) is not False
        )

    return _create_once(
        connection, name, _guarded(build, "to_json"),
        [_duckdb_type(spark_type), duckdb.sqltype("VARCHAR"), duckdb.sqltype("BOOLEAN")], duckdb.sqltype("VARCHAR"),
    )


# -- variant_delete ---------------------------------------------------------------------------------
def variant_delete_column(variant: pa.Array | pa.ChunkedArray, paths: list[str | None]) -> pa.StructArray:
    """Spark's ``variant_delete(v, paths...)`` of every row of a variant struct column.

    Example:
        >>> from vpush.codec.json import parse_json
        >>> m, v = parse_json('{"a": [1, 2], "b": 3}')
        >>> column = pa.array([{"metadata": m, "value": v}, None], VARIANT_ARROW_TYPE)
        >>> from vpush.codec.json import to_json
        >>> [None if r is None else to_json(r["metadata"], r["value"]) for r in variant_delete_column(column, ["$.a[0]", None]).to_pylist()]
        ['{"a":[2],"b":3}', None]
    """
    from vpush.codec.path import VariantPath

    metadata, value = _fields(variant)
    parsed = tuple(None if p is None else tuple(VariantPath.parse(p).segments) for p in paths)
    return variant_delete_native(metadata, value, parsed)


def _variant_delete(variant: pa.Array | pa.ChunkedArray, paths: pa.Array | pa.ChunkedArray) -> pa.Array:
    return variant_delete_column(variant, list(_first(paths) or []))


def _variant_strip_nulls(variant: pa.Array | pa.ChunkedArray, include_arrays: pa.Array | pa.ChunkedArray) -> pa.Array:
    flag = _first(include_arrays)
    if flag is None:  # Spark's answer for a NULL include_arrays
        return pa.nulls(len(variant), VARIANT_ARROW_TYPE)
    metadata, value = _fields(variant)
    return variant_strip_nulls_native(metadata, value, include_arrays=bool(flag))


# -- variant_set, variant_insert, variant_array_append ---------------------------------------------
def render_path(segments: Sequence[str | int]) -> str:
    """A path as Spark's ``renderVariantPath`` prints a prefix in its errors: ``.key`` where the
    key allows it, else ``['key']`` or ``["key"]``, and ``[i]``.

    Example:
        >>> print(render_path(["a", "b.c", 0, "x'[y", "it's"]))
        $.a['b.c'][0]["x'[y"].it's
    """
    out = ["$"]
    for segment in segments:
        if isinstance(segment, int):
            out.append(f"[{segment}]")
        elif segment and "." not in segment and "[" not in segment:
            out.append("." + segment)
        elif "'" not in segment:
            out.append(f"['{segment}']")
        else:
            out.append(f'["{segment}"]')
    return "".join(out)


def variant_modify_column(
    variant: pa.Array | pa.ChunkedArray,
    new_value: pa.Array | pa.ChunkedArray,
    mode: int,
    path: str,
    *,
    create_if_missing: bool,
    strict: bool,
    name: str,
) -> pa.StructArray:
    """Spark's ``variant_set`` (``mode`` 0), ``variant_insert`` (1) or ``variant_array_append`` (2)
    of every row, ``name`` the function as the user called it (a ``try_`` form is not ``strict``).

    Raises:
        ExecutionError: with ``strict``, ``VARIANT_PATH_TYPE_MISMATCH`` or ``VARIANT_DUPLICATE_KEY``.
    """
    from vpush.codec.path import VariantPath

    segments = tuple(VariantPath.parse(path).segments)
    try:
        return variant_modify_native(
            _combine(variant), _combine(new_value), mode, segments, create_if_missing=create_if_missing, fail_on_error=strict
        )
    except CodecError as exc:
        if exc.error_class == "VARIANT_PATH_TYPE_MISMATCH":
            prefix = render_path(segments[: exc.offset if exc.offset is not None else len(segments)])
            raise ExecutionError(
                f"The path '{path}' is incompatible with the variant value at '{prefix}' in `{name}`.",
                error_class=exc.error_class,
                json_path=path,
            ) from None
        raise


def _variant_modify(
    variant: pa.Array, new_value: pa.Array, mode: pa.Array, path: pa.Array, create: pa.Array, strict: pa.Array, name: pa.Array
) -> pa.Array:
    return variant_modify_column(
        variant, new_value, int(_first(mode)), str(_first(path)), create_if_missing=bool(_first(create)),
        strict=bool(_first(strict)), name=str(_first(name)),
    )  # fmt: skip


# -- variant_explode -------------------------------------------------------------------------------
_EXPLODED = pa.struct([pa.field("pos", pa.int32()), pa.field("key", pa.string()), pa.field("value", VARIANT_ARROW_TYPE)])


def variant_explode_column(variant: pa.Array | pa.ChunkedArray, outer: pa.Array | bool) -> pa.Array:
    """Spark's ``variant_explode`` (``outer``: ``variant_explode_outer``) of every row, as a list
    of its output rows: an array's elements (``pos``, no ``key``), an object's fields in stored
    order (``pos``, ``key``), each ``value`` with the row's metadata; nothing for another value
    or a SQL NULL, where the outer form gives one row of NULLs.

    Example:
        >>> from vpush.codec.json import parse_json
        >>> rows = [parse_json('{"b": 2, "a": 1}'), parse_json("7"), None]
        >>> column = pa.array([None if r is None else {"metadata": r[0], "value": r[1]} for r in rows], VARIANT_ARROW_TYPE)
        >>> [[(e["pos"], e["key"]) for e in row] for row in variant_explode_column(column, True).to_pylist()]
        [[(0, 'a'), (1, 'b')], [(None, None)], [(None, None)]]
    """
    metadata, value = _fields(variant)
    is_outer = outer if isinstance(outer, bool) else bool(_combine(outer)[0].as_py()) if len(outer) else False
    n = len(value)
    _, counts, values, keys = explode_native(metadata, value)
    total = len(values)
    starts = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])
    parents = np.repeat(np.arange(n, dtype=np.int64), counts)
    positions = np.arange(total, dtype=np.int64) - starts[:-1][parents]
    elements = pa.StructArray.from_arrays(
        [
            pa.array(positions.astype(np.int32)),
            keys,
            pa.StructArray.from_arrays(
                [metadata.take(pa.array(parents)).cast(pa.binary()), values], fields=list(VARIANT_ARROW_TYPE)
            ),
        ],
        fields=list(_EXPLODED),
    )
    if not is_outer:
        return pa.ListArray.from_arrays(pa.array(starts.astype(np.int32)), elements)
    # The outer form: one row of NULLs where there is nothing to explode.
    sizes = np.maximum(counts, 1)
    outer_starts = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])
    index = np.full(int(outer_starts[-1]), -1, dtype=np.int64)
    index[outer_starts[:-1][parents] + positions] = np.arange(total, dtype=np.int64)
    picks = pa.array(index, mask=index < 0)
    taken = pa.StructArray.from_arrays([column.take(picks) for column in elements.flatten()], fields=list(_EXPLODED))
    return pa.ListArray.from_arrays(pa.array(outer_starts.astype(np.int32)), taken)


# -- schema_of_variant -----------------------------------------------------------------------------
# A schema: an atom ("BIGINT", "VOID", "VARIANT", ...), ("DECIMAL", precision, scale),
# ("ARRAY", element) or ("OBJECT", ((name, schema), ...)), fields in Java's String order.
Schema = str | tuple[Any, ...]
_VOID = "VOID"
_VARIANT = "VARIANT"
_BIGINT = "BIGINT"
_ATOMS: dict[PrimitiveType, str] = {
    PrimitiveType.NULL: _VOID,
    PrimitiveType.TRUE: "BOOLEAN",
    PrimitiveType.FALSE: "BOOLEAN",
    PrimitiveType.INT8: _BIGINT,
    PrimitiveType.INT16: _BIGINT,
    PrimitiveType.INT32: _BIGINT,
    PrimitiveType.INT64: _BIGINT,
    PrimitiveType.DOUBLE: "DOUBLE",
    PrimitiveType.FLOAT: "FLOAT",
    PrimitiveType.DATE: "DATE",
    PrimitiveType.TIMESTAMP: "TIMESTAMP",
    PrimitiveType.TIMESTAMP_NTZ: "TIMESTAMP_NTZ",
    PrimitiveType.BINARY: "BINARY",
    PrimitiveType.STRING: "STRING",
    PrimitiveType.UUID: "UUID",
}
_DECIMAL_DIGITS = {PrimitiveType.DECIMAL4: 9, PrimitiveType.DECIMAL8: 18, PrimitiveType.DECIMAL16: 38}
_NUMERIC_RANK = {_BIGINT: 0, "FLOAT": 1, "DOUBLE": 2}  # Spark's numericPrecedence, as variants have it
_DATETIME_RANK = {"DATE": 0, "TIMESTAMP_NTZ": 1, "TIMESTAMP": 2}  # findWiderDateTimeType
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _java_order(name: str) -> bytes:
    """The key of Java's ``String.compareTo``: UTF-16 code units."""
    return name.encode("utf-16-be", "surrogatepass")


def _decimal_schema(node: Variant, ptype: PrimitiveType) -> Schema:
    """``DecimalType`` of Spark's ``Decimal(v.getDecimal)``: the value without trailing zeros
    (``checkDecimal`` first: a scale or a precision over the width's is ``MALFORMED_VARIANT``)."""
    node.size()
    scale = node.buf[node.pos + 1]
    unscaled = int.from_bytes(node.buf[node.pos + 2 : node.pos + node.size()], "little", signed=True)
    if scale > _DECIMAL_DIGITS[ptype] or len(str(abs(unscaled))) > _DECIMAL_DIGITS[ptype]:
        raise MalformedVariantError(
            f"{ptype.name.lower()} with scale {scale} and unscaled value {unscaled} is over its precision",
            offset=node.pos,
        )
    value = node.scalar()
    _, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    if value == 0:
        return ("DECIMAL", 1, 0)
    kept = list(digits)
    while kept[-1] == 0:
        kept.pop()
        exponent += 1
    precision, scale = len(kept), -exponent
    if precision < scale:
        return ("DECIMAL", scale, scale)
    if scale < 0:
        return ("DECIMAL", precision - scale, 0)
    return ("DECIMAL", precision, scale)


def _scalar_schema(node: Variant) -> Schema:
    """A scalar's schema; Spark reads no payload but a decimal's, after checking it fits."""
    if node.basic_type == BasicType.SHORT_STRING:
        node.size()
        return "STRING"
    type_id = node.buf[node.pos] >> 2
    ptype = node.primitive_type  # raises on an unknown id
    assert ptype is not None
    if ptype in _UNKNOWN_TO_SPARK:
        raise ExecutionError(
            f"Unknown primitive type with id {type_id} was found in a variant value",
            error_class=UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT,
            offset=node.pos,
        )
    if ptype in _DECIMAL_DIGITS:
        return _decimal_schema(node, ptype)
    node.size()  # the payload lies inside the value, as Spark checks
    return _ATOMS[ptype]


def schema_of_variant(metadata: bytes, value: bytes) -> Schema:
    """Spark's ``SchemaOfVariant.schemaOf`` of one variant.

    Raises:
        MalformedVariantError: damaged bytes, or object fields not in strictly ascending order
            (Spark's ``MALFORMED_VARIANT``), or nesting deeper than ``MAX_NESTING_DEPTH``.
        ExecutionError: a type Spark 4.3 cannot read (``UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT``).

    Example:
        >>> print_schema(schema_of_variant(*parse_json('{"b": [1, 2.50], "a": null}')))
        'OBJECT<a: VOID, b: ARRAY<DECIMAL(21,1)>>'
    """
    # Post-order without recursion: each frame is a container and the schemas of the children
    # seen so far (an array's are merged as they come, as Spark folds them).
    root = Variant(metadata, value)
    frames: list[tuple[Variant, list[Any], list[Any]]] = []
    result: Schema | None = None
    node: Variant | None = root
    while True:
        if node is not None:
            basic = node.basic_type
            if basic in (BasicType.OBJECT, BasicType.ARRAY):
                if len(frames) >= MAX_NESTING_DEPTH:
                    raise MalformedVariantError(f"value nested deeper than {MAX_NESTING_DEPTH} levels", offset=node.pos)
                children: list[Any] = list(node.items()) if basic == BasicType.OBJECT else list(node.elements())
                children.reverse()
                frames.append((node, children, [] if basic == BasicType.OBJECT else [_VOID]))
                node = None
                continue
            result = _scalar_schema(node)
            node = None
        else:
            if not frames:
                break
            container, todo, done = frames[-1]
            is_object = container.basic_type == BasicType.OBJECT
            if result is not None:
                if is_object:
                    done[-1] = (done[-1], result)
                else:
                    done[0] = merge_schemas(done[0], result)
                result = None
            if todo:
                child = todo.pop()
                if is_object:
                    done.append(child[0])
                    node = child[1]
                else:
                    node = child
                continue
            frames.pop()
            if is_object:
                for (before, _), (after, _) in zip(done, done[1:]):
                    if _java_order(before) >= _java_order(after):
                        raise MalformedVariantError(
                            f"object field {after!r} is not after {before!r}: fields must be sorted by unique name",
                            offset=container.pos,
                        )
                result = ("OBJECT", tuple(done))
            else:
                result = ("ARRAY", done[0])
    assert result is not None
    return result


def _quote(name: str) -> str:
    """Spark's ``QuotingUtils.quoteIfNeeded``."""
    return name if _PLAIN_NAME.match(name) else "`" + name.replace("`", "``") + "`"


def print_schema(schema: Schema) -> str:
    """Spark's ``SchemaOfVariant.printSchema``: ``OBJECT<a: BIGINT>``, ``ARRAY<...>``,
    ``DECIMAL(p,s)`` and the SQL names of the rest."""
    out: list[str] = []
    todo: list[Schema | tuple[str, str]] = [schema]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
        elif item[0] == "text":
            out.append(item[1])
        elif item[0] == "DECIMAL":
            out.append(f"DECIMAL({item[1]},{item[2]})")
        elif item[0] == "ARRAY":
            out.append("ARRAY<")
            todo.append(("text", ">"))
            todo.append(item[1])
        else:
            out.append("OBJECT<")
            todo.append(("text", ">"))
            fields = item[1]
            for i in range(len(fields) - 1, -1, -1):
                todo.append(fields[i][1])
                todo.append(("text", ("" if i == 0 else ", ") + _quote(fields[i][0]) + ": "))
    return "".join(out)


_TOKEN = re.compile(
    r"`(?P<quoted>(?:[^`]|``)*)`: |(?P<name>[A-Za-z_][A-Za-z0-9_]*): |(?P<open>OBJECT<|ARRAY<)"
    r"|DECIMAL\((?P<precision>\d+),(?P<scale>\d+)\)|(?P<atom>[A-Z_]+)|(?P<close>>)|(?P<comma>, )"
)


def parse_schema(text: str) -> Schema:
    """The schema :func:`print_schema` printed (merge works on schemas, DuckDB carries text).

    Raises:
        ExecutionError: text that no schema prints as.
    """
    stack: list[list[Any]] = []  # open containers: [kind, fields or element, pending field name]
    pos = 0
    result: Schema | None = None

    def bad() -> ExecutionError:
        return ExecutionError(f"not a variant schema: {text!r} (at {pos})")

    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise bad()
        pos = match.end()
        value: Schema | None = None
        if match.group("open") is not None:
            stack.append(["OBJECT", [], None] if match.group("open") == "OBJECT<" else ["ARRAY", None, None])
        elif match.group("comma") is not None:
            continue
        elif match.group("close") is not None:
            if not stack:
                raise bad()
            kind, content, _ = stack.pop()
            value = ("OBJECT", tuple(content)) if kind == "OBJECT" else ("ARRAY", content)
        elif match.group("precision") is not None:
            value = ("DECIMAL", int(match.group("precision")), int(match.group("scale")))
        elif match.group("atom") is not None:
            value = match.group("atom")
        else:
            quoted = match.group("quoted")
            name = quoted.replace("``", "`") if quoted is not None else match.group("name")
            if not stack or stack[-1][0] != "OBJECT":
                raise bad()
            stack[-1][2] = name
        if value is None:
            continue
        if not stack:
            if result is not None:
                raise bad()
            result = value
        elif stack[-1][0] == "OBJECT":
            if stack[-1][2] is None:
                raise bad()
            stack[-1][1].append((stack[-1][2], value))
            stack[-1][2] = None
        else:
            stack[-1][1] = value
    if stack or result is None:
        raise bad()
    return result


def _same_name(a: str, b: str) -> bool:
    """Java's ``String.equalsIgnoreCase`` (Spark's case-insensitive resolver)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        ux, uy = x.upper(), y.upper()
        ux, uy = (ux if len(ux) == 1 else x), (uy if len(uy) == 1 else y)
        if ux != uy and ux.lower() != uy.lower():
            return False
    return True


def _tightest(a: Schema, b: Schema) -> Schema | None:
    """Spark's ``TypeCoercion.findTightestCommonType`` over variant schemas."""
    if a == b:
        return a
    if a == _VOID:
        return b
    if b == _VOID:
        return a
    if a == _BIGINT and isinstance(b, tuple) and b[0] == "DECIMAL" and b[1] - b[2] >= 20:
        return b  # the decimal holds every long: DecimalType(20, 0) fits in it
    if b == _BIGINT and isinstance(a, tuple) and a[0] == "DECIMAL" and a[1] - a[2] >= 20:
        return a
    if a in _NUMERIC_RANK and b in _NUMERIC_RANK:
        return a if _NUMERIC_RANK[a] >= _NUMERIC_RANK[b] else b
    if a in _DATETIME_RANK and b in _DATETIME_RANK:
        return a if _DATETIME_RANK[a] >= _DATETIME_RANK[b] else b
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "ARRAY":
        element = _tightest(a[1], b[1])
        return None if element is None else ("ARRAY", element)
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "OBJECT" and len(a[1]) == len(b[1]):
        fields = []
        for (name_a, type_a), (name_b, type_b) in zip(a[1], b[1]):
            if not _same_name(name_a, name_b):
                return None
            merged = _tightest(type_a, type_b)
            if merged is None:
                return None
            fields.append((name_a, merged))
        return ("OBJECT", tuple(fields))
    return None


def merge_schemas(a: Schema, b: Schema) -> Schema:
    """Spark's ``SchemaOfVariant.mergeSchema``: ``JsonInferSchema.compatibleType(a, b,
    VariantType)``.

    Example:
        >>> print_schema(merge_schemas("BIGINT", ("DECIMAL", 5, 3)))
        'DECIMAL(23,3)'
        >>> print_schema(merge_schemas(("OBJECT", (("a", "BIGINT"),)), ("OBJECT", (("b", "DATE"),))))
        'OBJECT<a: BIGINT, b: DATE>'
    """
    found = _tightest(a, b)
    if found is not None:
        return found
    a_decimal = isinstance(a, tuple) and a[0] == "DECIMAL"
    b_decimal = isinstance(b, tuple) and b[0] == "DECIMAL"
    if (a in ("DOUBLE", "FLOAT") and b_decimal) or (b in ("DOUBLE", "FLOAT") and a_decimal):
        return "DOUBLE"
    if a_decimal and b_decimal:
        assert isinstance(a, tuple) and isinstance(b, tuple)
        scale = max(a[2], b[2])
        digits = max(a[1] - a[2], b[1] - b[2])
        return "DOUBLE" if digits + scale > 38 else ("DECIMAL", digits + scale, scale)
    if a == _BIGINT and b_decimal:
        return merge_schemas(("DECIMAL", 20, 0), b)
    if b == _BIGINT and a_decimal:
        return merge_schemas(a, ("DECIMAL", 20, 0))
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "ARRAY":
        return ("ARRAY", merge_schemas(a[1], b[1]))
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "OBJECT":
        fields: list[tuple[str, Schema]] = []
        left, right = list(a[1]), list(b[1])
        i = j = 0
        while i < len(left) and j < len(right):
            ka, kb = _java_order(left[i][0]), _java_order(right[j][0])
            if ka == kb:
                fields.append((left[i][0], merge_schemas(left[i][1], right[j][1])))
                i, j = i + 1, j + 1
            elif ka < kb:
                fields.append(left[i])
                i += 1
            else:
                fields.append(right[j])
                j += 1
        fields += left[i:] + right[j:]
        return ("OBJECT", tuple(fields))
    return _VARIANT


def schema_of_variant_column(variant: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Spark's ``schema_of_variant`` of every row of a variant struct column: the compiled
    kernel, or :func:`schema_of_variant` row by row where the kernel leaves a batch to Python."""
    metadata, value = _fields(variant)
    try:
        return schema_of_variant_native(metadata, value)
    except NativeUnsupportedError:
        pass
    except CodecError as exc:
        if exc.error_class == UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT:
            raise ExecutionError(exc.message, error_class=exc.error_class, offset=exc.offset) from None
        raise
    texts: list[str | None] = []
    for m, v in zip(metadata.to_pylist(), value.to_pylist()):
        texts.append(None if m is None or v is None else print_schema(schema_of_variant(m, v)))
    return pa.array(texts, pa.string())


def _merge_column(lists: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Per group, the merge of its distinct schemas (``VOID`` for none)."""
    out: list[str] = []
    parsed: dict[str, Schema] = {}
    for group in _combine(lists).to_pylist():
        merged: Schema = _VOID
        for text in group or ():
            if text is None:
                continue
            if text not in parsed:
                parsed[text] = parse_schema(text)
            merged = merge_schemas(merged, parsed[text])
        out.append(print_schema(merged))
    return pa.array(out, pa.string())


# -- parse_json ------------------------------------------------------------------------------------
def parse_json_column(texts: pa.Array | pa.ChunkedArray, strict: bool) -> pa.StructArray:
    """Spark's ``parse_json`` (``strict``) or ``try_parse_json`` of every row, each distinct
    text parsed once.

    Raises:
        JsonParseError: with ``strict``, the first text (in row order) Spark rejects.
    """
    encoded = _combine(texts).dictionary_encode()
    parsed = [parse_json(t) if strict else try_parse_json(t) for t in encoded.dictionary.to_pylist()]
    metadata = pa.array([p[0] if p is not None else None for p in parsed], pa.binary()).take(encoded.indices)
    value = pa.array([p[1] if p is not None else None for p in parsed], pa.binary()).take(encoded.indices)
    return pa.StructArray.from_arrays(  # type: ignore[no-any-return]
        [metadata, value], fields=list(VARIANT_ARROW_TYPE), mask=value.is_null()
    )


def _parse_json(texts: pa.Array | pa.ChunkedArray, strict: pa.Array) -> pa.Array:
    return parse_json_column(texts, bool(_first(strict)))


def _rebuild_rows(locators: pa.Array, column: pa.Array) -> pa.Array:
    return rebuild_rows(locators, str(_first(column)))


_POSITIONED_DOUBLES = f"STRUCT({POSITIONED_VALUE} DOUBLE, {POSITION} BIGINT)[]"
"""Lists of doubles, each with its row's place in Spark's order (the kernel orders them)."""


def _histogram_numeric(lists: pa.Array, nbins: pa.Array, fallback: pa.Array) -> pa.Array:
    """Spark's ``histogram_numeric`` of each list of positioned doubles with the (constant) bins."""
    return spark_histogram_numeric(lists, int(_first(nbins)), fallback)


def _percentile_approx(lists: pa.Array, percentages: pa.Array, accuracy: pa.Array, fallback: pa.Array) -> pa.Array:
    """Spark's ``percentile_approx`` of each list of positioned doubles, at the (constant)
    percentages with the (constant) accuracy, each list split at its ``fallback`` place."""
    return spark_percentile_approx(lists, list(_first(percentages)), int(_first(accuracy)), fallback)


# -- Spark's transcendental functions -------------------------------------------------------------
def _moment_function(kind: str) -> Callable[..., pa.Array]:
    """Spark's moment ``kind`` over each list of doubles (two lists for the covariances and corr),
    in list order (:func:`vpush.codec.spark_aggregates.spark_moments`)."""
    if kind in BIVARIATE_KINDS:

        def pairs(x: pa.Array, y: pa.Array, fallback: pa.Array) -> pa.Array:
            return spark_moments(kind, x, y, fallback)

        return pairs

    def values(x: pa.Array, fallback: pa.Array) -> pa.Array:
        return spark_moments(kind, x, fallback=fallback)

    return values


def _strict_math_function(name: str) -> Callable[..., pa.Array]:
    """The kernel's ``name`` as a function of exactly its arguments (DuckDB counts them)."""
    if STRICT_MATH_ARITY[name] == 1:

        def unary(x: pa.Array) -> pa.Array:
            return strict_math(name, x)

        return unary

    def binary(x: pa.Array, y: pa.Array) -> pa.Array:
        return strict_math(name, x, y)

    return binary


# -- Spark's casts of strings to dates and timestamps ---------------------------------------------
def _string_to_date(values: pa.Array, strict: pa.Array) -> pa.Array:
    return string_to_date_column(values, strict=bool(_first(strict)))


def _string_to_timestamp(values: pa.Array, time_zone: pa.Array, strict: pa.Array) -> pa.Array:
    zone = _first(time_zone) or "UTC"
    return string_to_timestamp_column(values, time_zone=zone, ntz=False, strict=bool(_first(strict)))


def _ntz_to_timestamp(values: pa.Array, time_zone: pa.Array) -> pa.Array:
    return local_to_timestamp_column(values, time_zone=_first(time_zone) or "UTC")


def _date_trunc(values: pa.Array, level: pa.Array, time_zone: pa.Array) -> pa.Array:
    return truncate_timestamp_column(values, str(_first(level)), time_zone=_first(time_zone) or "UTC")


def _timestamp_add_interval(values: pa.Array, months: pa.Array, days: pa.Array, micros: pa.Array, time_zone: pa.Array) -> pa.Array:
    return add_interval_column(values, months, days, micros, time_zone=_first(time_zone) or "UTC")


def _utc_shift(values: pa.Array, zone: pa.Array, direction: pa.Array) -> pa.Array:
    return shift_utc_column(values, zone, to_utc=_first(direction) == "to")


def _make_timestamp(
    year: pa.Array, month: pa.Array, day: pa.Array, hour: pa.Array, minute: pa.Array, micros: pa.Array, strict: pa.Array,
    zone: pa.Array,
) -> pa.Array:
    from vpush.exec.make_timestamp import make_timestamp

    # strict: 1 raises for every error; 0 gives NULL; 2 gives NULL but raises for an unknown zone
    mode = _first(strict)
    return make_timestamp(year, month, day, hour, minute, micros, zone, strict=mode == 1, strict_zone=mode != 0)


def _make_timestamp_ntz(
    year: pa.Array, month: pa.Array, day: pa.Array, hour: pa.Array, minute: pa.Array, micros: pa.Array, strict: pa.Array,
) -> pa.Array:
    from vpush.exec.make_timestamp import make_timestamp

    return make_timestamp(year, month, day, hour, minute, micros, None, strict=_first(strict) == 1)


def _string_to_timestamp_ntz(values: pa.Array, strict: pa.Array) -> pa.Array:
    return string_to_timestamp_column(values, time_zone="UTC", ntz=True, strict=bool(_first(strict)))


def _formatted(target: str) -> Callable[..., pa.Array]:
    """Spark's parse of strings by a literal pattern, giving ``target`` (see FORMATTED_DATETIME_FUNCTIONS)."""

    def parse(values: pa.Array, pattern: pa.Array, time_zone: pa.Array, strict: pa.Array) -> pa.Array:
        return formatted_string_column(
            values, str(_first(pattern)), time_zone=_first(time_zone) or "UTC", target=target, strict=bool(_first(strict))
        )

    return parse


# -- get_json_object -------------------------------------------------------------------------------
def _get_json_object(texts: pa.Array | pa.ChunkedArray, path: pa.Array) -> pa.Array | pa.ChunkedArray:
    from vpush.codec.json_path import parse_json_path

    steps = parse_json_path(str(_first(path)))
    if steps is None:  # the rewrite passes only paths that parse
        raise ExecutionError(f"get_json_object: the path {_first(path)!r} is not one vpush evaluates")
    if not (pa.types.is_string(texts.type) or pa.types.is_large_string(texts.type)):
        texts = texts.cast(pa.large_string())  # a string_view
    return get_json_object_native(texts, steps)


def _json_shape(keys: bool) -> Callable[[pa.Array | pa.ChunkedArray], pa.Array | pa.ChunkedArray]:
    def shape(texts: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
        if not (pa.types.is_string(texts.type) or pa.types.is_large_string(texts.type)):
            texts = texts.cast(pa.large_string())  # a string_view
        return json_shape_native(texts, keys=keys)

    return shape


def _parse_url(strict: bool) -> Callable[[pa.Array | pa.ChunkedArray, pa.Array], pa.Array | pa.ChunkedArray]:
    def parse(urls: pa.Array | pa.ChunkedArray, part: pa.Array) -> pa.Array | pa.ChunkedArray:
        if not (pa.types.is_string(urls.type) or pa.types.is_large_string(urls.type)):
            urls = urls.cast(pa.large_string())  # a string_view
        return parse_url_native(urls, str(_first(part)), strict=strict)

    return parse


def _from_json(texts: pa.Array | pa.ChunkedArray, schema: pa.Array, mode: pa.Array) -> pa.Array | pa.ChunkedArray:
    return convert_from_json(texts, str(_first(schema)), str(_first(mode)))


def _json_tuple(texts: pa.Array | pa.ChunkedArray, field: pa.Array) -> pa.Array | pa.ChunkedArray:
    if not (pa.types.is_string(texts.type) or pa.types.is_large_string(texts.type)):
        texts = texts.cast(pa.large_string())  # a string_view
    return get_json_object_native(texts, (str(_first(field)),), last_match=True)


# -- Spark's hashes -------------------------------------------------------------------------------
def _hash_function(name: str, duck: str) -> Callable[..., pa.Array]:
    """A ``hash``/``xxhash64`` step (the value and the running hash), ``crc32`` (the value) or
    ``set_hash`` (the value, and a decimal's scale beside its unscaled value)."""
    if name == "crc32":

        def checksum(values: pa.Array) -> pa.Array:
            return crc32(values)

        return checksum
    if name == "set_hash":

        def element_hash(values: pa.Array) -> pa.Array:
            return scala_hash(values)

        def decimal_hash(values: pa.Array, scales: pa.Array) -> pa.Array:
            return scala_hash(values, scales)

        return decimal_hash if duck in ("BIGINT", "HUGEINT") else element_hash

    def step(values: pa.Array, seeds: pa.Array) -> pa.Array:
        return spark_hash_step(name, values, seeds)

    return step


def _hash_signature(name: str, duck: str) -> tuple[list[str], str]:
    if name == "crc32":
        return [duck], "BIGINT"
    if name == "set_hash":
        return [duck, "INTEGER"] if duck in ("BIGINT", "HUGEINT") else [duck], "INTEGER"
    running = "INTEGER" if name == "hash" else "BIGINT"
    return [duck, running], running


def register_nested_hash(connection: duckdb.DuckDBPyConnection, name: str, spark_type: SparkType) -> bool:
    """Create ``name`` (see :data:`~vpush.optimizer.spark_math.NESTED_HASH_PREFIX`): Spark's
    ``hash`` or ``xxhash64`` step over arguments of ``spark_type``, or the hash of the element
    ``collect_set`` keeps for one, unless it is there."""
    kind = name[len(NESTED_HASH_PREFIX):].rsplit("_", 1)[0]
    argument = _duckdb_type(spark_type)
    if kind == "set_hash":

        def element_hash(values: pa.Array) -> pa.Array:
            return nested_set_hash(values)

        return _create_once(connection, name, _guarded(element_hash, "collect_set"), [argument], duckdb.sqltype("INTEGER"))
    running = duckdb.sqltype("INTEGER" if kind == "hash" else "BIGINT")

    def step(values: pa.Array, seeds: pa.Array) -> pa.Array:
        return nested_hash_step(kind, values, seeds)

    return _create_once(connection, name, _guarded(step, kind), [argument, running], running)


def _approx_count_distinct(hashes: pa.Array, precision: pa.Array) -> pa.Array:
    return hll_estimates(hashes, int(_first(precision)))


# -- registration ----------------------------------------------------------------------------------
FUNCTIONS: dict[str, tuple[Callable[..., pa.Array], list[str], str]] = {
    TO_JSON_FUNCTION: (_guarded(_to_json, "to_json"), [_VARIANT_STRUCT, "VARCHAR"], "VARCHAR"),
    IS_VARIANT_NULL_FUNCTION: (_guarded(is_variant_null_column, "is_variant_null"), [_VARIANT_STRUCT], "BOOLEAN"),
    IS_VALID_VARIANT_FUNCTION: (_guarded(is_valid_variant_column, "is_valid_variant"), [_VARIANT_STRUCT], "BOOLEAN"),
    SCHEMA_OF_VARIANT_FUNCTION: (_guarded(schema_of_variant_column, "schema_of_variant"), [_VARIANT_STRUCT], "VARCHAR"),
    SCHEMA_MERGE_FUNCTION: (_guarded(_merge_column, "schema_of_variant_agg"), ["VARCHAR[]"], "VARCHAR"),
    PARSE_JSON_FUNCTION: (_guarded(_parse_json, "parse_json"), ["VARCHAR", "BOOLEAN"], _VARIANT_STRUCT),
    REBUILD_VARIANT_FUNCTION: (
        _guarded(_rebuild_rows, "rebuilding a variant"),
        ["STRUCT(file VARCHAR, row_group INTEGER, row BIGINT)", "VARCHAR"],
        _VARIANT_STRUCT,
    ),
    VARIANT_DELETE_FUNCTION: (_guarded(_variant_delete, "variant_delete"), [_VARIANT_STRUCT, "VARCHAR[]"], _VARIANT_STRUCT),
    VARIANT_STRIP_NULLS_FUNCTION: (
        _guarded(_variant_strip_nulls, "variant_strip_nulls"), [_VARIANT_STRUCT, "BOOLEAN"], _VARIANT_STRUCT
    ),
    VARIANT_MODIFY_FUNCTION: (
        _guarded(_variant_modify, "variant_set"),
        [_VARIANT_STRUCT, _VARIANT_STRUCT, "INTEGER", "VARCHAR", "BOOLEAN", "BOOLEAN", "VARCHAR"],
        _VARIANT_STRUCT,
    ),
    VARIANT_EXPLODE_FUNCTION: (
        _guarded(variant_explode_column, "variant_explode"),
        [_VARIANT_STRUCT, "BOOLEAN"],
        f"STRUCT(pos INTEGER, key VARCHAR, value {_VARIANT_STRUCT})[]",
    ),
    STRING_DATETIME_FUNCTIONS["date"]: (_guarded(_string_to_date, "cast to date"), ["VARCHAR", "BOOLEAN"], "DATE"),
    STRING_DATETIME_FUNCTIONS["timestamp"]: (
        _guarded(_string_to_timestamp, "cast to timestamp"), ["VARCHAR", "VARCHAR", "BOOLEAN"], "TIMESTAMPTZ"
    ),
    NTZ_TO_TIMESTAMP_FUNCTION: (_guarded(_ntz_to_timestamp, "cast to timestamp"), ["TIMESTAMP", "VARCHAR"], "TIMESTAMPTZ"),
    DATE_TRUNC_FUNCTION: (_guarded(_date_trunc, "date_trunc"), ["TIMESTAMPTZ", "VARCHAR", "VARCHAR"], "TIMESTAMPTZ"),
    TIMESTAMP_ADD_INTERVAL_FUNCTION: (
        _guarded(_timestamp_add_interval, "sequence"), ["TIMESTAMPTZ", "BIGINT", "BIGINT", "BIGINT", "VARCHAR"], "TIMESTAMPTZ"
    ),
    UTC_SHIFT_FUNCTION: (_guarded(_utc_shift, "from_utc_timestamp / to_utc_timestamp"), ["TIMESTAMPTZ", "VARCHAR", "VARCHAR"], "TIMESTAMPTZ"),
    MAKE_TIMESTAMP_FUNCTIONS["timestamp"]: (
        _guarded(_make_timestamp, "make_timestamp"), [*["INTEGER"] * 5, "BIGINT", "INTEGER", "VARCHAR"], "TIMESTAMPTZ"
    ),
    MAKE_TIMESTAMP_FUNCTIONS["timestamp_ntz"]: (
        _guarded(_make_timestamp_ntz, "make_timestamp_ntz"), [*["INTEGER"] * 5, "BIGINT", "INTEGER"], "TIMESTAMP"
    ),
    STRING_DATETIME_FUNCTIONS["timestamp_ntz"]: (
        _guarded(_string_to_timestamp_ntz, "cast to timestamp_ntz"), ["VARCHAR", "BOOLEAN"], "TIMESTAMP"
    ),
    **{
        function: (_guarded(_formatted(target), "parsing by a datetime pattern"), ["VARCHAR", "VARCHAR", "VARCHAR", "BOOLEAN"], result)
        for (target, function), result in zip(FORMATTED_DATETIME_FUNCTIONS.items(), ("TIMESTAMPTZ", "DATE", "BIGINT", "TIMESTAMP"))
    },
    GET_JSON_OBJECT_FUNCTION: (_guarded(_get_json_object, "get_json_object"), ["VARCHAR", "VARCHAR"], "VARCHAR"),
    **{
        function: (_guarded(_json_shape(called == "json_object_keys"), called), ["VARCHAR"], "VARCHAR")
        for called, function in JSON_SHAPE_FUNCTIONS.items()
    },
    **{
        function: (_guarded(_parse_url(called == "parse_url"), called), ["VARCHAR", "VARCHAR"], "VARCHAR")
        for called, function in PARSE_URL_FUNCTIONS.items()
    },
    JSON_TUPLE_FUNCTION: (_guarded(_json_tuple, "json_tuple"), ["VARCHAR", "VARCHAR"], "VARCHAR"),
    FROM_JSON_FUNCTION: (_guarded(_from_json, "from_json"), ["VARCHAR", "VARCHAR", "VARCHAR"], "VARCHAR"),
    JAVA_TEXT_FUNCTIONS["double"]: (_guarded(format_java_native, "cast to string"), ["DOUBLE"], "VARCHAR"),
    FORMAT_NUMBER_FUNCTION: (_guarded(format_number_native, "format_number"), ["DOUBLE", "INTEGER"], "VARCHAR"),
    JAVA_FORMATTER_FUNCTION: (_guarded(_java_formatter, "format_string"), ["DOUBLE", "VARCHAR"], "VARCHAR"),
    FORMAT_PATTERN_FUNCTIONS["double"]: (_guarded(_format_pattern(False), "format_number"), ["DOUBLE", "VARCHAR"], "VARCHAR"),
    FORMAT_PATTERN_FUNCTIONS["decimal"]: (_guarded(_format_pattern(False), "format_number"), ["VARCHAR", "VARCHAR"], "VARCHAR"),
    FORMAT_PATTERN_FUNCTIONS["integer"]: (_guarded(_format_pattern(True), "format_number"), ["VARCHAR", "VARCHAR"], "VARCHAR"),
    JAVA_TEXT_FUNCTIONS["float"]: (_guarded(format_java_native, "cast to string"), ["FLOAT"], "VARCHAR"),
    JAVA_TEXT_FUNCTIONS["binary"]: (_guarded(java_string_of_bytes, "cast to string"), ["BLOB"], "VARCHAR"),
    **{
        function: (_guarded(_strict_math_function(name), name), ["DOUBLE"] * STRICT_MATH_ARITY[name], "DOUBLE")
        for name, function in STRICT_MATH_FUNCTIONS.items()
    },
    **{
        function: (_guarded(_hash_function(name, duck), name), *_hash_signature(name, duck))
        for function, (name, duck) in HASH_ENGINE_FUNCTIONS.items()
    },
    CONV_FUNCTION: (_guarded(spark_conv, "conv"), ["VARCHAR", "INTEGER", "INTEGER"], "VARCHAR"),
    NUMBER_FORMAT_FUNCTION: (_guarded(_number_format, "a number format"), ["VARCHAR", "VARCHAR", "INTEGER"], "VARCHAR"),
    APPROX_COUNT_DISTINCT_FUNCTION: (_guarded(_approx_count_distinct, "approx_count_distinct"), ["BIGINT[]", "INTEGER"], "BIGINT"),
    **{
        moment_function(kind): (_guarded(_moment_function(kind), kind), [_POSITIONED_DOUBLES] * (1 + (kind in BIVARIATE_KINDS)) + ["BIGINT"], "DOUBLE")
        for kind in MOMENT_KINDS
    },
    **{
        function: (_guarded(spark_mode, "mode"), [f"STRUCT({POSITIONED_VALUE} {duck}, {POSITION} BIGINT)[]"], duck)
        for duck, function in MODE_FUNCTIONS.items()
    },
    LONG_SUM_FUNCTION: (_guarded(spark_long_sum, "sum"), [f"STRUCT({POSITIONED_VALUE} BIGINT, {POSITION} BIGINT)[]"], "BIGINT"),
    DOUBLE_SUM_FUNCTION: (_guarded(spark_double_sum, "sum"), [_POSITIONED_DOUBLES, "BIGINT"], "DOUBLE"),
    RADIX_PLACES_FUNCTION: (_guarded(spark_radix_places, "an aggregate's order of rows"), ["BOOLEAN[]"], "BIGINT[]"),
    HISTOGRAM_NUMERIC_FUNCTION: (_guarded(_histogram_numeric, "histogram_numeric"), [_POSITIONED_DOUBLES, "INTEGER", "BIGINT"],
                                 "STRUCT(x DOUBLE, y DOUBLE)[]"),
    PERCENTILE_APPROX_FUNCTION: (_guarded(_percentile_approx, "percentile_approx"), [_POSITIONED_DOUBLES, "DOUBLE[]", "INTEGER", "BIGINT"], "DOUBLE[]"),
}
"""name -> (the Arrow function, DuckDB parameter types, DuckDB result type)."""


def register(connection: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Create the variant function ``name`` on ``connection`` unless it is there."""
    function, parameters, result = FUNCTIONS[name]
    return _create_once(connection, name, function, [duckdb.sqltype(p) for p in parameters], duckdb.sqltype(result))


def _create_once(
    connection: duckdb.DuckDBPyConnection, name: str, function: Any, parameters: list[Any], result: Any,
    null_handling: FunctionNullHandling = FunctionNullHandling.SPECIAL,
) -> bool:
    """Create the vectorized (Arrow) function ``name`` unless the database has it already
    (functions belong to the database, so every cursor sees them); with ``null_handling``
    DEFAULT, DuckDB answers NULL for a NULL argument without calling it. Returns whether it
    was created."""
    try:
        connection.create_function(
            name,
            function,
            parameters,
            result,
            type=PythonUDFType.ARROW,
            null_handling=null_handling,
            side_effects=False,
        )
    except duckdb.CatalogException as exc:
        if "already exists" not in str(exc):
            raise
        return False
    return True
