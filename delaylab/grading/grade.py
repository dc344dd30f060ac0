"""Grade an assignment's submissions: ``python3 tasks.py grade ASSIGNMENT --course DIR``.

For every submission in ``DIR/submitted/<student>/ASSIGNMENT/`` (nbgrader's layout), for every
notebook of the assignment (as ``nbgrader generate_assignment`` recorded it in the gradebook):

1. nbgrader's own sanitising steps, which run no code: outputs cleared, the locked cells and the
   cells a student deleted put back from the gradebook's copy of the source;
2. the notebook runs top to bottom in a sandboxed kernel (:mod:`delaylab.grading.run`,
   :mod:`delaylab.grading.sandbox`): a throwaway copy of the submission folder, an unprivileged
   user, no network, a memory cap, a time limit per cell and per submission; its
   ``delaylab.exercises`` holds no reference answer (:mod:`delaylab.grading.graded_kernel`);
3. each answer leaves the kernel as data and is judged here, for the student whose folder it is,
   against delaylab's reference (:mod:`delaylab.grading.judge`); implemented functions run in a
   sandbox of their own, without delaylab;
4. the points go into the course's gradebook (nbgrader's, so formgrader shows them and the explain
   answers wait there to be graded by hand), the run copy into ``autograded/``, the student's page
   into ``feedback/`` (:mod:`delaylab.grading.feedback_page`), and one row per student and exercise
   into ``DIR/grades-ASSIGNMENT.csv``: points, and the reason for each lost point.

Nothing a submission does can reach the gradebook, the configuration or another submission: none
of them is in its sandbox, and the grader writes them only after the notebook ran, from the data
it judged.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import hashlib
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import delaylab

from ..exercises import get, ids, params
from ..exercises import given_text
from ..exercises.assignment import prediction_name
from ..exercises.ui import heading
from . import feedback_page
from .judge import REASONS, SandboxedFunction, Verdict, judge
from .run import CellRun, one_line, probe, run_notebook
from .sandbox import Limits, Sandbox, Unavailable

#: the columns of ``grades-ASSIGNMENT.csv``
COLUMNS = ("student", "exercise", "id", "points", "max_points", "reason", "detail")
#: largest submitted notebook read (bytes) and largest submission folder copied
MAX_NOTEBOOK, MAX_FOLDER = 20 << 20, 200 << 20


class GradingError(Exception):
    """The assignment cannot be graded as asked (the message says why); nothing was written."""


@dataclass
class Graded:
    """A graded exercise of a notebook: its id, the gradebook cells that hold its points and its
    answer, and its points."""

    eid: str
    grade_id: str
    answer_id: str
    max_points: float


@dataclass
class Plan:
    """A notebook of the assignment: its graded exercises, its statements, its exercises."""

    name: str
    graded: list
    statements: dict
    exercises: list
    points: float = 0.0


@dataclass
class Outcome:
    """What grading one notebook of one submission gave."""

    verdicts: list = field(default_factory=list)
    notebook: object = None
    run: object = None
    typed: str | None = None
    notes: list = field(default_factory=list)


class Grader:
    """Grades one assignment of one course folder (see the module's docstring)."""

    def __init__(self, course, assignment: str, *, cell_timeout: float = 120.0, timeout: float = 900.0,
                 jobs: int = 2, limits: Limits | None = None, solutions: bool = False, sandbox: Sandbox | None = None,
                 say=print):
        from nbgrader.api import Gradebook, MissingEntry
        from nbgrader.coursedir import CourseDirectory
        from traitlets.config.loader import PyFileConfigLoader

        self.course = Path(course).resolve()
        if not (self.course / "nbgrader_config.py").is_file():
            raise GradingError(f"{self.course} is not a course folder: it has no nbgrader_config.py "
                               "(python3 tasks.py assignment writes one)")
        self.assignment, self.say = assignment, say
        self.cell_timeout, self.timeout, self.jobs, self.solutions = cell_timeout, timeout, max(1, jobs), solutions
        self.config = PyFileConfigLoader("nbgrader_config.py", path=str(self.course)).load_config()
        self.coursedir = CourseDirectory(config=self.config)
        self.coursedir.root = str(self.course)
        self.db_url = self.coursedir.db_url
        with Gradebook(self.db_url, course_id=self.coursedir.course_id) as gb:
            try:
                notebooks = [n.name for n in gb.find_assignment(assignment).notebooks]
            except MissingEntry:
                raise GradingError(f"the gradebook of {self.course} has no assignment {assignment!r}: run `nbgrader "
                                   f"generate_assignment {assignment}` in the course folder first") from None
            self.plans = [self._plan(gb, name) for name in notebooks]
        self.package = Path(delaylab.__file__).resolve().parent
        self.sandbox = sandbox or Sandbox.for_this_machine(limits)
        visible = [*self.sandbox.python_paths(), str(self.package)]
        inside = [p for p in visible if _contains(p, self.course)]
        if inside:
            raise GradingError(f"the course folder {self.course} is inside {inside[0]}, which the sandbox shows to "
                               "student code: move the course folder elsewhere")

    # ---------------------------------------------------------------- the assignment
    def _source(self, name: str):
        import nbformat

        path = Path(self.coursedir.format_path(self.coursedir.source_directory, ".", self.assignment)) / f"{name}.ipynb"
        if not path.is_file():
            raise GradingError(f"the source notebook {path} is missing")
        return nbformat.read(path, as_version=4)

    def _plan(self, gb, name: str) -> Plan:
        nb = self._source(name)
        graded, answers, statements, exercises = [], {}, {}, []
        last_heading = None
        for cell in nb.cells:
            ours = cell.metadata.get("delaylab", {})
            grader = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "markdown" and "✎ Exercise" in cell.source.split("\n", 1)[0]:
                last_heading = cell.source
            eid = ours.get("exercise")
            if eid and eid not in exercises:
                exercises.append(eid)
                if last_heading is not None:
                    statements[eid] = last_heading.split("\n", 1)[1].strip() if "\n" in last_heading else ""
            if not eid or not grader.get("grade_id"):
                continue
            if ours.get("role") == "answer":
                answers[eid] = grader["grade_id"]
            if grader.get("grade"):
                max_points = gb.find_grade_cell(grader["grade_id"], name, self.assignment).max_score
                graded.append(Graded(eid, grader["grade_id"], "", float(max_points)))
        for g in graded:
            g.answer_id = answers.get(g.eid, g.grade_id)
        return Plan(name, graded, statements, exercises, sum(g.max_points for g in graded))

    def submissions(self) -> list[str]:
        """The students with a submission of this assignment (folder names, sorted)."""
        root = Path(self.coursedir.format_path(self.coursedir.submitted_directory, ".", ".")).resolve()
        if not root.is_dir():
            return []
        return sorted(p.name for p in root.iterdir() if not p.name.startswith(".") and (p / self.assignment).is_dir())

    # ---------------------------------------------------------------- running
    def grade(self, students=None) -> list:
        """Grade the submissions of ``students`` (all when None); the CSV's rows."""
        everyone = self.submissions()
        chosen = everyone if not students else [s for s in everyone if s in set(students)]
        unknown = sorted(set(students or ()) - set(everyone))
        if unknown:
            raise GradingError(f"no submission of {self.assignment} from {', '.join(unknown)} in "
                               f"{self.course / 'submitted'}")
        started = time.monotonic()
        self.say(f"{self.sandbox.describe()}; {self.cell_timeout:g} s per cell, {self.timeout:g} s per submission")
        short = "/tmp" if len(tempfile.gettempdir()) > 20 and os.path.isdir("/tmp") else None
        self.base = Path(tempfile.mkdtemp(prefix="dlg-", dir=short))
        try:
            t0 = time.monotonic()
            self.numba = self._prebuild()
            self._smoke()
            t1 = time.monotonic()
            self.sweeps = self._warm()
            self.say(f"ready: delaylab's kernels in {t1 - t0:.0f} s, the notebook's figures in "
                     f"{time.monotonic() - t1:.0f} s" + ("" if self.sweeps is not None else " (not kept: each "
                                                          "submission computes them)"))
            rows = []
            lock = threading.Lock()
            with ThreadPoolExecutor(max_workers=self.jobs) as pool:
                futures = {pool.submit(self._execute, s): s for s in chosen}
                for future in as_completed(futures):
                    student = futures[future]
                    outcomes = future.result()
                    with lock:
                        rows += self._record(student, outcomes)
        finally:
            if os.environ.get("DELAYLAB_GRADING_KEEP") != "1":
                shutil.rmtree(self.base, ignore_errors=True)
        path = self.write_table(rows, [s for s in chosen])
        took = time.monotonic() - started
        self.say(f"graded {len(chosen)} submission(s) of {self.assignment} in {took:.0f} s; table: {path}")
        return rows

    def _env(self, workdir: Path) -> dict:
        return {"NUMBA_CACHE_DIR": str(workdir / "numba"), "IPYTHONDIR": str(workdir / "home" / ".ipython"),
                "JUPYTER_CONFIG_DIR": str(workdir / "home" / ".jupyter"),
                "JUPYTER_DATA_DIR": str(workdir / "home" / ".local"), "JUPYTER_RUNTIME_DIR": str(workdir / "run"),
                "MPLCONFIGDIR": str(workdir / "tmp"), "DELAYLAB_SOLUTIONS": "off", "DELAYLAB_CACHE": str(workdir / "cache"),
                "DELAYLAB_DEFAULT_CACHE": str(workdir / "sweeps"),
                "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1",
                "PYTHONDONTWRITEBYTECODE": "1", "PYDEVD_DISABLE_FILE_VALIDATION": "1"}

    def _prebuild(self) -> Path | None:
        """delaylab's compiled kernels (numba's cache), built once in a sandbox instead of in every
        submission's kernel (about 20 s each). Kept for the next runs in the grader's cache folder,
        under a key of delaylab's code, numba's and Python's versions and the sandbox's user."""
        import numba

        from ..cache import code_version, default_folder

        key = hashlib.sha256(f"{code_version()}|{numba.__version__}|{sys.version}|{self.sandbox.uid}|"
                             f"{self.sandbox.python}".encode()).hexdigest()[:16]
        kept = default_folder().parent / "delaylab-grading" / f"numba-{key}"
        if kept.is_dir():
            return kept
        work = self.sandbox.folder(self.base / "prebuilt")
        for sub in ("home", "tmp", "cache", "run"):
            (work / sub).mkdir()
        self.sandbox.give(work)
        done = self.sandbox.run([self.sandbox.python, "-m", "delaylab.kernels"], workdir=work, env=self._env(work),
                                read_only=[self.package], timeout=900)
        if done.returncode != 0:
            self.say(f"(could not build delaylab's kernels ahead: each submission builds them; "
                     f"{one_line(done.stderr[-300:])})")
            return None
        try:
            kept.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=kept.parent, prefix=".tmp-"))
            shutil.copytree(work / "numba", tmp / "numba")
            os.replace(tmp / "numba", kept)
            shutil.rmtree(tmp, ignore_errors=True)
            for old in kept.parent.glob("numba-*"):  # built for another version of delaylab, a day ago or more
                if old != kept and time.time() - old.stat().st_mtime > 86400:
                    shutil.rmtree(old, ignore_errors=True)
            return kept
        except OSError:
            return work / "numba"

    def _prepare(self, folder: Path | None, overlay: Path):
        def prepare(workdir: Path) -> None:
            self.sandbox.folder(workdir)
            if folder is not None:
                shutil.copytree(folder, workdir / "notebook",
                                ignore=shutil.ignore_patterns(*self.coursedir.ignore, "*.ipynb"))
            else:
                (workdir / "notebook").mkdir()
            for sub in ("home", "run", "cache"):
                (workdir / sub).mkdir(exist_ok=True)
            (workdir / "tmp").mkdir(exist_ok=True)
            if self.numba is not None:
                shutil.copytree(self.numba, workdir / "numba")
            if getattr(self, "sweeps", None) is not None:
                shutil.copytree(self.sweeps, workdir / "sweeps")
            self.sandbox.give(workdir)
        return prepare

    def _overlay(self, private: Path, student: str, plan: Plan | None) -> Path:
        """The ``delaylab/exercises`` a kernel being graded sees (graded_kernel, and its data)."""
        overlay = private / "exercises"
        overlay.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(__file__).with_name("graded_kernel.py"), overlay / "__init__.py")
        shutil.copyfile(Path(__file__).with_name("function_worker.py"), overlay / "function_worker.py")
        data = {"student": student, "exercises": {}}
        for eid in (plan.exercises if plan else []):
            ex = get(eid)
            data["exercises"][eid] = {"kind": ex.kind, "title": heading(eid),
                                      "given": given_text(eid, student=student) if ex.parameterised else "",
                                      "params": params(eid, student)}
        (overlay / "_grading.json").write_text(json.dumps(data, default=_jsonable), encoding="utf-8")
        for p in [overlay, *overlay.iterdir()]:
            os.chmod(p, 0o755 if p.is_dir() else 0o644)
        return overlay

    def _smoke(self) -> None:
        """One kernel in the sandbox, before any submission: a machine where it cannot run grades nobody."""
        private = self.base / "smoke"
        private.mkdir()
        overlay = self._overlay(private, "smoke", None)
        run = run_notebook([(0, "import delaylab\nfrom delaylab import exercises as ex\nex.start('')")],
                           sandbox=self.sandbox, private=private, prepare=self._prepare(None, overlay),
                           env_for=self._env, read_only=[self.package],
                           overlays={self.package / "exercises": overlay}, cell_timeout=120, timeout=180)
        cell = run.cells[0]
        if run.failed_to_start or cell.status != "ok":
            raise GradingError("a kernel could not run in the sandbox, so nothing was graded: "
                               f"{run.failed_to_start or cell.status + ' ' + cell.error}")

    def _warm(self) -> Path | None:
        """The notebooks' figures, computed once from the assignment's source notebooks (the lecturer's
        own, in a sandbox too) into a sweep cache; each submission's kernel reads a private copy
        (``DELAYLAB_DEFAULT_CACHE``): the same results, since a run depends only on its seed and
        parameters, in about half the time. None (each kernel computes them) if that fails."""
        private = self.base / "warm"
        private.mkdir()
        overlay = self._overlay(private, "", None)
        work = private / "run"
        self._prepare(None, overlay)(work)
        sources = []
        for plan in self.plans:
            nb = self._source(plan.name)
            sources.append([c.source for c in nb.cells if c.cell_type == "code"])
        (work / "notebook" / "cells.json").write_text(json.dumps(sources), encoding="utf-8")
        self.sandbox.give(work)
        done = self.sandbox.run([self.sandbox.python, "-c", _WARM], workdir=work, env=self._env(work),
                                read_only=[self.package], overlays={self.package / "exercises": overlay},
                                cwd=work / "notebook", timeout=max(self.timeout, 300))
        cache = work / "sweeps"
        if done.returncode != 0 or not cache.is_dir() or not any(cache.iterdir()):
            return None
        return cache

    def _execute(self, student: str) -> list:
        """Run every notebook of one submission (in a worker thread); the judging is :meth:`_record`'s."""
        folder = Path(self.coursedir.format_path(self.coursedir.submitted_directory, student, self.assignment))
        outcomes = []
        for plan in self.plans:
            out = Outcome()
            outcomes.append((plan, out))
            path = folder / f"{plan.name}.ipynb"
            if not path.is_file():
                out.notes.append(f"No notebook {plan.name}.ipynb in the submission.")
                continue
            try:
                out.notebook = self._sanitised(path, plan, student)
            except Exception as exc:  # noqa: BLE001 - a notebook that nbgrader cannot read
                out.notes.append(one_line(f"The notebook could not be read: {type(exc).__name__}: {exc}"))
                continue
            if _size(folder) > MAX_FOLDER:
                out.notes.append(f"The submission folder is larger than {MAX_FOLDER >> 20} MiB: it was not run.")
                continue
            # short paths: the kernel's sockets are files in here, and a socket's path holds at most 107 bytes
            (self.base / "s").mkdir(exist_ok=True)
            private = Path(tempfile.mkdtemp(prefix=f"{_safe(student)[:16]}-", dir=self.base / "s")) / f"n{len(outcomes)}"
            private.mkdir()
            overlay = self._overlay(private, student, plan)
            codes = [(i, c.source) for i, c in enumerate(out.notebook.cells) if c.cell_type == "code"]
            probes = {}
            for g in plan.graded:
                index = self._index(out.notebook, g.answer_id)
                ex = get(g.eid)
                if index is not None and ex.kind != "explain":
                    name = prediction_name(g.eid) if ex.kind == "predict" else ex.answer_name
                    probes[index] = {"answer": probe(name)}
            out.run = run_notebook(codes, sandbox=self.sandbox, private=private, prepare=self._prepare(folder, overlay),
                                   env_for=self._env, read_only=[self.package],
                                   overlays={self.package / "exercises": overlay}, probes=probes,
                                   cell_timeout=self.cell_timeout, timeout=self.timeout)
            out.typed = out.run.typed
            out.notes += out.run.notes
            if out.run.failed_to_start:
                out.notes.append(one_line(f"The notebook's kernel did not start: {out.run.failed_to_start}"))
        return outcomes

    def _sanitised(self, path: Path, plan: Plan, student: str):
        """The submitted notebook after nbgrader's sanitising preprocessors (no code runs)."""
        import nbformat
        from nbgrader.preprocessors import (CheckCellMetadata, ClearOutput, DeduplicateIds, OverwriteCells,
                                            OverwriteKernelspec)

        if path.stat().st_size > MAX_NOTEBOOK:
            raise ValueError(f"it is larger than {MAX_NOTEBOOK >> 20} MiB")
        nb = nbformat.read(path, as_version=4)
        resources = {"nbgrader": {"notebook": plan.name, "assignment": self.assignment, "student": student,
                                  "db_url": self.db_url}}
        for step in (ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells, CheckCellMetadata):
            nb, resources = step(config=self.config).preprocess(nb, resources)
        return nb

    @staticmethod
    def _index(nb, grade_id: str):
        for i, cell in enumerate(nb.cells):
            if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
                return i
        return None

    # ---------------------------------------------------------------- judging and writing
    def _functions(self, private: Path):
        hidden = [self.package] if any(_contains(p, self.package) for p in self.sandbox.python_paths()) else []

        def make(source: str, name: str):
            folder = private / "functions"
            folder.mkdir(parents=True, exist_ok=True)
            env = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
            return SandboxedFunction(self.sandbox, folder, source, name, env=env, hidden=hidden)
        return make

    def _verdicts(self, plan: Plan, out: Outcome, student: str) -> list:
        from nbgrader.utils import compute_checksum

        verdicts = []
        for g in plan.graded:
            ex = get(g.eid)
            if out.notebook is None or out.run is None and ex.kind != "explain":
                reason = "missing" if out.notebook is None and any("No notebook" in n for n in out.notes) else "error"
                message = out.notes[-1] if out.notes else "The notebook was not run."
                verdicts.append(Verdict(g.eid, 0.0, g.max_points, reason, message))
                continue
            index = self._index(out.notebook, g.answer_id)
            cell = out.notebook.cells[index] if index is not None else None
            if ex.kind == "explain":
                unchanged = cell is None or cell.metadata.get("nbgrader", {}).get("checksum") == compute_checksum(cell)
                verdicts.append(Verdict(g.eid, 0.0, g.max_points, "missing", "No answer was written.") if unchanged else
                                Verdict(g.eid, None, g.max_points, "manual", "Graded by hand by your lecturer.",
                                        cell.source.strip()))
                continue
            run = out.run.cells.get(index) if index is not None else None
            if index is not None and run is None:
                run = CellRun("not run", "the notebook did not run")
            if out.run.failed_to_start and run is not None:
                run = CellRun("not run", "the kernel did not start")
            verdicts.append(judge(g.eid, cell=run, probe=run.probes.get("answer") if run else None,
                                  source=cell.source if cell is not None else "", student=student, typed=out.typed,
                                  functions=self._functions(self.base / "judge" / _safe(student)),
                                  max_points=g.max_points))
        return verdicts

    def _record(self, student: str, outcomes: list) -> list:
        rows = []
        stamp = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
        total = got = 0.0
        seconds = 0.0
        for plan, out in outcomes:
            verdicts = self._verdicts(plan, out, student)
            by_hand = self._write_gradebook(student, plan, out, verdicts)
            self._write_files(student, plan, out, verdicts, stamp)
            for v in verdicts:
                points, detail = v.points, v.message
                if by_hand.get(v.eid) is not None:  # formgrader's score wins, as in nbgrader's own totals
                    points, detail = by_hand[v.eid], f"{detail} (score set by hand in formgrader: {by_hand[v.eid]:g})"
                rows.append({"student": student, "exercise": _number(v.eid), "id": v.eid,
                             "points": "" if points is None else f"{points:g}", "max_points": f"{v.max_points:g}",
                             "reason": v.reason, "detail": detail})
                total += v.max_points if v.reason != "manual" else 0
                got += v.points or 0
            seconds += out.run.seconds if out.run else 0
        lost = ", ".join(f"{r['exercise']} {r['reason']}" for r in rows if r["reason"] not in ("right", "manual"))
        self.say(f"{student}: {got:g}/{total:g}" + (f" (lost: {lost})" if lost else "") + f" — ran in {seconds:.0f} s")
        return rows

    def _write_gradebook(self, student: str, plan: Plan, out: Outcome, verdicts: list) -> dict:
        """The verdicts' points into the gradebook (a score given by hand stays); the scores given by hand."""
        from nbgrader.api import Gradebook
        from nbgrader.preprocessors import AssignLatePenalties

        folder = self.coursedir.format_path(self.coursedir.submitted_directory, student, self.assignment)
        timestamp = self.coursedir.get_existing_timestamp(folder)
        with warnings.catch_warnings(), Gradebook(self.db_url, course_id=self.coursedir.course_id) as gb:
            # nbgrader's update_or_create_submission makes SQLAlchemy warn that objects are "not in
            # session" (nbgrader autograde prints the same, several per submission): harmless, and
            # they would bury the log's real messages
            warnings.filterwarnings("ignore", message=".*not in session.*")
            gb.update_or_create_student(student)
            if timestamp:
                gb.update_or_create_submission(self.assignment, student, timestamp=timestamp)
            else:
                gb.update_or_create_submission(self.assignment, student)
            by_id = {g.eid: g for g in plan.graded}
            by_hand = {}
            for v in verdicts:
                g = by_id[v.eid]
                grade = gb.find_grade(g.grade_id, plan.name, self.assignment, student)
                by_hand[v.eid] = grade.manual_score
                grade.auto_score = v.points
                grade.needs_manual_grade = grade.manual_score is not None or v.points is None
                try:
                    comment = gb.find_comment(g.answer_id, plan.name, self.assignment, student)
                    comment.auto_comment = f"{v.reason}: {v.message}"
                except Exception:  # noqa: BLE001 - nbgrader keeps comments for solution cells only
                    pass
            gb.db.commit()
        if out.notebook is not None:
            resources = {"nbgrader": {"notebook": plan.name, "assignment": self.assignment, "student": student,
                                      "db_url": self.db_url}}
            AssignLatePenalties(config=self.config).preprocess(out.notebook, resources)
        return by_hand

    def _write_files(self, student: str, plan: Plan, out: Outcome, verdicts: list, stamp: str) -> None:
        import nbformat

        submitted = Path(self.coursedir.format_path(self.coursedir.submitted_directory, student, self.assignment))
        for kind, name in (("autograded", f"{plan.name}.ipynb"), ("feedback", f"{plan.name}.html")):
            folder = Path(self.coursedir.format_path(getattr(self.coursedir, f"{kind}_directory"), student,
                                                     self.assignment))
            folder.mkdir(parents=True, exist_ok=True)
            for extra in ("timestamp.txt", "submission_secret.txt"):
                if (submitted / extra).is_file():
                    shutil.copyfile(submitted / extra, folder / extra)
            if kind == "autograded":
                if out.notebook is None:
                    continue
                nbformat.write(self._graded_copy(out, plan, verdicts), folder / name)
            else:
                statements = {v.eid: plan.statements.get(v.eid, "") for v in verdicts}
                page = feedback_page.page(assignment=self.assignment, notebook=f"{plan.name}.ipynb", student=student,
                                          verdicts=verdicts, statements=statements, typed=out.typed, notes=out.notes,
                                          graded_at=stamp, solutions=self.solutions)
                (folder / name).write_text(page, encoding="utf-8")

    def _graded_copy(self, out: Outcome, plan: Plan, verdicts: list):
        """The notebook as it ran (outputs cut short), each test cell showing its verdict."""
        import copy

        import nbformat

        nb = copy.deepcopy(out.notebook)
        count = 0
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            run = out.run.cells.get(i) if out.run else None
            count += 1
            cell.execution_count = count if run is not None and run.status not in ("not run", "skipped") else None
            cell.outputs = [nbformat.from_dict(o) for o in (run.outputs if run else [])]
            if run is not None and run.status not in ("ok",):
                cell.outputs.append(nbformat.v4.new_output("stream", name="stderr",
                                                           text=f"[grader: {run.status}: {run.error}]\n"))
        by_grade = {g.grade_id: v for g, v in zip(plan.graded, verdicts)}
        for cell in nb.cells:
            v = by_grade.get(cell.metadata.get("nbgrader", {}).get("grade_id"))
            if v is not None and cell.cell_type == "code":
                text = f"{'—' if v.points is None else f'{v.points:g}'} of {v.max_points:g} points, {v.reason}: {v.message}"
                cell.outputs = [nbformat.v4.new_output("display_data", data={"text/plain": text})]
        return nb

    # ---------------------------------------------------------------- the table
    def table_path(self) -> Path:
        return self.course / f"grades-{self.assignment}.csv"

    def write_table(self, rows: list, graded_now: list) -> Path:
        """``grades-ASSIGNMENT.csv``: the rows of this run, and those of students not graded this time."""
        path = self.table_path()
        keep = []
        if path.is_file():
            with open(path, newline="", encoding="utf-8") as f:
                keep = [r for r in csv.DictReader(f) if r.get("student") not in set(graded_now)]
        order = {eid: i for i, eid in enumerate(g.eid for p in self.plans for g in p.graded)}
        rows = sorted(keep + rows, key=lambda r: (r["student"], order.get(r["id"], 0)))
        tmp = path.with_suffix(".csv.tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()
            w.writerows({k: r.get(k, "") for k in COLUMNS} for r in rows)
        os.replace(tmp, path)
        self._print_table(rows)
        return path

    def _print_table(self, rows: list) -> None:
        eids = [g.eid for p in self.plans for g in p.graded]
        by = {}
        for r in rows:
            by.setdefault(r["student"], {})[r["id"]] = r
        width = max([len("student")] + [len(s) for s in by])
        head = f"{'student':<{width}}  " + "  ".join(f"{_number(e):>12}" for e in eids) + "   total"
        self.say(head)
        for student, cells in sorted(by.items()):
            line, got, out_of = [], 0.0, 0.0
            for e in eids:
                r = cells.get(e)
                if r is None:
                    line.append(f"{'':>12}")
                    continue
                pts = r["points"] or "—"
                line.append(f"{pts + ('' if r['reason'] == 'right' else ' ' + r['reason']):>12}")
                got += float(r["points"] or 0)
                out_of += float(r["max_points"]) if r["reason"] != "manual" else 0
            self.say(f"{student:<{width}}  " + "  ".join(line) + f"   {got:g}/{out_of:g}")


#: run in a sandbox by :meth:`Grader._warm`: every code cell of the source notebooks, in plain Python
_WARM = """
import json, warnings
warnings.simplefilter("ignore")
for cells in json.load(open("cells.json")):
    namespace = {"__name__": "__main__"}
    for code in cells:
        try:
            exec(compile(code, "<cell>", "exec"), namespace)
        except BaseException:
            pass
"""


def _number(eid: str) -> str:
    nb = eid.split(".")[0]
    return f"{int(nb)}.{ids(nb).index(eid) + 1}"


def _jsonable(x):
    return x.tolist() if hasattr(x, "tolist") else str(x)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80] or "_"


