"""Spark data types as ``variant_get`` and ``try_variant_get`` read their ``type`` argument.

Spark 4.3 parses that string with ``DataType.fromDDL``: first as one data type, and when that
fails, as a table schema (``'a int, b string'`` means ``struct<a:int,b:string>``); when both fail it
reports the first attempt's error. Then it rejects char/varchar anywhere in the type, and at
analysis it rejects a target that a variant cannot be cast to. The grammar, as Spark 4.3 accepts it
(keywords in any case; white space and ``--`` / ``/* */`` comments anywhere between tokens):

```
type      := ARRAY '<' type '>' | MAP '<' type ',' type '>'
           | STRUCT ( '<' [field (',' field)*] '>' | '<>' )
           | BOOLEAN | TINYINT | BYTE | SMALLINT | SHORT | INT | INTEGER | BIGINT | LONG
           | FLOAT | REAL | DOUBLE | DATE | BINARY | VARIANT | VOID
           | (DECIMAL | DEC | NUMERIC) [ '(' precision [',' scale] ')' ]      default (10, 0)
           | STRING [COLLATE name('.' name)*] | (CHAR | CHARACTER | VARCHAR) '(' n ')'
           | TIMESTAMP [ '(' p ')' ] [WITHOUT TIME ZONE | WITH LOCAL TIME ZONE]
           | TIMESTAMP_LTZ [ '(' p ')' ] | TIMESTAMP_NTZ [ '(' p ')' ]
           | TIME [ '(' p ')' ] [WITHOUT TIME ZONE]
           | INTERVAL [ YEAR [TO MONTH] | MONTH | (DAY|HOUR|MINUTE|SECOND) [TO (HOUR|MINUTE|SECOND)] ]
           | (GEOMETRY | GEOGRAPHY) '(' (srid | ANY) ')'
field     := name [':'] type [NOT NULL] [COMMENT string]
schema    := name type [NOT NULL] [COMMENT string] (',' name type ...)*     the fallback
```

Error classes, in the order Spark reports them (each measured with PySpark 4.3):

==========================================  ==================================================
``PARSE_EMPTY_STATEMENT``                   empty or blank text
``UNCLOSED_BRACKETED_COMMENT``              ``/*`` without ``*/``
``PARSE_SYNTAX_ERROR``                      ``array<int``, ``struct<a:int,>``, ``decimal(5,-1)``
``INVALID_IDENTIFIER``                      an unquoted name with ``-`` or a non-ASCII letter
``UNSUPPORTED_DATATYPE``                    ``foo``, ``int(3)``, ``decimal(5,2,1)``, ``geometry``
``INCOMPLETE_TYPE_DEFINITION.ARRAY``        bare ``array`` (likewise ``.MAP``, ``.STRUCT``)
``DATATYPE_MISSING_SIZE``                   ``char`` or ``varchar`` without a length
``DECIMAL_SCALE_EXCEEDS_PRECISION``         ``decimal(5,6)`` (checked before the precision)
``DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION`` ``decimal(39)``
``INVALID_INTERVAL_FORMAT.UNSUPPORTED_FROM_TO_EXPRESSION``  ``interval minute to hour``
``INVALID_TIMESTAMP_PRECISION``             ``timestamp(3)``: only 6, or 7..9 (nanoseconds)
``FEATURE_NOT_ENABLED``                     ``timestamp(9)``: nanosecond timestamps are off
``UNSUPPORTED_TIME_PRECISION``              ``time(10)``: 0..9 only
``UNSUPPORTED_CHAR_OR_VARCHAR_AS_STRING``   ``char(3)``, anywhere in the type
``DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION``  interval, void, geometry, geography, or a map whose
                                            key is not a string, anywhere in the type
==========================================  ==================================================

Collation names are kept as written and not checked (Spark knows ICU's locales).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import TYPE_CHECKING

from vpush.optimizer.errors import OptimizeError

if TYPE_CHECKING:
    from sqlglot import exp

MAX_DECIMAL_PRECISION = 38
"""Spark's ``DecimalType.MAX_PRECISION``."""
DEFAULT_DECIMAL_PRECISION = 10
"""``decimal`` without arguments is ``decimal(10,0)`` in Spark (DuckDB's bare DECIMAL is (18,3))."""
MICROS_TIMESTAMP_PRECISION = 6
"""The only timestamp precision Spark 4.3 accepts while nanosecond timestamps are disabled."""
MAX_TIME_PRECISION = 9

