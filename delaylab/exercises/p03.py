"""Exercises of notebook 03: Vernade, Carpentier, Lattimore, Zappella, Ermis, Brueckner (2020),
linear bandits with delayed, censored conversions.

The formulas are those of :mod:`delaylab.policies.linear` (Theorem 1, Algorithm 1); the numbers
come from its functions (``confidence_radius``, ``weighted_norms``) and from the delay laws. The
compute and derive exercises draw their parameters from the student.
"""

from __future__ import annotations

import numpy as np

from ..laws import Geometric
from ..policies.linear import OTFLinUCB, confidence_radius, weighted_norms
from ..settings.linear import LinearConversions
from ._core import Exercise, choice_grader, function_grader, numeric, register, separated
from .student import race_check, run_student


def _zeros_index(theta_hat, v_inv, actions, f, delay_term):
    """A wrong answer (tests): all zeros."""
    return np.zeros(actions.shape[:2])


def _tau(mu, m) -> float:
    return float(Geometric(mu).cdf(m))


# ---------------------------------------------------------------- 3.1 predict: what θ̂ᵂ estimates
_MU_E, _M_E = 50, 50
_TAU_E = _tau(_MU_E, _M_E)

register(Exercise(
    id="03.estimate-target",
    kind="predict",
    stars=1,
    minutes=4,
    title="Where does the windowed estimate go?",
    choices={
        "theta": "to θ",
        "tau-theta": "to a vector in the direction of θ, but shorter",
        "zero": "to 0",
        "beyond": "to a vector in the direction of θ, but longer",
    },
    solution="tau-theta",
    grade=choice_grader("tau-theta", {
        "theta": r"Every action enters $V_t$ at once, but only the conversions that arrive within m steps enter "
                 r"$B_t$: on average a fraction $\tau_m$ of them. The estimate is shrunk by $\tau_m$.",
        "tau-theta": f"Each action is in $V_t$, but it converts within the window only with probability "
                     rf"$\tau_m\langle A_s, \theta\rangle$: $\hat\theta^W$ estimates $\tau_m\theta$ (here "
                     rf"$\tau_m = P(D \le {_M_E}) = {_TAU_E:.3f}$). It ranks the actions as θ does, with gaps between "
                     r"them $\tau_m$ times smaller.",
        "zero": rf"With geometric delays of mean {_MU_E}, $\tau_m = P(D \le {_M_E}) = {_TAU_E:.2f}$: most conversions "
                "do arrive within the window. The estimate is shrunk, not lost.",
        "beyond": r"The window discards conversions, it never adds any: $B_t$ has fewer terms than without censoring, "
                  "so the estimate is shorter than θ, not longer.",
    }),
    hints=(r"Which sum contains every past action ($V_t$), and which only the conversions seen within m steps "
           r"($B_t$)?",
           r"A conversion counts in $B_t$ only if it arrives within m steps: with probability $\tau_m = P(D \le m)$."),
    explanation=r"$\hat\theta^W_t = V_t^{-1}B_t$ with every action in $V_t$ and only the conversions seen within m "
                r"steps in $B_t$: it converges to $\tau_m\theta$, $\tau_m = P(D \le m)$.",
    wrong_answers=["theta", "zero", "beyond"],
    reveals=("estimates $\\tau_m\\theta$", "heads for $\\tau_m\\theta$", "converges to τ_m·θ", "shrunk by τ_m",
             "shorter than θ"),
))


# ---------------------------------------------------------------- 3.2 compute: the width along an action
_ACTIONS_2D = [(0.6, 0.8), (0.8, 0.6), (1.0, 0.0), (0.0, 1.0), (0.28, 0.96), (0.96, 0.28)]


def _width_parts(p):
    V, a = np.asarray(p["V"], dtype=float), np.asarray(p["a"], dtype=float)
    f = float(confidence_radius(p["t"], 2, p["lam"], p["delta"]))
    norm = float(weighted_norms(a[None, None, :], np.linalg.inv(V)[None])[0, 0])
    return f, norm, V, a


def _width(p):
    f, norm, _, _ = _width_parts(p)
    return (2 * f + p["delay_term"]) * norm


