"""`vpush sample events`: deterministic, realistic, and shredded the way the footers promise."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.writers import leaf_counts, row_group_rows

from vpush.cli import main
from vpush.sample import (
    EVENT_TYPES,
    MAX_INCIDENT_ROWS,
    EventsSpec,
    SampleError,
    SampleResult,
    check_events,
    write_events,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SPEC = EventsSpec(rows=12_000, files=3, row_group_rows=2048, seed=5)
PAYLOAD_KEYS = {
    "view": ["duration_ms", "page", "referrer"],
    "click": ["element", "x", "y"],
    "purchase": ["currency", "qty", "sku"],
    "signup": ["method", "newsletter"],
    "error": ["code", "message", "retryable"],
}


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> SampleResult:
    return write_events(tmp_path_factory.mktemp("events") / "out", SPEC)


def _sql(files: tuple[Path, ...] | list[Path], query: str) -> list[tuple[Any, ...]]:
    """Run ``query`` over the files as table ``t`` (never fetching TIMESTAMPTZ: needs pytz)."""
    paths = ", ".join(f"'{f}'" for f in files)
    with duckdb.connect() as con:
        return con.execute(f"WITH t AS (SELECT * FROM read_parquet([{paths}])) {query}").fetchall()


def _window_ids(spec: EventsSpec) -> list[int]:
    return [i for lo, hi in spec.incident_windows() for i in range(lo, hi)]


# ----------------------------------------------------------------------------- the spec


@pytest.mark.parametrize(
    "changes",
    [
        {"rows": 0},
        {"files": 0},
        {"files": 20_000},
        {"row_group_rows": 0},
        {"seed": -1},
        {"seed": 2**31},
        {"writer": "polars"},
    ],
)
def test_spec_rejects_bad_arguments(changes: dict[str, object]) -> None:
    with pytest.raises(SampleError):
        dataclasses.replace(SPEC, **changes)  # type: ignore[arg-type]


@given(
    rows=st.integers(1, 10_000_000),
    files=st.integers(1, 40),
    row_group_rows=st.integers(1, 300_000),
    seed=st.integers(0, 2**31 - 1),
    writer=st.sampled_from(["duckdb", "spark"]),
)
def test_layout_and_incident_windows(
    rows: int, files: int, row_group_rows: int, seed: int, writer: str
) -> None:
    spec = EventsSpec(
        rows=rows, files=min(files, rows), row_group_rows=row_group_rows, seed=seed, writer=writer
    )  # type: ignore[arg-type]
    bounds = spec.file_bounds()
    assert bounds[0][0] == 0 and bounds[-1][1] == rows, "files should cover every id"
    assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds)), "files should be contiguous"
    groups = spec.expected_row_groups()
    assert all(lo < hi for lo, hi in groups), "row groups should not be empty"
    windows = spec.incident_windows()
    assert 1 <= len(windows) <= 3, "a few incident windows"
    for lo, hi in windows:
        assert 0 < hi - lo <= MAX_INCIDENT_ROWS, "a window is short"
        inside = [g for g in groups if g[0] <= lo and hi <= g[1]]
        assert len(inside) == 1, "a window lies inside one expected row group"
    assert spec.incident_windows() == windows, "windows are a pure function of the spec"


# ----------------------------------------------------------------------------- footers


def test_files_and_row_groups_follow_the_spec(events: SampleResult) -> None:
    assert [f.name for f in events.files] == [
        "part-00000.parquet",
        "part-00001.parquet",
        "part-00002.parquet",
    ]
    ranges = []
    for path in events.files:
        metadata = pq.ParquetFile(path).metadata
        for rg in range(metadata.num_row_groups):
            stats = metadata.row_group(rg).column(0).statistics
            ranges.append((stats.min, stats.max + 1))
    assert ranges == SPEC.expected_row_groups(), "row groups should be cut where the spec says"
    assert events.report.row_groups == len(ranges)


def test_every_leaf_but_status_is_perfectly_shredded(events: SampleResult) -> None:
    leaves = events.report.leaves
    window_rows = len(_window_ids(SPEC))
    for name, counts in leaves.items():
        if name.startswith("event.typed_value.") and name.endswith(".value") and "status" not in name:
            assert counts.non_null == 0, f"Should be all-null: {name}"
    assert leaves["event.typed_value.status.value"].non_null == window_rows, "one residual per window row"
    assert leaves["event.typed_value.status.typed_value"].non_null == SPEC.rows - window_rows
    for name in ("ts", "type", "user.typed_value.id", "device.typed_value.mobile"):
        assert leaves[f"event.typed_value.{name}.typed_value"].nulls == 0, f"Should be dense: {name}"
    assert leaves["event.value"].non_null == SPEC.rows, "payload keeps the top-level value non-null"
    ((purchases,),) = _sql(events.files, "SELECT count(*) FROM t WHERE t.event.type::VARCHAR = 'purchase'")
    assert leaves["event.typed_value.amount.typed_value"].non_null == purchases, "amount only on purchases"


def test_status_residuals_only_in_the_window_row_groups(events: SampleResult) -> None:
    per_group = [
        (path.name, rg, counts["event.typed_value.status.value"][0])
        for path in events.files
        for rg, counts in enumerate(leaf_counts(path))
    ]
    with_residuals = [(name, rg) for name, rg, non_null in per_group if non_null]
    assert with_residuals == list(events.report.status_row_groups)
    assert 1 <= len(with_residuals) < len(per_group), "a few row groups, not all"
    rows = _sql(
        events.files, "SELECT id FROM t WHERE t.event.status::VARCHAR IN ('n/a', 'timeout') ORDER BY id"
    )
    assert [r[0] for r in rows] == _window_ids(SPEC), "strings exactly in the incident windows"


def test_time_grows_across_row_groups_and_files(events: SampleResult) -> None:
    bounds = []
    for path in events.files:
        metadata = pq.ParquetFile(path).metadata
        for rg in range(metadata.num_row_groups):
            group = metadata.row_group(rg)
            columns = [group.column(c) for c in range(group.num_columns)]
            (ts,) = [c for c in columns if c.path_in_schema == "event.typed_value.ts.typed_value"]
            bounds.append((ts.statistics.min, ts.statistics.max))
    assert all(a[1] < b[0] for a, b in itertools.pairwise(bounds)), (
        "ts ranges of row groups should not overlap"
    )
    ((ordered,),) = _sql(
        events.files,
        "SELECT bool_and(d > 0) FROM (SELECT epoch_us(t.event.ts::TIMESTAMPTZ) - "
        "lag(epoch_us(t.event.ts::TIMESTAMPTZ)) OVER (ORDER BY id) AS d FROM t)",
    )
    assert ordered is True, "ts strictly increasing with id"


# ----------------------------------------------------------------------------- values


def test_event_types_are_skewed_as_promised(events: SampleResult) -> None:
    counts = {
        name: n
        for name, n in _sql(events.files, "SELECT t.event.type::VARCHAR, count(*) FROM t GROUP BY ALL")
    }
    for name, percent in EVENT_TYPES:
        share = 100 * counts[name] / SPEC.rows
        assert abs(share - percent) < max(1.5, percent * 0.1), f"{name}: {share:.1f}% vs {percent}%"


def test_fields_hang_together(events: SampleResult) -> None:
    ((bad_amount, bad_mobile, bad_payload, users, countries, empty_tags),) = _sql(
        events.files,
        """SELECT
             count(*) FILTER ((e.amount IS NOT NULL) != (e.type::VARCHAR = 'purchase')),
             count(*) FILTER (e.device.mobile::BOOLEAN != (e.device.os::VARCHAR IN ('android', 'ios'))),
             count(*) FILTER (e.payload IS NULL),
             count(DISTINCT e.user.id::BIGINT),
             count(DISTINCT e.user.country::VARCHAR),
             count(*) FILTER (len(e.tags::VARCHAR[]) = 0)
           FROM (SELECT t.event AS e FROM t)""",
    )
    assert bad_amount == 0, "amount present exactly on purchases"
    assert bad_mobile == 0, "mobile follows the operating system"
    assert bad_payload == 0, "every event has a payload"
    assert users > 1000 and countries == 9, "many users from nine countries"
    assert 0 < empty_tags < SPEC.rows // 4, "some events have no tags"
    keys = _sql(
        events.files,
        "SELECT DISTINCT t.event.type::VARCHAR, json_keys(t.event.payload::JSON) FROM t",
    )
    assert {k: sorted(v) for k, v in keys} == PAYLOAD_KEYS, "payload keys depend on the type"


def test_same_seed_same_bytes(events: SampleResult, tmp_path: Path) -> None:
    again = write_events(tmp_path / "again", SPEC)
    for first, second in zip(events.files, again.files):
        assert first.read_bytes() == second.read_bytes(), f"Should be byte-identical: {first.name}"
    other = write_events(tmp_path / "other", dataclasses.replace(SPEC, seed=6, files=1))
    assert _sql(other.files, "SELECT id, t.event::VARCHAR FROM t LIMIT 50") != _sql(
        events.files, "SELECT id, t.event::VARCHAR FROM t LIMIT 50"
    ), "another seed gives other data"


def test_no_payload_leaves_the_residual_all_null(tmp_path: Path) -> None:
    spec = EventsSpec(rows=3000, row_group_rows=2048, payload=False)
    result = write_events(tmp_path / "bare", spec)
    assert result.report.leaves["event.value"].non_null == 0, "nothing left over to the residual"
    ((payloads,),) = _sql(result.files, "SELECT count(t.event.payload) FROM t")
    assert payloads == 0


def test_check_names_the_leaf_that_breaks_a_rule(events: SampleResult) -> None:
    with pytest.raises(SampleError) as payload_error:
        check_events(events.files, dataclasses.replace(SPEC, payload=False))
    assert payload_error.value.column_path == "event.value"
    # Another seed whose incident window falls in another row group.
    moved = next(
        spec
        for spec in (dataclasses.replace(SPEC, seed=seed) for seed in range(SPEC.seed + 1, SPEC.seed + 50))
        if spec.incident_windows() != SPEC.incident_windows()
    )
    with pytest.raises(SampleError) as status_error:
        check_events(events.files, moved)
    assert status_error.value.column_path == "event.typed_value.status.value"
    assert status_error.value.file is not None and "row_group" in str(status_error.value)


def test_output_folder_rules(tmp_path: Path) -> None:
    spec = EventsSpec(rows=100)
    out = tmp_path / "out"
    write_events(out, spec)
    with pytest.raises(SampleError, match="not empty"):
        write_events(out, spec)
    write_events(out, dataclasses.replace(spec, files=2), overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == ["part-00000.parquet", "part-00001.parquet"]
    (out / "notes.txt").write_text("mine")
    with pytest.raises(SampleError, match="notes.txt"):
        write_events(out, spec, overwrite=True)
    assert (out / "notes.txt").read_text() == "mine", "Should never delete files it did not write"


# ----------------------------------------------------------------------------- Spark


def test_spark_writer_writes_the_same_data(tmp_path: Path, spark: SparkSession) -> None:
    spec = EventsSpec(rows=6000, files=2, row_group_rows=2048, seed=11, writer="spark")
    by_spark = write_events(tmp_path / "spark", spec, spark=spark)
    by_duckdb = write_events(tmp_path / "duckdb", dataclasses.replace(spec, writer="duckdb"))
    assert [row_group_rows(f) for f in by_spark.files] == [[2048, 952], [2048, 952]], "exact row groups"
    for path in by_spark.files:
        assert "event (Variant(1))" in str(pq.ParquetFile(path).schema), "Spark annotates the column"
    assert by_spark.report.leaves == by_duckdb.report.leaves, "same shredding, leaf by leaf"
    assert by_spark.report.status_row_groups == by_duckdb.report.status_row_groups

    def as_json(files: tuple[Path, ...]) -> list[tuple[int, str]]:
        frame = spark.read.parquet(*[str(f) for f in files])
        assert frame.schema["event"].dataType.simpleString() == "variant"
        return [(r[0], r[1]) for r in frame.selectExpr("id", "to_json(event)").orderBy("id").collect()]

    assert as_json(by_spark.files) == as_json(by_duckdb.files), "both writers, same logical rows"
    assert _sql(by_spark.files, "SELECT id, t.event::VARCHAR FROM t ORDER BY id") == _sql(
        by_duckdb.files, "SELECT id, t.event::VARCHAR FROM t ORDER BY id"
    ), "and DuckDB reads them alike"
    assert spark.conf.get("spark.sql.variant.forceShreddingSchemaForTest", None) is None


# ----------------------------------------------------------------------------- the command


def test_cli_writes_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    code = main(["sample", "events", str(out), "--rows", "5_000", "--files", "2", "--seed", "3"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.startswith("wrote 5,000 rows to"), captured.out
    assert "status" in captured.out and "part-0000" in captured.out
    assert captured.err == "", "no progress bar when stderr is not a terminal"
    assert sorted(p.name for p in out.iterdir()) == ["part-00000.parquet", "part-00001.parquet"]


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    assert main(["sample", "events", str(tmp_path / "full"), "--rows", "10"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("vpush: error:") and err.count("\n") == 1, err
    assert main(["sample", "events", str(tmp_path / "y"), "--rows", "10", "--files", "11"]) == 1
    assert "--files" in capsys.readouterr().err
    assert main(["sample", "events", str(tmp_path / "y"), "--rows", "ten"]) == 2, "argparse usage error"
    assert main(["sample", "events", str(tmp_path / "y"), "--rows", "5", "--writer", "polars"]) == 2
    assert main([]) == 2, "a command is required"
