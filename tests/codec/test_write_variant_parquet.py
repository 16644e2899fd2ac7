"""write_variant_parquet and the footer codec: DuckDB and Spark read our files as VARIANT.

The variant bytes are spelled out by hand (VariantEncoding.md in apache/parquet-format), so these
tests do not depend on the codec's encoder:

- metadata `01 00 00`: header (version 1, unsorted, offset_size 1), dictionary_size 0, and the
  single offset 0 that the grammar's `dictionary_size + 1` offsets require.
- metadata `01 01 00 01 'a'`: dictionary ["a"]. `11 ...` sets sorted_strings.
- value `0C 2A`: primitive_header 3 (int8) << 2 | basic_type 0, then 42.
- value `09 'hi'`: short string, length 2 << 2 | basic_type 1.
- value `02 01 00 00 02 0C 01`: object header (1-byte ids and offsets), 1 field, field_id 0,
  offsets [0, 2], then int8 1: {"a": 1}.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from vpush.codec import parquet_footer
from vpush.codec import write_variant_parquet as write_module
from vpush.codec.errors import CodecError, InvalidShreddingError
from vpush.codec.parquet_footer import ThriftStruct, decode_struct, encode_struct, read_footer
from vpush.codec.write_variant_parquet import annotate_variant_columns, write_variant_parquet

EMPTY_METADATA = b"\x01\x00\x00"
METADATA_A = b"\x01\x01\x00\x01a"
# Sorted dictionaries: ["a", "b", "c", "tags"] and ["a", "b", "c", "d", "tags"].
METADATA_ABC_TAGS = b"\x11\x04\x00\x01\x02\x03\x07abctags"
METADATA_ABCD_TAGS = b"\x11\x05\x00\x01\x02\x03\x04\x08abcdtags"
INT8_42 = b"\x0c\x2a"
STRING_HI = b"\x09hi"
VARIANT_NULL = b"\x00"
OBJECT_A_1 = b"\x02\x01\x00\x00\x02\x0c\x01"
OBJECT_D_TRUE = b"\x02\x01\x03\x00\x01\x04"  # {"d": true}; "d" is field id 3 in METADATA_ABCD_TAGS
MISSING = {"value": None, "typed_value": None}


def _field(name: str, arrow_type: pa.DataType, nullable: bool = True) -> pa.Field:
    return pa.field(name, arrow_type, nullable=nullable)


def _shredded(typed_value: pa.DataType) -> pa.StructType:
    return pa.struct([_field("value", pa.binary()), _field("typed_value", typed_value)])


UNSHREDDED = pa.struct([_field("metadata", pa.binary(), False), _field("value", pa.binary(), False)])
SHREDDED_INT64 = pa.struct([_field("metadata", pa.binary(), False), *_shredded(pa.int64())])
SHREDDED_OBJECT = pa.struct(
    [
        _field("metadata", pa.binary(), False),
        *_shredded(
            pa.struct(
                [
                    _field("a", _shredded(pa.int64()), False),
                    _field("b", _shredded(pa.struct([_field("c", _shredded(pa.string()), False)])), False),
                    _field(
                        "tags", _shredded(pa.list_(_field("element", _shredded(pa.int64()), False))), False
                    ),
                ]
            )
        ),
    ]
)


@dataclass
class Layout:
    """A variant column, and what each engine must read from it, row by row."""

    name: str
    column: pa.Array
    spark_json: list[str | None]  # to_json(v); None for SQL NULL
    duckdb_json: list[str | None]  # v::JSON; DuckDB folds a variant null into SQL NULL (ENGINE_NOTES)
    duckdb_a: list[str | None]  # (v.a)::JSON
    spark_a: list[int | None]  # try_variant_get(v, '$.a', 'bigint')


LAYOUTS = [
    Layout(
        "unshredded",
        pa.array(
            [
                {"metadata": EMPTY_METADATA, "value": INT8_42},
                {"metadata": METADATA_A, "value": OBJECT_A_1},
                {"metadata": EMPTY_METADATA, "value": STRING_HI},
                None,
            ],
            UNSHREDDED,
        ),
        spark_json=["42", '{"a":1}', '"hi"', None],
        duckdb_json=["42", '{"a":1}', '"hi"', None],
        duckdb_a=[None, "1", None, None],
        spark_a=[None, 1, None, None],
    ),
    Layout(
        "shredded_int64",
        pa.array(
            [
                {"metadata": EMPTY_METADATA, "value": None, "typed_value": 34},
                {"metadata": EMPTY_METADATA, "value": STRING_HI, "typed_value": None},
                {"metadata": EMPTY_METADATA, "value": VARIANT_NULL, "typed_value": None},
                None,
            ],
            SHREDDED_INT64,
        ),
        spark_json=["34", '"hi"', "null", None],
        duckdb_json=["34", '"hi"', None, None],
        duckdb_a=[None, None, None, None],
        spark_a=[None, None, None, None],
    ),
    Layout(
        "shredded_object",
        pa.array(
            [
                {
                    "metadata": METADATA_ABC_TAGS,
                    "value": None,
                    "typed_value": {
                        "a": {"value": None, "typed_value": 1},
                        "b": {"value": None, "typed_value": {"c": {"value": None, "typed_value": "x"}}},
                        "tags": {
                            "value": None,
                            "typed_value": [
                                {"value": None, "typed_value": 1},
                                {"value": None, "typed_value": 2},
                            ],
                        },
                    },
                },
                {  # partially shredded: "a" fell back to `value`, "d" lives in the residual object
                    "metadata": METADATA_ABCD_TAGS,
                    "value": OBJECT_D_TRUE,
                    "typed_value": {
                        "a": {"value": b"\x05s", "typed_value": None},
                        "b": MISSING,
                        "tags": MISSING,
                    },
                },
                {"metadata": EMPTY_METADATA, "value": INT8_42, "typed_value": None},  # not an object
                {  # one list element did not fit int64
                    "metadata": METADATA_ABC_TAGS,
                    "value": None,
                    "typed_value": {
                        "a": MISSING,
                        "b": MISSING,
                        "tags": {
                            "value": None,
                            "typed_value": [
                                {"value": None, "typed_value": 1},
                                {"value": b"\x05x", "typed_value": None},
                            ],
                        },
                    },
                },
                None,
            ],
            SHREDDED_OBJECT,
        ),
        spark_json=[
            '{"a":1,"b":{"c":"x"},"tags":[1,2]}',
            '{"a":"s","d":true}',
            "42",
            '{"tags":[1,"x"]}',
            None,
        ],
        duckdb_json=[
            '{"a":1,"b":{"c":"x"},"tags":[1,2]}',
            '{"a":"s","d":true}',
            "42",
            '{"tags":[1,"x"]}',
            None,
        ],
        duckdb_a=["1", '"s"', None, None, None],
        spark_a=[1, None, None, None, None],
    ),
]


def _table(column: pa.Array) -> pa.Table:
    return pa.table({"id": pa.array(range(len(column)), pa.int32()), "v": column})


def _loads(text: str | None) -> Any:
    return json.loads(text) if text is not None else None


@pytest.fixture(params=LAYOUTS, ids=lambda layout: layout.name)
def written(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Layout, str]:
    layout: Layout = request.param
    path = str(tmp_path / f"{layout.name}.parquet")
    write_variant_parquet(_table(layout.column), path, ["v"])
    return layout, path


# DuckDB


def test_duckdb_reads_variant(written: tuple[Layout, str]) -> None:
    layout, path = written
    con = duckdb.connect()
    described = con.sql(f"DESCRIBE SELECT * FROM read_parquet('{path}')").fetchall()
    types = {row[0]: row[1] for row in described}
    assert types["v"] == "VARIANT", "Should read the annotated group as VARIANT, not STRUCT"
    rows = con.sql(
        f"SELECT typeof(v), v::JSON, (v.a)::JSON FROM read_parquet('{path}') ORDER BY id"
    ).fetchall()
    assert {row[0] for row in rows} == {"VARIANT"}
    assert [row[1] for row in rows] == layout.duckdb_json
    assert [row[2] for row in rows] == layout.duckdb_a, "v.a should find shredded and fallback fields"


def test_duckdb_reads_nested_shredded_paths(tmp_path: Path) -> None:
    path = str(tmp_path / "obj.parquet")
    write_variant_parquet(_table(LAYOUTS[2].column), path, ["v"])
    rows = (
        duckdb.connect()
        .sql(
            f"SELECT v.b.c::VARCHAR, variant_extract(v, 'tags')::JSON FROM read_parquet('{path}') ORDER BY id"
        )
        .fetchall()
    )
    assert [row[0] for row in rows] == ["x", None, None, None, None]
    assert [_loads(row[1]) for row in rows] == [[1, 2], None, None, [1, "x"], None]


def test_our_annotation_equals_duckdbs(tmp_path: Path) -> None:
    duck = str(tmp_path / "duck.parquet")
    duckdb.sql(f"""COPY (SELECT '{{"a": 1}}'::JSON::VARIANT AS v) TO '{duck}' (FORMAT parquet)""")
    ours = str(tmp_path / "ours.parquet")
    write_variant_parquet(_table(LAYOUTS[0].column), ours, ["v"])

    def logical_type(path: str) -> ThriftStruct | None:
        for element in _schema_elements(path):
            if element.value(write_module.SCHEMA_ELEMENT_NAME) == b"v":
                value = element.value(write_module.SCHEMA_ELEMENT_LOGICAL_TYPE)
                return value if isinstance(value, ThriftStruct) else None
        return None

    theirs = logical_type(duck)
    assert theirs is not None, "DuckDB should annotate its VARIANT column"
    assert logical_type(ours) == theirs, "LogicalType{16: VariantType{1: i8 1}} as DuckDB writes it"


def test_nested_variant_in_struct(tmp_path: Path) -> None:
    path = str(tmp_path / "nested.parquet")
    s = pa.StructArray.from_arrays([pa.array([1, 2, 3, 4]), LAYOUTS[1].column], names=["k", "v"])
    write_variant_parquet(pa.table({"s": s}), path, ["s.v"])
    assert "v (Variant(1))" in str(pq.ParquetFile(path).schema)
    con = duckdb.connect()
    assert (
        con.sql(f"DESCRIBE SELECT * FROM read_parquet('{path}')").fetchall()[0][1]
        == "STRUCT(k BIGINT, v VARIANT)"
    )
    rows = con.sql(f"SELECT s.v::JSON FROM read_parquet('{path}') ORDER BY s.k").fetchall()
    assert [_loads(row[0]) for row in rows] == [34, "hi", None, None]


# Spark


# The session-scoped `spark` fixture of tests/conftest.py: one SparkSession per test process.


@pytest.mark.spark
def test_spark_reads_variant(spark: Any, written: tuple[Layout, str]) -> None:
    layout, path = written
    frame = spark.read.parquet(path)
    assert dict(frame.dtypes)["v"] == "variant", "Should read the annotated group as VariantType"
    rows = (
        frame.orderBy("id")
        .selectExpr("to_json(v) AS j", "try_variant_get(v, '$.a', 'bigint') AS a")
        .collect()
    )
    assert [row.j for row in rows] == layout.spark_json
    assert [row.a for row in rows] == layout.spark_a


@pytest.mark.spark
def test_spark_variant_get(spark: Any, tmp_path: Path) -> None:
    unshredded, shredded = str(tmp_path / "u.parquet"), str(tmp_path / "s.parquet")
    write_variant_parquet(_table(LAYOUTS[0].column), unshredded, ["v"])
    write_variant_parquet(_table(LAYOUTS[2].column), shredded, ["v"])
    # Strict variant_get is evaluated inside the scan on every row (ENGINE_NOTES), so only paths
    # whose every present value casts are asked for here.
    rows = (
        spark.read.parquet(unshredded)
        .orderBy("id")
        .selectExpr("variant_get(v, '$.a', 'bigint') AS a")
        .collect()
    )
    assert [row.a for row in rows] == [None, 1, None, None]
    rows = (
        spark.read.parquet(shredded)
        .orderBy("id")
        .selectExpr("variant_get(v, '$.b.c', 'string') AS c", "variant_get(v, '$.tags[1]', 'string') AS t1")
        .collect()
    )
    assert [row.c for row in rows] == ["x", None, None, None, None]
    assert [row.t1 for row in rows] == ["2", None, None, "x", None]


@pytest.mark.spark
def test_spark_reads_nested_variant(spark: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "nested.parquet")
    s = pa.StructArray.from_arrays([pa.array([1, 2]), LAYOUTS[0].column[:2]], names=["k", "v"])
    write_variant_parquet(pa.table({"s": s}), path, ["s.v"])
    frame = spark.read.parquet(path)
    assert frame.schema.simpleString() == "struct<s:struct<k:bigint,v:variant>>"
    assert [row[0] for row in frame.orderBy("s.k").selectExpr("to_json(s.v)").collect()] == ["42", '{"a":1}']


# Footer codec and file integrity


def _schema_elements(path: str) -> list[ThriftStruct]:
    schema = read_footer(path).metadata.value(parquet_footer.FILE_METADATA_SCHEMA)
    assert isinstance(schema, parquet_footer.ThriftList)
    return [item for item in schema.items if isinstance(item, ThriftStruct)]


def _footer_bytes(path: str) -> bytes:
    footer = read_footer(path)
    with open(path, "rb") as handle:
        handle.seek(footer.footer_offset)
        return handle.read(footer.footer_length)


def _varied_table() -> pa.Table:
    return pa.table(
        {
            "i": pa.array([1, None, -3, 2**40], pa.int64()),
            "f": pa.array([1.5, 2.5, None, -0.0]),
            "s": pa.array(["x", "y", None, "x"]).dictionary_encode(),
            "b": pa.array([True, False, None, True]),
            "d": pa.array([1, 2, 3, 4], pa.decimal128(10, 2)),
            "t": pa.array([0, 1, 2, 3], pa.timestamp("us", tz="UTC")),
            "l": pa.array([[1], [], None, [2, 3]], pa.list_(pa.int32())),
            "m": pa.array([[("k", 1)], None, [], [("z", 2)]], pa.map_(pa.string(), pa.int16())),
            "v": LAYOUTS[1].column,
        }
    ).replace_schema_metadata({"owner": "vpush"})


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"row_group_size": 1, "compression": "zstd"},
        {"write_statistics": False, "use_dictionary": False},
        {"write_page_index": True, "data_page_version": "2.0", "bloom_filter_options": {"i": True}},
        {"store_schema": False, "version": "1.0"},
    ],
    ids=["default", "row_groups", "no_stats", "page_index", "v1"],
)
def test_footer_round_trip_is_byte_identical(tmp_path: Path, options: dict[str, Any]) -> None:
    path = str(tmp_path / "plain.parquet")
    pq.write_table(_varied_table(), path, **options)
    raw = _footer_bytes(path)
    metadata, end = decode_struct(raw)
    assert end == len(raw)
    assert encode_struct(metadata) == raw, "Should re-serialize an unmodified footer to the same bytes"


def test_patched_file_keeps_pages_and_statistics(tmp_path: Path) -> None:
    plain, patched = str(tmp_path / "plain.parquet"), str(tmp_path / "patched.parquet")
    pq.write_table(_varied_table(), plain, row_group_size=2)
    shutil.copyfile(plain, patched)
    annotate_variant_columns(patched, ["v"])
    offset = read_footer(plain).footer_offset
    assert Path(patched).read_bytes()[:offset] == Path(plain).read_bytes()[:offset], "pages must not move"
    assert pq.read_table(patched).equals(pq.read_table(plain))
    before, after = pq.ParquetFile(plain).metadata, pq.ParquetFile(patched).metadata
    assert after.num_row_groups == before.num_row_groups == 2
    for group in range(before.num_row_groups):
        for column in range(before.num_columns):
            old, new = before.row_group(group).column(column), after.row_group(group).column(column)
            assert new.path_in_schema == old.path_in_schema
            assert new.data_page_offset == old.data_page_offset
            if old.statistics is not None:
                assert new.statistics == old.statistics, f"statistics of {old.path_in_schema}"
    schema_text = str(pq.ParquetFile(patched).schema)
    assert "v (Variant(1))" in schema_text and schema_text.count("(Variant") == 1
    first = Path(patched).read_bytes()
    annotate_variant_columns(patched, ["v"])
    assert Path(patched).read_bytes() == first, "annotating twice should change nothing"


def test_parquet_options_are_forwarded(tmp_path: Path) -> None:
    path = str(tmp_path / "opts.parquet")
    write_variant_parquet(_table(LAYOUTS[2].column), path, ["v"], row_group_size=2, compression="zstd")
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == 3
    assert meta.row_group(0).column(0).compression == "ZSTD"
    assert meta.row_group(0).column(0).statistics is not None
    write_variant_parquet(_table(LAYOUTS[2].column), path, ["v"], write_statistics=False)
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).statistics is None
    assert sorted(os.listdir(tmp_path)) == ["opts.parquet"], "no temporary file should be left behind"


# Validation


def _struct(*fields: pa.Field) -> pa.StructType:
    return pa.struct(list(fields))


METADATA = _field("metadata", pa.binary(), False)


@pytest.mark.parametrize(
    ("column", "arrow_type", "message"),
    [
        ("w", UNSHREDDED, "no such column"),
        ("v", pa.int64(), "must be a struct"),
        ("v", _struct(_field("value", pa.binary(), False)), "needs a metadata"),
        ("v", _struct(METADATA), "value or a typed_value"),
        (
            "v",
            _struct(_field("metadata", pa.binary()), _field("value", pa.binary(), False)),
            "metadata must be",
        ),
        ("v", _struct(METADATA, _field("value", pa.binary())), "value must be non-nullable"),
        ("v", _struct(METADATA, _field("value", pa.string(), False)), "value must be binary"),
        (
            "v",
            _struct(METADATA, _field("value", pa.binary(), False), _field("x", pa.int8())),
            "only metadata",
        ),
    ],
)
def test_rejects_non_variant_columns(
    tmp_path: Path, column: str, arrow_type: pa.DataType, message: str
) -> None:
    path = str(tmp_path / "bad.parquet")
    table = pa.table({"v": pa.array([None], arrow_type)})
    with pytest.raises(InvalidShreddingError, match=message) as info:
        write_variant_parquet(table, path, [column])
    assert info.value.file == path and info.value.column_path == column
    assert os.listdir(tmp_path) == [], "nothing should be written"


def test_annotate_checks_the_parquet_schema(tmp_path: Path) -> None:
    path = str(tmp_path / "bad.parquet")
    layout = _struct(METADATA, _field("value", pa.binary()))  # optional value, no typed_value
    pq.write_table(pa.table({"v": pa.array([None], layout), "n": [1]}), path)
    before = Path(path).read_bytes()
    with pytest.raises(InvalidShreddingError, match="value must be required") as info:
        annotate_variant_columns(path, ["v"])
    assert (info.value.file, info.value.column_path) == (path, "v")
    with pytest.raises(InvalidShreddingError, match="primitive"):
        annotate_variant_columns(path, ["n"])
    assert Path(path).read_bytes() == before and os.listdir(tmp_path) == ["bad.parquet"]


def test_variant_columns_must_not_be_a_bare_string(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="sequence of names"):
        write_variant_parquet(_table(LAYOUTS[0].column), str(tmp_path / "x.parquet"), "v")


# Corrupted footers


def _valid_file(tmp_path: Path) -> bytes:
    path = tmp_path / "good.parquet"
    pq.write_table(pa.table({"x": [1, 2, 3]}), path)
    return path.read_bytes()


def _frame(body: bytes) -> bytes:
    return b"PAR1" + body + struct.pack("<I", len(body)) + b"PAR1"


CORRUPTIONS = {
    "empty": lambda data: b"",
    "too_small": lambda data: b"PAR1PAR1",
    "truncated": lambda data: data[:-3],
    "bad_trailing_magic": lambda data: data[:-4] + b"PAR0",
    "bad_leading_magic": lambda data: b"XXXX" + data[4:],
    "encrypted_footer": lambda data: data[:-4] + b"PARE",
    "length_past_start": lambda data: data[:-8] + struct.pack("<I", len(data)) + b"PAR1",
    "length_huge": lambda data: data[:-8] + b"\xff\xff\xff\xff" + b"PAR1",
    "footer_cut_short": lambda data: _frame(read_struct_body(data)[:-6]),
    "trailing_garbage": lambda data: _frame(read_struct_body(data) + b"\x00\x00"),
    "nesting_bomb": lambda data: _frame(b"\x1c" * 100_000),
    "absurd_list_count": lambda data: _frame(b"\x29\xfc\xff\xff\xff\x0f"),
    "absurd_binary_length": lambda data: _frame(b"\x18\xff\xff\xff\xff\x0f"),
    "overlong_varint": lambda data: _frame(b"\x15" + b"\xff" * 20),
    "unknown_type": lambda data: _frame(b"\x1e"),
}


def read_struct_body(data: bytes) -> bytes:
    (length,) = struct.unpack("<I", data[-8:-4])
    return data[-8 - length : -8]


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_corrupted_footer_raises_codec_error(tmp_path: Path, corruption: str) -> None:
    path = tmp_path / "bad.parquet"
    path.write_bytes(CORRUPTIONS[corruption](_valid_file(tmp_path)))
    with pytest.raises(CodecError) as info:
        read_footer(path)
    assert info.value.file == str(path), "the error should name the file"
    with pytest.raises(CodecError):
        annotate_variant_columns(path, ["x"])
    assert sorted(os.listdir(tmp_path)) == ["bad.parquet", "good.parquet"]


def test_damaged_footer_bytes_raise_only_codec_error(tmp_path: Path) -> None:
    body = read_struct_body(_valid_file(tmp_path))
    rng = random.Random(20240601)
    for _ in range(500):
        damaged = bytearray(body)
        for _ in range(rng.randint(1, 4)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        cut = bytes(damaged[: rng.randint(1, len(damaged))]) if rng.random() < 0.3 else bytes(damaged)
        try:
            metadata, _ = decode_struct(cut)
            encode_struct(metadata)
        except CodecError:
            pass
