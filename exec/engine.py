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
