"""Exercises of notebook 01: Vernade, Cappé, Perchet (2017), delayed conversions."""

from __future__ import annotations

import numpy as np

from ..indices import delayed_ucb_index
from ..laws import Geometric
from ..policies.delayed import DelayedUCB
from ..settings.bernoulli import Conversions
from ._core import Exercise, function_grader, register
from .student import race_check, run_student


# ---------------------------------------------------------------- implement: the D-UCB index
def d_ucb_index(S, N, N_tilde, t):
    """D-UCB's index (Section 5.2): θ̂ + sqrt(N/Ñ)·sqrt(β(t)/(2Ñ)), θ̂ = S/Ñ, β(t) = log t.

    S, N, N_tilde have shape (runs, arms) and N_tilde > 0; t is the 1-based decision number.
    """
    theta_hat = S / N_tilde
    return theta_hat + np.sqrt(N / N_tilde) * np.sqrt(np.log(t) / (2 * N_tilde))


def _index_inputs(rng):
    B, K = rng.integers(1, 6), rng.integers(2, 5)
    N = rng.integers(1, 400, size=(B, K)).astype(float)
    N_tilde = N * rng.uniform(0.05, 1.0, size=(B, K))
    S = np.floor(N_tilde * rng.uniform(0, 0.6, size=(B, K)))
    t = int(N.sum(axis=1).max()) + int(rng.integers(1, 50))
    return S, N, N_tilde, t


class StudentDelayedUCB(DelayedUCB):
    """D-UCB whose index is the student's function (Ñ = 0 still gives +inf, as in delaylab's)."""

    def __init__(self, index_fn=None, delay=None, window=None, eps=0.0):
        self.index_fn = index_fn
        super().__init__(delay, window, eps)

    @property
    def label(self):
        return "your D-UCB"

    def index(self, t):
        n_tilde = self.count_.value()
        seen = n_tilde > 0
        safe = np.where(seen, n_tilde, 1.0)
        idx = run_student(self.index_fn, "d_ucb_index", n_tilde.shape, self.successes_.copy(), self.pulls_.copy(),
                          safe, t + 1)
        return np.where(seen, idx, np.inf)


def _d_ucb_race(fn):
    law = Geometric(mean=50)
    env = Conversions(means=(0.5, 0.4, 0.3), delays=law, window=100)
    return race_check(lambda: StudentDelayedUCB(fn, law, 100), lambda: DelayedUCB(law, 100), env)


register(Exercise(
    id="01.d-ucb-index",
    kind="implement",
    title="Implement the D-UCB index and race it",
    answer_name="d_ucb_index",
    stub=("def d_ucb_index(S, N, N_tilde, t):\n"
          "    \"\"\"D-UCB's index for every run and arm (arrays of shape (runs, arms); N_tilde > 0).\n"
          "    S: conversions seen, N: pulls, N_tilde: delay-corrected count Ñ, t: decision number (1, 2, …).\"\"\"\n"
          "    # your code here: θ̂ = S / Ñ, then add the exploration width of Section 5.2 with β(t) = log t\n"
          "    return ...\n"),
    solution_code=("def d_ucb_index(S, N, N_tilde, t):\n"
                   "    theta_hat = S / N_tilde\n"
                   "    return theta_hat + np.sqrt(N / N_tilde) * np.sqrt(np.log(t) / (2 * N_tilde))\n"),
    solution=d_ucb_index,
    grade=function_grader(lambda S, N, N_tilde, t: delayed_ucb_index(S / N_tilde, N, N_tilde, np.log(t)),
                          _index_inputs, simulate=_d_ucb_race),
    hint=("Look again at Section 3 of the notebook: the estimate divides by Ñ, not N, and the width "
          "sqrt(β/(2Ñ)) is inflated by sqrt(N/Ñ) ≥ 1."),
    explanation=("θ̂ = S/Ñ is unbiased because Ñ counts only the pulls that could have converted by now; "
                 "the factor sqrt(N/Ñ) widens the interval while feedback is still on its way."),
    wrong_answers=[
        lambda S, N, N_tilde, t: np.zeros_like(S),
        lambda S, N, N_tilde, t: S / N + np.sqrt(np.log(t) / (2 * N)),                   # UCB on raw counts
        lambda S, N, N_tilde, t: S / N_tilde + np.sqrt(np.log(t) / (2 * N_tilde)),       # no sqrt(N/Ñ)
    ],
    policy=lambda fn, delay, window: StudentDelayedUCB(fn, delay, window),
))
