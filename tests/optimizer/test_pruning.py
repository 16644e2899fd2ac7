"""Row-group pruning: truth tables over named row-group fixtures, the cast-safety matrix, NOT
pushdown and binding, real files from DuckDB and Spark, and a property test that every pruned
row group of random shredded files holds no matching row."""
from __future__ import annotations

import datetime as dt
import decimal
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sqlglot
from hypothesis import given
from hypothesis import strategies as st
from sqlglot import exp
from support.writers import write_with_duckdb, write_with_spark

import vpush
from vpush.codec.builder import encode
from vpush.codec.header import VariantType
from vpush.codec.layout import find_variant_columns
from vpush.codec.shred import write_shredded_parquet
from vpush.codec.unshred import unshred
from vpush.codec.value import Variant
from vpush.optimizer.bind_sqlglot import bind_sqlglot
from vpush.optimizer.bound import (
    ALWAYS_FALSE,
    ALWAYS_TRUE,
    And,
    BooleanExpression,
    ColumnRef,
    Eq,
    Gt,
    GtEq,
    In,
    IsNaN,
    IsNull,
    LeafRef,
    Literal,
    Lt,
    LtEq,
    NotEq,
    NotIn,
    NotNaN,
    NotNull,
    Or,
    PartitionRef,
    SqlType,
    VariantRef,
    bind,
    in_,
    not_in,
    rewrite_not,
)
from vpush.optimizer.catalog import Catalog
from vpush.optimizer.evaluate_row_groups import (
    IN_PREDICATE_LIMIT,
    ROWS_CANNOT_MATCH,
    ROWS_MIGHT_MATCH,
    InclusiveStatsEvaluator,
    evaluate_row_groups,
)
from vpush.optimizer.statistics import ColumnStatistics, RowGroupStatistics

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SKIP, READ = ROWS_CANNOT_MATCH, ROWS_MIGHT_MATCH
UTC = dt.timezone.utc
D = decimal.Decimal
TYPED = "v.typed_value.a.typed_value"
VALUE = "v.typed_value.a.value"
ROWS = 100


def T(name: str) -> SqlType:
    found = SqlType.parse(name)
    assert found is not None, name
    return found


def lit(value: object, type_name: str = "bigint") -> Literal:
    return Literal(value, T(type_name))


def column(path: str, nulls: int, low: object = None, high: object = None, *, exact: bool = True,
           rows: int = ROWS) -> ColumnStatistics:
    return ColumnStatistics(path, rows, nulls, rows - nulls, low, high, exact and low is not None)


def group(rows: int = ROWS, *columns: ColumnStatistics | tuple[str, None]) -> RowGroupStatistics:
    found: dict[str, ColumnStatistics | None] = {}
    for c in columns:
        if isinstance(c, tuple):
            found[c[0]] = None
        else:
            found[c.column_path] = dataclass_rows(c, rows)
    return RowGroupStatistics(0, rows, found)


def dataclass_rows(c: ColumnStatistics, rows: int) -> ColumnStatistics:
    import dataclasses

    return dataclasses.replace(c, num_rows=rows)


def no_residual() -> ColumnStatistics:
    return column(VALUE, ROWS)


# The named row groups: a variant field `a` (typed leaf + its value column) in each situation.
FIXTURES: dict[str, RowGroupStatistics] = {
    "fully_shredded": group(ROWS, column(TYPED, 0, 10, 20), no_residual()),
    "some_nulls": group(ROWS, column(TYPED, 30, 10, 20), no_residual()),
    "single_value": group(ROWS, column(TYPED, 0, 15, 15), no_residual()),
    "partially_shredded": group(ROWS, column(TYPED, 5, 10, 20), column(VALUE, ROWS - 5)),
    "all_nulls": group(ROWS, column(TYPED, ROWS), no_residual()),
    "no_stats": group(ROWS, (TYPED, None), no_residual()),
    "no_value_stats": group(ROWS, column(TYPED, 0, 10, 20), (VALUE, None)),
    "no_min_max": group(ROWS, column(TYPED, 50), no_residual()),
    "nan_bounds": group(ROWS, column(TYPED, 0, math.nan, math.nan), no_residual()),
    "float_leaf": group(ROWS, column(TYPED, 0, 1.5, 2.5), no_residual()),
    "float_single": group(ROWS, column(TYPED, 0, 1.5, 1.5), no_residual()),
    "empty_string_bound": group(ROWS, column(TYPED, 0, "", "m", exact=False), no_residual()),
    "string_single": group(ROWS, column(TYPED, 0, "k", "k", exact=False), no_residual()),
    "empty_row_group": group(0, column(TYPED, 0, 10, 20, rows=0), column(VALUE, 0, rows=0)),
}


def leaf(
    vt: VariantType = VariantType.INT64,
    target: str = "bigint",
    *,
    strict: bool = True,
    precision: int | None = None,
    scale: int | None = None,
) -> LeafRef:
    return LeafRef(TYPED, VALUE, vt, T(target), strict, True, precision, scale)


A = leaf()
F = leaf(VariantType.DOUBLE, "double")
S = leaf(VariantType.STRING, "string")


def check(expression: BooleanExpression, fixture: str | RowGroupStatistics, expected: bool, reason: str) -> None:
    stats = FIXTURES[fixture] if isinstance(fixture, str) else fixture
    got = InclusiveStatsEvaluator(expression).evaluate(stats)
    assert got == expected, reason


# -- truth tables ------------------------------------------------------------------------------
BOUNDS_TABLE = [
    (Lt(A, lit(9)), SKIP, "Should skip: literal below lower bound"),
    (Lt(A, lit(10)), SKIP, "Should skip: x < lower bound is impossible"),
    (Lt(A, lit(11)), READ, "Should read: literal above lower bound"),
    (LtEq(A, lit(9)), SKIP, "Should skip: literal below lower bound"),
    (LtEq(A, lit(10)), READ, "Should read: literal at lower bound"),
    (LtEq(A, lit(11)), READ, "Should read: literal above lower bound"),
    (Gt(A, lit(19)), READ, "Should read: literal below upper bound"),
    (Gt(A, lit(20)), SKIP, "Should skip: x > upper bound is impossible"),
    (Gt(A, lit(21)), SKIP, "Should skip: literal above upper bound"),
    (GtEq(A, lit(19)), READ, "Should read: literal below upper bound"),
    (GtEq(A, lit(20)), READ, "Should read: literal at upper bound"),
    (GtEq(A, lit(21)), SKIP, "Should skip: literal above upper bound"),
    (Eq(A, lit(9)), SKIP, "Should skip: literal below lower bound"),
    (Eq(A, lit(10)), READ, "Should read: literal at lower bound"),
    (Eq(A, lit(15)), READ, "Should read: literal inside the bounds"),
    (Eq(A, lit(20)), READ, "Should read: literal at upper bound"),
    (Eq(A, lit(21)), SKIP, "Should skip: literal above upper bound"),
    (Eq(A, lit(D("10.5"), "decimal(12,1)")), READ, "Should read: decimal literal inside the bounds"),
    (Eq(A, lit(D("20.5"), "decimal(12,1)")), SKIP, "Should skip: decimal literal above upper bound"),
    (NotEq(A, lit(15)), READ, "Should read: != cannot be refuted by distinct bounds"),
    (In(A, (lit(1), lit(9), lit(21))), SKIP, "Should skip: every IN literal outside the bounds"),
    (In(A, (lit(9), lit(10))), READ, "Should read: an IN literal at lower bound"),
    (NotIn(A, (lit(10), lit(20))), READ, "Should read: NOT IN cannot be refuted by distinct bounds"),
    (IsNull(A), SKIP, "Should skip: every row has a typed value and no residual"),
    (NotNull(A), READ, "Should read: values exist"),
    (NotNaN(A), READ, "Should read: NOT isnan is TRUE for non-NaN rows"),
]


