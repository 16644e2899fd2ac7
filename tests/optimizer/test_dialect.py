"""The VpushSpark dialect: golden files, node shapes, and agreement with PySpark 4.3.

``fixtures/optimizer/parse_variant.sql`` holds pairs: Spark SQL in, the canonical Spark SQL that
vpush writes back. ``check_file()`` parses each input, compares the text, checks that every node's
``parent`` and ``arg_key`` agree, that the output parses to itself, and that DuckDB rendering does
not fail. Against Spark, each input and its rendering run over the small view ``t`` below and
must give the same column names, types and rows, or, for a pair marked ``# spark-error: CLASS``,
fail with that same error class. Every line of ``parse_variant__invalid.sql`` must raise
``OptimizeError`` in vpush and fail in Spark, with the same error class.
"""

from __future__ import annotations

import dataclasses
import decimal
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import sqlglot
from hypothesis import example, given
from hypothesis import strategies as st
from sqlglot import exp

from vpush.codec.errors import VariantPathError
from vpush.codec.path import VariantPath
from vpush.optimizer.dialect import (
    DEFERRED_ARITY_ERROR,
    ParseJson,
    SchemaOfVariantAgg,
    TryParseJson,
    TryVariantGet,
    VariantExplode,
    VariantExplodeOuter,
    VariantGet,
    VpushSpark,
)
from vpush.optimizer.errors import OptimizeError
from vpush.optimizer.plan_query import parse_spark


def _parse_checked(sql: str) -> exp.Expr:
    """``parse_spark``, raising too the count of arguments Spark refuses, which vpush raises once
    the call's columns resolve (as Spark does) rather than while it parses."""
    tree = parse_spark(sql)
    for node in tree.walk():
        if DEFERRED_ARITY_ERROR in node.meta:
            raise node.meta[DEFERRED_ARITY_ERROR]
    return tree
