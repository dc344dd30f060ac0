"""Project hygiene: declared dependencies, the README's commands, committed notebooks."""

import json
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _name(spec: str) -> str:
    return re.split(r"[<>=!~ \[]", spec.strip(), maxsplit=1)[0].lower()


def conda_packages() -> dict:
    """Top-level conda packages of environment.yml (without python, pip and the pip section)."""
    out, in_deps = {}, False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        if line.startswith("dependencies:"):
            in_deps = True
            continue
        if in_deps and re.match(r"^  - ", line):
            spec = line[4:].strip()
            if spec in ("pip", "pip:") or spec.startswith("python"):
                continue
            out[_name(spec)] = spec.replace(" ", "")
        elif in_deps and line and not line.startswith(" "):
            in_deps = False
    return out


def test_environment_yml_and_pyproject_declare_the_same_runtime_dependencies():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pyproject = {_name(d): d.replace(" ", "") for d in deps}
    assert pyproject == conda_packages()
    assert "anywidget" in pyproject  # plotly's FigureWidget needs it but does not declare it


def test_dask_is_optional_and_the_same_in_the_cluster_and_test_extras():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "dask" not in {_name(d) for d in project["dependencies"]}  # dl.sweep imports it lazily
    extras = project["optional-dependencies"]
    dask = [d for d in extras["cluster"] if _name(d) == "dask"]
    assert dask and dask == [d for d in extras["test"] if _name(d) == "dask"] and "distributed" in dask[0]


def test_the_course_site_tools_are_an_extra_that_the_workbook_does_not_need():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "jupyter-book" not in {_name(d) for d in project["dependencies"]}
    site = [d.replace(" ", "") for d in project["optional-dependencies"]["site"]]
    assert any(_name(d) == "jupyter-book" and "<2" in d for d in site)  # Jupyter Book 2 cannot build offline
    assert '".[site]"' in (ROOT / "environment.yml").read_text()  # conda users are told how to add it
    tasks = (ROOT / "tasks.py").read_text()
    lab = tasks[tasks.index("def cmd_lab"):tasks.index("def ensure_browser")]
    assert "ensure_venv(extras=())" in lab  # the launch command installs no extra


def test_every_call_in_tasks_py_fits_the_function_it_calls():
    """tasks.py's commands run only when typed (``assignment`` once died on ``ensure_venv(test=False)``
    before anyone ran it): each call of one of its own functions binds to that function's
    signature (its literal arguments)."""
    import ast
    import importlib.util
    import inspect

    source = (ROOT / "tasks.py").read_text()
    spec = importlib.util.spec_from_file_location("tasks_checked", ROOT / "tasks.py")
    tasks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tasks)
    own = {n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)}
    checked = 0
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in own:
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                continue
            signature = inspect.signature(getattr(tasks, node.func.id))
            try:
                signature.bind(*[None] * len(node.args), **{k.arg: None for k in node.keywords})
            except TypeError as exc:
                raise AssertionError(f"tasks.py line {node.lineno}: {ast.unparse(node)}: {exc}") from None
            checked += 1
    assert checked >= 10


def test_readme_has_the_two_commands_and_ci_runs_the_test_command():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Set-up: two commands.*?```sh\n(.*?)```", readme, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["python3 tasks.py lab", "python3 tasks.py test"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python3 tasks.py test" in ci


def test_criteo_table_is_shipped_inside_the_package():
    from importlib import resources

    text = resources.files("delaylab").joinpath("data/criteo_delay_quantiles.csv").read_text()
    assert "Criteo Attribution Modeling for Bidding" in text


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_are_committed_stripped(path):
    nb = json.loads(path.read_text())
    assert "widgets" not in nb.get("metadata", {})
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None
    assert path.stat().st_size < 100_000
