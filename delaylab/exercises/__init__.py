"""Exercises of the workbook: predict, compute, implement — checked on the spot.

The contract the notebooks and the tests use::

    from delaylab import exercises as ex
    ex.ids("01")                 # the exercise ids of notebook 01, in order
    ex.kind(eid)                 # "predict" | "compute" | "implement"
    fb = ex.check(eid, answer)   # fb.correct, fb.message; never raises on a bad answer
    ex.solution(eid)             # the reference answer (a choice, a number or a function)

In a notebook: ``ex.predict(eid)`` shows a predict question as a widget (choices and a check
button); ``ex.feedback(eid)`` is the check cell of a compute or implement exercise (it reads the
answer from the notebook, shows the verdict and a "show solution" button); ``ex.race(panel, eid)`` races an
implement exercise's function as "your policy" in a live panel, on the same draws as the paper's;
``ex.table()`` lists the exercises notebook by notebook (the index notebook shows it). An answer that is
``...`` (as shipped) or missing is "not answered yet", so Run All works for a student who skips.
"""

from ._core import KINDS, Exercise, Feedback, check, get, ids, kind, register, solution
from .ui import feedback, predict, race, table

from . import p01, p02, p03, p04, p05  # noqa: E402,F401  (registration, in notebook order)

__all__ = ["KINDS", "Exercise", "Feedback", "check", "feedback", "get", "ids", "kind", "predict", "race",
           "register", "solution", "table"]
