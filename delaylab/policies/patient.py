r"""Patient Bandits and Adapt-Patient Bandits: Manegueu, Vernade, Carpentier, Valko (2020).

Setting (Section 2): arm i has its own delay law with CDF τ_i, possibly heavy-tailed; only
conversions are ever revealed (``dl.Conversions(means, delays=[law_1, …, law_K])``). Symbols,
for the decision of step t (the learner knows every conversion with s + D_s ≤ t − 1):

* T_i(t) — pulls of arm i so far;
* μ_hat_i(t) — conversions of arm i seen so far divided by T_i(t) (Eq. 4). No delay correction:
  μ_hat_i is biased low, by at most the share of arm i's conversions still on their way;
* Assumption 1: P(D > m) ≤ m^{−α} for every arm and m ≥ 1 (printed for m ∈ ℕ; vacuous at m = 0).
  Summing the tails P(D > u) over the worst case (all pulls in the last T_i rounds: lags 1 … T_i in
  the paper's timing, where the assumption sits) bounds the bias by 2 T_i^{−(α ∧ 1/2)} (Theorem 1);
* **Patient Bandits** (Algorithm 1): pull each arm once, then the arm maximising

      UCB_i(t) = μ_hat_i(t) + sqrt(2 log(2KT³) / T_i(t)) + 2 T_i(t)^{−(α ∧ 1/2)},

  a standard deviation term plus a bias term (∧ = min, ∨ = max; α is the hyperparameter that
  the paper's Section 8 writes α_hat to tell it from the true tail index). The deviation term is
  Theorem 1's at δ = 1/(KT³) per arm and round: log(2/δ) = log(2KT³), so the bound holds for
  all K arms at once with probability 1 − 1/T³ per round. ``bias=0`` drops the bias term and
  keeps everything else (the comparison that isolates it; not in the paper).
* **Adapt-Patient Bandits** (Section 6.3, Algorithm 2) replaces α by an online lower confidence
  bound α_t under Assumption 2, c·m^{−α} ≤ P(D > m) ≤ m^{−α}, α ≥ α_low, min_k μ_k > μ_low.

Our reading of Algorithm 2 (the extraction of our copy lost some symbols of Section 6.3; this is
the reading of ``docs/readings.md``, checked against the text):

* I_bar_t = argmax_k T_k(t) (ties: the lowest arm), T_bar_t = T_{I_bar_t}(t); only I_bar_t's pulls are used;
* D_t = ⌊T_bar_t / 2⌋ and d_t = ⌊(c/2)^{1/α_low} D_t⌋ — the text needs d ≤ (c/2)^{1/α} D for the
  unknown α; the known lower bound α_low guarantees it (footnote 3: d ≤ D since c ≤ 1);
* m_{t,D} = (1/T_bar_t) Σ X_{s,D}, X_{s,D} = C_s 1{D_s ≤ D}, summed over I_bar_t's pulls made at
  least D_t steps ago (s ≤ t − 1 − D_t, so that X_{s,D_t} is known), and m_{t,d} over the same
  pulls. The normaliser 1/T_bar_t is legible in our copy (as printed); the sum's range is garbled
  (our reading). The sum runs over n_t pulls, T_bar_t/2 ≤ n_t ≤ T_bar_t, so
  m_{t,D_t} − m_{t,d_t} = (1/T_bar_t) Σ C_s 1{d_t < D_s ≤ D_t} ≥ 0 estimates
  (n_t/T_bar_t)·μ(τ(D_t) − τ(d_t)), not μ(τ(D_t) − τ(d_t)): it raises α_hat_t by
  log(T_bar_t/n_t)/log T_bar_t ≤ log 2/log T_bar_t against the sample mean over the n_t pulls;
* α_hat_t = min(−log(m_{t,D_t} − m_{t,d_t}) / log T_bar_t, 1)   (1 when the difference is 0);
* α_t = max(α_hat_t − κ · log(24 sqrt(log(2KT³)) / (c μ_low)) / log T_bar_t, α_low), our reading
  of the text's lower confidence bound with κ = 1 (our copy shows α_hat_t and the log(24 …) term;
  the division by log T_bar_t and the floor at α_low are ours; ``confidence`` = κ is our name,
  exposed so that the notebook can show what the raw estimate does); α_t = α_low while no pull
  is D_t steps old;
* pull each arm twice, then the arm maximising UCB_i computed with α_t.

With the paper's Section 8.3 constants (c = 0.7, α_low = 0.1, μ_low = 0.6, T = 10⁴) the
confidence term is about 5.7 / log T_bar_t > 0.6, so α_t = α_low as long as α_hat_t < 0.7 (a perfect
estimate, 0.3, is lowered below α_low), and (c/2)^{1/α_low} ≈ 3·10⁻⁵ gives d_t = 0: see
notebook 02 for what this means for Figures 6–7. (In the paper's timing the printed law satisfies
Assumption 2 only for c ≤ 0.7·2^{−0.3} ≈ 0.569; in delaylab's, one step later, for c ≤ 0.7: see
:class:`~delaylab.ScaledPareto`. In neither for the printed μ_low = 0.6, which equals min_k μ_k
where Assumption 2 asks min_k μ_k > μ_low.)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .base import per_run
from .ucb import IndexPolicy


class PatientState(NamedTuple):
    """What the compiled kernel of Patient Bandits (:mod:`delaylab.kernels.patient`) reads and
    updates: the policy's own arrays, (B, K) per run and arm."""

    #: T_i, the pulls (updated)
    pulls: np.ndarray
    #: the conversions seen (updated)
    successes: np.ndarray
    #: the width sqrt(2 log(2KT³)/T_i) + 2 T_i^{−a} of each arm (updated after each pull)
    width: np.ndarray
    #: (B,) a = α ∧ 1/2 per run
    a: np.ndarray
    #: (B,) the multiplier of the bias term per run (1: the paper's index; 0: no bias term)
    b: np.ndarray
    #: 2 log(2KT³)
    two_log: float


