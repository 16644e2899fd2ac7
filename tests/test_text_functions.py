"""Spark's ``get_json_object`` and regexp functions on the DuckDB engine, checked against PySpark
on both engines, over one table.

Column ``j`` holds JSON texts that Jackson (with Spark's single quotes and raw control characters)
reads and fails to read in many ways: numbers Jackson re-prints (``1.50`` as ``1.5``, ``1e400`` as
``"Infinity"``), escapes and characters past U+FFFF, duplicate and null fields, text after the
root value, truncated and over-deep texts. Column ``s`` holds the line terminators Java's ``.``
stops at (``\\r``, U+0085, U+2028), the vertical tab Java's ``\\s`` matches, characters past U+FFFF
and NULL, for ``regexp_count``, ``regexp_extract_all``, ``regexp_substr``, ``regexp_instr`` and the
patterns of ``rlike``, ``regexp_extract`` and ``regexp_replace``, which DuckDB runs with RE2 on the
pattern ``vpush.optimizer.java_regex`` writes for Java's. The checks are those of
``tests/test_spark_functions.py``: names, types and values must agree exactly; what vpush does not
answer is refused on DuckDB and run by the Spark engine.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa
import pytest
from test_spark_functions import _assert_raises_as_spark, _check, _chunks

import vpush
from support.refused import assert_refused_on_duckdb
from support.tables import table_fixtures

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TEXTS = [
    '{"a":1,"b":[1,2,{"c":"x"}],"d":{"e":null,"f":1.50,"g":"h\\"i","u":"\\u00e9"}}',
    '{"a":1,"a":2}', '{"a":null,"a":2}', '  {"a" : "x"}  ', '{"a":NaN}', '{"a":01}', '"str"', '"a\\qb"',
    '{"a":"\\ud83d\\ude00 😀 é"}', '{"a":"é\\n\\u0001\\u007f/\\/\\b\\f\\r\\t\\u2028"}', "{'a':'q\"\\''}", "{'a':1, \"b\":'2'}",
    '{"a":-0}', '{"a":-0.0e0}', '{"a":1e400,"b":-1e400}', '{"a":1.}', '{"a":.5}', '{"a":+1}', '{"a":1,}', '{"a":[1,]}',
    '{"a":"x\ty\n"}', '{"a":"\\q"}', '{"a":1}x', '{"a":1}}', '[1,2', '{"a":{"b":1}', '{"b":1,"a":2', '{"a":2,"b":',
    '{"a":1.0}', '{"a":123456789.0}', '{"a":1.23456789012345678901}', '{"a":9223372036854775808}', '{"a":1e-7}',
    '{"a":[0.1,2e22,1E2,-5,0.001,1e7]}', '{"a":[{"b":"\\""}],"c":true,"d":false,"e":null}', 'null', '1', '1x', '1 x',
    'true', 'truex', '[null,[],{}]', '', '   ', '{"a":"\\u00"}', '{"a" 1}', '{1:2}', '{"a":tru}', '{"a":1}  ',
    '{"a b":1,"a.b":2,"$":3,"":4,"\\u0061":5}', '{"\\u0061":5,"a":6}', '[1,[2,3],{"a":[4,5]}]', '{"é":{"ü":[10,11]}}',
    '{"a":[[1,2],[3]],"b":{"a":{"a":7}}}', '{"a":"\\ud83d"}', '{"a":[null]}', '{"a" : [ 1 , { "b" : 2 } ] , "b" : 3 }',
    "[" * 1000 + "]" * 1000, "[" * 1001 + "]" * 1001, '{"a":[' + "[" * 999 + "]" * 999 + "]}", None,
]
WORDS = ["Robert", "Rupert", "Ashcraft", "Tymczak", "Pfister", "HONEYMAN", "a-b c", "Hwbc", "Lloyd", "Bb", "héllo", "",
         None, "1abc", "éa", "Ww", "AEIOU", "bfpv", "Jackson", "x", "Sch-midt", "o'Hara", "Gutiérrez", "😀abc"]
REGEXP_TEXTS = ["a1b22c", "abcab", "", None, "a\r\nb\u0085c\u2028d", "x\u000by z", "😀ab😀b", "aaa", "AbC.d-e", "é1ü22"]

# Column ``r``: texts for Java's flags, anchors, escapes and POSIX classes: ASCII and non-ASCII
# letters whose case RE2 folds and Java (without UNICODE_CASE) does not (the Kelvin sign, long s,
# dotted I), and every Java line terminator at the end
FLAG_TEXTS = ["ERROR: disk", "error", "Error at foo.com", "foo.com", "foo.com\n", "foo.com\r\n", "foo.com\r", "foo.com\u2028",
              "foo.com\u0085", "a.com\u2029", "x\r\r\n", "\r\n", "\n", "", "KELVIN \u212a k", "straße STRASSE \u017f", "İi ıI",
              "École ÉCOLE école", "tab\there\u000b", "q\\e [x]{y}", "\x1b[0m\x07", "µ Μ μ ǅ", "\u00a0nbsp\u2003", "Punct!?#",
              "0x1F hex A", "😀 Ab 😀", "host/path", None, "a\nb\n", "line1\r\nline2"]

TABLE = pa.table({
    "j": pa.array(TEXTS, pa.string()),
    "s": pa.array([REGEXP_TEXTS[k % len(REGEXP_TEXTS)] for k in range(len(TEXTS))], pa.string()),
    "n": pa.array(range(len(TEXTS)), pa.int32()),
    "w": pa.array([WORDS[k % len(WORDS)] for k in range(len(TEXTS))], pa.string()),
    "r": pa.array([FLAG_TEXTS[k % len(FLAG_TEXTS)] for k in range(len(TEXTS))], pa.string()),
})

PATHS = ["$", "$.a", "$.b", "$.a[0]", "$.a[1]", "$['a']", "$.b[2].c", "$.d.e", "$.d.f", "$.d.g", "$.d.u", "$[0]", "$[1]",
         "$[2]", "$[2].a[1]", "$['a.b']", "$.$", "$.é.ü[1]", "$.a[1].b", "$.a[0][1]", "$.b.a.a", "$.c", "$.e", "$.a[01]",
         "$.a[5]", "$.a.b", "$['a'][0]", "$.b[0]"]

JSON_CALLS = [f"get_json_object(j, '{p}')" if "'" not in p else f'get_json_object(j, "{p}")' for p in PATHS] + [
    "get_json_object(j, NULL)", "get_json_object(NULL, '$.a')", "get_json_object('{\"k\": [1, 2]}', '$.k[1]')",
    "get_json_object(concat('{\"n\":', string(n), '}'), '$.n') AS n2",
]

REGEXP_CALLS = [
    "regexp_count(s, 'ab')", "regexp_count(s, '.')", "regexp_count(s, '\\\\s')", "regexp_count(s, '\\\\S+')", "regexp_count(s, 'aa')",
    "regexp_count(s, '[a-c]')", "regexp_count(s, '\\\\d+')", "regexp_count(s, '[^\\\\s]')", "regexp_count(s, NULL)",
    "regexp_extract_all(s, '([a-z])(\\\\d+)?')", "regexp_extract_all(s, '([a-z])(\\\\d+)?', 2)", "regexp_extract_all(s, '.', 0)",
    "regexp_extract_all(s, '(a|ab)(c|bcd)?', 0)", "regexp_extract_all(s, '[^a-c]+', 0)", "regexp_extract_all(s, 'b.', 0)",
    "regexp_extract_all(s, '\\\\w+', 0)", "regexp_extract_all(s, '(\\\\d)(x)?', 2)", "regexp_extract_all(s, '(?:a)(b+?)', 1)",
    "regexp_extract_all(s, 'a{2}|b{1,}', 0)", "regexp_extract_all(s, '[\\\\.\\\\-]', 0)",
    "regexp_substr(s, 'b+')", "regexp_substr(s, 'x*')", "regexp_substr(s, '.b')", "regexp_substr(s, '[\\\\s]+')", "regexp_substr(s, '\\\\d\\\\d')",
    "regexp_instr(s, 'b')", "regexp_instr(s, 'x*')", "regexp_instr(s, '\\\\d')", "regexp_instr(s, 'b', 0)", "regexp_instr(s, '.b')",
    "regexp_instr(s, 'z|d')", "regexp_substr(NULL, 'a')",
    # the listed functions' patterns are written in RE2 the same way
    "s RLIKE '.b'", "s RLIKE '\\\\s'", "regexp_like(s, '^a.b')", "regexp_extract(s, 'a.', 0)", "regexp_extract(s, '(\\\\S)\\\\s', 1)",
    "regexp_replace(s, '\\\\s', '_')", "regexp_replace(s, '.', 'x')",
    # Java's replacement: $n the longest number that names a group, a backslash taking the next character
    "regexp_replace(s, '([a-c])(\\\\d)?', '<$2|$1>')", "regexp_replace(s, '(b)', '\\\\$1\\\\\\\\')", "regexp_replace(s, '(a)(b)', '$12$0')",
    "regexp_replace(s, '(a)', '$10')", "regexp_replace(s, '(\\\\d)', '\\\\n$1')", "regexp_replace(s, 'zz', '$1')", "regexp_replace(s, '(b)', NULL)",
    # a position counts characters (past U+FFFF too), a pattern's ^ matching there
    "regexp_replace(s, 'b', 'x', 3)", "regexp_replace(s, '(\\\\d)', '<$1>', 2L)", "regexp_replace(s, '.', '-', 4)",
    "regexp_replace(s, '^.', '-', 2)", "regexp_replace(s, 'b', 'x', NULL)", "regexp_replace(s, 'b', 'x', 1)",
    "split(s, '.b')", "split(s, '\\\\s')", "split(s, 'a')",
    # split with a limit (Java's String.split: 0 or less every part; else the rest kept whole in the last)
    "split(s, 'b', 2)", "split(s, '\\\\s', 1)", "split(s, '[a-c]', 3)", "split(s, 'a', 0)", "split(s, 'b', -1)",
    "split(s, '\\\\d+', length(s) % 4)", "split(s, 'é', 2)", "split(s, 'b', 2L)", "split(s, 'b', NULL)",
    "regexp_extract_all(s, '(?i)a', 0)", "rlike(s, 'b$')", "regexp_extract(s, '(?i)a', 0)", "regexp_count(s, 'b$')",
    # a group index past the groups raises only for a row with a match
    "regexp_extract(s, 'zz')", "regexp_extract(s, '(zz)', 3)", "regexp_extract(s, '(b)', NULL)",
]



def _java(pattern: str) -> str:
    """A Java pattern as a Spark SQL string literal."""
    return "'" + pattern.replace("\\", "\\\\").replace("'", "\\'") + "'"


# Java's flags ((?i) folds ASCII letters only), $ and \Z (before a final line terminator too),
# escapes, \Q..\E, POSIX classes and named groups, as RE2 writes them
FLAG_CALLS = [call.format(*(_java(p) for p in patterns)) for call, *patterns in [
    ("r RLIKE {}", r"(?i)error"), ("r RLIKE {}", r"\.com$"), ("rlike(r, {})", r"com\s*$"), ("regexp_like(r, {})", r"^\r?\n$"),
    ("r RLIKE {}", r"\r$"), ("r RLIKE {}", r"\n$"), ("r RLIKE {}", r"(?d)\r$"), ("r RLIKE {}", r"(?d)m$"), ("r REGEXP {}", r"m\Z"),
    ("regexp(r, {})", r"(com|\n)$"), ("r RLIKE {}", r"[\r\n]$"), ("r RLIKE {}", r"(?s).$"), ("r RLIKE {}", r"^$"), ("r RLIKE {}", r"a$|^\n$$"),
    ("r RLIKE {}", r"(?m)o"), ("r RLIKE {}", r"(?i)K$"), ("r RLIKE {}", r".$"), ("regexp_like(r, {})", r"\R$"),
    ("regexp_instr(r, {})", r"\.com$"), ("regexp_instr(r, {})", r"\r$"), ("regexp_instr(r, {})", r"o\s*$"),
    ("regexp_instr(r, {})", r"\n$"), ("regexp_instr(r, {})", r"(?d)\r$"), ("regexp_instr(r, {})", r"(\s|m)\Z"),
    ("regexp_extract(r, {}, 1)", r"(?i)(e)rror"), ("regexp_replace(r, {}, '_')", r"(?i)k"), ("regexp_count(r, {})", r"(?i)[a-z]"),
    ("regexp_extract_all(r, {}, 0)", r"(?i)s+"), ("regexp_substr(r, {})", r"(?i)ss"), ("regexp_instr(r, {})", r"(?i)é"),
    ("split(r, {})", r"(?i)[i]"), ("regexp_replace(r, {}, '.')", r"(?s)."), ("regexp_count(r, {})", r"(?s)\n."),
    ("regexp_count(r, {})", r"\R"), ("regexp_extract_all(r, {}, 0)", r"\R"), ("regexp_replace(r, {}, '_')", r"\h"),
    ("regexp_replace(r, {}, '|')", r"\v"), ("regexp_count(r, {})", r"\p{Punct}"), ("regexp_extract_all(r, {}, 0)", r"\p{Alpha}+"),
    ("regexp_count(r, {})", r"\P{ASCII}"), ("regexp_count(r, {})", r"[\p{Punct}\s]"), ("regexp_count(r, {})", r"[^\p{Alnum}]"),
    ("regexp_extract(r, {}, 2)", r"(?<host>[^/]+)/(?<rest>.*)"), ("regexp_replace(r, {}, '$2:$1')", r"(?<h>[^/]+)(/)"),
    ("regexp_replace(r, {}, '[$1]')", r"(?<a>o)"), ("regexp_replace(r, {}, '!')", r"\Q.com\E"),
    ("regexp_count(r, {})", r"\x41|\u00e9|\x{1F600}|\0101|\x{212A}"), ("regexp_count(r, {})", r"\t|\e|\a|\cK|\0133"),
    ("regexp_extract_all(r, {}, 0)", "(?x) [a-z] + # letters\n | [0-9]"), ("regexp_replace(r, {}, 'E')", r"\Ae"),
    ("regexp_extract(r, {}, 0)", r"m\z"), ("regexp_count(r, {})", r"(?i)\p{Lower}"), ("regexp_count(r, {})", r"\p{Upper}"),
    ("regexp_count(r, {})", r"(?i)[^k]"), ("regexp_count(r, {})", r"(?i)[Z-a]"), ("regexp_count(r, {})", r"(?i:e)rror|E(?i)RROR"),
    ("split(r, {})", r"\p{Space}"), ("regexp_count(r, {})", r"(?d)."), ("regexp_replace(r, {}, 'x')", r"(?i)e(?-i)e|(?i:[é])"),
    ("regexp_count(r, {})", r"[\S]"), ("regexp_count(r, {})", r"\H"), ("regexp_count(r, {})", r"\V"),
    ("regexp_count(r, {})", r"(?i)\Qab\E"), ("regexp_count(r, {})", r"\Q1+\E+|\Q[x]"), ("regexp_extract_all(r, {}, 0)", r"\p{XDigit}+"),
    ("regexp_count(r, {})", r"\p{Cntrl}"), ("regexp_count(r, {})", r"\p{Graph}"), ("regexp_count(r, {})", r"\p{Print}"),
    ("regexp_count(r, {})", r"\p{Blank}"), ("regexp_count(r, {})", r"(?i)\P{Upper}"), ("regexp_count(r, {})", r"[\x00-\x1F\x7F]"),
    ("regexp_count(r, {})", r"(?i)[\x{212A}ſ]"), ("regexp_count(r, {})", r"(?i)[i-k]"), ("regexp_count(r, {})", r"(?iu)\d"),
    ("regexp_count(r, {})", r"\R\n"),
    # $ where the match's text counts: over the text without its final line terminator, which no
    # match reaches into, given back by regexp_replace and split
    ("regexp_extract(r, {}, 0)", r"com$"), ("regexp_replace(r, {}, '-')", r"o$"), ("regexp_replace(r, {}, '<$0>')", r"m$|\."),
    ("regexp_extract(r, {}, 2)", r"(\w+)\.(\w+)\Z"), ("regexp_extract_all(r, {}, 0)", r"[a-z]$|o"), ("regexp_substr(r, {})", r"\w*$"),
    ("split(r, {})", r"m$|\."), ("split(r, {}, 2)", r"o$|\."), ("regexp_replace(r, {}, '!', 5)", r"m$"),
    ("regexp_count(r, {})", r"(?d)\r$|o"), ("regexp_extract(r, {}, 0)", r"x?$"),
    # where only a match's existence or start counts, $ after what can take the final terminator in
    ("regexp_instr(r, {})", r"\s+$"), ("r RLIKE {}", r"[^/]+$"), ("regexp_instr(r, {})", r"\s+?$"),
    # and every match ending at $, empty ones too: the first, then an empty one where the text
    # without its final terminator ends (after one that is not empty) and one at the very end
    ("regexp_replace(r, {}, '!')", r"$"), ("regexp_replace(r, {}, '<$0|$1>')", r"(m)*$"), ("regexp_count(r, {})", r"$"),
    ("regexp_extract_all(r, {}, 1)", r"(m)*\Z"), ("split(r, {})", r"$"), ("split(r, {}, 0)", r"o*$"), ("regexp_count(r, {})", r"^m*$"),
    # with a positive limit: the whole text for 1, else the first limit - 1 parts and the rest
    ("split(r, {}, 1)", r"m*$"), ("split(r, {}, 2)", r"$"), ("split(r, {}, 3)", r"m?$"), ("split(r, {}, n % 5 - 1)", r"(o|m)*\Z"),
]]

WORD_CALLS = [
    "soundex(w)", "soundex(j)", "soundex(NULL)", "overlay(w, 'XY', n % 7 - 3)", "overlay(w PLACING 'Q' FROM 2 FOR n % 5 - 1)",
    "overlay(w, 'Z', 2, 0)", "overlay(w, '', -2)", "overlay(w, 'é😀', 3, 1)", "overlay(w, NULL, 1)", "overlay(w, 'ab', -2147483647)",
    "overlay(w, 'ab', 2147483647, 5)", "overlay(w, s, n % 4)", "overlay('abcdef', w, 3, 2)",
]

CALLS = JSON_CALLS + REGEXP_CALLS + FLAG_CALLS + WORD_CALLS

# Paths vpush does not evaluate (wildcards, whitespace Spark drops in places, a path that is not a literal)
REFUSED = ["get_json_object(j, '$.a[*]')", "get_json_object(j, '$.*')", "get_json_object(j, '$. a')",
           "get_json_object(j, '$[*].a')", "get_json_object(j, j)", "get_json_object(j, '$..a')"]
# Patterns whose meaning vpush cannot show to be the same in Java and RE2, and forms it does not take
REFUSED += [
    "regexp_count(s, 'a*')", "regexp_substr(s, '\\\\bx')",
    "regexp_instr(s, '(b)', 1)", "regexp_count(s, s)", "regexp_extract_all(s, 'a++', 0)", "regexp_count(s, '[a&&b]')",
    "regexp_count(s, '\\\\p{L}')", "regexp_replace(s, 'x*', '-')", "rlike(s, s)",
    "split(s, 'x*')", "regexp_replace(s, '(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)', '$10')", "regexp_replace(s, 'a', s)",
]
# Java's \b (Unicode letters and digits), (?m)'s ^ and $, Unicode properties and case folding,
# lookbehind, backreferences by name
REFUSED += [call.format(_java(pattern)) for call, pattern in [
    ("regexp_count(r, {})", r"\bfoo"), ("r RLIKE {}", r"(?m)^a"), ("r RLIKE {}", r"x$y"),
    ("r RLIKE {}", r"\p{L}"), ("regexp_count(r, {})", r"(?U)\w"), ("regexp_count(r, {})", r"(?iu)k"), ("r RLIKE {}", r"(?<=a)b"),
    ("r RLIKE {}", r"(?<n>a)\k<n>"), ("r RLIKE {}", r"(a$)?"), ("regexp_extract(r, {}, 0)", r"\p{Lu}+"), ("split(r, {})", r"\P{L}"),
    ("regexp_replace(r, {}, '|')", r"\b"),
    # $ after what can match a line terminator (a match may reach into the final one), beside \z
    ("regexp_replace(r, {}, '')", r"\s+$"), ("regexp_extract(r, {}, 0)", r"[^/]+$"), ("regexp_count(r, {})", r"m$|a\z"),
    # an empty match not at $, a position or limit with one at $
    ("regexp_count(r, {})", r"m$|o*"), ("regexp_count(r, {})", r"(?:m$|o*)"), ("regexp_replace(r, {}, '!', 2)", r"$"),
    # a quantified \R (Java does not retry its \r alone), an escape's digits past whitespace under (?x)
    ("regexp_count(r, {})", r"\w\R{2}"), ("regexp_count(r, {})", r"(?x)\01 2"),
]]


table_path, con, spark_con, spark_view = table_fixtures("text", TABLE)


@pytest.mark.parametrize("calls", _chunks(CALLS, 16))
def test_duckdb_engine_answers_as_spark(calls: list[str], spark_view: SparkSession, con: vpush.Connection) -> None:
    _check(["n", *calls], spark_view, con)


def test_spark_engine_answers_as_spark(spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    """What DuckDB refuses runs on the Spark engine, in one query."""
    _check(["n", *REFUSED], spark_view, spark_con)


@pytest.mark.parametrize("call", REFUSED)
def test_refused_on_duckdb(call: str, con: vpush.Connection) -> None:
    assert_refused_on_duckdb(con, call)


# json_tuple: a generator of one row per row; a field's last value that is not null, printed as
# get_json_object prints it; all NULL for text Jackson fails to read before the object's end
JSON_TUPLES = ["json_tuple(j, 'a', 'b', 'a', 'a.b', '', '$', 'é', 'c', 'd', 'A', 'a b')",
               "json_tuple(j, 'a', 'e') AS (x, y), json_tuple(s, 'a')", "json_tuple(concat('{\"n\":', string(n), '}'), 'n') AS n2"]


@pytest.mark.parametrize("call", JSON_TUPLES)
def test_json_tuple_as_spark(call: str, spark_view: SparkSession, con: vpush.Connection, spark_con: vpush.Connection) -> None:
    _check(["n", call], spark_view, con)
    _check(["n", call], spark_view, spark_con)


@pytest.mark.parametrize(("call", "wanted"), [("json_tuple(j, NULL)", "DATATYPE_MISMATCH.NON_STRING_TYPE"),
                                              ("json_tuple(n, 'a')", "DATATYPE_MISMATCH.NON_STRING_TYPE"),
                                              ("json_tuple(j, 'a', 'b') AS x", "UDTF_ALIAS_NUMBER_MISMATCH")])
def test_json_tuple_raises_as_spark(call: str, wanted: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    _assert_raises_as_spark(call, spark_view, con, (wanted,))


@pytest.mark.parametrize("call", ["json_tuple(j, s)", "json_tuple(j, 'a'), count(*)"])
def test_json_tuple_refused_on_duckdb(call: str, con: vpush.Connection) -> None:
    """A field name that is not a literal, and a json_tuple in a SELECT that aggregates."""
    assert_refused_on_duckdb(con, call)


@pytest.mark.parametrize("call", ["regexp_replace(s, 'b', 'x', 0)", "regexp_replace(s, 'b', 'x', -2)", "regexp_replace(s, 'a', 'b', n + 1)"])
def test_a_position_spark_refuses_raises_as_spark(call: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    """Spark's analysis takes a constant position in (0, 2147483647]."""
    _assert_raises_as_spark(call, spark_view, con, ("DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE", "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT"))


@pytest.mark.parametrize("call", ["regexp_replace(s, '(b)', '$2')", "regexp_replace(s, 'b', 'x\\\\')", "regexp_replace(s, '(b)', '$x')",
                                  "regexp_replace(s, '(\\\\d)', '$1$')", "regexp_replace(s, '(b)', '$2', 3)", "regexp_replace(r, 'm$', '$1')"])
def test_replacement_java_refuses_raises_as_spark(call: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    """Spark raises INVALID_REGEXP_REPLACE for a row with a match where Java's replacement names
    a group the pattern does not have, or ends in ``$`` or a lone backslash."""
    _assert_raises_as_spark(call, spark_view, con, ("INVALID_REGEXP_REPLACE",))


@pytest.mark.parametrize("call", ["regexp_extract_all(s, 'a')", "regexp_extract_all(s, '(b)', 2)", "regexp_extract_all(s, '(b)', -1)",
                                  "regexp_extract(s, 'b')", "regexp_extract(s, '(b)', 2)", "regexp_extract(s, '(?<n>b)', -1)"])
def test_group_index_out_of_range_raises_as_spark(call: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    """Spark raises for a row with a match when the pattern has fewer groups than the index."""
    _assert_raises_as_spark(call, spark_view, con, ("INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX",))
