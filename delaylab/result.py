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

    @property
    def names(self) -> list[str]:
        return list(self.regret)

    @property
    def runs(self) -> int:
        return len(self.run_ids)

    def mean(self, name: str) -> np.ndarray:
        """Mean regret over runs, shape (*grid, n)."""
        return self.regret[name].mean(axis=-2)

    def stderr(self, name: str) -> np.ndarray:
        """Standard error of the mean regret (0 with a single run)."""
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
        return self.regret[name][..., -1]

    def at(self, name: str, t: int) -> np.ndarray:
        """Regret of each run at the recorded time closest to t, shape (*grid, R)."""
        k = int(np.argmin(np.abs(self.times - t)))
        return self.regret[name][..., k]

    def __repr__(self):
        shape = f"grid {self.grid_shape} × " if self.grid_shape else ""
        return (f"Result({', '.join(self.names)}; {shape}{self.runs} runs, T = {self.horizon}, "
                f"{len(self.times)} recorded times)")
