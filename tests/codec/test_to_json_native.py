"""The compiled ``to_json`` kernel (``to_json_native``) against the pure-Python reference,
``vpush.codec.json.to_json``, and against Spark 4.3's own ``to_json``:

- random nested values of every Variant type, in several session time zones: the same text;
- doubles and floats from random bits and from decimal literals: Java 17's ``Double.toString``
  and ``Float.toString``, which the kernel computes itself (a port of ``FloatingDecimal``);
- timestamps over the whole int64 range in regions with odd offsets and in fixed offsets;
- every Arrow form of the input, SQL NULLs, and a corruption fuzz in which the kernel raises
  exactly where the reference raises;
- Spark's ``to_json`` of Spark-built values, byte for byte.
"""
from __future__ import annotations

import random
import struct
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from strategies import values
from vpush.codec.builder import encode, encode_primitive
from vpush.codec.errors import CodecError, MalformedVariantError
from vpush.codec.header import PrimitiveType
from vpush.codec.json import parse_json, to_json
from vpush.codec.metadata import EMPTY_METADATA_BYTES
from vpush.codec.native import NATIVE_AVAILABLE, to_json_native

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = pytest.mark.skipif(not NATIVE_AVAILABLE, reason="the compiled kernel is not built")

ZONES = ["UTC", "America/Los_Angeles", "Asia/Kolkata", "Australia/Lord_Howe", "+05:45", "-00:30", "PST"]
BINARY_KINDS = [pa.binary(), pa.large_binary(), pa.binary_view()]
_DOUBLE = 7
_FLOAT = 14


def _reference(rows: Sequence[tuple[bytes, bytes] | None], time_zone: str = "UTC") -> Any:
    """The Python reference's texts, or MalformedVariantError if it raises on some row."""
    try:
        return [None if r is None else to_json(r[0], r[1], time_zone=time_zone) for r in rows]
    except MalformedVariantError:
        return MalformedVariantError


def _columns(rows: Sequence[tuple[bytes, bytes] | None], kind: pa.DataType | None = None) -> tuple[pa.Array, pa.Array]:
    kind = kind or pa.binary()
    return (
        pa.array([None if r is None else r[0] for r in rows], kind),
        pa.array([None if r is None else r[1] for r in rows], kind),
    )


def _native(rows: Sequence[tuple[bytes, bytes] | None], time_zone: str = "UTC", kind: pa.DataType | None = None) -> Any:
    metadata, value = _columns(rows, kind)
    try:
        out = to_json_native(metadata, value, time_zone=time_zone)
    except MalformedVariantError:
        return MalformedVariantError
    assert out.type == pa.string()
    return out.to_pylist()


def _check(rows: Sequence[tuple[bytes, bytes] | None], time_zone: str = "UTC") -> None:
    assert _native(rows, time_zone) == _reference(rows, time_zone)


def _scalar(header_type: int, payload: bytes) -> tuple[bytes, bytes]:
    return EMPTY_METADATA_BYTES, bytes([header_type << 2]) + payload


# -- the reference, on random values ------------------------------------------------------------
@given(st.lists(st.one_of(st.none(), values.map(encode)), max_size=6), st.sampled_from(ZONES))
def test_random_values_match_reference(rows: Sequence[tuple[bytes, bytes] | None], zone: str) -> None:
    _check(rows, zone)


@given(st.lists(values.map(encode), min_size=1, max_size=5), st.sampled_from(BINARY_KINDS), st.integers(0, 2))
def test_every_arrow_form(rows: list[tuple[bytes, bytes]], kind: pa.DataType, cut: int) -> None:
    want = _reference(list(rows))
    metadata, value = _columns(list(rows), kind)
    assert to_json_native(metadata, value).to_pylist() == want
    # chunked and sliced differently on each side; dictionary-encoded metadata
    cut = min(cut, len(rows))
    meta_chunks = pa.chunked_array([metadata.slice(0, cut), metadata.slice(cut)], kind)
    value_chunks = pa.chunked_array([value.slice(0, len(rows) - cut), value.slice(len(rows) - cut)], kind)
    assert to_json_native(meta_chunks, value_chunks).to_pylist() == want
    if kind == pa.binary():
        assert to_json_native(metadata.dictionary_encode(), value).to_pylist() == want
        assert to_json_native(metadata.slice(cut), value.slice(cut)).to_pylist() == want[cut:]


