"""The vectorized casts of residual numbers and strings equal the row-by-row cast, value by value
and error by error, for every integer width, doubles (NaN, infinities, bounds), strings (short and
long, unicode), booleans, variant nulls, SQL NULLs and values they leave to the slow path
(decimals, objects, truncated bytes)."""
from __future__ import annotations


from typing import Any

import pyarrow as pa
import pytest

from hypothesis import given
from hypothesis import strategies as st

from vpush.codec.builder import encode
from vpush.codec.errors import VpushError
from vpush.codec.value import Variant
from vpush.exec import variant_cast
from vpush.exec.variant_cast import cast_variant, variant_get_column
from vpush.optimizer.variant_types import parse_variant_type

TARGETS = ["tinyint", "smallint", "int", "bigint", "double", "string"]
EDGES = [2**7, -(2**7) - 1, 2**15, 2**31, -(2**31) - 1, 2**63 - 1, -(2**63)]
values = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from(EDGES),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([2.0**31, -(2.0**31) - 0.5, 2147483647.9, 2.0**63, -(2.0**63), 127.99, -128.99]),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
    st.text(min_size=60, max_size=70),  # some over 63 bytes: long strings
    st.decimals(-1000, 1000, places=2, allow_nan=False),
    st.just({"a": 1}),
)
SPECIALS = ["SQL NULL", "TRUNCATED", "TRUNCATED STRING"]
rows = st.lists(st.one_of(st.sampled_from(SPECIALS), values), min_size=1, max_size=30)


def _column(items: list[Any]) -> tuple[pa.Array, pa.Array]:
    metadata: list[bytes | None] = []
    value: list[bytes | None] = []
    for item in items:
        if isinstance(item, str) and item == "SQL NULL":
            metadata.append(None)
            value.append(None)
            continue
        if isinstance(item, str) and item == "TRUNCATED":
            m, v = encode(12345678901)
            metadata.append(m)
            value.append(v[:3])  # an int64 header with 2 of its 8 bytes
            continue
        if isinstance(item, str) and item == "TRUNCATED STRING":
            m, v = encode("a" * 100)
            metadata.append(m)
            value.append(v[:50])  # a long string's header declares 100 bytes; 45 follow
            continue
        m, v = encode(item)
        metadata.append(m)
        value.append(v)
    return pa.array(metadata, pa.binary()), pa.array(value, pa.binary())


def _one_by_one(metadata: pa.Array, value: pa.Array, target: str, strict: bool) -> tuple[str, Any]:
    spark_type = parse_variant_type(target)
    out = []
    try:
        for m, v in zip(metadata.to_pylist(), value.to_pylist()):
            out.append(None if m is None else cast_variant(Variant(m, v), spark_type, strict=strict, time_zone="UTC"))
    except VpushError as exc:
        return "error", (exc.error_class, type(exc).__name__)
    return "rows", out


@given(items=rows, target=st.sampled_from(TARGETS), strict=st.booleans())
def test_vectorized_equals_row_by_row(items: list[Any], target: str, strict: bool) -> None:
    metadata, value = _column(items)
    want = _one_by_one(metadata, value, target, strict)
    try:
        got: tuple[str, Any] = (
            "rows",
            variant_get_column(metadata, value, "$", parse_variant_type(target), strict=strict, time_zone="UTC").to_pylist(),
        )
    except VpushError as exc:
        got = ("error", (exc.error_class, type(exc).__name__))
    if got[0] == "rows" and want[0] == "rows":
        # NaN != NaN: compare as text.
        assert [repr(x) for x in got[1]] == [repr(x) for x in want[1]]
    else:
        assert got == want


def test_strings_are_cast_without_a_row_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_row_loop(*args: Any) -> Any:
        raise AssertionError("a string row went through the row-by-row cast")

    monkeypatch.setattr(variant_cast, "_cast_raw", no_row_loop)
    metadata, value = _column(["ab", "é" * 40, None, "SQL NULL"])
    got = variant_get_column(metadata, value, "$", parse_variant_type("string"), strict=True, time_zone="UTC")
    assert got.to_pylist() == ["ab", "é" * 40, None, None]


def test_the_fast_path_handles_sliced_and_large_binary() -> None:
    metadata, value = _column([1, 2.5, True, None, 300, "SQL NULL", "x", "y" * 70])
    for m, v in ((metadata.slice(1), value.slice(1)), (metadata, value.cast(pa.large_binary()))):
        for target in ("bigint", "string"):
            spark_type = parse_variant_type(target)
            got = variant_get_column(m, v, "$", spark_type, strict=False, time_zone="UTC").to_pylist()
            want = _one_by_one(m, v.cast(pa.binary()), target, False)[1]
            assert got == want
