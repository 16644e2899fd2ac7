"""Rebuild Variant values from shredded columns: ``(metadata, value, typed_value)`` groups in,
``struct<metadata: binary, value: binary>`` out.

Each level (the top group, an object field group, a list element group) is read with the
shredding spec's table:

| `value`  | `typed_value` | result                                                           |
|----------|---------------|------------------------------------------------------------------|
| null     | null          | missing: the field is absent; an element or a top-level value is |
|          |               | a Variant null (suite cases 85 and 129)                          |
| non-null | null          | `value`, of any type (a Variant null included)                   |
| null     | non-null      | `typed_value`, converted to the Variant type of its column       |
| non-null | non-null      | a partially shredded object: `value` must be an object with none |
|          |               | of the shredded names; any other pair is INVALID and raises      |

A row whose whole group is null is SQL NULL. Every conflict raises
:class:`InvalidShreddingError` naming the file, the column path of the level and the row.

The work is column-oriented and recursive over the :class:`VariantLayout`: each level turns its
children into whole Arrow binary arrays first (null meaning missing), then assembles them with
numpy: primitive columns get a header byte before their little-endian payload, and objects and
arrays are encoded for all rows at once by :func:`encode_objects` and :func:`encode_arrays`.
Only partially shredded objects (a residual ``value`` to merge) go row by row. Field ids of
shredded names come from each row's own metadata, as the spec requires every name to be there.
The draft layout, whose ``untyped_value`` carries its own metadata, is rebuilt row by row into a
fresh metadata dictionary instead.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from vpush.codec.builder import NULL_VALUE, encode, encode_object, metadata_key_ids
from vpush.codec.errors import CodecError, InvalidShreddingError, MalformedVariantError, VariantTooLargeError
from vpush.codec.header import (
    MAX_SHORT_STRING_BYTES,
    PRIMITIVE_FIXED_SIZE,
    U8_MAX,
    BasicType,
    PrimitiveType,
    VariantType,
    primitive_header,
)
from vpush.codec.layout import ArrayLayout, ObjectLayout, PrimitiveLayout, ValueLayout, VariantLayout
from vpush.codec.metadata import EMPTY_METADATA_BYTES, VariantMetadata
from vpush.codec.value import Variant, value_size

UNSHREDDED_TYPE = pa.struct([pa.field("metadata", pa.binary()), pa.field("value", pa.binary())])
"""The type :func:`unshred` and :func:`~vpush.codec.native.unshred_native` return (the
optimizer's ``VARIANT_ARROW_TYPE``)."""

MAX_BINARY_ARRAY_BYTES = 2**31 - 1
"""The most bytes one ``binary`` array holds (32-bit offsets)."""


_LITTLE_ENDIAN = sys.byteorder == "little"
_EMPTY_METADATA = VariantMetadata(EMPTY_METADATA_BYTES)

# Fixed-width typed_value columns: the Variant primitive, the Arrow type the column is cast to
# before its buffer is read, and the payload width in bytes.
_FIXED: dict[VariantType, tuple[PrimitiveType, pa.DataType, int]] = {
    VariantType.INT8: (PrimitiveType.INT8, pa.int8(), 1),
    VariantType.INT16: (PrimitiveType.INT16, pa.int16(), 2),
    VariantType.INT32: (PrimitiveType.INT32, pa.int32(), 4),
    VariantType.INT64: (PrimitiveType.INT64, pa.int64(), 8),
    VariantType.FLOAT: (PrimitiveType.FLOAT, pa.float32(), 4),
    VariantType.DOUBLE: (PrimitiveType.DOUBLE, pa.float64(), 8),
    VariantType.DATE: (PrimitiveType.DATE, pa.date32(), 4),
    VariantType.TIME: (PrimitiveType.TIME, pa.time64("us"), 8),
    VariantType.TIMESTAMP: (PrimitiveType.TIMESTAMP, pa.timestamp("us", "UTC"), 8),
    VariantType.TIMESTAMP_NTZ: (PrimitiveType.TIMESTAMP_NTZ, pa.timestamp("us"), 8),
    VariantType.TIMESTAMP_NANOS: (PrimitiveType.TIMESTAMP_NANOS, pa.timestamp("ns", "UTC"), 8),
    VariantType.TIMESTAMP_NTZ_NANOS: (PrimitiveType.TIMESTAMP_NTZ_NANOS, pa.timestamp("ns"), 8),
    VariantType.UUID: (PrimitiveType.UUID, pa.binary(16), 16),
}
_DECIMALS = {
    VariantType.DECIMAL4: (PrimitiveType.DECIMAL4, 4),
    VariantType.DECIMAL8: (PrimitiveType.DECIMAL8, 8),
    VariantType.DECIMAL16: (PrimitiveType.DECIMAL16, 16),
}
_DECIMAL16_MAX = 10**38 - 1
_DECIMAL16_HIGH = _DECIMAL16_MAX >> 64  # the high 8 bytes of the largest decimal16 (signed)
_TRUE = primitive_header(PrimitiveType.TRUE)
_FALSE = primitive_header(PrimitiveType.FALSE)
_LONG_HEADER_BYTES = 5  # header byte + 4-byte length of a long string or binary


class _Context:
    """What every level needs: the file for errors, the rows' metadata and a cache of each
    distinct metadata's name -> field_id map (rows of one file share a handful of them)."""

    def __init__(self, layout: VariantLayout, group: pa.StructArray, file: str | None) -> None:
        self.layout = layout
        self.file = file
        self.group = group
        self._codes: np.ndarray | None = None
        self._metadata: list[bytes] = []
        self._views: dict[int, VariantMetadata] = {}
        self._ids: dict[tuple[int, tuple[str, ...]], tuple[int | None, ...]] = {}

    def fail(self, message: str, column_path: str) -> InvalidShreddingError:
        return InvalidShreddingError(message, file=self.file, column_path=column_path)

    def codes(self) -> np.ndarray:
        """Per top-level row, the index of its metadata among the distinct ones."""
        if self._codes is None:
            # unshred checked that every non-null row has its metadata.
            meta = plain_binary(_field(self.group, "metadata", self.layout.metadata or "metadata", self))
            encoded = pc.dictionary_encode(meta)
            self._metadata = encoded.dictionary.to_pylist()
            self._codes = encoded.indices.fill_null(0).to_numpy(zero_copy_only=False)
        return self._codes

    def metadata(self, code: int) -> VariantMetadata:
        view = self._views.get(code)
        if view is None:
            view = VariantMetadata(self._metadata[code])  # validate_metadata read it once already
            self._views[code] = view
        return view

    def validate_metadata(self, valid: np.ndarray) -> None:
        """Check every distinct metadata of the rows in ``valid`` (all of it: the column is
        returned as is), naming the first row that holds a bad one."""
        codes = self.codes()
        distinct, first = np.unique(codes[valid], return_index=True)
        rows = np.flatnonzero(valid)[first]
        for code, row in sorted(zip(distinct.tolist(), rows.tolist()), key=lambda p: p[1]):
            if code in self._views:
                continue
            try:
                view = VariantMetadata(self._metadata[code])
                view.validate()
            except MalformedVariantError as err:
                err.message = f"row {row}: {err.message}"
                err.args = (err.message,)
                raise err.with_context(file=self.file, column_path=self.layout.metadata)
            self._views[code] = view

    def field_ids(self, code: int, names: tuple[str, ...]) -> tuple[int | None, ...]:
        key = (code, names)
        ids = self._ids.get(key)
        if ids is None:
            by_name = metadata_key_ids(self.metadata(code))
            ids = tuple(by_name.get(n) for n in names)
            self._ids[key] = ids
        return ids


# -- Arrow helpers ------------------------------------------------------------------------------
def _validity(arr: pa.Array) -> np.ndarray:
    if arr.null_count == 0:
        return np.ones(len(arr), dtype=bool)
    return np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)


