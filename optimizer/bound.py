"""The closed predicate algebra of row-group pruning: references, typed literals, predicates.

Two layers, as in pyiceberg:

```
input (table level)                          bound (one file)
VariantRef(column, path, type, strict)  -->  LeafRef(column_path, value_path, type, ...)
ColumnRef(column, type)                 -->  LeafRef(column_path, None, type, ...)
PartitionRef(name, type)                -->  PartitionRef (a constant per file)
anything else                           -->  ALWAYS_TRUE
```

:func:`~vpush.optimizer.bind_sqlglot.bind_sqlglot` turns a WHERE clause into the input layer, pushing NOT down to the
predicates *before* it binds anything it does not recognise to ``ALWAYS_TRUE`` (the other order
makes ``NOT(unknown)`` ``ALWAYS_FALSE`` and prunes everything). :func:`bind` then resolves the
references against one file's footer, since files of a table may be shredded differently.
Predicates over a literal are in Spark's three-valued logic: a comparison with NULL is never
TRUE, ``x NOT IN (.., NULL)`` is never TRUE, and NaN equals NaN and sorts above every number.

The literal of a predicate carries the type Spark compares in (``Literal.type``), which may be
wider than the reference's (an int compared with ``5.5`` compares as a decimal): the evaluator
casts the leaf's bounds into it. Binding never decides whether a cast is safe; the evaluator does,
per row group (:mod:`vpush.optimizer.evaluate_row_groups`).
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from sqlglot import exp

from vpush.codec.header import VariantType
from vpush.codec.layout import ObjectLayout, PrimitiveLayout, ValueLayout, VariantLayout
from vpush.optimizer.variant_types import MAX_DECIMAL_PRECISION

if TYPE_CHECKING:
    import pyarrow as pa

    from vpush.optimizer.catalog import FileInfo

__all__ = [
    "ALWAYS_FALSE",
    "ALWAYS_TRUE",
    "AlwaysFalse",
    "AlwaysTrue",
    "And",
    "BooleanExpression",
    "ColumnRef",
    "Eq",
    "Gt",
    "GtEq",
    "In",
    "IsNaN",
    "IsNull",
    "LeafRef",
    "Literal",
    "Lt",
    "LtEq",
    "Not",
    "NotEq",
    "NotIn",
    "NotNaN",
    "NotNull",
    "Or",
    "PartitionRef",
    "SqlType",
    "VariantRef",
    "and_",
    "bind",
    "bind_terms",
    "bind_variant",
    "in_",
    "not_",
    "not_in",
    "or_",
    "rewrite_not",
]

_INT_RANGES = {
    "tinyint": (-(2**7), 2**7 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "int": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}


_DTYPES: dict[exp.DType, str] = {
    exp.DType.BOOLEAN: "boolean",
    exp.DType.TINYINT: "tinyint",
    exp.DType.SMALLINT: "smallint",
    exp.DType.INT: "int",
    exp.DType.BIGINT: "bigint",
    exp.DType.FLOAT: "float",
    exp.DType.DOUBLE: "double",
    exp.DType.TEXT: "string",
    exp.DType.VARCHAR: "string",
    exp.DType.BINARY: "binary",
    exp.DType.DATE: "date",
    # Spark's TIMESTAMP is instant-based (LTZ); sqlglot's Spark dialect reads it as TIMESTAMPTZ.
    exp.DType.TIMESTAMPTZ: "timestamp",
    exp.DType.TIMESTAMPLTZ: "timestamp",
    exp.DType.TIMESTAMPNTZ: "timestamp_ntz",
    exp.DType.NULL: "void",
}


# -- types -------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SqlType:
    """A Spark SQL type that pruning can compare in.

    ``name`` is one of ``boolean tinyint smallint int bigint float double decimal string binary
    date timestamp timestamp_ntz void``; decimals carry precision and scale.

    Example:
        >>> SqlType.parse("decimal(10,2)"), SqlType.parse("long"), SqlType.parse("array<int>")
        (SqlType(name='decimal', precision=10, scale=2), SqlType(name='bigint', precision=None, scale=None), None)
    """

    name: str
    precision: int | None = None
    scale: int | None = None

    @classmethod
    def parse(cls, text: str | exp.DataType) -> SqlType | None:
        """The type named by Spark DDL text or a sqlglot DataType, or None when pruning does not
        compare in it (arrays, structs, variant, char and varchar(n), intervals...)."""
        return _parse_sql_type(text)

    def __post_init__(self) -> None:
        if self.name == "decimal" and (self.precision is None or self.scale is None):
            raise ValueError("a decimal type needs a precision and a scale")

    @property
    def is_integral(self) -> bool:
        """tinyint, smallint, int or bigint."""
        return self.name in _INT_RANGES

    @property
    def is_exact_numeric(self) -> bool:
        """An integral type or a decimal."""
        return self.is_integral or self.name == "decimal"

    @property
    def is_floating(self) -> bool:
        """float or double."""
        return self.name in ("float", "double")

    @property
    def int_range(self) -> tuple[int, int]:
        """The smallest and largest value of an integral type."""
        return _INT_RANGES[self.name]

    def __str__(self) -> str:
        return f"decimal({self.precision},{self.scale})" if self.name == "decimal" else self.name


def _parse_decimal_type(datatype: exp.DataType) -> SqlType | None:
    params = [p.this if isinstance(p, exp.DataTypeParam) else p for p in datatype.expressions]
    try:
        numbers = [int(p.name) for p in params]
    except (ValueError, AttributeError):
        return None
    precision, scale = (numbers + [10, 0][len(numbers):])[:2] if numbers else (10, 0)
    if not 0 < precision <= MAX_DECIMAL_PRECISION or not 0 <= scale <= precision:
        return None
    return SqlType("decimal", precision, scale)


def _parse_sql_type(text: str | exp.DataType) -> SqlType | None:
    if isinstance(text, str) and "collate" in text.lower():
        return None  # a collated string does not compare in byte order
    try:
        datatype = text if isinstance(text, exp.DataType) else exp.DataType.build(text, dialect="spark")
    except Exception:  # noqa: BLE001 - sqlglot raises several error types for bad type text
        return None
    if datatype.this == exp.DType.DECIMAL:
        return _parse_decimal_type(datatype)
    name = _DTYPES.get(datatype.this)
    if name is None or (datatype.this == exp.DType.VARCHAR and datatype.expressions):
        # varchar(n) compares as a string but pads and checks lengths: leave it alone.
        return None
    return SqlType(name)



_LEAF_SQL_TYPES = {
    VariantType.BOOLEAN: "boolean",
    VariantType.INT8: "tinyint",
    VariantType.INT16: "smallint",
    VariantType.INT32: "int",
    VariantType.INT64: "bigint",
    VariantType.FLOAT: "float",
    VariantType.DOUBLE: "double",
    VariantType.DATE: "date",
    VariantType.TIMESTAMP: "timestamp",
    VariantType.TIMESTAMP_NTZ: "timestamp_ntz",
    VariantType.STRING: "string",
    VariantType.BINARY: "binary",
}


def sql_type_of_arrow(arrow_type: pa.DataType) -> SqlType | None:
    """The Spark type a column of ``arrow_type`` reads as, or None (for resolvers).

    Example:
        >>> import pyarrow as pa
        >>> str(sql_type_of_arrow(pa.decimal128(9, 2))), str(sql_type_of_arrow(pa.timestamp("us")))
        ('decimal(9,2)', 'timestamp_ntz')
    """
    import pyarrow as pa

    t = arrow_type
    simple = [
        (pa.types.is_boolean, "boolean"),
        (pa.types.is_int8, "tinyint"),
        (pa.types.is_int16, "smallint"),
        (pa.types.is_int32, "int"),
        (pa.types.is_int64, "bigint"),
        (pa.types.is_float32, "float"),
        (pa.types.is_float64, "double"),
        (pa.types.is_date32, "date"),
        (pa.types.is_string, "string"),
        (pa.types.is_large_string, "string"),
        (pa.types.is_binary, "binary"),
        (pa.types.is_large_binary, "binary"),
    ]
    for check, name in simple:
        if check(t):
            return SqlType(name)
    if pa.types.is_decimal(t):
        return SqlType("decimal", t.precision, t.scale)
    if pa.types.is_timestamp(t):
        return SqlType("timestamp" if t.tz is not None else "timestamp_ntz")
    return None


# -- references ----------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class VariantRef:
    """``variant_get(column, '$.a.b', type)`` (``strict``) or ``try_variant_get`` (not strict).

    ``path`` holds object field names from the top (empty for ``'$'``); array steps are not
    supported: a resolver returns None for them.
    """

    column: str
    path: tuple[str, ...]
    type: SqlType
    strict: bool = True


@dataclasses.dataclass(frozen=True)
class ColumnRef:
    """A plain (non-variant) column, by dotted leaf path, read as Spark ``type``."""

    column: str
    type: SqlType


@dataclasses.dataclass(frozen=True)
class PartitionRef:
    """A Hive-style partition column (``year=2024/``): one constant value per file."""

    name: str
    type: SqlType


@dataclasses.dataclass(frozen=True)
class LeafRef:
    """A reference bound to one file: the Parquet leaf whose statistics describe its values.

    For a variant extraction, ``column_path`` is the field's shredded ``typed_value`` leaf (None
    when the field is not shredded there, so that it can only come from ``value_path``) and
    ``value_path`` the ``value`` (draft: ``untyped_value``) column of the same level, None when
    the schema has none. ``type``/``precision``/``scale`` describe the leaf's values; ``target``
    is the type of the reference (variant_get's type, or the column's Spark type), reached from
    the leaf by a cast that may fail (``strict``: raise; else NULL).
    """

    column_path: str | None
    value_path: str | None
    type: VariantType | None
    target: SqlType
    strict: bool = True
    variant: bool = True
    precision: int | None = None
    scale: int | None = None


Ref = VariantRef | ColumnRef | PartitionRef
Term = VariantRef | ColumnRef | PartitionRef | LeafRef


@dataclasses.dataclass(frozen=True)
class Literal:
    """A typed constant: ``value`` is a Python value of ``type`` (int, Decimal, float, str,
    bytes, bool, date, datetime aware in UTC for ``timestamp``, naive for ``timestamp_ntz``)."""

    value: Any
    type: SqlType


# -- expressions -------------------------------------------------------------------------------
class BooleanExpression:
    """A node of the algebra. Immutable; ``negate()`` gives the exact three-valued negation."""

    def negate(self) -> BooleanExpression:
        """NOT of this expression."""
        raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class AlwaysTrue(BooleanExpression):
    """Every row matches (also: whatever pruning does not understand)."""

    def negate(self) -> BooleanExpression:
        return ALWAYS_FALSE


@dataclasses.dataclass(frozen=True)
class AlwaysFalse(BooleanExpression):
    """No row matches."""

    def negate(self) -> BooleanExpression:
        return ALWAYS_TRUE


ALWAYS_TRUE = AlwaysTrue()
ALWAYS_FALSE = AlwaysFalse()


@dataclasses.dataclass(frozen=True)
class And(BooleanExpression):
    """Both hold."""

    left: BooleanExpression
    right: BooleanExpression

    def negate(self) -> BooleanExpression:
        # De Morgan holds in Kleene's three-valued logic, which SQL's AND/OR/NOT follow.
        return or_(self.left.negate(), self.right.negate())


@dataclasses.dataclass(frozen=True)
class Or(BooleanExpression):
    """Either holds."""

    left: BooleanExpression
    right: BooleanExpression

    def negate(self) -> BooleanExpression:
        return and_(self.left.negate(), self.right.negate())


@dataclasses.dataclass(frozen=True)
class Not(BooleanExpression):
    """NOT of a child; :func:`rewrite_not` removes every one before evaluation."""

    child: BooleanExpression

    def negate(self) -> BooleanExpression:
        return self.child


@dataclasses.dataclass(frozen=True)
class UnaryPredicate(BooleanExpression):
    """A predicate on a term alone."""

    term: Term


@dataclasses.dataclass(frozen=True)
class IsNull(UnaryPredicate):
    """``term IS NULL``."""

    def negate(self) -> BooleanExpression:
        return NotNull(self.term)


@dataclasses.dataclass(frozen=True)
class NotNull(UnaryPredicate):
    """``term IS NOT NULL``."""

    def negate(self) -> BooleanExpression:
        return IsNull(self.term)


@dataclasses.dataclass(frozen=True)
class IsNaN(UnaryPredicate):
    """``isnan(term)``: FALSE, not NULL, for a NULL term."""

    def negate(self) -> BooleanExpression:
        return NotNaN(self.term)


@dataclasses.dataclass(frozen=True)
class NotNaN(UnaryPredicate):
    """``NOT isnan(term)``: TRUE for a NULL term."""

    def negate(self) -> BooleanExpression:
        return IsNaN(self.term)


@dataclasses.dataclass(frozen=True)
class LiteralPredicate(BooleanExpression):
    """``term <op> literal``, in ``literal.type``."""

    term: Term
    literal: Literal

    OP: ClassVar[str] = "?"


@dataclasses.dataclass(frozen=True)
class Lt(LiteralPredicate):
    """``term < literal``."""

    OP: ClassVar[str] = "<"

    def negate(self) -> BooleanExpression:
        return GtEq(self.term, self.literal)


@dataclasses.dataclass(frozen=True)
class LtEq(LiteralPredicate):
    """``term <= literal``."""

    OP: ClassVar[str] = "<="

    def negate(self) -> BooleanExpression:
        return Gt(self.term, self.literal)


@dataclasses.dataclass(frozen=True)
class Gt(LiteralPredicate):
    """``term > literal``."""

    OP: ClassVar[str] = ">"

    def negate(self) -> BooleanExpression:
        return LtEq(self.term, self.literal)


@dataclasses.dataclass(frozen=True)
class GtEq(LiteralPredicate):
    """``term >= literal``."""

    OP: ClassVar[str] = ">="

    def negate(self) -> BooleanExpression:
        return Lt(self.term, self.literal)


@dataclasses.dataclass(frozen=True)
class Eq(LiteralPredicate):
    """``term = literal``."""

    OP: ClassVar[str] = "="

    def negate(self) -> BooleanExpression:
        return NotEq(self.term, self.literal)


@dataclasses.dataclass(frozen=True)
class NotEq(LiteralPredicate):
    """``term != literal``."""

    OP: ClassVar[str] = "!="

    def negate(self) -> BooleanExpression:
        return Eq(self.term, self.literal)


@dataclasses.dataclass(frozen=True)
class SetPredicate(BooleanExpression):
    """``term [NOT] IN (literals)``; build with :func:`in_` / :func:`not_in`, which fold."""

    term: Term
    literals: tuple[Literal, ...]


@dataclasses.dataclass(frozen=True)
class In(SetPredicate):
    """``term IN (literals)``, no NULL among them."""

    def negate(self) -> BooleanExpression:
        return NotIn(self.term, self.literals)


@dataclasses.dataclass(frozen=True)
class NotIn(SetPredicate):
    """``term NOT IN (literals)``, no NULL among them."""

    def negate(self) -> BooleanExpression:
        return In(self.term, self.literals)


# -- builders that fold ------------------------------------------------------------------------
def and_(*children: BooleanExpression) -> BooleanExpression:
    """AND of the children, folding constants.

    Example:
        >>> and_(ALWAYS_TRUE, ALWAYS_FALSE), and_(ALWAYS_TRUE, ALWAYS_TRUE)
        (AlwaysFalse(), AlwaysTrue())
    """
    result: BooleanExpression = ALWAYS_TRUE
    for child in children:
        if isinstance(child, AlwaysFalse) or isinstance(result, AlwaysFalse):
            return ALWAYS_FALSE
        if isinstance(child, AlwaysTrue):
            continue
        result = child if isinstance(result, AlwaysTrue) else And(result, child)
    return result


def or_(*children: BooleanExpression) -> BooleanExpression:
    """OR of the children, folding constants.

    Example:
        >>> or_(ALWAYS_FALSE, ALWAYS_TRUE), or_(ALWAYS_FALSE, ALWAYS_FALSE)
        (AlwaysTrue(), AlwaysFalse())
    """
    result: BooleanExpression = ALWAYS_FALSE
    for child in children:
        if isinstance(child, AlwaysTrue) or isinstance(result, AlwaysTrue):
            return ALWAYS_TRUE
        if isinstance(child, AlwaysFalse):
            continue
        result = child if isinstance(result, AlwaysFalse) else Or(result, child)
    return result


def not_(child: BooleanExpression) -> BooleanExpression:
    """NOT of ``child``, pushed down to the predicates at once.

    Example:
        >>> x = ColumnRef("x", SqlType("int"))
        >>> not_(Or(IsNull(x), ALWAYS_FALSE)) == NotNull(x), not_(ALWAYS_TRUE)
        (True, AlwaysFalse())
    """
    return child.negate()


def _literal_key(literal: Literal) -> tuple[Any, ...]:
    v = literal.value
    if isinstance(v, float) and math.isnan(v):
        return (1,)
    return (0, v)


def _distinct(literals: Iterable[Literal | None]) -> tuple[tuple[Literal, ...], bool]:
    """The non-NULL literals without repeats (NaN once), and whether a NULL was among them."""
    seen: dict[tuple[Any, ...], Literal] = {}
    had_null = False
    for lit in literals:
        if lit is None:
            had_null = True
            continue
        seen.setdefault(_literal_key(lit), lit)
    return tuple(seen.values()), had_null


def in_(term: Term, literals: Iterable[Literal | None]) -> BooleanExpression:
    """``term IN (literals)``; None stands for a NULL literal.

    NULLs are dropped (``x = NULL`` is never TRUE), no literal left is ``ALWAYS_FALSE``, one is
    ``Eq``.

    Example:
        >>> ref = ColumnRef("id", SqlType("int"))
        >>> in_(ref, [Literal(3, SqlType("int")), None])
        Eq(term=ColumnRef(column='id', type=SqlType(name='int', precision=None, scale=None)), literal=Literal(value=3, type=SqlType(name='int', precision=None, scale=None)))
    """
    values, _ = _distinct(literals)
    if not values:
        return ALWAYS_FALSE
    if len(values) == 1:
        return Eq(term, values[0])
    return In(term, values)


def not_in(term: Term, literals: Iterable[Literal | None]) -> BooleanExpression:
    """``term NOT IN (literals)``; None stands for a NULL literal.

    With a NULL in the list it is never TRUE (FALSE on a match, NULL otherwise): ``ALWAYS_FALSE``.
    One literal is ``NotEq``; none (only possible after folding) is ``NotNull``. (For a strict
    variant_get, whose evaluation may raise, bind_sqlglot keeps the reference evaluated instead.)

    Example:
        >>> x = ColumnRef("x", SqlType("int"))
        >>> not_in(x, [Literal(1, SqlType("int")), None]), type(not_in(x, [Literal(1, SqlType("int"))])).__name__
        (AlwaysFalse(), 'NotEq')
    """
    values, had_null = _distinct(literals)
    if had_null:
        return ALWAYS_FALSE
    if not values:
        return NotNull(term)
    if len(values) == 1:
        return NotEq(term, values[0])
    return NotIn(term, values)


def rewrite_not(expression: BooleanExpression) -> BooleanExpression:
    """Push every NOT down to the predicates, so that none is left.

    Example:
        >>> x = ColumnRef("x", SqlType("int"))
        >>> rewrite_not(Not(And(Lt(x, Literal(1, SqlType("int"))), IsNull(x))))
        Or(left=GtEq(term=ColumnRef(...), literal=Literal(value=1, ...)), right=NotNull(term=ColumnRef(...)))
    """
    if isinstance(expression, Not):
        return rewrite_not(expression.child).negate()
    if isinstance(expression, And):
        return and_(rewrite_not(expression.left), rewrite_not(expression.right))
    if isinstance(expression, Or):
        return or_(rewrite_not(expression.left), rewrite_not(expression.right))
    return expression


# -- binding to one file -----------------------------------------------------------------------
def _lookup(mapping: Mapping[str, Any], name: str) -> Any:
    """An entry by exact name, else by case-insensitive name when that is unambiguous (Spark
    resolves column names case-insensitively)."""
    if name in mapping:
        return mapping[name]
    folded = [key for key in mapping if key.lower() == name.lower()]
    return mapping[folded[0]] if len(folded) == 1 else None


def _variant_leaf(layout: VariantLayout, ref: VariantRef) -> LeafRef | None:
    node: ValueLayout = layout
    for name in ref.path:
        typed = node.typed_value
        found = typed.field(name) if isinstance(typed, ObjectLayout) else None
        if found is None:
            # The field is not shredded here: it can only sit in this level's `value` (a residual
            # object, or a whole value that was not shredded), since a typed primitive or array
            # has no fields and a shredded object's typed fields do not include it.
            return LeafRef(None, node.value, None, ref.type, ref.strict)
        node = found
    typed = node.typed_value
    if typed is None:
        return LeafRef(None, node.value, None, ref.type, ref.strict)
    if not isinstance(typed, PrimitiveLayout):
        return None  # an object or array cast to a scalar type: not worth modelling
    return LeafRef(
        typed.path, node.value, typed.variant_type, ref.type, ref.strict, True, typed.precision, typed.scale
    )


def bind_variant(ref: VariantRef, file: FileInfo) -> LeafRef | None:
    """``ref`` bound to one file's layout: the leaf and ``value`` column its rows come from, or
    None where the file has no such variant column or shreds the path as an object or array."""
    layout = _lookup(file.variant_columns, ref.column)
    return _variant_leaf(layout, ref) if layout is not None else None


def _bind_term(term: Term, file: FileInfo) -> Term | None:
    if isinstance(term, VariantRef):
        return bind_variant(term, file)
    if isinstance(term, ColumnRef):
        if _lookup(file.variant_columns, term.column) is not None:
            return None  # a variant column compared as a whole
        leaf = _lookup(file.statistics.leaves, term.column)
        if leaf is None or leaf.repeated or leaf.variant_type is None:
            return None
        return LeafRef(
            leaf.column_path,
            None,
            leaf.variant_type,
            term.type,
            True,
            False,
            leaf.precision,
            leaf.scale,
        )
    return term  # PartitionRef, or already bound


def bind(expression: BooleanExpression, file: FileInfo) -> BooleanExpression:
    """Resolve the references of ``expression`` against one file's footer.

    NOT is pushed down first; then a reference the file cannot serve (no such column, a field
    shredded as an object or array, a repeated leaf, a type without statistics) makes its
    predicate ``ALWAYS_TRUE``.

    Example:
        >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq
        >>> from vpush.optimizer.catalog import Catalog
        >>> one = Literal(1, SqlType("bigint"))
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     pq.write_table(pa.table({"id": [1, 2]}), os.path.join(folder, "t.parquet"))
        ...     info = Catalog().file_info(os.path.join(folder, "t.parquet"))
        >>> bind(Gt(ColumnRef("ID", SqlType("bigint")), one), info).term.column_path
        'id'
        >>> bind(Gt(ColumnRef("nope", SqlType("bigint")), one), info)
        AlwaysTrue()

    Args:
        expression: an expression over :class:`VariantRef`, :class:`ColumnRef` and
            :class:`PartitionRef` (from :func:`~vpush.optimizer.bind_sqlglot.bind_sqlglot`).
        file: the file's catalog entry (its variant layouts and footer statistics).

    Returns:
        The expression over :class:`LeafRef` and :class:`PartitionRef`, without NOT.
    """
    return bind_terms(expression, lambda term: _bind_term(term, file))


def bind_terms(expression: BooleanExpression, bind_term: Callable[[Term], Term | None]) -> BooleanExpression:
    """Push NOT down in ``expression``, then replace each predicate's term by ``bind_term``'s
    answer, or the predicate by ``ALWAYS_TRUE`` where it answers None (nothing known of it).

    :func:`bind` binds to a footer this way, and a Delta file's log statistics bind the same way.

    Example:
        >>> x = ColumnRef("x", SqlType("int"))
        >>> bind_terms(Not(IsNull(x)), lambda term: None)
        AlwaysTrue()
    """
    expression = rewrite_not(expression)

    def visit(node: BooleanExpression) -> BooleanExpression:
        if isinstance(node, And):
            return and_(visit(node.left), visit(node.right))
        if isinstance(node, Or):
            return or_(visit(node.left), visit(node.right))
        if isinstance(node, (UnaryPredicate, LiteralPredicate, SetPredicate)):
            bound = bind_term(node.term)
            if bound is None:
                return ALWAYS_TRUE
            return dataclasses.replace(node, term=bound)
        return node

    return visit(expression)
