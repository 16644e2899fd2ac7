"""Comparisons Spark's optimizer decides without evaluating their expression.

Spark's ``UnwrapCastInBinaryComparison`` rewrites a comparison of a widened number with a
constant, ``cast(e AS wider) op constant`` (the cast Spark's type coercion puts around ``e`` or
one the query writes), into one over ``e`` itself. Where the constant is outside ``e``'s type
(``variant_get(v, '$.a', 'int') = 3000000000``) or between two of its values
(``cast(s AS int) = 1.5``), the comparison becomes ``if(isnull(e), null, false)``, and Spark's
``ReplaceNullWithFalseInPredicate`` and ``BooleanSimplification`` then make it ``false`` wherever
a NULL counts as false: a WHERE, HAVING or QUALIFY, a join's ON, an IF's or CASE WHEN's condition,
the predicate of ``filter(array, x -> ...)``, through AND and OR. ``e <=> constant`` so becomes
``false`` anywhere. The values are those DuckDB gives for the comparison as written; what differs
is that Spark never computes ``e`` there, so a strict cast in ``e`` that would fail raises nothing
(and a filter that is ``false`` reads no row at all). :func:`unwrap_cast_comparisons` makes these
comparisons the same constants, so that DuckDB does not compute ``e`` either.

Spark's rule as of 4.x: both types numeric; ``e``'s type one Spark can widen to the comparison's
without loss (``Cast.canUpCast``), but not int to float nor bigint to float or double
(SPARK-39476); the constant first cast to the comparison's type (as coercion folds it), then to
``e``'s (Spark's non-ANSI cast: integers truncate, decimals round half up), and back.
"""
from __future__ import annotations

import decimal
import struct
from collections.abc import Callable

from sqlglot import exp

from vpush.optimizer.dialect import Number, in_scope, number_constant
from vpush.optimizer.spark_analysis import aggregating
from vpush.optimizer.spark_math import INTEGER_DIGITS, INTEGER_WIDTHS, integral_decimal, is_integral as _is_integral, is_number as _is_number, wider_decimal
from vpush.optimizer.variant_types import AtomicType, DecimalType, SparkType

TypeOf = Callable[[exp.Expr], SparkType | None]

_DOUBLE = AtomicType("double")
_FLOAT = AtomicType("float")
_OPERATORS: dict[type[exp.Expr], str] = {exp.EQ: "=", exp.NullSafeEQ: "<=>", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}
_MIRRORED = {"=": "=", "<=>": "<=>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NONDETERMINISTIC = frozenset({
    "rand", "random", "randn", "uuid", "shuffle", "monotonically_increasing_id", "spark_partition_id",
    "input_file_name", "first", "last", "first_value", "last_value", "any_value", "collect_list", "collect_set", "array_agg",
})

FALSE = "false"
"""The comparison is ``false`` wherever it is (Spark's ``FalseLiteral``)."""
FALSE_IF_NOT_NULL = "false if not null"
"""``if(isnull(e), null, false)``: ``false`` where a NULL counts as false."""
TRUE_IF_NOT_NULL = "true if not null"
"""``if(isnull(e), null, true)``: still computes ``e``, unless it is never NULL."""
TRUE = "true"
"""The comparison is ``true`` wherever it is (``if(isnull(e), null, true)`` of an ``e`` never NULL)."""
EVALUATED = "evaluated"
"""Anything that still computes ``e``: left as written."""


def unwrap_cast_comparisons(
    part: exp.Expr, of: TypeOf, *, only: Callable[[exp.Expr], bool] | None = None, fold_around: bool = True
) -> exp.Expr:
    """Replace, in ``part`` (a projection or a clause of a SELECT; nested queries are left to
    their own scopes), each comparison Spark's optimizer decides without computing its expression
    (:func:`folded_comparisons`) by its constant, and (``fold_around``) fold the ANDs and ORs above
    it, and above any other ``TRUE`` or ``FALSE`` in ``part``, as Spark's ``BooleanSimplification``
    does (``FALSE AND x`` is ``FALSE``, ``FALSE OR x`` is ``x``, ``TRUE OR x`` is ``TRUE``, ``TRUE
    AND x`` is ``x``). In place. Returns ``part``, or what replaced it."""
    parent, key, index = part.parent, part.arg_key, part.index
    for node, value in folded_comparisons(part, of, only=only):
        select = node.find_ancestor(exp.Select) if _holds_the_aggregation(node) else None
        constant = node.replace(exp.Boolean(this=value))
        if node is part:
            part = constant
        if select is not None and not aggregating(select):
            # the SELECT's only aggregate went: it still aggregates its rows into one, as Spark's
            # plan keeps its Aggregate (a HAVING of TRUE: one row, even of none, in both engines)
            select.set("having", exp.Having(this=exp.true()))
    if fold_around:
        for constant in [n for n in in_scope(part) if isinstance(n, exp.Boolean)]:
            if constant.parent is not None:
                _fold_constant(constant)
    if parent is not None and key is not None and part.parent is not parent:
        slot = parent.args.get(key)
        found = slot[index] if isinstance(slot, list) and index is not None else slot
        assert isinstance(found, exp.Expr)
        part = found
    return part


