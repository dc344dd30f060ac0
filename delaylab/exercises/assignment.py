"""Graded assignments: the paper notebooks as an nbgrader course folder.

    python3 tasks.py assignment 01 03 --out DIR     (or ``all``; DIR defaults to assignments/)
    python -m delaylab.exercises.assignment 01 --out DIR

writes ``DIR/nbgrader_config.py`` and ``DIR/source/<notebook>/<notebook>.ipynb``, one assignment
per notebook, ready for ``nbgrader generate_assignment <notebook>`` (nbgrader is not needed to
write them). In each source notebook:

* the cells tagged ``hide`` (the notebook's own checks of the paper's results) and ``solution`` (a
  worked derivation shown after its exercise, e.g. notebook 05's Corollary 4) are left out;
* the first cell is ``ex.start("", graded=True)``: solutions off, predictions recorded without a
  verdict, and during ``nbgrader autograde`` each submission graded against its owner's numbers;
* compute, derive and implement answers are solution cells: the stub the student sees, then the
  solution between nbgrader's ``### BEGIN SOLUTION`` / ``### END SOLUTION`` markers, removed from
  the release; the check cell after each is an autograded test cell whose visible part shows the
  verdict and the hints, and whose hidden part (``### BEGIN HIDDEN TESTS``) grades;
* predict questions become code answers (a string among the choices; a widget's state is not seen
  by autograding) with a hidden test, and explain questions manually graded markdown cells whose
  model answer is the hidden solution.

The points per kind are :data:`POINTS`. What a student receives after ``generate_assignment`` holds
no solution; what a determined student can still read is delaylab's own source (the graders and
the reference answers are in ``delaylab/exercises``) — with per-student numbers, a number or a
solution text copied from there or from a neighbour is still wrong for them.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path

from . import get, ids
from ._core import reference_code
from .solve import answer_cells

#: Points of each kind of exercise in a graded assignment.
POINTS = {"predict": 1, "compute": 2, "derive": 3, "implement": 3, "explain": 2}

CONFIG = '''"""nbgrader configuration of the delaylab assignments (written by python3 tasks.py assignment)."""
import os

c = get_config()  # noqa: F821 - nbgrader defines it
c.CourseDirectory.course_id = "delaylab"
# The answer cells end with the stub the student sees; the solution region adds nothing to it.
c.ClearSolutions.code_stub = {"python": ""}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
# A notebook's live panels and figures run in a few seconds to a minute, from the sweep cache when
# it is warm (the same for every submission: a run depends only on its seed and parameters).
c.ExecutePreprocessor.timeout = 600
os.environ.setdefault("DELAYLAB_DEFAULT_CACHE", "1")
'''


def _meta(eid: str, role: str, *, grade: bool, solution: bool, locked: bool, points: int | None = None) -> dict:
    """nbgrader's cell metadata (its grade ids allow no dot: ``01_n-tilde-answer``), and ours."""
    meta = {"grade": grade, "grade_id": f"{eid.replace('.', '_')}-{role}", "locked": locked, "schema_version": 3,
            "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta, "delaylab": {"exercise": eid, "role": role}}


def _code(source: str, meta: dict | None = None) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": meta or {}, "outputs": [], "source": source}


def _markdown(source: str, meta: dict | None = None) -> dict:
    return {"cell_type": "markdown", "metadata": meta or {}, "source": source}


def _with_solution(eid: str) -> str:
    """The answer cell of a compute, derive or implement exercise: its stub with the default
    instance's solution between the markers (before the stub's final ``return ...`` of a function)."""
    ex = get(eid)
    stub, code = ex.stub.rstrip("\n"), reference_code(eid, student="").rstrip("\n")
    if ex.kind != "implement":
        return f"{stub}\n### BEGIN SOLUTION\n{code}\n### END SOLUTION\n"
    body = code.split("\n", 1)[1]  # the solution's lines after its def line, indented
    head, last = stub.rsplit("\n", 1)
    if last.strip() != "return ...":
        raise ValueError(f"{eid}: the stub should end with `return ...`")
    return f"{head}\n    ### BEGIN SOLUTION\n{body}\n    ### END SOLUTION\n{last}\n"


def prediction_name(eid: str) -> str:
    """The variable of a predict question's answer in a graded release: ``prediction_1_3``."""
    nb = get(eid).notebook
    return f"prediction_{int(nb)}_{ids(nb).index(eid) + 1}"


def _prediction(eid: str) -> str:
    ex = get(eid)
    lines = [f"# ✎ Exercise {int(ex.notebook)}.{ids(ex.notebook).index(eid) + 1}: your prediction, as one of these "
             "strings (before you move the slider):"]
    lines += [f"#   {key!r}: {label}" for key, label in ex.choices.items()]
    name = prediction_name(eid)
    return "\n".join(lines) + f"\n{name} = ...\n### BEGIN SOLUTION\n{name} = {ex.solution!r}\n### END SOLUTION\n"


def graded(nb: dict, points: dict = POINTS) -> dict:
    """The graded source notebook of a paper notebook (its JSON)."""
    src = copy.deepcopy(nb)
    answers = dict(answer_cells(src))
    out = []
    cells = src["cells"]
    skip = set()
    for i, cell in enumerate(cells):
        if i in skip or {"hide", "solution"} & set(cell.get("metadata", {}).get("tags", [])):
            continue
        role = cell.get("metadata", {}).get("delaylab", {}).get("role")
        if role == "start":
            out.append(_code('ex.start("", graded=True)   # ✎ your student id between the quotes, exactly as your '
                             "course's grader knows it\n", cell["metadata"]))
            continue
        if i not in answers:
            cell.pop("id", None)
            out.append(cell)
            continue
        eid = answers[i]
        ex = get(eid)
        if ex.kind in ("compute", "derive", "implement"):
            out.append(_code(_with_solution(eid), _meta(eid, "answer", grade=False, solution=True, locked=False)))
            check = i + 1
            if f'ex.feedback("{eid}")' not in "".join(cells[check]["source"]):
                raise ValueError(f"{eid}: no check cell right after its answer cell")
            skip.add(check)
            out.append(_code(f'ex.feedback("{eid}")\n### BEGIN HIDDEN TESTS\nex.autograde("{eid}")\n'
                             "### END HIDDEN TESTS\n",
                             _meta(eid, "test", grade=True, solution=False, locked=True, points=points[ex.kind])))
        elif ex.kind == "predict":
            name = prediction_name(eid)
            out.append(_code(_prediction(eid), _meta(eid, "answer", grade=False, solution=True, locked=False)))
            out.append(_code(f'ex.record("{eid}", {name})\n### BEGIN HIDDEN TESTS\nex.autograde("{eid}", {name})\n'
                             "### END HIDDEN TESTS\n",
                             _meta(eid, "test", grade=True, solution=False, locked=True, points=points[ex.kind])))
        elif ex.kind == "explain":
            out.append(_markdown(f"**Your answer** (graded by your lecturer, {points[ex.kind]} points):\n\n"
                                 f"### BEGIN SOLUTION\n{ex.solution}\n\nA good answer mentions: "
                                 + "; ".join(f"({k}) {p}" for k, p in enumerate(ex.points, 1))
                                 + ".\n### END SOLUTION\n",
                                 _meta(eid, "answer", grade=True, solution=True, locked=False, points=points[ex.kind])))
    src["cells"] = out
    src["nbformat_minor"] = 4  # nbgrader's validator rejects the cell ids of 4.5 that nbgrader does not write
    return src


def write(notebooks_dir: Path, out: Path, which) -> list[Path]:
    """Write the nbgrader course folder ``out`` for the notebooks ``which`` ("01" … "05")."""
    written = []
    for nb_id in which:
        matches = sorted(Path(notebooks_dir).glob(f"{nb_id}_*.ipynb"))
        if len(matches) != 1 or not ids(nb_id):
            raise ValueError(f"no paper notebook {nb_id!r} with exercises; choose from "
                             f"{', '.join(sorted({e.split('.')[0] for e in ids()}))} or all")
        path = matches[0]
        name = path.stem
        target = Path(out) / "source" / name / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        nb = json.loads(path.read_text(encoding="utf-8"))
        target.write_text(json.dumps(graded(nb), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(target)
    (Path(out) / "nbgrader_config.py").write_text(CONFIG, encoding="utf-8")
    return written


def solved_submission(release: dict, student: str) -> dict:
    """A release notebook answered by ``student`` with their own correct answers (for tests and for a
    lecturer who wants to see what full marks look like): every answer cell filled in."""
    nb = copy.deepcopy(release)
    for cell in nb["cells"]:
        ours = cell.get("metadata", {}).get("delaylab", {})
        if ours.get("role") == "start":
            cell["source"] = f'ex.start("{student}", graded=True)\n'
        if ours.get("role") != "answer":
            continue
        eid = ours["exercise"]
        ex = get(eid)
        if ex.kind in ("compute", "derive", "implement"):
            cell["source"] = reference_code(eid, student=student)
        elif ex.kind == "predict":
            cell["source"] = f"{prediction_name(eid)} = {ex.solution!r}\n"
        else:
            cell["source"] = ex.solution
    return nb


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python3 tasks.py assignment",
                                     description="Write graded assignments of the paper notebooks as an nbgrader "
                                                 "course folder.")
    parser.add_argument("notebooks", nargs="+", help='"01" … "05", or "all"')
    parser.add_argument("--out", default="assignments", help="the course folder (default: assignments/)")
    parser.add_argument("--from", dest="source", default=str(Path(__file__).resolve().parents[2] / "notebooks"),
                        help="the folder of the paper notebooks")
    args = parser.parse_args(argv)
    which = sorted({e.split(".")[0] for e in ids()}) if args.notebooks == ["all"] else [
        re.sub(r"\D", "", n).zfill(2) for n in args.notebooks]
    try:
        paths = write(Path(args.source), Path(args.out), which)
    except ValueError as exc:
        sys.exit(f"[delaylab] {exc}")
    for p in paths:
        print(f"[delaylab] wrote {p}")
    print(f"[delaylab] next: cd {args.out} && nbgrader generate_assignment <name> (nbgrader is installed apart from "
          "the workbook: pip install 'nbgrader==0.9.*'; see docs/instructor.md)")


if __name__ == "__main__":
    main()
