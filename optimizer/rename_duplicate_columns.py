"""A subquery's columns of one name, as Spark keeps them.

``SELECT * FROM (SELECT i, i FROM t)`` gives two columns named ``i`` in Spark; DuckDB renames the
second ``i_1``. A reference to such a name resolves in Spark when every column of that name is
the same column, read as it is (``SELECT i FROM (SELECT i, t.i FROM t)``, or a star's ``s``
beside ``s``), and otherwise (an alias is a column of its own: ``i AS i``, or a star's ``s`` beside
``x AS s``) raises ``AMBIGUOUS_REFERENCE`` in the SELECT list, WHERE, GROUP BY and QUALIFY, and
``UNRESOLVED_COLUMN`` in an ORDER BY or HAVING that does not name one of the SELECT's outputs and
in a correlated subquery's qualified reference (``x.s``), where DuckDB takes the first (measured
on PySpark 4.3). Beside other sources the same holds, qualified (``s.i``) or not, and in a join's
ON once the subquery is joined (a semi or anti join's right side is read only in its own ON).
Each such subquery's duplicates get hidden names (its star written out first where it gives one
of them), and a ``*`` (``* EXCEPT (...)`` too: it drops every column of a name) or ``s.*`` over
it is written out naming each as Spark does, the other sources' columns in their place.
"""
from __future__ import annotations

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from vpush.optimizer.dialect import bound_by_lambda, clause_of
from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.check_join_references import select_sources
from vpush.optimizer.expand_using_stars import output_names, refuse_star, source_names, star_columns

_HIDDEN = "__vpush_dup"
_UNALIASED = "__vpush_unaliased"
_DUPLICATES = "vpush_duplicate_columns"  # a subquery's names as spelled and as hidden, once renamed
_RESOLVED_AS_OUTPUTS = ("order", "having")  # Spark resolves these over the SELECT's outputs first


def _expand_stars(inner: exp.Select, scope: Scope) -> None:
    """Write out ``inner``'s stars (of ``scope``) where one gives a name another column has too."""
    if not any(p.is_star for p in inner.expressions):
        return
    written: list[exp.Expr] = []
    for projection in inner.expressions:
        columns = star_columns(scope, projection) if projection.is_star else None
        written += [projection] if columns is None else columns
    names = [p.alias_or_name.lower() for p in written if not p.is_star]
    if len(set(names)) < len(names):
        inner.set("expressions", written)


def _duplicates(select: exp.Select) -> dict[str, list[int]]:
    """The positions of each projection name ``select`` gives more than once (lower-cased)."""
    positions: dict[str, list[int]] = {}
    for index, projection in enumerate(select.expressions):
        positions.setdefault(projection.alias_or_name.lower(), []).append(index)
    return {name: found for name, found in positions.items() if len(found) > 1}


def _same_column(projections: list[exp.Expr], scope: Scope) -> bool:
    """Whether the projections all read one column of ``scope``'s sources as it is (Spark's one
    attribute; an alias, even ``i AS i``, or a struct's field ``st.a`` is an attribute of its own)."""
    sources = {alias.lower() for alias in scope.sources}
    plain = [p for p in projections if isinstance(p, exp.Column) and not p.args.get("db") and p.table.lower() in sources | {""}]
    tables = {p.table.lower() for p in plain}
    return len(plain) == len(projections) and (len(scope.selected_sources) == 1 or len(tables) == 1)


def _unresolved(column: exp.Column, outputs: list[str]) -> OptimizeError:
    shown = ", ".join(f"`{column.table}`.`{o}`" if column.table else f"`{o}`" for o in sorted(outputs))
    return OptimizeError(
        f"A column, variable, or function parameter with name {column.sql(dialect='spark')} cannot be resolved. "
        f"Did you mean one of the following? [{shown}].",
        error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION",
    )


def _query_scope(source: exp.Table | Scope | None) -> Scope | None:
    """The scope of the SELECT a source reads: a subquery's, a CTE's or a ``LATERAL`` subquery's."""
    if not isinstance(source, Scope):
        return None
    if isinstance(source.expression, exp.Select):
        return source
    lateral = source.expression
    if isinstance(lateral, exp.Lateral) and isinstance(lateral.this, exp.Subquery):
        return next((s for s in source.subquery_scopes if s.expression is lateral.this.this and isinstance(s.expression, exp.Select)), None)
    return None


def _position(select: exp.Select, node: exp.Expr) -> int | None:
    """The place among ``select``'s FROM and joins of the source ``node`` stands in (0 for the FROM)."""
    node = clause_of(node, select)
    if node.arg_key == "from_":
        return 0
    joins = select.args.get("joins") or []
    return next((k + 1 for k, join in enumerate(joins) if join is node), None)


