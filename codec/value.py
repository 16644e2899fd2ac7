"""Lazy views over Variant values: :class:`Variant` reads a value in place, given its metadata.

A value is one header byte (``basic_type`` in the low 2 bits, ``value_header`` above) and its
``value_data``. Objects and arrays hold their children contiguously after an offset table, so a
child is itself a ``Variant`` over the same buffer at another position.
"""
from __future__ import annotations

import datetime as dt
import decimal
import uuid
from collections.abc import Iterator
from typing import Any

from vpush.codec.decoder import check, read_bytes, read_double, read_float, read_int, read_uint, read_utf8
from vpush.codec.errors import MalformedVariantError
from vpush.codec.header import (
    MAX_DECIMAL4_PRECISION,
    MAX_DECIMAL8_PRECISION,
    MAX_DECIMAL16_PRECISION,
    MAX_DECIMAL_SCALE,
    PRIMITIVE_FIXED_SIZE,
    PRIMITIVE_TO_VARIANT_TYPE,
    BasicType,
    PrimitiveType,
    VariantType,
)
from vpush.codec.metadata import VariantMetadata
from vpush.codec.scalars import Float32, VariantScalar

MAX_NESTING_DEPTH = 1000
"""Deepest nesting of objects and arrays decoded; Spark's JSON parser allows the same depth."""

EPOCH_DATE = dt.date(1970, 1, 1)
EPOCH_NAIVE = dt.datetime(1970, 1, 1)
EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
MICROS_PER_DAY = 86_400_000_000
_DECIMAL_PRECISION = {
    PrimitiveType.DECIMAL4: MAX_DECIMAL4_PRECISION,
    PrimitiveType.DECIMAL8: MAX_DECIMAL8_PRECISION,
    PrimitiveType.DECIMAL16: MAX_DECIMAL16_PRECISION,
}
_INT_SIZE = {PrimitiveType.INT8: 1, PrimitiveType.INT16: 2, PrimitiveType.INT32: 4, PrimitiveType.INT64: 8}
_KNOWN_PRIMITIVES = frozenset(int(p) for p in PrimitiveType)
_EXACT_NUMERIC = frozenset(
    {
        VariantType.INT8,
        VariantType.INT16,
        VariantType.INT32,
        VariantType.INT64,
        VariantType.DECIMAL4,
        VariantType.DECIMAL8,
        VariantType.DECIMAL16,
    }
)


def make_decimal(unscaled: int, scale: int) -> decimal.Decimal:
    """An exact Decimal ``unscaled * 10**-scale`` (no context rounding).

    Example:
        >>> make_decimal(12340, 3)
        Decimal('12.340')
    """
    return decimal.Decimal(unscaled).scaleb(-scale, decimal.Context(prec=MAX_DECIMAL16_PRECISION + 2))


def _header_parts(buf: bytes, pos: int, end: int) -> tuple[BasicType, int]:
    if pos >= end:
        raise MalformedVariantError("truncated value: no header byte", offset=pos, needed=1, available=0)
    check(buf, pos, 1, "value header")
    b = buf[pos]
    return BasicType(b & 0x03), b >> 2


def _container_layout(buf: bytes, pos: int, end: int, is_object: bool) -> tuple[int, int, int, int, int]:
    """(num_elements, id_size, offset_size, ids_start, offsets_start) of an object or array."""
    header = buf[pos] >> 2
    offset_size = (header & 0x03) + 1
    if is_object:
        id_size = ((header >> 2) & 0x03) + 1
        is_large = (header >> 4) & 0x01
    else:
        id_size = 0
        is_large = (header >> 2) & 0x01
        if header >> 3:
            raise MalformedVariantError("array header bits 5-7 are reserved and must be 0", offset=pos)
    n_size = 4 if is_large else 1
    what = "object" if is_object else "array"
    n = read_uint(buf, pos + 1, n_size, f"{what} num_elements")
    ids_start = pos + 1 + n_size
    offsets_start = ids_start + n * id_size
    table = n * id_size + (n + 1) * offset_size
    if ids_start + table > end:
        raise MalformedVariantError(
            f"truncated {what}: {n} elements need a {table}-byte table",
            offset=ids_start,
            needed=table,
            available=max(0, end - ids_start),
        )
    check(buf, ids_start, table, f"{what} table")
    return n, id_size, offset_size, ids_start, offsets_start


