r"""Linear bandits with delayed, censored conversions (Vernade et al. 2020, Section 3).

Each round t the learner receives a set of K actions a ∈ R^d, plays one, A_t, and the
environment draws a conversion X_t ~ Bernoulli(⟨A_t, θ⟩) and a delay D_t from a law that does
not depend on the action. A conversion is revealed at the end of step t + D_t if D_t ≤ m (the
window); zeros are never revealed. The learner sees which of its past actions converted (the
``arm`` of an arrival is the index of the action in that round's set).

Pseudo-regret per round: max_{a ∈ 𝒜_t} ⟨a, θ⟩ − ⟨A_t, θ⟩ (Eq. 1).
"""

from __future__ import annotations

import numpy as np

from .._validate import check_cells, check_int, check_real, check_window
from ..laws import as_law
from ..streams import ENVIRONMENT, Batch, RunStreams
from .base import Block, Episode, Pull, Setting, law_span

_MAX_BINARY_DIM = 52  # integers below 2**52 are exact in double precision


def binary_actions(u: np.ndarray) -> np.ndarray:
    """Actions drawn uniformly from {0, 1}^d without the zero vector, normalised to norm 1.

    ``u`` has shape (..., K, d); only ``u[..., 0]`` is used: it picks an integer in
    [1, 2^d − 1] whose binary digits are the action (the paper's experiments, Section 8).
    """
    d = u.shape[-1]
    n = 1 + np.floor(u[..., 0] * (2.0**d - 1)).astype(np.int64)
    bits = ((n[..., None] >> np.arange(d)) & 1).astype(float)
    return bits / np.sqrt(bits.sum(axis=-1, keepdims=True))


class LinearConversions(Setting):
    r"""Linear conversions: K actions in R^d per round, Bernoulli(⟨a, θ⟩) conversions, delays.

    Parameters
    ----------
    theta : array (d,) or (G, d)
        The unknown parameter, ‖θ‖ ≤ 1 (one row per grid cell for a 2-d array). The paper uses
        θ = (1/√d, …, 1/√d).
    delays : DelayLaw
        Law of the delays, i.i.d. and independent of the actions (e.g. ``dl.criteo(100)``).
    n_actions : int
        K ≥ 2 actions per round.
    window : int or None
        Censoring window m (None: uncensored).
    action_sets : "binary", array (K, d) or callable
        ``"binary"``: K actions drawn uniformly from {0,1}^d \ {0} and normalised (Section 8);
        an array: the same K actions every round; a callable: ``f(u) -> actions`` mapping
        uniforms of shape (..., K, d) to actions of the same shape (vectorised over steps and
        runs). Every action must have ⟨a, θ⟩ ∈ [0, 1].
    """

    feedback = "linear"

    def __init__(self, theta, delays, n_actions=10, window=None, action_sets="binary"):
        th = check_real("theta", theta, ndim=(1, 2))
        norms = np.linalg.norm(th, axis=-1)
        if np.any(norms > 1 + 1e-12):
            raise ValueError(f"theta must have norm ‖θ‖ ≤ 1; got ‖θ‖ = {np.max(norms):.4g}")
        self.theta = th
        self.dim = int(th.shape[-1])
        self.n_arms = check_int("n_actions", n_actions, low=2, high=10_000)
        self.law = as_law("delays", delays)
        self.window = check_window("window", window)
        self.n_cells = check_cells(
            "LinearConversions", {"theta": 1 if th.ndim == 1 else th.shape[0], "delays": self.law.n_cells}
        )
        self.action_sets = self._check_action_sets(action_sets)

    def _check_action_sets(self, action_sets):
        K, d = self.n_arms, self.dim
        if isinstance(action_sets, str):
            if action_sets != "binary":
                raise ValueError(f"action_sets must be 'binary', an array (K, d) or a callable; got {action_sets!r}")
            if d > _MAX_BINARY_DIM:
                raise ValueError(f"d = {d} is outside the range [1, {_MAX_BINARY_DIM}] of binary action sets")
            if np.any(self.theta < 0):
                raise ValueError("binary action sets need theta ≥ 0 entrywise (else some ⟨a, θ⟩ < 0)")
            return "binary"
        if callable(action_sets):
            probe = action_sets(np.random.default_rng(0).random((4, 1, K, d)))
            self.check_actions(np.asarray(probe, dtype=float), (4, 1, K, d))
            return action_sets
        arr = check_real("action_sets", action_sets, ndim=(2,))
        if arr.shape != (K, d):
            raise ValueError(f"action_sets must have shape (n_actions, d) = {(K, d)}; got {arr.shape}")
        self.check_actions(arr, (K, d))
        return arr

    def check_actions(self, actions, shape):
        """Raise a ValueError unless ``actions`` has ``shape`` and every action a has a mean
        ⟨a, θ⟩ in [0, 1] (for each grid cell's θ): checks the sets ``action_sets`` gives, when
        the setting is made and, for a callable, at every draw."""
        if actions.shape != shape:
            raise ValueError(f"action_sets returned shape {actions.shape}; expected {shape}")
        th = self.theta if self.theta.ndim == 1 else self.theta[:, None, None, None, :]
        means = np.sum(actions * th, axis=-1)
        if np.any(~np.isfinite(means)) or np.any(means < -1e-12) or np.any(means > 1 + 1e-12):
            bad = means[(means < 0) | (means > 1) | ~np.isfinite(means)].ravel()[0]
            raise ValueError(f"action_sets gives an action with mean ⟨a, θ⟩ = {bad:.4g} outside [0, 1]")

    def actions(self, u: np.ndarray) -> np.ndarray:
        """Action sets from uniforms of shape (..., K, d)."""
        if isinstance(self.action_sets, str):
            return binary_actions(u)
        if callable(self.action_sets):
            return np.asarray(self.action_sets(u), dtype=float)
        return np.broadcast_to(self.action_sets, u.shape)

    def span(self, horizon):
        return law_span([self.law], self.window, horizon)

    def episode(self, batch: Batch, horizon: int, seed: int) -> Episode:
        return _LinearEpisode(self, batch, seed)

    @property
    def label(self):
        m = "uncensored" if self.window is None else f"m={self.window}"
        return f"LinearConversions(d={self.dim}, K={self.n_arms}, {self.law.label}, {m})"


