"""Spark's ``AMBIGUOUS_REFERENCE`` for a name that several columns of a join ``USING`` or
``NATURAL`` followed by other joins carry.

A join ``USING (id)`` (or ``NATURAL``) gives one ``id``: the left side's for an inner or left join
(qualified by the left side's name), the right side's for a right join, an unqualified
``coalesce`` for a full join; both sides' own ``id`` columns stay readable only by a qualified
name. A later join of a table that has an ``id`` of its own adds it beside that one, so Spark's
analyzer finds two columns for an unqualified ``id`` anywhere in the SELECT (its list, WHERE,
GROUP BY, HAVING, a later join's ON) and raises ``AMBIGUOUS_REFERENCE``, naming each candidate
(``[`u`.`id`, `x`.`id`]``, sorted). DuckDB binds the name to the ``USING`` column and answers
(measured on PySpark 4.3 and DuckDB 1.x: ``SELECT id FROM t x JOIN t USING (id) JOIN t u ON
false``).

Checked over SELECTs whose sources are all registered tables (whose columns are known here,
before any scope is built: a query may name one table twice without an alias, ``t JOIN t``, which
Spark takes).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from sqlglot import exp

from vpush.optimizer.dialect import bound_by_lambda as _bound_by_lambda
from vpush.optimizer.dialect import clause_of, cte_of
from vpush.optimizer.errors import OptimizeError

__all__ = [
    "SOLE_NAMES", "JoinScope", "check_join_references", "join_scope", "mark_sole_names", "resolves_to", "select_sources",
    "source_columns", "star_except", "using_keys",
]

# (qualifier as written, or None for a full join's key; column name, lower-cased; the source's
# place among the SELECT's sources, or None for a full join's key)
_Entry = tuple["str | None", str, "int | None"]


SOLE_NAMES = "vpush_sole_names"
"""The meta key under which a source of a SELECT with joins keeps the names an unqualified column
resolves to it by (:func:`mark_sole_names`): for the ON of each join, then for the SELECT's other
clauses, the lower-cased names that it alone carries among the sources seen there."""


@dataclasses.dataclass(frozen=True)
class JoinScope:
    """What the columns of a SELECT's joined sources resolve to, as Spark's analyzer finds them.

    Attributes:
        owners: each qualified column's source (its place among the SELECT's sources), by ``id``
            of its node, for the columns of the SELECT (a join's ON, a correlated subquery) that
            name exactly one.
        visible: the join's output columns in order (Spark's ``Project`` over each join).
        hidden: the join ``USING``/``NATURAL`` keys its output leaves out (the right side's, the
            left's for a right join, both for a full one), which Spark keeps readable by a
            qualified name only (``qualifiedAccessOnly``), the last join's first.
    """

    owners: dict[int, int]
    visible: list[_Entry]
    hidden: list[_Entry]


def check_join_references(expression: exp.Expr, table_columns: Mapping[int, Sequence[str]]) -> None:
    """Raise Spark's ``AMBIGUOUS_REFERENCE`` where a SELECT with a join ``USING`` or ``NATURAL``
    reads, unqualified, a name several of its joined columns carry.

    Example:
        >>> import sqlglot
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> query = sqlglot.parse_one("SELECT id FROM t x JOIN t USING (id) JOIN t u ON false", read=VpushSpark)
        >>> check_join_references(query, {id(t): ("id", "i") for t in query.find_all(exp.Table)})
        Traceback (most recent call last):
        ...
        vpush.optimizer.errors.OptimizeError: [AMBIGUOUS_REFERENCE] Reference `id` is ambiguous, could be: [`u`.`id`, `x`.`id`].

    Args:
        expression: the parsed query (unchanged).
        table_columns: each registered table reference's column names, by ``id`` of its node.

    Raises:
        OptimizeError: ``AMBIGUOUS_REFERENCE``; ``VPUSH_UNSUPPORTED_FUNCTION`` for two sources of
            one name whose columns are not known here (which
            :func:`~vpush.optimizer.alias_repeated_sources.alias_repeated_sources` leaves).
    """
    for select in list(expression.find_all(exp.Select)):
        sources = select_sources(select)
        names = [s.alias_or_name.lower() for s in sources]
        twice = len(set(names)) < len(names)
        columns = [source_columns(s, table_columns) for s in sources]
        if not twice and not any(using_keys(join) is not None for join in select.args.get("joins") or []):
            if len(sources) > 1 and all(c is not None for c in columns):
                _check_star_excepts(select, [c for c in columns if c is not None])
            continue
        if all(c is not None for c in columns):
            join_scope(select, [c for c in columns if c is not None])
        if twice:
            repeated = next(name for name in names if names.count(name) > 1)
            what = f"named `{repeated}`" if repeated else "unaliased"
            raise OptimizeError(
                f"two sources of one SELECT are {what}, one of whose columns vpush does not know here (or beside a "
                "LATERAL VIEW of that name): vpush does not answer it yet; give each source its own alias",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )


def mark_sole_names(expression: exp.Expr, table_columns: Mapping[int, Sequence[str]]) -> None:
    """Mark each source of a SELECT with joins whose sources' columns are all known with the
    names an unqualified column there resolves to it by (:data:`SOLE_NAMES`), as Spark's analyzer
    resolves them: a join's ON sees the sources joined so far, the SELECT's other clauses every
    source, and a name one of those sources alone carries, once, is that source's column. A name
    several carry (the keys of a join ``USING`` too) is left unmarked. In place.

    Example:
        >>> import sqlglot
        >>> query = sqlglot.parse_one("SELECT v FROM t JOIN u ON t.id = u.id")
        >>> mark_sole_names(query, {id(t): ("id", "v") if t.name == "t" else ("id", "g") for t in query.find_all(exp.Table)})
        >>> [sorted(names) for names in query.args["from_"].this.meta[SOLE_NAMES]]
        [['v'], ['v']]

    Args:
        expression: the parsed query.
        table_columns: each registered table reference's column names, by ``id`` of its node.
    """
    for select in expression.find_all(exp.Select):
        sources = select_sources(select)
        if len(sources) < 2:
            continue
        columns = [source_columns(s, table_columns) for s in sources]
        if any(c is None for c in columns):
            continue
        carriers: dict[str, list[int]] = {}
        # seen[k]: each name the first k + 1 sources carry once in all, with its carrier
        seen: list[dict[str, int]] = []
        for k, names in enumerate(columns):
            for name in names or ():
                carriers.setdefault(name.lower(), []).append(k)
            seen.append({name: places[0] for name, places in carriers.items() if len(places) == 1})
        # the ON of joins[j] sees sources 0..j+1; the other clauses, every source
        scopes = [*seen[1:], seen[-1]]
        for k, source in enumerate(sources):
            source.meta[SOLE_NAMES] = tuple(frozenset(n for n, owner in scope.items() if owner == k) for scope in scopes)


def resolves_to(source: exp.Expr, column: exp.Column, select: exp.Select) -> bool:
    """Whether the unqualified ``column``, in ``select`` outside its nested queries, names a
    column of ``select``'s source ``source`` alone (as :func:`mark_sole_names` marked it)."""
    scopes = source.meta.get(SOLE_NAMES)
    if scopes is None or column.table or _bound_by_lambda(column):
        return False
    node = clause_of(column, select)
    if node.parent is None:
        return False
    joins = select.args.get("joins") or []
    scope = next((j for j, join in enumerate(joins) if join is node), len(scopes) - 1)
    return column.name.lower() in scopes[scope]


def select_sources(select: exp.Select) -> list[exp.Expr]:
    """The sources of ``select``'s FROM and joins, in order (none without a FROM)."""
    first = select.args.get("from_")
    if not isinstance(first, exp.From):
        return []
    return [first.this, *(join.this for join in select.args.get("joins") or [])]


def source_columns(source: exp.Expr | None, table_columns: Mapping[int, Sequence[str]]) -> Sequence[str] | None:
    """A registered table's columns (renamed by ``t AS x(a, b)``), a subquery's or a CTE's named
    outputs (its stars' through its joins); None where unknown here (a lateral view, ``* EXCEPT``).

    Example:
        >>> import sqlglot
        >>> query = sqlglot.parse_one("WITH c AS (SELECT id, g AS k FROM t) SELECT * FROM c")
        >>> source_columns(query.args["from_"].this, {})
        ['id', 'k']
        >>> query = sqlglot.parse_one("WITH c AS (SELECT * FROM t JOIN u USING (id)) SELECT * FROM c")
        >>> source_columns(query.args["from_"].this, {id(n): ("id", n.name) for n in query.find_all(exp.Table)})
        ['id', 't', 'u']
    """
    if isinstance(source, exp.Table):
        alias = source.args.get("alias")
        cte = cte_of(source)
        if cte is not None:
            renamed = cte.args.get("alias")
            if isinstance(renamed, exp.TableAlias) and renamed.columns:
                found: Sequence[str] | None = [c.name for c in renamed.columns]
            else:
                found = _projection_names(cte.this, table_columns)
        elif isinstance(source.this, exp.Anonymous) and source.this.name.lower() == "range":
            found = ["id"]  # FROM range(...): a bigint `id`
        else:
            found = table_columns.get(id(source))
        if found is not None and isinstance(alias, exp.TableAlias) and alias.columns:
            return [c.name for c in alias.columns] if len(alias.columns) == len(found) else None
        return found
    if isinstance(source, exp.Subquery) and not source.alias_column_names:
        return _projection_names(source.this, table_columns)
    return None


def _projection_names(query: exp.Expr, table_columns: Mapping[int, Sequence[str]]) -> Sequence[str] | None:
    """A query's output names: its projections', a star's as Spark's finds them over its
    sources (every one's columns known: a join ``USING``'s keys first, ``a.*`` the keys the
    join's output leaves out first); None where unknown (a LATERAL VIEW, ``* EXCEPT``)."""
    if not isinstance(query, exp.Select):
        return None
    projections = query.expressions
    if not any(p.is_star for p in projections):
        return [p.alias_or_name for p in projections]
    sources = select_sources(query)
    if query.args.get("laterals") or not sources:
        return None
    columns = [source_columns(source, table_columns) for source in sources]
    known = [c for c in columns if c is not None]
    if len(known) < len(columns):
        return None
    try:
        scope = join_scope(query, known)
    except OptimizeError:
        return None  # Spark's error, which the query's own check raises
    names: list[str] = []
    for projection in projections:
        if not projection.is_star:
            names.append(projection.alias_or_name)
            continue
        star = projection.this if isinstance(projection, exp.Column) else projection
        if any(star.args.get(k) for k in ("except_", "replace", "rename", "ilike")) or projection.args.get("db"):
            return None
        entries = _star_entries(projection, scope.visible, scope.hidden)
        if not entries:
            return None
        for _, name, index in entries:
            spelled = [c for k, found in enumerate(known) if index in (None, k) for c in found if c.lower() == name]
            names.append(spelled[0])
    return names


def using_keys(join: exp.Join) -> list[str] | None:
    """The lower-cased names of a join's ``USING`` list, ``[]`` for ``NATURAL`` (found from both
    sides), or None for another join."""
    if str(join.args.get("method") or "").upper() == "NATURAL":
        return []
    using = join.args.get("using")
    return [key.name.lower() for key in using] if using else None


def join_scope(select: exp.Select, columns: Sequence[Sequence[str]]) -> JoinScope:
    """Resolve the qualified columns of ``select`` (sources whose ``columns`` are known, in
    order) to its sources as Spark's analyzer does, and check the names it reads.

    A qualified name reads the join's output columns of that qualifier first, then each source's
    own (two sources of one name, ``t JOIN t USING (id)``: ``t.id`` is the join's key; ``t.g``
    is ambiguous); a join's ON sees the sources joined so far.

    Example:
        >>> import sqlglot
        >>> query = sqlglot.parse_one("SELECT t.id, t.i FROM t JOIN t USING (id)")
        >>> sorted(join_scope(query, [("id", "i"), ("id", "i")]).owners.values())
        Traceback (most recent call last):
        ...
        vpush.optimizer.errors.OptimizeError: [AMBIGUOUS_REFERENCE] Reference `t`.`i` is ambiguous, could be: [`t`.`i`, `t`.`i`].

    Raises:
        OptimizeError: ``AMBIGUOUS_REFERENCE`` (``UNRESOLVED_COLUMN`` where an ORDER BY or a
            correlated subquery reads such a name, which Spark looks up elsewhere first).
    """
    sources = select_sources(select)
    joins: Sequence[exp.Join] = select.args.get("joins") or []
    every: list[_Entry] = [
        (source.alias_or_name, name.lower(), k) for k, (source, names) in enumerate(zip(sources, columns)) for name in names
    ]
    visible: list[_Entry] = [(sources[0].alias_or_name, name.lower(), 0) for name in columns[0]]
    hidden: list[_Entry] = []
    owners: dict[int, int] = {}
    for index, (join, names) in enumerate(zip(joins, columns[1:]), start=1):
        right: list[_Entry] = [(join.this.alias_or_name, name.lower(), index) for name in names]
        kind = str(join.args.get("kind") or "").upper()
        side = str(join.args.get("side") or "").upper()
        keys = using_keys(join)
        on = join.args.get("on")
        if on is not None:
            _check_names(on, [*visible, *right], set())
            owners.update(_qualified_owners(on, select, [*visible, *right], [e for e in every if e[2] is not None and e[2] <= index]))
        if kind in ("SEMI", "ANTI"):
            continue  # the right side's columns are no output of the join
        if keys is None:
            visible = [*visible, *right]
            continue
        if not keys:
            keys = [name for _, name, _ in visible if any(name == r for _, r, _ in right)]
        joined: list[_Entry] = []
        left_keys: list[_Entry] = []
        right_keys: list[_Entry] = []
        for key in dict.fromkeys(keys):
            # Spark's USING takes the left side's first column of the key's name, however many
            # carry it (resolveNaturalAndUsingJoin: left.output.find), without ambiguity
            left_owner = next((entry for entry in visible if entry[1] == key), None)
            right_owner = next((entry for entry in right if entry[1] == key), (join.this.alias_or_name, key, index))
            left_keys += [left_owner] if left_owner is not None else []
            right_keys.append(right_owner)
            owner = right_owner if side == "RIGHT" else None if side == "FULL" else left_owner
            joined.append(owner if owner is not None else (None, key, None))
        # the keys the output leaves out stay readable by a qualified name, before those of the
        # joins below (Spark's commonNaturalJoinProcessing: its hiddenOutputTag)
        hidden = [*(left_keys if side == "RIGHT" else [*left_keys, *right_keys] if side == "FULL" else right_keys), *hidden]
        # the keys' own columns leave the output, not the others of their names (Spark's
        # lUniqueOutput: the left output but its key attributes)
        visible = [*joined, *(e for e in visible if e not in left_keys), *(e for e in right if e not in right_keys)]
    outputs = [p.alias_or_name for p in select.expressions]
    starred = any(p.is_star for p in select.expressions)
    owners.update(_qualified_owners(select, select, visible, every))
    aliases = {p.alias.lower() for p in select.expressions if isinstance(p, exp.Alias)}
    for key in ("expressions", "laterals", "where", "group", "having", "qualify"):
        value = select.args.get(key)
        for part in value if isinstance(value, list) else [value]:
            if isinstance(part, exp.Expr):
                # HAVING may name an output's alias, which Spark reads there first (GROUP BY
                # reads the sources' columns first: measured)
                _check_names(part, visible, aliases if key == "having" else set())
    order = select.args.get("order")
    if order is not None:
        try:
            if not starred:
                _check_names(order, visible, {o.lower() for o in outputs})
            owners.update(_qualified_owners(order, select, visible, every))
        except OptimizeError as exc:
            if exc.error_class != "AMBIGUOUS_REFERENCE":
                raise
            # Spark sorts by an output of that name, else looks the name up below the SELECT,
            # where a name several columns carry is not found: UNRESOLVED_COLUMN, suggesting
            # the outputs
            raise _unresolved(str(exc).split("Reference `")[1].split("` is ambiguous")[0], outputs) from None
    for projection in select.expressions if not select.args.get("laterals") else []:  # (a view's columns join the star's)
        entries = _star_entries(projection, visible, hidden) if _excepts(projection) else []
        if entries:  # (none: a struct's star, s.* EXCEPT (i), left to the struct's fields)
            star_except(projection, [(q, n) for q, n, _ in entries])
    return JoinScope(owners, visible, hidden)


def _check_star_excepts(select: exp.Select, columns: Sequence[Sequence[str]]) -> None:
    """Check the ``EXCEPT`` lists of ``select``'s stars over joins with no ``USING`` (``FROM t
    x, t y``, ``JOIN ... ON``), whose output is every source's columns in order but a semi or
    anti join's right side's: a name both sides carry is ambiguous there (DuckDB's ``EXCLUDE``
    drops both)."""
    if not any(_excepts(p) for p in select.expressions) or select.args.get("laterals"):
        return  # (a LATERAL VIEW's columns join the star's)
    sources = select_sources(select)
    skipped = {
        index for index, join in enumerate(select.args.get("joins") or [], start=1)
        if str(join.args.get("kind") or "").upper() in ("SEMI", "ANTI")
    }
    visible: list[_Entry] = [
        (source.alias_or_name, name.lower(), k)
        for k, (source, names) in enumerate(zip(sources, columns)) if k not in skipped for name in names
    ]
    for projection in select.expressions:
        entries = _star_entries(projection, visible, []) if _excepts(projection) else []
        if entries:  # (none: a struct's star, s.* EXCEPT (i), left to the struct's fields)
            star_except(projection, [(q, n) for q, n, _ in entries])


def _excepts(projection: exp.Expr) -> bool:
    """Whether ``projection`` is a star with an ``EXCEPT`` list."""
    star = projection.this if isinstance(projection, exp.Column) else projection
    return isinstance(star, exp.Star) and bool(star.args.get("except_"))


def _star_entries(projection: exp.Expr, visible: list[_Entry], hidden: list[_Entry]) -> list[_Entry]:
    """The columns a star of a SELECT's list gives, in Spark's order: the join's output for
    ``*``; for ``a.*``, that source's keys the join's output leaves out, then its own columns."""
    if isinstance(projection, exp.Column) and projection.table:
        qualifier = projection.table.lower()
        return [e for e in [*hidden, *visible] if e[2] is not None and (e[0] or "").lower() == qualifier]
    return visible


def star_except(star: exp.Expr, entries: Sequence[tuple[str | None, str]]) -> list[int] | None:
    """The places among ``entries`` (the columns ``star`` gives: each one's qualifier, None for a
    full join's key, and its name) of the columns the star's ``EXCEPT`` list names, in the list's
    order, found as Spark's ``UnresolvedStarExceptOrReplace`` finds them: among the star's own columns only (``x.*
    EXCEPT (i)`` over ``t x JOIN t y USING (id)`` names ``x.i``; ``t.* EXCEPT (t.id)`` over
    ``t JOIN t USING (id)`` names both sides' ``id``, which ``t.*`` gives; measured on PySpark
    4.3). None where there is no list.

    Example:
        >>> import sqlglot
        >>> star = sqlglot.parse_one("SELECT x.* EXCEPT (I, x.g) FROM t x").expressions[0]
        >>> star_except(star, [("x", "id"), ("x", "i"), ("x", "g")])
        [1, 2]

    Raises:
        OptimizeError: ``AMBIGUOUS_REFERENCE`` for a name several of the star's columns carry,
            ``UNRESOLVED_COLUMN.WITH_SUGGESTION`` for one none does, ``EXCEPT_OVERLAPPING_COLUMNS``
            for a column named twice; ``VPUSH_UNSUPPORTED_FUNCTION`` for a struct's field (``st.a``,
            which Spark drops from the struct: the star written out would keep it).
    """
    stars = star.this if isinstance(star, exp.Column) else star
    excepted = stars.args.get("except_") if isinstance(stars, exp.Star) else None
    if not excepted:
        return None
    qualifiers = {(q or "").lower() for q, _ in entries if q is not None}
    found: list[int] = []
    for column in excepted:
        plain = isinstance(column, exp.Column) and column.args.get("db") is None and isinstance(column.this, exp.Identifier)
        qualifier, name = (column.table.lower(), column.name.lower()) if isinstance(column, exp.Column) else ("", "")
        if not plain or (qualifier and qualifier not in qualifiers and any(n == qualifier for _, n in entries)):
            raise OptimizeError(
                f"{star.sql(dialect='spark')}: a struct's field in the EXCEPT list of a star over a join is not answered "
                "yet; the Spark engine runs it over sources of distinct names",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )
        places = [k for k, (q, n) in enumerate(entries) if n == name and (not qualifier or (q or "").lower() == qualifier)]
        written = f"{column.table}`.`{column.name}" if qualifier else column.name
        if len(places) > 1:
            raise _ambiguous(written, [(entries[k][0], entries[k][1], k) for k in places])
        if not places:
            raise _unresolved(written, [f"{q}`.`{n}" if q is not None else n for q, n in entries])
        if places[0] in found:
            raise OptimizeError(
                f"Columns in an EXCEPT list must be distinct and non-overlapping, but got ({column.sql()}).",
                error_class="EXCEPT_OVERLAPPING_COLUMNS",
            )
        found.append(places[0])
    return found


def _in_star_except(column: exp.Expr) -> bool:
    """Whether ``column`` is a name of a star's ``EXCEPT`` list, which :func:`star_except`
    resolves among the star's columns."""
    return isinstance(column.parent, exp.Star) and column.arg_key == "except_"


def _qualified_name(column: exp.Column) -> tuple[str, str] | None:
    """A column's qualifier and name as written (``t.s.a``, a field of ``t``'s struct ``s``:
    ``('t', 's')``), or None unqualified."""
    if column.args.get("catalog") is not None:
        return None
    if column.args.get("db") is not None:
        return column.args["db"].name, column.table
    return (column.table, column.name) if column.table else None


def _qualified_owners(node: exp.Expr, select: exp.Select, visible: list[_Entry], every: list[_Entry]) -> dict[int, int]:
    """Each qualified column under ``node`` (none of ``select``'s sources, nor, under the
    SELECT itself, its joins and ORDER BY, read apart) that names one entry, with that entry's
    source; raise for one that names several."""
    def skip(n: exp.Expr) -> bool:
        return n is not node and n.parent is select and n.arg_key in ("from_", "joins", "order")

    found: dict[int, int] = {}
    for column in node.walk(prune=skip):
        if not isinstance(column, exp.Column) or isinstance(column.this, exp.Star) or _in_star_except(column):
            continue
        named = _qualified_name(column)
        if named is None or _shadowed(column, select, named[0].lower()):
            continue
        qualifier, name = named[0].lower(), named[1].lower()
        for entries in (visible, every):
            owners = [e for e in entries if (e[0] or "").lower() == qualifier and e[1] == name]
            if len(owners) > 1:
                if column.find_ancestor(exp.Select) is not select:
                    # an outer reference Spark cannot resolve there is not found at all (measured)
                    raise _unresolved("`.`".join(named), [])
                raise _ambiguous("`.`".join(named), owners)
            if owners:
                if owners[0][2] is not None:
                    found[id(column)] = owners[0][2]
                break
    return found


def _shadowed(column: exp.Column, select: exp.Select, qualifier: str) -> bool:
    """Whether a SELECT between ``column`` and ``select`` has a source named ``qualifier``."""
    node = column.find_ancestor(exp.Select)
    while node is not None and node is not select:
        if any(s.alias_or_name.lower() == qualifier for s in select_sources(node)):
            return True
        node = node.find_ancestor(exp.Select)
    return False


def _unresolved(written: str, outputs: list[str]) -> OptimizeError:
    shown = ", ".join(f"`{o}`" for o in sorted(outputs))
    return OptimizeError(
        f"A column, variable, or function parameter with name `{written}` cannot be resolved. "
        f"Did you mean one of the following? [{shown}].",
        error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION",
    )


def _check_names(node: exp.Expr, visible: list[_Entry], aliases: set[str]) -> None:
    for column in node.walk(prune=lambda n: isinstance(n, (exp.Select, exp.Subquery)) and n is not node):
        if not isinstance(column, exp.Column) or column.table or isinstance(column.this, exp.Star) or _in_star_except(column):
            continue
        name = column.name.lower()
        if name in aliases or _bound_by_lambda(column):
            continue
        owners = [entry for entry in visible if entry[1] == name]
        if len(owners) > 1:
            raise _ambiguous(column.name, owners)


def _ambiguous(written: str, owners: list[_Entry]) -> OptimizeError:
    shown = sorted(f"`{owner}`.`{written.split('`.`')[-1]}`" if owner is not None else f"`{written}`" for owner, _, _ in owners)
    return OptimizeError(
        f"Reference `{written}` is ambiguous, could be: [{', '.join(shown)}].", error_class="AMBIGUOUS_REFERENCE"
    )
