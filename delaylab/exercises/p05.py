"""Exercises of notebook 05: Thune, Cesa-Bianchi, Seldin (2019), nonstochastic bandits with
unrestricted delays (DEW, Skipper).

The numbers come from :func:`delaylab.policies.exp_weights.theorem1_eta`,
:func:`delaylab.policies.skipper.corollary4_beta` and the notebook's own delay sequence.
"""

from __future__ import annotations

import math

import numpy as np

from ..policies.exp_weights import DEW, theorem1_eta
from ..policies.skipper import corollary4_beta
from ..settings.adversarial import AdversarialLosses
from ..settings import sequences as sq
from ._core import Exercise, choice_grader, function_grader, number_grader, register
from .student import race_check, run_student

# the notebook's sequence: T = 1000, d = 20 except five rounds with d = 500, K = 2
K, T = 2, 1000
D = 995 * 20 + 5 * 500
DMAX = 500



def _zeros_update(L_hat, run, arm, loss, p_pull, p_now):
    """A wrong answer (tests): all zeros."""
    return np.zeros_like(L_hat)

# ---------------------------------------------------------------- compute: DEW's learning rate
def eta_answer() -> float:
    """η' = min(η, 1/(4e d_max)) with η of Theorem 1."""
    return min(theorem1_eta(K, T, D), 1 / (4 * math.e * DMAX))


register(Exercise(
    id="05.eta",
    kind="compute",
    title="DEW's learning rate, tuned by Theorem 1 and truncated",
    answer_name="eta_prime",
    stub=("# K = 2 arms, T = 1000 rounds, delays d = 20 except five rounds with d = 500 (the sequence above).\n"
          "# The learning rate DEW actually uses, η' = min(η, 1/(4e·d_max)), with η tuned as in Theorem 1.\n"
          "# (math and numpy are imported: math.e, math.log, np.sqrt …)\n"
          "eta_prime = ...\n"),
    solution_code=("K, T = 2, 1000\n"
                   "D = 995 * 20 + 5 * 500                       # total delay\n"
                   "eta = math.sqrt(math.log(K) / (K * T * math.e / 2 + D))\n"
                   "eta_prime = min(eta, 1 / (4 * math.e * 500))\n"),
    solution=eta_answer(),
    grade=number_grader(eta_answer, rtol=5e-3, misconceptions={
        (lambda: theorem1_eta(K, T, D)): "that is Theorem 1's η before truncation; DEW uses "
                                         "η' = min(η, 1/(4e·d_max)), and d_max = 500 here.",
        (lambda: min(theorem1_eta(K, T, 0), 1 / (4 * math.e * DMAX))): "you left out D; but the truncation "
                                                                      "decides anyway — check which term is smaller.",
        (lambda: min(theorem1_eta(K, T, D), 1 / (4 * math.e * 20))): "d_max is the largest delay of the sequence "
                                                                     "(500), not the typical one (20).",
        (lambda: math.sqrt(math.log(K) / (K * T * math.e / 2))): "that is η without D and without truncation.",
    }),
    hint=("Section 2 of the notebook: η = sqrt(ln K / (KTe/2 + D)) with D the sum of all delays, then "
          "η' = min(η, 1/(4e·d_max)) with d_max the largest delay."),
    explanation=(f"D = 22,400, η = sqrt(ln 2/(1000e + 22,400)) ≈ {theorem1_eta(K, T, D):.2e}, but 1/(4e·500) ≈ "
                 f"{1 / (4 * math.e * DMAX):.2e} is smaller: five delays out of a thousand set the learning rate, "
                 "28 times smaller than Theorem 1's η."),
    wrong_answers=[theorem1_eta(K, T, D), min(theorem1_eta(K, T, D), 1 / (4 * math.e * 20)), 0.0],
))


