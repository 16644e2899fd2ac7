"""The differential suite's data: what each table holds, and the writers that make its files.

Three writers, as real as they come: Spark 4.3 (forced shredding schemas), DuckDB 2.0 (``COPY ...
(SHREDDING ...)``, both of values DuckDB builds itself and of Spark's unshredded files read back)
and vpush's own (``vpush.codec.shred.write_shredded_parquet``). Every table mixes files whose
shredding disagrees, so each query meets typed leaves, residuals and unshredded values at once.

Tables (``w`` names the file a row comes from; in ``c`` and ``s``, ``label`` names the value, the
same in every file):

- ``c``: one value per row in the object field ``x`` (``{"x": ...}``), every Variant type from
  typed SQL values and from JSON, plus a missing ``x``, a variant-null ``x`` and a SQL NULL row;
  one file per shredding of ``x`` (bigint, int, string, double, ..., none), written by each writer.
- ``s``: the same values as top-level scalars (``v`` itself is the number, string, ...), shredded
  at the top level (``typed_value`` of a primitive type).
- ``t``: event-like objects with nested objects, arrays and odd keys; in each 64-row file the first
  32 rows are clean (row groups without residuals) and the last 32 mix SQL NULL rows, variant
  nulls, top-level scalars, wrong-typed fields, nulls inside, and extra fields.
- ``u``: a small lookup table to join ``t`` with (``v:k`` matches ``t``'s ``v:s``).
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

from support.writers import write_with_duckdb, write_with_spark
from vpush.codec.shred import write_shredded_parquet

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Each value as a Spark SQL expression of type VARIANT: typed SQL values cast to variant, and
# values parsed from JSON (whose numbers take the narrowest type: 12 is int8, 12.50 a decimal).
VALUES: list[tuple[str, str]] = [
    ("int8", "cast(5 AS variant)"),
    ("int8_min", "cast(-128 AS variant)"),
    ("int16", "cast(300 AS variant)"),
    ("int16_min", "cast(-32768 AS variant)"),
    ("int32", "cast(70000 AS variant)"),
    ("int32_max", "cast(2147483647 AS variant)"),
    ("int64", "cast(3000000000 AS variant)"),
    ("int64_max", "cast(9223372036854775807 AS variant)"),
    ("zero", "cast(0 AS variant)"),
    ("one", "cast(1 AS variant)"),
    ("float", "cast(cast(1.5 AS float) AS variant)"),
    ("float_frac", "cast(cast(0.1 AS float) AS variant)"),
    ("float_big", "cast(cast(3.0e38 AS float) AS variant)"),
    ("float_nan", "cast(cast('NaN' AS float) AS variant)"),
    ("double", "cast(2.5D AS variant)"),
    ("double_neg", "cast(-2.5D AS variant)"),
    ("double_frac", "cast(0.1D AS variant)"),
    ("double_big", "cast(1e300D AS variant)"),
    ("double_tiny", "cast(1e-7D AS variant)"),
    ("double_nan", "cast(cast('NaN' AS double) AS variant)"),
    ("double_ninf", "cast(cast('-Infinity' AS double) AS variant)"),
    ("double_negzero", "cast(-0.0D AS variant)"),
    ("double_127_9", "cast(127.9D AS variant)"),
    ("dec4", "cast(cast(1.25 AS decimal(3,2)) AS variant)"),
    ("dec4_neg", "cast(cast(-99.995 AS decimal(5,3)) AS variant)"),
    ("dec8", "cast(cast(9999999999.99 AS decimal(12,2)) AS variant)"),
    ("dec16", "cast(cast(12345678901234567890.123 AS decimal(23,3)) AS variant)"),
    ("dec_int", "cast(cast(42 AS decimal(10,0)) AS variant)"),
    ("date", "cast(DATE'2024-02-29' AS variant)"),
    ("date_old", "cast(DATE'1969-12-31' AS variant)"),
    ("ts", "cast(TIMESTAMP'2024-01-02 03:04:05.123456' AS variant)"),
    ("ts_neg", "cast(TIMESTAMP'1969-12-31 23:59:59.5' AS variant)"),
    ("ntz", "cast(TIMESTAMP_NTZ'2024-01-02 03:04:05.5' AS variant)"),
    ("ntz_midnight", "cast(TIMESTAMP_NTZ'2024-01-02 00:00:00' AS variant)"),
    ("true", "cast(true AS variant)"),
    ("false", "cast(false AS variant)"),
    ("binary", "cast(X'00FF' AS variant)"),
    ("binary_empty", "cast(X'' AS variant)"),
    ("str_int", "cast('12' AS variant)"),
    ("str_padded", "cast(' 12 ' AS variant)"),
    ("str_neg", "cast('-7' AS variant)"),
    ("str_dec", "cast('1.5' AS variant)"),
    ("str_exp", "cast('1e3' AS variant)"),
    ("str_huge", "cast('9223372036854775808' AS variant)"),
    ("str_abc", "cast('abc' AS variant)"),
    ("str_empty", "cast('' AS variant)"),
    ("str_true", "cast('true' AS variant)"),
    ("str_t", "cast('T' AS variant)"),
    ("str_no", "cast('no' AS variant)"),
    ("str_nan", "cast('NaN' AS variant)"),
    ("str_ninf", "cast('-Infinity' AS variant)"),
    ("str_date", "cast('2024-01-02' AS variant)"),
    ("str_ts", "cast('2024-01-02 03:04:05' AS variant)"),
    ("str_ts_zone", "cast('2024-01-02T03:04:05.123+01:00' AS variant)"),
    ("str_long", "cast('longer than sixty-four bytes, so not a short string: 0123456789abcdef' AS variant)"),
    ("str_unicode", "cast('héllo ✓' AS variant)"),
    ("json_int", "parse_json('12')"),
    ("json_dec", "parse_json('12.50')"),
    ("json_exp", "parse_json('1.5e2')"),
    ("json_huge", "parse_json('123456789012345678901234567890123456789012')"),
    ("json_str", "parse_json('\"2024-03-01\"')"),
    ("json_bool", "parse_json('true')"),
    ("variant_null", "parse_json('null')"),
    ("object", "parse_json('{\"k\": 1, \"j\": \"s\"}')"),
    ("array", "parse_json('[1, \"b\", null]')"),
]
# After the values, ``c`` and ``s`` have a row "missing" (an object without ``x``) and a row
# "sql_null" (a SQL NULL).

# Values DuckDB builds from its own typed SQL values (DuckDB keeps the declared width: a BIGINT 5
# is an int64).
DUCKDB_VALUES: list[tuple[str, str]] = [
    ("duck_tinyint", "12::TINYINT::VARIANT"),
    ("duck_smallint", "(-300)::SMALLINT::VARIANT"),
    ("duck_integer", "70000::INTEGER::VARIANT"),
    ("duck_bigint_small", "5::BIGINT::VARIANT"),
    ("duck_float", "1.5::FLOAT::VARIANT"),
    ("duck_double", "0.1::DOUBLE::VARIANT"),
    ("duck_decimal", "1.25::DECIMAL(4,2)::VARIANT"),
    ("duck_decimal18", "12345678901234.5678::DECIMAL(18,4)::VARIANT"),
    ("duck_date", "DATE '2024-02-29'::VARIANT"),
    ("duck_timestamptz", "TIMESTAMPTZ '2024-01-02 03:04:05.123456+00'::VARIANT"),
    ("duck_timestamp", "TIMESTAMP '2024-01-02 03:04:05.5'::VARIANT"),
    ("duck_bool", "false::VARIANT"),
    ("duck_blob", "'\\x00\\xFF'::BLOB::VARIANT"),
    ("duck_varchar", "'12'::VARIANT"),
    ("duck_varchar_abc", "'abc'::VARIANT"),
    ("duck_json", "'{\"k\": [1, 2.5]}'::JSON::VARIANT"),
]

# Spark shreddings of ``c``'s field x and of ``s``'s top level (Spark DDL), besides the
# unshredded file Spark writes first.
C_SPARK_SHREDDINGS = {
    "bigint": "x bigint",
    "decimal": "x decimal(18,4)",
    "object": "x struct<k: bigint, j: string>",
}
S_SPARK_SHREDDINGS = {"bigint": "bigint"}
# DuckDB re-writes of Spark's unshredded file (DuckDB type syntax; only values of exactly the
# type go to typed_value), and the shredding of DuckDB's own values.
C_DUCKDB_SHREDDINGS = {"integer": "STRUCT(x INTEGER)", "varchar": "STRUCT(x VARCHAR)"}
C_DUCKDB_NATIVE = "STRUCT(x BIGINT)"
S_DUCKDB_SHREDDINGS = {"bigint": "BIGINT", "timestamptz": "TIMESTAMPTZ"}
S_DUCKDB_NATIVE = "VARCHAR"
# vpush's writer, from the same unshredded values (only exact types go to typed_value).
C_VPUSH_SHREDDINGS = {
    "smallint": "x smallint",
    "float": "x float",
    "double": "x double",
    "decimal": "x decimal(9,2)",
    "boolean": "x boolean",
    "date": "x date",
    "timestamp": "x timestamp",
    "ntz": "x timestamp_ntz",
    "binary": "x binary",
}
S_VPUSH_SHREDDINGS = {
    "int": "int",
    "string": "string",
    "tinyint": "tinyint",
    "float": "float",
    "double": "double",
    "decimal": "decimal(9,3)",
    "boolean": "boolean",
    "binary": "binary",
    "date": "date",
    "timestamp": "timestamp",
    "ntz": "timestamp_ntz",
}


def _values_table() -> str:
    """The values as a Spark inline table ``(label, x)`` (folded once at analysis: no code to
    compile)."""
    rows = ", ".join(f"('{label}', {expr})" for label, expr in VALUES)
    return f"VALUES {rows}, ('missing', parse_json('{{\"y\": 1}}')), ('sql_null', NULL) AS vals(label, x)"


# Three columns only: Spark 4.3's forced shredding fails to write a fourth (an
# ArrayIndexOutOfBoundsException in ParquetOutputWriterWithVariantShredding).
def c_select(w: str) -> str:
    """Spark SELECT of table ``c``: ``{"x": value}`` per row."""
    return (
        f"SELECT label, '{w}' AS w, CASE WHEN label = 'missing' THEN x WHEN label = 'sql_null' THEN NULL "
        f"ELSE to_variant_object(named_struct('x', x)) END AS v FROM {_values_table()}"
    )


def s_select(w: str) -> str:
    """Spark SELECT of table ``s``: the value itself per row."""
    return f"SELECT label, '{w}' AS w, x AS v FROM {_values_table()}"


def _duckdb_values() -> str:
    return ", ".join(f"('{label}', {expr})" for label, expr in DUCKDB_VALUES)


def c_duckdb_select(w: str) -> str:
    """DuckDB SELECT of DuckDB-built values, ``{"x": value}``."""
    return f"SELECT label, '{w}' AS w, {{'x': x}}::VARIANT AS v FROM (VALUES {_duckdb_values()}) t(label, x)"


def s_duckdb_select(w: str) -> str:
    """DuckDB SELECT of DuckDB-built top-level values."""
    return f"SELECT label, '{w}' AS w, x AS v FROM (VALUES {_duckdb_values()}) t(label, x)"


# Table t: blocks of 64 rows (one file each); rows 0-31 of a block clean, rows 32-63 of eight
# kinds (p % 8). Spark writes blocks 0-5 unshredded in one job; DuckDB builds block 4 itself.
T_BLOCKS = 6
T_SPARK_SELECT = """
SELECT id, id % 5 AS g, CASE
  WHEN p < 32 THEN to_variant_object(named_struct(
    'a', id, 's', concat('k', id % 5), 'o', named_struct('x', cast(id % 7 AS int), 'y', concat('y', id)),
    'arr', slice(array(id, id + 1, id + 2), 1, cast(id % 4 AS int)),
    'd', cast(id / 4 AS decimal(10,2)), 'ts', timestamp_seconds(1704067200 + id * 3600), 'b', id % 3 = 0,
    'a.b', id * 10, 'a b', concat('sp', id), 'q"x', id + 1, "it's", id + 2, 'back\\\\slash', id + 3,
    '$', id + 4, '[0]', id + 5, 'ü', id + 6))
  WHEN p % 8 = 0 THEN NULL
  WHEN p % 8 = 1 THEN parse_json('null')
  WHEN p % 8 = 2 THEN cast(id AS variant)
  WHEN p % 8 = 3 THEN cast(concat('s', id) AS variant)
  WHEN p % 8 = 4 THEN parse_json('{"a": "12", "s": 5, "o": "str", "arr": {"k": 1}, "d": "x",
    "ts": "2024-01-01 00:00:00", "b": "true", "a.b": [1], "a b": 7}')
  WHEN p % 8 = 5 THEN parse_json('{"a": null, "o": {"x": null, "y": null}, "arr": [null, 1], "s": null}')
  WHEN p % 8 = 6 THEN to_variant_object(named_struct('a', cast(id AS double) + 0.5, 's', concat('k', id % 5),
    'o', named_struct('x', id * 1000000000, 'z', true), 'arr', array(concat('e', id)),
    'd', cast(id AS decimal(20,0)), 'b', cast(id % 2 AS int)))
  ELSE parse_json(concat('{"z": 1, "a": ', id, ', "o": {}, "arr": []}'))
