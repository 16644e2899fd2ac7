"""The Spark engine: the scan runs distributed, the rest of the query is Spark's own SQL.

Each scan of the plan becomes a temporary view over vpush's Spark data source (Spark's Python
data source API, Spark 4.0+), under a name of its own per query. The row groups pruning kept
are grouped into input partitions as Spark groups a file scan (:mod:`vpush.exec.spark_tasks`), so
Spark spreads them over its executors. A task reads only the needed leaf columns of its row
groups and computes the variant extractions with the same DuckDB query the DuckDB engine
runs for that part (:attr:`~vpush.optimizer.plan.Scan.part_queries`, DuckDB embedded in the
task), and hands Spark Arrow batches: the scan's columns, variants as Spark variants, then the
extraction columns. The query itself (:attr:`~vpush.optimizer.plan.Plan.spark_expression`) is the
user's Spark SQL with each placed extraction replaced by its column, so everything else (types,
casts, errors, names) is Spark's.

Why the Python data source API: it is the public way to feed Spark Arrow batches from Python with
one task per input partition, needs nothing on the cluster but vpush installed on the executors'
Python, and keeps row-group skipping and leaf-only reads in vpush's hands (Spark's own Parquet
reader cannot be told to read a row group, and reads every shredded leaf of a variant).
"""
from __future__ import annotations

import base64
import re
import uuid
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from vpush.codec.errors import VpushError
from vpush.codec.java_format import duckdb_time_zone, java_string_of_bytes
from vpush.exec.derive_scan_schema import derive_scan_schema
from vpush.exec.engine import in_session_zone, tag_interval
from vpush.exec.errors import ExecutionError
from vpush.exec.locate_damaged_variant import locate_damaged_variant
from vpush.exec.read_scan import timestamps_in_micros
from vpush.exec.spark_tasks import (
    DEFAULT_MAX_PARTITION_BYTES,
    DEFAULT_OPEN_COST_BYTES,
    decode_tasks,
    encode_tasks,
    plan_tasks,
    read_task,
    spark_bytes,
)
from vpush.optimizer.plan import VARIANT_ARROW_TYPE, Plan, Scan

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from sqlglot import exp

SOURCE_NAME = "vpush"
_OPTION = "scan"
_VPUSH_PREFIX = "__vpush_"
_VARIANT_FIELD_METADATA = {b"variant": b"true"}
_RAISED = re.compile(r"\b(?:\w+\.)*(?:\w*Error|\w*Exception): \[([A-Z][A-Z0-9_.]+)\] ([^\n]*)")


def spark_schema(arrow_schema: pa.Schema) -> Any:
    """The Spark schema of the scan view: Arrow's types as PySpark converts them, variants as
    Spark's ``variant``, and vpush's placeholder column (no columns read) as a boolean."""
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import BooleanType, StructField, StructType, VariantType

    from pyspark.sql.types import ArrayType, MapType

    def spark_type_of(arrow_type: pa.DataType) -> Any:
        if arrow_type.equals(VARIANT_ARROW_TYPE):
            return VariantType()
        if not _holds_variant(arrow_type):
            return from_arrow_type(arrow_type)
        # a variant inside an array, map or struct (`CAST(v:a AS array<variant>)`)
        if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
            return ArrayType(spark_type_of(arrow_type.value_type), containsNull=True)
        if pa.types.is_map(arrow_type):
            return MapType(spark_type_of(arrow_type.key_type), spark_type_of(arrow_type.item_type), valueContainsNull=True)
        return StructType([StructField(f.name, spark_type_of(f.type), nullable=True) for f in arrow_type])

    fields = []
    for field in arrow_schema:
        spark_type: Any = BooleanType() if pa.types.is_null(field.type) else spark_type_of(field.type)
        fields.append(StructField(field.name, spark_type, nullable=True))
    return StructType(fields)


