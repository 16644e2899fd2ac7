"""Strings cast to doubles, floats and decimals on the DuckDB engine as Spark casts them
(``Double.parseDouble``/``Float.parseFloat`` after ``String.trim``, then Spark's words), checked
against PySpark: a ``d``/``f`` suffix, control characters trimmed, Spark's ``inf``/``nan`` words,
texts DuckDB would read and Java does not (``1_000``, ``-nan``), and hexadecimal numbers rounded
once, half to even, at the precision or at the least subnormal's place; decimals as
``java.math.BigDecimal`` reads them (digits of any script)."""
from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pyarrow as pa
import pytest

import vpush
from support.compare import assert_same_answer
from support.tables import table_fixtures

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_WRITTEN = [
    "1.5", " 2F ", "1.5d", "+.5D", "1e5f", "1.", ".5", ".", "1e", "1e+", "1,5", "00001.5", "1.5E+2F",
    "1_000", "1__0", "_1", "1e1_0", "1.5e1_0", "0x1p1_0",
    "\x011.5\x02", "\t1.5\n", "\x7f1.5", "\u00a01.5", "1\u20002", "\u0967",
    "NaN", "nan", "-nan", "+nan", "\x01nan", "Infinity", "-Infinity", "+inf", "INF", " inf ", "infinity", "-infINITY", "Infinityd",
    "1e400", "-1e400", "1e-400", "4.9e-324", "2.4703282292062328e-324", "-0", "-0.0", "1e39", "3.4028236e38",
    "0x10", "0x", "0x.p1", "0x1p", "0x1.8", "0x1p4", "0X1.8P+1", "-0X10P-2", "0xAp0", "0X1P1D", "0x1p1f", "-0x0p0",
    "0x1p-1074", "0x1p-1075", "0x1.8p-1075", "0x1.0000000000001p-1075", "0x0.0000000000001p-1022", "0x1.fffffffffffff8p1023",
    "0x1p99999999999", "0x1p-99999999999", "0xffffffffffffffffffp0", "0x1.000000000000080p0", "0x1.000000000000081p0",
    "0x1.0000000000000800000000000001p0", "0x.00000000000000000000000001p100", "0x1.000001p0", "0x1.0000018p0", "0x1p-149",
    "0x1p-150", "0x1.8p-150", "0x1p128", "0x1.fffffep127", "0x1.ffffffp127", "0x1.fffffefp127",
    "\u0967\u0968\u0969", "\u0661\u0662.\u0665", "\u0b67e\u0b67", "1.5\x7f", "12345678.9", "-0.005",
    "1.5e-3", "15E2", "-1.25e1", ".5e1", "1e-200", "0e500", "1e500", "1.23456e-5", " 2.5E+1 ", "00.0001e4",
    "1" + "0" * 40, "1e999999999999999999999", "0.000e999999999999", " -2.5 ", "\t-1.5e1", "-0.00",
]


def _random_hex(rng: random.Random) -> str:
    digits = "".join(rng.choice("0123456789abcdefABCDEF") for _ in range(rng.randint(1, 22)))
    point = rng.randint(0, len(digits))
    mantissa = digits[:point] + "." + digits[point:] if rng.random() < 0.7 else digits
    exponent = rng.choice([rng.randint(-1140, -1060), rng.randint(-170, -130), rng.randint(-8, 8), rng.randint(115, 135),
                           rng.randint(1000, 1030)])
    return f"{rng.choice(['', '-', '+'])}0{rng.choice('xX')}{mantissa}{rng.choice('pP')}{exponent}{rng.choice(['', 'd', 'F'])}"


_RANDOM = random.Random(20261127)
TEXTS = _WRITTEN + [_random_hex(_RANDOM) for _ in range(300)]
TABLE = pa.table({"id": pa.array(range(len(TEXTS)), pa.int32()), "s": pa.array(TEXTS, pa.string())})

table_path, con, spark_con, spark_view = table_fixtures("string_to_floating", TABLE)


def _id(text: str) -> int:
    return TEXTS.index(text)


@pytest.mark.parametrize("sql", [
    "SELECT id, try_cast(s AS double) AS d, try_cast(s AS float) AS f FROM t",
    "SELECT id, cast(s AS double) AS d FROM t WHERE try_cast(s AS double) IS NOT NULL",
    "SELECT id, cast(s AS float) AS f FROM t WHERE try_cast(s AS float) IS NOT NULL",
    f"SELECT id, s + 0.5D AS d FROM t WHERE id IN ({_id('1.5d')}, {_id(' inf ')}, {_id('0X1.8P+1')}, {_id('0x1p-1075')})",
    f"SELECT cast(s AS double) AS d FROM t WHERE id = {_id('1_000')}",  # DuckDB's cast reads it; Spark's raises
    f"SELECT cast(s AS float) AS d FROM t WHERE id = {_id('-nan')}",
    f"SELECT s * 2.0D AS d FROM t WHERE id = {_id('0x1.8')}",  # a hexadecimal number has an exponent
    # coercions beside a double cast the string as the cast does
    f"SELECT id, coalesce(s, 1.5D) AS c, if(id > 0, s, 2.5D) AS i, array(s, 1.5D) AS a FROM t WHERE id IN ({_id('0x1p4')}, {_id('1.5d')})",
    f"SELECT s FROM t WHERE id = {_id('0x1p4')} UNION ALL SELECT 1.5D",
    f"SELECT id, s = 1000D AS e FROM t WHERE id = {_id('1_000')}",
    # decimals: BigDecimal's text, trimmed as String.trim trims, digits of any script
    "SELECT id, try_cast(s AS decimal(10,2)) AS d, try_cast(s AS decimal(38,0)) AS e, try_cast(s AS decimal(4,4)) AS f FROM t",
    "SELECT id, cast(s AS decimal(10,2)) AS d FROM t WHERE try_cast(s AS decimal(10,2)) IS NOT NULL",
    f"SELECT cast(s AS decimal(10,2)) AS d FROM t WHERE id = {_id('1_000')}",
    f"SELECT cast(s AS decimal(3,1)) AS d FROM t WHERE id = {_id('12345678.9')}",
    f"SELECT cast(s AS decimal(5,2)) AS d FROM t WHERE id = {_id('1e500')}",  # NUMERIC_OUT_OF_SUPPORTED_RANGE
    f"SELECT cast(s AS decimal(5,2)) AS d FROM t WHERE id = {_id('1' + '0' * 40)}",
    f"SELECT cast(s AS decimal(5,2)) AS d FROM t WHERE id = {_id('1e999999999999999999999')}",  # an exponent past an int
    f"SELECT cast(s AS decimal(5,2)) AS d FROM t WHERE id = {_id('0.000e999999999999')}",
    "SELECT cast('1e500' AS decimal(10,2)) AS d",  # a literal: NUMERIC_OUT_OF_SUPPORTED_RANGE (vpush had crashed)
    "SELECT try_cast('1e500' AS decimal(10,2)) AS d, coalesce('1e500', 1.5BD) AS c",
    f"SELECT id, coalesce(s, 1.5BD) AS c FROM t WHERE id IN ({_id('1.5')}, {_id(' 2F ')})",
])
def test_strings_cast_to_floating_as_spark(sql: str, spark_view: SparkSession, con: vpush.Connection) -> None:
    assert_same_answer(sql, spark_view, con)
