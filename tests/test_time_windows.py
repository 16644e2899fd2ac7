"""Spark's time windows (``window``, ``window_time``) on both engines against PySpark: tumbling and
sliding windows, start offsets, NULL and pre-1970 times, ``timestamp_ntz``, dates and strings,
windows in WHERE and over subqueries, the order of each row's windows for order-dependent
aggregates, the session time zone, and Spark's errors for durations it refuses."""
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import vpush
from support.compare import assert_same_answer
from support.tables import connect_tables, register_views, table_fixtures
from support.writers import write_with_spark

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_UTC = dt.timezone.utc
_TIMES = [
    dt.datetime(2024, 1, 1, 0, 3, tzinfo=_UTC), dt.datetime(2024, 1, 1, 0, 9, 59, 999999, tzinfo=_UTC), None,
    dt.datetime(1969, 12, 31, 23, 55, tzinfo=_UTC), dt.datetime(2024, 1, 1, 0, 12, tzinfo=_UTC),
    dt.datetime(2024, 1, 1, 0, 10, tzinfo=_UTC), dt.datetime(2024, 1, 1, 7, 30, tzinfo=_UTC),
    dt.datetime(2024, 1, 2, 23, 59, tzinfo=_UTC),
]
TABLE = pa.table({
    "id": pa.array(range(1, len(_TIMES) + 1), pa.int32()),
    "ts": pa.array(_TIMES, pa.timestamp("us", tz="UTC")),
    "ntz": pa.array([t.replace(tzinfo=None) if t else None for t in _TIMES], pa.timestamp("us")),
    "d": pa.array([t.date() if t else None for t in _TIMES], pa.date32()),
    "s": pa.array([t.strftime("%Y-%m-%d %H:%M:%S.%f") if t else None for t in _TIMES]),
    "v": pa.array([1.5, 2.25, 3.0, None, 5.0, 6.5, 7.0, 8.0], pa.float64()),
})

table_path, con, spark_con, spark_view = table_fixtures("time_windows", TABLE)

