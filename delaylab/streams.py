"""Random streams keyed by (seed, run index): the reason a run never depends on the batch.

Every run index r owns independent streams, one per purpose (the environment, a policy's own
randomness, …): ``PCG64(SeedSequence(seed, spawn_key=(purpose, r)))``. A batch draws from each
of its runs' streams in order, step after step, so that

* a run's outcome depends only on the seed, its index and its parameters — simulating runs
  0–9 or runs 0–2 gives the same first three runs, whatever the chunking or the workers;
* every policy in a comparison, and every cell of a parameter grid, sees the same draws for the
  same run index (common random numbers), which makes comparisons much less noisy.

Draws are served in blocks of steps; drawing steps [0, a) then [a, b) gives exactly the numbers
of drawing [0, b) at once, so the block length is free to follow memory.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

#: purpose of the environment's stream (rewards, delays, action sets, losses)
ENVIRONMENT = 0


def purpose_id(name: str) -> int:
    """A stable purpose number for a named stream (a policy's own randomness)."""
    return 1 + zlib.crc32(name.encode())


@dataclass(frozen=True)
class Batch:
    """The runs simulated together: column j is run ``runs[j]`` of grid cell ``cells[j]``.

    Columns are ordered cell by cell: ``cells = [0]*R + [1]*R + …`` for R run indices.
    """

    run_ids: np.ndarray  # (R,) distinct run indices of this batch
    n_cells: int = 1

    @property
    def size(self) -> int:
        return self.n_cells * len(self.run_ids)

    @property
    def cells(self) -> np.ndarray:
        """Grid cell of each column, shape (B,)."""
        return np.repeat(np.arange(self.n_cells), len(self.run_ids))

    @property
    def runs(self) -> np.ndarray:
        """Run index of each column, shape (B,)."""
        return np.tile(self.run_ids, self.n_cells)

    def expand(self, value, per_cell: bool) -> np.ndarray:
        """A per-cell parameter (leading axis G) → one row per column (leading axis B)."""
        value = np.asarray(value)
        if not per_cell:
            return value
        return np.repeat(value, len(self.run_ids), axis=0)

    def split(self, max_columns: int) -> list["Batch"]:
        """Smaller batches with at most ``max_columns`` columns (whole cells × some runs)."""
        per = max(1, max_columns // max(self.n_cells, 1))
        ids = self.run_ids
        return [Batch(ids[i : i + per], self.n_cells) for i in range(0, len(ids), per)]


class RunStreams:
    """The streams of one purpose for the runs of a batch."""

    def __init__(self, seed: int, batch: Batch, purpose: int):
        self.batch = batch
        self._gens = [
            np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(purpose, int(r)))))
            for r in batch.run_ids
        ]

    def uniform(self, n_steps: int, per_step: tuple = ()) -> np.ndarray:
        """The next ``n_steps`` steps of uniforms on [0, 1): shape (n_steps, B) + per_step.

        Columns of the same run index (different grid cells) get the same numbers.
        """
        return self._draw(n_steps, per_step, "random")

    def normal(self, n_steps: int, per_step: tuple = ()) -> np.ndarray:
        """Like :meth:`uniform` with standard normal draws."""
        return self._draw(n_steps, per_step, "standard_normal")

    def _draw(self, n_steps, per_step, method):
        R = len(self._gens)
        out = np.empty((n_steps, R) + tuple(per_step))
        for j, g in enumerate(self._gens):
            out[:, j] = getattr(g, method)((n_steps,) + tuple(per_step))
        if self.batch.n_cells > 1:
            out = np.tile(out, (1, self.batch.n_cells) + (1,) * len(per_step))
        return out


class StepDraws:
    """Per-step random numbers for a policy, served from blocks of its own streams.

    ``draws(t)`` returns the numbers of step t, shape (B,) + shape. Steps are read in increasing
    order (a step may be read again); skipped steps are still consumed, so a policy's draws at
    step t never depend on which earlier steps it used.
    """

    def __init__(self, seed: int, batch: Batch, name: str, shape: tuple = (), kind: str = "uniform",
                 block: int = 256):
        self._streams = RunStreams(seed, batch, purpose_id(name))
        self._shape, self._kind = tuple(shape), kind
        per_step = max(1, batch.size * int(np.prod(self._shape, dtype=int)))
        self._block = max(1, min(block, (1 << 20) // per_step))
        self._t0, self._buf = 0, None

    def __call__(self, t: int) -> np.ndarray:
        if self._buf is None or t >= self._t0 + len(self._buf):
            if self._buf is not None:
                self._t0 += len(self._buf)
            while t >= self._t0 + self._block:  # consume skipped blocks
                getattr(self._streams, self._kind)(self._block, self._shape)
                self._t0 += self._block
            self._buf = getattr(self._streams, self._kind)(self._block, self._shape)
        if t < self._t0:
            raise ValueError(f"random draws of step {t} were already discarded (steps go forward)")
        return self._buf[t - self._t0]

    def rows(self, t0: int, t1: int) -> np.ndarray:
        """The numbers of steps t0 … t1 − 1, (t1 − t0, B) + shape: ``self(t)`` for each t, stacked,
        taken a buffer at a time."""
        parts, t = [], t0
        while t < t1:
            self(t)  # the buffer holding step t
            stop = min(t1, self._t0 + len(self._buf))
            parts.append(self._buf[t - self._t0 : stop - self._t0])
            t = stop
        return np.concatenate(parts) if len(parts) != 1 else parts[0].copy()
