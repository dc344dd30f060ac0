r"""Skipping rounds with excessive delays: Skipper (Algorithm 2 of Thune, Cesa-Bianchi, Seldin
2019) and its Doubling scheme (Section 4.1, delays known at action time).

Skipper(β, A) plays what the base algorithm A plays and feeds it only the losses whose delay is
below the threshold, d_s < β. The skipped rounds S_β = {s : d_s ≥ β} cost at most one unit of
regret each (Lemma 2), and A sees delays bounded by β, so DEW may use d_max = β. Theorem 3:

    R_T ≤ |S_β| + max{ln K/η, 4eβ ln K} + η(KTe/2 + D_β),   D_β = Σ_{s ∉ S_β} d_s,

the *experienced* delay. Corollary 4 (T and D known): with η = 1/(4eβ), |S_β| ≤ D/β and
D_β ≤ D, Theorem 3 gives R_T ≤ 4eβ ln K + (eKT/2 + (1 + 4e)D)/(4eβ); the two terms balance at

    β = √((eKT/2 + (1 + 4e)D) / (16e² ln K)),

where the bound is the corollary's 2√((KTe/2 + (1 + 4e)D) ln K). This is the paper's β (*our reading*
of a display our copy scrambles): the paper writes it nested, β = √(((eKT/2 + D)/(4e) + D)/(4e ln K)),
which multiplies out to the form above (docs/readings.md, paper 5).

Doubling (delays at action time) tunes β without knowing T or D: epochs m with ω_m = 2^m,
β_m = √ω_m/(4e ln K), η_m = 1/(4eβ_m) (Eq. 5, *our reading*: the root covers ω_m only, see
docs/readings.md; with it, Eq. 6 makes each of the three terms of the epoch's bound at most √ω_m,
the 3√ω_m of Lemma 5); the epoch goes on while (Eq. 6)

    max{ |S^m_β|², (eKσ(m)/2 + D^m_β) ln K } ≤ ω_m,

with |S^m_β|, D^m_β and σ(m) (the length of the epoch, as the paper defines it below Eq. 4)
counted over the epoch's rounds *including the current one*, whose delay d_t is known before
acting. When the condition fails, a new epoch starts at the current round and the base
Skipper(β_m, DEW(η_m, β_m)) is restarted; losses of earlier epochs that arrive later are not
given to the restarted instance. Readings taken: the scheme starts at m = 0; if the condition
fails even for an epoch made of the current round alone, m keeps increasing (empty epochs are
skipped). A one-round epoch needs (eK/2) ln K ≤ ω_m, and (eK/2) ln K > 1 for every K ≥ 2, so
epoch 0 never holds a round (at K = 2 the first round opens epoch 1).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._validate import check_int, check_real
from .base import Policy
from .exp_weights import DEW, E

#: largest epoch index of Doubling (ω_m = 2^m would exceed any representable horizon beyond)
MAX_EPOCH = 62
#: the name under which the workbook draws :meth:`Skipper.without_skipping`: Skipper's base learner
#: at Skipper's learning rate, fed every loss (what skipping alone changes)
NO_SKIP = "Skipper without skipping"


class SkipperState(NamedTuple):
    """What the compiled kernel of exponential weights (:mod:`delaylab.kernels.exp_weights`) reads
    and updates of a Skipper policy, besides its base's :class:`~.exp_weights.ExpWeightsState`."""

    #: (B,) β per run: the losses with d_s ≥ β are skipped
    beta: np.ndarray
    #: (T, B) d_s of the losses given to the base, −1 for the others (updated)
    kept_delay: np.ndarray


class DoublingState(NamedTuple):
    """What the compiled kernel of exponential weights (:mod:`delaylab.kernels.exp_weights`) reads
    and updates of a Doubling policy, besides its base's :class:`~.exp_weights.ExpWeightsState`:
    its own arrays, (B,) per run (see :class:`Doubling`)."""

    #: β_m (updated)
    beta: np.ndarray
    #: int64, m (updated)
    epoch: np.ndarray
    #: int64 (updated)
    epoch_start: np.ndarray
    #: int64, σ(m) (updated)
    epoch_length: np.ndarray
    #: int64, |S^m_β| (updated)
    epoch_skipped: np.ndarray
    #: D^m_β (updated)
    epoch_delay: np.ndarray
    #: int64, the skipped rounds of all epochs (updated)
    skipped: np.ndarray
    #: the experienced delay of all epochs (updated)
    experienced_delay: np.ndarray
    #: (T, B) int16, the epoch of each step (updated)
    epoch_of: np.ndarray
    #: ln K
    lnK: float
    #: the largest epoch, :data:`MAX_EPOCH`
    max_epoch: int


