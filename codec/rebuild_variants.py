"""Rebuild a shredded variant column: the compiled kernel where it reads the input, the
pure-Python reference (:func:`vpush.codec.unshred.unshred`) everywhere else. An unshredded column
is passed through as it is stored."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from vpush.codec.builder import NULL_VALUE
from vpush.codec.errors import MalformedVariantError
from vpush.codec.layout import VariantLayout
from vpush.codec.native import NATIVE_AVAILABLE, NativeUnsupportedError, unshred_native
from vpush.codec.unshred import UNSHREDDED_TYPE, plain_binary, unshred


def _stored(layout: VariantLayout, array: pa.StructArray | pa.ChunkedArray, file: str | None) -> pa.StructArray:
    """An unshredded column's metadata and value as stored. Spark reads such a column without
    looking at the bytes, and only a function that reads a value fails on a damaged one
    (``is_valid_variant`` must see damaged values to say so)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    metadata = plain_binary(array.field("metadata"))
    index = array.type.get_field_index("value")
    value = plain_binary(array.field(index)) if index >= 0 else pa.nulls(len(array), pa.binary())
    valid = array.is_valid()
    missing = pc.and_(valid, metadata.is_null())
    if pc.any(missing).as_py():
        raise MalformedVariantError(
            f"row {pc.index(missing, True).as_py()}: metadata is null in a non-null Variant",
            file=file,
            column_path=layout.metadata,
        )
    if value.null_count:
        value = pc.if_else(valid, value.fill_null(NULL_VALUE), pa.scalar(None, pa.binary()))
    return pa.StructArray.from_arrays(  # type: ignore[no-any-return]
        [metadata, value], fields=list(UNSHREDDED_TYPE), mask=pc.invert(valid) if array.null_count else None
    )


def rebuild_variants(
    layout: VariantLayout, array: pa.StructArray | pa.ChunkedArray, *, file: str | None = None
) -> pa.StructArray:
    """``struct<metadata: binary, value: binary>`` for a variant column as pyarrow reads it.

    The kernel and the reference write the same bytes (the tests check it on the conformance
    suite and on random data), so which one runs changes only the speed. A column with no
    ``typed_value`` is returned as stored, unchecked (as Spark reads it).

    Raises:
        InvalidShreddingError: data that breaks the shredding spec, naming the column and row.
        MalformedVariantError: unreadable variant bytes in a shredded column.
    """
    if not layout.draft and layout.typed_value is None and layout.metadata is not None:
        return _stored(layout, array, file)
    if NATIVE_AVAILABLE and not layout.draft:
        try:
            return unshred_native(array, layout=layout, file=file)
        except NativeUnsupportedError:
            pass
    return unshred(layout, array, file=file)
