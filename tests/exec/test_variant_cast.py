"""``vpush.exec.variant_cast`` against PySpark 4.3, the oracle.

Every source value (a Spark SQL typed value cast to variant, plus a seeded fuzz of strings and
numbers) meets every scalar target in one ``try_variant_get`` query per session time zone; Spark's
Arrow answer must equal :func:`variant_get_column`'s cell for cell, and :func:`cast_variant`'s
Python value must equal it too. Spark's ``VariantGet.cast`` raises ``INVALID_VARIANT_CAST`` exactly
where the TRY cast gives NULL for a value that is not a variant null, so the strict answers are
read off the same query (and spot-checked against ``variant_get`` itself).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import math
import random
import struct
import uuid
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest
import vpush
from vpush.codec.builder import encode
from vpush.codec.errors import VpushError
from vpush.codec.header import PrimitiveType
from vpush.codec.scalars import VariantScalar
from vpush.codec.value import Variant
from vpush.exec.errors import ExecutionError
from vpush.exec.variant_cast import (
    INVALID_VARIANT_CAST,
    UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT,
    arrow_type,
    cast_variant,
    variant_get_column,
)
from vpush.optimizer.variant_types import SparkType, parse_variant_type

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TARGETS = [
    "boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "decimal(2,1)", "decimal(5,2)",
    "decimal(10,0)", "decimal(38,10)", "decimal(38,0)", "string", "binary", "date", "timestamp", "timestamp_ntz",
]  # fmt: skip
# UTC; a zone with DST gaps and overlaps at 2 am; one whose gap swallowed midnight (2018-11-04).
ZONES = ["UTC", "America/Los_Angeles", "America/Sao_Paulo"]
EPOCH_DATE = dt.date(1970, 1, 1)
EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
EPOCH_NAIVE = dt.datetime(1970, 1, 1)


def text(value: str) -> str:
    """A variant string with exactly these characters (hex, so no SQL or JSON escaping)."""
    return f"CAST(CAST(X'{value.encode('utf-8').hex()}' AS STRING) AS VARIANT)"


def typed(sql: str) -> str:
    return f"CAST({sql} AS VARIANT)"


INTEGERS = [
    *(f"parse_json('{n}')" for n in (
        0, 1, -1, -7, 127, 128, -128, -129, 255, 32767, 32768, -32769, 2147483647, 2147483648, -2147483648,
        -2147483649, 1704164645, 9223372036854, 9223372036855, -9223372036855, 9223372036854775807,
        -9223372036854775808,
    )),
    typed("CAST(-5 AS TINYINT)"), typed("CAST(300 AS SMALLINT)"), typed("12345"), typed("16777217L"),
    typed("9007199254740993L"),
]  # fmt: skip
DECIMALS = [
    *(f"parse_json('{n}')" for n in (
        "1.5", "-1.25", "2.5", "-2.5", "0.005", "0.05", "0.95", "123.456", "1.50", "0.0", "-0.00", "99.995",
        "999.995", "-999.994", "12345678901234567890.5", "9223372036854775807.9", "-9223372036854775808.9",
        "9223372036854775808", "0.1", "127.5", "-128.5", "1704164645.123456",
    )),
    typed("CAST(2147483647.99999999 AS DECIMAL(18,8))"), typed("CAST(127.9999999999999999 AS DECIMAL(19,16))"),
    typed("CAST(99999999999999999999999999999999999999 AS DECIMAL(38,0))"),
    typed("CAST(-0.00000000000000000000000000000000000001 AS DECIMAL(38,38))"), typed("CAST(100 AS DECIMAL(5,0))"),
    typed("CAST(16777217.5 AS DECIMAL(10,1))"), typed("CAST(9223372036854.7758079 AS DECIMAL(20,7))"),
]  # fmt: skip
DOUBLES = [
    *(typed(f"{n}D") for n in (
        "1.5", "-0.0", "0.0", "0.1", "1.005", "2.5", "-2.5", "1E-7", "1.0E7", "123456789.123", "1E20", "1E300",
        "1.7976931348623157E308", "4.9E-324", "2147483647.5", "2147483648.0", "-2147483648.9", "-2147483649.0",
        "9.223372036854775807E18", "-9.223372036854775808E18", "9.223372036854777E18", "-9.223372036854778E18",
        "127.9", "-128.9", "3.4028235677973366E38", "3.5E38", "1.0E-46", "1704164645.5", "-1704164645.999999",
        "9.3E12", "9223372036854.775", "0.123456789",
    )),
    typed("CAST('NaN' AS DOUBLE)"), typed("CAST('Infinity' AS DOUBLE)"), typed("CAST('-Infinity' AS DOUBLE)"),
    "parse_json('1e20')", "parse_json('-1.5e-3')",
]  # fmt: skip
FLOATS = [
    *(typed(f"CAST({n} AS FLOAT)") for n in (
        "1.1", "1.5", "-0.0", "0.1", "3.4028235E38", "1.4E-45", "16777217", "2147483648", "9.223372036854775807E18",
        "1704164645", "-128.99", "'NaN'", "'Infinity'", "'-Infinity'",
    )),
]  # fmt: skip
STRINGS = [
    text(s) for s in (
        "12", " 12 ", "\t42\n", "\x7f12\x7f", "+12", "-0", "+", "-", "1.5", "1.", ".5", "5.", "1e3", "1E+3", "abc", "",
        "  ", "true", "TRUE ", "yes", "No", "t", "f", "1", "0", "2", "y", "n", "on", "127", "128", "-129", "32768",
        "2147483648", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999",
        "0x1.8p1", "0X.8P-1", "0x1p", "1d", "1.5f", "1e", "e5", "Infinity", " -inf ", "+inf", "-Infinity", "NaN", "+NaN",
        "nan", "INF", "infinity ", "1_0", "١٢", "1e400", "1e-400", "-1e-400", "3.4028236e38", "3.40282357e38",
        "1.00000017881393432617187499", "1.000000178813934326171875", "123.456", "99.995", "999.995", "0.0005",
        "1e-5", "1e38", "1e39", "123456789012345678901234567890123456789", "0.000000000000000000000000000000000000015",
        "2024-01-02", "2024-1-2", " 2024-01-02T10:11:12 ", "2024-01-02 junk", "2024-01-02T", "2024-01", "2024",
        "2024 x", "202", "2024-13-01", "2024-02-30", "2024-02-29", "2023-02-29", "+12345-01-01", "-0044-03-15",
        "1234567-01-01", "12345678-01-01", "\x002024-01-02", "2024/01/02", "2024-01-02 03:04:05.123456789",
        "2024-01-02T03:04:05Z", "2024-01-02 03:04:05+08:00", "2024-01-02 03:04:05 America/New_York",
        "2024-01-02 03:04:05 PST", "2024-01-02 03:04:05 EST", "2024-01-02 03:04:05 GMT+1", "2024-01-02 03:04:05UTC-05:30",
        "2024-01-02 03:04:05 UTC+1:00", "2024-01-02 03:04:05+0530", "2024-01-02 03:04:05 GMT0",
        "2024-01-02 03:04:05 Bogus/Zone", "2024-01-02 03:04:05+18:01", "2024-01-02 03:04:05-1", "2024-01-02 03:04:05 z",
        "2024-01-02 03:04", "2024-01-02 03", "2024-01-02 03:04:", "2024-01-02 03:04Z", "2024-01-02 24:00:00",
        "2024-01-02 23:59:60", "2024-01-02T03:04:05.Z", "2024-01-02 03:04:05.1234567+01:00",
        "2024-03-10 02:30:00", "2024-11-03 01:30:00", "2018-11-04 00:30", "T12:34:56", "12:34:56", "12:34",
        "+2024-01-02 03:04:05", "-2024-01-02", "294247-01-10 04:00:54.775807", "294247-01-10 04:00:54.775808",
        "-290308-12-21 19:59:05.224192", "0001-01-01 00:00:00", "9999-12-31 23:59:59.999999",
        "10000-01-01 00:00:00", "1969-12-31 23:59:59.9999999", "x" * 70,
    )
]  # fmt: skip
DATES = [
    typed(d) for d in (
        "DATE'2024-01-02'", "DATE'1969-12-31'", "DATE'0001-01-01'", "DATE'9999-12-31'", "make_date(10000, 1, 1)",
        "make_date(-44, 3, 15)", "DATE'2018-11-04'", "DATE'2024-03-10'", "DATE'1582-10-10'",
    )
]  # fmt: skip
TIMESTAMPS = [
    typed(t) for t in (
        "TIMESTAMP'2024-01-02 03:04:05.5'", "TIMESTAMP'1969-12-31 23:59:59.999999'", "TIMESTAMP'0001-01-01 00:00:00'",
        "timestamp_micros(253402300800000000)", "timestamp_micros(-62167219200000000 - 86400000000 * 400)",
        "TIMESTAMP'2024-03-10 10:30:00'", "TIMESTAMP'2024-11-03 08:30:00'", "timestamp_micros(9223372036854775807)",
        "timestamp_micros(-9223372036854775808)", "TIMESTAMP'2038-01-19 03:14:08'", "TIMESTAMP'1901-12-13 20:45:52'",
        "TIMESTAMP'1970-01-01 00:02:07.9'", "TIMESTAMP'1969-12-31 23:57:51.5'", "TIMESTAMP'1970-01-01 00:00:00.000001'",
        "TIMESTAMP'2018-11-04 02:59:59'",
    )
]  # fmt: skip
TIMESTAMPS_NTZ = [
    typed(t) for t in (
        "TIMESTAMP_NTZ'2024-01-02 23:04:05'", "TIMESTAMP_NTZ'2024-03-10 02:30:00'", "TIMESTAMP_NTZ'2024-11-03 01:30:00'",
        "TIMESTAMP_NTZ'1969-12-31 23:59:59.999999'", "TIMESTAMP_NTZ'2018-11-04 00:00:00'",
        "CAST(timestamp_micros(9223372036854775807) AS TIMESTAMP_NTZ)",
        "CAST(timestamp_micros(-9223372036854775808) AS TIMESTAMP_NTZ)", "TIMESTAMP_NTZ'0001-01-01 00:00:00'",
    )
]  # fmt: skip
OTHERS = [
    "parse_json('true')", "parse_json('false')", "parse_json('null')",
    typed("X'4142'"), typed("X'80FF41'"), typed("X''"),
    "parse_json('[1, 2]')", "parse_json('[]')", "parse_json('{}')",
    """parse_json('{"b": 1, "a": [true, 1.5e0, "x", null]}')""",
    "to_variant_object(named_struct('t', TIMESTAMP'2024-01-02 03:04:05', 'd', DATE'2024-01-02', 'f', CAST(1.1 AS FLOAT)))",
]  # fmt: skip


def _fuzz() -> list[str]:
    """Seeded strings built from the pieces the parsers branch on, and numbers of random bits."""
    rng = random.Random(20260101)
    pieces = ["1", "7", "12", "2024", "0", "9", "-", "+", ".", "e", "E", ":", " ", "T", "Z", "d", "f", "0x", "p",
              "+08:00", "PST", "inf", "NaN", "\t", "000001", "31", "59"]  # fmt: skip
    out = [text("".join(rng.choice(pieces) for _ in range(rng.randint(1, 7)))) for _ in range(150)]
    for _ in range(60):
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(x):
            out.append(typed(f"{x!r}D".replace("e", "E")))
        scale = rng.randint(0, 12)
        digits = rng.randint(1, 18 + scale // 2)
        unscaled = rng.randint(-(10**digits), 10**digits)
        out.append(typed(f"CAST({decimal.Decimal(unscaled).scaleb(-scale)} AS DECIMAL(38,{scale}))"))
        out.append(typed(f"{rng.randint(-(2**63), 2**63 - 1)}L"))
        out.append(typed(f"CAST({rng.uniform(-4e9, 4e9)!r} AS FLOAT)"))
        micros = rng.choice([rng.randint(-(2**63), 2**63 - 1), rng.randint(-(10**17), 10**17)])
        out.append(typed(f"timestamp_micros({micros})"))
        out.append(typed(f"CAST(timestamp_micros({micros}) AS TIMESTAMP_NTZ)"))
    return out


SOURCES = [*INTEGERS, *DECIMALS, *DOUBLES, *FLOATS, *STRINGS, *DATES, *TIMESTAMPS, *TIMESTAMPS_NTZ, *OTHERS, *_fuzz()]
UUID_VALUE = uuid.UUID("00010203-0405-0607-0809-0a0b0c0d0e0f")
# Built in Python: Spark SQL has no way to write a variant uuid. (label, metadata, value)
EXTRA = [("variant uuid", b"\x01\x00\x00", bytes([20 << 2]) + UUID_VALUE.bytes)]


@dataclasses.dataclass
class Matrix:
    labels: list[str]
    metadata: pa.Array
    value: pa.Array
    answers: dict[str, pa.Table]  # zone -> one try_variant_get column per target


@pytest.fixture(scope="module")
def matrix(spark: SparkSession) -> Matrix:
    from pyspark.sql import VariantVal
    from pyspark.sql.types import IntegerType, StructField, StructType, VariantType

    previous = spark.conf.get("spark.sql.session.timeZone") or "UTC"
    spark.conf.set("spark.sql.session.timeZone", "UTC")  # the timestamp literals above are UTC
    try:
        row = spark.sql("SELECT " + ", ".join(f"{s} AS c{i}" for i, s in enumerate(SOURCES))).collect()[0]
        pairs = [(bytes(v.metadata), bytes(v.value)) for v in row]
        pairs += [(m, v) for _, m, v in EXTRA]
        labels = SOURCES + [label for label, _, _ in EXTRA]
        schema = StructType([StructField("id", IntegerType()), StructField("v", VariantType())])
        frame = spark.createDataFrame([(i, VariantVal(v, m)) for i, (m, v) in enumerate(pairs)], schema)
        projections = [f"try_variant_get(v, '$', '{t}') AS t{j}" for j, t in enumerate(TARGETS)]
        answers = {}
        for zone in ZONES:
            spark.conf.set("spark.sql.session.timeZone", zone)
            answers[zone] = frame.selectExpr("id", *projections).orderBy("id").toArrow()
    finally:
        spark.conf.set("spark.sql.session.timeZone", previous)
    return Matrix(
        labels,
        pa.array([m for m, _ in pairs], pa.binary()),
        pa.array([v for _, v in pairs], pa.binary()),
        answers,
    )


def _cells(column: pa.Array | pa.ChunkedArray, target: str) -> list[Any]:
    """Comparable cells: dates and timestamps as numbers, strings as decoded text (Spark hands
    over the raw bytes of a binary cast to string: see the xfail below), floats as they are."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if target == "date":
        return column.cast(pa.int32()).to_pylist()
    if target.startswith("timestamp"):
        return column.cast(pa.int64()).to_pylist()
    if target == "string":
        return [None if b is None else b.decode("utf-8", "replace") for b in column.cast(pa.binary()).to_pylist()]
    return column.to_pylist()


