"""The compiled explode kernel takes arrays and objects apart as the Python reference does
(``Variant.elements`` / ``Variant.items``), on generated values and on damaged bytes, where it
raises only vpush's errors."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from strategies import values  # noqa: E402
from support.unsorted import unsorted_variant
from vpush.codec.builder import encode
from vpush.codec.errors import VpushError
from vpush.codec.header import BasicType
from vpush.codec.native import (
    EXPLODE_ARRAY,
    EXPLODE_NULL,
    EXPLODE_OBJECT,
    EXPLODE_OTHER,
    NATIVE_AVAILABLE,
    explode_native,
)
from vpush.codec.value import Variant

pytestmark = pytest.mark.skipif(not NATIVE_AVAILABLE, reason="the compiled kernel is not built")


def _reference(rows: list[tuple[bytes, bytes] | None]) -> tuple[list[int], list[int], list[bytes], list[str | None]]:
    kinds, counts, elements, keys = [], [], [], []
    for row in rows:
        if row is None:
            kinds.append(EXPLODE_NULL)
            counts.append(0)
            continue
        node = Variant(*row)
        if node.basic_type == BasicType.ARRAY:
            children = list(node.elements())
            kinds.append(EXPLODE_ARRAY)
            keys += [None] * len(children)
        elif node.basic_type == BasicType.OBJECT:
            pairs = list(node.items())
            children = [child for _, child in pairs]
            kinds.append(EXPLODE_OBJECT)
            keys += [name for name, _ in pairs]
        else:
            children = []
            kinds.append(EXPLODE_OTHER)
        counts.append(len(children))
        elements += [child.value_bytes() for child in children]
    return kinds, counts, elements, keys


def _native(rows: list[tuple[bytes, bytes] | None]) -> tuple[list[int], list[int], list[bytes], list[str | None]]:
    metadata = pa.array([None if r is None else r[0] for r in rows], pa.binary())
    value = pa.array([None if r is None else r[1] for r in rows], pa.binary())
    kinds, counts, elements, keys = explode_native(metadata, value)
    return kinds.tolist(), counts.tolist(), elements.to_pylist(), keys.to_pylist()


@given(st.lists(st.one_of(st.none(), values), max_size=8))
def test_generated_values_match_reference(rows: list[Any]) -> None:
    encoded = [None if r is None else encode(r) for r in rows]
    assert _native(encoded) == _reference(encoded), "The kernel takes values apart as the reference"


def test_unsorted_objects_keep_their_stored_order() -> None:
    rows = [unsorted_variant([("s", 1), ("a", [2, None]), ("arr", "x")]), encode([]), encode({})]
    kinds, counts, elements, keys = _native(rows)
    assert (kinds, counts, keys) == ([EXPLODE_OBJECT, EXPLODE_ARRAY, EXPLODE_OBJECT], [3, 0, 0], ["s", "a", "arr"])
    assert (kinds, counts, elements, keys) == _reference(rows), "Stored order, as Spark's getFieldAtIndex"


def test_damaged_bytes_raise_only_vpush_errors() -> None:
    rng = random.Random(7)
    base = [encode({"a": [1, "two", {"b": None}], "c": {"d": 1.5}}), encode([[1], {"x": "y"}, None])]
    for meta, value in base:
        damaged = [value[:n] for n in range(len(value))]
        for _ in range(400):
            pos = rng.randrange(len(value))
            damaged.append(value[:pos] + bytes([rng.randrange(256)]) + value[pos + 1 :])
        for raw in damaged:
            try:
                want: Any = _reference([(meta, raw)])
            except VpushError:
                want = VpushError
            try:
                got: Any = _native([(meta, raw)])
            except VpushError:
                got = VpushError
            assert got == want, f"Same answer or same refusal for damaged bytes {raw.hex()}"