_ATOMIC_NAMES = {
    "boolean": "boolean",
    "tinyint": "tinyint",
    "byte": "tinyint",
    "smallint": "smallint",
    "short": "smallint",
    "int": "int",
    "integer": "int",
    "bigint": "bigint",
    "long": "bigint",
    "float": "float",
    "real": "float",
    "double": "double",
    "date": "date",
    "binary": "binary",
    "variant": "variant",
    "timestamp_ltz": "timestamp",
    "timestamp_ntz": "timestamp_ntz",
}
_DECIMAL_NAMES = frozenset({"decimal", "dec", "numeric"})
_DAY_TIME_UNITS = ("day", "hour", "minute", "second")
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_WORD = re.compile(r"[A-Za-z0-9_]+")
_SPACE = re.compile(r"\s+")


@dataclasses.dataclass(frozen=True)
class SparkType:
    """A Spark data type that a variant can be cast to. Compare instances with ``==``."""

    def to_spark(self) -> str:
        """DDL text that Spark parses back to this type: lower-case, no spaces."""
        raise NotImplementedError

    def to_sql(self) -> str:
        """This type as Spark writes it in error messages and in an expression's text
        (``DataType.sql``): upper case, a struct's field names as written (quoted where they are
        not plain) with ``NOT NULL`` after a field never NULL.

        Example:
            >>> ArrayType(StructType((StructField("a b", MapType(AtomicType("int"), StringType())),
            ...                       StructField("Xy", DecimalType(10, 2), nullable=False)))).to_sql()
            'ARRAY<STRUCT<`a b`: MAP<INT, STRING>, Xy: DECIMAL(10,2) NOT NULL>>'
        """
        return self.to_spark().upper()

    def catalog_string(self) -> str:
        """This type as ``typeof`` prints it (``DataType.catalogString``): as :meth:`to_spark`,
        but a struct's field names as they are, never quoted, and no ``not null``.

        Example:
            >>> StructType((StructField("a b", AtomicType("int"), nullable=False), StructField("0", ArrayType(
            ...     StructType((StructField("x`y", StringType()),)))))).catalog_string()
            'struct<a b:int,0:array<struct<x`y:string>>>'
        """
        return self.to_spark()

    def to_sql_type(self) -> exp.DataType | None:
        """This type as a sqlglot ``DataType``, as the vpush dialect reads its text; None when
        sqlglot cannot hold it exactly (a collated string anywhere: it keeps no collation).

        Example:
            >>> parse_variant_type("decimal").to_sql_type().sql("duckdb")
            'DECIMAL(10, 0)'
            >>> parse_variant_type("string collate UTF8_LCASE").to_sql_type() is None
            True
        """
        parts = _walk(self)
        if any(isinstance(part, StringType) and part.collation is not None for part in parts):
            return None
        if VOID in parts:
            return _void_sql_type(self)
        return _built_type(self.to_spark()).copy()

    def __str__(self) -> str:
        return self.to_spark()


