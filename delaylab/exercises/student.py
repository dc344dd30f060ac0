"""The student's function inside the engine: errors become one sentence, not a traceback."""

from __future__ import annotations

import numpy as np

from . import guard
from ._core import Feedback, wrong
from .guard import NotWritten, StudentError


class StudentCodeError(StudentError, ValueError):
    """The student's function failed or returned something unusable during a simulation."""


def run_student(fn, name: str, shape: tuple, *args, dtype=float) -> np.ndarray:
    """``fn(*args)`` as an array of ``shape`` (with :func:`guard.call`'s time limit), or a
    StudentCodeError saying what went wrong."""
    try:
        return guard.as_array(guard.call(fn, *args, name=name), name, shape, dtype=dtype)
    except NotWritten:
        raise
    except StudentError as exc:
        raise StudentCodeError(str(exc)) from None


def race_check(make_student, make_reference, setting, *, horizon=400, runs=20, seed=1,
               min_same=0.9, rel=0.02) -> Feedback | None:
    """Simulate the student's policy and delaylab's on shared draws (common random numbers).

    None when they agree: at least ``min_same`` of the runs end with exactly the same regret
    (rounding can flip an exact tie between arms, hence not all) and the mean final regrets
    differ by at most ``rel`` (relative) — else a Feedback saying how far apart they are.
    """
    from ..engine import simulate

    try:
        res = simulate(setting, {"yours": make_student(), "delaylab": make_reference()}, horizon, runs, seed,
                       checkpoints=1)
    except NotWritten:
        raise
    except StudentError as exc:
        return wrong(f"In a simulation, {exc}.")
    mine, ref = res.regret["yours"][:, -1], res.regret["delaylab"][:, -1]
    same = float(np.mean(np.isclose(mine, ref, rtol=1e-9, atol=1e-9)))
    gap = abs(mine.mean() - ref.mean())
    if same >= min_same and gap <= rel * max(ref.mean(), 1.0):
        return None
    return wrong(f"On random inputs your function agrees, but in a simulation ({runs} runs, T = {horizon}) your "
                 f"policy's mean regret is {mine.mean():.2f} against {ref.mean():.2f} for delaylab's.")


__all__ = ["StudentCodeError", "run_student", "race_check"]
