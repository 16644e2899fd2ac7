"""Row-group pruning: a 1% time window through the shredded ``ts`` of a sorted event log, on
vpush, DuckDB and Spark reading the same files, side by side in one run.

    .venv/bin/python bench/pruning.py [--rows 5000000] [--files 5] [--row-group-rows 100000]
        [--writer duckdb|spark] [--repeat 5] [--dir build/bench/pruning] [--out docs/bench]
        [--no-payload] [--verbose]

The data is ``vpush sample events`` (``ts`` grows with ``id`` across row groups and files, so a
time window maps to one or two row groups; about 50 row groups by default), generated once under
``--dir`` in a folder named after its parameters and reused. The window is the middle 1% of the
span of ``ts`` taken from the footer statistics, and every engine counts the events in it:

- vpush, through the public API: ``variant_get(event, '$.ts', 'timestamp')`` in the WHERE;
- DuckDB reading the files natively (``event`` as VARIANT), in the two forms it knows:
  ``TRY_CAST(event.ts AS TIMESTAMPTZ)`` (the form it pushes into shredded scans) and the strict
  ``event.ts::TIMESTAMPTZ``;
- Spark reading the files natively (``spark.read.parquet``): the same Spark SQL as vpush's.

The counts must agree. Per engine the table shows the row groups read (vpush: its plan; DuckDB:
``EXPLAIN ANALYZE``; Spark: from the records its scan read), the bytes read and the median time of
``--repeat`` warm runs after one warm-up, with ratios to vpush. Bytes read are what the process
asked the operating system for while the query ran (``rchar`` of ``/proc/<pid>/io``; the JVM's for
Spark), so page-cache hits count as reads. For vpush the plan also says what it needs: the
compressed size of the column chunks of the leaves and row groups it reads.

The acceptance criterion (the pruning issue): vpush reads 1 or 2 row groups of about 50, and only
the ``ts`` leaf. The exit status is 0 when it holds and the counts agree. Results also go to
``--out``/pruning.md and ``--out``/pruning.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from rich.console import Console
from rich.table import Table

import vpush
from common import (
    BYTES_PER_MB,
    LazySpark,
    ensure_events,
    events_folder_name,
    first_line,
    footer_facts,
    jvm_pid,
    make_console,
    markdown_document,
    measure,
    part_files,
    ratio,
    spark_scan_metrics,
    timestamp_literal,
    versions as run_versions,
)
from vpush.optimizer.plan import LeafInput, Plan

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

TS_LEAF = "event.typed_value.ts.typed_value"
WINDOW_SHARE = 0.01
MAX_ROW_GROUPS_READ = 2  # the criterion: the window overlaps the statistics of 1 or 2 row groups
SPARK_CONF = {"spark.driver.memory": "2g", "spark.sql.session.timeZone": "UTC"}
QUERY = (
    "SELECT count(*) FROM events "
    "WHERE variant_get(event, '$.ts', 'timestamp') >= TIMESTAMP '{lo}' "
    "AND variant_get(event, '$.ts', 'timestamp') < TIMESTAMP '{hi}'"
)
DUCKDB_FORMS = (
    ("DuckDB, TRY_CAST", "TRY_CAST(event.ts AS TIMESTAMPTZ)"),
    ("DuckDB, strict cast", "event.ts::TIMESTAMPTZ"),
)
_DUCKDB_ROW_GROUPS = re.compile(r"Row Groups Scanned:\s*([\d,]+)\s*/\s*([\d,]+)")


@dataclass
class Result:
    """One engine's line of the table."""

    engine: str
    form: str
    count: int | None = None
    seconds: float | None = None
    bytes_read: int | None = None
    row_groups_read: int | None = None
    row_groups_total: int | None = None
    rows_scanned: int | None = None
    note: str = ""
    error: str | None = None
    times: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Dataset:
    """The files of the run, and the facts about them read from their footers."""

    folder: Path
    files: tuple[Path, ...]
    file_bytes: tuple[int, ...]
    rows: int
    row_groups: int
    ts_leaf_bytes: int
    ts_min: int
    ts_max: int
    generated_seconds: float | None
    generated_now: bool


# ----------------------------------------------------------------------------- measuring


def _measure(result: Result, run: Callable[[], int], repeat: int, pid: int | str = "self") -> None:
    """Fill in the count, the median time and the median bytes read of ``repeat`` warm runs."""
    runs = measure(run, repeat, pid)
    result.count = runs.result
    result.times = runs.times
    result.seconds = runs.seconds
    result.bytes_read = runs.bytes_read


