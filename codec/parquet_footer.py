"""Read, edit and rewrite a Parquet footer: a generic Thrift compact-protocol codec.

A Parquet file ends with the footer:

```
+------+--- ... ---+----------------------------+----------------+------+
| PAR1 |   pages   | FileMetaData (compact      | footer_length  | PAR1 |
|      |           | protocol, footer_length B) | u32 LE         |      |
+------+--- ... ---+----------------------------+----------------+------+
```

The page offsets inside `FileMetaData` are absolute and every page lies before the footer, so a
new footer can replace the old one without touching any page. That is how vpush adds logical
type annotations that pyarrow cannot write.

The codec is generic: it keeps every field of every struct (known or not) with its compact type
and its order, so decoding then encoding a footer written by a standard Thrift writer gives the
same bytes. Field ids are the ones in apache/parquet-format `src/main/thrift/parquet.thrift`.
Every read is bounds-checked and nesting is capped at `MAX_NESTING_DEPTH`: damaged input raises
`CodecError`, never `IndexError` or `struct.error`, and never recurses without limit.
"""

from __future__ import annotations

import enum
import os
import struct
from dataclasses import dataclass, field
from typing import BinaryIO, TypeAlias

from vpush.codec.errors import CodecError

PARQUET_MAGIC = b"PAR1"
ENCRYPTED_FOOTER_MAGIC = b"PARE"
MAGIC_BYTES = 4
FOOTER_LENGTH_BYTES = 4
# Leading magic + trailing footer length + trailing magic: the smallest frame around a footer.
MIN_FILE_BYTES = MAGIC_BYTES + FOOTER_LENGTH_BYTES + MAGIC_BYTES
# FileMetaData nests about 6 deep (FileMetaData > RowGroup > ColumnChunk > ColumnMetaData >
# Statistics ...); 64 leaves room for future fields while keeping recursion far below Python's
# limit.
MAX_NESTING_DEPTH = 64
# A zigzag i64 needs at most ceil(64 / 7) = 10 varint bytes.
MAX_VARINT_BYTES = 10
U64_MAX = 2**64 - 1

# FileMetaData field ids (parquet.thrift).
FILE_METADATA_SCHEMA = 2
FILE_METADATA_ENCRYPTION_ALGORITHM = 8

_DOUBLE = struct.Struct("<d")
_U32 = struct.Struct("<I")


class CompactType(enum.IntEnum):
    """Type ids of the compact protocol, as they appear in field, list and map headers."""

    STOP = 0
    BOOLEAN_TRUE = 1
    BOOLEAN_FALSE = 2
    I8 = 3
    I16 = 4
    I32 = 5
    I64 = 6
    DOUBLE = 7
    BINARY = 8
    LIST = 9
    SET = 10
    MAP = 11
    STRUCT = 12
    UUID = 13


_BOOL_TYPES = (CompactType.BOOLEAN_TRUE, CompactType.BOOLEAN_FALSE)
_VARINT_TYPES = (CompactType.I16, CompactType.I32, CompactType.I64)
_UUID_BYTES = 16
_INT_BITS = {CompactType.I8: 8, CompactType.I16: 16, CompactType.I32: 32, CompactType.I64: 64}


@dataclass
class ThriftList:
    """A decoded list or set: its element type and its items, in wire order."""

    element_type: CompactType
    items: list[ThriftValue] = field(default_factory=list)


@dataclass
class ThriftMap:
    """A decoded map: key and value types and the (key, value) pairs in wire order.

    An empty map carries no types on the wire; they decode as `STOP` and are not written back.
    """

    key_type: CompactType
    value_type: CompactType
    items: list[tuple[ThriftValue, ThriftValue]] = field(default_factory=list)


@dataclass
class ThriftField:
    """One field of a struct. A bool field's `ctype` is `BOOLEAN_TRUE` whatever its value."""

    field_id: int
    ctype: CompactType
    value: ThriftValue