def _holds_variant(arrow_type: pa.DataType) -> bool:
    """Whether ``arrow_type`` is vpush's variant or an array, map or struct with one inside."""
    if arrow_type.equals(VARIANT_ARROW_TYPE):
        return True
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return _holds_variant(arrow_type.value_type)
    if pa.types.is_map(arrow_type):
        return _holds_variant(arrow_type.key_type) or _holds_variant(arrow_type.item_type)
    if pa.types.is_struct(arrow_type):
        return any(_holds_variant(f.type) for f in arrow_type)
    return False


_SPARK_VARIANT_TYPE = pa.struct([pa.field("value", pa.binary(), nullable=False), pa.field("metadata", pa.binary(), nullable=False)])


def _spark_variants(column: pa.Array) -> tuple[pa.Array, pa.Field]:
    """``column`` with every variant in it as Spark's Python data source takes one (a
    ``struct<value, metadata>`` of non-null fields tagged ``variant``), and the field to hold it
    (its name left empty): at the top, or inside arrays, maps and structs."""
    kind = column.type
    if kind.equals(VARIANT_ARROW_TYPE):
        assert isinstance(column, pa.StructArray)
        mask = column.is_null() if column.null_count else None
        value = column.field("value").fill_null(b"")
        metadata = column.field("metadata").fill_null(b"")
        converted = pa.StructArray.from_arrays([value, metadata], fields=list(_SPARK_VARIANT_TYPE), mask=mask)
        return converted, pa.field("", _SPARK_VARIANT_TYPE, metadata=_VARIANT_FIELD_METADATA)
    if not _holds_variant(kind):
        return column, pa.field("", kind)
    mask = column.is_null() if column.null_count else None
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_map(kind):
        # offsets from 0 over the slice's own values (Arrow builds no list of sliced offsets and a mask)
        start, end = column.offsets[0].as_py(), column.offsets[-1].as_py()
        offsets = pc.subtract(column.offsets, pa.scalar(start, column.offsets.type))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        values, item = _spark_variants(column.values.slice(start, end - start))
        item = item.with_name(kind.value_field.name)
        listed = pa.large_list(item) if pa.types.is_large_list(kind) else pa.list_(item)
        array_class = pa.LargeListArray if pa.types.is_large_list(kind) else pa.ListArray
        return array_class.from_arrays(offsets, values, type=listed, mask=mask), pa.field("", listed)
    if pa.types.is_map(kind):
        keys, key_field = _spark_variants(column.keys.slice(start, end - start))
        items, item_field = _spark_variants(column.items.slice(start, end - start))
        mapped = pa.map_(key_field.with_name("key").with_nullable(False), item_field.with_name("value"))
        return pa.MapArray.from_arrays(offsets, keys, items, type=mapped, mask=mask), pa.field("", mapped)
    assert isinstance(column, pa.StructArray)
    parts = [_spark_variants(column.field(i)) for i in range(kind.num_fields)]
    fields = [f.with_name(kind.field(i).name) for i, (_, f) in enumerate(parts)]
    return pa.StructArray.from_arrays([a for a, _ in parts], fields=fields, mask=mask), pa.field("", pa.struct(fields))


def spark_arrow_schema(schema: pa.Schema) -> pa.Schema:
    """The scan's Arrow schema with timestamps as Spark holds them: microseconds (Spark has no
    finer unit), in UTC where they are instants (the catalog types INT96 columns so already).

    Example:
        >>> import pyarrow as pa
        >>> spark_arrow_schema(pa.schema([("a", pa.timestamp("ns")), ("b", pa.timestamp("ns", tz="UTC"))]))
        a: timestamp[us]
        b: timestamp[us, tz=UTC]
    """
    fields = []
    for field in schema:
        if pa.types.is_timestamp(field.type):
            field = field.with_type(pa.timestamp("us", tz="UTC" if field.type.tz is not None else None))
        fields.append(field)
    return pa.schema(fields, metadata=schema.metadata)