@pytest.mark.parametrize(("expression", "expected", "reason"), BOUNDS_TABLE)
def test_fully_shredded_bounds(expression: BooleanExpression, expected: bool, reason: str) -> None:
    check(expression, "fully_shredded", expected, reason)


@pytest.mark.parametrize(("expression", "expected", "reason"), BOUNDS_TABLE)
def test_partially_shredded_reads_everything(expression: BooleanExpression, expected: bool, reason: str) -> None:
    check(expression, "partially_shredded", READ, "Should read: residual values are not in the bounds")


UNKNOWN_CASES = {
    "lt": lambda r: Lt(r, lit(9)),
    "gt": lambda r: Gt(r, lit(21)),
    "eq": lambda r: Eq(r, lit(100)),
    "in": lambda r: In(r, (lit(1), lit(2))),
    "not_eq": lambda r: NotEq(r, lit(15)),
    "is_nan": IsNaN,
}


@pytest.mark.parametrize("fixture", ["no_stats", "no_value_stats", "no_min_max", "nan_bounds"])
@pytest.mark.parametrize("case", list(UNKNOWN_CASES))
def test_unknown_statistics_read(fixture: str, case: str) -> None:
    ref = F if fixture == "nan_bounds" else A
    check(UNKNOWN_CASES[case](ref), fixture, READ, f"Should read: {fixture} proves nothing")


@pytest.mark.parametrize("fixture", ["no_stats", "no_value_stats", "no_min_max"])
def test_unknown_statistics_is_null(fixture: str) -> None:
    check(IsNull(A), fixture, READ, f"Should read: {fixture} does not prove every row non-null")


def test_some_nulls() -> None:
    check(IsNull(A), "some_nulls", READ, "Should read: typed nulls are NULL extractions")
    check(Gt(A, lit(21)), "some_nulls", SKIP, "Should skip: literal above upper bound")
    check(NotNull(A), "some_nulls", READ, "Should read: values exist")


@pytest.mark.parametrize(
    ("expression", "expected", "reason"),
    [
        (Lt(A, lit(9)), SKIP, "Should skip: no value, and NULL < 9 is never TRUE"),
        (Eq(A, lit(10)), SKIP, "Should skip: no value to equal 10"),
        (NotEq(A, lit(10)), SKIP, "Should skip: NULL != 10 is never TRUE"),
        (In(A, (lit(1), lit(2))), SKIP, "Should skip: no value"),
        (NotIn(A, (lit(1), lit(2))), SKIP, "Should skip: no value"),
        (NotNull(A), SKIP, "Should skip: the field is NULL in every row"),
        (IsNull(A), READ, "Should read: every row is NULL"),
        (IsNaN(A), SKIP, "Should skip: isnan(NULL) is FALSE"),
        (NotNaN(A), READ, "Should read: NOT isnan(NULL) is TRUE"),
    ],
)
def test_all_nulls(expression: BooleanExpression, expected: bool, reason: str) -> None:
    check(expression, "all_nulls", expected, reason)


def test_empty_row_group_is_skipped() -> None:
    check(ALWAYS_TRUE, "empty_row_group", SKIP, "Should skip: no rows")
    check(IsNull(A), "empty_row_group", SKIP, "Should skip: no rows")


def test_constants() -> None:
    check(ALWAYS_FALSE, "fully_shredded", SKIP, "Should skip: FALSE everywhere")
    check(ALWAYS_TRUE, "fully_shredded", READ, "Should read: TRUE everywhere")
    check(And(Gt(A, lit(21)), ALWAYS_TRUE), "fully_shredded", SKIP, "Should skip: one conjunct cannot match")
    check(Or(Gt(A, lit(21)), Lt(A, lit(11))), "fully_shredded", READ, "Should read: one disjunct might")
    check(Or(Gt(A, lit(21)), Lt(A, lit(10))), "fully_shredded", SKIP, "Should skip: no disjunct can")


def test_not_equal_needs_an_equality_proof() -> None:
    check(NotEq(A, lit(15)), "single_value", SKIP, "Should skip: every value equals 15 (exact bounds)")
    check(NotEq(A, lit(14)), "single_value", READ, "Should read: 15 != 14")
    check(NotIn(A, (lit(15), lit(16))), "single_value", SKIP, "Should skip: every value is in the list")
    check(NotIn(A, (lit(14), lit(16))), "single_value", READ, "Should read: 15 is not in the list")
    check(NotEq(S, lit("k", "string")), "string_single", READ, "Should read: string bounds may be truncated")
    check(NotEq(F, lit(1.5, "double")), "float_single", READ, "Should read: a NaN row would be != 1.5")


def test_in_list_limit() -> None:
    far = tuple(lit(1000 + i) for i in range(IN_PREDICATE_LIMIT))
    check(In(A, far), "fully_shredded", SKIP, "Should skip: every literal above upper bound")
    check(In(A, (*far, lit(5000))), "fully_shredded", READ, "Should read: IN list over the limit")


@pytest.mark.parametrize(
    ("expression", "expected", "reason"),
    [
        (Lt(F, lit(1.0, "double")), SKIP, "Should skip: literal below lower bound (NaN sorts last)"),
        (Lt(F, lit(1.5, "double")), SKIP, "Should skip: x < lower bound is impossible"),
        (Lt(F, lit(1.6, "double")), READ, "Should read: literal above lower bound"),
        (Gt(F, lit(3.0, "double")), READ, "Should read: a NaN row (not in the bounds) is > 3.0"),
        (GtEq(F, lit(math.inf, "double")), READ, "Should read: NaN >= Infinity"),
        (Eq(F, lit(3.0, "double")), SKIP, "Should skip: literal above upper bound, NaN != 3.0"),
        (Eq(F, lit(1.0, "double")), SKIP, "Should skip: literal below lower bound"),
        (Eq(F, lit(math.nan, "double")), READ, "Should read: NaN rows may exist"),
        (Gt(F, lit(math.nan, "double")), SKIP, "Should skip: nothing is greater than NaN"),
        (Lt(F, lit(math.nan, "double")), READ, "Should read: every number is < NaN"),
        (In(F, (lit(0.5, "double"), lit(math.nan, "double"))), READ, "Should read: NaN in the list"),
        (In(F, (lit(0.5, "double"), lit(3.5, "double"))), SKIP, "Should skip: literals outside bounds"),
        (IsNaN(F), READ, "Should read: a double leaf may hold NaN"),
    ],
)
def test_float_leaf_and_nan(expression: BooleanExpression, expected: bool, reason: str) -> None:
    check(expression, "float_leaf", expected, reason)


