"""The outcome of a simulation: regret curves per policy, with summaries for plots."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Result:
    """What :func:`~delaylab.simulate` returns.

    Attributes
    ----------
    times : ndarray (n,)
        Steps t ∈ [1, T] at which the regret is recorded (all steps by default).
    regret : dict name → ndarray (*grid, R, n)
        Cumulative pseudo-regret Σ_{s ≤ t} Δ_{A_s} of each run at each recorded time.
    pulls : dict name → ndarray (*grid, R, K)
        Number of pulls of each arm over the horizon.
    traces : dict name → dict field → ndarray (*grid, R, n, …)
        Policy state at the recorded times (``simulate(trace=True)``).
    policies : dict name → Policy
        The policies (hyperparameters) that were simulated.
    keep : "all" or "summary"
        With ``keep="summary"`` only the moments over runs are kept (``summary``): ``mean()``,
        ``stderr()``, ``band()`` and ``mean_pulls()`` work; per-run values (``regret[name]``,
        ``pulls[name]``, ``final()``, ``at()``) raise a ValueError saying so.
    summary : dict name → {"regret": Moments, "pulls": Moments}
        Run count, mean and M2 over runs per (*grid, checkpoint) and (*grid, arm).
    """

    times: np.ndarray
    regret: dict
    pulls: dict
    traces: dict
    policies: dict
    setting: object
    horizon: int
    run_ids: np.ndarray
    seed: int
    grid_shape: tuple = ()
    elapsed: float = 0.0
    notes: dict = field(default_factory=dict)
    keep: str = "all"
    summary: dict = field(default_factory=dict)

    @classmethod
    def summarised(cls, summary: dict, **kw) -> "Result":
        """A keep="summary" result: per-run arrays are replaced by a mapping that explains."""
        return cls(regret=_PerRunOnly("regret", summary), pulls=_PerRunOnly("pulls", summary), traces={},
                   keep="summary", summary=summary, **kw)

    def _needs_runs(self, what: str):
        if self.keep == "summary":
            raise ValueError(_PerRunOnly.message(what))

    @property
    def names(self) -> list[str]:
        return list(self.regret)

    @property
    def runs(self) -> int:
        return len(self.run_ids)

    def mean(self, name: str) -> np.ndarray:
        """Mean regret over runs, shape (*grid, n)."""
        if self.keep == "summary":
            return self.summary[name]["regret"].mean.copy()
        return self.regret[name].mean(axis=-2)

    def mean_pulls(self, name: str) -> np.ndarray:
        """Mean number of pulls of each arm over runs, shape (*grid, K)."""
        if self.keep == "summary":
            return self.summary[name]["pulls"].mean.copy()
        return self.pulls[name].mean(axis=-2)

    def stderr(self, name: str) -> np.ndarray:
        """Standard error of the mean regret (0 with a single run)."""
        if self.keep == "summary":
            m = self.summary[name]["regret"]
            return np.sqrt(m.var() / m.n)
        r = self.regret[name]
        if r.shape[-2] < 2:
            return np.zeros_like(self.mean(name))
        return r.std(axis=-2, ddof=1) / np.sqrt(r.shape[-2])

    def band(self, name: str, z: float = 1.96) -> tuple[np.ndarray, np.ndarray]:
        """Mean ± z standard errors: a 95% normal confidence band of the mean for z = 1.96."""
        m, s = self.mean(name), self.stderr(name)
        return m - z * s, m + z * s

    def final(self, name: str) -> np.ndarray:
        """Regret at the last recorded time of each run, shape (*grid, R)."""
        self._needs_runs("final()")
        return self.regret[name][..., -1]

    def paired(self, a: str, b: str) -> tuple[np.ndarray, np.ndarray]:
        """How far the final regret of ``a`` lies below ``b``'s, paired run by run (both policies
        face the same draws): the mean of final(b) − final(a) and its standard error, per grid cell."""
        self._needs_runs("paired()")
        d = self.final(b) - self.final(a)
        return d.mean(axis=-1), d.std(axis=-1, ddof=1) / np.sqrt(d.shape[-1])

    def below(self, a: str, b: str, z: float = 3.0) -> bool:
        """Whether ``a`` ends below ``b`` by more than ``z`` standard errors of the paired difference
        (in every grid cell)."""
        gap, se = self.paired(a, b)
        return bool(np.all(gap > z * se))

    def at(self, name: str, t: int) -> np.ndarray:
        """Regret of each run at the recorded time closest to t, shape (*grid, R)."""
        self._needs_runs("at()")
        k = int(np.argmin(np.abs(self.times - t)))
        return self.regret[name][..., k]

    def __repr__(self):
        shape = f"grid {self.grid_shape} × " if self.grid_shape else ""
        summary = ", summary" if self.keep == "summary" else ""
        return (f"Result({', '.join(self.names)}; {shape}{self.runs} runs, T = {self.horizon}, "
                f"{len(self.times)} recorded times{summary})")


class _PerRunOnly(dict):
    """``regret`` / ``pulls`` of a keep="summary" result: the names are there, the arrays are not."""

    def __init__(self, what: str, summary: dict):
        super().__init__((name, None) for name in summary)
        self.what = what

    @staticmethod
    def message(what: str) -> str:
        return (f"{what} needs each run's values, which a result computed with keep='summary' does not keep; "
                f"use res.mean(name), res.band(name), res.stderr(name) or res.mean_pulls(name), or rerun with "
                f"keep='all'")

    def __getitem__(self, name):
        if name not in self.keys():
            raise KeyError(name)
        raise ValueError(self.message(f"res.{self.what}[{name!r}]"))

    def get(self, name, default=None):
        return self[name] if name in self.keys() else default

    def values(self):
        raise ValueError(self.message(f"res.{self.what}.values()"))

    def items(self):
        raise ValueError(self.message(f"res.{self.what}.items()"))
