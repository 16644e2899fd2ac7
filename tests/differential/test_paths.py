"""Paths: nested fields, arrays, missing fields, odd keys, invalid paths, SQL NULL vs variant null,
top-level scalars, and Spark's names for unaliased extractions.

Table ``t`` (six files: Spark shredding every field, Spark shredding them with the wrong types,
unshredded, DuckDB re-shredding, DuckDB's own values, vpush's writer) has clean row groups and row
groups of SQL NULLs, variant nulls, top-level scalars, wrong-typed fields and extra fields.
"""
from __future__ import annotations

import pytest

from differential.harness import Batch, Check, CheckBatch

# Each group is one query, ``SELECT id, <columns> FROM t``.
PATHS = Batch(
    "paths",
    ("id",),
    "t",
    {
        "nested_fields": (
            ("ox", "v:o.x"),
            ("oy", "v:o.y"),
            ("oxb", "variant_get(v, '$.o.x', 'bigint')"),
            ("oys", "try_variant_get(v, '$.o.y', 'string')"),
        ),
        "nested_object": (("o", "v:o"), ("o2", "variant_get(v, '$.o')")),
        "whole_variant": (("whole", "v"), ("root", "variant_get(v, '$')")),
        "missing_paths": (
            ("m", "v:missing"),
            ("om", "v:o.missing"),
            ("ad", "v:a.deeper"),
            ("n", "try_variant_get(v, '$.nope', 'int')"),
        ),
        "array_elements": (
            ("arr", "v:arr"),
            ("a0", "v:arr[0]"),
            ("a2", "v:arr[2]"),
            ("past_end", "v:arr[5]"),
        ),
        "array_element_casts": (
            ("a0", "try_variant_get(v, '$.arr[0]', 'bigint')"),
            ("a1", "variant_get(v, '$.arr[1]', 'string')"),
            ("a2", "try_cast(v:arr[2] AS int)"),
            ("leading_zero", "variant_get(v, '$.arr[01]', 'string')"),
        ),
        "index_key_mismatch": (
            ("key_of_array", "v:arr.k"),
            ("index_of_object", "variant_get(v, '$.o[0]')"),
            ("index_of_root", "variant_get(v, '$[0]')"),
            ("deep", "variant_get(v, '$.a[0][1]', 'int')"),
        ),
        "odd_keys_bracketed": (
            ("dotted", "v:['a.b']"),
            ("spaced", "v:['a b']"),
            ("dollar", "v:['$']"),
            ("bracket", "v:['[0]']"),
            ("umlaut", "variant_get(v, '$.ü')"),
            ("nested_not_dotted", "variant_get(v, '$.a.b')"),
            ("double_quoted", "variant_get(v, '$[\"a b\"]', 'string')"),
        ),
        "quote_and_backslash_keys": (
            ("quote", "variant_get(v, '$[\\'q\"x\\']', 'bigint')"),
            ("apostrophe", "variant_get(v, '$[\"it\\'s\"]', 'int')"),
            ("backslash", "v:['back\\\\slash']"),
        ),
        "odd_keys_dotted": (
            ("quote", "variant_get(v, '$.q\"x', 'bigint')"),
            ("spaced", "variant_get(v, '$.a b', 'string')"),
            ("dollar", "variant_get(v, '$.$', 'int')"),
            ("escaped_umlaut", "variant_get(v, '$.\\u00fc', 'int')"),
        ),
        "backquoted_colon_key": (("spaced", "v:`a b`"), ("dotted", "v:['a.b']::string")),
        "keys_are_case_sensitive": (("upper_a", "v:A"), ("upper_s", "v:S::string"), ("upper_ox", "v:O.X")),
        "extraction_of_extraction": (
            ("ox", "variant_get(variant_get(v, '$.o'), '$.x', 'bigint')"),
            ("oy", "variant_get(v:o, '$.y', 'string')"),
        ),
        "sql_null_vs_variant_null": (
            ("sql_null", "v IS NULL"),
            ("a_null", "v:a IS NULL"),
            ("a", "try_variant_get(v, '$.a', 'int')"),
            ("root", "variant_get(v, '$', 'string')"),
        ),
        "strict_casts_that_succeed": (
            ("a", "v:a::bigint"),
            ("s", "v:s::string"),
            ("ts", "v:ts::timestamp"),
            ("b", "v:b::boolean"),
            ("ox", "v:o.x::bigint"),
            ("oy", "v:o.y::string"),
            ("a0", "v:arr[0]::string"),
            ("ad", "cast(v:a AS double)"),
            ("a_dec", "v:a::decimal(20,0)"),
            ("a_float", "v:a::float"),
            ("a_string", "v:a::string"),
            ("ts_ntz", "v:ts::timestamp_ntz"),
            ("ts_string", "v:ts::string"),
            ("o_json", "v:o::string"),
            ("arr_json", "cast(v:arr AS string)"),
        ),
    },
)


@pytest.mark.parametrize("group", list(PATHS.groups))
def test_path(check_batch: CheckBatch, group: str) -> None:
    """A path into shredded, partly shredded and unshredded values gives Spark's value."""
    check_batch(PATHS, group)


