"""The compiled kernels: :func:`unshred_native` rebuilds a shredded Variant column in one pass of
C code (``vpush.codec._native``), with no Python loop per row, and :func:`extract_native` takes
the value at a path out of every row of an unshredded one.

It reads the final layout only, and writes the same bytes as :func:`vpush.codec.unshred.unshred`
(the reference): the kernel walks the column's Arrow arrays through the Arrow C Data Interface,
follows the spec's (value, typed_value) table for every row and appends each rebuilt value to
one binary array; the ``metadata`` column is reused unchanged. Anything else (the draft layout,
Arrow encodings the kernel does not read, a big-endian host) raises
:class:`NativeUnsupportedError`, so that a caller can fall back to the reference::

    try:
        column = unshred_native(array, layout=layout, file=path)
    except NativeUnsupportedError:
        column = unshred(layout, array, file=path)

:func:`extract_native` does what :func:`vpush.codec.path.extract_column` does, with the same
fallback.
"""

from __future__ import annotations

import bisect
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from vpush.codec.errors import CodecError, InvalidShreddingError, MalformedVariantError
from vpush.codec.header import PRIMITIVE_TO_VARIANT_TYPE, PrimitiveType, VariantType
from vpush.codec.java_decimal_format import DecimalPattern
from vpush.codec.java_format import (
    _SECONDS_PER_400_YEARS,
    _ZONEINFO_MAX_SECONDS,
    _ZONEINFO_MIN_SECONDS,
    resolve_time_zone,
    zone_offset,
)
from vpush.codec.errors import VariantTooLargeError
from vpush.codec.unshred import MAX_BINARY_ARRAY_BYTES, UNSHREDDED_TYPE, plain_binary

if TYPE_CHECKING:
    from vpush.codec.datetime_pattern import ParsingPattern
    from vpush.codec.layout import ValueLayout, VariantLayout


def _load_kernel() -> ModuleType | None:
    try:
        import vpush.codec._native as kernel
    except ImportError:  # a source tree that was never built: callers use the pure-Python unshred
        return None
    return kernel


_native = _load_kernel()

NATIVE_AVAILABLE: bool = _native is not None
"""True when the compiled kernel was built and imports."""

# Kernel error codes (codec/_native.c).
_ERR_UNSUPPORTED = 1
_ERR_SCHEMA = 2
_ERR_SHREDDING = 3
_ERR_MALFORMED = 4
_ERR_TOO_LARGE = 5
_ERR_UNKNOWN_TYPE = 8
_ERR_DUPLICATE_KEY = 9
_ERR_PATH_MISMATCH = 10
_ERR_UNKNOWN_ID = 11
VARIANT_PATH_TYPE_MISMATCH = "VARIANT_PATH_TYPE_MISMATCH"
VARIANT_DUPLICATE_KEY = "VARIANT_DUPLICATE_KEY"
UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT = "UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT"
# The primitive type id the kernel is told for each Variant type a layout names (true for booleans).
_PRIMITIVE_IDS: dict[VariantType, int] = {
    vt: int(ptype) for ptype, vt in PRIMITIVE_TO_VARIANT_TYPE.items() if ptype != PrimitiveType.FALSE
}


class NativeUnsupportedError(CodecError, NotImplementedError):
    """The kernel does not read this input (the draft layout, an unusual Arrow encoding, a
    big-endian host, or no compiled kernel at all); the pure-Python ``unshred`` does."""

    def __init__(self, message: str, **context: Any) -> None:
        CodecError.__init__(self, message, **context)


def unshred_native(
    array: pa.StructArray | pa.ChunkedArray,
    *,
    layout: VariantLayout | None = None,
    file: str | None = None,
    use_threads: bool = True,
) -> pa.StructArray:
    """Rebuild ``struct<metadata: binary, value: binary>`` from a shredded Variant column, in C.

    Example:
        >>> from vpush.codec.value import Variant
        >>> shredded = pa.StructArray.from_arrays(
        ...     [pa.array([b"\\x01\\x00\\x00"] * 3), pa.array([None, b"\\x0d\\x6e\\x2f\\x61", None]),
        ...      pa.array([34, None, None])], ["metadata", "value", "typed_value"])
        >>> [Variant(r["metadata"], r["value"]).to_python() for r in unshred_native(shredded).to_pylist()]
        [34, 'n/a', None]

    Args:
        array: the column as pyarrow reads it (every leaf of the Variant group), sliced or not;
            a chunked column is rebuilt chunk by chunk and returned as one array.
        layout: the column's layout, from :func:`~vpush.codec.layout.find_variant_columns`.
            Optional: it names each ``typed_value``'s Variant type, which the kernel writes as
            the reference does (a Parquet INT64 decimal is a decimal8 whatever its precision;
            without the layout the type follows the Arrow type), and the column, which error
            paths then start with. An Arrow type that would need converting to the layout's
            type (an int32 column under an INT8 layout) raises NativeUnsupportedError.
        file: the file the column came from, named in errors.
        use_threads: rebuild the chunks of a chunked column in parallel, on up to
            ``pyarrow.cpu_count()`` threads (the kernel runs without the GIL).

    Returns:
        One row per input row: null where the Variant group is null, else the row's metadata
        (the input column, not copied) and its rebuilt value; a missing top-level value is a
        Variant null.

    The result is one ``binary`` array, so its values must total under 2 GiB: callers pass
    batches (the scan reads row groups in batches of at most 65,536 rows), never a whole file.

    Raises:
        NativeUnsupportedError: input the kernel does not read; call ``unshred`` instead.
        InvalidShreddingError: a schema the spec does not allow, or data that breaks the
            shredding spec (conflicting value and typed_value, a non-object value beside
            shredded fields, a shredded field repeated in value, a shredded name missing from
            the metadata), naming the column path and the row.
        MalformedVariantError: damaged metadata or value bytes, or Arrow buffers whose offsets
            point outside their data.
        VariantTooLargeError: the rebuilt values pass 2 GiB; pass smaller batches.
    """
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built", file=file)
    column = layout.path if layout is not None else None
    if layout is not None and layout.draft:
        raise NativeUnsupportedError(
            "the draft layout is rebuilt by vpush.codec.unshred", file=file, column_path=column
        )
    primitive_types = _primitive_types(layout) if layout is not None else None
    if layout is not None:
        _check_columns(layout, array.type, file)
    if _has_nul_name(array.type):
        # The Arrow C Data Interface passes names as NUL-terminated strings: "a\0b" would read "a".
        raise NativeUnsupportedError(
            "a field name holds a NUL character, which the Arrow C Data Interface cannot pass",
            file=file,
            column_path=column,
        )
    if isinstance(array, pa.ChunkedArray):
        chunks = [c for c in array.chunks if len(c)]
        if not chunks:
            return pa.array([], UNSHREDDED_TYPE)
        first_rows = [0]
        for chunk in chunks[:-1]:
            first_rows.append(first_rows[-1] + len(chunk))

        def rebuild(k: int) -> pa.StructArray:
            return _unshred_array(chunks[k], primitive_types, column, file, first_rows[k])

        if use_threads and len(chunks) > 1 and pa.cpu_count() > 1:
            # map() yields in order, so the error raised is the earliest chunk's.
            results = list(_executor().map(rebuild, range(len(chunks))))
        else:
            results = [rebuild(k) for k in range(len(chunks))]
        if len(results) == 1:
            return results[0]
        total = sum(r.field("value").buffers()[2].size for r in results)
        if total > MAX_BINARY_ARRAY_BYTES:
            # concat_arrays would fail on the offsets; say what to do instead.
            raise VariantTooLargeError(
                f"{total} bytes of Variant values do not fit one Arrow binary array; "
                "rebuild smaller batches",
                file=file,
                column_path=column,
            )
        return pa.concat_arrays(results)
    return _unshred_array(array, primitive_types, column, file, 0)


_EXECUTOR: list[ThreadPoolExecutor] = []
_EXECUTOR_LOCK = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    """One pool for the process, created on first use."""
    with _EXECUTOR_LOCK:
        if not _EXECUTOR:
            _EXECUTOR.append(
                ThreadPoolExecutor(max_workers=pa.cpu_count(), thread_name_prefix="vpush-unshred")
            )
        return _EXECUTOR[0]


