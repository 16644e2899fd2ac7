"""Plan a Spark SQL query over registered tables."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

import pyarrow as pa
import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from vpush.optimizer.bound import SqlType, VariantRef
from vpush.optimizer.catalog import Catalog, FileInfo, Table
from vpush.optimizer.check_group_ordinals import check_group_ordinals
from vpush.optimizer.check_grouped_references import check_grouped_references
from vpush.optimizer.alias_repeated_sources import alias_repeated_sources
from vpush.optimizer.read_fields_before_hidden_keys import read_fields_before_hidden_keys
from vpush.optimizer.check_join_references import check_join_references, mark_sole_names, resolves_to, select_sources
from vpush.optimizer.dialect import (
    COMPARISONS, DEFERRED_PATH_ERROR, TryVariantGet, VariantGet, VpushSpark, clause_of, comparison_operands, cte_of, utc_shift_argument,
)
from vpush.optimizer.delta_table import delta_arrow_schema
from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.interval_types import output_interval_types
from vpush.optimizer.plan import ONE_TASK, ONE_TASK_BYTES, ORDER_COLUMN, ORDERED_SCAN, ROW_COUNT_COLUMN, SCAN_INDEX, VARIANT_ARROW_TYPE, CastLater, FileScan, Plan, Scan, ScanPart
from vpush.optimizer.prune_delta_files import prune_delta_files
from vpush.optimizer.prune_scan import FilePruning, owning_select, prune_scan, read_where_casts_may_fail, select_through_limit
from vpush.optimizer.rewrite_variants import (
    FILE_COLUMN,
    PARSE_JSON_FUNCTION,
    VARIANT_DELETE_FUNCTION,
    VARIANT_MODIFY_FUNCTION,
    REBUILD_VARIANT_FUNCTION,
    Extraction,
    duckdb_type,
    evaluated_once,
    function_name,
    iter_scope,
    make_parts,
    match_extraction,
    may_fail,
    rewrite_remaining,
    scan_relation,
    spark_function_name,
    supported_target,
)
from vpush.optimizer.expand_using_stars import COLUMN_NAMES
from vpush.optimizer.spark_joins import HINTED, SPARK_SIZE, SparkSize, hint_broadcasts, spark_default_size
from vpush.optimizer.nest_order_aliases import nest_order_aliases
from vpush.optimizer.rewrite_order_aliases import rewrite_order_aliases
from vpush.optimizer.fold_constants import decide_null_tests, folded_constants
from vpush.optimizer.isolate_raising_filters import isolate_raising_filters
from vpush.optimizer.order_conjuncts import holds_a_filter, hold_filter_order, order_conjuncts
from vpush.optimizer.rewrite_table_samples import passes_rows, rewrite_table_samples
from vpush.optimizer.rewrite_zoned_literals import rewrite_zoned_literals
from vpush.optimizer.rewrite_generators import check_generators_rewritten, is_generator
from vpush.optimizer.rewrite_time_windows import check_time_windows
from vpush.optimizer.spark_functions import check_functions
from vpush.optimizer.rename_lambda_variables import rename_lambda_variables
from vpush.optimizer.rename_self_named_ctes import rename_self_named_ctes
from vpush.optimizer.prune_union_columns import note_union_reads, prune_union_columns
from vpush.optimizer.spark_empty_relations import dropped_unread
from vpush.optimizer.spark_order import choose_ordered, exclude_from_stars, follow_radix_sorts
from vpush.optimizer.spark_semantics import (
    SESSION_TIME_ZONE,
    ExpressionTypes,
    SPARK_TEXT,
    VARIANT_SOURCE,
    apply_spark_semantics,
    arrow_spark_type,
    fold_comparisons_of_extractions,
    spark_name,
    wrap_in_place,
)
from vpush.optimizer.variant_types import VARIANT, ArrayType, SparkType, StringType

SCAN_PREFIX = "__vpush_scan_"
_AFTER_LIMIT = "vpush_after_limit"  # meta key: a SELECT that project_after_limit made


def parse_spark(sql: str) -> exp.Expression:
    """Parse one Spark SQL statement.

    Raises:
        OptimizeError: a syntax error (Spark's ``PARSE_SYNTAX_ERROR``), or not one statement.

    Example:
        >>> parse_spark("SELECT a FROM t").sql()
        'SELECT a FROM t'
    """
    try:
        statements = [s for s in sqlglot.parse(sql, read=VpushSpark) if s is not None]
    except ParseError as exc:
        first = exc.errors[0] if exc.errors else {}
        where = f" at line {first.get('line')}, column {first.get('col')}" if first.get("line") else ""
        description = first.get("description") or str(exc).splitlines()[0]
        raise OptimizeError(
            f"cannot parse the SQL{where}: {description}", error_class="PARSE_SYNTAX_ERROR"
        ) from exc
    except TokenError as exc:  # an unterminated string or comment, as Spark's lexer refuses it
        raise OptimizeError(f"cannot read the SQL: {exc}", error_class="PARSE_SYNTAX_ERROR") from exc
    if len(statements) != 1:
        raise OptimizeError(f"expected one SQL statement, got {len(statements)}")
    statement = statements[0]
    if isinstance(statement, exp.Command):  # EXECUTE IMMEDIATE, SET, SHOW, ...
        raise OptimizeError(
            f"vpush runs queries; {statement.name.upper()} is not one (the Spark session runs it)",
            error_class="VPUSH_UNSUPPORTED_FUNCTION",
        )
    if not isinstance(statement, exp.Expression):
        raise OptimizeError("expected a SQL statement")
    deferred = [n for n in statement.find_all(VariantGet) if DEFERRED_PATH_ERROR in n.meta]
    if deferred:
        # Spark checks a path where it computes the call: not in a comparison its optimizer folds
        fold_comparisons_of_extractions(statement, {id(n) for n in deferred}, _spark_projection_name)
        for node in deferred:
            if node.root() is statement and not _drop_unread_call(node):
                raise node.meta[DEFERRED_PATH_ERROR]
    return statement


def _names_a_source_twice(expression: exp.Expr) -> bool:
    for select in expression.find_all(exp.Select):
        names = [source.alias_or_name.lower() for source in select_sources(select)]
        if len(set(names)) < len(names):
            return True
    return False


def _registered_columns(expression: exp.Expr, catalog: Catalog, cte_names: set[str]) -> dict[int, list[str]]:
    """Each registered table reference's columns as its scan gives them, by ``id`` of its node
    (the references to tables vpush does not know are left to the scans' own error)."""
    return {key: schema.names for key, schema in _registered_schemas(expression, catalog, cte_names).items()}


def _expression_types(expression: exp.Expr, catalog: Catalog, cte_names: set[str]) -> ExpressionTypes | None:
    """The Spark types of ``expression``'s nodes from the registered tables' schemas, where the
    query compares a string literal or tests a value for null (what
    :func:`~vpush.optimizer.fold_constants.folded_constants` reads them for: the cast of the
    string, whether the value is nullable)."""
    if not any(isinstance(o, exp.Literal) and o.is_string for c in expression.find_all(*COMPARISONS) for o in comparison_operands(c)) and not any(
        isinstance(n.expression, exp.Null) for n in expression.find_all(exp.Is)
    ) and not any(n.name.lower() in ("isnull", "isnotnull") for n in expression.find_all(exp.Anonymous)):
        return None
    try:
        schemas = _registered_schemas(expression, catalog, cte_names)
    except OptimizeError:  # left to the scans, whose error it is
        return None
    return ExpressionTypes(expression, {key: {f.name.lower(): arrow_spark_type(f.type) for f in schema} for key, schema in schemas.items()})


def _registered_schemas(expression: exp.Expr, catalog: Catalog, cte_names: set[str]) -> dict[int, pa.Schema]:
    """Each registered table reference's schema as its scan gives it, by ``id`` of its node."""
    found: dict[int, pa.Schema] = {}
    for node in expression.find_all(exp.Table):
        if (node.find_ancestor(exp.Hint) is not None or not isinstance(node.this, exp.Identifier) or node.args.get("db")
                or node.args.get("catalog") or node.name.lower() in cte_names):
            continue
        table = catalog.table(node.name)
        if table is None:
            continue
        if table.delta is not None:
            data_schema = delta_arrow_schema(table.delta)
        else:
            data_schema = _data_schema([catalog.file_info(f) for f in table.files])
        found[id(node)] = _table_schema(table, data_schema)
    return found


def _output_type(arrow_type: pa.DataType, path: str, variant_columns: Mapping[str, object]) -> pa.DataType:
    """The type a column has after the scan: variants (top-level or inside plain structs) become
    ``struct<metadata, value>``."""
    if path in variant_columns:
        return VARIANT_ARROW_TYPE
    if pa.types.is_struct(arrow_type) and any(k.startswith(path + ".") for k in variant_columns):
        return pa.struct(
            [
                pa.field(f.name, _output_type(f.type, f"{path}.{f.name}", variant_columns))
                for f in arrow_type
            ]
        )
    return arrow_type


_PARTITION_ARROW_TYPES = {
    "int": pa.int32(),
    "bigint": pa.int64(),
    "double": pa.float64(),
    "string": pa.string(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us", tz="UTC"),
    "void": pa.null(),
    # Delta tables type their partition columns in the schema: any primitive type.
    "tinyint": pa.int8(),
    "smallint": pa.int16(),
    "float": pa.float32(),
    "boolean": pa.bool_(),
    "timestamp_ntz": pa.timestamp("us"),
}


def _partition_arrow_type(sql_type: SqlType) -> pa.DataType:
    """The Arrow type of a partition column of an inferred Spark type."""
    if sql_type.name == "decimal" and sql_type.precision is not None:
        return pa.decimal128(sql_type.precision, sql_type.scale or 0)
    found = _PARTITION_ARROW_TYPES.get(sql_type.name)
    if found is None:
        raise OptimizeError(f"partition columns of type {sql_type} are not supported")
    return found


def _data_schema(infos: list[FileInfo]) -> pa.Schema:
    """The files' columns: the union over files, first file's order and types first; variant
    columns as ``struct<metadata, value>``."""
    fields: dict[str, pa.Field] = {}
    for info in infos:
        for field in info.arrow_schema:
            key = field.name.lower()
            if key in fields:
                continue
            out = _output_type(field.type, field.name, info.variant_columns)
            fields[key] = pa.field(field.name, out)
    return pa.schema(list(fields.values()))


def _table_schema(table: Table, data_schema: pa.Schema) -> pa.Schema:
    """The scan's columns as Spark shows them: the files' columns, then the partition columns.
    A partition column the files hold too keeps the file column's place, with the partition's
    type and values (Spark's ``mergeDataAndPartitionSchema``)."""
    partitions = {f.name.lower(): pa.field(f.name, _partition_arrow_type(f.type)) for f in table.partitioning.fields}
    fields = [partitions.pop(f.name.lower(), f) for f in data_schema]
    return pa.schema(fields + list(partitions.values()))


def _referenced_columns(expression: exp.Expr) -> set[str] | None:
    """Lower-cased names of columns the query mentions (a join's USING keys too), or None when it
    selects ``*`` or joins NATURAL."""
    if any(not isinstance(star.parent, exp.Count) and not _passes_table_rows(star) and not _over_derived_tables(star)
           for star in expression.find_all(exp.Star)):
        return None  # a `*` or `t.*` projection, or one inside a call (struct(*)); not count(*)
    names: set[str] = set()
    for col in expression.find_all(exp.Column):
        # A struct field access `v.metadata` parses as column `metadata` of table `v`, and
        # `s.b.c` / `t.s.b.c` as a column with a db and catalog: keep every part, since any of
        # them may be a column name rather than a qualifier.
        names.update(part.name.lower() for part in col.parts if isinstance(part, exp.Identifier))
    for join in expression.find_all(exp.Join):
        if str(join.args.get("method") or "").upper() == "NATURAL":
            return None  # joined on every column the two sides share
        # JOIN ... USING (k) reads k on both sides, where no Column names it
        names.update(key.name.lower() for key in join.args.get("using") or [] if isinstance(key, (exp.Identifier, exp.Column)))
    return names


def _reads_a_cte(table: exp.Table) -> bool:
    """Whether ``table`` reads a CTE (:func:`~vpush.optimizer.dialect.cte_of`), not of a WITH
    RECURSIVE (to be safe)."""
    cte = cte_of(table)
    return cte is not None and not (isinstance(cte.parent, exp.With) and cte.parent.args.get("recursive"))


def _over_derived_tables(star: exp.Star) -> bool:
    """Whether ``star`` reads only derived tables: its SELECT's every source is a subquery or a
    CTE, whose own projections name what it reads (a ``*`` there over a table counts itself).
    ``WITH c AS (SELECT id FROM t) SELECT * FROM c`` and the window stages of a session merge
    (:func:`~vpush.optimizer.rewrite_time_windows.merge_sessions`) are such, and had read every
    column of the table."""
    select = star.find_ancestor(exp.Select)
    if select is None or select.args.get("from_") is None:
        return False
    sources = [select.args["from_"].this, *(join.this for join in select.args.get("joins") or [])]
    return all(isinstance(source, exp.Subquery) or (isinstance(source, exp.Table) and _reads_a_cte(source)) for source in sources)


def _passes_table_rows(star: exp.Star) -> bool:
    """Whether ``star`` is the ``*`` of ``SELECT * FROM t [LIMIT n]`` over a table, in a subquery
    (a sample's) read in a FROM or a join by a SELECT that names what it reads: the columns read
    are those its reader names. Where the reader projects a star of its own (``SELECT * FROM
    (SELECT * FROM t)``, whose outer ``*`` reads only a derived table), the subquery's rows are
    themselves the answer (a set operation's branch, an ``IN``, a scalar subquery), or a PIVOT
    reads them, the subquery's ``*`` reads every column."""
    select = star.parent
    if not (
        isinstance(select, exp.Select)
        and isinstance(select.parent, exp.Subquery)
        and passes_rows(select)
        and isinstance(select.args["from_"].this, exp.Table)
    ):
        return False
    if select.parent.args.get("pivots") or select.parent.alias_column_names:
        return False  # a PIVOT groups by every column it does not name; `s(k, a, b)` names them by place
    relation = select.parent.parent
    reader = relation.parent if isinstance(relation, (exp.From, exp.Join)) else None
    return isinstance(reader, exp.Select) and not any(
        not isinstance(s.parent, exp.Count) for p in reader.expressions for s in p.find_all(exp.Star)
    )


def plan_query(sql: str, catalog: Catalog, *, time_zone: str = "UTC", prune: bool = True) -> Plan:
    """Plan ``sql`` (Spark SQL) over the tables of ``catalog``.

    Each table reference becomes a scan of its files: pruned by the WHERE (plain, partition and
    variant-extraction predicates), and, where the SELECT extracts from a variant column, read as
    the shredded leaves those extractions need, file by file
    (:mod:`vpush.optimizer.rewrite_variants`).

    Args:
        sql: one Spark SQL statement.
        catalog: the registered tables.
        time_zone: Spark's session time zone (timestamp partition values and literals).
        prune: skip the files and row groups the WHERE rules out (off: read every row group).

    Raises:
        OptimizeError: the SQL does not parse, or names a table that is not registered.
    """
    token = SESSION_TIME_ZONE.set(time_zone)  # which some of Spark's names print
    try:
        return _plan_query(sql, catalog, time_zone, prune, fold=True)
    finally:
        SESSION_TIME_ZONE.reset(token)


def _plan_query(sql: str, catalog: Catalog, time_zone: str, prune: bool, *, fold: bool) -> Plan:
    expression = rewrite_table_samples(rewrite_zoned_literals(parse_spark(sql), time_zone))
    rename_self_named_ctes(expression)  # before a CTE's name is told from a table's
    alias_empty_table_names(expression)
    check_group_ordinals(expression)
    check_grouped_references(expression)
    check_time_windows(expression)  # on both engines: Spark's error its extractions' scan columns would hide
    # What the DuckDB engine cannot run is refused when it runs the plan, not here: the Spark
    # engine runs the same query with Spark's own functions.
    refusal: OptimizeError | None = None
    try:
        check_functions(expression)
    except OptimizeError as exc:
        refusal = exc
    cte_names = {cte.alias_or_name.lower() for cte in expression.find_all(exp.CTE)}
    constants = folded_constants(expression, _expression_types(expression, catalog, cte_names)) if fold else []
    if any(join.args.get("using") or join.args.get("method") for join in expression.find_all(exp.Join)):
        # before a qualified name is read as its source's column (alias_repeated_sources)
        read_fields_before_hidden_keys(expression, _registered_columns(expression, catalog, cte_names))
    if _names_a_source_twice(expression):
        # before anything is keyed by a source's name: its scan, pruning, extractions
        alias_repeated_sources(expression, _registered_columns(expression, catalog, cte_names))
    if any(select.args.get("joins") for select in expression.find_all(exp.Select)):
        # an unqualified column one source of a join alone carries is that source's: its
        # extractions and filters are placed on that source's scan as a qualified one's are
        mark_sole_names(expression, _registered_columns(expression, catalog, cte_names))
    found: list[tuple[exp.Table, Table, list[FileInfo], pa.Schema, list[FilePruning], list[Extraction]]] = []
    skipped_by_log: dict[int, tuple[tuple[str, str], ...]] = {}
    for node in list(expression.find_all(exp.Table)):
        if node.find_ancestor(exp.Hint) is not None:
            continue  # /*+ BROADCAST(t) */ names a table of the query, or its alias
        if not isinstance(node.this, exp.Identifier) or node.args.get("db") or node.args.get("catalog"):
            if node.args.get("db") or node.args.get("catalog"):
                raise OptimizeError(
                    f"table {node.sql(dialect='spark')} is not registered; register tables by plain name",
                    error_class="TABLE_OR_VIEW_NOT_FOUND",
                )
            continue
        name = node.name
        if name.lower() in cte_names:
            continue
        table = catalog.table(name)
        if table is None:
            raise OptimizeError(
                f"the table or view {name!r} cannot be found; register it with con.register()",
                error_class="TABLE_OR_VIEW_NOT_FOUND",
            )
        log_skipped: tuple[tuple[str, str], ...] = ()
        if table.delta is not None:
            # The schema is the log's, and the log's statistics prune files before their footers
            # are opened.
            data_schema = delta_arrow_schema(table.delta)
            paths = table.files
            if prune:
                by_log = prune_delta_files(node, table, data_schema, time_zone=time_zone)
                paths, log_skipped = by_log.files, by_log.skipped
            infos = [catalog.file_info(f) for f in paths]
        else:
            infos = [catalog.file_info(f) for f in table.files]
            data_schema = _data_schema(infos)
        if log_skipped:
            # A file the log rules out is read where a cast Spark computes in its scan may fail
            # in it: its footer decides, as a row group's does below.
            in_schema = {f.name.lower() for f in data_schema if f.type == VARIANT_ARROW_TYPE}
            casts = _casts_in_scan(_extractions(node, in_schema))
            failing = {p for p, _ in log_skipped if casts and _may_fail_in_file(catalog.file_info(p), casts)}
            if failing:
                kept = set(paths) | failing
                infos = [catalog.file_info(f) for f in table.files if f in kept]
                log_skipped = tuple((p, r) for p, r in log_skipped if p not in failing)
        node = _rename_by_alias_columns(node, _table_schema(table, data_schema).names)
        skipped_by_log[id(node)] = log_skipped
        variants = {k.lower() for info in infos for k in info.variant_columns if "." not in k}
        extractions = _extractions(node, variants)
        if prune:
            pruned = prune_scan(node, table, infos, data_schema, time_zone=time_zone)
            pruned = read_where_casts_may_fail(pruned, infos, _casts_in_scan(extractions))
        else:
            pruned = [FilePruning(tuple(range(info.num_row_groups))) for info in infos]
        if len(infos) == 1 and infos[0].size <= ONE_TASK_BYTES:
            node.meta[ONE_TASK] = True
        found.append((node, table, infos, data_schema, pruned, extractions))

    # before any scope is built: a query may name one table twice without an alias (t JOIN t)
    check_join_references(expression, {id(node): _table_schema(table, data_schema).names for node, table, _, data_schema, *_ in found})
    # Comparisons of extractions Spark decides without computing them: no scan computes them
    fold_comparisons_of_extractions(
        expression, {id(ext.node) for *_, extractions in found for ext in extractions if ext.node is not None}, _spark_projection_name)
    found = [(*parts, [e for e in extractions if e.node is None or e.node.root() is expression]) for *parts, extractions in found]

    functions: dict[str, SparkType] = {}
    # Extractions become columns of their scan first, so that a variant column read only
    # through them is not read whole.
    extraction_names: list[list[str]] = []
    extraction_types: list[list[SparkType]] = []
    filtered_names: list[set[str]] = []
    in_scan_names: list[set[str]] = []
    by_keys: list[dict[object, str]] = []
    companion_names: dict[int, list[str]] = {}
    casts_later: list[CastLater] = []
    column_types: dict[int, dict[str, SparkType | None]] = {}
    for index, (node, table, table_infos, data_schema, _, extractions) in enumerate(found):
        alias = node.alias or node.name
        names: list[str] = []
        targets: list[SparkType] = []
        filtered: set[str] = set()
        in_scan: set[str] = set()
        by_key: dict[object, str] = {}
        table_schema = _table_schema(table, data_schema)
        types = {f.name.lower(): arrow_spark_type(f.type) for f in table_schema}
        node.meta[COLUMN_NAMES] = tuple(table_schema.names)
        if table.delta is None:
            # what Spark's estimate of the table's size is made of, for the join it picks
            node.meta[SPARK_SIZE] = SparkSize(
                sum(info.size for info in table_infos), {f.name.lower(): spark_default_size(arrow_spark_type(f.type)) for f in table_schema},
                partitioned=bool(table.partitioning.names),
            )
        for ext in extractions:
            column_name = by_key.get(ext.key)
            if column_name is None:
                column_name = by_key[ext.key] = f"__vpush_{index}_x{len(by_key)}"
                names.append(column_name)
                targets.append(ext.target)
                types[column_name.lower()] = ext.target
            if _in_where(ext):
                filtered.add(column_name)
            if ext.computed_in_scan:
                in_scan.add(column_name)
            _replace_extraction(ext, column_name, _extraction_alias(node, alias))
        by_keys.append(by_key)
        extraction_names.append(names)
        extraction_types.append(targets)
        filtered_names.append(filtered)
        in_scan_names.append(in_scan)
        column_types[id(node)] = types
        if names:
            _exclude_from_stars(node, alias, names)
    # The Spark engine runs the query as it now stands (Spark has its own semantics): tables
    # become the scans' relations at the end.
    for index, found_table in enumerate(found):
        found_table[0].meta[SCAN_INDEX] = index
    interval_types = output_interval_types(expression, column_types)
    note_union_reads(expression)  # before typeof becomes a constant
    spark_expression = expression.copy()
    rewrite_order_aliases(expression)  # DuckDB's only: Spark reads an ORDER BY's names so itself
    decide_null_tests(expression)  # DuckDB's only: Spark's NullPropagation does so itself
    hint_broadcasts(spark_expression)
    for hint in list(expression.find_all(exp.Hint)):
        if hint.parent is not None:
            hint.parent.meta[HINTED] = True  # Spark may pick another join by it
        hint.pop()  # DuckDB has no hints (the Spark engine keeps them)
    try:
        expression = rename_lambda_variables(prune_union_columns(nest_order_aliases(apply_spark_semantics(expression, column_types, functions))))
        check_generators_rewritten(expression)
    except OptimizeError as exc:
        refusal = refusal or exc

    # The Spark engine runs the query before the DuckDB rewrite, which may fold a column away
    # (typeof(c) is a constant there): a column either reads is read.
    on_duckdb, on_spark = _referenced_columns(expression), _referenced_columns(spark_expression)
    referenced = None if on_duckdb is None or on_spark is None else on_duckdb | on_spark
    scans: list[Scan] = []
    for index, (node, table, infos, data_schema, pruned, extractions) in enumerate(found):
        full = _table_schema(table, data_schema)
        if referenced is None:
            keep = list(full.names)
        else:
            keep = [n for n in full.names if n.lower() in referenced]
        schema = pa.schema([full.field(n) for n in keep]) if keep else pa.schema(
            [pa.field(ROW_COUNT_COLUMN, pa.null())]
        )
        partition_names = {n.lower() for n in table.partitioning.names}
        ordered = bool(node.meta.get(ORDERED_SCAN))
        ranks = spark_file_ranks([info.size for info in infos])
        files = []
        for info, pruning, rank in zip(infos, pruned, ranks):
            present = {f.name.lower(): f.name for f in info.arrow_schema if f.name.lower() not in partition_names}
            columns = tuple(present[n.lower()] for n in keep if n.lower() in present)
            files.append(
                FileScan(
                    path=info.path,
                    row_groups=pruning.row_groups,
                    columns=columns,
                    variant_columns={
                        k: layout
                        for k, layout in info.variant_columns.items()
                        if any(k == c or k.startswith(c + ".") for c in columns)
                    },
                    num_rows=info.num_rows,
                    num_row_groups=info.num_row_groups,
                    partition_values=table.partitioning.values(info.path, session_time_zone=time_zone),
                    skipped=pruning.skipped,
                    read_for_errors=pruning.read_for_errors,
                    spark_rank=rank,
                    footer=info.metadata,
                )
            )
        scan_name = f"{SCAN_PREFIX}{len(scans)}"
        alias = node.alias or node.name
        table_alias = exp.TableAlias(this=exp.to_identifier(alias, quoted=True))
        if ordered:
            _exclude_from_stars(node, alias, [ORDER_COLUMN], scan_only=True)
        unique = _unique(extractions)
        if unique:
            parts, part_expressions = make_parts(scan_name, files, infos, unique, schema, time_zone)
            later = _casts_later(unique, by_keys[index], extraction_names[index], part_expressions, in_scan_names[index])
            if later:  # the companions are extractions too: the parts are made again with them
                parts, part_expressions = make_parts(scan_name, files, infos, unique, schema, time_zone)
                _residual_only_where_needed(parts, part_expressions, extraction_names[index], later)
                casts_later += later
                companion_types = {
                    name: kind
                    for c in later
                    for name, kind in ((c.attempt, c.target), (c.residual, VARIANT), (c.file, StringType()))
                }
                extraction_types[index] += [companion_types[n] for n in extraction_names[index][len(extraction_types[index]):]]
                companion_names[index] = [n for c in later for n in (c.attempt, c.residual, c.file)]
                _exclude_from_stars(node, alias, companion_names[index])
            for ext in unique:
                functions[function_name(ext.target, once=ext.cannot_fail)] = ext.target
                if isinstance(ext.target, ArrayType):  # a typed list's residual elements, cast one by one
                    element = dataclasses.replace(ext, target=ext.target.element)
                    functions[function_name(element.target, once=element.cannot_fail)] = element.target
            relation = scan_relation(
                parts, part_expressions, schema.names + ([ORDER_COLUMN] if ordered else []), extraction_names[index],
                filtered_names[index], in_scan_names[index],
            )
            replacement: exp.Expression = exp.Subquery(this=relation, alias=table_alias)
            by_path = {f.path: f for part in parts for f in part.files}
            files = [by_path.get(f.path, f) for f in files]
            scans.append(
                Scan(
                    scan_name, table.name, schema, tuple(files), tuple(parts),
                    part_expressions=tuple(tuple(e) for e in part_expressions),
                    extraction_names=tuple(extraction_names[index]),
                    extraction_types=tuple(extraction_types[index]),
                    location=table.location,
                    casts_later=tuple(later),
                    log_skipped=skipped_by_log[id(node)],
                    ordered=ordered,
                )
            )
        else:
            replacement = exp.Table(this=exp.to_identifier(scan_name, quoted=True), alias=table_alias)
            scans.append(
                Scan(
                    name=scan_name, table=table.name, schema=schema, files=tuple(files), location=table.location,
                    log_skipped=skipped_by_log[id(node)], ordered=ordered,
                )
            )
        replacement.meta[SCAN_INDEX] = index
        if node.args.get("joins"):  # a parenthesized join, `x JOIN (y JOIN u USING (id))`: y's joins stay with it
            replacement.set("joins", node.args["joins"])
        node.replace(replacement)
        for copied in [t for t in expression.find_all(exp.Table) if t.meta.get(SCAN_INDEX) == index and t is not node]:
            # a copy the rewrite made of the table's node (a scalar subquery written twice in Spark's
            # decimal arithmetic) reads the same scan
            copied.replace(replacement.copy())
    _cast_later(spark_expression, casts_later, functions, time_zone, spark=True)
    hold_filter_order(spark_expression, _string_test(spark_expression, [column_types[id(node)] for node, *_ in found]))
    for spark_node in list(spark_expression.find_all(exp.Table)):
        scan_index = spark_node.meta.get(SCAN_INDEX)
        if scan_index is not None:
            alias = spark_node.alias or spark_node.name
            if scan_index in companion_names:
                _exclude_from_stars(spark_node, alias, companion_names[scan_index])
            spark_node.replace(
                exp.Table(
                    this=exp.to_identifier(scans[scan_index].name, quoted=True),
                    alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=True)),
                    pivots=spark_node.args.get("pivots"),  # FROM t PIVOT (...): Spark pivots the scan
                    joins=spark_node.args.get("joins"),  # a parenthesized join's inner joins
                )
            )
    _cast_later(expression, casts_later, functions, time_zone, spark=False)
    follow_radix_sorts(expression, functions)  # over the scans' columns as they are now named
    ordered_expression: exp.Expr | None = None
    if refusal is None:
        try:
            expression = order_conjuncts(isolate_raising_filters(project_after_limit(typed_null_variants(rewrite_remaining(expression, time_zone, functions)))))
        except OptimizeError as exc:
            refusal = exc
        else:
            expression, ordered_expression = choose_ordered(expression)
            # the deferral rewrites one query; a plan with two keeps its variants read in the scan
            deferred = defer_variants(expression, scans) if ordered_expression is None else [() for _ in scans]
            if any(deferred):
                functions[REBUILD_VARIANT_FUNCTION] = VARIANT
                scans = [dataclasses.replace(scan, deferred=d) if d else scan for scan, d in zip(scans, deferred)]
    constants_sql = spark_constants_sql = None
    if constants:
        folded = _folded_constants_plan(constants, catalog, time_zone)
        if folded is not None and refusal is None and folded.refusal is None:
            # hash(q) needs every constant computed, and gives a value Python reads
            rows = exp.Subquery(this=folded.expression.copy(), alias=exp.TableAlias(this=exp.to_identifier("q")))
            constants_sql = exp.select(exp.Anonymous(this="hash", expressions=[exp.column("q")])).from_(rows).sql(dialect="duckdb")
            functions.update(folded.functions)
        if folded is not None and spark_expression is not None and holds_a_filter(spark_expression):
            spark_constants_sql = folded.sql("spark")
    return Plan(
        source_sql=sql,
        expression=expression,
        scans=tuple(scans),
        functions=tuple(sorted(functions.items())),
        spark_expression=spark_expression,
        refusal=refusal,
        ordered_expression=ordered_expression,
        interval_types=interval_types if any(t is not None for t in interval_types) else (),
        constants_sql=constants_sql,
        spark_constants_sql=spark_constants_sql,
        tables=tuple({id(table): table for _, table, *_ in found}.values()),
    )


def _string_test(spark_expression: exp.Expr, scan_types: Sequence[Mapping[str, SparkType | None]]) -> Callable[[exp.Column], bool]:
    """Whether a column of the Spark query is a string, as :class:`ExpressionTypes` types it from
    the columns of each scan (``scan_types``, by its index), its extractions' among them, and the
    projections of the subqueries and CTEs that read them (typed on first use: most queries never
    ask)."""
    types: list[ExpressionTypes] = []

    def is_string(column: exp.Column) -> bool:
        if not types:
            tables = {id(t): scan_types[t.meta[SCAN_INDEX]] for t in spark_expression.find_all(exp.Table) if t.meta.get(SCAN_INDEX) is not None}
            types.append(ExpressionTypes(spark_expression, tables))
        return isinstance(types[0].of(column), StringType)

    return is_string


def _folded_constants_plan(constants: list[exp.Expr], catalog: Catalog, time_zone: str) -> Plan | None:
    """The plan of a query of ``constants`` (:func:`folded_constants`), or None where vpush does
    not plan it (the constants are left to the rows)."""
    query = exp.select(*(exp.alias_(c, f"c{i}", quoted=True) for i, c in enumerate(constants)))
    try:
        plan = _plan_query(query.sql(dialect=VpushSpark), catalog, time_zone, False, fold=False)
    except (OptimizeError, ValueError, sqlglot.errors.SqlglotError):  # (sqlglot's: a node it cannot write alone)
        return None
    except RecursionError:  # (sqlglot's parser, past some 40 levels of AND in OR in AND...)
        return None
    return plan


EMPTY_TABLE_ALIAS = "__vpush_empty_table"
"""The alias of a reference to the table Spark registers under the empty name (``````)."""


def alias_empty_table_names(expression: exp.Expr) -> exp.Expr:
    """Give each reference to the table named ``````, Spark's empty name, without an alias of its
    own the alias :data:`EMPTY_TABLE_ALIAS`, and make the columns qualified by the empty name
    read it: DuckDB has no empty identifier (``""`` is an error), and the scan that replaces the
    reference is aliased by the table's name.

    Example:
        >>> alias_empty_table_names(parse_spark("SELECT ``.x FROM `` WHERE ``.x > 1")).sql(dialect="spark")
        'SELECT `__vpush_empty_table`.x FROM `` AS `__vpush_empty_table` WHERE `__vpush_empty_table`.x > 1'
    """
    tables = [t for t in expression.find_all(exp.Table)
              if isinstance(t.this, exp.Identifier) and t.name == "" and not t.args.get("db") and not t.alias]
    for table in tables:
        table.set("alias", exp.TableAlias(this=exp.to_identifier(EMPTY_TABLE_ALIAS, quoted=True)))
    if tables:
        for column in expression.find_all(exp.Column):
            qualifier = column.args.get("table")
            if isinstance(qualifier, exp.Identifier) and qualifier.name == "" and not column.args.get("db"):
                column.set("table", exp.to_identifier(EMPTY_TABLE_ALIAS, quoted=True))
    return expression


def typed_null_variants(expression: exp.Expr) -> exp.Expr:
    """Each ``CAST(NULL AS ...)`` whose type holds a variant, with vpush's variant, the
    ``STRUCT(metadata BLOB, value BLOB)`` every other variant is on DuckDB, for DuckDB's
    ``VARIANT``: nested in an array, a struct, a map or a ``coalesce``, DuckDB's own type made
    the other variants beside it its own (casting a ``{metadata, value}`` struct to ``VARIANT``
    wraps it as an object) and came out as DuckDB's type.

    Example:
        >>> typed_null_variants(sqlglot.parse_one("SELECT [CAST(NULL AS VARIANT)], CAST(NULL AS VARIANT[])", read="duckdb")).sql("duckdb")
        'SELECT [CAST(NULL AS STRUCT(metadata BLOB, value BLOB))], CAST(NULL AS STRUCT(metadata BLOB, value BLOB)[])'
    """
    for cast in list(expression.find_all(exp.Cast)):
        to = cast.args.get("to")
        if not isinstance(cast.this, exp.Null) or not isinstance(to, exp.DataType):
            continue
        for kind in list(to.find_all(exp.DataType)):
            if kind.this == exp.DataType.Type.VARIANT:
                replaced = duckdb_type(VARIANT)
                if kind is to:
                    cast.set("to", replaced)
                else:
                    kind.replace(replaced)
    return expression


_ENGINE_FUNCTION_PREFIX = "vpush_"


def _rename_by_alias_columns(node: exp.Table, names: list[str]) -> exp.Table:
    """``t AS x(a, b)``: the table's columns renamed in order, as a query over ``t AS x`` (whose
    table is returned, to become the scan). DuckDB would rename the scan's columns, which are only
    those the query reads; Spark's ASSIGNMENT_ARITY_MISMATCH for a list of another length."""
    alias = node.args.get("alias")
    if not isinstance(alias, exp.TableAlias) or not alias.columns:
        return node
    if len(alias.columns) != len(names):
        raise OptimizeError(
            f"The number of columns or variables assigned or aliased: {len(alias.columns)} does not match the "
            f"number of source expressions: {len(names)}.",
            error_class="ASSIGNMENT_ARITY_MISMATCH",
        )
    inner = exp.Table(this=node.this.copy(), alias=exp.TableAlias(this=exp.to_identifier(alias.name, quoted=True)))
    renamed = exp.select(
        *(exp.alias_(exp.column(name, quoted=True), column.name, quoted=True) for name, column in zip(names, alias.columns))
    ).from_(inner)
    node.replace(exp.Subquery(this=renamed, alias=exp.TableAlias(this=alias.this.copy())))
    return inner


def spark_file_ranks(sizes: list[int]) -> list[int]:
    """Each file's place in the order Spark's file scan reads a table's files in, by their sizes
    in the table's (path) order: ``FilePartition`` packs the splits sorted by size, largest
    first, and a stable sort keeps files of one size as listed (Spark lists a folder in the file
    system's order; vpush takes path order there).

    Example:
        >>> spark_file_ranks([508, 2217, 1008, 2217])
        [3, 0, 2, 1]
    """
    ranks = [0] * len(sizes)
    for rank, index in enumerate(sorted(range(len(sizes)), key=lambda i: -sizes[i])):
        ranks[index] = rank
    return ranks


def _calls_engine_function(node: exp.Expr) -> bool:
    """Whether ``node`` calls one of vpush's engine functions (an extraction over a whole
    variant, ``to_json``, ...): Python code run per batch, worth running on fewer rows."""
    return any(
        isinstance(call, exp.Anonymous) and call.name.lower().startswith(_ENGINE_FUNCTION_PREFIX)
        for call in node.find_all(exp.Anonymous)
    )


_RAISING_FUNCTIONS = frozenset({PARSE_JSON_FUNCTION, VARIANT_MODIFY_FUNCTION, VARIANT_DELETE_FUNCTION})

# DuckDB checks integer (and decimal) arithmetic for overflow as Spark's ANSI mode does: `+`, `-`,
# `*`, a negation, `abs`, and the `add`/`subtract`/`multiply` calls pin_integer_arithmetic writes
_CHECKED_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Neg, exp.Abs)
_CHECKED_ARITHMETIC_FUNCTIONS = frozenset({"add", "subtract", "multiply", "abs"})