# ---------------------------------------------------------------- implement: DEW's delayed update
def dew_update(L_hat, run, arm, loss, p_pull, p_now):
    """L̂ plus the importance-weighted estimates ℓ_s(A_s)/p_s(A_s) of the losses that just arrived."""
    out = L_hat.copy()
    np.add.at(out, (run, arm), loss / p_pull)
    return out


def _update_inputs(rng):
    B, K_ = int(rng.integers(1, 6)), int(rng.integers(2, 6))
    n = int(rng.integers(1, 12))
    L_hat = rng.uniform(0, 30, size=(B, K_))
    run = rng.integers(0, B, size=n)
    arm = rng.integers(0, K_, size=n)
    loss = rng.uniform(0, 1, size=n)
    p_pull = rng.uniform(0.05, 1.0, size=n)
    p_now = rng.dirichlet(np.ones(K_), size=B)
    return L_hat, run, arm, loss, p_pull, p_now


class StudentDEW(DEW):
    """DEW whose update of the arrived loss estimates is the student's function."""

    def __init__(self, update_fn=None, eta=0.1, dmax=None):
        self.update_fn = update_fn
        super().__init__(eta=eta, dmax=dmax)

    @property
    def label(self):
        return "your DEW"

    def _observe(self, feedback, keep=None):
        sel = slice(None) if keep is None else keep
        run, arm, step, loss = feedback.run[sel], feedback.arm[sel], feedback.step[sel], feedback.value[sel]
        p_pull = self.p_at_pull(step, run)
        self.cum_loss_[...] = run_student(self.update_fn, "dew_update", self.cum_loss_.shape, self.cum_loss_.copy(),
                                          run.copy(), arm.copy(), np.asarray(loss, dtype=float).copy(),
                                          p_pull.copy(), self.p_.copy())


def _dew_race(fn):
    delays = sq.spiked_delays(400, 3, spike=200, base=10, seed=0)
    losses = sq.bernoulli_losses([0.25, 0.75], 400, seed=0)
    env = AdversarialLosses(losses, delays, reveal="at_action")
    return race_check(lambda: StudentDEW(fn, eta=0.05, dmax=float(delays.max())),
                      lambda: DEW(eta=0.05, dmax=float(delays.max())), env, horizon=400, runs=20)


register(Exercise(
    id="05.dew-update",
    kind="implement",
    title="Implement DEW's delayed, importance-weighted update and race it",
    answer_name="dew_update",
    stub=("def dew_update(L_hat, run, arm, loss, p_pull, p_now):\n"
          "    \"\"\"The new sums of arrived loss estimates, shape (runs, K), after the losses that just arrived.\n"
          "    L_hat (runs, K): L̂_t before; one entry per arriving loss: run, arm (int arrays: which run, which\n"
          "    arm A_s was pulled), loss (ℓ_s(A_s)), p_pull (p_s(A_s), the probability of that arm when it was\n"
          "    pulled); p_now (runs, K): the current distribution p_t.\"\"\"\n"
          "    # your code here (a run can receive several losses at once: np.add.at adds them all)\n"
          "    return ...\n"),
    solution_code=("def dew_update(L_hat, run, arm, loss, p_pull, p_now):\n"
                   "    out = L_hat.copy()\n"
                   "    np.add.at(out, (run, arm), loss / p_pull)\n"
                   "    return out\n"),
    solution=dew_update,
    grade=function_grader(dew_update, _update_inputs, trials=30, simulate=_dew_race),
    hint=("Section 2 of the notebook: ℓ̂_s(a) = ℓ_s(a)·1{a = A_s}/p_s(A_s) divides by the probability at the "
          "time s of the pull (p_pull), not by today's p_t, and every arrived estimate is added to L̂."),
    explanation=("Dividing by p_s(A_s) makes the estimate unbiased for the distribution the arm was actually drawn "
                 "from; the current p_t has moved since (the loss was delayed), and dividing by it biases L̂. "
                 "DEW then plays p_{t+1} ∝ exp(−η'L̂)."),
    wrong_answers=[
        _zeros_update,
        lambda L_hat, run, arm, loss, p_pull, p_now: _add(L_hat, run, arm, loss),               # no weighting
        lambda L_hat, run, arm, loss, p_pull, p_now: _add(L_hat, run, arm, loss / p_now[run, arm]),  # p today
        lambda L_hat, run, arm, loss, p_pull, p_now: _assign(L_hat, run, arm, loss / p_pull),    # += drops repeats
    ],
    policy=lambda fn, eta, dmax=None: StudentDEW(fn, eta, dmax),
))


