"""A toy paper built through delaylab's public contracts alone (docs/adding-a-paper.md).

The "paper" is an index policy, x̄_k + sqrt(c log t / N_k) on revealed conversions, with:

* its policy, a :class:`delaylab.Policy` on the numpy path, run by :func:`delaylab.simulate`;
* its live panel, a :class:`delaylab.panels.base.Panel` filling ``compute``/``draw``/``controls``
  and ``race_setting``;
* two exercises registered with :func:`delaylab.exercises.register`: a compute exercise with each
  student's own numbers, and an implement exercise whose function races in the panel; both are
  removed again with :func:`delaylab.exercises.unregister`.

This file reads no underscore name of delaylab (no ``obj._name``, no import of ``_name`` or
from a ``_module``): :func:`test_this_file_reads_no_private_name_of_delaylab` walks its own
syntax tree, and defines no underscore method either: the hooks a Policy subclass fills in
(``reset``, ``choose``, ``update``; :class:`delaylab.policies.base.Policy`) are public names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ipywidgets as W
import numpy as np
import pytest

import delaylab as dl
from delaylab import exercises as ex
from delaylab.exercises.instance import Draw
from delaylab.panels.base import Panel
from delaylab.panels.budget import MachineSpeed
from delaylab.panels.layout import section
from delaylab.panels.race import YOUR_POLICY, RaceSetting
from delaylab.viz.plots import CurvePlot

NB = "99"  # the toy paper's notebook number: no notebook of the workbook has it
THETA = (0.6, 0.45, 0.3)
LAW = dl.Geometric(mean=5)


# ----------------------------------------------------------------------------- the paper's formula
def toy_index(mean, pulls, t, c):
    """The toy paper's index: x̄_k + sqrt(c log t / N_k), for arrays (runs, arms); t is the 1-based
    decision number."""
    return mean + np.sqrt(c * np.log(t) / pulls)


class ToyIndex(dl.Policy):
    """The toy paper's policy: each arm once, then the largest :func:`toy_index`, with x̄_k the
    conversions revealed so far over the pulls (a pull without news counts as a zero).

    Parameters
    ----------
    c : float
        Exploration constant, c > 0.
    index : callable
        ``index(mean, pulls, t, c)``, the formula (a student's own, in the implement exercise).
    """

    feedback = ("conversions",)

    def __init__(self, c=2.0, index=toy_index):
        self.c = c
        self.index = index

    @property
    def label(self):
        return "toy index"

    def reset(self, problem):  # the hook of Policy.start: validate on use, reset the state
        if not (isinstance(self.c, (int, float)) and np.isfinite(self.c) and self.c > 0):
            raise ValueError(f"c must be a number > 0; got {self.c!r}")
        self.pulls_ = np.zeros((problem.size, problem.n_arms))
        self.successes_ = np.zeros((problem.size, problem.n_arms))

    def choose(self, t, context=None):
        K = self.problem_.n_arms
        if t < K:
            return np.full(self.problem_.size, t, dtype=np.int64)
        mean = self.successes_ / self.pulls_
        return np.argmax(self.index(mean, self.pulls_, t + 1, self.c), axis=1)

    def update(self, t, arms, feedback):
        self.pulls_[np.arange(self.problem_.size), arms] += 1.0
        feedback.add_to(self.successes_)

    def snapshot(self):
        return {"pulls": self.pulls_.copy()}


# ----------------------------------------------------------------------------- the paper's live panel
class ToyPanel(Panel):
    """The toy index against UCB1: a horizon, a number of runs, and c."""

    speed = MachineSpeed()  # its own: the measurements of this test leave the kernel's shared one alone

    def __init__(self, horizon=300, runs=4, seed=0):
        super().__init__(seed)
        self.horizon = W.IntSlider(value=horizon, min=100, max=600, step=100, description="horizon T")
        self.runs = W.IntSlider(value=runs, min=2, max=8, step=2, description="runs")
        self.c = W.FloatSlider(value=2.0, min=0.5, max=4.0, step=0.5, description="c")
        self.regret = CurvePlot(["toy index", "UCB1", YOUR_POLICY])
        for w in (self.horizon, self.runs, self.c):
            w.observe(lambda _: self.update(), names="value")
        self.start()

    def setting(self):
        return dl.Conversions(THETA, LAW, window=40)

    def compute(self):
        return self.simulate(self.setting(), {"toy index": ToyIndex(c=self.c.value), "UCB1": dl.UCB1()},
                             self.horizon.value, self.runs.value, self.seed, checkpoints=30)

    def notes(self, result):
        return [f"toy index ends at {result.final('toy index').mean():.1f}"]

    def draw(self, result):
        self.regret.show_result(result)

    def controls(self):
        return [section("Simulation", self.horizon, self.runs, self.c)]

    def race_setting(self):
        return RaceSetting(self.setting(), self.horizon.value, self.runs.value, self.seed, 30,
                           context={"c": self.c.value})


# ----------------------------------------------------------------------------- the paper's exercises
def width(p):
    """The exploration width sqrt(c log t / N) for the student's numbers."""
    return float(np.sqrt(p["c"] * np.log(p["t"]) / p["n"]))


def width_misconceptions(p):
    return [(p["c"] * np.log(p["t"]) / p["n"], "that is the width squared: take its square root."),
            (float(np.sqrt(p["c"] * np.log10(p["t"]) / p["n"])), "log is the natural logarithm, not log₁₀.")]


def draw_width(d: Draw) -> dict:
    n = d.integer(3, 40)
    return {"n": n, "t": d.integer(2 * n, 500), "c": d.grid(0.5, 3.0, 0.5)}


WIDTH = ex.Exercise(
    id=f"{NB}.width", kind="compute", stars=1, minutes=5, title="The toy index's exploration width",
    answer_name="width", stub="width = ...\n",
    solution_code=lambda p: f"width = ({p['c']} * np.log({p['t']}) / {p['n']}) ** 0.5\n",
    draw=draw_width, default={"n": 10, "t": 100, "c": 2.0},
    given=lambda p: f"N = {p['n']} pulls, decision t = {p['t']}, c = {p['c']}.",
    hints=("The index adds a width to x̄: it shrinks with the pulls N and grows with log t.",
           "width = sqrt(c log t / N), with the natural logarithm."),
    **ex.numeric(width, width_misconceptions, rtol=1e-3, name="width"),
)

IMPLEMENT = ex.Exercise(
    id=f"{NB}.index", kind="implement", stars=2, minutes=10, title="The toy index, raced in the live panel",
    answer_name="my_index", stub="def my_index(mean, pulls, t, c):\n    ...\n",
    solution_code="def my_index(mean, pulls, t, c):\n    return mean + np.sqrt(c * np.log(t) / pulls)\n",
    solution=toy_index,
    grade=ex.function_grader(toy_index, lambda rng: (rng.random((4, 3)), rng.integers(1, 50, (4, 3)).astype(float),
                                                      int(rng.integers(4, 500)), float(rng.uniform(0.5, 3.0))),
                             name="my_index"),
    policy=lambda fn, c=2.0: ToyIndex(c=c, index=fn),
    race_against="toy index",
    hints=("The index is the mean plus a width that shrinks with the pulls.",
           "mean + sqrt(c log t / pulls), elementwise over runs and arms."),
)


@pytest.fixture
def toy_exercises(monkeypatch):
    """The toy paper's exercises registered for one test, and removed afterwards (even on failure)."""
    monkeypatch.delenv(ex.instance.STUDENT_ENV, raising=False)  # the default instance unless a student is named
    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)  # not the notebooks' nbval runs
    before = ex.ids()
    registered = []
    try:
        for exercise in (WIDTH, IMPLEMENT):
            registered.append(ex.register(exercise).id)
        yield registered
    finally:
        for eid in registered:
            ex.unregister(eid)
    assert ex.ids() == before