def _to_spark_batch(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """A batch as Spark's Python data source takes it: variants as ``struct<value, metadata>``
    with the ``variant`` field metadata, timestamps in UTC, the placeholder column as booleans."""
    arrays = []
    fields = []
    for field, column in zip(schema, batch.columns):
        if _holds_variant(field.type):
            column, made = _spark_variants(column)
            fields.append(made.with_name(field.name))
        elif pa.types.is_null(field.type):
            column = pa.nulls(len(column), pa.bool_())
            fields.append(pa.field(field.name, pa.bool_()))
        elif pa.types.is_timestamp(field.type):
            target = pa.timestamp("us", tz=field.type.tz) if field.type.tz is not None else field.type
            if column.type != target:
                column = timestamps_in_micros(column, target)
            fields.append(pa.field(field.name, target))
        else:
            fields.append(field)
        arrays.append(column)
    return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields))


def scan_output_schema(plan: Plan, scan: Scan, time_zone: str) -> pa.Schema:
    """The Arrow schema of the scan's relation: derived from the plan
    (:func:`~vpush.exec.derive_scan_schema.derive_scan_schema`), else DuckDB's."""
    derived = derive_scan_schema(scan, time_zone)
    return derived if derived is not None else duckdb_scan_schema(plan, scan, time_zone)


def duckdb_scan_schema(plan: Plan, scan: Scan, time_zone: str) -> pa.Schema:
    """The Arrow schema of the scan's relation, from DuckDB running a part's query on no rows
    (about 15 ms): the reference the derived schema is checked against."""
    if not scan.parts:
        return scan.schema
    import duckdb

    from vpush.exec.variant_udf import register
    from vpush.optimizer.rewrite_variants import duckdb_type

    part = scan.parts[0]
    connection = duckdb.connect()
    try:
        connection.execute("SET TimeZone = $tz", {"tz": duckdb_time_zone(time_zone)})
        for name, target in plan.functions:
            register(connection, name, target, duckdb_type(target).sql(dialect="duckdb"))
        connection.register(part.name, pa.RecordBatchReader.from_batches(part.schema, iter(())))
        return connection.sql(scan.part_queries[0]).to_arrow_table().schema
    finally:
        connection.close()


def _data_source() -> type:
    """vpush's Spark data source class (PySpark is imported only when the engine is used)."""
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

    class _Partition(InputPartition):  # type: ignore[misc]
        def __init__(self, index: int | None) -> None:
            super().__init__(index)
            self.index = index

    class _Reader(DataSourceReader):  # type: ignore[misc]
        def __init__(self, encoded: str) -> None:
            self.tasks = decode_tasks(encoded)

        def partitions(self) -> list[_Partition]:
            if not self.tasks.tasks:
                return [_Partition(None)]
            return [_Partition(i) for i in range(len(self.tasks.tasks))]

        def read(self, partition: _Partition) -> Iterator[pa.RecordBatch]:  # type: ignore[override]
            if partition.index is None:
                return
            try:
                for batch in read_task(self.tasks, partition.index):
                    if batch.num_rows:
                        yield _to_spark_batch(batch, self.tasks.schema)
            except VpushError as exc:
                raise RuntimeError(wire_error(exc)) from None

    class VpushSource(DataSource):  # type: ignore[misc]
        """Reads a vpush scan: the options carry its tasks."""

        @classmethod
        def name(cls) -> str:
            return SOURCE_NAME

        def schema(self) -> Any:
            return spark_schema(decode_tasks(self.options[_OPTION]).schema)

        def reader(self, schema: Any) -> _Reader:
            return _Reader(self.options[_OPTION])

    return VpushSource