def _add(L, run, arm, values):
    out = L.copy()
    np.add.at(out, (run, arm), values)
    return out


def _assign(L, run, arm, values):
    out = L.copy()
    out[run, arm] += values  # a repeated (run, arm) is added once only
    return out


# ---------------------------------------------------------------- compute: Corollary 4's threshold
def beta_answer() -> float:
    return corollary4_beta(K, T, D)


register(Exercise(
    id="05.beta-cor4",
    kind="compute",
    title="Corollary 4's threshold β for the notebook's sequence",
    answer_name="beta",
    stub=("# Corollary 4's β for the same sequence (K = 2, T = 1000, d = 20 except five rounds with d = 500).\n"
          "beta = ...\n"),
    solution_code=("K, T, D = 2, 1000, 995 * 20 + 5 * 500\n"
                   "beta = math.sqrt((math.e * K * T / 2 + D) / (4 * math.e * math.log(K)))\n"),
    solution=beta_answer(),
    grade=number_grader(beta_answer, rtol=5e-3, misconceptions={
        (lambda: corollary4_beta(K, T, 0)): "you left out D, the total delay: with D = 22,400 it is the larger part.",
        (lambda: math.sqrt((math.e * K * T / 2 + D) / math.log(K))): "the denominator is 4e·ln K.",
        (lambda: (math.e * K * T / 2 + D) / (4 * math.e * math.log(K))): "take the square root.",
    }),
    hint="Section 3 of the notebook: Corollary 4 takes β = sqrt((eKT/2 + D)/(4e ln K)), with D the sum of all the delays.",
    explanation=(f"β = sqrt((1000e + 22,400)/(4e ln 2)) ≈ {beta_answer():.1f}: the five rounds with d = 500 are "
                 "skipped, the others (d = 20 < β) are kept, and the base DEW uses η = 1/(4eβ) instead of "
                 "1/(4e·500)."),
    wrong_answers=[corollary4_beta(K, T, 0), (math.e * K * T / 2 + D) / (4 * math.e * math.log(K)), 0.0],
))


# ---------------------------------------------------------------- predict: a small threshold β
register(Exercise(
    id="05.skipper-beta",
    kind="predict",
    title="Skipper with a threshold below the typical delay",
    choices={
        "uniform": "Skipper skips every round, learns nothing and plays uniformly: its regret grows linearly",
        "better": "Skipper learns faster: it keeps only the freshest feedback",
        "same": "nothing changes: the five huge delays are skipped either way",
    },
    solution="uniform",
    grade=choice_grader("uniform", {
        "uniform": "Every round with d_s ≥ β is skipped; with β = 5 and d = 20 that is every round. The base DEW "
                   "never sees a loss and keeps p uniform: each skipped round costs up to one unit of regret "
                   "(Lemma 2).",
        "better": "Skipper keeps only the losses with d_s < β. With β = 5 and d = 20 there are none left: "
                  "nothing is fresh enough.",
        "same": "The five huge rounds are skipped for any β ≤ 500, but with β = 5 the 995 ordinary rounds "
                "(d = 20 ≥ β) are skipped too.",
    }),
    hint="Section 3 of the notebook: the skipped set is S_β = {t : d_t ≥ β}; what is in it when β = 5 and d = 20?",
    explanation="S_β = {t : d_t ≥ β} is every round when β ≤ d: |S_β| = T, the first term of Theorem 3, dominates.",
    wrong_answers=["better", "same"],
))