def _width_wrong(p):
    f, norm, V, a = _width_parts(p)
    dt = p["delay_term"]
    return [
        (2 * f * norm, r"you left out the delay term: $\alpha_{t,\delta} = 2f_{t,\delta} + "
                       r"\sum_s \lVert A_s\rVert_{V^{-1}}$, and the sum is the price of the delays."),
        ((2 * (f - np.sqrt(p["lam"])) + dt) * norm,
         r"$f_{t,\delta}$ starts with $\sqrt\lambda$ (the ridge's bias, $\sqrt\lambda\lVert\theta\rVert$ with "
         r"$\lVert\theta\rVert \le 1$): $f_{t,\delta} = \sqrt\lambda + \sqrt{2\log(1/\delta) + "
         r"d\log\frac{d\lambda + t}{d\lambda}}$."),
        ((f + dt) * norm, r"$\alpha_{t,\delta}$ has $2f_{t,\delta}$, not $f_{t,\delta}$."),
        ((2 * f + dt) * float(np.sqrt(a @ V @ a)), r"the norm is taken in $V^{-1}$ (the ellipse is narrow where V is "
                                                   "large), not in V."),
        ((2 * f + dt) * norm ** 2, r"$\lVert a\rVert_{V^{-1}}$ is the square root of $a^\top V^{-1}a$."),
    ]


def _distinct(misconceptions, rtol, factor=3.0):
    """True when the misconceptions' values of an instance are ``factor`` tolerances apart from each other
    (as ``accept`` keeps each of them apart from the answer), so that an answer is named for one slip only:
    with a delay term of 2√λ, leaving √λ out of f gives what leaving the delay term out gives."""
    def check(p):
        values = [v for v, _ in misconceptions(p)]
        return all(separated(v, values[i + 1:], rtol, factor) for i, v in enumerate(values))
    return check


def _round_of(V, lam, d=2) -> int:
    """The paper's round t at which V is V_t: V_t − λI sums the t − 1 past A_sA_sᵀ, each of trace
    ‖A_s‖² = 1, so trace V_t = (t − 1) + dλ."""
    return int(round(V[0][0] + V[1][1] - d * lam)) + 1


def _width_draw(d):
    a, b, c = d.integer(20, 120), d.integer(-12, 15), d.integer(15, 100)
    p = {"V": ((a, b), (b, c)), "a": d.choice(_ACTIONS_2D), "delta": d.choice([0.05, 0.1, 0.2]),
         "lam": d.choice([0.5, 1.0, 2.0]), "delay_term": d.grid(1.0, 4.0, 0.1)}
    return {**p, "t": _round_of(p["V"], p["lam"])}


