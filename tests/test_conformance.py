"""The parquet-testing Variant suite, read through the public API (``SELECT var FROM t``).

The cases come from apache/parquet-testing at commit 1a2a75127be06fc0123f03ebd36c966f7beda27d
(Apache License 2.0), kept unchanged beside the project in ``shared/conformance``.
"""
from __future__ import annotations

import base64
import datetime as dt
import decimal
import uuid
from pathlib import Path
from typing import Any

import numpy
import pyarrow as pa
import pytest
from support.conformance import CASES_DIR, ENCODINGS_DIR, INVALID, MUST_FAIL, expected_variants, load_cases
from vpush.codec.errors import InvalidShreddingError, MalformedVariantError, VpushError
from vpush.codec.header import PrimitiveType, VariantType
from vpush.codec.scalars import Float32, VariantScalar
from vpush.codec.value import Variant, variant_equal

import vpush

MAY_FAIL = set(INVALID)
CASES = load_cases()
VARIANT_DIR = ENCODINGS_DIR


def _read(path: Path, con: vpush.Connection | None = None) -> pa.Table:
    con = con or vpush.connect(time_zone="UTC")
    con.register("t", path)
    return con.sql("SELECT id, var FROM t ORDER BY id").to_arrow()


@pytest.fixture(scope="module")
def spark_con(spark: Any) -> vpush.Connection:
    return vpush.connect(engine="spark", spark=spark, time_zone="UTC")


def test_suite_counts() -> None:
    valid = [c for c in CASES if "error_message" not in c and c["case_number"] not in MAY_FAIL]
    assert (len(CASES), len(valid), len(MUST_FAIL), len(MAY_FAIL)) == (137, 128, 6, 3)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"case-{c['case_number']:03d}")
def test_case(case: dict[str, Any]) -> None:
    _check_case(case, None)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"case-{c['case_number']:03d}")
def test_case_through_the_spark_engine(case: dict[str, Any], spark_con: vpush.Connection) -> None:
    """The same answers from Spark, through vpush's scan: also for the layouts and types that
    Spark cannot read itself, and the same errors, naming the file."""
    _check_case(case, spark_con)


def _check_case(case: dict[str, Any], con: vpush.Connection | None) -> None:
    number = case["case_number"]
    path = CASES_DIR / case["parquet_file"]
    if number in MUST_FAIL:
        assert "error_message" in case
        with pytest.raises((InvalidShreddingError, MalformedVariantError)) as info:
            _read(path, con)
        assert info.value.file is not None, "the error should name the file"
        return
    try:
        table = _read(path, con)
    except VpushError:
        if number in MAY_FAIL:
            return
        raise
    assert table.schema.field("var").type == pa.struct(
        [pa.field("metadata", pa.binary()), pa.field("value", pa.binary())]
    ), "a variant column comes back as struct<metadata, value>"
    rows = table.column("var").to_pylist()
    expected = expected_variants(case)
    assert len(rows) == len(expected), "one row per expected variant"
    for i, (row, want) in enumerate(zip(rows, expected)):
        if want is None:
            assert row is None, f"row {i} should be SQL NULL"
            continue
        assert row is not None, f"row {i} should not be SQL NULL"
        got = Variant(row["metadata"], row["value"])
        got.validate()
        assert variant_equal(got, want), f"row {i}: got {got!r}, expected {want!r}"