@dataclass
class ThriftStruct:
    """A decoded struct or union: its fields in wire order, unknown ones included.

    Example:
        >>> s = ThriftStruct()
        >>> s.set(4, CompactType.BINARY, b"v")
        >>> s.set(1, CompactType.I32, 7)
        >>> [f.field_id for f in s.fields], s.value(4)
        ([1, 4], b'v')
        >>> encode_struct(s).hex()
        '150e38017600'
    """

    fields: list[ThriftField] = field(default_factory=list)

    def get(self, field_id: int) -> ThriftField | None:
        """Return the field with this id, or None when absent."""
        for item in self.fields:
            if item.field_id == field_id:
                return item
        return None

    def value(self, field_id: int) -> ThriftValue | None:
        """Return the value of the field with this id, or None when absent."""
        item = self.get(field_id)
        return item.value if item is not None else None

    def set(self, field_id: int, ctype: CompactType, value: ThriftValue) -> None:
        """Replace the field with this id, or insert it before the first field with a larger id.

        Inserting in id order keeps the output what a generated Thrift writer would produce.
        """
        new = ThriftField(field_id, ctype, value)
        for index, item in enumerate(self.fields):
            if item.field_id == field_id:
                self.fields[index] = new
                return
            if item.field_id > field_id:
                self.fields.insert(index, new)
                return
        self.fields.append(new)


ThriftValue: TypeAlias = bool | int | float | bytes | ThriftStruct | ThriftList | ThriftMap


class _Reader:
    """A cursor over compact-protocol bytes; every read checks the bounds first."""

    def __init__(self, buf: bytes, offset: int, file: str | None) -> None:
        self.buf = buf
        self.pos = offset
        self.file = file

    def error(self, message: str) -> CodecError:
        return CodecError(f"malformed Parquet footer: {message}", file=self.file, offset=self.pos)

    def take(self, size: int) -> bytes:
        if size < 0 or size > len(self.buf) - self.pos:
            raise self.error(f"needs {size} bytes, {len(self.buf) - self.pos} left")
        start = self.pos
        self.pos += size
        return self.buf[start : self.pos]

    def byte(self) -> int:
        if self.pos >= len(self.buf):
            raise self.error("truncated")
        self.pos += 1
        return self.buf[self.pos - 1]

    def varint(self) -> int:
        result = 0
        for index in range(MAX_VARINT_BYTES):
            byte = self.byte()
            result |= (byte & 0x7F) << (7 * index)
            if not byte & 0x80:
                if result > U64_MAX:
                    raise self.error("varint overflows 64 bits")
                return result
        raise self.error(f"varint longer than {MAX_VARINT_BYTES} bytes")

    def zigzag(self) -> int:
        raw = self.varint()
        return (raw >> 1) ^ -(raw & 1)

    def size(self, min_item_bytes: int) -> int:
        # Every element takes at least one byte, so a count larger than what is left is damage,
        # and checking it here keeps a forged count from driving a huge loop.
        count = self.varint()
        if count * min_item_bytes > len(self.buf) - self.pos:
            raise self.error(f"count {count} exceeds the {len(self.buf) - self.pos} bytes left")
        return count

    def ctype(self, nibble: int) -> CompactType:
        try:
            return CompactType(nibble)
        except ValueError:
            raise self.error(f"unknown compact type {nibble}") from None

    def value(self, ctype: CompactType, depth: int, in_container: bool) -> ThriftValue:
        if ctype in _BOOL_TYPES:
            if not in_container:
                return ctype == CompactType.BOOLEAN_TRUE
            # Elements are a byte: the spec says 1/0, C++ and Java writers send 1/2.
            return self.byte() == 1
        if ctype == CompactType.I8:
            raw = self.byte()
            return raw - 256 if raw > 127 else raw
        if ctype in _VARINT_TYPES:
            return self.zigzag()
        if ctype == CompactType.DOUBLE:
            return float(_DOUBLE.unpack(self.take(_DOUBLE.size))[0])
        if ctype == CompactType.BINARY:
            return self.take(self.varint())
        if ctype == CompactType.UUID:
            return self.take(_UUID_BYTES)
        if depth >= MAX_NESTING_DEPTH:
            raise self.error(f"nesting deeper than {MAX_NESTING_DEPTH}")
        if ctype == CompactType.STRUCT:
            return self.struct(depth + 1)
        if ctype in (CompactType.LIST, CompactType.SET):
            return self.list(depth + 1)
        if ctype == CompactType.MAP:
            return self.map(depth + 1)
        raise self.error(f"compact type {ctype.name} cannot hold a value")

    def struct(self, depth: int) -> ThriftStruct:
        result = ThriftStruct()
        last_id = 0
        while True:
            header = self.byte()
            if header == CompactType.STOP:
                return result
            ctype = self.ctype(header & 0x0F)
            delta = header >> 4
            field_id = last_id + delta if delta else self.zigzag()
            if ctype in _BOOL_TYPES:
                result.fields.append(
                    ThriftField(field_id, CompactType.BOOLEAN_TRUE, self.value(ctype, depth, False))
                )
            else:
                result.fields.append(ThriftField(field_id, ctype, self.value(ctype, depth, False)))
            last_id = field_id

    def list(self, depth: int) -> ThriftList:
        header = self.byte()
        element_type = self.ctype(header & 0x0F)
        count = header >> 4
        if count == 0x0F:
            count = self.size(1)
        elif count > len(self.buf) - self.pos:
            raise self.error(f"count {count} exceeds the {len(self.buf) - self.pos} bytes left")
        return ThriftList(element_type, [self.value(element_type, depth, True) for _ in range(count)])

    def map(self, depth: int) -> ThriftMap:
        count = self.size(2)
        if count == 0:
            return ThriftMap(CompactType.STOP, CompactType.STOP)
        types = self.byte()
        key_type, value_type = self.ctype(types >> 4), self.ctype(types & 0x0F)
        items = [
            (self.value(key_type, depth, True), self.value(value_type, depth, True)) for _ in range(count)
        ]
        return ThriftMap(key_type, value_type, items)


