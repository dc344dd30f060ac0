"""Exercises of notebook 04: Pike-Burke, Agrawal, Szepesvári, Grünewälder (2018), delayed,
aggregated, anonymous feedback.

The phase sizes are our *reconstruction* (the paper's equations were lost in our copy; see
docs/readings.md and :mod:`delaylab.policies.odaaf`): the exercises say so.
"""

from __future__ import annotations

import numpy as np

from ..laws import Uniform
from ..policies.odaaf import ODAAF, _size, _tolerance, odaaf_sizes, survivors
from ..settings.bernoulli import AggregatedAnonymous
from ._core import Exercise, choice_grader, function_grader, number_grader, register
from .student import race_check, run_student


def _zeros_survivors(means, active, tolerance):
    """A wrong answer (tests): all zeros."""
    return np.zeros(means.shape, dtype=bool)

# ---------------------------------------------------------------- compute: the leak from the previous block
LEAK_THETA, LEAK_LAW = 0.6, Uniform(0, 20)


def leak_answer() -> float:
    """θ_prev · Σ_{k ≥ 0} P(τ > k) = θ_prev · E[τ] rewards of the previous arm arrive in the next block."""
    return LEAK_THETA * float(LEAK_LAW.mean)


register(Exercise(
    id="04.leak",
    kind="compute",
    title="How much of the previous block leaks into the next one",
    answer_name="leak",
    stub=("# Arm 1 (θ_1 = 0.6) was played for a long block; arm 2's block starts now. Delays are uniform\n"
          "# on {0, …, 20}. How many rewards of arm 1, in expectation, arrive during arm 2's block\n"
          "# (at least 20 steps long) and are credited to arm 2?\n"
          "leak = ...\n"),
    solution_code=("# a pull k + 1 steps before the switch lands in the new block if its delay exceeds k\n"
                   "p_later = [(20 - k) / 21 for k in range(21)]      # P(τ > k) for τ uniform on {0..20}\n"
                   "leak = 0.6 * sum(p_later)                          # = θ_1 · E[τ]\n"),
    solution=leak_answer(),
    grade=number_grader(leak_answer, rtol=1e-3, misconceptions={
        LEAK_THETA * 20: "that counts every pull of the last d = 20 steps as arriving late; a pull made k + 1 "
                         "steps before the switch lands in the new block only if its delay exceeds k.",
        float(LEAK_LAW.mean): "that is E[τ] rewards; only a fraction θ_1 of the pulls give a reward at all.",
        LEAK_THETA * 21: "that counts every pull of the last 21 steps; a pull k + 1 steps before the switch "
                         "lands late only with probability P(τ > k).",
    }),
    hint=("Section 2 of the notebook: a pull of arm 1 made k + 1 steps before the change lands in arm 2's "
          "block when τ > k; sum θ_1·P(τ > k) over k ≥ 0 (that sum is E[τ])."),
    explanation=("θ_1·Σ_{k≥0}P(τ > k) = θ_1·E[τ] = 0.6 × 10 = 6 rewards. As many of arm 2's own rewards leave "
                 "its block at its end, so in a long block the two roughly cancel — but the incoming ones depend "
                 "on which arm was played before, hence on the last elimination: the bridge period (played, then "
                 "discarded) cuts that dependence."),
    wrong_answers=[LEAK_THETA * 20, float(LEAK_LAW.mean), 0.0],
))


# ---------------------------------------------------------------- compute: a phase length
PHASE_M, PHASE_T, PHASE_MU = 2, 20_000, 20.0


def phase_answer() -> float:
    return float(odaaf_sizes(PHASE_M, PHASE_T, PHASE_MU))


def _phase_without_m() -> float:
    tol = _tolerance(PHASE_M)
    return float(_size(PHASE_M, PHASE_T, 6 * tol * PHASE_MU))


def _improved_ucb_n() -> float:
    tol = float(_tolerance(PHASE_M))
    return float(np.ceil(2 * np.log(PHASE_T * tol**2) / tol**2))


def _block() -> float:
    return float(odaaf_sizes(PHASE_M, PHASE_T, PHASE_MU) - odaaf_sizes(PHASE_M - 1, PHASE_T, PHASE_MU))


