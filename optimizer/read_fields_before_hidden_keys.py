"""``x.id`` over a join whose source ``x`` has a hidden ``USING`` key ``id``, beside a column
named ``x``: the field ``id`` of that column, as Spark reads it.

Spark resolves a qualified name against the join's output first (a source's column, then a
field of an output column named like the qualifier) and only then against the keys a join
``USING`` or ``NATURAL`` leaves out of its output (``qualifiedAccessOnly``, its last fallback).
So ``SELECT x.id FROM (SELECT 1 AS id, named_struct('id', 5) AS x) s JOIN t x USING (id)``
gives the struct's 5; a variant ``x`` raises ``INVALID_EXTRACT_BASE_FIELD_TYPE`` and a struct
without ``id`` ``FIELD_NOT_FOUND`` (measured on PySpark 4.3). DuckDB reads ``x.id`` as the right
side's key, so such a name is written ``s.x.id``: the column's source, the column, its field.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlglot import exp

from vpush.optimizer.check_join_references import join_scope, select_sources, source_columns, using_keys
from vpush.optimizer.errors import OptimizeError

__all__ = ["read_fields_before_hidden_keys"]


def read_fields_before_hidden_keys(expression: exp.Expr, table_columns: Mapping[int, Sequence[str]]) -> exp.Expr:
    """Write each qualified name ``x.f`` that no output column of its SELECT's join answers, and
    whose qualifier names a source and one output column too, as that column's field.

    Example:
        >>> import sqlglot
        >>> query = sqlglot.parse_one("SELECT x.id FROM (SELECT 1 AS id, named_struct('id', 5) AS x) s JOIN t x USING (id)")
        >>> read_fields_before_hidden_keys(query, {id(t): ("id",) for t in query.find_all(exp.Table)}).sql()
        "SELECT s.x.id FROM (SELECT 1 AS id, NAMED_STRUCT('id', 5) AS x) AS s JOIN t AS x USING (id)"

    Args:
        expression: the parsed query, changed in place.
        table_columns: each registered table reference's column names, by ``id`` of its node.

    Returns:
        ``expression``.
    """
    for select in list(expression.find_all(exp.Select)):
        joins = select.args.get("joins") or []
        if not any(using_keys(join) is not None for join in joins):
            continue
        sources = select_sources(select)
        columns = [source_columns(source, table_columns) for source in sources]
        known = [c for c in columns if c is not None]
        if len(known) < len(columns):
            continue
        try:
            scope = join_scope(select, known)
        except OptimizeError:
            continue  # Spark's error, which check_join_references raises
        qualifiers = {source.alias_or_name.lower() for source in sources}
        for column in list(select.find_all(exp.Column)):
            if column.find_ancestor(exp.Select) is not select or column.args.get("db") is not None:
                continue
            qualifier, name = column.table.lower(), column.name.lower()
            if not qualifier or qualifier not in qualifiers or isinstance(column.this, exp.Star):
                continue
            if any((q or "").lower() == qualifier and n == name for q, n, _ in scope.visible):
                continue  # a source's own output column, which Spark reads first
            bases = [(q, index) for q, n, index in scope.visible if n == qualifier]
            if len(bases) != 1 or bases[0][1] is None or not bases[0][0]:
                continue  # none; several (Spark's ambiguity); a full join's key, of no source
            column.set("db", exp.to_identifier(bases[0][0]))
    return expression
