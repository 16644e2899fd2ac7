"""The Variant metadata: a header byte and a dictionary of field names.

```
header:  offset_size_minus_one << 6 | sorted_strings << 4 | version
then:    dictionary_size, dictionary_size + 1 offsets (offset_size bytes each), UTF-8 bytes
```
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from vpush.codec.decoder import check, read_uint, read_utf8
from vpush.codec.errors import MalformedVariantError
from vpush.codec.header import SORTED_STRINGS_MASK, VERSION, VERSION_MASK, int_size


class VariantMetadata:
    """A read-only view of Variant metadata bytes.

    Building the view checks the header and that the offsets and strings fit in the buffer; it
    decodes no string. :meth:`validate` checks the rest.

    Example:
        >>> m = VariantMetadata(b"\\x11\\x02\\x00\\x01\\x02ab")
        >>> m.dictionary_size, m.sorted_strings, m.key(1), m.find("a"), m.find("z")
        (2, True, 'b', 0, None)
    """

    __slots__ = (
        "data",
        "offset_size",
        "sorted_strings",
        "dictionary_size",
        "size",
        "_bytes_start",
        "_keys",
        "_index",
    )

    def __init__(self, data: bytes, *, exact: bool = True) -> None:
        """Parse the header of ``data``.

        Args:
            data: the metadata bytes, or a buffer that starts with them.
            exact: when true, ``data`` must end where the metadata ends; when false, trailing
                bytes are allowed (a value may follow, as in ``.variant.bin`` files or the draft
                layout's ``untyped_value``) and :attr:`size` says where the metadata ends.

        Raises:
            MalformedVariantError: a bad version, or offsets or strings past the end.
        """
        self.data = bytes(data)
        check(self.data, 0, 1, "metadata header")
        header = self.data[0]
        if header & VERSION_MASK != VERSION:
            raise MalformedVariantError(
                f"unsupported metadata version {header & VERSION_MASK} (expected {VERSION})", offset=0
            )
        if header & 0x20:
            raise MalformedVariantError("metadata header bit 5 is reserved and must be 0", offset=0)
        self.sorted_strings = bool(header & SORTED_STRINGS_MASK)
        self.offset_size = (header >> 6) + 1
        self.dictionary_size = read_uint(self.data, 1, self.offset_size, "metadata dictionary_size")
        offsets_start = 1 + self.offset_size
        # Check the offset table fits before touching it, so a huge dictionary_size in a short
        # buffer fails at once instead of allocating.
        check(self.data, offsets_start, (self.dictionary_size + 1) * self.offset_size, "metadata offsets")
        self._bytes_start = offsets_start + (self.dictionary_size + 1) * self.offset_size
        last = self._offset(self.dictionary_size)
        self.size = self._bytes_start + last
        check(self.data, self._bytes_start, last, "metadata strings")
        if exact and self.size != len(self.data):
            raise MalformedVariantError(
                f"metadata is {self.size} bytes but the buffer holds {len(self.data)}", offset=self.size
            )
        self._keys: tuple[str, ...] | None = None
        self._index: dict[str, int] | None = None

    def _offset(self, i: int) -> int:
        return read_uint(self.data, 1 + self.offset_size * (i + 1), self.offset_size, "metadata offset")

    @property
    def keys(self) -> tuple[str, ...]:
        """All dictionary strings, in dictionary order (decoded once)."""
        if self._keys is None:
            keys = []
            start = self._offset(0)
            for i in range(self.dictionary_size):
                end = self._offset(i + 1)
                if end < start:
                    raise MalformedVariantError(
                        f"metadata offset {i + 1} ({end}) is before offset {i} ({start})",
                        offset=1 + self.offset_size * (i + 2),
                    )
                keys.append(read_utf8(self.data, self._bytes_start + start, end - start, "metadata string"))
                start = end
            self._keys = tuple(keys)
        return self._keys

    def key(self, field_id: int) -> str:
        """The string with id ``field_id``.

        Raises:
            MalformedVariantError: ``field_id`` is not in the dictionary.
        """
        if not 0 <= field_id < self.dictionary_size:
            raise MalformedVariantError(
                f"field id {field_id} is outside the metadata dictionary of {self.dictionary_size} strings"
            )
        return self.keys[field_id]

    def find(self, name: str) -> int | None:
        """The id of ``name`` in the dictionary (the first one, if it repeats), or None."""
        if self._index is None:
            index: dict[str, int] = {}
            for i, key in enumerate(self.keys):
                index.setdefault(key, i)
            self._index = index
        return self._index.get(name)

    def validate(self) -> None:
        """Check everything the view did not: the first offset is 0, offsets never decrease,
        every string is UTF-8, and when ``sorted_strings`` is set, strings are unique and in
        ascending order of their UTF-8 bytes.

        Raises:
            MalformedVariantError: naming the first offending offset.
        """
        if self._offset(0) != 0:
            raise MalformedVariantError("the first metadata offset must be 0", offset=1 + self.offset_size)
        keys = self.keys
        if self.sorted_strings:
            for i in range(1, len(keys)):
                if keys[i - 1].encode() >= keys[i].encode():
                    raise MalformedVariantError(
                        f"metadata is marked sorted but {keys[i - 1]!r} is not before {keys[i]!r}",
                        offset=self._bytes_start + self._offset(i),
                    )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VariantMetadata) and other.data[: other.size] == self.data[: self.size]

    def __hash__(self) -> int:
        return hash(self.data[: self.size])

    def __repr__(self) -> str:
        return f"VariantMetadata(keys={list(self.keys)!r}, sorted={self.sorted_strings})"


EMPTY_METADATA_BYTES = b"\x01\x00\x00"
"""Metadata with an empty dictionary (header, size 0, one offset 0)."""


def build_metadata(keys: Sequence[str], *, sort: bool = True) -> bytes:
    """Encode a metadata dictionary with the smallest offset width.

    Args:
        keys: the field names. With ``sort`` they are deduplicated and sorted by UTF-8 bytes and
            the ``sorted_strings`` bit is set; without it they are kept as given.

    Example:
        >>> build_metadata(["b", "a", "b"])
        b'\\x11\\x02\\x00\\x01\\x02ab'
        >>> build_metadata([], sort=False) == EMPTY_METADATA_BYTES
        True
    """
    encoded = [k.encode("utf-8") for k in keys]
    if sort:
        encoded = sorted(set(encoded))
    total = sum(len(e) for e in encoded)
    size = int_size(max(total, len(encoded)))
    header = VERSION | (SORTED_STRINGS_MASK if sort else 0) | ((size - 1) << 6)
    out = bytearray([header])
    out += len(encoded).to_bytes(size, "little")
    pos = 0
    out += pos.to_bytes(size, "little")
    for e in encoded:
        pos += len(e)
        out += pos.to_bytes(size, "little")
    for e in encoded:
        out += e
    return bytes(out)


def sorted_keys(keys: Iterable[str]) -> list[str]:
    """Unique keys in the spec's order: ascending unsigned UTF-8 bytes.

    Example:
        >>> sorted_keys(["é", "z", "a", "z"])
        ['a', 'z', 'é']
    """
    return sorted(set(keys), key=lambda k: k.encode("utf-8"))
