"""Reconstruction and codec throughput: rebuilding the Variant column, extracting one path and
rendering ``to_json``, on vpush, DuckDB and PySpark reading the same file, side by side in one run.

    .venv/bin/python bench/codec.py [--rows 1000000] [--repeat 5] [--dir build/bench/codec]
        [--out docs/bench] [--skip-spark]

The file is ``vpush sample events`` in one file (with the unshredded payload), generated once
under ``--dir`` and reused. Each figure is the median of ``--repeat`` runs after one warm-up, in
rows per second (PySpark, whose runs take seconds, runs 3, and so does a DuckDB line whose
warm-up takes over 2 s). Per operation:

- rebuild: vpush through the public API (``SELECT event FROM t`` -> Arrow); vpush's parts apart:
  ``pyarrow.parquet.read_table`` of the column then the compiled kernel ``unshred_native`` (row
  groups in parallel), the kernel alone on the column in memory, and the pure-Python reference
  ``unshred`` on a 50k-row slice; DuckDB ``variant_to_parquet_variant(event)`` -> Arrow (returns
  what vpush returns) and ``count(variant_typeof(event))`` (its cheapest query that builds every
  variant; the codec issue's baseline); Spark ``SELECT event`` into the ``noop`` sink (every row
  rebuilt in the JVM, nothing sent to Python);
- extraction of one path, a shredded one (``$.user.id`` as bigint) and one inside the
  unshredded ``payload`` (``$.payload.referrer`` as string): vpush ``variant_get`` -> Arrow,
  DuckDB ``TRY_CAST(event.path AS type)`` -> Arrow, Spark ``variant_get`` into ``noop``;
- ``to_json(event)``: vpush -> Arrow, DuckDB ``CAST(event AS JSON)`` -> Arrow, Spark into ``noop``.

Answers: vpush's rebuilt rows are compared with its pure-Python reference (the slice) and, by
value, with DuckDB's reading (the first 2,000 rows); each extraction and ``to_json`` is compared
with Spark's by the count of non-null values and the sum of their lengths as text (DuckDB's too,
except its JSON, whose timestamps read ``+00`` where Spark's read ``+00:00``).

The goal (the codec issue): vpush's read plus reconstruction at least half of DuckDB's
throughput. The exit status is 0 when it holds and every answer agrees. Results go to
``--out``/codec.md and codec.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import vpush
from common import (
    BYTES_PER_MB,
    LazySpark,
    Runner,
    ensure_events,
    events_folder_name,
    first_line,
    make_console,
    markdown_table,
    measure_interleaved,
    part_files,
    print_notes,
    print_table,
    versions as run_versions,
)
from vpush.codec.layout import find_variant_columns
from vpush.codec.native import unshred_native
from vpush.codec.unshred import unshred
from vpush.codec.value import Variant, variant_equal

COLUMN = "event"
PYTHON_SLICE_ROWS = 50_000
CHECKED_ROWS = 2_000
TARGET_RATIO = 0.5
SPARK_REPEAT = 3
SLOW_SECONDS, SLOW_REPEAT = 2.0, 3  # a DuckDB line whose warm-up takes longer runs 3 times
SPARK_CONF = {"spark.driver.memory": "2g", "spark.sql.session.timeZone": "UTC"}
PATHS = (("$.user.id", "bigint", "user.id", "BIGINT"), ("$.payload.referrer", "string", "payload.referrer", "VARCHAR"))
"""Extractions: Spark's path and type, DuckDB's path and type."""


@dataclass
class Line:
    operation: str
    engine: str
    what: str
    rows: int
    seconds: float | None = None
    runs: int = 0
    check: str = ""
    agrees: bool | None = None
    error: str | None = None

    @property
    def rate(self) -> float | None:
        return self.rows / self.seconds if self.seconds else None


def _checksum(column: pa.Array | pa.ChunkedArray) -> tuple[int, int]:
    """Non-null values and the sum of their lengths as text."""
    text = pc.cast(column, pa.string())
    return len(column) - column.null_count, int(pc.sum(pc.utf8_length(text)).as_py() or 0)


def _timed(lines: list[Line], runners: list[Runner], repeat: int) -> list[Any]:
    """The lines' medians (each runner measured apart, so that a failure stays with its line)."""
    answers: list[Any] = []
    for line, runner in zip(lines, runners):
        try:
            runs = measure_interleaved([runner], repeat, same=lambda a, b: True, slow_seconds=SLOW_SECONDS,
                                       slow_repeat=SLOW_REPEAT)[0]  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - any engine's failure, reported in the table
            line.error = f"failed ({first_line(exc)})"
            answers.append(None)
            continue
        line.seconds, line.runs = runs.seconds, len(runs.times)
        answers.append(runs.result)
    return answers


