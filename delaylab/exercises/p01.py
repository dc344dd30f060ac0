"""Exercises of notebook 01: Vernade, Cappé, Perchet (2017), delayed conversions.

Every number a message states is computed here from delaylab (the laws, :mod:`delaylab.bounds`,
:mod:`delaylab.indices`); the compute and derive exercises draw their parameters from the student.
"""

from __future__ import annotations

import numpy as np

from .. import bounds
from ..indices import klucb_bernoulli, klucb_poisson, kl_bernoulli
from ..laws import Geometric
from ..papers.vernade2017 import MEAN_DELAY, THETA_L, WINDOW
from ..policies.delayed import DelayedKLUCB
from ..settings.bernoulli import Conversions
from ._core import Exercise, choice_grader, function_grader, numeric, register
from .student import race_check, run_student


def _lam(mu) -> float:
    """λ = μ/(1 + μ): P(D > d) = λ^(d+1) for the geometric law with mean μ."""
    return mu / (1 + mu)


def _tau(mu, d) -> float:
    return float(Geometric(mean=mu).cdf(d))


# ---------------------------------------------------------------- 1.1 compute: Ñ by hand (notebook §2)
def _nt_lags(p):
    return [p["t"] - 1 - s for s in p["pulls"]]


def _nt(p, lags=None, cap=True, shift=0):
    lags = _nt_lags(p) if lags is None else lags
    return sum(_tau(p["mu"], min(e + shift, p["m"]) if cap else e + shift) for e in lags)


_NT_PAPER = (r"that is the weight $\tau_{t-s}$ as printed in the paper's Section 5.1 ($\tau_m$ for $s \le t-m$), "
             "not a slip of yours. But in the model of the paper's Section 2 the decision of round t knows only "
             r"what was observed by round $t-1$, so a pull at s has been revealed iff $D \le t-1-s$; "
             "the paper's Section 5.1 counts round t's observations too. This workbook follows the paper's Section 2 "
             r"(§2, the parenthesis under the formula for $\tilde N$): answer with $\tau(\min(t-1-s, m))$.")
_NT_FULL = (r"that is $\tau_m N$, every pull weighted as if its window were over: the weight $\tau_m$ holds only for "
            "pulls at least m steps old, and your most recent pull is younger than that.")
_NT_DISCARDING = (r"that is Discarding's count $\tau_m N(t-m)$: it drops the pull younger than m steps; $\tilde N$ keeps "
                  r"it, with the weight $\tau$ of its lag.")


def _nt_wrong(p):
    tau_m = _tau(p["mu"], p["m"])
    shifted, full, uncapped = _nt(p, shift=1), 3 * tau_m, _nt(p, cap=False)
    no_cap = (f"this ignores the window: a conversion later than m = {p['m']} steps is never seen, "
              r"so no lag counts beyond m ($\tau(\min(t-1-s, m))$).")
    paper, as_full = _NT_PAPER, np.isclose(shifted, full, rtol=1e-6)
    if as_full:  # recent lag m − 1: the paper's printed weights give τ_m·N
        paper += " (Here it also equals " + _NT_FULL[len("that is "):] + ")"
    if np.isclose(shifted, uncapped, rtol=1e-3):  # a few ids: both agree to 4 digits (named first)
        paper += " (Here it is also, to 4 digits, the count without the cap at m, which " + no_cap[len("this "):] + ")"
    old = sum(e >= p["m"] for e in _nt_lags(p))  # N(t − m): the pulls at least m steps old (two, as drawn)
    return [
        (3.0, "that is N, the raw number of pulls: a pull whose conversion could still be on its way counts only "
              "for the probability τ that its news has arrived."),
        (shifted, paper),
        (uncapped, no_cap),
        *([] if as_full else [(full, _NT_FULL)]),
        (old * tau_m, _NT_DISCARDING),
    ]


def _nt_draw(d):
    mu, m = d.integer(2, 9), d.integer(3, 8)
    t = d.integer(m + 8, 24)
    recent = d.integer(0, m - 1)
    older = d.sample(range(m, t - 1), 2)
    return {"mu": mu, "m": m, "t": t, "pulls": tuple(sorted(t - 1 - e for e in [recent, *older]))}


