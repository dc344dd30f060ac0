"""Exercises of notebook 02: Manegueu, Vernade, Carpentier, Valko (2020), arm-dependent delays."""

from __future__ import annotations

import numpy as np

from ..laws import Pareto
from ..policies.patient import PatientBandits, patient_index
from ..settings.bernoulli import Conversions
from ._core import Exercise, choice_grader, function_grader, number_grader, register
from .student import race_check, run_student

# ---------------------------------------------------------------- predict: which arm looks best (Section 2)
register(Exercise(
    id="02.looks-best",
    kind="predict",
    title="Predict: which arm looks best at t = 100?",
    choices={
        "better": "arm 2 (μ = 0.8): the observed means estimate the true means",
        "worse": "arm 1 (μ = 0.6): arm 2's conversions are still on their way",
        "equal": "they look the same: both observed means are biased by the same amount",
        "zero": "neither: no conversion is seen before the delays' means have passed",
    },
    solution="worse",
    grade=choice_grader("worse", {
        "better": "The observed mean divides the conversions seen by all the pulls, including those whose "
                  "conversion is still on its way: it is biased low, and more for the heavier tail.",
        "worse": "Arm 2's Pareto(0.3) delays are heavy-tailed: at t = 100 only about 66% of its conversions "
                 "have arrived, against 96% of arm 1's (α = 1), so 0.8 looks like 0.53 and 0.6 like 0.58. The "
                 "better arm looks worse until about t = 300.",
        "equal": "The bias depends on each arm's own delay law: arm 2's heavier tail (α = 0.3) hides many more "
                 "of its conversions than arm 1's (α = 1).",
        "zero": "A Pareto delay is often short (P(D ≤ 1) ≈ 0.19 even for α = 0.3): conversions trickle in from "
                "the start. The mean delay of Pareto(0.3) is even infinite.",
    }),
    hint="Look again at Section 2 (What the learner estimates: the observed mean, and its bias): E μ̂ = (μ/T_i)·Σ τ_i(lag).",
    explanation="The expected observed means at t = 100 are about 0.58 (arm 1) and 0.53 (arm 2): see the figure.",
    wrong_answers=["better", "equal", "zero"],
))


# ---------------------------------------------------------------- compute: the bias of the observed mean (Section 2)
BIAS_MEAN, BIAS_ALPHA, BIAS_PULLS = 0.8, 0.3, 10


def bias_answer() -> float:
    """μ − E μ̂(t) = (μ/T_i)·Σ_s P(D > t − 1 − s) for pulls s = 1 … 10 at t = 11 (lags 0 … 9)."""
    lags = np.arange(BIAS_PULLS)
    return float(BIAS_MEAN * Pareto(BIAS_ALPHA).sf(lags).mean())


