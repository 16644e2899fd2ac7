"""Spark's variable substitution in SQL text (``spark.sql.variable.substitute``, on by default).

Before Spark parses a statement, its ``VariableSubstitution`` replaces each ``${name}`` in the
whole text (string literals, identifiers and comments alike) by Spark's ``ConfigReader`` rules:

```
${key} ${spark:key} ${sparkconf:key}   the session's configuration value of key ('' where unset)
${hivevar:key} ${hiveconf:key}         the same
${env:NAME}                            the environment variable, or the reference kept as written
${system:NAME}                         the JVM's system property, or the reference kept as written
${other:key}                           kept as written (an unknown prefix)
```

A value is itself substituted (a reference met again on the way is Spark's "Circular reference"
failure). The reference is Java's pattern ``\\$\\{(?:(\\w+?):)?(\\S+?)\\}``. What a value is comes
from the engine (:class:`Lookup`): the Spark engine asks its session and JVM; the DuckDB engine
has no Spark session, and answers as a fresh one would (see :func:`duckdb_lookup`).
"""

from __future__ import annotations

import os
import re
from typing import Callable

from vpush.optimizer.errors import OptimizeError

__all__ = ["Lookup", "duckdb_lookup", "substitute_variables"]

# Java's \w is ASCII, its \S anything but its six whitespace characters
_REFERENCE = re.compile(r"\$\{(?:([A-Za-z0-9_]+?):)?([^ \t\n\x0B\f\r]+?)\}")
_CONFIGURATION = (None, "spark", "sparkconf", "hivevar", "hiveconf")

Lookup = Callable[[str | None, str], str | None]
"""``lookup(prefix, name)``: the value of ``${prefix:name}`` (prefix None for ``${name}``), None
to keep the reference as written; raises :class:`OptimizeError` for a value the engine cannot know."""


def duckdb_lookup(prefix: str | None, name: str) -> str | None:
    """A fresh Spark session's values, as far as vpush knows them without one: a configuration key
    outside Spark's own (``spark.``) is unset, so ``''``; an environment variable is the process's
    (a local Spark's JVM inherits it). Spark's own keys (some are set when a session starts, from
    its ``SparkConf``) and the JVM's system properties are refused."""
    if prefix in _CONFIGURATION:
        if name.lower().startswith("spark."):
            raise OptimizeError(
                f"the SQL names Spark's configuration value ${{{name}}}, which the DuckDB engine does not have "
                "(Spark substitutes it in the SQL text); the Spark engine runs it",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )
        return ""
    if prefix == "env":
        return os.environ.get(name)
    if prefix == "system":
        raise OptimizeError(
            f"the SQL names the JVM's system property ${{system:{name}}}, which the DuckDB engine does not have "
            "(Spark substitutes it in the SQL text); the Spark engine runs it",
            error_class="VPUSH_UNSUPPORTED_FUNCTION",
        )
    return None


def substitute_variables(sql: str, lookup: Lookup) -> str:
    """``sql`` with its ``${...}`` references replaced as Spark replaces them before parsing.

    Example:
        >>> substitute_variables("SELECT '${a}x', '${env:VPUSH_NO_SUCH}', '${foo:b}'", duckdb_lookup)
        "SELECT 'x', '${env:VPUSH_NO_SUCH}', '${foo:b}'"
    """
    if "${" not in sql:
        return sql
    return _substitute(sql, lookup, frozenset())


def _substitute(text: str, lookup: Lookup, used: frozenset[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        prefix, name = match.group(1), match.group(2)
        reference = name if prefix is None else f"{prefix}:{name}"
        if reference in used:
            raise OptimizeError(f"requirement failed: Circular reference in {text}: {reference}")
        value = lookup(prefix, name)
        return match.group(0) if value is None else _substitute(value, lookup, used | {reference})

    return _REFERENCE.sub(replace, text)