def _same(got: Any, want: Any) -> bool:
    if isinstance(got, float) and isinstance(want, float):
        if math.isnan(got) or math.isnan(want):
            return math.isnan(got) and math.isnan(want)
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return type(got) is type(want) and got == want


def _python_cell(value: Any, target: str) -> Any:
    """cast_variant's Python value, in the units of :func:`_cells`."""
    if value is None:
        return None
    if target == "date":
        return (value - EPOCH_DATE).days
    if target.startswith("timestamp"):
        delta = value - (EPOCH_UTC if target == "timestamp" else EPOCH_NAIVE)
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    return value


def _outside_python(cell: Any, target: str) -> bool:
    """Whether a date or timestamp cell lies outside Python's years 1 to 9999."""
    if target == "date":
        return not (dt.date.min - EPOCH_DATE).days <= cell <= (dt.date.max - EPOCH_DATE).days
    return target.startswith("timestamp") and not -62_135_596_800_000_000 <= cell < 253_402_300_800_000_000


@pytest.mark.parametrize("zone", ZONES)
def test_column_matches_spark(matrix: Matrix, zone: str) -> None:
    """variant_get_column (vectorized numbers included) gives Spark's try_variant_get column."""
    table = matrix.answers[zone]
    mismatches = []
    for j, target in enumerate(TARGETS):
        spark_type = parse_variant_type(target)
        got = variant_get_column(matrix.metadata, matrix.value, "$", spark_type, strict=False, time_zone=zone)
        assert got.type == arrow_type(spark_type), "Should be the Arrow type of the target"
        want = table.column(f"t{j}")
        assert got.type == want.type, f"Should have Spark's Arrow type for {target}"
        for label, g, w in zip(matrix.labels, _cells(got, target), _cells(want, target)):
            if not _same(g, w):
                mismatches.append((label, target, g, w))
    assert not mismatches, f"{len(mismatches)} cells differ from Spark, first ones: {mismatches[:15]}"


