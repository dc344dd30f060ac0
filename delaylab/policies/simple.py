"""Non-adaptive policies, usable on every setting: for tests, calibration and teaching.

A fixed, non-adaptive pull sequence is what the unbiasedness statements of the papers are about
(e.g. Lemma 7 of Vernade et al. 2017): :class:`FixedSequence` makes them testable.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_real
from .base import FEEDBACK_KINDS, Policy


class FixedSequence(Policy):
    """Play the arms of a sequence fixed in advance, ignoring all feedback.

    Parameters
    ----------
    arms : sequence of int
        A_0, A_1, …: at least ``horizon`` arms, each in [0, K).
    """

    feedback = FEEDBACK_KINDS

    def __init__(self, arms=()):
        self.arms = arms

    def reset(self, problem):
        a = check_real("arms", self.arms, low=0, high=problem.n_arms - 1, ndim=(1,))
        if np.any(a != np.floor(a)):
            raise ValueError("arms must be whole numbers (arm indices)")
        if a.size < problem.horizon:
            raise ValueError(f"arms lists {a.size} pulls; the horizon needs {problem.horizon}")
        self._seq = a.astype(np.int64)

    def choose(self, t, context=None):
        return np.full(self.problem_.size, self._seq[t], dtype=np.int64)

    def update(self, t, arms, feedback):
        pass


class RoundRobin(Policy):
    """Play arm t mod K at step t."""

    feedback = FEEDBACK_KINDS

    def __init__(self):
        pass

    def reset(self, problem):
        pass

    def choose(self, t, context=None):
        return np.full(self.problem_.size, t % self.problem_.n_arms, dtype=np.int64)

    def update(self, t, arms, feedback):
        pass


#: The name under which every regret figure of the workbook draws :class:`UniformRandom`: the
#: reference a learner must beat (a policy above it does worse than not learning at all).
UNIFORM = "uniform random play"


class UniformRandom(Policy):
    """Play an arm drawn uniformly at random (from the run's own stream).

    Every regret figure of the workbook draws it as :data:`UNIFORM` (:func:`with_uniform`), on
    the same draws as the algorithms it compares.
    """

    feedback = FEEDBACK_KINDS

    def __init__(self):
        pass

    def reset(self, problem):
        self._u = problem.random("UniformRandom")

    def choose(self, t, context=None):
        K = self.problem_.n_arms
        return np.minimum((self._u(t) * K).astype(np.int64), K - 1)

    def update(self, t, arms, feedback):
        pass

    def uniforms(self, t0: int, t1: int) -> np.ndarray:
        """The uniforms of steps t0 … t1 − 1, (t1 − t0, B), that :meth:`choose` reads (the
        compiled kernel's arms, :mod:`delaylab.kernels.uniform`)."""
        return self._u.rows(t0, t1)


def with_uniform(policies: dict) -> dict:
    """``policies`` (name → Policy) with uniform random play added as :data:`UNIFORM`, last: the
    reference curve of a regret figure. A dict that already holds it is returned as it is."""
    if UNIFORM in policies:
        return dict(policies)
    return {**policies, UNIFORM: UniformRandom()}