class AdaptPatientState(NamedTuple):
    """What the compiled kernel of Adapt-Patient Bandits (:mod:`delaylab.kernels.patient`) reads
    and updates: the policy's own arrays (see :class:`AdaptPatientBandits`; the flat tables have
    entry f = run·K + arm)."""

    #: (B, K) T_i, the pulls (updated)
    pulls: np.ndarray
    #: (B, K) the conversions seen (updated)
    successes: np.ndarray
    #: (B,) α_t (updated)
    alpha: np.ndarray
    #: (B,) α_hat_t, NaN while undefined (updated)
    alpha_hat: np.ndarray
    #: (B·K·w,) int32, the step of the j-th pull of entry f at f·w + j (updated)
    times: np.ndarray
    #: (B·K·w,) int32, its seen delay, −1 for none (updated)
    delays: np.ndarray
    #: (B·T,) int32, j of the pull made at step s of a run, at run·T + s (updated)
    ordinal: np.ndarray
    #: (B·K·h,) int32, the seen delays of the estimation set (updated)
    hist: np.ndarray
    #: (B·K,) int64, pulls in the estimation set (updated)
    n_est: np.ndarray
    #: (B·K,) int64, pulls (updated)
    n_pulls: np.ndarray
    #: (B·K,) int64, D_t (updated)
    D: np.ndarray
    #: (B·K,) int64, d_t (updated)
    d: np.ndarray
    #: (B·K,) int64, Σ_set C_s 1{D_s ≤ D} (updated)
    count_D: np.ndarray
    #: (B·K,) int64, Σ_set C_s 1{D_s ≤ d} (updated)
    count_d: np.ndarray
    #: (B·K,) ρ = (c/2)^{1/α_low}
    rho: np.ndarray
    #: (B,) κ · log(24 sqrt(log(2KT³)) / (c μ_low))
    conf: np.ndarray
    #: (B,) α_low
    alpha_low: np.ndarray
    #: 2 log(2KT³)
    two_log: float
    #: w = T + 1, the row length of ``times`` and ``delays``
    w: int
    #: h = T // 2 + 2, the row length of ``hist``
    h: int