class SparkEngine:
    """Runs plans on Spark.

    Args:
        spark: a SparkSession to run on; by default the active one, or a new local one
            (``local[2]``).
        time_zone: the session time zone, set as ``spark.sql.session.timeZone``; by default the
            session's own.
    """

    name = "spark"

    def __init__(self, *, spark: SparkSession | None = None, time_zone: str | None = None) -> None:
        if spark is None:
            from vpush.exec.spark_session import local_spark

            spark = local_spark("vpush")
        self.spark = spark
        if time_zone is None:
            time_zone = str(spark.conf.get("spark.sql.session.timeZone"))
        else:
            spark.conf.set("spark.sql.session.timeZone", time_zone)
        self.time_zone = time_zone
        self.spark.dataSource.register(_data_source())
        self._naming_session: SparkSession | None = None
        self._native_tables: dict[str, tuple[str, tuple[str, ...]]] = {}

    def variable(self, prefix: str | None, name: str) -> str | None:
        """The session's value of ``${prefix:name}`` as Spark's ``VariableSubstitution`` reads it:
        its configuration (``''`` where unset), the JVM's environment and system properties."""
        if prefix in (None, "spark", "sparkconf", "hivevar", "hiveconf"):
            conf = self.spark._jsparkSession.sessionState().conf()  # type: ignore[attr-defined]
            try:
                return str(conf.getConfString(name, ""))
            except Exception as exc:  # a Spark key whose type '' is not (INVALID_CONF_VALUE.TYPE_MISMATCH)
                raise translate_spark_error(exc) from exc
        jvm = self.spark._jvm
        assert jvm is not None  # a classic (not Connect) session, as the engine needs
        if prefix == "env":
            found = jvm.java.lang.System.getenv(name)
        elif prefix == "system":
            found = jvm.java.lang.System.getProperty(name)
        else:
            return None
        return None if found is None else str(found)

    def dataframe(self, plan: Plan) -> DataFrame:
        """The query as a Spark DataFrame, for further work in Spark.

        Each scan is a temporary view under a name of its own (the plan's scan name and a random
        suffix), so that connections and threads sharing the SparkSession never read each
        other's scans; the views are dropped once Spark has analyzed the query (the DataFrame
        keeps their plans).
        """
        from pyspark.errors import PySparkException
        from sqlglot import exp

        from vpush.optimizer.dialect import VpushSpark

        assert plan.spark_expression is not None
        session_zone = str(self.spark.conf.get("spark.sql.session.timeZone"))
        if session_zone != self.time_zone:
            # The plan and the scans compute in the connection's zone, Spark's SQL would in the
            # session's: the two would mix two zones in one answer.
            raise ExecutionError(
                f"the Spark session's time zone is now {session_zone!r}, this connection's {self.time_zone!r}: "
                "connect again (vpush.connect(engine='spark', time_zone=...)) to query in another zone"
            )
        views = {scan.name: f"{scan.name}_{uuid.uuid4().hex}" for scan in plan.scans}
        expression = plan.spark_expression.copy()
        for table in expression.find_all(exp.Table):
            if not table.args.get("db") and table.name in views:
                table.set("this", exp.to_identifier(views[table.name], quoted=True))
        created: list[str] = []
        try:
            parallelism, max_bytes, open_cost = self._split_settings()
            for scan in plan.scans:
                schema = spark_arrow_schema(scan_output_schema(plan, scan, self.time_zone))
                tasks = plan_tasks(
                    plan, scan, schema, self.time_zone,
                    parallelism=parallelism, max_partition_bytes=max_bytes, open_cost_bytes=open_cost,
                )
                # The schema given here spares Spark asking the source's Python for it.
                view = (
                    self.spark.read.format(SOURCE_NAME)
                    .schema(spark_schema(schema))
                    .option(_OPTION, encode_tasks(tasks))
                    .load()
                )
                view.createTempView(views[scan.name])
                created.append(views[scan.name])
            if plan.spark_constants_sql is not None:
                self.spark.sql(plan.spark_constants_sql).toArrow()  # Spark folds none inside the held filter
            frame = self.spark.sql(expression.sql(dialect=VpushSpark))
        except PySparkException as exc:
            raise translate_spark_error(exc) from exc
        finally:
            for name in created:
                self.spark.catalog.dropTempView(name)
        names = self._spark_names(plan)
        if names is not None and len(names) == len(frame.columns) and names != frame.columns:
            frame = frame.toDF(*names)
        return frame

    def _split_settings(self) -> tuple[int, int, int]:
        """Spark's settings for grouping a file scan into tasks: the default parallelism,
        ``spark.sql.files.maxPartitionBytes`` and ``spark.sql.files.openCostInBytes``."""
        conf = self.spark.conf
        minimum = conf.get("spark.sql.files.minPartitionNum", None)
        if minimum is not None and str(minimum).isdigit():
            parallelism = int(minimum)
        else:
            try:
                parallelism = int(self.spark.sparkContext.defaultParallelism)
            except Exception:  # Spark Connect has no SparkContext  # noqa: BLE001
                parallelism = 2
        return (
            parallelism,
            spark_bytes(conf.get("spark.sql.files.maxPartitionBytes", None), DEFAULT_MAX_PARTITION_BYTES),
            spark_bytes(conf.get("spark.sql.files.openCostInBytes", None), DEFAULT_OPEN_COST_BYTES),
        )

    def _spark_names(self, plan: Plan) -> list[str] | None:
        """The column names Spark gives the query as the user wrote it: Spark's analyzer names
        it over the tables as Spark itself reads them (footers only; nothing runs), in a session
        of its own so that the user's views are left alone. None where Spark cannot read a table
        (a layout only vpush reads), or where the rewritten query's names are Spark's anyway
        (:func:`names_kept`): the names of the rewritten query stay."""
        if plan.spark_expression is not None and names_kept(plan.spark_expression):
            return None
        if self._naming_session is None:
            self._naming_session = self.spark.newSession()
            # a new session takes its SQL conf from the context's, not this session's: a zoned
            # literal's name (its local time) would be the context's zone's
            self._naming_session.conf.set("spark.sql.session.timeZone", self.time_zone)
        session = self._naming_session
        try:
            for scan in plan.scans:
                key = (scan.location, tuple(f.path for f in scan.files))
                if self._native_tables.get(scan.table) != key:
                    # the registered name, quoted as createOrReplaceTempView reads it back
                    session.read.parquet(scan.location).createOrReplaceTempView("`" + scan.table.replace("`", "``") + "`")
                    self._native_tables[scan.table] = key
            return list(session.sql(plan.source_sql).columns)
        except Exception:  # any failure here only costs the names
            return None

    def execute(
        self, plan: Plan, *, on_rows: Callable[[int], None] | None = None, year_month_intervals: bool = False
    ) -> pa.RecordBatchReader:
        """Run ``plan`` on Spark and return its result (collected to the driver); an interval
        column tagged with its type as the DataFrame has it (``year_month_intervals``: see
        :meth:`vpush.exec.engine.Engine.execute`)."""
        from pyspark.errors import PySparkException
        from pyspark.sql import functions as F
        from pyspark.sql.types import DayTimeIntervalType, YearMonthIntervalType

        frame = self.dataframe(plan)
        names = list(frame.columns)
        kinds = [f.dataType for f in frame.schema.fields]
        intervals = {i: t.simpleString() for i, t in enumerate(kinds) if isinstance(t, (DayTimeIntervalType, YearMonthIntervalType))}
        year_month = {i for i, t in enumerate(kinds) if isinstance(t, YearMonthIntervalType)}
        if year_month and year_month_intervals:
            # Spark's Arrow conversion refuses a year-month interval: its months instead, as an
            # int (positions for names, which may repeat)
            positional = [f"c{i}" for i in range(len(names))]
            frame = frame.toDF(*positional).select(*(
                F.expr(_months_of(f"c{i}")).alias(f"c{i}") if i in year_month else F.col(f"c{i}") for i in range(len(names))
            ))
        try:
            # Not DataFrame.toArrow(): its final cast to Spark's schema fails on a null variant
            # (the struct's fields are declared non-nullable); the batches themselves are right.
            batches = frame._collect_as_arrow(empty_list_if_zero_records=False)  # type: ignore[operator]
        except PySparkException as exc:
            raise locate_damaged_variant(translate_spark_error(exc), plan) from exc
        except Exception as exc:
            # a task's failure reaches _collect_as_arrow as py4j's error, not PySpark's
            if type(exc).__name__ != "Py4JJavaError":
                raise
            # Spark's own variant functions name no file for damaged bytes
            raise locate_damaged_variant(translate_spark_error(exc), plan) from exc
        table = pa.Table.from_batches(batches)
        table = _from_spark_table(table, spark_variant_columns(table.schema))
        if intervals:
            fields = [tag_interval(f.with_name(n), intervals.get(i)) for i, (f, n) in enumerate(zip(table.schema, names))]
            table = pa.Table.from_arrays(table.columns, schema=pa.schema(fields, metadata=table.schema.metadata))
        # PySpark labels the timestamps of a result without rows UTC, of others the session's zone
        zoned = in_session_zone(table.schema, self.time_zone)
        if not zoned.equals(table.schema):
            table = table.cast(zoned)
        return pa.RecordBatchReader.from_batches(table.schema, table.to_batches())


