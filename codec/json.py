"""JSON in and out of Variant bytes, exactly as Spark 4.3's ``parse_json`` and ``to_json`` do it.

Parsing follows Spark's ``VariantBuilder`` over Jackson 2.21 with its default settings, in one pass:

```
JSON text ──(Jackson's grammar and limits)──> tokens ──(VariantBuilder)──> (metadata, value)
  numbers:  1, -0             -> smallest of int8..int64
            beyond int64      -> decimal(p, 0) when p <= 38, else double
            1.50, -0.0        -> smallest decimal holding (precision, scale) when both <= 38,
                                 else double
            1e3, 1.0E-2       -> double (an exponent always means double)
  strings:  short string up to 63 UTF-8 bytes, long string past that
  objects:  field values stay in document order; the field id and offset lists are sorted by
            key in Java's String order (UTF-16 code units, not UTF-8 bytes)
  metadata: keys in order of first appearance, not sorted, sorted_strings bit clear
```

Rendering follows ``Variant.toJson``: Jackson's string escapes, ``Double.toString`` and
``Float.toString`` as Java 17 prints them (see :mod:`vpush.codec.java_format`), decimals with trailing
zeros stripped, and dates and timestamps in ISO form, quoted.
"""

from __future__ import annotations

import base64
import itertools
import math
import re
import struct
import unicodedata
import uuid
import zoneinfo
from operator import itemgetter

from vpush.codec.builder import decimal_type, encode_int
from vpush.codec.decoder import read_bytes, read_double, read_float, read_int, read_uint
from vpush.codec.errors import JsonParseError, MalformedVariantError
from vpush.codec.header import (
    MAX_DECIMAL4_PRECISION,
    MAX_DECIMAL8_PRECISION,
    MAX_DECIMAL16_PRECISION,
    MAX_SHORT_STRING_BYTES,
    U8_MAX,
    BasicType,
    PrimitiveType,
    array_header,
    int_size,
    object_header,
    primitive_header,
    short_string_header,
)
from vpush.codec.java_format import (
    format_date,
    format_java_double,
    format_java_float,
    format_time_of_day,
    format_timestamp,
    resolve_time_zone,
)
from vpush.codec.metadata import VariantMetadata, build_metadata
from vpush.codec.value import MAX_NESTING_DEPTH, Variant

MALFORMED_RECORD = "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION"
"""Spark's error class for any JSON that ``parse_json`` rejects, duplicate keys included."""
VARIANT_SIZE_LIMIT_ERROR = "VARIANT_SIZE_LIMIT"
"""Spark's error class for a value or metadata over :data:`VARIANT_SIZE_LIMIT_BYTES`."""
VARIANT_SIZE_LIMIT_BYTES = 128 * 1024 * 1024
"""Spark 4.3's ``VariantUtil.SIZE_LIMIT`` outside its own test runs (16 MiB is the test value)."""
MAX_JSON_NESTING_DEPTH = 1000
"""Jackson's default ``maxNestingDepth``: 1000 nested objects and arrays parse, 1001 do not."""
MAX_JSON_NUMBER_LENGTH = 1000
"""Jackson's default ``maxNumberLength``, in digits."""
MAX_JSON_STRING_LENGTH = 20_000_000
"""Jackson's default ``maxStringLength``, in UTF-16 code units of the decoded string."""
MAX_JSON_NAME_LENGTH = 50_000
"""Jackson's default ``maxNameLength``, in UTF-16 code units of the decoded key."""

# Jackson reads a String of up to 32768 chars from one buffer, and a longer one through a
# StringReader in 4000-char chunks; a number that runs into the end of a buffer takes its slower
# path, which counts lengths differently (see _check_number_length). Jackson recycles buffers per
# thread, so after a longer text a Spark task may read in larger chunks: this models a fresh one.
_JACKSON_WHOLE_STRING_CHARS = 32768
_JACKSON_CHUNK_CHARS = 4000
# Spark's VariantBuilder reserves this much room before writing each kind of primitive, and
# checks the size limit against the reservation, not against the bytes it writes.
_RESERVE_LONG = 9
_RESERVE_DECIMAL = 18
_RESERVE_DOUBLE = 9
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE][-+]?([0-9]+))?")
_SIMPLE_STRING = re.compile(r'"([^"\\\x00-\x1f]*)"')
_STRING_CHUNK = re.compile(r'[^"\\\x00-\x1f]*')
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SHORT_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
# Categories whose characters Java's Character.isJavaIdentifierPart accepts.
_JAVA_IDENTIFIER_CATEGORIES = frozenset(
    {"Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Nd", "Mn", "Mc", "Pc", "Sc", "Cf"}
)
_DOUBLE = struct.Struct("<d")


