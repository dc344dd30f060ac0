"""``delaylab.exercises`` as a notebook being graded sees it.

The grader mounts this file, read-only, as ``delaylab/exercises/__init__.py`` in the sandbox of
each submission, with ``_grading.json`` beside it (written by the grader: the student's id as the
grader knows it, the exercises of the notebook and that student's numbers). Nothing else of the
exercises package is there: no reference answer, no check, no solution, no registry to call — so
a submission that calls ``ex.solution``, ``ex.get(eid).solution(…)`` or a paper module's
formulas gets an error or a sentence, not an answer, and one that replaces a function here
changes nothing, because nothing is judged in this kernel.

The notebook's cells still run: ``ex.start``, ``ex.given`` and ``ex.params`` give the graded
student's numbers; the check, record, race, predict and explain cells only say that the grader
checks the answers outside the notebook. The grader reads each answer right after its cell ran
through :func:`grading_probe` (a Jupyter ``user_expressions``), as data: a number, an array,
text, or the fact that a function was defined. Whatever the student's code makes that data say,
it is only ever an answer, judged in the grader's own process.

:func:`grading_settle`, called after every cell, waits (a bounded time) for the threads the cell
started — a live panel's background refinement, any non-daemon thread — so that what they print
lands in that cell, never in a later one.

Standard library only (plus IPython, present in any kernel, and :mod:`function_worker`'s
``short``, copied beside it).
"""

from __future__ import annotations

import html
import json
import numbers
import threading
import time
from pathlib import Path

from .function_worker import short  # (copied beside this file in the sandbox)

_FILE = Path(__file__).with_name("_grading.json")
#: the grader's data (outside a sandbox, e.g. imported by a test: no student, no exercise)
_DATA = json.loads(_FILE.read_text(encoding="utf-8")) if _FILE.is_file() else {"student": "", "exercises": {}}

KINDS = ("predict", "compute", "derive", "explain", "implement")
SOLUTIONS_OFF = "Solutions are off: this notebook is being graded."
CHECKED_OUTSIDE = "This answer is checked by the grader, outside the notebook."
_TYPED: list = []
_BEFORE: set = set()


class Note:
    """A sentence in the notebook (HTML in a notebook, the sentence as text)."""

    def __init__(self, text: str):
        self.text = text

    def _repr_html_(self) -> str:
        return (f"<div style='border-left:4px solid #9CA3AF;padding:6px 10px;margin:4px 0'>"
                f"{html.escape(self.text)}</div>")

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


def _exercise(eid) -> dict:
    try:
        return _DATA["exercises"][eid]
    except (KeyError, TypeError):
        raise ValueError(f"no exercise {eid!r} in this notebook") from None


# ------------------------------------------------------------------ what the notebook calls
def start(student=None, graded: bool = False) -> Note:
    _TYPED[:] = [student]
    return Note(f"✎ Graded for {_DATA['student']}: the exercises use that student's numbers.")


def given_text(eid: str, student=None) -> str:
    return _exercise(eid).get("given", "")


def given(eid: str) -> Note:
    return Note(f"Your numbers (for {_DATA['student']}): {given_text(eid)}")


def params(eid: str, student=None) -> dict:
    if student not in (None, _DATA["student"]):
        raise ValueError("while a notebook is graded, only the graded student's numbers are available")
    return dict(_exercise(eid).get("params", {}))


def ids(notebook=None) -> list:
    nb = None if notebook is None else str(notebook).zfill(2)
    return [e for e in _DATA["exercises"] if nb is None or e.split(".")[0] == nb]


def kind(eid: str) -> str:
    return _exercise(eid)["kind"]


def heading(eid: str) -> str:
    return _exercise(eid).get("title", eid)


def feedback(eid, answer=None, *, namespace=None) -> Note:
    return Note(CHECKED_OUTSIDE)


def check(eid, answer=None, student=None) -> Note:
    return Note(CHECKED_OUTSIDE)


def record(eid, prediction=None) -> Note:
    return Note(CHECKED_OUTSIDE)


