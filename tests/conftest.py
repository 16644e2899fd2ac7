"""Shared test set-up: one lazy Spark session per pytest process, and Hypothesis profiles.

Hypothesis runs the ``vpush`` profile (derandomized, 50 examples, no deadline) unless
``VPUSH_HYPOTHESIS_PROFILE=full`` asks for the long, randomized one. Tests that use the ``spark``
fixture are marked ``spark`` automatically, so ``-m "not spark"`` skips them. Without
``VPUSH_TEST_FULL`` (``make test``), the long crosses of queries on vpush's Spark engine run a
fixed share of their cases (:data:`SPARK_ENGINE_SHARE`); ``make test-full`` runs them all.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

# the shared comparisons assert in tests/support: their failures show both sides, as a test's own do
pytest.register_assert_rewrite("support")

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

HYPOTHESIS_PROFILE_ENV = "VPUSH_HYPOTHESIS_PROFILE"

# Derandomized: a failure found once is found on every run, in CI too.
settings.register_profile("vpush", derandomize=True, max_examples=50, deadline=None)
settings.register_profile("full", derandomize=False, max_examples=2000, deadline=None)
settings.load_profile(os.environ.get(HYPOTHESIS_PROFILE_ENV, "vpush"))

FULL_ENV = "VPUSH_TEST_FULL"
"""Set (``make test-full``), every case of every cross runs; unset (``make test``), a test
function's cases on vpush's Spark engine run one in :data:`SPARK_ENGINE_SHARE`."""

SPARK_ENGINE_SHARE = 6
"""In ``make test``, of a test function with :data:`SAMPLED_FROM` cases or more on vpush's Spark
engine, the cases kept are its first and one in this many of the others, chosen by a checksum of
each case's node id (the same cases on every run and machine). Its cases on DuckDB, the embedded
default, all run; so do strict xfails. On two cores the Spark engine's cases took 44% of the suite's time."""

SAMPLED_FROM = 8


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that asks for the ``spark`` fixture with the ``spark`` marker; without
    :data:`FULL_ENV`, deselect the Spark engine's cases :data:`SPARK_ENGINE_SHARE` leaves out
    (run last: the strict xfails other hooks mark stay)."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
    if os.environ.get(FULL_ENV):
        return
    groups: dict[tuple[str, str], list[pytest.Item]] = {}
    for item in items:
        if _on_the_spark_engine(item):
            groups.setdefault((item.nodeid.split("::")[0], getattr(item, "originalname", item.name)), []).append(item)
    dropped = {
        id(item)
        for group in groups.values() if len(group) >= SAMPLED_FROM
        for item in group[1:]  # (each function's first case always runs)
        if zlib.crc32(item.nodeid.encode()) % SPARK_ENGINE_SHARE and item.get_closest_marker("xfail") is None
    }
    if dropped:
        config.hook.pytest_deselected(items=[item for item in items if id(item) in dropped])
        items[:] = [item for item in items if id(item) not in dropped]


def _on_the_spark_engine(item: pytest.Item) -> bool:
    """Whether ``item`` is one case of a cross that runs a query through vpush's Spark engine: a
    connection fixture's ``spark`` parameter, or a parametrized test named for that engine."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return False
    if any(callspec.params.get(name) == "spark" for name in ("con", "diff_con")):
        return True
    return "spark_engine" in getattr(item, "originalname", "")


@pytest.fixture(scope="session", autouse=True)
def _duckdb_parallelism_of_the_spark_fixture() -> Iterator[None]:
    """DuckDB connections that take the default parallelism answer as the ``spark`` fixture's
    ``local[2]`` session does (its tasks), whatever the cores of the machine the tests run on."""
    from vpush import connection

    original = connection._default_parallelism
    connection._default_parallelism = lambda: 2  # type: ignore[assignment]
    yield
    connection._default_parallelism = original  # type: ignore[assignment]


@pytest.fixture(scope="session", autouse=True)
def _derived_scan_schemas_are_duckdbs() -> Iterator[None]:
    """Every scan the Spark engine runs in any test checks the Arrow schema it derives from the
    plan against the one DuckDB gives by running the scan's query on no rows (what the engine
    asked DuckDB before it derived the schema): a mismatch fails the test that ran the query."""
    from vpush.exec import spark_engine
    from vpush.exec.derive_scan_schema import derive_scan_schema

    original = spark_engine.scan_output_schema

    def checked(plan: Any, scan: Any, time_zone: str) -> Any:
        derived = derive_scan_schema(scan, time_zone)
        if derived is not None:
            expected = spark_engine.duckdb_scan_schema(plan, scan, time_zone)
            if not derived.equals(expected, check_metadata=True):
                raise AssertionError(
                    f"derived scan schema differs from DuckDB's for scan {scan.name}:\n"
                    f"derived:\n{derived}\nDuckDB:\n{expected}"
                )
        return original(plan, scan, time_zone)

    spark_engine.scan_output_schema = checked  # type: ignore[assignment]
    yield
    spark_engine.scan_output_schema = original  # type: ignore[assignment]


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """A local Spark session, started on first use and shared by the whole pytest process.

    ``vpush.sample.local_spark``'s session (``local[2]`` for the two cores of the CI machine, no
    UI, two shuffle partitions since test data is tiny, UTC so timestamps print the same
    everywhere, only errors logged), with 2 GiB of driver memory.
    """
    from vpush.sample import local_spark

    session = local_spark("vpush-tests", {"spark.driver.memory": "2g"})
    yield session
    session.stop()
