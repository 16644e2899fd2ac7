"""The tasks of a scan on the Spark engine: which row groups each Spark task reads, how they are
grouped, and how they travel to the tasks as JSON text.

A scan's tasks travel in an option of vpush's Spark data source. Option text can be set by
anyone who shares the SparkSession, so it is plain JSON (Arrow schemas and partition values as
base64 Arrow IPC, a data format), never pickle: decoding it runs no code. A task opens the files
it reads and takes their variant layouts from their own footers, so no layout travels either.

Row groups are grouped into tasks as Spark's own file scan groups files into partitions
(``FilePartition``): files cut at row-group bounds into splits of about ``total / parallelism``
bytes, no more than ``spark.sql.files.maxPartitionBytes``, and the splits packed into tasks of
that size, each counted ``spark.sql.files.openCostInBytes`` more, the files taken largest first
as Spark sorts its splits (:attr:`~vpush.optimizer.plan.FileScan.spark_rank`). A task of Spark's Python data source costs tens of milliseconds however little it reads,
so one task per row group of a table of many small row groups spends its time on tasks.
"""
from __future__ import annotations

import base64
import dataclasses
import json
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from vpush.codec.java_format import duckdb_time_zone
from vpush.codec.errors import VpushError
from vpush.exec.errors import ExecutionError
from vpush.optimizer.plan import FileScan, Input, LeafInput, LevelInput, Plan, Scan, ScanPart

if TYPE_CHECKING:
    import duckdb

    from vpush.codec.layout import VariantLayout
    from vpush.optimizer.variant_types import SparkType

TASKS_FORMAT = 1
"""The version of the JSON encoding, checked when decoding."""

DEFAULT_MAX_PARTITION_BYTES = 128 * 1024 * 1024
"""Spark's default ``spark.sql.files.maxPartitionBytes``."""

DEFAULT_OPEN_COST_BYTES = 4 * 1024 * 1024
"""Spark's default ``spark.sql.files.openCostInBytes``."""

NO_PART = -1
"""The part index of a piece of a scan that has no parts (it extracts nothing)."""

_CACHE_LOCK = threading.Lock()
_FOOTERS: dict[tuple[str, int, int], tuple[Mapping[str, VariantLayout], int, int]] = {}
_MAX_FOOTERS = 1024
_CHUNK_BYTES: dict[int, tuple[Any, tuple[tuple[tuple[str, int], ...], ...]]] = {}
_CONNECTIONS: dict[str, list[tuple[duckdb.DuckDBPyConnection, set[str]]]] = {}
_IN_USE: dict[int, tuple[duckdb.DuckDBPyConnection, set[str]]] = {}
_MAX_FREE_CONNECTIONS = 2

_BYTE_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
               "g": 1 << 30, "gb": 1 << 30, "t": 1 << 40, "tb": 1 << 40}
_BYTE_STRING = re.compile(r"\s*(\d+)\s*([a-zA-Z]*)\s*\Z")


@dataclasses.dataclass(frozen=True)
class FileRef:
    """One file's share of a task: the row groups and top-level columns to read, the file's
    partition values (a one-row Arrow batch, or None), and per row group the inputs left unread."""

    path: str
    row_groups: tuple[int, ...]
    columns: tuple[str, ...]
    partition_values: pa.RecordBatch | None = None
    unread: tuple[tuple[int, tuple[str, ...]], ...] = ()


@dataclasses.dataclass(frozen=True)
class ScanTasks:
    """A scan's tasks and what they share. Each task is a list of pieces: a part's index
    (:data:`NO_PART` when the scan has no parts) and the files it reads of that part."""

    name: str
    table: str
    scan_schema: pa.Schema
    parts: tuple[ScanPart, ...]
    """The scan's parts, without their files (each task brings its own)."""
    queries: tuple[str, ...]
    functions: tuple[tuple[str, SparkType], ...]
    time_zone: str
    schema: pa.Schema
    """The Arrow schema of the rows the tasks produce."""
    tasks: tuple[tuple[tuple[int, tuple[FileRef, ...]], ...], ...]