#: the smallest positive double: the floor of m_{t,D} − m_{t,d} under the log of α_hat_t
TINY = 5e-324


def log_term(n_arms: int, horizon: int) -> float:
    """log(2KT³) = log(2/δ) in Theorem 1 with δ = 1/(KT³) per arm and round: the bound then holds
    for all K arms at once with probability at least 1 − 1/T³ per round (a union bound)."""
    return float(np.log(2.0 * n_arms) + 3.0 * np.log(horizon))


def patient_index(mean, pulls, alpha, n_arms: int, horizon: int, bias=1.0) -> np.ndarray:
    r"""UCB_i = μ_hat_i + sqrt(2 log(2KT³) / T_i) + 2 T_i^{−(α ∧ 1/2)} (Theorem 1, Algorithm 1).

    ``mean`` and ``pulls`` are (…, K) arrays (T_i ≥ 1); ``alpha`` broadcasts against them. The
    bias term is computed as 2·exp(−(α ∧ 1/2)·log T_i): no overflow for any α > 0, and it tends
    to 2 as α → 0. ``bias`` multiplies it (0: the deviation term alone).
    """
    return _index(mean, np.asarray(pulls, dtype=float), alpha, 2.0 * log_term(n_arms, horizon), bias)


def _index(mean, pulls, alpha, two_log, bias=1.0):
    """:func:`patient_index` with 2 log(2KT³) given."""
    return mean + _width(pulls, np.minimum(alpha, 0.5), two_log, bias)


def _width(pulls, a, two_log, bias=1.0):
    """sqrt(2 log(2KT³)/T_i) + 2 b T_i^{−a}, with a = α ∧ 1/2 and b the bias term's multiplier."""
    return np.sqrt(two_log / pulls) + 2.0 * bias * np.exp(-a * np.log(pulls))


class _PatientBase(IndexPolicy):
    feedback = ("conversions",)

    def _start_state(self, problem):
        B, K = problem.size, problem.n_arms
        self.pulls_ = np.zeros((B, K))  # T_i(t)
        self.successes_ = np.zeros((B, K))  # conversions of arm i seen so far
        self._two_log = 2.0 * log_term(K, problem.horizon)

    def mean(self) -> np.ndarray:
        """μ_hat_i(t) = (conversions of arm i seen so far) / T_i(t) (Eq. 4); 0 before any pull."""
        return self.successes_ / np.maximum(self.pulls_, 1.0)

    def _record(self, arms, feedback):
        self.pulls_.reshape(-1)[self._flat + arms] += 1.0
        if len(feedback):
            feedback.add_to(self.successes_)