def folded_comparisons(
    part: exp.Expr, of: TypeOf, *, only: Callable[[exp.Expr], bool] | None = None
) -> list[tuple[exp.Expr, bool]]:
    """The comparisons in ``part``'s scope (those ``only`` picks) Spark's optimizer makes a
    constant without computing their expression (see the module's text), with that constant;
    types read with ``of``."""
    out = []
    for node in in_scope(part):
        if not isinstance(node, (*_OPERATORS, exp.In, exp.Between)) or (only is not None and not only(node)):
            continue
        outcome = _decide(node, of)
        if outcome == FALSE_IF_NOT_NULL and _null_counts_as_false(node):
            outcome = FALSE
        if outcome in (FALSE, TRUE):
            out.append((node, outcome == TRUE))
    return out


def _holds_the_aggregation(node: exp.Expr) -> bool:
    """Whether ``node``, outside a HAVING, holds an aggregate (not a window's) of a SELECT without
    GROUP BY, which could stop aggregating if it goes."""
    select = node.find_ancestor(exp.Select)
    if select is None or select.args.get("group") is not None or isinstance(node.find_ancestor(exp.Having, exp.Select), exp.Having):
        return False
    return any(isinstance(n, exp.AggFunc) and not isinstance(n.parent, exp.Window) for n in node.walk())


def _never_null(node: exp.Expr) -> bool:
    """Whether Spark's analyzer takes ``node`` as never NULL, as far as vpush tells: a count, a
    ranking, or a ``coalesce`` with a number constant among its arguments (Spark's
    ``NullPropagation`` then makes ``isnull(node)`` false)."""
    node = node.unnest()
    if isinstance(node, (exp.Count, exp.RowNumber, exp.Rank, exp.DenseRank)):
        return True
    if isinstance(node, exp.Window):
        return _never_null(node.this)
    if isinstance(node, exp.Coalesce):
        return any(_constant(a) is not None for a in [node.this, *node.expressions])
    return False


def drop_rows_under_false_filters(select: exp.Select) -> None:
    """Where :func:`unwrap_cast_comparisons` made a HAVING or QUALIFY ``FALSE``, read no row:
    Spark drops what such a filter stands on unread (DuckDB would still aggregate the rows and
    compute the windows, and refuses a QUALIFY without a window). In place."""
    def false(key: str) -> bool:
        clause = select.args.get(key)
        return clause is not None and isinstance(clause.this, exp.Boolean) and not clause.this.this

    if false("having") or false("qualify"):
        select.set("where", exp.Where(this=exp.false()))
    if false("qualify"):
        select.set("qualify", None)
        select.set("offset", None)
        select.set("limit", exp.Limit(expression=exp.Literal.number(0)))


def _decide(node: exp.Expr, of: TypeOf) -> str:
    """What Spark's optimizer makes of the comparison ``node``: :data:`FALSE`, :data:`TRUE`,
    :data:`FALSE_IF_NOT_NULL` or :data:`EVALUATED`."""
    if isinstance(node, exp.Between):
        # Spark's BETWEEN is the AND of its two comparisons
        low = _compared(">=", node.this, node.args["low"], of)
        high = _compared("<=", node.this, node.args["high"], of)
        if FALSE in (low, high):
            return FALSE
        return FALSE_IF_NOT_NULL if FALSE_IF_NOT_NULL in (low, high) else EVALUATED
    if isinstance(node, exp.In):
        if node.args.get("query") or node.args.get("unnest") or not node.expressions:
            return EVALUATED
        values = [v for v in node.expressions if not isinstance(v.unnest(), exp.Null)]
        common = _comparison_type(of(node.this), [of(v) for v in values], values) if values else None
        if common is None or any(_constant(v) is None for v in values):
            return EVALUATED
        # each value on its own, as Spark's rule takes an IN's list: none of them can match
        outcomes = {_compared("=", node.this, v, of, common) for v in values}
        return outcomes.pop() if outcomes in ({FALSE_IF_NOT_NULL}, {FALSE}) else EVALUATED
    operator = _OPERATORS[type(node)]
    left, right = node.this, node.expression
    if _constant(left) is not None and _constant(right) is None:
        operator, left, right = _MIRRORED[operator], right, left
    return _compared(operator, left, right, of)


