"""Shared test set-up: one lazy Spark session per pytest process, and Hypothesis profiles.

Hypothesis runs the ``vpush`` profile (derandomized, 50 examples, no deadline) unless
``VPUSH_HYPOTHESIS_PROFILE=full`` asks for the long, randomized one. Tests that use the ``spark``
fixture are marked ``spark`` automatically, so ``-m "not spark"`` skips them.
"""

from __future__ import annotations

import os
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

def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that asks for the ``spark`` fixture with the ``spark`` marker."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)


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
