"""More of Spark's everyday scalar functions on the DuckDB engine: strings, bits, ``try_`` arithmetic.

DuckDB has no ``initcap``, ``substring_index``, ``shiftrightunsigned`` or ``try_add``, and its
functions of the same name as Spark's answer differently at the edges: its ``chr`` takes any
code point (Spark's takes the code modulo 256, and gives ``''`` below 0), its ``<<`` raises on a
negative number or a shift past the width (Java wraps), its ``unhex`` raises for a character
that is not hexadecimal (Spark: NULL). Each rewrite here gives Spark's answer, checked against
PySpark by ``tests/test_spark_functions.py``; a form it cannot answer exactly is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from sqlglot import exp

from vpush.optimizer.dialect import ShiftRightUnsigned, sql_call as _fn
from vpush.optimizer.errors import OptimizeError, refuse_on_duckdb as _refuse
from vpush.optimizer.java_regex import Re2Pattern, re2_pattern
from vpush.optimizer.spark_math import INTEGER_WIDTHS, MATH_FUNCTIONS, math_type, rewrite_math
from vpush.optimizer.variant_types import ArrayType, AtomicType, DecimalType, SparkType, StringType

if TYPE_CHECKING:
    TypeOf = Callable[[exp.Expr], SparkType | None]

__all__ = ["JAVA_DIGIT_ZEROS", "SCALAR_FUNCTIONS", "node_arguments", "rewrite_scalar", "scalar_type"]

SCALAR_FUNCTIONS = frozenset({
    "initcap", "substring_index", "octet_length", "chr", "char", "btrim", "typeof", "unhex", "shiftleft",
    "shiftright", "shiftrightunsigned", "try_add", "try_subtract", "try_multiply", "try_divide", "bround",
    "next_day", "locate", "make_date", "regexp_count", "regexp_extract_all", "regexp_substr", "regexp_instr",
    "elt", "unbase64", "to_binary", "try_to_binary", "soundex", "overlay", "format_number", "mask",
    "format_string", "printf", "isnan", "luhn_check", "find_in_set", "try_mod",
}) | MATH_FUNCTIONS
"""The functions this module answers (``locate`` only in its three-argument form), and those of
:mod:`vpush.optimizer.spark_math`."""

_INT = AtomicType("int")
_BIGINT = AtomicType("bigint")
_DOUBLE = AtomicType("double")
_NARROW = ("tinyint", "smallint", "int")
_TRY_OPERATORS: dict[str, type[exp.Binary]] = {"try_add": exp.Add, "try_subtract": exp.Sub, "try_multiply": exp.Mul}
# Spark's day names (DateTimeUtils.getDayOfWeekFromString), as ISO days of the week (Monday 1)
_DAYS = {
    **dict.fromkeys(("MO", "MON", "MONDAY"), 1), **dict.fromkeys(("TU", "TUE", "TUESDAY"), 2),
    **dict.fromkeys(("WE", "WED", "WEDNESDAY"), 3), **dict.fromkeys(("TH", "THU", "THURSDAY"), 4),
    **dict.fromkeys(("FR", "FRI", "FRIDAY"), 5), **dict.fromkeys(("SA", "SAT", "SATURDAY"), 6),
    **dict.fromkeys(("SU", "SUN", "SUNDAY"), 7),
}
# Java's title case where it is not the upper case DuckDB gives: the Latin digraphs
_UPPER_NOT_TITLE = ("ǄǇǊǱ", "ǅǈǋǲ")


# The arguments of the calls sqlglot parses into nodes of their own without tracing them
_NODE_ARGUMENTS: dict[type[exp.Expr], tuple[str, ...]] = {
    exp.Initcap: ("this",), exp.Unhex: ("this",), exp.FromBase64: ("this",), exp.ToBinary: ("this", "format"), exp.Typeof: ("this",), exp.NextDay: ("this", "expression"),
    exp.BitwiseLeftShift: ("this", "expression"), exp.BitwiseRightShift: ("this", "expression"),
    ShiftRightUnsigned: ("this", "expression"),
    exp.SafeAdd: ("this", "expression"), exp.SafeSubtract: ("this", "expression"),
    exp.SafeMultiply: ("this", "expression"), exp.SafeDivide: ("this", "expression"), exp.Soundex: ("this",),
    exp.Overlay: ("this", "expression", "from_", "for_"),
}


def node_arguments(node: exp.Expr) -> list[exp.Expr] | None:
    """The arguments of a call to one of :data:`SCALAR_FUNCTIONS` that sqlglot parsed into a node
    of its own (``chr``, ``initcap``, ``shiftleft``, ``try_add``, ...), in Spark's order; None for
    another node."""
    if isinstance(node, exp.Chr):
        return list(node.expressions)
    keys = _NODE_ARGUMENTS.get(type(node))
    if keys is None:
        return None
    return [a for a in (node.args.get(k) for k in keys) if isinstance(a, exp.Expr)]


def _typed(name: str) -> exp.DataType:
    return exp.DataType.build(name)


def _null(to: str) -> exp.Expression:
    return exp.cast(exp.Null(), _typed(to))


def _any_null(*parts: exp.Expr) -> exp.Expression:
    test: exp.Expression = exp.Is(this=parts[0].copy(), expression=exp.Null())
    for part in parts[1:]:
        test = exp.Or(this=test, expression=exp.Is(this=part.copy(), expression=exp.Null()))
    return test


def _number(value: int | str) -> exp.Expression:
    return exp.Literal.number(value)


def _integral_name(t: SparkType | None) -> str | None:
    return t.name if isinstance(t, AtomicType) and t.name in INTEGER_WIDTHS else None


def scalar_type(called: str, arguments: list[exp.Expr], of: TypeOf) -> SparkType | None:
    """The Spark type of a call to one of :data:`SCALAR_FUNCTIONS`, or None where vpush does not
    know it (the call is then refused by :func:`rewrite_scalar`)."""
    if called in MATH_FUNCTIONS:
        return math_type(called, arguments, of)
    types = [of(a) for a in arguments]
    if called == "overlay" and len(arguments) in (3, 4):
        plain = all(isinstance(t, StringType) or isinstance(a, exp.Null) for a, t in zip(arguments[:2], types[:2])) and all(
            _integral_name(t) in _NARROW or isinstance(a, exp.Null) for a, t in zip(arguments[2:], types[2:])
        )
        return StringType() if plain else None
    if called in ("initcap", "substring_index", "chr", "char", "btrim", "typeof", "soundex", "format_number"):
        return StringType()
    if called in ("format_string", "printf"):
        return StringType()
    if called == "isnan":
        numeric = isinstance(types[0], DecimalType) or _integral_name(types[0]) is not None or types[0] in (_DOUBLE, AtomicType("float"))
        return AtomicType("boolean") if numeric or isinstance(arguments[0], exp.Null) else None
    if called == "luhn_check":
        return AtomicType("boolean") if isinstance(types[0], StringType) or isinstance(arguments[0], exp.Null) else None
    if called == "find_in_set":
        return _INT if all(isinstance(t, StringType) or isinstance(a, exp.Null) for a, t in zip(arguments, types)) else None
    if called == "mask":
        plain = all(isinstance(t, StringType) or isinstance(a, exp.Null) for a, t in zip(arguments, types))
        return StringType() if plain else None
    if called in ("octet_length", "locate", "regexp_count", "regexp_instr"):
        return _INT
    if called == "regexp_substr":
        return StringType()
    if called == "regexp_extract_all":
        return ArrayType(StringType())
    if called == "elt" and len(arguments) > 1 and _integral_name(types[0]) in (*_NARROW, "bigint"):
        # Spark casts the inputs to strings: taken here for strings and integers, whose text is DuckDB's too
        plain = all(isinstance(a, exp.Null) or isinstance(t, StringType) or _integral_name(t) is not None
                    for a, t in zip(arguments[1:], types[1:]))
        return StringType() if plain else None
    if called in ("unhex", "unbase64", "to_binary", "try_to_binary"):
        return AtomicType("binary")
    if called in ("next_day", "make_date"):
        return AtomicType("date")
    if called in ("shiftleft", "shiftright", "shiftrightunsigned") and types:
        name = _integral_name(types[0])
        return None if name is None else (_BIGINT if name == "bigint" else _INT)
    if (called in _TRY_OPERATORS or called == "try_mod") and len(types) == 2:
        names = [_integral_name(t) for t in types]
        widths = [n for n in names if n is not None]
        if len(widths) == 2:
            return AtomicType(max(widths, key=lambda n: INTEGER_WIDTHS[n]))
        if all(n is not None or t in (_DOUBLE, AtomicType("float")) for n, t in zip(names, types)):
            return AtomicType("float") if all(t == AtomicType("float") for t in types) else _DOUBLE
        return None
    if called == "try_divide" and len(types) == 2:
        if all(_integral_name(t) is not None or t in (_DOUBLE, AtomicType("float")) for t in types):
            return _DOUBLE
        return None
    if called == "bround" and types:
        source = types[0]
        if source in (_DOUBLE, AtomicType("float")):
            return source
        places = _literal_int(arguments[1]) if len(arguments) > 1 else 0
        if isinstance(source, DecimalType) and places is not None and places >= 0:
            scale = min(places, source.scale)
            return DecimalType(min(source.precision - source.scale + 1 + scale, 38), scale)
        return None
    return None


# Spark's soundex codes (UTF8String.US_ENGLISH_MAPPING) of A..Z, H and W (Spark's '7': letters that
# change nothing) left out: they are dropped before the letters are coded
_SOUNDEX_LETTERS = "ABCDEFGIJKLMNOPQRSTUVXYZ"
_SOUNDEX_CODES = "012301202245501262301202"


def _soundex(value: exp.Expr) -> exp.Expression:
    """Spark's ``soundex`` (``UTF8String.soundex``, byte by byte over ASCII letters): ``''`` for
    ``''``, the string itself unless it starts with an ASCII letter, else that letter in upper
    case and the next three codes, each a code not 0 that differs from the code before it (a
    character that is no letter resets the code before to 0; H and W leave it), padded with 0.

    The codes are found without a loop: the characters that are no ASCII letter become 0, H and
    W go, the letters become their codes, the first letter's code is put in front, each run of
    one code becomes one (a run in Spark's loop emits at most once), and after the first
    character (the first letter's run) the zeros go."""
    rest = _fn("substring", value.copy(), _number(2))
    coded: exp.Expression = _fn("regexp_replace", rest, exp.Literal.string("[^A-Za-z]"), exp.Literal.string("0"), exp.Literal.string("g"))
    coded = _fn("regexp_replace", coded, exp.Literal.string("[HWhw]"), exp.Literal.string(""), exp.Literal.string("g"))
    codes = exp.Literal.string(_SOUNDEX_CODES * 2)
    coded = _fn("translate", coded, exp.Literal.string(_SOUNDEX_LETTERS + _SOUNDEX_LETTERS.lower()), codes)
    first = _fn("upper", _fn("substring", value.copy(), _number(1), _number(1)))
    first_code = _fn("translate", first.copy(), exp.Literal.string(_SOUNDEX_LETTERS + "HW"), exp.Literal.string(_SOUNDEX_CODES + "77"))
    runs: exp.Expression = exp.DPipe(this=first_code, expression=coded, safe=True)
    for digit in "123456":
        runs = _fn("regexp_replace", runs, exp.Literal.string(f"{digit}+"), exp.Literal.string(digit), exp.Literal.string("g"))
    after = _fn("replace", _fn("substring", runs, _number(2)), exp.Literal.string("0"), exp.Literal.string(""))
    code = exp.DPipe(this=first, expression=_fn("rpad", _fn("left", after, _number(3)), _number(3), exp.Literal.string("0")), safe=True)
    starts_with_letter = _fn("regexp_matches", value.copy(), exp.Literal.string("^[A-Za-z]"))
    return exp.Case(
        ifs=[exp.If(this=exp.Not(this=starts_with_letter), true=value.copy())],
        default=code,
    )


def _format_number(arguments: list[exp.Expr], of: TypeOf) -> exp.Expression:
    """Spark's ``format_number(x, d)`` of an integer or a decimal with a literal ``d``: Java's
    ``DecimalFormat`` of ``#,###,##0.00...`` (``d`` zeros), which rounds half to even, groups by
    threes and keeps the minus sign of a negative number that rounds to zero; NULL for a
    negative ``d``. Doubles and floats (DecimalFormat rounds their exact binary value) and a
    pattern string are refused."""
    value, places = arguments
    source = of(value)
    count = _literal_int(places)
    if not (_integral_name(source) is not None or isinstance(source, DecimalType)) or (count is None and not isinstance(places, exp.Null)):
        _refuse("format_number", "an argument other than an integer or a decimal, or places that are not an int literal")
    if count is None or count < 0:
        return _null("VARCHAR")
    whole: exp.Expression
    digits: exp.Expression
    if isinstance(source, DecimalType):
        rounded = _fn("abs", _fn("round_even", value.copy(), _number(count)))
        whole = exp.cast(_fn("trunc", rounded.copy()), _typed("HUGEINT"))
        digits = _fn("split_part", exp.cast(rounded, _typed("VARCHAR")), exp.Literal.string("."), _number(2))
    else:
        whole = _fn("abs", exp.cast(value.copy(), _typed("HUGEINT")))
        digits = exp.Literal.string("")
    text: exp.Expression = _fn("format", exp.Literal.string("{:,}"), whole)
    if count > 0:
        fraction = _fn("rpad", digits, _number(count), exp.Literal.string("0"))
        text = exp.DPipe(this=exp.DPipe(this=text, expression=exp.Literal.string("."), safe=True), expression=fraction, safe=True)
    negative = exp.LT(this=value.copy(), expression=_number(0))
    signed = exp.Case(ifs=[exp.If(this=negative, true=exp.DPipe(this=exp.Literal.string("-"), expression=text.copy(), safe=True))], default=text)
    return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=_null("VARCHAR"))], default=signed)