def _compared(operator: str, side: exp.Expr, constant: exp.Expr, of: TypeOf, common: SparkType | None = None) -> str:
    value = _constant(constant)
    side = side.unnest()
    side_kind = of(side)
    if value is None or side_kind is None:
        return EVALUATED
    if common is None:
        common = _comparison_type(side_kind, [of(constant)], [constant])
    if common is None:
        return EVALUATED
    widened = _cast(value, common)
    if widened is None:
        return EVALUATED
    to_kind: SparkType = common
    from_kind: SparkType | None
    while True:
        if side_kind != to_kind:
            from_exp, from_kind = side, side_kind  # the cast Spark's coercion puts around it
        elif isinstance(side, (exp.Cast, exp.TryCast)):
            from_exp = side.this.unnest()  # a cast the query writes
            from_kind = of(from_exp)
        else:
            return EVALUATED
        if from_kind is None or not _can_unwrap(from_kind, to_kind) or _foldable(from_exp):
            return EVALUATED
        step = _simplified(operator, from_kind, to_kind, widened, _deterministic(from_exp))
        if isinstance(step, str):
            if step in (FALSE_IF_NOT_NULL, TRUE_IF_NOT_NULL) and _never_null(from_exp):
                return FALSE if step == FALSE_IF_NOT_NULL else TRUE
            return EVALUATED if step == TRUE_IF_NOT_NULL else step
        operator, widened = step
        side, side_kind, to_kind = from_exp, from_kind, from_kind


def _simplified(operator: str, from_kind: SparkType, to_kind: SparkType, value: Number, deterministic: bool) -> str | tuple[str, Number]:
    """Spark's ``simplifyNumericComparison``: an outcome, or the comparison moved onto the
    expression of ``from_kind`` (an operator and a constant of that type)."""
    bounds = _range(from_kind)
    if bounds is not None:
        low, high = (_cast(b, to_kind) for b in bounds)
        assert low is not None and high is not None
        above, below = _compare(value, high), _compare(value, low)
        never_equal = FALSE if deterministic else EVALUATED
        if above > 0:  # past the type's largest value
            return {"=": FALSE_IF_NOT_NULL, ">": FALSE_IF_NOT_NULL, ">=": FALSE_IF_NOT_NULL, "<": TRUE_IF_NOT_NULL,
                    "<=": TRUE_IF_NOT_NULL, "<=>": never_equal}[operator]
        if above == 0:
            return {">": FALSE_IF_NOT_NULL, "<=": TRUE_IF_NOT_NULL, "<": EVALUATED}.get(
                operator, ("<=>" if operator == "<=>" else "=", bounds[1]))
        if below < 0:
            return {"=": FALSE_IF_NOT_NULL, "<": FALSE_IF_NOT_NULL, "<=": FALSE_IF_NOT_NULL, ">": TRUE_IF_NOT_NULL,
                    ">=": TRUE_IF_NOT_NULL, "<=>": never_equal}[operator]
        if below == 0:
            return {"<": FALSE_IF_NOT_NULL, ">=": TRUE_IF_NOT_NULL, ">": EVALUATED}.get(
                operator, ("<=>" if operator == "<=>" else "=", bounds[0]))
    moved = _cast(value, from_kind, ansi=False)
    if moved is None:
        return EVALUATED
    back = _cast(moved, to_kind)
    assert back is not None
    order = _compare(value, back)
    if order == 0:
        return operator, moved
    if operator == "=":
        return FALSE_IF_NOT_NULL
    if operator == "<=>":
        return FALSE if deterministic or order > 0 else EVALUATED
    if order < 0:  # the constant rounded up
        return (">=", moved) if operator in (">", ">=") else ("<", moved)
    return (">", moved) if operator in (">", ">=") else ("<=", moved)


