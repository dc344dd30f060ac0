"""What the student sees of an exercise: their numbers, predict and explain widgets, feedback boxes,
hints in steps, "show solution", and the student's policy racing the paper's in a live panel.
Everything here works in JupyterLab and on the Voila dashboards (widgets only), and never shows a
traceback to a student.

Answers are taken when their cell runs. A notebook's answer cell assigns a variable (``n_tilde =
…``) or defines a function (``def d_klucb_index(…)``); right after any cell that assigns such a
name, its value is kept (:func:`capture`, an IPython ``post_run_cell`` hook), and the check cell
grades that value: a later cell that reuses the name cannot change what is graded, and a value
the notebook computed elsewhere is never graded in place of the student's.
"""

from __future__ import annotations

import ast
import copy
import html
import os

import ipywidgets as W
import numpy as np

from ..viz.display import Displayable
from . import instance, solutions
from ._core import (Feedback, check, expectation, get, given, ids, not_answered, params, reference_code,
                    reference_explanation, right, wrong)

_COLOURS = {"correct": ("#E8F5E9", "#1B5E20", "✓"), "wrong": ("#FFF3E0", "#8A3B00", "✗"),
            "unanswered": ("#F3F4F6", "#374151", "…")}
_KIND_TEXT = {"predict": "predict", "compute": "compute", "derive": "derive", "explain": "explain why",
              "implement": "implement"}
#: Which solutions are shown: "off" on a student's server during homework, "lecture" on the
#: lecturer's dashboards, ... (:mod:`delaylab.exercises.solutions`).
SOLUTIONS_ENV = solutions.ENV
SOLUTIONS_OFF = "Solutions are off for this assignment: it is graded. Ask your lecturer after the deadline."


_GRADED: list = []  # [True] once ex.start(graded=True) ran: a graded release


def solutions_shown(eid: str | None = None) -> bool:
    """Whether exercise ``eid``'s solution may be shown (None: every exercise's): never in a graded
    release, else as ``DELAYLAB_SOLUTIONS`` says (:mod:`delaylab.exercises.solutions`)."""
    return not _GRADED and solutions.shown(eid)


def solutions_off(eid: str | None = None) -> str:
    """What is shown instead of a solution that :func:`solutions_shown` withholds."""
    return SOLUTIONS_OFF if _GRADED else solutions.why_not(eid)


def stars(n: int) -> str:
    return "★" * n + "☆" * (3 - n)


def feedback_html(fb: Feedback, extra: str = "") -> str:
    """The verdict as a coloured box (green: right, orange: wrong, grey: not answered yet)."""
    bg, fg, mark = _COLOURS[fb.status]
    return (f"<div style='background:{bg};color:{fg};border-left:4px solid {fg};padding:6px 10px;"
            f"margin:4px 0;font-size:14px;line-height:1.4'><b>{mark}</b> {html.escape(fb.message)}{extra}</div>")


def _enforce(eid: str, fb: Feedback) -> None:
    """Under the tests (``DELAYLAB_EXERCISES_EXPECT``), a check that is not as expected fails the cell."""
    want = expectation()
    if want is not None and fb.status != want:
        raise AssertionError(f"exercise {eid}: expected {want}, got {fb.status}: {fb.message}")


def _box(text: str, colour: str = "#374151", background: str = "#F8F9FB") -> str:
    return (f"<div style='background:{background};color:{colour};border-left:4px solid #9CA3AF;padding:6px 10px;"
            f"margin:4px 0;font-size:14px;line-height:1.45'>{text}</div>")


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

        display(W.HTML(self.html()))

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
        _GRADED[:] = [True]
    who = instance.set_current(student, graded=graded)
    typed = instance.normalise(student)
    return Started(who, graded=graded, typed=typed if graded and typed and typed != who else "")


class Given:
    """The student's numbers for one exercise, shown above its answer cell."""

    def __init__(self, eid: str):
        self.eid, self.text = eid, given(eid)

    def _ipython_display_(self):
        from IPython.display import display

        who = instance.current()
        owner = f"for {html.escape(who)}" if who else "default numbers"
        display(W.HTML(_box(f"<b>Your numbers</b> ({owner}): {html.escape(self.text)}", "#1F2937", "#EEF2FF")))

    def __repr__(self) -> str:
        return f"Your numbers: {self.text}"


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