def _primitive_types(layout: VariantLayout) -> dict[tuple[str | None, ...], int]:
    """{level key: Variant primitive type id} for every primitive ``typed_value`` of the layout.

    A level's key is the tuple of steps from the top, as the kernel builds it: a field's name,
    or None for a list element. Unlike a dotted path, it cannot collide (a field named ``a.b``).
    """
    from vpush.codec.layout import ArrayLayout, ObjectLayout, PrimitiveLayout

    found: dict[tuple[str | None, ...], int] = {}
    todo: list[tuple[tuple[str | None, ...], ValueLayout]] = [((), layout)]
    while todo:
        key, level = todo.pop()
        typed = level.typed_value
        if isinstance(typed, PrimitiveLayout):
            found[key] = _PRIMITIVE_IDS[typed.variant_type]
        elif isinstance(typed, ObjectLayout):
            todo.extend(((*key, f.name), f) for f in typed.fields)
        elif isinstance(typed, ArrayLayout):
            todo.append(((*key, None), typed.element))
    return found


def _has_nul_name(arrow_type: pa.DataType) -> bool:
    """Whether a field name anywhere in ``arrow_type`` holds a NUL character."""
    todo = [arrow_type]
    while todo:
        t = todo.pop()
        if isinstance(t, pa.BaseExtensionType):
            t = t.storage_type
        if pa.types.is_struct(t):
            for i in range(t.num_fields):
                if "\0" in t.field(i).name:
                    return True
                todo.append(t.field(i).type)
        elif pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t):
            if "\0" in t.value_field.name:
                return True
            todo.append(t.value_type)
    return False


def _check_columns(layout: VariantLayout, arrow_type: pa.DataType, file: str | None) -> None:
    """Raise unless the Arrow column holds every column the layout names: the kernel reads what
    it is given, so a partial read would silently lose values."""
    from vpush.codec.layout import ArrayLayout, ObjectLayout

    def missing(name: str, path: str) -> InvalidShreddingError:
        return InvalidShreddingError(
            f"the data read has no {name} field: read every column of the Variant",
            file=file,
            column_path=path,
        )

    todo: list[tuple[ValueLayout, pa.DataType]] = [(layout, arrow_type)]
    while todo:
        level, group = todo.pop()
        if isinstance(group, pa.BaseExtensionType):
            group = group.storage_type
        if not pa.types.is_struct(group):
            raise InvalidShreddingError(
                f"a Variant level must be a struct, not {group}", file=file, column_path=level.path
            )
        if level.value is not None and group.get_field_index("value") < 0:
            raise missing("value", level.value)
        typed = level.typed_value
        if typed is None:
            continue
        index = group.get_field_index("typed_value")
        if index < 0:
            raise missing("typed_value", typed.path)
        typed_type = group.field(index).type
        if isinstance(typed, ObjectLayout):
            if not pa.types.is_struct(typed_type):
                raise InvalidShreddingError(
                    f"typed_value is {typed_type}, not the struct of a shredded object",
                    file=file,
                    column_path=typed.path,
                )
            for field in typed.fields:
                child = typed_type.get_field_index(field.name)
                if child < 0:
                    raise missing(field.name, field.path)
                todo.append((field, typed_type.field(child).type))
        elif isinstance(typed, ArrayLayout):
            if not (pa.types.is_list(typed_type) or pa.types.is_large_list(typed_type)):
                raise NativeUnsupportedError(
                    f"typed_value is {typed_type}; the kernel reads list and large_list arrays",
                    file=file,
                    column_path=typed.path,
                )
            todo.append((typed.element, typed_type.value_type))
        elif pa.types.is_nested(typed_type):
            # The kernel would rebuild an object or array the layout does not have.
            raise InvalidShreddingError(
                f"typed_value is {typed_type}, not the primitive the layout names",
                file=file,
                column_path=typed.path,
            )


def _unshred_array(
    array: pa.Array,
    primitive_types: dict[tuple[str | None, ...], int] | None,
    column: str | None,
    file: str | None,
    first_row: int,
) -> pa.StructArray:
    assert _native is not None  # checked by the caller; for mypy only
    if isinstance(array, pa.ExtensionArray):
        array = array.storage
    if not pa.types.is_struct(array.type):
        raise InvalidShreddingError(
            f"a Variant column must be a struct, not {array.type}", file=file, column_path=column
        )
    try:
        array.validate()
    except pa.ArrowInvalid as exc:
        raise InvalidShreddingError(
            f"the Arrow column is not valid: {exc}", file=file, column_path=column
        ) from None
    schema_capsule, array_capsule = array.__arrow_c_array__()
    try:
        null_count, validity, offsets, data = _native.unshred(schema_capsule, array_capsule, primitive_types)
    except _native.KernelError as exc:
        raise _error(exc.args, column, file, first_row) from None
    n = len(array)
    value = pa.Array.from_buffers(
        pa.binary(),
        n,
        [validity, offsets, data],
        null_count,
    )
    metadata = plain_binary(array.field("metadata"))
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        UNSHREDDED_TYPE,
        n,
        [value.buffers()[0]],
        null_count,
        children=[metadata, value],
    )


def _error(args: tuple[Any, ...], column: str | None, file: str | None, first_row: int) -> CodecError:
    code, row, raw_path, raw_message, offset = args
    path = raw_path.decode("utf-8", "replace")
    message = raw_message.decode("utf-8", "replace")
    if row >= 0:
        message = f"row {first_row + row}: {message}"
    if column is not None:
        path = f"{column}.{path}" if path else column
    context: dict[str, Any] = {"file": file, "column_path": path or None}
    if offset >= 0:
        context["offset"] = offset
    if code == _ERR_UNSUPPORTED:
        return NativeUnsupportedError(message, **context)
    if code == _ERR_MALFORMED:
        return MalformedVariantError(message, **context)
    if code in (_ERR_SCHEMA, _ERR_SHREDDING):
        return InvalidShreddingError(message, **context)
    if code == _ERR_TOO_LARGE:
        return VariantTooLargeError(message, **context)
    return CodecError(f"unknown kernel error {code}: {message}", **context)


def extract_native(
    metadata: pa.Array | pa.ChunkedArray, value: pa.Array | pa.ChunkedArray, segments: tuple[str | int, ...]
) -> pa.StructArray:
    """:func:`vpush.codec.path.extract_column` in C: the value at a path in every row.

    Example:
        >>> from vpush.codec.json import parse_json
        >>> rows = [parse_json('{"a": [1, 2]}'), parse_json('{"a": 3}'), None]
        >>> meta = pa.array([r[0] if r else None for r in rows], pa.binary())
        >>> value = pa.array([r[1] if r else None for r in rows], pa.binary())
        >>> out = extract_native(meta, value, ("a", 1))
        >>> out.null_count, out.field("value")[0].as_py()
        (2, b'\\x0c\\x02')

    Args:
        metadata: every row's metadata: ``binary``, ``large_binary`` or ``binary_view``, plain or
            dictionary-encoded, sliced or not, or a ChunkedArray of them.
        value: every row's value, of the same kinds and length; chunks need not line up with
            the metadata's.
        segments: the path, keys (str) and array indexes (int), as ``VariantPath.segments``.

    Returns:
        ``struct<metadata: binary, value: binary>``, one row per input row: null where either
        input is null or the path finds nothing (a missing key, an index past the end, a key on
        a non-object, an index on a non-array); else the row's metadata (the input column,
        shared where it is already ``binary``) and the exact bytes of the value at the path.

    Raises:
        NativeUnsupportedError: input the kernel does not read (another Arrow type, a key with a
            lone surrogate, no compiled kernel); call ``extract_column``'s Python loop instead.
        MalformedVariantError: damaged bytes on the path of some row, naming the row and the byte
            offset; the kernel raises exactly where the Python reference raises.
        VariantTooLargeError: the extracted values pass 2 GiB; pass smaller batches.
        VariantPathError: a segment that is not a key or an index in Spark's range.
        ValueError: metadata and value differ in length.
    """
    from vpush.codec.path import VariantPath

    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    # The errors carry no json_path: callers add the path as their user wrote it (with_context).
    path = VariantPath(tuple(segments))
    encoded: list[bytes | int] = []
    for seg in path.segments:
        if isinstance(seg, int):
            encoded.append(seg)
            continue
        try:
            encoded.append(seg.encode("utf-8"))
        except UnicodeEncodeError:
            raise NativeUnsupportedError("a key holding a lone surrogate has no UTF-8 form") from None
    meta_chunks, pieces = _pieces(metadata, value)
    try:
        null_count, validity, offsets, data = _native.extract(pieces, tuple(encoded))
    except _native.KernelError as exc:
        raise _extract_error(exc.args) from None
    n = len(value)
    extracted = pa.Array.from_buffers(pa.binary(), n, [None, offsets, data], 0)
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        UNSHREDDED_TYPE,
        n,
        [validity],
        null_count,
        children=[_metadata_column(meta_chunks, n), extracted],
    )