def _contains(folder, path) -> bool:
    folder, path = os.path.normpath(str(folder)), os.path.normpath(str(path))
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python3 tasks.py grade",
                                     description="Grade the submissions of an assignment in sandboxes, into the course's "
                                                 "gradebook, and write DIR/grades-ASSIGNMENT.csv.")
    parser.add_argument("assignment", help="the assignment's name, as in DIR/source/ (e.g. week1)")
    parser.add_argument("--course", required=True, help="the nbgrader course folder")
    parser.add_argument("--student", action="append", help="grade only this student (repeatable)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="submissions run at once (default: 2, or 1 on one core)")
    parser.add_argument("--cell-timeout", type=float, default=120.0, help="seconds per cell (default 120)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per submission (default 900)")
    parser.add_argument("--memory", default="4G", help="memory cap of each sandboxed process (default 4G)")
    parser.add_argument("--solutions", action="store_true",
                        help="show, on each student's feedback page, the worked answer for their numbers")
    args = parser.parse_args(argv)
    from ..summary import parse_bytes

    try:
        limits = Limits(memory=parse_bytes("--memory", args.memory),
                        cpu=int(max(args.timeout, args.cell_timeout) * 2 + 60))
        grader = Grader(args.course, args.assignment, cell_timeout=args.cell_timeout, timeout=args.timeout,
                        jobs=args.jobs, limits=limits, solutions=args.solutions,
                        say=lambda m: print(f"[delaylab] {m}", flush=True))
        grader.grade(args.student)
    except (GradingError, Unavailable, ValueError) as exc:
        sys.exit(f"[delaylab] {exc}")


__all__ = ["Grader", "GradingError", "COLUMNS", "REASONS", "main"]

if __name__ == "__main__":
    main()
