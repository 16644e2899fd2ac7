"""The columns of a ``UNION ALL`` that Spark never computes, computed as NULL; and the constant
branches Spark folds first, computed once where Spark folds them.

Spark's optimizer decides in the first pass of its batch *Operator Optimization before Inferring
Filters* (PySpark 4.3, ``sessionState.optimizer.batches``) whether a union's column is computed.
Before that batch, ``EliminateSubqueryAliases`` and ``RemoveNoopOperators`` (batch *Union*) drop
the subqueries' names and every ``SELECT *`` (a projection of its child's own columns), and
``InlineCTE`` puts a deterministic CTE's query where it is read. Then, in order, within one pass:

1. ``PushProjectionThroughUnion`` pushes a projection that stands right over the union (a SELECT
   with no WHERE, GROUP BY, aggregate or join; its windows, QUALIFY, DISTINCT, ORDER BY and
   LIMIT stand above it) into each branch: a ``typeof(r)`` there becomes
   ``typeof(cast(...))`` of each branch, which ``ConstantFolding`` later folds whole, never
   computing the cast;
2. ``PushDownPredicates`` pushes a WHERE's conjuncts, and an inner join's ON conjuncts, that
   read the union alone into each branch, substituting the branch's values: a ``typeof(r)`` in
   them is folded whole the same way;
3. ``ColumnPruning`` drops each column nothing above the union still names (a projection that
   nothing above reads no longer names anything);
4. ``CollapseProject`` merges each branch's projections, so that a branch computed from constants
   only is a call of constants (the coercion's cast of ``array('1.5')`` to ``array<bigint>``);
5. ``ConstantFolding`` computes it: the cast of ``'1.5'`` raises ``CAST_INVALID_INPUT``, before
   any row is read, whatever the filters (``WHERE id > 100`` too).

A column that only ``typeof`` reads is dropped in the next pass (``typeof`` of a column folds to
its type), so a branch that computes it from a row's columns never computes it. DuckDB computes
a set operation's columns or drops the unread ones as its own optimizer decides, so this rule
decides for it: a column read only by ``typeof`` or not at all (through ``SELECT *`` subqueries
and CTEs) becomes ``NULL`` in every branch; where Spark's step 5 still meets it, the SELECT that
reads the union gets a WHERE conjunct computing each constant branch's value once (an uncorrelated
scalar subquery, which DuckDB computes whatever the other filters let through; a filter of
constants only around it, which DuckDB would fold with its rows away, is made to compute it
first). An inner join ``ON false`` is an empty relation before that batch
(``PropagateEmptyRelation``), and so is a ``LIMIT 0``: Spark answers there, and DuckDB drops the
check with the rows. Measured on PySpark 4.3 in ``tests/test_nested_queries.py`` (arrays,
structs, maps, a string coerced to a double beside a decimal; constant and column branches;
stars, CTEs, WHERE, GROUP BY, HAVING, ORDER BY, DISTINCT, windows, QUALIFY and joins).

:func:`note_union_reads` decides before vpush types the query (``typeof`` is a constant after)
and marks the nodes; :func:`prune_union_columns` acts on the marks after.
"""

from __future__ import annotations

import itertools

from sqlglot import exp

from vpush.optimizer.dialect import conjuncts, within

__all__ = ["note_union_reads", "prune_union_columns"]

_PRUNED = "vpush_union_pruned"
"""Meta key of a branch's projection that Spark never computes: the key of the SELECT reading
the union whose WHERE computes it once (Spark folds it), or None."""

_CONSTANT = "vpush_union_constant"
"""Meta key of a branch's projection computed from constants only (so that Spark folds it)."""

_READER = "vpush_union_reader"
"""Meta key of a SELECT reading a union: the key its branches' projections name."""

# what makes a projection more than a value per row of its branch
_ROW_SHAPING = (exp.AggFunc, exp.Window, exp.Explode, exp.Inline, exp.Unnest, exp.Subquery, exp.Query, exp.Lateral)

# a SELECT whose projection still stands right over the union after Spark's analysis: it may
# sort, limit, deduplicate (an aggregate over the projection) and hold windows and a QUALIFY
# (computed above it)
_PLAIN = frozenset({"expressions", "from", "distinct", "order", "limit", "offset", "qualify", "with"})

_keys = itertools.count()


