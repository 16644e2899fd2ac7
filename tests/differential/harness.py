"""Run one query on Spark (the oracle) and on vpush, and compare the two answers exactly.

An answer is either an error class, or the column names, the Spark types and the rows. vpush's
Arrow result types are mapped to Spark's ``simpleString`` here, independently of vpush's own
mapping. Variants are compared as JSON text: Spark's ``to_json`` on the Spark side, vpush's
``Relation.df()`` (which renders them as ``to_json`` does) on vpush's.
"""
from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    import vpush

Row = tuple[Any, ...]
# The ``check`` fixture: ``check(sql, raises=None)``; ``check_batch``: ``check_batch(batch, group)``.
Check = Callable[..., None]
CheckBatch = Callable[["Batch", str], None]

# Spark wraps an error raised while its Parquet scan computes a pushed-down extraction in
# FAILED_READ_FILE; the SQL error is the cause's.
_WRAPPERS = ("FAILED_READ_FILE",)


class Mismatch(AssertionError):
    """vpush's answer is not Spark's."""


class BadTest(Exception):
    """Spark did not answer as the test says it does: the test is wrong, not vpush."""


ENGINES = ("duckdb", "spark")
"""The engines every differential test runs vpush on."""


def known_difference(reason: str, engines: tuple[str, ...] = ENGINES) -> pytest.MarkDecorator:
    """The mark of a case where vpush on ``engines`` does not give Spark's answer yet: on those
    engines a strict xfail that only a :class:`Mismatch` satisfies (a broken test still fails),
    on the others an ordinary test (the ``diff_con`` fixture's engine decides,
    :func:`apply_known_differences`)."""
    return pytest.mark.known_difference(reason=reason, engines=engines)


def apply_known_differences(items: list[pytest.Item]) -> None:
    """Turn each ``known_difference`` mark into a strict xfail on the engines it names."""
    for item in items:
        mark = item.get_closest_marker("known_difference")
        callspec = getattr(item, "callspec", None)
        if mark is None or callspec is None:
            continue
        if callspec.params.get("diff_con") in mark.kwargs["engines"]:
            item.add_marker(pytest.mark.xfail(strict=True, raises=Mismatch, reason=mark.kwargs["reason"]))


@dataclass(frozen=True)
class Answer:
    """What one engine made of a query: an error class, or typed columns and rows."""

    error: str | None = None
    columns: tuple[tuple[str, str], ...] = ()
    rows: tuple[Row, ...] = ()


def spark_type_name(arrow_type: pa.DataType, time_zone: str = "UTC") -> str:
    """Spark's ``simpleString`` of the type an Arrow column of ``arrow_type`` stands for (a
    timestamp in the session ``time_zone`` is Spark's ``timestamp``).

    An Arrow type with no Spark counterpart keeps its Arrow name, which matches no Spark type.
    """
    if pa.types.is_struct(arrow_type):
        names = sorted(arrow_type.field(i).name for i in range(arrow_type.num_fields))
        binaries = all(pa.types.is_binary(arrow_type.field(i).type) for i in range(arrow_type.num_fields))
        return "variant" if names == ["metadata", "value"] and binaries else str(arrow_type)
    if pa.types.is_decimal128(arrow_type):
        return f"decimal({arrow_type.precision},{arrow_type.scale})"
    if pa.types.is_timestamp(arrow_type) and arrow_type.unit == "us":
        if arrow_type.tz is None:
            return "timestamp_ntz"
        if arrow_type.tz == time_zone:
            return "timestamp"
    simple = {
        pa.bool_(): "boolean",
        pa.int8(): "tinyint",
        pa.int16(): "smallint",
        pa.int32(): "int",
        pa.int64(): "bigint",
        pa.float32(): "float",
        pa.float64(): "double",
        pa.string(): "string",
        pa.binary(): "binary",
        pa.date32(): "date",
    }
    return simple.get(arrow_type, str(arrow_type))


def _normal(value: Any) -> Any:
    """One value in a form both engines give alike: floats by their exact bits (NaN equals NaN,
    -0.0 differs from 0.0), instants in UTC, binaries as bytes."""
    if isinstance(value, float):
        return ("double", "nan" if math.isnan(value) else value.hex())
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.timezone.utc)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    return value


