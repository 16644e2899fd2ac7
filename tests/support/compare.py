"""Helpers the Spark-oracle tests share to put vpush's answers and Spark's side by side.

Spark's ``collect()`` and Arrow's ``to_pylist()`` give the same data in different shapes (naive
UTC datetimes against aware ones; ``VariantVal`` against ``{metadata, value}`` structs), so both
sides go through the same normalisation before they are compared.
"""
from __future__ import annotations

import datetime as dt
import math
import sys
from collections.abc import Container
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest

from vpush.codec.errors import VpushError
from vpush.codec.json import to_json
from vpush.codec.value import Variant, variant_equal
from vpush.optimizer.spark_semantics import arrow_spark_type

if TYPE_CHECKING:
    import vpush
    from pyspark.sql import SparkSession


def plain(value: Any) -> Any:
    """A timestamp as Spark's collect() gives it: naive, in the session time zone (UTC in tests)."""
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return value


def rows(table: Any) -> list[tuple[Any, ...]]:
    """An Arrow table's rows as tuples, timestamps made ``plain`` to compare with Spark's rows."""
    return [tuple(plain(v) for v in row.values()) for row in table.to_pylist()]


def variant_bytes(value: Any) -> Any:
    """A variant as ``(metadata, value)`` bytes from either side (vpush's struct, Spark's VariantVal);
    ``None`` for a SQL NULL; anything else as it is."""
    if isinstance(value, dict) and set(value) == {"metadata", "value"}:
        return None if value["value"] is None else (value["metadata"], value["value"])
    if hasattr(value, "metadata") and hasattr(value, "value"):  # Spark's VariantVal
        return (bytes(value.metadata), bytes(value.value))
    return value


def compare_variants_by_id(got: dict[Any, Any], want: dict[Any, Any], byte_exact_ids: Container[Any]) -> int:
    """Assert each row's variant equals Spark's, and return how many are the same bytes.

    Rows in ``byte_exact_ids``, NULLs and non-variants must be Spark's bytes; the others (variants
    rebuilt from shredded columns, which keep the shredding's scalar widths where Spark's builder
    picks the smallest) must be equal by value and print the same JSON.
    """
    assert got.keys() == want.keys()
    same = 0
    for key, w in want.items():
        g = got[key]
        if key in byte_exact_ids or not isinstance(w, tuple) or g is None:
            assert g == w, f"row {key}: vpush {g!r} != Spark {w!r}"
        else:
            assert variant_equal(Variant(*g), Variant(*w)) and to_json(*g) == to_json(*w), f"row {key}"
        same += g == w
    return same


def variants_by_id(spark: SparkSession, con: vpush.Connection, sql: str) -> tuple[dict[Any, Any], dict[Any, Any]]:
    """Run ``SELECT id, <variant> ...`` on vpush and on Spark; assert the column names are Spark's
    and return each side's second column by ``id`` (vpush's first), as :func:`variant_bytes`."""
    frame = spark.sql(sql)
    want = {row[0]: variant_bytes(row[1]) for row in frame.collect()}
    got_table = con.sql(sql).to_arrow()
    got = {row["id"]: variant_bytes(row[got_table.column_names[1]]) for row in got_table.to_pylist()}
    assert got_table.column_names == frame.columns
    return got, want


def assert_error_as_spark(spark: SparkSession, con: vpush.Connection, sql: str, error_class: str) -> None:
    """Assert Spark fails ``sql`` with ``error_class`` and vpush raises a VpushError of that class."""
    with pytest.raises(Exception) as spark_error:
        spark.sql(sql).collect()
    assert error_class in str(spark_error.value)
    with pytest.raises(VpushError) as error:
        con.sql(sql).to_arrow()
    assert error.value.error_class == error_class


