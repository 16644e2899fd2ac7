"""Two sources of one name in a SELECT (``t JOIN t USING (id)``, ``FROM t, t``, two unaliased
subqueries) each under a name of its own, read as Spark reads them.

Spark takes such a SELECT and resolves each qualified name as its analyzer does
(:func:`~vpush.optimizer.check_join_references.join_scope`): ``t.id`` over ``t JOIN t USING
(id)`` is the join's key, ``t.g`` there and ``t.id`` over ``t, t`` are ``AMBIGUOUS_REFERENCE``;
``t.*`` gives every column of that qualifier, the join keys the output leaves out first (the
right side's for an inner or left join; measured on PySpark 4.3). vpush's rules key a SELECT's scope, scans, pruning and extractions by source name, so every
source after the first of its name gets an alias of its own, and each qualified name (a join's
ON, a correlated subquery's too) the alias of the source it resolves to.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlglot import exp

from vpush.optimizer.check_join_references import JoinScope, join_scope, select_sources, source_columns, star_except

__all__ = ["alias_repeated_sources"]

SOURCE_ALIAS_PREFIX = "__vpush_source_"


def alias_repeated_sources(expression: exp.Expr, table_columns: Mapping[int, Sequence[str]]) -> exp.Expr:
    """Give each source of a SELECT whose name an earlier source of it has an alias of its own,
    where every source's columns are known, and make the qualified names read the source Spark
    resolves them to (``t.*`` written out).

    Example:
        >>> import sqlglot
        >>> query = sqlglot.parse_one("SELECT id, t.id AS k FROM t JOIN t USING (id) WHERE t.id > 1")
        >>> alias_repeated_sources(query, {id(t): ("id", "g") for t in query.find_all(exp.Table)}).sql()
        'SELECT id, t.id AS k FROM t JOIN t AS "__vpush_source_1" USING (id) WHERE t.id > 1'
        >>> query = sqlglot.parse_one("SELECT t.* FROM t JOIN t USING (id)")
        >>> alias_repeated_sources(query, {id(t): ("id", "g") for t in query.find_all(exp.Table)}).sql()
        'SELECT "__vpush_source_1"."id" AS "id", "t"."id" AS "id", "t"."g" AS "g", "__vpush_source_1"."g" AS "g" FROM t JOIN t AS "__vpush_source_1" USING (id)'

    Args:
        expression: the parsed query, changed in place.
        table_columns: each registered table reference's column names, by ``id`` of its node.

    Returns:
        ``expression``.

    Raises:
        OptimizeError: ``AMBIGUOUS_REFERENCE`` (``UNRESOLVED_COLUMN`` in an ORDER BY or a
            correlated subquery) for a name several of the sources carry, as Spark's.
    """
    count = 0
    for select in list(expression.find_all(exp.Select)):
        sources = select_sources(select)
        names = [source.alias_or_name.lower() for source in sources]
        views = {lateral.alias_or_name.lower() for lateral in select.args.get("laterals") or []}
        if len(set(names)) == len(names) or views & set(names):
            continue  # a LATERAL VIEW of a source's name: check_join_references' refusal
        columns = [source_columns(source, table_columns) for source in sources]
        known = [c for c in columns if c is not None]
        if len(known) < len(columns):
            continue  # check_join_references refuses it
        scope = join_scope(select, known)
        aliases: dict[int, str] = {}
        repeated = {name for name in names if names.count(name) > 1}
        for index, name in enumerate(names):
            # an unaliased subquery has no name DuckDB's or vpush's rules could tell apart
            if name in names[:index] or (not name and name in repeated):
                count += 1
                aliases[index] = f"{SOURCE_ALIAS_PREFIX}{count}"
        written = [aliases.get(k, source.alias_or_name) for k, source in enumerate(sources)]
        # the projections a star's columns replace kept alive while scope.owners, keyed by the
        # ids of their columns (`t.* EXCEPT (t.id)`), is read: a new column could take an id
        projections = list(select.expressions)
        select.set("expressions", [
            expanded
            for projection in projections
            for expanded in _expand_star(projection, scope, known, written, set(names))
        ])
        for column in list(select.find_all(exp.Column)):
            owner = scope.owners.get(id(column))
            if owner is None or owner not in aliases:
                continue
            identifier = exp.to_identifier(aliases[owner], quoted=True)
            column.set("db" if column.args.get("db") is not None else "table", identifier)
        for index, alias in aliases.items():
            _set_alias(sources[index], alias)
    return expression


def _expand_star(
    projection: exp.Expr, scope: JoinScope, columns: list[Sequence[str]], written: list[str], names: set[str]
) -> list[exp.Expr]:
    """``t.*`` of a source (of a SELECT that names one twice) as its columns, as Spark's star
    finds them: the join's hidden keys of that qualifier, then its output columns
    (``UnresolvedStar.expand``); left as it is where it finds none (a semi join's right side)."""
    if isinstance(projection, exp.Star):
        _qualify_star_except(projection, scope, written)
        return [projection]
    if not (isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star) and projection.table):
        return [projection]
    qualifier = projection.table.lower()
    if qualifier not in names or projection.args.get("db") is not None:
        return [projection]
    chosen = [(owner, name, index) for owner, name, index in [*scope.hidden, *scope.visible]
              if index is not None and (owner or "").lower() == qualifier]
    if not chosen:
        return [projection]
    # the EXCEPT list names some of these columns (Spark's UnresolvedStarExceptOrReplace)
    excepted = set(star_except(projection, [(owner, name) for owner, name, _ in chosen]) or [])
    expanded: list[exp.Expr] = []
    for index, name in [(index, name) for k, (_, name, index) in enumerate(chosen) if k not in excepted and index is not None]:
        spelled = next(c for c in columns[index] if c.lower() == name)
        expanded.append(exp.alias_(exp.column(spelled, table=written[index], quoted=True), spelled, quoted=True))
    return expanded


def _qualify_star_except(star: exp.Star, scope: JoinScope, written: list[str]) -> None:
    """Qualify each name of ``*``'s EXCEPT list by the source it names among the join's output
    (``* EXCEPT (id)`` over ``t JOIN t USING (id)``: the left side's key), as the sources are
    written now; a full join's key, ``coalesce`` of both, stays unqualified."""
    places = star_except(star, [(owner, name) for owner, name, _ in scope.visible])
    for column, place in zip(star.args.get("except_") or [], places or []):
        index = scope.visible[place][2]
        column.set("table", exp.to_identifier(written[index], quoted=True) if index is not None else None)


def _set_alias(source: exp.Expr, alias: str) -> None:
    """Name ``source`` ``alias``, keeping the column names it gives (``t AS x(a, b)``)."""
    identifier = exp.to_identifier(alias, quoted=True)
    current = source.args.get("alias")
    if isinstance(current, exp.TableAlias):
        current.set("this", identifier)
    else:
        source.set("alias", exp.TableAlias(this=identifier))