def value_size(buf: bytes, pos: int = 0, end: int | None = None) -> int:
    """The number of bytes of the value that starts at ``pos``.

    Raises:
        MalformedVariantError: the value does not fit before ``end`` (default: the buffer's end).

    Example:
        >>> value_size(b"\\x0d\\x61\\x62\\x63")
        4
    """
    if end is None:
        end = len(buf)
    basic, header = _header_parts(buf, pos, end)
    if basic == BasicType.SHORT_STRING:
        size = 1 + header
    elif basic == BasicType.PRIMITIVE:
        try:
            ptype = PrimitiveType(header)
        except ValueError:
            raise MalformedVariantError(f"unknown primitive type id {header}", offset=pos) from None
        if ptype in (PrimitiveType.BINARY, PrimitiveType.STRING):
            size = 5 + read_uint(buf, pos + 1, 4, "string length")
        else:
            size = 1 + PRIMITIVE_FIXED_SIZE[ptype]
    else:
        n, _, offset_size, _, offsets_start = _container_layout(buf, pos, end, basic == BasicType.OBJECT)
        data_start = offsets_start + (n + 1) * offset_size
        size = data_start - pos + read_uint(buf, offsets_start + n * offset_size, offset_size, "last offset")
    if pos + size > end:
        raise MalformedVariantError(
            f"truncated value: needs {size} bytes, {end - pos} available",
            offset=pos,
            needed=size,
            available=end - pos,
        )
    return size


