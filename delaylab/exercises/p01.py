"""Exercises of notebook 01: Vernade, Cappé, Perchet (2017), delayed conversions."""

from __future__ import annotations

import numpy as np

from .. import bounds
from ..indices import delayed_ucb_index, kl_bernoulli
from ..laws import Geometric
from ..policies.delayed import DelayedUCB
from ..settings.bernoulli import Conversions
from ._core import Exercise, choice_grader, function_grader, number_grader, register
from .student import race_check, run_student


# ---------------------------------------------------------------- compute: Ñ by hand (Section 2)
NT_LAW, NT_PULLS, NT_NOW, NT_WINDOW = Geometric(mean=2), (2, 5, 9), 12, 4


def _tau(d):
    return float(NT_LAW.cdf(d))


def n_tilde_answer() -> float:
    """Ñ = Σ_s τ(min(t − 1 − s, m)) over the pulls s of the arm: τ(d) = 1 − (2/3)^(d+1) for μ = 2."""
    return sum(_tau(min(NT_NOW - 1 - s, NT_WINDOW)) for s in NT_PULLS)


register(Exercise(
    id="01.n-tilde",
    kind="compute",
    title="Compute Ñ by hand for three pulls",
    answer_name="n_tilde",
    stub=("# An arm was pulled at steps s = 2, 5 and 9; the learner now decides step t = 12.\n"
          "# Geometric delays with mean μ = 2: τ(d) = P(D ≤ d) = 1 − λ^(d+1), λ = μ/(1+μ) = 2/3; window m = 4.\n"
          "n_tilde = ...   # Ñ for this arm: a number (a Python expression is fine)\n"),
    solution_code=("lam = 2 / 3\n"
                   "tau = lambda d: 1 - lam ** (d + 1)\n"
                   "n_tilde = sum(tau(min(12 - 1 - s, 4)) for s in (2, 5, 9))   # 2·τ(4) + τ(2) ≈ 2.4403\n"),
    solution=n_tilde_answer(),
    grade=number_grader(n_tilde_answer, rtol=5e-3, misconceptions={
        3.0: "that is N, the raw number of pulls: a pull whose conversion could still be on its way counts "
             "only for the probability τ that its news has arrived.",
        sum(_tau(NT_NOW - 1 - s) for s in NT_PULLS): "this ignores the window: a conversion later than m = 4 "
             "steps is never seen, so no lag counts beyond m (τ(min(t − 1 − s, m))).",
        sum(_tau(min(NT_NOW - s, NT_WINDOW)) for s in NT_PULLS): "the lag is off by one: at the decision of "
             "step t the learner knows the conversions revealed by the end of step t − 1, so the lag of a pull "
             "at s is t − 1 − s.",
        len(NT_PULLS) * _tau(NT_WINDOW): "that is τ_m·N, Discarding's count: it holds only for pulls at least "
             "m steps old; the recent pull at s = 9 has had only 2 steps.",
    }),
    hint=("Look again at Section 2 (Counting what could have been seen): Ñ weights each pull by τ of its "
          "lag t − 1 − s, capped at the window m."),
    explanation=("Lags at t = 12: 9, 6 and 2, capped at m = 4: Ñ = τ(4) + τ(4) + τ(2) = 2(1 − (2/3)⁵) + "
                 "(1 − (2/3)³) ≈ 2.440. Dividing the conversions seen by Ñ, not by N = 3, removes the bias "
                 "of the pulls whose news may still come."),
    wrong_answers=[3, 2.6278, 2.5391, 2.6049, 0.0],
))


# ---------------------------------------------------------------- predict: doubling the window (Section 4)
register(Exercise(
    id="01.window",
    kind="predict",
    title="Predict: double the window m",
    choices={
        "both-shrink": "both shrink: a larger window shows more conversions",
        "discarding-grows": "Discarding KL-UCB's grows a lot; D-KLUCB's barely changes",
        "both-grow": "both grow: with a longer window everybody waits longer",
        "dklucb-grows": "D-KLUCB's grows; Discarding KL-UCB's shrinks",
    },
    solution="discarding-grows",
    grade=choice_grader("discarding-grows", {
        "both-shrink": "A larger window does show more conversions (τ_m rises from 0.86 to 0.98), but "
                       "Discarding uses only pulls at least m steps old: for its first m = 2000 steps it has no "
                       "index and plays round robin, 0.04 regret per step on θ_L.",
        "discarding-grows": "Discarding plays round robin until its pulls are m steps old: with m = 2000 that "
                            "is 0.04 × 2000 = 80 regret before it learns anything. D-KLUCB uses every pull from "
                            "the start; τ_m rises from 0.86 to 0.98, so it sees a few more conversions and its "
                            "regret barely moves (slightly down).",
        "both-grow": "D-KLUCB does not wait: it divides by Ñ and uses every pull from the first step, so a longer "
                     "window only shows it more conversions.",
        "dklucb-grows": "It is the other way round: Discarding waits m steps before it has an index.",
    }),
    hint=("Look again at Section 3 (The algorithms: Discarding uses only pulls at least m steps old) and at "
          "Section 7 (Figure 2: what waiting costs)."),
    explanation=("At the panel's μ = 500, θ_L, T = 2500, when m goes from 1000 to 2000: D-KLUCB's regret stays "
                 "about 30 (30.2 → 29.5 over 60 runs), Discarding KL-UCB's goes from 44 to 83."),
    wrong_answers=["both-shrink", "both-grow", "dklucb-grows"],
))


