"""How each engine's time and peak memory grow with the data: a few queries of bench/queries.py
at 1M, 5M and 20M events, each engine in a process of its own.

    .venv/bin/python bench/scale.py [--sizes 1000000,5000000,20000000] [--queries Q1,Q2,Q6]
        [--files 10] [--repeat 5] [--dir build/bench/queries] [--out docs/bench]
        [--readme README.md] [--skip-spark]

The data are the logs of bench/queries.py (same parameters, same folders, so the 5M log and its
JSON-text copy are shared with it and generated once), and the queries are its queries, window
included; the full matrix at 5M (seven queries, bytes read, ratios) is bench/queries.py's.

For each size and engine one child process (this script with ``--worker``) sets the engine up,
runs ``SELECT count(*)`` once (Spark: the JVM's classes loaded and the files listed), then for
each query sets the peak resident set of its process tree back to the current one (Linux
``clear_refs``), runs the query, and reads the peak (``VmHWM``): the peak RSS shown is what the
process held during that query's runs, the Python interpreter, its libraries and (for the Spark
engines) the JVM and its Python workers included, summed over the processes (an upper bound of
the tree's peak). vpush and the lower bound run one warm-up and ``--repeat`` timed runs (the
median is shown); the slow baselines (DuckDB on VARIANT, DuckDB on JSON text, Spark, vpush on
Spark) run once, with no warm-up: at 20M one run of each takes tens of seconds.

Answers are compared with Spark's (the lower bound's without Spark). Target (issue E): the vpush
process's peak RSS under 2 GB at every size. The exit status is 0 when it holds and every answer
agrees. Results go to ``--out``/scale.md, scale.json and scale.png (the chart); the table and the
chart replace the part of ``--readme`` between ``<!-- bench:scale -->`` and
``<!-- /bench:scale -->``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from common import (
    update_readme,
    BYTES_PER_MB,
    LazySpark,
    first_line,
    make_console,
    markdown_table,
    measure_interleaved,
    peak_rss,
    print_notes,
    print_table,
    reset_peak_rss,
    versions as run_versions,
)
from queries import (
    BOUND,
    ENGINES,
    JSON_TEXT,
    SPARK,
    SPARK_CONF,
    SPARK_ENGINES,
    VPUSH,
    Result,
    _Engines,
    _rows,
    compare_answers,
    load_dataset,
    make_queries,
    window,
)

SIZES = (1_000_000, 5_000_000, 20_000_000)
QUERIES = ("Q1", "Q2", "Q6")
ONCE = tuple(e for e in ENGINES if e not in (BOUND, VPUSH))
"""The slow baselines: one run each, no warm-up."""
VPUSH_PEAK_TARGET = 2_000_000_000
BYTES_PER_MIB = 1024 * 1024
WORKER_TIMEOUT_SECONDS = 1200


# ----------------------------------------------------------------------------- one engine's process


def worker(spec: dict[str, Any]) -> dict[str, Any]:
    """Run the queries of ``spec`` on one engine in this process; what it measured, as JSON."""
    engine: str = spec["engine"]
    console = Console(file=sys.stderr, width=120)
    spark = LazySpark(f"vpush-bench-scale-{engine.replace(' ', '-')}", SPARK_CONF)
    tree = f"tree:{os.getpid()}"
    out: dict[str, Any] = {"engine": engine, "queries": []}
    try:
        data = load_dataset(Path(spec["dir"]), spec["rows"], spec["files"], None, True, engine == JSON_TEXT,
                            console, spark)  # fmt: skip
        lo, hi = window(data)
        queries = [q for q in make_queries(lo, hi) if q.name in spec["queries"]]
        engines = _Engines(data, spark if engine in SPARK_ENGINES else None, console, False, engines=[engine])
        _settle(engines, engine)
        out["setup_peak_rss"] = peak_rss(tree)
        for query in queries:
            entry = engines.entry(engine, query)
            line: dict[str, Any] = {"query": query.name, "error": entry.result.error}
            out["queries"].append(line)
            if entry.runner is None:
                continue
            reset_peak_rss(tree)
            try:
                if spec["once"]:
                    started = time.perf_counter()
                    answer = entry.runner.run()
                    times = [time.perf_counter() - started]
                else:
                    runs = measure_interleaved([entry.runner], spec["repeat"])[0]
                    answer, times = runs.result, runs.times
            except Exception as exc:  # noqa: BLE001 - any engine's failure, reported in the table
                line["error"] = f"failed ({first_line(exc)})"
                continue
            line["peak_rss"] = peak_rss(tree)
            line["times"] = times
            line["result_rows"] = answer.num_rows
            line["answer"] = json.loads(json.dumps(_rows(answer), default=str))
    finally:
        spark.stop()
    return out


def _settle(engines: _Engines, engine: str) -> None:
    """One query outside the measurements, so that the first one measured does not pay for
    loading classes (the JVM) or listing files."""
    if engine == SPARK and engines.spark_session is not None:
        engines.spark_session.sql("SELECT count(*) FROM events").collect()
    elif engine in SPARK_ENGINES and engines.vpush_spark is not None:
        engines.vpush_spark.sql("SELECT count(*) FROM events").to_arrow()
    elif engine == VPUSH:
        engines.vpush.sql("SELECT count(*) FROM events").to_arrow()


# ----------------------------------------------------------------------------- the series


@dataclass
class Point:
    """One engine, one query, one size."""

    rows: int
    query: str
    engine: str
    seconds: float | None = None
    times: list[float] = field(default_factory=list)
    peak_rss: int | None = None
    result_rows: int | None = None
    agrees: bool | None = None
    error: str | None = None


def _run_worker(spec: dict[str, Any], console: Console) -> dict[str, Any]:
    """This script as a child process for one engine; its last line of output is the JSON."""
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec)]
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=WORKER_TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"no answer in {WORKER_TIMEOUT_SECONDS} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return {"error": f"failed ({tail[0]})"}
    answer: dict[str, Any] = json.loads(lines[-1])
    answer["process_seconds"] = time.perf_counter() - started
    console.print(f"  {spec['engine']}: {answer['process_seconds']:,.0f} s in all")
    return answer


def run_size(
    rows: int, args: argparse.Namespace, engines: Sequence[str], console: Console, spark: LazySpark
) -> tuple[list[Point], dict[str, Any]]:
    """Every engine's points at one size, answers compared; and what the size's data are."""
    data = load_dataset(args.dir, rows, args.files, None, True, JSON_TEXT in engines, console, spark)
    lo, hi = window(data)
    queries = {q.name: q for q in make_queries(lo, hi) if q.name in args.queries}
    console.print(f"{rows:,} events: {len(engines)} engines, queries {', '.join(queries)}")
    points: list[Point] = []
    answers: dict[str, dict[str, list[Any]]] = {}
    for engine in engines:
        spec = {"engine": engine, "dir": str(args.dir), "rows": rows, "files": args.files,
                "queries": list(queries), "repeat": args.repeat, "once": engine in ONCE}  # fmt: skip
        got = _run_worker(spec, console)
        by_query = {line["query"]: line for line in got.get("queries", [])}
        for name in queries:
            line = by_query.get(name, {})
            point = Point(rows, name, engine, error=line.get("error") or got.get("error"))
            if "times" in line:
                point.times = line["times"]
                point.seconds = statistics.median(point.times)
                point.peak_rss = line["peak_rss"]
                point.result_rows = line["result_rows"]
                answers.setdefault(name, {})[engine] = [tuple(r) for r in line["answer"]]
            elif point.error is None:
                point.error = "no answer"
            points.append(point)
    for name, query in queries.items():
        mine = [p for p in points if p.query == name]
        results = [Result(name, p.engine) for p in mine]
        compare_answers(query, results, answers.get(name, {}), (), console)
        for p, r in zip(mine, results):
            p.agrees = r.agrees
    facts = {
        "rows": data.rows,
        "files": len(data.files),
        "row_groups": data.row_groups,
        "variant_bytes": sum(data.file_bytes),
        "json_bytes": data.json_bytes,
        "generation_seconds": data.generated_seconds,
        "generated_now": data.generated_now,
        "json_generation_seconds": data.json_seconds,
        "json_generated_now": data.json_now,
    }
    return points, facts


# ----------------------------------------------------------------------------- report


def _size_label(rows: int) -> str:
    return f"{rows // 1_000_000}M" if rows % 1_000_000 == 0 else f"{rows:,}"


def _table(points: Sequence[Point], sizes: Sequence[int], queries: Sequence[str], engines: Sequence[str]
           ) -> tuple[list[str], list[list[str]]]:  # fmt: skip
    headers = ["query", "engine"]
    for rows in sizes:
        headers += [f"{_size_label(rows)} ms", f"{_size_label(rows)} peak RSS MiB"]
    by_key = {(p.query, p.engine, p.rows): p for p in points}
    lines = []
    for name in queries:
        for engine in engines:
            cells = [name, engine]
            for rows in sizes:
                p = by_key.get((name, engine, rows))
                if p is None:
                    cells += ["", ""]
                elif p.error is not None or p.seconds is None:
                    cells += [(p.error or "failed").split(" (")[0], ""]
                else:
                    wrong = " (WRONG)" if p.agrees is False else ""
                    runs = "" if len(p.times) > 1 else " (1 run)"
                    cells += [f"{p.seconds * 1000:,.0f}{runs}{wrong}", f"{(p.peak_rss or 0) / BYTES_PER_MIB:,.0f}"]
            lines.append(cells)
    return headers, lines


def _chart(points: Sequence[Point], queries: Sequence[str], engines: Sequence[str], path: Path, title: str) -> None:
    """Time (top) and peak RSS (bottom) against rows, one panel per query, one line per engine."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(2, len(queries), figsize=(4.2 * len(queries), 7.5), squeeze=False)
    markers = "os^Dvx"
    for column, name in enumerate(queries):
        for k, engine in enumerate(engines):
            mine = sorted((p for p in points if p.query == name and p.engine == engine and p.seconds is not None),
                          key=lambda p: p.rows)  # fmt: skip
            if not mine:
                continue
            xs = [p.rows for p in mine]
            style = {"marker": markers[k % len(markers)], "label": engine, "color": f"C{k}"}
            axes[0][column].plot(xs, [p.seconds for p in mine], **style)  # type: ignore[misc]
            axes[1][column].plot(xs, [(p.peak_rss or 0) / BYTES_PER_MIB for p in mine], **style)  # type: ignore[misc]
        axes[0][column].set_title(name)
        axes[0][column].set_ylabel("seconds (log)")
        axes[1][column].set_ylabel("peak RSS, MiB (log)")
        axes[1][column].axhline(VPUSH_PEAK_TARGET / BYTES_PER_MIB, color="grey", linestyle=":", linewidth=1)
        axes[1][column].annotate("2 GB: vpush's limit", (0.02, VPUSH_PEAK_TARGET / BYTES_PER_MIB),
                                 xycoords=("axes fraction", "data"), fontsize=8, color="grey",
                                 va="bottom")  # fmt: skip
        for row in (0, 1):
            axes[row][column].set_xscale("log")
            axes[row][column].set_yscale("log")
            axes[row][column].set_xlabel("events")
            axes[row][column].grid(True, which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=len(engines), frameon=False)
    figure.suptitle(title)
    figure.tight_layout(rect=(0, 0.05, 1, 0.97))
    figure.savefig(path, dpi=90)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    parser.add_argument("--queries", default=",".join(QUERIES))
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=Path("build") / "bench" / "queries")
    parser.add_argument("--out", type=Path, default=Path("docs") / "bench")
    parser.add_argument("--readme", type=Path, default=Path("README.md"))
    parser.add_argument("--skip-spark", action="store_true", help="no Spark engines (answers checked against the lower bound)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return 0
    sizes = sorted(int(s) for s in args.sizes.split(","))
    args.queries = [q.strip().upper() for q in args.queries.split(",")]
    engines = [e for e in ENGINES if not (args.skip_spark and e in SPARK_ENGINES)]

    began = time.perf_counter()
    load = os.getloadavg()
    console = make_console()
    spark = LazySpark("vpush-bench-scale", SPARK_CONF)  # only for a Spark writer; never started here
    points: list[Point] = []
    data: dict[int, dict[str, Any]] = {}
    seconds: dict[int, float] = {}
    for rows in sizes:
        started = time.perf_counter()
        size_points, data[rows] = run_size(rows, args, engines, console, spark)
        points += size_points
        seconds[rows] = time.perf_counter() - started
    elapsed = time.perf_counter() - began
    load_end = os.getloadavg()

    vpush_peaks = {p.rows: p.peak_rss for p in points if p.engine == VPUSH and p.peak_rss is not None}
    misses = [
        f"vpush's process peaked at {peak / BYTES_PER_MIB:,.0f} MiB at {_size_label(rows)} events "
        f"(target: under {VPUSH_PEAK_TARGET / 1e9:.0f} GB)"
        for rows, peak in sorted(vpush_peaks.items())
        if peak >= VPUSH_PEAK_TARGET
    ]
    misses += [f"{p.query} at {_size_label(p.rows)}: {p.engine}'s answer differs" for p in points if p.agrees is False]
    misses += [f"{p.query} at {_size_label(p.rows)}: {p.engine} {p.error}" for p in points if p.error and p.engine in (VPUSH, BOUND)]
    worst = max(vpush_peaks.values(), default=None)

    headers, rows_out = _table(points, sizes, args.queries, engines)
    versions = run_versions()
    title = f"Time and peak memory from {_size_label(sizes[0])} to {_size_label(sizes[-1])} events"
    reference = "Spark's" if SPARK in engines else "the lower bound's"
    context = [
        f"Queries {', '.join(args.queries)} of bench/queries.py on the same logs ({args.files} files, 5 row groups "
        "per file, with the unshredded payload), each engine in a process of its own (bench/scale.py). "
        f"ms: median of {args.repeat} runs after a warm-up for vpush and the lower bound; one run, no warm-up, "
        "for the slow baselines (marked). Peak RSS: the most the engine's process tree held during the "
        "query (`VmHWM`, reset before each query; interpreter, libraries and, for Spark, the JVM and its "
        "Python workers included). "
        f"{os.cpu_count()} cores; load average {load[0]:.1f} at the start, {load_end[0]:.1f} at the end; "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
        + ".",
    ]
    notes = [
        f"{_size_label(rows)}: {facts['files']} files, {facts['row_groups']} row groups, "
        f"{facts['variant_bytes'] / BYTES_PER_MB:,.0f} MB shredded, {facts['json_bytes'] / BYTES_PER_MB:,.0f} MB "
        "as JSON text; written in "
        + (f"{facts['generation_seconds']:,.0f} s" if facts["generation_seconds"] is not None else "?")
        + (" (this run)" if facts["generated_now"] else " (an earlier run)")
        + (
            f" and {facts['json_generation_seconds']:,.0f} s for the JSON copy"
            + (" (this run)" if facts["json_generated_now"] else " (an earlier run)")
            if facts["json_generation_seconds"] is not None
            else ""
        )
        + f"; this size took {seconds[rows]:,.0f} s"
        for rows, facts in data.items()
    ]
    notes += [
        f"answers compared with {reference}: "
        + ("all agree" if all(p.agrees is not False for p in points) else "SOME DISAGREE"),
        (
            f"vpush's peak RSS: at most {worst / BYTES_PER_MIB:,.0f} MiB (target: under {VPUSH_PEAK_TARGET / 1e9:.0f} GB)"
            if worst is not None
            else "vpush's peak RSS: not measured"
        ),
        *(f"{p.query} at {_size_label(p.rows)}: {p.engine}: {p.error}" for p in points if p.error),
        *(f"target missed: {m}" for m in misses),
        f"whole run {elapsed:,.0f} s",
    ]

    print_table(console, title, headers, rows_out, left=("query", "engine"))
    print_notes(console, notes, misses)

    args.out.mkdir(parents=True, exist_ok=True)
    chart = args.out / "scale.png"
    _chart(points, args.queries, engines, chart, title)
    body = [*markdown_table(headers, rows_out), "", *(f"- {n}" for n in notes)]
    (args.out / "scale.md").write_text(
        "\n".join([f"# {title}", "", *context, "", *body, "", "![time and peak memory](scale.png)", ""]),
        encoding="utf-8",
    )
    (args.out / "scale.json").write_text(
        json.dumps(
            {
                "sizes": sizes,
                "queries": args.queries,
                "engines": engines,
                "repeat": args.repeat,
                "data": {str(k): v for k, v in data.items()},
                "points": [asdict(p) for p in points],
                "vpush_peak_target": VPUSH_PEAK_TARGET,
                "targets_met": not misses,
                "misses": misses,
                "cores": os.cpu_count(),
                "load_average": {"start": load, "end": load_end},
                "versions": versions,
                "run_seconds": elapsed,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    readme_chart = os.path.relpath(chart, args.readme.resolve().parent if args.readme.is_file() else Path.cwd())
    block = "\n".join([f"**{title}**", "", *context, "", *body, "", f"![time and peak memory]({readme_chart})"])
    if update_readme(args.readme, "scale", block):
        console.print(f"  {args.readme}: the table and the chart updated")
    return 0 if not misses else 1


if __name__ == "__main__":
    sys.exit(main())