def _java_identifier_part(ch: str) -> bool:
    """Java's ``Character.isJavaIdentifierPart`` for one UTF-16 unit (astral chars count as a
    lone surrogate, which it rejects)."""
    code = ord(ch)
    if code > 0xFFFF:
        return False
    if 0x7F <= code <= 0x9F or code <= 0x08 or 0x0E <= code <= 0x1B:
        return True  # identifier-ignorable controls
    return unicodedata.category(ch) in _JAVA_IDENTIFIER_CATEGORIES


def _utf16_length(text: str) -> int:
    return len(text) + len(_ASTRAL.findall(text))


class _Frame:
    """An open object or array: where its data starts in the output, and its entries so far
    ((key, field_id, offset) for an object, offsets for an array)."""

    __slots__ = ("fields", "is_object", "offsets", "start")

    def __init__(self, is_object: bool, start: int) -> None:
        self.is_object = is_object
        self.start = start
        self.fields: list[tuple[str, int, int]] = []
        self.offsets: list[int] = []


class _JsonParser:
    """One ``parse_json`` call: Jackson's tokenizer feeding Spark's streaming builder.

    Like Spark, values are written as they are read and a container's header is spliced in
    front of its children when it closes, so each check (duplicate key, size limit) happens at
    the same point of the text as in Spark and raises the same error class.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.end = len(text)
        self.out = bytearray()
        self.key_ids: dict[str, int] = {}
        self.keys: list[str] = []
        self.stack: list[_Frame] = []

    # -- errors ------------------------------------------------------------------------------
    def _json_path(self) -> str:
        parts = ["$"]
        for frame in self.stack:
            if frame.is_object and frame.fields:
                parts.append(f"[{frame.fields[-1][0]!r}]")
            elif not frame.is_object and frame.offsets:
                parts.append(f"[{len(frame.offsets) - 1}]")
        return "".join(parts)

    def _error(self, message: str, pos: int) -> JsonParseError:
        return JsonParseError(message, error_class=MALFORMED_RECORD, json_path=self._json_path(), offset=pos)

    def _reserve(self, size: int) -> None:
        if len(self.out) + size > VARIANT_SIZE_LIMIT_BYTES:
            raise JsonParseError(
                f"the variant value would exceed {VARIANT_SIZE_LIMIT_BYTES} bytes",
                error_class=VARIANT_SIZE_LIMIT_ERROR,
                json_path=self._json_path(),
            )

    # -- the token loop ----------------------------------------------------------------------
    def parse(self) -> tuple[bytes, bytes]:
        text, end, stack = self.text, self.end, self.stack
        pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
        if pos >= end:
            raise self._error("no JSON value in the input", pos)
        while True:
            ch = text[pos]
            closed_now = False
            if ch == "{" or ch == "[":
                if len(stack) >= MAX_JSON_NESTING_DEPTH:
                    raise self._error(f"nesting deeper than {MAX_JSON_NESTING_DEPTH} levels", pos)
                frame = _Frame(ch == "{", len(self.out))
                stack.append(frame)
                pos = self._skip(pos + 1)
                if text[pos] == ("}" if frame.is_object else "]"):
                    pos += 1
                    self._finish(stack.pop())
                    closed_now = True
                elif frame.is_object:
                    pos = self._field_name(frame, pos)
                    continue
                else:
                    frame.offsets.append(0)
                    continue
            if not closed_now:
                if ch == '"':
                    value, pos = self._string(pos)
                    self._append_string(self._check_string(value, MAX_JSON_STRING_LENGTH, "string", pos))
                elif ch == "-" or "0" <= ch <= "9":
                    pos = self._number(pos)
                elif ch == "t" or ch == "f" or ch == "n":
                    pos = self._literal(pos)
                else:
                    raise self._error(f"unexpected character {ch!r}", pos)
            # A value ended: close every container that ends here, then find the next value.
            while True:
                if not stack:
                    # Jackson stops after the first root value: what follows is never read.
                    return build_metadata(self._checked_keys(), sort=False), bytes(self.out)
                frame = stack[-1]
                pos = self._skip(pos)
                ch = text[pos]
                if ch == ",":
                    pos = self._skip(pos + 1)
                    if frame.is_object:
                        pos = self._field_name(frame, pos)
                    else:
                        frame.offsets.append(len(self.out) - frame.start)
                    break
                if ch == ("}" if frame.is_object else "]"):
                    pos += 1
                    self._finish(stack.pop())
                    continue
                raise self._error(f"unexpected character {ch!r}, expected ',' or a closing bracket", pos)

    def _skip(self, pos: int) -> int:
        pos = _WS.match(self.text, pos).end()  # type: ignore[union-attr]
        if pos >= self.end:
            raise self._error("unexpected end of input", pos)
        return pos

    def _field_name(self, frame: _Frame, pos: int) -> int:
        if self.text[pos] != '"':
            raise self._error("expected a double-quoted field name", pos)
        key, pos = self._string(pos)
        key = self._check_string(key, MAX_JSON_NAME_LENGTH, "field name", pos)
        pos = self._skip(pos)
        if self.text[pos] != ":":
            raise self._error("expected ':' after a field name", pos)
        pos = self._skip(pos + 1)
        field_id = self.key_ids.get(key)
        if field_id is None:
            field_id = self.key_ids[key] = len(self.keys)
            self.keys.append(key)
        frame.fields.append((key, field_id, len(self.out) - frame.start))
        return pos

    # -- tokens ------------------------------------------------------------------------------
    def _string(self, pos: int) -> tuple[str, int]:
        """The decoded string whose opening quote is at ``pos``, and the position after it."""
        text = self.text
        simple = _SIMPLE_STRING.match(text, pos)
        if simple is not None:
            return simple.group(1), simple.end()
        parts: list[str] = []
        pos += 1
        while True:
            chunk = _STRING_CHUNK.match(text, pos).end()  # type: ignore[union-attr]
            parts.append(text[pos:chunk])
            pos = chunk
            if pos >= self.end:
                raise self._error("unterminated string", pos)
            ch = text[pos]
            if ch == '"':
                return "".join(parts), pos + 1
            if ch != "\\":
                raise self._error(f"unescaped control character U+{ord(ch):04X} in a string", pos)
            esc = text[pos + 1 : pos + 2]
            if esc == "u":
                digits = _HEX4.match(text, pos + 2)
                if digits is None:
                    raise self._error("expected 4 hex digits after \\u", pos)
                parts.append(chr(int(digits.group(), 16)))
                pos = digits.end()
            elif esc in _SHORT_ESCAPES:
                parts.append(_SHORT_ESCAPES[esc])
                pos += 2
            else:
                raise self._error(f"unrecognized escape {text[pos : pos + 2]!r}", pos)

    def _check_string(self, value: str, limit: int, what: str, pos: int) -> str:
        """``value`` with surrogate pairs joined, after Spark's and Jackson's checks."""
        # Spark rejects unpaired surrogates (spark.sql.variant.validateUnicodeInJsonParsing);
        # a pair written as two \u escapes is one character, as in Java's UTF-16 strings.
        if _SURROGATE.search(value) is not None:
            try:
                value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
            except UnicodeDecodeError:
                raise self._error(f"unpaired surrogate in a {what}", pos) from None
        if 2 * len(value) > limit and _utf16_length(value) > limit:
            raise self._error(f"{what} longer than {limit} UTF-16 code units", pos)
        return value

    def _number(self, pos: int) -> int:
        text = self.text
        match = _NUMBER.match(text, pos)
        if match is None:
            raise self._error("invalid number", pos)
        end = match.end()
        if not self.stack and end < self.end and text[end] not in " \t\n\r":
            # Jackson requires white space after a root-level number (and only there).
            raise self._error(f"unexpected character {text[end]!r} after a number", end)
        int_digits, fraction, exponent = match.groups()
        self._check_number_length(pos, end, len(int_digits), fraction, exponent)
        token = text[pos:end]
        if fraction is None and exponent is None:
            number = int(token)
            if _INT64_MIN <= number <= _INT64_MAX:
                self._reserve(_RESERVE_LONG)
                self.out += encode_int(number)
            elif len(int_digits) <= MAX_DECIMAL16_PRECISION:
                self._append_decimal(number, 0)
            else:
                self._append_double(float(token))
        elif exponent is None and fraction is not None:
            unscaled = int(int_digits + fraction)
            precision = len(str(unscaled))
            scale = len(fraction)
            if scale <= MAX_DECIMAL16_PRECISION and precision <= MAX_DECIMAL16_PRECISION:
                # Java's BigDecimal drops the sign of zero: "-0.0" is 0.0, scale 1.
                self._append_decimal(-unscaled if token[0] == "-" else unscaled, scale)
            else:
                self._append_double(float(token))
        else:
            self._append_double(float(token))
        return end

    def _check_number_length(
        self, start: int, end: int, int_len: int, fraction: str | None, exponent: str | None
    ) -> None:
        if fraction is None and exponent is None:
            if int_len > MAX_JSON_NUMBER_LENGTH:
                raise self._error(f"number longer than {MAX_JSON_NUMBER_LENGTH} digits", start)
            return
        # Jackson checks int + fraction + exponent digits. Its fast path counts a missing part
        # as 0; its slow path, taken when the number touches the end of its input buffer, as -1.
        if end >= self.end:
            slow = True
        elif self.end > _JACKSON_WHOLE_STRING_CHARS:
            slow = end >= (start // _JACKSON_CHUNK_CHARS + 1) * _JACKSON_CHUNK_CHARS
        else:
            slow = False
        missing = -1 if slow else 0
        length = int_len + (missing if fraction is None else len(fraction))
        length += missing if exponent is None else len(exponent)
        if length > MAX_JSON_NUMBER_LENGTH:
            raise self._error(f"number longer than {MAX_JSON_NUMBER_LENGTH} digits", start)

    def _literal(self, pos: int) -> int:
        text = self.text
        for word, ptype in (
            ("true", PrimitiveType.TRUE),
            ("false", PrimitiveType.FALSE),
            ("null", PrimitiveType.NULL),
        ):
            if text.startswith(word, pos):
                end = pos + len(word)
                if end < self.end:
                    ch = text[end]
                    # Jackson's check that the token ends: a char below '0', or a bracket, or
                    # anything that could not continue a Java identifier.
                    if ch >= "0" and ch != "]" and ch != "}" and _java_identifier_part(ch):
                        raise self._error(f"unrecognized token {text[pos : end + 1]!r}", pos)
                self._reserve(1)
                self.out.append(primitive_header(ptype))
                return end
        raise self._error(f"unrecognized token starting {text[pos : pos + 5]!r}", pos)

    # -- the builder -------------------------------------------------------------------------
    def _append_string(self, value: str) -> None:
        raw = value.encode("utf-8")
        if len(raw) > MAX_SHORT_STRING_BYTES:
            self._reserve(5 + len(raw))
            self.out.append(primitive_header(PrimitiveType.STRING))
            self.out += len(raw).to_bytes(4, "little")
        else:
            self._reserve(1 + len(raw))
            self.out.append(short_string_header(len(raw)))
        self.out += raw

    def _append_decimal(self, unscaled: int, scale: int) -> None:
        self._reserve(_RESERVE_DECIMAL)
        precision = len(str(abs(unscaled)))
        ptype, width = decimal_type(precision, scale)
        self.out.append(primitive_header(ptype))
        self.out.append(scale)
        self.out += unscaled.to_bytes(width, "little", signed=True)

    def _append_double(self, value: float) -> None:
        self._reserve(_RESERVE_DOUBLE)
        self.out.append(primitive_header(PrimitiveType.DOUBLE))
        self.out += _DOUBLE.pack(value)

    def _finish(self, frame: _Frame) -> None:
        out, start = self.out, frame.start
        data_size = len(out) - start
        if frame.is_object:
            fields = frame.fields
            if any(_ASTRAL.search(key) for key, _, _ in fields):
                fields.sort(key=lambda f: f[0].encode("utf-16-be"))  # Java's String.compareTo
            else:
                fields.sort(key=itemgetter(0))  # code points: the same order without astral chars
            for (prev, _, _), (key, _, _) in itertools.pairwise(fields):
                if prev == key:
                    raise JsonParseError(
                        f"[VARIANT_DUPLICATE_KEY] duplicate object key `{key}`",
                        error_class=MALFORMED_RECORD,
                        json_path=self._json_path(),
                    )
            size = len(fields)
            id_size = int_size(max((f[1] for f in fields), default=0))
            offset_size = int_size(data_size)
            is_large = size > U8_MAX
            self._reserve(1 + (4 if is_large else 1) + size * id_size + (size + 1) * offset_size)
            header = bytearray([object_header(is_large, id_size, offset_size)])
            header += size.to_bytes(4 if is_large else 1, "little")
            for _, field_id, _ in fields:
                header += field_id.to_bytes(id_size, "little")
            for _, _, offset in fields:
                header += offset.to_bytes(offset_size, "little")
        else:
            offsets = frame.offsets
            size = len(offsets)
            offset_size = int_size(data_size)
            is_large = size > U8_MAX
            self._reserve(1 + (4 if is_large else 1) + (size + 1) * offset_size)
            header = bytearray([array_header(is_large, offset_size)])
            header += size.to_bytes(4 if is_large else 1, "little")
            for offset in offsets:
                header += offset.to_bytes(offset_size, "little")
        header += data_size.to_bytes(offset_size, "little")
        out[start:start] = header

    def _checked_keys(self) -> list[str]:
        total = sum(len(key.encode("utf-8")) for key in self.keys)
        offset_size = int_size(max(total, len(self.keys)))
        if 1 + offset_size * (len(self.keys) + 2) + total > VARIANT_SIZE_LIMIT_BYTES:
            raise JsonParseError(
                f"the variant metadata would exceed {VARIANT_SIZE_LIMIT_BYTES} bytes",
                error_class=VARIANT_SIZE_LIMIT_ERROR,
            )
        return self.keys


def parse_json(text: str) -> tuple[bytes, bytes]:
    """Parse JSON text into Variant ``(metadata, value)`` bytes, byte for byte as Spark 4.3.

    Args:
        text: the JSON text. As in Spark, only the first value is read: anything after a root
            object, array, string or literal is ignored, but a root number must be followed by
            white space or the end.

    Returns:
        The metadata (keys in order of first appearance, unsorted) and the value.

    Raises:
        JsonParseError: text Spark rejects, with error class
            ``MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION`` (bad syntax, duplicate keys,
            unpaired surrogates, Jackson's length and depth limits), or ``VARIANT_SIZE_LIMIT``.

    Example:
        >>> meta, value = parse_json('{"b": 1.50, "a": [1, 1e2, null]}')
        >>> meta.hex(), value.hex()
        ('01020001026261', '02020100060018200296000000030300020b0c0c011c000000000000594000')
        >>> to_json(meta, value)
        '{"a":[1,100.0,null],"b":1.5}'
    """
    return _JsonParser(text).parse()


def try_parse_json(text: str) -> tuple[bytes, bytes] | None:
    """:func:`parse_json`, or None where it would raise (Spark's ``try_parse_json``).

    Example:
        >>> try_parse_json('{"a": 1, "a": 2}') is None, try_parse_json("[1]") is not None
        (True, True)
    """
    try:
        return parse_json(text)
    except JsonParseError:
        return None


# -- to_json -----------------------------------------------------------------------------------

_JSON_ESCAPE = re.compile(r'[\x00-\x1f"\\]')
_JSON_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_DECIMAL_LIMITS = {
    PrimitiveType.DECIMAL4: (4, MAX_DECIMAL4_PRECISION),
    PrimitiveType.DECIMAL8: (8, MAX_DECIMAL8_PRECISION),
    PrimitiveType.DECIMAL16: (16, MAX_DECIMAL16_PRECISION),
}
_MICROS_PER_DAY = 86_400_000_000
_INT_WIDTHS = {PrimitiveType.INT8: 1, PrimitiveType.INT16: 2, PrimitiveType.INT32: 4, PrimitiveType.INT64: 8}


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group()
    return _JSON_SHORT_ESCAPES.get(ch) or f"\\u{ord(ch):04X}"


def quote_json_string(text: str) -> str:
    """A JSON string literal as Jackson writes it: only '"', '\\\\' and control characters are
    escaped (short forms where JSON has them, else ``\\u00XX``); '/' and non-ASCII stay as is.

    Example:
        >>> print(quote_json_string('a"b\\\\c/é\\n\\x01'))
        "a\\"b\\\\c/é\\n\\u0001"
    """
    return '"' + _JSON_ESCAPE.sub(_escape_char, text) + '"'


def _plain_decimal(unscaled: int, scale: int) -> str:
    """Java's ``BigDecimal.stripTrailingZeros().toPlainString()``."""
    if unscaled == 0:
        return "0"
    sign = "-" if unscaled < 0 else ""
    digits = str(abs(unscaled))
    while scale > 0 and digits.endswith("0"):
        digits, scale = digits[:-1], scale - 1
    if scale <= 0:
        return sign + digits
    digits = digits.rjust(scale + 1, "0")
    return f"{sign}{digits[:-scale]}.{digits[-scale:]}"


def _scalar_json(node: Variant, zone: int | zoneinfo.ZoneInfo) -> str:
    basic = node.basic_type
    if basic == BasicType.SHORT_STRING:
        return quote_json_string(node.scalar())
    ptype = node.primitive_type
    buf, p = node.buf, node.pos + 1
    node.size()  # the whole payload is inside the buffer before any read
    if ptype == PrimitiveType.NULL:
        return "null"
    if ptype == PrimitiveType.TRUE:
        return "true"
    if ptype == PrimitiveType.FALSE:
        return "false"
    if ptype in _INT_WIDTHS:
        return str(read_int(buf, p, _INT_WIDTHS[ptype], ptype.name.lower()))
    if ptype == PrimitiveType.DOUBLE:
        number = read_double(buf, p)
        text = format_java_double(number)
        return text if math.isfinite(number) else f'"{text}"'
    if ptype == PrimitiveType.FLOAT:
        number = read_float(buf, p)
        text = format_java_float(number)
        return text if math.isfinite(number) else f'"{text}"'
    if ptype in _DECIMAL_LIMITS:
        width, max_precision = _DECIMAL_LIMITS[ptype]
        scale = read_uint(buf, p, 1, "decimal scale")
        unscaled = read_int(buf, p + 1, width, ptype.name.lower())
        if scale > max_precision or len(str(abs(unscaled))) > max_precision:
            # Spark's checkDecimal: MALFORMED_VARIANT.
            raise MalformedVariantError(
                f"{ptype.name.lower()} with scale {scale} and unscaled value {unscaled} is over its "
                f"precision {max_precision}",
                offset=node.pos,
            )
        return _plain_decimal(unscaled, scale)
    if ptype == PrimitiveType.DATE:
        return f'"{format_date(read_int(buf, p, 4, "date"))}"'
    if ptype == PrimitiveType.TIMESTAMP:
        return f'"{format_timestamp(read_int(buf, p, 8, "timestamp"), 1_000_000, zone)}"'
    if ptype == PrimitiveType.TIMESTAMP_NTZ:
        return f'"{format_timestamp(read_int(buf, p, 8, "timestamp_ntz"), 1_000_000, None)}"'
    # Spark 4.3 cannot read the next three types (UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT). vpush
    # renders them in Spark's style: nanosecond timestamps as the microsecond ones with up to
    # nine fraction digits, and a time of day as the time part of a timestamp.
    if ptype == PrimitiveType.TIMESTAMP_NANOS:
        return f'"{format_timestamp(read_int(buf, p, 8, "timestamp_nanos"), 1_000_000_000, zone)}"'
    if ptype == PrimitiveType.TIMESTAMP_NTZ_NANOS:
        return f'"{format_timestamp(read_int(buf, p, 8, "timestamp_ntz_nanos"), 1_000_000_000, None)}"'
    if ptype == PrimitiveType.TIME:
        micros = read_int(buf, p, 8, "time")
        if not 0 <= micros < _MICROS_PER_DAY:
            raise MalformedVariantError(f"time {micros} is not a microsecond of a day", offset=node.pos)
        seconds, fraction = divmod(micros, 1_000_000)
        return f'"{format_time_of_day(seconds, fraction * 1000)}"'
    if ptype == PrimitiveType.UUID:
        return f'"{uuid.UUID(bytes=read_bytes(buf, p, 16, "uuid"))}"'
    if ptype == PrimitiveType.BINARY:
        data = read_bytes(buf, p + 4, read_uint(buf, p, 4, "binary length"), "binary")
        return '"' + base64.b64encode(data).decode("ascii") + '"'
    return quote_json_string(node.scalar())  # a long string


def to_json(metadata: VariantMetadata | bytes, value: bytes, *, time_zone: str = "UTC") -> str:
    """Render a Variant as JSON text, exactly as Spark 4.3's ``to_json(variant)`` does.

    Objects list fields in their stored order; doubles and floats print as Java 17 does, NaN
    and infinities as quoted strings; decimals without trailing zeros; binary as base64; dates,
    timestamps (``2024-01-02 03:04:05.123456+00:00``, in ``time_zone``) and UUIDs quoted.

    Args:
        metadata: the metadata bytes or view.
        value: the value bytes.
        time_zone: the session time zone timestamps are shown in: a region such as
            ``America/Los_Angeles``, an offset such as ``+08:00``, or ``UTC``.

    Raises:
        MalformedVariantError: damaged bytes, a decimal over its precision, or nesting deeper
            than :data:`~vpush.codec.value.MAX_NESTING_DEPTH`.
        CodecError: an unknown time zone.

    Example:
        >>> to_json(*parse_json('{"k": [1.0E10, "x\\\\n", 0.50, -0.0]}'))
        '{"k":[1.0E10,"x\\\\n",0.5,0]}'
    """
    zone = resolve_time_zone(time_zone)
    out: list[str] = []
    todo: list[str | tuple[Variant, int]] = [(Variant(metadata, value), 0)]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node, depth = item
        basic = node.basic_type
        if basic == BasicType.OBJECT or basic == BasicType.ARRAY:
            if depth >= MAX_NESTING_DEPTH:
                raise MalformedVariantError(
                    f"value nested deeper than {MAX_NESTING_DEPTH} levels", offset=node.pos
                )
            if basic == BasicType.OBJECT:
                fields = list(node.items())
                todo.append("}")
                for i in range(len(fields) - 1, -1, -1):
                    name, child = fields[i]
                    todo.append((child, depth + 1))
                    todo.append(("," if i else "") + quote_json_string(name) + ":")
                out.append("{")
            else:
                elements = list(node.elements())
                todo.append("]")
                for i in range(len(elements) - 1, -1, -1):
                    todo.append((elements[i], depth + 1))
                    if i:
                        todo.append(",")
                out.append("[")
        else:
            out.append(_scalar_json(node, zone))
    return "".join(out)


__all__ = [
    "MALFORMED_RECORD",
    "MAX_JSON_NAME_LENGTH",
    "MAX_JSON_NESTING_DEPTH",
    "MAX_JSON_NUMBER_LENGTH",
    "MAX_JSON_STRING_LENGTH",
    "VARIANT_SIZE_LIMIT_BYTES",
    "VARIANT_SIZE_LIMIT_ERROR",
    "parse_json",
    "quote_json_string",
    "to_json",
    "try_parse_json",
]
