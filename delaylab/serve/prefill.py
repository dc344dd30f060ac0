"""This user's caches filled for JupyterLab in the background, once per version of the code:
``python -m delaylab.serve.prefill [NOTEBOOK_FOLDER] [--parent PID]``.

``python3 tasks.py lab`` starts it beside JupyterLab: a process of its own (its own session), at
the lowest priority (nice 19), its output appended to ``.venv/prefill.log``. It never holds
JupyterLab up and its failures never reach it. With ``--parent``, it starts its work once that
process (JupyterLab) answers (:func:`wait_for_jupyter`), and stops when it stops; what it had
finished is kept, and the next launch does the rest.

What it makes, so that a student's first Run All reads what it would otherwise compute (Binder's
postBuild and a hub's admin make the same once for every user, into the environment:
:mod:`.precompute` ``--shared``):

1. **the compiled kernels** (:func:`delaylab.warmup.warmup`): loaded from numba's cache, or
   compiled into it where their sources changed since they were compiled (``tasks.py`` compiles
   them when it installs delaylab, not after a ``git pull``);
2. **the notebooks' figures at their defaults**: each notebook of the folder executed once with
   every cell (those tagged ``hide`` too, as a Run All runs them; :func:`.precompute.execute`)
   and the sweep cache on, into this user's cache (``$DELAYLAB_CACHE`` or ``~/.cache/delaylab``),
   which JupyterLab's kernels read (:mod:`.extension`). A cell that fails (a student's edit) does
   not stop its notebook; the exercises record nothing (``DELAYLAB_RECORD=off``); each kernel
   computes on one thread.

Once per version of the code: :data:`STATE`, in the cache's folder, records for each notebook
(by its path) a key, :func:`notebook_key` (delaylab's simulation code and numpy's version as
:func:`delaylab.cache.code_version` gives them, numba's version, the notebook's code), and the
cache entries it used. A notebook is current when its key is unchanged and those entries all
still exist (``tasks.py clean --cache`` or the cache's size cap may have removed them); the
kernels are current when numba's cache still holds the digest of the sources it had after the
last warm-up. When everything is current it says so and exits: no kernel starts.

Beside the student's own kernels: one prefill per cache folder at a time (:data:`LOCK`). The
sweep cache writes each entry whole (a temporary file, then a rename:
:meth:`delaylab.cache.Cache.store`; tests/test_workers.py sweeps from two processes at once), so
when the student's kernel computes the same figure at the same moment, each writes a complete,
identical entry and neither reads half of one; numba writes its cache files the same way.
``DELAYLAB_PREFILL=off`` in the environment of ``tasks.py lab`` starts none.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import hashlib
import json
import os
import signal
import tempfile
import threading
import time
from pathlib import Path

#: the record of what was filled, in the sweep cache's folder
STATE = "prefill.json"
#: held while a prefill runs, in the sweep cache's folder
LOCK = ".prefill.lock"
#: a cell's time limit, in seconds (a student's edit may loop)
CELL_TIMEOUT = 600
#: the thread counts of the libraries, 1 in the prefill's kernels (the other core stays the student's)
THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def log(message: str) -> None:
    print(f"{datetime.datetime.now():%Y-%m-%d %H:%M:%S} prefill: {message}", flush=True)


def notebook_key(path: Path) -> str:
    """What the cached figures of the notebook at ``path`` depend on, hashed: delaylab's code and
    numpy's version (:func:`delaylab.cache.code_version`), numba's version, and the source of every
    code cell a Run All executes."""
    from importlib.metadata import PackageNotFoundError, version

    import nbformat

    from delaylab.cache import code_version

    from .precompute import cells

    try:
        numba = version("numba")
    except PackageNotFoundError:
        numba = "none"
    h = hashlib.sha256(f"{code_version()};numba {numba}\0".encode())
    for cell in cells(nbformat.read(path, as_version=4), hidden=True):
        if cell.cell_type == "code":
            h.update(cell.source.encode() + b"\0")
    return h.hexdigest()


def read_state(folder: Path) -> dict:
    try:
        state = json.loads((folder / STATE).read_text())
    except (OSError, ValueError):
        state = {}
    if not isinstance(state.get("notebooks"), dict):
        state["notebooks"] = {}
    return state


def write_state(folder: Path, state: dict) -> None:
    """:data:`STATE` written whole (a temporary file, then a rename)."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-prefill-")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(state, f, indent=1)
        os.replace(tmp, folder / STATE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def notebook_current(record, key: str, folder: Path) -> bool:
    """Whether ``record`` (of :data:`STATE`) says the notebook with this key was filled, and every
    entry it used is still in the cache ``folder``."""
    return (isinstance(record, dict) and record.get("key") == key
            and all((folder / entry).is_file() for entry in record.get("entries", [])))


def kernels_current(record) -> bool:
    """Whether numba's cache still holds the sources' digest that ``record`` found after the warm-up."""
    try:
        return Path(record["stamp"]).read_text() == record["digest"]
    except (OSError, KeyError, TypeError):
        return False


def warm_kernels() -> dict | None:
    """Load or compile every compiled kernel (:func:`delaylab.warmup.warmup`); the record of
    :func:`kernels_current`, None when the kernels are off."""
    from delaylab import kernels

    if not kernels.enabled():
        log("compiled kernels: off (numba missing or DELAYLAB_KERNELS=numpy)")
        return None
    from delaylab.warmup import warmup

    seconds = warmup()
    report = kernels.cache_report()
    log(f"compiled kernels: {report['loaded']} loaded from numba's cache, {report['compiled']} compiled, "
        f"in {seconds:.1f} s ({report['folder']})")
    stamp = kernels.cache_folder() / kernels.STAMP
    try:
        return {"stamp": str(stamp), "digest": stamp.read_text()}
    except OSError:
        return None


def used_since(folder: Path, since: float) -> list:
    """The cache entries of ``folder`` written or read (reading marks an entry used) since ``since``."""
    out = []
    for path in folder.glob("*/runs-*.npz"):
        with contextlib.suppress(OSError):
            if path.stat().st_mtime >= since:
                out.append(path.relative_to(folder).as_posix())
    return sorted(out)


@contextlib.contextmanager
def locked(folder: Path):
    """Yields whether this process holds :data:`LOCK` of ``folder`` (False: another prefill does)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield True
        return
    with open(folder / LOCK, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (exists and, where /proc tells, is no zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def wait_for_jupyter(parent: int, timeout: float = 120.0, every: float = 0.5) -> bool:
    """Wait until the Jupyter server ``parent`` answers (it has written ``jpserver-<pid>.json`` in
    Jupyter's runtime folder, which it does once it listens), at most ``timeout`` seconds; False if
    it stopped meanwhile. The prefill starts its work after it, so as not to slow its start."""
    from jupyter_core.paths import jupyter_runtime_dir

    info = Path(jupyter_runtime_dir()) / f"jpserver-{parent}.json"
    deadline = time.monotonic() + timeout
    while not info.exists() and time.monotonic() < deadline:
        if not alive(parent):
            return False
        time.sleep(every)
    return alive(parent)


class Stop:
    """Stopping the prefill once JupyterLab has stopped: :meth:`watch` checks its process every
    second; then the notebook's kernel running (:attr:`kernel`, its process group: its workers
    too) is killed, and the prefill ends after that notebook (:func:`prefill` cleans up the
    kernel's files), or at once (a SIGTERM) while no notebook runs."""

    def __init__(self):
        self.event = threading.Event()
        self.kernel = None  # the kernel manager of the notebook running
        self.lock = threading.Lock()

    def is_set(self) -> bool:
        return self.event.is_set()

    def watch(self, parent: int, every: float = 1.0) -> None:
        def loop():
            while not self.event.wait(every):
                if not alive(parent):
                    log(f"JupyterLab (process {parent}) has stopped: stopping; the next launch does the rest")
                    self.stop()

        threading.Thread(target=loop, name="delaylab-prefill-watch", daemon=True).start()

    def stop(self) -> None:
        with self.lock:
            self.event.set()
            km = self.kernel
            pid = getattr(getattr(km, "provisioner", None), "pid", None) if km is not None else None
            if km is None:  # only the warm-up of the compiled kernels may run (numba writes its files whole)
                os.kill(os.getpid(), signal.SIGTERM)
            if pid:
                with contextlib.suppress(OSError):
                    os.killpg(os.getpgid(pid), signal.SIGKILL)


def prefill(notebooks: Path, parent: int | None = None) -> dict:
    """Fill what is not current (see the module's docstring); returns ``{"ran": [names],
    "current": [names], "kernels": "warmed" | "current" | "off", "folder": the cache's folder}``,
    or ``{}`` when nothing could be done here (no writable cache, another prefill at work)."""
    from delaylab.cache import Cache, default_folder

    from jupyter_core.utils import run_sync

    from .precompute import execute
    from .transport import AsyncIPCKernelManager

    try:
        folder = Cache(default_folder()).folder
    except ValueError as exc:
        log(f"no sweep cache to fill: {exc}")
        return {}
    with locked(folder) as mine:
        if not mine:
            log(f"another prefill is filling {folder}: nothing to do here")
            return {}
        state = read_state(folder)
        paths = sorted(Path(notebooks).glob("*.ipynb"))
        keys = {p: notebook_key(p) for p in paths}
        todo = [p for p in paths if not notebook_current(state["notebooks"].get(str(p.resolve())), keys[p], folder)]
        kernels = "current" if kernels_current(state.get("kernels")) else "warmed"
        result = {"folder": str(folder), "ran": [], "current": [p.name for p in paths if p not in todo],
                  "kernels": kernels}
        if not todo and kernels == "current":
            log(f"caches current for the {len(paths)} notebooks of {notebooks}: nothing to do ({folder})")
            return result
        stop = Stop()
        if parent is not None:
            if not wait_for_jupyter(parent):
                log(f"JupyterLab (process {parent}) has stopped before it answered: nothing done")
                return result
            stop.watch(parent)
        os.environ.update({"DELAYLAB_DEFAULT_CACHE": str(folder), "DELAYLAB_RECORD": "off",
                           **dict.fromkeys(THREADS, "1")})
        log(f"filling {folder}: {', '.join(p.name for p in todo) or 'no notebook'}; compiled kernels {kernels}")
        if kernels == "warmed":
            state["kernels"] = warm_kernels()
            result["kernels"] = "warmed" if state["kernels"] else "off"
            write_state(folder, state)
        for path in todo:
            since = time.time() - 2  # (file times may be coarse)
            with stop.lock:
                if stop.is_set():
                    break
                km = stop.kernel = AsyncIPCKernelManager(kernel_name="python3")
            try:
                seconds = execute(path, hidden=True, km=km, allow_errors=True, timeout=CELL_TIMEOUT)
            except Exception as exc:  # noqa: BLE001 - a kernel that died, a time limit: the next launch tries again
                if stop.is_set():
                    break
                log(f"{path.name}: not filled ({type(exc).__name__}: {str(exc)[:300]}); the next launch tries again")
                continue
            finally:
                with stop.lock:
                    stop.kernel = None
                with contextlib.suppress(Exception):
                    run_sync(km.shutdown_kernel)(now=True)
            entries = used_since(folder, since)
            state["notebooks"][str(path.resolve())] = {"key": keys[path], "entries": entries, "seconds": round(seconds, 1),
                                                       "when": datetime.datetime.now().isoformat(timespec="seconds")}
            write_state(folder, state)
            result["ran"].append(path.name)
            log(f"{path.name}: {seconds:.1f} s, {len(entries)} cache entries")
        log("stopped" if stop.is_set() else "done")
        return result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m delaylab.serve.prefill", description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="?", default="notebooks", help="the notebooks' folder (default: notebooks)")
    parser.add_argument("--parent", type=int, default=None, help="stop when this process (JupyterLab) stops")
    args = parser.parse_args(argv)
    prefill(Path(args.notebooks), parent=args.parent)


if __name__ == "__main__":
    main()