# Spark's mask: the replacement of each general category (Java's Character.getType), by the
# argument that gives it, and RE2's name of the category
_MASKED = (("Lu", "X"), ("Ll", "x"), ("Nd", "n"))
# The letters and digits RE2's tables hold that Java 17's (Unicode 13) do not: unassigned there, so
# "other" in Spark (measured over every code point by tests/test_spark_functions.py)
_NEWER_THAN_JAVA = (
    r"[\x{2C2F}\x{2C5F}\x{A7C0}-\x{A7C1}\x{A7D0}-\x{A7D1}\x{A7D3}\x{A7D5}-\x{A7D9}\x{10570}-\x{1057A}\x{1057C}-\x{1058A}"
    r"\x{1058C}-\x{10592}\x{10594}-\x{10595}\x{10597}-\x{105A1}\x{105A3}-\x{105B1}\x{105B3}-\x{105B9}\x{105BB}-\x{105BC}"
    r"\x{11F50}-\x{11F59}\x{16AC0}-\x{16AC9}\x{1DF00}-\x{1DF09}\x{1DF0B}-\x{1DF1E}\x{1DF25}-\x{1DF2A}\x{1E4F0}-\x{1E4F9}]"
)


def _mask(arguments: list[exp.Expr]) -> exp.Expression:
    """Spark's ``mask(s[, upper, lower, digit, other])``: each code point of ``s`` whose general
    category is an upper-case letter (``Lu``), a lower-case letter (``Ll``) or a decimal digit
    (``Nd``) replaced by ``upper`` (default ``'X'``), ``lower`` (``'x'``) or ``digit`` (``'n'``),
    any other by ``other`` (default NULL); a NULL replacement keeps the code point. A titlecase
    letter, a Roman numeral or a circled letter (Java's ``isUpperCase``) is "other", as in Spark.
    The categories are Java 17's (Unicode 13): a letter or digit Unicode assigned later is "other".
    A replacement must be a literal of one code point (else Spark's
    ``DATATYPE_MISMATCH.INPUT_SIZE_NOT_ONE``); one that is not a literal is refused.

    The string is taken apart into its code points (RE2's ``(?s).``), each replaced by a CASE,
    and put together again."""
    text = arguments[0]
    given = list(arguments[1:]) + [None] * (4 - len(arguments[1:]))
    replacements: list[str | None] = []
    for k, (argument, name) in enumerate(zip(given, ("upperChar", "lowerChar", "digitChar", "otherChar"))):
        if argument is None:
            replacements.append(_MASKED[k][1] if k < 3 else None)
            continue
        if isinstance(argument, exp.Null):
            replacements.append(None)
            continue
        literal = _string_literal(argument)
        if literal is None:
            _refuse("mask", "a replacement that is not a string literal")
        assert literal is not None  # for mypy: refused above
        if len(literal) != 1:
            raise OptimizeError(
                f'Cannot resolve "mask" due to data type mismatch: Length of {name} should be 1.',
                error_class="DATATYPE_MISMATCH.INPUT_SIZE_NOT_ONE",
            )
        replacements.append(literal)
    character = exp.column(_MASK_VARIABLE)
    ifs = [
        exp.If(this=_fn("regexp_full_match", character.copy(), exp.Literal.string(f"\\p{{{category}}}")), true=exp.Literal.string(by))
        for (category, _), by in zip(_MASKED, replacements[:3]) if by is not None
    ]
    kept = [
        exp.If(this=_fn("regexp_full_match", character.copy(), exp.Literal.string(f"\\p{{{category}}}")), true=character.copy())
        for (category, _), by in zip(_MASKED, replacements[:3]) if by is None
    ]
    other = replacements[3]
    unmasked = exp.Literal.string(other) if other is not None else character.copy()
    newer = exp.If(this=_fn("regexp_full_match", character.copy(), exp.Literal.string(_NEWER_THAN_JAVA)), true=unmasked.copy())
    masked: exp.Expression = exp.Case(ifs=[newer, *ifs, *kept], default=unmasked)
    points = _fn("regexp_extract_all", text.copy(), exp.Literal.string("(?s)."))
    lam = exp.Lambda(this=masked, expressions=[exp.to_identifier(_MASK_VARIABLE)])
    joined = _fn("array_to_string", _fn("list_transform", points, lam), exp.Literal.string(""))
    return exp.Case(ifs=[exp.If(this=exp.Is(this=text.copy(), expression=exp.Null()), true=_null("VARCHAR"))], default=joined)


