"""Spark's casts of strings to dates and timestamps on DuckDB (:mod:`vpush.exec.string_datetimes`).

Three checks: the compiled kernel against the per-row reference of :mod:`vpush.exec.variant_cast`
on generated strings; vpush's ``cast``, ``try_cast``, ``to_date``, ``to_timestamp`` and date
functions of string columns against PySpark over one Parquet file, in two session time zones
(one with daylight saving, whose gaps and overlaps the strings cross); and Spark's error for a
string that is not a date.
"""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

import vpush
from vpush.codec.errors import VpushError
from vpush.codec.java_format import resolve_time_zone
from vpush.exec import variant_cast
from vpush.exec.string_datetimes import string_to_date_column, string_to_timestamp_column
from vpush.exec.variant_cast import variant_get_column
from vpush.codec.json import parse_json
from vpush.codec.value import Variant
from vpush.optimizer.variant_types import parse_variant_type

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Pieces that the parser's every branch sees: signs, short and long fields, separators in and
# out of place, fractions past microseconds, zones of each kind, DST edges, trimmed bytes.
_PIECES = [
    "2024", "1999", "0001", "9999", "-0044", "+12345", "123456", "1234567", "-", "-", "1", "12", "02", "29",
    "30", "31", "13", "0", "00", "59", "23", "24", "60", " ", "T", ":", ":", ".", "123", "1234567", "Z",
    "+01:00", "-08", "+5", "+0530", "+18:00", "+19", "UTC", "GMT+5", "UT-3:00", "America/Los_Angeles",
    "Europe/London", "PST", "Mars/Olympus", "\t", "\x7f", "x", "é", "2021-03-14 02:30:00",
    "2021-11-07 01:30:00", "2024-10-27 01:30:00", "2024-03-31 01:30:00",
]

# What the Spark comparison casts: each kind of text the parser accepts or refuses.
TEXTS = [
    "2024", "2024-1", "2024-1-5", " 2024-01-05 ", "\t2024-01-05\n", "2024-01-05T", "2024-01-05 junk",
    "2024-01-05Tjunk", "2024-02-29", "2023-02-29", "2024-13-01", "2024-00-10", "2024-01-32", "+2024-01-05",
    "-0044-03-15", "0001-01-01", "9999-12-31", "12024-01-01", "202", "20240105", "2024/01/05", "2024-01-05-",
    "", " ", "x", "2024-01-05 10", "2024-01-05 10:30", "2024-01-05 10:30:45", "2024-01-05T10:30:45.123456",
    "2024-01-05 10:30:45.1234567", "2024-01-05 10:30:45.1", "2024-01-05 24:00:00", "2024-01-05 23:60:00",
    "2024-01-05 10:30:45Z", "2024-01-05 10:30:45 Z", "2024-01-05 10:30:45+01:00", "2024-01-05 10:30:45-0800",
    "2024-01-05 10:30:45 +5", "2024-01-05 10:30:45 UTC", "2024-01-05 10:30:45 GMT+05:30",
    "2024-01-05 10:30:45 America/New_York", "2024-01-05 10:30:45 PST", "2024-01-05 10:30:45 Mars/Olympus",
    "2024-01-05 10:30:45 +19:00", "2024-01-05 10:30:45.5+01:00", "2024-01-05 10:30 +02:00",
    "2021-03-14 02:30:00", "2021-11-07 01:30:00", "2021-11-07 00:59:59.999999", "2024-03-31 01:30:00",
    "2024-10-27 01:30:00", "1900-01-01 00:00:00", "1883-11-18 12:00:00",
]
ZONES = ["UTC", "America/Los_Angeles"]


@given(st.lists(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=7).map("".join), min_size=1, max_size=40))
def test_the_kernel_answers_as_the_reference(texts: list[str]) -> None:
    values = pa.array(texts + [None])
    dates = string_to_date_column(values, strict=False).cast(pa.int32()).to_pylist()
    for text, got in zip(texts, dates):
        try:
            expected = variant_cast._string_to_date(text)
        except variant_cast._Failed:
            expected = None
        assert got == expected, text
    assert dates[-1] is None
    for zone_name in ("UTC", "America/Los_Angeles", "Europe/London", "+05:30"):
        zone = resolve_time_zone(zone_name)
        for ntz in (False, True):
            column = string_to_timestamp_column(values, time_zone=zone_name, ntz=ntz, strict=False)
            got_all = column.cast(pa.int64()).to_pylist()
            assert got_all[-1] is None
            for text, got in zip(texts, got_all):
                assert got == variant_cast.string_to_timestamp(text, zone, ntz), (text, zone_name, ntz)


