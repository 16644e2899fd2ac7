"""A connection reuses the plan of a query it ran before while the tables it reads are unchanged,
and plans anew when they change: a file rewritten, added by a new registration, or a table
registered again under the same name."""
from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

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


def test_close_and_a_users_own_connection(tmp_path: Path) -> None:
    """A closed vpush connection refuses work with a vpush error (it had no close(), and a
    user's DuckDB connection closed under it raised DuckDB's own ConnectionException); a user's
    own DuckDB connection keeps its time zone and views, and stays open after close()."""
    import duckdb

    from vpush.sample import EventsSpec, write_events

    write_events(tmp_path / "events", EventsSpec(rows=100, files=1))
    own = duckdb.connect()
    own.execute("SET TimeZone = 'Europe/Paris'")
    own.execute("CREATE VIEW mine AS SELECT 42 AS x")
    con = vpush.connect(connection=own, time_zone="America/Los_Angeles")
    con.register("events", tmp_path / "events")
    rel = con.sql("SELECT hour(event:ts::timestamp) AS h FROM events LIMIT 1")
    assert rel.to_arrow().to_pylist() == [{"h": 16}], "2024-01-01 00:00 UTC is 16:00 the day before in Los Angeles"
    assert own.execute("SELECT current_setting('TimeZone'), (SELECT x FROM mine)").fetchall() == [("Europe/Paris", 42)]
    con.close()
    con.close()
    assert own.execute("SELECT 1").fetchall() == [(1,)], "the user's own connection stays open"
    for work in (rel.to_arrow, lambda: con.sql("SELECT 1").to_arrow(), lambda: con.register("t", tmp_path / "events")):
        with pytest.raises(vpush.VpushError, match="connection is closed"):
            work()
    with vpush.connect(connection=own) as other:
        own.close()
        with pytest.raises(vpush.VpushError, match="DuckDB connection .* is closed"):
            other.sql("SELECT 1 AS x").to_arrow()


def test_a_users_connection_is_left_as_it_was(tmp_path: Path) -> None:
    """vpush's functions on a user's own DuckDB connection last as long as the queries that run
    them (they were left there for good); its functions, views, tables and settings after each
    query and after close() are the ones it had. A query still streaming keeps its functions
    while another over the same ones ends (dropping one under it crashes DuckDB)."""
    import duckdb

    from vpush.sample import EventsSpec, write_events

    write_events(tmp_path / "events", EventsSpec(rows=100, files=1))
    own = duckdb.connect()

    def state() -> tuple[list[tuple[object, ...]], ...]:
        return tuple(own.execute(q).fetchall() for q in (
            "SELECT function_name, function_type, parameters FROM duckdb_functions() ORDER BY ALL",
            "SELECT database_name, schema_name, view_name FROM duckdb_views() ORDER BY ALL",
            "SELECT database_name, schema_name, table_name FROM duckdb_tables() ORDER BY ALL",
            "SELECT name, value FROM duckdb_settings() ORDER BY ALL",
        ))

    before = state()
    con = vpush.connect(connection=own, time_zone="America/Los_Angeles")
    con.register("events", tmp_path / "events")
    queries = [
        "SELECT event:type::string AS type, to_json(event) AS j, hour(event:ts::timestamp) AS h FROM events",
        "SELECT sum(event:id::double) AS s, mode(event:type::string) AS m, sum(CAST(id AS DECIMAL(20, 2))) AS d FROM events",
    ]
    for query in queries:
        assert con.sql(query).to_arrow().num_rows > 0
        assert state() == before, f"nothing of vpush's is left on the user's connection after {query}"
    streaming = con.sql(queries[0]).fetch_reader()
    assert streaming.read_next_batch().num_rows > 0
    assert con.sql(queries[0]).to_arrow().num_rows > 0, "a second query over the same functions"
    assert state() != before, "the functions of the query still streaming are there"
    for _ in streaming:
        pass
    assert state() == before, "and gone when it ends"
    unread = con.sql(queries[0]).fetch_reader()
    del unread
    import gc

    gc.collect()
    assert state() == before, "a reader dropped unread gives its functions back"
    con.close()
    assert state() == before, "nothing is left after close()"
