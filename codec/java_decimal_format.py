"""A ``java.text.DecimalFormat`` pattern as Spark's ``format_number(x, pattern)`` applies it.

Spark builds ``new DecimalFormat("", DecimalFormatSymbols(Locale.US))`` once and
``applyLocalizedPattern``-s the literal pattern on it (the empty pattern means its default
``#,###,###,###,###,###,##0``); HALF_EVEN rounding. :func:`parse_decimal_pattern` reads a
pattern as Java 17's ``applyPattern`` does with US symbols: a positive subpattern of a prefix,
the number part (``#``, ``0``, ``,``, ``.``) and a suffix, and an optional negative subpattern
after ``;`` of which only the prefix and suffix count (its number part is skipped). In an affix,
``'...'`` quotes text (``''`` is a quote), ``%`` multiplies by 100, ``‰`` by 1000 and ``-`` is
the minus sign; without a negative subpattern (or with one whose affixes equal the positive
ones) the negative prefix is ``-`` and the positive prefix.

Read by vpush: the minimum integer digits (the ``0`` before the point), the minimum and maximum
fraction digits, the grouping size (the digits after the last ``,``), whether the point is
always shown (``0.`` or ``.0``), the multiplier and the four affixes. Not reproduced, and
reported as :class:`UnsupportedPattern`: the exponent (``E``), the currency sign (``¤``),
number characters after the suffix began, and the patterns Java rejects (Spark fails with an
``IllegalArgumentException`` that has no error class).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_PATTERN", "DecimalPattern", "UnsupportedPattern", "parse_decimal_pattern"]

DEFAULT_PATTERN = "#,###,###,###,###,###,##0"
"""Spark's pattern for ``format_number(x, '')``."""

# DecimalFormat's limits for a double (NumberFormat's getters clamp to them): vpush refuses past them
_DOUBLE_INTEGER_DIGITS = 309
_DOUBLE_FRACTION_DIGITS = 340


class UnsupportedPattern(ValueError):
    """A pattern vpush does not format as Java does (or that Java rejects); the message says why."""


@dataclass(frozen=True)
class DecimalPattern:
    """What ``applyPattern`` sets from a pattern.

    Example:
        >>> p = parse_decimal_pattern("#,##0.00;(#)")
        >>> (p.min_int, p.min_frac, p.max_frac, p.grouping, p.negative_prefix, p.negative_suffix)
        (1, 2, 2, 3, '(', ')')
    """

    min_int: int
    min_frac: int
    max_frac: int
    grouping: int
    """The grouping size; 0: no grouping."""
    shift: int
    """The multiplier's power of ten: 0, 2 (``%``) or 3 (``‰``)."""
    always_point: bool
    positive_prefix: str
    positive_suffix: str
    negative_prefix: str
    negative_suffix: str

    @property
    def fast_path(self) -> bool:
        """Whether Java formats a double of at most ``Integer.MAX_VALUE`` by
        ``DecimalFormat.fastFormat`` (its own rounding of the exact binary value half to even,
        not ``Double.toString``'s digits: ``0.0005`` gives ``0.001``): grouping by 3, no
        multiplier, the point not always shown, one minimum integer digit, no minimum fraction
        digits and a maximum of exactly 3."""
        return (self.grouping == 3 and self.shift == 0 and not self.always_point and self.min_int == 1
                and self.min_frac == 0 and self.max_frac == 3)