def _pieces(
    metadata: pa.Array | pa.ChunkedArray, value: pa.Array | pa.ChunkedArray
) -> tuple[list[pa.Array], list[tuple[Any, ...]]]:
    """The metadata's chunks, and the (metadata, value) row ranges the kernels read: Arrow C Data
    Interface capsules of aligned slices, checked to be valid binary-like arrays."""
    if len(metadata) != len(value):
        raise ValueError(f"metadata has {len(metadata)} rows but value has {len(value)}")
    meta_chunks = [_storage(c) for c in _chunks(metadata)]
    value_chunks = [_storage(c) for c in _chunks(value)]
    for name, chunks in (("metadata", meta_chunks), ("value", value_chunks)):
        for chunk in chunks:
            if not _is_binary_like(chunk.type):
                raise NativeUnsupportedError(f"the kernel reads binary {name} arrays, not {chunk.type}")
            try:
                chunk.validate()
            except pa.ArrowInvalid as exc:
                raise MalformedVariantError(f"the Arrow {name} array is not valid: {exc}") from None
    pieces = []
    for meta_piece, value_piece in _aligned(meta_chunks, value_chunks):
        pieces.append((*meta_piece.__arrow_c_array__(), *value_piece.__arrow_c_array__()))
    return meta_chunks, pieces


def _chunks(array: pa.Array | pa.ChunkedArray) -> list[pa.Array]:
    return list(array.chunks) if isinstance(array, pa.ChunkedArray) else [array]


def _storage(array: pa.Array) -> pa.Array:
    return array.storage if isinstance(array, pa.ExtensionArray) else array


def _is_binary_like(arrow_type: pa.DataType) -> bool:
    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    return bool(
        pa.types.is_binary(arrow_type)
        or pa.types.is_large_binary(arrow_type)
        or pa.types.is_binary_view(arrow_type)
    )


def _aligned(left: list[pa.Array], right: list[pa.Array]) -> list[tuple[pa.Array, pa.Array]]:
    """Zero-copy slices of two chunk lists of equal total length, cut where either has a chunk
    boundary, so that each pair covers the same rows."""
    pairs = []
    i = j = 0
    at_left = at_right = 0  # rows of left[i] and right[j] already paired
    while i < len(left) and j < len(right):
        take = min(len(left[i]) - at_left, len(right[j]) - at_right)
        if take:
            pairs.append((left[i].slice(at_left, take), right[j].slice(at_right, take)))
        at_left += take
        at_right += take
        if at_left == len(left[i]):
            i, at_left = i + 1, 0
        if at_right == len(right[j]):
            j, at_right = j + 1, 0
    return pairs


def _metadata_column(chunks: list[pa.Array], n: int) -> pa.Array:
    """The output's metadata: the input's rows as one plain ``binary`` array, shared when the
    input is a single plain binary array."""
    try:
        if not chunks:
            return pa.array([], pa.binary())
        if len(chunks) == 1:
            return plain_binary(chunks[0])
        return pa.concat_arrays([plain_binary(c) for c in chunks])
    except (pa.ArrowInvalid, pa.ArrowCapacityError) as exc:
        raise VariantTooLargeError(
            f"the metadata of {n} rows does not fit one Arrow binary array ({exc}); extract smaller batches"
        ) from None


def _extract_error(args: tuple[Any, ...]) -> CodecError:
    code, row, raw_where, raw_message, offset = args
    where = raw_where.decode("utf-8", "replace")
    message = raw_message.decode("utf-8", "replace")
    if row >= 0:
        message = f"row {row}, {where}: {message}" if where else f"row {row}: {message}"
    context: dict[str, Any] = {}
    if offset >= 0:
        context["offset"] = offset
    if code == _ERR_UNSUPPORTED:
        return NativeUnsupportedError(message, **context)
    if code in (_ERR_MALFORMED, _ERR_SCHEMA):
        return MalformedVariantError(message, **context)
    if code == _ERR_TOO_LARGE:
        return VariantTooLargeError(message, **context)
    if code == _ERR_UNKNOWN_ID:
        return MalformedVariantError(message, error_class=UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT, **context)
    if code == _ERR_UNKNOWN_TYPE:
        return CodecError(message, error_class=UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT, **context)
    if code == _ERR_PATH_MISMATCH:
        return CodecError(message, error_class=VARIANT_PATH_TYPE_MISMATCH, **context)
    if code == _ERR_DUPLICATE_KEY:
        key = raw_message.decode("utf-8", "replace")
        return CodecError(
            f"Failed to build variant because of a duplicate object key `{key}` (row {row})",
            error_class=VARIANT_DUPLICATE_KEY,
            **context,
        )
    return CodecError(f"unknown kernel error {code}: {message}", **context)


def to_json_native(
    metadata: pa.Array | pa.ChunkedArray,
    value: pa.Array | pa.ChunkedArray,
    *,
    time_zone: str = "UTC",
    reject_unknown_types: bool = False,
) -> pa.StringArray:
    """:func:`vpush.codec.json.to_json` of every row, in C: Spark's ``to_json(variant)`` text.

    The text is byte for byte the reference's, doubles and floats included (the kernel carries a
    port of Java 17's ``FloatingDecimal``, see :mod:`vpush.codec.java_format`); timestamps are
    shown in ``time_zone``, whose offsets the kernel asks Python for once per span of constant
    offset (never for a fixed offset such as ``UTC``).

    Example:
        >>> from vpush.codec.json import parse_json
        >>> rows = [parse_json('{"b": 1.50, "a": [1e10, "x\\\\n", null]}'), None, parse_json("0.1")]
        >>> meta = pa.array([r[0] if r else None for r in rows], pa.binary())
        >>> value = pa.array([r[1] if r else None for r in rows], pa.binary())
        >>> to_json_native(meta, value).to_pylist()
        ['{"a":[1.0E10,"x\\\\n",null],"b":1.5}', None, '0.1']

    Args:
        metadata: every row's metadata, of the kinds :func:`extract_native` reads.
        value: every row's value, of the same kinds and length.
        time_zone: the session time zone (see :func:`~vpush.codec.java_format.resolve_time_zone`).
        reject_unknown_types: raise, as Spark 4.3's ``to_json`` does, on a time or nanosecond
            timestamp anywhere in a value; the reference renders them in Spark's style.

    Returns:
        One string per row: null where either input is null, else the row's JSON text (a
        Variant null is the text ``null``).

    Raises:
        NativeUnsupportedError: input the kernel does not read (another Arrow type, a big-endian
            host, no compiled kernel); call ``to_json`` row by row instead.
        MalformedVariantError: damaged bytes, a decimal over its precision, or nesting deeper
            than :data:`~vpush.codec.value.MAX_NESTING_DEPTH`, naming the row and byte offset;
            the kernel rejects exactly what the Python reference rejects.
        VariantTooLargeError: the text passes 2 GiB; pass smaller batches.
        CodecError: an unknown time zone; with ``reject_unknown_types``, a type Spark cannot read
            (error class ``UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT``).
    """
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    zone = resolve_time_zone(time_zone)
    lookup: int | _ZoneSpans = zone if isinstance(zone, int) else zone_spans(zone)
    _, pieces = _pieces(metadata, value)
    try:
        null_count, validity, offsets, data = _native.to_json(pieces, lookup, reject_unknown_types)
    except _native.KernelError as exc:
        raise _extract_error(exc.args) from None
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.string(), len(value), [validity, offsets, data], null_count
    )


_DAY_SECONDS = 86_400
_SPAN_DAYS = 366
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


