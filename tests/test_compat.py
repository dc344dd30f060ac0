"""The supported Voila range: declared once (pyproject.toml), checked before the server starts."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from delaylab.serve import app, compat

ROOT = Path(__file__).resolve().parent.parent


def test_the_range_is_pyprojects_and_bounded_above():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (voila,) = [Requirement(d) for d in deps if Requirement(d).name == "voila"]
    assert compat.supported_voila() == voila.specifier
    assert any(s.operator == "<" for s in voila.specifier)  # a release we never ran is not "supported"


def test_the_installed_voila_is_supported():
    assert compat.voila_problem() is None


@pytest.mark.parametrize("version", ["0.6.0", "0.5.0", "1.0.0a1"])
def test_another_release_is_named_with_the_range_and_the_remedy(version):
    problem = compat.voila_problem(version)
    assert f"voila {version} is installed" in problem
    assert f"voila{compat.supported_voila()}" in problem and "pip install" in problem


def test_the_server_refuses_to_start_on_another_release(monkeypatch):
    monkeypatch.setattr(compat.metadata, "version", lambda name: "0.6.0" if name == "voila" else "0")

    def launched(*args, **kwargs):
        raise AssertionError("the server started")

    monkeypatch.setattr(app.DashboardServer, "launch_instance", launched)
    with pytest.raises(SystemExit, match=r"voila 0\.6\.0 is installed"):
        app.main([str(ROOT / "notebooks")])
