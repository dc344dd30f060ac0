r"""ODAAF, ODAAF-B and ODAAF-V: Algorithm 1 of Pike-Burke, Agrawal, Szepesvári, Grünewälder (2018).

Only the sum of the rewards that arrive at the end of each step is observed, with no arm label
(:class:`~delaylab.AggregatedAnonymous`). ODAAF learns anyway by playing each arm in long
blocks: most of what arrives while arm i is played comes from arm i itself. The rewards that leak
in from the previous block's arm j compensate those that leak out of this one only when θ_j is
close to θ_i ("if [θ_j] is close to [θ_i], then the total reward leaving the period is compensated
by total reward entering": Proposition 1's sketch, Section 4.2, bounded delays, as printed, our
brackets; with bridges, arm j is active in the current phase). Plain ODAAF's analysis (Section 4.1)
uses no cancellation: it bounds each block's discrepancy by E[τ] and adds this bound over the m
blocks that X̄_{m,i} pools (notebook 04, Exercise 4.5).

Algorithm 1 (*reconstructed*: our copy of the paper lost its equations; we implement the
reading of ``docs/readings.md``, paper 4), phases m = 1, 2, …, tolerance Δ̃_1 = 1/2, active set A_1 = all:

* **Step 1** — play each active arm in turn (increasing index), consecutively, until it has n_m
  samples in total, i.e. for n_m − n_{m−1} steps; record these steps in T_i(m).
* **Step 2** — X̄_{m,i} = mean of the observations (anonymous sums) at the recorded steps of arm i
  over phases 1 … m; eliminate arm j if X̄_{m,j} + Δ̃_m < max_{i ∈ A_m} X̄_{m,i}.
* **Step 3** — Δ̃_{m+1} = Δ̃_m / 2.
* **Step 4** (bridge period, ODAAF-B and ODAAF-V only, as in the paper's Section 5) — play one
  active arm for n_m − n_{m−1} steps and discard what is observed. The paper says "an active
  arm"; we take the leader argmax_{i ∈ A_{m+1}} X̄_{m,i} (lowest index on ties; our choice: the paper
  leaves it open). ``bridge=``
  switches the bridge periods on or off for any variant, all else equal (ODAAF with bridges,
  ODAAF-B without): what the bridges alone change (notebook 04, Section 7).

Phase sizes, with L_m = log(T Δ̃_m²) (*reconstructed*, from a third party's implementation that
our records do not name, and not checked against the published equations, which our copy lost:
``docs/readings.md``, paper 4; see :func:`odaaf_sizes`, :func:`odaaf_b_sizes`, :func:`odaaf_v_sizes`):

* ODAAF (Eq. 2):   n_m = ⌈(√(2L_m) + √(2L_m + (8/3)Δ̃_m L_m + 6 Δ̃_m m E[τ]))² / Δ̃_m²⌉;
* ODAAF-V (Eq. 6): the last term is 4Δ̃_m(E[τ] + 2V(τ));
* ODAAF-B (Eq. 4.2): n'_m with last term 4Δ̃_m E[τ], d̃_m = min(d, n_m^{ODAAF}/m), and
  n_m = max(n'_m, ⌈m d̃_m⌉).

Phases run for m = 1 … M with M = max(1, ⌊½ log₂(T/e)⌋), so that L_m ≥ 1, as Improved UCB's
rounds (Auer & Ortner 2010). Once one arm is left — or, if ever, after phase M — the algorithm
plays the (empirical) best active arm to the end.

Inspecting a run: :meth:`Phased.snapshot` (recorded with ``simulate(trace=True)``) holds the
phase, the active set, the estimates, the step at which each phase (Step 1) and each bridge began,
and the step at whose end each arm was eliminated. The schedule itself is deterministic given
the hyperparameters: :meth:`Phased.phase_sizes`.

Speed: a phased policy declares how many upcoming steps its arms stay fixed
(:meth:`Phased.fixed_steps`) and learns from a whole block of anonymous sums at once
(:meth:`Phased.update_block`); the engine then simulates the block in one go (see
:mod:`delaylab.engine`). The step-by-step path gives exactly the same runs.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .base import Policy

__all__ = ["Phased", "PhasedState", "odaaf_sizes", "odaaf_b_sizes", "odaaf_b_binding_bound", "odaaf_v_sizes", "n_phases",
           "survivors", "ODAAF", "ODAAFB", "ODAAFV"]


def n_phases(horizon: int) -> int:
    """M = max(1, ⌊½ log₂(T/e)⌋): the last phase with L_M = log(T Δ̃_M²) ≥ 1 (Δ̃_m = 2^{-m})."""
    return max(1, int(math.floor(0.5 * math.log2(max(horizon, 1) / math.e))))


def _tolerance(m):
    """Δ̃_m = 2^{-m} (Δ̃_1 = 1/2, halved each phase: Step 3)."""
    return np.ldexp(1.0, -np.asarray(m, dtype=np.int64))


def _size(m, horizon, last_term):
    r"""⌈(√(2L) + √(2L + (8/3)Δ̃L + last_term))² / Δ̃²⌉ with L = log(TΔ̃²), Δ̃ = 2^{-m}."""
    tol = _tolerance(m)
    L = np.log(horizon * tol**2)
    return np.ceil((np.sqrt(2 * L) + np.sqrt(2 * L + (8 / 3) * tol * L + last_term)) ** 2 / tol**2).astype(np.int64)


def odaaf_sizes(m, horizon, mean_delay):
    r"""ODAAF's n_m (*reconstructed* Eq. 2): last term 6 Δ̃_m m E[τ].

    ``m`` (phases ≥ 1) and ``mean_delay`` broadcast together.
    """
    m = np.asarray(m)
    return _size(m, horizon, 6 * _tolerance(m) * m * np.asarray(mean_delay, dtype=float))


def odaaf_v_sizes(m, horizon, mean_delay, variance):
    r"""ODAAF-V's n_m (*reconstructed* Eq. 6): last term 4Δ̃_m(E[τ] + 2V(τ))."""
    m = np.asarray(m)
    return _size(m, horizon, 4 * _tolerance(m) * (np.asarray(mean_delay, float) + 2 * np.asarray(variance, float)))