@pytest.mark.parametrize("zone", ZONES)
def test_values_and_errors_match_spark(matrix: Matrix, zone: str) -> None:
    """cast_variant gives the same values as Python objects, None where try_variant_get gives
    NULL, and INVALID_VARIANT_CAST with strict exactly where the cast fails."""
    table = matrix.answers[zone]
    variants = [Variant(m, v) for m, v in zip(matrix.metadata.to_pylist(), matrix.value.to_pylist())]
    mismatches = []
    failures = 0
    for j, target in enumerate(TARGETS):
        spark_type = parse_variant_type(target)
        for label, variant, want in zip(matrix.labels, variants, _cells(table.column(f"t{j}"), target)):
            fails = want is None and not variant.is_null()
            failures += fails
            for strict in (False, True):
                try:
                    got: Any = _python_cell(cast_variant(variant, spark_type, strict=strict, time_zone=zone), target)
                except ExecutionError as exc:
                    if exc.error_class is None and "outside Python's years" in str(exc) and _outside_python(want, target):
                        continue
                    got = exc.error_class
                expected = INVALID_VARIANT_CAST if strict and fails else want
                if not _same(got, expected):
                    mismatches.append((label, target, strict, got, expected))
    assert not mismatches, f"{len(mismatches)} cells differ from Spark, first ones: {mismatches[:15]}"
    assert failures > len(TARGETS) * 20, "Should exercise failed casts for every target"


