"""Exercises of notebook 02: Manegueu, Vernade, Carpentier, Valko (2020), arm-dependent delays.

Every number a message states is computed here from delaylab; the compute and derive exercises
draw their parameters from the student.
"""

from __future__ import annotations

import numpy as np

from ..laws import Pareto
from ..papers.manegueu2020 import (FIG2_ALPHAS, FIG2_MEANS, FIG45_MEANS, always_looks_worse_until,
                                   expected_observed_mean, looks_worse_until, pareto_arms)
from ..policies.patient import PatientBandits, log_term, patient_index
from ..settings.bernoulli import Conversions
from ._core import Exercise, choice_grader, function_grader, numeric, register
from .student import race_check, run_student

# ---------------------------------------------------------------- 2.1 predict: which arm looks best (§2)
_ALPHAS = (1.0, 0.3)
_AT = 100
_SEEN = (expected_observed_mean(FIG45_MEANS, pareto_arms(_ALPHAS), np.array([_AT]))[0] / np.array(FIG45_MEANS))
_LOOKS = _SEEN * np.array(FIG45_MEANS)
_UNTIL = looks_worse_until(FIG45_MEANS, _ALPHAS)
_ALWAYS = always_looks_worse_until(FIG45_MEANS, _ALPHAS)

register(Exercise(
    id="02.looks-best",
    kind="predict",
    stars=1,
    minutes=4,
    title=f"Which arm looks best at t = {_AT}?",
    choices={
        "better": f"arm 2, the better one (μ = {FIG45_MEANS[1]})",
        "worse": f"arm 1 (μ = {FIG45_MEANS[0]})",
        "equal": "they look the same",
        "zero": "neither, since no conversion has been seen yet",
    },
    solution="worse",
    grade=choice_grader("worse", {
        "better": "The observed mean divides the conversions seen by all the pulls, including those whose "
                  "conversion is still on its way: it is biased low, and more for the heavier tail.",
        "worse": f"Arm 2's Pareto(0.3) delays are heavy-tailed: at t = {_AT} only about {_SEEN[1]:.0%} of its "
                 f"conversions have arrived, against {_SEEN[0]:.0%} of arm 1's (α = 1), so {FIG45_MEANS[1]} looks like "
                 f"{_LOOKS[1]:.2f} and {FIG45_MEANS[0]} like {_LOOKS[0]:.2f}. The better arm looks worse at every step "
                 f"up to t = {_ALWAYS}, and at some steps until t = {_UNTIL} (in between, the arm pulled last decides).",
        "equal": "The bias depends on each arm's own delay law: arm 2's heavier tail (α = 0.3) hides many more of "
                 "its conversions than arm 1's (α = 1).",
        "zero": rf"A Pareto delay is often short ($P(D \le 1) = {float(Pareto(0.3).cdf(1)):.2f}$ even for α = 0.3): "
                "conversions trickle in from the start.",
    }),
    hints=("§2 (What the learner estimates): the observed mean divides the conversions seen so far by all "
           "the pulls, and how many have been seen depends on each arm's own delays.",
           r"$\mathbb{E}\,\hat\mu_i(t)$ is $\mu_i$ times the average over arm i's pulls of $\tau_i(t-1-s)$: compare "
           "that share for a tail index 1 and for 0.3."),
    explanation=f"The expected observed means at t = {_AT} are {_LOOKS[0]:.2f} (arm 1) and {_LOOKS[1]:.2f} (arm 2): "
                "see the figure below.",
    wrong_answers=["better", "equal", "zero"],
    reveals=("looks worse", "better arm looks worse", "the lower observed mean", "arm 1 looks better",
             "worse arm looks better"),
))


# ---------------------------------------------------------------- 2.2 compute: the bias of the observed mean (§2)
def _lags(p):
    return np.arange(p["n"])  # pulls at s = 0 … n − 1, decision t = n: lags t − 1 − s = n − 1 − s


def _bias(p):
    return float(p["mu"] * Pareto(p["alpha"]).sf(_lags(p)).mean())


