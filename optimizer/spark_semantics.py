"""Spark's result types and arithmetic errors for the parts of a query that DuckDB runs.

DuckDB and Spark 4 (ANSI mode, its default) disagree on much of plain SQL: ``sum`` of integers is
``bigint`` in Spark and a 128-bit integer in DuckDB; ``sum``/``avg`` of ``decimal(p,s)`` are
``decimal(p+10,s)``/``decimal(p+4,s+4)`` in Spark; decimal ``+ - * /`` follow Spark's precision
rules (``DecimalPrecision``), and decimal division is exact in Spark but a double in DuckDB;
``x / 0`` raises ``DIVIDE_BY_ZERO`` in Spark and is NULL or infinity in DuckDB; ``div`` gives a
``bigint``; casting a double or decimal to an integer truncates in Spark and rounds in DuckDB;
``row_number()``, ``rank()`` and ``length()`` are ``int``.

:func:`apply_spark_semantics` types each SELECT of the Spark tree bottom-up, the way Spark's
analyzer does for these operators (columns from the scans' Arrow schemas and the extraction
targets, literals as Spark types them), and rewrites each node whose DuckDB result differs into
DuckDB SQL that gives Spark's type and value, or Spark's error through DuckDB's ``error()``
(:data:`SPARK_ERROR_MARKER`, turned back into a vpush error by the engine). Functions DuckDB
has under Spark's name with other results are mapped to the right DuckDB function
(``max_by`` to ``arg_max_null``, ``percentile`` to ``quantile_cont``) or to vpush's engine
functions (``hash``, ``xxhash64`` and ``crc32``: :mod:`vpush.codec.spark_hash`; ``conv``);
the transcendental functions (``ln``, ``log``, ``exp``, ``pow``, ...) go to the engine functions
of :data:`STRICT_MATH_FUNCTIONS`, which compute them as Java's ``StrictMath`` does.
Unaliased projections get the name Spark gives them (:func:`spark_name`), where it is known.

Nodes it cannot type are left alone. It runs before the variant extractions that could not be
placed on a scan are rewritten, so those count as typed by their target.
"""
from __future__ import annotations

import contextvars
import decimal
import itertools
import math
import re
import typing
import unicodedata
from collections.abc import Callable, Iterator, Mapping

import pyarrow as pa
from sqlglot import ErrorLevel, exp
from sqlglot.optimizer.scope import Scope, traverse_scope

from vpush.codec.java_decimal_format import UnsupportedPattern, parse_decimal_pattern
from vpush.codec.java_format import format_java_double, format_java_float
from vpush.codec.strict_math import STRICT_MATH_FUNCTIONS as STRICT_MATH_ARITY
from vpush.optimizer.dialect import (
    comparison_operands,
    DEFERRED_ARITY_ERROR,
    IMPLICIT_NAME,
    PREFIX_NOT,
    SPARK_CALL,
    TYPED_LITERAL,
    WRITTEN_UNIT,
    IsValidVariant,
    IsVariantNull,
    ParseJson,
    ShiftRightUnsigned,
    SchemaOfVariant,
    SchemaOfVariantAgg,
    ToVariantObject,
    VariantArrayAppend,
    VariantExplode,
    VariantGet,
    VariantInsert,
    VariantSet,
    VpushSpark,
    call_arguments,
    clause_of,
    call_name,
    conjuncts,
    enclosing as _enclosing,
    in_scope,
    inside_within,
    bound_by_lambda as _bound_by_lambda,
    lambda_variables as _lambda_variables,
    number_constant,
    number_literal as _number_literal,
    retrace,
    tuple_field_name,
    utc_shift_argument,
    within,
)
from vpush.codec.datetime_pattern import DatetimePatternError, compile_pattern
from vpush.optimizer.datetime_text import proleptic_year, spark_date_format
from vpush.optimizer.datetime_text import year_text as _year_text
from vpush.optimizer.check_array_ordering import check_array_ordering
from vpush.optimizer.errors import OptimizeError, refuse_on_duckdb as _refuse, spark_string_value
from vpush.optimizer.plan import ONE_TASK, VARIANT_ARROW_TYPE
from vpush.optimizer.pin_integer_arithmetic import PINNED, pin_integer_arithmetic, pins
from vpush.optimizer.prune_from_json import prune_from_json
from vpush.optimizer.rewrite_from_json import FROM_JSON_FUNCTION, from_json_schema, rewrite_from_json
from vpush.optimizer.rewrite_generators import (
    JSON_TUPLE_FIELD,
    is_generator,
    rewrite_generator_tables,
    rewrite_generators,
    rewrite_generators_after_aggregation,
)
from vpush.optimizer.rewrite_pivots import rewrite_pivots, settle_pivot
from vpush.optimizer.rewrite_time_windows import (
    SESSION_WINDOW_MARKER,
    UNKNOWN_MARKER,
    check_window_times,
    grouped_session,
    marked,
    refuse_distinct_sessions,
    merge_sessions,
    projected_type,
    rewrite_time_windows,
    window_time_type,
)
from vpush.optimizer.rewrite_range_tables import rewrite_range_tables
from vpush.optimizer.rewrite_table_samples import passes_rows
from vpush.optimizer.rename_duplicate_columns import ambiguous_names, rename_duplicate_columns
from vpush.optimizer.check_grouped_references import aggregate_call, holds_aggregate, under_aggregate
from vpush.optimizer.check_join_references import using_keys
from vpush.optimizer.expand_using_stars import expand_using_stars, output_names, source_names
from vpush.optimizer.spark_empty_relations import dropped_unread
from vpush.optimizer.spark_analysis import aggregating as _aggregating, check_order_by_aggregates
from vpush.optimizer.spark_collect_set import orders_set, spark_set_order
from vpush.optimizer.spark_functions import PARSED_ARGUMENTS, SPARK_FUNCTIONS
from vpush.optimizer.interval_text import MICROS_PER_DAY, MICROS_PER_UNIT
from vpush.optimizer.java_regex import Re2Pattern
from vpush.optimizer.spark_intervals import one_unit_interval, span_interval
from vpush.optimizer.spark_number_format import NUMBER_FORMAT_CALLS, number_format_type, rewrite_number_format
from vpush.optimizer.spark_math import (
    APPROX_COUNT_DISTINCT_FUNCTION, INTEGER_DIGITS, INTEGER_WIDTHS, KERNEL_CALLS, has_map as _has_map, integral_decimal, is_integral as _is_integral,
    rewrite_approx_count_distinct, rewrite_kernel_call, wider_decimal,
)
from vpush.optimizer.spark_unwrap_casts import drop_rows_under_false_filters, folded_comparisons, unwrap_cast_comparisons
from vpush.optimizer.spark_order import (
    HASH_FALLBACK_GROUPS,
    MODE_FUNCTIONS,
    MOMENT_FUNCTIONS,
    OBJECT_HASH,
    SORT_AGGREGATE,
    mark_radix_sort,
    radix_sort_aggregation,
    ORDER_FREE_PERCENTILE_ROWS,
    collected_past_fallback,
    extreme_past_fallback,
    first_or_last_past_fallback,
    joined_past_fallback,
    object_hash_aggregation,
    hash_fallback_place,
    several_tasks,
    largest_task_set,
    histogram_numeric_call,
    percentile_approx_call,
    SORTS_KEPT,
    first_or_last,
    last_of_ties,
    moment_call,
    ordered,
    ordered_decimal_total,
    ordered_double_sum,
    ordered_long_sum,
    ordered_mode,
    scan_order,
    spark_keeps_sorts,
    window_in_order,
)
from vpush.optimizer.spark_ordering import nested_sort_key
from vpush.optimizer.spark_encodings import ENCODING_FUNCTIONS, encoding_type, rewrite_encoding
from vpush.optimizer.spark_urls import PARSE_URL_FUNCTIONS, parse_url_type, rewrite_parse_url
from vpush.optimizer.spark_scalars import (
    SCALAR_FUNCTIONS, final_matches, node_arguments, rewrite_scalar, scalar_type, split_final_terminator,
)
from vpush.optimizer.spark_format_string import rewrite_format_string
from vpush.optimizer.variant_types import (
    MAX_DECIMAL_PRECISION,
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
    parse_variant_type,
)

__all__ = ["ARGUMENT_TYPE", "CAST_TO_VARIANT", "DATE_TRUNC_FUNCTION", "FORMAT_NUMBER_FUNCTION", "FORMAT_PATTERN_FUNCTIONS", "MAKE_TIMESTAMP_FUNCTIONS", "GET_JSON_OBJECT_FUNCTION", "JSON_SHAPE_FUNCTIONS", "JSON_TUPLE_FUNCTION", "NTZ_TO_TIMESTAMP_FUNCTION", "TIMESTAMP_ADD_INTERVAL_FUNCTION", "UTC_SHIFT_FUNCTION", "DECIMAL_FUNCTION_PREFIX", "DECIMAL_OPERATIONS",
           "SPARK_ERROR_MARKER", "STRICT_MATH_FUNCTIONS", "map_from_arrays_checked", "decimal_function", "decimal_function_types", "apply_spark_semantics",
           "arrow_spark_type", "ExpressionTypes", "spark_name"]

ARGUMENT_TYPE = "vpush_argument_type"
"""The meta key under which a ``to_variant_object`` call keeps the Spark type of its argument, and
``variant_set``, ``variant_insert`` and ``variant_array_append`` the type of their value (None
where vpush cannot type it), for the rewrite that turns them into engine calls."""

CAST_TO_VARIANT = "vpush_cast_to_variant"
"""The meta key set on a ``to_variant_object`` call that stands for ``CAST(x AS VARIANT)``: a
scalar at the top is then a value Spark takes."""

SPARK_ERROR_MARKER = "vpush-spark-error"

EMPTY_NAME = "__vpush_empty_name"
"""The column name DuckDB gives a projection Spark names by the empty string (``SELECT ''``),
which DuckDB cannot name: the engine renames it after DuckDB."""

_INTEGRAL = ("tinyint", "smallint", "int", "bigint")
_TYPE_NAME_CASTS = frozenset(
    {"int", "bigint", "smallint", "tinyint", "double", "float", "boolean", "date", "timestamp", "decimal", "binary", "string"}
)
_INT_RANGE = {
    "tinyint": (-(2**7), 2**7 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "int": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}
_BINARY = AtomicType("binary")
_BIGINT = AtomicType("bigint")
_INT = AtomicType("int")
_DOUBLE = AtomicType("double")
_RANKING = (exp.RowNumber, exp.Rank, exp.DenseRank, exp.Ntile)
# Functions DuckDB has under the same name with other results (Spark's Murmur3 and xxHash64
# hashes): refused rather than answered differently.
_TIMESTAMPS = (AtomicType("timestamp"), AtomicType("timestamp_ntz"))
_HISTOGRAM_TYPES = (AtomicType("tinyint"), AtomicType("smallint"), AtomicType("int"), AtomicType("bigint"), AtomicType("float"),
                    AtomicType("double"), AtomicType("date"), AtomicType("timestamp"), AtomicType("timestamp_ntz"))
"""The argument types vpush answers ``histogram_numeric`` of (Spark's x of the argument's type)."""
_DATETIMES = (AtomicType("date"), *_TIMESTAMPS)
# Spark's int-valued date and time parts, by the name Spark prints.
_DATETIME_PARTS: dict[type[exp.Expr], str] = {
    exp.Year: "year", exp.Quarter: "quarter", exp.Month: "month", exp.Day: "day", exp.DayOfMonth: "dayofmonth",
    exp.DayOfWeek: "dayofweek", exp.DayOfYear: "dayofyear", exp.WeekOfYear: "weekofyear", exp.Hour: "hour",
    exp.Minute: "minute", exp.Second: "second",
}
_RANKING_NAMES: dict[type[exp.Expr], str] = {
    exp.RowNumber: "row_number", exp.Rank: "RANK", exp.DenseRank: "DENSE_RANK", exp.Ntile: "ntile",
    exp.PercentRank: "PERCENT_RANK", exp.CumeDist: "cume_dist",
}

STRICT_MATH_FUNCTIONS: dict[str, str] = {name: f"vpush_strict_{name}" for name in STRICT_MATH_ARITY}
"""The engine functions that compute Spark's transcendental functions as Java's ``StrictMath``
does, bit for bit (:mod:`vpush.codec.strict_math`; DuckDB's own are the C library's, which can
differ in the last bit), by the kernel's name for the function."""

DECIMAL_FUNCTION_PREFIX = "vpush_decimal_"
"""The engine functions that compute Spark's decimal ``+ - * /`` where the exact value may need
more than DuckDB's 38 digits, one per operation, pair of operand types and result type (see
:func:`decimal_function`)."""

DECIMAL_OPERATIONS = ("sum", "difference", "product", "quotient", "remainder", "div", "try_sum", "try_difference", "try_product", "try_quotient",
                      "total", "window_total", "try_total", "average", "window_average", "try_average", "try_window_average", "ordered_total")
"""The operations of :func:`decimal_function`; a ``try_`` one answers NULL where Spark's
``try_add``/``try_subtract``/``try_multiply``/``try_divide`` (``try_sum``, ``try_avg``) do (where
the other raises). ``total`` and ``average`` finish a ``sum`` or ``avg`` of decimals from the two
sums :func:`_split_decimal` splits it into (and, for ``average``, the count), over a window or
not; ``ordered_total`` adds each group's list of decimals in order as Spark's hash aggregation
does (:func:`vpush.codec.spark_aggregates.spark_decimal_sum`)."""


def decimal_function(operation: str, a: DecimalType, b: DecimalType, result: DecimalType) -> str:
    """The name of the engine function that computes ``operation`` (one of
    :data:`DECIMAL_OPERATIONS`) of a ``a`` and a ``b`` into Spark's ``result``.

    Example:
        >>> decimal_function("product", DecimalType(38, 10), DecimalType(10, 2), DecimalType(38, 6))
        'vpush_decimal_product_38_10_10_2_38_6'
    """
    numbers = (a.precision, a.scale, b.precision, b.scale, result.precision, result.scale)
    return f"{DECIMAL_FUNCTION_PREFIX}{operation}_" + "_".join(str(n) for n in numbers)


def decimal_function_types(name: str) -> tuple[str, DecimalType, DecimalType, DecimalType]:
    """The operation, operand types and result type a :func:`decimal_function` name was made of.

    Example:
        >>> decimal_function_types('vpush_decimal_try_quotient_38_10_10_2_38_6')[0]
        'try_quotient'
    """
    parts = name.removeprefix(DECIMAL_FUNCTION_PREFIX).split("_")
    p1, s1, p2, s2, pr, sr = (int(n) for n in parts[-6:])
    return "_".join(parts[:-6]), DecimalType(p1, s1), DecimalType(p2, s2), DecimalType(pr, sr)


# Spark's math functions computed by the StrictMath kernel, by the name the user calls them with:
# the kernel's name for each (one-argument log is ln; power is pow).
_STRICT_MATH_CALLS: dict[str, str] = {**{name: name for name in STRICT_MATH_ARITY}, "power": "pow"}

JAVA_TEXT_FUNCTIONS = {
    "double": "vpush_java_text_double",
    "float": "vpush_java_text_float",
    "binary": "vpush_java_text_binary",
}
"""The engine functions that give Spark's cast to string where DuckDB's differs, by the Spark
type they take: a double or float as Java's ``Double.toString`` / ``Float.toString`` prints it
(``1.0E10``, where DuckDB prints ``10000000000.0``); a binary as its bytes read as UTF-8, each
malformed sequence U+FFFD as PySpark's rows show it (DuckDB prints ``\x80`` escapes)."""

FORMAT_NUMBER_FUNCTION = "vpush_format_number"
"""The engine function that gives Spark's ``format_number(x, places)`` of a double (a float
widened to one): (DOUBLE, INTEGER) -> VARCHAR, Java's ``DecimalFormat`` of the digits of
``Double.toString`` (:func:`vpush.codec.native.format_number_native`)."""

FORMAT_PATTERN_FUNCTIONS = {
    "double": "vpush_format_number_pattern",
    "decimal": "vpush_format_decimal_pattern",
    "integer": "vpush_format_integer_pattern",
}
"""The engine functions that give Spark's ``format_number(x, pattern)`` with a literal pattern, by
what they take: a DOUBLE (a float widened), or the VARCHAR text of a decimal or an integer; the
pattern is the second argument, a VARCHAR the same on every row. Java's ``DecimalFormat`` of the
pattern (:func:`vpush.codec.native.format_number_pattern_native`)."""

JSON_TUPLE_FUNCTION = "vpush_json_tuple"
"""The engine function that gives one field of Spark's ``json_tuple(json, field, ...)``: the
field's last value that is not null, as ``get_json_object`` prints it (see
:mod:`vpush.optimizer.rewrite_generators`)."""
GET_JSON_OBJECT_FUNCTION = "vpush_get_json_object"
"""The engine function that gives Spark's ``get_json_object(json, path)`` for a literal path of
keys and indexes (:func:`vpush.codec.json_path.parse_json_path`), by the compiled kernel."""

JSON_SHAPE_FUNCTIONS = {"json_array_length": "vpush_json_array_length", "json_object_keys": "vpush_json_object_keys"}
"""The engine functions that give Spark's ``json_array_length(json)`` (the count as text) and
``json_object_keys(json)`` (the names as a JSON array of strings), by the compiled kernel
(:func:`vpush.codec.native.json_shape_native`), by the Spark function they answer."""

NTZ_TO_TIMESTAMP_FUNCTION = "vpush_ntz_to_timestamp"
"""The engine function that casts a ``timestamp_ntz`` to a ``timestamp`` in the session time zone
as java.time resolves a local time (an overlap's earlier offset; DuckDB's cast takes the later)."""

DATE_TRUNC_FUNCTION = "vpush_date_trunc"
"""The engine function that gives Spark's ``date_trunc(level, ts)`` in the session time zone (a
cut local time keeps its offset where still valid, as java.time's ``truncatedTo``: DuckDB's cut
takes an overlap's later offset). It takes the timestamp, DuckDB's name of the level and the zone."""

TIMESTAMP_ADD_INTERVAL_FUNCTION = "vpush_timestamp_add_interval"
"""The engine function that gives Spark's ``timestampAddInterval`` (months and days moved in the
local time of the session time zone as java.time's ``ZonedDateTime`` moves them, then the
microseconds): it takes the timestamp, the months, the days, the microseconds and the zone
(:func:`vpush.exec.string_datetimes.add_interval_column`)."""

UTC_SHIFT_FUNCTION = "vpush_utc_shift"
"""The engine function that gives Spark's ``from_utc_timestamp(ts, zone)`` (the wall time of ``ts``
in ``zone`` read as UTC) and ``to_utc_timestamp(ts, zone)`` (the wall time of ``ts`` in UTC read in
``zone``, as java.time resolves it). It takes the timestamp, the zone and ``'from'`` or ``'to'``."""

MAKE_TIMESTAMP_FUNCTIONS = {"timestamp": "vpush_make_timestamp", "timestamp_ntz": "vpush_make_timestamp_ntz"}
"""The engine functions that give Spark's ``make_timestamp`` family by the type they give
(:func:`vpush.exec.make_timestamp.make_timestamp`). They take the year, month, day, hour and
minute (ints), the seconds as the unscaled value of Spark's ``decimal(16,6)`` of them (a bigint),
whether to raise (1; 0 for a ``try_`` form, 2 for ``try_make_timestamp_ltz``, which raises for an
unknown zone) and, for a timestamp, the zone."""
_MAKE_TIMESTAMP_CALLS = {
    "make_timestamp": "timestamp", "make_timestamp_ltz": "timestamp", "make_timestamp_ntz": "timestamp_ntz",
    "try_make_timestamp": "timestamp", "try_make_timestamp_ltz": "timestamp", "try_make_timestamp_ntz": "timestamp_ntz",
}

STRING_DATETIME_FUNCTIONS = {
    "date": "vpush_string_to_date",
    "timestamp": "vpush_string_to_timestamp",
    "timestamp_ntz": "vpush_string_to_timestamp_ntz",
}
"""The engine functions that cast a string to a date, a timestamp (in the session time zone, the
DuckDB setting ``TimeZone``) or a timestamp_ntz as Spark does (a year alone is a date, zones
written in the text, ``CAST_INVALID_INPUT`` for bad input; :mod:`vpush.exec.string_datetimes`),
by the Spark type they give."""

FORMATTED_DATETIME_FUNCTIONS = {
    "timestamp": "vpush_to_timestamp_by_pattern",
    "date": "vpush_to_date_by_pattern",
    "unix_seconds": "vpush_unix_timestamp_by_pattern",
    "timestamp_ntz": "vpush_to_timestamp_ntz_by_pattern",
}
"""The engine functions that parse a string by a literal Spark datetime pattern
(``to_timestamp(s, fmt)``, ``to_date(s, fmt)``, ``unix_timestamp(s, fmt)``) as Spark's java.time
parser does, in the session time zone (:func:`vpush.exec.string_datetimes.formatted_string_column`),
by what they give. They take the string, the pattern, the zone and whether to raise."""

_PARSED_BY_PATTERN = {
    "to_timestamp": "timestamp", "try_to_timestamp": "timestamp", "to_date": "date", "try_to_date": "date",
    "unix_timestamp": "unix_seconds", "to_unix_timestamp": "unix_seconds",
    "to_timestamp_ltz": "timestamp", "to_timestamp_ntz": "timestamp_ntz",
}
"""The Spark functions that parse a string by a pattern, by what they give."""
_PATTERN_RESULTS: dict[str, SparkType] = {
    "timestamp": AtomicType("timestamp"), "date": AtomicType("date"), "unix_seconds": AtomicType("bigint"),
    "timestamp_ntz": AtomicType("timestamp_ntz"),
}
DEFAULT_UNIX_PATTERN = "yyyy-MM-dd HH:mm:ss"
"""The pattern of ``unix_timestamp(s)`` and ``to_unix_timestamp(s)``."""

_ARROW_TYPES: list[tuple[Callable[[pa.DataType], bool], Callable[[pa.DataType], SparkType]]] = [
    (pa.types.is_int8, lambda t: AtomicType("tinyint")),
    (pa.types.is_int16, lambda t: AtomicType("smallint")),
    (pa.types.is_int32, lambda t: _INT),
    (pa.types.is_int64, lambda t: _BIGINT),
    (pa.types.is_float32, lambda t: AtomicType("float")),
    (pa.types.is_float64, lambda t: _DOUBLE),
    (pa.types.is_boolean, lambda t: AtomicType("boolean")),
    (pa.types.is_date32, lambda t: AtomicType("date")),
    (pa.types.is_decimal, lambda t: DecimalType(t.precision, t.scale)),
    (lambda t: pa.types.is_string(t) or pa.types.is_large_string(t), lambda t: StringType()),
    (lambda t: pa.types.is_binary(t) or pa.types.is_large_binary(t), lambda t: AtomicType("binary")),
    (pa.types.is_timestamp, lambda t: AtomicType("timestamp" if t.tz else "timestamp_ntz")),
]


def arrow_spark_type(arrow_type: pa.DataType) -> SparkType | None:
    """The Spark type of a scan column of ``arrow_type``, or None for one this module leaves alone.

    Example:
        >>> arrow_spark_type(pa.decimal128(10, 2)).to_spark()
        'decimal(10,2)'
    """
    if arrow_type.equals(VARIANT_ARROW_TYPE):
        return VARIANT
    # Arrays, maps and structs as Spark reads them from Parquet: their generators need the parts.
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        element = _arrow_part_type(arrow_type.value_type)
        return ArrayType(element) if element is not None else None
    if pa.types.is_map(arrow_type):
        key, item = _arrow_part_type(arrow_type.key_type), _arrow_part_type(arrow_type.item_type)
        return MapType(key, item) if key is not None and item is not None else None
    if pa.types.is_struct(arrow_type):
        fields = [(f.name, _arrow_part_type(f.type)) for f in arrow_type]
        if any(t is None for _, t in fields):
            return None
        return StructType(tuple(StructField(n, t) for n, t in fields if t is not None))
    for test, make in _ARROW_TYPES:
        if test(arrow_type):
            return make(arrow_type)
    return None


def _arrow_part_type(arrow_type: pa.DataType) -> SparkType | None:
    """The Spark type of a part of an array, map or struct: a NULL type's is ``void``
    (``array(NULL)``'s elements; a column of NULLs only is left untyped)."""
    return VOID if pa.types.is_null(arrow_type) else arrow_spark_type(arrow_type)


def _bounded(precision: int, scale: int) -> DecimalType:
    """Spark's ``DecimalType.bounded``."""
    return DecimalType(min(precision, MAX_DECIMAL_PRECISION), min(scale, MAX_DECIMAL_PRECISION))


def _adjusted(precision: int, scale: int) -> DecimalType:
    """Spark's ``DecimalType.adjustPrecisionScale`` (``allowPrecisionLoss``, the default)."""
    if precision <= MAX_DECIMAL_PRECISION:
        return DecimalType(precision, scale)
    int_digits = precision - scale
    min_scale = min(scale, 6)
    return DecimalType(MAX_DECIMAL_PRECISION, max(MAX_DECIMAL_PRECISION - int_digits, min_scale))


_OPERATIONS: dict[type[exp.Expr], str] = {exp.Add: "sum", exp.Sub: "difference", exp.Mul: "product", exp.Div: "quotient"}
# Spark's try_ functions of decimals, by the operation they compute
_TRY_OPERATIONS = {"try_add": "sum", "try_subtract": "difference", "try_multiply": "product", "try_divide": "quotient"}


def _decimal_result(operation: str, a: DecimalType, b: DecimalType) -> DecimalType:
    """Spark's result type of ``operation`` (a :data:`DECIMAL_OPERATIONS` name, ``try_`` or not)
    of a ``a`` and a ``b`` (``DecimalPrecision``, precision loss allowed)."""
    operation = operation.removeprefix("try_")
    if operation == "product":
        return _adjusted(a.precision + b.precision + 1, a.scale + b.scale)
    if operation == "quotient":
        scale = max(6, a.scale + b.precision + 1)
        return _adjusted(a.precision - a.scale + b.scale + scale, scale)
    scale = max(a.scale, b.scale)
    return _adjusted(max(a.precision - a.scale, b.precision - b.scale) + scale + 1, scale)


def _exact_fits(operation: str, a: DecimalType, b: DecimalType, result: DecimalType) -> bool:
    """Whether the types prove that DuckDB's 38-digit arithmetic computes ``operation`` of a ``a``
    and a ``b`` exactly before it is rounded to ``result``: then DuckDB computes it (the fast path)
    and no engine function is needed."""
    if operation == "product":
        # the exact product has at most p1 + p2 digits; DuckDB's cast rounds half away from zero
        return a.precision + b.precision <= MAX_DECIMAL_PRECISION
    if operation == "quotient":
        # the unscaled integers of x * 10^shift and y (y * 10^-shift) fit a HUGEINT: _exact_divide
        shift = result.scale - a.scale + b.scale
        return a.precision + max(shift, 0) <= MAX_DECIMAL_PRECISION and b.precision + max(-shift, 0) <= MAX_DECIMAL_PRECISION
    # both rescaled to the larger scale, and their sum, fit 38 digits
    return max(a.precision - a.scale, b.precision - b.scale) + max(a.scale, b.scale) + 1 <= MAX_DECIMAL_PRECISION


def _literal_decimal(node: exp.Expr) -> DecimalType | None:
    """Spark's ``DecimalType.fromLiteral`` for an integer literal (the digits it needs)."""
    if isinstance(node, exp.Literal) and not node.is_string and node.this.lstrip("-").isdigit():
        return DecimalType(max(len(node.this.lstrip("-")), 1), 0)
    if isinstance(node, exp.Neg):
        return _literal_decimal(node.this)
    return None


def _is_fractional(t: SparkType | None) -> bool:
    return isinstance(t, AtomicType) and t.name in ("float", "double")


def _as_decimal(t: SparkType | None, node: exp.Expr) -> DecimalType | None:
    """The decimal an operand takes part in decimal arithmetic as."""
    if isinstance(t, DecimalType):
        return t
    if _is_integral(t):
        literal = _literal_decimal(node)
        assert isinstance(t, AtomicType)
        return literal or integral_decimal(t)
    return None


def _wider_integral(a: AtomicType, b: AtomicType) -> AtomicType:
    return a if _INTEGRAL.index(a.name) >= _INTEGRAL.index(b.name) else b


def _sql_type(t: SparkType) -> exp.DataType:
    built = t.to_sql_type()
    assert built is not None
    return built


_LONG_DECIMAL_DIGITS = 18
"""The most digits of a DuckDB decimal held in a BIGINT (beyond, a HUGEINT)."""


def _decimal(precision: int, scale: int) -> exp.DataType:
    return exp.DataType.build(f"DECIMAL({precision}, {scale})")


def spark_error(error_class: str, message: exp.Expression | str, to: exp.DataType | None) -> exp.Expression:
    """DuckDB SQL that raises Spark's ``error_class`` with ``message`` (typed as ``to``; None: as
    the other branch of the ``CASE`` it stands in, which DuckDB infers for an untyped ``error``)."""
    text = exp.Literal.string(message) if isinstance(message, str) else message
    marker = exp.DPipe(this=exp.Literal.string(f"{SPARK_ERROR_MARKER}|{error_class}|"), expression=text)
    raised = exp.Anonymous(this="error", expressions=[marker])
    return raised if to is None else exp.cast(raised, to)


_DIVISION = "__vpush_division"
_BY_ZERO_MESSAGES = {
    "DIVIDE_BY_ZERO": "Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead.",
    "REMAINDER_BY_ZERO": "Remainder by zero. Use `try_mod` to tolerate divisor being 0 and return NULL instead.",
}


_OPERANDS_IN_PLACE: contextvars.ContextVar[bool] = contextvars.ContextVar("operands_in_place", default=False)
"""Set while a HAVING is rewritten: DuckDB's binder reads a lambda's variable there as a column
that must be grouped, so :func:`_round_div` writes its operands out in place."""


def _round_div(numerator: exp.Expression, denominator: exp.Expression) -> exp.Expression:
    """``numerator / denominator`` of two HUGEINTs rounded half away from zero (Spark's HALF_UP);
    both are taken, not copied, and each is computed once (:func:`_with_operands`)."""
    return _with_operands({"n": numerator, "d": denominator}, _rounded_quotient)


_PENDING = itertools.count()


def _with_operands(operands: dict[str, exp.Expression], body: Callable[[Callable[[str], exp.Expression]], exp.Expression]) -> exp.Expression:
    """``body`` over ``operands`` (taken, not copied), each computed once however often ``body``
    names it (by ``operand(name)``).

    The operands go into a one-element list of a struct, and a lambda over that list's element
    names them. Written out in place, each would appear as often as it is named, and a chain of
    divisions (``a / b / c / ...``) would grow the SQL exponentially. In a HAVING
    (:data:`_OPERANDS_IN_PLACE`), where DuckDB takes no such lambda, they are written out all
    the same.
    """
    if _OPERANDS_IN_PLACE.get():
        written = {name: exp.Paren(this=operand) for name, operand in operands.items()}
        return body(lambda name: written[name].copy())
    pair = exp.Struct(
        expressions=[exp.PropertyEQ(this=exp.to_identifier(name), expression=operand) for name, operand in operands.items()]
    )

    # each lambda its own variable, unused by the lambdas inside its body; named by a placeholder
    # of this call's own until the body is built (a copy of a part that names it is renamed too)
    pending = f"{_DIVISION}_pending{next(_PENDING)}"

    def named(name: str) -> exp.Expression:
        return exp.Dot(this=exp.Column(this=exp.to_identifier(pending)), expression=exp.to_identifier(name))

    inner = body(named)
    taken = {v.name for node in inner.find_all(exp.Lambda) for v in node.expressions}
    variable = next(f"{_DIVISION}{i or ''}" for i in itertools.count() if f"{_DIVISION}{i or ''}" not in taken)
    for name_node in inner.find_all(exp.Identifier):
        if name_node.this == pending:
            name_node.set("this", variable)
    lambda_body = exp.Lambda(this=inner, expressions=[exp.to_identifier(variable)])
    each = exp.Anonymous(this="list_transform", expressions=[exp.Array(expressions=[pair]), lambda_body])
    return exp.Anonymous(this="list_extract", expressions=[each, exp.Literal.number(1)])


def _rounded_quotient(operand: Callable[[str], exp.Expression]) -> exp.Expression:
    """The HALF_UP quotient of the operands ``operand("n")`` over ``operand("d")``."""
    num, den = exp.Abs(this=operand("n")), exp.Abs(this=operand("d"))
    quotient = exp.IntDiv(this=num.copy(), expression=den.copy())
    remainder = exp.Mod(this=num.copy(), expression=den.copy())
    # HALF_UP: up where twice the remainder reaches the divisor (written as remainder >= divisor
    # - remainder: twice a remainder below a 38-digit divisor may pass a HUGEINT)
    up = exp.Case(
        ifs=[exp.If(this=exp.GTE(this=remainder, expression=exp.Sub(this=den.copy(), expression=remainder.copy())),
                    true=exp.Literal.number(1))],
        default=exp.Literal.number(0),
    )
    magnitude = exp.Paren(this=exp.Add(this=quotient, expression=up))
    negative = exp.NEQ(
        this=exp.Paren(this=exp.LT(this=operand("n"), expression=exp.Literal.number(0))),
        expression=exp.Paren(this=exp.LT(this=operand("d"), expression=exp.Literal.number(0))),
    )
    return exp.Case(ifs=[exp.If(this=negative, true=exp.Neg(this=magnitude.copy()))], default=magnitude)


def _hugeint(node: exp.Expression) -> exp.Expression:
    return exp.cast(node, exp.DataType.build("HUGEINT"), copy=False)


def _pow10(n: int) -> exp.Expression:
    return _hugeint(exp.Literal.number(10**n))


def _unscaled(node: exp.Expression, of_type: DecimalType) -> exp.Expression:
    """The unscaled integer of a decimal (``1.25`` at scale 2: 125), as HUGEINT."""
    scale = of_type.scale
    wide = exp.cast(node, _decimal(MAX_DECIMAL_PRECISION, scale), copy=False)
    if not scale:
        return _hugeint(wide)
    if of_type.precision + scale <= MAX_DECIMAL_PRECISION:
        return _hugeint(exp.Mul(this=wide, expression=exp.Literal.number(10**scale)))
    # Too wide to shift inside a DECIMAL(38): DuckDB prints every digit of the scale, so the
    # text without its point is the unscaled integer.
    text = exp.cast(wide, exp.DataType.build("VARCHAR"), copy=False)
    return _hugeint(exp.Anonymous(this="replace", expressions=[text, exp.Literal.string("."), exp.Literal.string("")]))


def _from_unscaled(unscaled: exp.Expression, result: DecimalType) -> exp.Expression:
    """The decimal ``result`` whose unscaled integer is ``unscaled``."""
    whole: exp.Expression = exp.cast(unscaled, _decimal(MAX_DECIMAL_PRECISION, 0), copy=False)
    if result.scale:
        unit = exp.cast(exp.Literal.string(f"{10 ** -result.scale:.{result.scale}f}"), _decimal(result.scale + 1, result.scale))
        whole = exp.Mul(this=whole, expression=unit)
    return exp.cast(whole, _decimal(result.precision, result.scale), copy=False)


# The significant digits of Scala's default MathContext (DECIMAL128), under which Spark's Decimal
# negates a value held as a BigDecimal (``unary_-``; ``abs`` of a negative value too).
_NEGATION_DIGITS = 34
_LITERAL = "vpush_decimal_literal"
"""The meta key of a number literal's cast to Spark's decimal type (a minus sign before it is part
of Spark's literal, not a negation)."""


def _decimal_negation(value: exp.Expr, of_type: DecimalType, *, absolute: bool = False) -> exp.Expression:
    """Spark's ``-value`` (``abs(value)`` with ``absolute``) of a decimal ``of_type`` of more than
    34 digits: Scala's ``BigDecimal`` negates under ``MathContext.DECIMAL128``, so an unscaled
    value of more than 34 digits is rounded HALF_EVEN to 34 significant digits, and where that
    passes ``of_type``'s precision Spark raises ``NUMERIC_VALUE_OUT_OF_RANGE`` (measured on
    Spark 4.3: ``-CAST('12345678901234567890123456789012345' AS decimal(35,0))`` is
    ``-12345678901234567890123456789012340``; ``abs`` of a positive value is the value itself).

    Example:
        >>> _decimal_negation(exp.column("x"), DecimalType(30, 2)).sql("duckdb")
        '-(x)'
    """
    if of_type.precision <= _NEGATION_DIGITS:
        return exp.Abs(this=value) if absolute else exp.Neg(this=exp.Paren(this=value))

    def rounded(operand: Callable[[str], exp.Expression]) -> exp.Expression:
        magnitude = exp.Abs(this=operand("u"))
        # the digits past the 34th (at most 4 of a 38-digit value) are cut off, HALF_EVEN
        # (each operand named afresh, never copied: a copy would keep the lambda's placeholder name)
        digits = exp.Length(this=exp.cast(exp.Abs(this=operand("u")), exp.DataType.build("VARCHAR"), copy=False))
        units = exp.cast(exp.Array(expressions=[exp.Literal.number(10**k) for k in range(MAX_DECIMAL_PRECISION - _NEGATION_DIGITS + 1)]),
                         exp.DataType.build("HUGEINT[]"))
        unit = exp.Anonymous(this="list_extract", expressions=[units, exp.Anonymous(this="greatest", expressions=[
            exp.Sub(this=digits, expression=exp.Literal.number(_NEGATION_DIGITS - 1)), exp.Literal.number(1)])])
        return _with_operands({"m": magnitude, "unit": unit}, kept_and_cut)

    def kept_and_cut(operand: Callable[[str], exp.Expression]) -> exp.Expression:
        kept = exp.IntDiv(this=operand("m"), expression=operand("unit"))
        twice_cut = exp.Mul(this=exp.Paren(this=exp.Mod(this=operand("m"), expression=operand("unit"))), expression=exp.Literal.number(2))
        return _with_operands({"k": kept, "c": twice_cut, "unit": operand("unit")}, half_even)

    def half_even(operand: Callable[[str], exp.Expression]) -> exp.Expression:
        odd = exp.EQ(this=exp.Mod(this=operand("k"), expression=exp.Literal.number(2)), expression=exp.Literal.number(1))
        up = exp.Or(this=exp.GT(this=operand("c"), expression=operand("unit")),
                    expression=exp.And(this=exp.EQ(this=operand("c"), expression=operand("unit")), expression=odd))
        step = exp.Case(ifs=[exp.If(this=up, true=exp.Literal.number(1))], default=exp.Literal.number(0))
        return exp.Mul(this=exp.Paren(this=exp.Add(this=operand("k"), expression=step)), expression=operand("unit"))

    def negated(operand: Callable[[str], exp.Expression]) -> exp.Expression:
        positive = exp.GT(this=operand("u"), expression=exp.Literal.number(0))
        if absolute:
            # abs of a positive value is the value itself (Decimal.abs negates only below zero)
            signed: exp.Expression = exp.Case(ifs=[exp.If(this=positive, true=operand("u"))], default=operand("r"))
            below_zero = exp.LT(this=operand("u"), expression=exp.Literal.number(0))
            too_big: exp.Expression = exp.And(this=below_zero, expression=exp.GTE(this=operand("r"), expression=_pow10(of_type.precision)))
        else:
            signed = exp.Case(ifs=[exp.If(this=positive, true=exp.Neg(this=operand("r")))], default=operand("r"))
            too_big = exp.GTE(this=operand("r"), expression=_pow10(of_type.precision))
        message = f"The negation of a decimal rounded to {_NEGATION_DIGITS} digits cannot be represented as Decimal({of_type.precision}, {of_type.scale})."
        return exp.Case(
            ifs=[exp.If(this=too_big, true=spark_error("NUMERIC_VALUE_OUT_OF_RANGE.WITHOUT_SUGGESTION", message, _sql_type(of_type)))],
            # (exp.cast would keep _from_unscaled's DECIMAL(38, 0) of an integer: the same type to sqlglot)
            default=exp.Cast(this=_from_unscaled(signed, of_type), to=_sql_type(of_type)),
        )

    def with_rounded(operand: Callable[[str], exp.Expression]) -> exp.Expression:
        return _with_operands({"u": operand("u"), "r": _with_operands({"u": operand("u")}, rounded)}, negated)

    return _with_operands({"u": _unscaled(typing.cast(exp.Expression, value), of_type)}, with_rounded)


# A decimal sum is split into a sum of bigints counting units of 10^SPLIT_DIGITS (unscaled) and
# a sum of small decimals (see _split_decimal).
_SPLIT_DIGITS = 20


def _split_decimal(value: exp.Expression, scale: int) -> tuple[exp.Expression, exp.Expression]:
    """A ``decimal(38, scale)`` ``value`` as a bigint ``q`` and a decimal ``rest`` with ``value =
    q * 10^(20 - scale) + rest`` exactly, ``rest`` below 10^23 unscaled: summed apart, neither
    sum passes DuckDB's 128 bits for fewer than about 10^15 rows, where ``value``'s own running
    total may (Spark's total is exact until the end).

    ``q`` is 0 where ``value`` is below 10^19 unscaled (most values: no more than DuckDB's own
    sum costs), else the quotient by the unit through a double (DuckDB's decimal division and
    truncation are far slower), shrunk by 2^-50 so that ``q`` times the unit never passes
    ``value`` (the double's error is below 2^-51 of it): ``rest`` keeps ``value``'s sign and is
    below 2^-50 of it plus a unit.
    """
    x = exp.cast(value, _decimal(MAX_DECIMAL_PRECISION, scale))
    small = decimal.Decimal(10) ** (_SPLIT_DIGITS - 1 - scale)
    bound = exp.cast(exp.Literal.string(f"{small:f}"), _decimal(MAX_DECIMAL_PRECISION, scale))
    big = exp.Or(this=exp.GTE(this=x.copy(), expression=bound),
                 expression=exp.LTE(this=x.copy(), expression=exp.Neg(this=bound.copy())))
    factor = (1 - 2.0**-50) * 10.0 ** (scale - _SPLIT_DIGITS)
    approx = exp.Mul(this=exp.cast(x.copy(), exp.DataType.build("DOUBLE")), expression=exp.Literal.number(repr(factor)))
    q = exp.Case(ifs=[exp.If(this=big, true=exp.cast(exp.Anonymous(this="trunc", expressions=[approx]), exp.DataType.build("BIGINT")))],
                 default=exp.cast(exp.Literal.number(0), exp.DataType.build("BIGINT")))
    unit = exp.cast(exp.Literal.string(f"{decimal.Decimal(10) ** (_SPLIT_DIGITS - scale):f}"), _decimal(max(_SPLIT_DIGITS + 1, scale), scale))
    rest = exp.Sub(this=x, expression=exp.Mul(this=exp.cast(q.copy(), _decimal(18, 0)), expression=unit))
    return q, rest


def _grouped(node: exp.Expr) -> bool:
    """Whether ``node`` is in a SELECT with a GROUP BY."""
    select = node.find_ancestor(exp.Select)
    return select is not None and select.args.get("group") is not None


def _rescale(unscaled: exp.Expression, from_scale: int, to_scale: int) -> exp.Expression:
    if to_scale >= from_scale:
        return exp.Mul(this=unscaled, expression=_pow10(to_scale - from_scale))
    return _round_div(unscaled, _pow10(from_scale - to_scale))


def _exact_divide(num: exp.Expression, num_type: DecimalType, den: exp.Expression, den_type: DecimalType, result: DecimalType) -> exp.Expression:
    """Spark's decimal division (``DecimalPrecision``): the unscaled integer of the quotient
    rounded HALF_UP to ``result``'s scale, computed on 128-bit integers (``x * 10^shift`` by
    ``y``, or ``x`` by ``y * 10^-shift``: :func:`_exact_fits` proves that they fit)."""
    shift = result.scale - num_type.scale + den_type.scale
    numerator, denominator = _unscaled(num, num_type), _unscaled(den, den_type)
    if shift > 0:
        numerator = exp.Mul(this=numerator, expression=_pow10(shift))
    elif shift < 0:
        denominator = exp.Mul(this=denominator, expression=_pow10(-shift))
    return _round_div(numerator, denominator)


class _Typer:
    """Spark types of the expressions of one SELECT, from its sources' column types."""

    def __init__(self, scope: Scope, columns: Mapping[str, Mapping[str, SparkType | None]]) -> None:
        self.scope = scope
        self.columns = columns
        self.types: dict[int, SparkType | None] = {}
        # every node typed above, kept alive while its id is a key: a node freed in a rewrite
        # would leave its id, and its type, to the next node Python puts at its address
        self._typed: list[exp.Expr] = []
        # each SELECT's output types (by id), for a scalar subquery's type: its one output's
        self.subquery_outputs: Mapping[int, Mapping[str, SparkType | None]] = {}

    def source_columns(self, name: str) -> Mapping[str, SparkType | None]:
        return self.columns.get(name.lower(), {})

    def column(self, node: exp.Column) -> SparkType | None:
        from vpush.optimizer import spark_arrays

        bound = spark_arrays.lambda_variable_type(node, self.of)
        if not spark_arrays.is_unbound(bound):
            return bound if isinstance(bound, SparkType) else None
        name = node.name.lower()
        read = self.array_fields(node, crossing=False)  # s.a: a struct column's field (of an array's structs too)
        if read is not None:
            return read[1]
        if node.table and node.parts[0].name.lower() in _lambda_variables(node):
            return self._lambda_variable_field(node)
        if node.table:
            return self.source_columns(node.table).get(name)
        found = [cols[name] for alias in self.scope.selected_sources if name in (cols := self.source_columns(alias))]
        if not found:
            return self._alias_type(node)
        if len(found) > 1 and all(kind == found[0] for kind in found) and self._joined_using(name):
            return found[0]  # a join USING's key: one column, of its sides' one type
        return found[0] if len(found) == 1 else None

    def _joined_using(self, name: str) -> bool:
        """Whether ``name`` (lower-cased) is a key of a join ``USING`` or ``NATURAL`` of the SELECT."""
        select = self.scope.expression
        joins = select.args.get("joins") or [] if isinstance(select, exp.Select) else []
        return any((keys := using_keys(join)) is not None and (not keys or name in keys) for join in joins)

    def _alias_type(self, node: exp.Column) -> SparkType | None:
        """The type of a HAVING's, QUALIFY's or ORDER BY's name that no source has but one of its
        SELECT's projections (Spark resolves it to the alias)."""
        select = self.scope.expression
        clause = node.find_ancestor(exp.Having, exp.Qualify, exp.Order, exp.Select)
        if not isinstance(select, exp.Select) or not isinstance(clause, (exp.Having, exp.Qualify, exp.Order)) or clause.parent is not select:
            return None
        named = [p for p in select.expressions if isinstance(p, exp.Alias) and p.alias.lower() == node.name.lower()]
        return self.of(named[0].this) if len(named) == 1 else None

    def _lambda_variable_field(self, node: exp.Column) -> SparkType | None:
        """The type of ``x.a.b``, a field of a struct a lambda's variable holds (None where a
        step is no struct's one field of that name)."""
        from vpush.optimizer import spark_arrays

        variable = exp.column(node.parts[0].copy())
        variable.parent = node.parent  # resolved where the read stands (not entered in the tree)
        kind = spark_arrays.lambda_variable_type(variable, self.of)
        for part in node.parts[1:]:
            if not isinstance(kind, StructType):
                return None
            matches = [f for f in kind.fields if f.name.lower() == part.name.lower()]
            if len(matches) != 1:
                return None
            kind = matches[0].type
        return _unmarked(kind) if isinstance(kind, SparkType) else None

    def array_fields(self, node: exp.Expr, *, crossing: bool = True) -> tuple[exp.Expr, SparkType, list[tuple[str, bool]]] | None:
        """A field read through an array of structs (``x.a`` of an ``array<struct<a, ...>>``, or
        ``f(...).a``; Spark's GetArrayStructFields, an array of each element's field): the
        expression read from, the result's type, and the steps of DuckDB's expression of it
        (:func:`_fields_read`: per field, its name and whether each element's); None for other
        reads (a column, a field vpush cannot type, and unless ``crossing`` is False a struct's
        field, Spark's GetStructField)."""
        if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
            base: exp.Expr = node.this
            fields = [node.expression.name]
        elif isinstance(node, exp.Column) and node.table and not isinstance(node.this, exp.Star):
            parts = node.parts
            if parts[0].name.lower() in _lambda_variables(node):
                return None  # a lambda's variable: spark_arrays types it
            sources = {s.lower() for s in self.scope.selected_sources}
            if len(parts) == 2 and parts[0].name.lower() in sources and self.source_columns(parts[0].name).get(parts[1].name.lower()) is not None:
                return None  # t.c: a table's column
            split = _split_dotted(node, sources)
            if split is None:
                return None
            base, fields = split[0], [p.name for p in split[1]]
        else:
            return None
        of_type = self.column(base) if isinstance(base, exp.Column) else self.of(base)
        steps: list[tuple[str, bool]] = []  # (field, read in each element)
        crossed = False
        for field in fields:
            element = of_type.element if isinstance(of_type, ArrayType) else None
            struct = element if isinstance(element, StructType) else of_type
            if not isinstance(struct, StructType):
                return None
            matches = [f for f in struct.fields if f.name.lower() == field.lower()]
            if len(matches) != 1:
                return None
            if element is not None:
                crossed = True
                of_type = ArrayType(matches[0].type)
            else:
                of_type = matches[0].type
            steps.append((matches[0].name, element is not None))
        if (crossing and not crossed) or of_type is None:
            return None
        return base, _unmarked(of_type), steps

    def of(self, node: exp.Expr) -> SparkType | None:
        key = id(node)
        if key not in self.types:
            self.types[key] = self._type(node)
            self._typed.append(node)
        return self.types[key]

    def set_type(self, node: exp.Expr, kind: SparkType | None) -> None:
        """Record ``node``'s type (a node a rewrite wrote), keeping the node alive."""
        self.types[id(node)] = kind
        self._typed.append(node)

    def _type(self, node: exp.Expr) -> SparkType | None:
        from vpush.optimizer import spark_arrays

        if isinstance(node, exp.Filter):
            return self.of(node.this)  # agg(x) FILTER (WHERE ...) is of agg(x)'s type
        array_call = spark_arrays.array_call(node)
        if array_call is not None:
            return spark_arrays.array_function_type(*array_call, self.of)
        called = None if isinstance(node, (exp.Cast, exp.TryCast)) else _called(node)
        if called is not None:
            typed = self._call_type(node, called)
            if typed is not None:
                return typed
        if isinstance(node, (exp.IgnoreNulls, exp.RespectNulls)):
            return self.of(node.this)  # first(x) IGNORE NULLS is of first(x)'s type
        if isinstance(node, exp.Subquery) and not isinstance(node.parent, (exp.From, exp.Join, exp.In, exp.Exists, exp.Lateral)):
            # (SELECT max(x) FROM u): max(x)'s type, for a subquery of this scope's own (by identity:
            # an id of a node the rewrite dropped may be a new node's)
            if any(sub.expression is node.this for sub in self.scope.subquery_scopes):
                found = self.subquery_outputs.get(id(node.this), {})
                return next(iter(found.values())) if len(found) == 1 else None
            return None
        if isinstance(node, exp.Column):
            return self.column(node) if not isinstance(node.this, exp.Star) else None
        if isinstance(node, exp.Identifier):
            from vpush.optimizer import spark_arrays

            bound = spark_arrays.lambda_variable_type(node, self.of)  # a variable in a lambda's body
            return bound if isinstance(bound, SparkType) else None
        if isinstance(node, (exp.Struct, exp.Array, exp.VarMap)):
            return self._constructed(node)
        if isinstance(node, (ParseJson, ToVariantObject)):
            return VARIANT
        if isinstance(node, exp.HexString):
            return AtomicType("binary")
        if isinstance(node, exp.Case):
            branches = [i.args.get("true") for i in node.args.get("ifs") or []] + [node.args.get("default")]
            return self._branches([b for b in branches if b is not None])
        if isinstance(node, exp.If) and not isinstance(node.parent, exp.Case):
            # if(c, a, b): the type both branches have (NULL takes the other's); unknown where they differ
            return self._branches([b for b in (node.args.get("true"), node.args.get("false")) if b is not None])
        if isinstance(node, exp.Coalesce):
            return self._branches([node.this, *node.expressions])
        if isinstance(node, (exp.Greatest, exp.Least)):
            # over numbers: the type Spark widens them to (DuckDB's differs for decimals and floats)
            wide = _numeric_common_type([self.of(p) for p in (node.this, *node.expressions) if not isinstance(p, exp.Null)])
            if wide is not None:
                return wide
        if isinstance(node, exp.Round) and isinstance(self.of(node.this), DecimalType):
            return _decimal_round_type(self.of(node.this), node.args.get("decimals"))  # type: ignore[arg-type]
        if isinstance(node, exp.Abs) and isinstance(self.of(node.this), DecimalType):
            return self.of(node.this)
        if isinstance(node, exp.Abs) and self.of(node.this) in _ABS_TYPES:
            return self.of(node.this)  # Spark's abs keeps its argument's type (ARITHMETIC_OVERFLOW at the least integer)
        if isinstance(node, VariantGet):
            try:
                return node.target_type
            except Exception:  # noqa: BLE001 - a type vpush does not know: untyped
                return None
        if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
            read = self.array_fields(node, crossing=False)  # a struct's field, or an array of structs' fields
            return None if read is None else read[1]
        if isinstance(node, exp.Bracket) and len(node.expressions) == 1:
            source = self.of(node.this)
            if isinstance(source, ArrayType) and _is_integral(self.of(node.expressions[0])):
                return source.element  # Spark's GetArrayItem (and element_at)
            key = node.expressions[0]
            if isinstance(source, StructType) and isinstance(key, exp.Literal) and key.is_string:
                matches = [f for f in source.fields if f.name.lower() == key.name.lower()]
                return _unmarked(matches[0].type) if len(matches) == 1 else None  # s['a']: Spark's GetStructField
            return source.value if isinstance(source, MapType) else None
        negative = _negative_integer_literal(node)
        if negative is not None and not isinstance(typed := _literal_type(exp.Literal(this=negative, is_string=False)), DecimalType):
            return typed  # an int or bigint by its negative value; a decimal by its digits, as below
        if isinstance(node, (exp.Paren, exp.Alias, exp.Neg)):
            return self.of(node.this)
        if isinstance(node, exp.Literal):
            return _literal_type(node)
        if isinstance(node, exp.Boolean):
            return AtomicType("boolean")
        if isinstance(node, (exp.Cast, exp.TryCast)):
            return _cast_type(node)
        if isinstance(node, exp.Substring) and self.of(node.this) == _BINARY:
            return _BINARY
        if isinstance(node, exp.Pad) and _binary_padded(node, self.of):
            return _BINARY
        if isinstance(node, _STRING_RESULTS) or (
            isinstance(node, (exp.Concat, exp.DPipe))
            and all(isinstance(self.of(p), StringType) for p in node.expressions or [node.this, node.expression] if p is not None)
        ):
            return StringType()
        if isinstance(node, (exp.Concat, exp.DPipe)) and self._concat_of_text(node):
            return StringType()
        if isinstance(node, (exp.Concat, exp.DPipe)):
            arrays = _concat_parts(node, self.of)
            if arrays is not None:
                return arrays[1]
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Mod)):
            return self._arithmetic(node)
        if isinstance(node, exp.Div):
            left, right = self.of(node.this), self.of(node.expression)
            if _string_read_as_double(left, right):
                return _DOUBLE
            if isinstance(left, DecimalType) or isinstance(right, DecimalType):
                a, b = _as_decimal(left, node.this), _as_decimal(right, node.expression)
                if a is None or b is None:
                    return _DOUBLE if _is_fractional(left) or _is_fractional(right) else None
                return _decimal_result("quotient", a, b)
            return _DOUBLE if left is not None and right is not None else None
        if isinstance(node, exp.IntDiv):
            return _BIGINT
        if isinstance(node, exp.Count):
            return _BIGINT
        if isinstance(node, exp.Sum):
            return _sum_type(self.of(_distinct_argument(node.this)))
        if isinstance(node, exp.Avg):
            return _average_type(self.of(_distinct_argument(node.this)))
        if isinstance(node, (exp.Min, exp.Max)):
            return self._part(node.this)
        if isinstance(node, exp.Window):
            return self.of(node.this)
        if isinstance(node, exp.DateDiff):
            return _INT if node.args.get("unit") is None else None
        if isinstance(node, (*_RANKING, exp.Length, exp.ArraySize)):
            return _INT
        if isinstance(node, exp.CountIf):
            return _BIGINT
        if isinstance(node, tuple(_DATETIME_PARTS)) or (isinstance(node, exp.Anonymous) and node.name.lower() == "weekday"):
            return _INT
        if isinstance(node, exp.StrToUnix):
            return _BIGINT
        if isinstance(node, (exp.TimestampTrunc, exp.CurrentTimestamp)):
            return AtomicType("timestamp")
        if isinstance(node, (exp.CurrentDate, exp.TsOrDsToDate)):
            return AtomicType("date")
        if isinstance(node, exp.ApproxQuantile):  # percentile_approx: its argument's type (an array of it)
            source = self.of(node.this)
            return ArrayType(source) if isinstance(node.args.get("quantile"), exp.Array) and source is not None else source
        if isinstance(node, (exp.Quantile, exp.Median)) or _percentile_cont(node) is not None:
            return _DOUBLE
        mode_order = _mode_within_group(node)
        if mode_order is not None:
            return self.of(mode_order.this)
        return None

    def _constructed(self, node: exp.Struct | exp.Array | exp.VarMap) -> SparkType | None:
        """The type of ``named_struct``/``struct``, ``array`` and ``map`` where each part has one
        known type (an array's elements and a map's keys and values all the same, NULLs aside);
        None for the rest, Spark's coercions among different types included."""
        if isinstance(node, exp.Struct):
            fields = []
            for part in node.expressions:
                if not isinstance(part, exp.PropertyEQ):
                    return None
                typed = VOID if isinstance(_unparen(part.expression), exp.Null) else self._part(part.expression)
                if typed is None:
                    return None
                fields.append(StructField(part.this.name, typed))
            return StructType(tuple(fields))
        if isinstance(node, exp.Array):
            # integers of different widths widen, in Spark and in DuckDB's list alike
            element = self._map_part(node.expressions)
            if all(isinstance(_unparen(p), exp.Null) for p in node.expressions):
                element = VOID  # array(), array(NULL): Spark's array<void>
            if element is None:
                # arrays, maps or structs of different types: the type the rewrite coerces them to
                # (_coerce_nested_parts), so that a function over the array knows it (flatten)
                kinds = [self._part(p) for p in node.expressions if not isinstance(p, exp.Null)]
                known = [k for k in kinds if k is not None]
                if len(known) == len(kinds) and any(isinstance(k, (ArrayType, MapType, StructType)) for k in known) and all(
                        coercible(k) for k in known) and not any(_map_keys_differ(k, known[0]) for k in known):
                    element = nested_common_type(known)
            return None if element is None else ArrayType(element)
        keys, values = node.args.get("keys"), node.args.get("values")
        if not isinstance(keys, exp.Array) or not isinstance(values, exp.Array):
            return None
        key, value = self._map_part(keys.expressions), self._map_part(values.expressions)
        if all(isinstance(_unparen(p), exp.Null) for p in values.expressions):
            value = VOID  # map(1, NULL): Spark's map<int,void>
        if not keys.expressions:
            key = VOID  # map(): map<void,void>
        return None if key is None or value is None else MapType(key, value)

    def _map_part(self, parts: list[exp.Expr]) -> SparkType | None:
        """The one type of a map's keys or values, or an array's elements: :meth:`_common`, or the
        widest of integers of different widths (Spark widens ``map(1, i, 2, b)`` to
        ``map<int,bigint>``)."""
        common = self._common(parts)
        if common is not None:
            return common
        types = [self._part(p) for p in parts if not isinstance(p, exp.Null)]
        among_strings = string_branch_type(types)
        if among_strings is not None:
            return among_strings
        return _numeric_common_type(types)

    def _concat_of_text(self, node: exp.Expr) -> bool:
        """Whether ``concat``/``||`` casts its arguments to strings (Spark's ``ConcatCoercion``):
        strings beside numbers, booleans, dates or timestamps (``x.sku || ':' || x.qty``), with
        at least one typed; not binaries, arrays or anything vpush does not type."""
        parts = [p for p in (node.expressions or [node.this, node.expression]) if p is not None and not isinstance(_unparen(p), exp.Null)]
        kinds = [self.of(p) for p in parts]
        return bool(kinds) and any(isinstance(k, StringType) for k in kinds) and all(
            isinstance(k, (StringType, DecimalType)) or (isinstance(k, AtomicType) and k not in (_BINARY, VARIANT)) for k in kinds
        )

    def _branches(self, parts: list[exp.Expr]) -> SparkType | None:
        """The type of ``CASE``/``if``/``coalesce`` over ``parts``: the one they share, or the
        decimal Spark widens integers and decimals to."""
        kinds = [self._part(p) for p in parts if not isinstance(p, exp.Null)]
        if kinds and set(kinds) == {StringType(), _BOOLEAN}:
            return _BOOLEAN
        others = set(kinds) - {StringType()}
        if StringType() in kinds and len(others) == 1 and others <= {AtomicType("date"), *_TIMESTAMPS, _BINARY}:
            return others.pop()  # strings beside dates, timestamps or binaries are cast to them
        return self._common(parts) or _numeric_common_type(kinds)

    def _common(self, parts: list[exp.Expr]) -> SparkType | None:
        types = {self._part(p) for p in parts if not isinstance(p, exp.Null)}
        return types.pop() if len(types) == 1 else None

    def _part(self, node: exp.Expr) -> SparkType | None:
        """The type of a part of a constructed value: :meth:`of`, and the few results that are
        plain in Spark whatever their inputs (predicates are booleans, ``concat`` of strings a
        string), which only this use needs."""
        typed = self.of(node)
        if typed is not None:
            return typed
        if isinstance(node, _PREDICATES):
            return AtomicType("boolean")
        if isinstance(node, (exp.TsOrDsAdd, exp.DateAdd, exp.DateSub)) and self.of(node.this) == AtomicType("date"):
            return AtomicType("date")
        if isinstance(node, (exp.Concat, exp.DPipe)) and all(
            isinstance(self.of(p), StringType) for p in node.expressions or [node.this, node.expression] if p is not None
        ):
            return StringType()
        return None

    def _call_type(self, node: exp.Expr, called: str) -> SparkType | None:
        """The Spark type of a call to a function of :data:`SPARK_FUNCTIONS` that Spark types
        differently from DuckDB, by its name."""
        if called in ("pmod", "try_mod"):
            operands = self._decimal_call_operands(node)
            if operands is not None:
                scale = max(operands[0].scale, operands[1].scale)
                return _adjusted(min(d.precision - d.scale for d in operands) + scale, scale)
        if called in _TRY_OPERATIONS:
            operands = self._decimal_call_operands(node)
            if operands is not None:
                return _decimal_result(_TRY_OPERATIONS[called], *operands)
        if called in SCALAR_FUNCTIONS and (called != "locate" or len(_arguments(node)) == 3):
            return scalar_type(called, _arguments(node), self.of)
        if called in ENCODING_FUNCTIONS and not isinstance(node, exp.Case):  # decode(x, s, r, ...) is a CASE
            return encoding_type(called, _arguments(node), self.of)
        if called in PARSE_URL_FUNCTIONS:
            return parse_url_type(_arguments(node), self.of)
        if called == "histogram_numeric" and len(_arguments(node)) == 2:
            source = self.of(_arguments(node)[0])
            if source in _HISTOGRAM_TYPES:
                assert source is not None
                return ArrayType(StructType((StructField("x", source), StructField("y", _DOUBLE))))
            return None
        if called == "mode" and isinstance(node, exp.Mode):
            return self.of(node.this)
        if called == JSON_TUPLE_FIELD and len(_arguments(node)) == 2:
            return StringType()
        if called in KERNEL_CALLS:
            return KERNEL_CALLS[called]
        if called == "approx_count_distinct":
            return _BIGINT
        if called == "regr_count" and isinstance(node, exp.RegrCount):
            return _BIGINT
        if called == "grouping" and isinstance(node, exp.Grouping):
            return AtomicType("tinyint")
        if called == "grouping_id" and isinstance(node, exp.GroupingId):
            return _BIGINT
        if called == "convert_timezone" and isinstance(node, exp.ConvertTimezone):
            return AtomicType("timestamp_ntz")
        if isinstance(node, exp.TimestampAdd) and called in ("timestampadd", "dateadd", "date_add"):
            return AtomicType("timestamp_ntz" if self.of(node.this) == AtomicType("timestamp_ntz") else "timestamp")
        if isinstance(node, exp.TimestampDiff) and called in _TIMESTAMPDIFF_NAMES:
            return _BIGINT
        if called in ("regr_avgx", "regr_avgy") and isinstance(node, (exp.RegrAvgx, exp.RegrAvgy)):
            return _average_type(self.of(node.expression if called == "regr_avgx" else node.this))
        if called in ("try_sum", "try_avg"):
            summed = _arguments(node)
            if len(summed) != 1:
                return None
            typed = self.of(_distinct_argument(summed[0]))
            return _sum_type(typed) if called == "try_sum" else _average_type(typed)
        if called in ("zeroifnull", "nullifzero"):
            given = _arguments(node)
            source = self.of(given[0]) if len(given) == 1 else None
            if called == "nullifzero" or source in (_BIGINT, _DOUBLE, AtomicType("float")):
                return source if _is_integral(source) or _is_fractional(source) or isinstance(source, DecimalType) else None
            # coalesce(x, 0): the int 0 widens a narrower integer to an int, a decimal to hold 10 digits
            if _is_integral(source):
                return _INT
            return _bounded(max(source.precision - source.scale, 10) + source.scale, source.scale) if isinstance(source, DecimalType) else None
        if called in ("extract", "date_part", "datepart"):
            field = _extract_field(node)
            if field is not None and field[0] == "second":
                return _SECONDS_TYPE
        if called in _INT_FUNCTIONS:
            return _INT
        if called in ("unix_seconds", "unix_millis", "unix_micros"):
            return _BIGINT
        if called in _DOUBLE_FUNCTIONS or called in _DOUBLE_AGGREGATES:
            return _DOUBLE
        if called in _AGGREGATES_OF_THEIR_ARGUMENT or called in ("collect_list", "collect_set", "array_agg"):
            # collect_list(x) an array of x's type; first(x), lag(x), max_by(x, y), bit_and(x), ...: x's
            inner = node.this if isinstance(node, (exp.IgnoreNulls, exp.RespectNulls)) else node
            given = _arguments(inner) or _arguments(node)  # last(x, true): the call is the IGNORE NULLS
            source = self._part(_distinct_argument(given[0])) if given else None
            if called in _AGGREGATES_OF_THEIR_ARGUMENT:
                return source
            if given and isinstance(_unparen(_distinct_argument(given[0])), exp.Null):
                source = VOID  # collect_list(NULL): Spark's array<void> (of no values)
            return ArrayType(source) if source is not None else None
        if called in _BOOLEAN_AGGREGATES or called in ("is_variant_null", "is_valid_variant"):
            return AtomicType("boolean")
        if called in ("to_json", "schema_of_variant", "schema_of_variant_agg"):
            return StringType()
        if called == "try_parse_json":
            return VARIANT
        if called in ("string_agg", "listagg"):
            given = _arguments(node)
            source = self.of(_distinct_argument(given[0])) if given else None
            return source if isinstance(source, StringType) or source == AtomicType("binary") else None
        if called in ("from_utc_timestamp", "to_utc_timestamp"):
            return AtomicType("timestamp")
        if called == "window_time":
            given = _arguments(node)
            return window_time_type(self.of(given[0])) if len(given) == 1 else None
        if called in _MAKE_TIMESTAMP_CALLS:
            return AtomicType(_MAKE_TIMESTAMP_CALLS[called])
        if called == "schema_of_json":
            return StringType()
        if called == "from_json":
            schema = _arguments(node)[1:2]
            if schema and isinstance(schema[0], exp.Literal) and schema[0].is_string:
                return from_json_schema(schema[0].name)
            return None
        if called in ("add_months", "last_day", "make_date", "date_add", "date_sub", "dateadd"):
            return AtomicType("date")
        if called == "array_contains":
            return AtomicType("boolean")
        if called == "trunc":
            return AtomicType("date")
        if called == "months_between":
            return _DOUBLE
        if called == "json_array_length":
            return AtomicType("int")
        if called == "json_object_keys":
            return ArrayType(StringType())
        if called in ("from_unixtime", "date_format", "get_json_object"):
            return StringType()
        if called in NUMBER_FORMAT_CALLS:
            return number_format_type(called, call_arguments(node) or [])
        if called in ("dayname", "monthname"):
            return StringType()
        if called in _PARSED_BY_PATTERN:
            return _PATTERN_RESULTS[_PARSED_BY_PATTERN[called]]
        if called in _EPOCH_UNITS:
            return AtomicType("timestamp")
        if called == "date_from_unix_date":
            return AtomicType("date")
        if called in ("sha2", "base64"):
            return StringType()
        if called == "str_to_map":
            return MapType(StringType(), StringType())
        if called == "map_from_arrays":
            arguments = call_arguments(node) or []
            parts = [self.of(a) for a in arguments if a is not None]
            if len(parts) == 2 and isinstance(parts[0], ArrayType) and isinstance(parts[1], ArrayType):
                return MapType(parts[0].element, parts[1].element)
            return None
        if called == "map_from_entries":
            entries = self.of(node.this) if isinstance(node, exp.MapFromEntries) else None
            if isinstance(entries, ArrayType) and isinstance(entries.element, StructType) and len(entries.element.fields) == 2:
                return MapType(entries.element.fields[0].type, entries.element.fields[1].type)
            return None
        if called in ("map_keys", "map_values", "map_contains_key"):
            if called == "map_contains_key":
                return AtomicType("boolean")
            mapped = node.this if isinstance(node, exp.MapKeys) else (call_arguments(node) or [node])[0]
            source = self.of(mapped) if mapped is not None else None
            if not isinstance(source, MapType):
                return None
            return ArrayType(source.key if called == "map_keys" else source.value)
        if called == "get":
            arguments = call_arguments(node) or []
            source = self.of(arguments[0]) if arguments and arguments[0] is not None else None
            return source.element if isinstance(source, ArrayType) else None
        if called in ("element_at", "try_element_at", "reverse"):
            arguments = call_arguments(node) or []
            source = self.of(arguments[0]) if arguments and arguments[0] is not None else None
            if called != "reverse":
                if isinstance(source, MapType):
                    return source.value
                return source.element if isinstance(source, ArrayType) else None
            return source if isinstance(source, (StringType, ArrayType)) else None
        if called in ("floor", "ceil", "ceiling"):
            # the argument in the tree (a literal's trace is the literal as written, not the
            # implicit cast around it: _strings_to_doubles)
            arguments = [node.this] if isinstance(node, (exp.Ceil, exp.Floor)) else (call_arguments(node) or [node.this])
            source = self.of(arguments[0]) if arguments and arguments[0] is not None else None
            if isinstance(source, DecimalType):
                return _bounded(source.precision - source.scale + 1, 0)
            return _BIGINT if _is_integral(source) or _is_fractional(source) else None
        return None

    def _decimal_call_operands(self, node: exp.Expr) -> tuple[DecimalType, DecimalType] | None:
        """The decimals a ``try_add``/``try_subtract``/``try_multiply``/``try_divide`` (or
        ``pmod``) call computes with, where one argument is a decimal and the other a decimal or
        an integer."""
        arguments = _arguments(node)
        if len(arguments) != 2:
            return None
        types = [self.of(a) for a in arguments]
        if not any(isinstance(t, DecimalType) for t in types):
            return None
        a, b = (_as_decimal(t, n) for t, n in zip(types, arguments))
        return None if a is None or b is None else (a, b)

    def _arithmetic(self, node: exp.Binary) -> SparkType | None:
        left, right = self.of(node.this), self.of(node.expression)
        date = AtomicType("date")
        if isinstance(node, (exp.Add, exp.Sub)) and (
            (left == date and _interval_unit(node.expression) in _DATE_UNITS)
            or (isinstance(node, exp.Add) and right == date and _interval_unit(node.this) in _DATE_UNITS)
        ):
            return date  # Spark's date plus days, months or years is a date
        if (left == date and right in _SMALL_INTEGRALS and isinstance(node, (exp.Add, exp.Sub))) or (
            isinstance(node, exp.Add) and right == date and left in _SMALL_INTEGRALS
        ):
            return date  # date_add(d, n) and date_sub(d, n), as Spark resolves them
        if isinstance(node, (exp.Add, exp.Sub)) and left in _TIMESTAMPS and _is_interval_literal(node.expression):
            return left  # a timestamp or timestamp_ntz plus an interval keeps its type (TimestampAddInterval)
        if isinstance(node, exp.Add) and right in _TIMESTAMPS and _is_interval_literal(node.this):
            return right
        if _is_integral(left) and _is_integral(right):
            assert isinstance(left, AtomicType) and isinstance(right, AtomicType)
            return _wider_integral(left, right)
        if _string_read_as_double(left, right):
            return _DOUBLE  # Spark's ANSI coercion reads the string as a double
        if {isinstance(left, StringType), isinstance(right, StringType)} == {True, False} and (_is_integral(left) or _is_integral(right)):
            return _BIGINT  # and beside an integer as a bigint
        if _is_fractional(left) or _is_fractional(right):
            if left is None or right is None:
                return None
            # A float with anything but a float is a double (Spark's ANSI coercion).
            both_float = all(isinstance(t, AtomicType) and t.name == "float" for t in (left, right))
            return AtomicType("float") if both_float else _DOUBLE
        a, b = _as_decimal(left, node.this), _as_decimal(right, node.expression)
        if a is None or b is None:
            return None
        if isinstance(node, exp.Mod):
            scale = max(a.scale, b.scale)
            return _adjusted(min(a.precision - a.scale, b.precision - b.scale) + scale, scale)
        return _decimal_result(_OPERATIONS[type(node)], a, b)


# Spark's date_trunc units (DateTimeUtils.parseTruncLevel, which upper-cases the level as Java's
# toUpperCase(Locale.ROOT): 'mınute' is MINUTE), by their names, as DuckDB names them.
_DATE_TRUNC_UNITS = {
    **dict.fromkeys(("YEAR", "YYYY", "YY"), "year"), "QUARTER": "quarter",
    **dict.fromkeys(("MONTH", "MM", "MON"), "month"), "WEEK": "week", **dict.fromkeys(("DAY", "DD"), "day"),
    "HOUR": "hour", "MINUTE": "minute", "SECOND": "second", "MILLISECOND": "millisecond",
    "MICROSECOND": "microsecond",
}
# The functions that take a date, and those that take a timestamp: Spark casts a string argument.
_DATE_ARGUMENT_FUNCTIONS = (exp.TsOrDsAdd, exp.AddMonths, exp.LastDay, exp.Quarter, exp.DateTrunc, exp.NextDay)
_TIMESTAMP_ARGUMENT_FUNCTIONS = (exp.Hour, exp.Minute, exp.Second, exp.TimestampTrunc)
# The functions that take a date or a timestamp and no string (Spark casts none to them).
_NO_STRING_FUNCTIONS: dict[type[exp.Expr], str] = {exp.UnixDate: "DATE", exp.UnixSeconds: "TIMESTAMP", exp.UnixMillis: "TIMESTAMP", exp.UnixMicros: "TIMESTAMP"}
# The string functions of SPARK_FUNCTIONS whose result is a string whatever their arguments.
_STRING_RESULTS = (
    exp.Substring, exp.Upper, exp.Lower, exp.Trim, exp.ConcatWs, exp.Left, exp.Right, exp.RegexpExtract,
    exp.RegexpReplace, exp.Pad, exp.Repeat, exp.SplitPart, exp.Replace,
)
# Spark functions whose result is an int where DuckDB's is a bigint, and a double where DuckDB's
# is an integer.
_TIMESTAMPDIFF_NAMES = ("timestampdiff", "datediff", "date_diff", "timediff")
"""The names of Spark's ``timestampdiff(unit, start, end)`` (``datediff`` and ``date_diff`` with
three arguments, and ``timediff``; named ``timestampdiff`` by Spark)."""

# Spark's timestampadd/timestampdiff units: those of a fixed length in microseconds, and those of
# the calendar (DuckDB's interval kind and how many of it)
_TIMESTAMP_ADD_MICROS = {unit: MICROS_PER_UNIT[unit] for unit in ("MICROSECOND", "MILLISECOND", "SECOND", "MINUTE", "HOUR")}
_TIMESTAMP_ADD_CALENDAR = {"DAY": ("days", 1), "DAYOFYEAR": ("days", 1), "WEEK": ("days", 7), "MONTH": ("months", 1),
               "QUARTER": ("months", 3), "YEAR": ("months", 12)}
_SECONDS_TYPE = DecimalType(8, 6)
# Spark's extract fields (``DatePart.parseExtractField``), by their names in any case, as the DuckDB
# function that gives each
_EXTRACT_FIELDS = {
    **dict.fromkeys(("year", "y", "years", "yr", "yrs"), "year"), "yearofweek": "isoyear",
    **dict.fromkeys(("quarter", "qtr"), "quarter"), **dict.fromkeys(("month", "mon", "mons", "months"), "month"),
    **dict.fromkeys(("week", "w", "weeks"), "week"), **dict.fromkeys(("day", "d", "days"), "day"),
    **dict.fromkeys(("dayofweek", "dow"), "dayofweek"), **dict.fromkeys(("dayofweek_iso", "dow_iso"), "isodow"),
    "doy": "dayofyear", **dict.fromkeys(("hour", "h", "hours", "hr", "hrs"), "hour"),
    **dict.fromkeys(("minute", "m", "min", "mins", "minutes"), "minute"),
    **dict.fromkeys(("second", "s", "sec", "seconds", "secs"), "second"),
}


def _extract_field_text(node: exp.Expr) -> str | None:
    """The field of an ``extract``/``date_part``/``datepart`` call as written; None where it is
    not a literal."""
    unit = node.expressions[0] if isinstance(node, exp.Anonymous) and node.expressions else node.this
    if isinstance(node, exp.Extract) and node.meta.get(WRITTEN_UNIT):
        return str(node.meta[WRITTEN_UNIT])
    return unit.name if isinstance(unit, (exp.Var, exp.Literal)) and unit.name else None


def _extract_field(node: exp.Expr) -> tuple[str, exp.Expr] | None:
    """The DuckDB function for an ``extract``/``date_part``/``datepart`` call's field (the
    field's own lower-cased text where Spark has no such field), and the value it reads."""
    text = _extract_field_text(node)
    value = node.expressions[1] if isinstance(node, exp.Anonymous) and len(node.expressions) == 2 else node.args.get("expression")
    if text is None or value is None:
        return None
    return _EXTRACT_FIELDS.get(text.lower(), text.lower()), value


_INT_FUNCTIONS = frozenset({"extract", "date_part", "datepart", "unix_date", "instr", "locate", "position", "levenshtein", "bit_length", "char_length",
                            "character_length", "len", "length", "size", "cardinality", "array_size"})
_DOUBLE_FUNCTIONS = frozenset({"sign", "signum"})
_DOUBLE_AGGREGATES = frozenset({
    # the moments and regressions, and the window functions of a row's place
    "stddev", "std", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop", "skewness", "kurtosis",
    "covar_pop", "covar_samp", "corr", "regr_sxx", "regr_syy", "regr_sxy", "regr_slope", "regr_intercept",
    "regr_r2", "percent_rank", "cume_dist",
})
_AGGREGATES_OF_THEIR_ARGUMENT = frozenset({
    "first", "last", "any_value", "first_value", "last_value", "nth_value", "lag", "lead", "max_by", "min_by",
    "bit_and", "bit_or", "bit_xor",
})
"""Aggregates and window functions whose value is one of their first argument's (Spark's type)."""
_BOOLEAN_AGGREGATES = frozenset({"bool_and", "bool_or", "every", "some", "any"})


_PREDICATES = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.And, exp.Or, exp.Not, exp.Is, exp.In, exp.Between)


_TOLERANT = "vpush_try_aggregate"
_GROUPED = "vpush_grouped_aggregate"
"""The meta key of a ``try_sum``/``try_avg``'s ``sum``/``avg`` made in a SELECT with GROUP BY
(made apart from the query, where :func:`_grouped` cannot see it)."""
# The widest decimal try_sum and try_avg take: DuckDB sums these in 128 bits without overflow
_TRY_DECIMAL_PRECISION = 28


_SHIFTS: dict[type[exp.Expr], str] = {
    exp.BitwiseLeftShift: "shiftleft", exp.BitwiseRightShift: "shiftright", ShiftRightUnsigned: "shiftrightunsigned",
}


def _mode_within_group(node: exp.Expr) -> exp.Ordered | None:
    """The one ordering of ``mode() WITHIN GROUP (ORDER BY x [DESC])`` with Spark's default
    NULLs ordering (first ascending, last descending); None for another node."""
    if not (isinstance(node, exp.WithinGroup) and isinstance(node.this, exp.Mode) and node.this.this is None):
        return None
    order = node.expression
    if not isinstance(order, exp.Order) or len(order.expressions) != 1 or not isinstance(order.expressions[0], exp.Ordered):
        return None
    ordered = order.expressions[0]
    return ordered if bool(ordered.args.get("nulls_first")) != bool(ordered.args.get("desc")) else None


def _percentile_cont(node: exp.Expr) -> tuple[exp.Expr, exp.Expr, bool, bool] | None:
    """The value, percentage, direction and discreteness of ``percentile_cont(p) WITHIN GROUP
    (ORDER BY x [DESC])`` and ``percentile_disc(...)`` (Spark 4's ``PercentileCont``: its exact
    ``percentile`` over the values sorted that way; ``PercentileDisc``: the first of them whose
    cumulative share reaches ``p``); None for another node."""
    if not (isinstance(node, exp.WithinGroup) and isinstance(node.this, (exp.PercentileCont, exp.PercentileDisc))):
        return None
    order = node.expression
    if not isinstance(order, exp.Order) or len(order.expressions) != 1 or not isinstance(order.expressions[0], exp.Ordered):
        return None
    ordered = order.expressions[0]
    return ordered.this, node.this.this, bool(ordered.args.get("desc")), isinstance(node.this, exp.PercentileDisc)


def _grouping_columns(select: exp.Expr) -> tuple[list[exp.Expr], bool]:
    """The grouping columns of ``select`` in Spark's order (each once, as they first appear in
    its GROUP BY, ROLLUP, CUBE and GROUPING SETS), and whether it groups by sets of them."""
    group = select.args.get("group") if isinstance(select, exp.Select) else None
    columns: list[exp.Expr] = []
    by_sets = False

    def add(node: exp.Expr) -> None:
        if isinstance(node, (exp.Rollup, exp.Cube, exp.GroupingSets)):
            nonlocal by_sets
            by_sets = True
            for part in node.expressions:
                add(part)
        elif isinstance(node, (exp.Tuple, exp.Paren)):
            for part in (node.expressions if isinstance(node, exp.Tuple) else [node.this]):
                add(part)
        elif node not in columns:
            columns.append(node)

    for key in ("expressions", "rollup", "cube", "grouping_sets"):
        for part in (group.args.get(key) or []) if group is not None else []:
            if key != "expressions":
                by_sets = True
            add(part)
    return columns, by_sets


def _grouping(node: exp.Grouping | exp.GroupingId, select: exp.Expr) -> exp.Expr:
    """Spark's ``grouping(x)`` (a ``tinyint``, 1 where ``x`` is aggregated away) and
    ``grouping_id(c1, ...)`` (a ``bigint`` of those bits, the first column's the highest), which
    must name the grouping columns in order, or none (all of them)."""
    columns, by_sets = _grouping_columns(select)
    shown = node.sql(dialect="vpushspark").lower()
    if not by_sets:
        raise OptimizeError(
            f"{shown}: grouping()/grouping_id() can only be used with GroupingSets/Cube/Rollup.",
            error_class="UNSUPPORTED_GROUPING_EXPRESSION",
        )
    if isinstance(node, exp.Grouping):
        return exp.cast(exp.Grouping(expressions=[e.copy() for e in node.expressions]), exp.DataType.build("TINYINT"))
    named = list(node.expressions)
    if named and named != columns:
        raise OptimizeError(
            f"Columns of grouping_id ({', '.join(c.sql(dialect='vpushspark') for c in named)}) does not match grouping "
            f"columns ({', '.join(c.sql(dialect='vpushspark') for c in columns)}).",
            error_class="GROUPING_ID_COLUMN_MISMATCH",
        )
    if not columns:
        return exp.cast(exp.Literal.number(0), exp.DataType.build("BIGINT"))
    return exp.cast(exp.Grouping(expressions=[c.copy() for c in columns]), exp.DataType.build("BIGINT"))


def _called(node: exp.Expr) -> str | None:
    """The Spark function ``node`` calls: :func:`call_name`, and ``shiftleft``/``shiftright``/
    ``shiftrightunsigned`` for ``i << 1``, ``i >> 1`` and ``i >>> 1``, which Spark computes as those (wrapping around as Java does)."""
    called = call_name(node)
    return _SHIFTS.get(type(node)) if called is None else called


def _zero_or_null(called: str, value: exp.Expr, result: SparkType | None) -> exp.Expr:
    """Spark's ``zeroifnull(x)`` (``coalesce(x, 0)``, typed as Spark widens the two) and
    ``nullifzero(x)`` (NULL where ``x = 0``)."""
    if result is None:
        _refuse(called, "an argument other than a number")
    assert result is not None  # for mypy: refused above
    to = _sql_type(result)
    if called == "nullifzero":
        zero = exp.EQ(this=value.copy(), expression=exp.Literal.number(0))
        return exp.Case(ifs=[exp.If(this=zero, true=exp.cast(exp.Null(), to))], default=value)
    return exp.cast(exp.Coalesce(this=exp.cast(value, to), expressions=[exp.Literal.number(0)]), to)


def _java_pattern(node: exp.RegexpLike | exp.RegexpExtract | exp.RegexpReplace | exp.RegexpSplit) -> exp.Expr | None:
    """Put in place of the Java pattern of ``rlike``, ``regexp_extract``, ``regexp_replace`` or
    ``split`` the RE2 pattern of the same meaning (:func:`vpush.optimizer.java_regex.re2_pattern`),
    or refuse it; ``regexp_replace`` and ``split`` also refuse a pattern that can match the empty
    string (Java steps past an empty match by a UTF-16 unit, RE2 by a character). A
    ``regexp_replace``'s replacement is written as RE2's (:func:`_java_replacement`), which may
    give the call to put in the node's place, as does a pattern with Java's ``$``: the call runs
    over the text without its final line terminator, which ``regexp_replace`` and ``split`` give
    back (:func:`_java_final_terminator`)."""
    from vpush.optimizer.java_regex import re2_pattern

    pattern = node.args.get("expression")
    if isinstance(pattern, exp.Null):
        return None
    called = call_name(node) or "rlike"
    matching = isinstance(node, exp.RegexpLike)
    re2 = re2_pattern(pattern.name, match_only=matching) if isinstance(pattern, exp.Literal) and pattern.is_string else None
    stepping = isinstance(node, (exp.RegexpReplace, exp.RegexpSplit))
    if re2 is None or (stepping and re2.nullable and not re2.ends_only):
        _refuse(called, "a pattern that is not a literal, or whose meaning vpush cannot show to be the same in Java and in "
                "DuckDB's RE2 (\\b, (?m) with ^ or $, lookaround, backreferences, possessive quantifiers, class "
                "intersections, Unicode properties" + (", $ after what can match a line terminator" if not matching else "")
                + (", or that can match the empty string" if stepping else "") + ")")
    assert re2 is not None and pattern is not None  # for mypy: refused above
    node.set("expression", exp.Literal.string(re2.text))
    if re2.tail is not None and not isinstance(node, exp.RegexpLike):
        return _java_final_terminator(node, pattern.name, re2)
    if matching and re2.ends_differ and re2.crlf_text is not None:
        # Java's $ holds before a final \r\n, never between its two characters: a pattern of its own
        # for a text that ends in \r\n
        value = node.this
        crlf = exp.Anonymous(this="ends_with", expressions=[value.copy(), exp.Literal.string("\r\n")])
        return exp.Case(ifs=[exp.If(this=crlf, true=exp.Anonymous(this="regexp_matches", expressions=[
                            value.copy(), exp.Literal.string(re2.crlf_text)]))],
                        default=exp.Anonymous(this="regexp_matches", expressions=[value.copy(), exp.Literal.string(re2.text)]))
    if isinstance(node, exp.RegexpReplace):
        positioned = _java_position(node)
        if positioned is not None:
            return positioned
        return _java_replacement(node, pattern.name, re2.groups, re2.names)
    if isinstance(node, exp.RegexpExtract):
        return _java_group_index(node, re2.groups)
    return None


def _java_final_terminator(node: exp.RegexpExtract | exp.RegexpReplace | exp.RegexpSplit, pattern: str, re2: Re2Pattern) -> exp.Expr:
    """``regexp_extract``, ``regexp_replace`` or ``split`` of a pattern with Java's ``$`` (written
    ``\\z``) over the text without its final line terminator, where Java's ``$`` holds before
    it: no match reaches into it (:func:`vpush.optimizer.java_regex.re2_pattern`), so the matches
    are Java's; ``regexp_replace`` then puts it back at the end, ``split`` at its last part's."""
    source = node.this
    body, tail = split_final_terminator(source, re2)
    node.set("this", body)
    if isinstance(node, exp.RegexpExtract):
        checked = _java_group_index(node, re2.groups)
        return node if checked is None else checked
    if isinstance(node, exp.RegexpReplace):
        replaced = _java_position(node)
        if replaced is None:
            replaced = _java_replacement(node, pattern, re2.groups, re2.names, source=source)
        if replaced is None and re2.nullable:
            return _java_final_replacements(node, tail, re2)
        return exp.DPipe(this=node if replaced is None else replaced, expression=tail)
    if re2.nullable:
        return _java_final_parts(node, source, tail, re2)
    limit = node.args.get("limit")
    parts = node if limit is None else _split_with_limit(body, node.expression, limit)
    count = exp.Anonymous(this="len", expressions=[parts.copy()])
    last = exp.DPipe(this=exp.Anonymous(this="list_extract", expressions=[parts.copy(), count.copy()]), expression=tail.copy())
    kept = exp.Anonymous(this="list_slice", expressions=[parts.copy(), exp.Literal.number(1), exp.Sub(this=count, expression=exp.Literal.number(1))])
    # (DuckDB's list_concat reads a NULL list as empty: a NULL text's NULL kept apart)
    return exp.Case(ifs=[exp.If(this=exp.or_(exp.Is(this=tail.copy(), expression=exp.Null()), exp.EQ(this=tail, expression=exp.Literal.string(""))),
                                true=parts)],
                    default=exp.Anonymous(this="list_concat", expressions=[kept, exp.Array(expressions=[last])]))


def _java_final_replacements(node: exp.RegexpReplace, tail: exp.Expr, re2: Re2Pattern) -> exp.Expr:
    """``regexp_replace`` (its replacement RE2's) of a pattern that can match the empty string and
    every match of which ends at its ``$`` (:func:`final_matches`): the first match replaced, then
    the replacement of an empty match (no group took part) where Java finds one, before and after
    ``tail``. Refused from a position past the first character."""
    if node.args.get("position") is not None:
        _refuse("regexp_replace", "a position other than 1, with a pattern that can match the empty string")
    body, replacement = node.this, node.args.get("replacement") or exp.Null()
    _, _, after, last = final_matches(body, tail, re2)
    first = exp.Anonymous(this="regexp_replace", expressions=[body.copy(), exp.Literal.string(re2.text), replacement.copy()])
    empty: exp.Expr = exp.Null()
    if isinstance(replacement, exp.Literal):
        # an RE2 rewrite: \n a group's text (none in an empty match), \\ a backslash
        empty = exp.Literal.string(re.sub(r"\\([0-9\\])", lambda m: "\\" if m.group(1) == "\\" else "", replacement.name))
    if_taken = [exp.Case(ifs=[exp.If(this=taken, true=empty.copy())], default=exp.Literal.string("")) for taken in (after, last)]
    return exp.DPipe(this=exp.DPipe(this=exp.DPipe(this=first, expression=if_taken[0]), expression=tail.copy()), expression=if_taken[1])


def _java_final_parts(node: exp.RegexpSplit, source: exp.Expr, tail: exp.Expr, re2: Re2Pattern) -> exp.Expr:
    """``split`` by a pattern that can match the empty string and every match of which ends at its
    ``$`` (:func:`final_matches`), as Java's ``String.split`` cuts the text at each match: the text
    before the first (none for an empty match at the start, which Java skips), ``''`` between it
    and an empty match where the text without ``tail`` ends, ``tail`` before an empty match at the
    very end, and the rest; the whole text where no match counts. A positive limit then keeps
    the whole text for 1, else the first ``limit - 1`` parts and the rest (:func:`_limit_final_parts`)."""
    limit = node.args.get("limit")
    body = node.this
    found, first, after, last = final_matches(body, tail, re2)
    counted = exp.and_(found, exp.GT(this=exp.Length(this=body.copy()), expression=exp.Literal.number(0)))
    before = exp.Anonymous(this="left", expressions=[body.copy(), exp.Sub(this=exp.Length(this=body.copy()), expression=exp.Length(this=first))])

    def one(text: exp.Expr) -> exp.Expr:
        return exp.Array(expressions=[text])

    none = exp.cast(exp.Array(expressions=[]), exp.DataType.build("VARCHAR[]"))
    rest = exp.Case(ifs=[exp.If(this=last.copy(), true=exp.Literal.string(""))], default=tail.copy())
    lists = [exp.Case(ifs=[exp.If(this=counted.copy(), true=one(before))], default=none.copy()),
             exp.Case(ifs=[exp.If(this=after, true=one(exp.Literal.string("")))], default=none.copy()),
             exp.Case(ifs=[exp.If(this=last.copy(), true=one(tail.copy()))], default=none.copy()),
             exp.Case(ifs=[exp.If(this=exp.or_(counted, last.copy()), true=one(rest))], default=one(source.copy()))]
    parts = exp.Anonymous(this="list_concat", expressions=lists)
    return exp.Case(ifs=[exp.If(this=exp.Is(this=source.copy(), expression=exp.Null()), true=exp.cast(exp.Null(), exp.DataType.build("VARCHAR[]")))],
                    default=parts if limit is None else _limit_final_parts(parts, source, limit))


# The most parts a split by a pattern every match of which ends at its $ gives (_java_final_parts)
_MOST_FINAL_PARTS = 4


def _limit_final_parts(parts: exp.Expr, source: exp.Expr, limit: exp.Expr) -> exp.Expr:
    """``parts`` (every part of ``source`` cut at Java's matches of a pattern every match of
    which ends at its ``$``: :func:`_java_final_parts`) as Java's ``String.split`` with ``limit``
    keeps them: all of them for a limit of 0 or less or at least their number; the whole text for
    1 (Java's one part is the text from where the last part kept ends: its start); else the first
    ``limit - 1`` and the rest joined, as the matches after the first that counts are empty."""
    bound = number_constant(limit)
    if isinstance(bound, int) and (bound <= 0 or bound >= _MOST_FINAL_PARTS):
        return parts
    whole = exp.Array(expressions=[source.copy()])
    if bound == 1:
        return whole
    count = exp.Anonymous(this="len", expressions=[parts.copy()])
    kept = exp.Anonymous(this="list_slice", expressions=[parts.copy(), exp.Literal.number(1), exp.Sub(this=limit.copy(), expression=exp.Literal.number(1))])
    rest = exp.Anonymous(this="array_to_string", expressions=[
        exp.Anonymous(this="list_slice", expressions=[parts.copy(), limit.copy(), count.copy()]), exp.Literal.string("")])
    ifs = [exp.If(this=exp.or_(exp.LTE(this=limit.copy(), expression=exp.Literal.number(0)), exp.LTE(this=count, expression=limit.copy())), true=parts),
           exp.If(this=exp.EQ(this=limit.copy(), expression=exp.Literal.number(1)), true=whole)]
    if bound is None:
        ifs.insert(0, exp.If(this=exp.Is(this=limit.copy(), expression=exp.Null()), true=exp.cast(exp.Null(), exp.DataType.build("VARCHAR[]"))))
    return exp.Case(ifs=ifs, default=exp.Anonymous(this="list_concat", expressions=[kept, exp.Array(expressions=[rest])]))


def _java_group_index(node: exp.RegexpExtract, groups: int) -> exp.Expr | None:
    """``regexp_extract``'s group index past the pattern's groups (or below 0): Spark's
    ``INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX`` for a row with a match (DuckDB gives ``''``,
    or fails without Spark's class), and a NULL index: NULL; returned to stand in the node's
    place. Refused for an index that is not an integer literal."""
    group = node.args.get("group")
    if group is None:
        return None
    if isinstance(group.unnest(), exp.Null):
        return exp.cast(exp.Null(), exp.DataType.build("VARCHAR"))  # Spark's NULL (DuckDB's regexp_extract gave '')
    index = number_constant(group)
    if not isinstance(index, int):
        _refuse("regexp_extract", "a group index that is not an integer literal")
    assert isinstance(index, int)  # for mypy: refused above
    if 0 <= index <= groups:
        return None
    value = node.this
    message = (f"The value of parameter(s) `idx` in `regexp_extract` is invalid: Expects group index between 0 and {groups}, "
               f"but got {index}.")
    varchar = exp.DataType.build("VARCHAR")
    return exp.Case(ifs=[exp.If(this=exp.Anonymous(this="regexp_matches", expressions=[value.copy(), node.expression.copy()]),
                                true=spark_error("INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX", message, varchar))],
                    default=exp.cast(exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=exp.Null())],
                                              default=exp.Literal.string("")), varchar))


def _java_position(node: exp.RegexpReplace) -> exp.Expr | None:
    """Check ``regexp_replace``'s position as Spark's analysis does (an int literal in (0,
    2147483647]: ``DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE``), drop a position of 1; the call's NULL
    for a NULL position. Refused for a position that is not a literal."""
    position = node.args.get("position")
    if position is None:
        return None
    if isinstance(position.unnest(), exp.Null):
        return exp.cast(exp.Null(), exp.DataType.build("VARCHAR"))
    number = number_constant(position)
    shown = spark_name(node) or node.sql(dialect=VpushSpark)
    if number is None and any(position.find_all(exp.Column)):
        raise OptimizeError(f'Cannot resolve "{shown}" due to data type mismatch: the input `position` should be a foldable "INT" '
                            f'expression; however, got "{spark_name(position) or position.sql(dialect=VpushSpark)}".',
                            error_class="DATATYPE_MISMATCH.NON_FOLDABLE_INPUT")
    if not isinstance(number, int):
        _refuse("regexp_replace", "a position that is not an integer literal")
    assert isinstance(number, int)  # for mypy: refused above
    if not 0 < number <= 2147483647:
        raise OptimizeError(f'Cannot resolve "{shown}" due to data type mismatch: The position must be between (0, 2147483647] '
                            f"(current value = {number}).", error_class="DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE")
    # (Spark counts the position in characters, as sqlglot's DuckDB SQL of it does)
    node.set("position", None if number == 1 else exp.Literal.number(number))
    return None


def _java_replacement(node: exp.RegexpReplace, pattern: str, groups: int, names: tuple[tuple[str, int], ...], *,
                      source: exp.Expr | None = None) -> exp.Expr | None:
    """``regexp_replace``'s replacement (Java's ``$n`` groups and backslash escapes) written as
    RE2's rewrite (:func:`vpush.optimizer.java_regex.re2_replacement`); where Java raises on every
    match (``$`` without a group's number, a group the pattern does not have, a final backslash),
    the call raising Spark's ``INVALID_REGEXP_REPLACE`` for a text with a match at or after the
    position, returned to stand in the node's place. ``source``: the text Spark's message names,
    where the node's is that text without its final line terminator."""
    from vpush.optimizer.java_regex import re2_replacement

    replacement = node.args.get("replacement")
    if replacement is None or isinstance(replacement, exp.Null):
        return None
    if not (isinstance(replacement, exp.Literal) and replacement.is_string):
        _refuse("regexp_replace", "a replacement that is not a literal")
    rewrite = re2_replacement(replacement.name, groups, names)
    if rewrite is None:
        _refuse("regexp_replace", "a replacement naming a group past 9 (RE2's rewrite names at most 9)")
    assert rewrite is not None  # for mypy: refused above
    if rewrite.text is not None:
        replacement.replace(exp.Literal.string(rewrite.text))
        return None
    # Java raises for the first match: a text that matches from the position (1 by default) on
    position = node.args.get("position") or exp.Literal.number(1)
    value = node.this
    rest = exp.Substring(this=value.copy(), start=exp.cast(position.copy(), exp.DataType.build("BIGINT")))
    starts = exp.Or(this=exp.EQ(this=position.copy(), expression=exp.Literal.number(1)),
                    expression=exp.LTE(this=position.copy(), expression=exp.Length(this=value.copy())))
    matched = exp.and_(starts, exp.Anonymous(this="regexp_matches", expressions=[rest, node.expression.copy()]))
    message = exp.Concat(expressions=[
        exp.Literal.string("Could not perform regexp_replace for source = \""), (source or value).copy(),
        exp.Literal.string(f'", pattern = "{pattern}", replacement = "{replacement.name}" and position = '),
        exp.cast(position.copy(), exp.DataType.build("VARCHAR")), exp.Literal.string(".")])
    return exp.Case(ifs=[exp.If(this=matched, true=spark_error("INVALID_REGEXP_REPLACE", message, exp.DataType.build("VARCHAR")))],
                    default=node)


def _split_with_limit(text: exp.Expr, pattern: exp.Expr, limit: exp.Expr) -> exp.Expr:
    """Spark's ``split(text, pattern, limit)`` (Java's ``String.split``, a limit of 0 read as -1):
    every part where the limit is not positive or the parts are at most the limit; else the first
    ``limit - 1`` parts and the rest of the text after their delimiters (the pattern, already
    RE2's, cannot match the empty string: :func:`_java_pattern`)."""
    parts = exp.Anonymous(this="str_split_regex", expressions=[text.copy(), pattern.copy()])
    delimiters = exp.Anonymous(this="regexp_extract_all", expressions=[text.copy(), pattern.copy()])
    kept = exp.Sub(this=limit.copy(), expression=exp.Literal.number(1))

    def total_length(items: exp.Expr) -> exp.Expr:
        sliced = exp.Anonymous(this="list_slice", expressions=[items, exp.Literal.number(1), kept.copy()])
        lengths = exp.Anonymous(this="list_transform", expressions=[
            sliced, exp.Lambda(this=exp.Length(this=exp.to_identifier("x")), expressions=[exp.to_identifier("x")])])
        return exp.Coalesce(this=exp.Anonymous(this="list_sum", expressions=[lengths]), expressions=[exp.Literal.number(0)])

    start = exp.Add(this=exp.Add(this=total_length(parts.copy()), expression=total_length(delimiters)),
                    expression=exp.Literal.number(1))
    rest = exp.Array(expressions=[exp.Substring(this=text.copy(), start=exp.cast(start, exp.DataType.build("BIGINT")))])
    first = exp.Anonymous(this="list_slice", expressions=[parts.copy(), exp.Literal.number(1), kept])
    whole = exp.Or(this=exp.LTE(this=limit.copy(), expression=exp.Literal.number(0)),
                   expression=exp.LTE(this=exp.Anonymous(this="len", expressions=[parts.copy()]), expression=limit.copy()))
    return exp.Case(
        ifs=[exp.If(this=exp.or_(*(exp.Is(this=e.copy(), expression=exp.Null()) for e in (text, pattern, limit))), true=exp.Null()),
             exp.If(this=whole, true=parts)],
        default=exp.Anonymous(this="list_concat", expressions=[first, rest]),
    )


_FLOATING = (_DOUBLE, AtomicType("float"))
# What Java's Double.parseDouble reads after String.trim (FloatingDecimal.readJavaFormatString):
# a decimal number with an optional float or double suffix, NaN, Infinity (ASCII digits only, no
# `_`, which DuckDB's cast takes); Spark's processFloatingPointSpecialLiterals adds some words.
_JAVA_DECIMAL_FLOAT = r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[dDfF]?|NaN|Infinity)"
_JAVA_HEX_FLOAT = r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[dDfF]?"
_SPECIAL_FLOAT_WORDS = ("inf", "+inf", "infinity", "+infinity", "-inf", "-infinity", "nan")
# java.lang.String.trim drops the chars up to U+0020 at either end: as characters, and as a regex
_JAVA_TRIM_LAST = 0x20
_JAVA_TRIM_CHARACTERS = "".join(map(chr, range(_JAVA_TRIM_LAST + 1)))
_JAVA_TRIMMED = rf"^[\x00-\x{_JAVA_TRIM_LAST:02x}]+|[\x00-\x{_JAVA_TRIM_LAST:02x}]+$"


def _string_as_floating(value: exp.Expr, target: AtomicType, strict: bool) -> exp.Expression:
    """Spark's cast of the string ``value`` to ``target`` (a double or a float) when the query
    runs: ``Double.parseDouble`` / ``Float.parseFloat`` of the text trimmed as ``String.trim``
    trims it (a ``d``/``f`` suffix, hexadecimal ``0x1.8p1``), then Spark's words (``inf``,
    ``-infinity``, ``nan`` in any case); another text CAST_INVALID_INPUT, or NULL for
    ``try_cast`` (``strict`` False). DuckDB's own cast reads ``1_000`` as 1000 and no hexadecimal
    number: it is given only the decimal texts Java reads, and a hexadecimal one is computed
    (:func:`_hexadecimal_floating`)."""
    to = exp.DataType.build(target.name.upper())
    literal = _unparen(value)
    if isinstance(literal, exp.Literal) and literal.is_string:
        # a constant Java reads as DuckDB does once trimmed: a cast of a literal, as before
        written = literal.this.strip(_JAVA_TRIM_CHARACTERS)
        if re.fullmatch(_JAVA_DECIMAL_FLOAT, written) or written.lower() in _SPECIAL_FLOAT_WORDS:
            return exp.cast(exp.Literal.string(re.sub(r"(?<=[0-9.])[dDfF]$", "", written)), to)

    def body(operand: Callable[[str], exp.Expression]) -> exp.Expression:
        def matches(pattern: str) -> exp.Expression:
            return exp.Anonymous(this="regexp_full_match", expressions=[operand("t"), exp.Literal.string(pattern)])

        decimal_text = exp.Anonymous(this="regexp_replace", expressions=[operand("t"), exp.Literal.string("[dDfF]$"), exp.Literal.string("")])
        hexadecimal = _hexadecimal_floating(lambda: operand("t"), target)
        otherwise = spark_error("CAST_INVALID_INPUT", _malformed_message(operand("v"), target.to_sql()), to) if strict else exp.cast(exp.Null(), to)
        return exp.Case(ifs=[
            exp.If(this=exp.Is(this=operand("v"), expression=exp.Null()), true=exp.cast(exp.Null(), to)),
            exp.If(this=matches(_JAVA_DECIMAL_FLOAT), true=exp.cast(decimal_text, to)),
            exp.If(this=exp.In(this=exp.Lower(this=operand("t")), expressions=[exp.Literal.string(w) for w in _SPECIAL_FLOAT_WORDS]),
                   true=exp.cast(operand("t"), to)),
            exp.If(this=matches(_JAVA_HEX_FLOAT), true=hexadecimal),
        ], default=otherwise)

    def trimmed(given: Callable[[str], exp.Expression]) -> exp.Expression:
        text = exp.Anonymous(this="regexp_replace", expressions=[
            given("v"), exp.Literal.string(_JAVA_TRIMMED), exp.Literal.string(""), exp.Literal.string("g")])
        return _with_operands({"t": text}, lambda own: body(lambda name: given(name) if name == "v" else own(name)))

    def plain_first(given: Callable[[str], exp.Expression]) -> exp.Expression:
        # a plain decimal number (most texts) is read alike by both: DuckDB's cast, no more
        return exp.Case(ifs=[exp.If(this=_plain_number(given("v")), true=exp.cast(given("v"), to))], default=trimmed(given))

    return _with_operands({"v": exp.Paren(this=value.copy())}, plain_first)  # the value computed once


def _plain_number(text: exp.Expression) -> exp.Expression:
    """Whether ``text`` is a plain decimal number (:data:`_DECIMAL_TEXT`, ASCII, untrimmed), which
    Java's readers and DuckDB's casts read alike: the cheap first test of a string cast."""
    return exp.Anonymous(this="regexp_full_match", expressions=[text, exp.Literal.string(_DECIMAL_TEXT.pattern)])


# (significant bits, the exponent of the least subnormal's place, the greatest exponent)
_HEX_FLOAT_FORMATS = {"double": (53, -1074, 1023), "float": (24, -149, 127)}


def _hexadecimal_floating(text: Callable[[], exp.Expression], target: AtomicType) -> exp.Expression:
    """The hexadecimal floating-point ``text()`` (trimmed, as :data:`_JAVA_HEX_FLOAT` matches it)
    as Java's ``parseDouble``/``parseFloat`` reads it: the exact value ``digits * 2^exponent``
    rounded once, half to even, to the target's significant bits or, below its normal range, to
    its least subnormal's place; an infinity past its range, a zero signed as the text.

    The first 15 significant hex digits (below 2^60) are an integer ``M`` and any nonzero digit
    after them only breaks a tie; ``M`` is shifted right by the places it has past the precision
    (or past the least place), and the rounded integer times a power of two is exact in a
    double."""
    bits, least, greatest = _HEX_FLOAT_FORMATS[target.name]
    ubigint = exp.DataType.build("UBIGINT", dialect="duckdb")

    def call(name: str, *args: exp.Expression) -> exp.Expression:
        return exp.Anonymous(this=name, expressions=list(args))

    def part(pattern: str) -> exp.Expression:
        return call("regexp_extract", text(), exp.Literal.string(pattern), exp.Literal.number(1))

    def number(n: int | str) -> exp.Expression:
        return exp.Literal.number(n)

    fraction = part(r"\.([0-9a-fA-F]*)")
    digits = call("ltrim", exp.DPipe(this=part(r"0[xX]([0-9a-fA-F]*)"), expression=fraction), exp.Literal.string("0"))
    written = exp.TryCast(this=part(r"[pP]([+-]?[0-9]+)"), to=exp.DataType.build("DOUBLE"))  # may pass any integer

    def parts(d: Callable[[str], exp.Expression]) -> exp.Expression:
        dropped = exp.Greatest(this=number(0), expressions=[exp.Sub(this=call("length", d("d")), expression=number(15))])
        return _with_operands({
            "m": exp.TryCast(this=exp.DPipe(this=exp.Literal.string("0x"), expression=call("left", d("d"), number(15))), to=ubigint),
            "e": exp.Add(this=exp.Sub(this=d("x"), expression=exp.Mul(this=number(4), expression=d("f"))),
                         expression=exp.Mul(this=number(4), expression=dropped)),  # the exponent of M's last place
            "k": call("regexp_matches", call("substr", d("d"), number(16)), exp.Literal.string("[1-9a-fA-F]")),
        }, lambda o: _magnitude(lambda: d("d"), o))

    def _magnitude(d: Callable[[], exp.Expression], o: Callable[[str], exp.Expression]) -> exp.Expression:
        # M's bits past the precision (M >= 2^k for k from the precision up; M < 2^60), or the
        # places short of the least place where more (clamped to the shifts DuckDB takes: it may
        # compute a branch for rows the CASE does not select)
        past: exp.Expression = number(0)
        for k in range(bits, 60):
            past = exp.Add(this=past, expression=exp.Case(ifs=[exp.If(this=exp.GTE(this=o("m"), expression=number(2**k)), true=number(1))],
                                                          default=number(0)))
        def below() -> exp.Expression:
            return exp.Sub(this=number(least), expression=o("e"))
        shift = exp.cast(exp.Greatest(this=number(0), expressions=[exp.Least(this=number(61), expressions=[
            exp.Greatest(this=exp.Paren(this=past), expressions=[exp.Paren(this=below())])])]), exp.DataType.build("INT"))

        def rounded(s: Callable[[str], exp.Expression]) -> exp.Expression:
            half = exp.BitwiseLeftShift(this=exp.cast(number(1), ubigint),
                                        expression=exp.Greatest(this=number(0), expressions=[exp.Sub(this=s("s"), expression=number(1))]))

            def place(q: Callable[[str], exp.Expression]) -> exp.Expression:
                up = exp.and_(exp.GT(this=s("s"), expression=number(0)), exp.or_(
                    exp.GT(this=q("r"), expression=q("h")),
                    exp.and_(exp.EQ(this=q("r"), expression=q("h")),
                             exp.or_(o("k"), exp.EQ(this=exp.Mod(this=q("q"), expression=number(2)), expression=number(1))))))
                whole = exp.Add(this=q("q"), expression=exp.Case(ifs=[exp.If(this=up, true=number(1))], default=number(0)))
                return exp.Mul(this=exp.cast(whole, exp.DataType.build("DOUBLE")),
                               expression=call("pow", exp.Literal.number("2.0"), exp.Add(this=o("e"), expression=s("s"))))

            kept = exp.BitwiseRightShift(this=o("m"), expression=s("s"))
            rest = exp.Sub(this=o("m"), expression=exp.BitwiseLeftShift(
                this=exp.Paren(this=exp.BitwiseRightShift(this=o("m"), expression=s("s"))), expression=s("s")))
            return _with_operands({"q": kept, "r": rest, "h": half}, place)

        return exp.Case(ifs=[
            exp.If(this=exp.EQ(this=d(), expression=exp.Literal.string("")), true=exp.Literal.number("0.0")),
            exp.If(this=exp.GT(this=o("e"), expression=number(greatest)), true=exp.cast(exp.Literal.string("inf"), exp.DataType.build("DOUBLE"))),
            exp.If(this=exp.GT(this=below(), expression=number(61)), true=exp.Literal.number("0.0")),  # below half the least place
        ], default=_with_operands({"s": shift}, rounded))

    magnitude = _with_operands({"d": digits, "f": call("length", fraction.copy()), "x": written}, parts)
    negative = call("starts_with", text(), exp.Literal.string("-"))
    sign = exp.Case(ifs=[exp.If(this=negative, true=exp.Literal.number("-1.0"))], default=exp.Literal.number("1.0"))
    signed = exp.Mul(this=exp.Paren(this=magnitude), expression=sign)  # (IEEE: 0.0 * -1.0 is -0.0)
    if target == _DOUBLE:
        return signed
    return _with_operands({"x": signed}, lambda o: _java_float_of_double(o("x")))  # the value computed once


def _java_float_of_double(value: exp.Expression) -> exp.Expression:
    """Java's ``(float)`` of the double ``value``: past the float range an infinity, where
    DuckDB's cast raises from the same bound (the largest float plus half its last place, a tie
    Java rounds up); DuckDB orders NaN above every number, so it is let through first."""
    bound = exp.Literal.number("3.4028235677973366e38")

    def infinity(sign: str) -> exp.Expression:
        return exp.cast(exp.Literal.string(f"{sign}inf"), exp.DataType.build("FLOAT"))

    return exp.Case(ifs=[exp.If(this=exp.Anonymous(this="isnan", expressions=[value.copy()]), true=exp.cast(value.copy(), exp.DataType.build("FLOAT"))),
                         exp.If(this=exp.GTE(this=value.copy(), expression=bound), true=infinity("")),
                         exp.If(this=exp.LTE(this=value.copy(), expression=exp.Neg(this=bound.copy())), true=infinity("-"))],
                    default=exp.cast(value.copy(), exp.DataType.build("FLOAT")))


def _string_read_as_double(left: SparkType | None, right: SparkType | None) -> bool:
    """Whether an arithmetic operation has a string on one side and a decimal, double or float on
    the other (Spark's ANSI coercion casts the string to a double, and so computes a double)."""
    return any(isinstance(a, StringType) and (_is_fractional(b) or isinstance(b, DecimalType)) for a, b in ((left, right), (right, left)))


def _wider_decimal(types: list[SparkType | None]) -> DecimalType | None:
    """The decimal Spark widens integers and decimals to, at least one a decimal
    (``DecimalPrecision.widerDecimalType``: the most digits before and after the point, past 38
    digits the digits before it kept, ``boundedPreferIntegralDigits``); None for other types."""
    if not types or not all(_is_integral(t) or isinstance(t, DecimalType) for t in types):
        return None
    if not any(isinstance(t, DecimalType) for t in types):
        return None
    return wider_decimal([t if isinstance(t, DecimalType) else integral_decimal(t) for t in types if isinstance(t, (DecimalType, AtomicType))])


def _numeric_common_type(types: list[SparkType | None]) -> SparkType | None:
    """:func:`wider_common_type` of numbers only (integers, floating types, decimals), or of arrays,
    maps and structs of them (:func:`_wider_nested`): the type Spark gives branches or elements of
    different numeric types; None for any other."""
    if not types or any(t is None for t in types):
        return None
    if all(_is_integral(t) or _is_fractional(t) or isinstance(t, DecimalType) for t in types):
        return wider_common_type(types)
    if not all(isinstance(t, (ArrayType, MapType, StructType)) for t in types):
        return None
    result: SparkType | None = types[0]
    for t in types[1:]:
        assert t is not None  # for mypy: checked above
        result = None if result is None else _wider_nested(result, t)
    return result


def _wider_nested(a: SparkType, b: SparkType) -> SparkType | None:
    """Two arrays, maps or structs widened part by part as Spark's ``findWiderTypeForTwo`` widens
    them (``array(array(1), array(3.5))``'s ``array<array<decimal(11,1)>>``): numbers as
    :func:`_wider_of_two`, struct fields by position under the same names; None where other
    parts differ."""
    if a == b or VOID in (a, b):
        return b if a == VOID else a
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        element = _wider_nested(a.element, b.element)
        return None if element is None else ArrayType(element)
    if isinstance(a, MapType) and isinstance(b, MapType):
        key, value = _wider_nested(a.key, b.key), _wider_nested(a.value, b.value)
        return None if key is None or value is None else MapType(key, value)
    if isinstance(a, StructType) and isinstance(b, StructType) and [f.name.lower() for f in a.fields] == [f.name.lower() for f in b.fields]:
        fields = [_wider_nested(x.type, y.type) for x, y in zip(a.fields, b.fields)]
        if any(f is None for f in fields):
            return None
        return StructType(tuple(StructField(x.name, f) for x, f in zip(a.fields, fields) if f is not None))
    if all(_is_integral(t) or _is_fractional(t) or isinstance(t, DecimalType) for t in (a, b)):
        return _wider_of_two(a, b)
    return None


def nested_wider_type(a: SparkType, b: SparkType, *, strings: bool = True) -> SparkType | None:
    """Spark's ANSI ``findWiderTypeForTwo`` (``strings``) or ``findWiderTypeWithoutStringPromotion``
    of two types of :func:`_coercible` leaves, arrays, maps and structs part by part (a struct's
    fields by position, named alike but for case, under ``a``'s names): numbers as
    :func:`_wider_of_two`, a date beside a timestamp the timestamp, a string beside a number a
    bigint or a double and beside another atomic type that type; None where Spark finds none.

    Example:
        >>> nested_wider_type(ArrayType(AtomicType("int")), ArrayType(StringType()))
        ArrayType(element=AtomicType(name='bigint'))
    """
    if a == b or VOID in (a, b):
        return b if a == VOID else a
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        element = nested_wider_type(a.element, b.element, strings=strings)
        return None if element is None else ArrayType(element)
    if isinstance(a, MapType) and isinstance(b, MapType):
        # a map's keys are never read from strings (Spark keeps only a key type no cast of either
        # makes NULL: Cast.forceNullable)
        key, value = nested_wider_type(a.key, b.key, strings=False), nested_wider_type(a.value, b.value, strings=strings)
        return None if key is None or value is None else MapType(key, value)
    if isinstance(a, StructType) and isinstance(b, StructType):
        if [f.name.lower() for f in a.fields] != [f.name.lower() for f in b.fields]:
            return None
        fields = [nested_wider_type(x.type, y.type, strings=strings) for x, y in zip(a.fields, b.fields)]
        return None if any(f is None for f in fields) else StructType(
            tuple(StructField(x.name, f) for x, f in zip(a.fields, fields) if f is not None))
    if any(isinstance(t, (ArrayType, MapType, StructType)) for t in (a, b)):
        return None
    if isinstance(a, StringType) or isinstance(b, StringType):
        other = b if isinstance(a, StringType) else a
        if not strings or isinstance(other, StringType):
            return None
        if _is_integral(other) or _is_fractional(other) or isinstance(other, DecimalType):
            return _wider_of_two(a, b)
        return other  # AnsiTypeCoercion: a string beside a date, timestamp, boolean or binary is cast to it
    if all(isinstance(t, AtomicType) and t.name in _DATETIME_NAMES for t in (a, b)):
        names = {t.name for t in (a, b) if isinstance(t, AtomicType)}
        return AtomicType("timestamp" if "timestamp" in names else "timestamp_ntz")
    return _wider_of_two(a, b)


def _map_keys_merge(a: SparkType, b: SparkType) -> bool:
    """Whether a map inside ``a`` has keys that a cast to the keys' type in the same place in ``b``
    may make one (a bigint's or decimal's cast to a double, an int's to a float: Spark keeps both
    keys, DuckDB's cast of the map raises): such a coercion is refused."""
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return _map_keys_merge(a.element, b.element)
    if isinstance(a, MapType) and isinstance(b, MapType):
        lossy = _is_fractional(b.key) and a.key != b.key and not (
            a.key in (AtomicType("tinyint"), AtomicType("smallint")) or (a.key in (_INT, AtomicType("float")) and b.key == _DOUBLE))
        return lossy or _map_keys_merge(a.value, b.value)
    if isinstance(a, StructType) and isinstance(b, StructType):
        return any(_map_keys_merge(x.type, y.type) for x, y in zip(a.fields, b.fields))
    return False


def _map_keys_differ(a: SparkType, b: SparkType) -> bool:
    """Whether a map inside ``a`` has keys of another type than the map in the same place in ``b``."""
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return _map_keys_differ(a.element, b.element)
    if isinstance(a, MapType) and isinstance(b, MapType):
        return a.key != b.key or _map_keys_differ(a.value, b.value)
    if isinstance(a, StructType) and isinstance(b, StructType):
        return any(_map_keys_differ(x.type, y.type) for x, y in zip(a.fields, b.fields))
    return False


def nested_common_type(types: list[SparkType], *, strings: bool = True) -> SparkType | None:
    """:func:`nested_wider_type` folded over ``types`` as Spark's ``findWiderCommonType`` folds
    them (strings and arrays of strings first)."""

    def textual(t: SparkType) -> bool:
        return isinstance(t, StringType) or (isinstance(t, ArrayType) and textual(t.element))

    result: SparkType | None = VOID
    for t in sorted(types, key=lambda t: not textual(t)):
        if result is None:
            return None
        result = nested_wider_type(result, t, strings=strings)
    return result


def _coerced_places(node: exp.Expr) -> list[tuple[exp.Expr, str]] | None:
    """The places (holder, argument key) of the parts :meth:`_Rewriter._coerce_nested_parts`
    coerces to one type, or None for another node."""
    if isinstance(node, exp.Case):
        return [(i, "true") for i in node.args.get("ifs") or []] + [(node, "default")]
    if isinstance(node, exp.If) and not isinstance(node.parent, exp.Case):
        return [(node, "true"), (node, "false")]
    if isinstance(node, exp.Nvl2):
        return [(node, "true"), (node, "false")]
    if isinstance(node, exp.Array):
        return [(node, f"expressions:{k}") for k in range(len(node.expressions))]
    if isinstance(node, (exp.Coalesce, exp.Greatest, exp.Least)) or (isinstance(node, exp.In) and not node.args.get("query")
                                                                     and not node.args.get("unnest")):
        places: list[tuple[exp.Expr, str]] = [(node, "this")]
        return places + [(node, f"expressions:{k}") for k in range(len(node.expressions))]
    return None


def _place_value(holder: exp.Expr, key: str) -> exp.Expr | None:
    if key.startswith("expressions:"):
        return holder.expressions[int(key.split(":")[1])]
    value = holder.args.get(key)
    return value if isinstance(value, exp.Expr) else None


def _place_put(holder: exp.Expr, key: str, value: exp.Expr) -> None:
    if key.startswith("expressions:"):
        holder.set("expressions", value, int(key.split(":")[1]))
    else:
        holder.set(key, value)


def _decimal_round_type(source: DecimalType, places: exp.Expr | None) -> DecimalType | None:
    """Spark's type of ``round(d, places)`` of a decimal (``RoundBase``): one more digit before
    the point, at most the decimal's own scale after it; None for places that are not a literal."""
    scale = 0
    if places is not None:
        negative = isinstance(places, exp.Neg)
        literal = places.this if negative else places
        if not (isinstance(literal, exp.Literal) and not literal.is_string and literal.this.isdigit()):
            return None
        scale = -int(literal.this) if negative else int(literal.this)
    integral = source.precision - source.scale + 1
    if scale < 0:
        return _bounded(integral, 0)
    kept = min(source.scale, scale)
    return _bounded(integral + kept, kept)


def _sum_type(arg: SparkType | None) -> SparkType | None:
    """Spark's type of ``sum`` (and ``try_sum``) of an ``arg``."""
    if _is_integral(arg):
        return _BIGINT
    if isinstance(arg, DecimalType):
        return _bounded(arg.precision + 10, arg.scale)
    return _DOUBLE if _is_fractional(arg) else None


def _average_type(arg: SparkType | None) -> SparkType | None:
    """Spark's type of ``avg`` (and ``try_avg``) of an ``arg``."""
    if isinstance(arg, DecimalType):
        return _bounded(arg.precision + 4, arg.scale + 4)
    return _DOUBLE if _is_integral(arg) or _is_fractional(arg) else None


def _arguments(node: exp.Expr) -> list[exp.Expr]:
    """A call's arguments in Spark's order (those sqlglot parsed apart included), NULLs left out."""
    # a shift's operands as they stand, not as written: an implicit cast wraps a string count
    arguments = None if type(node) in _SHIFTS else call_arguments(node)
    if arguments is None and type(node) in PARSED_ARGUMENTS:
        arguments = [node.args.get(k) for k in PARSED_ARGUMENTS[type(node)]]
    if arguments is None:
        arguments = list(node_arguments(node) or [])
    return [a for a in arguments if a is not None]


def _count_of_trues(node: exp.Expr) -> exp.Expr:
    """``count_if``'s count as Spark gives it: 0, not DuckDB's NULL, where no value is true
    because every one is NULL (a group whose predicate reads only missing fields)."""
    return exp.cast(exp.Coalesce(this=node, expressions=[exp.Literal.number(0)]), exp.DataType.build("BIGINT"))


def _integer_literal(node: exp.Expr) -> int | None:
    """The value of an integer literal (``2``, ``-1``), else None."""
    if isinstance(node, exp.Neg):
        inner = _integer_literal(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Literal) and not node.is_string and node.this.lstrip("-").isdigit():
        return int(node.this)
    return None


def _spark_substring(node: exp.Substring, *, binary: bool = False) -> exp.Expr:
    """``substr(s, pos, len)`` as Spark's ``UTF8String.substringSQL``: a position of 0 is 1, a
    negative one counts from the end, and a length that ends before the start gives ''. Of a
    ``binary`` (``ByteArray.subStringSQL``, the same positions over bytes), which DuckDB's
    ``substring`` does not take: the piece of its hex digits, two a byte, turned back to bytes."""
    text, position = node.this, node.args["start"]
    length = node.args.get("length") or exp.Literal.number(2147483647)
    chars = exp.Anonymous(this="octet_length", expressions=[text.copy()]) if binary else exp.Length(this=text.copy())
    start = exp.Case(
        ifs=[
            exp.If(this=exp.GT(this=position.copy(), expression=exp.Literal.number(0)),
                   true=exp.Sub(this=exp.cast(position.copy(), exp.DataType.build("BIGINT")), expression=exp.Literal.number(1))),
            exp.If(this=exp.LT(this=position.copy(), expression=exp.Literal.number(0)),
                   true=exp.Add(this=exp.cast(chars, exp.DataType.build("BIGINT")), expression=position.copy())),
        ],
        default=exp.cast(exp.Literal.number(0), exp.DataType.build("BIGINT")),
    )
    end = exp.Add(this=start.copy(), expression=exp.cast(length.copy(), exp.DataType.build("BIGINT")))
    first = exp.Greatest(this=start, expressions=[exp.Literal.number(0)])
    piece = exp.Substring(
        this=text,
        start=exp.Add(this=first.copy(), expression=exp.Literal.number(1)),
        length=exp.Sub(this=end.copy(), expression=first.copy()),
    )
    empty = exp.And(this=exp.GTE(this=first, expression=end), expression=exp.Not(this=exp.Is(this=text.copy(), expression=exp.Null())))
    unknown = exp.If(this=exp.Is(this=position.copy(), expression=exp.Null()),
                     true=exp.cast(exp.Null(), exp.DataType.build("BLOB" if binary else "VARCHAR")))
    if binary:
        two = exp.Literal.number(2)
        piece.set("this", exp.Hex(this=text))
        piece.set("start", exp.Add(this=exp.Mul(this=exp.Paren(this=first.copy()), expression=two), expression=exp.Literal.number(1)))
        piece.set("length", exp.Mul(this=exp.Paren(this=exp.Sub(this=end.copy(), expression=first.copy())), expression=two.copy()))
        return exp.Case(ifs=[unknown, exp.If(this=empty, true=_empty_binary())], default=exp.Unhex(this=piece))
    return exp.Case(ifs=[unknown, exp.If(this=empty, true=exp.Literal.string(""))], default=piece)


def _empty_binary() -> exp.Expression:
    return exp.cast(exp.Literal.string(""), exp.DataType.build("BLOB"))


def _binary_pad(node: exp.Pad) -> exp.Expr:
    """Spark's ``lpad``/``rpad`` of a binary by a binary (``ByteArray.lpad``; by zero bytes when
    no pad is given), which DuckDB's take no binary for: its hex digits padded by the pad's to
    twice the length (a pad's digits come in pairs, so whole bytes are repeated), turned back to
    bytes. An empty pad cuts to the length and adds nothing, as Spark's does; a length of 0 or
    less gives the empty binary."""
    value, length = node.this, exp.cast(node.expression, exp.DataType.build("BIGINT"))
    fill = node.args.get("fill_pattern")
    pad = exp.Hex(this=fill) if fill is not None else exp.Literal.string("00")
    digits = exp.cast(exp.Mul(this=length.copy(), expression=exp.Literal.number(2)), exp.DataType.build("INT"))
    padded = exp.Anonymous(this="lpad" if node.args.get("is_left") else "rpad", expressions=[exp.Hex(this=value.copy()), digits, pad])
    cut = exp.Left(this=exp.Hex(this=value.copy()), expression=digits.copy())
    missing: exp.Expression = exp.Is(this=value.copy(), expression=exp.Null())
    if fill is not None:
        missing = exp.Or(this=missing, expression=exp.Is(this=fill.copy(), expression=exp.Null()))
    return exp.Case(ifs=[
        exp.If(this=missing, true=exp.cast(exp.Null(), exp.DataType.build("BLOB"))),
        exp.If(this=exp.LTE(this=length.copy(), expression=exp.Literal.number(0)), true=_empty_binary()),
        exp.If(this=exp.EQ(this=pad.copy(), expression=exp.Literal.string("")), true=exp.Unhex(this=cut)),
    ], default=exp.Unhex(this=padded))


def _check_concat_of_nested(node: exp.Expr, kinds: list[SparkType | None]) -> None:
    """Spark's ``concat`` (and ``||``) takes strings, binaries or arrays and casts no array, map
    or struct to a string: a map or struct is its UNEXPECTED_INPUT_TYPE, arrays beside strings
    or NULLs its DATA_DIFF_TYPES (DuckDB prints a struct its own way, and refuses the rest).

    Raises:
        OptimizeError: those classes of ``DATATYPE_MISMATCH``.
    """
    for place, kind in enumerate(kinds):
        if isinstance(kind, (MapType, StructType)):
            raise OptimizeError(
                f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: Parameter {place + 1} requires the '
                f'("STRING" or "BINARY" or "ARRAY") type, however it has the type "{_spark_type_name(kind)}".',
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
    # (a NULL beside an array is a string there too)
    arrays = [isinstance(k, ArrayType) for k in kinds if k is not None]
    if any(arrays) and not all(arrays):
        raise _concat_diff_types(node, [k if k != VOID else StringType() for k in kinds if k is not None])


def _concat_diff_types(node: exp.Expr, kinds: list[SparkType]) -> OptimizeError:
    """Spark's ``DATATYPE_MISMATCH.DATA_DIFF_TYPES`` for a ``concat`` of parts of ``kinds``."""
    shown = " or ".join(f'"{_spark_type_name(k)}"' for k in kinds)
    return OptimizeError(
        f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: Input to `concat` should all be the same '
        f"type, but it's ({shown}).",
        error_class="DATATYPE_MISMATCH.DATA_DIFF_TYPES",
    )


def _contained_type(element: SparkType, value: SparkType | None) -> SparkType | None:
    """The type ``array_contains`` compares an array's elements and a value of another type as
    (Spark's ``findWiderTypeWithoutStringPromotion``), where DuckDB's equality of it is Spark's:
    numbers, dates and timestamps, and arrays and structs of them (no map, variant, string
    beside another type); None elsewhere."""
    if value is None or value == VOID or not (coercible(element) and coercible(value)):
        return None
    wide = nested_wider_type(element, value, strings=False)
    return wide if wide is not None and not _has_map(wide) else None


def _concat_parts(node: exp.Expr, of: Callable[[exp.Expr], SparkType | None]) -> tuple[list[exp.Expr], SparkType | None] | None:
    """The parts of a ``concat`` (or ``||``) of arrays and their type as Spark's coercion gives it
    (:func:`nested_common_type`: ``findWiderCommonType``, a string element beside a number a
    bigint, beside a date that date; None where there is none); None where some part is not an
    array (or is one vpush does not type)."""
    if isinstance(node, exp.ConcatWs):
        return None
    parts = [p for p in (node.expressions if isinstance(node, exp.Concat) else [node.this, node.expression]) if isinstance(p, exp.Expr)]
    kinds = [of(p) for p in parts]
    arrays = [k for k in kinds if isinstance(k, ArrayType)]
    if not parts or len(arrays) < len(kinds):
        return None
    if len(set(arrays)) == 1:
        return parts, arrays[0]
    return parts, nested_common_type(list(arrays)) if all(coercible(k) for k in arrays) else None


def _binary_padded(node: exp.Pad, of: Callable[[exp.Expr], SparkType | None]) -> bool:
    """Whether Spark's ``lpad``/``rpad`` pads a binary (a binary padded by a binary or by
    default), whose answer is a binary; with a string beside, both are strings."""
    fill = node.args.get("fill_pattern")
    return of(node.this) == _BINARY and (fill is None or of(fill) == _BINARY)


def _distinct_argument(node: exp.Expr) -> exp.Expr:
    """The argument of ``sum(DISTINCT x)``: ``x``."""
    if isinstance(node, exp.Distinct) and len(node.expressions) == 1:
        return node.expressions[0]
    return node


def _negative_zero(node: exp.Expr) -> bool:
    """Whether ``node`` is a number literal of value 0 written with a minus (``-0.0``), cast or not."""
    while isinstance(node, exp.Cast):
        node = node.this
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        return not node.this.is_string and _number_literal(node.this) == 0
    return isinstance(node, exp.Literal) and not node.is_string and node.this.startswith("-") and _number_literal(node) == 0


def _negative_integer_literal(node: exp.Expr) -> str | None:
    """The text of ``-n`` where ``node`` is the minus of an integer literal written without
    parentheses, which Spark's parser reads as one literal (``-2147483648`` is an int; ``-(2147483648)``
    a bigint negated); None for any other node."""
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string and node.this.this.isdigit():
        return "-" + node.this.this
    return None


def _literal_type(node: exp.Literal) -> SparkType | None:
    if node.is_string:
        return StringType()
    text = node.this
    if "e" in text.lower():
        return _DOUBLE
    if "." in text:
        whole, _, fraction = text.partition(".")
        digits = len(whole.lstrip("0")) + len(fraction)
        return DecimalType(max(digits, len(fraction), 1), len(fraction))
    value = int(text)
    if -(2**31) <= value < 2**31:
        return _INT
    if -(2**63) <= value < 2**63:
        return _BIGINT
    return DecimalType(len(text), 0) if len(text) <= MAX_DECIMAL_PRECISION else None


def _cast_type(node: exp.Cast) -> SparkType | None:
    try:
        return parse_variant_type(node.to.sql(dialect=VpushSpark))
    except Exception:  # a type vpush's parser does not know: leave the node alone
        return None


class _Rewriter:
    """Rewrites the nodes of one SELECT whose DuckDB result differs from Spark's."""

    def __init__(self, typer: _Typer, functions: dict[str, SparkType]) -> None:
        self.typer = typer
        self.functions = functions

    def _format_pattern(self, value: exp.Expr, pattern: str) -> exp.Expr:
        """Spark's ``format_number(value, pattern)`` with a literal pattern, by the engine
        function for the value's type: a double or float (widened, as Scala passes a float to
        ``format(double)``), a decimal (``format(BigDecimal)``) or an integer (``format(long)``)
        as its text. A double under a pattern of ``#,##0.###``'s shape takes ``DecimalFormat``'s
        fast path, which the kernel reproduces too.

        Raises:
            OptimizeError: a pattern vpush does not format as Java does (exponent, currency,
                or one Java rejects: Spark's ``IllegalArgumentException`` has no error class),
                or a value of another type (``VPUSH_UNSUPPORTED_FUNCTION``).
        """
        try:
            parse_decimal_pattern(pattern)
        except UnsupportedPattern as exc:
            _refuse("format_number", f"a pattern with {exc}")
        source = self.typer.of(value)
        if isinstance(value, exp.Null) or source in (_DOUBLE, AtomicType("float")):
            name = FORMAT_PATTERN_FUNCTIONS["double"]
            argument: exp.Expr = exp.cast(value, "DOUBLE")
        elif isinstance(source, DecimalType):
            name = FORMAT_PATTERN_FUNCTIONS["decimal"]
            argument = exp.cast(value, "VARCHAR")
        elif isinstance(source, AtomicType) and source.name in _INTEGRAL:
            name = FORMAT_PATTERN_FUNCTIONS["integer"]
            argument = exp.cast(value, "VARCHAR")
        else:
            _refuse("format_number", "a value other than a number")
        self.functions[name] = StringType()
        call = exp.Anonymous(this=name, expressions=[argument, exp.Literal.string(pattern)])
        self.typer.set_type(call, StringType())
        return call

    def _format_double(self, value: exp.Expr, places: exp.Expr) -> exp.Expr | None:
        """Spark's ``format_number(value, places)`` of a double or float with integer places (a
        literal or not), or of any number with a literal pattern (:meth:`_format_pattern`), by
        the engine function; None for other forms (integers and decimals with places are
        DuckDB SQL: :mod:`vpush.optimizer.spark_scalars`)."""
        if isinstance(places, exp.Literal) and places.is_string:
            return self._format_pattern(value, places.name)
        if isinstance(value, exp.Null):
            value = exp.cast(value, "DOUBLE")  # a NULL literal: Spark's answer is a NULL string
        elif self.typer.of(value) not in (_DOUBLE, AtomicType("float")):
            return None
        count = self.typer.of(places)
        if not (isinstance(places, exp.Null) or (isinstance(count, AtomicType) and count.name in ("tinyint", "smallint", "int"))):
            return None
        self.functions[FORMAT_NUMBER_FUNCTION] = StringType()
        call = exp.Anonymous(this=FORMAT_NUMBER_FUNCTION, expressions=[exp.cast(value, "DOUBLE"), exp.cast(places, "INT")])
        self.typer.set_type(call, StringType())
        return call

    def _java_text(self, node: exp.Expr) -> exp.Expr:
        """``node`` as Spark casts it to a string, where it is a double, float or binary."""
        source = self.typer.of(node)
        if not isinstance(source, AtomicType) or source.name not in JAVA_TEXT_FUNCTIONS:
            return node
        name = JAVA_TEXT_FUNCTIONS[source.name]
        self.functions[name] = StringType()
        call = exp.Anonymous(this=name, expressions=[node])
        self.typer.set_type(call, StringType())
        return call

    def _text_of_bytes(self, blob: exp.Expr) -> exp.Expr:
        """A BLOB as Java's ``new String(bytes, UTF_8)`` reads it (U+FFFD for each malformed sequence)."""
        name = JAVA_TEXT_FUNCTIONS["binary"]
        self.functions[name] = StringType()
        call = exp.Anonymous(this=name, expressions=[blob])
        self.typer.set_type(call, StringType())
        return call

    def _nested_text(self, value: exp.Expr, of_type: SparkType, depth: int) -> exp.Expr:
        """``value`` (of ``of_type``) as Spark's cast to a string prints it (``ToStringBase``, the
        legacy settings at their defaults): an array as ``[1, null]``, a map as ``{a -> 1, b ->
        null}``, a struct as its values ``{1, x, null}``, each element as its own cast prints it
        (a double as Java does, a date or timestamp in the session zone), nested as deep as it
        goes. Built of DuckDB's list functions (a lambda per level, named by ``depth``), no
        Python per row.

        Raises:
            OptimizeError: an element whose type vpush does not print as Spark does (a variant,
                a time, an unknown type; ``VPUSH_UNSUPPORTED_FUNCTION``).
        """
        null = exp.Literal.string("null")

        def each(part: exp.Expr, part_type: SparkType | None) -> exp.Expr:
            if part_type is None:
                _refuse("CAST", "an array, map or struct of a type vpush does not know")
            return exp.Coalesce(this=self._nested_text(part, part_type, depth + 1), expressions=[null.copy()])

        def joined(texts: exp.Expr, left: str, right: str) -> exp.Expression:
            inner = exp.Anonymous(this="array_to_string", expressions=[texts, exp.Literal.string(", ")])
            return exp.DPipe(this=exp.DPipe(this=exp.Literal.string(left), expression=inner, safe=True),
                             expression=exp.Literal.string(right), safe=True)

        name = f"__vpush_text{depth}"
        variable = exp.Column(this=exp.to_identifier(name))
        if isinstance(of_type, ArrayType):
            texts = exp.Anonymous(this="list_transform", expressions=[
                value, exp.Lambda(this=each(variable, of_type.element), expressions=[exp.to_identifier(name)])])
            return joined(texts, "[", "]")
        if isinstance(of_type, MapType):
            key = exp.Anonymous(this="struct_extract", expressions=[variable.copy(), exp.Literal.string("key")])
            item = exp.Anonymous(this="struct_extract", expressions=[variable.copy(), exp.Literal.string("value")])
            entry = exp.DPipe(this=exp.DPipe(this=each(key, of_type.key), expression=exp.Literal.string(" -> "), safe=True),
                              expression=each(item, of_type.value), safe=True)
            texts = exp.Anonymous(this="list_transform", expressions=[
                exp.Anonymous(this="map_entries", expressions=[value]), exp.Lambda(this=entry, expressions=[exp.to_identifier(name)])])
            return joined(texts, "{", "}")
        if isinstance(of_type, StructType):
            fields = [each(exp.Anonymous(this="struct_extract", expressions=[value.copy(), exp.Literal.string(f.name)]), f.type)
                      for f in of_type.fields]
            text = joined(exp.Array(expressions=fields), "{", "}")
            return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()),
                                        true=exp.cast(exp.Null(), exp.DataType.build("VARCHAR")))], default=text)
        if isinstance(of_type, StringType):
            return value
        if of_type == VOID:
            return exp.cast(exp.Null(), exp.DataType.build("VARCHAR"))
        if of_type in _TIMESTAMPS:
            return _timestamp_text(value)
        if of_type == AtomicType("date"):
            return _date_text(value)
        if isinstance(of_type, AtomicType) and of_type.name in JAVA_TEXT_FUNCTIONS:
            self.functions[JAVA_TEXT_FUNCTIONS[of_type.name]] = StringType()
            return exp.Anonymous(this=JAVA_TEXT_FUNCTIONS[of_type.name], expressions=[value])
        if _is_integral(of_type) or isinstance(of_type, DecimalType) or of_type == AtomicType("boolean"):
            return exp.cast(value, exp.DataType.build("VARCHAR"))
        _refuse("CAST", f"an array, map or struct of {of_type.to_spark()} (printed otherwise by DuckDB)")

    def _fractional_to_decimal(self, value: exp.Expr, target: DecimalType, *, strict: bool) -> exp.Expr:
        """Spark's cast of a double or float to a decimal: the number as Java prints it (a float
        widened to a double first), rounded HALF_UP to the scale (``Decimal(d)`` is
        ``BigDecimal(Double.toString(d))``); NULL for NaN and the infinities, even under ANSI;
        ``NUMERIC_VALUE_OUT_OF_RANGE`` where the rounded number does not fit (NULL for
        ``try_cast``). DuckDB's own cast rounds the binary value (``0.1D + 0.2D`` to
        ``decimal(38,18)`` is ``0.300000000000000044``, Spark's ``...040``). A value other than
        a column or a literal is computed once (:func:`_with_operands`), and so is its text."""
        decimal = _sql_type(target)

        def double(operand: Callable[[str], exp.Expression]) -> exp.Expression:
            number = operand("x")
            self.typer.set_type(number, _DOUBLE)
            return number

        def parsed(operand: Callable[[str], exp.Expression]) -> exp.Expression:
            rounded = exp.TryCast(this=self._java_text(double(operand)), to=decimal)
            if target.precision <= _LONG_DECIMAL_DIGITS or target.scale >= _LONG_DECIMAL_DIGITS:
                return rounded
            # DuckDB parses and rounds text into a decimal of more than 18 digits some 50 times
            # slower than into one of 18 (same HALF_UP rounding): take that where it fits
            bound = exp.Literal.number(f"{10 ** (_LONG_DECIMAL_DIGITS - target.scale) - 1}.0")
            narrow = exp.TryCast(this=self._java_text(double(operand)), to=_decimal(_LONG_DECIMAL_DIGITS, target.scale))
            fits = exp.LT(this=exp.Anonymous(this="abs", expressions=[double(operand)]), expression=bound)
            return exp.Case(ifs=[exp.If(this=fits, true=exp.Cast(this=narrow, to=decimal))], default=rounded)

        def cast(operand: Callable[[str], exp.Expression]) -> exp.Expression:
            special = exp.or_(
                exp.Is(this=double(operand), expression=exp.Null()),
                exp.Anonymous(this="isnan", expressions=[double(operand)]),
                exp.Anonymous(this="isinf", expressions=[double(operand)]),
                copy=False,  # the operand's names are renamed in place (:func:`_with_operands`)
            )
            overflow: exp.Expression = exp.cast(exp.Null(), decimal)
            if strict:
                message = exp.DPipe(
                    this=self._java_text(double(operand)),
                    expression=exp.Literal.string(
                        f" cannot be represented as Decimal({target.precision}, {target.scale}). If necessary set "
                        '"spark.sql.ansi.enabled" to "false" to bypass this error, and return NULL instead.'
                    ),
                )
                # built in place, not copied by exp.cast: the operand's names are renamed in place
                overflow = exp.Cast(this=spark_error("NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", message, None), to=decimal)

            def checked(rounded: Callable[[str], exp.Expression]) -> exp.Expression:
                return exp.Case(
                    ifs=[exp.If(this=special, true=exp.cast(exp.Null(), decimal)),
                         exp.If(this=exp.Is(this=rounded("d"), expression=exp.Null()), true=overflow)],
                    default=rounded("d"),
                )

            return _with_operands({"d": parsed(operand)}, checked)

        operands: dict[str, exp.Expression] = {"x": self._to_double(value.copy())}
        if _is_plain(value):
            return cast(lambda name: operands[name].copy())
        return _with_operands(operands, cast)

    def _boolean_operands(self, node: exp.Not | exp.And | exp.Or) -> None:
        """The operands of NOT, AND and OR as Spark takes them: booleans, a string cast to one
        (``CAST_INVALID_INPUT`` for 'x'); anything else is Spark's type error (DuckDB would cast
        a number to a boolean and answer)."""
        keys = ["this"] if isinstance(node, exp.Not) else ["this", "expression"]
        kinds = [VOID if isinstance(node.args[k], exp.Null) else self.typer.of(node.args[k]) for k in keys]
        void = (None, AtomicType("boolean"), VOID)
        booleans = (None, AtomicType("boolean"))  # a string beside NULL stays a string for AND and OR
        if all(k in void for k in kinds) or (len(kinds) == 1 and isinstance(kinds[0], StringType)) or (
            any(k in booleans for k in kinds) and all(k in booleans or isinstance(k, StringType) for k in kinds)
        ):
            for key, kind in zip(keys, kinds):
                if isinstance(kind, StringType):
                    node.set(key, _string_to_integral_or_boolean(node.args[key], AtomicType("boolean"), strict=True))
            return
        if isinstance(node, exp.Not):
            raise OptimizeError(
                f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: The first parameter requires the '
                f'"BOOLEAN" type, however "{_spark_text(node.this)}" has the type "{_spark_type_name(kinds[0])}".',
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        left, right = kinds
        strings = [k for k in kinds if isinstance(k, StringType)]
        numbers = [k for k in kinds if _is_integral(k) or _is_fractional(k) or isinstance(k, DecimalType)]
        if left == right or len(strings) == 2 or (strings and (numbers or VOID in kinds)):
            # the same type, or a string beside a number (which Spark reads as a bigint or a
            # double) or beside NULL
            shown = strings[0] if strings and not numbers else left if left == right else (
                _BIGINT if _is_integral(numbers[0]) else _DOUBLE)
            raise OptimizeError(
                f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: the binary operator requires the '
                f'input type "BOOLEAN", not "{_spark_type_name(shown)}".',
                error_class="DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE",
            )
        raise _incompatible_operands(node, left, right)

    def _days_to_add(self, node: exp.TsOrDsAdd) -> exp.Expr:
        """The days of ``date_add``/``date_sub`` as Spark takes them: an int at most (a bigint,
        decimal or double is Spark's type error), a string cast to an int (``CAST_INVALID_INPUT``
        for ``'2.5'``); sqlglot writes ``date_sub(d, n)`` as ``date_add(d, n * -1)``."""
        days = node.expression
        subtracted = _subtracted_days(days)
        operand = days.this if subtracted else days
        kind = self.typer.of(operand)
        if isinstance(kind, StringType):
            cast = _string_to_integral_or_boolean(operand.copy(), _INT, strict=True)
            return exp.Neg(this=cast) if subtracted else cast
        if kind is not None and kind not in (_INT, AtomicType("smallint"), AtomicType("tinyint"), VOID):
            shown = [spark_name(part, top=False) or _spark_text(part) for part in (node.this, operand)]
            call = f"{'date_sub' if subtracted else 'date_add'}({shown[0]}, {shown[1]})"
            raise OptimizeError(
                f'Cannot resolve "{call}" due to data type mismatch: The second parameter requires the ("INT" or '
                f'"SMALLINT" or "TINYINT") type, however "{shown[1]}" has the type "{_spark_type_name(kind)}".',
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        return days

    def _datetime_number_cast(self, node: exp.Cast, source: SparkType | None, target: SparkType | None) -> exp.Expr | None:
        """A cast between a timestamp and a number as Spark's ANSI ``Cast`` makes it (DuckDB has
        none), or Spark's analysis error for the pairs it refuses; None for any other cast.

        A timestamp is its seconds since the epoch: whole ones rounded down for an integer
        (``CAST_OVERFLOW`` where they do not fit), the microseconds over a million as a double
        (a float from that double), and a decimal exactly, rounded half up to its scale. A number is that many seconds: an
        integer exactly, a decimal or double truncated to microseconds, NaN and infinities
        ``CAST_INVALID_INPUT`` (NULL for ``try_cast``).
        """
        if source is None and isinstance(node.this, (exp.Predicate, exp.Connector, exp.Not)):
            source = AtomicType("boolean")  # a comparison or a condition
        numeric = _is_integral(source) or _is_fractional(source) or isinstance(source, DecimalType)
        to_numeric = _is_integral(target) or _is_fractional(target) or isinstance(target, DecimalType)
        strict = not isinstance(node, exp.TryCast)
        shown = node.sql(dialect=VpushSpark)
        if (source == AtomicType("date") and to_numeric) or (numeric and target == AtomicType("date")):
            raise OptimizeError(f"{shown}: cannot cast between a date and a number",
                                error_class="DATATYPE_MISMATCH.CAST_WITH_FUNC_SUGGESTION")
        if (source == AtomicType("boolean") and target in _TIMESTAMPS) or (source in _TIMESTAMPS and target == AtomicType("boolean")):
            raise OptimizeError(f"{shown}: cannot cast between a boolean and a timestamp",
                                error_class="DATATYPE_MISMATCH.CAST_WITH_CONF_SUGGESTION")
        if (source == AtomicType("timestamp_ntz") and to_numeric) or (numeric and target == AtomicType("timestamp_ntz")):
            raise OptimizeError(f"{shown}: cannot cast between a timestamp_ntz and a number",
                                error_class="DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION")
        if source == AtomicType("timestamp") and to_numeric:
            assert target is not None  # for mypy: a numeric target
            return self._timestamp_to_number(node.this, target, strict)
        if numeric and target == AtomicType("timestamp"):
            return _number_to_timestamp(node.this, source, strict)
        return None

    def _widen_decimal_branches(self, node: exp.Expr) -> exp.Expr | None:
        """``CASE``/``if``/``coalesce`` over integers and decimals as Spark types it: every branch
        cast to the decimal wide enough for all (an integer as its decimal, ``bigint`` as
        ``decimal(20,0)``), where DuckDB's widening gives a narrower one; over strings and
        integers, every branch a bigint, the strings read strictly (DuckDB's binder refuses)."""
        if isinstance(node, exp.Case):
            keys = [(i, "true") for i in node.args.get("ifs") or []] + [(node, "default")]
        elif isinstance(node, exp.Array):
            keys = [(node, f"expressions:{k}") for k in range(len(node.expressions))]
        elif isinstance(node, exp.If):
            keys = [(node, "true"), (node, "false")]
        else:
            keys = [(node, "this")] + [(node, f"expressions:{k}") for k in range(len(node.expressions))]

        def get(holder: exp.Expr, key: str) -> exp.Expr | None:
            if key.startswith("expressions:"):
                return holder.expressions[int(key.split(":")[1])]
            value = holder.args.get(key)
            return value if isinstance(value, exp.Expr) else None

        parts = [(h, k, get(h, k)) for h, k in keys]
        typed = [self.typer.of(v) for _, _, v in parts if v is not None and not isinstance(v, exp.Null)]

        def put(holder: exp.Expr, key: str, value: exp.Expr) -> None:
            if key.startswith("expressions:"):
                holder.set("expressions", value, int(key.split(":")[1]))
            else:
                holder.set(key, value)

        target = string_branch_type(typed)
        if target is None and typed and set(typed) == {StringType(), _BOOLEAN}:
            target = _BOOLEAN  # Spark casts the strings to booleans (CAST_INVALID_INPUT for 'a')
        if target is None:
            # strings beside dates, timestamps or binaries of one type: Spark's coercion casts them
            # to that type (strictly: CAST_INVALID_INPUT for 'a'), a string NULL (decode's default)
            # too; DuckDB's binder refuses a column and leaves a typed NULL a string
            def string_null(value: exp.Expr | None) -> bool:
                return isinstance(value, exp.Cast) and isinstance(value.this, exp.Null) and isinstance(self.typer.of(value), StringType)

            def plain_string(value: exp.Expr | None) -> bool:
                return value is not None and not isinstance(value, exp.Null) and self.typer.of(value) == StringType()

            others = {self.typer.of(v) for _, _, v in parts if v is not None and not isinstance(v, exp.Null) and not plain_string(v)}
            other = next(iter(others)) if len(others) == 1 else None
            if other in (AtomicType("date"), *_TIMESTAMPS, _BINARY) and any(plain_string(v) for _, _, v in parts):
                assert isinstance(other, AtomicType)
                for holder, key, value in parts:
                    if string_null(value):
                        put(holder, key, exp.cast(exp.Null(), _sql_type(other)))
                    elif plain_string(value):
                        assert value is not None
                        put(holder, key, exp.Anonymous(this="encode", expressions=[value]) if other == _BINARY
                            else self._string_to_datetime(value, other, strict=True))
                self.typer.set_type(node, other)
                return node
            if isinstance(other, (ArrayType, MapType, StructType)) and any(string_null(v) for _, _, v in parts):
                raise OptimizeError(
                    f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: Input to `casewhen` should all be '
                    f'the same type, but it\'s ["{other.to_sql()}", "STRING"].',
                    error_class="DATATYPE_MISMATCH.DATA_DIFF_TYPES",
                )
        if target is not None:
            for holder, key, value in parts:
                if value is not None and not isinstance(value, exp.Null):
                    put(holder, key, _branch_as(value, self.typer.of(value), target))
            self.typer.set_type(node, target)
            return node
        wide = _numeric_common_type(typed)
        if wide is None or len(set(typed)) == 1:
            return None
        for holder, key, value in parts:
            if value is None or isinstance(value, exp.Null) or self.typer.of(value) == wide:
                continue
            put(holder, key, exp.cast(value.copy(), _sql_type(wide)))
        self.typer.set_type(node, ArrayType(wide) if isinstance(node, exp.Array) else wide)
        return node

    def _timestamp_to_number(self, value: exp.Expr, target: SparkType, strict: bool) -> exp.Expr:
        micros = exp.Anonymous(this="epoch_us", expressions=[value])
        million = exp.Literal.number(1_000_000)
        to = _sql_type(target)
        if _is_integral(target):
            below = exp.Mod(this=exp.Paren(this=exp.Add(this=exp.Mod(this=micros.copy(), expression=million.copy()),
                                                        expression=million.copy())), expression=million.copy())
            seconds = exp.IntDiv(this=exp.Paren(this=exp.Sub(this=micros, expression=below)), expression=million)
            return exp.cast(seconds, to) if strict else exp.TryCast(this=seconds, to=to)
        as_double = exp.Div(this=exp.cast(micros, exp.DataType.build("DOUBLE")), expression=exp.Literal.number("1000000.0"),
                            typed=False, safe=False)
        if target == AtomicType("double"):
            return as_double
        if target == AtomicType("float"):
            return exp.cast(as_double, exp.DataType.build("FLOAT"))
        # a decimal: the microseconds exactly, as seconds with six places, rounded half up to
        # the target's scale (measured: not through the double)
        exact = exp.Mul(this=exp.cast(micros.copy(), _decimal(MAX_DECIMAL_PRECISION, 0)),
                          expression=exp.cast(exp.Literal.string("0.000001"), _decimal(7, 6)))
        return exp.Cast(this=exact, to=to) if strict else exp.TryCast(this=exact, to=to)

    def _datetime_difference(self, node: exp.Sub) -> exp.Expr:
        """Spark's difference of two dates (``SubtractDates``: an ``interval day``) or of two
        datetimes of which one holds a time (``SubtractTimestamps``: an ``interval day to
        second``, the microseconds between their local date-times in the session zone), as a
        DuckDB interval, which the engine gives as Spark's ``toArrow`` does (a duration). A
        string beside a date or timestamp is cast to its type (Spark's ANSI cast,
        ``CAST_INVALID_INPUT``); a date beside a timestamp becomes the timestamp of its midnight,
        a timestamp_ntz beside a timestamp is read in the session time zone, as Spark's casts do
        (DuckDB's casts at the cursor's zone). DuckDB's own difference is a count of days or a
        month-day-time interval."""
        of = self.typer.of
        kinds = [of(node.this), of(node.expression)]
        for key, kind, other in (("this", kinds[0], kinds[1]), ("expression", kinds[1], kinds[0])):
            if isinstance(kind, StringType) and isinstance(other, AtomicType):
                node.set(key, self._string_to_datetime(node.args[key], other, strict=True))
        kinds = [k if not isinstance(k, StringType) else kinds[1 - i] for i, k in enumerate(kinds)]
        if kinds == [AtomicType("date")] * 2:
            days = exp.cast(exp.Paren(this=exp.Sub(this=node.this, expression=node.expression)), exp.DataType.build("INT"))
            interval = exp.Anonymous(this="to_days", expressions=[days])
            interval.meta[_DAY_INTERVAL] = "day"
            return interval
        sides = [exp.cast(side, exp.DataType.build("TIMESTAMP")) for side in (node.this, node.expression)]
        if AtomicType("timestamp") in kinds:
            # Spark subtracts the local date-times in the session zone (DateTimeUtils.
            # subtractTimestamps): a day across a daylight-saving change is 24 hours
            sides = [exp.cast(exp.cast(side, exp.DataType.build("TIMESTAMPTZ")), exp.DataType.build("TIMESTAMP"))
                     for side in (node.this, node.expression)]
        micros = [exp.Anonymous(this="epoch_us", expressions=[side]) for side in sides]
        interval = exp.Anonymous(this="to_microseconds", expressions=[exp.Sub(this=micros[0], expression=micros[1])])
        interval.meta[_DAY_INTERVAL] = "second"
        return interval

    def _string_to_datetime(self, value: exp.Expr, target: AtomicType, *, strict: bool) -> exp.Expr:
        """Spark's cast of the string ``value`` to ``target`` (a date, timestamp or timestamp_ntz)."""
        call = string_to_datetime(value, target, self.functions, strict=strict)
        self.typer.set_type(call, target)
        return call

    def _datetime_arguments(self, node: exp.Expr) -> None:
        """Cast, as Spark does, the string arguments of a function that takes a date or a
        timestamp, and the string compared with a date or a timestamp."""
        of = self.typer.of
        wanted: AtomicType | None = None
        widen_ntz = False
        keys: tuple[str, ...] = ("this",)
        required = _NO_STRING_FUNCTIONS.get(type(node))
        if required is not None and isinstance(of(node.this), StringType):
            name = spark_name(node) or node.sql(dialect=VpushSpark)
            raise OptimizeError(
                f'Cannot resolve "{name}" due to data type mismatch: the first parameter requires the "{required}" '
                'type, however it has the type "STRING"',
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        if isinstance(node, _DATE_ARGUMENT_FUNCTIONS) or (isinstance(node, exp.Anonymous) and node.name.lower() == "weekday"):
            wanted = AtomicType("date")
        elif isinstance(node, _TIMESTAMP_ARGUMENT_FUNCTIONS):
            wanted = AtomicType("timestamp")
            widen_ntz = isinstance(node, exp.TimestampTrunc)
        elif isinstance(node, (*_COMPARISONS, exp.Between, exp.In)) and not node.args.get("query"):
            widen_ntz = True
            kinds = {of(side) for side in comparison_operands(node)}
            if AtomicType("timestamp") in kinds or AtomicType("timestamp_ntz") in kinds:
                wanted = AtomicType("timestamp") if AtomicType("timestamp") in kinds else AtomicType("timestamp_ntz")
            elif AtomicType("date") in kinds:
                wanted = AtomicType("date")
            keys = ("this", "expression", "low", "high")
            if wanted is not None:
                node.set("expressions", [self._as_datetime(e, wanted, widen_ntz=widen_ntz) for e in node.expressions])
        if wanted is None:
            return
        if isinstance(node, exp.Anonymous):
            node.set("expressions", [self._as_datetime(e, wanted) for e in node.expressions])
            return
        for key in keys:
            side = node.args.get(key)
            if isinstance(side, exp.Expr):
                cast = self._as_datetime(side, wanted, widen_ntz=widen_ntz)
                node.set(key, cast)
                if cast is not side:
                    retrace(node, side, cast)

    def _variants_as_strings(self, node: exp.Expr) -> None:
        """Cast, as Spark's implicit casts do, each variant argument of a string function to a
        string (``concat(v:s, 'x')``: DuckDB would print the variant's struct)."""
        if not isinstance(node, _VARIANT_AS_STRING):
            return
        for value in list(node.args.values()):
            for child in value if isinstance(value, list) else [value]:
                if not isinstance(child, exp.Expr) or self.typer.of(child) != VARIANT:
                    continue
                key, index = child.arg_key, child.index
                if key is None:
                    continue
                # a cast of a variant is variant_get(x, '$', 'string'), as the rule for casts writes it
                extraction = child if isinstance(child, VariantGet) else VariantGet(
                    this=child, path=exp.Literal.string("$"), colon=True
                )
                cast = exp.Cast(this=extraction, to=exp.DataType.build("STRING"))
                node.set(key, cast, index)
                self.typer.set_type(cast, StringType())

    def _as_datetime(self, node: exp.Expr, target: AtomicType, *, widen_ntz: bool = False) -> exp.Expr:
        if widen_ntz and target == AtomicType("timestamp") and self.typer.of(node) == AtomicType("timestamp_ntz"):
            # Spark compares a timestamp_ntz with a timestamp, and truncates one, as its cast to a
            # timestamp (DuckDB's implicit cast takes an overlap's later offset)
            return self._ntz_to_timestamp(node)
        if not isinstance(self.typer.of(node), StringType):
            return node
        return self._string_to_datetime(node, target, strict=True)

    def _ntz_to_timestamp(self, node: exp.Expr) -> exp.Expr:
        """Spark's cast of the ``timestamp_ntz`` ``node`` to a timestamp in the session time zone
        (:data:`NTZ_TO_TIMESTAMP_FUNCTION`)."""
        self.functions[NTZ_TO_TIMESTAMP_FUNCTION] = AtomicType("timestamp")
        zone = exp.Anonymous(this="current_setting", expressions=[exp.Literal.string("TimeZone")])
        call = exp.Anonymous(this=NTZ_TO_TIMESTAMP_FUNCTION, expressions=[node, zone])
        self.typer.set_type(call, AtomicType("timestamp"))
        return call

    def _fallback(self, called: str) -> tuple[exp.Expression | None, exp.Expression | None] | None:
        """Where Spark's aggregation of the SELECT is an ``ObjectHashAggregateExec`` (GROUP BY
        beside ``collect_list``, ``string_agg``, ``percentile``, ...: :func:`object_hash_aggregation`)
        and vpush knows Spark's order of rows, the place after which it falls back to sorting
        (:func:`hash_fallback_place`), or where that place is not known (ROLLUP, CUBE, GROUPING
        SETS, a UNION ALL's branches: tasks of their own) the condition to refuse an aggregate
        whose answer depends on it: 128 groups or more. None elsewhere. ``called`` names the
        aggregate refused with HAVING (whose groups DuckDB's windows see only after it)."""
        select = self.typer.scope.expression
        if not isinstance(select, exp.Select) or not select.meta.get(OBJECT_HASH):
            return None
        order = scan_order(self.typer.scope)
        if order is None:
            return None
        if select.args.get("having") is not None:
            _refuse(called, "HAVING with GROUP BY beside collect_list, string_agg, percentile, ... (Spark's hash aggregation "
                            "falls back to sorting past 128 groups; name the aggregate in the SELECT list and filter a subquery)")
        group = select.args["group"]
        plain = not any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets", "totals")) and not any(
            isinstance(e, (exp.Rollup, exp.Cube, exp.GroupingSets)) for e in group.expressions)
        place = hash_fallback_place(order) if plain else None
        if place is not None:
            # each task's hash aggregation falls back at its own place, and the final one's
            # merges the tasks' buffers in another order past 128 groups: not followed
            message = (f"{called}: the DuckDB engine does not give Spark's answer where its hash aggregation falls back to sorting "
                       "(GROUP BY past 128 groups beside collect_list, string_agg, percentile, ...) over several Spark tasks; "
                       "the Spark engine runs it")
            refused = exp.and_(several_tasks(order), exp.Not(this=exp.Is(this=place.copy(), expression=exp.Null())), copy=False)
            place = exp.Case(ifs=[exp.If(this=refused, true=spark_error("VPUSH_UNSUPPORTED_FUNCTION", message, exp.DataType.build("BIGINT")))],
                             default=place)
            return place, None
        return None, exp.GTE(this=exp.Window(this=exp.Count(this=exp.Star())), expression=exp.Literal.number(HASH_FALLBACK_GROUPS))

    def _object_hash(self) -> bool:
        """Whether Spark aggregates the SELECT by ``ObjectHashAggregateExec`` (:func:`object_hash_aggregation`)."""
        select = self.typer.scope.expression
        return isinstance(select, exp.Select) and bool(select.meta.get(OBJECT_HASH))

    def _past_fallback(self, called: str, answer: exp.Expr, fallback: tuple[exp.Expression | None, exp.Expression | None] | None) -> exp.Expr:
        """``answer``, or VPUSH_UNSUPPORTED_FUNCTION where Spark's hash aggregation falls back to
        sorting (:meth:`_fallback`) and merges ``called``'s buffers in an order vpush does not follow."""
        if fallback is None:
            return answer
        place, many = fallback
        condition = exp.Not(this=exp.Is(this=place, expression=exp.Null())) if place is not None else many
        assert condition is not None
        message = (f"{called}: the DuckDB engine does not give Spark's answer where its hash aggregation falls back to sorting "
                   "(GROUP BY past 128 groups beside collect_list, string_agg, percentile, ...) yet; the Spark engine runs it")
        return exp.Case(ifs=[exp.If(this=condition, true=spark_error("VPUSH_UNSUPPORTED_FUNCTION", message, None))], default=answer)

    def _exact_past_fallback(self, called: str, choice: exp.Expression) -> exp.Expression:
        """The :func:`ordered_choice` ``choice`` with its exact form (the values added in order)
        refused past the hash aggregation's fallback (:meth:`_past_fallback`)."""
        fast, exact = choice.expressions
        choice.set("expressions", [fast, self._past_fallback(called, exact, self._fallback(called))])
        return choice

    def _string_beside_fraction(self, node: exp.Expr) -> exp.Expr:
        """A simple ``CASE x WHEN a ...`` and ``nullif(x, a)`` comparing a string with a decimal
        or double as Spark's ``x = a`` compares them: both as doubles (DuckDB read the string as
        the decimal, rounded to its scale: ``CASE '3.04' WHEN 3.0`` took the branch)."""
        of = self.typer.of

        def mixed(a: exp.Expr, b: exp.Expr) -> bool:
            kinds = (of(a), of(b))
            return any(isinstance(k, StringType) for k in kinds) and any(_is_fractional(k) or isinstance(k, DecimalType) for k in kinds)

        def equal(a: exp.Expr, b: exp.Expr) -> exp.Expr:
            return exp.EQ(this=self._to_double(a.copy()), expression=self._to_double(b.copy()))

        if isinstance(node, exp.Nullif):
            left, right = node.this, node.expression
            kind = of(left)
            if not mixed(left, right) or kind is None:
                return node
            return exp.Case(ifs=[exp.If(this=equal(left, right), true=exp.cast(exp.Null(), _sql_type(kind)))], default=left.copy())
        operand = node.this
        branches = node.args.get("ifs") or []
        if operand is None or not any(mixed(operand, b.this) for b in branches):
            return node
        searched = exp.Case(
            ifs=[exp.If(this=equal(operand, b.this) if mixed(operand, b.this) else exp.EQ(this=operand.copy(), expression=b.this.copy()),
                        true=b.args["true"].copy()) for b in branches],
            default=node.args["default"].copy() if node.args.get("default") is not None else None,
        )
        self.typer.set_type(searched, of(node))
        return searched

    def _in_subquery_operands(self, node: exp.In) -> None:
        """``x IN (SELECT y ...)`` with a string on one side and a number, date or timestamp on
        the other, both read as Spark's ``InConversion`` reads them (DuckDB's binder refused the
        pair): a string beside an integer as a ``bigint``, beside a decimal or double both as
        doubles, beside a date or timestamp as one, strictly (``CAST_INVALID_INPUT``)."""
        query = node.args["query"]
        inner = query.this if isinstance(query, exp.Subquery) else query
        outputs = self.typer.subquery_outputs.get(id(inner), {})
        if isinstance(node.this, exp.Tuple) or len(outputs) != 1 or not isinstance(inner, exp.Select):
            return
        left, right = self.typer.of(node.this), next(iter(outputs.values()))
        target: SparkType | None = None
        for one, other in ((left, right), (right, left)):
            if isinstance(one, StringType) and other is not None and not isinstance(other, StringType):
                if _is_integral(other):
                    target = _BIGINT
                elif _is_fractional(other) or isinstance(other, DecimalType):
                    target = _DOUBLE
                elif other in (AtomicType("date"), *_TIMESTAMPS):
                    target = other
        if target is None:
            return

        def converted(value: exp.Expr, kind: SparkType | None) -> exp.Expr:
            if kind == target:
                return value
            if not isinstance(kind, StringType):
                return exp.cast(value, _sql_type(target))
            if target == _BIGINT:
                return _string_to_integral_or_boolean(value, _BIGINT, strict=True)
            if target == _DOUBLE:
                return exp.cast(value, exp.DataType.build("DOUBLE"))
            assert isinstance(target, AtomicType)  # for mypy: a date or timestamp
            return string_to_datetime(value, target, self.functions, strict=True)

        node.set("this", converted(node.this, left))
        if right == target:
            return
        # the subquery's one output, converted over it: `(SELECT f(c) FROM (SELECT ...) AS q(c))`
        table, column = exp.to_identifier("__vpush_in_query"), exp.to_identifier("__vpush_in_value")
        source = exp.Subquery(this=inner.copy(), alias=exp.TableAlias(this=table, columns=[column]))
        value = converted(exp.column(column.copy(), table=table.copy()), right)
        wrapped = exp.select(exp.alias_(value, column.copy(), copy=False), copy=False).from_(source, copy=False)
        node.set("query", exp.Subquery(this=wrapped) if isinstance(query, exp.Subquery) else wrapped)

    def visit(self, node: exp.Expr) -> exp.Expr:
        of = self.typer.of
        if isinstance(node, exp.Filter) and node.this.meta.get(_PAST_FALLBACK) and not isinstance(node.parent, exp.Window):
            called, split = node.this.meta[_PAST_FALLBACK]
            fallback = self._fallback(called)
            if fallback is not None and fallback[0] is not None and split is not None:
                return split(node.expression.this, fallback[0])
            if fallback is not None:
                # (collect_list's [] for no value, as below)
                answer = exp.Coalesce(this=node, expressions=[exp.Array(expressions=[])]) if isinstance(node.this, exp.ArrayAgg) else node
                return self._past_fallback(called, answer, fallback)
        if isinstance(node, ToVariantObject):
            return node  # typed before its arguments were rewritten; rewrite_variants makes the call
        if isinstance(node.parent, exp.TsOrDsAdd) and _subtracted_days(node):
            return node  # date_sub's days: _days_to_add takes them as Spark does
        result = of(node)
        if isinstance(node, (exp.Column, exp.Dot)):
            crossing = self.typer.array_fields(node)
            if crossing is not None:
                return _fields_read(crossing[0], crossing[2])  # Spark's GetArrayStructFields: each element's field
        if isinstance(node, exp.Window) and _rows_in_order(node, self.typer.scope.expression):
            _check_window(node, self.typer.of)  # Spark's errors for the window as written, before its order grows a key
            order = scan_order(self.typer.scope)
            if order is not None:
                window_in_order(node, order)  # tied rows in Spark's order
        if isinstance(node, (exp.Collate, exp.Collation)) or (
            isinstance(node, (exp.Cast, exp.TryCast)) and node.to.args.get("collate") is not None
        ):
            return _collated(node, of)
        if isinstance(node, (exp.Cast, exp.TryCast)) and node.to.find(exp.ColumnConstraint) is not None:
            _cast_to_not_null_fields(node)
        if isinstance(node, exp.ArrayUniqueAgg) and isinstance(node.this, exp.Distinct) and len(node.this.expressions) == 1:
            node.set("this", node.this.expressions[0])  # collect_set(DISTINCT x) is collect_set(x)
        if isinstance(node, (exp.Not, exp.And, exp.Or)):
            self._boolean_operands(node)
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Boolean):
            operand = of(node.this)  # a string is cast to a boolean; a number or date is refused
            if operand is not None and not isinstance(operand, StringType) and operand != AtomicType("boolean"):
                raise _incompatible_operands(node, operand, AtomicType("boolean"))
        if isinstance(node, exp.Literal) and isinstance(result, DecimalType) and not isinstance(node.parent, (exp.DataTypeParam, exp.TableSample)) and not (
            _approx_count_distinct_deviation(node)  # read as Spark reads it, never computed
        ) and not (node.parent is not None and _negative_integer_literal(node.parent) is not None and of(node.parent) == _BIGINT):
            # DuckDB counts a decimal literal's leading zeros as digits (0.5 is its decimal(2,1),
            # 00.5 its decimal(3,1)); Spark's is decimal(1,1), as _literal_type gives it
            whole = node.this.lstrip("-").partition(".")[0]
            if len(whole) + result.scale != result.precision or "." not in node.this:  # past a bigint: DuckDB's hugeint
                typed = exp.cast(node, _sql_type(result))
                typed.meta[_LITERAL] = True
                return typed
        if isinstance(node, exp.Cast) and node.meta.get(TYPED_LITERAL) and result in (_DOUBLE, AtomicType("float")) and _negative_zero(node.this):
            return exp.cast(exp.Literal.string("-0.0"), node.to)  # -0.0D: DuckDB's decimal -0.0 has no sign
        if _negative_integer_literal(node) in (str(-(2**31)), str(-(2**63))) and result is not None:
            # Spark's `-2147483648` is an int literal (and `-9223372036854775808` a bigint), its
            # minus part of the number; DuckDB negates a BIGINT (a HUGEINT) there
            return exp.cast(node, _sql_type(result))
        self._datetime_arguments(node)
        self._variants_as_strings(node)
        if isinstance(node, exp.Array):
            # an array's elements (or a map's keys or values) of strings among numbers: Spark's
            # bigints or doubles (array(1, '2') is an array<bigint>; DuckDB's list an INTEGER[])
            kinds = [self.typer._part(e) for e in node.expressions]
            target = string_branch_type([k for k, e in zip(kinds, node.expressions) if not isinstance(e, exp.Null)])
            if target is not None:
                node.set("expressions", [e if isinstance(e, exp.Null) else _branch_as(e, k, target) for e, k in zip(node.expressions, kinds)])
        from vpush.optimizer import spark_arrays

        array_call = spark_arrays.array_call(node)
        if array_call is not None:
            answered = spark_arrays.rewrite_array_function(*array_call, of, result, self._spark_cast)
            if array_call[0] == "sequence" and any(
                    isinstance(n, exp.Anonymous) and n.name == TIMESTAMP_ADD_INTERVAL_FUNCTION for n in answered.walk()):
                self.functions[TIMESTAMP_ADD_INTERVAL_FUNCTION] = AtomicType("timestamp")
            return answered
        if isinstance(node, (exp.RegexpLike, exp.RegexpExtract, exp.RegexpReplace, exp.RegexpSplit)):
            raising = _java_pattern(node)
            if raising is not None:
                return raising
        if isinstance(node, exp.RegexpSplit) and node.args.get("limit") is not None:
            return _split_with_limit(node.this, node.expression, node.args["limit"])
        if isinstance(node, (exp.Neg, exp.Abs)) and isinstance(result, DecimalType) and not (
            isinstance(node, exp.Neg) and (isinstance(node.this, exp.Literal) or node.this.meta.get(_LITERAL))
        ):
            # (a minus sign before a number is part of Spark's literal, which is not negated)
            return _decimal_negation(node.this, result, absolute=isinstance(node, exp.Abs))
        if isinstance(node, exp.Length) and of(node.this) == AtomicType("binary"):
            # Spark's length of a binary counts its bytes (DuckDB's length takes no blob)
            return exp.cast(exp.Anonymous(this="octet_length", expressions=[node.this]), exp.DataType.build("INT"))
        called = None if isinstance(node, (exp.Cast, exp.TryCast)) else _called(node)
        if called is not None:
            rewritten = self._spark_function(node, called, result)
            if rewritten is not None:
                return rewritten
        if isinstance(node, exp.Cast) and ARGUMENT_TYPE in node.meta and node.meta[ARGUMENT_TYPE] != VARIANT:
            return _cast_to_variant(node, node.meta[ARGUMENT_TYPE])
        if isinstance(node, exp.Cast) and not isinstance(node.this, VariantGet) and of(node.this) == VARIANT:
            if result == VARIANT:
                return node.this
            # Spark casts a variant as variant_get(v, '$', type) does (try_cast: as
            # try_variant_get); the extraction rewrite that follows computes it.
            node.set("this", VariantGet(this=node.this, path=exp.Literal.string("$"), colon=True))
            return node
        if isinstance(node, exp.Filter) and isinstance(node.this, exp.ArrayUniqueAgg) and not isinstance(node.parent, exp.Window):
            # collect_set(x) FILTER (WHERE c): DuckDB's LIST(DISTINCT x) carries a FILTER of its own
            # (x IS NOT NULL), so ARRAY_AGG(DISTINCT x) under one FILTER of both (each group holds
            # its distinct values only; their order is _spark_set's)
            member = _distinct_argument(node.this.this)
            element = _set_element(self.typer._part(member), node.this)
            kept = exp.and_(node.expression.this.copy(), exp.Not(this=exp.Is(this=member.copy(), expression=exp.Null())), copy=False)
            member = _normalized_member(member, element)  # Spark's set holds -0.0 as 0.0
            # list_distinct of the kept values, not ARRAY_AGG(DISTINCT ...): a DISTINCT aggregate
            # would tell the SELECT's other aggregates that Spark's order of rows is not known
            listed = exp.Filter(this=exp.ArrayAgg(this=member.copy()), expression=exp.Where(this=kept))
            return self._spark_set(exp.Anonymous(this="list_distinct", expressions=[listed]), element,
                                   self._task_sets(member, node.expression.this, element))
        if (isinstance(node, (exp.ArrayAgg, exp.ArrayUniqueAgg)) and not isinstance(node.parent, (exp.Filter, exp.Window))) or (
            isinstance(node, exp.Window) and isinstance(node.this, (exp.ArrayAgg, exp.ArrayUniqueAgg))
        ) or (isinstance(node, exp.Filter) and isinstance(node.this, exp.ArrayAgg) and not isinstance(node.parent, exp.Window)):
            call = node.this if isinstance(node, exp.Filter) else node
            fallback = None
            if isinstance(node, exp.ArrayAgg) and not isinstance(node.this, (exp.Order, exp.Distinct)):
                fallback = self._fallback("collect_list")
                order = scan_order(self.typer.scope)
                if fallback is not None and fallback[0] is not None and order is not None:
                    # past 128 groups a group's later rows come first
                    return exp.Coalesce(this=collected_past_fallback(node.this, order, fallback[0]), expressions=[exp.Array(expressions=[])])
            if isinstance(call, exp.ArrayAgg) and not isinstance(call.this, (exp.Order, exp.Distinct)):
                # collect_list's values in the order Spark meets the rows in
                call.set("this", ordered(call.this, scan_order(self.typer.scope)))
            unique = node.this if isinstance(node, exp.Window) else call
            element = _set_element(self.typer._part(_distinct_argument(unique.this)), unique) if isinstance(unique, exp.ArrayUniqueAgg) else None
            if element is not None and _floating_inside(element):
                # Spark's set holds -0.0 as 0.0
                unique.set("this", _normalized_member(_distinct_argument(unique.this), element))
            if isinstance(unique, exp.ArrayUniqueAgg) and orders_set(element):
                sized = None if isinstance(node, exp.Window) else self._task_sets(_distinct_argument(unique.this), None, element)
                return self._spark_set(node, element, sized)
            aggregated = node.this if isinstance(node, exp.Window) else call
            argument = aggregated.this.this if isinstance(aggregated.this, exp.Order) else aggregated.this
            if isinstance(aggregated, exp.ArrayAgg) and not isinstance(node, exp.Filter) and not isinstance(argument, exp.Distinct) and argument.find(exp.Column) is None:
                # Spark skips NULLs; sqlglot's DuckDB ARRAY_AGG filters them out only of an argument
                # holding a column, so collect_list(NULL) without_nulls them (a list of NULLs, not [])
                without_nulls = exp.Filter(this=aggregated.copy(), expression=exp.Where(this=exp.Not(this=exp.Is(this=argument.copy(), expression=exp.Null()))))
                if node is aggregated:
                    node = without_nulls
                else:
                    aggregated.replace(without_nulls)
            # Spark's collect_list/collect_set of no (non-NULL) values is [], DuckDB's NULL
            collected = exp.Coalesce(this=node, expressions=[exp.Array(expressions=[])])
            return self._past_fallback("collect_list", collected, fallback)
        moment = self._moment(node)
        if moment is not None:
            return moment
        if isinstance(node, exp.Filter) and isinstance(node.this, exp.ApproxQuantile) and not isinstance(node.parent, exp.Window):
            return self._approx_percentile(node.this, node.expression.this)
        if isinstance(node, (exp.Case, exp.Nullif)):
            node = self._string_beside_fraction(node)
        if isinstance(node, (exp.Case, exp.If, exp.Coalesce, exp.Greatest, exp.Least, exp.Array, exp.Nvl2, exp.In)):
            coerced = self._coerce_nested_parts(node)
            if isinstance(node, (exp.Greatest, exp.Least)):
                nested_extreme = self._nested_extreme(node)
                if nested_extreme is not None:
                    return nested_extreme
            if coerced is not None:
                return coerced
        if isinstance(node, (exp.Case, exp.If, exp.Coalesce, exp.Greatest, exp.Least, exp.Array)) and not isinstance(node.parent, exp.Case):
            widened = self._widen_decimal_branches(node)
            if widened is not None:
                return widened
        if isinstance(node, exp.Filter) and isinstance(node.this, exp.CountIf) and not isinstance(node.parent, exp.Window):
            return _count_of_trues(node)  # `count_if(p) FILTER (...)`: DuckDB's is a decimal, NULL for no rows
        if isinstance(node, exp.Filter) and isinstance(node.this, exp.Sum) and not isinstance(node.parent, exp.Window):
            # `sum(x) FILTER (WHERE ...)`: typed as Spark types the sum (DuckDB's is a HUGEINT)
            return self._aggregate(node, node.this, of(node.this), window=None)
        estimated = self._approx_count_distinct(node)
        if estimated is not None:
            return estimated
        if isinstance(node, exp.Filter) and isinstance(node.this, exp.Avg) and not isinstance(node.parent, exp.Window):
            in_order = self._add_in_order(node, node.this)
            if in_order is not None:
                return in_order
            if isinstance(of(node.this.this), DecimalType) and not isinstance(node.this.this, exp.Distinct):
                # `avg(d) FILTER (WHERE ...)` of decimals: Spark's exact decimal average (DuckDB's a double)
                return self._aggregate(node, node.this, of(node.this), window=None)
        if isinstance(node, exp.Window):
            _check_window(node, self.typer.of)
            if isinstance(node.this, (exp.Quantile, exp.Median)) or _percentile_cont(node.this) is not None:
                return self._exact_percentile(node.this, node)
            if isinstance(node.this, exp.CountIf):
                return _count_of_trues(node)
            if isinstance(node.this, (exp.Lag, exp.Lead)):
                _truncate_default(node.this, of(node.this.this))
        if isinstance(node, exp.Window) and isinstance(node.this, (exp.Sum, exp.Avg, *_RANKING)):
            if isinstance(node.this, (exp.Sum, exp.Avg)) and isinstance(node.this.this, exp.Distinct):
                return node
            return self._aggregate(node, node.this, result, window=node)
        if isinstance(node, exp.ApproxQuantile) and isinstance(node.parent, (exp.Filter, exp.Window)):
            return self._approx_percentile(node)  # its checks (the FILTER's visit computes it; a window refused)
        if isinstance(node.parent, (exp.Filter, exp.Window)) and node.arg_key == "this" and isinstance(node, exp.AggFunc):
            # `agg(x) FILTER (...)` and `agg(x) OVER (...)`: a wrapper here would not parse.
            # Only a function swap is safe; the types stay DuckDB's.
            # (past the hash aggregation's fallback the FILTER's visit splits the rows it keeps:
            # _PAST_FALLBACK holds the name and that form)
            order = scan_order(self.typer.scope) if isinstance(node.parent, exp.Filter) else None
            if isinstance(node, (exp.ArgMax, exp.ArgMin)):
                if order is not None:
                    ordering = nested_sort_key(node.expression, of(node.expression)) or node.expression
                    replaced = last_of_ties(node, ordering, order)
                    call, at = node.copy(), order

                    def extreme(condition: exp.Expr, place: exp.Expression) -> exp.Expr:
                        return extreme_past_fallback(call, ordering, at, place, condition)

                    replaced.meta[_PAST_FALLBACK] = ("max_by" if isinstance(node, exp.ArgMax) else "min_by", extreme)
                    return replaced
                name = "arg_max_null" if isinstance(node, exp.ArgMax) else "arg_min_null"
                return exp.Anonymous(this=name, expressions=[node.this, node.expression])
            if order is not None and isinstance(node, (exp.First, exp.Last, exp.AnyValue)):
                replaced = first_or_last(node.this, isinstance(node, exp.Last), order)
                value, last, at = node.this.copy(), isinstance(node, exp.Last), order

                def pick(condition: exp.Expr, place: exp.Expression) -> exp.Expr:
                    return first_or_last_past_fallback(value, last, at, place, condition)

                replaced.meta[_PAST_FALLBACK] = (node.sql_name().lower(), pick)
                return replaced
            if order is not None and isinstance(node, exp.ArrayAgg) and not isinstance(node.this, (exp.Order, exp.Distinct)):
                value, at = node.this.copy(), order

                def collect(condition: exp.Expr, place: exp.Expression) -> exp.Expr:
                    return exp.Coalesce(this=collected_past_fallback(value, at, place, condition), expressions=[exp.Array(expressions=[])])

                node.meta[_PAST_FALLBACK] = ("collect_list", collect)
            if order is not None and isinstance(node, (exp.ArrayAgg, exp.GroupConcat)) and not isinstance(node.this, (exp.Order, exp.Distinct)):
                node.set("this", ordered(node.this, order))
            return node
        if isinstance(node, (exp.Sum, exp.Avg)) and not isinstance(node.parent, exp.Window):
            return self._aggregate(node, node, result, window=None)
        if isinstance(node, exp.Anonymous) and node.name.lower() == "pmod" and len(node.expressions) == 2:
            if isinstance(result, DecimalType):
                value, divisor = node.expressions
                return self._decimal_pmod(value, divisor, result)
            # typed as DuckDB types the remainder, which is Spark's type of pmod of integers and doubles
            value, divisor = node.expressions
            return self._nonzero(value, divisor, _pmod, "REMAINDER_BY_ZERO", None)
        if isinstance(node, exp.TsOrDsAdd) and (of(node.this) == AtomicType("date") or of(node.this) in _TIMESTAMPS):
            unit = node.args.get("unit")
            if unit is None or unit.name.upper() == "DAY":
                # Spark's date_add(date, n) is a date (of a timestamp: of its date in the session
                # time zone); sqlglot's DuckDB rendering makes it a timestamp.
                start = node.this if of(node.this) == AtomicType("date") else exp.cast(node.this, exp.DataType.build("DATE"))
                days = self._days_to_add(node)
                subtracted = _subtracted_days(days) or isinstance(days, exp.Neg)  # n * -1, or -(a string's int)
                return _date_plus_days(start, days.this if subtracted else days, subtracted)
            return node
        if isinstance(node, (exp.Length, exp.ArraySize, exp.DateDiff)) and result == _INT:
            return exp.cast(node, exp.DataType.build("INT"))
        if isinstance(node, exp.CountIf):
            return _count_of_trues(node)
        if isinstance(node, tuple(_DATETIME_PARTS)):
            part: exp.Expr = node
            if isinstance(node, exp.DayOfWeek):  # Spark: Sunday is 1; DuckDB: Sunday is 0
                part = exp.Add(this=node, expression=exp.Literal.number(1))
            return exp.cast(part, exp.DataType.build("INT"))
        if isinstance(node, exp.Anonymous) and node.name.lower() == "weekday" and len(node.expressions) == 1:
            # Spark: Monday is 0; DuckDB's isodow: Monday is 1
            iso = exp.Anonymous(this="isodow", expressions=[node.expressions[0]])
            return exp.cast(exp.Sub(this=iso, expression=exp.Literal.number(1)), exp.DataType.build("INT"))
        if isinstance(node, exp.StrToUnix) and of(node.this) in _TIMESTAMPS:
            # unix_timestamp of a timestamp: the microseconds divided toward zero by Java's long
            # division (-1.5 s is -1), in integers (a double rounds 253402300799.999999 up)
            micros = exp.Anonymous(this="epoch_us", expressions=[node.this])
            return exp.cast(exp.IntDiv(this=micros, expression=exp.Literal.number(1_000_000)), exp.DataType.build("BIGINT"))
        if isinstance(node, exp.UnixSeconds) and of(node.this) in _TIMESTAMPS:
            # unix_seconds: Math.floorDiv of the microseconds (23:59:59.5 is 59, -0.5 s is -1), in
            # integers; DuckDB's CAST(epoch(ts) AS BIGINT) rounds the seconds to the nearest
            micros = exp.Anonymous(this="epoch_us", expressions=[node.this])
            below = exp.LT(this=exp.Mod(this=micros.copy(), expression=exp.Literal.number(1_000_000)), expression=exp.Literal.number(0))
            floor = exp.Sub(this=exp.IntDiv(this=micros, expression=exp.Literal.number(1_000_000)),
                            expression=exp.cast(below, exp.DataType.build("BIGINT")))
            return exp.cast(floor, exp.DataType.build("BIGINT"))
        if isinstance(node, exp.Cast) and _cast_type(node) == AtomicType("float") and of(node.this) == AtomicType("double"):
            return _java_float_of_double(node.this)
        if isinstance(node, exp.Cast) and isinstance(_cast_type(node), StringType) and isinstance(
            of(node.this), (ArrayType, MapType, StructType)
        ):
            # Spark prints `[1, null]`, `{a -> 1}`, `{1, x}`; DuckDB `[1, NULL]`, `{a=1}`, `{'a': 1, 'b': x}`
            source = of(node.this)
            assert source is not None  # for mypy: an array, map or struct
            return self._nested_text(node.this, source, 0)
        if isinstance(node, exp.Cast) and isinstance(_cast_type(node), StringType) and of(node.this) is None and isinstance(
            node.this.unnest(), (exp.Struct, exp.Array, exp.Map, exp.VarMap)
        ):
            # a struct, array or map vpush does not type (a NULL field): DuckDB would print its own way
            _refuse("CAST", "an array, map or struct of a type vpush does not know")
        if isinstance(node, exp.Cast) and isinstance(of(node.this), StringType) and (
            _is_integral(_cast_type(node)) or _cast_type(node) == AtomicType("boolean")
        ):
            return _string_to_integral_or_boolean(node.this, _cast_type(node), strict=not isinstance(node, exp.TryCast))
        if node.meta.get(TYPED_LITERAL):  # a literal (1.5D, 0.2BD) written as a cast of its text: no string cast
            if isinstance(node, exp.Cast) and _cast_type(node) in _FLOATING:
                return node
        elif isinstance(node, (exp.Cast, exp.TryCast)) and isinstance(of(node.this), StringType) and isinstance(_cast_type(node), DecimalType):
            decimal_target = _cast_type(node)
            assert isinstance(decimal_target, DecimalType)  # for mypy: checked above
            return _string_column_as_decimal(node.this, decimal_target, strict=not isinstance(node, exp.TryCast))
        elif isinstance(node, (exp.Cast, exp.TryCast)) and isinstance(of(node.this), StringType) and _cast_type(node) in _FLOATING:
            target = _cast_type(node)
            assert isinstance(target, AtomicType)  # for mypy: a double or a float
            return _string_as_floating(node.this, target, strict=not isinstance(node, exp.TryCast))
        if isinstance(node, (exp.Cast, exp.TryCast)):
            if of(node.this) is None and _holds_struct(_cast_type(node)) and not isinstance(node.this.unnest(), exp.Null):
                # DuckDB would pair the fields by name, Spark pairs them by position
                _refuse("CAST", "a value vpush does not type (a struct with a NULL field) to a struct")
            mismatch = _struct_cast_mismatch(of(node.this), _cast_type(node))
            if mismatch == "count":
                raise OptimizeError(f"{node.sql(dialect=VpushSpark)}: cannot cast a struct to a struct of another number of fields",
                                    error_class="DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION")
            source, target = of(node.this), _cast_type(node)
            nested = (ArrayType, MapType, StructType)
            if (isinstance(source, nested) and isinstance(target, nested) and source != target
                    and not isinstance(node.this, VariantGet)):
                # DuckDB casts a nested value's parts by its own rules (and a struct's fields by
                # name): each part is cast as Spark casts it, its fields in order
                return self._nested_cast(node.this, source, target, isinstance(node, exp.TryCast))
        if isinstance(node, exp.Cast) and not isinstance(node.this, VariantGet):
            between = self._datetime_number_cast(node, of(node.this), _cast_type(node))
            if between is not None:
                return between
        if isinstance(node, (exp.Cast, exp.TsOrDsToDate)) and isinstance(of(node.this), StringType):
            target = AtomicType("date") if isinstance(node, exp.TsOrDsToDate) else _cast_type(node)
            if isinstance(target, AtomicType) and target.name in STRING_DATETIME_FUNCTIONS and not node.args.get("format"):
                # try_cast gives NULL for bad input; cast, to_date and a date function's string raise
                return self._string_to_datetime(node.this, target, strict=not isinstance(node, exp.TryCast))
        if isinstance(node, exp.Cast) and _cast_type(node) == AtomicType("timestamp") and of(node.this) == AtomicType("timestamp_ntz"):
            return self._ntz_to_timestamp(node.this)
        if isinstance(node, exp.Cast) and node.to.this == exp.DataType.Type.TIMESTAMP:
            # to_timestamp(...) is Spark's session-zoned timestamp, not a naive one
            node.set("to", exp.DataType.build("TIMESTAMPTZ"))
            return node
        if isinstance(node, exp.Cast) and isinstance(_cast_type(node), StringType) and of(node.this) in _TIMESTAMPS:
            return _timestamp_text(node.this)
        if isinstance(node, exp.Cast) and isinstance(_cast_type(node), StringType) and of(node.this) == AtomicType("date"):
            return _date_text(node.this)
        if isinstance(node, exp.Cast) and isinstance(_cast_type(node), StringType) and (
            _is_fractional(of(node.this)) or of(node.this) == AtomicType("binary")
        ):
            return self._java_text(node.this)
        if isinstance(node, exp.Cast) and isinstance(_cast_type(node), DecimalType) and _is_fractional(of(node.this)):
            target = _cast_type(node)
            assert isinstance(target, DecimalType)
            return self._fractional_to_decimal(node.this, target, strict=not isinstance(node, exp.TryCast))
        if isinstance(node, exp.Cast) and _cast_type(node) == AtomicType("binary") and isinstance(of(node.this), StringType):
            # Spark's bytes are the string's UTF-8; DuckDB's cast reads `\xAA` escapes and refuses
            # any other character past ASCII.
            return exp.Anonymous(this="encode", expressions=[node.this])
        if isinstance(node, exp.ConcatWs) and len(node.expressions) == 1:
            # the separator alone: Spark's '' (NULL for a NULL separator), where DuckDB takes none
            separator = node.expressions[0]
            return exp.If(this=exp.Is(this=separator.copy(), expression=exp.Null()), true=exp.cast(exp.Null(), exp.DataType.build("VARCHAR")),
                          false=exp.Literal.string(""))
        if isinstance(node, (exp.Concat, exp.DPipe)):
            # Spark casts a double or float argument to a string first, as a cast prints it; a
            # NULL beside strings (or alone) is a string NULL, where DuckDB's result would be
            # NULL-typed.
            parts = [c for c in node.iter_expressions() if isinstance(c, exp.Expr)]
            if not isinstance(node, exp.ConcatWs):  # concat_ws takes arrays of strings beside strings
                _check_concat_of_nested(node, [VOID if isinstance(_unparen(c), exp.Null) else of(c) for c in parts])
            arrays = _concat_parts(node, of)
            if arrays is not None:
                return self._concat_arrays(node, *arrays)
            texts = all(
                isinstance(c, exp.Null) or isinstance(of(c), (StringType, DecimalType))
                or (isinstance(of(c), AtomicType) and of(c) != AtomicType("binary"))
                for c in parts
            )
            for key in ("this", "expression", "expressions"):
                value = node.args.get(key)
                for i, child in enumerate(value if isinstance(value, list) else [value]):
                    if isinstance(child, exp.Expr) and _is_fractional(of(child)):
                        node.set(key, self._java_text(child), i if isinstance(value, list) else None)
                    elif isinstance(child, exp.Null) and texts:
                        node.set(key, exp.cast(exp.Null(), exp.DataType.build("VARCHAR")), i if isinstance(value, list) else None)
            parts = [c for c in node.iter_expressions() if isinstance(c, exp.Expr)]
            if (texts and not isinstance(node, exp.ConcatWs) and any(_null_constant(p) for p in parts) and any(map(_may_raise, parts))
                    and node.find(exp.Column, exp.AggFunc, exp.Window, exp.Query) is None):
                # Spark's constant folding computes every argument of a constant concat (concat(NULL,
                # cast('q' AS int)) raises; one that reads a row is NULL unseen), where DuckDB's binder
                # makes a call with a NULL constant NULL without computing the others; a row of them
                # computes each
                every = exp.Anonymous(this="row", expressions=parts)
                return exp.Case(ifs=[exp.If(this=exp.Is(this=every, expression=exp.Null()), true=exp.cast(exp.Null(), exp.DataType.build("VARCHAR")))])
            return node
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Mod)) and {
            isinstance(of(node.this), StringType), isinstance(of(node.expression), StringType)
        } == {True, False} and _is_integral(of(node.expression) if isinstance(of(node.this), StringType) else of(node.this)):
            # Spark's ANSI coercion reads the string as a bigint and widens the integer to one
            bigint = AtomicType("bigint")
            for key in ("this", "expression"):
                part = node.args[key]
                if isinstance(of(part), StringType):
                    node.set(key, _string_to_integral_or_boolean(part, bigint, strict=True))
                else:
                    node.set(key, exp.cast(part, _sql_type(bigint)))
            return node
        if (
            isinstance(node, exp.Cast) and node.meta.get(TYPED_LITERAL) and isinstance(node.this, exp.Literal)
            and isinstance(result, DecimalType) and "e" in node.this.name.lower()
        ):
            # 1.5e-3BD: DuckDB casts no exponent with a negative power to a decimal
            node.this.set("this", format(decimal.Decimal(node.this.name), "f"))
            return node
        if isinstance(node, exp.Interval) and isinstance(node.args.get("unit"), exp.IntervalSpan):
            # DAY TO SECOND and its kin, which DuckDB's parser refuses: the interval of its total
            one_unit = one_unit_interval(node)
            if one_unit is None:
                _refuse("INTERVAL", f"the interval {node.sql(dialect=VpushSpark)}")
            return one_unit
        if isinstance(node, exp.Add) and isinstance(node.this, exp.Interval) and of(node.expression) in _DATETIMES[:2]:
            # an interval plus a date or timestamp: the date or timestamp plus the interval
            interval, moment = node.this, node.expression
            node.set("this", moment)
            node.set("expression", interval)
        if isinstance(node, (exp.Add, exp.Sub)) and of(node.this) == AtomicType("timestamp") and isinstance(node.expression, exp.Interval):
            # Spark adds a day-time interval's whole days in local time and the rest exactly
            # (24 hours is a day: 25 hours across a fall-back change); DuckDB adds hours exactly
            split = _interval_days(node.expression)
            if split is None:
                return node
            step = exp.Add if isinstance(node, exp.Add) else exp.Sub
            return step(this=exp.Paren(this=step(this=node.this, expression=split[0])), expression=split[1])
        if isinstance(node, (exp.Add, exp.Sub)) and of(node.this) == AtomicType("date") and _interval_unit(node.expression):
            # Spark's date plus days, months or years is a date; plus a time, a timestamp in the
            # session zone (DuckDB's are both naive timestamps)
            if _interval_unit(node.expression) in _DATE_UNITS:
                return exp.cast(node, exp.DataType.build("DATE"))
            node.set("this", exp.cast(node.this, exp.DataType.build("TIMESTAMPTZ")))
            return node
        if isinstance(node, exp.Sub) and (
            (of(node.this) in _DATETIMES and (of(node.expression) in _DATETIMES or isinstance(of(node.expression), StringType)))
            or (isinstance(of(node.this), StringType) and of(node.expression) in _DATETIMES)
        ):
            return self._datetime_difference(node)
        if isinstance(node, exp.Add) and _unparen(node.this).meta.get(_DAY_INTERVAL) == "day" and of(node.expression) == AtomicType("date"):
            interval, day = node.this, node.expression  # an interval day plus a date: the date plus it
            node.set("this", day)
            node.set("expression", interval)
        if (
            isinstance(node, (exp.Add, exp.Sub)) and of(node.this) == AtomicType("date")
            and _unparen(node.expression).meta.get(_DAY_INTERVAL) == "day"
        ):
            # a date plus or minus a difference of dates (an interval day) is a date in Spark
            return exp.cast(node, exp.DataType.build("DATE"))
        if isinstance(node, (exp.Left, exp.Right)):
            # Spark's left/right of a length below 1 is '' (DuckDB's counts from the other end)
            empty = exp.cast(exp.Literal.string(""), exp.DataType.build("VARCHAR"))
            short = exp.LTE(this=node.expression.copy(), expression=exp.Literal.number(0))
            missing = exp.Or(this=exp.Is(this=node.this.copy(), expression=exp.Null()),
                             expression=exp.Is(this=node.expression.copy(), expression=exp.Null()))
            return exp.Case(ifs=[exp.If(this=missing, true=exp.cast(exp.Null(), exp.DataType.build("VARCHAR"))),
                                 exp.If(this=short, true=empty)], default=node)
        if isinstance(node, (exp.Like, exp.ILike)):
            # Spark casts a number or boolean matched by LIKE to its string (DuckDB's binder refuses)
            subject = of(node.this)
            if subject is None and isinstance(node.this.unnest(), (exp.Predicate, exp.Connector, exp.Not)):
                subject = AtomicType("boolean")  # a comparison or a condition
            if _is_integral(subject) or isinstance(subject, DecimalType) or subject == AtomicType("boolean"):
                node.set("this", exp.cast(node.this, exp.DataType.build("VARCHAR")))
            elif _is_fractional(subject):
                node.set("this", self._java_text(node.this))
        if isinstance(node, (exp.Like, exp.ILike)) and isinstance(node.expression, (exp.Any, exp.All)):
            return _like_any_or_all(node)
        if isinstance(node, (exp.Add, exp.Sub)):
            sides = [node.this, node.expression] if isinstance(node, exp.Add) else [node.this]
            for date_side in sides:
                other = node.expression if date_side is node.this else node.this
                added = of(other)
                if of(date_side) == AtomicType("date") and (
                    added in (_BIGINT, _DOUBLE, AtomicType("float")) or isinstance(added, (DecimalType, StringType))
                ):
                    # Spark's date plus a number is date_add(d, n), whose n is an int at most (a
                    # string it casts to a date, which date_add does not take either)
                    raise OptimizeError(
                        f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: The second parameter requires '
                        f'the ("INT" or "SMALLINT" or "TINYINT") type, however "{_spark_text(other)}" has the type '
                        f'"{_spark_type_name(added)}".',
                        error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                    )
                if of(date_side) == AtomicType("date") and added in _SMALL_INTEGRALS:
                    return _date_plus_days(date_side, other, isinstance(node, exp.Sub))
        if isinstance(node, (exp.Like, exp.ILike)) and not isinstance(node.parent, exp.Escape):
            # Spark's LIKE escapes with a backslash unless told otherwise; DuckDB's has no escape
            return exp.Escape(this=node, expression=exp.Literal.string("\\"))
        if isinstance(node, (exp.ArgMax, exp.ArgMin)):
            # Spark's max_by/min_by return the value at the extreme row even when it is NULL.
            name = "arg_max_null" if isinstance(node, exp.ArgMax) else "arg_min_null"
            ordering = nested_sort_key(node.expression, of(node.expression)) or node.expression
            order = scan_order(self.typer.scope)
            fallback = self._fallback(name.replace("arg_", "").replace("_null", "") + "_by") if not isinstance(node.parent, exp.Window) else None
            if order is not None and fallback is not None and fallback[0] is not None:
                return extreme_past_fallback(node, ordering, order, fallback[0])
            if order is not None:
                return self._past_fallback(name, last_of_ties(node, ordering, order), fallback)
            return exp.Anonymous(this=name, expressions=[node.this, ordering])
        if isinstance(node, (exp.First, exp.Last, exp.AnyValue)) and not isinstance(
            node.parent, (exp.Window, exp.Filter, exp.IgnoreNulls, exp.RespectNulls)
        ):
            order = scan_order(self.typer.scope)
            fallback = self._fallback(node.sql_name().lower())
            if order is not None and fallback is not None and fallback[0] is not None:
                return first_or_last_past_fallback(node.this, isinstance(node, exp.Last), order, fallback[0], None)
            if order is not None:
                return self._past_fallback(node.sql_name().lower(), first_or_last(node.this, isinstance(node, exp.Last), order), fallback)
        if isinstance(node, (exp.Max, exp.Min)) and not isinstance(node.parent, (exp.Window, exp.Filter)):
            sort_key = nested_sort_key(node.this, of(node.this))
            if sort_key is not None:
                # an array's or struct's extreme as Spark orders them (a NULL inside first)
                return (exp.ArgMax if isinstance(node, exp.Max) else exp.ArgMin)(this=node.this.copy(), expression=sort_key)
        if isinstance(node, _COMPARISONS) and of(node.this) != of(node.expression):
            self._compare_as_one_type(node)
        if isinstance(node, (exp.LT, exp.LTE, exp.GT, exp.GTE)) and of(node.this) == of(node.expression):
            keyed = [nested_sort_key(side, of(side)) for side in (node.this, node.expression)]
            if keyed[0] is not None and keyed[1] is not None:
                return type(node)(this=keyed[0], expression=keyed[1])
        if isinstance(node, exp.ApproxQuantile):  # (a Quantile to sqlglot)
            return self._approx_percentile(node)
        if isinstance(node, (exp.Quantile, exp.Median)):
            return self._percentile(node)
        if isinstance(node, (exp.Grouping, exp.GroupingId)):
            return _grouping(node, self.typer.scope.expression)
        if _percentile_cont(node) is not None and not isinstance(node.parent, exp.Window):
            return self._exact_percentile(node, None)
        mode_order = _mode_within_group(node)
        if mode_order is not None:
            return self._mode(node, mode_order.this, least=not mode_order.args.get("desc"))
        if isinstance(node, exp.In) and node.args.get("query") is not None:
            self._in_subquery_operands(node)
        if _is_subquery_membership(node) and not _negated(node) and _in_projection(node):
            # Spark answers `x IN (subquery)` in a SELECT list by an existence join: true where a
            # row matches, else false (never NULL, for a NULL x or a subquery holding a NULL);
            # `x NOT IN (subquery)` is its negation with NULL comparisons counted as matches.
            return exp.Coalesce(this=node, expressions=[exp.false()])
        if isinstance(node, exp.Not) and _is_subquery_membership(node.this.unnest()) and _in_projection(node):
            return exp.Coalesce(this=node, expressions=[exp.false()])
        if isinstance(node, exp.IgnoreNulls) and isinstance(node.this, (exp.First, exp.Last, exp.FirstValue, exp.LastValue)):
            if not isinstance(node.parent, exp.Window):
                order = scan_order(self.typer.scope)
                fallback = self._fallback(node.this.sql_name().lower())
                if order is not None and fallback is not None and fallback[0] is not None and not isinstance(node.parent, exp.Filter):
                    kept = exp.Not(this=exp.Is(this=node.this.this.copy(), expression=exp.Null()))
                    return first_or_last_past_fallback(node.this.this, isinstance(node.this, (exp.Last, exp.LastValue)), order, fallback[0], kept)
                return self._past_fallback(node.this.sql_name().lower(), _first_or_last_ignoring_nulls(node.this, order), fallback)
            return node
        if isinstance(node, (exp.FirstValue, exp.LastValue)) and not isinstance(node.parent, (exp.Window, exp.IgnoreNulls, exp.RespectNulls)):
            # Spark's first_value/last_value outside a window are its first/last aggregates.
            order = scan_order(self.typer.scope)
            if order is not None and not isinstance(node.parent, exp.Filter):
                fallback = self._fallback(node.sql_name().lower())
                if fallback is not None and fallback[0] is not None:
                    return first_or_last_past_fallback(node.this, isinstance(node, exp.LastValue), order, fallback[0], None)
                return self._past_fallback(node.sql_name().lower(), first_or_last(node.this, isinstance(node, exp.LastValue), order), fallback)
            return (exp.First if isinstance(node, exp.FirstValue) else exp.Last)(this=node.this)
        if (
            isinstance(node, exp.Bracket)
            and not node.args.get("offset")
            and not node.args.get("safe")
            and len(node.expressions) == 1
            and isinstance(of(node.this), ArrayType)
        ):
            return _array_element(node)
        if isinstance(node, exp.Bracket) and not node.args.get("safe") and len(node.expressions) == 1:
            source = of(node.this)
            if isinstance(source, MapType):
                return self._map_value(node.this, node.expressions[0], source, "element_at" if node.args.get("offset") else "map[key]")
        if isinstance(node, exp.IntDiv):
            left, right = of(node.this), of(node.expression)
            if _is_integral(left) and _is_integral(right):
                def quotient(n: exp.Expression, d: exp.Expression) -> exp.Expression:
                    if left != _BIGINT:
                        # Spark divides as longs: -128Y div -1Y is 128 (DuckDB's TINYINT division overflows)
                        wide = exp.DataType.build("BIGINT")
                        return exp.cast(exp.IntDiv(this=exp.cast(n, wide), expression=exp.cast(d, wide)), wide)
                    value: exp.Expression = exp.cast(exp.IntDiv(this=n, expression=d), exp.DataType.build("BIGINT"))
                    # Long.MinValue div -1 does not fit a long: ARITHMETIC_OVERFLOW (DuckDB's own error)
                    overflow = exp.And(this=exp.EQ(this=n.copy(), expression=exp.cast(exp.Literal.number(str(-(1 << 63))), exp.DataType.build("BIGINT"))),
                                       expression=exp.EQ(this=d.copy(), expression=exp.Literal.number(-1)))
                    raised = spark_error("ARITHMETIC_OVERFLOW", "Overflow in integral divide. Use 'try_divide' to tolerate overflow and return NULL instead.",
                                         exp.DataType.build("BIGINT"))
                    return exp.Case(ifs=[exp.If(this=overflow, true=raised)], default=value)

                return self._nonzero(node.this, node.expression, quotient, "DIVIDE_BY_ZERO", "BIGINT")
            if isinstance(left, DecimalType) or isinstance(right, DecimalType):
                return self._decimal_div(node)
            return node
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Mod, exp.Div)) and _string_read_as_double(of(node.this), of(node.expression)):
            # Spark's ANSI coercion reads a string beside a decimal, double or float as a double
            # (DuckDB's binder finds no operator, or reads it as the decimal)
            node.set("this", self._to_double(node.this))
            node.set("expression", self._to_double(node.expression))
        if isinstance(node, exp.Div):
            return self._divide(node, result)
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Mod)) and result is not None and _is_integral(result):
            # DuckDB types a small literal as the narrowest integer: tinyint 127 + 1 would
            # overflow there, where Spark adds as int.
            for key in ("this", "expression"):
                side = node.args[key]
                if of(side) != result:
                    node.set(key, exp.cast(side, _sql_type(result)))
            return node
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul)) and isinstance(result, DecimalType):
            left, right = of(node.this), of(node.expression)
            a, b = _as_decimal(left, node.this), _as_decimal(right, node.expression)
            if a is None or b is None:
                # an operand typed otherwise than the result (a HAVING's name that is a source's
                # column and an alias of another type: Spark coerces it by the column's)
                raise OptimizeError(
                    f"{_spark_text(node)}: the DuckDB engine does not type this operand as Spark does; the Spark engine "
                    "(vpush.connect(engine='spark')) runs it",
                    error_class="VPUSH_UNSUPPORTED_FUNCTION",
                )
            operation = _OPERATIONS[type(node)]
            if not _exact_fits(operation, a, b, result):
                # The exact value (Spark's java BigDecimal) may need more than DuckDB's 38 digits,
                # where Spark rounds it to the result's scale and answers: the engine function
                # computes it in 256 bits.
                return self._decimal_function(operation, node.this, a, node.expression, b, result)
            this = exp.cast(node.this.copy(), _decimal(MAX_DECIMAL_PRECISION, a.scale))
            other = exp.cast(node.expression.copy(), _decimal(MAX_DECIMAL_PRECISION, b.scale))
            return exp.cast(node.__class__(this=this, expression=other), _sql_type(result))
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Mod)) and result == _DOUBLE:
            if any(of(side) == AtomicType("float") for side in (node.this, node.expression)):
                # float with int, bigint or decimal is double in Spark, float in DuckDB
                node.set("this", self._to_double(node.this))
                node.set("expression", self._to_double(node.expression))
        if isinstance(node, exp.Mod) and result is not None and _is_fractional(result):
            # DuckDB's remainder of a double by 0 is NaN; Spark's raises
            return self._nonzero(node.this, node.expression, lambda n, d: exp.Mod(this=n, expression=d), "REMAINDER_BY_ZERO",
                                 _sql_type(result).sql("duckdb"))
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul)) and result == _DOUBLE:
            return node
        if isinstance(node, exp.Mod) and isinstance(result, DecimalType):
            return self._decimal_remainder(node.this, node.expression, result)
        if isinstance(node, (*_COMPARISONS, exp.NullSafeEQ)):
            left, right = of(node.this), of(node.expression)
            if (isinstance(left, StructType) and isinstance(right, StructType) and len(left.fields) == len(right.fields)
                    and [f.name.lower() for f in left.fields] != [f.name.lower() for f in right.fields]):
                # Spark pairs the fields of structs compared by position, DuckDB by name; their
                # types must then be the same (Spark widens fields only under the same names)
                if [f.type for f in left.fields] != [f.type for f in right.fields]:
                    raise _incompatible_operands(node, left, right)
                node.set("expression", self._renamed_struct(node.expression, right, [f.name for f in left.fields]))
        if isinstance(node, (*_COMPARISONS, exp.Between, exp.In)) and not node.args.get("query"):
            present = comparison_operands(node)
            # a predicate is a boolean (`(i > 1) = 1`, which Spark refuses)
            kinds = [
                AtomicType("boolean") if of(o) is None and isinstance(_unparen(o), _PREDICATES) else of(o) for o in present
            ]
            def numeric(k: SparkType | None) -> bool:
                return _is_integral(k) or _is_fractional(k) or isinstance(k, DecimalType)

            elements = [k.element for k in kinds if isinstance(k, ArrayType)]
            if isinstance(node, _COMPARISONS) and (
                (AtomicType("boolean") in kinds and any(numeric(k) for k in kinds))
                # arrays of strings and of numbers or booleans: Spark finds no common type (it reads
                # a string as a number beside a number, not inside an array)
                or (len(elements) == 2 and any(isinstance(e, StringType) for e in elements)
                    and any(numeric(e) or e == AtomicType("boolean") for e in elements))
            ):
                raise _incompatible_operands(node, kinds[0], kinds[1])
            if any(k in _DATETIMES for k in kinds) and any(numeric(k) or k == AtomicType("boolean") for k in kinds):
                # a date or timestamp beside a number or a boolean: Spark finds no common type
                # (DuckDB's binder or cast raised without Spark's class)
                other = next(k for k in kinds if k not in _DATETIMES)
                when = next(k for k in kinds if k in _DATETIMES)
                if isinstance(node, exp.In):
                    raise OptimizeError(
                        f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: Input to `in` should all be the '
                        f'same type, but it\'s [{", ".join(f"{chr(34)}{k.to_sql()}{chr(34)}" for k in kinds if k is not None)}].',
                        error_class="DATATYPE_MISMATCH.DATA_DIFF_TYPES",
                    )
                raise _incompatible_operands(node, *((other, when) if kinds[0] is other else (when, other)))
            if any(_is_integral(k) for k in kinds) and any(isinstance(k, StringType) for k in kinds):
                # Spark's ANSI coercion reads the string beside an integer as a bigint (CAST_INVALID_INPUT
                # for '2.5'); DuckDB compared it otherwise.
                _cast_string_operands(node, of, lambda side: _string_to_integral_or_boolean(side, _BIGINT, strict=True))
            elif AtomicType("boolean") in kinds and any(isinstance(k, StringType) for k in kinds):
                # Spark's coercion reads the string beside a boolean by its cast ('yes', ' T ', '0'
                # read; CAST_INVALID_INPUT for 'x'); DuckDB's cast reads fewer words and raised
                _cast_string_operands(node, of, lambda side: _string_to_integral_or_boolean(side, AtomicType("boolean"), strict=True))
            elif any(isinstance(k, StringType) for k in kinds) and any(_is_fractional(k) or isinstance(k, DecimalType) for k in kinds):
                # Spark compares a string with a decimal or a double as doubles; DuckDB read the
                # string as the decimal, rounded to its scale ('3.04' = 3.0 was true)
                for key in ("this", "expression", "low", "high"):
                    side = node.args.get(key)
                    if isinstance(side, exp.Expr) and (isinstance(of(side), StringType) or isinstance(of(side), DecimalType)):
                        node.set(key, self._to_double(side))
                node.set("expressions", [
                    self._to_double(e) if isinstance(of(e), (StringType, DecimalType)) else e for e in node.expressions
                ])
            if any(of(o) == AtomicType("float") for o in present) and any(
                _is_integral(of(o)) or isinstance(of(o), DecimalType) or of(o) == _DOUBLE for o in present
            ):
                # Spark compares a float with an integer, decimal or double as doubles; DuckDB
                # casts the other side to float (1.1F > 1.1 is true in Spark, false there).
                for key in ("this", "expression", "low", "high"):
                    side = node.args.get(key)
                    if isinstance(side, exp.Expr):
                        node.set(key, self._to_double(side))
                node.set("expressions", [self._to_double(e) for e in node.expressions])
            return node
        if isinstance(node, (exp.Cast, exp.TryCast)) and _is_integral(result):
            source = of(node.this)
            if (_is_fractional(source) or isinstance(source, DecimalType)) and isinstance(result, AtomicType):
                assert source is not None  # for mypy: a double, float or decimal
                return self._fraction_to_integral(node.this, source, result, strict=not isinstance(node, exp.TryCast))
            return node
        return node

    def _fraction_to_integral(self, value: exp.Expr, source: SparkType, target: AtomicType, *, strict: bool) -> exp.Expr:
        """Spark's cast of a double, float or decimal to an integral type (``DoubleExactNumeric.toInt``
        and kin, ``Decimal.roundToInt``): truncated toward zero (DuckDB rounds), ``CAST_OVERFLOW``
        in Spark's words (the value as its literal prints it: Java's ``1.0E20D``, ``NaN``, a float's
        ``3.0E9``, a decimal's ``3000000000.50BD``) where the truncated value is past the type, NaN
        and the infinities included (NULL for ``try_cast``); a double or float that is ``2^63`` is
        ``Long.MaxValue`` for a ``bigint``, as ``Math.floor(x) <= Long.MaxValue`` compares it as a
        double (DuckDB's cast raised). A value other than a column or a literal is computed once."""
        kind = source.to_sql()
        bits = INTEGER_WIDTHS[target.name]
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

        def number(operand: Callable[[str], exp.Expression]) -> exp.Expression:
            x = operand("x")
            self.typer.set_type(x, source)
            return x

        def cast(operand: Callable[[str], exp.Expression]) -> exp.Expression:
            whole = exp.Anonymous(this="trunc", expressions=[number(operand)])
            ifs = [exp.If(this=exp.Is(this=number(operand), expression=exp.Null()), true=exp.Null())]
            if target.name == "bigint" and isinstance(source, AtomicType):
                two_63 = exp.Literal.number("9.223372036854775808E18")
                fits: exp.Expr = exp.and_(exp.GTE(this=whole, expression=exp.Neg(this=two_63)),
                                                exp.LT(this=whole.copy(), expression=two_63.copy()), copy=False)
                ifs.append(exp.If(this=fits, true=exp.cast(whole.copy(), "BIGINT")))
                ifs.append(exp.If(this=exp.EQ(this=whole.copy(), expression=two_63.copy()),
                                  true=exp.cast(exp.Literal.number(2**63 - 1), "BIGINT")))
            else:
                fits = exp.Between(this=whole, low=exp.Literal.number(low), high=exp.Literal.number(high))
                ifs.append(exp.If(this=fits, true=exp.cast(whole.copy(), _sql_type(target))))
            if not strict:
                return exp.Case(ifs=ifs, default=exp.cast(exp.Null(), _sql_type(target)))
            text: exp.Expr = self._java_text(number(operand))
            if isinstance(source, DecimalType):  # DuckDB prints a decimal at its scale, as Spark's Decimal does
                text = exp.DPipe(this=exp.cast(number(operand), "VARCHAR"), expression=exp.Literal.string("BD"))
            elif kind == "DOUBLE":  # Spark's literal of a finite double: `1.0E20D`
                finite = exp.Anonymous(this="isfinite", expressions=[number(operand)])
                text = exp.DPipe(this=text, expression=exp.Case(ifs=[exp.If(this=finite, true=exp.Literal.string("D"))],
                                                                default=exp.Literal.string("")))
            message = exp.DPipe(
                this=exp.DPipe(this=exp.Literal.string("The value "), expression=text),
                expression=exp.Literal.string(
                    f' of the type "{kind}" cannot be cast to "{target.name.upper()}" due to an overflow. '
                    "Use `try_cast` to tolerate overflow and return NULL instead."
                ),
            )
            return exp.Case(ifs=ifs, default=spark_error("CAST_OVERFLOW", message, _sql_type(target)))

        operands: dict[str, exp.Expression] = {"x": typing.cast(exp.Expression, value)}
        if _is_plain(value):
            return cast(lambda name: operands[name].copy())
        return _with_operands(operands, cast)

    def _spark_set(self, collected: exp.Expr, element: SparkType | None, sized: exp.Expression | None = None) -> exp.Expr:
        """A collected set as Spark's ``collect_set`` gives it: [] for no (non-NULL) values, where
        DuckDB's is NULL, in the order of Spark's hash set where vpush knows it
        (:mod:`vpush.optimizer.spark_collect_set`), its table sized for ``sized`` elements where
        given (:meth:`_task_sets`)."""
        listed = exp.Coalesce(this=collected, expressions=[exp.Array(expressions=[])])
        if element is None or not orders_set(element):
            return listed
        return spark_set_order(listed, element, self.functions, sized)

    def _task_sets(self, member: exp.Expr, condition: exp.Expr | None, element: SparkType | None) -> exp.Expression | None:
        """Where vpush knows which Spark task reads each row, the largest of a group's tasks'
        sets of ``member`` (kept by the FILTER ``condition``), which sizes the final set's table
        (:func:`largest_task_set`); else None (the set's own size, as one task)."""
        if element is None or not orders_set(element):
            return None
        select = self.typer.scope.expression
        source = select.args.get("from_") if isinstance(select, exp.Select) and not select.args.get("joins") else None
        if source is not None and isinstance(source.this, exp.Table) and source.this.meta.get(ONE_TASK):
            return None  # one small file: one task, whose set sizes the table (no order column read)
        order = scan_order(self.typer.scope)
        return largest_task_set(member, order, condition) if order is not None else None

    def _nested_cast(self, value: exp.Expr, source: SparkType, target: SparkType, tried: bool) -> exp.Expr:
        """``value`` (of ``source``) cast to ``target`` as Spark's ``Cast`` of an array, map or
        struct casts it: each element, map value and field (by position, under the target's names;
        :func:`rebuilt_as`) by Spark's cast of its type, which the rewrite writes (under
        ``try_cast`` a part that fails is NULL)."""

        def leaf(part: exp.Expr, part_source: SparkType, part_target: SparkType) -> exp.Expr:
            # Spark's cast of the part's type as the rewrite writes it, over a stand-in column of
            # that type (the part itself is already rewritten, and must not be again)
            stand_in = exp.column("__vpush_leaf")
            self.typer.set_type(stand_in, part_source)
            cast: exp.Expr = (exp.TryCast if tried else exp.Cast)(this=stand_in, to=_sql_type(part_target))
            self.typer.set_type(cast, part_target)
            cast = _transform(cast, self)
            if isinstance(cast, exp.Column) and cast.name == stand_in.name:
                return part  # a cast the rewrite found to change nothing
            for column in list(cast.find_all(exp.Column)):
                if column.name == stand_in.name and not column.table:
                    column.replace(part.copy())
            return cast

        result = rebuilt_as(value, source, target, leaf)
        self.typer.set_type(result, target)
        return result

    def _concat_arrays(self, node: exp.Expr, parts: list[exp.Expr], wide: SparkType | None) -> exp.Expr:
        """``concat`` (``||``) of arrays of different types: each cast to Spark's common type
        (:meth:`_nested_cast`: a string element read strictly as a bigint, ``CAST_INVALID_INPUT``
        for 'x'), where DuckDB's concat widened them its own way, paired struct fields by name
        or raised without an error class.

        Raises:
            OptimizeError: DATATYPE_MISMATCH.DATA_DIFF_TYPES where Spark finds no common type.
        """
        # every part an array (_concat_parts)
        kinds = [k for k in (self.typer.of(p) for p in parts) if k is not None]
        if wide is None and all(coercible(k) for k in kinds):
            raise _concat_diff_types(node, kinds)
        if len(set(kinds)) == 1:
            return node
        if wide is None or (any(_map_keys_differ(k, wide) for k in kinds) and _numeric_common_type(list(kinds)) is None) \
                or any(_map_keys_merge(k, wide) for k in kinds):
            _refuse("concat", "arrays of different types vpush does not coerce as Spark does")
        assert wide is not None  # for mypy: refused above
        if any(_map_keys_differ(k, wide) for k in kinds):
            return node  # numbers widened inside maps' keys: DuckDB's cast of them is Spark's
        cast = [p if k == wide else self._nested_cast(p, k, wide, False) for p, k in zip(parts, kinds)]
        result = cast[0]
        for part in cast[1:]:
            result = exp.DPipe(this=result, expression=part)  # DuckDB's || of lists: NULL for a NULL one, as Spark's
        self.typer.set_type(result, wide)
        return result

    def _spark_cast(self, value: exp.Expr, source: SparkType, target: SparkType) -> exp.Expr:
        """``value`` (of ``source``, already rewritten) cast to ``target`` as Spark's coercion casts
        it (:meth:`_nested_cast`; a scalar by the rewrite's own Spark cast), for the modules that
        coerce arguments before DuckDB's function runs (``spark_arrays``)."""
        return self._nested_cast(value, source, target, False)

    def _renamed_struct(self, value: exp.Expr, of_type: StructType, names: list[str]) -> exp.Expr:
        """The struct ``value`` with its fields under ``names``, in its order (NULL where it is)."""
        renamed = StructType(tuple(StructField(n, f.type) for n, f in zip(names, of_type.fields)))
        built = exp.Struct(expressions=[
            exp.PropertyEQ(this=exp.to_identifier(n, quoted=True),
                           expression=exp.Anonymous(this="struct_extract", expressions=[value.copy(), exp.Literal.string(f.name)]))
            for n, f in zip(names, of_type.fields)
        ])
        missing = exp.Is(this=value.copy(), expression=exp.Null())
        result = exp.Case(ifs=[exp.If(this=missing, true=exp.cast(exp.Null(), _sql_type(renamed)))], default=built)
        self.typer.set_type(result, renamed)
        return result

    def _compare_as_one_type(self, node: exp.Expr) -> None:
        """Arrays or structs of different types compared: both sides cast (:meth:`_nested_cast`)
        to the type Spark's comparison casts them to (its wider type without strings, which
        :func:`_check_array_comparison` and :func:`_check_struct_comparison` let through), so that
        an ordering compares them by :func:`nested_sort_key` (a NULL inside first; DuckDB's cast
        left it last) and a date beside a timestamp is Spark's timestamp."""
        left, right = self.typer.of(node.this), self.typer.of(node.expression)
        if not (isinstance(left, (ArrayType, StructType)) and type(left) is type(right) and coercible(left) and coercible(right)):
            return
        assert right is not None  # for mypy: of left's type
        wide = nested_wider_type(left, right, strings=False)
        if wide is None:
            return
        for key, kind in (("this", left), ("expression", right)):
            if kind != wide:
                node.set(key, self._nested_cast(node.args[key], kind, wide, False))

    def _nested_extreme(self, node: exp.Greatest | exp.Least) -> exp.Expr | None:
        """``greatest``/``least`` of arrays or structs (of one type, once coerced) as Spark
        orders them: the first non-NULL argument kept unless a later one's
        :func:`nested_sort_key` is greater (less); DuckDB's put a NULL inside last."""
        parts = [node.this, *node.expressions]
        kind = self.typer.of(node.this)
        if not isinstance(kind, (ArrayType, StructType)) or any(self.typer.of(p) != kind for p in parts if not isinstance(p, exp.Null)):
            return None
        parts = [p for p in parts if not isinstance(p, exp.Null)]
        if nested_sort_key(parts[0], kind) is None:
            return None
        result: exp.Expr = parts[0]
        for part in parts[1:]:
            key, best = nested_sort_key(part.copy(), kind), nested_sort_key(result.copy(), kind)
            assert key is not None and best is not None  # for mypy: keyed as parts[0] is
            beats = (exp.GT if isinstance(node, exp.Greatest) else exp.LT)(this=key, expression=best)
            result = exp.Case(ifs=[exp.If(this=exp.Is(this=part.copy(), expression=exp.Null()), true=result.copy()),
                                   exp.If(this=exp.Is(this=result.copy(), expression=exp.Null()), true=part.copy()),
                                   exp.If(this=beats, true=part.copy())], default=result.copy())
        self.typer.set_type(result, kind)
        return result

    def _coerce_nested_parts(self, node: exp.Expr) -> exp.Expr | None:
        """The branches of ``CASE``/``if``/``coalesce``/``nvl2``, the elements of ``array`` (a map's
        keys or values), the arguments of ``greatest``/``least`` and an ``IN``'s value and list,
        where some are arrays, maps or structs of different types, each cast to their
        :func:`nested_common_type` as Spark's coercion casts them: every part by Spark's cast of
        its type (:meth:`_nested_cast`; a string element read strictly, CAST_INVALID_INPUT for
        'x'), a struct's fields by position under the first's names. DuckDB had cast them by its
        own rules (a string array beside an int array stayed strings, or its binder refused) and
        paired struct fields by name (``coalesce(named_struct('a', 1), named_struct('b', 2))``
        gave ``struct<a, b>``). None where no part is nested, the types agree, or vpush does not
        type a part.

        Raises:
            OptimizeError: DATATYPE_MISMATCH.DATA_DIFF_TYPES where Spark finds no common type.
        """
        places = _coerced_places(node)
        if places is None:
            return None
        parts = [(holder, key, _place_value(holder, key)) for holder, key in places]
        values = [(holder, key, value) for holder, key, value in parts if value is not None and not isinstance(value, exp.Null)]
        types = [self.typer.of(value) for _, _, value in values]
        if not values or not all(coercible(t) for t in types):
            return None
        known = [t for t in types if t is not None]
        if len(set(known)) == 1 or not any(isinstance(t, (ArrayType, MapType, StructType)) for t in known):
            return None
        wide = nested_common_type(known, strings=not isinstance(node, (exp.Greatest, exp.Least)))
        # (keys a cast to doubles may make equal are cast part by part: _rekeyed_map)
        merging = wide is not None and any(_map_keys_merge(t, wide) for t in known)
        if wide is not None and not merging and any(_map_keys_differ(t, wide) for t in known) and _numeric_common_type(list(types)) is not None:
            return None  # numbers widened inside maps' keys: DuckDB's cast of them is Spark's (_widen_decimal_branches)
        if wide is None and isinstance(node, exp.In) and all(_alike_but_names(known[0], t) for t in known):
            # IN compares structs of the same types but for names by position (sameType ignores names)
            for (holder, key, value), kind in zip(values, known):
                if kind != known[0]:
                    _place_put(holder, key, rebuilt_as(value, kind, known[0], lambda part, _, __: part))
            return node
        if wide is None:
            names: dict[type[exp.Expr], str] = {exp.Coalesce: "coalesce", exp.If: "if", exp.Case: "casewhen", exp.In: "in",
                                                 exp.Nvl2: "nvl2"}
            what = names.get(type(node), type(node).__name__.lower())
            shown = " or ".join(f'"{_spark_type_name(t)}"' for t in known)
            raise OptimizeError(
                f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: Input to `{what}` should all be the '
                f"same type, but it's ({shown}).",
                error_class="DATATYPE_MISMATCH.DATA_DIFF_TYPES",
            )
        for (holder, key, value), kind in zip(values, known):
            if kind != wide:
                _place_put(holder, key, self._nested_cast(value, kind, wide, False))
        if not isinstance(node, exp.In):
            self.typer.set_type(node, ArrayType(wide) if isinstance(node, exp.Array) else wide)
        return node

    def _spark_function(self, node: exp.Expr, called: str, result: SparkType | None) -> exp.Expr | None:
        """A call to a function of :data:`SPARK_FUNCTIONS` as DuckDB gives Spark's answer, where
        that takes more than the call sqlglot writes; None where it takes nothing more."""
        arguments = None if type(node) in _SHIFTS else call_arguments(node)  # as _arguments takes them
        if arguments is None and type(node) in PARSED_ARGUMENTS:
            arguments = [node.args.get(k) for k in PARSED_ARGUMENTS[type(node)]]
        if arguments is None and called in SCALAR_FUNCTIONS:
            arguments = list(node_arguments(node) or []) or None
        if called in _PARSED_BY_PATTERN and arguments and arguments[0] is not None:
            parsed = self._parse_by_pattern(called, arguments)
            if parsed is not None:
                return parsed
        if called in ("to_timestamp_ltz", "to_timestamp_ntz") and arguments and len(arguments) == 1 and arguments[0] is not None:
            return self._to_timestamp_of(called, arguments[0])
        if called == "from_unixtime" and arguments and len(arguments) == 2 and arguments[0] is not None:
            if not _is_integral(self.typer.of(arguments[0])):
                _refuse(called, "an argument that is not an integer (Spark's implicit cast to bigint)")
            return _from_unixtime_by_pattern(arguments[0], arguments[1])
        if called == "histogram_numeric":
            return self._histogram_numeric(node, arguments or [], result)
        if called == "mode" and isinstance(node, exp.Mode):
            if node.this is None and isinstance(node.parent, exp.WithinGroup):
                if _mode_within_group(node.parent) is None:
                    _refuse("mode", "a WITHIN GROUP of other than one ordering with Spark's NULLs ordering")
                return None  # mode() WITHIN GROUP (ORDER BY x): the WITHIN GROUP's visit answers it
            return self._mode(node, node.this)
        if called == "regr_count" and isinstance(node, exp.RegrCount):
            # Spark's regr_count(y, x): the rows where neither is NULL, a bigint (DuckDB's is unsigned)
            for value in (node.this, node.expression):
                source = self.typer.of(value)
                if not (_is_integral(source) or _is_fractional(source) or isinstance(source, DecimalType) or isinstance(value, exp.Null)):
                    _refuse(called, "an argument other than a number (Spark's implicit cast to a double)")
            if isinstance(node.parent, (exp.Filter, exp.Window)) or isinstance(node.this, exp.Distinct):
                _refuse(called, "a FILTER, a window or DISTINCT")
            return exp.cast(node, exp.DataType.build("BIGINT"))
        if called == "schema_of_json" and arguments and len(arguments) == 1 and arguments[0] is not None:
            return _schema_of_json(arguments[0])
        if called in _MAKE_TIMESTAMP_CALLS and arguments and all(a is not None for a in arguments):
            return self._make_timestamp(called, [a for a in arguments if a is not None])
        if called in JSON_SHAPE_FUNCTIONS and arguments and len(arguments) == 1 and arguments[0] is not None:
            return self._json_shape(called, arguments[0])
        if called == "get_json_object" and arguments and len(arguments) == 2 and all(a is not None for a in arguments):
            return self._get_json_object(*[a for a in arguments if a is not None])
        if called == "from_json" and arguments and len(arguments) in (2, 3) and all(a is not None for a in arguments):
            # Spark prunes the schema of a call without options only (OptimizeCsvJsonExprs)
            taken = _accessed_field(node) if len(arguments) == 2 else None
            call, target = rewrite_from_json([a for a in arguments if a is not None], self.typer.of, field=taken)
            self.functions[FROM_JSON_FUNCTION] = StringType()
            self.typer.set_type(call, target)
            return call
        if called == JSON_TUPLE_FIELD and arguments and len(arguments) == 2 and all(a is not None for a in arguments):
            text, field = arguments
            assert text is not None and field is not None  # for mypy: checked above
            self.functions[JSON_TUPLE_FUNCTION] = StringType()
            call = exp.Anonymous(this=JSON_TUPLE_FUNCTION, expressions=[exp.cast(text, exp.DataType.build("VARCHAR")), field])
            self.typer.set_type(call, StringType())
            return call
        if called in ("try_sum", "try_avg") and arguments and len(arguments) == 1 and arguments[0] is not None:
            return self._try_aggregate(node, called, arguments[0], result)
        if called in ("regr_avgx", "regr_avgy") and isinstance(node, (exp.RegrAvgx, exp.RegrAvgy)):
            return self._regression_average(node, called, result)
        if called in ("zeroifnull", "nullifzero") and arguments and len(arguments) == 1 and arguments[0] is not None:
            return _zero_or_null(called, arguments[0], result)
        if called in ("isnull", "isnotnull") and arguments and arguments[0] is not None:
            test: exp.Expr = exp.Is(this=arguments[0], expression=exp.Null())
            return exp.Paren(this=exp.Not(this=test) if called == "isnotnull" else test)
        if called in ("every", "some") and arguments and arguments[0] is not None:
            return exp.Anonymous(this="bool_and" if called == "every" else "bool_or", expressions=[arguments[0]])
        if called in ("extract", "date_part", "datepart"):
            extracted = _extract_field(node)
            if extracted is None:
                raise OptimizeError(
                    f"{called}: the DuckDB engine takes only a literal field; the Spark engine runs it",
                    error_class="VPUSH_UNSUPPORTED_FUNCTION",
                )
            return self._datetime_field(node, *extracted)
        if called == "convert_timezone" and isinstance(node, exp.ConvertTimezone):
            return self._convert_timezone(node)
        if isinstance(node, exp.TimestampAdd) and called in ("timestampadd", "dateadd", "date_add"):
            return self._timestamp_add(node)
        if isinstance(node, exp.TimestampDiff) and called in _TIMESTAMPDIFF_NAMES:
            return self._timestamp_diff(node)
        if called in ("from_utc_timestamp", "to_utc_timestamp") and isinstance(node, (exp.AtTimeZone, exp.FromTimeZone)):
            zone = node.args.get("zone")
            if isinstance(zone, exp.Null):
                return exp.cast(exp.Null(), exp.DataType.build("TIMESTAMPTZ"))
            if zone is None or (not (isinstance(zone, exp.Literal) and zone.is_string) and not isinstance(self.typer.of(zone), StringType)):
                # Spark casts a zone of another type to a string, as DuckDB does not
                raise OptimizeError(
                    f"{called}: the DuckDB engine takes only a string time zone; the Spark engine runs it",
                    error_class="VPUSH_UNSUPPORTED_FUNCTION",
                )
            self.functions[UTC_SHIFT_FUNCTION] = AtomicType("timestamp")
            direction = exp.Literal.string("from" if called == "from_utc_timestamp" else "to")
            return exp.Anonymous(this=UTC_SHIFT_FUNCTION, expressions=[node.this, zone, direction])
        if called == "date_trunc" and isinstance(node, exp.TimestampTrunc):
            level = node.args.get("unit")
            if isinstance(level, (exp.Var, exp.Literal)):
                # Spark's names for the units (MM, YY, MON, DD, ...), any case; NULL for another
                duckdb_unit = _DATE_TRUNC_UNITS.get(level.name.upper())
                if duckdb_unit is None:
                    return exp.cast(exp.Null(), exp.DataType.build("TIMESTAMPTZ"))
                node.set("unit", exp.Var(this=duckdb_unit))
            if self.typer.of(node.this) == AtomicType("date"):
                # Spark truncates a date as the timestamp of its midnight in the session time zone
                node.set("this", exp.cast(node.this, exp.DataType.build("TIMESTAMPTZ")))
            if isinstance(level, exp.Null):
                return exp.cast(exp.Null(), exp.DataType.build("TIMESTAMPTZ"))
            self.functions[DATE_TRUNC_FUNCTION] = AtomicType("timestamp")
            zone = exp.Anonymous(this="current_setting", expressions=[exp.Literal.string("TimeZone")])
            if isinstance(level, (exp.Var, exp.Literal)):
                return exp.Anonymous(this=DATE_TRUNC_FUNCTION, expressions=[node.this, exp.Literal.string(duckdb_unit), zone])
            if isinstance(level, exp.Column) and not isinstance(self.typer.of(level), StringType):
                return exp.cast(exp.Null(), exp.DataType.build("TIMESTAMPTZ"))  # Spark's cast of it to a string names no level
            if level is None or not isinstance(self.typer.of(level), StringType):
                _refuse(called, "a format that is neither a literal nor a string")
            assert level is not None  # for mypy: refused above
            # a format read row by row: each of Spark's names of a level, any case; NULL for another
            def truncated(unit: str) -> exp.Expression:
                return exp.Anonymous(this=DATE_TRUNC_FUNCTION, expressions=[node.this.copy(), exp.Literal.string(unit), zone.copy()])

            return _by_level(level, _DATE_TRUNC_UNITS, truncated, "TIMESTAMPTZ")
        if called in ("floor", "ceil", "ceiling") and arguments and arguments[0] is not None and _is_integral(self.typer.of(arguments[0])):
            return exp.cast(arguments[0], exp.DataType.build("BIGINT"))  # Spark's floor of an integer is itself
        if called in ("sign", "signum") and arguments and arguments[0] is not None and _is_fractional(self.typer.of(arguments[0])):
            # Math.signum keeps a zero's sign and NaN; DuckDB's sign gives 0 for both
            value = arguments[0]
            keep = exp.Or(this=exp.EQ(this=value.copy(), expression=exp.Literal.number(0)),
                          expression=exp.Anonymous(this="isnan", expressions=[value.copy()]))
            signed = exp.Case(ifs=[exp.If(this=keep, true=value.copy())], default=exp.Anonymous(this="sign", expressions=[value]))
            return exp.cast(signed, exp.DataType.build("DOUBLE"))
        if isinstance(node, (exp.Round, exp.Greatest, exp.Least)) and isinstance(result, DecimalType):
            return exp.cast(node, _sql_type(result))  # DuckDB types them otherwise (a quotient was a double)
        if called in ("round", "bround") and arguments and arguments[0] is not None and _is_fractional(self.typer.of(arguments[0])):
            return self._round_fractional(arguments[0], arguments[1] if len(arguments) > 1 else None, even=called == "bround")
        if called == "try_mod" and isinstance(result, DecimalType) and arguments is not None and len(arguments) == 2:
            left, right = arguments
            assert left is not None and right is not None  # typed as a decimal by the typer
            # as `%` of decimals, NULL where that raises REMAINDER_BY_ZERO
            divisor = exp.Nullif(this=right, expression=exp.Literal.number(0))
            self.typer.set_type(divisor, self.typer.of(right))
            return self._decimal_remainder(left, divisor, result)
        if called in _TRY_OPERATIONS and isinstance(result, DecimalType):
            operands = self.typer._decimal_call_operands(node)
            if operands is not None and arguments is not None and len(arguments) == 2:
                # NULL where Spark's ANSI operation raises (a value past the result's precision,
                # a zero divisor): always by the engine function, which answers NULL there
                left, right = arguments
                assert left is not None and right is not None
                return self._decimal_function(f"try_{_TRY_OPERATIONS[called]}", left, operands[0], right, operands[1], result)
        if called in KERNEL_CALLS and arguments and all(a is not None for a in arguments):
            computed = rewrite_kernel_call(called, [a for a in arguments if a is not None], self.typer.of, self.functions)
            self.typer.set_type(computed, KERNEL_CALLS[called])
            return computed
        if called == "format_number" and arguments is not None and len(arguments) == 2 and arguments[0] is not None and arguments[1] is not None:
            formatted = self._format_double(arguments[0], arguments[1])
            if formatted is not None:
                return formatted
        if called in PARSE_URL_FUNCTIONS and arguments is not None and all(a is not None for a in arguments):
            parsed = rewrite_parse_url(called, [a for a in arguments if a is not None], result, self.functions)
            self.typer.set_type(parsed, StringType())
            return parsed
        if called in ENCODING_FUNCTIONS and not isinstance(node, exp.Case) and arguments is not None and all(a is not None for a in arguments):
            return rewrite_encoding(called, [a for a in arguments if a is not None], self.typer.of, self._text_of_bytes)
        if called in ("format_string", "printf") and arguments and all(a is not None for a in arguments):
            formatted = rewrite_format_string(called, [a for a in arguments if a is not None], self.typer.of, self.functions)
            self.typer.set_type(formatted, StringType())
            return formatted
        if called in SCALAR_FUNCTIONS and arguments is not None and all(a is not None for a in arguments):
            typed = self.typer.of if called != "typeof" else self._typeof_argument
            scalar = rewrite_scalar(called, node, [a for a in arguments if a is not None], typed, result)
            if scalar is not None and called == "typeof" and _aggregated(arguments[0]):
                # Spark folds typeof(sum(i)) to its literal and keeps the aggregation (one row);
                # a bare literal here would give a row per input row
                count = exp.Count(this=exp.Star())
                return exp.Case(ifs=[exp.If(this=exp.Is(this=count, expression=exp.Null()), true=exp.Null())], default=scalar)
            if scalar is not None:
                return scalar
        if called in ("substr", "substring") and isinstance(node, exp.Substring):
            return _spark_substring(node, binary=self.typer.of(node.this) == _BINARY)
        if isinstance(node, exp.Pad) and _binary_padded(node, self.typer.of):
            return _binary_pad(node)
        if isinstance(node, exp.Pad) and any(self.typer.of(node.args[k]) == _BINARY for k in ("this", "fill_pattern") if node.args.get(k) is not None):
            # a binary beside a string: Spark casts it to a string (and pads the string)
            for key in ("this", "fill_pattern"):
                part = node.args.get(key)
                if part is not None and self.typer.of(part) == _BINARY:
                    node.set(key, self._java_text(part))
            return node
        if called in ("listagg", "string_agg") and isinstance(node, exp.GroupConcat):
            if node.args.get("separator") is None:
                node.set("separator", exp.Literal.string(""))  # Spark's default delimiter is none at all
            if not isinstance(node.parent, exp.Window) and not isinstance(node.this, (exp.Order, exp.Distinct)):
                order = scan_order(self.typer.scope)
                fallback = self._fallback(called)
                node.set("this", ordered(node.this, order))  # in Spark's order of rows
                if fallback is None:
                    return node
                value = node.this.this
                if fallback[0] is not None and order is not None and isinstance(self.typer.of(value), StringType) and not isinstance(node.parent, exp.Filter):
                    # past 128 groups a group's later rows come first
                    return joined_past_fallback(value, node.args["separator"], order, fallback[0])
                if isinstance(node.parent, exp.Filter) and isinstance(self.typer.of(value), StringType) and order is not None:
                    separator, at = node.args["separator"], order

                    def join(condition: exp.Expr, place: exp.Expression) -> exp.Expr:
                        return joined_past_fallback(value, separator, at, place, condition)

                    node.meta[_PAST_FALLBACK] = (called, join)
                    return node
                if isinstance(node.parent, exp.Filter):
                    node.meta[_PAST_FALLBACK] = (called, None)  # of binaries: refused past the fallback
                    return node
                return self._past_fallback(called, node, fallback)
            return node
        if called in _STRICT_MATH_CALLS and arguments and all(a is not None for a in arguments):
            return self._strict_math(called, [a for a in arguments if a is not None])
        if called == "from_unixtime" and arguments and len(arguments) == 1 and arguments[0] is not None:
            if not _is_integral(self.typer.of(arguments[0])):
                _refuse(called, "an argument that is not an integer (Spark's implicit cast to bigint)")
            return _from_unixtime(arguments[0])
        if called == "trunc" and arguments and len(arguments) == 2 and arguments[0] is not None:
            return _trunc_date(arguments[0], arguments[1], self.typer.of)
        if called == "months_between" and arguments and len(arguments) in (2, 3) and all(a is not None for a in arguments):
            return self._months_between([a for a in arguments if a is not None])
        if called == "date_format" and arguments and len(arguments) == 2 and arguments[0] is not None:
            return self._date_format(arguments[0], arguments[1])
        if called == "window_time":
            return _window_time(arguments or [], self.typer.of)
        if called in ("dayname", "monthname") and arguments and len(arguments) == 1 and arguments[0] is not None:
            if self.typer.of(arguments[0]) not in (AtomicType("date"), *_TIMESTAMPS):
                _refuse(called, "an argument other than a date or a timestamp (Spark's implicit cast of a string)")
            # Spark's DayName/MonthName: the English short name of the date's day or month
            return self._date_format(arguments[0], exp.Literal.string("EEE" if called == "dayname" else "MMM"))
        if called in NUMBER_FORMAT_CALLS and arguments and len(arguments) == 2 and arguments[0] is not None:
            source = self.typer.of(arguments[0])
            if called in ("to_char", "to_varchar") and source in (AtomicType("date"), AtomicType("timestamp"), AtomicType("timestamp_ntz")):
                return self._date_format(arguments[0], arguments[1])  # Spark's to_char of a date or time is date_format
            return rewrite_number_format(
                called, arguments[0], arguments[1], source, self.functions,
                lambda value, target: self._fractional_to_decimal(value, target, strict=True),
            )
        if called in _EPOCH_UNITS and arguments and len(arguments) == 1 and arguments[0] is not None:
            return _timestamp_from_epoch(called, arguments[0], self.typer.of(arguments[0]))
        if called == "date_from_unix_date" and arguments and len(arguments) == 1 and arguments[0] is not None:
            source = self.typer.of(arguments[0])
            if not (isinstance(source, AtomicType) and source.name in ("tinyint", "smallint", "int")):
                _refuse(called, "an argument other than an int (Spark's implicit cast of a bigint can overflow)")
            # DuckDB adds days to a date as a date; sqlglot's rendering adds an interval (a timestamp)
            days = exp.cast(arguments[0], exp.DataType.build("INT"))
            return exp.Add(this=exp.cast(exp.Literal.string("1970-01-01"), exp.DataType.build("DATE")), expression=days)
        if called in _MAP_CALLS and arguments is not None and all(a is not None for a in arguments) and (arguments or called == "map"):
            mapped = self._map_call(node, called, [a for a in arguments if a is not None], result)
            if mapped is not None:
                return mapped
        if called in _COLLECTION_CALLS and arguments and all(a is not None for a in arguments):
            return self._collection_call(called, [a for a in arguments if a is not None])
        if called == "e":
            return exp.cast(exp.Literal.number(repr(math.e)), exp.DataType.build("DOUBLE"))  # Java's Math.E
        if called == "std" and arguments and arguments[0] is not None:
            return exp.Stddev(this=arguments[0])
        if called == "negative" and arguments and arguments[0] is not None:
            argument = self.typer.of(arguments[0])
            if isinstance(argument, DecimalType):
                return _decimal_negation(arguments[0], argument)
            return exp.Neg(this=exp.Paren(this=arguments[0]))
        if called == "positive" and arguments and arguments[0] is not None:
            return exp.Paren(this=arguments[0])
        if called in _INT_FUNCTIONS or called in _DOUBLE_FUNCTIONS or called in ("add_months", "floor", "ceil", "ceiling"):
            if result is not None and not isinstance(node.parent, (exp.Window, exp.Filter)):
                return exp.cast(node, _sql_type(result))
        return None

    def _datetime_field(self, node: exp.Expr, field: str, value: exp.Expr) -> exp.Expr:
        """Spark's ``extract(field FROM x)``/``date_part('field', x)`` of a date, timestamp or
        timestamp_ntz (a timestamp's fields in the session time zone, DuckDB's TimeZone): an int,
        the day of the week from 1 (Sunday), the ISO week and its year, the seconds a
        ``decimal(8,6)`` with their microseconds; ``INVALID_EXTRACT_FIELD`` for another field."""
        source = self.typer.of(value)
        if field not in _EXTRACT_FIELDS.values():
            raise OptimizeError(f'Cannot extract `{_extract_field_text(node)}` from "{_spark_text(value)}".',
                                error_class="INVALID_EXTRACT_FIELD")
        result = _SECONDS_TYPE if field == "second" else _INT
        if isinstance(value, exp.Null):
            return exp.cast(exp.Null(), _sql_type(result))
        if isinstance(source, StringType):
            value = self._string_to_datetime(value, AtomicType("timestamp"), strict=True)  # Spark's implicit cast
        elif source not in _DATETIMES:
            _refuse(_called(node) or "extract", "an argument other than a date, a timestamp or a string")
        if field == "second":
            micros = exp.Anonymous(this="microsecond", expressions=[value])
            seconds = exp.Div(this=exp.cast(micros, exp.DataType.build("DECIMAL(18,6)")), expression=exp.Literal.number(1_000_000))
            call: exp.Expr = exp.cast(seconds, _sql_type(_SECONDS_TYPE))
            self.typer.set_type(call, _SECONDS_TYPE)
            return call
        part: exp.Expr = exp.Anonymous(this=field, expressions=[value])
        if field == "dayofweek":
            part = exp.Add(this=part, expression=exp.Literal.number(1))  # DuckDB's Sunday is 0, Spark's 1
        call = exp.cast(part, exp.DataType.build("INT"))
        self.typer.set_type(call, _INT)
        return call

    def _typeof_argument(self, node: exp.Expr) -> SparkType | None:
        """The type ``typeof`` prints: a NULL's is ``void``, a predicate's ``boolean`` (the typer
        leaves both untyped elsewhere)."""
        return VOID if isinstance(_unparen(node), exp.Null) else self.typer._part(_unparen(node))

    def _make_timestamp(self, called: str, arguments: list[exp.Expr]) -> exp.Expr:
        """Spark's ``make_timestamp`` family by its engine function: the fields cast to ints and
        the seconds to ``decimal(16,6)`` as Spark casts them (taken from ints and decimals only:
        Spark's casts of bigints, doubles and strings can fail or round otherwise), the zone the
        one given or the session's."""
        kind = _MAKE_TIMESTAMP_CALLS[called]
        if len(arguments) not in ((6, 7) if kind == "timestamp" else (6,)):
            _refuse(called, f"{len(arguments)} arguments")
        fields: list[exp.Expr] = []
        for argument in arguments[:5]:
            source = self.typer.of(argument)
            if not (isinstance(argument, exp.Null) or source == VOID or (
                    isinstance(source, AtomicType) and source.name in ("tinyint", "smallint", "int"))):
                _refuse(called, "a field that is not an int (Spark's implicit cast of a bigint, string or double)")
            fields.append(exp.cast(argument, exp.DataType.build("INT")))
        seconds, source = arguments[5], self.typer.of(arguments[5])
        if not (isinstance(seconds, exp.Null) or source == VOID or (
                isinstance(source, AtomicType) and source.name in ("tinyint", "smallint", "int")) or (
                isinstance(source, DecimalType) and source.precision - source.scale <= 10)):
            _refuse(called, "seconds that are not an int or a decimal of at most 10 integer digits (Spark's cast to "
                            "decimal(16,6) of others can fail or round otherwise)")
        # DuckDB's cast of a decimal rounds half away from zero, as Spark's HALF_UP
        # (widened before the product: DuckDB multiplies a decimal(16,6)'s unscaled value in 64 bits)
        exact = exp.Cast(this=exp.cast(seconds, exp.DataType.build("DECIMAL(16, 6)")), to=exp.DataType.build("DECIMAL(38, 6)"))
        micros = exp.cast(exp.Mul(this=exact, expression=exp.Literal.number(1_000_000)), exp.DataType.build("BIGINT"))
        # 1: raise; 0: NULL for every error; 2: NULL, but an unknown zone raises (try_make_timestamp_ltz)
        strict = exp.Literal.number(1 if not called.startswith("try_") else 2 if called == "try_make_timestamp_ltz" else 0)
        call_arguments = [*fields, micros, strict]
        if kind == "timestamp":
            zone = arguments[6] if len(arguments) == 7 else exp.Anonymous(
                this="current_setting", expressions=[exp.Literal.string("TimeZone")])
            if len(arguments) == 7 and not (isinstance(zone, exp.Null) or isinstance(self.typer.of(zone), StringType)):
                _refuse(called, "a time zone that is not a string")
            call_arguments.append(exp.cast(zone, exp.DataType.build("VARCHAR")))
        name = MAKE_TIMESTAMP_FUNCTIONS[kind]
        self.functions[name] = AtomicType(kind)
        return exp.Anonymous(this=name, expressions=call_arguments)

    def _parse_by_pattern(self, called: str, arguments: list[exp.Expr | None]) -> exp.Expr | None:
        """Spark's ``to_timestamp``, ``try_to_timestamp``, ``to_date``, ``unix_timestamp`` and
        ``to_unix_timestamp`` of a string by a literal pattern (the default pattern where
        Spark has one), by the compiled parser (:mod:`vpush.codec.datetime_pattern`); None for the
        forms other rules answer (no pattern for to_timestamp and to_date, a timestamp for
        unix_timestamp)."""
        value = arguments[0]
        if value is None:
            return None
        target = _PARSED_BY_PATTERN[called]
        if len(arguments) == 1:
            if called in ("try_to_timestamp", "try_to_date") and isinstance(self.typer.of(value), StringType):
                return self._string_to_datetime(value, AtomicType(target), strict=False)
            if called == "try_to_date" and isinstance(value, exp.Null):
                return exp.cast(exp.Null(), exp.DataType.build("DATE"))
            if called == "try_to_date":
                _refuse(called, "an argument other than a string (Spark's to_date of a date or timestamp)")
            source = self.typer.of(value)
            if called == "to_date" and (_is_integral(source) or _is_fractional(source) or isinstance(source, DecimalType)
                                        or source == AtomicType("boolean")):
                # Spark casts a number or a boolean to its text first and parses that (to_date(1)
                # raises CAST_INVALID_INPUT, to_date(2024) is 2024-01-01); sqlglot's node is a try_cast
                _refuse(called, "an argument other than a string, a date or a timestamp")
            if target != "unix_seconds":
                return None
            pattern: exp.Expr | None = exp.Literal.string(DEFAULT_UNIX_PATTERN)
        else:
            pattern = arguments[1]
        source = self.typer.of(value)
        if not isinstance(source, StringType):
            if target == "unix_seconds" and source in _TIMESTAMPS:
                return None
            _refuse(called, "a first argument other than a string with a pattern")
        result = _PATTERN_RESULTS[target]
        if isinstance(pattern, exp.Null):
            return exp.cast(exp.Null(), _sql_type(result))
        if not (isinstance(pattern, exp.Literal) and pattern.is_string):
            _refuse(called, "a pattern that is not a literal")
        try:
            compile_pattern(pattern.name)
        except DatetimePatternError as exc:
            raise OptimizeError(f"{called}: {exc.args[0]}", error_class=exc.error_class) from None
        name = FORMATTED_DATETIME_FUNCTIONS[target]
        self.functions[name] = result
        zone = exp.Anonymous(this="current_setting", expressions=[exp.Literal.string("TimeZone")])
        call = exp.Anonymous(
            this=name, expressions=[value, exp.Literal.string(pattern.name), zone, exp.Boolean(this=not called.startswith("try_"))]
        )
        self.typer.set_type(call, result)
        return call

    def _to_timestamp_of(self, called: str, value: exp.Expr) -> exp.Expr:
        """Spark's ``to_timestamp_ltz(x)``/``to_timestamp_ntz(x)`` without a pattern: its cast of
        ``x`` to a timestamp or a timestamp_ntz (a string as Spark casts it, its offset ignored for
        a timestamp_ntz; a timestamp's local time in the session time zone; a date's midnight)."""
        target = AtomicType(_PARSED_BY_PATTERN[called])
        source = self.typer.of(value)
        if isinstance(value, exp.Null):
            call: exp.Expr = exp.cast(value, _sql_type(target))
        elif isinstance(source, StringType):
            return self._string_to_datetime(value, target, strict=True)
        elif source == target:
            return value
        elif target == AtomicType("timestamp") and source == AtomicType("timestamp_ntz"):
            return self._ntz_to_timestamp(value)
        elif source in (AtomicType("date"), AtomicType("timestamp"), AtomicType("timestamp_ntz")):
            # DuckDB's casts here are Spark's: a date's midnight (in the session time zone for a
            # timestamp), a timestamp's local time in the session time zone (DuckDB's TimeZone)
            call = exp.cast(value, _sql_type(target))
        else:
            _refuse(called, "an argument other than a string, a date or a timestamp")
        self.typer.set_type(call, target)
        return call

    def _local_time(self, called: str, value: exp.Expr) -> tuple[exp.Expr, bool]:
        """``value`` (a date, timestamp, timestamp_ntz or string) as the local date-time Spark's
        ``timestampadd``/``timestampdiff`` take (a timestamp's in the session time zone), and
        whether it was a timestamp_ntz."""
        source = self.typer.of(value)
        if source == AtomicType("timestamp_ntz"):
            return value, True
        if isinstance(source, StringType):
            value = self._string_to_datetime(value, AtomicType("timestamp"), strict=True)
        elif source == AtomicType("date"):
            value = exp.cast(value, exp.DataType.build("TIMESTAMPTZ"))  # its midnight in the session time zone
        elif source != AtomicType("timestamp"):
            _refuse(called, "an argument other than a date, a timestamp or a string")
        return exp.cast(value, exp.DataType.build("TIMESTAMP")), False

    def _datetime_unit(self, called: str, node: exp.TimestampAdd | exp.TimestampDiff) -> str:
        unit = node.args.get("unit")
        name = unit.name.upper() if isinstance(unit, (exp.Var, exp.Literal)) else ""
        written = (node.meta.get(SPARK_CALL) or ("", None))[1]
        if written and isinstance(written[0], exp.Literal) and written[0].is_string:
            # Spark's parser takes the unit as a word only (sqlglot's builders make a quoted one a word)
            raise OptimizeError(f"The value of parameter(s) `unit` in `{called}` is invalid: expects one of the units without quotes "
                                f"YEAR, QUARTER, MONTH, WEEK, DAY, DAYOFYEAR, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, "
                                f"but got the string literal '{written[0].name}'.", error_class="INVALID_PARAMETER_VALUE.DATETIME_UNIT")
        if isinstance(node, exp.TimestampDiff) and name == "DAYOFYEAR":
            raise OptimizeError(f"The value of parameter(s) `unit` in `{called}` is invalid: {name}.",
                                error_class="INVALID_PARAMETER_VALUE.DATETIME_UNIT")
        if name not in _TIMESTAMP_ADD_MICROS and name not in _TIMESTAMP_ADD_CALENDAR:
            _refuse(called, f"the unit {name or '(none)'}")
        return name

    def _timestamp_add(self, node: exp.TimestampAdd) -> exp.Expr:
        """Spark's ``timestampadd(unit, n, x)`` (``DateTimeUtils.timestampAdd``): microseconds to
        hours added to the instant; days, weeks, months, quarters and years to the local
        date-time in the session time zone (the month's last day kept to), read back as
        java.time resolves it; a timestamp_ntz's local time alone."""
        called = _called(node) or "timestampadd"
        unit = self._datetime_unit(called, node)
        quantity = node.expression
        if not (_is_integral(self.typer.of(quantity)) and self.typer.of(quantity) != _BIGINT) and not isinstance(quantity, exp.Null):
            _refuse(called, "an amount other than an int")
        ntz = self.typer.of(node.this) == AtomicType("timestamp_ntz")
        amount = exp.cast(quantity, exp.DataType.build("BIGINT"))
        def checked(base: exp.Expr, step: exp.Expr, to: str) -> exp.Expr:
            # past the 64-bit microseconds (DuckDB's timestamps end there too): Spark's DATETIME_OVERFLOW
            tried = exp.Anonymous(this="try", expressions=[exp.cast(exp.Add(this=base, expression=step), exp.DataType.build(to))])
            present = exp.and_(exp.Not(this=exp.Is(this=base.copy(), expression=exp.Null())),
                               exp.Not(this=exp.Is(this=amount.copy(), expression=exp.Null())))
            message = f"Datetime operation overflow: add {unit} to a {'timestamp_ntz' if ntz else 'timestamp'}."
            return exp.Case(ifs=[exp.If(this=exp.and_(exp.Is(this=tried.copy(), expression=exp.Null()), present),
                                        true=spark_error("DATETIME_OVERFLOW", message, exp.DataType.build(to)))], default=tried)

        if unit in _TIMESTAMP_ADD_MICROS:
            # the microseconds added to the instant itself (DuckDB's TIMESTAMPTZ plus microseconds)
            step = exp.Anonymous(this="to_microseconds", expressions=[exp.Mul(this=amount, expression=exp.Literal.number(_TIMESTAMP_ADD_MICROS[unit]))])
            base = node.this if ntz else self._instant(called, node.this)
            result: exp.Expr = checked(base, step, "TIMESTAMP" if ntz else "TIMESTAMPTZ")
        else:
            local, _ = self._local_time(called, node.this)
            kind, factor = _TIMESTAMP_ADD_CALENDAR[unit]
            step = exp.Anonymous(this=f"to_{kind}", expressions=[exp.Mul(this=amount, expression=exp.Literal.number(factor))])
            moved = checked(local, step, "TIMESTAMP")
            result = moved if ntz else self._ntz_to_timestamp(moved)
        target = AtomicType("timestamp_ntz" if ntz else "timestamp")
        self.typer.set_type(result, target)
        return result

    def _timestamp_diff(self, node: exp.TimestampDiff) -> exp.Expr:
        """Spark's ``timestampdiff(unit, start, end)`` (``DateTimeUtils.timestampDiff``): java.time's
        ``unit.between`` of the two local date-times in the session time zone, toward zero (a
        month counted only once its day and time of day are reached)."""
        called = _called(node) or "timestampdiff"
        unit = self._datetime_unit(called, node)
        (start, start_ntz), (end, end_ntz) = self._local_time(called, node.expression), self._local_time(called, node.this)
        if start_ntz != end_ntz:
            _refuse(called, "a timestamp_ntz beside another type")

        def micros(local: exp.Expr) -> exp.Expr:
            return exp.Anonymous(this="epoch_us", expressions=[local])

        if unit in _TIMESTAMP_ADD_MICROS or _TIMESTAMP_ADD_CALENDAR[unit][0] == "days":
            size = _TIMESTAMP_ADD_MICROS.get(unit) or _TIMESTAMP_ADD_CALENDAR[unit][1] * MICROS_PER_DAY
            result: exp.Expr = exp.IntDiv(this=exp.Paren(this=exp.Sub(this=micros(end), expression=micros(start))), expression=exp.Literal.number(size))
        else:
            # LocalDateTime.until: the end's date a day nearer where its time of day falls short;
            # LocalDate.monthsUntil: (month * 32 + day) apart, over 32, toward zero
            def day(local: exp.Expr) -> exp.Expr:
                return exp.cast(local, exp.DataType.build("DATE"))

            def clock(local: exp.Expr) -> exp.Expr:
                return exp.cast(local, exp.DataType.build("TIME"))

            end_day = exp.Case(ifs=[
                exp.If(this=exp.and_(exp.GT(this=day(end), expression=day(start)), exp.LT(this=clock(end), expression=clock(start))),
                       true=exp.Sub(this=day(end), expression=exp.Literal.number(1))),
                exp.If(this=exp.and_(exp.LT(this=day(end), expression=day(start)), exp.GT(this=clock(end), expression=clock(start))),
                       true=exp.Add(this=day(end), expression=exp.Literal.number(1))),
            ], default=day(end))

            def packed(date: exp.Expr) -> exp.Expr:
                month = exp.Add(this=exp.Mul(this=exp.Anonymous(this="year", expressions=[date]), expression=exp.Literal.number(12)),
                                expression=exp.Anonymous(this="month", expressions=[date.copy()]))
                return exp.Paren(this=exp.Add(this=exp.Mul(this=exp.Paren(this=month), expression=exp.Literal.number(32)),
                                              expression=exp.Anonymous(this="day", expressions=[date.copy()])))

            months = exp.IntDiv(this=exp.Paren(this=exp.Sub(this=packed(end_day), expression=packed(day(start)))), expression=exp.Literal.number(32))
            result = exp.IntDiv(this=exp.Paren(this=months), expression=exp.Literal.number(_TIMESTAMP_ADD_CALENDAR[unit][1]))
        result = exp.cast(result, exp.DataType.build("BIGINT"))
        self.typer.set_type(result, _BIGINT)
        return result

    def _convert_timezone(self, node: exp.ConvertTimezone) -> exp.Expr:
        """Spark's ``convert_timezone([source, ]target, x)``: ``x`` as a timestamp_ntz (a
        timestamp's local time in the session time zone) read in ``source`` (the session time
        zone where not given) as java.time resolves it (an overlap's earlier offset, a gap's
        offset before it), and its local time in ``target``: ``to_utc_timestamp`` then
        ``from_utc_timestamp`` over the local time read in UTC."""
        ntz = AtomicType("timestamp_ntz")
        value = node.args["timestamp"]
        zones = [node.args.get("source_tz"), node.args["target_tz"]]
        if isinstance(value, exp.Null) or any(isinstance(z, exp.Null) for z in zones):
            return exp.cast(exp.Null(), _sql_type(ntz))
        for zone in zones:
            if zone is not None and not isinstance(self.typer.of(zone), StringType):
                _refuse("convert_timezone", "a time zone other than a string")
        local = self._to_timestamp_of("to_timestamp_ntz", value)
        session = exp.Anonymous(this="current_setting", expressions=[exp.Literal.string("TimeZone")])
        self.functions[UTC_SHIFT_FUNCTION] = AtomicType("timestamp")
        shifted: exp.Expr = exp.Anonymous(this="timezone", expressions=[exp.Literal.string("UTC"), local])
        for zone, direction in ((zones[0] or session, "to"), (zones[1], "from")):
            shifted = exp.Anonymous(this=UTC_SHIFT_FUNCTION, expressions=[shifted, zone, exp.Literal.string(direction)])
        call = exp.Anonymous(this="timezone", expressions=[exp.Literal.string("UTC"), shifted])
        self.typer.set_type(call, ntz)
        return call

    def _instant(self, called: str, value: exp.Expr) -> exp.Expr:
        """A date, timestamp or string argument as the DuckDB ``TIMESTAMPTZ`` Spark takes it for:
        a string cast as Spark casts it, a date at its midnight in the session time zone."""
        source = self.typer.of(value)
        if isinstance(source, StringType):
            return self._string_to_datetime(value, AtomicType("timestamp"), strict=True)
        if source == AtomicType("date"):
            return exp.cast(value, exp.DataType.build("TIMESTAMPTZ"))
        if source == AtomicType("timestamp_ntz"):
            return self._ntz_to_timestamp(value)
        if source is not None and (source == VARIANT or source in _TIMESTAMP_MISMATCHES or isinstance(source, (DecimalType, ArrayType, MapType, StructType))):
            # Spark's implicit cast to a timestamp takes none of these
            raise OptimizeError(
                f'Cannot resolve "{called}" due to data type mismatch: the parameter requires the "TIMESTAMP" type, however '
                f'"{spark_name(value) or _spark_text(value)}" has the type "{_spark_type_name(source)}".',
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        if source != AtomicType("timestamp"):
            _refuse(called, "an argument other than a date, a timestamp or a string")
        return value

    def _months_between(self, arguments: list[exp.Expr]) -> exp.Expr:
        """Spark's ``months_between(a, b[, roundOff])`` (``DateTimeUtils.monthsBetween``): whole
        months when the days of the month are equal or both the last, else the months plus the
        difference in seconds over 31 days, on the dates and times in the session time zone;
        rounded by default as Java's ``Math.round(x * 1e8) / 1e8`` (halves up)."""
        round_off = True
        if len(arguments) == 3:
            flag = arguments[2]
            if not isinstance(flag, exp.Boolean):
                _refuse("months_between", "a roundOff that is not the literal true or false")
            round_off = bool(flag.this)
        parts = []
        for value in arguments[:2]:
            instant = self._instant("months_between", value)
            day = exp.cast(instant.copy(), exp.DataType.build("DATE"))
            start = exp.cast(day.copy(), exp.DataType.build("TIMESTAMPTZ"))
            since_midnight = exp.Sub(this=exp.Anonymous(this="epoch_us", expressions=[instant]),
                                     expression=exp.Anonymous(this="epoch_us", expressions=[start]))
            parts.append((
                exp.Paren(this=exp.Add(this=exp.Mul(this=exp.Anonymous(this="year", expressions=[day.copy()]), expression=exp.Literal.number(12)),
                                       expression=exp.Anonymous(this="month", expressions=[day.copy()]))),
                exp.Anonymous(this="day", expressions=[day.copy()]),
                exp.Anonymous(this="day", expressions=[exp.Anonymous(this="last_day", expressions=[day.copy()])]),
                exp.IntDiv(this=exp.Paren(this=since_midnight), expression=exp.Literal.number(1_000_000)),
            ))
        (months1, day1, last1, seconds1), (months2, day2, last2, seconds2) = parts
        month_diff = exp.cast(exp.Sub(this=months1, expression=months2), exp.DataType.build("DOUBLE"))
        whole = exp.Or(
            this=exp.EQ(this=day1.copy(), expression=day2.copy()),
            expression=exp.And(this=exp.EQ(this=day1.copy(), expression=last1), expression=exp.EQ(this=day2.copy(), expression=last2)),
        )
        seconds_diff = exp.Sub(
            this=exp.Add(this=exp.Mul(this=exp.Paren(this=exp.Sub(this=day1, expression=day2)), expression=exp.Literal.number(86_400)),
                         expression=seconds1),
            expression=seconds2,
        )
        fraction = exp.Div(this=exp.cast(seconds_diff, exp.DataType.build("DOUBLE")),
                           expression=exp.cast(exp.Literal.number(31 * 86_400), exp.DataType.build("DOUBLE")))
        diff: exp.Expression = exp.Add(this=month_diff.copy(), expression=fraction)
        if round_off:
            scaled = exp.Mul(this=exp.Paren(this=diff), expression=exp.cast(exp.Literal.number("1e8"), exp.DataType.build("DOUBLE")))
            # DuckDB's round takes a half away from zero, Java's Math.round up: -2.5 is -2
            nearest = exp.Anonymous(this="round", expressions=[scaled.copy()])
            negative_half = exp.EQ(this=exp.Sub(this=scaled.copy(), expression=nearest.copy()), expression=exp.Literal.number("0.5"))
            rounded = exp.Case(ifs=[exp.If(this=negative_half, true=exp.Add(this=nearest.copy(), expression=exp.Literal.number(1)))],
                               default=nearest)
            diff = exp.Div(this=rounded, expression=exp.cast(exp.Literal.number("1e8"), exp.DataType.build("DOUBLE")))
        return exp.Case(ifs=[exp.If(this=whole, true=month_diff)], default=diff)

    def _date_format(self, value: exp.Expr, pattern: exp.Expr | None) -> exp.Expr:
        """Spark's ``date_format``: a string is cast to a timestamp as Spark casts it, a date is
        the timestamp of its midnight in the session time zone, a timestamp_ntz the instant of its
        local time there, all printed in that zone."""
        null = exp.cast(exp.Null(), exp.DataType.build("VARCHAR"))
        if isinstance(pattern, exp.Null) or isinstance(_unparen(value), exp.Null) or (
            isinstance(value, exp.Cast) and isinstance(_unparen(value.this), exp.Null)
        ):
            return null  # (a pattern Spark rejects too: it folds the NULL first)
        if not (isinstance(pattern, exp.Literal) and pattern.is_string):
            _refuse("date_format", "a pattern that is not a literal")
        try:
            return spark_date_format(self._instant("date_format", value), pattern.name)
        except OptimizeError:
            if dropped_unread(value):
                return null  # Spark's optimizer drops the projection (LIMIT 0, WHERE false) before it checks the pattern
            raise

    def _collection_call(self, called: str, arguments: list[exp.Expr]) -> exp.Expr:
        """``array_contains``, ``element_at``, ``reverse``, ``sha2`` and ``base64`` as DuckDB
        gives Spark's answer; a form whose answer vpush does not know is refused."""
        of = self.typer.of
        source = of(arguments[0])
        if called == "array_contains" and len(arguments) == 2 and isinstance(source, ArrayType):
            wanted = of(arguments[1])
            if wanted is not None and no_wider_type(source.element, wanted):
                raise different_element_types(called, [source, wanted], value=True)
            array, value = arguments
            if not (wanted == source.element or (_is_integral(wanted) and _is_integral(source.element))):
                wide = _contained_type(source.element, wanted)
                if wide is None:
                    _refuse(called, "an element of another type than the array's (Spark's coercion)")
                assert wanted is not None and wide is not None  # for mypy: refused above
                # Spark's findWiderTypeWithoutStringPromotion of the element and the value, each
                # part cast by Spark's cast (DuckDB's list_contains compares nested values as
                # Spark's ordering does: a NULL inside equals a NULL, -0.0 0.0, NaN NaN)
                if source.element != wide:
                    array = self._nested_cast(array, source, ArrayType(wide), False)
                if wanted != wide:
                    value = self._nested_cast(value, wanted, wide, False)
            # Spark: NULL when the value is NULL, or not found in an array holding a NULL
            found = exp.Anonymous(this="list_contains", expressions=[array.copy(), value.copy()])
            has_null = exp.LT(
                this=exp.Anonymous(this="list_count", expressions=[array.copy()]),
                expression=exp.Anonymous(this="len", expressions=[array.copy()]),
            )
            unknown = exp.Or(this=exp.Is(this=value.copy(), expression=exp.Null()), expression=has_null)
            return exp.Case(
                ifs=[exp.If(this=exp.Is(this=array.copy(), expression=exp.Null()), true=exp.Null()),
                     exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=exp.Null()),
                     exp.If(this=found, true=exp.true()),
                     exp.If(this=unknown, true=exp.Null())],
                default=exp.false(),
            )
        if called == "element_at" and len(arguments) == 2 and isinstance(source, ArrayType):
            if of(arguments[1]) not in (_INT, AtomicType("smallint"), AtomicType("tinyint")):
                _refuse(called, "an index that is not an int")
            return _element_at(arguments[0], arguments[1])
        if called == "try_element_at" and len(arguments) == 2 and isinstance(source, ArrayType):
            if of(arguments[1]) not in (_INT, AtomicType("smallint"), AtomicType("tinyint")):
                _refuse(called, "an index that is not an int")
            return _element_at(arguments[0], arguments[1], tolerant=True)
        if called == "get" and len(arguments) == 2 and isinstance(source, ArrayType):
            # Spark's GetArrayItem without ANSI's check: 0-based, NULL outside the array
            if of(arguments[1]) not in (_INT, AtomicType("smallint"), AtomicType("tinyint")):
                _refuse(called, "an index that is not an int")
            array, index = arguments
            outside = exp.Or(this=exp.LT(this=index.copy(), expression=exp.Literal.number(0)),
                             expression=exp.GTE(this=index.copy(), expression=exp.Anonymous(this="len", expressions=[array.copy()])))
            one_based = exp.Add(this=exp.cast(index.copy(), exp.DataType.build("BIGINT")), expression=exp.Literal.number(1))
            return exp.Case(ifs=[exp.If(this=outside, true=exp.Null())],
                            default=exp.Anonymous(this="list_extract", expressions=[array.copy(), one_based]))
        if called == "reverse" and len(arguments) == 1 and isinstance(source, ArrayType):
            return exp.Anonymous(this="list_reverse", expressions=[arguments[0]])
        if called == "reverse" and len(arguments) == 1 and isinstance(source, StringType):
            # by code points, as Spark does; DuckDB's reverse keeps grapheme clusters together
            points = exp.Anonymous(this="string_split", expressions=[arguments[0], exp.Literal.string("")])
            return exp.Anonymous(
                this="array_to_string",
                expressions=[exp.Anonymous(this="list_reverse", expressions=[points]), exp.Literal.string("")],
            )
        if called == "sha2" and len(arguments) == 2 and source in (StringType(), AtomicType("binary")):
            bits = _integer_literal(arguments[1])
            if bits not in (0, 256):
                _refuse(called, "bit lengths other than 256 (DuckDB has no SHA-224, SHA-384 or SHA-512)")
            return exp.Anonymous(this="sha256", expressions=[arguments[0]])
        if called == "base64" and len(arguments) == 1 and source in (StringType(), AtomicType("binary")):
            return _mime_base64(arguments[0], source == StringType())
        _refuse(called, "these argument types")

    def _map_call(self, node: exp.Expr, called: str, arguments: list[exp.Expr], result: SparkType | None) -> exp.Expr | None:
        """Spark's map functions as DuckDB gives their answer; None where the call is not on a
        map (an array's ``size`` and ``element_at`` are done elsewhere)."""
        if called == "map":
            return self._map(node, result)
        if called == "str_to_map":
            return _str_to_map(arguments)
        if called in ("map_from_arrays", "map_from_entries") and arguments and arguments[0].find(exp.Subquery, exp.Select) is not None:
            # its keys are checked in DuckDB lambdas, which take no subquery (DuckDB's binder error)
            _refuse(called, "keys or entries holding a subquery")
        if called in ("map_from_arrays", "map_from_entries") and isinstance(result, MapType) and _is_fractional(result.key):
            return self._map_of_fractional_keys(node, called, arguments, result)
        if called == "map_from_arrays":
            if len(arguments) != 2 or not isinstance(result, MapType) or not _plain_key(result.key):
                _refuse(called, "arrays without one element type vpush knows, or keys that are not integers, floats, doubles, strings, "
                        "booleans or dates")
            return map_from_arrays_checked(arguments[0], arguments[1])
        if called == "map_from_entries":
            entries = self.typer.of(arguments[0])
            if len(arguments) != 1 or not isinstance(result, MapType) or not _plain_key(result.key) or not isinstance(entries, ArrayType):
                _refuse(called, "an array that is not of two-field structs of types vpush knows, or keys that are not integers, floats, "
                        "doubles, strings, booleans or dates")
            assert isinstance(entries.element, StructType)  # for mypy: typed so above
            return _map_from_entries(arguments[0], [f.name for f in entries.element.fields])
        source = self.typer.of(arguments[0])
        if not isinstance(source, MapType):
            if called in ("size", "cardinality", "element_at", "try_element_at"):
                return None
            _refuse(called, "an argument that is not a map of a type vpush knows")
        if called in ("size", "cardinality") and len(arguments) == 1:
            # Spark's size of a NULL map is NULL under ANSI, as DuckDB's cardinality
            return exp.cast(exp.Anonymous(this="cardinality", expressions=[arguments[0]]), exp.DataType.build("INT"))
        if called in ("map_keys", "map_values") and len(arguments) == 1:
            return exp.Anonymous(this=called, expressions=[arguments[0]])  # both keep the map's order
        if called == "map_contains_key" and len(arguments) == 2:
            looked_up, key = self._map_key(called, arguments[0], arguments[1], source)
            found = exp.Anonymous(this="list_contains", expressions=[exp.Anonymous(this="map_keys", expressions=[looked_up]), key.copy()])
            # Spark: NULL for a NULL key or map (a map holds no NULL key, so nothing else is unknown)
            unknown = exp.Or(this=exp.Is(this=key, expression=exp.Null()), expression=exp.Is(this=arguments[0].copy(), expression=exp.Null()))
            return exp.Case(ifs=[exp.If(this=unknown, true=exp.cast(exp.Null(), exp.DataType.build("BOOLEAN")))], default=found)
        if called in ("element_at", "try_element_at") and len(arguments) == 2:
            return self._map_value(arguments[0], arguments[1], source, called)
        _refuse(called, "this form")

    def _map_of_fractional_keys(self, node: exp.Expr, called: str, arguments: list[exp.Expr], result: MapType) -> exp.Expr:
        """``map_from_arrays``/``map_from_entries`` of float or double keys: keys equal as
        Spark's map builder compares them (-0.0 to 0.0, NaN to NaN, as DuckDB's ``list_contains``
        does), a repeated one named as Java prints it; ``map_from_entries`` gives a -0.0 key as
        0.0 (Spark's ``ArrayBasedMapBuilder`` normalizes each key it puts, folded or row by row),
        ``map_from_arrays`` as given (the builder keeps the key array itself where no key
        repeats): measured."""
        entries = self.typer.of(arguments[0]) if called == "map_from_entries" and len(arguments) == 1 else None
        if called == "map_from_entries" and not (isinstance(entries, ArrayType) and isinstance(entries.element, StructType)):
            _refuse(called, "an array that is not of two-field structs of types vpush knows")
        if called == "map_from_arrays" and (len(arguments) != 2 or not isinstance(self.typer.of(arguments[0]), ArrayType)):
            _refuse(called, "arrays without one element type vpush knows")

        def text(key: exp.Expr) -> exp.Expr:
            return self._nested_cast(key, result.key, StringType(), False)

        def normalized(key: exp.Expr) -> exp.Expr:
            zero = exp.cast(exp.Literal.number(0), _sql_type(result.key))
            return exp.Case(ifs=[exp.If(this=exp.EQ(this=key.copy(), expression=exp.Literal.number(0)), true=zero)], default=key)

        if isinstance(entries, ArrayType) and isinstance(entries.element, StructType):
            return _map_from_entries(arguments[0], [f.name for f in entries.element.fields], text, normalized)
        # (map_from_arrays keeps the keys as given, -0.0 too: Spark's builder takes the arrays
        # themselves where no key repeats; map_from_entries puts each key, normalized)
        return map_from_arrays_checked(arguments[0], arguments[1], text)

    def _map(self, node: exp.Expr, result: SparkType | None) -> exp.Expr:
        """Spark's ``map(k1, v1, ...)``: keys and values cast to the map's types; a NULL key raises
        ``NULL_MAP_KEY`` and a key equal to an earlier one ``DUPLICATED_MAP_KEY`` (Spark's default
        ``spark.sql.mapKeyDedupPolicy=EXCEPTION``), checked key by key in Spark's order. DuckDB's
        ``MAP`` keeps the keys in the order given, as Spark does."""
        keys, values = node.args.get("keys"), node.args.get("values")
        if not (isinstance(node, exp.VarMap) and isinstance(keys, exp.Array) and isinstance(values, exp.Array)):
            _refuse("map", "this form")
        if not isinstance(result, MapType) or not (_plain_key(result.key) or _is_fractional(result.key)):
            _refuse("map", "keys or values without one type vpush knows (Spark's coercion), or keys that are not integers, floats, doubles, "
                    "strings, booleans or dates")
        of = self.typer.of

        def typed(part: exp.Expr, to: SparkType) -> exp.Expr:
            return part if of(part) == to else exp.cast(part, _sql_type(to))

        key_parts = [typed(k, result.key) for k in keys.expressions]
        key_texts: list[exp.Expr] = [exp.cast(k.copy(), exp.DataType.build("VARCHAR")) for k in key_parts]
        if _is_fractional(result.key):
            # (Spark names a duplicate as given, -0.0 too, as Java prints the double: 1.0E10, NaN)
            key_texts = [self._nested_cast(k.copy(), result.key, StringType(), False) for k in key_parts]
        parts = [n for part in (*keys.expressions, *values.expressions) for n in part.walk()]
        if _is_fractional(result.key) and (node.find_ancestor(exp.Lambda) is not None or any(isinstance(n, (exp.Subquery, exp.Select)) for n in parts)):
            # (whether Spark folds the map, or builds it interpreted, is not known there)
            _refuse("map", "float or double keys inside a lambda or beside a subquery (Spark normalizes a -0.0 key only where it "
                    "folds the map or evaluates it interpreted)")
        constant = not any(isinstance(n, exp.Column) and not n.name.startswith(_DIVISION) for n in parts)  # (not an operand's)
        if _is_fractional(result.key) and constant:
            # Spark's map builder normalizes a float key's -0.0 to 0.0 where its optimizer folds the
            # map to a constant (the interpreted ArrayBasedMapBuilder), not where generated code
            # builds it row by row (map(-0.0D, i) keeps -0.0: measured); DuckDB compares keys as
            # Spark does (-0.0 equal to 0.0, NaN to NaN), in the checks and lookups
            zero = exp.cast(exp.Literal.number(0), _sql_type(result.key))
            key_parts = [exp.Case(ifs=[exp.If(this=exp.EQ(this=k.copy(), expression=exp.Literal.number(0)), true=zero.copy())], default=k)
                         for k in key_parts]
        value_parts = [typed(v, result.value) for v in values.expressions]
        checks: list[exp.If] = []
        for j, key in enumerate(key_parts):
            if not isinstance(key, exp.Literal):
                null_text = "Cannot use null as map key."
                checks.append(exp.If(this=exp.Is(this=key.copy(), expression=exp.Null()), true=spark_error("NULL_MAP_KEY", null_text, None)))
            for earlier in key_parts[:j]:
                text = exp.DPipe(
                    this=exp.DPipe(this=exp.Literal.string("Duplicate map key "), expression=key_texts[j].copy()),
                    expression=exp.Literal.string(" was found, please check the input data."),
                )
                checks.append(exp.If(this=exp.EQ(this=earlier.copy(), expression=key.copy()), true=spark_error("DUPLICATED_MAP_KEY", text, None)))
        built = exp.Anonymous(this="map", expressions=[exp.Array(expressions=key_parts), exp.Array(expressions=value_parts)])
        return exp.Case(ifs=checks, default=built) if checks else built

    def _map_key(self, called: str, looked_up: exp.Expr, key: exp.Expr, source: MapType) -> tuple[exp.Expr, exp.Expr]:
        """A map and a key to look up in it, of one key type: the same type, a narrower integer
        (cast to the map's), a number or string given to ``m[k]`` over integer keys (cast to the
        map's key type by Spark's cast), or a wider integer or a double beside integer keys given
        to ``element_at``/``map_contains_key``, where Spark casts the map's keys to the key's type
        (``element_at(map(1, 'a'), 1.5D)`` is NULL): DuckDB's cast of the map, exact and
        one-to-one for those (no two keys made equal)."""
        wanted = self.typer.of(key)
        if wanted == source.key:
            return looked_up, key
        if called == "map[key]" and _is_integral(source.key) and (
                _is_integral(wanted) or _is_fractional(wanted) or isinstance(wanted, (DecimalType, StringType))):
            # Spark's subscript casts the key to the map's key type (ANSI: 1.5D is 1, NaN and
            # 3000000000L raise CAST_OVERFLOW, 'x' CAST_INVALID_INPUT), where element_at and
            # map_contains_key cast the map's keys to the wider type
            assert wanted is not None  # for mypy: typed above
            return looked_up, self._nested_cast(key, wanted, source.key, False)
        if _is_integral(wanted) and _is_integral(source.key):
            assert isinstance(wanted, AtomicType) and isinstance(source.key, AtomicType)
            if _wider_integral(wanted, source.key) == source.key:
                return looked_up, exp.cast(key, _sql_type(source.key))
            return exp.cast(looked_up, _sql_type(MapType(wanted, source.value))), key
        if wanted == _DOUBLE and source.key in (AtomicType("tinyint"), AtomicType("smallint"), _INT):
            return exp.cast(looked_up, _sql_type(MapType(wanted, source.value))), key
        if source.key == _DOUBLE and (_is_integral(wanted) or wanted == AtomicType("float")):
            # the key cast to the map's doubles, as Spark's coercion casts it (m[k] and element_at alike)
            return looked_up, exp.cast(key, _sql_type(_DOUBLE))
        _refuse(called, "a key of another type than the map's (Spark's coercion)")

    def _map_value(self, source: exp.Expr, key: exp.Expr, of_type: MapType, called: str) -> exp.Expr:
        """``element_at(m, k)`` and ``m[k]``: under ANSI both give NULL for a key not in the map
        (only an array's index raises), and for a NULL key."""
        if isinstance(key, exp.Null):
            return exp.cast(exp.Null(), _sql_type(of_type.value))
        return exp.Anonymous(this="map_extract_value", expressions=list(self._map_key(called, source, key, of_type)))

    def _strict_math(self, called: str, arguments: list[exp.Expr]) -> exp.Expr | None:
        """A call to one of Spark's transcendental functions as the StrictMath kernel's engine
        function: Java's bits, and Spark's NULL for a logarithm at or below its asymptote (DuckDB's
        ``ln`` of 0 raises, and the C library's results can differ in the last bit)."""
        name = "ln" if called == "log" and len(arguments) == 1 else _STRICT_MATH_CALLS[called]
        if len(arguments) != STRICT_MATH_ARITY[name]:
            return None
        function = STRICT_MATH_FUNCTIONS[name]
        self.functions[function] = _DOUBLE
        # Spark casts each argument to a double first (ImplicitCastInputTypes)
        doubles = [a if self.typer.of(a) == _DOUBLE else exp.cast(a, exp.DataType.build("DOUBLE")) for a in arguments]
        call = exp.Anonymous(this=function, expressions=doubles)
        self.typer.set_type(call, _DOUBLE)
        return call

    def _round_fractional(self, value: exp.Expr, scale: exp.Expr | None, *, even: bool = False) -> exp.Expr:
        """Spark's ``round`` of a double or float: HALF_UP on the number as Java prints it
        (``round(0.285, 2)`` is 0.29, where rounding the binary value gives 0.28); ``bround``
        (``even``) the same HALF_EVEN."""
        places = 0 if scale is None else _integer_literal(scale)
        if places is None or not -20 <= places <= 18:
            raise OptimizeError(
                f"{'bround' if even else 'round'}({value.sql(dialect=VpushSpark)}, ...): the DuckDB engine rounds a double only to a literal "
                "number of places from -20 to 18; the Spark engine runs it",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )
        source = self.typer.of(value)
        target = exp.DataType.build("FLOAT" if source == AtomicType("float") else "DOUBLE")
        text = self._java_text(value.copy())
        exact = exp.cast(exp.cast(text, exp.DataType.build("DECIMAL(38, 18)")), exp.DataType.build("DECIMAL(38, 18)"))
        nearest = (exp.Anonymous(this="round_even", expressions=[exact, exp.Literal.number(places)]) if even
                   else exp.Round(this=exact, decimals=exp.Literal.number(places)))
        rounded = exp.cast(nearest, target)
        # NaN and the infinities stay; from 1e17 up a double has no fraction digits to round
        untouched = exp.Or(
            this=exp.Anonymous(this="isnan", expressions=[value.copy()]),
            expression=exp.GTE(this=exp.Abs(this=value.copy()), expression=exp.Literal.number("1e17")),
        )
        return exp.Case(ifs=[exp.If(this=untouched, true=exp.cast(value, target))], default=rounded)

    def _to_double(self, node: exp.Expr) -> exp.Expression:
        """``node`` as a double. Spark's ``SimplifyCasts`` folds an integer cast to float and then
        to double into one cast to double, skipping the float's rounding: so does this. A string
        is read as Java reads it (:func:`_string_as_floating`)."""
        if isinstance(node, exp.Cast) and self.typer.of(node) == AtomicType("float") and _is_integral(self.typer.of(node.this)):
            node = node.this
        if isinstance(self.typer.of(node), StringType):
            return _string_as_floating(node, _DOUBLE, strict=True)
        return exp.cast(node, exp.DataType.build("DOUBLE"))

    def _nonzero(
        self, dividend: exp.Expr, divisor: exp.Expr, value_of: Callable[[exp.Expression, exp.Expression], exp.Expression],
        error_class: str, to: str | None,
    ) -> exp.Expression:
        """``value_of(dividend, divisor)``, raising Spark's ``error_class`` where the divisor is 0
        and the dividend is not NULL: Spark's ``DivModLike`` gives NULL for a NULL dividend
        before it looks at the divisor. A dividend other than a column or a literal is computed
        once (:func:`_with_operands`), as a chain of divisions would grow the SQL exponentially."""
        message = _BY_ZERO_MESSAGES[error_class]

        def checked(operand: Callable[[str], exp.Expression]) -> exp.Expression:
            zero = exp.And(this=exp.EQ(this=operand("d"), expression=exp.Literal.number(0)),
                           expression=exp.Not(this=exp.Is(this=operand("n"), expression=exp.Null())))
            return exp.Case(ifs=[exp.If(this=zero, true=spark_error(error_class, message, None if to is None else exp.DataType.build(to)))],
                            default=value_of(operand("n"), operand("d")))

        operands: dict[str, exp.Expression] = {"n": exp.Paren(this=dividend.copy()), "d": exp.Paren(this=divisor.copy())}
        if _is_plain(dividend):
            return checked(lambda name: operands[name].copy())
        return _with_operands(operands, checked)

    def _divide(self, node: exp.Div, result: SparkType | None) -> exp.Expr:
        if result == _DOUBLE:
            def ratio(n: exp.Expression, d: exp.Expression) -> exp.Expression:
                return exp.Div(this=exp.cast(n, exp.DataType.build("DOUBLE")), expression=d, typed=False, safe=False)

            return self._nonzero(node.this, node.expression, ratio, "DIVIDE_BY_ZERO", "DOUBLE")
        if not isinstance(result, DecimalType):
            return node
        of = self.typer.of
        a, b = _as_decimal(of(node.this), node.this), _as_decimal(of(node.expression), node.expression)
        assert a is not None and b is not None
        assert isinstance(result, DecimalType)
        if not _exact_fits("quotient", a, b, result):
            return self._decimal_function("quotient", node.this, a, node.expression, b, result)
        def quotient(n: exp.Expression, d: exp.Expression) -> exp.Expression:
            return _from_unscaled(_exact_divide(n, a, d, b, result), result)

        return self._nonzero(node.this, node.expression, quotient, "DIVIDE_BY_ZERO", _sql_type(result).sql("duckdb"))

    def _decimal_function(
        self, operation: str, left: exp.Expr, a: DecimalType, right: exp.Expr, b: DecimalType, result: DecimalType,
        returns: SparkType | None = None,
    ) -> exp.Expression:
        """A call of the engine function that computes ``operation`` of ``left`` (a ``a``) and
        ``right`` (a ``b``) as Spark does, past DuckDB's 38 digits (:func:`decimal_function`);
        it returns ``result`` (``returns`` where that differs: ``div``'s bigint)."""
        name = decimal_function(operation, a, b, result)
        self.functions[name] = returns or result
        this = exp.cast(left.copy(), _decimal(MAX_DECIMAL_PRECISION, a.scale))
        other = exp.cast(right.copy(), _decimal(MAX_DECIMAL_PRECISION, b.scale))
        return exp.Anonymous(this=name, expressions=[this, other])

    def _decimal_operands(self, left: exp.Expr, right: exp.Expr) -> tuple[DecimalType, DecimalType]:
        a, b = _as_decimal(self.typer.of(left), left), _as_decimal(self.typer.of(right), right)
        assert a is not None and b is not None  # typed as a decimal result by the typer
        return a, b

    def _decimal_remainder(self, left: exp.Expr, right: exp.Expr, result: DecimalType) -> exp.Expression:
        """Spark's ``left % right`` of decimals (``BigDecimal.remainder``: exact, the dividend's
        sign). DuckDB's is exact where both fit its 38 digits at the larger scale, and goes
        through doubles where not: there the engine function computes it."""
        a, b = self._decimal_operands(left, right)
        if max(a.precision - a.scale, b.precision - b.scale) + result.scale > MAX_DECIMAL_PRECISION:
            return self._decimal_function("remainder", left, a, right, b, result)

        def remainder(n: exp.Expression, d: exp.Expression) -> exp.Expression:
            return exp.cast(exp.Mod(this=n, expression=d), _sql_type(result))

        return self._nonzero(left, right, remainder, "REMAINDER_BY_ZERO", _sql_type(result).sql("duckdb"))

    def _decimal_pmod(self, value: exp.Expr, divisor: exp.Expr, result: DecimalType) -> exp.Expression:
        """Spark's ``pmod`` of decimals: ``r = value % divisor``, and ``(r + divisor) % divisor``
        where ``r`` is negative, which is ``r + divisor`` for a positive divisor and ``r`` for a
        negative one; typed as ``%`` is (a sum past the type raises, as in Spark)."""
        remainder = self._decimal_remainder(value, divisor, result)
        _, b = self._decimal_operands(value, divisor)
        wrap = exp.And(this=exp.LT(this=remainder.copy(), expression=exp.Literal.number(0)),
                       expression=exp.GT(this=divisor.copy(), expression=exp.Literal.number(0)))
        if _exact_fits("sum", result, b, result):
            total: exp.Expression = exp.cast(exp.Add(
                this=exp.cast(remainder.copy(), _decimal(MAX_DECIMAL_PRECISION, result.scale)),
                expression=exp.cast(divisor.copy(), _decimal(MAX_DECIMAL_PRECISION, b.scale)),
            ), _sql_type(result))
        else:
            total = self._decimal_function("sum", remainder.copy(), result, divisor, b, result)
        return exp.Case(ifs=[exp.If(this=wrap, true=total)], default=remainder)

    def _decimal_div(self, node: exp.IntDiv) -> exp.Expression:
        """Spark's ``div`` of decimals: the quotient truncated toward zero as a bigint, wrapped
        around 64 bits (``BigDecimal.divideToIntegralValue``, then ``longValue``), on 128-bit
        integers at the larger scale (by the engine function where those need more than 38 digits)."""
        a, b = self._decimal_operands(node.this, node.expression)
        scale = max(a.scale, b.scale)
        if max(a.precision - a.scale, b.precision - b.scale) + scale > MAX_DECIMAL_PRECISION:
            # past 38 digits at the common scale: the engine function (its result type: bigint)
            return self._decimal_function("div", node.this, a, node.expression, b, DecimalType(INTEGER_DIGITS["bigint"], 0), _BIGINT)
        def quotient(n: exp.Expression, d: exp.Expression) -> exp.Expression:
            numerator, denominator = _unscaled(n, a), _unscaled(d, b)
            if scale > a.scale:
                numerator = exp.Mul(this=numerator, expression=_pow10(scale - a.scale))
            if scale > b.scale:
                denominator = exp.Mul(this=denominator, expression=_pow10(scale - b.scale))
            return _wrapped_bigint(exp.IntDiv(this=exp.Paren(this=numerator), expression=exp.Paren(this=denominator)))

        return self._nonzero(node.this, node.expression, quotient, "DIVIDE_BY_ZERO", "BIGINT")

    def _json_shape(self, called: str, text: exp.Expr) -> exp.Expr:
        """Spark's ``json_array_length(json)`` (an int) or ``json_object_keys(json)`` (an array of
        strings) by the engine function of the compiled kernel; NULL where Spark's is."""
        result = AtomicType("int") if called == "json_array_length" else ArrayType(StringType())
        if isinstance(text, exp.Null):
            return exp.cast(exp.Null(), _sql_type(result))
        if not isinstance(self.typer.of(text), StringType):
            _refuse(called, "an argument that is not a string")
        name = JSON_SHAPE_FUNCTIONS[called]
        self.functions[name] = StringType()
        shape: exp.Expr = exp.Anonymous(this=name, expressions=[exp.cast(text, exp.DataType.build("VARCHAR"))])
        if called == "json_object_keys":
            shape = exp.cast(shape, exp.DataType.build("JSON"))
        call = exp.cast(shape, _sql_type(result))
        self.typer.set_type(call, result)
        return call

    def _get_json_object(self, text: exp.Expr, path: exp.Expr) -> exp.Expr:
        """Spark's ``get_json_object(json, path)`` by the engine function of the compiled kernel,
        for a literal path of keys and indexes; a NULL path gives NULL."""
        from vpush.codec.json_path import parse_json_path

        if not (isinstance(self.typer.of(text), StringType) or isinstance(text, exp.Null)):
            _refuse("get_json_object", "a first argument that is not a string")
        if isinstance(path, exp.Null):
            return exp.cast(exp.Null(), exp.DataType.build("VARCHAR"))
        if not (isinstance(path, exp.Literal) and path.is_string) or parse_json_path(path.name) is None:
            _refuse("get_json_object", "a path that is not a literal of keys and indexes ($.a, $['a'], $.a[0]): "
                    "wildcards ([*], .*) and whitespace are not evaluated")
        self.functions[GET_JSON_OBJECT_FUNCTION] = StringType()
        call = exp.Anonymous(this=GET_JSON_OBJECT_FUNCTION, expressions=[exp.cast(text, exp.DataType.build("VARCHAR")), path])
        self.typer.set_type(call, StringType())
        return call

    def _approx_count_distinct(self, node: exp.Expr) -> exp.Expr | None:
        """Spark's ``approx_count_distinct``: the engine function of the ``list`` of the values'
        hashes (:func:`rewrite_approx_count_distinct`), outside the FILTER and the window the call
        has (``estimate(list(h) FILTER (...) OVER (...))``); None for another node."""
        if isinstance(node, exp.ApproxDistinct):
            hashes, precision = rewrite_approx_count_distinct(node, self.typer.of, self.functions)
            hashes.meta[_HLL_PRECISION] = precision
            if isinstance(node.parent, (exp.Filter, exp.Window)) and node.arg_key == "this":
                return hashes  # the FILTER's or the window's visit, next, finishes it
            return _hll_estimate(hashes, precision)
        inner = node.this if isinstance(node, exp.Window) and isinstance(node.this, exp.Filter) else node
        if isinstance(node, (exp.Filter, exp.Window)) and isinstance(inner.this, exp.Anonymous) and _HLL_PRECISION in inner.this.meta:
            if isinstance(node, exp.Filter) and isinstance(node.parent, exp.Window) and node.arg_key == "this":
                return None
            if isinstance(node, exp.Window):
                _check_window(node, self.typer.of)
            return _hll_estimate(node, inner.this.meta[_HLL_PRECISION])
        return None

    def _try_aggregate(self, node: exp.Expr, called: str, value: exp.Expr, result: SparkType | None) -> exp.Expr:
        """Spark's ``try_sum`` and ``try_avg``: ``sum`` and ``avg``, NULL where those raise for an
        overflow (of a sum of integers or decimals). Over a window or with a FILTER the bare
        aggregate is returned, for the window's or the filter's own rewrite to finish."""
        source = self.typer.of(_distinct_argument(value))
        if result is None or not (_is_integral(source) or _is_fractional(source) or isinstance(source, DecimalType)):
            _refuse(called, "an argument other than an integer, a float, a double or a decimal")
        in_window = isinstance(node.parent, exp.Window) and node.arg_key == "this"
        if (isinstance(source, DecimalType) and source.precision > _TRY_DECIMAL_PRECISION and not in_window and _grouped(node)
                and (isinstance(value, exp.Distinct) or scan_order(self.typer.scope) is None) and not self._object_hash()):
            # DuckDB's own sum of wider decimals can raise before the total is checked (without
            # GROUP BY and over windows the total is exact: _exact_decimal_total; with GROUP BY
            # where the SELECT knows Spark's order of rows: _grouped_decimal_total)
            _refuse(called, f"decimals of more than {_TRY_DECIMAL_PRECISION} digits with GROUP BY")
        agg: exp.Expr = exp.Sum(this=value) if called == "try_sum" else exp.Avg(this=value)
        agg.meta[_TOLERANT] = True
        agg.meta[_GROUPED] = _grouped(node)
        self.typer.set_type(agg, result)
        if isinstance(node.parent, (exp.Window, exp.Filter)) and node.arg_key == "this":
            return agg
        return self._aggregate(agg, agg, result, window=None)

    def _regression_average(self, node: exp.RegrAvgx | exp.RegrAvgy, called: str, result: SparkType | None) -> exp.Expr:
        """Spark's ``regr_avgx(y, x)``/``regr_avgy(y, x)``: its replacement, ``avg`` of ``x``
        (``y``) over the rows where neither is NULL, typed and added in order as that ``avg``."""
        y, x = node.this, node.expression
        for value in (y, x):
            source = self.typer.of(value)
            if not (_is_integral(source) or _is_fractional(source) or isinstance(source, DecimalType) or isinstance(value, exp.Null)):
                _refuse(called, "an argument other than a number (Spark's implicit cast to a double)")
        if isinstance(y, exp.Distinct) or isinstance(x, exp.Distinct):
            _refuse(called, "DISTINCT")
        averaged = x if called == "regr_avgx" else y
        both = exp.and_(*(exp.Not(this=exp.Is(this=v.copy(), expression=exp.Null())) for v in (y, x)), copy=False)
        kept = exp.Case(ifs=[exp.If(this=both, true=averaged.copy())])
        self.typer.set_type(kept, self.typer.of(averaged))
        agg = exp.Avg(this=kept)
        self.typer.set_type(agg, result)
        if isinstance(node.parent, (exp.Window, exp.Filter)) and node.arg_key == "this":
            return agg  # the window's or the FILTER's visit finishes it, as an avg's
        return self._aggregate(agg, agg, result, window=None)

    def _moment(self, node: exp.Expr) -> exp.Expr | None:
        """Spark's moment aggregates (``var_pop``, ``stddev``, ``skewness``, ``covar_pop``, ``corr``,
        ...), with or without a FILTER, by Spark's formulas over the values in Spark's order (a
        kernel over each group's list); None for any other node, or one over a window (DuckDB's)."""
        condition = None
        call = node
        if isinstance(node, exp.Filter):
            call, condition = node.this, node.expression.this
        kind = MOMENT_FUNCTIONS.get(type(call))
        if isinstance(call, exp.Anonymous) and call.name.lower() == "std":
            kind = "stddev_samp"
        if kind is None or isinstance(node.parent, (exp.Window, exp.Filter)) or isinstance(call.this, exp.Distinct):
            return None
        values = [call.this] + ([call.expression] if call.args.get("expression") is not None else list(call.expressions)[1:])
        if isinstance(call, exp.Anonymous):
            values = list(call.expressions)
        for value in values:
            source = self.typer.of(value)
            if source is not None and not (_is_integral(source) or _is_fractional(source) or isinstance(source, DecimalType)):
                _refuse(kind, f"an argument of type {source.to_spark()}")
        fallback = self._fallback(kind)
        place = fallback[0] if fallback is not None else None
        answer = moment_call(kind, values, scan_order(self.typer.scope), condition, self.functions, place)
        return answer if place is not None else self._past_fallback(kind, answer, fallback)

    def _add_in_order(self, node: exp.Expr, agg: exp.Expr) -> exp.Expr | None:
        """``node`` (``agg``, or ``agg`` with a FILTER) adding its values in Spark's order of rows,
        which decides the last bits, where ``agg`` is a ``sum`` of doubles or floats or an ``avg``
        of those or of integers (added as doubles), the scan's order is known and it is not
        DISTINCT; else None. An average is that sum over the count, as Spark's ``Average``
        divides them (so that a sum and an average of one value share DuckDB's sorting)."""
        arg = self.typer.of(agg.this)
        if isinstance(agg.this, (exp.Distinct, exp.Order)) or not (_is_fractional(arg) or (isinstance(agg, exp.Avg) and _is_integral(arg))):
            return None
        order = scan_order(self.typer.scope)
        if order is None:
            return None
        condition = node.expression.this if isinstance(node, exp.Filter) else None
        called = "sum" if isinstance(agg, exp.Sum) else "avg"
        fallback = self._fallback(called)
        place = fallback[0] if fallback is not None else None
        total: exp.Expr = ordered_double_sum(agg.this, order, condition, self.functions, place)
        if place is None:
            total = self._past_fallback(called, total, fallback)
        if isinstance(agg, exp.Sum):
            return total
        count: exp.Expr = exp.Count(this=agg.this.copy())
        if isinstance(node, exp.Filter):
            count = exp.Filter(this=count, expression=node.expression.copy())
        # no rows: the sum is NULL, and so is the quotient
        return exp.Div(this=total, expression=exp.cast(count, exp.DataType.build("DOUBLE")), typed=False, safe=False)

    def _aggregate(self, node: exp.Expr, agg: exp.Expr, result: SparkType | None, window: exp.Window | None) -> exp.Expr:
        def over(call: exp.Expression) -> exp.Expression:
            if window is None and isinstance(node, exp.Filter):
                return exp.Filter(this=call, expression=node.expression.copy())
            if window is None:
                return call
            copy = window.copy()
            copy.set("this", call)
            return copy

        if isinstance(agg, _RANKING):
            return exp.cast(node, exp.DataType.build("INT"))
        arg = self.typer.of(agg.this)
        tolerant = bool(agg.meta.get(_TOLERANT))
        if isinstance(agg, (exp.Sum, exp.Avg)) and arg == AtomicType("boolean"):
            raise OptimizeError(
                f'Cannot resolve "{_spark_text(agg)}" due to data type mismatch: The first parameter requires the '
                '"NUMERIC" or "ANSI INTERVAL" type, however the argument has the type "BOOLEAN".',
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        if isinstance(agg, exp.Avg) and isinstance(arg, AtomicType) and arg.name in ("date", "timestamp", "timestamp_ntz"):
            # Spark averages a timestamp as a double of seconds; DuckDB gives a timestamp
            _refuse("avg", f"an average of a {arg.name}")
        if isinstance(agg, exp.Sum) and isinstance(agg.this, exp.Null):
            return exp.cast(node, exp.DataType.build("DOUBLE"))  # Spark types sum(NULL) as a double
        if isinstance(agg, exp.Sum) and result == _BIGINT and window is None and _in_window_spec(node):
            # DuckDB takes no error() (volatile) in a window's ORDER BY or PARTITION BY: the sum is
            # only typed there (an overflow raises DuckDB's cast error, not ARITHMETIC_OVERFLOW)
            return exp.cast(node, exp.DataType.build("BIGINT"))
        if isinstance(agg, exp.Sum) and result == _BIGINT:
            low, high = _INT_RANGE["bigint"]
            total = node.copy()
            inside = exp.Between(this=total.copy(), low=exp.Literal.number(low), high=exp.Literal.number(high))
            overflow = exp.cast(exp.Null(), exp.DataType.build("BIGINT")) if tolerant else spark_error(
                "ARITHMETIC_OVERFLOW", "overflow. Use 'try_add' to tolerate overflow and return NULL instead.",
                exp.DataType.build("BIGINT"),
            )
            checked = exp.Case(
                ifs=[
                    exp.If(this=exp.Is(this=total.copy(), expression=exp.Null()), true=exp.cast(exp.Null(), exp.DataType.build("BIGINT"))),
                    exp.If(this=inside, true=exp.cast(total, exp.DataType.build("BIGINT"))),
                ],
                default=overflow.copy(),
            )
            order = None if window is not None or isinstance(agg.this, exp.Distinct) else scan_order(self.typer.scope)
            if order is None:
                return checked
            condition = node.expression.this if isinstance(node, exp.Filter) else None
            return self._exact_past_fallback("sum", ordered_long_sum(agg.this, order, condition, checked, overflow, self.functions))
        if (
            isinstance(agg, (exp.Sum, exp.Avg)) and isinstance(arg, DecimalType) and isinstance(result, DecimalType)
            and arg.precision + 10 > MAX_DECIMAL_PRECISION and not isinstance(agg.this, exp.Distinct)
            and (window is not None or not (_grouped(node) or agg.meta.get(_GROUPED)) or self._object_hash())
        ):
            # (an ObjectHashAggregateExec keeps each group's total in a generic row, exactly, as
            # without GROUP BY: measured on Spark 4.3)
            return self._exact_decimal_total(node, agg, arg, result, window, tolerant)
        if (
            isinstance(agg, (exp.Sum, exp.Avg)) and isinstance(arg, DecimalType) and isinstance(result, DecimalType)
            and arg.precision + 10 > MAX_DECIMAL_PRECISION and not isinstance(agg.this, exp.Distinct) and window is None
        ):
            order = scan_order(self.typer.scope)
            if order is not None:
                return self._grouped_decimal_total(node, agg, arg, result, order, tolerant)
        in_order = self._add_in_order(node, agg) if window is None else None
        if in_order is not None:
            return in_order
        if isinstance(agg, exp.Sum) and isinstance(result, DecimalType):
            if tolerant:
                return exp.TryCast(this=node, to=_sql_type(result))
            return exp.cast(node, _sql_type(result))
        if isinstance(agg, exp.Avg) and isinstance(result, DecimalType) and isinstance(agg.this, exp.Distinct):
            raise OptimizeError(
                f"{agg.sql(dialect=VpushSpark)}: the DuckDB engine does not give Spark's exact average of "
                "distinct decimals yet; the Spark engine runs it",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )
        if isinstance(agg, exp.Avg) and isinstance(result, DecimalType) and isinstance(arg, DecimalType):
            return self._decimal_average(agg.this, arg, result, over)
        if isinstance(agg, exp.Avg) and _is_integral(arg):
            # Spark averages integers over a double sum (its `Average.sumDataType`): past 2^53 it
            # loses what DuckDB's exact 128-bit sum keeps.
            agg.set("this", exp.cast(agg.this, exp.DataType.build("DOUBLE")))
        return node

    def _exact_decimal_total(
        self, node: exp.Expr, agg: exp.Expr, arg: DecimalType, result: DecimalType, window: exp.Window | None, tolerant: bool
    ) -> exp.Expression:
        """Spark's ``sum``/``avg`` of a decimal whose total may pass 38 digits, over a window or
        without GROUP BY: Spark keeps such a total exactly and checks it at the end
        (``CheckOverflowInSum``; an average divides it by the count first). DuckDB's running
        total is 128 bits, so the values are split (:func:`_split_decimal`), summed apart and
        put together by the engine function :func:`decimal_function` (``total``/``average``).
        Without a window Spark's total passes between its partial and final aggregation as a
        ``decimal(38,s)``, where one past 38 digits becomes its ``ARITHMETIC_OVERFLOW``; over
        a window it is checked as ``NUMERIC_VALUE_OUT_OF_RANGE``."""

        def wrap(call: exp.Expression) -> exp.Expression:
            outer = window if window is not None else node if isinstance(node, exp.Filter) else None
            if outer is None:
                return call
            copy = typing.cast(exp.Expression, outer.copy())
            copy.set("this", call)
            return copy

        q, rest = _split_decimal(agg.this, arg.scale)
        kind = "average" if isinstance(agg, exp.Avg) else "total"
        # a try_ total over a window is NULL where it does not fit, as without one
        operation = ("try_" if tolerant else "") + ("window_" if window is not None and (kind == "average" or not tolerant) else "") + kind
        call = self._decimal_function(operation, wrap(exp.Sum(this=q)), DecimalType(MAX_DECIMAL_PRECISION, 0),
                                      wrap(exp.Sum(this=rest)), DecimalType(MAX_DECIMAL_PRECISION, arg.scale), result)
        if kind == "average":
            call.append("expressions", wrap(exp.Count(this=agg.this.copy())))
        return call

    def _grouped_decimal_total(
        self, node: exp.Expr, agg: exp.Expr, arg: DecimalType, result: DecimalType, order: exp.Expr, tolerant: bool
    ) -> exp.Expression:
        """Spark's ``sum``/``avg`` with GROUP BY of a decimal whose total is a ``decimal(38,s)``:
        Spark's hash aggregation keeps each group's running total in a ``decimal(38,s)`` field
        of its buffer row, which becomes NULL once the total passes 38 digits in Spark's order of
        rows (``UnsafeRow.setDecimal``; ``Sum``'s additions are ``DecimalAddNoOverflowCheck``)
        and stays NULL; at the end ``CheckOverflowInSum`` (``Average``: its division) raises
        ``ARITHMETIC_OVERFLOW`` for it, or answers NULL for ``try_sum``/``try_avg``, even where
        the total fits (``9E37 + 9E37 - 9E37``). Where the count times the largest magnitude
        fits 38 digits no running total passes, and DuckDB's exact total is Spark's; elsewhere
        the values are added in order by the engine function ``ordered_total``
        (:func:`~vpush.optimizer.spark_order.ordered_decimal_total`). An average is the total
        over the count (the engine function ``average``, as without GROUP BY)."""
        scale = arg.scale
        total_type = DecimalType(MAX_DECIMAL_PRECISION, scale)
        condition = node.expression.this if isinstance(node, exp.Filter) else None
        average = isinstance(agg, exp.Avg)
        to = _sql_type(result)
        function = decimal_function("ordered_total", total_type, total_type, total_type)
        self.functions[function] = total_type

        def finish(total: exp.Expression, count: exp.Expr) -> exp.Expression:
            overflow = exp.cast(exp.Null(), to) if tolerant else spark_error(
                "ARITHMETIC_OVERFLOW",
                f"Overflow in sum of decimals. Use '{'try_avg' if average else 'try_sum'}' to tolerate overflow and return NULL instead.", to,
            )
            answer: exp.Expression = exp.cast(total.copy(), to)
            if average:
                answer = self._decimal_function(("try_" if tolerant else "") + "average", exp.Literal.number(0), DecimalType(MAX_DECIMAL_PRECISION, 0),
                                                total.copy(), total_type, result)
                answer.append("expressions", count.copy())
            # (a group without values is NULL before the engine function: DuckDB hands a function
            # of DEFAULT null handling the NULL rows' undefined values among the others)
            return exp.Case(
                ifs=[exp.If(this=exp.EQ(this=count, expression=exp.Literal.number(0)), true=exp.cast(exp.Null(), to)),
                     exp.If(this=exp.Is(this=total, expression=exp.Null()), true=overflow)],
                default=answer,
            )

        def filtered(call: exp.Expression) -> exp.Expression:
            return call if condition is None else exp.Filter(this=call, expression=exp.Where(this=condition.copy()))

        value = exp.cast(agg.this.copy(), _decimal(MAX_DECIMAL_PRECISION, scale))
        # where no running total passes 38 digits, DuckDB's total (128 bits, exact) is Spark's;
        # elsewhere it may pass 2^127 or 38 digits and raise before the check
        # (DECIMAL_SUM_OVERFLOWS: the engine runs the ordered query then too)
        checked = finish(filtered(exp.Sum(this=value.copy())), filtered(exp.Count(this=value.copy())))
        return ordered_decimal_total(value, order, condition, scale, checked, to, finish, function)

    def _approx_percentile(self, node: exp.ApproxQuantile, condition: exp.Expr | None = None) -> exp.Expr:
        """Spark's ``percentile_approx``/``approx_percentile`` (``condition``: its FILTER): each
        group's values as doubles (dates as days, timestamps as microseconds) fed to Spark's
        Greenwald-Khanna summary (``QuantileSummaries``) in Spark's order of rows by the engine
        function (:func:`~vpush.optimizer.spark_order.percentile_approx_call`), as one task
        builds it and the final aggregation queries it, each answer converted back to the
        argument's type as Spark converts it. Where vpush does not know Spark's order of rows (a
        join, ...), a group of 50,000 values or more raises ``VPUSH_UNSUPPORTED_FUNCTION`` when met
        (fewer stay in the summary's head, sorted before they count). A window is refused."""
        called = (node.meta.get("vpush_spark_call") or ("percentile_approx",))[0]
        value, quantile, accuracy = node.this, node.args.get("quantile"), node.args.get("accuracy")
        if isinstance(node.parent, exp.Window) or (isinstance(node.parent, exp.Filter) and isinstance(node.parent.parent, exp.Window)):
            # (a growing frame's every evaluation compresses Spark's digest in place)
            _refuse(called, "a window")
        if isinstance(value, exp.Distinct):
            _refuse(called, "a DISTINCT argument")
        source = self.typer.of(value)
        shown = _spark_text(node)
        if source == _BOOLEAN or isinstance(source, (ArrayType, MapType, StructType)) or source == AtomicType("binary"):
            raise OptimizeError(
                f'Cannot resolve "{shown}" due to data type mismatch: The first parameter requires the ("NUMERIC" or "DATE" or '
                '"TIMESTAMP" or "TIMESTAMP_NTZ" or "INTERVAL YEAR TO MONTH" or "INTERVAL DAY TO SECOND" or "TIME") type, however '
                f'"{_spark_text(value)}" has the type "{_spark_type_name(source)}".',
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        if not (_is_integral(source) or _is_fractional(source) or isinstance(source, DecimalType) or source in _DATETIMES):
            _refuse(called, f"a `{called}` of a {source.to_spark() if source is not None else 'value vpush does not type'}")
        budget = 10000 if accuracy is None else _integer_literal(accuracy)
        if budget is None:
            _refuse(called, "an accuracy that is not an integer literal")
        assert budget is not None
        if not 0 < budget <= 2147483647:
            raise OptimizeError(
                f'Cannot resolve "{shown}" due to data type mismatch: The accuracy must be between (0, 2147483647] '
                f"(current value = {budget}L).",
                error_class="DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
            )
        if isinstance(quantile, exp.Null):
            raise OptimizeError(f'Cannot resolve "{shown}" due to data type mismatch: The percentage must not be null.',
                                error_class="DATATYPE_MISMATCH.UNEXPECTED_NULL")
        parts: list[exp.Expr] = list(quantile.expressions) if isinstance(quantile, exp.Array) else [quantile] if quantile is not None else []
        percentages = [_number_literal(p) for p in parts]
        if any(p is None for p in percentages):
            _refuse(called, "a percentage that is not a number literal or an array of them")
        for number in percentages:
            assert number is not None
            if not 0 <= number <= 1:
                raise OptimizeError(
                    f'Cannot resolve "{shown}" due to data type mismatch: The percentage must be between [0.0, 1.0] '
                    f"(current value = {number}D).",
                    error_class="DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                )
        if isinstance(node.parent, exp.Filter) and condition is None:
            return node  # the FILTER's visit, next, computes it
        assert source is not None
        target = _sql_type(source)
        result = ArrayType(source) if isinstance(quantile, exp.Array) else source
        if isinstance(quantile, exp.Array) and not parts:
            return exp.Max(this=exp.cast(exp.Null(), _sql_type(result)))  # no percentages: Spark's NULL, an aggregate still
        double = exp.DataType.build("DOUBLE")
        bigint = exp.DataType.build("BIGINT")
        epoch = exp.cast(exp.Literal.string("1970-01-01"), exp.DataType.build("DATE"))
        as_double = _summarized_double(value, source)
        order = scan_order(self.typer.scope)
        group, plain = _grouping_of(node, called)
        # with GROUP BY, Spark's hash aggregation falls back to sorting past 128 groups (a window
        # over the groups finds where), and merges each group's two digests
        fallback = hash_fallback_place(order) if group is not None and order is not None and plain else None
        found = percentile_approx_call(as_double, order, condition, [float(p) for p in percentages if p is not None], budget,
                                       self.functions, fallback)
        answers = exp.column(exp.to_identifier(_SORTED))

        def long_of(picked: exp.Expression) -> exp.Expr:
            """Scala's toLong of a double: 2^63 (a long's largest as a double) saturates."""
            top = exp.GTE(this=picked.copy(), expression=exp.Literal.number("9.223372036854775807E18"))
            return exp.Case(ifs=[exp.If(this=top, true=exp.cast(exp.Literal.number(2**63 - 1), bigint))], default=exp.cast(picked, bigint))

        def back(picked: exp.Expression) -> exp.Expr:
            """The chosen double as the argument's type, as Spark converts it back."""
            if source == _DOUBLE:
                return picked
            if isinstance(source, DecimalType):
                return self._fractional_to_decimal(picked, source, strict=False)
            if source == AtomicType("date"):
                return exp.cast(exp.Add(this=epoch.copy(), expression=exp.cast(picked, exp.DataType.build("INT"))), target)
            if source in _TIMESTAMPS:
                moment = exp.Anonymous(this="make_timestamp", expressions=[long_of(picked)])
                return moment if source == AtomicType("timestamp_ntz") else exp.Anonymous(
                    this="timezone", expressions=[exp.Literal.string("UTC"), moment])
            if source == _BIGINT:
                return long_of(picked)
            return exp.cast(picked, target)

        def at(index: int) -> exp.Expr:
            picked = exp.Anonymous(this="list_extract", expressions=[answers.copy(), exp.Literal.number(index + 1)])
            self.typer.set_type(picked, _DOUBLE)
            return back(picked)

        body: exp.Expr = exp.Array(expressions=[at(i) for i in range(len(parts))]) if isinstance(quantile, exp.Array) else at(0)
        answer: exp.Expr = exp.Case(
            ifs=[exp.If(this=exp.Is(this=answers.copy(), expression=exp.Null()), true=exp.cast(exp.Null(), _sql_type(result)))],
            default=body,
        )
        answer = _sorted_once(found, answer)
        count: exp.Expr = exp.Count(this=value.copy())
        if condition is not None:
            count = exp.Filter(this=count, expression=exp.Where(this=condition.copy()))
        unknown: list[exp.Expr] = []
        if order is None:
            # without Spark's order of rows: answered where the group's values all stay in the head
            unknown.append(exp.GTE(this=count.copy(), expression=exp.Literal.number(ORDER_FREE_PERCENTILE_ROWS)))
        if group is not None and fallback is None:
            # nor where the hash aggregation falls back: answered below 128 groups, or where the
            # group's two digests each keep every value (fewer than accuracy / 2 of them)
            many = exp.GTE(this=exp.Window(this=exp.Count(this=exp.Star())), expression=exp.Literal.number(HASH_FALLBACK_GROUPS))
            merging = exp.GTE(this=exp.Mul(this=exp.cast(count.copy(), double), expression=exp.Literal.number(2)),
                              expression=exp.Literal.number(budget))
            unknown.append(exp.and_(many, merging, copy=False))
        if unknown:
            message = (f"{shown} over a large group where vpush does not know the order Spark reads the rows in (a join, "
                       "a UNION ALL, ROLLUP, ...), on which Spark's summary then depends; the Spark engine runs it")
            answer = exp.Case(
                ifs=[exp.If(this=exp.or_(*unknown, copy=False), true=spark_error("VPUSH_UNSUPPORTED_FUNCTION", message, _sql_type(result)))],
                default=answer,
            )
        return answer

    def _histogram_numeric(self, node: exp.Expr, arguments: list[exp.Expr | None], result: SparkType | None) -> exp.Expr:
        """Spark's ``histogram_numeric(x, nb)``: each group's values as doubles (dates as days,
        timestamps as microseconds) fed to Hive's ``NumericHistogram`` in Spark's order of rows
        by the engine function (:func:`~vpush.optimizer.spark_order.histogram_numeric_call`), as
        one task builds it (several tasks' merged, past the hash aggregation's fallback the two
        buffers merged); each bin's centre converted back to the argument's type as Scala's
        ``toInt``/``toLong``/... converts it (toward zero), its height a double. Refused where
        vpush does not know Spark's order of rows, over a window or under a FILTER."""
        called = "histogram_numeric"
        value, bins = (arguments + [None, None])[:2]
        if value is None or bins is None or len(arguments) != 2 or not isinstance(result, ArrayType):
            _refuse(called, "an argument of a type vpush does not answer (decimals, intervals, ...)")
        assert value is not None and bins is not None and isinstance(result, ArrayType)
        if isinstance(node.parent, (exp.Window, exp.Filter)) or isinstance(value, exp.Distinct):
            _refuse(called, "a window, a FILTER or a DISTINCT argument")
        source = self.typer.of(value)
        if source is None:
            _refuse(called, "an argument whose type vpush does not know")
        assert source is not None
        nbins = _integer_literal(bins)
        if nbins is None:
            _refuse(called, "a bin count that is not an integer literal")
        assert nbins is not None
        if nbins < 2:
            raise OptimizeError(
                f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: The nb must be between [2, 2147483647] '
                f"(current value = {nbins}).", error_class="DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE")
        if nbins > 1000:
            _refuse(called, "more than 1000 bins")
        order = scan_order(self.typer.scope)
        if order is None:
            _refuse(called, "rows whose order vpush does not know Spark reads them in (a join, a UNION ALL, ...)")
        assert order is not None
        bigint = exp.DataType.build("BIGINT")
        epoch = exp.cast(exp.Literal.string("1970-01-01"), exp.DataType.build("DATE"))
        group, plain = _grouping_of(node, called)
        fallback = None
        if group is not None:
            if not plain:
                _refuse(called, "ROLLUP, CUBE or GROUPING SETS")
            fallback = hash_fallback_place(order)
            if fallback is None:
                _refuse(called, "rows whose order vpush does not know Spark reads them in (a UNION ALL, ...)")
        found = histogram_numeric_call(_summarized_double(value, source), order, None, nbins, self.functions, fallback)
        bin_variable = exp.column(exp.to_identifier(_SORTED))
        centre = exp.Dot(this=bin_variable.copy(), expression=exp.to_identifier("x"))
        height = exp.Dot(this=bin_variable.copy(), expression=exp.to_identifier("y"))
        whole = exp.Anonymous(this="trunc", expressions=[centre.copy()])
        top = exp.GTE(this=whole.copy(), expression=exp.Literal.number("9.223372036854775807E18"))
        long_of = exp.Case(ifs=[exp.If(this=top, true=exp.cast(exp.Literal.number(2**63 - 1), bigint))], default=exp.cast(whole.copy(), bigint))
        x: exp.Expr
        if source in (_DOUBLE, AtomicType("float")):
            x = exp.cast(centre, _sql_type(source)) if source != _DOUBLE else centre
        elif source == AtomicType("date"):
            x = exp.Add(this=epoch.copy(), expression=exp.cast(whole, exp.DataType.build("INT")))
        elif source in _TIMESTAMPS:
            moment = exp.Anonymous(this="make_timestamp", expressions=[long_of])
            x = moment if source == AtomicType("timestamp_ntz") else exp.Anonymous(
                this="timezone", expressions=[exp.Literal.string("UTC"), moment])
        elif source == _BIGINT:
            x = long_of
        else:
            x = exp.cast(exp.cast(whole, exp.DataType.build("INT")), _sql_type(source))  # d2i, then i2s / i2b
        pair = exp.Struct(expressions=[exp.PropertyEQ(this=exp.to_identifier("x"), expression=x),
                                       exp.PropertyEQ(this=exp.to_identifier("y"), expression=height)])
        converted = exp.Anonymous(this="list_transform", expressions=[found, exp.Lambda(this=pair, expressions=[exp.to_identifier(_SORTED)])])
        return exp.cast(converted, _sql_type(result))

    def _mode(self, node: exp.Expr, value: exp.Expr, *, least: bool = True) -> exp.Expr:
        """Spark's ``mode(x, true)`` (and ``mode() WITHIN GROUP (ORDER BY x)``): the value most
        rows hold, NULLs left out, the least of the values tied for it (Spark's order: NaN above
        every double, -0.0 counted as 0.0), the greatest with ``least`` false (``mode() WITHIN
        GROUP (ORDER BY x DESC)``); NULL for no value. Taken from DuckDB's ``histogram``, its entries
        sorted by the count, then the value. ``mode(x)`` and ``mode(x, false)`` are refused:
        Spark breaks their ties by the order of its hash map. So are a FILTER and a window (the
        histogram would be outside them)."""
        source = self.typer.of(value)
        if isinstance(node.parent, (exp.Filter, exp.Window)):
            _refuse("mode", "a FILTER or a window")
        if isinstance(node, exp.Mode) and node.args.get("deterministic") != exp.Boolean(this=True):
            return self._mode_by_hash_map(value, source)
        if not (_is_integral(source) or _is_fractional(source) or isinstance(source, (DecimalType, StringType))
                or source in (_BOOLEAN, AtomicType("date"), *_TIMESTAMPS)):
            _refuse("mode", f"a mode of a {source.to_spark() if source is not None else 'value of a type vpush does not know'}")
        assert source is not None  # for mypy: refused above
        counted: exp.Expr = value.copy()
        if _is_fractional(source):
            # Spark's aggregation normalizes -0.0 to 0.0 (NaN to one NaN, as DuckDB's groups do)
            zero = exp.cast(exp.Literal.number(0), _sql_type(source))
            counted = exp.Case(ifs=[exp.If(this=exp.EQ(this=value.copy(), expression=zero.copy()), true=zero)], default=value.copy())
        entry = exp.column("e")
        count = exp.Neg(this=exp.cast(exp.Dot(this=entry.copy(), expression=exp.to_identifier("value")), _sql_type(_BIGINT)))
        ranked = exp.Struct(expressions=[
            exp.PropertyEQ(this=exp.to_identifier("n"), expression=count if least else count.copy().this),
            exp.PropertyEQ(this=exp.to_identifier("k"), expression=exp.Dot(this=entry.copy(), expression=exp.to_identifier("key"))),
        ])
        entries = exp.Anonymous(this="map_entries", expressions=[exp.Anonymous(this="histogram", expressions=[counted])])
        pairs = exp.Anonymous(this="list_transform", expressions=[entries, exp.Lambda(this=ranked, expressions=[exp.to_identifier("e")])])
        # (-count, value) ascending puts the least of the most frequent first, (count, value)
        # descending the greatest of them
        sorted_pairs = exp.Anonymous(this="list_sort", expressions=[pairs] if least else [pairs, exp.Literal.string("DESC")])
        first = exp.Anonymous(this="list_extract", expressions=[sorted_pairs, exp.Literal.number(1)])
        return exp.Anonymous(this="struct_extract", expressions=[first, exp.Literal.string("k")])

    def _mode_by_hash_map(self, value: exp.Expr, source: SparkType | None) -> exp.Expr:
        """Spark's ``mode(x)`` and ``mode(x, false)``: of the values most rows hold, the first in
        the order of Spark's hash map (:func:`vpush.codec.spark_aggregates.spark_mode`), which
        depends on the order Spark meets the values in, so only where vpush knows it, over one
        task and fewer than :data:`MODE_GROUPS_LIMIT` groups (a hash aggregation falls back to sorting past
        128 groups: refused at run time there; a UNION ALL's branches are tasks of their own).
        With GROUP BY each group's buffer is merged alone into its final one, as without."""
        duck = {"tinyint": "INTEGER", "smallint": "INTEGER", "int": "INTEGER", "bigint": "BIGINT", "string": "VARCHAR",
                "boolean": "BOOLEAN", "date": "DATE"}.get(source.to_spark() if source is not None else "")
        why = "mode(x) or mode(x, false), whose ties Spark breaks by the order of its hash map (mode(x, true) is answered)"
        select = self.typer.scope.expression
        if duck is None:
            _refuse("mode", f"{why}, of a {source.to_spark() if source is not None else 'value of a type vpush does not know'}")
        if not isinstance(select, exp.Select):
            _refuse("mode", f"{why}, outside a SELECT")
        group = select.args.get("group")
        if group is not None and (select.args.get("having") is not None or any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets"))
                                  or any(isinstance(e, (exp.Rollup, exp.Cube, exp.GroupingSets)) for e in group.expressions)):
            _refuse("mode", f"{why}, with HAVING, ROLLUP, CUBE or GROUPING SETS")
        order = scan_order(self.typer.scope)
        mode = ordered_mode(value, duck, order) if order is not None else None
        if mode is None:
            _refuse("mode", f"{why}, over rows whose order in Spark vpush does not know (a join, a UNION ALL)")
        assert source is not None and duck is not None  # for mypy: refused above
        self.functions[MODE_FUNCTIONS[duck]] = source
        answer = exp.cast(mode, _sql_type(source)) if duck == "INTEGER" and source != AtomicType("int") else mode
        if group is None:
            return answer
        # Past 127 groups in a task Spark's hash aggregation may fall back to sorting, whose
        # buffers are serialized and merged once more: refused when the query meets so many
        groups = exp.Window(this=exp.Count(this=exp.Star()), over="OVER")
        message = f"mode: the DuckDB engine does not give Spark's answer for {why}, over {MODE_GROUPS_LIMIT} groups or more yet; the Spark engine runs it"
        return exp.Case(
            ifs=[exp.If(this=exp.GTE(this=groups, expression=exp.Literal.number(MODE_GROUPS_LIMIT)),
                        true=spark_error("VPUSH_UNSUPPORTED_FUNCTION", message, _sql_type(source)))],
            default=answer,
        )

    def _exact_percentile(self, node: exp.Expr, window: exp.Window | None) -> exp.Expr:
        """Spark's ``percentile``/``median`` or ``percentile_cont``/``percentile_disc ... WITHIN
        GROUP`` (``node``), over ``window`` where one is given (its values collected over it)."""
        continuous = _percentile_cont(node)
        if continuous is None:
            assert isinstance(node, (exp.Quantile, exp.Median))
            return self._percentile(node, window=window)
        value, percentage, descending, discrete = continuous
        called = "percentile_disc" if discrete else "percentile_cont"
        source = self.typer.of(value)
        if source is None or not (_is_integral(source) or _is_fractional(source) or isinstance(source, (DecimalType, StringType))):
            _refuse(called, f"a `{called}` of a {source.to_spark() if source else 'type vpush does not know'}")
        return self._percentile(exp.Quantile(this=value.copy(), quantile=percentage.copy()), reverse=descending,
                                discrete=discrete, window=window)

    def _percentile(self, node: exp.Quantile | exp.Median, *, reverse: bool = False, discrete: bool = False,
                    window: exp.Window | None = None) -> exp.Expr:
        """Spark's exact ``percentile``/``median``: interpolated between neighbours as
        ``quantile_cont`` does, over the values as doubles (DuckDB interpolates decimals in the
        decimal type, rounded to its scale, and keeps it)."""
        called = "median" if isinstance(node, exp.Median) else "percentile"
        value = node.this
        source = self.typer.of(value)
        if source is not None and not (_is_integral(source) or _is_fractional(source) or isinstance(source, DecimalType)):
            _refuse(called, f"a `{called}` of a {source.to_spark()}")
        quantile = exp.Literal.number("0.5") if isinstance(node, exp.Median) else node.args["quantile"]
        for part in quantile.expressions if isinstance(quantile, exp.Array) else [quantile]:
            number = _number_literal(part)
            if number is not None and not 0 <= number <= 1:
                raise OptimizeError(
                    f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: The percentage must be '
                    f"between [0.0, 1.0] (current value = {number}D).",
                    error_class="DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                )
        return _spark_percentile(value, quantile, reverse, discrete, window)

    def _decimal_average(
        self, value: exp.Expr, arg: DecimalType, result: DecimalType, over: Callable[[exp.Expression], exp.Expression]
    ) -> exp.Expression:
        """Spark's ``Average`` of a decimal: the sum (``decimal(p+10,s)``) divided by the count
        straight to the result's scale, ``decimal(p+4,s+4)``, rounded HALF_UP (Spark's
        ``DecimalDivideWithOverflowCheck``), on unscaled 128-bit integers."""
        total_type = _bounded(arg.precision + 10, arg.scale)
        total = over(exp.Sum(this=value.copy()))
        count = over(exp.Count(this=value.copy()))
        numerator = _unscaled(total, total_type)
        shift = result.scale - total_type.scale
        # No rows (or only NULLs): Spark's average is NULL.
        empty = exp.EQ(this=count.copy(), expression=exp.Literal.number(0))
        if total_type.precision + shift <= MAX_DECIMAL_PRECISION:
            if shift:
                numerator = exp.Mul(this=numerator, expression=_pow10(shift))
            rounded = _round_div(numerator, _hugeint(count.copy()))
            return exp.Case(
                ifs=[exp.If(this=empty, true=exp.cast(exp.Null(), _sql_type(result)))],
                default=_from_unscaled(rounded, result),
            )
        # The sum times 10^shift may pass a HUGEINT (decimal(38,s) totals): the quotient's whole
        # part times 10^shift plus the rounded rest of the remainder; where the whole part alone
        # is past the result, Spark's NUMERIC_VALUE_OUT_OF_RANGE.
        whole = exp.IntDiv(this=exp.Paren(this=numerator), expression=_hugeint(count.copy()))
        rest = exp.Mod(this=exp.Paren(this=numerator.copy()), expression=_hugeint(count.copy()))
        scaled = exp.Add(
            this=exp.Mul(this=exp.Paren(this=whole.copy()), expression=_pow10(shift)),
            expression=_round_div(exp.Mul(this=exp.Paren(this=rest), expression=_pow10(shift)), _hugeint(count.copy())),
        )
        too_big = exp.GTE(this=exp.Abs(this=whole), expression=_pow10(result.precision - shift))
        message = f"The average cannot be represented as Decimal({result.precision}, {result.scale})."
        return exp.Case(
            ifs=[
                exp.If(this=empty, true=exp.cast(exp.Null(), _sql_type(result))),
                exp.If(this=too_big, true=spark_error("NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", message, _sql_type(result))),
            ],
            default=_from_unscaled(scaled, result),
        )


def _values_types(values: exp.Values, typer: _Typer) -> dict[str, SparkType | None]:
    """The types of a ``VALUES`` list's columns (named by its alias): a column's type where every
    row's value that is not NULL has that one type (Spark widens values of different types)."""
    alias = values.args.get("alias")
    names = [c.name.lower() for c in alias.columns] if isinstance(alias, exp.TableAlias) else []
    rows = [r.expressions if isinstance(r, exp.Tuple) else [r] for r in values.expressions]
    out: dict[str, SparkType | None] = {}
    for k, name in enumerate(names):
        kinds = {typer.of(row[k]) for row in rows if k < len(row) and not isinstance(row[k], exp.Null)}
        if len(kinds) > 1 and all(isinstance(t, AtomicType) and t.name in _INTEGRAL for t in kinds):
            kinds = {max(kinds, key=lambda t: _INTEGRAL.index(t.name) if isinstance(t, AtomicType) else 0)}  # widened
        out[name] = kinds.pop() if len(kinds) == 1 else None
    return out


def _star_types(
    star: exp.Expr, scope: Scope, columns: Mapping[str, Mapping[str, SparkType | None]], produced: dict[str, SparkType | None]
) -> None:
    """The columns ``*`` (or ``t.*``) selects, with their types, into ``produced``: a name two
    sources share is left untyped, as is any source whose columns vpush does not know."""
    stars = star.this if isinstance(star, exp.Column) else star
    if (stars.args.get("replace") and not stars.meta.get(_NORMALIZED_STAR)) or stars.args.get("rename"):
        return
    seen: set[str] = set()
    for _, name, of_type in _star_sources_columns(star, scope, columns):
        produced[name] = None if name in seen else of_type
        seen.add(name)


def _star_sources_columns(
    star: exp.Expr, scope: Scope, columns: Mapping[str, Mapping[str, SparkType | None]]
) -> Iterator[tuple[str, str, SparkType | None]]:
    """The columns ``*`` (or ``t.*``) selects, each with its source's alias and its type, in order."""
    stars = star.this if isinstance(star, exp.Column) else star
    table = star.table if isinstance(star, exp.Column) else None
    excepted = {e.name.lower() for e in (stars.args.get("except_") or [])}
    # vpush's own columns (a scan's extractions) stay out of a star, but for one that passes its
    # table's rows on through a sample's LIMIT to the SELECT reading those extractions
    passing = isinstance(star.parent, exp.Select) and passes_rows(star.parent)
    for alias in [table] if table else list(scope.selected_sources):
        for name, of_type in columns.get(alias.lower(), {}).items():
            if not (name == "*" or name in excepted or (name.startswith("__vpush") and not passing)):
                yield alias, name, of_type


def _star_struct(star: exp.Expr, select: exp.Select, typer: _Typer) -> tuple[exp.Column, list[exp.Identifier], StructType] | None:
    """The struct a star of a struct's fields reads (``s.*``, ``s.b.*``, ``t.s.b.*``): its read
    (resolved where the star stands, not entered in the tree), the names before the star, and its
    type; None for a star of a table's columns (``*``, ``t.*``) or a read vpush cannot type."""
    parts = star.parts if isinstance(star, exp.Column) else []
    names = [p for p in parts[:-1] if isinstance(p, exp.Identifier)]
    if not names or len(names) != len(parts) - 1 or len(names) > 4:
        return None
    base = exp.column(*[n.copy() for n in reversed(names)])
    base.parent = select
    struct = typer.of(base)
    return (base, names, struct) if isinstance(struct, StructType) else None


def _expand_struct_call_stars(call: exp.Struct, select: exp.Select, typer: _Typer) -> None:
    """``struct(s.*)`` (``struct(id, s.b.*)``): the star replaced by the struct's fields, each
    named after its field, as Spark's analyzer expands it (``struct(s.a AS a, s.b AS b)``, its
    name too); DuckDB takes no star inside a call. A star of a table's columns (``struct(*)``,
    ``struct(t.*)``) is refused: the typer keeps no column names as written."""
    expanded: list[exp.Expr] = []
    for argument in call.expressions:
        if argument.is_star:
            found = _star_struct(argument, select, typer)
            if found is None:
                _refuse("struct", "a star of a table's columns (`struct(*)`, `struct(t.*)`)")
            assert found is not None  # for mypy: refused above
            base, names, struct = found
            for f in struct.fields:
                read: exp.Expr = (exp.column(exp.to_identifier(f.name), table=names[0].copy()) if len(names) == 1
                                  else exp.Dot(this=base.copy(), expression=exp.to_identifier(f.name)))
                expanded.append(exp.PropertyEQ(this=exp.to_identifier(f.name), expression=read))
        else:
            expanded.append(argument)
    if len(expanded) != len(call.expressions) or any(a is not b for a, b in zip(expanded, call.expressions)):
        call.set("expressions", expanded)
        traced = call.meta.get(SPARK_CALL)
        if traced is not None:
            # the trace points at the expanded arguments, each where it stands
            call.meta[SPARK_CALL] = (traced[0], tuple((("expressions", k),) for k in range(len(expanded))))


def _holds_struct(of_type: SparkType | None) -> bool:
    """Whether ``of_type`` is a struct or holds one (in an array or a map)."""
    if isinstance(of_type, ArrayType):
        return _holds_struct(of_type.element)
    if isinstance(of_type, MapType):
        return _holds_struct(of_type.key) or _holds_struct(of_type.value)
    return isinstance(of_type, StructType)


def _struct_cast_mismatch(source: SparkType | None, target: SparkType | None) -> str | None:
    """Where a cast from ``source`` to ``target`` casts a struct to a struct otherwise than DuckDB
    does: ``"count"`` for another number of fields (Spark's analysis refuses the cast),
    ``"names"`` for other field names (Spark casts field by field in order, DuckDB matches them
    by name); None where neither, inside arrays and maps too."""
    if isinstance(source, ArrayType) and isinstance(target, ArrayType):
        return _struct_cast_mismatch(source.element, target.element)
    if isinstance(source, MapType) and isinstance(target, MapType):
        return _struct_cast_mismatch(source.key, target.key) or _struct_cast_mismatch(source.value, target.value)
    if not (isinstance(source, StructType) and isinstance(target, StructType)):
        return None
    if len(source.fields) != len(target.fields):
        return "count"
    inner = [_struct_cast_mismatch(a.type, b.type) for a, b in zip(source.fields, target.fields)]
    if "count" in inner:
        return "count"
    if any(a.name.lower() != b.name.lower() for a, b in zip(source.fields, target.fields)) or "names" in inner:
        return "names"
    return None


def _expand_nested_struct_stars(select: exp.Select, typer: _Typer) -> None:
    """Replace each ``s.b.*`` (``t.s.b.*``) projection, the fields of a struct inside a struct, by
    its fields in order, each named after its field, as Spark's star of a struct expands it
    (DuckDB's parser takes no more than one name before a star; ``s.*`` it expands itself)."""
    for struct_call in [n for p in select.expressions for n in p.find_all(exp.Struct)]:
        _expand_struct_call_stars(struct_call, select, typer)
    for projection in list(select.expressions):
        if not (isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star) and projection.args.get("db")):
            continue
        found = _star_struct(projection, select, typer)
        if found is None:
            continue
        base, _, struct = found
        star = projection.this
        if any(star.args.get(k) for k in ("replace", "rename", "ilike")):
            _refuse(projection.sql(dialect="spark"), "a struct's star with REPLACE, RENAME or ILIKE")
        dropped = [c.name.lower() for c in star.args.get("except_") or []]
        names = [f.name.lower() for f in struct.fields]
        if any(not isinstance(c, exp.Column) or c.table for c in star.args.get("except_") or []) or any(
                names.count(name) != 1 for name in dropped) or len(set(dropped)) < len(dropped):
            _refuse(projection.sql(dialect="spark"), "a struct's star whose EXCEPT list names other than its fields, once each")
        fields = [
            exp.alias_(exp.Dot(this=base.copy(), expression=exp.to_identifier(f.name, quoted=True)), exp.to_identifier(f.name, quoted=True))
            for f in struct.fields if f.name.lower() not in dropped
        ]
        at = select.expressions.index(projection)
        select.set("expressions", select.expressions[:at] + fields + select.expressions[at + 1:])


def _is_plain(node: exp.Expr) -> bool:
    """A column or a literal, or one cast, negated or in parentheses."""
    if isinstance(node, (exp.Cast, exp.Paren, exp.Neg)):
        return _is_plain(node.this)
    return isinstance(node, (exp.Column, exp.Literal, exp.Null))


def _drop_constant_sort_keys(expression: exp.Expr) -> None:
    """Drop the ORDER BY keys of a query that are literals other than integers (``ORDER BY 1.5``,
    ``ORDER BY 'a'``, ``ORDER BY NULL``): Spark sorts by them to no effect (only an integer names a
    place), where DuckDB's binder refuses them. In place."""
    for order in list(expression.find_all(exp.Order)):
        if not isinstance(order.parent, (exp.Select, exp.SetOperation)) or order.arg_key != "order":
            continue
        kept = []
        for ordered in order.expressions:
            key = _unparen(ordered.this if isinstance(ordered, exp.Ordered) else ordered)
            constant = isinstance(key, (exp.Null, exp.Boolean)) or (isinstance(key, exp.Literal) and not key.is_int)
            if not constant:
                kept.append(ordered)
        if not kept:
            order.pop()
        elif len(kept) != len(order.expressions):
            order.set("expressions", kept)


def _check_result_clauses(select: exp.Select) -> None:
    """Spark's errors for what its ``RepartitionByExpression`` (DISTRIBUTE BY) and ``Sort``
    (SORT BY) cannot hold, but windows (:func:`_check_order_by_windows`): a generator, over an
    aggregation a column neither an output nor grouped (but inside a SORT BY's aggregate, which
    Spark adds to the aggregation where no DISTRIBUTE BY or HAVING stands between, and else refuses), a
    position past the SELECT list. vpush left both clauses to the engine, which had answered."""
    distribute, sort = select.args.get("distribute"), select.args.get("sort")
    aggregated = _aggregating(select)
    # over an aggregation the clauses read its outputs and grouped columns: known where the
    # GROUP BY lists plain columns only
    group = select.args.get("group")
    keys = list(group.expressions) if group is not None and not any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets", "all")) else []
    outputs = {p.alias_or_name.lower() for p in select.expressions} | {k.name.lower() for k in keys if isinstance(k, exp.Column)}
    only_outputs = aggregated and group is not None and all(isinstance(k, exp.Column) for k in keys)
    clauses = [(clause, operator, [n for o in clause.expressions for n in in_scope(o)])
               for clause, operator in ((distribute, "RepartitionByExpression"), (sort, "Sort")) if clause is not None]
    # a SORT BY's aggregate is added to the aggregation only where it stands right over it (no
    # DISTRIBUTE BY or HAVING between them)
    added = aggregated and distribute is None and select.args.get("having") is None
    for clause, _, nodes in clauses:
        for node in nodes:
            if only_outputs and isinstance(node, exp.Column) and node.name.lower() not in outputs and not (
                sort is not None and clause is sort and added and under_aggregate(node, sort, windows=True)
            ):
                shown = ", ".join(f"`{p.alias_or_name}`" for p in select.expressions)
                raise OptimizeError(
                    f"A column, variable, or function parameter with name `{node.name}` cannot be resolved. "
                    f"Did you mean one of the following? [{shown}].",
                    error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION",
                )
    for clause, operator, nodes in clauses:
        for node in nodes:
            if is_generator(node):
                raise OptimizeError(
                    f"The generator is not supported: outside the SELECT clause, found: {operator} [{node.sql('spark')}].",
                    error_class="UNSUPPORTED_GENERATOR.OUTSIDE_SELECT",
                )
            if (clause is distribute or (aggregated and not added)) and isinstance(node, exp.AggFunc) and not isinstance(node.parent, exp.Window):
                # (a window, and a SORT BY's aggregate of a SELECT that aggregates nothing: _check_order_by_windows)
                raise OptimizeError(
                    f"The query operator {operator} contains one or more unsupported expressions. Consider to rewrite it to "
                    "avoid window functions, aggregate functions, and generator functions in the "
                    f"{operator} operator. Invalid expressions: [\"{node.sql('spark')}\"]",
                    error_class="UNSUPPORTED_EXPR_FOR_OPERATOR",
                )
    if sort is not None:
        _check_sort_ordinals(select, sort)
        _inline_sort_aliases(select, sort)


def _inline_sort_aliases(select: exp.Select, sort: exp.Sort) -> None:
    """A SORT BY's name of one of the SELECT's aliases (of a plain expression) as the expression,
    in place: Spark's ``Sort`` reads the SELECT's outputs first, so ``SELECT id AS k FROM t SORT
    BY cast(k AS int)`` casts the alias, not a source column ``k`` (the ORDER BY it becomes
    follows the ORDER BY's rewrite of aliases, which has run by then)."""
    aliases = {
        p.alias.lower(): p.this for p in select.expressions
        if isinstance(p, exp.Alias) and not any(isinstance(n, (exp.Window, exp.AggFunc)) or is_generator(n) for n in in_scope(p.this))
    }
    for ordered in sort.expressions:
        for column in [c for c in in_scope(ordered) if isinstance(c, exp.Column) and not c.table and isinstance(c.this, exp.Identifier)]:
            found = aliases.get(column.name.lower())
            if found is not None and not _bound_by_lambda(column):
                if column is ordered.this:
                    ordered.set("this", exp.Paren(this=found.copy()))
                else:
                    column.replace(exp.Paren(this=found.copy()))


def _sorts_as_orders(expression: exp.Expr) -> None:
    """A query's SORT BY keys that read a column, and its positions, as ORDER BY keys, in place
    (rewritten as the other clauses' by then): Spark computes them for every row (a strict cast
    or an overflow in one raises), where DuckDB, which has neither SORT BY nor DISTRIBUTE BY,
    left them out. Spark's order of rows under them is each partition's own; for one partition
    it is this ORDER BY's. A DISTRIBUTE BY's keys are left out still (an ORDER BY of them would
    not be Spark's order of one partition)."""
    for query in list(expression.find_all(exp.Select, exp.SetOperation)):
        distribute, sort = query.args.get("distribute"), query.args.get("sort")
        if distribute is None and sort is None:
            continue
        keys = [o for o in sort.expressions if any(isinstance(n, exp.Column) for n in in_scope(o)) or (
            isinstance(o.this, exp.Literal) and o.this.is_int)] if sort is not None else []
        query.set("distribute", None)
        query.set("sort", None)
        if keys and query.args.get("order") is None:
            query.set("order", exp.Order(expressions=keys))


def apply_spark_semantics(
    expression: exp.Expr,
    tables: Mapping[int, Mapping[str, SparkType | None]],
    functions: dict[str, SparkType] | None = None,
) -> exp.Expr:
    """Rewrite ``expression`` (Spark SQL, before its tables become scans) so that DuckDB gives
    Spark's result types, values, arithmetic errors and projection names.

    Args:
        expression: the query; its variant extractions may already be scan columns.
        tables: per table node (``id(node)``), its columns' Spark types by lower-cased name.
        functions: where the engine functions the rewrite calls are recorded (name -> result
            type), for the engine to create.
    """
    functions = {} if functions is None else functions
    _drop_constant_sort_keys(expression)
    rewrite_range_tables(expression)
    rewrite_pivots(expression)
    rewrite_generator_tables(expression)
    rewrite_generators_after_aggregation(expression)
    prune_from_json(expression)
    try:
        scopes = list(traverse_scope(expression))
    except Exception:  # sqlglot cannot scope this query: leave it as DuckDB runs it
        return expression
    outputs: dict[int, dict[str, SparkType | None]] = {}  # by id of a scope's query, which `scopes` keeps alive
    for scope in scopes:
        columns = _sources_columns(scope, tables, outputs)
        select = scope.expression
        if isinstance(select, exp.SetOperation):
            _check_limits(select, _Typer(scope, {}))
            _check_order_by_windows(select)
            left, right = (_with_null_projections(branch, outputs.get(id(branch), {})) for branch in (select.left, select.right))
            _check_set_operation(select, left)
            if select.args.get("distinct") is not False or not isinstance(select, exp.Union):
                refuse_distinct_sessions(list(left.values()))
            # Spark's output takes the first branch's metadata, its window marker too
            markers = {key: t.marker for key, t in left.items() if isinstance(t, StructType) and t.marker is not None}
            set_rewriter = _Rewriter(_Typer(scope, {}), functions)

            def nested_cast(value: exp.Expr, kind: SparkType, target: SparkType) -> exp.Expr:
                return set_rewriter._nested_cast(value, kind, target, False)

            for i, target in _widen_set_operation(select, left, right, functions, nested_cast):
                left[list(left)[i]] = target
                right[list(right)[i]] = target
            # A column's type is known only where both branches agree, or one is NULL (Spark widens otherwise).
            others = list(right.values())
            outputs[id(select)] = {
                name: t if i < len(others) and others[i] in (t, VOID) else (others[i] if t == VOID and i < len(others) else None)
                for i, (name, t) in enumerate(left.items())
            }
            for key, marker in markers.items():
                outputs[id(select)][key] = marked(outputs[id(select)][key], marker)
                if outputs[id(select)][key] is None and marker == SESSION_WINDOW_MARKER:
                    # a GROUP BY of it would merge the sessions
                    _refuse("session_window", "sessions in a set operation whose type vpush does not widen")
            continue
        if isinstance(select, exp.Values):
            typer = _Typer(scope, {})
            outputs[id(select)] = _values_types(select, typer)
            for row in select.expressions:  # the literals as Spark types them (-2147483648 an int)
                for cell in list(row.expressions if isinstance(row, exp.Tuple) else [row]):
                    if _negative_integer_literal(cell) is not None or (isinstance(cell, exp.Cast) and _negative_zero(cell)):
                        _transform(cell, _Rewriter(typer, functions))
            continue
        if not isinstance(select, exp.Select):
            continue
        typer = _Typer(scope, columns)
        typer.subquery_outputs = outputs
        rewriter = _Rewriter(typer, functions)
        settle_pivot(select, typer._part)  # a cell that is a predicate (max(b) > 5) is a boolean
        _strings_to_doubles(select, typer)
        select.meta[SORTS_KEPT] = spark_keeps_sorts(select, lambda node: typer.of(node) in _FLOATING)
        select.meta[OBJECT_HASH] = object_hash_aggregation(select)
        select.meta[SORT_AGGREGATE] = radix_sort_aggregation(select, typer.of)
        select.meta[_ONE_WINDOW_SORT] = len({_window_sort(w) for w in in_scope(select) if isinstance(w, exp.Window)}) <= 1
        _implicit_casts(select, typer)
        _datetime_try_operations(select, typer)
        # Time windows and generators become lateral joins first: the rest of the SELECT reads their columns.
        columns.update(rewrite_time_windows(select, typer.of, lambda node: _transform(node, rewriter)))
        check_window_times(select, typer.of)
        grouped_session(select, typer.of)

        def generated(found: Mapping[str, Mapping[str, SparkType]]) -> None:
            columns.update(found)
            # what read the generators' columns before they were known (sum(it.qty) of a LATERAL
            # VIEW's struct, typed by the implicit casts above; a later view's argument) is typed again
            for key in [key for key, kind in typer.types.items() if kind is None]:
                del typer.types[key]

        produced_columns = rewrite_generators(select, typer.of, lambda node: _transform(node, rewriter), generated)
        if produced_columns:
            generated(produced_columns)
        _expand_nested_struct_stars(select, typer)
        _check_resolved(select, scope, columns)
        for call in in_scope(select):
            if DEFERRED_ARITY_ERROR in call.meta:
                raise call.meta[DEFERRED_ARITY_ERROR]
        _check_correlated_variants(scope, columns)
        _check_subquery_places(select, scope, tables, outputs)
        _check_distinct_order(select)
        _check_group_by_present(select, typer)
        _check_order_by_grouped(select)
        _check_qualify_aggregates(select)
        _check_qualify_windows(select)
        _check_result_clauses(select)
        _check_semi_joined_columns(select)
        _check_field_bases(select, scope, columns, _outer_names(scope, tables, outputs))
        _check_array_fields(select, typer)
        check_order_by_aggregates(select)
        _order_by_source_columns(select, scope, columns)
        _check_orderable(select, typer)
        _check_limits(select, typer)
        _check_arithmetic(select, typer)
        _check_filters_are_boolean(select, typer)
        _coerce_having_aliases_of_columns(select, typer)
        # comparisons Spark decides without computing their expression (the projections' once named)
        for key, value in select.args.items():
            for part in value if isinstance(value, list) else [value]:
                if key != "expressions" and isinstance(part, exp.Expr):
                    unwrap_cast_comparisons(part, typer.of)
        drop_rows_under_false_filters(select)
        rename_duplicate_columns(select, scope)  # before a star over a join USING reads a subquery's names
        expand_using_stars(select, scope, columns)
        _spell_out_with_rollup(select)
        float_keys = _float_group_keys(select, typer, columns)
        _check_aliases_in_aggregates(select, columns)
        _check_order_by_windows(select)
        _inline_aggregate_aliases(select, columns)
        produced: dict[str, SparkType | None] = {}
        projected: list[SparkType | None] = []  # each projection's type, by its place (a star's None)
        lateral: dict[str, exp.Expr] = {}
        for index, projection in enumerate(list(select.expressions)):
            if projection.is_star:
                _star_types(projection, scope, columns, produced)  # the sources' columns, for a SELECT over this one
                projected.append(None)
                continue
            _inline_lateral_aliases(projection, lateral, typer)
            projection = select.expressions[index]  # (a lateral alias's field read in its place: `q.a`)
            produced[projection.alias_or_name.lower()] = projected_type(projection, typer.of(projection))
            projected.append(produced[projection.alias_or_name.lower()])
            name = written = None
            if isinstance(projection, exp.Column) and isinstance(projection.this, exp.Identifier) and projection.name != projection.name.lower():
                name = projection.name  # Spark names a column as the query writes it (`I` of a column i)
            if not isinstance(projection, (exp.Alias, exp.Column, exp.Star)):
                _mark_typed_names(projection, typer)
                name = spark_name(projection)
                if name is None and projection.find(ToVariantObject, VariantSet, VariantInsert, VariantArrayAppend, exp.JSONFormat) is not None:
                    from vpush.optimizer.rewrite_variants import spark_function_name

                    name = spark_function_name(projection)
                try:
                    # (quietly: what DuckDB cannot take, approx_count_distinct's deviation, is rewritten below)
                    written = projection.sql(dialect="duckdb", unsupported_level=ErrorLevel.IGNORE)
                except ValueError:  # sqlglot cannot write it for DuckDB (get_json_object(j, '$..a')): the rewrite decides
                    written = None
            _type_variant_objects(projection, typer)
            projection = unwrap_cast_comparisons(projection, typer.of)
            if isinstance(projection, exp.Alias):
                lateral[projection.alias.lower()] = projection.this.copy()  # as written, for the projections after it
            done = _transform(projection, rewriter)
            if name is None and isinstance(projection, exp.Column) and not isinstance(done, exp.Column):
                name = projection.name  # a field of an array's structs (x.a), now each element's: `a`
            if name is None and written is not None and done.sql(dialect="duckdb") != written:
                name = written  # no Spark name known: keep the one DuckDB gives the expression as written
            if name is not None:
                name = name or EMPTY_NAME
                # the projection itself under the alias, not a copy: a subquery's tables in it are
                # found again by identity when they become scans
                wrap_in_place(done, exp.Alias(alias=exp.to_identifier(name, quoted=True)))
        _inline_having_aliases(select, lateral, typer)
        order_types = [(o, typer.of(o.this)) for o in (select.args.get("order") or exp.Order()).expressions if isinstance(o, exp.Ordered)]
        for key in ("where", "group", "having", "order", "qualify", "distribute", "sort"):
            part = select.args.get(key)
            if part is not None:
                _type_variant_objects(part, typer)
                token = _OPERANDS_IN_PLACE.set(key == "having")
                try:
                    _transform(part, rewriter)
                finally:
                    _OPERANDS_IN_PLACE.reset(token)
        for join in select.args.get("joins") or []:
            # a join's condition as the WHERE's (b.arr.sku of an array's structs, element_at, ...)
            condition = join.args.get("on")
            if condition is not None:
                _type_variant_objects(condition, typer)
                join.set("on", _transform(condition, rewriter))
        for ordered, of_type in order_types:
            sort_key = nested_sort_key(ordered.this, of_type)
            if sort_key is not None:
                ordered.set("this", sort_key)
        _normalize_float_keys(select, float_keys)
        parent = select.parent
        if (select.args.get("distinct") is not None and select.args.get("group") is None) or (
                isinstance(parent, exp.SetOperation) and parent.args.get("distinct") and select.arg_key in ("this", "expression")):
            _normalize_float_projections(select, projected, scope, columns)
        merge_sessions(select, columns)
        _inline_qualify_window_aliases(select, columns)
        _window_keys_raise_steadily(select)
        _filtered_arguments_raise_when_kept(select)
        mark_radix_sort(select, columns)
        outputs[id(select)] = produced
    _sorts_as_orders(expression)
    return pin_integer_arithmetic(expression)


class ExpressionTypes:
    """The Spark types of the nodes of a statement as parsed (before any rewrite), as the typer
    of :func:`apply_spark_semantics` types them from the registered tables' column types and
    each subquery's or CTE's projections. Reads the tree only.

    Example:
        >>> from vpush.optimizer.plan_query import parse_spark
        >>> query = parse_spark("SELECT x FROM (SELECT d + 1 AS x FROM t) WHERE x > 1")
        >>> table = next(query.find_all(exp.Table))
        >>> types = ExpressionTypes(query, {id(table): {"d": AtomicType("double")}})
        >>> types.of(query.args["where"].this.this), types.reads_table(query.args["where"].this.this)
        (AtomicType(name='double'), False)
    """

    def __init__(self, expression: exp.Expr, tables: Mapping[int, Mapping[str, SparkType | None]]) -> None:
        self._tables = tables
        self._typers: dict[int, _Typer] = {}
        try:
            scopes = list(traverse_scope(expression))
        except Exception:  # sqlglot cannot scope this query: nothing is typed
            scopes = []
        outputs: dict[int, dict[str, SparkType | None]] = {}
        for scope in scopes:
            select = scope.expression
            if isinstance(select, exp.SetOperation):
                left, right = (outputs.get(id(branch), {}) for branch in (select.left, select.right))
                others = list(right.values())
                # a column's type is known where both branches agree (Spark widens otherwise)
                outputs[id(select)] = {name: t if i < len(others) and others[i] == t else None for i, (name, t) in enumerate(left.items())}
            elif isinstance(select, exp.Select):
                typer = self._typers[id(select)] = _Typer(scope, _sources_columns(scope, tables, outputs))
                typer.subquery_outputs = outputs
                outputs[id(select)] = {p.alias_or_name.lower(): _typed_or_none(typer, p) for p in select.expressions if p.alias_or_name}

    def of(self, node: exp.Expr) -> SparkType | None:
        """``node``'s Spark type; None where vpush does not know it."""
        typer = self._typer(node)
        return _typed_or_none(typer, node) if typer is not None else None

    def reads_table(self, column: exp.Column) -> bool:
        """Whether ``column`` surely reads a column of a registered table (a source of its
        SELECT, the one that has the name)."""
        typer = self._typer(column)
        if typer is None or not isinstance(column.this, exp.Identifier) or column.args.get("db"):
            return False
        name, sources = column.name.lower(), typer.scope.sources
        if column.table:
            source = sources.get(column.table) or sources.get(column.table.lower())
            return isinstance(source, exp.Table) and name in self._tables.get(id(source), {})
        having = [s for alias, s in typer.scope.selected_sources.items() if name in typer.source_columns(alias)]
        unknown = [alias for alias, (_, s) in typer.scope.selected_sources.items() if not isinstance(s, exp.Table) and not typer.source_columns(alias)]
        return len(having) == 1 and not unknown and isinstance(having[0][1], exp.Table)

    def _typer(self, node: exp.Expr) -> _Typer | None:
        select = node if isinstance(node, exp.Select) else node.find_ancestor(exp.Select)
        return self._typers.get(id(select)) if select is not None else None


def _typed_or_none(typer: _Typer, node: exp.Expr) -> SparkType | None:
    """``typer``'s type of ``node``, None where typing it raises (an error its rewrite reports)."""
    try:
        return typer.of(node)
    except (OptimizeError, ValueError, TypeError, KeyError, AttributeError):
        return None


def fold_comparisons_of_extractions(
    expression: exp.Expr, extractions: set[int], name_projection: Callable[[exp.Expr], str]
) -> None:
    """The comparisons of variant extractions that Spark's optimizer decides without computing them
    (:mod:`vpush.optimizer.spark_unwrap_casts`: ``variant_get(v, '$.a', 'int') = 3000000000``),
    made ``FALSE`` before the extractions are placed on scans, so that no scan computes them: a
    scan computes each of its extractions for every row it reads (and the Spark engine's scan
    raises there for a value that does not cast), where Spark computes none of these. Only
    comparisons whose columns are all read through the extractions ``extractions`` (``id()`` of
    their nodes; no other column Spark's analyzer would check goes), and not the ANDs and ORs
    around them (Spark folds those itself after analyzing them; on DuckDB,
    :func:`apply_spark_semantics` does). A column of a subquery (or of a CTE) that reads
    only extractions counts as read through them (:func:`_derived_extractions`); such a column
    nothing reads any more is then dropped, as Spark's ``ColumnPruning`` drops it before its scan
    would compute it (:func:`_prune_unread_extractions`). An unaliased projection where one folds
    is named first by ``name_projection``, as Spark names it. In place.
    """
    try:
        scopes = list(traverse_scope(expression))
    except Exception:  # sqlglot cannot scope this query: apply_spark_semantics leaves it too
        return
    derived_of: dict[int, dict[str, dict[str, exp.Expr]]] = {}
    for scope in scopes:
        select = scope.expression
        if not isinstance(select, exp.Select):
            continue
        derived = derived_of[id(scope)] = _derived_extractions(scope, extractions)

        def through_extractions(node: exp.Expr, scope: Scope = scope, derived: dict[str, dict[str, exp.Expr]] = derived) -> bool:
            columns = list(node.find_all(exp.Column))
            return bool(columns) and all(
                any(id(a) in extractions for a in _ancestors(c, node)) or _read_extraction(c, scope, derived) is not None
                for c in columns)

        # the extractions are typed by their targets; a derived table's column by its extraction's
        typer = _Typer(scope, {alias: {name: _Typer(scope, {}).of(node) for name, node in names.items()} for alias, names in derived.items()})
        for value in list(select.args.values()):
            for part in value if isinstance(value, list) else [value]:
                if not isinstance(part, exp.Expr):
                    continue
                if not folded_comparisons(part, typer.of, only=through_extractions):
                    continue
                if part.arg_key == "expressions" and not isinstance(part, exp.Alias):
                    name = name_projection(part)
                    if not name:
                        continue
                    part = wrap_in_place(part, exp.Alias(alias=exp.to_identifier(name, quoted=True)))
                unwrap_cast_comparisons(part, typer.of, only=through_extractions, fold_around=False)
    for scope in reversed(scopes):  # the outer queries first: a pruned column may free the one it read
        if id(scope) in derived_of:
            _prune_unread_extractions(scope, derived_of[id(scope)])


def _derived_extractions(scope: Scope, extractions: set[int]) -> dict[str, dict[str, exp.Expr]]:
    """Per derived table of ``scope`` (its alias, lower case; a subquery, or a CTE each of whose
    references is a SELECT's source; not one whose SELECT has a ``*``), its columns (by name) that read only ``extractions``:
    an expression whose every column is inside one of them (no aggregate, window or subquery), or
    a column of a derived table of its own that does; the expression of each."""
    out: dict[str, dict[str, exp.Expr]] = {}
    for alias, (_, source) in scope.selected_sources.items():
        if not isinstance(source, Scope) or not isinstance(source.expression, exp.Select):
            continue
        if not source.is_derived_table and not (source.is_cte and _cte_readers(source.expression)):
            continue
        projections = source.expression.expressions
        if any(p.is_star for p in projections):
            continue
        inner = _derived_extractions(source, extractions)
        names = [p.alias_or_name.lower() for p in projections]
        found: dict[str, exp.Expr] = {}
        for projection, name in zip(projections, names):
            value = projection.unalias().unnest()
            if names.count(name) != 1:
                continue  # a name two columns have: Spark's reference to it is ambiguous
            columns = list(value.find_all(exp.Column))
            if isinstance(value, exp.Column):
                read = _read_extraction(value, source, inner)
                if read is not None:
                    found[name] = read
            elif columns and value.find(exp.AggFunc, exp.Window, exp.Select, exp.Subquery) is None and all(
                any(id(a) in extractions for a in _ancestors(c, value)) for c in columns
            ):
                found[name] = value
        out[alias.lower()] = found
    return out


def _cte_readers(select: exp.Select) -> list[exp.Select]:
    """The SELECTs that read the CTE whose query is ``select`` (each once, in the query's order),
    or none where a reference to it is not a source of a SELECT."""
    cte = select.parent
    if not isinstance(cte, exp.CTE):
        return []
    name = cte.alias.lower()
    readers: list[exp.Select] = []
    for table in select.root().find_all(exp.Table):
        if table.db or table.name.lower() != name:
            continue
        reader = table.parent_select
        if not isinstance(reader, exp.Select):
            return []
        if all(reader is not r for r in readers):
            readers.append(reader)
    return readers


def _read_extraction(column: exp.Column, scope: Scope, derived: Mapping[str, Mapping[str, exp.Expr]]) -> exp.Expr | None:
    """The extraction a column of ``scope`` reads from one of its derived tables
    (:func:`_derived_extractions`), or None: qualified by the table's alias, or unqualified where
    that table is the scope's only source."""
    parts = column.parts
    if isinstance(column.this, exp.Star) or len(parts) > 2:
        return None
    if column.table:
        return derived.get(column.table.lower(), {}).get(column.name.lower())
    if len(scope.selected_sources) != 1:
        return None  # another source may have a column of that name
    return next(iter(derived.values()), {}).get(column.name.lower())


def _prune_unread_extractions(scope: Scope, derived: Mapping[str, Mapping[str, exp.Expr]]) -> None:
    """Drop each column of a derived table of ``scope`` that is an extraction
    (:func:`_derived_extractions`) and that nothing reads (Spark's ``ColumnPruning``: Spark never
    computes it, where the scan would compute it for every row): not the query over it (no
    column of that name, no ``*``; for a CTE, every SELECT that reads it), nor the derived table's
    own SELECT (no lateral alias, no GROUP BY or ORDER BY naming it, or naming a position), which
    must not be DISTINCT and keeps one column at least. In place."""
    select = scope.expression
    if not isinstance(select, exp.Select) or any(j.args.get("using") or j.args.get("method") for j in select.args.get("joins") or []):
        return  # a join USING or NATURAL reads columns no Column names
    sources = {a.lower(): found for a, found in scope.selected_sources.items()}
    for alias, names in derived.items():
        node, source = sources[alias]
        if not isinstance(source, Scope) or not isinstance(source.expression, exp.Select):
            continue
        inner = source.expression
        group = inner.args.get("group")
        if (
            inner.args.get("distinct") is not None
            or (group is not None and group.args.get("all"))  # GROUP BY ALL groups by every column
            or any(n.args.get("pivots") for n in (node, node.parent) if isinstance(n, (exp.Table, exp.Subquery)))  # a PIVOT groups by the others
            or any(isinstance(k, exp.Literal) and k.is_int for key in ("group", "order") for k in (inner.args.get(key) or exp.Group()).expressions)
        ):
            continue
        # what reads the columns: this SELECT, or each SELECT that reads the CTE
        readers = _cte_readers(inner) if source.is_cte else [select]
        if any(j.args.get("using") or j.args.get("method") for reader in readers for j in reader.args.get("joins") or []):
            continue
        if any(not isinstance(star.parent, exp.Count) and not within(star, node) and not within(star, inner)
               for reader in readers for star in reader.find_all(exp.Star)):
            continue  # a `*` (or `s.*`, `struct(*)`) reads every column
        # a column of any part of that name (`n.a` reads a field of n): read
        outside = [c for reader in readers for c in reader.find_all(exp.Column) if not within(c, node) and not within(c, inner)]
        for name in names:
            if any(part.name.lower() == name for c in outside for part in c.parts):
                continue
            own = [p for p in inner.expressions if p.alias_or_name.lower() == name]
            rest = [p for p in inner.expressions if p not in own]
            if len(own) != 1 or not rest or any(c.name.lower() == name and not within(c, own[0]) for c in inner.find_all(exp.Column)):
                continue
            own[0].pop()


def _ancestors(node: exp.Expr, top: exp.Expr) -> list[exp.Expr]:
    """``node`` and its ancestors up to ``top`` (included)."""
    out = [node]
    while node is not top and node.parent is not None:
        node = node.parent
        out.append(node)
    return out


_FLOATING = (AtomicType("float"), AtomicType("double"))

# Spark's numeric functions and aggregates that take a string cast it to a double (its implicit
# cast: CAST_INVALID_INPUT for 'a'); DuckDB's binder refuses them. Those taking it in their
# first argument only, then those taking it in every argument.
_DOUBLE_FIRST_ARGUMENT = frozenset({"round", "bround", "ceil", "ceiling", "floor", "percentile_approx", "approx_percentile"})
_DOUBLE_ARGUMENTS = frozenset({
    "abs", "sqrt", "cbrt", "exp", "expm1", "ln", "log", "log10", "log2", "log1p", "pow", "power", "sign", "signum",
    "degrees", "radians", "asin", "acos", "atan", "atan2", "asinh", "acosh", "atanh", "hypot",
    "sum", "avg", "mean", "stddev", "std", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop",
    "skewness", "kurtosis", "regr_avgx", "regr_avgy",
})
_IMPLICIT_CAST = "vpush_implicit_cast"


def _strings_to_doubles(select: exp.Select, typer: _Typer) -> None:
    """Cast each string argument of Spark's numeric functions (:data:`_DOUBLE_ARGUMENTS`) and of
    a negation to a double, as Spark's analyzer does, before anything is typed: the casts are
    marked implicit, which Spark's names leave out."""
    found: list[tuple[int, exp.Expr, list[exp.Expr]]] = []
    for node in select.walk(prune=lambda n: n is not select and isinstance(n, (exp.Select, exp.Subquery, exp.SetOperation))):
        if isinstance(node, exp.Neg):
            arguments = [node.this]
        else:
            called = call_name(node) if isinstance(node, exp.Func) else None
            if called not in _DOUBLE_ARGUMENTS and called not in _DOUBLE_FIRST_ARGUMENT:
                continue
            if isinstance(node, exp.Anonymous):
                arguments = list(node.expressions)
            else:
                arguments = [a for a in (node.this, node.args.get("expression")) if isinstance(a, exp.Expr)]
            if called in _DOUBLE_FIRST_ARGUMENT:
                arguments = arguments[:1]
            arguments = [d for a in arguments for d in (a.expressions if isinstance(a, exp.Distinct) else [a])]
        found.append((node.depth, node, arguments))
    for _, _, arguments in sorted(found, key=lambda item: -item[0]):  # the innermost first
        for argument in arguments:
            if isinstance(typer.of(argument), StringType):
                cast = wrap_in_place(argument, exp.Cast(to=exp.DataType.build("DOUBLE")))  # the argument itself, as typed
                cast.meta[_IMPLICIT_CAST] = True
                typer.set_type(cast, _DOUBLE)


# The string functions whose arguments in these places Spark casts to a string when they are not
# one (ImplicitTypeCasts: a number, boolean, date or timestamp as a cast prints it); those of the
# second table take a binary as it is (length counts its bytes).
_STRING_PLACES: dict[type[exp.Expr], tuple[str, ...]] = {
    exp.Upper: ("this",), exp.Lower: ("this",), exp.Initcap: ("this",), exp.Ascii: ("this",), exp.Trim: ("this", "expression"),
    exp.Replace: ("this", "expression", "replacement"), exp.StrPosition: ("this", "substr"), exp.Repeat: ("this",),
    exp.RegexpReplace: ("this", "expression", "replacement"), exp.RegexpExtract: ("this", "expression"),
    exp.RegexpLike: ("this", "expression"), exp.RegexpSplit: ("this", "expression"), exp.Translate: ("this", "from_", "to"),
    exp.Levenshtein: ("this", "expression"), exp.SplitPart: ("this", "delimiter"), exp.SubstringIndex: ("this", "delimiter"),
    exp.Reverse: ("this",), exp.ConcatWs: ("expressions",),
}
_STRING_OR_BINARY_PLACES: dict[type[exp.Expr], tuple[str, ...]] = {
    exp.Length: ("this",), exp.BitLength: ("this",), exp.Substring: ("this",), exp.Left: ("this",), exp.Right: ("this",),
    exp.StartsWith: ("this", "expression"), exp.EndsWith: ("this", "expression"), exp.Contains: ("this", "expression"),
    exp.Pad: ("this", "fill_pattern"),
}
_PRINTED_TYPES = (AtomicType("boolean"), AtomicType("date"), *_TIMESTAMPS)
_BITWISE = (exp.BitwiseAnd, exp.BitwiseOr, exp.BitwiseXor)


_SMALL_INTEGRALS = (AtomicType("int"), AtomicType("smallint"), AtomicType("tinyint"))
"""The integers Spark's ``date_add`` takes (an int, or one it widens to an int)."""

_TRIED = "vpush_tried"
"""Marks a ``+``/``-`` written for ``try_add``/``try_subtract`` of a date or timestamp and an
interval: rewritten as ``+``/``-`` is, then made NULL where it raises (Spark's ``TryEval`` of the
ANSI operation)."""
_TRIED_NAME = "vpush_tried_name"
"""The Spark name of the ``try_add``/``try_subtract`` call a :data:`_TRIED` operation stands for."""


def _datetime_try_operations(select: exp.Select, typer: _Typer) -> None:
    """``try_add``/``try_subtract`` of a date and an integer (an integer and a date too), or of a
    date or timestamp and an interval literal: Spark's ``TryEval`` of ``+``/``-``, so the operation
    (marked :data:`_TRIED`, named as written) that the rewrite of ``+``/``-`` then answers."""
    for node in list(select.walk(prune=lambda n: n is not select and isinstance(n, (exp.Select, exp.Subquery, exp.SetOperation)))):
        if not isinstance(node, (exp.SafeAdd, exp.SafeSubtract)):
            continue
        kinds = [typer.of(node.this), typer.of(node.expression)]
        dated = [k == AtomicType("date") or k in _TIMESTAMPS for k in kinds]
        interval = [isinstance(_unparen(side), (exp.Interval, exp.Neg)) and _unparen(side).find(exp.Interval) is not None
                    for side in (node.this, node.expression)]
        if isinstance(node, exp.SafeAdd) and dated[1] and not dated[0]:
            dated, interval, kinds = dated[::-1], interval[::-1], kinds[::-1]
        if not dated[0] or not (interval[1] or (kinds[0] == AtomicType("date") and kinds[1] in _SMALL_INTEGRALS)):
            continue
        operation = (exp.Add if isinstance(node, exp.SafeAdd) else exp.Sub)(this=node.this, expression=node.expression)
        # a date plus days never raises in Spark (DateAdd's int sum wraps; vpush's raises there, as
        # `+` does); a date or timestamp plus an interval raises past its range: NULL
        operation.meta[_TRIED] = interval[1]
        operation.meta[_TRIED_NAME] = spark_name(node)
        node.replace(operation)


# The places of Spark's functions that take an int (a position, a length, a count).
def _cast_to_int(kind: SparkType | None) -> bool:
    """Whether Spark's implicit cast to an ``int`` place takes a value of ``kind`` that DuckDB's
    binder does not (a string, bigint, decimal or floating value: ``1.5`` to 1)."""
    return isinstance(kind, (StringType, DecimalType)) or kind in (_BIGINT, _DOUBLE, AtomicType("float"))


def _check_array_index(node: exp.Bracket, typer: _Typer) -> None:
    """Spark's ``DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE`` for an array's index of a type it does
    not take (DuckDB's binder failed without a class): ``arr[i]`` takes any integral type or a
    NULL, ``element_at``/``try_element_at`` an int (a tinyint or smallint cast to one)."""
    index = node.expressions[0]
    kind = VOID if isinstance(_unparen(index), exp.Null) else typer.of(index)
    if kind is None:
        return
    one_based = node.args.get("offset") == 1
    taken = kind in (_INT, AtomicType("smallint"), AtomicType("tinyint")) if one_based else _is_integral(kind) or kind == VOID
    if not taken:
        raise OptimizeError(
            f'Cannot resolve "{spark_name(node) or _spark_text(node)}" due to data type mismatch: The second parameter requires the '
            f'"{"INT" if one_based else "INTEGRAL"}" type, however "{spark_name(index) or _spark_text(index)}" has the type '
            f'"{_spark_type_name(kind)}".',
            error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        )


_INT_PLACES: dict[type[exp.Expr], tuple[str, ...]] = {
    exp.Substring: ("start", "length"), exp.Repeat: ("times",), exp.Left: ("expression",), exp.Right: ("expression",),
    exp.Pad: ("expression",), exp.RegexpSplit: ("limit",),
}


def _implicit_casts(select: exp.Select, typer: _Typer) -> None:
    """Spark's implicit casts that DuckDB's binder does not make, put around the arguments before
    anything is typed (marked implicit, which Spark's names leave out): a number, boolean, date,
    timestamp or binary given to a string function, a string given to a bitwise operator (a
    bigint) or as a shift's count (an int), a NULL beside a number in arithmetic (the number's
    type; two NULLs: doubles).

    Raises:
        OptimizeError: Spark's DATATYPE_MISMATCH where it finds no such cast (a bitwise operator
            over a decimal, floating type or boolean; ``~`` of a string; soundex of a non-string).
    """
    found: list[tuple[int, exp.Expr, exp.DataType]] = []

    def cast(argument: exp.Expr, to: str) -> None:
        found.append((argument.depth, argument, exp.DataType.build(to)))

    for node in select.walk(prune=lambda n: n is not select and isinstance(n, (exp.Select, exp.Subquery, exp.SetOperation))):
        # Spark's ImplicitTypeCasts give these places an int: a string, bigint, decimal or
        # floating value is cast to one (1.5 to 1), where DuckDB's binder finds no function
        for key in _INT_PLACES.get(type(node), ()):
            argument = node.args.get(key)
            if isinstance(argument, exp.Expr) and _cast_to_int(typer.of(argument)):
                cast(argument, "INT")
        if isinstance(node, exp.Bracket) and len(node.expressions) == 1 and isinstance(typer.of(node.this), ArrayType):
            _check_array_index(node, typer)
        elif (isinstance(node, exp.Anonymous) and node.name.lower() == "get" and len(node.expressions) == 2
              and isinstance(typer.of(node.expressions[0]), ArrayType)):
            # Spark's get takes an int index by an implicit cast (get(arr, 1.5) is arr's second)
            if _cast_to_int(typer.of(node.expressions[1])) or isinstance(_unparen(node.expressions[1]), exp.Null):
                cast(node.expressions[1], "INT")
        places = _STRING_PLACES.get(type(node)) or _STRING_OR_BINARY_PLACES.get(type(node))
        if isinstance(node, exp.Anonymous) and node.name.lower() == "octet_length":
            places = ("expressions",)
        if places is not None:
            binary_taken = type(node) in _STRING_OR_BINARY_PLACES or isinstance(node, exp.Anonymous)
            for key in places:
                value = node.args.get(key)
                for argument in value if isinstance(value, list) else [value]:
                    if not isinstance(argument, exp.Expr):
                        continue
                    kind = typer._part(argument)
                    if (_is_integral(kind) or _is_fractional(kind) or isinstance(kind, DecimalType) or kind in _PRINTED_TYPES
                            or (kind == AtomicType("binary") and not binary_taken)):
                        cast(argument, "VARCHAR")
        elif isinstance(node, exp.Soundex) and typer.of(node.this) is not None and not isinstance(typer.of(node.this), StringType):
            raise OptimizeError(
                f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: The first parameter requires the "STRING" '
                f'type, however "{_spark_text(node.this)}" has the type "{_spark_type_name(typer.of(node.this))}".',
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        elif isinstance(node, exp.BitwiseNot) and isinstance(typer.of(node.this), StringType):
            raise OptimizeError(
                f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: The first parameter requires the '
                f'"INTEGRAL" type, however "{_spark_text(node.this)}" has the type "STRING".',
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        elif isinstance(node, _BITWISE):
            kinds = [typer.of(node.this), typer.of(node.expression)]
            if any(_is_fractional(k) or isinstance(k, DecimalType) or k == AtomicType("boolean") for k in kinds) and all(k is not None for k in kinds):
                raise _incompatible_operands(node, kinds[0], kinds[1])
            for side, kind in zip((node.this, node.expression), kinds):
                if isinstance(kind, StringType) and any(_is_integral(k) for k in kinds):
                    cast(side, "BIGINT")
            if all(isinstance(k, AtomicType) and _is_integral(k) for k in kinds) and kinds[0] != kinds[1]:
                # integers of different widths: both the wider (DuckDB's smallint | 1 is a smallint)
                wider = _wider_integral(*kinds)  # type: ignore[arg-type]
                for side, kind in zip((node.this, node.expression), kinds):
                    if kind != wider:
                        cast(side, _sql_type(wider).sql("duckdb"))
        elif _called(node) in _SHIFTS.values():
            # Spark's shifts take an int or a bigint and an int count: a string is cast to an int
            operands = node.expressions if isinstance(node, exp.Anonymous) else node_arguments(node) or []
            for operand in operands:
                if isinstance(typer.of(operand), StringType):
                    cast(operand, "INT")
        elif isinstance(node, _ARITHMETIC):
            sides = [node.this, node.expression]
            nulls = [isinstance(_unparen(side), exp.Null) for side in sides]
            if all(nulls) and not isinstance(node, (exp.Mod, exp.IntDiv)):
                for side in sides:
                    cast(side, "DOUBLE")
            elif any(nulls):
                other = typer.of(sides[nulls.index(False)])
                if isinstance(node, exp.IntDiv) and other in _FLOATING:
                    pass  # Spark's div takes no double: NULL stays void beside it (BINARY_OP_DIFF_TYPES)
                elif other is not None and (_is_integral(other) or _is_fractional(other) or isinstance(other, DecimalType)):
                    cast(sides[nulls.index(True)], _sql_type(other).sql("duckdb"))
        elif isinstance(node, (exp.Neg, exp.Abs)) and isinstance(_unparen(node.this), exp.Null):
            cast(node.this, "DOUBLE")
    for _, argument, to in sorted(found, key=lambda item: -item[0]):  # the innermost first
        made = wrap_in_place(argument, exp.Cast(to=to))
        made.meta[_IMPLICIT_CAST] = True
        typer.types.pop(id(argument), None)
        typer.set_type(made, _cast_type(made))
    if found:
        typer.types.clear()  # the nodes above the casts are typed anew


def _inline_aggregate_aliases(select: exp.Select, columns: Mapping[str, Mapping[str, SparkType | None]]) -> None:
    """A HAVING's reference to a projection's alias over an aggregate (``SELECT sum(i) AS s ...
    HAVING s > 0``) as that aggregate: the rewrite of the aggregate may raise Spark's errors,
    and DuckDB takes no alias of such an expression there."""
    having = select.args.get("having")
    if having is None:
        return
    aliases = {
        p.alias.lower(): p.this for p in select.expressions
        if isinstance(p, exp.Alias) and p.this.find(exp.AggFunc) is not None and p.this.find(exp.Window) is None
    }
    for column in [c for c in in_scope(having) if isinstance(c, exp.Column) and not c.table]:
        name = column.name.lower()
        if name in aliases and not any(name in source for source in columns.values()):
            column.replace(exp.Paren(this=aliases[name].copy()))


def _spell_out_with_rollup(select: exp.Select) -> None:
    """``GROUP BY a, b WITH ROLLUP`` (or ``WITH CUBE``), which DuckDB's parser refuses, as
    ``GROUP BY ROLLUP (a, b)``."""
    group = select.args.get("group")
    if group is None or not group.expressions:
        return
    for key, kind in (("rollup", exp.Rollup), ("cube", exp.Cube)):
        marks = group.args.get(key) or []
        if len(marks) == 1 and isinstance(marks[0], kind) and not marks[0].expressions:
            group.set(key, None)
            group.set("expressions", [kind(expressions=list(group.expressions))])
            return


def _normalized_float(value: exp.Expr, of_type: SparkType) -> exp.Expr:
    """``value + 0``: -0.0 becomes 0.0, everything else (NaN too) stays, as Spark's
    ``NormalizeFloatingNumbers`` gives grouping and distinct keys."""
    assert isinstance(of_type, AtomicType)
    zero = exp.cast(exp.Literal.number(0), exp.DataType.build("FLOAT" if of_type.name == "float" else "DOUBLE"))
    return exp.Paren(this=exp.Add(this=value, expression=zero))


def _floating_inside(of_type: SparkType) -> bool:
    """Whether ``of_type`` is a float or a double, or a struct or array with one inside."""
    if isinstance(of_type, ArrayType):
        return _floating_inside(of_type.element)
    if isinstance(of_type, StructType):
        return any(_floating_inside(f.type) for f in of_type.fields)
    return of_type in _FLOATING


def _normalized_member(value: exp.Expr, of_type: SparkType | None, depth: int = 0) -> exp.Expr:
    """``value`` with every float and double in it normalized (:func:`_normalized_float`), as
    Spark's ``collect_set`` holds them (it writes a struct's or array's floats so)."""
    if of_type is None or not _floating_inside(of_type):
        return value
    if isinstance(of_type, ArrayType):
        each = exp.to_identifier(f"__vpush_normalized_{depth}")
        return exp.Anonymous(this="list_transform", expressions=[value, exp.Lambda(
            this=_normalized_member(exp.column(each.copy()), of_type.element, depth + 1), expressions=[each])])
    if isinstance(of_type, StructType):
        built = exp.Struct(expressions=[
            exp.PropertyEQ(this=exp.to_identifier(f.name, quoted=True), expression=_normalized_member(
                exp.Anonymous(this="struct_extract", expressions=[value.copy(), exp.Literal.string(f.name)]), f.type, depth + 1))
            for f in of_type.fields
        ])
        missing = exp.Is(this=value.copy(), expression=exp.Null())
        return exp.Case(ifs=[exp.If(this=missing, true=exp.cast(exp.Null(), _sql_type(of_type)))], default=built)
    return _normalized_float(value, of_type)


def _set_element(element: SparkType | None, call: exp.Expr) -> SparkType | None:
    """The type of ``collect_set``'s elements, refused as Spark refuses a map in it."""
    if element is not None and _has_map(element):
        raise OptimizeError(
            f'Cannot resolve "{call.sql(dialect="spark")}" due to data type mismatch: The input of `collect_set` can\'t be "MAP" '
            'or "COLLATED STRING" type data.',
            error_class="DATATYPE_MISMATCH.UNSUPPORTED_INPUT_TYPE",
        )
    return element


class _FloatKeys(typing.NamedTuple):
    """A SELECT's float and double GROUP BY keys, as :func:`_float_group_keys` finds them."""

    columns: list[tuple[exp.Column, SparkType]]  # columns of a source
    projections: list[tuple[int, SparkType]]  # projections named by position or alias (`GROUP BY 1`)
    expressions: list[tuple[int, SparkType]]  # other expressions, by their place in GROUP BY


def _float_group_keys(select: exp.Select, typer: _Typer, columns: Mapping[str, Mapping[str, SparkType | None]]) -> _FloatKeys:
    """The GROUP BY keys that are floats or doubles, with their types: columns of a source, the
    projections a key names by position or alias (an extraction ``v:x::double AS x ... GROUP BY
    1``), and the other expressions of GROUP BY."""
    group = select.args.get("group")
    keys = _FloatKeys([], [], [])
    # the keys of ROLLUP, CUBE and GROUPING SETS too
    listed = (exp.Group, exp.Rollup, exp.Cube, exp.GroupingSets, exp.Tuple, exp.Paren)
    candidates = [
        n for n in (in_scope(group) if group is not None else [])
        if isinstance(n, exp.Column) or (isinstance(n, exp.Literal) and isinstance(n.parent, listed))
    ]
    aliases = {p.alias.lower(): k for k, p in enumerate(select.expressions) if isinstance(p, exp.Alias)}
    for key in candidates:
        position = _integer_literal(key)
        index = None
        if position is not None and 0 < position <= len(select.expressions):
            index = position - 1
            key = select.expressions[index]  # GROUP BY 1: the first projection
        elif isinstance(key, exp.Column) and not key.table and key.name.lower() in aliases and not any(
            key.name.lower() in source for source in columns.values()
        ):
            index = aliases[key.name.lower()]  # a projection's alias, no source's column
            key = select.expressions[index]
        of_type = typer.of(key)
        if of_type not in _FLOATING:
            continue
        assert of_type is not None
        if isinstance(key, exp.Alias) and isinstance(key.this, exp.Column):
            key = key.this  # an extraction is a scan's column by now
        if isinstance(key, exp.Column):
            keys.columns.append((key.copy(), of_type))
        elif index is not None and isinstance(key, exp.Alias):
            keys.projections.append((index, of_type))
    for index, key in enumerate(group.expressions if group is not None else []):
        of_type = typer.of(key)
        if not isinstance(key, (exp.Column, exp.Literal)) and of_type in _FLOATING:
            assert of_type is not None
            keys.expressions.append((index, of_type))
    return keys


def _normalize_float_keys(select: exp.Select, keys: _FloatKeys) -> None:
    """Spark groups -0.0 with 0.0 and gives the group 0.0; DuckDB groups them too but gives the
    first value met. Each float or double column that is a GROUP BY key is grouped and read as
    its normalized value wherever the SELECT reads it outside an aggregate; so is a projection
    that a key names, and a key's expression wherever the SELECT reads it so."""
    for index, of_type in keys.projections:
        projection = select.expressions[index]
        if isinstance(projection, exp.Alias):
            projection.set("this", _normalized_float(projection.this, of_type))
    group = select.args.get("group")
    expressions = [(group.expressions[i], of_type) for i, of_type in keys.expressions] if group is not None else []
    if not keys.columns and not expressions:
        return
    projections = set(map(id, select.expressions))  # ids kept unique by `parts`, which holds these nodes
    parts: list[exp.Expr] = [*select.expressions, select.args["group"]]
    parts += [select.args[k] for k in ("having", "order", "qualify") if select.args.get(k) is not None]
    matched = [(key.copy(), of_type) for key, of_type in expressions]
    for part in parts:
        for node in list(in_scope(part)):
            if node.parent is None and node is not part or _inside_aggregate(node, select):
                continue  # (a node of an expression already replaced)
            found = keys.columns if isinstance(node, exp.Column) else matched
            for key, of_type in found:
                if node == key:
                    normalized = _normalized_float(node.copy(), of_type)
                    if id(node) in projections:
                        normalized = exp.alias_(normalized, exp.to_identifier(node.alias_or_name, quoted=True))
                    node.replace(normalized)
                    break


def _inside_aggregate(node: exp.Expr, select: exp.Select) -> bool:
    """Whether ``node`` lies in an aggregate or a window of ``select``."""
    return inside_within(node, (exp.AggFunc, exp.Window), select)


def _normalize_float_projections(select: exp.Select, types: list[SparkType | None], scope: Scope,
                                 columns: Mapping[str, Mapping[str, SparkType | None]]) -> None:
    """The float and double projections of a SELECT DISTINCT or of a branch of a UNION,
    INTERSECT or EXCEPT normalized as Spark normalizes distinct keys (-0.0 is 0.0), ``types``
    each projection's by its place; a star's float and double columns too
    (:func:`_normalize_star_floats`)."""
    distinct = select.args.get("distinct") is not None
    for projection, of_type in zip(list(select.expressions), types):
        if projection.is_star:
            _normalize_star_floats(projection, scope, columns)
            continue
        if of_type not in _FLOATING or (distinct and _constant_float(_folded_through(projection.unalias(), scope))):
            continue
        assert of_type is not None
        if isinstance(projection, exp.Alias):
            projection.set("this", _normalized_float(projection.this, of_type))
        else:
            projection.replace(exp.alias_(_normalized_float(projection.copy(), of_type), exp.to_identifier(projection.alias_or_name, quoted=True)))


def _folded_through(value: exp.Expr, scope: Scope) -> exp.Expr:
    """What Spark's ``FoldablePropagation`` puts in place of ``value``: where it is a column of a
    subquery of the FROM whose projection of that name is a literal, that literal (through
    subqueries in turn), else ``value`` itself: ``SELECT DISTINCT h, z FROM (SELECT h, -0.0D AS z
    FROM t)`` gives -0.0 as it is (measured)."""
    while isinstance(value, exp.Column):
        sources = scope.selected_sources
        name = value.table or (next(iter(sources)) if len(sources) == 1 else "")
        inner = sources.get(name, (None, None))[1]
        if not isinstance(inner, Scope) or not isinstance(inner.expression, exp.Select):
            return value
        projections = inner.expression.expressions
        found = [p for p in projections if p.alias_or_name.lower() == value.name.lower()]
        if not found and len(projections) == 1 and projections[0].is_star and not projections[0].args.get("except_"):
            value, scope = exp.column(value.name), inner  # SELECT *: the column passes through
            continue
        if len(found) != 1:
            return value
        value, scope = found[0].unalias(), inner
    return value


def _constant_float(value: exp.Expr) -> bool:
    """Whether ``value`` is a literal (cast, negated): a SELECT DISTINCT gives it as it is (-0.0
    too), as Spark's optimizer folds it out of the keys it groups by (measured)."""
    return all(isinstance(node, (exp.Literal, exp.Cast, exp.Neg, exp.Paren, exp.DataType, exp.DataTypeParam)) for node in value.walk())


# The meta key of a star whose REPLACE vpush wrote (_normalize_star_floats): its columns are the star's own
_NORMALIZED_STAR = "vpush_normalized_star"


def _normalize_star_floats(star: exp.Expr, scope: Scope, columns: Mapping[str, Mapping[str, SparkType | None]]) -> None:
    """The float and double columns ``*`` (or ``t.*``) selects normalized (:func:`_normalized_float`)
    by DuckDB's ``* REPLACE``, each read through its source; refused where two of the star's
    sources have a column of that name (DuckDB's REPLACE would take one of them away)."""
    stars = star.this if isinstance(star, exp.Column) else star
    if stars.args.get("replace") or stars.args.get("rename"):
        return
    owners: dict[str, list[tuple[str, SparkType | None]]] = {}
    for alias, name, of_type in _star_sources_columns(star, scope, columns):
        owners.setdefault(name, []).append((alias, of_type))
    if any(len(owned) > 1 and any(t in _FLOATING for _, t in owned) for owned in owners.values()):
        sources = list(scope.selected_sources)
        if isinstance(star, exp.Column) or stars.args.get("except_") or not all(sources):
            _refuse("SELECT DISTINCT", "a star over sources that share the name of a float or double column")
        # `*` over sources joined ON (a join USING is written out before) is each one's `a.*` in turn
        split = [exp.Column(this=exp.Star(), table=exp.to_identifier(alias)) for alias in sources]
        select = scope.expression
        projections = list(select.expressions)
        place = next(i for i, p in enumerate(projections) if p is star)
        select.set("expressions", projections[:place] + split + projections[place + 1:])
        for each in split:
            _normalize_star_floats(each, scope, columns)
        return
    spelt: dict[str, dict[str, str] | None] = {}  # each source's names as spelt (REPLACE names its column so)
    replaced: list[exp.Expr] = []
    for name, owned in owners.items():
        if not any(of_type in _FLOATING for _, of_type in owned):
            continue
        alias, of_type = owned[0]
        assert of_type is not None  # for mypy: a float or a double
        if alias not in spelt:
            names = source_names(scope, alias, output_names)
            spelt[alias] = None if names is None else {n.lower(): n for n in names}
        written = (spelt[alias] or {}).get(name)
        if written is None:
            continue  # (vpush does not know how the source spells it: left as it is)
        read = exp.column(exp.to_identifier(written, quoted=True), table=exp.to_identifier(alias, quoted=True) if alias else None)
        replaced.append(exp.alias_(_normalized_float(read, of_type), exp.to_identifier(written, quoted=True)))
    if replaced:
        stars.set("replace", replaced)
        stars.meta[_NORMALIZED_STAR] = True


def _explode_columns(node: exp.Expr) -> dict[str, SparkType | None]:
    """The columns of ``variant_explode``: ``pos int, key string, value variant``, under the names
    an alias gives them."""
    types: list[SparkType | None] = [_INT, StringType(), VARIANT]
    names = ["pos", "key", "value"]
    alias = node.args.get("alias")
    if isinstance(alias, exp.TableAlias) and alias.columns:
        names = [c.name for c in alias.columns]
    return {name.lower(): t for name, t in zip(names, types)}


SPARK_TEXT = "vpush_spark_text"
"""The meta key under which a scan column that replaced a variant extraction keeps the
extraction's Spark SQL, for messages."""

VARIANT_SOURCE = "vpush_variant_source"
"""The meta key under which a scan column that replaced a variant extraction keeps the name of
the variant column it reads (Spark's analyzer names that column in its errors)."""

_ORDERED_AGGREGATES = (exp.Max, exp.Min, exp.ArgMax, exp.ArgMin)
_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ)


def _spark_text(node: exp.Expr) -> str:
    """``node`` as Spark SQL, with the extractions that scan columns replaced written back."""
    copy = node.copy()
    for column in list(copy.find_all(exp.Column)):
        text = column.meta.get(SPARK_TEXT)
        if text is not None:
            if column is copy:
                return str(text)
            column.replace(exp.Var(this=text))
    return copy.sql(dialect=VpushSpark)


def _not_orderable(node: exp.Expr, what: str) -> OptimizeError:
    return OptimizeError(
        f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: the {what} does not support '
        'ordering on type "VARIANT"',
        error_class="DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
    )


def _check_limits(node: exp.Select | exp.SetOperation, typer: _Typer) -> None:
    """Raise Spark's ``INVALID_LIMIT_LIKE_EXPRESSION`` where a LIMIT or OFFSET is not a constant
    ``int``, as Spark's analyzer checks it (DuckDB takes ``LIMIT 1.5``, ``LIMIT 2L`` and
    ``LIMIT NULL``): ``IS_UNFOLDABLE`` for one that reads a column, a subquery, an aggregate or
    a random number, ``DATA_TYPE`` for another type than ``int``, ``IS_NULL`` for a NULL ``int``
    (a negative one raises ``IS_NEGATIVE`` as it is parsed or run)."""
    for key in ("limit", "offset"):
        clause = node.args.get(key)
        count = clause.expression if isinstance(clause, (exp.Limit, exp.Offset)) else None
        if count is None:
            continue

        def invalid(kind: str, detail: str, count: exp.Expr = count, key: str = key) -> OptimizeError:
            return OptimizeError(
                f'The limit like expression "{spark_name(count) or _spark_text(count)}" is invalid. The {detail.format(key)}',
                error_class=f"INVALID_LIMIT_LIKE_EXPRESSION.{kind}",
            )

        if any(isinstance(n, (exp.Column, exp.Select, exp.Subquery, exp.AggFunc, exp.Rand, exp.Randn)) for n in count.walk()):
            raise invalid("IS_UNFOLDABLE", "{} expression must evaluate to a constant value.")
        kind = VOID if isinstance(_unparen(count), exp.Null) else typer.of(count)
        if kind is None:
            continue
        if kind != _INT:
            raise invalid("DATA_TYPE", f'{{}} expression must be integer type, but got "{_spark_type_name(kind)}".')
        inner = _unparen(count)
        if isinstance(inner, exp.Cast) and isinstance(_unparen(inner.this), exp.Null):
            raise invalid("IS_NULL", "evaluated {} expression must not be null.")


def _check_join_keys_orderable(select: exp.Select, typer: _Typer) -> None:
    """A join USING (or NATURAL over) a variant column raises as Spark's analyzer does: it joins
    on the keys' equality, which VARIANT does not have (DuckDB compared the structs)."""
    first = select.args.get("from_") or select.args.get("from")
    seen = [first.this.alias_or_name] if isinstance(first, exp.From) else []
    for join in select.args.get("joins") or []:
        right = join.this.alias_or_name
        right_columns = typer.source_columns(right)
        if str(join.args.get("method") or "").upper() == "NATURAL":
            left_columns = {k for name in seen for k in typer.source_columns(name)}
            keys = [k for k in right_columns if k in left_columns]
        else:
            keys = [k.name.lower() for k in join.args.get("using") or [] if isinstance(k, (exp.Identifier, exp.Column))]
        for key in keys:
            if right_columns.get(key) == VARIANT:
                raise OptimizeError(
                    f'Cannot resolve "({key} = {key})" due to data type mismatch: The `=` does not support ordering on type "VARIANT".',
                    error_class="DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
                )
        seen.append(right)


def _order_by_source_columns(
    select: exp.Select, scope: Scope, columns: Mapping[str, Mapping[str, SparkType | None]]
) -> None:
    """Qualify an ORDER BY name that several of the SELECT's outputs carry with the one source
    that has a column of that name, as Spark resolves it.

    Spark binds an ORDER BY name to the SELECT's output only where one output has it; where two
    do (``SELECT id, v:id::int FROM t ORDER BY id``: the extraction is named ``id`` too, or
    ``SELECT -id AS id, id ...``) it sorts by the FROM's column ``id`` (measured: neither the first
    nor the last output), where DuckDB would sort by one of the outputs, and a variant output
    would make vpush raise ``INVALID_ORDERING_TYPE``.
    """
    order = select.args.get("order")
    if order is None:
        return
    outputs: dict[str, int] = {}
    for projection in select.expressions:
        if not isinstance(projection, exp.Star):
            outputs[projection.alias_or_name.lower()] = outputs.get(projection.alias_or_name.lower(), 0) + 1
    for ordered in order.expressions:
        key = ordered.this if isinstance(ordered, exp.Ordered) else ordered
        if not isinstance(key, exp.Column) or key.table or outputs.get(key.name.lower(), 0) < 2:
            continue
        owners = [alias for alias in scope.sources if key.name.lower() in columns.get(alias.lower(), {})]
        if len(owners) == 1:
            key.set("table", exp.to_identifier(owners[0]))


def _check_orderable(select: exp.Select, typer: _Typer) -> None:
    """Raise, as Spark's analyzer does, where the SELECT orders, groups, deduplicates or compares
    variants, or orders, deduplicates, compares or takes the largest of a map or of a value holding
    one: Spark has no order on either, so it refuses each at analysis (``INVALID_ORDERING_TYPE``;
    ``SET_OPERATION_ON_MAP_TYPE`` for DISTINCT of a map). A GROUP BY of a map is refused: Spark's
    hash aggregation groups maps otherwise than by DuckDB's equality."""
    projected = {p.alias_or_name.lower(): typer.of(p) for p in select.expressions}

    def mapped(node: exp.Expr, *, aliases: bool = False) -> bool:
        kind = typer.of(node)
        if kind is None and aliases and isinstance(node, exp.Column) and not node.table:
            kind = projected.get(node.name.lower())  # ORDER BY or GROUP BY an output's alias
        return kind is not None and _has_map(kind)

    def map_unordered(node: exp.Expr, what: str) -> OptimizeError:
        kind = typer.of(node)
        return OptimizeError(
            f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: the {what} does not support ordering on type '
            f'"{kind.to_sql() if kind is not None else "MAP"}"',
            error_class="DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
        )

    def is_variant(node: exp.Expr) -> bool:
        if typer.of(node) == VARIANT:
            return True
        order = select.args.get("order")
        placed = node.parent is select.args.get("group") or (
            isinstance(node.parent, exp.Ordered) and order is not None and node.parent.parent is order
        )
        if placed and isinstance(node, exp.Literal) and node.is_int:
            # the SELECT's ORDER BY and GROUP BY may name a projection by its place (ORDER BY 1);
            # a window's ORDER BY 1 is a constant
            place = int(node.this) - 1
            return 0 <= place < len(select.expressions) and typer.of(select.expressions[place]) == VARIANT
        # ORDER BY and GROUP BY may name a projection by its alias (a WHERE, ON or the SELECT
        # list may not: there the name is a source's column)
        return placed and isinstance(node, exp.Column) and not node.table and projected.get(node.name.lower()) == VARIANT

    for ordered in (select.args.get("order") or exp.Order()).expressions:
        key = ordered.this if isinstance(ordered, exp.Ordered) else ordered
        if is_variant(key):
            raise _not_orderable(ordered, "sort order")
        if mapped(key, aliases=True):
            raise map_unordered(key, "sort order")
    group = select.args.get("group")
    for key in group.expressions if group is not None else []:
        if is_variant(key):
            raise OptimizeError(
                f'The expression "{_spark_text(key)}" cannot be used as a grouping expression because its '
                'data type "VARIANT" is not an orderable data type',
                error_class="GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE",
            )
        if mapped(key, aliases=True):
            _refuse("GROUP BY", "a map or a value holding one (Spark's hash aggregation groups them its own way)")
    if select.args.get("distinct") is not None:
        for projection in select.expressions:
            kind = typer.of(projection)
            if kind == VARIANT:
                raise _set_operation_error(projection.alias_or_name)
            if kind is not None and _has_map(kind):
                raise _map_set_operation_error(projection.alias_or_name, kind)
    _check_join_keys_orderable(select, typer)
    parts = [p for p in select.expressions]
    parts += [select.args[k] for k in ("where", "having", "qualify") if select.args.get(k) is not None]
    parts += [join.args["on"] for join in select.args.get("joins") or [] if join.args.get("on") is not None]
    for part in parts:
        for node in in_scope(part):
            _check_variant_operands(node, typer)
            _check_lambda_field_base(node, typer)
            check_array_ordering(node, typer.of)
            if isinstance(node, _COMPARISONS) and (is_variant(node.this) or is_variant(node.expression)):
                raise _not_orderable(node, f"`{type(node).__name__.lower()}` comparison")
            if isinstance(node, exp.Nullif) and (is_variant(node.this) or is_variant(node.expression)):
                raise _not_orderable(node, "`=` comparison")
            if isinstance(node, (exp.Greatest, exp.Least)) and any(is_variant(a) for a in (node.this, *node.expressions)):
                given = [a for a in (node.this, *node.expressions) if not isinstance(a, exp.Null)]
                if all(is_variant(a) for a in given):
                    raise _not_orderable(node, f"`{type(node).__name__.lower()}`")
                kinds = [typer.of(a) for a in given]
                if any(k is None for k in kinds):
                    _refuse(type(node).__name__.lower(), "a variant beside an argument whose type vpush does not know")
                names = ", ".join(f'"{k.to_sql()}"' for k in kinds if k is not None)
                raise OptimizeError(
                    f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: Input to `{type(node).__name__.lower()}` '
                    f"should all be the same type, but it's [{names}].",
                    error_class="DATATYPE_MISMATCH.DATA_DIFF_TYPES",
                )
            if isinstance(node, _ORDERED_AGGREGATES):
                ordering = node.expression if isinstance(node, (exp.ArgMax, exp.ArgMin)) else node.this
                if ordering is not None and is_variant(ordering):
                    raise _not_orderable(node, f"`{node.sql_name().lower()}`")
            if isinstance(node, exp.Window):
                _check_variant_window(node, is_variant)
            if isinstance(node, exp.Distinct) and isinstance(node.parent, exp.AggFunc) and any(is_variant(e) for e in node.expressions):
                # Spark's analyzer takes count(DISTINCT v), and its hash then fails at run time with
                # an internal MatchError that carries no error class
                raise OptimizeError(
                    f'Spark cannot compute "{_spark_text(node.parent)}": a DISTINCT aggregate of a VARIANT fails in '
                    "Spark with an internal error (variants cannot be hashed)",
                    error_class="VPUSH_UNSUPPORTED_FUNCTION",
                )
            if isinstance(node, exp.ApproxDistinct) and is_variant(node.this):
                raise OptimizeError(
                    f'Spark cannot compute "{_spark_text(node)}": approx_count_distinct of a VARIANT fails in Spark '
                    "with an internal error (variants cannot be hashed)",
                    error_class="VPUSH_UNSUPPORTED_FUNCTION",
                )
            _check_boolean_arithmetic(node, typer)
            _check_branch_types(node, typer)
            if isinstance(node, (*_COMPARISONS, exp.Nullif)):
                _check_struct_comparison(node, typer)
                _check_array_comparison(node, typer)
                _check_map_comparison(node, typer)
            if isinstance(node, (exp.Greatest, exp.Least)) and any(
                    isinstance(typer.of(p), MapType) for p in (node.this, *node.expressions)):
                raise OptimizeError(
                    f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: The `{node.sql_name().lower()}` '
                    'does not support ordering on type "MAP"',
                    error_class="DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
                )
            if isinstance(node, (exp.Greatest, exp.Least, exp.In)) and not node.args.get("query"):
                _check_ordered_operands(node, typer)
            if isinstance(node, _COMPARISONS) and any(isinstance(typer.of(side), MapType) for side in (node.this, node.expression)):
                raise OptimizeError(
                    f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: the binary operator does not '
                    'support ordering on type "MAP"',
                    error_class="DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
                )
            if isinstance(node, _COMPARISONS) and (mapped(node.this) or mapped(node.expression)):
                raise map_unordered(node, f"`{_BINARY_SYMBOLS.get(type(node), type(node).__name__.lower())}` comparison")
            if isinstance(node, (exp.Max, exp.Min)) and mapped(node.this):
                raise map_unordered(node, f"`{type(node).__name__.lower()}`")


def _check_ordered_operands(node: exp.Greatest | exp.Least | exp.In, typer: _Typer) -> None:
    """Spark's ``INVALID_ORDERING_TYPE`` for ``greatest``/``least``/``IN`` of values holding a map
    (an array or struct of maps: measured), naming the type they are coerced to; vpush's DuckDB
    engine had answered them, DuckDB comparing maps as lists."""
    kinds = [typer.of(p) for p in (node.this, *node.expressions) if not isinstance(p, exp.Null)]
    known = [k for k in kinds if k is not None]
    if not known or not any(_has_map(k) for k in known):
        return
    common = nested_common_type(known) if all(coercible(k) for k in known) else None
    shown = (common if common is not None else next(k for k in known if _has_map(k))).to_sql()
    word = "in" if isinstance(node, exp.In) else node.sql_name().lower()
    raise OptimizeError(
        f'Cannot resolve "{spark_name(node, top=False) or _spark_text(node)}" due to data type mismatch: The `{word}` does not '
        f'support ordering on type "{shown}"',
        error_class="DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
    )


def _check_variant_window(window: exp.Window, is_variant: Callable[[exp.Expr], bool]) -> None:
    """A window partitioned or ordered by a variant raises as in Spark's analyzer (no order on
    VARIANT): EXPRESSION_TYPE_IS_NOT_ORDERABLE for PARTITION BY, INVALID_ORDERING_TYPE for ORDER BY."""
    for key in window.args.get("partition_by") or []:
        if is_variant(key):
            raise OptimizeError(
                f'Column expression "{_spark_text(key)}" cannot be sorted because its type "VARIANT" is not orderable.',
                error_class="EXPRESSION_TYPE_IS_NOT_ORDERABLE",
            )
    for ordered in (window.args.get("order") or exp.Order()).expressions:
        if is_variant(ordered.this if isinstance(ordered, exp.Ordered) else ordered):
            raise _not_orderable(ordered, "sort order")


def _aggregates(node: exp.Expr | None) -> bool:
    """Whether ``node`` holds an aggregate outside a window."""
    return node is not None and any(
        isinstance(found, exp.AggFunc) and not isinstance(found.parent, exp.Window) for found in node.walk()
    )


def _aggregated(node: exp.Expr | None) -> bool:
    """Whether ``node`` holds an aggregate outside a window, as written or already rewritten
    (``first(x) IGNORE NULLS`` becomes a FILTERed call of an engine function)."""
    return node is not None and (_aggregates(node) or any(
        isinstance(found, exp.Filter) and not isinstance(found.parent, exp.Window) for found in node.walk()
    ))


def _check_branch_types(node: exp.Expr, typer: _Typer) -> None:
    """A boolean, a date or a timestamp beside a number among the branches of ``coalesce``,
    ``if``, CASE, the elements of ``array`` or the arguments of ``greatest``/``least``, and a
    string beside another type among the arguments of ``greatest``/``least``, raise Spark's
    DATA_DIFF_TYPES: Spark finds no common type for them (DuckDB cast the boolean to a number,
    or its binder failed without a class)."""
    if isinstance(node, exp.Coalesce):
        parts = [node.this, *node.expressions]
    elif isinstance(node, exp.If) and not isinstance(node.parent, exp.Case):
        parts = [node.args.get("true"), node.args.get("false")]
    elif isinstance(node, exp.Case):
        parts = [i.args.get("true") for i in node.args.get("ifs") or []] + [node.args.get("default")]
    elif isinstance(node, (exp.Array, exp.Greatest, exp.Least)) and not isinstance(node.parent, exp.VarMap):
        parts = [node.this, *node.expressions] if isinstance(node, (exp.Greatest, exp.Least)) else list(node.expressions)
    else:
        return
    kinds = [typer._part(_unparen(p)) for p in parts if isinstance(p, exp.Expr) and not isinstance(p, exp.Null)]
    numeric = [k for k in kinds if _is_integral(k) or _is_fractional(k) or isinstance(k, DecimalType)]
    others = [k for k in kinds if k in (_BOOLEAN, AtomicType("date"), *_TIMESTAMPS)]
    # greatest/least cast no string (DuckDB compared it as a number or a date)
    texts = [k for k in kinds if isinstance(k, StringType)] if isinstance(node, (exp.Greatest, exp.Least)) else []
    if (numeric and others) or (texts and any(k is not None and not isinstance(k, StringType) for k in kinds)):
        what = "coalesce" if isinstance(node, exp.Coalesce) else "if" if isinstance(node, exp.If) else (
            "casewhen" if isinstance(node, exp.Case) else node.sql_name().lower())
        shown = " or ".join(f'"{_spark_type_name(k)}"' for k in kinds)
        raise OptimizeError(
            f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: Input to `{what}` should all be the '
            f"same type, but it's ({shown}).",
            error_class="DATATYPE_MISMATCH.DATA_DIFF_TYPES",
        )


def tightest_common(a: SparkType, b: SparkType) -> bool:
    """Whether Spark's ``findTightestCommonType`` finds a type for the elements of two arrays
    compared: the same type, numbers other than decimals, a decimal with room for an integer's
    digits beside it, NULL beside anything, arrays, maps and structs of such parts (never two decimals that
    differ, nor an int beside a decimal(10,2))."""
    if a == b or VOID in (a, b):
        return True
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return tightest_common(a.element, b.element)
    if isinstance(a, MapType) and isinstance(b, MapType):
        return tightest_common(a.key, b.key) and tightest_common(a.value, b.value)
    if isinstance(a, StructType) and isinstance(b, StructType):
        return [f.name.lower() for f in a.fields] == [f.name.lower() for f in b.fields] and all(
            tightest_common(x.type, y.type) for x, y in zip(a.fields, b.fields))
    if all(isinstance(t, AtomicType) and t.name in _DATETIME_NAMES for t in (a, b)):
        return True  # a date beside a timestamp is the timestamp
    plain = [_is_integral(t) or _is_fractional(t) for t in (a, b)]
    if all(plain):
        return True
    for wide, narrow in ((a, b), (b, a)):
        if isinstance(wide, DecimalType) and _is_integral(narrow) and isinstance(narrow, AtomicType):
            return wide.precision - wide.scale >= INTEGER_DIGITS[narrow.name]
    return False


_DATETIME_NAMES = ("date", "timestamp", "timestamp_ntz")


def no_wider_type(a: SparkType, b: SparkType) -> bool:
    """Whether Spark's ``findWiderTypeWithoutStringPromotion`` surely finds no type for an array's
    elements and a value beside them: a string beside anything else, a boolean beside anything
    else, a number beside a date, timestamp or binary (NULL goes with anything). False where a
    type may exist, which the caller coerces or refuses.

    Example:
        >>> no_wider_type(AtomicType("int"), StringType()), no_wider_type(AtomicType("int"), AtomicType("double"))
        (True, False)
    """
    if a == b or VOID in (a, b):
        return False
    if any(isinstance(t, (ArrayType, MapType, StructType)) for t in (a, b)):
        return coercible(a) and coercible(b) and nested_wider_type(a, b, strings=False) is None
    kinds = [isinstance(t, StringType) for t in (a, b)], [t == AtomicType("boolean") for t in (a, b)]
    if any(any(k) and not all(k) for k in kinds):
        return True
    numbers = [_is_integral(t) or _is_fractional(t) or isinstance(t, DecimalType) for t in (a, b)]
    others = [isinstance(t, AtomicType) and t.name in (*_DATETIME_NAMES, "binary") for t in (a, b)]
    return (numbers[0] and others[1]) or (numbers[1] and others[0])


def different_element_types(called: str, types: list[SparkType], *, value: bool) -> OptimizeError:
    """Spark's ``DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES`` (an array and a value, ``value``)
    or ``BINARY_ARRAY_DIFF_TYPES`` (two arrays) for ``called`` of elements of ``types``."""
    shown = ", ".join(f'"{_spark_type_name(t)}"' for t in types)
    if value:
        return OptimizeError(
            f'Cannot resolve "{called}" due to data type mismatch: Input to `{called}` should have been "ARRAY" '
            f"followed by a value with same element type, but it's [{shown}].",
            error_class="DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES",
        )
    return OptimizeError(
        f'Cannot resolve "{called}" due to data type mismatch: Input to function `{called}` should have been two '
        f'"ARRAY" with same element type, but it\'s [{shown}].',
        error_class="DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES",
    )


def _check_array_comparison(node: exp.Expr, typer: _Typer) -> None:
    """Arrays compared whose elements Spark finds no tightest common type for (``array(i) <
    array(d)``, two decimals that differ) raise its BINARY_OP_DIFF_TYPES (DuckDB widens them)."""
    left, right = typer.of(node.this), typer.of(node.expression)
    if not (isinstance(left, ArrayType) and isinstance(right, ArrayType)):
        return
    if not tightest_common(left.element, right.element):
        raise _incompatible_operands(node, left, right)


def _check_map_comparison(node: exp.Expr, typer: _Typer) -> None:
    """Values holding a map compared (a map, an array of arrays of maps, a struct of one) raise
    as Spark's analyzer checks them: it first casts both sides to their tightest common type
    (``BINARY_OP_DIFF_TYPES`` where there is none: a map of bigints beside one of strings, structs
    of other field names), then refuses to order that type (``INVALID_ORDERING_TYPE``, naming it:
    ``array(map(1L, 'a')) = array(map(1.5D, 'b'))`` compares ``ARRAY<MAP<DOUBLE, STRING>>``)."""
    left, right = (VOID if isinstance(_unparen(side), exp.Null) else typer.of(side) for side in (node.this, node.expression))
    if left is None or right is None or not (_has_map(left) or _has_map(right)):
        return
    if VOID not in (left, right) and not tightest_common(left, right):
        raise _incompatible_operands(node, left, right)
    common = right if left == VOID else left if left == right or right == VOID else nested_common_type([left, right])
    # Spark's a <> b is NOT (a = b): its EqualTo refuses the map; a NULLIF compares with `=` too
    symbol = "=" if isinstance(node, (exp.NEQ, exp.Nullif)) else _BINARY_SYMBOLS.get(type(node), "=")
    named = exp.EQ(this=node.this.copy(), expression=node.expression.copy()) if isinstance(node, exp.NEQ) else node
    raise OptimizeError(
        f'Cannot resolve "{spark_name(named, top=False) or _spark_text(named)}" due to data type mismatch: The `{symbol}` '
        f'does not support ordering on type "{(common or left).to_sql()}".',
        error_class="DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
    )


def _check_struct_comparison(node: exp.Expr, typer: _Typer) -> None:
    """Structs compared field by field: Spark finds no common type for a string field beside a
    field of another type (DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES)."""
    left, right = typer.of(node.this), typer.of(node.expression)
    nested = (ArrayType, MapType, StructType)
    if (left is not None and right is not None and VOID not in (left, right) and coercible(left) and coercible(right)
            and (isinstance(left, nested) or isinstance(right, nested)) and type(left) is not type(right)):
        raise _incompatible_operands(node, left, right)  # an array beside a string, a struct or a number
    if not (isinstance(left, StructType) and isinstance(right, StructType)):
        return
    if len(left.fields) != len(right.fields):
        raise _incompatible_operands(node, left, right)
    for a, b in zip(left.fields, right.fields):
        if (isinstance(a.type, StringType)) != (isinstance(b.type, StringType)):
            raise _incompatible_operands(node, left, right)


_BOOLEAN = AtomicType("boolean")


def _check_boolean_arithmetic(node: exp.Expr, typer: _Typer) -> None:
    """Arithmetic, negation and ``abs`` of a boolean raise Spark's analysis errors (Spark has
    no implicit cast from a boolean to a number; DuckDB's binder failed without a class): a boolean
    beside a number or NULL is BINARY_OP_DIFF_TYPES, beside a boolean or a string BINARY_OP_WRONG_TYPE;
    arithmetic of two strings is BINARY_OP_WRONG_TYPE too."""
    if isinstance(node, _ARITHMETIC):
        left, right = (VOID if isinstance(side, exp.Null) else typer._part(_unparen(side)) for side in (node.this, node.expression))
        if isinstance(left, StringType) and isinstance(right, StringType):
            raise OptimizeError(
                f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: the binary operator requires the '
                'input type ("NUMERIC" or "INTERVAL"), not "STRING".',
                error_class="DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE",
            )
        if _BOOLEAN not in (left, right) or left is None or right is None:
            return
        other = right if left == _BOOLEAN else left
        if other == _BOOLEAN or isinstance(other, StringType):
            raise OptimizeError(
                f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: the binary operator requires the '
                'input type ("NUMERIC" or "INTERVAL"), not "BOOLEAN".',
                error_class="DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE",
            )
        raise _incompatible_operands(node, left, right)
    if isinstance(node, (exp.Neg, exp.Abs)) and typer._part(_unparen(node.this)) == _BOOLEAN:
        raise OptimizeError(
            f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: the first parameter requires a numeric '
            'type, however it has the type "BOOLEAN"',
            error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        )


# Spark's string functions that cast a variant argument to a string implicitly (measured on PySpark;
# to_date too: to_date(v:s) raises CAST_INVALID_INPUT naming the string).
_VARIANT_AS_STRING = (
    exp.Concat, exp.DPipe, exp.ConcatWs, exp.Upper, exp.Lower, exp.Length, exp.Substring, exp.Like, exp.Trim,
    exp.Replace, exp.StrPosition, exp.Pad, exp.RegexpReplace, exp.StartsWith, exp.TsOrDsToDate,
)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv)
# Spark's numeric functions and aggregates, which take no variant (no implicit cast from one).
_NUMERIC_ONLY = (exp.Neg, exp.Abs, exp.Sum, exp.Avg)


_AS_VARIANT = "vpush_as_variant"  # meta key: a branch Spark casts to a variant (see below)


def _check_date_argument(node: exp.Expr, typer: _Typer) -> None:
    """Spark's ``DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE`` for the first argument of ``trunc``,
    ``next_day`` or a date or time part (``day``, ``year``, ``hour``, ...) of a type its implicit
    cast to a date or timestamp does not take (it takes a string, a date, a timestamp and a
    timestamp_ntz; ``trunc(i, 'MM')`` and ``day(i)`` of an int raise, where DuckDB's cast of the
    int failed without Spark's class)."""
    argument = node.this
    if isinstance(argument, exp.TsOrDsToDate) and argument.args.get("format") is None:
        argument = argument.this  # sqlglot's wrapping of a date part's argument (dayofmonth(x))
    # a predicate is a boolean, which the typer leaves untyped (weekofyear(i > 0))
    kind = _BOOLEAN if isinstance(argument.unnest(), (exp.Predicate, exp.Connector, exp.Not)) else typer.of(argument)
    if kind is None or isinstance(argument, exp.Null) or isinstance(kind, StringType) or kind in (AtomicType("date"), *_TIMESTAMPS, VOID, VARIANT):
        return
    required = "TIMESTAMP" if isinstance(node, (exp.Hour, exp.Minute, exp.Second)) else "DATE"
    raise OptimizeError(
        f'Cannot resolve "{spark_name(node) or _spark_text(node)}" due to data type mismatch: The first parameter requires '
        f'the "{required}" type, however "{spark_name(argument) or _spark_text(argument)}" has the type "{_spark_type_name(kind)}".',
        error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
    )


def _check_variant_operands(node: exp.Expr, typer: _Typer) -> None:
    """Raise Spark's analysis error where a variant meets an operator or function that takes none:
    arithmetic and comparison with another type (Spark casts no variant implicitly, and a string
    literal only in a comparison), negation, ``abs``, ``sum``, ``avg``, a subscript."""
    if isinstance(node, (*_ARITHMETIC, *_COMPARISONS)):
        left, right = typer.of(node.this), typer.of(node.expression)
        if (left == VARIANT) == (right == VARIANT) or isinstance(node.this, exp.Null) or isinstance(node.expression, exp.Null):
            return
        other = right if left == VARIANT else left
        if other is None or (isinstance(other, StringType) and isinstance(node, _COMPARISONS)):
            return  # a comparison with a string casts the string to a variant: INVALID_ORDERING_TYPE
        raise _incompatible_operands(node, left, right, "BINARY_OP_WRONG_TYPE" if isinstance(other, StringType) else "BINARY_OP_DIFF_TYPES")
    if isinstance(node, exp.In) and not node.args.get("query") and typer.of(node.this) == VARIANT:
        others = [typer.of(e) for e in node.expressions if not isinstance(e, exp.Null)]
        if any(t is not None and t != VARIANT and not isinstance(t, StringType) for t in others):
            raise _different_types(node, "in")
        raise _not_orderable(node, "`in` comparison")
    branches: list[exp.Expr | None] = []
    if isinstance(node, exp.Coalesce):
        branches = [node.this, *node.expressions]
    elif isinstance(node, exp.If) and not isinstance(node.parent, exp.Case):
        branches = [node.args["true"], node.args.get("false")]
    elif isinstance(node, exp.Case):
        branches = [i.args["true"] for i in node.args.get("ifs") or []] + [node.args.get("default")]
    kinds = [typer.of(b) for b in branches if isinstance(b, exp.Expr) and not isinstance(b, exp.Null)]
    if VARIANT in kinds and any(t is not None and t != VARIANT and not isinstance(t, StringType) for t in kinds):
        raise _different_types(node, type(node).__name__.lower())
    if VARIANT in kinds:
        # Spark casts a string beside a variant to a variant (a variant string)
        for branch in branches:
            if isinstance(branch, exp.Expr) and isinstance(typer.of(branch), StringType):
                branch.meta[_AS_VARIANT] = True
    if isinstance(node, (*_DATE_ARGUMENT_FUNCTIONS, *_TIMESTAMP_ARGUMENT_FUNCTIONS)) and typer.of(node.this) == VARIANT:
        raise OptimizeError(
            f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: the first parameter requires a date or '
            'timestamp type, however it has the type "VARIANT"',
            error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        )
    if isinstance(node, (exp.DateTrunc, exp.NextDay, *_DATETIME_PARTS)):
        _check_date_argument(node, typer)
    if isinstance(node, (exp.AtTimeZone, exp.FromTimeZone)):
        _check_utc_shift_argument(node, typer)
    if isinstance(node, _NUMERIC_ONLY) and typer.of(node.this) == VARIANT:
        raise OptimizeError(
            f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: the first parameter requires a numeric '
            'type, however it has the type "VARIANT"',
            error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        )
    base = typer.of(node.this) if isinstance(node, exp.Bracket) else None
    if isinstance(node, exp.Bracket) and (isinstance(base, (StringType, DecimalType)) or (
        isinstance(base, AtomicType) and base != VARIANT
    )):
        raise OptimizeError(
            f'Can\'t extract a value from "{_spark_text(node.this)}". Need a complex type [STRUCT, ARRAY, MAP] but got '
            f'"{_spark_type_name(base)}"',
            error_class="INVALID_EXTRACT_BASE_FIELD_TYPE",
        )
    if isinstance(node, exp.Bracket) and typer.of(node.this) == VARIANT:
        raise OptimizeError(
            f'Can\'t extract a value from "{_spark_text(node.this)}". Need a complex type [STRUCT, ARRAY, MAP] but got '
            '"VARIANT"',
            error_class="INVALID_EXTRACT_BASE_FIELD_TYPE",
        )


def _check_lambda_field_base(node: exp.Expr, typer: _Typer) -> None:
    """Raise Spark's INVALID_EXTRACT_BASE_FIELD_TYPE for a field of a lambda's variable (``y.a``,
    ``y.a.b``) where the variable, or a field read on the way, holds a scalar
    (``transform(array(1), y -> y.a)``), where DuckDB's binder fails without Spark's class. Spark
    names the variable ``namedlambdavariable()``."""
    if not isinstance(node, exp.Dot) or (isinstance(node.parent, exp.Dot) and node.arg_key == "this"):
        return  # (the outermost read of a chain)
    names: list[str] = []
    base: exp.Expr = node
    while isinstance(base, exp.Dot) and isinstance(base.expression, exp.Identifier):
        names.insert(0, base.expression.name)
        base = base.this
    if not isinstance(base, exp.Identifier) or base.name.lower() not in _lambda_variables(base):
        return
    kind = typer.of(base)
    read = "namedlambdavariable()"
    for name in names:
        if isinstance(kind, (StringType, DecimalType)) or (isinstance(kind, AtomicType) and kind != VARIANT):
            raise OptimizeError(
                f'Can\'t extract a value from "{read}". Need a complex type [STRUCT, ARRAY, MAP] but got "{_spark_type_name(kind)}".',
                error_class="INVALID_EXTRACT_BASE_FIELD_TYPE",
            )
        if not isinstance(kind, StructType):
            return
        matches = [f for f in kind.fields if f.name.lower() == name.lower()]
        if len(matches) != 1:
            return
        kind = matches[0].type
        read += f".{matches[0].name}"


_UTC_SHIFT_ARGUMENT_TYPES = (*_TIMESTAMPS, AtomicType("date"), VOID)


def _check_utc_shift_argument(node: exp.AtTimeZone | exp.FromTimeZone, typer: _Typer) -> None:
    """Refuse as Spark does a ``from_utc_timestamp`` / ``to_utc_timestamp`` of a value that is not
    a timestamp, a date or a string (Spark casts only those to a timestamp; a variant, a number,
    a boolean, a binary or a nested value is DATATYPE_MISMATCH). The cast to a timestamp around the
    argument is sqlglot's (:func:`~vpush.optimizer.dialect.utc_shift_argument`); a path (``v:ts``)
    is refused by the parser."""
    kind = typer.of(utc_shift_argument(node))
    if kind is None or isinstance(kind, StringType) or kind in _UTC_SHIFT_ARGUMENT_TYPES:
        return
    shown = kind.to_sql()
    called = "from_utc_timestamp" if isinstance(node, exp.AtTimeZone) else "to_utc_timestamp"
    raise OptimizeError(
        f'Cannot resolve "{spark_name(node) or called}" due to data type mismatch: the first parameter requires the '
        f'"TIMESTAMP" type, however it has the type "{shown}"',
        error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
    )


def _incompatible_operands(node: exp.Expr, left: SparkType | None, right: SparkType | None,
                           kind: str = "BINARY_OP_DIFF_TYPES") -> OptimizeError:
    """Spark's ``DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES`` (or ``kind``) for a binary operator
    whose operands have types it finds no common type for."""
    return OptimizeError(
        f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: the left and right operands of the '
        f'binary operator have incompatible types ("{_spark_type_name(left)}" and "{_spark_type_name(right)}").',
        error_class=f"DATATYPE_MISMATCH.{kind}",
    )


def _different_types(node: exp.Expr, what: str) -> OptimizeError:
    return OptimizeError(
        f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: input to `{what}` should all be the same '
        'type, but it mixes "VARIANT" with another type',
        error_class="DATATYPE_MISMATCH.DATA_DIFF_TYPES",
    )


def _set_operation_error(column: str) -> OptimizeError:
    return OptimizeError(
        "Cannot have VARIANT type columns in DataFrame which calls set operations (INTERSECT, EXCEPT, "
        f'etc.), but the type of column {column} is "VARIANT"',
        error_class="UNSUPPORTED_FEATURE.SET_OPERATION_ON_VARIANT_TYPE",
    )


def _check_set_operation(operation: exp.SetOperation, left: Mapping[str, SparkType | None]) -> None:
    """A UNION (without ALL), INTERSECT or EXCEPT (with or without ALL) over a variant column
    raises, as in Spark."""
    if isinstance(operation, exp.Union) and not operation.args.get("distinct"):  # UNION ALL keeps rows as they are
        return
    for name, spark_type in left.items():
        if spark_type == VARIANT:
            raise _set_operation_error(name)
        if spark_type is not None and _has_map(spark_type):
            raise _map_set_operation_error(name, spark_type)


def _map_set_operation_error(column: str, spark_type: SparkType) -> OptimizeError:
    return OptimizeError(
        "Cannot have MAP type columns in DataFrame which calls set operations (INTERSECT, EXCEPT, etc.), "
        f'but the type of column {column} is "{spark_type.to_sql()}"',
        error_class="UNSUPPORTED_FEATURE.SET_OPERATION_ON_MAP_TYPE",
    )


def _inline_qualify_window_aliases(select: exp.Select, columns: Mapping[str, Mapping[str, SparkType | None]]) -> None:
    """A QUALIFY over projections that may raise Spark's error, as Spark computes it: a
    reference to such a projection's alias (``CAST(s AS INT) AS c ... QUALIFY row_number() OVER
    (ORDER BY c) = 1``, ``lag(c) OVER (...)``) as its expression, which
    :func:`_window_keys_raise_steadily` then makes acceptable in a window's keys (DuckDB takes no
    alias of an expression with ``error()`` in it there, nor ``error()`` in a window's keys:
    volatile); and every such projection computed for each row QUALIFY reads, so that a row it
    drops still raises (Spark computes the projections below its window)."""
    qualify = select.args.get("qualify")
    if qualify is None:
        return
    aliases = {
        p.alias_or_name.lower(): p.this if isinstance(p, exp.Alias) else p for p in select.expressions
        if _may_raise(p) and p.find(exp.Window) is None
    }
    if not aliases:
        return
    for column in [c for c in in_scope(qualify) if isinstance(c, exp.Column) and not c.table]:
        name = column.name.lower()
        if name in aliases and not any(name in source for source in columns.values()):
            column.replace(exp.Paren(this=aliases[name].copy()))
    # Spark computes the projections below its window and QUALIFY's filter, for every row: one
    # that fails raises though QUALIFY drops its row, where DuckDB computes them after QUALIFY.
    # Computed first in the condition (a CASE: DuckDB reorders the parts of an AND by cost; a
    # struct: its fields computed for every row), they raise so too.
    condition = qualify.this
    every = exp.Anonymous(this="row", expressions=[node.copy() for node in aliases.values()])
    qualify.set("this", exp.Case(ifs=[exp.If(this=exp.Is(this=every, expression=exp.Null()), true=condition.copy())],
                                 default=condition))


def _window_keys_raise_steadily(select: exp.Select) -> None:
    """Spark's errors in a window's PARTITION BY and ORDER BY keys (``arr[0].sku`` past the end:
    ``INVALID_ARRAY_INDEX``) raised by a failing cast of the message instead of DuckDB's
    ``error()``, which DuckDB's binder refuses there as volatile; the engine finds the message in
    the cast's error as in ``error()``'s (up to the newline put after it)."""
    for window in select.find_all(exp.Window):
        order = window.args.get("order")
        keys = list(window.args.get("partition_by") or []) + list(order.expressions if order is not None else [])
        for key in keys:
            for raised in list(key.find_all(exp.Anonymous)):
                if raised.name.lower() != "error" or len(raised.expressions) != 1:
                    continue
                text = exp.DPipe(this=raised.expressions[0].copy(), expression=exp.Anonymous(this="chr", expressions=[exp.Literal.number(10)]))
                failing = exp.Is(this=exp.cast(text, exp.DataType.build("INT")), expression=exp.Null())
                raised.replace(exp.Case(ifs=[exp.If(this=failing, true=exp.Null())]))


def _filtered_arguments_raise_when_kept(select: exp.Select) -> None:
    """``agg(x) FILTER (WHERE c)``: an argument that may raise Spark's error (``arr[0].sku`` past
    the end) evaluated only for the rows ``c`` keeps, as Spark evaluates it; DuckDB evaluates an
    aggregate's arguments for every row before its FILTER, so ``max_by(arr[0].sku, id) FILTER
    (WHERE size(arr) > 0)`` would raise INVALID_ARRAY_INDEX over an empty array."""
    for filtered in list(select.find_all(exp.Filter)):
        where = filtered.expression
        if filtered.find_ancestor(exp.Select) is not select or not isinstance(where, exp.Where):
            continue
        # agg(x ORDER BY k): x; agg(DISTINCT x) not, as Spark's Expand for a DISTINCT aggregate
        # evaluates x for every row (measured: count(DISTINCT arr[0].sku) FILTER (...) raises)
        arguments = [a.this if isinstance(a, exp.Order) else a for a in filtered.this.iter_expressions()]
        for argument in arguments:
            if isinstance(argument, exp.Distinct):
                continue
            if isinstance(argument, exp.Expr) and _may_raise(argument):
                guarded = exp.Case(ifs=[exp.If(this=where.this.copy(), true=argument.copy())])
                argument.replace(guarded)
        # a rewrite that put the argument into the condition (collect_list's `c AND NOT x IS
        # NULL`): each conjunct after the first evaluated only where those before hold, as
        # Spark's And evaluates its right side
        parts = conjuncts(where.this)
        if len(parts) > 1 and any(_may_raise(c) for c in parts[1:]):
            folded = parts[-1].copy()
            for conjunct in reversed(parts[:-1]):
                folded = exp.Case(ifs=[exp.If(this=conjunct.copy(), true=folded)], default=exp.false())
            where.set("this", folded)


def _may_raise(node: exp.Expr) -> bool:
    """Whether ``node`` holds a rewrite that raises Spark's error (DuckDB's ``error()``)."""
    return any(call.name.lower() == "error" for call in node.find_all(exp.Anonymous))


def _null_constant(node: exp.Expr) -> bool:
    """Whether ``node`` is a NULL literal, cast or not."""
    node = _unparen(node)
    while isinstance(node, exp.Cast):
        node = _unparen(node.this)
    return isinstance(node, exp.Null)


def _integral_constant(node: exp.Expr) -> int | None:
    """The value of an integer literal through parentheses, casts and minus signs, else None."""
    value = number_constant(node)
    return value if isinstance(value, int) else None


def _check_negated_constant(node: exp.Neg, typer: _Typer) -> None:
    """``-x`` of a constant ``x`` at its integral type's smallest value made Spark's
    ``ARITHMETIC_OVERFLOW`` where it is computed (DuckDB folds it into a wider type): the query
    of constants computes it first where Spark's constant folding does, over no rows too, and
    not in a branch no row takes, under ``LIMIT 0`` or in a null test (``IS NULL`` of it is
    false to Spark's ``NullPropagation``), where Spark answers (a row that reaches such a test
    computes it still)."""
    kind = typer.of(node.this)
    if not _is_integral(kind) or _negative_integer_literal(node) is not None:
        return  # (-2147483648 written so is one literal, not a negation)
    assert isinstance(kind, AtomicType)
    value = _integral_constant(node.this)
    bits = INTEGER_WIDTHS.get(kind.name)
    if value is not None and bits is not None and value == -(1 << (bits - 1)):
        message = 'overflow. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.'
        raising = spark_error("ARITHMETIC_OVERFLOW", message, exp.DataType.build(kind.name))
        named = spark_name(node, top=False)
        if named is not None:
            raising.meta[_TRIED_NAME] = named  # named as the negation it stands for
        typer.set_type(node.replace(raising), kind)


def _check_arithmetic(select: exp.Select, typer: _Typer) -> None:
    """Raise Spark's analysis error for arithmetic on a struct, array or map, where DuckDB's
    binder fails without Spark's class: ``DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE`` for two
    operands of one type (``s + s``), ``DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES`` for two types
    (``s + 1``); and Spark's ``ARITHMETIC_OVERFLOW`` for the negation of a constant at its
    integral type's smallest value (``-(-2147483648)``, ``-(-128Y)``), which Spark's constant
    folding raises even over no rows, where DuckDB folds the constant into a wider type."""
    parts = [p for p in select.expressions]
    parts += [select.args[k] for k in ("where", "having", "qualify") if select.args.get(k) is not None]
    for part in parts:
        for node in in_scope(part):
            if isinstance(node, exp.Neg):
                _check_negated_constant(node, typer)
            if not isinstance(node, _ARITHMETIC):
                continue
            operands = [node.this, node.expression]
            kinds = [typer.of(o) for o in operands]
            if isinstance(node, exp.IntDiv):
                _check_integral_divide(node, *[VOID if isinstance(_unparen(o), exp.Null) else k for o, k in zip(operands, kinds)])
            if not any(isinstance(k, (StructType, ArrayType, MapType)) for k in kinds):
                continue
            left, right = [VOID if isinstance(_unparen(o), exp.Null) else k for o, k in zip(operands, kinds)]
            if left is None or right is None:
                continue
            if left == right:
                raise OptimizeError(
                    f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: the binary operator requires '
                    f'numeric or interval input types, not "{_spark_type_name(left)}".',
                    error_class="DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE",
                )
            raise _incompatible_operands(node, left, right)


_FLOATING = (AtomicType("float"), _DOUBLE)


def _check_integral_divide(node: exp.IntDiv, left: SparkType | None, right: SparkType | None) -> None:
    """Spark's errors for ``div`` of a float or a double, which DuckDB divides (``div(1.5D, 2)``
    was 0.75): Spark's ``IntegralDivide`` takes a bigint or a decimal only. A decimal beside a
    float or double is cast to a double first (``DecimalPrecision``), and so is a string beside
    one; then two operands of one type raise ``BINARY_OP_WRONG_TYPE``, two types
    ``BINARY_OP_DIFF_TYPES`` (measured on PySpark 4.3: ``div(1.5BD, 2.5D)`` the one, ``div(i,
    1.5D)`` and ``div(CAST(x AS FLOAT), 2.5)`` the other)."""
    if left not in _FLOATING and right not in _FLOATING:
        return
    # a decimal beside a float or double, and a string beside one, are read as a double first
    left, right = (_DOUBLE if isinstance(k, (DecimalType, StringType)) else k for k in (left, right))
    if left != right:
        raise _incompatible_operands(node, left, right)
    raise OptimizeError(
        f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: the binary operator requires the input type '
        f'("BIGINT" or "DECIMAL"), not "{_spark_type_name(left)}".',
        error_class="DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE",
    )


def _incompatible_column(operation: exp.SetOperation, i: int, a: SparkType, b: SparkType) -> OptimizeError:
    """Spark's ``INCOMPATIBLE_COLUMN_TYPE`` for the ``i``-th columns of a set operation's branches."""
    return OptimizeError(
        f"{operation.key.upper()} can only be performed on tables with compatible column types. The {_ordinal(i)} "
        f'column of the second table is "{_spark_type_name(b)}" type which is not compatible with '
        f'"{_spark_type_name(a)}" at the same column of the first table.',
        error_class="INCOMPATIBLE_COLUMN_TYPE",
    )


def _widen_set_operation(
    operation: exp.SetOperation, left: Mapping[str, SparkType | None], right: Mapping[str, SparkType | None],
    functions: dict[str, SparkType], nested_cast: Callable[[exp.Expr, SparkType, SparkType], exp.Expr] | None = None,
) -> list[tuple[int, SparkType]]:
    """The columns of a UNION, INTERSECT or EXCEPT as Spark's ``WidenSetOperationTypes`` types
    them, one pair of branches at a time: a string beside a number a bigint or a double read
    strictly (:func:`string_branch_type`), beside a date or a timestamp that type (Spark's
    CAST_INVALID_INPUT for 'a'), numbers of different types their :func:`wider_common_type`
    (DuckDB's differs for a bigint beside a decimal and a float beside an integer); each branch's
    projection cast, down to the SELECTs of a nested set operation. The places changed, with
    their types.

    Raises:
        OptimizeError: ``INCOMPATIBLE_COLUMN_TYPE`` for a boolean, date or timestamp beside a number.
    """
    sides = (operation.left, operation.right)
    if not all(_projections_castable(side, len(left)) for side in sides) or len(left) != len(right):
        return []
    changed = []
    for i, (a, b) in enumerate(zip(left.values(), right.values())):
        if a is None or b is None or a == b or VOID in (a, b):
            continue
        if _struct_names_differ(a, b):
            if isinstance(operation, exp.Union) and _alike_but_names(a, b):
                # Spark's UNION takes structs of the same types by position (the first
                # branch's names); DuckDB's pairs their fields by name
                _rename_projection(operation.right, i, b, a)
                changed.append((i, a))
                continue
            # (INTERSECT and EXCEPT need a wider type, which structs of other names have not)
            raise _incompatible_column(operation, i, a, b)
        if any(isinstance(k, (ArrayType, MapType, StructType)) for k in (a, b)) and coercible(a) and coercible(b):
            # arrays, maps and structs widened part by part (a string element beside a number a
            # bigint or a double, beside a date that date; DuckDB made both strings), each
            # branch's projection cast, which the rewrite casts part by part as Spark does
            target = nested_wider_type(a, b)
            # (keys a cast to doubles may make equal are cast part by part: _rekeyed_map)
            merging = target is not None and any(_map_keys_merge(t, target) for t in (a, b))
            numeric_keys = target is not None and not merging and any(_map_keys_differ(t, target) for t in (a, b))
            # (numbers widened inside maps' keys are cast as below: DuckDB's cast of them is Spark's)
            if not (numeric_keys and _numeric_common_type([a, b]) is not None):
                if target is None:
                    raise _incompatible_column(operation, i, a, b)
                if nested_cast is not None:
                    for side, kind in zip(sides, (a, b)):
                        if kind != target:
                            _cast_projection(side, i, kind, target, functions, nested_cast)
                    changed.append((i, target))
                continue
        numeric = [_is_integral(k) or _is_fractional(k) or isinstance(k, DecimalType) for k in (a, b)]
        if any(numeric) and any(k in (_BOOLEAN, *_DATETIMES) for k in (a, b)):
            raise _incompatible_column(operation, i, a, b)
        target = string_branch_type([a, b])
        if target is None and any(isinstance(k, StringType) for k in (a, b)):
            other = b if isinstance(a, StringType) else a
            target = other if other in (*_DATETIMES, _BOOLEAN) else None
        if target is None:
            target = _numeric_common_type([a, b])
        if target is None:
            continue
        for side, kind in zip(sides, (a, b)):
            if kind != target:
                _cast_projection(side, i, kind, target, functions)
        changed.append((i, target))
    return changed


def _struct_names_differ(a: SparkType, b: SparkType) -> bool:
    """Whether a struct in ``a`` names a field otherwise (but for case) than the struct in the
    same place in ``b``."""
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return _struct_names_differ(a.element, b.element)
    if isinstance(a, MapType) and isinstance(b, MapType):
        return _struct_names_differ(a.key, b.key) or _struct_names_differ(a.value, b.value)
    if isinstance(a, StructType) and isinstance(b, StructType):
        return len(a.fields) != len(b.fields) or any(
            x.name.lower() != y.name.lower() or _struct_names_differ(x.type, y.type) for x, y in zip(a.fields, b.fields))
    return False


def _alike_but_names(a: SparkType, b: SparkType) -> bool:
    """Whether ``a`` and ``b`` are the same type but for the names of some struct's fields."""
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return _alike_but_names(a.element, b.element)
    if isinstance(a, MapType) and isinstance(b, MapType):
        return _alike_but_names(a.key, b.key) and _alike_but_names(a.value, b.value)
    if isinstance(a, StructType) and isinstance(b, StructType):
        return len(a.fields) == len(b.fields) and all(_alike_but_names(x.type, y.type) for x, y in zip(a.fields, b.fields))
    return a == b


def rebuilt_as(value: exp.Expr, source: SparkType, target: SparkType,
               leaf: Callable[[exp.Expr, SparkType, SparkType], exp.Expr], depth: int = 0) -> exp.Expr:
    """``value`` of ``source`` rebuilt as ``target`` part by part, as Spark pairs the parts of
    nested values: each array element and map value, and each struct field by position under the
    target's names (DuckDB pairs fields by name), a NULL kept; ``leaf(part, its type, target's)``
    gives each part of other types that differ.

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for a map's keys of another type (Spark keeps
            keys a cast makes equal), a part of another kind (a struct where a string is wanted,
            which Spark prints), and target names DuckDB's structs cannot hold (alike but for case).
    """
    if source == target:
        return value
    if source == VOID and target.to_sql_type() is not None:
        return exp.cast(exp.Null(), _sql_type(target))  # a void part (array(NULL)'s) is NULL
    name = f"__vpush_part{depth}"
    variable = exp.column(name)
    if isinstance(source, ArrayType) and isinstance(target, ArrayType):
        element = rebuilt_as(variable, source.element, target.element, leaf, depth + 1)
        return exp.Anonymous(this="list_transform", expressions=[value, exp.Lambda(this=element, expressions=[exp.to_identifier(name)])])
    if isinstance(source, MapType) and isinstance(target, MapType) and source.key != target.key:
        return _rekeyed_map(value, source, target, leaf, depth)
    if isinstance(source, MapType) and isinstance(target, MapType):
        item = rebuilt_as(exp.Anonymous(this="struct_extract", expressions=[variable.copy(), exp.Literal.string("value")]),
                          source.value, target.value, leaf, depth + 1)
        entry = exp.Struct(expressions=[
            exp.PropertyEQ(this=exp.to_identifier("key"), expression=exp.Anonymous(
                this="struct_extract", expressions=[variable.copy(), exp.Literal.string("key")])),
            exp.PropertyEQ(this=exp.to_identifier("value"), expression=item)])
        return exp.Anonymous(this="map_from_entries", expressions=[exp.Anonymous(this="list_transform", expressions=[
            exp.Anonymous(this="map_entries", expressions=[value]), exp.Lambda(this=entry, expressions=[exp.to_identifier(name)])])])
    if isinstance(source, StructType) and isinstance(target, StructType):
        names = [f.name for f in target.fields]
        if len({n.lower() for n in names}) != len(names) or "" in names:
            _refuse("CAST", "a struct to a struct of fields named alike but for case, or named ''")
        built = exp.Struct(expressions=[
            exp.PropertyEQ(this=exp.to_identifier(t.name, quoted=True), expression=rebuilt_as(
                exp.Anonymous(this="struct_extract", expressions=[value.copy(), exp.Literal.string(f.name)]), f.type, t.type, leaf, depth + 1))
            for f, t in zip(source.fields, target.fields)])
        missing = exp.Is(this=value.copy(), expression=exp.Null())
        return exp.Case(ifs=[exp.If(this=missing, true=exp.cast(exp.Null(), _sql_type(target)))], default=built)
    if isinstance(source, (ArrayType, MapType, StructType)) or isinstance(target, (ArrayType, MapType, StructType)):
        _refuse("CAST", "an array, map or struct one of whose parts is cast to or from another kind")
    return leaf(value, source, target)


def _rekeyed_map(value: exp.Expr, source: MapType, target: MapType,
                 leaf: Callable[[exp.Expr, SparkType, SparkType], exp.Expr], depth: int) -> exp.Expr:
    """A map of number keys as a map of wider ones (a coercion's ``map(1L, 'a')`` beside
    ``map(1.5D, 'b')``): each key by ``leaf``, each value by :func:`rebuilt_as`. Spark's cast keeps
    two keys it makes equal (``9007199254740993L`` and ``...992L`` as doubles: both entries, a
    lookup finding the first; measured), which a DuckDB map cannot hold: refused where that
    happens, as the query runs (``VPUSH_UNSUPPORTED_FUNCTION``).

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for keys other than numbers.
    """
    numbers = [_is_integral(t) or _is_fractional(t) or isinstance(t, DecimalType) for t in (source.key, target.key)]
    if not all(numbers):
        _refuse("CAST", "a map to a map of another key type")
    name = f"__vpush_key{depth}"
    keys = exp.Anonymous(this="list_transform", expressions=[exp.Anonymous(this="map_keys", expressions=[value.copy()]), exp.Lambda(
        this=leaf(exp.column(name), source.key, target.key), expressions=[exp.to_identifier(name)])])
    items = rebuilt_as(exp.Anonymous(this="map_values", expressions=[value.copy()]), ArrayType(source.value), ArrayType(target.value),
                       leaf, depth + 1)
    refused = ("CAST: the DuckDB engine does not give Spark's answer for a map whose keys its cast to "
               f"{target.key.to_spark()} makes equal (Spark keeps both entries); the Spark engine runs it")

    def rekeyed(own: Callable[[str], exp.Expression]) -> exp.Expression:
        merged = exp.LT(this=exp.Anonymous(this="len", expressions=[exp.Anonymous(this="list_distinct", expressions=[own("k")])]),
                        expression=exp.Anonymous(this="len", expressions=[own("k")]))
        return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=exp.cast(exp.Null(), _sql_type(target))),
                             exp.If(this=merged, true=spark_error("VPUSH_UNSUPPORTED_FUNCTION", refused, _sql_type(target)))],
                        default=exp.Anonymous(this="map", expressions=[own("k"), items]))

    return _with_operands({"k": keys}, rekeyed)  # the keys cast once


def _rename_projection(branch: exp.Expr, i: int, kind: SparkType, target: SparkType) -> None:
    """The ``i``-th projection of ``branch`` (of every SELECT of a nested set operation) with its
    structs' fields named as ``target``'s (:func:`rebuilt_as`), under its own name."""
    if isinstance(branch, exp.SetOperation):
        for side in (branch.left, branch.right):
            _rename_projection(side, i, kind, target)
        return
    projection = branch.expressions[i]
    value = projection.this if isinstance(projection, exp.Alias) else projection
    renamed = rebuilt_as(value.copy(), kind, target, lambda part, _, __: part)  # only names differ
    projection.replace(exp.alias_(renamed, exp.to_identifier(projection.alias_or_name, quoted=True)))


def _with_null_projections(branch: exp.Expr, types: Mapping[str, SparkType | None]) -> dict[str, SparkType | None]:
    """A set operation's branch's column types, a bare NULL projected by a SELECT typed as NULL
    (which takes the other branch's type)."""
    out = dict(types)
    if isinstance(branch, exp.Select) and len(branch.expressions) == len(out):
        for name, projection in zip(list(out), branch.expressions):
            if out[name] is None and isinstance(_unparen(projection.unalias()), exp.Null):
                out[name] = VOID
    return out


def _projections_castable(branch: exp.Expr, count: int) -> bool:
    """Whether each SELECT under ``branch`` (itself, or those of a nested set operation) lists
    ``count`` projections and no star, for :func:`_cast_projection`."""
    if isinstance(branch, exp.SetOperation):
        return _projections_castable(branch.left, count) and _projections_castable(branch.right, count)
    return isinstance(branch, exp.Select) and len(branch.expressions) == count and not any(
        p.is_star for p in branch.expressions
    )


def _cast_projection(branch: exp.Expr, i: int, kind: SparkType | None, target: SparkType, functions: dict[str, SparkType],
                     nested_cast: Callable[[exp.Expr, SparkType, SparkType], exp.Expr] | None = None) -> None:
    """The ``i``-th projection of ``branch`` (of every SELECT of a nested set operation, which
    all give ``kind`` there) cast to ``target`` under its own name (an array, map or struct by
    ``nested_cast``: the branches are already rewritten, and a cast of one is not)."""
    if isinstance(branch, exp.SetOperation):
        for side in (branch.left, branch.right):
            _cast_projection(side, i, kind, target, functions, nested_cast)
        return
    projection = branch.expressions[i]
    value = projection.this if isinstance(projection, exp.Alias) else projection
    name = projection.alias_or_name
    if nested_cast is not None and kind is not None and isinstance(target, (ArrayType, MapType, StructType)):
        cast: exp.Expr = nested_cast(value.copy(), kind, target)
    elif isinstance(kind, StringType) and isinstance(target, AtomicType) and target in _DATETIMES:
        cast = string_to_datetime(value.copy(), target, functions, strict=True)
    else:
        cast = _branch_as(value, kind, target)
    projection.replace(exp.alias_(cast, exp.to_identifier(name, quoted=True)))


def string_to_datetime(value: exp.Expr, target: AtomicType, functions: dict[str, SparkType], *, strict: bool) -> exp.Expression:
    """Spark's cast of the string ``value`` to ``target`` (a date, timestamp or timestamp_ntz), by
    the engine function recorded in ``functions``; NULL for bad input unless ``strict``."""
    name = STRING_DATETIME_FUNCTIONS[target.name]
    functions[name] = target
    arguments: list[exp.Expr] = [value]
    if target.name == "timestamp":
        arguments.append(exp.Anonymous(this="current_setting", expressions=[exp.Literal.string("TimeZone")]))
    arguments.append(exp.Boolean(this=strict))
    return exp.Anonymous(this=name, expressions=arguments)


_NUMERIC_PRECEDENCE = ("tinyint", "smallint", "int", "bigint", "float", "double")


def _wider_of_two(a: SparkType, b: SparkType) -> SparkType | None:
    """Spark's ANSI ``findWiderTypeForTwo`` over atomic types: NULL takes the other, integers and
    floating types by precedence, decimals widened to hold both, a string beside an integer a
    bigint and beside a decimal or floating type a double (``findWiderTypeForString``); None
    where vpush does not follow Spark (dates, nested types)."""
    if a == b:
        return a
    if a == VOID or b == VOID:
        return b if a == VOID else a
    if isinstance(b, StringType):
        a, b = b, a
    if isinstance(a, StringType):
        if _is_integral(b):
            return AtomicType("bigint")
        return _DOUBLE if _is_fractional(b) or isinstance(b, DecimalType) else None
    names = [t.name if isinstance(t, AtomicType) else None for t in (a, b)]
    if all(n in _NUMERIC_PRECEDENCE for n in names):
        wider = max((a, b), key=lambda t: _NUMERIC_PRECEDENCE.index(t.name) if isinstance(t, AtomicType) else -1)
        # a float beside an integer is a double (AnsiTypeCoercion: no precision lost to a float)
        return _DOUBLE if wider == AtomicType("float") else wider
    if any(_is_fractional(t) for t in (a, b)) and all(_is_fractional(t) or isinstance(t, DecimalType) or _is_integral(t) for t in (a, b)):
        return _DOUBLE
    if all(isinstance(t, DecimalType) or _is_integral(t) for t in (a, b)):
        return _wider_decimal([a, b])  # past 38 digits the integral digits kept, as Spark's widerDecimalType
    return None


def wider_common_type(types: list[SparkType | None]) -> SparkType | None:
    """Spark's ANSI ``findWiderCommonType`` over atomic types: the strings first, then folded left
    by :func:`_wider_of_two` (``array(1, 2L, 3.5)``'s decimal(21,1), ``coalesce(s, 0)``'s int,
    ``if(c, r, i)``'s double); NULLs take the others' type; None where a type is unknown or none
    is common."""
    known = [t for t in types if t != VOID]
    if not known or any(t is None for t in known):
        return None
    result: SparkType | None = VOID
    for t in sorted(known, key=lambda t: not isinstance(t, StringType)):
        if result is None or t is None:
            return None
        result = _wider_of_two(result, t)
    return result


def string_branch_type(types: list[SparkType | None]) -> SparkType | None:
    """The type Spark's ANSI coercion gives branches of these types (of a UNION, a CASE,
    ``coalesce``, ``if``, an array's elements, a map's keys or values) where strings are among
    numbers: folded left as Spark's ``findWiderCommonType`` folds them (``coalesce(i, '2')`` is
    a bigint, ``coalesce(d, '2')`` a double, ``coalesce('2', i, d)`` a decimal); None where no
    string meets a number, a type is unknown, or the result is not a bigint or a double (the one
    cast of a string vpush makes exactly here).

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` where Spark's result is a decimal.
    """
    if not any(isinstance(t, StringType) for t in types) or all(isinstance(t, StringType) or t == VOID for t in types):
        return None
    result: SparkType | None = VOID
    for t in types:
        if result is None or t is None:
            return None
        result = _wider_of_two(result, t)
    return result if result in (AtomicType("bigint"), _DOUBLE) or isinstance(result, DecimalType) else None


_DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# java.math.BigDecimal(String) reads any char Character.digit reads: the decimal digits of every
# script in the Basic Multilingual Plane (a digit past it is two chars, which it does not read)
_OTHER_DIGITS = "".join(c for c in map(chr, range(0x80, 0x10000)) if unicodedata.category(c) == "Nd")
_OTHER_DIGITS_ASCII = "".join(str(unicodedata.digit(c)) for c in _OTHER_DIGITS)
_ASCII_DIGITS = str.maketrans(_OTHER_DIGITS, _OTHER_DIGITS_ASCII)


def _malformed_message(value: exp.Expr, target: str) -> exp.Expression:
    """Spark's CAST_INVALID_INPUT message for the string ``value`` cast to ``target``, as SQL
    (the value shown as :func:`~vpush.optimizer.errors.spark_string_value` shows it)."""
    shown = exp.Anonymous(this="replace", expressions=[
        exp.Anonymous(this="replace", expressions=[value.copy(), exp.Literal.string("\\"), exp.Literal.string("\\\\")]),
        exp.Literal.string("'"), exp.Literal.string("\\'")])
    return exp.DPipe(
        this=exp.DPipe(this=exp.Literal.string("The value '"), expression=shown),
        expression=exp.Literal.string(f"' of the type \"STRING\" cannot be cast to \"{target}\" because it is malformed."),
    )


def _string_column_as_decimal(value: exp.Expr, target: DecimalType, strict: bool = True) -> exp.Expression:
    """Spark's ANSI cast of the string ``value`` to ``target`` when the query runs: trimmed as
    ``String.trim`` trims (not U+007F, which the integral casts trim), a ``java.math.BigDecimal``
    (digits of any script in the Basic Multilingual Plane, a point, an exponent)
    rounded HALF_UP to the scale, as DuckDB's cast rounds it; CAST_INVALID_INPUT for another
    text, NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION for a value past the precision (NULL for
    both in ``try_cast``, ``strict`` False). DuckDB's own cast reads ``1_000`` as 1000. A plain
    number is cast at once (:func:`_plain_number`); only other texts are trimmed and their
    digits translated (a translation costs some 20 s per million texts: only where one holds
    other than ASCII)."""
    to = _sql_type(target)
    shown = target.to_sql()
    literal = _unparen(value)
    if isinstance(literal, exp.Literal) and literal.is_string:
        exact = _decimal_of_text(literal.this, target)
        if isinstance(exact, decimal.Decimal) and _fits(exact, target):
            # a constant that fits, as a cast of its exact digits (DuckDB's cast of `1.5e-3`
            # to decimal(4,4) fails: it reads the digits before the exponent into the type)
            return exp.cast(exp.Literal.string(format(exact, "f")), to)

    def too_wide(text: exp.Expression, written: exp.Expression) -> exp.Expression:
        """The error for the plain number ``text`` (as ``written``) past the type: past 38
        integral digits Spark's ``Decimal.fromStringANSI`` names no type."""
        message = exp.DPipe(this=exp.Literal.string(" "), expression=exp.DPipe(this=text.copy(), expression=exp.Literal.string(
            f" cannot be represented as Decimal({target.precision}, {target.scale}).")))
        integral = exp.Anonymous(this="regexp_extract", expressions=[text, exp.Literal.string(r"^[+-]?0*([0-9]*)"), exp.Literal.number(1)])
        unsupported = exp.DPipe(this=exp.DPipe(this=exp.Literal.string("The value "), expression=written), expression=exp.Literal.string(
            f" cannot be interpreted as a numeric since it has more than {MAX_DECIMAL_PRECISION} digits."))
        return exp.Case(ifs=[exp.If(this=exp.GT(this=exp.Length(this=integral), expression=exp.Literal.number(MAX_DECIMAL_PRECISION)),
                                    true=spark_error("NUMERIC_OUT_OF_SUPPORTED_RANGE", unsupported, to))],
                        default=spark_error("NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", message, to))

    def read(operand: Callable[[str], exp.Expression]) -> exp.Expression:
        plain = exp.TryCast(this=operand("v"), to=to)
        at_once = plain if not strict else exp.Coalesce(this=plain, expressions=[too_wide(operand("v"), operand("v"))])
        without_exponent = exp.Anonymous(this="regexp_full_match", expressions=[operand("v"), exp.Literal.string(_POINT_NUMBER)])
        return exp.Case(ifs=[exp.If(this=without_exponent, true=at_once)], default=_with_operands({"t": cleaned(operand)}, lambda own: otherwise(operand, own)))

    def cleaned(operand: Callable[[str], exp.Expression]) -> exp.Expression:
        trimmed = exp.Anonymous(this="regexp_replace", expressions=[
            operand("v"), exp.Literal.string(_JAVA_TRIMMED), exp.Literal.string(""), exp.Literal.string("g")])
        foreign = exp.Anonymous(this="regexp_matches", expressions=[operand("v"), exp.Literal.string(r"[^\x00-\x7f]")])
        translated = exp.Anonymous(this="translate", expressions=[trimmed.copy(), exp.Literal.string(_OTHER_DIGITS), exp.Literal.string(_OTHER_DIGITS_ASCII)])
        return exp.Case(ifs=[exp.If(this=foreign, true=translated)], default=trimmed)

    def otherwise(operand: Callable[[str], exp.Expression], own: Callable[[str], exp.Expression]) -> exp.Expression:
        # BigDecimal's exponent is an int: past it the text is malformed
        exponent = exp.Anonymous(this="regexp_extract", expressions=[own("t"), exp.Literal.string(r"[eE]([+-]?[0-9]+)$"), exp.Literal.number(1)])
        readable = exp.Paren(this=exp.and_(
            exp.Anonymous(this="regexp_full_match", expressions=[own("t"), exp.Literal.string(_DECIMAL_TEXT.pattern)]),
            exp.or_(exp.EQ(this=exponent, expression=exp.Literal.string("")),
                    exp.Not(this=exp.Is(this=exp.TryCast(this=exponent.copy(), to=exp.DataType.build("INT")), expression=exp.Null())))))
        moved = _exponent_moved(own)
        converted = exp.TryCast(this=moved, to=to)
        if not strict:
            return exp.Case(ifs=[exp.If(this=readable, true=converted)], default=exp.cast(exp.Null(), to))
        return exp.Case(ifs=[
            exp.If(this=exp.Is(this=operand("v"), expression=exp.Null()), true=exp.cast(exp.Null(), to)),
            exp.If(this=exp.Not(this=readable), true=spark_error("CAST_INVALID_INPUT", _malformed_message(operand("v"), shown), to)),
            exp.If(this=exp.Is(this=converted, expression=exp.Null()), true=too_wide(moved.copy(), operand("v"))),
        ], default=converted.copy())

    return _with_operands({"v": exp.Paren(this=value.copy())}, read)


_POINT_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)"  # a decimal number without an exponent


def _exponent_moved(own: Callable[[str], exp.Expression]) -> exp.Expression:
    """The decimal number ``own("t")`` (:data:`_DECIMAL_TEXT`) written without its exponent, its
    point moved (``1.5e-3``: ``0.0015``): DuckDB's cast to a decimal reads the digits before an
    exponent into the type, and failed on ``1.5e-3`` to ``decimal(4,4)``. Past 100 places either
    way the value is a zero of the type or past every type: written as ``0`` or as 101 digits."""
    def call(name: str, *args: exp.Expression) -> exp.Expression:
        return exp.Anonymous(this=name, expressions=list(args))

    def number(n: int) -> exp.Expression:
        return exp.Literal.number(n)

    def body(o: Callable[[str], exp.Expression]) -> exp.Expression:
        point = exp.Add(this=o("p"), expression=o("e"))  # the place of the point among the digits
        length = call("length", o("d"))
        zeros = lambda n: call("repeat", exp.Literal.string("0"), exp.Cast(this=n, to=exp.DataType.build("BIGINT")))  # noqa: E731
        moved = exp.Case(ifs=[
            exp.If(this=call("regexp_full_match", o("d"), exp.Literal.string("0*")), true=exp.Literal.string("0")),
            exp.If(this=exp.LT(this=point.copy(), expression=number(-100)), true=exp.Literal.string("0")),
            exp.If(this=exp.GT(this=point.copy(), expression=number(100)), true=call("repeat", exp.Literal.string("9"), number(101))),
            exp.If(this=exp.LTE(this=point.copy(), expression=number(0)),
                   true=exp.DPipe(this=exp.DPipe(this=exp.Literal.string("0."), expression=zeros(exp.Neg(this=exp.Paren(this=point.copy())))),
                                  expression=o("d"))),
            exp.If(this=exp.GTE(this=point.copy(), expression=length.copy()),
                   true=exp.DPipe(this=o("d"), expression=zeros(exp.Sub(this=point.copy(), expression=length.copy())))),
        ], default=exp.DPipe(this=exp.DPipe(this=call("left", o("d"), point.copy()), expression=exp.Literal.string(".")),
                             expression=call("substr", o("d"), exp.Add(this=point.copy(), expression=number(1)))))
        return exp.Case(ifs=[exp.If(this=exp.Is(this=o("e"), expression=exp.Null()), true=own("t"))],  # no exponent: as written
                        default=exp.DPipe(this=o("s"), expression=moved))

    mantissa = call("regexp_extract", own("t"), exp.Literal.string(r"^[+-]?([0-9]*\.?[0-9]*)"), number(1))
    return _with_operands({
        "s": call("regexp_extract", own("t"), exp.Literal.string("^-"), number(0)),
        "d": call("replace", mantissa.copy(), exp.Literal.string("."), exp.Literal.string("")),
        "p": exp.Sub(this=call("strpos", exp.DPipe(this=mantissa.copy(), expression=exp.Literal.string(".")), exp.Literal.string(".")),
                     expression=number(1)),
        "e": exp.TryCast(this=call("regexp_extract", own("t"), exp.Literal.string(r"[eE]([+-]?[0-9]+)$"), number(1)),
                         to=exp.DataType.build("BIGINT")),
    }, body)


def _string_literal_as_decimal(value: exp.Expr, target: DecimalType) -> exp.Expression:
    """A string literal cast to the decimal Spark's coercion gives strings among integers and
    decimals (``coalesce('2', i, d)``'s decimal(22,2)), as Spark's cast reads it: trimmed, a
    ``java.math.BigDecimal``, rounded HALF_UP to the scale.

    Raises:
        OptimizeError: CAST_INVALID_INPUT for a literal that is not a number (Spark folds the cast
            of a constant when it plans the query), NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION for one past
            the precision; a string that is not a literal raises them when the query runs
            (:func:`_string_column_as_decimal`).
    """
    literal = _unparen(value)
    if not (isinstance(literal, exp.Literal) and literal.is_string):
        return _string_column_as_decimal(value, target)
    exact = _decimal_of_text(literal.this, target)
    if exact == "CAST_INVALID_INPUT":
        raise OptimizeError(
            f"The value {spark_string_value(literal.this)} of the type \"STRING\" cannot be cast to \"{target.to_sql()}\" "
            "because it is malformed.",
            error_class="CAST_INVALID_INPUT",
        )
    if isinstance(exact, str):
        raise OptimizeError(
            f"The value {spark_string_value(literal.this)} cannot be interpreted as a numeric since it has more than "
            f"{MAX_DECIMAL_PRECISION} digits.",
            error_class=exact,
        )
    if not _fits(exact, target):
        raise OptimizeError(f" {exact} cannot be represented as Decimal({target.precision}, {target.scale}).",
                            error_class="NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION")
    return exp.cast(exp.Literal.number(str(exact)), _sql_type(target))


def _decimal_of_text(text: str, target: DecimalType) -> decimal.Decimal | str:
    """The string ``text`` as Spark's cast to ``target`` reads it: trimmed as ``String.trim``
    trims, a ``java.math.BigDecimal`` (digits of any script in the Basic Multilingual Plane),
    rounded HALF_UP to the scale (which may pass its precision: :func:`_fits`); else the error
    class of Spark's cast: ``CAST_INVALID_INPUT`` for a text that is no number,
    ``NUMERIC_OUT_OF_SUPPORTED_RANGE`` past 38 integral digits."""
    written = text.strip(_JAVA_TRIM_CHARACTERS).translate(_ASCII_DIGITS)
    if not _DECIMAL_TEXT.fullmatch(written):
        return "CAST_INVALID_INPUT"
    if decimal.Decimal(written).adjusted() >= MAX_DECIMAL_PRECISION:
        return "NUMERIC_OUT_OF_SUPPORTED_RANGE"
    return decimal.Decimal(written).quantize(decimal.Decimal(1).scaleb(-target.scale), rounding=decimal.ROUND_HALF_UP,
                                             context=decimal.Context(prec=200))


def _fits(exact: decimal.Decimal, target: DecimalType) -> bool:
    """Whether ``exact``, rounded to ``target``'s scale, fits its precision."""
    return exact.is_zero() or exact.adjusted() < target.precision - target.scale


def _branch_as(value: exp.Expr, kind: SparkType | None, target: SparkType) -> exp.Expression:
    """A branch among strings and numbers as Spark's ANSI coercion reads it: a string strictly as
    a bigint or as a double (DuckDB would make every branch a string, or its binder refuse), a
    number cast."""
    if isinstance(kind, StringType) and target in (AtomicType("bigint"), _BOOLEAN):
        return _string_to_integral_or_boolean(value.copy(), target, strict=True)
    if isinstance(kind, StringType) and isinstance(target, DecimalType):
        return _string_literal_as_decimal(value, target)
    if isinstance(kind, StringType) and isinstance(target, AtomicType) and target in _FLOATING:
        return _string_as_floating(value, target, strict=True)
    return exp.cast(value.copy(), _sql_type(target))


def _check_correlated_variants(scope: Scope, columns: Mapping[str, Mapping[str, SparkType | None]]) -> None:
    """Raise Spark's error for a scalar or LATERAL subquery correlated on a variant column of
    this SELECT's sources (``(SELECT max(u.id) FROM u WHERE u.k = e.v:k::int)``): Spark refuses
    an outer reference of a type it cannot compare, even where the subquery extracts from it
    (``EXISTS`` and ``IN`` subqueries take it). DuckDB answered."""
    inner = [s for s in scope.subquery_scopes if not isinstance(_subquery_holder(s.expression), (exp.In, exp.Exists))]
    lateral = [s for s in scope.sources.values() if isinstance(s, Scope) and isinstance(s.expression, exp.Lateral)
               and isinstance(s.expression.this, (exp.Subquery, exp.Select))]
    for sub in [*inner, *lateral]:
        for column in sub.external_columns:
            source = columns.get(column.table.lower())
            if source is None:
                continue
            variant = column.meta.get(VARIANT_SOURCE)  # an extraction, a scan's column by now
            if variant is None and source.get(column.name.lower()) == VARIANT:
                variant = column.name
            if variant is not None:
                raise OptimizeError(
                    f"Unsupported subquery expression: Correlated column reference '{column.table}.{variant}' cannot be variant type.",
                    error_class="UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_REFERENCE_DATA_TYPE",
                )


_SORTING_CLAUSES = ("distribute", "order", "sort")
"""A SELECT's clauses of Spark's ``RepartitionByExpression`` and ``Sort``, in the order Spark
checks them (the repartition stands below the sort)."""


def _check_subquery_places(
    select: exp.Select, scope: Scope, tables: Mapping[int, Mapping[str, SparkType | None]], outputs: Mapping[int, Mapping[str, SparkType | None]]
) -> None:
    """Raise Spark's errors for a subquery where Spark's operator cannot hold it (measured on
    PySpark 4.3). In a SELECT's ORDER BY, SORT BY, DISTRIBUTE BY or CLUSTER BY: an ``IN`` or
    ``EXISTS`` subquery, correlated or not, is ``UNSUPPORTED_IN_EXISTS_SUBQUERY``, a correlated
    scalar one (``ORDER BY (SELECT max(id) OVER ())``) ``UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY``;
    anywhere, a subquery whose window reads the outer query (``WHERE id > (SELECT max(id) OVER
    ())``) is ``CORRELATED_REFERENCE``. DuckDB answered them. A subquery's columns are its
    sources' (``tables``, ``outputs``) where vpush cannot tell otherwise."""
    category = "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY"
    for key in _SORTING_CLAUSES:
        clause = select.args.get(key)
        if clause is None:
            continue
        for sub in scope.subquery_scopes:
            if not _lies_in(sub.expression, clause):
                continue
            holder = _subquery_holder(sub.expression)
            if isinstance(holder, exp.Exists) or (isinstance(holder, exp.In) and holder.args.get("query") is not None):
                raise OptimizeError(
                    "Unsupported subquery expression: IN/EXISTS predicate subqueries can only be used in filters, joins, "
                    f"aggregations, window functions, projections, and UPDATE/MERGE/DELETE commands: {_spark_text(holder)}",
                    error_class=f"{category}.UNSUPPORTED_IN_EXISTS_SUBQUERY",
                )
            if _outer_references(sub, tables, outputs):
                raise OptimizeError(
                    "Unsupported subquery expression: Correlated scalar subqueries can only be used in filters, aggregations, "
                    f"projections, and UPDATE/MERGE/DELETE commands: {_spark_text(sub.expression)}",
                    error_class=f"{category}.UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY",
                )
    for sub in scope.subquery_scopes:
        for column in _outer_references(sub, tables, outputs):
            window = column.find_ancestor(exp.Window, exp.Select)
            if isinstance(window, exp.Window):
                raise OptimizeError(
                    "Unsupported subquery expression: Expressions referencing the outer query are not supported outside of "
                    f"WHERE/HAVING clauses: {_spark_text(window)}",
                    error_class=f"{category}.CORRELATED_REFERENCE",
                )


def _outer_references(
    sub: Scope, tables: Mapping[int, Mapping[str, SparkType | None]], outputs: Mapping[int, Mapping[str, SparkType | None]]
) -> list[exp.Column]:
    """The columns of the subquery ``sub`` that surely read its outer query: qualified by no
    source of its own, or unqualified where it has no source, or none of its sources (whose
    columns are all known) has the name."""
    known = _sources_columns(sub, tables, outputs)
    unknown = any(not columns or "*" in columns for columns in known.values())
    return [
        c for c in sub.external_columns
        if c.table or not sub.sources or (not unknown and not any(c.name.lower() in columns for columns in known.values()))
    ]


def _lies_in(node: exp.Expr, clause: exp.Expr) -> bool:
    """Whether ``node`` lies inside ``clause``."""
    parent = node.parent
    while parent is not None and parent is not clause:
        parent = parent.parent
    return parent is clause


def _subquery_holder(node: exp.Expr) -> exp.Expr | None:
    """What holds a subquery's SELECT: past its parentheses, the IN, EXISTS or expression."""
    holder = node.parent
    while isinstance(holder, (exp.Subquery, exp.Paren)):
        holder = holder.parent
    return holder


def _check_resolved(select: exp.Select, scope: Scope, columns: Mapping[str, Mapping[str, SparkType | None]]) -> None:
    """Raise Spark's ``UNRESOLVED_COLUMN`` for a column no source of the SELECT has.

    DuckDB would bind a WHERE's name to a SELECT alias (``SELECT id + 1 AS x FROM t WHERE x > 2``
    answers on DuckDB; Spark's analyzer raises), and names a missing column among vpush's internal
    ones. Checked only where every source's columns are known, in a SELECT that is not a
    subquery of an expression (whose names may be the enclosing query's).
    """
    if not scope.sources or scope.is_subquery or scope.is_correlated_subquery:
        return
    known: set[str] = set()
    for alias, source in scope.sources.items():
        found = columns.get(alias.lower())
        if not found or "*" in found:
            return  # a source whose columns vpush does not know
        if isinstance(source, Scope) and (source.is_cte or source.is_derived_table):
            named = source.expression.parent
            while isinstance(named, exp.SetOperation):  # a recursive CTE's own branch
                named = named.parent
            if isinstance(named, (exp.CTE, exp.Subquery)) and isinstance(named.args.get("alias"), exp.TableAlias) and named.args["alias"].columns:
                return  # `r(n) AS (...)`: the columns are renamed
    for found in columns.values():  # the sources, and the generators' lateral joins
        known.update(found)
    aliases = {p.alias.lower() for p in select.expressions if isinstance(p, exp.Alias)}
    for key in ("expressions", "where", "group", "having", "order", "qualify", "distribute", "sort"):
        value = select.args.get(key)
        for part in value if isinstance(value, list) else [value]:
            if not isinstance(part, exp.Expr):
                continue
            for column in _own_columns(part):
                name = column.name.lower()
                if name in known or (key != "where" and name in aliases) or _bound_by_lambda(column):
                    continue
                shown = sorted(f"`{c}`" for c in known if not c.startswith("__vpush"))
                suggestion = f" Did you mean one of the following? [{', '.join(shown)}]." if shown else ""
                raise OptimizeError(
                    f"A column, variable, or function parameter with name `{column.name}` cannot be resolved.{suggestion}",
                    error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION" if shown else "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
                )


def _check_distinct_order(select: exp.Select) -> None:
    """A SELECT DISTINCT whose ORDER BY reads a column that is not one of its outputs raises
    Spark's ``UNRESOLVED_COLUMN.WITH_SUGGESTION``: Spark sorts the distinct rows, which keep only
    the outputs, so ``ORDER BY id`` under ``SELECT DISTINCT id % 3`` (and even ``ORDER BY id % 3``)
    cannot be resolved, where DuckDB sorts by the expression. A SORT BY too."""
    order = select.args.get("order") or select.args.get("sort")
    if select.args.get("distinct") is None or order is None or any(
        p.is_star for p in select.expressions
    ):
        return
    outputs: list[str] = []
    for projection in select.expressions:
        named = projection.alias if isinstance(projection, exp.Alias) else projection.name if isinstance(projection, exp.Column) else None
        outputs.append(named or spark_name(projection) or projection.alias_or_name)
    known = {name.lower() for name in outputs}
    for ordered in order.expressions:
        for column in in_scope(ordered):
            if not isinstance(column, exp.Column) or isinstance(column.this, exp.Star):
                continue
            text = column.meta.get(SPARK_TEXT)
            if column.name.lower() in known and text is None:
                continue
            # a variant extraction's scan column: Spark names the variant column it reads
            name = column.meta.get(VARIANT_SOURCE) or column.name
            if text is not None and str(text).lower() in known:
                continue
            shown = ", ".join(f"`{o}`" for o in sorted(outputs))
            raise OptimizeError(
                f"A column, variable, or function parameter with name `{name}` cannot be resolved. "
                f"Did you mean one of the following? [{shown}].",
                error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION",
            )


def _check_group_by_present(select: exp.Select, typer: _Typer) -> None:
    """A SELECT that aggregates (or has a HAVING) without GROUP BY and projects a column of its own sources outside
    every aggregate (found through operators, casts, conditionals and ``typeof``) raises Spark's
    MISSING_GROUP_BY (DuckDB's binder fails as for a column missing
    from a GROUP BY, and a ``typeof(i)`` vpush folds to its literal would pass it)."""
    def aggregates(node: exp.Expr) -> bool:
        if isinstance(node, (exp.Select, exp.Subquery, exp.SetOperation, exp.Window)):
            return False
        return isinstance(node, exp.AggFunc) or any(aggregates(child) for child in node.iter_expressions())

    # (a HAVING without GROUP BY makes the SELECT one aggregate, as in Spark)
    if select.args.get("group") is not None or not (
        select.args.get("having") is not None or any(aggregates(p) for p in select.expressions)
    ):
        return

    if any(typer.column(c) is not None for p in select.expressions for c in _columns_outside_aggregates(p)):
        raise OptimizeError(
            "The query does not include a GROUP BY clause. Add GROUP BY or turn it into the window functions using "
            "OVER clauses.",
            error_class="MISSING_GROUP_BY",
        )


_TRANSPARENT = (exp.Alias, exp.Ordered, exp.Paren, exp.Binary, exp.Neg, exp.Not, exp.Cast, exp.Case, exp.If, exp.Coalesce)


def _columns_outside_aggregates(node: exp.Expr) -> list[exp.Column]:
    """The columns ``node`` is or reaches through operators, casts, conditionals and ``typeof``
    (under an alias or an ORDER BY key), left to right, outside every aggregate and window: only
    through those, as sqlglot parses some aggregates (try_sum, kurtosis, ...) as plain calls,
    which this does not tell apart."""
    if isinstance(node, exp.Column):
        return [] if isinstance(node.this, exp.Star) else [node]
    if isinstance(node, (exp.AggFunc, exp.Window)) or not (isinstance(node, _TRANSPARENT) or _called(node) == "typeof"):
        return []
    return [c for child in node.iter_expressions() for c in _columns_outside_aggregates(child)]


def _check_semi_joined_columns(select: exp.Select) -> None:
    """A column of a LEFT SEMI or ANTI join's right side read outside its ``ON`` (``SELECT e.id,
    o.id FROM e LEFT SEMI JOIN o ON ...``) raises Spark's UNRESOLVED_COLUMN.WITH_SUGGESTION: the
    join gives only the left side's columns (DuckDB's binder raised without Spark's class)."""
    hidden = {
        join.alias_or_name.lower() for join in select.args.get("joins") or []
        if str(join.args.get("kind") or "").upper() in ("SEMI", "ANTI") and join.alias_or_name
    }
    if not hidden:
        return
    for key in ("expressions", "where", "group", "having", "order", "qualify"):
        value = select.args.get(key)
        for part in value if isinstance(value, list) else [value]:
            if not isinstance(part, exp.Expr):
                continue
            for column in in_scope(part):
                if isinstance(column, exp.Column) and column.table and column.table.lower() in hidden and isinstance(column.this, exp.Star):
                    raise OptimizeError(
                        f"Cannot resolve `{column.table}`.*: `{column.table}` is the right side of a LEFT SEMI or ANTI join, "
                        "whose columns the join does not give. Please check that the specified table or struct exists and is "
                        "accessible in the input columns.",
                        error_class="CANNOT_RESOLVE_STAR_EXPAND",
                    )
                if isinstance(column, exp.Column) and column.table and column.table.lower() in hidden:
                    raise OptimizeError(
                        f"A column, variable, or function parameter with name `{column.table}`.`{column.name}` cannot be resolved.",
                        error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION",
                    )


def _check_sort_ordinals(select: exp.Select, sort: exp.Sort) -> None:
    """A SORT BY position past the SELECT list raises Spark's ORDER_BY_POS_OUT_OF_RANGE, as an
    ORDER BY's does (Spark reads the positions of both; DuckDB takes ``ORDER BY -1`` as a constant)."""
    if any(p.is_star for p in select.expressions):
        return
    for ordered in sort.expressions:
        key = ordered.this
        negated = isinstance(key, exp.Neg)
        key = key.this if negated else key
        position = int(key.this) * (-1 if negated else 1) if isinstance(key, exp.Literal) and key.is_int else None
        if position is not None and not 1 <= position <= len(select.expressions):
            raise OptimizeError(
                f"ORDER BY position {position} is not in select list (valid range is [1, {len(select.expressions)}]).",
                error_class="ORDER_BY_POS_OUT_OF_RANGE",
            )


def _check_qualify_windows(select: exp.Select) -> None:
    """A QUALIFY without a window function in it or the SELECT list raises Spark's
    QUALIFY_REQUIRES_WINDOW_FUNCTION, where DuckDB's binder failed without Spark's class."""
    qualify = select.args.get("qualify")
    if qualify is None:
        return
    parts = [qualify, *select.expressions]
    if not any(isinstance(node, exp.Window) for part in parts for node in in_scope(part)):
        raise OptimizeError(
            "The QUALIFY clause requires at least one window function in SELECT column list or QUALIFY clause.",
            error_class="QUALIFY_REQUIRES_WINDOW_FUNCTION",
        )


def _check_qualify_aggregates(select: exp.Select) -> None:
    """A grouped SELECT's QUALIFY holding an aggregate of its own (``QUALIFY row_number() OVER
    (ORDER BY max(id)) = 1``, ``QUALIFY sum(id) > 3``) raises Spark's error: Spark resolves QUALIFY
    over the aggregate's output, where the aggregate's column is unresolved
    (UNRESOLVED_COLUMN.WITH_SUGGESTION; ``count(*)``, which names none, MISSING_GROUP_BY), even
    where the SELECT projects the same aggregate. DuckDB answered."""
    qualify = select.args.get("qualify")
    if qualify is None or select.args.get("group") is None:
        return
    outputs = [p.alias_or_name for p in select.expressions]
    for node in in_scope(qualify):
        if not isinstance(node, exp.AggFunc) or node.find_ancestor(exp.Select) is not select:
            continue
        windowed = isinstance(node.parent, exp.Window) and node.arg_key == "this"  # `max(id) OVER ()`: its column too
        columns = [c for c in node.find_all(exp.Column) if not isinstance(c.this, exp.Star)]
        unresolved = [c for c in columns if c.name.lower() not in {o.lower() for o in outputs}]
        if unresolved:
            shown = ", ".join(f"`{o}`" for o in outputs)
            raise OptimizeError(
                f"A column, variable, or function parameter with name `{unresolved[0].name}` cannot be resolved. "
                f"Did you mean one of the following? [{shown}].",
                error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION",
            )
        if not columns and not windowed:
            raise OptimizeError(
                "The query does not include a GROUP BY clause. Add GROUP BY or turn it into the window functions using "
                "OVER clauses.",
                error_class="MISSING_GROUP_BY",
            )


def _check_order_by_grouped(select: exp.Select) -> None:
    """An aggregating SELECT whose ORDER BY names a column neither grouped, projected nor
    aggregated raises Spark's UNRESOLVED_COLUMN.WITH_SUGGESTION (Spark resolves the ORDER BY over
    the aggregate's output; DuckDB's binder words it as for the SELECT list, MISSING_AGGREGATION).
    Only where the SELECT list itself is grouped (else Spark's MISSING_AGGREGATION comes first) and
    the column is reached through operators, casts and conditionals only (not through a call
    sqlglot may not know for an aggregate)."""
    order = select.args.get("order")
    group = select.args.get("group")
    projections = select.expressions

    if order is None or not _aggregating(select):
        return
    grouped = {c.name.lower() for c in in_scope(group) if isinstance(c, exp.Column)} if group is not None else set()
    for key in group.expressions if group is not None else []:
        # a key naming a projection (its alias or its position) groups that projection's columns
        if isinstance(key, exp.Column):
            grouped.update(c.name.lower() for p in projections if p.alias_or_name.lower() == key.name.lower() for c in p.find_all(exp.Column))
        elif isinstance(key, exp.Literal) and key.is_int and 0 < int(key.this) <= len(projections):
            grouped.update(c.name.lower() for c in projections[int(key.this) - 1].find_all(exp.Column))

    def outside_aggregates(node: exp.Expr) -> list[exp.Column]:
        if isinstance(node, exp.Column):
            return [] if isinstance(node.this, exp.Star) else [node]
        if isinstance(node, (exp.AggFunc, exp.Window, exp.Select, exp.Subquery)):
            return []
        return [c for child in node.iter_expressions() for c in outside_aggregates(child)]

    if any(c.name.lower() not in grouped for p in projections for c in outside_aggregates(p)):
        return  # the SELECT list is not grouped: MISSING_AGGREGATION, as DuckDB raises it
    outputs = [p.alias_or_name for p in projections if p.alias_or_name and p.alias_or_name != "*"]
    for ordered in order.expressions:
        for column in _columns_outside_aggregates(ordered):
            name = column.name.lower()
            if name in grouped or name in {o.lower() for o in outputs}:
                continue
            shown = column.meta.get(VARIANT_SOURCE) or column.name
            suggestions = ", ".join(f"`{o}`" for o in outputs)
            raise OptimizeError(
                f"A column, variable, or function parameter with name `{shown}` cannot be resolved. Did you mean one of the "
                f"following? [{suggestions}].",
                error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION",
            )


def _inline_lateral_aliases(projection: exp.Expr, lateral: Mapping[str, exp.Expr], typer: _Typer) -> None:
    """Put in ``projection`` the expression of each earlier projection its columns name by alias
    and no source has (Spark's lateral column aliases: ``CAST(s AS INT) AS c, c + 1 AS d``), where
    DuckDB's binder refuses an alias whose expression may raise (vpush's ``error()``, which it
    takes as a side effect), named as Spark names it (``lateralAliasReference(c)``). In an
    aggregating SELECT too: Spark's ``ResolveLateralColumnAliasReference`` computes the aliases in
    a projection over the aggregate (which keeps the grouping expressions and aggregates), so each
    group computes the expression once, as the copy in its place does (a column neither grouped
    nor aggregated still fails as MISSING_AGGREGATION).
    Raises Spark's ``UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_WINDOW`` for such an alias in a
    window function (DuckDB answered) and ``UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_AGGREGATE_FUNC``
    for one in an aggregate or its FILTER. In place."""
    if not lateral:
        return
    sources = [typer.source_columns(alias) for alias in typer.scope.selected_sources]
    if not sources or any(not columns or "*" in columns for columns in sources):
        return  # a source whose columns vpush does not know may hold the name

    select = projection.parent
    aggregating = isinstance(select, exp.Select) and _aggregating(select)
    grouped = _grouped_names(select) if isinstance(select, exp.Select) else set()
    named = {alias.lower() for alias in typer.scope.sources}
    for column in [c for c in in_scope(projection) if isinstance(c, exp.Column) and not isinstance(c.this, exp.Star)]:
        parts = column.parts
        name = parts[0].name.lower()
        if name not in lateral or any(name in columns for columns in sources) or name in _lambda_variables(column):
            continue
        if len(parts) > 1 and (name in named or not all(isinstance(p, exp.Identifier) for p in parts)):
            continue  # t.c: a source's column
        if isinstance(column.find_ancestor(exp.Window, exp.Select), exp.Window):
            raise OptimizeError(
                f"The feature is not supported: Referencing a lateral column alias `{column.name}` in window expression.",
                error_class="UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_WINDOW",
            )
        if aggregating and isinstance(column.find_ancestor(exp.AggFunc, exp.Filter, exp.Select), (exp.AggFunc, exp.Filter)):
            # (Spark's plan keeps the aggregates below the projection that computes the aliases)
            raise OptimizeError(
                f"The feature is not supported: Referencing a lateral column alias `{column.name}` in the aggregate function.",
                error_class="UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_AGGREGATE_FUNC",
            )
        if len(parts) > 1:
            _inline_lateral_field(column, lateral[name], typer)
            continue
        if name in grouped:
            # DuckDB reads a grouped alias as the grouping itself, where it would not match a copy
            # of its expression that may raise to it (Spark's projection over its aggregate reads it)
            column.meta[_TRIED_NAME] = f"lateralAliasReference({column.name})"
            continue
        inlined = column.replace(exp.Paren(this=lateral[name].copy()))
        inlined.meta[_TRIED_NAME] = f"lateralAliasReference({column.name})"  # named as Spark names it


def _inline_lateral_field(column: exp.Column, aliased: exp.Expr, typer: _Typer) -> None:
    """Put in place of ``q.a`` (``q.a.b``) the field read of the earlier projection ``aliased``
    the alias ``q`` names (Spark reads a lateral alias's field where no source has a column
    ``q``: ``named_struct('a', i) AS q, q.a``, named ``a``), where DuckDB's binder found no table
    ``q``; Spark's ``INVALID_EXTRACT_BASE_FIELD_TYPE`` for a field of a scalar. In place."""
    parts = column.parts
    read: exp.Expr = column.replace(exp.Paren(this=aliased.copy()))
    kind = typer.of(read)
    if isinstance(kind, (AtomicType, StringType, DecimalType)):
        raise OptimizeError(
            f'Can\'t extract a value from "{parts[0].name}". Need a complex type [STRUCT, ARRAY, MAP] but got "{kind.to_sql()}".',
            error_class="INVALID_EXTRACT_BASE_FIELD_TYPE",
        )
    for part in parts[1:]:
        read = wrap_in_place(read, exp.Dot(expression=part.copy()))
    read.meta[_TRIED_NAME] = parts[-1].name  # named as Spark names a field it reads


def _grouped_names(select: exp.Select, *, columns: bool = False) -> set[str]:
    """The names (lower case) the GROUP BY of ``select`` reads: its columns' names (DuckDB groups
    by an alias among them as it reads it) and the aliases of the projections it names by
    position; with ``columns``, of a position the column its projection is instead, as Spark
    resolves the key (``SELECT i AS g ... GROUP BY 1`` groups by ``i``, not by a column ``g``)."""
    group = select.args.get("group")
    if group is None:
        return set()
    projections = select.expressions
    names = {c.name.lower() for c in in_scope(group) if isinstance(c, exp.Column) and not c.table}
    for key in group.expressions:
        if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.this) <= len(projections):
            projection = projections[int(key.this) - 1]
            named = _unparen(projection.unalias()) if columns else projection
            if not columns or isinstance(named, exp.Column):
                names.add(named.alias_or_name.lower())
    return names


def _check_aliases_in_aggregates(select: exp.Select, columns: Mapping[str, Mapping[str, SparkType | None]]) -> None:
    """Spark's errors for an aggregate of an aggregating SELECT's HAVING or ORDER BY whose argument
    names one of the SELECT's aliases (measured on PySpark 4.3).

    Spark resolves the name to the alias, then puts the aggregate into the ``Aggregate`` below,
    which cannot read it: ``MISSING_ATTRIBUTES.RESOLVED_ATTRIBUTE_MISSING_FROM_INPUT``
    (``SELECT g AS q ... HAVING max(q) > 'a'``, ``ORDER BY max(n)`` beside ``count(*) AS n``), or
    ``.RESOLVED_ATTRIBUTE_APPEAR_IN_OPERATION`` where a source has a column of that name too
    (``SELECT g AS s ... ORDER BY max(s)``). A HAVING's aggregate reads a source's column first
    (``HAVING max(s) > 'a'`` is answered over the column ``s``) where one source has it. Not where
    a source's columns are unknown. An aggregate is any :func:`under_aggregate` finds (``try_sum``,
    ``some``, a ``WITHIN GROUP`` ordering), in the ORDER BY a window's too (``ORDER BY max(m)
    OVER ()``: Spark puts the window's aggregate into the ``Aggregate`` as well)."""
    aliases = {p.alias.lower() for p in select.expressions if isinstance(p, exp.Alias)}
    if not _aggregating(select) or not aliases or any(not known or "*" in known for known in columns.values()):
        return
    for key in ("having", "order"):
        clause = select.args.get(key)
        if clause is None:
            continue
        for column in in_scope(clause):
            if not isinstance(column, exp.Column) or column.table or isinstance(column.this, exp.Star):
                continue
            name = column.name.lower()
            if name not in aliases or name in _lambda_variables(column) or not under_aggregate(column, clause, windows=key == "order"):
                continue
            owners = sum(name in known for known in columns.values())
            if key == "having" and owners == 1:
                continue  # (of two sources, the name is ambiguous there: Spark reads the alias)
            detail = "APPEAR_IN_OPERATION" if owners else "MISSING_FROM_INPUT"
            raise OptimizeError(
                f'Resolved attribute(s) "{column.name}" missing from the input of the aggregate: an aggregate of the '
                f'{"HAVING" if key == "having" else "ORDER BY"} reads the alias `{column.name}`, which the aggregate computes.',
                error_class=f"MISSING_ATTRIBUTES.RESOLVED_ATTRIBUTE_{detail}",
            )


def _check_order_by_windows(query: exp.Select | exp.SetOperation) -> None:
    """Spark's error for a window in the ORDER BY of ``query``, which its ``Sort`` cannot compute
    (only a SELECT's list and its QUALIFY can; measured on PySpark 4.3).

    In an aggregating SELECT, Spark's ``ResolveAggregateFunctions`` first puts a window's
    aggregate into the ``Aggregate``: one over another aggregate is ``NESTED_AGGREGATE_FUNCTION``
    (``ORDER BY sum(count(*)) OVER ()``), one of an alias ``MISSING_ATTRIBUTES``
    (:func:`_check_aliases_in_aggregates`, before this), and what stays in the ``Sort`` is a window
    over the aggregate's result, ``UNSUPPORTED_EXPR_FOR_WINDOW`` (``ORDER BY max(id) OVER ()``);
    that of any other window (``rank() OVER (ORDER BY h)``), or of any window elsewhere, is
    ``UNSUPPORTED_EXPR_FOR_OPERATOR``. Each of these classes comes before the next over the whole
    ORDER BY (Spark checks the ``Aggregate`` before the ``Sort``, an expression before its operator).

    A SORT BY is such a ``Sort`` too (of each partition), and a DISTRIBUTE BY (a CLUSTER BY's too,
    ``dialect._result_clauses``) a ``RepartitionByExpression`` below it, whose window Spark refuses first
    (``UNSUPPORTED_EXPR_FOR_OPERATOR``); a SORT BY's aggregate where the SELECT aggregates
    nothing stays in the ``Sort`` as well (``SELECT id FROM t SORT BY max(id)``).

    Raises:
        OptimizeError: ``NESTED_AGGREGATE_FUNCTION``, ``UNSUPPORTED_EXPR_FOR_WINDOW`` or
        ``UNSUPPORTED_EXPR_FOR_OPERATOR``.
    """
    clause = query.args.get("distribute")
    window = next((w for w in in_scope(clause) if isinstance(w, exp.Window)), None) if clause is not None else None
    if window is not None:
        raise OptimizeError(
            f"The query operator `RepartitionByExpression` contains one or more unsupported expressions: {_spark_text(window)}",
            error_class="UNSUPPORTED_EXPR_FOR_OPERATOR",
        )
    order = query.args.get("order") or query.args.get("sort")
    if order is None:
        return
    windows: list[exp.Expr] = [w for w in in_scope(order) if isinstance(w, exp.Window)]
    if not windows and isinstance(order, exp.Sort) and not (isinstance(query, exp.Select) and _aggregating(query)):
        windows = [a for a in in_scope(order) if aggregate_call(a)]
    if not windows:
        return
    if isinstance(query, exp.Select) and _aggregating(query):
        folded = [w.this for w in windows if aggregate_call(w.this)]
        for function in folded:
            called = function.this if isinstance(function, exp.Filter) else function
            if any(holds_aggregate(argument) for argument in called.iter_expressions()):
                raise OptimizeError(
                    "It is not allowed to use an aggregate function in the argument of another aggregate function. "
                    "Please use the inner aggregate function in a sub-query.",
                    error_class="NESTED_AGGREGATE_FUNCTION",
                )
        if folded:
            raise OptimizeError(
                f"Expression {_spark_text(folded[0])} not supported within a window function.",
                error_class="UNSUPPORTED_EXPR_FOR_WINDOW",
            )
    raise OptimizeError(
        f"The query operator `Sort` contains one or more unsupported expressions: {_spark_text(windows[0])}",
        error_class="UNSUPPORTED_EXPR_FOR_OPERATOR",
    )


_READ_AS_SOURCE = "vpush_read_as_source"
"""Meta key of a HAVING's column :func:`_coerce_having_aliases_of_columns` put there, a source's
column (the alias of its name is not read in its place)."""


def _comparison_type(kinds: list[SparkType | None]) -> SparkType | None:
    """The type Spark's ANSI coercion casts the operands of a comparison, ``BETWEEN`` or ``IN``
    of ``kinds`` to; None where they are one type already or vpush does not follow Spark (an
    unknown or nested type)."""
    kinds = [k for k in kinds if k != VOID]  # (a NULL takes the others' type)
    if any(not isinstance(k, (AtomicType, StringType, DecimalType)) for k in kinds) or all(k == kinds[0] for k in kinds):
        return None
    strings = [k for k in kinds if isinstance(k, StringType)]
    others = {k for k in kinds if not isinstance(k, StringType)}
    if AtomicType("timestamp") in others or AtomicType("timestamp_ntz") in others:
        stamped = AtomicType("timestamp") if AtomicType("timestamp") in others else AtomicType("timestamp_ntz")
        return stamped if others <= {stamped, AtomicType("date")} else None
    if others == {AtomicType("date")} or (strings and others == {AtomicType("boolean")}):
        return next(iter(others))
    return wider_common_type(list(kinds))


def _coerce_having_aliases_of_columns(select: exp.Select, typer: _Typer) -> None:
    """A HAVING's comparison (or ``coalesce``, ``greatest``, ``least``) of a name that is both one
    source's column (not a grouping key, not inside an aggregate) and an alias of another type, as
    Spark's analyzer reads it (measured on PySpark 4.3): it resolves the name to the column first
    (``TempResolvedColumn``), its type coercion casts the operands by the column's type, and only
    then, the column being neither aggregated nor grouped, reads the alias in its place, the casts
    kept. So
    ``SELECT h AS i ... GROUP BY h HAVING i = 'x'`` beside an ``int`` column ``i`` compares
    ``cast(h AS bigint)`` with ``cast('x' AS bigint)`` and raises ``CAST_INVALID_INPUT``, and
    ``day AS d`` beside a string column ``d`` compares ``d = 'x'`` as ``day = cast('x' AS date)``.

    The alias is put in the column's place here, cast to the type the coercion gives the column
    where it is not the column's own (else the other operands cast to it), as explicit casts;
    :func:`_inline_having_aliases` puts the alias in every other place. Not where the name is
    ambiguous between sources (Spark reads the alias) or the alias holds a window, a subquery or
    a generator."""
    having = select.args.get("having")
    if having is None:
        return
    named: dict[str, list[exp.Expr]] = {}
    for projection in select.expressions:
        if isinstance(projection, exp.Alias):
            named.setdefault(projection.alias.lower(), []).append(projection.this)
    aliases = {name: nodes[0] for name, nodes in named.items() if len(nodes) == 1}
    sources = [typer.source_columns(alias) for alias in typer.scope.selected_sources]
    if not aliases or not sources or any(not columns or "*" in columns for columns in sources):
        return
    grouped = _grouped_names(select, columns=True)  # (a grouped column is read as itself, no alias)
    coerced = (*_COMPARISONS, exp.Between, exp.In, exp.Coalesce, exp.Greatest, exp.Least)
    for node in [n for n in in_scope(having) if isinstance(n, coerced) and not n.args.get("query")]:
        compared = not isinstance(node, (exp.Coalesce, exp.Greatest, exp.Least))
        operands = comparison_operands(node)
        for operand in operands:
            column = _unparen(operand)
            if not isinstance(column, exp.Column) or column.table or not isinstance(column.this, exp.Identifier):
                continue
            name = column.name.lower()
            alias = aliases.get(name)
            if (alias is None or name in grouped or name in _lambda_variables(column) or under_aggregate(column, having)
                    or alias.find(exp.Window, exp.Select, exp.Subquery, exp.UDTF) is not None):
                continue
            if sum(name in columns for columns in sources) != 1 and not typer._joined_using(name):
                continue  # (of two sources the name is ambiguous there: Spark reads the alias)
            own, written = typer.of(column), typer.of(alias)
            others = [o for o in operands if o is not operand]
            kinds = [own, *(VOID if isinstance(_unparen(o), exp.Null) else typer.of(o) for o in others)]
            # (coalesce, greatest and least take the wider common type: an integer beside a string a bigint)
            to = _comparison_type(kinds) if compared else None if all(k == own for k in kinds) else wider_common_type(kinds)
            if isinstance(node, (exp.Greatest, exp.Least)) and written is not None and written != own and all(k in (own, VOID) for k in kinds):
                _check_extreme_of_alias(node, [written, *kinds[1:]])
            if own is None or written == own or to is None or isinstance(own, DecimalType) and isinstance(to, DecimalType):
                continue
            if compared and isinstance(to, DecimalType) and isinstance(own, AtomicType) and _is_integral(own):
                to = integral_decimal(own)  # (Spark's DecimalPrecision: an integer beside a decimal is its own decimal first)
            read = alias.copy()
            for part in read.find_all(exp.Column):
                if any(part.name.lower() in columns for columns in sources):
                    part.meta[_READ_AS_SOURCE] = True
            if to != own:
                column.replace(exp.Cast(this=exp.Paren(this=read), to=_sql_type(to)))
                continue
            column.replace(exp.Paren(this=read))
            for other in others:
                # (a comparison with NULL Spark's optimizer folds to NULL, the alias never computed)
                if typer.of(other) != to and not (compared and isinstance(_unparen(other), exp.Null)):
                    other.replace(exp.Cast(this=other.copy(), to=_sql_type(to)))
            break


def _check_extreme_of_alias(node: exp.Greatest | exp.Least, kinds: list[SparkType | None]) -> None:
    """Spark's ``DATATYPE_MISMATCH.DATA_DIFF_TYPES`` for a HAVING's ``greatest`` or ``least`` of a
    name that is a source's column of the others' type and an alias of a string beside a number
    (or the other way round), ``kinds`` with the alias's type: no cast was put on the column,
    and once the alias is read in its place Spark's coercion finds no common type (it reads no
    string as a number there, nor a date beside a number; measured on PySpark 4.3: ``SELECT h AS
    i ... HAVING greatest(i, 2) > 1`` beside an int column ``i``). vpush had cast the string
    strictly (CAST_INVALID_INPUT), and DuckDB's binder had refused the date (no class)."""
    known = [k for k in kinds if k is not None and k != VOID]
    if len(known) < len(kinds) - kinds.count(VOID) or any(not isinstance(k, (AtomicType, StringType, DecimalType)) for k in known):
        return  # (a type vpush does not know, or a nested one)
    strings = [isinstance(k, StringType) for k in known]
    if (any(strings) and not all(strings)) or wider_common_type(list(known)) is None:
        names = ", ".join(f'"{k.to_sql()}"' for k in known)
        function = type(node).__name__.lower()
        raise OptimizeError(
            f'Cannot resolve "{_spark_text(node)}" due to data type mismatch: Input to `{function}` '
            f"should all be the same type, but it's [{names}].",
            error_class="DATATYPE_MISMATCH.DATA_DIFF_TYPES",
        )


def _inline_having_aliases(select: exp.Select, lateral: Mapping[str, exp.Expr], typer: _Typer) -> None:
    """Put in a HAVING the expression of each projection its columns name by alias (not a name a
    GROUP BY key gives) as :func:`_inline_lateral_aliases` reads it (``lateral``): Spark resolves
    a HAVING's name against the aggregate's output first (an alias before a source's column of
    that name) and computes the alias over the aggregate below its filter, where DuckDB's binder
    refuses an alias whose expression may raise (and reads a source's column first). Not one
    holding a subquery (its tables are placed by identity). In place.

    Inside an aggregate's arguments or its FILTER, Spark's ``ResolveAggregateFunctions`` reads a
    source's column first (``HAVING max(s) > 'a'`` beside ``g AS s`` reads the column ``s``)."""
    having = select.args.get("having")
    if having is None or not lateral:
        return
    sources = [typer.source_columns(alias) for alias in typer.scope.selected_sources]
    if not sources or any(not columns or "*" in columns for columns in sources):
        return  # a source whose columns vpush does not know may hold the name
    grouped = _grouped_names(select)  # (Spark's HAVING reads a grouped name as grouped)
    named = {alias.lower() for alias in typer.scope.sources}
    for column in [c for c in in_scope(having) if isinstance(c, exp.Column) and not isinstance(c.this, exp.Star)]:
        parts = column.parts
        name = parts[0].name.lower()
        if name not in lateral or name in _lambda_variables(column) or column.meta.get(_READ_AS_SOURCE):
            continue
        if name in grouped or (len(parts) == 1 and under_aggregate(column, having)):
            continue  # an aggregate's argument reads the source's column (see _check_aliases_in_aggregates)
        if len(parts) > 1:
            if (name not in named and not any(name in columns for columns in sources) and all(isinstance(p, exp.Identifier) for p in parts)
                    and lateral[name].find(exp.Select, exp.Subquery) is None):
                _inline_lateral_field(column, lateral[name], typer)  # `q.a` of an alias `q`
            continue
        if lateral[name].find(exp.Select, exp.Subquery) is None:
            column.replace(exp.Paren(this=lateral[name].copy()))


def _sources_columns(
    scope: Scope, tables: Mapping[int, Mapping[str, SparkType | None]], outputs: Mapping[int, Mapping[str, SparkType | None]]
) -> dict[str, Mapping[str, SparkType | None]]:
    """Each source of ``scope``'s columns' Spark types by lower-cased name, by its lower-cased
    alias: a table's (``tables``, by ``id`` of its node), a subquery's or CTE's as typed so far
    (``outputs``, by ``id`` of its query; empty where not typed yet)."""
    columns: dict[str, Mapping[str, SparkType | None]] = {}
    for alias, source in scope.sources.items():
        if isinstance(source, exp.Table) and isinstance(source.this, VariantExplode):
            columns[alias.lower()] = _explode_columns(source)
        elif isinstance(source, exp.Table):
            # a table's window-shaped column may carry Spark's window marker (Spark writes a
            # column's metadata into its files), which vpush does not read
            columns[alias.lower()] = {name: marked(t, UNKNOWN_MARKER) for name, t in tables.get(id(source), {}).items()}
        elif isinstance(source, Scope) and isinstance(source.expression, exp.Lateral) and isinstance(source.expression.this, VariantExplode):
            columns[alias.lower()] = _explode_columns(source.expression)
        elif isinstance(source, Scope):
            columns[alias.lower()] = outputs.get(id(source.expression), {})
    return columns


def _outer_names(
    scope: Scope, tables: Mapping[int, Mapping[str, SparkType | None]], outputs: Mapping[int, Mapping[str, SparkType | None]]
) -> set[str] | None:
    """The names (lower-cased) a qualifier in ``scope``'s SELECT may give of its outer query, as
    Spark resolves an outer reference: a subquery of an expression (and its set operation's
    branches) reads the sources of the SELECT it stands in and their columns, one level up only
    (``x.i`` two subqueries down is Spark's UNRESOLVED_COLUMN); a FROM subquery or a CTE reads
    none. None where vpush does not know them (a FROM subquery or CTE inside a subquery of an
    expression, a lateral one, a source whose columns it does not know)."""
    branch = scope
    while branch.parent is not None and isinstance(branch.parent.expression, exp.SetOperation):
        branch = branch.parent
    outer = branch.parent
    if outer is None:
        return set()
    if branch.is_subquery:
        if not isinstance(outer.expression, exp.Select):
            return None
        names = {alias.lower() for alias in outer.sources}
        for found in _sources_columns(outer, tables, outputs).values():
            if not found or "*" in found:
                return None
            names.update(found)
        return names
    if not (branch.is_derived_table or branch.is_cte) or branch.can_be_correlated:
        return None
    above: Scope | None = outer
    while above is not None:
        if above.is_subquery or above.can_be_correlated:
            return None
        above = above.parent
    return set()


def _check_field_bases(
    select: exp.Select, scope: Scope, columns: Mapping[str, Mapping[str, SparkType | None]], outer: set[str] | None
) -> None:
    """Raise Spark's INVALID_EXTRACT_BASE_FIELD_TYPE for ``c.x`` where ``c`` is no source of the
    SELECT but a column of an atomic type or a variant (``v.a`` of a variant column: Spark
    extracts with ``v:a``), and UNRESOLVED_COLUMN for a qualifier that names nothing the SELECT
    reads, nor what its outer query gives it (``outer``; None where vpush does not know it), in
    the top query or any subquery, CTE or set operation's branch, where DuckDB's binder fails
    without Spark's class."""
    sources = {alias.lower() for alias in scope.sources}
    aliases = {p.alias.lower() for p in select.expressions if isinstance(p, exp.Alias)}
    known = all(found and "*" not in found for found in columns.values())
    duplicated = ambiguous_names(scope)  # a field of one of these is ambiguous first (rename_duplicate_columns)
    for column in select.find_all(exp.Column):
        if isinstance(column.this, exp.Star) and column.table and not column.args.get("db") and known:
            _check_star_base(column, select, sources, columns)
        db = column.args.get("db")
        if db is not None and not isinstance(column.this, exp.Star) and column.find_ancestor(exp.Select) is select:
            # `s.x.id`: a field of source `s`'s column `x`
            base = (columns.get(db.name.lower()) or {}).get(column.table.lower())
            if isinstance(base, (AtomicType, StringType, DecimalType)) and column.args.get("catalog") is None and column.table.lower() not in duplicated:
                raise OptimizeError(
                    f"Can't extract a value from `{db.name}`.`{column.table}`: need a struct type but got \"{base.to_sql()}\".",
                    error_class="INVALID_EXTRACT_BASE_FIELD_TYPE",
                )
        if not column.table or db is not None or isinstance(column.this, exp.Star):
            continue
        own = columns.get(column.table.lower())
        if column.table.lower() in sources and (not own or "*" in own or column.name.lower() in own):
            continue
        if column.find_ancestor(exp.Select) is not select:
            continue
        found = [cols[column.table.lower()] for cols in columns.values() if column.table.lower() in cols]
        qualifier = column.table.lower()
        if (not found and own is None and qualifier not in sources and outer is not None and qualifier not in outer and sources
                and known and qualifier not in _lambda_variables(column) and not _reads_lateral_alias(column, select, aliases)):
            # a qualifier that names no source of the query, no column of one, nor a lateral alias
            # (`s AS q, q.a`, which Spark reads) of its SELECT list: `y.id`
            raise OptimizeError(
                f"A column, variable, or function parameter with name `{column.table}`.`{column.name}` cannot be resolved.",
                error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION",
            )
        if not found and own is not None and column.table.lower() in sources and not scope.is_correlated_subquery:
            raise OptimizeError(
                f"A column, variable, or function parameter with name `{column.table}`.`{column.name}` cannot be resolved.",
                error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION",
            )
        if len(found) == 1 and (isinstance(found[0], (AtomicType, StringType, DecimalType))) and qualifier not in duplicated:
            raise OptimizeError(
                f"Can't extract a value from `{column.table}`: need a struct type but got \"{found[0].to_sql()}\".",
                error_class="INVALID_EXTRACT_BASE_FIELD_TYPE",
            )


def _check_star_base(star: exp.Column, select: exp.Select, sources: set[str], columns: Mapping[str, Mapping[str, SparkType | None]]) -> None:
    """Raise Spark's CANNOT_RESOLVE_STAR_EXPAND for ``q.*`` in ``select``'s own list where ``q``
    names no source nor a column of one (a lateral alias, ``named_struct('a', i) AS q, q.*``, is
    neither: Spark expands a star from the input columns only), where DuckDB's binder fails
    without Spark's class."""
    qualifier = star.table.lower()
    if star.find_ancestor(exp.Select) is not select or qualifier in sources or any(qualifier in cols for cols in columns.values()):
        return
    names = sorted({name for cols in columns.values() for name in cols if not name.startswith("__vpush")})
    shown = ", ".join(f"`{name}`" for name in names)
    raise OptimizeError(
        f"Cannot resolve `{star.table}`.* given input columns {shown}. Please check that the specified table or struct "
        "exists and is accessible in the input columns.",
        error_class="CANNOT_RESOLVE_STAR_EXPAND",
    )


def _reads_lateral_alias(column: exp.Column, select: exp.Select, aliases: set[str]) -> bool:
    """Whether ``column`` (``q.a``) reads a field of a projection's alias ``q`` of ``select``
    where Spark resolves it: in the SELECT list, HAVING, ORDER BY or QUALIFY, not in the WHERE,
    a GROUP BY or a join's condition (Spark's UNRESOLVED_COLUMN there)."""
    if column.table.lower() not in aliases:
        return False
    return clause_of(column, select).arg_key not in ("where", "group", "joins")


def _split_dotted(column: exp.Column, sources: set[str]) -> tuple[exp.Column, list[exp.Identifier]] | None:
    """A dotted read (``a.b.c``, ``t.a.b``) as the column it starts from, qualified where its first
    name is one of ``sources`` and more follow (resolved where the read stands, not entered in the
    tree), and the fields read after it; None where no field follows the column."""
    parts = column.parts
    skip = 1 if len(parts) > 2 and parts[0].name.lower() in sources else 0
    if len(parts) - skip < 2:
        return None
    first, table = parts[skip].copy(), parts[0].copy() if skip else None
    assert isinstance(first, exp.Identifier) and (table is None or isinstance(table, exp.Identifier))
    base = exp.column(first, table=table)
    base.parent = column.parent
    return base, [p for p in parts[skip + 1:] if isinstance(p, exp.Identifier)]


def _check_array_fields(select: exp.Select, typer: _Typer) -> None:
    """Raise Spark's errors for a field read through an array that Spark's analyzer refuses, where
    DuckDB's binder fails without Spark's class: ``arr.x`` of an array of structs without the
    field (``FIELD_NOT_FOUND``), of an array of anything else (``tags.x``, ``aa.x``:
    ``DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE``, GetArrayStructFields takes structs only)."""
    sources = {s.lower() for s in typer.scope.selected_sources}
    for column in select.find_all(exp.Column):
        parts = column.parts
        if not column.table or isinstance(column.this, exp.Star) or column.find_ancestor(exp.Select) is not select:
            continue
        if parts[0].name.lower() in _lambda_variables(column) or not all(isinstance(p, exp.Identifier) for p in parts):
            continue
        split = _split_dotted(column, sources)
        if split is None or (len(parts) == 2 and parts[0].name.lower() in sources):
            continue  # t.c: a table's column
        base, fields = split
        kind = typer.column(base)
        for part in fields:
            if isinstance(kind, ArrayType) and not isinstance(kind.element, StructType) and kind.element is not None:
                raise OptimizeError(
                    f'Cannot resolve "{column.sql(dialect=VpushSpark)}" due to data type mismatch: the parameter requires '
                    f'the "STRUCT" type, however it has the type "{kind.to_sql()}".',
                    error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                )
            element = kind.element if isinstance(kind, ArrayType) else None
            struct = element if isinstance(element, StructType) else kind
            if not isinstance(struct, StructType):
                break
            matches = [f for f in struct.fields if f.name.lower() == part.name.lower()]
            if not matches and element is not None:
                names = ", ".join(f"`{f.name}`" for f in struct.fields)
                raise OptimizeError(f"No such struct field `{part.name}` in {names}.", error_class="FIELD_NOT_FOUND")
            if len(matches) != 1:
                break
            kind = ArrayType(matches[0].type) if element is not None else matches[0].type


def _own_columns(node: exp.Expr) -> list[exp.Column]:
    """The unqualified column references in ``node``, not entering nested queries."""
    if isinstance(node, exp.Column):
        plain = not node.table and isinstance(node.this, exp.Identifier)
        return [node] if plain else []
    found: list[exp.Column] = []
    for child in node.iter_expressions():
        if not isinstance(child, (exp.Select, exp.Subquery, exp.SetOperation)):
            found.extend(_own_columns(child))
    return found


def _type_variant_objects(node: exp.Expr, typer: _Typer) -> None:
    """Record the type of each ``to_variant_object`` and ``to_json`` argument (:data:`ARGUMENT_TYPE`) while the
    argument is as written: the rewrite below changes what the typer knows."""
    for call in node.find_all(ToVariantObject, VariantArrayAppend, VariantInsert, VariantSet, exp.JSONFormat):
        argument = call.this if isinstance(call, (ToVariantObject, exp.JSONFormat)) else call.args.get("value")
        call.meta[ARGUMENT_TYPE] = typer._part(argument) if argument is not None else None
    for cast in node.find_all(exp.Cast):
        if _casts_to_variant(cast):
            cast.meta[ARGUMENT_TYPE] = typer._part(cast.this)


def _casts_to_variant(node: exp.Cast) -> bool:
    """Whether ``node`` is ``CAST(x AS VARIANT)`` (or TRY_CAST) of something written as a value,
    not a variant: Spark builds the variant as ``to_variant_object`` does."""
    to = node.args.get("to")
    return isinstance(to, exp.DataType) and to.this == exp.DataType.Type.VARIANT and not isinstance(
        node.this, (exp.Null, VariantGet)
    )


def _cast_to_variant(node: exp.Cast, argument: SparkType | None) -> exp.Expr:
    """``CAST(x AS VARIANT)`` of a value as Spark's ``Cast`` makes it: ``castToVariant``, which
    ``to_variant_object`` shares, for the types ``VariantGet.checkDataType`` takes without
    structs and maps (a scalar, or arrays of them)."""
    kind = argument
    while isinstance(kind, ArrayType):
        kind = kind.element
    if isinstance(kind, (MapType, StructType)) or (kind is not None and not isinstance(kind, (AtomicType, StringType, DecimalType))):
        shown = node.sql(dialect=VpushSpark)
        written = argument.to_sql() if argument is not None else "?"
        raise OptimizeError(
            f'{shown}: cannot cast "{written}" to "VARIANT"', error_class="DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION"
        )
    call = ToVariantObject(this=node.this)
    call.meta[ARGUMENT_TYPE] = argument
    call.meta[CAST_TO_VARIANT] = True
    return call


W = typing.TypeVar("W", bound=exp.Expr)


def wrap_in_place(node: exp.Expr, wrapper: W) -> W:
    """Put ``wrapper`` (an alias, a cast) where ``node`` stands, with ``node`` itself, not a copy,
    as its ``this``: references to ``node`` and to the nodes inside it stay valid."""
    node.replace(wrapper)
    wrapper.set("this", node)
    return wrapper


def _date_plus_days(start: exp.Expr, days: exp.Expr, subtracted: bool) -> exp.Expr:
    """A date plus (or minus) an int's days as Spark's ``DateAdd``/``DateSub`` sum them: as ints,
    wrapping past an int's range (``date_add(DATE '2024-01-03', 2147483647)`` is -5877587-06-23),
    where DuckDB's date plus an integer raises. The sum is a bigint of days since the epoch,
    wrapped to an int (it lies in [-2^32, 2^32 - 2], so one offset makes it positive before
    DuckDB's truncating modulo); DuckDB's dates stop two days short of an int at either end, where
    its out-of-range error remains."""
    epoch = exp.cast(exp.Literal.string("1970-01-01"), exp.DataType.build("DATE"))
    since = exp.Paren(this=exp.Sub(this=start, expression=epoch))
    step = exp.Sub if subtracted else exp.Add
    total = step(this=since, expression=exp.cast(days, exp.DataType.build("BIGINT")))
    offset = exp.Literal.number(2**31 + 2**32)
    wrapped = exp.Sub(this=exp.Mod(this=exp.Paren(this=exp.Add(this=total, expression=offset)), expression=exp.Literal.number(2**32)),
                      expression=exp.Literal.number(2**31))
    return exp.Add(this=epoch.copy(), expression=exp.cast(wrapped, exp.DataType.build("INT")))


def _subtracted_days(node: exp.Expr) -> bool:
    """Whether ``node`` is the days of ``date_sub(d, n)``, which sqlglot writes ``n * -1``."""
    return isinstance(node, exp.Mul) and isinstance(node.expression, exp.Neg) and node.expression.this.name == "1"


_DAY_INTERVAL = "vpush_day_interval"
# The meta key of a difference of dates ("day": Spark's interval day) or of datetimes ("second":
# interval day to second), as DuckDB computes it

_HLL_PRECISION = "vpush_hll_precision"
# The meta key of the list of hashes that stands for an approx_count_distinct, with its precision


def _approx_count_distinct_deviation(node: exp.Expr) -> bool:
    """Whether ``node`` is the relative standard deviation of an ``approx_count_distinct``."""
    if isinstance(node.parent, exp.Distinct):  # approx_count_distinct(DISTINCT x, rsd)
        return node.index == 1 and isinstance(node.parent.parent, exp.ApproxDistinct)
    return isinstance(node.parent, exp.ApproxDistinct) and node.arg_key == "accuracy"


def _hll_estimate(hashes: exp.Expr, precision: int) -> exp.Expr:
    return exp.Anonymous(this=APPROX_COUNT_DISTINCT_FUNCTION, expressions=[hashes, exp.Literal.number(precision)])


_EXACT_COLLATIONS = ("UTF8_BINARY", "UTF8_LCASE")
_COMPARED = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ)


def _collation_name(node: exp.Collate | exp.Cast | exp.TryCast) -> str:
    named = node.expression if isinstance(node, exp.Collate) else node.to.args["collate"]
    return named.name.upper()


def _collated(node: exp.Expr, of: Callable[[exp.Expr], SparkType | None]) -> exp.Expr:
    """Spark 4.3's collations where DuckDB can give its answer: ``UTF8_BINARY`` (the default, so
    ``s COLLATE UTF8_BINARY`` is ``s``), and ``UTF8_LCASE`` compared (its comparisons are of the
    lower-cased strings: both sides lowered); ``collation(s)`` of these. Spark's other collations
    (``UNICODE``, ``UNICODE_CI``, ICU locales) are ICU's, and a ``UTF8_LCASE`` string grouped,
    ordered or projected keeps a value Spark picks by its order of rows: both refused."""
    if isinstance(node, exp.Collation):
        inner = node.this
        if isinstance(inner, exp.Collate) and _collation_name(inner) in _EXACT_COLLATIONS:
            return exp.Literal.string(f"SYSTEM.BUILTIN.{_collation_name(inner)}")
        found = None if isinstance(inner, exp.Collate) else of(inner)
        if found == StringType():
            return exp.Literal.string("SYSTEM.BUILTIN.UTF8_BINARY")
        if found is not None and not isinstance(found, StringType):
            raise OptimizeError(
                f'Cannot resolve "collation({_spark_text(inner)})" due to data type mismatch: The first parameter '
                f'requires the "STRING" type, however "{_spark_text(inner)}" has the type "{_spark_type_name(found)}".',
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        _refuse("collation", f"the collation of {_spark_text(inner)}")
    if not isinstance(node, (exp.Collate, exp.Cast, exp.TryCast)):
        return node
    name = _collation_name(node)
    parent = node.parent
    if isinstance(parent, exp.Collation) and name in _EXACT_COLLATIONS:
        return node  # collation(s COLLATE c): its parent's answer
    if name == "UTF8_BINARY":
        if isinstance(node, exp.Collate):
            return node.this
        node.to.set("collate", None)
        return node
    if name == "UTF8_LCASE" and isinstance(node, exp.Collate) and isinstance(parent, _COMPARED):
        other = parent.expression if parent.this is node else parent.this
        if other.find(exp.Collate) is None and of(other) in (StringType(), None):
            other.replace(exp.Lower(this=other.copy()))
            return exp.Lower(this=node.this)
    _refuse("COLLATE", f"the collation {name} other than in a comparison of UTF8_LCASE strings")


def _nullable(node: exp.Expr | None) -> bool:
    """Whether Spark's analyzer takes ``node`` as nullable, as far as vpush can tell without its
    rules: a NULL, a column (read from a file), arithmetic over one of those."""
    if isinstance(node, (exp.Null, exp.Column)):
        return True
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)):
        return _nullable(node.this.unnest()) or _nullable(node.expression.unnest())
    return False


def _cast_to_not_null_fields(node: exp.Cast | exp.TryCast) -> None:
    """A cast to a struct with ``NOT NULL`` (or ``COMMENT``) fields, which DuckDB's parser refuses,
    as the cast to the struct without them, where Spark takes it: Spark's cast may make a field
    NOT NULL only where its source's is (``Cast.canCast``), a literal's that is not NULL, never a
    column read from a file (Spark reads every column as nullable) or arithmetic over one. In place.

    Raises:
        OptimizeError: a nullable source (Spark's ``DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION``), or
            one whose nullability vpush does not know (``VPUSH_UNSUPPORTED_FUNCTION``).
    """
    fields = node.to.expressions if node.to.is_type(exp.DType.STRUCT) else []
    source = node.this.unnest()
    values = [p.expression if isinstance(p, exp.PropertyEQ) else p for p in source.expressions] if isinstance(
        source, exp.Struct) else None
    for position, field in enumerate(fields):
        constraints = field.args.get("constraints") or [] if isinstance(field, exp.ColumnDef) else []
        if not any(isinstance(c.args.get("kind"), exp.NotNullColumnConstraint) for c in constraints):
            continue
        value = values[position].unnest() if values is not None and position < len(values) else None
        if value is not None and isinstance(value, (exp.Literal, exp.Boolean)):
            continue
        if _nullable(value if values is not None else source):
            raise OptimizeError(
                f'Cannot resolve "{_spark_text(node.this)}" due to data type mismatch: cannot cast a nullable field '
                f'to the NOT NULL field {field.name}.',
                error_class="DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
            )
        raise OptimizeError(
            f"{_spark_text(node)}: the DuckDB engine does not give Spark's answer for a cast to a NOT NULL field "
            "of a value other than a column or a literal yet; the Spark engine runs it",
            error_class="VPUSH_UNSUPPORTED_FUNCTION",
        )
    for constraint in list(node.to.find_all(exp.ColumnConstraint)):
        constraint.pop()


def _transform(node: exp.Expr, rewriter: _Rewriter) -> exp.Expr:
    """Rewrite ``node`` bottom-up, not entering nested queries (they are scopes of their own)."""
    for child in list(node.iter_expressions()):
        if isinstance(child, (exp.Select, exp.Subquery, exp.SetOperation)):
            continue
        _transform(child, rewriter)
    parent, key, index = node.parent, node.arg_key, node.index
    if isinstance(node, (exp.IgnoreNulls, exp.RespectNulls)):
        rewriter.typer.of(node)  # typed as written, for its rewrite to keep the type
    replaced = rewriter.visit(node)
    if node.meta.get(_TRIED):
        replaced = exp.Anonymous(this="try", expressions=[replaced])
    if node.meta.get(_AS_VARIANT):
        of_type = rewriter.typer.types.get(id(node))
        replaced = _cast_to_variant(exp.Cast(this=replaced, to=exp.DataType.build("variant")), of_type)
    if replaced is not node:
        rewriter.typer.set_type(replaced, rewriter.typer.types.get(id(node)))
        if parent is not None and key is not None:
            parent.set(key, replaced, index)
    if _is_integral(rewriter.typer.types.get(id(node))) and pins(replaced):
        replaced.meta[PINNED] = True  # computed as written, as Spark does (DuckDB's optimizer moves the constant)
    return replaced


_BINARY_SYMBOLS: dict[type[exp.Expr], str] = {
    exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%", exp.IntDiv: "div",
    exp.EQ: "=", exp.NEQ: "!=", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">=",
    exp.And: "AND", exp.Or: "OR", exp.NullSafeEQ: "<=>", exp.BitwiseLeftShift: "<<", exp.BitwiseRightShift: ">>",
    ShiftRightUnsigned: ">>>",
}


_INTERVAL_UNITS = frozenset({"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"})
_TIME_UNIT_MICROS = {unit: MICROS_PER_UNIT[unit] for unit in ("HOUR", "MINUTE", "SECOND", "MICROSECOND")}


def _interval_days(node: exp.Interval) -> tuple[exp.Expression, exp.Expression] | None:
    """An interval of a whole number of hours, minutes or seconds of a day or more as DuckDB's
    days and microseconds, to be added in that order (Spark's split: ``micros / MICROS_PER_DAY``
    days, truncated, and the rest); None where it is less than a day or not such a literal."""
    unit, value = node.args.get("unit"), node.this
    if not isinstance(unit, exp.Var) or not isinstance(value, exp.Literal):
        return None
    word = unit.name.upper()
    word = word[:-1] if word.endswith("S") else word
    text = value.name.strip()
    if word not in _TIME_UNIT_MICROS or not text.lstrip("+-").isdigit():
        return None
    total = int(text) * _TIME_UNIT_MICROS[word]
    days = abs(total) // MICROS_PER_DAY * (1 if total >= 0 else -1)
    if days == 0:
        return None
    rest = total - days * MICROS_PER_DAY
    return (exp.Anonymous(this="to_days", expressions=[exp.Literal.number(days)]),
            exp.Anonymous(this="to_microseconds", expressions=[exp.Literal.number(rest)]))





def _interval_name(node: exp.Interval) -> str | None:
    """``INTERVAL 24 HOURS`` as Spark prints it, ``INTERVAL '24' HOUR``; None for other forms."""
    span = span_interval(node)
    if span is not None:
        return span[2]
    unit, value = node.args.get("unit"), node.this
    if not isinstance(unit, exp.Var) or not isinstance(value, exp.Literal):
        return None
    word = unit.name.upper()
    word = word[:-1] if word.endswith("S") and word[:-1] in _INTERVAL_UNITS | {"WEEK"} else word
    text = value.name
    if word == "WEEK" and text.lstrip("-").isdigit():
        word, text = "DAY", str(int(text) * 7)  # Spark's parser makes a week seven days
    if word in ("HOUR", "MINUTE", "SECOND") and text.isdigit():
        text = text.zfill(2)  # Spark prints a time field with two digits at least
    elif word == "SECOND" and re.fullmatch(r"[+-]?[0-9]*\.[0-9]{1,6}", text):
        # seconds with a fraction: BigDecimal.stripTrailingZeros, a leading 0 below ten (`'00.75'`)
        number = decimal.Decimal(text)
        text = ("-" if number < 0 else "") + ("0" if abs(number) < 10 else "") + format(abs(number).normalize(), "f")
    return f"INTERVAL '{text}' {word}" if word in _INTERVAL_UNITS else None


_DATE_OPERAND = "vpush_date_operand"
"""The meta key marking a ``+`` or ``-`` with a date operand (its value: that operand's arg key),
which Spark names as the ``date_add``/``date_sub`` it resolves it to (see :func:`_mark_typed_names`)."""

_STRUCT_FIELD = "vpush_struct_field"
"""The meta key marking ``s['a']`` over a struct, which Spark names ``s.a``."""

MODE_GROUPS_LIMIT = 128
"""Spark's ``spark.sql.objectHashAggregate.sortBased.fallbackThreshold``: groups a task's hash
aggregation holds before it falls back to sorting."""

_TO_CHAR_SHOWN = "vpush_to_char_shown"
"""The meta key of a ``to_char``/``to_varchar`` call of a date or time, which Spark names ``date_format``."""

_NUMERIC_SUFFIXES: dict[exp.DType, str] = {
    exp.DType.TINYINT: "integer", exp.DType.SMALLINT: "integer", exp.DType.BIGINT: "integer",
    exp.DType.DOUBLE: "double", exp.DType.FLOAT: "float", exp.DType.DECIMAL: "decimal",
}


def _numeric_literal(node: exp.Expr) -> tuple[str, str | None] | None:
    """A number literal's text and, for one written with a type suffix (``1L``, ``1.5D``,
    ``2BD``), the kind of number it is; None for anything else."""
    if isinstance(node, exp.Literal) and not node.is_string:
        return node.this, None
    if isinstance(node, exp.Cast) and node.meta.get(TYPED_LITERAL) and isinstance(node.this, exp.Literal):
        kind = _NUMERIC_SUFFIXES.get(node.to.this)
        return None if kind is None else (node.this.name, kind)
    return None


def _number_name(text: str, kind: str | None) -> str | None:
    """A number literal as Spark prints it: its value's ``toString`` (``00.5`` is ``0.5``, ``-0`` is
    ``0``, ``1e3`` and ``1000D`` are ``1000.0``, ``1e3BD`` is ``1000``, ``1e-7BD`` is ``1E-7``).

    Example:
        >>> [_number_name(t, k) for t, k in [("007", None), ("-0.0", None), ("1e3", None), ("16777217", "float"), ("1e3", "decimal")]]
        ['7', '0.0', '1000.0', '1.6777216E7', '1000']
    """
    kind = kind or ("double" if "e" in text.lower() else "decimal" if "." in text else "integer")
    try:
        if kind == "integer":
            return str(int(text))
        if kind in ("double", "float"):
            value = float(text)
            return format_java_double(value) if kind == "double" else format_java_float(value)
        number = decimal.Decimal(text)
    except (ValueError, decimal.InvalidOperation):
        return None
    if number.as_tuple().exponent > 0:  # type: ignore[operator]
        number = number.quantize(decimal.Decimal(1))  # Spark's decimals have no negative scale
    # Java's BigDecimal has no negative zero; its toString is Python's str of a Decimal
    return str(number.copy_abs() if number.is_zero() else number)


def _call_pair(left: exp.Expr, symbol: str, right: exp.Expr) -> str | None:
    """``(left symbol right)`` with both operands' Spark names, or None."""
    a, b = spark_name(left, top=False), spark_name(right, top=False)
    return None if a is None or b is None else f"({a} {symbol} {b})"


def _struct_field_name(prop: exp.PropertyEQ) -> str | None:
    """``x AS a``, an argument of ``struct`` as Spark prints it (the name back-quoted where it is
    not a plain identifier)."""
    value = spark_name(prop.expression, top=False)
    name = prop.name
    if value is None:
        return None
    return f"{value} AS {name if _PLAIN_NAME.match(name) else '`' + name.replace('`', '``') + '`'}"


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


_DATE_UNITS = frozenset({"YEAR", "MONTH", "WEEK", "DAY"})


def _is_interval_literal(node: exp.Expr) -> bool:
    """Whether ``node`` is an interval literal, possibly negated or in parentheses."""
    while isinstance(node, (exp.Paren, exp.Neg)):
        node = node.this
    return isinstance(node, exp.Interval)


def _interval_unit(node: exp.Expr) -> str:
    """The unit of an interval literal of one unit, possibly negated or in parentheses
    (``DAY`` for ``-INTERVAL 2 DAYS``); ``''`` for anything else."""
    while isinstance(node, (exp.Paren, exp.Neg)):
        node = node.this
    unit = node.args.get("unit") if isinstance(node, exp.Interval) else None
    return unit.name.upper().rstrip("S") if isinstance(unit, exp.Var) else ""


def _days_interval(node: exp.Expr) -> bool:
    """Whether ``node`` is an interval literal of whole days (or weeks), possibly negated: Spark
    adds it to a date as ``date_add(d, extractansiintervaldays(i))``."""
    return _interval_unit(node) in ("DAY", "WEEK")


def _date_arithmetic_name(node: exp.Add | exp.Sub) -> str | None:
    """A date plus or minus days as Spark names the call it resolves it to: ``date_add(d, n)``,
    ``date_sub(d, n)``, ``date_add(d, extractansiintervaldays(INTERVAL '1' DAY))``; a date plus
    another interval as it is printed (``d + INTERVAL '2' MONTH``)."""
    side = node.meta[_DATE_OPERAND]
    date = node.args[side]
    other = node.expression if side == "this" else node.this
    if _days_interval(other) or _unparen(other).meta.get(_DATES_DIFFERENCE):
        days = _call("extractansiintervaldays", [other])
        if days is not None and isinstance(node, exp.Sub):
            days = f"(- {days})"
        shown = spark_name(date, top=False)
        return None if days is None or shown is None else f"date_add({shown}, {days})"
    if isinstance(_unparen(other), exp.Interval):
        left, right = spark_name(date, top=False), spark_name(other, top=False)
        symbol = "+" if isinstance(node, exp.Add) else "-"
        return None if left is None or right is None else f"{left} {symbol} {right}"
    return _call("date_add" if isinstance(node, exp.Add) else "date_sub", [date, other])


def _unparen(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _date_result(node: exp.Expr) -> bool:
    """Whether ``node`` is a date plus or minus days, months or years (marked by
    :func:`_mark_typed_names`), which is a date in Spark."""
    side = node.meta.get(_DATE_OPERAND) if isinstance(node, (exp.Add, exp.Sub)) else None
    if side is None:
        return False
    return _interval_unit(node.expression if side == "this" else node.this) not in _TIME_UNIT_MICROS


_DATES_DIFFERENCE = "vpush_dates_difference"
# The meta key of a date minus a date (or a string) beside a date, which Spark's name treats as an
# interval of days: date_add(d, extractansiintervaldays((d - e)))


def _dates_difference(node: exp.Expr, typer: _Typer) -> bool:
    """Whether ``node`` is a date minus a date or a string (either way round): Spark's interval day."""
    node = _unparen(node)
    if not isinstance(node, exp.Sub):
        return False
    kinds = [typer.of(node.this), typer.of(node.expression)]
    return AtomicType("date") in kinds and all(k == AtomicType("date") or isinstance(k, StringType) for k in kinds)


def _mark_typed_names(projection: exp.Expr, typer: _Typer) -> None:
    """Mark the nodes of ``projection`` whose Spark name depends on their operands' types: a date
    plus or minus a number or an interval (:data:`_DATE_OPERAND`), ``s['a']`` of a struct
    (:data:`_STRUCT_FIELD`), ``f(...).a`` of an array of structs (:data:`_ARRAY_FIELDS`)."""
    for node in reversed(in_scope(projection)):  # operands before the nodes over them
        if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
            read = typer.of(node.this)  # (not array_fields: it builds its read around the node's own operand)
            if isinstance(read, ArrayType) and isinstance(read.element, StructType):
                node.meta[_ARRAY_FIELDS] = True
        elif isinstance(node, exp.Bracket) and len(node.expressions) == 1:
            key = node.expressions[0]
            if isinstance(key, exp.Literal) and key.is_string and isinstance(typer.of(node.this), StructType):
                node.meta[_STRUCT_FIELD] = True
        elif isinstance(node, (exp.Add, exp.Sub)):
            for side in ("this", "expression") if isinstance(node, exp.Add) else ("this",):
                other = node.expression if side == "this" else node.this
                date = typer.of(node.args[side]) == AtomicType("date") or _date_result(node.args[side])
                if date and _dates_difference(other, typer):
                    _unparen(other).meta[_DATES_DIFFERENCE] = True
                if date and (_is_integral(typer.of(other)) or isinstance(_unparen(other), (exp.Interval, exp.Neg))
                             or _unparen(other).meta.get(_DATES_DIFFERENCE)):
                    node.meta[_DATE_OPERAND] = side
                    break
        elif call_name(node) in ("to_char", "to_varchar"):
            arguments = call_arguments(node)
            if arguments and arguments[0] is not None and typer.of(arguments[0]) in (AtomicType("date"), *_TIMESTAMPS):
                node.meta[_TO_CHAR_SHOWN] = "date_format"


def _listagg_within_group_name(node: exp.GroupConcat, top: bool) -> str | None:
    """``listagg(x, d) WITHIN GROUP (ORDER BY k)`` (or ``string_agg``) as Spark names it:
    ``listagg(x, d) WITHIN GROUP (ORDER BY k ASC NULLS FIRST)``, each key's direction and NULLs
    spelt out (sqlglot folds the ordering into the call)."""
    order = node.this
    assert isinstance(order, exp.Order)
    plain = node.copy()
    plain.set("this", order.this.copy())
    base = spark_name(plain, top=top)
    keys = [spark_name(o.this, top=False) for o in order.expressions]
    if base is None or any(k is None for k in keys):
        return None
    spelt = [
        f"{k} {'DESC' if o.args.get('desc') else 'ASC'} NULLS {'FIRST' if o.args.get('nulls_first') else 'LAST'}"
        for k, o in zip(keys, order.expressions)
    ]
    return f"listagg{base[base.index('('):]} WITHIN GROUP (ORDER BY {', '.join(spelt)})"


_ABS_TYPES = (AtomicType("tinyint"), AtomicType("smallint"), AtomicType("int"), AtomicType("bigint"), AtomicType("float"), AtomicType("double"))


def spark_name(node: exp.Expr, *, top: bool = True) -> str | None:
    """The column name Spark gives an unaliased projection (``toPrettySQL``), for the common
    expressions; None for one this function does not know (DuckDB's name stays).

    Example:
        >>> import sqlglot
        >>> spark_name(sqlglot.parse_one("SELECT sum(a) / 2 + count(*)", read=VpushSpark).expressions[0])
        '((sum(a) / 2) + count(1))'
    """
    if isinstance(node, exp.Cast) and node.meta.get(_IMPLICIT_CAST):
        token = _SCALA_ZONE.set(None)  # Spark's implicit casts are not in its names (their child's SQL)
        try:
            return spark_name(node.this, top=top)
        finally:
            _SCALA_ZONE.reset(token)
    zone = _SCALA_ZONE.get()
    if zone is not None:
        printed = _scala_call_text(node, zone)
        if printed is not None:
            return printed
    if _TRIED_NAME in node.meta:
        return node.meta[_TRIED_NAME]  # named as the try_add/try_subtract it stands for
    if isinstance(node, (exp.IgnoreNulls, exp.RespectNulls)):
        # first(x) IGNORE NULLS and last(x, true) are named first(x), last(x)
        written = call_name(node)
        if written is not None and call_name(node.this) is None and _arguments(node):
            argument = spark_name(_arguments(node)[0], top=False)
            return None if argument is None else f"{written}({argument})"
        inner_call = call_name(node.this)
        if inner_call in ("first_value", "last_value"):
            # measured: Spark parses first_value(x) IGNORE/RESPECT NULLS into First, named first(x)
            arguments = _arguments(node.this)
            argument = spark_name(arguments[0], top=False) if len(arguments) == 1 else None
            return None if argument is None else f"{inner_call.removesuffix('_value')}({argument})"
        inner_name = spark_name(node.this, top=top)
        if inner_call == "nth_value" and isinstance(node, exp.IgnoreNulls) and inner_name is not None:
            return f"{inner_name} ignore nulls"  # measured: NthValue prints its flag so
        return inner_name
    if isinstance(node, VariantGet) or (isinstance(node, exp.Cast) and isinstance(node.this, VariantGet)):
        return _extraction_name(node, top)
    called = None if isinstance(node, (exp.Cast, exp.TryCast)) else call_name(node)
    if isinstance(node, exp.GroupConcat) and isinstance(node.this, exp.Order) and called in ("listagg", "string_agg"):
        return _listagg_within_group_name(node, top)
    if called == "window":
        return "window"  # a time window is the column Spark's TimeWindowing adds, `window`
    if isinstance(node, (exp.Dot, exp.Bracket)) and call_name(node.this) == "window":
        field = node.expression if isinstance(node, exp.Dot) else node.expressions[0]
        return f"window.{field.name}" if isinstance(field, (exp.Identifier, exp.Literal)) else None
    continuous = _percentile_cont(node)
    if continuous is not None:
        value, percentage, descending = (spark_name(continuous[0], top=False), spark_name(continuous[1], top=False),
                                         continuous[2])
        if value is None or percentage is None:
            return None
        called = "percentile_disc" if continuous[3] else "percentile_cont"
        return f"{called}({percentage}) WITHIN GROUP (ORDER BY {value}{' DESC' if descending else ''})"
    if isinstance(node, exp.Cast) and call_name(node) == "to_timestamp":
        called = "to_timestamp"  # a cast in sqlglot's tree, a function in Spark's names
    # count(*) is count(1), and div(a, b) is (a div b): below
    if called is not None and called in SPARK_FUNCTIONS and called not in ("count", "div"):
        return _traced_call_name(node, called)
    number = _numeric_literal(node) if isinstance(node, exp.Cast) else None
    if number is not None:
        return _number_name(*number)
    if isinstance(node, exp.Cast) and node.meta.get(TYPED_LITERAL) and isinstance(node.this, exp.Literal):
        return _typed_literal_name(node)
    if isinstance(node, exp.Tuple):  # a struct in Spark (an IN's operands stay tuples)
        parts = [[exp.Literal.string(tuple_field_name(e, k)), e] for k, e in enumerate(node.expressions)]
        return _call("named_struct", [e for pair in parts for e in pair])
    if isinstance(node, exp.Collate) and isinstance(node.expression, (exp.Var, exp.Column)):
        inner = spark_name(node.this, top=False)
        return None if inner is None else f"collate({inner}, {node.expression.name})"
    if isinstance(node, exp.Subquery):
        return "scalarsubquery()"
    if isinstance(node, exp.Exists):
        return "exists()"
    if isinstance(node, exp.In) and isinstance(node.args.get("query"), (exp.Subquery, exp.Select)):
        tested = spark_name(node.this, top=False)
        return None if tested is None else f"({tested} IN (listquery()))"
    if isinstance(node, (ParseJson, IsVariantNull, IsValidVariant, SchemaOfVariant, SchemaOfVariantAgg)):
        return _call(node.sql_name().lower(), [node.this])
    if isinstance(node, (exp.Add, exp.Sub)) and node.meta.get(_DATE_OPERAND):
        return _date_arithmetic_name(node)
    if isinstance(node, exp.Bracket) and node.meta.get(_STRUCT_FIELD):
        source = spark_name(node.this, top=False)
        return None if source is None else f"{source}.{node.expressions[0].name}"
    if isinstance(node, exp.Column):
        return None if isinstance(node.this, exp.Star) else _column_name(node, top)
    if isinstance(node, exp.Paren):
        return spark_name(node.this, top=False)
    if isinstance(node, exp.Bracket) and len(node.expressions) == 1 and not node.args.get("offset") and not node.args.get("safe"):
        source, key = spark_name(node.this, top=False), spark_name(node.expressions[0], top=False)
        return None if source is None or key is None else f"{source}[{key}]"
    if isinstance(node, exp.Literal):
        return node.this if node.is_string else _number_name(node.this, None)
    if isinstance(node, exp.RawString):
        return node.name
    if isinstance(node, exp.Boolean):
        return "true" if node.this else "false"
    if isinstance(node, exp.Null):
        return "NULL"
    if isinstance(node, exp.HexString):
        return f"X'{node.this.upper()}'"  # Spark prints a binary literal's bytes in upper case
    if isinstance(node, exp.Neg):
        number = _numeric_literal(node.this)
        if number is not None:
            return _number_name("-" + number[0], number[1])  # Spark reads `-3` as one literal
        inner = spark_name(node.this, top=False)
        return None if inner is None else f"(- {inner})"
    if (
        isinstance(node, exp.Not)
        and isinstance(node.this, exp.Is)
        and isinstance(node.this.expression, exp.Null)
        and not node.meta.get(PREFIX_NOT)
    ):
        inner_is = spark_name(node.this.this, top=False)
        return None if inner_is is None else f"({inner_is} IS NOT NULL)"
    if isinstance(node, exp.Not):
        inner = spark_name(node.this, top=False)
        return None if inner is None else f"(NOT {inner})"
    operator = _operator_name(node)
    if operator is not None:
        return operator or None
    if isinstance(node, exp.Interval):
        return _interval_name(node)
    if isinstance(node, exp.Mul) and isinstance(node.expression, exp.Interval) and not isinstance(node.this, exp.Interval):
        # Spark's product of an interval and a number prints the interval first
        return _call_pair(node.expression, "*", node.this)
    if isinstance(node, exp.Add) and isinstance(node.this, exp.Interval) and not isinstance(node.expression, exp.Interval):
        # an interval plus a timestamp: Spark prints the timestamp first, without parentheses
        left, right = spark_name(node.expression, top=False), _interval_name(node.this)
        return None if left is None or right is None else f"{left} + {right}"
    if isinstance(node, (exp.Add, exp.Sub)) and isinstance(node.expression, exp.Interval) and not isinstance(node.this, exp.Interval):
        # Spark prints a timestamp plus an interval without parentheses
        left, right = spark_name(node.this, top=False), _interval_name(node.expression)
        return None if left is None or right is None else f"{left} {'+' if isinstance(node, exp.Add) else '-'} {right}"
    symbol = _BINARY_SYMBOLS.get(type(node))
    if symbol is not None:
        return _call_pair(node.this, symbol, node.expression)
    if isinstance(node, (exp.Cast, exp.TryCast)):
        inner = spark_name(node.this, top=False)
        if inner is None:
            return None
        if (isinstance(node.this, exp.Column) and top) or (node.meta or {}).get(SPARK_CALL, ("",))[0] in _TYPE_NAME_CASTS:
            # Spark prints a cast by type name (`int(x)`, `binary(g)`) as its argument: only
            # a CAST the user wrote is a "user-specified cast" in its names.
            return inner
        word = "TRY_CAST" if isinstance(node, exp.TryCast) else "CAST"
        target = _cast_type(node)
        if word == "CAST" and isinstance(target, (ArrayType, MapType, StructType)):
            return inner  # measured: Spark names a cast to an array, map or struct after its argument
        return None if target is None else f"{word}({inner} AS {target.to_sql()})"
    if isinstance(node, exp.Window):
        return _window_name(node)
    mode_order = _mode_within_group(node)
    if mode_order is not None:
        inner_mode = spark_name(mode_order.this, top=False)
        # measured: Spark prints the ascending form with DESC and the descending one without
        return None if inner_mode is None else f"mode() WITHIN GROUP (ORDER BY {inner_mode}{'' if mode_order.args.get('desc') else ' DESC'})"
    if isinstance(node, exp.Filter) and isinstance(node.expression, exp.Where):
        inner, condition = spark_name(node.this, top=False), spark_name(node.expression.this, top=False)
        return None if inner is None or condition is None else f"{inner} FILTER (WHERE {condition})"
    if isinstance(node, tuple(_RANKING_NAMES)):
        word = _RANKING_NAMES[type(node)]
        return _call(word, [node.this, *node.expressions])
    if isinstance(node, exp.Anonymous):
        return _call(node.name, node.expressions)
    if isinstance(node, tuple(_DATETIME_PARTS)):
        return _call(_DATETIME_PARTS[type(node)], [_user_argument(node.this)])
    if isinstance(node, exp.DateDiff) and node.args.get("unit") is None:
        return _call("datediff", [_user_argument(node.this), _user_argument(node.expression)])
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Boolean):
        return _call_pair(node.this, "<=>", node.expression)  # Spark's x IS TRUE is x <=> true
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        inner_null = spark_name(node.this, top=False)
        return None if inner_null is None else f"({inner_null} IS NULL)"
    if isinstance(node, exp.TimestampTrunc):
        unit = node.args.get("unit")
        return _call("date_trunc", [exp.Literal.string(unit.name.lower()) if unit is not None else None, node.this])
    if isinstance(node, exp.StrToUnix) and node.args.get("format") is None:
        return _call("unix_timestamp", [node.this], suffix=", yyyy-MM-dd HH:mm:ss")
    if isinstance(node, exp.CurrentDate):
        return "current_date()"
    if isinstance(node, exp.CurrentTimestamp):
        return "current_timestamp()"
    if isinstance(node, exp.Count):
        arg = node.this
        if isinstance(arg, exp.Star) or arg is None:
            return "count(1)"
        if isinstance(arg, exp.Distinct):
            return _call("count", arg.expressions, prefix="DISTINCT ")
        inner_name = spark_name(arg, top=False)
        return None if inner_name is None else f"count({inner_name})"
    if isinstance(node, exp.Coalesce):  # nvl and ifnull parse to it too: sqlglot keeps no spelling
        return _call("coalesce", [node.this, *node.expressions])
    if isinstance(node, (exp.Sum, exp.Avg, exp.Min, exp.Max, exp.Abs, exp.Upper, exp.Lower, exp.Length)):
        return _call(type(node).__name__.lower(), [node.this, *node.expressions])
    if isinstance(node, exp.Concat):
        if call_name(node) is None and all(isinstance(e, exp.Literal) and e.is_string for e in node.expressions):
            return "".join(e.name for e in node.expressions)  # 'a' 'b': Spark's parser joins them into one literal
        return _call("concat", list(node.expressions))
    if isinstance(node, exp.DPipe):
        return _call("concat", [node.this, node.expression])
    if isinstance(node, exp.If):
        call = _call("IF", [node.this, node.args.get("true"), node.args.get("false")])
        return None if call is None else f"({call})"
    if isinstance(node, exp.Case):
        return _case_name(node)
    if isinstance(node, exp.Round):
        return _call("round", [node.this, node.args.get("decimals") or exp.Literal.number(0)])
    if isinstance(node, exp.Replace):
        return _call("replace", [node.this, node.expression, node.args.get("replacement")])
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier) and top and isinstance(node.this, exp.Column):
        return node.expression.name  # a name of five parts and more (deep.l1.l2.l3.x): Spark's attribute, named after its field
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
        # Spark's GetStructField prints its child's SQL, GetArrayStructFields its child's Scala
        # toString (the calls in it with all their arguments: `variant_get(v, $.a, ArrayType(...),
        # true, Some(UTC)).b`)
        token = _SCALA_ZONE.set(SESSION_TIME_ZONE.get() if _reads_array_fields(node) else None)
        try:
            inner_dot = spark_name(node.this, top=False)
        finally:
            _SCALA_ZONE.reset(token)
        return None if inner_dot is None else f"{inner_dot}.{node.expression.name}"
    if isinstance(node, exp.Transform) and isinstance(node.expression, exp.Lambda):
        return _call("transform", [node.this, node.expression])
    if isinstance(node, exp.Lambda):
        return _lambda_name(node)
    return None


def _lambda_name(node: exp.Lambda) -> str | None:
    """``x -> x + 1`` as Spark prints it: ``lambdafunction((namedlambdavariable() + 1), namedlambdavariable())``."""
    variables = {v.name.lower() for v in node.expressions}
    body = node.this.copy()
    placeholder = exp.Anonymous(this="namedlambdavariable")
    for ref in list(body.find_all(exp.Column, exp.Identifier)):
        if ref.name.lower() in variables and not isinstance(ref.parent, exp.Column):
            if ref is body:
                body = placeholder.copy()
            else:
                ref.replace(placeholder.copy())
    shown = spark_name(body, top=False)
    if shown is None:
        return None
    return f"lambdafunction({', '.join([shown] + ['namedlambdavariable()'] * len(node.expressions))})"


# Calls Spark prints with their first argument only (`first(i, true)` is `first(i)`).
_FIRST_ARGUMENT_ONLY = frozenset({"first", "last", "first_value", "last_value", "any_value", "approx_count_distinct", "from_json"})


def _accessed_field(node: exp.Expr) -> str | None:
    """The name of the field that the field access holding ``node`` takes (``node.b``,
    ``node['b']``), or None."""
    parent = node.parent
    if isinstance(parent, exp.Dot) and node.arg_key == "this" and isinstance(parent.expression, exp.Identifier):
        return parent.expression.name
    if isinstance(parent, exp.Bracket) and node.arg_key == "this" and len(parent.expressions) == 1:
        key = parent.expressions[0]
        if isinstance(key, exp.Literal) and key.is_string:
            return key.name
    return None


def _from_json_of_map(node: exp.Expr) -> bool:
    """Whether ``node`` is a ``from_json`` whose schema literal is a map."""
    schema = _arguments(node)[1:2]
    if not (schema and isinstance(schema[0], exp.Literal) and schema[0].is_string):
        return False
    try:
        return isinstance(from_json_schema(schema[0].name), MapType)
    except OptimizeError:
        return False


def _traced_call_name(node: exp.Expr, called: str) -> str | None:
    """Spark's name of a call to a function of :data:`SPARK_FUNCTIONS`, from the call as the user
    wrote it (see :data:`~vpush.optimizer.dialect.SPARK_CALL`)."""
    rule = SPARK_FUNCTIONS[called]
    if called == "datepart" and isinstance(node, exp.Anonymous) and len(node.expressions) == 2:
        unit_part, source_part = (spark_name(a, top=False) for a in node.expressions)
        return None if unit_part is None or source_part is None else f"datepart({unit_part} FROM {source_part})"
    if called in ("extract", "datepart") and isinstance(node, exp.Extract):
        unit = node.meta.get(WRITTEN_UNIT) or (node.this.name if isinstance(node.this, (exp.Var, exp.Literal)) else None)
        source = spark_name(node.expression, top=False)
        return None if unit is None or source is None else f"{called}({unit} FROM {source})"
    if isinstance(node, exp.Trim):
        return _trim_name(node)
    if called in ("to_char", "to_varchar"):
        # Spark names both after to_char, or date_format for a date or time
        return _call(node.meta.get(_TO_CHAR_SHOWN, "to_char"), call_arguments(node) or [])
    if isinstance(node, (exp.TimestampAdd, exp.TimestampDiff)) and called in ("timestampadd", "dateadd", "date_add", *_TIMESTAMPDIFF_NAMES):
        # Spark names the three-argument forms after timestampadd / timestampdiff
        unit = node.args.get("unit")
        parts = [spark_name(node.expression, top=False), spark_name(node.this, top=False)]
        if unit is None or None in parts:
            return None
        written = node.meta.get(WRITTEN_UNIT) or unit.name.upper()  # Spark prints the unit as written
        return f"{'timestampdiff' if isinstance(node, exp.TimestampDiff) else 'timestampadd'}({written}, {parts[0]}, {parts[1]})"
    if called == "convert_timezone" and isinstance(node, exp.ConvertTimezone) and node.args.get("source_tz") is None:
        # Spark fills in the session time zone as the source
        named = [spark_name(node.args[k], top=False) for k in ("target_tz", "timestamp")]
        return None if None in named else f"convert_timezone(current_timezone(), {named[0]}, {named[1]})"
    if isinstance(node, (exp.AtTimeZone, exp.FromTimeZone)):
        # from_utc_timestamp / to_utc_timestamp: the cast to a timestamp that sqlglot's parser
        # wraps around the argument is not the user's
        return _call(called, [utc_shift_argument(node), node.args.get("zone")])
    if called == "mode" and isinstance(node, exp.Mode):
        # Spark prints mode(x, true) as its WITHIN GROUP form (the tie broken to the least value)
        inner = spark_name(node.this, top=False)
        deterministic = node.args.get("deterministic") == exp.Boolean(this=True)
        return None if inner is None else (f"mode() WITHIN GROUP (ORDER BY {inner} DESC)" if deterministic else f"mode({inner})")
    arguments = call_arguments(node)
    if called == "from_json" and _from_json_of_map(node):
        return "entries"  # Spark names a map's from_json after its map data's field
    if called == "date_sub" and isinstance(node, exp.TsOrDsAdd) and _subtracted_days(node.expression):
        arguments = [node.this, node.expression.this]  # sqlglot's date_add(d, n * -1)
    if arguments is None and node_arguments(node) is not None:
        arguments = list(node_arguments(node) or [])
    if arguments is None:
        keys = PARSED_ARGUMENTS.get(type(node))
        if keys is None:
            return None
        arguments = [node.args.get(k) for k in keys]
        while arguments and arguments[-1] is None:
            arguments.pop()
    if called in _FIRST_ARGUMENT_ONLY:
        arguments = arguments[:1]
    if called == "try_make_timestamp":
        arguments = arguments[:6]  # Spark's name of it leaves the time zone out
    if any(a is None for a in arguments):
        return None
    # struct(a, b): the fields the parser named after their expressions; struct(x AS a) as written
    arguments = [a.expression if isinstance(a, exp.PropertyEQ) and a.meta.get(IMPLICIT_NAME) else a for a in arguments]
    if called == "struct" and any(isinstance(a, exp.PropertyEQ) for a in arguments):
        fields = [_struct_field_name(a) if isinstance(a, exp.PropertyEQ) else spark_name(a, top=False) for a in arguments]  # type: ignore[arg-type]
        return None if any(f is None for f in fields) else f"struct({', '.join(str(f) for f in fields)})"
    if called in ("isnull", "isnotnull") and len(arguments) == 1:
        inner = spark_name(arguments[0], top=False)  # type: ignore[arg-type]
        return None if inner is None else f"({inner} IS {'NOT ' if called == 'isnotnull' else ''}NULL)"
    if called == "positive" and len(arguments) == 1:
        inner_positive = spark_name(arguments[0], top=False)  # type: ignore[arg-type]
        return None if inner_positive is None else f"(+ {inner_positive})"
    if called == "log" and len(arguments) == 1:
        arguments = [exp.Anonymous(this="E"), *arguments]  # Spark's one-argument log is LOG(E(), x)
    prefix = ""
    if len(arguments) == 1 and isinstance(arguments[0], exp.Distinct):
        prefix, arguments = "DISTINCT ", list(arguments[0].expressions)
        if called in _FIRST_ARGUMENT_ONLY:
            arguments = arguments[:1]  # approx_count_distinct(DISTINCT x, rsd)
    names = [spark_name(a, top=False) for a in arguments if a is not None]
    if any(n is None for n in names):
        return None
    missing = rule.defaults[max(0, len(names) - rule.least) :]
    shown = [n for n in names if n is not None] + list(missing)
    return f"{rule.shown or called}({prefix}{', '.join(shown)})"


def _trim_name(node: exp.Trim) -> str | None:
    """Spark's name of a trim: ``trim(s)``, ``ltrim(s)``, ``rtrim(s)``, and with characters to
    trim ``TRIM(LEADING chars FROM s)`` (``ltrim(chars, s)`` too: Spark's two-argument forms take
    the characters first, as sqlglot reads them)."""
    position = str(node.args.get("position") or "BOTH").upper()
    source = spark_name(node.this, top=False)
    characters = node.args.get("expression")
    if characters is None:
        word = {"LEADING": "ltrim", "TRAILING": "rtrim"}.get(position, "trim")
        return None if source is None else f"{word}({source})"
    chars = spark_name(characters, top=False)
    return None if source is None or chars is None else f"TRIM({position} {chars} FROM {source})"


def _typed_literal_name(node: exp.Cast) -> str | None:
    """``TIMESTAMP '2024-01-01 00:00:00'``: a typed literal as Spark prints it, its value
    normalized (``DATE '2024-1-2'`` is ``DATE '2024-01-02'``); None for one with a zone, whose
    printed value depends on the session's. The offset ``rewrite_zoned_literals`` keeps on the
    later of an overlap's two local times is no part of the name (Spark prints the local time)."""
    text = node.this.name.strip()
    match = _DATETIME_TEXT.match(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, rest = match.groups()
    date = f"{int(year):04d}-{int(month or 1):02d}-{int(day or 1):02d}"
    to = node.to.this
    if to == exp.DType.DATE:
        return f"DATE '{date}'" if not hour else None
    if rest and not (hour and to != exp.DType.TIMESTAMPNTZ and _KEPT_OFFSET.fullmatch(rest)):
        return None
    clock = f"{int(hour or 0):02d}:{int(minute or 0):02d}:{int(second or 0):02d}"
    digits = (fraction or "").rstrip("0")
    value = f"{date} {clock}" + (f".{digits}" if digits else "")
    word = "TIMESTAMP_NTZ" if to == exp.DType.TIMESTAMPNTZ else "TIMESTAMP"
    return f"{word} '{value}'"


_KEPT_OFFSET = re.compile(r"[+-]\d{2}:\d{2}")
_DATETIME_TEXT = re.compile(
    r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2})(?:[T ](\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?)?)?)?(.*)\Z"
)


def _operator_name(node: exp.Expr) -> str | None:
    """Spark's name of a predicate or bitwise operator it prints in a form of its own
    (``g LIKE a%``, ``between(i, 1, 3)``, ``(NOT (i = 1))`` for ``i != 1``); None for another
    node, and an empty string for one whose operand has no known name."""

    def named(*parts: exp.Expr | None) -> list[str] | None:
        names = [spark_name(p, top=False) for p in parts if p is not None]
        return None if any(n is None for n in names) else [str(n) for n in names]

    negated = False
    if isinstance(node, (exp.Like, exp.ILike)) and node.args.get("negate"):
        negated = True
    text: str | None
    if isinstance(node, (exp.Like, exp.ILike)) and isinstance(node.expression, (exp.Any, exp.All)):
        kind = "any" if isinstance(node.expression, exp.Any) else "all"
        inner = node.expression.this.unnest() if isinstance(node.expression.this, exp.Paren) else node.expression.this
        patterns = inner.expressions if isinstance(inner, exp.Tuple) else [inner]
        if not any(isinstance(p, exp.Null) for p in patterns):
            parts = named(node.this)
            subject = None if parts is None else f"lower({parts[0]})" if isinstance(node, exp.ILike) else parts[0]
            return None if subject is None else f"{'not' if negated else ''}like{kind}({subject})"
        # with a NULL pattern Spark's parser writes out each LIKE, joined left to right
        parts = named(node.this, *patterns)
        if parts is None:
            return None
        tests = [f"ilike({parts[0]}, {p})" if isinstance(node, exp.ILike) else f"{parts[0]} LIKE {p}" for p in parts[1:]]
        tests = [f"(NOT {test})" for test in tests] if negated else tests
        text = tests[0]
        for test in tests[1:]:
            text = f"({text} {'OR' if kind == 'any' else 'AND'} {test})"
        return text
    if isinstance(node, exp.Escape) and isinstance(node.this, exp.Like) and isinstance(node.expression, exp.Literal):
        inner = _operator_name(node.this)
        return f"{inner} ESCAPE '{node.expression.name}'" if inner else ""
    if isinstance(node, exp.Like):
        parts = named(node.this, node.expression)
        text = None if parts is None else f"{parts[0]} LIKE {parts[1]}"
    elif isinstance(node, exp.ILike):
        parts = named(node.this, node.expression)
        text = None if parts is None else f"ilike({parts[0]}, {parts[1]})"
    elif isinstance(node, exp.RegexpLike) and call_name(node) is None:  # the rlike / regexp operator
        parts = named(node.this, node.expression)
        text = None if parts is None else f"RLIKE({parts[0]}, {parts[1]})"
    elif isinstance(node, exp.Between):
        parts = named(node.this, node.args.get("low"), node.args.get("high"))
        text = None if parts is None else f"between({', '.join(parts)})"
    elif isinstance(node, exp.In) and node.expressions and not node.args.get("query"):
        parts = named(node.this, *node.expressions)
        text = None if parts is None else f"({parts[0]} IN ({', '.join(parts[1:])}))"
    elif isinstance(node, (exp.NEQ, exp.NullSafeNEQ)):
        parts = named(node.this, node.expression)
        symbol = "=" if isinstance(node, exp.NEQ) else "<=>"
        text = None if parts is None else f"(NOT ({parts[0]} {symbol} {parts[1]}))"
    elif isinstance(node, (exp.BitwiseXor, exp.BitwiseAnd, exp.BitwiseOr)):
        parts = named(node.this, node.expression)
        symbol = {exp.BitwiseXor: "^", exp.BitwiseAnd: "&", exp.BitwiseOr: "|"}[type(node)]
        text = None if parts is None else f"({parts[0]} {symbol} {parts[1]})"
    elif isinstance(node, exp.BitwiseNot):
        parts = named(node.this)
        text = None if parts is None else f"~{parts[0]}"
    else:
        return None
    if text is None:
        return ""
    return f"(NOT {text})" if negated else text


def _case_name(node: exp.Case) -> str | None:
    """``CASE WHEN (a > 1) THEN x ELSE y END`` as Spark prints a searched CASE, and a simple one
    (``CASE g WHEN 'a' THEN 1 END``) as the searched CASE Spark's parser makes of it
    (``CASE WHEN (g = a) THEN 1 END``)."""
    parts = ["CASE"]
    operand = node.this
    for branch in node.args.get("ifs") or []:
        when = branch.this if operand is None else exp.EQ(this=operand.copy(), expression=branch.this.copy())
        condition, value = spark_name(when, top=False), spark_name(branch.args.get("true"), top=False)
        if condition is None or value is None:
            return None
        parts += ["WHEN", condition, "THEN", value]
    default = node.args.get("default")
    if default is not None:
        shown = spark_name(default, top=False)
        if shown is None:
            return None
        parts += ["ELSE", shown]
    return " ".join(parts + ["END"])


def _user_argument(node: exp.Expr) -> exp.Expr:
    """The argument as the user wrote it: without the conversion to a date that sqlglot's Spark
    parser wraps around the arguments of date functions (a user's ``to_date`` is ``safe``)."""
    if isinstance(node, exp.TsOrDsToDate) and not node.args.get("safe"):
        return node.this
    return node


def _call(word: str, args: list[exp.Expr | None], prefix: str = "", suffix: str = "") -> str | None:
    """``word(a, b)`` with each argument's Spark name, or None when one has none."""
    names = [spark_name(a, top=False) for a in args if a is not None]
    if any(n is None for n in names):
        return None
    return f"{word}({prefix}{', '.join(n for n in names if n is not None)}{suffix})"


_ARRAY_FIELDS = "vpush_array_fields"
"""The meta key of ``f(...).a`` of an array of structs (Spark's GetArrayStructFields), whose
name prints ``f(...)`` as Scala's ``toString``."""

SESSION_TIME_ZONE: contextvars.ContextVar[str] = contextvars.ContextVar("session_time_zone", default="UTC")
"""Spark's session time zone of the query being planned, which some of Spark's names print."""


def _unmarked(kind: SparkType) -> SparkType:
    """``kind`` read out of a struct: a time window's marker it carries becomes
    :data:`UNKNOWN_MARKER` (Spark's field has metadata of its own, which an alias of it takes and
    vpush does not follow, so ``window_time`` of it is refused)."""
    return marked(kind, UNKNOWN_MARKER) or kind if isinstance(kind, StructType) and kind.marker is not None else kind


def _fields_read(base: exp.Expr, steps: list[tuple[str, bool]]) -> exp.Expr:
    """DuckDB's read of fields from ``base`` (:meth:`_Typer.array_fields`): per step a struct's
    field, or each element's."""
    read = base
    for field, each in steps:
        if each:
            variable = exp.to_identifier("__vpush_element")
            body = exp.Dot(this=exp.column(variable.copy()), expression=exp.to_identifier(field, quoted=True))
            read = exp.Anonymous(this="list_transform", expressions=[read, exp.Lambda(this=body, expressions=[variable])])
        else:
            read = exp.Dot(this=read, expression=exp.to_identifier(field, quoted=True))
    return read


def _reads_array_fields(node: exp.Dot) -> bool:
    """Whether ``node`` is Spark's GetArrayStructFields: marked so, or a field of a
    ``variant_get`` of an array of structs (named before the typer runs, as its extraction
    becomes a scan column)."""
    return bool(node.meta.get(_ARRAY_FIELDS)) or _variant_array_of_structs(node.this)


_SAME_ARRAY_CALLS = frozenset({"slice", "reverse", "sort_array", "array_distinct", "filter", "array_compact", "shuffle",
                               "array_union", "array_intersect", "array_except", "concat", "coalesce", "nvl"})
"""Calls whose result is an array of their first argument's type (when it is an array)."""


def _variant_array_of_structs(node: exp.Expr) -> bool:
    """Whether ``node`` is a ``variant_get`` of an array of structs, or one of
    :data:`_SAME_ARRAY_CALLS` over one."""
    if isinstance(node, VariantGet):
        target = node.target_type if not node.args.get("colon") else None
        return isinstance(target, ArrayType) and isinstance(target.element, StructType)
    if isinstance(node, exp.Transform):
        return False  # transform's lambda makes the elements anew
    called = call_name(node)
    arguments = _arguments(node) if called in _SAME_ARRAY_CALLS else []
    return bool(arguments) and _variant_array_of_structs(arguments[0])

_SCALA_ZONE: contextvars.ContextVar[str | None] = contextvars.ContextVar("scala_zone", default=None)
"""While naming the child of a GetArrayStructFields: the session time zone (else None)."""

_SCALA_TYPES = {
    "boolean": "BooleanType", "tinyint": "ByteType", "smallint": "ShortType", "int": "IntegerType", "bigint": "LongType",
    "float": "FloatType", "double": "DoubleType", "date": "DateType", "binary": "BinaryType", "timestamp": "TimestampType",
    "timestamp_ntz": "TimestampNTZType", "variant": "VariantType", "void": "NullType",
}


def _scala_type(kind: SparkType | None) -> str | None:
    """A Spark data type as its Scala ``toString`` prints it (``ArrayType(StructType(StructField(b,
    IntegerType,true)),true)``), as parsed from DDL (every part nullable); None for one this does
    not print."""
    if isinstance(kind, AtomicType):
        return _SCALA_TYPES.get(kind.name)
    if isinstance(kind, StringType):
        return "StringType" if kind.collation is None else f"StringType({kind.collation.upper()})"
    if isinstance(kind, DecimalType):
        return f"DecimalType({kind.precision},{kind.scale})"
    if isinstance(kind, ArrayType):
        element = _scala_type(kind.element)
        return None if element is None else f"ArrayType({element},true)"
    if isinstance(kind, MapType):
        key, value = _scala_type(kind.key), _scala_type(kind.value)
        return None if key is None or value is None else f"MapType({key},{value},true)"
    if isinstance(kind, StructType):
        fields = [(f.name, _scala_type(f.type), f.nullable) for f in kind.fields]
        if any(t is None for _, t, _ in fields):
            return None
        return "StructType(" + ",".join(f"StructField({n},{t},{str(nullable).lower()})" for n, t, nullable in fields) + ")"
    return None


def _scala_call_text(node: exp.Expr, zone: str) -> str | None:
    """The calls whose Scala ``toString`` shows more arguments than their SQL (Spark's
    ``Expression.toString``: the case class's fields, an option as ``Some(...)``, a map's entries
    as pairs), as measured on Spark; None for the others (printed as their SQL)."""
    if isinstance(node, VariantGet) and not node.args.get("colon"):
        path, target = node.args.get("path"), _scala_type(node.target_type)
        child = spark_name(node.this, top=False)
        if child is None or target is None or not (isinstance(path, exp.Literal) and path.is_string):
            return None
        return f"{node.sql_name().lower()}({child}, {path.this}, {target}, {'false' if node.SAFE else 'true'}, Some({zone}))"
    if isinstance(node, ParseJson):
        child = spark_name(node.this, top=False)
        return None if child is None else f"{node.sql_name().lower()}({child}, {'false' if node.SAFE else 'true'})"
    called = call_name(node)
    if called == "from_json":
        arguments = _arguments(node)
        if len(arguments) not in (2, 3) or not (isinstance(arguments[1], exp.Literal) and arguments[1].is_string):
            return None
        schema, child = _scala_type(from_json_schema(arguments[1].name)), spark_name(arguments[0], top=False)
        options = _literal_options(arguments[2]) if len(arguments) == 3 else []
        if schema is None or child is None or options is None:
            return None
        shown = [schema, *(f"({k},{v})" for k, v in options), child, f"Some({zone})", "false"]
        return f"from_json({', '.join(shown)})"
    if called == "element_at":
        token = _SCALA_ZONE.set(None)  # the call itself as its SQL, then the fields it prints after
        try:
            plain = spark_name(node, top=False)
        finally:
            _SCALA_ZONE.reset(token)
        return None if plain is None or not plain.startswith("element_at(") else plain[:-1] + ", None, true)"
    return None


def _literal_options(node: exp.Expr) -> list[tuple[str, str]] | None:
    """The entries of ``map('k', 'v', ...)`` of string literals, in order; None for another."""
    if isinstance(node, exp.VarMap) and isinstance(node.args.get("keys"), exp.Array) and isinstance(node.args.get("values"), exp.Array):
        keys, values = node.args["keys"].expressions, node.args["values"].expressions
    elif call_name(node) == "map" and isinstance(node, exp.Anonymous) and len(node.expressions) % 2 == 0:
        keys, values = node.expressions[::2], node.expressions[1::2]
    else:
        return None
    if not all(isinstance(p, exp.Literal) and p.is_string for p in [*keys, *values]):
        return None
    return [(k.name, v.name) for k, v in zip(keys, values)]


def _extraction_name(node: exp.Expr, top: bool) -> str:
    """Spark's name of an extraction. A ``:`` path is named by its last key as a projection of
    its own, and printed as ``variant_get(v, $.a.b) AS b`` inside a larger expression; a
    ``variant_get`` call is printed without its type (``variant_get(v, $.a)``)."""
    key = node.output_name if isinstance(node, exp.Expression) else ""
    if key and top:
        return key
    if isinstance(node, exp.Cast):
        target = _cast_type(node)
        shown = target.to_sql() if target is not None else node.to.sql(dialect=VpushSpark)
        word = "TRY_CAST" if isinstance(node, exp.TryCast) else "CAST"
        return f"{word}({_extraction_name(node.this, False)} AS {shown})"
    assert isinstance(node, VariantGet)
    from vpush.optimizer.rewrite_variants import spark_function_name  # it builds on spark_name

    # the variant may itself call variant functions (variant_get(parse_json(to_json(v:a)), ...))
    args = [spark_function_name(node.this, top=False) or node.this.sql(dialect=VpushSpark)]
    path = node.args["path"]
    args.append(path.this if isinstance(path, exp.Literal) else path.sql(dialect=VpushSpark))
    call = f"{node.sql_name().lower()}({', '.join(args)})"
    return f"{call} AS {key}" if key else call


def _column_name(column: exp.Column, top: bool) -> str:
    """Spark's name of a column: its own name, and of a struct's field read through a column
    (``s.b``, ``t.s.b``) inside an expression the path from the struct column (``size(s.b)``:
    Spark's GetStructField prints its child), a table's qualifier left out. A projection that is
    the field itself is named after the field (``b``)."""
    if top or not column.table:
        return column.name
    parts = [part.name for part in column.parts]
    if parts[0].lower() in _lambda_variables(column):
        return column.name  # a lambda's variable's field: named as before
    selects = _enclosing(column, exp.Select)
    if not selects:
        return column.name  # a copy out of its query (a stand-in named apart): its sources unknown
    sources: set[tuple[str, ...]] = set()
    for select in selects:
        from_ = select.args.get("from_")
        relations = ([from_.this] if from_ is not None else []) + [j.this for j in select.args.get("joins") or []]
        for relation in relations + list(select.args.get("laterals") or []):
            sources.add((relation.alias_or_name.lower(),))
            if isinstance(relation, exp.Table) and not relation.alias:
                names = [p.name.lower() for p in relation.parts]
                sources.update(tuple(names[i:]) for i in range(len(names)))
    for length in range(len(parts) - 1, 0, -1):
        if tuple(p.lower() for p in parts[:length]) in sources:
            return ".".join(parts[length:])
    return ".".join(parts)


def _window_name(node: exp.Window) -> str | None:
    """Spark's name of a window function call: the function, then the window with Spark's
    default frame spelled out."""
    function = spark_name(node.this, top=False)
    if function is None:
        return None
    if node.args.get("alias") is not None:
        node = _named_window(node)  # type: ignore[assignment]
        if node is None:
            return None
    parts = []
    partition = [spark_name(p, top=False) for p in node.args.get("partition_by") or []]
    if None in partition:
        return None
    if partition:
        parts.append("PARTITION BY " + ", ".join(partition))  # type: ignore[arg-type]
    order = node.args.get("order")
    keys = []
    for ordered in order.expressions if order is not None else []:
        key = spark_name(ordered.this, top=False)
        if key is None:
            return None
        descending = bool(ordered.args.get("desc"))
        nulls_first = ordered.args.get("nulls_first")
        nulls = "NULLS FIRST" if (nulls_first if nulls_first is not None else not descending) else "NULLS LAST"
        keys.append(f"{key} {'DESC' if descending else 'ASC'} {nulls}")
    if keys:
        parts.append("ORDER BY " + ", ".join(keys))
    spec = node.args.get("spec")
    function_node = node.this.this if isinstance(node.this, (exp.IgnoreNulls, exp.RespectNulls)) else node.this
    called = call_name(function_node) if isinstance(function_node, exp.Func) else None
    if called in ("lag", "lead"):
        # Spark's frame of lag(x, n) is the one row n before: `ROWS BETWEEN -n FOLLOWING AND -n FOLLOWING`
        arguments = call_arguments(function_node) or []
        offset = spark_name(arguments[1], top=False) if len(arguments) > 1 and arguments[1] is not None else "1"
        if offset is None:
            return None
        if called == "lead":
            parts.append(f"ROWS BETWEEN {offset} FOLLOWING AND {offset} FOLLOWING")  # the offset as written
        else:
            if not offset.lstrip("-").isdigit():
                # lag's frame is the offset negated, which Spark folds: lag(x, 1 + 1)'s is -2
                from sqlglot.optimizer.simplify import simplify

                written = arguments[1]
                assert written is not None  # (its name is the offset above)
                folded = _unparen(simplify(written.copy()))
                value = _integral_constant(folded) if isinstance(folded, (exp.Literal, exp.Neg)) else None
                if value is None:
                    return None
                offset = str(value)
            parts.append(f"ROWS BETWEEN {-int(offset)} FOLLOWING AND {-int(offset)} FOLLOWING")
    elif spec is not None:
        frame = _frame_name(spec)
        if frame is None:
            return None
        parts.append(frame)
    elif not keys:
        parts.append("ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING")
    elif isinstance(function_node, tuple(_ROWS_FRAME)):
        parts.append("ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")
    else:
        parts.append("RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")
    return f"{function} OVER ({' '.join(parts)})"


def _named_window(node: exp.Window) -> exp.Window | None:
    """``f(x) OVER w`` with the window its SELECT's ``WINDOW w AS (...)`` defines (Spark names the
    call after the definition), or None where there is no such definition."""
    if any(node.args.get(k) for k in ("partition_by", "order", "spec")):
        return None
    select = node.find_ancestor(exp.Select)
    for defined in select.args.get("windows") or [] if select is not None else []:
        if isinstance(defined, exp.Window) and defined.this.name.lower() == node.alias.lower():
            if isinstance(defined.this, exp.Identifier) and not any(defined.args.get(k) for k in ("alias",)):
                named = defined.copy()
                named.set("this", node.this.copy())
                return named
    return None


# Window functions whose default frame with an ORDER BY is a ROWS frame (the others: RANGE).
_ROWS_FRAME = (exp.RowNumber, exp.Rank, exp.DenseRank, exp.Ntile, exp.PercentRank)


def _frame_name(spec: exp.WindowSpec) -> str | None:
    """An explicit frame as Spark prints it: always ``BETWEEN ... AND ...``."""
    kind = str(spec.args.get("kind") or "").upper()
    if kind not in ("ROWS", "RANGE"):
        return None

    def bound(value: exp.Expr | str | None, side: str | None, default: str) -> str | None:
        if value is None:
            return default
        text = value if isinstance(value, str) else spark_name(value, top=False)
        if text is None:
            return None
        if text.upper() in ("UNBOUNDED", "CURRENT ROW"):
            return f"UNBOUNDED {str(side).upper()}" if text.upper() == "UNBOUNDED" else "CURRENT ROW"
        return f"{text} {str(side).upper()}"

    start = bound(spec.args.get("start"), spec.args.get("start_side"), "UNBOUNDED PRECEDING")
    end = bound(spec.args.get("end"), spec.args.get("end_side"), "CURRENT ROW")
    return None if start is None or end is None else f"{kind} BETWEEN {start} AND {end}"


def _array_element(node: exp.Bracket) -> exp.Expression:
    """Spark's ``array[i]`` (0-based): under ANSI an index outside the array raises
    ``INVALID_ARRAY_INDEX``, where DuckDB gives NULL."""
    index = node.expressions[0]
    size = exp.Anonymous(this="len", expressions=[node.this.copy()])
    outside = exp.Or(
        this=exp.LT(this=index.copy(), expression=exp.Literal.number(0)),
        expression=exp.GTE(this=index.copy(), expression=size.copy()),
    )
    text = _out_of_bounds(index, size, "the SQL function `get()`")
    # DuckDB's lists count from 1; sqlglot moves only an index it can type, so the element is
    # taken by list_extract with the index moved here
    element = exp.Anonymous(
        this="list_extract", expressions=[node.this.copy(), exp.Add(this=exp.Paren(this=index.copy()), expression=exp.Literal.number(1))]
    )
    return exp.Case(ifs=[exp.If(this=outside, true=spark_error("INVALID_ARRAY_INDEX", text, None))], default=element)


def _out_of_bounds(index: exp.Expr, size: exp.Expr, remedy: str) -> exp.Expression:
    """Spark's message for an array index out of bounds, naming what tolerates it."""
    return exp.DPipe(
        this=exp.DPipe(
            this=exp.DPipe(
                this=exp.Literal.string("The index "), expression=exp.cast(index.copy(), exp.DataType.build("VARCHAR"))
            ),
            expression=exp.Literal.string(" is out of bounds. The array has "),
        ),
        expression=exp.DPipe(
            this=exp.cast(size, exp.DataType.build("VARCHAR")),
            expression=exp.Literal.string(
                f" elements. Use {remedy} to tolerate accessing element at invalid index and return NULL instead."
            ),
        ),
    )


_COLLECTION_CALLS = frozenset({"array_contains", "element_at", "try_element_at", "get", "reverse", "sha2", "base64"})
_MAP_CALLS = frozenset({
    "map", "map_from_arrays", "map_from_entries", "str_to_map", "map_keys", "map_values", "map_contains_key", "size", "cardinality", "element_at",
    "try_element_at",
})


_KEY_INDEX = "__vpush_key_index"


def map_from_arrays_checked(keys: exp.Expr, values: exp.Expr, key_text: Callable[[exp.Expr], exp.Expr] | None = None,
                            built_keys: exp.Expr | None = None) -> exp.Expression:
    """Spark's ``map_from_arrays(keys, values)``: NULL when either array is; arrays of different
    lengths raise, and so does the first key (in the array's order) that is NULL
    (``NULL_MAP_KEY``) or equal to an earlier one (``DUPLICATED_MAP_KEY``, the key printed by
    ``key_text``, by default DuckDB's text of it), as Spark's map builder meets them; the map is
    of ``built_keys`` where given (the keys as Spark's builder keeps them)."""
    def key_at(index: exp.Expr) -> exp.Expression:
        return exp.Anonymous(this="list_extract", expressions=[keys.copy(), index])

    j = exp.column(_KEY_INDEX)
    earlier = exp.Anonymous(this="list_slice", expressions=[keys.copy(), exp.Literal.number(1), exp.Sub(this=j.copy(), expression=exp.Literal.number(1))])
    offends = exp.Or(
        this=exp.Is(this=key_at(j.copy()), expression=exp.Null()),
        expression=exp.Anonymous(this="list_contains", expressions=[earlier, key_at(j.copy())]),
    )
    size = exp.Anonymous(this="len", expressions=[keys.copy()])
    positions = exp.Anonymous(this="range", expressions=[exp.Literal.number(1), exp.Add(this=size.copy(), expression=exp.Literal.number(1))])
    first = exp.Anonymous(this="list_extract", expressions=[
        exp.Anonymous(this="list_filter", expressions=[positions, exp.Lambda(this=offends, expressions=[exp.to_identifier(_KEY_INDEX)])]),
        exp.Literal.number(1),
    ])
    printed = key_text(key_at(first.copy())) if key_text is not None else exp.cast(key_at(first.copy()), exp.DataType.build("VARCHAR"))
    duplicate = exp.DPipe(
        this=exp.DPipe(this=exp.Literal.string("Duplicate map key "), expression=printed),
        expression=exp.Literal.string(" was found, please check the input data."),
    )
    lengths = "The key array and value array of MapData must have the same length."
    either_null = exp.Or(this=exp.Is(this=keys.copy(), expression=exp.Null()), expression=exp.Is(this=values.copy(), expression=exp.Null()))
    return exp.Case(
        ifs=[
            exp.If(this=either_null, true=exp.Null()),
            exp.If(this=exp.NEQ(this=size.copy(), expression=exp.Anonymous(this="len", expressions=[values.copy()])),
                   true=spark_error("_LEGACY_ERROR_TEMP_2128", lengths, None)),
            exp.If(this=exp.Is(this=key_at(first.copy()), expression=exp.Null()).and_(exp.Not(this=exp.Is(this=first.copy(), expression=exp.Null()))),
                   true=spark_error("NULL_MAP_KEY", "Cannot use null as map key.", None)),
            exp.If(this=exp.Not(this=exp.Is(this=first.copy(), expression=exp.Null())), true=spark_error("DUPLICATED_MAP_KEY", duplicate, None)),
        ],
        default=exp.Anonymous(this="map", expressions=[(built_keys if built_keys is not None else keys).copy(), values.copy()]),
    )


_ENTRY = "__vpush_entry"


def _map_from_entries(entries: exp.Expr, fields: list[str], key_text: Callable[[exp.Expr], exp.Expr] | None = None,
                      key: Callable[[exp.Expr], exp.Expr] | None = None) -> exp.Expression:
    """Spark's ``map_from_entries(array of (key, value) structs)``: NULL for a NULL array or one
    holding a NULL struct (looked for first, as Spark does), else ``map_from_arrays`` of the
    first fields and the second, with its ``NULL_MAP_KEY`` and ``DUPLICATED_MAP_KEY`` (a key
    printed by ``key_text``; the map's keys each ``key`` of the first field, where given)."""
    entry = exp.column(_ENTRY)

    def each(body: exp.Expr) -> exp.Expression:
        return exp.Anonymous(this="list_transform", expressions=[entries.copy(), exp.Lambda(this=body, expressions=[exp.to_identifier(_ENTRY)])])

    def field(name: str) -> exp.Expression:
        return each(exp.Anonymous(this="struct_extract", expressions=[entry.copy(), exp.Literal.string(name)]))

    holes = exp.Anonymous(this="list_contains", expressions=[each(exp.Is(this=entry.copy(), expression=exp.Null())), exp.true()])
    return exp.Case(
        ifs=[exp.If(this=exp.Or(this=exp.Is(this=entries.copy(), expression=exp.Null()), expression=holes), true=exp.Null())],
        default=map_from_arrays_checked(field(fields[0]), field(fields[1]), key_text,
                                        None if key is None else each(key(exp.Anonymous(this="struct_extract", expressions=[
                                            entry.copy(), exp.Literal.string(fields[0])])))),
    )


# Java's regex metacharacters: a delimiter holding none splits the same as a plain string.
_REGEX_METACHARACTERS = frozenset("\\^$.|?*+()[]{}")
_PAIR = "__vpush_pair"


def _str_to_map(arguments: list[exp.Expr]) -> exp.Expression:
    """Spark's ``str_to_map(s[, pairDelim[, keyValueDelim]])`` for literal delimiters (Spark's are
    Java regexes, as ``split``'s): ``s`` split at every ``pairDelim``, trailing empty pieces
    kept; each piece split at its first ``keyValueDelim``, the value NULL where it has none; a
    repeated key raises ``DUPLICATED_MAP_KEY`` as in ``map_from_arrays``. A delimiter with a
    regex metacharacter by the RE2 pattern of its meaning (:func:`_str_to_map_by_patterns`)."""
    text = arguments[0]
    delimiters = arguments[1:] + [exp.Literal.string(d) for d in (",", ":")[len(arguments) - 1:]]
    if any(isinstance(d, exp.Null) for d in delimiters):
        return exp.cast(exp.Null(), exp.DataType.build("MAP(VARCHAR, VARCHAR)"))
    if not all(isinstance(d, exp.Literal) and d.is_string for d in delimiters):
        _refuse("str_to_map", "delimiters that are not literal strings")
    if any(set(d.name) & _REGEX_METACHARACTERS for d in delimiters):
        return _str_to_map_by_patterns(text, delimiters[0].name, delimiters[1].name)
    pair_delimiter, key_delimiter = delimiters
    pairs: exp.Expr = exp.Anonymous(this="string_split", expressions=[text, pair_delimiter])
    if not pair_delimiter.name:
        # Spark's UTF8String.split by an empty pattern: each character of a text that is not
        # empty (DuckDB's string_split too), and the empty text as Java's String.split gives it
        pairs = exp.Case(ifs=[exp.If(this=exp.EQ(this=text.copy(), expression=exp.Literal.string("")),
                                     true=exp.Array(expressions=[exp.Literal.string("")]))], default=pairs)
    piece = exp.column(_PAIR)
    at: exp.Expr = exp.Anonymous(this="strpos", expressions=[piece.copy(), key_delimiter.copy()])
    if not key_delimiter.name:
        # by an empty pattern with a limit of 2: the first character and the rest, of a piece of two or more
        at = exp.Case(ifs=[exp.If(this=exp.LT(this=exp.Length(this=piece.copy()), expression=exp.Literal.number(2)), true=exp.Literal.number(0))],
                      default=exp.Literal.number(2))
    key = exp.Case(
        ifs=[exp.If(this=exp.EQ(this=at.copy(), expression=exp.Literal.number(0)), true=piece.copy())],
        default=exp.Anonymous(this="substr", expressions=[piece.copy(), exp.Literal.number(1), exp.Sub(this=at.copy(), expression=exp.Literal.number(1))]),
    )
    value = exp.Case(
        ifs=[exp.If(this=exp.EQ(this=at.copy(), expression=exp.Literal.number(0)), true=exp.cast(exp.Null(), exp.DataType.build("VARCHAR")))],
        default=exp.Anonymous(this="substr", expressions=[piece.copy(), exp.Add(this=at.copy(), expression=exp.Literal.number(len(key_delimiter.name)))]),
    )

    def each(body: exp.Expr) -> exp.Expression:
        return exp.Anonymous(this="list_transform", expressions=[pairs.copy(), exp.Lambda(this=body, expressions=[exp.to_identifier(_PAIR)])])

    return map_from_arrays_checked(each(key), each(value))


def _str_to_map_by_patterns(text: exp.Expr, pair_delimiter: str, key_delimiter: str) -> exp.Expression:
    """``str_to_map`` by delimiters with regex metacharacters, as Spark's ``StringToMap`` splits:
    ``text`` as ``split(text, pairDelim)`` splits it, each piece as ``split(piece, keyValueDelim,
    2)``, in RE2 with Java's meaning (:func:`vpush.optimizer.java_regex.re2_pattern`). Refused for a
    delimiter RE2 cannot read as Java does, one that can match the empty string (``'|'``: Java
    steps past an empty match by a UTF-16 unit) and one with ``$``."""
    from vpush.optimizer.java_regex import re2_pattern

    patterns = [re2_pattern(d) for d in (pair_delimiter, key_delimiter)]
    written = [p.text for p in patterns if p is not None and not p.nullable and p.tail is None]
    if len(written) != 2:
        _refuse("str_to_map", "a delimiter whose meaning as a Java regex vpush cannot show to be the same in DuckDB's RE2, or "
                "that can match the empty string (Spark's delimiters are Java regexes: '|' splits between every character)")
    pairs = exp.Anonymous(this="str_split_regex", expressions=[text, exp.Literal.string(written[0])])
    halves = _split_with_limit(exp.column(_PAIR), exp.Literal.string(written[1]), exp.Literal.number(2))
    key = exp.Anonymous(this="list_extract", expressions=[halves.copy(), exp.Literal.number(1)])
    # (the value NULL where the piece has no delimiter: a list of one)
    value = exp.Anonymous(this="list_extract", expressions=[halves, exp.Literal.number(2)])

    def each(body: exp.Expr) -> exp.Expression:
        return exp.Anonymous(this="list_transform", expressions=[pairs.copy(), exp.Lambda(this=body, expressions=[exp.to_identifier(_PAIR)])])

    return map_from_arrays_checked(each(key), each(value))


def _plain_key(t: SparkType) -> bool:
    """A map key type whose equality is the same in DuckDB and Spark (a double's -0.0 and NaN,
    a timestamp's zone and a nested key's NULLs are not checked)."""
    return _is_integral(t) or isinstance(t, StringType) or t in (AtomicType("boolean"), AtomicType("date"))


_SORTED = "__vpush_sorted"
_PAST_FALLBACK = "vpush_past_fallback"  # on a FILTER'd ordered aggregate: its name, and its form past the hash fallback
_PERCENTAGE = "__vpush_percentage"


def _spark_percentile(value: exp.Expr, quantile: exp.Expr, reverse: bool = False, discrete: bool = False,
                      window: exp.Window | None = None) -> exp.Expression:
    """Spark's ``Percentile.getPercentile`` over the non-NULL values as sorted doubles: at
    ``position = (n - 1) * p``, the lower value plus ``(position - floor(position))`` times the
    step to the higher one (the lower value alone where the two are equal). DuckDB's
    ``quantile_cont`` weighs the two otherwise and differs in the last bit. ``reverse``: the
    values sorted descending, as Spark's ``percentile_cont ... (ORDER BY x DESC)`` sorts them.
    ``discrete``: Spark 4's ``percentile_disc``, the value at the 1-based place ``ceil(n * p)``
    (the first 1 for ``p = 0``), measured on Spark 4.3 for 1 to 11 values and 22 percentages.
    ``window``: the values collected over that window (its function replaced)."""
    as_double = exp.cast(value.copy(), exp.DataType.build("DOUBLE"))
    kept = exp.Where(this=exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())))
    collected: exp.Expr = exp.Filter(this=exp.Anonymous(this="list", expressions=[as_double]), expression=kept)
    if window is not None:
        over = window.copy()
        over.set("this", collected)
        collected = over
    ordered = exp.Anonymous(this="list_sort", expressions=[collected, *([exp.Literal.string("DESC")] if reverse else [])])
    values = exp.column(exp.to_identifier(_SORTED))

    def at(percentage: exp.Expr) -> exp.Expression:
        count = exp.Anonymous(this="len", expressions=[values.copy()])
        position = exp.Paren(this=exp.Mul(
            this=exp.cast(exp.Sub(this=count.copy(), expression=exp.Literal.number(1)), exp.DataType.build("DOUBLE")),
            expression=exp.cast(percentage, exp.DataType.build("DOUBLE")),
        ))
        lower, higher = exp.Floor(this=position.copy()), exp.Ceil(this=position.copy())

        def key(index: exp.Expr) -> exp.Expression:
            one_based = exp.Add(this=exp.cast(index, exp.DataType.build("BIGINT")), expression=exp.Literal.number(1))
            return exp.Anonymous(this="list_extract", expressions=[values.copy(), one_based])

        if discrete:
            shared = exp.Mul(this=exp.cast(count.copy(), exp.DataType.build("DOUBLE")),
                             expression=exp.cast(percentage.copy(), exp.DataType.build("DOUBLE")))
            place = exp.Greatest(this=exp.cast(exp.Ceil(this=shared), exp.DataType.build("BIGINT")), expressions=[exp.Literal.number(1)])
            return exp.Case(
                ifs=[exp.If(this=exp.EQ(this=count, expression=exp.Literal.number(0)), true=exp.cast(exp.Null(), exp.DataType.build("DOUBLE")))],
                default=exp.Anonymous(this="list_extract", expressions=[values.copy(), place]),
            )
        low, high = key(lower.copy()), key(higher.copy())
        step = exp.Mul(this=exp.Paren(this=exp.Sub(this=position.copy(), expression=lower.copy())),
                       expression=exp.Paren(this=exp.Sub(this=high.copy(), expression=low.copy())))
        return exp.Case(
            ifs=[
                exp.If(this=exp.EQ(this=count, expression=exp.Literal.number(0)), true=exp.cast(exp.Null(), exp.DataType.build("DOUBLE"))),
                exp.If(this=exp.Or(this=exp.EQ(this=lower, expression=higher), expression=exp.EQ(this=low.copy(), expression=high)),
                       true=low.copy()),
            ],
            default=exp.Add(this=low, expression=step),
        )

    if isinstance(quantile, exp.Array):
        each = exp.Lambda(this=at(exp.column(exp.to_identifier(_PERCENTAGE))), expressions=[exp.to_identifier(_PERCENTAGE)])
        body: exp.Expression = exp.Anonymous(this="list_transform", expressions=[quantile, each])
    else:
        body = at(quantile)
    return _sorted_once(ordered, body)


def _summarized_double(value: exp.Expr, source: SparkType | None) -> exp.Expr:
    """``value`` as the double Spark's summaries (``percentile_approx``, ``histogram_numeric``)
    take of it: a date's days since the epoch (an int), a timestamp's microseconds (a long)."""
    double = exp.DataType.build("DOUBLE")
    if source == AtomicType("date"):
        epoch = exp.cast(exp.Literal.string("1970-01-01"), exp.DataType.build("DATE"))
        return exp.cast(exp.Sub(this=value.copy(), expression=epoch), double)
    if source in _TIMESTAMPS:
        return exp.cast(exp.Anonymous(this="epoch_us", expressions=[value.copy()]), double)
    return exp.cast(value.copy(), double)


def _grouping_of(node: exp.Expr, called: str) -> tuple[exp.Group | None, bool]:
    """The GROUP BY of the SELECT over the aggregate ``node``, and whether it is a plain one (no
    ROLLUP, CUBE or GROUPING SETS).

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for the aggregate in a HAVING with GROUP BY.
    """
    select = node.find_ancestor(exp.Select)
    group = select.args.get("group") if select is not None else None
    if group is None:
        return None, True
    if _in_clause(node, "having"):
        _refuse(called, "a HAVING with GROUP BY (name it in the SELECT list and filter a subquery)")
    plain = not any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets", "totals")) and not any(
        isinstance(e, (exp.Rollup, exp.Cube, exp.GroupingSets)) for e in group.expressions)
    return group, plain


def _sorted_once(ordered: exp.Expr, body: exp.Expr) -> exp.Expression:
    """``body``, which reads the group's sorted list as the column ``__vpush_sorted``, with
    ``ordered`` (the aggregate that sorts it) computed once: bound to that name in a one-element
    ``list_transform`` (DuckDB would compute each mention of it again)."""
    once = exp.Anonymous(this="list_transform", expressions=[
        exp.Array(expressions=[ordered]), exp.Lambda(this=body, expressions=[exp.to_identifier(_SORTED)])])
    return exp.Anonymous(this="list_extract", expressions=[once, exp.Literal.number(1)])


def _is_subquery_membership(node: exp.Expr) -> bool:
    return isinstance(node, exp.In) and node.args.get("query") is not None


def _in_window_spec(node: exp.Expr) -> bool:
    """Whether ``node`` is in a window's ORDER BY or PARTITION BY (not its function)."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (exp.Select, exp.Subquery)):
        if isinstance(parent, exp.Window):
            return child.arg_key != "this"
        child, parent = parent, parent.parent
    return False


def _negated(node: exp.Expr) -> bool:
    parent = node.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    return isinstance(parent, exp.Not)


def _in_clause(node: exp.Expr, key: str) -> bool:
    """Whether ``node`` is part of its SELECT's clause ``key`` (``having``, ``order``, ...)."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (exp.Select, exp.Subquery)):
        child, parent = parent, parent.parent
    return isinstance(parent, exp.Select) and child.arg_key == key


def _in_projection(node: exp.Expr) -> bool:
    """Whether ``node`` is part of its SELECT's list of projections (not of a WHERE, a join
    condition or a nested query)."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (exp.Select, exp.Subquery)):
        child, parent = parent, parent.parent
    return isinstance(parent, exp.Select) and child.arg_key == "expressions"


def _check_filters_are_boolean(select: exp.Select, typer: _Typer) -> None:
    """Spark's errors for a condition that is not a boolean, where DuckDB reads a number as true
    where it is not 0 and a string as a boolean: ``DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN`` for a
    WHERE, ``JOIN_CONDITION_IS_NOT_BOOLEAN_TYPE`` for a join's ON, and
    ``DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE`` for a searched CASE's WHEN (NULL too) and the
    first argument of ``if`` (where a NULL is cast to a boolean), ``INVALID_AGGREGATE_FILTER.NOT_BOOLEAN``
    for an aggregate's FILTER (NULL too). Spark's HAVING takes a number
    (``HAVING 1``), as DuckDB's does."""

    def not_boolean(condition: exp.Expr) -> SparkType | None:
        found = VOID if isinstance(_unparen(condition), exp.Null) else typer.of(condition)
        bad = isinstance(found, (DecimalType, StringType)) or (isinstance(found, AtomicType) and found.name != "boolean")
        return found if bad else None

    def unexpected(node: exp.Expr, index: int, condition: exp.Expr, found: SparkType) -> OptimizeError:
        return OptimizeError(
            f'Cannot resolve "{spark_name(node) or _spark_text(node)}" due to data type mismatch: The {_ordinal(index)} parameter '
            f'requires the "BOOLEAN" type, however "{spark_name(condition) or _spark_text(condition)}" has the type '
            f'"{_spark_type_name(found)}".',
            error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        )

    where = select.args.get("where")
    condition = where.this if where is not None else None
    found = not_boolean(condition) if condition is not None else None
    if condition is not None and found is not None:
        raise OptimizeError(
            f'Cannot resolve "{_spark_text(condition)}" due to data type mismatch: the filter expression '
            f'"{_spark_text(condition)}" of type "{_spark_type_name(found)}" is not a boolean.',
            error_class="DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN",
        )
    parts = [p for p in select.expressions]
    parts += [select.args[k] for k in ("where", "having", "qualify", "order") if select.args.get(k) is not None]
    for join in select.args.get("joins") or []:
        on = join.args.get("on")
        if on is None:
            continue
        found = not_boolean(on)
        if found is not None:
            raise OptimizeError(
                f'The join condition "{spark_name(on) or _spark_text(on)}" has the invalid type "{_spark_type_name(found)}", '
                'expected "BOOLEAN".',
                error_class="JOIN_CONDITION_IS_NOT_BOOLEAN_TYPE",
            )
        parts.append(on)
    for part in parts:
        for node in in_scope(part):
            if isinstance(node, exp.Case) and node.args.get("this") is None:
                for index, branch in enumerate(node.args.get("ifs") or []):
                    found = not_boolean(branch.this)
                    if found is not None:
                        raise unexpected(node, index, branch.this, found)
            elif isinstance(node, exp.If) and not isinstance(node.parent, exp.Case) and not isinstance(_unparen(node.this), exp.Null):
                found = not_boolean(node.this)
                if found is not None:
                    raise unexpected(node, 0, node.this, found)
            elif isinstance(node, exp.Filter) and isinstance(node.expression, exp.Where):
                found = not_boolean(node.expression.this)
                if found is not None:
                    raise OptimizeError(
                        f'The FILTER expression "{spark_name(node.expression.this) or _spark_text(node.expression.this)}" in an '
                        "aggregate function is invalid. Expected a FILTER expression of the BOOLEAN type.",
                        error_class="INVALID_AGGREGATE_FILTER.NOT_BOOLEAN",
                    )


def _like_any_or_all(node: exp.Like | exp.ILike) -> exp.Expr:
    """``x [NOT] LIKE ANY|ALL (p, ...)`` as Spark's ``likeany``/``likeall`` (and ``notlike...``)
    compute it: the three-valued OR (ANY) or AND (ALL) of each pattern's ``LIKE``, each with
    Spark's backslash escape; ``ILIKE`` as Spark's parser writes it, the ``LIKE`` of ``lower(x)``
    and of each ``lower(p)``."""
    quantified = node.expression
    inner = quantified.this.unnest() if isinstance(quantified.this, exp.Paren) else quantified.this
    patterns = inner.expressions if isinstance(inner, exp.Tuple) else [inner]
    tests: list[exp.Expr] = []
    folded = isinstance(node, exp.ILike)
    for pattern in patterns:
        subject = exp.Lower(this=node.this.copy()) if folded else node.this.copy()
        written = exp.Lower(this=pattern.copy()) if folded and not isinstance(pattern, exp.Null) else pattern.copy()
        test: exp.Expr = exp.Escape(this=exp.Like(this=subject, expression=written), expression=exp.Literal.string("\\"))
        tests.append(exp.Not(this=exp.Paren(this=test)) if node.args.get("negate") else test)
    joined = exp.or_(*tests) if isinstance(quantified, exp.Any) else exp.and_(*tests)
    return exp.Paren(this=joined)


def _ordinal(index: int) -> str:
    """Spark's ``ordinalNumber`` of a 0-based place in its messages: first, second, third, 4th, ..."""
    return ["first", "second", "third"][index] if index < 3 else f"{index + 1}th"


def _spark_type_name(of_type: SparkType | None) -> str:
    return of_type.to_sql() if of_type is not None else "UNKNOWN"


# Window functions Spark computes over an ordered window only (WINDOW_FUNCTION_FRAME_NOT_ORDERED),
# and of them those whose frame is fixed (a frame written with them must be that one).
_ORDERED_WINDOW_FUNCTIONS = (*_RANKING, exp.PercentRank, exp.CumeDist, exp.Lag, exp.Lead, exp.NthValue)
_FIXED_FRAME_FUNCTIONS = (*_RANKING, exp.PercentRank, exp.CumeDist)


def _window_function_error(function: exp.Expr, message: str, error_class: str) -> OptimizeError:
    return OptimizeError(
        f'Cannot resolve "{_spark_text(function)}" due to data type mismatch: {message}', error_class=error_class
    )


_ONE_WINDOW_SORT = "vpush_one_window_sort"


def _window_sort(window: exp.Window) -> str:
    order = window.args.get("order")
    return exp.Tuple(expressions=[*(p.copy() for p in window.args.get("partition_by") or []),
                                  order.copy() if order is not None else exp.Order()]).sql()


def _rows_in_order(window: exp.Window, select: exp.Expr) -> bool:
    """Whether ``window`` (in ``select``) is one whose answer depends on the order of tied rows,
    over the rows of the SELECT's source (no GROUP BY or aggregate before it, no named window),
    and the SELECT's windows all sort alike: Spark computes windows of different partitions or
    orders one after another, each taking its rows in the order the one before gave them."""
    if window.args.get("alias") is not None or not isinstance(select, exp.Select) or select.args.get("group"):
        return False
    if not select.meta.get(_ONE_WINDOW_SORT):
        return False
    function = window.this.this if isinstance(window.this, exp.Filter) else window.this
    if not isinstance(function, (exp.RowNumber, exp.Lag, exp.Lead, exp.Ntile, exp.First, exp.Last, exp.FirstValue,
                                    exp.LastValue, exp.AnyValue, exp.ArrayAgg)):
        return False
    return not any(isinstance(n, exp.AggFunc) and not isinstance(n.parent, exp.Window) for n in in_scope(select))


def _check_window(window: exp.Window, of: Callable[[exp.Expr], SparkType | None]) -> None:
    """Raise Spark's analysis errors for a window function over a window it refuses (DuckDB
    answers all of these): no ORDER BY where Spark needs one, a frame written for a function whose
    frame is fixed, a ROWS frame's bound other than an ``int`` (``1.5 PRECEDING``, ``2L
    FOLLOWING``), a ``lag``/``lead`` offset other than an ``int`` (Spark's frame of it then differs
    from the one it expects: ``_LEGACY_ERROR_TEMP_1035``), a bucket count or offset out of range."""
    spec = window.args.get("spec")
    if spec is not None and str(spec.args.get("kind") or "").upper() == "ROWS":

        def bound_text(key: str) -> str:
            bound, side = spec.args.get(key), spec.args.get(f"{key}_side")
            if not isinstance(bound, exp.Expr) or isinstance(bound, exp.Var):
                return str(bound or "CURRENT ROW").upper() + (f" {side}" if side else "")
            return f"{spark_name(bound) or _spark_text(bound)} {side}"

        for key, side in (("start", "lower"), ("end", "upper")):
            bound = spec.args.get(key)
            found = of(bound) if isinstance(bound, exp.Expr) and not isinstance(bound, exp.Var) else None
            if found is not None and found != _INT:
                raise OptimizeError(
                    f'Cannot resolve "ROWS BETWEEN {bound_text("start")} AND {bound_text("end")}" due to data type mismatch: '
                    f'The data type of the {side} bound "{_spark_type_name(found)}" does not match the expected data type "INT".',
                    error_class="DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE",
                )
    function = window.this
    while isinstance(function, (exp.IgnoreNulls, exp.RespectNulls)):
        function = function.this
    within = _percentile_cont(function)
    if (within is not None or isinstance(function, exp.Median)) and (window.args.get("order") is not None or window.args.get("spec") is not None):
        # Spark's PercentileCont/PercentileDisc (median's too) take the whole partition, ordered by their own ORDER BY
        called = "median" if within is None else "percentile_disc" if within[3] else "percentile_cont"
        raise OptimizeError(
            f'Cannot specify ORDER BY or a window frame for "{called}".',
            error_class="INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC",
        )
    if not isinstance(function, _ORDERED_WINDOW_FUNCTIONS) or window.args.get("alias") is not None:
        return  # a named window (WINDOW w AS ...) is checked where sqlglot spells it out, if at all
    name = function.sql_name().lower()
    if window.args.get("order") is None:
        raise OptimizeError(
            f"Window function {name} requires the window to be ordered. You need to add an ORDER BY clause.",
            error_class="WINDOW_FUNCTION_FRAME_NOT_ORDERED",
        )
    offset = function.args.get("offset") if isinstance(function, (exp.Lag, exp.Lead)) else None
    if isinstance(function, (exp.Lag, exp.Lead)) and (
        spec is not None or (offset is not None and of(offset) not in (_INT, None))
    ):
        raise OptimizeError(f"Cannot specify window frame for {name} function.", error_class="_LEGACY_ERROR_TEMP_1035")
    if spec is not None and isinstance(function, _FIXED_FRAME_FUNCTIONS):
        end = spec.args.get("end")
        fixed = (
            str(spec.args.get("kind") or "").upper() == "ROWS"
            and str(spec.args.get("start") or "").upper() == "UNBOUNDED"
            and str(spec.args.get("start_side") or "").upper() == "PRECEDING"
            and (end is None or str(end).upper() == "CURRENT ROW")
        )
        if not fixed:
            raise OptimizeError(
                f"Window Frame {spec.sql(dialect=VpushSpark)} must match the required frame "
                "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.",
                error_class="_LEGACY_ERROR_TEMP_1036",
            )
    if isinstance(function, exp.Ntile) and function.this is not None:
        # Spark's NTile: a foldable bucket count first, then an int, then a positive one
        buckets = function.this
        kind = VOID if isinstance(_unparen(buckets), exp.Null) else of(buckets)
        if any(isinstance(n, (exp.Column, exp.Select, exp.Subquery, exp.AggFunc, exp.Rand, exp.Randn)) for n in buckets.walk()):
            raise _window_function_error(
                function, f'the input `buckets` should be a foldable "{_spark_type_name(kind)}" expression; however, '
                f'got "{spark_name(buckets) or _spark_text(buckets)}".', "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
            )
        if kind is not None and kind != _INT:
            raise _window_function_error(
                function, f'The first parameter requires the "INT" type, however "{spark_name(buckets) or _spark_text(buckets)}" has the type '
                f'"{_spark_type_name(kind)}".', "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        count = _number_literal(buckets)
        if isinstance(_unparen(buckets), exp.Cast) and isinstance(_unparen(_unparen(buckets).this), exp.Null):
            count = 0  # Spark reads a NULL int's bucket count as 0
        if count is not None and count <= 0:
            raise _window_function_error(
                function, f"The buckets must be between (0, 2147483647] (current value = {int(count)}).",
                "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
            )
    if isinstance(function, exp.NthValue):
        offset = _number_literal(function.args.get("offset") or exp.Null())
        if offset is not None and offset <= 0:
            raise _window_function_error(
                function, f"The offset must be between (0, 9223372036854775807] (current value = {int(offset)}L).",
                "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
            )


def _truncate_default(function: exp.Lag | exp.Lead, value: SparkType | None) -> None:
    """``lag``/``lead``'s default cast to the value's type as Spark casts it: a fractional literal
    given for an integer value truncated (DuckDB rounds it)."""
    default = function.args.get("default")
    number = _number_literal(default) if default is not None else None
    if number is not None and _is_integral(value) and number != int(number):
        function.set("default", exp.Literal.number(int(number)))


def _first_or_last_ignoring_nulls(
    call: exp.First | exp.Last | exp.FirstValue | exp.LastValue, order: exp.Expr | None
) -> exp.Expr:
    """Spark's ``first(x, true)``/``last(x, true)`` as an aggregate: the first or last non-NULL
    value (DuckDB takes IGNORE NULLS only in a window, and its rendering of ``last`` dropped it),
    in the scan's ``order`` where it is known."""
    if isinstance(call.parent, exp.Filter) or isinstance(call.parent and call.parent.parent, exp.Filter):
        _refuse(call.sql_name().lower(), "an aggregate ignoring NULLs with a FILTER")
    last = isinstance(call, (exp.Last, exp.LastValue))
    kept = exp.Not(this=exp.Is(this=call.this.copy(), expression=exp.Null()))
    if order is not None:
        return exp.Filter(this=first_or_last(call.this, last, order), expression=exp.Where(this=kept))
    pick = exp.Last if last else exp.First
    return exp.Filter(this=pick(this=call.this), expression=exp.Where(this=kept))


def _schema_of_json(text: exp.Expr) -> exp.Expr:
    """Spark's ``schema_of_json`` of a literal, computed here once
    (:func:`vpush.optimizer.infer_json_schema.infer_json_schema`)."""
    from vpush.optimizer.infer_json_schema import infer_json_schema

    if isinstance(text, exp.Null):
        _refuse("schema_of_json", "a NULL text")
    if not (isinstance(text, exp.Literal) and text.is_string):
        raise OptimizeError(
            f'Cannot resolve "schema_of_json({text.sql(dialect=VpushSpark)})" due to data type mismatch: the input '
            '`json` should be a foldable "STRING" expression',
            error_class="DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
        )
    return exp.cast(exp.Literal.string(infer_json_schema(text.name)), exp.DataType.build("VARCHAR"))


# The atomic types Spark's implicit cast to a timestamp does not take (a date_format of them raises).
_TIMESTAMP_MISMATCHES = tuple(AtomicType(n) for n in ("boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "binary"))


# Spark's trunc(date, fmt) levels (DateTimeUtils.parseTruncLevel of the format upper-cased) as
# DuckDB's date_trunc parts; any other format, a finer one included ('DD', 'HOUR'), gives NULL.
# trunc's levels: date_trunc's of a week or longer
_TRUNC_LEVELS = {name: unit for name, unit in _DATE_TRUNC_UNITS.items() if unit in ("year", "quarter", "month", "week")}


def _trunc_date(value: exp.Expr, unit: exp.Expr | None, of: Callable[[exp.Expr], SparkType | None]) -> exp.Expression:
    """Spark's ``trunc(date, fmt)`` (a week starts on Monday in both). Spark casts a timestamp to
    its date in the session time zone first (a timestamp_ntz to its date, a string as its cast to
    a date, done before this); a format that is not a level gives NULL, a number too (cast to a
    string). DuckDB's ``date_trunc`` of a date is a timestamp, so the result is cast back."""
    if isinstance(value, exp.Null) or isinstance(unit, exp.Null) or (isinstance(unit, exp.Literal) and not unit.is_string):
        return exp.cast(exp.Null(), exp.DataType.build("DATE"))
    source = of(value)
    if source in _TIMESTAMPS:
        value = exp.cast(value, exp.DataType.build("DATE"))
    elif source != AtomicType("date"):
        _refuse("trunc", "an argument other than a date, a timestamp or a string")
    if isinstance(unit, exp.Literal):
        part = _TRUNC_LEVELS.get(unit.name.upper())
        if part is None:
            return exp.cast(exp.Null(), exp.DataType.build("DATE"))
        return exp.cast(exp.Anonymous(this="date_trunc", expressions=[exp.Literal.string(part), value]), exp.DataType.build("DATE"))
    if unit is None or not isinstance(of(unit), StringType):
        _refuse("trunc", "a format that is neither a literal nor a string")
    assert unit is not None  # for mypy: refused above
    def truncated(part: str) -> exp.Expression:
        return exp.cast(exp.Anonymous(this="date_trunc", expressions=[exp.Literal.string(part), value.copy()]), exp.DataType.build("DATE"))

    return _by_level(unit, _TRUNC_LEVELS, truncated, "DATE")


def _by_level(level: exp.Expr, levels: Mapping[str, str], truncated: Callable[[str], exp.Expression], result: str) -> exp.Expression:
    """A truncation by a level read row by row: ``truncated(unit)`` where the upper-cased
    ``level`` is one of Spark's names of ``unit`` in ``levels``, else NULL (of type ``result``)."""
    ifs = []
    for unit in dict.fromkeys(levels.values()):
        names = [exp.Literal.string(name) for name, u in levels.items() if u == unit]
        ifs.append(exp.If(this=exp.In(this=exp.Upper(this=level.copy()), expressions=names), true=truncated(unit)))
    return exp.Case(ifs=ifs, default=exp.cast(exp.Null(), exp.DataType.build(result)))


# What Spark's UTF8String.trimAll takes off a string before reading a number or a boolean: every
# character up to the space, and DEL (as RE2 character classes).
_TRIMMED = r"[\x00-\x20\x7f]*"
_TRUE_WORDS = ("t", "true", "y", "yes", "1")
_FALSE_WORDS = ("f", "false", "n", "no", "0")


def _cast_string_operands(node: exp.Expr, of: Callable[[exp.Expr], SparkType | None], cast: Callable[[exp.Expr], exp.Expr]) -> None:
    """Each string operand of comparison ``node`` (``IN``'s list and ``BETWEEN``'s bounds too)
    replaced by ``cast`` of it. In place."""
    for key in ("this", "expression", "low", "high"):
        side = node.args.get(key)
        if isinstance(side, exp.Expr) and isinstance(of(side), StringType):
            node.set(key, cast(side))
    node.set("expressions", [cast(e) if isinstance(of(e), StringType) else e for e in node.expressions])


def _string_to_integral_or_boolean(value: exp.Expr, target: SparkType | None, *, strict: bool) -> exp.Expression:
    """Spark's cast of a string to an integer or a boolean: surrounding whitespace and control
    characters trimmed, then ``[+-]digits`` in the type's range (no fraction, no exponent: DuckDB
    would round ``'12.5'`` and read ``'1e3'``), or one of ``t true y yes 1`` / ``f false n no 0``
    in any case (DuckDB takes fewer); else ``CAST_INVALID_INPUT``, or NULL for ``try_cast``."""
    assert target is not None  # for mypy: an integer or boolean target
    trimmed = exp.Anonymous(this="regexp_replace", expressions=[
        value, exp.Literal.string(f"^{_TRIMMED[:-1]}+|{_TRIMMED[:-1]}+$"), exp.Literal.string(""), exp.Literal.string("g")])
    to = _sql_type(target)
    if target == AtomicType("boolean"):
        word = exp.Lower(this=trimmed)
        words = [exp.Literal.string(w) for w in _TRUE_WORDS + _FALSE_WORDS]
        readable: exp.Expression = exp.In(this=word, expressions=words)
        converted: exp.Expression = exp.In(this=word.copy(), expressions=[exp.Literal.string(w) for w in _TRUE_WORDS])
    else:
        readable = exp.Anonymous(this="regexp_full_match", expressions=[trimmed, exp.Literal.string("[+-]?[0-9]+")])
        converted = exp.Cast(this=trimmed.copy(), to=to) if strict else exp.TryCast(this=trimmed.copy(), to=to)
    if strict:
        otherwise: exp.Expression = spark_error("CAST_INVALID_INPUT", _malformed_message(value, target.to_sql()), to)
    else:
        otherwise = exp.cast(exp.Null(), to)
    return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=exp.cast(exp.Null(), to)),
                         exp.If(this=readable, true=converted)], default=otherwise)


def _number_to_timestamp(value: exp.Expr, source: SparkType | None, strict: bool) -> exp.Expression:
    """Spark's cast of a number of seconds to a timestamp (see ``_datetime_number_cast``)."""
    million = exp.Literal.number(1_000_000)
    bigint = exp.DataType.build("BIGINT")
    if _is_integral(source):
        micros: exp.Expression = exp.Mul(this=exp.cast(value, bigint), expression=million)
    elif isinstance(source, DecimalType):
        micros = exp.cast(exp.Anonymous(this="trunc", expressions=[exp.Mul(this=value, expression=million)]), bigint)
    else:
        seconds = exp.cast(value, exp.DataType.build("DOUBLE"))
        scaled = exp.Anonymous(this="trunc", expressions=[exp.Mul(this=seconds, expression=exp.Literal.number("1000000.0"))])
        micros = exp.cast(scaled, bigint)
        finite = exp.Anonymous(this="isfinite", expressions=[seconds.copy()])
        if strict:
            message = exp.DPipe(
                this=exp.DPipe(this=exp.Literal.string("The value '"), expression=exp.cast(seconds.copy(), exp.DataType.build("VARCHAR"))),
                expression=exp.Literal.string(f"' of the type \"{source.to_sql() if source else 'DOUBLE'}\" cannot be cast to \"TIMESTAMP\" because it is malformed."),
            )
            invalid = spark_error("CAST_INVALID_INPUT", message, bigint)
        else:
            invalid = exp.cast(exp.Null(), bigint)
        micros = exp.Case(ifs=[exp.If(this=exp.Not(this=finite), true=invalid)], default=micros)
    return exp.Anonymous(
        this="timezone", expressions=[exp.Literal.string("UTC"), exp.Anonymous(this="make_timestamp", expressions=[micros])]
    )


def _window_time(arguments: list[exp.Expr | None], type_of: Callable[[exp.Expr], SparkType | None]) -> exp.Expr:
    """Spark's ``window_time(w)`` of a time window ``w``: its end less a microsecond
    (``TimeWindowResolution.buildWindowTimeRewrite``), of the end's type."""
    if len(arguments) != 1 or arguments[0] is None:
        raise OptimizeError(
            f"The `window_time` requires 1 parameters but the actual number is {len(arguments)}. Please, refer to "
            "'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix.",
            error_class="WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
        )
    of_type = type_of(arguments[0])
    if of_type is not None and not isinstance(of_type, StructType):
        raise OptimizeError(
            f'Cannot resolve "window_time({_spark_text(arguments[0])})" due to data type mismatch: The first parameter '
            f'requires the "STRUCT" type, however "{_spark_text(arguments[0])}" has the type "{of_type.to_sql()}".',
            error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        )
    if window_time_type(of_type) is None:
        _refuse("window_time", "an argument that is not a time window (Spark takes only the column window(...) gives)")
    # Spark's ResolveWindowTime reads the marker of an attribute's metadata (a window's time of windows too)
    marker = of_type.marker if isinstance(of_type, StructType) and isinstance(arguments[0], exp.Column) else None
    if marker is None:
        raise OptimizeError(f"The input is not a correct window column: window_time({_spark_text(arguments[0])});",
                            error_class="_LEGACY_ERROR_TEMP_3101")
    if marker == UNKNOWN_MARKER:
        _refuse("window_time", "a column whose window marker vpush does not follow (a struct's field, a table's column)")
    end = exp.Anonymous(this="struct_extract", expressions=[arguments[0], exp.Literal.string("end")])
    return exp.Sub(this=end, expression=exp.Interval(this=exp.Literal.string("1"), unit=exp.Var(this="MICROSECOND")))


# Spark's timestamp_seconds/_millis/_micros: microseconds per unit, and the unit as its
# DATETIME_OVERFLOW message names it.
_EPOCH_UNITS = {"timestamp_seconds": (1_000_000, "seconds"), "timestamp_millis": (1_000, "milliseconds"),
                "timestamp_micros": (1, "microseconds")}


def _timestamp_from_epoch(called: str, count: exp.Expr, source: SparkType | None) -> exp.Expression:
    """Spark's ``timestamp_seconds(n)`` (and ``_millis``, ``_micros``) of an integer: ``n`` units
    after the epoch, ``DATETIME_OVERFLOW`` where the microseconds leave the 64-bit range (Spark's
    ``multiplyExact``). A double or decimal of seconds is refused."""
    if not _is_integral(source):
        _refuse(called, "an argument that is not an integer")
    factor, unit = _EPOCH_UNITS[called]
    whole = exp.cast(count, exp.DataType.build("BIGINT"))
    micros: exp.Expression = whole if factor == 1 else exp.Mul(this=whole.copy(), expression=exp.Literal.number(factor))
    instant = exp.Anonymous(
        this="timezone", expressions=[exp.Literal.string("UTC"), exp.Anonymous(this="make_timestamp", expressions=[micros])]
    )
    if factor == 1:
        # DuckDB's timestamps end a microsecond inside the 64-bit range (its infinities at
        # +-(2^63 - 1)), where Spark's reach its ends: those three instants are refused
        beyond = exp.Not(this=exp.Between(this=whole.copy(), low=exp.Literal.number(-(_TWO_63 - 2)), high=exp.Literal.number(_TWO_63 - 2)))
        refused = spark_error("VPUSH_UNSUPPORTED_FUNCTION", f"{called}: an instant at the ends of the 64-bit range of microseconds "
                              "(9223372036854775807, -9223372036854775807, -9223372036854775808) is past the DuckDB engine's "
                              "timestamps; the Spark engine runs it", None)
        return exp.Case(ifs=[exp.If(this=beyond, true=refused)], default=instant)
    highest, lowest = (_TWO_63 - 1) // factor, -(_TWO_63 // factor)  # truncated toward zero
    outside = exp.Or(this=exp.GT(this=whole.copy(), expression=exp.Literal.number(highest)),
                     expression=exp.LT(this=whole.copy(), expression=exp.Literal.number(lowest)))
    message = exp.DPipe(
        this=exp.DPipe(this=exp.Literal.string("Datetime operation overflow: create a TIMESTAMP from "),
                       expression=exp.cast(whole.copy(), exp.DataType.build("VARCHAR"))),
        expression=exp.Literal.string(f"L {unit} since the epoch."),
    )
    return exp.Case(ifs=[exp.If(this=outside, true=spark_error("DATETIME_OVERFLOW", message, None))], default=instant)


_TWO_63 = 2**63
_FAR_PAST_MICROS = -6_000_000_000_000_000_000  # about the year -188,000: well inside DuckDB's range
_FOUR_CENTURIES_MICROS = 146_097 * 86_400 * 1_000_000  # the Gregorian calendar repeats every 400 years


def _from_unixtime(seconds: exp.Expr) -> exp.Expression:
    """Spark's ``from_unixtime(n)``: ``yyyy-MM-dd HH:mm:ss`` in the session time zone (DuckDB's
    ``TimeZone``, set per cursor). Spark multiplies by a million in wrapping 64-bit arithmetic
    and prints a proleptic year of four digits at least, ``-`` before a year below 0 and ``+``
    before one above 9999. DuckDB's timestamps end a few hours before the most negative
    microsecond count: an instant that far back is printed 400 years later (the same calendar
    day, the same time in the local mean time of a zone) with its year taken back by 400."""
    micros = _wrapped_micros(seconds)
    far = exp.LT(this=micros.copy(), expression=exp.Literal.number(_FAR_PAST_MICROS))
    moved = exp.Case(
        ifs=[exp.If(this=far.copy(), true=exp.Add(this=micros.copy(), expression=exp.Literal.number(_FOUR_CENTURIES_MICROS)))],
        default=micros,
    )
    instant = exp.Anonymous(
        this="timezone", expressions=[exp.Literal.string("UTC"), exp.Anonymous(this="make_timestamp", expressions=[moved])]
    )
    year = exp.Sub(
        this=exp.cast(exp.Anonymous(this="strftime", expressions=[instant.copy(), exp.Literal.string("%Y")]), exp.DataType.build("BIGINT")),
        expression=exp.Case(ifs=[exp.If(this=far, true=exp.Literal.number(400))], default=exp.Literal.number(0)),
    )

    year_text = _year_text(year)
    rest = exp.Anonymous(this="strftime", expressions=[instant, exp.Literal.string("-%m-%d %H:%M:%S")])
    return exp.DPipe(this=year_text, expression=rest)


def _from_unixtime_by_pattern(seconds: exp.Expr, pattern: exp.Expr | None) -> exp.Expression:
    """Spark's ``from_unixtime(n, pattern)``: the instant of ``n`` seconds (Spark's wrapping
    multiplication by a million) printed by ``date_format``'s printer in the session time zone.
    An instant before DuckDB's first timestamp raises ``VPUSH_UNSUPPORTED_FUNCTION``."""
    if isinstance(pattern, exp.Null):
        return exp.cast(exp.Null(), exp.DataType.build("VARCHAR"))
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        _refuse("from_unixtime", "a pattern that is not a literal")
    micros = _wrapped_micros(seconds)
    instant = exp.Anonymous(
        this="timezone", expressions=[exp.Literal.string("UTC"), exp.Anonymous(this="make_timestamp", expressions=[micros.copy()])]
    )
    printed = spark_date_format(instant, pattern.name)
    far = exp.LT(this=micros, expression=exp.Literal.number(_FAR_PAST_MICROS))
    refused = spark_error(
        "VPUSH_UNSUPPORTED_FUNCTION",
        "from_unixtime with a pattern: the DuckDB engine does not print instants before its first timestamp; the Spark engine runs it",
        exp.DataType.build("VARCHAR"),
    )
    return exp.Case(ifs=[exp.If(this=far, true=refused)], default=printed)


def _wrapped_micros(seconds: exp.Expr) -> exp.Expression:
    """``seconds`` times a million in wrapping 64-bit arithmetic, as Spark's ``from_unixtime`` computes it."""
    return _wrapped_bigint(exp.Mul(this=exp.cast(seconds, exp.DataType.build("HUGEINT")), expression=exp.Literal.number(1_000_000)))


def _wrapped_bigint(wide: exp.Expression) -> exp.Expression:
    """A HUGEINT as a bigint wrapped around 64 bits, as Java's ``long`` arithmetic and
    ``BigDecimal.longValue`` wrap it."""
    shifted = exp.Mod(
        this=exp.Paren(this=exp.Add(
            this=exp.Mod(this=exp.Paren(this=exp.Add(this=wide, expression=exp.Literal.number(_TWO_63))),
                         expression=exp.Literal.number(2 * _TWO_63)),
            expression=exp.Literal.number(2 * _TWO_63))),
        expression=exp.Literal.number(2 * _TWO_63),
    )
    return exp.cast(exp.Sub(this=shifted, expression=exp.Literal.number(_TWO_63)), exp.DataType.build("BIGINT"))


def _element_at(array: exp.Expr, index: exp.Expr, *, tolerant: bool = False) -> exp.Expression:
    """Spark's ``element_at(array, i)`` under ANSI: 1-based, negative from the end; 0 raises
    ``INVALID_INDEX_OF_ZERO``, an index outside the array ``INVALID_ARRAY_INDEX_IN_ELEMENT_AT``
    (DuckDB's ``list_extract`` counts the same way but gives NULL for both). ``try_element_at``
    (``tolerant``) gives NULL outside the array, and raises for 0 as Spark's does."""
    size = exp.Anonymous(this="len", expressions=[array.copy()])
    zero = exp.EQ(this=index.copy(), expression=exp.Literal.number(0))
    outside = exp.GT(this=exp.Abs(this=exp.cast(index.copy(), exp.DataType.build("BIGINT"))), expression=size.copy())
    text = _out_of_bounds(index, size.copy(), "`try_element_at`")
    zero_text = "The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1)."
    checks = [exp.If(this=zero, true=spark_error("INVALID_INDEX_OF_ZERO", zero_text, None))]
    if not tolerant:
        checks.append(exp.If(this=outside, true=spark_error("INVALID_ARRAY_INDEX_IN_ELEMENT_AT", text, None)))
    return exp.Case(ifs=checks, default=exp.Anonymous(this="list_extract", expressions=[array.copy(), index.copy()]))


def _mime_base64(value: exp.Expr, text: bool) -> exp.Expression:
    """Spark's ``base64``: Java's MIME encoder, lines of 76 characters joined by CRLF (DuckDB's
    ``to_base64`` is one line); a string is encoded as its UTF-8 bytes."""
    blob = exp.Anonymous(this="encode", expressions=[value]) if text else value
    encoded = exp.Anonymous(this="to_base64", expressions=[blob])
    crlf = exp.DPipe(this=exp.Anonymous(this="chr", expressions=[exp.Literal.number(13)]),
                     expression=exp.Anonymous(this="chr", expressions=[exp.Literal.number(10)]))
    broken = exp.Anonymous(
        this="regexp_replace",
        expressions=[encoded, exp.Literal.string(".{76}"), exp.DPipe(this=exp.Literal.string("\\0"), expression=crlf.copy()),
                     exp.Literal.string("g")],
    )
    return exp.Anonymous(this="rtrim", expressions=[broken, crlf])  # base64 has no CR or LF of its own


def _pmod(a: exp.Expression, n: exp.Expression) -> exp.Expression:
    """Spark's ``pmod(a, n)``: ``a % n``, plus ``n`` (mod ``n``) when that is negative."""
    n = exp.Paren(this=n.copy())
    remainder = exp.Paren(this=exp.Mod(this=exp.Paren(this=a.copy()), expression=n.copy()))
    wrapped = exp.Mod(this=exp.Paren(this=exp.Add(this=remainder.copy(), expression=n.copy())), expression=n.copy())
    negative = exp.LT(this=remainder.copy(), expression=exp.Literal.number(0))
    return exp.Case(ifs=[exp.If(this=negative, true=wrapped)], default=remainder)


def _date_text(value: exp.Expr) -> exp.Expression:
    """A date as Spark casts it to a string: ``yyyy-MM-dd``, its year as :func:`_year_text`."""
    year = exp.Anonymous(this="year", expressions=[value.copy()])
    return exp.DPipe(this=_year_text(year), expression=exp.Anonymous(this="strftime", expressions=[value.copy(), exp.Literal.string("-%m-%d")]))


def _timestamp_text(value: exp.Expr) -> exp.Expression:
    """A timestamp as Spark casts it to a string: ``yyyy-MM-dd HH:mm:ss`` in the session time
    zone, then the fraction of a second without its trailing zeros (none when it is zero)."""
    whole = exp.DPipe(
        this=_year_text(proleptic_year(value)),
        expression=exp.Anonymous(this="strftime", expressions=[value.copy(), exp.Literal.string("-%m-%d %H:%M:%S")]),
    )
    micros = exp.Mod(this=exp.Anonymous(this="microsecond", expressions=[value.copy()]), expression=exp.Literal.number(1_000_000))
    digits = exp.Anonymous(
        this="rtrim",
        expressions=[
            exp.Anonymous(this="lpad", expressions=[exp.cast(micros.copy(), exp.DataType.build("VARCHAR")), exp.Literal.number(6), exp.Literal.string("0")]),
            exp.Literal.string("0"),
        ],
    )
    fraction = exp.Case(
        ifs=[exp.If(this=exp.EQ(this=micros, expression=exp.Literal.number(0)), true=exp.Literal.string(""))],
        default=exp.DPipe(this=exp.Literal.string("."), expression=digits),
    )
    return exp.DPipe(this=whole, expression=fraction)