@pytest.mark.xfail(
    strict=True,
    reason="Spark's string cast of a binary keeps invalid UTF-8 bytes as they are; an Arrow string (and "
    "DuckDB's VARCHAR) must be valid UTF-8, so vpush replaces them with U+FFFD, as Java's String does",
)
def test_binary_with_invalid_utf8_casts_to_the_same_bytes(matrix: Matrix) -> None:
    row = matrix.labels.index(typed("X'80FF41'"))
    spark_column = matrix.answers["UTC"].column(f"t{TARGETS.index('string')}").combine_chunks()
    ours = variant_get_column(matrix.metadata, matrix.value, "$", parse_variant_type("string"), strict=False,
                              time_zone="UTC")  # fmt: skip
    assert ours.cast(pa.binary())[row].as_py() == spark_column.cast(pa.binary())[row].as_py()


def test_binary_with_invalid_utf8_reads_as_sparks_rows_do(spark: SparkSession) -> None:
    """Spark's rows (``collect()``) carry the string as a Java String, which decodes invalid
    UTF-8 to U+FFFD: vpush's string is that one, through the public API too."""
    sql = "SELECT try_variant_get(" + typed("X'80FF41'") + ", '$', 'string') AS s"
    want = spark.sql(sql).collect()[0]["s"]
    assert want == "\ufffd\ufffdA"
    con = vpush.connect(time_zone="UTC")
    assert con.sql(sql).to_arrow().column("s").to_pylist() == [want]


