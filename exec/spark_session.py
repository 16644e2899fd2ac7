"""A quiet local Spark session, for the Spark engine, the sample writer and the tests."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from vpush.exec.errors import ExecutionError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["local_spark"]

_SPARK_LOG_CONFIG = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def local_spark(app_name: str = "vpush-sample", conf: Mapping[str, str] | None = None) -> SparkSession:
    """A quiet local Spark session (``local[2]``, UTC, no UI, two shuffle partitions, only
    errors logged), or the active one if any.

    Args:
        app_name: the application's name.
        conf: further settings for a new session (such as ``spark.driver.memory``).
    """
    import os
    import sys
    import tempfile
    import warnings

    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:
        raise ExecutionError("Spark needs PySpark: pip install 'vpush[spark]'") from exc
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    # Bind the driver to loopback: the default looks up the host name and warns when it
    # resolves to loopback anyway.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # Python workers (vpush's Spark data source, Python UDFs) run this interpreter, which has
    # vpush and pyarrow, rather than whatever `python3` is on the PATH.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
    builder = (
        SparkSession.builder.master("local[2]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
    )
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    log_config = Path(tempfile.gettempdir()) / "vpush-spark-log4j2.properties"
    try:
        log_config.write_text(_SPARK_LOG_CONFIG, encoding="utf-8")
    except OSError:
        pass  # noisier logs, same data
    else:
        builder = builder.config(
            "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={log_config.as_uri()}"
        )
    try:
        session = builder.getOrCreate()
    except Exception as exc:  # py4j and JVM start-up failures have no common base class
        raise ExecutionError(f"could not start a local Spark session: {exc}") from exc
    session.sparkContext.setLogLevel("ERROR")
    return session
