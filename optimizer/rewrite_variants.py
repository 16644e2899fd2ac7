"""Rewrite variant extractions into reads of the shredded columns, file by file.

An extraction is ``variant_get(v, path, T)``, ``try_variant_get``, ``v:a.b`` and a cast of it
(``CAST(v:a AS T)``, ``v:a::T``, ``TRY_CAST``), with a literal path and a scalar or ``variant``
target, over a variant column ``v`` of a table the SELECT reads directly. In each file the path is
followed down the shredded objects as far as it goes, to the level ``L``; what is left of the path
is ``R``. Per the spec a shredded field never also appears in an ancestor's residual ``value``, so
``L`` alone decides the answer:

```
R empty, L a primitive typed_value whose values cast to T exactly:
    CASE WHEN L.value IS NULL THEN CAST(L.typed_value AS T)
         ELSE vpush_variant_get_T(v.metadata, L.value, '$', strict, zone, file) END
R starts with a key, or L is not a shredded array:
    vpush_variant_get_T(v.metadata, L.value, 'R', ...)           (the residual holds the rest)
otherwise (T is variant, an inexact cast, an index into a shredded array):
    L rebuilt as a variant by the codec, then the same function over it
```

DuckDB evaluates the ``ELSE`` branch only for the rows that reach it, so the function (Spark's
extraction and cast, :mod:`vpush.exec.variant_udf`) sees the residual rows only. Files of one table
may be shredded differently: the files that share a physical layout form one :class:`ScanPart`,
and the table becomes ``(SELECT ... FROM part0 UNION ALL SELECT ... FROM part1) AS t``, each
branch computing the extractions as columns ``__vpush_<scan>_x<k>`` that replace them in the query.

An extraction this module cannot place on a scan (over a subquery's column, say) runs the same
function over the whole variant (:func:`rewrite_remaining`), which also turns Spark's other variant
functions (``to_json``, ``is_variant_null``, ``is_valid_variant``, ``schema_of_variant``,
``schema_of_variant_agg``, ``parse_json``, ``try_parse_json``) into calls of engine functions over the variant struct
(:mod:`vpush.exec.variant_functions`), named as Spark names them.
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence

import pyarrow as pa
from sqlglot import exp

from vpush.codec.header import VariantType
from vpush.codec.layout import ArrayLayout, ObjectLayout, PrimitiveLayout, ValueLayout, VariantLayout
from vpush.codec.path import VariantPath
from vpush.optimizer.catalog import FileInfo
from vpush.optimizer.dialect import (
    IsValidVariant,
    IsVariantNull,
    ParseJson,
    SchemaOfVariant,
    SchemaOfVariantAgg,
    ToVariantObject,
    VariantArrayAppend,
    VariantDelete,
    VariantExplode,
    VariantExplodeOuter,
    VariantGet,
    VariantInsert,
    VariantSet,
    VariantStripNulls,
    VpushSpark,
)
from vpush.optimizer.errors import OptimizeError, refuse_on_duckdb
from vpush.optimizer.plan import VARIANT_ARROW_TYPE, FileScan, Input, LeafInput, LevelInput, NativeLeaf, ScanPart
from vpush.optimizer.variant_types import (
    VARIANT,
    ArrayType,
    AtomicType,
    DecimalType,
    MapType,
    SparkType,
    StringType,
    StructType,
    parse_variant_type,
)

__all__ = [
    "FILE_COLUMN",
    "Extraction",
    "evaluated_once",
    "may_fail",
    "function_name",
    "match_extraction",
    "rewrite_remaining",
]

FILE_COLUMN = "__vpush_file"
"""The column of a part that names each row's file, for the errors of the extraction function."""
FUNCTION_PREFIX = "vpush_variant_get_"
ONCE_FUNCTION_PREFIX = FUNCTION_PREFIX + "once_"
"""The extraction functions of casts that cannot fail (``try_`` forms, ``string`` and ``variant``
targets), which the engine declares volatile so that DuckDB computes each call once per row
rather than again wherever it pushes a filter on its result (see :func:`scan_relation`)."""
TO_JSON_FUNCTION = "vpush_to_json"
REBUILD_VARIANT_FUNCTION = "vpush_rebuild_variant"
"""``vpush_rebuild_variant(locator, column)``: a deferred variant column's rows, rebuilt from
their files (:attr:`vpush.optimizer.plan.Scan.deferred`)."""
IS_VARIANT_NULL_FUNCTION = "vpush_is_variant_null"
IS_VALID_VARIANT_FUNCTION = "vpush_is_valid_variant"
SCHEMA_OF_VARIANT_FUNCTION = "vpush_schema_of_variant"
SCHEMA_MERGE_FUNCTION = "vpush_schema_of_variant_merge"
PARSE_JSON_FUNCTION = "vpush_parse_json"
VARIANT_EXPLODE_FUNCTION = "vpush_variant_explode"
VARIANT_DELETE_FUNCTION = "vpush_variant_delete"
VARIANT_STRIP_NULLS_FUNCTION = "vpush_variant_strip_nulls"
VARIANT_MODIFY_FUNCTION = "vpush_variant_modify"
"""``vpush_variant_modify(v, new_value, mode, path, create_if_missing, strict, name)``: Spark's
``variant_set`` (mode 0), ``variant_insert`` (1) and ``variant_array_append`` (2), and their
``try_`` forms (not ``strict``), the new value already a variant."""
TO_JSON_PREFIX = "vpush_to_json_of_"
"""The engine functions of ``to_json`` of a struct, an array or a map, one per argument type:
for these, the type recorded with the name (:attr:`vpush.optimizer.plan.Plan.functions`) is the
argument's; they take the argument and the session time zone and give a string."""
TO_VARIANT_OBJECT_PREFIX = "vpush_to_variant_object_"
"""The engine functions of ``to_variant_object``, one per argument type: for these, the type
recorded with the name (:attr:`vpush.optimizer.plan.Plan.functions`) is the argument's, which the
engine function takes (its result is a variant)."""
"""The engine functions of Spark's other variant functions (:mod:`vpush.exec.variant_functions`)."""
CAST_ERROR_MARKER = "vpush-invalid-variant-cast"
"""Starts the message of a failed cast raised in SQL: marker|target|value|file."""

