"""Shared test set-up: one lazy Spark session per pytest process, and Hypothesis profiles.

Hypothesis runs the ``vpush`` profile (derandomized, 50 examples, no deadline) unless
``VPUSH_HYPOTHESIS_PROFILE=full`` asks for the long, randomized one. Tests that use the ``spark``
fixture are marked ``spark`` automatically, so ``-m "not spark"`` skips them.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

HYPOTHESIS_PROFILE_ENV = "VPUSH_HYPOTHESIS_PROFILE"

# Derandomized: a failure found once is found on every run, in CI too.
settings.register_profile("vpush", derandomize=True, max_examples=50, deadline=None)
settings.register_profile("full", derandomize=False, max_examples=2000, deadline=None)
settings.load_profile(os.environ.get(HYPOTHESIS_PROFILE_ENV, "vpush"))

# Only errors from the JVM's logs: Spark's default configuration prints every WARN.
_SPARK_LOG_CONFIG = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that asks for the ``spark`` fixture with the ``spark`` marker."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    """A local Spark session, started on first use and shared by the whole pytest process.

    ``local[2]`` matches the two cores of the CI machine; no UI; two shuffle partitions, since
    test data is tiny; UTC, so timestamps print the same everywhere; 2 GiB of driver memory.
    """
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    # Bind the driver to loopback instead of looking up the host name.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
    log_config = tmp_path_factory.mktemp("spark") / "log4j2.properties"
    log_config.write_text(_SPARK_LOG_CONFIG, encoding="utf-8")
    session = (
        SparkSession.builder.master("local[2]")
        .appName("vpush-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "2g")
        .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={log_config.as_uri()}")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
