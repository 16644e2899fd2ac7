"""The plan: what to read from which file and row group, and the SQL to run over it.

This is the one thing the optimizer hands to an engine. Each reference to a registered table in
the query becomes a :class:`Scan` under a generated relation name; the engine provides that
relation (a stream of Arrow batches in which every variant column is
``struct<metadata: binary, value: binary>``) and runs :attr:`Plan.expression` over it.
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from sqlglot import exp

from vpush.codec.layout import VariantLayout
from vpush.codec.spark_aggregates import TASK_SHIFT

if TYPE_CHECKING:
    from vpush.optimizer.variant_types import SparkType

VARIANT_ARROW_TYPE = pa.struct([pa.field("metadata", pa.binary()), pa.field("value", pa.binary())])
"""How a variant column travels between vpush's parts and comes back from ``to_arrow()``."""

LOCATOR_ARROW_TYPE = pa.struct(
    [
        pa.field("file", pa.dictionary(pa.int32(), pa.string())),
        pa.field("row_group", pa.int32()),
        pa.field("row", pa.int64()),
    ]
)
"""Where a row of a deferred variant column is (:attr:`Scan.deferred`): its file, row group and
row within the row group."""

ORDERED_RETRY_MARKER = "vpush-ordered-retry"
"""What the DuckDB query's fast check raises where an aggregate needs Spark's order of rows
(:attr:`Plan.ordered_expression`)."""

DECIMAL_SUM_OVERFLOWS = ("Overflow in HUGEINT addition", "Overflow in SUM of DECIMAL")
"""DuckDB's errors where its 128-bit running total of a ``DECIMAL(38, s)`` sum passes 2^127, or
its total passes 38 digits: in a plan with an :attr:`Plan.ordered_expression`, the fast query's
grouped decimal sums (whose check would have raised :data:`ORDERED_RETRY_MARKER` there) leave
these errors to the ordered query too."""

ROW_COUNT_COLUMN = "__vpush_rows"
"""A column of nulls that carries the row count when a query reads no column of a table."""

SCAN_INDEX = "vpush_scan_index"
"""The meta key of a table reference of the query that becomes a scan: which scan."""

ORDERED_SCAN = "vpush_ordered_scan"
"""The meta key set on such a table reference where the DuckDB SQL reads its :data:`ORDER_COLUMN`."""

ORDER_COLUMN = "__vpush_order"
"""A ``bigint`` column the DuckDB engine adds to an ordered scan (:attr:`Scan.ordered`): each row's
place in the order Spark's file scan meets the rows in: the Spark task that reads it times
2^:data:`ORDER_TASK_SHIFT`, plus the file's :attr:`FileScan.spark_rank` times
2^:data:`ORDER_FILE_SHIFT`, plus the row's index in the file. Spark's tasks take the files in
that order too, so the places of one task's rows follow those of the task before."""

ORDER_FILE_SHIFT = 36
"""The bits of :data:`ORDER_COLUMN` below a file's rank: a row's index in its file."""

ORDER_TASK_SHIFT = TASK_SHIFT
"""The bits of :data:`ORDER_COLUMN` below the row's task (:attr:`FileScan.spark_tasks`): the
kernels of :mod:`vpush.codec.spark_aggregates` take each row's task from its place."""

ONE_TASK_BYTES = 4 * 1024 * 1024
"""Spark's default ``spark.sql.files.openCostInBytes``, below which its file scan never cuts a
split: a table of one file of at most these bytes is one Spark task."""

ONE_TASK = "vpush_one_task"
"""The meta key set on a table reference whose table Spark reads in one task (one file of at most
:data:`ONE_TASK_BYTES`): an aggregate that merges Spark's tasks' buffers need not find its tasks."""

MAX_ORDERED_FILES = 1 << (ORDER_TASK_SHIFT - ORDER_FILE_SHIFT)
"""The files an ordered scan may read (their ranks fit between the two shifts)."""

MAX_ORDERED_TASKS = 1 << (63 - ORDER_TASK_SHIFT)
"""The Spark tasks an ordered scan may be read in (their indexes fit above the file ranks)."""


@dataclasses.dataclass(frozen=True)
class FileScan:
    """One file's share of a scan: the row groups and top-level columns to read, the file's
    partition values (constant columns of the scan), and why the other row groups are skipped."""

    path: str
    row_groups: tuple[int, ...]
    columns: tuple[str, ...]
    variant_columns: Mapping[str, VariantLayout]
    num_rows: int
    num_row_groups: int = 0
    partition_values: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    skipped: tuple[tuple[int, str], ...] = ()
    """(row group, reason) for each row group pruning ruled out."""
    read_for_errors: tuple[tuple[int, str], ...] = ()
    """(row group, why) for each row group the WHERE rules out but that is read all the same,
    because a cast Spark computes for every row of its scan may fail there."""
    input_layouts: Mapping[str, VariantLayout] = dataclasses.field(default_factory=dict)
    """Every variant column's layout in the file, for the part's rebuilt levels."""
    unread: Mapping[int, frozenset[str]] = dataclasses.field(default_factory=dict)
    """Per row group, the inputs of the part (by name) left unread and given as nulls, because
    the footer proves them all-null there (a leaf's ``value``; the metadata nothing else needs)."""
    spark_rank: int = 0
    """The file's place among the table's files in the order Spark's file scan reads them
    (``FilePartition``: the splits sorted by size, largest first; files of one size in path
    order), which :data:`ORDER_COLUMN` follows."""
    spark_tasks: tuple[int, ...] = ()
    """Per row group of :attr:`row_groups` (in that order), the index of the Spark task that reads
    it, as the DuckDB engine groups an ordered scan's row groups into tasks; empty: task 0."""
    footer: Any = dataclasses.field(default=None, compare=False, repr=False)
    """The file's parsed footer (``pyarrow.parquet.FileMetaData``) as the catalog read it, so
    that an engine sizing its work by column chunks need not read it again; None if unknown."""


