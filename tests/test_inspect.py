"""``vpush inspect``: the footer's account of each shredded path matches the data."""
from __future__ import annotations

from pathlib import Path

import pytest
from support.writers import write_with_duckdb

from vpush.cli import main
from vpush.inspect_files import inspect_file

SELECT = """
SELECT i AS id,
  CASE WHEN i BETWEEN 2048 AND 2057 THEN {'a': i::INTEGER, 'o': {'x': 'x' || i}}::VARIANT
       WHEN i % 4 = 0 THEN {'b': [i, i]}::VARIANT
       ELSE {'a': i::BIGINT, 'o': {'x': 'x' || i}, 'tags': ['t', 'u']}::VARIANT END AS v
FROM range(4096) t(i)
"""


@pytest.fixture(scope="module")
def parquet_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("inspect") / "t.parquet"
    write_with_duckdb(path, SELECT, "STRUCT(a BIGINT, o STRUCT(x VARCHAR), tags VARCHAR[])", 2048)
    return path


def test_counts_match_the_data(parquet_file: Path) -> None:
    report = inspect_file(parquet_file)
    assert (report.rows, report.row_groups) == (4096, 2)
    (column,) = report.columns
    assert column.column == "v" and column.recognised_by == "VARIANT annotation"
    paths = {p.path: p for p in column.paths}
    assert list(paths) == ["$", "$.a", "$.o", "$.o.x", "$.tags", "$.tags[*]"]
    with_a = [i for i in range(4096) if 2048 <= i <= 2057 or i % 4 != 0]
    residual_a = [i for i in range(2048, 2058)]  # INTEGER values in a BIGINT field
    a = paths["$.a"]
    assert (a.shredded_as, a.typed_values, a.residual_values) == ("bigint", len(with_a) - len(residual_a), len(residual_a))
    assert a.row_groups_with_residuals == 1
    assert (a.min, a.max) == (1, 4095)
    # `b` is not shredded: rows holding it keep it in the top-level residual.
    top = paths["$"]
    assert top.shredded_as == "object" and top.residual_values == sum(1 for i in range(4096) if i % 4 == 0 and not 2048 <= i <= 2057)
    tags = paths["$.tags[*]"]
    assert tags.shredded_as == "string" and tags.typed_values == 2 * sum(1 for i in range(4096) if i % 4 != 0 and not 2048 <= i <= 2057)


def test_per_row_group_counts_match_the_data(parquet_file: Path) -> None:
    import vpush

    rows = [r for r in vpush.inspect(parquet_file).to_pylist() if r["path"] == "$.a"]
    assert [(r["row_group"], r["rows"]) for r in rows] == [(0, 2048), (1, 2048)]
    # The INTEGER values in the BIGINT field (ids 2048..2057) are residuals of row group 1 only.
    assert [r["residual"] for r in rows] == [0, 10]
    typed_0 = sum(1 for i in range(2048) if i % 4 != 0)
    assert rows[0]["typed"] == typed_0 and (rows[0]["min"], rows[0]["max"]) == ("1", "2047")


def test_the_command_prints_row_groups(parquet_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--row-groups", str(parquet_file)]) == 0
    out = capsys.readouterr().out
    assert "per row group" in out and "$.o.x" in out


def test_the_command_prints_a_table(parquet_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(parquet_file)]) == 0
    out = capsys.readouterr().out
    assert "4,096 rows, 2 row groups" in out and "$.o.x" in out and "bigint" in out


def test_a_missing_file_is_one_line_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(tmp_path / "nope.parquet")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.parquet" in err
