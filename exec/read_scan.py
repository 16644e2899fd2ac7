"""Read a scan's files into Arrow batches: the needed columns of the surviving row groups, with
every variant column rebuilt as ``struct<metadata, value>`` by the codec."""
from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from vpush.codec.errors import VpushError
from vpush.codec.rebuild_variants import rebuild_variants
from vpush.exec.errors import ExecutionError
from vpush.optimizer.plan import ROW_COUNT_COLUMN, FileScan, Scan


def _conform(batch: pa.RecordBatch | pa.Table, scan: Scan, file: FileScan) -> pa.RecordBatch:
    """Put a file's columns into the scan's schema: its order and types, nulls for columns the
    file lacks (files of one table may differ)."""
    num_rows = batch.num_rows
    by_name = {name.lower(): i for i, name in enumerate(batch.schema.names)}
    arrays = []
    for field in scan.schema:
        if field.name == ROW_COUNT_COLUMN:
            arrays.append(pa.nulls(num_rows))
            continue
        i = by_name.get(field.name.lower())
        if i is None:
            arrays.append(pa.nulls(num_rows, type=field.type))
            continue
        col = batch.column(i)
        name = batch.schema.names[i]
        if name in file.variant_columns:
            try:
                col = rebuild_variants(file.variant_columns[name], col, file=file.path)
            except VpushError as exc:
                raise exc.with_context(file=file.path)
        elif isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
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
    """Yield the scan's rows, one batch per row group, in file order.

    Raises:
        VpushError: a file that cannot be read (naming it), or malformed variant data.
    """
    for file in scan.files:
        if not file.row_groups:
            continue
        try:
            pf = pq.ParquetFile(file.path)
        except (OSError, pa.ArrowException) as exc:
            raise ExecutionError(f"cannot open the file: {exc}", file=file.path) from exc
        with pf:
            for rg in file.row_groups:
                try:
                    table = pf.read_row_group(rg, columns=list(file.columns), use_threads=False)
                except (OSError, pa.ArrowException) as exc:
                    raise ExecutionError(f"cannot read row group {rg}: {exc}", file=file.path) from exc
                yield _conform(table, scan, file)


def scan_reader(scan: Scan) -> pa.RecordBatchReader:
    """The scan as a one-pass Arrow stream."""
    return pa.RecordBatchReader.from_batches(scan.schema, read_scan(scan))
