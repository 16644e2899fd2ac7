"""The benchmark suite's own parts: the JSON-text baseline answers the seven queries as Spark
does, and the peak-memory reading sees what a process held and starts again when reset."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from rich.console import Console

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import common  # noqa: E402
import queries  # noqa: E402

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROWS, FILES = 20_000, 2


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> queries.Dataset:
    folder = tmp_path_factory.mktemp("bench")
    console = Console(quiet=True)

    def no_spark() -> Any:
        raise AssertionError("the DuckDB writer needs no Spark")

    return queries.load_dataset(folder, ROWS, FILES, None, True, True, console, no_spark)


def test_json_copy_keeps_the_rows_and_row_groups(data: queries.Dataset) -> None:
    import pyarrow.parquet as pq

    assert data.json_folder is not None
    copies = common.part_files(data.json_folder)
    assert [p.name for p in copies] == [p.name for p in data.files]
    for source, copy in zip(data.files, copies):
        a, b = pq.ParquetFile(source).metadata, pq.ParquetFile(copy).metadata
        assert [a.row_group(i).num_rows for i in range(a.num_row_groups)] == [
            b.row_group(i).num_rows for i in range(b.num_row_groups)
        ]
        assert pq.read_table(copy).schema.field("event").type == "string"
    # A second call reuses the copy.
    again = common.ensure_json_copy(data.folder, Console(quiet=True))
    assert again[0] == data.json_folder and again[2] is False


def test_every_engine_of_duckdb_answers_as_spark(data: queries.Dataset, spark: SparkSession) -> None:
    """The lower bound, vpush, DuckDB and DuckDB on JSON text, against Spark on the same files,
    through the benchmark's own comparison (Q7's DuckDB JSON after parsing)."""
    import duckdb

    console = Console(quiet=True)
    lo, hi = queries.window(data)
    engines = queries._Engines(data, None, console, False, engines=[queries.BOUND, queries.VPUSH,
                                                                     queries.DUCKDB, queries.JSON_TEXT])  # fmt: skip
    spark.read.parquet(str(data.folder)).createOrReplaceTempView("events")
    con = duckdb.connect()
    for query in queries.make_queries(lo, hi):
        entries = [engines.entry(e, query) for e in engines.engines]
        answers = {e.result.engine: queries._rows(e.runner.run()) for e in entries if e.runner is not None}
        answers[queries.SPARK] = queries._rows(spark.sql(query.spark).toArrow())
        if query.name != "Q3":  # its user is of the long tail of 5M events, not among these
            assert answers[queries.SPARK], f"{query.name} answers nothing here: the test would see no difference"
        results = [e.result for e in entries]
        json_engines = {e.result.engine for e in entries if e.json_answer}
        queries.compare_answers(query, results, answers, json_engines, console)
        assert [(r.engine, r.agrees) for r in results] == [(r.engine, True) for r in results], query.name
    con.close()


def test_peak_rss_sees_an_allocation_and_resets() -> None:
    common.reset_peak_rss()  # what the process held before (Spark, earlier tests) no longer counts
    before = common.peak_rss()
    block = bytearray(200 * 1024 * 1024)
    block[:: 4096] = b"\1" * len(block[:: 4096])  # touch every page, so that it is resident
    peak = common.peak_rss()
    assert peak - before >= 150 * 1024 * 1024
    del block
    common.reset_peak_rss()
    assert common.peak_rss() < peak - 100 * 1024 * 1024
    assert common.peak_rss(f"tree:{__import__('os').getpid()}") >= common.peak_rss()