# ----------------------------------------------------------------------------- the tests
def test_the_toy_policy_runs_in_the_engine_and_equals_ucb1_with_the_same_formula():
    """simulate() runs the toy policy on the numpy path; with conversions, its index is UCB1's,
    so every run's regret and pulls are UCB1's (an independent check of the numpy path)."""
    env = dl.Conversions(THETA, LAW, window=40)
    res = dl.simulate(env, {"toy": ToyIndex(c=2.0), "UCB1": dl.UCB1(c=2.0)}, 400, runs=5, seed=7, checkpoints=20)
    assert res.regret["toy"].shape == (5, 20) and np.all(np.isfinite(res.regret["toy"]))
    np.testing.assert_array_equal(res.regret["toy"], res.regret["UCB1"])
    np.testing.assert_array_equal(res.pulls["toy"], res.pulls["UCB1"])
    again = dl.simulate(env, ToyIndex(c=2.0), 400, runs=[3, 4], seed=7, checkpoints=20)
    np.testing.assert_array_equal(again.regret["toy index"], res.regret["toy"][3:])  # a run's outcome: seed, index


def test_the_toy_policy_has_parameters_and_is_validated_on_use():
    p = ToyIndex(c=1.5)
    assert p.get_params() == {"c": 1.5, "index": toy_index} and p.clone().get_params() == p.get_params()
    assert repr(p).startswith("ToyIndex(c=1.5, index=")
    with pytest.raises(ValueError, match=r"c must be a number > 0; got -1"):
        dl.simulate(dl.Conversions(THETA, LAW), ToyIndex(c=-1), 50, runs=2)
    with pytest.raises(ValueError, match="learns from conversions feedback"):
        dl.simulate(dl.LabelledRewards(THETA, LAW), ToyIndex(), 50, runs=2)


def test_the_toy_panel_draws_through_the_panel_hooks_and_reruns_on_a_move():
    panel = ToyPanel()
    direct = dl.simulate(panel.setting(), {"toy index": ToyIndex(c=2.0), "UCB1": dl.UCB1()}, 300, 4, 0,
                         checkpoints=30)
    np.testing.assert_allclose(panel.regret.curve("toy index")[1], direct.mean("toy index"))
    assert "All 4 runs, T = 300" in panel.status.value and "toy index ends at" in panel.status.value
    panel.c.value = 0.5
    moved = dl.simulate(panel.setting(), ToyIndex(c=0.5), 300, 4, 0, checkpoints=30)
    np.testing.assert_allclose(panel.regret.curve("toy index")[1], moved.mean("toy index"))
    assert isinstance(panel.widget, W.VBox) and panel.seed_field is not None


