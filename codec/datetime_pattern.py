"""Spark's datetime patterns for parsing (``to_timestamp(s, 'dd/MM/yyyy HH:mm')``), compiled to the
program of steps the C kernel ``codec/spark_datetime_format.c`` runs over each string.

Spark 4 parses with a java.time ``DateTimeFormatter`` built from the pattern
(``DateTimeFormatterHelper``): case-insensitive, strict, ``y`` read as the proleptic year ``u``,
``S`` repeated n times as a fraction of 1 to n digits. Each step here is the parser java.time
appends for the letters, with the widths and sign rules of ``DateTimeFormatterBuilder``; adjacent
numbers with no literal between them share their digits as java.time's adjacent value parsing
shares them. Patterns Spark rejects raise its error class (measured on PySpark 4.3); letters and
forms this module does not compile (eras, zone names, week fields, optional sections, ...) raise
``VPUSH_UNSUPPORTED_FUNCTION``.

Example (the year of ``yyyyMMdd`` leaves four digits to the month and day that follow it):
    >>> compile_pattern("yyyyMMdd").steps
    [(0, 0, 4, 19, 4, 4), (0, 1, 2, 2, 3, -1), (0, 2, 2, 2, 3, -1)]
"""

from __future__ import annotations

from dataclasses import dataclass

from vpush.codec.errors import CodecError

__all__ = ["JAVA_LETTERS", "DatetimePatternError", "ParsingPattern", "compile_pattern", "pattern_pieces"]

# The kinds of step, fields, sign styles, texts and offset forms of spark_datetime_format.h.
VALUE, REDUCED, FRACTION, TEXT, LITERAL, OFFSET = range(6)
YEAR, MONTH, DAY, DAY_OF_YEAR, HOUR, CLOCK_HOUR_AMPM, AMPM, MINUTE, SECOND, NANO, OFFSET_SECONDS = range(11)
NORMAL, NOT_NEGATIVE, EXCEEDS_PAD = 0, 3, 4
MONTH_SHORT, MONTH_FULL, AMPM_TEXT = 0, 1, 2
OFFSET_HH_MM_OPTIONAL, OFFSET_HHMM, OFFSET_HH_COLON_MM = 1, 3, 4
NO_OFFSET_Z, NO_OFFSET_PLUS_ZEROS = 0, 1

MAX_FRACTION_LETTERS = 9
"""``S`` up to nine times: nanoseconds, of which Spark keeps the microseconds."""

# Spark's error classes for the patterns it rejects, measured on PySpark 4.3.
PATTERN_RECOGNITION = "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION"
WEEK_BASED_PATTERN = "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN"
ILLEGAL_CHARACTER = "INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER"
WITH_SUGGESTION = "INVALID_DATETIME_PATTERN.WITH_SUGGESTION"
UNSUPPORTED = "VPUSH_UNSUPPORTED_FUNCTION"

# Letters Spark refuses whatever their count (DateTimeFormatterHelper: week-based fields, letters
# it does not support, and day-of-week and quarter fields it does not parse).
_REJECTED_LETTERS = {
    **dict.fromkeys("ec", WEEK_BASED_PATTERN),
    **dict.fromkeys("YWwuEF", PATTERN_RECOGNITION),
    **dict.fromkeys("QqABnNp", ILLEGAL_CHARACTER),
}
# java.time's pattern letters; any other letter is unknown to it.
JAVA_LETTERS = frozenset("GuyDMLdQqYwWEecFahKkHmsSAnNVvzOXxZBpg")
# The most letters of each kind java.time (or Spark) takes; more is Spark's PATTERN_RECOGNITION.
_MOST_LETTERS = {"y": 6, "M": 4, "d": 2, "D": 3, "H": 2, "h": 2, "m": 2, "s": 2, "a": 1, "S": MAX_FRACTION_LETTERS, "Z": 5}
_RESERVED = {"{": PATTERN_RECOGNITION, "}": PATTERN_RECOGNITION, "#": PATTERN_RECOGNITION}

