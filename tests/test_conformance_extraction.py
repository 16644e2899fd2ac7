"""Extractions over every valid parquet-testing case give what extracting from the expected
variant gives: the rewrite follows every layout in the suite (shredded objects, arrays, primitives
of every type, partial shredding, the draft layout, unannotated groups) to the right columns.

For each case, the paths are every top-level key, every second-level key, the first element of
arrays, and a key that is nowhere; each is read with a ``variant`` target (``var:...``) and with
``try_variant_get(..., 'string')`` (a typed leaf cast through the residual fallback too).
"""
from __future__ import annotations

from typing import Any

import pytest
from support.conformance import CASES_DIR, INVALID, MUST_FAIL, expected_variants, load_cases

import vpush
from vpush.codec.header import BasicType
from vpush.codec.path import VariantPath, extract
from vpush.codec.value import Variant, variant_equal
from vpush.exec.variant_cast import cast_variant
from vpush.optimizer.variant_types import parse_variant_type

CASES = [c for c in load_cases() if c["case_number"] not in MUST_FAIL and c["case_number"] not in INVALID]
STRING = parse_variant_type("string")


def _paths(rows: list[Variant | None]) -> list[tuple[str | int, ...]]:
    found: dict[tuple[str | int, ...], None] = {}
    for row in rows:
        if row is None:
            continue
        if row.basic_type == BasicType.ARRAY and len(row):
            found[(0,)] = None
        if row.basic_type != BasicType.OBJECT:
            continue
        for key, child in row.items():
            found[(key,)] = None
            if child.basic_type == BasicType.OBJECT:
                for inner in child.keys():
                    found[(key, inner)] = None
            elif child.basic_type == BasicType.ARRAY and len(child):
                found[(key, 0)] = None
    found[("no such key",)] = None
    return list(found)


def _expected(rows: list[Variant | None], path: VariantPath) -> list[tuple[Any, Any]]:
    out = []
    for row in rows:
        got = extract(row.metadata, row.buf[row.pos : row.end], path) if row is not None else None
        text = cast_variant(got, STRING, strict=False, time_zone="UTC") if got is not None else None
        out.append((got, text))
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"case-{c['case_number']:03d}")
def test_extractions_follow_the_layout(case: dict[str, Any]) -> None:
    expected_rows = expected_variants(case)
    paths = _paths(expected_rows)
    con = vpush.connect(time_zone="UTC")
    con.register("t", CASES_DIR / case["parquet_file"])
    projections = []
    for i, segments in enumerate(paths):
        text = VariantPath(segments).to_spark().replace("'", "\\'")
        projections.append(f"variant_get(var, '{text}') AS v{i}")
        projections.append(f"try_variant_get(var, '{text}', 'string') AS s{i}")
    table = con.sql(f"SELECT {', '.join(projections)} FROM t").to_arrow()
    assert table.num_rows == len(expected_rows)
    for i, segments in enumerate(paths):
        want = _expected(expected_rows, VariantPath(segments))
        got_variants = table.column(f"v{i}").to_pylist()
        got_strings = table.column(f"s{i}").to_pylist()
        for row, ((want_variant, want_text), got_variant, got_text) in enumerate(zip(want, got_variants, got_strings)):
            where = f"row {row}, path {VariantPath(segments).to_spark()}"
            if want_variant is None:
                assert got_variant is None, where
            else:
                assert got_variant is not None, where
                assert variant_equal(Variant(got_variant["metadata"], got_variant["value"]), want_variant), where
            assert got_text == want_text, where