def spark_bytes(text: str | None, default: int) -> int:
    """A size in Spark's byte-string syntax (``134217728b``, ``4MB``, ``128m``), in bytes.

    Example:
        >>> spark_bytes("128m", 0), spark_bytes("4194304b", 0), spark_bytes(None, 7)
        (134217728, 4194304, 7)
    """
    if text is None:
        return default
    found = _BYTE_STRING.match(str(text))
    if found is None or found.group(2).lower() not in _BYTE_UNITS:
        return default
    return int(found.group(1)) * _BYTE_UNITS[found.group(2).lower()]


def _read_prefixes(file: FileScan, part: ScanPart | None) -> tuple[str, ...]:
    """The Parquet paths (and prefixes) of what a task reads of the file: its top-level columns
    and its part's inputs."""
    prefixes = list(file.columns)
    for item in part.inputs if part is not None else ():
        prefixes.append(item.path if isinstance(item, LeafInput) else item.column)
    return tuple(prefixes)


def _chunk_bytes(metadata: Any, *, keep: bool) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Per row group, each column chunk's Parquet path and compressed bytes. Kept for the
    footers the catalog holds (the same object from query to query), since walking a footer's
    chunks through pyarrow costs milliseconds for a table of many row groups."""
    with _CACHE_LOCK:
        found = _CHUNK_BYTES.get(id(metadata))
    if found is not None and found[0] is metadata:
        return found[1]
    sizes = []
    for rg in range(metadata.num_row_groups):
        group = metadata.row_group(rg)
        chunks = (group.column(i) for i in range(group.num_columns))
        sizes.append(tuple((c.path_in_schema, c.total_compressed_size) for c in chunks))
    out = tuple(sizes)
    if not keep:
        return out
    with _CACHE_LOCK:
        if len(_CHUNK_BYTES) >= _MAX_FOOTERS:
            _CHUNK_BYTES.pop(next(iter(_CHUNK_BYTES)))
        # The footer itself is kept with its sizes, so that its id is not reused meanwhile.
        _CHUNK_BYTES[id(metadata)] = (metadata, out)
    return out


def _row_group_bytes(chunks: tuple[tuple[str, int], ...], prefixes: tuple[str, ...]) -> int:
    """The compressed bytes of the column chunks (of one row group) that a task reads."""
    exact = frozenset(prefixes)
    below = tuple(p + "." for p in prefixes)
    return sum(size for path, size in chunks if path in exact or path.startswith(below))


def _file_ref(file: FileScan, row_groups: Sequence[int], scan_schema: pa.Schema) -> FileRef:
    values = None
    if file.partition_values:
        by_name = {name.lower(): value for name, value in file.partition_values.items()}
        fields = [f for f in scan_schema if f.name.lower() in by_name]
        if fields:
            values = pa.RecordBatch.from_arrays(
                [pa.array([by_name[f.name.lower()]], type=f.type) for f in fields], schema=pa.schema(fields)
            )
    unread = tuple((rg, tuple(sorted(file.unread[rg]))) for rg in row_groups if file.unread.get(rg))
    return FileRef(file.path, tuple(row_groups), tuple(file.columns), values, unread)


def plan_tasks(
    plan: Plan,
    scan: Scan,
    schema: pa.Schema,
    time_zone: str,
    *,
    parallelism: int,
    max_partition_bytes: int = DEFAULT_MAX_PARTITION_BYTES,
    open_cost_bytes: int = DEFAULT_OPEN_COST_BYTES,
) -> ScanTasks:
    """Group the row groups pruning kept into tasks as Spark groups a file scan's splits: in
    Spark's file order (largest first), about ``total / parallelism`` bytes a task (at least ``open_cost_bytes``, at most
    ``max_partition_bytes``), where each split of a file adds ``open_cost_bytes``. The bytes are
    the compressed column chunks the tasks read.

    Args:
        plan: the plan (its engine functions travel with the tasks).
        scan: the scan.
        schema: the Arrow schema of the rows the tasks produce.
        time_zone: the session time zone the tasks compute in.
        parallelism: the tasks Spark runs at once (its default parallelism).
        max_partition_bytes: ``spark.sql.files.maxPartitionBytes``.
        open_cost_bytes: ``spark.sql.files.openCostInBytes``.
    """
    import pyarrow.parquet as pq

    pieces: list[tuple[int, FileScan, ScanPart | None]] = []
    if scan.parts:
        for index, scan_part in enumerate(scan.parts):
            pieces += [(index, f, scan_part) for f in scan_part.files if f.row_groups]
    else:
        pieces += [(NO_PART, f, None) for f in scan.files if f.row_groups]
    # (part index, file, row group, bytes), in file order.
    units: list[tuple[int, FileScan, int, int]] = []
    for index, file, part in pieces:
        metadata = file.footer
        if metadata is None:
            try:
                metadata = pq.read_metadata(file.path)
            except (OSError, pa.ArrowException) as exc:
                raise ExecutionError(f"cannot read the footer: {exc}", file=file.path) from exc
        chunks = _chunk_bytes(metadata, keep=file.footer is not None)
        prefixes = _read_prefixes(file, part)
        units += [(index, file, rg, _row_group_bytes(chunks[rg], prefixes)) for rg in file.row_groups]
    total = sum(size for *_, size in units) + open_cost_bytes * len(pieces)
    split = min(max_partition_bytes, max(open_cost_bytes, total // max(parallelism, 1)))

    # As Spark's FilePartition: each file cut into splits of at most ``split`` bytes (here at
    # row-group bounds), then the splits packed, in Spark's file order, a task closing when the next
    # split's bytes would overflow it, each split counting ``open_cost_bytes`` more.
    splits: list[tuple[int, FileScan, list[int], int]] = []
    for index, file, rg, rg_bytes in units:
        last = splits[-1] if splits else None
        if last is not None and last[1] is file and last[3] + rg_bytes <= split:
            last[2].append(rg)
            splits[-1] = (last[0], file, last[2], last[3] + rg_bytes)
        else:
            splits.append((index, file, [rg], rg_bytes))
    # Spark packs the splits largest first: by the file's place in that order (its size), so that
    # aggregates that depend on the order of rows meet them as Spark's own scan gives them
    splits.sort(key=lambda s: s[1].spark_rank)
    tasks: list[list[tuple[int, FileScan, list[int]]]] = []
    current: list[tuple[int, FileScan, list[int]]] = []
    size = 0
    for index, file, rgs, split_bytes in splits:
        if current and size + split_bytes > split:
            tasks.append(current)
            current, size = [], 0
        current.append((index, file, rgs))
        size += split_bytes + open_cost_bytes
    if current:
        tasks.append(current)

    bare_parts = tuple(dataclasses.replace(p, files=(), native=None) for p in scan.parts)
    return ScanTasks(
        name=scan.name,
        table=scan.table,
        scan_schema=scan.schema,
        parts=bare_parts,
        queries=tuple(scan.part_queries) if scan.parts else (),
        functions=tuple(plan.functions),
        time_zone=time_zone,
        schema=schema,
        tasks=tuple(
            tuple((index, (_file_ref(file, rgs, scan.schema),)) for index, file, rgs in task) for task in tasks
        ),
    )


def _footer_facts(path: str) -> tuple[Mapping[str, VariantLayout], int, int]:
    """The file's variant layouts, rows and row groups, from its footer. Kept for the life of
    the worker process (Spark reuses its Python workers from task to task, and a footer costs
    milliseconds to parse), under the file's size and modification time, so that a file
    rewritten in place is read again."""
    import os

    import pyarrow.parquet as pq

    from vpush.codec.layout import find_variant_columns

    try:
        stat = os.stat(path)
    except OSError as exc:
        raise ExecutionError(f"cannot open the file: {exc}", file=path) from exc
    key = (path, stat.st_size, stat.st_mtime_ns)
    with _CACHE_LOCK:
        found = _FOOTERS.get(key)
    if found is not None:
        return found
    try:
        pf = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise ExecutionError(f"cannot open the file: {exc}", file=path) from exc
    with pf:
        try:
            layouts = find_variant_columns(pf, file=path)
        except VpushError as exc:
            raise exc.with_context(file=path)
        facts = (layouts, pf.metadata.num_rows, pf.metadata.num_row_groups)
    with _CACHE_LOCK:
        if len(_FOOTERS) >= _MAX_FOOTERS:
            _FOOTERS.pop(next(iter(_FOOTERS)))
        _FOOTERS[key] = facts
    return facts


def _file_scan(ref: FileRef) -> FileScan:
    """The file's share of a task, with its variant layouts read from its own footer."""
    layouts, num_rows, num_row_groups = _footer_facts(ref.path)
    partition_values: dict[str, Any] = {}
    if ref.partition_values is not None:
        partition_values = {name: ref.partition_values.column(i)[0].as_py()
                            for i, name in enumerate(ref.partition_values.schema.names)}
    return FileScan(
        path=ref.path,
        row_groups=ref.row_groups,
        columns=ref.columns,
        variant_columns={
            k: layout for k, layout in layouts.items() if any(k == c or k.startswith(c + ".") for c in ref.columns)
        },
        num_rows=num_rows,
        num_row_groups=num_row_groups,
        partition_values=partition_values,
        input_layouts=layouts,
        unread={rg: frozenset(names) for rg, names in ref.unread},
    )