def decode_struct(buf: bytes, offset: int = 0, *, file: str | None = None) -> tuple[ThriftStruct, int]:
    """Decode one compact-protocol struct starting at `offset`.

    Example:
        >>> s, end = decode_struct(bytes.fromhex("150e38017600") + b"tail")
        >>> [(f.field_id, f.ctype.name, f.value) for f in s.fields], end
        ([(1, 'I32', 7), (4, 'BINARY', b'v')], 6)

    Args:
        buf: the bytes to read.
        offset: where the struct starts.
        file: the file the bytes came from, named in errors.

    Returns:
        The struct and the offset just after its stop byte.

    Raises:
        CodecError: on truncated or malformed input, or nesting deeper than MAX_NESTING_DEPTH.
    """
    reader = _Reader(buf, offset, file)
    return reader.struct(0), reader.pos


class _Writer:
    def __init__(self) -> None:
        self.out = bytearray()

    def varint(self, value: int) -> None:
        if value < 0:
            raise CodecError(f"cannot write negative varint {value}")
        while value > 0x7F:
            self.out.append((value & 0x7F) | 0x80)
            value >>= 7
        self.out.append(value)

    def zigzag(self, value: int) -> None:
        # Zigzag maps n >= 0 to 2n and n < 0 to -2n - 1 whatever the width, so one formula serves
        # i16, i32 and i64; ranges are checked by the caller.
        self.varint(value << 1 if value >= 0 else (-value << 1) - 1)

    def value(self, ctype: CompactType, value: ThriftValue, in_container: bool) -> None:
        if ctype in _BOOL_TYPES:
            if in_container:
                self.out.append(CompactType.BOOLEAN_TRUE if value else CompactType.BOOLEAN_FALSE)
        elif ctype == CompactType.I8:
            self.out.append(_as_int(value, ctype) & 0xFF)
        elif ctype in _VARINT_TYPES:
            self.zigzag(_as_int(value, ctype))
        elif ctype == CompactType.DOUBLE:
            self.out += _DOUBLE.pack(_as_float(value))
        elif ctype == CompactType.BINARY:
            data = _as_bytes(value)
            self.varint(len(data))
            self.out += data
        elif ctype == CompactType.UUID:
            data = _as_bytes(value)
            if len(data) != _UUID_BYTES:
                raise CodecError(f"uuid must be {_UUID_BYTES} bytes, got {len(data)}")
            self.out += data
        elif ctype == CompactType.STRUCT and isinstance(value, ThriftStruct):
            self.struct(value)
        elif ctype in (CompactType.LIST, CompactType.SET) and isinstance(value, ThriftList):
            self.list(value)
        elif ctype == CompactType.MAP and isinstance(value, ThriftMap):
            self.map(value)
        else:
            raise CodecError(f"cannot write {type(value).__name__} as compact type {ctype.name}")

    def struct(self, value: ThriftStruct) -> None:
        last_id = 0
        for item in value.fields:
            ctype = item.ctype
            if ctype in _BOOL_TYPES:
                ctype = CompactType.BOOLEAN_TRUE if item.value else CompactType.BOOLEAN_FALSE
            delta = item.field_id - last_id
            if 0 < delta <= 15:
                self.out.append((delta << 4) | ctype)
            else:
                self.out.append(ctype)
                self.zigzag(item.field_id)
            self.value(ctype, item.value, False)
            last_id = item.field_id
        self.out.append(CompactType.STOP)

    def list(self, value: ThriftList) -> None:
        count = len(value.items)
        if count < 15:
            self.out.append((count << 4) | value.element_type)
        else:
            self.out.append(0xF0 | value.element_type)
            self.varint(count)
        for item in value.items:
            self.value(value.element_type, item, True)

    def map(self, value: ThriftMap) -> None:
        self.varint(len(value.items))
        if not value.items:
            return
        self.out.append((value.key_type << 4) | value.value_type)
        for key, item in value.items:
            self.value(value.key_type, key, True)
            self.value(value.value_type, item, True)


