"""The differential suite: the same queries over the same files, on vpush and on Spark.

Each test runs a Spark SQL query through vpush, once on each engine (DuckDB, and Spark on the test
session), and natively on PySpark 4.3 (the ``spark`` session, time zone UTC), the oracle (its
answer computed once for both engines), over files written once per session by Spark,
DuckDB and vpush's own writer (``data.py``), and compares exactly (``harness.py``): the column
names, the Spark types (vpush's Arrow types mapped to Spark's), the rows (in order only under
ORDER BY; doubles by their bits, NaN equal to NaN; variants as ``to_json`` text), or, when the
query fails, Spark's error class against vpush's ``error_class``.

A query Spark does not answer as the test declares (rows, or a given error class) is a broken
test (:class:`~differential.harness.BadTest`). Where vpush's answer differs from Spark's, the case
stays, marked with :func:`~differential.harness.known_difference`: on the engines it names, a
strict xfail that only a :class:`~differential.harness.Mismatch` satisfies, so fixing vpush turns
it into a failure to remove the mark.

This file holds the fixtures: the files, Spark's views of them, a vpush connection with the same
tables, and ``check`` / ``check_batch``, which compare one query.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import vpush
from differential.data import Tables, write_tables
from differential.harness import (
    ENGINES,
    Answer,
    BadTest,
    Batch,
    Check,
    CheckBatch,
    apply_known_differences,
    compare,
    spark_answer,
    vpush_answer,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Known differences are strict xfails on the engines they name only."""
    apply_known_differences(items)


@pytest.fixture(scope="session")
def diff_tables(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Tables:
    """Every table's files, written by Spark, DuckDB and vpush under a temporary folder."""
    assert spark.conf.get("spark.sql.session.timeZone") == "UTC"
    return write_tables(spark, tmp_path_factory.mktemp("differential"))


@pytest.fixture(scope="session")
def spark_views(spark: SparkSession, diff_tables: Tables) -> dict[str, DataFrame]:
    """Spark's own reading of each table, by name."""
    return {name: spark.read.parquet(str(folder)) for name, folder in diff_tables.items()}


@pytest.fixture(scope="session", params=ENGINES)
def diff_con(request: pytest.FixtureRequest, spark: SparkSession, diff_tables: Tables) -> vpush.Connection:
    """A vpush connection (UTC) with every table registered, on each engine in turn: DuckDB, and
    Spark on the test session (every test that asks for it runs once per engine)."""
    if request.param == "spark":
        con = vpush.connect(engine="spark", spark=spark, time_zone="UTC")
    else:
        con = vpush.connect(time_zone="UTC")
    for name, folder in diff_tables.items():
        con.register(name, folder)
    return con


@pytest.fixture(scope="session")
def _spark_answers() -> dict[str, Answer]:
    """Spark's answer to each query, computed once for both engines."""
    return {}


@pytest.fixture
def check(
    spark: SparkSession,
    spark_views: dict[str, DataFrame],
    diff_con: vpush.Connection,
    _spark_answers: dict[str, Answer],
) -> Check:
    """``check(sql, raises=None)``: vpush answers ``sql`` as Spark does (``raises``: the error
    class Spark must raise, if any; a query Spark does not answer so is a broken test)."""

    def run(sql: str, raises: str | None = None) -> None:
        if sql not in _spark_answers:
            _spark_answers[sql] = spark_answer(spark, spark_views, sql)
        want = _spark_answers[sql]
        if want.error != raises:
            raise BadTest(f"Spark gave {want.error or 'rows'}, not {raises or 'rows'}: {sql}")
        compare(vpush_answer(diff_con, sql), want, sql)

    return run


@pytest.fixture(scope="session")
def _wide_answers() -> dict[str, Answer]:
    """Spark's answers to the wide query of each batch, computed once."""
    return {}


@pytest.fixture
def check_batch(
    spark: SparkSession,
    spark_views: dict[str, DataFrame],
    diff_con: vpush.Connection,
    _wide_answers: dict[str, Answer],
) -> CheckBatch:
    """``check_batch(batch, group)``: vpush answers the batch's query of ``group`` as Spark does."""

    def run(batch: Batch, group: str) -> None:
        if batch.name not in _wide_answers:
            _wide_answers[batch.name] = spark_answer(spark, spark_views, batch.wide())
        sql = batch.query(group)
        compare(vpush_answer(diff_con, sql), batch.cut(_wide_answers[batch.name], group), sql)

    return run
