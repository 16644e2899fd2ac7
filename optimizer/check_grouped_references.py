"""Spark's errors for a HAVING or ORDER BY of an aggregating SELECT that reads a column the
aggregate does not keep: ``UNRESOLVED_COLUMN.WITH_SUGGESTION`` (and, under ROLLUP, CUBE or
GROUPING SETS, ``GROUPING_COLUMN_MISMATCH``/``GROUPING_ID_COLUMN_MISMATCH``).

Spark resolves those clauses over the aggregate. A part of one that is semantically equal to a
grouping expression (``semanticEquals``, :func:`~vpush.optimizer.spark_analysis.canonical_sql`)
reads that key, an aggregate reads the rows, an output's name reads the output, and a column
that is itself a key reads it; any other column stays unresolved (measured on PySpark 4.3):

- ``SELECT v:a::string AS t ... GROUP BY 1 ORDER BY variant_get(v, '$.a', 'string')`` raises:
  the key is ``cast(variant_get(v, '$.a') AS string)``, another expression, while
  ``ORDER BY cast(variant_get(v, '$.a') AS string)`` is answered. A colon extraction in those
  clauses is never matched, not even to the same text (``ORDER BY v:a::string``: the alias Spark's
  parser puts inside it differs from the key's), only inside an aggregate.
- ``GROUP BY i + 1 ORDER BY 1 + i`` is answered, ``ORDER BY i + 2`` or ``ORDER BY i`` raises.
- An ORDER BY reads only the keys that are columns where its Sort does not stand right over the
  Aggregate: under ROLLUP, CUBE or GROUPING SETS (whose keys are the grouping sets' outputs:
  ``GROUP BY CUBE(i + 1) ORDER BY i + 1`` raises on ``i``, ``ORDER BY grouping(i + 1)``
  ``GROUPING_COLUMN_MISMATCH``), and below a HAVING that adds to the Aggregate what the SELECT
  does not project (a Project of the outputs between). So does a HAVING over grouping sets that
  calls ``grouping``/``grouping_id``; one without those calls matches keys as above.

DuckDB matched its own way (``ORDER BY i + 1`` under ``CUBE(i + 1)`` answered, ``ORDER BY i``
under ``GROUP BY i + 1`` and ``ORDER BY 1 + i`` raised ``MISSING_AGGREGATION``): a part Spark
matches to a key in another form is written as the key here. Checked on the parsed query, where a
``variant_get`` is still told from a colon extraction, and only where the SELECT list is itself
grouped by the same rule (else Spark's ``MISSING_AGGREGATION`` comes first). A SELECT DISTINCT or
one that aggregates without GROUP BY has no keys: there only colon extractions are checked here
(the other columns where the sources are known).
"""
from __future__ import annotations

from collections.abc import Collection, Mapping

from sqlglot import exp

from vpush.optimizer.dialect import VariantGet, VpushSpark, bound_by_lambda, call_name
from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.spark_analysis import adds_to_aggregate, canonical_sql

__all__ = ["aggregate_call", "check_grouped_references", "holds_aggregate", "under_aggregate"]


def check_grouped_references(expression: exp.Expr) -> None:
    """Raise Spark's error for a column of a grouping SELECT's HAVING, ORDER BY or QUALIFY that
    the aggregate does not keep, as Spark's analyzer does; write a part of a HAVING or ORDER BY
    that Spark matches to a key in another form (``1 + i`` for ``i + 1``) as the key. In place.

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> sql = "SELECT i + 1 AS k, count(*) AS n FROM t GROUP BY {}"
        >>> check_grouped_references(sqlglot.parse_one(sql.format("i + 1 ORDER BY 1 + i, max(i)"), read=VpushSpark))
        >>> check_grouped_references(sqlglot.parse_one(sql.format("CUBE(i + 1) ORDER BY i + 1"), read=VpushSpark))
        Traceback (most recent call last):
        ...
        vpush.optimizer.errors.OptimizeError: [UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name `i` cannot be resolved. Did you mean one of the following? [`k`, `n`].

    Raises:
        OptimizeError: ``UNRESOLVED_COLUMN.WITH_SUGGESTION``, ``GROUPING_COLUMN_MISMATCH`` or
        ``GROUPING_ID_COLUMN_MISMATCH``.
    """
    for select in expression.find_all(exp.Select):
        if not _groups(select) or _in_an_expression(select):
            continue
        if any(p.is_star for p in select.expressions):
            continue  # outputs vpush does not know here
        group = select.args.get("group")
        if group is not None and any(isinstance(k, VariantGet) and k.args.get("to") is None for k in group.expressions):
            continue  # a variant key: Spark's GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE comes first
        _Check(select).run()


