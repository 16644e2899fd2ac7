"""The encoder: Python values and child value bytes in, Variant bytes out.

Widths are always the smallest that fit (integers, decimals, offsets, ids, element counts), and
object fields are stored sorted by name, as the spec requires.
"""
from __future__ import annotations

import datetime as dt
import decimal
import math
import struct
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vpush.codec.errors import VariantEncodeError
from vpush.codec.header import (
    MAX_DECIMAL4_PRECISION,
    MAX_DECIMAL8_PRECISION,
    MAX_DECIMAL16_PRECISION,
    MAX_DECIMAL_SCALE,
    MAX_SHORT_STRING_BYTES,
    U8_MAX,
    BasicType,
    PrimitiveType,
    array_header,
    int_size,
    object_header,
    primitive_header,
    short_string_header,
)
from vpush.codec.metadata import VariantMetadata, build_metadata
from vpush.codec.scalars import Float32, VariantScalar
from vpush.codec.value import EPOCH_DATE, EPOCH_NAIVE, EPOCH_UTC, MAX_NESTING_DEPTH, Variant

_DOUBLE = struct.Struct("<d")
_FLOAT = struct.Struct("<f")
_INT_WIDTHS = (
    (PrimitiveType.INT8, 1),
    (PrimitiveType.INT16, 2),
    (PrimitiveType.INT32, 4),
    (PrimitiveType.INT64, 8),
)
NULL_VALUE = bytes([primitive_header(PrimitiveType.NULL)])
"""The one-byte Variant null."""


def encode_int(value: int) -> bytes:
    """An integer in the smallest of int8, int16, int32 and int64 (as Spark's builder does).

    Example:
        >>> encode_int(300).hex()
        '102c01'
    """
    for ptype, width in _INT_WIDTHS:
        if -(1 << (8 * width - 1)) <= value < (1 << (8 * width - 1)):
            return bytes([primitive_header(ptype)]) + value.to_bytes(width, "little", signed=True)
    raise VariantEncodeError(f"integer {value} does not fit in int64; encode it as a decimal")


def decimal_type(precision: int, scale: int) -> tuple[PrimitiveType, int]:
    """The smallest decimal type, and its unscaled width in bytes, for a precision and scale
    (Spark's builder's rule: both must fit the type's maximum precision).

    Example:
        >>> decimal_type(9, 2), decimal_type(10, 2)
        ((<PrimitiveType.DECIMAL4: 8>, 4), (<PrimitiveType.DECIMAL8: 9>, 8))
    """
    if precision <= MAX_DECIMAL4_PRECISION and scale <= MAX_DECIMAL4_PRECISION:
        return PrimitiveType.DECIMAL4, 4
    if precision <= MAX_DECIMAL8_PRECISION and scale <= MAX_DECIMAL8_PRECISION:
        return PrimitiveType.DECIMAL8, 8
    return PrimitiveType.DECIMAL16, 16


def encode_decimal(value: decimal.Decimal) -> bytes:
    """A decimal in the smallest of decimal4, decimal8 and decimal16 that holds its precision
    and scale (Spark's rule); a positive exponent is folded into the unscaled value.

    Example:
        >>> encode_decimal(decimal.Decimal("12.340")).hex()
        '200334300000'
    """
    if not value.is_finite():
        raise VariantEncodeError(f"decimal {value} is not finite")
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    unscaled = int("".join(map(str, digits)) or "0")
    if exponent > 0:
        unscaled *= 10**exponent
        exponent = 0
    scale = -exponent
    if sign:
        unscaled = -unscaled
    precision = max(len(str(abs(unscaled))), 1)
    if scale > MAX_DECIMAL_SCALE or precision > MAX_DECIMAL16_PRECISION:
        raise VariantEncodeError(
            f"decimal {value} needs precision {precision} and scale {scale}; the most is 38 and 38"
        )
    ptype, width = decimal_type(precision, scale)
    return bytes([primitive_header(ptype), scale]) + unscaled.to_bytes(width, "little", signed=True)


def encode_string(value: str) -> bytes:
    """A string: a short string up to 63 UTF-8 bytes, a long one past that.

    Example:
        >>> encode_string("abc")
        b'\\rabc'
    """
    raw = value.encode("utf-8")
    if len(raw) <= MAX_SHORT_STRING_BYTES:
        return bytes([short_string_header(len(raw))]) + raw
    return bytes([primitive_header(PrimitiveType.STRING)]) + len(raw).to_bytes(4, "little") + raw


