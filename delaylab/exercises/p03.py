"""Exercises of notebook 03: Vernade, Carpentier, Lattimore, Zappella, Ermis, Brueckner (2020),
linear bandits with delayed, censored conversions.

The formulas are those of :mod:`delaylab.policies.linear` (Theorem 1, Algorithm 1); the numbers
come from its functions (``confidence_radius``, ``weighted_norms``) and from the delay laws.
"""

from __future__ import annotations

import numpy as np

from ..laws import Geometric
from ..policies.linear import OTFLinUCB, confidence_radius, weighted_norms
from ..settings.linear import LinearConversions
from ._core import Exercise, choice_grader, function_grader, number_grader, register
from .student import race_check, run_student


def _zeros_index(theta_hat, v_inv, actions, f, delay_term):
    """A wrong answer (tests): all zeros."""
    return np.zeros(actions.shape[:2])

# ---------------------------------------------------------------- predict: what θ̂ᵂ estimates
_TAU_50 = float(Geometric(50).cdf(50))

register(Exercise(
    id="03.estimate-target",
    kind="predict",
    title="Where does the windowed estimate go?",
    choices={
        "theta": "to θ itself: least squares is consistent, the delays only slow it down",
        "tau-theta": f"to τ_m·θ ≈ {_TAU_50:.2f}·θ: shorter than θ, in the same direction",
        "zero": "to 0: with μ = m most conversions are never seen",
        "beyond": "beyond θ: the window keeps only the fast, lucky conversions",
    },
    solution="tau-theta",
    grade=choice_grader("tau-theta", {
        "theta": "Every action enters V_t at once, but only the conversions that arrive within m steps enter "
                 "B_t: on average a fraction τ_m of them. The estimate is shrunk by τ_m.",
        "tau-theta": f"Each action is in V_t, but it converts within the window only with probability "
                     f"τ_m⟨A_s, θ⟩; θ̂ᵂ estimates τ_m·θ (here τ_m = P(D ≤ 50) = {_TAU_50:.3f}). It ranks the "
                     "actions like θ, which is all a learner needs.",
        "zero": f"With geometric delays of mean 50, τ_m = P(D ≤ 50) = {_TAU_50:.2f}: most conversions do "
                "arrive within the window. The estimate is shrunk, not lost.",
        "beyond": "The window discards conversions, it never adds any: B_t has fewer terms than without "
                  "censoring, so the estimate is shorter than θ, not longer.",
    }),
    hint="Read Section 2 again: which sum contains all past actions (V_t), which only the conversions seen within m steps (B_t)?",
    explanation="θ̂ᵂ_t = V_t⁻¹B_t with every action in V_t and only the conversions seen within m steps in "
                "B_t: it converges to τ_m·θ, τ_m = P(D ≤ m).",
    wrong_answers=["theta", "zero", "beyond"],
))


# ---------------------------------------------------------------- compute: the width along an action
WIDTH_V = np.array([[41.0, 12.0], [12.0, 26.0]])
WIDTH_A = np.array([0.6, 0.8])
WIDTH_T, WIDTH_DELTA, WIDTH_LAM, WIDTH_DELAY_TERM = 200, 0.1, 1.0, 2.4


def _width_parts():
    f = float(confidence_radius(WIDTH_T, 2, WIDTH_LAM, WIDTH_DELTA))
    norm = float(weighted_norms(WIDTH_A[None, None, :], np.linalg.inv(WIDTH_V)[None])[0, 0])
    return f, norm


def width_answer() -> float:
    """α_{t,δ}‖a‖_{V⁻¹} with α = 2f_{t,δ} + (delay term)."""
    f, norm = _width_parts()
    return (2 * f + WIDTH_DELAY_TERM) * norm


