"""Spark's ``parse_url`` and ``try_parse_url`` on the DuckDB engine.

Spark parses the URL with ``java.net.URI(String)`` and returns a raw component (``HOST``,
``PATH``, ``QUERY``, ``REF``, ``PROTOCOL``, ``FILE``, ``AUTHORITY``, ``USERINFO``; any other part,
in any other case, is NULL); a URL the JDK does not parse raises ``INVALID_URL`` (NULL in
``try_parse_url``). The compiled kernel :func:`vpush.codec.native.parse_url_native` parses it as
the JDK does. With a key, Spark reads ``QUERY`` only (any other part is NULL before the URL is
parsed) and returns group 2 of the first match of the Java pattern ``(&|^)key=([^&]*)`` in it;
the key is part of the pattern, so it is written in RE2 by :func:`vpush.optimizer.java_regex.re2_pattern`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from sqlglot import exp

from vpush.optimizer.errors import refuse_on_duckdb as _refuse
from vpush.optimizer.java_regex import re2_pattern
from vpush.optimizer.variant_types import SparkType, StringType

if TYPE_CHECKING:
    TypeOf = Callable[[exp.Expr], SparkType | None]

__all__ = ["PARSE_URL_FUNCTIONS", "parse_url_type", "rewrite_parse_url"]

PARSE_URL_FUNCTIONS = {"parse_url": "vpush_parse_url", "try_parse_url": "vpush_try_parse_url"}
"""The engine functions (url VARCHAR, part VARCHAR) -> VARCHAR of the compiled kernel, by the Spark
function they answer: ``parse_url`` raises ``INVALID_URL``, ``try_parse_url`` gives NULL."""


def _null() -> exp.Expr:
    return exp.cast(exp.Null(), exp.DataType.build("VARCHAR"))


def _text(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def _literal(argument: exp.Expr) -> bool:
    return isinstance(argument, exp.Null) or (isinstance(argument, exp.Literal) and argument.is_string)


def parse_url_type(arguments: list[exp.Expr], of: TypeOf) -> SparkType | None:
    """``string`` for a call vpush answers: a string (or NULL) URL, and a literal part and key;
    None for another (Spark raises for a URL other than a string)."""
    if len(arguments) not in (2, 3) or not all(_literal(a) for a in arguments[1:]):
        return None
    if not (isinstance(arguments[0], exp.Null) or isinstance(of(arguments[0]), StringType)):
        return None
    return StringType()


def rewrite_parse_url(called: str, arguments: list[exp.Expr], result: SparkType | None, functions: dict[str, SparkType]) -> exp.Expr:
    """``parse_url(url, part[, key])`` or ``try_parse_url`` (typed ``result`` by
    :func:`parse_url_type` before its arguments were rewritten) as DuckDB SQL over the kernel's
    engine function, which is added to ``functions``.

    Example:
        >>> used = {}
        >>> url = exp.column("u")
        >>> rewrite_parse_url("parse_url", [url, exp.Literal.string("HOST")], StringType(), used).sql("duckdb")
        "VPUSH_PARSE_URL(u, 'HOST')"
        >>> rewrite_parse_url("try_parse_url", [url, exp.Literal.string("QUERY"), exp.Literal.string("k")],
        ...                   StringType(), used).sql("duckdb")
        "SUBSTRING(NULLIF(REGEXP_EXTRACT(VPUSH_TRY_PARSE_URL(u, 'QUERY'), '(&|^)k(=[^&]*)', 2), ''), 2)"
        >>> rewrite_parse_url("parse_url", [url, exp.Literal.string("PATH"), exp.Literal.string("k")], StringType(), used).sql("duckdb")
        'CAST(NULL AS TEXT)'

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for a URL other than a string (Spark
            raises), a part or key that is not a literal, or a key whose pattern is not written
            in RE2 with the same meaning (or has groups of its own).
    """
    if result is None:
        _refuse(called, "a URL other than a string, or a part or key that is not a literal")
    if any(isinstance(a, exp.Null) for a in arguments):
        return _null()
    part = arguments[1].name
    if len(arguments) == 3 and part != "QUERY":
        return _null()  # Spark's answer before it parses the URL
    name = PARSE_URL_FUNCTIONS[called]
    functions[name] = StringType()
    extracted: exp.Expr = exp.Anonymous(this=name, expressions=[arguments[0], _text(part)])
    if len(arguments) == 2:
        return extracted
    # Java's (&|^)key=([^&]*) with the '=' inside the value's group: the group is then empty only
    # where nothing matched
    pattern = re2_pattern("(&|^)" + arguments[2].name + "(=[^&]*)")
    if pattern is None or pattern.groups != 2 or pattern.tail is not None:
        _refuse(called, "a key whose regular expression RE2 does not read as Java does, or that has groups")
    found = exp.Anonymous(this="regexp_extract", expressions=[extracted, _text(pattern.text), exp.Literal.number(2)])
    return exp.Anonymous(this="substring", expressions=[exp.Nullif(this=found, expression=_text("")), exp.Literal.number(2)])
