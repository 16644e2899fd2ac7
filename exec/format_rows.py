"""A query's result as Spark's CSV and JSON data sources write it (``df.write.csv`` with a header
row, ``df.write.json``), with their default options, in the session time zone.

Settled on PySpark 4.3 (``tests/test_cli.py`` compares every format with Spark's files):

```
JSON lines   each row as to_json(struct(*)) writes it (exec/format_json.py): NULL fields left out,
             a variant null kept as null, variants, arrays, structs and maps as JSON values
CSV          Univocity's writer as Spark sets it up: ',' between values, '"' quotes a value that
             holds ',', '"', '\\n' or '\\r' (a '"' inside written '\\"', a '\\' before one '\\\\'),
             spaces and control characters cut from both ends of a value, NULL as nothing, an
             empty string as "" ; the header row is the column names, quoted alike; a row of one
             column that is NULL is left out (Univocity skips the empty line)
  boolean, integers, decimals   as Spark prints them (BigDecimal.toString: 1.00E-8)
  double, float                 Java's toString: 1.0E10, NaN, -Infinity
  date, timestamp, timestamp_ntz  yyyy-MM-dd, yyyy-MM-dd'T'HH:mm:ss.SSSXXX, ...SSS (as in JSON)
  binary                        [01 02 FF]
  interval                      INTERVAL '1' DAY, INTERVAL '1-2' YEAR TO MONTH (optimizer/interval_text.py;
                                in JSON a string), by the type the column is tagged with
  variant, array, struct, map   Spark refuses them (UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE); vpush
                                writes their to_json text instead, a documented difference
```
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from vpush.codec.native import format_java_native
from vpush.exec.engine import interval_type
from vpush.exec.errors import ExecutionError
from vpush.optimizer.interval_text import format_intervals
from vpush.exec.format_json import format_json
from vpush.optimizer.spark_semantics import arrow_spark_type
from vpush.optimizer.variant_types import (
    VARIANT,
    AtomicType,
    DecimalType,
    SparkType,
    StringType,
    StructField,
    StructType,
)

__all__ = ["format_rows"]

FORMATS = ("csv", "jsonl")
_HEX_BYTES = pa.array([f"{b:02X}" for b in range(256)], pa.string())
_NEEDS_QUOTES = r'[,"\n\r]'
_EDGE_SPACES = r"^[\x00- ]+|[\x00- ]+$"  # Univocity trims every char up to ' ' at both ends


def format_rows(table: pa.Table, output: str, *, time_zone: str) -> Iterator[str]:
    """The text Spark's ``output`` data source (``"csv"`` with a header, or ``"jsonl"``) writes
    for ``table``, a chunk per record batch.

    Example:
        >>> t = pa.table({"x": [1.0e10, float("nan"), None], "s": ['a,"b"', "", " c "]})
        >>> print("".join(format_rows(t, "csv", time_zone="UTC")), end="")
        x,s
        1.0E10,"a,\\"b\\""
        NaN,""
        ,c
        >>> print("".join(format_rows(t, "jsonl", time_zone="UTC")), end="")
        {"x":1.0E10,"s":"a,\\"b\\""}
        {"x":"NaN","s":""}
        {"s":" c "}

    Args:
        table: a query's result, as the engines give it.
        output: ``"csv"`` or ``"jsonl"``.
        time_zone: the session time zone, for timestamps.

    Raises:
        ExecutionError: ``COLUMN_ALREADY_EXISTS`` for two columns of one name (any case) in JSON,
            as Spark's writer raises; ``UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE`` for a column of a
            type Spark's writer does not take (a time); an interval column not tagged with its
            Spark type (:func:`vpush.exec.engine.interval_type`), whose fields vpush cannot tell.
    """
    if output not in FORMATS:
        raise ExecutionError(f"unknown output format {output!r}; choose one of {', '.join(FORMATS)}")
    table = intervals_as_text(table)
    types = [_spark_type(field, output) for field in table.schema]
    if output == "jsonl":
        _check_unique(table.column_names)
        # a column of NULLs only is left out of every row, as any NULL field
        kept = [i for i, t in enumerate(types) if t is not None]
        row_type = StructType(tuple(StructField(table.column_names[i], t) for i in kept for t in (types[i],) if t is not None))
        for batch in table.to_batches():
            columns = [batch.column(i) for i in kept]
            rows = pa.StructArray.from_arrays(columns, fields=[batch.schema.field(i) for i in kept]) if kept else None
            if rows is None:
                yield "{}\n" * batch.num_rows
                continue
            text = format_json(rows, row_type, time_zone=time_zone)
            yield "\n".join(text.to_pylist()) + ("\n" if len(text) else "")
        return
    yield ",".join(_csv_quoted(pa.array(table.column_names, pa.string())).to_pylist()) + "\n"
    for batch in table.to_batches():
        if not batch.num_columns:
            yield "\n" * batch.num_rows  # Univocity writes an empty line per row without columns
            continue
        texts = [_csv_value(column, spark_type, time_zone) for column, spark_type in zip(batch.columns, types)]
        lines = pc.binary_join_element_wise(*texts, ",")
        if batch.num_columns == 1 and batch.column(0).null_count:
            # Univocity skips an empty line: a row of one NULL is left out (an empty text is "")
            lines = pc.filter(lines, pc.not_equal(lines, ""))
        yield "\n".join(lines.to_pylist()) + ("\n" if len(lines) else "")


def intervals_as_text(table: pa.Table) -> pa.Table:
    """``table`` with each interval column tagged with its Spark type as Spark's text of its
    values (``INTERVAL '1' DAY``), as Spark's writers and ``show()`` print them.

    Example:
        >>> from vpush.exec.engine import tag_interval
        >>> days = pa.array([86_400_000_000, None], pa.duration("us"))
        >>> schema = pa.schema([tag_interval(pa.field("d", days.type), "interval day")])
        >>> intervals_as_text(pa.Table.from_arrays([days], schema=schema)).column("d").to_pylist()
        ["INTERVAL '1' DAY", None]

    Raises:
        ExecutionError: an interval column without its type, whose fields vpush cannot tell.
    """
    for i, field in enumerate(table.schema):
        if not (pa.types.is_duration(field.type) or pa.types.is_interval(field.type) or interval_type(field) is not None):
            continue
        spark_type = interval_type(field)
        if spark_type is None:
            raise ExecutionError(
                f"the interval column `{field.name}`: vpush cannot tell its type's fields (DAY, DAY TO SECOND, ...), "
                "which Spark's text of its values names; give the column as an interval literal, a difference of "
                "dates or timestamps or arithmetic over them, not through a star"
            )
        text = pa.chunked_array([format_intervals(c, spark_type) for c in table.column(i).chunks], pa.string())
        table = table.set_column(i, pa.field(field.name, pa.string()), text)
    return table


def _spark_type(field: pa.Field, output: str) -> SparkType | None:
    """The Spark type of a result column; None for a column of NULLs only (``void``)."""
    if pa.types.is_null(field.type):
        return None
    spark_type = arrow_spark_type(field.type)
    if spark_type is None:
        raise ExecutionError(
            f"The {'JSON' if output == 'jsonl' else 'CSV'} datasource doesn't support the column `{field.name}` "
            f"of the type {field.type}",
            error_class="UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE",
        )
    return spark_type


def _check_unique(names: list[str]) -> None:
    """Spark's writers check the names as its analyzer compares them: case-insensitively."""
    seen: set[str] = set()
    for name in names:
        if name.lower() in seen:
            raise ExecutionError(
                f"The column `{name.lower()}` already exists. Choose another name or rename the existing column.",
                error_class="COLUMN_ALREADY_EXISTS",
            )
        seen.add(name.lower())