_TWO_DIGIT_FIELDS = {"d": DAY, "H": HOUR, "h": CLOCK_HOUR_AMPM, "m": MINUTE, "s": SECOND}


class DatetimePatternError(CodecError):
    """A pattern Spark rejects (its error class) or vpush does not parse (``VPUSH_UNSUPPORTED_FUNCTION``)."""

    why: str = ""
    """What in the pattern, in a few words (``a quote that is not closed``)."""


@dataclass(frozen=True)
class ParsingPattern:
    """A compiled pattern: its steps (six ints each, see ``spark_datetime_format.h``), the bytes
    its literal steps point into, and whether it writes a zone offset."""

    steps: list[tuple[int, int, int, int, int, int]]
    literals: bytes
    has_offset: bool


def _raise(pattern: str, error_class: str, why: str) -> DatetimePatternError:
    if error_class == UNSUPPORTED:
        error = DatetimePatternError(
            f"the datetime pattern '{pattern}': the DuckDB engine does not parse {why} as Spark does yet; "
            "the Spark engine (vpush.connect(engine='spark')) runs it",
            error_class=UNSUPPORTED,
        )
    else:
        error = DatetimePatternError(f"Spark rejects the datetime pattern '{pattern}': {why}", error_class=error_class)
    error.why = why
    return error


def pattern_pieces(pattern: str, *, sections: bool = False) -> list[tuple[bool, str]]:
    """A Java datetime pattern as (is_field, text) pieces: runs of one letter, and literal text
    (quotes removed, ``''`` a quote); for parsing here and for printing
    (:mod:`vpush.optimizer.datetime_text`). With ``sections``, the brackets of an optional
    section are fields ``[`` and ``]`` of their own.

    Raises:
        DatetimePatternError: an unclosed quote, a reserved character or (without ``sections``)
            an optional section.
    """
    out: list[tuple[bool, str]] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "'":
            text, j = [], i + 1
            if j < n and pattern[j] == "'":
                out.append((False, "'"))
                i += 2
                continue
            while True:
                if j >= n:
                    raise _raise(pattern, WITH_SUGGESTION, "a quote that is not closed")
                if pattern[j] == "'":
                    if j + 1 < n and pattern[j + 1] == "'":
                        text.append("'")
                        j += 2
                        continue
                    break
                text.append(pattern[j])
                j += 1
            out.append((False, "".join(text)))
            i = j + 1
        elif ("a" <= c <= "z") or ("A" <= c <= "Z"):
            j = i
            while j < n and pattern[j] == c:
                j += 1
            out.append((True, pattern[i:j]))
            i = j
        else:
            if c in _RESERVED:
                raise _raise(pattern, _RESERVED[c], f"the reserved character {c!r}")
            if c in "[]" and sections:
                out.append((True, c))
                i += 1
                continue
            if c in "[]":
                raise _raise(pattern, UNSUPPORTED, "optional sections ('[...]')")
            out.append((False, c))
            i += 1
    return out


def _check_letters(pattern: str, letters: str) -> None:
    letter, count = letters[0], len(letters)
    if letter in _REJECTED_LETTERS:
        raise _raise(pattern, _REJECTED_LETTERS[letter], f"the letter '{letter}'")
    if letter not in JAVA_LETTERS:
        raise _raise(pattern, WITH_SUGGESTION, f"the unknown letter '{letter}'")
    if letter == "X" and count > 5:
        raise _raise(pattern, WITH_SUGGESTION, f"too many letters '{letters}'")
    most = _MOST_LETTERS.get(letter)
    if most is not None and count > most:
        raise _raise(pattern, PATTERN_RECOGNITION, f"too many letters '{letters}'")


