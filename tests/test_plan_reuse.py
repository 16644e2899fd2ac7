"""A connection reuses the plan of a query it ran before while the tables it reads are unchanged,
and plans anew when they change: a file rewritten, added by a new registration, or a table
registered again under the same name."""
from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import vpush

QUERY = "SELECT count(*) AS n, sum(x) AS s FROM t WHERE x > 1"


def _write(path: Path, values: list[int]) -> None:
    pq.write_table(pa.table({"x": pa.array(values, pa.int64())}), path)


def test_a_query_run_again_reuses_its_plan(tmp_path: Path) -> None:
    _write(tmp_path / "a.parquet", [1, 2, 3])
    con = vpush.connect(time_zone="UTC")
    con.register("t", tmp_path)
    first = con.sql(QUERY)
    assert first.to_arrow().to_pylist() == [{"n": 2, "s": 5}]
    again = con.sql(QUERY)
    assert again.plan is first.plan
    assert again.to_arrow().to_pylist() == [{"n": 2, "s": 5}]
    assert con.sql(QUERY + " ").plan is not first.plan  # another text, another plan


def test_a_rewritten_file_is_planned_anew(tmp_path: Path) -> None:
    path = tmp_path / "a.parquet"
    _write(path, [1, 2, 3])
    con = vpush.connect(time_zone="UTC")
    con.register("t", tmp_path)
    first = con.sql(QUERY).plan
    _write(path, [5, 6, 7, 8])
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    relation = con.sql(QUERY)
    assert relation.plan is not first
    assert relation.to_arrow().to_pylist() == [{"n": 4, "s": 26}]


def test_registering_again_plans_anew(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    _write(tmp_path / "one" / "a.parquet", [1, 2, 3])
    _write(tmp_path / "two" / "a.parquet", [10])
    con = vpush.connect(time_zone="UTC")
    con.register("t", tmp_path / "one")
    first = con.sql(QUERY).plan
    con.register("t", tmp_path / "two")
    relation = con.sql(QUERY)
    assert relation.plan is not first
    assert relation.to_arrow().to_pylist() == [{"n": 1, "s": 10}]


def test_a_deleted_file_is_not_read_from_a_kept_plan(tmp_path: Path) -> None:
    _write(tmp_path / "a.parquet", [1, 2, 3])
    _write(tmp_path / "b.parquet", [4])
    con = vpush.connect(time_zone="UTC")
    con.register("t", tmp_path)
    con.sql(QUERY).to_arrow()
    (tmp_path / "b.parquet").unlink()
    try:
        con.sql(QUERY).to_arrow()
    except vpush.VpushError as exc:
        assert "b.parquet" in str(exc)  # planned anew: the missing file is named
    else:
        raise AssertionError("a registered file that is gone must raise")