def note_union_reads(expression: exp.Expr) -> exp.Expr:
    """Mark, before ``typeof`` becomes a constant, each branch projection of a ``UNION ALL`` in a
    ``FROM`` or a CTE that Spark's optimizer never computes (see the module's notes), for
    :func:`prune_union_columns`. In place."""
    for union in list(expression.find_all(exp.Union)):
        branches = _branches(union)
        readers = _readers(union) if branches is not None and not isinstance(union.parent, exp.Union) else None
        if branches is None or readers is None or any(_reads_all(s) for s, _ in readers):
            continue
        uses = [_uses(select, via) for select, via in readers]
        names = [p.alias_or_name.lower() for p in branches[0].expressions]
        for position, name in enumerate(names):
            if name.startswith("__vpush") or not name or len({len(b.expressions) for b in branches}) != 1:
                continue
            projections = [b.expressions[position] for b in branches]
            if any(p.find(*_ROW_SHAPING) is not None for p in projections):
                continue
            if any(name in bare for bare, _ in uses):
                continue  # computed: read otherwise than by typeof
            folding = [select for (select, _), (_, typed) in zip(readers, uses) if name in typed]
            key = None
            if folding:
                key = next(_keys)
                for select in folding:
                    select.meta.setdefault(_READER, set()).add(key)
            for projection in projections:
                constant = projection.find(exp.Column) is None
                # every node of it: a rewrite may replace the projection and keep a part of it
                for node in projection.walk():
                    node.meta[_PRUNED] = key
                    if constant:
                        node.meta[_CONSTANT] = True
    return expression


def prune_union_columns(expression: exp.Expr) -> exp.Expr:
    """Make ``NULL`` each branch projection :func:`note_union_reads` marked, and where Spark folds
    a constant one first, compute that one in the WHERE of the SELECT reading the union.

    Example:
        >>> import sqlglot
        >>> tree = sqlglot.parse_one("SELECT count(*) FROM (SELECT a AS r, b AS s FROM t UNION ALL SELECT c, d FROM u) x WHERE s > 0")
        >>> prune_union_columns(note_union_reads(tree)).sql()
        'SELECT COUNT(*) FROM (SELECT NULL AS "r", b AS s FROM t UNION ALL SELECT NULL AS "c", d FROM u) AS x WHERE s > 0'
    """
    readers: dict[int, list[exp.Select]] = {}
    for select in expression.find_all(exp.Select):
        for key in select.meta.pop(_READER, ()):
            readers.setdefault(key, []).append(select)
    checks: dict[int, list[exp.Expr]] = {}
    found: dict[int, tuple[exp.Expr, int | None, bool]] = {}
    for marked in [n for n in expression.find_all(exp.Expr) if _PRUNED in n.meta]:
        key, constant = marked.meta.pop(_PRUNED), marked.meta.pop(_CONSTANT, False)
        projection = _projection(marked)
        if projection is not None:
            found[id(projection)] = (projection, key, constant)
    for projection, key, constant in found.values():
        if key is not None and constant and key in readers:
            checks.setdefault(key, []).append(projection.unalias().copy())
        kept = projection.alias_or_name
        projection.replace(exp.alias_(exp.Null(), exp.to_identifier(kept, quoted=True) if kept else "_"))
    for key, values in checks.items():
        for select in readers[key]:
            _compute_first(select, exp.and_(*(_computed(v.copy()) for v in values), copy=False))
    return expression


def _projection(node: exp.Expr) -> exp.Expr | None:
    """The projection of a union's branch that ``node`` is or lies in, or None (a copy of it
    that a rewrite put elsewhere keeps its marks)."""
    current: exp.Expr | None = node
    while current is not None and not (isinstance(current.parent, exp.Select) and current.arg_key == "expressions"):
        if isinstance(current, exp.Query):
            return None
        current = current.parent
    if current is None:
        return None
    branch: exp.Expr | None = current.parent
    while branch is not None and isinstance(branch.parent, exp.Subquery):
        branch = branch.parent
    return current if branch is not None and isinstance(branch.parent, exp.Union) else None


