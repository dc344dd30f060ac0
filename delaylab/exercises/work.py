"""Each student's record of the workbook: what they answered, first and last, and how it went.

A kernel is not a place to keep a student's work: shut it down (or close the laptop) and every
prediction, explanation and verdict is gone, and a prediction could be made again after seeing
the answer. So every check of an exercise in JupyterLab is written to a file per student, beside
the notebooks, in the folder :data:`FOLDER` (``notebooks/.delaylab-work/alice.json``; git ignores
it), and read back when a notebook starts again (``ex.start("alice")``):

* per exercise, the **first** answer and its verdict (kept for good: a prediction cannot be made
  again), the **last** answer and its verdict (with its message), the number of attempts, how
  many hints were shown, whether and when the solution was shown, when it was first right, and
  the times of the first and last check;
* answers as the student gave them: a predict question's choice, an explanation's text, a number
  (or vector), an implemented function's source code.

The file is JSON, written whole and replaced atomically, under a lock: two notebooks open at once
(two kernels) each add their own exercises. ``python3 tasks.py progress [student]`` and the index
notebook read it (:func:`progress`; ``python -m delaylab.exercises`` is that command: this
module is imported by the package, so it is not run as ``-m …work`` itself).

Nothing is written on the dashboards (visitors share a server, and a public server keeps no
visitor's data), while the tests run the notebooks (``DELAYLAB_EXERCISES_EXPECT``), while
nbgrader grades, outside a kernel, or with ``DELAYLAB_RECORD=off``; ``DELAYLAB_RECORD=<folder>``
chooses the folder.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import math
import os
import re
import threading
from pathlib import Path

from . import instance
from ._core import NOTEBOOKS, expectation, get, ids

#: the folder of the records, inside the workbook's folder (the one holding 00_index.ipynb)
FOLDER = ".delaylab-work"
#: "off", or the folder to keep the records in
RECORD_ENV = "DELAYLAB_RECORD"
#: the notebook that marks the workbook's folder
INDEX = "00_index.ipynb"
#: the longest answer kept (an explanation, a function's source)
MAX_TEXT = 20_000

_lock = threading.Lock()
_cache: dict = {}  # path -> the record as last read or written by this kernel


def _on_dashboard() -> bool:
    return any(k in os.environ for k in ("VOILA_KERNEL_ID", "VOILA_BASE_URL", "VOILA_SERVER_URL"))


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython ships with ipykernel
        return False
    return get_ipython() is not None


def enabled() -> bool:
    """Whether checks are recorded here (see the module's doc)."""
    chosen = os.environ.get(RECORD_ENV, "").strip()
    if chosen.lower() == "off" or expectation() is not None or _on_dashboard():
        return False
    if os.environ.get("NBGRADER_EXECUTION"):
        return False
    return bool(chosen) or _in_kernel()


def folder(start: Path | None = None) -> Path:
    """The records' folder: ``$DELAYLAB_RECORD``, else :data:`FOLDER` in the workbook's folder
    (the first of the working directory and its parents that holds 00_index.ipynb: a notebook
    saved in ``notebooks/mine/`` shares the record of ``notebooks/``), else in the working directory."""
    chosen = os.environ.get(RECORD_ENV, "").strip()
    if chosen and chosen.lower() != "off":
        return Path(chosen).expanduser()
    here = Path.cwd() if start is None else Path(start)
    for d in [here, *here.parents]:
        if (d / INDEX).exists():
            return d / FOLDER
    return here / FOLDER


def file_name(student: str) -> str:
    """The record's file name for a (normalised) student id: readable, and distinct for distinct ids."""
    if not student:
        return "_default.json"
    slug = re.sub(r"[^a-z0-9._-]+", "_", student)[:60].strip("._") or "student"
    if slug != student:  # characters replaced or cut: the id's hash keeps the names apart
        slug += "-" + hashlib.sha256(student.encode()).hexdigest()[:10]
    return f"{slug}.json"


def path(student: str | None = None, where: Path | None = None) -> Path:
    who = instance.current() if student is None else instance.normalise(student)
    return (folder() if where is None else Path(where)) / file_name(who)


def now() -> str:
    return _dt.datetime.now().astimezone().isoformat(timespec="seconds")


def _empty(student: str) -> dict:
    return {"student": student, "version": 1, "exercises": {}}


def read(student: str | None = None, where: Path | None = None) -> dict:
    """The student's record as the file holds it (an empty one if there is none, or it is unreadable)."""
    p = path(student, where)
    who = instance.current() if student is None else instance.normalise(student)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return _empty(who)
    if not isinstance(data, dict) or not isinstance(data.get("exercises"), dict):
        return _empty(who)
    return data


def load(student: str | None = None) -> dict:
    """The current student's record, read again from the file (what :func:`start` does)."""
    if not enabled():
        return _empty(instance.current())
    data = read(student)
    with _lock:
        _cache[str(path(student))] = data
    return data


def entry(eid: str) -> dict:
    """What the record holds about exercise ``eid`` for the current student ({} if nothing)."""
    if not enabled():
        return {}
    key = str(path())
    with _lock:
        data = _cache.get(key)
    if data is None:
        data = load()
    return dict(data["exercises"].get(eid, {}))


@contextlib.contextmanager
def _file_lock(p: Path):
    p.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: one kernel writes at a time in practice
        yield
        return
    with open(p.with_suffix(".lock"), "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _update(eid: str, change) -> dict:
    """Apply ``change(entry)`` to exercise ``eid``'s entry in the file (read again under the lock,
    so that another kernel's entries are kept) and write it; the new entry ({} when disabled)."""
    if not enabled():
        return {}
    p = path()
    try:
        with _lock, _file_lock(p):
            data = read()
            item = data["exercises"].setdefault(eid, {})
            change(item)
            data["student"] = instance.current()
            tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
            os.replace(tmp, p)
            _cache[str(p)] = data
            return dict(item)
    except OSError:  # a read-only folder: the work goes on, unrecorded
        return {}


def answer_value(answer):
    """An answer as JSON: a choice or a text as it is, a number or vector as numbers, a function
    as its source code."""
    if isinstance(answer, str):
        return answer[:MAX_TEXT]
    if callable(answer):
        import inspect

        try:
            return {"function": inspect.getsource(answer)[:MAX_TEXT]}
        except (OSError, TypeError):
            return {"function": getattr(answer, "__name__", "a function")}
    try:
        import numpy as np

        arr = np.asarray(answer, dtype=float)
        if arr.ndim == 0:
            return float(arr) if math.isfinite(float(arr)) else repr(float(arr))
        if arr.size <= 50:
            return [float(v) for v in arr.ravel()]
    except (TypeError, ValueError):
        pass
    from .guard import short

    return {"repr": short(answer, 200)}


def checked(eid: str, answer, status: str, message: str) -> dict:
    """Record a verdict: ``status`` "correct", "wrong" or "unanswered" (not recorded)."""
    if status == "unanswered":
        return entry(eid)
    stamp = now()
    value = answer_value(answer)

    def change(item):
        verdict = {"answer": value, "status": status, "message": message, "at": stamp}
        item.setdefault("first", verdict)  # the first answer stays the first
        item["last"] = verdict
        item["attempts"] = int(item.get("attempts", 0)) + 1
        if status == "correct":
            item.setdefault("right", stamp)  # when it was first right

    return _update(eid, change)


def hints_shown(eid: str, shown: int) -> dict:
    """The student has now seen ``shown`` steps of the hints (the most ever shown is kept)."""
    def change(item):
        item["hints"] = max(int(item.get("hints", 0)), int(shown))

    return _update(eid, change)


def ticked(eid: str, points) -> dict:
    """The points of an explain exercise's model answer the student ticked (their indices, from 0)."""
    chosen = sorted({int(i) for i in points})

    def change(item):
        item["ticked"] = chosen

    return _update(eid, change)


def solution_shown(eid: str) -> dict:
    stamp = now()

    def change(item):
        item.setdefault("solution", stamp)

    return _update(eid, change)


# ------------------------------------------------------------------ progress
def state(item: dict) -> str:
    """"right first" (the first answer was right), "done" (right at a later try), "tried"
    (checked, never right), or "open" (never checked)."""
    first, last = item.get("first"), item.get("last")
    if not first:
        return "open"
    if first.get("status") == "correct":
        return "right first"
    if item.get("right") or (last and last.get("status") == "correct"):
        return "done"
    return "tried"


def progress(student: str | None = None, where: Path | None = None) -> dict:
    """Per notebook ("01" … "05"): {"exercises": n, "right first": …, "done": …, "tried": …,
    "open": …, "hints": …, "solutions": …, "items": {eid: state}} for ``student`` (the current
    one when None), from the record's file."""
    data = read(student, where)
    out = {}
    for eid in ids():
        nb = get(eid).notebook
        row = out.setdefault(nb, {"exercises": 0, "right first": 0, "done": 0, "tried": 0, "open": 0,
                                  "hints": 0, "solutions": 0, "items": {}})
        item = data["exercises"].get(eid, {})
        s = state(item)
        row["exercises"] += 1
        row[s] += 1
        row["hints"] += int(item.get("hints", 0))
        row["solutions"] += bool(item.get("solution"))
        row["items"][eid] = s
    return out


def students(where: Path | None = None) -> list[str]:
    """The students with a record in the folder (their ids as recorded)."""
    d = folder() if where is None else Path(where)
    out = []
    for p in sorted(d.glob("*.json")):
        try:
            out.append(str(json.loads(p.read_text(encoding="utf-8")).get("student", "")))
        except (OSError, ValueError, AttributeError):
            continue
    return out


#: each state's mark and words, in the index's table and in the terminal's
MARKS = {"right first": ("✓", "right at the first try"), "done": ("✓", "right after a retry"),
         "tried": ("✗", "tried, not right yet"), "open": ("·", "open")}
MARKS_LEGEND = "✓ right, ✗ not yet, · open"


def marks(row: dict) -> list[tuple[str, str, str]]:
    """(eid, "2.1", mark) for each exercise of a notebook's row of :func:`progress`, in order."""
    return [(eid, f"{int(get(eid).notebook)}.{i + 1}", MARKS[st][0]) for i, (eid, st) in enumerate(row["items"].items())]


__all__ = ["FOLDER", "RECORD_ENV", "MARKS", "enabled", "folder", "path", "read", "load", "entry", "checked",
           "hints_shown", "ticked", "solution_shown", "state", "progress", "students", "marks"]


# ------------------------------------------------------------------ the terminal: python3 tasks.py progress
COLUMNS = ("exercises", "right first", "done", "tried", "open", "hints", "solutions")
HEADERS = ("exercises", "right at first try", "right later", "tried, not yet right", "open", "hints seen",
           "solutions seen")


def table_text(student: str, where: Path | None = None, titles: dict | None = None) -> str:
    """A student's progress as a plain-text table, one row per notebook, its exercises last
    ("2.1 ✓ 2.2 ✗ 2.3 ·", as the index shows them)."""
    rows = progress(student, where)
    names = [f"{nb} {(titles or {}).get(nb, '')}".strip() for nb in rows]
    width = max([len(n) for n in names] + [8])
    head = " | ".join([f"{'notebook':<{width}}", *HEADERS, f"exercises ({MARKS_LEGEND})"])
    lines = [f"{student or '(default numbers)'}:", head, "-" * len(head)]
    for name, row in zip(names, rows.values()):
        items = " ".join(f"{number} {mark}" for _, number, mark in marks(row))
        lines.append(" | ".join([f"{name:<{width}}", *(f"{row[c]:>{len(h)}}" for c, h in zip(COLUMNS, HEADERS)),
                                 items]))
    return "\n".join(lines)


def main(argv=None) -> int:
    """``python3 tasks.py progress [student]`` (which runs ``python -m delaylab.exercises``)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python3 tasks.py progress",
                                     description="Each student's progress through the exercises, from the records "
                                                 f"in {FOLDER}/ beside the notebooks.")
    parser.add_argument("student", nargs="?", help="a student id (default: every student with a record)")
    parser.add_argument("--folder", default=None, help="the records' folder (default: notebooks/" + FOLDER + ")")
    args = parser.parse_args(argv)
    where = Path(args.folder) if args.folder else folder()
    titles = {nb: title for nb, (_, title) in NOTEBOOKS.items()}
    known = students(where)
    if args.student is not None and not path(args.student, where).exists():
        others = f" Records exist for: {', '.join(s or '(default numbers)' for s in known)}." if known else ""
        print(f"No record for {instance.normalise(args.student)!r} in {where}: nothing checked yet under that name "
              f"(a record appears when an exercise is checked in JupyterLab after ex.start(\"…\") with it).{others}")
        return 0
    who = [args.student] if args.student is not None else known
    if not who:
        print(f"No work recorded yet in {where}: the records appear when exercises are checked in JupyterLab.")
        return 0
    print(f"Records in {where}\n")
    print("\n\n".join(table_text(instance.normalise(s), where, titles) for s in who))
    return 0
