"""The ``vpush`` command: query, explain and errors, run as a user runs it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow.parquet as pq
import pytest

from vpush.cli import main

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CASES = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "parquet-testing" / "shredded_variant"


def test_query_jsonl_writes_variants_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["query", "-t", f"t={CASES / 'case-046.parquet'}", "--format", "jsonl", "SELECT id, var FROM t"])
    assert code == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows == [{"id": 1, "var": {"a": None, "b": ""}}], "a variant written as a JSON value, as Spark's df.write.json"


def test_query_table_names_types_as_spark(capsys: pytest.CaptureFixture[str]) -> None:
    sql = "SELECT id, count(*) OVER () AS n, var, NULL AS z, CAST(1.5 AS decimal(4, 2)) AS d FROM t"
    assert main(["query", "-t", f"t={CASES / 'case-046.parquet'}", sql]) == 0
    header = capsys.readouterr().out.splitlines()[2]
    assert header.split()[1::2] == ["int", "bigint", "variant", "void", "decimal(4,2)"], header


def test_query_parquet_output_keeps_variant_struct(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    code = main(["query", "-t", f"t={CASES / 'case-046.parquet'}", "--format", "parquet", "-o", str(out), "SELECT var FROM t"])
    assert code == 0
    assert pq.read_schema(out).field("var").type.names == ["metadata", "value"]


def test_query_from_file_and_explain(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sql = tmp_path / "q.sql"
    sql.write_text("SELECT count(*) AS n FROM t")
    assert main(["query", "-t", f"t={CASES / 'case-046.parquet'}", "--format", "csv", "-f", str(sql)]) == 0
    assert capsys.readouterr().out.split() == ["n", "1"]
    assert main(["explain", "-t", f"t={CASES / 'case-046.parquet'}", "SELECT var FROM t"]) == 0
    assert "columns read: var" in capsys.readouterr().out


def test_rewrite_prints_the_duckdb_sql(capsys: pytest.CaptureFixture[str]) -> None:
    table = f"t={CASES / 'case-046.parquet'}"
    assert main(["rewrite", "-t", table, "SELECT var:b::string AS b FROM t"]) == 0
    out = capsys.readouterr().out
    # b has no residual in the file (its footer proves value all-null): a cast of the typed leaf.
    assert 'CAST("var.typed_value.b.typed_value" AS TEXT) AS "__vpush_0_x0"' in out


def test_rewrite_for_spark_is_a_script_that_spark_submit_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The script runs as written with spark-submit on a local master, and prints the answer."""
    import os
    import shutil

    table = f"t={CASES / 'case-046.parquet'}"
    assert main(["rewrite", "--dialect", "spark", "-t", table, "SELECT id, var:b::string AS b FROM t"]) == 0
    script = tmp_path / "job.py"
    script.write_text(capsys.readouterr().out)
    submit = Path(sys.executable).parent / "spark-submit"
    assert submit.exists() or shutil.which("spark-submit")
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    done = subprocess.run(
        [str(submit) if submit.exists() else "spark-submit", "--master", "local[2]", "--conf", "spark.ui.enabled=false", str(script)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "|id |b  |" in done.stdout and "|1  |   |" in done.stdout, done.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["query", "-t", "t=/no/such/dir", "SELECT 1"], "no such file or folder"),
        (["query", "SELECT x FROM missing"], "TABLE_OR_VIEW_NOT_FOUND"),
        (["query", "SELECT FROM WHERE"], "PARSE_SYNTAX_ERROR"),
        (["query", "-t", f"t={CASES / 'case-127.parquet'}", "SELECT var FROM t"], "case-127.parquet"),
        (["query", "-t", f"t={CASES / 'case-046.parquet'}", "SELECT variant_get(var, '$.b', 'int') FROM t"],
         "INVALID_VARIANT_CAST"),
    ],
)
def test_errors_are_one_line_with_exit_code_1(argv: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, "-m", "vpush.cli", *argv], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vpush: error:"), done.stderr
    assert message in lines[0]


def test_bad_command_line_exits_2() -> None:
    assert main(["query", "--format", "xml", "SELECT 1"]) == 2


