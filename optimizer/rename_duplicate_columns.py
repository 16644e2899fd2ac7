"""A subquery's columns of one name, as Spark keeps them.

``SELECT * FROM (SELECT i, i FROM t)`` gives two columns named ``i`` in Spark; DuckDB renames the
second ``i_1``. A reference to such a name resolves in Spark when every column of that name is
the same column, read as it is (``SELECT i FROM (SELECT i, t.i FROM t)``, or a star's ``s``
beside ``s``), and otherwise (an alias is a column of its own: ``i AS i``, or a star's ``s`` beside
``x AS s``) raises ``AMBIGUOUS_REFERENCE`` in the SELECT list, WHERE, GROUP BY and QUALIFY, and
``UNRESOLVED_COLUMN`` in an ORDER BY or HAVING that does not name one of the SELECT's outputs and
in a correlated subquery's qualified reference (``x.s``), where DuckDB takes the first (measured
on PySpark 4.3). The subquery's duplicates get hidden names (its star written out first where it
gives one of them), and a ``*`` over it is written out naming each as Spark does.
"""
from __future__ import annotations

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from vpush.optimizer.dialect import bound_by_lambda
from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.expand_using_stars import is_star, source_names

_HIDDEN = "__vpush_dup"
_RESOLVED_AS_OUTPUTS = ("order", "having")  # Spark resolves these over the SELECT's outputs first


def _star_columns(scope: Scope, star: exp.Expr) -> list[exp.Column] | None:
    """The columns ``*`` (or ``a.*``) of ``scope``'s SELECT gives, each qualified by its source;
    None where vpush does not know them."""
    stars = star.this if isinstance(star, exp.Column) else star
    if not isinstance(stars, exp.Star) or any(stars.args.get(k) for k in ("replace", "rename", "ilike")):
        return None
    excepted = {e.name.lower() for e in (stars.args.get("except_") or [])}
    table = star.table if isinstance(star, exp.Column) else None
    found: list[exp.Column] = []
    for alias in [table] if table else list(scope.selected_sources):
        names = source_names(scope, alias, output_names)
        if names is None:
            return None
        found += [exp.column(exp.to_identifier(n, quoted=True), table=exp.to_identifier(alias) if alias else None)
                  for n in names if n.lower() not in excepted]
    return found


def output_names(scope: Scope) -> list[str] | None:
    """The names of the columns ``scope``'s SELECT gives, its stars' too; None if unknown."""
    names: list[str] = []
    for projection in scope.expression.expressions:
        if not is_star(projection):
            names.append(projection.alias_or_name)
            continue
        columns = _star_columns(scope, projection)
        if columns is None:
            return None
        names += [c.name for c in columns]
    return names


def _expand_stars(inner: exp.Select, scope: Scope) -> None:
    """Write out ``inner``'s stars (of ``scope``) where one gives a name another column has too."""
    if not any(is_star(p) for p in inner.expressions):
        return
    written: list[exp.Expr] = []
    for projection in inner.expressions:
        columns = _star_columns(scope, projection) if is_star(projection) else None
        written += [projection] if columns is None else columns
    names = [p.alias_or_name.lower() for p in written if not is_star(p)]
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


def _check_references(select: exp.Select, scope: Scope, alias: str, ambiguous: dict[str, int]) -> None:
    """Raise Spark's error for a reference of ``select`` (of ``scope``) to a name of ``ambiguous``
    (with how many columns of its one source ``alias`` have it)."""
    outputs = [p.alias_or_name for p in select.expressions if not is_star(p)]
    own = [c for c in select.find_all(exp.Column) if c.find_ancestor(exp.Select) is select]
    for column in dict.fromkeys([*own, *scope.columns]):
        name = column.name.lower()
        if not isinstance(column.this, exp.Identifier) or name not in ambiguous or column.table.lower() not in ("", alias.lower()):
            continue
        if bound_by_lambda(column) or column.args.get("db"):
            continue
        if column.find_ancestor(exp.Select) is not select:  # a correlated subquery's
            if column.table:
                raise _unresolved(column, outputs)
            continue  # unqualified, the subquery's own source may have it
        clause: exp.Expr = column
        while clause.parent is not select and clause.parent is not None:
            clause = clause.parent
        if clause.arg_key in _RESOLVED_AS_OUTPUTS:
            if not column.table and name in {o.lower() for o in outputs}:
                continue
            raise _unresolved(column, outputs)
        if clause.arg_key in ("joins", "laterals"):
            continue
        names = ", ".join(f"`{alias}`.`{column.name}`" if alias else f"`{column.name}`" for _ in range(ambiguous[name]))
        raise OptimizeError(f"Reference `{column.name}` is ambiguous, could be: [{names}].", error_class="AMBIGUOUS_REFERENCE")


def rename_duplicate_columns(select: exp.Select, scope: Scope) -> None:
    """Give the duplicate columns of the one subquery ``select`` reads hidden names, write out a
    ``*`` over it with Spark's names, and raise for an ambiguous reference. In place.

    Raises:
        OptimizeError: a reference to a name that several different columns of the subquery
            have (Spark's ``AMBIGUOUS_REFERENCE``, or ``UNRESOLVED_COLUMN`` where Spark resolves
            the name over the SELECT's outputs or from a correlated subquery).
    """
    if len(scope.sources) != 1 or select.args.get("joins") or select.args.get("laterals"):
        return
    (alias, source), = scope.sources.items()
    inner = source.expression if isinstance(source, Scope) else None
    if not isinstance(inner, exp.Select) or not isinstance(source, Scope):
        return
    _expand_stars(inner, source)
    duplicates = _duplicates(inner)
    if not duplicates:
        return
    ambiguous = {
        name: len(found) for name, found in duplicates.items() if not _same_column([inner.expressions[k] for k in found], source)
    }
    _check_references(select, scope, alias, ambiguous)
    spelled = [p.alias_or_name for p in inner.expressions]
    hidden = list(spelled)
    for found in duplicates.values():
        for count, index in enumerate(found[1:], start=1):
            hidden[index] = f"{_HIDDEN}{count}_{spelled[index]}"
            projection = inner.expressions[index]
            inner.expressions[index].replace(exp.alias_(projection.unalias().copy(), hidden[index], quoted=True))
    written: list[exp.Expr] = []
    for projection in select.expressions:
        star = isinstance(projection, exp.Star) or (
            isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star) and projection.table == alias
        )
        if not star:
            written.append(projection)
            continue
        for name, shown in zip(hidden, spelled):
            column = exp.column(exp.to_identifier(name, quoted=True), table=alias or None)
            written.append(exp.alias_(column, exp.to_identifier(shown, quoted=True)))
    select.set("expressions", written)
