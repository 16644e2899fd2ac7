"""Runs a plan on DuckDB or PySpark (``vpush.exec``)."""