def _as_int(value: ThriftValue, ctype: CompactType) -> int:
    if not isinstance(value, int):
        raise CodecError(f"expected an int for {ctype.name}, got {type(value).__name__}")
    # Wrapping silently would write a different number than the caller meant.
    bits = _INT_BITS[ctype]
    if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise CodecError(f"{value} does not fit {ctype.name}")
    return value


def _as_float(value: ThriftValue) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    raise CodecError(f"expected a float, got {type(value).__name__}")


def _as_bytes(value: ThriftValue) -> bytes:
    if isinstance(value, bytes):
        return value
    raise CodecError(f"expected bytes, got {type(value).__name__}")


def encode_struct(value: ThriftStruct) -> bytes:
    """Encode a struct in the compact protocol, fields in the order they are listed.

    Example:
        >>> encode_struct(ThriftStruct([ThriftField(16, CompactType.STRUCT, ThriftStruct())])).hex()
        '0c200000'

    Raises:
        CodecError: when a field's value does not fit its compact type.
    """
    writer = _Writer()
    writer.struct(value)
    return bytes(writer.out)


@dataclass
class ParquetFooter:
    """The decoded `FileMetaData` of a file, and where its serialized bytes start and end."""

    metadata: ThriftStruct
    footer_offset: int
    footer_length: int