# ----------------------------------------------------------------------------- data


def _folder_name(args: argparse.Namespace) -> str:
    return events_folder_name(args.rows, args.files, args.row_group_rows, args.writer, args.payload)


def _dataset(args: argparse.Namespace, console: Console, spark: Callable[[], SparkSession]) -> Dataset:
    """The sample files for these parameters: reused when a finished copy exists, else written."""
    from vpush.sample import EventsSpec

    folder = args.dir / _folder_name(args)
    spec = EventsSpec(
        rows=args.rows,
        files=args.files,
        row_group_rows=args.row_group_rows,
        writer=args.writer,
        payload=args.payload,
    )
    generated, generated_now = ensure_events(folder, spec, console, spark)
    files = part_files(folder)
    facts = footer_facts(files, TS_LEAF)
    return Dataset(
        folder=folder,
        files=files,
        file_bytes=tuple(p.stat().st_size for p in files),
        rows=facts.rows,
        row_groups=facts.row_groups,
        ts_leaf_bytes=facts.leaf_bytes,
        ts_min=facts.leaf_min,
        ts_max=facts.leaf_max,
        generated_seconds=generated,
        generated_now=generated_now,
    )


# ----------------------------------------------------------------------------- engines


def _plan_reads(plan: Plan) -> tuple[set[str], int, int]:
    """The leaves vpush's plan reads, the compressed bytes of their column chunks in the row
    groups it reads, and the rows of those row groups."""
    leaves: set[str] = set()
    needed = rows = 0
    for scan in plan.scans:
        parts = scan.parts or ()
        inputs_by_file = {f.path: part.inputs for part in parts for f in part.files}
        for file in scan.files:
            if not file.row_groups:
                continue
            meta = pq.ParquetFile(file.path).metadata
            for rg in file.row_groups:
                unread = file.unread.get(rg, frozenset())
                # A top-level column, a rebuilt level or a leaf: every leaf at or below its path.
                prefixes = set(file.columns)
                for item in inputs_by_file.get(file.path, ()):
                    if item.name in unread:
                        continue
                    if isinstance(item, LeafInput):
                        prefixes.add(item.path)
                        continue
                    layout = file.input_layouts.get(item.column)
                    level = layout.level(item.level) if layout is not None else None
                    if layout is None or level is None:
                        prefixes.add(item.column)
                        continue
                    if layout.metadata is not None:
                        prefixes.add(layout.metadata)
                    prefixes.add(level.path)
                group = meta.row_group(rg)
                rows += group.num_rows
                for c in range(group.num_columns):
                    column = group.column(c)
                    path = column.path_in_schema
                    if any(path == p or path.startswith(p + ".") for p in prefixes):
                        leaves.add(path)
                        needed += column.total_compressed_size
    return leaves, needed, rows


def _run_vpush(
    data: Dataset, query: str, repeat: int, verbose: bool, console: Console
) -> tuple[Result, dict[str, Any]]:
    result = Result("vpush", "variant_get(event, '$.ts', 'timestamp') through the public API")
    extra: dict[str, Any] = {}
    try:
        con = vpush.connect(time_zone="UTC")
        con.register("events", data.folder)
        rel = con.sql(query)
        plan = rel.plan
        if verbose:
            console.print(rel.explain(), markup=False, highlight=False)
        result.row_groups_read = sum(len(f.row_groups) for s in plan.scans for f in s.files)
        result.row_groups_total = sum(f.num_row_groups for s in plan.scans for f in s.files)
        leaves, needed, rows = _plan_reads(plan)
        result.rows_scanned = rows
        extra = {"leaves": sorted(leaves), "plan_bytes": needed}
        result.note = (
            f"leaves read: {', '.join(sorted(leaves)) or '(none)'}; column chunks needed: {needed:,} bytes"
        )
        _measure(result, lambda: int(con.sql(query).to_arrow().column(0)[0].as_py()), repeat)
    except vpush.VpushError as exc:
        result.error = f"not available ({exc})"
    return result, extra