class _ZoneSpans:
    """A region's UTC offsets as spans of epoch seconds over which the offset holds, for the
    to_json kernel: ``spans(seconds) -> (lo, hi, offset)`` with ``lo <= seconds < hi``.

    Offsets are :func:`~vpush.codec.java_format.zone_offset`'s, so the kernel agrees with the
    Python reference for every instant. A span is found by stepping a day at a time from the
    instant (at most a year each way) and bisecting to the second where the offset changes:
    in the IANA database no two changes of offset lie within four days of each other, so a day's
    step cannot step over a change and back. Spans are kept for the life of the process.
    """

    def __init__(self, zone: Any) -> None:
        self.zone = zone
        self.low = _ZONEINFO_MIN_SECONDS
        self.high = _ZONEINFO_MAX_SECONDS
        self.starts: list[int] = []
        self.spans: list[tuple[int, int, int]] = []
        self.lock = threading.Lock()

    def _offset(self, seconds: int) -> int:
        return zone_offset(self.zone, seconds)

    def __call__(self, seconds: int) -> tuple[int, int, int]:
        if seconds < self.low:
            # zone_offset holds the zone's offset at its first instant before it
            return _INT64_MIN, self.low, self._offset(self.low)
        if seconds > self.high:
            # past Python's years, zone_offset repeats the 400-year cycle of the zone's rules
            cycles = -(-(seconds - self.high) // _SECONDS_PER_400_YEARS)
            shift = cycles * _SECONDS_PER_400_YEARS
            lo, hi, offset = self._inner(seconds - shift)
            lo = max(lo + shift, self.high + shift - _SECONDS_PER_400_YEARS + 1)
            hi = min(hi + shift, self.high + shift + 1, _INT64_MAX)
            return lo, hi, offset
        return self._inner(seconds)

    def _inner(self, seconds: int) -> tuple[int, int, int]:
        """The span around ``seconds``, inside Python's years."""
        with self.lock:
            at = bisect.bisect_right(self.starts, seconds) - 1
            if at >= 0 and seconds < self.spans[at][1]:
                return self.spans[at]
        offset = self._offset(seconds)
        hi = self._edge(seconds, offset, 1)
        lo = self._edge(seconds, offset, -1)
        span = (lo, hi, offset)
        with self.lock:
            at = bisect.bisect_right(self.starts, seconds)
            if not (at > 0 and seconds < self.spans[at - 1][1]):
                self.starts.insert(at, lo)
                self.spans.insert(at, span)
        return span

    def _edge(self, seconds: int, offset: int, step: int) -> int:
        """Where the offset stops holding, going ``step`` (1: the first second after the span;
        -1: the span's first second)."""
        same = seconds
        for _ in range(_SPAN_DAYS):
            probe = same + step * _DAY_SECONDS
            if probe > self.high or probe < self.low:
                probe = self.high if step > 0 else self.low
                if probe == same or self._offset(probe) == offset:
                    return probe + 1 if step > 0 else probe
            elif self._offset(probe) == offset:
                same = probe
                continue
            # the offset changes between same and probe: bisect to the exact second
            changed = probe
            while abs(changed - same) > 1:
                middle = (same + changed) // 2
                if self._offset(middle) == offset:
                    same = middle
                else:
                    changed = middle
            return changed if step > 0 else same
        return same + 1 if step > 0 else same


_ZONE_SPANS: dict[str, _ZoneSpans] = {}


def zone_spans(zone: Any) -> _ZoneSpans:
    """One :class:`_ZoneSpans` per region for the process."""
    key = str(zone)
    with _EXECUTOR_LOCK:
        found = _ZONE_SPANS.get(key)
        if found is None:
            found = _ZONE_SPANS[key] = _ZoneSpans(zone)
        return found


def schema_of_variant_native(metadata: pa.Array | pa.ChunkedArray, value: pa.Array | pa.ChunkedArray) -> pa.StringArray:
    """Spark's ``schema_of_variant`` of every row, in C (the reference is
    :func:`vpush.exec.variant_functions.schema_of_variant`).

    Example:
        >>> from vpush.codec.json import parse_json
        >>> rows = [parse_json('{"b": [1, 2.50], "a": null}'), None, parse_json('"x"')]
        >>> meta = pa.array([r[0] if r else None for r in rows], pa.binary())
        >>> value = pa.array([r[1] if r else None for r in rows], pa.binary())
        >>> schema_of_variant_native(meta, value).to_pylist()
        ['OBJECT<a: VOID, b: ARRAY<DECIMAL(21,1)>>', None, 'STRING']

    Args:
        metadata: every row's metadata, of the kinds :func:`extract_native` reads.
        value: every row's value, of the same kinds and length.

    Returns:
        One string per row, null where either input is null.

    Raises:
        NativeUnsupportedError: input the kernel does not read, or object keys with non-ASCII
            characters that Spark would compare ignoring case (Java's case tables decide): use
            the reference.
        MalformedVariantError: damaged bytes, object fields out of order, a decimal over its
            precision, or nesting deeper than :data:`~vpush.codec.value.MAX_NESTING_DEPTH`.
        CodecError: a type Spark 4.3 cannot read (``UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT``).
    """
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    _, pieces = _pieces(metadata, value)
    try:
        null_count, validity, offsets, data = _native.schema_of_variant(pieces)
    except _native.KernelError as exc:
        raise _extract_error(exc.args) from None
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.string(), len(value), [validity, offsets, data], null_count
    )


def format_java_native(values: pa.Array | pa.ChunkedArray) -> pa.StringArray | pa.ChunkedArray:
    """Every double or float as Java 17's ``Double.toString`` / ``Float.toString`` prints it: the
    text of Spark's cast to string, in C (the same digits as
    :func:`~vpush.codec.java_format.format_java_double`).

    Example:
        >>> format_java_native(pa.array([1e10, 0.001, None, float("nan")])).to_pylist()
        ['1.0E10', '0.001', None, 'NaN']
        >>> format_java_native(pa.array([0.1, 1e-5], pa.float32())).to_pylist()
        ['0.1', '1.0E-5']

    Args:
        values: a float64 or float32 array (or chunked array).

    Returns:
        A string array of the same length (chunked where the input is), null where it is null.

    Raises:
        NativeUnsupportedError: another Arrow type, or no compiled kernel.
    """
    if isinstance(values, pa.ChunkedArray):
        return pa.chunked_array([format_java_native(chunk) for chunk in values.chunks], pa.string())
    kernel, width = _kernel_for(values, ((pa.types.is_float64, 8), (pa.types.is_float32, 4)), "format_java_native", "doubles or floats")
    validity, data = values.buffers()
    null_count, out_validity, offsets, text = kernel.format_java(
        data, validity if values.null_count else None, values.offset, len(values), width
    )
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.string(), len(values), [out_validity, offsets, text], null_count
    )


JAVA_FORMATTER_FLAGS = {"-": 1, "+": 2, " ": 4, "0": 8, ",": 16, "(": 32, "#": 64}
"""The bit of each flag of a ``java.util.Formatter`` specifier, as :func:`format_java_formatter_native` takes them."""


def format_java_formatter_native(
    values: pa.Array | pa.ChunkedArray, conversion: str, flags: str, width: int | None, precision: int | None
) -> pa.StringArray | pa.ChunkedArray:
    """Every double as ``java.util.Formatter`` (``Locale.US``, Java 17) prints it under the
    specifier ``%[flags][width][.precision]conversion``, in C: FloatingDecimal's digits in the
    form Formatter asks for, rounded HALF_UP at the precision, laid out as
    ``FormattedFloatingDecimal`` and Formatter lay them out (Spark's ``format_string``/``printf``).

    Example:
        >>> format_java_formatter_native(pa.array([1.005, 0.125, -0.0, None]), "f", "", None, 2).to_pylist()
        ['1.01', '0.13', '-0.00', None]
        >>> format_java_formatter_native(pa.array([1234567.891, float("nan")]), "e", "+", 14, 3).to_pylist()
        ['    +1.235e+06', '           NaN']

    Args:
        values: a float64 array (or chunked array); a float is widened to a double first, as
            Formatter does.
        conversion: one of ``e E f g G``.
        flags: flags of :data:`JAVA_FORMATTER_FLAGS`, a combination Java accepts for the conversion.
        width, precision: None or 0 to 10000.

    Raises:
        NativeUnsupportedError: another Arrow type, or no compiled kernel.
    """
    if isinstance(values, pa.ChunkedArray):
        return pa.chunked_array(
            [format_java_formatter_native(chunk, conversion, flags, width, precision) for chunk in values.chunks], pa.string()
        )
    kernel, _ = _kernel_for(values, ((pa.types.is_float64, 8),), "format_java_formatter_native", "doubles")
    bits = sum(JAVA_FORMATTER_FLAGS[f] for f in set(flags))
    validity, data = values.buffers()
    null_count, out_validity, offsets, text = kernel.format_java_formatter(
        data, validity if values.null_count else None, values.offset, len(values), conversion, bits,
        -1 if width is None else width, -1 if precision is None else precision,
    )
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.string(), len(values), [out_validity, offsets, text], null_count
    )


