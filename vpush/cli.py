"""The ``vpush`` command.

One subcommand per verb, each parsed by its own subparser and run by its own ``_run_<verb>``
function, so that a new verb is one ``_add_<verb>`` and one ``_run_<verb>``. Errors that vpush
raises on purpose (:class:`VpushError`) and file-system errors print as one line on stderr, with
the exit codes :data:`EXIT_CODES_HELP` lists; a traceback means a bug.

Example:
    >>> args = build_parser().parse_args(["sample", "events", "out", "--rows", "5_000"])
    >>> args.command, args.dataset, args.rows, args.files, args.writer, args.payload
    ('sample', 'events', 5000, 1, 'duckdb', True)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from vpush.codec.errors import VpushError

if TYPE_CHECKING:
    import pyarrow as pa

    from vpush.connection import Relation
    from vpush.sample import SampleResult

PROG = "vpush"
EXIT_OK = 0
EXIT_ERROR = 1  # the query or the data it reads: vpush's own errors
EXIT_USAGE = 2  # argparse's own code for a bad command line
EXIT_IO = 3  # the command could not read or write a file of its own (--file, --output, sample's folder)
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_CLOSED_PIPE = 141  # 128 + SIGPIPE: the reader of stdout went away
EXIT_CODES_HELP = """exit codes:
  0    success
  1    an error in the query or the data it reads (one line on stderr: the error
       class where Spark has one, the file, column path, JSON path and byte offset
       where known)
  2    a bad command line
  3    the command could not read or write a file of its own (--file, --output,
       the folder sample writes to)
  130  interrupted (Ctrl-C)
  141  stdout closed by its reader (vpush query ... | head -1)"""


def _int_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: an integer >= ``minimum``, allowing ``_`` separators (``5_000_000``)."""

    def parse(text: str) -> int:
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


_positive_int = _int_at_least(1)
_non_negative_int = _int_at_least(0)


# ----------------------------------------------------------------------------- sample


