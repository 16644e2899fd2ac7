"""Variant timestamps, dates and local times through Spark's datetime functions in session time
zones other than UTC, on both engines, against PySpark over the same files.

The differential suite runs in UTC; here the session is America/Los_Angeles (whole-hour daylight
saving), Australia/Lord_Howe (a half-hour change), Asia/Kolkata (a half-hour offset, no
change) and the fixed offset +05:30 (which vpush refused: DuckDB knows it as GMT+05:30). The values sit on either side of each zone's changes: instants in the repeated hour of
a fall-back night, local times in a gap and in an overlap. The files are Spark's (shredded as
``timestamp``, with the other values in residuals) and vpush's (shredded as ``timestamp_ntz``,
from Spark's unshredded values).
One query per zone and engine computes every column of the batch.
"""
from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow.parquet as pq
import pytest

import vpush
from differential.harness import Batch, compare, spark_answer, vpush_answer
from support.writers import write_with_spark
from vpush.codec.shred import write_shredded_parquet

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

VALUES = [
    ("la_fall_first", "cast(TIMESTAMP'2024-11-03 08:30:00' AS variant)"),  # 01:30 PDT
    ("la_fall_second", "cast(TIMESTAMP'2024-11-03 09:30:00' AS variant)"),  # 01:30 PST
    ("la_spring", "cast(TIMESTAMP'2024-03-10 10:15:00' AS variant)"),
    ("lh_end_first", "cast(TIMESTAMP'2024-04-06 14:45:00' AS variant)"),  # 01:45 +11
    ("lh_end_second", "cast(TIMESTAMP'2024-04-06 15:15:00' AS variant)"),  # 01:45 +10:30
    ("lh_start", "cast(TIMESTAMP'2024-10-05 15:45:00' AS variant)"),  # 02:45 +11
    ("negative_fraction", "cast(TIMESTAMP'1969-12-31 23:59:58.5' AS variant)"),
    ("last_microsecond", "cast(TIMESTAMP'9999-12-29 23:59:59.999999' AS variant)"),
    ("ntz_la_overlap", "cast(TIMESTAMP_NTZ'2024-11-03 01:30:00' AS variant)"),
    ("ntz_la_gap", "cast(TIMESTAMP_NTZ'2024-03-10 02:30:00' AS variant)"),
    ("ntz_lh_overlap", "cast(TIMESTAMP_NTZ'2024-04-07 01:45:00' AS variant)"),
    ("ntz_lh_gap", "cast(TIMESTAMP_NTZ'2024-10-06 02:15:00' AS variant)"),
    ("date", "cast(DATE'2024-11-03' AS variant)"),
    ("string_overlap", "cast('2024-11-03 01:30:00' AS variant)"),
    ("string_lh_overlap", "cast('2024-04-07 01:45' AS variant)"),
    ("variant_null", "parse_json('null')"),
    ("sql_null", "NULL"),
]
SELECT = "SELECT label, x AS v FROM VALUES " + ", ".join(f"('{label}', {expr})" for label, expr in VALUES) + " AS vals(label, x)"
ZONES = ["America/Los_Angeles", "Australia/Lord_Howe", "Asia/Kolkata", "+05:30"]

TS = "try_cast(v AS timestamp)"
NTZ = "try_cast(v AS timestamp_ntz)"


def _back(micros: int) -> str:
    """The row's timestamp ``micros`` microseconds earlier (the instant, no calendar)."""
    return f"timestamp_micros(CAST(unix_micros({TS}) - {micros} AS BIGINT))"


def _instants(timestamps: str) -> str:
    """An array of timestamps as the text of their microseconds (an overlap's two offsets apart)."""
    return f"array_join(transform({timestamps}, e -> CAST(unix_micros(e) AS STRING)), ',')"


