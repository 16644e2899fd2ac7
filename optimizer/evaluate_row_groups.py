"""Decide from footer statistics which row groups (and files) might hold a row that matches.

:class:`InclusiveStatsEvaluator` takes a bound expression (:func:`vpush.optimizer.bound.bind`)
and answers ``ROWS_MIGHT_MATCH`` or ``ROWS_CANNOT_MATCH`` for one row group, or for one file from
its partition values and merged statistics. It answers CANNOT only with a proof, written next to
each such branch; everything it cannot prove is MIGHT: missing or partial statistics, a NaN bound,
an unknown cast, ``!=`` and ``NOT IN`` without an equality proof, an IN list over
:data:`IN_PREDICATE_LIMIT`.

Variant leaves: a ``typed_value`` leaf's statistics describe only the rows that were shredded, so
they count only when the sibling ``value`` column is all-null in the row group, or (for the
null-rejecting predicates, never IS NULL) holds only variant nulls, which extract as NULL: its
bounds are then both ``0x00``. The spec forbids a
shredded field from also appearing in an ancestor's residual ``value``, so the leaf alone decides
which rows hold the field; a row whose ancestor object is missing or is not an object extracts
NULL, and its leaf is null too.

Casts: the statistics are in the leaf's type; the predicate compares in ``LeafRef.target``
(variant_get's type) and then in the literal's type. Each bound is carried through the cast
(:func:`_cast_range`), exactly where the cast preserves values and order, widened where it rounds
or depends on the session time zone (by the widest zone offset, 18 hours, so no zone is needed).
A strict ``variant_get`` whose cast might fail on a value in the bounds answers MIGHT: skipping the
row group would hide Spark's ``INVALID_VARIANT_CAST``. ``try_variant_get`` turns those values into
NULL, so the bounds are clipped to the values that cast.

The cast table (source leaf type -> target type: how the bounds go through):

```
source               target                 bounds
same type            same type              as they are
int8..int64          tinyint..bigint        as they are; values outside the target range fail
int8..int64          decimal(p,s)           as they are; |v| >= 10^(p-s) fails
int8..int64          double                 exact within 2^53, else widened one ulp outward
int8..int64          float                  exact within 2^24, else unknown
decimal(.,s1)        decimal(p,s), s >= s1  as they are; |v| >= 10^(p-s) fails
decimal(.,s1)        decimal(p,s), s < s1   rounded outward to scale s (Spark rounds half up)
decimal(.,s1)        tinyint..bigint        exact if s1 = 0, else floor/ceil (Spark truncates)
decimal              double                 widened one ulp outward
float                double                 exact
date                 timestamp_ntz          midnight, exact
date                 timestamp              midnight UTC -/+ 18 h (session zone unknown)
timestamp            timestamp_ntz          -/+ 18 h;  timestamp -> date: dates of -/+ 18 h
timestamp_ntz        timestamp              -/+ 18 h;  timestamp_ntz -> date: the dates
anything else        (string to number, number to string, double to float, nanos, uuid...)  unknown
```
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import math
from collections.abc import Mapping
from typing import Any

from vpush.codec.header import VariantType
from vpush.optimizer.bound import (
    AlwaysFalse,
    AlwaysTrue,
    And,
    BooleanExpression,
    Eq,
    Gt,
    GtEq,
    In,
    IsNaN,
    IsNull,
    LeafRef,
    Literal,
    LiteralPredicate,
    Lt,
    LtEq,
    NotEq,
    NotIn,
    NotNaN,
    NotNull,
    Or,
    PartitionRef,
    SqlType,
    Term,
    rewrite_not,
)
from vpush.optimizer.statistics import FileStatistics, RowGroupStatistics

__all__ = [
    "IN_PREDICATE_LIMIT",
    "ROWS_CANNOT_MATCH",
    "ROWS_MIGHT_MATCH",
    "InclusiveStatsEvaluator",
    "cast_may_fail",
    "evaluate_row_groups",
]

ROWS_MIGHT_MATCH = True
"""Some row of the row group (or file) might match: read it."""
ROWS_CANNOT_MATCH = False
"""No row of the row group (or file) can match: skip it."""
IN_PREDICATE_LIMIT = 200
"""An IN list longer than this is not checked against bounds (answer MIGHT)."""
MAX_ZONE_OFFSET = dt.timedelta(hours=18)
"""The widest UTC offset a time zone can have (Java's ZoneOffset bound)."""
MAX_EXACT_DOUBLE_INT = 2**53
_VARIANT_NULL = b"\x00"
"""The value bytes of a variant null (basic type primitive, type id 0)."""
MAX_EXACT_FLOAT_INT = 2**24

_UTC = dt.timezone.utc
_WIDE = decimal.Context(prec=100)
_LEAF_TYPES = {
    VariantType.BOOLEAN: SqlType("boolean"),
    VariantType.INT8: SqlType("tinyint"),
    VariantType.INT16: SqlType("smallint"),
    VariantType.INT32: SqlType("int"),
    VariantType.INT64: SqlType("bigint"),
    VariantType.FLOAT: SqlType("float"),
    VariantType.DOUBLE: SqlType("double"),
    VariantType.DATE: SqlType("date"),
    VariantType.TIMESTAMP: SqlType("timestamp"),
    VariantType.TIMESTAMP_NTZ: SqlType("timestamp_ntz"),
    VariantType.STRING: SqlType("string"),
    VariantType.BINARY: SqlType("binary"),
}
_DECIMALS = (VariantType.DECIMAL4, VariantType.DECIMAL8, VariantType.DECIMAL16)
_INT_DIGITS = {"tinyint": 3, "smallint": 5, "int": 10, "bigint": 20}


# -- casting bounds ----------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _Mapped:
    """Bounds after a cast: every value in the source bounds either fails the cast or lands in
    [lo, hi]. ``failures``: some value may fail; ``empty``: every value fails; ``exact``: lo and
    hi are the casts of the source bounds themselves (no widening, no clipping)."""

    lo: Any
    hi: Any
    failures: bool = False
    exact: bool = True
    empty: bool = False


def _clamp(lo: Any, hi: Any, low: Any, high: Any, exact: bool) -> _Mapped:
    failures = lo < low or hi > high
    if max(lo, low) > min(hi, high):
        return _Mapped(None, None, failures=True, exact=False, empty=True)
    return _Mapped(max(lo, low), min(hi, high), failures=failures, exact=exact and not failures)


def _widened_double(lo: Any, hi: Any) -> _Mapped:
    # A correctly or differently rounded cast lands within one ulp of the nearest double.
    return _Mapped(math.nextafter(float(lo), -math.inf), math.nextafter(float(hi), math.inf), exact=False)


def _max_magnitude(target: SqlType) -> decimal.Decimal:
    assert target.precision is not None and target.scale is not None  # for mypy: decimals have both
    return _WIDE.subtract(
        decimal.Decimal(10) ** (target.precision - target.scale), decimal.Decimal(1).scaleb(-target.scale)
    )


def _cast_range(source: SqlType, target: SqlType, lo: Any, hi: Any) -> _Mapped | None:
    """Where a cast from ``source`` to ``target`` takes the values in [lo, hi], or None when
    that is not modelled (see the table in the module docstring)."""
    s, t = source.name, target.name
    try:
        if s == t and s != "decimal":
            return _Mapped(lo, hi)
        if source.is_integral:
            if target.is_integral:
                low, high = target.int_range
                return _clamp(lo, hi, low, high, exact=True)
            if t == "decimal":
                assert target.precision is not None and target.scale is not None  # for mypy
                largest = 10 ** (target.precision - target.scale) - 1
                return _clamp(lo, hi, -largest, largest, exact=True)
            if t == "double":
                if max(abs(lo), abs(hi)) <= MAX_EXACT_DOUBLE_INT:
                    return _Mapped(lo, hi)
                return _widened_double(lo, hi)
            if t == "float" and max(abs(lo), abs(hi)) <= MAX_EXACT_FLOAT_INT:
                return _Mapped(lo, hi)
            return None
        if s == "decimal":
            assert source.scale is not None  # for mypy: decimals have a scale
            if t == "decimal":
                assert target.scale is not None  # for mypy: decimals have a scale
                largest = _max_magnitude(target)
                if target.scale >= source.scale:
                    return _clamp(lo, hi, -largest, largest, exact=True)
                quantum = decimal.Decimal(1).scaleb(-target.scale)
                low = lo.quantize(quantum, rounding=decimal.ROUND_FLOOR, context=_WIDE)
                high = hi.quantize(quantum, rounding=decimal.ROUND_CEILING, context=_WIDE)
                return _clamp(low, high, -largest, largest, exact=False)
            if target.is_integral:
                low, high = target.int_range
                if source.scale == 0:
                    return _clamp(int(lo), int(hi), low, high, exact=True)
                return _clamp(math.floor(lo), math.ceil(hi), low, high, exact=False)
            if t == "double":
                return _widened_double(lo, hi)
            return None
        if s == "float" and t == "double":
            return _Mapped(lo, hi)
        if s == "date":
            if t == "timestamp_ntz":
                return _Mapped(dt.datetime.combine(lo, dt.time()), dt.datetime.combine(hi, dt.time()))
            if t == "timestamp":
                earliest = dt.datetime.combine(lo, dt.time(), _UTC) - MAX_ZONE_OFFSET
                return _Mapped(earliest, dt.datetime.combine(hi, dt.time(), _UTC) + MAX_ZONE_OFFSET, exact=False)
            return None
        if s == "timestamp":
            if t == "timestamp_ntz":
                low, high = lo.astimezone(_UTC).replace(tzinfo=None), hi.astimezone(_UTC).replace(tzinfo=None)
                return _Mapped(low - MAX_ZONE_OFFSET, high + MAX_ZONE_OFFSET, exact=False)
            if t == "date":
                return _Mapped((lo - MAX_ZONE_OFFSET).date(), (hi + MAX_ZONE_OFFSET).date(), exact=False)
            return None
        if s == "timestamp_ntz":
            if t == "timestamp":
                low, high = lo.replace(tzinfo=_UTC), hi.replace(tzinfo=_UTC)
                return _Mapped(low - MAX_ZONE_OFFSET, high + MAX_ZONE_OFFSET, exact=False)
            if t == "date":
                return _Mapped(lo.date(), hi.date(), exact=False)
            return None
    except (OverflowError, ValueError, TypeError, ArithmeticError):
        return None  # bounds at the edge of the representable range: say nothing
    return None


def _never_fails(source: SqlType, target: SqlType) -> bool:
    """True when every value of ``source`` casts to ``target`` without error or NULL."""
    s, t = source.name, target.name
    if s == t and s != "decimal":
        return True
    if source.is_integral and target.is_integral:
        return target.int_range[0] <= source.int_range[0] and source.int_range[1] <= target.int_range[1]
    if source.is_integral and t == "decimal":
        assert target.precision is not None and target.scale is not None  # for mypy
        return _INT_DIGITS[s] <= target.precision - target.scale
    if s == "decimal" and t == "decimal":
        assert source.precision is not None and source.scale is not None  # for mypy
        assert target.precision is not None and target.scale is not None  # for mypy
        return (
            target.scale >= source.scale
            and target.precision - target.scale >= source.precision - source.scale
        )
    return (s, t) in {
        ("tinyint", "double"),
        ("smallint", "double"),
        ("int", "double"),
        ("bigint", "double"),
        ("decimal", "double"),
        ("float", "double"),
        ("date", "timestamp"),
        ("date", "timestamp_ntz"),
        ("timestamp", "timestamp_ntz"),
        ("timestamp", "date"),
        ("timestamp_ntz", "timestamp"),
        ("timestamp_ntz", "date"),
    }


def _leaf_type(ref: LeafRef) -> SqlType | None:
    if ref.type in _DECIMALS:
        if ref.precision is None or ref.scale is None:
            return None
        return SqlType("decimal", ref.precision, ref.scale)
    return _LEAF_TYPES.get(ref.type) if ref.type is not None else None


# -- values of a term in one row group ---------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _Values:
    """The non-null values of a term, in the compared type, lie in [lo, hi] (Spark's order: NaN
    above every number), or are NaN when ``may_nan`` (Parquet bounds leave NaN out).
    ``exact``: lo and hi are values that occur, and no NaN hides."""

    lo: Any
    hi: Any
    exact: bool
    may_nan: bool = False


_EMPTY = object()  # the term is NULL in every row
_Known = _Values | object | None  # _Values, _EMPTY, or None (nothing known)


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _key(value: Any) -> tuple[Any, ...]:
    """Spark's order: NaN above every number, equal to itself."""
    if isinstance(value, float) and math.isnan(value):
        return (1,)
    return (0, value)


class _RowGroupVisitor:
    """One visit of a bound expression over one row group's statistics."""

    def __init__(self, statistics: RowGroupStatistics, partition_values: Mapping[str, Any] | None) -> None:
        self.statistics = statistics
        self.partition_values = partition_values

    # -- what the statistics say of a term
    def value_all_null(self, ref: LeafRef) -> bool:
        if ref.value_path is None:
            return True  # no value column: every row is shredded or missing
        stats = self.statistics.column(ref.value_path)
        return stats is not None and stats.all_null

    def value_only_variant_nulls(self, ref: LeafRef) -> bool:
        """Whether every non-null ``value`` of the leaf is the variant null (one byte, 0x00):
        those rows extract as SQL NULL, which no null-rejecting predicate keeps."""
        if ref.value_path is None:
            return True
        stats = self.statistics.column(ref.value_path)
        if stats is None or stats.repeated or not stats.has_min_max:
            return False
        # Proof: every value lies between the bounds, and b"\x00" <= v <= b"\x00" only for v == b"\x00".
        return bool(stats.min == _VARIANT_NULL and stats.max == _VARIANT_NULL)

    def partition_value(self, ref: PartitionRef) -> tuple[bool, Any]:
        """(known, value) of a partition column for this file."""
        values = self.partition_values or {}
        if ref.name in values:
            return True, values[ref.name]
        folded = [k for k in values if k.lower() == ref.name.lower()]
        return (True, values[folded[0]]) if len(folded) == 1 else (False, None)

    def values(self, term: Term, compare: SqlType | None) -> _Known:
        """What the non-null values of ``term`` are, cast into ``compare`` (None: the term's own
        type): a :class:`_Values`, ``_EMPTY``, or None."""
        if isinstance(term, PartitionRef):
            known, value = self.partition_value(term)
            if not known:
                return None
            if value is None:
                return _EMPTY
            target = compare if compare is not None else term.type
            if term.type == target or term.type.name == "void":
                return _Values(value, value, exact=True)  # a NaN partition value is its own bound
            mapped = _cast_range(term.type, target, value, value)
            if mapped is None or mapped.failures:
                return None
            return _Values(mapped.lo, mapped.hi, exact=mapped.exact)
        if not isinstance(term, LeafRef):
            return None  # not bound
        if term.variant and not (self.value_all_null(term) or self.value_only_variant_nulls(term)):
            # typed_value statistics describe only the shredded rows. Residual variant nulls
            # extract as NULL: for the null-rejecting predicates that ask for values, they are
            # no row at all (IS NULL does not come here).
            return None
        if term.column_path is None:
            return _EMPTY  # value is all-null and the field has no typed leaf: it is missing
        stats = self.statistics.column(term.column_path)
        if stats is None or stats.repeated:
            return None
        if stats.non_null_count == 0:
            return _EMPTY
        source = _leaf_type(term)
        if source is None or not stats.has_min_max or _is_nan(stats.min) or _is_nan(stats.max):
            return None  # no bounds, or NaN bounds (writers disagree on NaN's place: trust neither)
        mapped = _cast_range(source, term.target, stats.min, stats.max)
        if mapped is None or (mapped.failures and term.strict):
            return None  # unknown cast, or a skip that could hide a cast error
        if mapped.empty:
            return _EMPTY  # try_variant_get: every value fails the cast and becomes NULL
        if compare is not None and compare != term.target:
            second = _cast_range(term.target, compare, mapped.lo, mapped.hi)
            if second is None or second.failures or second.empty:
                return None
            mapped = dataclasses.replace(second, exact=mapped.exact and second.exact)
        compared = compare if compare is not None else term.target
        may_nan = source.is_floating and compared.is_floating
        return _Values(
            mapped.lo, mapped.hi, exact=stats.bounds_exact and mapped.exact and not may_nan, may_nan=may_nan
        )

    # -- the visit
    def visit(self, node: BooleanExpression) -> bool:
        if isinstance(node, AlwaysTrue):
            return ROWS_MIGHT_MATCH
        if isinstance(node, AlwaysFalse):
            # Proof: the condition is FALSE for every row.
            return ROWS_CANNOT_MATCH
        if isinstance(node, And):
            return self.visit(node.left) and self.visit(node.right)
        if isinstance(node, Or):
            return self.visit(node.left) or self.visit(node.right)
        if isinstance(node, IsNull):
            return self.is_null(node.term)
        if isinstance(node, NotNull):
            return self.not_null(node.term)
        if isinstance(node, IsNaN):
            return self.is_nan(node.term)
        if isinstance(node, NotNaN):
            return self.not_nan(node.term)
        if isinstance(node, LiteralPredicate):
            return self.compare(node)
        if isinstance(node, In):
            return self.in_(node)
        if isinstance(node, NotIn):
            return self.not_in(node)
        return ROWS_MIGHT_MATCH  # Not (rewritten away at construction) or something unknown

    def is_null(self, term: Term) -> bool:
        if isinstance(term, PartitionRef):
            known, value = self.partition_value(term)
            if known and value is not None:
                # Proof: every row of the file carries this non-null partition value.
                return ROWS_CANNOT_MATCH
            return ROWS_MIGHT_MATCH
        if not isinstance(term, LeafRef) or term.column_path is None:
            return ROWS_MIGHT_MATCH
        stats = self.statistics.column(term.column_path)
        if stats is None or stats.repeated or stats.null_count != 0:
            return ROWS_MIGHT_MATCH
        if stats.non_null_count != self.statistics.num_rows:
            return ROWS_MIGHT_MATCH
        if not term.variant:
            # Proof: the column has no null in this row group.
            return ROWS_CANNOT_MATCH
        if not self.value_all_null(term):
            return ROWS_MIGHT_MATCH
        source = _leaf_type(term)
        if source is None:
            return ROWS_MIGHT_MATCH
        if not _never_fails(source, term.target):
            mapped = _cast_range(source, term.target, stats.min, stats.max) if stats.has_min_max else None
            if mapped is None or mapped.failures:
                return ROWS_MIGHT_MATCH
        # Proof: every row has a non-null typed leaf (so every ancestor is an object holding the
        # field) and its value casts without failure, so the extraction is never NULL.
        return ROWS_CANNOT_MATCH

    def not_null(self, term: Term) -> bool:
        if isinstance(term, LeafRef) and not term.variant:
            stats = self.statistics.column(term.column_path) if term.column_path is not None else None
            if stats is not None and not stats.repeated and stats.non_null_count == 0:
                # Proof: the column holds no value in this row group.
                return ROWS_CANNOT_MATCH
            return ROWS_MIGHT_MATCH
        if self.values(term, None) is _EMPTY:
            # Proof: no row holds a value (field missing, all NULL, or every cast fails to NULL).
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH

    def is_nan(self, term: Term) -> bool:
        known = self.values(term, None)
        if known is _EMPTY:
            # Proof: isnan(NULL) is FALSE, and no row holds a value.
            return ROWS_CANNOT_MATCH
        if isinstance(known, _Values) and not known.may_nan and not _is_nan(known.hi):
            # Proof: every value is at most a non-NaN bound, and the type cannot hide a NaN.
            return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH

    def not_nan(self, term: Term) -> bool:
        if isinstance(term, PartitionRef):
            known, value = self.partition_value(term)
            if known and isinstance(value, float) and math.isnan(value):
                # Proof: every row of the file has the partition value NaN.
                return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH  # NOT isnan(NULL) is TRUE: null rows match

    def compare(self, node: LiteralPredicate) -> bool:
        known = self.values(node.term, node.literal.type)
        if known is _EMPTY:
            # Proof: no row holds a value, and a comparison with NULL is never TRUE.
            return ROWS_CANNOT_MATCH
        if not isinstance(known, _Values):
            return ROWS_MIGHT_MATCH
        return _compare(type(node), known, node.literal)

    def in_(self, node: In) -> bool:
        if len(node.literals) > IN_PREDICATE_LIMIT:
            return ROWS_MIGHT_MATCH
        for literal in node.literals:
            if self.compare(Eq(node.term, literal)) == ROWS_MIGHT_MATCH:
                return ROWS_MIGHT_MATCH
        # Proof: IN is the OR of its equalities, and none can be TRUE.
        return ROWS_CANNOT_MATCH

    def not_in(self, node: NotIn) -> bool:
        if len(node.literals) > IN_PREDICATE_LIMIT:
            return ROWS_MIGHT_MATCH
        for literal in node.literals:
            if self.compare(NotEq(node.term, literal)) == ROWS_CANNOT_MATCH:
                # Proof: every value equals this literal, so NOT IN is FALSE or NULL in every row.
                return ROWS_CANNOT_MATCH
        return ROWS_MIGHT_MATCH


def _nan_matches(cls: type[LiteralPredicate], literal: Any) -> bool:
    """Whether a NaN value satisfies ``NaN <op> literal`` in Spark (NaN is the largest value
    and equals itself)."""
    if cls is Lt:
        return False
    if cls is GtEq:
        return True
    if cls in (LtEq, Eq):
        return _is_nan(literal)
    return not _is_nan(literal)  # Gt, NotEq


def _compare(cls: type[LiteralPredicate], known: _Values, literal: Literal) -> bool:
    if known.may_nan and _nan_matches(cls, literal.value):
        return ROWS_MIGHT_MATCH  # a NaN outside the bounds may match
    try:
        lo, hi, c = _key(known.lo), _key(known.hi), _key(literal.value)
        if cls is Lt and lo >= c:
            # Proof: every value is >= the lower bound >= the literal (and no NaN is < it).
            return ROWS_CANNOT_MATCH
        if cls is LtEq and lo > c:
            # Proof: every value is >= the lower bound > the literal.
            return ROWS_CANNOT_MATCH
        if cls is Gt and hi <= c:
            # Proof: every value is <= the upper bound <= the literal.
            return ROWS_CANNOT_MATCH
        if cls is GtEq and hi < c:
            # Proof: every value is <= the upper bound < the literal.
            return ROWS_CANNOT_MATCH
        if cls is Eq and (c < lo or c > hi):
            # Proof: the literal lies outside [lower bound, upper bound].
            return ROWS_CANNOT_MATCH
        if cls is NotEq and known.exact and lo == hi == c:
            # Proof: exact bounds equal to the literal make every value equal to it, and NULL
            # rows compare to NULL: `!=` is never TRUE.
            return ROWS_CANNOT_MATCH
    except TypeError:
        return ROWS_MIGHT_MATCH  # values that do not compare (a binding mistake): read
    return ROWS_MIGHT_MATCH


# -- the evaluator -----------------------------------------------------------------------------
class InclusiveStatsEvaluator:
    """Whether a row group (or file) might hold a matching row, from its statistics.

    Immutable; each call builds a fresh visitor, so one evaluator serves many row groups.

    Example:
        >>> import io, pyarrow as pa, pyarrow.parquet as pq
        >>> from vpush.optimizer.bound import bind, ColumnRef, Gt, Literal, SqlType
        >>> from vpush.optimizer.statistics import file_statistics
        >>> buf = io.BytesIO(); pq.write_table(pa.table({"id": [1, 2, 3, 4]}), buf, row_group_size=2)
        >>> stats = file_statistics(pq.ParquetFile(buf).metadata)
        >>> ref = LeafRef("id", None, VariantType.INT64, SqlType("bigint"), variant=False)
        >>> evaluator = InclusiveStatsEvaluator(Gt(ref, Literal(2, SqlType("bigint"))))
        >>> [evaluator.evaluate(rg) for rg in stats.row_groups]
        [False, True]
    """

    def __init__(self, expression: BooleanExpression) -> None:
        self._expression = rewrite_not(expression)

    @property
    def expression(self) -> BooleanExpression:
        """The bound expression, NOT pushed down."""
        return self._expression

    def evaluate(
        self, row_group: RowGroupStatistics, partition_values: Mapping[str, Any] | None = None
    ) -> bool:
        """``ROWS_MIGHT_MATCH`` or ``ROWS_CANNOT_MATCH`` for one row group.

        Args:
            row_group: its statistics (``FileStatistics.row_groups[i]``).
            partition_values: the file's partition values by column name, for PartitionRef.
        """
        if row_group.num_rows == 0:
            # Proof: the row group has no rows.
            return ROWS_CANNOT_MATCH
        return _RowGroupVisitor(row_group, partition_values).visit(self._expression)

    def evaluate_file(
        self, partition_values: Mapping[str, Any] | None, statistics: FileStatistics | None
    ) -> bool:
        """``ROWS_MIGHT_MATCH`` or ``ROWS_CANNOT_MATCH`` for a whole file, from its partition
        values and its statistics merged over row groups (None: partition values only)."""
        if statistics is None:
            merged = RowGroupStatistics(row_group=-1, num_rows=-1, columns={})
        else:
            merged = statistics.merged
        return self.evaluate(merged, partition_values)


def cast_may_fail(ref: LeafRef | None, row_group: RowGroupStatistics) -> bool:
    """Whether a strict extraction's cast might raise for a row of the row group.

    False only with a proof that each row's value at the path is missing, a variant null, or a
    typed value whose cast cannot fail: ``ref`` (a :class:`VariantRef` bound by
    :func:`~vpush.optimizer.bound.bind_variant`; None where the file shreds the path as an object
    or array) has no residual ``value`` but variant nulls in the row group, and its ``typed_value``
    type always casts to the target, or its bounds lie where the cast succeeds.
    """
    if row_group.num_rows == 0:
        return False  # Proof: no rows.
    if ref is None:
        return True
    visitor = _RowGroupVisitor(row_group, None)
    if not (visitor.value_all_null(ref) or visitor.value_only_variant_nulls(ref)):
        return True  # a residual value may be of any type
    if ref.column_path is None:
        return False  # Proof: no row holds the field (its value column holds at most variant nulls).
    stats = row_group.column(ref.column_path)
    if stats is None or stats.repeated:
        return True
    if stats.non_null_count == 0:
        return False  # Proof: no row holds a typed value (and no residual either).
    source = _leaf_type(ref)
    if source is None:
        return True
    if _never_fails(source, ref.target):
        return False  # Proof: every value of the leaf's type casts.
    if not stats.has_min_max or _is_nan(stats.min) or _is_nan(stats.max):
        return True
    mapped = _cast_range(source, ref.target, stats.min, stats.max)
    # Proof (when False): every typed value lies in [min, max], where the cast succeeds.
    return mapped is None or mapped.failures


def evaluate_row_groups(
    expression: BooleanExpression,
    statistics: FileStatistics,
    partition_values: Mapping[str, Any] | None = None,
) -> tuple[int, ...]:
    """The row groups of a file that might hold a row matching ``expression`` (bound to it).

    Example:
        >>> import io, pyarrow as pa, pyarrow.parquet as pq
        >>> from vpush.optimizer.bound import Literal, Lt, SqlType
        >>> from vpush.optimizer.statistics import file_statistics
        >>> buf = io.BytesIO(); pq.write_table(pa.table({"id": [1, 2, 3, 4]}), buf, row_group_size=2)
        >>> stats = file_statistics(pq.ParquetFile(buf).metadata)
        >>> ref = LeafRef("id", None, VariantType.INT64, SqlType("bigint"), variant=False)
        >>> evaluate_row_groups(Lt(ref, Literal(3, SqlType("bigint"))), stats)
        (0,)

    Returns:
        Row group indexes in file order; empty when the whole file can be skipped.
    """
    evaluator = InclusiveStatsEvaluator(expression)
    if evaluator.evaluate_file(partition_values, statistics) == ROWS_CANNOT_MATCH:
        return ()
    return tuple(
        rg.row_group
        for rg in statistics.row_groups
        if evaluator.evaluate(rg, partition_values) == ROWS_MIGHT_MATCH
    )