def _add_sample(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from vpush.sample import DEFAULT_ROW_GROUP_ROWS, WRITERS

    sample = commands.add_parser(
        "sample",
        help="write sample Parquet files with a shredded Variant column",
        description="Write sample Parquet files with a shredded Variant column.",
    )
    datasets = sample.add_subparsers(dest="dataset", metavar="DATASET", required=True)
    events = datasets.add_parser(
        "events",
        help="a web/app event log: id bigint, event variant (ts, type, user, device, ...)",
        description=(
            "Write a deterministic event log: `id` (bigint, increasing) and `event`, a Variant "
            "shredded on ts, type, user{id,country,plan}, device{os,browser,mobile}, amount, tags "
            "and status; `payload` stays in the residual value. The same seed gives the same data "
            "with either writer."
        ),
    )
    events.add_argument("out", metavar="OUT", help="folder to create; files are part-00000.parquet ...")
    events.add_argument("--rows", type=_positive_int, required=True, metavar="N", help="rows in all")
    events.add_argument("--files", type=_positive_int, default=1, metavar="K", help="files (default 1)")
    events.add_argument(
        "--row-group-rows",
        type=_positive_int,
        default=DEFAULT_ROW_GROUP_ROWS,
        metavar="R",
        help=f"rows per row group (default {DEFAULT_ROW_GROUP_ROWS}); DuckDB rounds up to a multiple of 2048",
    )
    events.add_argument(
        "--writer", choices=WRITERS, default="duckdb", help="engine that writes (default duckdb)"
    )
    events.add_argument("--seed", type=_non_negative_int, default=0, metavar="S", help="seed (default 0)")
    events.add_argument(
        "--no-payload",
        dest="payload",
        action="store_false",
        help="leave out `payload`, so the top-level residual value is all-null",
    )
    events.add_argument("--overwrite", action="store_true", help="replace the part files of a non-empty OUT")
    events.set_defaults(run=_run_sample)


def _progress_callback(
    total: int, what: str = "writing files"
) -> tuple[Callable[[int, int], None] | None, Callable[[], None]]:
    """A rich progress bar on stderr when it is a terminal; nothing otherwise (logs, pipes, CI).

    Returns ``update(done, total)`` (None without a terminal) and ``stop()``.
    """
    if not sys.stderr.isatty():
        return None, lambda: None
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    progress = Progress(
        SpinnerColumn(),
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = progress.add_task(what, total=total)
    progress.start()

    def update(done: int, total: int) -> None:
        progress.update(task, completed=done, total=total)

    return update, progress.stop


def _format_report(result: SampleResult) -> list[str]:
    """The summary printed after a sample run: where the data went and how it is shredded."""
    spec = result.spec
    report = result.report
    lines = [
        (
            f"wrote {spec.rows:,} rows to {result.files[0].parent}: {len(result.files)} file(s), "
            f"{report.row_groups} row group(s), writer {spec.writer}, seed {spec.seed}, "
            f"in {result.seconds:.1f} s"
        ),
        "shredding checked in the footers (non-null slots per leaf, summed over row groups):",
        f"  {'field':<22}{'typed_value':>14}{'value':>14}",
    ]
    prefix = "event.typed_value."
    for name, counts in report.leaves.items():
        if not (name.startswith(prefix) and name.endswith(".typed_value")):
            continue
        field = name[len(prefix) : -len(".typed_value")]
        residual = report.leaves.get(f"{prefix}{field}.value")
        label = field.replace(".typed_value.list.element", "[]").replace(".typed_value", "")
        value = f"{residual.non_null:,}" if residual is not None else "-"
        lines.append(f"  {label:<22}{counts.non_null:>14,}{value:>14}")
    top = report.leaves.get("event.value")
    if top is not None:
        lines.append(f"  {'(residual object)':<22}{'-':>14}{top.non_null:>14,}")
    where = ", ".join(f"{file}#{rg}" for file, rg in report.status_row_groups) or "none"
    lines.append(f"status strings in the residual of row group(s): {where}")
    return lines


def _run_sample(args: argparse.Namespace) -> int:
    from vpush.sample import EventsSpec, write_events

    spec = EventsSpec(
        rows=args.rows,
        files=args.files,
        row_group_rows=args.row_group_rows,
        writer=args.writer,
        seed=args.seed,
        payload=args.payload,
    )
    on_file_written, stop = _progress_callback(spec.files)
    try:
        result = write_events(args.out, spec, overwrite=args.overwrite, on_file_written=on_file_written)
    finally:
        stop()
    print("\n".join(_format_report(result)))
    return EXIT_OK


# ----------------------------------------------------------------------------- query, explain

OUTPUT_FORMATS = ("table", "csv", "jsonl", "parquet")


def _table_arg(text: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=PATH, got {text!r}")
    return name, path


def _add_sql_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sql", nargs="?", help="the Spark SQL query (or use --file)")
    parser.add_argument("-f", "--file", help="read the query from this file ('-' for stdin)")
    parser.add_argument(
        "-t",
        "--table",
        action="append",
        type=_table_arg,
        default=[],
        metavar="NAME=PATH",
        help="register a table over a folder, file or glob of Parquet files (repeatable)",
    )
    parser.add_argument("--time-zone", help="session time zone (IANA name); default: the machine's")


def _add_query(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    query = commands.add_parser("query", help="run a Spark SQL query over Parquet files")
    _add_sql_arguments(query)
    query.add_argument("--format", choices=OUTPUT_FORMATS, default="table", help="output format")
    query.add_argument("-o", "--output", help="write to this file (required for parquet)")
    query.add_argument("--limit", type=_positive_int, default=None, help="rows shown by --format table")
    query.set_defaults(run=_run_query)
    explain = commands.add_parser("explain", help="show how vpush would run a query")
    _add_sql_arguments(explain)
    explain.set_defaults(run=_run_explain)
    rewrite = commands.add_parser(
        "rewrite",
        help="print the query as vpush rewrites it for an engine",
        description="Print the query as vpush rewrites it: variant extractions become reads of "
        "the shredded leaves of each registered table's files.",
    )
    _add_sql_arguments(rewrite)
    rewrite.add_argument(
        "--dialect",
        choices=("duckdb", "spark"),
        default="duckdb",
        help="duckdb: the SQL the DuckDB engine runs; spark: a PySpark script for spark-submit",
    )
    rewrite.set_defaults(run=_run_rewrite)


def _relation(args: argparse.Namespace) -> Relation:
    import vpush

    if args.file is not None and args.sql is not None:
        raise VpushError("give the query either as an argument or with --file, not both")
    if args.file is not None:
        text = sys.stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()
    elif args.sql is not None:
        text = args.sql
    else:
        raise VpushError("no query: give it as an argument or with --file")
    con = vpush.connect(time_zone=args.time_zone)
    for name, path in args.table:
        con.register(name, path)
    return con.sql(text)


def _read_result(rel: Relation, *, year_month_intervals: bool) -> pa.Table:
    """Run the query, with a progress bar over the rows the scans read when stderr is a terminal
    (``year_month_intervals``: such a column as its months, for a format that writes Spark's text)."""
    import threading

    total = rel.rows_to_read()
    update, stop = _progress_callback(total, "scanning rows")
    if update is None:
        return rel.fetch_reader(year_month_intervals=year_month_intervals).read_all()
    lock = threading.Lock()
    done = [0]

    def on_rows(rows: int) -> None:  # DuckDB pulls the scans from its own threads
        with lock:
            done[0] += rows
            update(done[0], total)

    try:
        return rel.fetch_reader(on_rows=on_rows, year_month_intervals=year_month_intervals).read_all()
    finally:
        stop()


def _run_query(args: argparse.Namespace) -> int:
    from vpush.connection import render_table

    if args.format == "table" and args.output is not None:
        raise VpushError("--output goes with --format csv, jsonl or parquet")
    if args.format == "parquet" and args.output is None:
        raise VpushError("--format parquet needs --output FILE")
    rel = _relation(args)
    result = _read_result(rel, year_month_intervals=args.format != "parquet")
    time_zone = rel.connection.time_zone
    if args.format == "table":
        from rich.console import Console

        shown = args.limit if args.limit is not None else 20
        console = Console()
        with console.capture() as captured:
            console.print(render_table(result.slice(0, shown), time_zone))
        _write(sys.stdout, captured.get())
        if result.num_rows > shown:
            print(f"({result.num_rows:,} rows, {shown} shown; use --limit or another --format for more)")
        return EXIT_OK
    if args.format == "parquet":
        _write_parquet(result, args.output)
        return EXIT_OK
    from vpush.exec.format_rows import format_rows

    chunks = format_rows(result, args.format, time_zone=time_zone)
    first = next(chunks, "")  # a result Spark's writer refuses fails before the file is opened
    out = open(args.output, "w", encoding="utf-8", newline="") if args.output is not None else sys.stdout
    try:
        _write(out, first)
        for chunk in chunks:
            _write(out, chunk)
    finally:
        if out is not sys.stdout:
            out.close()
    return EXIT_OK


def _write_parquet(result: pa.Table, path: str) -> None:
    """The result as a Parquet file that Spark reads back with the query's types: variant
    columns annotated as VARIANT (unshredded), so that they read as variants, not structs."""
    import os

    from vpush.codec.shred import write_shredded_parquet
    from vpush.optimizer.plan import VARIANT_ARROW_TYPE

    variants = [f.name for f in result.schema if f.type.equals(VARIANT_ARROW_TYPE)]
    try:
        write_shredded_parquet(result, path, {}, variant_columns=variants)
    except OSError as exc:  # the writer's message names its temporary file: name the user's
        errno = exc.errno if exc.errno is not None else 2 if isinstance(exc, FileNotFoundError) else None
        raise OSError(errno, os.strerror(errno) if errno is not None else "cannot be written", path) from exc


def _write(out: TextIO, text: str) -> None:
    """Write ``text`` in slices of 1 MiB: one write of a large text to a closed pipe returns
    without raising (measured on CPython 3.11), where a slice raises ``BrokenPipeError``."""
    for start in range(0, len(text), 1 << 20):
        out.write(text[start : start + (1 << 20)])


def _run_explain(args: argparse.Namespace) -> int:
    print(_relation(args).explain())
    return EXIT_OK


def _run_rewrite(args: argparse.Namespace) -> int:
    rel = _relation(args)
    if args.dialect == "duckdb":
        print(rel.plan.sql("duckdb", pretty=True))
        return EXIT_OK
    print(spark_script(rel, dict(args.table)))
    return EXIT_OK


def spark_script(rel: Relation, tables: dict[str, str]) -> str:
    """A PySpark script that runs ``rel``'s query on a cluster through vpush's Spark engine.

    The plan is made again when the script runs (the files may have changed since); the SQL that
    Spark runs over vpush's scans, as planned now, is shown in a comment.
    """
    import os

    located = {name: os.path.abspath(path) for name, path in tables.items()}
    planned = "\n".join("#   " + line for line in rel.plan.sql("spark", pretty=True).splitlines())
    return f'''\"\"\"Run a Spark SQL query through vpush's Spark engine (written by `vpush rewrite --dialect spark`).

Submit it with spark-submit; vpush must be installed on the driver and on the executors
(`pip install vpush`), and the files must be readable from both.
\"\"\"
from pyspark.sql import SparkSession

import vpush

TABLES = {located!r}
SQL = {rel.query!r}

spark = SparkSession.builder.appName("vpush").getOrCreate()
con = vpush.connect(engine="spark", spark=spark)
for name, path in TABLES.items():
    con.register(name, path)
frame = con.sql(SQL).to_spark()
# Spark runs this over vpush's scans (one view per table reference; variant extractions are
# computed in the scan, from the shredded leaves), as planned when the script was written:
{planned}
frame.show(truncate=False)
'''


# ----------------------------------------------------------------------------- inspect


def _add_inspect(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    inspect = commands.add_parser(
        "inspect",
        help="show how the variant columns of Parquet files are shredded (from their footers)",
        description=(
            "For each variant column: its shredding schema, and per shredded path the values in "
            "typed_value and in the residual value, the row groups with residuals, and the bounds."
        ),
    )
    inspect.add_argument("files", nargs="+", metavar="FILE", help="Parquet files")
    inspect.add_argument(
        "--row-groups",
        action="store_true",
        help="one line per row group and path: typed and residual values, bounds",
    )
    inspect.set_defaults(run=_run_inspect)


def _run_inspect(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from vpush.inspect_files import inspect_file

    console = Console()
    if args.row_groups:
        from vpush.inspect_files import inspect

        for path in args.files:
            rows = inspect(path)
            table = Table(title=f"{path}: per row group")
            for name in ("row_group", "rows", "column", "path", "shredded_as", "typed", "residual", "min", "max"):
                table.add_column(name.replace("_", " "), overflow="fold")
            for row in rows.to_pylist():
                table.add_row(*("" if row[k] is None else str(row[k]) for k in (
                    "row_group", "rows", "column", "path", "shredded_as", "typed", "residual", "min", "max")))
            console.print(table)
        return EXIT_OK
    for path in args.files:
        report = inspect_file(path)
        console.print(f"[bold]{report.path}[/]: {report.rows:,} rows, {report.row_groups} row groups")
        if not report.columns:
            console.print("  no variant column")
        for column in report.columns:
            table = Table(title=f"{column.column} (variant, recognised by {column.recognised_by})")
            table.add_column("path", no_wrap=True)
            for heading in ("shredded as", "typed", "residual", "row groups with residuals", "min", "max"):
                table.add_column(heading, overflow="fold")
            for p in column.paths:
                table.add_row(
                    p.path,
                    p.shredded_as,
                    "" if p.typed_values is None else f"{p.typed_values:,}",
                    "" if p.residual_values is None else f"{p.residual_values:,}",
                    str(p.row_groups_with_residuals) if p.residual_values else "",
                    "" if p.min is None else str(p.min),
                    "" if p.max is None else str(p.max),
                )
            console.print(table)
    return EXIT_OK


# ----------------------------------------------------------------------------- entry point


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``vpush`` command, with every subcommand."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Query shredded Parquet Variant data with Spark SQL semantics.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_sample(commands)
    _add_query(commands)
    _add_inspect(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``vpush`` command and return its exit code.

    Args:
        argv: Arguments after the program name; ``sys.argv[1:]`` by default.

    Returns:
        One of the codes :data:`EXIT_CODES_HELP` lists.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed usage or help already
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        code = _run_interruptibly(run, args)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at the interpreter's exit
        return code
    except BrokenPipeError:
        return _closed_pipe()
    except VpushError as exc:
        print(f"{PROG}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        print(f"{PROG}: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return EXIT_IO
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _run_interruptibly(run: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``run(args)`` in a thread of its own, while the main thread waits where Ctrl-C reaches it.

    DuckDB runs a query without looking at signals, so a KeyboardInterrupt would wait for the whole
    query (and one raised inside vpush's functions becomes DuckDB's own error). On Ctrl-C the
    process ends at once with :data:`EXIT_INTERRUPTED`, the query still running in its thread.
    """
    import os
    import threading

    if threading.current_thread() is not threading.main_thread():
        return run(args)
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["code"] = run(args)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread as it is
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="vpush-command", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr, flush=True)
        os._exit(EXIT_INTERRUPTED)
    if "error" in outcome:
        raise outcome["error"]
    return int(outcome["code"])


def _closed_pipe() -> int:
    """The reader of stdout went away (``vpush query ... | head -1``): stop quietly, as a
    process killed by SIGPIPE does, without the interpreter's complaint when it flushes stdout."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a descriptor (captured in a test)
        pass
    return EXIT_CLOSED_PIPE


if __name__ == "__main__":
    sys.exit(main())
