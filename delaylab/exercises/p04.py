"""Exercises of notebook 04: Pike-Burke, Agrawal, Szepesvári, Grünewälder (2018), delayed,
aggregated, anonymous feedback.

The phase sizes are our *reconstruction* (the paper's equations were lost in our copy; see
docs/readings.md and :mod:`delaylab.policies.odaaf`). The two derivations (the leak between
blocks, the bias of a block's mean) hold for any phase sizes; they draw their parameters from the
student.
"""

from __future__ import annotations

import numpy as np

from ..laws import Geometric, Poisson, Uniform
from ..policies.odaaf import ODAAF, survivors
from ..settings.bernoulli import AggregatedAnonymous
from ._core import Exercise, choice_grader, function_grader, numeric, register
from .student import race_check, run_student


def _zeros_survivors(means, active, tolerance):
    """A wrong answer (tests): all zeros."""
    return np.zeros(means.shape, dtype=bool)


# ---------------------------------------------------------------- 4.1 derive: the leak from the previous block
def _law(p):
    kind, v = p["law"]
    return {"uniform": lambda: Uniform(0, v), "geometric": lambda: Geometric(mean=v), "poisson": lambda: Poisson(v)}[kind]()


def _law_text(p):
    kind, v = p["law"]
    return {"uniform": f"uniform on {{0, 1, …, {v}}}",
            "geometric": rf"geometric on {{0, 1, 2, …}} with mean {v} ($P(\tau > k) = \lambda^{{k+1}}$, "
                         rf"$\lambda = {v}/{v + 1}$)",
            "poisson": f"Poisson with mean {v}"}[kind]


def _leak(p):
    return p["theta"] * float(_law(p).mean)


def _leak_wrong(p):
    mean = float(_law(p).mean)
    out = [
        (mean, r"that is $\mathbb{E}[\tau]$ rewards; only a share $\theta_j$ of arm j's pulls gives a reward at all."),
        (p["theta"] * (mean + 1), r"a pull made k + 1 steps before the switch lands in the new block when $\tau > k$, "
                                  r"not $\tau \ge k$: $\sum_k P(\tau > k) = \mathbb{E}[\tau]$, not "
                                  r"$\mathbb{E}[\tau] + 1$."),
        (p["theta"] * mean / 2, "every late reward of arm j lands in arm i's block if the block is long; there is "
                                "no factor 1/2."),
    ]
    if p["law"][0] == "uniform":
        out.append((p["theta"] * p["law"][1], f"that counts every pull of the last d = {p['law'][1]} steps as "
                                              "arriving late; a pull made k + 1 steps before the switch lands in the "
                                              r"new block only with probability $P(\tau > k)$."))
    return out


def _leak_draw(d):
    kind = d.choice(["uniform", "geometric", "poisson"])
    v = d.integer(6, 40) if kind == "uniform" else d.integer(3, 25)
    return {"theta": d.grid(0.3, 0.9, 0.01), "law": (kind, v)}


def _leak_code(p):
    kind, v = p["law"]
    first = {"uniform": f"E_tau = {v} / 2                 # uniform on {{0, …, {v}}}",
             "geometric": f"E_tau = {v}                     # the geometric law's mean",
             "poisson": f"E_tau = {v}                     # the Poisson law's mean"}[kind]
    return (f"# a pull made k + 1 steps before the switch lands in the new block if tau > k:\n"
            f"# the sum over k of theta_j * P(tau > k) is theta_j * E[tau]\n"
            f"{first}\n"
            f"leak = {p['theta']} * E_tau\n")