@pytest.mark.parametrize(
    ("expression", "expected", "reason"),
    [
        (Lt(S, lit("", "string")), SKIP, "Should skip: nothing sorts below the empty string"),
        (LtEq(S, lit("", "string")), READ, "Should read: literal at lower bound ''"),
        (Eq(S, lit("", "string")), READ, "Should read: '' is a real lower bound"),
        (Gt(S, lit("l", "string")), READ, "Should read: literal below upper bound"),
        (Gt(S, lit("m", "string")), SKIP, "Should skip: x > upper bound is impossible"),
        (Eq(S, lit("n", "string")), SKIP, "Should skip: literal above upper bound"),
        (Eq(S, lit("mz", "string")), SKIP, "Should skip: a truncated upper bound still bounds"),
        (GtEq(S, lit("m", "string")), READ, "Should read: literal at upper bound"),
    ],
)
def test_empty_string_bound(expression: BooleanExpression, expected: bool, reason: str) -> None:
    check(expression, "empty_string_bound", expected, reason)


# -- variant references --------------------------------------------------------------------------
def test_unshredded_field_lives_only_in_the_parent_value() -> None:
    ref = LeafRef(None, "v.value", None, T("int"))
    absent = group(ROWS, column("v.value", ROWS))
    present = group(ROWS, column("v.value", ROWS - 1))
    check(Eq(ref, lit(1, "int")), absent, SKIP, "Should skip: the field is in no row")
    check(NotNull(ref), absent, SKIP, "Should skip: the field is in no row")
    check(IsNull(ref), absent, READ, "Should read: every row is NULL")
    check(Eq(ref, lit(1, "int")), present, READ, "Should read: a residual may hold the field")


def test_value_column_absent_from_schema_counts_as_all_null() -> None:
    ref = LeafRef(TYPED, None, VariantType.INT64, T("bigint"))
    check(Gt(ref, lit(21)), group(ROWS, column(TYPED, 0, 10, 20)), SKIP, "Should skip: no value column")


def test_plain_columns() -> None:
    ref = LeafRef("id", None, VariantType.INT32, T("int"), True, False)
    some = group(ROWS, column("id", 10, 1, 5))
    check(Gt(ref, lit(5, "int")), some, SKIP, "Should skip: literal at upper bound")
    check(IsNull(ref), some, READ, "Should read: nulls exist")
    check(IsNull(ref), group(ROWS, column("id", 0, 1, 5)), SKIP, "Should skip: no null")
    check(NotNull(ref), group(ROWS, column("id", ROWS)), SKIP, "Should skip: only nulls")


# -- the cast-safety matrix ----------------------------------------------------------------------
def typed(low: object, high: object, nulls: int = 0) -> RowGroupStatistics:
    return group(ROWS, column(TYPED, nulls, low, high), no_residual())


CASTS = [
    # (leaf type, precision, scale, bounds, target, strict, predicate builder, expected, reason)
    (VariantType.INT64, None, None, (10, 20), "int", True, lambda r: Gt(r, lit(21, "int")), SKIP,
     "Should skip: bigint values within int cast exactly"),
    (VariantType.INT64, None, None, (10, 3_000_000_000), "int", True, lambda r: Lt(r, lit(5, "int")), READ,
     "Should read: a strict cast of 3e9 to int raises; skipping would hide it"),
    (VariantType.INT64, None, None, (10, 3_000_000_000), "int", False, lambda r: Lt(r, lit(5, "int")), SKIP,
     "Should skip: try_variant_get makes 3e9 NULL, the rest is >= 10"),
    (VariantType.INT64, None, None, (3_000_000_000, 4_000_000_000), "int", False, NotNull, SKIP,
     "Should skip: every value fails the try cast"),
    (VariantType.INT64, None, None, (3_000_000_000, 4_000_000_000), "int", True, NotNull, READ,
     "Should read: the strict cast raises"),
    (VariantType.INT8, None, None, (1, 5), "bigint", True, lambda r: Gt(r, lit(5)), SKIP,
     "Should skip: int8 widens to bigint"),
    (VariantType.INT64, None, None, (10, 20), "decimal(3,1)", True,
     lambda r: Gt(r, lit(D("20.0"), "decimal(3,1)")), SKIP, "Should skip: 20 fits decimal(3,1)"),
    (VariantType.INT64, None, None, (10, 200), "decimal(3,1)", True,
     lambda r: Gt(r, lit(D("50.0"), "decimal(3,1)")), READ, "Should read: 200 overflows decimal(3,1)"),
    (VariantType.INT64, None, None, (10, 200), "decimal(3,1)", False,
     lambda r: Gt(r, lit(D("99.9"), "decimal(3,1)")), SKIP, "Should skip: try clips to 99"),
    (VariantType.DECIMAL4, 9, 2, (D("1.25"), D("3.50")), "decimal(9,1)", True,
     lambda r: Gt(r, lit(D("3.5"), "decimal(9,1)")), SKIP, "Should skip: 3.50 rounds to 3.5"),
    (VariantType.DECIMAL4, 9, 2, (D("1.25"), D("3.54")), "decimal(9,1)", True,
     lambda r: Gt(r, lit(D("3.5"), "decimal(9,1)")), READ, "Should read: 3.54 may round up to 3.6"),
    (VariantType.DECIMAL4, 9, 2, (D("1.25"), D("3.75")), "int", True, lambda r: Gt(r, lit(4, "int")), SKIP,
     "Should skip: 3.75 truncates to at most 4"),
    (VariantType.DECIMAL4, 9, 0, (D("1"), D("3")), "int", True, lambda r: Gt(r, lit(3, "int")), SKIP,
     "Should skip: scale-0 decimals cast exactly"),
    (VariantType.INT64, None, None, (2**53 + 1, 2**53 + 5), "double", True,
     lambda r: Gt(r, lit(float(2**53 + 8), "double")), SKIP, "Should skip: rounding stays within an ulp"),
    (VariantType.INT64, None, None, (2**53 + 1, 2**53 + 5), "double", True,
     lambda r: Gt(r, lit(float(2**53 + 4), "double")), READ, "Should read: 2^53+5 may round to 2^53+6"),
    (VariantType.FLOAT, None, None, (1.5, 2.5), "double", True, lambda r: Lt(r, lit(1.0, "double")), SKIP,
     "Should skip: float widens to double exactly"),
    (VariantType.DOUBLE, None, None, (1.5, 2.5), "float", True, lambda r: Lt(r, lit(1.0, "float")), READ,
     "Should read: double to float is not modelled"),
    (VariantType.INT64, None, None, (10, 20), "string", True, lambda r: Eq(r, lit("9", "string")), READ,
     "Should read: numbers as strings do not keep their order"),
    (VariantType.STRING, None, None, ("a", "b"), "int", True, lambda r: Eq(r, lit(5, "int")), READ,
     "Should read: strings parse into numbers"),
    (VariantType.DATE, None, None, (dt.date(2024, 1, 10), dt.date(2024, 1, 20)), "timestamp_ntz", True,
     lambda r: Lt(r, lit(dt.datetime(2024, 1, 10), "timestamp_ntz")), SKIP, "Should skip: midnight exactly"),
    (VariantType.DATE, None, None, (dt.date(2024, 1, 10), dt.date(2024, 1, 20)), "timestamp_ntz", True,
     lambda r: Lt(r, lit(dt.datetime(2024, 1, 10, 0, 0, 1), "timestamp_ntz")), READ,
     "Should read: literal above the lower bound's midnight"),
    (VariantType.DATE, None, None, (dt.date(2024, 1, 10), dt.date(2024, 1, 20)), "timestamp", True,
     lambda r: Lt(r, lit(dt.datetime(2024, 1, 10, tzinfo=UTC), "timestamp")), READ,
     "Should read: midnight in an unknown session zone may be before 00:00 UTC"),
    (VariantType.DATE, None, None, (dt.date(2024, 1, 10), dt.date(2024, 1, 20)), "timestamp", True,
     lambda r: Lt(r, lit(dt.datetime(2024, 1, 9, 5, tzinfo=UTC), "timestamp")), SKIP,
     "Should skip: literal 19 h before the lower bound, beyond any zone offset"),
    (VariantType.TIMESTAMP_NTZ, None, None, (dt.datetime(2024, 1, 10), dt.datetime(2024, 1, 20)), "timestamp",
     True, lambda r: Gt(r, lit(dt.datetime(2024, 1, 20, 19, tzinfo=UTC), "timestamp")), SKIP,
     "Should skip: literal 19 h after the upper bound"),
    (VariantType.TIMESTAMP, None, None, (dt.datetime(2024, 1, 10, tzinfo=UTC), dt.datetime(2024, 1, 20, tzinfo=UTC)),
     "date", True, lambda r: Lt(r, lit(dt.date(2024, 1, 10), "date")), READ,
     "Should read: 10 Jan 00:00 UTC is 9 Jan west of UTC"),
    (VariantType.TIMESTAMP, None, None, (dt.datetime(2024, 1, 10, tzinfo=UTC), dt.datetime(2024, 1, 20, tzinfo=UTC)),
     "date", True, lambda r: Gt(r, lit(dt.date(2024, 1, 20), "date")), SKIP,
     "Should skip: 20 Jan 00:00 UTC is 20 Jan at most, in any zone"),
    (VariantType.TIMESTAMP, None, None, (dt.datetime(2024, 1, 10, tzinfo=UTC), dt.datetime(2024, 1, 20, tzinfo=UTC)),
     "date", True, lambda r: Gt(r, lit(dt.date(2024, 1, 21), "date")), SKIP,
     "Should skip: no zone puts 20 Jan 00:00 UTC after 21 Jan"),
    (VariantType.TIMESTAMP_NANOS, None, None, (dt.datetime(2024, 1, 10, tzinfo=UTC), dt.datetime(2024, 1, 20, tzinfo=UTC)),
     "timestamp", True, lambda r: Gt(r, lit(dt.datetime(2025, 1, 1, tzinfo=UTC), "timestamp")), READ,
     "Should read: nanosecond values are not modelled"),
]


