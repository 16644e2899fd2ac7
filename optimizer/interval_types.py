"""Spark's ANSI interval types of a query's output columns, where vpush can tell them.

An interval comes out of the engines as an Arrow ``duration`` (Spark's ``toArrow`` gives a
day-time interval so), which no longer says the interval type's fields: ``interval day`` and
``interval day to second`` of one day are the same duration, but Spark writes them as
``INTERVAL '1' DAY`` and ``INTERVAL '1 00:00:00' DAY TO SECOND`` (CSV, JSON, ``show()``). No
table holds an interval (Parquet has no Spark interval), so every interval column is computed
by the query, and its type follows from the expression, as Spark's analyzer types it:

```
INTERVAL '1' DAY, INTERVAL 3 HOURS            its unit: interval day, interval hour
INTERVAL '1 02:03' DAY TO MINUTE              its span; INTERVAL 1 DAY 2 HOURS is one already
CAST(x AS INTERVAL ...)                       the type cast to
date - date                                   interval day (SubtractDates)
datetime - datetime, one with a time          interval day to second (SubtractTimestamps)
-i, abs(i)                                    i's type
i * n, i / n, avg(i)                          its kind's whole span: interval day to second, ...
i + j, i - j, coalesce, CASE, if, UNION       the widest span of the intervals (same kind)
sum, min, max, first, last, any_value         the argument's type (over a window too)
make_dt_interval, make_ym_interval            interval day to second, interval year to month
a column of a subquery, a CTE                 its projection's type
```

Anything else is left unknown (None), and so is every column of a SELECT with a star: a writer
refuses such a column rather than guess.
"""
from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp

from vpush.optimizer.spark_intervals import interval_fields
from vpush.optimizer.variant_types import AtomicType, SparkType, StringType

__all__ = ["output_interval_types", "interval_type_name"]

_DAY_TIME = ("DAY", "HOUR", "MINUTE", "SECOND")
_YEAR_MONTH = ("YEAR", "MONTH")
_PASS_THROUGH = (exp.Paren, exp.Alias, exp.Neg, exp.Abs, exp.Sum, exp.Min, exp.Max, exp.First, exp.Last,
                 exp.AnyValue, exp.Window, exp.IgnoreNulls, exp.RespectNulls, exp.Filter)
_DATE = AtomicType("date")
_TIMES = (AtomicType("timestamp"), AtomicType("timestamp_ntz"))
_TIMESTAMP_TYPES = frozenset({exp.DataType.Type.TIMESTAMP, exp.DataType.Type.TIMESTAMPTZ, exp.DataType.Type.TIMESTAMPLTZ,
                              exp.DataType.Type.TIMESTAMPNTZ})

# Spark's functions of a date or a timestamp result, as sqlglot reads them
_DATE_CALLS = (exp.CurrentDate, exp.TsOrDsToDate, exp.TsOrDsAdd, exp.LastDay, exp.AddMonths, exp.NextDay, exp.DateTrunc)
_DATE_FUNCTIONS = frozenset({"make_date", "date_from_unix_date"})
_TIME_CALLS = (exp.CurrentTimestamp, exp.TimestampTrunc)
_TIME_FUNCTIONS = frozenset({"now", "timestamp_seconds", "timestamp_millis", "timestamp_micros", "make_timestamp",
                             "make_timestamp_ntz", "make_timestamp_ltz", "to_timestamp_ntz", "to_timestamp_ltz",
                             "localtimestamp"})

Span = tuple[str, str]
"""An interval type as its first and last field: ``("DAY", "SECOND")``, ``("YEAR", "YEAR")``."""


def interval_type_name(span: Span) -> str:
    """Spark's name of the interval type ``span``.

    Example:
        >>> interval_type_name(("DAY", "DAY")), interval_type_name(("YEAR", "MONTH"))
        ('interval day', 'interval year to month')
    """
    start, end = span
    return f"interval {start.lower()}" if start == end else f"interval {start.lower()} to {end.lower()}"


def output_interval_types(
    expression: exp.Expr, column_types: Mapping[int, Mapping[str, SparkType | None]]
) -> tuple[str | None, ...]:
    """Spark's interval type of each output column of ``expression`` (a query as Spark reads it),
    ``None`` for a column that is no interval or whose fields vpush cannot tell.

    Args:
        expression: the query, its table references still ``exp.Table`` nodes.
        column_types: per table node (by ``id``), its columns' Spark types by lower-case name.

    Example:
        >>> from vpush.optimizer.plan_query import parse_spark
        >>> output_interval_types(parse_spark(
        ...     "SELECT INTERVAL '1' DAY AS d, 1 AS n, DATE'2024-01-02' - DATE'2024-01-01', "
        ...     "TIMESTAMP'2024-01-02 00:00:00' - DATE'2024-01-01', -INTERVAL '1-2' YEAR TO MONTH"), {})
        ('interval day', None, 'interval day', 'interval day to second', 'interval year to month')
    """
    typer = _Typer(column_types)
    return tuple(None if span is None else interval_type_name(span) for span in typer.outputs(expression))