def corollary4_beta(n_arms: int, horizon: int, total_delay: float) -> float:
    r"""β = √((eKT/2 + (1 + 4e)D)/(16e² ln K)), the threshold of Corollary 4 (T and D known): it
    balances the two terms 4eβ ln K and (eKT/2 + (1 + 4e)D)/(4eβ) of Theorem 3's bound. The paper
    writes it √(((eKT/2 + D)/(4e) + D)/(4e ln K)), the same number (our reading of its display)."""
    K = check_int("n_arms", n_arms, low=2)
    T = check_int("horizon", horizon, low=1)
    D = float(check_real("total_delay", total_delay, low=0.0, ndim=(0,)))
    return math.sqrt((E * K * T / 2 + (1 + 4 * E) * D) / (16 * E * E * math.log(K)))


class Skipper(Policy):
    r"""Skipper(β, A) (Algorithm 2): the base algorithm only learns from losses with d_s < β.

    Records, per run, the skipped rounds |S_β| and the experienced delay D_β (see
    :meth:`snapshot`). With delays observed *with the loss*, Skipper learns that a round is
    skipped once it has waited ⌈β⌉ steps without news: ``skipped_`` at the end of step t counts
    the rounds s ≤ t − ⌈β⌉ + 1 with d_s ≥ β, and ``experienced_delay_`` sums the delays
    d_s < β that have arrived. Rounds whose loss would arrive after the horizon are unknown to
    the learner; the notebook computes |S_β| and D_β of a whole delay sequence exactly with
    :func:`skipped_and_experienced`.

    Parameters
    ----------
    beta : float or array
        Threshold β > 0 (one value per grid cell if an array).
    base : DEW, Exp3 or None
        The algorithm A; ``None`` for DEW(η = 1/(4eβ), d_max = β), the pairing of Theorem 3 and
        Corollary 4.
    """

    feedback = ("adversarial",)
    grid_params = ("beta",)

    def __init__(self, beta=10.0, base=None):
        self.beta = beta
        self.base = base

    @classmethod
    def corollary4(cls, n_arms: int, horizon: int, delays) -> "Skipper":
        """Skipper(β, DEW(1/(4eβ), β)) with Corollary 4's β (:func:`corollary4_beta`), from
        the delays (T and D known)."""
        d = check_real("delays", delays, low=0.0, ndim=(1,))[:horizon]
        return cls(beta=corollary4_beta(n_arms, horizon, d.sum()))

    @staticmethod
    def without_skipping(beta=10.0, eta=None) -> DEW:
        """Skipper(β, DEW(η, β)) with the skipping switched off, and nothing else changed: its base
        DEW(η, d_max = β), learning at the same rate η' = min(η, 1/(4eβ)) (η = 1/(4eβ) when
        ``eta`` is None) from the same draws, but fed every loss, however late.

        The comparison that credits a gap to skipping (:data:`NO_SKIP`). The paper's Theorem 1 does
        not cover it: its delays exceed the d_max = β its rate is truncated for. That is a condition
        of the paper's proof; other analyses (Bistritz et al., NeurIPS 2019) bound Exp3 that uses
        each loss on arrival, the delays unknown to the player (their abstract)."""
        b = check_real("beta", beta, low=0.0, low_open=True, ndim=(0, 1))
        rate = 1.0 / (4 * E * b) if eta is None else eta
        return DEW(eta=rate if b.ndim else float(rate), dmax=b if b.ndim else float(b))

    @property
    def label(self):
        return "Skipper"

    def n_cells(self):
        out = super().n_cells()
        if self.base is not None:
            out.update({f"base.{k}": v for k, v in self.base.n_cells().items()})
        return out

    def reset(self, problem):
        self._beta = self.column("beta", low=0.0, low_open=True)
        if self.base is None:
            beta = check_real("beta", self.beta, low=0.0, low_open=True, ndim=(0, 1))
            base = DEW(eta=1.0 / (4 * E * beta) if beta.ndim else 1.0 / (4 * E * float(beta)),
                       dmax=beta if beta.ndim else float(beta))
        elif isinstance(self.base, DEW):
            base = self.base.clone()
        else:
            raise ValueError(f"base must be a DEW or Exp3 policy (or None); got {self.base!r}")
        self.base_ = base.start(problem)
        B = problem.size
        beta_col = np.broadcast_to(np.asarray(self._beta, dtype=float).reshape(-1), (B,))
        self._wait = np.ceil(beta_col).astype(np.int64)  # ⌈β⌉: d_s ≥ β ⟺ d_s ≥ ⌈β⌉
        self._beta_run = beta_col
        self._kept_delay = np.full((problem.horizon, B), -1.0)  # d_s of the losses given to the base
        self.last_step_ = -1  # the last step learned from

    def choose(self, t, context=None):
        return self.base_.choose(t, context)

    def update(self, t, arms, feedback):
        self.base_.record_pull(t, arms)
        self.last_step_ = t
        if len(feedback):
            d = feedback.delay
            keep = d < self._beta_run[feedback.run]
            if keep.any():
                self._kept_delay[feedback.step[keep], feedback.run[keep]] = d[keep]
                self.base_.observe(feedback, keep)

    def kernel_state(self) -> SkipperState:
        """The state the compiled kernel works on (see :class:`SkipperState`)."""
        return SkipperState(np.array(self._beta_run, dtype=float, order="C"), self._kept_delay)

    # the counts are derived from the kept delays when asked (at checkpoints), not at every step
    def _counts(self):
        t = self.last_step_
        kept = self._kept_delay[: t + 1] >= 0
        observed = kept.sum(axis=0)
        experienced = np.where(kept, self._kept_delay[: t + 1], 0.0).sum(axis=0)
        # round s is known to be skipped at the end of step t when s ≤ t − ⌈β⌉ + 1 and it was not kept
        # (a kept loss arrives within ⌈β⌉ − 1 steps)
        n = np.clip(t - self._wait + 2, 0, t + 1)
        ck = np.vstack([np.zeros((1, kept.shape[1]), dtype=np.int64), np.cumsum(kept, axis=0)])
        skipped = n - ck[n, self._cols]
        return skipped, experienced, observed

    @property
    def skipped_(self):
        """|S_β| known at the end of the last step: rounds that waited ⌈β⌉ steps without their loss."""
        return self._counts()[0]

    @property
    def experienced_delay_(self):
        """D_β known so far: the sum of the delays d_s < β of the losses given to the base."""
        return self._counts()[1]

    def snapshot(self):
        out = self.base_.snapshot()
        skipped, experienced, observed = self._counts()
        out.update(skipped=skipped, experienced_delay=experienced, observed=observed)
        return out