@pytest.mark.parametrize(
    ("vt", "precision", "scale", "bounds", "target", "strict", "build", "expected", "reason"), CASTS
)
def test_cast_safety(
    vt: VariantType,
    precision: int | None,
    scale: int | None,
    bounds: tuple[object, object],
    target: str,
    strict: bool,
    build: Callable[[LeafRef], BooleanExpression],
    expected: bool,
    reason: str,
) -> None:
    ref = leaf(vt, target, strict=strict, precision=precision, scale=scale)
    check(build(ref), typed(*bounds), expected, reason)


def test_is_null_and_casts() -> None:
    wide = typed(10, 3_000_000_000)
    check(IsNull(leaf(target="int")), typed(10, 20), SKIP, "Should skip: values cast to int, no nulls")
    check(IsNull(leaf(target="int")), wide, READ, "Should read: the strict cast may raise")
    check(IsNull(leaf(target="int", strict=False)), wide, READ, "Should read: failed try casts are NULL")
    check(IsNull(leaf(VariantType.INT32, "bigint")), group(ROWS, column(TYPED, 0), no_residual()), SKIP,
          "Should skip: int32 to bigint never fails, even without bounds")


def test_literal_compared_in_a_wider_type() -> None:
    ref = leaf(target="bigint")
    check(Gt(ref, lit(20.5, "double")), "fully_shredded", SKIP, "Should skip: 20 < 20.5 as doubles")
    check(Gt(ref, lit(19.5, "double")), "fully_shredded", READ, "Should read: 20 > 19.5")


# -- partitions ----------------------------------------------------------------------------------
def test_partition_values_decide_files() -> None:
    year = PartitionRef("year", T("int"))
    evaluator = InclusiveStatsEvaluator(And(Eq(year, lit(2024, "int")), Gt(A, lit(5))))
    assert evaluator.evaluate_file({"year": 2023}, None) == SKIP, "Should skip: year=2023 != 2024"
    assert evaluator.evaluate_file({"year": 2024}, None) == READ, "Should read: year matches"
    assert evaluator.evaluate_file({"YEAR": 2023}, None) == SKIP, "Should match names ignoring case"
    assert evaluator.evaluate_file({}, None) == READ, "Should read: partition value unknown"
    assert evaluator.evaluate_file({"year": None}, None) == SKIP, "Should skip: NULL = 2024 is never TRUE"
    nulls = InclusiveStatsEvaluator(IsNull(year))
    assert nulls.evaluate_file({"year": 2023}, None) == SKIP, "Should skip: the value is not NULL"
    assert nulls.evaluate_file({"year": None}, None) == READ
    assert InclusiveStatsEvaluator(NotEq(year, lit(2023, "int"))).evaluate_file({"year": 2023}, None) == SKIP
    either = InclusiveStatsEvaluator(Or(Eq(year, lit(2024, "int")), Gt(A, lit(15))))
    assert either.evaluate(FIXTURES["fully_shredded"], {"year": 2023}) == READ
    assert either.evaluate(typed(1, 5), {"year": 2023}) == SKIP, "Should skip: neither side can match"


def test_evaluate_file_uses_merged_statistics(tmp_path: Path) -> None:
    path = tmp_path / "f.parquet"
    pq.write_table(pa.table({"id": list(range(10))}), path, row_group_size=4)
    info = Catalog().file_info(str(path))
    ref = ColumnRef("id", T("bigint"))
    bound = bind(Gt(ref, lit(20)), info)
    assert InclusiveStatsEvaluator(bound).evaluate_file(None, info.statistics) == SKIP
    assert evaluate_row_groups(bind(Gt(ref, lit(6)), info), info.statistics) == (1, 2)
    assert evaluate_row_groups(bind(Gt(ref, lit(20)), info), info.statistics) == ()


# -- binding and NOT -------------------------------------------------------------------------------
def spark_resolver(partitions: tuple[str, ...] = ()) -> Callable[[exp.Expression], object]:
    def resolve(node: exp.Expression) -> object:
        if isinstance(node, exp.Anonymous) and node.name.lower() in ("variant_get", "try_variant_get"):
            col, path, type_text = node.expressions
            target = SqlType.parse(type_text.name)
            if target is None:
                return None
            steps = tuple(p for p in str(path.name)[2:].split(".") if p)
            return VariantRef(col.name, steps, target, node.name.lower() == "variant_get")
        if isinstance(node, exp.Column) and node.name in partitions:
            return PartitionRef(node.name, T("int"))
        if isinstance(node, exp.Column) and node.name in ("id", "x"):
            return ColumnRef(node.name, T("bigint"))
        if isinstance(node, exp.Column) and node.name == "t":
            return ColumnRef("t", T("tinyint"))
        if isinstance(node, exp.Column) and node.name == "f":
            return ColumnRef("f", T("double"))
        return None

    return resolve


