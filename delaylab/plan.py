"""A validated simulation plan: what :func:`~delaylab.simulate`, :func:`~delaylab.estimate` and
:func:`~delaylab.sweep` are asked to compute, checked once before any work.

:meth:`Plan.of` makes every check of the arguments (in the order the error messages are
documented and tested: tests/test_bad_inputs.py, tests/test_properties.py) and keeps what they
return. The plan then answers, once for all three entry points, the questions each of them asks
before or after the steps: the shape of the grid the results take, the :class:`Problem` a policy
is started on, the memory the result will hold, whether the recorded policy states fit
(``trace=True``), and the :class:`Result` built from the arrays.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._validate import check_bool, check_cells, check_choice, check_int, check_times
from .grid import Grid
from .policies.base import Policy, Problem
from .result import Result
from .settings.base import Setting
from .streams import Batch
from .summary import KEEP, Moments, check_memory, result_bytes

#: bound on the horizon
MAX_HORIZON = 10**8
#: bound on the number of runs
MAX_RUNS = 10**7


@dataclass(frozen=True, eq=False)
class Plan:
    """The checked arguments of a simulation (see :meth:`of`); the runs are ``run_ids``.

    Attributes
    ----------
    setting : Setting
    policies : dict name → Policy
        The learners, named (a list's labels, numbered when repeated).
    horizon : int
        T.
    run_ids : ndarray (R,)
        Distinct run indices ≥ 0, in the requested order.
    seed : int
    times : ndarray (n,)
        The checkpoints: increasing times in [1, T].
    cells : int
        G, the number of grid cells the per-cell parameters (and the grid) imply.
    grid : Grid or None
    trace : bool
    keep : "all" or "summary"
    """

    setting: Setting
    policies: dict
    horizon: int
    run_ids: np.ndarray
    seed: int
    times: np.ndarray
    cells: int
    grid: Grid | None = None
    trace: bool = False
    keep: str = "all"

    @classmethod
    def of(cls, setting, policies, horizon, runs, seed, checkpoints, grid, *, trace=False, keep="all") -> "Plan":
        """Check the arguments of :func:`~delaylab.simulate` (shared by ``estimate`` and ``sweep``):
        a ValueError naming the first bad one, its value and the valid range."""
        if not isinstance(setting, Setting):
            raise ValueError(f"setting must be a delaylab setting such as delaylab.Conversions(...); got {setting!r}")
        T = check_int("horizon", horizon, low=1, high=MAX_HORIZON)
        run_ids = _run_ids(runs)
        seed = check_int("seed", seed, low=0, high=2**63 - 1)
        named = _named(policies)
        sizes = {"setting": setting.n_cells}
        for name, pol in named.items():
            sizes.update({f"{name}.{k}": v for k, v in pol.n_cells().items()})
        if grid is not None:
            if not isinstance(grid, Grid):
                raise ValueError(f"grid must be a delaylab.grid(...); got {grid!r}")
            sizes["grid"] = grid.size
        G = check_cells("simulate", sizes)
        times = check_times("checkpoints", checkpoints, T)
        trace = check_bool("trace", trace)
        check_choice("keep", keep, KEEP)
        if trace and keep == "summary":
            raise ValueError("trace=True records each run's policy state: it needs keep='all' (got keep='summary')")
        if hasattr(setting, "check_horizon"):
            setting.check_horizon(T)
        return cls(setting, named, T, run_ids, seed, times, G, grid, trace, keep)

    # ------------------------------------------------------------------ shapes and sizes
    @property
    def shape(self) -> tuple:
        """The grid axes of every result array: the grid's shape, (G,) for per-cell parameters
        without a grid, () for a single cell."""
        if self.grid is not None:
            return self.grid.shape
        return (self.cells,) if self.cells > 1 else ()

    @property
    def columns(self) -> int:
        """Columns simulated in all: grid cells × runs."""
        return self.cells * len(self.run_ids)

    @cached_property
    def span(self):
        """The setting's calendar span for the horizon (:meth:`Setting.span`), computed at first use
        (after every check of the arguments)."""
        return self.setting.span(self.horizon)

    def result_bytes(self, keep: str) -> int:
        """Bytes of the result with ``keep`` ("all": every run; "summary": moments over runs)."""
        return result_bytes(len(self.policies), self.setting.n_arms, self.cells, len(self.run_ids),
                            len(self.times), keep)

    def check_memory(self, who: str, copies: int = 1) -> None:
        """Refuse, before any work, a result that would not fit in the available memory
        (``copies`` of it held at once, with keep="all")."""
        need = self.result_bytes(self.keep) * (copies if self.keep == "all" else 1)
        check_memory(who, need, self.keep, self.result_bytes("summary"), len(self.times))

    def check_trace(self, name: str, snapshot: dict, batch_size: int, budget: float) -> dict:
        """Refuse trace=True when recording policy ``name``'s state (``snapshot``, of a started
        policy on ``batch_size`` columns) at every checkpoint of every run would exceed ``budget``
        bytes (:data:`delaylab.engine.TRACE_BUDGET`, read by the caller at the time of the call).
        Returns {field: shape per column}."""
        state = {f: np.asarray(v) for f, v in snapshot.items()}
        per_column = sum(v.nbytes for v in state.values()) / batch_size
        need = per_column * self.columns * len(self.times)
        if need > budget:
            raise ValueError(
                f"trace=True would record the state of {name!r} at {len(self.times)} times: "
                f"{need / 2**30:.1f} GiB; pass fewer checkpoints (e.g. checkpoints=200)")
        return {f: v.shape[1:] for f, v in state.items()}

    # ------------------------------------------------------------------ the steps
    def problem(self, batch: Batch) -> Problem:
        """What a policy is started on for the columns of ``batch``."""
        s = self.setting
        return Problem(n_arms=s.n_arms, horizon=self.horizon, feedback=s.feedback, window=s.window, dim=s.dim,
                       batch=batch, seed=self.seed, span=int(self.span))

    def arguments(self) -> dict:
        """The keyword arguments of :func:`~delaylab.simulate` for this plan but ``runs`` (what a
        sweep sends to its workers, with each chunk's run indices)."""
        return dict(setting=self.setting, policies=self.policies, horizon=self.horizon, seed=self.seed,
                    checkpoints=self.times, trace=self.trace, grid=self.grid, keep=self.keep)

    # ------------------------------------------------------------------ results
    def shaped(self, m: Moments) -> Moments:
        """Moments of (G, …) → (*grid shape, …)."""
        shape = self.shape
        return Moments(m.n, m.mean.reshape(shape + m.mean.shape[1:]), m.m2.reshape(shape + m.m2.shape[1:]))

    def result(self, regret: dict, pulls: dict, traces: dict, **kw) -> Result:
        """The keep="all" result of arrays shaped (*grid shape, R, …), per policy name; ``kw``:
        ``elapsed``, ``notes``."""
        names = list(self.policies)
        return Result(times=self.times, regret={n: regret[n] for n in names}, pulls={n: pulls[n] for n in names},
                      traces={n: traces.get(n, {}) for n in names} if self.trace else {},
                      **self._about(), **kw)

    def summarised(self, summary: dict, **kw) -> Result:
        """The keep="summary" result of {name: {"regret": Moments, "pulls": Moments}}."""
        return Result.summarised(summary, times=self.times, **self._about(), **kw)

    def _about(self) -> dict:
        return dict(policies={k: v.clone() for k, v in self.policies.items()}, setting=self.setting,
                    horizon=self.horizon, run_ids=self.run_ids, seed=self.seed, grid_shape=self.shape)


def _run_ids(runs) -> np.ndarray:
    if isinstance(runs, numbers.Integral) or (isinstance(runs, float) and runs.is_integer()):
        return np.arange(check_int("runs", runs, low=1, high=MAX_RUNS))
    if isinstance(runs, (str, bytes)) or not hasattr(runs, "__iter__"):
        raise ValueError(f"runs must be a number of runs ≥ 1 or a sequence of run indices; got {runs!r}")
    ids = np.asarray(list(runs))
    if ids.ndim != 1 or ids.size == 0 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"runs must be a non-empty sequence of whole run indices; got {runs!r}")
    if np.any(ids < 0) or len(np.unique(ids)) != ids.size:
        raise ValueError(f"runs: run indices must be distinct and ≥ 0; got {runs!r}")
    return ids.astype(np.int64)


def _named(policies) -> dict:
    if isinstance(policies, Policy):
        policies = [policies]
    if isinstance(policies, dict):
        items = list(policies.items())
    elif isinstance(policies, (list, tuple)):
        items, seen = [], {}
        for p in policies:
            name = p.label if hasattr(p, "label") else repr(p)
            seen[name] = seen.get(name, 0) + 1
            items.append((name if seen[name] == 1 else f"{name} ({seen[name]})", p))
    else:
        raise ValueError(f"policies must be a Policy, a list of them or a dict name → Policy; got {policies!r}")
    if not items:
        raise ValueError("policies must not be empty")
    for name, p in items:
        if not isinstance(p, Policy):
            raise ValueError(f"policies[{name!r}] must be a delaylab policy such as delaylab.UCB1(); got {p!r}")
    return dict(items)
