"""Variant extractions rewritten into shredded-column reads give Spark's answers.

One table, four files that disagree: DuckDB shredding ``a`` as BIGINT with INTEGER residuals in
one row group, Spark shredding ``a`` as int with string residuals in one row group, a DuckDB file
with no shredding at all, and a Spark file shredding ``a`` as a string (every ``a`` a residual).
Values are built from typed SQL values in both engines, and from JSON in a few rows. Every query
runs on Spark (the oracle) over the same files, and on vpush.
"""
from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest

import vpush
from support.tables import connect_tables
from support.writers import write_with_duckdb, write_with_spark
from vpush.codec.errors import VpushError
from vpush.codec.json import to_json

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DUCKDB_ROWS = 4096
DUCKDB_SHREDDING = "STRUCT(a BIGINT, s VARCHAR, o STRUCT(x INTEGER, y VARCHAR), ts TIMESTAMPTZ, d DECIMAL(10,2))"
DUCKDB_SELECT = f"""
SELECT i AS id,
  CASE
    WHEN i % 10 = 0 THEN {{'s': 'k' || (i % 7), 'arr': [i, i + 1]}}::VARIANT
    WHEN i BETWEEN 3000 AND 3009 THEN {{'a': i::INTEGER, 's': 'k' || (i % 7), 'o': {{'x': (i % 100)::INTEGER, 'y': 'y' || i}},
      'ts': make_timestamptz(1704067200000000 + i * 1000000), 'd': (i / 100)::DECIMAL(10,2)}}::VARIANT
    WHEN i % 10 = 7 THEN '{{"a": 5, "o": "not an object", "arr": [1, 2, 3], "d": 1.5}}'::JSON::VARIANT
    ELSE {{'a': i::BIGINT, 's': 'k' || (i % 7), 'o': {{'x': (i % 100)::INTEGER, 'y': 'y' || i}},
      'ts': make_timestamptz(1704067200000000 + i * 1000000), 'd': (i / 100)::DECIMAL(10,2), 'arr': [i]}}::VARIANT
  END AS v
FROM range({DUCKDB_ROWS}) t(i)
"""
SPARK_SELECT = """
SELECT id,
  CASE
    WHEN id BETWEEN 5000 AND 5009 THEN parse_json(concat('{"a": "', id, '", "s": "k', id % 7, '"}'))
    WHEN id % 10 = 3 THEN parse_json('{"a": null, "o": {"x": null}}')
    ELSE to_variant_object(named_struct('a', cast(id AS int), 's', concat('k', id % 7),
      'o', named_struct('x', cast(id % 100 AS bigint), 'y', concat('y', id)),
      'ts', timestamp_seconds(1704067200 + id), 'd', cast(id / 100 AS decimal(10,2)), 'arr', array(id, id + 1)))
  END AS v
FROM range(4096, 6144)
"""
UNSHREDDED_SELECT = """
SELECT i AS id, {'a': i::BIGINT, 's': 'k' || (i % 7), 'o': {'x': (i % 100)::INTEGER}, 'arr': [i, 2 * i]}::VARIANT AS v
FROM range(6144, 7000) t(i)
"""
STRING_A_SELECT = """
SELECT id, to_variant_object(named_struct('a', id, 's', concat('k', id % 7), 'ts', timestamp_seconds(1704067200 + id))) AS v
FROM range(7000, 7500)
"""


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory, spark: SparkSession) -> Path:
    root = tmp_path_factory.mktemp("extraction")
    folder = root / "t"
    write_with_duckdb(folder / "part-a.parquet", DUCKDB_SELECT, DUCKDB_SHREDDING, 2048)
    write_with_duckdb(folder / "part-c.parquet", UNSHREDDED_SELECT, None, 2048)
    for name, select, schema in (
        ("b", SPARK_SELECT, "a int, s string, o struct<x bigint>, ts timestamp"),
        ("d", STRING_A_SELECT, "a string, s string"),
    ):
        files = write_with_spark(spark, root / f"spark-{name}", select, schema, row_group_size_rows=1024)
        for i, f in enumerate(files):
            shutil.copy(f, folder / f"part-{name}{i}.parquet")
    spark.read.parquet(str(folder)).createOrReplaceTempView("t")
    return folder


@pytest.fixture(scope="module")
def con(table: Path) -> vpush.Connection:
    return connect_tables({"t": table})


def _normal(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"metadata", "value"}:
        if value["value"] is None:
            return None
        return ("variant", to_json(value["metadata"], value["value"], time_zone="UTC"))
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.timezone.utc)
    return value