# a zone per row, NULL for some
ZONE_COLUMN = "CASE WHEN label LIKE 'lh%' THEN 'Australia/Lord_Howe' WHEN label LIKE '%null' THEN NULL ELSE 'America/Los_Angeles' END"
BATCH = Batch(
    "session_time_zones",
    ("label",),
    "zones",
    {
        # DuckDB cut a time in a fall-back overlap to the later offset's hour; java.time keeps the offset.
        "date_trunc": tuple(
            (f"t_{unit.lower()}", f"date_trunc('{unit}', {TS})")
            for unit in ("SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR")
        )
        + (("t_ntz_hour", f"date_trunc('HOUR', {NTZ})"), ("t_date_week", "date_trunc('WEEK', try_cast(v AS date))")),
        # DuckDB's implicit cast of a timestamp_ntz took an overlap's later offset.
        "compared_with_ntz": (
            ("eq", f"{TS} = TIMESTAMP_NTZ'2024-11-03 01:30:00'"),
            ("gt", f"{NTZ} > TIMESTAMP'2024-04-07 01:45:00'"),
            ("between", f"{TS} BETWEEN TIMESTAMP_NTZ'2024-04-07 01:45:00' AND TIMESTAMP_NTZ'2024-04-07 01:45:00'"),
            ("in_list", f"{NTZ} IN (TIMESTAMP'2024-11-03 08:30:00Z')"),
        ),
        # date_add of a timestamp was a timestamp; unix_timestamp rounded down through a double.
        "days_and_seconds": (
            ("plus_day", f"date_add({TS}, 1)"),
            ("minus_day", f"date_sub({NTZ}, 1)"),
            ("unix", f"unix_timestamp({TS})"),
        ),
        # from_utc_timestamp / to_utc_timestamp were refused on DuckDB.
        "utc_shifts": (
            ("from_kolkata", f"from_utc_timestamp({TS}, 'Asia/Kolkata')"),
            ("to_la", f"to_utc_timestamp({TS}, 'America/Los_Angeles')"),
            ("from_lord_howe", f"from_utc_timestamp({NTZ}, 'Australia/Lord_Howe')"),
            ("to_lord_howe", f"to_utc_timestamp({NTZ}, 'Australia/Lord_Howe')"),
            ("to_offset", f"to_utc_timestamp({TS}, '+05:30')"),
            ("from_string", "from_utc_timestamp(try_cast(v AS string), 'America/Los_Angeles')"),
            ("to_date", "to_utc_timestamp(try_cast(v AS date), 'Australia/Lord_Howe')"),
            ("from_column_zone", f"from_utc_timestamp({TS}, {ZONE_COLUMN})"),
            ("to_column_zone", f"to_utc_timestamp({NTZ}, {ZONE_COLUMN})"),
            ("to_null_zone", f"to_utc_timestamp({TS}, NULL)"),
        ),
        # sequence by days, months or the default day was refused where the offset changes; each
        # starts or ends at the row's instant (an overlap's either offset, a gap's edge), two days
        # and two hours (or 92 days) from the other end
        "sequences": (
            ("seq_days_up", _instants(f"sequence({_back(180000000000)}, {TS}, INTERVAL 1 DAY)")),
            ("seq_days_down", _instants(f"sequence({TS}, {_back(180000000000)}, INTERVAL -1 DAY)")),
            ("seq_default", _instants(f"sequence({TS}, {_back(180000000000)})")),
            ("seq_months", _instants(f"sequence({TS}, {_back(7948800000000)}, INTERVAL -1 MONTH)")),
            ("seq_day_hours", _instants(f"sequence({_back(180000000000)}, {TS}, INTERVAL 1 DAY 1 HOUR)")),
        ),
        "fields": (
            ("h", f"hour({TS})"),
            ("text", f"cast({TS} AS string)"),
            ("d", f"cast({TS} AS date)"),
            ("f", f"date_format({TS}, 'yyyy-MM-dd HH:mm:ss')"),
            ("ntz", f"cast({NTZ} AS timestamp)"),
            ("in_array", f"cast(array({TS}, NULL) AS string)"),
            ("ntz_in_map", f"cast(map('k', {NTZ}) AS string)"),
        ),
        # a zoned literal's instant in an overlap's later hour (01:30 PST, 01:45 +10:30) was the
        # earlier hour's on DuckDB; TIMESTAMP_NTZ drops its zone
        "zoned_literals": (
            ("lit_pst", "unix_micros(TIMESTAMP'2024-11-03 01:30:00 -08:00')"),
            ("lit_pdt", "unix_micros(TIMESTAMP_LTZ'2024-11-03 01:30:00-07:00')"),
            ("lit_utc", "TIMESTAMP'2024-11-03 09:30:00 UTC'"),
            ("lit_region", "unix_micros(TIMESTAMP'2024-11-03 04:30:00.5 America/New_York')"),
            ("lit_gmt", "TIMESTAMP'2024-11-03 10:30:00 GMT+1'"),
            ("lit_kolkata", "unix_micros(TIMESTAMP'2024-03-10 02:30:00 +0530')"),
            ("lit_gap", "unix_micros(TIMESTAMP'2024-03-10 02:30:00')"),
            ("lit_lh", "TIMESTAMP'2024-04-06 15:15:00Z'"),
            ("lit_ntz", "TIMESTAMP_NTZ'2024-11-03 01:30:00 -08:00'"),
            ("cast_offset", "CAST('2024-11-03 01:30:00 -08:00' AS TIMESTAMP)"),
        ),
        # unix_micros(...) - n (a bigint) and a timestamp_ntz minus an interval had no type on
        # DuckDB, so the calls around them were refused
        "untyped_arithmetic": (
            ("micros_back", f"timestamp_micros(unix_micros({TS}) - 180000000000)"),
            ("ntz_back", f"hour({NTZ} - INTERVAL 50 HOURS)"),
            ("ntz_back_type", f"typeof({NTZ} - INTERVAL 50 HOURS)"),
            ("seconds_type", f"typeof(unix_seconds({TS}) - 1)"),
        ),
    },
)


