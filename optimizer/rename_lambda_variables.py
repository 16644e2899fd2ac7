"""Rename, for DuckDB, a lambda's variable that a source of the query is named after.

Spark reads a name in a lambda's body as the lambda's variable first (``x -> x.i`` over ``FROM p
s JOIN p x``: the element's field ``i``). DuckDB's binder reads ``x.i`` there as the column ``i``
of the source ``x`` where the SELECT joins several sources (over ``x`` alone it reads the
variable), so ``transform(array(named_struct('i', 9)), x -> x.i)`` gave the source's ``i``
(measured on DuckDB 2.0 and PySpark 4.3). Each such variable, and the names in the body that read
it (not those under an inner lambda of the same variable), get a name of vpush's own.
"""
from __future__ import annotations

from sqlglot import exp

from vpush.optimizer.spark_arrays import variable_reference

__all__ = ["rename_lambda_variables"]

_PREFIX = "__vpush_lambda_"


def rename_lambda_variables(expression: exp.Expr) -> exp.Expr:
    """Rename each lambda variable of ``expression`` that names one of its sources. In place.

    Example:
        >>> import sqlglot
        >>> query = sqlglot.parse_one("SELECT transform(a, x -> x.i + y) FROM p s JOIN p x ON true", read="spark")
        >>> rename_lambda_variables(query).sql("spark")
        'SELECT TRANSFORM(a, __vpush_lambda_0 -> __vpush_lambda_0.i + y) FROM p AS s JOIN p AS x ON TRUE'
    """
    sources = {
        node.alias_or_name.lower() for node in expression.find_all(exp.Table, exp.Subquery) if node.alias_or_name
    }
    count = 0
    for lam in list(expression.find_all(exp.Lambda)):
        for variable in lam.expressions:
            name = variable.name.lower()
            if name not in sources:
                continue
            renamed = f"{_PREFIX}{count}"
            count += 1
            _rename_in(lam.this, name, renamed, lam)
            if isinstance(lam.this, exp.Identifier) and lam.this.name.lower() == name:
                lam.set("this", exp.to_identifier(renamed))
            variable.replace(exp.to_identifier(renamed))
    return expression


def _rename_in(body: exp.Expr, name: str, renamed: str, lam: exp.Lambda) -> None:
    """Rename the names in ``body`` that read ``lam``'s variable ``name``."""
    for node in list(body.walk()):
        if _rebound(node, name, lam):
            continue
        if isinstance(node, exp.Column):
            if node.table and node.table.lower() == name and not node.args.get("db"):
                node.set("table", exp.to_identifier(renamed))
            elif not node.table and node.name.lower() == name:
                node.set("this", exp.to_identifier(renamed))
        elif isinstance(node, exp.Identifier) and node.name.lower() == name and variable_reference(node):
            node.replace(exp.to_identifier(renamed))  # a bare name in the body (``x > 4``), ``x.a`` as a Dot


def _rebound(node: exp.Expr, name: str, lam: exp.Lambda) -> bool:
    """Whether a lambda between ``node`` and ``lam`` has a variable ``name`` of its own."""
    inner = node.parent
    while inner is not None and inner is not lam:
        if isinstance(inner, exp.Lambda) and any(v.name.lower() == name for v in inner.expressions):
            return True
        inner = inner.parent
    return False
