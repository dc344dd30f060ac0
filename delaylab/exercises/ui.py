"""What the student sees of an exercise: their numbers, predict and explain widgets, feedback boxes,
hints in steps, "show solution", and the student's policy racing the paper's in a live panel.
Everything here works in JupyterLab and on the Voila dashboards, and never shows a traceback to a
student.

**Work that outlasts the kernel.** Each check is written to the student's record (:mod:`.work`,
a file beside the notebooks) and read back when the notebook runs again: a predict question
shows the first answer (which stays the first) and the last verdict, an explanation its text, a
check cell the last verdict. And each output is also **ordinary HTML**: a widget's output carries
its state as ``text/html`` (:class:`Live`, kept current with ``update_display``), which is what
a notebook saved from JupyterLab keeps (delaylab's server extension drops the widget views on save,
:mod:`delaylab.serve.saved`), so a notebook reopened without a kernel shows the answers and
verdicts, never "Error displaying widget: model not found".

Answers are taken when their cell runs. A notebook's answer cell assigns a variable (``n_tilde =
…``) or defines a function (``def d_klucb_index(…)``); right after any cell that assigns such a
name, its value is kept (:func:`capture`, an IPython ``post_run_cell`` hook), and the check cell
grades that value: a later cell that reuses the name cannot change what is graded, and a value
the notebook computed elsewhere is never graded in place of the student's. If the answer cell's
last run set nothing (it printed the value, or stopped with an error), nothing is graded: no
value of an earlier run stands in for it. An answer cell run before the exercises were imported
is found in the kernel's history when they are.
"""

from __future__ import annotations

import ast
import copy
import html
import os
import uuid

import ipywidgets as W

from ..viz.display import Displayable
from . import instance, work
from .texts import to_html, to_plain
from ._core import (NOTEBOOKS, SOLUTIONS_ENV, SOLUTIONS_OFF, graded, mark_graded, solutions_off,  # noqa: F401  (re-exported)
                    solutions_shown)
from ._core import (Feedback, check, expectation, get, given, ids, not_answered, params, reference_code,
                    reference_explanation, right, wanted, wrong)

_COLOURS = {"correct": ("#E8F5E9", "#1B5E20", "✓"), "wrong": ("#FFF3E0", "#8A3B00", "✗"),
            "unanswered": ("#F3F4F6", "#374151", "…")}
_KIND_TEXT = {"predict": "predict", "compute": "compute", "derive": "derive", "explain": "explain why",
              "implement": "implement"}
def stars(n: int) -> str:
    return "★" * n + "☆" * (3 - n)


def feedback_html(fb: Feedback, extra: str = "", lead: str = "") -> str:
    """The verdict as a coloured box (green: right, orange: wrong, grey: not answered yet); ``lead``
    (HTML) goes before its message, ``extra`` (HTML) after it."""
    bg, fg, mark = _COLOURS[fb.status]
    return (f"<div style='background:{bg};color:{fg};border-left:4px solid {fg};padding:6px 10px;"
            f"margin:4px 0;font-size:14px;line-height:1.4'><b>{mark}</b> {lead}{to_html(fb.message)}{extra}</div>")


def _enforce(eid: str, fb: Feedback) -> None:
    """Under the tests (``DELAYLAB_EXERCISES_EXPECT``), a check that is not as expected fails the cell."""
    want = expectation()
    if want is not None and fb.status != want:
        raise AssertionError(f"exercise {eid}: expected {want}, got {fb.status}: {to_plain(fb.message)}")


def _box(text: str, colour: str = "#374151", background: str = "#F8F9FB") -> str:
    return (f"<div style='background:{background};color:{colour};border-left:4px solid #9CA3AF;padding:6px 10px;"
            f"margin:4px 0;font-size:14px;line-height:1.45'>{text}</div>")


def _when(stamp: str | None) -> str:
    """A recorded time as a student reads it ("on 27 Nov at 16:05")."""
    import datetime as dt

    try:
        t = dt.datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return ""
    return f"on {t.day} {t:%b} at {t:%H:%M}"


def _html_output(text: str):
    """``text`` as an ordinary HTML output (no widget: it needs no kernel to show)."""
    from IPython.display import HTML

    return HTML(text)


class Live(Displayable):
    """An exercise's output: a widget while the kernel runs, and the same state as ordinary HTML
    (``text/html`` in the same output) for a notebook saved and reopened without a kernel.

    A subclass builds ``self.widget`` once and gives :meth:`static_html`; it calls
    :meth:`refresh` after each change, which replaces the HTML of every output it was displayed in.
    With :attr:`widget` None, the output is the HTML alone."""

    widget = None
    display_id: str | None = None

    def static_html(self) -> str:
        raise NotImplementedError

    def _bundle(self) -> dict:
        data = {"text/html": self.static_html(), "text/plain": repr(self)}
        if self.widget is not None:  # (ipywidgets 8's view of a model, as its own display sends it)
            data["application/vnd.jupyter.widget-view+json"] = {"version_major": 2, "version_minor": 0,
                                                                 "model_id": self.widget.model_id}
        return data

    def _ipython_display_(self):
        from IPython.display import display

        self.display_id = self.display_id or uuid.uuid4().hex
        display(self._bundle(), raw=True, display_id=self.display_id)

    def refresh(self) -> None:
        """Update the outputs showing this object (their HTML; the widget updates itself)."""
        if self.display_id is None:
            return
        try:
            from IPython.display import update_display

            update_display(self._bundle(), raw=True, display_id=self.display_id)
        except Exception:  # noqa: BLE001 - outside a kernel: nothing to update
            pass


