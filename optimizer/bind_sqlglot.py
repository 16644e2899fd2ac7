"""Translate a sqlglot WHERE condition into the pruning algebra of :mod:`vpush.optimizer.bound`.

The walk pushes NOT down as it goes (``NOT (a AND b)`` visits ``a`` and ``b`` negated) and only
then turns what it does not read into ``ALWAYS_TRUE``, never negated: ``NOT f(x)`` stays
``ALWAYS_TRUE`` instead of becoming ``ALWAYS_FALSE``. Column-like operands are left to a resolver
callback (the caller knows the tables, the variant_get nodes and the partition columns); literals
are read here, typed as Spark types them, and converted into the type Spark compares in:

```
ref type             literal              compared in
int-ish / decimal    int-ish / decimal    the wider integer, or the wider decimal (<= 38 digits)
numeric              numeric              double when either side is floating (float when both are)
int-ish              '123' (string)       bigint (Spark casts the string)
date                 'yyyy-mm-dd'         date
date                 timestamp[_ntz]      the timestamp type (the column side is cast)
timestamp[_ntz]      string / date        the column's type (needs the session zone for timestamp)
timestamp_ntz        timestamp            timestamp (the column side is cast)
string/binary/bool   same                 same
anything else        -                    not read: ALWAYS_TRUE
```
"""
from __future__ import annotations

import datetime as dt
import decimal
import math
import re
import struct
from collections.abc import Callable
from typing import Any

from sqlglot import exp

from vpush.optimizer.bound import (
    ALWAYS_FALSE,
    ALWAYS_TRUE,
    MAX_DECIMAL_PRECISION,
    BooleanExpression,
    ColumnRef,
    Eq,
    Gt,
    GtEq,
    IsNaN,
    IsNull,
    Literal,
    LiteralPredicate,
    Lt,
    LtEq,
    NotEq,
    NotNaN,
    NotNull,
    PartitionRef,
    Ref,
    SqlType,
    VariantRef,
    and_,
    in_,
    not_in,
    or_,
)

__all__ = ["Resolver", "bind_sqlglot", "reads_as"]

_MAX_EXACT_FLOAT32_INT = 2**53  # an int this small converts to double exactly, then rounds once
_INT_ORDER = ("tinyint", "smallint", "int", "bigint")
_INT_AS_DECIMAL = {"tinyint": 3, "smallint": 5, "int": 10, "bigint": 20}  # Spark's DecimalType.forType

Resolver = Callable[[exp.Expression], "Ref | None"]

_NULL = object()  # a NULL literal
_SPECIAL_DOUBLES = {"NaN": math.nan, "Infinity": math.inf, "+Infinity": math.inf, "-Infinity": -math.inf}
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_DECIMAL_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")
_FLOAT_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_DATE_TEXT = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})")
_TIMESTAMP_TEXT = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:[ T]([0-9]{1,2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,6}))?)?)?"
    r"(Z|UTC|[+-][0-9]{2}:?[0-9]{2})?"
)
_COMPARISONS: dict[type[exp.Expression], type[LiteralPredicate]] = {
    exp.EQ: Eq,
    exp.NEQ: NotEq,
    exp.LT: Lt,
    exp.LTE: LtEq,
    exp.GT: Gt,
    exp.GTE: GtEq,
}
_NEGATED: dict[type[LiteralPredicate], type[LiteralPredicate]] = {
    Eq: NotEq,
    NotEq: Eq,
    Lt: GtEq,
    LtEq: Gt,
    Gt: LtEq,
    GtEq: Lt,
}
_FLIPPED: dict[type[LiteralPredicate], type[LiteralPredicate]] = {
    Eq: Eq,
    NotEq: NotEq,
    Lt: Gt,
    LtEq: GtEq,
    Gt: Lt,
    GtEq: LtEq,
}


def _int_type(value: int) -> SqlType | None:
    for name in ("int", "bigint"):
        low, high = SqlType(name).int_range
        if low <= value <= high:
            return SqlType(name)
    digits = len(str(abs(value)))
    return SqlType("decimal", digits, 0) if digits <= MAX_DECIMAL_PRECISION else None


def _decimal_literal(value: decimal.Decimal) -> Literal | None:
    _, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        return None
    scale = max(-exponent, 0)
    precision = max(len(digits) + max(exponent, 0), scale, 1)
    if precision > MAX_DECIMAL_PRECISION:
        return None
    return Literal(value, SqlType("decimal", precision, scale))