def odaaf_b_sizes(m, horizon, mean_delay, bound):
    r"""ODAAF-B's n_m (*reconstructed* Eq. 4.2): max(n'_m, ⌈m d̃_m⌉), d̃_m = min(d, n_m^{ODAAF}/m),
    where n'_m has last term 4Δ̃_m E[τ]. ⌈m d̃_m⌉ is computed as ⌈min(m d, n_m^{ODAAF})⌉, so that it is
    ODAAF's own n_m exactly when d̃_m = n_m^{ODAAF}/m (m·(n/m) can round above n)."""
    m = np.asarray(m)
    n_prime = _size(m, horizon, 4 * _tolerance(m) * np.asarray(mean_delay, dtype=float))
    m_d_tilde = np.minimum(m * np.asarray(bound, dtype=float), odaaf_sizes(m, horizon, mean_delay))
    return np.maximum(n_prime, np.ceil(m_d_tilde).astype(np.int64))


def odaaf_b_binding_bound(horizon: int, mean_delay: float) -> float:
    r"""The bound d above which ODAAF-B's phases start to depend on d (``inf`` if they never do).

    In :func:`odaaf_b_sizes`, d enters only through ⌈m d̃_m⌉ with d̃_m = min(d, n_m^{ODAAF}/m); phase
    m changes once m·d > n'_m, which is possible only if n_m^{ODAAF} > n'_m. The threshold is
    min over those phases of n'_m / m. Below it every d gives the same run: knowing a bound helps
    ODAAF-B through its smaller last term 4Δ̃_m E[τ], not through the value of d.
    """
    m = np.arange(1, n_phases(horizon) + 1)
    n_prime = _size(m, horizon, 4 * _tolerance(m) * float(mean_delay))
    can_bind = odaaf_sizes(m, horizon, mean_delay) > n_prime
    return float(np.min(n_prime[can_bind] / m[can_bind])) if can_bind.any() else math.inf