_SCALARS = frozenset(
    {"boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "date", "binary", "timestamp", "timestamp_ntz"}
)
_INT_DIGITS = {VariantType.INT8: 3, VariantType.INT16: 5, VariantType.INT32: 10, VariantType.INT64: 19}
_INT_RANK = {"tinyint": 1, "smallint": 2, "int": 3, "bigint": 4}
_VARIANT_INT_RANK = {VariantType.INT8: 1, VariantType.INT16: 2, VariantType.INT32: 3, VariantType.INT64: 4}
_SAME_TYPE = {
    VariantType.BOOLEAN: "boolean",
    VariantType.FLOAT: "float",
    VariantType.DOUBLE: "double",
    VariantType.DATE: "date",
    VariantType.TIMESTAMP: "timestamp",
    VariantType.TIMESTAMP_NTZ: "timestamp_ntz",
    VariantType.BINARY: "binary",
}
_DECIMALS = frozenset({VariantType.DECIMAL4, VariantType.DECIMAL8, VariantType.DECIMAL16})


@dataclasses.dataclass(frozen=True)
class Extraction:
    """One extraction: ``column`` (the variant column, as the query names it), the path's
    segments, the target type and whether a failed cast raises (``strict``) or gives NULL."""

    column: exp.Column
    segments: tuple[str | int, ...]
    target: SparkType
    strict: bool
    node: exp.Expr | None = dataclasses.field(default=None, compare=False, repr=False)
    """Where the extraction is in the query."""
    residual_of: SparkType | None = None
    """Set on a ``variant`` extraction needed only for the rows whose ``try_`` cast to this type
    is NULL (see :class:`~vpush.optimizer.plan.CastLater`): where the path ends at a typed leaf
    that casts to it exactly, those rows' variant is the leaf's ``value`` itself."""
    of_path_cast: bool = dataclasses.field(default=False, compare=False)
    """Set on the ``try_`` companion of a cast of a path (``node`` is None there): see
    :attr:`casts_a_path`."""
    after_limit: bool = dataclasses.field(default=False, compare=False)
    """Set where the query reads the variant through ``SELECT * FROM t LIMIT n`` (a sample) and
    Spark computes the extraction above that limit, for the rows it keeps only: in a WHERE, an
    aggregate's argument or beside a join (Spark's ``PushProjectionThroughLimit`` moves only a
    projection below the limit, where ``PushVariantIntoScan`` finds it)."""

    @property
    def key(self) -> tuple[str, tuple[str | int, ...], str, bool, str, bool]:
        """Extractions with equal keys compute the same column (a cast of a path to a small
        integer apart: Spark computes it from the rebuilt variant, which may differ from a typed
        leaf's truncation, see :func:`_truncated_decimal`)."""
        residual = "" if self.residual_of is None else self.residual_of.to_spark()
        apart = self.casts_a_path and self.target.to_spark() in _TRUNCATED_TARGETS
        return (self.column.name.lower(), self.segments, self.target.to_spark(), self.strict, residual, apart)

    @property
    def path_text(self) -> str:
        return VariantPath(self.segments).to_spark()

    @property
    def cannot_fail(self) -> bool:
        """Whether the cast never fails as a cast (``INVALID_VARIANT_CAST``): ``try_`` forms give
        NULL, and every variant value casts to a string (Spark's ``to_json`` for containers) or
        to ``variant``. Damaged bytes and types Spark 4.3 cannot read still raise, as Spark
        raises them for every row its scan reads, before any filter."""
        return not self.strict or isinstance(self.target, StringType) or self.target == VARIANT

    @property
    def computed_in_scan(self) -> bool:
        """Whether Spark computes this cast in its scan, for every row the scan reads (before any
        filter), so that a row no filter keeps still makes it fail. Spark's
        ``PushVariantIntoScan`` pushes each ``variant_get``/``try_variant_get`` with its type;
        ``v:a::int`` is a cast of the variant it pushes (``v:a``), computed where the query
        computes it, for the rows that reach it (checked against PySpark in
        ``tests/differential/test_casts.py``)."""
        node = _unparen(self.node)
        if node is None or self.cannot_fail or self.after_limit:
            return False
        return not self.casts_a_path

    @property
    def casts_a_path(self) -> bool:
        """Whether this is a cast of the variant at a path (``v:a::int``, ``try_cast(v:a AS int)``),
        which Spark computes from the variant its scan rebuilds, not from a typed leaf."""
        node = _unparen(self.node)
        return self.of_path_cast or (isinstance(node, exp.Cast) and isinstance(_unparen(node.this), VariantGet))


def supported_target(target: SparkType | None) -> bool:
    """Whether the rewrite computes this target: a scalar (not TIME), ``variant``, or an array,
    ``map<string, T>`` or struct (with field names distinct in any case) of those."""
    if target == VARIANT or isinstance(target, DecimalType):
        return True
    if isinstance(target, StringType):
        return target.collation is None
    if isinstance(target, ArrayType):
        return supported_target(target.element)
    if isinstance(target, MapType):
        return target.key == StringType() and supported_target(target.value)
    if isinstance(target, StructType):
        # DuckDB's struct field names ignore case: `a` and `A` cannot both be fields.
        names = [f.name.lower() for f in target.fields]
        return len(set(names)) == len(names) and all(supported_target(f.type) for f in target.fields)
    return isinstance(target, AtomicType) and target.name in _SCALARS


def _unparen(node: exp.Expr | None) -> exp.Expr | None:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _cast_target(node: exp.Cast) -> SparkType | None:
    to = node.args.get("to")
    if not isinstance(to, exp.DataType):
        return None
    try:
        return parse_variant_type(to.sql(dialect=VpushSpark))
    except OptimizeError:
        return None


def match_extraction(
    node: exp.Expr, *, column_casts: bool = False
) -> tuple[exp.Expr, tuple[str | int, ...], SparkType, bool] | None:
    """``node`` as (base, segments, target, strict) when it is an extraction with a literal path
    and type: ``variant_get``/``try_variant_get``/``v:a``, nested ones joined into one path, or a
    ``CAST``/``TRY_CAST`` of one whose target is ``variant``. With ``column_casts``, also a
    ``CAST``/``TRY_CAST`` of a column itself (``cast(v AS int)``, Spark's ``variant_get`` at
    ``$``), for a caller that checks that the column is a variant. None otherwise."""
    inner: exp.Expr | None = node
    target: SparkType | None = None
    strict = True
    if isinstance(node, exp.Cast):
        inner = _unparen(node.this)
        if column_casts and isinstance(inner, exp.Column) and not isinstance(inner.this, exp.Star):
            cast_to = _cast_target(node)
            if cast_to is None or cast_to == VARIANT:
                return None
            return inner, (), cast_to, not isinstance(node, exp.TryCast)
        if not isinstance(inner, VariantGet) or inner.target_type != VARIANT:
            return None
        target = _cast_target(node)
        strict = not isinstance(node, exp.TryCast)
    if not isinstance(inner, VariantGet):
        return None
    if target is None:
        target = inner.target_type
        strict = not inner.SAFE
    if target is None:
        return None
    segments: tuple[str | int, ...] = ()
    current: exp.Expr | None = inner
    while isinstance(current, VariantGet):
        path = current.variant_path
        if path is None or (current is not inner and current.target_type != VARIANT):
            return None
        segments = path.segments + segments
        current = _unparen(current.this)
    if current is None:
        return None
    return current, segments, target, strict


# -- one file ----------------------------------------------------------------------------------
@dataclasses.dataclass
class _Builder:
    """The inputs and expressions of one part, built while following each extraction through one
    file's layout."""

    time_zone: str
    inputs: dict[str, Input] = dataclasses.field(default_factory=dict)
    values: dict[str, str] = dataclasses.field(default_factory=dict)
    """value input name -> its column's metadata input name (for leaving the metadata unread)."""
    kept_metadata: set[str] = dataclasses.field(default_factory=set)
    """Metadata inputs read in every row group: a residual inside a list leaf needs them."""
    uses_file: bool = False
    all_null: Callable[[str], bool] = lambda path: False
    """Whether the footer proves the column at a Parquet path all-null in every row group read."""

    named: dict[tuple[str | int, ...], str] = dataclasses.field(default_factory=dict)
    """Each input's key (a leaf's path names, a level's) -> its column name in the part."""

    def _name(self, key: tuple[str | int, ...], text: str) -> tuple[str, bool]:
        """The part's column name for the input ``key`` (``text`` unless another input's name
        differs from it only in case: the engines bind column names ignoring case, so the field
        ``A`` beside ``a`` is read as ``text#2``), and whether it is new."""
        if key in self.named:
            return self.named[key], False
        taken = {name.lower() for name in self.named.values()}
        name, n = text, 1
        while name.lower() in taken:
            n += 1
            name = f"{text}#{n}"
        self.named[key] = name
        return name, True

    def leaf(self, names: tuple[str, ...]) -> exp.Column:
        path = ".".join(names)
        name, new = self._name(("leaf", *names), path)
        if new:
            self.inputs[name] = LeafInput(name, path, names)
        return exp.column(exp.to_identifier(name, quoted=True))

    def level(self, column: str, level: tuple[str | int, ...]) -> exp.Column:
        text = "".join((column, *(f"[{n}]" if isinstance(n, int) else f".typed_value.{n}" for n in level)))
        name, new = self._name(("level", column, *level), text if level else f"{column}#variant")
        if new:
            self.inputs[name] = LevelInput(name, column, level)
        return exp.column(exp.to_identifier(name, quoted=True))

    def call(self, ext: Extraction, metadata: exp.Expression, value: exp.Expression, rest: Sequence[str | int]) -> exp.Expression:
        self.uses_file = True
        return exp.Anonymous(
            this=function_name(ext.target, once=ext.cannot_fail),
            expressions=[
                metadata,
                value,
                exp.Literal.string(VariantPath(tuple(rest)).to_spark()),
                exp.Boolean(this=ext.strict),
                exp.Literal.string(self.time_zone),
                exp.column(exp.to_identifier(FILE_COLUMN, quoted=True)),
                exp.Literal.string(ext.path_text),  # the path as written, for errors
            ],
        )


def duckdb_type(target: SparkType) -> exp.DataType:
    """The DuckDB type of an extraction's result."""
    if target == VARIANT:
        return exp.DataType.build("STRUCT(metadata BLOB, value BLOB)", dialect="duckdb")
    if isinstance(target, ArrayType):
        return exp.DataType(this=exp.DataType.Type.ARRAY, expressions=[duckdb_type(target.element)], nested=True)
    if isinstance(target, MapType):
        return exp.DataType(
            this=exp.DataType.Type.MAP, expressions=[duckdb_type(target.key), duckdb_type(target.value)], nested=True
        )
    if isinstance(target, StructType):
        fields = [exp.ColumnDef(this=exp.to_identifier(f.name, quoted=True), kind=duckdb_type(f.type)) for f in target.fields]
        return exp.DataType(this=exp.DataType.Type.STRUCT, expressions=fields, nested=True)
    sql_type = target.to_sql_type()
    if sql_type is None:
        raise OptimizeError(f"vpush cannot compute a variant cast to {target.to_spark()} yet")
    return sql_type


def function_name(target: SparkType, *, once: bool = False) -> str:
    """The engine function extracting and casting to ``target`` (one per target type); with
    ``once``, the one for casts that cannot fail (:data:`ONCE_FUNCTION_PREFIX`)."""
    text = target.to_spark()
    # ASCII only: the engine folds the case of ASCII letters alone in function names, and the
    # generated SQL spells them in upper case (a field named é would call _É_).
    slug = "".join(c if c.isascii() and c.isalnum() else "_" for c in text).strip("_")
    if not slug.replace("_", "").isalnum() or len(slug) > 40:
        slug = hashlib.sha1(text.encode()).hexdigest()[:12]
    elif "<" in text:
        # Field names may hold underscores, so two nested types can share a slug: the text's
        # hash tells them apart (the engine creates a function once per name).
        slug += "_" + hashlib.sha1(text.encode()).hexdigest()[:8]
    return (ONCE_FUNCTION_PREFIX if once else FUNCTION_PREFIX) + slug


def evaluated_once(expression: exp.Expr) -> bool:
    """Whether ``expression`` calls an extraction function that the engine computes once per row."""
    return any(
        isinstance(call, exp.Anonymous) and call.name.lower().startswith(ONCE_FUNCTION_PREFIX)
        for call in expression.find_all(exp.Anonymous)
    )


def may_fail(expression: exp.Expr) -> bool:
    """Whether ``expression`` (an extraction as one part computes it) may raise a failed cast: it
    calls a strict extraction function, or DuckDB's ``error`` (:func:`_checked`). Its SQL casts
    of typed leaves cannot fail (:func:`_exact_cast`, or checked bounds)."""
    for node in expression.walk():
        name = node.name.lower() if isinstance(node, exp.Anonymous) else ""
        if name == "error" or (name.startswith(FUNCTION_PREFIX) and not name.startswith(ONCE_FUNCTION_PREFIX)):
            return True
    return False


def _exact_cast(leaf: PrimitiveLayout, target: SparkType) -> bool:
    """Whether every value of the leaf casts to ``target`` with Spark's result, never failing, by
    a plain SQL cast (the leaf's own type, and widenings that keep every value)."""
    vt = leaf.variant_type
    if isinstance(target, StringType):
        return vt == VariantType.STRING and target.collation is None
    if isinstance(target, DecimalType):
        if vt in _DECIMALS and leaf.precision is not None and leaf.scale is not None:
            return target.scale >= leaf.scale and target.precision - target.scale >= leaf.precision - leaf.scale
        digits = _INT_DIGITS.get(vt)
        return digits is not None and target.precision - target.scale >= digits
    if not isinstance(target, AtomicType):
        return False
    name = target.name
    if _SAME_TYPE.get(vt) == name:
        return True
    if vt in _VARIANT_INT_RANK:
        if name in _INT_RANK:
            return _INT_RANK[name] >= _VARIANT_INT_RANK[vt]
        return name == "double"  # Spark and DuckDB both round a long to the nearest double
    if vt == VariantType.FLOAT:
        return name == "double"
    if vt in _DECIMALS and name == "double":
        # under 10**15 units (< 2**53) and at most 15 places, DuckDB's cast is one IEEE division
        # of exact doubles: the correctly rounded value, as Spark's Decimal.toDouble gives it
        return leaf.precision is not None and leaf.precision <= 15
    if vt == VariantType.DATE:
        return name == "timestamp_ntz"
    return False


def _range_checked(leaf: PrimitiveLayout, target: SparkType) -> tuple[int, int] | None:
    """The inclusive range an integer leaf's values must lie in to cast to ``target`` (a
    narrower integer, a decimal with fewer integer digits, ...), where Spark's cast and SQL's
    agree on every value inside it; None where that does not apply."""
    rank = _VARIANT_INT_RANK.get(leaf.variant_type)
    if rank is None:
        return None
    if isinstance(target, DecimalType):
        limit = 10 ** (target.precision - target.scale) - 1
        return (-limit, limit)
    if isinstance(target, AtomicType) and target.name in _INT_RANK and _INT_RANK[target.name] < rank:
        bits = _TRUNCATED_TARGETS[target.name]
        return (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    return None


# The targets a typed decimal leaf is truncated to (their bits), see :func:`_truncated_decimal`.
_TRUNCATED_TARGETS = {"tinyint": 8, "smallint": 16, "int": 32}


def _truncated_decimal(leaf: PrimitiveLayout, target: SparkType) -> tuple[int, int] | None:
    """The range a decimal leaf's values, truncated toward zero, must lie in to cast to a
    ``tinyint``, ``smallint`` or ``int`` as Spark casts a typed leaf; None where that does not apply.

    Spark reads a decimal column of at most 18 digits as a compact ``Decimal`` (a long and a
    scale), whose ``roundToInt`` truncates the long exactly (99999999.9999999999 is 99999999);
    a variant's decimal, in a residual or unshredded, is a ``Decimal`` of a ``BigDecimal``, which
    goes through a double (100000000): the codec's functions give the latter.
    """
    if leaf.variant_type not in _DECIMALS or leaf.precision is None or leaf.precision > 18 or leaf.scale is None:
        return None
    if not isinstance(target, AtomicType) or target.name not in _TRUNCATED_TARGETS:
        return None
    bits = _TRUNCATED_TARGETS[target.name]
    return (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def _checked(
    builder: _Builder,
    ext: Extraction,
    typed: exp.Expression,
    cast: exp.Expression,
    bounds: tuple[int, int],
    tested: exp.Expression | None = None,
) -> exp.Expression:
    """``cast`` where ``tested`` (by default ``typed``) lies in ``bounds``; outside them NULL
    (``try_``) or Spark's ``INVALID_VARIANT_CAST`` naming ``typed`` (raised through DuckDB's
    ``error``, which the engine turns back into a vpush error naming the file)."""
    tested = typed if tested is None else tested
    inside = exp.Between(this=tested.copy(), low=exp.Literal.number(bounds[0]), high=exp.Literal.number(bounds[1]))
    if ext.strict:
        builder.uses_file = True
        message = exp.DPipe(
            this=exp.DPipe(
                this=exp.Literal.string(f"{CAST_ERROR_MARKER}|{ext.target.to_spark()}|"),
                expression=exp.cast(typed.copy(), exp.DataType.build("VARCHAR")),
            ),
            expression=exp.DPipe(
                this=exp.Literal.string("|"), expression=exp.column(exp.to_identifier(FILE_COLUMN, quoted=True))
            ),
        )
        outside: exp.Expression = exp.cast(exp.Anonymous(this="error", expressions=[message]), cast.args["to"].copy())
    else:
        outside = exp.cast(exp.Null(), cast.args["to"].copy())
    return exp.Case(
        ifs=[
            exp.If(this=exp.Is(this=typed.copy(), expression=exp.Null()), true=exp.cast(exp.Null(), cast.args["to"].copy())),
            exp.If(this=inside, true=cast),
        ],
        default=outside,
    )


def _field_names(column: str, level: Sequence[str]) -> tuple[str, ...]:
    return (column, *(part for name in level for part in ("typed_value", name)))


def _extraction_sql(builder: _Builder, layout: VariantLayout, column: str, ext: Extraction) -> exp.Expression:
    """The expression computing ``ext`` from one file whose column ``column`` has ``layout``."""
    target_type = duckdb_type(ext.target)
    if layout.draft or layout.metadata is None:
        # The draft layout: the codec rebuilds the whole variant (no per-leaf reads).
        whole = builder.level(column, ())
        return builder.call(ext, _field(whole, "metadata"), _field(whole, "value"), ext.segments)
    node: ValueLayout = layout
    depth = 0
    for seg in ext.segments:
        typed = node.typed_value
        if not isinstance(seg, str) or not isinstance(typed, ObjectLayout) or typed.field(seg) is None:
            break
        found = typed.field(seg)
        assert found is not None
        node = found
        depth += 1
    level = tuple(str(s) for s in ext.segments[:depth])
    rest = ext.segments[depth:]
    names = _field_names(column, level)
    metadata_names = (column, "metadata")
    typed = node.typed_value
    if (
        ext.residual_of is not None and not rest and isinstance(typed, PrimitiveLayout)
        and _exact_cast(typed, ext.residual_of)
    ):
        # Only the rows whose typed leaf is NULL reach this: their variant is the `value` leaf.
        if node.value is None or builder.all_null(".".join((*names, node.value_field))):
            return exp.cast(exp.Null(), target_type)
        value = builder.leaf((*names, node.value_field))
        metadata = builder.leaf(metadata_names)
        builder.values[value.name] = metadata.name
        builder.uses_file = True
        pair = exp.Struct(expressions=[
            exp.PropertyEQ(this=exp.to_identifier("metadata"), expression=metadata),
            exp.PropertyEQ(this=exp.to_identifier("value"), expression=value.copy()),
        ])
        return exp.Case(ifs=[exp.If(this=exp.Not(this=exp.Is(this=value, expression=exp.Null())), true=exp.cast(pair, target_type))])
    if not rest and isinstance(typed, PrimitiveLayout) and ext.target != VARIANT and _cast_in_sql(typed, ext):
        cast = _typed_leaf_cast(builder, ext, typed, builder.leaf((*names, node.typed_field)), target_type)
        if node.value is None or builder.all_null(".".join((*names, node.value_field))):
            return cast
        value = builder.leaf((*names, node.value_field))
        metadata = builder.leaf(metadata_names)
        builder.values[value.name] = metadata.name
        fallback = builder.call(ext, metadata, value.copy(), ())
        return exp.Case(ifs=[exp.If(this=exp.Is(this=value, expression=exp.Null()), true=cast)], default=fallback)
    element_leaf = _element_leaf(typed, rest) if rest and isinstance(rest[0], int) and isinstance(typed, ArrayLayout) else None
    if element_leaf is not None and ext.target != VARIANT and _cast_in_sql(element_leaf, ext):
        # an element of a typed array (`$.tags[0]`, `$.items[1].sku`) read from the list leaf
        # where the path ends at a typed leaf the target casts from in SQL, not rebuilt whole
        assert isinstance(typed, ArrayLayout) and isinstance(rest[0], int)
        metadata = builder.leaf(metadata_names)
        items = builder.leaf((*names, node.typed_field))
        element = exp.Anonymous(this="list_extract", expressions=[items, exp.Literal.number(rest[0] + 1)])
        within = _element_sql(builder, ext, metadata, typed.element, element, rest[1:], target_type)
        return _list_or_residual(builder, ext, node, names, items, within, metadata_names, rest)
    if rest and isinstance(rest[0], int) and isinstance(typed, ArrayLayout):
        # an element of a typed array whose target the list leaf does not give in SQL (a
        # variant, a cast only the codec's function computes): that element alone rebuilt by
        # the codec, as a shredded field is, then the rest of the path; not the whole array
        depth = _element_depth(builder, typed, rest)
        rebuilt = builder.level(column, (*level, *rest[:depth]))
        leftover = rest[depth:]
        at_path: exp.Expression = rebuilt
        if leftover or ext.target != VARIANT:
            at_path = builder.call(ext, _field(rebuilt, "metadata"), _field(rebuilt, "value"), leftover)
        elif ext.residual_of is not None:
            builder.uses_file = True  # the strict cast of these rows names the file in its error
        return _list_or_residual(builder, ext, node, names, rebuilt, at_path, metadata_names, rest)
    if not rest and isinstance(typed, ArrayLayout) and _typed_list_cast(typed, ext.target):
        # a typed array of primitives to an array of a type each typed element casts to exactly:
        # the list leaf's elements, each residual one (where the footers do not prove there are
        # none) cast by the codec's function as Spark casts an array's element; not rebuilt whole
        items = builder.leaf((*names, node.typed_field))
        assert isinstance(ext.target, ArrayType)
        each = exp.to_identifier("x")
        one = _field(exp.column(each), typed.element.typed_field)
        if typed.element.value is not None and not builder.all_null(typed.element.value):
            metadata = builder.leaf(metadata_names)
            builder.kept_metadata.add(metadata.name)
            residual = _field(exp.column(each), typed.element.value_field)
            cast_alone = dataclasses.replace(ext, target=ext.target.element)
            one = exp.Case(
                ifs=[exp.If(this=exp.Is(this=residual.copy(), expression=exp.Null()),
                            true=exp.cast(one, duckdb_type(ext.target.element)))],
                default=builder.call(cast_alone, metadata, residual, ()),
            )
        listed = exp.cast(
            exp.Anonymous(this="list_transform", expressions=[items, exp.Lambda(this=one, expressions=[each.copy()])]),
            target_type,
        )
        return _list_or_residual(builder, ext, node, names, items, listed, metadata_names, ())
    needs_level = (not rest and typed is not None) or (
        bool(rest) and isinstance(rest[0], int) and isinstance(typed, ArrayLayout)
    )
    if needs_level:
        rebuilt = builder.level(column, level)
        if not rest and ext.target == VARIANT:
            return rebuilt
        return builder.call(ext, _field(rebuilt, "metadata"), _field(rebuilt, "value"), rest)
    if node.value is None or builder.all_null(".".join((*names, node.value_field))):
        return exp.cast(exp.Null(), target_type)  # only typed rows, which the rest cannot match
    value = builder.leaf((*names, node.value_field))
    metadata = builder.leaf(metadata_names)
    builder.values[value.name] = metadata.name
    return builder.call(ext, metadata, value, rest)


def _list_or_residual(
    builder: _Builder,
    ext: Extraction,
    node: ValueLayout,
    names: tuple[str, ...],
    items: exp.Expression,
    typed: exp.Expression,
    metadata_names: tuple[str, ...],
    rest: Sequence[str | int],
) -> exp.Expression:
    """``typed`` (computed from ``items``: the typed list of the level ``node`` at ``names``, or
    an element of it rebuilt, NULL past the list's end) where ``items`` is not NULL, else the
    level's residual ``value`` through the codec's function for ``rest``; ``typed`` alone where
    the footers prove the residual all-null. The spec never has both a typed list and a
    ``value`` at one level, so a NULL element of a typed list meets a NULL ``value``."""
    if node.value is None or builder.all_null(".".join((*names, node.value_field))):
        return typed
    reader = builder.leaf(metadata_names)
    value = builder.leaf((*names, node.value_field))
    builder.values[value.name] = reader.name
    return exp.Case(ifs=[exp.If(this=exp.Not(this=exp.Is(this=items.copy(), expression=exp.Null())), true=typed),
                         exp.If(this=exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())),
                                true=builder.call(ext, reader, value.copy(), rest))])


def _cast_in_sql(leaf: PrimitiveLayout, ext: Extraction) -> bool:
    """Whether SQL casts a typed leaf of ``leaf``'s layout to the extraction's target as Spark
    casts a typed leaf: the leaf's own type and widenings, a range check (an integer to a
    narrower one), a decimal of at most 18 digits truncated to a small integer
    (:func:`_truncated_decimal`)."""
    return (
        _exact_cast(leaf, ext.target)
        or _range_checked(leaf, ext.target) is not None
        or (not ext.casts_a_path and _truncated_decimal(leaf, ext.target) is not None)
    )


def _typed_leaf_cast(
    builder: _Builder, ext: Extraction, leaf: PrimitiveLayout, typed: exp.Expression, target_type: exp.DataType
) -> exp.Expression:
    """``typed`` (a typed leaf's values, of ``leaf``'s layout) cast to the extraction's target in
    SQL, where :func:`_cast_in_sql` holds: outside a range, NULL (``try_``) or Spark's error."""
    cast: exp.Expression = exp.cast(typed.copy(), target_type)
    if _exact_cast(leaf, ext.target):
        return cast
    bounds = _range_checked(leaf, ext.target)
    if bounds is not None:
        return _checked(builder, ext, typed, cast, bounds)
    truncated = _truncated_decimal(leaf, ext.target)
    assert truncated is not None and not ext.casts_a_path  # by _cast_in_sql
    toward_zero = exp.Anonymous(this="trunc", expressions=[typed.copy()])
    return _checked(builder, ext, typed, exp.cast(toward_zero.copy(), target_type), truncated, tested=toward_zero)


def _typed_list_cast(array: ArrayLayout, target: SparkType) -> bool:
    """Whether a typed array of primitives casts to ``target`` (an array) element by element in
    SQL: each typed element exactly (an element with both parts NULL is NULL in the array, as a
    Variant null is in Spark), each residual one by the codec's function for the element type."""
    leaf = array.element.typed_value
    return (
        isinstance(target, ArrayType)
        and isinstance(leaf, PrimitiveLayout)
        and _exact_cast(leaf, target.element)
        and supported_target(target.element)
    )


def _element_leaf(array: ArrayLayout, rest: Sequence[str | int]) -> PrimitiveLayout | None:
    """The typed leaf the path ``rest`` (an index first) ends at inside the typed array
    ``array``, through typed elements and object fields (none alike but for case: DuckDB's
    struct names ignore case; none named '': DuckDB's ``struct_extract`` takes no empty name), or
    None where it leaves the shredded part (the element is then rebuilt alone)."""
    layout = array.element
    for segment in rest[1:]:
        shape = layout.typed_value
        if isinstance(segment, int) and isinstance(shape, ArrayLayout):
            layout = shape.element
        elif isinstance(segment, str) and isinstance(shape, ObjectLayout) and shape.field(segment) is not None:
            if len({n.lower() for n in shape.names}) != len(shape.names) or not segment:
                return None
            found = shape.field(segment)
            assert found is not None
            layout = found
        else:
            return None
    return layout.typed_value if isinstance(layout.typed_value, PrimitiveLayout) else None


def _element_depth(builder: _Builder, array: ArrayLayout, rest: Sequence[str | int]) -> int:
    """How many steps of ``rest`` (an index into the typed array ``array`` first) the scan takes
    through typed elements and object fields before it rebuilds the level it reached: it stops
    at a level whose ``value`` the footers do not prove all-null (a residual there may hold the
    rest of the path, which the rebuilt level merges), and where the path leaves the shredded
    part. A level passed whose ``typed_value`` is NULL in a row is missing or a Variant null
    there, and so is every path below it."""
    layout = array.element
    depth = 1
    for segment in rest[1:]:
        if layout.value is not None and not builder.all_null(layout.value):
            break
        shape = layout.typed_value
        if isinstance(segment, int) and isinstance(shape, ArrayLayout):
            layout = shape.element
        elif isinstance(segment, str) and isinstance(shape, ObjectLayout) and shape.field(segment) is not None:
            found = shape.field(segment)
            assert found is not None
            layout = found
        else:
            break
        depth += 1
    return depth


def _element_sql(
    builder: _Builder,
    ext: Extraction,
    metadata: exp.Expression,
    layout: ValueLayout,
    level: exp.Expression,
    tail: Sequence[str | int],
    target_type: exp.DataType,
) -> exp.Expression:
    """The path ``tail`` taken in ``level`` (a ``struct<value, typed_value>`` of ``layout``: an
    element of a typed list, or an object field inside one) and cast; :func:`_element_leaf`
    has found that it ends at a typed leaf. A level's typed part is read where it is not NULL,
    else its ``value`` (a residual) through the codec's function for the rest of the path; an
    element past the list's end, a missing field, and a Variant null (both parts NULL) are NULL."""
    value, typed = _field(level, layout.value_field), _field(level, layout.typed_field)
    shape = layout.typed_value
    if not tail:
        assert isinstance(shape, PrimitiveLayout)
        inner = _typed_leaf_cast(builder, ext, shape, typed, target_type)
    elif isinstance(tail[0], int):
        assert isinstance(shape, ArrayLayout)
        element = exp.Anonymous(this="list_extract", expressions=[typed, exp.Literal.number(tail[0] + 1)])
        inner = _element_sql(builder, ext, metadata, shape.element, element, tail[1:], target_type)
    else:
        assert isinstance(shape, ObjectLayout)
        found = shape.field(tail[0])
        assert found is not None
        inner = _element_sql(builder, ext, metadata, found, _field(typed, found.name), tail[1:], target_type)
    if layout.value is None or builder.all_null(layout.value):
        return inner
    builder.kept_metadata.add(metadata.name)
    fallback = builder.call(ext, metadata, value, tail)
    if not tail:
        return exp.Case(ifs=[exp.If(this=exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())), true=fallback)],
                        default=inner)
    return exp.Case(ifs=[exp.If(this=exp.Not(this=exp.Is(this=typed.copy(), expression=exp.Null())), true=inner),
                         exp.If(this=exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())), true=fallback)])