register(Exercise(
    id="04.phase-length",
    kind="compute",
    title="ODAAF's phase length n_m (our reconstruction)",
    answer_name="n_2",
    stub=("# ODAAF's n_m for phase m = 2, horizon T = 20,000 and E[τ] = 20 (the formula of Section 3;\n"
          "# Δ̃_1 = 1/2 and the tolerance halves every phase). Round up: n_m is a number of samples.\n"
          "n_2 = ...\n"),
    solution_code=("m, T, mu = 2, 20_000, 20.0\n"
                   "tol = 0.5 ** m                      # Δ̃_2 = 1/4\n"
                   "L = np.log(T * tol**2)\n"
                   "n_2 = np.ceil((np.sqrt(2 * L) + np.sqrt(2 * L + 8 / 3 * tol * L + 6 * tol * m * mu)) ** 2 / tol**2)\n"),
    solution=phase_answer(),
    grade=number_grader(phase_answer, rtol=0, atol=1.01, misconceptions={
        _phase_without_m: "the last term is 6Δ̃_m·m·E[τ]: it grows with the phase number m, because the "
                          "corruption of every earlier block accumulates in the estimates.",
        _improved_ucb_n: "that is Improved UCB's n_m, without any delay; ODAAF's has the extra terms.",
        _block: "that is n_2 − n_1, the length of phase 2's block for each arm; n_m counts the samples in total.",
    }),
    hint=("Section 3 of the notebook, the ODAAF bullet: L = log(TΔ̃_m²), Δ̃_2 = 1/4, and the last term "
          "under the second root is 6Δ̃_m·m·E[τ]."),
    explanation=(f"Δ̃_2 = 1/4, L = log(20,000/16) ≈ {np.log(PHASE_T / 16):.3f}; the formula gives n_2 = "
                 f"{phase_answer():.0f} samples per active arm (phase 1: {float(odaaf_sizes(1, PHASE_T, PHASE_MU)):.0f}). "
                 "This formula is our reconstruction (from a third party's implementation), not the paper's lost text."),
    wrong_answers=[_phase_without_m(), _improved_ucb_n(), _block(), 0.0],
))


# ---------------------------------------------------------------- implement: the elimination test
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
        out = run_student(self.survivors_fn, "survivors", active.shape, means.copy(), active.copy(),
                          np.asarray(tolerance, dtype=float).copy())
        return out != 0


def _odaaf_race(fn):
    env = AggregatedAnonymous((0.6, 0.3), Uniform(0, 10))
    return race_check(lambda: StudentODAAF(fn, 5.0), lambda: ODAAF(5.0), env, horizon=5000, runs=20)


register(Exercise(
    id="04.survivors",
    kind="implement",
    title="Implement ODAAF's elimination test and race it",
    answer_name="survivors",
    stub=("def survivors(means, active, tolerance):\n"
          "    \"\"\"The arms still active after Step 2, a bool array of shape (runs, K).\n"
          "    means (runs, K): the estimates X̄_{m,i}; active (runs, K) bool: the active arms;\n"
          "    tolerance (runs,): Δ̃_m.\"\"\"\n"
          "    # your code here: eliminate j if X̄_j + Δ̃_m < max over the ACTIVE arms of X̄_i\n"
          "    return ...\n"),
    solution_code=("def survivors(means, active, tolerance):\n"
                   "    best = np.where(active, means, -np.inf).max(axis=1, keepdims=True)\n"
                   "    return active & (means + tolerance[:, None] >= best)\n"),
    solution=survivors_solution,
    grade=function_grader(survivors, _survivor_inputs, trials=40, simulate=_odaaf_race),
    hint=("Step 2 in Section 3 of the notebook: the max is over the active arms only, an arm survives while "
          "X̄_j + Δ̃_m ≥ that max, and an eliminated arm never comes back."),
    explanation=("An arm is dropped once it is worse than the best active estimate by more than the tolerance; "
                 "the tolerance halves every phase while n_m grows so that the estimates are within Δ̃_m/2 of the "
                 "truth — then the best arm is never dropped (with high probability)."),
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
))


# ---------------------------------------------------------------- predict: doubling E[τ]
register(Exercise(
    id="04.double-delay",
    kind="predict",
    title="Double the expected delay",
    choices={
        "grows": "ODAAF's regret at T grows markedly: its phases lengthen with E[τ]",
        "same": "ODAAF's regret stays about the same: delays cost only an additive constant",
        "shrinks": "ODAAF's regret shrinks: longer blocks give cleaner sums",
    },
    solution="grows",
    grade=choice_grader("grows", {
        "grows": "E[τ] enters n_m through the term 6Δ̃_m·m·E[τ]: every phase is longer, the worse arm is played "
                 "longer before it is eliminated. Appendix F below measures it: about linear in E[τ].",
        "same": "The cost of delays is additive in T, but not small: E[τ] sits inside n_m, so every phase — and the "
                "regret paid while both arms are active — grows with it. QPM-D, with labelled rewards, barely moves.",
        "shrinks": "Blocks are longer because they must be: the leak θ·E[τ] at each change grows with E[τ]. Longer "
                   "phases mean more pulls of the worse arm before the elimination.",
    }),
    hint="Look at where E[τ] enters the phase sizes n_m in Section 3, and at what the regret pays during a phase.",
    explanation="n_m grows with E[τ] (linearly in the last term under the root), so the worse arm is played "
                "longer: ODAAF's regret grows about linearly in E[τ] (Appendix F).",
    wrong_answers=["same", "shrinks"],
))