def _may_raise(node: exp.Expr) -> bool:
    """Whether computing ``node`` may raise: a strict extraction or ``error`` (:func:`may_fail`), a
    cast DuckDB checks, checked arithmetic (an overflow), or an engine function that raises on its
    input."""
    if may_fail(node):
        return True
    for found in node.walk():
        if isinstance(found, exp.Cast) and not isinstance(found, exp.TryCast):
            return True
        if isinstance(found, _CHECKED_ARITHMETIC):
            return True
        if isinstance(found, exp.Anonymous) and found.name.lower() in _RAISING_FUNCTIONS | _CHECKED_ARITHMETIC_FUNCTIONS:
            return True
    return False


def project_after_limit(expression: exp.Expr) -> exp.Expr:
    """Compute the outermost SELECT's projections after its ORDER BY ... LIMIT rather than
    before, where they call vpush's engine functions and the sort keys do not:

        SELECT f(x), k FROM s WHERE p ORDER BY k LIMIT n
        -> SELECT f(x), k FROM (SELECT * FROM s WHERE p ORDER BY k LIMIT n) AS s ORDER BY k

    DuckDB computes a projection for every row that reaches its top-n; this computes it for the
    ``n`` rows kept. The rows are the same (among ties the choice is arbitrary in both forms).
    Left alone: aggregates, windows, DISTINCT, joins, and sort keys that name a computed
    projection.
    """
    select = expression
    if not isinstance(select, exp.Select) or select.args.get("limit") is None or select.args.get("order") is None:
        return expression
    if any(select.args.get(k) for k in ("group", "having", "distinct", "qualify", "joins", "laterals", "with_")):
        return expression
    source = select.args.get("from_") or select.args.get("from")
    if source is None or not isinstance(source.this, (exp.Subquery, exp.Table)) or not source.this.alias:
        return expression
    projections = select.expressions
    if not any(_calls_engine_function(p) for p in projections):
        return expression
    if any(_may_raise(p) for p in projections):
        # Spark's plan computes the projections in a Project below its TakeOrderedAndProject (whose
        # output list only names them), for every row the sort reads: a row the LIMIT drops still raises
        return expression
    if any(p.find(exp.AggFunc, exp.Window, exp.Select) for p in projections):
        return expression
    computed = {
        p.alias_or_name.lower()
        for p in projections
        if not (isinstance(p, exp.Column) or (isinstance(p, exp.Alias) and isinstance(p.this, exp.Column) and p.this.name == p.alias))
    }
    order = select.args["order"]
    if _calls_engine_function(order) or any(
        not column.table and column.name.lower() in computed for column in order.find_all(exp.Column)
    ):
        return expression
    inner = exp.Select(expressions=[exp.Star()])
    inner.set("from_" if "from_" in select.args else "from", source.copy())
    for key in ("where", "order", "limit", "offset"):
        if select.args.get(key) is not None:
            inner.set(key, select.args[key].copy())
    outer = select.copy()
    for key in ("where", "limit", "offset"):
        outer.set(key, None)
    outer.set(
        "from_" if "from_" in select.args else "from",
        exp.From(this=exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier(source.this.alias, quoted=True)))),
    )
    outer.meta[_AFTER_LIMIT] = True
    return outer


