"""Variant paths: Spark's ``variant_get`` path grammar, and extraction along a path.

Spark 4.3's ``VariantPathParser`` accepts exactly this, with no white space skipped anywhere:

```
path    := '$' segment*
segment := '.' [^.[]+              a key: one or more of anything but '.' and '['
         | "['" [^']* "']"         a key, possibly empty; no escapes, so no "'" inside
         | '["' [^"]* '"]'         a key, possibly empty; no escapes, so no '"' inside
         | '[' [0-9]+ ']'          an array index, at most 2147483647 (leading zeros allowed)
```

Anything else is ``INVALID_VARIANT_GET_PATH``. Extraction returns SQL NULL (None here) for a
missing key, an index past the end, a key on a non-object or an index on a non-array.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, TypeAlias

from vpush.codec.errors import MalformedVariantError, VariantPathError
from vpush.codec.header import BasicType, PrimitiveType
from vpush.codec.metadata import VariantMetadata
from vpush.codec.value import Variant

if TYPE_CHECKING:
    import pyarrow as pa

INVALID_VARIANT_GET_PATH = "INVALID_VARIANT_GET_PATH"
"""Spark's error class for a path its grammar rejects."""
MAX_ARRAY_INDEX = 2**31 - 1
"""Spark parses an index into a Java int; a larger one makes the path invalid."""
SPARK_LINEAR_SEARCH_FIELDS = 32
"""Spark's ``Variant.getFieldByKey`` scans objects with fewer fields than this one by one, and
binary-searches larger ones in Java's String order."""

Segment: TypeAlias = str | int
"""A key (str) or an array index (int) of a path."""

_DOT_KEY = re.compile(r"\.([^.\[]+)")
_SINGLE_QUOTED_KEY = re.compile(r"\['([^']*)'\]")
_DOUBLE_QUOTED_KEY = re.compile(r'\["([^"]*)"\]')
_INDEX = re.compile(r"\[([0-9]+)\]")
# Keys where UTF-8 order (the spec's, used by Variant.get) and UTF-16 order (Spark's) can differ.
_ORDER_SENSITIVE = re.compile("[\ue000-\U0010ffff]")
_PRIMITIVE_IDS = frozenset(int(t) for t in PrimitiveType)


