"""A CTE whose own query reads the table of its name (``WITH events AS (SELECT ... FROM events
WHERE ...) SELECT ... FROM events``), renamed apart from that table.

A CTE of a plain ``WITH`` (not ``WITH RECURSIVE``) does not read itself in Spark: inside its own
query its name is the table (or an earlier CTE), and the CTE is what the queries after it read. DuckDB reads the name inside as the CTE
itself and refuses the query ("Circular reference to CTE"), and vpush's planner would take that
table for the CTE and plan no scan of it. The CTE is given a name of its own, and each reference
to it (the main query's, a later CTE's) reads that name under the old one as its alias, so
qualified columns (``events.id``) and the output's names stay as written.
"""
from __future__ import annotations

from sqlglot import exp

from vpush.optimizer.dialect import within

__all__ = ["rename_self_named_ctes"]

_SUFFIX = "__vpush_cte"


def rename_self_named_ctes(expression: exp.Expr) -> None:
    """Rename, in place, each CTE whose query reads a table of its own name (see the module).
    A name that two CTEs of the statement define, and a ``WITH RECURSIVE``, are left as they are.

    Example:
        >>> from vpush.optimizer.plan_query import parse_spark
        >>> tree = parse_spark("WITH t AS (SELECT id FROM t WHERE id > 1) SELECT t.id FROM t")
        >>> rename_self_named_ctes(tree)
        >>> tree.sql(dialect="spark")
        'WITH `t__vpush_cte` AS (SELECT id FROM t WHERE id > 1) SELECT t.id FROM `t__vpush_cte` AS t'
    """
    ctes = list(expression.find_all(exp.CTE))
    names = [c.alias_or_name.lower() for c in ctes]
    for cte in ctes:
        name = cte.alias_or_name.lower()
        alias = cte.args.get("alias")
        if names.count(name) != 1 or not isinstance(alias, exp.TableAlias) or not isinstance(cte.this, exp.Query):
            continue
        if not any(_reads(t, name) for t in cte.this.find_all(exp.Table)):
            continue
        with_ = cte.parent
        owner = with_.parent if isinstance(with_, exp.With) else None
        if owner is None or not isinstance(with_, exp.With) or with_.args.get("recursive"):
            continue  # WITH RECURSIVE: the name inside is the CTE itself
        siblings = list(with_.expressions)
        earlier = siblings[: siblings.index(cte)]
        fresh = f"{cte.alias_or_name}{_SUFFIX}"
        for table in list(owner.find_all(exp.Table)):
            if not _reads(table, name) or within(table, cte) or any(within(table, e) for e in earlier):
                continue
            if not table.alias:
                table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name, quoted=table.this.quoted)))
            table.set("this", exp.to_identifier(fresh, quoted=True))
        alias.set("this", exp.to_identifier(fresh, quoted=True))


def _reads(table: exp.Table, name: str) -> bool:
    return isinstance(table.this, exp.Identifier) and not table.args.get("db") and table.name.lower() == name
