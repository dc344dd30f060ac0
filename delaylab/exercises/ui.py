"""What the student sees of an exercise: predict widgets, feedback boxes, "show solution", and
the student's policy racing the paper's in a live panel. Everything here works in JupyterLab and
on the Voila dashboards (widgets only), and never shows a traceback to a student."""

from __future__ import annotations

import html

import ipywidgets as W

from ._core import Feedback, check, expectation, get, not_answered, right, wrong

_COLOURS = {"correct": ("#E8F5E9", "#1B5E20", "✓"), "wrong": ("#FFF3E0", "#8A3B00", "✗"),
            "unanswered": ("#F3F4F6", "#374151", "…")}


def feedback_html(fb: Feedback) -> str:
    """The verdict as a coloured box (green: right, orange: wrong, grey: not answered yet)."""
    bg, fg, mark = _COLOURS[fb.status]
    return (f"<div style='background:{bg};color:{fg};border-left:4px solid {fg};padding:6px 10px;"
            f"margin:4px 0;font-size:14px;line-height:1.4'><b>{mark}</b> {html.escape(fb.message)}</div>")


def _enforce(eid: str, fb: Feedback) -> None:
    """Under the tests (``DELAYLAB_EXERCISES_EXPECT``), a check that is not as expected fails the cell."""
    want = expectation()
    if want is not None and fb.status != want:
        raise AssertionError(f"exercise {eid}: expected {want}, got {fb.status}: {fb.message}")


def solution_button(eid: str) -> W.Widget:
    """A "show solution" toggle: the filled-in answer cell and why it is right, one click away."""
    ex = get(eid)
    text = (f"<pre style='background:#F8F8F8;padding:8px;white-space:pre-wrap'>{html.escape(ex.solution_code)}</pre>"
            + (f"<div style='margin:4px 0 8px 0'>{html.escape(ex.explanation)}</div>" if ex.explanation else ""))
    shown = W.HTML("")
    button = W.ToggleButton(value=False, description="show solution", icon="eye",
                            tooltip="try first: the solution stays hidden until you click",
                            layout=W.Layout(width="150px"))

    def toggle(change):
        shown.value = text if change["new"] else ""
        button.description = "hide solution" if change["new"] else "show solution"

    button.observe(toggle, names="value")
    return W.VBox([button, shown])


def _user_namespace() -> dict:
    try:
        from IPython import get_ipython

        ip = get_ipython()
    except ImportError:  # pragma: no cover - IPython ships with ipykernel
        ip = None
    return ip.user_ns if ip is not None else {}


def answer_of(eid: str, namespace: dict | None = None):
    """The student's answer to a compute or implement exercise, read from the notebook's namespace."""
    ex = get(eid)
    ns = _user_namespace() if namespace is None else namespace
    return ns.get(ex.answer_name, None)


def on_dashboard() -> bool:
    """True in a Voila dashboard's kernel (Voila gives its kernels VOILA_* variables)."""
    import os

    return any(k in os.environ for k in ("VOILA_KERNEL_ID", "VOILA_BASE_URL", "VOILA_SERVER_URL"))


_ON_DASHBOARD = ("on this dashboard the code is hidden: compute and implement exercises are answered in "
                 "JupyterLab (open this notebook with `python3 tasks.py lab`).")


def feedback(eid: str, answer=None, *, namespace: dict | None = None):
    """The check cell of a compute or implement exercise: the verdict and a "show solution" button.

    The answer is read from the notebook (the variable or function named by the exercise) unless
    given. Returns the Feedback (displayed as a box by the notebook).
    """
    ex = get(eid)
    if answer is None:
        answer = answer_of(eid, namespace)
    fb = check(eid, answer)
    if not fb.answered and ex.answer_name and answer is None:
        fb = not_answered(_ON_DASHBOARD if on_dashboard() else
                          f"set {ex.answer_name} in the cell above and run it, then run this cell again.")
    _enforce(eid, fb)
    return Checked(eid, fb)


class Checked:
    """A checked answer as displayed in a notebook: a coloured box and a "show solution" button."""

    def __init__(self, eid: str, fb: Feedback):
        self.eid, self.feedback = eid, fb
        self.correct, self.message = fb.correct, fb.message

    @property
    def widget(self) -> W.Widget:
        return W.VBox([W.HTML(feedback_html(self.feedback)), solution_button(self.eid)])

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)

    def __repr__(self) -> str:
        return f"{self.feedback.status}: {self.feedback.message}"


class Predict:
    """A predict question as a widget: the choices, a "check" button and the verdict.

    ``choice`` preselects an answer and checks it at once (the solved notebooks of the tests).
    """

    def __init__(self, eid: str, choice=None):
        ex = get(eid)
        if ex.kind != "predict":
            raise ValueError(f"{eid} is a {ex.kind} exercise, not a predict question")
        self.eid = eid
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
        self.feedback = fb
        self.out.value = feedback_html(fb)
        return fb

    @property
    def widget(self) -> W.Widget:
        return W.VBox([self.choices, self.button, self.out])

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def predict(eid: str, choice=None) -> Predict:
    """The widget of a predict question (works on the dashboards too)."""
    return Predict(eid, choice)


