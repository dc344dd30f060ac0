r"""Linear bandits with delayed, censored conversions: Vernade, Carpentier, Lattimore, Zappella,
Ermis, Brueckner (ICML 2020), Algorithms 1 (OTFLinUCB) and 2 (OTFLinTS), and LinUCB ignoring delays.

Symbols (the paper's; rounds are numbered t = 1, 2, … in the paper, so the engine's 0-based
step t is the paper's round t + 1):

* A_s ∈ R^d, the action played at round s; λ > 0 the regulariser;
* V_t = V_t(λ) = Σ_{s<t} A_s A_sᵀ + λI, over ALL past actions, converted or not (Eq. 2);
* B_t = Σ_{s<t} Ỹ_{s,t} A_s with Ỹ_{s,t} = X_s 1{D_s ≤ min(m, t − 1 − s)}: the actions whose
  conversion has been seen with a delay of at most m steps (Section 4; t − 1 − s corrects the
  printed t − s: the learner observes round t's feedback at the end of round t (Section 3), after
  its decision, so at round t it has seen it up to the end of round t − 1; the conversions that
  may still come are then those of exactly the m actions s = t − m … t − 1 of Theorem 1's sum,
  m − 1 with the printed t − s). A conversion that
  arrives later than m steps after its pull is discarded by the learner itself, even if the
  environment reveals it ("On-The-Fly", in the algorithms' names, is the paper's; it does not
  name this censoring);
* θ̂^W_t = V_t^{-1} B_t (Eq. 2), which estimates τ_m·θ, τ_m = P(D ≤ m), not θ (Theorem 1);
* f_{t,δ} = √λ + sqrt(2 log(1/δ) + d log((dλ + t)/(dλ))) (Theorem 1);
* the delay term Σ_{s=t−m}^{t−1} ‖A_s‖_{V_t^{-1}}, over the m most recent actions (those whose
  conversion may still come), ‖x‖_M = sqrt(xᵀ M x).

OTFLinUCB (Algorithm 1, Eq. 6) plays argmax_a ⟨a, θ̂^W_t⟩ + α_{t,δ} ‖a‖_{V_t^{-1}} with
α_{t,δ} = 2 f_{t,δ} + Σ_{s=t−m}^{t−1} ‖A_s‖_{V_t^{-1}}. OTFLinTS (Algorithm 2) samples
θ̃_t ~ N(θ̂^W_t, β_{t,δ} V_t^{-1}) with β_{t,δ} = 1 + (Σ_{s=t−m}^{t−1} ‖A_s‖_{V_t^{-1}}) / f_{t,δ}
(Section 7) and plays argmax_a ⟨a, θ̃_t⟩.

The delay term, ``width=``:

* ``"exact"``: Σ_{s=t−m}^{t−1} ‖A_s‖_{V_t^{-1}}, recomputed every round from the stored last m
  actions: O(m d²) per run and round (Section 5, "Computation complexity");
* ``"cheap"``: Σ_{s=t−m}^{t−1} ‖A_s‖_{V_s^{-1}}, from scalars stored when each action was played
  ("Improved computation complexity", Section 5): O(m) memory, and O(d²) per round in the paper's
  count, the sum being kept as a running sum (here the m stored scalars are re-added, O(m) per
  round). Since V_s ⪯ V_t for s ≤ t, each term is larger: the paper calls it a slight increase,
  which it is once t ≫ m; while t is of the order of m, the cheap sum is markedly larger (notebook
  03, §3, checks it).

Reading taken where the paper is ambiguous: the text of Section 7 defines β_{t,δ} with V_t^{-1}
but line 4 of Algorithm 2 writes V_s^{-1}; OTFLinTS accepts both (``width="exact"``: the text,
the default; ``width="cheap"``: the algorithm box). ``f`` is used with the paper's t = step + 1.
The authors' public code uses a different index (squared norms, no factor 2, no √λ outside the
root; our reading of that code). We implement the paper and keep that index only as the labelled
``variant="authors-code"``. Ties in the argmax (up to rounding) go to the lowest action index.

Computation, batched over the B runs: V_t^{-1} is updated by Sherman–Morrison,
V_{t+1}^{-1} = V_t^{-1} − (V_t^{-1}A_t)(V_t^{-1}A_t)ᵀ / (1 + ‖A_t‖²_{V_t^{-1}}), on (B, d, d)
arrays; the last m + 1 actions are kept in a ring buffer (B, d, m + 1) to add A_s to B_t when
its conversion arrives (delay ≤ m) and for the delay term.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import check_choice
from .base import Policy
from .delayed import check_policy_window, effective_window

WIDTHS = ("exact", "cheap")
VARIANTS = ("paper", "no-delay-term", "authors-code")
#: the label of ``OTFLinUCB(variant="no-delay-term")``: Algorithm 1 with α_{t,δ} = 2f_{t,δ}
NO_DELAY_TERM = "OTFLinUCB without delay term"


def confidence_radius(t, d, lam, delta):
    r"""f_{t,δ} = √λ + sqrt(2 log(1/δ) + d log((dλ + t)/(dλ))) (Theorem 1), t the paper's round."""
    lam = np.asarray(lam, dtype=float)
    return np.sqrt(lam) + np.sqrt(2.0 * np.log(1.0 / np.asarray(delta, dtype=float))
                                  + d * np.log((d * lam + t) / (d * lam)))


