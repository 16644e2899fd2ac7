"""Encode/decode round trips, exact widths, truncation and a seeded corruption fuzz."""
from __future__ import annotations

import datetime as dt
import decimal
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given

sys.path.insert(0, str(Path(__file__).parent))
from strategies import values  # noqa: E402

from vpush.codec.builder import encode, encode_array, encode_decimal, encode_int, encode_object, encode_primitive
from vpush.codec.errors import MalformedVariantError, VariantEncodeError
from vpush.codec.header import PrimitiveType, VariantType
from vpush.codec.metadata import VariantMetadata, build_metadata
from vpush.codec.scalars import Float32, VariantScalar
from vpush.codec.value import MAX_NESTING_DEPTH, Variant, variant_equal


@given(values)
def test_encode_decode_round_trip(value: object) -> None:
    meta, val = encode(value)
    v = Variant(meta, val)
    v.validate()
    VariantMetadata(meta).validate()
    assert v.to_python() == value
    assert v.size() == len(val), "the value ends exactly at the end of its bytes"


@given(values)
def test_unsorted_metadata_round_trip(value: object) -> None:
    meta, val = encode(value, sort_keys=False)
    assert Variant(meta, val).to_python() == value


@pytest.mark.parametrize(
    ("value", "type_"),
    [
        (0, VariantType.INT8),
        (-128, VariantType.INT8),
        (128, VariantType.INT16),
        (-32769, VariantType.INT32),
        (2**31, VariantType.INT64),
        (decimal.Decimal("123456789"), VariantType.DECIMAL4),
        (decimal.Decimal("1234567890"), VariantType.DECIMAL8),
        (decimal.Decimal("0.0000000001"), VariantType.DECIMAL8),
        (decimal.Decimal("1" * 19), VariantType.DECIMAL16),
        (decimal.Decimal("1E+3"), VariantType.DECIMAL4),
        (1.5, VariantType.DOUBLE),
        (Float32(1.5), VariantType.FLOAT),
        ("x" * 63, VariantType.STRING),
        ("x" * 64, VariantType.STRING),
        (dt.date(2024, 1, 1), VariantType.DATE),
        (dt.datetime(2024, 1, 1), VariantType.TIMESTAMP_NTZ),
        (dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc), VariantType.TIMESTAMP),
        (VariantScalar(PrimitiveType.INT32, 1), VariantType.INT32),
    ],
)
def test_smallest_type(value: object, type_: VariantType) -> None:
    assert Variant(*encode(value)).type == type_


def test_short_and_long_strings_have_their_basic_types() -> None:
    assert encode("x" * 63)[1][0] & 0x03 == 1, "63 bytes is a short string"
    assert encode("x" * 64)[1][0] == PrimitiveType.STRING << 2, "64 bytes is a long string"


def test_large_object_and_array() -> None:
    big = {f"k{i:04d}": i for i in range(300)}
    meta, val = encode(big)
    v = Variant(meta, val)
    assert (val[0] >> 6) & 1 == 1, "over 255 fields sets is_large"
    assert v.to_python() == big
    assert v.get("k0299").to_python() == 299
    arr = list(range(70000))
    meta, val = encode(arr)
    assert Variant(meta, val)[69999].to_python() == 69999


def test_offset_widths() -> None:
    long = "y" * 70000
    meta, val = encode({"a": long, "b": 1})
    v = Variant(meta, val)
    assert (val[0] >> 2) & 0x03 == 2, "a 70 kB object needs 3-byte offsets"
    assert v.get("b").to_python() == 1 and v.get("a").to_python() == long


def test_many_keys_metadata_widths() -> None:
    keys = [f"key{i}" for i in range(70000)]
    meta = build_metadata(keys)
    m = VariantMetadata(meta)
    assert m.offset_size == 3 and m.dictionary_size == 70000
    m.validate()


def test_duplicate_field_names_rejected() -> None:
    with pytest.raises(VariantEncodeError):
        encode_object([("a", 0, b"\x00"), ("a", 1, b"\x00")])
    # An object whose two ids name the same string, written by hand.
    meta = build_metadata(["a", "a"], sort=False)
    val = bytes([0x02, 2, 0, 1, 0, 1, 2, 0, 0])
    with pytest.raises(MalformedVariantError):
        Variant(meta, val).validate()


def test_unsorted_field_ids_rejected_by_validate() -> None:
    meta = build_metadata(["a", "b"])
    val = bytes([0x02, 2, 1, 0, 0, 1, 2, 0, 0])  # ids b, a: not sorted by name
    with pytest.raises(MalformedVariantError):
        Variant(meta, val).validate()