register(Exercise(
    id="04.leak",
    kind="derive",
    stars=2,
    minutes=12,
    title="How much of the previous block leaks into the next one",
    answer_name="leak",
    stub=("# ✎ Exercise 4.1: the expected number of arm j's rewards that land in arm i's block, for YOUR numbers.\n"
          "leak = ...\n"),
    solution_code=_leak_code,
    draw=_leak_draw,
    default={"theta": 0.6, "law": ("uniform", 20)},
    given=lambda p: (rf"arm j ($\theta_j = {p['theta']}$) was played for a long block; arm i's block starts now and is long. "
                     f"Delays are {_law_text(p)}, the same for every pull. In expectation, how many of arm j's rewards "
                     "arrive during arm i's block (and are credited to it)?"),
    **numeric(_leak, _leak_wrong, rtol=1e-3, name="leak"),
    hints=("Section 2 (one run, step by step): which of arm j's pulls, made just before the switch, still have their "
           "reward on the way when arm i's block starts?",
           "A pull made k + 1 steps before the switch lands in the new block when its delay exceeds k: sum "
           r"$\theta_j P(\tau > k)$ over $k \ge 0$, and use $\sum_{k\ge 0} P(\tau > k) = \mathbb{E}[\tau]$ for a delay "
           "on {0, 1, 2, …}."),
    explanation=lambda p: (r"$\theta_j\sum_{k\ge 0} P(\tau > k) = \theta_j\,\mathbb{E}[\tau] = "
                           rf"{p['theta']} \times {float(_law(p).mean):g} = {_leak(p):.4g}$ rewards. Meanwhile "
                           r"$\theta_i\,\mathbb{E}[\tau]$ of arm i's own rewards leave its block at its end: the two "
                           r"cancel only when $\theta_i = \theta_j$, and otherwise the block's sum is off by "
                           r"$(\theta_j - \theta_i)\,\mathbb{E}[\tau]$, which a long block dilutes — Exercise 4.2 "
                           "makes this exact."),
))


# ---------------------------------------------------------------- 4.2 derive: the bias of a block's mean
def _bb(p):
    return (p["theta_j"] - p["theta_i"]) * (p["d"] / 2) / p["n"]


def _bb_wrong(p):
    e, n, ti, tj = p["d"] / 2, p["n"], p["theta_i"], p["theta_j"]
    return [
        (tj * e / n, r"that counts only the rewards of arm j that come in; $\theta_i\,\mathbb{E}[\tau]$ of arm i's "
                     "own rewards also leave the block at its end and are never seen in it."),
        (-ti * e / n, "that counts only arm i's rewards that leave the block; arm j's late rewards come in at its "
                      "start."),
        ((tj - ti) * e, r"that is the bias of the block's SUM; $\bar X$ is its mean over n steps."),
        ((ti - tj) * e / n, r"the sign: arm j's rewards come in ($+\theta_j\,\mathbb{E}[\tau]$), arm i's go out "
                            r"($-\theta_i\,\mathbb{E}[\tau]$)."),
    ]


def _bb_draw(d):
    ti = d.grid(0.2, 0.9, 0.05)
    tj = d.choice([round(float(x), 2) for x in np.arange(0.2, 0.91, 0.05) if abs(x - ti) >= 0.1 - 1e-9])
    dd = d.integer(5, 40)
    return {"theta_i": ti, "theta_j": tj, "d": dd, "n": d.integer(dd + 5, 200)}


register(Exercise(
    id="04.block-bias",
    kind="derive",
    stars=3,
    minutes=25,
    title="The bias of a block's mean estimate",
    answer_name="block_bias",
    stub=("# ✎ Exercise 4.2: E[X_bar] - theta_i for YOUR numbers (shown above): derive it on paper first.\n"
          "block_bias = ...\n"),
    solution_code=lambda p: (
        f"E_tau = {p['d']} / 2                             # uniform on {{0, …, {p['d']}}}\n"
        f"# in: theta_j * E[tau] rewards of arm j; out: theta_i * E[tau] of arm i's own (n = {p['n']} > d: exact)\n"
        f"block_bias = ({p['theta_j']} - {p['theta_i']}) * E_tau / {p['n']}\n"),
    draw=_bb_draw,
    default={"theta_i": 0.45, "theta_j": 0.6, "d": 20, "n": 100},
    given=lambda p: (rf"arm j ($\theta_j = {p['theta_j']}$) was played for a long block; then arm i "
                     rf"($\theta_i = {p['theta_i']}$) is played for n = {p['n']} steps. Delays are uniform on "
                     rf"{{0, 1, …, {p['d']}}} for every pull. $\bar X$ is the mean of the n anonymous observations "
                     r"$Y_t$ made during arm i's block. Give $\mathbb{E}[\bar X] - \theta_i$."),
    **numeric(_bb, _bb_wrong, rtol=1e-3, atol=1e-9, name="block_bias"),
    hints=("Section 2 and Exercise 4.1: during arm i's block, some rewards come in from the block before, and some "
           "of arm i's own rewards go out, arriving after the block ends.",
           r"Count both with $\sum_{k\ge 0} P(\tau > k) = \mathbb{E}[\tau]$: "
           r"$n\,\mathbb{E}[\bar X] = n\theta_i - \theta_i\,\mathbb{E}[\tau] + \theta_j\,\mathbb{E}[\tau]$ when n "
           "exceeds the largest delay; divide by n."),
    explanation=lambda p: (r"$n\,\mathbb{E}[\bar X] = n\theta_i - \theta_i\,\mathbb{E}[\tau] + \theta_j\,\mathbb{E}[\tau]$, "
                           r"so $\mathbb{E}[\bar X] - \theta_i = (\theta_j - \theta_i)\,\mathbb{E}[\tau]/n = "
                           rf"({p['theta_j']} - {p['theta_i']}) \times {p['d'] / 2:g} / {p['n']} = {_bb(p):.5f}$. The "
                           "bias shrinks like 1/n: a long block dilutes the leak (Section 3 shows how ODAAF's $n_m$ is "
                           "chosen against it). It also depends on the arm played before, which the bridge periods make "
                           "an active one (Exercise 4.5)."),
))


