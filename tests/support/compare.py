"""Helpers the Spark-oracle tests share to put vpush's answers and Spark's side by side.

Spark's ``collect()`` and Arrow's ``to_pylist()`` give the same data in different shapes (naive
UTC datetimes against aware ones; ``VariantVal`` against ``{metadata, value}`` structs), so both
sides go through the same normalisation before they are compared.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Container
from typing import TYPE_CHECKING, Any

import pytest

from vpush.codec.errors import VpushError
from vpush.codec.json import to_json
from vpush.codec.value import Variant, variant_equal

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
