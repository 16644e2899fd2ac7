"""Spark's ``TABLESAMPLE`` where its answer does not depend on a random draw, as a ``LIMIT``.

Spark's parser makes ``t TABLESAMPLE (n ROWS)`` a ``Limit(n, t)``: the first ``n`` rows of ``t``
in the order its scan reads them, which the DuckDB engine follows for a ``LIMIT`` as for any
subquery (measured on PySpark 4.3). ``(x PERCENT)`` and ``(BUCKET x OUT OF y)`` are a
``Sample(0, fraction)`` of ``x / 100`` and ``x / y``, which keeps each row where the next double
of Spark's ``XORShiftRandom`` (seeded with the ``REPEATABLE`` seed, else a random one, plus the
partition's index) is below the fraction: no row for a fraction of 0, every row for 1 (every
double drawn is below it); other fractions are refused on the DuckDB engine
(:func:`vpush.optimizer.spark_functions.check_functions`), whose partitions are not Spark's.
"""
from __future__ import annotations

from sqlglot import exp

from vpush.codec.java_format import format_java_double
from vpush.optimizer.dialect import number_literal
from vpush.optimizer.errors import OptimizeError

_EPSILON = 1e-6  # Spark's RandomSampler.roundingEpsilon: the parser's slack around [0, 1]
_EVERY_ROW = -1

# What a SELECT that only passes its one table's rows on (``SELECT * FROM t LIMIT n``) may set.
_PASSING_ARGS = frozenset({"expressions", "from_", "limit"})


def passes_rows(select: exp.Select) -> bool:
    """Whether ``select`` is ``SELECT * FROM <one relation> [LIMIT n]``: its rows, or the first
    ``n`` of them, with the relation's columns as they are.

    Example:
        >>> import sqlglot
        >>> passes_rows(sqlglot.parse_one("SELECT * FROM t LIMIT 2")), passes_rows(sqlglot.parse_one("SELECT *, 1 FROM t"))
        (True, False)
    """
    if any(value not in (None, [], False) for key, value in select.args.items() if key not in _PASSING_ARGS):
        return False
    projections = select.expressions
    # * EXCEPT (...) or REPLACE (...) changes the columns
    return len(projections) == 1 and isinstance(projections[0], exp.Star) and not any(projections[0].args.values())


def _fraction(sample: exp.TableSample) -> float | None:
    """The fraction of ``x PERCENT`` (``x / 100``) or ``BUCKET x OUT OF y`` (``x / y``, as Spark's
    parser takes it), or None for ``n ROWS`` and forms vpush does not read."""
    percent = number_literal(sample.args.get("percent"))
    if percent is not None:
        return percent / 100.0
    numerator, denominator = (number_literal(sample.args.get(k)) for k in ("bucket_numerator", "bucket_denominator"))
    if numerator is not None and denominator:
        return numerator / denominator
    return None


def _rows_kept(sample: exp.TableSample) -> exp.Expr | int | None:
    """The ``LIMIT`` standing for the sample where its rows do not depend on a draw: ``n`` of
    ``n ROWS`` as written (``REPEATABLE`` does not matter to it, and the ``LIMIT``'s own checks
    take a bad ``n`` as Spark's do), 0 for a fraction of 0, :data:`_EVERY_ROW` for a fraction of
    1; None where a draw decides.

    Raises:
        OptimizeError: ``INVALID_TABLESAMPLE_FRACTION`` for a fraction off ``[0, 1]``, as Spark's
            parser raises it.
    """
    size = sample.args.get("size")
    if size is not None:
        return size
    fraction = _fraction(sample)
    if fraction is None:
        return None
    if not -_EPSILON <= fraction <= 1 + _EPSILON:
        raise OptimizeError(
            f"Sampling fraction ({format_java_double(fraction)}) must be on interval [0, 1].",
            error_class="INVALID_TABLESAMPLE_FRACTION",
        )
    if fraction <= 0:
        return 0
    return _EVERY_ROW if fraction >= 1 else None


def rewrite_table_samples(expression: exp.Expr) -> exp.Expr:
    """Replace each ``TABLESAMPLE`` of ``expression`` whose rows do not depend on a draw (see
    the module's docstring) by a subquery of its table with that ``LIMIT``, under the table's
    alias (its name where it has none, so that ``t.c`` still resolves); leave the others for
    :func:`~vpush.optimizer.spark_functions.check_functions` to refuse. In place.

    Example:
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> import sqlglot
        >>> tree = sqlglot.parse_one("SELECT id FROM t TABLESAMPLE (5 ROWS)", read=VpushSpark)
        >>> rewrite_table_samples(tree).sql("spark")
        'SELECT id FROM (SELECT * FROM t LIMIT 5) AS t'

    Raises:
        OptimizeError: ``INVALID_TABLESAMPLE_FRACTION`` for a fraction off ``[0, 1]``.
    """
    for sample in list(expression.find_all(exp.TableSample)):
        source = sample.parent
        if not isinstance(source, (exp.Table, exp.Subquery)) or source.args.get("sample") is not sample:
            continue
        kept = _rows_kept(sample)
        if kept is None:
            continue
        alias = source.args.get("alias")
        if alias is None and isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier):
            alias = exp.TableAlias(this=source.this.copy())
        inner = source.copy()
        inner.set("sample", None)
        inner.set("alias", None)
        rows = exp.select("*").from_(inner)
        if isinstance(kept, exp.Expr):
            rows = rows.limit(kept.copy())
        elif kept != _EVERY_ROW:
            rows = rows.limit(kept)
        source.replace(exp.Subquery(this=rows, alias=alias.copy() if alias is not None else None))
    return expression
