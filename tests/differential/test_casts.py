"""Every scalar target type from every Variant value type, on every shredding of the value.

Table ``c`` holds each value as the field ``x`` of an object, table ``s`` as the top-level value;
their files shred it as bigint, string, decimal, timestamp, ... or not at all, so one query reads
each value from a typed leaf in one file and from a residual in the others.

Spark computes a strict extraction of a table's column in its Parquet scan, for every row it
reads, before any WHERE or CASE: one failing value anywhere fails the query. So strict casts are
compared three ways: their values through a subquery (where Spark evaluates them after the
filter), whole-table queries (both fail, or both give every row), and the scan-time failure as
its own case.
"""
from __future__ import annotations

import re
from typing import Any

import pytest

from differential.harness import Batch, Check, CheckBatch, known_difference

TARGETS = [
    "boolean",
    "tinyint",
    "smallint",
    "int",
    "bigint",
    "float",
    "double",
    "decimal(5,2)",
    "decimal(18,0)",
    "decimal(38,9)",
    "string",
    "binary",
    "date",
    "timestamp",
    "timestamp_ntz",
    "variant",
]


def _alias(prefix: str, target: str) -> str:
    return prefix + "_" + re.sub(r"\W+", "_", target).strip("_")


# Spark's other spellings of the target types.
GET_TYPE_NAMES = [
    "INT", "long", "decimal", "short", "byte", "integer", "real",
    "timestamp_ltz", "TIMESTAMP_NTZ",
]
CAST_TYPE_NAMES = ["long", "integer", "decimal", "real", "dec(4,1)", "numeric(4,1)", "short", "timestamp_ltz"]
TYPE_NAMES = {
    "type_names_in_variant_get": tuple(
        (f"get_{i}", f"try_variant_get(v, '$.x', '{name}')") for i, name in enumerate(GET_TYPE_NAMES)
    ),
    "type_names_in_casts": tuple(
        (f"cast_{i}", f"try_cast(v:x AS {name})") for i, name in enumerate(CAST_TYPE_NAMES)
    ),
}
TRY_FIELD = Batch(
    "try_field",
    ("w", "label"),
    "c",
    {
        **{
            t: (
                (_alias("get", t), f"try_variant_get(v, '$.x', '{t}')"),
                (_alias("cast", t), f"try_cast(v:x AS {t})"),
            )
            for t in TARGETS
        },
        **TYPE_NAMES,
    },
)
TRY_TOP_LEVEL = Batch(
    "try_top_level",
    ("w", "label"),
    "s",
    {
        t: (
            (_alias("get", t), f"try_variant_get(v, '$', '{t}')"),
            (_alias("cast", t), f"try_cast(variant_get(v, '$') AS {t})"),
        )
        for t in TARGETS
    },
)
# A strict cast where the try_ form gives a value, of a subquery's column (evaluated after the
# CASE's test, on Spark too).
STRICT_VALUES = Batch(
    "strict_values",
    ("w", "label"),
    "(SELECT w, label, v:x AS x FROM c)",
    {
        t: (
            (
                _alias("strict", t),
                f"CASE WHEN try_variant_get(x, '$', '{t}') IS NOT NULL THEN variant_get(x, '$', '{t}') END",
            ),
        )
        for t in TARGETS
    },
)


@pytest.mark.parametrize("target", TARGETS)
def test_try_field(check_batch: CheckBatch, target: str) -> None:
    """``try_variant_get(v, '$.x', T)`` and ``try_cast(v:x AS T)`` of every value in ``c``."""
    check_batch(TRY_FIELD, target)


@pytest.mark.parametrize("target", TARGETS)
def test_try_top_level(check_batch: CheckBatch, target: str) -> None:
    """``try_variant_get(v, '$', T)`` and ``try_cast(variant_get(v, '$') AS T)`` in ``s``."""
    check_batch(TRY_TOP_LEVEL, target)


@pytest.mark.parametrize("target", TARGETS)
def test_strict_values(check_batch: CheckBatch, target: str) -> None:
    """Strict ``variant_get`` gives the value ``try_variant_get`` gives, where that is not NULL."""
    check_batch(STRICT_VALUES, target)


