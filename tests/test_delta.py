"""Delta tables: the snapshot replayed from the log (commits, removes, a checkpoint, URI-encoded
paths), the protocol honoured, files skipped from the log's statistics (Variant ones included)
without opening their footers, and answers equal to Spark's over exactly the live files, through
both engines."""
from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import vpush
from support.compare import plain, rows
from support.delta import DeltaLog, field, metadata, protocol
from support.writers import write_with_duckdb, write_with_spark
from vpush.optimizer.delta_log import read_delta_log
from vpush.optimizer.errors import CatalogError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

START = 1704067200  # 2024-01-01 00:00:00 UTC
SHREDDING = "STRUCT(ts TIMESTAMPTZ, user STRUCT(id BIGINT), type VARCHAR, amount DECIMAL(10,2))"
SPARK_SHREDDING = "ts timestamp, user struct<id bigint>, type string, amount decimal(10,2)"


def _duckdb_select(first: int, last: int) -> str:
    return (
        "SELECT i AS id, {'ts': make_timestamptz((" + str(START) + " + i) * 1000000), 'user': {'id': i % 97}, "
        "'type': CASE WHEN i % 3 = 0 THEN 'click' ELSE 'view' END, 'amount': (i / 100)::DECIMAL(10,2)}::VARIANT AS v "
        f"FROM range({first}, {last}) t(i)"
    )


def _spark_select(first: int, last: int) -> str:
    return (
        "SELECT id, to_variant_object(named_struct('ts', timestamp_seconds(" + str(START) + " + id), "
        "'user', named_struct('id', id % 97), 'type', CASE WHEN id % 3 = 0 THEN 'click' ELSE 'view' END, "
        f"'amount', cast(id / 100 AS decimal(10,2)))) AS v FROM range({first}, {last})"
    )


SCHEMA = [field("id", "long"), field("v", "variant"), field("region", "string")]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory, spark: SparkSession) -> Path:
    """Five versions: three files from both writers (one unshredded) in partitions whose values
    need URI encoding, a file added then removed (it stays on disk), a checkpoint at version 2,
    and two commits after it."""
    root = tmp_path_factory.mktemp("delta") / "events table"
    a = root / "region=a%20b" / "part-a.parquet"
    b = root / "region=x%25y" / "part-b.parquet"
    d = root / "region=a%20b" / "part-d.parquet"
    e = root / "region=k%3Dv" / "part-e.parquet"
    write_with_duckdb(a, _duckdb_select(0, 3000), SHREDDING, 1000)
    write_with_duckdb(b, _duckdb_select(3000, 6000), None, 1000)
    write_with_duckdb(d, _duckdb_select(20000, 21000), SHREDDING, 1000)
    written = write_with_spark(spark, root.parent / "spark", _spark_select(6000, 8000), SPARK_SHREDDING, 1000)
    c = root / "region=k%3Dv" / "part-c.parquet"
    c.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(written[0], c)
    write_with_duckdb(e, _duckdb_select(9000, 10000), SHREDDING, 1000)
    log = DeltaLog(root)
    log.commit(protocol(), metadata(SCHEMA, ["region"]))
    log.commit(log.add(a, {"region": "a b"}), log.add(b, {"region": "x%y"}), log.add(d, {"region": "a b"}))
    log.commit(log.remove(d), log.add(c, {"region": "k=v"}))
    log.checkpoint()
    log.commit(log.add(e, {"region": "k=v"}, stats=None))  # no statistics: always read
    log.commit(protocol(writer_features=("appendOnly", "invariants")))  # writer features only
    return root


def _live(root: Path) -> list[str]:
    return [f.path for f in read_delta_log(root).files]


def _spark_view(spark: SparkSession, root: Path, name: str) -> None:
    """Spark over exactly the snapshot's live files, read as plain Parquet, with each file's
    partition values from the log."""
    from pyspark.sql import functions as F

    snapshot = read_delta_log(root)
    frames = []
    for f in snapshot.files:
        frame = spark.read.parquet(f.path)
        for column in snapshot.partition_columns:
            frame = frame.withColumn(column, F.lit(f.partition_values.get(column)).cast("string"))
        frames.append(frame)
    union = functools.reduce(lambda x, y: x.unionByName(y, allowMissingColumns=True), frames)
    union.select("id", "v", "region").createOrReplaceTempView(name)


QUERIES = [
    "SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM t",
    "SELECT region, count(*) AS n, sum(v:amount::decimal(10,2)) AS amount FROM t GROUP BY region ORDER BY region",
    "SELECT id, v:user.id::bigint AS u FROM t WHERE v:ts::timestamp BETWEEN '2024-01-01 01:39:50' AND "
    "'2024-01-01 01:40:10' ORDER BY id",
    "SELECT count(*) AS n FROM t WHERE v:type::string = 'click' AND region = 'x%y'",
    "SELECT id FROM t WHERE id IN (5, 2999, 6500, 9999, 20500) ORDER BY id",
    "SELECT count(*) AS n FROM t WHERE try_variant_get(v, '$.user.id', 'int') = 42",
    "SELECT id, to_json(v) AS j FROM t WHERE region = 'k=v' ORDER BY id LIMIT 3",
]