def read_task(tasks: ScanTasks, index: int) -> Iterator[pa.RecordBatch]:
    """The rows of task ``index``, as the scan's relation has them (columns, then extractions).

    Raises:
        VpushError: a file that cannot be read, malformed variant data, or a failed extraction.
    """
    from vpush.exec.read_scan import read_scan

    pieces = tasks.tasks[index]
    scan = Scan(name=tasks.name, table=tasks.table, schema=tasks.scan_schema, files=())
    if not tasks.parts:
        for _, refs in pieces:
            yield from read_scan(dataclasses.replace(scan, files=tuple(_file_scan(r) for r in refs)))
        return
    from vpush.exec.duckdb_engine import ErrorTrap, translate_message
    from vpush.exec.variant_udf import take_error

    connection = _take_connection(tasks)
    try:
        for part_index, refs in pieces:
            part = dataclasses.replace(tasks.parts[part_index], files=tuple(_file_scan(r) for r in refs))
            trap = ErrorTrap()
            stream = pa.RecordBatchReader.from_batches(part.schema, trap.guard(read_scan(scan, part)))
            connection.register(part.name, stream)
            try:
                yield from connection.sql(tasks.queries[part_index]).to_arrow_reader(65_536)
            except VpushError:
                raise
            except Exception as exc:  # DuckDB reports a failed Arrow stream as a plain OSError
                if trap.error is not None:
                    raise trap.error from None
                raised = take_error(str(exc))
                if raised is not None:
                    raise raised from None
                raise translate_message(str(exc)) from exc
            finally:
                connection.unregister(part.name)
    finally:
        _give_back(tasks.time_zone, connection)