register(Exercise(
    id="03.width",
    kind="compute",
    stars=2,
    minutes=12,
    title="The width of the confidence ellipse along one action",
    answer_name="width",
    stub=("# ✎ Exercise 3.2: the width alpha * ||a|| in V^-1 for YOUR numbers (shown above); numpy is np.\n"
          "width = ...\n"),
    solution_code=lambda q: (
        f"V = np.array([[{q['V'][0][0]}, {q['V'][0][1]}], [{q['V'][1][0]}, {q['V'][1][1]}]])\n"
        f"a = np.array([{q['a'][0]}, {q['a'][1]}])\n"
        f"d, lam, delta, t = 2, {q['lam']}, {q['delta']}, {q['t']}\n"
        "f = np.sqrt(lam) + np.sqrt(2 * np.log(1 / delta) + d * np.log((d * lam + t) / (d * lam)))\n"
        f"alpha = 2 * f + {q['delay_term']}                 # + the delay term\n"
        "width = alpha * np.sqrt(a @ np.linalg.solve(V, a))   # ||a|| in V^-1 = sqrt(a' V^-1 a)\n"),
    draw=_width_draw,
    default={"V": ((41, 12), (12, 26)), "a": (0.6, 0.8), "t": 66, "delta": 0.1, "lam": 1.0, "delay_term": 2.4},
    given=lambda q: (
        f"d = 2, λ = {q['lam']:g}, δ = {q['delta']}, the paper's round t = {q['t']}; "
        f"V = V_t = [[{q['V'][0][0]}, {q['V'][0][1]}], [{q['V'][1][0]}, {q['V'][1][1]}]] (λI plus $A_sA_s^\\top$ "
        f"summed over the t − 1 = {q['t'] - 1} past actions, each of norm 1, so its trace is t − 1 + 2λ), "
        f"a = ({q['a'][0]}, "
        rf"{q['a'][1]}), and the delay term $\sum_{{s=t-m}}^{{t-1}} \lVert A_s\rVert_{{V^{{-1}}}}$ equals "
        f"{q['delay_term']}."),
    **numeric(_width, _width_wrong, rtol=2e-3, name="width", when=_distinct(_width_wrong, 2e-3)),
    hints=(r"Notebook §2 and §3: the width is the factor $\alpha_{t,\delta}$ of OTFLinUCB's index times the norm of "
           r"a in $V^{-1}$.",
           r"$\alpha_{t,\delta} = 2f_{t,\delta} + \text{(delay term)}$, "
           r"$f_{t,\delta} = \sqrt\lambda + \sqrt{2\log(1/\delta) + d\log\frac{d\lambda + t}{d\lambda}}$, and "
           r"$\lVert a\rVert_{V^{-1}} = \sqrt{a^\top V^{-1}a}$ (np.linalg.solve(V, a) gives $V^{-1}a$)."),
    explanation=lambda q: (
        r"$f = \sqrt\lambda + \sqrt{2\log(1/\delta) + d\log\frac{d\lambda + t}{d\lambda}} = "
        rf"{_width_parts(q)[0]:.3f}$, so $\alpha = 2f + {q['delay_term']} = "
        rf"{2 * _width_parts(q)[0] + q['delay_term']:.3f}$; $\lVert a\rVert_{{V^{{-1}}}} = {_width_parts(q)[1]:.4f}$: "
        f"the width is their product, {_width(q):.4f}."),
))


# ---------------------------------------------------------------- 3.3 derive: what the estimate's mean is
_U = 2 ** -0.5


def _gram(p):
    n1, n2, n3 = p["counts"]
    return np.array([[n1 + n3 / 2, n3 / 2], [n3 / 2, n2 + n3 / 2]])


def _target(p):
    G = _gram(p)
    V = G + p["lam"] * np.eye(2)
    return _tau(p["mu"], p["m"]) * np.linalg.solve(V, G @ np.asarray(p["theta"], dtype=float))


def _target_wrong(p):
    G, theta, tm = _gram(p), np.asarray(p["theta"], dtype=float), _tau(p["mu"], p["m"])
    V = G + p["lam"] * np.eye(2)
    n3 = p["counts"][2]
    G11 = G + n3 / 2 * np.ones((2, 2))     # u = (1, 1): u uᵀ has entries 1, not 1/2
    return [
        (tm * np.linalg.solve(G11 + p["lam"] * np.eye(2), G11 @ theta),
         r"that takes u = (1, 1); u = (1/√2, 1/√2) has norm 1, so $uu^\top$ has entries 1/2, not 1."),
        (tm * theta, r"that is $\tau_m\theta$, the limit as $t \to \infty$; at finite t the regulariser $\lambda I$ "
                     r"shrinks the estimate too: $V_t$ holds it, $B_t$ does not."),
        (np.linalg.solve(V, G @ theta), "that is ridge regression without censoring: only a share "
                                        r"$\tau_m = P(D \le m)$ of the conversions is counted in $B_t$."),
        (_tau(p["mu"], p["m"] - 1) * np.linalg.solve(V, G @ theta), r"$\tau_m = P(D \le m) = 1 - (\mu/(\mu + 1))^{m+1}$ "
                                                                   r"for the geometric law of mean μ on {0, 1, …}; "
                                                                   r"this uses $P(D \le m - 1)$."),
        (theta, "θ itself: least squares with censored conversions does not estimate θ."),
        (_tau_from_1(p["mu"], p["m"]) * np.linalg.solve(V, G @ theta),
         r"that uses $P(D \le m) = 1 - (1 - 1/\mu)^m$, a geometric law on {1, 2, …}; delaylab's (notebook 01) "
         r"lives on {0, 1, …}: $\tau_m = 1 - (\mu/(1 + \mu))^{m+1}$."),
        ((1.0 - np.exp(-p["m"] / p["mu"])) * np.linalg.solve(V, G @ theta),
         r"that uses $\tau_m \approx 1 - e^{-m/\mu}$, the exponential approximation (the paper's τ values, "
         r"Section 8, agree with it to the digits printed); the exercise's geometric law on {0, 1, …} gives exactly "
         r"$\tau_m = 1 - (\mu/(1 + \mu))^{m+1}$, and the check wants 4 digits."),
    ]


