"""Z85, the base-85 text encoding of ZeroMQ's RFC 32, as Delta writes binary statistics with it.

Every 4 bytes (a big-endian 32-bit number) become 5 characters of the alphabet below, most
significant digit first. Delta Spark (``Codec.Base85Codec``) pads its input with zero bytes to a
multiple of 4 before encoding and does not record the padding: a reader recovers the true length
from the content (for a Variant, from its metadata and value headers).
"""
from __future__ import annotations

from vpush.codec.errors import MalformedVariantError

__all__ = ["Z85_ALPHABET", "decode_z85", "encode_z85"]

Z85_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
"""The 85 characters, digit 0 first."""
_DIGITS = {c: i for i, c in enumerate(Z85_ALPHABET)}
BYTES_PER_BLOCK = 4
CHARS_PER_BLOCK = 5
_MAX_BLOCK = 2**32 - 1


def encode_z85(data: bytes) -> str:
    """Encode ``data``, zero-padded to a multiple of 4 bytes, as Z85 text.

    Example:
        >>> encode_z85(bytes([0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B]))
        'HelloWorld'
        >>> encode_z85(b"\\x01")
        '0rr91'
    """
    padded = bytes(data) + b"\x00" * (-len(data) % BYTES_PER_BLOCK)
    out: list[str] = []
    for start in range(0, len(padded), BYTES_PER_BLOCK):
        number = int.from_bytes(padded[start : start + BYTES_PER_BLOCK], "big")
        block = []
        for _ in range(CHARS_PER_BLOCK):
            number, digit = divmod(number, 85)
            block.append(Z85_ALPHABET[digit])
        out.append("".join(reversed(block)))
    return "".join(out)


def decode_z85(text: str) -> bytes:
    """Decode Z85 text into bytes (a multiple of 4, padding included).

    Example:
        >>> decode_z85("HelloWorld").hex()
        '864fd26fb559f75b'
        >>> decode_z85("Hell")
        Traceback (most recent call last):
        ...
        vpush.codec.errors.MalformedVariantError: Z85 text of 4 characters is not a multiple of 5 (byte offset 0)

    Raises:
        MalformedVariantError: a length that is not a multiple of 5, a character outside the
            alphabet, or a block over 2^32 - 1 (the offset is the character's position).
    """
    if len(text) % CHARS_PER_BLOCK:
        raise MalformedVariantError(f"Z85 text of {len(text)} characters is not a multiple of 5", offset=0)
    out = bytearray()
    for start in range(0, len(text), CHARS_PER_BLOCK):
        number = 0
        for i in range(start, start + CHARS_PER_BLOCK):
            digit = _DIGITS.get(text[i])
            if digit is None:
                raise MalformedVariantError(f"{text[i]!r} is not a Z85 character", offset=i)
            number = number * 85 + digit
        if number > _MAX_BLOCK:
            raise MalformedVariantError("a Z85 block exceeds 32 bits", offset=start)
        out += number.to_bytes(BYTES_PER_BLOCK, "big")
    return bytes(out)
