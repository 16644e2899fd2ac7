"""Row-group skipping: a 1% time window through the shredded ``ts`` of a sorted event log, on
vpush, DuckDB and Spark, side by side in one run.

    .venv/bin/python bench/time_window.py [--rows 5000000] [--row-group-rows 100000] [--repeat 5]

The data is ``vpush sample events`` (one file, ``ts`` growing with ``id``, so a window maps to a
few row groups), generated once under ``build/bench/`` and reused. The query counts the events
whose ``ts`` falls in a window of 1% of the whole span, in the middle of the log:

- vpush: ``variant_get(event, '$.ts', 'timestamp')`` in the WHERE, through the public API;
- DuckDB reading the file natively (the column as VARIANT): ``TRY_CAST(event.ts AS TIMESTAMPTZ)``
  (the form it pushes into shredded scans) and the strict ``event.ts::TIMESTAMPTZ``;
- Spark 4.3 reading the file natively: the same Spark SQL as vpush's.

Bytes read are what each process asked the operating system for while the query ran (``rchar``
of ``/proc/<pid>/io``, the JVM's for Spark), so cached and uncached reads count alike. For vpush
the plan also says what it needs: the compressed size of the column chunks it reads. Times are
medians of ``--repeat`` warm runs. Results go to ``docs/bench/time_window.md`` and ``.json``.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
from rich.console import Console
from rich.table import Table

import vpush
from vpush.sample import local_spark

TS_LEAF = "event.typed_value.ts.typed_value"
WINDOW_SHARE = 0.01


def _rchar(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/io") as handle:
        for line in handle:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    raise RuntimeError("no rchar in /proc/<pid>/io")


def _sample(folder: Path, rows: int, row_group_rows: int) -> Path:
    marker = folder / f".rows-{rows}-rg-{row_group_rows}"
    if marker.is_file():
        return folder
    from vpush.sample import EventsSpec, write_events

    write_events(folder, EventsSpec(rows=rows, files=1, row_group_rows=row_group_rows), overwrite=True)
    marker.touch()
    return folder


def _window(folder: Path) -> tuple[dt.datetime, dt.datetime]:
    """The middle 1% of the span of ``ts``, from the footer statistics."""
    low = high = None
    for path in sorted(folder.glob("*.parquet")):
        meta = pq.ParquetFile(path).metadata
        for rg in range(meta.num_row_groups):
            group = meta.row_group(rg)
            for c in range(group.num_columns):
                column = group.column(c)
                if column.path_in_schema == TS_LEAF and column.statistics is not None:
                    low = column.statistics.min if low is None else min(low, column.statistics.min)
                    high = column.statistics.max if high is None else max(high, column.statistics.max)
    if low is None or high is None:
        raise SystemExit(f"no statistics for {TS_LEAF} in {folder}")
    span = high - low
    start = low + span * 0.5
    return start, start + span * WINDOW_SHARE


def _measure(run: Callable[[], int], repeat: int, pid: int | str = "self") -> tuple[int, float, int]:
    """(count, median seconds, bytes read by the last run)."""
    count = run()  # warm-up
    times = []
    read = 0
    for _ in range(repeat):
        before = _rchar(pid)
        started = time.perf_counter()
        found = run()
        times.append(time.perf_counter() - started)
        read = _rchar(pid) - before
        if found != count:
            raise SystemExit(f"the count changed between runs: {count} then {found}")
    return count, statistics.median(times), read


def _ts(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--row-group-rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=Path("build/bench/time-window"))
    parser.add_argument("--out", type=Path, default=Path("docs/bench"))
    args = parser.parse_args(argv)

    console = Console()
    folder = _sample(args.dir / f"events-{args.rows}", args.rows, args.row_group_rows)
    files = sorted(folder.glob("*.parquet"))
    file_bytes = sum(f.stat().st_size for f in files)
    start, end = _window(folder)
    lo, hi = _ts(start), _ts(end)
    spark_sql = (
        "SELECT count(*) FROM events WHERE variant_get(event, '$.ts', 'timestamp') >= TIMESTAMP '{lo}' "
        "AND variant_get(event, '$.ts', 'timestamp') < TIMESTAMP '{hi}'"
    ).format(lo=lo, hi=hi)
    results: list[dict[str, Any]] = []

    con = vpush.connect(time_zone="UTC")
    con.register("events", folder)
    rel = con.sql(spark_sql)
    plan = rel.plan
    read_groups = sum(len(f.row_groups) for s in plan.scans for f in s.files)
    total_groups = sum(f.num_row_groups for s in plan.scans for f in s.files)
    needed = 0
    leaves: set[str] = set()
    for scan in plan.scans:
        for part in scan.parts:
            for f in part.files:
                meta = pq.ParquetFile(f.path).metadata
                for rg in f.row_groups:
                    unread = f.unread.get(rg, frozenset())
                    paths = {i.path for i in part.inputs if i.name not in unread and hasattr(i, "path")}
                    leaves |= paths
                    group = meta.row_group(rg)
                    for c in range(group.num_columns):
                        if group.column(c).path_in_schema in paths:
                            needed += group.column(c).total_compressed_size
    count, seconds, read = _measure(lambda: con.sql(spark_sql).to_arrow().column(0)[0].as_py(), args.repeat)
    results.append({"engine": "vpush", "count": count, "row_groups": f"{read_groups} of {total_groups}",
                    "bytes_read": read, "seconds": seconds, "note": f"leaves read: {', '.join(sorted(leaves))}; "
                    f"column chunks needed: {needed:,} bytes"})

    glob = str(folder / "*.parquet").replace("'", "''")
    duck = duckdb.connect()
    for label, expr in (("DuckDB, TRY_CAST", "TRY_CAST(event.ts AS TIMESTAMPTZ)"), ("DuckDB, strict cast", "event.ts::TIMESTAMPTZ")):
        sql = (
            f"SELECT count(*) FROM read_parquet('{glob}') WHERE {expr} >= TIMESTAMPTZ '{lo}+00' "
            f"AND {expr} < TIMESTAMPTZ '{hi}+00'"
        )
        duck.execute("SET TimeZone = 'UTC'")

        def run_duckdb(sql: str = sql) -> int:
            return int(duck.sql(sql).fetchall()[0][0])

        count_d, seconds_d, read_d = _measure(run_duckdb, args.repeat)
        results.append({"engine": label, "count": count_d, "row_groups": "", "bytes_read": read_d,
                        "seconds": seconds_d, "note": ""})

    try:
        spark = local_spark("vpush-bench", {"spark.sql.session.timeZone": "UTC", "spark.driver.memory": "2g"})
        jvm_pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()  # type: ignore[union-attr]
        spark.read.parquet(str(folder)).createOrReplaceTempView("events")
        count_s, seconds_s, read_s = _measure(lambda: int(spark.sql(spark_sql).collect()[0][0]), args.repeat, jvm_pid)
        results.append({"engine": "Spark 4.3", "count": count_s, "row_groups": "", "bytes_read": read_s,
                        "seconds": seconds_s, "note": ""})
        spark.stop()
    except Exception as exc:  # noqa: BLE001 - a missing Java must not hide the other engines
        console.print(f"[yellow]Spark not measured: {exc}[/]")

    counts = {r["count"] for r in results}
    if len(counts) != 1:
        raise SystemExit(f"the engines disagree on the count: {results}")
    base = results[0]
    table = Table(title=f"{args.rows:,} events, {len(files)} file(s), {file_bytes / 1e6:.1f} MB; window {lo} .. {hi}")
    for column in ("engine", "count", "row groups read", "MB read", "x vpush bytes", "ms", "x vpush time"):
        table.add_column(column)
    for r in results:
        table.add_row(
            r["engine"], f"{r['count']:,}", r["row_groups"], f"{r['bytes_read'] / 1e6:.2f}",
            f"{r['bytes_read'] / max(base['bytes_read'], 1):.1f}", f"{r['seconds'] * 1000:.0f}",
            f"{r['seconds'] / base['seconds']:.1f}",
        )
    console.print(table)
    console.print(base["note"])
    args.out.mkdir(parents=True, exist_ok=True)
    payload = {"rows": args.rows, "files": len(files), "file_bytes": file_bytes, "window": [lo, hi],
               "repeat": args.repeat, "results": results}
    (args.out / "time_window.json").write_text(json.dumps(payload, indent=2) + "\n")
    lines = [
        f"# 1% time window on {args.rows:,} sorted events ({len(files)} file, {file_bytes / 1e6:.1f} MB)",
        "",
        f"Window `{lo}` .. `{hi}` (UTC); medians of {args.repeat} warm runs; bytes = `rchar` of the process.",
        "",
        "| engine | count | row groups read | MB read | x vpush bytes | ms | x vpush time |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['engine']} | {r['count']:,} | {r['row_groups']} | {r['bytes_read'] / 1e6:.2f} | "
            f"{r['bytes_read'] / max(base['bytes_read'], 1):.1f} | {r['seconds'] * 1000:.0f} | "
            f"{r['seconds'] / base['seconds']:.1f} |"
        )
    lines += ["", f"vpush: {base['note']}", ""]
    (args.out / "time_window.md").write_text("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