def _bias_wrong(p):
    law, lags, mu, a, n = Pareto(p["alpha"]), _lags(p), p["mu"], p["alpha"], p["n"]
    return [
        (float(law.sf(lags).mean()), "that is the share of conversions still on their way; the bias is μ times that "
                                     "share (only pulls that convert can be missing)."),
        (float(mu * law.sf(lags + 1).mean()), "that is the paper's own timing, not a slip: in its Eq. 1 a pull at s "
                                              "is seen from round s + D on, so its lag is t − s ≥ 1. This workbook "
                                              "reveals it (D ≥ 1) one decision later (§2, the paragraph under the "
                                              "formula for the observed mean): the lag of a pull at s is $t-1-s$ "
                                              f"(0 for the pull at s = {n - 1}). Answer in the workbook's timing."),
        (2 * n ** -min(a, 0.5), r"that is Theorem 1's worst-case bound $2T_i^{-(\alpha\wedge 1/2)}$, which holds for "
                                "every law of Assumption 1; the bias of this arm is smaller."),
        (float(mu * (1 - law.sf(lags).mean())), r"that is $\mathbb{E}[\hat\mu]$, the observed mean itself; the bias is "
                                                r"$\mu - \mathbb{E}[\hat\mu]$."),
    ]


register(Exercise(
    id="02.bias",
    kind="compute",
    stars=2,
    minutes=10,
    title="The bias of the observed mean",
    answer_name="bias",
    stub=("# ✎ Exercise 2.2: mu - E[mu_hat] for YOUR numbers (shown above); numpy is fine.\n"
          "bias = ...\n"),
    solution_code=lambda p: (f"lags = np.arange({p['n']})                     # t − 1 − s for s = {p['n'] - 1}, …, 0\n"
                             f"bias = {p['mu']} * np.mean((1.0 + lags) ** -{p['alpha']})   # ≈ {_bias(p):.4f}\n"),
    draw=lambda d: {"mu": d.grid(0.5, 0.95, 0.01), "alpha": d.grid(0.15, 0.6, 0.01), "n": d.integer(6, 16)},
    default={"mu": 0.8, "alpha": 0.3, "n": 10},
    given=lambda p: (rf"an arm with μ = {p['mu']} and Pareto delays, $P(D > u) = (1 + u)^{{-{p['alpha']}}}$ for "
                     f"u = 0, 1, 2, …, was pulled at every step s = 0, …, {p['n'] - 1}; the learner now decides step "
                     rf"t = {p['n']} (in this workbook's timing, §2). By how much is its observed mean too low on average, "
                     r"$\mu - \mathbb{E}[\hat\mu(t)]$?"),
    **numeric(_bias, _bias_wrong, rtol=1e-3, name="bias"),
    hints=(r"§2: the formula for $\mathbb{E}\,\hat\mu_i(t)$ — which share of the pulls can have shown their "
           "conversion by now?",
           r"$\mu - \mathbb{E}\,\hat\mu = \frac{\mu}{T_i}\sum_s P(D > t-1-s)$: here the lags are 0, 1, …, n − 1 and "
           r"$P(D > u) = (1 + u)^{-\alpha}$."),
    explanation=lambda p: (rf"Lags 0 … {p['n'] - 1}: $\mu - \mathbb{{E}}\,\hat\mu = {p['mu']} \times "
                           rf"\operatorname{{mean}}_u (1 + u)^{{-{p['alpha']}}} = {_bias(p):.4f}$, so "
                           rf"$\hat\mu \approx {p['mu'] - _bias(p):.3f}$ on average after {p['n']} pulls. "
                           rf"Theorem 1's bound $2 \cdot {p['n']}^{{-{min(p['alpha'], 0.5)}}} = "
                           f"{2 * p['n'] ** -min(p['alpha'], 0.5):.3f}$ is a worst case over all laws with this tail."),
))


# ---------------------------------------------------------------- 2.3 derive: how fast the bias vanishes (§2)
def _rate(p):
    return p["mu"] / (1 - p["alpha"])


