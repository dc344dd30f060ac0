r"""DelayedUCB and DelayedKLUCB: Algorithm 1 of Vernade, Cappé, Perchet (2017).

For arm k at decision t (symbols of :mod:`delaylab.indices` and :mod:`.counts`):

* N_k(t) pulls so far; S_k(t) conversions revealed so far (within the window m);
* Ñ_k(t) = Σ_{s<t, A_s=k} τ(min(t − 1 − s, m)), the delay-corrected count (Section 5.1);
* θ̂_k(t) = S_k(t) / Ñ_k(t), unbiased for a pull sequence fixed in advance (the paper's
  "conditionally unbiased", Eq. 5; under adaptive play only approximately);
* D-UCB:   U_k = θ̂_k + sqrt(N_k / Ñ_k) · sqrt(β_ε(t) / (2 Ñ_k))           (Section 5.2);
* D-KLUCB: U_k = max{q ∈ [θ̂_k, 1] : Ñ_k d_Pois(θ̂_k, q) ≤ β_ε(t)}            (Section 5.3).

With ``window=None`` these are the uncensored UD-UCB and UD-KLUCB (Remark 5: no cap).

The policy is told what it assumes, explicitly: ``delay`` (the delay law: one for all arms, or
one per arm, possibly wrong on purpose; or an online estimator of Appendix D) and ``window``
(its censoring threshold m, at most the setting's; on an uncensored setting it is the learner's
own choice to ignore conversions later than m, as in Manegueu et al. 2020).

Computation: Eq. (6)'s O(1) recursion when every assumed law is geometric, else the exact
ring-buffer update (O(W) per step, W ≤ min(m, T) censored, W ≤ T uncensored); see :mod:`.counts`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import check_window
from ..indices import delayed_ucb_index, exploration, klucb_poisson
from ..laws import DelayLaw, Geometric
from .base import per_run
from .counts import GeometricCount, GeometricCountState, TabulatedCount, TabulatedCountState
from .estimated import OnlineCDF, OnlineGeometric
from .ucb import IndexPolicy


class DelayedIndexState(NamedTuple):
    """What the compiled kernel of D-UCB / D-KLUCB (:mod:`delaylab.kernels.index`) reads and
    updates: the policy's own arrays."""

    #: (B, K) N_k, the pulls (updated)
    pulls: np.ndarray
    #: (B, K) S_k, the conversions revealed within the window (updated)
    successes: np.ndarray
    #: (B,) ε per run
    eps: np.ndarray
    #: the policy's window m, −1 for none
    m: int
    #: whether every revealed conversion is within m (no filter needed)
    all_in_window: bool
    #: Ñ's state (updated)
    count: GeometricCountState | TabulatedCountState


def assumed_laws(owner: str, delay, n_arms: int) -> list[DelayLaw]:
    """The law(s) a policy assumes → one law per arm; a clear error otherwise."""
    if delay is None:
        raise ValueError(
            f"{owner} needs the delay law it assumes: pass delay=, e.g. delay=delaylab.Geometric(mean=500)"
        )
    if isinstance(delay, DelayLaw):
        return [delay] * n_arms
    if isinstance(delay, (list, tuple)) and all(isinstance(d, DelayLaw) for d in delay):
        if len(delay) != n_arms:
            raise ValueError(
                f"{owner}: delay must be one law or a list of {n_arms} laws (one per arm); "
                f"got a list of {len(delay)}"
            )
        return list(delay)
    raise ValueError(
        f"{owner}: delay must be a delay law, a list of one law per arm, OnlineGeometric() or "
        f"OnlineCDF(); got {delay!r}"
    )


