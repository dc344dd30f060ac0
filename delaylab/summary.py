"""Reduced results (``keep="summary"``) and the memory estimate made before any work.

``simulate(..., keep="summary")`` and ``sweep(..., keep="summary")`` do not keep each run's
regret curve: for every grid cell and checkpoint they accumulate the number of runs n, the mean
and the sum of squared deviations M2 (Welford's update within a batch of runs, Chan et al.'s
pairwise merge across chunks and workers), so memory does not grow with the number of runs.
``Result.mean()``, ``stderr()`` and ``band()`` read them and equal those of the full arrays up to
floating-point rounding. The mean pulls of each arm are kept the same way.

Merging is exact in exact arithmetic and order-independent up to rounding; a run's outcome is
still bit-identical whatever the chunking, only the sums over runs may differ in the last bits.
"""

from __future__ import annotations

import os

import numpy as np

#: the values of ``keep=``
KEEP = ("all", "summary")


class Moments:
    """Count, mean and M2 = Σ (x − mean)² over runs, per (cell, …) entry."""

    __slots__ = ("n", "mean", "m2")

    def __init__(self, n, mean, m2):
        self.n, self.mean, self.m2 = int(n), np.asarray(mean, dtype=float), np.asarray(m2, dtype=float)

    @classmethod
    def of(cls, values: np.ndarray, axis: int) -> "Moments":
        """Moments of ``values`` over ``axis`` (the run axis), computed in two passes."""
        values = np.asarray(values, dtype=float)
        n = values.shape[axis]
        mean = values.mean(axis=axis)
        dev = values - np.expand_dims(mean, axis)
        return cls(n, mean, (dev * dev).sum(axis=axis))

    def merge(self, other: "Moments") -> "Moments":
        """The moments of the union of two disjoint sets of runs (Chan, Golub, LeVeque 1979)."""
        if self.n == 0:
            return other
        if other.n == 0:
            return self
        n = self.n + other.n
        delta = other.mean - self.mean
        mean = self.mean + delta * (other.n / n)
        m2 = self.m2 + other.m2 + delta * delta * (self.n * other.n / n)
        return Moments(n, mean, m2)

    def var(self) -> np.ndarray:
        """Sample variance (ddof = 1; 0 with a single run)."""
        if self.n < 2:
            return np.zeros_like(self.mean)
        return np.maximum(self.m2, 0.0) / (self.n - 1)

    def arrays(self, prefix: str) -> dict:
        return {prefix + "n": np.array([self.n], dtype=np.int64), prefix + "mean": self.mean, prefix + "m2": self.m2}

    @classmethod
    def from_arrays(cls, arrays: dict, prefix: str) -> "Moments":
        return cls(int(arrays[prefix + "n"][0]), arrays[prefix + "mean"], arrays[prefix + "m2"])


def merge_all(parts) -> Moments:
    out = Moments(0, 0.0, 0.0)
    for p in parts:
        out = out.merge(p)
    return out


# ====================================================================== memory
def available_memory() -> int | None:
    """Bytes of memory available to a new allocation: ``MemAvailable`` of /proc/meminfo (Linux),
    else the free physical pages (``os.sysconf``), else None (unknown: no check). The environment
    variable ``DELAYLAB_MEMORY`` (bytes, or with a suffix K, M, G) overrides it, e.g. to leave room
    for other users of a shared machine."""
    env = os.environ.get("DELAYLAB_MEMORY")
    if env:
        return parse_bytes("DELAYLAB_MEMORY", env)
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def parse_bytes(name: str, text) -> int:
    """``"2G"``, ``"512M"``, ``"1000000"`` → bytes (a ValueError naming ``name`` otherwise)."""
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    s = str(text).strip().upper().removesuffix("IB").removesuffix("B")
    unit = s[-1:] if s[-1:] in units and s[-1:] != "" else ""
    try:
        value = float(s[: len(s) - len(unit)]) * units[unit]
    except ValueError:
        value = -1.0
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a size in bytes such as 2G, 512M or 1000000; got {text!r}")
    return int(value)


def fmt_bytes(n: float) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} bytes"


def fmt_seconds(s: float) -> str:
    if s < 60:
        return f"{s:.0f} s"
    if s < 3600:
        return f"{s / 60:.0f} min"
    if s < 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


def result_bytes(n_policies: int, n_arms: int, cells: int, runs: int, n_times: int, keep: str,
                 trace_bytes_per_column: float = 0.0) -> int:
    """Bytes a result holds: per policy, the regret curves and pulls of every run (keep="all"),
    or per cell n, mean and M2 of each checkpoint and mean pulls (keep="summary")."""
    if keep == "summary":
        per_policy = cells * (2 * n_times + 2 * n_arms) * 8
    else:
        per_policy = cells * runs * (n_times * 8 + n_arms * 8) + trace_bytes_per_column * cells * runs * n_times
    return int(n_policies * per_policy)


def check_memory(who: str, need: int, keep: str, summary_need: int, n_times: int) -> None:
    """Refuse, before any work, a result that would not fit in the available memory."""
    have = available_memory()
    if have is None or need <= have:
        return
    advice = (f"pass keep='summary' (mean and variance of the regret at each checkpoint over runs: "
              f"{fmt_bytes(summary_need)}, whatever the number of runs)" if keep == "all" else
              "pass fewer checkpoints or grid cells")
    fewer = " or fewer checkpoints (e.g. checkpoints=200)" if n_times > 200 and keep == "all" else ""
    raise ValueError(f"{who} would hold {fmt_bytes(need)} of results, more than the {fmt_bytes(have)} of memory "
                     f"available now; {advice}{fewer}. (Set DELAYLAB_MEMORY to change the limit; "
                     f"delaylab.estimate(...) gives the memory and the time of a run before it starts.)")