@dataclasses.dataclass(frozen=True)
class VariantPath:
    """A parsed variant path: a tuple of keys (str) and array indexes (int).

    Example:
        >>> p = VariantPath.parse("$.a['b.c'][0]")
        >>> p.segments
        ('a', 'b.c', 0)
        >>> p.to_spark(), p.to_normalized()
        ("$.a['b.c'][0]", "$['a']['b.c'][0]")
        >>> VariantPath(()).to_spark()
        '$'
    """

    segments: tuple[Segment, ...]

    def __post_init__(self) -> None:
        for seg in self.segments:
            if isinstance(seg, bool) or not isinstance(seg, (str, int)):
                raise VariantPathError(f"a path segment is a str key or an int index, not {seg!r}")
            if isinstance(seg, int) and not 0 <= seg <= MAX_ARRAY_INDEX:
                raise VariantPathError(
                    f"array index {seg} is outside 0..{MAX_ARRAY_INDEX}", error_class=INVALID_VARIANT_GET_PATH
                )

    @classmethod
    def parse(cls, text: str) -> VariantPath:
        """Parse ``text`` with Spark 4.3's grammar.

        Raises:
            VariantPathError: with error class ``INVALID_VARIANT_GET_PATH``, naming the
                offending character offset.

        Example:
            >>> VariantPath.parse('$.a b["x y"][007]').segments
            ('a b', 'x y', 7)
            >>> VariantPath.parse("$[-1]")
            Traceback (most recent call last):
            ...
            vpush.codec.errors.VariantPathError: [INVALID_VARIANT_GET_PATH] invalid variant path '$[-1]' ...
        """
        if not text.startswith("$"):
            raise _invalid(text, 0)
        segments: list[Segment] = []
        pos = 1
        while pos < len(text):
            match = (
                _DOT_KEY.match(text, pos)
                or _SINGLE_QUOTED_KEY.match(text, pos)
                or _DOUBLE_QUOTED_KEY.match(text, pos)
            )
            if match is not None:
                segments.append(match.group(1))
            else:
                match = _INDEX.match(text, pos)
                if match is None or int(match.group(1)) > MAX_ARRAY_INDEX:
                    raise _invalid(text, pos)
                segments.append(int(match.group(1)))
            pos = match.end()
        return cls(tuple(segments))

    def to_spark(self) -> str:
        """A path text Spark parses back to these segments: ``.key`` where the grammar allows
        it, else ``['key']`` or ``["key"]``.

        Raises:
            VariantPathError: a key that Spark's grammar cannot express (empty or holding '.'
                or '[', and holding both quote characters).

        Example:
            >>> print(VariantPath(("a", "", "x.y", "it's", "it's.x", 3)).to_spark())
            $.a['']['x.y'].it's["it's.x"][3]
        """
        parts = ["$"]
        for seg in self.segments:
            if isinstance(seg, int):
                parts.append(f"[{seg}]")
            elif seg and "." not in seg and "[" not in seg:
                parts.append(f".{seg}")
            elif "'" not in seg:
                parts.append(f"['{seg}']")
            elif '"' not in seg:
                parts.append(f'["{seg}"]')
            else:
                raise VariantPathError(
                    f"key {seg!r} cannot be written in Spark's path syntax", json_path=self.to_normalized()
                )
        return "".join(parts)

    def to_normalized(self) -> str:
        """The normalized form ``$['a']['b'][0]``: every key bracketed in single quotes, with
        ``\\`` and ``'`` escaped by a backslash, so that equal paths have equal text.

        Example:
            >>> VariantPath.parse('$.a["it\\'s"][2]').to_normalized()
            "$['a']['it\\\\'s'][2]"
        """
        parts = ["$"]
        for seg in self.segments:
            if isinstance(seg, int):
                parts.append(f"[{seg}]")
            else:
                escaped = seg.replace("\\", "\\\\").replace("'", "\\'")
                parts.append(f"['{escaped}']")
        return "".join(parts)

    def __str__(self) -> str:
        return self.to_normalized()


def _invalid(text: str, pos: int) -> VariantPathError:
    return VariantPathError(
        f"invalid variant path {text!r} at character {pos}",
        error_class=INVALID_VARIANT_GET_PATH,
        json_path=text,
    )


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def get_field(obj: Variant, key: str) -> Variant | None:
    """Field ``key`` of an object, found as Spark's ``Variant.getFieldByKey`` finds it.

    Spark scans an object of fewer than :data:`SPARK_LINEAR_SEARCH_FIELDS` fields one by one,
    which finds a field even where a writer left the fields unsorted (DuckDB 2.0 does, against the
    spec), and binary-searches larger ones in UTF-16 order. For keys without characters from
    U+E000 up, UTF-8 and UTF-16 order agree, so ``Variant.get``'s search finds what Spark finds.
    """
    if len(obj) < SPARK_LINEAR_SEARCH_FIELDS:
        return next((child for name, child in obj.items() if name == key), None)
    if _ORDER_SENSITIVE.search(key) is None:
        return obj.get(key)
    fields = list(obj.items())
    target = _utf16(key)
    low, high = 0, len(fields) - 1
    while low <= high:
        mid = (low + high) // 2
        name = _utf16(fields[mid][0])
        if name == target:
            return fields[mid][1]
        if name < target:
            low = mid + 1
        else:
            high = mid - 1
    return None