def _rows(table: pa.Table) -> list[tuple[Any, ...]]:
    return sorted((tuple(_normal(v) for v in row.values()) for row in table.to_pylist()), key=repr)


def _spark(spark: SparkSession, sql: str) -> list[tuple[Any, ...]]:
    """Spark's rows, normalized as :func:`_rows` normalizes vpush's."""
    from pyspark.sql.types import TimestampType

    frame = spark.sql(sql)
    local = [isinstance(f.dataType, TimestampType) for f in frame.schema.fields]
    out = []
    for row in frame.collect():
        values = []
        for value, is_local in zip(row, local):
            if hasattr(value, "metadata") and hasattr(value, "value"):  # a VariantVal
                value = ("variant", to_json(value.metadata, value.value, time_zone="UTC"))
            elif is_local and value is not None:
                value = value.astimezone(dt.timezone.utc)  # PySpark gives local wall-clock time
            values.append(value)
        out.append(tuple(values))
    return sorted(out, key=repr)


# joins where one source alone has a `v`, with `{q}` where its qualifier may stand
JOINED = [
    "SELECT t.id, variant_get({q}v, '$.a', 'bigint') AS a, {q}v:o.y::string AS y FROM t JOIN range(0, 7500, 97) AS r ON t.id = r.id",
    "SELECT r.id, {q}v:s::string AS s FROM t, range(0, 7500, 89) AS r WHERE t.id = r.id AND {q}v:a::bigint BETWEEN 3000 AND 6100",
    # a join's ON sees the sources joined so far: `v` there is l's (below it would be ambiguous)
    "SELECT l.id, x.id AS x FROM t AS l JOIN range(0, 7500, 97) AS r ON {q}v:a::bigint = r.id JOIN t AS x ON x.id = l.id + 1",
]

QUERIES = [
    # the leaf's own type, with residuals of another type
    "SELECT id, variant_get(v, '$.a', 'bigint') AS a FROM t",
    "SELECT id, v:s::string AS s FROM t",
    "SELECT id, CAST(v:o.x AS int) AS x, try_cast(v:o.y AS string) AS y FROM t",
    "SELECT id, v:ts::timestamp AS ts FROM t",
    "SELECT id, variant_get(v, '$.d', 'decimal(10,2)') AS d FROM t",
    "SELECT id, try_variant_get(v, '$.a', 'int') AS a FROM t",
    # narrowing casts of a typed leaf, checked in SQL
    "SELECT id, try_variant_get(v, '$.a', 'tinyint') AS a, try_cast(v:a AS decimal(3,0)) AS d FROM t",
    "SELECT id, v:a::smallint AS a, v:o.x::tinyint AS x FROM t WHERE id < 3000 OR id >= 4096",
    # variant targets: shredded, partly shredded, not shredded, arrays
    "SELECT id, v:a AS a, v:o AS o, v:o.y AS y FROM t",
    "SELECT id, v:arr AS arr, v:arr[1] AS second, variant_get(v, '$.arr[0]') AS first FROM t",
    "SELECT id, v:missing AS m, v:o.missing AS om, v AS whole FROM t",
    # filters that prune and filters that cannot
    "SELECT id FROM t WHERE variant_get(v, '$.a', 'bigint') BETWEEN 3000 AND 3004",
    "SELECT id FROM t WHERE v:a::bigint IN (5, 5001, 7001)",
    "SELECT id, v:s::string AS s FROM t WHERE v:s::string = 'k3' AND id < 100",
    "SELECT count(*) AS n FROM t WHERE v:o.x::int IS NULL",
    "SELECT count(*) AS n FROM t WHERE try_variant_get(v, '$.a', 'bigint') > 6000 OR id = 1",
    "SELECT count(*) AS n FROM t WHERE NOT (v:ts::timestamp < TIMESTAMP '2024-01-01 01:00:00')",
    # grouping by an extraction, and extractions under expressions
    "SELECT v:s::string AS s, count(*) AS n, sum(v:a::bigint) AS total FROM t GROUP BY v:s::string",
    "SELECT id, coalesce(v:a::bigint, -1) + 1 AS a1 FROM t WHERE id % 500 = 7",
    "WITH x AS (SELECT id, v FROM t) SELECT id, v:o.x::bigint AS x FROM x WHERE id < 50",
    # joins: extractions on both sides, and through an outer join (the whole-variant route)
    "SELECT l.id, r.v:s::string AS s FROM t l JOIN t r ON l.v:a::bigint = r.id WHERE l.id % 97 = 1",
    "SELECT l.id, r.v:o AS o FROM t l LEFT JOIN t r ON l.v:a::bigint = r.id + 1 WHERE l.id % 89 = 2",
    "SELECT * FROM t WHERE v:a::bigint BETWEEN 10 AND 12",
    # unqualified over a join, where one source alone has a `v`: read as the qualified form is
    *(sql.format(q="") for sql in JOINED),
    # a subscript right after a cast of a path (sqlglot read it as a cast to a typed literal)
    "SELECT id, v:arr::array<bigint>[1] AS second, v:o::map<string, bigint>['x'] + 1 AS x FROM t "
    "WHERE id BETWEEN 6144 AND 6999 AND id % 50 = 7",
    # an ORDER BY or HAVING reads a SELECT's alias `v` first, not a source's `v` (vpush had sorted
    # by the table's column, alone and over a join)
    "SELECT id, parse_json(concat('{\"a\": ', -id, '}')) AS v FROM t WHERE id % 97 = 0 ORDER BY v:a::bigint LIMIT 3",
    "SELECT t.id, parse_json(concat('{\"a\": ', -r.id, '}')) AS v FROM t JOIN range(0, 7500, 97) AS r ON t.id = r.id "
    "ORDER BY variant_get(v, '$.a', 'bigint') LIMIT 3",
    "SELECT t.id, any_value(parse_json(concat('{\"a\": ', -r.id, '}'))) AS v FROM t JOIN range(0, 7500, 97) AS r "
    "ON t.id = r.id GROUP BY t.id HAVING variant_get(v, '$.a', 'bigint') > -300",
    # a subquery's star under names given by place
    "SELECT k FROM (SELECT * FROM t) s(k, w) WHERE k % 1000 = 3",
]


