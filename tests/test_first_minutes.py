"""A newcomer's first five minutes: what ``python3 tasks.py lab`` and ``python3 tasks.py test`` print
is our progress lines and Jupyter's own log, nothing that looks like an error.

The commands' pieces, run as tasks.py runs them (its environments, ``tasks.pip_env`` and
``tasks.jupyter_env``): building the package (a wheel and an editable install, into throwaway
places: no setuptools BuildBackendWarning, no deprecation), JupyterLab started headless and a
kernel started in it (no deprecation warning, no "Kernel is running over TCP without encryption":
the kernel's connection file says ipc; no "official Jupyter news?" question), and one notebook
under nbval (its kernel on Unix sockets too, as the kernel itself reports).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from test_binder import source_copy

ROOT = Path(__file__).resolve().parents[1]

#: what must not appear in a newcomer's terminal
ALARMING = re.compile(r"BuildBackendWarning|DeprecationWarning|deprecated|Editable installation|Traceback \(most recent|"
                      r"running over TCP without encryption|^\s*!!\s*$|\[[WE] \d{4}-", re.I | re.M)


def tasks():
    """tasks.py as a module (its environments for pip and Jupyter)."""
    spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def alarming(output: str) -> list[str]:
    """The lines of ``output`` a newcomer would take for errors (:data:`ALARMING`); pip's notes
    about this machine's own package index configuration ("Location ... is ignored") aside."""
    return [line for line in output.splitlines() if ALARMING.search(line) and "is ignored: it is neither" not in line]