def extract(metadata: VariantMetadata | bytes, value: bytes, path: VariantPath) -> Variant | None:
    """The value at ``path``, as a view over the same buffer (valid with the same metadata), or
    None where Spark's ``variant_get`` returns NULL.

    Only the objects and arrays on the path are read: a field by binary search over the
    object's sorted field ids, an element by its offset.

    Raises:
        MalformedVariantError: damaged bytes on the path; a primitive type id the spec does not
            define where a step reads the type, with Spark's class for it
            (``UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT``: its ``variant_get`` asks each step's type).

    Example:
        >>> from vpush.codec.json import parse_json
        >>> meta, value = parse_json('{"a": {"b": [10, 20, {"c": null}]}}')
        >>> extract(meta, value, VariantPath.parse("$.a.b[1]")).to_python()
        20
        >>> extract(meta, value, VariantPath.parse("$.a.b[2].c")).is_null()
        True
        >>> [extract(meta, value, VariantPath.parse(p)) for p in ("$.x", "$.a.b[3]", "$.a[0]", "$.a.b.c")]
        [None, None, None, None]
    """
    node = Variant(metadata, value)
    for seg in path.segments:
        basic = node.basic_type
        if basic == BasicType.PRIMITIVE and node.buf[node.pos] >> 2 not in _PRIMITIVE_IDS:
            raise MalformedVariantError(
                f"Unknown primitive type with id {node.buf[node.pos] >> 2} was found in a variant value",
                error_class="UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT",
                offset=node.pos,
            )
        if isinstance(seg, str):
            child = get_field(node, seg) if basic == BasicType.OBJECT else None
        else:
            child = node[seg] if basic == BasicType.ARRAY and seg < len(node) else None
        if child is None:
            return None
        node = child
    return node


def extract_column(
    metadata: pa.Array | pa.ChunkedArray, value: pa.Array | pa.ChunkedArray, path: VariantPath | str
) -> pa.StructArray:
    """:func:`extract` for every row: ``struct<metadata: binary, value: binary>``, where each
    row keeps its own metadata and holds the extracted value's bytes, or is null where the
    input row is null or :func:`extract` finds nothing.

    The compiled kernel (:func:`vpush.codec.native.extract_native`) does the work when it is
    built and reads the input; otherwise, or for input it leaves to Python, a loop over rows.
    Both return the same rows and raise on the same bytes.

    Raises:
        MalformedVariantError: damaged bytes on the path of some row.
        VariantPathError: ``path`` is a text that is not a valid path.

    Example:
        >>> import pyarrow as pa
        >>> from vpush.codec.json import parse_json
        >>> rows = [parse_json('{"a": [1, 2]}'), parse_json('{"a": 3}'), None]
        >>> meta = pa.array([r[0] if r else None for r in rows], pa.binary())
        >>> value = pa.array([r[1] if r else None for r in rows], pa.binary())
        >>> out = extract_column(meta, value, "$.a[1]")
        >>> out.type, out.null_count, out.field("value")[0].as_py()
        (StructType(struct<metadata: binary, value: binary>), 2, b'\\x0c\\x02')
    """
    import pyarrow as pa
    from vpush.codec.native import NATIVE_AVAILABLE, NativeUnsupportedError, extract_native

    if isinstance(path, str):
        path = VariantPath.parse(path)
    if NATIVE_AVAILABLE:
        try:
            return extract_native(metadata, value, path.segments)
        except NativeUnsupportedError:
            pass
    metas = metadata.to_pylist()
    values = value.to_pylist()
    if len(metas) != len(values):
        raise ValueError(f"metadata has {len(metas)} rows but value has {len(values)}")
    views: dict[bytes, VariantMetadata] = {}
    out_meta: list[bytes] = []
    out_value: list[bytes] = []
    missing: list[bool] = []
    for meta_bytes, value_bytes in zip(metas, values):
        found = None
        if meta_bytes is not None and value_bytes is not None:
            view = views.get(meta_bytes)
            if view is None:
                view = views[meta_bytes] = VariantMetadata(meta_bytes)
            found = extract(view, value_bytes, path)
        if found is None:
            out_meta.append(b"")
            out_value.append(b"")
            missing.append(True)
        else:
            out_meta.append(meta_bytes)
            out_value.append(found.value_bytes())
            missing.append(False)
    return pa.StructArray.from_arrays(
        [pa.array(out_meta, pa.binary()), pa.array(out_value, pa.binary())],
        names=["metadata", "value"],
        mask=pa.array(missing, pa.bool_()),
    )
