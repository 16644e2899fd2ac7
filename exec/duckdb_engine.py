"""The DuckDB engine: the embedded default.

Each scan of the plan is registered on a fresh cursor as an Arrow stream that vpush fills (only
the needed columns, variants rebuilt as ``struct<metadata, value>``, which DuckDB carries through
unchanged); the query runs as DuckDB SQL rendered from the plan's sqlglot tree.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import os
import re
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from vpush.codec.java_format import duckdb_time_zone
from vpush.codec.errors import VpushError
from vpush.exec.engine import in_session_zone, tag_interval
from vpush.exec.errors import ExecutionError
from vpush.optimizer.errors import spark_string_value
from vpush.exec.locate_damaged_variant import locate_damaged_variant
from vpush.exec.read_scan import deferred_schema, order_base, ordered_schema, prefetch, read_scan
from vpush.exec.spark_tasks import plan_tasks
from vpush.exec.variant_udf import register, take_error
from sqlglot import exp

from vpush.optimizer.plan import (
    DECIMAL_SUM_OVERFLOWS,
    MAX_ORDERED_FILES,
    MAX_ORDERED_TASKS,
    ONE_TASK_BYTES,
    ORDER_COLUMN,
    ORDERED_RETRY_MARKER,
    ROW_COUNT_COLUMN,
    VARIANT_ARROW_TYPE,
    FileScan,
    Plan,
    Scan,
    ScanPart,
)
from vpush.optimizer.rewrite_variants import (
    CAST_ERROR_MARKER,
    IS_VALID_VARIANT_FUNCTION,
    IS_VARIANT_NULL_FUNCTION,
    PARSE_JSON_FUNCTION,
    SCHEMA_OF_VARIANT_FUNCTION,
    TO_JSON_FUNCTION,
    VARIANT_DELETE_FUNCTION,
    VARIANT_EXPLODE_FUNCTION,
    VARIANT_MODIFY_FUNCTION,
    VARIANT_STRIP_NULLS_FUNCTION,
    duckdb_type,
)
from vpush.optimizer.spark_semantics import EMPTY_NAME, SPARK_ERROR_MARKER
from vpush.optimizer.spark_variables import duckdb_lookup
from vpush.optimizer.variant_types import SparkType

BATCH_ROWS = 65_536


class ErrorTrap:
    """Keeps the first vpush error raised inside a scan that DuckDB is pulling from.

    DuckDB turns an exception raised by an Arrow stream into its own error and loses the type;
    the trap lets the engine re-raise the original, with its file and column path.
    """

    def __init__(self) -> None:
        self.error: VpushError | None = None

    def guard(
        self, batches: Iterator[pa.RecordBatch], on_rows: Callable[[int], None] | None = None
    ) -> Iterator[pa.RecordBatch]:
        try:
            for batch in batches:
                if on_rows is not None:
                    on_rows(batch.num_rows)
                yield batch
        except GeneratorExit:
            raise  # closed unfinished (at exit too, when this module's names may be gone)
        except VpushError as exc:
            if self.error is None:
                self.error = exc
            raise


class DuckDBEngine:
    """Runs plans on DuckDB.

    Args:
        connection: a DuckDB connection to use (a user's own, for instance); by default an
            in-memory one is made. Each query runs on its own cursor of it. On a user's own
            connection, vpush's functions are created for the queries that run them and dropped
            when the last of those ends (:func:`lease_functions`), so that the connection is
            left as it was given.
        time_zone: the session time zone (an IANA name), set on each cursor.
        parallelism: the default parallelism of the Spark session whose answers to give (its
            ``local[N]``'s N): an aggregate whose answer depends on the order of rows is computed
            per Spark task, the tasks Spark's file scan groups the files into
            (:func:`~vpush.exec.spark_tasks.plan_tasks`), and merged as Spark merges them.
    """

    name = "duckdb"

    def __init__(
        self,
        *,
        connection: duckdb.DuckDBPyConnection | None = None,
        time_zone: str = "UTC",
        native_scans: bool = True,
        parallelism: int = 1,
    ) -> None:
        self.connection = connection if connection is not None else duckdb.connect()
        self._owns_connection = connection is None
        self.time_zone = time_zone
        self.parallelism = parallelism
        self.native_scans = native_scans
        """Let DuckDB read the parts that allow it (:attr:`ScanPart.native`) with its own
        Parquet reader; off, vpush's scan reads every part."""
        self._functions: set[str] = set()  # created on the engine's own connection, kept until it closes

    def close(self) -> None:
        """Close the DuckDB connection if the engine opened it (a user's own stays open)."""
        if self._owns_connection:
            self.connection.close()

    def variable(self, prefix: str | None, name: str) -> str | None:
        """A fresh Spark session's value of ``${prefix:name}`` as far as vpush knows it
        (:func:`vpush.optimizer.spark_variables.duckdb_lookup`)."""
        return duckdb_lookup(prefix, name)

    def reads_natively(self, part: ScanPart) -> bool:
        """Whether DuckDB's own Parquet reader reads ``part`` (see :attr:`ScanPart.native`): it
        may, and the part reads at least half its files' row groups (for a few row groups,
        vpush's own reading of just those costs less than DuckDB opening the files again)."""
        return part.native is not None and self.native_scans and _reads_most(part)

    def execute(
        self, plan: Plan, *, on_rows: Callable[[int], None] | None = None, year_month_intervals: bool = False
    ) -> pa.RecordBatchReader:
        """Run ``plan`` and stream its result; ``on_rows`` hears of each batch the scans read
        (``year_month_intervals``: see :meth:`vpush.exec.engine.Engine.execute`).

        A plan with an :attr:`~Plan.ordered_expression` runs its first query to the end before
        giving a row: where that raises :data:`ORDERED_RETRY_MARKER` (an aggregate that needs
        Spark's order of rows) or :data:`DECIMAL_SUM_OVERFLOWS` (a grouped decimal sum that may),
        the ordered query runs instead, over the scans read again."""
        if plan.ordered_expression is None:
            return self._execute(plan, on_rows, ordered=False, year_months=year_month_intervals)
        try:
            table = self._execute(plan, on_rows, ordered=False, year_months=year_month_intervals).read_all()
        except VpushError as exc:
            if ORDERED_RETRY_MARKER not in str(exc) and not any(m in str(exc) for m in DECIMAL_SUM_OVERFLOWS):
                raise
            return self._execute(plan, on_rows, ordered=True, year_months=year_month_intervals)
        return pa.RecordBatchReader.from_batches(table.schema, table.to_batches())

    def _execute(
        self, plan: Plan, on_rows: Callable[[int], None] | None, *, ordered: bool, year_months: bool
    ) -> pa.RecordBatchReader:
        trap = ErrorTrap()
        release: Callable[[], None] = _keep_functions
        try:
            cursor = self.connection.cursor()
        except duckdb.ConnectionException as exc:  # a user's own connection, closed since
            raise ExecutionError(f"the DuckDB connection this vpush connection runs on is closed ({exc})") from exc
        try:
            # One script for the session's settings and the views of the parts DuckDB reads itself.
            script = [_time_zone_statement(duckdb_time_zone(self.time_zone))]
            if self._owns_connection:
                for name, target in plan.functions:
                    if name not in self._functions:
                        register(self.connection, name, target, duckdb_type(target).sql(dialect="duckdb"))
                        self._functions.add(name)
            else:
                release = lease_functions(self.connection, plan.functions)
            read_twice = scalar_subquery_tables(plan.ordered_expression if ordered and plan.ordered_expression is not None else plan.expression)
            for scan in plan.scans:
                if scan.ordered:
                    scan = in_spark_tasks(plan, scan, self.parallelism)
                # Deferred variant columns come as row locators; the SQL rebuilds the rows it keeps.
                if not scan.parts:
                    schema = ordered_schema(deferred_schema(scan.schema, scan.deferred), scan)
                    batches = trap.guard(prefetch(read_scan(scan, defer=True)), on_rows)
                    cursor.register(scan.name, _scannable(scan.name, pa.RecordBatchReader.from_batches(schema, batches), read_twice))
                for part in scan.parts:
                    # DuckDB's reader numbers the rows itself unless a file has a column of that name
                    if self.reads_natively(part) and not (scan.ordered and _numbers_rows_itself(part)):
                        script.append(native_view_sql(part, ordered=scan.ordered))
                        continue
                    schema = ordered_schema(deferred_schema(part.schema, scan.deferred), scan)
                    batches = trap.guard(prefetch(read_scan(scan, part, defer=True)), on_rows)
                    cursor.register(part.name, _scannable(part.name, pa.RecordBatchReader.from_batches(schema, batches), read_twice))
            cursor.execute(";\n".join(script))
            if plan.constants_sql is not None:
                _compute_constants(cursor, plan.constants_sql)
            reader = cursor.sql(plan.sql("duckdb", ordered=ordered)).to_arrow_reader(BATCH_ROWS)
        except duckdb.Error as exc:
            cursor.close()
            release()
            raise _translate(exc, trap, plan) from exc
        except BaseException:
            cursor.close()
            release()
            raise
        batches = _stream(reader, cursor, trap, plan, release)
        # a reader dropped unread never runs the stream's `finally`: its functions go with it
        weakref.finalize(batches, release)
        schema = reader.schema
        names = ["" if n == EMPTY_NAME else n for n in schema.names]
        intervals = [i for i, f in enumerate(schema) if pa.types.is_interval(f.type)]
        variants = [i for i, f in enumerate(schema) if _is_duckdb_variant(f)]
        zoned = _session_zone_types(schema, duckdb_time_zone(self.time_zone), self.time_zone)
        if zoned is not None:  # DuckDB's name of an offset zone (GMT+05:30) back to the session's
            schema = zoned
        if names == schema.names and not intervals and not variants and zoned is None:
            return pa.RecordBatchReader.from_batches(schema, batches)
        # Spark's name '' (SELECT ''), which DuckDB cannot give; Spark's day-time intervals as its
        # toArrow gives them, durations in microseconds, tagged with their type where the plan
        # knows it; a VARIANT DuckDB computed itself (CAST(NULL AS variant)) as every other
        # variant column, the plain struct<metadata, value>
        known = plan.interval_types if len(plan.interval_types) == len(names) else (None,) * len(names)
        year_month = {i for i in intervals if (known[i] or "").startswith(("interval year", "interval month"))}
        months, refused = (year_month, set()) if year_months else (set(), year_month)
        fields = [tag_interval(pa.field(n, pa.int32() if i in months else pa.duration("us")), known[i]) if i in intervals
                  else pa.field(n, VARIANT_ARROW_TYPE) if i in variants
                  else f.with_name(n) for i, (f, n) in enumerate(zip(schema, names))]
        schema = pa.schema(fields, metadata=schema.metadata)
        return pa.RecordBatchReader.from_batches(schema, (
            pa.RecordBatch.from_arrays([_months(c) if i in months else _duration(c, refused=i in refused) if i in intervals
                                        else c.cast(VARIANT_ARROW_TYPE) if i in variants
                                        else c.cast(schema.field(i).type) if zoned is not None else c
                                        for i, c in enumerate(b.columns)], schema=schema)
            for b in batches
        ))


def _compute_constants(cursor: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Compute the constants Spark computes as it plans the query, rows or not
    (:attr:`~vpush.optimizer.plan.Plan.constants_sql`): one that raises fails the query. A query of
    them DuckDB cannot bind is left alone: the query computes them for its rows, as before."""
    try:
        cursor.execute(sql).fetchall()
    except (duckdb.ParserException, duckdb.BinderException, duckdb.CatalogException):
        return


def _keep_functions() -> None:
    """The release of the functions of a query on the engine's own connection: they stay."""


_LEASES_LOCK = threading.RLock()
_LEASES: dict[int, tuple[duckdb.DuckDBPyConnection, collections.Counter[str]]] = {}
"""id(connection) -> (the connection, how many running queries use each function vpush created
on it): shared by every engine over one user's connection."""


def lease_functions(connection: duckdb.DuckDBPyConnection, functions: Iterable[tuple[str, SparkType]]) -> Callable[[], None]:
    """Create ``functions`` on a user's own ``connection`` for one query, and return the
    release to call once the query ends (it does nothing the second time).

    The release drops each function that vpush created and no other running query on the
    connection uses: DuckDB crashes (a segfault, measured on 2.0.1) when a function is dropped
    while a query streams through it. A function of that name the connection had before is
    used and left alone. Queries of vpush connections over other cursors of the same DuckDB
    database are not counted: give each vpush connection the same connection object.
    """
    names = {name: target for name, target in functions}
    created: list[str] = []
    with _LEASES_LOCK:
        _, uses = _LEASES.setdefault(id(connection), (connection, collections.Counter()))
        try:
            for name, target in names.items():
                if uses[name] or register(connection, name, target, duckdb_type(target).sql(dialect="duckdb")):
                    uses[name] += 1
                    created.append(name)
        except BaseException:
            _release(connection, created)
            raise
    done = threading.Event()

    def release() -> None:
        with _LEASES_LOCK:
            if done.is_set():
                return
            done.set()
        _release(connection, created)

    return release


def _release(connection: duckdb.DuckDBPyConnection, names: list[str]) -> None:
    with _LEASES_LOCK:
        kept = _LEASES.get(id(connection))
        if kept is None or kept[0] is not connection:
            return
        uses = kept[1]
        for name in names:
            uses[name] -= 1
            if uses[name] > 0:
                continue
            del uses[name]
            try:
                connection.remove_function(name)
            except duckdb.Error:
                pass  # the user's connection closed since: nothing is left on it
        if not uses:
            del _LEASES[id(connection)]


_NATIVE_ROWS = "__vpush_file_rows"


def _session_zone_types(schema: pa.Schema, duckdb_zone: str, session_zone: str) -> pa.Schema | None:
    """``schema`` with its timestamps (nested ones too) labelled ``session_zone`` where DuckDB
    labelled them ``duckdb_zone``; None where nothing changes."""
    if duckdb_zone == session_zone:
        return None
    relabeled = in_session_zone(schema, session_zone, labelled=duckdb_zone)
    return None if relabeled.equals(schema) else relabeled


def _is_duckdb_variant(field: pa.Field) -> bool:
    """Whether a result column is DuckDB's own export of a VARIANT (its Arrow extension name)."""
    return bool(field.metadata) and field.metadata.get(b"ARROW:extension:name") == b"arrow.parquet.variant"


def scalar_subquery_tables(expression: exp.Expr | None) -> set[str]:
    """The tables a scalar subquery of ``expression`` reads, and those it names twice (lower
    case): DuckDB may plan such a subquery twice (``x / (SELECT ...)``, which vpush writes with
    ``NULLIF``, and ``NULLIF`` itself become a ``CASE`` that names it twice), and a registered
    Arrow reader can be read once.

    Example:
        >>> import sqlglot
        >>> sorted(scalar_subquery_tables(sqlglot.parse_one(
        ...     "SELECT a / NULLIF((SELECT max(b) FROM s), 0) FROM t WHERE c IN (SELECT d FROM u)")))
        ['s']
    """
    found: set[str] = set()
    if expression is None:
        return found
    # a table named twice (a conjunct with an IN subquery that order_conjuncts repeats in its CASE)
    names = [table.name.lower() for table in expression.find_all(exp.Table)]
    found |= {name for name in names if names.count(name) > 1}
    for subquery in expression.find_all(exp.Subquery):
        if isinstance(subquery.parent, (exp.From, exp.Join, exp.In, exp.Exists, exp.Lateral)) or isinstance(
            subquery.parent, exp.SetOperation
        ):
            continue
        found |= {table.name.lower() for table in subquery.find_all(exp.Table)}
    return found


def _scannable(name: str, reader: pa.RecordBatchReader, read_twice: set[str]) -> pa.RecordBatchReader | pa.Table:
    """``reader``, or its rows read into a table where a scalar subquery reads ``name``
    (:func:`scalar_subquery_tables`): a table DuckDB can scan as often as it plans to."""
    return reader.read_all() if name.lower() in read_twice else reader


def in_spark_tasks(plan: Plan, scan: Scan, parallelism: int) -> Scan:
    """The ordered ``scan`` with each file's row groups given the Spark task that reads them
    (:attr:`~vpush.optimizer.plan.FileScan.spark_tasks`), as Spark's file scan groups them with
    ``parallelism`` (:func:`~vpush.exec.spark_tasks.plan_tasks`, the Spark engine's grouping).

    Raises:
        ExecutionError: ``VPUSH_UNSUPPORTED_FUNCTION`` for more files or tasks than the order
            column's bits hold.
    """
    files = [f for part in scan.parts for f in part.files] if scan.parts else list(scan.files)
    read = [f for f in files if f.row_groups]
    if len(read) >= MAX_ORDERED_FILES or any(f.spark_rank >= MAX_ORDERED_FILES for f in read):
        raise ExecutionError(
            f"an aggregate in Spark's order of rows over {len(read)} files (at most {MAX_ORDERED_FILES - 1}); the Spark engine runs it",
            error_class="VPUSH_UNSUPPORTED_FUNCTION",
        )
    if len(read) <= 1 and all(_size(f.path) <= ONE_TASK_BYTES for f in read):
        # Spark's splits are never smaller than its open cost: such a file is one task
        return scan
    tasks = plan_tasks(plan, scan, pa.schema([]), "UTC", parallelism=parallelism)
    if len(tasks.tasks) > MAX_ORDERED_TASKS:
        raise ExecutionError(
            f"an aggregate in Spark's order of rows over {len(tasks.tasks)} Spark tasks (at most {MAX_ORDERED_TASKS}); "
            "the Spark engine runs it",
            error_class="VPUSH_UNSUPPORTED_FUNCTION",
        )
    task_of = {(ref.path, rg): index for index, task in enumerate(tasks.tasks) for _, refs in task for ref in refs for rg in ref.row_groups}

    def placed(file: FileScan) -> FileScan:
        return dataclasses.replace(file, spark_tasks=tuple(task_of.get((file.path, rg), 0) for rg in file.row_groups))

    if scan.parts:
        parts = tuple(dataclasses.replace(part, files=tuple(placed(f) for f in part.files)) for part in scan.parts)
        return dataclasses.replace(scan, parts=parts)
    return dataclasses.replace(scan, files=tuple(placed(f) for f in scan.files))


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return ONE_TASK_BYTES + 1  # not known: the tasks' grouping reads its footer


def _reads_most(part: ScanPart) -> bool:
    """Whether the part reads at least half its files' row groups: then DuckDB's reader (threads,
    its own skipping) is worth opening the files again; a few row groups read better alone."""
    kept = sum(len(f.row_groups) for f in part.files)
    return kept > 0 and 2 * kept >= sum(f.num_row_groups for f in part.files)


_TYPES_LOCK = threading.Lock()


@functools.lru_cache(maxsize=256)
def _duckdb_types(schema: pa.Schema) -> tuple[str, ...]:
    """DuckDB's names for the types of ``schema``'s fields, as it reads them from Arrow."""
    with _TYPES_LOCK:
        return tuple(str(t) for t in _type_connection().from_arrow(schema.empty_table()).types)


@functools.lru_cache(maxsize=1)
def _type_connection() -> duckdb.DuckDBPyConnection:
    return duckdb.connect()


_FILE_ROW_NUMBER = "file_row_number"  # the column read_parquet adds, under a name it fixes
_NATIVE_FILE = "__vpush_file"


def _numbers_rows_itself(part: ScanPart) -> bool:
    """Whether a file of the part has a column that read_parquet's row numbers would clash with."""
    return any(c.lower() == _FILE_ROW_NUMBER for f in part.files for c in f.columns)


@functools.lru_cache(maxsize=64)
def _time_zone_statement(time_zone: str) -> str:
    return exp.Set(expressions=[exp.SetItem(this=exp.EQ(
        this=exp.to_identifier("TimeZone"), expression=exp.Literal.string(time_zone)))]).sql(dialect="duckdb")


_VIEWS: collections.OrderedDict[tuple[int, bool], tuple[ScanPart, str]] = collections.OrderedDict()
_VIEWS_LOCK = threading.Lock()


def native_view_sql(part: ScanPart, *, ordered: bool = False) -> str:
    """:func:`native_view`'s statement as DuckDB's SQL, kept for the same part when its plan runs
    again (building it parses each type name: a few milliseconds of a query that may take tens).
    One process-wide cache of the last 256 parts, each kept alive beside its statement so that its
    ``id`` is no other part's while it is there."""
    key = (id(part), ordered)
    with _VIEWS_LOCK:
        kept = _VIEWS.get(key)
        if kept is not None and kept[0] is part:
            _VIEWS.move_to_end(key)
            return kept[1]
    statement = native_view(part, ordered=ordered).sql(dialect="duckdb")
    with _VIEWS_LOCK:
        _VIEWS[key] = (part, statement)  # the part kept alive, so its id is not another's
        while len(_VIEWS) > 256:
            _VIEWS.popitem(last=False)
    return statement


def native_view(part: ScanPart, *, ordered: bool = False) -> exp.Create:
    """``CREATE TEMP VIEW`` of ``part`` read by DuckDB's own Parquet reader: the scan's plain
    columns, and each typed leaf as ``TRY_CAST(column.key... AS <its type>)`` over DuckDB's
    VARIANT, which the part's eligibility makes exactly the leaf (:attr:`ScanPart.native`);
    ``ordered``: then :data:`ORDER_COLUMN`, from the file's rank and read_parquet's row number."""
    assert part.native is not None
    leaves = {leaf.name: leaf for leaf in part.native}
    # DuckDB's own names for the part's Arrow types.
    types = _duckdb_types(part.schema)
    projections: list[exp.Expr] = []
    for field, duck_type in zip(part.schema, types):
        name = exp.to_identifier(field.name, quoted=True)
        leaf = leaves.get(field.name)
        if field.name == ROW_COUNT_COLUMN:
            value: exp.Expression = exp.Null()
        elif leaf is not None:
            path: exp.Expression = exp.column(
                exp.to_identifier(leaf.column, quoted=True), table=exp.to_identifier(_NATIVE_ROWS, quoted=True)
            )
            for key in leaf.keys:
                path = exp.Dot(this=path, expression=exp.to_identifier(key, quoted=True))
            value = exp.TryCast(this=path, to=exp.DataType.build(str(duck_type), dialect="duckdb"))
        else:
            column = exp.column(name.copy(), table=exp.to_identifier(_NATIVE_ROWS, quoted=True))
            value = exp.cast(column, exp.DataType.build(str(duck_type), dialect="duckdb"))
        projections.append(exp.alias_(value, name))
    files = exp.Array(expressions=[exp.Literal.string(f.path) for f in part.files])
    options: list[exp.Expression] = []
    if ordered:
        options = [
            exp.EQ(this=exp.column("filename"), expression=exp.Literal.string(_NATIVE_FILE)),
            exp.EQ(this=exp.column(_FILE_ROW_NUMBER), expression=exp.true()),
        ]
        row = exp.column(exp.to_identifier(_FILE_ROW_NUMBER, quoted=True), table=exp.to_identifier(_NATIVE_ROWS, quoted=True))
        rank = exp.Case(
            this=exp.column(exp.to_identifier(_NATIVE_FILE, quoted=True), table=exp.to_identifier(_NATIVE_ROWS, quoted=True)),
            ifs=[exp.If(this=exp.Literal.string(f.path), true=_file_order_base(f, row)) for f in part.files],
        )
        projections.append(exp.alias_(exp.Add(this=rank, expression=row), exp.to_identifier(ORDER_COLUMN, quoted=True)))
    source = exp.Table(
        this=exp.Anonymous(this="read_parquet", expressions=[files, *options]),
        alias=exp.TableAlias(this=exp.to_identifier(_NATIVE_ROWS, quoted=True)),
    )
    select = exp.select(*projections).from_(source)
    view = exp.Create(
        this=exp.Table(this=exp.to_identifier(part.name, quoted=True)),
        kind="VIEW",
        expression=select,
        replace=True,
        properties=exp.Properties(expressions=[exp.TemporaryProperty()]),
    )
    return view


def _file_order_base(file: FileScan, row: exp.Expr) -> exp.Expr:
    """The :data:`ORDER_COLUMN` of ``file``'s row 0 as its row ``row`` is read: the file's rank,
    and the Spark task of the row group that holds the row (:func:`order_base`)."""
    bases = [order_base(file, rg) for rg in file.row_groups] or [order_base(file, 0)]
    if len(set(bases)) == 1:
        return exp.Literal.number(bases[0])
    import pyarrow.parquet as pq

    metadata = file.footer if file.footer is not None else pq.read_metadata(file.path)
    starts = [0]
    for rg in range(metadata.num_row_groups):
        starts.append(starts[-1] + metadata.row_group(rg).num_rows)
    # the last row group's base from its first row on, and so on down
    ifs = [exp.If(this=exp.GTE(this=row.copy(), expression=exp.Literal.number(starts[rg])), true=exp.Literal.number(base))
           for rg, base in sorted(zip(file.row_groups, bases), reverse=True)]
    return exp.Case(ifs=ifs, default=exp.Literal.number(bases[0]))


_INTERVAL_PARTS = np.dtype([("months", "<i4"), ("days", "<i4"), ("nanoseconds", "<i8")])
_DAY_MICROS = 86_400_000_000


def _duration(column: pa.Array, *, refused: bool = False) -> pa.Array:
    """A DuckDB interval column as Spark's ``toArrow`` gives a day-time interval: a ``duration``
    of microseconds. Spark's Arrow conversion refuses a year-month interval (an interval with
    months, or ``refused``: a column the plan knows is one), and so does this.

    Raises:
        ExecutionError: months in a row (``UNSUPPORTED_DATA_TYPE_FOR_ARROW_CONVERSION``).
    """
    parts = np.frombuffer(column.buffers()[1], _INTERVAL_PARTS)[column.offset : column.offset + len(column)]
    valid = np.asarray(column.is_valid(), bool)
    if refused or np.any(parts["months"][valid] != 0):
        raise ExecutionError(
            "a year-month interval is not supported in conversion to Arrow, as in Spark",
            error_class="UNSUPPORTED_DATA_TYPE_FOR_ARROW_CONVERSION",
        )
    micros = parts["days"].astype(np.int64) * _DAY_MICROS + parts["nanoseconds"] // 1000
    return pa.array(micros, pa.duration("us"), mask=~valid)


def _months(column: pa.Array) -> pa.Array:
    """A DuckDB interval column of a year-month interval type as its months (Spark keeps such a
    value as an int of months)."""
    parts = np.frombuffer(column.buffers()[1], _INTERVAL_PARTS)[column.offset : column.offset + len(column)]
    return pa.array(parts["months"], pa.int32(), mask=~np.asarray(column.is_valid(), bool))


def _stream(
    reader: pa.RecordBatchReader, cursor: Any, trap: ErrorTrap, plan: Plan, release: Callable[[], None]
) -> Iterator[pa.RecordBatch]:
    try:
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except Exception as exc:  # DuckDB reports a failed Arrow stream as a plain OSError
                raise _translate(exc, trap, plan) from exc
            yield batch
    finally:
        cursor.close()
        release()


def _failed_cast(message: str) -> ExecutionError | None:
    """The INVALID_VARIANT_CAST a rewritten query raised in SQL (``error(...)``), or None."""
    start = message.find(CAST_ERROR_MARKER + "|")
    if start < 0:
        return None
    parts = message[start:].split("|", 3)
    if len(parts) < 4:
        return None
    _, target, value, rest = parts
    file = rest.split("\n")[0].strip() or None
    return ExecutionError(
        f"the variant value `{value}` cannot be cast into {target.upper()}; "
        "use try_variant_get to get NULL instead",
        error_class="INVALID_VARIANT_CAST",
        file=file,
    )


def _translate(exc: Exception, trap: ErrorTrap, plan: Plan) -> VpushError:
    if trap.error is not None:
        return trap.error
    if isinstance(exc, VpushError):
        return locate_damaged_variant(exc, plan)
    raised = take_error(str(exc))
    if raised is not None:
        return locate_damaged_variant(raised, plan)
    return translate_message(str(exc))


def translate_message(text: str) -> ExecutionError:
    """A DuckDB error message as a vpush error, with Spark's error class where it is one of
    Spark's failures (a variant cast or arithmetic raised by the rewritten SQL, or DuckDB's own)."""
    failed_cast = _failed_cast(text)
    if failed_cast is not None:
        return failed_cast
    spark = _spark_error(text)
    if spark is not None:
        return spark
    message = " ".join(text.split())
    unresolved = _UNRESOLVED_COLUMN.search(message)
    if unresolved is not None:
        # The query names a column no source has: Spark's analyzer error, with the candidates the
        # user can write (not vpush's internal columns).
        candidates = [c for c in re.findall(r'"([^"]*)"', unresolved.group(2) or "") if not c.startswith("__vpush")]
        suggestion = f" Did you mean one of the following? [{', '.join(f'`{c}`' for c in candidates)}]." if candidates else ""
        return ExecutionError(
            f"A column, variable, or function parameter with name `{unresolved.group(1)}` cannot be resolved.{suggestion}",
            error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION" if candidates else "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
        )
    wrong_input = _wrong_input(message)
    if wrong_input is not None:
        return wrong_input
    ungrouped = _UNGROUPED.search(message)
    if ungrouped is not None:
        column = ungrouped.group(1)
        return ExecutionError(
            f'The non-aggregating expression "{column}" is based on columns which are not participating in the GROUP BY '
            f'clause. Add the columns or the expression to the GROUP BY, aggregate the expression, or use "any_value({column})" '
            "if you do not care which of the values within a group is returned.",
            error_class="MISSING_AGGREGATION",
        )
    overflow = _INTEGER_OVERFLOW.search(message)
    if overflow is not None:
        # an integer cast to a narrower one: Spark's words, the value as its toSQLValue shows it
        (source, suffix), target = _SPARK_INTEGERS[overflow.group(1)], _SPARK_INTEGERS[overflow.group(3)][0]
        return ExecutionError(
            f'The value {overflow.group(2)}{suffix} of the type "{source}" cannot be cast to "{target}" due to an overflow. '
            "Use `try_cast` to tolerate overflow and return NULL instead.",
            error_class="CAST_OVERFLOW",
        )
    arithmetic = _INTEGER_ARITHMETIC_OVERFLOW.search(message)
    if arithmetic is not None:
        # Spark's words (its Add, Subtract and Multiply of bytes and shorts show the operands)
        operation, width, left, symbol, right = arithmetic.groups()
        hint = _TRY_FUNCTIONS[operation]
        if width in ("8", "16"):
            return ExecutionError(f"{left}S {symbol} {right}S caused overflow. Use `{hint}` to ignore overflow problem and return NULL.",
                                  error_class="BINARY_ARITHMETIC_OVERFLOW")
        return ExecutionError(f"overflow. Use '{hint}' to tolerate overflow and return NULL instead.", error_class="ARITHMETIC_OVERFLOW")
    if "Overflow in negation of numeric value!" in message:
        return ExecutionError("overflow.", error_class="ARITHMETIC_OVERFLOW")  # Spark's UnaryMinus of any integer type
    malformed = _MALFORMED.search(message)
    if malformed is not None:
        # a string DuckDB's own cast could not read (decimal, floating, boolean targets): Spark's words
        value, target = malformed.group(1) or malformed.group(2), _SPARK_TARGET_NAMES.get(malformed.group(3), malformed.group(3))
        return ExecutionError(
            f'The value {spark_string_value(value)} of the type "STRING" cannot be cast to "{target}" because it is malformed. Correct the '
            "value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return "
            "NULL instead.",
            error_class="CAST_INVALID_INPUT",
        )
    for pattern, error_class in _DUCKDB_ERROR_CLASSES:
        if pattern.search(message):
            return ExecutionError(f"DuckDB failed: {message}", error_class=error_class)
    return ExecutionError(f"DuckDB failed: {message}")


# a projection neither grouped nor aggregated (DuckDB words a HAVING's otherwise)
_UNGROUPED = re.compile(r'column "([^"]*)" must appear in the GROUP BY clause or must be part of an aggregate function')
# DuckDB quotes the string with double quotes for a decimal target, single ones otherwise
_MALFORMED = re.compile(r"""Could not convert string (?:"(.*)"|'(.*)') to (DECIMAL\(\d+,\d+\)|DOUBLE|FLOAT|BOOL)(?=\s|$)""")
_SPARK_TARGET_NAMES = {"BOOL": "BOOLEAN"}
_INTEGER_OVERFLOW = re.compile(r"Type (INT8|INT16|INT32|INT64) with value (-?\d+) can't be cast because the value is out of range "
                               r"for the destination type (INT8|INT16|INT32|INT64)")
_INTEGER_ARITHMETIC_OVERFLOW = re.compile(r"Overflow in (addition|subtraction|multiplication) of INT(8|16|32|64) \((-?\d+) ([-+*]) (-?\d+)\)!")
_TRY_FUNCTIONS = {"addition": "try_add", "subtraction": "try_subtract", "multiplication": "try_multiply"}
# DuckDB's integer types as Spark names them, and the suffix of Spark's literal of one
_SPARK_INTEGERS = {"INT8": ("TINYINT", "Y"), "INT16": ("SMALLINT", "S"), "INT32": ("INT", ""), "INT64": ("BIGINT", "L")}
_UNRESOLVED_COLUMN = re.compile(r'Referenced column "([^"]*)" (?:not found in FROM clause!|was not found because the FROM clause is missing)'
                                r'(?: Candidate bindings: ((?:"[^"]*"(?:, )?)+))?')

# DuckDB's own errors for the failures Spark (ANSI mode) also raises, with Spark's class.
_DUCKDB_ERROR_CLASSES = [
    # "HUGEINT addition" and "SUM of DECIMAL": a sum of decimals past 38 digits, on the way or at
    # the end (Spark: "Overflow in sum of decimals", only at the end)
    # Spark's Add, Subtract and Multiply of bytes and shorts name their own class
    (re.compile(r"Overflow in (addition|subtraction|multiplication) of INT(8|16) "), "BINARY_ARITHMETIC_OVERFLOW"),
    (re.compile(r"Overflow in (HUGEINT )?(addition|subtraction|multiplication|negation|ROUND)|Overflow on abs\(|Overflow in SUM of DECIMAL"),
     "ARITHMETIC_OVERFLOW"),
    (re.compile(r"Division by zero in expression \(.* % .*\)"), "REMAINDER_BY_ZERO"),
    (re.compile(r"Division by zero"), "DIVIDE_BY_ZERO"),
    (re.compile(r"Could not convert string .* to (INT|UINT|DECIMAL|DOUBLE|FLOAT|BOOL|DATE|TIMESTAMP)"), "CAST_INVALID_INPUT"),
    (re.compile(r"can't be cast because the value is out of range for the destination type (INT|UINT)"
                r"|Failed to cast decimal value .* to type U?INT"), "CAST_OVERFLOW"),
    (re.compile(r"Casting value .* to type DECIMAL.* failed: value is out of range|Could not cast value .* to DECIMAL"),
     "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION"),
    (re.compile(r"More than one row returned by a subquery used as an expression"), "SCALAR_SUBQUERY_TOO_MANY_ROWS"),
    # a name two sources give (a LATERAL VIEW's alias beside a table's column: Spark's analyzer)
    (re.compile(r"Binder Error: Ambiguous reference to column name"), "AMBIGUOUS_REFERENCE"),
    # a struct's field that is not there (named_struct('a', i).b, struct(f, i).col2: Spark's analyzer)
    (re.compile(r"Binder Error: Could not find key \".*\" in struct"), "FIELD_NOT_FOUND"),
    # s[0] of a struct (Spark's field must be named by a string)
    (re.compile(r"struct_extract with an integer key can only be used on unnamed structs"), "INVALID_EXTRACT_FIELD_TYPE"),
    # sum or avg of a struct, array or map (Spark's analyzer: a number or an interval is wanted)
    (re.compile(r"No function matches the given name and argument types '(sum|avg)\((STRUCT\(|MAP\(|[^']*\[\]\))"),
     "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
    (re.compile(r"ORDER term out of range"), "ORDER_BY_POS_OUT_OF_RANGE"),
    (re.compile(r"GROUP BY term out of range"), "GROUP_BY_POS_OUT_OF_RANGE"),
    (re.compile(r"LIMIT/OFFSET cannot be negative"), "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE"),
    (re.compile(r"Binder Error: Column \".*\" does not exist on (left|right) side of join"), "UNRESOLVED_USING_COLUMN_FOR_JOIN"),
    (re.compile(r"Binder Error: Set operations can only apply to expressions with the same number of result columns"),
     "NUM_COLUMNS_MISMATCH"),
    # aggregates and windows where Spark's analyzer refuses them
    (re.compile(r"Binder Error: aggregate function calls cannot be nested"), "NESTED_AGGREGATE_FUNCTION"),
    # GROUP BY an aggregate's alias (its position: GROUP_BY_POS_AGGREGATE, checked before)
    (re.compile(r"Binder Error: GROUP BY clause cannot contain aggregates"), "GROUP_BY_AGGREGATE"),
    (re.compile(r"Binder Error: WHERE clause cannot contain aggregates"), "INVALID_WHERE_CONDITION"),
    (re.compile(r"Binder Error: (WHERE|GROUP BY|HAVING) clause cannot contain window functions"), "WINDOW_FUNCTION_NOT_ALLOWED_IN_CLAUSE"),
    # `* EXCEPT (c)` of every column: Spark answers rows without columns, which DuckDB cannot hold
    (re.compile(r"SELECT list is empty after resolving \* expressions"), "VPUSH_UNSUPPORTED_FUNCTION"),
    # a HAVING's column neither grouped nor aggregated: Spark resolves it over the aggregate's output
    (re.compile(r"must appear in the GROUP BY clause or be used in an aggregate function"), "UNRESOLVED_COLUMN.WITH_SUGGESTION"),
]


# Spark's variant functions, by their engine function, with what they take.
_VARIANT_FUNCTION_INPUTS = {
    TO_JSON_FUNCTION: ("to_json", "a variant"),
    IS_VARIANT_NULL_FUNCTION: ("is_variant_null", "a variant"),
    IS_VALID_VARIANT_FUNCTION: ("is_valid_variant", "a variant"),
    VARIANT_DELETE_FUNCTION: ("variant_delete", "a variant"),
    VARIANT_STRIP_NULLS_FUNCTION: ("variant_strip_nulls", "a variant"),
    VARIANT_MODIFY_FUNCTION: ("variant_set", "a variant"),
    SCHEMA_OF_VARIANT_FUNCTION: ("schema_of_variant", "a variant"),
    PARSE_JSON_FUNCTION: ("parse_json", "a string"),
    VARIANT_EXPLODE_FUNCTION: ("variant_explode", "a variant"),
}
_NO_MATCH = re.compile(r"No function matches the given name and argument types '(vpush_\w+)\(([^']*)\)'")
_NO_CAST = re.compile(r"Type (\w+) with value .* can't be cast to the destination type STRUCT\(metadata BLOB")
# an extraction over a column that is no struct: the rewrite takes its metadata and value apart
_NO_FIELD = re.compile(r"No function matches the given name and argument types 'struct_extract\((\w+), STRING_LITERAL\)'")


def _wrong_input(message: str) -> ExecutionError | None:
    """The error for one of Spark's variant functions called on an argument of another type,
    which DuckDB reports as a missing overload or a failed cast to the variant struct."""
    found = _NO_MATCH.search(message)
    cast = _NO_CAST.search(message) or _NO_FIELD.search(message)
    if found is not None and found.group(1) in _VARIANT_FUNCTION_INPUTS:
        name, wanted = _VARIANT_FUNCTION_INPUTS[found.group(1)]
        given = found.group(2).split(",")[0].strip()
    elif cast is not None:
        name, wanted, given = "a variant function", "a variant", cast.group(1)
    else:
        return None
    if name == "to_json":
        # Spark's to_json of a struct, array or map is its own JSON writer, which vpush lacks.
        return ExecutionError(
            f"to_json of {given} is not supported yet on the DuckDB engine: vpush computes to_json of "
            "a variant only (the Spark engine runs it)"
        )
    return ExecutionError(
        f"{name} takes {wanted}, not {given}", error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"
    )


def _spark_error(message: str) -> ExecutionError | None:
    """The Spark error a rewritten query raised in SQL (``error(...)``, :data:`SPARK_ERROR_MARKER`)."""
    start = message.find(SPARK_ERROR_MARKER + "|")
    if start < 0:
        return None
    _, error_class, text = message[start:].split("|", 2)
    # an empty class: Spark raises a plain Java exception there (``sequence``'s boundaries)
    return ExecutionError(text.split("\n")[0].strip(), error_class=error_class or None)
