"""The names a table can be registered under: those Spark's ``createOrReplaceTempView`` takes,
read as it reads them, and a VpushError naming the name for the others."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pytest

import vpush
from support.tables import table_folder

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# name given -> the name the SQL then names (in backticks), as Spark registers it
ACCEPTED = {
    "t": "t",
    "T1": "T1",
    "_x": "_x",
    "1abc": "1abc",
    "1_000": "1_000",
    "1e": "1e",
    "1e5x": "1e5x",
    "select": "select",
    " padded\t": "padded",
    "\u3000wide": "wide",
    "`my table`": "my table",
    "`a.b`": "a.b",
    "`a``b`": "a`b",
    "`a b``c.d`": "a b`c.d",
    "` lead`": " lead",
    "`é`": "é",
}

SPARK_ENGINE = ("`a b``c.d`",)

REFUSED = {
    "": "_LEGACY_ERROR_TEMP_1321",
    " ": "_LEGACY_ERROR_TEMP_1321",
    "my table": "_LEGACY_ERROR_TEMP_1321",
    "a-b": "_LEGACY_ERROR_TEMP_1321",
    "a`b": "_LEGACY_ERROR_TEMP_1321",
    "`a`b`": "_LEGACY_ERROR_TEMP_1321",
    "é": "_LEGACY_ERROR_TEMP_1321",
    "a$b": "_LEGACY_ERROR_TEMP_1321",
    "x\ny": "_LEGACY_ERROR_TEMP_1321",
    "123": "_LEGACY_ERROR_TEMP_1321",
    "1e5": "_LEGACY_ERROR_TEMP_1321",
    "1L": "_LEGACY_ERROR_TEMP_1321",
    "1bd": "_LEGACY_ERROR_TEMP_1321",
    "1.5": "_LEGACY_ERROR_TEMP_1321",
    "a.": "_LEGACY_ERROR_TEMP_1321",
    "a.b": "TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS",
    "`a`.`b`": "TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS",
}

# Spark skips a comment in the name and registers what comes before it; vpush refuses them
COMMENTED = {"ab--c": "ab", "a/*x*/": "a"}


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"




def test_names_as_spark_takes_them(spark: SparkSession, tmp_path: Path) -> None:
    folder = table_folder(tmp_path, pa.table({"x": [1, 2, 3]}))
    session = spark.newSession()  # temporary views of its own: the other tests' are left alone
    frame = session.read.parquet(str(folder))
    # every accepted name read back in one query: its ordinal and the rows counted through it
    sql = " UNION ALL ".join(
        f"SELECT {i} AS i, count(*) AS n FROM {_quoted(registered)}" for i, registered in enumerate(ACCEPTED.values())
    )
    expected = [(i, 3) for i in range(len(ACCEPTED))]
    for given in ACCEPTED:
        frame.createOrReplaceTempView(given)
    try:
        assert sorted(tuple(r) for r in session.sql(sql).collect()) == expected, "Spark registers each name as listed"
    finally:
        for registered in ACCEPTED.values():
            session.catalog.dropTempView(registered)
    for given, registered in COMMENTED.items():
        frame.createOrReplaceTempView(given)
        assert registered in {r[1] for r in session.sql("SHOW VIEWS").collect()}, f"Spark registers {given!r} as {registered!r}"
        session.catalog.dropTempView(registered)
    refused_by_spark = {}
    for given in REFUSED:
        with pytest.raises(Exception) as spark_error:
            frame.createOrReplaceTempView(given)
        refused_by_spark[given] = spark_error.value.getCondition()  # type: ignore[attr-defined]
    assert refused_by_spark == REFUSED, "Spark refuses each name with the class listed"

    for con in (vpush.connect(time_zone="UTC"), vpush.connect(engine="spark", spark=spark, time_zone="UTC")):
        with con:
            for given, registered in ACCEPTED.items():
                assert con.register(given, folder).name == registered, f"{given!r} registers {registered!r}, as Spark's view"
            if con.engine.name == "duckdb":
                rows = con.sql(sql).to_arrow().to_pylist()
                assert sorted((r["i"], r["n"]) for r in rows) == expected, "duckdb: each name read back"
            else:  # a scan costs the Spark engine seconds: one name quoted
                quoted = " UNION ALL ".join(f"SELECT {i} AS i, count(*) AS n FROM {_quoted(ACCEPTED[given])}" for i, given in enumerate(SPARK_ENGINE))
                rows = con.sql(quoted).to_arrow().to_pylist()
                assert sorted((r["i"], r["n"]) for r in rows) == [(i, 3) for i in range(len(SPARK_ENGINE))], "spark: read back"
            for given, error_class in REFUSED.items():
                with pytest.raises(vpush.VpushError) as error:
                    con.register(given, folder)
                assert error.value.error_class == error_class, f"{given!r} is refused as Spark refuses it"
                assert repr(given) in str(error.value), "the error names the name"
            for given in COMMENTED:
                with pytest.raises(vpush.VpushError, match="_LEGACY_ERROR_TEMP_1321"):
                    con.register(given, folder)
            assert len(con.tables()) == len(ACCEPTED), "a refused name registers nothing"


def test_a_quoted_name_is_the_name(tmp_path: Path) -> None:
    """A name in backticks and the same name without are one table (case-insensitively, as
    Spark's identifiers), and tables() lists the name, not its quoting."""
    folder = table_folder(tmp_path, pa.table({"x": [1, 2, 3]}))
    with vpush.connect(time_zone="UTC") as con:
        con.register("`Events`", folder)
        con.register(" events ", folder)
        assert con.tables() == ["events"], "one table, named as last registered"
        assert con.sql("SELECT count(*) AS n FROM EVENTS").to_arrow().to_pylist() == [{"n": 3}]


def test_the_empty_name_in_backticks(spark: SparkSession, tmp_path: Path) -> None:
    """Spark registers `` as the empty name, its SQL reads it (qualified columns too) and SHOW
    TABLES lists it as ''; vpush registers it on both engines (DuckDB, which has no empty
    identifier, reads it under an alias of vpush's own) and tables() lists it alike."""
    folder = table_folder(tmp_path, pa.table({"x": [1, 2, 3]}))
    session = spark.newSession()  # temporary views of its own: the other tests' are left alone
    session.read.parquet(str(folder)).createOrReplaceTempView("``")
    session.read.parquet(str(folder)).createOrReplaceTempView("t")
    queries = [
        "SELECT count(*) AS n FROM ``",
        "SELECT ``.x AS x FROM `` WHERE ``.x > 1",
        "SELECT t.x AS x FROM `` JOIN t ON ``.x = t.x + 1",
        "SELECT e.x AS x FROM `` AS e WHERE e.x < 3",
    ]
    try:
        expected = [sorted(tuple(r) for r in session.sql(q).collect()) for q in queries]
        listed = sorted(r.tableName for r in session.sql("SHOW TABLES").collect() if r.isTemporary)
    finally:
        session.catalog.dropTempView("")
        session.catalog.dropTempView("t")
    assert expected[0] == [(3,)] and listed == ["", "t"], (expected, listed)
    for con in (vpush.connect(time_zone="UTC"), vpush.connect(engine="spark", spark=spark, time_zone="UTC")):
        with con:
            assert con.register("``", folder).name == ""
            con.register("t", folder)
            assert con.tables() == listed, f"{con.engine.name}: tables() lists the empty name as Spark's SHOW TABLES"
            # the Spark engine's scans cost seconds: two of the queries there
            for sql, want in list(zip(queries, expected))[: 4 if con.engine.name == "duckdb" else 2]:
                got = sorted(tuple(r.values()) for r in con.sql(sql).to_arrow().to_pylist())
                assert got == want, f"{con.engine.name}: {sql}"