def _months_of(column: str) -> str:
    """Spark SQL for the months of a year-month interval column of any of its types."""
    span = f"CAST({column} AS INTERVAL YEAR TO MONTH)"
    return f"CAST(extract(YEAR FROM {span}) * 12 + extract(MONTH FROM {span}) AS INT)"


def names_kept(expression: exp.Expr) -> bool:
    """Whether the rewritten query's output columns are named as Spark names the user's query,
    for certain, so that Spark need not analyze the original to name them: the outermost SELECT
    (of each branch of a set operation) projects only aliases and plain columns that are not
    vpush's extraction columns. An alias names its column by its own text, and a plain column
    by its name as the relation it resolves against has it, which the rewrite leaves alone
    (only variant extractions become columns, each named ``__vpush_...``). A bare expression
    is named after its text as Spark's parser reads it, and a star after the relation's
    columns: those are left to Spark's analyzer.

    Example:
        >>> from sqlglot import parse_one
        >>> names_kept(parse_one("SELECT count(*) AS n, t.id FROM t"))
        True
        >>> names_kept(parse_one("SELECT count(*) FROM t")), names_kept(parse_one("SELECT * FROM t"))
        (False, False)
        >>> names_kept(parse_one("SELECT t.__vpush_0_x0 FROM t"))
        False
    """
    from sqlglot import exp

    if isinstance(expression, exp.SetOperation):
        return names_kept(expression.left) and names_kept(expression.right)
    if isinstance(expression, exp.Subquery):
        return names_kept(expression.this)
    if not isinstance(expression, exp.Select):
        return False
    for projection in expression.expressions:
        if isinstance(projection, exp.Alias):
            continue
        if (
            isinstance(projection, exp.Column)
            and isinstance(projection.this, exp.Identifier)
            and not projection.name.lower().startswith(_VPUSH_PREFIX)
        ):
            continue
        return False
    return True


