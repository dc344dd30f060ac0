r"""Oblivious adversarial bandits with delays (Thune, Cesa-Bianchi, Seldin 2019, Section 2).

K loss sequences ℓ_t(a) ∈ [0, 1] and a delay sequence d_t are fixed before the game. At round t
the learner picks A_t and suffers ℓ_t(A_t); the pair (t, ℓ_t(A_t)) is observed at the end of
round t + d_t. The delay is observed either with the loss ("at observation time") or at the
beginning of round t, before acting ("at action time", needed by the Doubling scheme).

Regret is measured against the best fixed arm in hindsight over the horizon T:
R_t = Σ_{s ≤ t} ℓ_s(A_s) − Σ_{s ≤ t} ℓ_s(a*), with a* = argmin_a Σ_{s ≤ T} ℓ_s(a).
"""

from __future__ import annotations

import numpy as np

from .._validate import check_choice, check_real
from ..laws import DelayLaw, as_law
from ..streams import ENVIRONMENT, Batch, RunStreams
from .base import Block, Episode, Pull, Setting, law_span


class AdversarialLosses(Setting):
    """Oblivious adversarial losses with a sequence of delays.

    Parameters
    ----------
    losses : array (T0, K)
        ℓ_t(a) ∈ [0, 1] for t < T0 (the horizon of a simulation must not exceed T0).
    delays : int array (T0,) or DelayLaw
        The delay d_t ≥ 0 of each round (oblivious), or a law from which each run draws its
        own i.i.d. delay sequence.
    reveal : {"with_loss", "at_action"}
        When the learner learns d_t: with the loss, or at the start of round t.
    """

    feedback = "adversarial"

    def __init__(self, losses, delays, reveal="with_loss"):
        ell = check_real("losses", losses, low=0.0, high=1.0, ndim=(2,))
        if ell.shape[1] < 2:
            raise ValueError(f"losses must have at least 2 columns (arms); got shape {ell.shape}")
        self.losses = ell
        self.n_arms = int(ell.shape[1])
        if isinstance(delays, DelayLaw):
            self.delays = as_law("delays", delays)
            if delays.n_cells != 1:
                raise ValueError("delays: per-cell delay laws are not supported for adversarial losses")
        else:
            d = check_real("delays", delays, low=0.0, ndim=(1,), allow_inf=True)  # inf: never
            if np.any(d != np.floor(d)):
                raise ValueError("delays must be whole numbers of steps ≥ 0")
            if d.shape[0] < ell.shape[0]:
                raise ValueError(f"delays must give one delay per round: {ell.shape[0]} needed, got {d.shape[0]}")
            self.delays = np.minimum(d, 2.0**62).astype(np.int64)
        self.reveal = check_choice("reveal", reveal, {"with_loss", "at_action"})

    def check_horizon(self, horizon: int) -> None:
        if horizon > self.losses.shape[0]:
            raise ValueError(
                f"horizon = {horizon} exceeds the {self.losses.shape[0]} rounds of the loss sequence"
            )

    def best_arm(self, horizon: int) -> int:
        """a* = argmin_a Σ_{t < T} ℓ_t(a), the best fixed arm in hindsight."""
        return int(np.argmin(self.losses[:horizon].sum(axis=0)))

    def span(self, horizon):
        if isinstance(self.delays, DelayLaw):
            return law_span([self.delays], None, horizon)
        return int(max(1, min(horizon, self.delays[:horizon].max() + 1)))

    def episode(self, batch: Batch, horizon: int, seed: int) -> Episode:
        self.check_horizon(horizon)
        return _AdversarialEpisode(self, batch, horizon, seed)

    @property
    def label(self):
        d = self.delays.label if isinstance(self.delays, DelayLaw) else "delay sequence"
        return f"AdversarialLosses(K={self.n_arms}, {d}, delays {self.reveal.replace('_', ' ')})"


class _AdversarialEpisode(Episode):
    def __init__(self, s: AdversarialLosses, batch: Batch, horizon: int, seed: int):
        self.s, self.B, self.cells = s, batch.size, batch.cells
        self.best = s.best_arm(horizon)
        self.streams = RunStreams(seed, batch, ENVIRONMENT) if isinstance(s.delays, DelayLaw) else None

    def draw(self, t0, n):
        ell = self.s.losses[t0 : t0 + n]
        if self.streams is None:
            d = np.broadcast_to(self.s.delays[t0 : t0 + n, None], (n, self.B))
        else:
            d = self.s.delays.ppf_unchecked(self.streams.uniform(n), self.cells)
        return _AdversarialBlock(self, ell, d)


class _AdversarialBlock(Block):
    def __init__(self, ep, losses, delays):
        self.ep, self.losses, self.delays = ep, losses, delays

    def context(self, i):
        """The delay d_t of the round (B,) when delays are revealed at action time."""
        return self.delays[i] if self.ep.s.reveal == "at_action" else None

    def pull(self, i, arms):
        ell = self.losses[i]
        loss = ell[arms]
        return Pull(loss - ell[self.ep.best], self.delays[i], np.ones(arms.shape, bool), loss)
