"""Fill the sweep cache the dashboards' kernels read: ``python -m delaylab.serve.precompute
[NOTEBOOK_FOLDER]`` executes each notebook once, as a dashboard would (cells tagged ``hide``
left out), with ``DELAYLAB_DEFAULT_CACHE`` set to delaylab's cache folder (``$DELAYLAB_CACHE``
or ``~/.cache/delaylab``). Afterwards a server started on this machine (or a container image
built with this step) serves each notebook's first visitors from the cache instead of
computing its figures while they wait. Prints the seconds each notebook took."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def precompute(folder: Path) -> dict:
    import nbformat
    from nbclient import NotebookClient

    from delaylab.cache import default_folder, open_cache

    os.environ["DELAYLAB_DEFAULT_CACHE"] = str(open_cache(default_folder()).folder)
    times = {}
    for path in sorted(Path(folder).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        nb.cells = [c for c in nb.cells if "hide" not in c.get("metadata", {}).get("tags", [])]
        t0 = time.perf_counter()
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        times[path.name] = round(time.perf_counter() - t0, 1)
        print(f"{path.name}: {times[path.name]} s", flush=True)
    return times


if __name__ == "__main__":
    precompute(Path(sys.argv[1] if len(sys.argv) > 1 else "notebooks"))
