"""Reconstruction throughput: vpush's compiled kernel, its pure-Python reference and DuckDB, on
one shredded event log, side by side in one run.

    .venv/bin/python bench/unshred_throughput.py [--rows 1000000] [--repeat 5] [--dir build/bench/events]

Each figure is the median of ``--repeat`` runs, in rows per second:

- vpush: ``pyarrow.parquet.read_table`` of the Variant column, then ``unshred_native`` (row
  groups rebuilt in parallel; the time of the kernel alone is shown too);
- vpush's pure-Python ``unshred`` on a 50k-row slice already in memory;
- DuckDB reading the same file as VARIANT. ``count(variant_typeof(event))`` makes it build every
  row's variant, and is its cheapest such query (the baseline of the ratio);
  ``variant_to_parquet_variant(event)`` fetched to Arrow returns what vpush returns.

The goal (the codec issue): vpush at least half of DuckDB's throughput.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

import vpush
from vpush.codec.layout import find_variant_columns
from vpush.codec.native import unshred_native
from vpush.codec.unshred import unshred
from vpush.codec.value import Variant, variant_equal

COLUMN = "event"
PYTHON_SLICE_ROWS = 50_000
CHECKED_ROWS = 2_000
TARGET_RATIO = 0.5
DUCKDB_SHREDDING = (
    "STRUCT(ts TIMESTAMPTZ, type VARCHAR, user STRUCT(id BIGINT, country VARCHAR, plan VARCHAR), "
    "tags VARCHAR[], status BIGINT)"
)


def _sample_file(folder: Path, rows: int) -> Path:
    """A one-file event log of ``rows`` rows: ``vpush sample events``, or (if that module is not
    there) a similar DuckDB ``COPY ... SHREDDING``."""
    path = folder / "part-00000.parquet"
    marker = folder / f".rows-{rows}"
    if path.is_file() and marker.is_file():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    try:
        from vpush.sample import EventsSpec, write_events
    except ImportError:
        _duckdb_events(path, rows)
    else:
        write_events(folder, EventsSpec(rows=rows, files=1), overwrite=True)
    for old in folder.glob(".rows-*"):
        old.unlink()
    marker.touch()
    return path


def _duckdb_events(path: Path, rows: int) -> None:
    con = duckdb.connect()
    con.execute(
        f"""
        COPY (
          SELECT i AS id, {{
            'ts': TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_microseconds(i * 250000),
            'type': ['view', 'click', 'purchase', 'signup'][1 + i % 4],
            'user': {{'id': i % 9973, 'country': ['US', 'IN', 'DE'][1 + i % 3], 'plan': 'free'}},
            'tags': CASE WHEN i % 3 = 0 THEN ['promo'] ELSE ['beta', 'vip'] END,
            'status': 200,
            'payload': {{'page': '/p/' || (i % 500), 'ms': i % 1000}}
          }}::VARIANT AS {COLUMN}
          FROM range({rows}) t(i)
        ) TO '{path}' (FORMAT parquet, SHREDDING {{{COLUMN}: '{DUCKDB_SHREDDING}'}})
        """
    )


def _median_seconds(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _check_against_duckdb(path: Path, ours: pa.StructArray, con: duckdb.DuckDBPyConnection) -> int:
    """How many of the first rows differ, by value, from DuckDB's reading."""
    theirs = (
        con.sql(
            f"SELECT variant_to_parquet_variant({COLUMN})::STRUCT(metadata BLOB, value BLOB) AS v "
            f"FROM read_parquet('{path}') LIMIT {CHECKED_ROWS}"
        )
        .to_arrow_table()
        .column("v")
        .to_pylist()
    )
    differ = 0
    for a, b in zip(theirs, ours.slice(0, CHECKED_ROWS).to_pylist()):
        same = a is None and b is None
        if a is not None and b is not None:
            same = variant_equal(Variant(a["metadata"], a["value"]), Variant(b["metadata"], b["value"]))
        differ += not same
    return differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=Path("build") / "bench" / "events")
    args = parser.parse_args(argv)

    path = _sample_file(args.dir, args.rows)
    pf = pq.ParquetFile(path)
    rows = pf.metadata.num_rows
    con = duckdb.connect()
    threads = con.sql("SELECT current_setting('threads')").fetchall()[0]
    print(f"file: {path} ({rows:,} rows, {pf.metadata.num_row_groups} row groups, "
          f"{path.stat().st_size / 1e6:.1f} MB); DuckDB threads: {threads[0]}; "
          f"pyarrow reads with threads; the kernel rebuilds row groups on {pa.cpu_count()} threads")  # fmt: skip

    def vpush_read() -> pa.StructArray:
        layout = find_variant_columns(pq.ParquetFile(path), file=str(path))[COLUMN]
        column = pq.read_table(path, columns=[COLUMN]).column(COLUMN)
        return unshred_native(column, layout=layout, file=str(path))

    def vpush_api() -> pa.Table:
        con_api = vpush.connect(time_zone="UTC")
        con_api.register("events", path)
        return con_api.sql(f"SELECT {COLUMN} FROM events").to_arrow()

    layout = find_variant_columns(pf, file=str(path))[COLUMN]
    in_memory = pq.read_table(path, columns=[COLUMN]).column(COLUMN)
    combined = in_memory.combine_chunks()
    python_slice = combined.slice(0, min(PYTHON_SLICE_ROWS, rows))
    ours = vpush_read()
    if unshred(layout, python_slice).to_pylist() != ours.slice(0, len(python_slice)).to_pylist():
        print("the kernel and the pure-Python unshred disagree", file=sys.stderr)
        return 1
    differ = _check_against_duckdb(path, ours, con)
    del ours

    typeof_sql = f"SELECT count(variant_typeof({COLUMN})) FROM read_parquet('{path}')"
    arrow_sql = f"SELECT variant_to_parquet_variant({COLUMN}) AS {COLUMN} FROM read_parquet('{path}')"
    results = [
        ("vpush: pyarrow read + unshred_native", rows, _median_seconds(vpush_read, args.repeat)),
        ("vpush API: SELECT event FROM t -> to_arrow()", rows, _median_seconds(vpush_api, args.repeat)),
        ("  of which unshred_native (in memory)", rows,
         _median_seconds(lambda: unshred_native(in_memory, layout=layout), args.repeat)),
        (f"vpush: pure-Python unshred ({len(python_slice) // 1000}k-row slice)", len(python_slice),
         _median_seconds(lambda: unshred(layout, python_slice), args.repeat)),
        ("DuckDB: count(variant_typeof(event))", rows,
         _median_seconds(lambda: con.sql(typeof_sql).fetchall(), args.repeat)),
        ("DuckDB: variant_to_parquet_variant -> Arrow", rows,
         _median_seconds(lambda: con.sql(arrow_sql).to_arrow_table(), args.repeat)),
    ]  # fmt: skip
    print(f"\n{'what':<48} {'rows/s':>14} {'median s':>10}")
    for what, n, seconds in results:
        print(f"{what:<48} {n / seconds:>14,.0f} {seconds:>10.3f}")
    vpush_rate = results[0][1] / results[0][2]
    api_rate = results[1][1] / results[1][2]
    duckdb_rate = results[4][1] / results[4][2]
    like_for_like = results[5][1] / results[5][2]
    ratio = vpush_rate / duckdb_rate
    print(f"\nratio vpush / DuckDB: {ratio:.2f} (count of variant_typeof), "
          f"{vpush_rate / like_for_like:.2f} (variant_to_parquet_variant to Arrow); "
          f"target >= {TARGET_RATIO}")  # fmt: skip
    print(f"ratio through the public API / DuckDB: {api_rate / duckdb_rate:.2f}")
    print(f"first {CHECKED_ROWS:,} rows: {differ} differ by value from DuckDB's reading")
    return 0 if ratio >= TARGET_RATIO and differ == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