def _rate_wrong(p):
    mu, a = p["mu"], p["alpha"]
    return [
        (mu / a, r"the integral of $x^{-\alpha}$ is $x^{1-\alpha}/(1-\alpha)$, not $x^{1-\alpha}/\alpha$."),
        (1 / (1 - a), "only the pulls that convert can be missing: the bias carries the factor μ."),
        (mu, r"the sum $\sum_{v \le T} v^{-\alpha}$ grows like $T^{1-\alpha}/(1-\alpha)$: the factor "
             r"$1/(1-\alpha)$ does not vanish."),
        (mu * (1 - a), r"the factor is $1/(1-\alpha)$, from the integral of $x^{-\alpha}$, not $1-\alpha$."),
    ]


register(Exercise(
    id="02.bias-rate",
    kind="derive",
    stars=3,
    minutes=25,
    title="How fast the bias of the observed mean vanishes",
    answer_name="bias_limit",
    stub=("# ✎ Exercise 2.3: the limit of T**alpha * (mu - E[mu_hat(T)]) as T → ∞, for YOUR numbers (derive it first).\n"
          "bias_limit = ...\n"),
    solution_code=lambda p: ("# T**alpha * b(T) tends to mu / (1 - alpha): the derivation is below\n"
                             f"bias_limit = {p['mu']} / (1 - {p['alpha']})\n"),
    draw=lambda d: {"mu": d.grid(0.3, 0.95, 0.01), "alpha": d.grid(0.1, 0.8, 0.01)},
    default={"mu": 0.8, "alpha": 0.3},
    given=lambda p: (rf"an arm with μ = {p['mu']} and Pareto delays, $P(D > u) = (1 + u)^{{-\alpha}}$ with "
                     f"α = {p['alpha']}, is pulled at every step s = 0, …, T − 1; "
                     r"$b(T) = \mu - \mathbb{E}[\hat\mu]$ at the decision of step T."),
    **numeric(_rate, _rate_wrong, rtol=1e-3, name="bias_limit"),
    hints=(r"§2's formula for $\mathbb{E}\,\hat\mu_i(t)$, with every step a pull: b(T) is μ times the average "
           r"of $P(D > \text{lag})$ over the lags 0, …, T − 1.",
           r"With $v = \text{lag} + 1$, $b(T) = \frac{\mu}{T}\sum_{v=1}^{T} v^{-\alpha}$; compare the sum with "
           r"$\int_1^T x^{-\alpha}\,dx = \frac{T^{1-\alpha} - 1}{1-\alpha}$, then multiply by $T^\alpha$ and let "
           r"$T \to \infty$."),
    explanation=lambda p: (r"$b(T) = \frac{\mu}{T}\sum_{v=1}^{T} v^{-\alpha}$ and "
                           r"$\sum_{v=1}^{T} v^{-\alpha} \approx \frac{T^{1-\alpha}}{1-\alpha}$ for $\alpha < 1$, so "
                           rf"$T^\alpha b(T) \to \mu/(1-\alpha) = {_rate(p):.4f}$. So the observed mean's bias "
                           rf"vanishes like $T^{{-\alpha}} = T^{{-{p['alpha']}}}$: for $\alpha < 1/2$ more slowly than "
                           r"the statistical error $T^{-1/2}$: that is when the bias term of Theorem 1 dominates its "
                           r"deviation term, and why tails with $\alpha < 1/2$ change the rate of the regret "
                           r"(Theorems 3–4). For $\alpha$ between 1/2 and 1 the bias still vanishes like "
                           r"$T^{-\alpha}$, faster than $T^{-1/2}$; Theorem 1's $2T_i^{-(\alpha\wedge 1/2)}$ then "
                           r"uses Assumption 1 with 1/2 in place of $\alpha$, a looser bound that keeps the constant 2 "
                           "and costs nothing, since the deviation term is of that order anyway."),
))


