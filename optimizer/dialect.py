"""Spark SQL with typed Variant nodes: the :class:`VpushSpark` sqlglot dialect.

sqlglot's own Spark dialect leaves ``variant_get`` as an anonymous function, reads ``v:a`` as
``v AS :a``, fails on ``v:a::int``, makes every ``CAST`` a ``TRY_CAST`` and drops ``parse_json``
when it writes Spark SQL. This dialect fixes all of that, without touching sqlglot globally:

- every Spark variant function parses into its own node (:class:`VariantGet`, ...), checked as
  Spark checks it, so a malformed call raises :class:`OptimizeError` with Spark's error class;
- ``v:a.b[0]`` parses as Spark 4.3's ``semiStructuredExtract``: ``$`` plus the path's tokens
  (white space dropped, back-quoted names inserted raw), checked with the JSON-path parser of
  ``get_json_object`` (``PARSE_SYNTAX_ERROR``), then with the variant path grammar
  (``INVALID_VARIANT_GET_PATH``). It is a :class:`VariantGet` with ``colon=True``, strict, with
  a ``variant`` target, and ``v:a::int`` is a strict ``Cast`` around it;
- ``CAST`` is :class:`sqlglot.exp.Cast` (Spark 4 is ANSI: it raises), ``TRY_CAST`` is
  :class:`sqlglot.exp.TryCast`, and ``x::T`` is a ``Cast``; bare ``DECIMAL`` is ``DECIMAL(10, 0)``.

Rendering back to Spark writes the ``:`` form again, because Spark names a ``v:a.b`` column, or
struct field, ``b``, where ``variant_get(v, '$.a.b')`` would be named after the call: a query
such as ``WITH x AS (SELECT v:a FROM t) SELECT a FROM x`` depends on it. Measured with PySpark
4.3: ``CAST(v:a AS T)``, ``v:a::T`` and ``variant_get(v, '$.a', 'T')`` give the same values and
the same errors (``INVALID_VARIANT_CAST``) for every scalar, array, map and struct target, as do
``TRY_CAST(v:a AS T)`` and ``try_variant_get``.
"""

from __future__ import annotations

import decimal
import re
import typing as t
from collections.abc import Callable

from sqlglot import exp, transforms
from sqlglot.dialects.dialect import build_default_decimal_type
from sqlglot.dialects.spark import Spark
from sqlglot.generators.spark import SparkGenerator
from sqlglot.parser import Parser
from sqlglot.parsers.spark import SparkParser
from sqlglot.parsers.spark2 import build_as_cast
from sqlglot.tokens import Token, TokenType

from vpush.codec.errors import VariantPathError
from vpush.codec.path import VariantPath
from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.spark_builtins import SPARK_ARITY, SPARK_BUILTIN_FUNCTIONS, SPARK_REQUIRED_PARAMETERS
from vpush.optimizer.spark_intervals import multi_unit_span
from vpush.optimizer.spark_tokens import check_spark_tokens, table_statement
from vpush.optimizer.variant_types import VARIANT, SparkType, parse_variant_type

__all__ = [
    "IsValidVariant",
    "IsVariantNull",
    "ParseJson",
    "SchemaOfVariant",
    "SchemaOfVariantAgg",
    "ShiftRightUnsigned",
    "ToJson",
    "ToVariantObject",
    "TryParseJson",
    "TryVariantArrayAppend",
    "TryVariantGet",
    "TryVariantInsert",
    "TryVariantSet",
    "VariantArrayAppend",
    "VariantDelete",
    "VariantExplode",
    "VariantExplodeOuter",
    "VariantGet",
    "VariantInsert",
    "VariantSet",
    "VariantStripNulls",
    "VpushSpark",
    "clause_of",
    "spark_path_name",
    "sql_call",
    "utc_shift_argument",
]

# Spark's unquoted IDENTIFIER token: ASCII letters, digits and '_', not all digits.
_SPARK_IDENTIFIER = re.compile(r"[A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*\Z")
_DIGITS = re.compile(r"[0-9]+\Z")
# Keys written bare when rendering: a leading digit could lex as a number literal (`1e3`, `1L`).
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_WHITESPACE = " \t\n\r\f\v"
_STRING_TOKENS = (TokenType.STRING, TokenType.RAW_STRING)
_PARAMETER_TOKENS = (TokenType.PLACEHOLDER, TokenType.COLON)
# Spark's JSON-path parser reads an index into a Java long; a longer one fails its parse.
_MAX_JSON_PATH_INDEX = 2**63 - 1
# Meta keys on exp.Struct / exp.PropertyEQ: how the user wrote a struct, so that rendering keeps
# Spark's names (a struct(...) column is named after its arguments as written).
_NAMED_STRUCT = "vpush_named_struct"
IMPLICIT_NAME = _IMPLICIT_NAME = "vpush_implicit_name"


# --------------------------------------------------------------------------------------------
# Nodes


class VariantGet(exp.Expression, exp.Func):
    """``variant_get(v, path[, type])``: strict, raises ``INVALID_VARIANT_CAST`` when the value
    cannot be cast; also ``v:a.b`` (``colon=True``, no ``to``).

    ``path`` is the path expression as written (a string literal, checked at parse time, keeps
    its text: Spark names the column after it); ``to`` is absent (meaning ``variant``) or the
    type string, normalized by :func:`~vpush.optimizer.variant_types.parse_variant_type` when it
    is a literal.
    """

    arg_types = {"this": True, "path": True, "to": False, "colon": False}
    _sql_names = ["VARIANT_GET"]
    SAFE: t.ClassVar[bool] = False
    """Whether a failed cast gives NULL (``try_variant_get``) rather than an error."""

    @property
    def path(self) -> exp.Expr:
        return self.args["path"]

    @property
    def variant_path(self) -> VariantPath | None:
        """The path when it is a string literal (valid: the parser checked it), else None."""
        path = self.args.get("path")
        if isinstance(path, exp.Literal) and path.is_string:
            return VariantPath.parse(path.this)
        return None

    @property
    def target_type(self) -> SparkType | None:
        """The type cast to: ``variant`` when ``to`` is absent, None when ``to`` is not a literal."""
        to = self.args.get("to")
        if to is None:
            return VARIANT
        if isinstance(to, exp.Literal) and to.is_string:
            return parse_variant_type(to.this)
        return None

    @property
    def name(self) -> str:
        """Spark's implicit column name: for ``v:a.b`` it is ``b`` (so ``CAST(v:a.b AS INT)`` is
        named ``b`` too); a ``variant_get(...)`` call has none."""
        path = self.args.get("path")
        if self.args.get("colon") and isinstance(path, exp.Literal):
            return spark_path_name(path.this) or ""
        return ""

    @property
    def output_name(self) -> str:
        return self.name


class TryVariantGet(VariantGet):
    """``try_variant_get(v, path[, type])``: NULL where ``variant_get`` raises a cast error (an
    invalid path still raises ``INVALID_VARIANT_GET_PATH``)."""

    _sql_names = ["TRY_VARIANT_GET"]
    SAFE = True


class IsVariantNull(exp.Expression, exp.Func):
    """``is_variant_null(v)``: true only for a variant null (false for SQL NULL)."""

    _sql_names = ["IS_VARIANT_NULL"]


class IsValidVariant(exp.Expression, exp.Func):
    """``is_valid_variant(v)`` (Spark 4.2+): false for malformed bytes, NULL for NULL."""

    _sql_names = ["IS_VALID_VARIANT"]


class SchemaOfVariant(exp.Expression, exp.Func):
    """``schema_of_variant(v)``: the value's schema as SQL text, e.g. ``OBJECT<a: BIGINT>``."""

    _sql_names = ["SCHEMA_OF_VARIANT"]


class SchemaOfVariantAgg(exp.Expression, exp.AggFunc):
    """``schema_of_variant_agg(v)``: the aggregate merging each row's schema."""

    _sql_names = ["SCHEMA_OF_VARIANT_AGG"]


class ToVariantObject(exp.Expression, exp.Func):
    """``to_variant_object(expr)``: an array, map or struct as a variant (structs as objects)."""

    _sql_names = ["TO_VARIANT_OBJECT"]


class ParseJson(exp.Expression, exp.Func):
    """``parse_json(json_str)``: raises on invalid JSON.

    Not sqlglot's ``ParseJSON``, which its Spark generator drops or turns into ``from_json``.
    """

    _sql_names = ["PARSE_JSON"]
    SAFE: t.ClassVar[bool] = False


class TryParseJson(ParseJson):
    """``try_parse_json(json_str)``: NULL for invalid JSON."""

    _sql_names = ["TRY_PARSE_JSON"]
    SAFE = True


ToJson = exp.JSONFormat
"""``to_json(expr[, options])``: sqlglot's node, which renders back to Spark unchanged."""


class VariantExplode(exp.Expression, exp.Func, exp.UDTF):
    """``variant_explode(input)``: a table function with columns ``pos, key, value``, one row per
    element or field; usable as ``FROM variant_explode(...)`` or ``, LATERAL variant_explode(...)``
    (not ``LATERAL VIEW``: Spark 4.3 raises ``ROUTINE_NOT_FOUND`` there)."""

    _sql_names = ["VARIANT_EXPLODE"]
    OUTER: t.ClassVar[bool] = False


class VariantExplodeOuter(VariantExplode):
    """``variant_explode_outer(input)``: one row of NULLs for an input that is not an array or
    object."""

    _sql_names = ["VARIANT_EXPLODE_OUTER"]
    OUTER = True


class VariantSet(exp.Expression, exp.Func):
    """``variant_set(v, path, val[, create_if_missing])`` (Spark 4.3)."""

    arg_types = {"this": True, "path": True, "value": True, "create_if_missing": False}
    _sql_names = ["VARIANT_SET"]
    SAFE: t.ClassVar[bool] = False


class TryVariantSet(VariantSet):
    _sql_names = ["TRY_VARIANT_SET"]
    SAFE = True


class VariantInsert(exp.Expression, exp.Func):
    """``variant_insert(v, path, val)`` (Spark 4.3)."""

    arg_types = {"this": True, "path": True, "value": True}
    _sql_names = ["VARIANT_INSERT"]
    SAFE: t.ClassVar[bool] = False


class TryVariantInsert(VariantInsert):
    _sql_names = ["TRY_VARIANT_INSERT"]
    SAFE = True


class VariantDelete(exp.Expression, exp.Func):
    """``variant_delete(v, path1[, path2, ...])`` (Spark 4.3; there is no ``try_`` form)."""

    arg_types = {"this": True, "expressions": True}
    is_var_len_args = True
    _sql_names = ["VARIANT_DELETE"]


class VariantArrayAppend(exp.Expression, exp.Func):
    """``variant_array_append(v, path, val)`` (Spark 4.3)."""

    arg_types = {"this": True, "path": True, "value": True}
    _sql_names = ["VARIANT_ARRAY_APPEND"]
    SAFE: t.ClassVar[bool] = False


class TryVariantArrayAppend(VariantArrayAppend):
    _sql_names = ["TRY_VARIANT_ARRAY_APPEND"]
    SAFE = True


class ShiftRightUnsigned(exp.Expression, exp.Binary):
    """Spark's ``a >>> b``: ``shiftrightunsigned(a, b)``, Java's ``>>>`` on an int or a bigint."""


class VariantStripNulls(exp.Expression, exp.Func):
    """``variant_strip_nulls(v[, include_arrays])`` (Spark 4.3; there is no ``try_`` form)."""

    arg_types = {"this": True, "include_arrays": False}
    _sql_names = ["VARIANT_STRIP_NULLS"]


# --------------------------------------------------------------------------------------------
# Spark's JSON-path parser (jsonExpressions.scala), used to check `:` paths and name columns


def _json_path_instructions(text: str) -> list[str | None] | None:
    """The keys (str) and other steps (None) of ``text`` as Spark's ``JsonPathParser`` reads it,
    or None if it rejects the text.

    Its grammar: ``'$' (wildcard | named | subscript)*`` with ``wildcard := '.*' | "['*']"``,
    ``named := '.' [^.\\[]+ | "['" [^']+ "']"`` and ``subscript := '[' ('*' | [0-9]+) ']'``,
    tried in that order without backtracking into an alternative that matched. White space is
    skipped before each string literal and regex, but not before a single character.
    """

    def skip(pos: int) -> int:
        while pos < len(text) and text[pos] in _WHITESPACE:
            pos += 1
        return pos

    def literal(pos: int, lit: str) -> int | None:
        pos = skip(pos)
        return pos + len(lit) if text.startswith(lit, pos) else None

    def regex(pos: int, pattern: str) -> tuple[int, str] | None:
        match = re.compile(pattern).match(text, skip(pos))
        return (match.end(), match.group()) if match and match.group() else None

    if not text.startswith("$"):
        return None
    out: list[str | None] = []
    pos = 1
    while pos < len(text):
        end = literal(pos, ".*") or literal(pos, "['*']")
        if end is not None:
            out.append(None)
            pos = end
            continue
        if text.startswith(".", pos) and (named := regex(pos + 1, r"[^.\[]+")) is not None:
            pos, key = named
            out.append(key)
            continue
        start = literal(pos, "['")
        if start is not None and (named := regex(start, r"[^']+")) is not None:
            end = literal(named[0], "']")
            if end is not None:
                out.append(named[1])
                pos = end
                continue
        if text.startswith("[", pos):
            if text.startswith("*]", pos + 1):
                out.append(None)
                pos += 3
                continue
            index = regex(pos + 1, r"[0-9]+")
            if index is not None and text.startswith("]", index[0]) and int(index[1]) <= _MAX_JSON_PATH_INDEX:
                out.append(None)
                pos = index[0] + 1
                continue
        return None
    return out


COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ, exp.In, exp.Between)
"""What compares values: the binary comparisons, ``IN`` and ``BETWEEN``."""


def comparison_operands(node: exp.Expr) -> list[exp.Expr]:
    """The values a comparison, ``BETWEEN`` or ``IN`` list compares."""
    operands = [node.this, *(node.args.get(k) for k in ("expression", "low", "high")), *node.expressions]
    return [o for o in operands if isinstance(o, exp.Expr)]


def in_scope(node: exp.Expr) -> list[exp.Expr]:
    """``node`` and its descendants, not entering nested queries (scopes of their own)."""
    out = [node]
    for child in node.iter_expressions():
        if not isinstance(child, (exp.Select, exp.Subquery, exp.SetOperation)):
            out.extend(in_scope(child))
    return out


def clause_of(node: exp.Expr, select: exp.Expr) -> exp.Expr:
    """The child of ``select`` that holds ``node`` (a projection, the WHERE, a join, the ORDER
    BY...: its ``arg_key`` names the clause), or ``node``'s root where ``select`` is no ancestor.

    Example:
        >>> import sqlglot
        >>> query = sqlglot.parse_one("SELECT a FROM t ORDER BY b + 1")
        >>> clause_of(query.args["order"].find(exp.Column), query).arg_key
        'order'
    """
    while node.parent is not None and node.parent is not select:
        node = node.parent
    return node


Number = int | float | decimal.Decimal


def number_constant(
    node: exp.Expr | None, *, parens: bool = True, at_cast: Callable[[exp.Cast], Number | None] | None = None
) -> Number | None:
    """The exact value of a numeric constant: a number literal (an ``int``; a ``Decimal`` with a
    point; a ``float`` with an exponent), through minus signs, parentheses and casts, else None.

    Args:
        parens: read through parentheses (without: ``(1)`` is None, as a literal as written).
        at_cast: the value of a cast met on the way (None: not a constant); by default the
            value of what it casts, the cast not applied.

    Example:
        >>> from sqlglot import parse_one
        >>> [number_constant(parse_one(s)) for s in ("-(2)", "CAST(-1.50 AS INT)", "1e3", "'1'")]
        [-2, Decimal('-1.50'), 1000.0, None]
    """
    while parens and isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Literal):
        if not node.is_number:
            return None
        text = node.this
        if "e" in text.lower():
            return float(text)
        return decimal.Decimal(text) if "." in text else int(text)
    if isinstance(node, exp.Neg):
        inner = number_constant(node.this, parens=parens, at_cast=at_cast)
        return None if inner is None else -inner
    if isinstance(node, exp.Cast):
        return at_cast(node) if at_cast is not None else number_constant(node.this, parens=parens)
    return None


def number_literal(node: exp.Expr | None) -> float | None:
    """The value of a numeric literal as written (negated, or typed by a cast as Spark's
    literals are: ``0.5`` a ``decimal(1,1)``, ``2L``; no parentheses), else None."""

    def typed(cast: exp.Cast) -> Number | None:
        return number_constant(cast.this, parens=False) if isinstance(cast.this, exp.Literal) else None

    value = number_constant(node, parens=False, at_cast=typed)
    return None if value is None else float(value)


def sql_call(name: str, *arguments: exp.Expr) -> exp.Anonymous:
    """A call of the engine's function ``name`` (DuckDB's, or one vpush registers) as a tree.

    Example:
        >>> sql_call("list_sort", exp.column("a")).sql("duckdb")
        'LIST_SORT(a)'
    """
    return exp.Anonymous(this=name, expressions=list(arguments))


def spark_path_name(path: str) -> str | None:
    """The name Spark gives a ``:`` extraction with this ``$``-path: its last key, if any.

    Example:
        >>> spark_path_name("$.a.b[0]"), spark_path_name("$['x y']"), spark_path_name("$[0]")
        ('b', 'x y', None)
    """
    steps = _json_path_instructions(path)
    keys = [s for s in steps or () if s is not None]
    return keys[-1] if keys else None


def _colon_path_sql(path: str) -> str | None:
    """``path`` in the ``:`` syntax (``a.b[0]``, ``['x y']``), or None if Spark's ``:`` grammar
    cannot express it exactly."""
    try:
        segments = VariantPath.parse(path).segments
    except VariantPathError:
        return None
    if not segments:
        return None
    parts: list[str] = []
    for seg in segments:
        if isinstance(seg, int):
            parts.append(f"[{seg}]")
            continue
        first = not parts
        if _PLAIN_KEY.match(seg):
            parts.append(seg if first else f".{seg}")
        elif seg.strip(_WHITESPACE) and "'" not in seg and not seg.endswith("\\"):
            # The literal's raw text is the key: a final backslash would escape the quote.
            parts.append(f"['{seg}']")
        elif seg.strip(_WHITESPACE) and not seg.startswith("*") and "." not in seg and "[" not in seg:
            quoted = "`" + seg.replace("`", "``") + "`"
            parts.append(quoted if first else f".{quoted}")
        else:
            return None
    text = "".join(parts)
    # The text must name the same segments when Spark parses it back.
    spark_path = "$" + text if text.startswith("[") else "$." + _unquote_backticks(text)
    if _json_path_instructions(spark_path) is None or VariantPath.parse(spark_path).segments != segments:
        return None
    return text


def _unquote_backticks(text: str) -> str:
    return re.sub(r"`((?:[^`]|``)*)`", lambda m: m.group(1).replace("``", "`"), text)


# --------------------------------------------------------------------------------------------
# Builders: argument counts and named arguments, with Spark's error classes


def _error(message: str, error_class: str) -> OptimizeError:
    return OptimizeError(message, error_class=error_class)


def _builder(
    cls: type[exp.Func],
    low: int,
    high: int | None,
    params: tuple[str, ...] | None = None,
) -> t.Callable[[list[exp.Expr]], exp.Expr]:
    """A FUNCTIONS entry for ``cls`` taking ``low..high`` arguments (``high=None``: any number).

    ``params`` names the parameters of the functions Spark declares with a signature: those
    accept ``name => value`` arguments and report a missing one as
    ``REQUIRED_PARAMETER_NOT_FOUND``; the others reject named arguments.
    """
    name = cls.sql_names()[0].lower()

    def build(args: list[exp.Expr]) -> exp.Expr:
        named = [a for a in args if isinstance(a, exp.Kwarg)]
        if named and params is None:
            raise _error(
                f"named parameters are not supported for function {name}",
                "NAMED_PARAMETERS_NOT_SUPPORTED",
            )
        if named and params is not None:
            args = _bind_named(name, params, args)
        count = len(args)
        if params is not None and count < low:
            missing = params[count] if count < len(params) else params[-1]
            raise _error(
                f"{name} needs the parameter {missing!r}", "REQUIRED_PARAMETER_NOT_FOUND"
            )
        if count < low or (high is not None and count > high):
            wanted = f"{low}" if low == high else (f"> {low - 1}" if high is None else f"[{low}, {high}]")
            raise _error(
                f"{name} requires {wanted} parameters but got {count}", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"
            )
        return cls.from_arg_list(args)

    return build


def _bind_named(name: str, params: tuple[str, ...], args: list[exp.Expr]) -> list[exp.Expr]:
    positional: list[exp.Expr] = []
    bound: dict[str, exp.Expr] = {}
    for arg in args:
        if isinstance(arg, exp.Kwarg):
            key = arg.this.name.lower()
            if key not in params:
                raise _error(
                    f"{name} has no parameter named {key!r} (it has {', '.join(params)})",
                    "UNRECOGNIZED_PARAMETER_NAME",
                )
            bound[key] = arg.expression
        elif bound:
            raise _error(f"{name}: a positional argument follows a named one", "UNEXPECTED_POSITIONAL_ARGUMENT")
        else:
            positional.append(arg)
    result = list(positional)
    for param in params[len(positional) :]:
        if param not in bound:
            break
        result.append(bound.pop(param))
    if bound:
        missing = next(p for p in params[len(result) :] if p not in bound)
        raise _error(f"{name} needs the parameter {missing!r}", "REQUIRED_PARAMETER_NOT_FOUND")
    return result


_FUNCTIONS: dict[str, t.Callable[[list[exp.Expr]], exp.Expr]] = {
    "VARIANT_GET": _builder(VariantGet, 2, 3),
    "TRY_VARIANT_GET": _builder(TryVariantGet, 2, 3),
    "IS_VARIANT_NULL": _builder(IsVariantNull, 1, 1),
    "IS_VALID_VARIANT": _builder(IsValidVariant, 1, 1),
    "SCHEMA_OF_VARIANT": _builder(SchemaOfVariant, 1, 1),
    "SCHEMA_OF_VARIANT_AGG": _builder(SchemaOfVariantAgg, 1, 1),
    "TO_VARIANT_OBJECT": _builder(ToVariantObject, 1, 1),
    "PARSE_JSON": _builder(ParseJson, 1, 1),
    "TRY_PARSE_JSON": _builder(TryParseJson, 1, 1),
    "VARIANT_EXPLODE": _builder(VariantExplode, 1, 1, ("input",)),
    "VARIANT_EXPLODE_OUTER": _builder(VariantExplodeOuter, 1, 1, ("input",)),
    "VARIANT_SET": _builder(VariantSet, 3, 4, ("v", "path", "val", "create_if_missing")),
    "TRY_VARIANT_SET": _builder(TryVariantSet, 3, 4, ("v", "path", "val", "create_if_missing")),
    "VARIANT_INSERT": _builder(VariantInsert, 3, 3, ("v", "path", "val")),
    "TRY_VARIANT_INSERT": _builder(TryVariantInsert, 3, 3, ("v", "path", "val")),
    "VARIANT_DELETE": _builder(VariantDelete, 2, None),
    "VARIANT_ARRAY_APPEND": _builder(VariantArrayAppend, 3, 3),
    "TRY_VARIANT_ARRAY_APPEND": _builder(TryVariantArrayAppend, 3, 3),
    "VARIANT_STRIP_NULLS": _builder(VariantStripNulls, 1, 2, ("v", "include_arrays")),
}


def _build_datediff(args: list[exp.Expr]) -> exp.Expr:
    """``datediff``/``date_diff``: Spark's three-argument form is ``timestampdiff`` under another
    name (sqlglot's reads it as a difference of dates)."""
    return SparkParser.FUNCTIONS["TIMESTAMPDIFF" if len(args) == 3 else "DATEDIFF"](args)


# Spark's grammar rule `datetimeUnit`: the words its parser takes as the unit of timestampadd and
# timestampdiff (and of date_add, dateadd, datediff, date_diff with three arguments), in any case.
_DATETIME_UNITS = frozenset({
    "YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "DAYOFYEAR", "HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND",
})


DEFERRED_ARITY_ERROR = "vpush_deferred_arity_error"
"""Meta key of a call Spark refuses for its count of arguments once they resolve
(``date_add(w, 1, ts)`` of a word that is no unit): the error ``spark_semantics`` raises after it
checks the SELECT's columns (Spark skips a function until its arguments are resolved)."""


_UNIT_CALLS: set[str] = set()
"""The names registered with :func:`_unit_call`, whose three arguments may be ``unit, x, y``."""


def _unit_call(name: str, build: t.Callable[[list[exp.Expr]], exp.Expr]) -> t.Callable[[list[exp.Expr]], exp.Expr]:
    """A FUNCTIONS entry for ``name(unit, x, y)`` that takes the unit as Spark's parser does: one
    of its words, kept as written (Spark prints ``timestampadd(Hour, 1, ts)``). sqlglot's node
    reads any first argument as a unit, upper-cased, and unabbreviated (``Q`` as ``QUARTER``);
    for Spark a first argument that is no unit word makes an ordinary call, which Spark refuses
    (a string is its own error, raised where the unit is read)."""
    _UNIT_CALLS.add(name.upper())

    def builder(args: list[exp.Expr]) -> exp.Expr:
        unit = args[0] if len(args) == 3 else None
        word = unit.name if isinstance(unit, exp.Column) and not unit.table and not unit.this.quoted else None
        grammar_only = name in ("timestampadd", "timestampdiff", "timediff")  # no function of that name
        if (unit is None and grammar_only) or (unit is not None and not (isinstance(unit, exp.Literal) and unit.is_string) and (
            word is None or word.upper() not in _DATETIME_UNITS
        )):
            if grammar_only:
                raise _error(
                    f"Cannot resolve routine `{name}` on search path [`system`.`builtin`, `system`.`session`, "
                    "`spark_catalog`.`default`].",
                    "UNRESOLVED_ROUTINE",
                )
            # an ordinary call of the two-argument function, which Spark counts only once its
            # arguments resolve (a word naming no column is UNRESOLVED_COLUMN first)
            call = exp.Anonymous(this=name, expressions=args)
            call.meta[DEFERRED_ARITY_ERROR] = _error(
                f"The `{name}` requires 2 parameters but the actual number is {len(args)}.", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"
            )
            return call
        node = build(args)
        if word is not None:
            node.meta[WRITTEN_UNIT] = word
        return node

    return builder