def _source(select: exp.Select) -> exp.Expression | None:
    found = select.args.get("from_") or select.args.get("from")
    return found.this if found is not None else None


def defer_variants(expression: exp.Expr, scans: list[Scan]) -> list[tuple[str, ...]]:
    """Per scan, the whole variant columns to rebuild only for the rows a LIMIT keeps, with the
    SQL rewritten to do so: after :func:`project_after_limit`, a variant column of the scan that
    the query names only in the outer projections is read as a row locator and rebuilt there by
    :data:`REBUILD_VARIANT_FUNCTION`, for ``n`` rows rather than for every row read.

        SELECT to_json(v), k FROM (SELECT * FROM s WHERE p ORDER BY k LIMIT n) AS s ORDER BY k
        -> SELECT to_json(vpush_rebuild_variant(v, 'v')), k FROM (...) AS s ORDER BY k

    The rows, and each rebuilt value, are the same; only where the rebuilding happens moves.
    """
    out: list[tuple[str, ...]] = [() for _ in scans]
    if not isinstance(expression, exp.Select) or not expression.meta.get(_AFTER_LIMIT):
        return out
    subquery = _source(expression)
    inner = subquery.this if isinstance(subquery, exp.Subquery) else None
    scan_source = _source(inner) if isinstance(inner, exp.Select) else None
    index = scan_source.meta.get(SCAN_INDEX) if scan_source is not None else None
    if not isinstance(subquery, exp.Subquery) or not isinstance(inner, exp.Select):
        return out
    if scan_source is None or not isinstance(index, int) or index >= len(scans):
        return out
    if any(p.find(exp.Star) for p in expression.expressions):
        return out
    alias = subquery.alias.lower()
    # Everything but the outer projections and the scan's own relation: the column must not be
    # named there (a filter or sort key needs its value in the first pass).
    elsewhere = [expression.args.get("order"), *(inner.args.get(k) for k in inner.args if k not in ("from", "from_"))]
    deferred: list[str] = []
    for field in scans[index].schema:
        name = field.name.lower()
        if not field.type.equals(VARIANT_ARROW_TYPE) or name == alias:
            continue
        if any(
            column.name.lower() == name or column.table.lower() == name
            for node in elsewhere
            if isinstance(node, exp.Expression)
            for column in node.find_all(exp.Column)
        ):
            continue
        uses = [c for p in expression.expressions for c in p.find_all(exp.Column) if name in (c.name.lower(), c.table.lower())]
        if not uses or any(c.table.lower() not in ("", alias) or c.name.lower() != name for c in uses):
            continue
        for column in uses:
            call = exp.Anonymous(this=REBUILD_VARIANT_FUNCTION, expressions=[column.copy(), exp.Literal.string(field.name)])
            if isinstance(column.parent, exp.Select):  # a bare projection keeps its name
                column.replace(exp.alias_(call, exp.to_identifier(column.name, quoted=True)))
            else:
                column.replace(call)
        deferred.append(field.name)
    out[index] = tuple(deferred)
    return out