# ---------------------------------------------------------------- implement: the D-UCB index (Section 4)
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
    hint=("Look again at Section 3 (The algorithms): the estimate divides by Ñ, not N, and the width "
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


# ---------------------------------------------------------------- compute: Theorem 3's constant (Section 5)
LB_THETA, LB_MEAN_DELAY, LB_WINDOW = (0.1, 0.05), 500, 1000


def lower_bound_answer() -> float:
    """Σ_k (θ* − θ_k) / d(τ_m θ_k, τ_m θ*) for θ = (0.1, 0.05), geometric μ = 500, m = 1000."""
    return bounds.censored_slope(LB_THETA, float(Geometric(LB_MEAN_DELAY).cdf(LB_WINDOW)))


_TM = float(Geometric(LB_MEAN_DELAY).cdf(LB_WINDOW))

register(Exercise(
    id="01.lower-bound",
    kind="compute",
    title="Compute the constant of Theorem 3's lower bound",
    answer_name="slope_c",
    stub=("# Two arms θ = (0.1, 0.05), geometric delays with mean μ = 500, window m = 1000.\n"
          "# d(p, q) = p log(p/q) + (1 − p) log((1 − p)/(1 − q)) is the Bernoulli divergence (dl.indices.kl_bernoulli).\n"
          "slope_c = ...   # c such that the regret of any uniformly efficient algorithm grows at least like c·log T\n"),
    solution_code=("tau_m = dl.Geometric(mean=500).cdf(1000)           # P(D ≤ m) ≈ 0.865\n"
                   "slope_c = (0.1 - 0.05) / dl.indices.kl_bernoulli(tau_m * 0.05, tau_m * 0.1)   # ≈ 3.50\n"),
    solution=lower_bound_answer(),
    grade=number_grader(lower_bound_answer, rtol=5e-3, misconceptions={
        bounds.lai_robbins_slope(LB_THETA): "that is Lai & Robbins' constant (Theorem 4, uncensored): with a "
            "window, only a share τ_m of the conversions is ever seen, so the divergence is between τ_mθ_k and τ_mθ*.",
        bounds.censored_slope(LB_THETA, _TM, paper_regret=True): "that is the paper's constant for its own "
            "regret L(T), whose terms carry a factor τ_m; the panel plots the pseudo-regret Σ Δ (no factor τ_m).",
        0.05 / float(kl_bernoulli(_TM * 0.1, _TM * 0.05)): "the divergence's arguments are swapped: "
            "d(τ_mθ_k, τ_mθ*), the suboptimal arm first.",
        1 / float(kl_bernoulli(_TM * 0.05, _TM * 0.1)): "that is the number of pulls per log T of the "
            "suboptimal arm; the regret multiplies it by the gap Δ = 0.05.",
    }),
    hint=("Look again at Section 5 (How hard is it? The lower bounds): Theorem 3 uses d(τ_mθ_k, τ_mθ*) and "
          "each suboptimal pull costs the gap Δ_k."),
    explanation=("τ_m = 1 − (500/501)^1001 ≈ 0.865, and c = Δ/d(τ_m·0.05, τ_m·0.1) ≈ 3.50, above the "
                 "uncensored 2.99: censoring makes the problem harder. This is an asymptotic slope (T → ∞): at "
                 "the panel's horizons the curves may lie below c·log T."),
    wrong_answers=[bounds.lai_robbins_slope(LB_THETA), bounds.censored_slope(LB_THETA, _TM, paper_regret=True),
                   0.05 / float(kl_bernoulli(_TM * 0.1, _TM * 0.05)), 0],
))
