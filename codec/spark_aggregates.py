"""Spark's aggregates whose answer depends on the order it meets the rows in, over lists of each
group's values in that order (the DuckDB engine builds them with ``list(x ORDER BY ...)``).

Spark updates an aggregate's buffer row by row within a task and then merges the task's buffer
with the final aggregation's empty one (the empty one second, as Spark 4.3 is measured to: a
regression's intercept keeps the task's averages); in floating point the order of those steps
decides the last bits, and
for an ANSI ``sum`` of integers whether a running total overflows on the way. The compiled kernel
(``codec/spark_aggregates.c``) follows Spark's formulas step by step: ``CentralMomentAgg``'s for
``var_pop``, ``var_samp``, ``stddev_pop``, ``stddev_samp``, ``skewness`` and ``kurtosis``,
``Covariance``'s for ``covar_pop`` and ``covar_samp``, ``PearsonCorrelation``'s for ``corr``,
and those of ``regr_sxx``, ``regr_syy``, ``regr_sxy``, ``regr_slope``, ``regr_intercept`` and
``regr_r2`` (over the pairs where neither value is NULL), with Spark 4's NULLs (no rows; one row for the sample statistics and ``corr``; a zero second
moment for ``skewness`` and ``kurtosis``; a zero divisor), ``Sum``'s ANSI additions of longs,
its additions of decimals in a hash aggregation's ``decimal(38,s)`` buffer, and
``percentile_approx``'s ``QuantileSummaries`` (Greenwald-Khanna: a head buffer of 50,000
values sorted into the samples when full, the samples compressed from 10,000 on and when the
task serializes its digest; the query's ranks within Spark 4's target error).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from vpush.codec.errors import VpushError
from vpush.codec.native import NativeUnsupportedError, _native

__all__ = ["MOMENT_KINDS", "POSITION", "POSITIONED_VALUE", "TASK_SHIFT", "spark_decimal_sum", "spark_double_sum", "spark_long_sum", "spark_mode", "spark_moments",
           "spark_percentile_approx", "spark_histogram_numeric", "HISTOGRAM_BIN", "spark_radix_places"]

MOMENT_KINDS: tuple[str, ...] = (
    "var_pop", "var_samp", "stddev_pop", "stddev_samp", "skewness", "kurtosis", "covar_pop", "covar_samp", "corr",
    "regr_sxx", "regr_syy", "regr_sxy", "regr_slope", "regr_intercept", "regr_r2",
)
"""The aggregates :func:`spark_moments` computes, by Spark's name (the kernel's numbering)."""

BIVARIATE_KINDS = frozenset(MOMENT_KINDS[MOMENT_KINDS.index("covar_pop"):])
"""The kinds of :data:`MOMENT_KINDS` that take two lists, in Spark's order of arguments (x, then y;
for ``regr_*``, y then x)."""


POSITIONED_VALUE, POSITION = "v", "o"
"""The fields of a positioned list's items: each value, and its row's place in Spark's order."""

TASK_SHIFT = 52
"""A place's bits below its Spark task: ``place >> TASK_SHIFT`` is the index of the task that
reads the row. Spark updates a buffer per task and merges the tasks' buffers, in task order, in
the final aggregation; the kernels do the same for lists whose places span several tasks."""


def _lists(lists: pa.Array | pa.ChunkedArray, value_type: pa.DataType) -> tuple[bytes, bytes, pa.Array]:
    """The offsets (int64, one more than the lists), the validity (a byte a list) and the values
    of a list array, the values of ``value_type`` with no NULL among them; lists of positioned
    values (structs of :data:`POSITIONED_VALUE` and :data:`POSITION`) give their values in order
    of their positions."""
    offsets, valid, values, _ = _task_lists(lists, value_type)
    return offsets, valid, values


