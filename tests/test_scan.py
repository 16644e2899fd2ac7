"""The scan behind the public API: batches, nested variant columns, errors with their place."""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

import vpush
from vpush.codec.builder import encode
from vpush.codec.errors import InvalidShreddingError, VpushError
from vpush.codec.shred import write_shredded_parquet
from vpush.codec.value import Variant
from vpush.codec.write_variant_parquet import write_variant_parquet
from vpush.exec import read_scan

CASES = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "parquet-testing" / "shredded_variant"
VARIANT = pa.struct([pa.field("metadata", pa.binary(), nullable=False), pa.field("value", pa.binary(), nullable=False)])


def _variants(values: list[object]) -> pa.Array:
    return pa.array([None if v is None else dict(zip(("metadata", "value"), encode(v))) for v in values], VARIANT)


def test_variant_inside_a_struct_is_rebuilt(tmp_path: Path) -> None:
    inner = _variants([{"a": 1}, None, [1, "x"]])
    s = pa.StructArray.from_arrays([pa.array([1, 2, 3]), inner], names=["k", "v"])
    path = tmp_path / "nested.parquet"
    write_variant_parquet(pa.table({"s": s}), path, ["s.v"])
    con = vpush.connect(time_zone="UTC")
    con.register("t", path)
    table = con.sql("SELECT s FROM t").to_arrow()
    rows = table.column("s").to_pylist()
    assert [r["k"] for r in rows] == [1, 2, 3]
    assert rows[1]["v"] is None, "SQL NULL stays NULL"
    got = [Variant(r["v"]["metadata"], r["v"]["value"]).to_python() for r in (rows[0], rows[2])]
    assert got == [{"a": 1}, [1, "x"]], "variants inside a struct come back rebuilt"


def test_select_of_a_broken_file_raises_the_codec_error(tmp_path: Path) -> None:
    con = vpush.connect(time_zone="UTC")
    con.register("t", CASES / "case-042.parquet")
    with pytest.raises(InvalidShreddingError) as info:
        con.sql("SELECT var FROM t").to_arrow()
    assert info.value.file is not None and info.value.file.endswith("case-042.parquet")
    assert info.value.column_path is not None and info.value.column_path.startswith("var")
    assert "row group 0" in str(info.value), "the error names the row group"


def test_row_groups_are_read_in_bounded_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read_scan, "BATCH_ROWS", 1000)
    n = 5000
    table = pa.table({"id": pa.array(range(n), pa.int64()), "v": _variants([{"a": i, "b": str(i)} for i in range(n)])})
    path = tmp_path / "one.parquet"
    write_shredded_parquet(table, path, {"v": "a bigint"}, row_group_size=n)
    con = vpush.connect(time_zone="UTC")
    con.register("t", path)
    scan = con.sql("SELECT id, v FROM t").plan.scans[0]
    sizes = [b.num_rows for b in read_scan.read_scan(scan)]
    assert sizes == [1000] * 5, "one row group is read in batches of BATCH_ROWS"
    rows = con.sql("SELECT id, v FROM t ORDER BY id").to_arrow().to_pylist()
    assert [Variant(r["v"]["metadata"], r["v"]["value"]).to_python() for r in rows[4998:]] == [
        {"a": 4998, "b": "4998"},
        {"a": 4999, "b": "4999"},
    ]


def test_columns_missing_from_some_files_read_as_null(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    write_variant_parquet(
        pa.table({"id": pa.array([1], pa.int64()), "v": _variants([{"a": 1}])}), tmp_path / "t" / "a.parquet", ["v"]
    )
    write_variant_parquet(pa.table({"id": pa.array([2], pa.int64())}), tmp_path / "t" / "b.parquet", [])
    con = vpush.connect(time_zone="UTC")
    con.register("t", tmp_path / "t")
    rows = con.sql("SELECT id, v FROM t ORDER BY id").to_arrow().to_pylist()
    assert rows[1] == {"id": 2, "v": None}, "a file without the column gives NULLs"
    assert Variant(rows[0]["v"]["metadata"], rows[0]["v"]["value"]).to_python() == {"a": 1}


def test_every_public_error_is_a_vpush_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really parquet PAR1")
    con = vpush.connect(time_zone="UTC")
    with pytest.raises(VpushError) as info:
        con.register("t", bad)
    assert info.value.file == str(bad)
    with pytest.raises(VpushError):
        vpush.connect(engine="nope")
    with pytest.raises(VpushError):
        vpush.connect(time_zone="Mars/Olympus")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT try_variant_get(var, '$.b', 'struct<c int, C string>') FROM t",
        "SELECT to_variant_object(named_struct('a', 1, 'A', 2)) FROM t",
        "SELECT * FROM t WHERE is_variant_null(variant_delete(var, concat('$.', 'a')))",
    ],
)
def test_variant_functions_not_built_yet_are_refused_clearly(sql: str) -> None:
    from vpush.optimizer.errors import OptimizeError

    con = vpush.connect(time_zone="UTC")
    con.register("t", CASES / "case-046.parquet")
    with pytest.raises(OptimizeError, match="not supported"):
        con.sql(sql).to_arrow()
