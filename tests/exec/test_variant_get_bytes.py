"""A variant taken out of a variant (``v:a``, ``variant_get(v, path, 'variant')``,
``try_variant_get``) is Spark's bytes on the DuckDB engine.

Spark's ``VariantGet`` rebuilds the value it finds by its builder "to strip off any unnecessary
metadata": a dictionary of just the keys met, containers re-encoded, scalars copied as they are.
Compared byte for byte over JSON literals with every kind of path, and over the table of
``test_variant_functions``: rows rebuilt from shredded columns carry vpush's scalar widths (see
``test_to_variant_object``), so they are equal by value, and byte for byte in DuckDB's unshredded
file (UNSHREDDED_IDS).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import vpush
from support.compare import compare_variants_by_id, variant_bytes, variants_by_id
from support.function_table import UNSHREDDED_IDS, connect_function_table

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

J = '{"b": {"y": [1, {"q": 2, "r": 3}, 3], "x": 1}, "a": 1, "c": null, "d.e": 5, "arr": [10, {"z": 1}, 30], "é": {"\\"q": 1}}'
PATHS = ["$.a", "$.b", "$.b.y", "$.b.y[1]", "$.b.y[1].q", "$.c", '$["d.e"]', "$.arr", "$.arr[1]", "$.zz", "$.é", "$"]


def test_literals_as_spark(spark: SparkSession) -> None:
    text = "'" + J.replace("\\", "\\\\").replace("'", "\\'") + "'"
    calls = [f"variant_get(parse_json({text}), '{p}', 'variant')" for p in PATHS] + [
        f"try_variant_get(parse_json({text}), '{p}', 'variant')" for p in PATHS[:4]] + [
        f"parse_json({text}):b", f"parse_json({text}):arr[1]",
        # a variant inside a struct, an array or a map is rebuilt the same way
        f"variant_get(parse_json({text}), '$.b', 'struct<y: variant, x: variant>').y",
        f"variant_get(parse_json({text}), '$.arr', 'array<variant>')[1]",
        f"variant_get(parse_json({text}), '$.b', 'map<string, variant>')['y']"]  # fmt: skip
    sql = "SELECT " + ", ".join(f"{c} AS c{i}" for i, c in enumerate(calls))
    want = [variant_bytes(v) for v in spark.sql(sql).collect()[0]]
    got = [variant_bytes(v) for v in vpush.connect().sql(sql).to_arrow().to_pylist()[0].values()]
    for call, g, w in zip(calls, got, want):
        assert g == w, f"{call}: vpush {g!r} != Spark {w!r}"


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory, spark: SparkSession) -> vpush.Connection:
    return connect_function_table(spark, tmp_path_factory.mktemp("variant_get_bytes"))


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id, v:o AS o FROM t",
        "SELECT id, v:o.y AS y FROM t",
        "SELECT id, variant_get(v, '$.arr[3]', 'variant') AS e FROM t",
        "SELECT id, try_variant_get(v, '$.a', 'variant') AS a FROM t",
    ],
)
def test_table_as_spark(spark: SparkSession, con: vpush.Connection, sql: str) -> None:
    got, want = variants_by_id(spark, con, sql)
    assert compare_variants_by_id(got, want, UNSHREDDED_IDS) > len(UNSHREDDED_IDS)
