"""The check that a call is refused on the DuckDB engine rather than answered otherwise."""
from __future__ import annotations

import pytest

import vpush
from vpush.codec.errors import VpushError


def assert_refused_on_duckdb(con: vpush.Connection, call: str) -> None:
    """``SELECT call FROM t`` on ``con`` (a DuckDB-engine connection) raises
    ``VPUSH_UNSUPPORTED_FUNCTION`` with a message naming the function called (the word before
    the first parenthesis, any case)."""
    with pytest.raises(VpushError) as raised:
        con.sql(f"SELECT {call} FROM t").to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION", str(raised.value)
    function = call.split("(")[0].split()[0].lower()
    assert function in str(raised.value).lower(), f"the error should name {function}: {raised.value}"