def _tau_from_1(mu, m):
    """P(D ≤ m) for the geometric law of mean μ on {1, 2, …} (scipy's geom, the authors' scripts): not delaylab's."""
    return 1.0 - (1.0 - 1.0 / mu) ** m


register(Exercise(
    id="03.ridge-target",
    kind="derive",
    stars=3,
    minutes=25,
    title="The mean of the windowed estimate at a finite time",
    answer_name="mean_estimate",
    stub=("# ✎ Exercise 3.3: E[theta_hat_t] for YOUR numbers (shown above), two numbers: derive the formula first.\n"
          "mean_estimate = ...\n"),
    solution_code=lambda p: (
        f"tau_m = 1 - ({p['mu']} / {p['mu'] + 1}) ** ({p['m']} + 1)          # P(D ≤ m), geometric law\n"
        f"A = np.array([[1, 0]] * {p['counts'][0]} + [[0, 1]] * {p['counts'][1]} + [[2 ** -0.5, 2 ** -0.5]] * "
        f"{p['counts'][2]})\n"
        "G = A.T @ A                                          # the sum of A_s A_s'\n"
        f"V = G + {p['lam']:g} * np.eye(2)                     # V_t = G + lam I\n"
        f"theta = np.array([{p['theta'][0]}, {p['theta'][1]}])\n"
        "mean_estimate = tau_m * np.linalg.solve(V, G @ theta)   # V^-1 E[B_t], E[B_t] = tau_m G theta\n"),
    draw=lambda d: {"counts": (d.integer(2, 30), d.integer(2, 30), d.integer(2, 30)), "lam": d.choice([1.0, 2.0, 5.0]),
                    "theta": (d.grid(0.1, 0.7, 0.05), d.grid(0.1, 0.7, 0.05)), "mu": d.integer(20, 200),
                    "m": int(d.grid(20, 300, 10))},
    default={"counts": (10, 5, 8), "lam": 1.0, "theta": (0.6, 0.3), "mu": 50, "m": 20},
    given=lambda p: (f"d = 2 and λ = {p['lam']:g}. The learner has played e₁ = (1, 0) {p['counts'][0]} times, "
                     f"e₂ = (0, 1) {p['counts'][1]} times and u = (1/√2, 1/√2) {p['counts'][2]} times, all more than "
                     f"m steps ago; θ = ({p['theta'][0]}, {p['theta'][1]}); delays are geometric on {{0, 1, 2, …}} "
                     rf"with mean μ = {p['mu']}, i.e. $P(D > d) = (\mu/(1+\mu))^{{d+1}}$ (as in notebook 01); "
                     rf"the window is m = {p['m']}. Give $\mathbb{{E}}[\hat\theta^W_t]$ as two numbers, e.g. "
                     "np.array([x, y])."),
    **numeric(_target, _target_wrong, rtol=2e-3, shape=(2,), name="mean_estimate", close_within=3.0,
              close_if_rounded=True),
    hints=(r"Notebook §2: $\hat\theta^W_t = V_t^{-1}B_t$, $V_t$ holds every action and $\lambda I$, $B_t$ only the "
           r"conversions seen within m steps; the actions are fixed, so take the expectation of $B_t$ alone.",
           r"For a pull more than m steps old, $\mathbb{E}[\tilde Y_s] = P(D \le m)\langle A_s, \theta\rangle$, so "
           r"$\mathbb{E}[B_t] = \tau_m\left(\sum_s A_s A_s^\top\right)\theta = \tau_m(V_t - \lambda I)\theta$; then "
           r"$\mathbb{E}\,\hat\theta^W_t = V_t^{-1}\,\mathbb{E}[B_t]$."),
    explanation=lambda p: (r"$\mathbb{E}[\hat\theta^W_t] = \tau_m V_t^{-1}(V_t - \lambda I)\theta = "
                           rf"({_target(p)[0]:.4f}, {_target(p)[1]:.4f})$, with "
                           rf"$\tau_m = {_tau(p['mu'], p['m']):.4f}$. Two shrinkages: $\tau_m$, which stays (the window "
                           r"loses conversions for good), and $V_t^{-1}(V_t - \lambda I) = I - \lambda V_t^{-1}$, the "
                           r"ridge bias, which vanishes as the actions pile up in $V_t$. The limit is $\tau_m\theta$."),
))