# Paths into top-level scalars, arrays and objects (table ``s``, shredded at the top level).
TOP_LEVEL = Batch(
    "top_level_paths",
    ("w", "label"),
    "s",
    {
        "elements_and_fields": (
            ("e0", "try_variant_get(v, '$[0]', 'int')"),
            ("e1", "try_variant_get(v, '$[1]', 'string')"),
            ("k", "try_variant_get(v, '$.k', 'int')"),
            ("e2", "v:[2]"),
            ("y", "variant_get(v, '$.y')"),
            ("j", "v:j"),
        ),
        "nulls": (("sql_null", "v IS NULL"), ("whole", "v")),
    },
)


@pytest.mark.parametrize("group", list(TOP_LEVEL.groups))
def test_top_level_path(check_batch: CheckBatch, group: str) -> None:
    """Paths into top-level values, and SQL NULL vs variant null at the top level."""
    check_batch(TOP_LEVEL, group)


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param(
            "SELECT id, variant_get(v, '$[\"it''s\"]', 'int') AS apostrophe FROM t",
            id="doubled_quote_in_path",
        ),
        pytest.param(
            "SELECT id, variant_get(v, '$[''a?b'']', 'int') AS k FROM t",
            id="doubled_quotes_around_key",
        ),
    ],
)
def test_path_literal(check: Check, sql: str) -> None:
    """Paths written with SQL's doubled quotes."""
    check(sql)


INVALID = [
    pytest.param("variant_get(v, 'a', 'int')", id="no_dollar"),
    pytest.param("try_variant_get(v, '$[', 'int')", id="unclosed_bracket_try"),
    pytest.param("variant_get(v, '$.arr[-1]')", id="negative_index"),
    pytest.param("variant_get(v, '$[\"q\\\"x\"]')", id="escaped_quote_in_key"),
    pytest.param("variant_get(v, '', 'int')", id="empty_path"),
    pytest.param("variant_get(v, '$..a', 'int')", id="double_dot"),
    pytest.param("try_variant_get(v, '$.arr[2147483648]', 'int')", id="index_too_big"),
]


@pytest.mark.parametrize("expression", INVALID)
def test_invalid_path(check: Check, expression: str) -> None:
    """An invalid path fails with INVALID_VARIANT_GET_PATH, in the try_ form too."""
    check(f"SELECT id, {expression} AS e FROM t", raises="INVALID_VARIANT_GET_PATH")


def test_counts(check: Check) -> None:
    """``count`` tells a SQL NULL row from a variant null and a missing field, as Spark does."""
    check(
        "SELECT count(*) AS n, count(v) AS nv, count(v:a) AS na, count(v:o.x) AS nox, "
        "count(try_variant_get(v, '$.a', 'bigint')) AS nab, count(DISTINCT v:s::string) AS ds, "
        "count(DISTINCT v:a::bigint) AS da FROM t"
    )


@pytest.mark.parametrize(
    "expression",
    [
        pytest.param("v:d::decimal(10,2)", id="string_to_decimal"),
        pytest.param("v:o.x::int", id="int_overflow"),
        pytest.param("v:arr[0]::bigint", id="string_element_to_bigint"),
        pytest.param("variant_get(v, '$.o', 'int')", id="object_to_int"),
    ],
)
def test_strict_cast_that_fails_somewhere(check: Check, expression: str) -> None:
    """A strict cast that fails on some row of ``t`` fails the query."""
    check(f"SELECT id, {expression} AS e FROM t", raises="INVALID_VARIANT_CAST")


NAMES = [
    pytest.param(
        "SELECT v:a, v:o.x, v:arr[1], v:['a b'], CAST(v:o.y AS string), v:o.x::int, try_cast(v:a AS int), "
        "variant_get(v, '$.a', 'bigint'), try_variant_get(v, '$.a', 'int'), variant_get(v, '$.s'), "
        "variant_get(v, '$[\"a b\"]', 'string') FROM t WHERE id = 1",
        id="extractions",
    ),
    pytest.param(
        "SELECT cast(variant_get(v, '$.a') AS int), v:a::bigint + 1, count(*) OVER () FROM t WHERE id = 1",
        id="expressions",
    ),
    pytest.param("SELECT count(v:a), max(v:o.x::bigint) + 1, sum(v:a::bigint) FROM t", id="aggregates"),
]


@pytest.mark.parametrize("sql", NAMES)
def test_unaliased_names(check: Check, sql: str) -> None:
    """Unaliased extractions are named as Spark names them."""
    check(sql)


@pytest.mark.parametrize("expression", ["v:a[", "v:a[0", "v:arr[1"])
def test_unclosed_bracket_after_a_colon_path(check: Check, expression: str) -> None:
    """A bracket left open after a ``:`` path is Spark's syntax error, before the subscript of
    a variant it would be."""
    check(f"SELECT id, {expression} AS e FROM t", raises="PARSE_SYNTAX_ERROR")