def _field(struct: exp.Expr, name: str) -> exp.Expression:
    return exp.Anonymous(this="struct_extract", expressions=[struct.copy(), exp.Literal.string(name)])


def _lookup(mapping: Mapping[str, object], name: str) -> str | None:
    if name in mapping:
        return name
    lowered = name.lower()
    return next((k for k in mapping if k.lower() == lowered), None)


def file_part(
    info: FileInfo, extractions: Sequence[Extraction], time_zone: str, row_groups: Sequence[int] | None = None
) -> tuple[_Builder, list[exp.Expression]]:
    """The inputs and the extraction expressions for one file, read in ``row_groups`` (by
    default all): a ``value`` column that the footer proves all-null in each of them is left out."""
    builder = _Builder(time_zone, all_null=_all_null_in(info, row_groups))
    out: list[exp.Expression] = []
    for ext in extractions:
        key = _lookup(info.variant_columns, ext.column.name)
        if key is None:
            present = _lookup({f.name: None for f in info.arrow_schema}, ext.column.name)
            if present is not None:
                raise OptimizeError(
                    f"column {present} is not a variant in this file; variant_get needs a variant",
                    file=info.path,
                    column_path=present,
                    error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                )
            out.append(exp.cast(exp.Null(), duckdb_type(ext.target)))
            continue
        out.append(_extraction_sql(builder, info.variant_columns[key], key, ext))
    return builder, out