@pytest.fixture(scope="module")
def spark_con(spark: SparkSession, table: Path) -> vpush.Connection:
    """The same table on vpush's Spark engine, in the test session."""
    return connect_tables({"t": table}, spark)


@pytest.mark.parametrize("sql", QUERIES)
def test_same_answer_as_spark(spark: SparkSession, con: vpush.Connection, sql: str) -> None:
    want = _spark(spark, sql)
    got = _rows(con.sql(sql).to_arrow())
    assert len(got) == len(want)
    assert got == want


@pytest.mark.parametrize("sql", QUERIES)
def test_spark_engine_gives_sparks_answer(spark: SparkSession, spark_con: vpush.Connection, sql: str) -> None:
    want = _spark(spark, sql)
    got = _rows(spark_con.sql(sql).to_arrow())
    assert got == want


def _named_as_spark(sql: str) -> Callable[..., None]:
    """A test that ``sql``'s columns are named as Spark names them, on each engine."""

    @pytest.mark.parametrize("engine", ["duckdb", "spark"])
    def test(spark: SparkSession, con: vpush.Connection, spark_con: vpush.Connection, engine: str) -> None:
        connection = con if engine == "duckdb" else spark_con
        assert connection.sql(sql).to_arrow().column_names == spark.sql(sql).columns

    return test


test_column_names_are_sparks = _named_as_spark(
    "SELECT v:a, v:o.x, v:arr[1], CAST(v:o.y AS string), v:o.x::int, variant_get(v, '$.a', 'bigint'), "
    "try_variant_get(v, '$.a', 'int'), variant_get(v, '$.s'), try_cast(v:a AS int), "
    "variant_get(v, '$[\"a b\"]', 'int'), cast(variant_get(v, '$.a') AS int) FROM t WHERE id = 1"
)
# the Spark engine ran these under vpush's own text of them (TO_JSON(v:o)), found probing
test_variant_functions_of_paths_are_named_as_spark = _named_as_spark(
    "SELECT id, to_json(v:o), upper(to_json(v:o.y)), schema_of_variant(v:arr), is_variant_null(v:a), "
    "to_json(to_variant_object(named_struct('o', v:o, 'n', id))) FROM t WHERE id = 1"
)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT variant_get(v, '$.s', 'bigint') FROM t",
        "SELECT id FROM t WHERE v:a::bigint > 0 AND v:s::int = 3",
        "SELECT variant_get(v, '$.a', 'tinyint') FROM t",
    ],
)
def test_failed_cast_raises_like_spark(spark: SparkSession, con: vpush.Connection, sql: str) -> None:
    with pytest.raises(Exception) as spark_error:
        spark.sql(sql).collect()
    assert "INVALID_VARIANT_CAST" in str(spark_error.value)
    with pytest.raises(VpushError) as error:
        con.sql(sql).to_arrow()
    assert error.value.error_class == "INVALID_VARIANT_CAST"
    assert error.value.file is not None and error.value.file.endswith(".parquet")