def test_query_shows_progress_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """On a terminal, the scan's rows drive a progress bar on stderr; the result is the same."""
    import vpush
    from vpush import cli
    from vpush.sample import EventsSpec, write_events

    write_events(tmp_path / "events", EventsSpec(rows=8192, files=2, row_group_rows=2048))
    seen: list[tuple[int, int]] = []
    real = cli._progress_callback

    def recording(total: int, what: str = "") -> tuple[object, object]:
        update, stop = real(total, what)
        assert update is not None

        def record(done: int, total: int) -> None:
            seen.append((done, total))
            update(done, total)

        return record, stop

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr(cli, "_progress_callback", recording)
    sql = "SELECT count(*) AS n, sum(event:amount::decimal(10,2)) AS s FROM events WHERE id >= 2048"
    assert main(["query", "-t", f"events={tmp_path / 'events'}", "--format", "csv", sql]) == 0
    out = capsys.readouterr().out
    con = vpush.connect(time_zone="UTC")
    con.register("events", tmp_path / "events")
    expected = con.sql(sql).to_arrow().to_pylist()[0]
    assert out.split()[1].split(",")[0] == str(expected["n"])
    assert seen and seen[-1] == (6144, 6144), "the bar ends at the rows of the row groups kept by pruning"


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2,000 sample events written by DuckDB (``vpush sample``), snappy-compressed."""
    folder = tmp_path_factory.mktemp("events") / "events"
    assert main(["sample", "events", str(folder), "--rows", "2000"]) == 0
    return folder


def _vpush(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vpush.cli", *argv], capture_output=True, text=True, timeout=300)


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vpush: error:"), done.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("empty folder", "the folder holds no data files"),
        ("glob", "the glob matches no files"),
        ("zero bytes", "Parquet file size is 0 bytes"),
        ("cut in the footer", "not a readable Parquet file"),
        ("cut in a column chunk", "not a readable Parquet file"),
        ("flipped page", "column event.value"),
    ],
)
def test_unreadable_tables_are_one_line_naming_the_file(events: Path, tmp_path: Path, damage: str, message: str) -> None:
    """Files a table cannot be read from: exit code 1 and one line that names the file."""
    source = next(events.glob("*.parquet"))
    good = source.read_bytes()
    folder = tmp_path / "t"
    folder.mkdir()
    target = str(folder)
    chunk = pq.ParquetFile(source).metadata.row_group(0).column(2)  # event.value
    assert chunk.path_in_schema == "event.value" and chunk.compression == "SNAPPY"
    if damage == "glob":
        target = str(folder / "*.nope")
    elif damage == "zero bytes":
        (folder / "a.parquet").write_bytes(b"")
    elif damage == "cut in the footer":
        (folder / "a.parquet").write_bytes(good[:-20])
    elif damage == "cut in a column chunk":
        (folder / "a.parquet").write_bytes(good[: chunk.data_page_offset + 100])
    elif damage == "flipped page":
        start = chunk.data_page_offset + 200
        (folder / "a.parquet").write_bytes(good[:start] + bytes(b ^ 0xFF for b in good[start : start + 16]) + good[start + 16 :])
    done = _vpush("query", "-t", f"t={target}", "SELECT count(*), max(to_json(event)) FROM t")
    assert done.returncode == 1, done.stderr
    line = _one_line(done)
    assert message in line and str(folder) in line, line


def test_files_of_the_command_itself_exit_3(events: Path, tmp_path: Path) -> None:
    """A query file that is not there, an output that cannot be written: an I/O error, code 3."""
    missing = tmp_path / "no" / "query.sql"
    done = _vpush("query", "-t", f"t={events}", "-f", str(missing))
    assert done.returncode == 3 and str(missing) in _one_line(done)
    for fmt in ("csv", "parquet"):
        out = tmp_path / "no" / f"out.{fmt}"
        done = _vpush("query", "-t", f"t={events}", "--format", fmt, "-o", str(out), "SELECT id FROM t")
        assert done.returncode == 3 and str(out) in _one_line(done), done.stderr


def test_exit_codes_are_listed_by_help() -> None:
    done = _vpush("--help")
    assert done.returncode == 0
    for code in ("0", "1", "2", "3", "130", "141"):
        assert f"\n  {code} " in done.stdout, done.stdout


def test_a_closed_pipe_stops_quietly(events: Path) -> None:
    """``vpush query ... | head -c 1``: no traceback, no error line; 141 as for SIGPIPE."""
    sql = "SELECT a.id, to_json(a.event) AS j FROM t a, t b WHERE b.id < 50"  # 100,000 rows, past a pipe's buffer
    for fmt in ("csv", "jsonl", "table"):
        reader = subprocess.Popen(["head", "-c", "1"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        assert reader.stdin is not None
        done = subprocess.run(
            [sys.executable, "-m", "vpush.cli", "query", "--format", fmt, "--limit", "3000", "-t", f"t={events}", sql],
            stdout=reader.stdin, stderr=subprocess.PIPE, text=True, timeout=300,
        )
        reader.stdin.close()
        reader.wait()
        assert done.returncode == 141 and done.stderr == "", (fmt, done.returncode, done.stderr)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT count(*), max(to_json(a.event)) FROM t a, t b, t c",  # in vpush's function, called by DuckDB
        "SELECT count(*) FROM t a, t b, t c WHERE a.id + b.id + c.id = -1",  # in DuckDB's own join
    ],
)
def test_ctrl_c_during_a_query_exits_130(events: Path, sql: str) -> None:
    """SIGINT while the query runs: 'vpush: interrupted' and code 130 at once, in DuckDB's own
    join (which looks at no signal) and in vpush's function (where DuckDB would turn the
    KeyboardInterrupt into an error of its own)."""
    import signal
    import time

    running = subprocess.Popen(
        [sys.executable, "-m", "vpush.cli", "query", "-t", f"t={events}", sql],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    time.sleep(5)
    assert running.poll() is None, "the query ended before the signal"
    running.send_signal(signal.SIGINT)
    _, err = running.communicate(timeout=20)
    assert running.returncode == 130 and err.strip() == "vpush: interrupted", (running.returncode, err)


# Every type Spark's CSV writer takes, and values its writer quotes, trims or escapes.
WRITER_ATOMS = """SELECT 1 AS i, CAST(1.50 AS decimal(10,2)) AS d, 1.0E10 AS dbl, 123456789.125D AS big, CAST(0.1 AS float) AS f,
 double('NaN') AS nan, double('-Infinity') AS ninf, CAST(-0.0 AS double) AS negzero, CAST(1E-8 AS decimal(20,10)) AS small,
 TIMESTAMP'2024-03-10 10:30:00.123456' AS ts, TIMESTAMP'1900-01-01 00:00:00' AS old_ts, TIMESTAMP_NTZ'2024-03-10 02:30:00' AS ntz,
 DATE'2024-03-10' AS dt, X'0102ff' AS bin, X'' AS nobytes, true AS b, CAST(5 AS tinyint) AS ti, CAST(NULL AS string) AS nul, s AS `we,ird "name`
 FROM VALUES ('a,b'), ('a"b'), ('a\\nb'), (' x '), ('\\tx'), ('a\\\\"b'), (''), ('   '), ('#x'), ('end\\\\'), ('é') AS t(s)"""
# Variants (a variant null and SQL NULL), arrays, structs, maps and binaries inside: JSON only
WRITER_NESTED = """SELECT id, event:ts::timestamp AS ts, event:amount::double AS amount, event:tags AS tags, event:device AS device,
 event:nope AS nope, parse_json('null') AS vnull, array(X'01', NULL) AS bins, map('k', event:amount::decimal(10,2)) AS m,
 named_struct('a', CAST(NULL AS int), 'b', array(event:ts::timestamp_ntz)) AS st
 FROM events WHERE id < 6"""


def _spark_writes(spark: SparkSession, sql: str, fmt: str, folder: Path, zone: str) -> str:
    """What Spark's ``df.write.csv`` (with a header) or ``df.write.json`` writes for ``sql``."""
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        writer = spark.sql(sql).coalesce(1).write.mode("overwrite")
        target = str(folder / f"{fmt}-{zone.replace('/', '_')}")
        writer.option("header", "true").csv(target) if fmt == "csv" else writer.json(target)
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    return "".join(p.read_text(encoding="utf-8") for p in sorted(Path(target).glob("part-*")))


