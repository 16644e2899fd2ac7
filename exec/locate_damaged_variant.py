"""Name the file of a damaged variant that a function over whole variants met.

``to_json``, ``schema_of_variant`` and Spark's own variant functions (on the Spark engine) see a
value, not where it was read: their error about damaged bytes names no file. Where the query
reads one file, that file is the one (:func:`locate_damaged_variant` names it at once); where it
reads several, the variant columns it reads whole are read again, on this error path only, to
find the file that holds a damaged value.
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from vpush.codec.errors import MALFORMED_VARIANT, MalformedVariantError, VpushError
from vpush.codec.native import UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT, NativeUnsupportedError, is_valid_variant_native
from vpush.codec.rebuild_variants import rebuild_variants
from vpush.codec.value import Variant
from vpush.exec.variant_functions import to_json_column
from vpush.optimizer.plan import FileScan, Plan

_DAMAGE_CLASSES = frozenset({MALFORMED_VARIANT, UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT})


def locate_damaged_variant(error: VpushError, plan: Plan) -> VpushError:
    """``error``, about damaged variant bytes and naming no file, with the file and variant
    column (and the byte offset where unknown) of the first damaged value among the variant
    columns ``plan`` reads whole, in the order of its scans and files (where several files hold
    one, the first, which the failing function need not have met first); unchanged where it
    names its file, is about something else, or no file holds a damaged value by Spark's
    ``is_valid_variant`` (a column the scan cannot rebuild counts as damaged).

    Example:
        >>> from vpush.optimizer.plan import Plan
        >>> error = VpushError("bad", file="a.parquet", error_class=MALFORMED_VARIANT)
        >>> locate_damaged_variant(error, Plan(source_sql="", expression=None, scans=())) is error
        True

    Args:
        error: the error a query over ``plan`` raised.
        plan: the query's plan: its scans' files, row groups and columns.

    Returns:
        ``error`` itself, its context filled in where found.
    """
    if not (isinstance(error, MalformedVariantError) or error.error_class in _DAMAGE_CLASSES):
        return error
    if error.file is not None and error.column_path is not None:
        return error
    files = [f for scan in plan.scans for f in scan.files]
    columns = {name for f in files for name in _whole_variants(f)}
    if len({f.path for f in files}) == 1:
        # one file: the value came from it (and from the column, where it reads one)
        return error.with_context(file=files[0].path, column_path=columns.pop() if len(columns) == 1 else None)
    if error.file is not None:
        return error
    for file in files:
        for column in _whole_variants(file):
            damaged, offset = _first_damage(file, column)
            if damaged:
                return error.with_context(file=file.path, column_path=column, offset=offset)
    return error


def _whole_variants(file: FileScan) -> list[str]:
    """The variant columns (dotted paths) of ``file`` that its scan reads whole."""
    read = {c.lower() for c in file.columns}
    return [name for name in file.variant_columns if name.split(".")[0].lower() in read]


def _first_damage(file: FileScan, column: str) -> tuple[bool, int | None]:
    """Whether variant ``column`` holds a damaged value in the row groups ``file`` reads, and
    the byte offset of the first one's damage where known."""
    try:
        for variants in _row_groups(file, column):
            metadata, value = variants.flatten()
            try:
                valid = is_valid_variant_native(metadata, value)
            except NativeUnsupportedError:
                valid = pa.array([None if m is None or v is None else _sound(m, v) for m, v in
                                  zip(metadata.to_pylist(), value.to_pylist())], pa.bool_())
            bad = np.flatnonzero(~valid.fill_null(True).to_numpy(zero_copy_only=False))
            if len(bad):
                return True, _offset(variants.slice(int(bad[0]), 1))
    except VpushError as exc:  # the scan itself cannot rebuild the column there
        return True, exc.offset
    except (OSError, pa.ArrowException):
        return False, None  # the file cannot be read again: nothing to say about it
    return False, None


def _offset(variant: pa.StructArray) -> int | None:
    """Where the damage of one damaged variant is, as ``to_json`` (or the spec's validation)
    finds it, where either says."""
    try:
        to_json_column(variant, "UTC")
    except VpushError as exc:
        if exc.offset is not None:
            return exc.offset
    metadata, value = variant.flatten()
    try:
        Variant(metadata[0].as_py(), value[0].as_py()).validate()
    except MalformedVariantError as exc:
        return exc.offset
    return None


def _sound(metadata: bytes, value: bytes) -> bool:
    try:
        Variant(metadata, value).validate()
    except MalformedVariantError:
        return False
    return True


def _row_groups(file: FileScan, column: str) -> Iterator[pa.StructArray]:
    """Variant ``column`` of each row group ``file`` reads, rebuilt as the scan rebuilds it."""
    names = column.split(".")
    with pq.ParquetFile(file.path) as parquet:
        top = next((n for n in parquet.schema_arrow.names if n.lower() == names[0].lower()), None)
        if top is None:
            return
        for row_group in file.row_groups:
            array = parquet.read_row_group(row_group, columns=[top]).column(top).combine_chunks()
            for name in names[1:]:
                array = array.field(name)
            yield rebuild_variants(file.variant_columns[column], array, file=file.path)