def test_spark_engine_raises_sparks_error(spark_con: vpush.Connection) -> None:
    with pytest.raises(VpushError) as error:
        spark_con.sql("SELECT variant_get(v, '$.s', 'bigint') FROM t").to_arrow()
    assert error.value.error_class == "INVALID_VARIANT_CAST"
    assert ".parquet" in str(error.value), "the file is named"


def _part_inputs(rel: vpush.Relation) -> dict[str, set[str]]:
    """Per file name, the inputs its part reads."""
    out: dict[str, set[str]] = {}
    for scan in rel.plan.scans:
        for part in scan.parts:
            for f in part.files:
                out[Path(f.path).name] = {i.name for i in part.inputs}
    return out


def test_reads_only_the_leaves_it_needs(con: vpush.Connection) -> None:
    rel = con.sql("SELECT count(*) FROM t WHERE v:o.x::int = 5")
    inputs = _part_inputs(rel)
    # o.x has no residual in part-a (the footer proves its value all-null): the typed leaf alone.
    assert inputs["part-a.parquet"] == {"v.typed_value.o.typed_value.x.typed_value"}
    # Unshredded: the top-level value is all there is.
    assert inputs["part-c.parquet"] == {"v.value", "v.metadata"}
    # The variant column itself is not read whole.
    assert all(scan.columns == ("__vpush_rows",) for scan in rel.plan.scans)


@pytest.mark.parametrize("sql", JOINED)
def test_unqualified_extractions_over_a_join_are_read_as_qualified_ones(con: vpush.Connection, sql: str) -> None:
    """An unqualified extraction of the one source of a join with a column `v` reads the same
    leaves and row groups as the qualified form: no scan reads the variant column whole."""
    qualifier = "l." if " AS l " in sql else "t."
    unqualified, qualified = (con.sql(sql.format(q=q)).plan for q in ("", qualifier))
    assert any(scan.extraction_names for scan in unqualified.scans), "the extractions are the scan's columns"
    assert all("v" not in scan.columns for scan in unqualified.scans), "no variant read whole"
    assert [s.parts for s in unqualified.scans] == [s.parts for s in qualified.scans], "as the qualified form reads"
    assert [s.files for s in unqualified.scans] == [s.files for s in qualified.scans], "as the qualified form prunes"


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_unqualified_variant_of_two_joined_sources_is_ambiguous(
    spark: SparkSession, con: vpush.Connection, spark_con: vpush.Connection, engine: str
) -> None:
    """Both sources have `v`: Spark's AMBIGUOUS_REFERENCE, not a guess of one."""
    sql = "SELECT v:a::bigint AS a FROM t l JOIN t r ON l.id = r.id WHERE l.id < 3"
    with pytest.raises(Exception, match="AMBIGUOUS_REFERENCE"):
        spark.sql(sql).collect()
    connection = con if engine == "duckdb" else spark_con
    with pytest.raises(VpushError) as error:
        connection.sql(sql).to_arrow()
    assert error.value.error_class == "AMBIGUOUS_REFERENCE"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT v:o.x::int + length(v:s::string) FROM t",  # unaliased: vpush names the projection
        "SELECT v:o.x::int + v:a::int FROM t",  # a cast that may fail, computed where the query is
        "SELECT id FROM t ORDER BY v:o.x::int + v:a::bigint",
    ],
)
def test_two_extractions_in_one_expression_read_no_whole_variant(con: vpush.Connection, sql: str) -> None:
    """Each extraction of a projection is replaced in the query itself: the variant column is not
    read whole for the second one (an unaliased projection was named on a copy, which held it)."""
    assert all(scan.columns in (("__vpush_rows",), ("id",)) for scan in con.sql(sql).plan.scans)


def test_metadata_and_value_unread_where_the_footer_proves_value_all_null(con: vpush.Connection) -> None:
    rel = con.sql("SELECT id FROM t WHERE v:ts::timestamp >= TIMESTAMP '2024-01-01 00:00:00'")
    # ts is perfectly shredded in both row groups of part-a: neither its value nor the metadata is
    # an input there, and the extraction is a cast of the typed leaf.
    assert _part_inputs(rel)["part-a.parquet"] == {"v.typed_value.ts.typed_value"}