def where(sql: str, *, zone: str | None = None, partitions: tuple[str, ...] = ()) -> BooleanExpression:
    return bind_sqlglot(sqlglot.parse_one(sql, read="spark"), spark_resolver(partitions), session_time_zone=zone)


X = ColumnRef("x", T("bigint"))


def test_not_of_unknown_does_not_prune() -> None:
    assert where("NOT f(id)") == ALWAYS_TRUE, "Should bind NOT(unknown) to TRUE, not FALSE"
    assert where("NOT (x > 5 AND f(id))") == ALWAYS_TRUE, "Should keep an unknown disjunct TRUE"
    assert where("NOT (x > 5 OR f(id))") == LtEq(X, lit(5)), "Should drop an unknown conjunct"
    assert rewrite_not(where("NOT NOT x > 5")) == Gt(X, lit(5))


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("NOT x > 5", LtEq(X, lit(5))),
        ("NOT x = 5", NotEq(X, lit(5))),
        ("5 < x", Gt(X, lit(5))),
        ("x BETWEEN 1 AND 3", And(GtEq(X, lit(1)), LtEq(X, lit(3)))),
        ("x NOT BETWEEN 1 AND 3", Or(Lt(X, lit(1)), Gt(X, lit(3)))),
        ("x IN (1)", Eq(X, lit(1))),
        ("x IN (1, NULL)", Eq(X, lit(1))),
        ("x IN (NULL)", ALWAYS_FALSE),
        ("x NOT IN (1, NULL)", ALWAYS_FALSE),
        ("x NOT IN (1, 2)", NotIn(X, (lit(1), lit(2)))),
        ("x = NULL", ALWAYS_FALSE),
        ("NOT x = NULL", ALWAYS_FALSE),
        ("x IS NOT NULL", NotNull(X)),
        ("NOT x IS NULL", NotNull(X)),
        ("x > 5.5", Gt(X, lit(D("5.5"), "decimal(21,1)"))),
        ("x > 1e3", Gt(X, lit(1000.0, "double"))),
        ("x > 5.5D", Gt(X, lit(5.5, "double"))),
        ("x > 5L", Gt(X, lit(5))),
        ("x > -5", Gt(X, lit(-5))),
        ("x = '12'", Eq(X, lit(12))),
        ("x = 'abc'", ALWAYS_TRUE),
        ("x > y", ALWAYS_TRUE),
        ("t > 300", ALWAYS_FALSE),
        ("t < 300", NotNull(ColumnRef("t", T("tinyint")))),
        ("t = 1.5", ALWAYS_FALSE),
        ("f > 1", Gt(ColumnRef("f", T("double")), lit(1.0, "double"))),
        ("x <=> 1", ALWAYS_TRUE),
        ("x > 1 AND TRUE", Gt(X, lit(1))),
        ("x > 1 OR FALSE", Gt(X, lit(1))),
        # Spark compares a float with an int in double: the float 16777216 is < 16777217.
        ("variant_get(v, '$.a', 'float') < 16777217", Lt(VariantRef("v", ("a",), T("float")), lit(16777217.0, "double"))),
        ("variant_get(v, '$.a', 'double') IN ('404', '2024-01-01')", ALWAYS_TRUE),
    ],
)
def test_bind_sqlglot(sql: str, expected: BooleanExpression) -> None:
    assert where(sql) == expected


def test_bind_sqlglot_literal_types() -> None:
    ref = VariantRef("v", ("a",), T("timestamp"))
    got = where("variant_get(v, '$.a', 'timestamp') < TIMESTAMP '2024-01-01 10:00:00'", zone="Europe/Paris")
    assert got == Lt(ref, lit(dt.datetime(2024, 1, 1, 9, tzinfo=UTC), "timestamp")), "Should apply the zone"
    assert where("variant_get(v, '$.a', 'timestamp') < TIMESTAMP '2024-01-01 10:00:00'") == ALWAYS_TRUE, (
        "Should not guess a session zone"
    )
    got = where("variant_get(v, '$.a', 'timestamp') < TIMESTAMP '2024-01-01 10:00:00+01:00'")
    assert got == Lt(ref, lit(dt.datetime(2024, 1, 1, 9, tzinfo=UTC), "timestamp"))
    day = VariantRef("v", ("d",), T("date"))
    assert where("variant_get(v, '$.d', 'date') = DATE '2024-02-29'") == Eq(day, lit(dt.date(2024, 2, 29), "date"))
    assert where("variant_get(v, '$.d', 'date') = '2024-02-29'") == Eq(day, lit(dt.date(2024, 2, 29), "date"))
    assert where("variant_get(v, '$.d', 'date') = '2024-02-30'") == ALWAYS_TRUE
    nan = where("variant_get(v, '$.c', 'double') = CAST('NaN' AS DOUBLE)")
    assert isinstance(nan, Eq) and math.isnan(nan.literal.value)
    assert where("try_variant_get(v, '$.a', 'int') > 1") == Gt(VariantRef("v", ("a",), T("int"), False), lit(1, "int"))
    strings = where("variant_get(v, '$.s', 'string') IN ('a', 'b', 'a')")
    assert strings == in_(VariantRef("v", ("s",), T("string")), [lit("a", "string"), lit("b", "string")])
    assert where("x IN (1, 2.5D)") == in_(X, [lit(1.0, "double"), lit(2.5, "double")]), (
        "Should compare the whole list as double when one literal is"
    )
    assert where("x IN (1, 'a')") == ALWAYS_TRUE, "Should not guess mixed-kind coercions"
    assert not_in(X, []) == NotNull(X)


def _draft_file(path: Path) -> None:
    level = pa.struct([pa.field("untyped_value", pa.binary()), pa.field("typed_value", pa.int64())])
    v = pa.StructArray.from_arrays(
        [pa.array([None], pa.binary()), pa.StructArray.from_arrays(
            [pa.StructArray.from_arrays([pa.array([None], pa.binary()), pa.array([5])], fields=list(level))],
            fields=[pa.field("a", level, nullable=False)])],
        fields=[pa.field("untyped_value", pa.binary()), pa.field("object", pa.struct([pa.field("a", level, False)]))],
    )
    pq.write_table(pa.table({"v": v, "ids": pa.array([[1, 2]])}), path)


def test_bind_to_files(tmp_path: Path) -> None:
    draft = tmp_path / "draft.parquet"
    _draft_file(draft)
    info = Catalog().file_info(str(draft))
    bound = bind(Eq(VariantRef("v", ("a",), T("bigint")), lit(5)), info)
    assert isinstance(bound, Eq) and isinstance(bound.term, LeafRef)
    assert (bound.term.column_path, bound.term.value_path) == ("v.object.a.typed_value", "v.object.a.untyped_value")
    assert evaluate_row_groups(bound, info.statistics) == (0,)
    assert evaluate_row_groups(bind(Eq(VariantRef("v", ("a",), T("bigint")), lit(6)), info), info.statistics) == ()
    missing = bind(Eq(VariantRef("v", ("zz",), T("int")), lit(1, "int")), info)
    assert isinstance(missing, Eq) and missing.term == LeafRef(None, "v.untyped_value", None, T("int"))
    assert evaluate_row_groups(missing, info.statistics) == (), "Should skip: field zz exists nowhere"
    assert bind(Eq(VariantRef("w", ("a",), T("int")), lit(1, "int")), info) == ALWAYS_TRUE
    assert bind(Eq(VariantRef("v", (), T("int")), lit(1, "int")), info) == ALWAYS_TRUE, (
        "Should not model a cast of a shredded object"
    )
    assert bind(Eq(ColumnRef("ids.list.element", T("bigint")), lit(1)), info) == ALWAYS_TRUE, (
        "Should not use leaves under lists"
    )
    assert bind(Eq(ColumnRef("v", T("bigint")), lit(1)), info) == ALWAYS_TRUE