# Some value of c fails each target but string and variant.
STRICT_SUCCEEDS = {"string", "variant"}
STRICT_FORMS = {
    "variant_get": (
        "variant_get(v, '$.x', '{t}')",
        "c",
        ["boolean", "decimal(5,2)", "binary", "timestamp_ntz", "string", "variant"],
    ),
    "colon": ("v:x::{t}", "c", ["int", "date", "variant"]),
    "cast": ("cast(v:x AS {t})", "c", ["int", "string"]),
    "top_level": ("variant_get(v, '$', '{t}')", "s", ["date", "string"]),
}


def _strict_params() -> list[Any]:
    return [
        pytest.param(
            form.format(t=target),
            table,
            None if target in STRICT_SUCCEEDS else "INVALID_VARIANT_CAST",
            id=f"{name}-{target}",
        )
        for name, (form, table, targets) in STRICT_FORMS.items()
        for target in targets
    ]


@pytest.mark.parametrize(("expression", "table", "raises"), _strict_params())
def test_strict_whole_table(check: Check, expression: str, table: str, raises: str | None) -> None:
    """A strict extraction of every row fails as Spark fails, or gives what Spark gives."""
    check(f"SELECT w, label, {expression} AS e FROM {table}", raises=raises)


@pytest.mark.parametrize("group", list(TYPE_NAMES))
def test_type_names(check_batch: CheckBatch, group: str) -> None:
    """Spark's other names of the target types (``long``, ``short``, ``real``, ``dec(4,1)``, ...)."""
    check_batch(TRY_FIELD, group)


@pytest.mark.parametrize(
    ("target", "raises"),
    [
        pytest.param("varchar(3)", "UNSUPPORTED_CHAR_OR_VARCHAR_AS_STRING", id="varchar"),
        pytest.param("decimal(39,0)", "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", id="decimal_too_wide"),
        pytest.param("not_a_type", "UNSUPPORTED_DATATYPE", id="unknown_type"),
        pytest.param("void", "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION", id="void"),
    ],
)
def test_refused_target(check: Check, target: str, raises: str) -> None:
    """Target types Spark refuses, with its error class."""
    check(f"SELECT try_variant_get(v, '$.x', '{target}') AS a FROM c", raises=raises)


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param("SELECT w, label, try_cast(v AS int) AS i FROM s", id="try_cast_column"),
        pytest.param("SELECT w, label, cast(v AS string) AS s FROM s", id="cast_column"),
        pytest.param("SELECT w, label, v::string AS s FROM s", id="colon_colon_column"),
        pytest.param(
            "SELECT w, label, try_cast(x AS int) AS i FROM (SELECT w, label, v:x AS x FROM c)",
            id="try_cast_subquery_column",
        ),
        pytest.param(
            "SELECT w, label, x::string AS s FROM (SELECT w, label, v:x AS x FROM c)",
            id="cast_subquery_column",
        ),
    ],
)
def test_cast_of_a_variant_column(check: Check, sql: str) -> None:
    """A cast of a variant column itself, or of a subquery's, is Spark's variant cast."""
    check(sql)


def test_strict_extraction_before_where(check: Check) -> None:
    """Spark extracts in its scan, before the WHERE, so a strict cast fails on a row the WHERE drops."""
    check(
        "SELECT w, label, variant_get(v, '$.x', 'int') AS i FROM c "
        "WHERE try_variant_get(v, '$.x', 'int') IS NOT NULL",
        raises="INVALID_VARIANT_CAST",
    )