def _csv_value(column: pa.Array, spark_type: SparkType | None, time_zone: str) -> pa.Array:
    """One column's CSV fields: NULL as '' , an empty text as '""', others quoted as needed."""
    if spark_type is None:
        return pa.array([""] * len(column), pa.string())
    text = _csv_text(column, spark_type, time_zone)
    return _csv_quoted(text).fill_null("")


def _csv_quoted(text: pa.Array) -> pa.Array:
    """Univocity's field: trimmed, '""' when empty, quoted (with '\\' escapes) when it holds a
    delimiter, a quote or a line break."""
    trimmed = pc.replace_substring_regex(text, _EDGE_SPACES, "")
    escaped = pc.replace_substring_regex(trimmed, r'(\\*)"', r'\1\1\\"')
    quoted = pc.binary_join_element_wise('"', escaped, '"', "")
    needs = pc.match_substring_regex(trimmed, _NEEDS_QUOTES)
    field = pc.if_else(needs, quoted, trimmed)
    return pc.if_else(pc.equal(trimmed, ""), '""', field)


def _csv_text(column: pa.Array, spark_type: SparkType, time_zone: str) -> pa.Array:
    """A value's text before quoting: Spark's CSV converters (UnivocityGenerator)."""
    if isinstance(spark_type, StringType):
        return column.cast(pa.string())
    if isinstance(spark_type, DecimalType):
        return column.cast(pa.string())
    if not isinstance(spark_type, AtomicType) or spark_type == VARIANT:
        return format_json(column, spark_type, time_zone=time_zone)
    name = spark_type.to_spark()
    if name in ("float", "double"):
        return format_java_native(column)
    if name == "binary":
        return _hex(column)
    if name in ("date", "timestamp", "timestamp_ntz"):
        # JSON's text of these, its quotes cut
        return pc.utf8_slice_codeunits(format_json(column, spark_type, time_zone=time_zone), 1, -1)
    return column.cast(pa.string())


def _hex(column: pa.Array) -> pa.Array:
    """Spark's text of a binary in CSV: ``[01 02 FF]``."""
    binary = column.cast(pa.binary())
    offsets = np.frombuffer(binary.buffers()[1], np.int32)[binary.offset : binary.offset + len(binary) + 1].astype(np.int64)
    data = binary.buffers()[2]
    raw = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    start, end = int(offsets[0]), int(offsets[-1])
    pieces = _HEX_BYTES.take(pa.array(raw[start:end].astype(np.int32)))
    listed = pa.ListArray.from_arrays(pa.array(offsets - start, pa.int32()), pieces)
    text = pc.binary_join_element_wise("[", pc.binary_join(listed, " "), "]", "")
    return pc.if_else(column.is_valid(), text, pa.scalar(None, pa.string())) if column.null_count else text