def _differ_from_duckdb(path: Path, ours: pa.StructArray, con: duckdb.DuckDBPyConnection) -> int:
    """How many of the first rows differ, by value, from DuckDB's reading."""
    table = con.execute(
        f"SELECT variant_to_parquet_variant({COLUMN})::STRUCT(metadata BLOB, value BLOB) AS v "
        f"FROM read_parquet(?) LIMIT {CHECKED_ROWS}",
        [str(path)],
    ).to_arrow_table()
    if table is None:
        raise RuntimeError("DuckDB returned no result for its reading of the file")
    theirs = table.column("v").to_pylist()
    differ = 0
    for a, b in zip(theirs, ours.slice(0, CHECKED_ROWS).to_pylist()):
        same = a is None and b is None
        if a is not None and b is not None:
            same = variant_equal(Variant(a["metadata"], a["value"]), Variant(b["metadata"], b["value"]))
        differ += not same
    return differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=Path("build") / "bench" / "codec")
    parser.add_argument("--out", type=Path, default=Path("docs") / "bench")
    parser.add_argument("--skip-spark", action="store_true")
    args = parser.parse_args(argv)

    from vpush.sample import EventsSpec

    began = time.perf_counter()
    load = os.getloadavg()[0]
    console = make_console()
    spark = LazySpark("vpush-bench-codec", SPARK_CONF)
    spec = EventsSpec(rows=args.rows, files=1)
    folder = args.dir / events_folder_name(spec.rows, spec.files, spec.row_group_rows, spec.writer, spec.payload)
    generated, generated_now = ensure_events(folder, spec, console, spark)
    path = part_files(folder)[0]
    pf = pq.ParquetFile(path)
    rows = pf.metadata.num_rows
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET enable_progress_bar = false")
    source = "read_parquet('" + str(path).replace("'", "''") + "')"
    api = vpush.connect(time_zone="UTC")
    api.register("events", path)
    layout = find_variant_columns(pf, file=str(path))[COLUMN]
    in_memory = pq.read_table(path, columns=[COLUMN]).column(COLUMN)
    python_slice = in_memory.combine_chunks().slice(0, min(PYTHON_SLICE_ROWS, rows))

    def vpush_read() -> pa.StructArray:
        found = find_variant_columns(pq.ParquetFile(path), file=str(path))[COLUMN]
        column = pq.read_table(path, columns=[COLUMN]).column(COLUMN)
        return unshred_native(column, layout=found, file=str(path))

    def duck(sql: str) -> Callable[[], pa.Table]:
        return lambda: con.sql(sql).to_arrow_table()

    def vpush_sql(sql: str) -> Callable[[], pa.Table]:
        return lambda: api.sql(sql).to_arrow()

    # ---- the runs of vpush and DuckDB
    lines: list[Line] = []
    runners: list[Runner] = []

    def add(operation: str, engine: str, what: str, run: Callable[[], Any], n: int = rows) -> None:
        lines.append(Line(operation, engine, what, n))
        runners.append(Runner(run, may_shorten=engine == "DuckDB"))

    add("rebuild", "vpush", "public API: SELECT event -> Arrow", vpush_sql(f"SELECT {COLUMN} FROM events"))
    add("rebuild", "vpush", "pyarrow read + unshred_native", vpush_read)
    add("rebuild", "vpush", "  of which unshred_native (in memory)", lambda: unshred_native(in_memory, layout=layout))
    add("rebuild", "vpush", f"pure-Python unshred ({len(python_slice) // 1000}k-row slice)",
        lambda: unshred(layout, python_slice), len(python_slice))  # fmt: skip
    add("rebuild", "DuckDB", "variant_to_parquet_variant(event) -> Arrow",
        duck(f"SELECT variant_to_parquet_variant({COLUMN}) AS {COLUMN} FROM {source}"))  # fmt: skip
    add("rebuild", "DuckDB", "count(variant_typeof(event))", duck(f"SELECT count(variant_typeof({COLUMN})) FROM {source}"))
    for spark_path, spark_type, duck_path, duck_type in PATHS:
        operation = f"extract {spark_path}"
        add(operation, "vpush", f"variant_get(event, '{spark_path}', '{spark_type}') -> Arrow",
            vpush_sql(f"SELECT variant_get({COLUMN}, '{spark_path}', '{spark_type}') AS x FROM events"))  # fmt: skip
        add(operation, "DuckDB", f"TRY_CAST(event.{duck_path} AS {duck_type}) -> Arrow",
            duck(f"SELECT TRY_CAST({COLUMN}.{duck_path} AS {duck_type}) AS x FROM {source}"))  # fmt: skip
    add("to_json", "vpush", "to_json(event) -> Arrow", vpush_sql(f"SELECT to_json({COLUMN}) AS x FROM events"))
    add("to_json", "DuckDB", "CAST(event AS JSON) -> Arrow", duck(f"SELECT CAST({COLUMN} AS JSON)::VARCHAR AS x FROM {source}"))
    console.print(f"{path.name}: {rows:,} rows; vpush and DuckDB ...")
    answers = _timed(lines, runners, args.repeat)
    checks: dict[tuple[str, str], tuple[int, int]] = {}
    for line, answer in zip(lines, answers):
        if answer is not None and line.operation != "rebuild":
            checks[(line.operation, line.engine)] = _checksum(answer.column(0))

    # ---- the same on Spark, into the noop sink; checksums from one more query, not timed
    if not args.skip_spark:
        console.print("Spark ...")
        spark_lines: list[Line] = []
        spark_runners: list[Runner] = []
        spark_checks: list[str | None] = []
        try:
            session = spark()
            frame = session.read.parquet(str(path))
            frame.createOrReplaceTempView("events")

            def noop(expression: str) -> Callable[[], None]:
                return lambda: frame.selectExpr(expression).write.format("noop").mode("overwrite").save()

            jobs: list[tuple[str, str, str, str | None]] = [("rebuild", "SELECT event -> noop sink", COLUMN, None)]
            jobs += [(f"extract {p}", f"variant_get(event, '{p}', '{t}') -> noop sink",
                      f"variant_get({COLUMN}, '{p}', '{t}')", f"variant_get({COLUMN}, '{p}', '{t}')")
                     for p, t, _, _ in PATHS]  # fmt: skip
            jobs.append(("to_json", "to_json(event) -> noop sink", f"to_json({COLUMN})", f"to_json({COLUMN})"))
            for operation, what, expression, checked in jobs:
                spark_lines.append(Line(operation, "Spark", what, rows))
                spark_runners.append(Runner(noop(expression)))
                spark_checks.append(checked)
            _timed(spark_lines, spark_runners, SPARK_REPEAT)
            for line, checked in zip(spark_lines, spark_checks):
                if checked is None or line.error is not None:
                    continue
                got = session.sql(f"SELECT count(x), sum(length(CAST(x AS STRING))) FROM (SELECT {checked} AS x FROM events)")
                count, length = got.collect()[0]
                checks[(line.operation, "Spark")] = (int(count), int(length or 0))
        except Exception as exc:  # noqa: BLE001 - py4j and JVM failures share no base; the others still count
            spark_lines.append(Line("all", "Spark", "", rows, error=f"not available ({first_line(exc)})"))
        finally:
            spark.stop()
        lines += spark_lines

    # ---- answers
    ours = vpush_read()
    python_agrees = unshred(layout, python_slice).to_pylist() == ours.slice(0, len(python_slice)).to_pylist()
    differ = _differ_from_duckdb(path, ours, con)
    del ours
    for line in lines:
        if line.operation == "rebuild":
            if line.engine == "vpush" and line.what == "pyarrow read + unshred_native":
                line.agrees = python_agrees and differ == 0
                line.check = f"kernel = reference on the slice: {python_agrees}; first {CHECKED_ROWS:,} rows = DuckDB's: {differ == 0}"
            continue
        mine = checks.get((line.operation, line.engine))
        reference = checks.get((line.operation, "Spark"))
        if mine is None:
            continue
        line.check = f"{mine[0]:,} values, {mine[1]:,} chars"
        if reference is not None and not (line.engine == "DuckDB" and line.operation == "to_json"):
            line.agrees = mine == reference

    # ---- report, the lines of each operation together
    order = {op: k for k, op in reversed(list(enumerate(x.operation for x in lines)))}
    lines.sort(key=lambda x: order[x.operation])
    def rate(engine: str, what: str) -> float | None:
        found = [x.rate for x in lines if x.engine == engine and x.what == what]
        return found[0] if found else None

    kernel = rate("vpush", "pyarrow read + unshred_native")
    baseline = rate("DuckDB", "count(variant_typeof(event))")
    ratio = kernel / baseline if kernel and baseline else None
    misses = []
    if ratio is None or ratio < TARGET_RATIO:
        misses.append(f"vpush's read + reconstruction is {ratio or 0:.2f}x DuckDB's count(variant_typeof) (target >= {TARGET_RATIO})")
    misses += [f"{x.operation}: {x.engine}'s answer differs" for x in lines if x.agrees is False]
    misses += [f"{x.operation}: vpush {x.error}" for x in lines if x.engine == "vpush" and x.error]
    elapsed = time.perf_counter() - began

    headers = ["operation", "engine", "what", "rows/s", "median ms", "runs", "vs vpush (API)", "check"]
    table_rows = []
    for line in lines:
        first = next((x for x in lines if x.operation == line.operation and x.engine == "vpush"), None)
        versus = f"{line.rate / first.rate:.2f}x" if first and first.rate and line.rate and line.rows == rows else ""
        status = " (DIFFERS)" if line.agrees is False else ""
        table_rows.append([
            line.operation, line.engine, line.what,
            f"{line.rate:,.0f}" if line.rate else (line.error or ""),
            f"{line.seconds * 1000:,.1f}" if line.seconds else "", str(line.runs or ""), versus, line.check + status,
        ])  # fmt: skip
    title = f"Reconstruction and codec on {rows:,} events: one file, {pf.metadata.num_row_groups} row groups, {path.stat().st_size / BYTES_PER_MB:,.1f} MB"
    versions = run_versions()
    context = [
        "vpush and DuckDB return an Arrow column; Spark writes into the `noop` sink (the rows are built "
        "in the JVM and dropped, nothing reaches Python: less work than the others do). "
        f"Medians of {args.repeat} runs after a warm-up ({SPARK_REPEAT} for Spark, and for DuckDB where its warm-up "
        f"took over {SLOW_SECONDS:.0f} s); vs vpush: the rate over vpush's "
        "first line of the same operation (above 1x: faster than vpush). "
        f"{os.cpu_count()} cores, load average {load:.1f} at the start; "
        + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".",
    ]  # fmt: skip
    notes = [
        f"vpush's read + reconstruction / DuckDB's count(variant_typeof): {ratio or 0:.2f}x (target >= {TARGET_RATIO})",
        "check: extraction and to_json by the count of non-null values and the sum of their lengths, against "
        "Spark's (DuckDB's JSON writes `+00` where Spark writes `+00:00`, so its to_json is not compared)",
        *(f"target missed: {m}" for m in misses),
        "data written in " + (f"{generated:,.0f} s" if generated is not None else "?")
        + (" (this run)" if generated_now else " (an earlier run; reused)") + f"; whole run {elapsed:,.0f} s",
    ]  # fmt: skip
    print_table(console, title, headers, table_rows)
    print_notes(console, notes)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "codec.md").write_text(
        "\n".join([f"# {title}", "", *context, "", *markdown_table(headers, table_rows), "", *(f"- {n}" for n in notes), ""]),
        encoding="utf-8",
    )
    (args.out / "codec.json").write_text(
        json.dumps({"rows": rows, "file_bytes": path.stat().st_size, "repeat": args.repeat, "spark_repeat": SPARK_REPEAT,
                    "lines": [asdict(x) | {"rate": x.rate} for x in lines], "ratio": ratio, "targets_met": not misses,
                    "misses": misses, "cores": os.cpu_count(), "load_average_at_start": load, "versions": versions,
                    "generation_seconds": generated, "run_seconds": elapsed}, indent=2) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    return 0 if not misses else 1


if __name__ == "__main__":
    sys.exit(main())