def test_residuals_in_one_row_group_are_read_there_only(tmp_path: Path) -> None:
    """A leaf with residuals in row group 1 only: row group 0 leaves its value and the metadata
    unread, row group 1 reads them, and the answer holds both."""
    select = (
        "SELECT i AS id, CASE WHEN i = 3000 THEN {'a': 'x' || i}::VARIANT ELSE {'a': i}::VARIANT END AS v "
        "FROM range(4096) t(i)"
    )
    write_with_duckdb(tmp_path / "t.parquet", select, "STRUCT(a BIGINT)", 2048)
    con = vpush.connect(time_zone="UTC")
    con.register("t", tmp_path)
    rel = con.sql("SELECT count(*) AS n, count(try_variant_get(v, '$.a', 'bigint')) AS typed FROM t")
    (file,) = [f for s in rel.plan.scans for p in s.parts for f in p.files]
    assert set(file.unread) == {0}
    assert {"v.typed_value.a.value", "v.metadata"} <= file.unread[0]
    assert rel.to_arrow().to_pylist() == [{"n": 4096, "typed": 4095}]


def test_prunes_row_groups_of_residual_free_leaves(con: vpush.Connection) -> None:
    rel = con.sql("SELECT id FROM t WHERE variant_get(v, '$.a', 'bigint') < 100")
    by_file = {Path(f.path).name: f for s in rel.plan.scans for f in s.files}
    # part-a: row group 1 holds a's INTEGER residuals, so only its statistics-clean row group 0
    # can be judged: it holds ids 0..2047 and is read; row group 1 has residuals and is read too.
    assert by_file["part-a.parquet"].row_groups == (0, 1)
    # Spark's file: row group 0 holds ids 4096..5119, whose typed a are all >= 100: skipped.
    # Spark's file: row group 0 (ids 4096..5119) holds string residuals of a, so it is read;
    # row group 1's residuals are all variant nulls ({"a": null}), which extract as NULL and
    # match no comparison: its typed bounds (5120..6143) rule it out.
    spark_b = next(f for name, f in by_file.items() if name.startswith("part-b"))
    assert spark_b.row_groups == (0,)


def test_expression_names_are_sparks(spark: SparkSession, con: vpush.Connection) -> None:
    sql = "SELECT count(v:a), max(v:o.x::int) + 1 FROM t"
    assert con.sql(sql).to_arrow().column_names == spark.sql(sql).columns


def test_sum_of_a_decimal_has_sparks_type(spark: SparkSession, con: vpush.Connection) -> None:
    sql = "SELECT sum(v:d::decimal(10,2)) AS total FROM t"
    assert str(con.sql(sql).to_arrow().schema.field("total").type) == "decimal128(20, 2)"
    assert spark.sql(sql).schema["total"].dataType.simpleString() == "decimal(20,2)"


def test_spark_engine_explains_what_spark_and_its_tasks_run(spark_con: vpush.Connection) -> None:
    text = spark_con.sql("SELECT count(*) FROM t WHERE v:a::bigint < 10").explain()
    assert "== SQL run by spark ==" in text and "`__vpush_scan_0`" in text
    assert "runs (DuckDB) ==" in text and "typed_value" in text
    assert "row groups read" in text


SPARK_ONLY = [
    "SELECT id, to_json(v) AS j, to_json(v:o) AS o FROM t WHERE id % 401 = 3",
    "SELECT id, is_variant_null(v:a) AS n, schema_of_variant(v:o) AS s FROM t WHERE id % 301 = 3",
    "SELECT schema_of_variant_agg(v:a) AS s FROM t",
    "SELECT id, e.pos, e.key, to_json(e.value) AS value FROM t, LATERAL variant_explode(v:o) AS e WHERE id % 211 = 1",
    "SELECT variant_get(parse_json(concat('{\"x\": ', id, '}')), '$.x', 'int') AS x FROM t WHERE id < 5",
]


@pytest.mark.parametrize("sql", SPARK_ONLY)
def test_spark_engine_runs_sparks_own_variant_functions(
    spark: SparkSession, spark_con: vpush.Connection, sql: str
) -> None:
    """Functions the DuckDB engine does not have yet run on the Spark engine, as Spark's own."""
    assert _rows(spark_con.sql(sql).to_arrow()) == _spark(spark, sql)
    assert spark_con.sql(sql).to_arrow().column_names == spark.sql(sql).columns


def test_duckdb_engine_runs_variant_explode_as_spark(spark: SparkSession, con: vpush.Connection) -> None:
    """variant_explode runs on the DuckDB engine too (more in tests/test_nested_targets.py)."""
    assert _rows(con.sql(SPARK_ONLY[3]).to_arrow()) == _spark(spark, SPARK_ONLY[3])
    assert con.sql(SPARK_ONLY[3]).to_arrow().column_names == spark.sql(SPARK_ONLY[3]).columns