def _unique(extractions: list[Extraction]) -> list[Extraction]:
    seen: dict[object, Extraction] = {}
    for ext in extractions:
        seen.setdefault(ext.key, ext)
    return list(seen.values())


def _casts_in_scan(extractions: list[Extraction]) -> list[tuple[VariantRef | None, str]]:
    """The strict casts Spark computes in its scan that may fail, for
    :func:`~vpush.optimizer.prune_scan.read_where_casts_may_fail`."""
    return [(_cast_reference(e), _shown(e)) for e in extractions if e.computed_in_scan]


def _cast_reference(ext: Extraction) -> VariantRef | None:
    """A strict extraction as a pruning reference, or None where its path holds an array step
    or its type is not one pruning compares in (arrays, maps, structs)."""
    target = SqlType.parse(ext.target.to_spark())
    if target is None or not all(isinstance(s, str) for s in ext.segments):
        return None
    return VariantRef(ext.column.name, tuple(str(s) for s in ext.segments), target, strict=True)


def _shown(ext: Extraction) -> str:
    """The extraction as the user wrote it, for the explanation."""
    return ext.node.sql(dialect=VpushSpark, normalize_functions="lower") if ext.node is not None else ext.path_text


def _may_fail_in_file(info: FileInfo, casts: list[tuple[VariantRef | None, str]]) -> bool:
    everything = FilePruning((), tuple((rg, "") for rg in range(info.num_row_groups)))
    return bool(read_where_casts_may_fail([everything], [info], casts)[0].read_for_errors)