def weighted_norms(x, v_inv):
    r"""‖x‖_{V^{-1}} = sqrt(xᵀ V^{-1} x) for x (B, n, d) and V^{-1} (B, d, d) → (B, n)."""
    q = ((x @ v_inv) * x).sum(axis=-1)
    return np.sqrt(np.maximum(q, 0.0))


#: relative tolerance under which two indices count as tied
TIE_TOL = 1e-10


def argmax_lowest(index):
    """argmax over the last axis, ties (up to rounding, ``TIE_TOL``) to the lowest index.

    Distinct actions often tie exactly in exact arithmetic (θ̂ = 0 and V = λI at the start,
    symmetric action sets); without a tolerance, rounding would decide, differently for two
    equivalent ways of computing the same index.
    """
    top = index.max(axis=-1, keepdims=True)
    return np.argmax(index >= top - TIE_TOL * np.maximum(np.abs(top), 1.0), axis=-1)


class LinearState(NamedTuple):
    """What the compiled kernel of the linear learners (:mod:`delaylab.kernels.linear`) reads and
    updates: the policy's own arrays."""

    #: (B, d, d) V_t^{-1} (updated)
    v_inv: np.ndarray
    #: (B, d) B_t (updated)
    b: np.ndarray
    #: (B, d, M) the actions of the last M steps, column s mod M (updated)
    actions: np.ndarray
    #: (B, M) ‖A_s‖_{V_s^{-1}}, slot s mod M (updated)
    norms: np.ndarray
    #: (B, T + 1) f_{t,δ} for the decision of step t (possibly a read-only broadcast view); the
    #: kernel also takes (1, T + 1), one row for every run
    f_table: np.ndarray
    #: the window m (conversions later than m are discarded), −1 for none (LinUCB)
    m: int
    #: whether the delay term uses V_t^{-1} (``width="exact"``) or the stored norms
    exact: bool