_LAGS = np.arange(BIAS_PULLS)
register(Exercise(
    id="02.bias",
    kind="compute",
    title="Compute the bias of the observed mean",
    answer_name="bias",
    stub=("# Arm 2 of Figure 5: μ = 0.8, Pareto delays with α = 0.3: P(D > u) = (1 + u)^(−0.3) for u = 0, 1, 2, …\n"
          "# It was pulled at every step s = 1, …, 10; the learner now decides step t = 11.\n"
          "bias = ...   # μ − E[μ̂(11)]: how far below 0.8 the observed mean is on average\n"),
    solution_code=("lags = np.arange(10)                       # t − 1 − s for s = 10, 9, …, 1\n"
                   "bias = 0.8 * np.mean((1.0 + lags) ** -0.3)  # ≈ 0.520\n"),
    solution=bias_answer(),
    grade=number_grader(bias_answer, rtol=5e-3, misconceptions={
        float(Pareto(BIAS_ALPHA).sf(_LAGS).mean()): "that is the share of conversions still on their way; the "
            "bias is μ times that share (only pulls that convert can be missing).",
        float(BIAS_MEAN * Pareto(BIAS_ALPHA).sf(_LAGS + 1).mean()): "the lags are off by one: at the decision "
            "of step t the learner knows what was revealed by the end of step t − 1, so the lag of a pull at s is "
            "t − 1 − s (from 0 for the pull at s = 10).",
        2 * BIAS_PULLS ** -min(BIAS_ALPHA, 0.5): "that is Theorem 1's worst-case bound 2·T_i^(−(α∧1/2)), which "
            "holds for every arm of Assumption 1; the bias of this arm is smaller.",
        float(BIAS_MEAN * (1 - Pareto(BIAS_ALPHA).sf(_LAGS).mean())): "that is E[μ̂], the observed mean itself; "
            "the bias is μ − E[μ̂].",
    }),
    hint=("Look again at Section 2 (What the learner estimates: the observed mean, and its bias): "
          "μ − E μ̂ = (μ/T_i)·Σ_s P(D > t − 1 − s)."),
    explanation=("Lags 0 … 9: μ − E μ̂ = 0.8 × mean((1 + u)^(−0.3)) ≈ 0.520, so μ̂ ≈ 0.28 on average after ten "
                 "pulls — far below the other arm's 0.6 if its delays are short. Theorem 1's bound "
                 "2·10^(−0.3) ≈ 1.0 is a worst case over all laws with this tail."),
    wrong_answers=[0.6505, 0.4793, 1.0024, 0.2796, -0.52],
))


# ---------------------------------------------------------------- implement: Patient Bandits' index (Section 3)
def patient_ucb(mu_hat, T_i, alpha, K, T):
    """Patient Bandits' UCB (Theorem 1): μ̂ + sqrt(2 log(2KT³)/T_i) + 2·T_i^(−min(α, 1/2))."""
    deviation = np.sqrt(2 * np.log(2 * K * T**3) / T_i)
    bias = 2 * T_i ** (-min(alpha, 0.5))
    return mu_hat + deviation + bias


def _patient_inputs(rng):
    B, K = int(rng.integers(1, 6)), int(rng.integers(2, 5))
    T_i = rng.integers(1, 3000, size=(B, K)).astype(float)
    mu_hat = rng.uniform(0, 1, size=(B, K))
    alpha = float(rng.choice([0.05, 0.1, 0.3, 0.45, 0.7, 1.0, 2.0]))
    T = int(T_i.sum(axis=1).max()) + int(rng.integers(1, 2000))
    return mu_hat, T_i, alpha, K, T


class StudentPatientBandits(PatientBandits):
    """Patient Bandits whose index is the student's function of (μ̂, T_i, α, K, T)."""

    def __init__(self, index_fn=None, alpha=0.5):
        self.index_fn = index_fn
        super().__init__(alpha)

    @property
    def label(self):
        return "your Patient Bandits"

    def _start(self, problem):
        super()._start(problem)
        self._K, self._T = problem.n_arms, problem.horizon

    def index(self, t):
        pulls = self.pulls_
        mu_hat = self.successes_ / np.maximum(pulls, 1.0)
        return run_student(self.index_fn, "patient_ucb", pulls.shape, mu_hat, pulls.copy(), float(self.alpha),
                           self._K, self._T)


def _patient_race(fn):
    env = Conversions((0.6, 0.8), delays=[Pareto(1.0), Pareto(0.3)])
    return race_check(lambda: StudentPatientBandits(fn, 0.3), lambda: PatientBandits(0.3), env, horizon=600)