def capture(source: str, namespace: dict) -> None:
    """Keep the answers a cell of ``source`` just set in ``namespace`` (and the cell's source)."""
    for name in assigned_names(source) & _answer_names():
        if name in namespace:
            _CAPTURED[name] = _snapshot(namespace[name])
            _SOURCES[name] = source


def _after_cell(result) -> None:
    try:
        if getattr(result, "error_in_exec", None) is not None or getattr(result, "error_before_exec", None):
            return
        ip = _ipython()
        if ip is not None:
            capture(result.info.raw_cell or "", ip.user_ns)
    except Exception:  # noqa: BLE001 - never break the student's kernel
        pass


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

    def __init__(self, eid: str):
        ex = get(eid)
        self.eid, self.shown = eid, 0
        self.steps = [("where to look", ex.hints[0])] + [("the method", h) for h in ex.hints[1:]]
        self.out = W.HTML("")
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
        self._label()

    def _html(self) -> str:
        parts = [_box(f"<b>Hint {i + 1}</b> ({what}): {html.escape(text)}")
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
            + (f"<div style='margin:4px 0 8px 0'>{html.escape(why)}</div>" if why else ""))


# ------------------------------------------------------------------ check cells
def feedback(eid: str, answer=_MISSING, *, namespace: dict | None = None):
    """The check cell of a compute, derive or implement exercise: the verdict, then hints in steps
    and the solution. The answer is the one its cell set when it last ran, unless given."""
    ex = get(eid)
    if ex.kind in ("predict", "explain"):
        raise ValueError(f"{eid} is a {ex.kind} exercise: its widget checks itself (ex.{ex.kind}(\"{eid}\"))")
    if answer is _MISSING:
        answer = answer_of(eid, namespace)
        if ex.kind == "implement" and _GRADED and callable(answer) and ex.answer_name in _SOURCES:
            answer = as_graded(eid, _SOURCES[ex.answer_name])
    if answer is _MISSING:
        fb = not_answered(_ON_DASHBOARD if on_dashboard() else
                          f"set {ex.answer_name} in the answer cell above and run it, then run this cell again.")
    elif isinstance(answer, Feedback):
        fb = answer
    else:
        fb = check(eid, answer)
        if not fb.answered and on_dashboard():
            fb = not_answered(_ON_DASHBOARD)
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


class Checked(Displayable):
    """A checked answer as displayed in a notebook: a coloured box, hints in steps, the solution."""

    def __init__(self, eid: str, fb: Feedback):
        self.eid, self.feedback = eid, fb
        self.correct, self.message = fb.correct, fb.message

    @property
    def widget(self) -> W.Widget:
        return W.VBox([W.HTML(feedback_html(self.feedback)), Steps(self.eid).widget])

    def __repr__(self) -> str:
        return f"{self.feedback.status}: {self.feedback.message}"


# ------------------------------------------------------------------ predict
_FIRST: dict[str, str] = {}


class Predict(Displayable):
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
        if choice is not None:
            self.choices.value = choice
            self.check()
        _enforce(eid, self.feedback)

    def check(self) -> Feedback:
        fb = check(self.eid, self.choices.value)
        if not fb.answered:
            fb = not_answered("choose an answer, then click check.")
            self.feedback, self.out.value = fb, feedback_html(fb)
            return fb
        first = _FIRST.setdefault(self.eid, self.choices.value)
        label = html.escape(self.ex.choices.get(first, first))
        verdict = "right" if first == self.ex.solution else "not it"
        note = f"<div style='margin-top:4px;font-size:13px'>Your first answer: “{label}” ({verdict}).</div>"
        self.feedback = fb
        self.out.value = feedback_html(fb, note)
        return fb

    @property
    def first(self):
        """The student's first checked choice (None before any check)."""
        return _FIRST.get(self.eid)

    @property
    def widget(self) -> W.Widget:
        return W.VBox([self.choices, self.button, self.out])


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

        display(W.HTML(feedback_html(self.feedback)))

    def __repr__(self) -> str:
        return self.feedback.message


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


