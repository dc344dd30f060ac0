r"""K-armed Bernoulli bandits with delayed feedback, in three flavours of what is revealed.

All three draw, at each step t of each run, one uniform U_t for the reward and one V_t for the
delay; the pulled arm k then yields C_t = 1{U_t < θ_k} and D_t = F_k^{-1}(V_t) (inverse-CDF
sampling of arm k's delay law). Only the pulled arm's outcome matters in a bandit, so this
gives the right law for every policy while letting all policies share the same draws.

* :class:`Conversions` — Vernade, Cappé, Perchet (2017): only conversions (C = 1) are ever
  revealed, with their arm and pull time; a zero is never seen, so "no news" is ambiguous.
* :class:`LabelledRewards` — every reward, zero or not, is revealed with its arm after its
  delay (the setting of QPM-D, Joulani et al. 2013).
* :class:`AggregatedAnonymous` — Pike-Burke et al. (2018): at the end of each step, only the
  sum of the rewards arriving then, without arms.

Pseudo-regret: Δ_{A_t} = max_k θ_k − θ_{A_t} per step (``docs/readings.md``).
"""

from __future__ import annotations

import numpy as np

from .._validate import check_cells, check_probability, check_window
from ..streams import ENVIRONMENT, Batch, RunStreams
from .base import Block, Episode, Pull, Setting, check_delays, law_span


class BernoulliSetting(Setting):
    """Shared construction and draws of the three Bernoulli settings (the settings that the
    compiled kernels of :mod:`delaylab.kernels` simulate).

    Parameters
    ----------
    means : array (K,) or (G, K)
        Success probabilities θ_k ∈ [0, 1]; a 2-d array gives one row per grid cell.
    delays : DelayLaw or list of K DelayLaws
        The delay law of every arm, or one per arm (Manegueu et al. 2020).
    window : int or None
        Censoring window m ≥ 0: feedback with D > m is never revealed (None: uncensored).
    """

    def __init__(self, means, delays, window=None):
        theta = check_probability("means", means, ndim=(1, 2))
        if theta.shape[-1] < 2:
            raise ValueError(f"means must list at least 2 arms; got {theta.shape[-1]}")
        self.means = theta
        self.n_arms = int(theta.shape[-1])
        self.laws = check_delays(delays, self.n_arms)
        self.delays = delays
        self.window = check_window("window", window)
        sizes = {"means": 1 if theta.ndim == 1 else theta.shape[0]}
        sizes.update({f"delays[{i}]": law.n_cells for i, law in enumerate(self.laws)})
        self.n_cells = check_cells(type(self).__name__, sizes)

    @property
    def gaps(self) -> np.ndarray:
        """Δ_k = max_j θ_j − θ_k, shape (K,) or (G, K)."""
        return self.means.max(axis=-1, keepdims=True) - self.means

    def span(self, horizon):
        return law_span(self.laws, self.window, horizon)

    def episode(self, batch: Batch, horizon: int, seed: int) -> Episode:
        return _BernoulliEpisode(self, batch, horizon, seed)

    @property
    def label(self) -> str:
        th = self.means
        th_s = np.array2string(th, precision=3, separator=", ") if th.ndim == 1 else f"{th.shape[0]} cells"
        d = self.laws[0].label if all(law is self.laws[0] for law in self.laws) else "per-arm laws"
        m = "uncensored" if self.window is None else f"m={self.window}"
        return f"{type(self).__name__}(θ={th_s}, {d}, {m})"


class Conversions(BernoulliSetting):
    """Delayed conversions (Vernade et al. 2017, Section 2).

    Only conversions are revealed, with their arm and pull time; zeros never are, so a pull
    without news may be a zero or a conversion still on its way. Parameters as in
    :class:`BernoulliSetting`: ``means`` (K,) or (G, K), ``delays`` (one law or one per arm),
    ``window`` (censoring window m, None for the uncensored model).

    Examples
    --------
    >>> import delaylab as dl
    >>> env = dl.Conversions(means=[0.1, 0.05, 0.03], delays=dl.Geometric(mean=500), window=1000)
    """

    feedback = "conversions"


