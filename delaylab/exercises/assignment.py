"""Graded assignments: the paper notebooks as an nbgrader course folder.

    python3 tasks.py assignment 01 03 --out DIR     (or ``all``; DIR defaults to assignments/)
    python3 tasks.py assignment 01 --exercises 1.2,1.4,1.5 [--points 1.4=4,compute=3] [--name hw1]
    python3 tasks.py assignment week1                (a week of the guide's module table: WEEKS)

writes ``DIR/nbgrader_config.py`` and ``DIR/source/<assignment>/<notebook>.ipynb``, ready for
``nbgrader generate_assignment <assignment>`` (nbgrader is not needed to write them); the
submissions are then graded by ``python3 tasks.py grade`` (:mod:`delaylab.grading`), in sandboxes.
In each source notebook:

* the cells tagged ``hide`` (the notebook's own checks of the paper's results) and ``solution`` (a
  worked derivation shown after its exercise, e.g. notebook 05's Corollary 4) are left out;
* the first cell is ``ex.start("", graded=True)``: solutions off, predictions recorded without a
  verdict, and on a JupyterHub the hub's user name is the student id;
* the graded exercises (all of the notebook's, or the ``--exercises`` chosen) become nbgrader cells:
  compute, derive and implement answers are solution cells (the stub the student sees, then the
  solution between nbgrader's ``### BEGIN SOLUTION`` / ``### END SOLUTION`` markers, removed from
  the release), each followed by a locked test cell that shows the verdict and the hints and holds
  the exercise's points; predict questions become code answers (a string among the choices) whose
  check cell records them without a verdict; explain questions become manually graded markdown
  cells whose model answer is the hidden solution. The other exercises stay as they are in the
  notebook, checked on the spot and marked as practice;
* no prose gives away the answer of a graded predict question: a paragraph that states it
  (:func:`giveaways`) is left out of the release, with a line saying so.

The points per kind are :data:`POINTS` (``--points`` changes them per kind or per exercise). What a
student receives after ``generate_assignment`` holds no solution; what a determined student can
still read is delaylab's own source (the reference answers are in ``delaylab/exercises``) — with
per-student numbers, a number copied from there or from a neighbour is still wrong for them, and
grading runs in a sandbox where those references do not exist (docs/instructor.md).
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

#: The graded homework of each week of the guide's five-week module: ``python3 tasks.py assignment
#: week1`` (defined in :mod:`delaylab.exercises.weeks`, which the dashboards' solutions read too).
from .weeks import WEEKS  # noqa: E402

CONFIG = '''"""nbgrader configuration of the delaylab assignments (written by python3 tasks.py assignment)."""
from nbconvert.preprocessors import Preprocessor

c = get_config()  # noqa: F821 - nbgrader defines it
c.CourseDirectory.course_id = "delaylab"
# The answer cells end with the stub the student sees; the solution region adds nothing to it.
c.ClearSolutions.code_stub = {"python": ""}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"


# Submissions are graded by `python3 tasks.py grade ASSIGNMENT --course <this folder>`, which runs
# each one in a sandbox and judges its answers outside the student's kernel (docs/instructor.md).
# `nbgrader autograde` (and formgrader's autograde button) would run the students' code with your
# rights, in this folder, next to the gradebook: it is switched off here.
class GradeWithDelaylab(Preprocessor):
    def __call__(self, nb, resources):  # (a Preprocessor's preprocess runs only when enabled; this always does)
        raise RuntimeError("this course is graded with `python3 tasks.py grade ASSIGNMENT --course DIR`, which runs "
                           "each submission in a sandbox; nbgrader autograde would run the students' code with your "
                           "rights in the course folder, so nbgrader_config.py switches it off")


c.Autograde.sanitize_preprocessors = [GradeWithDelaylab]
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


def exercise_number(eid: str) -> str:
    """``"1.2"`` for ``"01.pending"``: the number the notebook's heading gives the exercise."""
    nb = get(eid).notebook
    return f"{int(nb)}.{ids(nb).index(eid) + 1}"


def resolve(names, notebook: str | None = None) -> list[str]:
    """Exercise ids from numbers (``"1.2"``) or ids (``"01.pending"``), in the notebook's order; a
    ValueError naming each unknown one and the valid choices."""
    known = {exercise_number(e): e for e in ids()}
    out, bad = [], []
    for name in names:
        eid = known.get(str(name).strip()) or (str(name).strip() if str(name).strip() in ids() else None)
        if eid is None or (notebook is not None and get(eid).notebook != notebook):
            bad.append(str(name))
        elif eid not in out:
            out.append(eid)
    if bad:
        where = ids(notebook) if notebook else ids()
        raise ValueError(f"--exercises: no exercise {', '.join(repr(b) for b in bad)}"
                         + (f" in notebook {notebook}" if notebook else "") + "; choose from "
                         + ", ".join(exercise_number(e) for e in where))
    return sorted(out, key=ids().index)