class Raced:
    """The race cell's verdict: the student's policy now races in a live panel (or why not)."""

    def __init__(self, eid: str, fb: Feedback, panel=None):
        self.eid, self.feedback, self.panel = eid, fb, panel
        self.correct, self.message = fb.correct, fb.message

    @property
    def widget(self) -> W.Widget:
        return W.HTML(feedback_html(self.feedback))

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)

    def __repr__(self) -> str:
        return f"{self.feedback.status}: {self.feedback.message}"


def race(panel, eid: str, *, label: str = "your policy", namespace: dict | None = None) -> Raced:
    """Race the function of an *implement* exercise as a policy in a live ``panel``.

    The function is read from the notebook's namespace (the name the exercise asks for). Not
    written yet, not a function, or failing in the first simulation: a sentence, and the panel is
    left without the curve. Otherwise the
    panel draws "your policy" next to the paper's algorithms on the same draws, and keeps doing
    so after every slider move; if the student's code fails in the simulation, the panel's status
    says why (a sentence, no traceback). Under the tests, the race must run when the notebook is
    solved and say "not answered yet" as shipped.
    """
    ex = get(eid)
    if ex.policy is None:
        raise ValueError(f"{eid} is not an implement exercise with a policy to race")
    fn = answer_of(eid, namespace)
    if fn is None or fn is Ellipsis:
        fb = not_answered(_ON_DASHBOARD if on_dashboard() else
                          f"write {ex.answer_name} and run its cell, then run this cell again to race it.")
    elif not callable(fn):
        fb = wrong(f"{ex.answer_name} should be a function (def …); got {type(fn).__name__}.")
    else:
        import inspect

        accepted = inspect.signature(ex.policy).parameters

        def make(**context):  # the panel's context (delay law, window, …): what the exercise's policy takes
            return ex.policy(fn, **{k: v for k, v in context.items() if k in accepted})

        panel.race(make, label=label)
        if panel.race_result is None:  # not drawn: the panel is left as it was, the reason said here
            message = panel.race_message
            panel.race(None)
            if "still returns `...`" in message:
                fb = not_answered(f"{ex.answer_name} still returns `...`: write its body, run its cell, then "
                                  f"run this cell again.")
            else:
                fb = wrong(f"{message[0].upper()}{message[1:]}")
        else:
            result = panel.race_message.removeprefix(f"{label}: ")
            fb = right(f"Your policy now races in the live panel above (curve “{label}”): {result}. Move a slider: "
                       f"it reruns with the others.")
    _enforce(eid, fb)
    return Raced(eid, fb, panel)


#: The notebooks of the workbook (file, short title), for the index's list of exercises.
NOTEBOOKS = {"01": ("01_delayed_conversions.ipynb", "Delayed conversions"),
             "02": ("02_arm_dependent_delays.ipynb", "Arm-dependent, heavy-tailed delays"),
             "03": ("03_linear_delayed.ipynb", "Linear bandits, delayed and censored"),
             "04": ("04_aggregated_anonymous.ipynb", "Delayed, aggregated, anonymous feedback"),
             "05": ("05_adversarial_delays.ipynb", "Adversarial bandits, unrestricted delays")}
_KIND_TEXT = {"predict": "predict (choose, then check on the figure)", "compute": "compute (a number)",
              "implement": "implement (a function; races in the live panel)"}


def table_html(notebooks=None) -> str:
    """An HTML table of the exercises, notebook by notebook (kind and title), with links."""
    from ._core import ids

    rows = []
    for nb in notebooks or sorted({e.split(".")[0] for e in ids()}):
        eids = ids(nb)
        if not eids:
            continue
        file, title = NOTEBOOKS.get(nb, (None, f"notebook {nb}"))
        name = f"<a href='{html.escape(file)}'>{nb} · {html.escape(title)}</a>" if file else html.escape(title)
        for i, eid in enumerate(eids):
            ex = get(eid)
            rows.append(f"<tr><td>{name if i == 0 else ''}</td><td>{html.escape(_KIND_TEXT[ex.kind])}</td>"
                        f"<td>{html.escape(ex.title)}</td></tr>")
    return ("<table style='border-collapse:collapse;font-size:14px'><thead><tr>"
            "<th style='text-align:left'>notebook</th><th style='text-align:left'>kind</th>"
            "<th style='text-align:left'>exercise</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def table(notebooks=None) -> W.HTML:
    """The exercises of the workbook as a table widget (works on the Voila dashboards)."""
    return W.HTML(table_html(notebooks))