@pytest.mark.parametrize("ptype", list(PrimitiveType))
def test_every_primitive_exact_and_one_byte_short(ptype: PrimitiveType) -> None:
    raw = {
        PrimitiveType.UUID: b"\x01" * 16,
        PrimitiveType.BINARY: b"ab",
        PrimitiveType.STRING: "ab",
        PrimitiveType.DECIMAL4: decimal.Decimal("1.5"),
        PrimitiveType.DECIMAL8: decimal.Decimal("1.5"),
        PrimitiveType.DECIMAL16: decimal.Decimal("1.5"),
    }.get(ptype, 1)
    val = encode_primitive(ptype, raw)
    meta = build_metadata([])
    v = Variant(meta, val)
    v.validate()
    v.to_python()
    if len(val) > 1:
        with pytest.raises(MalformedVariantError):
            Variant(meta, val[:-1]).to_python()
        with pytest.raises(MalformedVariantError):
            Variant(meta, val[:-1]).validate()


def test_empty_value_and_metadata() -> None:
    with pytest.raises(MalformedVariantError):
        Variant(build_metadata([]), b"").to_python()
    with pytest.raises(MalformedVariantError):
        VariantMetadata(b"")
    with pytest.raises(MalformedVariantError):
        VariantMetadata(b"\x02\x00\x00")  # version 2


def test_deep_nesting_raises_our_error() -> None:
    val = b"\x00"
    for _ in range(MAX_NESTING_DEPTH + 5):
        val = encode_array([val])
    v = Variant(build_metadata([]), val)
    with pytest.raises(MalformedVariantError):
        v.to_python()
    with pytest.raises(MalformedVariantError):
        v.validate()
    deep: object = None
    for _ in range(MAX_NESTING_DEPTH + 5):
        deep = [deep]
    with pytest.raises(VariantEncodeError):
        encode(deep)


def test_nested_to_the_limit_decodes() -> None:
    val = b"\x00"
    for _ in range(MAX_NESTING_DEPTH):
        val = encode_array([val])
    assert Variant(build_metadata([]), val).to_python() is not None


def test_equality_classes() -> None:
    def v(x: object) -> Variant:
        return Variant(*encode(x))

    assert variant_equal(v(1), v(decimal.Decimal("1.000")))
    assert not variant_equal(v(1), v(1.0))
    assert not variant_equal(v(1.5), v(Float32(1.5)))
    assert variant_equal(v({"a": 1, "b": [1, "x"]}), v({"b": [1, "x"], "a": 1}))
    ts = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
    nanos = VariantScalar(PrimitiveType.TIMESTAMP_NANOS, 1704067200 * 10**9)
    assert variant_equal(v(ts), v(nanos))
    assert not variant_equal(v(ts), v(ts.replace(tzinfo=None)))


def test_encode_int_out_of_range() -> None:
    with pytest.raises(VariantEncodeError):
        encode_int(2**63)
    with pytest.raises(VariantEncodeError):
        encode_decimal(decimal.Decimal("1" * 39))


def test_corruption_fuzz_raises_only_our_error() -> None:
    """Mutated bytes decode, validate or fail with MalformedVariantError: never another
    exception, a hang or a crash."""
    rng = random.Random(20261122)
    seeds = [
        {"a": [1, 2.5, "x" * 70, None], "b": {"c": decimal.Decimal("1.25"), "d": b"\x00\x01"}},
        [dt.date(2024, 1, 2), dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc), {"k": True}],
        {f"f{i}": i for i in range(40)},
        "short",
    ]
    encoded = [encode(s) for s in seeds]
    outcomes = {"ok": 0, "error": 0}
    for i in range(6000):
        meta, val = encoded[i % len(encoded)]
        target = rng.random()
        mb, vb = bytearray(meta), bytearray(val)
        buf = mb if target < 0.3 else vb
        for _ in range(rng.randint(1, 4)):
            action = rng.random()
            if action < 0.6 and buf:
                buf[rng.randrange(len(buf))] = rng.randrange(256)
            elif action < 0.8 and buf:
                del buf[rng.randrange(len(buf)) :]
            else:
                buf.insert(rng.randrange(len(buf) + 1), rng.randrange(256))
        try:
            v = Variant(bytes(mb), bytes(vb))
            v.validate()
            v.to_python()
            outcomes["ok"] += 1
        except MalformedVariantError:
            outcomes["error"] += 1
    assert outcomes["error"] > 1000, f"the fuzz should mostly hit damaged values: {outcomes}"