def format_number_native(values: pa.Array | pa.ChunkedArray, places: pa.Array | pa.ChunkedArray) -> pa.StringArray:
    """Spark's ``format_number(x, places)`` of every double (a float widened to one), in C: Java
    17's ``DecimalFormat`` of ``#,###,##0.00...`` rounding the digits of ``Double.toString`` half to
    even, a tie at their last digit settled as ``DigitList`` settles it; NULL where either is
    NULL or ``places`` is negative.

    Example:
        >>> format_number_native(pa.array([1234567.125, 0.125, -0.001, None]), pa.array([2, 2, 2, 1], pa.int32())).to_pylist()
        ['1,234,567.12', '0.12', '-0.00', None]
        >>> format_number_native(pa.array([2.675, 1e20, float("-inf")]), pa.array([2, 0, -1], pa.int32())).to_pylist()
        ['2.67', '100,000,000,000,000,000,000', None]

    Args:
        values: a float64 array (or chunked array).
        places: an int32 array (or chunked array) of the same length.

    Raises:
        NativeUnsupportedError: another Arrow type, or no compiled kernel.
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(places, pa.ChunkedArray):
        places = places.combine_chunks()
    kernel, width = _kernel_for(values, ((pa.types.is_float64, 8),), "format_number_native", "doubles")
    if not pa.types.is_int32(places.type) or len(places) != len(values):
        raise NativeUnsupportedError("format_number_native: places must be an int32 array as long as the values")
    validity, data = values.buffers()
    places_validity, places_data = places.buffers()
    null_count, out_validity, offsets, text = kernel.format_java(
        data, validity if values.null_count else None, values.offset, len(values), width,
        places_data, places_validity if places.null_count else None, places.offset,
    )
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.string(), len(values), [out_validity, offsets, text], null_count
    )


def format_number_pattern_native(values: pa.Array | pa.ChunkedArray, pattern: DecimalPattern) -> pa.StringArray:
    """Spark's ``format_number(x, pattern)`` of every value, in C: ``java.text.DecimalFormat`` of
    the pattern (read by :func:`vpush.codec.java_decimal_format.parse_decimal_pattern`). A
    float64 array is of doubles (floats widened), rounded half to even from the digits of
    ``Double.toString`` as Java 17 does; a string array holds the plain text of decimals
    (``format(BigDecimal)``); integers are :func:`format_integer_pattern_native`'s. NULL for NULL.

    Example:
        >>> from vpush.codec.java_decimal_format import parse_decimal_pattern
        >>> format_number_pattern_native(pa.array([1234.5, -0.004, None]), parse_decimal_pattern("#,##0.00;(#)")).to_pylist()
        ['1,234.50', '(0.00)', None]
        >>> format_number_pattern_native(pa.array(["-12.345", "0.5"]), parse_decimal_pattern("0.#%")).to_pylist()
        ['-1234.5%', '50%']

    Raises:
        NativeUnsupportedError: another Arrow type, or no compiled kernel.
    """
    return _format_number_pattern(values, pattern, integers=False)


def format_integer_pattern_native(values: pa.Array | pa.ChunkedArray, pattern: DecimalPattern) -> pa.StringArray:
    """:func:`format_number_pattern_native` of integers given as their text (``format(long)``: no
    fraction digits but the pattern's minimum zeros).

    Example:
        >>> from vpush.codec.java_decimal_format import parse_decimal_pattern
        >>> format_integer_pattern_native(pa.array(["-1234567", "0"]), parse_decimal_pattern("#,##0.0#")).to_pylist()
        ['-1,234,567.0', '0.0']
    """
    return _format_number_pattern(values, pattern, integers=True)


def _format_number_pattern(values: pa.Array | pa.ChunkedArray, pattern: DecimalPattern, *, integers: bool) -> pa.StringArray:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_float64(values.type) and not integers:
        kernel, _ = _kernel_for(values, ((pa.types.is_float64, 8),), "format_number_pattern_native", "doubles")
        validity, data = values.buffers()
        offsets = None
        kind = 0
    else:
        kernel, _ = _kernel_for(values, ((pa.types.is_string, 4),), "format_number_pattern_native", "number texts")
        validity, offsets, data = values.buffers()
        kind = 2 if integers else 1
    null_count, out_validity, out_offsets, text = kernel.format_number_pattern(
        kind, data if data is not None else b"", offsets, validity if values.null_count else None, values.offset, len(values),
        pattern.min_int, pattern.min_frac, pattern.max_frac, pattern.grouping, pattern.shift, int(pattern.always_point), int(pattern.fast_path),
        pattern.positive_prefix.encode(), pattern.positive_suffix.encode(),
        pattern.negative_prefix.encode(), pattern.negative_suffix.encode(),
    )
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.string(), len(values), [out_validity, out_offsets, text], null_count
    )


def get_json_object_native(
    values: pa.Array | pa.ChunkedArray, steps: tuple[str | int, ...], *, last_match: bool = False
) -> pa.StringArray | pa.ChunkedArray:
    """Spark's ``get_json_object`` of every string along a path of keys and indexes, in C
    (``codec/json_path.c``: Jackson's grammar with Spark's features, Spark's evaluation, Jackson's
    output).

    Example:
        >>> texts = pa.array(['{"a": [1, {"b": "x"}], "c": 1.50}', "{'a': [2]}", "[", None])
        >>> get_json_object_native(texts, ("a", 1, "b")).to_pylist()
        ['x', None, None, None]
        >>> get_json_object_native(texts, ("a",)).to_pylist()
        ['[1,{"b":"x"}]', '[2]', None, None]
        >>> get_json_object_native(texts, ()).to_pylist()[0]
        '{"a":[1,{"b":"x"}],"c":1.5}'
        >>> get_json_object_native(pa.array(['{"a": 1, "a": 2, "a": null}']), ("a",), last_match=True).to_pylist()
        ['2']

    Args:
        values: a string or large_string array (or chunked array).
        steps: keys (str) and array indexes (int >= 0), as
            :func:`vpush.codec.json_path.parse_json_path` gives them.
        last_match: each key takes its last match whose value is not null (Spark's
            ``json_tuple``), not its first (``get_json_object``).

    Returns:
        A string array of the same length (chunked where the input is), null where Spark's
        answer is NULL.

    Raises:
        NativeUnsupportedError: another Arrow type, a key with a lone surrogate, or no compiled
            kernel.
    """
    if isinstance(values, pa.ChunkedArray):
        return pa.chunked_array([get_json_object_native(chunk, steps, last_match=last_match) for chunk in values.chunks], pa.string())
    kernel, width = _kernel_for(values, ((pa.types.is_string, 4), (pa.types.is_large_string, 8)), "get_json_object_native", "strings")
    try:
        encoded = tuple(s.encode("utf-8") if isinstance(s, str) else s for s in steps)
    except UnicodeEncodeError:
        raise NativeUnsupportedError("a key holding a lone surrogate has no UTF-8 form") from None
    validity, offsets, data = values.buffers()
    null_count, out_validity, out_offsets, text = kernel.get_json_object(
        offsets, data if data is not None else b"", validity if values.null_count else None, values.offset, len(values), width, encoded,
        last_match,
    )
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.string(), len(values), [out_validity, out_offsets, text], null_count
    )


def json_shape_native(values: pa.Array | pa.ChunkedArray, *, keys: bool) -> pa.StringArray | pa.ChunkedArray:
    """Spark's ``json_array_length`` (the count, as text) or ``json_object_keys`` (the root
    object's field names, as a JSON array of strings) of every string, in C (``codec/json_path.c``:
    read as ``get_json_object`` reads it).

    Example:
        >>> texts = pa.array(['[1, [2, 3], {"a": 4}] x', "{'b': 1, 'a': [], 'b': 2}", "[1,", None])
        >>> json_shape_native(texts, keys=False).to_pylist()
        ['3', None, None, None]
        >>> json_shape_native(texts, keys=True).to_pylist()
        [None, '["b","a","b"]', None, None]

    Args:
        values: a string or large_string array (or chunked array).
        keys: the object's field names (``json_object_keys``), not the array's length.

    Returns:
        A string array of the same length (chunked where the input is), null where Spark's
        answer is NULL.

    Raises:
        NativeUnsupportedError: another Arrow type, or no compiled kernel.
    """
    if isinstance(values, pa.ChunkedArray):
        return pa.chunked_array([json_shape_native(chunk, keys=keys) for chunk in values.chunks], pa.string())
    kernel, width = _kernel_for(values, ((pa.types.is_string, 4), (pa.types.is_large_string, 8)), "json_shape_native", "strings")
    validity, offsets, data = values.buffers()
    null_count, out_validity, out_offsets, text = kernel.json_shape(
        offsets, data if data is not None else b"", validity if values.null_count else None, values.offset, len(values), width, keys,
    )
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.string(), len(values), [out_validity, out_offsets, text], null_count
    )


URL_PARTS = ("HOST", "PATH", "QUERY", "REF", "PROTOCOL", "FILE", "AUTHORITY", "USERINFO")
"""The parts Spark's ``parse_url`` extracts (case-sensitive), numbered as ``codec/spark_url.h`` numbers them."""