def _plain(arr: pa.Array) -> pa.Array:
    """Strip what pyarrow may wrap a column in: an extension type (``arrow.uuid``), a
    dictionary (``read_dictionary=``)."""
    if isinstance(arr, pa.ExtensionArray):
        arr = arr.storage
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    return arr


def plain_binary(arr: pa.Array) -> pa.Array:
    """``arr`` as a plain ``binary`` array: no extension, no dictionary, 32-bit offsets."""
    arr = _plain(arr)
    if not pa.types.is_binary(arr.type):
        arr = arr.cast(pa.binary())
    return arr


def _field(group: pa.StructArray, name: str, path: str, ctx: _Context) -> pa.Array:
    index = group.type.get_field_index(name)
    if index < 0:
        raise ctx.fail(f"the data read has no {name} field: read every column of the Variant", path)
    return group.field(index)


def _binary_array(sizes: np.ndarray, data: np.ndarray, valid: np.ndarray) -> pa.Array:
    """A binary array from per-row sizes (0 for null rows), the concatenated bytes, validity."""
    n = len(sizes)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    if offsets[-1] > MAX_BINARY_ARRAY_BYTES:
        raise VariantTooLargeError(
            f"{offsets[-1]} bytes of Variant values do not fit one Arrow binary array; "
            "read smaller batches or row groups"
        )
    null_count = int(n - np.count_nonzero(valid))
    validity = pa.array(valid, pa.bool_()).buffers()[1] if null_count else None
    return pa.Array.from_buffers(
        pa.binary(),
        n,
        [validity, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(np.ascontiguousarray(data))],
        null_count,
    )


def _fixed_matrix(arr: pa.Array, width: int) -> np.ndarray:
    """The value buffer of a fixed-width array as an (n, width) byte matrix, slicing honoured."""
    buf = arr.buffers()[1]
    if buf is None or len(arr) == 0:
        return np.zeros((len(arr), width), dtype=np.uint8)
    raw = np.frombuffer(buf, dtype=np.uint8)
    start = arr.offset * width
    return raw[start : start + len(arr) * width].reshape(len(arr), width)


def _from_matrix(matrix: np.ndarray, valid: np.ndarray) -> pa.Array:
    rows = matrix[valid]
    return _binary_array(np.where(valid, matrix.shape[1], 0), rows.reshape(-1), valid)


_AS_BINARY = {pa.string(): pa.binary(), pa.large_string(): pa.large_binary(), pa.string_view(): pa.binary_view()}


def _check_arrow(arr: pa.Array, path: str, ctx: _Context) -> None:
    """Raise unless ``arr``'s offsets run in order inside its data: pyarrow's cheap validation
    checks only the first and the last, and numpy or pyarrow.compute would read past the buffer.
    Strings are checked as binary here; :func:`_check_utf8` names the row of bad UTF-8."""
    if isinstance(arr, pa.ExtensionArray):
        arr = arr.storage
    t = arr.type
    binary_like = pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t)
    if not (pa.types.is_dictionary(t) or binary_like):
        target = _AS_BINARY.get(t)
        if target is None:
            return  # fixed width: validate() checked the buffer sizes
        arr = arr.view(target)
    try:
        arr.validate(full=True)
    except pa.ArrowInvalid as exc:
        raise ctx.fail(f"the Arrow column is not valid: {exc}", path) from None


