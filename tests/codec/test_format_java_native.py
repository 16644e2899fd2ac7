"""The compiled cast of doubles and floats to Java's text equals the Python reference
(:mod:`vpush.codec.java_format`, checked against Java 17 in test_json.py) on random bit patterns,
special values, slices, chunks and nulls."""

from __future__ import annotations

import random
import struct

import pyarrow as pa
import pytest

from vpush.codec.java_format import format_java_double, format_java_float
from vpush.codec.native import NATIVE_AVAILABLE, NativeUnsupportedError, format_java_native

pytestmark = pytest.mark.skipif(not NATIVE_AVAILABLE, reason="the compiled kernel is not built")

SPECIAL = [0.0, -0.0, 1.0, -1.0, 1e7, 9999999.0, 1e-3, 0.00099, 1e10, 1e22, 1e23, 2.0**63, 5e-324,
           1.7976931348623157e308, float("inf"), float("-inf"), float("nan"), 0.1, 1 / 3]


def _doubles(n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(n)] + SPECIAL


def _floats(n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [struct.unpack("<f", rng.getrandbits(32).to_bytes(4, "little"))[0] for _ in range(n)] + SPECIAL


def test_doubles_match_reference() -> None:
    values = _doubles(20_000, 1)
    out = format_java_native(pa.array(values, pa.float64())).to_pylist()
    assert out == [format_java_double(v) for v in values], "Every double prints as Java's Double.toString"


def test_floats_match_reference() -> None:
    values = _floats(20_000, 2)
    array = pa.array(values, pa.float32())
    out = format_java_native(array).to_pylist()
    assert out == [format_java_float(v) for v in array.to_pylist()], "Every float prints as Float.toString"


@pytest.mark.parametrize("kind", [pa.float64(), pa.float32()])
def test_nulls_slices_and_chunks(kind: pa.DataType) -> None:
    values = [None if i % 3 == 0 else v for i, v in enumerate(_doubles(200, 3))]
    array = pa.array(values, kind)
    reference = format_java_double if kind == pa.float64() else format_java_float
    want = [None if v is None else reference(v) for v in array.to_pylist()]
    assert format_java_native(array).to_pylist() == want, "Nulls stay null"
    for start, length in [(1, 50), (7, 0), (13, 187), (199, 1)]:
        sliced = format_java_native(array.slice(start, length))
        assert sliced.to_pylist() == want[start:start + length], f"The slice {start}+{length} keeps its rows"
    chunked = format_java_native(pa.chunked_array([array.slice(0, 64), array.slice(64)]))
    assert chunked.to_pylist() == want, "Chunks print as one array"
    assert format_java_native(pa.array([], kind)).to_pylist() == [], "An empty array prints nothing"


def test_other_types_are_refused() -> None:
    with pytest.raises(NativeUnsupportedError):
        format_java_native(pa.array([1, 2], pa.int64()))
