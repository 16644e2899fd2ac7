"""``is_valid_variant`` on the DuckDB engine answers as PySpark 4.3 does.

Spark's ``VariantUtil.isValidVariant`` is looser than the spec's validation (it reads only what
its accessors would read), so every rule is checked against Spark itself: a file of values
damaged by hand (each rule of the compiled kernel, one byte short and exact), a seeded fuzz of
random damage to real values, and the Spark- and DuckDB-written files (shredded and not) of
``test_variant_functions``. Damaged bytes are stored unshredded, which Spark and vpush read as
they are.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import vpush
from vpush.codec.builder import encode
from vpush.codec.json import parse_json
from vpush.codec.native import is_valid_variant_native
from vpush.codec.write_variant_parquet import annotate_variant_columns
from vpush.exec.variant_functions import is_valid_variant_column
from vpush.optimizer.plan import VARIANT_ARROW_TYPE

sys.path.insert(0, str(Path(__file__).parent.parent))
from support.unsorted import unsorted_variant  # noqa: E402

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

AB = bytes([1, 2, 0, 1, 2]) + b"ab"  # the dictionary ["a", "b"], unsorted flag
OBJECT_A = bytes([2, 1, 0, 0, 2, 12, 1])  # {"a": 1} over a dictionary whose id 0 is "a"

# Values over AB, by the rule they exercise (hex comments: the header byte).
DAMAGED_VALUES = [
    # every primitive, exact, and one byte short
    *[bytes([t << 2]) + bytes(n) for t, n in [(0, 0), (1, 0), (2, 0), (3, 1), (4, 2), (5, 4), (6, 8), (7, 8), (8, 5),
                                            (9, 9), (10, 17), (11, 4), (12, 8), (13, 8), (14, 4), (20, 16)]],
    *[bytes([t << 2]) + bytes(n - 1) for t, n in [(3, 1), (4, 2), (5, 4), (6, 8), (7, 8), (8, 5), (9, 9), (10, 17),
                                                (11, 4), (12, 8), (13, 8), (14, 4), (20, 16)]],
    # types Spark 4.3 does not know (time, nanosecond timestamps) and ids past uuid
    bytes([17 << 2]) + bytes(8), bytes([18 << 2]) + bytes(8), bytes([19 << 2]) + bytes(8), bytes([21 << 2]) + bytes(16),
    bytes([63 << 2]),
    # decimals: scale over the precision, digits over it, at it, negative, and the int128 minimum
    bytes([32, 10, 1, 0, 0, 0]), bytes([32, 9, 1, 0, 0, 0]), bytes([32, 0]) + (10**9).to_bytes(4, "little"),
    bytes([32, 0]) + (10**9 - 1).to_bytes(4, "little"), bytes([32, 0]) + (-(10**9) + 1).to_bytes(4, "little", signed=True),
    bytes([32, 0]) + (-(10**9)).to_bytes(4, "little", signed=True), bytes([36, 19, 1]) + bytes(7),
    bytes([36, 0]) + (10**18).to_bytes(8, "little"), bytes([40, 0]) + (10**38).to_bytes(16, "little"),
    bytes([40, 0]) + (10**38 - 1).to_bytes(16, "little"), bytes([40, 0]) + (-(2**127)).to_bytes(16, "little", signed=True),
    bytes([40, 200, 1]) + bytes(15),
    # strings and binaries: lengths inside and past the buffer, a length with its top bit set, bad UTF-8
    bytes([13]) + b"abc", bytes([13]) + b"ab", bytes([9]) + b"x", bytes([64, 2, 0, 0, 0]) + b"ab",
    bytes([64, 3, 0, 0, 0]) + b"ab", bytes([64, 0, 0, 0, 128]), bytes([60, 2, 0, 0, 0, 1, 2]), bytes([60, 2, 0, 0]),
    bytes([64, 2, 0, 0, 0, 0xFF, 0xFE]), bytes([13, 0xFF, 0xFE, 0x80]),
    # trailing bytes after a whole value
    bytes([0, 255]), bytes([5, 255]), bytes([12, 1, 2, 3]),
    # arrays: empty with no offsets at all, reserved header bits, children out of order or past the end
    bytes([3, 0]), bytes([0xFF, 0, 0, 0, 0]), bytes([3, 2, 0, 1, 2, 4, 8]), bytes([3, 2, 2, 0, 4, 12, 1, 12, 2]),
    bytes([3, 1, 0]), bytes([3, 1, 1, 1]), bytes([3, 1, 0, 2, 24, 0]), bytes([3, 2, 0, 9, 9, 0]),
    bytes([19, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), bytes([19, 0, 0, 0, 128]), bytes([7, 1, 0, 0, 1, 0]),
    # objects: empty, unsorted and duplicate keys, ids past the dictionary, a wrong last offset
    bytes([2, 0]), bytes([2, 2, 1, 0, 0, 2, 4, 12, 1, 12, 2]), bytes([2, 2, 0, 0, 0, 2, 4, 12, 1, 12, 2]),
    bytes([2, 1, 2, 0, 1, 0]), bytes([2, 1, 0, 5, 0, 12, 1]), bytes([2, 1, 0, 0, 2, 24, 0]), bytes([2, 1, 0, 0, 9, 12, 1]),
    bytes([2, 1, 0, 0, 1, 12, 1]), bytes([2, 2, 1, 0, 0, 0, 255, 0]), bytes([66, 1, 0, 0, 0, 0, 0, 2, 12, 1]),
    # nested damage, two levels down
    bytes([3, 1, 0, 7]) + bytes([2, 1, 1, 0, 2, 12]), bytes([3, 1, 0, 8]) + bytes([2, 1, 1, 0, 2, 12, 1]),
    b"",
]  # fmt: skip

# Metadata, each under a null and under OBJECT_A (which reads key 0).
DAMAGED_METADATA = [
    b"", b"\x00", b"\x02", b"\x03", b"\x11", b"\x21", b"\xf1", b"\x01", b"\x01\x00\x00", b"\x01\x01\x00",
    b"\x01\x01\x02\x01ab", b"\x01\x01\x00\x01\xff", bytes([193, 254, 255, 255, 63]) + bytes(8),
    b"\x11\x02\x00\x01\x02ba", b"\x01\x02\x00\x02\x01ab", b"\x01\x02\x00\x01\x02a", b"\x41\x01\x00\x00\x01\x00a",
    b"\x81\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00a", b"\xc1\x01\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00a",
]  # fmt: skip


def _cases() -> list[tuple[bytes, bytes]]:
    rows = [(AB, v) for v in DAMAGED_VALUES]
    rows += [(m, v) for m in DAMAGED_METADATA for v in (b"\x00", OBJECT_A)]
    rows += [parse_json('{"a": [1, 2.5, "x", null], "b": {"c": true}, "é": "ü"}'), encode([{"z": 1}, [], {}])]
    rows.append(unsorted_variant([("b", 1), ("a", "x"), ("b", 2)]))
    deep = bytes([3, 1, 0, 0]) * 200 + b"\x00"  # Spark recurses: far deeper kills its task with a StackOverflowError
    rows += [(b"\x01", deep), (b"\x01", deep[:-1])]
    return rows


def _fuzz(seed: int, count: int) -> list[tuple[bytes, bytes]]:
    """Random damage (bytes changed, cut or appended) to real values, mostly to the value."""
    rng = random.Random(seed)
    base = [
        parse_json('{"a": [1, 1.5e300, "long string ' + "x" * 70 + '"], "b": {"c": null, "d": 12.345}}'),
        encode([{"a": 1, "b": [1.5, None]}, {"a": 2.5, "c": "x"}, b"\x00\x01"]),
        encode({"k": [1, 2**40, -(2**20)], "z": {"q": True, "r": "s"}}),
    ]
    rows = []
    for case in range(count):
        metadata, value = base[case % len(base)]
        damage_value = rng.random() < 0.85
        raw = bytearray(value if damage_value else metadata)
        for _ in range(rng.randint(1, 3)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        cut = rng.random()
        if cut < 0.15:
            del raw[rng.randrange(len(raw) + 1) :]
        elif cut < 0.25:
            raw += bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        rows.append((metadata, bytes(raw)) if damage_value else (bytes(raw), value))
    return rows


def _write(path: Path, rows: list[tuple[bytes, bytes] | None]) -> Path:
    layout = pa.struct([pa.field("metadata", pa.binary(), nullable=False), pa.field("value", pa.binary(), nullable=False)])
    column = pa.array([None if r is None else {"metadata": r[0], "value": r[1]} for r in rows], layout)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": pa.array(range(len(rows)), pa.int64()), "v": column}), path)
    annotate_variant_columns(path, ["v"])
    return path.parent


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, list[tuple[bytes, bytes] | None]]]:
    root = tmp_path_factory.mktemp("valid")
    hand: list[tuple[bytes, bytes] | None] = [*_cases(), None]
    fuzz: list[tuple[bytes, bytes] | None] = list(_fuzz(20261125, 1500))
    return {"hand": (_write(root / "hand" / "part-0.parquet", hand), hand),
            "fuzz": (_write(root / "fuzz" / "part-0.parquet", fuzz), fuzz)}  # fmt: skip


@pytest.mark.parametrize("table", ["hand", "fuzz"])
def test_same_answers_as_spark_on_damaged_bytes(
    spark: SparkSession, damaged: dict[str, tuple[Path, list[tuple[bytes, bytes] | None]]], table: str
) -> None:
    folder, rows = damaged[table]
    sql = "SELECT id, is_valid_variant(v) FROM {} ORDER BY id"
    frame = spark.sql(sql.format(f"parquet.`{folder}`"))
    want = [tuple(r) for r in frame.collect()]
    con = vpush.connect(time_zone="UTC")
    con.register("t", folder)
    got = con.sql(sql.format("t")).to_arrow()
    assert got.column_names == frame.columns
    assert got.schema.field(1).type == pa.bool_()
    got_rows = list(zip(*got.to_pydict().values()))
    differences = [(rows[w[0]], w, g) for w, g in zip(want, got_rows) if w != g]
    assert not differences, f"{len(differences)} rows differ from Spark, first: {differences[:3]}"
    answers = {w for _, w in want}
    assert True in answers and False in answers, "the file holds both valid and damaged values"


def test_where_and_null(spark: SparkSession, damaged: dict[str, tuple[Path, list[tuple[bytes, bytes] | None]]]) -> None:
    folder, _ = damaged["hand"]
    for sql in (
        "SELECT count(*) AS n, count_if(is_valid_variant(v)) AS ok FROM {} WHERE NOT is_valid_variant(v) OR v IS NULL",
        "SELECT is_valid_variant(NULL), is_valid_variant(parse_json('[1]')) FROM {} WHERE id = 0",
    ):
        frame = spark.sql(sql.format(f"parquet.`{folder}`"))
        con = vpush.connect(time_zone="UTC")
        con.register("t", folder)
        got = con.sql(sql.format("t")).to_arrow()
        assert got.column_names == frame.columns
        assert [tuple(r.values()) for r in got.to_pylist()] == [tuple(r) for r in frame.collect()]


def test_rejects_other_types_as_spark() -> None:
    con = vpush.connect(time_zone="UTC")
    with pytest.raises(vpush.VpushError) as error:
        con.sql("SELECT is_valid_variant(1)").to_arrow()
    assert error.value.error_class == "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"  # as Spark 4.3 measured


def test_kernel_walks_deep_values_without_recursion() -> None:
    """Spark's recursive check dies of a StackOverflowError on such a value; the kernel answers."""
    deep = bytes([3, 1, 0, 0]) * 100_000 + b"\x00"
    metadata = pa.array([b"\x01", b"\x01", None])
    value = pa.array([deep, deep[:-1], b"\x00"])
    assert is_valid_variant_native(metadata, value).to_pylist() == [True, False, None]


def test_column_nulls_follow_the_struct() -> None:
    column = pa.StructArray.from_arrays(
        [pa.array([b"\x01", b"\x01"]), pa.array([b"\x00", b"\x00"])],
        fields=list(VARIANT_ARROW_TYPE),
        mask=pa.array([False, True]),
    )
    assert is_valid_variant_column(column).to_pylist() == [True, None]