class _Check:
    """One grouping SELECT's keys, outputs and sources, and the walk of its clauses."""

    def __init__(self, select: exp.Select) -> None:
        self.select = select
        relations = [select.args.get("from_"), *(select.args.get("joins") or []), *(select.args.get("laterals") or [])]
        self.sources = {r.alias_or_name.lower() for r in relations if r is not None and r.alias_or_name}
        # ``t.x`` is ``x`` where ``t`` is the only source (over a join, ``x`` may be another's, or
        # a USING key, which this does not follow)
        self.dropped = self.sources if len(relations) == 1 else set()
        self.outputs = [p.alias_or_name for p in select.expressions if p.alias_or_name]
        # a qualified name (t.i) reads no alias: only an output that is a source's column
        self.column_outputs = {p.name.lower() for p in select.expressions if isinstance(p, exp.Column) and p.name}
        group = select.args.get("group")
        self.keyed = group is not None and select.args.get("distinct") is None
        keys, self.by_sets = _keys(select) if self.keyed else ([], False)
        self.keys: dict[str | None, exp.Expr] = {}
        for k in keys:
            self.keys.setdefault(_canonical(k, self.dropped, key=True), k)
        self.column_keys = {k.name.lower() for k in keys if isinstance(k, exp.Column) and not isinstance(k.this, exp.Star)}

    def run(self) -> None:
        if not self.keyed:
            for key in ("having", "order", "qualify"):
                self._raise(self._colon_extraction(self.select.args.get(key)))
            return
        # the SELECT list read by the full rule: a column it leaves is Spark's MISSING_AGGREGATION
        if any(self._unresolved(_unaliased(p), matched=self.keys, listed=True) is not None for p in self.select.expressions):
            return
        having = self.select.args.get("having")
        if having is not None:
            sets_only = self.by_sets and any(having.find_all(exp.Grouping, exp.GroupingId))
            self._raise(self._unresolved(having.this, matched={} if sets_only else self.keys))
        order = self.select.args.get("order")
        # the Sort stands over a Project of the outputs where the HAVING adds to the Aggregate
        projected = having is not None and adds_to_aggregate(having.this, self.select, list(self.select.args["group"].expressions))
        for ordered in order.expressions if order is not None else []:
            node = ordered.this
            if isinstance(node, exp.Column) and node.name.lower() == "all" and not node.table:
                continue  # ORDER BY ALL: every output
            if self.by_sets:
                self._check_grouping_calls(node)
            self._raise(self._unresolved(node, matched={} if self.by_sets or projected else self.keys))
        self._raise(self._colon_extraction(self.select.args.get("qualify")))

    def _unresolved(self, node: exp.Expr, *, matched: Mapping[str | None, exp.Expr], listed: bool = False) -> exp.Column | None:
        """The first column of ``node`` that reads neither a key (a part equal to one of
        ``matched``, or a key that is a plain column), an output by its name nor an aggregate's
        rows, left to right. ``listed``: ``node`` is in the SELECT list, where a colon extraction
        matches its key. A part of a HAVING or ORDER BY equal to a key in another form (``1 + i``
        for ``i + 1``, ``1 < s`` for ``s > 1``) is written as the key, which DuckDB's binder
        matches by its text (it raised ``MISSING_AGGREGATION``)."""
        canonical = _canonical(node, self.dropped, key=listed) if matched else None
        if canonical is not None and canonical in matched:
            key = matched[canonical]
            if not listed and not isinstance(node, exp.Column) and node.sql(dialect=VpushSpark) != key.sql(dialect=VpushSpark):
                node.replace(key.copy())
            return None
        if isinstance(node, exp.Column):
            if isinstance(node.this, exp.Star) or bound_by_lambda(node) or not self._reads_a_source(node):
                return None
            name = node.name.lower()
            outputs = self.column_outputs if node.table else {o.lower() for o in self.outputs}
            if name in self.column_keys or (not listed and name in outputs):
                return None
            return node
        if aggregate_call(node) or isinstance(node, (exp.Window, exp.Select, exp.Subquery, exp.Exists)):
            return None
        for child in node.iter_expressions():
            found = self._unresolved(child, matched=matched, listed=listed)
            if found is not None:
                return found
        return None

    def _reads_a_source(self, column: exp.Column) -> bool:
        """Whether ``column`` is a column of one of the sources (``x`` or ``t.x``), not a field
        of a struct column (``s.a``), which this does not follow."""
        parts = column.parts
        return len(parts) == 1 or (len(parts) == 2 and parts[0].name.lower() in self.sources)

    def _colon_extraction(self, clause: exp.Expr | None) -> exp.Column | None:
        """The column of the first colon extraction of ``clause`` outside an aggregate that no
        output names."""
        if clause is None:
            return None
        for node in clause.find_all(VariantGet):
            if not node.args.get("colon") or node.find_ancestor(exp.Select) is not self.select or under_aggregate(node, clause):
                continue
            base = node.this
            while isinstance(base, VariantGet):
                base = base.this
            if isinstance(base, exp.Column) and base.name.lower() not in {o.lower() for o in self.outputs}:
                return base
        return None

    def _check_grouping_calls(self, node: exp.Expr) -> None:
        """``grouping(x)``/``grouping_id(...)`` in an ORDER BY over grouping sets: each argument
        must be a key that is a plain column (the sets' outputs hold the others under new names)."""
        keys = list(dict.fromkeys(k.sql(dialect=VpushSpark) for k in _keys(self.select)[0]))
        for call in node.find_all(exp.Grouping, exp.GroupingId):
            if all(isinstance(a, exp.Column) and a.name.lower() in self.column_keys for a in call.expressions):
                continue
            shown = ", ".join(a.sql(dialect=VpushSpark) for a in call.expressions)
            columns = ", ".join(keys)
            if isinstance(call, exp.Grouping):
                raise OptimizeError(
                    f"Column of grouping ({shown}) can't be found in grouping columns {columns}.",
                    error_class="GROUPING_COLUMN_MISMATCH",
                )
            raise OptimizeError(
                f"Columns of grouping_id ({shown}) does not match grouping columns ({columns}).",
                error_class="GROUPING_ID_COLUMN_MISMATCH",
            )

    def _raise(self, column: exp.Column | None) -> None:
        if column is None:
            return
        shown = ", ".join(f"`{o}`" for o in sorted(self.outputs))
        raise OptimizeError(
            f"A column, variable, or function parameter with name `{column.name}` cannot be resolved. "
            f"Did you mean one of the following? [{shown}].",
            error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION",
        )