class _Typer:
    def __init__(self, column_types: Mapping[int, Mapping[str, SparkType | None]]) -> None:
        self.column_types = column_types

    def outputs(self, query: exp.Expr) -> list[Span | None]:
        """The interval spans of a query's outputs (a set operation's: its branches' widest)."""
        if isinstance(query, exp.Subquery):
            return self.outputs(query.this)
        if isinstance(query, exp.SetOperation):
            left, right = self.outputs(query.left), self.outputs(query.right)
            if len(left) != len(right):
                return left
            return [_widest([a, b]) if a is not None and b is not None else None for a, b in zip(left, right)]
        if not isinstance(query, exp.Select) or any(p.is_star for p in query.expressions):
            return []  # a star's columns are not counted here: none is told
        return [self.span(p, query) for p in query.expressions]

    def span(self, node: exp.Expr, select: exp.Select) -> Span | None:
        """``node``'s interval span, None where it is no interval or vpush cannot tell."""
        if isinstance(node, exp.Interval):
            return interval_fields(node)
        if isinstance(node, (exp.Cast, exp.TryCast)):
            to = node.args.get("to")
            inner = to.this if isinstance(to, exp.DataType) else None
            return interval_fields(inner) if isinstance(inner, exp.Interval) else None
        if isinstance(node, _PASS_THROUGH):
            return self.span(node.this, select)
        if isinstance(node, (exp.Mul, exp.Div, exp.Avg)):
            # Spark's MultiplyDTInterval, DivideYMInterval, ... and Average: the kind's whole span
            operand = self.span(node.this, select)
            if operand is None and isinstance(node, exp.Mul):
                operand = self.span(node.expression, select)
            return None if operand is None else _whole(operand)
        if isinstance(node, (exp.Coalesce, exp.Case, exp.If)):
            parts = _branches(node)
            spans = [self.span(p, select) for p in parts if not isinstance(p, exp.Null)]
            return _widest(spans) if spans and all(s is not None for s in spans) else None
        if isinstance(node, (exp.Add, exp.Sub)):
            left, right = self.span(node.this, select), self.span(node.expression, select)
            if left is not None and right is not None:
                return _widest([left, right])
            if left is not None or right is not None:
                return None  # a datetime plus or minus an interval: a datetime
            if isinstance(node, exp.Sub):
                return self._difference(node, select)
            return None
        if isinstance(node, exp.Anonymous):
            name = node.name.lower()
            if name == "make_dt_interval":
                return ("DAY", "SECOND")
            if name == "make_ym_interval":
                return ("YEAR", "MONTH")
            return None
        if isinstance(node, exp.Column):
            return self._column(node, select)
        return None

    def _difference(self, node: exp.Sub, select: exp.Select) -> Span | None:
        """Spark's ``SubtractDates`` (two dates: an interval day) or ``SubtractTimestamps`` (a
        time on either side: an interval day to second); a string beside either is cast to it."""
        kinds = [self._datetime(side, select) for side in (node.this, node.expression)]
        if any(k is None for k in kinds) or all(k == "string" for k in kinds):
            return None
        if all(k in ("date", "string") for k in kinds):
            return ("DAY", "DAY")
        return ("DAY", "SECOND")

    def _datetime(self, node: exp.Expr, select: exp.Select) -> str | None:
        """``"date"``, ``"time"`` (a timestamp of either kind), ``"string"`` or None."""
        while isinstance(node, exp.Paren):
            node = node.this
        if isinstance(node, exp.Literal) and node.is_string:
            return "string"
        if isinstance(node, (exp.Cast, exp.TryCast)):
            to = node.args.get("to")
            if isinstance(to, exp.DataType):
                if to.this == exp.DataType.Type.DATE:
                    return "date"
                if to.this in _TIMESTAMP_TYPES:
                    return "time"
            return None
        if isinstance(node, _DATE_CALLS) or (isinstance(node, exp.Anonymous) and node.name.lower() in _DATE_FUNCTIONS):
            return "date"
        if isinstance(node, _TIME_CALLS) or (isinstance(node, exp.Anonymous) and node.name.lower() in _TIME_FUNCTIONS):
            return "time"
        if isinstance(node, exp.Column):
            found = self._column_type(node, select)
            if found == _DATE:
                return "date"
            if found in _TIMES:
                return "time"
            if isinstance(found, StringType):
                return "string"
        return None

    def _sources(self, select: exp.Select) -> list[tuple[str, exp.Expr]]:
        """The FROM and JOIN sources of ``select``, by alias (lower case)."""
        found: list[tuple[str, exp.Expr]] = []
        from_ = select.args.get("from_") or select.args.get("from")
        for source in [from_.this if from_ is not None else None, *(j.this for j in select.args.get("joins") or [])]:
            if source is not None:
                found.append((source.alias_or_name.lower(), source))
        return found

    def _cte(self, select: exp.Select, name: str) -> exp.Expr | None:
        """The query of the CTE ``name`` visible from ``select``."""
        node: exp.Expr | None = select
        while node is not None:
            with_ = node.args.get("with_") or node.args.get("with") if isinstance(node, exp.Query) else None
            if isinstance(with_, exp.With):
                for cte in with_.expressions:
                    if cte.alias_or_name.lower() == name:
                        return cte.this
            node = node.parent
        return None

    def _resolved(self, column: exp.Column, select: exp.Select) -> list[tuple[exp.Expr, str]]:
        """The sources ``column`` may read (the one its qualifier names, or every source)."""
        qualifier = column.table.lower()
        return [(s, column.name.lower()) for alias, s in self._sources(select) if not qualifier or alias == qualifier]

    def _column(self, column: exp.Column, select: exp.Select) -> Span | None:
        spans: list[Span | None] = []
        for source, name in self._resolved(column, select):
            query = self._query_of(source, select)
            if query is None:
                continue
            names = _output_names(query)
            if name in names:
                outputs = self.outputs(query)
                spans.append(outputs[names.index(name)] if names.index(name) < len(outputs) else None)
        return spans[0] if len(spans) == 1 else None

    def _column_type(self, column: exp.Column, select: exp.Select) -> SparkType | None:
        """A table's column's Spark type (a date or timestamp column of a difference)."""
        found: list[SparkType | None] = []
        for source, name in self._resolved(column, select):
            if isinstance(source, exp.Table) and id(source) in self.column_types:
                types = self.column_types[id(source)]
                if name in types:
                    found.append(types[name])
            else:
                query = self._query_of(source, select)
                if query is not None and name in _output_names(query):
                    # each branch's projection; a UNION's branches of one kind
                    index = _output_names(query).index(name)
                    kinds = {self._projection_type(branch, index) for branch in _selects(query)
                             if index < len(branch.expressions) and not isinstance(branch.expressions[index].unalias(), exp.Null)}
                    found.append(kinds.pop() if len(kinds) == 1 else None)
        return found[0] if len(found) == 1 else None

    def _projection_type(self, select: exp.Select, index: int) -> SparkType | None:
        """The date, timestamp or string type of a subquery's projection, if it is one."""
        if index >= len(select.expressions):
            return None
        projection = select.expressions[index]
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(inner, exp.Column):
            return self._column_type(inner, select)
        kind = self._datetime(inner, select)
        return None if kind is None else _DATE if kind == "date" else _TIMES[0] if kind == "time" else StringType()

    def _query_of(self, source: exp.Expr, select: exp.Select) -> exp.Expr | None:
        if isinstance(source, exp.Subquery):
            return source.this
        if isinstance(source, exp.Table) and id(source) not in self.column_types:
            return self._cte(select, source.name.lower())
        return None


