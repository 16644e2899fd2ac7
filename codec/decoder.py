"""Checked little-endian reads: every byte the codec decodes goes through here.

No decoder indexes raw bytes itself, so a truncated or damaged buffer raises
:class:`MalformedVariantError` with the offset, never ``IndexError`` or ``struct.error``.
"""
from __future__ import annotations

import struct

from vpush.codec.errors import MalformedVariantError

_DOUBLE = struct.Struct("<d")
_FLOAT = struct.Struct("<f")


def check(buf: bytes, offset: int, size: int, what: str) -> None:
    """Raise unless ``size`` bytes starting at ``offset`` lie inside ``buf``.

    Example:
        >>> check(b"abc", 1, 2, "x")
        >>> check(b"abc", 2, 2, "string")
        Traceback (most recent call last):
        ...
        vpush.codec.errors.MalformedVariantError: truncated string: needs 2 bytes, 1 available (byte offset 2)
    """
    if offset < 0 or size < 0 or offset + size > len(buf):
        available = max(0, len(buf) - offset)
        raise MalformedVariantError(
            f"truncated {what}: needs {size} bytes, {available} available",
            offset=offset,
            needed=size,
            available=available,
        )


def read_uint(buf: bytes, offset: int, size: int, what: str) -> int:
    """Read an unsigned little-endian integer of ``size`` bytes (1 to 8).

    Example:
        >>> read_uint(b"\\x01\\x02\\x03", 0, 3, "offset")
        197121
    """
    check(buf, offset, size, what)
    return int.from_bytes(buf[offset : offset + size], "little")


def read_int(buf: bytes, offset: int, size: int, what: str) -> int:
    """Read a signed (two's complement) little-endian integer of ``size`` bytes.

    Example:
        >>> read_int(b"\\xff\\xff", 0, 2, "int16")
        -1
    """
    check(buf, offset, size, what)
    return int.from_bytes(buf[offset : offset + size], "little", signed=True)


def read_double(buf: bytes, offset: int) -> float:
    """Read an IEEE 754 little-endian double."""
    check(buf, offset, 8, "double")
    return float(_DOUBLE.unpack_from(buf, offset)[0])


def read_float(buf: bytes, offset: int) -> float:
    """Read an IEEE 754 little-endian float."""
    check(buf, offset, 4, "float")
    return float(_FLOAT.unpack_from(buf, offset)[0])


def read_bytes(buf: bytes, offset: int, size: int, what: str) -> bytes:
    """Read ``size`` raw bytes."""
    check(buf, offset, size, what)
    return bytes(buf[offset : offset + size])


def read_utf8(buf: bytes, offset: int, size: int, what: str) -> str:
    """Read ``size`` bytes of UTF-8 text; invalid UTF-8 is malformed, as the spec requires UTF-8."""
    raw = read_bytes(buf, offset, size, what)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedVariantError(
            f"{what} is not valid UTF-8", offset=offset + exc.start
        ) from None