# ---------------------------------------------------------------- 4.3 implement: the elimination test
def survivors_solution(means, active, tolerance):
    """Step 2: arm j survives if it is active and X̄_j + Δ̃ ≥ max of X̄ over the active arms."""
    best = np.where(active, means, -np.inf).max(axis=1, keepdims=True)
    return active & (means + tolerance[:, None] >= best)


def _survivor_inputs(rng):
    B, K = int(rng.integers(1, 7)), int(rng.integers(2, 7))
    means = rng.uniform(0, 1, size=(B, K))
    active = rng.uniform(size=(B, K)) < 0.7
    active[np.arange(B), rng.integers(0, K, size=B)] = True  # at least one active arm per run
    tolerance = 0.5 ** rng.integers(1, 6, size=B).astype(float)
    return means, active, tolerance


class StudentODAAF(ODAAF):
    """ODAAF whose elimination test (Step 2) is the student's function."""

    def __init__(self, survivors_fn=None, mean_delay=None):
        self.survivors_fn = survivors_fn
        super().__init__(mean_delay)

    @property
    def label(self):
        return "your ODAAF"

    def survivors(self, means, active, tolerance):
        return run_student(self.survivors_fn, "survivors", active.shape, means.copy(), active.copy(),
                           np.asarray(tolerance, dtype=float).copy(), dtype=bool)


def _odaaf_race(fn):
    env = AggregatedAnonymous((0.6, 0.3), Uniform(0, 10))
    return race_check(lambda: StudentODAAF(fn, 5.0), lambda: ODAAF(5.0), env, horizon=5000, runs=20)


register(Exercise(
    id="04.survivors",
    kind="implement",
    stars=2,
    minutes=15,
    title="ODAAF's elimination test, raced in the live panel",
    answer_name="survivors",
    stub=("def survivors(means, active, tolerance):\n"
          "    \"\"\"The arms still active after Step 2, a bool array of shape (runs, K).\n"
          "    means (runs, K): the estimates of phase m; active (runs, K) bool: the active arms;\n"
          "    tolerance (runs,): the phase's tolerance (Delta_m with a tilde in the paper).\"\"\"\n"
          "    # your code here (all runs at once)\n"
          "    return ...\n"),
    solution_code=("def survivors(means, active, tolerance):\n"
                   "    best = np.where(active, means, -np.inf).max(axis=1, keepdims=True)\n"
                   "    return active & (means + tolerance[:, None] >= best)\n"),
    solution=survivors_solution,
    grade=function_grader(survivors, _survivor_inputs, trials=40, simulate=_odaaf_race, name="survivors", dtype=bool),
    hints=("Step 2 in Section 3: an arm is eliminated when its estimate plus the tolerance falls below the best "
           "estimate — best among which arms?",
           "The max is over the active arms only (np.where(active, means, -np.inf) hides the others); an arm "
           r"survives if it is active and $\bar X_j + \tilde\Delta_m \ge$ that max; an eliminated arm never comes "
           "back."),
    explanation=("An arm is dropped once it is worse than the best active estimate by more than the tolerance; the "
                 r"tolerance halves every phase while $n_m$ grows so that the estimates are within "
                 r"$\tilde\Delta_m/2$ of the truth — then the best arm is never dropped (with high probability)."),
    wrong_answers=[
        _zeros_survivors,
        lambda means, active, tolerance: active & (means + tolerance[:, None]       # max over every arm
                                                   >= means.max(axis=1, keepdims=True)),
        lambda means, active, tolerance: active & (means                            # no tolerance
                                                   >= np.where(active, means, -np.inf).max(axis=1, keepdims=True)),
        lambda means, active, tolerance: (means + tolerance[:, None]                # eliminated arms come back
                                          >= np.where(active, means, -np.inf).max(axis=1, keepdims=True)),
    ],
    policy=lambda fn, mean_delay: StudentODAAF(fn, mean_delay),
    race_against="ODAAF",
))


