"""The engines' errors."""
from __future__ import annotations

from vpush.codec.errors import VpushError


class ExecutionError(VpushError):
    """An error while running a plan; the engine's own error is chained as ``__cause__``."""
