"""Base class of all learners, and what a learner is told about the problem.

Learners follow scikit-learn's conventions: the constructor only stores keyword
hyperparameters, they are validated when a simulation starts (before any step runs), and state
learned during a run has a trailing underscore (``pulls_``, ``successes_``, …).

A learner acts for a whole batch of independent runs at once: ``choose`` returns one arm per
run (shape (B,)) and ``update`` receives the batch's feedback.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from .._validate import check_real
from ..streams import Batch, StepDraws

FEEDBACK_KINDS = ("conversions", "labelled", "anonymous", "linear", "adversarial")


def per_run(value, size: int) -> np.ndarray:
    """A hyperparameter as one float per run: a scalar, or a (B,) / (B, 1) array (as
    :meth:`Policy.column` gives per-cell values), as a writable C-contiguous (B,) array, the form
    the policies' ``kernel_state()`` hands to the compiled kernels (:mod:`delaylab.kernels`)."""
    x = np.asarray(value, dtype=float).reshape(-1)
    return np.array(np.broadcast_to(x, (size,)), dtype=float, order="C", copy=True)


def param_column(policy, name: str, batch: Batch, *, low=-np.inf, high=np.inf, low_open=False,
                 high_open=False):
    """Hyperparameter ``name`` of ``policy`` checked against the bounds, then a scalar (one value)
    or, one value per grid cell, that cell's value in each column of ``batch``, shaped (B, 1).

    A policy reads its own hyperparameters this way when it starts (``Policy.column``); a policy
    that runs another as its base reads the base's the same way (:class:`~.qpmd.QPMD`).
    """
    v = check_real(name, getattr(policy, name), low=low, high=high, low_open=low_open,
                   high_open=high_open, ndim=(0, 1))
    if v.ndim == 0:
        return float(v)
    if v.shape[0] != batch.n_cells:
        raise ValueError(f"{name} has {v.shape[0]} values but the grid has {batch.n_cells} cells")
    return batch.expand(v, True)[:, None]


@dataclass
class Problem:
    """What a learner knows before the first step.

    Attributes
    ----------
    n_arms : int
        K, the number of arms (actions per round in the linear setting).
    horizon : int
        T, the number of steps (policies that need it, e.g. Patient Bandits, may use it).
    feedback : str
        The kind of feedback the setting reveals (see :data:`FEEDBACK_KINDS`).
    window : int or None
        The setting's censoring window: feedback later than this is never revealed.
    dim : int or None
        Dimension d of the actions (linear setting).
    batch : Batch
        The runs simulated together (columns = grid cells × run indices).
    seed : int
        Seed of the simulation (for the policy's own random streams).
    """

    n_arms: int
    horizon: int
    feedback: str
    window: int | None
    dim: int | None
    batch: Batch
    seed: int
    #: no feedback waits longer than span − 1 steps (the setting's calendar span; None: the horizon)
    span: int | None = None

    @property
    def size(self) -> int:
        """B, the number of columns (runs) of the batch."""
        return self.batch.size

    def random(self, name: str, shape: tuple = (), kind: str = "uniform") -> StepDraws:
        """The policy's own random numbers: ``draws(t)`` has shape (B,) + shape.

        Streams are keyed by (seed, run index, name): a run's draws do not depend on the batch.
        """
        return StepDraws(self.seed, self.batch, name, shape, kind)


class Policy:
    """Base class of learners.

    Subclasses declare the settings they can learn from in ``feedback`` and implement
    ``reset(problem)``, ``choose(t, context)`` and ``update(t, arms, feedback)``. Numeric
    hyperparameters may be given one value per grid cell (a 1-d array): see :meth:`column`.

    A learner with a compiled kernel (:mod:`delaylab.kernels`) also declares the state that
    kernel works on: ``kernel_state()`` returns a ``typing.NamedTuple`` of its own arrays (updated
    in place by the kernel) and of its parameters as scalars or per-run arrays (:func:`per_run`),
    for example :class:`delaylab.policies.ucb.BlindIndexState`. The kernel reads nothing else.
    """

    #: feedback kinds this learner can use
    feedback: tuple[str, ...] = ()
    #: hyperparameters that may take one value per grid cell
    grid_params: tuple[str, ...] = ()

    # ---------------------------------------------------------------- parameters
    @classmethod
    def _param_names(cls) -> list[str]:
        names = cls.__dict__.get("_init_params")  # the class's own: a subclass has its own __init__'s
        if names is None:
            names = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
            cls._init_params = names
        return list(names)

    def get_params(self) -> dict:
        """The hyperparameters given to the constructor."""
        return {k: getattr(self, k) for k in self._param_names()}

    def clone(self) -> "Policy":
        """A fresh, unstarted copy with the same hyperparameters."""
        return type(self)(**self.get_params())

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    @property
    def label(self) -> str:
        """Name used in legends (the paper's name for the algorithm)."""
        return type(self).__name__

    def n_cells(self) -> dict[str, int]:
        """Number of grid cells of each per-cell hyperparameter (1 when shared)."""
        out = {}
        for k in self.grid_params:
            v = getattr(self, k)
            if isinstance(getattr(v, "n_cells", None), int):  # a delay law
                out[k] = v.n_cells
            elif isinstance(v, (list, tuple)) and all(isinstance(getattr(x, "n_cells", None), int) for x in v):
                out.update({f"{k}[{i}]": x.n_cells for i, x in enumerate(v)})
            elif isinstance(v, (list, tuple, np.ndarray)) and np.ndim(v) == 1:
                out[k] = len(v)
        return out

    # ---------------------------------------------------------------- lifecycle
    def start(self, problem: Problem) -> "Policy":
        """Validate the hyperparameters against the problem and reset the learned state."""
        if problem.feedback not in self.feedback:
            raise ValueError(
                f"{type(self).__name__} learns from {' or '.join(self.feedback)} feedback; "
                f"the setting reveals {problem.feedback} feedback"
            )
        self.problem_ = problem
        self._cols = np.arange(problem.size)
        self._flat = self._cols * problem.n_arms  # flat index of (run, arm 0) in (B, K) arrays
        self.reset(problem)
        return self

    def reset(self, problem: Problem) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def choose(self, t: int, context=None) -> np.ndarray:  # pragma: no cover - abstract
        """Arms to pull at step t (0-based), shape (B,)."""
        raise NotImplementedError

    def update(self, t: int, arms: np.ndarray, feedback) -> None:  # pragma: no cover - abstract
        """Learn from the pulls of step t and the feedback revealed at its end."""
        raise NotImplementedError

    def snapshot(self) -> dict:
        """Arrays describing the current state (recorded when ``simulate(trace=True)``)."""
        return {}

    # ---------------------------------------------------------------- helpers
    def column(self, name: str, *, low=-np.inf, high=np.inf, low_open=False, high_open=False):
        """Hyperparameter ``name`` checked, then shaped (B, 1) if per cell, else a scalar (see
        :func:`param_column`)."""
        return param_column(self, name, self.problem_.batch, low=low, high=high, low_open=low_open,
                            high_open=high_open)

    def _onehot(self, arms: np.ndarray) -> np.ndarray:
        """1{A_t = k} as a (B, K) float array."""
        out = np.zeros((self._cols.size, self.problem_.n_arms))
        out.reshape(-1)[self._flat + arms] = 1.0
        return out
