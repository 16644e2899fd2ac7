"""The public API: :func:`connect`, :class:`Connection` and :class:`Relation`."""
from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from vpush.codec.errors import VpushError
from vpush.exec.duckdb_engine import DuckDBEngine
from vpush.exec.engine import Engine
from vpush.optimizer.catalog import Catalog, Table
from vpush.optimizer.plan import ROW_COUNT_COLUMN, VARIANT_ARROW_TYPE, Plan
from vpush.optimizer.plan_query import plan_query
from vpush.optimizer.spark_variables import substitute_variables
from vpush.timezone import check_time_zone, local_time_zone

if TYPE_CHECKING:
    import duckdb
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession
    from rich.table import Table as RichTable

ENGINES = ("duckdb", "spark")
_KEPT_PLANS = 64  # plans a connection keeps for reuse, the least recently used dropped first


def _default_parallelism() -> int:
    """Spark's default parallelism in ``local[*]``: the machine's cores."""
    return os.cpu_count() or 1


def connect(
    engine: str = "duckdb",
    *,
    time_zone: str | None = None,
    connection: duckdb.DuckDBPyConnection | None = None,
    spark: SparkSession | None = None,
    parallelism: int | None = None,
) -> Connection:
    """Open a vpush connection.

    Args:
        engine: ``"duckdb"`` (the default, embedded) or ``"spark"``.
        time_zone: the session time zone (IANA name); by default the machine's, as Spark's is
            (on the Spark engine: the Spark session's ``spark.sql.session.timeZone``).
        connection: a DuckDB connection of your own for the DuckDB engine to run on (vpush's
            functions on it last only while the queries that call them run).
        spark: a SparkSession of your own for the Spark engine (default: the active one, or a
            new local one).
        parallelism: for the DuckDB engine, the default parallelism of the Spark session whose
            answers to give (``local[N]``: N), which decides how Spark's file scan groups the
            files into tasks, and so the last bits of a sum of doubles, or which of tied values
            ``mode`` gives; by default the machine's cores, as ``local[*]``'s (the Spark engine
            takes its session's).

    Raises:
        VpushError: an unknown engine or time zone, a parallelism below 1 or given to the spark
            engine, or an engine that is not available.

    Example:
        >>> con = connect(time_zone="UTC")
        >>> con.engine.name, con.time_zone
        ('duckdb', 'UTC')
    """
    tz = check_time_zone(time_zone) if time_zone is not None else local_time_zone()
    if parallelism is not None and (isinstance(parallelism, bool) or not isinstance(parallelism, int) or parallelism < 1):
        raise VpushError(f"parallelism={parallelism!r}: give a whole number of tasks, 1 or more")
    if engine == "duckdb":
        tasks = parallelism if parallelism is not None else _default_parallelism()
        return Connection(DuckDBEngine(connection=connection, time_zone=tz, parallelism=tasks), time_zone=tz)
    if engine == "spark":
        try:
            from vpush.exec.spark_engine import SparkEngine
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise VpushError("the spark engine needs PySpark 4: pip install 'vpush[spark]'") from exc
        if connection is not None:
            raise VpushError("connection= is a DuckDB connection; give the spark engine spark=")
        if parallelism is not None:
            raise VpushError("parallelism= is the DuckDB engine's; the spark engine takes its session's default parallelism")
        from pyspark.sql import SparkSession as _Session

        if time_zone is None and spark is None and _Session.getActiveSession() is None:
            zone: str | None = tz  # a new session: the machine's zone, as Spark's default is
        else:
            zone = check_time_zone(time_zone) if time_zone is not None else None
        spark_engine = SparkEngine(spark=spark, time_zone=zone)
        return Connection(spark_engine, time_zone=spark_engine.time_zone)
    raise VpushError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")