def _extractions(node: exp.Table, variants: set[str]) -> list[Extraction]:
    """The extractions over a variant column of table reference ``node`` in the SELECT that
    reads it directly (not in nested queries), outermost first; where that SELECT passes the
    table's rows on through a LIMIT (``FROM t TABLESAMPLE (n ROWS)``, see
    :func:`~vpush.optimizer.prune_scan.select_through_limit`), those of the SELECT reading it
    too, each marked where Spark computes it above the limit (:func:`_above_limit`)."""
    select, single = owning_select(node)
    if select is None or not variants:
        return []
    out = _scope_extractions(select, node, (node.alias or node.name).lower(), single, variants)
    through = select_through_limit(node)
    if through is not None:
        outer, alias, outer_single = through
        out += [
            dataclasses.replace(ext, after_limit=_above_limit(ext, outer))
            for ext in _scope_extractions(outer, select.parent, alias.lower(), outer_single, variants)
        ]
    return out


def _above_limit(ext: Extraction, select: exp.Select) -> bool:
    """Whether Spark computes ``ext`` of ``select`` above the LIMIT of the subquery it reads
    rather than in the scan below it. Spark's ``PushProjectionThroughLimit`` moves a projection
    (with the grouping keys a GROUP BY and the window functions' arguments a window pull out
    into one) below a limit, where ``PushVariantIntoScan`` computes its extractions; a WHERE or
    a join stands between, and an aggregate's argument, a HAVING, QUALIFY or ORDER BY stay above
    (measured on PySpark 4.3: tests/test_spark_semantics.py)."""
    if select.args.get("where") or select.args.get("joins"):
        return True
    node = ext.node
    while node is not None and node.parent is not select:
        node = node.parent
        if isinstance(node, exp.AggFunc) and not isinstance(node.parent, exp.Window):
            return True
    return node is None or node.arg_key not in ("expressions", "group")


