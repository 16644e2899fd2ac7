"""Queries over nested columns (structs in structs, arrays of structs, deep nesting) give Spark's
names, types, values and errors on the DuckDB engine, checked against PySpark.

The table holds what event data holds: a NULL struct, a NULL inner struct, NULL and empty arrays,
a NULL element, and a struct nested four levels deep.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest

from test_spark_functions import _check, _chunks

import vpush
from support.compare import assert_same_answer, spark_answer, vpush_answer
from support.tables import table_fixtures
from vpush.codec.errors import VpushError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_ITEM = pa.struct([("sku", pa.string()), ("qty", pa.int32()), ("price", pa.float64())])
_INNER = pa.struct([("c", pa.string()), ("d", pa.list_(pa.int32()))])
_DEEP = pa.struct([("l1", pa.struct([("l2", pa.struct([("l3", pa.struct([("x", pa.int32()), ("y", pa.list_(pa.string()))]))]))]))])

TABLE = pa.table(
    {
        "id": pa.array([1, 2, 3, 4, 5], pa.int32()),
        "s": pa.array([{"a": 1, "b": {"c": "x", "d": [1, 2]}}, {"a": 2, "b": None}, None,
                       {"a": None, "b": {"c": None, "d": []}}, {"a": 1, "b": {"c": "x", "d": [1, 2]}}],
                      pa.struct([("a", pa.int32()), ("b", _INNER)])),
        "arr": pa.array([[{"sku": "A", "qty": 2, "price": 1.5}, {"sku": "B", "qty": 1, "price": 10.0}], [], None,
                         [None, {"sku": "C", "qty": None, "price": 2.25}], [{"sku": "A", "qty": 5, "price": 1.5}]], pa.list_(_ITEM)),
        "deep": pa.array([{"l1": {"l2": {"l3": {"x": 7, "y": ["p", "q"]}}}}, {"l1": {"l2": None}}, None,
                          {"l1": None}, {"l1": {"l2": {"l3": {"x": 9, "y": []}}}}], _DEEP),
        "tags": pa.array([["a", "b"], [], None, ["c", None], ["a"]], pa.list_(pa.string())),
        "m": pa.array([[("k1", 1), ("k2", 2)], [], None, [("k1", None)], [("z", 9)]], pa.map_(pa.string(), pa.int32())),
    }
)

table_path, con, spark_con, spark_view = table_fixtures("nested", TABLE)

QUERIES = [
    # a field of a struct inside a struct read alone (three names and more): the struct column is
    # read from the file (it was left out of the scan, and DuckDB took `s.b` for a table)
    "SELECT s.b.c FROM t",
    "SELECT s.b.d[1] AS d FROM t WHERE id = 1",
    "SELECT id, deep.l1.l2.l3.x, deep.l1.l2.l3.y, deep.l1.l2 FROM t",
    "SELECT size(deep.l1.l2.l3.y) AS n, transform(deep.l1.l2.l3.y, x -> upper(x)) AS u FROM t",
    "SELECT explode(deep.l1.l2.l3.y) AS y FROM t",
    "SELECT explode(s.b.d) AS d FROM t",
    "SELECT id FROM t WHERE deep.l1.l2.l3.x > 8",
    "SELECT s.b.c, count(*) AS n FROM t GROUP BY s.b.c ORDER BY 1",
    "SELECT a.id, b.id AS other FROM t a JOIN t b ON a.s.b.c = b.s.b.c AND a.id < b.id",
    "SELECT t.s.b.c AS c FROM t",
    # the fields of a struct inside a struct: s.b.* as Spark's star expands it
    "SELECT s.b.* FROM t",
    "SELECT id, t.s.b.*, deep.l1.l2.* FROM t",
    # a field of a LATERAL VIEW's struct typed where it is aggregated (sum of an int is a bigint)
    "SELECT it.sku, sum(it.qty) AS q, typeof(sum(it.qty)) AS k FROM t LATERAL VIEW explode(arr) e AS it GROUP BY it.sku ORDER BY it.sku",
    # typeof of an arrays_zip of one name twice: only its type, which needs no DuckDB struct
    "SELECT typeof(arrays_zip(tags, tags)) AS t FROM t",
    # a struct's star inside struct(): its fields, named as Spark names the call (DuckDB takes no star in a call)
    "SELECT struct(s.*) FROM t",
    "SELECT struct(id, s.*) FROM t",
    "SELECT struct(s.b.*) AS r FROM t",
    # a LATERAL VIEW of what an earlier one generated (its type was unknown: refused)
    "SELECT id, it.sku, d FROM t LATERAL VIEW explode(arr) e AS it LATERAL VIEW explode(s.b.d) f AS d ORDER BY id, it.sku, d",
    "SELECT id, y FROM t LATERAL VIEW explode(array(deep.l1.l2.l3)) e AS k LATERAL VIEW OUTER explode(k.y) f AS y",
    "SELECT e.it.sku, count(*) AS n FROM t LATERAL VIEW explode(array(arr)) f AS a LATERAL VIEW explode(a) e AS it GROUP BY 1",
    # a string concatenated with a number in a lambda over an array's structs: typed a string
    "SELECT array_join(transform(arr, x -> x.sku || ':' || x.qty), ';') AS r, typeof(concat(s.b.c, id, 1.5)) AS k FROM t",
    # a join's condition rewritten as a WHERE is (it went to DuckDB as written: b.arr.sku raised
    # DuckDB's binder error, element_at answered DuckDB's way)
    "SELECT a.id, b.id AS bid FROM t a JOIN t b ON array_contains(b.arr.sku, a.arr[0].sku) AND a.id < b.id WHERE size(a.arr) > 0",
    "SELECT a.id FROM t a JOIN t b ON CAST(a.id AS STRING) = element_at(b.tags, 1)",
    "SELECT a.id, b.id AS bid FROM t a LEFT JOIN t b ON element_at(a.tags, -1) = try_element_at(b.tags, 2) ORDER BY 1, 2",
    "SELECT a.id FROM t a JOIN t b ON a.id = b.id + 2147483647",
    # an element's field as a window's key (DuckDB refused the error its index check raises as volatile there)
    "SELECT id, row_number() OVER (PARTITION BY element_at(arr, 1).sku ORDER BY id) AS r FROM t WHERE size(arr) > 0",
    "SELECT id, rank() OVER (ORDER BY arr[0].qty DESC) AS r, sum(id) OVER (PARTITION BY s.b.d[0]) AS w FROM t WHERE size(arr) > 0 AND size(s.b.d) > 0",
    "SELECT id, row_number() OVER (PARTITION BY arr[0].sku ORDER BY id) AS r FROM t",
    # an aggregate's argument evaluated only for the rows its FILTER keeps (an empty array's arr[0] raised)
    "SELECT max_by(arr[0].sku, id) FILTER (WHERE size(arr) > 0) AS r FROM t",
    "SELECT s.a, sum(arr[0].qty) FILTER (WHERE size(arr) > 0) AS q, count(element_at(arr, 1).sku) FILTER (WHERE size(arr) > 0) AS c, "
    "collect_list(arr[0].sku) FILTER (WHERE size(arr) > 0) AS l FROM t GROUP BY s.a",
    # not a DISTINCT one's: Spark's Expand evaluates it for every row
    "SELECT s.a, count(DISTINCT arr[0].sku) FILTER (WHERE size(arr) > 0) AS d FROM t GROUP BY s.a",
    "SELECT max_by(arr[0].sku, id) FILTER (WHERE id > 0) AS r FROM t",
    # a lambda's index variable as a struct's field (it was left unrenamed: UNRESOLVED_COLUMN)
    "SELECT transform(arr, (x, i) -> named_struct('pos', i, 'sku', x.sku)) AS r, transform(tags, (x, i) -> struct(i AS p, x)) AS q FROM t",
    "SELECT map_values(transform_values(m, (k, v) -> named_struct('k', k, 'v', v))) AS t, "
    "to_json(transform_values(m, (k, v) -> named_struct('k', k, 'v', v))) AS j FROM t",
    # a field read through an array Spark's analyzer refuses, and what Spark refuses of structs
    # and arrays: Spark's classes (DuckDB's binder errors had none)
    "SELECT arr.nope FROM t",
    "SELECT t.arr.nope FROM t",
    # a qualifier that names no source nor a column (DuckDB's binder: no class)
    "SELECT y.id FROM t", "SELECT id FROM t WHERE y.id > 1", "SELECT t.id FROM t AS x", "SELECT max(y.id) FROM t",
    "SELECT id FROM t GROUP BY id ORDER BY y.id", "SELECT x.id FROM t x WHERE x.id IN (SELECT z.id FROM t z)",
    "SELECT tags.x FROM t",
    "SELECT s.b.d.x FROM t",
    "SELECT s[0] FROM t",
    "SELECT sum(arr) FROM t",
    "SELECT s + 1 FROM t",
    "SELECT s + NULL FROM t",
    "SELECT arr.qty + arr.qty FROM t",
    "SELECT tags % tags FROM t",
    "SELECT s.b.d / 2 FROM t",
    "SELECT m - m FROM t",
    "SELECT avg(s) FROM t",
    # maps have no order in Spark: sorting, DISTINCT, set operations and max of one raise Spark's classes
    "SELECT m FROM t ORDER BY m",
    "SELECT id FROM t ORDER BY struct(m), id",
    "SELECT DISTINCT m FROM t",
    "SELECT DISTINCT struct(m) AS x FROM t",
    "SELECT m FROM t UNION SELECT m FROM t",
    "SELECT m FROM t INTERSECT SELECT m FROM t",
    "SELECT max(m) FROM t",
    "SELECT count(DISTINCT m) AS n, size(collect_list(m)) AS c FROM t",
    # a struct cast to a struct of another number of fields: Spark's analysis error
    "SELECT CAST(s AS STRUCT<a: STRING>) AS r FROM t",
    "SELECT CAST(arr AS ARRAY<STRUCT<sku: STRING, qty: BIGINT>>) AS r FROM t",
    # of the same field names (any case): cast field by field
    "SELECT CAST(s AS STRUCT<A: BIGINT, b: STRUCT<c: STRING, d: ARRAY<BIGINT>>>) AS r FROM t",
    # of other field names: Spark casts the fields by position (DuckDB by name: renamed first)
    "SELECT CAST(s AS STRUCT<x: BIGINT, y: STRUCT<c: STRING, d: ARRAY<BIGINT>>>) AS r FROM t",
    "SELECT CAST(arr AS ARRAY<STRUCT<k: STRING, q: INT, p: DOUBLE>>) AS r FROM t",
    "SELECT CAST(s AS STRUCT<b: STRING, a: STRUCT<c: STRING, d: ARRAY<STRING>>>) AS r FROM t",
    "SELECT to_json(CAST(s AS STRUCT<x: STRING, y: STRUCT<p: STRING, q: ARRAY<STRING>>>)) AS r FROM t",
    "SELECT CAST(s AS STRUCT<x: BIGINT, y: STRUCT<c: STRING, d: ARRAY<BIGINT>>>).y.c AS r FROM t",
    "SELECT try_cast(named_struct('a', id, 'b', 'x') AS STRUCT<b: INT, a: STRING>) AS r FROM t",
    "SELECT CAST(named_struct('a', id, 'b', CAST(NULL AS STRING)) AS STRUCT<b: STRING, a: INT>) AS r FROM t",
    "SELECT CAST(map('k', s) AS MAP<STRING, STRUCT<x: BIGINT, y: STRUCT<c: STRING, d: ARRAY<BIGINT>>>>)['k'] AS r FROM t",
    # each part cast by Spark's rules, not DuckDB's (a double 1.5 to an int is 1, '1.5' raises,
    # a double to a string 1.0E10, a timestamp's string without its zone, an int to a timestamp)
    "SELECT CAST(named_struct('d', id + 0.5D, 'e', 1e10D, 'w', 2.5) AS STRUCT<d: INT, e: STRING, w: INT>) AS r FROM t",
    "SELECT CAST(array(id + 0.5D, NULL) AS ARRAY<INT>) AS r, CAST(array(TIMESTAMP'2024-01-01 10:00:00') AS ARRAY<STRING>) AS q FROM t",
    "SELECT CAST(named_struct('t', id, 'b', ' true ') AS STRUCT<t: TIMESTAMP, b: BOOLEAN>) AS r FROM t",
    "SELECT CAST(array(CAST(id AS STRING) || '.5') AS ARRAY<INT>) AS r FROM t",
    "SELECT try_cast(array(CAST(id AS STRING) || '.5', '7') AS ARRAY<INT>) AS r FROM t",
    "SELECT CAST(map('a', id + 0.5D) AS MAP<STRING, INT>)['a'] AS r FROM t",
    "SELECT CAST(arr AS ARRAY<STRUCT<sku: STRING, qty: STRING, price: STRING>>) AS r FROM t",
    # a UNION takes structs of the same types by position, under the first branch's names
    # (DuckDB pairs fields by name); INTERSECT and EXCEPT, and other types, raise
    "SELECT s FROM t UNION ALL SELECT named_struct('x', s.a, 'y', s.b) FROM t",
    "SELECT s FROM t UNION SELECT named_struct('b', s.a, 'a', s.b) FROM t",
    "SELECT arr FROM t UNION ALL SELECT transform(arr, x -> named_struct('k', x.sku, 'q', x.qty, 'p', x.price)) FROM t",
    "SELECT r.a FROM (SELECT s AS r FROM t UNION ALL SELECT named_struct('x', s.a + 10, 'y', s.b) FROM t) WHERE r.a > 1",
    "SELECT s FROM t INTERSECT SELECT named_struct('x', s.a, 'y', s.b) FROM t",
    "SELECT s FROM t EXCEPT SELECT named_struct('b', s.a, 'a', s.b) FROM t",
    "SELECT named_struct('a', id) AS r FROM t UNION ALL SELECT named_struct('b', id + 0.5D) FROM t",
    # arrays, maps and structs of different types meeting in CASE, if, coalesce, nvl2, array(),
    # greatest/least and IN: each part cast as Spark's coercion casts it (a string element read
    # strictly as a bigint, a date or the other side's type; a struct's fields by position under
    # the first's names), where DuckDB kept strings, paired fields by name, or its binder refused
    "SELECT if(id = 1, array(id), array(CAST(id AS STRING))) AS r FROM t",
    "SELECT coalesce(s.b.d, tags) AS r, typeof(coalesce(s.b.d, tags)) AS k FROM t",
    "SELECT nvl2(s, s.b.d, tags) AS r FROM t",
    "SELECT if(true, array('1.5'), array(2)) AS r",
    "SELECT if(id > 0, array(2), array('1.5')) AS r FROM t",
    "SELECT CASE WHEN id = 1 THEN named_struct('a', id) ELSE named_struct('a', '2') END AS r FROM t",
    "SELECT CASE WHEN id = 1 THEN named_struct('a', id) ELSE named_struct('A', 2L) END AS r FROM t",
    "SELECT CASE WHEN id = 1 THEN array(date'2024-01-01') ELSE array(timestamp'2024-01-01 10:00:00') END AS r FROM t",
    "SELECT CASE WHEN id = 1 THEN array(date'2024-01-01') ELSE array('2024-02-03') END AS r FROM t",
    "SELECT CASE WHEN id = 1 THEN array(array(1)) ELSE array(array('2')) END AS r FROM t",
    "SELECT array(named_struct('a', id), named_struct('a', '2')) AS r FROM t",
    "SELECT array(array(date'2024-01-01'), array('2024-02-02')) AS r",
    "SELECT array(array(1), array('x')) AS r",
    "SELECT coalesce(s, named_struct('x', 1, 'y', s.b)) AS r FROM t",
    "SELECT array(named_struct('a', id, 'b', 'x'), named_struct('b', 'y', 'a', 2)) AS r FROM t",
    "SELECT CASE WHEN id = 1 THEN array(true) ELSE array(1) END AS r FROM t",
    "SELECT map('k', s.b.d, 'j', array(2.5D))['k'] AS r FROM t",
    # IN: the value and the list widened as one; structs of other names compared by position
    "SELECT id FROM t WHERE s.b.d IN (array('1', '2'))",
    "SELECT id FROM t WHERE named_struct('a', id, 'b', 'x') IN (named_struct('z', 1, 'b', 'x'))",
    "SELECT array(1) IN (array('x')) AS r",
    "SELECT id FROM t WHERE s IN (named_struct('x', 1, 'y', s.b), named_struct('a', 1.5D, 'b', s.b))",
    # greatest/least and orderings of arrays and structs of different types: compared as one
    # type, a NULL inside first as Spark orders them (DuckDB's cast left it last)
    "SELECT greatest(named_struct('a', s.a, 'b', id), named_struct('a', 2.5D, 'b', 0)) AS r, "
    "least(named_struct('a', s.a, 'b', id), named_struct('a', 2.5D, 'b', 0)) AS q FROM t",
    "SELECT greatest(named_struct('a', CAST(NULL AS INT)), named_struct('a', 2)) AS r",
    "SELECT greatest(s.b.d, array(1.5D), NULL) AS r FROM t",
    "SELECT greatest(m, m) AS r FROM t",
    "SELECT s.b.d > array(1.5D) AS r, s.b.d < array(1L, 2L, 3L) AS q FROM t",
    "SELECT array(CAST(NULL AS INT)) < array(1.5D) AS r",
    "SELECT named_struct('a', CAST(NULL AS INT), 'b', 'y') < named_struct('a', 2.0D, 'b', CAST(NULL AS STRING)) AS r",
    "SELECT array(date'2024-01-02') = array(timestamp'2024-01-02 00:00:00') AS r, "
    "array(date'2024-01-02') < array(timestamp'2024-01-02 00:00:01') AS q",
    "SELECT array(named_struct('a', 1)) = array(named_struct('a', 1.0D)) AS r",
    "SELECT s.b.d = '[1, 2]' AS r FROM t",
    "SELECT s = named_struct('a', 1) AS r FROM t",
    "SELECT nullif(s.b.d, tags) AS r FROM t",
    "SELECT array_contains(array(array(1)), array('1')) AS r",
    # a UNION of arrays, maps and structs Spark widens part by part (a string element beside a
    # number a bigint read strictly, beside a date the date), or refuses
    "SELECT s.b.d AS r FROM t UNION ALL SELECT array('7') FROM t",
    "SELECT array(1) AS r UNION ALL SELECT array('1.5')",
    "SELECT array(date'2024-01-01') AS r UNION ALL SELECT array('2024-01-05')",
    "SELECT array(timestamp'2024-01-01 10:00:00') AS r UNION ALL SELECT array('2024-01-05 01:02:03')",
    "SELECT named_struct('a', 1) AS r UNION ALL SELECT named_struct('a', '2')",
    "SELECT array(1) AS r INTERSECT SELECT array('1')",
    "SELECT r, count(*) AS n FROM (SELECT named_struct('a', id) AS r FROM t UNION ALL SELECT named_struct('a', CAST(id AS STRING)) FROM t) GROUP BY r",
    "SELECT DISTINCT r FROM (SELECT array(1) AS r UNION ALL SELECT array('1') UNION ALL SELECT array(1.0D))",
    "SELECT r['k1'] AS v FROM (SELECT m AS r FROM t UNION ALL SELECT map('k1', 2.5D))",
    "SELECT array(true) AS r UNION ALL SELECT array(1)",
    "SELECT map(1, 'a') AS r UNION ALL SELECT map('k', 'b')",
    "SELECT s.b.d AS r FROM t UNION ALL SELECT s FROM t",
    "SELECT tags AS r FROM t UNION ALL SELECT 'x'",
]


@pytest.mark.parametrize("sql", QUERIES)
def test_matches_spark(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_view, con)


@pytest.mark.parametrize(
    "sql",
    [
        # Spark casts a struct's fields by position, DuckDB matches them by name: a map of
        # structs, names DuckDB's structs cannot hold
        "SELECT CAST(named_struct('a', id, 'b', 'x') AS STRUCT<x: INT, X: STRING>) AS r FROM t",
        "SELECT CAST(s AS STRUCT<b: STRING, a: STRING>) AS r FROM t",
        # a table's star inside struct(): the typer keeps no column names as written
        "SELECT struct(*) AS r FROM (SELECT id, s, tags FROM t)",
        "SELECT id, struct(t.*).s.a AS a FROM t",
        # a GROUP BY of a map (Spark 4.3 groups them, and its groups of maps with NULL values
        # were measured to differ from DuckDB's)
        "SELECT size(m) AS n, count(*) AS c FROM t GROUP BY m",
    ],
)
def test_refused_on_duckdb_and_run_on_spark(sql: str, spark_view: SparkSession, con: vpush.Connection,
                                            spark_con: vpush.Connection) -> None:
    with pytest.raises(VpushError) as error:
        con.sql(sql).to_arrow()
    assert error.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"
    assert_same_answer(sql, spark_view, spark_con)


@pytest.mark.parametrize("sql", [
    "SELECT CAST(map(id, s) AS MAP<STRING, STRUCT<x: BIGINT, y: STRUCT<c: STRING, d: ARRAY<BIGINT>>>>) AS r FROM t",
    "SELECT CAST(s AS STRUCT<b: STRING, a: STRUCT<d: ARRAY<STRING>, c: STRING>>) AS r FROM t",
])
def test_struct_casts_refused_on_duckdb(sql: str, con: vpush.Connection) -> None:
    """A map's keys cast to another type, and a field cast to another kind (here one Spark's
    analysis refuses): refused rather than answered by DuckDB's cast."""
    with pytest.raises(VpushError) as error:
        con.sql(sql).to_arrow()
    assert error.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"