def test_a_compute_exercise_right_passes_wrong_fails_and_each_student_has_their_own_numbers(toy_exercises):
    eid = f"{NB}.width"
    assert ex.ids(NB) == toy_exercises and ex.kind(eid) == "compute"
    assert ex.check(eid, ...).status == "unanswered"
    default = ex.params(eid, "")
    assert default == {"n": 10, "t": 100, "c": 2.0}
    assert ex.check(eid, width(default), student="").correct
    for value in ex.wrong_answers(eid, student=""):
        fb = ex.check(eid, value, student="")
        assert fb.status == "wrong" and "Hint:" in fb.message, (value, fb.message)
    assert "square root" in ex.check(eid, width(default) ** 2, student="").message
    assert ex.check(eid, "0.96", student="").status == "wrong"  # text: a sentence, not a traceback
    alice, bob = ex.params(eid, "alice"), ex.params(eid, "bob")
    assert alice != bob and alice == ex.params(eid, "ALICE ")
    assert ex.check(eid, width(alice), student="alice").correct
    assert not ex.check(eid, width(alice), student="bob").correct  # a copied number fails
    assert ex.solution(eid, "bob") == pytest.approx(width(bob))
    assert f"{bob['t']}" in ex.solution_code(eid, "bob") and f"t = {bob['t']}" in ex.given_text(eid, "bob")
    started = ex.start("alice")
    try:
        assert ex.check(eid, width(alice)).correct and "alice" in repr(started)
        checked = ex.feedback(eid, width(alice))
        assert checked.correct and checked.widget is None and "Right" in checked.static_html()  # no hint button
        wrong = ex.feedback(eid, 2 * width(alice))
        assert not wrong.correct and isinstance(wrong.widget, W.VBox)  # the verdict, then hints in steps
    finally:
        ex.start("")


def test_an_implement_exercise_is_checked_and_races_in_the_toy_panel(toy_exercises):
    eid = f"{NB}.index"
    assert ex.check(eid, toy_index).correct
    assert not ex.check(eid, lambda mean, pulls, t, c: mean + np.sqrt(c * np.log(t)) / pulls).correct
    assert ex.check(eid, lambda mean, pulls, t, c: ...).status == "unanswered"
    panel = ToyPanel()
    raced = ex.race(panel, eid, namespace={"my_index": toy_index})
    assert raced.correct, raced.message
    np.testing.assert_allclose(panel.regret.curve(YOUR_POLICY)[1], panel.regret.curve("toy index")[1])
    assert "your policy: mean regret" in panel.status.value
    panel.c.value = 1.0  # the raced policy follows the controls, with the panel's c
    np.testing.assert_allclose(panel.regret.curve(YOUR_POLICY)[1], panel.regret.curve("toy index")[1])
    panel.race(None)


def test_unregister_removes_an_exercise_and_its_students_numbers():
    eid = ex.register(WIDTH).id
    try:
        first = ex.params(eid, "carol")
    finally:
        ex.unregister(eid)
    assert eid not in ex.ids()
    with pytest.raises(ValueError, match=f"no exercise '{NB}.width'"):
        ex.params(eid, "carol")
    ex.register(WIDTH)
    try:
        assert ex.params(eid, "carol") == first  # drawn again, the same numbers
    finally:
        ex.unregister(eid)


# ----------------------------------------------------------------------------- public names only
def private_uses(source: str) -> list[str]:
    """Underscore names of delaylab this source uses: ``obj._name`` (any object: delaylab's are the
    only ones here), ``from m import _name``, an import from a module path with an ``_`` part,
    and a method defined with an underscore name (an override of a private method)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            names = [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else []
            for m in modules:
                if any(part.startswith("_") and part != "__future__" for part in m.split(".")):
                    found.append(f"{node.lineno}: import from {m}")
            found += [f"{node.lineno}: import {n}" for n in names if n.startswith("_") and n != "annotations"]
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name.startswith("_") and not item.name.startswith("__"):
                    found.append(f"{item.lineno}: defines {node.name}.{item.name}")
    return sorted(found, key=lambda f: int(f.split(":")[0]))


def test_the_check_of_private_names_finds_them():
    probe = ("from delaylab.exercises._core import Exercise\nfrom delaylab.kernels import _env\n"
             "import delaylab._validate\nx = policy._cols\n\n"
             "class P(Policy):\n    def _start(self, p): pass\n    def _column(self): pass\n")
    assert private_uses(probe) == ["1: import from delaylab.exercises._core", "2: import _env",
                                   "3: import from delaylab._validate", "4: ._cols", "7: defines P._start",
                                   "8: defines P._column"]


def test_this_file_reads_no_private_name_of_delaylab():
    assert private_uses(Path(__file__).read_text(encoding="utf-8")) == []