def spark_answer(spark: SparkSession, sql: str) -> tuple[Any, ...]:
    """Spark's column names and simple type names and its rows, or ``("error", error class)``
    (of an error raised in Spark's Parquet scan, the cause's)."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    from differential.harness import spark_error_class

    try:
        frame = spark.sql(sql)
        found = [tuple(row) for row in frame.collect()]
    except (PySparkException, Py4JJavaError) as exc:
        return ("error", spark_error_class(exc))
    return ([(f.name, f.dataType.simpleString()) for f in frame.schema], found)


def vpush_answer(con: vpush.Connection, sql: str) -> tuple[Any, ...]:
    """vpush's column names and Spark type names and its rows, or ``("error", error class)``."""
    try:
        table = con.sql(sql).to_arrow()
    except VpushError as exc:
        if exc.error_class is None:  # shown with a failing test's captured output
            print(f"vpush raised without an error class: {exc}", file=sys.stderr)
        return ("error", exc.error_class)
    fields = []
    for field in table.schema:
        spark_type = arrow_spark_type(field.type)
        text = "void" if pa.types.is_null(field.type) else str(field.type)  # a column of NULLs only: Spark's NullType
        fields.append((field.name, spark_type.to_spark() if spark_type is not None else text))
    columns = [[_maps_as_dicts(v, field.type) for v in column.to_pylist()] for column, field in zip(table.columns, table.schema)]
    return (fields, list(zip(*columns)) if columns else [])


def _maps_as_dicts(value: Any, arrow_type: pa.DataType) -> Any:
    """A value of ``arrow_type`` with its maps as dicts, as PySpark collects them (Arrow gives a
    map as a list of key-value pairs)."""
    if value is None:
        return None
    if pa.types.is_map(arrow_type):
        return {_maps_as_dicts(k, arrow_type.key_type): _maps_as_dicts(v, arrow_type.item_type) for k, v in value}
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return [_maps_as_dicts(v, arrow_type.value_type) for v in value]
    if pa.types.is_struct(arrow_type):
        return {f.name: _maps_as_dicts(value[f.name], f.type) for f in arrow_type}
    return value


def comparable(value: Any) -> Any:
    """A value as both sides can be compared: NaN and -0.0 as text (NaN != NaN, -0.0 == 0.0),
    timestamps as naive UTC, a Spark Row as the dict Arrow gives a struct, a variant as its JSON."""
    if isinstance(value, float) and (math.isnan(value) or (value == 0 and math.copysign(1, value) < 0)):
        return repr(value)
    variant = variant_bytes(value)
    if variant is not value and isinstance(variant, tuple):  # a variant from either side (a rebuilt one may differ in its bytes): its JSON
        return ("variant", to_json(*variant))
    if hasattr(value, "asDict"):
        return {k: comparable(v) for k, v in value.asDict().items()}
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return plain(value)


def comparable_rows(found: list[tuple[Any, ...]], ordered: bool) -> list[tuple[Any, ...]]:
    """Rows made :func:`comparable`, sorted unless their order is the answer's."""
    out = [tuple(comparable(v) for v in row) for row in found]
    return out if ordered else sorted(out, key=repr)


def _ordered_at_top(sql: str) -> bool:
    """Whether the query's own rows are sorted: an ORDER BY of the statement itself, not one
    inside a subquery (``FROM (SELECT ... ORDER BY id) GROUP BY h`` gives its groups in any
    order)."""
    import sqlglot

    from vpush.optimizer.dialect import VpushSpark

    try:
        statement = sqlglot.parse_one(sql, read=VpushSpark)
    except Exception:  # noqa: BLE001 - a query Spark refuses to parse: its rows are not compared
        return sql.lower().split(" from ")[-1].find("order by") >= 0
    return statement.args.get("order") is not None


def assert_same_answer(
    sql: str, spark: SparkSession, con: vpush.Connection, answers: dict[str, tuple[Any, ...]] | None = None
) -> None:
    """vpush's names, types and rows are Spark's (in order only under a top-level ORDER BY), or
    both raise the same error class. ``answers`` keeps Spark's answer by query, for a query
    compared on both engines to run on Spark once."""
    if answers is None:
        answers = {}
    if sql not in answers:
        answers[sql] = spark_answer(spark, sql)
    expected = answers[sql]
    got = vpush_answer(con, sql)
    if expected[0] == "error" or got[0] == "error":
        assert got == expected
        return
    assert got[0] == expected[0]
    ordered = _ordered_at_top(sql) and " over (" not in sql.lower()
    assert comparable_rows(got[1], ordered) == comparable_rows(expected[1], ordered)