def _ignore_nulls_call(name: str) -> t.Callable[[list[exp.Expr]], exp.Expr]:
    """A FUNCTIONS entry for ``first(x, ignoreNulls)`` and its kin, whose second argument Spark
    takes as a boolean literal only (``FirstLast.validateIgnoreNullExpr``); sqlglot's builder
    reads ``true`` and drops anything else (``first(x, 1 = 1)`` answered as ``first(x)``)."""
    build = SparkParser.FUNCTIONS[name]
    shown = {"FIRST_VALUE": "first", "LAST_VALUE": "last"}.get(name, name.lower())

    def builder(args: list[exp.Expr]) -> exp.Expr:
        if len(args) == 2 and not isinstance(args[1], exp.Boolean):
            raise _error(f"The second argument in {shown} should be a boolean literal.", "_LEGACY_ERROR_TEMP_1210")
        if len(args) == 2 and not args[1].this:
            # `false` is the default, which Spark's name leaves out (`first(x)`): dropped from the
            # list the parser checks against the node's arguments too (any_value takes one)
            del args[1]
        return build(args)

    return builder


_FUNCTIONS.update({name: _ignore_nulls_call(name) for name in ("FIRST", "LAST", "FIRST_VALUE", "LAST_VALUE", "ANY_VALUE")})


def _offset_call(cls: type[exp.Func]) -> t.Callable[[list[exp.Expr]], exp.Expr]:
    """A FUNCTIONS entry for ``lag``/``lead(input, offset, default, ignoreNulls)``: Spark's fourth
    argument, a boolean literal, is ``IGNORE NULLS`` (sqlglot's node takes three arguments)."""

    def builder(args: list[exp.Expr]) -> exp.Expr:
        ignore_nulls = args[3] if len(args) == 4 and isinstance(args[3], exp.Boolean) else None
        if len(args) == 4 and ignore_nulls is None:
            raise _error(
                f"The value of parameter(s) `ignoreNulls` in `{cls.sql_names()[0].lower()}` is invalid: expects a boolean literal.",
                "INVALID_PARAMETER_VALUE.BOOLEAN",
            )
        if ignore_nulls is None:
            return cls.from_arg_list(args)
        node = cls.from_arg_list(args[:3])
        if ignore_nulls.this:
            # as `lag(i, 1, 0) IGNORE NULLS` parses (Spark's name `lag(i, 1, 0)`)
            node.meta[SPARK_CALL] = (cls.sql_names()[0].lower(), tuple(_trace(node, a) for a in args[:3]))
            return exp.IgnoreNulls(this=node)
        del args[3]  # `false`, the default: left out of Spark's name, and of the parser's count
        return node

    return builder


_FUNCTIONS.update({"LAG": _offset_call(exp.Lag), "LEAD": _offset_call(exp.Lead)})
# sqlglot's builders fold upper(hex(x)) into hex(x) and lower(hex(x)) into a LowerHex node:
# the same value, but Spark names the call as written (`upper(hex(g))`).
_FUNCTIONS["UPPER"] = exp.Upper.from_arg_list
_FUNCTIONS["LOWER"] = exp.Lower.from_arg_list


_FUNCTIONS["DATEDIFF"] = _unit_call("datediff", _build_datediff)
_FUNCTIONS["DATE_DIFF"] = _unit_call("date_diff", _build_datediff)
_FUNCTIONS.update({
    name: _unit_call(name.lower(), SparkParser.FUNCTIONS[name]) for name in ("TIMESTAMPADD", "TIMESTAMPDIFF", "DATEADD", "DATE_ADD")
})
_FUNCTIONS["TIMEDIFF"] = _unit_call("timediff", SparkParser.FUNCTIONS["TIMESTAMPDIFF"])  # Spark 4's grammar has it too


def _unknown_call(name: str) -> t.Callable[[list[exp.Expr]], exp.Expr]:
    """A FUNCTIONS entry for a name of sqlglot's that Spark has no function of: an ordinary call,
    which Spark refuses (``UNRESOLVED_ROUTINE``). sqlglot's parsers build a node for it, which
    vpush answered (``timestamp_ntz(x)`` a cast, ``arg_max(x, y)`` Spark's ``max_by``)."""
    return lambda args: exp.Anonymous(this=name.lower(), expressions=args)


# The calls Spark's grammar reads that its SHOW FUNCTIONS does not list
_GRAMMAR_CALLS = frozenset({"TIMESTAMPADD", "TIMESTAMPDIFF", "TIMEDIFF"})
# sqlglot's parsers of their own for names Spark has no function of (`arg_max(x, y)`)
_UNKNOWN_PARSERS = frozenset({
    "ARGMAX", "ARGMIN", "ARG_MAX", "ARG_MIN", "SAFE_CAST", "CONVERT", "TRY_CONVERT",
    # other dialects' syntax, which sqlglot's Spark parser inherits and DuckDB would run
    # (json_object('a', 1) answered): Spark has no function of these names
    "GAP_FILL", "JSON_OBJECT", "JSON_OBJECTAGG", "JSON_TABLE", "MATCH", "NORMALIZE", "OPENJSON", "WEIGHT_STRING",
    "XMLELEMENT", "XMLTABLE",
})


