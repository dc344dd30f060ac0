"""What a live panel remembers between control moves, and how it draws remembered results
beside a first answer (:func:`together`)."""

from __future__ import annotations

import dataclasses

import numpy as np


class ResultCache(dict):
    """Simulation results of a panel keyed by (policy, settings), so that toggling a policy or
    returning to earlier settings is instant; beyond ``limit`` entries the least recently asked
    for are forgotten (asking ``key in cache`` counts: a panel asks for every curve it is about to
    draw, so storing the missing ones never forgets one it is drawing)."""

    def __init__(self, limit: int = 60):
        super().__init__()
        self.limit = limit

    def __contains__(self, key) -> bool:
        """A first answer (fewer runs or a shorter horizon, see :mod:`.budget`) is shown but
        does not count as computed: the full result replaces it."""
        if not super().__contains__(key):
            return False
        super().__setitem__(key, super().pop(key))  # the most recently asked for
        notes = getattr(self[key], "notes", None)
        return not (isinstance(notes, dict) and "first_answer" in notes)

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        while len(self) > self.limit:
            del self[next(iter(self))]


def together(results: dict, partial) -> dict:
    """The results a panel draws together (curve → Result), each cut to what the figures show.

    ``partial`` is the budget's :attr:`~.budget.Budget.partial`: None when everything is shown,
    else (T', R', T, R) while a first answer of T' steps and R' runs is drawn. A panel keeps full
    results in its :class:`ResultCache` and simulates only what is missing, so one update can draw
    a cached full result beside a first answer. Drawn as it is, that result would end at T with
    all R runs while the others end at T' with R' runs, and every number read off the panel at
    its last step (a table's "regret at T", a note "eliminates nothing within T") would compare
    different runs and horizons. So each is cut (:func:`cut`) to its first R' runs and its steps
    t ≤ T' (see :func:`cut` for what that shows), and every curve drawn together shows the same
    runs and horizon, as :mod:`.budget` promises."""
    if partial is None:
        return dict(results)
    T1, R1 = partial[:2]
    return {name: cut(res, T1, R1) for name, res in results.items()}


def cut(res, T: int, R: int):
    """``res`` restricted to its first ``R`` runs and its recorded times t ≤ ``T`` (itself if it
    has no more). Fewer runs is exact: a run's outcome depends only on the seed, its index and its
    parameters. A shorter horizon is the first T steps of the horizon-``res.horizon`` runs, not a
    simulation of horizon T (a learner tuned from the horizon plays differently in one), so the
    cut result keeps its ``horizon`` and says what it shows in ``notes["cut"] = (T, R)``. Its
    regret curves and traces are cut; ``pulls`` (counts over the whole horizon) keep only the
    first R runs."""
    T = int(T)
    keep_t = np.asarray(res.times) <= T
    R = min(int(R), res.runs)
    if keep_t.all() and R == res.runs:
        return res
    if res.keep == "summary":
        raise ValueError("cut() needs each run's values, which a result computed with keep='summary' does not keep")
    if not keep_t.any():  # (a horizon shorter than the first recorded time: its first one)
        keep_t[0] = True
    grid = (slice(None),) * len(res.grid_shape)
    runs = slice(0, R)
    return dataclasses.replace(
        res, times=np.asarray(res.times)[keep_t],
        regret={n: a[grid + (runs, keep_t)] for n, a in res.regret.items()},
        pulls={n: a[grid + (runs,)] for n, a in res.pulls.items()},
        traces={n: {f: a[grid + (runs, keep_t)] for f, a in tr.items()} for n, tr in res.traces.items()},
        run_ids=np.asarray(res.run_ids)[:R], notes=dict(res.notes, cut=(T, R)))
