"""Property: skipping row groups never changes an answer.

Random rows of a shredded variant (values of every kind in the shredded field: the shredded type,
other integer widths, strings, decimals, doubles, booleans, variant nulls, missing fields, SQL
NULL rows), written in small row groups under a random shredding, then a random predicate over
extractions of that field. The query planned with pruning and planned without it must return the
same rows, or both raise the same error class.
"""
from __future__ import annotations


import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vpush.codec.builder import encode
from vpush.codec.errors import VpushError
from vpush.codec.shred import write_shredded_parquet
from vpush.exec.duckdb_engine import DuckDBEngine
from vpush.optimizer.catalog import Catalog
from vpush.optimizer.plan import VARIANT_ARROW_TYPE
from vpush.optimizer.plan_query import plan_query

MISSING = object()
SHREDDINGS = [
    "struct<a: bigint>",
    "struct<a: int>",
    "struct<a: string>",
    "struct<a: decimal(10,2)>",
    "struct<a: double>",
    "struct<a: bigint, b: string>",
]
TARGETS = {
    "bigint": st.integers(-(2**40), 2**40).map(str),
    "int": st.integers(-400, 400).map(str),
    "smallint": st.integers(-400, 400).map(str),
    "double": st.floats(-1e6, 1e6, allow_nan=False).map(lambda f: f"{f!r}D"),
    "decimal(10,2)": st.decimals(-1000, 1000, places=2, allow_nan=False, allow_infinity=False).map(
        lambda d: f"CAST('{d}' AS DECIMAL(10,2))"
    ),
    "string": st.text(alphabet="0123456789ab -.", max_size=4).map(lambda s: "'" + s + "'"),
}

field_values = st.one_of(
    st.just(MISSING),
    st.none(),  # a variant null
    st.integers(-300, 300),
    st.integers(-(2**40), 2**40),
    st.decimals(-1000, 1000, places=2, allow_nan=False, allow_infinity=False),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.text(alphabet="0123456789ab -.", max_size=4),
    st.booleans(),
)
rows = st.lists(
    st.one_of(st.just(None), st.tuples(field_values, st.sampled_from(["x", "y", MISSING]))),
    min_size=1,
    max_size=40,
)


@st.composite
def predicates(draw: st.DrawFn) -> str:
    def one() -> str:
        target = draw(st.sampled_from(sorted(TARGETS)))
        form = draw(st.sampled_from(["variant_get", "try_variant_get", "colon", "try_cast"]))
        ref = {
            "variant_get": f"variant_get(v, '$.a', '{target}')",
            "try_variant_get": f"try_variant_get(v, '$.a', '{target}')",
            "colon": f"v:a::{target}",
            "try_cast": f"try_cast(v:a AS {target})",
        }[form]
        literal = TARGETS[target]
        kind = draw(st.sampled_from(["cmp", "between", "in", "null", "notnull"]))
        if kind == "cmp":
            op = draw(st.sampled_from(["=", "<", "<=", ">", ">=", "!="]))
            return f"{ref} {op} {draw(literal)}"
        if kind == "between":
            return f"{ref} BETWEEN {draw(literal)} AND {draw(literal)}"
        if kind == "in":
            items = draw(st.lists(literal, min_size=1, max_size=3))
            return f"{ref} IN ({', '.join(items)})"
        return f"{ref} IS {'NOT ' if kind == 'notnull' else ''}NULL"

    first = one()
    if draw(st.booleans()):
        first = f"({first}) {draw(st.sampled_from(['AND', 'OR']))} ({one()})"
    return f"NOT ({first})" if draw(st.booleans()) else first


def _variant_column(values: list[Any]) -> pa.StructArray:
    metadata: list[bytes | None] = []
    value: list[bytes | None] = []
    for row in values:
        if row is None:
            metadata.append(None)
            value.append(None)
            continue
        a, b = row
        obj: dict[str, Any] = {}
        if a is not MISSING:
            obj["a"] = a
        if b is not MISSING:
            obj["b"] = b
        m, v = encode(obj)
        metadata.append(m)
        value.append(v)
    mask = pa.array([r is None for r in values])
    return pa.StructArray.from_arrays(
        [pa.array([m or b"" for m in metadata], pa.binary()), pa.array([v or b"" for v in value], pa.binary())],
        fields=list(VARIANT_ARROW_TYPE),
        mask=mask,
    )


def _run(engine: DuckDBEngine, catalog: Catalog, sql: str, prune: bool) -> tuple[str, Any]:
    try:
        plan = plan_query(sql, catalog, time_zone="UTC", prune=prune)
        table = engine.execute(plan).read_all()
    except VpushError as exc:
        return "error", exc.error_class
    return "rows", sorted(table.column("id").to_pylist())


@pytest.fixture(scope="module")
def engine() -> DuckDBEngine:
    return DuckDBEngine(time_zone="UTC")


@given(
    values=rows,
    shredding=st.sampled_from(SHREDDINGS),
    row_group_size=st.integers(1, 8),
    where=predicates(),
)
def test_pruned_equals_unpruned(
    engine: DuckDBEngine, values: list[Any], shredding: str, row_group_size: int, where: str
) -> None:
    table = pa.table({"id": pa.array(range(len(values)), pa.int64()), "v": _variant_column(values)})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.parquet"
        write_shredded_parquet(table, path, {"v": shredding}, row_group_size=row_group_size)
        catalog = Catalog()
        catalog.register("t", path)
        sql = f"SELECT id FROM t WHERE {where}"
        assert _run(engine, catalog, sql, prune=True) == _run(engine, catalog, sql, prune=False), sql


def test_the_property_sees_pruning(engine: DuckDBEngine) -> None:
    """The property is not vacuous: such data and predicates do skip row groups."""
    values = [(i, "x") for i in range(8)] + [("s", "x")]
    table = pa.table({"id": pa.array(range(len(values)), pa.int64()), "v": _variant_column(values)})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.parquet"
        write_shredded_parquet(table, path, {"v": "struct<a: bigint>"}, row_group_size=2)
        catalog = Catalog()
        catalog.register("t", path)
        plan = plan_query("SELECT id FROM t WHERE try_variant_get(v, '$.a', 'bigint') >= 6", catalog, time_zone="UTC")
        # Row groups 0-2 hold 0..5 only; row group 4 holds the string residual, so it is read.
        assert plan.scans[0].files[0].row_groups == (3, 4)
        assert _run(engine, catalog, "SELECT id FROM t WHERE try_variant_get(v, '$.a', 'bigint') >= 6", True) == (
            "rows",
            [6, 7],
        )