register(Exercise(
    id="03.width",
    kind="compute",
    title="The width of the confidence ellipse along one action",
    answer_name="width",
    stub=("# d = 2, λ = 1, δ = 0.1, paper's round t = 200,\n"
          "# V = [[41, 12], [12, 26]], a = (0.6, 0.8), and the delay term Σ_{s=t−m}^{t−1} ‖A_s‖ in V⁻¹ equals 2.4.\n"
          "# width = α_{t,δ} · ‖a‖ in V⁻¹ (numpy is available as np)\n"
          "width = ...\n"),
    solution_code=("V = np.array([[41.0, 12.0], [12.0, 26.0]])\n"
                   "a = np.array([0.6, 0.8])\n"
                   "d, lam, delta, t = 2, 1.0, 0.1, 200\n"
                   "f = np.sqrt(lam) + np.sqrt(2 * np.log(1 / delta) + d * np.log((d * lam + t) / (d * lam)))\n"
                   "alpha = 2 * f + 2.4\n"
                   "width = alpha * np.sqrt(a @ np.linalg.solve(V, a))\n"),
    solution=width_answer(),
    grade=number_grader(width_answer, rtol=2e-3, misconceptions={
        (lambda: 2 * _width_parts()[0] * _width_parts()[1]): "you left out the delay term: α_{t,δ} = 2f_{t,δ} "
                                                            "+ Σ‖A_s‖, and the sum is the price of the delays.",
        (lambda: (_width_parts()[0] + WIDTH_DELAY_TERM) * _width_parts()[1]): "α_{t,δ} has 2f_{t,δ}, not f_{t,δ}.",
        (lambda: (2 * _width_parts()[0] + WIDTH_DELAY_TERM) * float(np.sqrt(WIDTH_A @ WIDTH_V @ WIDTH_A))):
            "the norm is taken in V⁻¹ (the ellipse is narrow where V is large), not in V.",
        (lambda: (2 * _width_parts()[0] + WIDTH_DELAY_TERM) * _width_parts()[1] ** 2):
            "‖a‖ in V⁻¹ is the square root of aᵀV⁻¹a.",
    }),
    hint=("Section 3 of the notebook: α_{t,δ} = 2f_{t,δ} + Σ_{s=t−m}^{t−1}‖A_s‖ in V_t⁻¹, f_{t,δ} from "
          "Section 2, and ‖a‖ in V⁻¹ = sqrt(aᵀV⁻¹a)."),
    explanation=(f"f = √λ + sqrt(2 log(1/δ) + d log((dλ + t)/(dλ))) = {_width_parts()[0]:.3f}, so α = 2f + 2.4 = "
                 f"{2 * _width_parts()[0] + 2.4:.3f}; ‖a‖ in V⁻¹ = {_width_parts()[1]:.4f}: the width is their "
                 f"product, {width_answer():.4f}."),
    wrong_answers=[2 * _width_parts()[0] * _width_parts()[1], (_width_parts()[0] + 2.4) * _width_parts()[1], 0.0],
))


# ---------------------------------------------------------------- implement: OTFLinUCB's index
def otf_index(theta_hat, v_inv, actions, f, delay_term):
    """OTFLinUCB's index ⟨a, θ̂ᵂ⟩ + (2f + delay term)·‖a‖ in V⁻¹ for every run and action (Algorithm 1)."""
    mean = np.einsum("bkd,bd->bk", actions, theta_hat)
    norm = np.sqrt(np.einsum("bkd,bde,bke->bk", actions, v_inv, actions))
    return mean + (2 * f + delay_term)[:, None] * norm


def _reference_index(theta_hat, v_inv, actions, f, delay_term):
    """delaylab's OTFLinUCB.index, from its own pieces (weighted_norms, α = 2f + delay term)."""
    return (actions @ theta_hat[:, :, None])[:, :, 0] + (2.0 * f + delay_term)[:, None] * weighted_norms(actions, v_inv)


def _index_inputs(rng):
    B, K, d = int(rng.integers(1, 5)), int(rng.integers(2, 11)), int(rng.integers(2, 6))
    past = rng.integers(0, 2, size=(B, int(rng.integers(5, 60)), d)).astype(float)
    V = np.einsum("bnd,bne->bde", past, past) + rng.uniform(0.5, 2.0) * np.eye(d)
    v_inv = np.linalg.inv(V)
    theta_hat = rng.uniform(-0.2, 0.8, size=(B, d))
    actions = rng.integers(0, 2, size=(B, K, d)).astype(float)
    actions[:, :, 0] = np.maximum(actions[:, :, 0], 1 - actions.sum(axis=2).clip(0, 1))  # no zero action
    actions /= np.linalg.norm(actions, axis=2, keepdims=True)
    f = rng.uniform(2.0, 6.0, size=B)
    delay_term = rng.uniform(0.5, 8.0, size=B)
    return theta_hat, v_inv, actions, f, delay_term


class StudentOTFLinUCB(OTFLinUCB):
    """OTFLinUCB whose index is the student's function of θ̂ᵂ, V⁻¹, the actions, f and the delay term."""

    def __init__(self, index_fn=None, window=None, delta=0.1, lam=1.0, width="exact"):
        self.index_fn = index_fn
        super().__init__(window=window, delta=delta, lam=lam, width=width)

    @property
    def label(self):
        return "your OTFLinUCB"

    def index(self, t, context):
        B, K = context.shape[:2]
        return run_student(self.index_fn, "otf_index", (B, K), self.theta_hat(), self.v_inv_.copy(),
                           context.copy(), self.f(t).copy(), self.delay_term(t))


def _otf_race(fn):
    env = LinearConversions(np.full(5, 1 / np.sqrt(5)), Geometric(50), n_actions=10, window=50)
    return race_check(lambda: StudentOTFLinUCB(fn, window=50), lambda: OTFLinUCB(window=50), env,
                      horizon=300, runs=10)