def test_snapshot_is_the_live_files(table: Path) -> None:
    snapshot = read_delta_log(table)
    assert snapshot.version == 4
    names = sorted(Path(f.path).name for f in snapshot.files)
    assert names == ["part-a.parquet", "part-b.parquet", "part-c.parquet", "part-e.parquet"], (
        "Should hold the adds not removed, after the checkpoint and the commits after it"
    )
    assert (table / "region=a%20b" / "part-d.parquet").exists(), "The removed file stays on disk"
    values = {Path(f.path).name: dict(f.partition_values) for f in snapshot.files}
    assert values["part-b.parquet"] == {"region": "x%y"}


def test_snapshot_matches_deltalake_on_its_own_tables(tmp_path: Path) -> None:
    deltalake = pytest.importorskip("deltalake")
    import pyarrow as pa

    root = tmp_path / "dl"
    for i, mode in enumerate(["append", "append", "overwrite", "append"]):
        frame = pa.table({"id": pa.array([i, i + 10], pa.int64()), "p": ["a b", "x%y=1"]})
        deltalake.write_deltalake(str(root), frame, partition_by=["p"], mode=mode)
    deltalake.DeltaTable(str(root)).create_checkpoint()
    deltalake.write_deltalake(str(root), pa.table({"id": pa.array([99], pa.int64()), "p": ["q"]}), partition_by=["p"], mode="append")
    ours = sorted(f.path for f in read_delta_log(root).files)
    theirs = sorted(str(Path(u.removeprefix("file://"))) for u in deltalake.DeltaTable(str(root)).file_uris())
    assert ours == theirs
    con = vpush.connect(time_zone="UTC")
    con.register("t", root)
    assert sorted(rows(con.sql("SELECT id, p FROM t").to_arrow())) == [(2, "a b"), (3, "a b"), (12, "x%y=1"), (13, "x%y=1"), (99, "q")]


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize("sql", QUERIES)
def test_answers_equal_sparks_over_the_live_files(table: Path, spark: SparkSession, engine: str, sql: str) -> None:
    _spark_view(spark, table, "delta_live")
    con = vpush.connect(engine, time_zone="UTC", spark=spark if engine == "spark" else None)
    con.register("t", table)
    got = rows(con.sql(sql).to_arrow())
    expected = [tuple(plain(v) for v in r) for r in spark.sql(sql.replace("FROM t", "FROM delta_live")).collect()]
    assert got == expected


def test_files_are_skipped_by_log_statistics_without_opening_footers(table: Path, tmp_path: Path, spark: SparkSession) -> None:
    sql = QUERIES[2]  # a 20-second window inside part-c's time range (ids 6000..7999)
    copy = tmp_path / "copy"
    shutil.copytree(table, copy)
    con = vpush.connect(time_zone="UTC")
    con.register("t", copy)
    plan = con.sql(sql).plan
    skipped = {Path(p).name for p, _ in plan.scans[0].log_skipped}
    assert skipped == {"part-a.parquet"}, "Should skip by $['ts'] bounds: part-a only (b is unshredded, e has no stats)"
    # A skipped file's footer is never read: break it, and the query still answers.
    broken = copy / "region=a%20b" / "part-a.parquet"
    broken.write_bytes(b"not parquet")
    con = vpush.connect(time_zone="UTC")
    con.register("t", copy)
    _spark_view(spark, table, "delta_live")
    expected = [tuple(plain(v) for v in r) for r in spark.sql(sql.replace("FROM t", "FROM delta_live")).collect()]
    assert rows(con.sql(sql).to_arrow()) == expected
    explained = con.sql(sql).explain()
    assert "files skipped by the Delta log 1 of 4" in explained
    assert "log statistics of v:$['ts'] rule out rows" in explained


def test_partition_and_plain_statistics_skip(table: Path) -> None:
    con = vpush.connect(time_zone="UTC")
    con.register("t", table)
    skipped = {Path(p).name: r for p, r in con.sql("SELECT id FROM t WHERE region = 'x%y' AND id > 100").plan.scans[0].log_skipped}
    assert set(skipped) == {"part-a.parquet", "part-c.parquet", "part-e.parquet"}
    assert skipped["part-a.parquet"] == "partition region=a b cannot match"


def _feature_table(root: Path, *later: dict[str, Any], first: dict[str, Any] | None = None) -> Path:
    log = DeltaLog(root)
    log.commit(first or protocol(), metadata([field("id", "long")]))
    for action in later:
        log.commit(action)
    return root


@pytest.mark.parametrize("feature", ["deletionVectors", "columnMapping", "v2Checkpoint", "typeWidening"])
def test_an_unsupported_reader_feature_is_refused(tmp_path: Path, feature: str) -> None:
    # Added by a later protocol action: the protocol at the snapshot's version counts.
    root = _feature_table(tmp_path / "t", protocol(("variantType", feature)))
    with pytest.raises(CatalogError, match=feature) as info:
        vpush.connect().register("t", root)
    assert info.value.error_class == "DELTA_UNSUPPORTED_FEATURES_FOR_READ"