# -- real files --------------------------------------------------------------------------------
def _row_groups(info_path: Path, sql: str) -> tuple[int, ...]:
    info = Catalog().file_info(str(info_path))
    return evaluate_row_groups(bind(where(sql), info), info.statistics)


@pytest.fixture(scope="module")
def duckdb_events(tmp_path_factory: pytest.TempPathFactory) -> Path:
    select = """
        SELECT i AS id,
               CASE WHEN i = 5000 THEN {'a': 'x'}::VARIANT
                    ELSE {'a': i, 'd': (i / 4)::DECIMAL(9, 2)}::VARIANT END AS v
        FROM range(10000) t(i)
    """
    return write_with_duckdb(tmp_path_factory.mktemp("events") / "e.parquet", select,
                             "STRUCT(a BIGINT, d DECIMAL(9, 2))", 2048)[0]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("variant_get(v, '$.a', 'bigint') < 100", (0, 2)),
        ("variant_get(v, '$.a', 'bigint') > 9000", (2, 4)),
        ("variant_get(v, '$.a', 'int') = 6000", (2,)),
        ("variant_get(v, '$.d', 'decimal(9,2)') >= 2400", (4,)),
        ("variant_get(v, '$.zz', 'int') = 1", ()),
        ("try_variant_get(v, '$.a', 'tinyint') > 5", (0, 2)),
        ("variant_get(v, '$.a', 'tinyint') > 5", (0, 1, 2, 3, 4)),
        ("id BETWEEN 2000 AND 2100", (0, 1)),
        ("NOT (id < 9000 OR f(id))", (4,)),
        ("variant_get(v, '$.a', 'bigint') IS NULL", (2,)),
        ("variant_get(v, '$.a', 'double') > 9000.5D", (2, 4)),
    ],
)
def test_duckdb_file(duckdb_events: Path, sql: str, expected: tuple[int, ...]) -> None:
    assert _row_groups(duckdb_events, sql) == expected, "Should skip exactly the row groups without a match"


