"""The exercises' registry and their checks (no widgets here: see :mod:`.ui`).

An exercise is one of five kinds:

* ``predict``: a choice among a few outcomes, made before the student moves a slider or reads a
  figure; the reasons come only with the verdict;
* ``compute``: a number from the paper's quantities, for the student's own parameters;
* ``derive``: a quantity the student derives on paper (a limit, an expectation, a tuning), then
  types its value for their own parameters, which the notebook never displays elsewhere;
* ``explain``: a sentence or two in the student's words, compared with a model answer and the
  points it should mention (self-assessed, not graded);
* ``implement``: a small function over numpy arrays (the core of an algorithm), checked against
  delaylab's own implementation on random inputs and, when it defines a policy, on a short
  simulation with shared draws.

Compute and derive exercises draw their parameters from the student (:mod:`.instance`): two
students get different numbers, and each passes with their own answer only.

A check never raises at a student: whatever the answer (missing, of the wrong type, a function
that fails, exits, or never returns), :func:`check` returns a :class:`Feedback` whose message is
a sentence.
"""

from __future__ import annotations

import numbers
import os
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import guard, instance, solutions
from .guard import NotWritten, StudentError, short

KINDS = ("predict", "compute", "derive", "explain", "implement")
#: Kinds whose parameters are the student's own.
PARAMETERISED = ("compute", "derive")

#: What the notebooks' check cells expect of every check, set by the tests (see :func:`expectation`):
#: "unanswered" (the notebooks as shipped) or "correct" (every solution filled in).
EXPECT_ENV = "DELAYLAB_EXERCISES_EXPECT"