def _scope_extractions(
    select: exp.Select, source: exp.Expr | None, alias: str, single: bool, variants: set[str]
) -> list[Extraction]:
    """The extractions of ``select`` (outside nested queries) over a variant column of its
    source ``source`` named ``alias`` ('' for a subquery without one), whose only source it is
    when ``single``; unqualified, over a column that source alone carries among those of
    ``select`` (:func:`~vpush.optimizer.check_join_references.resolves_to`)."""
    out: list[Extraction] = []
    # Nodes of a claimed extraction, by id: iter_scope yields a node before its children, so a
    # node is inside a claimed one when its parent is.
    claimed: set[int] = set()
    for candidate in iter_scope(select):
        if candidate.parent is not None and id(candidate.parent) in claimed:
            claimed.add(id(candidate))
            continue
        if isinstance(candidate.parent, (exp.AtTimeZone, exp.FromTimeZone)) and utc_shift_argument(candidate.parent) is not candidate:
            continue  # sqlglot's cast to a timestamp, not the user's (so not a variant's)
        matched = match_extraction(candidate, column_casts=True)
        if matched is None:
            continue
        base, segments, target, strict = matched
        if not isinstance(base, exp.Column) or not supported_target(target):
            continue
        if base.args.get("db") or base.args.get("catalog") or base.name.lower() not in variants:
            continue
        qualifier = base.table.lower()
        if qualifier and qualifier != alias:
            continue
        if not qualifier and (_names_an_output(base, select) or not single and (source is None or not resolves_to(source, base, select))):
            continue
        claimed.add(id(candidate))
        out.append(Extraction(base, segments, target, strict, node=candidate))
    return out


