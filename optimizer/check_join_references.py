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

from collections.abc import Mapping, Sequence

from sqlglot import exp

from vpush.optimizer.dialect import bound_by_lambda as _bound_by_lambda
from vpush.optimizer.errors import OptimizeError

__all__ = ["check_join_references"]

_Entry = tuple["str | None", str]  # (qualifier as written, or None for a full join's key; column name, lower-cased)


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
        OptimizeError: ``AMBIGUOUS_REFERENCE``.
    """
    for select in list(expression.find_all(exp.Select)):
        joins: Sequence[exp.Join] = select.args.get("joins") or []
        first = select.args.get("from_")
        sources = [first.this if isinstance(first, exp.From) else None, *(join.this for join in joins)]
        names = [s.alias_or_name.lower() for s in sources if s is not None]
        twice = len(set(names)) < len(names)
        if not twice and not any(_using_keys(join) is not None for join in joins):
            continue
        columns = [_source_columns(s, table_columns) for s in sources]
        if all(c is not None for c in columns):
            _check_select(select, joins, [c for c in columns if c is not None])
        if twice:
            repeated = next(name for name in names if names.count(name) > 1)
            raise OptimizeError(
                f"two sources of one SELECT are named `{repeated}` (Spark takes them): vpush does not answer it yet; "
                "give each source its own alias",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )


def _source_columns(source: exp.Expr | None, table_columns: Mapping[int, Sequence[str]]) -> Sequence[str] | None:
    """A registered table's columns, or a subquery's named outputs; None where unknown here (a
    CTE, a lateral view, a subquery with a star)."""
    if isinstance(source, exp.Table):
        return table_columns.get(id(source))
    if isinstance(source, exp.Subquery) and isinstance(source.this, exp.Select) and not source.alias_column_names:
        projections = source.this.expressions
        if not any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star)) for p in projections):
            return [p.alias_or_name for p in projections]
    return None


def _using_keys(join: exp.Join) -> list[str] | None:
    """The lower-cased names of a join's ``USING`` list, ``[]`` for ``NATURAL`` (found from both
    sides), or None for another join."""
    if str(join.args.get("method") or "").upper() == "NATURAL":
        return []
    using = join.args.get("using")
    return [key.name.lower() for key in using] if using else None


def _check_select(select: exp.Select, joins: Sequence[exp.Join], columns: list[Sequence[str]]) -> None:
    first = select.args["from_"].this
    every: list[_Entry] = [
        (source.alias_or_name, name.lower()) for source, names in zip([first, *(j.this for j in joins)], columns) for name in names
    ]
    visible: list[_Entry] = [(first.alias_or_name, name.lower()) for name in columns[0]]
    for join, names in zip(joins, columns[1:]):
        right: list[_Entry] = [(join.this.alias_or_name, name.lower()) for name in names]
        kind = str(join.args.get("kind") or "").upper()
        side = str(join.args.get("side") or "").upper()
        keys = _using_keys(join)
        on = join.args.get("on")
        if on is not None:
            _check_names(on, [*visible, *right], set())
        if kind in ("SEMI", "ANTI"):
            continue  # the right side's columns are no output of the join
        if keys is None:
            visible = [*visible, *right]
            continue
        if not keys:
            keys = [name for _, name in visible if any(name == r for _, r in right)]
        joined: list[_Entry] = []
        for key in dict.fromkeys(keys):
            # Spark's USING takes the left side's first column of the key's name, however many
            # carry it (resolveNaturalAndUsingJoin: left.output.find), without ambiguity
            left_owners = [entry for entry in visible if entry[1] == key]
            owner = right[0][0] if side == "RIGHT" else None if side == "FULL" else left_owners[0][0] if left_owners else None
            joined.append((owner, key))
        keys_set = set(keys)
        visible = [*joined, *(e for e in visible if e[1] not in keys_set), *(e for e in right if e[1] not in keys_set)]
    for column in select.walk(prune=lambda n: isinstance(n, (exp.Select, exp.Subquery)) and n is not select):
        if isinstance(column, exp.Column) and column.table and not isinstance(column.this, exp.Star):
            # a qualified name: the join's output columns of that qualifier first, then each
            # source's own (two sources of one name: `t JOIN t ON ...`)
            for entries in (visible, every):
                owners = [e for e in entries if (e[0] or "").lower() == column.table.lower() and e[1] == column.name.lower()]
                if len(owners) > 1:
                    raise _ambiguous(f"{column.table}`.`{column.name}", [(o, column.name) for o, _ in owners])
                if owners:
                    break
    aliases = {p.alias.lower() for p in select.expressions if isinstance(p, exp.Alias)}
    for key in ("expressions", "where", "group", "having", "qualify"):
        value = select.args.get(key)
        for part in value if isinstance(value, list) else [value]:
            if isinstance(part, exp.Expr):
                # HAVING may name an output's alias, which Spark reads there first (GROUP BY
                # reads the sources' columns first: measured)
                _check_names(part, visible, aliases if key == "having" else set())
    order = select.args.get("order")
    if order is not None and not any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))
                                     for p in select.expressions):
        # Spark sorts by an output of that name, else looks the name up below the SELECT, where
        # a name several columns carry is not found: UNRESOLVED_COLUMN, suggesting the outputs
        outputs = [p.alias_or_name for p in select.expressions]
        try:
            _check_names(order, visible, {o.lower() for o in outputs})
        except OptimizeError as exc:
            written = str(exc).split("`")[1]
            shown = ", ".join(f"`{o}`" for o in sorted(outputs))
            raise OptimizeError(
                f"A column, variable, or function parameter with name `{written}` cannot be resolved. "
                f"Did you mean one of the following? [{shown}].",
                error_class="UNRESOLVED_COLUMN.WITH_SUGGESTION",
            ) from None


def _check_names(node: exp.Expr, visible: list[_Entry], aliases: set[str]) -> None:
    for column in node.walk(prune=lambda n: isinstance(n, (exp.Select, exp.Subquery)) and n is not node):
        if not isinstance(column, exp.Column) or column.table or isinstance(column.this, exp.Star):
            continue
        name = column.name.lower()
        if name in aliases or _bound_by_lambda(column):
            continue
        owners = [entry for entry in visible if entry[1] == name]
        if len(owners) > 1:
            raise _ambiguous(column.name, owners)


def _ambiguous(written: str, owners: list[_Entry]) -> OptimizeError:
    shown = sorted(f"`{owner}`.`{written.split('`.`')[-1]}`" if owner is not None else f"`{written}`" for owner, _ in owners)
    return OptimizeError(
        f"Reference `{written}` is ambiguous, could be: [{', '.join(shown)}].", error_class="AMBIGUOUS_REFERENCE"
    )
