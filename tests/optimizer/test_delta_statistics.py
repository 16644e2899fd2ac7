"""Delta log statistics: Z85, Variant statistics as Delta Spark encodes them, the bounds that may
be cut (strings, millisecond timestamps), and file skipping at, below and above each bound."""
from __future__ import annotations

import datetime as dt
import decimal
import json
import struct
from pathlib import Path

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vpush.codec.builder import encode_object, encode_primitive
from vpush.codec.errors import MalformedVariantError
from vpush.codec.header import PrimitiveType, VariantType
from vpush.codec.metadata import build_metadata
from vpush.codec.value import Variant
from vpush.codec.z85 import decode_z85, encode_z85
from vpush.optimizer.bound import ColumnRef, Eq, Gt, GtEq, IsNull, Literal, Lt, LtEq, SqlType, VariantRef
from vpush.optimizer.catalog import Catalog
from vpush.optimizer.collect_delta_statistics import collect_delta_statistics
from vpush.optimizer.delta_statistics import bind_log_statistics, normalized_json_path, parse_log_statistics
from vpush.optimizer.evaluate_row_groups import ROWS_CANNOT_MATCH, ROWS_MIGHT_MATCH, InclusiveStatsEvaluator

BIGINT = SqlType("bigint")
SCHEMA = {"type": "struct", "fields": [{"name": "id", "type": "long"}, {"name": "s", "type": "string"},
                                       {"name": "ts", "type": "timestamp"}, {"name": "d", "type": "decimal(20,3)"},
                                       {"name": "v", "type": "variant"}]}


@given(st.binary(max_size=64))
def test_z85_round_trips_with_zero_padding(data: bytes) -> None:
    decoded = decode_z85(encode_z85(data))
    assert decoded[: len(data)] == data and set(decoded[len(data):]) <= {0}
    assert len(decoded) % 4 == 0


def test_z85_rejects_bad_text() -> None:
    with pytest.raises(MalformedVariantError):
        decode_z85("abc d")  # a space is not in the alphabet
    with pytest.raises(MalformedVariantError):
        decode_z85("#####")  # over 2^32 - 1


def test_the_rfc_example_does_not_decode_as_delta_spark_writes() -> None:
    # The protocol RFC's example texts are 53 and 48 characters: not Z85 of whole blocks.
    with pytest.raises(MalformedVariantError):
        decode_z85("0S&u501fk+ze0(tB98CpzF6vU0rJl95HpNdvjbtatpi(cu0wW^cTu")


def _variant_stats(fields: dict[str, bytes]) -> str:
    keys = sorted(fields)
    ids = {k: i for i, k in enumerate(sorted(keys, key=lambda k: k.encode()))}
    value = encode_object([(k, ids[k], b) for k, b in fields.items()])
    return encode_z85(build_metadata(keys) + value)


def _stats(low: dict[str, bytes], high: dict[str, bytes], rows: int = 10) -> str:
    return json.dumps({"numRecords": rows, "minValues": {"v": _variant_stats(low)},
                       "maxValues": {"v": _variant_stats(high)}, "nullCount": {"v": 0}})


def _evaluate(stats: str, predicate: object) -> bool:
    parsed = parse_log_statistics(stats, SCHEMA)
    assert parsed is not None
    bound = bind_log_statistics(predicate, parsed)  # type: ignore[arg-type]
    return InclusiveStatsEvaluator(bound).evaluate(parsed.statistics)


def _int64(n: int) -> bytes:
    return encode_primitive(PrimitiveType.INT64, n)


@pytest.mark.parametrize(
    ("predicate", "expected", "reason"),
    [
        (Eq, ROWS_CANNOT_MATCH, "Should skip: literal below lower bound"),
        (Lt, ROWS_CANNOT_MATCH, "Should skip: every value is >= the literal"),
        (GtEq, ROWS_MIGHT_MATCH, "Should read: values above the literal"),
    ],
)
def test_variant_path_bounds_below(predicate: type, expected: bool, reason: str) -> None:
    stats = _stats({"$['user']['id']": _int64(10)}, {"$['user']['id']": _int64(20)})
    ref = VariantRef("v", ("user", "id"), BIGINT)
    assert _evaluate(stats, predicate(ref, Literal(9, BIGINT))) == expected, reason


@pytest.mark.parametrize("literal", [10, 20])
def test_variant_path_bounds_at(literal: int) -> None:
    stats = _stats({"$['user']['id']": _int64(10)}, {"$['user']['id']": _int64(20)})
    ref = VariantRef("v", ("user", "id"), BIGINT)
    assert _evaluate(stats, Eq(ref, Literal(literal, BIGINT))) == ROWS_MIGHT_MATCH, "Should read: literal at a bound"