def _nt_given(p):
    s = p["pulls"]
    return (f"the arm was pulled at steps s = {s[0]}, {s[1]} and {s[2]}; the learner now decides step t = {p['t']}. "
            rf"Delays are geometric with mean μ = {p['mu']}, so $\tau(d) = P(D \le d) = 1 - \lambda^{{d+1}}$ with "
            rf"$\lambda = \mu/(1 + \mu) = {p['mu']}/{p['mu'] + 1}$; the window is m = {p['m']}.")


def _nt_code(p):
    lags = ", ".join(str(e) for e in _nt_lags(p))
    return (f"lam = {p['mu']} / {p['mu'] + 1}                      # λ = μ/(1 + μ)\n"
            f"tau = lambda d: 1 - lam ** (d + 1)          # τ(d) = P(D ≤ d)\n"
            f"pulls, t, m = {p['pulls']}, {p['t']}, {p['m']}\n"
            f"n_tilde = sum(tau(min(t - 1 - s, m)) for s in pulls)   # lags {lags}, each capped at m\n")


def _nt_explain(p):
    lags = _nt_lags(p)
    capped = [min(e, p["m"]) for e in lags]
    terms = " + ".join(rf"\tau({c})" for c in capped)
    old = {1: "one", 2: "two", 3: "three"}[sum(e >= p["m"] for e in lags)]
    return (f"Lags at t = {p['t']}: {', '.join(map(str, lags))}; capped at m = {p['m']}: "
            rf"{', '.join(map(str, capped))}. $\tilde N = {terms} = {_nt(p):.4f}$. Dividing the conversions seen by "
            rf"$\tilde N$, not by $N = 3$, removes both biases of $S/N$: the window's loss (the {old} pulls at least "
            rf"m steps old count for $\tau_m$ each, whatever their age) and that of the recent pull, whose news "
            "may still come.")


register(Exercise(
    id="01.n-tilde",
    kind="compute",
    stars=1,
    minutes=8,
    title="Ñ by hand for three pulls",
    answer_name="n_tilde",
    stub=("# ✎ Exercise 1.1: Ñ for YOUR numbers (shown above). A Python expression is fine.\n"
          "n_tilde = ...\n"),
    solution_code=_nt_code,
    draw=_nt_draw,
    default={"mu": 2, "m": 4, "t": 12, "pulls": (2, 5, 9)},
    given=_nt_given,
    **numeric(_nt, _nt_wrong, rtol=1e-3, name="n_tilde"),
    hints=("Notebook §2 (Counting what could have been seen): each pull counts for the probability that its "
           "conversion, if any, has been seen by now — which depends on how long ago it was made.",
           r"$\tilde N = \sum_s \tau(\min(t-1-s, m))$ over the pulls s, with $\tau(d) = 1 - \lambda^{d+1}$: compute "
           r"each lag $t-1-s$, cap it at m, and add the three values of τ."),
    explanation=_nt_explain,
))


# ---------------------------------------------------------------- 1.2 derive: the weight still pending (Eq. 6)
def _pending(p):
    lam = _lam(p["mu"])
    return lam ** (p["r"] + 1) / (1 - lam ** p["K"])