def test_sql_nulls_empty_input_and_variant_null() -> None:
    null_value = (EMPTY_METADATA_BYTES, b"\x00")
    metadata = pa.array([EMPTY_METADATA_BYTES, None, EMPTY_METADATA_BYTES, EMPTY_METADATA_BYTES])
    value = pa.array([b"\x00", b"\x00", None, b"\x0c\x05"])
    assert to_json_native(metadata, value).to_pylist() == ["null", None, None, "5"]
    assert to_json_native(pa.array([], pa.binary()), pa.array([], pa.binary())).to_pylist() == []
    assert _native([null_value]) == ["null"], "a variant null is the text null, not a SQL NULL"


# -- numbers ----------------------------------------------------------------------------------------
@given(st.integers(0, 2**64 - 1))
def test_double_bits_print_as_java(bits: int) -> None:
    _check([_scalar(_DOUBLE, struct.pack("<Q", bits))])


@given(st.integers(0, 2**32 - 1))
def test_float_bits_print_as_java(bits: int) -> None:
    _check([_scalar(_FLOAT, struct.pack("<I", bits))])


def _double_bits(x: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", x))[0])


def test_many_doubles_and_floats_match_reference() -> None:
    """Seeded: random bits, decimal literals (the short-digit path), integers past 2**53 (Java's
    long path), subnormals and powers of two (the asymmetric stopping test)."""
    rng = random.Random(20260101)
    doubles = [rng.getrandbits(64) for _ in range(3000)]
    doubles += [_double_bits(float(f"{rng.randint(1, 10 ** rng.randint(1, 17))}e{rng.randint(-30, 30)}")) for _ in range(3000)]
    doubles += [_double_bits(float(rng.randint(0, 2**63))) for _ in range(1000)]
    doubles += [_double_bits(rng.randint(-(2**62), 2**62) * 2.0 ** rng.randint(-80, 80)) for _ in range(1000)]
    doubles += [rng.getrandbits(52) for _ in range(500)] + [rng.randint(0, 2046) << 52 for _ in range(500)]
    doubles += [_double_bits(x) for x in (0.1, 1e7, 1e-3, 1e-4, 2.0**62, 9.999999999999999e22, 5e-324, 1.7976931348623157e308)]
    floats = [rng.getrandbits(32) for _ in range(3000)] + [rng.randint(0, 254) << 23 for _ in range(300)]
    floats += [rng.getrandbits(23) for _ in range(300)]
    rows = [_scalar(_DOUBLE, struct.pack("<Q", b)) for b in doubles]
    rows += [_scalar(_FLOAT, struct.pack("<I", b)) for b in floats]
    got, want = _native(rows), _reference(rows)
    bad = [(rows[i][1].hex(), g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, f"Java's digits, as the reference prints them: {bad[:5]}"


@pytest.mark.parametrize(
    ("ptype", "raw", "text"),
    [
        (PrimitiveType.DECIMAL4, "0.00", "0"),
        (PrimitiveType.DECIMAL8, "-123.00", "-123"),
        (PrimitiveType.DECIMAL8, "-0.00000000100", "-0.000000001"),
        (PrimitiveType.DECIMAL16, "-9999999999999999999999999999999999.9990", "-9999999999999999999999999999999999.999"),
        (PrimitiveType.DECIMAL16, "170141183460469231731687303715884105727", None),
        (PrimitiveType.INT64, -(2**63), str(-(2**63))),
        (PrimitiveType.INT8, -128, "-128"),
    ],
)
def test_integers_and_decimals(ptype: PrimitiveType, raw: Any, text: str | None) -> None:
    import decimal

    payload = decimal.Decimal(raw) if isinstance(raw, str) else raw
    try:
        row = (EMPTY_METADATA_BYTES, encode_primitive(ptype, payload))
    except CodecError:  # over 38 digits: write the 16 bytes by hand
        row = (EMPTY_METADATA_BYTES, bytes([int(ptype) << 2, 0]) + int(raw).to_bytes(16, "little", signed=True))
    want = _reference([row])
    assert _native([row]) == want
    assert want == ([text] if text is not None else MalformedVariantError)


def test_decimal_over_precision_is_malformed() -> None:
    over = encode_primitive(PrimitiveType.DECIMAL4, 0)[:1] + b"\x0a" + (5).to_bytes(4, "little")
    with pytest.raises(MalformedVariantError, match="precision 9"):
        to_json_native(pa.array([EMPTY_METADATA_BYTES]), pa.array([over]))
    assert _reference([(EMPTY_METADATA_BYTES, over)]) is MalformedVariantError


# -- dates and times -------------------------------------------------------------------------------
@pytest.mark.parametrize("zone", [*ZONES, "Pacific/Apia", "Africa/Casablanca", "Europe/Dublin", "America/St_Johns"])
def test_timestamps_over_the_int64_range(zone: str) -> None:
    rng = random.Random(zone)
    rows = []
    for i in range(600):
        if i % 3 == 0:
            raw = rng.randint(-(2**63), 2**63 - 1)
        else:
            raw = rng.randint(-62135596800000000, 253402300799999999)  # years 1 to 9999
        ptype = rng.choice([12, 13, 18, 19])  # timestamp, _ntz, _nanos, _ntz_nanos
        rows.append(_scalar(ptype, struct.pack("<q", raw)))
    rows += [_scalar(12, struct.pack("<q", raw)) for raw in (-(2**63), 2**63 - 1, 0, -1, 1)]
    rows += [_scalar(11, struct.pack("<i", rng.randint(-(2**31), 2**31 - 1))) for _ in range(100)]
    rows += [_scalar(17, struct.pack("<q", rng.randint(0, 86_400_000_000 - 1))) for _ in range(100)]
    _check(rows, zone)


def test_time_outside_a_day_and_unknown_zone() -> None:
    bad_time = _scalar(17, struct.pack("<q", 86_400_000_000))
    assert _native([bad_time]) is MalformedVariantError is _reference([bad_time])
    with pytest.raises(CodecError, match="unknown time zone"):
        to_json_native(pa.array([EMPTY_METADATA_BYTES]), pa.array([b"\x00"]), time_zone="Mars/Olympus")


# -- strings, binary, uuid, nesting ------------------------------------------------------------------
def test_strings_escapes_and_unicode() -> None:
    texts = ["", "plain", 'q"b\\s/', "\b\t\n\f\r\x00\x01\x1f\x7f", "é€😀\ue000", "x" * 70, "ü" * 40]
    rows = [encode(t) for t in texts] + [encode({t: t}) for t in texts]
    _check(rows)
    assert _native([encode("\x01")]) == ['"\\u0001"']


def test_binary_and_uuid() -> None:
    import uuid

    rows = [encode(bytes(range(n))) for n in range(7)]
    rows.append((EMPTY_METADATA_BYTES, encode_primitive(PrimitiveType.UUID, uuid.UUID(int=0x0F1E2D3C4B5A69788796A5B4C3D2E1F0))))
    _check(rows)
    assert _native([encode(b"\xff\xfe")])[0] == '"//4="'


def test_nesting_limit_and_field_order() -> None:
    from vpush.codec.builder import encode_array

    metadata, value = parse_json("[" * 1000 + "]" * 1000)
    _check([(metadata, value)])
    deeper = (metadata, encode_array([value]))
    assert _native([deeper]) is MalformedVariantError is _reference([deeper]), "1001 levels are too deep"
    _check([parse_json('{"b": {"z": 1, "a": [{}, []]}, "a": null, "": ""}')])


def test_errors_name_the_row_and_the_byte_offset() -> None:
    rows = [encode([1, 2]), (EMPTY_METADATA_BYTES, b"\x03\x02\x00\x02\x05\x0c\x01")]
    metadata, value = _columns(rows)
    with pytest.raises(MalformedVariantError) as info:
        to_json_native(metadata, value)
    assert "row 1" in str(info.value) and info.value.offset is not None


# -- corruption fuzz -------------------------------------------------------------------------------
def _fuzz_rows() -> list[tuple[bytes, bytes]]:
    wide: dict[str, Any] = {f"w{i:02d}": i for i in range(40)}
    wide["\U0001f600"] = {"deep": [1, "x" * 70, 2.5, None]}
    return [
        encode({"a": [1, {"b": "x", "c": [True, None]}], "s": "long" * 20, "n": {"m": 1.5}}),
        encode([1, [2, [3, {"a": 4}]], "y", b"\x01\x02"]),
        encode(wide),
        parse_json('[1.5e300, 0.1, -0.0, 12345678901234567890, 1.000]'),
        encode("just a string"),
    ]


def _damage(rng: random.Random, data: bytes) -> bytes:
    raw = bytearray(data)
    choice = rng.randrange(5)
    if choice == 0 and raw:
        for _ in range(rng.randint(1, 3)):
            raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
    elif choice == 1:
        del raw[rng.randrange(len(raw) + 1) :]
    elif choice == 2:
        raw += bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
    elif choice == 3 and len(raw) > 2:
        raw[rng.randrange(min(len(raw), 8))] = rng.randrange(256)
    else:
        raw = bytearray(rng.randrange(256) for _ in range(rng.randint(0, 12)))
    return bytes(raw)


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except MalformedVariantError:
        return MalformedVariantError


def test_corruption_fuzz_matches_reference() -> None:
    rng = random.Random(20261123)
    rows = _fuzz_rows()
    outcomes = {"ok": 0, "error": 0}
    for case in range(2500):
        damaged = [list(r) for r in rows]
        target = rng.randrange(len(rows))
        side = rng.choice([0, 1, 1, 1])
        damaged[target][side] = _damage(rng, damaged[target][side])
        pairs: list[tuple[bytes, bytes] | None] = [(r[0], r[1]) for r in damaged]
        want = _reference(pairs)
        metadata, value = _columns(pairs)
        got = _outcome(lambda: to_json_native(metadata, value).to_pylist())
        assert got == want, f"case {case}: the kernel raises where the reference raises, else the same text"
        outcomes["error" if want is MalformedVariantError else "ok"] += 1
    assert outcomes["ok"] > 300 and outcomes["error"] > 300, outcomes


def test_value_fuzz_every_prefix_and_byte() -> None:
    meta, val = _fuzz_rows()[0]
    damaged = [val[:n] for n in range(len(val))]
    for pos in range(min(12, len(val))):
        damaged += [val[:pos] + bytes([byte]) + val[pos + 1 :] for byte in range(256)]
    for one in damaged:
        _check([(meta, one)])


# -- Spark ---------------------------------------------------------------------------------------------
_SPARK_EXPRESSIONS = [
    "to_variant_object(named_struct('ts', timestamp_micros(m), 'ntz', cast(timestamp_micros(m) as timestamp_ntz), "
    "'day', date_from_unix_date(dd), 'd', d, 'f', f, 'dec', dec, 'b', b, 's', s, 'arr', array(d, null)))",
    "cast(d as variant)",
    "cast(f as variant)",
    "cast(dec as variant)",
    "parse_json(j)",
]


def _spark_rows(rng: random.Random, count: int) -> list[tuple[Any, ...]]:
    import decimal

    rows = []
    texts = ['{"b": 1.50, "a": [1e10, "x\\n\\u0001", null, -0.0, 1E-7]}', "[1e308, 4.9e-324, 123456789012345678901234]",
             '"\\ud83d\\ude00 \\u00e9 \\\\ \\" /"', '{"z": {"": [true, false]}, "é": 0.000001}']
    for i in range(count):
        micros = rng.randint(-(2**63), 2**63 - 1) if i % 3 == 0 else rng.randint(-62135596800000000, 253402300799999999)
        digits = rng.randint(1, 38)
        dec = decimal.Decimal(rng.randint(-(10**digits) + 1, 10**digits - 1)).scaleb(-rng.randint(0, 10))
        dec = dec.quantize(decimal.Decimal(1).scaleb(-10), context=decimal.Context(prec=60)) if dec.adjusted() < 27 else decimal.Decimal(0)
        double = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        single = struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0]
        text = "".join(chr(rng.choice([rng.randint(0, 0x7F), rng.randint(0xA0, 0xD7FF)])) for _ in range(rng.randint(0, 6)))
        blob = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 7)))
        rows.append((i, micros, rng.randint(-800000, 3000000), double, single, dec, blob, text, texts[i % len(texts)]))
    return rows