@pytest.mark.parametrize(
    ("sql", "raises"),
    [
        # Spark pushes a strict variant_get (and a cast of the variant column itself) into its
        # scan, and computes it for every row the scan reads, wherever the query uses it.
        pytest.param(
            "SELECT w, label, variant_get(v, '$.x', 'int') AS i FROM c WHERE label = 'int8'",
            "INVALID_VARIANT_CAST", id="variant_get_plain_filter",
        ),
        pytest.param(
            "SELECT sum(variant_get(v, '$.x', 'int')) AS n FROM c WHERE try_variant_get(v, '$.x', 'int') IS NOT NULL",
            "INVALID_VARIANT_CAST", id="variant_get_in_aggregate",
        ),
        pytest.param(
            "SELECT w, label FROM c WHERE label = 'int8' ORDER BY variant_get(v, '$.x', 'int')",
            "INVALID_VARIANT_CAST", id="variant_get_in_order_by",
        ),
        pytest.param(
            "SELECT w, label, CASE WHEN label = 'int8' THEN variant_get(v, '$.x', 'int') END AS i FROM c",
            "INVALID_VARIANT_CAST", id="variant_get_in_case",
        ),
        pytest.param(
            "SELECT w, label, cast(v AS int) AS i FROM s WHERE try_cast(v AS int) IS NOT NULL",
            "INVALID_VARIANT_CAST", id="cast_of_column",
        ),
        # A cast of a `:` path is a cast of the variant Spark's scan gives: computed only for
        # the rows that reach it.
        pytest.param(
            "SELECT w, label, v:x::int AS i FROM c WHERE try_variant_get(v, '$.x', 'int') IS NOT NULL",
            None, id="colon_cast_after_filter",
        ),
        pytest.param(
            "SELECT w, label, cast(v:x AS int) AS i FROM c WHERE label = 'int8'",
            None, id="colon_cast_plain_filter",
        ),
        pytest.param(
            "SELECT sum(v:x::int) AS n FROM c WHERE try_variant_get(v, '$.x', 'int') IS NOT NULL",
            None, id="colon_cast_in_aggregate",
        ),
        # Through a sample (a LIMIT subquery): Spark moves a projection below the limit
        # (PushProjectionThroughLimit), into its scan, so a row past the sample still fails it;
        # a WHERE, an aggregate's argument or an ORDER BY is computed above, for the sample's rows.
        pytest.param(
            "SELECT label, variant_get(v, '$.x', 'int') AS i FROM c TABLESAMPLE (3 ROWS)",
            "INVALID_VARIANT_CAST", id="sample_projection",
        ),
        pytest.param(
            "SELECT variant_get(v, '$.x', 'int') AS i, count(*) AS n FROM c TABLESAMPLE (3 ROWS) GROUP BY 1",
            "INVALID_VARIANT_CAST", id="sample_grouping_key",
        ),
        pytest.param(
            "SELECT label, sum(variant_get(v, '$.x', 'int')) OVER (ORDER BY label) AS n FROM c TABLESAMPLE (3 ROWS)",
            "INVALID_VARIANT_CAST", id="sample_window_argument",
        ),
        pytest.param(
            "SELECT label, variant_get(v, '$.x', 'int') AS i FROM c TABLESAMPLE (3 ROWS) WHERE label IS NOT NULL",
            None, id="sample_filtered",
        ),
        pytest.param(
            "SELECT label FROM c TABLESAMPLE (3 ROWS) WHERE variant_get(v, '$.x', 'int') > 0",
            None, id="sample_in_where",
        ),
        pytest.param(
            "SELECT count(variant_get(v, '$.x', 'int')) AS n, max(variant_get(v, '$.x', 'int')) AS m FROM c TABLESAMPLE (3 ROWS)",
            None, id="sample_in_aggregate",
        ),
        pytest.param(
            "SELECT label FROM c TABLESAMPLE (3 ROWS) ORDER BY variant_get(v, '$.x', 'int')",
            None, id="sample_in_order_by",
        ),
        # The same cast written both ways: the variant_get is computed in the scan.
        pytest.param(
            "SELECT w, label, v:x::int AS a, variant_get(v, '$.x', 'int') AS b FROM c "
            "WHERE try_variant_get(v, '$.x', 'int') IS NOT NULL",
            "INVALID_VARIANT_CAST", id="colon_cast_beside_variant_get",
        ),
    ],
)
def test_when_spark_extracts(check: Check, sql: str, raises: str | None) -> None:
    """Where Spark computes an extraction decides which rows can make it fail."""
    check(sql, raises=raises)