@given(st.lists(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=7).map("".join), min_size=1, max_size=30))
def test_variant_strings_cast_by_the_kernel_as_row_by_row(texts: list[str]) -> None:
    """variant_get of string values to a date or timestamp (the column path, through the
    kernel) gives what the per-row cast gives, NULL where it fails (try_variant_get)."""
    rows = [parse_json(json.dumps(text)) for text in texts] + [parse_json("null"), parse_json("7")]
    metadata = pa.array([r[0] for r in rows], pa.binary())
    value = pa.array([r[1] for r in rows], pa.binary())
    zone_name = "America/Los_Angeles"
    zone = resolve_time_zone(zone_name)
    for name in ("date", "timestamp", "timestamp_ntz"):
        target = parse_variant_type(name)
        got = variant_get_column(metadata, value, "$", target, strict=False, time_zone=zone_name)
        expected = []
        for m, v in rows:  # days or microseconds: the reference's raw values, any year
            try:
                expected.append(variant_cast._cast_raw(Variant(m, v), target, zone, zone_name))
            except variant_cast._Failed:
                expected.append(None)
        assert got.cast(pa.int32() if name == "date" else pa.int64()).to_pylist() == expected, name


def test_a_strict_cast_names_the_first_bad_string() -> None:
    with pytest.raises(VpushError, match="The value 'nope' of the type \"STRING\" cannot be cast to \"DATE\"") as caught:
        string_to_date_column(pa.array(["2024", None, "nope", "x"]), strict=True)
    assert caught.value.error_class == "CAST_INVALID_INPUT"
    with pytest.raises(VpushError, match="'2024-01-05 10:30:45 Mars/Olympus'") as caught:
        string_to_timestamp_column(pa.array(["2024-01-05 10:30:45 Mars/Olympus"]), time_zone="UTC", ntz=False, strict=True)
    assert caught.value.error_class == "CAST_INVALID_INPUT"


def test_a_time_alone_is_today() -> None:
    got = string_to_timestamp_column(pa.array(["T10:15:00", "10:15:00"]), time_zone="UTC", ntz=False, strict=True)
    today = dt.datetime.now(dt.timezone.utc).date()
    assert {value.date() for value in got.to_pylist()} <= {today, today + dt.timedelta(days=1)}
    assert [value.time() for value in got.to_pylist()] == [dt.time(10, 15)] * 2
    assert string_to_timestamp_column(pa.array(["10:15:00"]), time_zone="UTC", ntz=True, strict=False).to_pylist() == [None]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("string_datetimes") / "d" / "part-0.parquet"
    path.parent.mkdir()
    texts = TEXTS + [None]
    pq.write_table(pa.table({"id": list(range(len(texts))), "s": texts}), path)
    return path.parent


# unix_date and unix_micros: integers, which PySpark returns without converting to Python's
# dates (its years end at 9999) or its local time.
CASTS = (
    "SELECT id, unix_date(try_cast(s AS date)) AS d, unix_micros(try_cast(s AS timestamp)) AS t, "
    "cast(try_cast(s AS timestamp_ntz) AS string) AS n, cast(try_cast(s AS date) AS string) AS e FROM d ORDER BY id"
)


def _answer(run: Any) -> Any:
    try:
        return run()
    except Exception as exc:  # noqa: BLE001 - an error on either side is compared by its class
        condition = getattr(exc, "getCondition", None)
        return ("error", condition() if condition else getattr(exc, "error_class", repr(exc)))


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize(
    "sql",
    [
        CASTS,
        "SELECT id, unix_date(to_date(s)) AS d FROM d WHERE id < 20 AND id NOT IN (9, 10, 11, 12, 18, 19) ORDER BY id",
        "SELECT id, unix_micros(to_timestamp(s)) AS t FROM d WHERE id IN (0, 2, 27, 33, 39, 46, 47) ORDER BY id",
        "SELECT id, datediff(s, '2024') AS n, date_add(s, 1) AS a, year(s) AS y FROM d WHERE id IN (0, 1, 2, 8) ORDER BY id",
        "SELECT count(*) AS n FROM d WHERE try_cast(s AS date) = date'2024-01-05'",
        "SELECT cast(s AS date) AS d FROM d",
        "SELECT cast(s AS timestamp) AS t FROM d WHERE id = 45",
        "SELECT cast(s AS timestamp_ntz) AS t FROM d WHERE id = 34",
        "SELECT to_date(s) AS d FROM d WHERE id = 11",
        "SELECT cast(upper(s) AS date) AS d FROM d WHERE id = 18",
    ],
)
def test_string_casts_match_spark(spark: SparkSession, table: Path, zone: str, sql: str) -> None:
    from pyspark.errors import PySparkException

    previous = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        spark.read.parquet(str(table)).createOrReplaceTempView("d")
        try:
            expected: Any = [tuple(row) for row in spark.sql(sql).collect()]
        except PySparkException as exc:
            expected = ("error", exc.getCondition())
        for engine in ("duckdb", "spark"):
            con = vpush.connect(engine=engine, spark=spark if engine == "spark" else None, time_zone=zone)
            con.register("d", table)
            got = _answer(lambda: [tuple(row.values()) for row in con.sql(sql).to_arrow().to_pylist()])
            assert got == expected, engine
    finally:  # the Spark engine sets the session's time zone too
        spark.conf.set("spark.sql.session.timeZone", previous or "UTC")
