"""Spark's number format strings (``to_number``, ``try_to_number``, ``to_char`` of a number) over
Arrow arrays, by the compiled kernel.

Spark upper-cases the format, reads it into tokens (``ToNumberParser.formatTokens``) and checks
them before it runs anything (``INVALID_FORMAT.*``); :func:`number_format` does both. The result
of ``to_number`` is a ``decimal(p, s)`` of the format's digits (``p``) and of those after its
point (``s``). ``codec/spark_number_format.c`` reads and prints each row.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import lru_cache

import pyarrow as pa

from vpush.codec.errors import CodecError
from vpush.codec.native import NativeUnsupportedError, _native

__all__ = ["NumberFormat", "format_numbers", "number_format", "parse_numbers"]

MAX_FORMAT_CHARS = 1000
"""The longest format vpush reads (a digit group's sizes are counted in a fixed buffer)."""

# token kinds, numbered as codec/spark_number_format.h numbers them
_EXACT, _AT_MOST, _SEPARATOR, _GROUP_END, _POINT, _DOLLAR, _SIGN, _MINUS, _OPEN, _CLOSE = range(1, 11)
_DIGITS = (_EXACT, _AT_MOST)
# Spark's names of the tokens in its messages
_SHOWN = {_POINT: ". or D", _DOLLAR: "$", _SIGN: "S", _MINUS: "MI", _OPEN: "PR", _CLOSE: "PR"}
_ORDER = (
    "the structure of the format string must match: `[MI|S]` `[$]` `[0|9|G|,]*` `[.|D]` `[0|9]*` `[$]` `[PR|MI|S]`."
)

Token = tuple[int, ...]
"""A token: (kind,), (kind, count) for digits, or (0, code point) for a character Spark does not know."""
Grouped = list["Token | list[Token]"]
"""The tokens with each digit group (its digit and separator tokens in the format's order) a list."""


@dataclass(frozen=True)
class NumberFormat:
    """A checked number format.

    Attributes:
        tokens: the int32 (kind, count) pairs the kernel reads.
        precision: the format's digits, the precision of ``to_number``'s decimal.
        scale: its digits after the point.
        room: the most bytes one row's answer (or the kernel's scratch for it) takes.
    """

    tokens: bytes
    precision: int
    scale: int
    room: int


def _invalid(subclass: str, message: str) -> CodecError:
    return CodecError(f"The format is invalid: {message}", error_class=f"INVALID_FORMAT.{subclass}")


def _read_tokens(text: str) -> Grouped:
    """ToNumberParser.formatTokens: single tokens as (kind,) tuples, digit groups as lists."""
    tokens: list[Token] = []
    point = False
    i = 0
    while i < len(text):
        char = text[i]
        if char in "09":
            start = i
            i += 1
            while i < len(text) and text[i] in "09":
                i += 1
            tokens.append((_EXACT if char == "0" and not point else _AT_MOST, i - start))
            continue
        if char in ".D":
            tokens.append((_POINT,))
            point = True
        elif char in ",G":
            tokens.append((_SEPARATOR,))
        elif char == "$":
            tokens.append((_DOLLAR,))
        elif char == "S":
            tokens.append((_SIGN,))
        elif text.startswith("MI", i):
            tokens.append((_MINUS,))
            i += 1
        elif text.startswith("PR", i):
            tokens.insert(0, (_OPEN,))
            tokens.append((_CLOSE,))
            i += 1
        else:
            tokens.append((0, ord(char)))
        i += 1
    grouped: Grouped = []
    group: list[Token] = []
    for token in tokens:
        if token[0] in (*_DIGITS, _SEPARATOR):
            group.append(token)
            continue
        if group:
            grouped.append(group)
            group = []
        grouped.append(token)
    if group:
        grouped.append(group)
    return grouped


def _check(text: str, shown: str, grouped: Grouped) -> None:
    """ToNumberParser.checkInputDataTypes: Spark's INVALID_FORMAT errors, in its order."""
    quoted = "'" + shown.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if not text:
        raise _invalid("EMPTY", f"{quoted}. The number format string cannot be empty.")
    groups = [i for i, t in enumerate(grouped) if isinstance(t, list)]
    if not groups:
        raise _invalid("WRONG_NUM_DIGIT", f"{quoted}. The format string requires at least one number digit.")
    kinds = [t[0] if isinstance(t, tuple) else None for t in grouped]
    dollar = kinds.index(_DOLLAR) if _DOLLAR in kinds else -1
    point = kinds.index(_POINT) if _POINT in kinds else -1
    if groups[0] < dollar:
        raise _invalid("CUR_MUST_BEFORE_DIGIT", f"{quoted}. Currency characters must appear before digits in the number format.")
    if point != -1 and point < dollar:
        raise _invalid("CUR_MUST_BEFORE_DEC", f"{quoted}. Currency characters must appear before any decimal point in the number format.")
    for i in groups:
        group = grouped[i]
        assert isinstance(group, list)
        separators = [j for j, t in enumerate(group) if t[0] == _SEPARATOR]
        if point == -1 or i < point:
            if any(j in (0, len(group) - 1) or group[j - 1][0] == _SEPARATOR or group[j + 1][0] == _SEPARATOR for j in separators):
                raise _invalid("CONT_THOUSANDS_SEPS", f"{quoted}. Thousands separators (, or G) must have digits in between them in the number format.")
    for i in groups:
        group = grouped[i]
        assert isinstance(group, list)
        if point != -1 and i > point and any(t[0] == _SEPARATOR for t in group):
            raise _invalid("THOUSANDS_SEPS_MUST_BEFORE_DEC", f"{quoted}. Thousands separators (, or G) may not appear after the decimal point in the number format.")
    for kind in (_POINT, _SIGN, _MINUS, _DOLLAR, _CLOSE):
        if kinds.count(kind) > 1:
            raise _invalid("WRONG_NUM_TOKEN", f"{quoted}. At most one {_SHOWN[kind]} is allowed in the number format.")
    allowed: tuple[tuple[int | None, ...], ...] = (
        (_OPEN,), (_MINUS, _SIGN), (_DOLLAR,), (None,), (_POINT,), (None,), (_DOLLAR,), (_MINUS, _SIGN, _CLOSE),
    )
    at = 0
    for kinds_allowed in allowed:
        if at < len(kinds) and kinds[at] in kinds_allowed:
            at += 1
    if at < len(grouped):
        token = grouped[at]
        if isinstance(token, list):
            name = "digit sequence"
        elif token[0] == 0:
            name = f"character '{chr(token[1])}''"
        else:
            name = _SHOWN[token[0]]
        raise _invalid("UNEXPECTED_TOKEN", f"{quoted}. Found the unexpected {name} in the format string; {_ORDER}")


@lru_cache(maxsize=256)
def number_format(format: str) -> NumberFormat:
    """The format Spark reads from ``format`` (upper-cased), checked as Spark checks it.

    Example:
        >>> f = number_format("S9,999.99")
        >>> (f.precision, f.scale)
        (6, 2)
        >>> number_format("9$9")
        Traceback (most recent call last):
        ...
        vpush.codec.errors.CodecError: [INVALID_FORMAT.CUR_MUST_BEFORE_DIGIT] The format is invalid: '9$9'. ...

    Raises:
        CodecError: Spark's ``INVALID_FORMAT.*`` error for a format it rejects; ``VPUSH_UNSUPPORTED_FUNCTION``
            for a format of over :data:`MAX_FORMAT_CHARS` characters.
    """
    if len(format) > MAX_FORMAT_CHARS:
        raise CodecError(f"a number format of over {MAX_FORMAT_CHARS} characters", error_class="VPUSH_UNSUPPORTED_FUNCTION")
    text = format.upper()
    grouped = _read_tokens(text)
    _check(text, text, grouped)
    pairs: list[int] = []
    precision = scale = 0
    point = False
    for token in grouped:
        if isinstance(token, list):
            for kind, *count in token:
                pairs += [kind, count[0] if count else 0]
                if kind in _DIGITS:
                    precision += count[0]
                    scale += count[0] if point else 0
            pairs += [_GROUP_END, 0]
        else:
            assert isinstance(token, tuple)
            pairs += [token[0], 0]
            point = point or token[0] == _POINT
    # a format character prints at most one character (PR's two at most three), and reading
    # gathers the digits behind the answer
    return NumberFormat(struct.pack(f"<{len(pairs)}i", *pairs), precision, scale, 3 * precision + 2 * len(text) + 4)


def _run(texts: pa.Array | pa.ChunkedArray, fmt: NumberFormat, *, parse: bool, mismatch_null: bool,
         first: int, second: int) -> tuple[pa.Array, int, pa.Array]:
    if _native is None:
        raise NativeUnsupportedError("the compiled kernel vpush.codec._native is not built")
    text = texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts
    if pa.types.is_string_view(text.type):
        text = text.cast(pa.large_string())
    width = 8 if pa.types.is_large_string(text.type) else 4
    validity, offsets, data = text.buffers()[:3]
    mismatch, out_validity, out_offsets, out_data = _native.spark_number_format(
        parse, fmt.tokens, first, second, fmt.room, mismatch_null, offsets, data if data is not None else b"",
        validity if text.null_count else None, text.offset, width, len(text),
    )
    if mismatch >= 0:
        return text, mismatch, text
    result = pa.Array.from_buffers(
        pa.string(), len(text),
        [pa.py_buffer(out_validity) if out_validity is not None else None, pa.py_buffer(out_offsets), pa.py_buffer(out_data)],
    )
    return text, -1, result


def parse_numbers(texts: pa.Array | pa.ChunkedArray, format: str, *, mismatch_null: bool) -> pa.Array:
    """Spark's ``to_number`` (``try_to_number`` with ``mismatch_null``) of every row, as plain
    decimal text with the format's scale (what a cast to its ``decimal(p, s)`` reads).

    Example:
        >>> parse_numbers(pa.array(["-1,234.5", "<12>", None]), "S9,999.99PR", mismatch_null=True).to_pylist()
        ['-1234.50', '-12.00', None]
        >>> parse_numbers(pa.array(["12x"]), "99", mismatch_null=True).to_pylist()
        [None]

    Raises:
        CodecError: ``INVALID_FORMAT.MISMATCH_INPUT`` for a row the format does not match (without
            ``mismatch_null``), and the errors of :func:`number_format`.
        NativeUnsupportedError: no compiled kernel.
    """
    fmt = number_format(format)
    text, mismatch, result = _run(texts, fmt, parse=True, mismatch_null=mismatch_null, first=fmt.scale, second=0)
    if mismatch >= 0:
        raise CodecError(
            f'The format is invalid: {format}. The input "STRING" {text[mismatch].as_py()} does not match the format.',
            error_class="INVALID_FORMAT.MISMATCH_INPUT",
        )
    return result


def format_numbers(texts: pa.Array | pa.ChunkedArray, format: str) -> pa.Array:
    """Spark's ``to_char`` of every row: each a decimal as plain text (``-12.50``), printed by the format.

    Example:
        >>> format_numbers(pa.array(["-12.50", "1234567", "0.5", None]), "S9,999.99").to_pylist()
        ['   -12.50', '+# ###.##', '     +.50', None]
    """
    fmt = number_format(format)
    before = fmt.precision - fmt.scale
    return _run(texts, fmt, parse=False, mismatch_null=True, first=before, second=fmt.scale)[2]
