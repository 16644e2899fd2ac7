"""Read a scan's files into Arrow batches: the needed columns of the surviving row groups, with
every variant column (top-level or inside plain structs) rebuilt as ``struct<metadata, value>``
by the codec."""
from __future__ import annotations

import queue
import threading
from collections.abc import Collection, Iterator, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from vpush.codec.errors import MALFORMED_VARIANT, MalformedVariantError, VpushError
from vpush.codec.layout import ArrayLayout, ObjectLayout, ValueLayout, VariantLayout
from vpush.codec.rebuild_variants import rebuild_variants
from vpush.exec.errors import ExecutionError
from vpush.optimizer.plan import (
    LOCATOR_ARROW_TYPE,
    ORDER_COLUMN,
    ORDER_FILE_SHIFT,
    ORDER_TASK_SHIFT,
    ROW_COUNT_COLUMN,
    FileScan,
    LeafInput,
    LevelInput,
    Scan,
    ScanPart,
)
from vpush.optimizer.rewrite_variants import FILE_COLUMN

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


def deferred_schema(schema: pa.Schema, deferred: Collection[str]) -> pa.Schema:
    """``schema`` with each deferred column (:attr:`Scan.deferred`) as a row locator."""
    wanted = {name.lower() for name in deferred}
    if not wanted:
        return schema
    return pa.schema([pa.field(f.name, LOCATOR_ARROW_TYPE) if f.name.lower() in wanted else f for f in schema])


def ordered_schema(schema: pa.Schema, scan: Scan) -> pa.Schema:
    """``schema`` with :data:`ORDER_COLUMN` last where the scan is ordered (:attr:`Scan.ordered`)."""
    return schema.append(pa.field(ORDER_COLUMN, pa.int64())) if scan.ordered else schema


def _order(file: FileScan, row_group: int, first: int, num_rows: int) -> pa.Array:
    """Each row's :data:`ORDER_COLUMN`: its Spark task, its file's rank in Spark's order, then its
    index in the file."""
    return pa.array(np.arange(first, first + num_rows, dtype=np.int64) + order_base(file, row_group))


def order_base(file: FileScan, row_group: int) -> int:
    """The :data:`ORDER_COLUMN` of the first row of ``file`` (its row 0) as read with ``row_group``:
    the row group's Spark task (:attr:`FileScan.spark_tasks`) and the file's rank."""
    task = file.spark_tasks[file.row_groups.index(row_group)] if file.spark_tasks else 0
    return (task << ORDER_TASK_SHIFT) + (file.spark_rank << ORDER_FILE_SHIFT)


def _locators(file: FileScan, row_group: int, first: int, num_rows: int) -> pa.StructArray:
    """Where each row of a batch is: the file, the row group, the row within the row group."""
    return pa.StructArray.from_arrays(
        [
            pa.DictionaryArray.from_arrays(pa.array(np.zeros(num_rows, np.int32)), pa.array([file.path])),
            pa.repeat(pa.scalar(row_group, pa.int32()), num_rows),
            pa.array(np.arange(first, first + num_rows, dtype=np.int64)),
        ],
        fields=list(LOCATOR_ARROW_TYPE),
    )


