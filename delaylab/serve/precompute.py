"""Fill the sweep cache the dashboards' kernels read: ``python -m delaylab.serve.precompute
[--shared] [NOTEBOOK_FOLDER]`` executes each notebook once, as a dashboard would (cells tagged
``hide`` left out), with ``DELAYLAB_DEFAULT_CACHE`` set to the cache folder, its kernels on Unix
sockets where their paths fit (:mod:`delaylab.serve.transport`). Prints the seconds each
notebook took.

Into which folder:

* by default, this user's cache (``$DELAYLAB_CACHE`` or ``~/.cache/delaylab``): a server
  started afterwards by this user (or a container image built with this step) serves each
  notebook's first visitors from the cache instead of computing its figures while they wait;
* ``--shared``: this Python environment's install-time cache,
  ``<sys.prefix>/share/delaylab/cache`` (:func:`delaylab.cache.environment_folder`), which every
  user of the environment reads and none writes (:func:`delaylab.cache.shared_folders`): what
  Binder's postBuild, an image's build or a JupyterHub's admin runs once, so that every
  student's first dashboard comes from it. Its files are made readable by everyone.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path


def cells(nb, hidden: bool = False) -> list:
    """The cells of the notebook ``nb`` that :func:`execute` runs: every cell if ``hidden``, else
    those not tagged ``hide`` (the checks a dashboard leaves out)."""
    return [c for c in nb.cells if hidden or "hide" not in c.get("metadata", {}).get("tags", [])]


def execute(path: Path, hidden: bool = False, **client) -> float:
    """Execute the notebook at ``path`` once, from its folder, in a kernel of its own on Unix
    sockets (:class:`~delaylab.serve.transport.IPCKernelManager`), its outputs discarded: the cells
    of :func:`cells`. ``client``: more settings of nbclient's ``NotebookClient`` (e.g.
    ``allow_errors``, or ``km``, a kernel manager not started yet, which the caller then shuts
    down). Returns the seconds it took."""
    import nbformat
    from nbclient import NotebookClient

    from .transport import IPCKernelManager

    nb = nbformat.read(path, as_version=4)
    nb.cells = cells(nb, hidden)
    t0 = time.perf_counter()
    NotebookClient(nb, **{"timeout": 600, "kernel_name": "python3", "kernel_manager_class": IPCKernelManager,
                          "resources": {"metadata": {"path": str(path.parent)}}, **client}).execute()
    return time.perf_counter() - t0


def precompute(folder: Path, shared: bool = False) -> dict:
    from delaylab.cache import Cache, default_folder, environment_folder

    target = environment_folder() if shared else default_folder()
    cache = Cache(target, shared=()) if shared else Cache(target)
    os.environ["DELAYLAB_DEFAULT_CACHE"] = str(cache.folder)
    print(f"sweep cache: {cache.folder}", flush=True)
    times = {}
    for path in sorted(Path(folder).glob("*.ipynb")):
        times[path.name] = round(execute(path), 1)
        print(f"{path.name}: {times[path.name]} s", flush=True)
    if shared:
        readable_by_all(cache.folder)
    return times


def readable_by_all(folder: Path) -> None:
    """Folders 0755 and files 0644 under ``folder`` (whatever the installer's umask)."""
    for root, _dirs, files in os.walk(folder):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m delaylab.serve.precompute", description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="?", default="notebooks", help="the notebooks' folder (default: notebooks)")
    parser.add_argument("--shared", action="store_true",
                        help="into this environment's install-time cache, read by every user (<prefix>/share/delaylab/cache)")
    args = parser.parse_args(argv)
    precompute(Path(args.notebooks), shared=args.shared)


if __name__ == "__main__":
    main()