def _groups(select: exp.Select) -> bool:
    """Whether ``select`` aggregates: a GROUP BY, DISTINCT, or an aggregate (not under a window)
    in its list."""
    if select.args.get("group") is not None or select.args.get("distinct") is not None:
        return True
    return any(
        agg.find_ancestor(exp.Window) is None and agg.find_ancestor(exp.Select) is select
        for projection in select.expressions
        for agg in projection.find_all(exp.AggFunc)
    )


def _in_an_expression(select: exp.Select) -> bool:
    """Whether ``select`` is a subquery of an expression or a LATERAL one, whose names may be an
    enclosing query's columns."""
    child: exp.Expr = select
    parent = select.parent
    while parent is not None:
        if isinstance(parent, exp.Lateral):
            return True
        if isinstance(parent, exp.Select) and child.arg_key not in ("from_", "joins", "with_"):
            return True
        child, parent = parent, parent.parent
    return False


def _unaliased(node: exp.Expr) -> exp.Expr:
    return node.this if isinstance(node, exp.Alias) else node


def _keys(select: exp.Select) -> tuple[list[exp.Expr], bool]:
    """The grouping expressions of ``select`` (a position or an output's name given as that
    output's expression, and as itself), and whether it groups by sets (ROLLUP, CUBE, GROUPING
    SETS)."""
    group = select.args["group"]
    projections = [_unaliased(p) for p in select.expressions]
    found: list[exp.Expr] = []
    by_sets = False

    def add(node: exp.Expr) -> None:
        nonlocal by_sets
        if isinstance(node, (exp.Rollup, exp.Cube, exp.GroupingSets)):
            by_sets = True
            for part in node.expressions:
                add(part)
        elif isinstance(node, (exp.Tuple, exp.Paren)):
            for part in node.expressions if isinstance(node, exp.Tuple) else [node.this]:
                add(part)
        elif isinstance(node, exp.Literal) and node.is_int and 0 < int(node.this) <= len(projections):
            found.append(projections[int(node.this) - 1])
        elif isinstance(node, exp.Column) and node.name.lower() == "all" and not node.table:
            found.extend(p for p in projections if not holds_aggregate(p))  # GROUP BY ALL
        else:
            found.append(node)
            if isinstance(node, exp.Column):
                found.extend(p for p, o in zip(projections, select.expressions) if o.alias_or_name.lower() == node.name.lower())

    if group.args.get("all"):
        add(exp.column("all"))
    for key in ("expressions", "rollup", "cube", "grouping_sets"):
        for part in group.args.get(key) or []:
            by_sets = by_sets or key != "expressions"
            add(part)
    return found, by_sets