_MASK_VARIABLE = "__vpush_c"


def _clamped(value: exp.Expression, low: int) -> exp.Expression:
    """A BIGINT held between ``low`` and the largest int, as Spark's ``Overlay`` clamps positions."""
    return _fn("least", _fn("greatest", value, _number(low)), _number(2**31 - 1))


def _overlay(text: exp.Expr, replace: exp.Expr, position: exp.Expr, length: exp.Expr | None = None) -> exp.Expression:
    """Spark's ``overlay(text, replace, pos[, len])`` of strings (``Overlay.overlay``): the
    characters before ``pos``, ``replace``, and those from ``pos + len`` on, as Spark's
    ``substringSQL`` takes them (a position of 0 or less counts from the end), ``len`` being the
    characters of ``replace`` when it is left out or negative, ``pos - 1`` and ``pos + len``
    held inside the ints (Spark's ``Overlay.calculate``).
    NULL if any argument is."""
    pos = exp.cast(position, _typed("BIGINT"))
    if length is None:
        count: exp.Expression = _fn("length", replace.copy())
    else:
        given = exp.cast(length, _typed("BIGINT"))
        count = exp.Case(ifs=[exp.If(this=exp.GTE(this=given, expression=_number(0)), true=given.copy())], default=_fn("length", replace.copy()))
    before_end = _clamped(exp.Sub(this=pos.copy(), expression=_number(1)), -(2**31))
    head = exp.Case(ifs=[exp.If(this=exp.GT(this=before_end, expression=_number(0)),
                                true=_fn("substring", text.copy(), _number(1), before_end.copy()))],
                    default=exp.Literal.string(""))
    after = _clamped(exp.Add(this=pos.copy(), expression=exp.Paren(this=count)), -(2**31 - 1))
    start = exp.Case(
        ifs=[exp.If(this=exp.GT(this=after, expression=_number(0)), true=exp.Sub(this=after.copy(), expression=_number(1))),
             exp.If(this=exp.LT(this=after.copy(), expression=_number(0)), true=exp.Add(this=_fn("length", text.copy()), expression=after.copy()))],
        default=_number(0),
    )
    # substringSQL(p, MAX_INT) ends MAX_INT characters after the start before it is clamped to 0
    first = _fn("greatest", start.copy(), _number(0))
    end = exp.Add(this=start, expression=_number(2**31 - 1))
    tail = exp.Case(
        ifs=[exp.If(this=exp.GTE(this=first, expression=end), true=exp.Literal.string(""))],
        default=_fn("substring", text.copy(), exp.Add(this=first.copy(), expression=_number(1)), exp.Sub(this=end.copy(), expression=first.copy())),
    )
    parts = [text, replace, position] + ([length] if length is not None else [])
    joined = exp.DPipe(this=exp.DPipe(this=head, expression=replace.copy(), safe=True), expression=tail, safe=True)
    return exp.Case(ifs=[exp.If(this=_any_null(*parts), true=_null("VARCHAR"))], default=joined)


