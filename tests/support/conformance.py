"""The parquet-testing Variant suite, shared by the conformance tests at every level.

The data is apache/parquet-testing at commit 1a2a75127be06fc0123f03ebd36c966f7beda27d (Apache
License 2.0), read from ``shared/conformance`` beside the repository, never copied.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vpush.codec.value import Variant

SUITE = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "parquet-testing"
CASES_DIR = SUITE / "shredded_variant"
ENCODINGS_DIR = SUITE / "variant"
MISSING = f"the conformance suite is missing: expected apache/parquet-testing under {SUITE}"

# Must-fail cases and why each file breaks the spec (the suite's README).
MUST_FAIL = {
    40: "array element has both value and typed_value",
    42: "top-level non-object with both value and typed_value",
    87: "value is not an object but shredded fields are non-null",
    127: "typed_value is INT(32, unsigned), not an allowed shredding type",
    128: "value is a variant null while typed_value (object) is non-null",
    137: "typed_value is fixed_len_byte_array(4), not an allowed type",
}
# INVALID cases: a reader may raise or return the expected value. What vpush does, and why:
INVALID = {
    43: "raise: the value object repeats a shredded field name (spec: must never contain it)",
    84: "read: optional field groups; a null group can only mean a missing field",
    125: "raise: the value object repeats shredded field b",
}


def load_cases() -> list[dict[str, Any]]:
    """Every case with a Parquet file (case 3 is an empty placeholder).

    Raises:
        FileNotFoundError: the suite is not beside the repository.
    """
    if not (CASES_DIR / "cases.json").is_file():
        raise FileNotFoundError(MISSING)
    return [c for c in json.loads((CASES_DIR / "cases.json").read_text()) if "parquet_file" in c]


def expected_variants(case: dict[str, Any]) -> list[Variant | None]:
    """The expected variant of each row (None for a SQL NULL row)."""
    files = case.get("variant_files") or [case["variant_file"]]
    return [None if f is None else Variant.from_concatenated((CASES_DIR / f).read_bytes()) for f in files]