def spark_variant_columns(schema: pa.Schema) -> set[int]:
    """The positions of the variant columns of Spark's Arrow result: Spark sends a variant as
    ``struct<value, metadata>`` whose ``metadata`` field carries the field metadata
    ``variant: true`` (a struct that merely has such fields carries none), so the result's own
    schema tells them apart without asking Spark for the DataFrame's.

    Example:
        >>> tagged = pa.field("metadata", pa.binary(), nullable=False, metadata={"variant": "true"})
        >>> spark_variant_columns(pa.schema([("v", pa.struct([("value", pa.binary()), tagged])),
        ...     ("s", pa.struct([("value", pa.binary()), ("metadata", pa.binary())]))]))
        {0}
    """
    out = set()
    for i, field in enumerate(schema):
        if not pa.types.is_struct(field.type) or field.type.get_field_index("metadata") < 0:
            continue
        metadata = field.type.field("metadata").metadata or {}
        if metadata.get(b"variant") == b"true":
            out.add(i)
    return out


def _from_spark_table(table: pa.Table, variants: set[int]) -> pa.Table:
    """Spark's Arrow result with its variant columns (by position: :func:`spark_variant_columns`)
    as vpush gives them: ``struct<metadata, value>``. A struct that merely has fields named
    ``metadata`` and ``value`` stays as it is."""
    for i, field in enumerate(table.schema):
        if i in variants or _holds_spark_variant(field.type):
            rebuilt = _vpush_variants(table.column(i).combine_chunks())
            table = table.set_column(i, pa.field(field.name, rebuilt.type), rebuilt)
        elif pa.types.is_string(field.type) or pa.types.is_large_string(field.type):
            table = table.set_column(i, field, _valid_text(table.column(i)))
    # As the DuckDB engine gives it: every column and every field inside nullable (Spark declares
    # `named_struct('a', 1)`'s field non-nullable, though a NULL struct in an array holds NULLs
    # there, which Arrow's cast to a non-nullable field refuses), no Spark field metadata.
    return table.replace_schema_metadata(None).cast(
        pa.schema([pa.field(f.name, _all_nullable(f.type)) for f in table.schema])
    )