def read_footer(path: str | os.PathLike[str]) -> ParquetFooter:
    """Read and decode the footer of a Parquet file.

    Example:
        >>> import tempfile, pyarrow as pa, pyarrow.parquet as pq
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     pq.write_table(pa.table({"x": [1]}), folder + "/t.parquet")
        ...     footer = read_footer(folder + "/t.parquet")
        >>> footer.metadata.value(3)  # FileMetaData.num_rows
        1

    Args:
        path: a Parquet file on the local file system.

    Returns:
        The decoded `FileMetaData` with the offset and length of its bytes in the file.

    Raises:
        CodecError: for a file too small to be Parquet, a bad magic, an encrypted footer, a
            footer length that points before the start of the file, or a malformed footer.
    """
    name = os.fspath(path)
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size < MIN_FILE_BYTES:
            raise CodecError(f"not a Parquet file: {size} bytes is too small", file=name)
        handle.seek(0)
        _check_magic(handle.read(MAGIC_BYTES), name, 0)
        handle.seek(size - FOOTER_LENGTH_BYTES - MAGIC_BYTES)
        tail = handle.read(FOOTER_LENGTH_BYTES + MAGIC_BYTES)
        _check_magic(tail[FOOTER_LENGTH_BYTES:], name, size - MAGIC_BYTES)
        (length,) = _U32.unpack(tail[:FOOTER_LENGTH_BYTES])
        offset = size - FOOTER_LENGTH_BYTES - MAGIC_BYTES - length
        if offset < MAGIC_BYTES:
            raise CodecError(
                f"footer length {length} points before the start of the data ({size}-byte file)",
                file=name,
                offset=size - FOOTER_LENGTH_BYTES - MAGIC_BYTES,
            )
        handle.seek(offset)
        raw = handle.read(length)
    try:
        metadata, end = decode_struct(raw, file=name)
    except CodecError as err:
        if err.offset is not None:
            err.offset += offset  # from an offset in the footer to one in the file
        raise
    if metadata.get(FILE_METADATA_ENCRYPTION_ALGORITHM) is not None:
        # A plaintext footer of an encrypted file is signed; any edit would break the signature.
        raise CodecError("cannot edit the signed footer of an encrypted Parquet file", file=name)
    if end != length:
        raise CodecError(
            f"footer holds {length - end} bytes after FileMetaData", file=name, offset=offset + end
        )
    return ParquetFooter(metadata, offset, length)


def _check_magic(magic: bytes, name: str, offset: int) -> None:
    if magic == ENCRYPTED_FOOTER_MAGIC:
        raise CodecError("encrypted Parquet footers are not supported", file=name, offset=offset)
    if magic != PARQUET_MAGIC:
        raise CodecError(f"bad Parquet magic {magic!r}, expected {PARQUET_MAGIC!r}", file=name, offset=offset)


def encode_footer(metadata: ThriftStruct) -> bytes:
    """Serialize `FileMetaData` and frame it: metadata, u32 LE length, `PAR1`.

    Example:
        >>> encode_footer(ThriftStruct())
        b'\\x00\\x01\\x00\\x00\\x00PAR1'
    """
    body = encode_struct(metadata)
    return body + _U32.pack(len(body)) + PARQUET_MAGIC


def write_footer(handle: BinaryIO, footer: ParquetFooter, metadata: ThriftStruct) -> None:
    """Replace, in an open read-write file, the footer that `footer` was read from.

    The pages before `footer.footer_offset` stay byte for byte; the file is cut after the new
    footer. Only call this on a file nobody else can see yet (a temporary copy), since a crash in
    between leaves it without a footer.

    Example:
        >>> import tempfile, pyarrow as pa, pyarrow.parquet as pq
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     pq.write_table(pa.table({"x": [1]}), folder + "/t.parquet")
        ...     footer = read_footer(folder + "/t.parquet")
        ...     footer.metadata.set(6, CompactType.BINARY, b"vpush")  # FileMetaData.created_by
        ...     with open(folder + "/t.parquet", "r+b") as handle:
        ...         write_footer(handle, footer, footer.metadata)
        ...     pq.ParquetFile(folder + "/t.parquet").metadata.created_by
        'vpush'

    Args:
        handle: the file, opened `r+b`.
        footer: what `read_footer` returned for this file.
        metadata: the new `FileMetaData`, usually `footer.metadata` after editing.

    Raises:
        CodecError: when `metadata` cannot be encoded.
    """
    data = encode_footer(metadata)
    handle.seek(footer.footer_offset)
    handle.write(data)
    handle.truncate()