def _literal_int(node: exp.Expr) -> int | None:
    if isinstance(node, exp.Neg):
        inner = _literal_int(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return int(node.this)
        except ValueError:
            return None
    return None


def _string_literal(node: exp.Expr) -> str | None:
    return node.name if isinstance(node, exp.Literal) and node.is_string else None


def rewrite_scalar(
    called: str, node: exp.Expr, arguments: list[exp.Expr], of: TypeOf, result: SparkType | None
) -> exp.Expr | None:
    """A call to one of :data:`SCALAR_FUNCTIONS` as DuckDB SQL giving Spark's answer; None for a
    form answered elsewhere (``locate`` of two arguments).

    Example:
        >>> from sqlglot import exp
        >>> rewrite_scalar("chr", exp.Anonymous(), [exp.Literal.number(321)], lambda n: AtomicType("int"), None).sql("duckdb")
        "CASE WHEN 321 < 0 THEN '' ELSE CHR(CAST(CAST(321 AS BIGINT) % 256 AS INT)) END"

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for a form vpush does not answer as Spark
            does, and Spark's own class where Spark refuses the call when it is planned.
    """
    if called in MATH_FUNCTIONS:
        return rewrite_math(called, arguments, of)
    if called == "typeof":
        if result is None or not arguments or of(arguments[0]) is None:
            _refuse(called, "an argument whose type vpush does not know")
        source = of(arguments[0])
        assert source is not None  # for mypy: refused above
        return exp.cast(exp.Literal.string(source.catalog_string()), _typed("VARCHAR"))
    if called == "soundex":
        if not (isinstance(of(arguments[0]), StringType) or isinstance(arguments[0], exp.Null)):
            _refuse(called, "an argument other than a string (Spark's implicit cast to a string)")
        return _soundex(arguments[0])
    if called == "format_number":
        return _format_number(arguments, of)
    if called == "isnan":
        if result is None:
            _refuse(called, "an argument other than a number (Spark's implicit cast of a string to a double)")
        # Spark's IsNaN is false, never NULL, for a NULL
        return exp.Coalesce(this=_fn("isnan", exp.cast(arguments[0], _typed("DOUBLE"))), expressions=[exp.false()])
    if called == "find_in_set":
        if result is None:
            _refuse(called, "arguments other than strings (Spark's implicit casts)")
        word, words = arguments
        # UTF8String.findInSet: 0 for a word holding a comma, else the place of the first item
        # of the comma-separated list equal to it, 0 for none
        place = _fn("list_position", _fn("string_split", words.copy(), exp.Literal.string(",")), word.copy())
        return exp.Case(
            ifs=[exp.If(this=exp.or_(exp.Is(this=word.copy(), expression=exp.Null()), exp.Is(this=words.copy(), expression=exp.Null())),
                        true=exp.cast(exp.Null(), _typed("INT"))),
                 exp.If(this=_fn("contains", word.copy(), exp.Literal.string(",")), true=exp.cast(_number(0), _typed("INT")))],
            default=exp.cast(exp.Coalesce(this=place, expressions=[_number(0)]), _typed("INT")),
        )
    if called == "luhn_check":
        if result is None:
            _refuse(called, "an argument other than a string (Spark's implicit cast to a string)")
        return _luhn_check(arguments[0])
    if called == "mask":
        if result is None:
            _refuse(called, "arguments other than strings (Spark requires them)")
        return _mask(arguments)
    if called == "overlay":
        if result is None:
            _refuse(called, "arguments other than two strings and int positions (binaries, Spark's implicit casts)")
        return _overlay(*arguments)
    if called == "octet_length":
        source = of(arguments[0])
        if isinstance(source, StringType):
            return exp.cast(_fn("strlen", arguments[0]), _typed("INT"))
        if source == AtomicType("binary"):
            return exp.cast(_fn("octet_length", arguments[0]), _typed("INT"))
        _refuse(called, "an argument other than a string or a binary")
    if called in ("chr", "char"):
        if _integral_name(of(arguments[0])) is None:
            _refuse(called, "an argument that is not an integer (Spark's implicit cast to bigint)")
        code = exp.cast(arguments[0], _typed("BIGINT"))
        # Spark: '' below 0, else the character of the code modulo 256 (0 gives U+0000)
        return exp.Case(
            ifs=[exp.If(this=exp.LT(this=arguments[0].copy(), expression=_number(0)), true=exp.Literal.string(""))],
            default=_fn("chr", exp.cast(exp.Mod(this=code, expression=_number(256)), _typed("INT"))),
        )
    if called == "btrim":
        if not all(isinstance(of(a), StringType) or isinstance(a, exp.Null) for a in arguments):
            _refuse(called, "an argument that is not a string")
        # Spark's btrim(s) trims spaces only, as DuckDB's trim(s); btrim(s, t) any character of t
        return _fn("trim", *arguments)
    if called == "unhex":
        return _unhex(arguments[0], of)
    if called == "unbase64":
        if not (isinstance(of(arguments[0]), StringType) or isinstance(arguments[0], exp.Null)):
            _refuse(called, "an argument that is not a string (Spark casts it to one)")
        return _unbase64(arguments[0], strict=None)
    if called in ("to_binary", "try_to_binary"):
        return _to_binary(called, arguments, of)
    if called == "initcap":
        if not isinstance(of(arguments[0]), StringType):
            _refuse(called, "an argument that is not a string")
        return _initcap(arguments[0])
    if called == "substring_index":
        return _substring_index(arguments, of)
    if called == "locate":
        return _locate(arguments, of) if len(arguments) == 3 else None
    if called in ("shiftleft", "shiftright", "shiftrightunsigned"):
        return _shift(called, arguments, of, result)
    if called in _TRY_OPERATORS or called in ("try_divide", "try_mod"):
        return _try_arithmetic(called, arguments, of, result)
    if called == "bround":
        return _bround(arguments, of, result)
    if called == "next_day":
        return _next_day(arguments, of)
    if called == "make_date":
        return _make_date(arguments, of)
    if called in ("regexp_count", "regexp_extract_all", "regexp_substr", "regexp_instr"):
        return _regexp(called, arguments, of)
    if called == "elt":
        return _elt(arguments, result)
    return None


def _out_of_bounds(text: exp.Expression) -> exp.Expression:
    from vpush.optimizer.spark_semantics import spark_error

    return spark_error("DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION", text, _typed("DATE"))


# Spark's dates are int days from the epoch: java.time's date past them is its ARITHMETIC_OVERFLOW
# (Math.toIntExact). DuckDB's end a day before (its infinities at those days) and hold nothing at
# the earliest: the three dates at the ends are refused. As year * 10^4 + month * 100 + day
# (in the order of dates, the years' signs included).
_SPARK_DATE_RANGE = (-5_877_641 * 10_000 + 623, 5_881_580 * 10_000 + 711)
_DUCKDB_DATE_RANGE = (-5_877_641 * 10_000 + 625, 5_881_580 * 10_000 + 710)


def _make_date(arguments: list[exp.Expr], of: TypeOf) -> exp.Expr:
    """Spark's ``make_date(y, m, d)`` under ANSI: NULL for a NULL part; a field out of its range,
    or a day past the month's last, raises ``DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION``
    with java.time's message, in java.time's order of checks (year, month, day, then the date);
    a date past Spark's (int days: about ±5,880,000 years) raises its ``ARITHMETIC_OVERFLOW``,
    and the three at the ends of Spark's range, past DuckDB's, a vpush error."""
    from vpush.optimizer.spark_semantics import spark_error

    if not all(isinstance(a, exp.Null) or _integral_name(of(a)) in _NARROW for a in arguments):
        _refuse("make_date", "arguments other than ints")
    year, month, day = (exp.cast(a, _typed("BIGINT")) for a in arguments)

    def message(field: str, bounds: str, part: exp.Expression) -> exp.Expression:
        return _out_of_bounds(exp.DPipe(this=exp.Literal.string(f"Invalid value for {field} (valid values {bounds}): "),
                                        expression=exp.cast(part.copy(), _typed("VARCHAR"))))

    def outside(part: exp.Expression, low: int, high: int) -> exp.Expression:
        return exp.Not(this=exp.Between(this=part.copy(), low=_number(low), high=_number(high)))

    # the month's last day without a DuckDB date of that year (which may be past DuckDB's):
    # February's by the Gregorian leap rule, the others 30 + (m + m div 8) mod 2
    def divides(n: int) -> exp.Expression:
        return exp.EQ(this=exp.Mod(this=year.copy(), expression=_number(n)), expression=_number(0))

    leap = exp.Paren(this=exp.And(this=divides(4), expression=exp.Paren(this=exp.Or(this=exp.Not(this=divides(100)), expression=divides(400)))))
    february = exp.Case(ifs=[exp.If(this=leap, true=_number(29))], default=_number(28))
    other = exp.Add(this=_number(30), expression=exp.Mod(
        this=exp.Paren(this=exp.Add(this=month.copy(), expression=exp.IntDiv(this=month.copy(), expression=_number(8)))), expression=_number(2)))
    last = exp.Case(ifs=[exp.If(this=exp.EQ(this=month.copy(), expression=_number(2)), true=february)], default=other)
    month_name = _fn("upper", _fn("strftime", _fn("make_date", _number(2000), month.copy(), _number(1)), exp.Literal.string("%B")))
    invalid = _out_of_bounds(exp.DPipe(this=exp.DPipe(this=exp.Literal.string("Invalid date '"), expression=month_name),
                                       expression=exp.DPipe(this=exp.Literal.string(" "),
                                                            expression=exp.DPipe(this=exp.cast(day.copy(), _typed("VARCHAR")),
                                                                                 expression=exp.Literal.string("'")))))
    not_leap = _out_of_bounds(exp.DPipe(this=exp.DPipe(this=exp.Literal.string("Invalid date 'February 29' as '"),
                                                       expression=exp.cast(year.copy(), _typed("VARCHAR"))),
                                        expression=exp.Literal.string("' is not a leap year")))
    key = exp.Add(this=exp.Add(this=exp.Mul(this=year.copy(), expression=_number(10_000)),
                               expression=exp.Mul(this=month.copy(), expression=_number(100))), expression=day.copy())
    overflow = spark_error("ARITHMETIC_OVERFLOW", "overflow.", _typed("DATE"))
    refused = spark_error(
        "VPUSH_UNSUPPORTED_FUNCTION", "make_date: a date at the end of Spark's range (5881580-07-11, -5877641-06-24 and "
        "-5877641-06-23) is past the DuckDB engine's dates; the Spark engine runs it", _typed("DATE"))
    return exp.Case(
        ifs=[
            exp.If(this=_any_null(year, month, day), true=_null("DATE")),
            exp.If(this=outside(year, -999_999_999, 999_999_999), true=message("Year", "-999999999 - 999999999", year)),
            exp.If(this=outside(month, 1, 12), true=message("MonthOfYear", "1 - 12", month)),
            exp.If(this=outside(day, 1, 31), true=message("DayOfMonth", "1 - 28/31", day)),
            exp.If(this=exp.and_(exp.EQ(this=month.copy(), expression=_number(2)), exp.EQ(this=day.copy(), expression=_number(29)),
                                 exp.Not(this=leap.copy()), copy=False), true=not_leap),
            exp.If(this=exp.GT(this=day.copy(), expression=last), true=invalid),
            exp.If(this=outside(key, *_SPARK_DATE_RANGE), true=overflow),
            exp.If(this=outside(key, *_DUCKDB_DATE_RANGE), true=refused),
        ],
        # DuckDB folds a call of literals even in a branch no row takes: a year past its dates
        # would raise there
        default=_fn("make_date", exp.Case(ifs=[exp.If(this=outside(key, *_DUCKDB_DATE_RANGE), true=_number(1970))], default=year),
                    month, day),
    )


def _unhex(value: exp.Expr, of: TypeOf) -> exp.Expr:
    if not isinstance(of(value), StringType):
        _refuse("unhex", "an argument that is not a string")
    # Spark reads an odd count of digits with a leading 0, and gives NULL for any other character
    odd = exp.EQ(this=exp.Mod(this=_fn("length", value.copy()), expression=_number(2)), expression=_number(1))
    padded = exp.Case(ifs=[exp.If(this=odd, true=exp.DPipe(this=exp.Literal.string("0"), expression=value.copy()))], default=value.copy())
    digits = _fn("regexp_full_match", value.copy(), exp.Literal.string("[0-9a-fA-F]*"))
    return exp.Case(ifs=[exp.If(this=exp.Not(this=digits), true=_null("BLOB"))], default=_fn("unhex", padded))


# Java's Character.isWhitespace, which Spark's check of base64 text skips (not U+00A0, U+2007, U+202F)
_JAVA_WHITESPACE = "\t\n\x0b\x0c\r\x1c-\x1f \u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000"
_BASE64_LETTERS = "A-Za-z0-9+/"


def _matches(value: exp.Expr, pattern: str) -> exp.Expression:
    return _fn("regexp_matches", value.copy(), exp.Literal.string(pattern))


def _unbase64(value: exp.Expr, *, strict: bool | None) -> exp.Expression:
    """Spark's base64 decoding of a string: Java's MIME decoder (``unbase64``: ``strict`` None),
    after Spark's check of the text for ``to_binary`` (``strict``: CONVERSION_INVALID_INPUT) and
    ``try_to_binary`` (NULL).

    The MIME decoder skips every character outside the alphabet and ``=``, decodes up to the
    first ``=``, and fails (an IllegalArgumentException, without an error class) where a unit is
    left with one character, where the first ``=`` ends a whole unit, where two characters are
    not followed by ``==``, or where a letter of the alphabet follows the padding. Spark's check
    takes letters of the alphabet and Java's whitespace, then up to two ``=`` and nothing after
    them, and whole units once padded (one character over a unit is never taken)."""
    from vpush.optimizer.spark_semantics import spark_error

    cleaned = _fn("regexp_replace", value.copy(), exp.Literal.string(f"[^{_BASE64_LETTERS}=]"), exp.Literal.string(""),
                  exp.Literal.string("g"))
    letters = _fn("regexp_replace", cleaned.copy(), exp.Literal.string("=.*"), exp.Literal.string(""))
    count = _fn("length", letters.copy())
    rest = exp.Mod(this=count.copy(), expression=_number(4))
    padded = _fn("strpos", cleaned.copy(), exp.Literal.string("=")).neq(0)

    def rest_is(n: int) -> exp.Expression:
        return exp.EQ(this=rest.copy(), expression=_number(n))

    fails = exp.or_(
        rest_is(1),
        exp.and_(padded.copy(), rest_is(0)),
        exp.and_(padded.copy(), rest_is(2), exp.Not(this=_matches(value, "^[^=]*=="))),
        exp.and_(padded.copy(), rest_is(2), _matches(value, f"^[^=]*==[\\s\\S]*[{_BASE64_LETTERS}]")),
        exp.and_(padded.copy(), rest_is(3), _matches(value, f"^[^=]*=[\\s\\S]*[{_BASE64_LETTERS}]")),
    )
    ending = exp.Case(ifs=[exp.If(this=rest_is(2), true=exp.Literal.string("==")),
                           exp.If(this=rest_is(3), true=exp.Literal.string("="))], default=exp.Literal.string(""))
    decoded = _fn("from_base64", exp.DPipe(this=letters, expression=ending))
    if strict is None:
        # Java's IllegalArgumentException: Spark gives it no error class
        failure: exp.Expression = exp.cast(_fn("error", exp.DPipe(
            this=exp.Literal.string("unbase64: Input byte array is not valid base64 text (Java's MIME decoder): "),
            expression=value.copy())), _typed("BLOB"))
        return exp.Case(ifs=[exp.If(this=fails, true=failure)], default=decoded)
    valid = exp.and_(
        exp.Not(this=_matches(value, f"[^{_BASE64_LETTERS}={_JAVA_WHITESPACE}]")),
        exp.Not(this=_matches(value, "=[\\s\\S]*[^=]")),
        exp.Case(
            ifs=[exp.If(this=padded.copy(), true=exp.and_(
                exp.EQ(this=exp.Mod(this=_fn("length", cleaned.copy()), expression=_number(4)), expression=_number(0)),
                exp.LTE(this=exp.Sub(this=_fn("length", cleaned.copy()), expression=count.copy()), expression=_number(2))))],
            default=exp.NEQ(this=rest.copy(), expression=_number(1)),
        ),
    )
    invalid = _null("BLOB") if not strict else spark_error(
        "CONVERSION_INVALID_INPUT",
        exp.DPipe(this=exp.Literal.string("The value '"), expression=exp.DPipe(
            this=value.copy(), expression=exp.Literal.string("' ('BASE64') cannot be converted to \"BINARY\" because it is malformed."))),
        _typed("BLOB"),
    )
    return exp.Case(ifs=[exp.If(this=exp.Not(this=exp.Paren(this=valid)), true=invalid)], default=decoded)


def _to_binary(called: str, arguments: list[exp.Expr], of: TypeOf) -> exp.Expr:
    """Spark's ``to_binary(s[, fmt])`` (``try_to_binary``: NULL where it raises): ``fmt`` a
    literal ``hex`` (the default), ``utf-8``, ``utf8`` or ``base64``, in any case."""
    from vpush.optimizer.spark_semantics import spark_error

    value = arguments[0]
    strict = called == "to_binary"
    if not (isinstance(of(value), StringType) or isinstance(value, exp.Null)):
        _refuse(called, "an argument that is not a string (Spark casts it to one)")
    form = arguments[1] if len(arguments) > 1 else exp.Literal.string("hex")
    if isinstance(form, exp.Null):
        return _null("BLOB")
    text = _string_literal(form)
    if text is None:
        raise OptimizeError(
            f'Cannot resolve "to_binary(...)" due to data type mismatch: the input `fmt` should be a foldable "STRING" '
            f"expression; however, got {form.sql()}",
            error_class="DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
        )
    fmt = text.lower()
    if fmt not in ("hex", "utf-8", "utf8", "base64"):
        if not strict:
            return _null("BLOB")
        raise OptimizeError(
            f"to_binary: The fmt value must to be a case-insensitive \"STRING\" literal of 'hex', 'utf-8', 'utf8', or "
            f"'base64', but got '{text}'",
            error_class="DATATYPE_MISMATCH.INVALID_ARG_VALUE",
        )
    if fmt in ("utf-8", "utf8"):
        return _fn("encode", value)
    if fmt == "base64":
        return _unbase64(value, strict=strict)
    digits = _unhex(value, of)
    if not strict:
        return digits
    message = exp.DPipe(this=exp.Literal.string("The value '"), expression=exp.DPipe(
        this=value.copy(), expression=exp.Literal.string("' ('HEX') cannot be converted to \"BINARY\" because it is malformed.")))
    malformed = exp.Not(this=_fn("regexp_full_match", value.copy(), exp.Literal.string("[0-9a-fA-F]*")))
    return exp.Case(ifs=[exp.If(this=malformed, true=spark_error("CONVERSION_INVALID_INPUT", message, _typed("BLOB")))],
                    default=digits)


_WORD = "__vpush_word"


def _initcap(value: exp.Expr) -> exp.Expr:
    """Spark's ``initcap``: each word's first character (words are split at spaces only) in
    Java's title case, the rest in lower case."""
    word = exp.column(_WORD)
    letter = _fn("substring", word, _number(1), _number(1))
    upper = _fn("translate", _fn("upper", letter), exp.Literal.string(_UPPER_NOT_TITLE[0]), exp.Literal.string(_UPPER_NOT_TITLE[1]))
    # the title case of 'ß' is 'Ss' (of the capital 'ẞ', itself: the first letter is not lowered first)
    sharp = exp.EQ(this=letter.copy(), expression=exp.Literal.string("ß"))
    first = exp.Case(ifs=[exp.If(this=sharp, true=exp.Literal.string("Ss"))], default=upper)
    body = exp.DPipe(this=first, expression=_fn("lower", _fn("substring", word.copy(), _number(2))))
    words = _fn("string_split", value, exp.Literal.string(" "))
    lam = exp.Lambda(this=body, expressions=[exp.to_identifier(_WORD)])
    return _fn("array_to_string", _fn("list_transform", words, lam), exp.Literal.string(" "))


def _has_border(text: str) -> bool:
    """Whether a proper prefix of ``text`` is also its suffix (so occurrences can overlap)."""
    return any(text[:k] == text[-k:] for k in range(1, len(text)))


def _substring_index(arguments: list[exp.Expr], of: TypeOf) -> exp.Expr:
    """Spark's ``substring_index(s, delim, count)``: the text before the ``count``-th delimiter
    (from the end for a negative count); all of it when there are fewer; ``''`` for a count of 0
    or an empty delimiter. Spark searches for each next delimiter one character past the last
    one's start, so occurrences of a delimiter like ``'aa'`` overlap: only literal delimiters
    that cannot overlap are taken, for which splitting is the same."""
    value, delimiter, count = arguments
    text = _string_literal(delimiter)
    if text is None or _has_border(text):
        _refuse("substring_index", "a delimiter that is not a literal, or one whose occurrences can overlap")
    if not isinstance(of(value), StringType) or _integral_name(of(count)) not in _NARROW:
        _refuse("substring_index", "arguments other than a string and an int count")
    if text == "":
        return exp.Case(ifs=[exp.If(this=_any_null(value, count), true=_null("VARCHAR"))], default=exp.Literal.string(""))
    parts = _fn("string_split", value.copy(), exp.Literal.string(text))
    size = _fn("len", parts.copy())
    head = _fn("list_slice", parts.copy(), _number(1), count.copy())
    start = _fn("greatest", exp.Add(this=exp.Add(this=size, expression=count.copy()), expression=_number(1)), _number(1))
    tail = _fn("list_slice", parts, start, _fn("len", parts.copy()))
    joined = [_fn("array_to_string", x, exp.Literal.string(text)) for x in (head, tail)]
    return exp.Case(
        ifs=[
            exp.If(this=_any_null(value, count), true=_null("VARCHAR")),
            exp.If(this=exp.EQ(this=count.copy(), expression=_number(0)), true=exp.Literal.string("")),
            exp.If(this=exp.GT(this=count.copy(), expression=_number(0)), true=joined[0]),
        ],
        default=joined[1],
    )


def _locate(arguments: list[exp.Expr], of: TypeOf) -> exp.Expr:
    """Spark's ``locate(sub, s, pos)`` (``StringLocate``): 0 for a NULL or a below-1 position,
    NULL for a NULL string, 1 for an empty ``sub``, else where ``sub`` is first found from
    character ``pos`` (0 if not)."""
    sub, value, position = arguments
    if isinstance(position, exp.Null):
        return exp.cast(_number(0), _typed("INT"))  # Spark checks the position first
    if _integral_name(of(position)) not in _NARROW or not all(isinstance(of(a), StringType) for a in (sub, value)):
        _refuse("locate", "arguments other than two strings and an int position")
    rest = _fn("substring", value.copy(), position.copy())
    found = _fn("strpos", rest, sub.copy())
    at = exp.Case(ifs=[exp.If(this=exp.EQ(this=found, expression=_number(0)), true=_number(0))],
                  default=exp.Sub(this=exp.Add(this=found.copy(), expression=position.copy()), expression=_number(1)))
    return exp.cast(
        exp.Case(
            ifs=[
                exp.If(this=exp.Is(this=position.copy(), expression=exp.Null()), true=_number(0)),
                exp.If(this=_any_null(sub, value), true=_null("INT")),
                exp.If(this=exp.LT(this=position.copy(), expression=_number(1)), true=_number(0)),
                exp.If(this=exp.EQ(this=sub.copy(), expression=exp.Literal.string("")), true=_number(1)),
            ],
            default=at,
        ),
        _typed("INT"),
    )


def _shift(called: str, arguments: list[exp.Expr], of: TypeOf, result: SparkType | None) -> exp.Expr:
    """Java's ``<<``, ``>>`` and ``>>>`` on an int or a long: the count taken modulo the width,
    the bits that leave the word dropped (DuckDB's shifts raise on a negative number and on an
    overflow). Computed on the word's bits as an unsigned number one size up."""
    value, count = arguments
    if result is None or _integral_name(of(count)) not in _NARROW:
        _refuse(called, "arguments other than an integer and an int count")
    assert isinstance(result, AtomicType)  # for mypy: typed by scalar_type
    width = INTEGER_WIDTHS[result.name]
    wide = "HUGEINT" if width == 64 else "BIGINT"
    signed = exp.cast(value, _typed(result.name.upper()))
    bits = _number(str(width - 1))
    k = exp.Paren(this=exp.BitwiseAnd(this=exp.cast(count, _typed("INT")), expression=bits))
    if called == "shiftright":
        return exp.BitwiseRightShift(this=signed, expression=k)
    mask = _number(str((1 << width) - 1))
    unsigned = exp.Paren(this=exp.BitwiseAnd(this=exp.cast(signed, _typed(wide)), expression=mask))
    if called == "shiftleft":
        # keep the bits that stay inside the word, then shift: no overflow of the wider type
        one = exp.cast(_number(1), _typed(wide))
        kept = exp.Sub(this=exp.Paren(this=exp.BitwiseLeftShift(this=one, expression=exp.Sub(this=_number(width), expression=k.copy()))),
                       expression=_number(1))
        moved: exp.Expression = exp.BitwiseLeftShift(this=exp.Paren(this=exp.BitwiseAnd(this=unsigned, expression=exp.Paren(this=kept))),
                                                     expression=k)
    else:
        moved = exp.BitwiseRightShift(this=unsigned, expression=k)
    word = exp.Paren(this=moved)
    high = exp.GTE(this=word.copy(), expression=_number(str(1 << (width - 1))))
    back = exp.Case(ifs=[exp.If(this=high, true=exp.Sub(this=word.copy(), expression=exp.cast(_number(str(1 << width)), _typed(wide))))],
                    default=word)
    return exp.cast(back, _typed(result.name.upper()))


def _try_arithmetic(called: str, arguments: list[exp.Expr], of: TypeOf, result: SparkType | None) -> exp.Expr:
    """Spark's ``try_add``, ``try_subtract``, ``try_multiply``, ``try_divide`` and ``try_mod`` of
    integers and doubles: NULL where the ANSI operation raises (an integer overflow, a division by 0)."""
    left, right = arguments
    if result is None:
        _refuse(called, "arguments other than integers, floats and doubles (decimals, strings, dates, intervals)")
    assert isinstance(result, AtomicType)  # for mypy: typed by scalar_type
    if called == "try_mod":
        # Java's remainder (the dividend's sign; Integer.MIN_VALUE % -1 is 0, so taken in 128
        # bits), NULL for a zero divisor (-0.0 too), as for integers so for doubles and floats
        wide = "HUGEINT" if result.name in INTEGER_WIDTHS else result.name.upper()
        remainder = exp.Mod(this=exp.cast(left, _typed(wide)), expression=exp.cast(right.copy(), _typed(wide)))
        zero = exp.EQ(this=right.copy(), expression=_number(0))
        return exp.Case(ifs=[exp.If(this=zero, true=_null(result.name.upper()))],
                        default=exp.cast(remainder, _typed(result.name.upper())))
    if called == "try_divide":
        ratio = exp.Div(this=exp.cast(left, _typed("DOUBLE")), expression=exp.cast(right, _typed("DOUBLE")), typed=False, safe=False)
        zero = exp.EQ(this=right.copy(), expression=_number(0))
        return exp.Case(ifs=[exp.If(this=zero, true=_null("DOUBLE"))], default=ratio)
    operator = _TRY_OPERATORS[called]
    if result.name in INTEGER_WIDTHS:
        exact = operator(this=exp.cast(left, _typed("HUGEINT")), expression=exp.cast(right, _typed("HUGEINT")))
        low, high = -(1 << (INTEGER_WIDTHS[result.name] - 1)), (1 << (INTEGER_WIDTHS[result.name] - 1)) - 1
        inside = exp.Between(this=exp.Paren(this=exact), low=_number(str(low)), high=_number(str(high)))
        return exp.Case(ifs=[exp.If(this=inside, true=exp.cast(exact.copy(), _typed(result.name.upper())))],
                        default=_null(result.name.upper()))
    to = _typed(result.name.upper())
    return operator(this=exp.cast(left, to), expression=exp.cast(right, to))


def _bround(arguments: list[exp.Expr], of: TypeOf, result: SparkType | None) -> exp.Expr:
    """Spark's ``bround`` (HALF_EVEN) of a decimal to a literal count of places, exactly (a double
    or a float is rounded by ``spark_semantics`` as ``round`` is, on its decimal text)."""
    value = arguments[0]
    places = _literal_int(arguments[1]) if len(arguments) > 1 else 0
    if result is None or places is None or not -20 <= places <= 18:
        _refuse("bround", "an argument other than a decimal, double or float, or places that are not a literal from 0 "
                "(decimals) or -20 (doubles) to 18")
    if not isinstance(result, DecimalType) or places is None or places < 0:
        _refuse("bround", "an argument other than a decimal, double or float, or negative places for a decimal")
    assert isinstance(result, DecimalType)  # for mypy: refused above
    return exp.cast(_fn("round_even", value, _number(places)), exp.DataType.build(f"DECIMAL({result.precision}, {result.scale})"))


def _next_day(arguments: list[exp.Expr], of: TypeOf) -> exp.Expr:
    """Spark's ``next_day(date, name)``: the first later date on that day of the week, for
    Spark's day names in any case; a name it does not know raises ``ILLEGAL_DAY_OF_WEEK``
    (under ANSI) for each row with a date. Spark casts a timestamp to its date in the session
    time zone (a timestamp_ntz to its date; a string is cast to a date before this)."""
    from vpush.optimizer.spark_semantics import spark_error

    value, name = arguments
    if isinstance(value, exp.Null) or isinstance(name, exp.Null):
        return _null("DATE")
    if of(value) in (AtomicType("timestamp"), AtomicType("timestamp_ntz")):
        value = exp.cast(value, _typed("DATE"))
    elif of(value) != AtomicType("date"):
        _refuse("next_day", "a first argument other than a date, a timestamp or a string")
    if not isinstance(name, exp.Literal):
        _refuse("next_day", "a day name that is not a literal")
    assert isinstance(name, exp.Literal)  # for mypy: refused above
    text = name.name
    # a number is cast to a string, never a day's name: next_day(d, 5) raises ILLEGAL_DAY_OF_WEEK
    day = _DAYS.get(text.upper()) if name.is_string and text == text.strip() else None
    if day is None:
        error = spark_error("ILLEGAL_DAY_OF_WEEK", f"Illegal input for day of week: {text}.", _typed("DATE"))
        return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=_null("DATE"))], default=error)
    ahead = exp.Add(this=exp.Mod(this=exp.Paren(this=exp.Add(this=exp.Sub(this=_number(day), expression=_fn("isodow", value.copy())),
                                                             expression=_number(6))), expression=_number(7)), expression=_number(1))
    return exp.Add(this=value, expression=exp.cast(ahead, _typed("INT")))