def _check_utf8(
    arr: pa.Array, valid: np.ndarray, layout: PrimitiveLayout, ctx: _Context, rows: np.ndarray
) -> None:
    """Raise, naming the row, unless every string is UTF-8: pyarrow does not check on read, and
    a Variant string must be UTF-8."""
    try:
        arr.cast(pa.large_binary()).cast(pa.large_string())
        return
    except pa.ArrowInvalid:
        pass
    for i, item in enumerate(arr.cast(pa.large_binary()).to_pylist()):
        if not valid[i] or item is None:
            continue
        try:
            item.decode("utf-8")
        except UnicodeDecodeError:
            raise ctx.fail(
                f"row {int(rows[i])}: a string in typed_value is not valid UTF-8", layout.path
            ) from None


def _check_value_sizes(
    value: pa.Array, valid: np.ndarray, path: str, ctx: _Context, rows: np.ndarray
) -> None:
    """Raise unless every value in ``valid`` is exactly as long as its header says: values are
    copied as they are, so a shorter size would hide trailing bytes and a longer one read past
    the value. Vectorized; the first bad row is then read again by :func:`value_size` for the
    message."""
    if not valid.any():
        return
    offsets, data = _binary_parts(value)
    starts, lengths = offsets[:-1], np.diff(offsets)
    sizes = _value_sizes(data, starts, lengths)
    bad = valid & (sizes != lengths)
    if not bad.any():
        return
    i = int(np.flatnonzero(bad)[0])
    raw = data[starts[i] : starts[i] + lengths[i]].tobytes()
    try:
        size = value_size(raw)
        message = f"value is {size} bytes but the buffer holds {len(raw)}"
    except MalformedVariantError as err:
        message = err.message
    raise MalformedVariantError(f"row {int(rows[i])}: {message}", file=ctx.file, column_path=path)


_FIXED_SIZES = np.array(
    [1 + PRIMITIVE_FIXED_SIZE.get(PrimitiveType(t), 0) if t in set(PrimitiveType) else -1 for t in range(64)],
    dtype=np.int64,
)
_FIXED_SIZES[[PrimitiveType.BINARY, PrimitiveType.STRING]] = -2  # a 4-byte length follows