def test_building_the_package_prints_no_warning(tmp_path):
    source = source_copy(tmp_path / "src")
    env = tasks().pip_env()
    wheel = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "dist"), str(source)],
                           env=env, capture_output=True, text=True, timeout=600)
    assert wheel.returncode == 0, wheel.stdout[-2000:] + wheel.stderr[-3000:]
    assert not alarming(wheel.stdout + wheel.stderr), alarming(wheel.stdout + wheel.stderr)
    # tasks.py's own kind of install (editable), into a throwaway prefix (--ignore-installed: this
    # environment's delaylab is neither uninstalled nor replaced)
    install = [sys.executable, "-m", "pip", "install", "--no-deps", "--ignore-installed", "--prefix"]
    editable = subprocess.run([*install, str(tmp_path / "prefix"), "-e", str(source)], env=env, capture_output=True,
                              text=True, timeout=600)
    assert editable.returncode == 0, editable.stdout[-2000:] + editable.stderr[-3000:]
    assert not alarming(editable.stdout + editable.stderr), alarming(editable.stdout + editable.stderr)
    # without tasks.py's filter, setuptools' note on editable installs is shown like the others
    plain = subprocess.run([*install, str(tmp_path / "prefix2"), "-e", str(source)],
                           env={k: v for k, v in env.items() if k != "PYTHONWARNINGS"}, capture_output=True, text=True,
                           timeout=600)
    assert "Editable installation" in plain.stderr and "project.license" not in plain.stderr
    # and this environment still runs the checkout's delaylab
    here = subprocess.run([sys.executable, "-c", "import delaylab; print(delaylab.__file__)"], cwd=tmp_path,
                          capture_output=True, text=True).stdout.strip()
    assert here == str(ROOT / "delaylab" / "__init__.py"), here
    # the wheel: an SPDX licence, delaylab's server extension switched on where pip puts data files
    with zipfile.ZipFile(next((tmp_path / "dist").glob("delaylab-*.whl"))) as whl:
        names = whl.namelist()
        metadata = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        config = next(n for n in names if n.endswith(".data/data/etc/jupyter/jupyter_server_config.d/delaylab.json"))
        assert json.loads(whl.read(config)) == {"ServerApp": {"jpserver_extensions": {"delaylab.serve.extension": True}}}
        entry_points = whl.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "License-Expression: MIT" in metadata
    assert "delaylab-dashboards = delaylab.serve.extension:DashboardProvisioner" in entry_points


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, token: str, method: str = "GET"):
    request = urllib.request.Request(url, method=method, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read().decode()


@pytest.mark.skipif(os.name != "posix", reason="Unix sockets: POSIX only")
def test_jupyterlab_starts_quietly_and_its_kernels_use_unix_sockets(tmp_path):
    """``python3 tasks.py lab`` itself, its whole terminal (a token from JUPYTER_TOKEN instead of a
    generated one, to talk to the server), on a copy of the notebooks, Jupyter's folders in a
    temporary folder, and git's folder hidden (GIT_DIR) so that the checkout's git configuration
    is left alone."""
    t = tasks()
    # a clone in the server's root, as nbgitpuller leaves it on a hub (the root is the home)
    notebooks, docs = tmp_path / "course" / "notebooks", tmp_path / "course" / "docs"
    notebooks.mkdir(parents=True)
    docs.mkdir()
    (notebooks / "00_index.ipynb").write_bytes((ROOT / "notebooks" / "00_index.ipynb").read_bytes())
    for name in ("readings.md", "instructor.md"):
        (docs / name).write_bytes((ROOT / "docs" / name).read_bytes())
    token, port = secrets.token_hex(16), _free_port()
    # the runtime folder (connection files, sockets) as short as a home's ~/.local/share/jupyter/runtime
    runtime = Path(tempfile.mkdtemp(prefix="dl-rt-", dir="/tmp"))
    # (the caches' background filling, started by tasks.py: into a new folder, stopped with JupyterLab)
    env = {**t.jupyter_env(), "JUPYTER_TOKEN": token, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_DATA_DIR": str(tmp_path / "data"), "JUPYTER_RUNTIME_DIR": str(runtime),
           "IPYTHONDIR": str(tmp_path / "ipython"), "GIT_DIR": str(tmp_path / "no-git"),
           "DELAYLAB_CACHE": str(tmp_path / "sweeps")}
    env.pop("DELAYLAB_PREFILL", None)
    log = open(tmp_path / "lab.log", "w")
    python = shutil.which("python3") or sys.executable
    proc = subprocess.Popen([python, str(ROOT / "tasks.py"), "lab", f"--notebook-dir={tmp_path}", "--no-browser",
                             f"--port={port}", "--ServerApp.ip=127.0.0.1"],
                            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                _get(f"{url}/api/status", token)
                break
            except OSError:
                assert proc.poll() is None and time.time() < deadline, (tmp_path / "lab.log").read_text()[-3000:]
                time.sleep(0.3)
        kernel = json.loads(_get(f"{url}/api/kernels", token, method="POST"))["id"]
        connection = json.loads((runtime / f"kernel-{kernel}.json").read_text())
        # the kernel has bound its five sockets (and said what it had to say about them)
        deadline = time.time() + 120
        while len(list(runtime.glob(f"kernel-{kernel}-ipc-*"))) < 5 and "over TCP" not in (tmp_path / "lab.log").read_text():
            assert proc.poll() is None and time.time() < deadline, (tmp_path / "lab.log").read_text()[-3000:]
            time.sleep(0.3)
        page = _get(f"{url}/lab", token)
        # the notebooks' link ../docs/readings.md, from the dashboard /voila/render/course/notebooks/00_index.ipynb
        readings = _get(f"{url}/voila/render/course/docs/readings.md", token)
        refused = []
        for path in ("course/docs/instructor.md", "course/docs/..%2F..%2Fcourse%2Fdocs%2Freadings.md"):
            try:
                _get(f"{url}/voila/render/{path}", token)
            except urllib.error.HTTPError as e:
                refused.append(e.code)
        time.sleep(2)  # the kernel's own start-up lines reach the log
        output = (tmp_path / "lab.log").read_text()
        # a SIGTERM to tasks.py alone (a service manager, `kill`) stops JupyterLab and its kernel with it
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(60)
        deadline = time.time() + 30
        prefill = f"delaylab.serve.prefill {ROOT / 'notebooks'} --parent {proc.pid}"
        while ((_group_alive(proc.pid) or _running(f"kernel-{kernel}") or _running(prefill))
               and time.time() < deadline):
            time.sleep(0.2)
        # (a kernel, and the prefill, have sessions of their own)
        orphans = _group_alive(proc.pid) + _running(f"kernel-{kernel}") + _running(prefill)
    finally:
        _stop_group(proc)
        log.close()
        shutil.rmtree(runtime, ignore_errors=True)
    assert not orphans, f"after a SIGTERM to tasks.py, processes of its group still run: {orphans}"
    assert connection["transport"] == "ipc" and connection["ip"].startswith(str(runtime))
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                                  page, re.S).group(1))
    assert "@jupyterlab/apputils-extension:announcements" in config["disabledExtensions"]
    assert "delaylab.serve.extension | extension was successfully loaded" in output
    assert "<title>The readings behind the workbook · delaylab</title>" in readings and "<main>" in readings
    assert refused[0] == 404 and refused[1] in (403, 404)  # a document not served; a way out (Voila's refusal)
    assert f"Kernel started: {kernel}" in output
    assert "[delaylab] " in output and "-m jupyter lab " in output  # tasks.py's own line
    assert "in the background at low priority" in output
    alarms = [a for a in alarming(output) if "/course/docs/" not in a]  # the refusals asked for above
    assert not alarms, alarms