def _compute_first(select: exp.Select, check: exp.Expr) -> None:
    """Make ``select`` compute ``check`` (true, of constants only) whatever rows it reads: Spark's
    ``ConstantFolding`` computes it as it plans the query, rows or not. The WHERE gets ``AND
    check``, which leaves its own conjuncts to DuckDB's filter pushdown; and a filter of constants
    only (``WHERE false``, ``HAVING 1 = 0``) there or in a SELECT around it becomes ``CASE WHEN
    check THEN filter END``, which DuckDB cannot fold without computing it (it drops ``false AND
    check`` with its rows)."""
    select.where(check, copy=False)
    around: exp.Expr | None = select
    while around is not None:
        if isinstance(around, exp.Select):
            filters = [c for c in (around.args.get("where"), around.args.get("having")) if c is not None]
            # an inner join ON false is an empty relation before ConstantFolding runs
            # (PropagateEmptyRelation, batch "LocalRelation early"); ON 1 = 0 is not
            filters += [j for j in around.args.get("joins") or [] if isinstance(j.args.get("on"), exp.Expr)
                        and not j.side and j.kind in ("", "INNER") and not isinstance(j.args["on"], exp.Boolean)]
            for clause in filters:
                key = "on" if isinstance(clause, exp.Join) else "this"
                condition = clause.args[key]
                if any(c.find(exp.Column, exp.Query) is None for c in conjuncts(condition)):
                    clause.set(key, exp.Case(ifs=[exp.If(this=check.copy(), true=condition)]))
        around = around.parent


def _computed(value: exp.Expr) -> exp.Expr:
    """A condition that is true, computing ``value`` (of constants only) once: ``(SELECT v IS NULL
    OR v IS NOT NULL)``. DuckDB neither folds it away nor drops it with the rows it filters."""
    test = exp.or_(exp.Is(this=value, expression=exp.Null()), exp.not_(exp.Is(this=value.copy(), expression=exp.Null())), copy=False)
    return exp.Subquery(this=exp.Select(expressions=[test]))


def _readers(query: exp.Expr) -> list[tuple[exp.Select, exp.Expr]] | None:
    """The SELECTs that read ``query``'s rows, each with the node it reads them through (a
    subquery in its FROM, or a CTE's name), through ``SELECT *`` subqueries and CTEs (Spark
    inlines a deterministic CTE at each place it is read); None where they cannot all be told."""
    parent = query.parent
    found: list[tuple[exp.Expr | None, exp.Expr]] = []
    if isinstance(parent, exp.Subquery):
        alias = parent.args.get("alias")
        if alias is not None and alias.columns:
            return None
        found.append((parent.parent, parent))
    elif isinstance(parent, exp.CTE):
        alias = parent.args.get("alias")
        statement = parent.find_ancestor(exp.Query)
        if (alias is not None and alias.columns) or statement is None:
            return None
        name = parent.alias_or_name.lower()
        found.extend((t.parent, t) for t in statement.find_all(exp.Table)
                     if t.name.lower() == name and not t.args.get("db") and not within(t, parent))
    if not found:
        return None
    readers: list[tuple[exp.Select, exp.Expr]] = []
    for holder, via in found:
        if not isinstance(holder, (exp.From, exp.Join)) or not isinstance(holder.parent, exp.Select):
            return None
        select = holder.parent
        if _noop(select, query):
            inner = _readers(select)
            if inner is None:
                return None
            readers.extend(inner)
        else:
            readers.append((select, via))
    return readers


def _noop(select: exp.Select, source: exp.Expr) -> bool:
    """A SELECT of one source and nothing else that gives its source's own columns, in order
    (``*``, or each column by its name): Spark's ``RemoveNoopOperators`` removes it."""
    if _clauses(select) != {"expressions", "from"}:
        return False
    if len(select.expressions) == 1:
        star = select.expressions[0]
        star = star.this if isinstance(star, exp.Column) and isinstance(star.this, exp.Star) else star
        if isinstance(star, exp.Star):
            return not any(star.args.values())
    names = _outputs(source)
    return (names is not None and all(isinstance(p, exp.Column) for p in select.expressions)
            and [p.name.lower() for p in select.expressions] == names and len(set(names)) == len(names))


def _outputs(query: exp.Expr) -> list[str] | None:
    """The names of ``query``'s columns, where they can be told."""
    if isinstance(query, exp.Subquery):
        return _outputs(query.this)
    if isinstance(query, exp.SetOperation):
        return _outputs(query.left)
    if not isinstance(query, exp.Select):
        return None
    if any(p.is_star for p in query.expressions):
        source = query.args.get("from_") or query.args.get("from")
        if source is None or len(query.expressions) != 1 or not _noop(query, source.this):
            return None
        return _outputs(source.this)
    return [p.alias_or_name.lower() for p in query.expressions]


