r"""Kernel of Patient Bandits (Manegueu et al. 2020, Algorithm 1): :mod:`delaylab.policies.patient`.

Pull each arm once, then argmax_i μ̂_i + width_i, where the width sqrt(2 log(2KT³)/T_i) +
2 T_i^{−(α ∧ 1/2)} of the arm just pulled is updated after each pull, as the numpy policy does.
Adapt-Patient Bandits (its online estimate of α, with histograms of the seen delays per arm)
stays on the numpy path.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..policies.patient import PatientBandits
from . import _env
from ._env import Kernel, per_run, play
from .index import INF


@njit(cache=True)
def patient_kernel(i0, i1, t0, u, delays, theta, gap, kind, window, T, head, nxt, cal_arm, cal_value,
                   with_values, cum, out, pulls, n_pulls, succ, width, a_run, two_log):
    B, K = theta.shape
    Wc = head.shape[0]
    for i in range(i0, i1):
        t = t0 + i
        for b in range(B):
            if t < K:
                a = t
            else:
                a, best = 0, -INF
                for k in range(K):
                    idx = succ[b, k] / n_pulls[b, k] + width[b, k]
                    if idx > best:
                        a, best = k, idx
            play(i, i0, b, t, a, pulls, cum, gap, out, u, delays, theta, kind, window, T, head, nxt, cal_arm,
                 cal_value, with_values)
            n_pulls[b, a] += 1.0
            slot = t % Wc
            s = head[slot, b]
            head[slot, b] = -1
            while s >= 0:
                succ[b, cal_arm[s % Wc, b]] += 1.0
                s = nxt[s % Wc, b]
            n = n_pulls[b, a]
            width[b, a] = math.sqrt(two_log / n) + 2.0 * math.exp(-a_run[b] * math.log(n))
    return i1


class PatientKernel(Kernel):
    _fn = staticmethod(patient_kernel)

    def __init__(self, policy, setting, problem, calendar):
        super().__init__(policy, setting, problem, calendar)
        self.a = per_run(policy._a, problem.size)

    def _state(self):
        p = self.policy
        return p.pulls_, p.successes_, p.width_, self.a, float(p._two_log)


def make(policy, setting, problem, calendar):
    if _env.supported(setting) and type(policy) is PatientBandits:
        return PatientKernel(policy, setting, problem, calendar)
    return None
