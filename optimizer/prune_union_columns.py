"""The columns of a ``UNION ALL`` that the query around it never reads, computed as NULL.

Spark's ``ColumnPruning`` drops a column of a ``UNION ALL`` that nothing above it reads, from
every branch, before anything runs: ``SELECT count(*) FROM (SELECT array(1) AS r UNION ALL
SELECT array('1.5'))`` never computes the cast of ``'1.5'`` to a ``bigint`` that its coercion
puts in the second branch, nor does ``typeof(r)``, which Spark computes from the type alone (and
vpush writes as a constant). DuckDB computes a set operation's columns whether they are read or
not, and raises ``CAST_INVALID_INPUT`` there. So each such column becomes ``NULL`` in every
branch, unless a branch's rows depend on it (an aggregate, a window, a generator or a subquery in
it; a branch that groups, filters on its groups, sorts or deduplicates).

A column read only by ``typeof`` (a constant once vpush has typed the query) is pruned as well
where Spark never computes it: where every branch computes it from a row's columns (Spark's
``typeof`` folds to its type), or where a constant branch's cast is not folded first, that is
where the ``typeof`` is a projection right over the ``UNION ALL`` (``PushProjectionThroughUnion``
then precedes ``ConstantFolding``); under a WHERE, a GROUP BY or a join Spark folds the constant
branch's cast and raises (measured on PySpark 4.3, ``tests/test_nested_queries.py``).
:func:`note_union_reads` notes what the query reads before vpush types it.
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["note_union_reads", "prune_union_columns"]

_READ = "vpush_union_read"
"""Meta key of a ``UNION ALL`` subquery: the names its query reads as written, whether that
query is a plain projection over it (no WHERE, GROUP BY, HAVING, QUALIFY, join or aggregate), and
the positions of its columns that some branch computes from constants only."""

# what makes a projection more than a value per row of its branch
_ROW_SHAPING = (exp.AggFunc, exp.Window, exp.Explode, exp.Inline, exp.Unnest, exp.Subquery, exp.Query, exp.Lateral)


def note_union_reads(expression: exp.Expr) -> exp.Expr:
    """Note on each ``UNION ALL`` in a ``FROM`` what its query reads as written (before
    ``typeof`` becomes a constant), for :func:`prune_union_columns`. In place."""
    for subquery, select in _unions_in_from(expression):
        plain = not any(select.args.get(k) for k in ("where", "group", "having", "qualify", "joins", "distinct")) and not any(
            p.find(exp.AggFunc) is not None for p in select.expressions)
        branches = _branches(subquery.this) or []
        constant = {i for b in branches for i, p in enumerate(b.expressions) if p.find(exp.Column) is None}
        subquery.meta[_READ] = (_identifiers(select, subquery), plain, constant)
    return expression


def prune_union_columns(expression: exp.Expr) -> exp.Expr:
    """Make ``NULL`` each column of a ``UNION ALL`` in ``FROM`` that Spark's optimizer prunes
    before computing it (see the module's notes), of those :func:`note_union_reads` noted.

    Example:
        >>> import sqlglot
        >>> tree = sqlglot.parse_one("SELECT count(*) FROM (SELECT a AS r, b AS s FROM t UNION ALL SELECT c, d FROM u) x WHERE s > 0")
        >>> prune_union_columns(note_union_reads(tree)).sql()
        'SELECT COUNT(*) FROM (SELECT NULL AS "r", b AS s FROM t UNION ALL SELECT NULL AS "c", d FROM u) AS x WHERE s > 0'
    """
    for subquery, select in _unions_in_from(expression):
        branches = _branches(subquery.this)
        alias = subquery.args.get("alias")
        if branches is None or (alias is not None and alias.columns) or _reads_all(select) or _READ not in subquery.meta:
            continue
        written, plain, constant = subquery.meta[_READ]
        names = [p.alias_or_name.lower() for p in branches[0].expressions]
        read = _identifiers(select, subquery)
        for position, name in enumerate(names):
            if name in read or name.startswith("__vpush") or not name:
                continue
            projections = [b.expressions[position] for b in branches]
            if any(p.find(*_ROW_SHAPING) is not None for p in projections):
                continue
            if name in written and not plain and position in constant:
                continue  # read by typeof under a filter, an aggregate or a join: Spark folds a constant branch's cast first
            for projection in projections:
                kept = projection.alias_or_name
                projection.replace(exp.alias_(exp.Null(), exp.to_identifier(kept, quoted=True) if kept else "_"))
    return expression


def _unions_in_from(expression: exp.Expr) -> list[tuple[exp.Subquery, exp.Select]]:
    """Each subquery of a ``UNION`` read in a SELECT's ``FROM`` or join, with that SELECT."""
    found = []
    for subquery in expression.find_all(exp.Subquery):
        outer = subquery.parent
        if isinstance(subquery.this, exp.Union) and isinstance(outer, (exp.From, exp.Join)) and isinstance(outer.parent, exp.Select):
            found.append((subquery, outer.parent))
    return found


def _branches(node: exp.Expr) -> list[exp.Select] | None:
    """The SELECTs of a tree of ``UNION ALL`` whose rows do not depend on their projections'
    values, or None."""
    if isinstance(node, exp.Subquery):
        return _branches(node.this)
    if isinstance(node, exp.Union):
        if node.args.get("distinct") or any(node.args.get(k) for k in ("order", "limit", "offset")):
            return None
        left, right = _branches(node.left), _branches(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, exp.Select):
        shaping = ("distinct", "group", "having", "qualify", "order")
        if any(node.args.get(k) for k in shaping) or any(p.is_star for p in node.expressions):
            return None
        return [node]
    return None


def _reads_all(select: exp.Select) -> bool:
    """A star, or a join by ``USING`` or ``NATURAL``, reads columns without naming them."""
    if any(p.is_star or (p.find(exp.Star) is not None and p.find(exp.AggFunc) is None) for p in select.expressions):
        return True
    return any(j.args.get("using") or j.args.get("method") for j in select.args.get("joins") or [])


def _identifiers(select: exp.Select, skipped: exp.Expr) -> set[str]:
    """Every name ``select`` writes outside ``skipped`` (lower case): what it may read, as a
    column, a struct's field or a table's qualifier."""
    names: set[str] = set()
    for node in select.walk(prune=lambda n: n is skipped):
        if isinstance(node, exp.Identifier):
            names.add(node.name.lower())
    return names