class Explain(Displayable):
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
        if text is not None:
            self.text.value = text
            self.compare()
        _enforce(eid, self.feedback)

    def compare(self) -> Feedback:
        fb = check(self.eid, self.text.value)
        self.feedback = fb
        if not fb.answered or not fb.correct:
            self.out.value = feedback_html(fb)
            return fb
        _WRITTEN.setdefault(self.eid, self.text.value)
        if solutions_shown(self.eid):
            mine = html.escape(_WRITTEN[self.eid])
            self.out.value = (_box(f"<b>Your first answer:</b> {mine}")
                              + _box(f"<b>A model answer:</b> {html.escape(self.ex.solution)}", "#1B5E20", "#E8F5E9")
                              + _box("<b>Does your answer mention…</b> (tick what it does; nothing is graded)"))
            self.ticks.children = [W.Checkbox(value=False, description=p, indent=False,
                                              layout=W.Layout(width="auto")) for p in self.ex.points]
        else:
            self.out.value = _box("Your answer is written down. " + html.escape(solutions_off(self.eid)))
        return fb

    @property
    def widget(self) -> W.Widget:
        return W.VBox([self.text, self.button, self.out, self.ticks])


def explain(eid: str, text: str | None = None) -> Explain:
    """The widget of an "explain why" question (works on the dashboards too)."""
    return Explain(eid, text)


# ------------------------------------------------------------------ racing the student's policy
class Raced(Displayable):
    """The race cell's verdict: the student's policy now races in a live panel (or why not)."""

    def __init__(self, eid: str, fb: Feedback, panel=None):
        self.eid, self.feedback, self.panel = eid, fb, panel
        self.correct, self.message = fb.correct, fb.message

    @property
    def widget(self) -> W.Widget:
        return W.HTML(feedback_html(self.feedback))

    def __repr__(self) -> str:
        return f"{self.feedback.status}: {self.feedback.message}"


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
    if fn is _MISSING or fn is Ellipsis:
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
    _enforce(eid, fb)
    return Raced(eid, fb, panel)


def _race(panel, ex, fn, label, checked: Feedback) -> Feedback:
    import inspect

    accepted = inspect.signature(ex.policy).parameters

    def make(**context):  # the panel's context (delay law, window, …): what the exercise's policy takes
        return ex.policy(fn, **{k: v for k, v in context.items() if k in accepted})

    panel.race(make, label=label)
    result = panel.race_result
    if result is None:  # not drawn: the panel is left as it was, the reason said here
        message = panel.race_message
        panel.race(None)
        return wrong(f"{message[0].upper()}{message[1:]}")
    yours = float(result.regret[result.names[0]][:, -1].mean())
    T = int(result.times[-1])
    compare = f"at T = {T:,}, {label} {yours:.1f}"
    if ex.race_against:
        x, y = panel.regret.curve(ex.race_against)
        if len(y) and x[0] <= T:
            compare += f", {ex.race_against} {float(np.interp(T, x, y)):.1f} (same draws; lower is better)"
    if "first_answer" in result.notes:
        compare += " — a first answer: the panel completes the curves in the background"
    if checked.correct:
        return right(f"Your policy races in the live panel (curve “{label}”): {compare}. Move a slider: it "
                     f"reruns with the others.")
    return wrong(f"Your policy races in the live panel (curve “{label}”), but it does not pass its check yet, so "
                 f"it is not {ex.race_against or 'the paper’s algorithm'}: {checked.message} Here: {compare}.")


# ------------------------------------------------------------------ the list of exercises
#: The notebooks of the workbook (file, short title), for the index's list of exercises.
NOTEBOOKS = {"01": ("01_delayed_conversions.ipynb", "Delayed conversions"),
             "02": ("02_arm_dependent_delays.ipynb", "Arm-dependent, heavy-tailed delays"),
             "03": ("03_linear_delayed.ipynb", "Linear bandits, delayed and censored"),
             "04": ("04_aggregated_anonymous.ipynb", "Delayed, aggregated, anonymous feedback"),
             "05": ("05_adversarial_delays.ipynb", "Adversarial bandits, unrestricted delays")}


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


__all__ = ["Started", "start", "show_given", "feedback", "predict", "explain", "race", "table", "heading",
           "capture", "install_capture", "answer_of", "params", "right", "record", "as_graded"]
