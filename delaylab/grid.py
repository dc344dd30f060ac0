"""Grids of parameter values, simulated as one batch.

The numeric parameters of delay laws, the arms' ``means`` (a 2-d array, one row per cell), the
linear ``theta``, and numeric policy hyperparameters (ε, c, and the laws a policy assumes) may be
given one value per grid cell; structural parameters (windows, horizon, number of arms) may not. ``simulate`` then runs
cells × runs columns in lockstep. :func:`grid` builds the cells of an outer product of named
axes and lets :func:`~delaylab.simulate` reshape its results accordingly.

Example
-------
>>> g = grid(gap=[0.1, 0.2, 0.3], alpha=[0.2, 0.5])       # 6 cells, shape (3, 2)
>>> means = np.stack([0.4 + 0 * g.gap, 0.4 + g.gap], axis=1)  # (6, 2): one row per cell
"""

from __future__ import annotations

import numpy as np

from ._validate import check_real


class Grid:
    """The cells of an outer product of named parameter axes (C order: last axis fastest)."""

    def __init__(self, **axes):
        if not axes:
            raise ValueError("grid needs at least one named axis, e.g. grid(alpha=[0.1, 0.2])")
        self._axes = {k: check_real(k, v, ndim=(1,)) for k, v in axes.items()}
        self.shape = tuple(len(v) for v in self._axes.values())
        mesh = np.meshgrid(*self._axes.values(), indexing="ij")
        self._cells = {k: m.ravel() for k, m in zip(self._axes, mesh)}

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._axes)

    def axis(self, name: str) -> np.ndarray:
        """The values along axis ``name``."""
        return self._axes[name]

    def __getattr__(self, name):
        cells = self.__dict__.get("_cells", {})
        if name in cells:
            return cells[name]
        raise AttributeError(name)

    def __getitem__(self, name):
        return self._cells[name]

    def __repr__(self):
        axes = ", ".join(f"{k}={len(v)} values" for k, v in self._axes.items())
        return f"Grid({axes}; {self.size} cells)"


def grid(**axes) -> Grid:
    """Outer product of named axes: ``g.name`` is the value of axis ``name`` in each cell."""
    return Grid(**axes)