def survivors(means, active, tolerance) -> np.ndarray:
    r"""Step 2: the arms still active after the elimination test, (B, K) bool.

    Arm j is eliminated if X̄_j + Δ̃ < max_{i active} X̄_i: ``means`` X̄ (B, K), ``active`` (B, K)
    bool, ``tolerance`` Δ̃ (B,). Eliminated arms neither survive nor count in the max.
    """
    x = np.where(active, means, -np.inf)
    best = x.max(axis=1, keepdims=True)
    return active & ~(x + np.asarray(tolerance, dtype=float)[:, None] < best)


class PhasedState(NamedTuple):
    """What the compiled kernel of the phased family (:mod:`delaylab.kernels.odaaf`) reads and
    updates: the policy's own arrays (see :class:`Phased` for their meaning)."""

    #: (B, K) bool (updated)
    active: np.ndarray
    #: (B, K) (updated)
    sums: np.ndarray
    #: (B, K) (updated)
    samples: np.ndarray
    #: (B,) int64 (updated)
    phase: np.ndarray
    #: (B,) int64 (updated)
    arm: np.ndarray
    #: (B,) int64 (updated)
    end: np.ndarray
    #: (B,) bool (updated)
    in_bridge: np.ndarray
    #: (B,) bool (updated)
    committed: np.ndarray
    #: (B, P) int64 (updated)
    phase_start: np.ndarray
    #: (B, P) int64 (updated)
    bridge_start: np.ndarray
    #: (B, K) int64 (updated)
    eliminated_at: np.ndarray
    #: (B, P) int64, the length of each phase's blocks, n_p − n_{p−1} ≥ 1
    length: np.ndarray
    #: (B, P) the elimination width of each phase
    width: np.ndarray
    #: whether a bridge period follows Step 1 (ODAAF-B, ODAAF-V)
    bridge: bool
    #: whether rewards arrive labelled (each credited to its own arm: Improved UCB)
    labelled: bool


