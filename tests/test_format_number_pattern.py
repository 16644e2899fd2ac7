"""``format_number(x, pattern)`` with a literal ``java.text.DecimalFormat`` pattern on the DuckDB
engine gives Spark's text: against PySpark itself.

Seeded doubles (random bit patterns, decimal ties, binary fractions, values around each power
of ten, the extremes, signed zeros, NaN, the infinities), their floats, decimals of two
precisions and integers of every width go through Spark's SQL and through vpush's for each
pattern; the patterns cover ``0``/``#`` integer digits, grouping sizes, minimum and maximum
fraction digits, the point always shown, quoted and literal affixes, ``%`` and ``‰``, negative
subpatterns and the empty pattern. The forms vpush does not reproduce are refused.
"""

from __future__ import annotations

import decimal
import math
import random
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import vpush
from support.compare import comparable
from support.doubles import SPECIAL
from support.refused import assert_refused_on_duckdb
from support.tables import connect_tables
from vpush.codec.java_decimal_format import UnsupportedPattern, parse_decimal_pattern
from vpush.codec.native import NATIVE_AVAILABLE, format_number_pattern_native

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = pytest.mark.skipif(not NATIVE_AVAILABLE, reason="the compiled kernel is not built")

D = decimal.Decimal

PATTERNS = [
    "#,##0.00", "0.###", "", "#", "#.#", ".##", "0.", "#,##0.00;(#,##0.00)", "00000.0000", "#,#00.0#;'neg '#",
    "'a''b'#%", "0.##%", "#,##0‰", "$#,##0.00 'USD'", "#,####,##0.0##", "0.0#####", "##0.#####",
    "#,##0.###############", "0;-0", "#,##0.00;#,##0.00", "0;0%", "0.0-", "#,##,##0.00", "#,#,#0",
    "0000000000000000000000000.0", "#,##0.0000000000000000000000000000000000000000", "#.", "0.00%;0.00%-", "E0", "''",
    "\u20ac#,##0.00", "'''0'''",
    # DecimalFormat's fast path for doubles
    "#,##0.###", "#,###.###", "'a'#,##0.###;(#)",
    # odd but accepted: a leading comma, affixes without a number part, an empty negative subpattern
    ",##0", "0 ;0 ", "a'b'c0", "0.0''", "%0", "0-;-0", ".", "0;",
]

_TIES = [0.125, 0.375, 2.675, 1.005, 0.5, 1.5, 2.5, 9.995, 99.995, 0.045, 0.0005, 0.0015, 0.00049999, 123456789.125,
         999999.9999999, 1e22, 1e23, 2.0**63, 2.0**53 + 2, 0.1, 0.7, 1 / 3, 0.00995, 0.0095, 12345.6785]


def _doubles(seed: int) -> list[float | None]:
    rng = random.Random(seed)
    xs: list[float | None] = [*SPECIAL, *_TIES, *(-x for x in _TIES), None]
    xs += [float(10**k) for k in range(-12, 25)] + [10.0**k - 10.0**(k - 4) for k in range(-6, 16)]
    while len(xs) < 2000:
        kind = len(xs) % 5
        if kind == 0:
            xs.append(struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0])
        elif kind == 1:
            xs.append(round(rng.uniform(-1e6, 1e6), rng.randrange(0, 7)))
        elif kind == 2:
            xs.append(rng.randrange(-10**6, 10**6) / 2 ** rng.randrange(1, 14))
        elif kind == 3:
            xs.append(rng.uniform(-1.0, 1.0) * 10.0 ** rng.randrange(-10, 22))
        else:
            xs.append(float(f"{rng.randrange(1, 10**6)}.{rng.randrange(0, 100)}5") * rng.choice([1, -1, 0.01, 0.001]))
    return xs


def _table(seed: int) -> pa.Table:
    rng = random.Random(seed + 1)
    xs = _doubles(seed)
    n = len(xs)
    small = [D(rng.randrange(-10**9, 10**9)).scaleb(-rng.choice([0, 2, 4])).quantize(D("0.0001")) for _ in range(n)]
    digits = [rng.randrange(1, 39) for _ in range(n)]
    wide = [D(f"{rng.randrange(-10**d + 1, 10**d)}E-18") for d in digits]
    longs = [rng.choice([rng.randrange(-2**63, 2**63), rng.randrange(-10**6, 10**6), 0, -2**63, 2**63 - 1]) for _ in range(n)]
    small[:4] = [D("0.0000"), D("-0.0050"), D("0.0050"), None]
    longs[:2] = [0, None]
    return pa.table({
        "x": pa.array(xs, pa.float64()),
        "m": pa.array(small, pa.decimal128(14, 4)),
        "w": pa.array(wide, pa.decimal128(38, 18)),
        "l": pa.array(longs, pa.int64()),
        "k": pa.array([None if v is None else int(v) % 200 - 100 for v in longs], pa.int8()),
    })


@pytest.fixture(scope="module")
def number_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("format_number_pattern") / "t"
    root.mkdir()
    pq.write_table(_table(20261126), root / "part-0.parquet")
    return root


def _rows(frame_rows: Any) -> list[tuple[Any, ...]]:
    return [tuple(comparable(v) for v in row) for row in frame_rows]


