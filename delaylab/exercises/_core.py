"""The exercises' registry and their checks (no widgets here: see :mod:`.ui`).

An exercise is one of three kinds:

* ``predict``: a choice among a few outcomes, asked before the student moves a slider;
* ``compute``: a number from the paper's quantities, checked with a tolerance;
* ``implement``: a small function over numpy arrays (the core of an algorithm), checked against
  delaylab's own implementation on random inputs and, when it defines a policy, on a short
  simulation with shared draws.

A check never raises at a student: whatever the answer (missing, of the wrong type, a function
that fails), :func:`check` returns a :class:`Feedback` whose message is a sentence.
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

KINDS = ("predict", "compute", "implement")

#: What the notebooks' check cells expect of every check, set by the tests (see :func:`expectation`):
#: "unanswered" (the notebooks as shipped) or "correct" (every solution filled in).
EXPECT_ENV = "DELAYLAB_EXERCISES_EXPECT"


@dataclass(frozen=True)
class Feedback:
    """The verdict on an answer.

    Attributes
    ----------
    correct : bool
        The answer is right.
    message : str
        A sentence for the student: why it is right, or a hint pointing back to the text.
    answered : bool
        False when there is no answer yet (``...``, ``None`` or a stub function).
    """

    correct: bool
    message: str
    answered: bool = True

    @property
    def status(self) -> str:
        """"correct", "wrong" or "unanswered"."""
        return "correct" if self.correct else ("wrong" if self.answered else "unanswered")

    def __str__(self) -> str:
        return self.message


def not_answered(what: str = "") -> Feedback:
    return Feedback(False, "Not answered yet" + (f": {what}" if what else "."), answered=False)


def right(message: str) -> Feedback:
    return Feedback(True, message)


def wrong(message: str) -> Feedback:
    return Feedback(False, message)


@dataclass
class Exercise:
    """One exercise of a notebook.

    Attributes
    ----------
    id : str
        ``"<notebook>.<slug>"``, e.g. ``"01.n-tilde"``.
    kind : str
        "predict", "compute" or "implement".
    title : str
        A short title (listed in the index notebook).
    answer_name : str
        The notebook variable (compute), function (implement) or nothing (predict) that holds the
        student's answer; the check cell looks it up in the notebook's namespace.
    stub : str
        The code of the answer cell as shipped (unanswered); a test keeps the notebook's cell equal to it.
        For predict questions, ``ex.predict("<id>")`` (the default).
    solution_code : str
        The code of the answer cell filled in (what "show solution" reveals; CI runs it). For predict
        questions, ``ex.predict("<id>", "<choice>")`` (the default).
    solution : Any
        The reference answer: a choice key (predict), a number (compute) or a function (implement).
    grade : callable
        ``grade(answer) -> Feedback`` for an answer that is present (not ``...``/None) and of the
        right type; may raise for a broken function: :func:`check` turns that into a sentence.
    hint : str
        Where in the text to look again (appended to a wrong answer's message).
    explanation : str
        Why the solution is right (shown with it).
    choices : dict
        predict only: choice key → label.
    wrong_answers : list
        Natural wrong answers (misconceptions), each of which must fail its check (tests use them).
    policy : callable, optional
        implement only: ``policy(fn) -> delaylab Policy`` running the student's function in the engine.
    """

    id: str
    kind: str
    title: str
    grade: Callable[[Any], Feedback]
    solution: Any
    hint: str
    stub: str = ""
    solution_code: str = ""
    explanation: str = ""
    answer_name: str | None = None
    choices: dict = field(default_factory=dict)
    wrong_answers: list = field(default_factory=list)
    policy: Callable | None = None

    @property
    def notebook(self) -> str:
        return self.id.split(".", 1)[0]


_REGISTRY: dict[str, Exercise] = {}


def register(exercise: Exercise) -> Exercise:
    if exercise.kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {exercise.kind!r}")
    if exercise.id in _REGISTRY:
        raise ValueError(f"exercise {exercise.id!r} is registered twice")
    if exercise.kind == "predict":
        if exercise.solution not in exercise.choices:
            raise ValueError(f"{exercise.id}: the solution {exercise.solution!r} is not one of the choices")
        # the answer cell of a predict question is its widget; solved, the widget comes with the choice
        exercise.stub = exercise.stub or f'ex.predict("{exercise.id}")'
        exercise.solution_code = exercise.solution_code or f'ex.predict("{exercise.id}", {exercise.solution!r})'
    elif not (exercise.stub and exercise.solution_code):
        raise ValueError(f"{exercise.id}: a {exercise.kind} exercise needs its stub and its solution_code")
    _REGISTRY[exercise.id] = exercise
    return exercise


def get(eid: str) -> Exercise:
    try:
        return _REGISTRY[eid]
    except (KeyError, TypeError):
        raise ValueError(f"no exercise {eid!r}; the exercises are {', '.join(_REGISTRY)}") from None


def ids(notebook: str | None = None) -> list[str]:
    """The exercise ids of a notebook ("01" … "05"), in order; all of them if None."""
    nb = None if notebook is None else str(notebook).zfill(2)
    return [e for e, x in _REGISTRY.items() if nb is None or x.notebook == nb]


def kind(eid: str) -> str:
    """"predict", "compute" or "implement"."""
    return get(eid).kind


def solution(eid: str):
    """The reference answer: a choice key, a number or a function."""
    return get(eid).solution


def _missing(answer) -> bool:
    return answer is None or answer is Ellipsis


def check(eid: str, answer) -> Feedback:
    """Check an answer; never raises on a bad answer (an unknown ``eid`` is a ValueError)."""
    ex = get(eid)
    if _missing(answer):
        return not_answered()
    try:
        if ex.kind == "predict":
            if not isinstance(answer, str) or answer not in ex.choices:
                options = ", ".join(repr(k) for k in ex.choices)
                return wrong(f"Choose one of {options}; got {answer!r}.")
        elif ex.kind == "compute":
            if isinstance(answer, (str, bytes, bool)) or not isinstance(answer, (numbers.Real, np.ndarray, list, tuple)):
                return wrong(f"{ex.answer_name or 'The answer'} should be a number; got {type(answer).__name__} "
                             f"{_short(answer)}.")
        elif ex.kind == "implement":
            if not callable(answer):
                return wrong(f"{ex.answer_name or 'The answer'} should be a function (def …); got "
                             f"{type(answer).__name__} {_short(answer)}.")
        fb = ex.grade(answer)
    except _NotAnswered:
        return not_answered(f"{ex.answer_name} still returns `...`: write its body.")
    except Exception as exc:  # the student's code failed: one sentence, no traceback
        return wrong(f"Your {ex.answer_name or 'answer'} raised {type(exc).__name__}: {exc}. {ex.hint}")
    if not fb.correct and fb.answered and ex.hint and ex.hint not in fb.message:
        fb = wrong(f"{fb.message} {ex.hint}")
    return fb


class _NotAnswered(Exception):
    """A stub function returned ``...``."""


def call(fn, *args):
    """Call a student's function; ``...`` or None returned means "not written yet"."""
    out = fn(*args)
    if _missing(out):
        raise _NotAnswered
    return out


def _short(x, n=60) -> str:
    s = repr(x)
    return s if len(s) <= n else s[: n - 1] + "…"


def expectation() -> str | None:
    """What the tests expect of every check cell: "unanswered", "correct" or None (students)."""
    v = os.environ.get(EXPECT_ENV, "").strip().lower()
    return v if v in ("unanswered", "correct") else None


# ------------------------------------------------------------------ graders
def number_grader(target: Callable[[], float] | float, *, rtol=1e-3, atol=0.0, unit: str = "",
                  misconceptions: dict | None = None) -> Callable[[Any], Feedback]:
    """A grader for a number: right within ``rtol``/``atol`` of the target.

    ``misconceptions`` maps a callable (or a value) giving a typical wrong result to the message
    for it (e.g. the raw count N instead of Ñ): a student who lands there is told what they did.
    """

    def value(v):
        return float(v() if callable(v) else v)

    def grade(answer) -> Feedback:
        arr = np.asarray(answer, dtype=float)
        if arr.size != 1:
            return wrong(f"Give one number; got an array of shape {arr.shape}.")
        x, goal = float(arr.reshape(())), value(target)
        if not math.isfinite(x):
            return wrong(f"Your answer is {x}: give a finite number.")
        if math.isclose(x, goal, rel_tol=rtol, abs_tol=atol):
            return right(f"Right: {goal:.6g}{unit}.")
        for v, msg in (misconceptions or {}).items():
            if math.isclose(x, value(v), rel_tol=rtol, abs_tol=atol):
                return wrong(f"{x:.6g} is not it: {msg}")
        return wrong(f"{x:.6g}{unit} is not it.")

    return grade


def choice_grader(solution: str, why: dict[str, str]) -> Callable[[Any], Feedback]:
    """A grader for a predict question: ``why[choice]`` explains each choice (the right one too)."""

    def grade(answer) -> Feedback:
        text = why.get(answer, "")
        return right(f"Right. {text}".strip()) if answer == solution else wrong(f"Not quite. {text}".strip())

    return grade


def function_grader(reference: Callable, inputs: Callable[[np.random.Generator], tuple], *, trials=20,
                    rtol=1e-9, atol=1e-12, seed=0, simulate: Callable | None = None) -> Callable[[Any], Feedback]:
    """A grader for an implemented function: equal to ``reference`` on ``trials`` random inputs.

    ``inputs(rng)`` draws the arguments of one trial (arrays shaped like the engine's, (B, K));
    ``simulate(fn)``, if given, runs a short simulation of the student's policy against
    delaylab's on shared draws and returns a Feedback (or None when they agree).
    """

    def grade(fn) -> Feedback:
        rng = np.random.default_rng(seed)
        for trial in range(trials):
            args = inputs(rng)
            want = np.asarray(reference(*args), dtype=float)
            got = call(fn, *[a.copy() if isinstance(a, np.ndarray) else a for a in args])
            try:
                got = np.asarray(got, dtype=float)
            except (TypeError, ValueError):
                return wrong(f"Your function returned {_short(got)}, which is not an array of numbers.")
            if got.shape != want.shape:
                return wrong(f"Your function returned shape {got.shape}; it should be {want.shape}, one value per "
                             f"run and arm.")
            same = np.isclose(got, want, rtol=rtol, atol=atol) | (np.isinf(got) & np.isinf(want) & (np.sign(got) == np.sign(want)))
            if not same.all():
                i = tuple(int(j) for j in np.argwhere(~same)[0])
                shown = ", ".join(f"{name}={_fmt(a, i)}" for name, a in zip(_argnames(reference), args))
                return wrong(f"Not yet: at {shown} it gives {got[i]:.6g} instead of {want[i]:.6g}.")
        if simulate is not None:
            fb = simulate(fn)
            if fb is not None:
                return fb
        return right(f"Right: equal to delaylab's implementation on {trials} random batches"
                     + (" and in a simulation with shared draws." if simulate is not None else "."))

    return grade


def _argnames(fn) -> list[str]:
    import inspect

    return list(inspect.signature(fn).parameters)


def _fmt(a, i) -> str:
    if isinstance(a, np.ndarray) and a.ndim == len(i):
        return f"{a[i]:.4g}"
    if isinstance(a, np.ndarray) and a.ndim >= 1 and i:
        return f"{a[i[: a.ndim]]:.4g}" if a.ndim <= len(i) else "…"
    return f"{a:.4g}" if isinstance(a, numbers.Real) else _short(a, 20)