def _all_null_in(info: FileInfo, row_groups: Sequence[int] | None) -> Callable[[str], bool]:
    stats = info.statistics.row_groups
    groups = range(len(stats)) if row_groups is None else row_groups

    def all_null(path: str) -> bool:
        for rg in groups:
            column = stats[rg].column(path) if rg < len(stats) else None
            if column is None or not column.holds_no_value:  # (a list element's `value` too)
                return False
        return True

    return all_null


_NATIVE_TYPES = frozenset(
    {
        VariantType.BOOLEAN, VariantType.INT8, VariantType.INT16, VariantType.INT32, VariantType.INT64,
        VariantType.DECIMAL4, VariantType.DECIMAL8, VariantType.DECIMAL16, VariantType.DATE,
        VariantType.TIMESTAMP, VariantType.TIMESTAMP_NTZ, VariantType.STRING,
    }
)
"""Leaf types whose DuckDB VARIANT value cast to the leaf's own type is the leaf's value.

Not FLOAT or DOUBLE: pyarrow (and so vpush's writer) leaves NaN out of a chunk's min/max, and
DuckDB's reader trusts those bounds, folding ``x > 5`` to FALSE over a chunk whose bounds are
[1, 3]: a NaN row, which Spark keeps (NaN is above every number), would be lost."""
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def native_leaves(
    info: FileInfo, builder: _Builder, file: FileScan, base_schema: pa.Schema
) -> tuple[NativeLeaf, ...] | None:
    """The inputs of one file as :class:`NativeLeaf` s, when DuckDB's own reading of the file
    gives each exactly; else None.

    That holds when the file has no partition values and reads no whole variant, and every input
    is a primitive ``typed_value`` leaf (of a type in :data:`_NATIVE_TYPES`) of an annotated
    column in the final layout, reached through plainly named object fields (no two siblings
    alike but for case), whose own ``value`` and every enclosing level's ``value`` the footers
    prove all-null in every row group of the file: no row then holds the field, or a key that
    could shadow it, anywhere but in the leaf.
    """
    if file.partition_values or file.variant_columns or builder.uses_file or not builder.inputs:
        return None
    if any(f.type.equals(VARIANT_ARROW_TYPE) for f in base_schema):
        return None
    if any(f.name.lower() in info.int96_columns for f in base_schema):
        return None  # DuckDB reads INT96 as a timestamp without a zone; Spark as an instant
    all_null = _all_null_in(info, None)
    out: list[NativeLeaf] = []
    for item in builder.inputs.values():
        if not isinstance(item, LeafInput):
            return None
        names = item.names
        if len(names) < 3 or names[-1] != "typed_value" or any(n != "typed_value" for n in names[1::2]):
            return None
        column, keys = names[0], tuple(names[2::2])
        layout = info.variant_columns.get(column)
        if layout is None or layout.draft or not layout.annotated or layout.metadata is None:
            return None
        node: ValueLayout = layout
        for key in keys:
            if node.value is not None and not all_null(node.value):
                return None
            typed = node.typed_value
            if not isinstance(typed, ObjectLayout) or not _PLAIN_KEY.fullmatch(key):
                return None
            if len({n.lower() for n in typed.names}) != len(typed.names):
                return None
            found = typed.field(key)
            if found is None:
                return None
            node = found
        leaf = node.typed_value
        if not isinstance(leaf, PrimitiveLayout) or leaf.variant_type not in _NATIVE_TYPES:
            return None
        if node.value is not None and not all_null(node.value):
            return None
        out.append(NativeLeaf(item.name, column, keys))
    return tuple(out)