@pytest.mark.spark
def test_spark_file_and_spark_agrees(tmp_path: Path, spark: SparkSession) -> None:
    select = """
        SELECT id, CASE WHEN id = 15 THEN parse_json('{"a": "n/a"}')
                        ELSE parse_json(concat('{"a": ', id, '}')) END AS v
        FROM range(40)
    """
    (path,) = write_with_spark(spark, tmp_path / "s", select, "a bigint", 10)
    sql = "variant_get(v, '$.a', 'bigint') BETWEEN 22 AND 24 OR variant_get(v, '$.a', 'bigint') = 3"
    kept = _row_groups(path, sql)
    assert kept == (0, 1, 2), "Should skip row group 3 only: row group 1 has the residual 'n/a'"
    spark.read.parquet(str(path)).createOrReplaceTempView("pruned")
    matching = spark.sql("SELECT id FROM pruned WHERE try_variant_get(v, '$.a', 'bigint') BETWEEN 22 AND 24 "
                         "OR try_variant_get(v, '$.a', 'bigint') = 3").collect()
    assert sorted(r.id // 10 for r in matching) == [0, 2, 2, 2], "Should agree with Spark's rows"


@pytest.mark.spark
def test_float_leaf_against_an_int_literal(tmp_path: Path, spark: SparkSession) -> None:
    select = """
        SELECT id, CASE WHEN id = 3 THEN parse_json('{"a": "x"}')
                        ELSE to_variant_object(named_struct('a', cast(16777216 + id AS float))) END AS v
        FROM range(4)
    """
    (path,) = write_with_spark(spark, tmp_path / "s", select, "a float", 2)
    sql = "SELECT id FROM t WHERE try_variant_get(v, '$.a', 'float') < 16777217"
    spark.read.parquet(str(path)).createOrReplaceTempView("t")
    con = vpush.connect(time_zone="UTC")
    con.register("t", path)
    expected = sorted(r.id for r in spark.sql(sql).collect())
    assert expected == [0, 1], "Spark compares the float 16777216 with 16777217 in double"
    assert sorted(con.sql(sql).to_arrow().column("id").to_pylist()) == expected, (
        "Should read row group 0: in double its floats lie below 16777217"
    )


def test_folds_keep_strict_casts_evaluated() -> None:
    strict = VariantRef("v", ("a",), T("tinyint"))
    relaxed = VariantRef("v", ("a",), T("tinyint"), False)
    assert where("variant_get(v, '$.a', 'tinyint') > 300") == NotNull(strict), (
        "Should not fold to FALSE: Spark still casts, and the cast may raise"
    )
    assert where("try_variant_get(v, '$.a', 'tinyint') > 300") == ALWAYS_FALSE
    assert where("variant_get(v, '$.a', 'tinyint') IN (NULL)") == NotNull(strict)
    assert where("variant_get(v, '$.a', 'tinyint') NOT IN (1, NULL)") == NotNull(strict)
    assert where("try_variant_get(v, '$.a', 'tinyint') NOT IN (1, NULL)") == ALWAYS_FALSE
    assert where("try_variant_get(v, '$.a', 'tinyint') < 300") == NotNull(relaxed)
    assert where("variant_get(v, '$.a', 'tinyint') = NULL") == ALWAYS_FALSE, (
        "Should fold: Spark's NullPropagation drops the comparison without evaluating it"
    )


# -- property: a pruned row group holds no matching row ----------------------------------------
# Spark's semantics for the few types generated, in Python. A row's predicate value is the set
# of values it may take: T, F, N (NULL) or E (a strict cast raises); a cast this model does not
# know may be anything. An error is never TRUE: AND with FALSE is FALSE (Spark may short-circuit),
# otherwise it stays an error.
Possible = frozenset[str]
TRUE, FALSE, NULL, ERROR = frozenset("T"), frozenset("F"), frozenset("N"), frozenset("E")
ANY = frozenset("TFNE")
SHREDDING = "struct<a: bigint, b: string, c: double, d: decimal(9,2)>"
_INTS = {VariantType.INT8, VariantType.INT16, VariantType.INT32, VariantType.INT64}
_DECS = {VariantType.DECIMAL4, VariantType.DECIMAL8, VariantType.DECIMAL16}
_FAIL = object()
_UNKNOWN = object()
_NULL_VALUE = object()


def _value_strategy() -> st.SearchStrategy[object]:
    typed_a = st.integers(-300, 300) | st.sampled_from([3_000_000_000, -3_000_000_000, 127, 128])
    typed_b = st.sampled_from(["", "a", "ab", "b", "k", "z", "é"])
    typed_c = st.sampled_from([-1.5, 0.0, -0.0, 2.5, 7.0, 1e300, math.inf, -math.inf, math.nan])
    typed_d = st.integers(-1000, 1000).map(lambda n: D(n).scaleb(-2))
    residual = st.sampled_from(["x", "12", True, None, D("1.5"), 7, [1], {"q": 1}])
    fields = {
        "a": st.one_of(typed_a, typed_a, typed_a, residual),
        "b": st.one_of(typed_b, typed_b, residual),
        "c": st.one_of(typed_c, typed_c, residual),
        "d": st.one_of(typed_d, typed_d, residual),
        "e": st.integers(0, 3),
    }
    obj = st.fixed_dictionaries({}, optional=fields)
    return st.one_of(obj, obj, obj, obj, obj, obj, st.none(), st.sampled_from([5, "s"]))


_CLEAN = st.fixed_dictionaries(
    {"a": st.integers(-300, 300), "c": st.sampled_from([-1.5, 2.5, 7.0, math.nan])},
    optional={"b": st.sampled_from(["a", "ab", "k"]), "d": st.integers(-500, 500).map(lambda n: D(n).scaleb(-2))},
)


@st.composite
def _tables(draw: st.DrawFn) -> tuple[list[object], int]:
    # Row groups either mix everything or hold only shredded values (so that some get pruned).
    groups = draw(st.integers(1, 4))
    size = draw(st.integers(2, 10))
    rows: list[object] = []
    for _ in range(groups):
        values = _value_strategy() if draw(st.booleans()) else _CLEAN
        rows.extend(draw(st.lists(values, min_size=size, max_size=size)))
    return rows, size


_TARGETS = {
    "a": ["bigint", "int", "tinyint", "decimal(5,1)", "double", "string"],
    "b": ["string"],
    "c": ["double", "bigint"],
    "d": ["decimal(9,2)", "decimal(4,1)", "int", "double"],
    "zz": ["int"],
}
_LITERALS = {
    "a": ["0", "5", "-7", "127", "200", "300", "3000000000", "12.5", "12.5D", "'ab'"],
    "b": ["''", "'a'", "'ab'", "'k'", "'é'", "'zz'"],
    "c": ["0.0D", "2.5D", "7", "CAST('NaN' AS DOUBLE)", "CAST('Infinity' AS DOUBLE)", "-2.0D"],
    "d": ["0", "1.25", "-3.5", "5", "9.99", "2.5D"],
    "zz": ["1", "-1"],
}
_OPS = ["<", "<=", ">", ">=", "=", "!="]


@st.composite
def _atoms(draw: st.DrawFn) -> tuple[object, ...]:
    kind = draw(st.sampled_from(["cmp", "cmp", "cmp", "in", "between", "isnull", "id", "unknown", "isnan"]))
    if kind == "id":
        return ("id", draw(st.sampled_from(_OPS)), draw(st.integers(-2, 40)))
    if kind == "unknown":
        return ("unknown",)
    field = draw(st.sampled_from(list(_TARGETS)))
    target = draw(st.sampled_from(_TARGETS[field]))
    strict = draw(st.booleans())
    if kind == "isnan":
        return ("isnan", "c", "double", strict)
    if kind == "isnull":
        return ("isnull", field, target, strict)
    lits = _LITERALS[field]
    if kind == "in":
        items = st.sampled_from([*lits, "NULL"])
        return ("in", field, target, strict, tuple(draw(st.lists(items, min_size=1, max_size=3))))
    # No NULL literal in comparisons: Spark folds `x > NULL` away in filters, and whether it then
    # evaluates x depends on where the comparison sits (NOT (x > 0 AND NULL) still raises).
    if kind == "between":
        return ("between", field, target, strict, draw(st.sampled_from(lits)), draw(st.sampled_from(lits)))
    return ("cmp", field, target, strict, draw(st.sampled_from(_OPS)), draw(st.sampled_from(lits)))


def _trees(depth: int = 2) -> st.SearchStrategy[tuple[object, ...]]:
    if depth == 0:
        return _atoms()
    sub = _trees(depth - 1)
    return st.one_of(
        _atoms(),
        st.tuples(st.just("not"), sub),
        st.tuples(st.just("and"), sub, sub),
        st.tuples(st.just("or"), sub, sub),
    )


def _render(tree: tuple[object, ...]) -> str:
    kind = tree[0]
    if kind == "not":
        return f"NOT ({_render(tree[1])})"  # type: ignore[arg-type]
    if kind in ("and", "or"):
        return f"({_render(tree[1])}) {str(kind).upper()} ({_render(tree[2])})"  # type: ignore[arg-type]
    if kind == "id":
        return f"id {tree[1]} {tree[2]}"
    if kind == "unknown":
        return "rand_fn(id) > 0"
    _, field, target, strict = tree[:4]
    call = f"{'variant_get' if strict else 'try_variant_get'}(v, '$.{field}', '{target}')"
    if kind == "isnan":
        return f"isnan({call})"
    if kind == "isnull":
        return f"{call} IS NULL"
    if kind == "in":
        return f"{call} IN ({', '.join(tree[4])})"  # type: ignore[arg-type]
    if kind == "between":
        return f"{call} BETWEEN {tree[4]} AND {tree[5]}"
    return f"{call} {tree[4]} {tree[5]}"


def _literal_value(text: str) -> tuple[object, bool]:
    """(value, compares as double) of a generated literal; value None for NULL."""
    if text == "NULL":
        return None, False
    if text.startswith("CAST("):
        return (math.nan if "NaN" in text else math.inf), True
    if text.startswith("'"):
        return text[1:-1], False
    if text.endswith("D"):
        return float(text[:-1]), True
    return (D(text) if "." in text else int(text)), False


def _cast(node: Variant, target: str) -> object:
    """Spark's variant cast of one value (as measured: strings parse, booleans are 1/0, objects
    and arrays fail), or _UNKNOWN where this model stops."""
    vt = node.type
    if vt in (VariantType.OBJECT, VariantType.ARRAY):
        return _FAIL
    x = node.scalar()
    if vt == VariantType.BOOLEAN:
        if target == "string":
            return "true" if x else "false"
        x = int(x)
    elif vt == VariantType.STRING:
        if target == "string":
            return x
        if not re.fullmatch(r"[+-]?[0-9]+", x.strip()):
            return _FAIL
        x = int(x)
    if target == "string":
        return str(x) if isinstance(x, int) else _UNKNOWN
    if target == "double":
        return float(x)
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            return _FAIL
        if target.startswith("decimal"):
            return _UNKNOWN
        x = int(x)  # Spark truncates toward zero
    if target.startswith("decimal"):
        precision, scale = (int(p) for p in target[8:-1].split(","))
        q = D(x).quantize(D(1).scaleb(-scale), rounding=decimal.ROUND_HALF_UP)
        return q if abs(q) < D(10) ** (precision - scale) else _FAIL
    low, high = T(target).int_range
    n = int(x)  # a decimal truncates toward zero
    return n if low <= n <= high else _FAIL


def _extract(row: Variant | None, field: str, target: str, strict: bool) -> object:
    """The extraction's value, _NULL_VALUE, _UNKNOWN, or _FAIL (a strict cast error)."""
    if row is None or row.type != VariantType.OBJECT:
        return _NULL_VALUE
    node = row.get(field)
    if node is None or node.is_null():
        return _NULL_VALUE
    value = _cast(node, target)
    if value is _FAIL and not strict:
        return _NULL_VALUE
    return value


def _order(x: object) -> tuple[object, ...]:
    return (1,) if isinstance(x, float) and math.isnan(x) else (0, x)


def _compare(x: object, op: str, text: str) -> Possible:
    value, as_double = _literal_value(text)
    if value is None:
        return NULL  # Spark folds a comparison with NULL away, unevaluated (NullPropagation)
    if x is _FAIL:
        return ERROR
    if x is _UNKNOWN:
        return ANY
    if x is _NULL_VALUE:
        return NULL
    if isinstance(x, str) != isinstance(value, str):
        return ANY  # Spark would cast the string side
    if as_double and not isinstance(x, str):
        x = float(x)  # type: ignore[arg-type]
    a, b = _order(x), _order(value)
    result = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "=": a == b, "!=": a != b}[op]
    return TRUE if result else FALSE