# ---------------------------------------------------------------- 3.4 implement: OTFLinUCB's index
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
    stars=2,
    minutes=20,
    title="OTFLinUCB's index, raced in the live panel",
    answer_name="otf_index",
    stub=("def otf_index(theta_hat, v_inv, actions, f, delay_term):\n"
          "    \"\"\"OTFLinUCB's index for every run and action: an array of shape (runs, K).\n"
          "    theta_hat (runs, d): the windowed estimate; v_inv (runs, d, d): V_t^-1; actions (runs, K, d): the\n"
          "    round's actions; f (runs,): f_{t,delta}; delay_term (runs,): the sum of the last m norms ||A_s||\n"
          "    in V_t^-1 (in V_s^-1 when the panel's delay term is 'cheap').\"\"\"\n"
          "    # your code here (all runs at once)\n"
          "    return ...\n"),
    solution_code=("def otf_index(theta_hat, v_inv, actions, f, delay_term):\n"
                   "    mean = np.einsum(\"bkd,bd->bk\", actions, theta_hat)\n"
                   "    norm = np.sqrt(np.einsum(\"bkd,bde,bke->bk\", actions, v_inv, actions))\n"
                   "    return mean + (2 * f + delay_term)[:, None] * norm\n"),
    solution=otf_index,
    grade=function_grader(_reference_index, _index_inputs, rtol=1e-8, atol=1e-10, simulate=_otf_race,
                          name="otf_index"),
    hints=("Notebook §3 (the paper's Algorithm 1, in its Section 5): the index of an action is its estimated mean "
           "plus the half-width of the confidence ellipse along it.",
           r"$\langle a, \hat\theta^W_t\rangle + \alpha_{t,\delta}\sqrt{a^\top V_t^{-1}a}$ with "
           r"$\alpha_{t,\delta} = 2f_{t,\delta} + \text{delay term}$, for every run b and action k: np.einsum (or @ "
           r"with a batch axis) computes $a^\top\hat\theta$ and $a^\top V^{-1}a$ for all of them."),
    explanation=(r"The mean $\langle a, \hat\theta^W\rangle$ estimates $\tau_m\langle a, \theta\rangle$; the bonus is the "
                 r"half-width of the confidence ellipse along a. Its factor has two parts: $2f_{t,\delta}$, the "
                 r"least-squares radius $f_{t,\delta}$ once for the reward's noise and once for the censoring's, and "
                 "the delay term, the price of the m last actions whose conversions may still come."),
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
    race_against="OTFLinUCB",
))


# ---------------------------------------------------------------- 3.5 predict: shrinking the window
_MU_S, _M_FROM, _M_TO = 100, 100, 20
_TAU_FROM, _TAU_TO = _tau(_MU_S, _M_FROM), _tau(_MU_S, _M_TO)