def _void_sql_type(spark_type: SparkType) -> exp.DataType:
    """A type holding ``void`` (Spark's type of a bare NULL, as in ``array(NULL)``) as DuckDB's
    ``"NULL"`` type: sqlglot parses no ``void`` and writes its NULL type unquoted, which DuckDB
    does not read as a type."""
    from sqlglot import exp

    if spark_type == VOID:
        return exp.DataType(this=exp.DType.USERDEFINED, kind='"NULL"')
    if isinstance(spark_type, ArrayType):
        return exp.DataType(this=exp.DType.ARRAY, expressions=[_void_sql_type(spark_type.element)], nested=True)
    if isinstance(spark_type, MapType):
        return exp.DataType(this=exp.DType.MAP, expressions=[_void_sql_type(spark_type.key), _void_sql_type(spark_type.value)], nested=True)
    if isinstance(spark_type, StructType):
        fields = [exp.ColumnDef(this=exp.to_identifier(f.name, quoted=not _PLAIN_NAME.match(f.name)), kind=_void_sql_type(f.type))
                  for f in spark_type.fields]
        return exp.DataType(this=exp.DType.STRUCT, expressions=fields, nested=True)
    return _built_type(spark_type.to_spark()).copy()


@functools.lru_cache(maxsize=256)
def _built_type(text: str) -> exp.DataType:
    """``text`` parsed as a vpush-dialect type, once (callers get copies)."""
    from sqlglot import exp

    from vpush.optimizer.dialect import VpushSpark

    return exp.DataType.build(text, dialect=VpushSpark)


@dataclasses.dataclass(frozen=True)
class AtomicType(SparkType):
    """``boolean``, ``tinyint``, ``smallint``, ``int``, ``bigint``, ``float``, ``double``, ``date``,
    ``binary``, ``timestamp`` (with local time zone), ``timestamp_ntz`` or ``variant``."""

    name: str

    def to_spark(self) -> str:
        return self.name


@dataclasses.dataclass(frozen=True)
class StringType(SparkType):
    """``string``, with the collation as written (``None``: the default, UTF8_BINARY)."""

    collation: str | None = None

    def to_spark(self) -> str:
        return "string" if self.collation is None else f"string collate {self.collation}"


@dataclasses.dataclass(frozen=True)
class DecimalType(SparkType):
    """``decimal(precision,scale)``."""

    precision: int = DEFAULT_DECIMAL_PRECISION
    scale: int = 0

    def to_spark(self) -> str:
        return f"decimal({self.precision},{self.scale})"


@dataclasses.dataclass(frozen=True)
class TimeType(SparkType):
    """``time(precision)``: a time of day, without time zone."""

    precision: int = MICROS_TIMESTAMP_PRECISION

    def to_spark(self) -> str:
        return f"time({self.precision})"


@dataclasses.dataclass(frozen=True)
class ArrayType(SparkType):
    element: SparkType

    def to_spark(self) -> str:
        return f"array<{self.element.to_spark()}>"

    def to_sql(self) -> str:
        return f"ARRAY<{self.element.to_sql()}>"

    def catalog_string(self) -> str:
        return f"array<{self.element.catalog_string()}>"


@dataclasses.dataclass(frozen=True)
class MapType(SparkType):
    """A map; the key is always a string when it is a ``variant_get`` target."""

    key: SparkType
    value: SparkType

    def to_spark(self) -> str:
        return f"map<{self.key.to_spark()},{self.value.to_spark()}>"

    def to_sql(self) -> str:
        return f"MAP<{self.key.to_sql()}, {self.value.to_sql()}>"

    def catalog_string(self) -> str:
        return f"map<{self.key.catalog_string()},{self.value.catalog_string()}>"


@dataclasses.dataclass(frozen=True)
class StructField:
    name: str
    type: SparkType
    nullable: bool = True

    @property
    def quoted_name(self) -> str:
        """The name as Spark writes it in a type: as written where plain, else in backquotes."""
        return self.name if _PLAIN_NAME.match(self.name) else "`" + self.name.replace("`", "``") + "`"

    def to_spark(self) -> str:
        return f"{self.quoted_name}:{self.type.to_spark()}" + ("" if self.nullable else " not null")

    def to_sql(self) -> str:
        return f"{self.quoted_name}: {self.type.to_sql()}" + ("" if self.nullable else " NOT NULL")