def points_of(spec: str | None) -> dict:
    """``--points 1.4=4,compute=3``: points per exercise (number or id) or per kind."""
    out: dict = {}
    for part in filter(None, (p.strip() for p in (spec or "").split(","))):
        key, eq, value = part.partition("=")
        try:
            n = int(value)
        except ValueError:
            n = -1
        if not eq or n < 0:
            raise ValueError(f"--points: {part!r} should be NAME=POINTS with a whole number of points, e.g. 1.4=4 or "
                             "compute=3")
        key = key.strip()
        out[key if key in POINTS else resolve([key])[0]] = n
    return out


def _points(eid: str, points: dict) -> int:
    return points.get(eid, points.get(get(eid).kind, POINTS[get(eid).kind]))


# ------------------------------------------------------------------ prose that gives an answer away
_STOP = frozenset("a an the of it its and or as than with to in on for is are be at by but so that this then each one "
                  "if not no do does".split())


def _words(text: str) -> list[str]:
    """The words of ``text`` that carry meaning: lower case, without "'s", plural -s or numbers."""
    out = []
    for t in re.findall(r"[^\W_]+(?:[-'][^\W_]+)*", text.lower().replace("’", "'")):
        t = re.sub(r"'s$", "", t)
        if len(t) > 4 and t.endswith("s") and not t.endswith("ss"):
            t = t[:-1]
        if t not in _STOP and len(t) >= 3 and not any(ch.isdigit() for ch in t):
            out.append(t)
    return out


def _pairs(text: str) -> set:
    w = _words(text)
    return set(zip(w, w[1:]))


def answer_phrases(eid: str) -> set:
    """The pairs of words of a predict question's right choice that no wrong choice has: prose that
    holds one of them states the answer (e.g. "learns nothing" for Exercise 5.4)."""
    ex = get(eid)
    wrong = set().union(*(_pairs(label) for key, label in ex.choices.items() if key != ex.solution))
    return _pairs(ex.choices[ex.solution]) - wrong


def _gives_away(block: str, eid: str) -> bool:
    """Whether a paragraph states the answer of predict question ``eid``: one of its distinctive
    word pairs (:func:`answer_phrases`), the right choice's label, or a phrase the exercise lists
    in its ``reveals``."""
    ex = get(eid)
    flat = " ".join(block.lower().split())
    said = [" ".join(w.lower().split()) for w in (ex.choices[ex.solution], *ex.reveals)]
    return bool(answer_phrases(eid) & _pairs(block)) or any(w in flat for w in said)


def giveaways(text: str, eid: str) -> list[str]:
    """The paragraphs of markdown ``text`` that give away the answer of predict question ``eid``."""
    return [block for block in re.split(r"\n\s*\n", text) if _gives_away(block, eid)]


def _withhold(text: str, eids) -> str:
    """``text`` without the paragraphs that give away the answers of ``eids``, each replaced by a line."""
    blocks = re.split(r"(\n\s*\n)", text)
    for i, block in enumerate(blocks):
        if not block.strip():
            continue
        spoiled = [e for e in eids if _gives_away(block, e)]
        if not spoiled:
            continue
        which = ", ".join(f"Exercise {exercise_number(e)}" for e in spoiled)
        if block.lstrip().startswith("#"):
            level = re.match(r"\s*(#+\s*(?:\d+\.)?)", block).group(1)
            blocks[i] = f"{level} (this heading gives away the answer of {which}: left out of this graded release)"
        else:
            blocks[i] = (f"*[A paragraph that gives away the answer of {which} is left out of this graded release; "
                         "it is in the workbook's notebook.]*")
    return "".join(blocks)