def encode_primitive(ptype: PrimitiveType, raw: Any) -> bytes:
    """A primitive of exactly type ``ptype`` from its stored value: days for dates, micros or
    nanos for times and timestamps, the number for numeric types, bytes or text otherwise.

    Example:
        >>> encode_primitive(PrimitiveType.INT32, 5).hex()
        '1405000000'
    """
    head = bytes([primitive_header(ptype)])
    try:
        if ptype == PrimitiveType.NULL:
            return head
        if ptype in (PrimitiveType.TRUE, PrimitiveType.FALSE):
            return head
        for itype, width in _INT_WIDTHS:
            if ptype == itype:
                return head + int(raw).to_bytes(width, "little", signed=True)
        if ptype == PrimitiveType.DOUBLE:
            return head + _DOUBLE.pack(float(raw))
        if ptype == PrimitiveType.FLOAT:
            return head + _FLOAT.pack(float(raw))
        if ptype in (PrimitiveType.DECIMAL4, PrimitiveType.DECIMAL8, PrimitiveType.DECIMAL16):
            width = {PrimitiveType.DECIMAL4: 4, PrimitiveType.DECIMAL8: 8, PrimitiveType.DECIMAL16: 16}[ptype]
            d = decimal.Decimal(raw)
            _, _, exponent = d.as_tuple()
            assert isinstance(exponent, int)
            scale = max(-exponent, 0)
            unscaled = int(d.scaleb(scale, decimal.Context(prec=MAX_DECIMAL16_PRECISION + 2)))
            return head + bytes([scale]) + unscaled.to_bytes(width, "little", signed=True)
        if ptype == PrimitiveType.DATE:
            return head + int(raw).to_bytes(4, "little", signed=True)
        if ptype in (
            PrimitiveType.TIMESTAMP,
            PrimitiveType.TIMESTAMP_NTZ,
            PrimitiveType.TIME,
            PrimitiveType.TIMESTAMP_NANOS,
            PrimitiveType.TIMESTAMP_NTZ_NANOS,
        ):
            return head + int(raw).to_bytes(8, "little", signed=True)
        if ptype == PrimitiveType.UUID:
            u = raw if isinstance(raw, uuid.UUID) else uuid.UUID(bytes=bytes(raw))
            return head + u.bytes
        if ptype == PrimitiveType.BINARY:
            data = bytes(raw)
            return head + len(data).to_bytes(4, "little") + data
        if ptype == PrimitiveType.STRING:
            data = str(raw).encode("utf-8")
            return head + len(data).to_bytes(4, "little") + data
    except (OverflowError, ValueError, TypeError, struct.error) as exc:
        raise VariantEncodeError(f"cannot encode {raw!r} as {ptype.name.lower()}: {exc}") from None
    raise VariantEncodeError(f"unknown primitive type {ptype!r}")


def encode_object(fields: Sequence[tuple[str, int, bytes]]) -> bytes:
    """An object from (name, field_id, value bytes) triples, stored sorted by name.

    Raises:
        VariantEncodeError: a name appears twice.

    Example:
        >>> encode_object([("a", 0, b"\\x0c\\x01")]).hex()
        '02010000020c01'
    """
    ordered = sorted(fields, key=lambda f: f[0].encode("utf-8"))
    for (a, _, _), (b, _, _) in zip(ordered, ordered[1:]):
        if a == b:
            raise VariantEncodeError(f"duplicate field name {a!r} in object")
    n = len(ordered)
    total = sum(len(v) for _, _, v in ordered)
    max_id = max((fid for _, fid, _ in ordered), default=0)
    id_size = int_size(max_id)
    offset_size = int_size(total)
    is_large = n > U8_MAX
    out = bytearray([object_header(is_large, id_size, offset_size)])
    out += n.to_bytes(4 if is_large else 1, "little")
    for _, fid, _ in ordered:
        out += fid.to_bytes(id_size, "little")
    pos = 0
    for _, _, v in ordered:
        out += pos.to_bytes(offset_size, "little")
        pos += len(v)
    out += pos.to_bytes(offset_size, "little")
    for _, _, v in ordered:
        out += v
    return bytes(out)


