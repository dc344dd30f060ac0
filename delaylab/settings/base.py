"""What every setting provides to the simulation engine.

A :class:`Setting` is the problem: arms, rewards or losses, delays, censoring, and what the
learner is shown. For a batch of runs it opens an :class:`Episode`, which draws the random
numbers of blocks of steps once (common to every policy) and answers, for any choice of arms,
what those pulls produce (:class:`Pull`).
"""

from __future__ import annotations

import numpy as np

from ..laws import DelayLaw, as_law
from ..streams import Batch


class Pull:
    """Outcome of one step's pulls for a batch of runs (arrays of shape (B,)).

    ``regret``: instantaneous pseudo-regret Δ_{A_t}; ``delay``: delay of the feedback (int64,
    NEVER for never); ``revealed``: whether the feedback will be revealed after its delay (not
    censored); ``value``: the reward or loss it carries (None for conversions).
    """

    __slots__ = ("regret", "delay", "revealed", "value")

    def __init__(self, regret, delay, revealed, value):
        self.regret, self.delay, self.revealed, self.value = regret, delay, revealed, value


class Block:
    """The draws of steps [t0, t0 + n) for a batch; see :meth:`Episode.draw`."""

    def context(self, i: int):
        """What the learner sees before choosing at step t0 + i (None if nothing)."""
        return None

    def pull(self, i: int, arms: np.ndarray) -> Pull:  # pragma: no cover - abstract
        raise NotImplementedError

    def pull_many(self, i: int, h: int, arms: np.ndarray) -> Pull:
        """The pulls of steps t0 + i … t0 + i + h − 1, all of the same ``arms``: arrays (h, B).

        Used by the engine's optional block path (:mod:`delaylab.engine`); settings may override
        it with a vectorised version giving the same numbers.
        """
        outs = [self.pull(i + j, arms) for j in range(h)]
        value = None if outs[0].value is None else np.stack([o.value for o in outs])
        return Pull(np.stack([o.regret for o in outs]), np.stack([o.delay for o in outs]),
                    np.stack([o.revealed for o in outs]), value)


class Episode:
    """A setting instantiated for a batch of runs over a horizon."""

    def draw(self, t0: int, n: int) -> Block:  # pragma: no cover - abstract
        raise NotImplementedError


class Setting:
    """Base class of the five feedback settings.

    Attributes
    ----------
    feedback : str
        What is revealed: ``"conversions"``, ``"labelled"``, ``"anonymous"``, ``"linear"`` or
        ``"adversarial"``. A policy declares the kinds it can learn from.
    n_arms : int
        Number of arms K (actions per round in the linear setting).
    window : int or None
        Censoring window m: feedback later than m steps is never revealed (None: uncensored).
    n_cells : int
        Number of grid cells (1 unless some parameter has one value per cell).
    """

    feedback: str = ""
    n_arms: int
    window: int | None = None
    n_cells: int = 1
    dim: int | None = None

    def span(self, horizon: int) -> int:
        """Steps a pending feedback may wait before being revealed, plus one (≤ horizon)."""
        return horizon

    def episode(self, batch: Batch, horizon: int, seed: int) -> Episode:  # pragma: no cover
        raise NotImplementedError

    @property
    def label(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        try:
            return self.label
        except AttributeError:  # while being constructed
            return type(self).__name__


def check_delays(delays, n_arms: int, name: str = "delays") -> list[DelayLaw]:
    """One law for every arm, or a list with one law per arm → list of K laws."""
    if isinstance(delays, DelayLaw):
        return [delays] * n_arms
    if isinstance(delays, (list, tuple)):
        if len(delays) != n_arms:
            raise ValueError(
                f"{name} must be one delay law or a list of {n_arms} laws (one per arm); "
                f"got a list of {len(delays)}"
            )
        return [as_law(f"{name}[{i}]", d) for i, d in enumerate(delays)]
    as_law(name, delays)
    raise AssertionError  # pragma: no cover


def law_span(laws, window, horizon: int) -> int:
    """Calendar span: no feedback waits longer than the window, the horizon or the laws' support."""
    span = horizon if window is None else min(horizon, window + 1)
    sat = max(law.saturation_lag(span) for law in set(laws))
    return max(1, min(span, sat + 1))