def leaf_type(schema: pa.Schema, names: Sequence[str]) -> pa.DataType:
    """The Arrow type of the nested field at ``names`` in a file's Arrow schema."""
    t: pa.DataType = schema.field(names[0]).type
    for name in names[1:]:
        if not pa.types.is_struct(t):
            raise OptimizeError(f"no column {'.'.join(names)} in the file's schema")
        t = t.field(name).type
    return t


STRING_LEAF_TYPE = pa.dictionary(pa.int32(), pa.string())
"""How a scan reads a string leaf: as a dictionary, as Parquet stores it, which is several times
faster to read than plain strings and which DuckDB takes as it is."""


def input_leaf_type(file_type: pa.DataType) -> pa.DataType:
    """The Arrow type a scan part reads a leaf of ``file_type`` as (:data:`STRING_LEAF_TYPE` for a
    string)."""
    return STRING_LEAF_TYPE if pa.types.is_string(file_type) else file_type


def unread_inputs(builder: _Builder, info: FileInfo, row_groups: Sequence[int]) -> dict[int, frozenset[str]]:
    """Per row group, the value inputs that the footer proves all-null there, and the metadata
    when no value of its column is read (a rebuilt level reads its own metadata)."""
    out: dict[int, frozenset[str]] = {}
    stats = info.statistics.row_groups
    for rg in row_groups:
        unread = set()
        for value in builder.values:
            leaf = builder.inputs[value]
            assert isinstance(leaf, LeafInput)  # a value input is a leaf's
            column = stats[rg].column(leaf.path) if rg < len(stats) else None
            if column is not None and column.all_null:
                unread.add(value)
        read_metadata = {m for v, m in builder.values.items() if v not in unread} | builder.kept_metadata
        unread |= set(builder.values.values()) - read_metadata
        if unread:
            out[rg] = frozenset(unread)
    return out


def _file_signature(info: FileInfo, file: FileScan) -> object:
    """What :func:`file_part` and :func:`native_leaves` depend on in a file: its kind (schema,
    variant layouts, which ``value`` columns are all-null in all row groups), which ``value``
    columns are all-null in the row groups read, and whether it has partition values or reads a
    whole variant."""
    return (
        info.kind,
        tuple(groups.issuperset(file.row_groups) for groups in info.all_null_row_groups),
        bool(file.partition_values),
        tuple(sorted(file.variant_columns)),
        not file.row_groups,
    )


def make_parts(
    scan_name: str,
    files: Sequence[FileScan],
    infos: Sequence[FileInfo],
    extractions: Sequence[Extraction],
    base_schema: pa.Schema,
    time_zone: str,
) -> tuple[list[ScanPart], list[list[exp.Expression]]]:
    """Group the files by the inputs and expressions the extractions need in them: one
    :class:`ScanPart` per group, with its expressions (one per extraction, in order)."""
    groups: dict[
        tuple[object, ...],
        tuple[list[FileScan], list[Input], pa.Schema, list[exp.Expression], tuple[NativeLeaf, ...] | None],
    ] = {}
    # Files alike in schema, layouts and which value columns are all-null get the same part:
    # build it once per kind of file (a table's files are mostly alike).
    built: dict[object, tuple[_Builder, list[exp.Expression], pa.Schema, tuple[NativeLeaf, ...] | None, tuple[object, ...]]] = {}
    for file, info in zip(files, infos):
        signature = _file_signature(info, file)
        if signature in built:
            builder, expressions, schema, native, key = built[signature]
            scan = dataclasses.replace(
                file, input_layouts=info.variant_columns, unread=unread_inputs(builder, info, file.row_groups)
            )
            if key not in groups:
                groups[key] = ([], list(builder.inputs.values()), schema, expressions, native)
            groups[key][0].append(scan)
            continue
        builder, expressions = file_part(info, extractions, time_zone, file.row_groups)
        fields = list(base_schema)
        taken = {f.name.lower() for f in fields}
        for name, item in builder.inputs.items():
            if name.lower() in taken:
                raise OptimizeError(f"the table has a column named {name!r}, which vpush uses for a variant leaf")
            if isinstance(item, LeafInput):
                fields.append(pa.field(name, input_leaf_type(leaf_type(info.arrow_schema, item.names))))
            else:
                fields.append(pa.field(name, VARIANT_ARROW_TYPE))
        if builder.uses_file:
            fields.append(pa.field(FILE_COLUMN, pa.dictionary(pa.int32(), pa.string())))
        schema = pa.schema(fields)
        native = native_leaves(info, builder, file, base_schema)
        key = (
            tuple((f.name, str(f.type)) for f in schema),
            tuple(e.sql(dialect="duckdb") for e in expressions),
            native,
        )
        built[signature] = (builder, expressions, schema, native, key)
        scan = dataclasses.replace(
            file, input_layouts=info.variant_columns, unread=unread_inputs(builder, info, file.row_groups)
        )
        if key not in groups:
            groups[key] = ([], list(builder.inputs.values()), schema, expressions, native)
        groups[key][0].append(scan)
    parts: list[ScanPart] = []
    part_expressions: list[list[exp.Expression]] = []
    for i, (group_files, inputs, schema, expressions, native) in enumerate(groups.values()):
        parts.append(ScanPart(f"{scan_name}_{i}", tuple(group_files), tuple(inputs), schema, native))
        part_expressions.append(expressions)
    if not parts:
        # No file at all: one empty part, whose extractions are typed NULLs.
        parts.append(ScanPart(f"{scan_name}_0", (), (), base_schema))
        part_expressions.append([exp.cast(exp.Null(), duckdb_type(e.target)) for e in extractions])
    return parts, part_expressions


def scan_relation(
    parts: Sequence[ScanPart],
    part_expressions: Sequence[Sequence[exp.Expression]],
    columns: Sequence[str],
    output_names: Sequence[str],
    filtered: Collection[str] = (),
    in_scan: Collection[str] = (),
) -> exp.Query:
    """``SELECT columns, extraction AS name ... FROM part0 UNION ALL ...``: the scan as one relation.

    DuckDB pushes a filter on an extraction below the projection that computes it by copying
    the expression, and so computes it twice: in the filter, and again in the projection for the
    rows that pass. An extraction that calls a function computed once per row
    (:data:`ONCE_FUNCTION_PREFIX`, volatile to DuckDB) stops that: a filter on it stays above
    its projection. Each such extraction gets a projection of its own, nested, those the query
    filters on (``filtered``, by output name) innermost, so that a filter on one still runs
    before the others are computed, and filters on anything else still reach the scan.

    The extractions named in ``in_scan`` (:attr:`Extraction.computed_in_scan`, as Spark computes
    them) are computed first, for every row the part reads, below an ``OFFSET 0`` that no
    filter is pushed through: a row that no filter keeps still makes a failing cast raise.
    """
    branches: list[exp.Query] = []
    inner_first = [n for n in output_names if n in filtered] + [n for n in output_names if n not in filtered]
    for part, expressions in zip(parts, part_expressions):
        by_name = dict(zip(output_names, expressions))
        eager = [n for n in output_names if n in in_scan and may_fail(by_name[n])]
        source: exp.Expression = exp.Table(this=exp.to_identifier(part.name, quoted=True))
        if eager:
            first = exp.select(
                exp.Star(), *(exp.alias_(by_name[n], exp.to_identifier(n, quoted=True)) for n in eager)
            ).from_(source).offset(0)
            source = exp.Subquery(this=first, alias=exp.TableAlias(this=exp.to_identifier("__vpush_in_scan", quoted=True)))
        once = [n for n in inner_first if n not in eager and evaluated_once(by_name[n])]
        for i, name in enumerate(once):
            layer = exp.select(exp.Star(), exp.alias_(by_name[name], exp.to_identifier(name, quoted=True))).from_(source)
            source = exp.Subquery(this=layer, alias=exp.TableAlias(this=exp.to_identifier(f"__vpush_once_{i}", quoted=True)))
        projections: list[exp.Expr] = [exp.column(exp.to_identifier(c, quoted=True)) for c in columns]
        projections += [
            exp.column(exp.to_identifier(n, quoted=True))
            if n in once or n in eager
            else exp.alias_(e, exp.to_identifier(n, quoted=True))
            for e, n in zip(expressions, output_names)
        ]
        branches.append(exp.select(*projections).from_(source))
    query: exp.Query = branches[0]
    for branch in branches[1:]:
        query = exp.union(query, branch, distinct=False)
    return query