@dataclasses.dataclass(frozen=True)
class StructType(SparkType):
    """A struct; field names are case-sensitive and may repeat, as in Spark.

    ``marker`` is the metadata marker Spark's analyzer puts on a time window's column
    (``TimeWindow.marker``, ``SessionWindow.marker``), which ``window_time`` requires; it is no
    part of the type (equality and hashing ignore it), as a column's metadata is none of its
    data type's.
    """

    fields: tuple[StructField, ...] = ()
    marker: str | None = dataclasses.field(default=None, compare=False, repr=False)

    def to_spark(self) -> str:
        return "struct<" + ",".join(f.to_spark() for f in self.fields) + ">"

    def to_sql(self) -> str:
        return "STRUCT<" + ", ".join(f.to_sql() for f in self.fields) + ">"

    def catalog_string(self) -> str:
        return "struct<" + ",".join(f"{f.name}:{f.type.catalog_string()}" for f in self.fields) + ">"


VARIANT = AtomicType("variant")
"""The default target of ``variant_get`` and of the ``:`` operator."""

VOID = AtomicType("void")
"""Spark's ``NullType``: the type of a bare NULL (``array(NULL)`` is an ``array<void>``)."""


@dataclasses.dataclass(frozen=True)
class _Uncastable(SparkType):
    """A type Spark parses but a variant cannot be cast to (interval, void, geospatial)."""

    text: str

    def to_spark(self) -> str:
        return self.text


@dataclasses.dataclass(frozen=True)
class _CharType(SparkType):
    text: str

    def to_spark(self) -> str:
        return self.text


class _TypeError(Exception):
    """One failed parse attempt, kept to be reported if the fallback fails too."""

    def __init__(self, error_class: str, message: str) -> None:
        super().__init__(message)
        self.error_class = error_class
        self.message = message


@dataclasses.dataclass(frozen=True)
class _Token:
    kind: str  # "word", "quoted", "int", "string", "punct", "bad", "end"
    text: str
    offset: int


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    while pos < len(text):
        char = text[pos]
        space = _SPACE.match(text, pos)
        if space is not None:
            pos = space.end()
        elif text.startswith("--", pos):
            end = text.find("\n", pos)
            pos = len(text) if end < 0 else end + 1
        elif text.startswith("/*", pos):
            pos = _skip_bracketed_comment(text, pos)
        elif char == "`":
            end = pos + 1
            name: list[str] = []
            while True:
                close = text.find("`", end)
                if close < 0:
                    tokens.append(_Token("bad", text[pos:], pos))
                    return tokens + [_Token("end", "", len(text))]
                name.append(text[end:close])
                if text.startswith("``", close):
                    name.append("`")
                    end = close + 2
                    continue
                break
            tokens.append(_Token("quoted", "".join(name), pos))
            pos = close + 1
        elif char in "'\"":
            end = pos + 1
            while end < len(text) and text[end] != char:
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                tokens.append(_Token("bad", text[pos:], pos))
                return tokens + [_Token("end", "", len(text))]
            tokens.append(_Token("string", text[pos + 1 : end], pos))
            pos = end + 1
        elif text.startswith("<>", pos):
            tokens.append(_Token("punct", "<>", pos))
            pos += 2
        elif char in "<>(),:-":
            tokens.append(_Token("punct", char, pos))
            pos += 1
        else:
            word = _WORD.match(text, pos)
            if word is not None:
                kind = "int" if word.group().isdigit() else "word"
                tokens.append(_Token(kind, word.group(), pos))
                pos = word.end()
            elif char.isalpha():
                # Spark's lexer has no rule for a non-ASCII letter outside back quotes.
                raise _TypeError(
                    "INVALID_IDENTIFIER",
                    f"the unquoted identifier at offset {pos} holds {char!r}; back-quote it",
                )
            else:
                tokens.append(_Token("bad", char, pos))
                pos += 1
    tokens.append(_Token("end", "", len(text)))
    return tokens