def test_invalid_cast_message_is_sparks(spark: SparkSession) -> None:
    """Spark raises where try_variant_get gives NULL, and vpush's message is Spark's (the value
    as JSON in the session time zone, the target as SQL)."""
    from pyspark.errors import PySparkException

    cases = [
        ("""parse_json('"abc"')""", "int", "UTC"),
        ("parse_json('[1, 2]')", "double", "UTC"),
        ("parse_json('123.456')", "decimal(4,2)", "UTC"),
        ("CAST(TIMESTAMP'2024-01-02 03:04:05' AS VARIANT)", "boolean", "America/Los_Angeles"),
    ]
    previous = spark.conf.get("spark.sql.session.timeZone") or "UTC"
    try:
        for sql, target, zone in cases:
            spark.conf.set("spark.sql.session.timeZone", zone)
            raw = spark.sql(f"SELECT {sql}").collect()[0][0]
            with pytest.raises(PySparkException) as caught:
                spark.sql(f"SELECT variant_get({sql}, '$', '{target}')").collect()
            assert caught.value.getCondition() == INVALID_VARIANT_CAST, "Should fail the cast in Spark"
            with pytest.raises(ExecutionError) as ours:
                cast_variant(Variant(bytes(raw.metadata), bytes(raw.value)), parse_variant_type(target), strict=True,
                             time_zone=zone)  # fmt: skip
            assert ours.value.error_class == INVALID_VARIANT_CAST, "Should fail the cast in vpush"
            assert str(caught.value).startswith(str(ours.value)), "Should word the error as Spark does"
    finally:
        spark.conf.set("spark.sql.session.timeZone", previous)