def _regexp_pattern(called: str, pattern: exp.Expr, *, stepping: bool, match_only: bool = False) -> Re2Pattern:
    """A literal Java pattern as RE2 writes it; refused where vpush cannot show the two mean the
    same, and (``stepping``: a function that finds every match) where it can match the empty
    string, after which Java steps a UTF-16 unit and RE2 a code point. ``match_only``: the
    function uses only whether and where a match starts (:func:`re2_pattern`)."""
    text = _string_literal(pattern)
    translated = None if text is None else re2_pattern(text, match_only=match_only)
    if translated is None or (stepping and translated.nullable and not translated.ends_only):
        _refuse(called, "a pattern that is not a literal, or whose meaning vpush cannot show to be the same in Java and in "
                "DuckDB's RE2 (\\b, (?m) with ^ or $, lookaround, backreferences, possessive quantifiers, class "
                "intersections, Unicode properties, $ after what can match a line terminator"
                + (", or that can match the empty string" if stepping else "") + ")")
    assert translated is not None  # for mypy: refused above
    return translated


def split_final_terminator(value: exp.Expr, re2: Re2Pattern) -> tuple[exp.Expr, exp.Expr]:
    """``value`` without the final line terminator Java's ``$`` of ``re2`` holds before
    (:attr:`~vpush.optimizer.java_regex.Re2Pattern.tail`), which ``re2.text`` is matched in, and
    that terminator (``''`` for none); ``value`` and ``''`` for a pattern without ``$``."""
    if re2.tail is None:
        return value, exp.Literal.string("")
    tail = exp.Literal.string(re2.tail)
    return _fn("regexp_replace", value.copy(), tail, exp.Literal.string("")), _fn("regexp_extract", value.copy(), tail.copy(), _number(0))