def _skip_bracketed_comment(text: str, pos: int) -> int:
    """The offset after the ``/* ... */`` comment at ``pos``; Spark's comments nest."""
    depth = 0
    while pos < len(text):
        if text.startswith("/*", pos):
            depth += 1
            pos += 2
        elif text.startswith("*/", pos):
            depth -= 1
            pos += 2
            if depth == 0:
                return pos
        else:
            pos += 1
    raise _TypeError("UNCLOSED_BRACKETED_COMMENT", "a /* comment is not closed with */")


class _Parser:
    """Recursive descent over the tokens. Syntax errors are raised at once; errors Spark finds
    only while building the type (after its parser accepted the whole text) are recorded, and
    the first of them is raised at the end, as Spark does."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.pos = 0
        self.deferred: list[_TypeError] = []

    # -- token helpers ---------------------------------------------------------------------
    @property
    def current(self) -> _Token:
        return self.tokens[self.pos]

    def _word(self, *names: str) -> bool:
        token = self.current
        return token.kind == "word" and token.text.lower() in names

    def _take_word(self, *names: str) -> str | None:
        if self._word(*names):
            self.pos += 1
            return self.tokens[self.pos - 1].text.lower()
        return None

    def _punct(self, text: str) -> bool:
        return self.current.kind == "punct" and self.current.text == text

    def _take_punct(self, text: str) -> bool:
        if self._punct(text):
            self.pos += 1
            return True
        return False

    def _expect_punct(self, text: str) -> None:
        if not self._take_punct(text):
            raise self._syntax_error()

    def _expect_word(self, *names: str) -> str:
        word = self._take_word(*names)
        if word is None:
            raise self._syntax_error()
        return word

    def _int(self) -> int:
        token = self.current
        if token.kind != "int":
            raise self._syntax_error()
        self.pos += 1
        return int(token.text)

    def _syntax_error(self) -> _TypeError:
        token = self.current
        near = "end of input" if token.kind == "end" else repr(token.text)
        return _TypeError("PARSE_SYNTAX_ERROR", f"syntax error at or near {near} (offset {token.offset})")

    def _defer(self, error_class: str, message: str) -> None:
        self.deferred.append(_TypeError(error_class, message))

    def finish(self, result: SparkType) -> SparkType:
        if self.current.kind != "end":
            raise self._syntax_error()
        if self.deferred:
            raise self.deferred[0]
        return result

    # -- grammar ---------------------------------------------------------------------------
    def data_type(self) -> SparkType:
        token = self.current
        if token.kind != "word":
            raise self._syntax_error()
        name = token.text.lower()
        self.pos += 1
        if name == "array":
            if not self._take_punct("<"):
                self._defer("INCOMPLETE_TYPE_DEFINITION.ARRAY", "array needs an element type: array<int>")
                return ArrayType(VARIANT)
            element = self.data_type()
            self._expect_punct(">")
            return ArrayType(element)
        if name == "map":
            if not self._take_punct("<"):
                self._defer("INCOMPLETE_TYPE_DEFINITION.MAP", "map needs key and value types: map<string, int>")
                return MapType(StringType(), VARIANT)
            key = self.data_type()
            self._expect_punct(",")
            value = self.data_type()
            self._expect_punct(">")
            return MapType(key, value)
        if name == "struct":
            if self._take_punct("<>"):
                return StructType(())
            if not self._take_punct("<"):
                self._defer("INCOMPLETE_TYPE_DEFINITION.STRUCT", "struct needs fields: struct<a: int>")
                return StructType(())
            fields: list[StructField] = []
            if not self._take_punct(">"):
                while True:
                    fields.append(self.field(colon_allowed=True))
                    if self._take_punct(">"):
                        break
                    self._expect_punct(",")
            return StructType(tuple(fields))
        return self.primitive(name, token)

    def primitive(self, name: str, token: _Token) -> SparkType:
        if name in _ATOMIC_NAMES:
            atomic = _ATOMIC_NAMES[name]
            if atomic in ("timestamp", "timestamp_ntz") and self._punct("("):
                self._timestamp_precision(name.upper())
            elif self._punct("("):
                return self._unsupported_with_args(name)
            return AtomicType(atomic)
        if name == "timestamp":
            if self._punct("("):
                self._timestamp_precision("TIMESTAMP_LTZ")
            if self._take_word("without"):
                self._expect_word("time")
                self._expect_word("zone")
                return AtomicType("timestamp_ntz")
            if self._take_word("with"):
                self._expect_word("local")
                self._expect_word("time")
                self._expect_word("zone")
            return AtomicType("timestamp")
        if name == "time":
            precision = MICROS_TIMESTAMP_PRECISION
            if self._take_punct("("):
                precision = self._int()
                self._expect_punct(")")
                if precision > MAX_TIME_PRECISION:
                    self._defer("UNSUPPORTED_TIME_PRECISION", f"time precision {precision} is outside 0..9")
            if self._take_word("without"):
                self._expect_word("time")
                self._expect_word("zone")
            return TimeType(precision)
        if name == "string":
            if self._take_word("collate"):
                parts = [self._name()]
                while self._take_punct("."):
                    parts.append(self._name())
                return StringType(parts[-1])
            if self._punct("("):
                return self._unsupported_with_args(name)
            return StringType()
        if name in _DECIMAL_NAMES:
            precision, scale = DEFAULT_DECIMAL_PRECISION, 0
            if self._take_punct("("):
                args = [self._int()]
                while self._take_punct(","):
                    args.append(self._int())
                self._expect_punct(")")
                if len(args) > 2:
                    self._defer("UNSUPPORTED_DATATYPE", f"unsupported data type {name.upper()}{tuple(args)}")
                    return DecimalType()
                precision, scale = args[0], (args[1] if len(args) == 2 else 0)
                if scale > precision:
                    self._defer(
                        "DECIMAL_SCALE_EXCEEDS_PRECISION",
                        f"decimal scale ({scale}) cannot be greater than precision ({precision})",
                    )
                elif precision > MAX_DECIMAL_PRECISION:
                    self._defer(
                        "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                        f"decimal precision {precision} exceeds max precision {MAX_DECIMAL_PRECISION}",
                    )
            return DecimalType(precision, scale)
        if name in ("char", "character", "varchar"):
            if not self._take_punct("("):
                self._defer("DATATYPE_MISSING_SIZE", f"{name.upper()} needs a length, for example {name}(10)")
                return _CharType(name)
            length = self._int()
            self._expect_punct(")")
            return _CharType(f"{name}({length})")
        if name == "void":
            if self._punct("("):
                return self._unsupported_with_args(name)
            return _Uncastable("void")
        if name == "interval":
            return self._interval()
        if name in ("geometry", "geography"):
            if not self._take_punct("("):
                self._defer("UNSUPPORTED_DATATYPE", f"unsupported data type {name.upper()}")
                return _Uncastable(name)
            if self.current.kind == "int" or self._word("any"):
                srid = self.current.text
                self.pos += 1
            else:
                raise self._syntax_error()
            self._expect_punct(")")
            return _Uncastable(f"{name}({srid})")
        if self._punct("("):
            return self._unsupported_with_args(name)
        self._defer("UNSUPPORTED_DATATYPE", f"unsupported data type {token.text.upper()}")
        return VARIANT

    def _timestamp_precision(self, spark_name: str) -> None:
        self._expect_punct("(")
        precision = self._int()
        self._expect_punct(")")
        if precision == MICROS_TIMESTAMP_PRECISION:
            return
        if MICROS_TIMESTAMP_PRECISION < precision <= MAX_TIME_PRECISION:
            self._defer(
                "FEATURE_NOT_ENABLED",
                f"{spark_name}({precision}) needs spark.sql.timestampNanosTypes.enabled",
            )
        else:
            self._defer(
                "INVALID_TIMESTAMP_PRECISION",
                f"the seconds precision {precision} of {spark_name} is invalid: use 6, or 7..9",
            )

    def _unsupported_with_args(self, name: str) -> SparkType:
        self._expect_punct("(")
        args = [self._int()]
        while self._take_punct(","):
            args.append(self._int())
        self._expect_punct(")")
        text = f"{name.upper()}({','.join(map(str, args))})"
        self._defer("UNSUPPORTED_DATATYPE", f"unsupported data type {text}")
        return VARIANT

    def _interval(self) -> SparkType:
        start = self._take_word("year", "month", *_DAY_TIME_UNITS)
        if start is None:
            return _Uncastable("interval")
        if not self._take_word("to"):
            return _Uncastable(f"interval {start}")
        if start == "year":
            end = self._expect_word("month")
        elif start in _DAY_TIME_UNITS:
            end = self._expect_word("hour", "minute", "second")
        else:
            raise self._syntax_error()
        if start in _DAY_TIME_UNITS and _DAY_TIME_UNITS.index(end) <= _DAY_TIME_UNITS.index(start):
            self._defer(
                "INVALID_INTERVAL_FORMAT.UNSUPPORTED_FROM_TO_EXPRESSION",
                f"interval {start} to {end} is not a valid range",
            )
        return _Uncastable(f"interval {start} to {end}")

    def _name(self) -> str:
        token = self.current
        if token.kind not in ("word", "quoted", "int"):
            raise self._syntax_error()
        if token.kind == "int":
            # A name Spark's lexer reads as a number literal.
            raise self._syntax_error()
        self.pos += 1
        if token.kind == "word" and self._punct("-"):
            # Spark's errorCapturingIdentifier: `a-b` is reported once the text parsed.
            while self._take_punct("-"):
                self._name()
            self._defer("INVALID_IDENTIFIER", f"the unquoted identifier {token.text}-... must be back-quoted")
        return token.text

    def field(self, *, colon_allowed: bool) -> StructField:
        name = self._name()
        if colon_allowed:
            self._take_punct(":")
        field_type = self.data_type()
        nullable = True
        if self._take_word("not"):
            self._expect_word("null")
            nullable = False
        if self._take_word("comment"):
            if self.current.kind != "string":
                raise self._syntax_error()
            self.pos += 1
        return StructField(name, field_type, nullable)

    def schema(self) -> SparkType:
        fields = [self.field(colon_allowed=False)]
        while self._take_punct(","):
            fields.append(self.field(colon_allowed=False))
        return StructType(tuple(fields))


def _walk(spark_type: SparkType) -> list[SparkType]:
    out = [spark_type]
    if isinstance(spark_type, ArrayType):
        out += _walk(spark_type.element)
    elif isinstance(spark_type, MapType):
        out += _walk(spark_type.key) + _walk(spark_type.value)
    elif isinstance(spark_type, StructType):
        for field in spark_type.fields:
            out += _walk(field.type)
    return out


def leaves(spark_type: SparkType) -> list[SparkType]:
    """The types inside ``spark_type`` that are neither arrays, maps nor structs (itself if it is
    none), each array's element, map's key and value and struct's field in order."""
    return [t for t in _walk(spark_type) if not isinstance(t, (ArrayType, MapType, StructType))]