def parse_url_native(urls: pa.Array | pa.ChunkedArray, part: str, *, strict: bool) -> pa.StringArray | pa.ChunkedArray:
    """Spark's ``parse_url(url, part)`` of every string, in C (``codec/spark_url.c``: the URL
    parsed as ``java.net.URI(String)`` parses it, each part raw as Spark reads it).

    Example:
        >>> urls = pa.array(["http://u@h.com:80/p/a?q=1#f", "mailto:x@y", "//[::1]/", "a b", None])
        >>> parse_url_native(urls, "HOST", strict=False).to_pylist()
        ['h.com', None, '[::1]', None, None]
        >>> parse_url_native(urls, "FILE", strict=False).to_pylist()
        ['/p/a?q=1', None, '/', None, None]
        >>> parse_url_native(urls, "host", strict=False).to_pylist()
        [None, None, None, None, None]

    Args:
        urls: a string or large_string array (or chunked array).
        part: one of :data:`URL_PARTS` (another text: NULL on every row).
        strict: raise for a URL that does not parse (``parse_url``), rather than give NULL
            (``try_parse_url``).

    Returns:
        A string array of the same length (chunked where the input is), null where Spark's
        answer is NULL.

    Raises:
        CodecError: ``INVALID_URL`` for a URL that does not parse, where ``strict``.
        NativeUnsupportedError: another Arrow type, or no compiled kernel.
    """
    if isinstance(urls, pa.ChunkedArray):
        return pa.chunked_array([parse_url_native(chunk, part, strict=strict) for chunk in urls.chunks], pa.string())
    kernel, width = _kernel_for(urls, ((pa.types.is_string, 4), (pa.types.is_large_string, 8)), "parse_url_native", "strings")
    validity, offsets, data = urls.buffers()
    number = URL_PARTS.index(part) if part in URL_PARTS else -1
    (null_count, out_validity, out_offsets, text), invalid = kernel.parse_url(
        offsets, data if data is not None else b"", validity if urls.null_count else None, urls.offset, len(urls), width, number,
    )
    if strict and invalid >= 0:
        raise CodecError(
            f"The url is invalid: {urls[invalid].as_py()}. Use `try_parse_url` to tolerate invalid URL and return NULL instead.",
            error_class="INVALID_URL",
        )
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.string(), len(urls), [out_validity, out_offsets, text], null_count
    )


