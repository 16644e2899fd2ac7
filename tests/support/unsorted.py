"""Objects stored with their fields in a given order, as DuckDB 2.0.0 wrote them (against the
spec, which wants them sorted by name; DuckDB 2.0.1 sorts them). Readers meet such files in the
wild, and the builder always sorts, so tests build them here byte by byte."""

from __future__ import annotations

from vpush.codec.builder import encode
from vpush.codec.header import int_size, object_header
from vpush.codec.metadata import build_metadata


def stored_object(fields: list[tuple[int, bytes]]) -> bytes:
    """An object value whose (field_id, value bytes) fields are stored in the order given."""
    n = len(fields)
    total = sum(len(v) for _, v in fields)
    is_large = n > 255
    id_size = int_size(max((fid for fid, _ in fields), default=0))
    offset_size = int_size(total)
    out = bytearray([object_header(is_large, id_size, offset_size)])
    out += n.to_bytes(4 if is_large else 1, "little")
    for fid, _ in fields:
        out += fid.to_bytes(id_size, "little")
    pos = 0
    for _, v in fields:
        out += pos.to_bytes(offset_size, "little")
        pos += len(v)
    out += pos.to_bytes(offset_size, "little")
    for _, v in fields:
        out += v
    return bytes(out)


def unsorted_variant(fields: list[tuple[str, object]], dictionary: list[str] | None = None) -> tuple[bytes, bytes]:
    """(metadata, value) of an object with ``fields`` stored in the order given, each a scalar or
    a list of scalars (or an already built value, as bytes), with an unsorted dictionary: the
    names in the order given unless ``dictionary`` says otherwise."""
    names = dictionary if dictionary is not None else [name for name, _ in fields]
    values = [v if isinstance(v, bytes) else encode(v)[1] for _, v in fields]
    ids = [names.index(name) for name, _ in fields]
    return build_metadata(names, sort=False), stored_object(list(zip(ids, values)))