def _check_references(select: exp.Select, scope: Scope, alias: str, ambiguous: dict[str, int], position: int) -> None:
    """Raise Spark's error for a reference of ``select`` (of ``scope``) to a name of ``ambiguous``
    (with how many columns of the source ``alias`` have it) that reads that source, the one at
    ``position`` among the SELECT's FROM and joins (a join's ON sees the sources joined so far;
    the right side of a semi or anti join is read only in its ON)."""
    outputs = [p.alias_or_name for p in select.expressions if not p.is_star]
    joins = select.args.get("joins") or []
    semi = position > 0 and str(joins[position - 1].args.get("kind") or "").upper() in ("SEMI", "ANTI")
    own = [c for c in select.find_all(exp.Column) if c.find_ancestor(exp.Select) is select]
    sources = {name.lower() for name in scope.sources}
    for column in own:
        # `x.i` (or `s.x.i`), a field of a name several columns have: Spark's reference to `x` is ambiguous
        db = column.args.get("db")
        base = column.table.lower() if db is None or db.name.lower() == alias.lower() else ""
        if (base in ambiguous and (db is not None or base not in sources) and not semi and not bound_by_lambda(column)
                and clause_of(column, select).arg_key not in ("laterals", "joins", *_RESOLVED_AS_OUTPUTS)):
            names = ", ".join(f"`{alias}`.`{column.table}`" if alias else f"`{column.table}`" for _ in range(ambiguous[base]))
            raise OptimizeError(
                f"Reference {'.'.join(f'`{part.name}`' for part in column.parts)} is ambiguous, could be: [{names}].",
                error_class="AMBIGUOUS_REFERENCE",
            )
    for column in dict.fromkeys([*own, *scope.columns]):
        name = column.name.lower()
        if not isinstance(column.this, exp.Identifier) or name not in ambiguous or column.table.lower() not in ("", alias.lower()):
            continue
        if bound_by_lambda(column) or column.args.get("db"):
            continue
        if column.find_ancestor(exp.Select) is not select:  # a correlated subquery's
            if column.table and not semi:
                raise _unresolved(column, outputs)
            continue  # unqualified, the subquery's own source may have it
        clause = clause_of(column, select)
        if clause.arg_key == "laterals":
            continue
        if clause.arg_key == "joins":
            if joins.index(clause) + 1 < position or (semi and joins.index(clause) + 1 != position):
                continue  # the ON of a join before the source's, or beside a semi join's
        elif semi:
            continue  # the semi join's right side is no column of the SELECT
        elif clause.arg_key in _RESOLVED_AS_OUTPUTS:
            if not column.table and name in {o.lower() for o in outputs}:
                continue
            raise _unresolved(column, outputs)
        names = ", ".join(f"`{alias}`.`{column.name}`" if alias else f"`{column.name}`" for _ in range(ambiguous[name]))
        raise OptimizeError(f"Reference `{column.name}` is ambiguous, could be: [{names}].", error_class="AMBIGUOUS_REFERENCE")


def ambiguous_names(scope: Scope) -> set[str]:
    """The names (lower-cased) a subquery or CTE that ``scope`` reads gives to several different
    columns (a reference to one is Spark's ``AMBIGUOUS_REFERENCE``)."""
    names: set[str] = set()
    for source in scope.sources.values():
        inner = _query_scope(source)
        if inner is not None and isinstance(inner.expression, exp.Select):
            known = inner.expression.meta.get(_DUPLICATES)  # hidden already: its names are no longer duplicates
            names.update(known[2] if known is not None else _ambiguous(inner.expression, inner))
    return names


def _ambiguous(inner: exp.Select, source: Scope) -> dict[str, int]:
    """Each name ``inner`` (of ``source``) gives to several different columns, with how many."""
    return {
        name: len(found) for name, found in _duplicates(inner).items() if not _same_column([inner.expressions[k] for k in found], source)
    }


def _hide_duplicates(inner: exp.Select, source: Scope) -> tuple[list[str], list[str], dict[str, int]] | None:
    """Give the duplicate columns of ``inner`` (of ``source``) hidden names; return the names it
    gives as spelled, as hidden, and each ambiguous name with how many columns have it (None
    without duplicates). Once per query: a CTE read twice is renamed the first time."""
    known = inner.meta.get(_DUPLICATES)
    if known is not None:
        return known
    _expand_stars(inner, source)
    duplicates = _duplicates(inner)
    if not duplicates:
        return None
    ambiguous = _ambiguous(inner, source)
    spelled = [p.alias_or_name for p in inner.expressions]
    hidden = list(spelled)
    for found in duplicates.values():
        for count, index in enumerate(found[1:], start=1):
            hidden[index] = f"{_HIDDEN}{count}_{spelled[index]}"
            projection = inner.expressions[index]
            inner.expressions[index].replace(exp.alias_(projection.unalias().copy(), hidden[index], quoted=True))
    inner.meta[_DUPLICATES] = (spelled, hidden, ambiguous)
    return spelled, hidden, ambiguous


def _written_columns(table: exp.Identifier | None, spelled: list[str], hidden: list[str], dropped: set[str]) -> list[exp.Expr]:
    """A source's columns but those ``dropped`` (lower-cased), read by their hidden names
    (qualified by ``table``) and named as Spark names them."""
    return [
        exp.alias_(exp.column(exp.to_identifier(name, quoted=True), table=table and table.copy()), exp.to_identifier(shown, quoted=True))
        for name, shown in zip(hidden, spelled)
        if shown.lower() not in dropped
    ]