# The leaf types whose widening by Spark's coercion vpush follows (`nested_wider_type`)
_COERCIBLE_LEAVES = frozenset({"tinyint", "smallint", "int", "bigint", "float", "double", "boolean", "date", "timestamp",
                               "timestamp_ntz", "binary", "void"})


def coercible(spark_type: SparkType | None) -> bool:
    """Whether every leaf of ``spark_type`` is of a type whose widening by Spark's coercion vpush
    knows (numbers, strings, booleans, dates, timestamps, binaries, NULL), inside arrays, maps and
    structs; not a variant.

    Example:
        >>> coercible(ArrayType(DecimalType(10, 2))), coercible(VARIANT), coercible(None)
        (True, False, False)
    """
    return spark_type is not None and all(
        isinstance(leaf, (StringType, DecimalType)) or (isinstance(leaf, AtomicType) and leaf.name in _COERCIBLE_LEAVES)
        for leaf in leaves(spark_type))


def _castable(spark_type: SparkType) -> bool:
    """Spark's ``VariantGet.checkDataType``: scalars, and arrays, string-keyed maps and structs
    of castable types."""
    if isinstance(spark_type, (_Uncastable, _CharType)):
        return False
    if isinstance(spark_type, ArrayType):
        return _castable(spark_type.element)
    if isinstance(spark_type, MapType):
        return isinstance(spark_type.key, StringType) and _castable(spark_type.value)
    if isinstance(spark_type, StructType):
        return all(_castable(field.type) for field in spark_type.fields)
    return True