def _task_lists(lists: pa.Array | pa.ChunkedArray, value_type: pa.DataType) -> tuple[bytes, bytes, pa.Array, np.ndarray | None]:
    """:func:`_lists`, and for positioned lists of which one holds the rows of several Spark
    tasks (their places' :data:`TASK_SHIFT` bits), the offsets of each list's runs of one task
    into the values (int64, the runs of list i after those of list i - 1); else None."""
    if isinstance(lists, pa.ChunkedArray):
        lists = lists.combine_chunks()
    if isinstance(lists, pa.LargeListArray):
        lists = lists.cast(pa.list_(lists.type.value_type))
    offsets = np.asarray(lists.offsets, dtype=np.int64)
    valid = np.asarray(lists.is_valid(), dtype=np.uint8)
    values = lists.values
    runs = None
    if pa.types.is_struct(values.type):
        values, places = _in_order(offsets, values)
        runs = _task_runs(offsets, places)
    if values.null_count:
        raise ValueError("spark aggregate: a list holds a NULL; the query leaves NULLs out")
    if not values.type.equals(value_type):
        values = values.cast(value_type)
    return offsets.tobytes(), valid.tobytes(), values, runs


def _task_runs(offsets: np.ndarray, places: np.ndarray) -> np.ndarray | None:
    """The offsets of the runs of one task in lists of ``places`` in order (see :func:`_task_lists`),
    or None where no list holds two tasks' rows."""
    first, end = int(offsets[0]), int(offsets[-1])
    tasks = places[first:end] >> TASK_SHIFT
    if not len(tasks) or int(tasks.min()) == int(tasks.max()):
        return None
    cut = np.zeros(len(tasks), dtype=bool)
    cut[1:] = tasks[1:] != tasks[:-1]
    starts = offsets[:-1] - first
    cut[starts[starts < len(tasks)]] = True
    if int(cut.sum()) == int(np.count_nonzero(np.diff(offsets))):
        return None
    return np.concatenate([np.flatnonzero(cut), [len(tasks)]]).astype(np.int64) + first


def _runs_of_lists(offsets: bytes, runs: np.ndarray) -> bytes:
    """Per list, the index of its first run in ``runs`` (and after the last list, the runs'
    count): offsets of lists of the runs' partial results."""
    starts = np.frombuffer(offsets, dtype=np.int64)
    return np.searchsorted(runs[:-1], starts, side="left").astype(np.int64).tobytes()


def _in_order(offsets: np.ndarray, items: pa.StructArray) -> tuple[pa.Array, np.ndarray]:
    """The values of positioned lists' items, each list's in order of their positions (a
    compiled pass, where DuckDB would sort each group's rows for ``list(x ORDER BY ...)``), and
    their positions in that order."""
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    by_name = dict(zip((f.name for f in items.type), items.flatten()))
    positions = by_name[POSITION]
    if positions.null_count:
        raise ValueError("spark aggregate: a list item without a position")
    order = np.frombuffer(_native.spark_order_lists(offsets.tobytes(), _buffer(positions, np.int64)), dtype=np.int64)
    places = np.asarray(positions, dtype=np.int64)[order]
    return by_name[POSITIONED_VALUE].take(pa.array(order)), places


def _buffer(values: pa.Array, dtype: type) -> bytes:
    return np.asarray(values, dtype=dtype).tobytes()


def _result(result: tuple[int, bytes, bytes], arrow_type: pa.DataType, dtype: type) -> pa.Array:
    _, values, validity = result
    mask = np.frombuffer(validity, dtype=np.uint8) == 0
    return pa.array(np.frombuffer(values, dtype=dtype), type=arrow_type, mask=mask)