class _LinearLearner(Policy):
    """Ridge regression on the actions played, V^{-1} by Sherman–Morrison, batched over runs."""

    feedback = ("linear",)
    grid_params = ("delta", "lam")
    _windowed = True

    def reset(self, problem):
        d = problem.dim
        if d is None or d < 1:
            raise ValueError(f"{type(self).__name__} needs actions of dimension d ≥ 1; got d = {d}")
        self._d, B = int(d), problem.size
        self._delta = self.column("delta", low=0.0, high=1.0, low_open=True, high_open=True)
        self._lam = self.column("lam", low=0.0, low_open=True)
        lam = np.broadcast_to(np.asarray(self._lam, dtype=float).reshape(-1), (B,))
        self.v_inv_ = np.eye(self._d)[None] / lam[:, None, None]  # V_t^{-1}, (B, d, d)
        self.b_ = np.zeros((B, self._d))  # B_t
        if self._windowed:
            m = check_policy_window(type(self).__name__, self.window, problem.window, required=True)
            if m < 1:
                raise ValueError(f"{type(self).__name__}: window = {m} is outside the valid range [1, ∞) "
                                 f"(the paper's m > 0)")
            self._m = m
            self._M = effective_window(m, problem.horizon) + 1  # ring of the last m + 1 actions
            self.width = check_choice("width", self.width, WIDTHS)
        else:
            self._m, self._M = None, 1
        # A_s in column s mod M (zeros: no action yet); columns make V^{-1}·[A_s …] one product per run
        self.actions_ = np.zeros((B, self._d, self._M))
        self.norms_ = np.zeros((B, self._M))  # ‖A_s‖_{V_s^{-1}} at slot s mod M
        self._context = None
        self.t_next_ = 0  # the step of the next decision
        # f_{t,δ} for every step (paper's rounds 1 … T): (T,) or (B, T) with per-cell δ, λ
        rounds = np.arange(1, problem.horizon + 2, dtype=float)
        self._f_table = confidence_radius(rounds, self._d, self._lam, self._delta)
        if self._f_table.ndim == 1:
            self._f_table = np.broadcast_to(self._f_table, (B, rounds.size))

    def kernel_state(self) -> LinearState:
        """The state the compiled kernel works on (see :class:`LinearState`)."""
        return LinearState(self.v_inv_, self.b_, self.actions_, self.norms_, self._f_table,
                           -1 if self._m is None else int(self._m), getattr(self, "width", "exact") == "exact")

    # ------------------------------------------------------------------ the paper's quantities
    def theta_hat(self) -> np.ndarray:
        r"""θ̂^W_t = V_t^{-1} B_t, shape (B, d)."""
        return (self.v_inv_ @ self.b_[:, :, None])[:, :, 0]

    def f(self, t: int) -> np.ndarray:
        """f_{t,δ} for the decision of step t (paper's round t + 1), shape (B,)."""
        return self._f_table[:, t]

    def delay_term(self, t: int, width=None) -> np.ndarray:
        r"""Σ_{s=t−m}^{t−1} ‖A_s‖ in V_t^{-1} (exact) or V_s^{-1} (cheap), shape (B,); ``width``
        ("exact" or "cheap") overrides the policy's own, to compare the two on one run.

        Slots of rounds s < 0 hold zero actions and add nothing; the slot of round t − m − 1
        (the ring holds m + 1 actions) is excluded.
        """
        M = self._M
        if M - 1 < 1:
            return np.zeros(self.problem_.size)
        stale = (t - M) % M  # slot of round t − m − 1 (or an unused slot): not in the sum
        if (width or self.width) == "cheap":
            return self.norms_.sum(axis=1) - self.norms_[:, stale]
        X = self.actions_
        norms = np.sqrt(np.maximum(((self.v_inv_ @ X) * X).sum(axis=1), 0.0))  # ‖A_s‖_{V_t^{-1}}, (B, M)
        return norms.sum(axis=1) - norms[:, stale]

    # ------------------------------------------------------------------ engine interface
    def update(self, t, arms, feedback):
        a = self._context[self._cols, arms]  # A_t, (B, d)
        slot = t % self._M
        u = (self.v_inv_ @ a[:, :, None])[:, :, 0]  # V_t^{-1} A_t
        q = np.maximum((a * u).sum(axis=1), 0.0)  # ‖A_t‖²_{V_t^{-1}}
        self.v_inv_ -= u[:, :, None] * (u / (1.0 + q)[:, None])[:, None, :]  # Sherman–Morrison
        self.actions_[:, :, slot] = a
        self.norms_[:, slot] = np.sqrt(q)
        self.t_next_ = t + 1
        if len(feedback):
            run, step = feedback.run, feedback.step
            if self._m is not None:  # on-the-fly censoring: conversions later than m are discarded
                keep = feedback.delay <= self._m
                run, step = run[keep], step[keep]
            np.add.at(self.b_, run, self.actions_[run, :, step % self._M])

    def snapshot(self):
        return {"theta_hat": self.theta_hat(), "v_inv": self.v_inv_.copy()}