FROM_JSON_KINDS = ("boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "string", "struct", "array", "map")
"""The kinds of a :func:`from_json_native` schema node, numbered as ``codec/from_json.h`` numbers them."""

FromJsonNode = tuple[str, int, int, str, tuple[int, ...]]
"""A schema node of :func:`from_json_native`: (kind, precision, scale, field name, children)."""


def from_json_native(values: pa.Array, schema: tuple[FromJsonNode, ...]) -> tuple[pa.StringArray, int, int]:
    """Spark's ``from_json`` (PERMISSIVE) of every string, in C (``codec/from_json.c``: Jackson's
    grammar under Spark's JSON options, Spark's JacksonParser conversions and partial results), as
    JSON text DuckDB casts to the schema's type exactly.

    Example:
        >>> schema = (("struct", 0, 0, "", (1, 2)), ("int", 0, 0, "a", ()), ("string", 0, 0, "b", ()))
        >>> texts, bad, first = from_json_native(pa.array(['{"a": 1, "b": [1.50]}', '{"a": "x"}', "", None]), schema)
        >>> texts.to_pylist(), bad, first
        (['{"a":1,"b":"[1.5]"}', '{"a":null,"b":null}', None, None], 1, 1)

    Args:
        values: a string or large_string array.
        schema: the nodes, the root (a struct, an array or a map) first; a node's children (a
            struct's fields, an array's element, a map's value) are indexes of later nodes.

    Returns:
        The texts (null where Spark's answer is NULL), the number of Spark's bad records (which
        FAILFAST refuses) and the first one's row (-1 when none).

    Raises:
        NativeUnsupportedError: another Arrow type, no compiled kernel, or a row whose answer
            DuckDB cannot hold (a map with a key twice) or vpush does not compute (a decimal
            string with non-ASCII characters).
    """
    kernel, width = _kernel_for(values, ((pa.types.is_string, 4), (pa.types.is_large_string, 8)), "from_json_native", "strings")
    nodes = tuple(
        (FROM_JSON_KINDS.index(kind), precision, scale, name.encode("utf-8"), (json.dumps(name, ensure_ascii=False) + ":").encode("utf-8"), children)
        for kind, precision, scale, name, children in schema
    )
    validity, offsets, data = values.buffers()
    try:
        null_count, out_validity, out_offsets, text, bad_rows, first_bad_row = kernel.from_json(
            offsets, data if data is not None else b"", validity if values.null_count else None, values.offset, len(values), width, nodes
        )
    except kernel.KernelError as exc:
        if exc.args[0] == _ERR_UNSUPPORTED:
            raise NativeUnsupportedError(f"row {exc.args[1]}: {exc.args[3].decode()}") from None
        raise
    result = pa.Array.from_buffers(pa.string(), len(values), [out_validity, out_offsets, text], null_count)
    return result, bad_rows, first_bad_row


def _kernel_for(
    values: pa.Array, widths: tuple[tuple[Callable[[pa.DataType], bool], int], ...], function: str, takes: str
) -> tuple[ModuleType, int]:
    """The compiled kernel, and the width in bytes it is told for ``values`` (of its values or
    its offsets), by the first test of ``widths`` its type passes.

    Raises:
        NativeUnsupportedError: no compiled kernel, or a type no test passes.
    """
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    for test, width in widths:
        if test(values.type):
            return _native, width
    raise NativeUnsupportedError(f"{function} takes {takes}, not {values.type}")


_DATETIME_KINDS = {"date": 0, "timestamp": 1, "timestamp_ntz": 2}


def parse_datetimes_native(values: pa.Array, kind: str) -> tuple[Any, Any, Any, pa.StringArray]:
    """Every string parsed as Spark's cast to ``kind`` (``date``, ``timestamp`` or
    ``timestamp_ntz``) parses it, in C (``codec/spark_datetime.c``): per row a status (uint8:
    0 NULL, 1 parsed, 2 parsed with a zone written, 3 not a date or timestamp, 4 a time alone,
    5 a time alone with a zone), the days (a date) or local seconds since the epoch (a
    timestamp) as int64, the microseconds of the second as int32 (NumPy arrays), and the zone
    text each row names (empty where none).

    Example:
        >>> status, days, _, _ = parse_datetimes_native(pa.array(["2024", "2024-1-2 x", "nope", None]), "date")
        >>> status.tolist(), days[:2].tolist()
        ([1, 1, 3, 0], [19723, 19724])

    Raises:
        NativeUnsupportedError: not a string or large_string array, or no compiled kernel.
    """
    import numpy as np

    kernel, width = _kernel_for(values, ((pa.types.is_string, 4), (pa.types.is_large_string, 8)), "parse_datetimes_native", "strings")
    validity, offsets, data = values.buffers()
    status, seconds, micros, zone_offsets, zone_data = kernel.parse_datetimes(
        offsets, data if data is not None else b"", validity if values.null_count else None,
        values.offset, len(values), width, _DATETIME_KINDS[kind],
    )
    zones = pa.Array.from_buffers(pa.string(), len(values), [None, pa.py_buffer(zone_offsets), pa.py_buffer(zone_data)])
    return (
        np.frombuffer(status, np.uint8),
        np.frombuffer(seconds, np.int64),
        np.frombuffer(micros, np.int32),
        zones,
    )


def parse_formatted_native(values: pa.Array, pattern: ParsingPattern) -> tuple[Any, Any, Any, Any]:
    """Every string parsed by a compiled datetime pattern as Spark's ``to_timestamp(s, pattern)``
    parses it, in C (``codec/spark_datetime_format.c``): per row a status (uint8: 0 NULL, 1 parsed,
    2 parsed with an offset written, 3 not parsed), the local date and time as seconds since
    1970-01-01T00:00 (int64), the microseconds of the second (int32) and the offset written in
    seconds (int32), as NumPy arrays.

    Example:
        >>> from vpush.codec.datetime_pattern import compile_pattern
        >>> status, local, _, _ = parse_formatted_native(pa.array(["05/01/2024", "5/1/2024", None]), compile_pattern("dd/MM/yyyy"))
        >>> status.tolist(), local[:1].tolist()
        ([1, 3, 0], [1704412800])

    Raises:
        NativeUnsupportedError: not a string or large_string array, or no compiled kernel.
    """
    import numpy as np

    kernel, width = _kernel_for(values, ((pa.types.is_string, 4), (pa.types.is_large_string, 8)), "parse_formatted_native", "strings")
    validity, offsets, data = values.buffers()
    steps = np.array(pattern.steps, np.int32).reshape(-1, 6)
    status, seconds, micros, zone_seconds = kernel.parse_formatted(
        steps.tobytes(), pattern.literals, offsets, data if data is not None else b"",
        validity if values.null_count else None, values.offset, len(values), width,
    )
    return (
        np.frombuffer(status, np.uint8),
        np.frombuffer(seconds, np.int64),
        np.frombuffer(micros, np.int32),
        np.frombuffer(zone_seconds, np.int32),
    )

EXPLODE_NULL, EXPLODE_ARRAY, EXPLODE_OBJECT, EXPLODE_OTHER = 0, 1, 2, 3
"""The kinds of row :func:`explode_native` tells apart: SQL NULL, array, object, another value."""


def container_kinds_native(metadata: pa.Array | pa.ChunkedArray, value: pa.Array | pa.ChunkedArray) -> tuple[Any, Any]:
    """Per row, the kind of its value (:data:`EXPLODE_ARRAY`, ...) and the number of its elements
    or fields, as uint8 and int32 NumPy arrays: :func:`explode_native`'s first pass alone.

    Raises:
        NativeUnsupportedError: as :func:`extract_native`.
        MalformedVariantError: damaged bytes, naming the row and byte offset.
    """
    import numpy as np

    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    _, pieces = _pieces(metadata, value)
    try:
        kinds_bytes, counts_bytes = _native.explode(pieces, 0, 0)
    except _native.KernelError as exc:
        raise _extract_error(exc.args) from None
    return np.frombuffer(kinds_bytes, dtype=np.uint8), np.frombuffer(counts_bytes, dtype=np.int32)


def explode_native(
    metadata: pa.Array | pa.ChunkedArray, value: pa.Array | pa.ChunkedArray, *, keys: bool = True
) -> tuple[Any, Any, pa.BinaryArray, pa.StringArray]:
    """Every row's top-level array or object taken apart, in C: the elements of an array and the
    fields of an object (in stored order), for ``variant_explode`` and casts to arrays, maps and
    structs.

    Example:
        >>> from vpush.codec.json import parse_json
        >>> rows = [parse_json('[1, "a"]'), parse_json('{"b": 2, "a": 1}'), None, parse_json("7")]
        >>> meta = pa.array([r[0] if r else None for r in rows], pa.binary())
        >>> value = pa.array([r[1] if r else None for r in rows], pa.binary())
        >>> kinds, counts, values, keys = explode_native(meta, value)
        >>> kinds.tolist(), counts.tolist(), keys.to_pylist()
        ([1, 2, 0, 3], [2, 2, 0, 0], [None, None, 'a', 'b'])
        >>> values.to_pylist()
        [b'\\x0c\\x01', b'\\x05a', b'\\x0c\\x01', b'\\x0c\\x02']

    Args:
        metadata: every row's metadata, of the kinds :func:`extract_native` reads.
        value: every row's value, of the same kinds and length.
        keys: take the objects' keys too (else every key is NULL, and no pass reads them).

    Returns:
        ``(kinds, counts, values, keys)``: per row, its kind (:data:`EXPLODE_ARRAY`, ...) and
        number of elements (uint8 and int32 NumPy arrays); per element, in row order, its value
        bytes (valid with its row's metadata) and its key (NULL for an array's elements).

    Raises:
        NativeUnsupportedError: as :func:`extract_native`.
        MalformedVariantError: damaged bytes, naming the row and byte offset.
    """
    import numpy as np

    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    kinds, counts = container_kinds_native(metadata, value)
    total = int(counts.sum(dtype=np.int64))
    if total > (1 << 31) - 1:
        raise VariantTooLargeError(f"{total} elements do not fit one Arrow array; explode smaller batches")
    _, pieces = _pieces(metadata, value)
    arrays = []
    try:
        for mode, arrow_type in ((1, pa.binary()), (2, pa.string()))[: 2 if keys else 1]:
            null_count, validity, offsets, data = _native.explode(pieces, total, mode)
            arrays.append(pa.Array.from_buffers(arrow_type, total, [validity, offsets, data], null_count))
    except _native.KernelError as exc:
        raise _extract_error(exc.args) from None
    return kinds, counts, arrays[0], arrays[1] if keys else pa.nulls(total, pa.string())


def is_valid_variant_native(metadata: pa.Array | pa.ChunkedArray, value: pa.Array | pa.ChunkedArray) -> pa.BooleanArray:
    """Spark's ``is_valid_variant`` of every row, in C: whether Spark 4.3's readers can read the
    value and every value inside it (a looser check than
    :meth:`vpush.codec.value.Variant.validate`: the metadata's dictionary is read only where an
    object names a key, object fields need not be sorted or unique, trailing bytes are allowed;
    the kernel's comment lists every rule).

    Example:
        >>> from vpush.codec.json import parse_json
        >>> meta, good = parse_json('{"a": [1, "x"]}')
        >>> rows = [(meta, good), (meta, good[:-1]), (b"\\x02", b"\\x00"), None]
        >>> m = pa.array([r[0] if r else None for r in rows], pa.binary())
        >>> v = pa.array([r[1] if r else None for r in rows], pa.binary())
        >>> is_valid_variant_native(m, v).to_pylist()
        [True, False, False, None]

    Args:
        metadata: every row's metadata, of the kinds :func:`extract_native` reads.
        value: every row's value, of the same kinds and length.

    Returns:
        One boolean per row, null where either input is null.

    Raises:
        NativeUnsupportedError: input the kernel does not read, or no compiled kernel.
    """
    import numpy as np

    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    _, pieces = _pieces(metadata, value)
    try:
        answers = np.frombuffer(_native.is_valid_variant(pieces), dtype=np.uint8)
    except _native.KernelError as exc:
        raise _extract_error(exc.args) from None
    return pa.array(answers == 1, mask=answers == 2, type=pa.bool_())  # type: ignore[no-any-return]


def _build_error(args: tuple[Any, ...]) -> CodecError:
    """The error of a kernel that builds variants: Spark's ``VARIANT_SIZE_LIMIT`` for a variant
    over 16 MiB (Spark's builder refuses it), any other failure as :func:`_extract_error` reads it."""
    if args[0] == _ERR_TOO_LARGE and b"VARIANT_SIZE_LIMIT" in args[3]:
        return CodecError(
            "the variant would be over the size limit of 16 MiB", error_class="VARIANT_SIZE_LIMIT"
        )
    return _extract_error(args)


def _built_variants(n: int, built: tuple[tuple[Any, ...], tuple[Any, ...]]) -> pa.StructArray:
    """The ``struct<metadata, value>`` of ``n`` rows from a building kernel's buffers: the value
    column's validity, offsets and data, and the metadata's offsets and data (which share the
    value's validity, since a row is null in both or in neither)."""
    (null_count, validity, offsets, data), (meta_offsets, meta_data) = built
    value = pa.Array.from_buffers(pa.binary(), n, [validity, offsets, data], null_count)
    metadata = pa.Array.from_buffers(
        pa.binary(), n, [validity, pa.py_buffer(meta_offsets), pa.py_buffer(meta_data)], null_count
    )
    return pa.StructArray.from_arrays(  # type: ignore[no-any-return]
        [metadata, value], fields=list(UNSHREDDED_TYPE), mask=value.is_null() if null_count else None
    )


def _build(
    n: int, call: Callable[[ModuleType], tuple[Any, ...]], errors: Callable[[tuple[Any, ...]], CodecError] = _build_error
) -> pa.StructArray:
    """``n`` rows of variants from a building kernel: ``call`` runs it on the loaded module, and
    its failure is raised as ``errors`` reads it."""
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    try:
        built = call(_native)
    except _native.KernelError as exc:
        raise errors(exc.args) from None
    return _built_variants(n, built)


def to_variant_native(array: pa.Array | pa.ChunkedArray, variant_nodes: bytes) -> pa.StructArray:
    """Every row of a column of structs, lists, maps and scalars as the variant Spark's
    ``VariantBuilder`` makes of it (Spark's ``to_variant_object`` and casts to variant), in C:
    the same metadata and value bytes (keys in the order first met, unsorted; an object's fields
    written in input order and indexed in key order; the smallest integer and decimal types; a
    NULL inside as a variant null).

    Example:
        >>> column = pa.array([{"b": 1, "a": "x"}, None])
        >>> out = to_variant_native(column, bytes([0, 0, 0]))
        >>> [(r["metadata"].hex(), r["value"].hex()) if r else None for r in out.to_pylist()]
        [('01020001026261', '020201000200040c010578'), None]

    Args:
        array: the column, as DuckDB hands it over: structs, lists, large lists, maps with
            string keys, booleans, signed integers, floats, doubles, 128-bit decimals, strings,
            binaries, dates, microsecond timestamps (with a zone: ``timestamp``; without:
            ``timestamp_ntz``), and variants.
        variant_nodes: one byte per node of the column's type in preorder (a map's entries
            struct counts, then its key and value), 1 where the node is a variant
            ``struct<metadata, value>`` rather than a struct.

    Returns:
        ``struct<metadata, value>``, null where the row is.

    Raises:
        NativeUnsupportedError: an Arrow type the kernel does not read, or no compiled kernel.
        CodecError: a repeated key (``VARIANT_DUPLICATE_KEY``), or a variant of more than 16 MiB.
        MalformedVariantError: a variant inside that cannot be read.
    """
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    return _build(len(array), lambda kernel: kernel.to_variant(*array.__arrow_c_array__(), variant_nodes))


def variant_delete_native(
    metadata: pa.Array | pa.ChunkedArray,
    value: pa.Array | pa.ChunkedArray,
    paths: tuple[tuple[str | int, ...] | None, ...],
) -> pa.StructArray:
    """Spark's ``variant_delete`` of every row, in C: the paths applied in order, each by a rebuild
    with Spark's builder that leaves out the element the path reaches (a path that reaches nothing
    deletes nothing; a None path is skipped). Even a row nothing was deleted from comes back
    rebuilt, with a new dictionary, as Spark returns it.

    Example:
        >>> from vpush.codec.json import parse_json
        >>> meta, value = parse_json('{"b": [1, 2], "a": 1}')
        >>> out = variant_delete_native(pa.array([meta]), pa.array([value]), (("b", 0), ("a",)))
        >>> row = out.to_pylist()[0]
        >>> row["metadata"], row["value"].hex()
        (b'\\x01\\x01\\x00\\x01b', '0201000006030100020c02')

    Args:
        metadata: every row's metadata, of the kinds :func:`extract_native` reads.
        value: every row's value, of the same kinds and length.
        paths: each a tuple of keys and array indexes (a parsed path with at least one segment).

    Returns:
        ``struct<metadata, value>``, null where either input is.

    Raises:
        NativeUnsupportedError: input the kernel does not read, or no compiled kernel.
        MalformedVariantError: a value that cannot be read.
    """
    encoded = tuple(
        None if p is None else tuple(s.encode("utf-8") if isinstance(s, str) else s for s in p) for p in paths
    )
    return _build(len(value), lambda kernel: kernel.variant_delete(_pieces(metadata, value)[1], encoded))


def variant_strip_nulls_native(
    metadata: pa.Array | pa.ChunkedArray, value: pa.Array | pa.ChunkedArray, *, include_arrays: bool
) -> pa.StructArray:
    """Spark's ``variant_strip_nulls`` of every row, in C: each row rebuilt by Spark's builder
    without the object fields that are variant nulls, and with ``include_arrays`` without the
    array elements that are (an object or array emptied so stays, empty; a top-level null stays).

    Example:
        >>> from vpush.codec.json import parse_json, to_json
        >>> meta, value = parse_json('{"a": null, "b": [null, 1], "c": {"d": null}}')
        >>> out = variant_strip_nulls_native(pa.array([meta]), pa.array([value]), include_arrays=True)
        >>> to_json(out[0]["metadata"].as_py(), out[0]["value"].as_py())
        '{"b":[1],"c":{}}'

    Raises:
        NativeUnsupportedError: input the kernel does not read, or no compiled kernel.
        MalformedVariantError: a value that cannot be read.
    """
    mode = 2 if include_arrays else 1
    return _build(len(value), lambda kernel: kernel.variant_delete(_pieces(metadata, value)[1], (), mode), _extract_error)


def variant_rebuild_native(metadata: pa.Array | pa.ChunkedArray, value: pa.Array | pa.ChunkedArray) -> pa.StructArray:
    """Every row rebuilt by Spark's builder, in C, as Spark's ``variant_get`` to ``variant`` (and
    ``v:a``) rebuilds the value it found "to strip off any unnecessary metadata": a dictionary of
    just the keys met, in the order they are met, containers re-encoded, scalars copied as they are.

    Example:
        >>> from vpush.codec.json import parse_json
        >>> meta, value = parse_json('{"a": 1, "b": 2}')
        >>> found = extract_native(pa.array([meta]), pa.array([value]), ("a",))
        >>> variant_rebuild_native(found.field("metadata"), found.field("value")).to_pylist()
        [{'metadata': b'\\x01\\x00\\x00', 'value': b'\\x0c\\x01'}]

    Raises:
        NativeUnsupportedError: input the kernel does not read, or no compiled kernel.
        MalformedVariantError: a value that cannot be read.
    """
    return _build(len(value), lambda kernel: kernel.variant_delete(_pieces(metadata, value)[1], (), 3), _extract_error)


MODIFY_SET, MODIFY_INSERT, MODIFY_APPEND = 0, 1, 2
"""The modes of :func:`variant_modify_native`: ``variant_set``, ``variant_insert``,
``variant_array_append``."""


def variant_modify_native(
    variant: pa.StructArray | pa.ChunkedArray,
    new_value: pa.StructArray | pa.ChunkedArray,
    mode: int,
    path: tuple[str | int, ...],
    *,
    create_if_missing: bool = True,
    fail_on_error: bool = True,
) -> pa.StructArray:
    """Spark's ``variant_set`` / ``variant_insert`` / ``variant_array_append`` (``mode``) of every
    row, in C: each row rebuilt by Spark's builder with the row's ``new_value`` set at, inserted
    at or appended to ``path`` (the kernel's comment gives the rules). NULL where any input is.

    Example:
        >>> from vpush.codec.json import parse_json, to_json
        >>> def column(text):
        ...     m, v = parse_json(text)
        ...     return pa.array([{"metadata": m, "value": v}], UNSHREDDED_TYPE)
        >>> out = variant_modify_native(column('{"a": [1]}'), column('"x"'), MODIFY_INSERT, ("a", 0))
        >>> to_json(out[0]["metadata"].as_py(), out[0]["value"].as_py())
        '{"a":["x",1]}'

    Raises:
        CodecError: with ``fail_on_error``, a path that does not fit the value
            (``VARIANT_PATH_TYPE_MISMATCH``, its ``offset`` the failing step) or an inserted key
            that is there (``VARIANT_DUPLICATE_KEY``); without it those rows are NULL.
        NativeUnsupportedError: input the kernel does not read, or no compiled kernel.
        MalformedVariantError: a value that cannot be read.
    """
    segments = tuple(s.encode("utf-8") if isinstance(s, str) else s for s in path)

    def call(kernel: ModuleType) -> tuple[Any, ...]:
        columns = []
        for array in (variant, new_value):
            array = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
            metadata, value = array.flatten()
            columns.append(_pieces(metadata, value)[1])
        return kernel.variant_modify(columns[0], columns[1], mode, segments, create_if_missing, fail_on_error)  # type: ignore[no-any-return]

    return _build(len(variant), call)