def _pending_wrong(p):
    lam, r, K = _lam(p["mu"]), p["r"], p["K"]
    return [
        (float(p["mu"]), r"that is the limit for an arm pulled at EVERY step ($\lambda/(1-\lambda) = \mu$); this arm is pulled "
                         f"every {K} steps."),
        (lam ** r / (1 - lam ** K), r"that is what the paper's Eq. (6) gives as printed: $O \leftarrow \lambda O + "
                                    r"\mathbb{1}\{A_t = k\}$ counts the pull just made as wholly pending, right for "
                                    r"delays on $\{1, 2, \dots\}$. With this workbook's delays on $\{0, 1, \dots\}$ a "
                                    r"pull of lag e is still pending with probability $P(D > e) = \lambda^{e+1}$ (§2, "
                                    "the note after Exercise 1.1)."),
        (lam ** (r + 2) / (1 - lam ** K), r"that uses the lag $t-s$ of the weight $\tau_{t-s}$ printed in the "
                                          "paper's Section 5.1, one more than the lags given here: they are already "
                                          r"$t-1-s$, the paper's Section 2 timing (§2), and a pull of lag e is still "
                                          r"pending with probability $\lambda^{e+1}$."),
        (lam ** (r + 1) / (1 - lam), f"this sums over every lag r, r + 1, r + 2, …; the arm's pulls are {K} steps "
                                     f"apart: lags r, r + {K}, r + {2 * K}, …"),
        (p["mu"] / K, r"that is $\mu/K$, the large-$\mu$ approximation §2 quotes ($\mu \gg K$); the exercise asks for "
                       r"the exact limit: write $N - \tilde N$ as a sum over the arm's pulls."),
    ]


def _pending_draw(d):
    K = d.integer(2, 6)
    return {"K": K, "mu": d.integer(3, 60), "r": d.integer(0, K - 1)}


register(Exercise(
    id="01.pending",
    kind="derive",
    stars=2,
    minutes=15,
    title="The weight still pending under round robin",
    answer_name="pending",
    stub=("# ✎ Exercise 1.2: the limit of N − Ñ as t → ∞, for YOUR numbers (derive it on paper first).\n"
          "pending = ...\n"),
    solution_code=lambda p: (f"lam = {p['mu']} / {p['mu'] + 1}                  # λ = μ/(1 + μ)\n"
                             f"# lags r, r + K, r + 2K, …: a geometric series (see the explanation)\n"
                             f"pending = lam ** ({p['r']} + 1) / (1 - lam ** {p['K']})   # a geometric series\n"),
    draw=_pending_draw,
    default={"K": 3, "mu": 10, "r": 0},
    given=lambda p: (f"{p['K']} arms are played in turn (round robin) for a very long time, with geometric delays of "
                     f"mean μ = {p['mu']} and no window. At the decision, this arm's most recent pull has lag "
                     f"t − 1 − s = {p['r']}, the one before lag {p['r'] + p['K']}, and so on."),
    **numeric(_pending, _pending_wrong, rtol=1e-3, name="pending"),
    hints=(r"Notebook §2, after Exercise 1.1: $N - \tilde N$ is the weight O still pending — each past pull counts for "
           r"the probability $P(D > \text{lag})$ that its news has not arrived yet.",
           r"$P(D > e) = \lambda^{e+1}$ with $\lambda = \mu/(1 + \mu)$, and the arm's lags are r, r + K, r + 2K, …: the "
           r"sum is a geometric series, $\sum_j x^j = 1/(1 - x)$ for $|x| < 1$."),
    explanation=lambda p: (r"$N - \tilde N = \sum_j P(D > r + jK) = \sum_j \lambda^{r + jK + 1} = "
                           rf"\lambda^{{r+1}}/(1 - \lambda^K) = {_pending(p):.4f}$ "
                           rf"($\lambda = {_lam(p['mu']):.4f}$). It does not grow with t: the recursion "
                           r"$O \leftarrow \lambda(O + \mathbb{1}\{A_t = k\})$ "
                           r"(the paper's Eq. 6, in our timing: the pull just made is pending with probability "
                           r"$\lambda$) keeps exactly this weight up to date in O(1) per step. For an arm pulled at "
                           r"every step ($K = 1$) it is $\lambda/(1 - \lambda) = \mu$, the mean delay."),
))


# ---------------------------------------------------------------- 1.3 predict: doubling the window (notebook §4)
_TAU_1000, _TAU_2000 = _tau(MEAN_DELAY, WINDOW), _tau(MEAN_DELAY, 2 * WINDOW)
_RR_COST = float(np.mean(max(THETA_L) - np.asarray(THETA_L)))  # regret per step of round robin on θ_L