def test_reader_version_2_with_column_mapping_is_refused(tmp_path: Path) -> None:
    log = DeltaLog(tmp_path / "t")
    log.commit({"protocol": {"minReaderVersion": 2, "minWriterVersion": 5}},
               metadata([field("id", "long")], configuration={"delta.columnMapping.mode": "name"}))
    with pytest.raises(vpush.VpushError, match="columnMapping"):
        vpush.connect().register("t", tmp_path / "t")


def test_supported_and_writer_features_read(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = tmp_path / "t"
    log = DeltaLog(root)
    log.commit(protocol(("variantType-preview", "variantShredding-preview", "timestampNtz"), ("appendOnly",)),
               metadata([field("id", "long")]))
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64())}), root / "f.parquet")
    log.commit(log.add(root / "f.parquet"))
    con = vpush.connect()
    con.register("t", root)
    assert rows(con.sql("SELECT sum(id) AS s FROM t").to_arrow()) == [(3,)]


def test_a_gap_in_the_commits_is_an_error(tmp_path: Path) -> None:
    root = _feature_table(tmp_path / "t", protocol())
    (root / "_delta_log" / f"{0:020d}.json").unlink()
    with pytest.raises(CatalogError, match="missing commit 0"):
        read_delta_log(root)


def test_the_benchmark_opens_only_the_footers_the_log_cannot_rule_out(tmp_path: Path) -> None:
    import sys

    from vpush.sample import EventsSpec, write_events

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import delta as bench_delta

    write_events(tmp_path / "events", EventsSpec(rows=40_000, files=8, row_group_rows=2048, seed=3))
    assert bench_delta.main(["--events", str(tmp_path / "events"), "--table", str(tmp_path / "table"), "--repeat", "1"]) == 0
    lo, hi = bench_delta.window(tmp_path / "table")
    con = vpush.connect(time_zone="UTC")
    con.register("t", tmp_path / "table")
    scan = con.sql(bench_delta.SQL.format(lo=lo, hi=hi)).plan.scans[0]
    assert len(scan.log_skipped) >= 6, "Should skip all but the one or two files the window falls in"
    assert len(con.catalog._footers) == 8 - len(scan.log_skipped), "Footers of skipped files are never opened"


def test_a_concurrent_commit_loses_cleanly(tmp_path: Path) -> None:
    from vpush.commit_delta import ConcurrentCommitError, commit_delta, next_version

    root = tmp_path / "t"
    commit_delta(root, 0, [protocol(), metadata([field("id", "long")])])
    version = next_version(root)
    commit_delta(root, version, [])
    with pytest.raises(ConcurrentCommitError):
        commit_delta(root, version, [{"remove": {"path": "x.parquet", "dataChange": True}}])
    assert read_delta_log(root).version == 1
    assert sorted(p.name for p in (root / "_delta_log").iterdir()) == [f"{0:020d}.json", f"{1:020d}.json"], (
        "The loser leaves no temporary file behind"
    )


@pytest.mark.parametrize("reader", [
    {"minReaderVersion": 1, "minWriterVersion": 5},
    {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": ["variantType"],
     "writerFeatures": ["variantType", "columnMapping"]},
])
def test_column_mapping_is_refused_whatever_the_protocol_lists(tmp_path: Path, reader: dict[str, Any]) -> None:
    # Files of a column-mapped table name their columns by physical names: reading them by the
    # schema's names gives NULLs, so the mode alone refuses, even when only writerFeatures lists it.
    log = DeltaLog(tmp_path / "t")
    log.commit({"protocol": reader},
               metadata([field("id", "long")], configuration={"delta.columnMapping.mode": "name"}))
    with pytest.raises(CatalogError, match="columnMapping") as info:
        vpush.connect().register("t", tmp_path / "t")
    assert info.value.error_class == "DELTA_UNSUPPORTED_FEATURES_FOR_READ"


def test_float_statistics_as_delta_spark_writes_them_keep_matching_files(tmp_path: Path, spark: SparkSession) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = tmp_path / "t"
    log = DeltaLog(root)
    log.commit({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}, metadata([field("f", "float")]))
    pq.write_table(pa.table({"f": pa.array([0.5, 1.1], pa.float32())}), root / "a.parquet")
    # Java's Float.toString of the float32 bounds, as Delta Spark's stats JSON holds them.
    stats = json.dumps({"numRecords": 2, "minValues": {"f": 0.5}, "maxValues": {"f": 1.1}, "nullCount": {"f": 0}})
    log.commit(log.add(root / "a.parquet", stats=stats))
    con = vpush.connect(time_zone="UTC")
    con.register("t", root)
    spark.read.parquet(str(root / "a.parquet")).createOrReplaceTempView("float_live")
    for sql in ["SELECT count(*) AS n FROM t WHERE f = CAST(1.1 AS FLOAT)", "SELECT count(*) AS n FROM t WHERE f >= 1.1F"]:
        expected = [tuple(r) for r in spark.sql(sql.replace("FROM t", "FROM float_live")).collect()]
        assert expected == [(1,)] and rows(con.sql(sql).to_arrow()) == expected, f"Should read the file: {sql}"
