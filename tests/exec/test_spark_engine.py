"""The Spark engine's own machinery, on the test SparkSession: how a scan's tasks travel (JSON,
never pickle) and are grouped, scan views that connections and threads sharing one session never
mix up, result columns that are structs without being variants, and plain timestamp columns
(INT96, nanoseconds) as Spark holds them."""
from __future__ import annotations

import base64
import datetime as dt
import json
import pickle
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import vpush
from support.writers import write_with_spark
from vpush.exec.errors import ExecutionError
from vpush.exec.spark_tasks import decode_tasks, encode_tasks, plan_tasks
from vpush.optimizer.plan import VARIANT_ARROW_TYPE

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROWS = 400
OFFSETS = {"a": 0, "b": 100_000}


@pytest.fixture(scope="module")
def tables(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two tables written by Spark (shredded variants, 40-row row groups, partitioned by ``g``,
    ``id % 2``), whose ids do not overlap."""
    root = tmp_path_factory.mktemp("spark_engine")
    out = {}
    for name, offset in OFFSETS.items():
        for g in (0, 1):
            write_with_spark(
                spark,
                root / name / f"g={g}",
                f"SELECT id + {offset} AS id, "
                f"parse_json(concat('{{\"k\": ', id + {offset}, ', \"s\": \"s', id % 7, '\"}}')) AS v "
                f"FROM range({ROWS}) WHERE id % 2 = {g}",
                "k bigint, s string",
                row_group_size_rows=40,
            )
        out[name] = root / name
    return out


def _connection(spark: SparkSession, folder: Path) -> vpush.Connection:
    con = vpush.connect(engine="spark", spark=spark, time_zone="UTC")
    con.register("t", folder)
    return con


def test_tasks_travel_as_json_and_come_back_equal(spark: SparkSession, tables: dict[str, Path]) -> None:
    """A scan's tasks (parts, inputs, partition values, unread inputs) survive the JSON trip."""
    con = _connection(spark, tables["a"])
    plan = con.sql("SELECT id, g, v:k::bigint AS k, v:s::string AS s FROM t WHERE id < 300").plan
    scan = plan.scans[0]
    tasks = plan_tasks(plan, scan, pa.schema([]), "UTC", parallelism=2)
    text = encode_tasks(tasks)
    assert isinstance(json.loads(text), dict)
    assert decode_tasks(text) == tasks
    assert any(ref.partition_values is not None for task in tasks.tasks for _, refs in task for ref in refs)


def test_row_groups_are_grouped_into_tasks_as_spark_groups_files(
    spark: SparkSession, tables: dict[str, Path]
) -> None:
    """Each kept row group is read by exactly one task; small files make few tasks (a task of
    Spark's Python data source costs tens of milliseconds however little it reads)."""
    con = _connection(spark, tables["a"])
    plan = con.sql("SELECT id, v:k::bigint AS k FROM t").plan
    scan = plan.scans[0]
    kept = sorted((f.path, rg) for f in scan.files for rg in f.row_groups)
    assert len(kept) > 8, "the table should have many row groups"
    tasks = plan_tasks(plan, scan, pa.schema([]), "UTC", parallelism=2)
    read = sorted((ref.path, rg) for task in tasks.tasks for _, refs in task for ref in refs for rg in ref.row_groups)
    assert read == kept
    assert len(tasks.tasks) <= 2
    # With tiny splits, every row group is a task of its own.
    one_each = plan_tasks(plan, scan, pa.schema([]), "UTC", parallelism=2, max_partition_bytes=1, open_cost_bytes=1)
    assert len(one_each.tasks) == len(kept)
    got = con.sql("SELECT id, v:k::bigint AS k FROM t").to_arrow()
    assert sorted(got.column("id").to_pylist()) == list(range(ROWS))
    assert got.column("id").to_pylist() == got.column("k").to_pylist()


class _Touch:
    """Unpickling this creates a file: what a pickled option could make a worker do."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.path,))


def test_a_pickled_option_is_never_unpickled(spark: SparkSession, tables: dict[str, Path], tmp_path: Path) -> None:
    """The data source's option is decoded as JSON: a pickle in it runs nothing, it fails."""
    _connection(spark, tables["a"])  # registers vpush's data source on the session
    marker = tmp_path / "unpickled"
    payload = base64.b64encode(pickle.dumps(([_Touch(marker)], pa.schema([])))).decode("ascii")
    with pytest.raises(ExecutionError):
        decode_tasks(payload)
    with pytest.raises(Exception, match="not a vpush scan"):
        spark.read.format("vpush").option("scan", payload).load().collect()
    assert not marker.exists()


def test_scan_views_are_dropped(spark: SparkSession, tables: dict[str, Path]) -> None:
    """No scan view stays in the session after a query (nor could another query read it)."""
    con = _connection(spark, tables["a"])
    assert con.sql("SELECT count(*) AS n FROM t WHERE v:k::bigint < 10").to_arrow().column("n").to_pylist() == [10]
    left = [t.name for t in spark.catalog.listTables() if t.name.startswith("__vpush")]
    assert left == []


def test_connections_sharing_a_session_across_threads(spark: SparkSession, tables: dict[str, Path]) -> None:
    """Two connections on one SparkSession, each with its own table ``t``, queried at the same
    time from two threads: each reads its own table."""
    connections = {name: _connection(spark, folder) for name, folder in tables.items()}

    def run(name: str) -> None:
        con = connections[name]
        for _ in range(4):
            got = con.sql("SELECT id, v:k::bigint AS k FROM t WHERE v:s::string = 's3'").to_arrow()
            want = [i + OFFSETS[name] for i in range(ROWS) if i % 7 == 3]
            assert sorted(got.column("k").to_pylist()) == want

    with ThreadPoolExecutor(2) as pool:
        for future in [pool.submit(run, name) for name in connections]:
            future.result()


def test_a_struct_of_metadata_and_value_is_not_a_variant(spark: SparkSession, tables: dict[str, Path]) -> None:
    """A struct result with fields named ``value`` and ``metadata`` stays that struct, as Spark
    gives it; only Spark's variant columns become vpush's variants."""
    con = _connection(spark, tables["a"])
    sql = (
        "SELECT id, named_struct('value', v:s::string, 'metadata', 'm') AS s, v:s AS sv FROM t "
        "WHERE id < 3 ORDER BY id"
    )
    got = con.sql(sql).to_arrow()
    struct = got.schema.field("s").type
    assert [(f.name, f.type) for f in struct] == [("value", pa.string()), ("metadata", pa.string())]
    assert got.column("s").to_pylist() == [{"value": f"s{i}", "metadata": "m"} for i in range(3)]
    assert got.schema.field("sv").type == VARIANT_ARROW_TYPE
    assert con.sql(sql).df()["sv"].tolist() == ['"s0"', '"s1"', '"s2"']


def _timestamp_files(root: Path) -> dict[str, Path]:
    """One file of instants with nanoseconds (and before 1970) per way of storing them: INT96
    (as Impala and old Spark wrote them), and ``TIMESTAMP(NANOS)`` with and without a zone."""
    values = [
        dt.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=dt.timezone.utc),
        dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone.utc),
        None,
    ]
    nanos = pa.array(values, pa.timestamp("us", tz="UTC")).cast(pa.timestamp("ns", tz="UTC"))
    # 789 ns more than the microseconds; before 1970, -1000 ns less 1500 ns.
    ticks = pa.array([nanos[0].value + 789, nanos[1].value - 1500, None], pa.int64())
    instants = ticks.view(pa.timestamp("ns", tz="UTC"))
    out = {}
    for name, column, options in (
        ("int96", instants, {"use_deprecated_int96_timestamps": True}),
        ("nanos", instants, {"version": "2.6", "coerce_timestamps": None}),
        ("nanos_ntz", ticks.view(pa.timestamp("ns")), {"version": "2.6", "coerce_timestamps": None}),
    ):
        (root / name).mkdir()
        pq.write_table(pa.table({"id": [1, 2, 3], "ts": column}), root / name / "f.parquet", **options)
        out[name] = root / name
    return out


