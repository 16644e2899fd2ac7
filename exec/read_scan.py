"""Read a scan's files into Arrow batches: the needed columns of the surviving row groups, with
every variant column (top-level or inside plain structs) rebuilt as ``struct<metadata, value>``
by the codec."""
from __future__ import annotations

from collections.abc import Iterator, Mapping

import pyarrow as pa
import pyarrow.parquet as pq

from vpush.codec.errors import VpushError
from vpush.codec.layout import VariantLayout
from vpush.codec.rebuild_variants import rebuild_variants
from vpush.exec.errors import ExecutionError
from vpush.optimizer.plan import ROW_COUNT_COLUMN, FileScan, Scan

BATCH_ROWS = 65_536
"""Rows read at once within a row group: memory stays bounded, and a rebuilt variant column
stays far below the 2 GiB a ``binary`` array can hold."""


def _rebuild(col: pa.Array, path: str, layouts: Mapping[str, VariantLayout], file: str) -> pa.Array:
    """``col`` with the variant columns at or below ``path`` rebuilt."""
    if path in layouts:
        return rebuild_variants(layouts[path], col, file=file)
    if not pa.types.is_struct(col.type) or not any(k.startswith(path + ".") for k in layouts):
        return col
    assert isinstance(col, pa.StructArray)
    children = [
        _rebuild(col.field(i), f"{path}.{col.type.field(i).name}", layouts, file)
        for i in range(col.type.num_fields)
    ]
    mask = col.is_null() if col.null_count else None
    return pa.StructArray.from_arrays(children, names=[f.name for f in col.type], mask=mask)


def _conform(batch: pa.RecordBatch, scan: Scan, file: FileScan) -> pa.RecordBatch:
    """Put a file's columns into the scan's schema: its order and types, the file's partition
    values as constant columns, nulls for columns the file lacks (files of one table may differ)."""
    num_rows = batch.num_rows
    by_name = {name.lower(): i for i, name in enumerate(batch.schema.names)}
    partition_values = {name.lower(): value for name, value in file.partition_values.items()}
    arrays = []
    for field in scan.schema:
        if field.name == ROW_COUNT_COLUMN:
            arrays.append(pa.nulls(num_rows))
            continue
        if field.name.lower() in partition_values:
            value = partition_values[field.name.lower()]
            arrays.append(pa.repeat(pa.scalar(value, type=field.type), num_rows))
            continue
        i = by_name.get(field.name.lower())
        if i is None:
            arrays.append(pa.nulls(num_rows, type=field.type))
            continue
        name = batch.schema.names[i]
        col = _rebuild(batch.column(i), name, file.variant_columns, file.path)
        if not col.type.equals(field.type):
            try:
                col = col.cast(field.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
                raise ExecutionError(
                    f"column {name} is {col.type} here but {field.type} in the table's first file",
                    file=file.path,
                    column_path=name,
                ) from exc
        arrays.append(col)
    return pa.RecordBatch.from_arrays(arrays, schema=scan.schema)


def read_scan(scan: Scan) -> Iterator[pa.RecordBatch]:
    """Yield the scan's rows in file order, in batches of at most :data:`BATCH_ROWS` rows.

    Raises:
        VpushError: a file that cannot be read (naming it), or malformed variant data (naming
            the file, column, row group and the batch's first row in the file).
    """
    for file in scan.files:
        if not file.row_groups:
            continue
        try:
            pf = pq.ParquetFile(file.path)
        except (OSError, pa.ArrowException) as exc:
            raise ExecutionError(f"cannot open the file: {exc}", file=file.path) from exc
        with pf:
            starts = [0]
            for i in range(pf.metadata.num_row_groups):
                starts.append(starts[-1] + pf.metadata.row_group(i).num_rows)
            for rg in file.row_groups:
                first = starts[rg]
                batches = pf.iter_batches(
                    batch_size=BATCH_ROWS, row_groups=[rg], columns=list(file.columns), use_threads=True
                )
                while True:
                    try:
                        batch = next(batches)
                    except StopIteration:
                        break
                    except (OSError, pa.ArrowException) as exc:
                        raise ExecutionError(f"cannot read row group {rg}: {exc}", file=file.path) from exc
                    try:
                        yield _conform(batch, scan, file)
                    except VpushError as exc:
                        exc.message += f" (row group {rg}; the batch starts at row {first} of the file)"
                        raise exc.with_context(file=file.path)
                    first += batch.num_rows


def scan_reader(scan: Scan) -> pa.RecordBatchReader:
    """The scan as a one-pass Arrow stream."""
    return pa.RecordBatchReader.from_batches(scan.schema, read_scan(scan))