def _calls(pattern: str) -> list[str]:
    literal = "'" + pattern.replace("'", "\\'") + "'"
    return [f"format_number(m, {literal})", f"format_number(w, {literal})", f"format_number(l, {literal})",
            f"format_number(k, {literal})", f"format_number(CAST(k AS INT), {literal})", f"format_number(x, {literal})",
            f"format_number(CAST(x AS FLOAT), {literal})"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_format_number_with_a_pattern_as_spark(pattern: str, spark: SparkSession, number_path: Path) -> None:
    spark.read.parquet(str(number_path)).createOrReplaceTempView("t")
    con = connect_tables({"t": number_path})
    sql = f"SELECT x, {', '.join(_calls(pattern))} FROM t"
    frame = spark.sql(sql)
    want = _rows(frame.collect())
    got_table = con.sql(sql).to_arrow()
    got = _rows(zip(*(c.to_pylist() for c in got_table.columns)))
    assert got_table.schema.names == [f.name for f in frame.schema]
    assert all(pa.types.is_string(t) for t in got_table.schema.types[1:])
    wrong = [(w, g) for w, g in zip(want, got) if w != g]
    assert not wrong, wrong[:5]
    assert len(got) == len(want) == 2000


@pytest.mark.parametrize("sql", [
    "format_number(1234.5, '#,##0.00')", "format_number(NULL, '0.0')", "format_number(CAST(NULL AS DOUBLE), '0.0')",
    "format_number(-0.0D, '0.0;(0.0)')", "format_number(CAST('NaN' AS DOUBLE), '0%')", "format_number(1e307D, '0%')",
    "format_number(-1e308D, '#,##0‰')", "format_number(CAST('Infinity' AS DOUBLE), 'x0y;(0)')",
    "format_number(CAST(-0.001 AS DECIMAL(5, 3)), '0.00')", "format_number(7Y, '0.0;-0.0')",
])
def test_format_number_pattern_of_constants_as_spark(sql: str, spark: SparkSession) -> None:
    con = vpush.connect(time_zone="UTC")
    frame = spark.sql(f"SELECT {sql}")
    got = con.sql(f"SELECT {sql}").to_arrow()
    assert got.schema.names == [f.name for f in frame.schema]
    assert [comparable(v) for v in got.to_pylist()[0].values()] == [comparable(v) for v in frame.collect()[0]]


@pytest.mark.parametrize("pattern", ["0.0.0", "#,##0E0", ";", "#,", "a;b", "0.#0", "'x", "%%0", "\u00a40.00", "0#.0",
                                     ";0", "0'", "#,##0,", "0;0;", "'';''0", "#,.#"])
def test_format_number_patterns_vpush_does_not_reproduce_are_refused(pattern: str, spark: SparkSession, number_path: Path) -> None:
    with pytest.raises(UnsupportedPattern):
        parse_decimal_pattern(pattern)
    con = connect_tables({"t": number_path})
    literal = "'" + pattern.replace("'", "\\'") + "'"
    assert_refused_on_duckdb(con, f"format_number(x, {literal})")
    assert_refused_on_duckdb(con, f"format_number(l, {literal})")


def test_format_number_with_a_pattern_that_is_not_a_literal_is_refused(number_path: Path) -> None:
    con = connect_tables({"t": number_path})
    assert_refused_on_duckdb(con, "format_number(x, CAST(k AS STRING))")
    assert_refused_on_duckdb(con, "format_number(m, concat('0.', '00'))")


def test_format_number_fast_path_of_doubles_as_spark(spark: SparkSession, tmp_path: Path) -> None:
    """Under ``#,##0.###`` a double of at most ``Integer.MAX_VALUE`` takes ``DecimalFormat``'s fast
    path, which rounds its binary value half to even: binary fractions (exact ties at the third
    digit, and their neighbours), decimal ties at the third digit and their neighbours, the
    bound itself and what lies past it."""
    rng = random.Random(5)
    xs: list[float] = []
    for _ in range(3000):
        shift = rng.randrange(1, 30)
        v = rng.randrange(0, 2**31 >> max(0, 11 - shift)) / 2**shift
        xs += [v, math.nextafter(v, 0), math.nextafter(v, 10), -v]
    for _ in range(2000):
        tie = (rng.randrange(0, 2**31 * 1000) if rng.random() < 0.5 else rng.randrange(0, 10**7)) / 1000 + 0.0005
        xs += [tie, math.nextafter(tie, 0), math.nextafter(tie, 1e10)]
    xs += [2147483647.0, 2147483647.0005, 2147483646.9995, 2147483646.9994, 2147483648.0, 5e-324, 0.0005, -0.0005, -0.0]
    pq.write_table(pa.table({"x": pa.array(xs, pa.float64())}), tmp_path / "fast.parquet")
    spark.read.parquet(str(tmp_path / "fast.parquet")).createOrReplaceTempView("fast")
    for pattern in ("#,##0.###", "'a'#,##0.###;(#)"):
        literal = "'" + pattern.replace("'", "\\'") + "'"
        want = [r[0] for r in spark.sql(f"SELECT format_number(x, {literal}) FROM fast").collect()]
        got = format_number_pattern_native(pa.array(xs, pa.float64()), parse_decimal_pattern(pattern)).to_pylist()
        wrong = [(x, g, w) for x, g, w in zip(xs, got, want) if g != w]
        assert not wrong, wrong[:5]