def test_int96_and_nanosecond_timestamps_reach_spark(spark: SparkSession, tmp_path: Path) -> None:
    """Plain timestamp columns Spark's Arrow batches cannot take as they are: INT96 comes back as
    Spark reads it (a ``timestamp``, nanoseconds floored to microseconds); nanosecond
    ``TIMESTAMP(NANOS)`` columns, which Spark refuses to read itself, as microseconds floored
    likewise (an instant with a zone, a ``timestamp_ntz`` without)."""
    files = _timestamp_files(tmp_path)
    want_micros = [1704164645123456, -3, None]  # -2500 ns floored, as Spark does
    native = spark.read.parquet(str(files["int96"])).orderBy("id")
    assert native.schema["ts"].dataType.simpleString() == "timestamp"
    assert [r.ts for r in native.selectExpr("id", "unix_micros(ts) AS ts").collect()] == want_micros
    for name, arrow_type in (
        ("int96", pa.timestamp("us", tz="UTC")),
        ("nanos", pa.timestamp("us", tz="UTC")),
        ("nanos_ntz", pa.timestamp("us")),
    ):
        con = _connection(spark, files[name])
        got = con.sql("SELECT id, ts FROM t ORDER BY id").to_arrow()
        assert got.schema.field("ts").type == arrow_type, name
        assert got.column("ts").cast(pa.int64()).to_pylist() == want_micros, name


# PySpark 4.3's text where a Spark session started without PYSPARK_PYTHON runs a Python worker
# from an interpreter that lacks vpush (a plain `SparkSession.builder` outside an activated
# virtualenv): the first line ends where the worker's traceback begins
_WORKER_WITHOUT_VPUSH = """[PYTHON_DATA_SOURCE_ERROR] Failed to create Python data source instance: Traceback (most recent call last):
  File "pyspark/sql/worker/create_data_source.py", line 57, in _main
    data_source_cls = read_command(pickleSer, infile)
  File "pyspark/serializers.py", line 483, in loads
    return cloudpickle.loads(obj, encoding=encoding)
ModuleNotFoundError: No module named 'vpush'
 SQLSTATE: 38000"""


def test_a_python_workers_failure_says_what_it_raised() -> None:
    """The error names what the worker raised, not only the traceback's first line, and where the
    worker could not import vpush, what to set."""
    from vpush.exec.spark_engine import translate_spark_error

    error = translate_spark_error(Exception(_WORKER_WITHOUT_VPUSH))
    assert str(error).startswith("Spark failed: [PYTHON_DATA_SOURCE_ERROR] Failed to create Python data source instance: "
                                 "ModuleNotFoundError: No module named 'vpush' (")
    assert "PYSPARK_PYTHON" in str(error) and "Traceback" not in str(error)
    other = translate_spark_error(Exception(_WORKER_WITHOUT_VPUSH.replace("'vpush'", "'numpy_financial'")))
    assert str(other).endswith("ModuleNotFoundError: No module named 'numpy_financial'")
    assert str(translate_spark_error(Exception("[DIVIDE_BY_ZERO] Division by zero."))) == "Spark failed: [DIVIDE_BY_ZERO] Division by zero."