register(Exercise(
    id="03.otf-index",
    kind="implement",
    title="Implement OTFLinUCB's index and race it",
    answer_name="otf_index",
    stub=("def otf_index(theta_hat, v_inv, actions, f, delay_term):\n"
          "    \"\"\"OTFLinUCB's index for every run and action: an array of shape (runs, K).\n"
          "    theta_hat (runs, d): θ̂ᵂ_t; v_inv (runs, d, d): V_t⁻¹; actions (runs, K, d): the round's actions;\n"
          "    f (runs,): f_{t,δ}; delay_term (runs,): Σ_{s=t−m}^{t−1} ‖A_s‖ in V_t⁻¹.\"\"\"\n"
          "    # your code here: ⟨a, θ̂ᵂ⟩ + α_{t,δ}·‖a‖ in V⁻¹ (np.einsum or @ help with the batch axis)\n"
          "    return ...\n"),
    solution_code=("def otf_index(theta_hat, v_inv, actions, f, delay_term):\n"
                   "    mean = np.einsum(\"bkd,bd->bk\", actions, theta_hat)\n"
                   "    norm = np.sqrt(np.einsum(\"bkd,bde,bke->bk\", actions, v_inv, actions))\n"
                   "    return mean + (2 * f + delay_term)[:, None] * norm\n"),
    solution=otf_index,
    grade=function_grader(_reference_index, _index_inputs, rtol=1e-8, atol=1e-10, simulate=_otf_race),
    hint=("Section 3 of the notebook: the index is ⟨a, θ̂ᵂ_t⟩ + α_{t,δ}‖a‖ in V_t⁻¹ with "
          "α_{t,δ} = 2f_{t,δ} + Σ‖A_s‖ (Eq. 6), and ‖a‖ in V⁻¹ = sqrt(aᵀV⁻¹a)."),
    explanation=("The mean ⟨a, θ̂ᵂ⟩ estimates τ_m⟨a, θ⟩; the bonus is the half-width of the confidence "
                 "ellipse along a. Its factor has two parts: 2f_{t,δ}, the usual least-squares radius, and the "
                 "delay term, the price of the m last actions whose conversions may still come."),
    wrong_answers=[
        _zeros_index,
        lambda theta_hat, v_inv, actions, f, delay_term: (               # no delay term
            np.einsum("bkd,bd->bk", actions, theta_hat)
            + (2 * f)[:, None] * np.sqrt(np.einsum("bkd,bde,bke->bk", actions, v_inv, actions))),
        lambda theta_hat, v_inv, actions, f, delay_term: (               # f instead of 2f
            np.einsum("bkd,bd->bk", actions, theta_hat)
            + (f + delay_term)[:, None] * np.sqrt(np.einsum("bkd,bde,bke->bk", actions, v_inv, actions))),
        lambda theta_hat, v_inv, actions, f, delay_term: (               # squared norm
            np.einsum("bkd,bd->bk", actions, theta_hat)
            + (2 * f + delay_term)[:, None] * np.einsum("bkd,bde,bke->bk", actions, v_inv, actions)),
    ],
    policy=lambda fn, window, delta=0.1, lam=1.0, width="exact": StudentOTFLinUCB(fn, window, delta, lam, width),
))


# ---------------------------------------------------------------- predict: shrinking the window
register(Exercise(
    id="03.small-window",
    kind="predict",
    title="Shrink the window below the mean delay",
    choices={
        "lower": "lower: the delay term sums fewer norms (m instead of 100), so OTFLinUCB explores less",
        "higher": "higher: τ_m drops from 0.63 to 0.18, the signal θ̂ᵂ ≈ τ_m·θ is much weaker",
        "same": "about the same: the window only changes constants",
    },
    solution="higher",
    grade=choice_grader("higher", {
        "lower": "The delay term does shrink, but the estimate now converges to τ_m·θ with τ_m = P(D ≤ 20) ≈ "
                 "0.18: the gaps between actions are 3.5 times smaller while f_{t,δ} is unchanged. Learning "
                 "slows down: the regret at T is higher.",
        "higher": "With m = 20 only 18% of the conversions are ever counted; the differences "
                  "between actions shrink by τ_m while the 2f_{t,δ} part of the width stays: learning slows down.",
        "same": "τ_m multiplies the signal: 0.63 at m = 100, 0.18 at m = 20 (geometric delays, mean 100). "
                "That is not a constant the learner can ignore.",
    }),
    hint="Compare τ_m = P(D ≤ m) at m = 100 and m = 20 (the status line of the panel prints it) with what the delay term saves.",
    explanation="A smaller window trims the delay term but throws away most conversions: the signal τ_m·θ "
                "weakens while 2f_{t,δ} does not, so the regret at T grows.",
    wrong_answers=["lower", "same"],
))