END AS v
FROM (SELECT id, id % 64 AS p FROM range(0, 384, 1, 6))
"""
T_DUCKDB_SELECT = """
SELECT id, id % 5 AS g, CASE
  WHEN p < 32 THEN {'a': id, 's': 'k' || (id % 5), 'o': {'x': (id % 7)::INTEGER, 'y': 'y' || id},
    'arr': list_slice([id, id + 1, id + 2], 1, (id % 4)::INTEGER),
    'd': (id / 4)::DECIMAL(10,2), 'ts': to_timestamp(1704067200 + id * 3600), 'b': id % 3 = 0,
    'a.b': id * 10, 'a b': 'du' || id, 'q"x': id + 1, 'it''s': id + 2, 'back\\slash': id + 3,
    '$': id + 4, '[0]': id + 5, 'ü': id + 6}::VARIANT
  WHEN p % 8 = 0 THEN NULL
  WHEN p % 8 = 1 THEN 'null'::JSON::VARIANT
  WHEN p % 8 = 2 THEN id::VARIANT
  WHEN p % 8 = 3 THEN ('s' || id)::VARIANT
  WHEN p % 8 = 4 THEN '{"a": "12", "s": 5, "o": "str", "arr": {"k": 1}, "d": "x",
    "ts": "2024-01-01 00:00:00", "b": "true", "a.b": [1], "a b": 7}'::JSON::VARIANT
  WHEN p % 8 = 5 THEN '{"a": null, "o": {"x": null, "y": null}, "arr": [null, 1], "s": null}'::JSON::VARIANT
  WHEN p % 8 = 6 THEN {'a': id::DOUBLE + 0.5, 's': 'k' || (id % 5), 'o': {'x': id * 1000000000, 'z': true},
    'arr': ['e' || id], 'd': id::DECIMAL(20,0), 'b': (id % 2)::INTEGER}::VARIANT
  ELSE ('{"z": 1, "a": ' || id || ', "o": {}, "arr": []}')::JSON::VARIANT
