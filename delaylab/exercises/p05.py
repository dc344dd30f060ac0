"""Exercises of notebook 05: Thune, Cesa-Bianchi, Seldin (2019), nonstochastic bandits with
unrestricted delays (DEW, Skipper).

The numbers come from :func:`delaylab.policies.exp_weights.theorem1_eta` and
:func:`delaylab.policies.skipper.corollary4_beta`; the compute and derive exercises draw their
parameters from the student.
"""

from __future__ import annotations

import math

import numpy as np

from ..policies.exp_weights import DEW, theorem1_eta
from ..policies.skipper import corollary4_beta
from ..settings import sequences as sq
from ..settings.adversarial import AdversarialLosses
from ._core import Exercise, choice_grader, function_grader, numeric, register
from .student import race_check, run_student

E = math.e


def _zeros_update(L_hat, run, arm, loss, p_pull, p_now):
    """A wrong answer (tests): all zeros."""
    return np.zeros_like(L_hat)


# ---------------------------------------------------------------- 5.1 compute: DEW's learning rate
def _D(p):
    return (p["T"] - p["n"]) * p["d"] + p["n"] * p["s"]


def _eta_p(p):
    return min(theorem1_eta(p["K"], p["T"], _D(p)), 1 / (4 * E * p["s"]))


def _eta_wrong(p):
    K, T, D, s = p["K"], p["T"], _D(p), p["s"]
    trunc = 1 / (4 * E * s)
    no_d = math.sqrt(math.log(K) / (K * T * E / 2))
    return [
        (trunc, f"that is the truncation 1/(4e·d_max) = 1/(4e·{s}); here it is larger than Theorem 1's η, so the "
                "minimum is η itself."),
        (no_d, "you left out D, the sum of all the delays: η = sqrt(ln K/(KTe/2 + D))."),
        (min(math.sqrt(math.log(K) / (K * T / 2 + D)), trunc), "the first term of the denominator is KTe/2 (with "
                                                               "e = 2.718…), not KT/2."),
        (min(math.sqrt(math.log10(K) / (K * T * E / 2 + D)), trunc), "ln K is the natural logarithm (math.log), "
                                                                     "not log₁₀."),
        (1 / (4 * E * p["d"]), "d_max is the largest delay of the sequence, and the truncation does not bind here "
                               "anyway: compare it with Theorem 1's η."),
    ]


def _eta_draw(d):
    return {"K": d.integer(2, 6), "T": int(d.grid(2000, 20000, 100)), "d": d.integer(2, 8), "n": d.integer(1, 5),
            "s": d.integer(10, 40)}


def _eta_binds(p):
    """Theorem 1's η is DEW's rate (the truncation does not bind), and the huge rounds are huge."""
    return p["s"] > p["d"] + 2 and 1 / (4 * E * p["s"]) > 1.05 * theorem1_eta(p["K"], p["T"], _D(p))


register(Exercise(
    id="05.eta",
    kind="compute",
    stars=2,
    minutes=10,
    title="DEW's learning rate, tuned by Theorem 1 and truncated",
    answer_name="eta_prime",
    stub=("# ✎ Exercise 5.1: η' = min(η, 1/(4e·d_max)) with Theorem 1's η, for YOUR sequence (shown above).\n"
          "# (math and numpy are imported: math.e, math.log, np.sqrt …)\n"
          "eta_prime = ...\n"),
    solution_code=lambda p: (
        f"K, T = {p['K']}, {p['T']}\n"
        f"D = {p['T'] - p['n']} * {p['d']} + {p['n']} * {p['s']}           # the sum of all the delays\n"
        "eta = math.sqrt(math.log(K) / (K * T * math.e / 2 + D))     # Theorem 1\n"
        f"eta_prime = min(eta, 1 / (4 * math.e * {p['s']}))            # d_max = {p['s']}\n"),
    draw=_eta_draw,
    default={"K": 2, "T": 5000, "d": 5, "n": 3, "s": 20},
    given=lambda p: (f"K = {p['K']} arms, T = {p['T']:,} rounds; every round has delay d = {p['d']} except {p['n']} "
                     f"round{'s' if p['n'] > 1 else ''} with delay {p['s']}. DEW is tuned as in Theorem 1 (T and D "
                     "known) and truncated with d_max, the largest delay."),
    **numeric(_eta_p, _eta_wrong, rtol=1e-3, name="eta_prime", when=_eta_binds),
    hints=("Section 2: DEW's learning rate is the smaller of two numbers, one from Theorem 1's tuning and one from "
           "the largest delay.",
           "η = sqrt(ln K/(KTe/2 + D)) with D the sum of ALL the delays, then η' = min(η, 1/(4e·d_max)); compute "
           "both and compare."),
    explanation=lambda p: (f"D = {_D(p):,}, η = sqrt(ln {p['K']}/({p['K']}·{p['T']}·e/2 + {_D(p):,})) = "
                           f"{theorem1_eta(p['K'], p['T'], _D(p)):.4e}; the truncation 1/(4e·{p['s']}) = "
                           f"{1 / (4 * E * p['s']):.4e} is larger, so η' = η: with delays this small, Theorem 1's "
                           "tuning holds and gives 2·sqrt((KTe/2 + D) ln K). The sequence of Section 1, with five "
                           "delays of 500, is the opposite case."),
))