def _float32(value: float) -> float:
    """Round to the nearest float32, as Java's ``(float)`` does; inf when out of range."""
    try:
        return float(struct.unpack("<f", struct.pack("<f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


_INT_BITS = {"tinyint": 7, "smallint": 15, "int": 31, "bigint": 63}


def reads_as(text: str, type_name: str) -> bool:
    """Whether Spark surely casts string ``text`` to ``date``, ``timestamp``, ``timestamp_ntz`` or
    an integer type (a form the literal parsers here read; False where they do not, though Spark
    may)."""
    if type_name in _INT_BITS:
        bits = _INT_BITS[type_name]
        return _INT_TEXT.fullmatch(text.strip()) is not None and -(2 ** bits) <= int(text) < 2 ** bits
    if type_name == "date":
        return _parse_date(text) is not None
    if type_name in ("timestamp", "timestamp_ntz"):
        return _parse_timestamp(text, ntz=type_name == "timestamp_ntz", time_zone="UTC") is not None
    return False


def _parse_date(text: str) -> dt.date | None:
    match = _DATE_TEXT.fullmatch(text.strip())
    if match is None:
        return None
    try:
        return dt.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def _parse_timestamp(text: str, *, ntz: bool, time_zone: str | None) -> dt.datetime | None:
    """A timestamp literal's value: naive for TIMESTAMP_NTZ, else an aware UTC instant (needs
    ``time_zone`` when the text names no offset)."""
    match = _TIMESTAMP_TEXT.fullmatch(text.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        local = dt.datetime(
            int(year),
            int(month),
            int(day),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            int((fraction or "0").ljust(6, "0")),
        )
    except ValueError:
        return None
    if ntz:
        return local if zone is None else None
    if zone in ("Z", "UTC"):
        return local.replace(tzinfo=dt.timezone.utc)
    if zone is not None:
        digits = zone.replace(":", "")
        offset = dt.timedelta(hours=int(digits[1:3]), minutes=int(digits[3:5]))
        tz = dt.timezone(offset if digits[0] == "+" else -offset)
        return local.replace(tzinfo=tz).astimezone(dt.timezone.utc)
    if time_zone is None:
        return None
    import zoneinfo

    try:
        zone_info = zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None
    # fold=0 gives Java's instant for a local time in a gap or an overlap (the earlier offset).
    return local.replace(tzinfo=zone_info).astimezone(dt.timezone.utc)


def _cast_literal(value: Any, source: SqlType, target: SqlType, time_zone: str | None) -> Literal | None:
    """``CAST(literal AS target)`` when it is exact (else None: the predicate stays unknown)."""
    if target.is_integral:
        if isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
            value = int(value.strip())
        if isinstance(value, int) and not isinstance(value, bool):
            low, high = target.int_range
            return Literal(value, target) if low <= value <= high else None
        return None
    if target.name == "decimal":
        assert target.precision is not None and target.scale is not None  # for mypy: checked at init
        if isinstance(value, str) and _DECIMAL_TEXT.fullmatch(value.strip()):
            value = decimal.Decimal(value.strip())
        if isinstance(value, (int, decimal.Decimal)) and not isinstance(value, bool):
            number = decimal.Decimal(value)
            quantum = decimal.Decimal(1).scaleb(-target.scale)
            exact = number.quantize(quantum, context=decimal.Context(prec=80))
            if exact != number or abs(exact) >= decimal.Decimal(10) ** (target.precision - target.scale):
                return None
            return Literal(exact, target)
        return None
    if target.is_floating:
        if isinstance(value, str) and value.strip() in _SPECIAL_DOUBLES:
            value = _SPECIAL_DOUBLES[value.strip()]
        elif isinstance(value, str) and _FLOAT_TEXT.fullmatch(value.strip()):
            value = float(value.strip())
        if isinstance(value, (int, decimal.Decimal, float)) and not isinstance(value, bool):
            if target.name == "double":
                return Literal(float(value), target)
            if isinstance(value, int) and abs(value) > _MAX_EXACT_FLOAT32_INT:
                return None
            return Literal(_float32(float(value)), target)
        return None
    if target.name == "date" and isinstance(value, str):
        parsed_date = _parse_date(value)
        return Literal(parsed_date, target) if parsed_date is not None else None
    if target.name in ("timestamp", "timestamp_ntz") and isinstance(value, str):
        ntz = target.name == "timestamp_ntz"
        parsed = _parse_timestamp(value, ntz=ntz, time_zone=time_zone)
        return Literal(parsed, target) if parsed is not None else None
    if target.name in ("timestamp", "timestamp_ntz") and isinstance(value, dt.date) and source.name == "date":
        midnight = dt.datetime.combine(value, dt.time())
        if target.name == "timestamp_ntz":
            return Literal(midnight, target)
        return _cast_literal(midnight.isoformat(), SqlType("string"), target, time_zone)
    if target.name == "timestamp" and source.name == "timestamp_ntz" and isinstance(value, dt.datetime):
        return _cast_literal(value.isoformat(), SqlType("string"), target, time_zone)
    if target.name == source.name and target.name in ("string", "binary", "boolean"):
        return Literal(value, target)
    return None


def _literal(node: exp.Expression, time_zone: str | None) -> Literal | object | None:
    """A literal's typed value, ``_NULL`` for NULL, or None when ``node`` is not one we read."""
    if isinstance(node, exp.Paren):
        return _literal(node.this, time_zone)
    if isinstance(node, exp.Null):
        return _NULL
    if isinstance(node, exp.Boolean):
        return Literal(bool(node.this), SqlType("boolean"))
    if isinstance(node, exp.HexString):
        try:
            return Literal(bytes.fromhex(str(node.this)), SqlType("binary"))
        except ValueError:
            return None
    if isinstance(node, exp.Literal):
        text = str(node.this)
        if node.is_string:
            return Literal(text, SqlType("string"))
        if _INT_TEXT.fullmatch(text):
            number = int(text)
            int_type = _int_type(number)
            return Literal(number, int_type) if int_type is not None else None
        if _DECIMAL_TEXT.fullmatch(text):
            return _decimal_literal(decimal.Decimal(text))
        if _FLOAT_TEXT.fullmatch(text):
            return Literal(float(text), SqlType("double"))  # Spark reads 1e3 as a double
        return None
    if isinstance(node, exp.Neg):
        inner = _literal(node.this, time_zone)
        if not isinstance(inner, Literal) or isinstance(inner.value, bool):
            return None
        if isinstance(inner.value, int):
            int_type = _int_type(-inner.value)
            return Literal(-inner.value, int_type) if int_type is not None else None
        if isinstance(inner.value, (decimal.Decimal, float)):
            return Literal(-inner.value, inner.type)
        return None
    if isinstance(node, (exp.Cast, exp.TryCast)):
        target = SqlType.parse(node.to) if isinstance(node.to, exp.DataType) else None
        inner = _literal(node.this, time_zone)
        if inner is _NULL:
            return _NULL
        if target is None or not isinstance(inner, Literal):
            return None
        return _cast_literal(inner.value, inner.type, target, time_zone)
    return None


def _wider_decimal(a: SqlType, b: SqlType) -> SqlType | None:
    def parts(t: SqlType) -> tuple[int, int]:
        if t.is_integral:
            return _INT_AS_DECIMAL[t.name], 0
        assert t.precision is not None and t.scale is not None  # for mypy: decimals have both
        return t.precision, t.scale

    (p1, s1), (p2, s2) = parts(a), parts(b)
    scale = max(s1, s2)
    whole = max(p1 - s1, p2 - s2)
    if whole + scale > MAX_DECIMAL_PRECISION:
        return None  # Spark would bound the type and the cast of the column could overflow
    return SqlType("decimal", whole + scale, scale)


def _coerce(ref_type: SqlType, lit: Literal, time_zone: str | None) -> Literal | None:
    """The literal in the type Spark compares ``ref_type`` with it in, or None when that is not
    a comparison pruning models."""
    t, lt = ref_type, lit.type
    if t.name == "void":
        return lit
    if t.is_exact_numeric and lt.is_exact_numeric:
        if t.is_integral and lt.is_integral:
            wider = _INT_ORDER[max(_INT_ORDER.index(t.name), _INT_ORDER.index(lt.name))]
            return Literal(lit.value, SqlType(wider))
        common = _wider_decimal(t, lt)
        return Literal(decimal.Decimal(lit.value), common) if common is not None else None
    numeric = (t.is_exact_numeric or t.is_floating) and (lt.is_exact_numeric or lt.is_floating)
    if numeric:
        if t.name == lt.name == "float":
            return lit
        # Spark compares a float with any other number in double (float < 16777217 is TRUE for the
        # float 16777216, which a comparison in float would make FALSE).
        return Literal(float(lit.value), SqlType("double"))
    if t.is_integral and lt.name == "string":
        if not _INT_TEXT.fullmatch(lit.value.strip()):
            return None
        # Spark casts the string to bigint (ANSI), then compares in the wider integer type.
        return _cast_literal(lit.value, lt, SqlType("bigint"), time_zone)
    if t.name == lt.name and t.name in ("string", "binary", "boolean", "date", "timestamp", "timestamp_ntz"):
        return lit
    if t.name in ("date", "timestamp", "timestamp_ntz") and lt.name == "string":
        return _cast_literal(lit.value, lt, t, time_zone)
    if t.name == "date" and lt.name in ("timestamp", "timestamp_ntz"):
        return lit  # the date side is cast to the timestamp type
    if t.name in ("timestamp", "timestamp_ntz") and lt.name == "date":
        return _cast_literal(lit.value, lt, t, time_zone)
    if t.name == "timestamp_ntz" and lt.name == "timestamp":
        return lit  # the TIMESTAMP_NTZ side is cast to TIMESTAMP
    if t.name == "timestamp" and lt.name == "timestamp_ntz":
        return _cast_literal(lit.value, lt, t, time_zone)
    return None


def _never_true(ref: Ref) -> BooleanExpression:
    """A predicate on ``ref`` that is never TRUE: ALWAYS_FALSE, unless evaluating ``ref`` may
    raise (a strict variant_get), where Spark still evaluates it: then ``IS NOT NULL``, which
    prunes only row groups without a value (so without a cast to fail)."""
    if isinstance(ref, VariantRef) and ref.strict:
        return NotNull(ref)
    return ALWAYS_FALSE


def _fold_range(cls: type[LiteralPredicate], ref: Ref, lit: Literal) -> BooleanExpression | None:
    """A comparison of an integral reference with a literal outside its type's range is a
    constant, or ``IS NOT NULL``; None when it is not."""
    if not ref.type.is_integral or not lit.type.is_exact_numeric:
        return None
    low, high = ref.type.int_range
    v = lit.value
    integral = v == int(v)
    never, always = _never_true(ref), NotNull(ref)
    if cls is Lt:
        return never if v <= low else always if v > high else None
    if cls is LtEq:
        return never if v < low else always if v >= high else None
    if cls is Gt:
        return never if v >= high else always if v < low else None
    if cls is GtEq:
        return never if v > high else always if v <= low else None
    if cls is Eq:
        return never if not integral or not low <= v <= high else None
    if cls is NotEq:
        return always if not integral or not low <= v <= high else None
    return None


def _comparison(
    cls: type[LiteralPredicate], ref: Ref, raw: Literal | object, time_zone: str | None
) -> BooleanExpression:
    if raw is _NULL:
        # NULL, never TRUE; Spark folds it (NullPropagation) without evaluating the other side.
        return ALWAYS_FALSE
    if not isinstance(raw, Literal):
        return ALWAYS_TRUE
    lit = _coerce(ref.type, raw, time_zone)
    if lit is None:
        return ALWAYS_TRUE
    folded = _fold_range(cls, ref, lit)
    return folded if folded is not None else cls(ref, lit)


def _family(t: SqlType) -> str:
    return "number" if t.is_exact_numeric or t.is_floating else t.name


class _SqlglotBinder:
    def __init__(self, resolve: Resolver, time_zone: str | None) -> None:
        self.resolve = resolve
        self.time_zone = time_zone

    def ref(self, node: exp.Expression) -> Ref | None:
        while isinstance(node, exp.Paren):
            node = node.this
        found = self.resolve(node)
        return found if isinstance(found, (VariantRef, ColumnRef, PartitionRef)) else None

    def literal(self, node: exp.Expression) -> Literal | object | None:
        return _literal(node, self.time_zone)

    def visit(self, node: exp.Expr, negate: bool) -> BooleanExpression:
        """The node as an expression, negated when ``negate``: NOT goes down before anything
        unrecognised becomes ALWAYS_TRUE (never negated)."""
        if not isinstance(node, exp.Expression):
            return ALWAYS_TRUE
        if isinstance(node, exp.Paren):
            return self.visit(node.this, negate)
        if isinstance(node, exp.Not):
            return self.visit(node.this, not negate)
        if isinstance(node, (exp.And, exp.Or)):
            left, right = self.visit(node.left, negate), self.visit(node.right, negate)
            conjunction = isinstance(node, exp.And) != negate
            return and_(left, right) if conjunction else or_(left, right)
        if isinstance(node, exp.Boolean):
            return ALWAYS_TRUE if bool(node.this) != negate else ALWAYS_FALSE
        result = self.predicate(node, negate)
        return result if result is not None else ALWAYS_TRUE

    def predicate(self, node: exp.Expression, negate: bool) -> BooleanExpression | None:
        """A predicate node (negated when ``negate``), folded after the negation: a comparison
        with NULL is never TRUE, and neither is its negation."""
        cls = _COMPARISONS.get(type(node))
        if cls is not None:
            left, right = node.args.get("this"), node.args.get("expression")
            if left is None or right is None:
                return None
            ref, other = self.ref(left), right
            if ref is None:
                ref, other, cls = self.ref(right), left, _FLIPPED[cls]
            if ref is None:
                return None
            return _comparison(_NEGATED[cls] if negate else cls, ref, self.literal(other), self.time_zone)
        if isinstance(node, exp.Between):
            ref = self.ref(node.this)
            if ref is None:
                return None
            low, high = self.literal(node.args["low"]), self.literal(node.args["high"])
            if negate:  # NOT (x >= low AND x <= high) = x < low OR x > high
                return or_(
                    _comparison(Lt, ref, low, self.time_zone), _comparison(Gt, ref, high, self.time_zone)
                )
            return and_(_comparison(GtEq, ref, low, self.time_zone), _comparison(LtEq, ref, high, self.time_zone))
        if isinstance(node, exp.In):
            return self.in_list(node, negate)
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            ref = self.ref(node.this)
            if ref is None:
                return None
            return NotNull(ref) if negate else IsNull(ref)
        if isinstance(node, exp.IsNan) or (
            isinstance(node, exp.Anonymous) and str(node.this).lower() == "isnan" and len(node.expressions) == 1
        ):
            operand = node.this if isinstance(node, exp.IsNan) else node.expressions[0]
            ref = self.ref(operand)
            if ref is None or not ref.type.is_floating:
                return None
            return NotNaN(ref) if negate else IsNaN(ref)
        return None

    def in_list(self, node: exp.In, negate: bool) -> BooleanExpression | None:
        ref = self.ref(node.this)
        if ref is None or node.args.get("query") or node.args.get("unnest") or node.args.get("field"):
            return None
        raws = [self.literal(item) for item in node.expressions]
        present = [raw for raw in raws if raw is not _NULL]
        if not all(isinstance(raw, Literal) for raw in present):
            return None
        typed = [raw for raw in present if isinstance(raw, Literal)]
        if len({_family(raw.type) for raw in typed}) > 1:
            return None  # Spark would coerce mixed kinds in ways not modelled here
        floating = any(raw.type.is_floating for raw in typed) or ref.type.is_floating
        if floating and typed and _family(typed[0].type) == "number":
            # Spark compares the whole list in one type: double if any side is floating.
            typed = [Literal(float(raw.value), SqlType("double")) for raw in typed]
        literals: list[Literal | None] = [None] * (len(raws) - len(present))
        for raw in typed:
            lit = _coerce(ref.type, raw, self.time_zone)
            if lit is None:
                return None
            literals.append(lit)
        if (negate and len(present) < len(raws)) or not present:
            # x NOT IN (.., NULL) and x IN (NULL, ..) are never TRUE, but Spark evaluates x.
            return _never_true(ref)
        return not_in(ref, literals) if negate else in_(ref, literals)


def bind_sqlglot(
    where: exp.Expression, resolve: Resolver, *, session_time_zone: str | None = None
) -> BooleanExpression:
    """Translate a WHERE condition into the algebra; what it cannot read becomes ALWAYS_TRUE.

    Reads comparisons (either side a literal), BETWEEN, IN lists, IS [NOT] NULL, isnan, AND, OR
    and NOT; literals as Spark types them (``5`` int, ``5.5`` decimal(2,1), ``1e3`` double,
    ``DATE '...'``, ``TIMESTAMP '...'`` in ``session_time_zone``, CASTs of literals), compared in
    the type Spark coerces both sides to.

    Example:
        >>> import sqlglot
        >>> where = sqlglot.parse_one("NOT (x > 5 AND f(y))", read="spark")
        >>> resolve = lambda node: ColumnRef(node.name, SqlType("int")) if node.name == "x" else None
        >>> bind_sqlglot(where, resolve)
        AlwaysTrue()
        >>> bind_sqlglot(sqlglot.parse_one("NOT x > 5", read="spark"), resolve).literal.value
        5

    Args:
        where: the condition (a WHERE clause's ``this``, or any boolean expression).
        resolve: gives the reference for a column-like operand (a column, a variant_get call, a
            partition column), or None when it is none of those.
        session_time_zone: Spark's session time zone, for timestamp literals without an offset;
            None leaves such comparisons unknown.

    Returns:
        An expression over :class:`VariantRef`, :class:`ColumnRef` and :class:`PartitionRef`,
        with no NOT left.
    """
    condition = where.this if isinstance(where, exp.Where) else where
    if not isinstance(condition, exp.Expression):
        return ALWAYS_TRUE
    return _SqlglotBinder(resolve, session_time_zone).visit(condition, negate=False)