def encode_array(elements: Sequence[bytes]) -> bytes:
    """An array from its elements' value bytes.

    Example:
        >>> encode_array([b"\\x0c\\x01", b"\\x00"]).hex()
        '03020002030c0100'
    """
    n = len(elements)
    total = sum(len(e) for e in elements)
    offset_size = int_size(total)
    is_large = n > U8_MAX
    out = bytearray([array_header(is_large, offset_size)])
    out += n.to_bytes(4 if is_large else 1, "little")
    pos = 0
    for e in elements:
        out += pos.to_bytes(offset_size, "little")
        pos += len(e)
    out += pos.to_bytes(offset_size, "little")
    for e in elements:
        out += e
    return bytes(out)


def _datetime_micros(value: dt.datetime) -> int:
    epoch = EPOCH_UTC if value.tzinfo is not None else EPOCH_NAIVE
    delta = value - epoch
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _scalar_bytes(value: Any) -> bytes | None:
    """Bytes of a scalar Python value, or None when ``value`` is a container."""
    if value is None:
        return NULL_VALUE
    if isinstance(value, bool):
        return bytes([primitive_header(PrimitiveType.TRUE if value else PrimitiveType.FALSE)])
    if isinstance(value, VariantScalar):
        return encode_primitive(value.type, value.raw)
    if isinstance(value, int):
        return encode_int(value)
    if isinstance(value, Float32):
        return encode_primitive(PrimitiveType.FLOAT, value)
    if isinstance(value, float):
        return encode_primitive(PrimitiveType.DOUBLE, value)
    if isinstance(value, decimal.Decimal):
        return encode_decimal(value)
    if isinstance(value, str):
        return encode_string(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return encode_primitive(PrimitiveType.BINARY, bytes(value))
    if isinstance(value, dt.datetime):
        ptype = PrimitiveType.TIMESTAMP if value.tzinfo is not None else PrimitiveType.TIMESTAMP_NTZ
        return encode_primitive(ptype, _datetime_micros(value))
    if isinstance(value, dt.date):
        return encode_primitive(PrimitiveType.DATE, (value - EPOCH_DATE).days)
    if isinstance(value, dt.time):
        if value.tzinfo is not None:
            raise VariantEncodeError("a Variant time has no time zone; pass a naive datetime.time")
        micros = ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
        return encode_primitive(PrimitiveType.TIME, micros)
    if isinstance(value, uuid.UUID):
        return encode_primitive(PrimitiveType.UUID, value)
    if isinstance(value, (Mapping, list, tuple, Variant)):
        return None
    raise VariantEncodeError(f"cannot encode a {type(value).__name__} as a Variant")


def _collect_keys(value: Any, keys: set[str]) -> None:
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        node, depth = todo.pop()
        if depth > MAX_NESTING_DEPTH:
            raise VariantEncodeError(f"value nested deeper than {MAX_NESTING_DEPTH} levels")
        if isinstance(node, Mapping):
            for k, v in node.items():
                if not isinstance(k, str):
                    raise VariantEncodeError(f"object keys must be strings, not {type(k).__name__}")
                keys.add(k)
                todo.append((v, depth + 1))
        elif isinstance(node, (list, tuple)):
            todo.extend((v, depth + 1) for v in node)
        elif isinstance(node, Variant):
            _collect_variant_keys(node, keys)


def _collect_variant_keys(node: Variant, keys: set[str]) -> None:
    todo = [node]
    while todo:
        v = todo.pop()
        basic = v.basic_type
        if basic == BasicType.OBJECT:
            for name, child in v.items():
                keys.add(name)
                todo.append(child)
        elif basic == BasicType.ARRAY:
            todo.extend(v.elements())


def encode_value(value: Any, key_ids: Mapping[str, int]) -> bytes:
    """Encode ``value`` against a dictionary given as name -> field_id.

    ``value`` may also be (or contain) a :class:`Variant` from another metadata: its primitives
    are copied byte for byte and its objects rebuilt with ids from ``key_ids`` (see
    :func:`rebase`).

    Raises:
        VariantEncodeError: an unsupported Python type, a key missing from ``key_ids``, or
            nesting deeper than :data:`MAX_NESTING_DEPTH`.
    """
    # Iterative post-order: a frame is (value, depth, children done?) and results stack up.
    results: list[bytes] = []
    todo: list[tuple[Any, int, bool]] = [(value, 0, False)]
    while todo:
        node, depth, expanded = todo.pop()
        if depth > MAX_NESTING_DEPTH:
            raise VariantEncodeError(f"value nested deeper than {MAX_NESTING_DEPTH} levels")
        if isinstance(node, Variant):
            results.append(rebase(node, key_ids))
            continue
        if not expanded:
            scalar = _scalar_bytes(node)
            if scalar is not None:
                results.append(scalar)
                continue
            todo.append((node, depth, True))
            children = list(node.values()) if isinstance(node, Mapping) else list(node)
            todo.extend((child, depth + 1, False) for child in reversed(children))
            continue
        if isinstance(node, Mapping):
            n = len(node)
            child_bytes = results[len(results) - n :] if n else []
            del results[len(results) - n :]
            try:
                fields = [(k, key_ids[k], b) for k, b in zip(node.keys(), child_bytes)]
            except KeyError as exc:
                raise VariantEncodeError(f"field name {exc.args[0]!r} is not in the metadata") from None
            results.append(encode_object(fields))
        else:
            n = len(node)
            child_bytes = results[len(results) - n :] if n else []
            del results[len(results) - n :]
            results.append(encode_array(child_bytes))
    return results[0]


def rebase(variant: Variant, key_ids: Mapping[str, int]) -> bytes:
    """Copy a value to another metadata: primitives byte for byte (so int widths, float vs
    double and nanosecond timestamps survive), objects rebuilt with the ids of ``key_ids``.

    Example:
        >>> src = Variant(*encode({"b": 1}))
        >>> rebase(src, {"a": 0, "b": 1}).hex()
        '02010100020c01'
    """
    basic = variant.basic_type
    if basic == BasicType.OBJECT:
        try:
            fields = [(name, key_ids[name], rebase(child, key_ids)) for name, child in variant.items()]
        except KeyError as exc:
            raise VariantEncodeError(f"field name {exc.args[0]!r} is not in the metadata") from None
        return encode_object(fields)
    if basic == BasicType.ARRAY:
        return encode_array([rebase(child, key_ids) for child in variant.elements()])
    return variant.value_bytes()


def encode(value: Any, *, sort_keys: bool = True) -> tuple[bytes, bytes]:
    """Encode a Python value as Variant ``(metadata, value)`` bytes.

    Python types map as :mod:`vpush.codec.scalars` describes; ``float`` is a double, ``int`` the
    smallest integer type, ``Decimal`` the smallest decimal type, an aware ``datetime`` a
    ``timestamp`` and a naive one a ``timestamp_ntz``.

    Args:
        value: the value.
        sort_keys: write a sorted, deduplicated dictionary (and set ``sorted_strings``).

    Raises:
        VariantEncodeError: a value that has no Variant encoding.

    Example:
        >>> meta, val = encode({"b": [1, None], "a": "x"})
        >>> Variant(meta, val).to_python()
        {'a': 'x', 'b': [1, None]}
    """
    keys: set[str] = set()
    _collect_keys(value, keys)
    ordered = sorted(keys, key=lambda k: k.encode("utf-8")) if sort_keys else list(keys)
    metadata = build_metadata(ordered, sort=sort_keys)
    key_ids = {k: i for i, k in enumerate(ordered)}
    return metadata, encode_value(value, key_ids)


def metadata_key_ids(metadata: VariantMetadata) -> dict[str, int]:
    """name -> field_id for an existing dictionary (the first id of a repeated name)."""
    return {k: i for i, k in reversed(list(enumerate(metadata.keys)))}


def merge_metadata(keys: Iterable[str]) -> tuple[bytes, dict[str, int]]:
    """A sorted dictionary of ``keys`` and its name -> field_id map."""
    ordered = sorted(set(keys), key=lambda k: k.encode("utf-8"))
    return build_metadata(ordered, sort=True), {k: i for i, k in enumerate(ordered)}


def is_finite_double(value: float) -> bool:
    """True unless ``value`` is NaN or infinite."""
    return math.isfinite(value)