register(Exercise(
    id="01.window",
    kind="predict",
    stars=2,
    minutes=5,
    title="Double the window m",
    choices={
        "both-shrink": "both shrink",
        "discarding-grows": "Discarding KL-UCB's grows a lot; D-KLUCB's barely changes",
        "both-grow": "both grow",
        "dklucb-grows": "D-KLUCB's grows; Discarding KL-UCB's shrinks",
    },
    solution="discarding-grows",
    grade=choice_grader("discarding-grows", {
        "both-shrink": rf"A larger window does show more conversions ($\tau_m$ rises from {_TAU_1000:.2f} to "
                       f"{_TAU_2000:.2f}), but Discarding uses only pulls at least m steps old: for its first "
                       f"m = {2 * WINDOW} steps it has no index and plays round robin, {_RR_COST:.2f} regret per step "
                       r"on $\theta_L$.",
        "discarding-grows": f"Discarding plays round robin until its pulls are m steps old: with m = {2 * WINDOW} "
                            f"that is {_RR_COST:.2f} × {2 * WINDOW} = {_RR_COST * 2 * WINDOW:.0f} regret before it "
                            r"learns anything. D-KLUCB uses every pull from the start; $\tau_m$ rises from "
                            f"{_TAU_1000:.2f} to {_TAU_2000:.2f}, so it sees a few more conversions and its regret "
                            "barely moves.",
        "both-grow": r"D-KLUCB does not wait: it divides by $\tilde N$ and uses every pull from the first step, so a longer "
                     "window only shows it more conversions.",
        "dklucb-grows": "It is the other way round: Discarding waits m steps before it has an index.",
    }),
    hints=("Notebook §3 (The algorithms): which pulls does each policy use at step t, and what does Discarding do "
           "before any pull is m steps old?",
           rf"Round robin on $\theta_L$ costs the mean gap, {_RR_COST:.2f} per step. $\tau_m = P(D \le m)$ rises "
           f"from {_TAU_1000:.2f} to {_TAU_2000:.2f} between m = {WINDOW} and {2 * WINDOW}: how much more does a "
           "policy that uses every pull from the start then see?"),
    explanation="Move the window slider from 1000 to 2000 in the panel below and read the two curves at T.",
    wrong_answers=["both-shrink", "both-grow", "dklucb-grows"],
    reveals=("grows a lot", "barely changes", "barely moves", "twice as high", "round robin for 2000",
             "for its first m = 2000 steps", "doubling the window hurts discarding"),
))


# ---------------------------------------------------------------- 1.4 implement: the D-KLUCB index (notebook §3)
def d_klucb_index(theta_hat, N_tilde, beta):
    """D-KLUCB's index (the paper's Section 5.3): max{q ∈ [θ̂, 1] : Ñ·d_Pois(θ̂, q) ≤ β}, by bisection."""
    def d_pois(p, q):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(p > 0, p * np.log(p / q), 0.0) + q - p
    lo = np.minimum(theta_hat, 1.0)
    hi = np.ones_like(lo)
    top = N_tilde * d_pois(theta_hat, hi) <= beta
    for _ in range(60):
        mid = (lo + hi) / 2
        ok = N_tilde * d_pois(theta_hat, mid) <= beta
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
    return np.where(theta_hat >= 1, theta_hat, np.where(top, 1.0, lo))


_KL_CODE = '''def d_klucb_index(theta_hat, N_tilde, beta):
    def d_pois(p, q):                                   # p log(p/q) + q − p, with 0·log 0 = 0
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(p > 0, p * np.log(p / q), 0.0) + q - p
    lo = np.minimum(theta_hat, 1.0)                     # q = theta_hat is always allowed (d_Pois = 0)
    hi = np.ones_like(lo)
    top = N_tilde * d_pois(theta_hat, hi) <= beta       # q = 1 allowed: the index is 1
    for _ in range(60):                                 # bisection: d_Pois grows with q >= theta_hat
        mid = (lo + hi) / 2
        ok = N_tilde * d_pois(theta_hat, mid) <= beta
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
    return np.where(theta_hat >= 1, theta_hat, np.where(top, 1.0, lo))
'''