def spark_moments(
    kind: str, x: pa.Array | pa.ChunkedArray, y: pa.Array | pa.ChunkedArray | None = None, fallback: pa.Array | pa.ChunkedArray | None = None
) -> pa.Array:
    """Spark's ``kind`` of each list of doubles (of pairs, for the covariances and ``corr``), the
    values taken in list order. Where ``fallback`` (one place per list, of lists of positioned
    values) is not NULL, the task's hash aggregation fell back to sorting after the row at that
    place: the later values fill a new buffer, the one of the values up to the place merged into
    it (``SortBasedAggregator``; an empty new buffer where none came later).

    Example:
        >>> lists = pa.array([[1.0, 2.0, 4.0], [3.0], None])
        >>> spark_moments("var_samp", lists).to_pylist()
        [2.333333333333333, None, None]
        >>> spark_moments("corr", pa.array([[1.0, 2.0, 4.0]]), pa.array([[2.0, 4.0, 7.0]])).to_pylist()
        [0.9971764649527382]

    Args:
        kind: one of :data:`MOMENT_KINDS`.
        x: lists of doubles (or of values that widen to them), with no NULL inside.
        y: for :data:`BIVARIATE_KINDS`, the second values, lists as long as ``x``'s.
        fallback: for lists of positioned values, the place where each list is split (NULL: none).

    Returns:
        A float64 array, one value per list, NULL where Spark's is.

    Raises:
        NativeUnsupportedError: no compiled kernel.
        ValueError: an unknown kind, a NULL inside a list, or lists of ``y`` that do not match.
    """
    if kind not in MOMENT_KINDS or (kind in BIVARIATE_KINDS) != (y is not None):
        raise ValueError(f"spark_moments: {kind} with {1 if y is None else 2} lists is not one of {MOMENT_KINDS}")
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    before = _split(x, fallback)
    offsets, valid, xs, tasks = _value_tasks(x, before)
    ys = b""
    if y is not None:
        y_offsets, _, y_values = _lists(y, pa.float64())
        if y_offsets != offsets:
            raise ValueError("spark_moments: the lists of x and y differ in length")
        ys = _buffer(y_values, np.float64)
    result = _native.spark_aggregate(MOMENT_KINDS.index(kind), offsets, valid, _buffer(xs, np.float64), ys, 0, before, tasks)
    return _result(result, pa.float64(), np.float64)


def _value_tasks(lists: pa.Array | pa.ChunkedArray, before: bytes) -> tuple[bytes, bytes, pa.Array, bytes]:
    """:func:`_lists` of doubles, and where a list holds several Spark tasks' rows each value's
    task (int64), else no bytes (nor where the hash aggregation falls back: refused)."""
    offsets, valid, values, runs = _task_lists(lists, pa.float64())
    if runs is None:
        return offsets, valid, values, b""
    if before:
        raise _several_tasks("an aggregate")
    # each value numbered by its run (a new number where a task's run starts)
    starts = np.zeros(len(values), dtype=np.int64)
    starts[runs[:-1]] = 1
    return offsets, valid, values, np.cumsum(starts).astype(np.int64).tobytes()


def _split(lists: pa.Array | pa.ChunkedArray, fallback: pa.Array | pa.ChunkedArray | None) -> bytes:
    """:func:`_values_before` of positioned ``lists`` where some ``fallback`` place is not NULL,
    else no bytes."""
    if fallback is None or fallback.null_count == len(fallback):
        return b""
    if isinstance(lists, pa.ChunkedArray):
        lists = lists.combine_chunks()
    if isinstance(lists, pa.LargeListArray):
        lists = lists.cast(pa.list_(lists.type.value_type))
    if not pa.types.is_struct(lists.type.value_type):
        return b""
    return _values_before(lists, fallback)


