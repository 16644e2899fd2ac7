"""vpush writes Delta tables: shredded files whose ``add`` actions carry the Variant statistics,
read back by vpush and deltalake, equal to Spark over the live files, statistics equal to what
Spark computes per file, ``delta.enableVariantShredding`` honoured, concurrent appends all kept."""
from __future__ import annotations

import datetime as dt
import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest

import vpush
from support.compare import plain, rows
from vpush.codec.builder import encode
from vpush.codec.layout import find_variant_columns
from vpush.codec.value import Variant
from vpush.codec.z85 import decode_z85
from vpush.optimizer.delta_log import read_delta_log

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

VARIANT = pa.struct([("metadata", pa.binary()), ("value", pa.binary())])
SHREDDING = {"v": "struct<n: bigint, s: string, ts: timestamp>"}


def _batch(first: int, last: int) -> pa.Table:
    start = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
    rows = []
    for i in range(first, last):
        value: dict[str, Any] = {"n": i, "s": f"k{i % 7}", "ts": start + dt.timedelta(seconds=i)}
        if i % 10 == 0:
            value["extra"] = [i, "x"]  # unshredded field: a residual object
        rows.append(encode(value))
    v = pa.array([{"metadata": m, "value": x} for m, x in rows], VARIANT)
    return pa.table({"id": pa.array(range(first, last), pa.int64()), "v": v})


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("write") / "t"
    assert vpush.write_delta(root, _batch(0, 1000), shredding=SHREDDING, mode="create", row_group_size=300) == 0
    assert vpush.write_delta(root, _batch(1000, 1500), shredding=SHREDDING) == 1
    assert vpush.write_delta(root, _batch(5000, 5200), shredding={"v": "struct<n: string>"}) == 2  # n lands in value
    return root


QUERIES = [
    "SELECT count(*) AS c, sum(v:n::bigint) AS n, max(v:ts::timestamp) AS ts FROM t",
    "SELECT id, v:s::string AS s FROM t WHERE v:n::bigint BETWEEN 1195 AND 1205 ORDER BY id",
    "SELECT id, to_json(v) AS j FROM t WHERE v:ts::timestamp >= '2024-01-01 01:23:10' ORDER BY id LIMIT 5",
]


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize("sql", QUERIES)
def test_read_back_equals_spark_over_the_live_files(written: Path, spark: SparkSession, engine: str, sql: str) -> None:
    paths = [f.path for f in read_delta_log(written).files]
    spark.read.parquet(*paths).createOrReplaceTempView("written_live")
    con = vpush.connect(engine, time_zone="UTC", spark=spark if engine == "spark" else None)
    con.register("t", written)
    got = rows(con.sql(sql).to_arrow())
    expected = [tuple(plain(v) for v in r) for r in spark.sql(sql.replace("FROM t", "FROM written_live")).collect()]
    assert got == expected


def test_variant_statistics_equal_sparks_per_file(written: Path, spark: SparkSession) -> None:
    for f in read_delta_log(written).files:
        stats = json.loads(f.stats or "{}")
        row = spark.read.parquet(f.path).selectExpr(
            "min(v:n::bigint) AS n0", "max(v:n::bigint) AS n1", "min(v:s::string) AS s0", "max(v:s::string) AS s1",
            "min(v:ts::timestamp) AS t0", "max(v:ts::timestamp) AS t1", "count(*) AS c").collect()[0]
        assert stats["numRecords"] == row["c"]
        if "v" not in stats["minValues"]:
            assert Path(f.path).stat().st_size > 0
            continue
        low = Variant.from_concatenated(decode_z85(stats["minValues"]["v"])).to_python()
        high = Variant.from_concatenated(decode_z85(stats["maxValues"]["v"])).to_python()
        assert (low["$['n']"], high["$['n']"]) == (row["n0"], row["n1"])
        assert (low["$['s']"], high["$['s']"]) == (row["s0"], row["s1"])
        assert (plain(low["$['ts']"]), plain(high["$['ts']"])) == (row["t0"], row["t1"])
    third = [json.loads(f.stats or "{}") for f in read_delta_log(written).files if "\"numRecords\": 200" in (f.stats or "")]
    assert third and "v" not in third[0]["minValues"], "n shredded as string holds nothing typed: no Variant bounds"


def test_the_log_skips_the_files_written(written: Path) -> None:
    con = vpush.connect(time_zone="UTC")
    con.register("t", written)
    plan = con.sql(QUERIES[1]).plan
    assert len(plan.scans[0].log_skipped) == 1, "Should skip the first file by $['n'] (the third has no n bounds)"