QUERIES = [
    # the column's name and type; rows whose time is NULL leave the SELECT
    "SELECT window(ts, '10 minutes') FROM t",
    "SELECT id, window(ntz, '10 minutes') FROM t",
    "SELECT window(ts, '10 minutes').start AS w, count(*) FROM t GROUP BY 1",
    "SELECT window(ts, '10 minutes').start, window(ts, '10 minutes')['end'], id FROM t",
    "SELECT window.start, count(*), sum(v) FROM t GROUP BY window(ts, '10 minutes')",
    "SELECT window(ts, '10 minutes') AS w, count(*) FROM t GROUP BY window(ts, '10 minutes', '10 minutes', '0 seconds')",
    "SELECT max(window(ts, '10 minutes').end), min(window(ts, '10 minutes')), count(*) FROM t",
    "SELECT *, window(ts, '1 hour') FROM t",
    # sliding windows: each row in ceil(window / slide) windows, those holding it kept
    "SELECT window(ts, '10 minutes', '3 minutes').start AS w, count(*) FROM t GROUP BY 1",
    "SELECT window(ts, '10 minutes', '5 minutes') AS w, count(*) FROM t GROUP BY 1",
    "SELECT id, window(ts, '10 minutes', '5 minutes', '-2 minutes') AS w FROM t",
    "SELECT id, window(ntz, '10 minutes', '3 minutes', 60000000) FROM t",
    "SELECT id, window(ts, '1 hour', 600000000) FROM t",
    "SELECT window(ts, '1 day', '1 hour').start AS w, count(*) FROM t GROUP BY 1",
    "SELECT window(ts, '10 minutes', '5 minutes', '-4 minutes 59 seconds').start AS s FROM t",
    "SELECT window(ts, '1 week') AS w, unix_micros(window(ts, '1 week').end) - unix_micros(window(ts, '1 week').start) AS span FROM t",
    "SELECT window(ts, '1 day 2 hours -30 minutes 1.1234567 seconds'), window(ts, '+1 day 2 hours -30 minutes 1.1234567 second').start FROM t",
    "SELECT window(ts, ' interval 90 SECONDS'), window(ts, '100 milliseconds').start FROM t WHERE id < 3",
    "SELECT window(ts, 600000000L), window(ts, 600000000).start, window(ts, '10 minutes').end FROM t",
    "SELECT window(ts, '1 microsecond') AS a, window(ts, 1).start AS b FROM t",
    "SELECT window(ts, '1.5 seconds'), window(ts, 1500000).end FROM t",
    "SELECT window(ts, 10) FROM t",
    "SELECT window(TIMESTAMP'2024-01-01 00:03:00', '10 minutes', '4 minutes') AS w, 1 AS one",
    # dates and strings are cast to timestamps; a window of windows reads their window_time
    "SELECT window(d, '1 day'), window(s, '1 day').start FROM t",
    "SELECT window(window, '1 hour') FROM (SELECT window(ts, '10 minutes') FROM t)",
    # the WHERE's windows and the SELECT's: two expansions (Spark's answer multiplies them)
    "SELECT id FROM t WHERE window(ts, '10 minutes').start = TIMESTAMP'2024-01-01 00:00:00'",
    "SELECT count(*) FROM t WHERE window(ts, '10 minutes', '5 minutes').start >= TIMESTAMP'2024-01-01 00:00:00'",
    "SELECT window(ts, '10 minutes', '5 minutes') AS w, id FROM t WHERE window(ts, '10 minutes', '5 minutes').start >= "
    "TIMESTAMP'2024-01-01 00:05:00'",
    "SELECT window(ts, '10 minutes').start AS w, count(*) FROM t WHERE id > 1 GROUP BY window(ts, '10 minutes').start "
    "HAVING count(*) > 1",
    # over subqueries, joins and unions; window_time
    "SELECT id, window(ts, '10 minutes') FROM (SELECT * FROM t WHERE id < 5)",
    "SELECT w.start, count(*) FROM (SELECT window(ts, '10 minutes', '5 minutes') AS w FROM t) GROUP BY w.start",
    "SELECT window(a.ts, '10 minutes') AS w, b.id FROM t a JOIN t b ON a.id = b.id",
    "SELECT id, window(ts, '10 minutes') FROM t WHERE id < 3 UNION ALL SELECT id, window(ts, '5 minutes') FROM t WHERE id = 5",
    "SELECT window_time(w), w FROM (SELECT window(ts, '10 minutes') AS w FROM t)",
    "SELECT window_time(window), count(*) FROM (SELECT window(ntz, '10 minutes', '4 minutes') FROM t) GROUP BY 1",
    # order-dependent aggregates take each row's windows in Spark's Expand order
    "SELECT window(ts, '10 minutes', '3 minutes').start AS w, collect_list(id), first(id), last(v) FROM t GROUP BY 1",
    "SELECT window(ts, '1 day', '7 hours', '-1 hour').end AS w, collect_list(id), sum(v) FROM t GROUP BY 1",
    "SELECT collect_list(window(ts, '10 minutes', '5 minutes').start), max_by(id, window(ts, '10 minutes', '5 minutes').end) FROM t",
    "SELECT collect_list(w.start) AS starts, collect_list(id) FROM (SELECT id, window(ts, '20 minutes', '6 minutes') AS w FROM t)",
    "SELECT window(ts, '10 minutes').start AS w, count(*) FROM t GROUP BY 1 ORDER BY 1",
    # sessions of a timestamp and of a timestamp_ntz under one UNION ALL, grouped as structs (not
    # merged: the GROUP BY reads a column): the ntz branch's struct cast to the timestamp's
    "SELECT count(*) AS n FROM (SELECT session_window(ts, '4 minutes') AS s FROM t UNION ALL "
    "SELECT session_window(ntz, '4 minutes') FROM t) GROUP BY s",
]