class PatientBandits(_PatientBase):
    r"""Patient Bandits (Manegueu et al. 2020, Algorithm 1, the UCB of Theorem 1).

    Pull each arm once, then argmax_i μ_hat_i(t) + sqrt(2 log(2KT³)/T_i(t)) + 2 T_i(t)^{−(α ∧ 1/2)}
    (see :func:`patient_index`; ties: the lowest arm). μ_hat_i is the raw share of conversions
    seen (Eq. 4); the third term pays for the conversions still on their way.

    Parameters
    ----------
    alpha : float or array
        α > 0, the tail index the policy assumes (Assumption 1: P(D > m) ≤ m^{−α} for every
        arm); the paper's figures call it α_hat. One value per grid cell if an array.
    bias : float or array
        b ≥ 0, the multiplier of the bias term: 1 is the paper's index, 0 drops the term and keeps
        the same deviation term (not in the paper: the comparison that isolates what the bias
        term does). One value per grid cell if an array.

    Examples
    --------
    >>> import delaylab as dl
    >>> env = dl.Conversions([0.5, 0.55], delays=[dl.Pareto(1.0), dl.Pareto(0.3)])
    >>> res = dl.simulate(env, dl.PatientBandits(alpha=0.3), horizon=3000, runs=10)
    """

    grid_params = ("alpha", "bias")

    def __init__(self, alpha=0.5, bias=1.0):
        self.alpha = alpha
        self.bias = bias

    @property
    def label(self):
        return "Patient Bandits"

    def reset(self, problem):
        alpha = self.column("alpha", low=0.0, low_open=True)
        bias = self.column("bias", low=0.0)
        self._start_state(problem)
        ones = np.ones((problem.size, 1))
        self._a = np.minimum(np.ravel(alpha * ones), 0.5)  # α ∧ 1/2 per run
        self._b = np.ravel(bias * ones)  # the bias term's multiplier per run
        # the two terms of the width change only for the arm just pulled: kept up to date
        self.width_ = np.full((problem.size, problem.n_arms), np.inf)

    def update(self, t, arms, feedback):
        self._record(arms, feedback)
        f = self._flat + arms
        self.width_.reshape(-1)[f] = _width(self.pulls_.reshape(-1)[f], self._a, self._two_log, self._b)

    def index(self, t):
        return self.successes_ / self.pulls_ + self.width_

    def kernel_state(self) -> PatientState:
        """The state the compiled kernel works on (see :class:`PatientState`)."""
        return PatientState(self.pulls_, self.successes_, self.width_, per_run(self._a, self._cols.size),
                            per_run(self._b, self._cols.size), float(self._two_log))

    def snapshot(self):
        return {"mean": self.mean(), "pulls": self.pulls_.copy()}