# The documented value of each example (data_dictionary.json, read as a hint: it is not strict
# JSON and renders some types loosely), with the exact Variant type the bytes must carry.
_UTC = dt.timezone.utc
VARIANT_EXAMPLES: dict[str, tuple[VariantType, Any]] = {
    "array_empty": (VariantType.ARRAY, []),
    "array_nested": (
        VariantType.ARRAY,
        [
            {"id": 1, "thing": {"names": ["Contrarian", "Spider"]}},
            None,
            {"id": 2, "names": ["Apple", "Ray", None], "type": "if"},
        ],
    ),
    "array_primitive": (VariantType.ARRAY, [2, 1, 5, 9]),
    "long_string": (VariantType.STRING, None),  # no dictionary entry; checked below
    "object_empty": (VariantType.OBJECT, {}),
    "object_nested": (
        VariantType.OBJECT,
        {
            "id": 1,
            "observation": {
                "location": "In the Volcano",
                "time": "12:34:56",
                "value": {"humidity": 456, "temperature": 123},
            },
            "species": {"name": "lava monster", "population": 6789},
        },
    ),
    "object_primitive": (
        VariantType.OBJECT,
        {
            "boolean_false_field": False,
            "boolean_true_field": True,
            "double_field": decimal.Decimal("1.23456789"),
            "int_field": 1,
            "null_field": None,
            "string_field": "Apache Parquet",
            "timestamp_field": "2025-04-16T12:34:56.78",
        },
    ),
    "primitive_binary": (VariantType.BINARY, base64.b64decode("AxM33q2+78r+")),
    "primitive_boolean_false": (VariantType.BOOLEAN, False),
    "primitive_boolean_true": (VariantType.BOOLEAN, True),
    "primitive_date": (VariantType.DATE, dt.date(2025, 4, 16)),
    "primitive_decimal16": (VariantType.DECIMAL16, decimal.Decimal("12345678912345678.90")),
    "primitive_decimal4": (VariantType.DECIMAL4, decimal.Decimal("12.34")),
    "primitive_decimal8": (VariantType.DECIMAL8, decimal.Decimal("12345678.90")),
    "primitive_double": (VariantType.DOUBLE, 1234567890.1234),
    "primitive_float": (VariantType.FLOAT, float(numpy.float32(1234567940.0))),
    "primitive_int16": (VariantType.INT16, 1234),
    "primitive_int32": (VariantType.INT32, 123456),
    "primitive_int64": (VariantType.INT64, 1234567890123456789),
    "primitive_int8": (VariantType.INT8, 42),
    "primitive_null": (VariantType.NULL, None),
    "primitive_string": (
        VariantType.STRING,
        "This string is longer than 64 bytes and therefore does not fit in a short_string and it "
        "also includes several non ascii characters such as \U0001f422, \U0001f496, \u2665\ufe0f, "
        "\U0001f3a3 and \U0001f926!!",
    ),
    "primitive_time": (VariantType.TIME, dt.time(12, 33, 54, 123456)),
    "primitive_timestamp": (VariantType.TIMESTAMP, dt.datetime(2025, 4, 16, 16, 34, 56, 780000, tzinfo=_UTC)),
    "primitive_timestampntz": (VariantType.TIMESTAMP_NTZ, dt.datetime(2025, 4, 16, 12, 34, 56, 780000)),
    "primitive_timestamp_nanos": (
        VariantType.TIMESTAMP_NANOS,
        VariantScalar(PrimitiveType.TIMESTAMP_NANOS, 1730982834123456789),
    ),
    "primitive_timestampntz_nanos": (
        VariantType.TIMESTAMP_NTZ_NANOS,
        VariantScalar(PrimitiveType.TIMESTAMP_NTZ_NANOS, 1730982834123456789),
    ),
    "primitive_uuid": (VariantType.UUID, uuid.UUID("f24f9b64-81fa-49d1-b74e-8c09a6e31c56")),
    "short_string": (VariantType.STRING, "Less than 64 bytes (\u2764\ufe0f with utf8)"),
}


def test_variant_examples_are_all_listed() -> None:
    assert sorted(p.stem for p in VARIANT_DIR.glob("*.metadata")) == sorted(VARIANT_EXAMPLES)


@pytest.mark.parametrize("name", sorted(VARIANT_EXAMPLES))
def test_variant_encoding_examples(name: str) -> None:
    meta = (VARIANT_DIR / f"{name}.metadata").read_bytes()
    value = (VARIANT_DIR / f"{name}.value").read_bytes()
    v = Variant(meta, value)
    v.metadata.validate()
    v.validate()
    want_type, want = VARIANT_EXAMPLES[name]
    assert v.type == want_type, f"{name} should be a {want_type.value}"
    got = v.to_python()
    if name == "long_string":
        assert got.startswith("This string is for sure and certainly longer than 64 bytes"), got
        assert len(got.encode()) > 63, "a long string is over 63 bytes"
        return
    assert got == want, f"{name}: decoded {got!r}"
    if name == "primitive_float":
        assert isinstance(got, Float32), "a float stays a float, not a double"
