"""The scan behind the public API: batches, nested variant columns, errors with their place."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import vpush
from support.compare import assert_error_as_spark
from vpush.codec.builder import encode
from vpush.codec.errors import InvalidShreddingError, VpushError
from vpush.codec.shred import write_shredded_parquet
from vpush.codec.value import Variant
from vpush.codec.write_variant_parquet import write_variant_parquet
from vpush.exec import read_scan

CASES = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "parquet-testing" / "shredded_variant"
VARIANT = pa.struct([pa.field("metadata", pa.binary(), nullable=False), pa.field("value", pa.binary(), nullable=False)])


def _variants(values: list[object]) -> pa.Array:
    return pa.array([None if v is None else dict(zip(("metadata", "value"), encode(v))) for v in values], VARIANT)


def test_variant_inside_a_struct_is_rebuilt(tmp_path: Path) -> None:
    inner = _variants([{"a": 1}, None, [1, "x"]])
    s = pa.StructArray.from_arrays([pa.array([1, 2, 3]), inner], names=["k", "v"])
    path = tmp_path / "nested.parquet"
    write_variant_parquet(pa.table({"s": s}), path, ["s.v"])
    con = vpush.connect(time_zone="UTC")
    con.register("t", path)
    table = con.sql("SELECT s FROM t").to_arrow()
    rows = table.column("s").to_pylist()
    assert [r["k"] for r in rows] == [1, 2, 3]
    assert rows[1]["v"] is None, "SQL NULL stays NULL"
    got = [Variant(r["v"]["metadata"], r["v"]["value"]).to_python() for r in (rows[0], rows[2])]
    assert got == [{"a": 1}, [1, "x"]], "variants inside a struct come back rebuilt"


def test_select_of_a_broken_file_raises_the_codec_error(tmp_path: Path) -> None:
    con = vpush.connect(time_zone="UTC")
    con.register("t", CASES / "case-042.parquet")
    with pytest.raises(InvalidShreddingError) as info:
        con.sql("SELECT var FROM t").to_arrow()
    assert info.value.file is not None and info.value.file.endswith("case-042.parquet")
    assert info.value.column_path is not None and info.value.column_path.startswith("var")
    assert "row group 0" in str(info.value), "the error names the row group"


def test_row_groups_are_read_in_bounded_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read_scan, "BATCH_ROWS", 1000)
    n = 5000
    table = pa.table({"id": pa.array(range(n), pa.int64()), "v": _variants([{"a": i, "b": str(i)} for i in range(n)])})
    path = tmp_path / "one.parquet"
    write_shredded_parquet(table, path, {"v": "a bigint"}, row_group_size=n)
    con = vpush.connect(time_zone="UTC")
    con.register("t", path)
    scan = con.sql("SELECT id, v FROM t").plan.scans[0]
    sizes = [b.num_rows for b in read_scan.read_scan(scan)]
    assert sizes == [1000] * 5, "one row group is read in batches of BATCH_ROWS"
    rows = con.sql("SELECT id, v FROM t ORDER BY id").to_arrow().to_pylist()
    assert [Variant(r["v"]["metadata"], r["v"]["value"]).to_python() for r in rows[4998:]] == [
        {"a": 4998, "b": "4998"},
        {"a": 4999, "b": "4999"},
    ]


def test_columns_missing_from_some_files_read_as_null(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    write_variant_parquet(
        pa.table({"id": pa.array([1], pa.int64()), "v": _variants([{"a": 1}])}), tmp_path / "t" / "a.parquet", ["v"]
    )
    write_variant_parquet(pa.table({"id": pa.array([2], pa.int64())}), tmp_path / "t" / "b.parquet", [])
    con = vpush.connect(time_zone="UTC")
    con.register("t", tmp_path / "t")
    rows = con.sql("SELECT id, v FROM t ORDER BY id").to_arrow().to_pylist()
    assert rows[1] == {"id": 2, "v": None}, "a file without the column gives NULLs"
    assert Variant(rows[0]["v"]["metadata"], rows[0]["v"]["value"]).to_python() == {"a": 1}


def test_every_public_error_is_a_vpush_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really parquet PAR1")
    con = vpush.connect(time_zone="UTC")
    with pytest.raises(VpushError) as info:
        con.register("t", bad)
    assert info.value.file == str(bad)
    with pytest.raises(VpushError):
        vpush.connect(engine="nope")
    with pytest.raises(VpushError):
        vpush.connect(time_zone="Mars/Olympus")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT try_variant_get(var, '$.b', 'struct<c int, C string>') FROM t",
        "SELECT to_variant_object(named_struct('a', 1, 'A', 2)) FROM t",
        "SELECT * FROM t WHERE is_variant_null(variant_delete(var, concat('$.', 'a')))",
    ],
)
def test_variant_functions_not_built_yet_are_refused_clearly(sql: str) -> None:
    from vpush.optimizer.errors import OptimizeError

    con = vpush.connect(time_zone="UTC")
    con.register("t", CASES / "case-046.parquet")
    with pytest.raises(OptimizeError, match="not supported"):
        con.sql(sql).to_arrow()


def _damaged(spark: Any, tmp_path: Path, damage: str, shredded: bool) -> Path:
    """Two rows of ``{"a": 1, "b": "x"}`` as Spark writes them (unshredded, or with ``a``
    shredded), the second one's bytes then damaged: in the whole value, or in the residual
    object that holds ``b``."""
    import pyarrow.parquet as pq

    from support.writers import write_with_spark

    select = """SELECT id, parse_json('{"a":1,"b":"x"}') AS v FROM range(2)"""
    (written,) = write_with_spark(spark, tmp_path / "spark", select, "a bigint" if shredded else None)
    table = pq.read_table(written)
    column = table.column("v").combine_chunks()
    metadata, value = column.field("metadata").to_pylist(), column.field("value").to_pylist()
    m, x = metadata[1], value[1]
    # an object: header, count, field ids, offsets, then the fields
    if damage == "unknown type":
        x = bytes([31 << 2]) + x[1:]
    elif damage == "field id":
        x = x[:2] + bytes([7]) + x[3:]
    elif damage == "metadata version 2":
        m = bytes([(m[0] & ~0x0F) | 2]) + m[1:]
    elif damage == "truncated":
        x = x[:-1]
    metadata[1], value[1] = m, x
    children = {"metadata": pa.array(metadata, pa.binary()), "value": pa.array(value, pa.binary())}
    damaged = pa.StructArray.from_arrays(
        [children.get(f.name, column.field(f.name)) for f in column.type], fields=list(column.type)
    )
    path = tmp_path / f"{damage}.parquet"
    write_variant_parquet(pa.table({"id": table.column("id"), "v": damaged}), path, ["v"])
    return path


@pytest.mark.spark
@pytest.mark.parametrize("shredded", [False, True], ids=["unshredded", "residual"])
@pytest.mark.parametrize(
    ("damage", "error_class"),
    [
        ("unknown type", "UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT"),
        ("field id", "MALFORMED_VARIANT"),
        ("metadata version 2", "MALFORMED_VARIANT"),
        ("truncated", "MALFORMED_VARIANT"),
    ],
)
@pytest.mark.parametrize("function", ["variant_get", "try_variant_get"])
def test_damaged_variant_bytes_raise_as_spark(
    spark: Any, tmp_path: Path, shredded: bool, damage: str, error_class: str, function: str
) -> None:
    """Spark's scan raises for damaged bytes on the path, ``try_variant_get`` too (its cause is
    ``error_class``); vpush raises that class on both engines, naming the file, the row and the
    byte offset. An unknown type id at the top was read as 'not an object', NULL."""
    path = _damaged(spark, tmp_path, damage, shredded)
    spark.read.parquet(str(path)).createOrReplaceTempView("t")
    sql = f"SELECT id, {function}(v, '$.b', 'string') AS b FROM t"
    with pytest.raises(Exception) as spark_error:
        spark.sql(sql).collect()
    assert error_class in str(spark_error.value)
    for engine in ("duckdb", "spark"):
        con = vpush.connect(engine=engine, spark=spark, time_zone="UTC") if engine == "spark" else vpush.connect(time_zone="UTC")
        con.register("t", path)
        with pytest.raises(VpushError) as error:
            con.sql(sql).to_arrow()
        assert error.value.error_class == error_class, (engine, error.value)
        assert error.value.file == str(path) and error.value.offset is not None, (engine, error.value)
        assert "row 1" in str(error.value), (engine, error.value)


@pytest.mark.spark
@pytest.mark.parametrize("function", ["to_json", "schema_of_variant"])
def test_functions_of_a_damaged_whole_variant_name_its_file_among_several(spark: Any, tmp_path: Path, function: str) -> None:
    """A table of two files, only the second one's value damaged: ``to_json`` and
    ``schema_of_variant`` raise ``MALFORMED_VARIANT`` as Spark does, naming the damaged file,
    the column and the byte offset on both engines (on the Spark engine the error is Spark's own
    function's; the function saw a value, not its file: the files read are searched for it)."""
    import pyarrow.parquet as pq

    damaged = _damaged(spark, tmp_path, "field id", shredded=False)
    table = pq.read_table(damaged)
    column = table.column("v").combine_chunks()
    sound = pa.StructArray.from_arrays(
        [column.field(f.name).take(pa.array([0, 0])) for f in column.type], fields=list(column.type)
    )
    folder = tmp_path / "t"
    folder.mkdir()
    write_variant_parquet(pa.table({"id": table.column("id"), "v": sound}), folder / "part-0.parquet", ["v"])
    second = folder / "part-1.parquet"
    damaged.rename(second)
    spark.read.parquet(str(folder)).createOrReplaceTempView("t")
    sql = f"SELECT id, {function}(v) AS j FROM t"
    for engine in ("duckdb", "spark"):
        con = vpush.connect(engine=engine, spark=spark, time_zone="UTC") if engine == "spark" else vpush.connect(time_zone="UTC")
        con.register("t", folder)
        assert_error_as_spark(spark, con, sql, "MALFORMED_VARIANT")
        with pytest.raises(VpushError) as error:
            con.sql(sql).to_arrow()
        assert error.value.file == str(second), (engine, error.value)
        assert error.value.column_path == "v" and error.value.offset == 2, (engine, error.value)


@pytest.mark.spark
def test_damaged_residual_through_the_spark_engine_keeps_its_error(spark: Any, tmp_path: Path) -> None:
    """A residual the scan cannot rebuild, read by the Spark engine's tasks through DuckDB: the
    scan's own error (file, column path, row group), not 'DuckDB failed: reading the stream ...'."""
    path = _damaged(spark, tmp_path, "field id", shredded=True)
    con = vpush.connect(engine="spark", spark=spark, time_zone="UTC")
    con.register("t", path)
    with pytest.raises(VpushError) as error:
        con.sql("SELECT id, try_variant_get(v, '$', 'string') AS s FROM t").to_arrow()
    assert error.value.error_class == "MALFORMED_VARIANT" and error.value.column_path == "v.value", error.value
    assert error.value.file == str(path) and "row group 0" in str(error.value), error.value


@pytest.mark.spark
def test_an_empty_partition_value_raises_as_spark(spark: Any, tmp_path: Path) -> None:
    for value in ("1", ""):
        (tmp_path / "t" / f"k={value}").mkdir(parents=True)
        write_variant_parquet(pa.table({"id": [1], "v": _variants([{"a": 1}])}), tmp_path / "t" / f"k={value}" / "a.parquet", ["v"])
    with pytest.raises(Exception, match="EMPTY_PARTITION_COLUMN_VALUE"):
        spark.read.parquet(str(tmp_path / "t")).collect()
    with pytest.raises(VpushError) as error:
        vpush.connect(time_zone="UTC").register("t", tmp_path / "t")
    assert error.value.error_class == "EMPTY_PARTITION_COLUMN_VALUE" and "'k='" in str(error.value)


@pytest.mark.spark
@pytest.mark.parametrize("function", ["to_json", "schema_of_variant"])
def test_functions_of_a_damaged_whole_variant_name_its_file(spark: Any, tmp_path: Path, function: str) -> None:
    """``to_json``/``schema_of_variant`` of an unshredded value with a field id past the
    dictionary: ``MALFORMED_VARIANT`` as on Spark, and, the query reading one file and one
    variant column, the error names them (the function sees only the value)."""
    path = _damaged(spark, tmp_path, "field id", shredded=False)
    spark.read.parquet(str(path)).createOrReplaceTempView("t")
    con = vpush.connect(time_zone="UTC")
    con.register("t", path)
    assert_error_as_spark(spark, con, f"SELECT id, {function}(v) AS j FROM t", "MALFORMED_VARIANT")
    with pytest.raises(VpushError) as error:
        con.sql(f"SELECT id, {function}(v) AS j FROM t").to_arrow()
    assert error.value.file == str(path) and error.value.column_path == "v" and error.value.offset == 2, error.value


@pytest.mark.spark
@pytest.mark.parametrize("case", ["case-087.parquet", "case-128.parquet"])
def test_shredded_data_breaking_the_spec_is_malformed_variant_as_on_spark(spark: Any, case: str) -> None:
    """A non-object ``value`` beside shredded fields (87), a variant null beside a shredded
    object (128): Spark's reader raises ``MALFORMED_VARIANT``; so does vpush's scan, on both
    engines, naming the file, column and row group."""
    spark.read.parquet(str(CASES / case)).createOrReplaceTempView("t")
    for engine in ("duckdb", "spark"):
        con = vpush.connect(engine=engine, spark=spark, time_zone="UTC") if engine == "spark" else vpush.connect(time_zone="UTC")
        con.register("t", CASES / case)
        assert_error_as_spark(spark, con, "SELECT id, to_json(var) AS j FROM t", "MALFORMED_VARIANT")
        with pytest.raises(InvalidShreddingError) as error:
            con.sql("SELECT id, to_json(var) AS j FROM t").to_arrow()
        assert error.value.file == str(CASES / case) and error.value.column_path is not None
        assert "row group 0" in str(error.value)