# ---------------------------------------------------------------- 5.2 implement: DEW's delayed update
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


def _add(L, run, arm, values):
    out = L.copy()
    np.add.at(out, (run, arm), values)
    return out


def _assign(L, run, arm, values):
    out = L.copy()
    out[run, arm] += values  # a repeated (run, arm) is added once only
    return out


register(Exercise(
    id="05.dew-update",
    kind="implement",
    stars=2,
    minutes=15,
    title="DEW's delayed, importance-weighted update, raced in the live panel",
    answer_name="dew_update",
    stub=("def dew_update(L_hat, run, arm, loss, p_pull, p_now):\n"
          "    \"\"\"The new sums of arrived loss estimates, shape (runs, K), after the losses that just arrived.\n"
          "    L_hat (runs, K): L̂_t before; one entry per arriving loss: run, arm (int arrays: which run, which\n"
          "    arm A_s was pulled), loss (ℓ_s(A_s)), p_pull (p_s(A_s), the probability of that arm when it was\n"
          "    pulled); p_now (runs, K): the current distribution p_t.\"\"\"\n"
          "    # your code here (a run may receive several losses at once, even for the same arm)\n"
          "    return ...\n"),
    solution_code=("def dew_update(L_hat, run, arm, loss, p_pull, p_now):\n"
                   "    out = L_hat.copy()\n"
                   "    np.add.at(out, (run, arm), loss / p_pull)   # adds repeated (run, arm) pairs, in place\n"
                   "    return out\n"),
    solution=dew_update,
    grade=function_grader(dew_update, _update_inputs, trials=30, simulate=_dew_race, name="dew_update"),
    hints=("Section 2: each arrived loss adds its importance-weighted estimate to L̂ — divided by a probability, "
           "but which one: today's, or the one the arm had when it was pulled?",
           "ℓ̂_s(A_s) = ℓ_s(A_s)/p_s(A_s) with p_s the distribution at the time s of the pull (p_pull, not p_now); "
           "np.add.at(out, (run, arm), values) adds every entry, also repeated (run, arm) pairs (out[run, arm] += "
           "values would add a repeated pair once). np.add.at works in place and returns None."),
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
    race_against="DEW",
))


# ---------------------------------------------------------------- 5.3 derive: Corollary 4's threshold
def _beta(p):
    return corollary4_beta(p["K"], p["T"], p["D"])


def _beta_wrong(p):
    K, T, D = p["K"], p["T"], p["D"]
    lnK = math.log(K)
    return [
        (math.sqrt((E * K * T / 2 + D) / (4 * E * lnK)), "with η = 1/(4eβ) the two terms are 4eβ·ln K and "
                                                         "(…)/(4eβ): balancing them gives (4e)² ln K below the "
                                                         "fraction, and |S_β| ≤ D/β adds 4eD above it."),
        (math.sqrt((E * K * T / 2 + D) / (16 * E * E * lnK)), "you left out the skipped rounds: |S_β| ≤ D/β adds "
                                                              "D/β = 4eD/(4eβ), so the numerator is eKT/2 + (1 + 4e)D."),
        ((E * K * T / 2 + (1 + 4 * E) * D) / (16 * E * E * lnK), "that is β²: take the square root."),
        (math.sqrt((E * K * T / 2 + (1 + 4 * E) * D) / (16 * E * E * math.log10(K))), "ln K is the natural "
                                                                                       "logarithm, not log₁₀."),
    ]


