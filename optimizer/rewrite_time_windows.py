"""Spark's time windows, ``window(time, windowDuration[, slideDuration[, startTime]])``, as
lateral joins DuckDB runs with Spark's answer.

Spark does not compute ``window`` as a scalar: its analyzer (``TimeWindowing``,
``TimeWindowResolution.buildTimeWindowRewrite``) rewrites the operator that holds the call (the
SELECT's aggregation or projection, or the WHERE's filter) to read a new child: for each row of
the old child, ``ceil(window / slide)`` windows (an ``Expand``, windows ``i = 0 .. n-1`` in that
order), each a ``struct<start, end>`` of the time's type (``timestamp`` or ``timestamp_ntz``)::

    remainder = (micros(time) - startTime) % slide          (Java's %: the dividend's sign)
    lastStart = micros(time) - (remainder < 0 ? remainder + slide : remainder)
    start_i   = lastStart - i * slide,   end_i = start_i + window

kept where ``start_i <= time < end_i`` (where ``window % slide == 0`` every window is kept), and
only where the time is not NULL: a row whose time is NULL leaves the whole SELECT. The column is
named ``window``. So each call becomes a ``CROSS JOIN LATERAL`` of one UNNEST of those windows
(DuckDB keeps each row's elements in list order there, :mod:`~vpush.optimizer.rewrite_generators`),
the calls of the WHERE one join and those of the rest of the SELECT another (Spark expands twice
then: measured on PySpark 4.3). Where an aggregate depends on the order of rows,
:func:`order_past_time_window` gives each window its place after its row's.

The durations are literals: a string is an interval (``'10 minutes'``, ``'1 day 2 hours'``; a month
or a year is refused as Spark refuses it), an integer counts microseconds. ``window_time(w)``
is ``w.end`` less a microsecond, of a column whose metadata carries a window's marker
(:func:`check_window_times`; the marker rides on the struct type, :func:`projected_type`).

``session_window(time, gap)`` (Spark's ``SessionWindowing``) gives each row one session
``[time, time + gap)`` the same way, a lateral join of at most one; where a SELECT groups by a
session column, Spark's planner merges each group's overlapping sessions (``MergingSessionsExec``),
which :func:`merge_sessions` computes with window functions over a derived table.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp

from vpush.optimizer.dialect import TYPED_LITERAL, VariantGet, call_name
from vpush.optimizer.errors import OptimizeError, refuse_on_duckdb
from vpush.optimizer.interval_text import MICROS_PER_DAY, MICROS_PER_UNIT, MONTHS_PER_UNIT
from vpush.optimizer.variant_types import AtomicType, SparkType, StringType, StructField, StructType

__all__ = [
    "SESSION_WINDOW_MARKER", "TIME_WINDOW_FUNCTIONS", "TIME_WINDOW_JOIN", "TIME_WINDOW_MARKER", "UNKNOWN_MARKER", "check_time_windows",
    "check_window_times", "grouped_session", "marked", "merge_sessions", "order_past_time_window", "projected_type",
    "refuse_distinct_sessions", "rewrite_time_windows", "window_time_type", "SESSIONS_MERGED",
]

TIME_WINDOW_FUNCTIONS = frozenset({"window", "window_time", "session_window"})
"""The calls this module decides on, by the lower-cased name the user writes."""

TIME_WINDOW_JOIN = "vpush_time_window_join"
"""The meta key of a lateral join written for ``window``: its ``_Expand``."""

TIME_WINDOW_MARKER = "spark.timeWindow"
"""``TimeWindow.marker``: the metadata key Spark puts on a ``window(...)`` column."""

SESSION_WINDOW_MARKER = "spark.sessionWindow"
"""``SessionWindow.marker``: the metadata key Spark puts on a ``session_window(...)`` column."""

UNKNOWN_MARKER = "vpush.unknownMarker"
"""A window-shaped column whose marker vpush does not follow (a struct field's own metadata, a
table's column, which Spark may have written with its metadata)."""

WINDOW_COLUMN = "window"
SESSION_COLUMN = "session_window"
_PREFIX = "__vpush_time_window_"
_ORDER = "__vpush_order"
_INNER = "__vpush_time_window"
_TIMESTAMPS = (AtomicType("timestamp"), AtomicType("timestamp_ntz"))
# IntervalUtils.stringToInterval: [interval] then (sign? digits[.digits] unit[s])+, spaces between
_INTERVAL_PART = re.compile(r"([+-]?)\s*(\d+)(?:\.(\d*))?\s+([a-z]+?)s?(?=\s|$)")
_LONG_MAX = 2**63 - 1


@dataclass
class _Window:
    """One ``window`` call: its time and its durations in microseconds."""

    call: exp.Expr
    time: exp.Expr
    window: int
    slide: int
    start: int

    def key(self) -> tuple[str, int, int, int]:
        # Spark resolves each `v:a::t` apart, so two windows of one such time differ (measured
        # on PySpark 4.3: _LEGACY_ERROR_TEMP_1039), where two of variant_get(v, '$.a', 't') do not
        text = self.time.sql(dialect="vpushspark").lower()
        return (f"{text}#{id(self.call)}" if _colon_extraction(self.time) else text, self.window, self.slide, self.start)


def _colon_extraction(node: exp.Expr) -> bool:
    """Whether ``node`` holds a variant extraction written ``v:a`` (or the scan column that
    replaced one: :data:`~vpush.optimizer.spark_semantics.SPARK_TEXT` keeps its text)."""
    from vpush.optimizer.spark_semantics import SPARK_TEXT

    for inner in node.walk():
        if isinstance(inner, VariantGet) and inner.args.get("colon"):
            return True
        text = inner.meta.get(SPARK_TEXT) if isinstance(inner, exp.Column) else None
        if isinstance(text, str) and ":" in text and not re.match(r"(?i)\s*(try_)?variant_get\s*\(", text):
            return True
    return False


def _spark_sql(node: exp.Expr) -> str:
    return node.sql(dialect="vpushspark")


def _unparsable(text: str) -> OptimizeError:
    return OptimizeError(
        f"Unable to parse '{text}'. Please ensure that the value provided is in a valid format for defining an "
        "interval. You can reference the documentation for the correct format. If the issue persists, please "
        "double check that the input value is not null or empty and try again.",
        error_class="CANNOT_PARSE_INTERVAL",
    )


def _interval_parts(text: str) -> tuple[int, int, int]:
    """Spark's ``IntervalUtils.stringToInterval`` of a duration string: its months, days and
    microseconds (a fraction of seconds only, to the microsecond)."""
    body = text.strip().lower()
    if body == "interval" or (body.startswith("interval") and body[len("interval"):][:1].isspace()):
        body = body[len("interval"):].strip()
    months = days = micros = 0
    position = 0
    while position < len(body):
        match = _INTERVAL_PART.match(body, position)
        if match is None:
            raise _unparsable(text)
        sign, whole, fraction, word = match.groups()
        unit = word.upper()
        if (unit not in MICROS_PER_UNIT and unit not in MONTHS_PER_UNIT) or (fraction is not None and unit != "SECOND"):
            raise _unparsable(text)
        signed = -1 if sign == "-" else 1
        if unit in MONTHS_PER_UNIT:
            months += signed * int(whole) * MONTHS_PER_UNIT[unit]
        elif unit in ("WEEK", "DAY"):
            days += signed * int(whole) * (MICROS_PER_UNIT[unit] // MICROS_PER_DAY)
        else:
            micros += signed * (int(whole) * MICROS_PER_UNIT[unit] + int((fraction or "")[:6].ljust(6, "0")))
        position = match.end()
        while position < len(body) and body[position].isspace():
            position += 1
    if not body:
        raise _unparsable(text)
    return months, days, micros


def _interval_micros(text: str) -> int:
    """Spark's ``TimeWindow.getIntervalInMicroSeconds`` of a duration string: its days and
    microseconds, a month refused."""
    months, days, micros = _interval_parts(text)
    if months != 0:
        raise OptimizeError(f"Intervals greater than a month is not supported ({text}).", error_class="_LEGACY_ERROR_TEMP_3231")
    return days * MICROS_PER_DAY + micros


def _duration(argument: exp.Expr) -> int:
    """A duration argument in microseconds: a string literal (an interval), or an integer literal."""
    node, sign = argument, 1
    while isinstance(node, exp.Neg):
        node, sign = node.this, -sign
    if isinstance(node, exp.Cast) and node.meta.get(TYPED_LITERAL) and node.to.this in (exp.DataType.Type.BIGINT, exp.DataType.Type.INT):
        node = node.this
    if isinstance(node, exp.Literal) and node.is_string and sign == 1:
        return _interval_micros(node.name)
    if isinstance(node, exp.Literal) and not node.is_string and re.fullmatch(r"\d+", node.name):
        return sign * int(node.name)
    raise OptimizeError("The duration and time inputs to window must be an integer, long or string literal.",
                        error_class="_LEGACY_ERROR_TEMP_1207")


def _window(call: exp.Expr) -> _Window:
    """The parts of one ``window`` call, checked as Spark's ``TimeWindow`` checks them."""
    arguments = list(call.expressions) if isinstance(call, exp.Anonymous) else []
    if not 2 <= len(arguments) <= 4:
        raise OptimizeError(
            f"The `window` requires [2, 3, 4] parameters but the actual number is {len(arguments)}. Please, refer to "
            "'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix.",
            error_class="WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
        )
    window = _duration(arguments[1])
    slide = _duration(arguments[2]) if len(arguments) > 2 else window
    start = _duration(arguments[3]) if len(arguments) > 3 else 0
    shown = f"window({_spark_sql(arguments[0])}, {window}, {slide}, {start})"
    for name, value in (("window_duration", window), ("slide_duration", slide)):
        if value <= 0:
            raise OptimizeError(
                f'Cannot resolve "{shown}" due to data type mismatch: The `{name}` must be between (0, {_LONG_MAX}] '
                f"(current value = {value}L).",
                error_class="DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
            )
    if slide > window:
        raise OptimizeError(
            f'Cannot resolve "{shown}" due to data type mismatch: The `slide_duration`({slide}L) must be <= the '
            f"`window_duration`({window}L).",
            error_class="DATATYPE_MISMATCH.PARAMETER_CONSTRAINT_VIOLATION",
        )
    if abs(start) >= slide:
        raise OptimizeError(
            f'Cannot resolve "{shown}" due to data type mismatch: The `abs(start_time)`({abs(start)}L) must be < the '
            f"`slide_duration`({slide}L).",
            error_class="DATATYPE_MISMATCH.PARAMETER_CONSTRAINT_VIOLATION",
        )
    return _Window(call, arguments[0], window, slide, start)


@dataclass
class _Session:
    """One ``session_window`` call: its time and its gap (months, days, microseconds; None where
    the gap is NULL or no interval, so that no row has a session)."""

    call: exp.Expr
    time: exp.Expr
    gap: tuple[int, int, int] | None
    dynamic: exp.Expr | None = None
    """A gap that is no literal: its microseconds of each row (Spark SQL; NULL where no interval)."""

    def key(self) -> tuple[str, tuple[int, int, int] | None, str]:
        text = self.time.sql(dialect="vpushspark").lower()
        gap = "" if self.dynamic is None else _spark_sql(self.call.expressions[1])
        return (f"session {text}#{id(self.call)}" if _colon_extraction(self.time) else f"session {text}", self.gap, gap)


def _gap_micros(gap: exp.Expr) -> exp.Expr | None:
    """A gap built of string literals by CASE, IF, coalesce and nvl (Spark casts each row's
    string to an interval) as each row's microseconds (NULL where a string is no interval), or None
    where its values are not all such literals without days or months, or NULL."""
    node = gap
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Null):
        return exp.Null()
    if isinstance(node, exp.Literal) and node.is_string:
        try:
            months, days, micros = _interval_parts(node.name)
        except OptimizeError:
            return exp.Null()
        return exp.Literal.number(days * MICROS_PER_DAY + micros) if months == 0 and days == 0 else None
    out = node.copy()
    if isinstance(node, exp.Case) and node.this is None:
        values = [branch.args.get("true") for branch in out.args.get("ifs") or []] + [out.args.get("default")]
    elif isinstance(node, exp.If):
        values = [out.args.get("true"), out.args.get("false")]
    elif isinstance(node, exp.Coalesce):
        values = [out.this, *out.expressions]
    else:
        return None
    for value in values:
        if value is None:
            continue
        leaf = _gap_micros(value)
        if leaf is None:
            return None
        value.replace(leaf)
    return out


def _gap_type_error(type_name: str) -> OptimizeError:
    return OptimizeError(f"Gap duration expression used in session window must be CalendarIntervalType, but got {type_name}.",
                         error_class="_LEGACY_ERROR_TEMP_1040")


def _session(call: exp.Expr) -> _Session:
    """The parts of one ``session_window`` call, its gap a literal as Spark casts it to an
    interval (``SessionWindowing``: a string, NULL where it is no interval)."""
    arguments = list(call.expressions) if isinstance(call, exp.Anonymous) else []
    if len(arguments) != 2:
        raise OptimizeError(
            f"The `session_window` requires 2 parameters but the actual number is {len(arguments)}. Please, refer to "
            "'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix.",
            error_class="WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
        )
    gap = arguments[1]
    while isinstance(gap, exp.Paren):
        gap = gap.this
    if isinstance(gap, exp.Null):
        return _Session(call, arguments[0], None)
    if isinstance(gap, exp.Literal) and gap.is_string:
        try:
            return _Session(call, arguments[0], _interval_parts(gap.name))
        except OptimizeError:
            return _Session(call, arguments[0], None)  # Spark's cast gives NULL: no row has a session
    if isinstance(gap, exp.Literal) and re.fullmatch(r"\d+", gap.name):
        raise _gap_type_error("IntegerType")
    if isinstance(gap, exp.Cast) and gap.meta.get(TYPED_LITERAL) and gap.to.this == exp.DataType.Type.BIGINT:
        raise _gap_type_error("LongType")
    if isinstance(gap, exp.Interval):
        raise _gap_type_error("DayTimeIntervalType")
    dynamic = _gap_micros(gap)
    if dynamic is not None:
        return _Session(call, arguments[0], (0, 0, 0), dynamic)
    refuse_on_duckdb("session_window", f"`{_spark_sql(call)}`, of a gap that is no literal nor a CASE, IF or coalesce of literals without days or months (Spark casts each row's string to an interval)")


def window_time_type(of_type: SparkType | None) -> SparkType | None:
    """The type of ``window_time`` of a window of type ``of_type`` (its ``end``'s), or None where
    ``of_type`` is no window: a ``struct<start, end>`` of one timestamp type."""
    if isinstance(of_type, StructType) and [f.name for f in of_type.fields] == ["start", "end"]:
        start, end = (f.type for f in of_type.fields)
        if start == end and end in _TIMESTAMPS:
            return end
    return None


def marked(of_type: SparkType | None, marker: str | None) -> SparkType | None:
    """``of_type`` carrying ``marker`` where it is window-shaped (:func:`window_time_type`)."""
    if isinstance(of_type, StructType) and window_time_type(of_type) is not None and of_type.marker != marker:
        return dataclasses.replace(of_type, marker=marker)
    return of_type


def projected_type(projection: exp.Expr, of_type: SparkType | None) -> SparkType | None:
    """The type of the column a SELECT's ``projection`` of type ``of_type`` gives, its window
    marker kept only where Spark keeps the metadata: an attribute, or an alias of one
    (``Alias.metadata``: a ``NamedExpression``'s own; ``max(w)``, ``CASE``, ``named_struct`` have
    none); an alias of a struct's field takes the field's, which vpush does not follow.

    Example:
        >>> import sqlglot
        >>> w = StructType((StructField("start", AtomicType("timestamp")), StructField("end", AtomicType("timestamp"))))
        >>> projected_type(sqlglot.parse_one("w AS x"), marked(w, TIME_WINDOW_MARKER)).marker
        'spark.timeWindow'
        >>> projected_type(sqlglot.parse_one("max(w) AS x"), marked(w, TIME_WINDOW_MARKER)).marker is None
        True
    """
    if not isinstance(of_type, StructType) or of_type.marker is None:
        return of_type
    node = projection.this if isinstance(projection, exp.Alias) else projection
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
        return of_type
    if isinstance(node, (exp.Dot, exp.Bracket)) or call_name(node) in ("get_struct_field", "struct_extract", "element_at", "get"):
        return marked(of_type, UNKNOWN_MARKER)
    return marked(of_type, None)


def _not_a_window_column(shown: str) -> OptimizeError:
    return OptimizeError(f"The input is not a correct window column: {shown};", error_class="_LEGACY_ERROR_TEMP_3101")


def _window_column_marker(argument: exp.Expr, select: exp.Select, type_of: Callable[[exp.Expr], SparkType | None]) -> str | None:
    """The marker of ``window_time``'s ``argument`` as Spark's ``ResolveWindowTime`` reads it (an
    attribute's metadata; nothing else has one), :data:`UNKNOWN_MARKER` where vpush cannot tell."""
    of_type = type_of(argument)
    if window_time_type(of_type) is None:
        if (of_type is None and isinstance(argument, exp.Column) and not argument.table and argument.name.lower() == WINDOW_COLUMN
                and any(TIME_WINDOW_JOIN in j.meta for j in select.args.get("joins") or [])):
            return TIME_WINDOW_MARKER  # the SELECT's own window(...) (GROUP BY window(ts, ...)), read by its name
        return UNKNOWN_MARKER  # not a window: the rewrite refuses or raises Spark's type error
    if not isinstance(argument, exp.Column):
        return None
    return of_type.marker if isinstance(of_type, StructType) else None


def _grouped_texts(select: exp.Select) -> set[str] | None:
    """The Spark SQL of the SELECT's grouping expressions (ordinals and output names read as
    Spark reads them), or None where every projection is grouped (``GROUP BY ALL``) or the
    grouping is of sets vpush does not read here."""
    group = select.args.get("group")
    if group is None:
        return set()
    if group.args.get("all"):
        return None
    if any(group.args.get(key) for key in ("rollup", "cube", "grouping_sets")) or any(
            isinstance(e, (exp.Rollup, exp.Cube, exp.GroupingSets)) for e in group.expressions):
        return None
    aliases = {p.alias.lower(): p.this for p in select.expressions if isinstance(p, exp.Alias)}
    texts = set()
    for expression in group.expressions:
        if isinstance(expression, exp.Literal) and not expression.is_string and expression.name.isdigit():
            position = int(expression.name)
            if 1 <= position <= len(select.expressions):
                projection = select.expressions[position - 1]
                expression = projection.this if isinstance(projection, exp.Alias) else projection
        elif isinstance(expression, exp.Column) and not expression.table and expression.name.lower() in aliases:
            expression = aliases[expression.name.lower()]
        texts.add(_spark_sql(expression).lower())
    return texts


def check_window_times(select: exp.Select, type_of: Callable[[exp.Expr], SparkType | None]) -> None:
    """Raise Spark's errors for the ``window_time`` calls of ``select`` (after its own windows
    became lateral joins, before anything else is rewritten), or refuse where vpush does not
    follow Spark.

    Spark's ``ResolveWindowTime`` takes only an attribute whose metadata carries the marker a
    window's or a session window's column has (``_LEGACY_ERROR_TEMP_3101`` otherwise), and adds a
    Project below the operator computing each call as a new column: in an aggregation, a call
    outside an aggregate is then a column of its own, grouped only where the GROUP BY holds the
    same call (``MISSING_AGGREGATION``, or ``MISSING_GROUP_BY`` without GROUP BY, otherwise).

    Raises:
        OptimizeError: ``_LEGACY_ERROR_TEMP_3101``, ``MISSING_AGGREGATION``, ``MISSING_GROUP_BY``;
            ``VPUSH_UNSUPPORTED_FUNCTION`` for a call in HAVING, ORDER BY or a window function's
            OVER, or of a column whose marker vpush does not follow.

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> window = StructType((StructField("start", AtomicType("timestamp")), StructField("end", AtomicType("timestamp"))))
        >>> select = sqlglot.parse_one("SELECT window_time(w) FROM s GROUP BY w", dialect=VpushSpark)
        >>> check_window_times(select, lambda n: marked(window, TIME_WINDOW_MARKER))
        Traceback (most recent call last):
        vpush.optimizer.errors.OptimizeError: [MISSING_AGGREGATION] The non-aggregating expression "window_time(w)" is based on columns which are not participating in the GROUP BY clause.
    """
    calls = _own_calls(select, frozenset({"window_time"}))
    if not calls:
        return
    from vpush.optimizer.spark_semantics import _aggregates, _inside_aggregate

    where = select.args.get("where")
    grouped = _grouped_texts(select) if select.args.get("group") is not None or any(_aggregates(p) for p in select.expressions) else None
    for call in calls:
        arguments = list(call.expressions) if isinstance(call, exp.Anonymous) else []
        if len(arguments) != 1:
            continue  # WRONG_NUM_ARGS, where the call is rewritten
        shown = f"window_time({_spark_sql(arguments[0])})"
        clause = _clause(call, select)
        if clause is None or not (clause is where or clause.arg_key in _MAIN_CLAUSES):
            where_in = "a window function" if clause is None else clause.key.upper()
            refuse_on_duckdb("window_time", f"`{shown}` in {where_in} (Spark computes it in a Project below "
                             "the operator; write it in the SELECT list and refer to its alias)")
        marker = _window_column_marker(arguments[0], select, type_of)
        if marker is None:
            raise _not_a_window_column(shown)
        if grouped is not None and clause is not where and not _inside_aggregate(call, select) and _spark_sql(call).lower() not in grouped:
            if select.args.get("group") is None:
                raise OptimizeError("The query does not include a GROUP BY clause. Add GROUP BY or turn it into the window "
                                    "functions using OVER clauses.", error_class="MISSING_GROUP_BY")
            raise OptimizeError(f'The non-aggregating expression "{shown}" is based on columns which are not '
                                "participating in the GROUP BY clause.", error_class="MISSING_AGGREGATION")
        if marker == UNKNOWN_MARKER and window_time_type(type_of(arguments[0])) is not None:
            refuse_on_duckdb("window_time", f"`{shown}`, of a column whose window marker vpush does not follow "
                             "(a struct's field, a table's column)")


def _own_calls(node: exp.Expr, names: frozenset[str]) -> list[exp.Expr]:
    """The calls named ``names`` in ``node``, not those of a nested query."""
    out = []
    for child in node.iter_expressions():
        if isinstance(child, (exp.Select, exp.Subquery, exp.SetOperation)):
            continue
        out.extend(_own_calls(child, names))
    if call_name(node) in names:
        out.append(node)
    return out


def _micros(value: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this="epoch_us", expressions=[value])


def _instant(micros: exp.Expr, of_type: SparkType) -> exp.Expr:
    """The timestamp of ``of_type`` at ``micros`` after the epoch (a ``timestamp``'s in UTC)."""
    wall = exp.Anonymous(this="make_timestamp", expressions=[micros])
    if of_type == AtomicType("timestamp"):
        return exp.Anonymous(this="timezone", expressions=[exp.Literal.string("UTC"), wall])
    return wall


def _lambda(body: exp.Expr, name: str) -> exp.Lambda:
    return exp.Lambda(this=body, expressions=[exp.to_identifier(name)])


@dataclass
class _Expand:
    """A lateral join of one window's windows: the list of the indexes ``i`` kept for a row."""

    alias: str
    count: int
    indexes: exp.Expr
    ordered: bool = False


def _expand(window: _Window, time: exp.Expr, of_type: SparkType, alias: str) -> tuple[exp.Join, _Expand]:
    """The lateral join of ``window``'s windows over its time ``time`` (DuckDB SQL of ``of_type``)."""
    count = -(-window.window // window.slide)
    micros = _micros(time.copy())
    remainder = exp.Mod(this=exp.Paren(this=exp.Sub(this=micros.copy(), expression=exp.Literal.number(window.start))),
                        expression=exp.Literal.number(window.slide))
    last_start = exp.Sub(this=micros.copy(), expression=exp.Case(
        ifs=[exp.If(this=exp.LT(this=remainder.copy(), expression=exp.Literal.number(0)),
                    true=exp.Add(this=remainder.copy(), expression=exp.Literal.number(window.slide)))],
        default=remainder.copy()))

    def start(i: exp.Expr) -> exp.Expr:
        return exp.Sub(this=exp.Paren(this=last_start.copy()), expression=exp.Mul(this=i, expression=exp.Literal.number(window.slide)))

    index = exp.column("i")
    kept: exp.Expr = exp.Not(this=exp.Is(this=time.copy(), expression=exp.Null()))
    if window.window % window.slide != 0:
        # start_i <= time < end_i in microseconds (Spark compares the timestamps)
        kept = exp.and_(
            exp.LTE(this=start(index.copy()), expression=micros.copy()),
            exp.LT(this=micros.copy(), expression=exp.Add(this=start(index.copy()), expression=exp.Literal.number(window.window))),
        )
    return _lateral(kept, count, start(index.copy()), exp.Add(this=start(index.copy()), expression=exp.Literal.number(window.window)),
                    of_type, alias, WINDOW_COLUMN)


def _session_expand(session: _Session, time: exp.Expr, shifted: exp.Expr, dynamic: exp.Expr | None, of_type: SparkType,
                    alias: str) -> tuple[exp.Join, _Expand]:
    """The lateral join of ``session``'s one session ``[time, time + gap)`` over its time
    ``time`` (DuckDB SQL of ``of_type``), ``shifted`` the time with the gap's months and days
    added (Spark's ``TimeAdd`` of the interval); kept as Spark's ``SessionWindowing`` filters:
    where the time is not NULL and, for a gap of no more than nothing, where the end passes the
    start (none for a NULL gap; ``dynamic``, DuckDB SQL, each row's microseconds of a gap that is
    no literal: those rows whose end passes the start)."""
    micros = _micros(time.copy())
    kept: exp.Expr = exp.Not(this=exp.Is(this=time.copy(), expression=exp.Null()))
    if dynamic is not None:
        end: exp.Expr = exp.Add(this=micros.copy(), expression=exp.Paren(this=dynamic))
        kept = exp.and_(kept, exp.GT(this=end.copy(), expression=micros.copy()))
    elif session.gap is None:
        kept, end = exp.false(), micros.copy()
    else:
        months, days, gap = session.gap
        end = exp.Add(this=_micros(shifted), expression=exp.Literal.number(gap))
        if months + days + gap <= 0:
            kept = exp.and_(kept, exp.GT(this=end.copy(), expression=micros.copy()))
    return _lateral(kept, 1, micros, end, of_type, alias, SESSION_COLUMN)


def _lateral(kept: exp.Expr, count: int, start: exp.Expr, end: exp.Expr, of_type: SparkType, alias: str,
             column: str) -> tuple[exp.Join, _Expand]:
    """The lateral join of a row's ``count`` windows ``i`` (``start`` and ``end`` in microseconds
    of ``i``), those where ``kept`` holds, as a column named ``column``."""
    indexes = exp.Anonymous(this="list_filter", expressions=[
        exp.Anonymous(this="range", expressions=[exp.Literal.number(count)]), _lambda(kept, "i")])
    struct = exp.Struct(expressions=[
        exp.PropertyEQ(this=exp.to_identifier("start", quoted=True), expression=_instant(start, of_type)),
        exp.PropertyEQ(this=exp.to_identifier("end", quoted=True), expression=_instant(end, of_type)),
    ])
    windows = exp.Explode(this=exp.Anonymous(this="list_transform", expressions=[indexes.copy(), _lambda(struct, "i")]))
    # the lateral's own column has a name no column of the time can have (DuckDB binds a name
    # in a SELECT list to the list's alias first); the join's alias names it `window`
    lateral = exp.select(exp.alias_(windows, exp.to_identifier(_INNER, quoted=True), copy=False), copy=False)
    join = exp.Join(
        this=exp.Lateral(this=exp.Subquery(this=lateral), alias=exp.TableAlias(
            this=exp.to_identifier(alias, quoted=True), columns=[exp.to_identifier(column, quoted=True)])),
        kind="CROSS",
    )
    expand = _Expand(alias, count, indexes)
    join.meta[TIME_WINDOW_JOIN] = expand
    return join, expand


def order_past_time_window(join: exp.Join, order: exp.Expr) -> exp.Column:
    """The place of each row of a time window's lateral ``join`` in Spark's order, given its
    input row's place ``order``: the row's windows follow it in the order ``i`` Spark's
    ``Expand`` gives them (a ``hugeint``: the place times the windows' count plus ``i``)."""
    expand: _Expand = join.meta[TIME_WINDOW_JOIN]
    column = exp.column(exp.to_identifier(_ORDER, quoted=True), table=exp.to_identifier(expand.alias, quoted=True))
    if not expand.ordered:
        expand.ordered = True
        place = exp.Add(this=exp.Mul(this=exp.cast(order.copy(), exp.DataType.build("HUGEINT")), expression=exp.Literal.number(expand.count)),
                        expression=exp.column("i"))
        places = exp.Explode(this=exp.Anonymous(this="list_transform", expressions=[expand.indexes.copy(), _lambda(place, "i")]))
        lateral = join.this.this.this
        lateral.append("expressions", exp.alias_(places, exp.to_identifier(f"{_INNER}_order", quoted=True), copy=False))
        join.this.args["alias"].append("columns", exp.to_identifier(_ORDER, quoted=True))
        select = join.parent
        if isinstance(select, exp.Select):
            _exclude(select, expand.alias, _ORDER)
    return column


def _exclude(select: exp.Select, alias: str, name: str) -> None:
    """Keep the lateral ``alias``'s column ``name`` out of ``*`` in ``select``."""
    for projection in select.expressions:
        if isinstance(projection, exp.Star):
            excluded = list(projection.args.get("except_") or [])
            projection.set("except_", excluded + [exp.column(exp.to_identifier(name, quoted=True), table=exp.to_identifier(alias, quoted=True))])


_MAIN_CLAUSES = ("expressions", "group")


def _clause(call: exp.Expr, select: exp.Select) -> exp.Expr | None:
    """The clause of ``select`` that holds ``call``, or None inside a window function."""
    clause: exp.Expr = call
    while clause.parent is not select:
        if isinstance(clause.parent, exp.Window) or clause.parent is None:
            return None
        clause = clause.parent
    return clause


def _check_one_window(windows: list[_Window] | list[_Window | _Session]) -> None:
    """Spark's error for different windows in one operator (TimeWindowing expands one only)."""
    if len({w.key() for w in windows}) > 1:
        raise OptimizeError(
            "Multiple time/session window expressions would result in a cartesian product of rows, therefore they "
            "are currently not supported.",
            error_class="_LEGACY_ERROR_TEMP_1039",
        )


def check_time_windows(expression: exp.Expr) -> None:
    """Raise Spark's ``_LEGACY_ERROR_TEMP_1039`` for one clause's windows of a time extracted as
    ``v:a``, on either engine, before the extractions become scan columns (which the Spark engine
    reads as one column, so Spark would see one window).

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> check_time_windows(sqlglot.parse_one("SELECT window(v:t::timestamp, '1 day') FROM t GROUP BY 1", dialect=VpushSpark))
        >>> check_time_windows(sqlglot.parse_one(
        ...     "SELECT window(v:t::timestamp, '1 day').start FROM t GROUP BY window(v:t::timestamp, '1 day')", dialect=VpushSpark))
        Traceback (most recent call last):
        vpush.optimizer.errors.OptimizeError: [_LEGACY_ERROR_TEMP_1039] Multiple time/session window expressions would result in a cartesian product of rows, therefore they are currently not supported.
    """
    for select in expression.find_all(exp.Select):
        where = select.args.get("where")
        parts: list[list[_Window | _Session]] = [[], []]
        for call in _own_calls(select, frozenset({"window", "session_window"})):
            clause = _clause(call, select)
            if clause is None or not (clause is where or clause.arg_key in _MAIN_CLAUSES):
                continue
            try:
                window = _window(call) if call_name(call) == "window" else _session(call)
            except OptimizeError:
                continue  # raised where the query is planned, in Spark's order of checks
            parts[0 if clause is where else 1].append(window)
        for part in parts:
            if any(_colon_extraction(w.time) for w in part):
                _check_one_window(part)


def rewrite_time_windows(
    select: exp.Select, type_of: Callable[[exp.Expr], SparkType | None], transform: Callable[[exp.Expr], exp.Expr]
) -> dict[str, Mapping[str, SparkType]]:
    """Rewrite the ``window`` calls of ``select`` (one SELECT, Spark SQL) into lateral joins of
    their windows, in place; return the joins' columns by the joins' aliases.

    Args:
        select: the SELECT; its FROM and joins typed by ``type_of``.
        type_of: the Spark type of an expression of the SELECT.
        transform: rewrites an expression of the SELECT into DuckDB SQL with Spark's answer.

    Raises:
        OptimizeError: Spark's error class where Spark raises (a duration that is no literal, a
            month, windows that do not fit, several windows in one clause); ``VPUSH_UNSUPPORTED_FUNCTION``
            where vpush does not answer as Spark (``session_window``, a window in HAVING or ORDER BY).

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> select = sqlglot.parse_one("SELECT window(ts, '10 minutes').start AS w FROM t", dialect=VpushSpark)
        >>> columns = rewrite_time_windows(select, lambda n: AtomicType("timestamp"), lambda n: n)
        >>> {alias: {name: t.to_spark() for name, t in cs.items()} for alias, cs in columns.items()}
        {'__vpush_time_window_0': {'window': 'struct<start:timestamp,end:timestamp>'}}
        >>> select.sql(dialect="duckdb")[:87]
        'SELECT "__vpush_time_window_0"."window".start AS w FROM t CROSS JOIN LATERAL (SELECT UN'
    """
    calls = _own_calls(select, TIME_WINDOW_FUNCTIONS - {"window_time"})
    if not calls:
        return {}
    where = select.args.get("where")
    parts: list[list[exp.Expr]] = [[], []]  # the WHERE's calls, then the aggregation's or projection's
    for call in calls:
        called = call_name(call) or "window"
        clause = _clause(call, select)
        if clause is None:
            refuse_on_duckdb(called, f"`{_spark_sql(call)}` in a window function")
        if clause is where:
            parts[0].append(call)
        elif clause.arg_key in _MAIN_CLAUSES:
            parts[1].append(call)
        else:
            refuse_on_duckdb(called, f"`{_spark_sql(call)}` in {clause.key.upper()} (write it in the SELECT list and refer to its alias)")
    produced: dict[str, Mapping[str, SparkType]] = {}
    plans: list[tuple[list[exp.Expr], _Window | _Session, SparkType]] = []
    for part in parts:
        if not part:
            continue
        windows: list[_Window | _Session] = [_window(call) if call_name(call) == "window" else _session(call) for call in part]
        _check_one_window(windows)
        time_type = type_of(windows[0].time)
        if time_type is None:
            refuse_on_duckdb(call_name(windows[0].call) or "window",
                             f"`{_spark_sql(windows[0].call)}` over a time of a type vpush does not know here")
        if isinstance(windows[0], _Session) and time_type not in (*_TIMESTAMPS, AtomicType("date")) and not isinstance(time_type, StringType):
            refuse_on_duckdb("session_window", f"`{_spark_sql(windows[0].call)}` over a time of type {time_type.to_spark()}")
        plans.append((part, windows[0], time_type))
    # Only now that nothing can be refused is the tree changed.
    for number, (part, window, time_type) in enumerate(plans):
        time = window.time
        if window_time_type(time_type) is not None:
            # a window of windows: Spark's window over the window's window_time
            time = exp.Anonymous(this="window_time", expressions=[time.copy()])
            time_type = window_time_type(time_type) or time_type
        elif time_type == AtomicType("date") or isinstance(time_type, StringType):
            # Spark's implicit cast to a timestamp (in the session's time zone)
            time = exp.cast(time.copy(), exp.DataType.build("timestamp"))
            time_type = AtomicType("timestamp")
        elif time_type not in _TIMESTAMPS and isinstance(window, _Window):
            raise OptimizeError(
                f'Cannot resolve "window({_spark_sql(window.time)}, {window.window}, {window.slide}, {window.start})" due to '
                'data type mismatch: The first parameter requires the ("(TIMESTAMP OR TIMESTAMP WITHOUT TIME ZONE)" or '
                '"STRUCT<start: TIMESTAMP, end: TIMESTAMP>" or "STRUCT<start: TIMESTAMP_NTZ, end: TIMESTAMP_NTZ>") type, '
                f'however "{_spark_sql(window.time)}" has the type "{time_type.to_sql()}".',
                error_class="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            )
        else:
            time = time.copy()
        alias = f"{_PREFIX}{number}"
        if isinstance(window, _Window):
            join, _ = _expand(window, transform(time), time_type, alias)
            name, marker = WINDOW_COLUMN, TIME_WINDOW_MARKER
        else:
            dynamic = transform(window.dynamic.copy()) if window.dynamic is not None else None
            join, _ = _session_expand(window, transform(time), transform(_calendar_shift(time, window.gap)), dynamic, time_type, alias)
            name, marker = SESSION_COLUMN, SESSION_WINDOW_MARKER
        if select.args.get("from_") is None:
            # a SELECT without FROM reads one row (Spark's OneRowRelation): the windows are its FROM
            select.set("from_", exp.From(this=exp.Subquery(this=exp.select(exp.Literal.number(1), copy=False),
                                                           alias=exp.TableAlias(this=exp.to_identifier(f"{alias}_row", quoted=True)))))
        select.append("joins", join)
        produced[alias] = {name: StructType((StructField("start", time_type), StructField("end", time_type)), marker=marker)}
        for call in part:
            column = exp.column(exp.to_identifier(name, quoted=True), table=exp.to_identifier(alias, quoted=True))
            shown = _projection_name(call, select, name)
            named = call if call.parent is select else call.parent
            call.replace(column)
            if shown is not None and named is not None:
                _wrap_in_alias(column if named is call else named, shown)
        _exclude(select, alias, name)
    return produced


def _calendar_shift(time: exp.Expr, gap: tuple[int, int, int] | None) -> exp.Expr:
    """``time`` (Spark SQL) with the gap's months, then its days, added to its local date-time
    (Spark's ``timestampAddInterval``), as Spark's ``timestampadd`` adds them."""
    shifted = time.copy()
    months, days, _ = gap or (0, 0, 0)
    for unit, count in (("MONTH", months), ("DAY", days)):
        if count != 0:
            shifted = exp.TimestampAdd(this=shifted, expression=exp.Literal.number(count), unit=exp.var(unit))
    return shifted


def _wrap_in_alias(node: exp.Expr, name: str) -> None:
    alias = exp.Alias(alias=exp.to_identifier(name, quoted=True))
    node.replace(alias)
    alias.set("this", node)


def _projection_name(call: exp.Expr, select: exp.Select, column: str) -> str | None:
    """The name Spark gives a projection that is the call itself (``window``) or one field of
    it (``window.start``), where it has no alias."""
    parent = call.parent
    if parent is select and call.arg_key == "expressions":
        return column
    if isinstance(parent, exp.Dot) and parent.parent is select and parent.arg_key == "expressions":
        return f"{column}.{parent.expression.name}"
    if (isinstance(parent, exp.Bracket) and parent.parent is select and parent.arg_key == "expressions"
            and len(parent.expressions) == 1 and isinstance(parent.expressions[0], exp.Literal) and parent.expressions[0].is_string):
        return f"{column}.{parent.expressions[0].name}"
    return None


SESSIONS_MERGED = "vpush_sessions_merged"
"""The meta key of a SELECT whose GROUP BY merges sessions (:func:`merge_sessions`): the session
column's SQL and type."""

_SESSIONS = "__vpush_sessions"


def grouped_session(select: exp.Select, type_of: Callable[[exp.Expr], SparkType | None]) -> None:
    """Note on ``select`` (its meta :data:`SESSIONS_MERGED`) the session column its GROUP BY
    groups by (a column whose metadata carries ``SessionWindow.marker``: Spark's planner then
    merges each group's overlapping sessions, :func:`merge_sessions`), refusing the forms vpush
    does not merge as Spark does.

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for sessions under ROLLUP, CUBE, GROUPING
            SETS or GROUP BY ALL, two session columns, DISTINCT, a subquery or a lambda in the SELECT.

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> session = StructType((StructField("start", AtomicType("timestamp")), StructField("end", AtomicType("timestamp"))),
        ...                      marker=SESSION_WINDOW_MARKER)
        >>> select = sqlglot.parse_one("SELECT k, s, count(*) FROM x GROUP BY k, s", dialect=VpushSpark)
        >>> grouped_session(select, lambda n: session if n.sql() == "s" else AtomicType("int"))
        >>> select.meta[SESSIONS_MERGED][0]
        's'
    """
    def is_session(node: exp.Expr) -> bool:
        of_type = type_of(node)
        return isinstance(node, exp.Column) and isinstance(of_type, StructType) and of_type.marker == SESSION_WINDOW_MARKER

    group = select.args.get("group")
    if group is None:
        if select.args.get("distinct") is not None and any(is_session(p.unalias()) for p in select.expressions):
            refuse_on_duckdb("session_window", "DISTINCT sessions (Spark merges them as it merges a GROUP BY's)")
        return
    resolved = _group_expressions(select)
    sessions = {_spark_sql(e): e for e in resolved if is_session(e)}
    if not sessions:
        if _grouping_sets(group):
            if any(is_session(c) for c in select.find_all(exp.Column)):
                refuse_on_duckdb("session_window", "sessions grouped by GROUP BY ALL, ROLLUP, CUBE or GROUPING SETS")
        return
    why = None
    if len(sessions) > 1:
        why = "two session columns in one GROUP BY"
    elif _grouping_sets(group):
        why = "sessions grouped by GROUP BY ALL, ROLLUP, CUBE or GROUPING SETS"
    elif select.args.get("laterals") or any(part.find(exp.Subquery, exp.Select, exp.Lambda) for part in _outer_parts(select)) or any(
            p.is_star for p in select.expressions):
        why = "sessions merged in a SELECT with a subquery, a lambda, a LATERAL VIEW or a star"
    if why is not None:
        refuse_on_duckdb("session_window", why)
    session = next(iter(sessions.values()))
    select.meta[SESSIONS_MERGED] = (session.sql(dialect="duckdb"), type_of(session))


def _grouping_sets(group: exp.Group) -> bool:
    """Whether ``group`` is ``GROUP BY ALL`` or groups by sets (ROLLUP, CUBE, GROUPING SETS, WITH ROLLUP)."""
    return bool(any(group.args.get(key) for key in ("all", "rollup", "cube", "grouping_sets", "totals")) or any(
        isinstance(e, (exp.Rollup, exp.Cube, exp.GroupingSets)) for e in group.expressions))


def refuse_distinct_sessions(types: Sequence[SparkType | None]) -> None:
    """Refuse the distinct rows of a set operation (``UNION``, ``INTERSECT``, ``EXCEPT``) whose
    first branch gives a session column: Spark's aggregation of the distinct rows groups by it and
    merges the sessions.

    Raises:
        OptimizeError: ``VPUSH_UNSUPPORTED_FUNCTION`` for such a set operation.

    Example:
        >>> refuse_distinct_sessions([AtomicType("int")])
    """
    if any(isinstance(t, StructType) and t.marker == SESSION_WINDOW_MARKER for t in types):
        refuse_on_duckdb("session_window", "the distinct rows of a set operation of sessions (Spark merges them as a "
                         "GROUP BY of them)")


def _outer_parts(select: exp.Select) -> list[exp.Expr]:
    """The parts of ``select`` that read its aggregation: the SELECT list, GROUP BY, HAVING,
    ORDER BY and QUALIFY."""
    return [*select.expressions, *(p for p in (select.args.get(k) for k in ("group", "having", "order", "qualify")) if p is not None)]


def _group_expressions(select: exp.Select) -> list[exp.Expr]:
    """The GROUP BY's expressions, an ordinal or an output name read as the projection's."""
    group = select.args.get("group")
    aliases = {p.alias.lower(): p.this for p in select.expressions if isinstance(p, exp.Alias)}
    out = []
    for expression in group.expressions if group is not None else []:
        if isinstance(expression, exp.Literal) and not expression.is_string and expression.name.isdigit():
            position = int(expression.name)
            if 1 <= position <= len(select.expressions):
                expression = select.expressions[position - 1].unalias()
        elif isinstance(expression, exp.Column) and not expression.table and expression.name.lower() in aliases:
            expression = aliases[expression.name.lower()]
        out.append(expression)
    return out


def _window_over(function: exp.Expr, keys: Sequence[exp.Expr], order: exp.Expr | None, preceding: bool) -> exp.Window:
    """``function`` over the rows of its keys (``ORDER BY order`` with a frame from the first row
    to the row before, or to the row's peers). The frame before is of ROWS, not of RANGE ending
    ``1 PRECEDING``: DuckDB's RANGE frames with an offset have given different answers from run
    to run (duckdb/duckdb#16098), and the merge needs no more (a row tied with the one before
    starts no session, as that one's end passes their start)."""
    spec = exp.WindowSpec(kind="ROWS" if preceding else "RANGE", start="UNBOUNDED", start_side="PRECEDING",
                          end=exp.Literal.number(1) if preceding else "CURRENT ROW", end_side="PRECEDING" if preceding else None)
    window = exp.Window(this=function, partition_by=[k.copy() for k in keys] or None)
    if order is not None:
        window.set("order", exp.Order(expressions=[exp.Ordered(this=order.copy())]))
        window.set("spec", spec)
    return window


def merge_sessions(select: exp.Select, columns: Mapping[str, Mapping[str, SparkType | None]]) -> None:
    """Merge the sessions ``select`` groups by (noted by :func:`grouped_session`; DuckDB SQL, in
    place) as Spark's ``MergingSessionsExec`` merges them: each group's rows (by the GROUP BY's
    other keys) sorted by their session's start, a session merged into the one before where it
    starts no later than that one's end (the end the later of theirs). A gaps-and-islands
    computation: a row starts a session where its start passes every end of the rows that start
    before it, a running count of those starts numbers the sessions, and each session's bounds
    are its rows' least start and greatest end. The SELECT then reads its sources' columns it
    names (``columns``: by source alias) and the merged session from a derived table of them.

    Example:
        >>> import sqlglot
        >>> session = StructType((StructField("start", AtomicType("timestamp")), StructField("end", AtomicType("timestamp"))))
        >>> select = sqlglot.parse_one("SELECT k, s, count(*) FROM x GROUP BY k, s", dialect="duckdb")
        >>> select.meta[SESSIONS_MERGED] = ("s", session)
        >>> merge_sessions(select, {"x": {"k": AtomicType("int"), "s": session}})
        >>> select.sql(dialect="duckdb")[:91]
        'SELECT "__vpush_sessions"."__vpush_c0" AS "k", "__vpush_sessions"."s" AS "s", COUNT(*) FROM'
    """
    noted = select.meta.get(SESSIONS_MERGED)
    if noted is None:
        return
    session_sql, session_type = noted
    of_type = session_type.fields[0].type
    sources = {alias.lower() for alias in columns}
    names = {name.lower() for cols in columns.values() for name in cols}
    session = next((c for c in select.find_all(exp.Column) if c.sql(dialect="duckdb") == session_sql), None)
    if session is None:  # rewritten past recognition: not merged otherwise than Spark
        refuse_on_duckdb("session_window", "sessions grouped by a column vpush rewrote")
    session_name = session.name
    keys = [e.copy() for e in _group_expressions(select) if e.sql(dialect="duckdb") != session_sql]
    mapped: dict[str, str] = {}
    inner: list[exp.Expr] = []

    def read(column: exp.Column) -> exp.Column:
        text = column.sql(dialect="duckdb")
        if text not in mapped:
            mapped[text] = f"__vpush_c{len(mapped)}"
            inner.append(exp.alias_(column.copy(), exp.to_identifier(mapped[text], quoted=True), copy=False))
        return exp.column(exp.to_identifier(mapped[text], quoted=True), table=exp.to_identifier(_SESSIONS, quoted=True))

    for projection in list(select.expressions):
        if isinstance(projection, exp.Column) and not isinstance(projection.this, exp.Star):
            _wrap_in_alias(projection, projection.name)  # the name Spark gives it, kept past its new source
    for part in _outer_parts(select):
        for column in list(part.find_all(exp.Column)):
            if isinstance(column.this, exp.Star):
                continue
            if column.sql(dialect="duckdb") == session_sql:
                column.replace(exp.column(exp.to_identifier(session_name, quoted=True), table=exp.to_identifier(_SESSIONS, quoted=True)))
            elif column.table and column.table.lower() in sources:
                column.replace(read(column))
            elif column.table and not column.args.get("db") and column.table.lower() in names and column.table != session_name:
                # a field of a source's struct column (w.start)
                column.replace(exp.Dot(this=read(exp.column(exp.to_identifier(column.table, quoted=True))), expression=column.this.copy()))
            elif not column.table and column.name.lower() in names and column.name != session_name:
                column.replace(read(column))
    keyed = [exp.column(exp.to_identifier(f"__vpush_k{i}", quoted=True)) for i in range(len(keys))]
    start, end = (_micros(exp.Anonymous(this="struct_extract", expressions=[session.copy(), exp.Literal.string(f)])) for f in ("start", "end"))
    first = exp.select(
        *inner,
        *(exp.alias_(k.copy(), exp.to_identifier(f"__vpush_k{i}", quoted=True), copy=False) for i, k in enumerate(keys)),
        exp.alias_(start.copy(), exp.to_identifier("__vpush_s", quoted=True), copy=False),
        exp.alias_(end.copy(), exp.to_identifier("__vpush_e", quoted=True), copy=False),
        exp.alias_(_window_over(exp.Max(this=end.copy()), keys, start, preceding=True), exp.to_identifier("__vpush_p", quoted=True), copy=False),
        copy=False,
    )
    for key in ("from_", "joins", "where"):
        if select.args.get(key) is not None:
            first.set(key, select.args[key])
            select.set(key, None)
    s, e, p = (exp.column(exp.to_identifier(n, quoted=True)) for n in ("__vpush_s", "__vpush_e", "__vpush_p"))
    begins = exp.Case(ifs=[exp.If(this=exp.or_(exp.Is(this=p.copy(), expression=exp.Null()), exp.GT(this=s.copy(), expression=p.copy())),
                                  true=exp.Literal.number(1))], default=exp.Literal.number(0))
    second = exp.select(exp.Star(), exp.alias_(_window_over(exp.Sum(this=begins), keyed, s, preceding=False),
                                               exp.to_identifier("__vpush_n", quoted=True), copy=False), copy=False
                        ).from_(exp.Subquery(this=first, alias=exp.TableAlias(this=exp.to_identifier("__vpush_l1", quoted=True))), copy=False)
    by_session = [*keyed, exp.column(exp.to_identifier("__vpush_n", quoted=True))]
    merged = exp.Struct(expressions=[
        exp.PropertyEQ(this=exp.to_identifier("start", quoted=True), expression=_instant(_window_over(exp.Min(this=s.copy()), by_session, None, False), of_type)),
        exp.PropertyEQ(this=exp.to_identifier("end", quoted=True), expression=_instant(_window_over(exp.Max(this=e.copy()), by_session, None, False), of_type)),
    ])
    third = exp.select(exp.Star(), exp.alias_(merged, exp.to_identifier(session_name, quoted=True), copy=False), copy=False).from_(
        exp.Subquery(this=second, alias=exp.TableAlias(this=exp.to_identifier("__vpush_l2", quoted=True))), copy=False)
    select.set("from_", exp.From(this=exp.Subquery(this=third, alias=exp.TableAlias(this=exp.to_identifier(_SESSIONS, quoted=True)))))
