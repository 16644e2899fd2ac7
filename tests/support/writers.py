"""Small, real, annotated shredded Parquet files for tests, written by DuckDB or by Spark.

Both writers take a SELECT whose column ``v`` is a VARIANT (other columns pass through) and a
shredding schema in the engine's own type syntax. Each returns the files it wrote, and leaves the
engine's settings as it found them.

Row groups: DuckDB cuts them at whole 2,048-row vectors (``row_group_size=1000`` gives 2,048-row
groups). Spark sizes them in bytes by default; here the write option
``parquet.block.row.count.limit`` (parquet-java, passed through to the Hadoop configuration) cuts
them at exactly ``row_group_size_rows`` rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb
    from pyspark.sql import SparkSession

DUCKDB_VECTOR_ROWS = 2048

# Spark applies the forced shredding schema to every variant column of the written DataFrame.
SPARK_FORCE_SHREDDING = "spark.sql.variant.forceShreddingSchemaForTest"
SPARK_WRITE_SHREDDING = "spark.sql.variant.writeShredding.enabled"
SPARK_ANNOTATE_VARIANT = "spark.sql.parquet.variant.annotateLogicalType.enabled"


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def write_with_duckdb(
    path: str | Path,
    select_sql: str,
    shredding: str | None,
    row_group_size: int,
    *,
    column: str = "v",
    connection: duckdb.DuckDBPyConnection | None = None,
) -> list[Path]:
    """Write ``select_sql`` to the Parquet file ``path`` with DuckDB, ``column`` shredded.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> files = write_with_duckdb(folder / "a.parquet",
        ...     "SELECT i AS id, {'a': i}::VARIANT AS v FROM range(3000) t(i)", "STRUCT(a BIGINT)", 2048)
        >>> [f.name for f in files]
        ['a.parquet']

    Args:
        path: The file to write (its folder is created).
        select_sql: A DuckDB SELECT yielding ``column`` as VARIANT.
        shredding: A DuckDB type such as ``'STRUCT(a BIGINT, b VARCHAR)'``; ``None`` writes the
            column unshredded (DuckDB would otherwise infer a shredding of its own). DuckDB shreds
            a value only when its type equals the shredding type: an INTEGER lands in the
            ``value`` of a BIGINT field.
        row_group_size: DuckDB's ROW_GROUP_SIZE (rounded up to a multiple of 2,048 rows).
        column: The VARIANT column to shred.
        connection: A DuckDB connection; a private in-memory one by default.

    Returns:
        ``[path]``.
    """
    import duckdb

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    spec = shredding if shredding is not None else "VARIANT"
    con = connection if connection is not None else duckdb.connect()
    try:
        con.execute(
            f"COPY ({select_sql}) TO {_sql_string(str(target))} (FORMAT parquet, "
            f'SHREDDING {{"{column}": {_sql_string(spec)}}}, ROW_GROUP_SIZE {row_group_size})'
        )
    finally:
        if connection is None:
            con.close()
    return [target]


def write_with_spark(
    spark: SparkSession,
    path: str | Path,
    select_sql: str,
    shredding_schema: str | None,
    row_group_size_rows: int | None = None,
    *,
    files: int | None = 1,
) -> list[Path]:
    """Write ``select_sql`` with Spark into the folder ``path``, variants shredded as forced.

    Args:
        spark: The session (the ``spark`` fixture).
        path: A folder to create, or to overwrite.
        select_sql: A Spark SELECT yielding a variant column (``v``).
        shredding_schema: Spark DDL of the shredding, e.g. ``'a bigint, b string'``, set as
            ``spark.sql.variant.forceShreddingSchemaForTest`` for this write only; ``None`` turns
            shredding off (``spark.sql.variant.writeShredding.enabled=false``).
        row_group_size_rows: Rows per row group (``parquet.block.row.count.limit``); ``None``
            keeps Spark's byte-sized row groups (128 MiB).
        files: Number of files, by ``coalesce`` (which keeps the row order of the query's
            partitions); ``None`` writes one file per partition of the query.

    Returns:
        The part files, sorted by name (that is, by partition).
    """
    target = Path(path)
    settings = {SPARK_ANNOTATE_VARIANT: "true"}
    if shredding_schema is None:
        settings[SPARK_WRITE_SHREDDING] = "false"
    else:
        settings[SPARK_WRITE_SHREDDING] = "true"
        settings[SPARK_FORCE_SHREDDING] = shredding_schema
    saved = {key: spark.conf.get(key, None) for key in (*settings, SPARK_FORCE_SHREDDING)}
    try:
        if shredding_schema is None:
            spark.conf.unset(SPARK_FORCE_SHREDDING)
        for key, value in settings.items():
            spark.conf.set(key, value)
        frame = spark.sql(select_sql)
        if files is not None:
            frame = frame.coalesce(files)
        writer = frame.write.mode("overwrite")
        if row_group_size_rows is not None:
            writer = writer.option("parquet.block.row.count.limit", str(row_group_size_rows))
        writer.parquet(str(target))
    finally:
        # The session is shared by the whole test run: leave no forced schema behind.
        for key, previous in saved.items():
            if previous is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, previous)
    return sorted(target.glob("part-*.parquet"))


def leaf_counts(path: str | Path) -> list[dict[str, tuple[int, int]]]:
    """Per row group, each leaf's ``(non-null, null)`` slot counts from the footer statistics.

    Under a list the counts are of elements, not rows. A leaf without statistics maps to
    ``(-1, -1)``.
    """
    import pyarrow.parquet as pq

    metadata = pq.ParquetFile(path).metadata
    groups = []
    for rg in range(metadata.num_row_groups):
        group = metadata.row_group(rg)
        counts = {}
        for c in range(group.num_columns):
            column = group.column(c)
            stats = column.statistics
            if stats is None or not stats.has_null_count:
                counts[column.path_in_schema] = (-1, -1)
            else:
                counts[column.path_in_schema] = (int(stats.num_values), int(stats.null_count))
        groups.append(counts)
    return groups


def row_group_rows(path: str | Path) -> list[int]:
    """The number of rows of each row group of a Parquet file."""
    import pyarrow.parquet as pq

    metadata = pq.ParquetFile(path).metadata
    return [metadata.row_group(rg).num_rows for rg in range(metadata.num_row_groups)]