class Variant:
    """A read-only view of one Variant value inside a buffer, with its metadata.

    Building a view reads nothing but the arguments; each accessor checks the bytes it reads.
    :meth:`validate` checks a whole value.

    Example:
        >>> meta = VariantMetadata(b"\\x01\\x01\\x00\\x01a")
        >>> v = Variant(meta, b"\\x02\\x01\\x00\\x00\\x02\\x0c\\x01")
        >>> v.type, v.keys(), v.get("a").to_python(), v.to_python()
        (<VariantType.OBJECT: 'object'>, ['a'], 1, {'a': 1})
    """

    __slots__ = ("metadata", "buf", "pos", "end")

    def __init__(
        self, metadata: VariantMetadata | bytes, value: bytes, pos: int = 0, end: int | None = None
    ) -> None:
        self.metadata = metadata if isinstance(metadata, VariantMetadata) else VariantMetadata(metadata)
        self.buf = value
        self.pos = pos
        self.end = len(value) if end is None else end

    @classmethod
    def from_concatenated(cls, data: bytes) -> Variant:
        """A view of ``metadata`` immediately followed by ``value`` in one buffer (the layout of
        parquet-testing's ``.variant.bin`` files and of the draft layout's ``untyped_value``)."""
        meta = VariantMetadata(data, exact=False)
        value = bytes(data[meta.size :])
        return cls(meta, value)

    # -- type ---------------------------------------------------------------------------------
    @property
    def basic_type(self) -> BasicType:
        """The 2-bit basic type."""
        return _header_parts(self.buf, self.pos, self.end)[0]

    @property
    def primitive_type(self) -> PrimitiveType | None:
        """The primitive type id, or None for short strings, objects and arrays."""
        basic, header = _header_parts(self.buf, self.pos, self.end)
        if basic != BasicType.PRIMITIVE:
            return None
        try:
            return PrimitiveType(header)
        except ValueError:
            raise MalformedVariantError(f"unknown primitive type id {header}", offset=self.pos) from None

    @property
    def type(self) -> VariantType:
        """The logical type (a short string is a ``STRING``)."""
        basic = self.basic_type
        if basic == BasicType.OBJECT:
            return VariantType.OBJECT
        if basic == BasicType.ARRAY:
            return VariantType.ARRAY
        if basic == BasicType.SHORT_STRING:
            return VariantType.STRING
        ptype = self.primitive_type
        assert ptype is not None  # basic type 0 always has one; for mypy only
        return PRIMITIVE_TO_VARIANT_TYPE[ptype]

    def is_null(self) -> bool:
        """True for a Variant null (not a missing value)."""
        return self.basic_type == BasicType.PRIMITIVE and self.buf[self.pos] >> 2 == PrimitiveType.NULL

    def size(self) -> int:
        """This value's length in bytes."""
        return value_size(self.buf, self.pos, self.end)

    def value_bytes(self) -> bytes:
        """This value's own bytes (for a child, just the child)."""
        return bytes(self.buf[self.pos : self.pos + self.size()])

    # -- objects and arrays -------------------------------------------------------------------
    def _layout(self, expected: BasicType) -> tuple[int, int, int, int, int]:
        basic = self.basic_type
        if basic != expected:
            raise TypeError(f"not an {expected.name.lower()}: a {self.type.value}")
        return _container_layout(self.buf, self.pos, self.end, basic == BasicType.OBJECT)

    def __len__(self) -> int:
        basic = self.basic_type
        if basic not in (BasicType.OBJECT, BasicType.ARRAY):
            raise TypeError(f"a {self.type.value} has no length")
        return _container_layout(self.buf, self.pos, self.end, basic == BasicType.OBJECT)[0]

    def _child(self, offsets_start: int, offset_size: int, n: int, i: int) -> Variant:
        data_start = offsets_start + (n + 1) * offset_size
        off = read_uint(self.buf, offsets_start + i * offset_size, offset_size, "field offset")
        last = read_uint(self.buf, offsets_start + n * offset_size, offset_size, "last offset")
        if off >= last:
            raise MalformedVariantError(
                f"element {i} starts at offset {off}, past the last offset {last}",
                offset=offsets_start + i * offset_size,
            )
        return Variant(self.metadata, self.buf, data_start + off, min(self.end, data_start + last))

    def field_ids(self) -> list[int]:
        """The object's field ids, in their stored (name-sorted) order."""
        n, id_size, _, ids_start, _ = self._layout(BasicType.OBJECT)
        return [read_uint(self.buf, ids_start + i * id_size, id_size, "field id") for i in range(n)]

    def keys(self) -> list[str]:
        """The object's field names, in their stored order."""
        return [self.metadata.key(fid) for fid in self.field_ids()]

    def items(self) -> Iterator[tuple[str, Variant]]:
        """(name, value) pairs of the object, in stored order."""
        n, id_size, offset_size, ids_start, offsets_start = self._layout(BasicType.OBJECT)
        for i in range(n):
            fid = read_uint(self.buf, ids_start + i * id_size, id_size, "field id")
            yield self.metadata.key(fid), self._child(offsets_start, offset_size, n, i)

    def get(self, name: str) -> Variant | None:
        """The value of field ``name``, or None when the object has no such field.

        Field ids are stored sorted by name (spec: "Object field ID order"), so this is a binary
        search over names without decoding any value.
        """
        n, id_size, offset_size, ids_start, offsets_start = self._layout(BasicType.OBJECT)
        target = name.encode("utf-8")
        lo, hi = 0, n
        while lo < hi:
            mid = (lo + hi) // 2
            fid = read_uint(self.buf, ids_start + mid * id_size, id_size, "field id")
            key = self.metadata.key(fid).encode("utf-8")
            if key == target:
                return self._child(offsets_start, offset_size, n, mid)
            if key < target:
                lo = mid + 1
            else:
                hi = mid
        if max(name, default="") >= "\ue000":
            # Spark sorts fields in Java's UTF-16 order, which puts U+E000..U+FFFF after the
            # astral characters; for such names the search above can miss in Spark's objects.
            for i in range(n):
                fid = read_uint(self.buf, ids_start + i * id_size, id_size, "field id")
                if self.metadata.key(fid) == name:
                    return self._child(offsets_start, offset_size, n, i)
        return None

    def __getitem__(self, index: int) -> Variant:
        """Element ``index`` (0-based; negative counts from the end) of an array."""
        n, _, offset_size, _, offsets_start = self._layout(BasicType.ARRAY)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"array index {index} out of range for {n} elements")
        return self._child(offsets_start, offset_size, n, index)

    def elements(self) -> Iterator[Variant]:
        """The array's elements in order."""
        n, _, offset_size, _, offsets_start = self._layout(BasicType.ARRAY)
        for i in range(n):
            yield self._child(offsets_start, offset_size, n, i)

    # -- scalars ------------------------------------------------------------------------------
    def scalar(self) -> Any:
        """The Python value of a primitive or string (see :mod:`vpush.codec.scalars`)."""
        basic, header = _header_parts(self.buf, self.pos, self.end)
        buf, pos, end = self.buf, self.pos, self.end
        if basic == BasicType.SHORT_STRING:
            if pos + 1 + header > end:
                raise MalformedVariantError("truncated short string", offset=pos + 1, needed=header,
                                            available=end - pos - 1)
            return read_utf8(buf, pos + 1, header, "short string")
        if basic != BasicType.PRIMITIVE:
            raise TypeError(f"not a scalar: a {self.type.value}")
        ptype = PrimitiveType(header) if header in _KNOWN_PRIMITIVES else self.primitive_type
        if ptype is None:  # unreachable: basic type 0 always has a primitive type
            raise MalformedVariantError("missing primitive type", offset=pos)
        value_size(buf, pos, end)  # checks the whole payload fits before reading it
        p = pos + 1
        if ptype == PrimitiveType.NULL:
            return None
        if ptype == PrimitiveType.TRUE:
            return True
        if ptype == PrimitiveType.FALSE:
            return False
        if ptype in _INT_SIZE:
            return read_int(buf, p, _INT_SIZE[ptype], ptype.name.lower())
        if ptype == PrimitiveType.DOUBLE:
            return read_double(buf, p)
        if ptype == PrimitiveType.FLOAT:
            return Float32(read_float(buf, p))
        if ptype in _DECIMAL_PRECISION:
            scale = buf[p]
            width = PRIMITIVE_FIXED_SIZE[ptype] - 1
            unscaled = read_int(buf, p + 1, width, ptype.name.lower())
            if scale > MAX_DECIMAL_SCALE:
                raise MalformedVariantError(f"decimal scale {scale} is over {MAX_DECIMAL_SCALE}", offset=p)
            return make_decimal(unscaled, scale)
        if ptype == PrimitiveType.DATE:
            days = read_int(buf, p, 4, "date")
            try:
                return EPOCH_DATE + dt.timedelta(days=days)
            except OverflowError:
                return VariantScalar(ptype, days)
        if ptype in (PrimitiveType.TIMESTAMP, PrimitiveType.TIMESTAMP_NTZ):
            micros = read_int(buf, p, 8, "timestamp")
            epoch = EPOCH_UTC if ptype == PrimitiveType.TIMESTAMP else EPOCH_NAIVE
            try:
                return epoch + dt.timedelta(microseconds=micros)
            except OverflowError:
                return VariantScalar(ptype, micros)
        if ptype in (PrimitiveType.TIMESTAMP_NANOS, PrimitiveType.TIMESTAMP_NTZ_NANOS):
            return VariantScalar(ptype, read_int(buf, p, 8, "timestamp"))
        if ptype == PrimitiveType.TIME:
            micros = read_int(buf, p, 8, "time")
            if not 0 <= micros < MICROS_PER_DAY:
                return VariantScalar(ptype, micros)
            seconds, us = divmod(micros, 1_000_000)
            return dt.time(seconds // 3600, seconds // 60 % 60, seconds % 60, us)
        if ptype == PrimitiveType.UUID:
            return uuid.UUID(bytes=read_bytes(buf, p, 16, "uuid"))
        length = read_uint(buf, p, 4, "string length")
        if ptype == PrimitiveType.BINARY:
            return read_bytes(buf, p + 4, length, "binary")
        return read_utf8(buf, p + 4, length, "string")

    def to_python(self) -> Any:
        """Decode the whole value into Python values (iteratively: deep values cannot overflow
        the interpreter's stack).

        Raises:
            MalformedVariantError: damaged bytes, a duplicate field name, or nesting deeper than
                :data:`MAX_NESTING_DEPTH`.
        """
        out: list[Any] = [None]
        todo: list[tuple[Any, Any, Variant, int]] = [(out, 0, self, 0)]
        while todo:
            target, slot, node, depth = todo.pop()
            if depth > MAX_NESTING_DEPTH:
                raise MalformedVariantError(
                    f"value nested deeper than {MAX_NESTING_DEPTH} levels", offset=node.pos
                )
            basic = node.basic_type
            if basic == BasicType.OBJECT:
                obj: dict[str, Any] = {}
                target[slot] = obj
                for name, child in node.items():
                    if name in obj:
                        raise MalformedVariantError(f"duplicate field name {name!r} in object", offset=node.pos)
                    obj[name] = None
                    todo.append((obj, name, child, depth + 1))
            elif basic == BasicType.ARRAY:
                n = len(node)
                lst: list[Any] = [None] * n
                target[slot] = lst
                for i, child in enumerate(node.elements()):
                    todo.append((lst, i, child, depth + 1))
            else:
                target[slot] = node.scalar()
        return out[0]

    def validate(self) -> None:
        """Check the whole value against the encoding spec.

        Guarantees after it returns: every header is known; every offset, id and length lies
        inside its parent's bytes; field ids are in the dictionary and sorted by strictly
        ascending name (so names are unique); strings are UTF-8; decimal scales are at most 38 and
        unscaled values fit their width's precision; the value ends exactly at ``end`` when the
        view is a top-level one.

        Raises:
            MalformedVariantError: naming the byte offset of the first problem.
        """
        todo: list[tuple[Variant, int]] = [(self, 0)]
        while todo:
            node, depth = todo.pop()
            if depth > MAX_NESTING_DEPTH:
                raise MalformedVariantError(
                    f"value nested deeper than {MAX_NESTING_DEPTH} levels", offset=node.pos
                )
            basic = node.basic_type
            node.size()
            if basic == BasicType.OBJECT:
                prev: bytes | None = None
                for name, child in node.items():
                    key = name.encode("utf-8")
                    if prev is not None and prev >= key:
                        raise MalformedVariantError(
                            f"object field {name!r} is not after {prev.decode()!r}: "
                            "field ids must be sorted by unique name",
                            offset=node.pos,
                        )
                    prev = key
                    todo.append((child, depth + 1))
            elif basic == BasicType.ARRAY:
                for child in node.elements():
                    todo.append((child, depth + 1))
            else:
                val = node.scalar()
                ptype = node.primitive_type
                if ptype is not None and ptype in _DECIMAL_PRECISION and isinstance(val, decimal.Decimal):
                    digits = len(val.as_tuple().digits)
                    if val != 0 and digits > _DECIMAL_PRECISION[ptype]:
                        raise MalformedVariantError(
                            f"{ptype.name.lower()} holds {digits} digits, over its precision "
                            f"{_DECIMAL_PRECISION[ptype]}",
                            offset=node.pos,
                        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Variant) and variant_equal(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        try:
            shown = repr(self.to_python())
        except MalformedVariantError as exc:
            shown = f"<malformed: {exc}>"
        return f"Variant({shown})"


def _exact(v: Variant) -> decimal.Decimal:
    val = v.scalar()
    return val if isinstance(val, decimal.Decimal) else decimal.Decimal(val)


def _temporal(v: Variant) -> tuple[str, int]:
    """(class, nanoseconds) for the two timestamp equivalence classes."""
    ptype = v.primitive_type
    buf, p = v.buf, v.pos + 1
    raw = read_int(buf, p, 8, "timestamp")
    utc = ptype in (PrimitiveType.TIMESTAMP, PrimitiveType.TIMESTAMP_NANOS)
    nanos = raw if ptype in (PrimitiveType.TIMESTAMP_NANOS, PrimitiveType.TIMESTAMP_NTZ_NANOS) else raw * 1000
    return ("timestamp" if utc else "timestamp_ntz"), nanos


_TIMESTAMPS = frozenset(
    {VariantType.TIMESTAMP, VariantType.TIMESTAMP_NTZ, VariantType.TIMESTAMP_NANOS, VariantType.TIMESTAMP_NTZ_NANOS}
)


def variant_equal(a: Variant, b: Variant, _depth: int = 0) -> bool:
    """Equality by value within the spec's equivalence classes.

    Integers and decimals form one exact-numeric class (int8 ``1`` equals decimal ``1.00``);
    float and double are separate classes; short and long strings are the same; timestamps in
    micros and nanos compare as instants within the with- and without-time-zone classes; objects
    compare by field name regardless of order or metadata; arrays element by element.

    Example:
        >>> from vpush.codec.builder import encode
        >>> from vpush.codec.scalars import VariantScalar
        >>> from vpush.codec.header import PrimitiveType
        >>> one = Variant(*encode(1))
        >>> variant_equal(one, Variant(*encode(decimal.Decimal("1.00"))))
        True
        >>> variant_equal(one, Variant(*encode(1.0)))
        False
    """
    if _depth > MAX_NESTING_DEPTH:
        raise MalformedVariantError(f"value nested deeper than {MAX_NESTING_DEPTH} levels", offset=a.pos)
    ta, tb = a.type, b.type
    if ta in _EXACT_NUMERIC and tb in _EXACT_NUMERIC:
        return _exact(a) == _exact(b)
    if ta in _TIMESTAMPS and tb in _TIMESTAMPS:
        return _temporal(a) == _temporal(b)
    if ta != tb:
        return False
    if ta == VariantType.OBJECT:
        fa = dict(a.items())
        fb = dict(b.items())
        return fa.keys() == fb.keys() and all(variant_equal(fa[k], fb[k], _depth + 1) for k in fa)
    if ta == VariantType.ARRAY:
        if len(a) != len(b):
            return False
        return all(variant_equal(x, y, _depth + 1) for x, y in zip(a.elements(), b.elements()))
    va, vb = a.scalar(), b.scalar()
    if ta in (VariantType.FLOAT, VariantType.DOUBLE) and va != va and vb != vb:
        return True  # NaN equals NaN by value, as two stored NaNs are the same value
    return bool(va == vb)