# ---------------------------------------------------------------- 2.4 predict: the choice of alpha-hat (§3)
_FIG2_T = 3000
#: each arm's pulls at T under balanced play (K = 2)
_FIG2_N = _FIG2_T // 2
_BIAS_AT_N = {a: 2 * _FIG2_N ** -min(a, 0.5) for a in (0.1, 0.3, 0.5)}
_DEV_AT_N = float(np.sqrt(2 * log_term(2, _FIG2_T) / _FIG2_N))
#: the better arm's actual bias at T under round robin on Figure 2's instance (exact)
_ACTUAL_BIAS = float(FIG2_MEANS[1] - expected_observed_mean(FIG2_MEANS, pareto_arms(FIG2_ALPHAS), [_FIG2_T])[0][1])
#: α_hat up to which the bias term 2·(T/2)^(−α_hat) still covers that bias at T (0.456, rounded down)
_COVERS = float(np.floor(100 * np.log(2 / _ACTUAL_BIAS) / np.log(_FIG2_N)) / 100)

register(Exercise(
    id="02.alpha-hat",
    kind="predict",
    stars=2,
    minutes=5,
    title="The regret against the hyperparameter α̂",
    choices={
        "decreasing": "it decreases as α̂ grows",
        "increasing": "it increases as α̂ grows",
        "u-shaped": "it first decreases, then increases (lowest for an α̂ in between)",
        "flat": "it does not depend on α̂",
    },
    solution="u-shaped",
    grade=choice_grader("u-shaped", {
        "decreasing": r"Only up to a point: Figure 2 below finds the regret rising again for the larger $\hat\alpha$. "
                      "Not because the bias term stops covering the missing conversions: at "
                      rf"$T = {_FIG2_T}$ the better arm's observed mean is low by {_ACTUAL_BIAS:.3f} (exact, under round "
                      rf"robin), while $2 \cdot {_FIG2_N}^{{-0.3}} = {_BIAS_AT_N[0.3]:.2f}$: every $\hat\alpha$ up to "
                      rf"{_COVERS:.2f} pays more than that bias. What $\hat\alpha$ changes is how fast the width falls "
                      "with $T_i$ (§5 explains why that matters).",
        "increasing": r"Only beyond a point: Figure 2 below finds the regret higher at the smallest $\hat\alpha$ too. "
                      r"The paper reads that end as exploring too much; §5 finds the smallest $\hat\alpha$ "
                      "playing the worse arm more often, further from uniform play, not closer. A small "
                      r"$\hat\alpha$ makes the bias term $2T_i^{-\hat\alpha}$ large but nearly flat in $T_i$.",
        "u-shaped": r"That is what the paper reports, with the turn near $\hat\alpha = \min_i \alpha_i = 0.3$, "
                    "and Figure 2 below finds a U. Read its verdict: with the paper's 400 runs the bottom lies "
                    r"below 0.3 (at $\hat\alpha = 0.16$ on seed 0's 400 runs; it moves between sets of "
                    "runs); the cause is not an over- or under-paid bias (every "
                    rf"$\hat\alpha$ up to {_COVERS:.2f} pays more than the bias here) but, in our reading, how fast the width "
                    r"falls with $T_i$; and every $\hat\alpha$ does worse than uniform random play.",
        "flat": rf"At T = {_FIG2_T} the bias term is still {_BIAS_AT_N[0.1]:.2f} after {_FIG2_N} pulls for "
                rf"$\hat\alpha = 0.1$, against {_BIAS_AT_N[0.5]:.2f} for $\hat\alpha = 0.5$ (and a deviation term of "
                rf"{_DEV_AT_N:.2f}): $\hat\alpha$ changes the index for the whole horizon. But a large change of the "
                "index need not change the regret much: Figure 2 below does find a U, a shallow one, spanning "
                "under a tenth of the regret from top to bottom.",
    }),
    hints=(r"§3: how does the bias term $2T_i^{-(\hat\alpha\wedge 1/2)}$ fall with $T_i$ when $\hat\alpha$ is "
           "small, and when it is large? Is it different for the two arms?",
           "While the better arm's observed mean is the lower one, the index never lets that arm get ahead in pulls "
           "(§3). How far behind must it stay for the widths to offset the gap between the observed means? "
           r"That depends on how fast the width falls with $T_i$, at either end of the range of $\hat\alpha$."),
    explanation=r"Figure 2 below: the regret against $\hat\alpha \in [0.02, 0.5]$, all values on the same draws, "
                "beside uniform random play on the same draws; its verdict says which parts of the paper's reading "
                "reproduce.",
    wrong_answers=["decreasing", "increasing", "flat"],
    reveals=("is U-shaped", "U-shaped in", "the U is", "a shallow U", "first decreases, then increases", "decreases, then increases",
             "too shallow", "U shape"),
))