UNKNOWN_TO_SPARK = {
    "time": bytes([17 << 2]) + struct.pack("<q", 3_723_000_000),
    "timestamp_nanos": bytes([18 << 2]) + struct.pack("<q", 1_500_000_001),
    "timestamp_ntz_nanos": bytes([19 << 2]) + struct.pack("<q", 1_500_000_001),
}


def test_types_spark_cannot_read_raise(spark: SparkSession) -> None:
    """A time or nanosecond timestamp is UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT in Spark 4.3, even for
    try_variant_get and a string target; vpush raises the same for every target."""
    from pyspark.errors import PySparkException
    from pyspark.sql import VariantVal
    from pyspark.sql.types import StructField, StructType, VariantType

    nested_metadata, nested_value = encode({"a": 1, "t": VariantScalar(PrimitiveType.TIME, 3_723_000_000)})
    frame = spark.createDataFrame(
        [(VariantVal(UNKNOWN_TO_SPARK["time"], b"\x01\x00\x00"), VariantVal(nested_value, nested_metadata))],
        StructType([StructField("v", VariantType()), StructField("nested", VariantType())]),
    )
    for expression in ("try_variant_get(v, '$', 'string')", "try_variant_get(nested, '$', 'string')",
                       "variant_get(nested, '$', 'int')"):  # fmt: skip
        with pytest.raises(PySparkException) as caught:
            frame.selectExpr(expression).collect()
        assert caught.value.getCondition() == UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT, f"Should fail {expression} in Spark"
    readable = frame.selectExpr("try_variant_get(nested, '$.a', 'int')", "try_variant_get(nested, '$', 'int')")
    assert list(readable.collect()[0]) == [1, None], "Should read around a time, and fail only the cast"
    nested = Variant(nested_metadata, nested_value)
    for target, strict in (("string", False), ("int", True)):
        with pytest.raises(ExecutionError) as ours:
            cast_variant(nested, parse_variant_type(target), strict=strict, time_zone="UTC")
        assert ours.value.error_class == UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT, "Should not write a time as JSON"
    assert cast_variant(nested, parse_variant_type("int"), strict=False, time_zone="UTC") is None, "Should be NULL"
    column = variant_get_column(pa.array([nested_metadata]), pa.array([nested_value]), "$.a", parse_variant_type("int"),
                                strict=True, time_zone="UTC")  # fmt: skip
    assert column.to_pylist() == [1], "Should read around a time"
    for name, value in UNKNOWN_TO_SPARK.items():
        for target in TARGETS:
            for strict in (False, True):
                with pytest.raises(ExecutionError) as ours:
                    cast_variant(Variant(b"\x01\x00\x00", value), parse_variant_type(target), strict=strict,
                                 time_zone="UTC")  # fmt: skip
                assert ours.value.error_class == UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT, f"Should not read a {name}"


