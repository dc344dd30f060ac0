"""Binder's files (binder/) and the Jupyter configuration they install.

A mybinder.org build cannot run here (nor docker): what repo2docker would do is done piece by
piece. ``binder/environment.yml`` lists the runtime packages of pyproject.toml;
``binder/postBuild`` runs as repo2docker runs it (bash, in the repository's folder, with
``$NB_PYTHON_PREFIX`` set), ``python`` and ``jupyter`` stubbed: its pip install really installs
delaylab, from a wheel built from this checkout, into a throwaway prefix (what the image's
environment gets: delaylab's server extension enabled in ``etc/jupyter``), every other command
is recorded. tests/test_browser_hub.py starts JupyterLab with the configuration installed here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from test_packaging import _name, conda_packages

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"


def binder_packages() -> dict:
    """Conda packages of binder/environment.yml (without python and pip)."""
    out = {}
    text = (BINDER / "environment.yml").read_text()
    for line in text[text.index("\ndependencies:"):].splitlines():
        if line.startswith("  - "):
            spec = line[4:].strip()
            if spec not in ("pip", "pip:") and not spec.startswith("python"):
                out[_name(spec)] = spec.replace(" ", "")
    return out


def source_copy(dest: Path) -> Path:
    """A copy of this checkout as it is now, without its environment, caches and artefacts: a
    package built from it leaves the checkout untouched (setuptools builds in the source tree,
    which a test running at the same time may be building too)."""
    ignore = shutil.ignore_patterns(".venv", ".git", "test-artifacts", "__pycache__", "build", "dist", "*.egg-info",
                                    "solved_notebooks", ".pytest_cache", "assignments", "_build")
    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


def run_postbuild(prefix: Path) -> list[str]:
    """Run binder/postBuild as repo2docker does (in a copy of the repository, :func:`source_copy`),
    into ``prefix`` (``$NB_PYTHON_PREFIX``): its
    ``python -m pip install`` installs for real into ``prefix`` (``--prefix``), ``jupyter server
    extension list`` reports the extensions enabled in ``prefix/etc/jupyter``, and every other
    ``python`` command is recorded, not run. Returns the recorded commands."""
    stubs = prefix / "stubs"
    stubs.mkdir(parents=True, exist_ok=True)
    log = prefix / "commands.txt"
    log.write_text("")
    (stubs / "python").write_text(textwrap.dedent(f"""\
        #!/bin/bash
        echo "python $*" >> "{log}"
        if [ "$1 $2 $3" = "-m pip install" ]; then
            shift 3
            exec "{sys.executable}" -m pip install --ignore-installed --prefix "$NB_PYTHON_PREFIX" "$@"
        fi
        """))
    (stubs / "jupyter").write_text(textwrap.dedent(f"""\
        #!/bin/bash
        echo "jupyter $*" >> "{log}"
        exec "{sys.executable}" "{Path(__file__).resolve()}" "$NB_PYTHON_PREFIX"
        """))
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    env = {**os.environ, "PATH": f"{stubs}{os.pathsep}{os.environ['PATH']}", "NB_PYTHON_PREFIX": str(prefix)}
    repo = source_copy(prefix / "repo")
    proc = subprocess.run(["bash", str(repo / "binder" / "postBuild")], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "BuildBackendWarning" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return log.read_text().splitlines()


def enabled_extensions(config_dir: Path) -> dict:
    """The server extensions enabled by the files of ``config_dir/jupyter_server_config.d``."""
    enabled = {}
    for path in sorted((config_dir / "jupyter_server_config.d").glob("*.json")):
        enabled.update(json.loads(path.read_text()).get("ServerApp", {}).get("jpserver_extensions", {}))
    return enabled


def test_binder_environment_lists_the_runtime_packages_of_pyproject():
    assert binder_packages() == conda_packages()
    assert "python=3.11" in (BINDER / "environment.yml").read_text()


@pytest.mark.skipif(os.name != "posix", reason="postBuild is a bash script (repo2docker images are Linux)")
def test_postbuild_installs_delaylab_with_its_server_extension_and_fills_the_caches(tmp_path):
    prefix = tmp_path / "prefix"
    commands = run_postbuild(prefix)
    etc = prefix / "etc" / "jupyter"
    # the wheel's data file, where pip puts it: delaylab's Jupyter server extension enabled
    assert enabled_extensions(etc) == {"delaylab.serve.extension": True}
    assert (etc / "jupyter_server_config.d" / "delaylab.json").read_text() == \
        (ROOT / "jupyter-config" / "jupyter_server_config.d" / "delaylab.json").read_text()
    installed = list(prefix.glob("lib/python3*/site-packages/delaylab/serve/extension.py"))
    assert installed and not list(prefix.glob("lib/python3*/site-packages/__editable__*"))  # a wheel, not editable
    assert json.loads((etc / "labconfig" / "page_config.json").read_text()) == \
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}
    # then, in this order: the plotly bundle, the numba kernels, the sweep cache of the notebooks
    rest = [c for c in commands if not c.startswith(("python -m pip", "jupyter"))]
    assert rest == ["python -m delaylab.viz.plotlyjs", "python -m delaylab.kernels",
                    "python -m delaylab.serve.precompute notebooks"]
    assert "jupyter server extension list" in commands


def _report(prefix: str) -> None:
    """The stub of ``jupyter server extension list``: the extensions enabled in the prefix."""
    for name, on in enabled_extensions(Path(prefix) / "etc" / "jupyter").items():
        print(f"    {name} {'enabled' if on else 'disabled'}", file=sys.stderr)


if __name__ == "__main__":  # the `jupyter` stub of run_postbuild
    _report(sys.argv[1])