def check_policy_window(owner: str, window, setting_window, *, required: bool = False):
    """The policy's window m against the setting's censoring (see the module docstring)."""
    m = check_window("window", window)
    if required and m is None:
        raise ValueError(f"{owner} needs a window m ≥ 0: it only uses pulls at least m steps old")
    if setting_window is not None:
        if m is None:
            raise ValueError(
                f"{owner}: window=None assumes every conversion is eventually revealed, but the "
                f"setting censors feedback after m = {setting_window} steps; pass window ≤ {setting_window}"
            )
        if m > setting_window:
            raise ValueError(
                f"{owner}: window = {m} exceeds the setting's window {setting_window}: conversions "
                f"later than {setting_window} steps are never revealed; valid range [0, {setting_window}]"
            )
    return m


def weight_table(laws, window, horizon, batch) -> np.ndarray:
    """w(e) = τ(min(e, m)) for e = 0 … W, shaped (Bw, Kw, W + 1) for :class:`TabulatedCount`."""
    limit = horizon if window is None else min(window, horizon)
    W = max(law.saturation_lag(limit) for law in set(laws))
    shared = all(law is laws[0] for law in laws)
    tables = []
    for law in laws[:1] if shared else laws:
        tab = law.table(W + 1)  # (W+1,) or (G, W+1)
        tables.append(batch.expand(tab, law.per_cell) if law.per_cell else tab[None, :])
    B = max(t.shape[0] for t in tables)
    return np.stack([np.broadcast_to(t, (B, W + 1)) for t in tables], axis=1)


def effective_window(window, horizon):
    """A lag never exceeds T − 1, so a window m ≥ T − 1 acts exactly like T − 1: internal
    buffers are sized by min(m, T − 1), never by m itself (m = 10**9 is valid input)."""
    return None if window is None else min(window, max(horizon - 1, 0))


def effective_count(knowledge, window, problem):
    """Ñ tracker for what a policy assumes: one law per arm, or an online estimator
    (see :mod:`.counts`, :mod:`.estimated`)."""
    B, K = problem.size, problem.n_arms
    window = effective_window(window, problem.horizon)
    if isinstance(knowledge, (OnlineGeometric, OnlineCDF)):
        return knowledge.counter(window, B, K)
    laws = knowledge
    if all(isinstance(law, Geometric) for law in laws):
        ratio = np.stack(
            [np.broadcast_to(problem.batch.expand(law.ratio, law.per_cell), (B,)) for law in laws], axis=1
        )
        return GeometricCount(ratio, window, B, K)
    return TabulatedCount(weight_table(laws, window, problem.horizon, problem.batch), B, K)


def tau_at(laws, m, batch) -> np.ndarray:
    """τ(m) per run and arm, shape (B, K)."""
    cols = []
    for law in laws:
        v = law.cdf(np.full(law.n_cells, float(m)))  # (G,), or (1,) for a shared law
        cols.append(batch.expand(v, True) if law.per_cell else np.full(batch.size, v[0]))
    return np.stack(cols, axis=1)


class DelayAwareIndex(IndexPolicy):
    """An index policy on conversions told the delay law and the window it assumes."""

    feedback = ("conversions",)
    grid_params = ("delay", "eps")
    _name = ""

    def __init__(self, delay=None, window=None, eps=0.0):
        self.delay = delay
        self.window = window
        self.eps = eps


