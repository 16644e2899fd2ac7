"""The Spark functions the DuckDB engine answers as Spark does, and how Spark names their calls.

DuckDB has functions under many of Spark's names, but not always with Spark's answer: its
``floor`` of a double is a double (Spark's a ``bigint``), its ``kurtosis`` is the sample's
(Spark's the population's), its ``printf`` leaves a NULL out (Spark prints ``null``). So the
DuckDB engine runs only the functions listed here, each checked against PySpark by
``tests/test_spark_functions.py`` (names, types and values); a query calling any other Spark
function is refused on DuckDB with an error naming it, and runs on the Spark engine as Spark's
own. :mod:`vpush.optimizer.spark_semantics` does the rewriting a listed function needs.

Spark names an unaliased call after the function as the user wrote it (``nvl(g, x)``, not
``coalesce``), its arguments' names and the defaults it fills in (``substr(g, 1)`` is
``substr(g, 1, 2147483647)``); a few functions print their name in capitals (``FLOOR(x)``,
``SQRT(x)``). :class:`SparkFunction` holds both.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from vpush.optimizer.dialect import DEFERRED_ARITY_ERROR, PARSED_ARGUMENTS, call_name
from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.rewrite_generators import GENERATORS
from vpush.optimizer.rewrite_time_windows import TIME_WINDOW_FUNCTIONS
from vpush.optimizer.spark_builtins import SPARK_BUILTIN_FUNCTIONS

__all__ = ["PARSED_ARGUMENTS", "SPARK_FUNCTIONS", "SparkFunction", "check_functions"]


@dataclass(frozen=True)
class SparkFunction:
    """A Spark function the DuckDB engine answers as Spark does.

    Attributes:
        least: the fewest arguments vpush answers it with.
        most: the most arguments (None: any number).
        shown: the name Spark prints for it, where not the one the user wrote.
        defaults: what Spark prints for the arguments after ``least`` that the call leaves out.
    """

    least: int
    most: int | None
    shown: str | None = None
    defaults: tuple[str, ...] = ()


def _f(least: int, most: int | None = -1, shown: str | None = None, defaults: tuple[str, ...] = ()) -> SparkFunction:
    return SparkFunction(least, least if most == -1 else most, shown, defaults)


# What Spark fills in, and prints, for an array_sort without a comparator (ascending, NULLs
# last) and an aggregate without a finish (the identity).
_NULL_SAFE_COMPARE = (
    "IF(((namedlambdavariable() IS NULL) AND (namedlambdavariable() IS NULL)), 0, (IF((namedlambdavariable() IS NULL), 1, "
    "(IF((namedlambdavariable() IS NULL), -1, (IF((namedlambdavariable() < namedlambdavariable()), -1, "
    "(IF((namedlambdavariable() > namedlambdavariable()), 1, 0)))))))))"
)
SORT_COMPARATOR = f"lambdafunction(({_NULL_SAFE_COMPARE}), namedlambdavariable(), namedlambdavariable())"
IDENTITY_LAMBDA = "lambdafunction(namedlambdavariable(), namedlambdavariable())"

SPARK_FUNCTIONS: dict[str, SparkFunction] = {
    # math
    "abs": _f(1), "floor": _f(1, shown="FLOOR"), "ceil": _f(1, shown="CEIL"), "ceiling": _f(1),
    "sqrt": _f(1, shown="SQRT"), "sign": _f(1), "signum": _f(1, shown="SIGNUM"), "round": _f(1, 2, defaults=("0",)),
    "mod": _f(2), "pmod": _f(2), "greatest": _f(2, None), "least": _f(2, None), "hex": _f(1), "bin": _f(1),
    # the transcendental functions: Java's StrictMath bits, by vpush.codec.strict_math
    "ln": _f(1), "log": _f(1, 2, shown="LOG"), "log10": _f(1, shown="LOG10"), "log2": _f(1, shown="LOG2"),
    "exp": _f(1, shown="EXP"), "pow": _f(2), "power": _f(2, shown="POWER"), "cbrt": _f(1, shown="CBRT"),
    "sinh": _f(1, shown="SINH"), "cosh": _f(1, shown="COSH"), "tanh": _f(1, shown="TANH"),
    "expm1": _f(1, shown="EXPM1"), "log1p": _f(1, shown="LOG1P"),
    "asin": _f(1, shown="ASIN"), "acos": _f(1, shown="ACOS"), "atan": _f(1, shown="ATAN"), "atan2": _f(2, shown="ATAN2"),
    "hypot": _f(2, shown="HYPOT"), "asinh": _f(1, shown="ASINH"), "acosh": _f(1, shown="ACOSH"), "atanh": _f(1, shown="ATANH"),
    "degrees": _f(1, shown="DEGREES"), "radians": _f(1, shown="RADIANS"), "rint": _f(1),
    "factorial": _f(1), "nanvl": _f(2), "bit_count": _f(1), "getbit": _f(2), "bit_get": _f(2), "div": _f(2),
    "width_bucket": _f(4),
    # Spark's hashes: vpush.codec.spark_hash
    "hash": _f(1, None), "xxhash64": _f(1, None), "crc32": _f(1), "conv": _f(3),
    "pi": _f(0, shown="PI"), "e": _f(0, shown="E"), "negative": _f(1), "positive": _f(1),
    "bround": _f(1, 2, defaults=("0",)), "shiftleft": _f(2), "shiftright": _f(2), "shiftrightunsigned": _f(2),
    "try_add": _f(2), "try_subtract": _f(2), "try_multiply": _f(2), "try_divide": _f(2), "try_mod": _f(2), "unhex": _f(1), "typeof": _f(1),
    "zeroifnull": _f(1), "nullifzero": _f(1), "collation": _f(1),
    # strings
    "lower": _f(1), "upper": _f(1), "lcase": _f(1), "ucase": _f(1), "length": _f(1), "char_length": _f(1),
    "character_length": _f(1), "len": _f(1), "concat": _f(0, None), "concat_ws": _f(1, None),
    "replace": _f(2, 3, defaults=("",)), "substr": _f(2, 3, defaults=("2147483647",)), "substring": _f(2, 3, defaults=("2147483647",)),
    "trim": _f(1, 2), "ltrim": _f(1, 2), "rtrim": _f(1, 2), "btrim": _f(1, 2), "lpad": _f(2, 3, defaults=(" ",)), "rpad": _f(2, 3, defaults=(" ",)),
    "left": _f(2), "right": _f(2), "repeat": _f(2), "instr": _f(2), "locate": _f(2, 3, defaults=("1",)),
    "position": _f(2, defaults=("1",)), "translate": _f(3), "split_part": _f(3), "contains": _f(2),
    "startswith": _f(2), "endswith": _f(2), "ascii": _f(1), "md5": _f(1), "sha1": _f(1), "sha": _f(1),
    "levenshtein": _f(2), "bit_length": _f(1), "space": _f(1), "rlike": _f(2, shown="RLIKE"),
    "regexp": _f(2, shown="REGEXP"), "regexp_like": _f(2, shown="REGEXP_LIKE"),
    "regexp_extract": _f(2, 3, defaults=("1",)), "regexp_replace": _f(3, 4, defaults=("1",)),
    "regexp_count": _f(2), "regexp_substr": _f(2), "regexp_extract_all": _f(2, 3, defaults=("1",)),
    "regexp_instr": _f(2, 3, defaults=("0",)),
    "split": _f(2, 3, defaults=("-1",)), "string": _f(1), "initcap": _f(1), "substring_index": _f(3),
    "octet_length": _f(1), "chr": _f(1), "char": _f(1),
    "get_json_object": _f(2), "json_array_length": _f(1), "json_object_keys": _f(1), "from_json": _f(2, 3), "elt": _f(2, None), "schema_of_json": _f(1), "soundex": _f(1), "overlay": _f(3, 4, defaults=("-1",)),
    "format_number": _f(2), "mask": _f(1, 5, defaults=("X", "x", "n", "NULL")),
    "format_string": _f(1, None), "printf": _f(1, None),
    "to_char": _f(2), "to_varchar": _f(2), "to_number": _f(2), "try_to_number": _f(2),
    "isnan": _f(1), "luhn_check": _f(1), "find_in_set": _f(2),
    "url_encode": _f(1), "url_decode": _f(1), "try_url_decode": _f(1), "parse_url": _f(2, 3), "try_parse_url": _f(2, 3), "is_valid_utf8": _f(1), "make_valid_utf8": _f(1),
    "validate_utf8": _f(1), "try_validate_utf8": _f(1), "encode": _f(2), "decode": _f(2, None), "dayname": _f(1), "monthname": _f(1), "curdate": _f(0, shown="current_date"),
    # conditionals and null handling
    "coalesce": _f(1, None), "nvl": _f(2), "ifnull": _f(2), "nvl2": _f(3), "nullif": _f(2), "if": _f(3),
    "isnull": _f(1), "isnotnull": _f(1), "equal_null": _f(2),
    # casts by type name
    "int": _f(1), "bigint": _f(1), "smallint": _f(1), "tinyint": _f(1), "double": _f(1), "float": _f(1),
    "boolean": _f(1), "date": _f(1), "timestamp": _f(1), "decimal": _f(1), "binary": _f(1),
    # dates and times
    "year": _f(1), "quarter": _f(1), "month": _f(1), "day": _f(1), "dayofmonth": _f(1), "dayofweek": _f(1),
    "dayofyear": _f(1), "weekofyear": _f(1), "weekday": _f(1), "hour": _f(1), "minute": _f(1), "second": _f(1),
    "date_add": _f(2, 3), "date_sub": _f(2), "dateadd": _f(2, 3, shown="date_add"), "datediff": _f(2, 3), "date_diff": _f(2, 3),
    "date_trunc": _f(2), "add_months": _f(2), "last_day": _f(1), "make_date": _f(3), "extract": _f(1),
    "from_utc_timestamp": _f(2), "to_utc_timestamp": _f(2), "convert_timezone": _f(2, 3), "timestampadd": _f(3), "timestampdiff": _f(3), "timediff": _f(3),
    "make_timestamp": _f(6, 7), "make_timestamp_ltz": _f(6, 7), "make_timestamp_ntz": _f(6), "try_make_timestamp": _f(6, 7),
    "try_make_timestamp_ltz": _f(6, 7), "try_make_timestamp_ntz": _f(6),
    "trunc": _f(2), "from_unixtime": _f(1, 2, defaults=("yyyy-MM-dd HH:mm:ss",)), "date_part": _f(2), "datepart": _f(2), "unix_timestamp": _f(1, 2, defaults=("yyyy-MM-dd HH:mm:ss",)),
    "to_unix_timestamp": _f(1, 2, defaults=("yyyy-MM-dd HH:mm:ss",)), "try_to_timestamp": _f(1, 2), "unix_seconds": _f(1), "unix_millis": _f(1),
    "unix_micros": _f(1), "unix_date": _f(1), "current_date": _f(0), "current_timestamp": _f(0), "now": _f(0),
    "to_date": _f(1, 2), "try_to_date": _f(1, 2), "to_timestamp": _f(1, 2), "to_timestamp_ltz": _f(1, 2), "to_timestamp_ntz": _f(1, 2), "date_format": _f(2), "timestamp_seconds": _f(1),
    "timestamp_millis": _f(1), "timestamp_micros": _f(1), "date_from_unix_date": _f(1),
    "months_between": _f(2, 3, defaults=("true",)), "next_day": _f(2),
    # aggregates
    "count": _f(0, None), "sum": _f(1), "avg": _f(1), "mean": _f(1), "min": _f(1), "max": _f(1),
    "count_if": _f(1), "stddev": _f(1), "std": _f(1), "stddev_samp": _f(1), "stddev_pop": _f(1),
    "variance": _f(1), "var_samp": _f(1), "var_pop": _f(1), "median": _f(1), "skewness": _f(1), "kurtosis": _f(1),
    "corr": _f(2), "covar_pop": _f(2), "covar_samp": _f(2), "regr_sxx": _f(2), "regr_syy": _f(2), "regr_sxy": _f(2),
    "regr_slope": _f(2), "regr_intercept": _f(2), "regr_r2": _f(2), "regr_count": _f(2), "regr_avgx": _f(2), "regr_avgy": _f(2),
    "percentile": _f(2, defaults=("1",)), "percentile_approx": _f(2, 3, defaults=("10000",)),
    "approx_percentile": _f(2, 3, defaults=("10000",)), "any_value": _f(1, 2), "first": _f(1, 2), "last": _f(1, 2),
    "bool_and": _f(1), "bool_or": _f(1), "every": _f(1), "some": _f(1), "bit_and": _f(1), "bit_or": _f(1),
    "bit_xor": _f(1), "max_by": _f(2), "min_by": _f(2), "collect_list": _f(1), "array_agg": _f(1, shown="collect_list"),
    "collect_set": _f(1), "histogram_numeric": _f(2), "grouping": _f(1), "grouping_id": _f(0, None), "approx_count_distinct": _f(1, 2), "mode": _f(1, 2), "try_sum": _f(1), "try_avg": _f(1), "string_agg": _f(1, 2, defaults=("NULL",)), "listagg": _f(1, 2, defaults=("NULL",)),
    # window functions
    "row_number": _f(0), "rank": _f(0, shown="RANK"), "dense_rank": _f(0, shown="DENSE_RANK"),
    "percent_rank": _f(0, shown="PERCENT_RANK"), "cume_dist": _f(0),
    "ntile": _f(1), "lag": _f(1, 4, defaults=("1", "NULL")), "lead": _f(1, 4, defaults=("1", "NULL")),
    "first_value": _f(1, 2), "last_value": _f(1, 2), "nth_value": _f(2),
    # arrays and structs
    "array": _f(0, None), "size": _f(1), "cardinality": _f(1), "array_size": _f(1), "struct": _f(0, None),
    "named_struct": _f(0, None), "filter": _f(2), "array_contains": _f(2), "element_at": _f(2), "try_element_at": _f(2), "get": _f(2), "reverse": _f(1),
    "base64": _f(1), "sha2": _f(2), "unbase64": _f(1), "to_binary": _f(1, 2), "try_to_binary": _f(1, 2),
    # more array functions: vpush.optimizer.spark_arrays
    "array_distinct": _f(1), "array_join": _f(2, 3), "sort_array": _f(1, 2, defaults=("true",)),
    "array_sort": _f(1, defaults=(SORT_COMPARATOR,)), "array_max": _f(1), "array_min": _f(1), "array_position": _f(2),
    "array_remove": _f(2), "array_union": _f(2), "array_intersect": _f(2), "array_except": _f(2),
    "arrays_overlap": _f(2), "flatten": _f(1), "slice": _f(3), "array_compact": _f(1), "array_append": _f(2),
    "array_prepend": _f(2), "array_repeat": _f(2), "exists": _f(2), "forall": _f(2), "transform": _f(2),
    "aggregate": _f(3, 4, defaults=(IDENTITY_LAMBDA,)), "reduce": _f(3, 4, defaults=(IDENTITY_LAMBDA,)),
    "sequence": _f(2, 3), "array_insert": _f(3),
    # maps
    "map": _f(0, None), "map_keys": _f(1), "map_values": _f(1), "map_contains_key": _f(2),
    "map_from_arrays": _f(2), "map_from_entries": _f(1), "str_to_map": _f(1, 3, defaults=(",", ":")),
    "map_entries": _f(1), "map_filter": _f(2), "transform_values": _f(2), "transform_keys": _f(2), "zip_with": _f(3), "map_zip_with": _f(3), "arrays_zip": _f(1, None), "map_concat": _f(1, None),
}
"""By the function's lower-cased name as the user writes it. Spark's variant functions are not
here: :mod:`vpush.optimizer.rewrite_variants` decides on those."""


# Spark's variant functions and to_json: vpush.optimizer.rewrite_variants decides on these.
_VARIANT_FUNCTIONS = frozenset({"to_json", "parse_json", "try_parse_json", "schema_of_variant", "schema_of_variant_agg"})


def _variant_function(node: exp.Expr, name: str) -> bool:
    from vpush.optimizer import dialect

    return type(node).__name__ in dialect.__all__ or name in _VARIANT_FUNCTIONS or "variant" in name


def check_functions(expression: exp.Expr) -> None:
    """Raise for the first call to a Spark function the DuckDB engine does not answer as Spark
    does (see :data:`SPARK_FUNCTIONS`).

    Raises:
        OptimizeError: naming the call, with ``VPUSH_UNSUPPORTED_FUNCTION``.
    """
    # a hint (/*+ REPARTITION(2) */) changes how Spark runs a query, not its answer
    for node in expression.walk(prune=lambda n: isinstance(n, exp.Hint)):
        if isinstance(node, exp.Hint):
            continue
        if isinstance(node, exp.Anonymous) and isinstance(node.parent, exp.Table) and node.name.lower() == "range":
            continue  # FROM range(...): vpush.optimizer.rewrite_range_tables decides on it
        if DEFERRED_ARITY_ERROR in node.meta:
            continue  # Spark's own count of its arguments, raised once they resolve (spark_semantics)
        if isinstance(node, exp.TableSample):
            raise OptimizeError(
                "TABLESAMPLE of a fraction: the DuckDB engine does not give Spark's answer for it (Spark's sample "
                "draws by its own seeded generator over its partitions; `n ROWS`, 0 and 100 PERCENT are answered); "
                "the Spark engine (vpush.connect(engine='spark')) runs it",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )
        if isinstance(node, (exp.Any, exp.All)) and type(node.parent) in (exp.Like, exp.ILike):
            continue  # x [NOT] LIKE ANY|ALL (...): spark_semantics writes out each pattern's LIKE
        if isinstance(node, exp.Any) and not isinstance(node.this, (exp.Subquery, exp.Select)):
            name: str | None = "any"  # Spark's any(x) aggregate; sqlglot reads it as `= ANY (...)`
        else:
            name = call_name(node)
        if name is None:
            continue  # syntax rather than a call: CASE, CAST, ...
        if name == "mode" and isinstance(node.parent, exp.WithinGroup) and node.args.get("this") is None:
            continue  # mode() WITHIN GROUP (ORDER BY x): spark_semantics decides on it
        if isinstance(node, (exp.PercentileCont, exp.PercentileDisc)) and isinstance(node.parent, exp.WithinGroup):
            continue  # percentile_cont|percentile_disc(p) WITHIN GROUP (ORDER BY x): spark_semantics answers them
        if _variant_function(node, name):
            continue
        if isinstance(node, exp.ArrayAgg) and isinstance(node.this, exp.Distinct) and not isinstance(
            node.parent, (exp.ArraySort, exp.ArraySize)
        ):
            # Spark aggregates the distinct values first: its list comes in its hash aggregation's order
            raise OptimizeError(
                f"{node.sql(dialect='vpushspark')}: the DuckDB engine does not give the order of Spark's list of "
                "distinct values (sort it: array_sort(collect_list(DISTINCT x)), or use collect_set); the Spark "
                "engine (vpush.connect(engine='spark')) runs it",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )
        rule = SPARK_FUNCTIONS.get(name)
        count = _argument_count(node)
        if name in TIME_WINDOW_FUNCTIONS:
            continue  # vpush.optimizer.rewrite_time_windows and spark_semantics decide on these
        if name in GENERATORS and (count == 1 or (name in ("json_tuple", "stack") and count is not None and count > 1)):
            continue  # vpush.optimizer.rewrite_generators decides on these
        if rule is not None and (count is None or (rule.least <= count and (rule.most is None or count <= rule.most))):
            continue
        if rule is None and isinstance(node, exp.Anonymous) and name not in SPARK_BUILTIN_FUNCTIONS:
            raise OptimizeError(
                f"Cannot resolve routine `{name}` on search path [`system`.`builtin`, `system`.`session`, "
                "`spark_catalog`.`default`].",
                error_class="UNRESOLVED_ROUTINE",
            )
        shown = node.sql(dialect="vpushspark") if rule is None else f"{name} with {count} arguments"
        raise OptimizeError(
            f"{shown}: the DuckDB engine does not give Spark's answer for `{name}` yet; the Spark engine "
            "(vpush.connect(engine='spark')) runs it as Spark does (see the README's list of functions)",
            error_class="VPUSH_UNSUPPORTED_FUNCTION",
        )


def _argument_count(node: exp.Expr) -> int | None:
    from vpush.optimizer.dialect import SPARK_CALL

    if isinstance(node, (exp.Anonymous, exp.DecodeCase)):  # decode(x, search, result, ...): a CASE of its own
        return len(node.expressions)
    call = node.meta.get(SPARK_CALL) if node.meta else None
    if call is not None and call[1] is not None:
        return len(call[1])
    keys = PARSED_ARGUMENTS.get(type(node))
    if keys is None:
        return None
    present = [node.args.get(k) is not None for k in keys]
    if isinstance(node, exp.Trim):
        return sum(present[:2])  # trim(BOTH 'x' FROM s) has two: the string and the characters
    return sum(present)
