"""``variant_set``, ``variant_insert``, ``variant_array_append`` and their ``try_`` forms on the
DuckDB engine answer as PySpark 4.3 does: the same bytes (every row rebuilt by Spark's builder),
the same errors (``VARIANT_PATH_TYPE_MISMATCH`` naming the step, ``VARIANT_DUPLICATE_KEY``), NULL
where the ``try_`` forms give it, and the same column names.

The matrix runs each function over one object with paths that replace, create (objects for keys,
arrays padded with variant nulls for indexes), fail at every depth and miss; the table of
``test_variant_functions`` (Spark- and DuckDB-written files, shredded and not) adds SQL NULLs,
variant nulls, scalars and values of every type.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

import vpush
from support.compare import assert_error_as_spark, compare_variants_by_id, variant_bytes, variants_by_id
from support.function_table import UNSHREDDED_IDS, connect_function_table
from vpush.codec.errors import VpushError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

J = '{"b": {"y": [1, 2], "x": 1}, "a": 1, "s": "str", "d.e": {"é": null}}'
PATHS = ["$.a", "$.new", "$.b.x", "$.b.z", "$.b.y[0]", "$.b.y[2]", "$.b.y[3]", "$.b.y[9]", "$.q.r", "$.q.r.s",
         "$.a.c", "$.s[0]", "$.b.y.k", "$[0]", "$.b.y", '$["d.e"].é', '$["d.e"]["x.y"][1]', "$.q[1].w"]  # fmt: skip
FUNCTIONS = ["variant_set", "try_variant_set", "variant_insert", "try_variant_insert", "variant_array_append", "try_variant_array_append"]
CALLS = [f"{f}(parse_json('{J}'), '{p}', 7)" for f in FUNCTIONS for p in PATHS] + [
    f"variant_array_append(parse_json('[1]'), '$', 'x')", "variant_array_append(parse_json('1'), '$', 'x')",
    f"try_variant_array_append(parse_json('{J}'), '$', 1)",
    f"variant_set(parse_json('{J}'), '$.new', 7, false)", f"variant_set(parse_json('{J}'), '$.q.r', 7, false)",
    f"variant_set(parse_json('{J}'), '$.b.y[5]', 7, false)", f"variant_set(parse_json('{J}'), '$.a', NULL)",
    f"variant_set(parse_json('{J}'), '$.a', parse_json('{{\"k\": [1, {{\"z\": null}}]}}'))",
    f"variant_set(parse_json('{J}'), '$.a', cast(1.50 as decimal(10,2)))", f"variant_set(parse_json('{J}'), '$.a', 'a long string " + "x" * 70 + "')",
    f"variant_set(parse_json('{J}'), '$.a', cast(2.5 as float))", f"variant_set(parse_json('{J}'), '$.a', X'00ff')",
    f"variant_set(parse_json('{J}'), '$.a', true)", f"variant_set(parse_json('{J}'), '$.a', cast('2024-02-29' as date))",
    "variant_set(NULL, '$.a', 1)", f"variant_set(parse_json('{J}'), NULL, 1)", "variant_set(parse_json('null'), '$.a', 1)",
    "variant_set(parse_json('[]'), '$[0]', 1)", "variant_insert(parse_json('[]'), '$[0]', 1)", "variant_insert(parse_json('{}'), '$.a.b', 1)",
    "variant_set(parse_json('{}'), '$.a[0]', 1)", "variant_set(parse_json('{}'), '$.a.b[1].c', 1)", f"variant_set(parse_json('{J}'), '$.a', 1, NULL)",
    "variant_insert(parse_json('[1,2,3]'), '$[1]', 9)", "variant_set(parse_json('[1,2,3]'), '$[1]', 9)",
    "variant_insert(variant_insert(parse_json('{}'), '$.b', 1), '$.a', 2)",
]  # fmt: skip


def _error_class(text: str) -> str:
    return text.split("[", 1)[1].split("]", 1)[0]


def test_matrix_as_spark(spark: SparkSession) -> None:
    con = vpush.connect()
    differences = []
    for call in CALLS:
        sql = f"SELECT {call}"
        try:
            frame = spark.sql(sql)
            want: Any = ([variant_bytes(v) for v in frame.collect()[0]], frame.columns)
        except Exception as exc:  # noqa: BLE001 - Spark's error is the answer to compare
            want = ("error", _error_class(str(exc)))
        try:
            table = con.sql(sql).to_arrow()
            got: Any = ([variant_bytes(v) for v in table.to_pylist()[0].values()], table.column_names)
        except VpushError as exc:
            got = ("error", exc.error_class)
        if got != want:
            differences.append((call, got, want))
    assert not differences, f"{len(differences)} of {len(CALLS)} differ, first: {differences[:2]}"


def test_error_messages_name_the_step(spark: SparkSession) -> None:
    sql = f"SELECT variant_set(parse_json('{J}'), '$.b.y.k', 7)"
    with pytest.raises(Exception) as spark_error:
        spark.sql(sql).collect()
    with pytest.raises(VpushError) as error:
        vpush.connect().sql(sql).to_arrow()
    assert error.value.error_class == "VARIANT_PATH_TYPE_MISMATCH"
    assert "The path '$.b.y.k' is incompatible with the variant value at '$.b.y' in `variant_set`" in str(spark_error.value)
    assert "The path '$.b.y.k' is incompatible with the variant value at '$.b.y' in `variant_set`" in str(error.value)


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory, spark: SparkSession) -> vpush.Connection:
    return connect_function_table(spark, tmp_path_factory.mktemp("variant_modify"))


# As in test_to_variant_object: rows rebuilt from shredded columns keep vpush's scalar widths
# (equal by value); DuckDB's unshredded file (UNSHREDDED_IDS) is compared byte for byte.
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id, try_variant_set(v, '$.a', id) FROM t",
        "SELECT id, try_variant_insert(v, '$.o.new', v:s) FROM t",
        "SELECT id, try_variant_set(v, '$.o.y[1]', concat('s', cast(id AS string)), false) FROM t",
        "SELECT id, try_variant_array_append(v, '$.o.y', v:o) FROM t",
        "SELECT id, try_variant_insert(v, '$.arr[0]', cast(id AS double) / 3) FROM t",
    ],
)
def test_table_as_spark(spark: SparkSession, con: vpush.Connection, sql: str) -> None:
    got, want = variants_by_id(spark, con, sql)
    assert compare_variants_by_id(got, want, UNSHREDDED_IDS) > len(UNSHREDDED_IDS)
    assert any(w is None for w in want.values()) and any(w is not None for w in want.values())


@pytest.mark.parametrize(
    ("sql", "error_class"),
    [
        ("SELECT variant_set(v, '$.a', 1) FROM t", "VARIANT_PATH_TYPE_MISMATCH"),
        ("SELECT variant_insert(v, '$.a', 1) FROM t WHERE id % 9 = 2", "VARIANT_DUPLICATE_KEY"),
        ("SELECT variant_set(v, '$.a', named_struct('x', 1)) FROM t", "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION"),
    ],
)
def test_table_errors_as_spark(spark: SparkSession, con: vpush.Connection, sql: str, error_class: str) -> None:
    assert_error_as_spark(spark, con, sql, error_class)