def _all_nullable(arrow_type: pa.DataType) -> pa.DataType:
    """``arrow_type`` with every field inside it nullable, without metadata."""
    if pa.types.is_struct(arrow_type):
        return pa.struct([pa.field(f.name, _all_nullable(f.type)) for f in arrow_type])
    if pa.types.is_map(arrow_type):
        return pa.map_(pa.field(arrow_type.key_field.name, _all_nullable(arrow_type.key_type), nullable=False),
                       pa.field(arrow_type.item_field.name, _all_nullable(arrow_type.item_type)))
    if pa.types.is_large_list(arrow_type):
        return pa.large_list(pa.field(arrow_type.value_field.name, _all_nullable(arrow_type.value_type)))
    if pa.types.is_list(arrow_type):
        return pa.list_(pa.field(arrow_type.value_field.name, _all_nullable(arrow_type.value_type)))
    return arrow_type


def _is_spark_variant(arrow_type: pa.DataType) -> bool:
    """Whether ``arrow_type`` is a variant as Spark's Arrow result gives one (its ``metadata``
    field tagged: :func:`spark_variant_columns`)."""
    if not pa.types.is_struct(arrow_type) or arrow_type.get_field_index("metadata") < 0:
        return False
    return (arrow_type.field("metadata").metadata or {}).get(b"variant") == b"true"


def _holds_spark_variant(arrow_type: pa.DataType) -> bool:
    """Whether an array, map or struct of Spark's result holds a variant inside."""
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return _is_spark_variant(arrow_type.value_type) or _holds_spark_variant(arrow_type.value_type)
    if pa.types.is_map(arrow_type):
        return any(_is_spark_variant(t) or _holds_spark_variant(t) for t in (arrow_type.key_type, arrow_type.item_type))
    if pa.types.is_struct(arrow_type) and not _is_spark_variant(arrow_type):
        return any(_is_spark_variant(f.type) or _holds_spark_variant(f.type) for f in arrow_type)
    return False


def _vpush_variants(column: pa.Array) -> pa.Array:
    """``column`` of Spark's result with every variant in it, at the top or inside arrays, maps
    and structs (``array<variant>``), as vpush gives one: ``struct<metadata, value>``."""
    kind = column.type
    mask = column.is_null() if column.null_count else None
    if _is_spark_variant(kind):
        assert isinstance(column, pa.StructArray)
        return pa.StructArray.from_arrays([column.field("metadata"), column.field("value")], names=["metadata", "value"], mask=mask)
    if not _holds_spark_variant(kind):
        return column
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_map(kind):
        start, end = column.offsets[0].as_py(), column.offsets[-1].as_py()
        offsets = pc.subtract(column.offsets, pa.scalar(start, column.offsets.type))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        values = _vpush_variants(column.values.slice(start, end - start))
        listed = pa.large_list(values.type) if pa.types.is_large_list(kind) else pa.list_(values.type)
        array_class = pa.LargeListArray if pa.types.is_large_list(kind) else pa.ListArray
        return array_class.from_arrays(offsets, values, type=listed, mask=mask)
    if pa.types.is_map(kind):
        keys = _vpush_variants(column.keys.slice(start, end - start))
        items = _vpush_variants(column.items.slice(start, end - start))
        return pa.MapArray.from_arrays(offsets, keys, items, type=pa.map_(keys.type, items.type), mask=mask)
    assert isinstance(column, pa.StructArray)
    parts = [_vpush_variants(column.field(i)) for i in range(kind.num_fields)]
    return pa.StructArray.from_arrays(parts, names=[f.name for f in kind], mask=mask)


