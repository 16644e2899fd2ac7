"""The JSON paths of Spark's ``get_json_object`` that vpush evaluates: keys and array indexes.

Spark parses a path with a Scala parser combinator (``JsonPathParser``) that skips whitespace
before each token; vpush takes the subset whose meaning is plain and refuses the rest:

```
$                    the whole value
.name                a key: any characters but . [ ] ' " * ? and whitespace
['name']             a key: any characters but ' ? * and whitespace
[n]                  an array index: decimal digits (leading zeros allowed, as in Spark)
```
Wildcards (``[*]``, ``.*``) and whitespace (which Spark drops before some tokens and keeps in
others) are refused: :func:`parse_json_path` returns None for them.
"""

from __future__ import annotations

import re

__all__ = ["parse_json_path"]

_STEP = re.compile(r"""\.(?P<dotted>[^.\[\]'"*?\s]+)|\['(?P<quoted>[^'?*\s]+)'\]|\[(?P<index>[0-9]{1,18})\]""")


def parse_json_path(path: str) -> tuple[str | int, ...] | None:
    """The steps of a ``get_json_object`` path, keys (str) and indexes (int); None for a path
    outside the subset vpush evaluates (see the module's table).

    Example:
        >>> parse_json_path("$.a['b'][01].d")
        ('a', 'b', 1, 'd')
        >>> parse_json_path("$.a[*]") is None
        True
    """
    if not path.startswith("$"):
        return None
    steps: list[str | int] = []
    at = 1
    while at < len(path):
        match = _STEP.match(path, at)
        if match is None:
            return None
        index = match.group("index")
        steps.append(int(index) if index is not None else match.group("dotted") or match.group("quoted"))
        at = match.end()
    return tuple(steps)