def _not(v: Possible) -> Possible:
    return frozenset({"T": "F", "F": "T"}.get(x, x) for x in v)


def _and(a: Possible, b: Possible) -> Possible:
    def one(x: str, y: str) -> str:
        if "F" in (x, y):
            return "F"
        if "E" in (x, y):
            return "E"
        return "T" if x == y == "T" else "N"

    return frozenset(one(x, y) for x in a for y in b)


def _or(a: Possible, b: Possible) -> Possible:
    return _not(_and(_not(a), _not(b)))


def _evaluate(tree: tuple[object, ...], row_id: int, row: Variant | None) -> Possible:
    kind = tree[0]
    if kind == "not":
        return _not(_evaluate(tree[1], row_id, row))  # type: ignore[arg-type]
    if kind == "and":
        return _and(_evaluate(tree[1], row_id, row), _evaluate(tree[2], row_id, row))  # type: ignore[arg-type]
    if kind == "or":
        return _or(_evaluate(tree[1], row_id, row), _evaluate(tree[2], row_id, row))  # type: ignore[arg-type]
    if kind == "id":
        return _compare(row_id, str(tree[1]), str(tree[2]))
    if kind == "unknown":
        return ANY
    _, field, target, strict = tree[:4]
    x = _extract(row, str(field), str(target), bool(strict))
    if kind in ("isnull", "isnan") and (x is _FAIL or x is _UNKNOWN):
        return ERROR if x is _FAIL else ANY
    if kind == "isnull":
        return TRUE if x is _NULL_VALUE else FALSE
    if kind == "isnan":
        return TRUE if isinstance(x, float) and math.isnan(x) else FALSE
    if kind == "between":
        return _and(_compare(x, ">=", str(tree[4])), _compare(x, "<=", str(tree[5])))
    if kind == "in":
        if x is _FAIL or x is _UNKNOWN:
            return ERROR if x is _FAIL else ANY  # IN evaluates x even with NULL literals
        result = FALSE
        for item in tree[4]:  # type: ignore[attr-defined]
            result = _or(result, _compare(x, "=", str(item)))
        return result
    return _compare(x, str(tree[4]), str(tree[5]))


def _subtrees(tree: tuple[object, ...]) -> list[tuple[object, ...]]:
    found = [tree]
    if tree[0] == "not":
        found += _subtrees(tree[1])  # type: ignore[arg-type]
    elif tree[0] in ("and", "or"):
        found += _subtrees(tree[1]) + _subtrees(tree[2])  # type: ignore[arg-type]
    return found


def _is_atom(tree: tuple[object, ...]) -> bool:
    return tree[0] not in ("and", "or") and (tree[0] != "not" or _is_atom(tree[1]))  # type: ignore[arg-type]


def _write(rows: list[object], size: int, path: Path) -> None:
    encoded = [encode(r) if r is not None else None for r in rows]
    v = pa.array(
        [{"metadata": m, "value": x} if (m, x) != (None, None) else None for m, x in
         (e if e is not None else (None, None) for e in encoded)],
        pa.struct([("metadata", pa.binary()), ("value", pa.binary())]),
    )
    table = pa.table({"id": pa.array(range(len(rows)), pa.int64()), "v": v})
    write_shredded_parquet(table, path, {"v": SHREDDING}, row_group_size=size)


@given(table=_tables(), trees=st.lists(_trees(), min_size=1, max_size=3))
def test_pruned_row_groups_hold_no_match(
    tmp_path_factory: pytest.TempPathFactory, table: tuple[list[object], int], trees: list[tuple[object, ...]]
) -> None:
    rows, size = table
    path = tmp_path_factory.mktemp("prop") / "p.parquet"
    _write(rows, size, path)
    info = Catalog().file_info(str(path))
    layout = find_variant_columns(pq.ParquetFile(path))["v"]
    parquet = pq.ParquetFile(path)
    decoded: dict[int, list[tuple[int, Variant | None]]] = {}

    def rows_of(rg: int) -> list[tuple[int, Variant | None]]:
        if rg not in decoded:
            read = parquet.read_row_group(rg, columns=["id", "v"])
            values = unshred(layout, read.column("v")).to_pylist()
            decoded[rg] = [
                (i, Variant(x["metadata"], x["value"]) if x is not None else None)
                for i, x in zip(read.column("id").to_pylist(), values)
            ]
        return decoded[rg]

    for tree in trees:
        for sub in _subtrees(tree):
            sql = _render(sub)
            kept = set(evaluate_row_groups(bind(where(sql), info), info.statistics))
            # An atom must not skip a row that might match or raise; a combination must not skip
            # a row that might match (a raising atom inside is checked on its own).
            forbidden = {"T", "E"} if _is_atom(sub) else {"T"}
            for rg in set(range(info.num_row_groups)) - kept:
                for row_id, row in rows_of(rg):
                    got = _evaluate(sub, row_id, row)
                    assert not got & forbidden, (
                        f"Should not skip row group {rg}: {sql!r} may be {sorted(got)} for row {row_id} "
                        f"{row.to_python() if row is not None else None!r}"
                    )


# Residuals that are all variant nulls (b"\x00") extract as SQL NULL: null-rejecting predicates
# can trust the typed bounds; IS NULL cannot (those rows are NULL).
VARIANT_NULL_RESIDUALS = group(ROWS, column(TYPED, 5, 10, 20), column(VALUE, ROWS - 5, b"\x00", b"\x00"))
NEAR_NULL_RESIDUALS = group(ROWS, column(TYPED, 5, 10, 20), column(VALUE, ROWS - 5, b"\x00", b"\x00\x01"))


@pytest.mark.parametrize(
    ("expression", "expected", "reason"),
    [
        (Gt(A, lit(21)), SKIP, "Should skip: variant-null residuals are NULL, typed values all <= 20"),
        (Eq(A, lit(15)), READ, "Should read: 15 is inside the typed bounds"),
        (In(A, (lit(1), lit(30))), SKIP, "Should skip: no IN literal inside the bounds"),
        (NotNull(A), READ, "Should read: typed values exist"),
        (IsNull(A), READ, "Should read: the variant-null rows extract as NULL"),
        (Lt(leaf(VariantType.INT64, "bigint", strict=False), lit(5)), SKIP, "Should skip: try_ form too"),
    ],
)
def test_variant_null_residuals(expression: BooleanExpression, expected: bool, reason: str) -> None:
    check(expression, VARIANT_NULL_RESIDUALS, expected, reason)


def test_residuals_beyond_the_variant_null_are_read() -> None:
    check(Gt(A, lit(21)), NEAR_NULL_RESIDUALS, READ, "Should read: a residual other than the variant null")
