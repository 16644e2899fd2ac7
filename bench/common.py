"""What the benchmarks share: the sample data they generate once and reuse, the way they time a
run and count the bytes it reads, the local Spark session, and the Markdown they write.

- Bytes read are what a process asked the operating system for while a run went on: ``rchar`` of
  ``/proc/<pid>/io`` (the JVM's for Spark), so page-cache hits count as reads.
- A measurement is one warm-up (footers cached, code loaded, files in the page cache), then
  ``repeat`` timed runs; the figures are the medians. Every run must return what the warm-up
  returned. :func:`measure_interleaved` alternates the runs of several engines, so that a change
  in the load of a shared machine falls on all of them alike.
- Data sets are ``vpush sample events`` folders named after their parameters, with a marker file
  beside each (engines list every file inside a folder) that says it was written completely.
"""

from __future__ import annotations

import datetime as dt
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console, JustifyMethod

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from vpush.sample import EventsSpec

BYTES_PER_MB = 1_000_000
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


# ----------------------------------------------------------------------------- measuring


def rchar(pid: int | str = "self") -> int:
    """Bytes the process has read through read-like system calls since it started;
    ``"tree:<pid>"`` sums the process and its living descendants (a JVM and its Python workers)."""
    if isinstance(pid, str) and pid.startswith("tree:"):
        return sum(rchar(p) for p in process_tree(int(pid[5:])))
    with open(f"/proc/{pid}/io", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    raise RuntimeError(f"no rchar line in /proc/{pid}/io")


def process_tree(root: int) -> list[int]:
    """``root`` and every living process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="ascii", errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    out, stack = [], [root]
    while stack:
        pid = stack.pop()
        out.append(pid)
        stack.extend(children.get(pid, []))
    return out


@dataclass
class Runs:
    """The timed runs of one engine: the warm-up's result, and each run's time and bytes read."""

    result: Any = None
    times: list[float] = field(default_factory=list)
    reads: list[int] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return statistics.median(self.times)

    @property
    def bytes_read(self) -> int:
        return int(statistics.median(self.reads))


@dataclass(frozen=True)
class Runner:
    """One engine's run: ``run`` returns its answer; ``pid`` is the process that reads the files;
    ``warm_up``, when given, replaces ``run`` for the warm-up (to take a profile, say)."""

    run: Callable[[], Any]
    pid: int | str = "self"
    warm_up: Callable[[], Any] | None = None
    may_shorten: bool = False
    """Whether a slow warm-up may cut the number of rounds (see :func:`measure_interleaved`)."""


def _show(value: Any) -> str:
    text = f"{value:,}" if isinstance(value, int) else repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def measure_interleaved(
    runners: Sequence[Runner],
    repeat: int,
    *,
    same: Callable[[Any, Any], bool] = lambda a, b: bool(a == b),
    slow_seconds: float | None = None,
    slow_repeat: int | None = None,
) -> list[Runs]:
    """Warm each runner up, then time ``repeat`` rounds of one run of each, in turn.

    A runner that ``may_shorten`` and whose warm-up took more than ``slow_seconds`` takes part in
    the first ``slow_repeat`` rounds only. The result is the warm-up's answer (the first timed run's when
    the runner has its own ``warm_up``). Raises RuntimeError when a run answers differently.
    """
    out = [Runs() for _ in runners]
    answered = [False] * len(runners)
    rounds = [repeat] * len(runners)
    for k, runner in enumerate(runners):
        started = time.perf_counter()
        if runner.warm_up is None:
            out[k].result = runner.run()
            answered[k] = True
        else:
            runner.warm_up()
        if runner.may_shorten and slow_seconds is not None and slow_repeat is not None:
            if time.perf_counter() - started > slow_seconds:
                rounds[k] = min(repeat, slow_repeat)
    for round_ in range(repeat):
        for k, runner in enumerate(runners):
            if round_ >= rounds[k]:
                continue
            runs = out[k]
            before = rchar(runner.pid)
            started = time.perf_counter()
            found = runner.run()
            runs.times.append(time.perf_counter() - started)
            runs.reads.append(rchar(runner.pid) - before)
            if not answered[k]:
                runs.result, answered[k] = found, True
            elif not same(found, runs.result):
                raise RuntimeError(
                    f"the result changed between runs: {_show(runs.result)} then {_show(found)}"
                )
    return out


def peak_rss(pid: int | str = "self") -> int:
    """The peak resident set of a process in bytes (``VmHWM``, since it started or since
    :func:`reset_peak_rss`); ``"tree:<pid>"`` sums the peaks of the process and its living
    descendants (a JVM and its Python workers: their peaks need not coincide, so the sum is an
    upper bound of the tree's peak)."""
    if isinstance(pid, str) and pid.startswith("tree:"):
        return sum(_vm_hwm(p) for p in process_tree(int(pid[5:])))
    return _vm_hwm(pid)


def _vm_hwm(pid: int | str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError):  # a worker that exited in between
        return 0
    return 0  # a zombie (exited, not yet reaped) holds no memory and has no VmHWM line


def reset_peak_rss(pid: int | str = "self") -> None:
    """Set the peak resident set of the process (or of each process of ``"tree:<pid>"``) back to
    its current resident set (Linux: ``5`` written to ``/proc/<pid>/clear_refs``)."""
    pids = process_tree(int(pid[5:])) if isinstance(pid, str) and pid.startswith("tree:") else [pid]
    for one in pids:
        try:
            with open(f"/proc/{one}/clear_refs", "w", encoding="ascii") as handle:
                handle.write("5")
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            pass  # exited in between, or a zombie


def measure(run: Callable[[], Any], repeat: int, pid: int | str = "self") -> Runs:
    """One warm-up, then ``repeat`` timed runs of ``run``; each must answer as the warm-up did."""
    return measure_interleaved([Runner(run, pid)], repeat)[0]


# ----------------------------------------------------------------------------- data


def events_folder_name(rows: int, files: int, row_group_rows: int, writer: str, payload: bool) -> str:
    """The folder of a sample event log, named after its parameters."""
    return f"events-{rows}-f{files}-rg{row_group_rows}-{writer}{'' if payload else '-nopayload'}"


def ensure_events(
    folder: Path, spec: EventsSpec, console: Console, spark: Callable[[], SparkSession]
) -> tuple[float | None, bool]:
    """Write the sample event log ``spec`` into ``folder`` unless a finished copy is there.

    Returns the seconds the writing took (this run's or the earlier run's, from the marker) and
    whether it happened now.
    """
    from vpush.sample import write_events

    # The marker sits beside the folder: engines list every file inside it.
    marker = folder.with_name(folder.name + ".done.json")
    if marker.is_file():
        return json.loads(marker.read_text(encoding="utf-8")).get("seconds"), False
    console.print(f"writing {spec.rows:,} events into {spec.files} file(s) with {spec.writer} ...")
    started = time.perf_counter()
    write_events(
        folder,
        spec,
        overwrite=True,
        spark=spark() if spec.writer == "spark" else None,
        on_file_written=lambda done, total: console.print(f"  file {done} of {total} written"),
    )
    seconds = time.perf_counter() - started
    marker.write_text(json.dumps({"spec": asdict(spec), "seconds": seconds}) + "\n", encoding="utf-8")
    return seconds, True


def ensure_json_copy(folder: Path, console: Console) -> tuple[Path, float | None, bool]:
    """The same events as JSON text, the baseline with no Variant at all: beside each part file
    of ``folder`` one with its ``id`` and its ``event`` as a string column holding DuckDB's JSON
    of the variant, with the same rows per row group, written unless a finished copy is there.

    DuckDB writes the text (``CAST(event AS JSON)``), not vpush, so that the baseline does not
    depend on what it is compared with. Returns the copy's folder, the seconds the writing took
    (now or in the earlier run) and whether it happened now.
    """
    import duckdb
    import pyarrow.parquet as pq

    out = folder.with_name(folder.name + "-json")
    marker = out.with_name(out.name + ".done.json")
    if marker.is_file():
        return out, json.loads(marker.read_text(encoding="utf-8")).get("seconds"), False
    sources = part_files(folder)
    console.print(f"writing the JSON-text copy of {folder.name} ({len(sources)} file(s)) ...")
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("part-*.parquet"):
        old.unlink()
    started = time.perf_counter()
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET enable_progress_bar = false")
    for source in sources:
        group_rows = pq.ParquetFile(source).metadata.row_group(0).num_rows
        con.execute(
            "COPY (SELECT id, CAST(event AS JSON)::VARCHAR AS event FROM read_parquet(?)) TO "
            f"{_sql_text(str(out / source.name))} (FORMAT parquet, ROW_GROUP_SIZE {int(group_rows)})",
            [str(source)],
        )
    seconds = time.perf_counter() - started
    marker.write_text(json.dumps({"source": folder.name, "seconds": seconds}) + "\n", encoding="utf-8")
    return out, seconds, True


def _sql_text(text: str) -> str:
    """A SQL string literal (DuckDB's COPY takes no parameter for its target)."""
    return "'" + text.replace("'", "''") + "'"


def part_files(folder: Path) -> tuple[Path, ...]:
    """The sample's ``part-*.parquet`` files in id order; exits when there are none."""
    files = tuple(sorted(folder.glob("part-*.parquet")))
    if not files:
        marker = folder.name + ".done.json"
        raise SystemExit(f"no part-*.parquet files in {folder}; delete {marker} to write them again")
    return files


@dataclass(frozen=True)
class FooterFacts:
    """What the footers of a sample's files say about it, and about one timestamp leaf."""

    rows: int
    row_groups: int
    leaf_bytes: int
    """The compressed size of the leaf's column chunks, over all row groups."""
    leaf_min: int
    leaf_max: int
    """The leaf's bounds over all row groups, in microseconds since the epoch."""


def footer_facts(files: Sequence[Path], leaf: str) -> FooterFacts:
    """Rows, row groups and the bounds of the timestamp ``leaf`` (a dotted Parquet path), from
    the footers; exits when a row group has no min/max for it."""
    import pyarrow.parquet as pq

    rows = row_groups = leaf_bytes = 0
    low: int | None = None
    high: int | None = None
    for path in files:
        meta = pq.ParquetFile(path).metadata
        rows += meta.num_rows
        row_groups += meta.num_row_groups
        for rg in range(meta.num_row_groups):
            group = meta.row_group(rg)
            for c in range(group.num_columns):
                column = group.column(c)
                if column.path_in_schema != leaf:
                    continue
                leaf_bytes += column.total_compressed_size
                stats = column.statistics
                if stats is None or not stats.has_min_max:
                    raise SystemExit(f"{path.name}: no min/max statistics for {leaf} in row_group {rg}")
                lo, hi = micros(stats.min), micros(stats.max)
                low = lo if low is None else min(low, lo)
                high = hi if high is None else max(high, hi)
    if low is None or high is None:
        raise SystemExit(f"no {leaf} leaf in {files[0].parent if files else 'the files'}")
    return FooterFacts(rows, row_groups, leaf_bytes, low, high)


def micros(value: Any) -> int:
    """Microseconds since the epoch of a footer bound (UTC-adjusted, or naive read as UTC)."""
    if isinstance(value, dt.datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=dt.timezone.utc)
        return (moment - EPOCH) // dt.timedelta(microseconds=1)
    return int(value)


def timestamp_literal(value: int) -> str:
    """A timestamp literal in UTC with all six fraction digits, from microseconds."""
    return (EPOCH + dt.timedelta(microseconds=value)).strftime("%Y-%m-%d %H:%M:%S.%f")


# ----------------------------------------------------------------------------- Spark


class LazySpark:
    """One local Spark session, started on first use; a failure to start is kept and re-raised."""

    def __init__(self, app_name: str, conf: dict[str, str]) -> None:
        self.app_name = app_name
        self.conf = conf
        self.session: SparkSession | None = None
        self.failure: Exception | None = None

    def __call__(self) -> SparkSession:
        if self.failure is not None:
            raise self.failure
        if self.session is None:
            from vpush.sample import local_spark

            try:
                self.session = local_spark(self.app_name, self.conf)
            except Exception as exc:  # kept to report it; the other engines still run
                self.failure = exc
                raise
        return self.session

    def stop(self) -> None:
        if self.session is not None:
            self.session.stop()


def jvm_pid(session: SparkSession) -> int:
    """The process id of the session's JVM, which reads the files."""
    return int(session.sparkContext._jvm.java.lang.ProcessHandle.current().pid())  # type: ignore[union-attr]


def spark_scan_metrics(frame: DataFrame) -> dict[str, int]:
    """The SQL metrics of the file scans of an executed DataFrame, by display name, summed."""
    totals: dict[str, int] = {}
    stack = [frame._jdf.queryExecution().executedPlan()]
    while stack:
        node = stack.pop()
        name = str(node.nodeName())
        if name.startswith("AdaptiveSparkPlan"):
            stack.append(node.executedPlan())
            continue
        if "QueryStage" in name:
            stack.append(node.plan())
            continue
        if name.startswith("Scan"):
            entries = node.metrics().iterator()
            while entries.hasNext():
                entry = entries.next()
                metric = entry._2()
                label = str(metric.name().get()) if metric.name().isDefined() else str(entry._1())
                totals[label] = totals.get(label, 0) + int(metric.value())
        children = node.children()
        stack.extend(children.apply(i) for i in range(children.size()))
    return totals


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message, or its class name."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def pyspark_version() -> str:
    try:
        import pyspark
    except ImportError:
        return "not installed"
    return str(pyspark.__version__)


def versions() -> dict[str, str]:
    """The versions that the numbers depend on."""
    import duckdb
    import pyarrow as pa

    import vpush

    return {
        "vpush": getattr(vpush, "__version__", "?"),
        "duckdb": duckdb.__version__,
        "pyarrow": pa.__version__,
        "pyspark": pyspark_version(),
        "python": platform.python_version(),
    }


# ----------------------------------------------------------------------------- report


def make_console() -> Console:
    """A console as wide as the terminal, or 120 columns when the output is a file or a pipe
    (as under make), wide enough for the tables."""
    return Console(width=None if sys.stdout.isatty() else 120)


def ratio(value: float | None, base: float | None) -> str:
    """``value / base`` as ``12.3x``, or empty when either is missing (or the base is zero)."""
    if value is None or not base:
        return ""
    return f"{value / base:,.1f}x"


def print_table(
    console: Console,
    title: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    left: Sequence[str] | None = None,
) -> None:
    """A results table in the terminal; with ``left``, the columns it names are aligned left and
    the others (numbers) right."""
    from rich.table import Table

    table = Table(title=title)
    for header in headers:
        justify: JustifyMethod = "left" if left is None or header in left else "right"
        table.add_column(header, justify=justify, overflow="fold")
    for row in rows:
        table.add_row(*row)
    console.print(table)


def print_notes(console: Console, notes: Sequence[str], misses: Sequence[str] = ()) -> None:
    """The notes under a results table, then each missed target in red."""
    for line in notes:
        console.print(f"  {line}", markup=False, highlight=False)
    for line in misses:
        console.print(f"[bold red]TARGET MISSED[/] {line}", highlight=False)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table; a ``|`` in a cell is escaped."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
    return lines


def markdown_document(
    title: str,
    context: Sequence[str],
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    notes: Sequence[str],
) -> str:
    """A title, context paragraphs, one table and a list of notes."""
    lines = [f"# {title}", "", *context, "", *markdown_table(headers, rows)]
    lines += ["", *(f"- {n}" for n in notes), ""]
    return "\n".join(lines)


def update_readme(readme: Path, marker: str, block: str) -> bool:
    """Replace the text between ``<!-- bench:marker -->`` and ``<!-- /bench:marker -->`` in
    ``readme`` with ``block``; False when the file or the markers are not there."""
    if not readme.is_file():
        return False
    begin_mark, end_mark = f"<!-- bench:{marker} -->", f"<!-- /bench:{marker} -->"
    text = readme.read_text(encoding="utf-8")
    begin, end = text.find(begin_mark), text.find(end_mark)
    if begin < 0 or end < begin:
        return False
    readme.write_text(text[: begin + len(begin_mark)] + "\n" + block + "\n" + text[end:], encoding="utf-8")
    return True