register(Exercise(
    id="03.small-window",
    kind="predict",
    stars=2,
    minutes=5,
    title="Shrink the window below the mean delay",
    choices={
        "lower": "lower",
        "higher": "higher",
        "same": "about the same",
    },
    solution="higher",
    grade=choice_grader("higher", {
        "lower": rf"The delay term does shrink, but the estimate now converges to $\tau_m\theta$ with "
                 rf"$\tau_m = P(D \le {_M_TO}) = {_TAU_TO:.3f}$: the gaps between actions are "
                 rf"{_TAU_FROM / _TAU_TO:.2f} times smaller while $f_{{t,\delta}}$ is unchanged. The regret at T is "
                 "higher for both: OTFLinTS learns more slowly (at T = 1000 it now ends about level with uniform "
                 "random play), and OTFLinUCB, which already does worse than "
                 rf"uniform random play at $m = {_M_FROM}$, is driven even more by its width.",
        "higher": f"With m = {_M_TO} only {_TAU_TO:.1%} of the conversions are ever counted (against {_TAU_FROM:.1%} "
                  rf"with m = {_M_FROM}); the differences between actions shrink by that factor while the "
                  r"$2f_{t,\delta}$ part of the width stays. OTFLinTS learns more slowly: at T = 1000 it now ends "
                  "about level with uniform random play. OTFLinUCB, which does "
                  "worse than uniform random play at both windows, is driven even more by its width.",
        "same": rf"$\tau_m$ multiplies the signal: {_TAU_FROM:.3f} at m = {_M_FROM}, {_TAU_TO:.3f} at m = {_M_TO} (geometric "
                f"delays, mean {_MU_S}). That is not a constant the learner can ignore.",
    }),
    hints=(r"Two things depend on m: the delay term of the width, and the share $\tau_m$ of conversions that are "
           "counted at all.",
           rf"Compare $\tau_m = P(D \le m)$ at m = {_M_FROM} and m = {_M_TO} for a mean delay of {_MU_S} with what a "
           "smaller delay term saves."),
    explanation=r"A smaller window trims the delay term but throws away most conversions: the signal $\tau_m\theta$ "
                r"weakens while $2f_{t,\delta}$ does not, so the regret at T grows. OTFLinTS learns more slowly: at "
                "T = 1000 it now ends about level with uniform random play. OTFLinUCB, worse than uniform random "
                "play at both windows, is driven even more by its width.",
    wrong_answers=["lower", "same"],
    reveals=("regret at $T$ rises", "regret at t is higher", "learning slows", "learning slow", "higher regret",
             "regret at $t$ grows"),
))


# ---------------------------------------------------------------- 3.6 explain: why the last m actions
_WHY_LAST_M = ("Only the conversions of the last m actions can still arrive and be counted: an action more than m "
               "steps old has either shown its conversion within the window or never will be counted (the learner "
               r"ignores what comes later), so its contribution to $B_t$ is final. Its censoring has mean $\tau_m$ for "
               r"every action, which estimating $\tau_m\theta$ instead of θ absorbs, and the rest, "
               r"$\mathbb{1}\{D_s \le m\} - \tau_m$, is noise like the reward's, paid by the second f of "
               r"$2f_{t,\delta}$. For the last m actions $B_t$ may still miss conversions that will count: that bias is "
               "a sum of those actions with coefficients in [−1, 0] (a conversion missing for now), so in the "
               r"$V_t^{-1}$ norm it is at most the sum of their norms — the delay term. Paying nothing would leave that "
               r"bias uncovered; paying for all past actions would widen the set for conversions that can no longer "
               r"change $B_t$.")

register(Exercise(
    id="03.why-last-m",
    kind="explain",
    stars=2,
    minutes=8,
    title="Why the width pays for the last m actions only",
    solution=_WHY_LAST_M,
    points=("an action older than m steps is final: its conversion was counted or never will be",
            r"the censoring of older actions has mean $\tau_m$, absorbed by estimating $\tau_m\theta$; its "
            "randomness is noise covered by 2f",
            r"the last m actions may still get conversions that will count: $B_t$ misses them for now",
            r"that missing part biases the estimate along those actions, at most their norms in $V_t^{-1}$"),
    hints=(r"Notebook §2: which actions' conversions can still change $B_t$, and which are settled for good?",
           "Think of an action 2m steps old and one m/2 steps old: what can still happen to each, and what does "
           r"estimating $\tau_m\theta$ instead of θ already take into account?"),
    wrong_answers=[],
))