class Connection:
    """Registered tables and an engine to query them with."""

    def __init__(self, engine: Engine, *, time_zone: str) -> None:
        self.engine = engine
        self.time_zone = time_zone
        self.catalog = Catalog()
        self._plans: OrderedDict[str, Plan] = OrderedDict()
        self._plans_lock = threading.Lock()
        self._closed = False

    def close(self) -> None:
        """Close the connection: the DuckDB connection vpush opened for it (a connection of your
        own given to :func:`connect` stays open; a Spark session keeps running). Registering or
        querying afterwards raises :class:`VpushError`; closing twice does nothing."""
        if self._closed:
            return
        self._closed = True
        with self._plans_lock:
            self._plans.clear()
        close = getattr(self.engine, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise VpushError("this vpush connection is closed; open another with vpush.connect()")

    def plan(self, query: str) -> Plan:
        """The plan of ``query``: a recent one of the same text while the tables it reads are
        still registered as they were and their files unchanged (a dashboard's query is planned
        once), else a new one."""
        self._check_open()
        query = substitute_variables(query, self.engine.variable)
        with self._plans_lock:
            kept = self._plans.get(query)
        if kept is not None and all(self.catalog.unchanged(t) for t in kept.tables):
            with self._plans_lock:
                if query in self._plans:
                    self._plans.move_to_end(query)
            return kept
        plan = plan_query(query, self.catalog, time_zone=self.time_zone)
        with self._plans_lock:
            self._plans[query] = plan
            while len(self._plans) > _KEPT_PLANS:
                self._plans.popitem(last=False)
        return plan

    def register(self, name: str, location: str | os.PathLike[str]) -> Table:
        """Register a folder, file or glob of Parquet files as table ``name``.

        Every file's footer is read (and cached) now, so a broken file fails here, named.

        Args:
            name: a name as Spark's ``createOrReplaceTempView`` takes it (see
                :func:`table_name`): ``events``, or any text in backticks (```my events```).

        Raises:
            VpushError: a name Spark refuses (``_LEGACY_ERROR_TEMP_1321``: empty, spaces,
                characters other than letters, digits and ``_`` outside backticks, a number;
                ``TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS``: ``db.t``), one with a comment (see
                :func:`table_name`), or a file that cannot be read.
        """
        self._check_open()
        return self.catalog.register(table_name(name), location)

    def sql(self, query: str) -> Relation:
        """A relation for a Spark SQL query over the registered tables; nothing runs until its
        result is asked for."""
        return Relation(self, query)

    def tables(self) -> list[str]:
        """The names of the registered tables."""
        return sorted(t.name for t in self.catalog.tables.values())


# Spark's lexer (SqlBaseLexer.g4): the white space it skips around a name, an unquoted
# identifier's characters, and the number literals that win over an identifier of the same text
_SPACE = "[ \t\n\f\r\u000b\u00a0\u1680\u2000-\u200a\u2028\u202f\u205f\u3000]*"
_PART = "(`(?:[^`]|``)*`|[A-Za-z0-9_]+)"
_ONE_PART = re.compile(f"{_SPACE}{_PART}{_SPACE}")
_PARTS = re.compile(f"{_SPACE}{_PART}{_SPACE}(?:\\.{_SPACE}{_PART}{_SPACE})+")
_ANY_PART = re.compile(_PART)
_NUMBER = re.compile(r"[0-9]+(?:E[0-9]+)?(?:D|F|BD)?|[0-9]+[LSY]", re.IGNORECASE)


def table_name(name: str) -> str:
    """The name a table registered as ``name`` gets, read as Spark's ``createOrReplaceTempView``
    reads a view's name: one identifier, unquoted (letters ``A-Z``, digits and ``_``, not a
    number such as ``1``, ``1e5`` or ``1L``) or in backticks (any text, a backtick doubled), with
    white space around it ignored.

    Spark also skips SQL comments there (``t--x`` registers ``t``); vpush refuses a name with
    one rather than register another name than the one given. ``````, in backticks, is the
    empty name, as Spark registers it (which the SQL reads in backticks too).

    Example:
        >>> table_name("events"), table_name("`my events`"), table_name("1abc"), table_name(" `a``b` "), table_name("``")
        ('events', 'my events', '1abc', 'a`b', '')
        >>> table_name("my events")
        Traceback (most recent call last):
        ...
        vpush.codec.errors.VpushError: [_LEGACY_ERROR_TEMP_1321] invalid table name 'my events': ...

    Raises:
        VpushError: ``_LEGACY_ERROR_TEMP_1321`` for a name Spark cannot read as an identifier,
            ``TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS`` for a qualified one (``db.t``).
    """
    if not isinstance(name, str):
        raise VpushError(f"invalid table name {name!r}: give a string", error_class="_LEGACY_ERROR_TEMP_1321")
    match = _ONE_PART.fullmatch(name)
    if match is not None and not _NUMBER.fullmatch(match.group(1)):
        part = match.group(1)
        return part[1:-1].replace("``", "`") if part.startswith("`") else part
    if _PARTS.fullmatch(name) is not None and not any(_NUMBER.fullmatch(p.group(0)) for p in _ANY_PART.finditer(name)):
        raise VpushError(
            f"invalid table name {name!r}: a table is registered under one name, not a qualified one "
            "(put a name with a dot in backticks: `a.b`)",
            error_class="TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS",
        )
    raise VpushError(
        f"invalid table name {name!r}: give letters A-Z, digits and _ (not a number), or any text in backticks "
        "(`my table`, a backtick doubled), as Spark's createOrReplaceTempView takes them",
        error_class="_LEGACY_ERROR_TEMP_1321",
    )


class Relation:
    """The lazy result of a query."""

    def __init__(self, connection: Connection, query: str) -> None:
        self.connection = connection
        self.query = query
        self._plan: Plan | None = None

    @property
    def plan(self) -> Plan:
        """The plan (made once, on first use)."""
        if self._plan is None:
            self._plan = self.connection.plan(self.query)
        return self._plan

    def fetch_reader(
        self, *, on_rows: Callable[[int], None] | None = None, year_month_intervals: bool = False
    ) -> pa.RecordBatchReader:
        """Run the query and stream its result as Arrow record batches.

        An interval column comes as Spark's ``toArrow`` gives it, a ``duration`` of microseconds,
        its field tagged with its Spark type where vpush can tell it (field metadata
        ``spark_type``: ``interval day``, ``interval hour to second``, ...).

        Args:
            on_rows: called with the row count of each batch the scans read, from any thread
                (for a progress bar; :meth:`rows_to_read` is the total).
            year_month_intervals: give a year-month interval column as its months (``int32``,
                tagged ``interval year to month``, ...) rather than refuse it as Spark's
                ``toArrow`` does (``UNSUPPORTED_DATA_TYPE_FOR_ARROW_CONVERSION``).
        """
        plan = self.plan
        self.connection._check_open()  # a plan made before the connection closed
        return self.connection.engine.execute(plan, on_rows=on_rows, year_month_intervals=year_month_intervals)

    def to_spark(self) -> DataFrame:
        """The query as a Spark DataFrame (Spark engine only), for further work in Spark."""
        from vpush.exec.spark_engine import SparkEngine

        engine = self.connection.engine
        if not isinstance(engine, SparkEngine):
            raise VpushError("to_spark() needs a connection with engine='spark'")
        return engine.dataframe(self.plan)

    def rows_to_read(self) -> int:
        """The rows the scans will read: those of the row groups that pruning kept."""
        total = 0
        for scan in self.plan.scans:
            for file in scan.files:
                metadata = self.connection.catalog.file_info(file.path).metadata
                total += sum(metadata.row_group(rg).num_rows for rg in file.row_groups)
        return total

    def to_arrow(self) -> pa.Table:
        """Run the query; a variant column comes back as ``struct<metadata: binary, value: binary>``."""
        reader = self.fetch_reader()
        return reader.read_all()

    def df(self) -> pd.DataFrame:
        """Run the query into a pandas DataFrame, with variants rendered as Spark's ``to_json``
        renders them (in the session time zone)."""
        return render_frame(self.to_arrow(), self.connection.time_zone)

    def show(self, n: int = 20) -> None:
        """Print the first ``n`` rows as a table."""
        from rich.console import Console

        result = self.fetch_reader(year_month_intervals=True).read_all()  # Spark's show() prints them
        Console().print(render_table(result.slice(0, n), self.connection.time_zone))

    def explain(self) -> str:
        """What the query will do: the SQL the engine runs, and per table the files, row groups
        and columns read, and why pruning skipped the others."""
        plan = self.plan
        engine = self.connection.engine.name
        lines = ["== SQL run by " + engine + " ==", plan.sql(engine, pretty=True), ""]
        if engine == "spark":
            for scan in plan.scans:
                for part, query in zip(scan.parts, scan.part_queries):
                    names = ", ".join(Path(f.path).name for f in part.files) or "(no files)"
                    lines += [f"== each task of {scan.name} over {names} runs (DuckDB) ==", query, ""]
        for scan in plan.scans:
            read_rg = sum(len(f.row_groups) for f in scan.files)
            total_rg = sum(f.num_row_groups for f in scan.files)
            read_files = sum(1 for f in scan.files if f.row_groups)
            lines.append(f"== scan of {scan.table or '``'} as {scan.name} ==")  # `` : Spark's empty name
            columns = [c for c in scan.columns if c != ROW_COUNT_COLUMN]
            leaves = dict.fromkeys(i.name for part in scan.parts for f in part.files if f.row_groups for i in part.inputs)
            columns += [leaf for leaf in leaves if leaf not in columns]  # the shredded leaves the extractions read
            lines.append(f"columns read: {', '.join(columns) or '(none: row counts only)'}")
            if scan.log_skipped:
                total_files = len(scan.files) + len(scan.log_skipped)
                lines.append(
                    f"files skipped by the Delta log {len(scan.log_skipped)} of {total_files} (footers not opened)"
                )
                for path, reason in scan.log_skipped:
                    lines.append(f"  {path}: skipped by the log, {reason}")
            lines.append(f"files read {read_files} of {len(scan.files)}, row groups read {read_rg} of {total_rg}")
            if scan.deferred and engine == "duckdb":
                lines.append(
                    f"  {', '.join(scan.deferred)}: not read by the scan (each row's place instead); rebuilt after "
                    "the LIMIT for the rows kept, from their row groups"
                )
            inputs = {f.path: part.inputs for part in scan.parts for f in part.files}
            reads_natively = getattr(self.connection.engine, "reads_natively", None)
            for part in scan.parts:
                if reads_natively is not None and reads_natively(part):
                    lines.append(
                        f"  {len(part.files)} file(s) read by DuckDB's own Parquet reader (their typed leaves hold "
                        "every value: no residuals in any row group); DuckDB skips row groups by its own statistics"
                    )
            for f in scan.files:
                counts = _count_reasons(f.skipped)
                if not f.row_groups and f.num_row_groups:
                    lines.append(f"  {f.path}: skipped, {'; '.join(counts)}")
                    continue
                reasons = "; ".join(f"{n} {reason}" for reason, n in counts.items())
                skipped = f" (skipped: {reasons})" if reasons else ""
                read = [*f.columns, *(i.name for i in inputs.get(f.path, ()))]
                lines.append(
                    f"  {f.path}: row groups read {len(f.row_groups)} of {f.num_row_groups}{skipped}, "
                    f"columns {', '.join(read) or '(none)'}"
                )
                for reason, n in _count_reasons(f.read_for_errors).items():
                    lines.append(f"    {n} row group(s) the WHERE rules out read all the same: {reason}")
                unread: dict[str, int] = {}
                for unread_names in f.unread.values():
                    for name in unread_names:
                        unread[name] = unread.get(name, 0) + 1
                if unread:
                    shown = ", ".join(f"{name} in {n} of {len(f.row_groups)}" for name, n in unread.items())
                    lines.append(f"    not read where the footer shows them all-null: {shown}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Relation({self.query!r})"


def render_table(result: pa.Table, time_zone: str) -> RichTable:
    """A result as a rich table: one column per field, headed by its name and type; variants
    as Spark's ``to_json`` writes them, intervals whose type is known as Spark's ``show()``
    prints them (``INTERVAL '1' DAY``)."""
    from rich.table import Table as RichTable

    from vpush.exec.engine import interval_type
    from vpush.exec.format_rows import intervals_as_text

    table = _render_variants(result, time_zone)
    for i, field in enumerate(table.schema):
        if interval_type(field) is not None:  # an untagged one prints as Python prints a timedelta
            table = table.set_column(i, field.name, intervals_as_text(table.select([i])).column(0))
    out = RichTable(show_lines=False)
    for field in result.schema:
        out.add_column(f"{field.name}\n{_type_name(field)}", overflow="fold")
    for values in zip(*(column.to_pylist() for column in table.columns)):
        out.add_row(*("NULL" if v is None else str(v) for v in values))
    return out


def render_frame(result: pa.Table, time_zone: str) -> pd.DataFrame:
    """A result as a pandas DataFrame, variants as Spark's ``to_json`` writes them."""
    return _render_variants(result, time_zone).to_pandas()


def _count_reasons(skipped: tuple[tuple[int, str], ...]) -> dict[str, int]:
    """How many row groups each reason skipped."""
    counts: dict[str, int] = {}
    for _, reason in skipped:
        counts[reason] = counts.get(reason, 0) + 1
    return counts


def _type_name(field: pa.Field) -> str:
    """The column's type as Spark names it (``bigint``, ``decimal(10,2)``, ``variant``,
    ``interval day``)."""
    from vpush.exec.engine import interval_type
    from vpush.optimizer.spark_semantics import arrow_spark_type

    t = field.type
    if interval_type(field) is not None:
        return str(interval_type(field))
    spark_type = arrow_spark_type(t)
    if spark_type is not None:
        return spark_type.to_spark()
    return "void" if pa.types.is_null(t) else str(t)


def _render_variants(table: pa.Table, time_zone: str) -> pa.Table:
    """Replace each variant column by its JSON text, as Spark's ``to_json`` writes it: by the
    compiled kernel a chunk at a time, or row by row by the Python reference where the kernel
    is not built."""
    from vpush.codec.json import to_json
    from vpush.codec.native import NativeUnsupportedError, to_json_native

    for i, field in enumerate(table.schema):
        if not field.type.equals(VARIANT_ARROW_TYPE):
            continue
        col = table.column(i)
        chunks: list[pa.Array] = []
        for chunk in col.chunks:
            metadata, value = chunk.flatten()  # the struct's nulls applied to both fields
            try:
                chunks.append(to_json_native(metadata, value, time_zone=time_zone))
                continue
            except NativeUnsupportedError:
                pass
            texts: list[Any] = [
                None if m is None or v is None else to_json(m, v, time_zone=time_zone)
                for m, v in zip(metadata.to_pylist(), value.to_pylist())
            ]
            chunks.append(pa.array(texts, pa.string()))
        table = table.set_column(i, field.name, pa.chunked_array(chunks, pa.string()))
    return table