# ---------------------------------------------------------------- 2.5 implement: Patient Bandits' index (§3)
#: the pulls beyond which the bias term 2·n^(−0.3) exceeds the deviation term sqrt(2 log(2KT³)/n) (K = 2, T = 3000)
_CROSS_03 = (np.sqrt(2 * log_term(2, _FIG2_T)) / 2) ** (1 / (0.5 - 0.3))
def patient_ucb(mu_hat, T_i, alpha, K, T):
    """Patient Bandits' UCB (Theorem 1): mu_hat + sqrt(2 log(2KT³)/T_i) + 2·T_i^(−min(α, 1/2))."""
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
    """Patient Bandits whose index is the student's function of (mu_hat, T_i, α, K, T)."""

    def __init__(self, index_fn=None, alpha=0.5):
        self.index_fn = index_fn
        super().__init__(alpha)

    @property
    def label(self):
        return "your Patient Bandits"

    def reset(self, problem):
        super().reset(problem)
        self._K, self._T = problem.n_arms, problem.horizon

    def index(self, t):
        pulls = self.pulls_
        mu_hat = self.successes_ / np.maximum(pulls, 1.0)
        return run_student(self.index_fn, "patient_ucb", pulls.shape, mu_hat, pulls.copy(), float(self.alpha),
                           self._K, self._T)


def _patient_race(fn):
    env = Conversions(FIG45_MEANS, delays=pareto_arms(_ALPHAS))
    return race_check(lambda: StudentPatientBandits(fn, 0.3), lambda: PatientBandits(0.3), env, horizon=600)