def rename_duplicate_columns(select: exp.Select, scope: Scope) -> None:
    """Give the duplicate columns of each subquery ``select`` reads hidden names, write out a
    ``*`` over it with Spark's names, and raise for an ambiguous reference. In place.

    Raises:
        OptimizeError: a reference to a name that several different columns of a subquery
            have (Spark's ``AMBIGUOUS_REFERENCE``, or ``UNRESOLVED_COLUMN`` where Spark resolves
            the name over the SELECT's outputs or from a correlated subquery);
            ``VPUSH_UNSUPPORTED_FUNCTION`` for a ``*`` over such a subquery joined ``USING`` or
            ``NATURAL``, or beside a source whose columns vpush does not know.
    """
    if select.args.get("laterals"):
        return
    renamed: dict[str, tuple[list[str], list[str]]] = {}
    for source_node in select_sources(select):
        alias = source_node.alias_or_name
        source = _query_scope(scope.sources.get(alias))
        position = _position(select, source_node)
        inner = source.expression if source is not None else None
        if not isinstance(inner, exp.Select) or source is None or position is None:
            continue
        found = _hide_duplicates(inner, source)
        if found is None:
            continue
        spelled, hidden, ambiguous = found
        _check_references(select, scope, alias, ambiguous, position)
        if any(name.lower() == alias.lower() for name in scope.selected_sources):  # not a semi join's right side
            renamed[alias.lower()] = (spelled, hidden)
    if not renamed or not any(p.is_star for p in select.expressions):
        return
    qualifiers = {alias: alias for alias in scope.selected_sources}
    unaliased = next((s for s in select_sources(select) if isinstance(s, exp.Subquery) and not s.alias_or_name), None)
    if unaliased is not None and len(qualifiers) > 1:
        # DuckDB finds the columns of one name two sources give ambiguous unless qualified
        unaliased.set("alias", exp.TableAlias(this=exp.to_identifier(_UNALIASED, quoted=True)))
        qualifiers[""] = _UNALIASED
    written: list[exp.Expr] = []
    for projection in select.expressions:
        if projection.is_star and (isinstance(projection, exp.Star) or projection.table.lower() in renamed):
            written += _star_over_sources(select, scope, projection, renamed, qualifiers)
        else:
            written.append(projection)
    select.set("expressions", written)


def _star_over_sources(
    select: exp.Select,
    scope: Scope,
    projection: exp.Expr,
    renamed: dict[str, tuple[list[str], list[str]]],
    qualifiers: dict[str, str],
) -> list[exp.Expr]:
    """``*`` (or ``a.*``) of ``select`` (of ``scope``) over its sources in order, each read by
    its name in ``qualifiers``: those of ``renamed`` (by lower-cased alias) by their hidden
    names, the others as ``a.*`` (or their columns beside an EXCEPT, which drops every column of
    a name; one several sources give is Spark's ``AMBIGUOUS_REFERENCE``)."""
    star = projection.this if isinstance(projection, exp.Column) else projection
    if any(star.args.get(k) for k in ("replace", "rename", "ilike")):
        raise refuse_star("`*` with REPLACE over a subquery's columns of one name")
    joins = select.args.get("joins") or []
    if any(join.args.get("using") or str(join.args.get("method") or "").upper() == "NATURAL" for join in joins):
        raise refuse_star("`*` over a join USING or NATURAL of a subquery's columns of one name")
    qualifier = projection.table.lower() if isinstance(projection, exp.Column) else None
    sources = [alias for alias in scope.selected_sources if qualifier is None or alias.lower() == qualifier]
    excepted = [(c.table.lower(), c.name) for c in star.args.get("except_") or []]
    names: dict[str, list[str]] = {}
    for alias in sources if excepted else []:
        found = renamed[alias.lower()][0] if alias.lower() in renamed else source_names(scope, alias, output_names)
        if found is None:
            raise refuse_star("`* EXCEPT` over a subquery's columns of one name beside a source of `*`")
        names[alias] = found
    for table, name in excepted:
        owners = [alias for alias in sources if table in ("", alias.lower()) and name.lower() in {n.lower() for n in names[alias]}]
        if len(owners) > 1:
            shown = ", ".join(sorted(f"`{owner}`.`{name}`" for owner in owners))
            raise OptimizeError(f"Reference `{name}` is ambiguous, could be: [{shown}].", error_class="AMBIGUOUS_REFERENCE")
    written: list[exp.Expr] = []
    for alias in sources:
        dropped = {name.lower() for table, name in excepted if table in ("", alias.lower())}
        table = exp.to_identifier(qualifiers[alias]) if qualifiers[alias] else None
        if alias.lower() in renamed:
            written += _written_columns(table, *renamed[alias.lower()], dropped)
        elif not excepted:
            written.append(exp.Column(this=exp.Star(), table=table))
        else:
            written += _written_columns(table, names[alias], names[alias], dropped)
    return written

