"""The kernels of Spark's order-dependent aggregates put positioned lists in order of their
positions exactly as a stable sort does: lists already in order, lists gathered from runs that
do not overlap (as DuckDB gathers a group's rows chunk by chunk), and lists in any order."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vpush.codec.spark_aggregates import (
    POSITION,
    POSITIONED_VALUE,
    TASK_SHIFT,
    spark_decimal_sum,
    spark_double_sum,
    spark_long_sum,
    spark_mode,
    spark_moments,
    spark_percentile_approx,
    spark_radix_places,
)


def _positioned(values: np.ndarray, positions: np.ndarray, lengths: list[int]) -> pa.ListArray:
    items = pa.StructArray.from_arrays([pa.array(values), pa.array(positions, pa.int64())], names=[POSITIONED_VALUE, POSITION])
    return pa.ListArray.from_arrays(pa.array(np.concatenate([[0], np.cumsum(lengths)]), pa.int32()), items)


def _chunked_runs(rng: np.random.Generator, n: int) -> np.ndarray:
    """Positions 0..n-1 as runs of chunks of rows, the chunks shuffled (a group's rows as DuckDB
    gathers them), some rows left out (the rows of other groups)."""
    chunks = np.array_split(np.sort(rng.choice(10 * n, n, replace=False)), max(1, n // 37))
    order = rng.permutation(len(chunks))
    return np.concatenate([chunks[i] for i in order])


@pytest.mark.parametrize("shape", ["sorted", "runs", "shuffled", "ties"])
def test_lists_taken_in_order_of_positions(shape: str) -> None:
    rng = np.random.default_rng(7)
    lengths = [0, 1, 2, 500, 3000, 17]
    n = sum(lengths)
    values = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 12, n)
    parts, at = [], 0
    for length in lengths:
        if shape == "sorted":
            part = np.arange(length) * 3
        elif shape == "runs":
            part = _chunked_runs(rng, length) if length else np.zeros(0, np.int64)
        elif shape == "shuffled":
            part = rng.permutation(length)
        else:
            part = rng.integers(0, 5, length)  # equal positions keep their order (a stable sort)
        parts.append(part)
        at += length
    positions = np.concatenate(parts).astype(np.int64)
    lists = _positioned(values, positions, lengths)
    expected_lists, at = [], 0
    for length, part in zip(lengths, parts):
        chunk = values[at:at + length]
        expected_lists.append(list(chunk[np.argsort(part, kind="stable")]))
        at += length
    expected = pa.array(expected_lists, pa.list_(pa.float64()))
    assert spark_double_sum(lists).equals(spark_double_sum(expected)), "sums should add the values in order of positions"
    assert spark_moments("kurtosis", lists).equals(spark_moments("kurtosis", expected)), "moments likewise"
    longs = _positioned(np.round(values).astype(np.int64) % 1000, positions, lengths)
    assert spark_long_sum(longs).equals(spark_long_sum(pa.array(
        [list(np.round(v).astype(np.int64) % 1000) for v in expected_lists], pa.list_(pa.int64())))), "long sums likewise"


def test_double_sum_of_no_values_is_null() -> None:
    assert spark_double_sum(pa.array([[], None, [-0.0]], pa.list_(pa.float64()))).to_pylist() == [None, None, 0.0]


def test_percentile_approx_takes_positioned_lists_in_order() -> None:
    """A group past the 50,000-value head: its answer depends on the order (the head is sorted
    into the samples when full), so a shuffled positioned list answers as the list in order."""
    rng = np.random.default_rng(3)
    values = np.round(rng.standard_normal(60_000) * 1000.0, 1)
    in_order = spark_percentile_approx(pa.array([values.tolist()]), [0.1, 0.5, 0.9], 100).to_pylist()
    reversed_order = spark_percentile_approx(pa.array([values[::-1].tolist()]), [0.1, 0.5, 0.9], 100).to_pylist()
    assert in_order != reversed_order, "fixture: the order of the values should matter past the head"
    shuffle = rng.permutation(len(values))
    positioned = _positioned(values[shuffle], shuffle, [len(values)])
    assert spark_percentile_approx(positioned, [0.1, 0.5, 0.9], 100).to_pylist() == in_order


def test_percentile_approx_split_where_the_hash_aggregation_fell_back() -> None:
    """Values placed after the fallback place form a second digest merged with the first; a split
    at or past the last place, or NULL, leaves one digest; each list counts its own places."""
    values = np.arange(40, dtype=np.float64)[::-1].copy()
    positions = np.arange(40) * 2
    lists = _positioned(np.concatenate([values, values]), np.concatenate([positions, positions]), [40, 40])
    whole = spark_percentile_approx(lists, [0.25, 0.5, 0.75], 5, pa.array([None, 1000], pa.int64())).to_pylist()
    assert whole[0] == whole[1], "no split: one digest"
    split = spark_percentile_approx(lists, [0.25, 0.5, 0.75], 5, pa.array([37, None], pa.int64())).to_pylist()
    assert split[1] == whole[1] and split[0] != whole[0], "the first list split after its 19th value"


def test_percentile_approx_rejects_what_spark_refuses() -> None:
    with pytest.raises(ValueError):
        spark_percentile_approx(pa.array([[1.0]]), [], 100)
    with pytest.raises(ValueError):
        spark_percentile_approx(pa.array([[1.0]]), [0.5], 0)
    assert spark_percentile_approx(pa.array([[], None], pa.list_(pa.float64())), [0.5], 100).to_pylist() == [None, None]


_TASK = 1 << TASK_SHIFT


def test_sums_merge_the_tasks_sums_in_task_order() -> None:
    """Rows of two Spark tasks (their places' task bits): each task's sum, then the tasks' sums
    added in task order, as Spark's final aggregation merges them."""
    values = np.array([1e16, 1.0, 1.0, -1e16, 1.0])
    places = np.array([0, 1, 2, _TASK, _TASK + 1])
    split = spark_double_sum(_positioned(values, places, [5]))
    assert split.to_pylist() == [(1e16 + 1.0 + 1.0) + (-1e16 + 1.0)], "each task's sum, then the tasks' sums"
    one = spark_double_sum(_positioned(values, np.arange(5), [5]))
    assert one.to_pylist() == [1e16 + 1.0 + 1.0 - 1e16 + 1.0], "one task adds the rows in order"
    longs = _positioned(np.array([2**62, 2**62, -(2**62), 5]), np.array([0, _TASK, _TASK + 1, 2 * _TASK]), [4])
    assert spark_long_sum(longs).to_pylist() == [2**62 + 5], "no task's running total passes a bigint"
    assert spark_long_sum(_positioned(np.array([2**62, 2**62, -(2**62)]), np.arange(3), [3])).to_pylist() == [None]


def test_decimal_totals_of_tasks_checked_when_merged() -> None:
    from decimal import Decimal

    wide = Decimal(6) * Decimal(10) ** 37
    items = pa.StructArray.from_arrays([pa.array([wide, wide, -wide, wide, wide], pa.decimal128(38, 0)),
                                        pa.array([0, _TASK, _TASK + 1, 0, _TASK], pa.int64())], names=[POSITIONED_VALUE, POSITION])
    lists = pa.ListArray.from_arrays(pa.array([0, 3, 5], pa.int32()), items)
    assert spark_decimal_sum(lists).to_pylist() == [wide, None], "6E37 + (6E37 - 6E37) fits; 6E37 + 6E37 passes 38 digits"


def test_mode_merges_the_tasks_maps() -> None:
    """Seven values met once each: one task's map puts -766 first, the final map merged from
    the two tasks' maps 94 (Spark 4.3, two files under local[2])."""
    values = np.array([824, -395, 155, 94, 894, -766, -63], np.int32)
    one = _positioned(values, np.arange(7), [7])
    two = _positioned(values, np.array([0, 1, 2, _TASK, _TASK + 1, _TASK + 2, _TASK + 3]), [7])
    assert spark_mode(one).to_pylist() == [-766]
    assert spark_mode(two).to_pylist() == [94]


def _inserted(null_keys: list[bool]) -> list[int]:
    """Each row's index in the array of ``UnsafeInMemorySorter.insertRecord`` as Spark's source
    writes it, one row at a time (a NULL-keyed row at the null boundary, the row there to the end),
    then the non-NULL part sorted stably by a key every row shares."""
    array: list[int] = []
    boundary = 0
    for row, null_key in enumerate(null_keys):
        array.append(row)
        if null_key:
            array[-1], array[boundary] = array[boundary], row
            boundary += 1
    places = [0] * len(null_keys)
    for place, row in enumerate(array):
        places[row] = place
    return places


@given(st.lists(st.lists(st.booleans(), max_size=60), max_size=8), st.lists(st.floats(0, 1), min_size=1, max_size=8))
def test_radix_places_follow_insert_record(rows: list[list[bool]], densities: list[float]) -> None:
    rng = np.random.default_rng(len(rows))
    # every other list NULL-keyed at a density of its own: dense runs, where a row moves many times
    lists = [r if i % 2 else [bool(rng.random() < densities[i % len(densities)]) for _ in r] for i, r in enumerate(rows)]
    got = spark_radix_places(pa.array(lists, pa.list_(pa.bool_()))).to_pylist()
    assert got == [_inserted(r) for r in lists], "should place each row where insertRecord's swaps leave it"