class LabelledRewards(BernoulliSetting):
    """Labelled delayed rewards: every reward, zero or not, is revealed with its arm after its
    delay (the setting of QPM-D, Joulani et al. 2013). Parameters as :class:`Conversions`."""

    feedback = "labelled"


class AggregatedAnonymous(BernoulliSetting):
    """Delayed, aggregated, anonymous feedback (Pike-Burke et al. 2018, Section 2): at the end
    of each step only the sum of the rewards arriving then is revealed, without arms or pull
    times. Parameters as :class:`Conversions`."""

    feedback = "anonymous"


class _BernoulliEpisode(Episode):
    def __init__(self, setting: BernoulliSetting, batch: Batch, horizon: int, seed: int):
        self.s = setting
        per_cell = setting.means.ndim == 2
        self.theta = batch.expand(setting.means, per_cell)  # (B, K) or (K,)
        self.gap = self.theta.max(axis=-1, keepdims=True) - self.theta
        self.per_cell = per_cell
        self.cells = batch.cells
        self.cols = np.arange(batch.size)
        self.streams = RunStreams(seed, batch, ENVIRONMENT)
        self.shared_law = all(law is setting.laws[0] for law in setting.laws)
        self.window = setting.window

    def draw(self, t0: int, n: int) -> Block:
        u = self.streams.uniform(n, (2,))
        if self.shared_law:
            delays = self.s.laws[0].ppf_unchecked(u[..., 1], self.cells)  # (n, B)
        else:
            delays = np.stack([law.ppf_unchecked(u[..., 1], self.cells) for law in self.s.laws], axis=-1)
        return BernoulliBlock(self, u[..., 0], delays)


class BernoulliBlock(Block):
    """A block of draws of a Bernoulli setting, for steps t0 … t0 + n − 1 of a batch of runs.

    Attributes (read by the compiled kernels, :mod:`delaylab.kernels`, as well as by :meth:`pull`):
    ``u`` (n, B), the reward uniforms (reward 1{U < θ_a}); ``delays`` (n, B) with one law for all
    arms, else (n, B, K); ``ep``, the episode, whose ``theta`` and ``gap`` (B, K), or (K,) when
    every run has the same means, give θ_k and Δ_k.
    """

    def __init__(self, ep: _BernoulliEpisode, u_reward: np.ndarray, delays: np.ndarray):
        self.ep, self.u, self.delays = ep, u_reward, delays

    def pull(self, i: int, arms: np.ndarray) -> Pull:
        ep = self.ep
        delay = self.delays[i] if ep.shared_law else self.delays[i, ep.cols, arms]
        return self._outcome(arms, self.u[i], delay)

    def pull_many(self, i: int, h: int, arms: np.ndarray) -> Pull:
        """:meth:`pull` for steps i … i + h − 1 with the same arms, vectorised: arrays (h, B)."""
        ep = self.ep
        delay = self.delays[i : i + h] if ep.shared_law else self.delays[i : i + h, ep.cols, arms]
        return self._outcome(arms, self.u[i : i + h], delay)

    def _outcome(self, arms, u, delay) -> Pull:
        """The pulls of ``arms`` given their reward uniforms ``u`` and delays (same shapes)."""
        ep = self.ep
        if ep.per_cell:
            theta_a, regret = ep.theta[ep.cols, arms], ep.gap[ep.cols, arms]
        else:
            theta_a, regret = ep.theta[arms], ep.gap[arms]
        reward = u < theta_a
        if regret.shape != reward.shape:  # several steps of the same arms
            regret = np.broadcast_to(regret, reward.shape)
        if ep.s.feedback == "conversions":  # only conversions, and only within the window
            return Pull(regret, delay, reward if ep.window is None else reward & (delay <= ep.window), None)
        in_window = np.ones(reward.shape, bool) if ep.window is None else delay <= ep.window
        return Pull(regret, delay, in_window, reward.astype(float))