def _names_an_output(column: exp.Column, select: exp.Select) -> bool:
    """Whether the unqualified ``column``, in ``select``'s ORDER BY or HAVING, names one of its
    aliases: Spark resolves those clauses over the SELECT's outputs first (``SELECT u.w AS v ...
    ORDER BY variant_get(v, ...)`` sorts by ``u.w``, not by a source's ``v``)."""
    name = column.name.lower()
    return clause_of(column, select).arg_key in ("order", "having") and any(
        isinstance(p, exp.Alias) and p.alias.lower() == name for p in select.expressions
    )


def _extraction_alias(node: exp.Table, alias: str) -> str | None:
    """The name the query reads table reference ``node``'s extraction columns by: ``alias``, or
    the subquery's where they are read through one (:func:`select_through_limit`; None for a
    subquery without a name)."""
    through = select_through_limit(node)
    if through is None:
        return alias
    return through[1] or None


def _exclude_from_stars(node: exp.Table, alias: str, names: list[str], *, scan_only: bool = False) -> None:
    """Keep the extraction columns out of ``*`` and ``alias.*`` in the SELECT reading the table,
    and where it passes them on through a limit (:func:`select_through_limit`), out of the stars
    of the SELECT reading that subquery instead; ``scan_only``: out of the first's only."""
    through = None if scan_only else select_through_limit(node)
    if through is not None:
        exclude_from_stars(through[0], through[1], names)
        return
    select, _ = owning_select(node)
    if select is not None:
        exclude_from_stars(select, alias, names)