# ------------------------------------------------------------------ the source notebook
def graded(nb: dict, points: dict | None = None, exercises=None) -> dict:
    """The graded source notebook of a paper notebook (its JSON): ``exercises`` (ids; all of the
    notebook's when None) are graded, with ``points`` per id or kind (default :data:`POINTS`); the
    others stay as practice."""
    points = dict(points or {})
    src = copy.deepcopy(nb)
    answers = dict(answer_cells(src))
    chosen = set(answers.values()) if exercises is None else set(exercises)
    predicts = [e for e in chosen if get(e).kind == "predict"]
    out = []
    cells = src["cells"]
    skip = set()
    for i, cell in enumerate(cells):
        if i in skip or {"hide", "solution"} & set(cell.get("metadata", {}).get("tags", [])):
            continue
        role = cell.get("metadata", {}).get("delaylab", {}).get("role")
        if role == "start":
            out.append(_code('ex.start("", graded=True)   # ✎ on your course\'s JupyterHub leave the quotes empty; '
                             "elsewhere your student id, exactly as your course's grader knows it\n",
                             cell["metadata"]))
            continue
        if i not in answers or answers[i] not in chosen:
            cell.pop("id", None)
            if cell["cell_type"] == "markdown":
                text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                practice = next((e for e in answers.values() if e not in chosen and text.startswith("### ✎ Exercise")
                                 and f"Exercise {exercise_number(e)} (" in text.split("\n", 1)[0]), None)
                heading_of = next((e for e in predicts if text.startswith("### ✎ Exercise")
                                   and f"Exercise {exercise_number(e)} (" in text.split("\n", 1)[0]), None)
                text = _withhold(text, [e for e in predicts if e != heading_of])
                if practice is not None:
                    head, _, rest = text.partition("\n")
                    text = f"{head}\n\n*Practice: not graded in this assignment; checked on the spot.*\n{rest}"
                cell["source"] = text
            out.append(cell)
            continue
        eid = answers[i]
        ex = get(eid)
        worth = _points(eid, points)
        if ex.kind in ("compute", "derive", "implement"):
            out.append(_code(_with_solution(eid), _meta(eid, "answer", grade=False, solution=True, locked=False)))
            check = i + 1
            if f'ex.feedback("{eid}")' not in "".join(cells[check]["source"]):
                raise ValueError(f"{eid}: no check cell right after its answer cell")
            skip.add(check)
            out.append(_code(f'ex.feedback("{eid}")\n', _meta(eid, "test", grade=True, solution=False, locked=True,
                                                             points=worth)))
        elif ex.kind == "predict":
            name = prediction_name(eid)
            out.append(_code(_prediction(eid), _meta(eid, "answer", grade=False, solution=True, locked=False)))
            out.append(_code(f'ex.record("{eid}", {name})\n', _meta(eid, "test", grade=True, solution=False,
                                                                   locked=True, points=worth)))
        elif ex.kind == "explain":
            out.append(_markdown(f"**Your answer** (graded by your lecturer, {worth} points):\n\n"
                                 f"### BEGIN SOLUTION\n{ex.solution}\n\nA good answer mentions: "
                                 + "; ".join(f"({k}) {p}" for k, p in enumerate(ex.points, 1))
                                 + ".\n### END SOLUTION\n",
                                 _meta(eid, "answer", grade=True, solution=True, locked=False, points=worth)))
    src["cells"] = out
    src["nbformat_minor"] = 4  # nbgrader's validator rejects the cell ids of 4.5 that nbgrader does not write
    return src


def write(notebooks_dir: Path, out: Path, which, *, name: str | None = None, exercises=None,
          points: dict | None = None) -> list[Path]:
    """Write the nbgrader course folder ``out`` for the notebooks ``which`` ("01" … "05"): one
    assignment per notebook, named after it, or one assignment ``name`` grading ``exercises`` of
    a single notebook."""
    written = []
    for nb_id in which:
        matches = sorted(Path(notebooks_dir).glob(f"{nb_id}_*.ipynb"))
        if len(matches) != 1 or not ids(nb_id):
            raise ValueError(f"no paper notebook {nb_id!r} with exercises; choose from "
                             f"{', '.join(sorted({e.split('.')[0] for e in ids()}))}, all, or "
                             f"{', '.join(WEEKS)}")
        path = matches[0]
        target = Path(out) / "source" / (name or path.stem) / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        nb = json.loads(path.read_text(encoding="utf-8"))
        target.write_text(json.dumps(graded(nb, points, exercises), indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
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
    parser.add_argument("notebooks", nargs="+", help=f'"01" … "05", "all", or a week: {", ".join(WEEKS)}')
    parser.add_argument("--out", default="assignments", help="the course folder (default: assignments/)")
    parser.add_argument("--exercises", help="the exercises to grade, e.g. 1.2,1.4,1.5 (one notebook; default: all)")
    parser.add_argument("--points", help="points per exercise or kind, e.g. 1.4=4,compute=3 (default: "
                                         + ", ".join(f"{k} {v}" for k, v in POINTS.items()) + ")")
    parser.add_argument("--name", help="the assignment's name (default: the notebook's, or the week's)")
    parser.add_argument("--from", dest="source", default=str(Path(__file__).resolve().parents[2] / "notebooks"),
                        help="the folder of the paper notebooks")
    args = parser.parse_args(argv)
    try:
        name, exercises = args.name, None
        if len(args.notebooks) == 1 and args.notebooks[0] in WEEKS:
            if args.exercises:
                raise ValueError(f"{args.notebooks[0]} already chooses its exercises: leave out --exercises")
            exercises = resolve(WEEKS[args.notebooks[0]])
            which, name = [get(exercises[0]).notebook], name or args.notebooks[0]
        elif args.notebooks == ["all"]:
            which = sorted({e.split(".")[0] for e in ids()})
        else:
            which = [re.sub(r"\D", "", n).zfill(2) for n in args.notebooks]
        if args.exercises:
            if len(which) != 1:
                raise ValueError("--exercises chooses exercises of one notebook: name one notebook")
            exercises = resolve(args.exercises.split(","), which[0])
        if name and len(which) != 1:
            raise ValueError("--name names one assignment: name one notebook")
        paths = write(Path(args.source), Path(args.out), which, name=name, exercises=exercises,
                      points=points_of(args.points))
    except ValueError as exc:
        sys.exit(f"[delaylab] {exc}")
    for p in paths:
        print(f"[delaylab] wrote {p}")
    names = " ".join(sorted({p.parent.name for p in paths}))
    print(f"[delaylab] next: cd {args.out} && nbgrader generate_assignment <name> ({names}); after the deadline, "
          f"python3 tasks.py grade <name> --course {args.out} (docs/instructor.md)")


if __name__ == "__main__":
    main()