def _value_sizes(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Per value, the size its header gives (as :func:`~vpush.codec.value.value_size`), or -1
    when it cannot be read within ``lengths``."""
    n = len(starts)
    out = np.full(n, -1, dtype=np.int64)
    if len(data) == 0:
        return out

    def byte(pos: np.ndarray) -> np.ndarray:
        return data[np.clip(pos, 0, len(data) - 1)].astype(np.int64)

    def uint(pos: np.ndarray, width: np.ndarray | int) -> np.ndarray:
        w = np.broadcast_to(np.asarray(width), pos.shape)
        v = np.zeros(len(pos), dtype=np.int64)
        for b in range(4):
            v |= np.where(w > b, byte(pos + b), 0) << (8 * b)
        return v

    has = lengths >= 1
    header = byte(starts)
    basic, h = header & 0x03, header >> 2
    short = has & (basic == BasicType.SHORT_STRING)
    out[short] = 1 + h[short]
    prim = has & (basic == BasicType.PRIMITIVE)
    fixed = _FIXED_SIZES[h]
    simple = prim & (fixed >= 0)
    out[simple] = fixed[simple]
    long_ = prim & (fixed == -2) & (lengths >= 5)
    out[long_] = 5 + uint(starts[long_] + 1, 4)
    cont = has & (basic >= BasicType.OBJECT)
    is_object = basic == BasicType.OBJECT
    osz = (h & 0x03) + 1
    isz = np.where(is_object, ((h >> 2) & 0x03) + 1, 0)
    large = np.where(is_object, (h >> 4) & 1, (h >> 2) & 1)
    nsz = np.where(large == 1, 4, 1)
    cont &= is_object | ((h >> 3) == 0)  # an array's reserved header bits
    cont &= lengths >= 1 + nsz
    count = uint(starts + 1, nsz)
    table = count * isz + (count + 1) * osz
    cont &= table <= lengths - 1 - nsz
    last = uint(starts + 1 + nsz + count * isz + count * osz, osz)
    out[cont] = (1 + nsz + table + last)[cont]
    return out


# -- primitives ---------------------------------------------------------------------------------
def _primitive_bytes(layout: PrimitiveLayout, arr: pa.Array, ctx: _Context, rows: np.ndarray) -> pa.Array:
    """A whole typed_value column as Variant value bytes (null where typed_value is null);
    ``rows`` are the top-level rows of its slots, named in errors."""
    _check_arrow(arr, layout.path, ctx)
    arr = _plain(arr)
    n = len(arr)
    valid = _validity(arr)
    vt = layout.variant_type
    try:
        if vt == VariantType.BOOLEAN:
            flags = arr.cast(pa.bool_()).fill_null(False).to_numpy(zero_copy_only=False)
            headers = np.where(flags, _TRUE, _FALSE).astype(np.uint8)
            return _from_matrix(headers.reshape(n, 1), valid)
        if vt in (VariantType.STRING, VariantType.BINARY):
            if vt == VariantType.STRING:
                _check_utf8(arr, valid, layout, ctx, rows)
            return _variable_bytes(arr, valid, vt == VariantType.STRING)
        if not _LITTLE_ENDIAN:  # Arrow buffers are native-endian; the Variant is little-endian
            return _slow_primitive_bytes(layout, arr)
        if vt in _DECIMALS:
            ptype, width = _DECIMALS[vt]
            dtype = arr.type
            if not pa.types.is_decimal(dtype):
                raise ctx.fail(f"typed_value is {dtype}, expected a decimal", layout.path)
            arr = arr.cast(pa.decimal128(max(dtype.precision, 1), dtype.scale))
            unscaled = _fixed_matrix(arr, 16)
            _check_decimal_range(unscaled, valid, vt, layout, ctx, rows)
            matrix = np.empty((n, 2 + width), dtype=np.uint8)
            matrix[:, 0] = primitive_header(ptype)
            matrix[:, 1] = dtype.scale
            # The low bytes of a little-endian two's complement number are the number itself when
            # it fits the narrower width, which _check_decimal_range made sure of.
            matrix[:, 2:] = unscaled[:, :width]
            return _from_matrix(matrix, valid)
        ptype, target, width = _FIXED[vt]
        if pa.types.is_timestamp(target) and pa.types.is_timestamp(arr.type):
            target = pa.timestamp(target.unit, arr.type.tz)  # keep the zone: only the unit matters
        if not arr.type.equals(target):
            arr = arr.cast(target)
        matrix = np.empty((n, 1 + width), dtype=np.uint8)
        matrix[:, 0] = primitive_header(ptype)
        matrix[:, 1:] = _fixed_matrix(arr, width)
        return _from_matrix(matrix, valid)
    except CodecError:
        raise
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, ValueError) as exc:
        # ValueError: pyarrow's own, for a decimal256 column over 38 digits
        raise ctx.fail(
            f"typed_value of type {arr.type} cannot be read as {vt.value}: {exc}", layout.path
        ) from None


def _check_decimal_range(
    unscaled: np.ndarray,
    valid: np.ndarray,
    vt: VariantType,
    layout: PrimitiveLayout,
    ctx: _Context,
    rows: np.ndarray,
) -> None:
    """Raise unless every 16-byte unscaled value fits the precision of ``vt`` (9, 18 or 38
    digits): pyarrow does not check a Parquet column's values against its declared precision."""
    if vt == VariantType.DECIMAL16:
        # Only values near 2**126 can pass 38 digits: check those exactly.
        high = unscaled[:, 8:].copy().view("<i8").reshape(-1)
        near = valid & ((high >= _DECIMAL16_HIGH) | (high < -_DECIMAL16_HIGH))
        bad = np.zeros(len(valid), dtype=bool)
        for i in np.flatnonzero(near).tolist():
            bad[i] = abs(int.from_bytes(unscaled[i].tobytes(), "little", signed=True)) > _DECIMAL16_MAX
    else:
        low = unscaled[:, :8].copy().view("<i8").reshape(-1)
        sign = np.where(low < 0, 0xFF, 0x00).astype(np.uint8)
        limit = 10 ** (9 if vt == VariantType.DECIMAL4 else 18) - 1
        # Not np.abs(low): it overflows for -2**63, which would pass.
        bad = valid & (((unscaled[:, 8:] != sign[:, None]).any(axis=1)) | (low > limit) | (low < -limit))
    if bad.any():
        raise ctx.fail(
            f"row {int(rows[np.flatnonzero(bad)[0]])}: a decimal in typed_value has more digits than "
            f"{vt.value} holds",
            layout.path,
        )


def _variable_bytes(arr: pa.Array, valid: np.ndarray, is_string: bool) -> pa.Array:
    """Strings (short strings up to 63 bytes, as Spark writes them) or binaries, vectorized."""
    arr = arr.cast(pa.large_binary())
    n = len(arr)
    buffers = arr.buffers()
    offsets = (
        np.frombuffer(buffers[1], dtype=np.int64)[arr.offset : arr.offset + n + 1]
        if n
        else np.zeros(1, np.int64)
    )
    lengths = np.diff(offsets)
    if (lengths[~valid] != 0).any():
        # A null slot may own bytes in Arrow; drop them so that the payloads are contiguous.
        arr = pc.if_else(pa.array(valid), arr, pa.scalar(b"", pa.large_binary()))
        return _variable_bytes(arr, valid, is_string)
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    payload = data[offsets[0] : offsets[-1]]
    if is_string:
        short = lengths <= MAX_SHORT_STRING_BYTES
        header_bytes = np.where(short, 1, _LONG_HEADER_BYTES)
        first = np.where(
            short, (lengths << 2) | BasicType.SHORT_STRING, primitive_header(PrimitiveType.STRING)
        )
    else:
        short = np.zeros(n, dtype=bool)
        header_bytes = np.full(n, _LONG_HEADER_BYTES)
        first = np.full(n, primitive_header(PrimitiveType.BINARY))
    sizes = np.where(valid, header_bytes + lengths, 0)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    total = int(sizes.sum())
    out = np.empty(total, dtype=np.uint8)
    is_payload = np.ones(total, dtype=bool)
    vstarts = starts[valid]
    out[vstarts] = first[valid].astype(np.uint8)
    is_payload[vstarts] = False
    long_rows = valid & ~short
    if long_rows.any():
        lstarts = starts[long_rows]
        length_bytes = lengths[long_rows].astype("<u4").view(np.uint8).reshape(-1, 4)
        for k in range(4):
            out[lstarts + 1 + k] = length_bytes[:, k]
            is_payload[lstarts + 1 + k] = False
    out[is_payload] = payload
    return _binary_array(sizes, out, valid)


def _slow_primitive_bytes(layout: PrimitiveLayout, arr: pa.Array) -> pa.Array:
    """Per-row encoding, for big-endian hosts."""
    from vpush.codec.builder import encode_primitive

    vt = layout.variant_type
    ptype = _DECIMALS[vt][0] if vt in _DECIMALS else _FIXED[vt][0]
    out: list[bytes | None] = []
    for item in arr:
        if not item.is_valid:
            out.append(None)
        elif pa.types.is_temporal(arr.type):
            out.append(
                encode_primitive(
                    ptype, item.cast(pa.int64() if arr.type.bit_width == 64 else pa.int32()).as_py()
                )
            )
        else:
            out.append(encode_primitive(ptype, item.as_py()))
    return pa.array(out, pa.binary())


# -- object and array kernels -------------------------------------------------------------------
# These assemble many objects or arrays at once from columns of child value bytes, with numpy:
# the per-row work of encode_object / encode_array (smallest id and offset widths, header, count,
# id and offset tables, then the children's bytes) done as whole-column operations.
def _binary_parts(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(offsets as int64, n + 1 of them, data) of a binary array, slicing honoured."""
    arr = plain_binary(arr)
    n = len(arr)
    buffers = arr.buffers()
    if n == 0:
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    offsets = np.frombuffer(buffers[1], dtype=np.int32)[arr.offset : arr.offset + n + 1].astype(np.int64)
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    return offsets, data


def _scatter(sizes: np.ndarray, selected: np.ndarray, n: int) -> np.ndarray:
    full = np.zeros(n, dtype=np.int64)
    full[selected] = sizes
    return full


def _int_sizes(values: np.ndarray) -> np.ndarray:
    """Per value, the fewest bytes (1 to 4) that hold it, as :func:`~vpush.codec.header.int_size`."""
    return 1 + (values > 0xFF).astype(np.int64) + (values > 0xFFFF) + (values > 0xFFFFFF)


def _put(out: np.ndarray, positions: np.ndarray, values: np.ndarray, sizes: np.ndarray | int) -> None:
    """Write each ``values[i]`` little-endian in ``sizes[i]`` bytes at ``positions[i]``."""
    widths = np.broadcast_to(np.asarray(sizes), positions.shape)
    for b in range(4):
        chosen = widths > b
        if not chosen.any():
            break
        out[positions[chosen] + b] = (values[chosen] >> (8 * b)) & 0xFF


def _copy_segments(
    out: np.ndarray, targets: np.ndarray, data: np.ndarray, sources: np.ndarray, lengths: np.ndarray
) -> None:
    """``out[targets[i]:][:lengths[i]] = data[sources[i]:][:lengths[i]]`` for every i at once."""
    total = int(lengths.sum())
    if total == 0:
        return
    within = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    out[np.repeat(targets, lengths) + within] = data[np.repeat(sources, lengths) + within]


def _starts(sizes: np.ndarray) -> np.ndarray:
    starts = np.zeros(len(sizes), dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    return starts


def encode_objects(
    ids: np.ndarray, present: np.ndarray, starts: np.ndarray, lengths: np.ndarray, data: Sequence[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Encode m objects over k candidate fields, already sorted by name, at once.

    Example:
        >>> data = [np.frombuffer(b"\\x0c\\x01", np.uint8), np.zeros(0, np.uint8)]
        >>> sizes, out = encode_objects(np.array([[0, 1]]), np.array([[True, False]]),
        ...                             np.array([[0, 0]]), np.array([[2, 0]]), data)
        >>> sizes.tolist(), out.tobytes() == encode_object([("a", 0, b"\\x0c\\x01")])
        ([7], True)

    Args:
        ids: (m, k) field_id of each field in each row's metadata.
        present: (m, k) whether the row has the field.
        starts: (m, k) where each field's value bytes start in ``data[j]``.
        lengths: (m, k) their length (0 when absent).
        data: per field, the bytes its values are in.

    Returns:
        Each object's size and all objects' bytes, concatenated.
    """
    m, k = present.shape
    count = present.sum(axis=1).astype(np.int64)
    total = lengths.sum(axis=1).astype(np.int64)
    id_size = _int_sizes(np.where(present, ids, 0).max(axis=1) if k else np.zeros(m, np.int64))
    offset_size = _int_sizes(total)
    is_large = count > U8_MAX
    count_size = np.where(is_large, 4, 1)
    header = ((((is_large.astype(np.int64) << 4) | ((id_size - 1) << 2) | (offset_size - 1)) << 2)
              | BasicType.OBJECT)  # fmt: skip
    sizes = 1 + count_size + count * id_size + (count + 1) * offset_size + total
    row_start = _starts(sizes)
    out = np.empty(int(sizes.sum()), dtype=np.uint8)
    out[row_start] = header
    _put(out, row_start + 1, count, count_size)
    ids_start = row_start + 1 + count_size
    offsets_start = ids_start + count * id_size
    data_start = offsets_start + (count + 1) * offset_size
    rank = np.cumsum(present, axis=1) - present
    field_offset = np.cumsum(lengths, axis=1) - lengths
    for j in range(k):
        r = np.flatnonzero(present[:, j])
        _put(out, ids_start[r] + rank[r, j] * id_size[r], ids[r, j], id_size[r])
        _put(out, offsets_start[r] + rank[r, j] * offset_size[r], field_offset[r, j], offset_size[r])
        _copy_segments(out, data_start[r] + field_offset[r, j], data[j], starts[r, j], lengths[r, j])
    _put(out, offsets_start + count * offset_size, total, offset_size)
    return sizes, out


def encode_arrays(
    offsets: np.ndarray, data: np.ndarray, first: np.ndarray, count: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Encode m arrays at once; array i holds elements ``first[i]`` to ``first[i] + count[i]`` of
    the binary column (``offsets``, ``data``).

    Example:
        >>> from vpush.codec.builder import encode_array
        >>> sizes, out = encode_arrays(np.array([0, 2, 3]), np.frombuffer(b"\\x0c\\x01\\x00", np.uint8),
        ...                            np.array([0]), np.array([2]))
        >>> out.tobytes() == encode_array([b"\\x0c\\x01", b"\\x00"])
        True
    """
    count = count.astype(np.int64)
    first = first.astype(np.int64)
    total = offsets[first + count] - offsets[first]
    offset_size = _int_sizes(total)
    is_large = count > U8_MAX
    count_size = np.where(is_large, 4, 1)
    header = (((is_large.astype(np.int64) << 2) | (offset_size - 1)) << 2) | BasicType.ARRAY
    sizes = 1 + count_size + (count + 1) * offset_size + total
    row_start = _starts(sizes)
    out = np.empty(int(sizes.sum()), dtype=np.uint8)
    out[row_start] = header
    _put(out, row_start + 1, count, count_size)
    offsets_start = row_start + 1 + count_size
    owner = np.repeat(np.arange(len(count)), count)
    within = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    element = first[owner] + within
    _put(
        out,
        offsets_start[owner] + within * offset_size[owner],
        offsets[element] - offsets[first[owner]],
        offset_size[owner],
    )
    _put(out, offsets_start + count * offset_size, total, offset_size)
    _copy_segments(out, offsets_start + (count + 1) * offset_size, data, offsets[first], total)
    return sizes, out


# -- the final layout ---------------------------------------------------------------------------
def _reconstruct(
    level: ValueLayout, group: pa.StructArray, ctx: _Context, rows: np.ndarray, active: np.ndarray
) -> pa.Array:
    """The value bytes of every row of ``level`` (null = missing); rows outside ``active`` are
    missing whatever they hold (their parent is null)."""
    n = len(group)
    valid = active & _validity(group)
    if level.value is not None:
        raw_value = _field(group, level.value_field, level.value, ctx)
        _check_arrow(raw_value, level.value, ctx)
        value = plain_binary(raw_value)
        v_valid = valid & _validity(value)
        _check_value_sizes(value, v_valid, level.value, ctx, rows)
    else:
        value = pa.nulls(n, pa.binary())
        v_valid = np.zeros(n, dtype=bool)
    typed_layout = level.typed_value
    if typed_layout is None:
        return _masked(value, v_valid)
    typed = _plain(_field(group, level.typed_field, typed_layout.path, ctx))
    t_valid = valid & _validity(typed)
    if isinstance(typed_layout, ObjectLayout):
        typed_bytes = _object_bytes(level, typed_layout, typed, value, ctx, rows, t_valid, v_valid)
    else:
        both = v_valid & t_valid
        if both.any():
            row = int(rows[np.flatnonzero(both)[0]])
            kind = "array" if isinstance(typed_layout, ArrayLayout) else "primitive"
            raise ctx.fail(
                f"row {row}: value and typed_value are both non-null, which only a partially "
                f"shredded object may have (typed_value is a shredded {kind})",
                level.path,
            )
        if isinstance(typed_layout, ArrayLayout):
            typed_bytes = _array_bytes(typed_layout, typed, ctx, rows, t_valid)
        else:
            typed_bytes = _primitive_bytes(typed_layout, typed, ctx, rows)
    if not v_valid.any():
        return _masked(typed_bytes, t_valid)
    return pc.if_else(pa.array(t_valid), typed_bytes, _masked(value, v_valid))


def _masked(arr: pa.Array, valid: np.ndarray) -> pa.Array:
    """``arr`` with nulls where ``valid`` is false (``valid`` never adds rows to ``arr``)."""
    if (_validity(arr) == valid).all():
        return arr
    return pc.if_else(pa.array(valid), arr, pa.scalar(None, arr.type))


def _array_bytes(
    layout: ArrayLayout, typed: pa.Array, ctx: _Context, rows: np.ndarray, t_valid: np.ndarray
) -> pa.Array:
    if not (pa.types.is_list(typed.type) or pa.types.is_large_list(typed.type)):
        typed = typed.cast(pa.large_list(typed.type.value_field))
    offsets = typed.offsets.to_numpy().astype(np.int64)
    base = int(offsets[0])
    lengths = np.diff(offsets)
    elements = typed.values.slice(base, int(offsets[-1]) - base)
    elem_bytes = _reconstruct(
        layout.element, elements, ctx, np.repeat(rows, lengths), np.repeat(t_valid, lengths)
    )
    # A missing element (value and typed_value both null) reads as a Variant null (case 85): an
    # array cannot have holes.
    elem_offsets, elem_data = _binary_parts(elem_bytes.fill_null(NULL_VALUE))
    selected = np.flatnonzero(t_valid)
    sizes, data = encode_arrays(elem_offsets, elem_data, offsets[selected] - base, lengths[selected])
    return _binary_array(_scatter(sizes, selected, len(typed)), data, t_valid)


def _object_bytes(
    level: ValueLayout,
    layout: ObjectLayout,
    typed: pa.StructArray,
    value: pa.Array,
    ctx: _Context,
    rows: np.ndarray,
    t_valid: np.ndarray,
    v_valid: np.ndarray,
) -> pa.Array:
    n = len(typed)
    names = layout.names
    # Objects store fields sorted by name; the shredded names are fixed, so sort them once.
    order = sorted(range(len(names)), key=lambda j: names[j].encode("utf-8"))
    sorted_names = tuple(names[j] for j in order)
    fields = [layout.fields[j] for j in order]
    columns = [_reconstruct(f, _field(typed, f.name, f.path, ctx), ctx, rows, t_valid) for f in fields]
    codes = ctx.codes()[rows]
    # field_id of each shredded name in each row's metadata (-1: not in the dictionary).
    distinct = np.unique(codes[t_valid])
    table = np.full((int(distinct.max()) + 1 if len(distinct) else 1, len(names)), -1, dtype=np.int64)
    for code in distinct.tolist():
        table[code] = [-1 if i is None else i for i in ctx.field_ids(code, sorted_names)]
    ids = table[np.where(t_valid, codes, 0)]
    present = np.stack([_validity(c) for c in columns], axis=1) & t_valid[:, None]
    unknown = present & (ids < 0)
    if unknown.any():
        i, j = (int(x[0]) for x in np.nonzero(unknown))
        raise ctx.fail(
            f"row {int(rows[i])}: shredded field {sorted_names[j]!r} is not in the row's metadata dictionary",
            fields[j].path,
        )
    partial = t_valid & v_valid
    whole = np.flatnonzero(t_valid & ~partial)
    parts = [_binary_parts(c) for c in columns]
    starts = np.stack([p[0][:-1] for p in parts], axis=1)
    lengths = np.where(present, np.stack([np.diff(p[0]) for p in parts], axis=1), 0)
    sizes, data = encode_objects(
        ids[whole], present[whole], starts[whole], lengths[whole], [p[1] for p in parts]
    )
    result = _binary_array(_scatter(sizes, whole, n), data, t_valid & ~partial)
    if not partial.any():
        return result
    # Partially shredded objects: merge the residual object's fields row by row.
    out: list[bytes | None] = [None] * n
    residuals = value.to_pylist()
    pylists = [c.to_pylist() for c in columns]
    name_set = frozenset(names)
    for i in np.flatnonzero(partial).tolist():
        row = int(rows[i])
        merged = [
            (name, int(ids[i, j]), pylists[j][i]) for j, name in enumerate(sorted_names) if present[i, j]
        ]
        merged.extend(_residual_fields(level, residuals[i], ctx.metadata(int(codes[i])), name_set, ctx, row))
        out[i] = encode_object(merged)
    return pc.if_else(pa.array(partial), pa.array(out, pa.binary()), result)


def _residual_fields(
    level: ValueLayout,
    data: bytes,
    metadata: VariantMetadata,
    shredded: frozenset[str],
    ctx: _Context,
    row: int,
) -> list[tuple[str, int, bytes]]:
    """The fields of a partially shredded object's ``value``, checked against the spec."""
    path = level.value or level.path
    try:
        residual = Variant(metadata, data)
        if residual.basic_type != BasicType.OBJECT:
            raise ctx.fail(
                f"row {row}: value is not an object (it is of type {residual.type.value}) but "
                "typed_value holds shredded fields: a partially shredded value must be an object",
                path,
            )
        fields = []
        seen: set[str] = set()
        for fid, (name, child) in zip(residual.field_ids(), residual.items()):
            if name in shredded:
                raise ctx.fail(
                    f"row {row}: field {name!r} is both a shredded field and in the value object",
                    path,
                )
            if name in seen:
                # Two ids naming one string (metadata may repeat strings when not sorted).
                raise MalformedVariantError(
                    f"row {row}: duplicate field name {name!r} in object", file=ctx.file, column_path=path
                )
            seen.add(name)
            fields.append((name, fid, child.value_bytes()))
        return fields
    except InvalidShreddingError:
        raise
    except MalformedVariantError as err:
        if not err.message.startswith("row "):
            err.message = f"row {row}: {err.message}"
            err.args = (err.message,)
        raise err.with_context(file=ctx.file, column_path=path)


# -- the draft layout ---------------------------------------------------------------------------
def _draft_reconstruct(
    level: ValueLayout, group: pa.StructArray, ctx: _Context, rows: np.ndarray, active: np.ndarray
) -> list[Any]:
    """Per row: None (missing), a :class:`Variant`, or dicts and lists of those; ``encode``
    later gives each row one fresh metadata (the draft's untyped_values each carry their own)."""
    n = len(group)
    valid = active & _validity(group)
    untyped: list[Any] = [None] * n
    if level.value is not None:
        raw_value = _field(group, level.value_field, level.value, ctx)
        _check_arrow(raw_value, level.value, ctx)
        raw = plain_binary(raw_value)
        for i, data in enumerate(raw.to_pylist()):
            if data is not None and valid[i]:
                try:
                    untyped[i] = Variant.from_concatenated(data)
                except MalformedVariantError as err:
                    raise err.with_context(file=ctx.file, column_path=level.value)
    typed_layout = level.typed_value
    if typed_layout is None:
        return untyped
    typed = _plain(_field(group, level.typed_field, typed_layout.path, ctx))
    t_valid = valid & _validity(typed)
    out = untyped
    if isinstance(typed_layout, ObjectLayout):
        columns = [
            _draft_reconstruct(f, _field(typed, f.name, f.path, ctx), ctx, rows, t_valid)
            for f in typed_layout.fields
        ]
        for i in np.flatnonzero(t_valid).tolist():
            base: dict[str, Any] = {}
            residual = untyped[i]
            if residual is not None:
                if residual.basic_type != BasicType.OBJECT:
                    raise ctx.fail(
                        f"row {int(rows[i])}: untyped_value is not an object but object is non-null",
                        level.path,
                    )
                base = dict(residual.items())
            # ConstructObject: a shredded field that is present wins over the untyped one.
            for f, column in zip(typed_layout.fields, columns):
                if column[i] is not None:
                    base[f.name] = column[i]
            out[i] = base
        return out
    if isinstance(typed_layout, ArrayLayout):
        if not (pa.types.is_list(typed.type) or pa.types.is_large_list(typed.type)):
            typed = typed.cast(pa.large_list(typed.type.value_field))
        offsets = typed.offsets.to_numpy()
        first = int(offsets[0])
        lengths = np.diff(offsets)
        elements = _draft_reconstruct(
            typed_layout.element,
            typed.values.slice(first, int(offsets[-1]) - first),
            ctx,
            np.repeat(rows, lengths),
            np.repeat(t_valid, lengths),
        )
        null = Variant(_EMPTY_METADATA, NULL_VALUE)
        for i in np.flatnonzero(t_valid).tolist():
            if untyped[i] is not None:
                raise ctx.fail(f"row {int(rows[i])}: untyped_value and array are both non-null", level.path)
            out[i] = [
                e if e is not None else null for e in elements[offsets[i] - first : offsets[i + 1] - first]
            ]
        return out
    primitives = _primitive_bytes(typed_layout, typed, ctx, rows).to_pylist()
    for i in np.flatnonzero(t_valid).tolist():
        # ConstructVariant's leaf: coalesce(untyped_value, typed_value), where only a Variant null
        # may stand beside a typed value.
        if untyped[i] is not None:
            if not untyped[i].is_null():
                raise ctx.fail(
                    f"row {int(rows[i])}: untyped_value and typed_value are both non-null", level.path
                )
            continue
        out[i] = Variant(_EMPTY_METADATA, primitives[i])
    return out


def _unshred_draft(
    layout: VariantLayout, group: pa.StructArray, valid: np.ndarray, ctx: _Context
) -> pa.StructArray:
    n = len(group)
    trees = _draft_reconstruct(layout, group, ctx, np.arange(n), valid)
    metadata: list[bytes | None] = [None] * n
    values: list[bytes | None] = [None] * n
    for i in np.flatnonzero(valid).tolist():
        tree = trees[i]
        metadata[i], values[i] = encode(tree if tree is not None else Variant(_EMPTY_METADATA, NULL_VALUE))
    return pa.StructArray.from_arrays(
        [pa.array(metadata, pa.binary()), pa.array(values, pa.binary())],
        fields=list(UNSHREDDED_TYPE),
        mask=pa.array(~valid),
    )


# -- the entry point ----------------------------------------------------------------------------
def unshred(
    layout: VariantLayout, array: pa.StructArray | pa.ChunkedArray, *, file: str | None = None
) -> pa.StructArray:
    """Rebuild ``struct<metadata: binary, value: binary>`` from a shredded Variant column.

    Example:
        >>> import pyarrow as pa
        >>> from vpush.codec.layout import PrimitiveLayout
        >>> from vpush.codec.header import VariantType
        >>> layout = VariantLayout(name="v", path="v", value="v.value", metadata="v.metadata",
        ...     typed_value=PrimitiveLayout("v.typed_value", VariantType.INT64, "INT64"))
        >>> shredded = pa.StructArray.from_arrays(
        ...     [pa.array([b"\\x01\\x00\\x00"] * 3), pa.array([None, b"\\x0d\\x6e\\x2f\\x61", None]),
        ...      pa.array([34, None, None])], ["metadata", "value", "typed_value"])
        >>> [Variant(r["metadata"], r["value"]).to_python() for r in unshred(layout, shredded).to_pylist()]
        [34, 'n/a', None]

    Args:
        layout: the column's layout, from :func:`~vpush.codec.layout.find_variant_columns`.
        array: the column as pyarrow reads it (every leaf of the Variant group).
        file: the file it came from, named in errors.

    Returns:
        One row per input row: null where the Variant group is null (SQL NULL), else the
        Variant's metadata and value. A missing top-level value is a Variant null.

    Raises:
        InvalidShreddingError: data that breaks the shredding spec (conflicting value and
            typed_value, a non-object value beside shredded fields, a shredded field repeated in
            value, a shredded name missing from the metadata), naming the column path and row.
        MalformedVariantError: damaged metadata (every row's is checked) or value bytes (every
            value's size is checked against its bytes, and the fields of merged residual
            objects are read), or Arrow offsets outside their data.
        VariantTooLargeError: the rebuilt values pass 2 GiB; pass smaller batches.
    """
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if not pa.types.is_struct(array.type):
        raise InvalidShreddingError(
            f"a Variant column must be a struct, not {array.type}", file=file, column_path=layout.path
        )
    try:
        array.validate()  # lengths and buffer sizes; _check_arrow checks each leaf's offsets as read
    except pa.ArrowInvalid as exc:
        raise InvalidShreddingError(
            f"the Arrow column is not valid: {exc}", file=file, column_path=layout.path
        ) from None
    n = len(array)
    valid = _validity(array)
    ctx = _Context(layout, array, file)
    if layout.draft:
        return _unshred_draft(layout, array, valid, ctx)
    raw_metadata = _field(array, "metadata", layout.metadata or "metadata", ctx)
    _check_arrow(raw_metadata, layout.metadata or "metadata", ctx)
    metadata = plain_binary(raw_metadata)
    missing = valid & ~_validity(metadata)
    if missing.any():
        raise MalformedVariantError(
            f"row {int(np.flatnonzero(missing)[0])}: metadata is null in a non-null Variant",
            file=file,
            column_path=layout.metadata,
        )
    ctx.validate_metadata(valid)
    value = _reconstruct(layout, array, ctx, np.arange(n), valid)
    if value.null_count:
        # Missing at the top level (both columns null, case 129) is a Variant null.
        value = pc.if_else(pa.array(valid), value.fill_null(NULL_VALUE), pa.scalar(None, pa.binary()))
    else:
        value = value.cast(pa.binary())
    return pa.StructArray.from_arrays(
        [metadata, value], fields=list(UNSHREDDED_TYPE), mask=pa.array(~valid) if not valid.all() else None
    )