_COERCED = "(SELECT array(1) AS r, id FROM t UNION ALL SELECT array('1.5'), 9)"
_ONE = "(SELECT array(1) AS r UNION ALL SELECT array('1.5'))"
# the coercion's cast in a branch of a row's columns: computed only where a row reaches it
_COLUMN = "(SELECT array(1) AS r, id FROM t UNION ALL SELECT tags, id FROM t)"
_FIRST = "(SELECT array('1.5') AS r, 9 AS id UNION ALL SELECT array(1), id FROM t)"
_STRUCT = "(SELECT named_struct('a', 1) AS r, id FROM t UNION ALL SELECT named_struct('a', '1.5'), 9)"
_MAP = "(SELECT map('k', 1) AS r, id FROM t UNION ALL SELECT map('k', '1.5'), 9)"
_DOUBLE = "(SELECT CAST(1.5 AS DECIMAL(3,1)) AS r, id FROM t UNION ALL SELECT 'x', 9)"

# Spark's optimizer (PySpark 4.3) drops a UNION ALL's column nothing reads, and one that only
# typeof reads, before computing it; but a branch computed from constants only is folded first
# (the coercion's cast of '1.5' to a bigint raises as Spark plans the query) unless typeof stands
# in a projection right over the union, or in a WHERE (both pushed into the branches, where
# typeof folds whole). SELECT * subqueries and CTEs do not count (optimizer/prune_union_columns.py).
UNION_COERCIONS = [
    f"SELECT typeof(r) AS k FROM {_ONE}",
    f"SELECT count(*) AS n FROM {_ONE}",
    f"SELECT 1 AS one FROM {_ONE}",
    f"SELECT id, typeof(r) AS k FROM {_COERCED} ORDER BY id DESC LIMIT 2",
    f"SELECT count(*) AS n FROM {_COERCED} WHERE id > 3",
    f"SELECT count(*) AS n FROM {_COERCED} x JOIN t USING (id)",
    f"WITH u AS {_COERCED} SELECT max(id) AS m FROM u GROUP BY id",
    f"SELECT count(*) AS n FROM {_COERCED} WHERE typeof(r) = 'array<bigint>'",
    f"SELECT DISTINCT id, typeof(r) AS k FROM {_COERCED}",
    f"SELECT id, typeof(r) AS k, row_number() OVER (ORDER BY id) AS n FROM {_COERCED}",
    f"SELECT id, typeof(r) AS k FROM {_COERCED} LIMIT 0",
    f"SELECT id, typeof(r) AS k FROM {_COERCED} QUALIFY row_number() OVER (ORDER BY id) < 3",
    f"SELECT x.id FROM {_COERCED} x JOIN t u ON typeof(x.r) = 'x'",
    f"SELECT x.id, typeof(r) AS k FROM {_COERCED} x JOIN t u ON false",
    f"SELECT count(*) AS n FROM (SELECT id, typeof(r) AS k FROM {_COERCED} WHERE id > 3) HAVING false",
    f"SELECT id FROM (SELECT id, typeof(r) AS k FROM {_COERCED} WHERE id > 3)",
    f"WITH u AS {_COERCED} SELECT id, typeof(r) AS k FROM u",
    f"WITH u AS {_COERCED} SELECT a.id FROM u a JOIN u b ON a.id = b.id",
    # through SELECT * (and a SELECT of the union's columns in order), which Spark removes
    f"SELECT typeof(r) AS k FROM (SELECT * FROM {_ONE})",
    f"SELECT typeof(r) AS k FROM (SELECT * FROM (SELECT * FROM {_ONE}))",
    f"WITH u AS (SELECT * FROM {_ONE}) SELECT typeof(r) AS k FROM u",
    f"WITH u AS {_ONE} SELECT typeof(r) AS k FROM (SELECT * FROM u)",
    f"SELECT count(*) AS n FROM (SELECT * FROM {_COERCED})",
    f"SELECT 1 AS one FROM (SELECT * FROM {_ONE})",
    f"SELECT typeof(r) AS k FROM (SELECT r FROM {_ONE})",
    f"SELECT typeof(r) AS k FROM (SELECT r, id FROM {_COERCED})",
    f"SELECT count(*) AS n FROM (SELECT id, r FROM {_COERCED})",
    f"SELECT count(*) AS n FROM (SELECT r FROM {_COERCED})",
    f"SELECT (SELECT count(*) FROM (SELECT * FROM {_ONE})) AS n",
    f"SELECT typeof(r) AS k FROM (SELECT * FROM {_FIRST})",
    f"SELECT typeof(r) AS k FROM (SELECT * FROM {_STRUCT})",
    f"SELECT typeof(r) AS k FROM (SELECT * FROM {_MAP})",
    f"SELECT typeof(r) AS k FROM (SELECT * FROM {_DOUBLE})",
    # a branch of a row's columns is never computed where only typeof reads it
    f"SELECT id, typeof(r) AS k FROM {_COLUMN} WHERE id > 3",
    f"SELECT typeof(r) AS k, count(*) AS n FROM {_COLUMN} GROUP BY 1",
    f"SELECT typeof(r) AS k FROM (SELECT * FROM {_COLUMN})",
    f"SELECT size(r) AS n FROM {_COLUMN}",
    # where it is read, deduplicated or intersected, Spark computes it and raises; so where typeof
    # reads it under a WHERE, a GROUP BY, an aggregate, a join or an ORDER BY, beside other
    # columns or not, whatever rows the filters keep (a constant branch is folded first)
    f"SELECT typeof(r) AS k FROM {_COERCED} WHERE id > 3",
    f"SELECT id, typeof(r) AS k FROM {_COERCED} WHERE id > 3",
    f"SELECT id, typeof(r) AS k FROM {_COERCED} WHERE id > 100",
    f"SELECT id, typeof(r) AS k FROM {_COERCED} WHERE false",
    f"SELECT typeof(r) AS k FROM {_COERCED} GROUP BY 1 HAVING false",
    f"SELECT typeof(r) AS k, count(*) AS n FROM {_COERCED} GROUP BY 1",
    f"SELECT max(typeof(r)) AS k FROM {_COERCED}",
    f"SELECT id FROM {_COERCED} ORDER BY typeof(r), id",
    f"SELECT id, typeof(r) AS k FROM {_COERCED} x JOIN t USING (id)",
    f"SELECT k FROM (SELECT typeof(r) AS k, id FROM {_COERCED} WHERE id > 3)",
    f"SELECT * FROM (SELECT id, typeof(r) AS k FROM {_COERCED} WHERE id > 3) WHERE false",
    f"SELECT * FROM (SELECT * FROM (SELECT id, typeof(r) AS k FROM {_COERCED} WHERE id > 3) WHERE 1 = 0) WHERE id > 1",
    f"SELECT x.id, typeof(r) AS k FROM {_COERCED} x JOIN t u ON 1 = 0 AND x.id = u.id",
    f"WITH u AS {_COERCED} SELECT id, typeof(r) AS k FROM u WHERE id > 3",
    f"WITH u AS {_COERCED} SELECT a.id, typeof(b.r) AS k FROM u a JOIN u b ON a.id = b.id",
    f"SELECT typeof(r) AS k FROM (SELECT * FROM {_COERCED}) WHERE id > 3",
    f"SELECT typeof(r) AS k FROM (SELECT * FROM {_COERCED}) x JOIN t USING (id)",
    f"SELECT typeof(r) AS k FROM (SELECT id, r FROM {_COERCED})",
    f"SELECT typeof(r) AS k FROM (SELECT r FROM {_COERCED})",
    f"SELECT typeof(x) AS k FROM (SELECT r AS x FROM {_ONE})",
    f"SELECT id, typeof(r) AS k FROM {_FIRST} WHERE id > 3",
    "SELECT id, typeof(r) AS k FROM (SELECT array(1) AS r, id FROM t UNION ALL SELECT array('1.5'), id FROM t WHERE id > 100) WHERE id > 3",
    f"SELECT id, typeof(r) AS k FROM {_STRUCT} WHERE id > 3",
    f"SELECT id, typeof(r) AS k FROM {_MAP} WHERE id > 3",
    f"SELECT id, typeof(r) AS k FROM {_DOUBLE} WHERE id > 3",
    f"SELECT r FROM {_ONE}",
    f"SELECT * FROM {_COERCED}",
    "SELECT count(*) AS n FROM (SELECT array(1) AS r UNION SELECT array('1.5'))",
    "SELECT count(*) AS n FROM (SELECT array(1) AS r INTERSECT ALL SELECT array('1.5'))",
]
_UNION_ANSWERS: dict[str, tuple[Any, ...]] = {}