def _selects(query: exp.Expr) -> list[exp.Select]:
    """The SELECTs of a query: itself, or a set operation's branches."""
    if isinstance(query, exp.Subquery):
        return _selects(query.this)
    if isinstance(query, exp.SetOperation):
        return _selects(query.left) + _selects(query.right)
    return [query] if isinstance(query, exp.Select) else []


def _output_names(query: exp.Expr) -> list[str]:
    while isinstance(query, (exp.Subquery, exp.SetOperation)):
        query = query.this if isinstance(query, exp.Subquery) else query.left
    return [p.alias_or_name.lower() for p in query.expressions] if isinstance(query, exp.Select) else []


def _branches(node: exp.Expr) -> list[exp.Expr]:
    if isinstance(node, exp.Coalesce):
        return [node.this, *node.expressions]
    if isinstance(node, exp.If):
        return [b for b in (node.args.get("true"), node.args.get("false")) if b is not None]
    ifs = node.args.get("ifs") or []
    return [i.args["true"] for i in ifs] + ([node.args["default"]] if node.args.get("default") is not None else [])


def _whole(span: Span) -> Span:
    """The whole span of ``span``'s kind: ``interval day to second`` or ``interval year to month``."""
    return ("YEAR", "MONTH") if span[0] in _YEAR_MONTH else ("DAY", "SECOND")


def _widest(spans: list[Span | None]) -> Span | None:
    """The span Spark widens intervals of one kind to; None across kinds or where one is unknown."""
    if not spans or any(s is None for s in spans):
        return None
    known = [s for s in spans if s is not None]
    fields = _YEAR_MONTH if known[0][0] in _YEAR_MONTH else _DAY_TIME
    if any(s[0] not in fields or s[1] not in fields for s in known):
        return None
    return min((s[0] for s in known), key=fields.index), max((s[1] for s in known), key=fields.index)
