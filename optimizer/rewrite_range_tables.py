"""Spark's table-valued ``range`` in a FROM, as DuckDB's ``range`` table function.

``FROM range(end)``, ``range(start, end)``, ``range(start, end, step)`` and
``range(start, end, step, numPartitions)`` give one ``bigint`` column, ``id``, from ``start``
(0 by default) up to ``end`` exclusive by ``step`` (1 by default; a negative step counts down);
a step of 0 raises ``FAILED_FUNCTION_CALL`` (measured on PySpark 4.3). DuckDB's ``range`` counts
the same way, in a column named ``range``. Without an alias the source has no name Spark
resolves (``range.id`` is ``UNRESOLVED_COLUMN``).
"""
from __future__ import annotations

from sqlglot import exp

from vpush.optimizer.errors import OptimizeError

_HIDDEN_ALIAS = "__vpush_range"
_MAX_ARGUMENTS = 4


def _integer(node: exp.Expr) -> int | None:
    """The value of an integer literal (``3``, ``-3``, ``3L``, ``(3)``), or None."""
    sign = 1
    while isinstance(node, (exp.Neg, exp.Paren, exp.Cast)):
        if isinstance(node, exp.Neg):
            sign = -sign
        elif isinstance(node, exp.Cast) and not node.to.is_type(*exp.DataType.INTEGER_TYPES):
            return None
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string and node.this.lstrip("-").isdigit():
        return sign * int(node.this)
    return None


def _range_call(node: exp.Table) -> exp.Anonymous | None:
    call = node.this
    if isinstance(call, exp.Anonymous) and str(call.this).lower() == "range":
        return call
    return None


def rewrite_range_tables(expression: exp.Expr) -> exp.Expr:
    """Replace each ``FROM range(...)`` of ``expression`` by a subquery of DuckDB's ``range``
    naming its column ``id``, a ``bigint``. In place.

    Example:
        >>> from vpush.optimizer.dialect import VpushSpark
        >>> import sqlglot
        >>> tree = sqlglot.parse_one("SELECT id FROM range(1, 7, 2) AS r", read=VpushSpark)
        >>> rewrite_range_tables(tree).sql("duckdb")
        'SELECT id FROM (SELECT CAST(range AS BIGINT) AS id FROM RANGE(1, 7, 2)) AS r'

    Raises:
        OptimizeError: a step of 0 (``FAILED_FUNCTION_CALL``, as Spark); arguments other than
            integer literals, or more than four (``VPUSH_UNSUPPORTED_FUNCTION``).
    """
    for node in list(expression.find_all(exp.Table)):
        call = _range_call(node)
        if call is None:
            continue
        values = [_integer(a) for a in call.expressions]
        if not 1 <= len(values) <= _MAX_ARGUMENTS or any(v is None for v in values):
            raise OptimizeError(
                f"{call.sql(dialect='spark')}: the DuckDB engine takes range's arguments as integer literals only; "
                "the Spark engine (vpush.connect(engine='spark')) runs it as Spark does",
                error_class="VPUSH_UNSUPPORTED_FUNCTION",
            )
        bounds = [0, *values] if len(values) == 1 else values[:3]
        if len(bounds) == 3 and bounds[2] == 0:
            raise OptimizeError(
                f"Failed to evaluate the table-valued function `range`: step ({bounds[2]}) cannot be 0",
                error_class="FAILED_FUNCTION_CALL",
            )
        rows = exp.select(
            exp.alias_(exp.cast(exp.column("range"), exp.DataType.build("BIGINT")), "id")
        ).from_(exp.Table(this=exp.Anonymous(this="RANGE", expressions=[exp.Literal.number(b) for b in bounds])))
        alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(_HIDDEN_ALIAS))
        node.replace(exp.Subquery(this=rows, alias=alias))
    return expression
