"""The optimizer's errors."""
from __future__ import annotations

from typing import NoReturn

from vpush.codec.errors import VpushError


class OptimizeError(VpushError):
    """SQL that vpush cannot plan: a parse error, an unknown table, a bad path or type."""


class CatalogError(OptimizeError):
    """A table location that cannot be read: no such file, no Parquet files, a bad footer."""


def refuse_on_duckdb(called: str, what: str) -> NoReturn:
    """Refuse a form of the Spark function ``called`` that the DuckDB engine does not answer as
    Spark does (``what``: the form), with ``VPUSH_UNSUPPORTED_FUNCTION``."""
    raise OptimizeError(
        f"{called}: the DuckDB engine does not give Spark's answer for {what} yet; the Spark engine runs it",
        error_class="VPUSH_UNSUPPORTED_FUNCTION",
    )


def spark_string_value(text: str) -> str:
    """``text`` as Spark's error messages show a string value (``toSQLValue``: quoted, its
    backslashes and quotes escaped).

    Example:
        >>> print(spark_string_value("it's a\\\\b"))
        'it\\'s a\\\\b'
    """
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