def iter_scope(select: exp.Select) -> Iterator[exp.Expr]:
    """The nodes of ``select`` outside nested queries, top-down."""
    todo: list[exp.Expr] = [select]
    while todo:
        node = todo.pop()
        yield node
        for child in reversed(list(node.iter_expressions())):
            if isinstance(child, (exp.Subquery, exp.Select, exp.Union, exp.CTE, exp.With)):
                continue
            todo.append(child)


def rewrite_remaining(expression: exp.Expr, time_zone: str, functions: dict[str, SparkType]) -> exp.Expr:
    """Every extraction not placed on a scan, computed by the extraction function over the whole
    variant (``struct<metadata, value>``), and Spark's other variant functions as calls of their
    engine functions (:func:`rewrite_variant_function`). Refuses a non-literal path or type and an
    unsupported target with a clear error."""
    _name_variant_function_projections(expression)

    explodes = itertools.count()

    def visit(node: exp.Expr) -> exp.Expr:
        if isinstance(node, (exp.Lateral, exp.Table)) and isinstance(node.this, VariantExplode):
            return _explode(node, functions, lambda child: child.transform(visit), next(explodes))
        if isinstance(node, _VARIANT_FUNCTIONS) or (
            isinstance(node, (exp.Window, exp.Filter)) and isinstance(_aggregate_of(node), SchemaOfVariantAgg)
        ):
            return rewrite_variant_function(node, time_zone, functions, lambda child: child.transform(visit))
        if not isinstance(node, (VariantGet, exp.Cast)):
            return node
        matched = match_extraction(node)
        if matched is None:
            if isinstance(node, VariantGet):
                refuse_on_duckdb(node.sql(dialect=VpushSpark), "a path or type that is not a literal")
            return node
        base, segments, target, strict = matched
        base = base.transform(visit)
        if not supported_target(target):
            raise OptimizeError(
                f"{node.sql(dialect=VpushSpark)}: variant_get to {target.to_spark()} is not supported yet "
                "(see the README's status table)",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )
        name = function_name(target)
        functions[name] = target
        return exp.Anonymous(
            this=name,
            expressions=[
                _field(base, "metadata"),
                _field(base, "value"),
                exp.Literal.string(VariantPath(segments).to_spark()),
                exp.Boolean(this=strict),
                exp.Literal.string(time_zone),
                exp.Null(),
                exp.Literal.string(VariantPath(segments).to_spark()),
            ],
        )

    return expression.transform(visit)


# -- variant_explode -------------------------------------------------------------------------------
EXPLODE_COLUMNS = ("pos", "key", "value")
"""The columns of ``variant_explode``, as Spark names them."""


def _explode(
    node: exp.Lateral | exp.Table, functions: dict[str, SparkType], rewrite: Callable[[exp.Expr], exp.Expr], index: int
) -> exp.Expr:
    """``LATERAL variant_explode(v) AS alias(...)`` (or the same in FROM) as DuckDB runs it: a
    correlated subquery unnesting :data:`VARIANT_EXPLODE_FUNCTION`'s list of rows,
    ``LATERAL (SELECT u.pos AS pos, u.key AS key, u.value AS value FROM (SELECT UNNEST(...) AS u))``."""
    call = node.this
    assert isinstance(call, VariantExplode)
    functions[VARIANT_EXPLODE_FUNCTION] = _STRING  # the engine knows this function's own type
    rows = exp.Anonymous(
        this=VARIANT_EXPLODE_FUNCTION,
        expressions=[rewrite(call.this), exp.Boolean(this=isinstance(call, VariantExplodeOuter))],
    )
    unnested = exp.select(exp.alias_(exp.Explode(this=rows), "__vpush_row", copy=False), copy=False)
    select = exp.select(
        *(
            exp.alias_(exp.Anonymous(this="struct_extract", expressions=[exp.column("__vpush_row"), exp.Literal.string(c)]), c)
            for c in EXPLODE_COLUMNS
        ),
        copy=False,
    ).from_(exp.Subquery(this=unnested, alias=exp.TableAlias(this=exp.to_identifier("__vpush_rows_of"))), copy=False)
    alias = node.args.get("alias")
    if not isinstance(alias, exp.TableAlias):
        alias = exp.TableAlias(this=exp.to_identifier(f"__vpush_explode_{index}"))
    if isinstance(node, exp.Table):
        return exp.Subquery(this=select, alias=alias)
    return exp.Lateral(this=exp.Subquery(this=select), alias=alias)


# -- Spark's other variant functions ---------------------------------------------------------------
_VARIANT_FUNCTIONS = (
    exp.JSONFormat, IsVariantNull, IsValidVariant, SchemaOfVariant, SchemaOfVariantAgg, ParseJson, ToVariantObject, VariantDelete,
    VariantStripNulls, VariantSet, VariantInsert, VariantArrayAppend,
)
"""The nodes :func:`rewrite_variant_function` turns into engine functions."""
_SPARK_NAMES: dict[type[exp.Expr], str] = {
    exp.JSONFormat: "to_json",
    IsVariantNull: "is_variant_null",
    IsValidVariant: "is_valid_variant",
    SchemaOfVariant: "schema_of_variant",
    SchemaOfVariantAgg: "schema_of_variant_agg",
    ToVariantObject: "to_variant_object",
    VariantDelete: "variant_delete",
    VariantStripNulls: "variant_strip_nulls",
}
_STRING = StringType()
_BOOLEAN = AtomicType("boolean")
# Arguments that cannot be a variant: Spark's to_json of these is its JSON of a struct, an array,
# a map or a scalar, which vpush does not compute.
_NOT_VARIANT = (exp.Literal, exp.Struct, exp.Array, exp.Map, exp.VarMap, exp.Boolean, exp.Binary)


def _aggregate_of(node: exp.Expr) -> exp.Expr | None:
    """The aggregate call under a window or a FILTER (``agg(x) FILTER (...) OVER (...)``)."""
    inner = node.this
    while isinstance(inner, (exp.Window, exp.Filter)):
        inner = inner.this
    return inner


def _only_argument(node: exp.Expr) -> exp.Expr:
    argument = node.this
    if isinstance(argument, exp.Distinct) and len(argument.expressions) == 1:
        return argument.expressions[0]  # schema_of_variant_agg(DISTINCT v): the same schema
    return argument