def _take_connection(tasks: ScanTasks) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection in the tasks' time zone with their functions: one kept from an
    earlier task of this worker process if one is free, else a new one (a connection costs
    about 15 ms to open and set up, a task of a selective query little more)."""
    import duckdb

    from vpush.exec.variant_udf import register
    from vpush.optimizer.rewrite_variants import duckdb_type

    with _CACHE_LOCK:
        free = _CONNECTIONS.get(tasks.time_zone)
        kept = free.pop() if free else None
    if kept is None:
        connection = duckdb.connect()
        connection.execute("SET TimeZone = $tz", {"tz": duckdb_time_zone(tasks.time_zone)})
        kept = (connection, set())
    connection, functions = kept
    for name, target in tasks.functions:
        if name not in functions:
            register(connection, name, target, duckdb_type(target).sql(dialect="duckdb"))
            functions.add(name)
    _IN_USE[id(connection)] = kept
    return connection


def _give_back(time_zone: str, connection: duckdb.DuckDBPyConnection) -> None:
    """Keep a task's connection for the next task (a few per time zone at most)."""
    with _CACHE_LOCK:
        kept = _IN_USE.pop(id(connection), None)
        free = _CONNECTIONS.setdefault(time_zone, [])
        if kept is not None and len(free) < _MAX_FREE_CONNECTIONS:
            free.append(kept)
            return
    connection.close()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _schema_text(schema: pa.Schema) -> str:
    return _b64(schema.serialize().to_pybytes())


def _schema_of(text: str) -> pa.Schema:
    return pa.ipc.read_schema(pa.py_buffer(base64.b64decode(text, validate=True)))


def _batch_text(batch: pa.RecordBatch) -> str:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return _b64(sink.getvalue().to_pybytes())


def _batch_of(text: str) -> pa.RecordBatch:
    with pa.ipc.open_stream(pa.py_buffer(base64.b64decode(text, validate=True))) as reader:
        table = reader.read_all()
    batches = table.to_batches()
    if len(batches) != 1:
        raise ValueError("partition values must be one batch")
    return batches[0]