def test_variant_path_bounds_above_and_unbounded_paths() -> None:
    stats = _stats({"$['user']['id']": _int64(10)}, {"$['user']['id']": _int64(20)})
    ref = VariantRef("v", ("user", "id"), BIGINT)
    assert _evaluate(stats, Gt(ref, Literal(20, BIGINT))) == ROWS_CANNOT_MATCH, "Should skip: above the upper bound"
    assert _evaluate(stats, Eq(ref, Literal(21, BIGINT))) == ROWS_CANNOT_MATCH, "Should skip: one above"
    other = VariantRef("v", ("user", "name"), BIGINT)
    assert _evaluate(stats, Eq(other, Literal(21, BIGINT))) == ROWS_MIGHT_MATCH, "Should read: no stats for the path"
    assert _evaluate(stats, IsNull(ref)) == ROWS_MIGHT_MATCH, "Should read: no null count per path"


def test_a_strict_cast_that_may_fail_reads_the_file() -> None:
    stats = _stats({"$['n']": _int64(-(2**40))}, {"$['n']": _int64(5)})
    strict = VariantRef("v", ("n",), SqlType("int"))
    lenient = VariantRef("v", ("n",), SqlType("int"), strict=False)
    literal = Literal(100, SqlType("int"))
    assert _evaluate(stats, Gt(strict, literal)) == ROWS_MIGHT_MATCH, "Should read: the cast to int may fail"
    assert _evaluate(stats, Gt(lenient, literal)) == ROWS_CANNOT_MATCH, "Should skip: try_ casts to NULL"


def test_cut_strings_are_not_bounds() -> None:
    long = "k" * 32
    stats = _stats({"$['s']": encode_primitive(PrimitiveType.STRING, long)},
                   {"$['s']": encode_primitive(PrimitiveType.STRING, long + "\U0010ffff")})
    ref = VariantRef("v", ("s",), SqlType("string"))
    assert _evaluate(stats, Eq(ref, Literal("a", SqlType("string")))) == ROWS_MIGHT_MATCH, "Should read: a cut bound"
    short = _stats({"$['s']": encode_primitive(PrimitiveType.STRING, "b")}, {"$['s']": encode_primitive(PrimitiveType.STRING, "c")})
    assert _evaluate(short, Eq(ref, Literal("a", SqlType("string")))) == ROWS_CANNOT_MATCH, "Should skip: below"


def test_plain_timestamps_are_widened_by_what_the_millisecond_cut_lost() -> None:
    stats = json.dumps({"numRecords": 3, "minValues": {"ts": "2024-01-01T00:00:00.000Z"},
                        "maxValues": {"ts": "2024-01-01T00:00:01.000Z"}, "nullCount": {"ts": 0}})
    ref = ColumnRef("ts", SqlType("timestamp"))
    utc = dt.timezone.utc
    inside = Literal(dt.datetime(2024, 1, 1, 0, 0, 1, 999, tzinfo=utc), SqlType("timestamp"))
    outside = Literal(dt.datetime(2024, 1, 1, 0, 0, 1, 1000, tzinfo=utc), SqlType("timestamp"))
    assert _evaluate(stats, Eq(ref, inside)) == ROWS_MIGHT_MATCH, "Should read: the max may have lost its micros"
    assert _evaluate(stats, GtEq(ref, outside)) == ROWS_CANNOT_MATCH, "Should skip: past the widened max"


def test_missing_counts_or_wide_bounds_prove_nothing() -> None:
    assert parse_log_statistics(None, SCHEMA) is None
    assert parse_log_statistics('{"numRecords": 3, "tightBounds": false}', SCHEMA) is None
    assert parse_log_statistics('{"minValues": {"id": 1}}', SCHEMA) is None
    empty = '{"numRecords": 0}'
    assert _evaluate(empty, Eq(ColumnRef("id", BIGINT), Literal(1, BIGINT))) == ROWS_CANNOT_MATCH, "Should skip: no rows"
    odd = json.dumps({"numRecords": 3, "minValues": {"v": "not z85"}, "maxValues": {"v": "!!!!!"}, "nullCount": {}})
    assert parse_log_statistics(odd, SCHEMA).leaves == {}, "Undecodable Variant statistics are ignored"


def test_normalized_paths_escape_as_delta_spark() -> None:
    assert normalized_json_path(("a'b", "c\\d", "e\nf", "\x01")) == "$['a\\'b']['c\\\\d']['e\\nf']['\\u0001']"