class Phased(Policy):
    """Phased elimination with blocks (Improved UCB's structure), vectorised over runs.

    Subclasses define :meth:`_schedule` → (phase numbers (P,), n (B, P) cumulative sample
    targets, width (B, P)) and the class attribute ``default_bridge`` (whether Step 4's bridge
    periods are played, unless a ``bridge`` hyperparameter says otherwise: :attr:`bridges`). Arm j
    is eliminated at the end of phase p if X̄_j + width_p < max_i X̄_i.

    Learned state (per run, shape (B,) or (B, K)): ``active_``, ``sums_`` (sum of the
    observations at the recorded steps of each arm), ``samples_`` (number of recorded steps),
    ``phase_`` (index p into the schedule, 0-based), ``arm_``, ``end_`` (step at which the
    current block ends, exclusive), ``in_bridge_``, ``committed_`` (one arm left, or no phase
    left: the leader is played to the end); records ``phase_start_`` (B, P),
    ``bridge_start_`` (B, P) and ``eliminated_at_`` (B, K), −1 where nothing happened.
    Blocks last max(n_p − n_{p−1}, 1) steps (the formulas give increasing n_p; the guard only
    keeps a degenerate schedule moving).
    """

    feedback = ("anonymous",)
    #: whether the variant plays Step 4's bridge periods (the paper's Section 5: ODAAF-B and ODAAF-V)
    default_bridge = False

    @property
    def bridges(self) -> bool:
        """Whether bridge periods are played: the ``bridge`` hyperparameter if given (True or
        False), else the variant's :attr:`default_bridge`."""
        b = getattr(self, "bridge", None)
        if b is None:
            return bool(self.default_bridge)
        if not isinstance(b, (bool, np.bool_)):
            raise ValueError(f"bridge = {b!r} must be True, False or None (None: the variant's default, "
                             f"{self.default_bridge})")
        return bool(b)

    def _schedule(self, problem):  # pragma: no cover - abstract
        raise NotImplementedError

    def reset(self, problem):
        B, K, T = problem.size, problem.n_arms, problem.horizon
        self._bridge = self.bridges  # checked first: a bad ``bridge`` is named before anything runs
        self.phases_, n, width = self._schedule(problem)
        n = np.broadcast_to(n, (B, len(self.phases_))).astype(np.int64)
        # blocks last n_p − n_{p−1} ≥ 1 steps (n_0 = 0)
        self._len = np.maximum(np.diff(n, axis=1, prepend=0), 1)
        self.n_ = np.cumsum(self._len, axis=1)
        self._width = np.broadcast_to(width, (B, len(self.phases_))).astype(float)
        self._T = T
        P = len(self.phases_)
        self.active_ = np.ones((B, K), dtype=bool)
        self.sums_ = np.zeros((B, K))
        self.samples_ = np.zeros((B, K))
        self.phase_ = np.zeros(B, dtype=np.int64)
        self.arm_ = np.zeros(B, dtype=np.int64)
        self.end_ = self._len[:, 0].copy()
        self.in_bridge_ = np.zeros(B, dtype=bool)
        self.committed_ = np.zeros(B, dtype=bool)
        self.phase_start_ = np.full((B, P), -1, dtype=np.int64)
        self.phase_start_[:, 0] = 0
        self.bridge_start_ = np.full((B, P), -1, dtype=np.int64)
        self.eliminated_at_ = np.full((B, K), -1, dtype=np.int64)
        self._labelled = problem.feedback == "labelled"
        self._arange_k = np.arange(K)

    def kernel_state(self) -> PhasedState:
        """The state the compiled kernel works on (see :class:`PhasedState`)."""
        return PhasedState(self.active_, self.sums_, self.samples_, self.phase_, self.arm_, self.end_,
                           self.in_bridge_, self.committed_, self.phase_start_, self.bridge_start_,
                           self.eliminated_at_, self._len, self._width, self._bridge, bool(self._labelled))

    # ------------------------------------------------------------------ acting
    def choose(self, t, context=None):
        return self.arm_.copy()

    def fixed_steps(self, t: int) -> int:
        """Number of steps from t (≥ 1) during which every run keeps its arm."""
        return int(self.end_.min()) - t

    def update(self, t, arms, feedback):
        if self._labelled:  # labelled rewards: credit each revealed reward to its own arm
            if len(feedback):
                feedback.add_to(self.sums_)
                feedback.add_to(self.samples_, weights=np.ones(len(feedback)))
            self._advance(t + 1)
        else:
            self.update_block(t, 1, arms, feedback.total[None])

    def update_block(self, t: int, h: int, arms, totals) -> None:
        """Learn from steps t … t + h − 1 (arms fixed), ``totals`` (h, B): the anonymous sums."""
        rec = ~self.in_bridge_
        s = totals[0] if h == 1 else totals.sum(axis=0)
        idx = (self._flat + self.arm_)[rec]
        self.sums_.reshape(-1)[idx] += s[rec]
        self.samples_.reshape(-1)[idx] += h
        self._advance(t + h)

    # ------------------------------------------------------------------ phases
    def estimates(self) -> np.ndarray:
        """X̄_i: mean of the observations at arm i's recorded steps (0 before any)."""
        return self.sums_ / np.maximum(self.samples_, 1.0)

    def _leader(self, r):
        x = np.where(self.active_[r], self.estimates()[r], -np.inf)
        return np.argmax(x, axis=1)

    def _advance(self, now: int) -> None:
        """Start the next block of every run whose block ended before step ``now``."""
        r = np.nonzero(self.end_ == now)[0]
        if not r.size:
            return
        bridge = self.in_bridge_[r]
        self._start_phase(r[bridge], now)
        r = r[~bridge]
        nxt = self.active_[r] & (self._arange_k > self.arm_[r, None])
        more = nxt.any(axis=1)
        go = r[more]  # Step 1 goes on with the next active arm
        self.arm_[go] = np.argmax(nxt[more], axis=1)
        self.end_[go] = now + self._len[go, self.phase_[go]]
        self._end_of_step1(r[~more], now)

    def _end_of_step1(self, r, now):
        """Steps 2–4 for runs r whose Step 1 ended before step ``now``."""
        if not r.size:
            return
        p = self.phase_[r]
        out = self.active_[r] & ~self.survivors(self.estimates()[r], self.active_[r], self._width[r, p])  # Step 2
        rr, kk = np.nonzero(out)
        self.eliminated_at_[r[rr], kk] = now - 1
        self.active_[r] &= ~out
        leader = self._leader(r)
        last = (self.active_[r].sum(axis=1) == 1) | (p + 1 >= len(self.phases_))
        c = r[last]  # one arm left (or no phase left): play the leader to the end
        self.arm_[c], self.end_[c], self.committed_[c] = leader[last], max(self._T, now + 1), True
        r, leader, p = r[~last], leader[~last], p[~last]
        self.phase_[r] = p + 1  # Step 3: next tolerance
        if self._bridge:  # Step 4: bridge period on the leader, observations discarded
            self.arm_[r], self.in_bridge_[r] = leader, True
            self.end_[r] = now + self._len[r, p]
            self.bridge_start_[r, p] = now
        else:
            self._start_phase(r, now)

    def survivors(self, means, active, tolerance) -> np.ndarray:
        """Step 2's elimination test (see :func:`survivors`); a method so that a subclass may replace it."""
        return survivors(means, active, tolerance)

    def _start_phase(self, r, now):
        if not r.size:
            return
        self.in_bridge_[r] = False
        self.arm_[r] = np.argmax(self.active_[r], axis=1)  # first active arm
        self.end_[r] = now + self._len[r, self.phase_[r]]
        self.phase_start_[r, self.phase_[r]] = now

    # ------------------------------------------------------------------ inspection
    def phase_sizes(self) -> np.ndarray:
        """n_m of every phase, per run: (B, P) (the cumulative samples per active arm)."""
        return self.n_.copy()

    def snapshot(self):
        return {"phase": self.phase_.copy(), "active": self.active_.copy(), "mean": self.estimates(),
                "samples": self.samples_.copy(), "in_bridge": self.in_bridge_.copy(),
                "phase_start": self.phase_start_.copy(), "bridge_start": self.bridge_start_.copy(),
                "eliminated_at": self.eliminated_at_.copy(), "n": self.n_.copy()}


