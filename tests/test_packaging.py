"""The distribution installs one top-level name, ``vpush``, from a wheel and as an editable
install, and the code folders load only as ``vpush.codec``, ``vpush.optimizer``, ``vpush.exec``."""
from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_CHECK = """
import importlib, importlib.util, sys
import vpush, vpush.codec, vpush.optimizer, vpush.exec
import vpush.codec.value, vpush.codec.builder, vpush.codec.metadata
from vpush.codec.builder import encode
from vpush.codec.value import Variant
assert Variant(*encode({"a": [1, 2]})).to_python() == {"a": [1, 2]}
for name in ("codec", "optimizer"):
    assert importlib.util.find_spec(name) is None, f"top-level {name} is importable"
stray = [m for m in sys.modules if m.split(".")[0] in ("codec", "optimizer", "exec")]
assert not stray, stray
print("ok", vpush.codec.__file__)
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    wheels = list(out.glob("vpush-*.whl"))
    assert len(wheels) == 1, f"one wheel is built: {wheels}"
    return wheels[0]


def test_wheel_has_one_top_level_name(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        tops = {name.split("/")[0] for name in zf.namelist()}
        names = zf.namelist()
    assert {t for t in tops if not t.endswith(".dist-info")} == {"vpush"}, tops
    for sub in ("codec", "optimizer", "exec"):
        assert f"vpush/{sub}/__init__.py" in names, f"vpush/{sub} is in the wheel"


def test_wheel_imports_in_a_fresh_virtualenv(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], check=True, capture_output=True
    )
    # Run from an empty folder, so the project's own folders are not on sys.path.
    done = subprocess.run(
        [str(py), "-c", _CHECK], cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""}
    )
    assert done.returncode == 0, done.stderr
    assert "site-packages" in done.stdout, "imported from the installed wheel, not the source tree"
    assert (env_dir / "bin" / "vpush").exists(), "the vpush command is installed"


def test_editable_install_in_a_fresh_virtualenv_imports_only_under_vpush(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(ROOT)], check=True, capture_output=True
    )
    done = subprocess.run(
        [str(py), "-c", _CHECK], cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""}
    )
    assert done.returncode == 0, done.stderr
    assert str(ROOT / "codec") in done.stdout, "the editable install maps vpush.codec to codec/"