def final_matches(body: exp.Expr, tail: exp.Expr, re2: Re2Pattern) -> tuple[exp.Expr, exp.Expr, exp.Expr, exp.Expr]:
    """Java's matches of a pattern every match of which ends at its ``$``
    (:attr:`~vpush.optimizer.java_regex.Re2Pattern.ends_only`), over ``body`` and ``tail`` (:func:`split_final_terminator`):
    whether there is a first (found in ``body`` by RE2), its text, whether an empty one follows it
    where ``body`` ends (Java's next search starts where a match that is not empty ends), and
    whether an empty one follows ``tail`` (one step past an empty match, past the end of ``body``).
    No other match can follow: none reaches into ``tail``."""
    written = exp.Literal.string(re2.text)
    found = _fn("regexp_matches", body.copy(), written)
    first = _fn("regexp_extract", body.copy(), written.copy(), _number(0))
    if not re2.empty_inside:
        return found, first, exp.false(), exp.false()
    return (found, first, exp.NEQ(this=first.copy(), expression=exp.Literal.string("")),
            exp.NEQ(this=tail.copy(), expression=exp.Literal.string("")))


def _regexp(called: str, arguments: list[exp.Expr], of: TypeOf) -> exp.Expr:
    """Spark's ``regexp_count``, ``regexp_extract_all``, ``regexp_substr`` and ``regexp_instr``
    over a literal pattern, by DuckDB's RE2 on the pattern :func:`re2_pattern` writes."""
    from vpush.optimizer.spark_semantics import spark_error

    value, pattern = arguments[0], arguments[1]
    if not isinstance(of(value), StringType) and not isinstance(value, exp.Null):
        _refuse(called, "a first argument that is not a string")
    result = {"regexp_count": "INT", "regexp_instr": "INT", "regexp_substr": "VARCHAR", "regexp_extract_all": "VARCHAR[]"}[called]
    if isinstance(pattern, exp.Null) or isinstance(value, exp.Null):
        return _null(result)
    re2 = _regexp_pattern(called, pattern, stepping=called in ("regexp_count", "regexp_extract_all"), match_only=called == "regexp_instr")
    written = exp.Literal.string(re2.text)
    # (no match reaches into the final line terminator: these give the same without it)
    value, tail = split_final_terminator(value, re2)
    stepped = re2.nullable and called in ("regexp_count", "regexp_extract_all")  # so every match ends at $
    if called == "regexp_count":
        if stepped:
            found, _, after, last = final_matches(value, tail, re2)
            return exp.cast(exp.Add(this=exp.Add(this=_as_int(found), expression=_as_int(after)), expression=_as_int(last)), _typed("INT"))
        return exp.cast(_fn("len", _fn("regexp_extract_all", value, written, _number(0))), _typed("INT"))
    if called == "regexp_substr":
        # Spark's regexp_substr is nullif(regexp_extract(s, p, 0), ''): NULL for no match or an empty one
        return _fn("nullif", _fn("regexp_extract", value, written, _number(0)), exp.Literal.string(""))
    index = _literal_int(arguments[2]) if len(arguments) > 2 else (1 if called == "regexp_extract_all" else 0)
    if called == "regexp_instr":
        if index != 0:
            _refuse(called, "a group index other than 0")
        instr = _regexp_instr(value, re2.text)
        if re2.ends_differ and re2.crlf_text is not None:
            # Java's $ holds before a final \r\n, never between its two characters: the match
            # starts where RE2's pattern for such a text finds it
            crlf = _fn("ends_with", value.copy(), exp.Literal.string("\r\n"))
            instr = exp.Case(ifs=[exp.If(this=crlf, true=_regexp_instr(value, re2.crlf_text))], default=instr)
        return instr
    if index is None:
        _refuse(called, "a group index that is not a literal")
    assert index is not None  # for mypy: refused above
    if not 0 <= index <= re2.groups:
        text = (f"The value of parameter(s) `idx` in `regexp_extract_all` is invalid: Expects group index between 0 and "
                f"{re2.groups}, but got {index}.")
        # Spark raises only for a row with a match
        return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=_null("VARCHAR[]")),
                             exp.If(this=_fn("regexp_matches", value.copy(), written.copy()),
                                    true=spark_error("INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX", text, _typed("VARCHAR[]")))],
                        default=exp.cast(exp.Array(expressions=[]), _typed("VARCHAR[]")))
    if stepped:
        found, _, after, last = final_matches(value, tail, re2)
        texts = _fn("regexp_extract", value.copy(), written, _number(index)), exp.Literal.string(""), exp.Literal.string("")
        lists = [exp.Case(ifs=[exp.If(this=taken, true=exp.Array(expressions=[text]))], default=exp.cast(exp.Array(expressions=[]), _typed("VARCHAR[]")))
                 for taken, text in zip((found, after, last), texts)]
        return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=_null("VARCHAR[]"))],
                        default=_fn("list_concat", *lists))
    # DuckDB gives NULL for a group that took no part in a match; Spark ''
    element = exp.column("__vpush_group")
    lam = exp.Lambda(this=exp.Coalesce(this=element, expressions=[exp.Literal.string("")]), expressions=[exp.to_identifier("__vpush_group")])
    return _fn("list_transform", _fn("regexp_extract_all", value, written, _number(index)), lam)


