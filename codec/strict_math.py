"""Spark's transcendental functions over Arrow double arrays, bit for bit as Spark computes them.

Spark 4.3 computes ``ln``, ``log``, ``log10``, ``log2``, ``exp``, ``pow``, ``expm1`` and ``log1p``
with Java's ``StrictMath``, and ``sinh``, ``cosh``, ``tanh`` and ``cbrt`` with ``java.lang.Math``,
which on Java 17 hands them to ``StrictMath``. ``StrictMath`` is fdlibm's algorithms in IEEE
double arithmetic; the C library's ``libm`` (which DuckDB calls) rounds otherwise in the last bit
of many results (measured on glibc: ``ln`` on 3.6% of random doubles, ``log10`` on 24%, ``exp``
on 9%). The compiled kernel (``codec/strict_math.c``) follows fdlibm step by step, so every
result has Java's bits. ``asin``, ``acos``, ``atan``, ``atan2`` and ``hypot`` are ``java.lang.Math``'s,
which hands them to ``StrictMath`` too; ``asinh``, ``acosh`` and ``atanh`` are Spark's own formulas
over ``StrictMath.log`` and ``log1p``, ``degrees`` and ``radians`` one product each, and ``rint``
IEEE's rounding to an integer (ties to even).

``sin``, ``cos`` and ``tan`` (and ``cot``, ``sec``, ``csc`` from them) are not here: on x86_64
HotSpot replaces ``Math.sin``, ``cos`` and ``tan`` by its own stubs (Intel's libm), in the
interpreter and the compilers alike, whose results differ from ``StrictMath``'s (and from the C
library's) in the last bit on about 2% of doubles.

The logarithms are NULL where Spark's are (``UnaryLogExpression``: at or below 0, and at or below
-1 for ``log1p``; ``log(base, x)`` where either is at or below 0). NaN is not NULL, since Spark
compares ``d <= 0``.
"""

from __future__ import annotations

import pyarrow as pa

from vpush.codec.native import NativeUnsupportedError, _native

__all__ = ["STRICT_MATH_FUNCTIONS", "strict_math"]

STRICT_MATH_FUNCTIONS: dict[str, int] = {
    "ln": 1, "log10": 1, "log2": 1, "log1p": 1, "exp": 1, "expm1": 1, "sinh": 1, "cosh": 1, "tanh": 1,
    "cbrt": 1, "log": 2, "pow": 2, "asin": 1, "acos": 1, "atan": 1, "atan2": 2, "hypot": 2, "asinh": 1, "acosh": 1,
    "atanh": 1, "degrees": 1, "radians": 1, "rint": 1,
}
"""Each function the kernel computes, by Spark's name, with its number of arguments (``log`` is
the one with a base first, as Spark's ``Logarithm``; ``pow`` is also Spark's ``power``)."""


def _doubles(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not pa.types.is_float64(values.type):
        values = values.cast(pa.float64())  # a float or an integer widens exactly, as in Spark
    return values


def strict_math(name: str, x: pa.Array | pa.ChunkedArray, y: pa.Array | pa.ChunkedArray | None = None) -> pa.Array:
    """Spark's function ``name`` of every row, with Java's ``StrictMath`` bits and Spark's NULLs.

    Example:
        >>> strict_math("ln", pa.array([1.0, 10.0, 0.0, None, -2.0])).to_pylist()
        [0.0, 2.302585092994046, None, None, None]
        >>> strict_math("log", pa.array([2.0, 10.0]), pa.array([1024.0, 1e-3])).to_pylist()
        [10.0, -2.9999999999999996]
        >>> strict_math("exp", pa.array([1.0, 709.0, 710.0])).to_pylist()
        [2.7182818284590455, 8.218407461554972e+307, inf]

    Args:
        name: a key of :data:`STRICT_MATH_FUNCTIONS`.
        x: the first argument (the base, for ``log``), doubles or a type that widens to them.
        y: the second argument of ``log`` and ``pow``, as long as ``x``; None for the others.

    Returns:
        A float64 array as long as ``x``, null where an argument is null or Spark's result is.

    Raises:
        NativeUnsupportedError: no compiled kernel.
        ValueError: an unknown name, or arguments that do not fit it.
    """
    arity = STRICT_MATH_FUNCTIONS.get(name)
    if arity is None or (arity == 2) != (y is not None):
        raise ValueError(f"strict_math: {name} with {1 if y is None else 2} arguments is not one of {sorted(STRICT_MATH_FUNCTIONS)}")
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    first = _doubles(x)
    second = _doubles(y) if y is not None else None
    if second is not None and len(second) != len(first):
        raise ValueError(f"strict_math: {name} takes arguments of one length, not {len(first)} and {len(second)}")
    x_validity, x_values = first.buffers()
    y_validity, y_values = second.buffers() if second is not None else (None, None)
    null_count, validity, values = _native.strict_math(
        name,
        x_values, x_validity if first.null_count else None, first.offset,
        y_values, y_validity if second is not None and second.null_count else None,
        second.offset if second is not None else 0,
        len(first),
    )
    return pa.Array.from_buffers(  # type: ignore[no-any-return]
        pa.float64(), len(first), [pa.py_buffer(validity) if validity is not None else None, pa.py_buffer(values)],
        null_count,
    )
