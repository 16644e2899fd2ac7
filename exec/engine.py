"""The engine protocol: run a plan, stream the result."""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import pyarrow as pa

from vpush.optimizer.plan import Plan


SPARK_TYPE_KEY = b"spark_type"
"""The field metadata key of a result column's Spark type where its Arrow type does not say it:
an interval's (``interval day``, ``interval hour to second``, ``interval year to month``), whose
duration (or months) no longer holds its fields."""


def interval_type(field: pa.Field) -> str | None:
    """The Spark interval type a result column is tagged with (:data:`SPARK_TYPE_KEY`), if any.

    Example:
        >>> interval_type(pa.field("d", pa.duration("us"), metadata={SPARK_TYPE_KEY: b"interval day"}))
        'interval day'
        >>> interval_type(pa.field("d", pa.duration("us"))) is None
        True
    """
    found = (field.metadata or {}).get(SPARK_TYPE_KEY)
    return found.decode() if found is not None and found.startswith(b"interval") else None


def tag_interval(field: pa.Field, type_name: str | None) -> pa.Field:
    """``field`` tagged with its Spark interval type (no tag for None)."""
    if type_name is None:
        return field
    return field.with_metadata({**(field.metadata or {}), SPARK_TYPE_KEY: type_name.encode()})


class Engine(Protocol):
    """Runs a :class:`~vpush.optimizer.plan.Plan`.

    ``execute`` returns a stream, so a result larger than memory is never held whole.
    """

    name: str

    def execute(
        self, plan: Plan, *, on_rows: Callable[[int], None] | None = None, year_month_intervals: bool = False
    ) -> pa.RecordBatchReader:
        """Run ``plan``; errors are :class:`~vpush.exec.errors.ExecutionError` or other
        :class:`~vpush.codec.errors.VpushError` subclasses. ``on_rows`` is called with the number
        of rows of each batch the scans read (for a progress bar), from any thread.

        An interval column whose Spark type is known is tagged with it (:func:`interval_type`). A
        year-month interval is refused as Spark's ``toArrow`` refuses it
        (``UNSUPPORTED_DATA_TYPE_FOR_ARROW_CONVERSION``), unless ``year_month_intervals``: then it
        comes as its months (``int32``, tagged), for a writer of Spark's text of it."""
        ...

    def variable(self, prefix: str | None, name: str) -> str | None:
        """The value Spark substitutes for ``${prefix:name}`` in SQL text (prefix None for
        ``${name}``; see :mod:`vpush.optimizer.spark_variables`), None to keep it as written."""
        ...


def in_session_zone(schema: pa.Schema, time_zone: str, *, labelled: str | None = None) -> pa.Schema:
    """``schema`` with its instants (timestamps with a zone, nested ones too) labelled
    ``time_zone``, the same instants as the session shows them; only those labelled ``labelled``
    where it is given."""

    def relabel(t: pa.DataType) -> pa.DataType:
        if pa.types.is_timestamp(t):
            return pa.timestamp(t.unit, tz=time_zone) if t.tz is not None and (labelled is None or t.tz == labelled) else t
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            field = t.value_field
            return (pa.large_list if pa.types.is_large_list(t) else pa.list_)(field.with_type(relabel(field.type)))
        if pa.types.is_map(t):
            return pa.map_(t.key_field.with_type(relabel(t.key_type)), t.item_field.with_type(relabel(t.item_type)))
        if pa.types.is_struct(t):
            return pa.struct([f.with_type(relabel(f.type)) for f in t])
        return t

    return pa.schema([f.with_type(relabel(f.type)) for f in schema], metadata=schema.metadata)