def _build_to_json(args: list[exp.Expr]) -> exp.Expr:
    """``to_json(expr[, options])``: sqlglot's node, after Spark's count of arguments (sqlglot
    builds a node without ``this`` from none)."""
    if not 1 <= len(args) <= 2:
        raise _error(f"to_json requires [1, 2] parameters but got {len(args)}", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION")
    return SparkParser.FUNCTIONS["TO_JSON"](args)


_FUNCTIONS["TO_JSON"] = _build_to_json


def _build_trunc(args: list[exp.Expr]) -> exp.Expr:
    """``trunc(date, fmt)`` with ``fmt`` as written. sqlglot's builder names the level by an
    upper-cased string, spelling out abbreviations (``'Q'`` as ``'QUARTER'``, a column ``f`` as
    ``'F'``), where Spark reads the format as given: ``'Q'`` is no level (NULL), a column is read
    row by row."""
    node = SparkParser.FUNCTIONS["TRUNC"](args)
    if isinstance(node, exp.DateTrunc) and len(args) > 1:
        node.set("unit", args[1])
    return node


def _build_date_trunc(args: list[exp.Expr]) -> exp.Expr:
    """``date_trunc(fmt, ts)`` with ``fmt`` as written (see :func:`_build_trunc`)."""
    node = SparkParser.FUNCTIONS["DATE_TRUNC"](args)
    if isinstance(node, exp.TimestampTrunc) and args:
        node.set("unit", args[0])
    return node


def _build_replace(args: list[exp.Expr]) -> exp.Expr:
    """``replace(s, search)``: Spark's replacement is ``''`` (DuckDB has no two-argument form)."""
    node = SparkParser.FUNCTIONS["REPLACE"](args)
    if isinstance(node, exp.Replace) and len(args) == 2:
        node.set("replacement", exp.Literal.string(""))
    return node


_FUNCTIONS["REPLACE"] = _build_replace
_FUNCTIONS["TRUNC"] = _build_trunc
_FUNCTIONS["DATE_TRUNC"] = _build_date_trunc


# --------------------------------------------------------------------------------------------
# Checks after parsing: what Spark rejects while parsing or analysing, whatever the data


def _unparen(node: exp.Expr | None) -> exp.Expr | None:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _is_variant_extraction(node: exp.Expr | None) -> bool:
    """Whether ``node`` is (in parentheses or not) a ``:`` path or ``variant_get`` giving a variant."""
    inner = _unparen(node)
    return isinstance(inner, VariantGet) and inner.target_type == VARIANT


def _check_colon_base(base: exp.Expr) -> None:
    """Reject a ``:`` applied to something that is never a VARIANT."""
    if isinstance(base, exp.Literal) and base.is_string:
        # Spark reads `'x':a` as a string literal followed by the parameter marker `:a`.
        raise _error("':' after a string literal is an unbound parameter marker", "UNBOUND_SQL_PARAMETER")
    inner = _unparen(base)
    not_variant = isinstance(inner, (exp.Literal, exp.Boolean, exp.Null)) or (
        isinstance(inner, exp.Cast) and not inner.to.is_type(exp.DType.VARIANT)
    )
    if not_variant:
        raise _error(
            f"the ':' operator applies only to VARIANT values, not {base.sql(dialect=VpushSpark)}",
            "COLUMN_IS_NOT_VARIANT_TYPE",
        )


DEFERRED_PATH_ERROR = "vpush_deferred_path_error"
"""Meta key of a ``variant_get`` whose path is not valid: the error (``INVALID_VARIANT_GET_PATH``)
that ``plan_query.parse_spark`` raises unless Spark's optimizer drops the call first (a comparison
it folds, a subquery's column nothing reads): Spark checks the path where it computes the call."""


def _check_variant_get(node: VariantGet) -> None:
    func = node.sql_name().lower()
    path = node.args.get("path")
    if node.args.get("colon"):
        _check_colon_base(node.this)
        text = t.cast(exp.Literal, path).this
        if _json_path_instructions(text) is None:
            raise _error(f"syntax error in the ':' path {text[1:]!r}", "PARSE_SYNTAX_ERROR")
    if isinstance(path, exp.Literal) and path.is_string:
        try:
            VariantPath.parse(path.this)
        except VariantPathError as err:
            error = OptimizeError(
                f"the path {path.this!r} is not a valid variant extraction path in {func}",
                error_class="INVALID_VARIANT_GET_PATH",
                json_path=path.this,
            )
            error.__cause__ = err
            if node.args.get("colon"):
                raise error from err
            node.meta[DEFERRED_PATH_ERROR] = error
    elif isinstance(path, (exp.Literal, exp.Boolean)):
        raise _error(f"the path of {func} must be a string", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE")
    to = node.args.get("to")
    if to is None:
        return
    if isinstance(to, exp.Literal) and to.is_string:
        spark_type = parse_variant_type(to.this)
        to.replace(exp.Literal.string(spark_type.to_spark()))
    elif isinstance(to, (exp.Literal, exp.Null, exp.Boolean)) or to.find(exp.Column) is not None:
        raise _error(
            f"the type of {func} must be a string literal, not {to.sql(dialect=VpushSpark)}",
            "INVALID_SCHEMA.NON_STRING_LITERAL",
        )


def _check_mutation(node: exp.Func) -> None:
    func = node.sql_name().lower()
    paths = node.expressions if isinstance(node, VariantDelete) else [node.args.get("path")]
    for path in paths:
        if not (isinstance(path, exp.Literal) and path.is_string):
            continue
        try:
            segments = VariantPath.parse(path.this).segments
        except VariantPathError:
            segments = None
        if segments is None or (not segments and not isinstance(node, VariantArrayAppend)):
            raise OptimizeError(
                f"the path {path.this!r} is not a valid {func} target",
                error_class="INVALID_VARIANT_PATH",
                json_path=path.this,
            )
    for key in ("create_if_missing", "include_arrays"):
        flag = node.args.get(key)
        if flag is not None and flag.find(exp.Column) is not None:
            raise _error(f"the {key} argument of {func} must be a constant", "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT")


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)


def _check_any_call(node: exp.Any) -> None:
    """``x = ANY (...)`` without a subquery is, to Spark's parser, ``x = any(...)``: the boolean
    aggregate ``any``, which takes one boolean (measured on PySpark 4.3)."""
    argument = _unparen(node.this) if isinstance(node.this, exp.Paren) else node.this
    if argument is None:
        return
    if isinstance(argument, exp.Tuple) and len(argument.expressions) != 1:
        raise _error(
            f"The `any` requires 1 parameters but the actual number is {len(argument.expressions)}.",
            "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
        )
    if isinstance(argument, (exp.Array, exp.Literal, exp.Map, exp.Struct)) or str(call_name(argument)) in ("array", "map"):
        raise _error(
            f'Cannot resolve "any({argument.sql(dialect="spark")})" due to data type mismatch: '
            'The first parameter requires the "BOOLEAN" type.',
            "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        )


CLAUSE_AT = "vpush_clause_at"
"""Meta key of an ORDER BY, CLUSTER BY, DISTRIBUTE BY, SORT BY or LIMIT clause: the index of its first token."""
_RESULT_CLAUSES = (TokenType.ORDER_BY, TokenType.CLUSTER_BY, TokenType.DISTRIBUTE_BY, TokenType.SORT_BY, TokenType.LIMIT)
_RESULT_CLAUSE_ORDER = ("order", "cluster", "distribute", "sort", "limit")  # the order Spark's grammar takes them in


def _placed(parse: t.Callable[[Parser], tuple[str, exp.Expr | None]]) -> t.Callable[[Parser], tuple[str, exp.Expr | None]]:
    """A QUERY_MODIFIER_PARSERS entry that records where its clause starts (:data:`CLAUSE_AT`)."""

    def placed(parser: Parser) -> tuple[str, exp.Expr | None]:
        at = parser._index
        key, node = parse(parser)
        if node is not None:
            node.meta[CLAUSE_AT] = at
        return key, node

    return placed


def _result_clauses(statement: exp.Expr) -> None:
    """Spark's rules for a query's ORDER BY, CLUSTER BY, DISTRIBUTE BY and SORT BY (its
    ``queryOrganization`` rule and ``withQueryResultClauses``): taken in that order only, before a
    LIMIT (else a syntax error), alone or as DISTRIBUTE BY with SORT BY (else
    ``COMBINATION_QUERY_RESULT_CLAUSES``); ``CLUSTER BY e`` is ``DISTRIBUTE BY e SORT BY e``, as
    Spark builds it (its keys resolved and computed as those are)."""
    for query in statement.find_all(exp.Select, exp.SetOperation):
        placed = sorted(
            (query.args[key].meta[CLAUSE_AT], key) for key in _RESULT_CLAUSE_ORDER if query.args.get(key) and CLAUSE_AT in query.args[key].meta
        )
        keys = [key for _, key in placed]
        for before, after in zip(keys, keys[1:]):
            if _RESULT_CLAUSE_ORDER.index(after) < _RESULT_CLAUSE_ORDER.index(before):
                raise _error(f"Syntax error at or near '{after.upper()}'.", "PARSE_SYNTAX_ERROR")
        keys = [key for key in keys if key != "limit"]
        if len(keys) > 1 and keys != ["distribute", "sort"]:
            raise _error(
                "The feature is not supported: Combination of ORDER BY/SORT BY/DISTRIBUTE BY/CLUSTER BY.",
                "UNSUPPORTED_FEATURE.COMBINATION_QUERY_RESULT_CLAUSES",
            )
        cluster = query.args.get("cluster")
        if cluster is not None:
            query.set("cluster", None)
            query.set("distribute", exp.Distribute(expressions=[exp.Ordered(this=e.copy(), nulls_first=True) for e in cluster.expressions]))
            query.set("sort", exp.Sort(expressions=[exp.Ordered(this=e.copy(), nulls_first=True) for e in cluster.expressions]))


def _check_spark_syntax(node: exp.Expr) -> None:
    """Raise Spark's error for syntax sqlglot's parser takes and Spark's refuses (each measured on
    PySpark 4.3), rather than answer a query Spark does not run."""
    refused = None
    if isinstance(node, exp.Group) and any(isinstance(e, exp.Tuple) and not e.expressions for e in node.expressions):
        refused = "GROUP BY ()"
    elif isinstance(node, (exp.Any, exp.All)) and isinstance(node.parent, _COMPARISONS):
        if isinstance(_unparen(node.this), (exp.Select, exp.Subquery, exp.SetOperation)):
            refused = "a comparison with ANY, SOME or ALL of a subquery"
        elif isinstance(node, exp.All):
            raise _error("the routine ALL cannot be found", "UNRESOLVED_ROUTINE")
        else:
            _check_any_call(node)
    elif isinstance(node, exp.Window) and isinstance(node.this, exp.AggFunc) and isinstance(node.this.this, exp.Distinct):
        raise _error(f"Distinct window functions are not supported: {node.this.sql(dialect='spark')}",
                     "DISTINCT_WINDOW_FUNCTION_UNSUPPORTED")
    elif isinstance(node, exp.Fetch):
        refused = "FETCH FIRST"
    elif isinstance(node, exp.WindowSpec) and str(node.args.get("kind") or "").upper() == "GROUPS":
        refused = "a GROUPS frame"
    elif isinstance(node, exp.Between) and node.args.get("symmetric"):
        refused = "BETWEEN SYMMETRIC"
    elif isinstance(node, exp.SimilarTo):
        refused = "SIMILAR TO"
    elif isinstance(node, exp.Parameter):
        refused = "a $ parameter"
    elif isinstance(node, exp.Lateral) and node.args.get("cross_apply") is not None:
        refused = "CROSS APPLY and OUTER APPLY"
    elif isinstance(node, exp.SetOperation) and node.args.get("by_name"):
        refused = "UNION BY NAME"
    elif isinstance(node, exp.Window) and node.args.get("alias") is not None and any(
        node.args.get(k) for k in ("partition_by", "order", "spec")
    ):
        refused = "a named window with more clauses (OVER (w ORDER BY ...))"
    elif isinstance(node, exp.Select):
        limit, offset = node.args.get("limit"), node.args.get("offset")
        if isinstance(limit, exp.Limit) and isinstance(offset, exp.Offset):
            a, b = limit.expression, offset.expression
            if a is not None and b is not None and a.meta.get("start", -1) > b.meta.get("start", 10**9):
                refused = "LIMIT offset, count"  # sqlglot reads it as LIMIT count OFFSET offset
        distinct = node.args.get("distinct")
        if isinstance(distinct, exp.Distinct) and distinct.args.get("on") is not None:
            raise _error("the routine ON cannot be found (DISTINCT ON)", "UNRESOLVED_ROUTINE")
    elif isinstance(node, exp.In) and not node.expressions and not any(
        node.args.get(k) for k in ("query", "unnest", "field")
    ):
        raise _error("IN () needs at least one value", "INVALID_SQL_SYNTAX.EMPTY_IN_PREDICATE")
    elif isinstance(node, (exp.Limit, exp.Offset)):
        count = node.expression
        if isinstance(count, exp.Neg) and isinstance(count.this, exp.Literal) and not count.this.is_string:
            word = "limit" if isinstance(node, exp.Limit) else "offset"
            raise _error(f"the {word} expression must be equal to or greater than 0", "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE")
    elif isinstance(node, exp.Placeholder) and not isinstance(node.parent, exp.Alias):
        raise _error("found an unbound parameter marker", "UNBOUND_SQL_PARAMETER")
    elif isinstance(node, exp.Literal) and not node.is_string:
        _check_number_literal(node)
    elif isinstance(node, exp.DataType) and isinstance(node.args.get("collate"), exp.Column):
        # STRING COLLATE UNICODE_CI names a collation, which sqlglot's parser reads as a column
        node.set("collate", exp.var(node.args["collate"].name))
    elif isinstance(node, exp.WithTableHint):
        # Spark reads `t WITH (...)` as a table's options, which a query may not give
        raise _error("Operation not allowed: options of a table in a query (WITH (...))", "_LEGACY_ERROR_TEMP_0035")
    if refused is not None:
        raise _error(f"Spark's parser refuses {refused}", "PARSE_SYNTAX_ERROR")


_SUFFIX_RANGES = {
    exp.DType.TINYINT: (-(2**7), 2**7 - 1), exp.DType.SMALLINT: (-(2**15), 2**15 - 1),
    exp.DType.BIGINT: (-(2**63), 2**63 - 1),
}


def _check_number_literal(node: exp.Literal) -> None:
    """Spark's parser refuses a number literal outside its type's range: ``128Y``, ``1e400``
    (INVALID_NUMERIC_LITERAL_RANGE), an integer of more than 38 digits (a decimal Spark cannot
    type)."""
    cast = node.parent
    suffixed = isinstance(cast, exp.Cast) and cast.meta.get(TYPED_LITERAL) and isinstance(cast.to, exp.DataType)
    negative = isinstance(cast.parent if suffixed and cast is not None else cast, exp.Neg)
    text = node.this
    if suffixed and isinstance(cast, exp.Cast) and cast.to.this in _SUFFIX_RANGES:
        low, high = _SUFFIX_RANGES[cast.to.this]
        try:
            value = -int(text) if negative else int(text)
        except ValueError:
            return
        if not low <= value <= high:
            raise _error(f"The numeric literal {text} is outside the valid range for its type, with minimum "
                         f"of {low} and maximum of {high}.", "INVALID_NUMERIC_LITERAL_RANGE")
        return
    if suffixed and isinstance(cast, exp.Cast) and cast.to.this == exp.DType.DECIMAL:
        return
    if "e" in text.lower():
        if float(text) in (float("inf"), float("-inf")):
            raise _error(f"The numeric literal {text} is outside the valid range for double.", "INVALID_NUMERIC_LITERAL_RANGE")
    elif "." not in text and len(text.lstrip("0")) > 38:
        raise _error(f"The decimal literal {text} exceeds the maximum precision of 38.",
                     "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION")


def _subscripts_after_casts(expression: exp.Expr) -> None:
    """``x::map<string, int>['k']`` and ``x::array<int>[0]`` as Spark reads them, the cast's
    element or value (sqlglot reads a cast to a typed literal ``['k']``: a cast of ``x`` to a
    cast)."""
    for node in list(expression.find_all(exp.Cast)):
        inner = node.args.get("to")
        if not (isinstance(inner, exp.Cast) and isinstance(inner.this, exp.Array) and len(inner.this.expressions) == 1
                and isinstance(inner.args.get("to"), exp.DataType)):
            continue
        key = inner.this.expressions[0]
        node.set("to", inner.args["to"])
        for name in list(node.find_all(exp.Identifier)):
            if isinstance(name.parent, (exp.Cast, VariantGet)) and name.arg_key == "this":
                name.replace(exp.column(name.copy()))  # read there as a bare name: a column's
        node.replace(exp.Bracket(this=node.copy(), expressions=[key]))


def _check_statement(expression: exp.Expr) -> None:
    for node in expression.walk():
        _check_spark_syntax(node)
        if isinstance(node, VariantGet):
            _check_variant_get(node)
        elif isinstance(node, (VariantSet, VariantInsert, VariantDelete, VariantArrayAppend, VariantStripNulls)):
            _check_mutation(node)
        elif isinstance(node, VariantExplode):
            parent = node.parent
            if isinstance(parent, exp.Lateral) and parent.args.get("view"):
                raise _error(
                    f"the routine {node.sql_name().lower()} cannot be found in LATERAL VIEW; "
                    "use FROM t, LATERAL variant_explode(...)",
                    "ROUTINE_NOT_FOUND",
                )
            if not isinstance(parent, (exp.Table, exp.Lateral)):
                raise _error(
                    f"{node.sql_name().lower()} is a table function: call it in FROM",
                    "NOT_A_SCALAR_FUNCTION",
                )
        elif isinstance(node, exp.Alias) and isinstance(node.parent, exp.Anonymous) and node.arg_key == "expressions":
            # sqlglot reads `f(x AS y)` for a function it does not know (`safe_cast(g AS int)`);
            # Spark's grammar names an argument only in struct(...)
            raise _error(f"Syntax error at or near 'AS' in {node.parent.name}(...)", "PARSE_SYNTAX_ERROR")
        elif isinstance(node, exp.Alias) and isinstance(node.args.get("alias"), exp.Placeholder):
            # `1:a` or `'x':a`: a ':' after something sqlglot parses as a literal.
            if isinstance(node.this, exp.Literal) and node.this.is_string:
                raise _error(f"found the unbound parameter :{node.alias}", "UNBOUND_SQL_PARAMETER")
            raise _error("the ':' operator applies only to VARIANT values", "COLUMN_IS_NOT_VARIANT_TYPE")
        elif isinstance(node, exp.Cast) and not isinstance(node.args.get("to"), exp.DataType):
            # sqlglot reads `x::array<int>[0]` as a cast to a typed array literal.
            raise OptimizeError(
                "vpush cannot read a subscript right after '::type'; write (x::type)[i]"
            )
        elif isinstance(node, exp.DataType) and node.is_type(exp.DType.TIME):
            # sqlglot's Spark dialect would write TIME as TIMESTAMP; Spark 4.3 rejects it.
            raise _error("the TIME type is not enabled in Spark SQL", "UNSUPPORTED_TIME_TYPE")
        elif isinstance(node, (exp.Bracket, exp.Dot)):
            base = _unparen(node.this)
            if isinstance(base, VariantGet) and base.target_type == VARIANT:
                if isinstance(node, exp.Bracket) and any(isinstance(e, exp.Star) for e in node.expressions):
                    raise _error("invalid usage of '*' in a subscript", "INVALID_USAGE_OF_STAR_OR_REGEX")
                raise _error(
                    f"cannot extract a field or element from the VARIANT {base.sql(dialect=VpushSpark)}; "
                    "extend the path or cast first",
                    "INVALID_EXTRACT_BASE_FIELD_TYPE",
                )


def _spark_tuples(statement: exp.Expr) -> None:
    """A parenthesized list ``(1, x)`` in a projection is Spark's struct of it, its fields named
    after columns or ``col1, col2, ...`` by position (``named_struct(col1, 1, x, x)``), where
    sqlglot's tuple is DuckDB's unnamed row. Tuples of IN, VALUES and GROUP BY stay tuples."""
    for node in list(statement.find_all(exp.Tuple)):
        parent = node.parent
        if isinstance(parent, exp.Alias):
            parent = parent.parent
        if not isinstance(parent, exp.Select) or node.arg_key not in ("expressions", "this"):
            continue
        fields = [
            exp.PropertyEQ(this=exp.to_identifier(tuple_field_name(e, k)), expression=e)
            for k, e in enumerate(node.expressions)
        ]
        struct = exp.Struct(expressions=fields)
        struct.meta[_NAMED_STRUCT] = True
        struct.meta[SPARK_CALL] = ("named_struct", tuple(
            trace for f in fields for trace in (exp.Literal.string(f.name), _trace(struct, f.expression))
        ))
        node.replace(struct)


def _parenthesize_chained_comparisons(statement: exp.Expr) -> None:
    """``a > b = c`` is Spark's ``(a > b) = c``; DuckDB's parser refuses the chain unparenthesized."""
    for node in list(statement.find_all(*_COMPARISONS)):
        for key in ("this", "expression"):
            operand = node.args.get(key)
            if isinstance(operand, _COMPARISONS):
                node.set(key, exp.Paren(this=operand))


def _identifier_clauses(statement: exp.Expr) -> None:
    """Spark's ``IDENTIFIER('t')`` of a literal as the name it holds: a table in FROM, a column
    elsewhere (``IDENTIFIER('t.i')`` qualified)."""
    for node in list(statement.find_all(exp.Anonymous)):
        if node.name.upper() != "IDENTIFIER" or len(node.expressions) != 1:
            continue
        text = node.expressions[0]
        if not isinstance(text, exp.Literal) or not text.is_string:
            continue
        parts = text.this.split(".")
        if not all(_PLAIN_KEY.match(p) for p in parts) or len(parts) > 2:
            continue
        if isinstance(node.parent, exp.Table) and node.arg_key == "this":
            node.parent.set("db", exp.to_identifier(parts[0]) if len(parts) == 2 else None)
            node.replace(exp.to_identifier(parts[-1]))
        else:
            node.replace(exp.column(parts[-1], table=parts[0] if len(parts) == 2 else None))


def _fold_negative_suffixed(statement: exp.Expr) -> None:
    """``-128Y`` is one literal to Spark's parser (its range reaches -128): the minus goes into
    the literal, where a cast of 128 to a tinyint would overflow."""
    for node in list(statement.find_all(exp.Neg)):
        cast = node.this
        if isinstance(cast, exp.Cast) and cast.meta.get(TYPED_LITERAL) and isinstance(cast.this, exp.Literal):
            number = cast.this
            if not number.is_string and not number.this.startswith("-"):
                number.set("this", "-" + number.this)
                node.replace(cast)


def tuple_field_name(node: exp.Expr, index: int) -> str:
    """The name Spark gives the field of a struct made from a parenthesized list: a column's
    name, else ``col`` and its position from 1."""
    return node.name if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star) else f"col{index + 1}"


_VALUES_ALIAS = "__vpush_values"


def _name_values_columns(statement: exp.Expr) -> exp.Expr:
    """Spark names the columns of ``VALUES`` without a column list ``col1, col2, ...`` (DuckDB's
    are ``col0, col1, ...``): the list is written out. A ``VALUES`` statement is ``SELECT *``
    of it."""
    if isinstance(statement, exp.Values):
        statement = exp.select("*").from_(statement)
    for values in list(statement.find_all(exp.Values)):
        alias = values.args.get("alias")
        if alias is not None and alias.columns:
            continue
        first = values.expressions[0] if values.expressions else None
        width = len(first.expressions) if isinstance(first, exp.Tuple) else 1
        name = alias.this if alias is not None and alias.this else exp.to_identifier(_VALUES_ALIAS)
        values.set("alias", exp.TableAlias(this=name, columns=[exp.to_identifier(f"col{k + 1}") for k in range(width)]))
    return statement


_SPELLING = "vpush_spelling"


def _spelled(name: str) -> t.Callable[[list[exp.Expr]], exp.Expr]:
    """A FUNCTIONS entry that builds what Spark's parser builds and remembers the name written,
    so that the Spark SQL written back calls the same function (``log10(x)`` is not
    ``log(10, x)`` in Spark: the two can differ in the last bit)."""
    base = SparkParser.FUNCTIONS[name]

    def build(args: list[exp.Expr]) -> exp.Expr:
        node = base(args)
        node.meta[_SPELLING] = name
        return node

    return build


# Spark functions that sqlglot parses with a parser of their own (for `substring(x FROM 1)`,
# `position(a IN b)`, ...): their names are recorded too.
_TRACED_PARSERS = frozenset({
    "CEIL", "FLOOR", "SUBSTR", "SUBSTRING", "POSITION", "TRIM", "INITCAP", "CHAR", "CHR", "OVERLAY",
    "LISTAGG", "STRING_AGG", "PERCENTILE", "PERCENTILE_APPROX", "APPROX_PERCENTILE", "DECODE",
    "EXTRACT", "MAX_BY", "MIN_BY",
})

_INTEGER_SUFFIXES = {exp.DType.BIGINT: "L", exp.DType.SMALLINT: "S", exp.DType.TINYINT: "Y"}

TYPED_LITERAL = "vpush_typed_literal"
"""The meta key marking a ``Cast`` that the user wrote as a typed literal (``DATE '2024-01-02'``,
or a number with a type suffix, ``1L``, ``1.5D``, ``2BD``): Spark names it after its value, where
a ``CAST`` is named ``CAST(... AS DATE)``."""


def _typed_literal(parser: Parser, this: exp.Expr, to: exp.DataType) -> exp.Expr:
    cast = parser.expression(exp.Cast(this=this, to=to))
    cast.meta[TYPED_LITERAL] = True
    return cast


def _double_colon(parser: Parser, this: exp.Expr, to: exp.Expr) -> exp.Expr:
    """``x::type``, and a number with a type suffix, which sqlglot's tokenizer turns into
    ``1::BIGINT`` (its ``::`` token spans the number's text, not ``::``): a typed literal."""
    cast = parser.build_cast(strict=parser.STRICT_CAST, this=this, to=to)
    colon = parser._tokens[parser._index - 2] if parser._index >= 2 else None
    if (
        isinstance(this, exp.Literal)
        and colon is not None
        and colon.token_type == TokenType.DCOLON
        and parser.sql[colon.start : colon.end + 1] != "::"
    ):
        cast.meta[TYPED_LITERAL] = True
    return cast


WRITTEN_UNIT = "vpush_written_unit"
"""The meta key under which ``extract(hour FROM ts)`` and ``timestampadd(hour, 1, ts)`` keep their
unit as written."""

PREFIX_NOT = "vpush_prefix_not"
"""The meta key marking a ``NOT`` written before its operand: Spark names ``NOT x IS NULL``
``(NOT (x IS NULL))``, and ``x IS NOT NULL`` (the same tree in sqlglot) ``(x IS NOT NULL)``."""


def _prefix_not(node: exp.Expr) -> exp.Expr:
    node.meta[PREFIX_NOT] = True
    return node


SPARK_CALL = "vpush_spark_call"
"""The meta key under which a function call keeps how the user wrote it: ``(name, arguments)``,
the name lower-cased as written (``nvl``, not sqlglot's ``coalesce``), the arguments each as a
path of ``(arg_key, index)`` steps from the call to the argument as parsed, or a copy of a
literal argument (a builder may turn one into something else: ``date_trunc('HOUR', ...)``),
or None where the builder dropped it; ``arguments`` is None for a call parsed by a parser of its
own (``substring(x FROM 1)``). Spark names a column after the call as written, and vpush
answers on DuckDB only for the functions whose Spark semantics it knows by name."""

ArgumentTrace = t.Union[tuple[tuple[str, t.Optional[int]], ...], exp.Literal, None]


_BUILT_AT = "vpush_built_at"
"""Meta key of a traced literal's copy: the path at which the built call held the literal itself
(None where the builder made a node of its own), which tells two literals written alike apart."""


def _trace(call: exp.Expr, argument: exp.Expr) -> ArgumentTrace:
    """How to find ``argument`` again from ``call`` (see :data:`SPARK_CALL`)."""
    steps: list[tuple[str, int | None]] = []
    node: exp.Expr | None = argument
    while node is not None and node is not call:
        if node.arg_key is None:
            node = None
            break
        steps.append((node.arg_key, node.index))
        node = node.parent
    path = tuple(reversed(steps)) if node is call else None
    if isinstance(argument, exp.Literal):
        written = argument.copy()
        written.meta[_BUILT_AT] = path  # where the call holds it, if it does (retrace)
        return written
    return path


def _utc_shift(name: str) -> t.Callable[..., exp.Expr]:
    """A FUNCTIONS entry for ``from_utc_timestamp`` / ``to_utc_timestamp`` that refuses a variant
    path as Spark does: sqlglot wraps the argument in a cast to a timestamp, which would make it
    the variant's cast (a cast the user wrote, ``v:ts::timestamp``, is taken)."""
    base = SparkParser.FUNCTIONS[name]

    def build(args: list[exp.Expr], dialect: t.Any = None) -> exp.Expr:
        if args and _is_variant_extraction(args[0]):
            raise _error(
                f'the first parameter of {name.lower()} requires the "TIMESTAMP" type, however it has the type "VARIANT"',
                "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        try:
            return base(args)
        except TypeError:
            return base(args, dialect=dialect)

    return build


def utc_shift_argument(node: exp.AtTimeZone | exp.FromTimeZone) -> exp.Expr:
    """The first argument of ``from_utc_timestamp`` / ``to_utc_timestamp`` as the user wrote it:
    without the cast to a timestamp that sqlglot's parser wraps around it (a user's ``CAST`` is
    to ``TIMESTAMPTZ`` and inside it; a ``try_cast`` is a ``TryCast``).

    Example:
        >>> from sqlglot import parse_one
        >>> node = parse_one("SELECT from_utc_timestamp(x, 'UTC')", read=VpushSpark).expressions[0]
        >>> utc_shift_argument(node).sql()
        'x'
    """
    value = node.this
    if type(value) is exp.Cast and value.to.this == exp.DataType.Type.TIMESTAMP:
        return value.this
    return value


def _utc_shift_sql(name: str) -> t.Callable[[SparkGenerator, exp.AtTimeZone | exp.FromTimeZone], str]:
    """Spark's text of the call, without sqlglot's cast: Spark refuses an argument it cannot cast
    implicitly (a number, a variant), where an explicit cast would take it."""

    def write(self: SparkGenerator, node: exp.AtTimeZone | exp.FromTimeZone) -> str:
        return self.func(name, utc_shift_argument(node), node.args.get("zone"))

    return write


def arity_error(name: str, count: int) -> OptimizeError | None:
    """Spark's error for a call of its function ``name`` with ``count`` arguments
    (``WRONG_NUM_ARGS``, or ``REQUIRED_PARAMETER_NOT_FOUND`` for a function of named parameters),
    or None where Spark takes that count (or vpush does not know the function's counts)."""
    lowered = name.lower()
    if lowered == "count" and count == 0:
        return _error(
            "The `count` requires  >= 1 parameters but the actual number is 0. If you have to call this function "
            'with 0 parameters, set the legacy configuration "spark.sql.legacy.allowParameterlessCount" to "true".',
            "WRONG_NUM_ARGS.WITH_SUGGESTION",
        )
    required = SPARK_REQUIRED_PARAMETERS.get(lowered, ())
    if count < len(required):
        return _error(
            f"Cannot invoke routine `{lowered}` because the parameter named `{required[count]}` is required, but the "
            "routine call did not supply a value. Please update the routine call to supply an argument value (either "
            "positionally at index 0 or by name) and retry the query again.",
            "REQUIRED_PARAMETER_NOT_FOUND",
        )
    found = SPARK_ARITY.get(lowered)
    if found is None:
        return None
    spec, taken = found
    if count in taken or (count > 6 and count != 25 and (25 in taken or max(taken, default=0) >= 6)):
        # past the counts measured, only a function that takes none of 6 and 25 refuses them all:
        # the printed counts are not always the ones Spark takes (make_timestamp_ltz takes 7,
        # printing "[2, 6]"), so a count there is left to the function's own checks
        return None
    shown = _ARITY_SHOWN_AS.get(lowered, lowered)
    return _error(
        f"The `{shown}` requires {spec} parameters but the actual number is {count}.", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"
    )


# the functions Spark's count error names by the function they are built on (measured)
_ARITY_SHOWN_AS = {"try_parse_url": "parse_url", "try_reflect": "reflect"}


def _traced(name: str, build: t.Callable[..., exp.Expr]) -> t.Callable[..., exp.Expr]:
    """A FUNCTIONS entry that builds what ``build`` builds and records the call as written."""

    def traced(args: list[exp.Expr], dialect: t.Any) -> exp.Expr:
        # The parser calls a builder with the dialect when one without it raises TypeError:
        # so does this, for the builder it wraps.
        try:
            node = build(args)
        except TypeError:
            node = build(args, dialect=dialect)
        if isinstance(node, exp.IgnoreNulls) and node.this.meta.get(SPARK_CALL):
            return node  # the call inside is traced (lag(x, 1, 0, true))
        if isinstance(node, exp.Exists) and isinstance(node.this, (exp.Subquery, exp.Query, exp.Values)):
            # EXISTS ((SELECT ...)), EXISTS (VALUES ...): the predicate of a query, no call of the
            # function exists(array, lambda)
            query = node.this
            while isinstance(query, exp.Subquery) and not query.args.get("alias"):
                query = query.this
            return exp.Exists(this=exp.select("*").from_(query) if isinstance(query, exp.Values) else query)
        if isinstance(node, exp.Expr) and not any(node is a for a in args):
            node.meta[SPARK_CALL] = (name.lower(), tuple(_trace(node, a) for a in args))
        return node

    return traced


def _decode_case(arguments: list[exp.Expr]) -> exp.Expr:
    """``decode(expr, search, result [, search, result] ... [, default])`` as Spark's
    ``Decode.createExpr`` builds it: ``CASE WHEN expr <=> search THEN result ... ELSE default END``
    (NULL matches NULL), the default a string NULL where none is given (so ``decode(g, 'a', 1)``
    is a ``bigint``, as a CASE of an int and a string is), named ``decode(...)`` as written."""
    subject, rest = arguments[0], arguments[1:]
    branches = [
        exp.If(this=exp.NullSafeEQ(this=subject if k == 0 else subject.copy(), expression=rest[2 * k]), true=rest[2 * k + 1])
        for k in range(len(rest) // 2)
    ]
    default = rest[-1] if len(rest) % 2 else exp.cast(exp.Null(), exp.DataType.build("string"))
    case = exp.Case(ifs=branches, default=default)
    case.meta[SPARK_CALL] = ("decode", tuple(_trace(case, a) for a in arguments))
    return case


def _keyword_in_call(parser: Parser, start: int, keyword: TokenType) -> bool:
    """Whether the call parsed from token ``start`` on holds ``keyword`` outside parentheses
    (``substr(x FROM 2)``, not ``substr(x, (SELECT 1 FROM t))``)."""
    depth = 0
    for token in parser._tokens[start : parser._index]:
        depth += (token.token_type == TokenType.L_PAREN) - (token.token_type == TokenType.R_PAREN)
        if depth == 0 and token.token_type == keyword:
            return True
    return False


_ARGUMENT_KEYWORDS = frozenset({TokenType.FARROW, TokenType.FROM, TokenType.FOR, TokenType.IN, TokenType.ALIAS, TokenType.ORDER_BY, TokenType.DISTINCT, TokenType.SEPARATOR})
# a name after these is no call of Spark's functions (`t.f(x)`, `s LIKE ANY ('a', 'b')`)
_NOT_CALLED_AFTER = frozenset({TokenType.DOT, TokenType.LIKE, TokenType.ILIKE})
_ARGUMENT_WORDS = frozenset({"BOTH", "LEADING", "TRAILING", "PLACING"})


def _plain_argument_count(tokens: list[Token], start: int = 0) -> int | None:
    """The count of comma-separated arguments of a call whose tokens inside its parentheses start
    at ``tokens[start]``; None where a keyword of the call's own syntax stands among them (``FROM``)."""
    depth, count, seen = 0, 0, False
    if start + 1 < len(tokens) and tokens[start].token_type == TokenType.DISTINCT:
        if tokens[start + 1].token_type == TokenType.R_PAREN:
            return None  # count(DISTINCT): Spark reads a column named DISTINCT
        start += 1  # sum(DISTINCT x, y): the arguments after it
    for index in range(start, len(tokens)):
        token = tokens[index]
        kind = token.token_type
        if kind in (TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE):
            depth += 1
        elif kind in (TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE):
            depth -= 1
            if depth < 0:
                break  # the call's own closing parenthesis
        elif depth == 0 and (kind in _ARGUMENT_KEYWORDS or token.text.upper() in _ARGUMENT_WORDS):
            return None
        elif depth == 0 and kind == TokenType.COMMA:
            count += 1
        seen = True
    return count + 1 if seen else 0


def _traced_parser(name: str, parse: t.Callable[[Parser], exp.Expr | None]) -> t.Callable[[Parser], exp.Expr | None]:
    """A FUNCTION_PARSERS entry that records the function's name as written."""

    def traced(parser: Parser) -> exp.Expr | None:
        start = parser._index
        node = parse(parser)
        if isinstance(node, exp.Decode) and name == "DECODE":
            # decode(binary, charset): a call of its own (spark_encodings), named as any other
            return exp.Anonymous(this="decode", expressions=[node.this, node.args["charset"]])
        if isinstance(node, exp.DecodeCase) and name == "DECODE":
            return _decode_case(list(node.expressions))
        if isinstance(node, exp.Expr):
            written = name.lower()
            if written == "position" and _keyword_in_call(parser, start, TokenType.IN):
                written = "locate"  # Spark names `position(a IN b)` as `locate(a, b, 1)`
            if written == "substr" and _keyword_in_call(parser, start, TokenType.FROM):
                written = "substring"  # Spark's parser reads `substr(x FROM n)` as `substring`
            node.meta[SPARK_CALL] = (written, None)
            if written == "extract" and start < len(parser._tokens):
                node.meta[WRITTEN_UNIT] = parser._tokens[start].text  # Spark prints it as written
        return node

    return traced


PARSED_ARGUMENTS: dict[type[exp.Expr], tuple[str, ...]] = {
    exp.Substring: ("this", "start", "length"), exp.Floor: ("this", "decimals"), exp.Ceil: ("this", "decimals"),
    exp.Trim: ("this", "expression", "position"), exp.StrPosition: ("substr", "this", "position"),
    exp.GroupConcat: ("this", "separator"), exp.Quantile: ("this", "quantile"), exp.ArgMax: ("this", "expression"),
    exp.ApproxQuantile: ("this", "quantile", "accuracy"),
    exp.ArgMin: ("this", "expression"),
}
"""The arguments, in Spark's order, of the calls that sqlglot parses with a parser of their own
(``substring(x FROM 1 FOR 2)``, ``trim(BOTH 'x' FROM s)``)."""


def retrace(call: exp.Expr, written: exp.Expr, replaced: exp.Expr) -> None:
    """Point ``call``'s trace of the literal argument ``written`` at ``replaced``, the node put in
    its place as Spark's implicit cast of it (``trunc('2024-05-17', 'MM')``: the string read as a
    date), so :func:`call_arguments` gives what is computed, not the literal as written."""
    traced = call.meta.get(SPARK_CALL) if call.meta else None
    if traced is None or traced[1] is None or not isinstance(written, exp.Literal):
        return
    path = _trace(call, replaced)
    if path is None or isinstance(path, exp.Literal):
        return
    matches = [k for k, trace in enumerate(traced[1]) if isinstance(trace, exp.Literal) and trace == written]
    if len(matches) > 1:  # two arguments written alike: the one the call held where the cast now stands
        matches = [k for k in matches if t.cast(exp.Literal, traced[1][k]).meta.get(_BUILT_AT) == path]
    if len(matches) == 1:
        call.meta[SPARK_CALL] = (traced[0], tuple(path if k == matches[0] else trace for k, trace in enumerate(traced[1])))


def call_arguments(node: exp.Expr) -> list[exp.Expr | None] | None:
    """The arguments of a traced call, in the order the user wrote them (a literal as written;
    None for one the builder dropped), or None for a call whose arguments were not traced."""
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    call = node.meta.get(SPARK_CALL) if node.meta else None
    if call is None or call[1] is None:
        return None
    out: list[exp.Expr | None] = []
    for trace in call[1]:
        if trace is None or isinstance(trace, exp.Expr):
            out.append(trace)
            continue
        current: t.Any = node
        for key, index in trace:
            current = current.args.get(key) if isinstance(current, exp.Expr) else None
            if index is not None:
                current = current[index] if isinstance(current, list) and index < len(current) else None
        out.append(current if isinstance(current, exp.Expr) else None)
    return out


def enclosing(node: exp.Expr, kind: type[exp.Expr]) -> list[exp.Expr]:
    """The nodes of type ``kind`` around ``node``, innermost first."""
    found = []
    parent = node.parent
    while parent is not None:
        if isinstance(parent, kind):
            found.append(parent)
        parent = parent.parent
    return found


def inside_within(node: exp.Expr, kinds: type[exp.Expr] | tuple[type[exp.Expr], ...], stop: exp.Expr) -> bool:
    """Whether ``node`` lies inside a node of ``kinds`` that lies inside ``stop`` (``stop``
    itself not counted; ``node`` that is ``stop`` lies inside nothing of it).

    Example:
        >>> from sqlglot import parse_one
        >>> select = parse_one("SELECT a + sum(b) FROM t")
        >>> [inside_within(c, exp.AggFunc, select) for c in select.find_all(exp.Column)]
        [False, True]
    """
    if node is stop:
        return False
    parent = node.parent
    while parent is not None and parent is not stop:
        if isinstance(parent, kinds):
            return True
        parent = parent.parent
    return False


def cte_of(table: exp.Table) -> exp.CTE | None:
    """The CTE that ``table`` reads: one of its name (no qualifier) defined by the nearest WITH
    around it that defines one, before the CTE ``table`` stands in (a CTE's own query reads the
    table of its name, not itself, unless the WITH is RECURSIVE); None for a table.

    Example:
        >>> from sqlglot import parse_one
        >>> query = parse_one("WITH t AS (SELECT id FROM t), c AS (SELECT id FROM t) SELECT * FROM c")
        >>> [(table.name, cte_of(table) is not None) for table in query.find_all(exp.Table)]
        [('c', True), ('t', False), ('t', True)]
    """
    if table.args.get("db") is not None or table.args.get("catalog") is not None:
        return None
    name = table.name.lower()
    node: exp.Expr = table
    while node.parent is not None:
        parent = node.parent
        if isinstance(parent, exp.With):
            place = next((i for i, cte in enumerate(parent.expressions) if cte is node), len(parent.expressions))
            visible = parent.expressions if parent.args.get("recursive") else parent.expressions[:place]
            found = next((cte for cte in reversed(visible) if cte.alias_or_name.lower() == name), None)
            if found is not None:
                return found
        elif isinstance(parent, exp.Query) and isinstance(parent.args.get("with_"), exp.With) and node is not parent.args["with_"]:
            found = next((cte for cte in reversed(parent.args["with_"].expressions) if cte.alias_or_name.lower() == name), None)
            if found is not None:
                return found
        node = parent
    return None


def within(node: exp.Expr, ancestor: exp.Expr) -> bool:
    """Whether ``node`` is ``ancestor`` or lies inside it.

    Example:
        >>> from sqlglot import parse_one
        >>> select = parse_one("SELECT a FROM (SELECT b FROM t) AS s")
        >>> [within(c, select.find(exp.Subquery)) for c in select.find_all(exp.Column)]
        [False, True]
    """
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent  # type: ignore[assignment]
    return False


def conjuncts(condition: exp.Expr | None) -> list[exp.Expr]:
    """The conjuncts of a condition's ``AND`` chain, through parentheses at every level, as
    Spark's ``splitConjunctivePredicates`` splits them (its tree has no parentheses); none for no
    condition.

    Example:
        >>> from sqlglot import parse_one
        >>> [c.sql() for c in conjuncts(parse_one("(a > 1 AND b AND (c < 2 AND d) AND (e OR f))"))]
        ['a > 1', 'b', 'c < 2', 'd', 'e OR f']
    """
    if condition is None:
        return []
    condition = condition.unnest()
    if isinstance(condition, exp.And):
        return [part for side in (condition.this, condition.expression) for part in conjuncts(side)]
    return [condition]


def lambda_variables(node: exp.Expr) -> set[str]:
    """The lower-cased names of the variables of the lambdas around ``node``."""
    return {v.name.lower() for lam in enclosing(node, exp.Lambda) for v in lam.expressions}


def bound_by_lambda(column: exp.Column) -> bool:
    """Whether ``column`` names a parameter of a lambda around it (``x`` in ``x -> x + 1``)."""
    return column.name.lower() in lambda_variables(column)


def call_name(node: exp.Expr) -> str | None:
    """The lower-cased name of the function the user called, for a traced call or one sqlglot
    does not know (:class:`sqlglot.exp.Anonymous`)."""
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    if not isinstance(node, exp.Expr):
        return None
    call = node.meta.get(SPARK_CALL) if node.meta else None
    return None if call is None else str(call[0])


def _build_concat(args: list[exp.Expr], dialect: t.Any) -> exp.Expr:
    """``concat()`` of nothing is Spark's empty string (sqlglot's Concat needs an argument)."""
    if not args:
        return exp.Concat(expressions=[exp.Literal.string("")])
    return SparkParser.FUNCTIONS["CONCAT"](args, dialect=dialect)


def _build_named_struct(args: list[exp.Expr]) -> exp.Expr:
    struct = SparkParser.FUNCTIONS["NAMED_STRUCT"](args)
    struct.meta[_NAMED_STRUCT] = True
    return struct


# --------------------------------------------------------------------------------------------
# The dialect


_CHAR_TYPES = frozenset({exp.DType.CHAR, exp.DType.VARCHAR})


# The token ``>>>`` stands for in the parser: one Spark's tokenizer never makes of its own.
_UNSIGNED_SHIFT = TokenType.CARET_AT
_TYPE_BRACKETS = frozenset({"ARRAY", "MAP", "STRUCT"})


def _merge_unsigned_shifts(tokens: list[Token]) -> list[Token]:
    """``tokens`` with each ``>>>`` of an expression one token, which sqlglot's tokenizer leaves
    as three ``>`` (its parser then reads ``>>`` and fails on the third); the ``>>>`` closing
    ``ARRAY<ARRAY<ARRAY<INT>>>`` stays three."""
    merged: list[Token] = []
    depth = 0  # how many type brackets (ARRAY<, MAP<, STRUCT<) are open
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.token_type == TokenType.LT and merged and merged[-1].text.upper() in _TYPE_BRACKETS:
            depth += 1
        elif token.token_type == TokenType.GT and depth:
            depth -= 1
        elif token.token_type == TokenType.GT and index + 2 < len(tokens) and all(
            tokens[index + k].token_type == TokenType.GT and tokens[index + k].start == token.start + k for k in (1, 2)
        ):
            merged.append(Token(_UNSIGNED_SHIFT, ">>>", token.line, token.col + 2, token.start, token.start + 2, token.comments))
            index += 3
            continue
        merged.append(token)
        index += 1
    return merged


class VpushSparkParser(SparkParser):
    """Spark's parser plus typed variant functions, the ``:`` operator and strict casts."""

    STRICT_CAST = True
    COLON_IS_VARIANT_EXTRACT = True
    COLUMN_OPERATORS = {**SparkParser.COLUMN_OPERATORS, TokenType.DCOLON: _double_colon}
    # A unary plus is Spark's `positive` (named `(+ x)`), where sqlglot drops it.
    UNARY_PARSERS = {
        **SparkParser.UNARY_PARSERS,
        TokenType.PLUS: lambda self: self.expression(exp.Anonymous(this="positive", expressions=[self._parse_unary()])),
        TokenType.NOT: lambda self: _prefix_not(self.expression(exp.Not(this=self._parse_equality()))),
    }
    FUNCTIONS = {
        name: _traced(name, build if name.lower() in SPARK_BUILTIN_FUNCTIONS or name in _GRAMMAR_CALLS else _unknown_call(name))
        for name, build in {
            **SparkParser.FUNCTIONS,
            **_FUNCTIONS,
            "NAMED_STRUCT": _build_named_struct,
            "CONCAT": t.cast(t.Callable[..., exp.Expr], _build_concat),
            "LOG10": _spelled("LOG10"),
            "LOG2": _spelled("LOG2"),
            # Spark's regexp(s, p) is rlike (sqlglot's Spark parser knows only the operator)
            "REGEXP": SparkParser.FUNCTIONS["RLIKE"],
            "FROM_UTC_TIMESTAMP": _utc_shift("FROM_UTC_TIMESTAMP"),
            "TO_UTC_TIMESTAMP": _utc_shift("TO_UTC_TIMESTAMP"),
            # Spark's casts by type name that sqlglot's Spark parser does not know
            **{name: build_as_cast(name) for name in ("BIGINT", "SMALLINT", "TINYINT", "BINARY")},
            "DECIMAL": build_as_cast("DECIMAL(10, 0)"),
        }.items()
    }
    BITWISE = {**SparkParser.BITWISE, _UNSIGNED_SHIFT: ShiftRightUnsigned}
    QUERY_MODIFIER_PARSERS = {
        **SparkParser.QUERY_MODIFIER_PARSERS,
        **{token: _placed(SparkParser.QUERY_MODIFIER_PARSERS[token]) for token in _RESULT_CLAUSES},
    }
    # Spark has no list comprehension (`x FOR y IN z`): FOR ends a PIVOT's aggregates.
    RANGE_PARSERS = {token: parse for token, parse in SparkParser.RANGE_PARSERS.items() if token != TokenType.FOR}
    FUNCTION_PARSERS = {
        name: _traced_parser(name, parse) if name in _TRACED_PARSERS else parse
        for name, parse in SparkParser.FUNCTION_PARSERS.items()
        if name not in _UNKNOWN_PARSERS
    }
    TYPE_LITERAL_PARSERS = {
        **SparkParser.TYPE_LITERAL_PARSERS,
        **{
            d: _typed_literal
            for d in (exp.DType.DATE, exp.DType.TIMESTAMP, exp.DType.TIMESTAMPTZ, exp.DType.TIMESTAMPNTZ, exp.DType.TIMESTAMPLTZ)
        },
    }
    TYPE_CONVERTERS = {
        **SparkParser.TYPE_CONVERTERS,
        exp.DType.DECIMAL: build_default_decimal_type(precision=10, scale=0),
    }

    def parse(self, raw_tokens: list[Token], sql: str) -> list[exp.Expr | None]:
        table = table_statement(raw_tokens)
        if table is not None:  # Spark's `TABLE t`, which sqlglot reads as the column TABLE aliased t
            return [exp.select("*").from_(exp.Table(this=exp.to_identifier(table, quoted=True)))]
        check_spark_tokens(raw_tokens, sql)
        raw_tokens = _merge_unsigned_shifts(raw_tokens)
        for token, after in zip(raw_tokens, raw_tokens[1:]):
            # sqlglot drops a trailing comma and takes a string as an alias; Spark's parser refuses
            if token.token_type == TokenType.COMMA and after.token_type == TokenType.FROM:
                raise _error("a trailing comma before FROM", "TRAILING_COMMA_IN_SELECT")
            if token.token_type == TokenType.COMMA and after.token_type == TokenType.R_PAREN:
                raise _error("Spark's parser refuses a trailing comma before ')'", "PARSE_SYNTAX_ERROR")
            if token.token_type == TokenType.ALIAS and after.token_type in _STRING_TOKENS:
                raise _error("Spark's parser refuses a string as an alias (AS 'x', AS \"x\")", "PARSE_SYNTAX_ERROR")
        for token, dot, star in zip(raw_tokens, raw_tokens[1:], raw_tokens[2:]):
            # f(...).* (named_struct(...).*): Spark's parser takes .* after a name only
            if token.token_type == TokenType.R_PAREN and dot.token_type == TokenType.DOT and star.token_type == TokenType.STAR:
                raise _error("Spark's parser refuses .* after a call or parenthesis", "PARSE_SYNTAX_ERROR")
        statements = [None if s is None else _name_values_columns(s) for s in super().parse(raw_tokens, sql)]
        for statement in statements:
            if statement is not None:
                _subscripts_after_casts(statement)
                _result_clauses(statement)
                _check_statement(statement)
                _spark_tuples(statement)
                _parenthesize_chained_comparisons(statement)
                _identifier_clauses(statement)
                _fold_negative_suffixed(statement)
        return statements

    def _parse_cluster(self) -> exp.Cluster:
        """``CLUSTER BY`` of expressions, as Spark's grammar takes them (sqlglot's of columns only)."""
        self._match(TokenType.CLUSTER_BY)
        return self.expression(exp.Cluster(expressions=self._parse_csv(self._parse_assignment)))

    def _parse_function_call(
        self, functions: dict[str, t.Callable] | None = None, anonymous: bool = False, optional_parens: bool = True, any_token: bool = False
    ) -> exp.Expr | None:
        """A call, or where Spark refuses its count of arguments, a plain call carrying Spark's
        error (:data:`DEFERRED_ARITY_ERROR`), raised once its arguments resolve as Spark counts
        them only then (``substr(nocol)`` is ``UNRESOLVED_COLUMN``). Counted before any builder
        or parser of sqlglot's sees the call, which fail on counts of their own (``trim()``)."""
        error = self._refused_count()
        if error is None:
            return super()._parse_function_call(functions, anonymous, optional_parens, any_token)
        token = self._curr
        self._advance(2)
        call = self.expression(exp.Anonymous(this=token.text, expressions=self._parse_function_args(alias=True)))
        call.meta[DEFERRED_ARITY_ERROR] = error
        self._match_r_paren(call)
        return self._parse_window(call.update_positions(token))

    def _refused_count(self) -> OptimizeError | None:
        """Spark's error for the count of arguments of the call that starts at the current token,
        where its arguments are plain (no ``FROM``, ``AS``, ``=>`` of a call's own syntax)."""
        if self._curr is None or self._next is None or self._next.token_type != TokenType.L_PAREN:
            return None
        if self._curr.token_type not in self.FUNC_TOKENS or (self._prev is not None and self._prev.token_type in _NOT_CALLED_AFTER):
            return None
        start = self._index + 2
        first = self._tokens[start].token_type if start < len(self._tokens) else None
        if first in (TokenType.SELECT, TokenType.WITH) or (
            self._curr.token_type in self.SUBQUERY_PREDICATES and first in (TokenType.L_PAREN, TokenType.VALUES)
        ):
            return None  # EXISTS (SELECT ...), = ANY (SELECT ...), EXISTS ((SELECT ...) UNION ...)
        count = _plain_argument_count(self._tokens, start)
        name = self._curr.text.upper()
        if count is None or (name in _UNIT_CALLS and count == 3):
            return None
        return arity_error(name, count)

    def _parse_pivot_aggregation(self) -> exp.Expr | None:
        # Spark's PIVOT takes named expressions: an expression of aggregates (max(s) + 1),
        # aliased or not, where sqlglot's parser takes a function call only.
        this = self._parse_assignment()
        if this is None:
            if self._prev.token_type == TokenType.COMMA:
                return None
            self.raise_error("Expecting an aggregation function in PIVOT")
        return self._parse_alias(this)

    def _parse_types(
        self,
        check_func: bool = False,
        schema: bool = False,
        allow_identifiers: bool = True,
        with_collation: bool = False,
    ) -> exp.Expr | None:
        # Hive's parser reads CHAR(n) and VARCHAR(n) as STRING outside schemas, as Spark does,
        # but finds them with `is_type("char", "varchar")`, which parses both names again for
        # every type it reads: a few milliseconds of each planned query. The same by DType.
        if self._call_compared():
            return None
        this = Parser._parse_types(
            self,
            check_func=check_func,
            schema=schema,
            allow_identifiers=allow_identifiers,
            with_collation=with_collation,
        )
        if this is not None and not schema:
            for node in this.walk():
                if isinstance(node, exp.DataType) and node.this in _CHAR_TYPES:
                    node.set("this", exp.DType.TEXT)
                    node.set("expressions", None)
        return this

    def _call_compared(self) -> bool:
        """Whether the tokens ahead are ``array(...) <``, ``struct(...) <`` or ``map(...) <``: a
        call compared with what follows. sqlglot's parser reads a nested type name with arguments
        that are type names (``array(NULL)``, ``array(int)`` of a column ``int``) as a type and then
        expects ``array(...)<...>``; Spark's types never take parentheses before ``<``."""
        if self._curr is None or self._curr.token_type not in self.NESTED_TYPE_TOKENS:
            return False
        if self._next is None or self._next.token_type != TokenType.L_PAREN:
            return False
        depth = 0
        for index in range(self._index + 1, len(self._tokens)):
            kind = self._tokens[index].token_type
            depth += (kind == TokenType.L_PAREN) - (kind == TokenType.R_PAREN)
            if depth == 0:
                after = self._tokens[index + 1] if index + 1 < len(self._tokens) else None
                return after is not None and after.token_type == TokenType.LT
        return False

    def _parse_group(self, skip_group_by_token: bool = False) -> exp.Group | None:
        # Spark's GROUP BY window(ts, '10 minutes') (a time window) calls the function, where
        # sqlglot's parser stops at WINDOW as at the clause that names windows
        start = self._index + (0 if skip_group_by_token else 1)
        for index in range(start, min(start + 2, len(self._tokens) - 1)):
            token = self._tokens[index]
            if token.token_type == TokenType.WINDOW and self._tokens[index + 1].token_type == TokenType.L_PAREN:
                token.token_type = TokenType.VAR
                break
            if token.token_type not in (TokenType.ALL, TokenType.DISTINCT):
                break
        return super()._parse_group(skip_group_by_token)

    def _parse_star_op(self, *keywords: str) -> list[exp.Expr] | None:
        # Spark's star takes EXCEPT only; sqlglot also reads DuckDB's EXCLUDE, REPLACE and RENAME
        if self._curr is not None and self._curr.text.upper() in ("EXCLUDE", "REPLACE", "RENAME") and self._next is not None \
                and self._next.token_type == TokenType.L_PAREN:
            self.raise_error(f"{self._curr.text.upper()} after a star (Spark's star takes EXCEPT only)")
        return super()._parse_star_op(*keywords)

    def _parse_table_sample(self, as_modifier: bool = False) -> exp.TableSample | None:
        # sqlglot reads Spark's TABLESAMPLE (5), a byte length Spark refuses, as (5 ROWS)
        start = self._index
        sample = super()._parse_table_sample(as_modifier)
        if sample is not None and sample.args.get("size") is not None and not any(
            token.token_type == TokenType.ROWS for token in self._tokens[start:self._index]
        ):
            self.raise_error("a TABLESAMPLE size without ROWS or PERCENT (a byte length: Spark refuses it)")
        return sample

    def _parse_interval(self, require_interval: bool = True, parse_function_unit: bool = True) -> exp.Add | exp.Interval | None:
        # INTERVAL 1 DAY 2 HOURS is one literal to Spark (INTERVAL '1 02' DAY TO HOUR, an interval
        # day to hour), where sqlglot's parser writes a sum of one-unit intervals.
        interval = super()._parse_interval(require_interval, parse_function_unit)
        if not require_interval or not isinstance(interval, exp.Add):
            return interval
        parts: list[exp.Expr] = []
        node: exp.Expr = interval
        while isinstance(node, exp.Add):
            parts.append(node.this)
            node = node.expression
        span = multi_unit_span([*parts, node])
        return interval if span is None else span

    def _to_prop_eq(self, expression: exp.Expr, index: int) -> exp.Expr:
        # struct(v:a) has a field named `a` in Spark, as a projection `v:a` has a column `a`.
        if isinstance(expression, VariantGet) and expression.name:
            prop: exp.Expr = self.expression(
                exp.PropertyEQ(this=exp.to_identifier(expression.name), expression=expression)
            )
        else:
            prop = super()._to_prop_eq(expression, index)
        if isinstance(prop, exp.PropertyEQ):
            prop.meta[_IMPLICIT_NAME] = True
        return prop

    def _parse_colon_as_variant_extract(self, this: exp.Expr | None) -> exp.Expr | None:
        while this is not None and self._match(TokenType.COLON):
            text = "".join(self._parse_semi_structured_path())
            path = "$" + text if text.startswith("[") else "$." + text
            this = self.expression(VariantGet(this=this, path=exp.Literal.string(path), colon=True))
            if self._curr and self._curr.token_type == TokenType.L_BRACKET:
                # A bracket the path does not take subscripts the extracted VARIANT.
                if _is_token(self._peek(1), TokenType.STAR):
                    raise _error("invalid usage of '*' in a subscript", "INVALID_USAGE_OF_STAR_OR_REGEX")
                errors = len(self.errors)
                self._parse_bracket(this)  # an unclosed bracket is Spark's syntax error first
                if len(self.errors) > errors:
                    self.check_errors()
                raise _error(
                    f"cannot take an element of the VARIANT {this.sql(dialect=VpushSpark)}; "
                    "extend the path or cast first",
                    "INVALID_EXTRACT_BASE_FIELD_TYPE",
                )
            this = self._parse_column_ops(this)  # `::T`
        return this

    def _peek(self, offset: int) -> Token | None:
        index = self._index + offset
        return self._tokens[index] if index < len(self._tokens) else None

    def _raw(self, token: Token) -> str:
        return self.sql[token.start : token.end + 1]

    def _parse_semi_structured_path(self) -> list[str]:
        """The texts of ``semiStructuredExtractionPath``'s tokens, as Spark's ``getText`` joins
        them: raw literal text, back-quoted names without their quotes."""
        if self._curr and self._curr.token_type == TokenType.L_BRACKET:
            parts = [self._parse_path_bracket(first=True)]
        else:
            parts = [self._parse_path_identifier()]
        while self._curr:
            if self._curr.token_type == TokenType.DOT:
                self._advance()
                parts.append("." + self._parse_path_identifier())
            elif self._curr.token_type == TokenType.L_BRACKET and self._path_bracket_kind() is not None:
                parts.append(self._parse_path_bracket(first=False))
            else:
                break
        return parts

    def _parse_path_identifier(self) -> str:
        token = self._curr
        if not token:
            self.raise_error("Expected a name after ':'")
            return ""
        if token.token_type == TokenType.IDENTIFIER:
            self._advance()
            return token.text
        raw = self._raw(token)
        if _SPARK_IDENTIFIER.match(raw) and token.token_type not in (TokenType.STRING, TokenType.NUMBER):
            self._advance()
            return raw
        if raw[:1].isalpha() and not raw.isascii():
            raise _error(f"the unquoted identifier {raw} is invalid: back-quote it", "INVALID_IDENTIFIER")
        self.raise_error("Expected a name in the ':' path")
        return ""

    def _path_bracket_kind(self) -> str | None:
        """What the ``[`` at the current token opens: ``"string"`` (string literals),
        ``"index"`` (digits) or ``"name"`` (a name or a parameter marker, which Spark's grammar
        takes and its JSON-path check then rejects); None for anything else, which Spark parses
        as a subscript of the extracted VARIANT (and rejects when analysing)."""
        offset = 1
        while (token := self._peek(offset)) is not None and token.token_type in _STRING_TOKENS:
            offset += 1
        if offset > 1:
            return "string" if _is_token(self._peek(offset), TokenType.R_BRACKET) else None
        inner = self._peek(1)
        if inner is None:
            return None
        if inner.token_type == TokenType.COLON:
            name = self._peek(2)
            named = name is not None and _SPARK_IDENTIFIER.match(self._raw(name)) is not None
            return "name" if named and _is_token(self._peek(3), TokenType.R_BRACKET) else None
        if not _is_token(self._peek(2), TokenType.R_BRACKET):
            return None
        raw = self._raw(inner)
        if inner.token_type == TokenType.NUMBER:
            return "index" if _DIGITS.match(raw) else None
        if inner.token_type in (TokenType.PLACEHOLDER, TokenType.IDENTIFIER):
            return "name"
        return "name" if _SPARK_IDENTIFIER.match(raw) else None

    def _parse_path_bracket(self, *, first: bool) -> str:
        kind = self._path_bracket_kind()
        if kind is None or (first and kind == "name"):
            self.raise_error("Expected an index or a quoted name in the ':' path")
            return ""
        self._advance()  # [
        texts = []
        while self._curr and self._curr.token_type != TokenType.R_BRACKET:
            if self._curr.token_type in _PARAMETER_TOKENS:
                # vpush binds no parameters; Spark fails the same way when none are given.
                raise _error("a ':' path holds an unbound parameter marker", "UNBOUND_SQL_PARAMETER")
            texts.append(self._raw(self._curr))
            self._advance()
        self._advance()  # ]
        return "[" + "".join(texts) + "]"


def _is_token(token: Token | None, token_type: TokenType) -> bool:
    return token is not None and token.token_type == token_type


def _variant_get_sql(self: SparkGenerator, expression: VariantGet) -> str:
    path = expression.args.get("path")
    if expression.args.get("colon") and isinstance(path, exp.Literal):
        suffix = _colon_path_sql(path.this)
        if suffix is not None:
            base = expression.this
            text = self.sql(base)
            if not isinstance(base, (exp.Column, exp.Dot, exp.Paren, exp.Func, exp.Bracket)):
                text = f"({text})"
            return f"{text}:{suffix}"
    return self.function_fallback_sql(expression)


class VpushSparkGenerator(SparkGenerator):
    """Spark's generator, writing ``v:a`` back as ``v:a`` and keeping ``parse_json``."""

    # Spark 4 has percentile_cont/percentile_disc ... WITHIN GROUP (ORDER BY x) of its own; sqlglot's
    # Spark 2 transform wrote them as percentile_approx (another answer, another type).
    TRANSFORMS = {
        **{k: v for k, v in SparkGenerator.TRANSFORMS.items() if k is not exp.WithinGroup},
        VariantGet: _variant_get_sql,
        exp.AtTimeZone: _utc_shift_sql("FROM_UTC_TIMESTAMP"),
        exp.FromTimeZone: _utc_shift_sql("TO_UTC_TIMESTAMP"),
        ShiftRightUnsigned: lambda self, e: self.binary(e, ">>>"),
        # Spark 4 has QUALIFY: sqlglot's Spark 2 transform wrote it as a WHERE over a subquery,
        # which reads a grouped SELECT's aggregates otherwise (`QUALIFY sum(id) > 3` answered)
        exp.Select: transforms.preprocess([transforms.eliminate_distinct_on, transforms.unnest_to_explode, transforms.any_to_exists]),
    }
    # Hive's mapping writes TIME as TIMESTAMP; Spark 4.1+ has a TIME type of its own.
    TYPE_MAPPING = {**SparkGenerator.TYPE_MAPPING, exp.DType.TIME: "TIME"}

    def sql(self, expression: str | exp.Expr | None, key: str | None = None, comment: bool = True) -> str:
        # A Spark function call is written back as the user wrote it: sqlglot's round trip of some
        # is another function (listagg(x) as string_agg(x, ','), to_char(d, fmt) as a cast).
        if not key and isinstance(expression, exp.Expr) and expression.meta and SPARK_CALL in expression.meta:
            written = self._as_written(expression)
            if written is not None:
                return written
        return super().sql(expression, key, comment)

    def cast_sql(self, expression: exp.Cast, safe_prefix: str | None = None) -> str:
        # a typed literal of a double or float is written back as one: CAST(-0.0 AS DOUBLE) is 0.0
        # in Spark (the decimal -0.0 has no sign), -0.0D is -0.0
        literal = expression.this
        if (expression.meta.get(TYPED_LITERAL) and isinstance(literal, exp.Literal) and not literal.is_string
                and expression.to.this in (exp.DType.DOUBLE, exp.DType.FLOAT)):
            return f"{literal.this}{'D' if expression.to.this == exp.DType.DOUBLE else 'F'}"
        if (expression.meta.get(TYPED_LITERAL) and isinstance(literal, exp.Literal) and not literal.is_string
                and literal.this.lstrip("-").isdigit() and expression.to.this in _INTEGER_SUFFIXES
                and expression.parent is not None and call_name(expression.parent) == "window"):
            # and a time window's duration (600000000L): Spark's window takes a literal, not a cast
            return f"{literal.this}{_INTEGER_SUFFIXES[expression.to.this]}"
        return super().cast_sql(expression, safe_prefix)

    def _as_written(self, expression: exp.Expr) -> str | None:
        if isinstance(expression, (exp.Struct, exp.Cast, exp.TryCast)) or type(expression).__name__ in __all__:
            return None
        if isinstance(expression, exp.GroupConcat) and isinstance(expression.this, exp.Order):
            # listagg(x, d) WITHIN GROUP (ORDER BY k): sqlglot folds the ordering into the call
            order = expression.this
            inner = [order.this, *([expression.args["separator"]] if expression.args.get("separator") else [])]
            keys = self.sql(exp.Order(expressions=[o.copy() for o in order.expressions])).strip()
            return f"{self.func(str(call_name(expression)), *inner)} WITHIN GROUP ({keys})"
        arguments = call_arguments(expression)
        if arguments is None and type(expression) in PARSED_ARGUMENTS:
            arguments = [expression.args.get(k) for k in PARSED_ARGUMENTS[type(expression)]]
            while arguments and arguments[-1] is None:
                arguments.pop()
        if arguments is None or any(a is None or not isinstance(a, exp.Expr) for a in arguments):
            return None
        if isinstance(expression, exp.Trim) and len(arguments) > 1:
            return None  # trim(BOTH 'x' FROM s): sqlglot writes it as Spark reads it
        return self.func(str(call_name(expression)), *arguments)

    def datatype_sql(self, expression: exp.DataType) -> str:
        # Hive's generator drops temporal precision; Spark's TIME(p) keeps p (0..9) digits.
        if expression.is_type(exp.DType.TIME) and expression.expressions:
            return f"TIME({self.expressions(expression, flat=True)})"
        return super().datatype_sql(expression)

    def log_sql(self, expression: exp.Log) -> str:
        spelling = expression.meta_get(_SPELLING)
        if spelling in ("LOG10", "LOG2"):
            return self.func(spelling, expression.expression)
        return super().log_sql(expression)

    def not_sql(self, expression: exp.Not) -> str:
        # `x IS NOT NULL`, as Spark reads and names it, rather than `NOT x IS NULL`.
        inner = expression.this
        if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
            return f"{self.sql(inner, 'this')} IS NOT NULL"
        return super().not_sql(expression)

    def struct_sql(self, expression: exp.Struct) -> str:
        """``named_struct(...)`` and ``struct(...)`` as written: Spark names the column after the
        call's text, and names a ``struct(x)`` field after ``x``. Does not modify the tree."""
        if expression.meta_get(_NAMED_STRUCT):
            args: list[exp.Expr] = []
            for prop in expression.expressions:
                if not isinstance(prop, exp.PropertyEQ):
                    return super().struct_sql(expression.copy())
                args += [exp.Literal.string(prop.name), prop.expression]
            return self.func("NAMED_STRUCT", *args)
        args = []
        for prop in expression.expressions:
            if isinstance(prop, exp.PropertyEQ) and prop.meta_get(_IMPLICIT_NAME):
                args.append(prop.expression)
            elif isinstance(prop, exp.PropertyEQ):
                key = prop.this
                alias = prop.name if isinstance(key, exp.Literal) and key.is_string else key
                args.append(exp.alias_(prop.expression.copy(), alias))
            else:
                args.append(prop)
        return self.func("STRUCT", *args)


class VpushSpark(Spark):
    """Spark 4.3 SQL with typed Variant nodes; sqlglot knows it as ``"vpushspark"``.

    Example:
        >>> import sqlglot
        >>> tree = sqlglot.parse_one("SELECT v:a.b::int, try_variant_get(v, '$[0]', ' Long ') FROM t",
        ...                          read=VpushSpark)
        >>> [type(e).__name__ for e in tree.expressions]
        ['Cast', 'TryVariantGet']
        >>> tree.sql(dialect=VpushSpark)
        "SELECT CAST(v:a.b AS INT), TRY_VARIANT_GET(v, '$[0]', 'bigint') FROM t"
        >>> tree.expressions[0].this.args["path"].this, tree.expressions[0].output_name
        ('$.a.b', 'b')
    """

    class Tokenizer(Spark.Tokenizer):
        # Spark's lexer reads a doubled quote inside a literal as one quote ('it''s' is it's),
        # besides backslash escapes; sqlglot's Hive tokenizer knows only the backslash.
        STRING_ESCAPES = ["\\", "'", '"']

    Parser = VpushSparkParser
    Generator = VpushSparkGenerator
