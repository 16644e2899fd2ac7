"""Spark's ``conv(num, from_base, to_base)`` over Arrow arrays, by the compiled kernel.

Spark 4 reads the text as an unsigned 64-bit number and raises ``ARITHMETIC_OVERFLOW`` under
ANSI where it does not fit (``codec/spark_conv.c`` gives the rules, from Spark's
``NumberConverter``); DuckDB has no ``conv``.
"""

from __future__ import annotations

import pyarrow as pa

from vpush.codec.errors import CodecError
from vpush.codec.native import NativeUnsupportedError, _native

__all__ = ["spark_conv"]


def _ints(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    return values if pa.types.is_int32(values.type) else values.cast(pa.int32())


def spark_conv(texts: pa.Array | pa.ChunkedArray, from_base: pa.Array | pa.ChunkedArray, to_base: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Spark's ``conv`` of every row: the text as a number in ``from_base``, printed in ``to_base``
    (a negative base prints it signed), NULL for a NULL, an empty text or a base outside 2..36.

    Example:
        >>> spark_conv(pa.array(["100", "-10", "FFFFFFFFFFFFFFFF", ""]), pa.array([2, 16, 16, 10]), pa.array([10, -10, 10, 2])).to_pylist()
        ['4', '-16', '18446744073709551615', None]

    Raises:
        CodecError: ``ARITHMETIC_OVERFLOW`` for a number past 2^64 - 1, as Spark raises under ANSI.
        NativeUnsupportedError: no compiled kernel.
    """
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    text = texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts
    if pa.types.is_string_view(text.type):
        text = text.cast(pa.large_string())
    width = 8 if pa.types.is_large_string(text.type) or pa.types.is_large_binary(text.type) else 4
    low, high = _ints(from_base), _ints(to_base)
    validity, offsets, data = text.buffers()[:3]
    overflow, out_validity, out_offsets, out_data = _native.spark_conv(
        offsets, data if data is not None else b"", validity if text.null_count else None, text.offset, width,
        low.buffers()[1], low.buffers()[0] if low.null_count else None, low.offset,
        high.buffers()[1], high.buffers()[0] if high.null_count else None, high.offset, len(text),
    )
    if overflow >= 0:
        raise CodecError("Overflow in function conv().", error_class="ARITHMETIC_OVERFLOW")
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.string(), len(text),
        [pa.py_buffer(out_validity) if out_validity is not None else None, pa.py_buffer(out_offsets), pa.py_buffer(out_data)],
    )