def _null_counts_as_false(node: exp.Expr) -> bool:
    """Whether a NULL in ``node``'s place counts as false: through ANDs and ORs (and the values of
    a boolean IF or CASE among them) up to a WHERE, HAVING, QUALIFY, join condition, an IF's or
    CASE WHEN's condition, or the predicate of ``filter(array, x -> ...)`` (Spark's
    ``ReplaceNullWithFalseInPredicate``)."""
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, (exp.And, exp.Or, exp.Paren)):
            child, parent = parent, parent.parent
            continue
        if isinstance(parent, exp.If):
            if child.arg_key == "this":
                return not isinstance(parent.parent, exp.Case) or parent.parent.this is None  # not CASE x WHEN v
            child, parent = (parent.parent, parent.parent.parent) if isinstance(parent.parent, exp.Case) else (parent, parent.parent)
            continue
        if isinstance(parent, exp.Case) and child.arg_key == "default":
            child, parent = parent, parent.parent
            continue
        if isinstance(parent, (exp.Where, exp.Having, exp.Qualify)):
            return isinstance(parent.parent, exp.Select)  # not an aggregate's FILTER (WHERE ...)
        if isinstance(parent, exp.Join):
            return child.arg_key == "on"
        if isinstance(parent, exp.Lambda) and child.arg_key == "this":
            return isinstance(parent.parent, exp.ArrayFilter) or (
                isinstance(parent.parent, exp.Anonymous) and parent.parent.name.lower() == "map_filter")
        return False
    return False


def _fold_constant(node: exp.Boolean) -> None:
    """Fold a ``TRUE`` or ``FALSE`` into the ANDs and ORs above it whose other side is a
    predicate (not a value Spark's coercion would first cast to a boolean)."""
    parent = node.parent
    while isinstance(parent, (exp.And, exp.Or, exp.Paren)):
        other = parent.this if isinstance(parent, exp.Paren) else parent.expression if parent.this is node else parent.this
        if not isinstance(parent, exp.Paren) and not _is_predicate(other):
            return
        if isinstance(parent, exp.Paren) or (isinstance(parent, exp.And) != node.this):
            # (x), FALSE AND x, TRUE OR x: the constant
            replaced = parent.replace(exp.Boolean(this=node.this))
            assert isinstance(replaced, exp.Boolean)
            node, parent = replaced, replaced.parent
            continue
        parent.replace(other)  # TRUE AND x, FALSE OR x: x
        return


def _is_predicate(node: exp.Expr) -> bool:
    node = node.unnest()
    return isinstance(node, (exp.Predicate, exp.Connector, exp.Not, exp.Boolean)) or (
        isinstance(node, exp.Binary) and type(node) in _OPERATORS)


def _comparison_type(side: SparkType | None, others: list[SparkType | None], constants: list[exp.Expr]) -> SparkType | None:
    """The numeric type Spark's coercion compares ``side`` with constants of types ``others`` in;
    None where one is not a number (no cast to unwrap)."""
    kinds = [side, *others]
    if not all(_is_number(k) for k in kinds):
        return None
    if all(_is_integral(k) for k in kinds):
        return max(kinds, key=lambda k: INTEGER_WIDTHS[k.name])  # type: ignore[union-attr]
    if any(isinstance(k, DecimalType) for k in kinds) and all(_is_integral(k) or isinstance(k, DecimalType) for k in kinds):
        decimals = [_as_decimal(side)]
        for kind, constant in zip(others, constants):
            # an integer constant takes the digits it needs (DecimalType.fromLiteral)
            value = _constant(constant)
            decimals.append(DecimalType(max(len(str(abs(value))), 1), 0) if _is_integral(kind) and isinstance(value, int) else _as_decimal(kind))
        return wider_decimal(decimals)
    if _DOUBLE in kinds or any(isinstance(k, DecimalType) for k in kinds):
        return _DOUBLE
    # floats with integers: ANSI coercion takes an int or bigint with a float as doubles
    return _DOUBLE if any(isinstance(k, AtomicType) and k.name in ("int", "bigint") for k in kinds) else _FLOAT


def _can_unwrap(from_kind: SparkType, to_kind: SparkType) -> bool:
    """Spark's ``canUnwrapCast``: ``Cast.canUpCast`` of numbers, but not int to float, nor
    bigint to float or double."""
    if from_kind == to_kind:
        return True
    if _is_integral(from_kind):
        assert isinstance(from_kind, AtomicType)
        if isinstance(to_kind, DecimalType):
            return to_kind.precision - to_kind.scale >= INTEGER_DIGITS[from_kind.name]
        if _is_integral(to_kind):
            assert isinstance(to_kind, AtomicType)
            return INTEGER_WIDTHS[from_kind.name] < INTEGER_WIDTHS[to_kind.name]
        if to_kind == _FLOAT:
            return from_kind.name in ("tinyint", "smallint")
        return to_kind == _DOUBLE and from_kind.name != "bigint"
    if from_kind == _FLOAT:
        return to_kind == _DOUBLE
    if isinstance(from_kind, DecimalType) and isinstance(to_kind, DecimalType):
        return to_kind.precision - to_kind.scale >= from_kind.precision - from_kind.scale and to_kind.scale >= from_kind.scale
    return False


