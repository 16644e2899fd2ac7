"""``format_string``/``printf`` of doubles, floats and decimals on the DuckDB engine, against Spark.

Spark prints a double with ``java.util.Formatter``: FloatingDecimal's digits in the form Formatter
asks for, rounded HALF_UP at the precision. Seeded doubles (random bit patterns, decimal ties,
integers, subnormals, huge and tiny values, negative zero, NaN, infinities) go through each of
several specifiers on both engines; so do floats (which Formatter widens to a double) and
decimals (``%s`` only: Spark passes its own ``Decimal`` class, which ``%f`` does not take).
"""

from __future__ import annotations

import decimal
import random
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import vpush
from support.refused import assert_refused_on_duckdb
from vpush.codec.errors import VpushError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

D = decimal.Decimal

SPECIAL = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308,
           float("nan"), float("inf"), float("-inf"), 0.5, 1.5, 2.5, -0.5, 0.125, 1.005, 2.675, 0.05, 9.5, 99.5,
           999999.5, 0.00009999995, 1e-5, 1e7, 1e8, 123456789.0, 0.1, 0.3, 1e-4, 9.9999995e-5, 1e21, 1e22, 1e23,
           9007199254740993.0, 9.223372036854776e18, 1234567.891, -1234567.891]
"""Zeros, the extremes, NaN and the infinities, ties at each precision tested, the boundaries
of %g's two forms, and integers past 2**53 and 2**63."""


def _seeded_doubles(seed: int) -> list[float]:
    rng = random.Random(seed)
    values = [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(500)]
    values += [struct.unpack("<d", rng.getrandbits(52).to_bytes(8, "little"))[0] for _ in range(50)]  # subnormals
    values += [rng.choice((1, -1)) * rng.randint(0, 10 ** rng.randint(1, 17)) / 10 ** rng.randint(0, 20) for _ in range(500)]
    values += [float(f"{rng.randint(1, 99999)}5e{rng.randint(-12, 12)}") for _ in range(400)]  # a 5 last: ties
    values += [rng.uniform(-1e6, 1e6) for _ in range(200)] + [rng.random() * 10.0 ** rng.randint(-330, 308) for _ in range(200)]
    values += [float(rng.randint(-2**63, 2**63)) for _ in range(100)]
    return values + SPECIAL


DOUBLES = _seeded_doubles(20261126)
FORMATS = ["%f", "%.2f", "%.0f", "%e", "%.3E", "%.0e", "%g", "%.3G", "%,.2f", "%+015.4f", "%(,12.1f", "% .10e",
           "%-12.3g|", "%#.0f", "%#.0e", "%020.3e", "%(012.2e", "%.17f", "%.20e", "%,g", "%.1f", "%.15g", "%5.1f%%", "%s|%10s",
           "%S|%-8.3S|"]


def _answers(spark: SparkSession, folder: Path, sql: str) -> tuple[list[Any], list[Any]]:
    """Spark's rows and vpush's (DuckDB engine) for ``sql`` over the files of ``folder`` as table ``z``."""
    spark.read.parquet(str(folder)).createOrReplaceTempView("z")
    frame = spark.sql(sql)
    expected = [[f.name for f in frame.schema], [tuple(row) for row in frame.collect()]]
    connection = vpush.connect()
    connection.register("z", folder)
    table = connection.sql(sql).to_arrow()
    return expected, [table.schema.names, list(zip(*(c.to_pylist() for c in table.columns)))]


def _calls(column: str) -> list[str]:
    return [f"format_string('{spec}', {column}{', ' + column if spec.count('%') - spec.count('%%') * 2 == 2 else ''})"
            for spec in FORMATS]


def test_doubles_as_spark(spark: SparkSession, tmp_path: Path) -> None:
    """Every seeded double under every specifier, and its printf, as Spark prints them."""
    pq.write_table(pa.table({"k": pa.array(range(len(DOUBLES)), pa.int32()), "x": pa.array(DOUBLES, pa.float64())}),
                   tmp_path / "part-0.parquet")
    calls = _calls("x") + ["printf('%.2f|%10.4e|%-10g|', x, -x, x)"]
    expected, got = _answers(spark, tmp_path, f"SELECT k, {', '.join(calls)} FROM z")
    assert got[0] == expected[0]
    rows, wanted = sorted(got[1]), sorted(expected[1])
    for k, call in enumerate(calls, start=1):
        assert [r[k] for r in rows] == [r[k] for r in wanted], call


