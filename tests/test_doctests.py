"""Run every docstring example in the installed vpush packages."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import vpush


def _modules() -> list[str]:
    names = []
    for sub in ("vpush", "vpush.codec", "vpush.optimizer", "vpush.exec"):
        pkg = importlib.import_module(sub)
        names.append(sub)
        names.extend(
            f"{sub}.{info.name}" for info in pkgutil.iter_modules(pkg.__path__) if not info.ispkg
        )
    return sorted(set(names))


@pytest.mark.parametrize("name", _modules())
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def test_only_vpush_names_are_loaded() -> None:
    """The code folders install under vpush.*; no top-level codec/optimizer/exec module exists."""
    import sys

    for name in _modules():
        importlib.import_module(name)
    stray = [m for m in sys.modules if m.split(".")[0] in ("codec", "optimizer", "exec")]
    assert not stray, f"top-level modules loaded: {stray}"
    assert vpush.__name__ == "vpush"
