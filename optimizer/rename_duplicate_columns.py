"""A subquery's columns of one name, as Spark keeps them.

``SELECT * FROM (SELECT i, i FROM t)`` gives two columns named ``i`` in Spark; DuckDB renames the
second ``i_1``. A reference to such a name resolves in Spark when every column of that name is
the same column (``SELECT i FROM (SELECT i, i FROM t)``), and raises ``AMBIGUOUS_REFERENCE``
otherwise (``SELECT i FROM (SELECT i, i + 0 AS i FROM t)``), where DuckDB takes the first
(measured on PySpark 4.3). The subquery's duplicates get hidden names, and a ``*`` over it is
written out naming each as Spark does.
"""
from __future__ import annotations

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from vpush.optimizer.errors import OptimizeError

_HIDDEN = "__vpush_dup"


def _duplicates(select: exp.Select) -> dict[str, list[int]]:
    """The positions of each projection name ``select`` gives more than once (lower-cased)."""
    positions: dict[str, list[int]] = {}
    for index, projection in enumerate(select.expressions):
        positions.setdefault(projection.alias_or_name.lower(), []).append(index)
    return {name: found for name, found in positions.items() if len(found) > 1}


def _same_column(projections: list[exp.Expr]) -> bool:
    """Whether the projections all read one column as it is (Spark's one attribute)."""
    read = {p.unalias().sql().lower() if isinstance(p.unalias(), exp.Column) else None for p in projections}
    return len(read) == 1 and None not in read


def rename_duplicate_columns(select: exp.Select, scope: Scope) -> None:
    """Give the duplicate columns of the one subquery ``select`` reads hidden names, write out a
    ``*`` over it with Spark's names, and raise for an ambiguous reference. In place.

    Raises:
        OptimizeError: a reference to a name that several different columns of the subquery
            have (Spark's ``AMBIGUOUS_REFERENCE``).
    """
    if len(scope.sources) != 1 or select.args.get("joins") or select.args.get("laterals"):
        return
    (alias, source), = scope.sources.items()
    inner = source.expression if isinstance(source, Scope) else None
    if not isinstance(inner, exp.Select):
        return
    duplicates = _duplicates(inner)
    if not duplicates:
        return
    ambiguous = {name for name, found in duplicates.items() if not _same_column([inner.expressions[k] for k in found])}
    for column in scope.columns:  # this query's own references, not its subquery's
        if isinstance(column.this, exp.Identifier) and column.name.lower() in ambiguous and column.table in ("", alias):
            names = ", ".join(f"`{alias}`.`{column.name}`" if alias else f"`{column.name}`" for _ in duplicates[column.name.lower()])
            raise OptimizeError(f"Reference `{column.name}` is ambiguous, could be: [{names}].",
                                error_class="AMBIGUOUS_REFERENCE")
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
