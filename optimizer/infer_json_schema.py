"""Spark's ``schema_of_json`` of a literal: the type its ``JsonInferSchema`` infers, as it prints it.

Spark infers with its JSON options' defaults (no decimals preferred for fractions, no dates or
timestamps read from strings) and prints the type's SQL text:

```
{"b":1,"a":null}       STRUCT<a: STRING, b: BIGINT>   fields sorted by name, duplicates kept
1.5, 1e400, NaN        DOUBLE
12345678901234567890   DECIMAL(20,0)                  an integer past a bigint: its digits
[1, 1.5]               ARRAY<DOUBLE>                  elements merged (compatibleType)
[true, 1], [{}, 1]     ARRAY<STRING>                  types that do not merge give a string
[], null               ARRAY<STRING>, STRING          nothing known is a string
```

The text is parsed by Python's JSON reader (NaN and infinities taken, as Jackson takes them under
Spark's options); text it does not read (single quotes, unquoted names, ...) and integers past 38
digits are refused, since Jackson's leniencies are not Python's.
"""

from __future__ import annotations

import json
import re
from typing import Any

from vpush.optimizer.errors import OptimizeError

__all__ = ["infer_json_schema"]

_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1
_MAX_DECIMAL_DIGITS = 38
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NEEDS_QUOTES = re.compile(r"[^A-Za-z0-9_]")

# A type is a tuple: ("null",), ("bigint",), ("double",), ("boolean",), ("string",),
# ("decimal", precision), ("array", element), ("struct", ((name, type), ...)).
_Type = tuple[Any, ...]
_NULL: _Type = ("null",)


class _Object(list):  # type: ignore[type-arg]
    """An object's (name, value) pairs, in order, repeats kept: what the reader's hook makes."""

_STRING: _Type = ("string",)


def infer_json_schema(text: str) -> str:
    """The text Spark's ``schema_of_json(text)`` gives.

    Example:
        >>> infer_json_schema('{"b": [1, 2.5], "a": {"c": null}}')
        'STRUCT<a: STRUCT<c: STRING>, b: ARRAY<DOUBLE>>'

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for text Python's JSON reader does not
            read or an integer past 38 digits (Spark's reader may take or reject it otherwise).
    """
    try:
        value, _ = json.JSONDecoder(object_pairs_hook=_Object).raw_decode(text.lstrip(" \t\n\r"))
    except ValueError:
        _refuse(text, "text Python's JSON reader does not read (Jackson's leniencies are Spark's)")
    return _text(_infer(value, text))


def _refuse(text: str, why: str) -> Any:
    raise OptimizeError(
        f"schema_of_json('{text[:60]}'): the DuckDB engine does not give Spark's answer for {why} yet; the Spark "
        "engine runs it",
        error_class="VPUSH_UNSUPPORTED_FUNCTION",
    )


def _infer(value: Any, text: str) -> _Type:
    if value is None:
        return _NULL
    if isinstance(value, bool):
        return ("boolean",)
    if isinstance(value, int):
        if _LONG_MIN <= value <= _LONG_MAX:
            return ("bigint",)
        digits = len(str(abs(value)))
        if digits > _MAX_DECIMAL_DIGITS:
            _refuse(text, "an integer of more than 38 digits")
        return ("decimal", digits)
    if isinstance(value, float):
        return ("double",)
    if isinstance(value, str):
        return _STRING
    if isinstance(value, _Object):
        fields = sorted(((name, _infer(item, text)) for name, item in value), key=_java_order)
        return ("struct", tuple(fields))
    element = _NULL
    for item in value:
        element = _merge(element, _infer(item, text), text)
    return ("array", element)


def _java_order(field: tuple[str, _Type]) -> bytes:
    """Java's order of strings (by UTF-16 code unit), which Spark sorts the fields by."""
    return field[0].encode("utf-16-be")


def _merge(a: _Type, b: _Type, text: str) -> _Type:
    """Spark's ``JsonInferSchema.compatibleType``."""
    if a == b:
        return a
    if a == _NULL:
        return b
    if b == _NULL:
        return a
    kinds = {a[0], b[0]}
    if kinds == {"bigint", "double"} or kinds == {"decimal", "double"}:
        return ("double",)
    if kinds <= {"bigint", "decimal"}:
        # a bigint is a decimal(20,0) there
        return ("decimal", max(a[1] if a[0] == "decimal" else 20, b[1] if b[0] == "decimal" else 20))
    if a[0] == b[0] == "array":
        return ("array", _merge(a[1], b[1], text))
    if a[0] == b[0] == "struct":
        if len(set(n for n, _ in a[1])) != len(a[1]) or len(set(n for n, _ in b[1])) != len(b[1]):
            _refuse(text, "objects with a repeated name merged with others")
        merged = dict(a[1])
        for name, kind in b[1]:
            merged[name] = _merge(merged[name], kind, text) if name in merged else kind
        return ("struct", tuple(sorted(merged.items(), key=_java_order)))
    return _STRING


def _name(name: str) -> str:
    if _PLAIN_NAME.match(name):
        return name
    if not _NEEDS_QUOTES.search(name) and name:
        raise OptimizeError(
            f"schema_of_json: a field named {name!r} (Spark's quoting of names that start with a digit) is not "
            "supported yet on the DuckDB engine; the Spark engine runs it",
            error_class="VPUSH_UNSUPPORTED_FUNCTION",
        )
    return "`" + name.replace("`", "``") + "`"


def _text(kind: _Type) -> str:
    if kind == _NULL:
        return "STRING"
    if kind[0] == "decimal":
        return f"DECIMAL({kind[1]},0)"
    if kind[0] == "array":
        return f"ARRAY<{_text(kind[1])}>"
    if kind[0] == "struct":
        return "STRUCT<" + ", ".join(f"{_name(n)}: {_text(t)}" for n, t in kind[1]) + ">"
    return str(kind[0]).upper()
