"""Spark's ``from_json(json, schema[, options])`` on the DuckDB engine.

The compiled kernel (``codec/from_json.c``) converts each text as Spark's JacksonParser does and
writes Spark's answer as JSON text in which every value already has its type's form (every struct
field present, decimals rounded, doubles with all their digits); DuckDB's cast of that JSON to the
schema's type then only reads it. The schema is a DDL literal (or ``schema_of_json`` of one), the
options a ``map`` of literals: ``mode`` PERMISSIVE (the default) or FAILFAST.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

from sqlglot import exp

from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.rewrite_variants import duckdb_type
from vpush.optimizer.variant_types import (
    ArrayType,
    AtomicType,
    DecimalType,
    MapType,
    SparkType,
    StringType,
    StructField,
    StructType,
    parse_spark_type,
)

if TYPE_CHECKING:
    from collections.abc import Callable

FROM_JSON_FUNCTION = "vpush_from_json"
"""The engine function giving Spark's answer as JSON text: ``vpush_from_json(json, schema, mode)``,
the schema as Spark prints it (:func:`from_json_schema` reads it back)."""

_ATOMIC = frozenset({"boolean", "tinyint", "smallint", "int", "bigint", "float", "double"})
_MODES = ("PERMISSIVE", "FAILFAST")


def rewrite_from_json(
    arguments: list[exp.Expr], type_of: Callable[[exp.Expr], SparkType | None], *, field: str | None = None
) -> tuple[exp.Expr, SparkType]:
    """``from_json(json, schema[, options])`` as DuckDB gives Spark's answer, and its type; with
    ``field``, the name the call's field access takes, the schema pruned to that field as
    Spark's optimizer prunes it (``OptimizeCsvJsonExprs``): a struct's fields, or the fields of
    an array's structs. The answer can differ: a field left out is skipped unread, and Jackson
    fails on a syntax error in text it skips where a field's converter would have caught it.

    Example:
        >>> call, target = rewrite_from_json([exp.column("j"), exp.Literal.string("a INT")], lambda _: StringType())
        >>> call.sql("duckdb"), target.to_spark()
        ('CAST(CAST(VPUSH_FROM_JSON(CAST(j AS TEXT), \\'struct<a:int>\\', \\'PERMISSIVE\\') AS JSON) AS STRUCT("a" INT))', 'struct<a:int>')

    Raises:
        OptimizeError: Spark's error class for a schema or a mode Spark refuses;
            ``VPUSH_UNSUPPORTED_FUNCTION`` for a form vpush does not answer on DuckDB.
    """
    text, schema = arguments[0], arguments[1]
    if not (isinstance(type_of(text), StringType) or isinstance(text, exp.Null)):
        _refuse("a first argument that is not a string")
    target = from_json_schema(_schema_text(schema, type_of))
    if field is not None:
        target = _pruned(target, field)
    mode = _mode(arguments[2] if len(arguments) > 2 else None)
    call = exp.Anonymous(
        this=FROM_JSON_FUNCTION,
        expressions=[exp.cast(text, exp.DataType.build("VARCHAR")), exp.Literal.string(target.to_spark()), exp.Literal.string(mode)],
    )
    return exp.cast(exp.cast(call, exp.DataType.build("JSON")), duckdb_type(target)), target


def from_json_schema(text: str) -> SparkType:
    """The type ``from_json`` gives for the schema ``text``: Spark's ``DataType.fromDDL`` with
    every field nullable, checked to be one the kernel converts.

    Example:
        >>> from_json_schema("a INT NOT NULL, b map<string, array<decimal(5,2)>>").to_spark()
        'struct<a:int,b:map<string,array<decimal(5,2)>>>'

    Raises:
        OptimizeError: ``DATATYPE_MISMATCH.INVALID_JSON_SCHEMA`` for a schema that is not a
            struct, an array or a map (Spark's), ``VPUSH_UNSUPPORTED_FUNCTION`` for a type the
            kernel does not convert.
    """
    parsed = parse_spark_type(text)
    if not isinstance(parsed, (StructType, ArrayType, MapType)):
        raise OptimizeError(
            f'Cannot resolve "from_json" due to data type mismatch: Input schema "{parsed.to_sql()}" must be a struct, '
            "an array, a map or a variant.",
            error_class="DATATYPE_MISMATCH.INVALID_JSON_SCHEMA",
        )
    return _nullable(parsed)


def _pruned(target: SparkType, name: str) -> SparkType:
    """``target`` holding only the field ``name`` takes (Spark resolves it ignoring case), where
    it is a struct, or an array of structs, of more than one field."""
    struct = target.element if isinstance(target, ArrayType) else target
    if not isinstance(struct, StructType) or len(struct.fields) < 2:
        return target
    found = [f for f in struct.fields if f.name == name] or [f for f in struct.fields if f.name.lower() == name.lower()]
    if len(found) != 1:
        return target
    pruned = StructType((found[0],))
    return ArrayType(pruned) if isinstance(target, ArrayType) else pruned


def _nullable(target: SparkType) -> SparkType:
    """``target`` as from_json gives it: every field nullable; refused where the kernel does not
    convert it."""
    if isinstance(target, StructType):
        names = [f.name for f in target.fields]
        if any(not n for n in names) or len({n.lower() for n in names}) < len(names):
            _refuse("a struct with a field named '' or names that differ only in case (DuckDB's struct names ignore case)")
        if any(not _encodable(n) for n in names):
            _refuse("a field name with a lone surrogate")
        return StructType(tuple(StructField(f.name, _nullable(f.type)) for f in target.fields))
    if isinstance(target, ArrayType):
        return ArrayType(_nullable(target.element))
    if isinstance(target, MapType):
        if not isinstance(target.key, StringType) or target.key.collation is not None:
            _refuse("a map keyed by other than a string")
        return MapType(target.key, _nullable(target.value))
    if isinstance(target, StringType) and target.collation is None:
        return target
    if isinstance(target, DecimalType) or (isinstance(target, AtomicType) and target.name in _ATOMIC):
        return target
    _refuse(f"a field of type {target.to_spark()} (dates, timestamps, binary, intervals, variants, collated strings)")


def _encodable(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _schema_text(schema: exp.Expr, type_of: Callable[[exp.Expr], SparkType | None]) -> str:
    """The schema argument's text: a string literal, or the literal ``schema_of_json`` computed."""
    inner = schema.this if isinstance(schema, exp.Cast) else schema
    if isinstance(inner, exp.Literal) and inner.is_string:
        return inner.name
    _refuse("a schema that is not a string literal or schema_of_json of one")


def _mode(options: exp.Expr | None) -> str:
    """The parse mode of a ``map('mode', ...)`` of literals (Spark's option names and modes
    ignore case)."""
    if options is None:
        return "PERMISSIVE"
    keys: list[exp.Expr]
    values: list[exp.Expr]
    if isinstance(options, exp.VarMap) and isinstance(options.args.get("keys"), exp.Array):
        keys, values = options.args["keys"].expressions, options.args["values"].expressions
    elif (
        isinstance(options, exp.Anonymous) and options.name.lower() == "map" and len(options.expressions) == 2
        and all(isinstance(a, exp.Array) for a in options.expressions)
    ):  # the map(...) already written for DuckDB: MAP([keys], [values])
        keys, values = options.expressions[0].expressions, options.expressions[1].expressions
    else:
        _refuse("options that are not a map(...) of string literals")
    mode = "PERMISSIVE"
    for key, value in zip(keys, values):
        if not (isinstance(key, exp.Literal) and key.is_string and isinstance(value, exp.Literal) and value.is_string):
            _refuse("options that are not a map(...) of string literals")
        if key.name.lower() != "mode":
            _refuse(f"the option {key.name!r} (only mode is answered)")
        mode = value.name.upper()
        if mode == "DROPMALFORMED":
            raise OptimizeError(
                "The function `from_json` doesn't support the DROPMALFORMED mode. Acceptable modes are PERMISSIVE and FAILFAST.",
                error_class="PARSE_MODE_UNSUPPORTED",
            )
        if mode not in _MODES:
            _refuse(f"the mode {value.name!r}")
    return mode


def _refuse(what: str) -> NoReturn:
    raise OptimizeError(
        f"from_json: the DuckDB engine does not give Spark's answer for {what} yet; the Spark engine runs it",
        error_class="VPUSH_UNSUPPORTED_FUNCTION",
    )