def _kl_inputs(rng):
    B, K = int(rng.integers(1, 6)), int(rng.integers(2, 5))
    N_tilde = rng.uniform(0.3, 600, size=(B, K))
    theta_hat = rng.uniform(0, 0.9, size=(B, K)) * (rng.random((B, K)) > 0.15)  # some arms have seen nothing
    if rng.random() < 0.3:
        theta_hat[0, 0] = rng.uniform(1.0, 1.3)  # possible: Ñ < N
    beta = float(np.log(rng.integers(2, 5000)))
    return theta_hat, N_tilde, beta


_KL_ATOL = 1e-6  # how close to delaylab's index a student's must be, on random inputs and at the cap


class StudentDelayedKLUCB(DelayedKLUCB):
    """D-KLUCB whose index is the student's function (Ñ = 0 still gives +inf, as in delaylab's).

    Where θ̂ < 1, a value within ``_KL_ATOL`` of the cap q = 1 counts as 1: several arms often sit at
    the cap early on, and delaylab's exact 1.0 ties are broken by arm order; a correct bisection that
    stops at 1 − 2⁻ⁿ(1 − θ̂) would break them by θ̂ instead and diverge in most runs of the race.
    """

    def __init__(self, index_fn=None, delay=None, window=None, eps=0.0):
        self.index_fn = index_fn
        super().__init__(delay, window, eps)

    @property
    def label(self):
        return "your D-KLUCB"

    def _index(self, theta, n_tilde, beta):
        seen = n_tilde > 0
        safe = np.where(seen, n_tilde, 1.0)
        b = float(np.ravel(beta)[0]) if np.size(beta) == 1 else np.broadcast_to(beta, theta.shape).copy()
        idx = run_student(self.index_fn, "d_klucb_index", theta.shape, theta.copy(), safe, b)
        idx = np.where((theta < 1) & (np.abs(idx - 1.0) <= _KL_ATOL), 1.0, idx)  # ties at the cap
        return np.where(seen, idx, np.inf)


def _kl_race(fn):
    law = Geometric(mean=50)
    env = Conversions(means=(0.3, 0.2, 0.1), delays=law, window=100)
    return race_check(lambda: StudentDelayedKLUCB(fn, law, 100), lambda: DelayedKLUCB(law, 100), env)


register(Exercise(
    id="01.d-klucb-index",
    kind="implement",
    stars=3,
    minutes=30,
    title="The D-KLUCB index, raced in the live panel",
    answer_name="d_klucb_index",
    stub=("def d_klucb_index(theta_hat, N_tilde, beta):\n"
          "    \"\"\"D-KLUCB's index for every run and arm: the largest q in [theta_hat, 1] with\n"
          "    N_tilde * d_Pois(theta_hat, q) <= beta, and theta_hat itself where theta_hat >= 1\n"
          "    (possible, since N_tilde < N; our reading, the paper does not say).\n"
          "    theta_hat, N_tilde: arrays of shape (runs, arms), N_tilde > 0; beta: β(t) = log t, a number.\"\"\"\n"
          "    # your code here (all runs and arms at once)\n"
          "    return ...\n"),
    solution_code=_KL_CODE,
    solution=d_klucb_index,
    grade=function_grader(lambda theta_hat, N_tilde, beta: klucb_poisson(theta_hat, N_tilde, beta),
                          _kl_inputs, rtol=0, atol=_KL_ATOL, simulate=_kl_race, name="d_klucb_index"),
    hints=(r"Notebook §3's table: the index is the largest q between $\hat\theta$ and 1 whose Poisson divergence from "
           r"$\hat\theta$, times $\tilde N$, stays below $\beta(t)$; above $\hat\theta$ that divergence grows with q, so "
           "the allowed q form an interval.",
           r"Bisection for all runs and arms at once: lo = $\hat\theta$ (always allowed), hi = 1 (check first whether "
           r"$q = 1$ is allowed); halve [lo, hi] about 50 times, keeping lo allowed. "
           r"$d_{\mathrm{Pois}}(p, q) = p\log(p/q) + q - p$, with $0\cdot\log 0 = 0$ when $\hat\theta = 0$; where "
           r"$\hat\theta \ge 1$ the index is $\hat\theta$ (our reading: the paper does not say)."),
    explanation=(r"Bisection works because $q \mapsto d_{\mathrm{Pois}}(\hat\theta, q)$ is increasing on "
                 r"$[\hat\theta, \infty)$: the set of allowed q is the interval $[\hat\theta, \text{index}]$. delaylab solves the same equation with three Newton steps "
                 "(delaylab.indices.klucb_poisson); both agree to 1e-10. The Poisson divergence, not the Bernoulli "
                 r"one, is what Lemma 13 makes valid for sums of Bernoulli variables with different rates $\tau\theta$."),
    wrong_answers=[
        lambda theta_hat, N_tilde, beta: np.zeros_like(theta_hat),
        lambda theta_hat, N_tilde, beta: klucb_bernoulli(np.minimum(theta_hat, 1.0), N_tilde, beta),  # Bernoulli
        lambda theta_hat, N_tilde, beta: klucb_poisson(theta_hat, N_tilde, beta, upper=np.inf),       # no cap at 1
        lambda theta_hat, N_tilde, beta: theta_hat + np.sqrt(beta / (2 * N_tilde)),                   # a UCB width
    ],
    policy=lambda fn, delay, window: StudentDelayedKLUCB(fn, delay, window),
    race_against="D-KLUCB",
))