def _sorted(rows: list[Row]) -> tuple[Row, ...]:
    return tuple(sorted(rows, key=repr))


def _strip(sql: str) -> str:
    """The query without string literals, quoted names or anything inside parentheses."""
    text = re.sub(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`", "''", sql)
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def is_ordered(sql: str) -> bool:
    """Whether the query's own result is ordered: an ORDER BY outside any parentheses."""
    return re.search(r"\border\s+by\b", _strip(sql), re.IGNORECASE) is not None


def spark_error_class(error: BaseException) -> str | None:
    """Spark's error class of a failed query: the condition of the first Spark error in the
    chain of causes, past the FAILED_READ_FILE wrapper of errors raised in a scan."""
    from py4j.java_gateway import is_instance_of
    from py4j.protocol import Py4JJavaError
    from pyspark import SparkContext

    gateway, jvm = SparkContext._gateway, SparkContext._jvm
    assert gateway is not None and jvm is not None
    java = error.java_exception if isinstance(error, Py4JJavaError) else getattr(error, "_origin", None)
    while java is not None:
        if is_instance_of(gateway, java, "org.apache.spark.SparkThrowable"):
            condition = jvm.PythonErrorUtils.getCondition(java)
            if condition is not None and not condition.startswith(_WRAPPERS):
                return str(condition)
        java = java.getCause()
    return None


def spark_answer(spark: SparkSession, views: dict[str, DataFrame], sql: str, time_zone: str = "UTC") -> Answer:
    """Spark's answer in the session ``time_zone`` (set for this query only); variant columns
    rendered by Spark's ``to_json``."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException
    from pyspark.sql import functions as F
    from pyspark.sql.types import TimestampType, VariantType

    if spark.conf.get("spark.sql.session.timeZone") != "UTC":
        raise BadTest("the Spark session's time zone is not UTC")
    if time_zone != "UTC":
        spark.conf.set("spark.sql.session.timeZone", time_zone)
    # Other test modules may name their own temporary views alike: these are ours, now.
    for name, frame in views.items():
        frame.createOrReplaceTempView(name)
    try:
        frame = spark.sql(sql)
        fields = frame.schema.fields
        if any(isinstance(f.dataType, VariantType) for f in fields):
            positional = frame.toDF(*(f"c{i}" for i in range(len(fields))))
            frame = positional.select(
                *(
                    F.to_json(F.col(f"c{i}")).alias(f"c{i}")
                    if isinstance(f.dataType, VariantType)
                    else F.col(f"c{i}")
                    for i, f in enumerate(fields)
                )
            )
        collected = frame.collect()
    except (PySparkException, Py4JJavaError) as exc:
        condition = spark_error_class(exc)
        return Answer(error=condition if condition is not None else f"no error class: {exc}")
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    local = [isinstance(f.dataType, TimestampType) for f in fields]
    rows = []
    for row in collected:
        values = []
        for value, is_local in zip(row, local):
            if is_local and value is not None:
                # PySpark gives a timestamp as a naive wall-clock time in this process's zone.
                value = value.astimezone(dt.timezone.utc)
            values.append(_normal(value))
        rows.append(tuple(values))
    columns = tuple((f.name, f.dataType.simpleString()) for f in fields)
    return Answer(columns=columns, rows=tuple(rows) if is_ordered(sql) else _sorted(rows))


def vpush_answer(con: vpush.Connection, sql: str) -> Answer:
    """vpush's answer; variant columns rendered by ``Relation.df()``."""
    from vpush.codec.errors import VpushError

    relation = con.sql(sql)
    try:
        table = relation.to_arrow()
    except VpushError as exc:
        return Answer(error=exc.error_class if exc.error_class is not None else f"no error class: {exc}")
    types = [spark_type_name(f.type, con.time_zone) for f in table.schema]
    columns: list[list[Any]] = [c.to_pylist() for c in table.columns]
    if "variant" in types:
        # df() renders this very result (not a second run, whose unordered rows could come in
        # another order).
        relation.to_arrow = lambda: table  # type: ignore[method-assign]
        frame = relation.df()
        for i, name in enumerate(types):
            if name == "variant":
                texts = frame.iloc[:, i].tolist()
                columns[i] = [t if isinstance(t, str) else None for t in texts]
    rows = [tuple(_normal(v) for v in row) for row in zip(*columns)] if columns else []
    names = tuple(zip(table.column_names, types))
    return Answer(columns=names, rows=tuple(rows) if is_ordered(sql) else _sorted(rows))


def _row_diff(got: tuple[Row, ...], want: tuple[Row, ...], ordered: bool) -> str:
    if ordered:
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                return f"first difference at row {i}:\n  vpush: {g!r}\n  spark: {w!r}"
        return f"vpush gave {len(got)} rows, Spark {len(want)}"
    extra = Counter(got) - Counter(want)
    missing = Counter(want) - Counter(got)
    lines = [f"vpush {len(got)} rows, Spark {len(want)}"]
    lines += [f"  only vpush: {r!r}" for r in list(extra.elements())[:8]]
    lines += [f"  only Spark: {r!r}" for r in list(missing.elements())[:8]]
    return "\n".join(lines)


def compare(got: Answer, want: Answer, sql: str) -> None:
    """vpush's answer ``got`` is Spark's ``want``: the same error class, or the same columns,
    types and rows."""
    if want.error is not None or got.error is not None:
        if got.error != want.error:
            raise Mismatch(f"vpush: {got.error or 'rows'}, Spark: {want.error or 'rows'}")
        return
    if got.columns != want.columns:
        raise Mismatch(f"columns (name, Spark type):\n  vpush: {got.columns}\n  spark: {want.columns}")
    if got.rows != want.rows:
        raise Mismatch(_row_diff(got.rows, want.rows, is_ordered(sql)))


@dataclass(frozen=True)
class Batch:
    """Queries over one source that differ only in their last columns and in their WHERE.

    Each group is one query: ``SELECT <keys>, <the group's columns> FROM <source> [WHERE <the
    group's filter>]``. vpush runs each group's query alone. Spark answers all of them with one
    wide query that has every group's columns and every filter as a boolean column: a group's
    answer is the wide answer's rows whose filter is true, cut down to the keys and the group's
    columns (every column is computed row by row, deterministically). One Spark query instead of
    dozens keeps the suite fast.
    """

    name: str
    keys: tuple[str, ...]
    source: str
    groups: dict[str, tuple[tuple[str, str], ...]]
    filters: dict[str, str] = field(default_factory=dict)

    def query(self, group: str) -> str:
        """The query of one group."""
        items = [*self.keys, *(f"{expr} AS {alias}" for alias, expr in self.groups[group])]
        where = f" WHERE {self.filters[group]}" if group in self.filters else ""
        return f"SELECT {', '.join(items)} FROM {self.source}{where}"

    def wide(self) -> str:
        """One query with every group's columns, group after group, then every filter."""
        items = [*self.keys, *(f"{expr} AS {alias}" for cols in self.groups.values() for alias, expr in cols)]
        items += [f"coalesce({cond}, false) AS where_{i}" for i, cond in enumerate(self.filters.values())]
        return f"SELECT {', '.join(items)} FROM {self.source}"

    def cut(self, wide: Answer, group: str) -> Answer:
        """Spark's answer to :meth:`query` of ``group``, from its answer to :meth:`wide`."""
        if wide.error is not None:
            raise BadTest(f"Spark failed the wide query of {self.name}: {wide.error}")
        start = len(self.keys)
        for name, columns in self.groups.items():
            if name == group:
                break
            start += len(columns)
        keep = [*range(len(self.keys)), *range(start, start + len(self.groups[group]))]
        rows = wide.rows
        if group in self.filters:
            flag = len(wide.columns) - len(self.filters) + list(self.filters).index(group)
            rows = tuple(row for row in rows if row[flag] is True)
        cut = [tuple(row[i] for i in keep) for row in rows]
        return Answer(columns=tuple(wide.columns[i] for i in keep), rows=_sorted(cut))