END AS v
FROM (SELECT i::BIGINT AS id, i::BIGINT % 64 AS p FROM range(256, 320) r(i))
"""
T_FULL_SPARK = (
    "a bigint, s string, o struct<x: int, y: string>, arr array<bigint>, d decimal(10,2), "
    "ts timestamp, b boolean, `a.b` bigint, `q\"x` bigint, `a b` string"
)
T_WRONG_SPARK = "a string, o struct<x: string>, arr array<string>, d double"
T_DUCKDB = (
    "STRUCT(a BIGINT, s VARCHAR, o STRUCT(x INTEGER, y VARCHAR), arr BIGINT[], d DECIMAL(10,2), "
    'ts TIMESTAMPTZ, b BOOLEAN, "a.b" BIGINT, "ü" BIGINT)'
)
T_DUCKDB_COPY = "STRUCT(a SMALLINT, s VARCHAR, o STRUCT(x TINYINT, y VARCHAR), arr SMALLINT[])"
T_VPUSH = "a bigint, arr array<bigint>, `a b` string, o struct<x: bigint>, d decimal(10,2)"
U_SPARK_SELECT = """
SELECT id AS uid, to_variant_object(named_struct('k', concat('k', id), 'label', concat('L', id),
  'weight', cast(id * 10 AS int))) AS v FROM range(5)