from vpush.optimizer.variant_types import (
    VARIANT,
    DecimalType,
    StructField,
    StructType,
    parse_variant_type,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "optimizer"
GOLDEN_FILE = FIXTURES / "parse_variant.sql"
INVALID_FILE = FIXTURES / "parse_variant__invalid.sql"

# One row per shape: a full object, other types under the same keys, an array, a variant null,
# and SQL NULL. `s` is a string column, `p` a path column.
SPARK_VIEW = """
CREATE OR REPLACE TEMPORARY VIEW t AS
SELECT id, parse_json(j) AS v, s, p FROM VALUES
  (1, '{"a": {"b": 1, "B": "two"}, "arr": [1, 2, {"x": "y"}], "a b": 3, "a.b": 4, "it''s": 5,
        "s": "abc", "n": null, "f": 1.5, "t": "2024-01-02 03:04:05", "x": "X",
        "select": 6, "from": 7}', '{"a": 1}', '$.a'),
  (2, '{"a": {"b": "7", "c": null}, "arr": [], "n": 1, "s": "12", "f": -2.25, "t": "2024-02-29"}',
      'oops', '$.s'),
  (3, '[1, 2, 3]', NULL, '$[0]'),
  (4, 'null', '', '$'),
  (5, NULL, NULL, NULL)
AS r(id, j, s, p)
"""


@dataclasses.dataclass(frozen=True)
class GoldenCase:
    title: str
    sql: str
    expected: str
    spark_error: str | None
    line: int


def read_golden(path: Path) -> list[GoldenCase]:
    """Pairs separated by blank lines; ``# title:`` and ``# spark-error:`` lines come first."""
    cases = []
    for block_start, block in _blocks(path):
        title, spark_error, statements = "", None, []
        for text in block:
            if text.startswith("# title:"):
                title = text.removeprefix("# title:").strip()
            elif text.startswith("# spark-error:"):
                spark_error = text.removeprefix("# spark-error:").strip()
            elif not text.startswith("#"):
                statements.append(text)
        if len(statements) != 2:
            raise ValueError(f"{path.name}:{block_start}: expected an input and an output line")
        cases.append(GoldenCase(title, statements[0], statements[1], spark_error, block_start))
    return cases


def _blocks(path: Path) -> list[tuple[int, list[str]]]:
    blocks: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 1
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if text.strip():
            if not current:
                start = number
            current.append(text)
        elif current:
            blocks.append((start, current))
            current = []
    if current:
        blocks.append((start, current))
    return blocks


def read_invalid(path: Path) -> list[tuple[int, str]]:
    return [
        (number, text)
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if text.strip() and not text.startswith("#")
    ]


GOLDEN = read_golden(GOLDEN_FILE)
INVALID = read_invalid(INVALID_FILE)


def check_tree(tree: exp.Expr) -> None:
    """Every child's ``parent`` is the node holding it, under the ``arg_key`` it names."""
    for node in tree.walk():
        for key, value in node.args.items():
            children = value if isinstance(value, list) else [value]
            for child in children:
                if isinstance(child, exp.Expr):
                    assert child.parent is node, f"{child.sql()!r} has the wrong parent"
                    assert child.arg_key == key, f"{child.sql()!r} says arg_key {child.arg_key}, not {key}"


def check_file(case: GoldenCase) -> None:
    tree = parse_spark(case.sql)
    check_tree(tree)
    assert tree.sql(dialect=VpushSpark) == case.expected, f"line {case.line}: {case.title}"
    again = parse_spark(case.expected)
    check_tree(again)
    assert again.sql(dialect=VpushSpark) == case.expected, f"line {case.line}: output is not canonical"
    # Rendering to DuckDB is the rewrite's job; here it must merely not fail.
    assert tree.sql(dialect="duckdb")


@pytest.mark.parametrize("case", GOLDEN, ids=[f"line{c.line}" for c in GOLDEN])
def test_parse_variant(case: GoldenCase) -> None:
    check_file(case)


@pytest.mark.parametrize("sql", [s for _, s in INVALID], ids=[f"line{n}" for n, _ in INVALID])
def test_parse_variant_invalid(sql: str) -> None:
    with pytest.raises(OptimizeError) as info:
        _parse_checked(sql)
    assert info.value.error_class, "Should carry Spark's error class"


# -- node shapes -------------------------------------------------------------------------------


def _select(sql: str) -> list[exp.Expr]:
    tree = parse_spark(sql)
    assert isinstance(tree, exp.Select)
    return list(tree.expressions)


def test_colon_is_a_strict_variant_get_with_a_variant_target() -> None:
    plain, cast, try_cast = _select("SELECT v:a['b c'][0], v:a.b::int, TRY_CAST(v:a AS INT) FROM t")
    assert isinstance(plain, VariantGet) and type(plain) is VariantGet and plain.args["colon"] is True
    assert plain.variant_path == VariantPath(("a", "b c", 0)), "Should hold Spark's path text"
    assert plain.target_type == VARIANT and not plain.SAFE
    assert type(cast) is exp.Cast and type(cast.this) is VariantGet, "'::' is a strict cast of the extraction"
    assert type(try_cast) is exp.TryCast and try_cast.args.get("safe"), "TRY_CAST stays a safe cast"
    assert [e.output_name for e in (plain, cast, try_cast)] == ["b c", "b", "a"], "Spark's column names"


def test_strict_and_safe_casts_stay_distinct() -> None:
    strict, safe, colon = _select("SELECT CAST(x AS INT), TRY_CAST(x AS INT), x::int FROM t")
    assert type(strict) is exp.Cast, "CAST raises in Spark 4 (ANSI): it must not become TRY_CAST"
    assert type(safe) is exp.TryCast
    assert type(colon) is exp.Cast
    assert parse_spark("SELECT CAST(x AS INT)").sql(dialect="duckdb") == "SELECT CAST(x AS INT)"


def test_variant_functions_are_typed_nodes() -> None:
    nodes = _select(
        "SELECT variant_get(v, '$.a', 'Long'), try_variant_get(v, '$.a'), parse_json(s), try_parse_json(s),"
        " schema_of_variant_agg(v) FROM t"
    )
    strict, safe, parse, try_parse, agg = nodes
    assert isinstance(strict, VariantGet) and type(strict) is VariantGet
    assert strict.target_type == parse_variant_type("bigint")
    assert strict.args["to"].this == "bigint", "Should normalize the type text"
    assert isinstance(safe, TryVariantGet) and safe.SAFE and safe.target_type == VARIANT
    assert type(parse) is ParseJson and type(try_parse) is TryParseJson
    assert isinstance(agg, SchemaOfVariantAgg) and isinstance(agg, exp.AggFunc)
    assert not any(isinstance(n, exp.Anonymous) for node in nodes for n in node.walk())


def test_variant_explode_is_a_table_function() -> None:
    tree = parse_spark("SELECT * FROM variant_explode(v) AS a, LATERAL variant_explode_outer(a.value) AS b")
    assert type(tree.find(exp.Table).this) is VariantExplode  # type: ignore[union-attr]
    assert type(tree.find(exp.Lateral).this) is VariantExplodeOuter  # type: ignore[union-attr]


def test_non_literal_path_and_type_are_kept() -> None:
    node = _select("SELECT variant_get(v, p, concat('in', 't')) FROM t")[0]
    assert isinstance(node, VariantGet)
    assert node.variant_path is None and node.target_type is None, "Unknown until run time"


def test_variant_types() -> None:
    assert parse_variant_type("decimal") == DecimalType(10, 0)
    assert parse_variant_type("a int not null, `b c` string") == StructType(
        (StructField("a", parse_variant_type("int"), nullable=False), StructField("b c", parse_variant_type("string")))
    )
    assert parse_variant_type("STRUCT<A: ARRAY<MAP<STRING, TIMESTAMP_LTZ>>>").to_spark() == (
        "struct<A:array<map<string,timestamp>>>"
    )
    assert parse_variant_type("string collate utf8_lcase").to_spark() == "string collate utf8_lcase"
    sql_types = {
        text: t.sql(dialect=VpushSpark) if (t := parse_variant_type(text).to_sql_type()) is not None else None
        for text in ("decimal(5, 2)", "array<struct<a:int>>", "time(3)", "timestamp_ltz", "string collate unicode")
    }
    assert sql_types == {
        "decimal(5, 2)": "DECIMAL(5, 2)",
        "array<struct<a:int>>": "ARRAY<STRUCT<a: INT>>",
        "time(3)": "TIME(3)",
        "timestamp_ltz": "TIMESTAMP",
        "string collate unicode": None,
    }, "Should keep what Spark means, or give None"


_KEYS = st.text(st.characters(codec="utf-8"), max_size=6)


@given(st.lists(st.one_of(_KEYS, st.integers(0, 2**31 - 1)), min_size=1, max_size=4))
@example(["a\\", "1e3", "*", " ", "", "it's", "a.b", "`x`", "select"])
@example(["x y", 0, "a[0]", "'.", "*a", "ä", "\\'"])
def test_colon_rendering_round_trips(segments: list[str | int]) -> None:
    """Any path on a ':' node renders as SQL that parses back to the same path: as a ':' path
    when Spark's grammar can say it, else as a variant_get call."""
    path = VariantPath(tuple(segments))
    try:
        text = path.to_spark()
    except VariantPathError:
        return  # keys that no Spark path text can hold
    node = VariantGet(this=exp.column("v"), path=exp.Literal.string(text), colon=True)
    sql = f"SELECT {node.sql(dialect=VpushSpark)} FROM t"
    back = _select(sql)[0]
    assert isinstance(back, VariantGet)
    assert back.variant_path == path, f"{sql!r} should read the path {path.segments}"


# -- against Spark -----------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """Rows as comparable values; a variant as its (value, metadata) bytes."""
    from pyspark.sql import Row
    from pyspark.sql.types import VariantVal

    if isinstance(value, VariantVal):
        return ("variant", bytes(value.value), bytes(value.metadata))
    if isinstance(value, Row):
        return tuple(_plain(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return sorted((repr(k), _plain(v)) for k, v in value.items())
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, decimal.Decimal):
        return ("decimal", str(value))
    return value


def _spark_error_class(err: Exception) -> str:
    condition = getattr(err, "getCondition", lambda: None)()
    if condition:
        return str(condition)
    return f"{type(err).__name__}: {err} {getattr(err, 'java_exception', '')}"


def _run(spark: SparkSession, sql: str) -> tuple[str, Any]:
    """("ok", (schema, rows)) or ("error", error class or message)."""
    try:
        frame = spark.sql(sql)
        rows = frame.collect()
    except Exception as err:  # noqa: BLE001 - PySpark raises many exception types
        return "error", _spark_error_class(err)
    return "ok", (frame.schema.simpleString(), [_plain(r) for r in rows])


def _same_class(ours: str | None, spark_outcome: str) -> bool:
    """Spark names the class as the condition, or (wrapped in INTERNAL_ERROR, or in a JVM
    exception PySpark does not convert) inside the message."""
    if ours is None:
        return False
    return spark_outcome == ours or f"[{ours}]" in spark_outcome or f"'{ours}'" in spark_outcome


@pytest.fixture(scope="module")
def spark_view(spark: SparkSession) -> SparkSession:
    spark.sql(SPARK_VIEW)
    return spark


def test_golden_results_match_spark(spark_view: SparkSession) -> None:
    failures = []
    for case in GOLDEN:
        rendered = parse_spark(case.sql).sql(dialect=VpushSpark)
        original = _run(spark_view, case.sql)
        ours = _run(spark_view, rendered)
        where = f"line {case.line} ({case.title})"
        if case.spark_error is not None:
            for label, outcome in (("original", original), ("rendered", ours)):
                if outcome[0] != "error" or not _same_class(case.spark_error, outcome[1]):
                    failures.append(f"{where}: {label} should fail with {case.spark_error}, got {outcome}")
        elif original[0] != "ok":
            failures.append(f"{where}: Spark rejects the input: {original[1]}")
        elif ours != original:
            failures.append(f"{where}: rendered SQL differs in Spark:\n  {original}\n  {ours}")
    assert not failures, "\n".join(failures)


def test_colon_rendering_reads_the_same_key_in_spark(spark_view: SparkSession) -> None:
    """A ':' node whose key needs quoting renders as SQL that Spark reads as the same path,
    with the same column name."""
    keys = ["plain", "a b", "it's", "a.b", "x]y", "1a", "é", "*", "a\\b", "`q`", " lead", "a[0]"]
    document = json.dumps({key: index for index, key in enumerate(keys)})
    source = f"(SELECT parse_json({exp.Literal.string(document).sql(dialect=VpushSpark)}) AS v)"
    rendered, expected = [], []
    for key in keys:
        path = VariantPath((key,)).to_spark()
        node = VariantGet(this=exp.column("v"), path=exp.Literal.string(path), colon=True)
        rendered.append(node.sql(dialect=VpushSpark))
        expected.append(f"variant_get(v, {exp.Literal.string(path).sql(dialect=VpushSpark)})")
    got = spark_view.sql(f"SELECT {', '.join(rendered)} FROM {source}")
    want = spark_view.sql(f"SELECT {', '.join(expected)} FROM {source}")
    assert [_plain(v) for v in got.collect()[0]] == [_plain(v) for v in want.collect()[0]], rendered
    names = [VariantGet(this=exp.column("v"), path=exp.Literal.string(VariantPath((k,)).to_spark()), colon=True)
             .output_name for k in keys]
    # A key Spark's JSON-path parser reads as a wildcard (`*`) gives no implicit name.
    assert [n for n in got.columns if not n.startswith("variant_get(")] == [n for n in names if n], (
        "Should predict Spark's column names"
    )


def test_invalid_statements_fail_in_spark_too(spark_view: SparkSession) -> None:
    failures = []
    for line, sql in INVALID:
        try:
            _parse_checked(sql)
        except OptimizeError as err:
            ours = err.error_class
        else:
            failures.append(f"line {line}: vpush accepts {sql!r}")
            continue
        outcome = _run(spark_view, sql)
        if outcome[0] != "error":
            failures.append(f"line {line}: Spark accepts {sql!r}")
        elif not _same_class(ours, outcome[1]):
            failures.append(f"line {line}: {sql!r}: vpush says {ours}, Spark says {outcome[1][:300]}")
    assert not failures, "\n".join(failures)


def test_sqlglot_spark_dialect_is_untouched() -> None:
    """The subclass changes nothing for users of sqlglot's own Spark dialect."""
    assert type(sqlglot.parse_one("SELECT CAST(x AS INT)", read="spark").expressions[0]) is exp.TryCast
    assert isinstance(sqlglot.parse_one("SELECT variant_get(v, '$.a')", read="spark").expressions[0], exp.Anonymous)
