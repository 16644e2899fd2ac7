"""Spark's error for a colon extraction (``v:a::string``) in the HAVING, ORDER BY or QUALIFY of
an aggregating SELECT, outside an aggregate function: ``UNRESOLVED_COLUMN.WITH_SUGGESTION``.

Spark resolves those clauses against the aggregate's output, and a colon extraction there is not
matched to the same extraction of the GROUP BY, so its variant column is not found:
``SELECT v:a::string AS t FROM x GROUP BY 1 ORDER BY v:a::string`` raises, naming the outputs,
while ``variant_get(v, '$.a', 'string')`` there is matched, and so is a colon extraction inside
an aggregate (``ORDER BY max(v:b::int)``) or in a SELECT that does not aggregate (measured on
PySpark 4.3). DuckDB matched the GROUP BY's expression and answered.
"""
from __future__ import annotations

from sqlglot import exp

from vpush.optimizer.dialect import VariantGet, call_name
from vpush.optimizer.errors import OptimizeError

__all__ = ["check_grouped_extractions"]


def check_grouped_extractions(expression: exp.Expr) -> None:
    """Raise ``UNRESOLVED_COLUMN.WITH_SUGGESTION`` for a colon extraction of a column in the
    HAVING, ORDER BY or QUALIFY of a SELECT that groups (GROUP BY, DISTINCT, or an aggregate in
    its list), outside an aggregate, as Spark's analyzer does.

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> sql = "SELECT v:a::string AS t FROM x GROUP BY 1 ORDER BY {}"
        >>> check_grouped_extractions(sqlglot.parse_one(sql.format("max(v:b::int)"), read=VpushSpark))
        >>> check_grouped_extractions(sqlglot.parse_one(sql.format("v:a::string"), read=VpushSpark))
        Traceback (most recent call last):
        ...
        vpush.optimizer.errors.OptimizeError: [UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name `v` cannot be resolved. Did you mean one of the following? [`t`].

    Raises:
        OptimizeError: ``UNRESOLVED_COLUMN.WITH_SUGGESTION``.
    """
    for select in expression.find_all(exp.Select):
        if not _groups(select):
            continue
        group = select.args.get("group")
        if group is not None and any(isinstance(k, VariantGet) and k.args.get("to") is None for k in group.expressions):
            continue  # a variant key: Spark's GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE comes first
        outputs = [p.alias_or_name for p in select.expressions]
        for key in ("having", "order", "qualify"):
            clause = select.args.get(key)
            if clause is None:
                continue
            for node in clause.find_all(VariantGet):
                if not node.args.get("colon") or node.find_ancestor(exp.Select) is not select or _aggregated(node, clause):
                    continue
                base = node.this
                while isinstance(base, VariantGet):
                    base = base.this
                if not isinstance(base, exp.Column) or base.name.lower() in {o.lower() for o in outputs}:
                    continue  # an output of that name (Spark reads the alias)
                shown = ", ".join(f"`{o}`" for o in sorted(outputs))
                raise OptimizeError(
                    f"A column, variable, or function parameter with name `{base.name}` cannot be resolved. "
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


# Spark's aggregates that sqlglot reads as calls of its own kind or as unknown functions, not as
# an AggFunc
_OTHER_AGGREGATES = frozenset({
    "try_sum", "try_avg", "every", "some", "any", "bool_and", "bool_or", "std", "product", "histogram_numeric",
    "hll_sketch_agg", "count_if", "max_by", "min_by", "mode", "median", "percentile", "percentile_approx",
    "approx_percentile", "string_agg", "listagg", "regr_count", "any_value", "collect_list", "collect_set",
})


def _aggregated(node: exp.Expr, clause: exp.Expr) -> bool:
    """Whether ``node`` is an argument of an aggregate (not a window's) within ``clause``, its
    ``FILTER`` too."""
    parent = node.parent
    while parent is not None and parent is not clause.parent:
        if isinstance(parent, exp.Window):
            return False
        if isinstance(parent, (exp.AggFunc, exp.Filter)) or (call_name(parent) or parent.key) in _OTHER_AGGREGATES:
            return not isinstance(parent.parent, exp.Window)
        parent = parent.parent
    return False
