"""``python3 tasks.py lab`` fills the user's caches in the background (delaylab/serve/prefill.py),
once per version of the code: the launch helper itself (``tasks.start_prefill``), for real, in a
temporary HOME, on a folder of two small notebooks (a sweep in a shown cell, another in a cell
tagged ``hide``, a failing cell between them; and a notebook that waits), with a process of the
test's own standing in for JupyterLab. About 20 s on 2 cores (four notebook kernels)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import nbformat
import pytest

import delaylab as dl
from delaylab.serve import prefill
from test_first_minutes import tasks

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the detached start and the parent's watch: POSIX")

SWEEP = ("import delaylab as dl\n"
         "law = dl.Geometric(mean=3)\n"
         "res = dl.sweep(dl.Conversions([0.5, 0.3], law), {{'UCB1': dl.UCB1()}}, {horizon}, runs=4, seed=0)\n"
         "assert res.notes['computed_runs'] + res.notes['cached_runs'] == 4")


def sweep_here(horizon: int, cache: Path):
    """The notebooks' sweep, in this process, on the cache folder ``cache``."""
    return dl.sweep(dl.Conversions([0.5, 0.3], dl.Geometric(mean=3)), {"UCB1": dl.UCB1()}, horizon, runs=4, seed=0,
                    cache=str(cache))


def notebook(path: Path, *sources: str, hidden: int | None = None) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# a notebook of the test")]
    for i, source in enumerate(sources):
        cell = nbformat.v4.new_code_cell(source)
        if i == hidden:
            cell.metadata["tags"] = ["hide"]
        nb.cells.append(cell)
    nbformat.write(nb, path)
    return path


def wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not prefill.alive(pid):
            return True
        time.sleep(0.2)
    return False


@pytest.fixture
def home(tmp_path):
    """The environment of a launch in a new HOME: every cache folder of delaylab under it (numba's
    compiled kernels too, unless the package's own folder is writable, as in a checkout)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DELAYLAB_CACHE", "XDG_CACHE_HOME", "DELAYLAB_DEFAULT_CACHE", "DELAYLAB_PREFILL",
                        "DELAYLAB_RECORD", "DELAYLAB_EXERCISES_EXPECT")}
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir()
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "runtime")
    (tmp_path / "runtime").mkdir()
    return env


def answering(home: dict, pid: int) -> None:
    """The stand-in "answers" as a Jupyter server does: its jpserver-<pid>.json in the runtime folder."""
    (Path(home["JUPYTER_RUNTIME_DIR"]) / f"jpserver-{pid}.json").write_text("{}")


@pytest.fixture
def stand_in():
    """A process standing in for JupyterLab (the prefill's ``--parent``), stopped at the end."""
    proc = subprocess.Popen(["sleep", "600"])
    yield proc
    proc.kill()
    proc.wait()


def test_the_launch_fills_the_cache_once_and_again_only_when_it_is_gone(tmp_path, home, stand_in):
    t = tasks()
    folder = tmp_path / "notebooks"
    folder.mkdir()
    env_file = folder / "kernel-env.json"
    nb = notebook(folder / "01_small.ipynb", SWEEP.format(horizon=200),
                  "raise RuntimeError('a student broke this cell')",
                  "import json, os\n"
                  f"json.dump({{k: os.environ.get(k) for k in ('DELAYLAB_RECORD', 'OMP_NUM_THREADS')}}, open({str(env_file)!r}, 'w'))",
                  SWEEP.format(horizon=300), hidden=3)
    log = tmp_path / "prefill.log"
    cache = tmp_path / "home" / ".cache" / "delaylab"

    started = time.perf_counter()
    pid = t.start_prefill(folder, env=home, parent=stand_in.pid, log=log)
    returned = time.perf_counter() - started
    assert pid and returned < 10, returned  # (the launch does not wait for it; a middle process starts it)
    assert int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16]) == 19  # nice 19
    assert os.getsid(pid) == pid  # a session of its own
    time.sleep(3)  # it waits for JupyterLab to answer before it starts a kernel
    assert prefill.alive(pid) and not env_file.exists() and "filling" not in log.read_text()
    answering(home, stand_in.pid)
    assert wait_gone(pid, 240), log.read_text()
    text = log.read_text()
    assert "01_small.ipynb: " in text and "prefill: done" in text, text
    # the kernel ran with the exercises' records off and one thread, past the failing cell
    assert json.loads(env_file.read_text()) == {"DELAYLAB_RECORD": "off", "OMP_NUM_THREADS": "1"}
    state = json.loads((cache / prefill.STATE).read_text())
    record = state["notebooks"][str(nb.resolve())]
    assert record["key"] == prefill.notebook_key(nb) and len(record["entries"]) == 2, record
    # a student's kernel (the same sweeps) now reads both figures, the hidden cell's too
    for horizon in (200, 300):
        res = sweep_here(horizon, cache)
        assert (res.notes["computed_runs"], res.notes["cached_runs"]) == (0, 4), (horizon, res.notes)
    assert state["kernels"] is None or prefill.kernels_current(state["kernels"])

    # a second launch with current caches starts no precompute (no kernel: no entry is even read)
    before = {p: p.stat().st_mtime_ns for p in cache.glob("*/runs-*.npz")}
    pid = t.start_prefill(folder, env=home, parent=stand_in.pid, log=log)
    assert wait_gone(pid, 60)
    second = log.read_text()[len(text):]
    assert "caches current for the 1 notebooks" in second and "filling" not in second, second
    assert {p: p.stat().st_mtime_ns for p in cache.glob("*/runs-*.npz")} == before

    # the cache emptied (`tasks.py clean --cache`): the next launch fills it again
    dl.cache_clear(str(cache))
    pid = t.start_prefill(folder, env=home, parent=stand_in.pid, log=log)
    assert wait_gone(pid, 240)
    third = log.read_text()[len(text) + len(second):]
    assert "filling" in third and "01_small.ipynb: " in third, third
    assert sweep_here(200, cache).notes["cached_runs"] == 4

    # DELAYLAB_PREFILL=off: nothing starts
    assert t.start_prefill(folder, env={**home, "DELAYLAB_PREFILL": "off"}, parent=stand_in.pid, log=log) is None