def test_collected_statistics_match_the_footer(tmp_path: Path) -> None:
    path = tmp_path / "f.parquet"
    con = duckdb.connect()
    con.execute(
        "COPY (SELECT i AS id, 'name-' || i AS s, make_timestamptz(1704067200000000 + i * 1234567) AS ts, "
        "(i / 7)::DECIMAL(20,3) AS d, {'a': i, 'b': {'c': 'x' || (i % 10)}, 'r': i::VARCHAR}::VARIANT AS v "
        f"FROM range(100) t(i)) TO '{path}' (FORMAT parquet, SHREDDING {{'v': 'STRUCT(a BIGINT, b STRUCT(c VARCHAR), r BIGINT)'}})"
    )
    stats = json.loads(collect_delta_statistics(Catalog().file_info(str(path)), SCHEMA), parse_float=decimal.Decimal)
    assert stats["numRecords"] == 100
    assert (stats["minValues"]["id"], stats["maxValues"]["id"]) == (0, 99)
    assert stats["minValues"]["d"] == decimal.Decimal("0.000") and stats["maxValues"]["d"] == decimal.Decimal("14.143")
    assert stats["maxValues"]["ts"] == "2024-01-01T00:02:02.222Z"  # 99 * 1.234567 s = 122.222133 s, cut to ms
    low = Variant.from_concatenated(decode_z85(stats["minValues"]["v"])).to_python()
    high = Variant.from_concatenated(decode_z85(stats["maxValues"]["v"])).to_python()
    # `r` holds strings, so its typed BIGINT leaf is empty and its `value` is not all-null: no stats.
    assert low == {"$['a']": 0, "$['b']['c']": "x0"} and high == {"$['a']": 99, "$['b']['c']": "x9"}
    parsed = parse_log_statistics(json.dumps(stats, default=str), SCHEMA)
    assert parsed is not None and parsed.leaves["v\x00$['a']"].type == VariantType.INT64


def test_float_bounds_are_read_as_float32_values() -> None:
    # Delta Spark writes a float column's bounds as Java's Float.toString ("1.1"): the nearest
    # double to that text lies below the float32 value 1.100000023841858 the file holds.
    schema = {"type": "struct", "fields": [{"name": "f", "type": "float"}]}
    stats = json.dumps({"numRecords": 1, "minValues": {"f": 1.1}, "maxValues": {"f": 1.1}, "nullCount": {"f": 0}})
    parsed = parse_log_statistics(stats, schema)
    assert parsed is not None
    ref = ColumnRef("f", SqlType("float"))
    value = struct.unpack("<f", struct.pack("<f", 1.1))[0]
    for predicate, literal in [(Eq, value), (GtEq, value), (Gt, 1.1)]:
        bound = bind_log_statistics(predicate(ref, Literal(literal, SqlType("double"))), parsed)
        assert InclusiveStatsEvaluator(bound).evaluate(parsed.statistics) == ROWS_MIGHT_MATCH, (
            f"Should read: the float32 value {value!r} satisfies {predicate.__name__} {literal!r}"
        )
    below = Lt(ref, Literal(1.0999, SqlType("double")))
    bound = bind_log_statistics(below, parsed)
    assert InclusiveStatsEvaluator(bound).evaluate(parsed.statistics) == ROWS_CANNOT_MATCH, "Should skip: below the min"


def test_string_bounds_with_a_lone_surrogate_or_an_old_tie_breaker_are_not_bounds() -> None:
    # A bound cut inside a surrogate pair leaves a lone surrogate in the JSON text: no error, no bound.
    lone = '{"numRecords": 2, "minValues": {"s": "a\\ud83d"}, "maxValues": {"s": "b"}, "nullCount": {"s": 0}}'
    ref = ColumnRef("s", SqlType("string"))
    assert _evaluate(lone, Eq(ref, Literal("c", SqlType("string")))) == ROWS_MIGHT_MATCH, "Should read: no usable bound"
    # Older Delta Spark appended U+FFFD to a cut maximum, which sorts below U+10000 in UTF-8 order:
    # with a short prefix length, "ab\ufffd" is no upper bound of "ab\U0001f600".
    old = json.dumps({"numRecords": 2, "minValues": {"s": "ab"}, "maxValues": {"s": "ab\ufffd"}, "nullCount": {"s": 0}})
    literal = Literal("ab\U0001f600", SqlType("string"))
    assert _evaluate(old, Eq(ref, literal)) == ROWS_MIGHT_MATCH, "Should read: U+FFFD may be a tie-breaker"


def test_no_float_bounds_are_written_from_a_footer_that_leaves_nan_out(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "f.parquet"
    pq.write_table(pa.table({"x": pa.array([1.0, float("nan"), 5.0]), "id": pa.array([1, 2, 3], pa.int64())}), path)
    schema = {"type": "struct", "fields": [{"name": "x", "type": "double"}, {"name": "id", "type": "long"}]}
    stats = json.loads(collect_delta_statistics(Catalog().file_info(str(path)), schema))
    # Delta Spark reads maxValues.x = 5.0 as "no value above 5" and would skip the NaN row for x > 5.
    assert "x" not in stats["maxValues"] and "x" not in stats["minValues"], "Should write no bounds: NaN hides"
    assert stats["nullCount"]["x"] == 0 and stats["maxValues"]["id"] == 3
