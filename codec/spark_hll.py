"""Spark's ``approx_count_distinct`` (HyperLogLog++) over Arrow lists of hashes, by the compiled kernel.

Spark hashes each non-NULL value by ``xxhash64`` with seed 42 (:mod:`vpush.codec.spark_hash`),
sets registers from the hashes and estimates the count from them (``codec/spark_hll.c`` gives the
steps). The precision ``p`` (the register index's bits) comes from the relative standard deviation
asked for: :func:`hll_precision`.
"""

from __future__ import annotations

import math

import pyarrow as pa
import pyarrow.compute as pc

from vpush.codec.native import NativeUnsupportedError, _native

__all__ = ["DEFAULT_RELATIVE_SD", "MAX_PRECISION", "MIN_PRECISION", "hll_estimates", "hll_precision"]

DEFAULT_RELATIVE_SD = 0.05
"""Spark's relative standard deviation when ``approx_count_distinct`` is given none."""

MIN_PRECISION = 4
"""The fewest index bits Spark takes (a larger deviation fails the call)."""

MAX_PRECISION = 18
"""The most index bits vpush computes: the last of HyperLogLog++'s bias tables (Spark goes on past
it without bias correction, for deviations under about 0.0022)."""


def hll_precision(relative_sd: float) -> int:
    """Spark's index bits for a relative standard deviation: ``ceil(2 log2(1.106 / rsd))``, in
    Java's doubles.

    Example:
        >>> hll_precision(0.05), hll_precision(0.01), hll_precision(0.39)
        (9, 14, 4)
    """
    return math.ceil(2.0 * math.log(1.106 / relative_sd) / math.log(2.0))


def hll_estimates(lists: pa.Array | pa.ChunkedArray, precision: int) -> pa.Array:
    """Spark's ``approx_count_distinct`` of each list of 64-bit hashes (NULL elements skipped; a
    NULL list counts nothing): an int64 per list, never NULL.

    Example:
        >>> hll_estimates(pa.array([[1, 2**62, 2**62, None], None, []], pa.list_(pa.int64())), 9).to_pylist()
        [2, 0, 0]

    Args:
        lists: lists (or large lists) of int64 hashes: Spark's xxhash64 of each value, seed 42.
        precision: the index bits, from :data:`MIN_PRECISION` to :data:`MAX_PRECISION`.

    Raises:
        NativeUnsupportedError: no compiled kernel.
        ValueError: another precision or element type.
    """
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    if not MIN_PRECISION <= precision <= MAX_PRECISION:
        raise ValueError(f"approx_count_distinct: precision {precision} is outside {MIN_PRECISION}..{MAX_PRECISION}")
    if isinstance(lists, pa.ChunkedArray):
        lists = lists.combine_chunks() if lists.num_chunks != 1 else lists.chunk(0)
    if pa.types.is_list_view(lists.type) or pa.types.is_large_list_view(lists.type):
        lists = lists.cast(pa.large_list(lists.type.value_type))
    if not pa.types.is_int64(lists.type.value_type):
        raise ValueError(f"approx_count_distinct: lists of int64 hashes are needed, not {lists.type}")
    offsets = lists.offsets.cast(pa.int64())
    starts, ends = offsets[:-1], offsets[1:]
    if lists.null_count:
        ends = pc.if_else(lists.is_null(), starts, ends)  # a NULL list's slots may hold values
    hashes = lists.values
    buffers = hashes.buffers()
    out = _native.spark_hll(
        precision, _buffer(starts), _buffer(ends), len(lists), buffers[1], buffers[0] if hashes.null_count else None,
        hashes.offset, len(hashes),
    )
    return pa.Array.from_buffers(pa.int64(), len(lists), [None, pa.py_buffer(out)], 0)  # type: ignore[no-any-return]


def _buffer(values: pa.Array) -> pa.Buffer:
    """The int64 values of an array without NULLs, from its first value."""
    if values.offset:
        values = pc.add(values, 0)  # a fresh array whose buffer starts at its first value
    return values.buffers()[1]
