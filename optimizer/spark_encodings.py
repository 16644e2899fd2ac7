"""Spark's URL and UTF-8 functions on the DuckDB engine: ``url_encode``, ``url_decode``,
``try_url_decode``, ``is_valid_utf8``, ``make_valid_utf8``, ``validate_utf8``, ``try_validate_utf8``,
``encode`` and ``decode``.

Spark encodes and decodes URLs by ``java.net.URLEncoder`` / ``URLDecoder`` in UTF-8: a space is
``+``, only ``A-Z a-z 0-9 . - * _`` stay as they are, each other byte is ``%XX`` in upper case;
a decoded run of bytes that is not UTF-8 reads as Java's ``new String(bytes, UTF_8)`` does (U+FFFD
for each malformed sequence), and an escape that ``Integer.parseInt(s, 16)`` does not read as a
byte from 0 to 255 raises ``CANNOT_DECODE_URL``. DuckDB's own ``url_encode`` keeps ``~`` and
writes ``%20``, and its ``url_decode`` leaves a bad escape as it is. Each rewrite here gives
Spark's answer, checked against PySpark by ``tests/test_spark_functions.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from sqlglot import exp

from vpush.optimizer.dialect import sql_call as _fn
from vpush.optimizer.errors import refuse_on_duckdb as _refuse
from vpush.optimizer.spark_scalars import JAVA_DIGIT_ZEROS
from vpush.optimizer.variant_types import AtomicType, SparkType, StringType

if TYPE_CHECKING:
    TypeOf = Callable[[exp.Expr], SparkType | None]
    TextOfBytes = Callable[[exp.Expr], exp.Expr]

__all__ = ["ENCODING_FUNCTIONS", "encoding_type", "rewrite_encoding"]

_URL_FUNCTIONS = frozenset({"url_encode", "url_decode", "try_url_decode"})
_UTF8_FUNCTIONS = frozenset({"is_valid_utf8", "make_valid_utf8", "validate_utf8", "try_validate_utf8"})
_CHARSET_FUNCTIONS = frozenset({"encode", "decode"})
ENCODING_FUNCTIONS = _URL_FUNCTIONS | _UTF8_FUNCTIONS | _CHARSET_FUNCTIONS
"""The functions this module answers."""

_BINARY = AtomicType("binary")
_ESCAPE_VARIABLE = "__vpush_escape"
# Java's Character.digit(ch, 16): the decimal digits of the BMP by their values, and the
# fullwidth Latin letters A-F and a-f beside the ASCII ones
_JAVA_HEX_DIGITS = "".join(chr(z + d) for z in JAVA_DIGIT_ZEROS for d in range(10)) + "ＡＢＣＤＥＦａｂｃｄｅｆ"
_ASCII_HEX_DIGITS = "0123456789" * len(JAVA_DIGIT_ZEROS) + "ABCDEFabcdef"
# Integer.parseInt of the escape's two characters, as a byte: two hex digits, a plus sign and
# one digit, or -0 (a negative value raises)
_BYTE_ESCAPE = r"[0-9A-Fa-f]{2}|\+[0-9A-Fa-f]|-0"


def _text(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def _number(value: int) -> exp.Expression:
    return exp.Literal.number(value)


def _null(to: str) -> exp.Expression:
    return exp.cast(exp.Null(), exp.DataType.build(to))


def encoding_type(called: str, arguments: list[exp.Expr], of: TypeOf) -> SparkType | None:
    """The Spark type of a call to one of :data:`ENCODING_FUNCTIONS`, or None where vpush does not
    answer it (an argument Spark casts to a string first)."""
    if called in _CHARSET_FUNCTIONS:
        if len(arguments) != 2:
            return None
        taken = of(arguments[0])
        if not (isinstance(arguments[0], exp.Null) or (isinstance(taken, StringType) if called == "encode" else taken == _BINARY)):
            return None
        return _BINARY if called == "encode" else StringType()
    if len(arguments) != 1:
        return None
    source = of(arguments[0])
    if not (isinstance(arguments[0], exp.Null) or isinstance(source, StringType)
            or (called in _UTF8_FUNCTIONS and source == _BINARY)):
        return None
    return AtomicType("boolean") if called == "is_valid_utf8" else StringType()


def rewrite_encoding(called: str, arguments: list[exp.Expr], of: TypeOf, text_of_bytes: TextOfBytes) -> exp.Expr:
    """A call to one of :data:`ENCODING_FUNCTIONS` as DuckDB gives Spark's answer.

    Example:
        >>> from vpush.optimizer.variant_types import StringType
        >>> rewrite_encoding("url_encode", [exp.Literal.string("a b")], lambda e: StringType(), lambda b: b).sql("duckdb")
        "REPLACE(REPLACE(REPLACE(URL_ENCODE('a b'), '%20', '+'), '~', '%7E'), '%2A', '*')"

    Args:
        called: the function's lower-cased name.
        arguments: its arguments.
        of: the Spark type of an expression.
        text_of_bytes: a BLOB expression as Java's ``new String(bytes, UTF_8)`` reads it.

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for an argument other than a string (or a
            binary, for the UTF-8 functions): Spark casts it to a string first.
    """
    from vpush.optimizer.spark_semantics import spark_error

    result = encoding_type(called, arguments, of)
    if result is None and called in _CHARSET_FUNCTIONS:
        _refuse(called, "a first argument other than a " + ("string" if called == "encode" else "binary") + " (Spark's implicit casts)")
    if result is None:
        _refuse(called, "an argument other than a string" + (" or a binary" if called in _UTF8_FUNCTIONS else "")
                + " (Spark's implicit cast to a string)")
    value = arguments[0]
    if called == "encode":
        return _charset(called, value, arguments[1])
    if called == "decode":
        return _decode(value, arguments[1])
    if isinstance(value, exp.Null):
        return _null("BOOLEAN" if result == AtomicType("boolean") else "VARCHAR")
    if called == "url_encode":
        # URLEncoder keeps '*' (DuckDB: %2A), encodes '~' (DuckDB keeps it), a space is '+'
        encoded: exp.Expr = _fn("url_encode", value)
        for was, now in (("%20", "+"), ("~", "%7E"), ("%2A", "*")):
            encoded = _fn("replace", encoded, _text(was), _text(now))
        return encoded
    if called in ("url_decode", "try_url_decode"):
        return _url_decode(value, strict=called == "url_decode", text_of_bytes=text_of_bytes)
    missing = exp.Is(this=value.copy(), expression=exp.Null())
    if of(value) != _BINARY:
        # a string vpush holds is UTF-8 already (Arrow and DuckDB strings are)
        return exp.Case(ifs=[exp.If(this=missing, true=_null("BOOLEAN"))], default=exp.true()) if called == "is_valid_utf8" else value
    if called == "make_valid_utf8":
        return text_of_bytes(value)
    # DuckDB's decode checks UTF-8 as Spark's UTF8String.isValid does (no surrogates, no overlong
    # forms, nothing past U+10FFFF)
    decoded = _fn("try", _fn("decode", value.copy()))
    if called == "is_valid_utf8":
        return exp.Case(ifs=[exp.If(this=missing, true=_null("BOOLEAN"))], default=exp.Not(this=exp.Is(this=decoded, expression=exp.Null())))
    invalid = exp.Is(this=decoded.copy(), expression=exp.Null())
    if called == "validate_utf8":
        message = exp.DPipe(this=_text("Invalid UTF8 byte sequence found in string: "), expression=_fn("hex", value.copy()))
        otherwise: exp.Expression = spark_error("INVALID_UTF8_STRING", message, exp.DataType.build("VARCHAR"))
    else:
        otherwise = _null("VARCHAR")
    return exp.Case(ifs=[exp.If(this=missing, true=_null("VARCHAR")), exp.If(this=invalid, true=otherwise)], default=decoded)


def _url_decode(value: exp.Expr, *, strict: bool, text_of_bytes: TextOfBytes) -> exp.Expr:
    """``URLDecoder.decode(value, UTF_8)``: the text split at each ``%``; each later part starts
    with its escape's two characters, whose bytes, with the literal text between them (``+`` a
    space), are read as UTF-8 by Java's decoder. A part shorter than two characters or an escape
    that is not a byte raises ``CANNOT_DECODE_URL`` (NULL for ``try_url_decode``)."""
    from vpush.optimizer.spark_semantics import spark_error

    parts = _fn("string_split", value.copy(), _text("%"))
    part = exp.column(exp.to_identifier(_ESCAPE_VARIABLE))

    def over(body: exp.Expr) -> exp.Lambda:
        return exp.Lambda(this=body, expressions=[exp.to_identifier(_ESCAPE_VARIABLE)])

    # each part after a '%' with its escape's Java digits as ASCII ones
    ascii_escape = _fn("translate", _fn("left", part.copy(), _number(2)), _text(_JAVA_HEX_DIGITS), _text(_ASCII_HEX_DIGITS))
    escaped = _fn("list_transform", _fn("list_slice", parts, _number(2), _fn("len", parts.copy())),
                  over(exp.DPipe(this=ascii_escape, expression=_fn("substring", part.copy(), _number(3)))))
    escape = _fn("left", part.copy(), _number(2))
    bad = exp.Not(this=exp.Paren(this=exp.And(
        this=exp.GTE(this=_fn("length", part.copy()), expression=_number(2)),
        expression=_fn("regexp_full_match", escape.copy(), _text(_BYTE_ESCAPE)))))
    any_bad = exp.GT(this=_fn("len", _fn("list_filter", escaped.copy(), over(bad))), expression=_number(0))

    def literal(text: exp.Expr) -> exp.Expr:
        # the literal text's UTF-8 as DuckDB prints a BLOB (other than printable ASCII as \xHH,
        # a backslash too), which the cast back to a BLOB reads exactly
        return exp.cast(_fn("encode", _fn("replace", text, _text("+"), _text(" "))), exp.DataType.build("VARCHAR"))

    byte = exp.Case(
        ifs=[exp.If(this=exp.EQ(this=_fn("left", part.copy(), _number(1)), expression=_text("+")),
                    true=exp.DPipe(this=_text("0"), expression=_fn("substring", part.copy(), _number(2), _number(1)))),
             exp.If(this=exp.EQ(this=escape.copy(), expression=_text("-0")), true=_text("00"))],
        default=escape.copy(),
    )
    piece = exp.DPipe(this=exp.DPipe(this=_text("\\x"), expression=byte), expression=literal(_fn("substring", part.copy(), _number(3))))
    first = exp.Coalesce(this=_fn("list_extract", parts.copy(), _number(1)), expressions=[_text("")])
    joined = exp.DPipe(this=literal(first), expression=_fn("array_to_string", _fn("list_transform", escaped.copy(), over(piece)), _text("")))
    # try: DuckDB may fold the branch of a bad escape too, whose cast would fail
    blob = _fn("try", exp.cast(joined, exp.DataType.build("BLOB")))
    decoded = text_of_bytes(blob)
    if strict:
        message = exp.DPipe(this=exp.DPipe(this=_text("The provided URL cannot be decoded: "), expression=value.copy()),
                            expression=_text(". Please ensure that the URL is properly formatted and try again."))
        failed: exp.Expression = spark_error("CANNOT_DECODE_URL", message, exp.DataType.build("VARCHAR"))
    else:
        failed = _null("VARCHAR")
    return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=_null("VARCHAR")),
                         exp.If(this=any_bad, true=failed)], default=decoded)


# the charsets Spark 4.3's encode and decode take (CharsetProvider, legacy charsets off), by their
# lower-cased names
_SPARK_CHARSETS = ("us-ascii", "iso-8859-1", "utf-8", "utf-16be", "utf-16le", "utf-16", "utf-32")


def _charset_name(called: str, charset: exp.Expr) -> str:
    """The lower-cased name of a literal charset Spark takes; INVALID_PARAMETER_VALUE.CHARSET for
    another, refused where not a literal."""
    from vpush.optimizer.errors import OptimizeError

    if not (isinstance(charset, exp.Literal) and charset.is_string):
        _refuse(called, "a charset that is not a literal")
    name = charset.name.lower()
    if name not in _SPARK_CHARSETS:
        raise OptimizeError(
            f"The value of parameter(s) `charset` in `{called}` is invalid: expects one of "
            f"the {', '.join(sorted(_SPARK_CHARSETS))}, but got {charset.name}.",
            error_class="INVALID_PARAMETER_VALUE.CHARSET",
        )
    return name


def _decode(value: exp.Expr, charset: exp.Expr) -> exp.Expr:
    """Spark's ``decode(binary, charset)`` in UTF-8, US-ASCII and ISO-8859-1: bytes the charset
    does not map (malformed UTF-8, as DuckDB's decode checks it; a byte past 0x7F in US-ASCII)
    raise ``MALFORMED_CHARACTER_CODING`` (Spark 4 reports them rather than write U+FFFD); each
    ISO-8859-1 byte is the code point of its value. UTF-16 and UTF-32 are refused."""
    from vpush.optimizer.spark_semantics import spark_error

    if isinstance(charset, exp.Null) or isinstance(value, exp.Null):
        return _null("VARCHAR")
    name = _charset_name("decode", charset)
    missing = exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=_null("VARCHAR"))
    if name == "iso-8859-1":
        at = exp.column(exp.to_identifier(_ESCAPE_VARIABLE))
        digits = _fn("substring", _fn("hex", value.copy()), exp.Add(this=exp.Mul(this=at.copy(), expression=_number(2)), expression=_number(1)),
                     _number(2))
        byte = _fn("chr", exp.cast(exp.DPipe(this=_text("0x"), expression=digits), exp.DataType.build("INT")))
        chars = _fn("list_transform", _fn("range", _number(0), _fn("octet_length", value.copy())),
                    exp.Lambda(this=byte, expressions=[exp.to_identifier(_ESCAPE_VARIABLE)]))
        return exp.Case(ifs=[missing], default=_fn("array_to_string", chars, _text("")))
    if name not in ("utf-8", "us-ascii"):
        _refuse("decode", f"the charset {charset.name} (UTF-8, US-ASCII and ISO-8859-1 are answered)")
    decoded = _fn("try", _fn("decode", value.copy()))
    bad: exp.Expr = exp.Is(this=decoded.copy(), expression=exp.Null())
    if name == "us-ascii":
        bad = exp.Or(this=bad, expression=_fn("regexp_matches", _fn("hex", value.copy()), _text("^(..)*[89A-F]")))
    raised = spark_error("MALFORMED_CHARACTER_CODING", f"Invalid value found when performing `decode` with {charset.name.upper()}",
                         exp.DataType.build("VARCHAR"))
    return exp.Case(ifs=[missing, exp.If(this=bad, true=raised)], default=decoded)


def _charset(called: str, value: exp.Expr, charset: exp.Expr) -> exp.Expr:
    """Spark's ``encode(string, charset)``: the string's code points in the charset (UTF-16 with
    its big-endian byte order mark, none for an empty string; UTF-32 big-endian), a code point
    the charset cannot hold raising ``MALFORMED_CHARACTER_CODING`` (Spark 4 reports it rather
    than write '?'). A charset Spark does not know raises ``INVALID_PARAMETER_VALUE.CHARSET``."""
    from vpush.optimizer.spark_semantics import spark_error

    if isinstance(charset, exp.Null) or isinstance(value, exp.Null):
        return _null("BLOB")
    name = _charset_name(called, charset)
    if name == "utf-8":
        return _fn("encode", value)  # a string vpush holds is UTF-8 already
    point = exp.column(exp.to_identifier(_ESCAPE_VARIABLE))
    points = _fn("list_transform", _fn("string_split", value.copy(), _text("")),
                 exp.Lambda(this=_fn("unicode", point.copy()), expressions=[exp.to_identifier(_ESCAPE_VARIABLE)]))
    limit = {"us-ascii": 0x7F, "iso-8859-1": 0xFF}.get(name)
    if name == "us-ascii":
        encoded: exp.Expr = _fn("encode", value.copy())
    else:
        encoded = _fn("unhex", _fn("array_to_string", _fn("list_transform", points.copy(), exp.Lambda(
            this=_hex_of_point(name, point), expressions=[exp.to_identifier(_ESCAPE_VARIABLE)])), _text("")))
        if name == "utf-16":
            # Java's UTF-16 encoder writes its byte order mark before the first character
            mark = exp.If(this=exp.EQ(this=value.copy(), expression=_text("")), true=_text(""))
            encoded = _fn("unhex", exp.DPipe(this=exp.Case(ifs=[mark], default=_text("FEFF")),
                                             expression=_fn("hex", encoded)))
    if limit is None:
        return encoded
    unmappable = exp.GT(this=exp.Coalesce(this=_fn("list_max", points), expressions=[_number(0)]), expression=_number(limit))
    raised = spark_error("MALFORMED_CHARACTER_CODING", f"Invalid value found when performing `encode` with {charset.name.upper()}",
                         exp.DataType.build("BLOB"))
    return exp.Case(ifs=[exp.If(this=unmappable, true=raised)], default=encoded)


def _hex_of_point(charset: str, point: exp.Expr) -> exp.Expr:
    """The hex digits of one code point's bytes in ``charset``."""
    def printed(form: str, *parts: exp.Expr) -> exp.Expr:
        return _fn("printf", _text(form), *parts)

    if charset == "iso-8859-1":
        return printed("%02X", point.copy())
    if charset == "utf-32":
        return printed("%08X", point.copy())
    # UTF-16: the code point, or its two surrogates past U+FFFF
    above = exp.Paren(this=exp.Sub(this=point.copy(), expression=_number(0x10000)))
    high = exp.Add(this=_number(0xD800), expression=exp.Paren(this=exp.BitwiseRightShift(this=above.copy(), expression=_number(10))))
    low = exp.Add(this=_number(0xDC00), expression=exp.Paren(this=exp.BitwiseAnd(this=above.copy(), expression=_number(0x3FF))))

    def unit(u: exp.Expr) -> exp.Expr:
        if charset == "utf-16le":
            return printed("%02X%02X", exp.BitwiseAnd(this=exp.Paren(this=u.copy()), expression=_number(255)),
                           exp.BitwiseRightShift(this=exp.Paren(this=u.copy()), expression=_number(8)))
        return printed("%04X", u)

    wide = exp.GTE(this=point.copy(), expression=_number(0x10000))
    return exp.Case(ifs=[exp.If(this=wide, true=exp.DPipe(this=unit(high), expression=unit(low)))], default=unit(point.copy()))
