"""The engine protocol: run a plan, stream the result."""
from __future__ import annotations

from typing import Protocol

import pyarrow as pa

from vpush.optimizer.plan import Plan


class Engine(Protocol):
    """Runs a :class:`~vpush.optimizer.plan.Plan`.

    ``execute`` returns a stream, so a result larger than memory is never held whole.
    """

    name: str

    def execute(self, plan: Plan) -> pa.RecordBatchReader:
        """Run ``plan``; errors are :class:`~vpush.exec.errors.ExecutionError` or other
        :class:`~vpush.codec.errors.VpushError` subclasses."""
        ...