def _conform(
    batch: pa.RecordBatch,
    scan: Scan,
    file: FileScan,
    schema: pa.Schema,
    deferred: Collection[str] = (),
    where: tuple[int, int] = (0, 0),
) -> pa.RecordBatch:
    """Put a file's columns into the scan's schema: its order and types, the file's partition
    values as constant columns, nulls for columns the file lacks (files of one table may differ),
    and row locators for the deferred columns (``where``: the row group and the batch's first row
    in it)."""
    num_rows = batch.num_rows
    by_name = {name.lower(): i for i, name in enumerate(batch.schema.names)}
    partition_values = {name.lower(): value for name, value in file.partition_values.items()}
    present = {c.lower() for c in file.columns}
    arrays = []
    for field in scan.schema:
        if field.name == ROW_COUNT_COLUMN:
            arrays.append(pa.nulls(num_rows))
            continue
        if field.name.lower() in partition_values:
            value = partition_values[field.name.lower()]
            arrays.append(pa.repeat(pa.scalar(value, type=field.type), num_rows))
            continue
        if field.name.lower() in deferred:
            if field.name.lower() in present:
                arrays.append(_locators(file, where[0], where[1], num_rows))
            else:
                arrays.append(pa.nulls(num_rows, type=LOCATOR_ARROW_TYPE))
            continue
        i = by_name.get(field.name.lower())
        if i is None:
            arrays.append(pa.nulls(num_rows, type=field.type))
            continue
        name = batch.schema.names[i]
        col = _rebuild(batch.column(i), name, file.variant_columns, file.path)
        if not col.type.equals(field.type):
            try:
                if pa.types.is_timestamp(col.type) and pa.types.is_timestamp(field.type) and field.type.unit == "us":
                    col = timestamps_in_micros(col, field.type)  # INT96 read by pyarrow in nanoseconds
                else:
                    col = col.cast(field.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
                raise ExecutionError(
                    f"column {name} is {col.type} here but {field.type} in the table's first file",
                    file=file.path,
                    column_path=name,
                ) from exc
        arrays.append(col)
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def timestamps_in_micros(column: pa.Array, target: pa.DataType) -> pa.Array:
    """A timestamp column in microseconds: finer units floored as Spark floors INT96 nanoseconds
    (Arrow's integer division truncates towards zero, wrong before 1970)."""
    import pyarrow.compute as pc

    unit = column.type.unit
    if unit == "ns":
        ticks = column.view(pa.int64())
        quotient = pc.divide(ticks, 1000)
        inexact = pc.and_(pc.less(ticks, 0), pc.not_equal(pc.multiply(quotient, 1000), ticks))
        micros = pc.subtract(quotient, pc.if_else(inexact, 1, 0).cast(pa.int64()))
        return micros.view(target)
    # The epoch values do not depend on the zone: only the unit changes.
    return column.cast(pa.timestamp("us", tz=column.type.tz)).view(pa.int64()).view(target)


def read_scan(scan: Scan, part: ScanPart | None = None, *, defer: bool = False) -> Iterator[pa.RecordBatch]:
    """Yield the rows of the scan (or of one of its parts) in file order, in batches of at most
    :data:`BATCH_ROWS` rows: the scan's columns, then the part's inputs. With ``defer``, the
    scan's deferred columns are not read: each row gives its locator instead
    (:func:`deferred_schema`). An ordered scan gives :data:`ORDER_COLUMN` last (:func:`ordered_schema`).

    Raises:
        VpushError: a file that cannot be read (naming it), or malformed variant data (naming
            the file, column, row group and the batch's first row in the file).
    """
    files = part.files if part is not None else scan.files
    deferred = frozenset(name.lower() for name in scan.deferred) if defer else frozenset()
    scan_schema = deferred_schema(scan.schema, deferred)
    part_schema = deferred_schema(part.schema, deferred) if part is not None else None
    for file in files:
        if not file.row_groups:
            continue
        try:
            pf = pq.ParquetFile(file.path, read_dictionary=_dictionary_leaves(part))
        except (OSError, pa.ArrowException) as exc:
            raise ExecutionError(f"cannot open the file: {exc}", file=file.path) from exc
        with pf:
            starts = [0]
            for i in range(pf.metadata.num_row_groups):
                starts.append(starts[-1] + pf.metadata.row_group(i).num_rows)
            for rg in file.row_groups:
                first = starts[rg]
                unread = file.unread.get(rg, frozenset())
                columns = [c for c in file.columns if c.lower() not in deferred]
                if part is not None:
                    columns += _input_columns(part, file, unread)
                batches = pf.iter_batches(
                    batch_size=BATCH_ROWS, row_groups=[rg], columns=list(dict.fromkeys(columns)), use_threads=True
                )
                while True:
                    try:
                        batch = next(batches)
                    except StopIteration:
                        break
                    except (OSError, pa.ArrowException) as exc:
                        raise ExecutionError(
                            f"cannot read row group {rg}: {exc}",
                            file=file.path,
                            column_path=_unreadable_column(pf, rg, list(dict.fromkeys(columns))),
                        ) from exc
                    try:
                        out = _conform(batch, scan, file, scan_schema, deferred, (rg, first - starts[rg]))
                        if part is not None:
                            assert part_schema is not None
                            out = _with_inputs(out, batch, part, file, unread, part_schema)
                        if scan.ordered:
                            out = out.append_column(ORDER_COLUMN, _order(file, rg, first, batch.num_rows))
                        yield out
                    except VpushError as exc:
                        if isinstance(exc, MalformedVariantError):
                            # Spark's reader raises it, for shredded data that breaks the spec too
                            exc.with_context(error_class=MALFORMED_VARIANT)
                        exc.message += f" (row group {rg}; the batch starts at row {first} of the file)"
                        raise exc.with_context(file=file.path)
                    first += batch.num_rows


def _unreadable_column(pf: pq.ParquetFile, row_group: int, columns: list[str]) -> str | None:
    """The first leaf column of ``columns`` whose chunk in ``row_group`` cannot be read, for the
    error of a read that failed (pyarrow's message does not say which); None where each reads
    alone."""
    leaves = [pf.schema.column(i).path for i in range(len(pf.schema))]
    for column in columns:
        for leaf in (p for p in leaves if p == column or p.startswith(column + ".")):
            try:
                pf.read_row_group(row_group, columns=[leaf], use_threads=False)
            except (OSError, pa.ArrowException):
                return leaf
    return None


def _dictionary_leaves(part: ScanPart | None) -> list[str] | None:
    """The Parquet paths of the part's leaf inputs that it reads as dictionaries."""
    if part is None:
        return None
    types = dict(zip(part.schema.names, part.schema.types))
    leaves = [
        item.path
        for item in part.inputs
        if isinstance(item, LeafInput) and pa.types.is_dictionary(types.get(item.name, pa.null()))
    ]
    return leaves or None


def _input_columns(part: ScanPart, file: FileScan, unread: frozenset[str]) -> list[str]:
    """The Parquet column paths to read for the part's inputs in one row group."""
    out: list[str] = []
    for item in part.inputs:
        if item.name in unread:
            continue
        if isinstance(item, LeafInput):
            out.append(item.path)
            continue
        layout = file.input_layouts.get(item.column) if file.input_layouts else None
        if layout is None:
            raise ExecutionError(f"no variant column {item.column} in the file", file=file.path)
        level = layout.level(item.level)
        assert level is not None
        if layout.metadata is not None:
            out.append(layout.metadata)
        out.append(level.path)
    return out


def _child(array: pa.Array, name: str) -> pa.Array | None:
    """A struct child with the parent's nulls applied, or None when there is none."""
    if not pa.types.is_struct(array.type) or array.type.get_field_index(name) < 0:
        return None
    assert isinstance(array, pa.StructArray)
    return array.flatten()[array.type.get_field_index(name)]


def _navigate(batch: pa.RecordBatch, names: tuple[str, ...]) -> pa.Array | None:
    i = batch.schema.get_field_index(names[0])
    if i < 0:
        return None
    array: pa.Array | None = batch.column(i)
    for name in names[1:]:
        if array is None:
            return None
        array = _child(array, name)
    return array


def _element(lists: pa.Array, index: int) -> pa.Array:
    """Each row's element ``index`` of ``lists`` (a list array); null where the list is null or
    holds no such element."""
    if not (pa.types.is_list(lists.type) or pa.types.is_large_list(lists.type)):
        lists = lists.cast(pa.large_list(lists.type.value_field))
    offsets = lists.offsets.to_numpy()
    inside = (np.diff(offsets) > index) & lists.is_valid().to_numpy(zero_copy_only=False)
    positions = pa.array(offsets[:-1].astype(np.int64) + index, mask=~inside)
    return lists.values.take(positions)


def _rebuild_level(batch: pa.RecordBatch, item: LevelInput, file: FileScan) -> pa.Array:
    """One level of a variant rebuilt as ``struct<metadata, value>``; null where it is missing
    (a field; an element past the end, or of a row whose array is not typed), a Variant null
    where an element is one (both parts null, as the codec reads an element)."""
    layout = file.input_layouts[item.column]
    if not item.level:
        column = _navigate(batch, (item.column,))
        assert column is not None
        return rebuild_variants(layout, column, file=file.path)
    level = layout.level(item.level)
    assert level is not None and layout.metadata is not None
    holder = _navigate(batch, (item.column,))
    node: ValueLayout = layout
    for step in item.level:
        assert holder is not None
        typed = _child(holder, node.typed_field)
        assert typed is not None
        if isinstance(step, int):
            assert isinstance(node.typed_value, ArrayLayout)
            holder, node = _element(typed, step), node.typed_value.element
        else:
            assert isinstance(node.typed_value, ObjectLayout)
            found = node.typed_value.field(step)
            assert found is not None
            holder, node = _child(typed, step), found
    metadata = _navigate(batch, (item.column, "metadata"))
    assert holder is not None and metadata is not None
    arrays = [metadata]
    fields = [pa.field("metadata", pa.binary())]
    present: pa.Array | None = None
    for name in (level.value_field, level.typed_field):
        child = _child(holder, name)
        if child is None:
            continue
        arrays.append(child)
        fields.append(pa.field(name, child.type))
        valid = child.is_valid()
        present = valid if present is None else pc.or_(present, valid)
    if isinstance(item.level[-1], int):
        present = holder.is_valid()  # an element with both parts null is a Variant null
    sub_layout = VariantLayout(
        name=level.name,
        path=level.path,
        value=level.value,
        typed_value=level.typed_value,
        value_field=level.value_field,
        typed_field=level.typed_field,
        metadata=layout.metadata,
    )
    struct = pa.StructArray.from_arrays(arrays, fields=fields, mask=pc.invert(present) if present is not None else None)
    rebuilt = rebuild_variants(sub_layout, struct, file=file.path)
    return rebuilt


def _with_inputs(
    out: pa.RecordBatch,
    batch: pa.RecordBatch,
    part: ScanPart,
    file: FileScan,
    unread: frozenset[str],
    schema: pa.Schema,
) -> pa.RecordBatch:
    """``out`` (the scan's columns) with the part's inputs appended."""
    arrays = list(out.columns)
    num_rows = batch.num_rows
    for field, item in zip(list(part.schema)[out.num_columns:], part.inputs):
        if item.name in unread:
            arrays.append(pa.nulls(num_rows, type=field.type))
        elif isinstance(item, LeafInput):
            array = _navigate(batch, tuple(item.names))
            if array is None:
                raise ExecutionError(f"the column {item.path} was not read", file=file.path, column_path=item.path)
            arrays.append(array)
        else:
            arrays.append(_rebuild_level(batch, item, file))
    if part.schema.names[-1] == FILE_COLUMN:
        indices = pa.nulls(num_rows, pa.int32()).fill_null(0)
        arrays.append(pa.DictionaryArray.from_arrays(indices, pa.array([file.path])))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


PREFETCH_BATCHES = 2
"""Batches a scan reads ahead of its consumer."""

_DONE = object()


def prefetch(batches: Iterator[pa.RecordBatch], depth: int = PREFETCH_BATCHES) -> Iterator[pa.RecordBatch]:
    """``batches``, read ahead by up to ``depth`` batches in a thread of its own, so that reading
    the next row group (pyarrow releases the GIL while it reads and decodes) overlaps the work of
    whoever consumes this one. An exception of ``batches`` is raised here, in order; closing
    this iterator early stops the thread and closes ``batches`` (and so their files)."""
    ready: queue.Queue[object] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def offer(item: object) -> bool:
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for batch in batches:
                if not offer(batch):
                    return
            offer(_DONE)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which raises it
            offer(exc)
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()

    worker = threading.Thread(target=produce, name="vpush-scan", daemon=True)
    current_thread = threading.current_thread  # kept: a stream left open is closed at exit, when module globals may be gone
    worker.start()
    try:
        while True:
            item = ready.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            assert isinstance(item, pa.RecordBatch)
            yield item
    finally:
        stop.set()
        # Closed on its own reading thread (its last reference dropped there), the thread is
        # this one and stops by itself once this returns.
        if worker is not current_thread():
            worker.join()


def scan_reader(scan: Scan, part: ScanPart | None = None, *, defer: bool = False) -> pa.RecordBatchReader:
    """The scan (or one part of it) as a one-pass Arrow stream (``defer``: see :func:`read_scan`)."""
    schema = part.schema if part is not None else scan.schema
    if defer:
        schema = deferred_schema(schema, scan.deferred)
    return pa.RecordBatchReader.from_batches(ordered_schema(schema, scan), prefetch(read_scan(scan, part, defer=defer)))
