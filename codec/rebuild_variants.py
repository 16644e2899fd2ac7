"""Rebuild a shredded variant column: the compiled kernel where it reads the input, the
pure-Python reference (:func:`vpush.codec.unshred.unshred`) everywhere else."""
from __future__ import annotations

import pyarrow as pa

from vpush.codec.layout import VariantLayout
from vpush.codec.native import NATIVE_AVAILABLE, NativeUnsupportedError, unshred_native
from vpush.codec.unshred import unshred


def rebuild_variants(
    layout: VariantLayout, array: pa.StructArray | pa.ChunkedArray, *, file: str | None = None
) -> pa.StructArray:
    """``struct<metadata: binary, value: binary>`` for a variant column as pyarrow reads it.

    The kernel and the reference write the same bytes (the tests check it on the conformance
    suite and on random data), so which one runs changes only the speed.

    Raises:
        InvalidShreddingError: data that breaks the shredding spec, naming the column and row.
        MalformedVariantError: unreadable variant bytes.
    """
    if NATIVE_AVAILABLE and not layout.draft:
        try:
            return unshred_native(array, layout=layout, file=file)
        except NativeUnsupportedError:
            pass
    return unshred(layout, array, file=file)