class Doubling(Policy):
    r"""Skipper(β_m, DEW(η_m, β_m)) tuned by the Doubling scheme of Section 4.1 (Eqs. 5–6).

    Needs the delays at action time (``AdversarialLosses(..., reveal="at_action")``): the
    context of step t is d_t. No hyperparameter: T and D need not be known. Theorem 6 bounds
    its regret by 15 min_β {|S_β| + 4eβ ln K + (KT + D_β)/(4eβ)} + 10e²K ln K + 5.

    Learned state, per run: the epoch ``epoch_`` (m), ``beta_`` (β_m), ``epoch_start_``,
    ``epoch_length_`` (σ(m)), ``epoch_skipped_`` (|S^m_β|), ``epoch_delay_`` (D^m_β), and over all
    epochs ``skipped_`` and ``experienced_delay_``.
    """

    feedback = ("adversarial",)

    def __init__(self):
        pass

    @property
    def label(self):
        return "Doubling"

    @staticmethod
    def beta_of(m, n_arms: int):
        """β_m = √ω_m/(4e ln K), ω_m = 2^m (Eq. 5, our reading: the root covers ω_m only; see
        docs/readings.md)."""
        return np.sqrt(np.exp2(m)) / (4 * E * math.log(n_arms))

    def reset(self, problem):
        B, K = problem.size, problem.n_arms
        self._lnK = math.log(K)
        self.base_ = DEW(eta=1.0).start(problem)
        self.epoch_ = np.zeros(B, dtype=np.int64)
        self.beta_ = self.beta_of(self.epoch_, K)
        self.base_.set_rate(1.0 / (4 * E * self.beta_))  # η_m = 1/(4eβ_m); η' = η_m (d_max = β_m)
        self.epoch_start_ = np.zeros(B, dtype=np.int64)
        self.epoch_length_ = np.zeros(B, dtype=np.int64)
        self.epoch_skipped_ = np.zeros(B, dtype=np.int64)
        self.epoch_delay_ = np.zeros(B)
        self.skipped_ = np.zeros(B, dtype=np.int64)
        self.experienced_delay_ = np.zeros(B)
        self._epoch_of = np.zeros((problem.horizon, B), dtype=np.int16)  # epoch of each step

    def kernel_state(self) -> DoublingState:
        """The state the compiled kernel works on (see :class:`DoublingState`)."""
        return DoublingState(self.beta_, self.epoch_, self.epoch_start_, self.epoch_length_, self.epoch_skipped_,
                             self.epoch_delay_, self.skipped_, self.experienced_delay_, self._epoch_of,
                             float(self._lnK), MAX_EPOCH)

    def condition(self, length, skipped, delay, epoch):
        """Eq. (6): max{|S^m_β|², (eKσ(m)/2 + D^m_β) ln K} ≤ ω_m."""
        K = self.problem_.n_arms
        lhs = np.maximum(np.square(skipped, dtype=float), (E * K * length / 2 + delay) * self._lnK)
        return lhs <= np.exp2(epoch)

    def choose(self, t, context=None):
        if context is None:
            raise ValueError("Doubling needs the delays at action time: use "
                             "AdversarialLosses(..., reveal='at_action')")
        d = np.asarray(context, dtype=float)
        skip = d >= self.beta_
        length, skipped = self.epoch_length_ + 1, self.epoch_skipped_ + skip
        delay = self.epoch_delay_ + np.where(skip, 0.0, d)
        stay = self.condition(length, skipped, delay, self.epoch_)
        if not stay.all():  # new epochs, starting with round t, until Eq. (6) holds
            new = np.nonzero(~stay)[0]
            m = self.epoch_[new]
            dn = d[new]
            while new.size:
                m = m + 1
                b = self.beta_of(m, self.problem_.n_arms)
                sk = dn >= b
                ok = self.condition(1, sk, np.where(sk, 0.0, dn), m) | (m >= MAX_EPOCH)
                done = new[ok]
                self.epoch_[done], self.beta_[done] = m[ok], b[ok]
                skip[done], length[done], skipped[done] = sk[ok], 1, sk[ok]
                delay[done] = np.where(sk[ok], 0.0, dn[ok])
                self.epoch_start_[done] = t
                new, m, dn = new[~ok], m[~ok], dn[~ok]
            restarted = np.nonzero(~stay)[0]
            self.base_.restart_runs(restarted)
            self.base_.set_rate(1.0 / (4 * E * self.beta_[restarted]), restarted)
        self.epoch_length_, self.epoch_skipped_, self.epoch_delay_ = length, skipped, delay
        self.skipped_ += skip
        self.experienced_delay_ += np.where(skip, 0.0, d)
        self._epoch_of[t] = self.epoch_
        return self.base_.choose(t)

    def update(self, t, arms, feedback):
        self.base_.record_pull(t, arms)
        if len(feedback):
            run = feedback.run
            keep = (self._epoch_of[feedback.step, run] == self.epoch_[run]) & (feedback.delay < self.beta_[run])
            if keep.any():
                self.base_.observe(feedback, keep)

    def snapshot(self):
        out = self.base_.snapshot()
        out.update(epoch=self.epoch_.copy(), beta=self.beta_.copy(), epoch_start=self.epoch_start_.copy(),
                   epoch_length=self.epoch_length_.copy(), skipped=self.skipped_.copy(),
                   experienced_delay=self.experienced_delay_.copy())
        return out


def skipped_and_experienced(delays, beta):
    r"""|S_β| = #{t : d_t ≥ β} and D_β = Σ_{t ∉ S_β} d_t of a delay sequence, for each β.

    Parameters
    ----------
    delays : array (T,)
    beta : float or array of thresholds

    Returns
    -------
    (skipped, experienced) with the shape of ``beta``.
    """
    d = np.sort(check_real("delays", delays, low=0.0, ndim=(1,)))
    b = check_real("beta", beta, low=0.0, low_open=True)
    kept = np.searchsorted(d, b, side="left")  # number of d_t < β
    csum = np.concatenate([[0.0], np.cumsum(d)])
    return d.size - kept, csum[kept]