def rewrite_variant_function(
    node: exp.Expr,
    time_zone: str,
    functions: dict[str, SparkType],
    rewrite: Callable[[exp.Expr], exp.Expr],
) -> exp.Expr:
    """The DuckDB call computing one of Spark's variant functions (``to_json``,
    ``is_variant_null``, ``is_valid_variant``, ``schema_of_variant``, ``schema_of_variant_agg``, ``parse_json``,
    ``try_parse_json``) over the variant struct; ``rewrite`` rewrites an argument first. The
    engine function's name and result type are added to ``functions``.

    ``schema_of_variant_agg(v)`` becomes
    ``vpush_schema_of_variant_merge(list(DISTINCT vpush_schema_of_variant(v)))`` (DuckDB's Python
    functions cannot aggregate), with a window or FILTER kept around the ``list``.

    Raises:
        OptimizeError: ``to_json`` with options, or of an argument that cannot be a variant.
    """
    if isinstance(node, (exp.Window, exp.Filter)):
        aggregate = _aggregate_of(node)
        assert isinstance(aggregate, SchemaOfVariantAgg)
        schemas = _schema_call(rewrite(_only_argument(aggregate)), functions)
        wrapped = node.copy()
        level = wrapped
        while True:  # the window's partitions and order, the FILTER's condition
            for key, value in list(level.args.items()):
                if key == "this":
                    continue
                if isinstance(value, exp.Expr):
                    level.set(key, rewrite(value))
                elif isinstance(value, list):
                    level.set(key, [rewrite(v) if isinstance(v, exp.Expr) else v for v in value])
            if not isinstance(level.this, (exp.Window, exp.Filter)):
                break
            level = level.this
        level.set("this", exp.Anonymous(this="list", expressions=[schemas]))
        functions[SCHEMA_MERGE_FUNCTION] = _STRING
        return exp.Anonymous(this=SCHEMA_MERGE_FUNCTION, expressions=[wrapped])
    if isinstance(node, SchemaOfVariantAgg):
        schemas = _schema_call(rewrite(_only_argument(node)), functions)
        functions[SCHEMA_MERGE_FUNCTION] = _STRING
        distinct = exp.Anonymous(this="list", expressions=[exp.Distinct(expressions=[schemas])])
        return exp.Anonymous(this=SCHEMA_MERGE_FUNCTION, expressions=[distinct])
    if isinstance(node, ToVariantObject):
        return _to_variant_object(node, functions, rewrite)
    if isinstance(node, VariantDelete):
        paths: list[exp.Expr] = []
        for path in node.expressions:
            if isinstance(path, exp.Null) or (isinstance(path, exp.Literal) and path.is_string):
                paths.append(path.copy())  # the dialect checked each literal path (INVALID_VARIANT_PATH)
            else:
                raise OptimizeError(
                    f"{node.sql(dialect=VpushSpark)}: variant_delete with a path that is not a literal is not "
                    "supported yet on the DuckDB engine (the Spark engine runs it)"
                )
        functions[VARIANT_DELETE_FUNCTION] = VARIANT
        return exp.Anonymous(this=VARIANT_DELETE_FUNCTION, expressions=[rewrite(node.this), exp.Array(expressions=paths)])
    if isinstance(node, (VariantSet, VariantInsert, VariantArrayAppend)):
        return _variant_modify(node, functions, rewrite)
    if isinstance(node, VariantStripNulls):
        flag = node.args.get("include_arrays")
        if flag is None:
            flag = exp.true()  # Spark's default
        if not isinstance(flag, (exp.Boolean, exp.Null)):
            raise OptimizeError(
                f"{node.sql(dialect=VpushSpark)}: the second parameter requires the BOOLEAN type, or a literal "
                "on the DuckDB engine",
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        functions[VARIANT_STRIP_NULLS_FUNCTION] = VARIANT
        return exp.Anonymous(this=VARIANT_STRIP_NULLS_FUNCTION, expressions=[rewrite(node.this), flag.copy()])
    if isinstance(node, ParseJson):
        functions[PARSE_JSON_FUNCTION] = VARIANT
        return exp.Anonymous(
            this=PARSE_JSON_FUNCTION, expressions=[rewrite(node.this), exp.Boolean(this=not node.SAFE)]
        )
    argument = node.this
    if isinstance(node, exp.JSONFormat):
        from vpush.optimizer.spark_semantics import ARGUMENT_TYPE

        argument_type = node.meta.get(ARGUMENT_TYPE) if node.meta else None
        if isinstance(argument_type, SparkType) and argument_type != VARIANT:
            return _to_json_of(node, argument_type, time_zone, functions, rewrite)
        if node.args.get("options") is not None or node.expressions:
            raise OptimizeError(
                f"{node.sql(dialect=VpushSpark)}: to_json with options is not supported yet on the DuckDB "
                "engine (the Spark engine runs it)",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )
    if isinstance(argument, _NOT_VARIANT) and not isinstance(argument, exp.Null):
        if isinstance(node, exp.JSONFormat):
            raise OptimizeError(
                f"{node.sql(dialect=VpushSpark)}: vpush computes to_json of a variant only (not supported "
                "yet for other types on the DuckDB engine; the Spark engine runs it)",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )
        raise OptimizeError(
            f"{node.sql(dialect=VpushSpark)}: {_SPARK_NAMES[type(node)]} takes a variant",
            error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        )
    variant = rewrite(argument)
    if isinstance(node, exp.JSONFormat):
        functions[TO_JSON_FUNCTION] = _STRING
        return exp.Anonymous(this=TO_JSON_FUNCTION, expressions=[variant, exp.Literal.string(time_zone)])
    if isinstance(node, IsVariantNull):
        functions[IS_VARIANT_NULL_FUNCTION] = _BOOLEAN
        return exp.Anonymous(this=IS_VARIANT_NULL_FUNCTION, expressions=[variant])
    if isinstance(node, IsValidVariant):
        functions[IS_VALID_VARIANT_FUNCTION] = _BOOLEAN
        return exp.Anonymous(this=IS_VALID_VARIANT_FUNCTION, expressions=[variant])
    return _schema_call(variant, functions)


_JSON_SCALARS = frozenset({"boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "date", "timestamp",
                           "timestamp_ntz"})


def _parts(spark_type: SparkType) -> Iterator[SparkType]:
    """``spark_type`` and every type inside it that a value of it holds (array elements, map
    values, struct fields; not map keys), outermost first."""
    todo = [spark_type]
    while todo:
        current = todo.pop()
        yield current
        if isinstance(current, ArrayType):
            todo.append(current.element)
        elif isinstance(current, MapType):
            todo.append(current.value)
        elif isinstance(current, StructType):
            todo.extend(f.type for f in current.fields)


def _structs(spark_type: SparkType) -> Iterator[StructType]:
    """The structs among :func:`_parts` of ``spark_type``."""
    return (part for part in _parts(spark_type) if isinstance(part, StructType))


def _json_printable(spark_type: SparkType, *, key: bool = False) -> bool:
    """Whether vpush prints values of ``spark_type`` (a map key when ``key``) as Spark's
    ``to_json`` does (:mod:`vpush.exec.format_json`): not a time, an interval, a collated string,
    or a map keyed by a binary or a nested value (Spark prints those keys as the JVM's object
    text)."""
    if isinstance(spark_type, ArrayType):
        return not key and _json_printable(spark_type.element)
    if isinstance(spark_type, MapType):
        return not key and _json_printable(spark_type.key, key=True) and _json_printable(spark_type.value)
    if isinstance(spark_type, StructType):
        return not key and all(_json_printable(f.type) for f in spark_type.fields)
    if isinstance(spark_type, StringType):
        return spark_type.collation is None
    if isinstance(spark_type, AtomicType):
        return spark_type.name in _JSON_SCALARS or (not key and spark_type.name in ("binary", "variant", "void"))
    return isinstance(spark_type, DecimalType)


def _to_json_of(
    node: exp.JSONFormat, spark_type: SparkType, time_zone: str, functions: dict[str, SparkType],
    rewrite: Callable[[exp.Expr], exp.Expr],
) -> exp.Expr:
    """``to_json(x)`` of a value that is not a variant, as the call of its engine function for
    ``x``'s type, which the Spark semantics pass recorded."""
    shown = f"to_json({node.this.sql(dialect=VpushSpark)})"
    if not isinstance(spark_type, (ArrayType, MapType, StructType)):
        raise OptimizeError(
            f'Cannot resolve "{shown}" due to data type mismatch: Input schema "{spark_type.to_sql()}" must '
            "be a struct, an array, a map or a variant.",
            error_class="DATATYPE_MISMATCH.INVALID_JSON_SCHEMA",
        )
    if not _json_printable(spark_type):
        raise OptimizeError(
            f"{shown}: to_json of {spark_type.to_spark()} is not supported yet on the DuckDB engine (a time, an "
            "interval, a collated string, or a map keyed by a binary or a nested value); the Spark engine runs it",
            error_class="VPUSH_UNSUPPORTED_FUNCTION",
        )
    for struct in _structs(spark_type):
        names = [f.name.lower() for f in struct.fields]
        if "" in names or len(set(names)) != len(names):
            raise OptimizeError(
                f"{shown}: to_json of a struct with a field named '' or names that differ only in case is not "
                "supported on the DuckDB engine (its struct names ignore case); the Spark engine runs it",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )
    name = TO_JSON_PREFIX + hashlib.sha1(spark_type.to_spark().encode()).hexdigest()[:16]
    functions[name] = spark_type
    ignore_null_fields = _to_json_options(node, shown)
    return exp.Anonymous(
        this=name, expressions=[rewrite(node.this), exp.Literal.string(time_zone), exp.Boolean(this=ignore_null_fields)]
    )


def _to_json_options(node: exp.JSONFormat, shown: str) -> bool:
    """The ``ignoreNullFields`` option of ``to_json(x, map(...))`` (Spark's keys ignore case; its
    default is true); any other option is refused rather than ignored, since most change the text."""
    options = node.args.get("options")
    if options is None and not node.expressions:
        return True
    pair: list[exp.Expr | None] = []
    if isinstance(options, exp.VarMap):
        pair = [options.args.get("keys"), options.args.get("values")]
    elif isinstance(options, exp.Anonymous) and options.name.lower() == "map":
        pair = list(options.expressions)  # map(...) as the Spark semantics pass wrote it for DuckDB
    if len(pair) == 2 and isinstance(pair[0], exp.Array) and isinstance(pair[1], exp.Array):
        keys, values = pair[0].expressions, pair[1].expressions
        texts = [(k.name.lower(), v.name.lower()) for k, v in zip(keys, values)
                 if isinstance(k, exp.Literal) and k.is_string and isinstance(v, exp.Literal) and v.is_string]
        if len(texts) == len(keys) and all(k == "ignorenullfields" and v in ("true", "false") for k, v in texts):
            return texts[-1][1] == "true" if texts else True
    raise OptimizeError(
        f"{shown}: to_json with options other than ignoreNullFields 'true' or 'false' is not supported yet on the "
        "DuckDB engine (the Spark engine runs it)",
        error_class="VPUSH_UNSUPPORTED_FUNCTION",
    )


def _variant_object_input(spark_type: SparkType, *, top: bool) -> bool:
    """Whether Spark's ``to_variant_object`` takes the type (``VariantGet.checkDataType`` with
    structs and maps allowed: a struct, array or map at the top, maps keyed by strings)."""
    if isinstance(spark_type, ArrayType):
        return _variant_object_input(spark_type.element, top=False)
    if isinstance(spark_type, MapType):
        return isinstance(spark_type.key, StringType) and _variant_object_input(spark_type.value, top=False)
    if isinstance(spark_type, StructType):
        return all(_variant_object_input(f.type, top=False) for f in spark_type.fields)
    return not top and isinstance(spark_type, (AtomicType, StringType, DecimalType))


def _to_variant_object(
    node: ToVariantObject, functions: dict[str, SparkType], rewrite: Callable[[exp.Expr], exp.Expr]
) -> exp.Expression:
    """``to_variant_object(x)`` as the call of its engine function for ``x``'s type, which the
    Spark semantics pass recorded (:data:`~vpush.optimizer.spark_semantics.ARGUMENT_TYPE`)."""
    from vpush.optimizer.spark_semantics import ARGUMENT_TYPE, CAST_TO_VARIANT

    spark_type = node.meta.get(ARGUMENT_TYPE) if node.meta else None
    top = not node.meta.get(CAST_TO_VARIANT)  # a cast takes scalars: spark_semantics checked it
    shown = node.sql(dialect=VpushSpark)
    if not isinstance(spark_type, SparkType):
        raise OptimizeError(
            f"{shown}: vpush cannot tell the type of this argument, so to_variant_object of it is not "
            "supported yet on the DuckDB engine (the Spark engine runs it); give every part one type, "
            "with CAST where needed"
        )
    if not _variant_object_input(spark_type, top=top):
        raise OptimizeError(
            f'{shown}: cannot cast "{spark_type.to_sql()}" to "VARIANT"',
            error_class="DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
        )
    for part in _parts(spark_type):
        if isinstance(part, StringType) and part.collation is not None:
            raise OptimizeError(f"{shown}: collated strings are not supported yet in to_variant_object on DuckDB")
        if not isinstance(part, StructType):
            continue
        names = [f.name for f in part.fields]
        if "" in names:
            raise OptimizeError(f"{shown}: a struct field with an empty name is not supported on the DuckDB engine")
        if len({n.lower() for n in names}) != len(names):
            repeated = next((n for i, n in enumerate(names) if n in names[:i]), None)
            if repeated is not None:
                # Spark raises this for the first row it builds (none for no rows at all)
                raise OptimizeError(
                    f"{shown}: Failed to build variant because of a duplicate object key `{repeated}`",
                    error_class="VARIANT_DUPLICATE_KEY",
                )
            raise OptimizeError(
                f"{shown}: struct fields whose names differ only in case are not supported on the DuckDB "
                "engine (its struct names ignore case; the Spark engine runs it)"
            )
    name = TO_VARIANT_OBJECT_PREFIX + hashlib.sha1(spark_type.to_spark().encode()).hexdigest()[:16]
    functions[name] = spark_type
    return exp.Anonymous(this=name, expressions=[rewrite(node.this)])


def _modify_name(node: exp.Expr) -> str:
    word = {VariantSet: "variant_set", VariantInsert: "variant_insert", VariantArrayAppend: "variant_array_append"}
    base = next(w for k, w in word.items() if isinstance(node, k))
    return ("try_" if getattr(node, "SAFE", False) else "") + base


def _variant_modify(
    node: VariantSet | VariantInsert | VariantArrayAppend,
    functions: dict[str, SparkType],
    rewrite: Callable[[exp.Expr], exp.Expr],
) -> exp.Expression:
    """``variant_set``, ``variant_insert`` or ``variant_array_append`` (or a ``try_`` form) as the
    call of :data:`VARIANT_MODIFY_FUNCTION`, its value cast to a variant as Spark casts it (by the
    engine function of ``to_variant_object`` for the value's type)."""
    from vpush.optimizer.spark_semantics import ARGUMENT_TYPE

    shown = node.sql(dialect=VpushSpark)
    name = _modify_name(node)
    null_variant = exp.cast(exp.Null(), duckdb_type(VARIANT))
    path = node.args.get("path")
    create = node.args.get("create_if_missing") if isinstance(node, VariantSet) else None
    if isinstance(path, exp.Null) or isinstance(create, exp.Null) or isinstance(node.args.get("value"), exp.Null):
        return null_variant  # Spark's answer for a NULL path, value or create_if_missing
    if not (isinstance(path, exp.Literal) and path.is_string):
        raise OptimizeError(f"{shown}: {name} with a path that is not a literal is not supported yet on the DuckDB engine")
    if create is not None and not isinstance(create, exp.Boolean):
        raise OptimizeError(f"{shown}: {name} takes a literal create_if_missing on the DuckDB engine")
    value = node.args["value"]
    value_type = node.meta.get(ARGUMENT_TYPE) if node.meta else None
    if value_type == VARIANT:
        new_value = rewrite(value)
    elif isinstance(value_type, (AtomicType, StringType, DecimalType)) and (
        not isinstance(value_type, StringType) or value_type.collation is None
    ):
        cast_name = TO_VARIANT_OBJECT_PREFIX + hashlib.sha1(value_type.to_spark().encode()).hexdigest()[:16]
        functions[cast_name] = value_type
        new_value = exp.Anonymous(this=cast_name, expressions=[rewrite(value)])
    elif isinstance(value_type, StructType):
        raise OptimizeError(
            f'{shown}: cannot cast "{value_type.to_sql()}" to "VARIANT"',
            error_class="DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
        )
    else:
        raise OptimizeError(
            f"{shown}: {name} of a value of this type is not supported yet on the DuckDB engine (the Spark engine "
            "runs it); cast it to a scalar type or to variant"
        )
    mode = 0 if isinstance(node, VariantSet) else 1 if isinstance(node, VariantInsert) else 2
    functions[VARIANT_MODIFY_FUNCTION] = VARIANT
    return exp.Anonymous(
        this=VARIANT_MODIFY_FUNCTION,
        expressions=[
            rewrite(node.this),
            new_value,
            exp.Literal.number(mode),
            exp.Literal.string(path.this),
            exp.Boolean(this=create is None or bool(create.this)),
            exp.Boolean(this=not getattr(node, "SAFE", False)),
            exp.Literal.string(name),
        ],
    )


def _schema_call(variant: exp.Expr, functions: dict[str, SparkType]) -> exp.Expression:
    functions[SCHEMA_OF_VARIANT_FUNCTION] = _STRING
    return exp.Anonymous(this=SCHEMA_OF_VARIANT_FUNCTION, expressions=[variant])


def spark_function_name(node: exp.Expr, *, top: bool = True) -> str | None:
    """The column name Spark gives a projection that calls its variant functions
    (``to_json(v)``, ``is_variant_null(variant_get(v, $.a) AS a)``, ...), or None where
    :func:`~vpush.optimizer.spark_semantics.spark_name` does not know the rest of it.

    Example:
        >>> import sqlglot
        >>> query = sqlglot.parse_one("SELECT upper(to_json(v:a)), try_parse_json(s) FROM t", read=VpushSpark)
        >>> [spark_function_name(e) for e in query.expressions]
        ['upper(to_json(variant_get(v, $.a) AS a))', 'try_parse_json(s)']
    """
    from vpush.optimizer.spark_semantics import spark_name

    if isinstance(node, exp.Filter) and isinstance(node.expression, exp.Where):
        # agg(x) FILTER (WHERE c): Spark prints the condition in parentheses, as spark_name does
        inner, condition = spark_function_name(node.this), spark_function_name(node.expression.this, top=False)
        return None if inner is None or condition is None else f"{inner} FILTER (WHERE {condition})"
    proxy = node.copy()
    # Deepest first, so that an outer call is built over its rewritten arguments: as calls of
    # the lower-case names Spark prints, which spark_name knows how to write.
    for found in reversed(list(proxy.find_all(*_VARIANT_FUNCTIONS, ToVariantObject))):
        if isinstance(found, ParseJson):
            word = "try_parse_json" if found.SAFE else "parse_json"
        elif isinstance(found, (VariantSet, VariantInsert, VariantArrayAppend)):
            word = _modify_name(found)
        else:
            word = _SPARK_NAMES[type(found)]
        argument = found.this.copy()
        if isinstance(argument, exp.Distinct) and len(argument.expressions) == 1:
            # agg(DISTINCT x): a name-only stand-in, which spark_name prints as it is
            shown = spark_function_name(argument.expressions[0], top=False)
            if shown is None:
                return None
            argument = exp.column(exp.to_identifier(f"DISTINCT {shown}"))
        rest = [e.copy() for e in found.expressions] if isinstance(found, VariantDelete) else []
        if isinstance(found, (VariantSet, VariantInsert, VariantArrayAppend)):
            rest = [found.args[k].copy() for k in ("path", "value")]
            if isinstance(found, VariantSet):
                flag = found.args.get("create_if_missing")
                rest.append(flag.copy() if flag is not None else exp.true())  # Spark names the default too
        if isinstance(found, VariantStripNulls):
            flag = found.args.get("include_arrays")
            rest = [flag.copy() if flag is not None else exp.true()]  # Spark names the default too
        call = exp.Anonymous(this=word, expressions=[argument, *rest])
        if found is proxy:
            proxy = call
        else:
            found.replace(call)
    return spark_name(proxy, top=top)


def _generated_source(alias: str, inner: exp.Expr) -> exp.Expr | None:
    """The expression a projection alias was made from when vpush made it (its sqlglot text or
    ``spark_name``, before the projection's extractions became scan columns), or None for an
    alias the query gave."""
    import sqlglot

    from vpush.optimizer.spark_semantics import spark_name

    candidates = [inner]
    try:
        parsed = sqlglot.parse_one(alias, read=VpushSpark)
    except Exception:  # noqa: BLE001 - a name that is not SQL was not made from SQL
        parsed = None
    if parsed is not None:
        candidates.append(parsed)
    for candidate in candidates:
        if candidate.find(*_VARIANT_FUNCTIONS) is None:
            continue
        try:
            known = spark_name(candidate)
        except Exception:  # noqa: BLE001 - spark_name of an odd tree: not the source
            known = None
        if alias in (known, candidate.sql(dialect=VpushSpark)):
            return candidate
    return None


def _name_variant_function_projections(expression: exp.Expr) -> None:
    """Give each projection that calls Spark's variant functions the name Spark gives it,
    unless the query named it: an unnamed one would be named after the engine call."""
    for select in list(expression.find_all(exp.Select)):
        for projection in list(select.expressions):
            if isinstance(projection, (exp.Column, exp.Star)) or projection.find(*_VARIANT_FUNCTIONS) is None:
                continue
            if isinstance(projection, exp.Alias):
                source = _generated_source(projection.alias, projection.this)
                name = spark_function_name(source) if source is not None else None
                if name is not None and name != projection.alias:
                    projection.set("alias", exp.to_identifier(name, quoted=True))
                continue
            name = spark_function_name(projection) or projection.sql(dialect=VpushSpark)
            projection.replace(exp.alias_(projection.copy(), exp.to_identifier(name, quoted=True)))