# ---------------------------------------------------------------- 1.5 compute: Theorem 3's constant (notebook §5)
def _lb(p):
    return bounds.censored_slope((p["best"], p["other"]), _tau(p["mu"], p["m"]))


def _lb_wrong(p):
    th, tm = (p["best"], p["other"]), _tau(p["mu"], p["m"])
    gap = p["best"] - p["other"]
    return [
        (bounds.lai_robbins_slope(th), "that is Lai & Robbins' constant (Theorem 4, uncensored): with a window, only "
                                       r"a share $\tau_m$ of the conversions is ever seen, so the divergence is between "
                                       r"$\tau_m\theta_k$ and $\tau_m\theta^*$."),
        (bounds.censored_slope(th, tm, paper_regret=True), "that is Theorem 3's constant as printed, for the paper's "
                                                           r"R(T) (its L(T), Appendix B), with a factor $\tau_m$; this "
                                                           r"exercise asks for the slope of the pseudo-regret "
                                                           r"$\sum\Delta$ (no factor $\tau_m$), the one the panel draws."),
        (gap / float(kl_bernoulli(tm * p["best"], tm * p["other"])), "the divergence's arguments are swapped: "
                                                                     r"$d(\tau_m\theta_k, \tau_m\theta^*)$, the suboptimal arm first."),
        (1 / float(kl_bernoulli(tm * p["other"], tm * p["best"])), "that is the number of pulls per log T of the "
                                                                   "suboptimal arm; the regret multiplies it by the "
                                                                   rf"gap $\Delta = {gap:g}$."),
    ]


def _lb_draw(d):
    best = d.grid(0.08, 0.2, 0.01)
    return {"best": best, "other": d.grid(0.02, round(best - 0.03, 2), 0.01), "mu": int(d.grid(100, 900, 50)),
            "m": int(d.grid(100, 2000, 100))}