class _DelayedIndex(DelayAwareIndex):
    @property
    def label(self):
        prefix = "D-" if self.window is not None else "UD-"
        if isinstance(self.delay, (OnlineGeometric, OnlineCDF)):
            return f"{prefix}{self._name} ({self.delay.label})"
        return prefix + self._name

    def reset(self, problem):
        owner = type(self).__name__
        online = isinstance(self.delay, (OnlineGeometric, OnlineCDF))
        knowledge = self.delay if online else assumed_laws(owner, self.delay, problem.n_arms)
        self._m = check_policy_window(owner, self.window, problem.window)
        self._eps = self.column("eps", low=0.0)
        if not online and self._m is not None and np.any(tau_at(knowledge, self._m, problem.batch) <= 0):
            raise ValueError(
                f"{owner}: the assumed law gives τ(m) = P(D ≤ {self._m}) = 0, so no conversion "
                f"can be revealed within the window; use a larger window"
            )
        self.count_ = effective_count(knowledge, self._m, problem)
        B, K = problem.size, problem.n_arms
        self._all_in_window = self._m is None or (problem.window is not None and problem.window <= self._m)
        self.pulls_ = np.zeros((B, K))  # N_k
        self.successes_ = np.zeros((B, K))  # S_k

    def update(self, t, arms, feedback):
        onehot = self._onehot(arms)
        self.pulls_ += onehot
        self.count_.push(t, arms, onehot)
        if len(feedback):
            # conversions later than the policy's own window are ignored (if the setting lets
            # them through)
            mask = None if self._all_in_window else feedback.delay <= self._m
            feedback.add_to(self.successes_, mask)
            if hasattr(self.count_, "observe"):
                self.count_.observe(feedback, mask)

    def kernel_state(self) -> DelayedIndexState:
        """The state the compiled kernel works on (see :class:`DelayedIndexState`); with a
        :class:`GeometricCount` or :class:`TabulatedCount` only (the online estimators of
        :mod:`.estimated` have no kernel)."""
        return DelayedIndexState(self.pulls_, self.successes_, per_run(self._eps, self._cols.size),
                                 -1 if self._m is None else int(self._m), bool(self._all_in_window),
                                 self.count_.kernel_state())

    def estimates(self):
        """θ̂ = S / Ñ and Ñ (B, K) for the next decision."""
        n_tilde = self.count_.value()
        # where Ñ = 0 no conversion can have been seen (S = 0), so θ̂ = 0 there
        theta = self.successes_ / np.maximum(n_tilde, 1e-300)
        return theta, n_tilde

    def index(self, t):
        theta, n_tilde = self.estimates()
        return self._index(theta, n_tilde, exploration(t + 1, self._eps))

    def snapshot(self):
        theta, n_tilde = self.estimates()
        out = {"theta_hat": theta, "n_tilde": n_tilde.copy(), "pulls": self.pulls_.copy()}
        if hasattr(self.count_, "estimate"):
            out.update(self.count_.estimate())
        return out


class DelayedUCB(_DelayedIndex):
    r"""D-UCB (censored) / UD-UCB (``window=None``): Vernade et al. (2017), Algorithm 1.

    Index U_k(t) = θ̂_k + sqrt(N_k/Ñ_k) · sqrt(β_ε(t) / (2Ñ_k)) (Section 5.2, Proposition 6).

    Parameters
    ----------
    delay : DelayLaw, list of DelayLaw, OnlineGeometric or OnlineCDF
        The delay law the policy assumes (τ), one for all arms or one per arm, or an online
        estimate of it (Appendix D).
    window : int or None
        The censoring window m the policy assumes (None: uncensored, UD-UCB).
    eps : float or array
        ε ≥ 0 in β_ε(t) = (1 + ε) log t. Default 0 (β(t) = log t): our choice, since the paper
        does not state the exploration function of its experiments (its analysis takes ε > 0).
    """

    _name = "UCB"

    def _index(self, theta, n_tilde, beta):
        return delayed_ucb_index(theta, self.pulls_, n_tilde, beta)


class DelayedKLUCB(_DelayedIndex):
    r"""D-KLUCB (censored) / UD-KLUCB (``window=None``): Vernade et al. (2017), Algorithm 1.

    Index U_k(t) = max{q ∈ [θ̂_k, 1] : Ñ_k d_Pois(θ̂_k, q) ≤ β_ε(t)} with the Poisson divergence
    d_Pois(p, q) = p log(p/q) + q − p (Section 5.3, Lemma 7). When θ̂_k > 1 (possible, since
    Ñ_k < N_k) the index is θ̂_k itself.

    Parameters
    ----------
    delay, window, eps
        As for :class:`DelayedUCB`.
    """

    _name = "KLUCB"

    def _index(self, theta, n_tilde, beta):
        return klucb_poisson(theta, n_tilde, beta)
