"""Java regular expressions (Spark's) as RE2 patterns (DuckDB's), for the subset that means the same.

Spark's regexp functions compile their pattern with ``java.util.regex``; DuckDB's with RE2. The
two agree on literals, groups, alternation (leftmost first), greedy and lazy quantifiers,
``^`` (start of text), ``\\d`` and ``\\w``, and simple character classes. Where they differ the
translation either writes Java's meaning in RE2 or refuses the pattern:

```
Java          RE2 written                     why
.             [^\\n\\r\\x{85}\\x{2028}\\x{2029}]   Java's . stops at every line terminator, RE2's only at \\n
\\s  \\S        [\\t\\n\\x0B\\f\\r ] and [^...]       Java's \\s holds \\x0B, RE2's does not
$             refused                          Java's $ also matches before a final line terminator
\\b \\B (?...) refused                          Unicode word boundaries, flags, lookaround, named groups
x*+ x++ ...   refused                          possessive quantifiers (RE2 has none)
[a&&b] [[x]]  refused                          Java's class intersection and nesting
\\p{..} \\1 ... refused                          any other escape
```
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Re2Pattern", "Re2Replacement", "re2_pattern", "re2_replacement"]

_DOT = r"[^\n\r\x{85}\x{2028}\x{2029}]"
_SPACE = r"\t\n\x0B\f\r "
_META = set("\\^$.|?*+()[]{}")
# Escapes whose meaning is the same in both (outside and inside a class)
_SAME_ESCAPES = set("dDwWtnrf")


@dataclass(frozen=True)
class Re2Pattern:
    """A Java pattern as RE2 writes it.

    Attributes:
        text: the RE2 pattern.
        groups: how many capturing groups it has.
        nullable: whether it can match the empty string (Java and RE2 step past an empty match
            differently: by a UTF-16 unit and by a code point).
    """

    text: str
    groups: int
    nullable: bool


@dataclass(frozen=True)
class Re2Replacement:
    """A Java replacement (``Matcher.appendReplacement``'s) as RE2's rewrite.

    Attributes:
        text: the RE2 rewrite (``\\1`` for a group, ``\\\\`` for a backslash); None where Java
            raises for every match (a ``$`` without a group's number, a group the pattern does
            not have, a named group, a final lone backslash).
    """

    text: str | None


class _Refused(Exception):
    pass


class _Translator:
    def __init__(self, pattern: str) -> None:
        self.s = pattern
        self.i = 0
        self.groups = 0

    def peek(self) -> str | None:
        return self.s[self.i] if self.i < len(self.s) else None

    def alternation(self) -> tuple[str, bool]:
        parts = [self.sequence()]
        while self.peek() == "|":
            self.i += 1
            parts.append(self.sequence())
        return "|".join(p for p, _ in parts), any(n for _, n in parts)

    def sequence(self) -> tuple[str, bool]:
        out, nullable = [], True
        while self.peek() not in (None, "|", ")"):
            atom, atom_nullable = self.atom()
            if atom == "^" and self.peek() in ("*", "+", "?", "{"):
                raise _Refused
            quantified, minimum_zero = self.quantifier()
            out.append(atom + quantified)
            nullable = nullable and (atom_nullable or minimum_zero)
        return "".join(out), nullable

    def atom(self) -> tuple[str, bool]:
        c = self.s[self.i]
        self.i += 1
        if c == "(":
            if self.s.startswith("?:", self.i):
                self.i += 2
                prefix = "(?:"
            elif self.peek() == "?":
                raise _Refused  # flags, lookaround, named or atomic groups
            else:
                self.groups += 1
                prefix = "("
            inner, nullable = self.alternation()
            if self.peek() != ")":
                raise _Refused
            self.i += 1
            return prefix + inner + ")", nullable
        if c == "[":
            return self.character_class(), False
        if c == ".":
            return _DOT, False
        if c == "^":
            return "^", True
        if c == "\\":
            return self.escape(in_class=False), False
        if c in _META:
            raise _Refused  # $, a quantifier with nothing to repeat, a stray ) ] { }
        return c, False

    def escape(self, *, in_class: bool) -> str:
        c = self.peek()
        if c is None:
            raise _Refused
        self.i += 1
        if c in _SAME_ESCAPES:
            return "\\" + c
        if c == "s":
            return _SPACE if in_class else f"[{_SPACE}]"
        if c == "S" and not in_class:
            return f"[^{_SPACE}]"
        if c.isascii() and not c.isalnum():
            return "\\" + c  # an escaped punctuation character is itself in both
        raise _Refused

    def character_class(self) -> str:
        out = ["["]
        if self.peek() == "^":
            out.append("^")
            self.i += 1
        first = True
        while True:
            c = self.peek()
            if c is None or c == "[" or (c == "]" and first) or self.s.startswith("&&", self.i):
                raise _Refused  # unclosed, nested, a leading ] or an intersection
            if c == "]":
                self.i += 1
                return "".join(out) + "]"
            out.append(self.class_member())
            if self.peek() == "-" and self.s[self.i + 1:self.i + 2] not in ("]", ""):
                self.i += 1
                if self.peek() in ("[", "\\"):
                    raise _Refused
                out.append("-" + self.class_member())
                if self.peek() == "-" and self.s[self.i + 1:self.i + 2] != "]":
                    raise _Refused  # [a-c-e]: Java's reading is not plain
            first = False

    def class_member(self) -> str:
        c = self.s[self.i]
        self.i += 1
        if c == "\\":
            return self.escape(in_class=True)
        return "\\" + c if c in "^-" else c

    def quantifier(self) -> tuple[str, bool]:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.i += 1
            text, minimum_zero = c, c != "+"
        elif c == "{":
            end = self.s.find("}", self.i)
            body = self.s[self.i + 1:end] if end > 0 else ""
            low, _, high = body.partition(",")
            if not low.isdigit() or not (high == "" or high.isdigit()) or int(low) > 1000 or (high and not int(low) <= int(high) <= 1000):
                raise _Refused
            self.i = end + 1
            text, minimum_zero = "{" + body + "}", int(low) == 0
        else:
            return "", False
        if self.peek() == "?":
            self.i += 1
            text += "?"
        elif self.peek() == "+":
            raise _Refused  # possessive
        if self.peek() in ("*", "+", "?", "{"):
            raise _Refused
        return text, minimum_zero


def re2_pattern(pattern: str) -> Re2Pattern | None:
    """``pattern`` (Java's syntax) as an RE2 pattern of the same meaning; None where vpush does
    not know it to mean the same (see the module's table).

    Example:
        >>> re2_pattern(r"(\\d+)\\.(x|y)?.").text
        '(\\\\d+)\\\\.(x|y)?[^\\\\n\\\\r\\\\x{85}\\\\x{2028}\\\\x{2029}]'
        >>> re2_pattern("a*").nullable, re2_pattern("(a)(b)").groups
        (True, 2)
        >>> re2_pattern("a$") is None
        True
    """
    translator = _Translator(pattern)
    try:
        text, nullable = translator.alternation()
        if translator.i != len(pattern):
            raise _Refused
    except _Refused:
        return None
    return Re2Pattern(text, translator.groups, nullable)


def re2_replacement(replacement: str, groups: int) -> Re2Replacement | None:
    r"""``replacement`` (Java's ``appendReplacement`` syntax, for a pattern of ``groups`` groups) as
    RE2's rewrite; None where RE2 cannot write it (a group past 9).

    Java reads a backslash as taking the next character as it is, and ``$`` with the longest run
    of digits that still names a group (``$10`` of a one-group pattern is group 1, then ``0``);
    ``${name}``, a ``$`` without a digit, a first digit past the groups and a final backslash
    raise (:class:`Re2Replacement` with no text).

    Example:
        >>> print(re2_replacement(r"<$1|\$$2\\>", 2).text)
        <\1|$\2\\>
        >>> print(re2_replacement("$10", 1).text, re2_replacement("$2", 1).text)
        \10 None
    """
    out: list[str] = []
    i = 0
    while i < len(replacement):
        c = replacement[i]
        if c == "\\":
            if i + 1 == len(replacement):
                return Re2Replacement(None)
            out.append("\\\\" if replacement[i + 1] == "\\" else replacement[i + 1])
            i += 2
        elif c == "$":
            digit = replacement[i + 1] if i + 1 < len(replacement) else ""
            if not ("0" <= digit <= "9") or int(digit) > groups:
                return Re2Replacement(None)
            number, i = int(digit), i + 2
            while i < len(replacement) and "0" <= replacement[i] <= "9" and number * 10 + int(replacement[i]) <= groups:
                number, i = number * 10 + int(replacement[i]), i + 1
            if number > 9:
                return None
            out.append(f"\\{number}")
        else:
            out.append(c)
            i += 1
    return Re2Replacement("".join(out))