def _run_duckdb(
    data: Dataset, lo: str, hi: str, repeat: int, verbose: bool, console: Console
) -> list[Result]:
    glob = str(data.folder / "part-*.parquet").replace("'", "''")
    results = []
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET enable_progress_bar = false")
    for label, expr in DUCKDB_FORMS:
        result = Result(label, f"{expr} on read_parquet (event as VARIANT)")
        sql = (
            f"SELECT count(*) FROM read_parquet('{glob}') "
            f"WHERE {expr} >= TIMESTAMPTZ '{lo}+00' AND {expr} < TIMESTAMPTZ '{hi}+00'"
        )

        def run(sql: str = sql) -> int:
            return int(con.sql(sql).fetchall()[0][0])

        try:
            _measure(result, run, repeat)
            # Once more, outside the timed runs: its profile counts the row groups scanned.
            profile = "\n".join(str(v) for row in con.sql("EXPLAIN ANALYZE " + sql).fetchall() for v in row)
        except duckdb.Error as exc:
            result.error = f"failed ({str(exc).splitlines()[0]})"
            results.append(result)
            continue
        if verbose:
            console.print(profile, markup=False, highlight=False)
        scanned = _DUCKDB_ROW_GROUPS.findall(profile)
        if scanned:
            result.row_groups_read = sum(int(a.replace(",", "")) for a, _ in scanned)
            result.row_groups_total = sum(int(b.replace(",", "")) for _, b in scanned)
        results.append(result)
    return results


def _run_spark(data: Dataset, query: str, repeat: int, verbose: bool, console: Console,
               spark: Callable[[], SparkSession]) -> Result:  # fmt: skip
    result = Result("Spark", "variant_get(event, '$.ts', 'timestamp') on spark.read.parquet")
    try:
        session = spark()
        session.read.parquet(str(data.folder)).createOrReplaceTempView("events")
        last: list[DataFrame] = []

        def run() -> int:
            frame = session.sql(query)
            last[:] = [frame]
            return int(frame.collect()[0][0])

        _measure(result, run, repeat, jvm_pid(session))
        metrics = spark_scan_metrics(last[0])
    except Exception as exc:  # noqa: BLE001 - py4j and JVM failures share no base; the others still run
        result.error = f"not available ({first_line(exc)})"
        return result
    if verbose:
        console.print(f"Spark scan metrics: {metrics}")
    records = metrics.get("number of output rows")
    files = metrics.get("number of files read")
    if records is not None:
        result.rows_scanned = records
        if records == data.rows:
            result.row_groups_read = result.row_groups_total = data.row_groups
    parts = [f"scan output {records:,} records" if records is not None else ""]
    if files is not None:
        parts.append(f"{files} of {len(data.files)} files read")
    result.note = "; ".join(p for p in parts if p)
    return result


# ----------------------------------------------------------------------------- report


def _cells(r: Result, base: Result) -> list[str]:
    if r.error is not None:
        return [r.engine, r.error.split(" (")[0], "", "", "", "", "", ""]  # the reason is in the notes
    groups = ""
    if r.row_groups_read is not None and r.row_groups_total is not None:
        groups = f"{r.row_groups_read} of {r.row_groups_total}"
    return [
        r.engine,
        f"{r.count:,}" if r.count is not None else "",
        groups,
        f"{r.rows_scanned:,}" if r.rows_scanned is not None else "",
        f"{r.bytes_read / BYTES_PER_MB:,.2f}" if r.bytes_read is not None else "",
        ratio(r.bytes_read, base.bytes_read if base.error is None else None),
        f"{r.seconds * 1000:,.0f}" if r.seconds is not None else "",
        ratio(r.seconds, base.seconds if base.error is None else None),
    ]


HEADERS = (
    "engine",
    "count",
    "row groups read",
    "rows scanned",
    "MB read",
    "bytes vs vpush",
    "ms",
    "time vs vpush",
)


