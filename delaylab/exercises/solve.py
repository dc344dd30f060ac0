"""The notebooks with every exercise answered by its solution (what CI runs a second time).

An answer cell is a code cell whose metadata holds ``{"delaylab": {"exercise": id, "role": "answer"}}``;
its source is the exercise's stub as shipped. :func:`solved` replaces it with the solution's code and
makes every check cell require a correct answer.

The solved copy also plays a student who moves every slider: each live panel's controls are moved
away from their defaults right after the cell that made it (:mod:`delaylab.panels.moves`), so
that every later check cell must hold whatever the panels show, and its last cell fails if any
cell moved a control back (check cells never change a control).

    python -m delaylab.exercises.solve notebooks/ out/     # writes out/<name>.ipynb
"""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

from ._core import EXPECT_ENV, reference_code


def answer_cells(nb: dict):
    """(index, exercise id) of the answer cells of a notebook (its JSON), in order."""
    for i, cell in enumerate(nb["cells"]):
        meta = cell.get("metadata", {}).get("delaylab", {})
        if cell["cell_type"] == "code" and meta.get("role") == "answer":
            yield i, meta["exercise"]


#: the notebooks whose solved copy moves the live panels (all of them once every check cell holds on
#: its own parameters: issue 33)
FOLLOWS_THE_STUDENT = frozenset({"01", "02", "03", "04", "05"})


def solved(nb: dict, move_panels: bool = True) -> dict:
    """A copy of the notebook with every answer cell filled in (the default instance's solution, the
    instance ``ex.start("")`` gives) and checks that must pass; with ``move_panels``, every live
    panel's controls moved after the cell that made it, and no later cell may move them back."""
    out = copy.deepcopy(nb)
    for i, eid in answer_cells(out):
        out["cells"][i]["source"] = reference_code(eid, student="")
    first = {"cell_type": "code", "execution_count": None, "id": "delaylab-solved-mode", "metadata": {},
             "outputs": [], "source": f"import os\nos.environ[{EXPECT_ENV!r}] = 'correct'" + (_WATCH * move_panels)}
    out["cells"].insert(0, first)
    if move_panels:
        out["cells"].append({"cell_type": "code", "execution_count": None, "id": "delaylab-controls-untouched",
                             "metadata": {}, "outputs": [], "source": "_delaylab_watch.untouched()"})
    return out


#: the solved copy's first cell also starts moving the panels (delaylab.panels.moves.Watch)
_WATCH = """
from delaylab.panels.moves import Watch as _Watch
_delaylab_watch = _Watch()
get_ipython().events.register("post_run_cell",
                              lambda r: _delaylab_watch.after_cell(get_ipython().user_ns, r.info.raw_cell or ""))"""


def write_solved(src: Path, dest: Path) -> list[Path]:
    """Write the solved copy of every notebook of ``src`` that has exercises into ``dest`` (and
    remove the copies of notebooks that no longer have any)."""
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(Path(src).glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        if not any(True for _ in answer_cells(nb)):
            continue
        target = dest / path.name
        tmp = target.with_suffix(f".tmp{os.getpid()}")
        moving = path.name[:2] in FOLLOWS_THE_STUDENT or os.environ.get("DELAYLAB_MOVE_PANELS") == "all"
        tmp.write_text(json.dumps(solved(nb, move_panels=moving), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, target)
        written.append(target)
    for stale in set(dest.glob("*.ipynb")) - set(written):  # a notebook renamed, or without exercises now
        stale.unlink()
    return written


if __name__ == "__main__":  # pragma: no cover - command line
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    for p in write_solved(Path(sys.argv[1]), Path(sys.argv[2])):
        print(p)