def _group_alive(pgid: int) -> list:
    """The processes of group ``pgid`` still running (their command lines), from /proc."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                alive.append((stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:120])
        except (OSError, IndexError, ValueError):
            continue
    return alive


def _running(text: str) -> list:
    """The processes whose command line contains ``text``."""
    out = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            line = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in line and str(os.getpid()) != cmdline.parent.name:
            out.append(line[:120])
    return out


def _stop_group(proc) -> None:
    """Stop tasks.py and the JupyterLab it started (its own process group), and wait for both."""
    import signal

    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    proc.wait(30)
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)


def test_a_notebook_under_nbval_runs_its_kernel_on_unix_sockets():
    """One notebook under nbval as ``tasks.py test`` runs it (the repository's conftest.py, which
    gives nbval its kernel manager); the notebook asks its kernel for its transport."""
    folder = ROOT / "test-artifacts" / "first-minutes"  # git-ignored, under the repository's conftest.py
    folder.mkdir(parents=True, exist_ok=True)
    nb = folder / f"transport_{os.getpid()}.ipynb"
    cell = ("import json, ipykernel.connect\n"
            "transport = json.loads(ipykernel.connect.get_connection_info())['transport']\n"
            "assert transport == ('ipc' if __import__('os').name == 'posix' else 'tcp'), transport")
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {},
                                         "outputs": [], "source": cell}],
                              "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                          "language": "python"}},
                              "nbformat": 4, "nbformat_minor": 5}))
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env", "-p", "no:cacheprovider",
                               "-q", str(nb)], cwd=ROOT, env=tasks().jupyter_env(), capture_output=True, text=True,
                              timeout=300)
    finally:
        nb.unlink()
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert not alarming(proc.stdout + proc.stderr), alarming(proc.stdout + proc.stderr)


def test_the_save_as_path_the_readme_gives_works_in_the_folder_lab_serves(tmp_path):
    """The README's and notebooks/mine/README.md's "Save Notebook As… PATH": PATH is relative to
    the folder ``tasks.py lab`` serves (the repository's), its folder exists in a fresh clone, and
    git ignores the copy saved there."""
    t = tasks()
    assert t.ROOT == ROOT  # lab serves ROOT unless told otherwise (cmd_lab's --notebook-dir)
    paths = set()
    for doc in (ROOT / "README.md", ROOT / "notebooks" / "mine" / "README.md"):
        found = re.findall(r"Save Notebook\s+As…\*\s+`([^`]+\.ipynb)`", doc.read_text())
        assert found, doc
        paths.update(found)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    for path in paths:
        target = clone / path
        assert target.parent.is_dir(), f"{path}: no such folder in a fresh clone"
        target.write_text("{}")
        ignored = subprocess.run(["git", "-C", str(clone), "check-ignore", "-q", path]).returncode
        assert ignored == 0, f"{path}: git would track the student's copy"
