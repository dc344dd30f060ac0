"""Set-up shared by every pytest run of the repository, whatever paths it is given.

The notebooks a second time, with every exercise's solution filled in (issue: exercises): nbval runs
tests/solved_notebooks/*.ipynb, written here before collection (by the controller only under xdist),
and their check cells require a correct answer. The notebooks as shipped run with every check
required to say "not answered yet". This lives at the root (not in tests/conftest.py) so that it also
runs for `pytest --nbval notebooks/01_….ipynb tests/solved_notebooks/01_….ipynb`: pytest loads a
conftest of tests/ only when it is given a path under tests/ that already exists.

nbval's kernels talk over Unix sockets, not TCP (:func:`kernels_on_unix_sockets`).
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SOLVED = ROOT / "tests" / "solved_notebooks"


def pytest_configure(config):
    os.environ.setdefault("DELAYLAB_EXERCISES_EXPECT", "unanswered")
    if config.getoption("--nbval", default=False):
        kernels_on_unix_sockets()
    if hasattr(config, "workerinput") or not config.getoption("--nbval", default=False):
        return
    from delaylab.exercises.solve import write_solved

    write_solved(ROOT / "notebooks", SOLVED)


def kernels_on_unix_sockets():
    """nbval's kernels on Unix sockets in a private folder each, as the dashboards' and
    JupyterLab's (delaylab/serve/transport.py): nbval creates jupyter_client's KernelManager
    with no configuration at all (no config file or variable reaches it), so its module's
    KernelManager is replaced by one that chooses the ipc transport where the paths fit."""
    import nbval.kernel

    from delaylab.serve.transport import IPCKernelManager

    nbval.kernel.KernelManager = IPCKernelManager