class OTFLinUCB(_LinearLearner):
    r"""OTFLinUCB: Vernade et al. (2020), Algorithm 1.

    Plays argmax_{a ∈ 𝒜_t} ⟨a, θ̂^W_t⟩ + α_{t,δ} ‖a‖_{V_t^{-1}} with
    α_{t,δ} = 2 f_{t,δ} + Σ_{s=t−m}^{t−1} ‖A_s‖_{V_t^{-1}} (Eq. 6; Theorem 1 for the confidence
    set, Theorem 2 for the regret). See :mod:`delaylab.policies.linear` for the symbols.

    Parameters
    ----------
    window : int
        m ≥ 1: conversions seen more than m steps after their pull are ignored (at most the
        setting's window when the setting censors).
    delta : float or array
        Confidence level δ ∈ (0, 1) (0.1 in the authors' scripts for the paper's experiments; not in
        the paper's text); one per grid cell if an array.
    lam : float or array
        Regularisation λ > 0 (1 in the authors' scripts for the paper's experiments; not in the
        paper's text).
    width : {"exact", "cheap"}
        The delay term with V_t^{-1} (exact, O(m d²) per round) or with the stored
        ‖A_s‖_{V_s^{-1}} (cheap, "Improved computation complexity", Section 5).
    variant : {"paper", "no-delay-term", "authors-code"}
        ``"paper"`` (default): Algorithm 1 as printed. ``"no-delay-term"``: Algorithm 1 with the
        delay term removed, α_{t,δ} = 2f_{t,δ}, everything else as printed (the same windowed
        estimate, the same 2f_{t,δ}): the comparison that isolates what the delay term does.
        ``"authors-code"``: the index of the authors' public simulation code, which deviates from
        the paper, kept only to show that with it OTFLinUCB ranks below OTFLinTS, as in the paper's
        Figure 1: ⟨a, θ̂^W_t⟩ + (sqrt(β_t + λ) + Σ_{s=t−m}^{t−1} ‖A_s‖²_{V_s^{-1}}) ‖a‖²_{V_t^{-1}}
        with β_t = 2 log(1/δ) + d log(1 + t/(λd)), t the number of past rounds (the square of the
        logarithmic term of f_{t,δ}, not OTFLinTS's β_{t,δ}): squared norms everywhere, no factor
        2 and no √λ outside the root. Its bonus is far smaller, hence far less exploration
        (``width`` is ignored: the code stores the V_s^{-1} norms).
    """

    def __init__(self, window=None, delta=0.1, lam=1.0, width="exact", variant="paper"):
        self.window = window
        self.delta = delta
        self.lam = lam
        self.width = width
        self.variant = variant

    @property
    def label(self):
        return {"paper": "OTFLinUCB", "no-delay-term": NO_DELAY_TERM}.get(self.variant, "OTFLinUCB (authors' code)")

    def reset(self, problem):
        super().reset(problem)
        self.variant = check_choice("variant", self.variant, VARIANTS)

    def alpha(self, t: int) -> np.ndarray:
        r"""α_{t,δ} = 2 f_{t,δ} + Σ_{s=t−m}^{t−1} ‖A_s‖ (Algorithm 1), shape (B,).

        (``variant="no-delay-term"``: 2 f_{t,δ}; ``variant="authors-code"``: sqrt(β_t + λ) +
        Σ_{s=t−m}^{t−1} ‖A_s‖²_{V_s^{-1}}, β_t as in the class's docstring.)
        """
        B = self.problem_.size
        if self.variant == "authors-code":
            lam = np.broadcast_to(self._lam, (B, 1))[:, 0]
            delta = np.broadcast_to(self._delta, (B, 1))[:, 0]
            beta = 2.0 * np.log(1.0 / delta) + self._d * np.log(1.0 + t / (lam * self._d))
            sq = self.norms_**2
            stale = (t - self._M) % self._M
            return np.sqrt(beta + lam) + (sq.sum(axis=1) - sq[:, stale] if self._M > 1 else 0.0)
        if self.variant == "no-delay-term":
            return 2.0 * self.f(t)
        return 2.0 * self.f(t) + self.delay_term(t)

    def index(self, t: int, context) -> np.ndarray:
        r"""U_t(a) = ⟨a, θ̂^W_t⟩ + α_{t,δ}‖a‖_{V_t^{-1}} for each action of the round, (B, K)."""
        norms = weighted_norms(context, self.v_inv_)
        if self.variant == "authors-code":
            norms = norms**2
        return (context @ self.theta_hat()[:, :, None])[:, :, 0] + self.alpha(t)[:, None] * norms

    def choose(self, t, context=None):
        self._context = context
        return argmax_lowest(self.index(t, context))

    def snapshot(self):
        """θ̂^W, V^{-1}, α_{t,δ} and f_{t,δ} for the next decision (step ``t_next_``)."""
        out = super().snapshot()
        out["alpha"] = self.alpha(self.t_next_)
        out["f"] = self.f(self.t_next_).copy()
        return out