@pytest.mark.parametrize("zone", ["UTC", "America/Los_Angeles", "Asia/Kolkata"])
def test_csv_and_jsonl_are_what_spark_writes(
    spark: SparkSession, events: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], zone: str,
) -> None:
    """``--format csv`` is Spark's ``df.write.csv`` with a header, ``--format jsonl`` its
    ``df.write.json``, in the session time zone: pandas' writers had lost NaN in CSV (an empty
    field), cut doubles to 10 digits and written decimals as strings, timestamps in UTC and
    variants as strings in JSON, and failed on a binary."""
    spark.read.parquet(str(events)).createOrReplaceTempView("events")
    cases = [(WRITER_ATOMS, "csv"), (WRITER_ATOMS, "jsonl"), (WRITER_NESTED, "jsonl")]
    for sql, fmt in cases:
        ordered = f"{sql} ORDER BY `we,ird \"name`" if sql is WRITER_ATOMS else f"{sql} ORDER BY id"
        want = _spark_writes(spark, ordered, "csv" if fmt == "csv" else "json", tmp_path, zone)
        assert main(["query", "--time-zone", zone, "-t", f"events={events}", "--format", fmt, ordered]) == 0
        assert capsys.readouterr().out == want, f"{fmt}: {ordered}"


def test_a_row_of_one_null_is_left_out_of_csv_as_spark(spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spark's CSV writer (Univocity) skips the empty line of a row whose one column is NULL; a
    row of several NULLs is written (``,``), an empty string as ``""``. vpush wrote the empty line."""
    for sql in ("SELECT * FROM VALUES (1), (NULL), (2) AS t(x)", "SELECT * FROM VALUES ('a'), (''), (NULL) AS t(s)",
                "SELECT * FROM VALUES (1, 'a'), (NULL, NULL) AS t(x, y)", "SELECT INTERVAL '1' DAY * x AS d FROM VALUES (1), (NULL) AS t(x)"):
        want = _spark_writes(spark, sql, "csv", tmp_path, "UTC")
        assert main(["query", "--time-zone", "UTC", "--format", "csv", sql]) == 0
        assert capsys.readouterr().out == want, sql


def test_jsonl_refuses_duplicate_names_as_spark(capsys: pytest.CaptureFixture[str]) -> None:
    """Spark's JSON writer raises COLUMN_ALREADY_EXISTS for two columns named alike in any case
    (the CSV writer takes them); pandas raised a ValueError, a traceback."""
    assert main(["query", "--format", "jsonl", "SELECT 1 AS a, 2 AS A"]) == 1
    assert "[COLUMN_ALREADY_EXISTS] The column `a` already exists" in capsys.readouterr().err
    assert main(["query", "--format", "csv", "SELECT 1 AS a, 2 AS a"]) == 0
    assert capsys.readouterr().out == "a,a\n1,2\n"
    assert main(["query", "--format", "jsonl", "SELECT 1 AS a WHERE false"]) == 0
    assert capsys.readouterr().out == ""


def test_parquet_output_reads_back_in_spark_as_the_query(spark: SparkSession, events: Path, tmp_path: Path) -> None:
    """``--format parquet`` annotates variant columns (a variant null and SQL NULL kept apart),
    so that Spark reads the file back with the query's own types and rows."""
    spark.read.parquet(str(events)).createOrReplaceTempView("events")
    sql = WRITER_NESTED.replace("FROM events", ", CAST(NULL AS variant) AS vsql FROM events")
    out = tmp_path / "out.parquet"
    assert main(["query", "--time-zone", "UTC", "-t", f"events={events}", "--format", "parquet", "-o", str(out), sql]) == 0
    back, want = spark.read.parquet(str(out)), spark.sql(sql)
    assert back.schema.simpleString() == want.schema.simpleString()
    as_json = [f"to_json({c})" if t == "variant" else c for c, t in want.dtypes]
    assert sorted(map(str, back.selectExpr(*as_json).collect())) == sorted(map(str, want.selectExpr(*as_json).collect()))


# Interval columns of every type: negative, zero, fractional seconds, NULL, the year-month
# extremes, differences of timestamps and of dates (through a UNION ALL subquery) and of a
# variant's time; the day-time extremes on the Spark engine only (DuckDB's Arrow export of an
# interval of microseconds overflows past about 292 years: see README)
WRITER_INTERVALS = """SELECT k, INTERVAL '1' DAY AS d, -INTERVAL '1-2' YEAR TO MONTH AS ym, INTERVAL '3' YEAR AS y,
 INTERVAL '14' MONTH AS m, CASE WHEN k = 2 THEN NULL ELSE INTERVAL '3 04:05:06.789' DAY TO SECOND END AS dts,
 INTERVAL 1 DAY 2 HOURS AS dth, INTERVAL '1 02:03' DAY TO MINUTE AS dtm, INTERVAL '02:03' HOUR TO MINUTE AS htm,
 INTERVAL '02:03:04.5' HOUR TO SECOND AS hts, INTERVAL '03:04.000001' MINUTE TO SECOND AS mts, INTERVAL '25' HOUR AS h,
 -INTERVAL '90' MINUTE AS mi, INTERVAL '1.5' SECOND AS s, INTERVAL '-0.000001' SECOND AS ns, INTERVAL '0' SECOND AS zs,
 INTERVAL '1000000' SECOND AS bigs, CAST(NULL AS INTERVAL DAY) AS nulld,
 INTERVAL '-178956970-8' YEAR TO MONTH AS minym, INTERVAL '178956970-7' YEAR TO MONTH AS maxym,
 a - b AS tsdiff, CAST(da AS DATE) - CAST(db AS DATE) AS datediff, INTERVAL '1' DAY * k + INTERVAL '2' HOUR AS widened
 FROM (SELECT 1 AS k, TIMESTAMP'2024-01-02 03:04:05.5' AS a, TIMESTAMP'2024-01-01 00:00:00' AS b, DATE'2024-03-01' AS da,
       DATE'2024-01-01' AS db
       UNION ALL SELECT 2, TIMESTAMP'2024-01-01 00:00:00', TIMESTAMP'2024-01-02 03:04:05.5', DATE'2024-01-01', DATE'2024-03-01'
       UNION ALL SELECT 3, TIMESTAMP'2024-01-01 00:00:00', NULL, DATE'2024-01-01', DATE'2024-01-01')
 ORDER BY k"""


def test_interval_columns_as_spark_writes_them(
    spark: SparkSession, events: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """Spark's df.write.csv / df.write.json write an interval as Spark's text of it, by its type's
    fields (INTERVAL '1' DAY, INTERVAL '1 03:04:05.5' DAY TO SECOND, INTERVAL '-1-2' YEAR TO MONTH),
    and so does vpush on both engines: the result's duration no longer says the fields, the plan
    (or Spark's DataFrame) tags the column with its type. A year-month interval, which Spark's
    toArrow refuses, is written too."""
    from vpush import connect
    from vpush.exec.format_rows import format_rows

    spark.read.parquet(str(events)).createOrReplaceTempView("events")
    variant_time = ("SELECT id, event:ts::timestamp - TIMESTAMP'2024-01-01 00:00:00' AS since, "
                    "to_date(event:ts::timestamp) - DATE'2024-01-01' AS days FROM events WHERE id < 4 ORDER BY id")
    extremes = ("SELECT INTERVAL '-106751991 04:00:54.775808' DAY TO SECOND AS mindt, "
                "INTERVAL '106751991 04:00:54.775807' DAY TO SECOND AS maxdt, INTERVAL '-2562047788:00:54.775808' HOUR TO SECOND AS minh")
    on_spark = connect(engine="spark", spark=spark)
    on_spark.register("events", str(events))
    for sql in (WRITER_INTERVALS, variant_time, extremes):
        for fmt in ("csv", "jsonl"):
            want = _spark_writes(spark, sql, "csv" if fmt == "csv" else "json", tmp_path, "UTC")
            if sql is not extremes:
                assert main(["query", "--time-zone", "UTC", "-t", f"events={events}", "--format", fmt, sql]) == 0
                assert capsys.readouterr().out == want, f"{fmt}: {sql}"
            result = on_spark.sql(sql).fetch_reader(year_month_intervals=True).read_all()
            assert "".join(format_rows(result, fmt, time_zone="UTC")) == want, f"spark engine, {fmt}: {sql}"


def test_interval_columns_in_a_table_as_spark_shows_them(
    spark: SparkSession, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--format table`` (as ``show()``) prints an interval as Spark's ``show()`` does, headed by
    its type; Python's text of a timedelta (``1 day, 3:04:05.500000``) was printed before."""
    sql = ("SELECT INTERVAL '1' DAY AS d, INTERVAL '-1-2' YEAR TO MONTH AS y, "
           "TIMESTAMP'2024-01-02 03:04:05.5' - TIMESTAMP'2024-01-01 00:00:00' AS t")
    shown = spark.sql(sql)._jdf.showString(20, 0, False)
    cells = [c.strip() for c in shown.splitlines()[3].strip("|").split("|")]
    assert cells == ["INTERVAL '1' DAY", "INTERVAL '-1-2' YEAR TO MONTH", "INTERVAL '1 03:04:05.5' DAY TO SECOND"], shown
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["query", "--time-zone", "UTC", "--format", "table", sql]) == 0
    out = capsys.readouterr().out
    for cell in cells:
        assert f"│ {cell} " in out, out
    for type_name in ("interval day", "interval year to month", "interval day to second"):
        assert f"│ {type_name} " in out or f"┃ {type_name} " in out, out
