"""The parquet-testing Variant suite at the codec level: find_variant_columns + unshred, compared
with each case's expected ``.variant.bin`` by value (``variant_equal``).

The data is apache/parquet-testing at commit 1a2a75127be06fc0123f03ebd36c966f7beda27d (Apache
License 2.0), read from ``../shared/conformance`` next to the repository, never copied.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from support.conformance import (
    CASES_DIR,
    ENCODINGS_DIR,
    INVALID,
    MISSING,
    MUST_FAIL,
    expected_variants,
    load_cases,
)
from vpush.codec.errors import InvalidShreddingError, MalformedVariantError
from vpush.codec.header import VariantType
from vpush.codec.layout import find_variant_columns
from vpush.codec.metadata import VariantMetadata
from vpush.codec.unshred import UNSHREDDED_TYPE, unshred
from vpush.codec.value import Variant, variant_equal

CASES = load_cases()


def _require_suite() -> None:
    if not ENCODINGS_DIR.is_dir():
        pytest.fail(MISSING)


def _read(path: Path) -> list[dict[str, bytes] | None]:
    """The ``var`` column of every row group, unshredded, in file order."""
    name = str(path)
    pf = pq.ParquetFile(path)
    layout = find_variant_columns(pf, file=name)["var"]
    chunks = [
        unshred(layout, pf.read_row_group(i).column("var"), file=name) for i in range(pf.num_row_groups)
    ]
    for chunk in chunks:
        assert chunk.type.equals(UNSHREDDED_TYPE), "unshred should return struct<metadata, value>"
    return pa.chunked_array(chunks, UNSHREDDED_TYPE).to_pylist()


def test_suite_counts() -> None:
    _require_suite()
    valid = [c for c in CASES if "error_message" not in c and c["case_number"] not in INVALID]
    must_fail = [c for c in CASES if "error_message" in c]
    assert (len(CASES), len(valid), len(must_fail)) == (137, 128, 6), "the pinned suite has 137 cases"
    assert {c["case_number"] for c in must_fail} == set(MUST_FAIL), "must-fail cases as in the README"
    assert {c["case_number"] for c in CASES if "notes" in c} == set(INVALID), "INVALID cases as in the README"


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"case-{c['case_number']:03d}")
def test_case(case: dict[str, Any]) -> None:
    _require_suite()
    number = case["case_number"]
    path = CASES_DIR / case["parquet_file"]
    if number in MUST_FAIL:
        with pytest.raises((InvalidShreddingError, MalformedVariantError)) as info:
            _read(path)
        assert info.value.file == str(path), f"the error should name the file ({MUST_FAIL[number]})"
        assert info.value.column_path is not None and info.value.column_path.startswith("var"), (
            "the error should name the column path"
        )
        return
    try:
        rows = _read(path)
    except (InvalidShreddingError, MalformedVariantError) as err:
        assert number in INVALID, f"valid case {number} should read, but raised {err}"
        assert err.file == str(path) and err.column_path is not None, "the error should name file and column"
        return
    expected = expected_variants(case)
    assert len(rows) == len(expected), "one output row per expected variant"
    for k, (row, want) in enumerate(zip(rows, expected)):
        if want is None:
            assert row is None, f"row {k} should be SQL NULL"
            continue
        assert row is not None, f"row {k} should not be SQL NULL"
        got = Variant(row["metadata"], row["value"])
        got.validate()
        VariantMetadata(row["metadata"]).validate()
        assert variant_equal(got, want), f"row {k}: got {got!r}, expected {want!r}"


@pytest.mark.parametrize(("number", "decision"), sorted(INVALID.items()))
def test_invalid_case_decisions(number: int, decision: str) -> None:
    """Pin what vpush does with each INVALID file, so that a change is deliberate."""
    _require_suite()
    case = next(c for c in CASES if c["case_number"] == number)
    path = CASES_DIR / case["parquet_file"]
    if decision.startswith("raise"):
        with pytest.raises(InvalidShreddingError):
            _read(path)
    else:
        rows = _read(path)
        assert rows[0] is not None
        assert variant_equal(Variant(rows[0]["metadata"], rows[0]["value"]), expected_variants(case)[0]), decision


def _encoding_names() -> list[str]:
    if not ENCODINGS_DIR.is_dir():
        return ["<missing>"]
    return sorted(p.stem for p in ENCODINGS_DIR.glob("*.metadata"))


# The Variant type each primitive example must decode to.
_PRIMITIVE_TYPES = {
    "primitive_binary": VariantType.BINARY,
    "primitive_boolean_false": VariantType.BOOLEAN,
    "primitive_boolean_true": VariantType.BOOLEAN,
    "primitive_date": VariantType.DATE,
    "primitive_decimal4": VariantType.DECIMAL4,
    "primitive_decimal8": VariantType.DECIMAL8,
    "primitive_decimal16": VariantType.DECIMAL16,
    "primitive_double": VariantType.DOUBLE,
    "primitive_float": VariantType.FLOAT,
    "primitive_int8": VariantType.INT8,
    "primitive_int16": VariantType.INT16,
    "primitive_int32": VariantType.INT32,
    "primitive_int64": VariantType.INT64,
    "primitive_null": VariantType.NULL,
    "primitive_string": VariantType.STRING,
    "primitive_time": VariantType.TIME,
    "primitive_timestamp": VariantType.TIMESTAMP,
    "primitive_timestamp_nanos": VariantType.TIMESTAMP_NANOS,
    "primitive_timestampntz": VariantType.TIMESTAMP_NTZ,
    "primitive_timestampntz_nanos": VariantType.TIMESTAMP_NTZ_NANOS,
    "primitive_uuid": VariantType.UUID,
    "short_string": VariantType.STRING,
    "long_string": VariantType.STRING,
}


def test_encoding_count() -> None:
    _require_suite()
    assert len(_encoding_names()) == 29, "the pinned suite has 29 variant/ examples"


@pytest.mark.parametrize("name", _encoding_names())
def test_encoding(name: str) -> None:
    _require_suite()
    metadata = (ENCODINGS_DIR / f"{name}.metadata").read_bytes()
    value = (ENCODINGS_DIR / f"{name}.value").read_bytes()
    VariantMetadata(metadata).validate()
    variant = Variant(metadata, value)
    variant.validate()
    variant.to_python()
    if name in _PRIMITIVE_TYPES:
        assert variant.type == _PRIMITIVE_TYPES[name], f"{name} should decode as {_PRIMITIVE_TYPES[name]}"
    elif name.startswith("object"):
        assert variant.type == VariantType.OBJECT
    else:
        assert variant.type == VariantType.ARRAY, f"{name} should be an array"