def parse_decimal_pattern(pattern: str) -> DecimalPattern:
    """``pattern`` as Spark's ``format_number`` applies it (the empty one is Spark's default).

    Example:
        >>> parse_decimal_pattern("0.###%")
        DecimalPattern(min_int=1, min_frac=0, max_frac=3, grouping=0, shift=2, always_point=False, positive_prefix='', positive_suffix='%', negative_prefix='-', negative_suffix='%')

    Raises:
        UnsupportedPattern: a pattern vpush does not format exactly as Java does, or one Java
            rejects.
    """
    if pattern == "":
        pattern = DEFAULT_PATTERN
    start = 0
    positive: tuple[str, str] | None = None
    negative: tuple[str, str] | None = None
    numbers: tuple[int, int, int, int, bool] | None = None
    shift_seen = 0
    for part in (1, 0):
        if start >= len(pattern):
            break
        prefix: list[str] = []
        suffix: list[str] = []
        affix = prefix
        in_quote = False
        phase = 0
        shift = 0
        decimal_pos = -1
        digit_left = zero_digits = digit_right = 0
        grouping = -1
        pos = start
        while pos < len(pattern):
            ch = pattern[pos]
            if phase != 1:
                if ch == "'":  # '' is a quote, in quoted text or out of it; a lone ' opens or closes
                    if pattern.startswith("''", pos):
                        affix.append("'")
                        pos += 2
                    else:
                        in_quote = not in_quote
                        pos += 1
                    continue
                if in_quote:
                    affix.append(ch)
                    pos += 1
                    continue
                if ch in "#0,.":
                    if phase == 2:
                        raise UnsupportedPattern("a number character after the suffix began")
                    phase = 1
                    continue
                if ch == "\u00a4":
                    raise UnsupportedPattern("the currency sign")
                if ch == ";":
                    if phase == 0 or part == 0:
                        raise UnsupportedPattern("an unquoted ';' (Java rejects it)")
                    start = pos + 1
                    break
                if ch in "%\u2030":
                    if shift != 0:
                        raise UnsupportedPattern("more than one percent or per mille sign (Java rejects it)")
                    shift = 2 if ch == "%" else 3
                affix.append(ch)
                pos += 1
                continue
            if part == 0:
                while pos < len(pattern) and (pattern[pos] in "#0,." or pattern[pos] == "E"):
                    if pattern[pos] == "E":
                        raise UnsupportedPattern("the exponent")
                    pos += 1
                phase = 2
                affix = suffix
                continue
            if ch == "#":
                if zero_digits > 0:
                    digit_right += 1
                else:
                    digit_left += 1
                if grouping >= 0 and decimal_pos < 0:
                    grouping += 1
            elif ch == "0":
                if digit_right > 0:
                    raise UnsupportedPattern("a '0' after a '#' of the fraction (Java rejects it)")
                zero_digits += 1
                if grouping >= 0 and decimal_pos < 0:
                    grouping += 1
            elif ch == ",":
                grouping = 0
            elif ch == ".":
                if decimal_pos >= 0:
                    raise UnsupportedPattern("more than one decimal separator (Java rejects it)")
                decimal_pos = digit_left + zero_digits + digit_right
            elif ch == "E":
                raise UnsupportedPattern("the exponent")
            else:
                phase = 2
                affix = suffix
                continue
            pos += 1
        else:
            start = len(pattern)
        if zero_digits == 0 and digit_left > 0 and decimal_pos >= 0:
            n = decimal_pos if decimal_pos > 0 else 1
            digit_right = digit_left - n
            digit_left = n - 1
            zero_digits = 1
        if ((decimal_pos < 0 and digit_right > 0)
                or (decimal_pos >= 0 and (decimal_pos < digit_left or decimal_pos > digit_left + zero_digits))
                or grouping == 0 or in_quote):
            raise UnsupportedPattern("a malformed pattern (Java rejects it)")
        if grouping > 127:
            raise UnsupportedPattern("a grouping size over 127 (Java keeps it in a byte)")
        if part == 1:
            positive = ("".join(prefix), "".join(suffix))
            total = digit_left + zero_digits + digit_right
            effective = decimal_pos if decimal_pos >= 0 else total
            numbers = (
                effective - digit_left,
                digit_left + zero_digits - decimal_pos if decimal_pos >= 0 else 0,
                total - decimal_pos if decimal_pos >= 0 else 0,
                grouping if grouping > 0 else 0,
                decimal_pos == 0 or decimal_pos == total,
            )
            shift_seen = shift
        else:
            negative = ("".join(prefix), "".join(suffix))
    assert positive is not None and numbers is not None  # the pattern is not empty
    min_int, min_frac, max_frac, grouping_size, always_point = numbers
    if min_int > _DOUBLE_INTEGER_DIGITS or max_frac > _DOUBLE_FRACTION_DIGITS:
        raise UnsupportedPattern("more than 309 minimum integer or 340 fraction digits")
    if negative is None or negative == positive:
        negative = ("-" + positive[0], positive[1])
    return DecimalPattern(min_int, min_frac, max_frac, grouping_size, shift_seen, always_point,
                          positive[0], positive[1], negative[0], negative[1])
