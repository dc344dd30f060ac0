"""Set-up shared by every pytest run of the repository, whatever paths it is given.

The notebooks a second time, with every exercise's solution filled in (issue: exercises): nbval runs
tests/solved_notebooks/*.ipynb, written here before collection (by the controller only under xdist),
and their check cells require a correct answer. The notebooks as shipped run with every check
required to say "not answered yet". This lives at the root (not in tests/conftest.py) so that it also
runs for `pytest --nbval notebooks/01_….ipynb tests/solved_notebooks/01_….ipynb`: pytest loads a
conftest of tests/ only when it is given a path under tests/ that already exists.
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SOLVED = ROOT / "tests" / "solved_notebooks"


def pytest_configure(config):
    os.environ.setdefault("DELAYLAB_EXERCISES_EXPECT", "unanswered")
    if hasattr(config, "workerinput") or not config.getoption("--nbval", default=False):
        return
    from delaylab.exercises.solve import write_solved

    write_solved(ROOT / "notebooks", SOLVED)