def predict(eid, choice=None) -> Note:
    return Note(CHECKED_OUTSIDE)


def explain(eid, text=None) -> Note:
    return Note("Explain answers are graded by hand.")


def race(panel, eid, *, label: str = "your policy", namespace=None) -> Note:
    return Note("Not raced while the notebook is graded.")


def table(notebooks=None) -> Note:
    return Note("(the list of exercises)")


def solution(eid, student=None) -> str:
    return SOLUTIONS_OFF


solution_code = explanation = solution


def install_capture() -> bool:
    return False


def __getattr__(name: str):
    raise AttributeError(f"delaylab.exercises.{name} is not available while a notebook is graded")


# ------------------------------------------------------------------ what the grader calls
def _encode(value) -> dict:
    if isinstance(value, (bool,)) or type(value).__name__ == "bool_":
        return {"kind": "bool", "value": bool(value)}
    if isinstance(value, str):
        return {"kind": "str", "value": value[:2000]}
    if isinstance(value, numbers.Real):
        return {"kind": "float", "value": float(value)}
    if callable(value):
        return {"kind": "callable", "type": type(value).__name__}
    if value is None:
        return {"kind": "none"}
    if type(value).__name__ in ("ndarray", "list", "tuple") or hasattr(value, "__array__"):
        import numpy as np

        arr = np.asarray(value)
        if arr.dtype.kind in "biuf" and arr.size <= 10_000:
            return {"kind": "array", "dtype": "bool" if arr.dtype.kind == "b" else "float", "shape": list(arr.shape),
                    "data": arr.astype(float).ravel().tolist()}
        if arr.dtype.kind in "US" and arr.size <= 100:
            return {"kind": "array", "dtype": "str", "shape": list(arr.shape),
                    "data": [str(x)[:200] for x in arr.ravel().tolist()]}
    return {"kind": "other", "type": type(value).__name__[:60], "repr": short(value, 80)}


def grading_probe(name: str) -> str:
    """The value the notebook's variable ``name`` holds now, as JSON (see the module's docstring)."""
    from IPython import get_ipython

    namespace = get_ipython().user_ns
    if name not in namespace:
        return json.dumps({"status": "missing"})
    value = namespace[name]
    if value is Ellipsis:
        return json.dumps({"status": "ellipsis"})
    try:
        return json.dumps({"status": "ok", **_encode(value)})
    except Exception as exc:  # noqa: BLE001 - an object that cannot be read
        return json.dumps({"status": "ok", "kind": "other", "type": type(value).__name__[:60],
                           "repr": f"<unreadable: {type(exc).__name__}>"})


def grading_typed() -> str:
    """The student id the notebook's ``ex.start`` cell typed (JSON; null if it never ran)."""
    return json.dumps(None if not _TYPED or _TYPED[0] is None else str(_TYPED[0])[:200])


def _before_cell(*_args) -> None:
    _BEFORE.clear()
    _BEFORE.update(t.ident for t in threading.enumerate())


def grading_settle(seconds: float = 20.0) -> int:
    """Wait, up to ``seconds`` in all, for the computations started during the cell that just ran —
    delaylab's background threads (named ``delaylab-…``, e.g. a live panel's refinement) and any
    non-daemon thread — and return how many are still running. (Daemon threads that serve for the
    kernel's whole life, such as a progress bar's monitor, are not waited for.)"""
    deadline = time.monotonic() + seconds
    started = [t for t in threading.enumerate() if t.ident not in _BEFORE and t is not threading.current_thread()
               and (not t.daemon or t.name.startswith("delaylab-"))]
    for t in started:
        t.join(max(0.0, deadline - time.monotonic()))
    return sum(t.is_alive() for t in started)


def _hook() -> None:
    try:
        from IPython import get_ipython

        ip = get_ipython()
        if ip is not None:
            ip.events.register("pre_run_cell", _before_cell)
            _before_cell()
    except Exception:  # noqa: BLE001 - outside a kernel: nothing to wait for
        pass


if _FILE.is_file():
    _hook()