@pytest.mark.spark
@pytest.mark.parametrize("time_zone", ["UTC", "America/Los_Angeles"])
def test_spark_values_render_as_spark(spark: SparkSession, time_zone: str) -> None:
    df = spark.createDataFrame(
        _spark_rows(random.Random(11), 120),
        "id int, m bigint, dd int, d double, f float, dec decimal(38,10), b binary, s string, j string",
    )
    previous = spark.conf.get("spark.sql.session.timeZone") or "UTC"
    spark.conf.set("spark.sql.session.timeZone", time_zone)
    try:
        selected = [f"{e} as v{k}" for k, e in enumerate(_SPARK_EXPRESSIONS)]
        texts = [f"to_json(v{k}) as t{k}" for k in range(len(_SPARK_EXPRESSIONS))]
        result = df.selectExpr(*selected).selectExpr("*", *texts).collect()
    finally:
        spark.conf.set("spark.sql.session.timeZone", previous)
    for k in range(len(_SPARK_EXPRESSIONS)):
        variants = [row[f"v{k}"] for row in result]
        metadata = pa.array([None if v is None else bytes(v.metadata) for v in variants], pa.binary())
        value = pa.array([None if v is None else bytes(v.value) for v in variants], pa.binary())
        ours = to_json_native(metadata, value, time_zone=time_zone).to_pylist()
        theirs = [row[f"t{k}"] for row in result]
        bad = [(a, b) for a, b in zip(ours, theirs) if a != b]
        assert not bad, f"{_SPARK_EXPRESSIONS[k]}: Spark's to_json text: {bad[:3]}"