def _input_json(item: Input) -> dict[str, Any]:
    if isinstance(item, LeafInput):
        return {"leaf": item.name, "path": item.path, "names": list(item.names)}
    return {"level": item.name, "column": item.column, "keys": list(item.level)}


def _input_of(data: Mapping[str, Any]) -> Input:
    if "leaf" in data:
        return LeafInput(_text(data["leaf"]), _text(data["path"]), tuple(_text(n) for n in data["names"]))
    return LevelInput(_text(data["level"]), _text(data["column"]), tuple(_step(k) for k in data["keys"]))


def _step(value: Any) -> str | int:
    """A level's step: a field name or an array index (:class:`LevelInput`)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else _text(value)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def encode_tasks(tasks: ScanTasks) -> str:
    """The scan's tasks as JSON text (see the module docstring for why not pickle).

    Example:
        >>> import pyarrow as pa
        >>> empty = ScanTasks("s", "t", pa.schema([("id", pa.int64())]), (), (), (), "UTC",
        ...                   pa.schema([("id", pa.int64())]), ())
        >>> decode_tasks(encode_tasks(empty)) == empty
        True
    """
    return json.dumps(
        {
            "format": TASKS_FORMAT,
            "name": tasks.name,
            "table": tasks.table,
            "scan_schema": _schema_text(tasks.scan_schema),
            "parts": [
                {"name": p.name, "schema": _schema_text(p.schema), "inputs": [_input_json(i) for i in p.inputs]}
                for p in tasks.parts
            ],
            "queries": list(tasks.queries),
            "functions": [[name, target.to_spark()] for name, target in tasks.functions],
            "time_zone": tasks.time_zone,
            "schema": _schema_text(tasks.schema),
            "tasks": [
                [
                    [
                        index,
                        [
                            {
                                "path": r.path,
                                "row_groups": list(r.row_groups),
                                "columns": list(r.columns),
                                "partition_values": None if r.partition_values is None else _batch_text(
                                    r.partition_values
                                ),
                                "unread": [[rg, list(names)] for rg, names in r.unread],
                            }
                            for r in refs
                        ],
                    ]
                    for index, refs in task
                ]
                for task in tasks.tasks
            ],
        },
        separators=(",", ":"),
    )


def decode_tasks(text: str) -> ScanTasks:
    """The tasks :func:`encode_tasks` wrote.

    Raises:
        ExecutionError: text that is not such an encoding.
    """
    from vpush.optimizer.variant_types import parse_spark_type

    try:
        data = json.loads(text)
        if data.get("format") != TASKS_FORMAT:
            raise ValueError(f"unknown format {data.get('format')!r}")
        parts = tuple(
            ScanPart(_text(p["name"]), (), tuple(_input_of(i) for i in p["inputs"]), _schema_of(_text(p["schema"])))
            for p in data["parts"]
        )
        tasks = tuple(
            tuple(
                (
                    _int(index),
                    tuple(
                        FileRef(
                            _text(r["path"]),
                            tuple(_int(rg) for rg in r["row_groups"]),
                            tuple(_text(c) for c in r["columns"]),
                            None if r["partition_values"] is None else _batch_of(_text(r["partition_values"])),
                            tuple((_int(rg), tuple(_text(n) for n in names)) for rg, names in r["unread"]),
                        )
                        for r in refs
                    ),
                )
                for index, refs in task
            )
            for task in data["tasks"]
        )
        for task in tasks:
            for index, _ in task:
                if index != NO_PART and not 0 <= index < len(parts):
                    raise ValueError(f"no part {index}")
        queries = tuple(_text(q) for q in data["queries"])
        if len(queries) != len(parts):
            raise ValueError("one query per part")
        return ScanTasks(
            name=_text(data["name"]),
            table=_text(data["table"]),
            scan_schema=_schema_of(_text(data["scan_schema"])),
            parts=parts,
            queries=queries,
            functions=tuple((_text(n), parse_spark_type(_text(t))) for n, t in data["functions"]),
            time_zone=_text(data["time_zone"]),
            schema=_schema_of(_text(data["schema"])),
            tasks=tasks,
        )
    except (ValueError, KeyError, TypeError, AttributeError, pa.ArrowException, VpushError) as exc:
        raise ExecutionError(f"not a vpush scan's tasks: {exc}") from exc