def _replace_extraction(ext: Extraction, column_name: str, alias: str | None) -> None:
    """Put the scan's column ``column_name`` where the extraction was; a projection keeps the
    name Spark gives it."""
    node = ext.node
    assert node is not None
    column = exp.column(exp.to_identifier(column_name, quoted=True), table=exp.to_identifier(alias, quoted=True) if alias else None)
    column.meta[SPARK_TEXT] = node.sql(dialect=VpushSpark)
    column.meta[VARIANT_SOURCE] = ext.column.name
    parent = node.parent
    if isinstance(parent, exp.Select) and node.arg_key == "expressions":
        node.replace(exp.alias_(column, exp.to_identifier(spark_name(node) or node.sql(dialect=VpushSpark), quoted=True)))
        return
    # A projection holding the extraction keeps the name of its text as written, rather than
    # one made of vpush's internal column names.
    projection: exp.Expr | None = node
    while projection is not None and not (
        isinstance(projection.parent, exp.Select) and projection.arg_key == "expressions"
    ):
        projection = projection.parent
    # A generator's columns take their names from it (vpush.optimizer.rewrite_generators).
    named = projection is None or isinstance(projection, (exp.Alias, exp.Aliases, exp.Column, exp.Star)) or is_generator(projection)
    name = "" if named or projection is None else _spark_projection_name(projection)
    node.replace(column)
    if name and projection is not None:
        # The projection itself goes under an alias, not a copy: the query's other extractions
        # in it are replaced where they stand (in a copy they would stay, reading whole variants).
        wrap_in_place(projection, exp.Alias(alias=exp.to_identifier(name, quoted=True)))


def _drop_unread_call(node: VariantGet) -> bool:
    """Whether Spark's optimizer drops ``node`` unread with a relation it proves empty
    (:mod:`vpush.optimizer.spark_empty_relations`), so that its path is never checked: then it
    becomes a ``try_variant_get`` of the root, of the same type and computed for no row, its
    projection named first as Spark names it with the call as written. In place."""
    if not dropped_unread(node):
        return False
    projection: exp.Expr | None = node
    while projection is not None and not (projection.arg_key == "expressions" and isinstance(projection.parent, exp.Select)):
        projection = projection.parent
    if projection is not None and not isinstance(projection, exp.Alias):
        wrap_in_place(projection, exp.Alias(alias=exp.to_identifier(_spark_projection_name(projection), quoted=True)))
    node.replace(TryVariantGet(this=node.this, path=exp.Literal.string("$"), to=node.args.get("to")))
    return True


def _spark_projection_name(projection: exp.Expr) -> str:
    """The name Spark gives an unaliased projection that holds an extraction: a call of Spark's
    variant functions (``to_json(v:a)``) is named as Spark prints it too, so that the Spark
    engine, which runs the query with this alias, names it as Spark does."""
    return spark_name(projection) or spark_function_name(projection) or projection.sql(dialect=VpushSpark)


def _casts_later(
    unique: list[Extraction],
    by_key: dict[object, str],
    names: list[str],
    part_expressions: list[list[exp.Expression]],
    in_scan: set[str],
) -> list[CastLater]:
    """The strict casts of one scan that Spark computes where the query computes them (no
    extraction of the same column is computed in its scan) and that may fail in some file, each
    with its companion extractions appended to ``unique`` (and their columns to ``names``): the
    ``try_`` cast, the variant at the path where that is NULL, and the row's file (see
    :class:`~vpush.optimizer.plan.CastLater`). A cast no file can fail stays as it is."""
    index = {name: i for i, name in enumerate(names)}
    out: list[CastLater] = []
    for ext in list(unique):
        strict = by_key[ext.key]
        # A column that some extraction of the query computes in the scan (in_scan, from every
        # extraction, not only the first of each column) fails there already.
        if ext.cannot_fail or strict in in_scan or any(c.strict == strict for c in out):
            continue
        if not any(may_fail(expressions[index[strict]]) for expressions in part_expressions):
            continue
        companions = []
        for companion in (
            dataclasses.replace(ext, strict=False, node=None, of_path_cast=ext.casts_a_path),
            dataclasses.replace(ext, target=VARIANT, strict=False, node=None, residual_of=ext.target),
        ):
            column_name = by_key.get(companion.key)
            if column_name is None:
                suffix = "try" if companion.residual_of is None else "residual"
                column_name = by_key[companion.key] = f"{strict}_{suffix}"
                names.append(column_name)
                unique.append(companion)
            companions.append(column_name)
        file_column = f"{strict}_file"
        names.append(file_column)
        out.append(CastLater(strict, companions[0], companions[1], file_column, ext.target, ext.path_text))
    return out


def _residual_only_where_needed(
    parts: list[ScanPart], part_expressions: list[list[exp.Expression]], names: list[str], casts_later: list[CastLater]
) -> None:
    """Each residual companion computed only where its ``try_`` cast is NULL (the variant at the
    path is rebuilt for the rows a strict cast may fail on, not for every row), and each file
    companion given the part's file column."""
    index = {name: i for i, name in enumerate(names)}
    for part, expressions in zip(parts, part_expressions):
        for cast in casts_later:
            attempt = expressions[index[cast.attempt]]
            # A `try_` cast computed by an engine function has a projection of its own below the
            # residual's (see rewrite_variants.scan_relation), so it is named rather than computed
            # twice; a plain read of a typed leaf is repeated.
            first = (
                exp.column(exp.to_identifier(cast.attempt, quoted=True))
                if index[cast.attempt] < index[cast.residual] and evaluated_once(attempt)
                else attempt.copy()
            )
            expressions[index[cast.residual]] = exp.Case(
                ifs=[exp.If(this=exp.Is(this=first, expression=exp.Null()), true=expressions[index[cast.residual]])]
            )
            has_file = FILE_COLUMN in part.schema.names
            file: exp.Expression = (
                exp.column(exp.to_identifier(FILE_COLUMN, quoted=True))
                if has_file
                else exp.cast(exp.Null(), exp.DataType.build("VARCHAR"))
            )
            expressions.insert(index[cast.file], exp.cast(file, exp.DataType.build("VARCHAR")) if has_file else file)


def _cast_later(
    expression: exp.Expr, casts_later: list[CastLater], functions: dict[str, SparkType], time_zone: str, *, spark: bool
) -> None:
    """Each strict cast of :func:`_casts_later` where the query computes it:
    ``coalesce(attempt, <the strict cast of residual>)``, Spark's own ``CAST`` on the Spark
    engine, the extraction function on DuckDB; either raises for the rows that reach it only."""
    by_name = {c.strict.lower(): c for c in casts_later}
    if not by_name:
        return
    for column in list(expression.find_all(exp.Column)):
        cast = by_name.get(column.name.lower())
        if cast is None or isinstance(column.parent, exp.Star):  # `* EXCLUDE (...)` names it
            continue
        table = column.args.get("table")

        def companion(name: str, table: exp.Identifier | None = table) -> exp.Column:
            return exp.column(exp.to_identifier(name, quoted=True), table=table.copy() if table is not None else None)

        strict: exp.Expression
        if spark:
            strict = exp.Cast(this=companion(cast.residual), to=exp.DataType.build(cast.target.to_spark(), dialect=VpushSpark))
        else:
            name = function_name(cast.target)
            functions[name] = cast.target
            residual = companion(cast.residual)
            strict = exp.Anonymous(
                this=name,
                expressions=[
                    exp.Dot(this=residual, expression=exp.to_identifier("metadata")),
                    exp.Dot(this=residual.copy(), expression=exp.to_identifier("value")),
                    exp.Literal.string("$"),
                    exp.Boolean(this=True),
                    exp.Literal.string(time_zone),
                    companion(cast.file),
                    exp.Literal.string(cast.path),
                ],
            )
        replacement = exp.Coalesce(this=companion(cast.attempt), expressions=[strict])
        replacement.meta.update(column.meta)
        column.replace(replacement)


def _in_where(ext: Extraction) -> bool:
    """Whether the extraction is in the WHERE of the SELECT that holds it."""
    node = ext.node
    while node is not None and not isinstance(node.parent, exp.Select):
        node = node.parent
    return node is not None and node.arg_key == "where"