@pytest.mark.parametrize("sql", UNION_COERCIONS)
def test_union_coercion_unread_is_not_evaluated(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    """On the DuckDB engine (``optimizer/prune_union_columns.py``)."""
    assert_same_answer(sql, spark_view, con, _UNION_ANSWERS)


@pytest.mark.parametrize("sql", [
    f"SELECT typeof(r) AS k FROM (SELECT * FROM {_ONE})",
    f"SELECT id, typeof(r) AS k FROM {_COERCED} WHERE id > 3",
    f"SELECT id, typeof(r) AS k FROM {_COERCED} WHERE false",
    f"SELECT count(*) AS n FROM (SELECT r FROM {_COERCED})",
    f"SELECT typeof(r) AS k, count(*) AS n FROM {_COLUMN} GROUP BY 1",
    f"WITH u AS {_COERCED} SELECT a.id, typeof(b.r) AS k FROM u a JOIN u b ON a.id = b.id",
])
def test_union_coercion_unread_on_spark_engine(sql: str, spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_view, spark_con, _UNION_ANSWERS)


# A map's bigint or decimal keys cast to doubles by a coercion (coalesce, if, CASE, nvl, array(),
# UNION ALL, map_concat, inside arrays, structs and map values): each key by Spark's cast (a
# decimal's exact double), each value as its own type's cast. Spark keeps two keys the cast makes
# equal (9007199254740993L and 9007199254740992L: both entries, size 2, a lookup finding the
# first, measured), which a DuckDB map cannot hold: refused as the query meets them (below).
MAP_KEY_COERCIONS = [
    "SELECT coalesce(map(1L, 'a'), map(1.5D, 'b')) AS r, typeof(coalesce(map(1L, 'a'), map(1.5D, 'b'))) AS k, "
    "coalesce(map(1L, 'a'), map(1.5D, 'b'))[1] AS v, nvl(map(1L, 'a'), map(1.5D, 'b')) AS n FROM t",
    "SELECT if(id > 2, map(CAST(id AS BIGINT), 'a'), map(1.5D, 'b')) AS r, "
    "if(id > 2, map(CAST(id AS BIGINT) * 1000000000000L, 'a'), map(1.5D, 'b'))[3.0E12D] AS v FROM t",
    "SELECT CASE WHEN id = 1 THEN map(1L, 'x') ELSE map(2.5D, 'y') END AS r, coalesce(map(1L, 'a'), map(CAST(1.5 AS FLOAT), 'b')) AS f FROM t",
    "SELECT array(map(1L, 'a'), map(1.5D, 'b')) AS r, typeof(array(map(1L, 'a'), map(1.5D, 'b'))) AS k FROM t",
    "SELECT coalesce(named_struct('m', map(1L, 'a')), named_struct('m', map(1.5D, 'b'))) AS s, "
    "coalesce(array(map(2L, 'a')), array(map(1.5D, 'b'))) AS a FROM t",
    "SELECT coalesce(map(1L, map(2L, 'a')), map(1.5D, map(2.5D, 'b'))) AS r, coalesce(map('k', map(2L, 'a')), map('k', map(2.5D, 'b'))) AS q FROM t",
    "SELECT map_concat(map(1L, 'a'), map(1.5D, 'b')) AS r, typeof(map_concat(map(1L, 'a'), map(1.5D, 'b'))) AS k, "
    "to_json(coalesce(map(1L, 'a'), map(1.5D, 'b'))) AS j FROM t",
    "SELECT map_concat(map(9007199254740993L, 'a'), map(9007199254740992.0D, 'b')) AS r FROM t",
    "SELECT m, typeof(m) AS k FROM (SELECT map(1L, 'a') AS m UNION ALL SELECT map(1.5D, 'b'))",
    "SELECT m FROM (SELECT map(CAST(id AS BIGINT), 'a') AS m FROM t UNION ALL SELECT map(1.5D, 'c'))",
    # Spark raises for an order of values holding maps (DuckDB compared them as lists)
    "SELECT greatest(array(map(1L, 'a')), array(map(1.5D, 'b'))) AS r FROM t",
    "SELECT greatest(array(map(1, 'a')), array(map(2, 'b'))) AS r FROM t",
    "SELECT least(named_struct('m', map(1L, 'a')), named_struct('m', map(1.5D, 'b'))) AS r FROM t",
    "SELECT map(1L, 'a') IN (map(1.5D, 'b')) AS r FROM t",
    "SELECT map(1L, 'a') IN (map(2L, 'b')) AS r FROM t",
]


@pytest.mark.parametrize("sql", MAP_KEY_COERCIONS)
def test_map_key_coercions_duckdb(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_view, con)


def test_map_key_coercions_spark_engine(spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    for sql in MAP_KEY_COERCIONS[::4]:
        assert_same_answer(sql, spark_view, spark_con)


def test_map_key_coercions_of_decimal_columns(spark: SparkSession, tmp_path: Any) -> None:
    """Decimal keys read from a file, cast to doubles as Spark's cast rounds them (0.10 as 0.1)."""
    from decimal import Decimal

    import pyarrow.parquet as pq

    table = pa.table({"id": pa.array([1, 2, 3], pa.int32()), "dm": pa.array(
        [[(Decimal("0.10"), "a")], [(Decimal("12345678901234567.12"), "b"), (Decimal("0.30"), "c")], None],
        pa.map_(pa.decimal128(20, 2), pa.string()))})
    (tmp_path / "u").mkdir()
    pq.write_table(table, tmp_path / "u" / "part-0.parquet")
    spark.read.parquet(str(tmp_path / "u")).createOrReplaceTempView("u")
    connection = vpush.connect(time_zone="UTC")
    connection.register("u", tmp_path / "u")
    for sql in ["SELECT id, coalesce(dm, map(1.5D, 'z')) AS m, map_keys(if(id > 0, dm, map(1.5D, 'z'))) AS k FROM u",
                "SELECT id, map_concat(dm, map(2.5D, 'q')) AS m FROM u",
                "SELECT m FROM (SELECT dm AS m FROM u UNION ALL SELECT map(1.5D, 'z'))"]:
        assert_same_answer(sql, spark, connection)


@pytest.mark.parametrize("sql", [
    "SELECT r[9007199254740992D] AS v FROM (SELECT map(9007199254740993L, 'a', 9007199254740992L, 'b') AS r UNION ALL SELECT map(2.5D, 'c'))",
    "SELECT if(id = 1, map(9007199254740993L, 'a', 9007199254740992L, 'b'), map(1.5D, 'a'))[9007199254740992D] AS r FROM t",
    "SELECT size(coalesce(map(9007199254740993L, 'a', 9007199254740992L, 'b'), map(1.5D, 'c'))) AS r FROM t",
    "SELECT array(map(9007199254740993L, 'a', 9007199254740992L, 'b'), map(1.5D, 'c')) AS r FROM t",
    # whether Spark gives a -0.0 key as 0.0 depends on how it builds the map there
    "SELECT map_keys(map(-0.0D, (SELECT 1))) AS r FROM t",
])
def test_nested_coercions_refused_on_duckdb_and_run_on_spark(sql: str, spark_view: SparkSession, con: vpush.Connection,
                                                            spark_con: vpush.Connection) -> None:
    """Two bigint keys of one map a coercion's cast to doubles makes equal: refused on DuckDB as the
    query meets them (Spark keeps both entries, which a DuckDB map cannot hold)."""
    with pytest.raises(VpushError) as error:
        con.sql(sql).to_arrow()
    assert error.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"
    assert_same_answer(sql, spark_view, spark_con)


def test_arrays_zip_of_one_name_twice_is_refused(con: vpush.Connection) -> None:
    """``arrays_zip(tags, tags)``: Spark's struct has two fields named ``tags``, which a DuckDB
    struct cannot hold (it raised DuckDB's binder error)."""
    with pytest.raises(VpushError) as error:
        con.sql("SELECT arrays_zip(tags, tags) AS z FROM t").to_arrow()
    assert error.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"


SPARK_WRITTEN = """
SELECT id, named_struct('ts', timestamp'2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, CAST(id AS INT), 0, 0), 'n', id) AS ctx,
  array(named_struct('t', timestamp'1969-12-31 23:59:59.999999'), named_struct('t', CAST(NULL AS timestamp))) AS evs,
  map('a', timestamp'2024-05-01 10:00:00') AS mt, array(timestamp'2000-01-01 00:00:00') AS ta
FROM range(3)
"""


@pytest.fixture(scope="module")
def int96_tables(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> tuple[SparkSession, vpush.Connection]:
    """A table Spark wrote with its defaults: the timestamps inside structs, arrays and maps are
    INT96, as top-level ones are."""
    folder = tmp_path_factory.mktemp("nested_int96") / "w"
    spark.sql(SPARK_WRITTEN).coalesce(1).write.parquet(str(folder))
    spark.read.parquet(str(folder)).createOrReplaceTempView("w")
    connection = vpush.connect(time_zone="UTC")
    connection.register("w", folder)
    return spark, connection


@pytest.mark.parametrize(
    "sql",
    [
        # read as Spark reads them: timestamps (instants), not timestamp_ntz
        "SELECT id, ctx, evs, ta FROM w ORDER BY id",
        "SELECT typeof(ctx) AS a, typeof(evs) AS b, typeof(mt) AS c, typeof(ta) AS d, to_json(ctx) AS j FROM w",
        "SELECT ctx.ts, evs.t, hour(ctx.ts) AS h, mt['a'] AS m, CAST(ctx AS STRING) AS s FROM w",
    ],
)
def test_nested_int96_timestamps_as_spark_reads_them(sql: str, int96_tables: tuple[SparkSession, vpush.Connection]) -> None:
    assert_same_answer(sql, *int96_tables)


# The array functions over elements of different types (nested ones too): each argument is cast
# to Spark's common type by Spark's own cast before DuckDB's function runs (its tightest common
# type for array_position, array_remove, array_append, array_prepend, array_insert and the set
# functions, decimals that differ having none; its wider type for array_contains; with strings
# read as numbers or dates for concat, || and array()); a float's -0.0 inside a nested element of
# the set functions' answer is 0.0 as Spark normalizes it. Spark raises where it finds no type.
_WITH_VALUE = [  # an array of some elements, and a value of another type
    ('array(array(1))', 'array(1.0D)'),
    ('array(array(1), NULL)', 'array(1L)'),
    ('array(array(1, NULL), array(2))', 'array(1.0D, NULL)'),
    ("array(named_struct('a', 1))", "named_struct('a', 1.0D)"),
    ("array(named_struct('a', 1, 'b', 'x'), NULL)", "named_struct('a', 1L, 'b', 'x')"),
    ("array(named_struct('a', 1))", "named_struct('b', 1L)"),
    ('array(array(1.50BD))', 'array(2.5BD)'),
    ('array(array(1))', 'array(2.5BD)'),
    ("array(array(date'2024-01-01'))", "array(timestamp'2024-01-01 00:00:00')"),
    ("array(array(timestamp'2024-01-01 00:00:00'))", "array(date'2024-01-01')"),
    ("array(array('a'))", 'array(1)'),
    ('array(array(1))', "array('1')"),
    ('array(array(1.5F))', 'array(1.5D)'),
    ("array(map(1, 'a'))", "map(1L, 'a')"),
    ("array(named_struct('a', array(1)))", "named_struct('a', array(1.0D))"),
    ('array(array(CAST(NULL AS INT)))', 'array(CAST(NULL AS DOUBLE))'),
    ('array(s.b.d)', 'array(1L, 2L)'),
    ("transform(arr, x -> named_struct('q', x.qty))", "named_struct('q', 5L)"),
    ('array(s.b.d, NULL)', 'array(1.0D, 2.0D)'),
    ('CAST(array() AS array<array<int>>)', 'array(1.0D)'),
]
_TWO_ARRAYS = [  # two arrays of elements of different types
    ('array(array(1))', 'array(array(1.0D))'),
    ('array(array(1), NULL)', 'array(array(1L), array(2L))'),
    ('array(array(1, NULL), array(2))', 'array(array(1.0D, NULL), array(3.5D))'),
    ("array(named_struct('a', 1))", "array(named_struct('a', 1.0D), named_struct('a', 2.5D))"),
    ("array(named_struct('a', 1, 'b', 'x'), NULL)", "array(named_struct('a', 1L, 'b', 'x'), NULL)"),
    ("array(named_struct('a', 1))", "array(named_struct('b', 1L))"),
    ('array(array(1.50BD))', 'array(array(2.5BD), array(1.5BD))'),
    ('array(array(1))', 'array(array(2.5BD))'),
    ("array(array(date'2024-01-01'))", "array(array(timestamp'2024-01-01 00:00:00'))"),
    ("array(array('a'))", 'array(array(1))'),
    ('array(array(1.5F))', 'array(array(1.5D))'),
    ("array(map(1, 'a'))", "array(map(1L, 'a'))"),
    ('array(s.b.d)', 'array(array(1L, 2L))'),
    ('array(s.b.d)', 'array(array(1.0D, 2.0D), NULL)'),
    ("transform(arr, x -> named_struct('q', x.qty))", "array(named_struct('q', 5L), named_struct('q', 2L))"),
    ('CAST(array() AS array<array<int>>)', 'array(array(1.0D))'),
    ('array(array(1))', 'CAST(array() AS array<array<double>>)'),
    ("array(named_struct('a', array(1)))", "array(named_struct('a', array(1.0D)))"),
]
_FLAT_ARRAYS = [  # concatenated
    ('array(1)', 'array(1.5D)'),
    ('array(1, NULL)', "array('a')"),
    ('array(1)', "array('2')"),
    ('array(1)', 'array(2.5BD)'),
    ("array(date'2024-01-01')", "array(timestamp'2024-01-01 10:00:00')"),
    ("array(date'2024-01-01')", "array('2024-02-01')"),
    ('s.b.d', 'tags'),
    ('s.b.d', 'array(1.5D)'),
    ('array(1.5F)', 'array(1.5D)'),
    ('array(true)', 'array(1)'),
]
COERCED_CALLS = (
    [f"{f}({a}, {v})" for a, v in _WITH_VALUE for f in ("array_contains", "array_position", "array_remove", "array_append", "array_prepend")]
    + [f"array_insert({a}, 2, {v})" for a, v in _WITH_VALUE]
    + [f"{f}({a}, {b})" for a, b in _TWO_ARRAYS for f in ("array_union", "array_intersect", "array_except", "arrays_overlap", "concat")]
    + [f"flatten(array({a}, {b}))" for a, b in _TWO_ARRAYS]
    + [c for a, b in _FLAT_ARRAYS for c in (f"concat({a}, {b})", f"{a} || {b}", f"flatten(array({a}, {b}))")]
    + [
        'concat(array(1), array(1.5D), array(2L))',
        'concat(array(array(1)), array(array(1.5D)), array(array(2L)))',
        "if(id = 1, map(1, 'a'), map(2L, 'b'))[2]",
        "map(1L, 'a')[id]",
        "map_contains_key(map(1L, 'a'), id)",
        'array_contains(array(array(1, NULL)), array(1, NULL))',
        'array_position(array(array(1, NULL)), array(1, NULL))',
        "array_contains(array(named_struct('a', CAST(NULL AS INT))), named_struct('a', CAST(NULL AS DOUBLE)))",
        "array_position(array(named_struct('a', CAST(NULL AS INT)), named_struct('a', 2)), named_struct('a', 2.0D))",
        'array_union(array(array(1, NULL)), array(array(1.0D, NULL)))',
        'array_contains(array(s.b.d), array(1.0D, 2.0D))',
        "array_append(arr, named_struct('sku', 'Z', 'qty', 1L, 'price', 2))",
        'array_append(s.b.d, 1.5D)',
        'array_insert(s.b.d, 1, 2.5D)',
        'array_insert(s.b.d, -1, 7L)',
        'array_position(s.b.d, 2.0D)',
        'array_remove(s.b.d, 2.0D)',
        'array_contains(s.b.d, 2.0D)',
        'array_contains(s.b.d, 2.5BD)',
        'array_contains(array(1.5BD), 1.50BD)',
        'array_position(array(1.5BD, 2.25BD), 2.25BD)',
        "array_union(array(date'2024-01-01'), array(timestamp'2024-01-01 00:00:00'))",
        "array_contains(array(date'2024-01-01'), timestamp'2024-01-01 00:00:00')",
        'arrays_overlap(array(array(1, NULL), NULL), array(array(1, NULL)))',
        'arrays_overlap(array(array(2)), array(array(1), NULL))',
        "array_union(array(array(-0.0D), array(0.0D), NULL, NULL), array(array(double('NaN')), array(double('NaN'))))",
        "array_intersect(array(named_struct('a', CAST(NULL AS INT))), array(named_struct('a', CAST(NULL AS INT)), NULL))",
        'array_except(array(array(1), NULL, array(1)), array(array(2)))',
        'array_position(array(array(-0.0D)), array(0.0D))',
        "array_remove(array(array(double('NaN')), NULL, array(1.0D)), array(double('NaN')))",
        "array_union(array(named_struct('a', 1, 'b', array(-0.0D))), array(named_struct('a', 1, 'b', array(0.0D))))",
        "array_intersect(array(array(double('NaN'), NULL)), array(array(double('NaN'), NULL)))",
        'array_union(array(s.b.d), array(s.b.d, NULL))',
        "array_except(transform(arr, x -> named_struct('q', x.qty)), array(named_struct('q', 2)))",
        "array_position(transform(arr, x -> named_struct('q', x.qty)), named_struct('q', CAST(NULL AS INT)))",
        'array_contains(array(array(-0.0D)), array(0.0D))',
        'arrays_overlap(array(array(-0.0D)), array(array(0.0F)))',
        "array_union(array(array(date'2024-01-01')), array(array(timestamp'2024-01-01 00:00:00'), NULL))",
        "array_except(array(date'2024-01-01', date'2024-01-02'), array(timestamp'2024-01-01 00:00:00'))",
        "array_position(array(date'2024-01-01'), timestamp'2024-01-01 00:00:00')",
        'array_prepend(s.b.d, 2.5D)',
        'array_insert(array(array(1)), 5, array(2.5D))',
        "array_insert(array(named_struct('a', 1)), -3, named_struct('a', 2.5D))",
        "concat(array(named_struct('a', 1)), array(named_struct('A', 1.5D)))",
        "concat(array(named_struct('a', 1, 'b', '2')), array(named_struct('a', 1.5D, 'b', 3)))",
        "concat(array(array(1)), array(array('2')), array(array(3.5D)))",
        "s.b.d || array('7')",
        'concat(CAST(array() AS array<int>), array(1.5D))',
        "concat(array(timestamp'2024-01-01 10:00:00'), array('2024-01-05 01:02:03'))",
        "concat(array(map('a', 1)), array(map('b', 1.5D)))",
        "flatten(array(array(named_struct('a', 1)), array(named_struct('a', 2.5D))))",
        'array_contains(concat(s.b.d, array(1.5D)), 1.5D)',
        'array_union(array(array(1)), array(array(1.5D)))[0]',
        "transform(array_union(array(named_struct('a', 1)), array(named_struct('a', 2.5D))), x -> x.a)",
        "array_contains(array(array('a')), array(CAST(NULL AS STRING)))",
        'array_position(array(array(1)), NULL)',
        'array_append(array(array(1)), NULL)',
        # maps looked up by a key of another type: m[k] casts the key to the map's key type, element_at and
        # map_contains_key the map's keys to the key's
        "map(1, 'a')[1L]",
        "map(1, 'a')[1.0D]",
        "element_at(map(1, 'a'), 1L)",
        "map_contains_key(map(1, 'a'), 1L)",
        "map(1, 'a', 2, 'b')[CAST(id AS BIGINT)]",
        "element_at(map(1, 'a', 2, 'b'), 2.0D)",
        "map_contains_key(map(1, 'a'), 1.0D)",
        "map(1, 'a')[1.5D]",
        "try_element_at(map(1, 'a'), 1L)",
        "map(CAST(1 AS SMALLINT), 'a')[1L]",
        "map(0, 'z')[-0.0D]",
        "map(1, 'a')[CAST(NULL AS BIGINT)]",
        "map_contains_key(map(1, 'a'), 3000000000L)",
        "element_at(map(1, 'a'), 1.9D)",
        "map_contains_key(map(1, 'a'), 1.5D)",
        "try_element_at(map(1, 'a'), 3000000000L)",
        "map(1, 'a')[1.5BD]",
        "map(1, 'a')['1']",
        # maps concatenated: their values cast to Spark's common type (integer keys widened)
        'map_concat(map(1, array(1)), map(2, array(1.5D)))',
        "map_concat(map('a', 1), map('b', 1.5D))",
        "map_concat(map(1, 'a'), map(2L, 'b'))",
        "map_concat(map('a', named_struct('x', 1)), map('b', named_struct('x', 2.5D)))",
        "map_concat(m, map('k9', 2.5D))",
        "map_concat(m, map('k9', 1L))",
        'array_remove(array(array(-0.0D), array(1.0D)), array(1.0D))',
        'array_intersect(array(array(-0.0D)), array(array(0.0D)))',
        'array_except(array(array(-0.0D), NULL), array(array(1.0D)))',
        'array_append(array(array(-0.0D)), array(1.0D))',
        'array_union(array(array(-0.0F)), array(array(1.0D)))',
        "array_except(array(named_struct('a', -0.0D)), array(named_struct('a', 1)))",
    ]
)
# Spark's analysis (or its strict cast of a string element) raises for these
COERCED_RAISING = {
    "map(1, 'a')[double('NaN')]": 'CAST_OVERFLOW',
    "map(1, 'a')[3000000000L]": 'CAST_OVERFLOW',
    "map(CAST(1 AS SMALLINT), 'a')[70000]": 'CAST_OVERFLOW',
    "map_concat(m, map('k1', 1L))": 'DUPLICATED_MAP_KEY',
    "map_concat(map('a', 1), map('b', 'x'))": 'CAST_INVALID_INPUT',
    "map_concat(map('a', array(1)), map('b', array('x')))": 'CAST_INVALID_INPUT',
    "map_concat(m, map('z', CAST(NULL AS BIGINT)))": 'DUPLICATED_MAP_KEY',
    "array_contains(array(named_struct('a', 1)), named_struct('b', 1L))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_position(array(named_struct('a', 1)), named_struct('b', 1L))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_remove(array(named_struct('a', 1)), named_struct('b', 1L))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_append(array(named_struct('a', 1)), named_struct('b', 1L))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_prepend(array(named_struct('a', 1)), named_struct('b', 1L))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_insert(array(named_struct('a', 1)), 2, named_struct('b', 1L))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_position(array(array(1.50BD)), array(2.5BD))': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_remove(array(array(1.50BD)), array(2.5BD))': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_append(array(array(1.50BD)), array(2.5BD))': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_prepend(array(array(1.50BD)), array(2.5BD))': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_insert(array(array(1.50BD)), 2, array(2.5BD))': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_position(array(array(1)), array(2.5BD))': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_remove(array(array(1)), array(2.5BD))': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_append(array(array(1)), array(2.5BD))': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_prepend(array(array(1)), array(2.5BD))': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_insert(array(array(1)), 2, array(2.5BD))': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_contains(array(array('a')), array(1))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_position(array(array('a')), array(1))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_remove(array(array('a')), array(1))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_append(array(array('a')), array(1))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_prepend(array(array('a')), array(1))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_insert(array(array('a')), 2, array(1))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_contains(array(array(1)), array('1'))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_position(array(array(1)), array('1'))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_remove(array(array(1)), array('1'))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_append(array(array(1)), array('1'))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_prepend(array(array(1)), array('1'))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_insert(array(array(1)), 2, array('1'))": 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    "array_union(array(named_struct('a', 1)), array(named_struct('b', 1L)))": 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    "array_intersect(array(named_struct('a', 1)), array(named_struct('b', 1L)))": 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    "array_except(array(named_struct('a', 1)), array(named_struct('b', 1L)))": 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    "arrays_overlap(array(named_struct('a', 1)), array(named_struct('b', 1L)))": 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    "concat(array(named_struct('a', 1)), array(named_struct('b', 1L)))": 'DATATYPE_MISMATCH.DATA_DIFF_TYPES',
    "flatten(array(array(named_struct('a', 1)), array(named_struct('b', 1L))))": 'DATATYPE_MISMATCH.DATA_DIFF_TYPES',
    'array_union(array(array(1.50BD)), array(array(2.5BD), array(1.5BD)))': 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    'array_intersect(array(array(1.50BD)), array(array(2.5BD), array(1.5BD)))': 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    'array_except(array(array(1.50BD)), array(array(2.5BD), array(1.5BD)))': 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    'arrays_overlap(array(array(1.50BD)), array(array(2.5BD), array(1.5BD)))': 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    'array_union(array(array(1)), array(array(2.5BD)))': 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    'array_intersect(array(array(1)), array(array(2.5BD)))': 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    'array_except(array(array(1)), array(array(2.5BD)))': 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    'arrays_overlap(array(array(1)), array(array(2.5BD)))': 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    "array_union(array(array('a')), array(array(1)))": 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    "array_intersect(array(array('a')), array(array(1)))": 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    "array_except(array(array('a')), array(array(1)))": 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    "arrays_overlap(array(array('a')), array(array(1)))": 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    "concat(array(array('a')), array(array(1)))": 'CAST_INVALID_INPUT',
    "flatten(array(array(array('a')), array(array(1))))": 'CAST_INVALID_INPUT',
    "concat(array(1, NULL), array('a'))": 'CAST_INVALID_INPUT',
    "array(1, NULL) || array('a')": 'CAST_INVALID_INPUT',
    "flatten(array(array(1, NULL), array('a')))": 'CAST_INVALID_INPUT',
    'concat(s.b.d, tags)': 'CAST_INVALID_INPUT',
    's.b.d || tags': 'CAST_INVALID_INPUT',
    'flatten(array(s.b.d, tags))': 'CAST_INVALID_INPUT',
    'concat(array(true), array(1))': 'DATATYPE_MISMATCH.DATA_DIFF_TYPES',
    'array(true) || array(1)': 'DATATYPE_MISMATCH.DATA_DIFF_TYPES',
    'flatten(array(array(true), array(1)))': 'DATATYPE_MISMATCH.DATA_DIFF_TYPES',
    'concat(s.b.d, NULL)': 'DATATYPE_MISMATCH.DATA_DIFF_TYPES',
    'array_prepend(tags, 1)': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_union(s.b.d, array(2.5BD))': 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    'array_union(array(1.5BD), array(2.25BD))': 'DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES',
    'array_remove(array(1.5BD, 2.5BD), 1)': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_append(array(1.5BD), 1)': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_append(array(1), 1.5BD)': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'array_position(array(1), 1.5BD)': 'DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES',
    'concat(s.b.d, array(2.5D), NULL)': 'DATATYPE_MISMATCH.DATA_DIFF_TYPES',
    'concat(tags, array(1))': 'CAST_INVALID_INPUT',
}
# Refused on DuckDB: maps' keys of different types (Spark keeps the keys a cast makes equal)
COERCED_REFUSED = [f"{f}(array(map(1, 'a')), map(1L, 'a'))" for f in ("array_append", "array_prepend")] + [
    "array_insert(array(map(1, 'a')), 2, map(1L, 'a'))",
]
# answered (maps inside arrays compared by PySpark's dicts, which _check does not take apart: left out)
COERCED_ANSWERED = [f"{c} AS c{k}" for k, c in enumerate(COERCED_CALLS)
                    if c not in COERCED_RAISING and c not in COERCED_REFUSED and "array(map(" not in c]


@pytest.mark.parametrize("calls", _chunks(COERCED_ANSWERED, 16))
def test_coerced_array_functions_duckdb(calls: list[str], spark_view: SparkSession, con: vpush.Connection) -> None:
    _check(calls, spark_view, con)


@pytest.mark.parametrize("calls", _chunks(COERCED_ANSWERED, 80))
def test_coerced_array_functions_spark_engine(calls: list[str], spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    _check(calls, spark_view, spark_con)


def test_coerced_array_functions_raise_as_spark(spark_view: SparkSession, con: vpush.Connection) -> None:
    """Each raises Spark's error class on Spark and on vpush's DuckDB engine."""
    answers = {call: (spark_answer(spark_view, f"SELECT {call} AS r FROM t"), vpush_answer(con, f"SELECT {call} AS r FROM t"))
               for call in COERCED_RAISING}
    assert {call: spark for call, (spark, _) in answers.items()} == {call: ("error", wanted) for call, wanted in COERCED_RAISING.items()}
    assert {call: got for call, (_, got) in answers.items()} == {call: ("error", wanted) for call, wanted in COERCED_RAISING.items()}


@pytest.mark.parametrize("call", COERCED_REFUSED)
def test_coerced_array_functions_refused_on_duckdb(call: str, con: vpush.Connection) -> None:
    with pytest.raises(VpushError) as error:
        con.sql(f"SELECT {call} AS r FROM t").to_arrow()
    assert error.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"


def test_coerced_refused_run_on_the_spark_engine(spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    for call in COERCED_REFUSED:
        if "array(map(" in call:
            continue  # (an array of maps: _check does not take PySpark's dicts apart)
        _check([f"{call} AS r"], spark_view, spark_con)


# The array functions that compare or order elements, over elements Spark cannot order (a map or
# a variant, or an array or struct holding one), after their arguments are coerced to one type:
# Spark's analysis raises INVALID_ORDERING_TYPE naming the coerced type (array_contains' answer
# over maps was DuckDB's, which compares them; the others were refused), and before that
# NULL_TYPE for a bare NULL given to array_contains, BINARY_ARRAY_DIFF_TYPES for one given to a
# set function, and the *_DIFF_TYPES where the maps' parts have no common type
_UNORDERED = [
    ("array(map(1, 'a'))", "map(1, 'a')"), ('array(m)', 'm'), ("array(named_struct('x', m))", "named_struct('x', m)"),
    ("array(map(1, 'a'))", "map(1L, 'a')"), ("array(map(1, 'a'))", "map(1.5D, 'a')"), ("array(array(m))", "array(m)"),
    ("array(parse_json('1'))", "parse_json('1')"), ("array(map(1.5BD, 'a'))", "map(2.25BD, 'a')"), ("array(map(1, 'a'))", "NULL"),
]
ORDERING_RAISING = {
    **{f"{f}({a}, {v})": "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE" for a, v in _UNORDERED for f in ("array_contains", "array_position", "array_remove")},
    **{f"{f}({a}, array({v}))": "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE" for a, v in _UNORDERED[:7]
       for f in ("array_union", "array_intersect", "array_except", "arrays_overlap")},
    **{f"{f}({a})": "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE" for a, _ in _UNORDERED[:7] + [("array(map(1.5BD, array(1)))", "")]
       for f in ("array_distinct", "array_max", "array_min", "sort_array", "array_sort")},
    "sort_array(array(named_struct('x', m)), false)": "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
    "array_contains(array(map(1, 'a')), NULL)": "DATATYPE_MISMATCH.NULL_TYPE",
    "array_contains(NULL, map(1, 'a'))": "DATATYPE_MISMATCH.NULL_TYPE",
    "array_contains(array(1), NULL)": "DATATYPE_MISMATCH.NULL_TYPE",
    "array_contains(array(named_struct('a', 1)), NULL)": "DATATYPE_MISMATCH.NULL_TYPE",
    "array_union(array(map(1, 'a')), NULL)": "DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES",
    "arrays_overlap(NULL, array(map(1, 'a')))": "DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES",
    "array_intersect(array(1), NULL)": "DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES",
    "array_contains(array(map(1, 'a')), map(1, 2))": "DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES",
    "array_position(array(map(1.5BD, 'a')), map(2.25BD, 'a'))": "DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES",
    "array_remove(array(map(1.5BD, 'a')), map(2.25BD, 'a'))": "DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES",
    "array_union(array(map(1, 'a')), array(map('x', 'a')))": "DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES",
    "array_except(array(map(1, 'a')), array(map(2.5BD, 'a')))": "DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES",
    "array_union(array(map(1.5BD, 'a')), array(map(2.25BD, 'a')))": "DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES",
}
# (Spark writes NOT NULL after a struct's field it knows is never NULL, which vpush's types do
# not record: the message names the type without it; the class is Spark's)
NOT_NULL_FIELDS = {"array_contains(array(named_struct('`a b`', map(1, 'a'))), named_struct('`a b`', map(1, 'a')))":
                   "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE"}


def _message(run: Any) -> tuple[str | None, str]:
    """The error class and message (without Spark's SQLSTATE and plan) ``run`` raises."""
    from pyspark.errors import PySparkException

    try:
        run()
    except PySparkException as exc:
        return exc.getCondition(), str(exc).split("] ", 1)[1].split(" SQLSTATE")[0]
    except VpushError as exc:
        return exc.error_class, str(exc).split("] ", 1)[-1]
    return None, "no error"


def test_unordered_elements_raise_as_spark(spark_view: SparkSession, con: vpush.Connection) -> None:
    """Spark's class and message, on Spark and on vpush's DuckDB engine."""
    wanted = {call: _message(lambda call=call: spark_view.sql(f"SELECT {call} AS r FROM t").collect()) for call in ORDERING_RAISING}
    got = {call: _message(lambda call=call: con.sql(f"SELECT {call} AS r FROM t").to_arrow()) for call in ORDERING_RAISING}
    assert {call: c for call, (c, _) in wanted.items()} == ORDERING_RAISING
    assert got == wanted
    for call, error_class in NOT_NULL_FIELDS.items():
        assert spark_answer(spark_view, f"SELECT {call} AS r FROM t") == vpush_answer(con, f"SELECT {call} AS r FROM t") == ("error", error_class)


def test_unordered_elements_raise_on_the_spark_engine(spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    calls = list(ORDERING_RAISING)[::5]
    assert {c: vpush_answer(spark_con, f"SELECT {c} AS r FROM t") for c in calls} == {c: ("error", ORDERING_RAISING[c]) for c in calls}


# array_distinct, array_max, array_min, sort_array and array_sort of nested elements (arrays and
# structs, NULLs inside, -0.0 and NaN inside, decimals coerced to one type, deeper nesting):
# array_distinct keeps the first of equal elements by DuckDB's equality of nested values (a NULL
# inside equal to a NULL, -0.0 to 0.0, NaN to NaN, as Spark's ordering), -0.0 inside given as 0.0
# as Spark normalizes it; array_max and array_min the first of the extreme elements by a key that
# DuckDB orders as Spark orders them (a NULL inside first). (A bare NULL inside, array(NULL) or
# named_struct('a', NULL), leaves the array's type unknown to vpush: refused; these cast it.)
NESTED_ORDERED = [
    'array_distinct(array(array(1, CAST(NULL AS INT)), array(1, CAST(NULL AS INT)), NULL, array(2), NULL))',
    "array_distinct(array(named_struct('a', 1, 'b', 'x'), named_struct('a', 1, 'b', 'x'), NULL, named_struct('a', CAST(NULL AS INT), 'b', 'x'), named_struct('a', CAST(NULL AS INT), 'b', 'x')))",
    "array_distinct(array(array(-0.0D), array(0.0D), array(double('NaN')), array(double('NaN'))))",
    'array_distinct(array(array(0.0D), array(-0.0D)))',
    'array_distinct(array(array(-0.0D)))',
    "array_distinct(array(named_struct('a', -0.0D), named_struct('a', 0.0D)))",
    "array_distinct(array(named_struct('a', array(-0.0D, 1.0D))))",
    'array_distinct(array(array(1.5BD), array(1.50BD), array(2.25BD)))',
    'array_distinct(arr)',
    'array_distinct(array(s, s, NULL))',
    'array_distinct(array(arr, arr, NULL))',
    "array_distinct(array(tags, tags, NULL, array('c', CAST(NULL AS STRING))))",
    "array_distinct(transform(arr, x -> named_struct('q', x.qty)))",
    'array_distinct(array(array(array(1, CAST(NULL AS INT))), array(array(1, CAST(NULL AS INT))), array(CAST(NULL AS ARRAY<INT>))))',
    "array_distinct(array(array('a', CAST(NULL AS STRING)), array('a', CAST(NULL AS STRING))))",
    "array_distinct(array(array(timestamp'2024-01-01 00:00:00'), array(timestamp'2024-01-01 00:00:00')))",
    'array_distinct(array(array(true, CAST(NULL AS BOOLEAN)), array(true, CAST(NULL AS BOOLEAN))))',
    "array_distinct(array(array(X'01'), array(X'01'), array(X'0102')))",
    "array_distinct(array(array(1.5F), array(CAST('NaN' AS FLOAT)), array(CAST('NaN' AS FLOAT)), array(CAST('-0.0' AS FLOAT)), array(0.0F)))",
    'array_distinct(CAST(array() AS ARRAY<ARRAY<INT>>))',
    'array_distinct(CAST(NULL AS ARRAY<ARRAY<INT>>))',
    'array_max(array(array(1, CAST(NULL AS INT)), array(1, 2), array(CAST(NULL AS INT)), NULL))',
    'array_min(array(array(1, CAST(NULL AS INT)), array(1, 2), array(CAST(NULL AS INT)), NULL))',
    'array_min(array(array(1, CAST(NULL AS INT)), array(1, 2), array(1)))',
    'array_max(array(array(1), array(1, CAST(NULL AS INT))))',
    "array_max(array(named_struct('a', 1, 'b', 'x'), named_struct('a', 1, 'b', CAST(NULL AS STRING)), NULL))",
    "array_min(array(named_struct('a', 1, 'b', 'x'), named_struct('a', 1, 'b', CAST(NULL AS STRING)), NULL))",
    'array_max(array(array(-0.0D), array(0.0D)))',
    'array_max(array(array(0.0D), array(-0.0D)))',
    'array_min(array(array(-0.0D), array(0.0D)))',
    'array_min(array(array(0.0D), array(-0.0D)))',
    "array_max(array(array(double('NaN')), array(1.0D)))",
    "array_min(array(array(double('NaN')), array(1.0D)))",
    "array_max(array(array(double('NaN'), 1.0D), array(double('NaN'), 2.0D)))",
    "array_max(array(named_struct('a', -0.0D, 'b', 1), named_struct('a', 0.0D, 'b', 1)))",
    'array_max(array(array(1.5BD), array(1.25BD)))',
    'array_min(array(array(1.5BD), array(1.25BD, 3.5BD)))',
    'array_max(arr)',
    'array_min(arr)',
    'array_max(array(s, NULL))',
    "array_min(array(s, named_struct('a', 0, 'b', named_struct('c', 'y', 'd', array(1)))))",
    'array_min(array(CAST(NULL AS ARRAY<INT>)))',
    'array_max(CAST(array() AS ARRAY<ARRAY<INT>>))',
    'array_max(CAST(NULL AS ARRAY<ARRAY<INT>>))',
    'array_max(array(array(array(1, CAST(NULL AS INT))), array(array(1, 2)), array(CAST(NULL AS ARRAY<INT>))))',
    'array_min(array(array(array(1, CAST(NULL AS INT))), array(array(1, 2)), array(CAST(NULL AS ARRAY<INT>))))',
    "array_max(array(array('b'), array('a', 'z')))",
    "array_min(array(array('b'), array('a', 'z'), array('a')))",
    "array_max(array(array(X'01'), array(X'0102')))",
    "array_max(array(array(1.5F), array(CAST('NaN' AS FLOAT))))",
    "array_max(array(named_struct('a', array(1, CAST(NULL AS INT))), named_struct('a', array(1))))",
    "array_max(array(array(timestamp'2024-01-01 00:00:00'), array(timestamp'2023-01-01 00:00:00', timestamp'2025-01-01 00:00:00')))",
    "array_max(array(array(date'2024-01-01'), array(date'2024-01-01', CAST(NULL AS DATE))))",
    "array_max(transform(arr, x -> named_struct('q', x.qty, 'p', x.price)))",
    'array_min(array(array(true), array(false, true)))',
    'array_max(array(array(-0.0D, 1.0D), array(0.0D, 1.0D)))',
    'sort_array(array(array(2), array(1, CAST(NULL AS INT)), NULL, array(CAST(NULL AS INT)), array(1)))',
    'sort_array(array(array(2), array(1, CAST(NULL AS INT)), NULL, array(CAST(NULL AS INT)), array(1)), false)',
    'array_sort(array(array(2), array(1, CAST(NULL AS INT)), NULL, array(CAST(NULL AS INT)), array(1)))',
    "array_sort(array(named_struct('a', 1, 'b', 'x'), NULL, named_struct('a', CAST(NULL AS INT), 'b', 'y'), named_struct('a', 1, 'b', CAST(NULL AS STRING))))",
    "sort_array(array(named_struct('a', 1, 'b', 'x'), NULL, named_struct('a', CAST(NULL AS INT), 'b', 'y'), named_struct('a', 1, 'b', CAST(NULL AS STRING))), false)",
    'array_sort(array(array(array(1, CAST(NULL AS INT))), array(array(1, 2)), array(CAST(NULL AS ARRAY<INT>))))',
    "sort_array(array(array(0.0D), array(-0.0D), array(double('NaN')), array(1.0D)))",
    'sort_array(array(array(-0.0D), array(0.0D)), false)',
    "array_sort(array(array(0.0D), array(-0.0D), array(double('NaN')), NULL))",
    'sort_array(array(array(1.5BD), array(1.25BD), array(1.50BD)))',
    'sort_array(array(s, NULL, s))',
    "array_sort(array(tags, NULL, array('a', CAST(NULL AS STRING))))",
    "sort_array(array(array(X'02'), array(X'01', X'03')), false)",
    "array_sort(array(array(1.5F), array(CAST('NaN' AS FLOAT)), array(CAST('-0.0' AS FLOAT)), array(0.0F)))",
]


@pytest.mark.parametrize("calls", _chunks([f"{c} AS c{k}" for k, c in enumerate(NESTED_ORDERED)], 16))
def test_nested_elements_ordered_duckdb(calls: list[str], spark_view: SparkSession, con: vpush.Connection) -> None:
    _check(calls, spark_view, con)


@pytest.mark.parametrize("calls", _chunks([f"{c} AS c{k}" for k, c in enumerate(NESTED_ORDERED)], 80))
def test_nested_elements_ordered_spark_engine(calls: list[str], spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    _check(calls, spark_view, spark_con)


# Void parts: Spark types a bare NULL inside a nested value as `void` (array(NULL) is an
# array<void>, named_struct('a', NULL) a struct<a:void>, map(1, NULL) a map<int,void>, array()
# an array<void>), and beside another type takes that type (array(array(NULL), array(1)) is an
# array<array<int>>); through the array functions, lambdas, to_json, casts to strings, coercions
# and collect_list (which skips NULLs: sqlglot's DuckDB ARRAY_AGG kept them where its argument
# holds no column). Measured on PySpark 4.3: 273 shapes (names, types, values, errors) alike.
VOID_PARTS = [
    "array(NULL)", "typeof(array(NULL))", "named_struct('a', NULL)", "typeof(named_struct('a', NULL, 'b', 1))",
    "array(NULL, NULL)", "array()", "typeof(array())", "typeof(map(1, NULL))", "map(1, NULL)", "typeof(array(array(NULL)))",
    "array(array(NULL), array(1))", "typeof(array(array(NULL), array(1)))", "typeof(array(array(), array(1.5D)))",
    "array_distinct(array(array(NULL)))", "array_distinct(array(NULL))", "array_distinct(array(array(NULL), array(NULL), NULL))",
    "typeof(array_distinct(array(array(NULL))))", "array_max(array(array(NULL), array(NULL)))", "sort_array(array(array(NULL), NULL))",
    "array_contains(array(NULL), 1)", "array_position(array(NULL), 1)", "array_remove(array(NULL), 1)",
    "array_union(array(NULL), array(1))", "array_union(array(NULL), array(NULL))", "typeof(array_union(array(NULL), array(1)))",
    "array_except(array(NULL), array(1))", "arrays_overlap(array(NULL), array(1))", "typeof(concat(array(NULL), array(1)))",
    "flatten(array(array(NULL), array(1)))", "array_append(array(NULL), 1)", "array_prepend(array(NULL), 1)",
    "array_insert(array(NULL), 1, 2)", "array_compact(array(NULL))", "typeof(array_compact(array(NULL)))",
    "array_join(array(NULL), ',')", "array_join(array(NULL, NULL), ',', 'x')", "array_join(array(), '-')",
    "element_at(array(NULL), 1)", "typeof(element_at(array(NULL), 1))", "array(NULL)[0]", "typeof(array(NULL)[0])",
    "transform(array(NULL), x -> x)", "typeof(transform(array(NULL), x -> x))", "transform(array(NULL), x -> 1)",
    "filter(array(NULL), x -> x IS NULL)", "exists(array(NULL), x -> x IS NULL)", "aggregate(array(NULL), 0, (a, x) -> a + 1)",
    "named_struct('a', NULL).a", "typeof(named_struct('a', NULL).a)", "typeof(array(named_struct('a', NULL), named_struct('a', 1)))",
    "typeof(coalesce(array(NULL), array(1)))", "typeof(if(id = 1, array(NULL), array(1)))",
    "typeof(if(id = 1, named_struct('a', NULL), named_struct('a', 'x')))",
    "to_json(array(NULL))", "to_json(named_struct('a', NULL))", "to_json(named_struct('a', NULL, 'b', 1), map('ignoreNullFields', 'false'))",
    "to_json(map(1, NULL))", "to_json(array(named_struct('a', NULL), NULL))", "to_json(array())",
    "to_json(named_struct('a', array(NULL), 'b', array()))", "CAST(array(NULL) AS STRING)", "CAST(named_struct('a', NULL) AS STRING)",
    "CAST(named_struct('a', NULL, 'b', array(NULL)) AS STRING)", "CAST(map(1, NULL) AS STRING)", "string(array(NULL))",
    "array_repeat(NULL, 2)", "typeof(array_repeat(NULL, 2))", "array_repeat(NULL, id)", "array_repeat(array(NULL), 2)",
    "sort_array(array(NULL, NULL))", "array_sort(array(NULL))", "reverse(array(NULL))", "slice(array(NULL, NULL), 1, 1)",
    "map_from_arrays(array(1), array(NULL))", "typeof(map_from_arrays(array(1), array(NULL)))", "struct(NULL)",
    "typeof(struct(NULL))", "struct(NULL AS x, 1 AS y)", "array(struct(NULL))", "greatest(array(NULL), array(1))",
    "concat(array(NULL), array('a'))", "typeof(concat(array(NULL), array('a')))", "array_contains(array(array(NULL)), array(1))",
    "array_position(array(array(NULL)), array(NULL))", "sort_array(array(NULL, 1))", "array_max(array(NULL))",
    "typeof(array_max(array(NULL)))", "CAST(array(NULL) AS ARRAY<STRING>)", "CAST(named_struct('a', NULL) AS STRUCT<a: INT>)",
    "named_struct('a', NULL) IN (named_struct('a', 1))", "array(NULL) IN (array(1), array(NULL))", "map_keys(map(1, NULL))",
    "map_values(map(1, NULL))", "typeof(map_values(map(1, NULL)))", "element_at(map(1, NULL), 1)", "map(1, NULL)[1]",
    "map_concat(map(1, NULL), map(2, 'a'))", "typeof(map_concat(map(1, NULL), map(2, 'a')))", "map_filter(map(1, NULL), (k, v) -> k > 0)",
    "transform_values(map(1, NULL), (k, v) -> v)", "zip_with(array(NULL), array(1), (x, y) -> y)",
    "coalesce(map(1, NULL), map(1, 'a'))", "typeof(coalesce(map(1, NULL), map(1, 'a')))", "if(id = 1, map(1, NULL), map(2, 'x'))",
    "nvl(array(NULL), array('a'))", "typeof(nvl(array(NULL), array('a')))",
    "array(named_struct('a', NULL), named_struct('a', named_struct('b', 1)))",
    "typeof(array(named_struct('a', NULL), named_struct('a', named_struct('b', 1))))",
    "array(named_struct('a', NULL), named_struct('a', array(1)))", "coalesce(named_struct('a', NULL), named_struct('a', array('x')))",
    "if(id > 2, named_struct('a', NULL, 'b', id), named_struct('a', map('k', 1), 'b', 0)).a['k']", "array(array(), array(array(1)))",
    "struct(NULL).col1", "array(array(), array())", "typeof(array(array(), array()))", "flatten(array(array(), array()))",
    "typeof(flatten(array(array(), array())))", "flatten(array(array(NULL)))", "array_except(array(NULL), array(NULL))",
    "array_intersect(array(NULL), array(NULL))", "arrays_overlap(array(NULL), array(NULL))", "array_remove(array(NULL), NULL)",
    "slice(array(), 1, 1)", "array_insert(array(), 1, NULL)", "array_append(array(NULL), NULL)", "typeof(array_append(array(NULL), NULL))",
    "array_prepend(array(), NULL)", "typeof(array_append(array(), 1))", "array_union(array(), array(1.5D))", "array_distinct(array())",
    "array_distinct(array(named_struct('a', NULL), named_struct('a', NULL)))", "array_max(array(named_struct('a', NULL), NULL))",
    "sort_array(array(named_struct('a', NULL), NULL))", "array_sort(array(array(NULL), array()))",
    "least(array(NULL), array(1), array(2))", "greatest(named_struct('a', NULL), named_struct('a', 1))",
    "typeof(coalesce(named_struct('a', NULL), named_struct('a', 1.5D)))",
    "CASE WHEN id > 2 THEN array(NULL) WHEN id > 1 THEN array(1) ELSE array(2.5D) END", "if(id > 2, array(array(NULL)), array(array(1L)))",
    "transform(array(NULL), (x, i) -> i)", "transform(array(array(NULL)), x -> size(x))", "reduce(array(NULL, NULL), 0L, (a, x) -> a + 1L)",
    "cardinality(array())", "try_element_at(array(NULL), 5)", "get(array(NULL), 0)",
    "array_position(array(NULL), CAST(NULL AS INT))", "array_position(array(1), NULL)",
    "sort_array(array(NULL), false)", "array_min(array(NULL, NULL))", "array_except(array(1), array(NULL))",
    "array_intersect(array('a'), array(NULL))", "array_union(array(array(1)), array(array(NULL)))", "concat_ws(',', array(NULL, 'a'))",
    "concat(array(), array())", "size(array(array()))", "array_size(array(NULL))", "transform_keys(map(1, NULL), (k, v) -> k + 1)",
    "map_zip_with(map(1, NULL), map(1, 'a'), (k, v1, v2) -> v2)", "map_entries(map(1, NULL))",
    "map_from_entries(array(named_struct('k', 1, 'v', NULL)))", "typeof(map_from_entries(array(named_struct('k', 1, 'v', NULL))))",
    "named_struct('a', NULL) = named_struct('a', NULL)", "array(NULL) <=> array(NULL)", "nullif(array(NULL), array(NULL))",
    "typeof(coalesce(NULL, array(NULL)))", "if(id > 2, NULL, array(NULL))", "element_at(map(1, NULL), 2)", "map_contains_key(map(1, NULL), 1)",
    "to_json(array(array(NULL), NULL))", "to_json(map('a', array(NULL)))", "array_join(transform(array(NULL), x -> x), ',')",
    "array_distinct(array(array(), array()))", "array_max(array(array(), array(NULL)))", "array_position(array(array()), array())",
    "exists(array(), x -> x IS NULL)", "aggregate(array(), 0, (a, x) -> a + 1)", "filter(array(named_struct('a', NULL)), x -> x.a IS NULL)",
    "typeof(transform(array(named_struct('a', NULL)), x -> x.a))", "array(named_struct('a', NULL)).a",
]
VOID_QUERIES = [
    "SELECT collect_list(array(NULL)) AS l, typeof(collect_list(array(NULL))) AS k, collect_set(array(NULL)) AS s FROM t",
    "SELECT collect_list(named_struct('a', NULL)) AS l, first(array(NULL)) AS f, max(array(NULL)) AS m FROM t",
    # Spark's collect_list skips NULLs: of a constant NULL too, grouped, filtered and over windows
    "SELECT collect_list(NULL) AS a, typeof(collect_list(NULL)) AS k, collect_list(CAST(NULL AS INT)) AS b, size(collect_list(NULL)) AS n FROM t",
    "SELECT collect_list(NULL) FILTER (WHERE id > 2) AS a, collect_list(if(id > 2, NULL, 1)) AS b FROM t",
    "SELECT id, collect_list(NULL) OVER (ORDER BY id) AS a, collect_list(CAST(NULL AS INT)) OVER (PARTITION BY id) AS b FROM t",
    "SELECT collect_list(array(NULL)) AS l FROM t GROUP BY id % 2",
    "SELECT typeof(collect_set(NULL)) AS k, collect_set(NULL) AS s FROM t",
    "SELECT array(NULL) AS a UNION ALL SELECT array(1)",
    "SELECT typeof(a) FROM (SELECT array(NULL) AS a UNION ALL SELECT array(1))",
    "SELECT typeof(a) FROM (SELECT named_struct('a', NULL) AS a UNION ALL SELECT named_struct('a', 1.5D))",
    "SELECT array(NULL) AS a UNION SELECT array(NULL)",
    "SELECT DISTINCT array(NULL) AS a FROM t",
    "SELECT array(NULL) AS a, count(*) FROM t GROUP BY 1",
    "SELECT a, typeof(a) FROM (SELECT array() AS a UNION ALL SELECT array('x'))",
    "SELECT typeof(r) FROM (SELECT named_struct('a', NULL, 'b', 1) AS r UNION ALL SELECT named_struct('a', 'x', 'b', 2L))",
    "SELECT typeof(r), r FROM (SELECT map(1, NULL) AS r UNION ALL SELECT map(1, 'a'))",
    "SELECT r, typeof(r) FROM (SELECT array() AS r UNION ALL SELECT array(array(1)))",
    "SELECT r FROM (SELECT named_struct('a', NULL) AS r UNION ALL SELECT named_struct('a', array(1)))",
    "SELECT typeof(r) FROM (SELECT named_struct('a', NULL, 'b', array()) AS r UNION ALL SELECT named_struct('a', 1.5D, 'b', array('x')))",
    "SELECT r FROM (SELECT array(array(NULL)) AS r UNION ALL SELECT array(array(2.5D)) UNION ALL SELECT array(array(1)))",
    "SELECT r FROM (SELECT array(NULL) AS r FROM t UNION ALL SELECT tags FROM t)",
    "SELECT collect_list(r) AS l FROM (SELECT array(NULL) AS r FROM t UNION ALL SELECT tags FROM t)",
    "SELECT * FROM VALUES (array(NULL)), (array(1)) AS v(a)",
    "WITH c AS (SELECT array(NULL) AS a) SELECT a, typeof(a), size(a) FROM c",
    "WITH c AS (SELECT named_struct('a', NULL) AS s) SELECT s.a, typeof(s.a), s FROM c",
    "SELECT typeof(a) FROM (SELECT array(NULL) AS a UNION ALL SELECT array())",
    "SELECT array(NULL) AS a INTERSECT SELECT array(1)",
    "SELECT a, count(*) FROM (SELECT array(NULL) AS a FROM t UNION ALL SELECT array(1) FROM t) GROUP BY a",
    "SELECT e, typeof(e) FROM t LATERAL VIEW explode(array(NULL, NULL)) x AS e",
    "SELECT explode(map(1, NULL))", "SELECT posexplode(array(NULL))", "SELECT inline(array(named_struct('a', NULL)))",
    "SELECT explode(array()) FROM t", "SELECT explode_outer(array())", "SELECT explode(array(array(NULL), array(1)))",
    "SELECT inline(array(named_struct('a', NULL, 'b', 1)))",
    "SELECT count(DISTINCT array(NULL)) AS n, max_by(array(NULL), id) AS m, min_by(named_struct('a', NULL), id) AS b, last(array(NULL)) AS l FROM t",
    "SELECT id, lag(array(NULL)) OVER (ORDER BY id) AS p FROM t", "SELECT a.x, a.* FROM (SELECT named_struct('x', NULL, 'y', 1) AS a) s",
    "SELECT m[1], typeof(m) FROM (SELECT map(1, NULL) AS m UNION ALL SELECT map(2, 1.5D))",
    "SELECT a FROM (SELECT array(NULL) AS a UNION ALL SELECT array(named_struct('x', 1)) UNION ALL SELECT array())",
    "SELECT CAST(named_struct('b', id, 'a', NULL) AS STRUCT<a: INT, b: INT>) AS r FROM t",
    # Spark's NULL_TYPE: a bare NULL (or a value of its type) looked for among void elements
    "SELECT array_position(array(NULL), NULL)", "SELECT array_position(array(NULL), array(NULL)[0])",
    "SELECT array_contains(array(NULL), array(NULL)[0])",
]
# still refused on DuckDB: a map of void keys (map()), the hash of a void part
VOID_REFUSED = ["map()", "typeof(map())", "size(map())", "hash(array())"]


@pytest.mark.parametrize("calls", _chunks([f"{c} AS c{k}" for k, c in enumerate(VOID_PARTS)], 40))
def test_void_parts_duckdb(calls: list[str], spark_view: SparkSession, con: vpush.Connection) -> None:
    _check(calls, spark_view, con)


def test_void_parts_spark_engine(spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    # (a result holding void does not reach Arrow through the Spark engine: Spark's toArrow refuses it)
    _check([f"{c} AS c{k}" for k, c in enumerate(VOID_PARTS) if c.startswith(("typeof", "to_json", "CAST", "array_join"))],
           spark_view, spark_con)


@pytest.mark.parametrize("sql", VOID_QUERIES)
def test_void_parts_in_queries(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_view, con)


@pytest.mark.parametrize("call", VOID_REFUSED)
def test_void_parts_still_refused(call: str, con: vpush.Connection) -> None:
    with pytest.raises(VpushError) as error:
        con.sql(f"SELECT {call} AS r FROM t").to_arrow()
    assert error.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"

# Maps of double or float keys: a -0.0 key given as 0.0 as Spark's map builder normalizes it, keys
# compared as Spark's ordering compares them (-0.0 equal to 0.0, NaN to NaN: DUPLICATED_MAP_KEY
# naming the key as Java prints it), a key of integers or floats looked up cast to the map's
# doubles, integer or float keys concatenated beside double ones cast to doubles (a bigint's too,
# refused where two of one map become one double)
DOUBLE_KEYS = [
    "map(1.5D, 'a')[1]", "map(1.5D, 'a')[1L]", "element_at(map(1.5D, 'a'), 1)", "map_contains_key(map(1.5D, 'a'), 1)",
    "map(double('NaN'), 'a')[double('NaN')]", "map(0.0D, 'a')[-0.0D]", "map(-0.0D, 'a')[0.0D]", "map_keys(map(-0.0D, 'a'))",
    "map(-0.0D, 'a', 1.5D, 'b')", "map(1.0D, 'a')[1]", "map(2.0D, 'a', 1.5D, 'b')[id]", "element_at(map(1.0D, 'a'), 1L)",
    "map(CAST(1.5 AS FLOAT), 'a')[CAST(1.5 AS FLOAT)]", "map(CAST(-0.0 AS FLOAT), 'a')", "map(1.5D, 'a')[CAST(1.5 AS FLOAT)]",
    "map(0.1D, 'a')[CAST(0.1 AS FLOAT)]", "element_at(map(1.5D, 'a'), CAST(1.5 AS FLOAT))", "map(id * 1.5D, 'a')",
    "map(id * 1.5D, 'a')[1.5D]", "map(id - 1.0D, 'a')[-0.0D]", "map_contains_key(map(id - 1.0D, 'a'), -0.0D)",
    "map(1.5D, 'a')[CAST(NULL AS DOUBLE)]", "map(1, 'a', 2.5D, 'b')", "map(1.5D, 'a')[9007199254740993L]",
    "map(9007199254740992D, 'a')[9007199254740993L]", "try_element_at(map(1.5D, 'a'), 2)", "map_keys(map(1e10D, 'a'))",
    "map(-0.0D, 'x')[id - 1]", "map_concat(map(1, 'a'), map(1.5D, 'b'))", "map_concat(map(1.5D, 'a'), map(1, 'b'))",
    "map_concat(map(CAST(1.5 AS FLOAT), 'a'), map(2.5D, 'b'))", "map_concat(map(-0.0D, 'a'), map(1.5D, 'b'))",
    "map_concat(map(CAST(-0.0 AS FLOAT), 'a'), map(1.5F, 'b'))", "if(id = 1, map(1, 'a'), map(1.5D, 'a'))[1.0D]",
    "if(id = 1, map(1, 'a'), map(1.5D, 'a'))[1]",
    # Spark gives a -0.0 key as 0.0 where it folds the map to a constant, but keeps it where it
    # builds the map row by row; map_concat gives it as 0.0 (measured)
    "map_keys(map(-0.0D, id))", "map_keys(map(-(id - 1.0D), 'a'))", "map_keys(map(-0.0D, id + 1))",
    "map_keys(map(-0.0D, 'a', double('NaN'), 'b'))", "map(-(id - 1.0D), 'a')[0.0D]",
    "map_keys(map_concat(map(-(id - 1.0D), 'a'), map(1.5D, 'b')))",
    "(SELECT max(r[2.5D]) FROM (SELECT map(1, 'a') AS r UNION ALL SELECT map(2.5D, 'b')))",
    "(SELECT max(r[1.0D]) FROM (SELECT map(1, 'a') AS r UNION ALL SELECT map(2.5D, 'b')))",
    # map_from_arrays and map_from_entries of double and float keys: map_from_arrays keeps a -0.0
    # key as given (Spark's builder takes the key array itself where no key repeats),
    # map_from_entries gives it as 0.0 (its builder puts each key, normalized): measured
    "map_from_arrays(array(1.5D, 2.5D), array('a', 'b'))", "typeof(map_from_arrays(array(1.5D, 2.5D), array('a', 'b')))",
    "map_keys(map_from_arrays(array(-0.0D, 1.5D), array('a', 'b')))", "map_keys(map_from_arrays(array(-(id - 1.0D)), array('a')))",
    "map_keys(map_from_arrays(array(CAST('-0.0' AS FLOAT)), array('a')))", "map_from_arrays(array(1, 2.5D), array('a', 'b'))",
    "map_from_arrays(array(id * 1.5D), array('a'))", "map_from_arrays(transform(s.b.d, x -> x * 1.5D), transform(s.b.d, x -> x))",
    "map_from_arrays(array(1.5D, 2.5D), array('a', 'b'))[2]", "element_at(map_from_arrays(array(1.0D), array('a')), 1)",
    "map_from_arrays(array(-0.0D), array('a'))[0.0D]", "map_from_arrays(array(double('NaN')), array('a'))[double('NaN')]",
    "map_contains_key(map_from_arrays(array(id - 1.0D), array('a')), -0.0D)", "to_json(map_from_arrays(array(-0.0D, 1.5D), array('a', 'b')))",
    "CAST(map_from_arrays(array(-0.0D, 1.5D), array('a', 'b')) AS STRING)",
    "map_keys(map_from_arrays(transform(array(-0.0D, 1.0D), x -> x), array(1, 2)))",
    "map_from_entries(array(named_struct('k', 1.5D, 'v', 'a'), named_struct('k', 2.5D, 'v', 'b')))",
    "map_keys(map_from_entries(array(named_struct('k', -0.0D, 'v', 'a'))))",
    "map_keys(map_from_entries(array(named_struct('k', -(id - 1.0D), 'v', 'a'))))",
    "map_keys(map_from_entries(array(named_struct('k', CAST(-(id - 1) AS FLOAT), 'v', 'a'))))",
    "map_from_entries(array(named_struct('k', CAST(2.5 AS FLOAT), 'v', 1)))",
    "(SELECT max(map_keys(map_from_arrays(k, array('a', 'b')))[0]) FROM (SELECT array(-0.0D, 1.0D) AS k))",
]
DOUBLE_KEYS_RAISING = {
    "map(0.0D, 'a', -0.0D, 'b')": "DUPLICATED_MAP_KEY", "map(double('NaN'), 'a', double('NaN'), 'b')": "DUPLICATED_MAP_KEY",
    "map(id * 1.5D, 'a', 3.0D, 'b')": "DUPLICATED_MAP_KEY", "map(CAST(NULL AS DOUBLE), 'a')": "NULL_MAP_KEY",
    "map_concat(map(1, 'a'), map(1.0D, 'b'))": "DUPLICATED_MAP_KEY", "map_concat(map(0.0D, 'a'), map(-0.0D, 'b'))": "DUPLICATED_MAP_KEY",
    "map_concat(map(double('NaN'), 'a'), map(double('NaN'), 'b'))": "DUPLICATED_MAP_KEY",
    "map_concat(map(id * 1.5D, 'a'), map(3.0D, 'b'))": "DUPLICATED_MAP_KEY",
    "map_concat(map(1.5D, 'a'), map(2.5D, 'b'), map(CAST(NULL AS DOUBLE), 'c'))": "NULL_MAP_KEY",
    "map(-(id - 1.0D), 'a', 0.0D, 'b')": "DUPLICATED_MAP_KEY", "map(0.0D, id, -0.0D, id)": "DUPLICATED_MAP_KEY",
    "map_concat(map(-(id - 1.0D), 'a'), map(0.0D, 'b'))": "DUPLICATED_MAP_KEY",
    "map_from_arrays(array(-0.0D, 0.0D), array('a', 'b'))": "DUPLICATED_MAP_KEY",
    "map_from_arrays(array(double('NaN'), double('NaN')), array('a', 'b'))": "DUPLICATED_MAP_KEY",
    "map_from_arrays(array(id - 1.0D, 2.0D), array('a', 'b'))": "DUPLICATED_MAP_KEY",
    "map_from_arrays(array(CAST(0.1 AS FLOAT), CAST(0.1 AS FLOAT)), array('a', 'b'))": "DUPLICATED_MAP_KEY",
    "map_from_arrays(array(1.5D, NULL), array('a', 'b'))": "NULL_MAP_KEY",
    "map_from_arrays(array(1.5D), array('a', 'b'))": "_LEGACY_ERROR_TEMP_2128",
    "map_from_entries(array(named_struct('k', 0.0D, 'v', 'a'), named_struct('k', -0.0D, 'v', 'b')))": "DUPLICATED_MAP_KEY",
    "map_from_entries(array(named_struct('k', CAST(NULL AS DOUBLE), 'v', 'a')))": "NULL_MAP_KEY",
    "map_from_entries(transform(arr, x -> named_struct('p', x.price, 'q', x.qty)))": "NULL_MAP_KEY",
}


@pytest.mark.parametrize("calls", _chunks([f"{c} AS c{k}" for k, c in enumerate(DOUBLE_KEYS)], 18))
def test_double_map_keys_duckdb(calls: list[str], spark_view: SparkSession, con: vpush.Connection) -> None:
    _check(calls, spark_view, con)


def test_double_map_keys_spark_engine(spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    _check([f"{c} AS c{k}" for k, c in enumerate(DOUBLE_KEYS)], spark_view, spark_con)


def test_double_map_keys_raise_as_spark(spark_view: SparkSession, con: vpush.Connection) -> None:
    answers = {call: (spark_answer(spark_view, f"SELECT {call} AS r FROM t"), vpush_answer(con, f"SELECT {call} AS r FROM t"))
               for call in DOUBLE_KEYS_RAISING}
    assert {call: spark for call, (spark, _) in answers.items()} == {call: ("error", c) for call, c in DOUBLE_KEYS_RAISING.items()}
    assert {call: got for call, (_, got) in answers.items()} == {call: ("error", c) for call, c in DOUBLE_KEYS_RAISING.items()}
    # the key named as Java prints the double, as given (-0.0 too)
    assert _message(lambda: con.sql("SELECT map(0.0D, 'a', -0.0D, 'b') AS r FROM t").to_arrow()) == (
        "DUPLICATED_MAP_KEY", "Duplicate map key -0.0 was found, please check the input data.")
    for call, key in [("map_from_arrays(array(1.0E10D, 1.0E10D), array('a', 'b'))", "1.0E10"),
                      ("map_from_arrays(array(-0.0D, 0.0D), array('a', 'b'))", "0.0"),
                      ("map_from_entries(array(named_struct('k', 0.0D, 'v', 'a'), named_struct('k', -0.0D, 'v', 'b')))", "-0.0"),
                      ("map_from_arrays(array(1.0E-5D, 1.0E-5D), array('a', 'b'))", "1.0E-5")]:
        sql = f"SELECT {call} AS r FROM t"
        expected = ("DUPLICATED_MAP_KEY", f"Duplicate map key {key} was found, please check the input data.")
        spark_class, spark_text = _message(lambda sql=sql: spark_view.sql(sql).collect())
        assert (spark_class, spark_text.split("\n")[0]) == _message(lambda sql=sql: con.sql(sql).to_arrow()) == expected


def test_double_keys_in_a_lambda_refused(con: vpush.Connection) -> None:
    """Spark keeps a -0.0 key built in a lambda (transform(array(1.0D, -1.0D), x -> map(x * 0.0D, 'a'))
    gives {0.0: 'a'} and {-0.0: 'a'}, measured), where vpush cannot tell how Spark builds it."""
    with pytest.raises(VpushError) as error:
        con.sql("SELECT transform(array(1.0D, -1.0D), x -> map(x * 0.0D, 'a')) AS r FROM t").to_arrow()
    assert error.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"


@pytest.mark.parametrize("sql", [
    "SELECT explode(s) FROM t",
    "SELECT array_contains(arr, s) FROM t",
    "SELECT stack(2, deep, m) FROM t",
    "SELECT array_sort(array(m)) FROM t",
])
def test_nested_types_in_messages_as_spark_writes_them(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    """The types an error names, written as Spark's ``DataType.sql`` writes them (field names as
    written, ``: `` and ``, ``), by one renderer (``SparkType.to_sql``)."""
    with pytest.raises(Exception) as spark_error:
        spark_view.sql(sql).collect()
    with pytest.raises(VpushError) as error:
        con.sql(sql).to_arrow()
    quoted = re.compile(r'"([A-Z]+<[^"]*>)"')
    assert quoted.findall(str(error.value)) == quoted.findall(str(spark_error.value).split("SQLSTATE")[0])