@dataclasses.dataclass(frozen=True)
class LeafInput:
    """A leaf column of a variant, read as stored: ``metadata``, a ``value`` or a primitive
    ``typed_value``. ``name`` is its column in the part (its dotted Parquet path)."""

    name: str
    path: str
    names: tuple[str, ...] = ()
    """The path's field names (a name may hold a dot)."""


@dataclasses.dataclass(frozen=True)
class LevelInput:
    """One level of a variant (the top, an object field by its names from the top, or an element
    of a shredded array by its index), rebuilt as ``struct<metadata, value>`` from every leaf
    below it; null where the field is missing or the index past the array's end (or the array
    not typed in that row), a Variant null where the element is one."""

    name: str
    column: str
    level: tuple[str | int, ...]


Input = LeafInput | LevelInput


@dataclasses.dataclass(frozen=True)
class NativeLeaf:
    """A typed leaf that DuckDB's own Parquet reader gives exactly: ``TRY_CAST(column.keys AS
    T)`` over the column read as DuckDB's VARIANT, where ``T`` is the leaf's own type."""

    name: str
    """The part's input column it stands for."""
    column: str
    keys: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class CastLater:
    """A strict cast that Spark computes where the query computes it, for the rows that reach it
    (``v:a::int``, a cast of the variant its scan gives), and that may fail in some file: the
    scan gives the ``try_`` cast (``attempt``) and, where that is NULL, the variant at the path
    (``residual``); the query casts ``coalesce(attempt, <strict cast of residual>)`` where it
    stood, so a value that cannot be cast raises, and only where Spark's would (engines filter
    before or after computing the scan's columns as they like)."""

    strict: str
    """The scan column of the strict cast, which neither engine's query reads."""
    attempt: str
    residual: str
    file: str
    """The row's file, for the error of the DuckDB engine's cast."""
    target: Any
    """The :class:`~vpush.optimizer.variant_types.SparkType` cast to."""
    path: str = "$"
    """The path as the query wrote it, for the error of the DuckDB engine's cast."""


@dataclasses.dataclass(frozen=True)
class ScanPart:
    """The files of a scan that share a physical layout for the variant extractions, read as the
    relation ``name``: the scan's columns, then the inputs (``schema`` has both)."""

    name: str
    files: tuple[FileScan, ...]
    inputs: tuple[Input, ...]
    schema: pa.Schema
    native: tuple[NativeLeaf, ...] | None = None
    """Set when DuckDB may read the part's files itself (``read_parquet``, its own threads and
    row-group skipping): every input is a typed leaf whose ``value`` and whose enclosing objects'
    ``value`` columns the footers prove all-null in every row group of every file, so DuckDB's
    VARIANT reading of the leaf is the leaf (:func:`vpush.optimizer.rewrite_variants.native_leaves`)."""