def _as_int(condition: exp.Expr) -> exp.Expr:
    return exp.cast(condition, _typed("INT"))


def _regexp_instr(value: exp.Expr, re2: str) -> exp.Expr:
    """Where the first match of the RE2 pattern ``re2`` in ``value`` starts (1-based, in
    characters: one more than the length of the shortest text before it), 0 for none."""
    before = _fn("regexp_extract", value.copy(), exp.Literal.string(f"(?s)^(.*?)(?:{re2})"), _number(1))
    start = exp.Add(this=_fn("length", before), expression=_number(1))
    return exp.cast(exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=_null("INT")),
                                  exp.If(this=_fn("regexp_matches", value.copy(), exp.Literal.string(re2)), true=start)],
                             default=_number(0)), _typed("INT"))


def _elt(arguments: list[exp.Expr], result: SparkType | None) -> exp.Expr:
    """Spark's ``elt(n, x1, x2, ...)`` under ANSI: the n-th input as a string, NULL for a NULL
    ``n``, Spark's ``INVALID_ARRAY_INDEX`` for an ``n`` outside 1 to the number of inputs; a
    ``bigint`` ``n`` is cast to an int first (``CAST_OVERFLOW`` past an int, as measured)."""
    from vpush.optimizer.spark_semantics import spark_error

    if result is None or result.to_sql_type() is None:
        _refuse("elt", "an index that is not an int, or inputs other than strings and integers")
    assert result is not None  # for mypy: refused above
    to = result.to_sql_type()
    assert to is not None  # for mypy: refused above
    index, values = arguments[0], arguments[1:]
    text = exp.DPipe(this=exp.DPipe(this=exp.Literal.string("The index "), expression=exp.cast(index.copy(), _typed("VARCHAR"))),
                     expression=exp.Literal.string(f" is out of bounds. The array has {len(values)} elements. Use the SQL function "
                                                   "`get()` to tolerate accessing element at invalid index and return NULL instead."))
    outside = exp.Or(this=exp.LT(this=index.copy(), expression=_number(1)), expression=exp.GT(this=index.copy(), expression=_number(len(values))))
    chosen = _fn("list_extract", exp.Array(expressions=[exp.cast(v, to) for v in values]), index.copy())  # to VARCHAR
    overflow = exp.Or(this=exp.LT(this=index.copy(), expression=_number(-(2**31))), expression=exp.GT(this=index.copy(), expression=_number(2**31 - 1)))
    overflow_text = exp.DPipe(this=exp.DPipe(this=exp.Literal.string("The value "), expression=exp.cast(index.copy(), _typed("VARCHAR"))),
                              expression=exp.Literal.string('L of the type "BIGINT" cannot be cast to "INT" due to an overflow. Use '
                                                            "`try_cast` to tolerate overflow and return NULL instead."))
    return exp.Case(ifs=[exp.If(this=exp.Is(this=index.copy(), expression=exp.Null()), true=exp.cast(exp.Null(), to)),
                         exp.If(this=overflow, true=spark_error("CAST_OVERFLOW", overflow_text, to)),
                         exp.If(this=outside, true=spark_error("INVALID_ARRAY_INDEX", text, to))], default=chosen)