# ---------------------------------------------------------------- 4.4 predict: doubling E[τ]
register(Exercise(
    id="04.double-delay",
    kind="predict",
    stars=2,
    minutes=5,
    title="Double the expected delay",
    choices={
        "grows": "ODAAF's regret at T grows markedly",
        "same": "ODAAF's regret at T stays about the same",
        "shrinks": "ODAAF's regret at T shrinks",
    },
    solution="grows",
    grade=choice_grader("grows", {
        "grows": r"$\mathbb{E}[\tau]$ enters $n_m$ through the term $6\tilde\Delta_m m\,\mathbb{E}[\tau]$: every "
                 "phase is longer, the worse arm is played longer before it is eliminated. Appendix F below measures "
                 r"it: about linear in $\mathbb{E}[\tau]$. It is what ODAAF's schedule, set for the worst case, "
                 r"costs: told $\mathbb{E}[\tau] = 20$ with no delay at all, it pays the same in every run checked after "
                 "the panel (Section 6 shows why).",
        "same": r"What $\mathbb{E}[\tau]$ costs ODAAF is additive — a term added to the regret, not a factor — but "
                r"not small: the $\mathbb{E}[\tau]$ it is told sits inside $n_m$, so every phase — and the regret "
                "paid while both arms are active — grows with it. QPM-D, with labelled rewards, barely moves.",
        "shrinks": "Blocks are longer because they must be: the bias of a block's mean, "
                   r"$(\theta_j - \theta_i)\,\mathbb{E}[\tau]/n$, grows with $\mathbb{E}[\tau]$. Longer phases mean more "
                   "pulls of the worse arm before the elimination.",
    }),
    hints=(r"Section 3: where does $\mathbb{E}[\tau]$ enter the phase sizes $n_m$, and what does the regret pay during "
           "a phase?",
           r"While both arms are active, Step 1 of phase $m$ plays the worse arm for all of its block, "
           r"$n_m - n_{m-1}$ steps: half of the phase's Step 1."),
    explanation=r"$n_m$ grows with the $\mathbb{E}[\tau]$ ODAAF is told (linearly in the last term under the root), "
                r"so the worse arm is played longer: ODAAF's regret grows about linearly in $\mathbb{E}[\tau]$ "
                r"(Appendix F). That is the cost of a schedule set for the worst case: on the same runs with no delay "
                r"at all, told the same $\mathbb{E}[\tau]$, ODAAF ends with the same regret in every run checked after the "
                r"panel (Section 6 shows why).",
    wrong_answers=["same", "shrinks"],
    reveals=("regret grows", "grows markedly", "grows linearly", "grows about linearly", "additive cost of order",
             "flatten later", "longer phases", "phases lengthen", "qpm-d barely moves", "played longer"),
))