ERRORS = [
    "SELECT window(ts, '10 minutes', '5 minutes', '6 minutes') FROM t",
    "SELECT window(ts, '10 minutes', '5 minutes', '-5 minutes') FROM t",
    "SELECT window(ts, '10 minutes', '20 minutes') FROM t",
    "SELECT window(ts, '0 minutes') FROM t",
    "SELECT window(ts, '-5 minutes') FROM t",
    "SELECT window(ts, '1 month') FROM t",
    "SELECT window(ts, '1 year') FROM t",
    "SELECT window(ts, '-1 month 40 days') FROM t",
    "SELECT window(ts, 'abc') FROM t",
    "SELECT window(ts, '10minutes') FROM t",
    "SELECT window(ts, '1.5 minutes') FROM t",
    "SELECT window(ts, '10 mins') FROM t",
    "SELECT window(ts, '2 hours -1 day') FROM t",
    "SELECT window(ts, '10 minutes', '3 minutes', '') FROM t",
    "SELECT window(ts, INTERVAL 10 MINUTES) FROM t",
    "SELECT window(ts, 1.5) FROM t",
    "SELECT window(ts, NULL) FROM t",
    "SELECT window(id, '1 day') FROM t",
    "SELECT window(ts) FROM t",
    "SELECT window(ts, '1 minute', '1 minute', '0 minutes', '1') FROM t",
    "SELECT window(ts, '10 minutes'), window(ts, '5 minutes') FROM t",
    "SELECT window(ts, '1 day') AS w, window(d, '1 day') AS x FROM t",
]

# window_time takes only a column whose metadata carries a window's marker (Spark's
# ResolveWindowTime), computed in a Project below its operator: in an aggregation, a call outside
# an aggregate is grouped only by the same call
WINDOW_TIMES = [
    "SELECT window_time(w) FROM (SELECT named_struct('start', ts, 'end', ts) AS w FROM t)",
    "SELECT window_time(w), window_time(w) AS b, window_time(x) FROM (SELECT window(ts, '10 minutes') AS w, "
    "window(ntz, '10 minutes') AS x FROM t)",
    "SELECT id FROM (SELECT id, window(ts, '10 minutes') AS w FROM t) WHERE window_time(w) > TIMESTAMP'2024-01-01 00:09:00'",
    "SELECT max(window_time(w)), count(*) FROM (SELECT window(ts, '10 minutes') AS w FROM t)",
    "SELECT window_time(w) AS x, count(*) FROM (SELECT window(ts, '10 minutes') AS w FROM t) GROUP BY x",
    "SELECT window_time(w), count(*) FROM (SELECT window(ts, '10 minutes') AS w FROM t) GROUP BY ROLLUP(window_time(w))",
    "SELECT sum(v), window_time(w) FROM (SELECT v, window(ts, '10 minutes') AS w FROM t) GROUP BY ALL",
    "WITH c AS (SELECT window(ts, '10 minutes') AS w FROM t) SELECT window_time(x) FROM (SELECT w AS x FROM c)",
    "SELECT window_time(w) FROM (SELECT window(ts, '10 minutes') AS w FROM t UNION ALL SELECT named_struct('start', ts, 'end', ts) FROM t)",
    "SELECT window_time(a.w), b.id FROM (SELECT id, window(ts, '10 minutes') AS w FROM t) a JOIN t b ON a.id = b.id",
    "SELECT window_time(window(ts, '10 minutes')) FROM t",
    "SELECT window_time(w) FROM (SELECT window(ts, '10 minutes') AS w FROM t) GROUP BY w",
    "SELECT window_time(window) FROM t GROUP BY window(ts, '1 hour')",
    "SELECT window_time(w), count(*) FROM (SELECT window(ts, '10 minutes') AS w FROM t)",
    "SELECT window_time(w) FROM (SELECT named_struct('start', ts, 'end', ts) AS w FROM t UNION ALL SELECT window(ts, '10 minutes') FROM t)",
    "SELECT window_time(x) FROM (SELECT max(w) AS x FROM (SELECT window(ts, '10 minutes') AS w FROM t))",
    "SELECT window_time(w) FROM (SELECT CASE WHEN id > 2 THEN window(ts, '10 minutes') END AS w FROM t)",
    "SELECT window(w, '1 hour') FROM (SELECT named_struct('start', ts, 'end', ts) AS w FROM t)",
    "SELECT window_time(ts) FROM t",
]