def test_paths_nulls_and_missing_fields_match_spark(spark: SparkSession) -> None:
    """Extraction then cast along a path; SQL NULL metadata or value, a missing field and a
    variant null are NULL."""
    documents = [
        """{"a": {"b": [1, "2", " 3.5 ", null]}, "c": "2024-01-02"}""",
        """{"a": {"b": [true]}, "c": 7}""",
        """{"a": 1}""",
        """[{"a": {"b": [0, "x"]}}]""",
    ]
    paths = [("$.a.b[1]", "int"), ("$.a.b[2]", "double"), ("$.a.b[0]", "string"), ("$.a.b[3]", "bigint"),
             ("$.c", "date"), ("$['a']", "string"), ("$[0].a.b[1]", "string"), ("$.a.b", "string")]  # fmt: skip
    literal = ", ".join(f"parse_json('{d}')" for d in documents)
    projections = ", ".join(
        f"transform(array({literal}), x -> try_variant_get(x, \"{p}\", '{t}')) AS c{i}" for i, (p, t) in enumerate(paths)
    )
    answers = spark.sql(f"SELECT array({literal}) AS docs, {projections}").collect()[0]
    metadata = pa.array([bytes(v.metadata) for v in answers[0]] + [None, b"\x01\x00\x00"], pa.binary())
    value = pa.array([bytes(v.value) for v in answers[0]] + [b"\x0c\x01", None], pa.binary())
    for i, (path, target) in enumerate(paths):
        got = variant_get_column(metadata, value, path, parse_variant_type(target), strict=False, time_zone="UTC")
        assert got.to_pylist() == [*answers[i + 1], None, None], f"Should extract {path} as Spark does"


def test_strict_column_names_the_row() -> None:
    """variant_get_column raises Spark's error at the first row that does not cast, naming it."""
    from vpush.codec.json import parse_json

    rows = [parse_json('"1"'), parse_json('null'), parse_json('{"a": "x"}')]
    metadata = pa.array([r[0] for r in rows], pa.binary())
    value = pa.array([r[1] for r in rows], pa.binary())
    with pytest.raises(ExecutionError) as caught:
        variant_get_column(metadata, value, "$.a", parse_variant_type("int"), strict=True, time_zone="UTC")
    assert caught.value.error_class == INVALID_VARIANT_CAST, "Should fail the cast"
    assert "row 2 of the batch" in str(caught.value) and caught.value.json_path == "$.a", "Should name the row"
    tolerant = variant_get_column(metadata, value, "$.a", parse_variant_type("int"), strict=False, time_zone="UTC")
    assert tolerant.to_pylist() == [None, None, None], "Should be NULL with try_variant_get"


def test_nested_targets_cast_each_value_inside() -> None:
    """Arrays, maps and structs cast what they hold, each to its own type; the queries against
    Spark are in tests/test_nested_targets.py."""
    from vpush.codec.json import parse_json

    value = Variant(*parse_json('{"a": [1, "2", null], "b": {"x": "2024-01-02"}, "c": 7}'))
    target = parse_variant_type("struct<a:array<int>,b:map<string,date>,c:string,d:int>")
    got = cast_variant(value, target, strict=True, time_zone="UTC")
    assert got == {"a": [1, 2, None], "b": [("x", dt.date(2024, 1, 2))], "c": "7", "d": None}, "Each value casts"
    array = parse_variant_type("array<boolean>")
    assert cast_variant(value, array, strict=False, time_zone="UTC") is None, "An object is no array: NULL"
    with pytest.raises(ExecutionError, match="INVALID_VARIANT_CAST|cannot be cast") as raised:
        cast_variant(Variant(*parse_json('["x"]')), array, strict=True, time_zone="UTC")
    assert '`"x"`' in str(raised.value), "The failed cast names the element that failed, as Spark does"


@pytest.mark.parametrize("target", ["variant", "time(6)"])
def test_other_targets_are_not_supported_yet(target: str) -> None:
    spark_type: SparkType = parse_variant_type(target)
    with pytest.raises(ExecutionError, match="not supported yet"):
        cast_variant(None, spark_type, strict=False, time_zone="UTC")
    with pytest.raises(ExecutionError, match="not supported yet"):
        variant_get_column(pa.array([], pa.binary()), pa.array([], pa.binary()), "$", spark_type, strict=False,
                           time_zone="UTC")  # fmt: skip


def test_damaged_bytes_raise_a_vpush_error() -> None:
    """A truncated value is a MalformedVariantError, named with its row, never an IndexError."""
    metadata = pa.array([b"\x01\x00\x00"], pa.binary())
    value = pa.array([b"\x18\x01"], pa.binary())  # an int64 with one of its eight bytes
    for target in ("bigint", "string", "date"):
        with pytest.raises(VpushError, match="row 0 of the batch"):
            variant_get_column(metadata, value, "$", parse_variant_type(target), strict=False, time_zone="UTC")