def compile_pattern(pattern: str) -> ParsingPattern:
    """The program that parses strings as Spark's ``to_timestamp(s, pattern)`` does.

    Raises:
        DatetimePatternError: with Spark's error class for a pattern Spark rejects, or
            ``VPUSH_UNSUPPORTED_FUNCTION`` for a letter or form vpush does not parse.
    """
    steps: list[list[int]] = []
    literals = bytearray()
    active: int | None = None  # the number step whose digits the next fixed-width numbers share
    seen: set[int] = set()

    def value(field: int, least: int, most: int, sign: int) -> None:
        """java.time's appendValue: a fixed-width number after a number joins its run
        (the run's first number leaves it the digits); another number starts a new run."""
        nonlocal active
        fixed = least == most and sign == NOT_NEGATIVE
        kind = REDUCED if field == YEAR and least == most == 2 else FRACTION if field == NANO else VALUE
        step = [kind, field, least, most, sign, 0]
        if active is not None and fixed:
            steps[active][5] += most
            step[5] = -1
            steps.append(step)
            return
        if active is not None:
            steps[active][5] = -1
        steps.append(step)
        active = len(steps) - 1

    def other(step: list[int]) -> None:
        nonlocal active
        active = None
        steps.append(step)

    for is_field, text in pattern_pieces(pattern):
        if not is_field:
            if not text.isascii():
                raise _raise(pattern, UNSUPPORTED, "literal text other than ASCII")
            other([LITERAL, -1, len(literals), len(text), 0, 0])
            literals += text.encode()
            continue
        _check_letters(pattern, text)
        letter, count = text[0], len(text)
        field = {"y": YEAR, "M": MONTH, "D": DAY_OF_YEAR, "a": AMPM, "S": NANO, "X": OFFSET_SECONDS,
                 "Z": OFFSET_SECONDS, **_TWO_DIGIT_FIELDS}.get(letter)
        if field is None or (letter == "X" and count > 3) or (letter == "Z" and count > 3):
            raise _raise(pattern, UNSUPPORTED, f"the letters '{text}'")
        if field in seen:
            raise _raise(pattern, UNSUPPORTED, f"a field written twice ('{text}')")
        seen.add(field)
        if letter == "y":
            if count == 2:
                value(YEAR, 2, 2, NOT_NEGATIVE)
            else:
                value(YEAR, count, 19, NORMAL if count < 4 else EXCEEDS_PAD)
        elif letter == "M" and count >= 3:
            other([TEXT, MONTH, MONTH_SHORT if count == 3 else MONTH_FULL, 0, 0, 0])
        elif letter == "D":
            value(DAY_OF_YEAR, 1, 19, NORMAL) if count == 1 else value(DAY_OF_YEAR, count, 3, NOT_NEGATIVE)
        elif letter == "a":
            other([TEXT, AMPM, AMPM_TEXT, 0, 0, 0])
        elif letter == "S":
            if count == 1:
                value(NANO, 1, 1, NOT_NEGATIVE)  # appendFraction(1, 1) takes part in adjacent parsing
            else:
                other([FRACTION, NANO, 1, count, 0, 0])
        elif letter == "X":
            form = (OFFSET_HH_MM_OPTIONAL, OFFSET_HHMM, OFFSET_HH_COLON_MM)[count - 1]
            other([OFFSET, OFFSET_SECONDS, form, NO_OFFSET_Z, 0, 0])
        elif letter == "Z":
            other([OFFSET, OFFSET_SECONDS, OFFSET_HHMM, NO_OFFSET_PLUS_ZEROS, 0, 0])
        elif count == 1:  # M d H h m s
            value(field, 1, 19, NORMAL)
        else:
            value(field, 2, 2, NOT_NEGATIVE)
    if DAY_OF_YEAR in seen and seen & {MONTH, DAY}:
        raise _raise(pattern, UNSUPPORTED, "a day of the year with a month or a day of the month")
    if HOUR in seen and seen & {CLOCK_HOUR_AMPM, AMPM}:
        raise _raise(pattern, UNSUPPORTED, "an hour of the day ('H') with 'h' or 'a'")
    return ParsingPattern([(s[0], s[1], s[2], s[3], s[4], s[5]) for s in steps], bytes(literals), OFFSET_SECONDS in seen)
