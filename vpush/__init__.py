"""vpush: query shredded Parquet Variant data with Spark SQL semantics.

The public names load on first use, so that importing ``vpush.codec`` alone stays light (no
DuckDB, no engine).

Example:
    >>> import vpush
    >>> con = vpush.connect()
    >>> con.tables()
    []
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vpush.codec.errors import VpushError
    from vpush.connection import Connection, Relation, connect
    from vpush.inspect_files import inspect
    from vpush.delta_tables import write_delta

__all__ = ["Connection", "Relation", "VpushError", "connect", "inspect", "write_delta"]
__version__ = "0.1.0"

_LAZY = {
    "Connection": "vpush.connection",
    "Relation": "vpush.connection",
    "connect": "vpush.connection",
    "VpushError": "vpush.codec.errors",
    "inspect": "vpush.inspect_files",
    "write_delta": "vpush.delta_tables",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'vpush' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
