"""Spark's ``hash``, ``xxhash64`` and ``crc32`` over Arrow arrays, by the compiled kernel.

Spark folds ``hash(a, b, ...)`` left to right: the seed (42) hashes ``a``, that result is the
seed of ``b``'s hash, and so on, a NULL argument leaving the running hash as it is. Each step
hashes one argument by its type (``codec/spark_hash.c`` lists the rules), so one call of
:func:`spark_hash_step` per argument gives the whole chain. :func:`scala_hash` is no Spark
function: it is the Scala hash by which ``collect_set``'s ``HashSet`` orders its elements.
"""

from __future__ import annotations

import pyarrow as pa

from vpush.codec.native import NativeUnsupportedError, _native

__all__ = ["HASH_ALGORITHMS", "crc32", "nested_hash_step", "nested_set_hash", "scala_hash", "spark_hash_step"]

HASH_ALGORITHMS = {"hash": 0, "xxhash64": 1}
"""Spark's hash functions, by name: Murmur3_x86_32 (int seeds and results) and XXH64 (long)."""

_CRC32 = 2
_SCALA = 3


def _kind(values: pa.Array) -> int:
    t = values.type
    if pa.types.is_int32(t) or pa.types.is_date32(t):
        return 0
    if pa.types.is_int64(t) or pa.types.is_timestamp(t):
        return 1
    if pa.types.is_float32(t):
        return 2
    if pa.types.is_float64(t):
        return 3
    if pa.types.is_string(t) or pa.types.is_binary(t):
        return 4
    if pa.types.is_large_string(t) or pa.types.is_large_binary(t):
        return 5
    if pa.types.is_decimal128(t) and t.scale == 0:
        return 6  # an unscaled 128-bit integer: hashed as BigInteger.toByteArray's bytes
    raise ValueError(f"spark_hash: no Spark hash of Arrow type {t}")


