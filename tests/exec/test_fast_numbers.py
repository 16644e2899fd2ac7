"""The vectorized cast of residual numbers equals the row-by-row cast, value by value and error
by error, for every integer width, doubles (NaN, infinities, bounds), booleans, variant nulls,
SQL NULLs and values it leaves to the slow path (strings, decimals, objects, truncated bytes)."""
from __future__ import annotations


from typing import Any

import pyarrow as pa

from hypothesis import given
from hypothesis import strategies as st

from vpush.codec.builder import encode
from vpush.codec.errors import VpushError
from vpush.codec.value import Variant
from vpush.exec.variant_cast import cast_variant, variant_get_column
from vpush.optimizer.variant_types import parse_variant_type

TARGETS = ["tinyint", "smallint", "int", "bigint", "double"]
EDGES = [2**7, -(2**7) - 1, 2**15, 2**31, -(2**31) - 1, 2**63 - 1, -(2**63)]
values = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from(EDGES),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([2.0**31, -(2.0**31) - 0.5, 2147483647.9, 2.0**63, -(2.0**63), 127.99, -128.99]),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
    st.decimals(-1000, 1000, places=2, allow_nan=False),
    st.just({"a": 1}),
)
rows = st.lists(st.one_of(st.just("SQL NULL"), st.just("TRUNCATED"), values), min_size=1, max_size=30)


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


def test_the_fast_path_handles_sliced_and_large_binary() -> None:
    metadata, value = _column([1, 2.5, True, None, 300, "SQL NULL"])
    for m, v in ((metadata.slice(1), value.slice(1)), (metadata, value.cast(pa.large_binary()))):
        got = variant_get_column(m, v, "$", parse_variant_type("bigint"), strict=False, time_zone="UTC").to_pylist()
        want = _one_by_one(m, v.cast(pa.binary()), "bigint", False)[1]
        assert got == want



