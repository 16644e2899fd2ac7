"""The notebooks run top to bottom on generated sample data, and show their charts.

Each runs in a fresh Jupyter kernel (nbclient, the kernel of this Python), with its sample data in
a temporary folder; a notebook passes when no cell raises and it displays at least one chart.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_three_notebooks() -> None:
    assert [n.stem for n in NOTEBOOKS] == ["01_quick_start", "02_exploring_shredding", "03_local_then_spark"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_shows_charts(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("VPUSH_NOTEBOOK_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    notebook = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), (
        "notebooks are committed without outputs"
    )
    client = NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=dict(os.environ))
    images = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if "image/png" in output.get("data", {})
    ]
    assert images, "the notebook should show at least one chart"
