"""Java regular expressions (Spark's) as RE2 patterns (DuckDB's), for the subset that means the same.

Spark's regexp functions compile their pattern with ``java.util.regex`` (Java 17); DuckDB with
RE2. The two agree on literals, groups, alternation (leftmost first), greedy and lazy quantifiers,
``^`` (start of text), ``\\d`` and ``\\w``, and simple character classes. Where they differ the
translation, a parser over Java's syntax, either writes Java's meaning in RE2 or refuses the
pattern. It never hands RE2 a flag: every flag's effect is written out.

```
Java                RE2 written                          why
.                   [^\\n\\r\\x{85}\\x{2028}\\x{2029}]      Java's . stops at every line terminator, RE2's only at \\n
(?s) .  (?d) .      (?s:.) and [^\\n]
\\s  \\S              [\\t\\n\\x0B\\f\\r ] and [^...]          Java's \\s holds \\x0B, RE2's does not
(?i) a  [a-c]       [aA]  [a-cA-C]                       Java folds ASCII letters only, RE2 all of Unicode
\\p{Alpha} ...       [a-zA-Z] ...                         Java's POSIX classes are ASCII
(?<name>x)          (x)                                  a numbered group like any other
\\Q..\\E \\x{..} \\0o \\uhhhh \\cX \\e \\a \\h \\v \\R   the characters or sets they stand for (\\R not under a
                                                         quantifier, where Java does not retry its \\r alone)
$  \\Z               (?:\\r\\n)?\\z or [\\n\\r\\x{85}...]?\\z    at the end of the pattern, where the function asks
                                                         whether there is a match or where it starts (rlike,
                                                         regexp_instr): one pattern for texts ending in \\r\\n,
                                                         one for others
$  \\Z               \\z                                   at the end of the pattern elsewhere, where nothing else
                                                         can match a line terminator: over the text without
                                                         its final one (Re2Pattern.tail)
\\b \\B (?=..) (?m)^$ refused                              Unicode word boundaries, lookaround, Java's lines
x*+ x++ ...         refused                              possessive quantifiers (RE2 has none)
[a&&b] [[x]]        refused                              Java's class intersection and nesting
\\p{L} \\1 (?U) (?iu) refused                              Unicode tables of another version, backreferences,
                                                         Unicode case folding
```
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Re2Pattern", "Re2Replacement", "re2_pattern", "re2_replacement"]

_DOT = r"[^\n\r\x{85}\x{2028}\x{2029}]"
_SPACE = r"\t\n\x0B\f\r "
_HORIZONTAL = r"\t \x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}"
_VERTICAL = r"\n\x0B\f\r\x{85}\x{2028}\x{2029}"
_LINE_ENDING = r"(?:\r\n|[\n\x0B\f\r\x{85}\x{2028}\x{2029}])"
# Java's $ (and \Z) where nothing follows it, for a text that ends in \r\n (it holds before the
# \r\n and at the end, never between them) and for any other (before a final line terminator or
# at the end); under UNIX_LINES before a final \n or at the end
_END_CRLF = r"(?:\r\n)?\z"
_END_OTHER = r"[\n\r\x{85}\x{2028}\x{2029}]?\z"
_END_UNIX = r"\n?\z"
# The final line terminator a text may end in, which Java's $ holds before (under UNIX_LINES a \n)
_TAIL = r"(?:\r\n|[\n\r\x{85}\x{2028}\x{2029}])?\z"
_TAIL_UNIX = _END_UNIX
# Java's line terminators (Pattern's Dollar and `.`), and those of UNIX_LINES
_TERMINATORS = frozenset((0x0A, 0x0D, 0x85, 0x2028, 0x2029))
_UNIX_TERMINATORS = frozenset((0x0A,))
_NONE: frozenset[int] = frozenset()
_META = set("\\^$.|?*+()[]{}")
# Escapes whose meaning is the same in both (outside and inside a class)
_SAME_ESCAPES = set("dDwWtnrf")
# Java's POSIX classes (US-ASCII): their members inside an RE2 class, and RE2's POSIX class of the
# same members (ASCII too), whose [:^name:] is the complement inside a class
_POSIX = {
    "Lower": "a-z", "Upper": "A-Z", "ASCII": r"\x00-\x7F", "Alpha": "a-zA-Z", "Digit": "0-9", "Alnum": "a-zA-Z0-9",
    "Punct": r"!-/:-@\[-`{-~", "Graph": "!-~", "Print": r"\x20-~", "Blank": r"\t ", "Cntrl": r"\x00-\x1F\x7F",
    "XDigit": "0-9a-fA-F", "Space": _SPACE,
}
_POSIX_NAMES = {"Lower": "lower", "Upper": "upper", "ASCII": "ascii", "Alpha": "alpha", "Digit": "digit", "Alnum": "alnum",
                "Punct": "punct", "Graph": "graph", "Print": "print", "Blank": "blank", "Cntrl": "cntrl", "XDigit": "xdigit",
                "Space": "space"}
# The line terminators each set a class may hold holds, by the set's RE2 text (of the ASCII POSIX
# classes, \p{ASCII}, \p{Cntrl} and \p{Space} hold \n and \r)
_POSIX_TERMINATORS = {name: frozenset((0x0A, 0x0D)) if name in ("ASCII", "Cntrl", "Space") else _NONE for name in _POSIX}
_SET_TERMINATORS = {
    "\\d": _NONE, "\\w": _NONE, "\\D": _TERMINATORS, "\\W": _TERMINATORS, _HORIZONTAL: _NONE, _VERTICAL: _TERMINATORS,
    **{_POSIX[name]: held for name, held in _POSIX_TERMINATORS.items()},
    **{f"[:^{_POSIX_NAMES[name]}:]": _TERMINATORS - held for name, held in _POSIX_TERMINATORS.items()},
}
_GROUP_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9]*")
# Java's flags (Pattern's constants' letters)
_CASE_INSENSITIVE, _MULTILINE, _DOTALL, _UNIX_LINES, _UNICODE_CASE, _COMMENTS = "imsdux"
_KNOWN_FLAGS = set("imsdux")


@dataclass(frozen=True)
class Re2Pattern:
    """A Java pattern as RE2 writes it.

    Attributes:
        text: the RE2 pattern (where ``crlf_text`` differs: for a text that does not end in
            ``\\r\\n``).
        groups: how many capturing groups it has.
        nullable: whether it can match the empty string (Java and RE2 step past an empty match
            differently: by a UTF-16 unit and by a code point).
        names: the named groups' numbers.
        crlf_text: the RE2 pattern for a text that ends in ``\\r\\n`` (Java's ``$`` holds before
            it, not between its two characters); the same as ``text`` unless the pattern has a
            ``$`` (written so by :func:`re2_pattern` with ``match_only``).
        tail: for a pattern with a ``$`` written as ``\\z`` (:func:`re2_pattern` without
            ``match_only``), the RE2 pattern of the final line terminator (empty where there is
            none) the function is to take off the text and match ``text`` without, as no match
            reaches into it; then put back where the function gives the text back
            (``regexp_replace``, ``split``). None for a pattern without ``$``.
        ends_only: with ``tail``, every match ends where Java's ``$`` holds, so that Java's matches
            are the first match of ``text`` in the text without ``tail``, then, where
            ``empty_inside``, an empty one where that text ends (after a match that is not
            empty) and one at the very end (after a ``tail`` that is not empty).
        empty_inside: whether the pattern can match the empty string elsewhere than at the start.
    """

    text: str
    groups: int
    nullable: bool
    names: tuple[tuple[str, int], ...] = ()
    crlf_text: str | None = None
    tail: str | None = None
    ends_only: bool = False
    empty_inside: bool = False

    @property
    def ends_differ(self) -> bool:
        """Whether a text ending in ``\\r\\n`` needs ``crlf_text``."""
        return self.crlf_text is not None and self.crlf_text != self.text


@dataclass(frozen=True)
class Re2Replacement:
    """A Java replacement (``Matcher.appendReplacement``'s) as RE2's rewrite.

    Attributes:
        text: the RE2 rewrite (``\\1`` for a group, ``\\\\`` for a backslash); None where Java
            raises for every match (a ``$`` without a group's number, a group the pattern does
            not have, an unknown group name, a final lone backslash).
    """

    text: str | None


class _Refused(Exception):
    pass


@dataclass(frozen=True)
class _Atom:
    text: str
    nullable: bool
    # a zero-width assertion (no quantifier may follow it), and one that ends the match ($)
    anchor: bool = False
    ends: bool = False
    # holds Java's \R, whose two ways (\r\n, then \r) a quantifier around it does not retry
    line_ending: bool = False
    # the line terminators it can consume
    terminators: frozenset[int] = _NONE
    # every way through it ends at a $; it can match the empty string elsewhere than at the start
    always_ends: bool = False
    empty_inside: bool = False


def _remove_qe_quoting(pattern: str) -> str:
    """Java's own first pass (``Pattern.RemoveQEQuoting``): ``\\Q...\\E`` written as escaped
    characters, so that a quantifier after ``\\E`` repeats the last character only."""
    i = 0
    while i < len(pattern) - 1:  # the first \Q that is not itself escaped
        if pattern[i] != "\\":
            i += 1
        elif pattern[i + 1] != "Q":
            i += 2
        else:
            break
    if i >= len(pattern) - 1:
        return pattern
    start = i
    out = [pattern[:start]]
    i = start + 2
    quoting, beginning = True, True
    while i < len(pattern):
        c = pattern[i]
        i += 1
        if not c.isascii() or c.isalpha():
            out.append(c)
        elif c.isdigit():
            out.append(("\\x3" if beginning else "") + c)
        elif c != "\\":
            out.append(("\\" if quoting else "") + c)
        elif quoting:
            if pattern[i:i + 1] == "E":
                i += 1
                quoting = False
            else:
                out.append("\\\\")
        elif pattern[i:i + 1] == "Q":
            i += 1
            quoting, beginning = True, True
            continue
        else:
            out.append(c + pattern[i:i + 1])
            i += 1
        beginning = False
    return "".join(out)


def _literal(code: int) -> str:
    """One character as an RE2 atom."""
    c = chr(code)
    if c in _META:
        return "\\" + c
    if code < 0x20 or code == 0x7F or 0xD800 <= code <= 0xDFFF:
        if 0xD800 <= code <= 0xDFFF:
            raise _Refused  # a lone surrogate: no character of a UTF-8 text
        return f"\\x{{{code:X}}}"
    return c


def _class_char(code: int) -> str:
    """One character inside an RE2 class."""
    if 0xD800 <= code <= 0xDFFF:
        raise _Refused
    c = chr(code)
    return c if 0x20 <= code < 0x7F and c not in "\\[]^-" else f"\\x{{{code:X}}}"


def _ascii_case_partners(low: int, high: int) -> list[int]:
    """The ASCII letters outside ``[low, high]`` whose other case is inside: Java's
    case-insensitive range (``CIRange``) adds them."""
    letters = [ord(c) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"]
    return [c for c in letters if not low <= c <= high and low <= (c ^ 0x20) <= high]


class _Translator:
    def __init__(self, pattern: str, *, end: str | None, unix_end: str | None) -> None:
        self.s = pattern
        self.i = 0
        self.groups = 0
        self.names: dict[str, int] = {}
        self.flags: set[str] = set()
        self.end, self.unix_end = end, unix_end  # RE2 for a final $, and under UNIX_LINES (None: refused)
        self.ended = False  # a $ was written
        self.ended_unix = self.ended_other = False  # one under UNIX_LINES, one not
        self.text_end = False  # a \z was written

    # -- reading ---------------------------------------------------------------------------
    def skip_comments(self) -> None:
        """Under COMMENTS, Java's reader steps over ASCII whitespace and ``#`` comments to the end
        of a line wherever it peeks or reads (not after a backslash)."""
        if _COMMENTS not in self.flags:
            return
        while self.i < len(self.s):
            c = self.s[self.i]
            if c in " \t\n\x0b\f\r":
                self.i += 1
            elif c == "#":
                while self.i < len(self.s) and self.s[self.i] not in "\n\r\x85\u2028\u2029":
                    self.i += 1
            else:
                return

    def peek(self) -> str | None:
        self.skip_comments()
        return self.s[self.i] if self.i < len(self.s) else None

    def raw(self) -> str:
        """The next character as it is (an escape's letter or digits), or refused at the end."""
        if self.i >= len(self.s):
            raise _Refused
        c = self.s[self.i]
        self.i += 1
        return c

    def case_insensitive(self) -> bool:
        if _CASE_INSENSITIVE in self.flags and _UNICODE_CASE in self.flags:
            raise _Refused  # Java's Unicode case folding is not RE2's
        return _CASE_INSENSITIVE in self.flags

    # -- structure -------------------------------------------------------------------------
    def alternation(self) -> _Atom:
        parts = [self.sequence()]
        while self.peek() == "|":
            self.i += 1
            parts.append(self.sequence())
        return _Atom("|".join(p.text for p in parts), any(p.nullable for p in parts), ends=any(p.ends for p in parts),
                     line_ending=any(p.line_ending for p in parts), terminators=frozenset().union(*(p.terminators for p in parts)),
                     always_ends=all(p.always_ends for p in parts), empty_inside=any(p.empty_inside for p in parts))

    def sequence(self) -> _Atom:
        out, nullable, ended, line_ending, terminators, empty_inside, always_ends = [], True, False, False, _NONE, True, False
        while self.peek() not in (None, "|", ")"):
            atom = self.atom()
            if ended and not (atom.ends or (atom.text == "" and atom.anchor)):
                raise _Refused  # something after Java's $: only the end of the pattern is written
            quantified, minimum_zero = self.quantifier()
            if quantified and (atom.anchor or atom.ends or atom.text == "" or atom.line_ending):
                raise _Refused
            out.append(atom.text + quantified)
            nullable = nullable and (atom.nullable or minimum_zero)
            empty_inside = empty_inside and (atom.empty_inside or minimum_zero)
            ended = ended or atom.ends
            # (nothing but $ and flags may follow a $: a sequence through one ends at one)
            always_ends = always_ends or atom.always_ends
            line_ending = line_ending or atom.line_ending
            terminators |= atom.terminators
        return _Atom("".join(out), nullable, ends=ended, line_ending=line_ending, terminators=terminators, always_ends=always_ends,
                     empty_inside=empty_inside)

    def atom(self) -> _Atom:
        c = self.s[self.i]
        self.i += 1
        if c == "(":
            return self.group()
        if c == "[":
            text, held = self.character_class()
            return _Atom(text, False, terminators=held)
        if c == ".":
            if _DOTALL in self.flags:
                return _Atom("(?s:.)", False, terminators=_TERMINATORS)
            if _UNIX_LINES in self.flags:
                return _Atom("[^\\n]", False, terminators=_TERMINATORS - _UNIX_TERMINATORS)
            return _Atom(_DOT, False)
        if c == "^":
            if _MULTILINE in self.flags:
                raise _Refused  # Java's ^ after every line terminator but a final one
            return _Atom("^", True, anchor=True)
        if c == "$":
            if _MULTILINE in self.flags:
                raise _Refused
            return self.dollar()
        if c == "\\":
            return self.escape_atom()
        if c in _META:
            raise _Refused  # a quantifier with nothing to repeat, a stray ) ] { }
        return self.char_atom(ord(c))

    def dollar(self) -> _Atom:
        unix = _UNIX_LINES in self.flags
        end = self.unix_end if unix else self.end
        if end is None:
            raise _Refused
        self.ended = True
        self.ended_unix, self.ended_other = self.ended_unix or unix, self.ended_other or not unix
        return _Atom(end, True, anchor=True, ends=True, always_ends=True, empty_inside=True)

    def char_atom(self, code: int) -> _Atom:
        c = chr(code)
        if self.case_insensitive() and c.isascii() and c.isalpha():
            return _Atom(f"[{c.upper()}{c.lower()}]", False)
        return _Atom(_literal(code), False, terminators=_TERMINATORS & {code})

    def group(self) -> _Atom:
        saved = set(self.flags)
        if self.s.startswith("?:", self.i):
            self.i += 2
            prefix = "(?:"
        elif self.s.startswith("?<", self.i) and _GROUP_NAME.match(self.s, self.i + 2):
            name_match = _GROUP_NAME.match(self.s, self.i + 2)
            assert name_match is not None  # for mypy: matched above
            if self.s[name_match.end():name_match.end() + 1] != ">" or name_match.group() in self.names:
                raise _Refused  # a malformed name (Java raises) or one given twice
            self.groups += 1
            self.names[name_match.group()] = self.groups
            self.i = name_match.end() + 1
            prefix = "("
        elif self.peek() == "?":
            self.i += 1
            turned_on = True
            while self.i < len(self.s) and self.s[self.i] not in ":)":
                flag = self.s[self.i]
                if flag == "-" and turned_on:
                    turned_on = False
                elif flag in _KNOWN_FLAGS:
                    (self.flags.add if turned_on else self.flags.discard)(flag)
                else:
                    raise _Refused  # lookaround, atomic groups, (?U), (?c), or malformed
                self.i += 1
            if self.i >= len(self.s) or self.i == len(self.s) - 1 and self.s[self.i] == ":":
                raise _Refused
            if self.s[self.i] == ")":
                # the flags hold to the end of the enclosing group, as in Java
                self.i += 1
                return _Atom("", True, anchor=True, empty_inside=True)
            self.i += 1
            prefix = "(?:"
        else:
            self.groups += 1
            prefix = "("
        inner = self.alternation()
        if self.peek() != ")":
            raise _Refused
        self.i += 1
        self.flags = saved
        return _Atom(prefix + inner.text + ")", inner.nullable, ends=inner.ends, line_ending=inner.line_ending,
                     terminators=inner.terminators, always_ends=inner.always_ends, empty_inside=inner.empty_inside)

    # -- escapes ---------------------------------------------------------------------------
    def escape_atom(self) -> _Atom:
        c = self.raw()
        if c in "AzZ":
            if c == "A":
                return _Atom("^", True, anchor=True)
            if c == "z":
                self.text_end = True
                return _Atom("\\z", True, anchor=True, empty_inside=True)
            return self.dollar()  # \Z: Java's $ without MULTILINE
        if c == "R":
            return _Atom(_LINE_ENDING, False, line_ending=True, terminators=_TERMINATORS)
        if c in "hHvVsSpP":
            members = {"h": _HORIZONTAL, "v": _VERTICAL, "s": _SPACE}[c.lower()] if c not in "pP" else self.property()[0]
            held = _SET_TERMINATORS[members]
            negated = c.isupper()
            return _Atom(f"[{'^' if negated else ''}{members}]", False, terminators=_TERMINATORS - held if negated else held)
        if c in _SAME_ESCAPES:
            held = {"n": frozenset((0x0A,)), "r": frozenset((0x0D,)), "D": _TERMINATORS, "W": _TERMINATORS}.get(c, _NONE)
            return _Atom("\\" + c, False, terminators=held)
        self.i -= 1
        return self.char_atom(self.escaped_char())

    def escaped_char(self) -> int:
        """The character of an escape that stands for one (Java's ``escape`` returning one), or
        refused."""
        start = self.i
        code = self._escaped_char()
        if _COMMENTS in self.flags and self.s[start] in "0xuc" and any(c in " \t\n\x0b\f\r#" for c in self.s[start:self.i + 1]):
            raise _Refused  # Java reads these escapes' digits past whitespace and comments under COMMENTS
        return code

    def _escaped_char(self) -> int:
        c = self.raw()
        simple = {"t": 0x09, "n": 0x0A, "r": 0x0D, "f": 0x0C, "a": 0x07, "e": 0x1B}
        if c in simple:
            return simple[c]
        if c == "0":
            digits = ""
            while len(digits) < 3 and self.i < len(self.s) and "0" <= self.s[self.i] <= "7":
                if len(digits) == 2 and digits[0] > "3":
                    break
                digits += self.raw()
            if not digits:
                raise _Refused
            return int(digits, 8)
        if c == "x":
            if self.s.startswith("{", self.i):
                end = self.s.find("}", self.i)
                digits = self.s[self.i + 1:end] if end > 0 else ""
                if not digits or any(d not in "0123456789abcdefABCDEF" for d in digits) or int(digits, 16) > 0x10FFFF:
                    raise _Refused
                self.i = end + 1
                return int(digits, 16)
            digits = self.s[self.i:self.i + 2]
            if len(digits) != 2 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise _Refused
            self.i += 2
            return int(digits, 16)
        if c == "u":
            digits = self.s[self.i:self.i + 4]
            if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise _Refused
            self.i += 4
            code = int(digits, 16)
            if 0xD800 <= code <= 0xDFFF:
                raise _Refused  # a surrogate (Java pairs two \u escapes): not written
            return code
        if c == "c":
            return ord(self.raw()) ^ 64
        if c.isascii() and not c.isalnum():
            return ord(c)  # an escaped punctuation character is itself in both
        raise _Refused  # \b \B \G \X \N \k, backreferences, and what Java rejects

    def property(self) -> tuple[str, str]:
        """``\\p{Name}``'s POSIX class (after the ``p``): its members inside an RE2 class, and the
        name of RE2's own POSIX class of the same members; Unicode properties refused."""
        if not self.s.startswith("{", self.i):
            raise _Refused  # \pL: a Unicode category
        end = self.s.find("}", self.i)
        name = self.s[self.i + 1:end] if end > 0 else ""
        if name not in _POSIX:
            raise _Refused
        self.i = end + 1
        if name in ("Lower", "Upper") and self.case_insensitive():
            name = "Alpha"  # Java 17's CharPredicates: either case under CASE_INSENSITIVE
        return _POSIX[name], _POSIX_NAMES[name]

    # -- classes ---------------------------------------------------------------------------
    def character_class(self) -> tuple[str, frozenset[int]]:
        """A class (after its ``[``): its RE2 text, and the line terminators it holds."""
        out = ["["]
        negated = self.peek() == "^"
        if negated:
            out.append("^")
            self.i += 1
        first = True
        held: set[int] = set()
        while True:
            c = self.peek()
            if c is None or c == "[" or (c == "]" and first) or self.s.startswith("&&", self.i):
                raise _Refused  # unclosed, nested, a leading ] or an intersection
            if c == "]":
                self.i += 1
                return "".join(out) + "]", _TERMINATORS - held if negated else frozenset(held)
            low = self.class_member()
            if isinstance(low, str):
                out.append(low)
                held |= _SET_TERMINATORS[low]
            elif self.peek() == "-" and self.s[self.i + 1:self.i + 2] not in ("]", "["):
                self.i += 1
                if self.peek() in ("[", None):
                    raise _Refused
                high = self.class_member()
                if isinstance(high, str) or high < low:
                    raise _Refused  # Java's illegal range, or a set as an end
                out.append(_class_char(low) + "-" + _class_char(high))
                held |= {t for t in _TERMINATORS if low <= t <= high}
                if self.case_insensitive():
                    out.extend(chr(p) for p in _ascii_case_partners(low, high))
                if self.peek() == "-" and self.s[self.i + 1:self.i + 2] != "]":
                    raise _Refused  # [a-c-e]: Java's reading is not plain
            else:
                out.append(_class_char(low))
                held |= _TERMINATORS & {low}
                if self.case_insensitive():
                    out.extend(chr(p) for p in _ascii_case_partners(low, low))
            first = False

    def class_member(self) -> int | str:
        """A class member: a character (its code), or a set as RE2 writes it inside a class."""
        c = self.s[self.i]
        self.i += 1
        if c != "\\":
            return ord(c)
        c = self.raw()
        if c in "dDwW":
            return "\\" + c
        if c in "hvs":
            return {"h": _HORIZONTAL, "v": _VERTICAL, "s": _SPACE}[c]
        if c == "S":
            return "[:^space:]"
        if c in "pP":
            members, posix = self.property()
            return members if c == "p" else f"[:^{posix}:]"
        self.i -= 1
        return self.escaped_char()

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


def _translate(pattern: str, end: str | None, unix_end: str | None) -> tuple[_Atom, _Translator] | None:
    """``pattern`` as RE2 writes it (with ``end`` for a final ``$``, ``unix_end`` for one under
    UNIX_LINES), and its translator (for its groups and the ``$`` and ``\\z`` it wrote); None
    where refused."""
    translator = _Translator(pattern, end=end, unix_end=unix_end)
    try:
        whole = translator.alternation()
        if translator.i != len(pattern):
            raise _Refused
    except _Refused:
        return None
    return whole, translator


def re2_pattern(pattern: str, *, match_only: bool = False) -> Re2Pattern | None:
    """``pattern`` (Java's syntax) as an RE2 pattern of the same meaning; None where vpush does
    not know it to mean the same (see the module's table).

    A ``$`` (or ``\\Z``) with nothing after it is written in one of two ways. Where the function
    asks only whether there is a match (``rlike``) or where it starts (``regexp_instr``:
    ``match_only``), in one pattern for a text that ends in ``\\r\\n`` and one for the others: RE2
    then takes the same way through the pattern to the same place of Java's ``$`` as Java, and
    consumes the final line terminator after it. Elsewhere as ``\\z``, with :attr:`Re2Pattern.tail`
    the final line terminator to take off the text first, where no match can reach into it: the
    pattern consumes no line terminator (of UNIX_LINES: no ``\\n``) and has no ``\\z``; else refused.

    Args:
        pattern: the Java pattern.
        match_only: the function uses only whether and where a match starts.

    Example:
        >>> re2_pattern(r"(\\d+)\\.(x|y)?.").text
        '(\\\\d+)\\\\.(x|y)?[^\\\\n\\\\r\\\\x{85}\\\\x{2028}\\\\x{2029}]'
        >>> re2_pattern("a*").nullable, re2_pattern("(a)(?<b>b)").groups
        (True, 2)
        >>> re2_pattern("(?i)k[x-z]").text
        '[Kk][x-zXYZ]'
        >>> re2_pattern("a$", match_only=True).crlf_text
        'a(?:\\\\r\\\\n)?\\\\z'
        >>> re2_pattern("a$").text, re2_pattern("[^,]$") is None
        ('a\\\\z', True)
    """
    source = _remove_qe_quoting(pattern)
    if match_only:
        other = _translate(source, _END_OTHER, _END_UNIX)
        if other is None:
            return None
        whole, translator = other
        crlf = _translate(source, _END_CRLF, _END_UNIX) if translator.ended else other
        assert crlf is not None  # the same parse as ``other``'s
        return Re2Pattern(whole.text, translator.groups, whole.nullable, tuple(translator.names.items()), crlf[0].text)
    found = _translate(source, r"\z", r"\z")
    if found is None:
        return None
    whole, translator = found
    tail = None
    if translator.ended:
        # Java's $ holds only before the final line terminator and at the very end: in a text
        # without that terminator, which no match can reach into, that is \z
        unix = translator.ended_unix
        if translator.text_end or (unix and translator.ended_other):
            return None  # \z in Java's text is not \z in the shorter one; two terminators to take off
        if whole.terminators & (_UNIX_TERMINATORS if unix else _TERMINATORS):
            return None
        tail = _TAIL_UNIX if unix else _TAIL
    return Re2Pattern(whole.text, translator.groups, whole.nullable, tuple(translator.names.items()), whole.text, tail,
                      tail is not None and whole.always_ends, whole.empty_inside)


def re2_replacement(replacement: str, groups: int, names: tuple[tuple[str, int], ...] = ()) -> Re2Replacement | None:
    r"""``replacement`` (Java's ``appendReplacement`` syntax, for a pattern of ``groups`` groups
    and the named groups ``names``) as RE2's rewrite; None where RE2 cannot write it (a group
    past 9).

    Java reads a backslash as taking the next character as it is, ``$`` with the longest run of
    digits that still names a group (``$10`` of a one-group pattern is group 1, then ``0``) and
    ``${name}`` as the named group; a ``$`` without a digit or name, a first digit past the
    groups, an unknown name and a final backslash raise (:class:`Re2Replacement` with no text).

    Example:
        >>> print(re2_replacement(r"<$1|\$$2\\>", 2).text)
        <\1|$\2\\>
        >>> print(re2_replacement("$10", 1).text, re2_replacement("$2", 1).text)
        \10 None
        >>> print(re2_replacement("${h}!", 1, (("h", 1),)).text, re2_replacement("${x}", 1, (("h", 1),)).text)
        \1! None
    """
    named = dict(names)
    out: list[str] = []
    i = 0
    while i < len(replacement):
        c = replacement[i]
        if c == "\\":
            if i + 1 == len(replacement):
                return Re2Replacement(None)
            out.append("\\\\" if replacement[i + 1] == "\\" else replacement[i + 1])
            i += 2
        elif c == "$" and replacement[i + 1:i + 2] == "{":
            close = replacement.find("}", i + 2)
            name = replacement[i + 2:close] if close > 0 else ""
            if not _GROUP_NAME.fullmatch(name) or name not in named:
                return Re2Replacement(None)
            if named[name] > 9:
                return None
            out.append(f"\\{named[name]}")
            i = close + 1
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