# ---------------------------------------------------------------- 4.5 explain: why bridge periods
_WHY_BRIDGE = (
    r"What the paper says the bridge is for (its Section 3, as printed): it “breaks the dependence between "
    r"confidence intervals calculated in phase [$m$] and the delayed pay-offs seeping into phase [$m+1$]. Without "
    r"the bridge period this dependence would impair the validity of our confidence intervals” (the brackets are "
    r"ours: our copy lost the symbols). Our reading of why: without a bridge, the rewards that leak into the first block of phase $m+1$ "
    r"come from the last pulls of phase $m$, whose rewards also made the estimates that decided which arms stay "
    r"active; the analysis conditions on the event that these estimates were good, and the leaked rewards are not "
    r"independent of that event. A bridge of $n_m - n_{m-1}$ discarded steps, played after the test, puts its "
    r"length in between: what leaks into phase $m+1$ then comes from pulls made after the decision, except for "
    r"delays longer than the bridge — none when the delays are bounded by its length, few when their variance is "
    r"known (Section 4.3). Proposition 1's sketch says so: “Conditioning on [the good event] does not effect this "
    r"due to the bridge period” (as printed, our brackets). "
    r"The bridge also fixes which arm comes before each block. A block's mean is off by "
    r"$(\theta_j - \theta_i)\,\mathbb{E}[\tau]/n$ (Exercise 4.2), where $j$ is the arm played just before it: the "
    r"rewards of $j$ that leak in cancel those of $i$ that leak out only if $\theta_j$ is close to $\theta_i$. With "
    r"a bridge on an active arm, the arm before every block of phase $m$ is active in phase $m$; on the event that "
    r"every estimate so far was within half its tolerance, any two such arms differ by at most $4\tilde\Delta_m$, "
    r"of the order of the tolerance (our reading of Proposition 1's sketch, Section 4.2; the constant is our "
    r"derivation). Without a bridge, the arm before the first block "
    r"of phase $m+1$ is the last arm of phase $m$: it passed phase $m-1$'s test even if it is eliminated right "
    r"after phase $m$, so on the same event its distance to the block's arm is bounded by $8\tilde\Delta_{m+1}$ "
    r"instead of $4\tilde\Delta_{m+1}$. With means in $[0, 1]$ these bounds say something only from phase 3 with a "
    r"bridge ($4\tilde\Delta_3 = 1/2$) and phase 4 without ($8\tilde\Delta_4 = 1/2$); in phase 2 neither does. There, "
    r"what helps is where the bridge is played: on the leader (our choice), the best arm's first block of phase 2 "
    r"follows the best arm itself, while without a bridge it follows the last arm of phase 1, which had to pass no "
    r"test to be played (phase 1 plays every arm) and can be arbitrarily far (the case our Section 7(b) builds). "
    r"Plain ODAAF's analysis (the paper's Section 4.1) uses no cancellation: it bounds each block's discrepancy by "
    r"$\mathbb{E}[\tau]$ (its Eq. 3) and adds that over the $m$ blocks its estimate pools (its Eq. 4), hence the "
    r"term in $m\,\mathbb{E}[\tau]$ of its $n_m$. With a bound on the delays or their variance known, and the "
    r"bridges, each block's discrepancy is of the order of $\tilde\Delta_m\,\mathbb{E}[\tau]$ and shrinks with the "
    r"tolerance, so the blocks' discrepancies no longer add up to a term growing with $m$: ODAAF-V's phase sizes "
    r"have none, and ODAAF-B's none while $m\,d$ does not exceed $n'_m$ — for large $d$ they revert to plain ODAAF's "
    r"(the paper's Section 4.2).")

register(Exercise(
    id="04.why-bridge",
    kind="explain",
    stars=2,
    minutes=10,
    title="What the bridge periods buy",
    solution=_WHY_BRIDGE,
    points=(r"the paper's stated purpose (Section 3): the bridge breaks the dependence between the confidence "
            r"intervals computed at the end of phase $m$ and the delayed rewards seeping into phase $m+1$ — what leaks "
            r"into the next phase comes from pulls made after the elimination test (except delays longer than the "
            r"bridge), so the confidence intervals stay valid given the event that the estimates were good",
            r"a block's bias, $(\theta_j - \theta_i)\,\mathbb{E}[\tau]/n$, is small only if the arm $j$ played just "
            r"before it has a mean close to $\theta_i$: the leaks in and out then cancel",
            r"with a bridge, the arm played before every block is active in the current phase, so on the good event "
            r"its mean is within $4\tilde\Delta_m$ of the block's arm, of the order of the tolerance (our reading of "
            r"Proposition 1's sketch, Section 4.2; the constant is our derivation); without one the "
            r"bound is $8\tilde\Delta_m$; with means in $[0, 1]$ neither bound says anything in phase 2, where a bridge "
            r"on the leader spares the best arm's block the last arm of phase 1, played without passing any test",
            r"plain ODAAF's analysis uses no cancellation: one $\mathbb{E}[\tau]$ per pooled block, summed over the "
            r"$m$ blocks — the term growing with $m$",
            r"with the delays' bound or variance known and the bridges, the blocks' errors shrink with the tolerance: "
            r"ODAAF-V's phase sizes have no term growing with $m$, ODAAF-B's none while $m\,d$ does not exceed $n'_m$"),
    hints=("Section 3, Step 4: the paper's own sentence on what the bridge breaks. Which pulls' rewards seep into "
           "the first block of the next phase, and what else did those pulls decide?",
           "Exercise 4.2's result: on which two arms does a block's bias depend, and when is it small?",
           r"Without a bridge, which arm is played just before the first block of phase $m+1$, and which test did "
           r"it pass? With a bridge, what do you know about that arm's mean? What is special about phase 1?"),
    wrong_answers=[],
))
