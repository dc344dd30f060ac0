"""Exercises of the workbook: predict, compute, derive, explain, implement — checked on the spot,
each student with their own numbers.

The contract the notebooks and the tests use::

    from delaylab import exercises as ex
    ex.start("s1234")            # the student whose numbers the exercises use ("" or none: the default)
    ex.ids("01")                 # the exercise ids of notebook 01, in order
    ex.kind(eid)                 # "predict" | "compute" | "derive" | "explain" | "implement"
    fb = ex.check(eid, answer)   # fb.correct, fb.message; never raises on a bad answer
    ex.solution(eid)             # the reference answer for the current student (a choice, a number,
                                 # a function, or the model answer of an explain question)

``check`` and ``solution`` take ``student=`` to ask about another instance. In a notebook:
``ex.given(eid)`` shows the student's numbers above a compute or derive exercise;
``ex.predict(eid)`` and ``ex.explain(eid)`` are widgets that check themselves (on the dashboards
too); ``ex.feedback(eid)`` is the check cell of a compute, derive or implement exercise (it grades
the value the answer cell set when it last ran, and offers hints in steps, then the solution);
``ex.race(panel, eid)`` races an implement exercise's function as "your policy" in a live panel,
on the same draws as the paper's; ``ex.table()`` lists the exercises notebook by notebook, and
``ex.progress()`` shows the student's progress through them (each check is kept in a file per
student beside the notebooks, :mod:`.work`, and restored when a notebook starts again). An
answer that is ``...`` (as shipped) is "not answered yet", so Run All works for a student who skips.

A paper's module (``p01.py`` … ``p05.py``) adds its exercises with ``register(Exercise(...))``, graded
by ``numeric`` / ``number_grader`` (numbers), ``choice_grader`` (predict) or ``function_grader``
(implement); ``unregister(eid)`` removes one again (a test's own exercise). docs/adding-a-paper.md
walks through it.
"""

from ._core import (KINDS, Exercise, Feedback, check, explanation, get, ids, kind, params, register, solution,
                    solution_code, solution_setting, wrong_answers)
from ._core import given as given_text
from ._core import choice_grader, function_grader, number_grader, numeric, unregister  # for a paper's exercises
from .ui import explain, feedback, heading, install_capture, predict, progress, race, record, start, table
from .ui import show_given as given

from . import p01, p02, p03, p04, p05  # noqa: E402,F401  (registration, in notebook order)

install_capture()  # answers are taken when their cell runs (see .ui)

__all__ = ["KINDS", "Exercise", "Feedback", "check", "explain", "explanation", "feedback", "get", "given",
           "given_text", "heading", "ids", "kind", "params", "predict", "progress", "race", "record", "register", "solution",
           "solution_code", "solution_setting", "start", "table", "wrong_answers",
           "choice_grader", "function_grader", "number_grader", "numeric", "unregister"]
