"""The engine protocol: run a plan, stream the result."""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import pyarrow as pa

from vpush.optimizer.plan import Plan


class Engine(Protocol):
    """Runs a :class:`~vpush.optimizer.plan.Plan`.

    ``execute`` returns a stream, so a result larger than memory is never held whole.
    """

    name: str

    def execute(self, plan: Plan, *, on_rows: Callable[[int], None] | None = None) -> pa.RecordBatchReader:
        """Run ``plan``; errors are :class:`~vpush.exec.errors.ExecutionError` or other
        :class:`~vpush.codec.errors.VpushError` subclasses. ``on_rows`` is called with the number
        of rows of each batch the scans read (for a progress bar), from any thread."""
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