@pytest.fixture(scope="module")
def zone_tables(tmp_path_factory: pytest.TempPathFactory, spark: SparkSession) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("zones")
    folder = root / "zones"
    folder.mkdir()
    unshredded = write_with_spark(spark, root / "unshredded", SELECT, None)[0]
    write_shredded_parquet(pq.read_table(unshredded), folder / "vpush.parquet", {"v": "timestamp_ntz"}, row_group_size=5)
    files = write_with_spark(spark, root / "staging", f"SELECT * FROM parquet.`{unshredded}`", "timestamp", row_group_size_rows=6)
    shutil.move(str(files[0]), folder / "spark.parquet")
    return {"zones": folder}


@pytest.fixture(scope="module")
def zone_views(spark: SparkSession, zone_tables: dict[str, Path]) -> dict[str, DataFrame]:
    return {name: spark.read.parquet(str(folder)) for name, folder in zone_tables.items()}


@pytest.fixture
def session_zone(spark: SparkSession) -> Iterator[None]:
    """The test session is left in UTC whatever a test sets."""
    yield
    spark.conf.set("spark.sql.session.timeZone", "UTC")


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize("zone", ZONES)
def test_session_time_zone(
    spark: SparkSession, zone_tables: dict[str, Path], zone_views: dict[str, DataFrame], session_zone: None,
    zone: str, engine: str,
) -> None:
    """The batch's every column gives Spark's answer in the session time zone ``zone`` (one query
    on each side: a failure names the column)."""
    sql = BATCH.wide()
    want = spark_answer(spark, zone_views, sql, time_zone=zone)
    con = vpush.connect(engine="spark", spark=spark, time_zone=zone) if engine == "spark" else vpush.connect(time_zone=zone)
    for name, folder in zone_tables.items():
        con.register(name, folder)
    compare(vpush_answer(con, sql), want, sql)


@pytest.mark.parametrize("zone", ["UTC+05:30", "-8", "Z", "PST", "IST"])
def test_zone_names_spark_accepts(
    spark: SparkSession, zone_tables: dict[str, Path], zone_views: dict[str, DataFrame], zone: str,
) -> None:
    """Every zone name Spark's session takes (offsets in its forms, Java's short ids) is a vpush
    session zone giving Spark's answer; vpush took IANA names only ('unknown time zone')."""
    sql = BATCH.query("fields")
    want = spark_answer(spark, zone_views, sql, time_zone=zone)
    con = vpush.connect(time_zone=zone)
    for name, folder in zone_tables.items():
        con.register(name, folder)
    compare(vpush_answer(con, sql), want, sql)


def test_spark_engine_labels_and_checks_its_zone(
    spark: SparkSession, zone_tables: dict[str, Path], session_zone: None,
) -> None:
    """On the Spark engine a result without rows is labelled in the session zone, as one with
    rows (PySpark labels it UTC); and a session zone changed after connect() is refused, where
    the scans (in the connection's zone) and Spark's SQL (in the session's) would mix two."""
    con = vpush.connect(engine="spark", spark=spark, time_zone="America/Los_Angeles")
    for name, folder in zone_tables.items():
        con.register(name, folder)
    empty = con.sql(f"SELECT {TS} AS t FROM zones WHERE label = 'none'").to_arrow()
    assert empty.num_rows == 0 and empty.schema.field("t").type.tz == "America/Los_Angeles"
    spark.conf.set("spark.sql.session.timeZone", "Asia/Kolkata")
    with pytest.raises(vpush.VpushError, match="time zone is now 'Asia/Kolkata'"):
        con.sql(f"SELECT hour({TS}) AS h FROM zones").to_arrow()


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_zoned_literals_named_in_the_session_zone(spark: SparkSession, session_zone: None, engine: str) -> None:
    """A zoned literal is named after its local time in the session zone, without the offset
    that tells an overlap's later hour (vpush printed that literal as DuckDB SQL); a gap's time is
    named after the time java.time moves it to; TIMESTAMP_NTZ drops its zone."""
    sql = (
        "SELECT TIMESTAMP'2024-11-03 01:30:00 -08:00', unix_micros(TIMESTAMP'2024-11-03 09:30:00.5Z'), "
        "TIMESTAMP'2024-03-10 02:30:00', TIMESTAMP_NTZ'2024-11-03 01:30:00 UTC', TIMESTAMP'2024-11-03 01:30:00 -07:00'"
    )
    want = spark_answer(spark, {}, sql, time_zone="America/Los_Angeles")
    zone = "America/Los_Angeles"
    con = vpush.connect(engine="spark", spark=spark, time_zone=zone) if engine == "spark" else vpush.connect(time_zone=zone)
    compare(vpush_answer(con, sql), want, sql)