# ------------------------------------------------------------------ the student
class Started:
    """What :func:`start` shows: whose numbers the exercises use (``typed``: the id the cell typed,
    when a graded release uses the hub's user name instead)."""

    def __init__(self, student: str, graded: bool = False, typed: str = ""):
        self.student, self.graded, self.typed = student, graded, typed

    def html(self) -> str:
        if self.graded and self.typed:
            return _box(f"✎ Graded assignment: you typed <b>{html.escape(self.typed)}</b>, but you are logged in as "
                        f"<b>{html.escape(self.student)}</b>, the id your course's grader knows. The exercises use "
                        f"the numbers of {html.escape(self.student)}, and you are graded against them, whatever is "
                        "typed: leave the quotes empty to make this note go away.", "#8A3B00", "#FFF3E0")
        if self.graded:
            if not self.student:
                return _box("✎ <b>Graded assignment: put your student id</b> — exactly as your course's grader knows "
                            "it — between the quotes of <code>ex.start(\"…\", graded=True)</code> and run the cell "
                            "again. Your numbers, and your grade, depend on it.", "#8A3B00", "#FFF3E0")
            return _box(f"✎ Graded assignment for <b>{html.escape(self.student)}</b>: the exercises use your own "
                        "numbers, and are graded against them. Hints are on; solutions are off until the deadline.")
        if self.student:
            return _box(f"✎ The exercises of this notebook use the numbers of <b>{html.escape(self.student)}</b>: "
                        "your neighbours get other numbers, and your answers are checked against yours.")
        return _box("✎ The exercises use the <b>default numbers</b> (those of the solved copy). For your own "
                    "numbers, put your name or student id between the quotes of <code>ex.start(\"…\")</code> "
                    "and run the cell again.")

    def _ipython_display_(self):
        from IPython.display import display

        display(_html_output(self.html()))

    def __repr__(self) -> str:
        return f"exercises for {self.student!r}" if self.student else "exercises with the default numbers"


def start(student: str | None = None, graded: bool = False) -> Started:
    """Set the student whose numbers every compute and derive exercise uses (a name or a student
    id; stable across runs and machines). Without one, ``$DELAYLAB_STUDENT``, else the default
    instance (the numbers of the notebook's solved copy).

    ``graded=True`` (the first cell of a graded release, ``python3 tasks.py assignment``): no
    solution is shown anywhere, predictions are recorded without a verdict, on a JupyterHub the
    hub's user name is the student id whatever is typed (and the cell says so when the typed id
    differs), and implement answers are checked from their own cell, as the grader will
    (:mod:`delaylab.grading`, which uses the submission's owner's numbers)."""
    install_capture()
    if graded:
        mark_graded()
    who = instance.set_current(student, graded=graded)
    typed = instance.normalise(student)
    started = Started(who, graded=graded, typed=typed if graded and typed and typed != who else "")
    work.load()  # the student's record: what they answered before (on this machine)
    return started


class Given:
    """The student's numbers for one exercise, shown above its answer cell."""

    def __init__(self, eid: str):
        self.eid, self.text = eid, given(eid)

    def _ipython_display_(self):
        from IPython.display import display

        who = instance.current()
        owner = f"for {html.escape(who)}" if who else "default numbers"
        wanted = precision(self.eid)
        display(_html_output(_box(f"<b>Your numbers</b> ({owner}): {to_html(self.text)}"
                                  + (f" <i>Precision wanted: {html.escape(wanted)}.</i>" if wanted else ""),
                                  "#1F2937", "#EEF2FF")))

    def __repr__(self) -> str:
        wanted = precision(self.eid)
        return f"Your numbers: {to_plain(self.text)}" + (f" Precision wanted: {wanted}." if wanted else "")


def precision(eid: str) -> str:
    """The precision a numeric exercise's check wants, in words ("" for the other exercises)."""
    tol = get(eid).tolerance
    return wanted(*tol) if tol else ""


def show_given(eid: str) -> Given:
    """The student's own numbers for a compute or derive exercise (``ex.given("01.n-tilde")``)."""
    ex = get(eid)
    if not ex.parameterised:
        raise ValueError(f"{eid} is a {ex.kind} exercise: it has no numbers of its own")
    return Given(eid)


# ------------------------------------------------------------------ taking answers when their cell runs
_MISSING = object()
_CAPTURED: dict[str, object] = {}
_SOURCES: dict[str, str] = {}
_HOOKED: list = []
_CELLS: dict[str, set] = {}  # a front end's cell id -> the answer names that cell has set


