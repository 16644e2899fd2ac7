"""The ``vpush`` command."""
from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    """Run the ``vpush`` command."""
    return 0