# session windows: each row's [time, time + gap), kept where the time is not NULL (and, for a gap
# of no more than nothing, where the end passes the start); a GROUP BY of a session column merges
# each group's overlapping sessions (Spark's MergingSessionsExec), elsewhere each row keeps its own
SESSIONS = [
    "SELECT session_window(ts, '3 minutes') AS s, count(*), max(v), min(id) FROM t GROUP BY 1",
    "SELECT session_window(ts, '2 minutes') AS s, count(*) FROM t GROUP BY 1",  # [00:10, 00:12) and [00:12, 00:14) touch: one
    "SELECT id % 2 AS odd, session_window(ts, '3 minutes'), count(*) FROM t GROUP BY id % 2, session_window(ts, '3 minutes')",
    "SELECT session_window.start, session_window.end, count(*) FROM t GROUP BY session_window(ntz, '2 minutes 1 second')",
    "SELECT max(session_window(ts, '5 minutes')), count(*) FROM t",
    "SELECT collect_list(session_window(ts, '5 minutes').start) AS s, first(id), last(v) FROM t",  # no merge: in order
    "SELECT s, count(*) FROM (SELECT session_window(d, '1 day') AS s FROM t) GROUP BY s",
    "SELECT count(*) FROM (SELECT session_window(ts, '4 minutes') AS s FROM t UNION ALL SELECT session_window(ts, '90 seconds') "
    "FROM t WHERE id > 4) GROUP BY s",
    "SELECT session_window(s, '1 hour') AS w, count(*) FROM t GROUP BY 1 HAVING count(*) > 1 ORDER BY 1",
    "SELECT window_time(w), count(*) FROM (SELECT session_window(ts, '3 minutes') AS w FROM t GROUP BY 1) GROUP BY 1",
    "SELECT a.id % 3 AS r, session_window(b.ts, '4 minutes') AS s, count(*) FROM t a JOIN t b ON a.id = b.id WHERE a.id > 1 GROUP BY 1, 2",
    "SELECT count(*) FROM t WHERE session_window(ts, '3 minutes').start > TIMESTAMP'2024-01-01 00:05:00'",
    "SELECT session_window(ts, NULL), count(*) FROM t GROUP BY 1",
    "SELECT session_window(ts, 'nonsense') AS s, count(*) FROM t GROUP BY 1",
    "SELECT session_window(ts, '1 day -25 hours') AS s, count(*) FROM t GROUP BY 1",
    "SELECT session_window(ts, '1 month') AS s, session_window(ts, '1 month').end AS e, id FROM t",
    # a gap of each row's string: NULL, no interval or no more than nothing drops the row
    "SELECT id % 2 AS odd, session_window(ts, CASE WHEN id > 4 THEN '3 minutes' WHEN id = 1 THEN '-1 minute' END) AS s, "
    "count(*) FROM t GROUP BY 1, 2",
    "SELECT id, session_window(ts, if(id > 3, '2 minutes', 'bad')) AS a, "
    "session_window(ts, if(id > 3, '2 minutes', 'bad')).end AS b FROM t",
    "SELECT session_window(ntz, coalesce(CASE WHEN id > 5 THEN '20 minutes' END, '10 seconds')) AS s, count(*) FROM t GROUP BY 1",
    "SELECT session_window(ts, 300) FROM t",
    "SELECT session_window(ts, INTERVAL 5 MINUTES) FROM t",
    "SELECT session_window(ts) FROM t",
    "SELECT session_window(ts, '3 minutes'), window(ts, '5 minutes') FROM t",
    "SELECT session_window(ts, '3 minutes'), count(*) FROM t GROUP BY session_window(ts, '4 minutes')",
]

# what the Spark engine must pass through to Spark as written (a GROUP BY window(...), a suffixed
# integer duration, a window in WHERE, window_time, an error Spark raises)
PASSED_THROUGH = [q for q in QUERIES + ERRORS if any(part in q for part in (
    "GROUP BY window(ts, '10 minutes', '10 minutes'", "600000000L", "WHERE window(ts, '10 minutes', '5 minutes')",
    "window_time(window)", "collect_list(id), first(id)", "'1 month'", "window(ts, '5 minutes') FROM t"))] + [WINDOW_TIMES[1], WINDOW_TIMES[-7]] + SESSIONS[1:3] + SESSIONS[-3:-2]