def _clauses(select: exp.Select) -> set[str]:
    """The names of ``select``'s clauses that are set (``from``, which sqlglot 30 keys ``from_``)."""
    return {k.rstrip("_") for k, v in select.args.items() if v}


def _uses(select: exp.Select, via: exp.Expr) -> tuple[set[str], set[str]]:
    """The names ``select`` reads of the source ``via`` where Spark's first pass still reads them:
    otherwise than through ``typeof`` (the source's column is computed), and through ``typeof``
    where it is not folded first (a constant branch is folded). A projection that nothing above
    ``select`` reads is not counted (``ColumnPruning`` drops it)."""
    wanted = _needed(select)
    plain = _clauses(select) <= _PLAIN and not any(
        p.find(exp.AggFunc) is not None for p in select.expressions)
    # each part, and whether Spark pushes it into each branch, where typeof folds whole
    parts: list[tuple[exp.Expr, bool]] = []
    for key, value in select.args.items():
        for part in value if isinstance(value, list) else [value]:
            if not isinstance(part, exp.Expr) or part is via or isinstance(part, exp.With):
                continue
            if key == "expressions":
                named = part.alias_or_name.lower() if isinstance(part, (exp.Alias, exp.Column)) else ""
                if wanted is None or not named or named in wanted:
                    parts.append((part, plain))
            elif key == "where":
                parts.extend((c, _pushed(c, select, via)) for c in conjuncts(part.this))
            elif isinstance(part, exp.Join):
                inner = not part.side and part.kind in ("", "INNER")
                for k, v in part.args.items():
                    if k == "on" and isinstance(v, exp.Expr):
                        parts.extend((c, inner and _pushed(c, select, via)) for c in conjuncts(v))
                    elif isinstance(v, exp.Expr):
                        parts.append((v, False))
                    elif isinstance(v, list):
                        parts.extend((e, False) for e in v if isinstance(e, exp.Expr))
            else:
                parts.append((part, False))
    bare: set[str] = set()
    typed: set[str] = set()
    for part, pushed in parts:
        bare |= _names(part, via, typeof=False)
        if not pushed:
            typed |= _names(part, via, typeof=True)
    return bare, typed


def _pushed(conjunct: exp.Expr, select: exp.Select, via: exp.Expr) -> bool:
    """Whether Spark's ``PushDownPredicates`` pushes a deterministic conjunct of a WHERE or an inner
    join's ON into the source ``via``: it reads no other source (by the qualifiers written)."""
    if not select.args.get("joins"):
        return True
    source = via.alias_or_name.lower()
    columns = list(conjunct.find_all(exp.Column))
    return bool(source) and all(c.table.lower() == source for c in columns)


def _needed(query: exp.Select) -> set[str] | None:
    """The names of ``query``'s projections the query reading it names (None: all of them)."""
    readers = _readers(query)
    if readers is None or any(_reads_all(s) for s, _ in readers):
        return None
    names: set[str] = set()
    for select, via in readers:
        names |= _names(select, via, typeof=True)
    return names


def _names(node: exp.Expr, via: exp.Expr, typeof: bool) -> set[str]:
    """Every name ``node`` writes outside ``via`` and CTE definitions (lower case): what it may
    read, as a column, a struct's field or a table's qualifier; without ``typeof``, not inside a
    ``typeof`` call."""
    def skipped(n: exp.Expr) -> bool:
        return n is via or isinstance(n, exp.With) or (not typeof and _is_typeof(n))
    return {n.name.lower() for n in node.walk(prune=skipped) if isinstance(n, exp.Identifier) and not skipped(n)}


def _is_typeof(node: exp.Expr) -> bool:
    return isinstance(node, exp.Typeof) or (isinstance(node, exp.Anonymous) and node.name.lower() == "typeof")


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
    """A star, or a ``NATURAL`` join, reads columns without naming them."""
    if any(p.is_star or (p.find(exp.Star) is not None and p.find(exp.AggFunc) is None) for p in select.expressions):
        return True
    return any(j.args.get("method") for j in select.args.get("joins") or [])