def spark_long_sum(lists: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Spark's ANSI ``sum`` of each list of longs, added in list order: NULL for a NULL list and
    where a running total passes a long (where Spark raises ``ARITHMETIC_OVERFLOW``, or its
    ``try_sum`` gives NULL), even if the total would fit.

    Example:
        >>> spark_long_sum(pa.array([[10, -3, 7], [9223372036854775807, 1, -1], None])).to_pylist()
        [14, None, None]

    Raises:
        NativeUnsupportedError: no compiled kernel.
        ValueError: a NULL inside a list.
    """
    return _sum(-1, lists, pa.int64(), np.int64)


def spark_double_sum(lists: pa.Array | pa.ChunkedArray, fallback: pa.Array | pa.ChunkedArray | None = None) -> pa.Array:
    """Spark's ``sum`` of each list of doubles, added in list order (its last bits depend on the
    order): NULL for a NULL or empty list. Where ``fallback`` (as :func:`spark_moments` takes it)
    is not NULL, the sum of the values after that place comes first, the sum of the others added
    to it (``Sum``'s merge).

    Example:
        >>> spark_double_sum(pa.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1], None])).to_pylist()
        [0.6000000000000001, 0.6, None]
        >>> items = pa.array([[{"v": 0.3, "o": 2}, {"v": 0.1, "o": 0}, {"v": 0.2, "o": 1}]])
        >>> spark_double_sum(items).to_pylist()
        [0.6000000000000001]
        >>> spark_double_sum(items, pa.array([0])).to_pylist()
        [0.6]

    Raises:
        NativeUnsupportedError: no compiled kernel.
        ValueError: a NULL inside a list.
    """
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    before = _split(lists, fallback)
    offsets, valid, values, runs = _task_lists(lists, pa.float64())
    if runs is None:
        result = _native.spark_aggregate(-3, offsets, valid, _buffer(values, np.float64), b"", *((0, before) if before else ()))
        return _result(result, pa.float64(), np.float64)
    if before:
        raise _several_tasks("sum of doubles")
    # each task's sum, then Sum.merge in the final aggregation: the tasks' sums added in task order
    _, partial, _ = _native.spark_aggregate(-3, runs.tobytes(), b"\x01" * (len(runs) - 1), _buffer(values, np.float64), b"")
    return _result(_native.spark_aggregate(-3, _runs_of_lists(offsets, runs), valid, partial, b""), pa.float64(), np.float64)


def _several_tasks(what: str) -> VpushError:
    """The error for a ``what`` of several Spark tasks whose hash aggregation falls back to
    sorting (each task's at its own place, which vpush does not follow)."""
    return VpushError(
        f"{what} over several Spark tasks whose hash aggregation may fall back to sorting past "
        "128 groups: the DuckDB engine does not give Spark's answer; the Spark engine runs it",
        error_class="VPUSH_UNSUPPORTED_FUNCTION",
    )


def _sum(kind: int, lists: pa.Array | pa.ChunkedArray, value_type: pa.DataType, dtype: type) -> pa.Array:
    """The kernel's sum ``kind`` (-1 of longs) of each list, in list order; over several Spark
    tasks, each task's sum, and the tasks' sums added in task order (NULL where one is)."""
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    offsets, valid, values, runs = _task_lists(lists, value_type)
    if runs is None:
        return _result(_native.spark_aggregate(kind, offsets, valid, _buffer(values, dtype), b""), value_type, dtype)
    _, partial, partial_valid = _native.spark_aggregate(kind, runs.tobytes(), b"\x01" * (len(runs) - 1), _buffer(values, dtype), b"")
    first_runs = _runs_of_lists(offsets, runs)
    _, sums, validity = _native.spark_aggregate(kind, first_runs, valid, partial, b"")
    return _result((0, sums, _unless_lost(validity, partial_valid, first_runs)), value_type, dtype)


def _unless_lost(validity: bytes, partial_valid: bytes, first_runs: bytes) -> bytes:
    """``validity`` of the merged sums, 0 where one of a list's tasks' sums is NULL (it overflowed)."""
    lost = np.concatenate([[0], np.cumsum(np.frombuffer(partial_valid, dtype=np.uint8) == 0)])
    starts = np.frombuffer(first_runs, dtype=np.int64)
    overflowed = (lost[starts[1:]] - lost[starts[:-1]]) > 0
    return (np.frombuffer(validity, dtype=np.uint8) * ~overflowed).astype(np.uint8).tobytes()


def spark_decimal_sum(lists: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Spark's ``sum`` with GROUP BY of each list of decimals (all of one scale), added in list
    order: NULL for a NULL list and where a running total passes 38 digits, even if the total
    would fit. Spark's hash aggregation keeps a group's running total in a ``decimal(38,s)``
    field of its buffer row, which becomes NULL from there on (``UnsafeRow.setDecimal``), and
    raises ``ARITHMETIC_OVERFLOW`` for it at the end (its ``try_sum``/``try_avg``: NULL).

    Example:
        >>> from decimal import Decimal
        >>> big = Decimal(9) * Decimal(10) ** 37
        >>> lists = pa.array([[big, -big, big], [big, big, -big], None], pa.list_(pa.decimal128(38, 0)))
        >>> spark_decimal_sum(lists).to_pylist()
        [Decimal('90000000000000000000000000000000000000'), None, None]

    Raises:
        NativeUnsupportedError: no compiled kernel.
        ValueError: a NULL inside a list, or values that are not decimal128.
    """
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    value_type = lists.type.value_type
    if pa.types.is_struct(value_type):  # positioned values
        value_type = value_type.field(POSITIONED_VALUE).type
    if not pa.types.is_decimal128(value_type):
        raise ValueError(f"spark decimal sum: lists of {value_type}, not of decimal128")
    offsets, valid, values, runs = _task_lists(lists, value_type)
    data = values.buffers()[1]
    if data is None:
        unscaled = b""
    else:
        unscaled = data.to_pybytes()[values.offset * 16:(values.offset + len(values)) * 16]
    if runs is None:
        _, sums, validity = _native.spark_aggregate(-2, offsets, valid, unscaled, b"")
    else:
        # each task's running total, then the final aggregation's merge of the tasks' totals in
        # task order (Sum.mergeExpressions: NULL where a task's total passed 38 digits, else the
        # sum kept in a decimal(38,s) field, NULL once past 38 digits)
        _, partial, partial_valid = _native.spark_aggregate(-2, runs.tobytes(), b"\x01" * (len(runs) - 1), unscaled, b"")
        first_runs = _runs_of_lists(offsets, runs)
        _, sums, validity = _native.spark_aggregate(-2, first_runs, valid, partial, b"")
        validity = _unless_lost(validity, partial_valid, first_runs)
    bitmap = np.packbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little").tobytes()
    length = len(validity)
    return pa.Array.from_buffers(pa.decimal128(38, value_type.scale), length, [pa.py_buffer(bitmap), pa.py_buffer(sums)])


def _ordered_doubles(
    lists: pa.Array | pa.ChunkedArray, fallback: pa.Array | pa.ChunkedArray | None
) -> tuple[bytes, bytes, pa.Array, bytes, bytes]:
    """The buffers a summary kernel takes of lists of (positioned) doubles: :func:`_value_tasks`'s
    offsets, validity, values and tasks, with :func:`_values_before` each list's ``fallback``."""
    if isinstance(lists, pa.ChunkedArray):
        lists = lists.combine_chunks()
    if isinstance(lists, pa.LargeListArray):
        lists = lists.cast(pa.list_(lists.type.value_type))
    before = b""
    if fallback is not None and pa.types.is_struct(lists.type.value_type) and fallback.null_count < len(fallback):
        before = _values_before(lists, fallback)
    offsets, valid, values, tasks = _value_tasks(lists, before)
    return offsets, valid, values, before, tasks


def spark_percentile_approx(
    lists: pa.Array | pa.ChunkedArray, percentages: list[float], accuracy: int, fallback: pa.Array | pa.ChunkedArray | None = None
) -> pa.Array:
    """Spark's ``percentile_approx`` of each list of doubles at ``percentages``, the values fed
    to Spark's ``QuantileSummaries`` (relative error ``1.0 / accuracy``) in list order, as one
    task's digest, which the final aggregation's empty buffer leaves as it is: a list of doubles
    (one per percentage) per list, NULL for a NULL or empty list.

    Where ``fallback`` (one place per list, of lists of positioned values) is not NULL, the
    task's hash aggregation fell back to sorting after the row at that place: the values placed
    up to it form one digest, the later ones another, which Spark compresses and merges the
    first into (``SortBasedAggregator``).

    Example:
        >>> spark_percentile_approx(pa.array([[3.0, 1.0, 2.0], [], None]), [0.5, 1.0], 10000).to_pylist()
        [[2.0, 3.0], None, None]
        >>> values = pa.array([[float(v) for v in range(100)]])
        >>> spark_percentile_approx(values, [0.25, 0.5], 10).to_pylist()
        [[25.0, 47.0]]

    Args:
        lists: lists of doubles (or of positioned values), with no NULL inside.
        percentages: one or more percentages, each from 0 to 1.
        accuracy: Spark's accuracy, from 1 to 2147483647.
        fallback: for lists of positioned values, the place after which each list's values went
            to a second digest (NULL: none).

    Raises:
        NativeUnsupportedError: no compiled kernel.
        ValueError: a NULL inside a list, no percentage, or an accuracy out of range.
    """
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    if not percentages or not 0 < accuracy <= 2147483647:
        raise ValueError(f"spark_percentile_approx: percentages {percentages} with accuracy {accuracy}")
    offsets, valid, values, before, tasks = _ordered_doubles(lists, fallback)
    wanted = np.asarray(percentages, dtype=np.float64)
    arguments = (-4, offsets, valid, _buffer(values, np.float64), wanted.tobytes(), accuracy, before, tasks)
    _, found, validity = _native.spark_aggregate(*arguments)
    length = len(validity)
    mask = np.frombuffer(validity, dtype=np.uint8) == 0
    ends = np.arange(length + 1, dtype=np.int32) * len(percentages)
    flat = pa.array(np.frombuffer(found, dtype=np.float64), type=pa.float64())
    return pa.ListArray.from_arrays(pa.array(ends, pa.int32()), flat, mask=pa.array(mask))


HISTOGRAM_BIN = pa.struct([("x", pa.float64()), ("y", pa.float64())])
"""A bin of :func:`spark_histogram_numeric`: its centre and height."""


def spark_histogram_numeric(
    lists: pa.Array | pa.ChunkedArray, nbins: int, fallback: pa.Array | pa.ChunkedArray | None = None
) -> pa.Array:
    """Spark's ``histogram_numeric`` of each list of doubles with ``nbins`` bins: Hive's
    ``NumericHistogram`` fed the values in list order (each value past ``nbins`` bins merges the
    closest pair, ties broken by ``java.util.Random(31183)``), as one task builds it and the
    final aggregation copies it; a list of bins ``{x, y}`` per list, NULL for a NULL or empty list.
    ``fallback`` and several tasks' values as :func:`spark_percentile_approx` takes them.

    Example:
        >>> spark_histogram_numeric(pa.array([[1.0, 2.0, 10.0, 2.0], [], None]), 2).to_pylist()
        [[{'x': 1.6666666666666665, 'y': 3.0}, {'x': 10.0, 'y': 1.0}], None, None]

    Raises:
        NativeUnsupportedError: no compiled kernel.
        ValueError: a NULL inside a list, or fewer than 2 bins (or more than a million).
    """
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    if not 2 <= nbins <= 1_000_000:
        raise ValueError(f"spark_histogram_numeric: {nbins} bins")
    offsets, valid, values, before, tasks = _ordered_doubles(lists, fallback)
    _, found, validity = _native.spark_aggregate(-5, offsets, valid, _buffer(values, np.float64), b"", nbins, before, tasks)
    stride = 2 * nbins + 1
    table = np.frombuffer(found, dtype=np.float64).reshape(-1, stride)
    used = table[:, 0].astype(np.int64)
    # the used bins of each list, gathered: row r's k-th bin at 1 + 2k
    rows = np.repeat(np.arange(len(used)), used)
    within = np.arange(int(used.sum())) - np.repeat(np.cumsum(used) - used, used)
    xs = table[rows, 1 + 2 * within]
    ys = table[rows, 2 + 2 * within]
    bins = pa.StructArray.from_arrays([pa.array(xs, pa.float64()), pa.array(ys, pa.float64())], fields=list(HISTOGRAM_BIN))
    ends = np.concatenate([[0], np.cumsum(used)]).astype(np.int32)
    mask = np.frombuffer(validity, dtype=np.uint8) == 0
    return pa.ListArray.from_arrays(pa.array(ends, pa.int32()), bins, mask=pa.array(mask))


def _values_before(lists: pa.ListArray, fallback: pa.Array | pa.ChunkedArray) -> bytes:
    """How many of each positioned list's items are placed at or before its ``fallback`` place
    (int64 a list; -1 where that is NULL)."""
    offsets = np.asarray(lists.offsets, dtype=np.int64)
    by_name = dict(zip((f.name for f in lists.values.type), lists.values.flatten()))
    positions = np.asarray(by_name[POSITION].slice(offsets[0], offsets[-1] - offsets[0]), dtype=np.int64)
    places = pa.chunked_array([fallback]) if isinstance(fallback, pa.Array) else fallback
    cut = np.asarray(places.fill_null(-1).combine_chunks(), dtype=np.int64)
    lengths = np.diff(offsets)
    early = positions <= np.repeat(cut, lengths)
    running = np.concatenate([[0], np.cumsum(early, dtype=np.int64)])
    counts = running[offsets[1:] - offsets[0]] - running[offsets[:-1] - offsets[0]]
    return np.where(np.asarray(places.is_null().combine_chunks(), dtype=bool), -1, counts).astype(np.int64).tobytes()


# Java's Boolean.hashCode
_TRUE_HASH, _FALSE_HASH = 1231, 1237


def _java_hash_codes(keys: pa.Array) -> np.ndarray:
    """The Java hashCode of each key as Spark boxes it: an Integer (Byte, Short: the same) of an
    int, a date's days; a Long folded (``(int) (v ^ (v >>> 32))``); a Boolean; a UTF8String's
    Murmur3 of its bytes, seeded with 42."""
    from vpush.codec.spark_hash import spark_hash_step

    t = keys.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        seeds = pa.array(np.full(len(keys), 42, dtype=np.int32))
        return np.asarray(spark_hash_step("hash", keys, seeds), dtype=np.int32)
    if pa.types.is_boolean(t):
        return np.where(np.asarray(keys, dtype=bool), _TRUE_HASH, _FALSE_HASH).astype(np.int32)
    if pa.types.is_int64(t):
        longs = np.asarray(keys, dtype=np.int64)
        return (longs ^ (longs.view(np.uint64) >> np.uint64(32)).view(np.int64)).astype(np.int32)
    if pa.types.is_integer(t) or pa.types.is_date32(t):
        return np.asarray(keys.cast(pa.int32()), dtype=np.int32)
    raise ValueError(f"spark_mode: no Spark mode of Arrow type {t}")


def spark_mode(lists: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Spark's ``mode(x)`` (``mode(x, false)``) of each list of values (NULLs left out) in Spark's
    order: of the values most often met, the first in the order of Spark's ``OpenHashMap`` after
    the partial buffer is serialized and merged into the final one (``spark_mode_choose`` in
    ``codec/spark_aggregates.c``); NULL for a NULL or empty list.

    Example:
        >>> spark_mode(pa.array([[1, 2, 2, 1], [5], [], None], pa.list_(pa.int32()))).to_pylist()
        [1, 5, None, None]

    Raises:
        NativeUnsupportedError: no compiled kernel.
        ValueError: a NULL inside a list, or values of a type whose Java hash vpush does not know.
    """
    from vpush.codec.spark_hash import spark_hash_step

    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    if isinstance(lists, pa.ChunkedArray):
        lists = lists.combine_chunks()
    if isinstance(lists, pa.LargeListArray):
        lists = lists.cast(pa.list_(lists.type.value_type))
    offsets = np.asarray(lists.offsets, dtype=np.int64)
    values = lists.values
    tasks = np.zeros(len(values), dtype=np.int64)
    if pa.types.is_struct(values.type):
        values, places = _in_order(offsets, values)
        tasks = places >> TASK_SHIFT
    values = values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    tasks = tasks[int(offsets[0]):int(offsets[-1])]
    if values.null_count:
        raise ValueError("spark_mode: a list holds a NULL; the query leaves NULLs out")
    groups = len(lists)
    group = np.repeat(np.arange(groups, dtype=np.int64), np.diff(offsets))
    rows = pa.table({"g": group, "t": tasks, "v": values, "p": np.arange(len(values), dtype=np.int64)})
    several = len(tasks) > 0 and int(tasks.min()) != int(tasks.max())
    # each group's distinct values (per task) in the order Spark first met them, with their counts
    keys_of = ["g", "t", "v"] if several else ["g", "v"]
    distinct = rows.group_by(keys_of, use_threads=False).aggregate([("p", "min"), ("p", "count")])
    distinct = distinct.sort_by([("g", "ascending"), ("p_min", "ascending")] if not several else
                                [("g", "ascending"), ("t", "ascending"), ("p_min", "ascending")])
    keys = distinct["v"].combine_chunks()
    counts = np.asarray(distinct["p_count"], dtype=np.int64)
    per_group = np.bincount(np.asarray(distinct["g"], dtype=np.int64), minlength=groups)
    key_offsets = np.concatenate([[0], np.cumsum(per_group)]).astype(np.int64)
    # OpenHashSet places a key by murmur3_32 (seed 0) of its hashCode
    codes = pa.array(_java_hash_codes(keys), pa.int32())
    mixed = np.asarray(spark_hash_step("hash", codes, pa.array(np.zeros(len(keys), dtype=np.int32))), dtype=np.int32)
    extra: tuple[bytes, ...] = ()
    if several:
        # the tasks' maps merged in task order: each entry's key named by its first entry
        entries = pa.table({"g": distinct["g"], "v": keys, "i": np.arange(len(keys), dtype=np.int64)})
        first = entries.group_by(["g", "v"], use_threads=False).aggregate([("i", "min")])
        named = entries.join(first, ["g", "v"], use_threads=False).sort_by("i")
        extra = (np.asarray(distinct["t"], dtype=np.int64).tobytes(), np.asarray(named["i_min"], dtype=np.int64).tobytes())
    chosen = np.frombuffer(_native.spark_mode_choose(key_offsets.tobytes(), mixed.tobytes(), counts.tobytes(), *extra), dtype=np.int64)
    return keys.take(pa.array(chosen, mask=chosen < 0))


def spark_radix_places(lists: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Where Spark's radix sort of one task's rows by a single key (``UnsafeInMemorySorter``)
    leaves each of them: each list holds, for a task's rows in the order read, whether the row's
    key is NULL; the answer gives each row its place in the sorted order's ties, the rows of one
    key in the order the sort leaves them (a NULL list answers NULL).

    ``insertRecord`` keeps the NULL-keyed rows at the front of its array: it writes such a row
    where the first non-NULL one stands (at the null boundary) and moves that one to the end; the
    radix sort of the rest is stable. So the row written at index ``p`` below the count of NULL
    keys moves to the index of the ``p``-th NULL-keyed row, and on until it lands past them
    (pointer doubling follows those moves in a logarithmic number of vectorized steps). The
    NULL-keyed rows keep the order read, ahead of the others.

    Example:
        >>> spark_radix_places(pa.array([[False, True, False], [True, False], None])).to_pylist()
        [[1, 0, 2], [0, 1], None]
        >>> spark_radix_places(pa.array([[False, False, True, True, False]])).to_pylist()
        [[2, 3, 0, 1, 4]]
    """
    if isinstance(lists, pa.ChunkedArray):
        lists = lists.combine_chunks()
    if not isinstance(lists, pa.ListArray):
        raise TypeError(f"spark_radix_places takes lists of booleans, not {lists.type}")
    offsets = lists.offsets.to_numpy()
    flags = lists.values.to_numpy(zero_copy_only=False).astype(bool)
    places = np.empty(len(flags), dtype=np.int64)
    for start, end in zip(offsets[:-1].tolist(), offsets[1:].tolist()):  # one step a task, not a row
        null_key = flags[start:end]
        at = np.flatnonzero(null_key)
        moved = np.arange(end - start, dtype=np.int64)
        moved[:len(at)] = at
        while True:
            further = moved[moved]
            if np.array_equal(further, moved):
                break
            moved = further
        moved[at] = np.arange(len(at), dtype=np.int64)
        places[start:end] = moved
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(places, pa.int64()), mask=lists.is_null())