def test_floats_and_nulls_as_spark(spark: SparkSession, tmp_path: Path) -> None:
    """A float is widened to a double (0.1f prints 0.1000000015 under %.10f) but printed by %s
    as Float.toString; a NULL prints null, cut to the precision and upper-cased by %E and %G."""
    rng = random.Random(7)
    floats = [struct.unpack("<f", rng.getrandbits(32).to_bytes(4, "little"))[0] for _ in range(300)]
    floats += [rng.uniform(-1e4, 1e4) for _ in range(200)] + [0.1, 1.0005, 3.4e38, -0.0, float("nan"), float("-inf"), None]
    pq.write_table(pa.table({"k": pa.array(range(len(floats)), pa.int32()), "x": pa.array(floats, pa.float32())}),
                   tmp_path / "part-0.parquet")
    calls = _calls("x") + ["format_string('%.10f|%.12e', x, x)", "format_string('%10.2f|%-8e|%E|%G|%s', NULL, NULL, NULL, NULL, NULL)",
                           "format_string('%E|%G|%.2f', x, x, CAST(NULL AS DOUBLE))"]
    expected, got = _answers(spark, tmp_path, f"SELECT k, {', '.join(calls)} FROM z")
    assert got[0] == expected[0]
    rows, wanted = sorted(got[1]), sorted(expected[1])
    for k, call in enumerate(calls, start=1):
        assert [r[k] for r in rows] == [r[k] for r in wanted], call


def test_decimals_printed_by_s_as_spark(spark: SparkSession, tmp_path: Path) -> None:
    """%s of a decimal is Spark's Decimal.toString: BigDecimal's plain digits, or E-notation where
    the first digit's exponent is below -6 (1.200E-7, and 0E-18 for a zero of scale 18)."""
    values = [D("0"), D("1.5"), D("-0.00000012"), D("0.000001"), D("0.0000001"), D("123.45"), D("-99999999.99999999"), None]
    scaled = [pa.array([v.quantize(D(10) ** -scale) if v is not None and -v.as_tuple().exponent <= scale else None for v in values],
                       pa.decimal128(38, scale)) for scale in (0, 2, 8, 10, 18)]
    names = [f"d{n}" for n in range(len(scaled))]
    pq.write_table(pa.table({"k": pa.array(range(len(values)), pa.int32()), **dict(zip(names, scaled))}), tmp_path / "part-0.parquet")
    calls = [f"format_string('%s|%-24s|%5s|%S|%.4s', {n}, {n}, {n}, {n}, {n})" for n in names] + ["format_string('%s', CAST(0 AS DECIMAL(10, 9)))"]
    expected, got = _answers(spark, tmp_path, f"SELECT k, {', '.join(calls)} FROM z")
    assert got[0] == expected[0]
    assert sorted(got[1]) == sorted(expected[1])


@pytest.mark.parametrize(
    "call",
    ["format_string('%f', i)", "format_string('%.2f', d)", "format_string('%e', b)", "printf('%d', x)", "format_string('%x', x)",
     "format_string('%G', g)", "format_string('%d', d)", "format_string('%f', t)", "format_string('%d', g)"],
)
def test_a_conversion_java_does_not_take_fails_as_spark(call: str, spark: SparkSession, tmp_path: Path) -> None:
    """Formatter's IllegalFormatConversionException (f != java.lang.Integer), which Spark gives no
    error class, where a row holds a value; a NULL prints null."""
    table = pa.table({"i": pa.array([1, None], pa.int32()), "b": pa.array([1, None], pa.int64()), "x": pa.array([1.5, None]),
                      "d": pa.array([D("1.5"), None], pa.decimal128(5, 2)), "g": pa.array(["a", None]), "t": pa.array([True, None])})
    pq.write_table(table, tmp_path / "part-0.parquet")
    spark.read.parquet(str(tmp_path)).createOrReplaceTempView("z")
    with pytest.raises(Exception) as spark_raised:
        spark.sql(f"SELECT {call} FROM z").collect()
    java_message = str(spark_raised.value).split("IllegalFormatConversionException: ")[-1].split("\n")[0].strip()
    assert " != " in java_message
    connection = vpush.connect()
    connection.register("z", tmp_path)
    with pytest.raises(VpushError) as raised:
        connection.sql(f"SELECT {call} FROM z").to_arrow()
    assert raised.value.error_class is None
    assert java_message in str(raised.value)
    expected, got = _answers(spark, tmp_path, f"SELECT {call} FROM z WHERE i IS NULL")
    assert got == expected


@pytest.mark.parametrize(
    "call",
    ["format_string('%,e', 1.5D)", "format_string('%#g', 1.5D)", "format_string('%-f', 1.5D)", "format_string('%-010f', 1.5D)",
     "format_string('%+ e', 1.5D)", "format_string('%a', 1.5D)", "format_string('%.20001f', 1.5D)",
     "format_string('%d', DATE'2024-01-01')", "format_string('%f', TIMESTAMP'2024-01-01 00:00:00')", "format_string('%S', g)",
     "format_string('%.2s', g)", "format_string('%.2d', 1)", "format_string('%f', 1)", "printf('%d|%s', 1.5D, 'a')"],
)
def test_refused_specifiers(call: str, tmp_path: Path) -> None:
    """The flag combinations Java rejects (Spark raises without an error class), a conversion
    Java does not take in a call of constants (Spark fails as it folds it, but not under LIMIT
    0), and the forms vpush does not print: refused when planned."""
    pq.write_table(pa.table({"x": pa.array([1.5]), "g": pa.array(["a"])}), tmp_path / "part-0.parquet")
    connection = vpush.connect()
    connection.register("t", tmp_path)
    assert_refused_on_duckdb(connection, call)