class _LinearEpisode(Episode):
    def __init__(self, s: LinearConversions, batch: Batch, seed: int):
        self.s = s
        self.theta = batch.expand(s.theta, s.theta.ndim == 2)  # (B, d) or (d,)
        self.cells, self.cols = batch.cells, np.arange(batch.size)
        self.streams = RunStreams(seed, batch, ENVIRONMENT)

    def draw(self, t0, n):
        K, d = self.s.n_arms, self.s.dim
        u = self.streams.uniform(n, (2 + K * d,))
        actions = self.s.actions(u[..., 2:].reshape(u.shape[:2] + (K, d)))
        if callable(self.s.action_sets):
            self.s.check_actions(actions, u.shape[:2] + (K, d))
        if self.theta.ndim == 1:
            means = actions @ self.theta
        else:
            means = np.einsum("nbkd,bd->nbk", actions, self.theta)
        delays = self.s.law.ppf_unchecked(u[..., 1], self.cells)
        return _LinearBlock(self, actions, means, u[..., 0], delays)


class _LinearBlock(Block):
    def __init__(self, ep, actions, means, u_reward, delays):
        self.ep, self.actions, self.means, self.u, self.delays = ep, actions, means, u_reward, delays
        self.best = means.max(axis=-1)

    def context(self, i):
        """The action set of the round, shape (B, K, d)."""
        return self.actions[i]

    def pull(self, i, arms):
        mean = self.means[i, self.ep.cols, arms]
        reward = self.u[i] < mean
        delay = self.delays[i]
        m = self.ep.s.window
        revealed = reward if m is None else reward & (delay <= m)
        return Pull(self.best[i] - mean, delay, revealed, None)