register(Exercise(
    id="05.beta",
    kind="derive",
    stars=3,
    minutes=25,
    title="Corollary 4's threshold β, by balancing Theorem 3",
    answer_name="beta_star",
    stub=("# ✎ Exercise 5.3: the β that minimises the bound, for YOUR numbers (shown above): derive it first.\n"
          "beta_star = ...\n"),
    solution_code=lambda p: (
        f"K, T, D = {p['K']}, {p['T']}, {p['D']}\n"
        "# bound(β) = D/β + 4eβ·ln K + (eKT/2 + D)/(4eβ) = 4eβ·ln K + (eKT/2 + (1 + 4e)D)/(4eβ):\n"
        "# the two terms are equal, and their sum smallest, at β² = (eKT/2 + (1 + 4e)D)/(16e² ln K)\n"
        "beta_star = math.sqrt((math.e * K * T / 2 + (1 + 4 * math.e) * D) / (16 * math.e**2 * math.log(K)))\n"),
    draw=lambda d: (lambda T: {"K": d.integer(2, 8), "T": T, "D": T * d.integer(1, 40)})(int(d.grid(1000, 20000, 500))),
    default={"K": 3, "T": 2000, "D": 10_000},
    given=lambda p: (f"K = {p['K']} arms, T = {p['T']:,} rounds, total delay D = {p['D']:,}. Skipper(β, DEW(η, β)) "
                     "with η = 1/(4eβ); bound |S_β| by D/β and D_β by D in Theorem 3, then choose β."),
    **numeric(_beta, _beta_wrong, rtol=2e-3, name="beta_star"),
    hints=("Section 3: in Theorem 3 with η = 1/(4eβ), |S_β| ≤ D/β (each skipped round has d_t ≥ β) and D_β ≤ D, the "
           "bound is a sum of a term that grows with β and terms that shrink like 1/β.",
           "With η = 1/(4eβ), max{ln K/η, 4eβ ln K} = 4eβ ln K, and the rest is (eKT/2 + (1 + 4e)D)/(4eβ): "
           "minimise aβ + b/β (at β = sqrt(b/a), where the two terms are equal)."),
    explanation=lambda p: (f"β* = sqrt((eKT/2 + (1 + 4e)D)/(16e² ln K)) = {_beta(p):.3f}; at β* the bound is "
                           "2·sqrt((KTe/2 + (1 + 4e)D) ln K), Corollary 4's. Our copy of the paper prints β with a "
                           "damaged formula; this derivation is how we settled it (docs/readings.md, paper 5)."),
))


# ---------------------------------------------------------------- 5.4 predict: a small threshold β
register(Exercise(
    id="05.skipper-beta",
    kind="predict",
    stars=1,
    minutes=4,
    title="Skipper with a threshold below the typical delay",
    choices={
        "uniform": "it learns nothing, and its regret grows linearly",
        "better": "it learns faster than with β = 30",
        "same": "nothing changes",
    },
    solution="uniform",
    grade=choice_grader("uniform", {
        "uniform": "Every round with d_s ≥ β is skipped; with β = 5 and d = 20 that is every round. The base DEW "
                   "never sees a loss and keeps p uniform: each skipped round costs up to one unit of regret "
                   "(Lemma 2).",
        "better": "Skipper keeps only the losses with d_s < β. With β = 5 and d = 20 there are none left: nothing is "
                  "fresh enough.",
        "same": "The five huge rounds are skipped for any β ≤ 500, but with β = 5 the 995 ordinary rounds "
                "(d = 20 ≥ β) are skipped too.",
    }),
    hints=("Section 3: Skipper gives its base learner only the losses of the rounds NOT in S_β = {t : d_t ≥ β}.",
           "With β = 5 and d = 20 for the ordinary rounds, which rounds are in S_β?"),
    explanation="S_β = {t : d_t ≥ β} is every round when β ≤ d: |S_β| = T, the first term of Theorem 3, dominates.",
    wrong_answers=["better", "same"],
    # the words that state the outcome; notebook 05 says them only after the panel, below the question
    reveals=("learns nothing", "grows linearly", "regret becomes linear", "every round is skipped",
             "skips every round", "everything is skipped", "never sees a loss", "stays uniform",
             "is uniform random play", "skips every informative round", "no loss is fresh enough"),
))


# ---------------------------------------------------------------- 5.5 explain: why skipping helps
_WHY_SKIP = ("DEW's learning rate must be at most 1/(4e·d_max) for its analysis (the weights must not move much "
             "while feedback is outstanding), so a handful of huge delays forces a tiny rate on every round and DEW "
             "hardly learns. Skipping the rounds with d_t ≥ β costs at most one unit of regret each (losses are in "
             "[0, 1]), and the base learner then only sees delays below β, so its rate can be 1/(4eβ). Giving up a "
             "few rounds' feedback is cheap; being slow on all rounds is not — as long as few rounds are skipped. "
             "(At the live panel's defaults the gain comes from the rate itself: Skipper's base fed every loss at the "
             "same rate does as well. Skipping is what makes that rate safe against every loss sequence.)")

register(Exercise(
    id="05.why-skip",
    kind="explain",
    stars=2,
    minutes=8,
    title="Why throwing feedback away helps",
    solution=_WHY_SKIP,
    points=("DEW's rate is capped by 1/(4e·d_max): one huge delay slows learning on every round",
            "a skipped round costs at most one unit of regret (losses in [0, 1])",
            "the base then sees delays below β only, so its rate can be 1/(4eβ)",
            "it pays off when few rounds are skipped (the |S_β| term)"),
    hints=("Section 2 (why one huge delay ruins DEW) and Section 3 (Lemma 2): what does a huge delay cost DEW, and "
           "what does skipping its round cost?",
           "Compare the learning rate DEW may use with and without the rounds of huge delay, and the price of "
           "one skipped round."),
    wrong_answers=[],
))