register(Exercise(
    id="02.patient-ucb",
    kind="implement",
    stars=2,
    minutes=15,
    title="Patient Bandits' index, raced in the live panel",
    answer_name="patient_ucb",
    stub=("def patient_ucb(mu_hat, T_i, alpha, K, T):\n"
          "    \"\"\"Patient Bandits' UCB for every run and arm (mu_hat, T_i: arrays of shape (runs, arms), T_i ≥ 1).\n"
          "    alpha: the tail index the policy assumes (alpha-hat), K: number of arms, T: horizon.\"\"\"\n"
          "    # your code here\n"
          "    return ...\n"),
    solution_code=("def patient_ucb(mu_hat, T_i, alpha, K, T):\n"
                   "    deviation = np.sqrt(2 * np.log(2 * K * T**3) / T_i)\n"
                   "    bias = 2 * T_i ** (-min(alpha, 0.5))\n"
                   "    return mu_hat + deviation + bias\n"),
    solution=patient_ucb,
    grade=function_grader(lambda mu_hat, T_i, alpha, K, T: patient_index(mu_hat, T_i, alpha, K, T),
                          _patient_inputs, simulate=_patient_race, name="patient_ucb"),
    hints=("§3 (Patient Bandits: pay for the bias explicitly): the index is the observed mean plus two "
           "terms, one for the random fluctuation and one for the conversions still on their way.",
           r"$\mathrm{UCB}_i = \hat\mu_i + \sqrt{2\log(2KT^3)/T_i} + 2T_i^{-(\alpha\wedge 1/2)}$, with "
           r"$\alpha\wedge 1/2 = \min(\alpha, 1/2)$; every operation works on whole arrays."),
    explanation=(r"The deviation term $\sqrt{2\log(2KT^3)/T_i}$ is twice the two-sided Hoeffding width "
                 r"$\sqrt{\log(2/\delta)/(2T_i)}$ at $\delta = 1/(KT^3)$ per arm and round; the bias term pays, in the "
                 r"worst case allowed by Assumption 1, for the conversions still on their way. With "
                 r"$\hat\alpha \ge 1/2$ the bias term decays like the deviation term; below, it decays more slowly "
                 f"and dominates once $T_i$ is large (beyond about {_CROSS_03:.0f} pulls for "
                 r"$\hat\alpha = 0.3$ at $K = 2$, $T = 3000$)."),
    wrong_answers=[
        lambda mu_hat, T_i, alpha, K, T: np.zeros_like(mu_hat),
        lambda mu_hat, T_i, alpha, K, T: mu_hat + np.sqrt(2 * np.log(2 * K * T**3) / T_i),        # no bias term
        lambda mu_hat, T_i, alpha, K, T: mu_hat + 2 * T_i ** (-min(alpha, 0.5)),                    # no deviation
        lambda mu_hat, T_i, alpha, K, T: mu_hat + np.sqrt(2 * np.log(2 * K * T**3) / T_i) + 2 * T_i ** (-alpha),  # no ∧ 1/2
        lambda mu_hat, T_i, alpha, K, T: mu_hat + np.sqrt(2 * np.log(T) / T_i) + 2 * T_i ** (-min(alpha, 0.5)),   # UCB1's log t
    ],
    policy=lambda fn, alpha_hat: StudentPatientBandits(fn, alpha_hat),
    race_against="Patient Bandits",
))


# ---------------------------------------------------------------- 2.6 explain: why not divide by Ñ?
_TAIL_AT_T = float(Pareto(0.3).sf(_FIG2_T))  # P(D > T) for Pareto(0.3) at Figure 2's horizon
_WHY_NOT_CORRECT = (r"Dividing by $\tilde N$ needs $\tau_i$ at the lag of every pull of arm i, and so the absolute "
                    "level of each arm's delay law, including how much of it lies beyond the oldest pull's age. The "
                    "conversions that arrive show their delays, and reveal $\\mu_i\\tau_i(u)$ for every $u$ up to "
                    "the age of the arm's oldest pull (even beyond the longest delay seen), but not the mass beyond "
                    "that age: it cannot be told apart from a lower $\\mu_i$ (the extreme "
                    "case: an arm that always converts after an infinite delay and an arm that never converts look "
                    "the same, the paper's footnote 1). With heavy, arm-dependent tails that mass stays large within "
                    rf"the horizon ($P(D > {_FIG2_T}) = {_TAIL_AT_T:.2f}$ for Pareto(0.3)). Assumption 1 only bounds "
                    "the tails, so Patient Bandits keeps the biased observed mean and adds to its index the largest "
                    r"bias the assumption allows, $2T_i^{-(\alpha\wedge 1/2)}$: the index stays an upper confidence "
                    "bound.")

register(Exercise(
    id="02.why-not-correct",
    kind="explain",
    stars=2,
    minutes=8,
    title="Why Patient Bandits cannot divide by Ñ",
    solution=_WHY_NOT_CORRECT,
    points=(r"$\tilde N$ needs each arm's delay law, which is unknown and differs across arms",
            "the arrived conversions' delays show each law up to the oldest pull's age, not its mass beyond "
            "the oldest pull's age, "
            r"which cannot be told apart from a lower $\mu_i$ (not identifiable)",
            "Assumption 1 bounds the bias instead of removing it",
            "the bias term keeps the index an upper confidence bound (optimistic)"),
    hints=("§1 (why this is hard — identifiability) and §3: what does notebook 01's correction need "
           "to know?",
           r"$\tilde N$ weights each pull by $\tau(\text{lag})$. Which τ, here? And what does Assumption 1 give "
           "instead?"),
    wrong_answers=[],
))