"""
U_DUCKDB_SELECT = """
SELECT i::BIGINT AS uid, {'k': 'k' || (i % 7), 'label': 'D' || i, 'weight': i::DOUBLE / 4}::VARIANT AS v
FROM range(5, 9) r(i)
"""


@dataclass(frozen=True)
class Tables:
    """The table folders, by name."""

    c: Path
    s: Path
    t: Path
    u: Path

    def items(self) -> list[tuple[str, Path]]:
        """``(name, folder)`` of every table."""
        return [("c", self.c), ("s", self.s), ("t", self.t), ("u", self.u)]


def _spark_file(spark: SparkSession, staging: Path, target: Path, select: str, schema: str | None) -> None:
    """Write ``select`` with Spark into the one file ``target``, in 8-row row groups."""
    files = write_with_spark(spark, staging, select, schema, row_group_size_rows=8)
    assert len(files) == 1, files
    shutil.move(str(files[0]), target)
    shutil.rmtree(staging)


def _duckdb_copy(source: Path, target: Path, shredding: str, w: str | None = None) -> None:
    """Re-write a Spark-written file with DuckDB, shredded as ``shredding`` (DuckDB keeps the
    source's small row groups), ``w`` set to name the file."""
    replace = f" REPLACE ('{w}' AS w)" if w is not None else ""
    write_with_duckdb(target, f"SELECT *{replace} FROM read_parquet('{source}')", shredding, 8)


def _vpush_copy(source: Path, target: Path, shredding: str, rows: int, w: str | None = None) -> None:
    """Re-write a Spark-written unshredded file with vpush's writer."""
    table = pq.read_table(source)
    if w is not None:
        table = table.set_column(table.schema.get_field_index("w"), "w", pa.array([w] * table.num_rows))
    write_shredded_parquet(table, target, {"v": shredding}, row_group_size=rows)


def write_tables(spark: SparkSession, root: Path) -> Tables:
    """Write every file of every table under ``root``."""
    staging = root / "staging"
    sources = root / "sources"
    tables = Tables(c=root / "c", s=root / "s", t=root / "t", u=root / "u")
    for folder in (tables.c, tables.s, tables.t, tables.u, sources):
        folder.mkdir(parents=True)

    # c and s: Spark builds the values once, unshredded; every other file re-writes those rows.
    _spark_file(spark, staging, tables.c / "spark_none.parquet", c_select("spark_none"), None)
    _spark_file(spark, staging, tables.s / "spark_none.parquet", s_select("spark_none"), None)
    layouts = (
        (tables.c, C_SPARK_SHREDDINGS, C_DUCKDB_SHREDDINGS, C_VPUSH_SHREDDINGS, c_duckdb_select),
        (tables.s, S_SPARK_SHREDDINGS, S_DUCKDB_SHREDDINGS, S_VPUSH_SHREDDINGS, s_duckdb_select),
    )
    natives = {tables.c: C_DUCKDB_NATIVE, tables.s: S_DUCKDB_NATIVE}
    for table, spark_schemas, duck_schemas, vpush_schemas, duck_select in layouts:
        unshredded = table / "spark_none.parquet"
        for name, schema in spark_schemas.items():
            select = f"SELECT label, 'spark_{name}' AS w, v FROM parquet.`{unshredded}`"
            _spark_file(spark, staging, table / f"spark_{name}.parquet", select, schema)
        for name, schema in duck_schemas.items():
            _duckdb_copy(unshredded, table / f"duckdb_{name}.parquet", schema, f"duckdb_{name}")
        for name, schema in vpush_schemas.items():
            _vpush_copy(unshredded, table / f"vpush_{name}.parquet", schema, 6, f"vpush_{name}")
        write_with_duckdb(table / "duckdb_native.parquet", duck_select("duckdb_native"), natives[table], 2048)

    # t: Spark writes six 64-row blocks unshredded in one job (one file per block, ids 64k..64k+63).
    blocks = write_with_spark(spark, staging, T_SPARK_SELECT, None, row_group_size_rows=8, files=None)
    assert len(blocks) == T_BLOCKS, blocks
    for i, block in enumerate(blocks):
        shutil.move(str(block), sources / f"t{i}.parquet")
    shutil.rmtree(staging)
    for index, name, schema in ((0, "spark_full", T_FULL_SPARK), (1, "spark_wrong", T_WRONG_SPARK)):
        select = f"SELECT * FROM parquet.`{sources / f't{index}.parquet'}`"
        _spark_file(spark, staging, tables.t / f"{name}.parquet", select, schema)
    shutil.copy(sources / "t2.parquet", tables.t / "spark_none.parquet")
    _duckdb_copy(sources / "t3.parquet", tables.t / "duckdb_copy.parquet", T_DUCKDB_COPY)
    write_with_duckdb(tables.t / "duckdb_native.parquet", T_DUCKDB_SELECT, T_DUCKDB, 2048)
    _vpush_copy(sources / "t5.parquet", tables.t / "vpush.parquet", T_VPUSH, 4)

    _spark_file(spark, staging, tables.u / "spark.parquet", U_SPARK_SELECT, "k string, weight int")
    write_with_duckdb(tables.u / "duckdb.parquet", U_DUCKDB_SELECT, "STRUCT(k VARCHAR)", 2048)
    return tables