class NotSet:
    """What an answer cell's last run left: nothing (``why`` says what happened)."""

    def __init__(self, why: str):
        self.why = why


def _answer_names() -> set[str]:
    return {get(e).answer_name for e in ids() if get(e).answer_name}


def assigned_names(source: str) -> set[str]:
    """The names a cell assigns or defines at its top level (``x = …``, ``x: float = …``, ``def x``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out.add(n.id)
    return out


def _snapshot(value):
    if callable(value):
        return value
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - a student's odd object: keep it as it is
        return value


def capture(source: str, namespace: dict, cell_id: str | None = None, failed: bool = False) -> None:
    """Keep the answers a cell of ``source`` just set in ``namespace`` (and the cell's source). A cell that set an answer
    before (the same ``cell_id``, which JupyterLab sends) and now set none, or stopped with an
    error, leaves no answer: a value from its earlier run is not graded."""
    names = assigned_names(source) & _answer_names()
    before = _CELLS.get(cell_id, set()) if cell_id else set()
    if failed:
        for name in names | before:
            _CAPTURED[name] = NotSet("error")
        return
    for name in names:
        if name in namespace:
            _CAPTURED[name] = _snapshot(namespace[name])
            _SOURCES[name] = source  # (a graded release checks a function rebuilt from its cell: as_graded)
    for name in before - names:
        _CAPTURED[name] = NotSet("unset")
    if cell_id and names:
        _CELLS[cell_id] = set(names)


def _after_cell(result) -> None:
    try:
        ip = _ipython()
        if ip is None:
            return
        info = getattr(result, "info", None)
        failed = getattr(result, "error_in_exec", None) is not None or bool(getattr(result, "error_before_exec", None))
        capture(getattr(info, "raw_cell", "") or "", ip.user_ns, getattr(info, "cell_id", None), failed=failed)
    except Exception:  # noqa: BLE001 - never break the student's kernel
        pass


def _from_history(ip) -> None:
    """The answers set by cells run before the exercises were imported (in this kernel): each
    answer name's value, if the last cell of the history that assigned it is the last to have run."""
    try:
        history = list(ip.history_manager.input_hist_raw)
    except Exception:  # noqa: BLE001 - no history: nothing to recover
        return
    names = _answer_names()
    for source in history:
        for name in assigned_names(source or "") & names:
            if name in ip.user_ns:
                _CAPTURED[name] = _snapshot(ip.user_ns[name])


def _ipython():
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython ships with ipykernel
        return None
    return get_ipython()


def install_capture() -> bool:
    """Register the answer hook in the running IPython kernel (once); False outside IPython."""
    ip = _ipython()
    if ip is None:
        return False
    if not _HOOKED or _HOOKED[0] is not ip:
        ip.events.register("post_run_cell", _after_cell)
        _HOOKED[:] = [ip]
        _from_history(ip)
    return True


def answer_of(eid: str, namespace: dict | None = None):
    """The student's answer to a compute, derive or implement exercise: the value its answer cell
    set when it last ran; from ``namespace`` when one is given (tests, plain Python)."""
    name = get(eid).answer_name
    if namespace is not None:
        return namespace.get(name, _MISSING)
    if _HOOKED:
        return _CAPTURED.get(name, _MISSING)
    ip = _ipython()
    return _MISSING if ip is None else ip.user_ns.get(name, _MISSING)


def on_dashboard() -> bool:
    """True in a Voila dashboard's kernel (Voila gives its kernels VOILA_* variables)."""
    return any(k in os.environ for k in ("VOILA_KERNEL_ID", "VOILA_BASE_URL", "VOILA_SERVER_URL"))


_ON_DASHBOARD = ("on this dashboard the code is hidden: compute, derive and implement exercises are answered in "
                 "JupyterLab (open this notebook with `python3 tasks.py lab`).")


# ------------------------------------------------------------------ hints in steps, then the solution
class Steps:
    """One button that reveals the hints one by one, then the solution for the student's numbers."""

    def __init__(self, eid: str, shown: int = 0, changed=None):
        ex = get(eid)
        self.eid = eid
        self.steps = [("where to look", ex.hints[0])] + [("the method", h) for h in ex.hints[1:]]
        self.shown = max(0, min(int(shown), len(self.steps)))  # (restored: the hints seen before, not the solution)
        self.changed = changed
        self.out = W.HTML(self._html())
        self.button = W.Button(layout=W.Layout(width="max-content"), icon="lightbulb-o")
        self.button.on_click(lambda _: self.next())
        self._label()

    def _label(self) -> None:
        n = len(self.steps)
        if self.shown < n:
            self.button.description = f"hint {self.shown + 1} of {n}: {self.steps[self.shown][0]}"
        elif self.shown == n:
            self.button.description = "show the solution"
            self.button.icon = "eye"
        else:
            self.button.description = "hide hints and solution"
            self.button.icon = "eye-slash"

    def next(self) -> None:
        n = len(self.steps)
        if self.shown > n:
            self.shown, self.out.value, self.button.icon = 0, "", "lightbulb-o"
        else:
            self.shown += 1
            self.out.value = self._html()
            if self.shown <= n:
                work.hints_shown(self.eid, self.shown)
            elif solutions_shown(self.eid):
                work.solution_shown(self.eid)
        self._label()
        if self.changed is not None:
            self.changed()

    def _html(self) -> str:
        parts = [_box(f"<b>Hint {i + 1}</b> ({what}): {to_html(text)}")
                 for i, (what, text) in enumerate(self.steps[: self.shown])]
        if self.shown > len(self.steps):
            parts.append(solution_html(self.eid))
        return "".join(parts)

    @property
    def widget(self) -> W.Widget:
        return W.VBox([self.button, self.out])


def solution_html(eid: str) -> str:
    """The solution for the current student: the answer cell filled in, and why."""
    if not solutions_shown(eid):
        return _box(html.escape(solutions_off(eid)), "#8A3B00", "#FFF3E0")
    code = reference_code(eid)
    why = reference_explanation(eid)
    return (f"<pre style='background:#F8F8F8;padding:8px;white-space:pre-wrap;margin:4px 0'>{html.escape(code)}</pre>"
            + (f"<div style='margin:4px 0 8px 0'>{to_html(why)}</div>" if why else ""))


# ------------------------------------------------------------------ check cells
def feedback(eid: str, answer=_MISSING, *, namespace: dict | None = None):
    """The check cell of a compute, derive or implement exercise: the verdict, then hints in steps
    and the solution. The answer is the one its cell set when it last ran, unless given."""
    ex = get(eid)
    if ex.kind in ("predict", "explain"):
        raise ValueError(f"{eid} is a {ex.kind} exercise: its widget checks itself (ex.{ex.kind}(\"{eid}\"))")
    if answer is _MISSING:
        answer = answer_of(eid, namespace)
        if ex.kind == "implement" and graded() and callable(answer) and ex.answer_name in _SOURCES:
            answer = as_graded(eid, _SOURCES[ex.answer_name])
    if isinstance(answer, NotSet):
        fb = not_answered(f"the answer cell's last run stopped with an error, so it set no {ex.answer_name}: fix it "
                          "and run it again, then run this cell." if answer.why == "error" else
                          f"the answer cell's last run did not set {ex.answer_name} (printing a value does not set "
                          f"it): write `{ex.answer_name} = …` and run the cell, then run this cell.")
    elif answer is _MISSING:
        fb = not_answered(_ON_DASHBOARD if on_dashboard() else
                          f"set {ex.answer_name} in the answer cell above and run it, then run this cell again.")
    elif isinstance(answer, Feedback):
        fb = answer
    else:
        fb = check(eid, answer, hint=False)  # (the hints come in steps, from the button under the verdict)
        if not fb.answered and on_dashboard():
            fb = not_answered(_ON_DASHBOARD)
        else:
            work.checked(eid, answer, fb.status, fb.message)
    _enforce(eid, fb)
    return Checked(eid, fb)


def as_graded(eid: str, source: str):
    """An implement answer as the grader sees it: the function rebuilt from its cell's ``source``
    alone, with numpy and math and without delaylab (:func:`delaylab.grading.function_worker.build`);
    a Feedback if the cell cannot give one."""
    from ..grading.function_worker import BuildError, build
    from .guard import StudentError, call

    def rebuilt():
        try:
            return build(source, get(eid).answer_name)
        except BuildError as exc:
            return exc

    try:
        fn = call(rebuilt, name="answer cell", seconds=10.0)
    except StudentError as exc:
        fn = exc
    if isinstance(fn, Exception):
        return wrong(f"{str(fn)[0].upper()}{str(fn)[1:]}.")
    return fn


def _earlier(eid: str, fb: Feedback) -> dict | None:
    """For an answer not checked in this kernel: the record's last check of it (None if none)."""
    last = work.entry(eid).get("last") if fb.status == "unanswered" else None
    return last if last and last.get("status") in ("correct", "wrong") else None


class Checked(Live):
    """A checked answer as displayed in a notebook: a coloured box, then (until the answer is right)
    hints in steps and the solution. Not checked in this kernel, it shows the record's last check
    (coloured as that verdict), and no hint button if that check was right."""

    def __init__(self, eid: str, fb: Feedback):
        self.eid, self.feedback = eid, fb
        self.correct, self.message = fb.correct, fb.message
        self.earlier = _earlier(eid, fb)
        self.steps = None
        right_before = self.earlier is not None and self.earlier["status"] == "correct"
        if not fb.correct and not right_before:  # a right answer needs no hint: the button goes
            self.steps = Steps(eid, shown=work.entry(eid).get("hints", 0), changed=self.refresh)
            self.widget = W.VBox([W.HTML(self.verdict_html()), self.steps.widget])

    def verdict_html(self) -> str:
        last = self.earlier
        if last is None:
            return feedback_html(self.feedback)
        now = self.feedback.message.removeprefix("Not answered yet: ")
        said = "" if last["status"] == "correct" else " (not right yet)"
        return feedback_html(Feedback(last["status"] == "correct", str(last.get("message", ""))),
                             lead=f"Your last check, {html.escape(_when(last.get('at')))}{said}: ",
                             extra=f"<div style='margin-top:4px;font-size:13px'>In this kernel: {to_html(now)}</div>")

    def static_html(self) -> str:
        return self.verdict_html() + (self.steps.out.value if self.steps is not None else "")

    def __repr__(self) -> str:
        return f"{self.feedback.status}: {to_plain(self.feedback.message)}"


# ------------------------------------------------------------------ predict
_FIRST: dict[str, str] = {}


class Predict(Live):
    """A predict question as a widget: the choices, a "check" button, the verdict and the reasons.

    The student's first answer is kept and shown next to every later verdict. ``choice``
    preselects an answer and checks it at once (the solved notebooks of the tests).
    """

    def __init__(self, eid: str, choice=None):
        ex = get(eid)
        if ex.kind != "predict":
            raise ValueError(f"{eid} is a {ex.kind} exercise, not a predict question")
        self.eid, self.ex = eid, ex
        options = [(label, key) for key, label in ex.choices.items()]
        self.choices = W.RadioButtons(options=options, value=None, layout=W.Layout(width="auto"))
        self.button = W.Button(description="check", button_style="primary", icon="check",
                               layout=W.Layout(width="120px"))
        self.out = W.HTML(feedback_html(not_answered("choose an answer, then click check.")))
        self.feedback = check(eid, None)
        self.button.on_click(lambda _: self.check())
        self.widget = W.VBox([self.choices, self.button, self.out])
        if choice is not None:
            self.choices.value = choice
            self.check()
        else:
            self._restore()
        _enforce(eid, self.feedback)

    def _restore(self) -> None:
        """The record's first answer (it stays the first) and last verdict, from an earlier session."""
        item = work.entry(self.eid)
        first, last = item.get("first"), item.get("last")
        if not first or first.get("answer") not in self.ex.choices:
            return
        _FIRST.setdefault(self.eid, first["answer"])
        if last and last.get("answer") in self.ex.choices:
            self.choices.value = last["answer"]
            self.feedback = check(self.eid, last["answer"])
            when = _when(last.get("at"))
            again = (f"<div style='margin-top:4px;font-size:13px'>Your last check, {html.escape(when)}.</div>"
                     if when and int(item.get("attempts", 1)) > 1 else "")
            self.out.value = feedback_html(self.feedback, again + self._first_note())

    def _first_note(self) -> str:
        """The first answer, its verdict and when it was given (the record's time of it)."""
        first = _FIRST[self.eid]
        label = html.escape(self.ex.choices.get(first, first))
        verdict = "right" if first == self.ex.solution else "not it"
        recorded = work.entry(self.eid).get("first") or {}
        when = _when(recorded.get("at")) if recorded.get("answer") == first else ""
        return (f"<div style='margin-top:4px;font-size:13px'>Your first answer: “{label}” ({verdict})"
                f"{', ' + html.escape(when) if when else ''}.</div>")

    def check(self) -> Feedback:
        fb = check(self.eid, self.choices.value)
        if not fb.answered:
            fb = not_answered("choose an answer, then click check.")
            self.feedback, self.out.value = fb, feedback_html(fb)
            self.refresh()
            return fb
        item = work.checked(self.eid, self.choices.value, fb.status, fb.message)
        recorded = (item.get("first") or {}).get("answer")
        _FIRST.setdefault(self.eid, recorded if recorded in self.ex.choices else self.choices.value)
        self.feedback = fb
        self.out.value = feedback_html(fb, self._first_note())
        self.refresh()
        return fb

    @property
    def first(self):
        """The student's first checked choice (None before any check)."""
        return _FIRST.get(self.eid)

    def static_html(self) -> str:
        chosen = self.choices.value
        marks = "".join(f"<li>{'◉' if key == chosen else '○'} {html.escape(label)}</li>"
                        for key, label in self.ex.choices.items())
        return (f"<ul style='list-style:none;padding-left:4px;margin:4px 0'>{marks}</ul>" + self.out.value)

    def __repr__(self) -> str:
        return f"{self.feedback.status}: {to_plain(self.feedback.message)}"


def predict(eid: str, choice=None) -> Predict:
    """The widget of a predict question (works on the dashboards too)."""
    return Predict(eid, choice)


# ------------------------------------------------------------------ graded releases
class Recorded:
    """A prediction recorded in a graded release: no verdict before the deadline."""

    def __init__(self, eid: str, fb: Feedback):
        self.eid, self.feedback = eid, fb

    def _ipython_display_(self):
        from IPython.display import display

        display(_html_output(feedback_html(self.feedback)))

    def __repr__(self) -> str:
        return to_plain(self.feedback.message)


def record(eid: str, prediction) -> Recorded:
    """The check cell of a predict question in a graded release: the choice is recorded, checked for
    being one of the choices, and graded later (autograding re-runs the notebook)."""
    ex = get(eid)
    if prediction is _MISSING or prediction is Ellipsis or prediction is None:
        fb = not_answered("set your prediction in the cell above (one of the strings it lists) and run it.")
    elif not isinstance(prediction, str) or prediction not in ex.choices:
        fb = wrong(f"Your prediction should be one of {', '.join(repr(k) for k in ex.choices)}; got "
                   f"{prediction!r}.")
    else:
        fb = Feedback(False, f"Your prediction is recorded: “{ex.choices[prediction]}”. It is graded after the "
                             "deadline; then move the slider and see.", answered=False)
    return Recorded(eid, fb)


# ------------------------------------------------------------------ explain
_WRITTEN: dict[str, str] = {}


class Explain(Live):
    """An "explain why" question: the student writes, then compares with the model answer and ticks
    off the points it mentions (self-assessed; nothing is graded). ``text`` fills the box and
    compares at once (the solved notebooks)."""

    def __init__(self, eid: str, text: str | None = None):
        ex = get(eid)
        if ex.kind != "explain":
            raise ValueError(f"{eid} is a {ex.kind} exercise, not an explain question")
        self.eid, self.ex = eid, ex
        self.text = W.Textarea(value=_WRITTEN.get(eid, ""), placeholder="Your explanation, in a sentence or two…",
                               layout=W.Layout(width="95%", height="90px"))
        self.button = W.Button(description="compare with the model answer", button_style="primary", icon="check",
                               layout=W.Layout(width="auto"))
        self.out = W.HTML(feedback_html(not_answered("write your explanation, then compare.")))
        self.ticks = W.VBox([])
        self.feedback = not_answered()
        self.button.on_click(lambda _: self.compare())
        self.widget = W.VBox([self.text, self.button, self.out, self.ticks])
        if text is not None:
            self.text.value = text
            self.compare()
        else:
            self._restore()
        _enforce(eid, self.feedback)

    def _restore(self) -> None:
        """The record's first explanation and the last one compared, from an earlier session."""
        item = work.entry(self.eid)
        first, last = item.get("first"), item.get("last")
        if not (first and isinstance(first.get("answer"), str)):
            return
        _WRITTEN.setdefault(self.eid, first["answer"])
        if last and isinstance(last.get("answer"), str):
            self.text.value = last["answer"]
            self._show(check(self.eid, last["answer"]), record=False)

    def compare(self) -> Feedback:
        fb = check(self.eid, self.text.value)
        return self._show(fb)

    def _show(self, fb: Feedback, record: bool = True) -> Feedback:
        self.feedback = fb
        if not fb.answered or not fb.correct:
            self.out.value = feedback_html(fb)
            self.refresh()
            return fb
        if record:
            item = work.checked(self.eid, self.text.value, fb.status, fb.message)
            recorded = (item.get("first") or {}).get("answer")
            _WRITTEN.setdefault(self.eid, recorded if isinstance(recorded, str) else self.text.value)
        _WRITTEN.setdefault(self.eid, self.text.value)
        if solutions_shown(self.eid):
            first = _WRITTEN[self.eid]
            mine = (_box(f"<b>Your first answer</b> (before this one): {html.escape(first)}")
                    if first.strip() != self.text.value.strip() else "")
            self.out.value = (mine
                              + _box(f"<b>A model answer:</b> {to_html(self.ex.solution)}", "#1B5E20", "#E8F5E9")
                              + _box("<b>Does your answer mention…</b> (tick what it does; nothing is graded)"))
            self._checklist()
        else:
            self.out.value = _box("Your answer is written down. " + html.escape(solutions_off(self.eid)))
        self.refresh()
        return fb

    def _checklist(self) -> None:
        """One checkbox per point of the model answer, ticked as the student left it (the record
        keeps the ticks). The point is an HTML widget beside its box, so that its formulas show as
        mathematics (a checkbox's own label drops MathML); the box is named by the point in plain
        text (its ``title``, which is also its tooltip)."""
        if self.ticks.children:
            return
        ticked = set(work.entry(self.eid).get("ticked", []))
        rows = []
        for i, point in enumerate(self.ex.points):
            box = W.Checkbox(value=i in ticked, description="", indent=False, tooltip=to_plain(point),
                             layout=W.Layout(width="2em", min_width="2em"))
            box.observe(lambda _change: self._ticked(), names="value")
            rows.append(W.HBox([box, W.HTML(to_html(point), layout=W.Layout(width="auto"))],
                               layout=W.Layout(align_items="center")))
        self.ticks.children = rows

    def ticked(self) -> list[int]:
        """The points the student ticked (their indices, from 0)."""
        return [i for i, row in enumerate(self.ticks.children) if row.children[0].value]

    def _ticked(self) -> None:
        work.ticked(self.eid, self.ticked())
        self.refresh()

    def static_html(self) -> str:
        text = self.text.value.strip()
        mine = _box(f"<b>Your explanation:</b> {html.escape(text)}") if text else ""
        ticked = set(self.ticked())
        points = "".join(f"<li>{'☑' if i in ticked else '☐'} {to_html(p)}</li>" for i, p in enumerate(self.ex.points)
                         if self.ticks.children)
        checklist = (f"<ul style='list-style:none;padding-left:4px;margin:4px 0' aria-label='the points your "
                     f"answer mentions: {len(ticked)} of {len(self.ex.points)} ticked'>{points}</ul>")
        return mine + self.out.value + (checklist if points else "")

    def __repr__(self) -> str:
        return f"{self.feedback.status}: {to_plain(self.feedback.message)}"


def explain(eid: str, text: str | None = None) -> Explain:
    """The widget of an "explain why" question (works on the dashboards too)."""
    return Explain(eid, text)


# ------------------------------------------------------------------ racing the student's policy
class Raced(Live):
    """The race cell's verdict: the student's policy now races in a live panel (or why not). Its
    comparison is made again at every update of the panel (a slider move, the background
    computation's last stage), and its output updated: the two numbers it compares are always
    the panel's current runs and horizon, those of its status line."""

    def __init__(self, eid: str, fb: Feedback, panel=None, update=None):
        self.eid, self.feedback, self.panel = eid, fb, panel
        self.correct, self.message = fb.correct, fb.message
        self._update = update
        if update is not None:
            panel.raced.listen(self._redraw)

    def _redraw(self) -> None:
        fb = self._update()
        if fb is None or fb.message == self.feedback.message:
            return
        self.feedback, self.correct, self.message = fb, fb.correct, fb.message
        self.refresh()

    def static_html(self) -> str:
        return feedback_html(self.feedback)

    def __repr__(self) -> str:
        return f"{self.feedback.status}: {to_plain(self.feedback.message)}"


def race(panel, eid: str, *, label: str = "your policy", namespace: dict | None = None) -> Raced:
    """Race the function of an *implement* exercise as a policy in a live ``panel``.

    The function is the one its answer cell defined. Not written yet, not a function, or failing
    in the first simulation: a sentence, and the panel is left without the curve. Otherwise the
    panel draws "your policy" next to the paper's algorithms on the same draws, and keeps doing so
    after every slider move; the verdict says whether the function passed its check, and compares
    the two final regrets. Under the tests, the race must run when the notebook is solved and say
    "not answered yet" as shipped.
    """
    ex = get(eid)
    if ex.policy is None:
        raise ValueError(f"{eid} is not an implement exercise with a policy to race")
    fn = answer_of(eid, namespace)
    update = None
    if isinstance(fn, NotSet):
        fb = not_answered(f"the cell of {ex.answer_name} did not define it on its last run: fix it and run it, then "
                          "run this cell again to race it.")
    elif fn is _MISSING or fn is Ellipsis:
        fb = not_answered(_ON_DASHBOARD if on_dashboard() else
                          f"write {ex.answer_name} and run its cell, then run this cell again to race it.")
    elif not callable(fn):
        fb = wrong(f"{ex.answer_name} should be a function (def …); got {type(fn).__name__}.")
    else:
        checked = check(eid, fn)
        if not checked.answered:
            fb = not_answered(f"{ex.answer_name} still returns `...`: write its body, run its cell, then run this "
                              f"cell again.")
        else:
            fb = _race(panel, ex, fn, label, checked)
            if panel.race_result is not None:
                update = lambda: _verdict(panel, ex, label, checked)  # noqa: E731
    _enforce(eid, fb)
    return Raced(eid, fb, panel, update)


def _race(panel, ex, fn, label, checked: Feedback) -> Feedback:
    import inspect

    accepted = inspect.signature(ex.policy).parameters

    def make(**context):  # the panel's context (delay law, window, …): what the exercise's policy takes
        return ex.policy(fn, **{k: v for k, v in context.items() if k in accepted})

    panel.race(make, label=label)
    if panel.race_result is None:  # not drawn: the panel is left as it was, the reason said here
        message = panel.race_message
        panel.race(None)
        return wrong(f"{message[0].upper()}{message[1:]}")
    return _verdict(panel, ex, label, checked)


def _verdict(panel, ex, label, checked: Feedback) -> Feedback | None:
    """The race's verdict on what the panel shows now: the two final mean regrets of the same runs
    at the same horizon (those of the status line), or, while the panel still computes in the
    background, a promise of them. None if the panel no longer races this policy."""
    result = panel.race_result
    if result is None:
        return None
    name = result.names[0]
    T, R = int(result.times[-1]), int(result.regret[name].shape[0])
    yours = float(result.regret[name][:, -1].mean())
    partial = "first_answer" in result.notes or getattr(panel.budget, "partial", None) is not None
    runs = "the one run" if R == 1 else f"all {R:,} runs"
    if partial:
        compare = (f"{label} is drawn on the same first runs as the other curves; the comparison of the final "
                   "regrets follows when the panel has computed every run (the status line says when)")
    else:
        compare = f"at T = {T:,}, over {runs}: {label} {yours:,.1f}"
        if ex.race_against:
            x, y = panel.regret.curve(ex.race_against)
            if len(y) and int(round(float(x[-1]))) == T:
                compare += f", {ex.race_against} {float(y[-1]):,.1f} (the same draws; lower is better)"
    if checked.correct:
        return right(f"Your policy races in the live panel (curve “{label}”): {compare}. Move a slider: it "
                     f"reruns with the others.")
    return wrong(f"Your policy races in the live panel (curve “{label}”), but it does not pass its check yet, so "
                 f"it is not {ex.race_against or 'the paper’s algorithm'}: {checked.message} Here: {compare}.")


# ------------------------------------------------------------------ the list of exercises


def heading(eid: str) -> str:
    """The exercise's heading as the notebooks write it: ``✎ Exercise 1.2 (derive, ★★☆): title``."""
    ex = get(eid)
    number = ids(ex.notebook).index(eid) + 1
    return f"✎ Exercise {int(ex.notebook)}.{number} ({_KIND_TEXT[ex.kind]}, {stars(ex.stars)}): {ex.title}"


def table_html(notebooks=None) -> str:
    """An HTML table of the exercises, notebook by notebook (number, kind, difficulty, title), with links."""
    rows = []
    for nb in notebooks or sorted({e.split(".")[0] for e in ids()}):
        eids = ids(nb)
        if not eids:
            continue
        file, title = NOTEBOOKS.get(nb, (None, f"notebook {nb}"))
        name = f"<a href='{html.escape(file)}'>{nb} · {html.escape(title)}</a>" if file else html.escape(title)
        for i, eid in enumerate(eids):
            ex = get(eid)
            rows.append(f"<tr><td>{name if i == 0 else ''}</td><td>{int(nb)}.{i + 1}</td>"
                        f"<td>{html.escape(_KIND_TEXT[ex.kind])}</td><td aria-label='difficulty {ex.stars} of 3'>"
                        f"{stars(ex.stars)}</td><td>{html.escape(ex.title)}</td></tr>")
    return ("<table style='border-collapse:collapse;font-size:14px'><thead><tr>"
            "<th style='text-align:left'>notebook</th><th style='text-align:left'>exercise</th>"
            "<th style='text-align:left'>kind</th><th style='text-align:left'>difficulty</th>"
            "<th style='text-align:left'>title</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def table(notebooks=None) -> W.HTML:
    """The exercises of the workbook as a table widget (works on the Voila dashboards)."""
    return W.HTML(table_html(notebooks))


def progress_html(student: str | None = None) -> str:
    """The student's progress, notebook by notebook, from the record (:mod:`.work`): how many
    exercises were right at the first try, right later, tried, and still open, and each exercise's
    mark. Without ``student``: the current one if ``ex.start`` named one, else every student with a
    record here."""
    if student is not None:
        who = [instance.normalise(student)]
    elif instance.current():
        who = [instance.current()]
    else:
        who = work.students() or [""]
    parts = []
    for s in who:
        rows = work.progress(s)
        body = []
        for nb, row in rows.items():
            file, title = NOTEBOOKS.get(nb, (None, f"notebook {nb}"))
            name = f"<a href='{html.escape(file)}'>{nb} · {html.escape(title)}</a>" if file else html.escape(title)
            marks = " ".join(f"<span title='{html.escape(eid)}: {work.MARKS[row['items'][eid]][1]}'>{number}&nbsp;"
                             f"{mark}</span>" for eid, number, mark in work.marks(row))
            body.append(f"<tr><td>{name}</td><td>{row['right first']}</td><td>{row['done']}</td><td>{row['tried']}</td>"
                        f"<td>{row['open']} of {row['exercises']}</td><td>{row['hints']}</td>"
                        f"<td>{row['solutions']}</td><td>{marks}</td></tr>")
        head = ("<tr>" + "".join(f"<th style='text-align:left'>{h}</th>" for h in (
            "notebook", "right at the first try", "right later", "tried, not yet right", "open", "hints seen",
            "solutions seen", f"exercises ({work.MARKS_LEGEND})")) + "</tr>")
        label = html.escape(s) if s else "the default numbers"
        parts.append(f"<div style='margin:6px 0 2px 0'><b>Progress of {label}</b> (kept beside the notebooks, in "
                     f"<code>{work.FOLDER}/</code>; in a terminal: <code>python3 tasks.py progress</code>)</div>"
                     "<table style='border-collapse:collapse;font-size:14px'><thead>" + head + "</thead><tbody>"
                     + "".join(body) + "</tbody></table>")
    if not work.enabled():
        parts.append("<div style='font-size:13px'>(Nothing is recorded here: on a dashboard, or with "
                     f"{work.RECORD_ENV}=off.)</div>")
    return "".join(parts)


class Progress(Live):
    """The index notebook's progress table: ordinary HTML (it needs no kernel once saved)."""

    def __init__(self, student: str | None = None):
        self.student = student
        self.html = progress_html(student)

    def static_html(self) -> str:
        return self.html

    def __repr__(self) -> str:
        who = [self.student] if self.student is not None else (work.students() or [""])
        return "\n\n".join(work.table_text(instance.normalise(s), titles={nb: t for nb, (_, t) in NOTEBOOKS.items()})
                           for s in who)


def progress(student: str | None = None) -> Progress:
    """The student's progress through the exercises, per notebook (the index notebook shows it)."""
    return Progress(student)


__all__ = ["Started", "start", "show_given", "feedback", "predict", "explain", "race", "table", "heading", "progress",
           "capture", "install_capture", "answer_of", "params", "right", "record", "as_graded"]