class AdaptPatientBandits(_PatientBase):
    r"""Adapt-Patient Bandits (Manegueu et al. 2020, Section 6.3, Algorithm 2).

    Patient Bandits run with α_t, an online lower confidence bound on the tail index estimated
    from the most pulled arm (see the module docstring for the formulas and our reading of the
    part of Section 6.3 that our copy lost). The running estimates are recorded by
    ``simulate(trace=True)``: ``alpha`` (α_t, used in the UCB) and ``alpha_hat`` (α_hat_t before the
    confidence correction; NaN while undefined).

    Parameters
    ----------
    c : float or array
        c ∈ (0, 1] of Assumption 2 (c·m^{−α} ≤ P(D > m)); 0.7 in Section 8.3 as printed: valid for
        the instance delaylab simulates (one step later), not for the printed law in the paper's
        timing (c ≤ 0.7·2^{−0.3} ≈ 0.569 there).
    alpha_low : float or array
        α_low ∈ (0, 1], the known lower bound on α; 0.1 in Section 8.3.
    mu_low : float or array
        μ_low ∈ (0, 1], the known strict lower bound on the arms' means (min_k μ_k > μ_low);
        0.6 in Section 8.3 as printed, although there min_k μ_k = 0.6.
    confidence : float or array
        κ ≥ 0, the multiplier of the confidence term log(24 sqrt(log(2KT³))/(c μ_low))/log T_bar_t:
        1 is the paper's algorithm; 0 uses the raw estimate α_hat_t (floored at α_low).

    Notes
    -----
    Exact incremental bookkeeping: each step, the one pull of each arm that becomes D_t steps
    old joins the estimation set, and a histogram of the seen delays of that set gives
    Σ 1{d_t < D_s ≤ D_t} as D_t and d_t grow by one. Memory: about 16·K·T bytes per run.
    """

    grid_params = ("c", "alpha_low", "mu_low", "confidence")

    def __init__(self, c=0.7, alpha_low=0.1, mu_low=0.6, confidence=1.0):
        self.c = c
        self.alpha_low = alpha_low
        self.mu_low = mu_low
        self.confidence = confidence

    @property
    def label(self):
        return "Adapt-Patient Bandits"

    def reset(self, problem):
        c = self.column("c", low=0.0, high=1.0, low_open=True)
        a_low = self.column("alpha_low", low=0.0, high=1.0, low_open=True)
        mu_low = self.column("mu_low", low=0.0, high=1.0, low_open=True)
        kappa = self.column("confidence", low=0.0)
        self._start_state(problem)
        B, K, T = problem.size, problem.n_arms, problem.horizon
        ones = np.ones(B)
        self._alpha_low = np.broadcast_to(np.ravel(a_low * ones[:, None]), (B,)).copy()
        # ρ = (c/2)^{1/α_low}, so that d_t = ⌊ρ D_t⌋; per flat (run, arm) entry
        rho = np.exp(np.log(np.asarray(c) / 2.0) / np.asarray(a_low)) * ones[:, None]
        self._rho = np.repeat(np.ravel(rho), K)
        # κ · log(24 sqrt(log(2KT³)) / (c μ_low)), divided by log T_bar_t at each step
        conf = kappa * np.log(24.0 * np.sqrt(log_term(K, T)) / (np.asarray(c) * np.asarray(mu_low)))
        self._conf = np.ravel(conf * ones[:, None])
        BK = B * K
        never = np.iinfo(np.int32).max
        self._h = T // 2 + 2  # D_t ≤ T/2: larger delays are never counted
        # flat 1-d tables (entry f = run·K + arm; faster to index than 2-d ones)
        self._w = T + 1
        self.times_ = np.full(BK * self._w, never, dtype=np.int32)  # [f, j]: step of the j-th pull
        self.delays_ = np.full(BK * self._w, -1, dtype=np.int32)  # [f, j]: its seen delay (−1: none)
        self.ordinal_ = np.zeros(B * T, dtype=np.int32)  # [run, s]: j of the pull made at step s
        self.hist_ = np.zeros(BK * self._h, dtype=np.int32)  # [f, δ]: seen delays of the estimation set
        self.n_est_ = np.zeros(BK, dtype=np.int64)  # n: pulls at least D steps old, in the set
        self.n_pulls_ = np.zeros(BK, dtype=np.int64)
        self.D_ = np.zeros(BK, dtype=np.int64)
        self.d_ = np.zeros(BK, dtype=np.int64)
        self.count_D_ = np.zeros(BK, dtype=np.int64)  # Σ_set C_s 1{D_s ≤ D}
        self.count_d_ = np.zeros(BK, dtype=np.int64)  # Σ_set C_s 1{D_s ≤ d}
        self._row_w = np.arange(BK) * self._w
        self._row_h = np.arange(BK) * self._h
        self._row_t = self._cols * T
        self.alpha_ = self._alpha_low.copy()
        self.alpha_hat_ = np.full(B, np.nan)

    # ------------------------------------------------------------------ the estimator of α
    def estimate(self):
        """(α_hat_t, α_t) per run, from the statistics of the most pulled arm I_bar_t."""
        pulls = self.n_pulls_.reshape(-1, self.problem_.n_arms)
        ibar = np.argmax(pulls, axis=1)  # I_bar_t (ties: the lowest arm)
        f = self._flat + ibar
        t_bar = pulls.reshape(-1)[f]
        n = self.n_est_[f]
        # m_{t,D} − m_{t,d}: the sum over the estimation set divided by T_bar_t, as printed (not by n)
        diff = (self.count_D_[f] - self.count_d_[f]) / np.maximum(t_bar, 1)
        log_t = np.log(np.maximum(t_bar, 2))
        # −log 0 = ∞ gives α_hat = 1; the smallest double does the same (−log of it is 744 ≥ log T_bar)
        alpha_hat = np.minimum(-np.log(np.maximum(diff, TINY)) / log_t, 1.0)
        defined = (n > 0) & (t_bar >= 2)
        alpha = np.where(defined, np.maximum(alpha_hat - self._conf / log_t, self._alpha_low), self._alpha_low)
        return np.where(defined, alpha_hat, np.nan), alpha

    # ------------------------------------------------------------------ the learner
    def choose(self, t, context=None):
        K = self.problem_.n_arms
        if t < 2 * K:  # pull each arm twice
            return np.full(self.problem_.size, t % K, dtype=np.int64)
        self.alpha_hat_, self.alpha_ = self.estimate()
        return np.argmax(self.index(t), axis=1)

    def update(self, t, arms, feedback):
        self._record(arms, feedback)
        f = self._flat + arms
        j = self.n_pulls_[f]
        self.times_[self._row_w[f] + j] = t
        self.ordinal_[self._row_t + t] = j
        self.n_pulls_[f] = j + 1
        if len(feedback):
            fr = feedback.run * self.problem_.n_arms + feedback.arm
            jr = self.ordinal_[feedback.run * self.problem_.horizon + feedback.step]
            delay = t - feedback.step
            self.delays_[self._row_w[fr] + jr] = delay
            late = (jr < self.n_est_[fr]) & (delay < self._h)  # a pull already in the set
            if late.any():  # entries may repeat (several arrivals of one run and arm)
                self._add(fr[late], delay[late], unique=False)
        # D and d of the arm just pulled grow by one at every second pull: add the set's
        # delays equal to the new values
        grow = (j & 1) == 1  # its pulls went from j to j + 1, j odd: D = (j + 1)/2
        if grow.any():
            g = f[grow]
            D = (j[grow] + 1) >> 1
            self.D_[g] = D
            self.count_D_[g] += self.hist_[self._row_h[g] + D]
            new_d = np.floor(self._rho[g] * D).astype(np.int64)
            up = new_d > self.d_[g]
            if up.any():
                gu, du = g[up], new_d[up]
                self.d_[gu] = du
                self.count_d_[gu] += self.hist_[self._row_h[gu] + du]
        # the pull (at most one per arm and step) that is now D steps old joins the set
        j = self.n_est_
        join = self.times_[self._row_w + j] <= t - self.D_
        if join.any():
            g = np.flatnonzero(join)
            delay = self.delays_[self._row_w[g] + j[g]]
            self.n_est_[g] += 1
            seen = (delay >= 0) & (delay < self._h)
            if seen.any():
                self._add(g[seen], delay[seen].astype(np.int64), unique=True)

    def _add(self, f, delay, unique):
        """Seen delays joining the estimation set of entries f (distinct (f, delay) pairs)."""
        self.hist_[self._row_h[f] + delay] += 1
        below_D, below_d = delay <= self.D_[f], delay <= self.d_[f]
        if unique:
            self.count_D_[f] += below_D
            self.count_d_[f] += below_d
        else:
            np.add.at(self.count_D_, f, below_D)
            np.add.at(self.count_d_, f, below_d)

    def index(self, t):
        return _index(self.mean(), self.pulls_, self.alpha_[:, None], self._two_log)

    def kernel_state(self) -> AdaptPatientState:
        """The state the compiled kernel works on (see :class:`AdaptPatientState`)."""
        return AdaptPatientState(self.pulls_, self.successes_, self.alpha_, self.alpha_hat_, self.times_,
                                 self.delays_, self.ordinal_, self.hist_, self.n_est_, self.n_pulls_, self.D_,
                                 self.d_, self.count_D_, self.count_d_, self._rho, self._conf, self._alpha_low,
                                 float(self._two_log), int(self._w), int(self._h))

    def snapshot(self):
        return {"mean": self.mean(), "pulls": self.pulls_.copy(), "alpha": self.alpha_.copy(),
                "alpha_hat": self.alpha_hat_.copy()}