def test_deltalake_lists_the_same_files(written: Path) -> None:
    deltalake = pytest.importorskip("deltalake")
    table = deltalake.DeltaTable(str(written))
    assert table.version() == 2
    assert sorted(Path(u.removeprefix("file://")).name for u in table.file_uris()) == sorted(
        Path(f.path).name for f in read_delta_log(written).files
    )
    assert set(table.protocol().reader_features or []) == {"variantType", "variantShredding"}


def test_shredding_is_off_when_the_table_says_so(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    root = tmp_path / "t"
    vpush.write_delta(root, _batch(0, 10))  # created without a shredding: the property is false
    assert read_delta_log(root).configuration["delta.enableVariantShredding"] == "false"
    vpush.write_delta(root, _batch(10, 20), shredding=SHREDDING)
    for f in read_delta_log(root).files:
        layout = find_variant_columns(pq.ParquetFile(f.path))["v"]
        assert layout.typed_value is None, "delta.enableVariantShredding=false: written unshredded"


def test_concurrent_appends_are_all_kept(tmp_path: Path) -> None:
    root = tmp_path / "t"
    vpush.write_delta(root, _batch(0, 10), shredding=SHREDDING, mode="create")
    errors: list[BaseException] = []

    def append(i: int) -> None:
        try:
            vpush.write_delta(root, _batch(100 * i, 100 * i + 10), shredding=SHREDDING)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=append, args=(i,)) for i in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    snapshot = read_delta_log(root)
    assert snapshot.version == 4 and len(snapshot.files) == 5
    con = vpush.connect(time_zone="UTC")
    con.register("t", root)
    assert con.sql("SELECT count(*) AS c FROM t").to_arrow().column("c").to_pylist() == [50]
    with pytest.raises(vpush.VpushError, match="exists already"):
        vpush.write_delta(root, _batch(0, 1), mode="create")


def test_a_create_that_loses_the_race_leaves_the_winners_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vpush.delta_tables as delta_tables
    from vpush.commit_delta import ConcurrentCommitError

    root = tmp_path / "t"
    real = delta_tables.write_variant_parquet

    def write_then_lose(*args: Any, **kwargs: Any) -> None:
        # Another writer creates the table while this one writes its file.
        monkeypatch.setattr(delta_tables, "write_variant_parquet", real)
        vpush.write_delta(root, pa.table({"other": pa.array([1], pa.int64())}), mode="create")
        real(*args, **kwargs)

    monkeypatch.setattr(delta_tables, "write_variant_parquet", write_then_lose)
    with pytest.raises(ConcurrentCommitError):
        vpush.write_delta(root, _batch(0, 10), shredding=SHREDDING, mode="create")
    snapshot = read_delta_log(root)
    assert snapshot.version == 0 and [f["name"] for f in snapshot.schema["fields"]] == ["other"], (
        "The loser must not commit a second protocol and metaData over the winner's table"
    )
    assert sorted(p.name for p in root.glob("*.parquet")) == [Path(f.path).name for f in snapshot.files], (
        "The loser removes its data file"
    )


@pytest.mark.parametrize(("protocol", "schema_metadata", "configuration", "named"), [
    ({"minReaderVersion": 1, "minWriterVersion": 7, "writerFeatures": ["rowTracking", "domainMetadata"]}, {}, {},
     "domainMetadata, rowTracking"),
    ({"minReaderVersion": 1, "minWriterVersion": 4}, {"delta.generationExpression": "id + 1"}, {}, "generatedColumns"),
    ({"minReaderVersion": 1, "minWriterVersion": 3}, {}, {"delta.constraints.positive": "id > 0"}, "checkConstraints"),
])
def test_an_append_to_a_table_with_writer_features_it_cannot_honour_is_refused(
    tmp_path: Path, protocol: dict[str, Any], schema_metadata: dict[str, str], configuration: dict[str, str], named: str
) -> None:
    from support.delta import DeltaLog, metadata

    root = tmp_path / "t"
    log = DeltaLog(root)
    log.commit({"protocol": protocol}, metadata([{"name": "id", "type": "long", "nullable": True,
                                                  "metadata": schema_metadata}], configuration=configuration))
    with pytest.raises(vpush.VpushError, match=named):
        vpush.write_delta(root, pa.table({"id": pa.array([1], pa.int64())}))
    assert read_delta_log(root).version == 0 and not list(root.glob("*.parquet")), "Nothing written"