def _markdown(title: str, context: Sequence[str], results: Sequence[Result], notes: Sequence[str]) -> str:
    return markdown_document(title, context, HEADERS, [_cells(r, results[0]) for r in results], notes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--files", type=int, default=5)
    parser.add_argument("--row-group-rows", type=int, default=100_000)
    parser.add_argument("--writer", choices=("duckdb", "spark"), default="duckdb")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=Path("build") / "bench" / "pruning")
    parser.add_argument("--out", type=Path, default=Path("docs") / "bench")
    parser.add_argument("--no-payload", dest="payload", action="store_false",
                        help="no unshredded payload: the top-level residual `value` is all-null")  # fmt: skip
    parser.add_argument(
        "--verbose", action="store_true", help="print vpush's explain(), DuckDB's profiles, Spark's metrics"
    )
    args = parser.parse_args(argv)

    began = time.perf_counter()
    load = os.getloadavg()[0]  # the machine may be shared: times are only comparable within a run
    # Wide enough for the table when the output is a file or a pipe (as under make).
    console = make_console()
    spark = LazySpark("vpush-bench-pruning", SPARK_CONF)
    try:
        data = _dataset(args, console, spark)
        span = data.ts_max - data.ts_min
        start = data.ts_min + span // 2
        lo, hi = timestamp_literal(start), timestamp_literal(start + math.ceil(span * WINDOW_SHARE))
        query = QUERY.format(lo=lo, hi=hi)
        console.print(f"window [{lo}, {hi}) UTC: 1% of the span of ts, in the middle")

        vpush_result, vpush_extra = _run_vpush(data, query, args.repeat, args.verbose, console)
        results = [vpush_result, *_run_duckdb(data, lo, hi, args.repeat, args.verbose, console)]
        results.append(_run_spark(data, query, args.repeat, args.verbose, console, spark))
    finally:
        spark.stop()
    elapsed = time.perf_counter() - began

    counts = {r.count for r in results if r.error is None}
    agree = len(counts) == 1
    leaves = vpush_extra.get("leaves", [])
    criterion = (
        vpush_result.error is None
        and vpush_result.row_groups_read is not None
        and 1 <= vpush_result.row_groups_read <= MAX_ROW_GROUPS_READ
        and leaves == [TS_LEAF]
    )
    total_bytes = sum(data.file_bytes)
    versions = run_versions()
    title = (
        f"1% time window on {data.rows:,} sorted events: {len(data.files)} file(s), "
        f"{data.row_groups} row groups, {total_bytes / BYTES_PER_MB:,.1f} MB ({args.writer} writer"
        f"{', no payload' if not args.payload else ''})"
    )
    context = [
        f"Query: `{query}` (vpush and Spark; DuckDB runs the same window on `event.ts`).",
        f"Medians of {args.repeat} warm runs after one warm-up; MB read = `rchar` of the process "
        f"(the JVM's for Spark) during a run; ratios are to vpush; {pa.cpu_count()} cores, "
        f"load average {load:.1f} at the start; " + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".",
    ]
    notes = [
        (
            f"files: {', '.join(f'{p.name} {b / BYTES_PER_MB:,.1f} MB' for p, b in zip(data.files, data.file_bytes))}; "
            f"the `ts` leaf in all row groups: {data.ts_leaf_bytes / BYTES_PER_MB:,.2f} MB compressed"
        ),
        *("; ".join(p for p in (f"{r.engine}: {r.form}", r.error or r.note) if p) for r in results),
        f"criterion (vpush reads 1 or 2 row groups and only {TS_LEAF}): {'met' if criterion else 'NOT met'}",
        f"counts {'agree' if agree else 'DISAGREE'} across engines",
        "data written in "
        + (f"{data.generated_seconds:,.0f} s" if data.generated_seconds is not None else "(unknown)")
        + f"{' (this run)' if data.generated_now else ' (an earlier run; reused)'}; "
        f"whole run {elapsed:,.0f} s",
    ]

    table = Table(title=title)
    for header in HEADERS:
        table.add_column(header, justify="left" if header == "engine" else "right", overflow="fold")
    for r in results:
        table.add_row(*_cells(r, results[0]))
    console.print(table)
    for line in notes:
        console.print(f"  {line}", markup=False, highlight=False)

    args.out.mkdir(parents=True, exist_ok=True)
    payload = {
        "rows": data.rows,
        "files": [{"name": p.name, "bytes": b} for p, b in zip(data.files, data.file_bytes)],
        "row_groups": data.row_groups,
        "row_group_rows": args.row_group_rows,
        "writer": args.writer,
        "payload": args.payload,
        "ts_leaf_bytes": data.ts_leaf_bytes,
        "window": [lo, hi],
        "query": query,
        "repeat": args.repeat,
        "versions": versions,
        "cores": pa.cpu_count(),
        "load_average_at_start": load,
        "results": [asdict(r) for r in results],
        "vpush_leaves": leaves,
        "vpush_plan_bytes": vpush_extra.get("plan_bytes"),
        "criterion_met": criterion,
        "counts_agree": agree,
        "generation_seconds": data.generated_seconds,
        "run_seconds": elapsed,
    }
    (args.out / "pruning.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    (args.out / "pruning.md").write_text(_markdown(title, context, results, notes), encoding="utf-8")
    return 0 if criterion and agree else 1


if __name__ == "__main__":
    sys.exit(main())