def _range(kind: SparkType) -> tuple[Number, Number] | None:
    if _is_integral(kind):
        assert isinstance(kind, AtomicType)
        bits = INTEGER_WIDTHS[kind.name]
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if kind in (_FLOAT, _DOUBLE):
        return float("-inf"), float("nan")
    return None


def _cast(value: Number, kind: SparkType, *, ansi: bool = True) -> Number | None:
    """``value`` cast to ``kind`` as Spark casts a constant; None where the cast fails (ANSI) or
    gives NULL (not ANSI: a decimal that does not fit)."""
    if _is_integral(kind):
        assert isinstance(kind, AtomicType)
        if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            return None
        whole = int(value)  # toward zero
        low, high = _range(kind)  # type: ignore[misc]
        if ansi and whole != value:
            return None
        return whole if low <= whole <= high else None
    if isinstance(kind, DecimalType):
        if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            return None
        exact = decimal.Decimal(value)
        with decimal.localcontext() as context:
            context.prec = 100
            rounded = exact.quantize(decimal.Decimal(1).scaleb(-kind.scale), rounding=decimal.ROUND_HALF_UP)
        return rounded if abs(rounded) < 10 ** (kind.precision - kind.scale) else None
    if kind == _DOUBLE:
        return float(value)
    if kind == _FLOAT:
        try:
            return struct.unpack("f", struct.pack("f", float(value)))[0]  # type: ignore[no-any-return]
        except OverflowError:
            return float("inf") if value > 0 else float("-inf")
    return None


def _compare(a: Number, b: Number) -> int:
    """Spark's order of numbers: NaN above everything and equal to itself, -0.0 equal to 0.0."""
    a_nan, b_nan = isinstance(a, float) and a != a, isinstance(b, float) and b != b
    if a_nan or b_nan:
        return (a_nan > b_nan) - (a_nan < b_nan)
    return (a > b) - (a < b)


def _constant(node: exp.Expr) -> Number | None:
    """The exact value of a numeric constant: a number literal, negated, in parentheses, or cast
    to a numeric type (``2L``, ``1.5BD``, ``1.5D``); None for anything else."""
    return number_constant(node, at_cast=_cast_literal)


def _cast_literal(node: exp.Cast) -> Number | None:
    """The value of a cast of a number or string literal to a numeric type, as Spark folds it."""
    literal = node.this.unnest()
    if not isinstance(literal, exp.Literal):
        return None
    try:
        value = number_constant(literal) if literal.is_number else decimal.Decimal(literal.this.strip())
    except decimal.InvalidOperation:
        return None
    kind = _sql_kind(node.to)
    return None if value is None or kind is None else _cast(value, kind)


def _sql_kind(to: exp.DataType) -> SparkType | None:
    names = {exp.DType.TINYINT: "tinyint", exp.DType.SMALLINT: "smallint", exp.DType.INT: "int", exp.DType.BIGINT: "bigint",
             exp.DType.FLOAT: "float", exp.DType.DOUBLE: "double"}
    if to.this in names:
        return AtomicType(names[to.this])
    if to.this == exp.DType.DECIMAL:
        params = [int(p.name) for p in to.expressions]
        return DecimalType(*params) if params else DecimalType(10, 0)
    return None


def _foldable(node: exp.Expr) -> bool:
    """Whether Spark could compute ``node`` as it plans: it reads no column, lambda variable,
    subquery, aggregate or window."""
    return not any(isinstance(n, (exp.Column, exp.Identifier, exp.Subquery, exp.Select, exp.AggFunc, exp.Window))
                   and n.find_ancestor(exp.DataType) is None for n in node.walk())


def _deterministic(node: exp.Expr) -> bool:
    for n in node.walk():
        name = n.name.lower() if isinstance(n, exp.Anonymous) else type(n).__name__.lower()
        if isinstance(n, (exp.Rand, exp.Randn, exp.Uuid, exp.First, exp.Last, exp.FirstValue, exp.LastValue, exp.AnyValue,
                          exp.ArrayAgg, exp.ArrayUniqueAgg)) or name in _NONDETERMINISTIC:
            return False
    return True



def _as_decimal(kind: SparkType | None) -> DecimalType:
    if isinstance(kind, DecimalType):
        return kind
    assert isinstance(kind, AtomicType)
    return integral_decimal(kind)