def _valid_text(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A string column as valid UTF-8: a Spark string may hold any bytes (a variant binary cast
    to string keeps them), which Spark's Arrow export passes on as they are, while PySpark's own
    rows decode them with U+FFFD for each malformed sequence, as vpush does."""
    return java_string_of_bytes(column)


_WIRE = "vpush-task-error:"
_WIRED = re.compile(re.escape(_WIRE) + r"([A-Za-z0-9+/=]+)")


def _error_classes() -> dict[str, type[VpushError]]:
    found: dict[str, type[VpushError]] = {}
    todo: list[type[VpushError]] = [VpushError]
    while todo:
        cls = todo.pop()
        found[f"{cls.__module__}.{cls.__qualname__}"] = cls
        todo.extend(cls.__subclasses__())
    return found


def wire_error(error: VpushError) -> str:
    """A vpush error raised in a Spark task, as text that survives the trip to the driver: its
    class and fields as base64 JSON (never pickle: the message may quote the data)."""
    import json

    fields = {k: v for k, v in vars(error).items() if isinstance(v, (str, int, float, bool, type(None)))}
    payload = {"class": f"{type(error).__module__}.{type(error).__qualname__}", "fields": fields}
    return _WIRE + base64.b64encode(json.dumps(payload).encode()).decode("ascii")


def unwire_error(text: str) -> VpushError | None:
    """The vpush error a Spark failure's text carries (:func:`wire_error`), rebuilt as the
    same class with the same file, column path, JSON path, offset and error class."""
    import json

    found = _WIRED.findall(text)
    if not found:
        return None
    try:
        payload = json.loads(base64.b64decode(found[-1]))
        cls = _error_classes().get(payload["class"], ExecutionError)
        fields = dict(payload["fields"])
    except (ValueError, KeyError, TypeError):
        return None
    context = {k: fields.get(k) for k in ("file", "column_path", "json_path", "offset", "error_class")}
    error = cls.__new__(cls)
    VpushError.__init__(error, str(fields.get("message", "")), **context)
    return error


_SPARK_CONDITION = re.compile(r"org\.apache\.spark\.\w*Exception: \[([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\]")
"""The condition that opens a Spark exception's text (py4j's errors carry no getCondition)."""


def translate_spark_error(exc: Exception) -> VpushError:
    """A Spark failure as a vpush error: a vpush error raised in a task comes back as itself;
    Spark's own errors keep their error class (condition)."""
    text = str(exc)
    wired = unwire_error(text)
    if wired is not None:
        return wired
    raised = _RAISED.search(text)
    if raised is not None and "PythonException" in type(exc).__name__ + text[:200]:
        return ExecutionError(raised.group(2).strip(), error_class=raised.group(1))
    condition = getattr(exc, "getCondition", lambda: None)()
    if condition is None:
        named = _SPARK_CONDITION.search(text)
        condition = named.group(1) if named is not None else None
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    if condition == "PYTHON_EXCEPTION" and raised is not None:
        return ExecutionError(raised.group(2).strip(), error_class=raised.group(1))
    worker = _python_worker_failure(text)
    if worker:
        first = first.removesuffix(_TRACEBACK).rstrip()
    return ExecutionError(f"Spark failed: {first}{worker}", error_class=condition)


_TRACEBACK = "Traceback (most recent call last):"
_PYTHON_RAISED = re.compile(r"^(\w+(?:\.\w+)*(?:Error|Exception|Exit|Interrupt)): ([^\n]*)$", re.MULTILINE)


def _python_worker_failure(text: str) -> str:
    """What a Python traceback in Spark's text raised (a Python worker's: the text's first line
    ends at ``Traceback (most recent call last):``), said after it; where the worker could not
    import vpush, what to set."""
    start = text.find(_TRACEBACK)
    raised = _PYTHON_RAISED.search(text, start) if start >= 0 else None
    if raised is None:
        return ""
    said = f" {raised.group(1)}: {raised.group(2).strip()}"
    if raised.group(1) == "ModuleNotFoundError" and re.search(r"No module named '(vpush|pyarrow)[.']", raised.group(2) + "'"):
        said += (" (Spark's Python workers run an interpreter without vpush or pyarrow: set PYSPARK_PYTHON, or"
                 " spark.pyspark.python, to the Python vpush is installed in before the Spark session"
                 " starts, and install vpush on every executor)")
    return said