register(Exercise(
    id="01.lower-bound",
    kind="compute",
    stars=2,
    minutes=12,
    title="The slope of the censored lower bound",
    answer_name="slope_c",
    stub=("# ✎ Exercise 1.5: the slope c of the censored lower bound for the PSEUDO-REGRET, for YOUR numbers.\n"
          "# dl.Geometric(mean=μ).cdf(m) gives τ_m; dl.indices.kl_bernoulli(p, q) the divergence d(p, q).\n"
          "slope_c = ...\n"),
    solution_code=lambda p: (f"tau_m = dl.Geometric(mean={p['mu']}).cdf({p['m']})      # P(D ≤ m) ≈ "
                             f"{_tau(p['mu'], p['m']):.3f}\n"
                             f"slope_c = ({p['best']} - {p['other']}) / dl.indices.kl_bernoulli(tau_m * {p['other']}, "
                             f"tau_m * {p['best']})   # ≈ {_lb(p):.3f}\n"),
    draw=_lb_draw,
    default={"best": 0.1, "other": 0.05, "mu": MEAN_DELAY, "m": WINDOW},
    given=lambda p: (f"two arms θ = ({p['best']}, {p['other']}); geometric delays with mean μ = {p['mu']}; "
                     f"window m = {p['m']}."),
    **numeric(_lb, _lb_wrong, rtol=2e-3, name="slope_c"),
    hints=("Notebook §5 (the lower bounds): in the censored model (Theorem 3) the divergence is taken between the "
           "scaled rates, and each suboptimal pull costs its gap in the pseudo-regret.",
           r"$c = \sum_k \Delta_k / d(\tau_m\theta_k, \tau_m\theta^*)$ with $\tau_m = P(D \le m)$, d the Bernoulli "
           r"divergence, the suboptimal arm first; here one suboptimal arm. No factor $\tau_m$ in front: that one "
           "belongs to the paper's R(T) (its L(T), Appendix B)."),
    explanation=lambda p: (rf"$\tau_m = P(D \le {p['m']}) = {_tau(p['mu'], p['m']):.3f}$, and "
                           rf"$c = \Delta/d(\tau_m \cdot {p['other']}, \tau_m \cdot {p['best']}) = {_lb(p):.3f}$, above "
                           f"the uncensored {bounds.lai_robbins_slope((p['best'], p['other'])):.3f}: censoring makes "
                           r"the problem harder. Theorem 3 as printed multiplies each term by $\tau_m$ (here "
                           f"{bounds.censored_slope((p['best'], p['other']), _tau(p['mu'], p['m']), paper_regret=True):.3f}"
                           ") because its proof (the paper's Appendix B) bounds L(T), which counts only the "
                           "conversions seen. This is an asymptotic "
                           r"slope ($T \to \infty$): at the panel's horizons the curves may lie below $c\log T$."),
))


# ---------------------------------------------------------------- 1.6 explain: why a window raises the lower bound
_WHY_WINDOW = (r"Without a window every conversion is eventually seen: a delay only postpones the information. With a "
               r"finite mean delay $\mu$, the pulls whose news is still pending weigh $W \le \mu$ in total ($\sum_e "
               r"P(D > e) = E[D]$), a number that does not grow with T. Write $f(\alpha) = d(\alpha p, \alpha q)$: "
               r"it is convex (the paper's Lemma 15), so it lies above its tangent at $\alpha = 1$, and a pull of "
               r"weight $\tau$ misses at most $(1 - \tau) f'(1)$ of the information $f(1)$ of a full pull. So the "
               r"information still missing is at most a constant, $f'(1)/f(1)$, times $W \le \mu$ full pulls' "
               r"worth: the delayed learner lags an undelayed one by a bounded number of pulls — an additive cost, "
               r"invisible in the $\log T$ slope. With a window, a share $1 - \tau_m$ of "
               r"the conversions is lost for good: each pull only tells about the rate $\tau_m\theta$, and the rates "
               r"$\tau_m\theta_k$ and $\tau_m\theta^*$ are closer in divergence than $\theta_k$ and $\theta^*$, so "
               r"each suboptimal arm needs more pulls, $\log T / d(\tau_m\theta_k, \tau_m\theta^*)$: the lower "
               r"bound rises.")

register(Exercise(
    id="01.why-window",
    kind="explain",
    stars=2,
    minutes=8,
    title="Why a window raises the lower bound, and delays alone do not",
    solution=_WHY_WINDOW,
    points=("without a window, delays postpone the information but every conversion arrives",
            "the postponement is a constant that does not grow with T (an additive cost)",
            r"with a window, a share $1 - \tau_m$ of the conversions is lost for good: a pull tells only about "
            r"$\tau_m\theta$",
            r"scaled rates are harder to tell apart: more pulls, $\log T / d(\tau_m\theta_k, \tau_m\theta^*)$"),
    hints=("Notebook §5: compare what a pull eventually tells the learner with and without a window.",
           "Without a window: everything arrives, only later. With one: what fraction arrives, and what does the "
           "divergence between the scaled rates do to the number of pulls needed?"),
    wrong_answers=[],
))
