"""Rebuild the rows of a deferred variant column from their files, by their locators.

A query that keeps few rows of many (``ORDER BY ... LIMIT n`` with a whole variant in its
projections) need not rebuild the variant of every row it reads: the scan gives each row's
locator (file, row group, row) instead (:attr:`vpush.optimizer.plan.Scan.deferred`), and the SQL
calls ``vpush_rebuild_variant(locator, column)`` for the rows it keeps. Each row group named is
read again for that column only, and only the rows asked for are rebuilt.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from vpush.codec.layout import find_variant_columns
from vpush.codec.rebuild_variants import rebuild_variants
from vpush.exec.errors import ExecutionError
from vpush.optimizer.plan import VARIANT_ARROW_TYPE

_SEPARATOR = "\x00"  # no file path holds it


def rebuild_rows(locators: pa.StructArray | pa.ChunkedArray, column: str) -> pa.StructArray:
    """The variant column ``column`` at each locator (``struct<file, row_group, row>``), rebuilt
    as ``struct<metadata, value>``, in the locators' order; NULL where the locator is NULL.

    Raises:
        ExecutionError: a file that cannot be read or no longer holds the row (naming it).
        VpushError: malformed variant data, as the scan would raise it.
    """
    if isinstance(locators, pa.ChunkedArray):
        locators = locators.combine_chunks()
    n = len(locators)
    files = locators.field("file")
    if pa.types.is_dictionary(files.type):
        files = files.cast(pa.string())
    groups = locators.field("row_group")
    rows = locators.field("row")
    # One key per row group: the rows of each are read and rebuilt together.
    keys = pc.binary_join_element_wise(files, groups.cast(pa.string()), _SEPARATOR)
    keys = pc.if_else(locators.is_valid(), keys, pa.scalar(None, pa.string()))
    encoded = keys.dictionary_encode()
    indices = encoded.indices.to_numpy(zero_copy_only=False)
    pieces: list[pa.Array] = []
    positions: list[np.ndarray] = []
    for k, key in enumerate(encoded.dictionary.to_pylist()):
        where = np.flatnonzero(indices == k) if encoded.indices.null_count == 0 else np.flatnonzero(
            pc.fill_null(pc.equal(encoded.indices, k), False).to_numpy(zero_copy_only=False)
        )
        path, group = key.rsplit(_SEPARATOR, 1)
        pieces.append(_rebuild_group(path, int(group), column, rows.take(pa.array(where))))
        positions.append(where)
    missing = np.flatnonzero(~locators.is_valid().to_numpy(zero_copy_only=False)) if locators.null_count else None
    if missing is not None and len(missing):
        pieces.append(pa.nulls(len(missing), VARIANT_ARROW_TYPE))
        positions.append(missing)
    if not pieces:
        return pa.nulls(n, VARIANT_ARROW_TYPE)  # type: ignore[return-value]
    order = np.concatenate(positions)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.arange(n, dtype=np.int64)
    return pa.concat_arrays(pieces).take(pa.array(inverse))  # type: ignore[no-any-return]


def _rebuild_group(path: str, row_group: int, column: str, rows: pa.Array) -> pa.Array:
    """The rows ``rows`` of row group ``row_group`` of ``path``'s variant column ``column``."""
    try:
        pf = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise ExecutionError(f"cannot open the file: {exc}", file=path) from exc
    with pf:
        name = next((c for c in pf.schema_arrow.names if c.lower() == column.lower()), None)
        if name is None or row_group >= pf.metadata.num_row_groups:
            raise ExecutionError(f"the file no longer holds column {column} in row group {row_group}", file=path)
        size = pf.metadata.row_group(row_group).num_rows
        if len(rows) and pc.max(rows).as_py() >= size:
            raise ExecutionError(f"row group {row_group} no longer holds the rows read", file=path)
        try:
            table = pf.read_row_group(row_group, columns=[name], use_threads=True)
        except (OSError, pa.ArrowException) as exc:
            raise ExecutionError(f"cannot read row group {row_group}: {exc}", file=path) from exc
        taken = table.column(name).combine_chunks().take(rows)
        layout = find_variant_columns(pf, file=path).get(name)
    if layout is None:
        try:
            return taken.cast(VARIANT_ARROW_TYPE)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise ExecutionError(f"column {name} is not a variant here", file=path, column_path=name) from exc
    return rebuild_variants(layout, taken, file=path)
