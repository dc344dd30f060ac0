r"""Improved UCB (Auer & Ortner 2010): the phased elimination algorithm ODAAF builds on, run
without delays as the reference of what delays cost (Pike-Burke et al. 2018, Section 3).

Rounds m = 0, 1, …, M = ⌊½ log₂(T/e)⌋ with Δ̃_m = 2^{-m}: each active arm is played until it has
n_m = ⌈2 log(T Δ̃_m²) / Δ̃_m²⌉ samples, then arm j is eliminated if

    X̄_j + √(log(T Δ̃_m²) / (2 n_m)) < max_i (X̄_i − √(log(T Δ̃_m²) / (2 n_m))),

i.e. X̄_j + w_m < max_i X̄_i with w_m = 2√(log(T Δ̃_m²)/(2 n_m)) ≤ Δ̃_m. One arm left (or after
round M): it is played to the end.

Feedback: labelled rewards (each revealed reward credited to its arm), or anonymous sums (the
sum observed at a step credited to the arm played then). Without delays (``dl.Fixed(0)``) both
see exactly the rewards of their own pulls, so the runs are identical; with anonymous feedback the
engine's block fast path applies (see :mod:`delaylab.policies.odaaf`).
"""

from __future__ import annotations

import numpy as np

from .odaaf import Phased, n_phases

__all__ = ["ImprovedUCB", "improved_ucb_sizes"]


def improved_ucb_sizes(m, horizon):
    """n_m = ⌈2 log(T Δ̃_m²) / Δ̃_m²⌉ with Δ̃_m = 2^{-m} (Auer & Ortner 2010, Algorithm)."""
    tol = np.ldexp(1.0, -np.asarray(m, dtype=np.int64))
    return np.ceil(2 * np.log(horizon * tol**2) / tol**2).astype(np.int64)


class ImprovedUCB(Phased):
    """Improved UCB (Auer & Ortner 2010), no hyperparameter; see the module docstring."""

    feedback = ("anonymous", "labelled")

    def __init__(self):
        pass

    @property
    def label(self):
        return "Improved UCB"

    def _schedule(self, problem):
        T = problem.horizon
        m = np.arange(0, n_phases(T) + 1)
        n = improved_ucb_sizes(m, T)
        L = np.log(T * np.ldexp(1.0, -m) ** 2)
        return m, n, 2 * np.sqrt(L / (2 * n))
