"""Golden tests of the rewrite: Spark SQL in, the SQL vpush runs on DuckDB and on Spark out.

``tests/fixtures/rewrite/queries.sql`` holds the queries (every variant function and path form);
``tests/fixtures/rewrite/expected.txt`` what each becomes over a table of two files that are
shredded differently (one shredded, one not): the DuckDB SQL (scans as per-layout parts), then
the Spark SQL (scans as views whose tasks compute the extractions), or the error it raises. To accept a deliberate
change, run with ``VPUSH_UPDATE_GOLDEN=1`` and review the diff of ``expected.txt``.
"""
from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pytest

from vpush.codec.builder import encode
from vpush.codec.errors import VpushError
from vpush.codec.shred import write_shredded_parquet
from vpush.optimizer.catalog import Catalog
from vpush.optimizer.plan import VARIANT_ARROW_TYPE
from vpush.optimizer.plan_query import plan_query

FIXTURES = Path(__file__).parent.parent / "fixtures" / "rewrite"
SHREDDING = "struct<a: bigint, s: string, o: struct<x: int>, arr: array<bigint>, `a b`: string>"


def _queries() -> list[str]:
    text = (FIXTURES / "queries.sql").read_text()
    lines = [line for line in text.splitlines() if not line.startswith("--")]
    return [q.strip() for q in "\n".join(lines).split(";") if q.strip()]


def _variants(objects: list[dict[str, object]]) -> pa.StructArray:
    encoded = [encode(o) for o in objects]
    return pa.StructArray.from_arrays(
        [pa.array([m for m, _ in encoded], pa.binary()), pa.array([v for _, v in encoded], pa.binary())],
        fields=list(VARIANT_ARROW_TYPE),
    )


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    folder = tmp_path_factory.mktemp("golden")
    rows = [{"a": i, "s": f"k{i}", "o": {"x": i}, "arr": [i, i + 1], "a b": "x"} for i in range(4)]
    table = pa.table({"id": pa.array(range(4), pa.int64()), "v": _variants(rows)})
    write_shredded_parquet(table, folder / "part-0.parquet", {"v": SHREDDING})
    write_shredded_parquet(table, folder / "part-1.parquet", {}, variant_columns=["v"])
    found = Catalog()
    found.register("t", folder)
    return found


def _render(sql: str, catalog: Catalog) -> str:
    try:
        plan = plan_query(sql, catalog, time_zone="UTC")
    except VpushError as exc:
        return f"error: {exc}"
    try:
        duckdb_sql = plan.sql("duckdb", pretty=True)
    except VpushError as exc:
        duckdb_sql = f"error on DuckDB: {exc}"
    return f"{duckdb_sql}\n---- on Spark, over vpush's scans:\n{plan.sql('spark', pretty=True)}"


def test_rewrite_matches_the_golden_file(catalog: Catalog) -> None:
    rendered = "\n\n".join(f"==== {sql}\n{_render(sql, catalog)}" for sql in _queries()) + "\n"
    expected_file = FIXTURES / "expected.txt"
    if os.environ.get("VPUSH_UPDATE_GOLDEN") == "1":
        expected_file.write_text(rendered)
    expected = expected_file.read_text()
    assert rendered == expected, "the rewrite changed: review, then rerun with VPUSH_UPDATE_GOLDEN=1"


def test_golden_file_covers_every_query() -> None:
    expected = (FIXTURES / "expected.txt").read_text()
    assert [line[5:] for line in expected.splitlines() if line.startswith("==== ")] == [
        q.replace("\n", " ") for q in _queries()
    ]