register(Exercise(
    id="02.patient-ucb",
    kind="implement",
    title="Implement Patient Bandits' index and race it",
    answer_name="patient_ucb",
    stub=("def patient_ucb(mu_hat, T_i, alpha, K, T):\n"
          "    \"\"\"Patient Bandits' UCB for every run and arm (mu_hat, T_i: arrays of shape (runs, arms), T_i ≥ 1).\n"
          "    alpha: the tail index the policy assumes (α̂), K: number of arms, T: horizon.\"\"\"\n"
          "    # your code here: the observed mean, plus the deviation term, plus the bias term of Theorem 1\n"
          "    return ...\n"),
    solution_code=("def patient_ucb(mu_hat, T_i, alpha, K, T):\n"
                   "    deviation = np.sqrt(2 * np.log(2 * K * T**3) / T_i)\n"
                   "    bias = 2 * T_i ** (-min(alpha, 0.5))\n"
                   "    return mu_hat + deviation + bias\n"),
    solution=patient_ucb,
    grade=function_grader(lambda mu_hat, T_i, alpha, K, T: patient_index(mu_hat, T_i, alpha, K, T),
                          _patient_inputs, simulate=_patient_race),
    hint=("Look again at Section 3 (Patient Bandits: pay for the bias explicitly): the index adds to μ̂ the "
          "deviation sqrt(2 log(2KT³)/T_i) and the bias 2·T_i^(−(α∧1/2)), with α∧1/2 = min(α, 1/2)."),
    explanation=("The deviation term is the usual Hoeffding width at confidence 1/T³ per arm and round; the "
                 "bias term pays, in the worst case allowed by Assumption 1, for the conversions still on their "
                 "way. With α̂ ≥ 1/2 the bias term decays like the deviation term; below, it dominates."),
    wrong_answers=[
        lambda mu_hat, T_i, alpha, K, T: np.zeros_like(mu_hat),
        lambda mu_hat, T_i, alpha, K, T: mu_hat + np.sqrt(2 * np.log(2 * K * T**3) / T_i),        # no bias term
        lambda mu_hat, T_i, alpha, K, T: mu_hat + 2 * T_i ** (-min(alpha, 0.5)),                    # no deviation
        lambda mu_hat, T_i, alpha, K, T: mu_hat + np.sqrt(2 * np.log(2 * K * T**3) / T_i) + 2 * T_i ** (-alpha),  # no ∧ 1/2
        lambda mu_hat, T_i, alpha, K, T: mu_hat + np.sqrt(2 * np.log(T) / T_i) + 2 * T_i ** (-min(alpha, 0.5)),   # UCB1's log t
    ],
    policy=lambda fn, alpha_hat: StudentPatientBandits(fn, alpha_hat),
))


# ---------------------------------------------------------------- predict: the choice of α̂ (Section 5)
register(Exercise(
    id="02.alpha-hat",
    kind="predict",
    title="Predict: regret against the hyperparameter α̂",
    choices={
        "decreasing": "it decreases with α̂: a larger α̂ means a smaller bias term, so less exploration",
        "increasing": "it increases with α̂: a small α̂ is safe for every tail, so it is always best",
        "u-shaped": "U-shaped: too small explores too much, too large under-pays the bias; lowest near min α_i",
        "flat": "flat: α̂ only changes a term that vanishes as T_i grows",
    },
    solution="u-shaped",
    grade=choice_grader("u-shaped", {
        "decreasing": "Up to a point: beyond min α_i = 0.3 the bias term no longer covers the conversions of "
                      "the heavier-tailed arm still on their way, and the index can trust a biased-low mean.",
        "increasing": "A small α̂ is valid, but it pays a bias term 2·T_i^(−α̂) that stays large for a long time: "
                      "the policy keeps exploring the worse arm.",
        "u-shaped": "Too small an α̂ over-pays the bias (more exploration), too large under-pays it; the paper "
                    "finds the bottom near α̂ = min α_i = 0.3. In our runs the U is shallow and its bottom flat "
                    "between about 0.1 and 0.3.",
        "flat": "At T = 3000 the bias term 2·T_i^(−α̂) is still large for small α̂ (0.9 after 3000 pulls for "
                "α̂ = 0.1): it matters for the whole horizon.",
    }),
    hint="Look again at Section 3 (Patient Bandits: pay for the bias explicitly): the table of the deviation and bias terms.",
    explanation="Figure 2 below: the regret against α̂ ∈ [0.02, 0.5], all values on the same draws.",
    wrong_answers=["decreasing", "increasing", "flat"],
))
