"""Uniform random play (:class:`~delaylab.policies.simple.UniformRandom`) in every setting.

Every regret figure of the workbook draws uniform random play beside the algorithms it compares
(:func:`~delaylab.policies.simple.with_uniform`); without a kernel it was the one curve of a
figure paid step by step in Python. The arm of step t in run b is ⌊U K⌋ (at most K − 1), U the
policy's own uniform of that step and run (:meth:`UniformRandom.uniforms`), as
:meth:`UniformRandom.choose`; the pull, its regret and its feedback's scheduling are those of the
setting's block (``pull``), and the feedback arriving at the end of the step is taken out of the
calendar unread: uniform play learns nothing.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..policies.simple import UniformRandom
from ..settings.adversarial import AdversarialLosses
from ..settings.linear import LinearConversions
from . import _env
from ._env import calendar_arrays, play, schedule, writable
from .exp_weights import LossDraws  # the adversarial block as every kernel reads it

BERNOULLI, ADVERSARIAL, LINEAR = 0, 1, 2


@njit(cache=True, inline="always")
def arm_of(v, K):
    """UniformRandom.choose for one run: ⌊v K⌋, at most K − 1."""
    return min(int(v * K), K - 1)


@njit(cache=True)
def bernoulli_kernel(i0, i1, t0, draws, cal, cum, out, pulls, v):
    """Uniform play on a Bernoulli setting's :class:`~._env.Draws`; ``v`` (i1 − i0, B): its uniforms."""
    u, delays, theta, gap, kind, window, T = draws
    head, nxt, cal_arm, cal_value, with_values = cal
    B, K = theta.shape
    Wc = head.shape[0]
    for i in range(i0, i1):
        t = t0 + i
        slot = t % Wc
        for b in range(B):
            a = arm_of(v[i - i0, b], K)
            play(i, i0, b, t, slot, a, pulls, cum, out, gap, u, delays, theta, kind, window, T, head, nxt,
                 cal_arm, cal_value, with_values)
            head[slot, b] = -1  # the arrivals of step t, taken out unread
    return i1


@njit(cache=True)
def adversarial_kernel(i0, i1, t0, draws, cal, cum, out, pulls, v):
    """Uniform play on :class:`LossDraws` (AdversarialBlock.pull)."""
    losses, delays, best, T = draws
    head, nxt, cal_arm, cal_value, with_values = cal
    B, K = pulls.shape
    Wc = head.shape[0]
    for i in range(i0, i1):
        t = t0 + i
        slot = t % Wc
        for b in range(B):
            a = arm_of(v[i - i0, b], K)
            pulls[b, a] += 1
            loss = losses[i, a]
            cum[b] += loss - losses[i, best]
            out[i - i0, b] = cum[b]
            d = delays[i, b]
            schedule(b, t, slot, a, d <= T - 1 - t, d, loss, head, nxt, cal_arm, cal_value, with_values)
            head[slot, b] = -1
    return i1


class LinearPulls(NamedTuple):
    """What uniform play reads of a block of :class:`~delaylab.LinearConversions` (row i: step t0 + i)."""

    #: (n, B) reward uniforms
    u: np.ndarray
    #: (n, B) int64 delays
    delays: np.ndarray
    #: (n, B, K) the actions' conversion probabilities
    means: np.ndarray
    #: (n, B) the best mean of each round
    best: np.ndarray
    #: the setting's censoring window, −1 for none
    window: int
    #: the horizon T
    T: int


@njit(cache=True)
def linear_kernel(i0, i1, t0, draws, cal, cum, out, pulls, v):
    """Uniform play on :class:`LinearPulls` (LinearBlock.pull)."""
    u, delays, means, best, window, T = draws
    head, nxt, cal_arm, cal_value, with_values = cal
    B, K = pulls.shape
    Wc = head.shape[0]
    for i in range(i0, i1):
        t = t0 + i
        slot = t % Wc
        for b in range(B):
            a = arm_of(v[i - i0, b], K)
            mean = means[i, b, a]
            pulls[b, a] += 1
            cum[b] += best[i, b] - mean
            out[i - i0, b] = cum[b]
            d = delays[i, b]
            due = u[i, b] < mean and (window < 0 or d <= window) and d <= T - 1 - t
            schedule(b, t, slot, a, due, d, 0.0, head, nxt, cal_arm, cal_value, with_values)
            head[slot, b] = -1
    return i1


class UniformKernel:
    """The kernel of :class:`UniformRandom`: :meth:`run` as :meth:`._env.Kernel.run`."""

    max_batch = None

    def __init__(self, policy, setting, problem, calendar):
        self.policy, self.calendar = policy, calendar
        self.B, self.T = problem.size, int(problem.horizon)
        if isinstance(setting, AdversarialLosses):
            self.kind, self.fn = ADVERSARIAL, adversarial_kernel
        elif isinstance(setting, LinearConversions):
            self.kind, self.fn = LINEAR, linear_kernel
            self.window = -1 if setting.window is None else int(setting.window)
        else:
            self.kind, self.fn = BERNOULLI, bernoulli_kernel
            self.env = _env.Env(setting, problem)

    def draws(self, block):
        if self.kind == ADVERSARIAL:
            return LossDraws(writable(block.losses), writable(block.delays, np.int64), int(block.ep.best), self.T)
        if self.kind == LINEAR:
            return LinearPulls(writable(block.u), writable(block.delays, np.int64), writable(block.means),
                               writable(block.best), self.window, self.T)
        return self.env.draws(block)

    def run(self, block, t0, i0, i1, cum, pulls):
        out = np.empty((i1 - i0, self.B))
        self.fn(int(i0), int(i1), int(t0), self.draws(block), calendar_arrays(self.calendar), cum, out, pulls,
                writable(self.policy.uniforms(t0 + i0, t0 + i1)))
        return out


def make(policy, setting, problem, calendar):
    """The kernel of ``policy`` if it is uniform random play (the exact class: a subclass may
    choose otherwise) on a setting whose blocks the kernels read, else None."""
    if type(policy) is not UniformRandom:
        return None
    if isinstance(setting, (AdversarialLosses, LinearConversions)) or _env.supported(setting):
        return UniformKernel(policy, setting, problem, calendar)
    return None