@dataclass(frozen=True)
class Feedback:
    """The verdict on an answer.

    Attributes
    ----------
    correct : bool
        The answer is right (for an explain exercise: it was written and can be compared).
    message : str
        A sentence for the student: why it is right, or a hint pointing back to the text.
    answered : bool
        False when there is no answer yet (``...``, or a stub function).
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


def _value(x, params):
    """``x(params)`` for a callable of the instance, else ``x``."""
    return x(params) if callable(x) else x


@dataclass
class Exercise:
    """One exercise of a notebook.

    Attributes
    ----------
    id : str
        ``"<notebook>.<slug>"``, e.g. ``"01.n-tilde"``.
    kind : str
        One of :data:`KINDS`.
    title : str
        A short title (listed in the index notebook, in the headings and in the instructor's guide).
    stars : int
        Difficulty, 1 (★: apply the text) to 3 (★★★: derive or build something new).
    hints : tuple of str
        The hints in steps: first where to look (the idea), then the formula or the method. The
        solution is the step after the last hint.
    grade : callable
        ``grade(answer, params) -> Feedback`` for an answer that is present and of the right type.
        ``params`` is the student's instance (``{}`` for exercises without one). Explain exercises
        get :func:`explain_grader` (self-assessment against the model answer).
    solution : Any
        The reference answer: a choice key (predict), a number or ``callable(params) -> number``
        (compute, derive), a function (implement), the model answer (explain).
    stub : str
        The answer cell as shipped (a test keeps the notebook's cell equal to it). Default for
        predict: ``ex.predict("<id>")``; for explain: ``ex.explain("<id>")``.
    solution_code : str or callable(params) -> str
        The answer cell filled in, with the student's own numbers written out (what "show
        solution" reveals; CI runs the default instance's).
    explanation : str or callable(params) -> str
        Why the solution is right (shown with it), with the student's numbers.
    answer_name : str or None
        The notebook variable (compute, derive) or function (implement) that holds the answer.
    choices : dict
        predict only: choice key → label (no reasons: they come with the verdict).
    wrong_answers : list or callable(params) -> list
        Natural wrong answers (misconceptions), each of which must fail its check (tests use them).
    policy : callable, optional
        implement only: ``policy(fn, **context) -> delaylab Policy`` running the student's function.
    race_against : str, optional
        implement only: the curve of the live panel the raced policy should coincide with.
    draw : callable, optional
        compute, derive: ``draw(instance.Draw) -> params`` (a dict), the student's numbers.
    default : dict, optional
        compute, derive: the parameters of the default instance (the notebook's own example).
    accept : callable, optional
        ``accept(params) -> bool``: a drawn instance is kept only if this holds (e.g. every natural
        wrong answer is far from the right one); otherwise the next draw is taken.
    given : callable, optional
        ``given(params) -> str``: the student's numbers, as the sentence shown above the answer cell.
    points : tuple of str
        explain only: what a good answer mentions (the student ticks them off).
    minutes : int
        Expected time for a student who has read the section (for the instructor's guide).
    tolerance : (rtol, atol) or None
        compute, derive: the precision the check wants (set by :func:`numeric`; the student is told).
    reveals : tuple of str
        predict only: the words that would give its answer away (the right outcome as the text
        would state it, e.g. "grows linearly in E[τ]"). None of them, nor the right choice's label,
        may appear in the notebook above the question or in the cells that run with it
        (tests/test_predict_reveal.py).
    """

    id: str
    kind: str
    title: str
    solution: Any
    hints: tuple
    grade: Callable[[Any, dict], Feedback] | None = None
    stars: int = 1
    stub: str = ""
    solution_code: Any = ""
    explanation: Any = ""
    answer_name: str | None = None
    choices: dict = field(default_factory=dict)
    wrong_answers: Any = field(default_factory=list)
    policy: Callable | None = None
    race_against: str | None = None
    draw: Callable | None = None
    default: dict | None = None
    accept: Callable | None = None
    given: Callable | None = None
    points: tuple = ()
    minutes: int = 10
    tolerance: tuple | None = None
    reveals: tuple = ()

    @property
    def notebook(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def hint(self) -> str:
        """The first hint (where to look): appended to a wrong answer's message by :func:`check`
        (not in a check cell, whose hint button gives it)."""
        return self.hints[0]

    @property
    def parameterised(self) -> bool:
        return self.draw is not None


_REGISTRY: dict[str, Exercise] = {}

#: The notebooks of the workbook (file, short title), for the lists of exercises and the progress.
NOTEBOOKS = {"01": ("01_delayed_conversions.ipynb", "Delayed conversions"),
             "02": ("02_arm_dependent_delays.ipynb", "Arm-dependent, heavy-tailed delays"),
             "03": ("03_linear_delayed.ipynb", "Linear bandits, delayed and censored"),
             "04": ("04_aggregated_anonymous.ipynb", "Delayed, aggregated, anonymous feedback"),
             "05": ("05_adversarial_delays.ipynb", "Adversarial bandits, unrestricted delays")}


def register(exercise: Exercise) -> Exercise:
    e = exercise
    if e.kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {e.kind!r}")
    if e.id in _REGISTRY:
        raise ValueError(f"exercise {e.id!r} is registered twice")
    if e.stars not in (1, 2, 3):
        raise ValueError(f"{e.id}: stars must be 1, 2 or 3; got {e.stars!r}")
    if not (isinstance(e.hints, tuple) and len(e.hints) >= 2 and all(isinstance(h, str) and h for h in e.hints)):
        raise ValueError(f"{e.id}: hints must be a tuple of at least two steps (where to look, then the method)")
    if e.kind in PARAMETERISED and (e.draw is None or e.default is None or e.given is None):
        raise ValueError(f"{e.id}: a {e.kind} exercise draws the student's numbers: it needs draw, default and given")
    if e.kind == "predict":
        if e.solution not in e.choices:
            raise ValueError(f"{e.id}: the solution {e.solution!r} is not one of the choices")
        e.stub = e.stub or f'ex.predict("{e.id}")'
        e.solution_code = e.solution_code or f'ex.predict("{e.id}", {e.solution!r})'
    elif e.kind == "explain":
        if not (isinstance(e.solution, str) and e.points):
            raise ValueError(f"{e.id}: an explain exercise needs its model answer and the points it mentions")
        e.grade = e.grade or explain_grader(e.solution, e.points)
        e.stub = e.stub or f'ex.explain("{e.id}")'
        e.solution_code = e.solution_code or f'ex.explain("{e.id}", {e.solution!r})'
    elif not (e.stub and e.solution_code and e.answer_name):
        raise ValueError(f"{e.id}: a {e.kind} exercise needs its stub, its solution_code and its answer_name")
    if e.grade is None:
        raise ValueError(f"{e.id}: a {e.kind} exercise needs its grade")
    _REGISTRY[e.id] = e
    return e


def unregister(eid: str) -> Exercise:
    """Remove exercise ``eid`` from the registry, with every student's numbers drawn for it, and
    return it: what a test that registers an exercise of its own calls when it is done, so that
    :func:`ids` and the other tests see the workbook's exercises only."""
    ex = get(eid)
    del _REGISTRY[eid]
    for key in [k for k in _PARAMS if k[0] == eid]:
        del _PARAMS[key]
    return ex


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
    """"predict", "compute", "derive", "explain" or "implement"."""
    return get(eid).kind


# ------------------------------------------------------------------ the student's instance
_PARAMS: dict[tuple[str, str], dict] = {}


def params(eid: str, student=None) -> dict:
    """The parameters of ``eid`` for ``student`` (the current student when None; ``""`` is the
    default instance). Empty for exercises without parameters."""
    ex = get(eid)
    if not ex.parameterised:
        return {}
    who = instance.resolve(student)
    key = (eid, who)
    if key not in _PARAMS:
        if not who:
            p = dict(ex.default)
        else:
            for attempt in range(200):
                p = ex.draw(instance.Draw(who, eid, attempt))
                if ex.accept is None or ex.accept(p):
                    break
            else:  # pragma: no cover - every exercise's accept holds for most draws (a test checks it)
                raise RuntimeError(f"{eid}: no acceptable instance for {who!r}")
        _PARAMS[key] = p
    return dict(_PARAMS[key])


#: Which solutions are shown: "off" on a student's server during homework, "lecture" on the
#: lecturer's dashboards, ... (:mod:`delaylab.exercises.solutions`); none in a graded release.
SOLUTIONS_ENV = "DELAYLAB_SOLUTIONS"
SOLUTIONS_OFF = "Solutions are off for this assignment: it is graded. Ask your lecturer after the deadline."
_GRADED: list = []  # [True] once ex.start(graded=True) ran: a graded release


def known_exercises() -> dict:
    """Every exercise by its id and by its number as its heading says (``"1.1"``)."""
    out = {}
    for eid in ids():
        nb = get(eid).notebook
        out[eid] = out[f"{int(nb)}.{ids(nb).index(eid) + 1}"] = eid
    return out


def solution_setting(value: str) -> str:
    """A value of ``DELAYLAB_SOLUTIONS`` (or of the dashboards' ``--solutions``) normalised, or a
    ValueError naming it and the valid choices (:func:`delaylab.exercises.solutions.check`)."""
    return solutions.check(value, known_exercises())


def solutions_shown(eid: str | None = None) -> bool:
    """Whether exercise ``eid``'s solution may be shown (None: every exercise's): never in a graded
    release, else as ``DELAYLAB_SOLUTIONS`` says (:mod:`delaylab.exercises.solutions`)."""
    return not _GRADED and solutions.shown(eid, known_exercises())


def solutions_off(eid: str | None = None) -> str:
    """What is shown instead of a solution that :func:`solutions_shown` withholds."""
    return SOLUTIONS_OFF if _GRADED else solutions.why_not(eid, known_exercises())


def mark_graded() -> None:
    """This kernel runs a graded release (``ex.start(graded=True)``): solutions off from now on."""
    _GRADED[:] = [True]


def graded() -> bool:
    """Whether this kernel runs a graded release (:func:`mark_graded`)."""
    return bool(_GRADED)


class SolutionsOff(str):
    """What :func:`solution` returns in a graded release (``ex.start(graded=True)``)."""


def solution(eid: str, student=None):
    """The reference answer for ``student`` (the current one when None): a choice key, a number
    (or array), a function, or the model answer of an explain exercise. In a graded release, a
    sentence saying that solutions are off."""
    if not solutions_shown(eid):
        return SolutionsOff(solutions_off(eid))
    ex = get(eid)
    return ex.solution(params(eid, student)) if ex.parameterised else ex.solution


def solution_code(eid: str, student=None) -> str:
    """The answer cell filled in for ``student``, with their numbers written out. In a graded
    release, like :func:`solution`, a sentence saying that solutions are off."""
    return reference_code(eid, student) if solutions_shown(eid) else SolutionsOff(solutions_off(eid))


def explanation(eid: str, student=None) -> str:
    """Why the solution is right, for ``student``'s numbers ("" if the exercise has none). In a
    graded release, a sentence saying that solutions are off."""
    return reference_explanation(eid, student) if solutions_shown(eid) else SolutionsOff(solutions_off(eid))


def reference_code(eid: str, student=None) -> str:
    """:func:`solution_code` whether solutions are shown or not: for the tools that write the
    graded source notebooks and the solved copies (a lecturer's machine may have solutions off)."""
    ex = get(eid)
    return _value(ex.solution_code, params(eid, student))


def reference_explanation(eid: str, student=None) -> str:
    """:func:`explanation` whether solutions are shown or not."""
    ex = get(eid)
    return _value(ex.explanation, params(eid, student))


def given(eid: str, student=None) -> str:
    """The student's numbers for a compute or derive exercise, as a sentence ("" for the others)."""
    ex = get(eid)
    return ex.given(params(eid, student)) if ex.given is not None else ""


def wrong_answers(eid: str, student=None) -> list:
    ex = get(eid)
    return list(_value(ex.wrong_answers, params(eid, student)))


# ------------------------------------------------------------------ checking
def check(eid: str, answer, student=None, *, hint: bool = True) -> Feedback:
    """Check an answer for ``student`` (the current one when None); never raises on a bad answer
    (an unknown ``eid`` is a ValueError). A wrong answer's message ends with the first hint, unless
    ``hint`` is False: a notebook's check cell says what is wrong, and its hint button gives the
    hints in steps (the first one included), so the verdict does not repeat it."""
    ex = get(eid)
    if answer is Ellipsis or (answer is None and ex.kind in ("predict", "explain")):
        return not_answered()
    p = params(eid, student)
    try:
        with guard.budget():
            fb = _check(ex, answer, p)
    except NotWritten:
        return not_answered(f"{ex.answer_name} still returns `...`: write its body.")
    except StudentError as exc:
        fb = wrong(f"{str(exc)[0].upper()}{str(exc)[1:]}.")
    except Exception as exc:  # noqa: BLE001 - a check must never show a traceback
        fb = wrong(f"This answer could not be checked ({type(exc).__name__}: {short(str(exc), 120)}).")
    if hint and not fb.correct and fb.answered and ex.hint not in fb.message and not fb.message.startswith("Close:"):
        fb = wrong(f"{fb.message} Hint: {ex.hint}")
    return fb


def _check(ex: Exercise, answer, p: dict) -> Feedback:
    name = ex.answer_name or "answer"
    if ex.kind == "predict":
        if not isinstance(answer, str) or answer not in ex.choices:
            options = ", ".join(repr(k) for k in ex.choices)
            return wrong(f"Choose one of {options}; got {short(answer)}.")
        return ex.grade(answer, p)
    if ex.kind == "explain":
        if not isinstance(answer, str):
            return wrong(f"Write your explanation as text; got {type(answer).__name__}.")
        if len(answer.split()) < 4:
            return not_answered("write your explanation (a sentence or two) before you compare it.")
        return ex.grade(answer, p)
    if ex.kind == "implement":
        if answer is None or not callable(answer):
            return wrong(f"{name} should be a function (def {name}(…): …); got {type(answer).__name__} "
                         f"{short(answer)}.")
        return ex.grade(answer, p)
    # compute, derive: one number (or the vector the exercise asks for)
    if answer is None:
        return wrong(f"{name} is None: set it to a number (did a function you called return None?).")
    return ex.grade(answer, p)


class _TextAnswer(Exception):
    pass


def as_number(answer, name: str = "the answer", shape: tuple = ()) -> np.ndarray | float:
    """The student's answer as one finite number (or an array of ``shape``), or a StudentError.

    Numbers, numpy scalars and arrays of numbers only: text is refused wherever it is (``"2.4"``,
    ``["2.4"]``), and so are True/False, complex numbers and other objects.
    """
    if isinstance(answer, (str, bytes)):
        raise StudentError(f"{name} is text ({short(answer)}): write the number itself, without quotes")
    if isinstance(answer, bool) or isinstance(answer, np.bool_):
        raise StudentError(f"{name} is {answer}, a True/False value: give a number")
    if isinstance(answer, numbers.Real):
        arr = np.asarray(float(answer))
    else:
        if not isinstance(answer, (np.ndarray, list, tuple, np.generic)):
            raise StudentError(f"{name} should be a number; got {type(answer).__name__} {short(answer)}")
        try:
            arr = np.asarray(answer)
        except Exception:  # noqa: BLE001 - ragged lists and the like
            raise StudentError(f"{name} should be a number; got {short(answer)}") from None
        if arr.dtype.kind in "USO":
            raise StudentError(f"{name} contains text or objects ({short(answer)}): give numbers, without quotes")
        if arr.dtype.kind not in "iuf":
            raise StudentError(f"{name} should be a number; got {short(answer)}")
        arr = arr.astype(float)
    want = int(np.prod(shape)) if shape else 1
    if arr.size != want:
        what = "one number" if not shape else f"{want} numbers"
        raise StudentError(f"give {what}; {name} has {arr.size} (shape {arr.shape})")
    arr = arr.reshape(shape)
    if not np.all(np.isfinite(arr)):
        raise StudentError(f"{name} is {short(arr.tolist())}: give finite numbers")
    return float(arr) if not shape else arr


def expectation() -> str | None:
    """What the tests expect of every check cell: "unanswered", "correct" or None (students)."""
    v = os.environ.get(EXPECT_ENV, "").strip().lower()
    return v if v in ("unanswered", "correct") else None


# ------------------------------------------------------------------ graders
#: an answer this many tolerances from the right one is "close: give more digits"
CLOSE = 10.0


def number_grader(target: Callable[[dict], Any], *, rtol=1e-3, atol=0.0, unit: str = "",
                  misconceptions: Callable[[dict], dict] | None = None, shape: tuple = (),
                  name: str = "the answer", digits: int = 4, rounding_aware: bool = False,
                  close_within: float = CLOSE, close_if_rounded: bool = False) -> Callable[[Any, dict], Feedback]:
    """A grader for a number (or a small vector of ``shape``): right within ``rtol``/``atol`` of
    ``target(params)``.

    ``misconceptions(params)`` gives a list of (value, message) pairs: the typical wrong results
    (e.g. the raw count N instead of Ñ) with what the student did; an answer there is told so. An
    answer that is none of them but within :data:`CLOSE` times the tolerance is told to give more
    digits (0.387 for 0.38741), not that it is wrong. ``close_within`` sets that window (a derive check,
    whose wrong derivations can land a few per cent off, narrows it); with ``close_if_rounded`` an answer
    outside it whose every entry is the right one written to the digits the student gave (0.04 for
    0.0398, see :func:`rounds_to`), within 5 %, is still told to give more digits, even where a
    misconception's value lies within the tolerance (those digits cannot tell the two apart).

    ``rounding_aware`` (one number only), for checks whose misconceptions lie a few tolerances from
    the answer: a misconception is named only when the answer is within its tolerance, closer to it
    than to the right answer, and not the right answer written to the digits the student gave (76.3
    for 76.3457, see :func:`rounds_to`); such a rounded answer, if within 5 % (two significant
    digits), is told to give more digits.
    """
    if rounding_aware and shape:
        raise ValueError(f"rounding_aware grades one number, not an array of shape {shape}")

    def close(x, goal, factor=1.0):
        return bool(np.all(np.isclose(x, goal, rtol=factor * rtol, atol=factor * atol)))

    def fmt(x):
        return f"{x:.{digits}g}" if np.ndim(x) == 0 else "(" + ", ".join(f"{v:.{digits}g}" for v in np.ravel(x)) + ")"

    def grade(answer, p) -> Feedback:
        x = as_number(answer, name, shape)
        goal = np.asarray(target(p), dtype=float).reshape(shape) if shape else float(target(p))
        if close(x, goal):
            return right(f"Right: {fmt(goal)}{unit}.")
        rounded = rounding_aware and rounds_to(goal, x)
        written = (rounded or (close_if_rounded and all(rounds_to(g, v) for g, v in zip(np.ravel(goal), np.ravel(x))))
                   ) and bool(np.all(np.abs(x - goal) <= 0.05 * np.abs(goal)))
        for value, msg in (misconceptions(p) if misconceptions else []):
            value = np.asarray(value, dtype=float).reshape(shape) if shape else float(value)
            if close(x, value) and not (rounding_aware and (rounded or abs(x - value) >= abs(x - goal))) and not (
                    close_if_rounded and written):
                return wrong(f"{fmt(x)} is not it: {msg}")
        if close(x, goal, close_within) or written:
            return Feedback(False, f"Close: {fmt_close(x)} is near the answer, but the check wants it "
                                   f"{wanted(rtol, atol)}. Give more digits (compute it in the cell rather than "
                                   "copying a rounded value), or check a rounded intermediate step.")
        return wrong(f"{fmt(x)}{unit} is not it.")

    def fmt_close(x):
        return repr(float(x)) if np.ndim(x) == 0 else "(" + ", ".join(repr(float(v)) for v in np.ravel(x)) + ")"

    return grade


def wanted(rtol: float, atol: float = 0.0) -> str:
    """The precision a check wants, in words: "within 0.1% (4 significant digits)"."""
    import math

    if rtol <= 0:
        return f"within {atol:g}"
    digits = max(2, math.ceil(math.log10(5 / rtol)))
    return f"within {100 * rtol:.2g}% ({digits} significant digits)"


def rounds_to(goal: float, x: float) -> bool:
    """True when ``x`` may be ``goal`` written (rounded or cut) to the digits ``x`` shows: less than one
    unit of its last digit away (76.3 and 76.34 for 76.3457, 60 for 59.7, not 76.29). The digits are
    those of the shortest decimal that gives the float, trailing zeros dropped (what the student typed)."""
    from decimal import Decimal

    x, goal = float(x), float(goal)
    if x == 0 or not (np.isfinite(x) and np.isfinite(goal)):
        return False
    return abs(x - goal) < 10.0 ** Decimal(repr(x)).normalize().as_tuple().exponent


def separated(answer, others, rtol: float, factor: float = 3.0) -> bool:
    """True when every value of ``others`` is more than ``factor`` tolerances away from ``answer``
    (relative; for vectors, in their farthest entry), so that a misconception or a neighbour's
    number cannot pass by accident."""
    x = np.asarray(answer, dtype=float)
    scale = np.maximum(np.abs(x), 1e-300)
    return all(float(np.max(np.abs(x - np.asarray(v, dtype=float)) / scale)) > factor * rtol for v in others)


def numeric(target: Callable[[dict], Any], misconceptions: Callable[[dict], list], *, rtol: float, name: str,
            atol: float = 0.0, shape: tuple = (), also_wrong=(0.0,), when: Callable[[dict], bool] | None = None,
            rounding_aware: bool = False, close_within: float = CLOSE, close_if_rounded: bool = False) -> dict:
    """The ``solution``, ``grade``, ``accept`` and ``wrong_answers`` of an exercise whose answer is a number
    (or a small vector): graded within ``rtol`` of ``target(params)``; the natural wrong answers are the
    misconceptions' values and ``also_wrong``; a drawn instance is kept when every misconception is far from
    the answer (and ``when(params)`` holds, if given); ``rounding_aware``, ``close_within`` and
    ``close_if_rounded`` are :func:`number_grader`'s."""
    def accept(p):
        return (when is None or when(p)) and separated(target(p), [v for v, _ in misconceptions(p)], rtol)

    def wrong_answers(p):
        extra = [np.zeros(shape) if shape and np.ndim(v) == 0 else v for v in also_wrong]
        return [v for v, _ in misconceptions(p)] + extra

    return {"solution": target, "accept": accept, "wrong_answers": wrong_answers, "tolerance": (rtol, atol),
            "grade": number_grader(target, rtol=rtol, atol=atol, shape=shape, misconceptions=misconceptions, name=name,
                                   rounding_aware=rounding_aware, close_within=close_within,
                                   close_if_rounded=close_if_rounded)}


def choice_grader(solution: str, why: dict[str, str]) -> Callable[[Any, dict], Feedback]:
    """A grader for a predict question: ``why[choice]`` explains each choice (the right one too)."""

    def grade(answer, p) -> Feedback:
        text = why.get(answer, "")
        return right(f"Right. {text}".strip()) if answer == solution else wrong(f"Not quite. {text}".strip())

    return grade


def explain_grader(model: str, points) -> Callable[[Any, dict], Feedback]:
    """An explain exercise is self-assessed: the student compares their text with the model answer."""

    def grade(answer, p) -> Feedback:
        listed = "; ".join(f"({i}) {pt}" for i, pt in enumerate(points, 1))
        return right(f"Compare your answer with this one: {model} A good answer mentions {listed}.")

    return grade


def function_grader(reference: Callable, inputs: Callable[[np.random.Generator], tuple], *, trials=20,
                    rtol=1e-9, atol=1e-12, seed=0, simulate: Callable | None = None,
                    name: str = "function", dtype=float) -> Callable[[Any, dict], Feedback]:
    """A grader for an implemented function: equal to ``reference`` on ``trials`` random inputs.

    ``inputs(rng)`` draws the arguments of one trial (arrays shaped like the engine's, (B, K));
    ``simulate(fn)``, if given, runs a short simulation of the student's policy against
    delaylab's on shared draws and returns a Feedback (or None when they agree). Every call of the
    student's function goes through :func:`guard.call` (a time limit, no traceback).
    """

    def grade(fn, p) -> Feedback:
        rng = np.random.default_rng(seed)
        for _trial in range(trials):
            args = inputs(rng)
            want = np.asarray(reference(*args), dtype=dtype)
            got = guard.call(fn, *[a.copy() if isinstance(a, np.ndarray) else a for a in args], name=name)
            got = guard.as_array(got, name, dtype=dtype)
            if got.shape != want.shape:
                return wrong(f"Your {name} returned shape {got.shape}; it should be {want.shape}, one value per "
                             f"run and arm.")
            if dtype is bool:
                same = got == want
            else:
                same = np.isclose(got, want, rtol=rtol, atol=atol) | (
                    np.isinf(got) & np.isinf(want) & (np.sign(got) == np.sign(want)))
            if not same.all():
                return wrong(counterexample(_argnames(reference), args, got, want, same, name))
        if simulate is not None:
            fb = simulate(fn)
            if fb is not None:
                return fb
        return right(f"Right: equal to delaylab's implementation on {trials} random batches"
                     + (" and in a simulation with shared draws." if simulate is not None else "."))

    return grade


def counterexample(names, args, got, want, same, name: str = "function") -> str:
    """The first input on which the student's function differs, whole: every argument's row of the
    run that decides it (an elimination depends on the whole row: the best active arm), the small
    arrays in full, and the two outputs of that run side by side."""
    i = tuple(int(j) for j in np.argwhere(~same)[0])
    runs = want.shape[0] if want.ndim else None
    run = i[0] if runs is not None else None
    parts = []
    for n, a in zip(names, args):
        if isinstance(a, np.ndarray) and a.ndim >= 1 and runs is not None and a.shape[0] == runs and runs > 1:
            parts.append(f"{n}[{run}] = {_show(a[run])}")
        else:
            parts.append(f"{n} = {_show(a)}")
    where = f"run {run}" if runs is not None and runs > 1 else "this input"
    g, w = (got[run], want[run]) if runs is not None and want.ndim >= 1 else (got, want)
    differ = ""
    if want.ndim >= 2:
        cols = [int(k) for k in np.argwhere(~np.asarray(same[run]).reshape(-1))[:, 0]]
        differ = f" (they differ at index {', '.join(map(str, cols[:6]))})"
    return (f"Not yet: for {where}, with {'; '.join(parts)}, your {name} gives {_show(g)} where it should give "
            f"{_show(w)}{differ}.")


def _show(a, limit: int = 24) -> str:
    """An argument or an output as the student reads it: a number, or an array in full when small."""
    if isinstance(a, (bool, np.bool_)):
        return str(bool(a))
    if isinstance(a, numbers.Real):
        return f"{a:.4g}"
    if isinstance(a, np.ndarray):
        if a.size > limit:
            return f"an array of shape {a.shape}"
        if a.dtype == bool:
            body = np.array2string(a, separator=", ")
        else:
            body = np.array2string(np.asarray(a, dtype=float), separator=", ", precision=4, suppress_small=False,
                                   formatter={"float_kind": lambda v: f"{v:.4g}"})
        return body.replace("\n", "")
    return short(a, 40)


def _argnames(fn) -> list[str]:
    import inspect

    return list(inspect.signature(fn).parameters)
