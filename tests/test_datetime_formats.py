"""Spark's parsing of strings by datetime patterns on the DuckDB engine, against PySpark.

``to_timestamp``, ``try_to_timestamp``, ``to_date``, ``unix_timestamp`` and ``to_unix_timestamp``
with a literal pattern run through the compiled parser (``codec/spark_datetime_format.c``), and
``from_unixtime`` with a pattern through ``date_format``'s printer. Every pattern meets a column
of strings that parse, that almost parse (a digit short, text after, a wrong month name, a day
out of range, February 29 of a common year, 24:00) and NULLs, in UTC and in Los Angeles (the
daylight saving gap of 2024-03-10 and the overlap of 2024-11-03); both engines must agree.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import vpush
from vpush.codec.errors import VpushError

from test_spark_functions import _answer, _answers_in_zone, _spark_run, _vpush_run

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ZONES = ["UTC", "America/Los_Angeles"]

PATTERNS = [
    "yyyy-MM-dd", "yyyy-MM-dd HH:mm:ss", "dd/MM/yyyy HH:mm", "yyyyMMdd", "yyyyMMddHHmmss", "y-M-d H:m:s",
    "yy-MM-dd", "yyy-MM-dd", "MMM d, yyyy", "MMMM d yyyy", "d MMM yyyy", "yyyy D", "yyyy DD", "yyyy DDD",
    "yyyy-MM-dd hh:mm a", "h:mm:ss a", "yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd HH:mm:ss.SSSSSS",
    "yyyy-MM-dd HH:mm:ss.S", "yyyy-MM-dd'T'HH:mm:ssXXX", "yyyy-MM-dd HH:mm:ss.SSSXXX", "yyyy-MM-dd HH:mm Z", "yyyy-MM-dd HH:mmX", "HH:mm",
    "yyyy-MM", "'day' d 'of' MMM", "yyyyMMddHHmmssSSS", "yyyyMMddHHmmssS", "yyyy-MM-dd a", "yyyy-MM-dd HH:mm:ss''",
]

STRINGS = [
    # dates
    "2024-01-05", "2024-1-5", "2024-01-5", "2024-01-05 ", " 2024-01-05", "2024-01-05x", "24-01-05", "024-01-05",
    "12345-01-05", "+12345-01-05", "+2024-01-05", "-2024-01-05", "0000-01-01", "-0000-01-01", "2024-02-29",
    "2023-02-29", "2023-04-31", "2023-13-01", "2023-00-01", "2024-03-10", "2024-02", "2024-2",
    # date and time
    "2024-01-05 10:30:00", "2024-01-05 10:30", "2023-12-31 24:00:00", "2023-12-31 23:60:00", "2023-12-31 23:59:60",
    "2024-03-10 02:30:00", "2024-03-10 03:30:00", "2024-11-03 01:30:00", "2024-1-5 1:2:3", "2024-001-0005 001:2:3",
    "05/01/2024 10:30", "5/1/2024 10:30", "31/04/2024 10:30", "29/02/2023 10:30", "10/03/2024 02:15",
    "20240105", "2024015", "202401050", "+202401050", "20240229", "20230229", "20240310023000", "20240105103000",
    "20240105103000123", "202401051030001", "2024-01-05 10:30:00.123", "2024-01-05 10:30:00.1",
    "2024-01-05 10:30:00.1234", "2024-01-05 10:30:00.123456", "2024-01-05 10:30:00.", "2024-01-05 10:30:00.12",
    "2024-01-05 10:30:00.+02:00", "2024-01-05 10:30:00.5Z",
    # names, AM/PM, days of the year
    "Jan 5, 2024", "jan 5, 2024", "JAN 5, 2024", "Sept 5, 2024", "Sep 5, 2024", "January 5, 2024", "January 5 2024",
    "FEBRUARY 29 2023", "february 29 2024", "Jan 5 2024", "5 Jan 2024", "5 Janu 2024", "2024 060", "2024 60", "2024 6",
    "2023 366", "2024 366", "2024 367", "2024 000", "2024-01-05 12:30 AM", "2024-01-05 12:30 pm", "2024-01-05 00:30 PM",
    "2024-01-05 13:30 PM", "2024-01-05 10:30", "10:30:00 PM", "1:30:00 am", "01:30:00 A", "2024-01-05 PM",
    "2024-01-05 AM", "day 5 of Jan", "DAY 5 OF jan", "day 5of Jan",
    # offsets
    "2024-01-05T10:30:00+02:00", "2024-01-05T10:30:00Z", "2024-01-05T10:30:00z", "2024-01-05T10:30:00-08:00",
    "2024-01-05T10:30:00+0200", "2024-01-05T10:30:00+02", "2024-01-05T10:30:00+19:00", "2024-01-05T10:30:00+18:00",
    "2024-01-05t10:30:00+02:00", "2024-01-05 10:30 +0530", "2024-01-05 10:30 Z", "2024-01-05 10:30 +0000",
    "2024-01-05 10:30 -0800", "2024-01-05 10:30+02", "2024-01-05 10:30+0230", "2024-01-05 10:30+02:30",
    "2024-01-05 10:30Z", "2024-03-10 02:30+00",
    # times alone, odd ones
    "10:30", "24:00", "1:30", "", "2024-01-05 10:30:00'", None,
]


@pytest.fixture(scope="module")
def strings_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("patterns") / "z"
    root.mkdir()
    pq.write_table(pa.table({"s": pa.array(STRINGS, pa.string())}), root / "part-0.parquet")
    return root


def _quoted(pattern: str) -> str:
    return "'" + pattern.replace("'", "\\'") + "'"


@pytest.mark.parametrize("zone", ZONES)
def test_try_to_timestamp_by_every_pattern(zone: str, spark: SparkSession, strings_path: Path) -> None:
    """Which strings each pattern parses, and to what instant, in the session time zone."""
    # as microseconds: Python's datetime ends at the year 9999, Spark's parser does not
    calls = [f"unix_micros(try_to_timestamp(s, {_quoted(p)})) AS p{k}" for k, p in enumerate(PATTERNS)]
    expected, got = _answers_in_zone(spark, strings_path, zone, f"SELECT s, {', '.join(calls)} FROM z")
    assert got[0] == expected[0]
    for k, pattern in enumerate(PATTERNS):
        wanted = sorted(((r[0], r[k + 1]) for r in expected[1]), key=repr)
        assert sorted(((r[0], r[k + 1]) for r in got[1]), key=repr) == wanted, pattern
    assert sum(1 for r in expected[1] for v in r[1:] if v is not None) > 60  # the column is not all NULL


@pytest.mark.parametrize("pattern", PATTERNS)
def test_strict_functions_where_the_pattern_parses(pattern: str, spark: SparkSession, strings_path: Path) -> None:
    """to_timestamp, to_date, unix_timestamp and to_unix_timestamp over the rows the pattern
    parses, in Los Angeles (instants and dates as counts: Python's datetime ends at 9999)."""
    p = _quoted(pattern)
    sql = (f"SELECT s, unix_micros(to_timestamp(s, {p})), unix_date(to_date(s, {p})), unix_timestamp(s, {p}), "
           f"to_unix_timestamp(s, {p}) "
           f"FROM z WHERE try_to_timestamp(s, {p}) IS NOT NULL")
    expected, got = _answers_in_zone(spark, strings_path, "America/Los_Angeles", sql)
    assert got == expected


def _spark_condition(spark: SparkSession, sql: str) -> str | None:
    try:
        spark.sql(sql).collect()
    except Exception as exc:  # noqa: BLE001 - PySpark's errors carry the condition
        return str(exc.getCondition())  # type: ignore[attr-defined]
    return None


@pytest.mark.parametrize(
    ("function", "text", "pattern"),
    [("to_timestamp", "2024-1-5", "yyyy-MM-dd"), ("to_timestamp", "2024-01-05x", "yyyy-MM-dd"),
     ("to_date", "2023-02-29", "yyyy-MM-dd"), ("to_date", "Sept 5, 2024", "MMM d, yyyy"),
     ("unix_timestamp", "2024015", "yyyyMMdd"), ("to_unix_timestamp", "2023-12-31 24:00:00", "yyyy-MM-dd HH:mm:ss"),
     ("to_timestamp", "2024-01-05T10:30:00+19:00", "yyyy-MM-dd'T'HH:mm:ssXXX"), ("unix_timestamp", "2024-01-05", None)],
)
def test_a_string_the_pattern_does_not_parse_raises_as_spark(function: str, text: str, pattern: str | None, spark: SparkSession) -> None:
    """Under ANSI (Spark 4's default) the strict functions raise CANNOT_PARSE_TIMESTAMP."""
    arguments = f"'{text}'" if pattern is None else f"'{text}', {_quoted(pattern)}"
    sql = f"SELECT {function}({arguments}) AS x"
    wanted = _spark_condition(spark, sql)
    assert wanted == "CANNOT_PARSE_TIMESTAMP"
    with pytest.raises(VpushError) as raised:
        vpush.connect(time_zone="UTC").sql(sql).to_arrow()
    assert raised.value.error_class == wanted


@pytest.mark.parametrize(
    "pattern",
    ["YYYY-MM-dd", "yyyy-ww", "uuuu-MM-dd", "EEE yyyy-MM-dd", "E yyyy", "F yyyy", "e yyyy", "c yyyy", "Q yyyy",
     "A yyyy", "yyyy-MM-ddd", "yyyy aa", "yyyyyyy", "MMMMM yyyy", "yyyy HHH", "yyyy SSSSSSSSSS", "yyyy b",
     "yyyy-MM-dd'", "yyyy {", "yyyy XXXXXX"],
)
def test_a_pattern_spark_rejects_raises_its_error_class(pattern: str, spark: SparkSession) -> None:
    sql = f"SELECT to_timestamp('2024', {_quoted(pattern)}) AS x"
    wanted = _spark_condition(spark, sql)
    assert wanted is not None
    with pytest.raises(VpushError) as raised:
        vpush.connect(time_zone="UTC").sql(sql).to_arrow()
    assert raised.value.error_class == wanted


@pytest.mark.parametrize(
    "call",
    ["to_timestamp(s, 'G yyyy')", "to_timestamp(s, 'yyyy-MM-dd z')", "to_timestamp(s, 'yyyy[-MM]')",
     "to_timestamp(s, 'kk:mm')", "to_timestamp(s, 'HH a')", "to_date(s, 'yyyy D MM')", "to_timestamp(s, s)",
     "unix_timestamp(s, concat('yyyy', ''))", "to_timestamp(s, 'yyyy é')", "to_timestamp(s, 'yyyy-MM-dd VV')",
     "try_to_timestamp(s, 'yyyy-MM-dd HH:mm:ss.SSS ZZZZ')", "from_unixtime(1, s)"],
)
def test_forms_vpush_does_not_parse_are_refused(call: str, strings_path: Path) -> None:
    """Letters and forms outside the compiled parser: refused, naming the call, not answered differently."""
    con = vpush.connect(time_zone="UTC")
    con.register("z", strings_path)
    with pytest.raises(VpushError) as raised:
        con.sql(f"SELECT {call} FROM z").to_arrow()
    assert raised.value.error_class == "VPUSH_UNSUPPORTED_FUNCTION"
    assert call.split("(")[0] in str(raised.value)


@pytest.mark.parametrize("zone", ZONES)
def test_from_unixtime_with_a_pattern(zone: str, spark: SparkSession, tmp_path: Path) -> None:
    seconds = [0, 1710064800, 1710061199, 1730622600, -2208988800, -62198755200, 253402300800, None]
    pq.write_table(pa.table({"n": pa.array(seconds, pa.int64())}), tmp_path / "part-0.parquet")
    patterns = ["yyyy-MM-dd", "dd/MM/yyyy HH:mm", "yyyyMMdd", "EEE, MMM d, yyyy h:mm a", "yy D HH:mm:ss.SSS"]
    calls = [f"from_unixtime(n, {_quoted(p)})" for p in patterns] + ["from_unixtime(n, NULL) AS none"]
    expected, got = _answers_in_zone(spark, tmp_path, zone, f"SELECT n, {', '.join(calls)} FROM z")
    assert got == expected


@pytest.mark.parametrize("zone", ZONES)
def test_names_and_types_as_spark(zone: str, spark: SparkSession, strings_path: Path) -> None:
    calls = ["to_timestamp(s, 'yyyy-MM-dd HH:mm:ss')", "try_to_timestamp(s, 'yyyy-MM-dd')", "try_to_timestamp(s)",
             "to_date(s, 'yyyy-MM-dd HH:mm:ss')", "unix_timestamp(s, 'yyyy-MM-dd HH:mm:ss')", "unix_timestamp(s)",
             "to_unix_timestamp(s, 'yyyy-MM-dd HH:mm:ss')", "to_unix_timestamp(s)"]
    sql = f"SELECT {', '.join(calls)} FROM z WHERE s IN ('2024-03-10 02:30:00', '2024-11-03 01:30:00', '2024-01-05 10:30:00')"
    expected, got = _answers_in_zone(spark, strings_path, zone, sql)
    assert got == expected


def test_a_null_pattern_gives_null(spark: SparkSession, strings_path: Path) -> None:
    sql = "SELECT to_timestamp(s, NULL) AS a, to_date(s, NULL) AS b, unix_timestamp(s, NULL) AS c FROM z"
    expected, got = _answers_in_zone(spark, strings_path, "UTC", sql)
    assert got == expected


def test_the_spark_engine_runs_them_as_spark(spark: SparkSession, strings_path: Path) -> None:
    """Through vpush's Spark engine too (a form refused on DuckDB included): the same names, types and rows."""
    calls = ["unix_micros(try_to_timestamp(s, 'yyyy-MM-dd HH:mm:ss'))", "unix_micros(try_to_timestamp(s, 'G yyyy'))",
             "try_to_timestamp(s, 'dd/MM/yyyy HH:mm')", "unix_micros(try_to_timestamp(s, 'yyyyMMdd'))",
             "date_format(try_to_timestamp(s, 'yyyyMMdd'), 'EEE d MMM')"]
    sql = f"SELECT s, {', '.join(calls)} FROM z"
    spark.read.parquet(str(strings_path)).createOrReplaceTempView("z")
    con = vpush.connect(engine="spark", spark=spark, time_zone="UTC")
    con.register("z", strings_path)
    expected = _answer(_spark_run(spark), sql, set())
    assert expected[0] != "error" and sum(1 for r in expected[1] if r[4] is not None) >= 2
    assert _answer(_vpush_run(con), sql, set()) == expected


@pytest.mark.parametrize("function", ["to_timestamp", "try_to_timestamp", "unix_timestamp"])
def test_an_instant_beyond_64_bit_microseconds_raises_as_spark(function: str, spark: SparkSession) -> None:
    """Spark's Math.multiplyExact overflows ('long overflow', no error class), in try_ too."""
    sql = f"SELECT {function}('+300000-01-01', 'yyyy-MM-dd') AS x"
    with pytest.raises(Exception, match="long overflow"):
        spark.sql(sql).collect()
    with pytest.raises(VpushError, match="long overflow") as raised:
        vpush.connect(time_zone="UTC").sql(sql).to_arrow()
    assert raised.value.error_class is None