def test_it_stops_with_jupyterlab_and_one_runs_at_a_time(tmp_path, home, stand_in):
    t = tasks()
    folder = tmp_path / "notebooks"
    folder.mkdir()
    kernel_pid = folder / "kernel.pid"
    notebook(folder / "01_slow.ipynb", f"import os\nopen({str(kernel_pid)!r}, 'w').write(str(os.getpid()))",
             "import time\ntime.sleep(300)")
    log = tmp_path / "prefill.log"
    answering(home, stand_in.pid)
    first = t.start_prefill(folder, env=home, parent=stand_in.pid, log=log)
    deadline = time.time() + 120
    while not kernel_pid.exists() or not kernel_pid.read_text():
        assert time.time() < deadline and prefill.alive(first), log.read_text()
        time.sleep(0.2)
    kernel = int(kernel_pid.read_text())
    # a second launch meanwhile leaves the cache to the first
    second = t.start_prefill(folder, env=home, parent=stand_in.pid, log=log)
    assert wait_gone(second, 60)
    assert "another prefill is filling" in log.read_text()
    assert prefill.alive(first) and prefill.alive(kernel)
    # JupyterLab stops: the prefill and its notebook's kernel stop within seconds, the notebook not recorded
    stand_in.kill()
    stand_in.wait()
    assert wait_gone(first, 30), log.read_text()
    assert wait_gone(kernel, 30)
    assert "has stopped: stopping" in log.read_text()
    state = prefill.read_state(tmp_path / "home" / ".cache" / "delaylab")
    assert str((folder / "01_slow.ipynb").resolve()) not in state["notebooks"]


def test_a_notebook_key_follows_its_code_not_its_text_or_outputs(tmp_path):
    nb = notebook(tmp_path / "a.ipynb", "x = 1", "y = 2", hidden=1)
    key = prefill.notebook_key(nb)
    content = nbformat.read(nb, as_version=4)
    content.cells[0].source = "# another text"
    content.cells[1].outputs = [nbformat.v4.new_output("stream", text="1\n")]
    content.cells[1].execution_count = 3
    nbformat.write(content, nb)
    assert prefill.notebook_key(nb) == key
    content.cells[2].source = "y = 3"  # a hidden cell runs in a Run All: its code counts
    nbformat.write(content, nb)
    assert prefill.notebook_key(nb) != key
