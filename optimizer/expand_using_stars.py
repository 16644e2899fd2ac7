"""``SELECT *`` over a join ``USING (...)`` or ``NATURAL``, written out in Spark's order.

Spark's ``*`` over such a join gives the join columns first (the left side's for an inner or
left join, the right side's for a right join, ``coalesce`` of both for a full join), then the
left side's other columns, then the right side's; a side's own ``a.*`` gives its join columns
first, then its others (measured on PySpark 4.3). DuckDB leaves the join columns where the left
side has them, so each star is replaced by its columns, named as Spark names them.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from vpush.optimizer.check_join_references import star_except
from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.variant_types import SparkType

COLUMN_NAMES = "vpush_column_names"
"""The meta key under which a table reference keeps its columns' names, in order and as the
table spells them (the types vpush keeps are by lower-cased name)."""

_HIDDEN = "__vpush"

# a column of a join's output: its name, its value, the side whose column's type it has, and the
# side whose `a.*` gives it (None for a FULL join's key, which no side's star gives)
_Output = tuple[str, exp.Expr, str, "str | None"]
_T = TypeVar("_T", bound=tuple[Any, ...])  # a star's column: its name and value first


def refuse_star(what: str) -> OptimizeError:
    """``VPUSH_UNSUPPORTED_FUNCTION`` for a star of ``what`` on the DuckDB engine."""
    return OptimizeError(
        f"SELECT *: the DuckDB engine does not give Spark's answer for {what} yet; the Spark engine runs it",
        error_class="VPUSH_UNSUPPORTED_FUNCTION",
    )


def source_names(scope: Scope, alias: str, stars: Callable[[Scope], list[str] | None] | None = None) -> list[str] | None:
    """The columns of the source ``alias`` of ``scope`` in order, as spelt, or None if unknown
    (a subquery's with a star, unless ``stars`` gives them).

    Example:
        >>> from sqlglot import parse_one
        >>> from sqlglot.optimizer.scope import build_scope
        >>> scope = build_scope(parse_one("SELECT * FROM (SELECT i, g AS H FROM t) x JOIN (SELECT * FROM t) y"))
        >>> source_names(scope, "x"), source_names(scope, "y"), source_names(scope, "y", lambda s: ["i"])
        (['i', 'H'], None, ['i'])
    """
    source = scope.sources.get(alias)
    if isinstance(source, exp.Table):
        names = source.meta.get(COLUMN_NAMES)
        return None if names is None else [n for n in names if not n.startswith(_HIDDEN)]
    if isinstance(source, Scope) and isinstance(source.expression, exp.Select):
        projections = source.expression.expressions
        inner = source.expression.args.get("from_")
        if (len(projections) == 1 and isinstance(projections[0], exp.Star) and not any(projections[0].args.values()) and inner is not None
                and not source.expression.args.get("joins") and not source.expression.args.get("laterals")):
            names = source_names(source, inner.this.alias_or_name, stars)  # SELECT * FROM x: x's columns
            if names is not None:
                return names
        if any(p.is_star for p in projections):
            return None if stars is None else stars(source)
        return [p.alias_or_name for p in projections]
    return None


def star_columns(scope: Scope, star: exp.Expr) -> list[exp.Column] | None:
    """The columns ``*`` (or ``a.*``) of ``scope``'s SELECT gives, each qualified by its source,
    in the order of its sources (a join ``USING``'s star written out before); None where vpush
    does not know them."""
    stars = star.this if isinstance(star, exp.Column) else star
    if not isinstance(stars, exp.Star) or any(stars.args.get(k) for k in ("replace", "rename", "ilike")):
        return None
    select = scope.expression
    joins: Sequence[exp.Join] = select.args.get("joins") or []
    written = {name.lower() for name in scope.sources}
    if select.args.get("laterals") or any(
        j.args.get("using") or str(j.args.get("method") or "").upper() == "NATURAL" or j.this.alias_or_name.lower() not in written
        for j in joins
    ):
        return None  # a generator's columns, a join's keys, which the star reads too
    table = star.table if isinstance(star, exp.Column) else None
    found: list[exp.Column] = []
    for alias in [table] if table else list(scope.selected_sources):
        names = source_names(scope, alias, output_names)
        if names is None:
            return None
        found += [exp.column(exp.to_identifier(n, quoted=True), table=exp.to_identifier(alias) if alias else None) for n in names]
    # the EXCEPT list's names found among the star's columns as Spark finds them (`x.g` is x's alone)
    dropped = star_except(star, [(c.table or None, c.name.lower()) for c in found]) or []
    return [c for k, c in enumerate(found) if k not in dropped]


def output_names(scope: Scope) -> list[str] | None:
    """The names of the columns ``scope``'s SELECT gives, its stars' too; None if unknown."""
    names: list[str] = []
    for projection in scope.expression.expressions:
        if not projection.is_star:
            names.append(projection.alias_or_name)
            continue
        columns = star_columns(scope, projection)
        if columns is None:
            return None
        names += [c.name for c in columns]
    return names


def expand_using_stars(
    select: exp.Select, scope: Scope, columns: Mapping[str, Mapping[str, SparkType | None]]
) -> None:
    """Replace each ``*`` and ``a.*`` over a join ``USING`` or ``NATURAL`` of ``select`` by its
    columns in Spark's order; refuse (``VPUSH_UNSUPPORTED_FUNCTION``) where vpush does not know
    them (more than one join, a source whose columns it does not know).

    Args:
        select: the SELECT, changed in place.
        scope: its scope.
        columns: each source's Spark types by lower-cased column name (a full join's key must
            have one type on both sides).
    """
    joins: Sequence[exp.Join] = select.args.get("joins") or []
    using = [j for j in joins if j.args.get("using") or str(j.args.get("method") or "").upper() == "NATURAL"]
    source = select.args.get("from_")
    if using and len(joins) > 1 and source is not None and not any(p.is_star for p in select.expressions):
        _expand_over_joins(select, scope, columns, source, joins, stars=False)
        return
    if not using or not any(p.is_star for p in select.expressions):
        return
    if len(joins) != 1 and source is not None:
        _expand_over_joins(select, scope, columns, source, joins)
        return
    if source is None:
        raise refuse_star("`*` over more than one join with USING columns or NATURAL")
    join = joins[0]
    left, right = source.this.alias_or_name, join.this.alias_or_name
    left_names, right_names = source_names(scope, left, output_names), source_names(scope, right, output_names)
    if not left or not right or left_names is None or right_names is None:
        raise refuse_star("`*` over a join USING or NATURAL of a source whose columns vpush does not know")
    right_lower = {n.lower(): n for n in right_names}
    left_lower = {n.lower(): n for n in left_names}
    if join.args.get("using"):
        wanted = [k.name.lower() for k in join.args["using"]]
    else:
        wanted = [n.lower() for n in left_names if n.lower() in right_lower]
    if not wanted:  # NATURAL without a common column: every pair of rows (DuckDB's binder refuses it)
        join.set("method", None)
        join.set("on", exp.true())
    if any(k not in left_lower or k not in right_lower for k in wanted):
        return  # a USING column one side lacks: Spark's and DuckDB's errors
    side = str(join.args.get("side") or "").upper()
    keys: list[tuple[str, exp.Expr]] = []
    for key in wanted:
        left_key = exp.column(left_lower[key], table=left, quoted=True)
        right_key = exp.column(right_lower[key], table=right, quoted=True)
        if side == "FULL":
            if columns.get(left.lower(), {}).get(key) != columns.get(right.lower(), {}).get(key):
                raise refuse_star("`*` over a full join USING columns of different types")
            keys.append((left_lower[key], exp.Coalesce(this=left_key, expressions=[right_key])))
        else:
            keys.append((left_lower[key], right_key if side == "RIGHT" else left_key))

    def others(alias: str, names: list[str]) -> list[tuple[str, exp.Expr]]:
        return [(n, exp.column(n, table=alias, quoted=True)) for n in names if n.lower() not in wanted]

    expanded: list[exp.Expr] = []
    for projection in select.expressions:
        if not projection.is_star:
            expanded.append(projection)
            continue
        if isinstance(projection, exp.Column) and projection.table:
            owner = projection.table
            if owner.lower() == left.lower():
                own = [(left_lower[k], exp.column(left_lower[k], table=left, quoted=True)) for k in wanted]
                chosen = own + others(left, left_names)
            elif owner.lower() == right.lower():
                own = [(right_lower[k], exp.column(right_lower[k], table=right, quoted=True)) for k in wanted]
                chosen = own + others(right, right_names)
            else:
                expanded.append(projection)
                continue
        else:
            chosen = [(name, value.copy()) for name, value in keys] + others(left, left_names) + others(right, right_names)
        expanded += [exp.alias_(value, name, quoted=True) for name, value in _except(projection, chosen)]
    select.set("expressions", expanded)


def _except(star: exp.Expr, chosen: list[_T]) -> list[_T]:
    """The columns ``star`` gives (each a name and its value first) but those its EXCEPT list
    names, each found among them as Spark finds it (by its qualifier, none for a full join's
    coalesced key)."""
    places = star_except(star, [(v.table if isinstance(v, exp.Column) else None, name.lower()) for name, v, *_ in chosen])
    return [c for k, c in enumerate(chosen) if k not in (places or [])]


def _expand_over_joins(
    select: exp.Select,
    scope: Scope,
    columns: Mapping[str, Mapping[str, SparkType | None]],
    source: exp.From,
    joins: Sequence[exp.Join],
    *,
    stars: bool = True,
) -> None:
    """``*`` and ``a.*`` over several joins, as Spark resolves them left to right: each join
    ``USING`` or ``NATURAL`` puts its keys first (the first column of that name its left side
    has, the right side's for a RIGHT join, coalesce of both for a FULL one), then the left side's
    other columns, then the right side's; another join appends the right side's columns. The keys
    a join's output leaves out (the right side's; the left side's for a RIGHT join, both for a
    FULL one) stay readable by their side's name, the last join's first (Spark's hidden output),
    and a side's ``a.*`` gives those of its own, then its columns of the output in order
    (``UnresolvedStar.expand``: the hidden output, then the output, of that qualifier; measured on
    PySpark 4.3: ``x.*, z.*`` over ``t x JOIN t y USING (id) JOIN t z USING (id)`` is ``id, ...``
    of x, then ``id, ...`` of z). Without ``stars``, only a join USING a key its left side has
    twice is made an ON of that first column (``SELECT x.i FROM t x JOIN t y USING (id) JOIN t z
    USING (i)``: DuckDB's binder found the key ambiguous)."""
    first = source.this.alias_or_name
    names = source_names(scope, first, output_names)
    if not first or names is None:
        if not stars:
            return
        raise refuse_star("`*` over a join USING or NATURAL of a source whose columns vpush does not know")
    running: list[_Output] = [(n, exp.column(n, table=first, quoted=True), first, first) for n in names]
    hidden: list[_Output] = []
    for join in joins:
        alias = join.this.alias_or_name
        right_names = source_names(scope, alias, output_names)
        if not alias or right_names is None:
            if not stars:
                return
            raise refuse_star("`*` over a join USING or NATURAL of a source whose columns vpush does not know")
        right: list[_Output] = [(n, exp.column(n, table=alias, quoted=True), alias, alias) for n in right_names]
        # a semi or anti join's right side gives no column of its output, nor a hidden one
        semi = str(join.args.get("kind") or "").upper() in ("SEMI", "ANTI")
        natural = str(join.args.get("method") or "").upper() == "NATURAL"
        if not join.args.get("using") and not natural:
            running += [] if semi else right
            continue
        right_lower = {n.lower(): k for k, n in enumerate(right_names)}
        left_lower: dict[str, int] = {}
        for k, (n, *_) in enumerate(running):
            left_lower.setdefault(n.lower(), k)
        if join.args.get("using"):
            wanted = [key.name.lower() for key in join.args["using"]]
        else:
            wanted = list(dict.fromkeys(n.lower() for n, *_ in running if n.lower() in right_lower))
        if not wanted:  # NATURAL without a common column: every pair of rows
            join.set("method", None)
            join.set("on", exp.true())
        if any(k not in left_lower or k not in right_lower for k in wanted):
            return  # a USING column one side lacks: Spark's and DuckDB's errors
        side = str(join.args.get("side") or "").upper()
        keys: list[_Output] = []
        for key in wanted:
            name, left_value, owner, qualifier = running[left_lower[key]]
            right_value = right[right_lower[key]][1]
            if side == "FULL":
                if stars and columns.get(owner.lower(), {}).get(key) != columns.get(alias.lower(), {}).get(key):
                    raise refuse_star("`*` over a full join USING columns of different types")
                keys.append((name, exp.Coalesce(this=left_value.copy(), expressions=[right_value.copy()]), owner, None))
            elif side == "RIGHT":
                keys.append((name, right_value.copy(), owner, alias))
            else:
                keys.append((name, left_value.copy(), owner, qualifier))
        if any(sum(n.lower() == k for n, *_ in running) > 1 for k in wanted):
            # DuckDB's USING finds the key on the left twice (a.g, b.g), where Spark takes the
            # first: the join on that one, as an equality of the two columns
            join.set("using", None)
            join.set("method", None)
            join.set("on", exp.and_(*(
                exp.EQ(this=running[left_lower[k]][1].copy(), expression=right[right_lower[k]][1].copy()) for k in wanted
            )))
        if semi:
            continue
        left_keys = [running[left_lower[k]] for k in wanted]
        right_keys = [right[right_lower[k]] for k in wanted]
        hidden = [*(left_keys if side == "RIGHT" else [*left_keys, *right_keys] if side == "FULL" else right_keys), *hidden]
        taken = {left_lower[k] for k in wanted}
        running = keys + [e for k, e in enumerate(running) if k not in taken] + [
            e for e in right if e[0].lower() not in wanted
        ]
    if not stars:
        return
    expanded: list[exp.Expr] = []
    for projection in select.expressions:
        if not projection.is_star:
            expanded.append(projection)
            continue
        chosen = running
        if isinstance(projection, exp.Column) and projection.table:
            target = projection.table.lower()
            chosen = [e for e in [*hidden, *running] if e[3] is not None and e[3].lower() == target]
            if not chosen:
                expanded.append(projection)  # no side of that name: Spark's and DuckDB's errors
                continue
        expanded += [exp.alias_(value.copy(), name, quoted=True) for name, value, *_ in _except(projection, chosen)]
    select.set("expressions", expanded)