class _ODAAFBase(Phased):
    grid_params = ("mean_delay",)

    def get_params(self) -> dict:
        """The hyperparameters given to the constructor; ``bridge`` only when set (True or False), so
        that the paper's variants keep the cache keys they had before the switch existed."""
        params = super().get_params()
        if params.get("bridge", 0) is None:
            del params["bridge"]
        return params

    def _mean_delay(self):
        if self.mean_delay is None:
            raise ValueError(f"{type(self).__name__} needs the expected delay E[τ]: pass mean_delay=, "
                             f"e.g. mean_delay=10")
        return self.column("mean_delay", low=0.0, high=1e12)  # steps; the horizon is ≤ 10⁸

    def _sizes(self, m, T):  # pragma: no cover - abstract
        raise NotImplementedError

    def _schedule(self, problem):
        m = np.arange(1, n_phases(problem.horizon) + 1)
        return m, self._sizes(m, problem.horizon), _tolerance(m)


class ODAAF(_ODAAFBase):
    r"""ODAAF: Algorithm 1 of Pike-Burke et al. (2018) knowing only E[τ] (Assumption 1), without
    bridge periods (as in the paper's experiments, Section 5; its analysis, Section 4.1, does not
    use them either).

    Phase sizes (*reconstructed* Eq. 2, see :func:`odaaf_sizes`):
    n_m = ⌈(√(2L) + √(2L + (8/3)Δ̃_m L + 6 Δ̃_m m E[τ]))² / Δ̃_m²⌉, L = log(TΔ̃_m²).

    Parameters
    ----------
    mean_delay : float or array
        E[τ] ≥ 0, the expected delay the algorithm is told (one value per grid cell if an array).
    bridge : bool or None
        True: play Step 4's bridge periods too, with the same phase sizes (ODAAF with bridges,
        which isolates what the bridges change). None or False: the paper's ODAAF, without.
    """

    def __init__(self, mean_delay=None, bridge=None):
        self.mean_delay = mean_delay
        self.bridge = bridge

    @property
    def label(self):
        return "ODAAF with bridges" if self.bridge else "ODAAF"

    def _sizes(self, m, T):
        return odaaf_sizes(m, T, self._mean_delay())