# Java's Character.isDigit in the BMP (Spark reads a string's UTF-16 units): each block of ten
# decimal digits, from its zero (a digit outside the BMP is two surrogates, no digit)
JAVA_DIGIT_ZEROS = (
    0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66, 0xDE6, 0xE50, 0xED0, 0xF20,
    0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0,
    0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
)
_LUHN_VARIABLE = "__vpush_i"


def _luhn_check(text: exp.Expr) -> exp.Expr:
    """Spark's ``luhn_check`` (``ExpressionImplUtils.isLuhnNumber``): false for an empty string or
    one with a character that is not a digit (any of Java's decimal digits, by its value), else
    whether the Luhn sum (every second digit from the right doubled, its digits added) ends in 0."""
    digits = _fn("translate", text.copy(), exp.Literal.string("".join(chr(z + d) for z in JAVA_DIGIT_ZEROS for d in range(10))),
                 exp.Literal.string("0123456789" * len(JAVA_DIGIT_ZEROS)))
    reversed_digits = _fn("reverse", digits.copy())
    at = exp.to_identifier(_LUHN_VARIABLE)
    digit = exp.cast(_fn("substring", reversed_digits, exp.Add(this=exp.column(at.copy()), expression=_number(1)), _number(1)), _typed("INT"))
    second = exp.EQ(this=exp.Mod(this=exp.column(at.copy()), expression=_number(2)), expression=_number(1))
    doubled = exp.Case(ifs=[exp.If(this=second, true=exp.Mul(this=digit.copy(), expression=_number(2)))], default=digit)
    term = exp.Add(this=exp.Mod(this=doubled.copy(), expression=_number(10)), expression=exp.IntDiv(this=doubled, expression=_number(10)))
    terms = _fn("list_transform", _fn("range", _fn("length", digits.copy())), exp.Lambda(this=term, expressions=[at]))
    valid = exp.EQ(this=exp.Mod(this=_fn("list_sum", terms), expression=_number(10)), expression=_number(0))
    return exp.Case(
        ifs=[exp.If(this=exp.Is(this=text.copy(), expression=exp.Null()), true=exp.cast(exp.Null(), _typed("BOOLEAN"))),
             exp.If(this=exp.Not(this=_fn("regexp_full_match", digits, exp.Literal.string("[0-9]+"))), true=exp.false())],
        default=valid,
    )