@dataclasses.dataclass(frozen=True)
class Scan:
    """One reference to a registered table, read as the relation ``name``."""

    name: str
    table: str
    schema: pa.Schema
    files: tuple[FileScan, ...]
    parts: tuple[ScanPart, ...] = ()
    """How the engine reads the files: one relation per part. Empty when the query extracts
    nothing from a variant: the scan is then one relation, ``name``, of ``schema``."""
    part_expressions: tuple[tuple[exp.Expression, ...], ...] = ()
    """Per part, the extractions computed from its inputs, in ``extraction_names`` order."""
    extraction_names: tuple[str, ...] = ()
    """The columns the query reads its variant extractions from, after ``schema``'s."""
    extraction_types: tuple[SparkType, ...] = ()
    """Each extraction column's Spark type (its target), in ``extraction_names`` order."""
    location: str = ""
    """Where the table was registered from (a folder, file or glob)."""
    deferred: tuple[str, ...] = ()
    """Whole variant columns (top-level) that the DuckDB SQL rebuilds only for the rows its
    LIMIT keeps (``vpush_rebuild_variant``): the DuckDB engine reads none of their leaves in the
    scan and gives each row's :data:`LOCATOR_ARROW_TYPE` instead. Other engines read them whole."""
    log_skipped: tuple[tuple[str, str], ...] = ()
    """(file, reason) for each live file of a Delta table that its log statistics or partition
    values rule out: not in ``files``, its footer never opened."""

    casts_later: tuple[CastLater, ...] = ()
    """The strict casts that Spark computes where the query computes them, not in its scan
    (:attr:`~vpush.optimizer.rewrite_variants.Extraction.computed_in_scan`)."""

    ordered: bool = False
    """The DuckDB SQL reads the scan's :data:`ORDER_COLUMN` (an aggregate whose answer depends on
    the order Spark meets the rows in): the DuckDB engine gives it after the scan's columns (and
    after each part's inputs)."""

    @functools.cached_property
    def part_queries(self) -> tuple[str, ...]:
        """Per part, the DuckDB query that turns the part's rows into the scan's: its columns,
        then the extractions (``extraction_names``). The Spark engine runs it in each task;
        rendered when first asked for. A task computes every row it reads, before Spark's
        filters: so the strict columns of :attr:`casts_later` are NULL there (Spark's SQL casts
        the residual variant instead)."""
        from vpush.optimizer.rewrite_variants import duckdb_type, scan_relation

        later = {c.strict: c for c in self.casts_later}
        queries = []
        for part, expressions in zip(self.parts, self.part_expressions):
            computed = [
                exp.cast(exp.Null(), duckdb_type(later[name].target)) if name in later else expression
                for name, expression in zip(self.extraction_names, expressions)
            ]
            queries.append(scan_relation([part], [computed], self.schema.names, self.extraction_names).sql(dialect="duckdb"))
        return tuple(queries)

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns the scan produces."""
        return tuple(self.schema.names)


@dataclasses.dataclass(frozen=True)
class Plan:
    """A query ready for an engine."""

    source_sql: str
    expression: exp.Expr
    scans: tuple[Scan, ...]
    functions: tuple[tuple[str, Any], ...] = ()
    """The engine functions the SQL calls, as (name, Spark target type): variant extraction
    from residual bytes (:mod:`vpush.exec.variant_udf`)."""
    spark_expression: exp.Expr | None = None
    """The query for the Spark engine: Spark SQL over the scans (each a relation of its columns
    and extraction columns), with Spark's own semantics for everything else."""
    refusal: Exception | None = None
    """Why the DuckDB engine cannot run the query (a function it does not support yet), raised
    when the DuckDB SQL is asked for; the Spark engine runs it with Spark's own functions."""
    ordered_expression: exp.Expr | None = None
    """The DuckDB query again, where :attr:`expression` has a check that raises
    :data:`ORDERED_RETRY_MARKER` (a ``sum`` of integers whose positive or negative part passes a
    ``bigint``, a grouped ``sum`` of decimals whose count times the largest magnitude passes 38
    digits): this one computes such aggregates row by row in Spark's order of rows, at a
    higher cost. The DuckDB engine runs it when the first raises the marker (or
    :data:`DECIMAL_SUM_OVERFLOWS`, which such a decimal sum may raise before its check)."""
    interval_types: tuple[str | None, ...] = ()
    """Spark's interval type of each output column that is an interval whose fields the planner
    can tell (``interval day``, ``interval year to month``; :mod:`vpush.optimizer.interval_types`),
    None for the others: the engines give an interval as a duration, which no longer says them."""
    constants_sql: str | None = None
    """A DuckDB query of the constants Spark computes as it plans this query and that may raise
    (:mod:`vpush.optimizer.fold_constants`), which the DuckDB engine runs first; None where
    there are none."""
    spark_constants_sql: str | None = None
    """The same constants in Spark SQL, where the Spark engine's query holds a filter in a
    ``coalesce`` (:func:`~vpush.optimizer.order_conjuncts.holds_a_filter`), inside which Spark
    folds none that raises: the Spark engine runs it first."""
    tables: tuple[Any, ...] = ()
    """The registered tables (:class:`~vpush.optimizer.catalog.Table`) the plan reads, as they
    were when it was made: a plan may be reused while each is still registered and its files'
    footers are unchanged (:meth:`vpush.Connection.sql` keeps recent plans)."""

    def sql(self, dialect: str = "duckdb", *, pretty: bool = False, ordered: bool = False) -> str:
        """The query to run, as SQL text of ``dialect``: ``duckdb`` for the DuckDB engine,
        ``spark`` for the Spark engine; ``ordered``: :attr:`ordered_expression`'s."""
        if dialect == "spark":
            from vpush.optimizer.dialect import VpushSpark

            assert self.spark_expression is not None
            return self.spark_expression.sql(dialect=VpushSpark, pretty=pretty)
        if self.refusal is not None:
            raise self.refusal
        if ordered and self.ordered_expression is not None:
            return self.ordered_expression.sql(dialect=dialect, pretty=pretty)
        if dialect == "duckdb" and not pretty:
            return self._duckdb_sql
        return self.expression.sql(dialect=dialect, pretty=pretty)

    @functools.cached_property
    def _duckdb_sql(self) -> str:
        """The DuckDB SQL, rendered once: a reused plan (:attr:`tables`) runs it again."""
        return self.expression.sql(dialect="duckdb")

    @property
    def num_files(self) -> int:
        """Files read (some row group of them), over all scans."""
        return sum(1 for s in self.scans for f in s.files if f.row_groups)