class ODAAFB(_ODAAFBase):
    r"""ODAAF-B: Algorithm 1 with bridge periods, for delays bounded by d (Assumptions 1–2).

    Phase sizes (*reconstructed* Eq. 4.2, see :func:`odaaf_b_sizes`): n'_m with last term
    4Δ̃_m E[τ], d̃_m = min(d, n_m^{ODAAF}/m), n_m = max(n'_m, ⌈m d̃_m⌉).

    Parameters
    ----------
    mean_delay : float or array
        E[τ] ≥ 0.
    bound : float or array
        d ≥ E[τ], a bound on every delay.
    bridge : bool or None
        False: the same phase sizes without Step 4's bridge periods (isolates what the bridges
        change). None or True: the paper's ODAAF-B, with them.
    """

    default_bridge = True
    grid_params = ("mean_delay", "bound")

    def __init__(self, mean_delay=None, bound=None, bridge=None):
        self.mean_delay = mean_delay
        self.bound = bound
        self.bridge = bridge

    @property
    def label(self):
        return "ODAAF-B without bridges" if self.bridge is False else "ODAAF-B"

    def _sizes(self, m, T):
        mu = self._mean_delay()
        if self.bound is None:
            raise ValueError("ODAAFB needs the delay bound d: pass bound=, e.g. bound=20")
        d = self.column("bound", low=0.0, high=1e12)
        if np.any(np.asarray(d) < np.asarray(mu)):
            raise ValueError(f"bound = {self.bound!r} is smaller than mean_delay = {self.mean_delay!r}: "
                             f"a bound d on the delays must be ≥ E[τ]; valid range [{self.mean_delay}, ∞)")
        return odaaf_b_sizes(m, T, mu, d)


class ODAAFV(_ODAAFBase):
    r"""ODAAF-V: Algorithm 1 with bridge periods, knowing the variance of the delays
    (Assumptions 1 and 3).

    Phase sizes (*reconstructed* Eq. 6, see :func:`odaaf_v_sizes`): last term 4Δ̃_m(E[τ] + 2V(τ)).

    Parameters
    ----------
    mean_delay : float or array
        E[τ] ≥ 0.
    variance : float or array
        V(τ) ≥ 0 (or a bound on it).
    bridge : bool or None
        False: the same phase sizes without Step 4's bridge periods. None or True: the paper's
        ODAAF-V, with them.
    """

    default_bridge = True
    grid_params = ("mean_delay", "variance")

    def __init__(self, mean_delay=None, variance=None, bridge=None):
        self.mean_delay = mean_delay
        self.variance = variance
        self.bridge = bridge

    @property
    def label(self):
        return "ODAAF-V without bridges" if self.bridge is False else "ODAAF-V"

    def _sizes(self, m, T):
        mu = self._mean_delay()
        if self.variance is None:
            raise ValueError("ODAAFV needs the variance of the delays V(τ): pass variance=, e.g. variance=10")
        return odaaf_v_sizes(m, T, mu, self.column("variance", low=0.0, high=1e24))

