"""File skipping from a Delta log: a 1% time window on the shredded ``ts`` of a sample event log
registered as a Delta table, against the same files registered as a plain folder.

    .venv/bin/python bench/delta.py --events build/demo/events [--table build/bench/delta] [--repeat 5]

``--events`` is a folder written by ``vpush sample events`` (sorted by ``ts``, so a window falls
in one or two files). The Delta table links those files into its own folder and commits them
with vpush's statistics (``add`` actions carrying the Variant bounds of ``$['ts']``). Per
registration the table shows the footers opened while planning (the catalog's footer cache,
which starts empty), the files skipped by the log, the row groups read, the count, and the
median time of ``--repeat`` runs after an untimed warm-up (planning included, a fresh
connection each run); ``--out`` writes that table to ``delta.md`` there. The exit
status is 0 when the counts agree and the Delta table opens only the footers of files whose log
statistics may match.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import vpush
from vpush.codec.value import Variant
from vpush.codec.z85 import decode_z85
from vpush.optimizer.catalog import Catalog
from vpush.commit_delta import add_action, commit_delta, next_version
from vpush.optimizer.delta_log import read_delta_log

SCHEMA = {"type": "struct", "fields": [{"name": "id", "type": "long", "nullable": True, "metadata": {}},
                                       {"name": "event", "type": "variant", "nullable": True, "metadata": {}}]}
SQL = "SELECT count(*) AS n FROM t WHERE event:ts::timestamp >= '{lo}' AND event:ts::timestamp < '{hi}'"


def build_table(events: Path, table: Path) -> None:
    """Link the sample's files into ``table`` and commit them, once."""
    if next_version(table) > 0:
        return
    table.mkdir(parents=True, exist_ok=True)
    catalog = Catalog()
    adds = []
    for source in sorted(events.glob("*.parquet")):
        target = table / source.name
        if not target.exists():
            os.link(source, target)
        adds.append(add_action(table, catalog.file_info(str(target)), SCHEMA))
    protocol = {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": ["variantType", "variantShredding"],
                             "writerFeatures": ["variantType", "variantShredding"]}}
    metadata = {"metaData": {"id": "bench", "format": {"provider": "parquet", "options": {}}, "schemaString": json.dumps(SCHEMA),
                             "partitionColumns": [], "configuration": {"delta.enableVariantShredding": "true"}}}
    commit_delta(table, 0, [protocol, metadata, *adds])


def window(table: Path) -> tuple[str, str]:
    """The middle 1% of the span of ``ts``, from the log's Variant statistics."""
    lows, highs = [], []
    for f in read_delta_log(table).files:
        stats = json.loads(f.stats or "{}")
        lows.append(Variant.from_concatenated(decode_z85(stats["minValues"]["event"])).get("$['ts']").scalar())
        highs.append(Variant.from_concatenated(decode_z85(stats["maxValues"]["event"])).get("$['ts']").scalar())
    lo, hi = min(lows), max(highs)
    start = lo + (hi - lo) * 0.5
    end = start + (hi - lo) * 0.01
    return start.strftime("%Y-%m-%d %H:%M:%S"), end.strftime("%Y-%m-%d %H:%M:%S")


def measure(location: Path, sql: str, repeat: int) -> dict[str, object]:
    times = []
    for run in range(repeat + 1):  # the first run warms the process up (imports, DuckDB) and is not timed
        started = time.perf_counter()
        con = vpush.connect(time_zone="UTC")
        con.register("t", location)
        relation = con.sql(sql)
        count = relation.to_arrow().column("n")[0].as_py()
        if run:
            times.append((time.perf_counter() - started) * 1000)
    scan = relation.plan.scans[0]
    return {
        "footers opened": len(con.catalog._footers),  # the footer cache of this connection
        "files": len(scan.files) + len(scan.log_skipped),
        "skipped by the log": len(scan.log_skipped),
        "row groups read": sum(len(f.row_groups) for f in scan.files),
        "count": count,
        "ms (median)": round(statistics.median(times), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=Path, required=True)
    parser.add_argument("--table", type=Path, default=Path("build/bench/delta"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None, help="a folder to write delta.md in (docs/bench)")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    build_table(args.events, args.table)
    lo, hi = window(args.table)
    sql = SQL.format(lo=lo, hi=hi)
    print(sql)
    rows = {"Delta table": measure(args.table, sql, args.repeat), "plain folder": measure(args.events, sql, args.repeat)}
    lines = ["| registration | " + " | ".join(rows["Delta table"]) + " |", "|---" * (len(rows["Delta table"]) + 1) + "|"]
    for name, row in rows.items():
        lines.append(f"| {name} | " + " | ".join(f"{v:,}" if isinstance(v, int) else str(v) for v in row.values()) + " |")
    print("\n".join(lines))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        header = [
            "**Skipping Delta files from the log** (bench/delta.py)",
            "",
            f"`{sql}` on `{args.events.name}` registered as a Delta table and as a plain folder; "
            f"median of {args.repeat} runs after a warm-up, planning included, a fresh connection each run; load average "
            f"{load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end.",
            "",
        ]
        (args.out / "delta.md").write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    delta = rows["Delta table"]
    opened, files, skipped = (int(str(delta[k])) for k in ("footers opened", "files", "skipped by the log"))
    ok = delta["count"] == rows["plain folder"]["count"] and opened == files - skipped
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