def _single(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks()
    if pa.types.is_string_view(values.type) or pa.types.is_binary_view(values.type):
        return values.cast(pa.large_binary())
    return values


def _run(algorithm: int, values: pa.Array, seeds: pa.Array | None) -> tuple[int, bytes | None, bytes]:
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    kind = _kind(values)
    buffers = values.buffers()
    validity = buffers[0] if values.null_count else None
    offsets, data = (buffers[1], buffers[2]) if kind in (4, 5) else (None, buffers[1])
    seed_values = seeds.buffers()[1] if seeds is not None else None
    return _native.spark_hash(  # type: ignore[no-any-return]
        algorithm, kind, data if data is not None else b"", offsets, validity, values.offset, seed_values,
        seeds.offset if seeds is not None else 0, len(values),
    )


def spark_hash_step(name: str, values: pa.Array | pa.ChunkedArray, seeds: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Spark's ``name`` (``hash`` or ``xxhash64``) of one argument, seeded row by row by ``seeds``
    (the hash of the arguments before it, or 42): ``seeds`` where the value is NULL.

    Example:
        >>> spark_hash_step("hash", pa.array([1, None], pa.int32()), pa.array([42, 42], pa.int32())).to_pylist()
        [-559580957, 42]
        >>> spark_hash_step("xxhash64", pa.array(["Spark"]), pa.array([42], pa.int64())).to_pylist()
        [-4294468057691064905]

    Args:
        name: a key of :data:`HASH_ALGORITHMS`.
        values: int32 (also Spark's byte, short, boolean as 0/1), date32, int64, timestamp, float32,
            float64, string or binary values, or the unscaled values of decimals of more than 18
            digits as decimal128 with scale 0.
        seeds: int32 for ``hash``, int64 for ``xxhash64``, as long as ``values``, without NULLs.

    Raises:
        NativeUnsupportedError: no compiled kernel.
        ValueError: an unknown name or a type Spark does not hash this way.
    """
    algorithm = HASH_ALGORITHMS[name]
    first, seed = _single(values), _single(seeds)
    if len(first) != len(seed) or seed.null_count:
        raise ValueError(f"spark_hash: {len(first)} values need as many seeds without NULLs, not {len(seed)}")
    seed_type = pa.int32() if algorithm == 0 else pa.int64()
    if seed.type != seed_type:
        seed = seed.cast(seed_type)
    _, _, out = _run(algorithm, first, seed)
    return pa.Array.from_buffers(seed_type, len(first), [None, pa.py_buffer(out)], 0)  # type: ignore[no-any-return]


def crc32(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Spark's ``crc32`` of every binary (or string, as its UTF-8 bytes): a bigint, NULL for NULL.

    Example:
        >>> crc32(pa.array([b"Spark", None])).to_pylist()
        [1557323817, None]

    Raises:
        NativeUnsupportedError: no compiled kernel.
    """
    first = _single(values)
    nulls, validity, out = _run(_CRC32, first, None)
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.int64(), len(first), [pa.py_buffer(validity) if validity is not None else None, pa.py_buffer(out)], nulls
    )


def scala_hash(values: pa.Array | pa.ChunkedArray, scales: pa.Array | pa.ChunkedArray | None = None) -> pa.Array:
    """Scala's ``##`` of the element Spark's ``collect_set`` keeps for each value (an int32, NULL
    for NULL), by which its ``mutable.HashSet`` orders them: a double's as the long of its bits
    (NaN and -0.0 normalized), a float's as the int of its bits, a binary's as an
    ``UnsafeArrayData`` of its bytes, a decimal's as Spark's ``Decimal`` (``scala.math.BigDecimal``'s
    hash: a whole number as its integer's, one ``Double.toString`` prints as it is as the double's).

    Example:
        >>> scala_hash(pa.array([1.5, -0.0, None])).to_pylist()
        [1073217536, 0, None]
        >>> scala_hash(pa.array([25, 125], pa.int64()), pa.array([1, 2], pa.int32())).to_pylist()
        [1075838976, 1067450368]

    Args:
        values: float32, float64, string or binary values, or the unscaled values of decimals
            (int64, or decimal128 with scale 0 past 18 digits); structs and lists:
            :func:`nested_set_hash`.
        scales: the decimals' scales (int32, without NULLs), one per value; None for the others.

    Raises:
        NativeUnsupportedError: no compiled kernel.
        ValueError: a type Spark's set does not hold this way, or decimals without their scales.
    """
    first = _single(values)
    decimal = _kind(first) in (1, 6)
    if decimal and pa.types.is_timestamp(first.type):
        raise ValueError("scala_hash: no set element of a timestamp")
    scale = _single(scales).cast(pa.int32()) if scales is not None else None
    if decimal and (scale is None or len(scale) != len(first) or scale.null_count):
        raise ValueError("scala_hash: the unscaled values of decimals need their scales, one per value")
    nulls, validity, out = _run(_SCALA, first, scale if decimal else None)
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.int32(), len(first), [pa.py_buffer(validity) if validity is not None else None, pa.py_buffer(out)], nulls
    )


def nested_hash_step(name: str, values: pa.Array | pa.ChunkedArray, seeds: pa.Array | pa.ChunkedArray) -> pa.Array:
    """:func:`spark_hash_step` of structs, lists and maps: Spark's ``name`` of each value's fields,
    elements, or keys and values in order (each seeded with the hash so far, a NULL leaving it as
    it is), seeded row by row by ``seeds``.

    Example:
        >>> nested_hash_step("hash", pa.array([[1, None, 2], None], pa.list_(pa.int32())), pa.array([42, 7], pa.int32())).to_pylist()
        [-222940379, 7]
        >>> spark_hash_step("hash", pa.array([2], pa.int32()), spark_hash_step("hash", pa.array([1], pa.int32()), pa.array([42], pa.int32()))).to_pylist()
        [-222940379]

    Args:
        name: a key of :data:`HASH_ALGORITHMS`.
        values: structs, lists (or large lists) and maps of the atoms :func:`spark_hash_step`
            takes (bytes, shorts and booleans as themselves; 128-bit decimals, hashed as the
            Spark decimal of their precision), as DuckDB hands them over.
        seeds: int32 for ``hash``, int64 for ``xxhash64``, as long as ``values``, without NULLs.

    Raises:
        NativeUnsupportedError: no compiled kernel, or an Arrow type it does not read.
        ValueError: an unknown name, or seeds that do not match the values.
    """
    algorithm = HASH_ALGORITHMS[name]
    first, seed = _single(values), _single(seeds)
    if len(first) != len(seed) or seed.null_count:
        raise ValueError(f"spark_hash: {len(first)} values need as many seeds without NULLs, not {len(seed)}")
    seed_type = pa.int32() if algorithm == 0 else pa.int64()
    if seed.type != seed_type or seed.offset:
        seed = pa.concat_arrays([seed.cast(seed_type)])
    _, _, out = _nested(algorithm, first, seed.buffers()[1])
    return pa.Array.from_buffers(seed_type, len(first), [None, pa.py_buffer(out)], 0)  # type: ignore[no-any-return]


def nested_set_hash(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """:func:`scala_hash` of structs and lists of any elements (no maps inside): the hashCode of
    the ``UnsafeRow`` or ``UnsafeArrayData`` Spark's ``collect_set`` keeps for each (Murmur3 with
    seed 42 of its bytes as Spark's writers lay them out), an int32, NULL for NULL.

    Example:
        >>> nested_set_hash(pa.array([[1, None], []], pa.list_(pa.int32()))).to_pylist()
        [1491698259, -1670924195]
        >>> nested_set_hash(pa.array([{"a": 1, "b": "x"}, None])).to_pylist()[1] is None
        True

    Raises:
        NativeUnsupportedError: no compiled kernel, or an Arrow type it does not read.
    """
    first = _single(values)
    nulls, validity, out = _nested(_SCALA, first, None)
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.int32(), len(first), [pa.py_buffer(validity) if validity is not None else None, pa.py_buffer(out)], nulls
    )


def _nested(algorithm: int, values: pa.Array, seeds: pa.Buffer | None) -> tuple[int, bytes | None, bytes]:
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    try:
        return _native.nested_hash(*values.__arrow_c_array__(), algorithm, seeds)  # type: ignore[no-any-return]
    except _native.KernelError as exc:
        raise NativeUnsupportedError(f"spark_hash: {exc.args[3].decode(errors='replace')} ({values.type})") from None