def _parse_one(text: str, *, schema: bool) -> SparkType:
    parser = _Parser(text)
    return parser.finish(parser.schema() if schema else parser.data_type())


def parse_spark_type(text: str) -> SparkType:
    """Parse Spark type text as Spark's ``DataType.fromDDL`` does, any type it names (maps keyed by
    any type too), for the types vpush carries between processes and ``from_json``'s schemas.

    Example:
        >>> parse_spark_type("map<double, array<int>>").to_spark()
        'map<double,array<int>>'

    Raises:
        OptimizeError: with Spark's error class (see the module docstring).
    """
    return _parse_ddl(text, "type")


def _parse_ddl(text: str, what: str) -> SparkType:
    if not _SPACE.sub("", text):
        raise OptimizeError(f"the {what} is empty", error_class="PARSE_EMPTY_STATEMENT")
    try:
        try:
            result = _parse_one(text, schema=False)
        except _TypeError as first:
            # Spark's DataType.fromDDL: on failure, read the text as a table schema, and report
            # the first error if that fails too.
            try:
                result = _parse_one(text, schema=True)
            except _TypeError:
                raise first from None
    except _TypeError as err:
        raise OptimizeError(f"invalid {what} {text!r}: {err.message}", error_class=err.error_class) from None
    if any(isinstance(part, _CharType) for part in _walk(result)):
        raise OptimizeError(
            f"invalid {what} {text!r}: char/varchar cannot be used here; use string",
            error_class="UNSUPPORTED_CHAR_OR_VARCHAR_AS_STRING",
        )
    return result


def parse_variant_type(text: str) -> SparkType:
    """Parse the ``type`` argument of ``variant_get`` / ``try_variant_get`` as Spark 4.3 does.

    Args:
        text: the string literal's value, e.g. ``'int'`` or ``'struct<a int, b array<string>>'``.

    Returns:
        The type, normalized: aliases resolved (``long`` is ``bigint``), ``decimal`` is
        ``decimal(10,0)``, a table schema is a struct.

    Raises:
        OptimizeError: with Spark's error class (see the module docstring).

    Example:
        >>> parse_variant_type(" Long ").to_spark()
        'bigint'
        >>> parse_variant_type("struct<a int not null, b: array<string> comment 'x'>").to_spark()
        'struct<a:int not null,b:array<string>>'
        >>> parse_variant_type("a int, `b c` decimal").to_spark()
        'struct<a:int,`b c`:decimal(10,0)>'
        >>> parse_variant_type("map<int, int>")
        Traceback (most recent call last):
        ...
        vpush.optimizer.errors.OptimizeError: [DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION] ...
    """
    result = _parse_ddl(text, "variant_get type")
    if not _castable(result):
        raise OptimizeError(
            f"cannot cast a variant to {result.to_spark()!r}",
            error_class="DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
        )
    return result