_ANSWERS: dict[str, tuple[Any, ...]] = {}


@pytest.mark.parametrize("sql", QUERIES + ERRORS + WINDOW_TIMES + SESSIONS)
def test_time_windows_as_spark(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    """The names, types and rows are Spark's, or both raise Spark's error class."""
    assert_same_answer(sql, spark_view, con, _ANSWERS)


@pytest.mark.parametrize("sql", PASSED_THROUGH)
def test_time_windows_on_the_spark_engine(sql: str, spark_view: SparkSession, spark_con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_view, spark_con, _ANSWERS)


_EVENTS = ("SELECT id, parse_json(json) AS event FROM VALUES (1, '{\"ts\": \"2024-01-01 00:03:00\", \"n\": 1}'), "
           "(2, '{\"ts\": \"2024-01-01 00:14:30\", \"n\": 2}'), (3, '{\"n\": 3}'), "
           "(4, '{\"ts\": \"2024-01-01 00:09:00\", \"n\": 4}') AS e(id, json)")


def test_time_windows_of_variant_times(spark: SparkSession, tmp_path: Path) -> None:
    """The analysts' form: windows of a time extracted from a shredded variant, on both engines."""
    folder = tmp_path / "events"
    write_with_spark(spark, folder, _EVENTS, "ts string, n bigint")
    views = register_views(spark, {"events": folder})
    answers: dict[str, tuple[Any, ...]] = {}
    duckdb, spark_engine = connect_tables({"events": folder}), connect_tables({"events": folder}, spark)
    queries = (
        "SELECT window(event:ts::timestamp, '10 minutes').start AS w, count(*), sum(event:n::int) FROM events GROUP BY 1",
        "SELECT id, window(event:ts::timestamp, '10 minutes', '4 minutes') FROM events",
        "SELECT window(variant_get(event, '$.ts', 'timestamp'), '1 day').start, "
        "window(variant_get(event, '$.ts', 'timestamp'), '1 day').end FROM events",
        # Spark resolves each `event:ts` apart: two windows of it are two windows
        "SELECT window(event:ts::timestamp, '1 day').start FROM events GROUP BY window(event:ts::timestamp, '1 day')",
        "SELECT session_window(event:ts::timestamp, '10 minutes') AS s, count(*) FROM events GROUP BY 1",
        "SELECT session_window(event:ts::timestamp, '1 day').start FROM events GROUP BY session_window(event:ts::timestamp, '1 day')",
    )
    for index, sql in enumerate(queries):
        assert_same_answer(sql, views, duckdb, answers)
        if index in (0, 3, 5):  # the Spark engine reads the extractions as columns: Spark's error kept
            assert_same_answer(sql, views, spark_engine, answers)


_ZONED = [
    "SELECT window(ts, '1 day') AS w, count(*) FROM t GROUP BY 1",
    "SELECT window(d, '1 day', '6 hours').start AS w, count(*) FROM t GROUP BY 1",
    "SELECT window(s, '1 day'), window(s, '1 day').start, id FROM t",
    "SELECT window(ntz, '1 day', '12 hours', '-3 hours') AS w, collect_list(id) FROM t GROUP BY 1",
    "SELECT session_window(ts, '1 day') AS w, count(*) FROM t GROUP BY 1",
    "SELECT session_window(d, '2 hours') AS w, count(*) FROM t GROUP BY 1",
]


@pytest.fixture
def los_angeles(spark_view: SparkSession) -> Any:
    spark_view.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    yield spark_view
    spark_view.conf.set("spark.sql.session.timeZone", "UTC")


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_time_windows_in_a_region_zone(engine: str, los_angeles: SparkSession, table_path: Path) -> None:
    """Windows are counted in microseconds since the epoch (a day's window starts at midnight UTC
    whatever the session zone); dates and strings are read in the session zone first."""
    zone = "America/Los_Angeles"
    connection = vpush.connect(engine="spark", spark=los_angeles, time_zone=zone) if engine == "spark" else vpush.connect(time_zone=zone)
    connection.register("t", table_path)
    for sql in _ZONED:
        assert_same_answer(sql, los_angeles, connection, {})


def test_sessions_across_daylight_saving_changes(spark: SparkSession, tmp_path: Path) -> None:
    """A gap of days is added to the local date-time in the session zone (23 hours across the
    spring change, 25 across the fall one), and the sessions merge by those ends, on both engines."""
    zone = "America/Los_Angeles"
    times = [dt.datetime(2024, 3, 9, 20, tzinfo=_UTC), dt.datetime(2024, 3, 10, 19, 30, tzinfo=_UTC),
             dt.datetime(2024, 3, 11, 18, 45, tzinfo=_UTC), dt.datetime(2024, 11, 2, 19, tzinfo=_UTC),
             dt.datetime(2024, 11, 3, 19, 30, tzinfo=_UTC)]
    folder = tmp_path / "dst"
    folder.mkdir()
    pq.write_table(pa.table({"id": pa.array(range(len(times)), pa.int32()), "ts": pa.array(times, pa.timestamp("us", tz="UTC"))}),
                   folder / "part-0.parquet")
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        views = register_views(spark, {"dst": folder})
        answers: dict[str, tuple[Any, ...]] = {}
        for engine in ("duckdb", "spark"):
            connection = vpush.connect(engine="spark", spark=spark, time_zone=zone) if engine == "spark" else vpush.connect(time_zone=zone)
            connection.register("dst", folder)
            for sql in ("SELECT id, session_window(ts, '1 day') AS s FROM dst",
                        "SELECT session_window(ts, '23 hours 40 minutes') AS s, count(*) FROM dst GROUP BY 1"):
                assert_same_answer(sql, views, connection, answers)
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")


def test_ordered_aggregates_over_many_rows(spark: SparkSession, tmp_path: Path) -> None:
    """Order-dependent aggregates over sliding windows of 6,000 shuffled rows in 6 row groups
    take each row's windows in Spark's order; past 128 groups beside a typed aggregate (Spark's
    ObjectHashAggregateExec falls back to sorting) they are refused, not answered otherwise."""
    import random

    rows = 6_000
    ids = list(range(rows))
    random.Random(7).shuffle(ids)
    start = dt.datetime(2024, 1, 1, tzinfo=_UTC)
    folder = tmp_path / "big"
    folder.mkdir()
    pq.write_table(pa.table({"id": pa.array(ids, pa.int32()), "ts": pa.array(
        [start + dt.timedelta(seconds=37 * i) for i in ids], pa.timestamp("us", tz="UTC"))}), folder / "part-0.parquet", row_group_size=1000)
    views = register_views(spark, {"big": folder})
    connection = connect_tables({"big": folder})
    for sql in ("SELECT window(ts, '10 hours', '4 hours').start AS w, collect_list(id) AS ids, first(id), last(id), count(*) "
                "FROM big GROUP BY 1",
                "SELECT window(ts, '1 hour', '20 minutes').start AS w, first(id), last(id), count(*) FROM big GROUP BY 1",
                "SELECT collect_list(w.start) AS s FROM (SELECT window(ts, '2 hours', '50 minutes', '-7 minutes') AS w FROM big "
                "WHERE id % 3 = 0)"):
        assert_same_answer(sql, views, connection, {})
    with pytest.raises(vpush.VpushError) as error:
        connection.sql("SELECT window(ts, '1 hour', '20 minutes').start AS w, collect_list(id) FROM big GROUP BY 1").to_arrow()
    assert error.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"


def test_session_window_refused_where_vpush_does_not_follow_spark(con: vpush.Connection) -> None:
    """A gap that is no literal nor a CASE of literals without days or months (Spark casts each row's
    string; vpush does not add a varying number of days in the session zone), an aggregate that depends on the
    order of rows over merged sessions, sessions under DISTINCT or a set operation's distinct rows
    (Spark merges them: measured on PySpark 4.3) and under grouping sets are refused."""
    for sql in ("SELECT session_window(ts, CASE WHEN id > 2 THEN '1 day' ELSE '5 minutes' END) AS s, count(*) FROM t GROUP BY 1",
                "SELECT session_window(ts, concat(id, ' minutes')) AS s, count(*) FROM t GROUP BY 1",
                "SELECT session_window(ts, '5 minutes') AS s, collect_list(id) FROM t GROUP BY 1",
                "SELECT session_window(ts, '5 minutes') AS s, sum(v) FROM t GROUP BY 1",
                "SELECT DISTINCT session_window(ts, '5 minutes') FROM t",
                "SELECT id % 2, session_window(ts, '5 minutes'), count(*) FROM t GROUP BY id % 2, session_window(ts, '5 minutes') WITH ROLLUP",
                "SELECT s FROM (SELECT session_window(ts, '5 minutes') AS s FROM t) UNION SELECT session_window(ts, '1 minute') FROM t",
                "SELECT session_window(ts, '5 minutes') FROM t INTERSECT ALL SELECT session_window(ts, '5 minutes') FROM t"):
        with pytest.raises(vpush.VpushError) as error:
            con.sql(sql).to_arrow()
        assert error.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION", sql


def test_window_refused_where_vpush_does_not_follow_spark(con: vpush.Connection) -> None:
    """A window in ORDER BY or HAVING, or in a window function, and an order-dependent aggregate
    over windows of rows in an order vpush does not know, are refused rather than answered
    otherwise than Spark."""
    for sql in ("SELECT id FROM t ORDER BY window(ts, '10 minutes')",
                # aggregates whose answer depends on the order of rows Spark meets, over rows
                # whose order vpush does not follow
                "SELECT collect_list(b.id) FROM t a JOIN t b ON a.id = b.id GROUP BY window(a.ts, '10 minutes')",
                "SELECT first(id) FROM (SELECT id, window(ts, '10 minutes', '5 minutes') FROM t ORDER BY id DESC)",
                "SELECT count(*) FROM t GROUP BY id HAVING max(window(ts, '1 hour').end) > TIMESTAMP'2024-01-01 00:00:00'",
                "SELECT row_number() OVER (ORDER BY window(ts, '10 minutes').start) FROM t",
                # window_time where Spark's Project below the operator changes the answer (a Sort adds
                # its column to the output; HAVING reads a column Spark's rule does not mark), and of a
                # struct's field, whose own metadata vpush does not follow
                "SELECT w FROM (SELECT window(ts, '10 minutes') AS w FROM t) ORDER BY window_time(w)",
                "SELECT w, count(*) FROM (SELECT window(ts, '10 minutes') AS w FROM t) GROUP BY w HAVING max(window_time(w)) > max(w.start)",
                "SELECT window_time(x) FROM (SELECT s.w AS x FROM (SELECT named_struct('w', w) AS s FROM "
                "(SELECT window(ts, '10 minutes') AS w FROM t)))"):
        with pytest.raises(vpush.VpushError) as error:
            con.sql(sql).to_arrow()
        assert error.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION", sql


def test_window_time_of_a_struct_not_made_by_window(spark_view: SparkSession, con: vpush.Connection) -> None:
    sql = "SELECT window_time(w) FROM (SELECT named_struct('start', ts, 'end', ts) AS w FROM t)"
    assert_same_answer(sql, spark_view, con, {})


@pytest.mark.parametrize(("sql", "read"), [
    ("SELECT count(*) FROM t GROUP BY session_window(ntz, '2 minutes')", "ntz"),
    ("SELECT session_window.start, max(v) FROM t GROUP BY id % 2, session_window(ts, '3 minutes')", "id, ts, v"),
    ("SELECT * FROM (SELECT window(ts, '10 minutes') AS w FROM t)", "ts"),
])
def test_time_windows_read_only_the_columns_named(sql: str, read: str, con: vpush.Connection) -> None:
    """The derived tables of a session merge (``SELECT *`` of the window stages) read only what
    their sources name, not every column of the table."""
    assert f"columns read: {read}\n" in con.sql(sql).explain()