# Spark's aggregates that sqlglot reads as calls of its own kind or as unknown functions, not as
# an AggFunc
_OTHER_AGGREGATES = frozenset({
    "try_sum", "try_avg", "every", "some", "any", "bool_and", "bool_or", "std", "product", "histogram_numeric",
    "hll_sketch_agg", "count_if", "max_by", "min_by", "mode", "median", "percentile", "percentile_approx",
    "approx_percentile", "string_agg", "listagg", "regr_count", "any_value", "collect_list", "collect_set",
    "kurtosis", "skewness", "first", "last", "first_value", "last_value", "bit_and", "bit_or", "bit_xor",
})


# Spark's window functions, which sqlglot reads as an AggFunc: no aggregate (Spark computes them
# only in a window, never in the Aggregate)
_WINDOW_FUNCTIONS = (exp.Rank, exp.DenseRank, exp.PercentRank, exp.CumeDist, exp.Ntile, exp.Lag, exp.Lead, exp.NthValue)


def aggregate_call(node: exp.Expr) -> bool:
    """Whether ``node`` is an aggregate's call (its FILTER too), which reads the rows.

    Example:
        >>> import sqlglot
        >>> [aggregate_call(sqlglot.parse_one(f)) for f in ("max(i)", "grouping(i)", "lag(i)", "i + 1")]
        [True, False, False, False]
    """
    if isinstance(node, (exp.Grouping, exp.GroupingId, *_WINDOW_FUNCTIONS)):
        return False  # (sqlglot's AggFunc) reads the keys; a window function
    return isinstance(node, (exp.AggFunc, exp.Filter, exp.WithinGroup)) or (call_name(node) or "") in _OTHER_AGGREGATES


def holds_aggregate(node: exp.Expr) -> bool:
    """Whether ``node`` calls an aggregate outside a window and a subquery.

    Example:
        >>> import sqlglot
        >>> [holds_aggregate(sqlglot.parse_one(f)) for f in ("1 + max(i)", "max(i) OVER ()", "i + 1")]
        [True, False, False]
    """
    if aggregate_call(node):
        return True
    if isinstance(node, (exp.Window, exp.Select, exp.Subquery)):
        return False
    return any(holds_aggregate(child) for child in node.iter_expressions())


def under_aggregate(node: exp.Expr, clause: exp.Expr, *, windows: bool = False) -> bool:
    """Whether ``node`` is an argument of an aggregate (not a window's), its FILTER or its
    ``WITHIN GROUP`` ordering, within ``clause`` (``clause`` itself counted). ``windows``: a
    window's aggregate counted too (not its PARTITION BY or ORDER BY), as Spark's
    ``ResolveAggregateFunctions`` puts an aggregating SELECT's ORDER BY's into the aggregate."""
    child, parent = node, node.parent
    while parent is not None and parent is not clause.parent:
        if isinstance(parent, exp.Window) and not (windows and child.arg_key == "this"):
            return False
        if aggregate_call(parent):
            return windows or not isinstance(parent.parent, exp.Window)
        child, parent = parent, parent.parent
    return False


def _canonical(node: exp.Expr, sources: Collection[str], *, key: bool = False) -> str | None:
    """:func:`canonical_sql` of ``node``; None for a HAVING's or ORDER BY's part holding a colon
    extraction, which Spark never matches (a key's is its ``variant_get``)."""
    if not key and any(v.args.get("colon") for v in node.find_all(VariantGet)):
        return None
    return canonical_sql(node, sources)
