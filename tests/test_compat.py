"""The supported Voila range: declared once (pyproject.toml), checked before the server starts."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from delaylab.serve import app, cli, compat

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
        cli.main([str(ROOT / "notebooks")])


def _foreign_private_reads(path: Path, own: set) -> set:
    """Private attributes read in ``path`` (``x._name``, ``getattr(x, "_name", ...)``) whose name
    no module of delaylab.serve defines."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            names.add(node.args[1].value)
    return {n for n in names if n.startswith("_") and not n.startswith("__") and n not in own}


def test_voila_s_private_names_are_read_only_in_voila_patches_which_lists_them():
    """What a Voila upgrade may break lives in one module (delaylab/serve/voila_patches.py), and
    its docstring names every private name of Voila, jupyter_server or jupyter_client it reads."""
    import ast

    serve = ROOT / "delaylab" / "serve"
    own = set()  # private names our own classes define (methods, class attributes, self._x = ...)
    for path in serve.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                own.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
            elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                  and isinstance(node.value, ast.Name) and node.value.id == "self"):
                own.add(node.attr)
    elsewhere = {path.name: reads for path in serve.glob("*.py") if path.name != "voila_patches.py"
                 for reads in [_foreign_private_reads(path, own)] if reads}
    assert elsewhere == {}
    patches = serve / "voila_patches.py"
    read = _foreign_private_reads(patches, own - {"_initialize"}) | {"_initialize"}
    assert {"_pools", "_kernels", "_kernel_connections", "_pending_kernels", "_cache"} <= read
    doc = ast.get_docstring(ast.parse(patches.read_text()))
    assert {name for name in read if name not in doc} == set()