class OTFLinTS(_LinearLearner):
    r"""OTFLinTS: Vernade et al. (2020), Algorithm 2 (Section 7).

    Samples θ̃_t ~ N(θ̂^W_t, β_{t,δ} V_t^{-1}) with β_{t,δ} = 1 + (Σ_{s=t−m}^{t−1} ‖A_s‖) / f_{t,δ}
    and plays argmax_{a ∈ 𝒜_t} ⟨a, θ̃_t⟩. The Gaussian draws come from the run's own stream
    (``problem.random("OTFLinTS", (d,), kind="normal")``): θ̃_t = θ̂^W_t + sqrt(β_{t,δ}) L z with
    V_t^{-1} = L Lᵀ (Cholesky) and z ~ N(0, I_d).

    Parameters
    ----------
    window, delta, lam : see :class:`OTFLinUCB`
    width : {"exact", "cheap"}
        The delay term in β_{t,δ}: with V_t^{-1} (Section 7's text, the default) or with the
        stored ‖A_s‖_{V_s^{-1}} (line 4 of Algorithm 2 as printed).
    """

    def __init__(self, window=None, delta=0.1, lam=1.0, width="exact"):
        self.window = window
        self.delta = delta
        self.lam = lam
        self.width = width

    def reset(self, problem):
        super().reset(problem)
        self._z = problem.random("OTFLinTS", shape=(self._d,), kind="normal")

    def normals(self, t0: int, t1: int) -> np.ndarray:
        """The run's own Gaussian draws z of steps t0 … t1 − 1, (t1 − t0, B, d): those
        :meth:`sample` reads."""
        return np.stack([self._z(t) for t in range(t0, t1)])

    def beta(self, t: int) -> np.ndarray:
        r"""β_{t,δ} = 1 + (Σ_{s=t−m}^{t−1} ‖A_s‖) / f_{t,δ}, shape (B,)."""
        return 1.0 + self.delay_term(t) / self.f(t)

    def sample(self, t: int) -> np.ndarray:
        r"""θ̃_t = θ̂^W_t + sqrt(β_{t,δ}) L z, shape (B, d)."""
        L = np.linalg.cholesky(self.v_inv_)
        z = self._z(t)
        return self.theta_hat() + np.sqrt(self.beta(t))[:, None] * (L @ z[:, :, None])[:, :, 0]

    def choose(self, t, context=None):
        self._context = context
        return argmax_lowest((context @ self.sample(t)[:, :, None])[:, :, 0])


class LinUCB(_LinearLearner):
    r"""LinUCB (OFUL, Abbasi-Yadkori et al. 2011) ignoring delays: the baseline a practitioner
    would try first.

    θ̂_t = V_t^{-1} Σ_{s<t} Y_{s,t} A_s with every conversion the setting has revealed so far (a
    pull whose conversion has not arrived counts as a zero), and the index
    ⟨a, θ̂_t⟩ + f_{t,δ}‖a‖_{V_t^{-1}}: the confidence width of the undelayed problem (Section 7
    recalls ‖θ̂_t − θ‖_{V_t} ≤ f_{t,δ} without delays). It has no window of its own and no delay
    term; in a setting that censors at m (``LinearConversions(window=m)`` reveals no conversion
    later than m), it sees exactly the conversions OTFLinUCB with window m counts, and the two
    differ in their width alone.

    Parameters
    ----------
    delta : float or array
        δ ∈ (0, 1).
    lam : float or array
        λ > 0.
    """

    _windowed = False

    def __init__(self, delta=0.1, lam=1.0):
        self.delta = delta
        self.lam = lam

    def reset(self, problem):
        super().reset(problem)
        # a past action stays needed until its conversion may arrive: the setting's window
        self._M = effective_window(problem.window, problem.horizon)
        self._M = problem.horizon if self._M is None else self._M + 1
        self.actions_ = np.zeros((problem.size, self._d, self._M))
        self.norms_ = np.zeros((problem.size, self._M))

    def index(self, t: int, context) -> np.ndarray:
        return ((context @ self.theta_hat()[:, :, None])[:, :, 0]
                + self.f(t)[:, None] * weighted_norms(context, self.v_inv_))

    def choose(self, t, context=None):
        self._context = context
        return argmax_lowest(self.index(t, context))
