"""``vpush.exec.variant_cast`` against PySpark: every (value, target) pair of the matrix gives
Spark's value, or Spark's ``INVALID_VARIANT_CAST`` (NULL with ``try_variant_get``), or a clear
"not supported yet" where vpush does not model the cast."""
from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

import pytest

from vpush.codec.value import Variant
from vpush.exec.errors import ExecutionError
from vpush.exec.variant_cast import cast_variant
from vpush.optimizer.variant_types import parse_variant_type

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

VALUES = [
    "parse_json('1')", "parse_json('0')", "parse_json('-7')", "parse_json('300')", "parse_json('2147483648')",
    "parse_json('1.5')", "parse_json('-1.25')", "parse_json('123.4')", "parse_json('1.005e0')",
    "parse_json('-1.9e0')", "parse_json('1e20')", "parse_json('1e300')", "parse_json('-0.0e0')",
    "parse_json('12345678901234567')", "parse_json('true')", "parse_json('false')", "parse_json('null')",
    "parse_json('\"12\"')", "parse_json('\" 12 \"')", "parse_json('\"1.5\"')", "parse_json('\"abc\"')",
    "parse_json('\"yes\"')", "parse_json('\"No\"')", "parse_json('\"\"')", "parse_json('\"2024-01-02\"')",
    "parse_json('[1, 2]')", "parse_json('{\"b\": 1, \"a\": [true]}')",
    "cast(cast(1.5 AS float) AS variant)", "cast(cast(1.1 AS float) AS variant)",
    "cast(cast(7 AS tinyint) AS variant)", "cast(cast(1.50 AS decimal(4,2)) AS variant)",
    "cast(date'2024-01-02' AS variant)", "cast(timestamp'2024-01-02 03:04:05.5' AS variant)",
    "cast(timestamp_ntz'2024-01-02 23:04:05' AS variant)", "cast(X'4142' AS variant)",
]
TARGETS = [
    "boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "decimal(2,1)", "decimal(5,2)",
    "decimal(38,10)", "string", "binary", "date", "timestamp", "timestamp_ntz",
]
ZONES = ["UTC", "America/Los_Angeles"]


def _spark_answers(spark: SparkSession, target: str) -> list[tuple[str, Any]]:
    """Spark's answer for every value, from one ``try_variant_get`` query: a NULL from a
    non-null value is a failed cast, which ``variant_get`` raises (a few are checked directly in
    :func:`test_strict_failures_raise_in_spark`)."""
    projections = ", ".join(f"try_variant_get({v}, '$', '{target}') AS c{i}" for i, v in enumerate(VALUES))
    row = spark.sql(f"SELECT {projections}").collect()[0]
    return [("value", row[i]) for i in range(len(VALUES))]


def _normal(value: Any, target: str) -> Any:
    if isinstance(value, dt.datetime) and target == "timestamp":
        # PySpark returns local wall-clock time for timestamps; vpush an aware UTC datetime.
        return value.astimezone(dt.timezone.utc) if value.tzinfo is None else value
    if isinstance(value, bytearray):
        return bytes(value)
    return value


@pytest.mark.parametrize("zone", ZONES)
def test_cast_matrix_matches_spark(spark: SparkSession, zone: str) -> None:
    previous = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        variants = spark.sql("SELECT " + ", ".join(f"{v} AS c{i}" for i, v in enumerate(VALUES))).collect()[0]
        checked = not_modelled = 0
        mismatches = []
        for target in TARGETS:
            spark_type = parse_variant_type(target)
            answers = _spark_answers(spark, target)
            for i, value in enumerate(VALUES):
                raw = variants[i]
                view = Variant(bytes(raw.metadata), bytes(raw.value))
                want_try = answers[i]
                failed = want_try[1] is None and not view.is_null()
                want_strict = ("error", "INVALID_VARIANT_CAST") if failed else want_try
                for strict, want in ((False, want_try), (True, want_strict)):
                    try:
                        got: tuple[str, Any] = ("value", cast_variant(view, spark_type, strict=strict, time_zone=zone))
                    except ExecutionError as exc:
                        if exc.error_class is None and "not supported yet" in str(exc):
                            not_modelled += 1
                            continue
                        got = ("error", exc.error_class)
                    checked += 1
                    if (got[0], _normal(got[1], target)) != (want[0], _normal(want[1], target)):
                        mismatches.append((value, target, strict, got, want))
        assert not mismatches, mismatches[:10]
        # Most of the matrix is modelled; the rest says so instead of guessing.
        assert checked > 4 * not_modelled, (checked, not_modelled)
    finally:
        spark.conf.set("spark.sql.session.timeZone", previous)


@pytest.mark.parametrize(
    ("value", "target"),
    [("parse_json('2147483648')", "int"), ("parse_json('\"abc\"')", "int"), ("parse_json('[1, 2]')", "double"),
     ("parse_json('123.4')", "decimal(3,1)")],
)
def test_strict_failures_raise_in_spark(spark: SparkSession, value: str, target: str) -> None:
    """The matrix reads strict answers off try_variant_get's NULLs; Spark raises on these."""
    with pytest.raises(Exception, match="INVALID_VARIANT_CAST"):
        spark.sql(f"SELECT variant_get({value}, '$', '{target}')").collect()
    assert spark.sql(f"SELECT try_variant_get({value}, '$', '{target}')").collect()[0][0] is None
