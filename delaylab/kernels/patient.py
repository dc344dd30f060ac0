r"""Kernels of Patient Bandits and Adapt-Patient Bandits (Manegueu et al. 2020, Algorithms 1 and 2):
:mod:`delaylab.policies.patient`.

Patient Bandits: pull each arm once, then argmax_i μ_hat_i + width_i, where the width
sqrt(2 log(2KT³)/T_i) + 2 b T_i^{−(α ∧ 1/2)} of the arm just pulled (b: the bias term's
multiplier, 1 in the paper) is updated after each pull, as the numpy policy does.

Adapt-Patient Bandits: the numpy policy's exact incremental bookkeeping, per run and per arm
(the policy's flat tables ``times_``, ``delays_``, ``ordinal_``, ``hist_`` and counters, entry
f = run·K + arm: :class:`~delaylab.policies.patient.AdaptPatientState`): each step, (α_hat_t, α_t)
from the most pulled arm, the UCB of every arm with
α_t (its width changes with α_t, so it is recomputed for every arm), the pull; then the
arrivals (their delays recorded, and counted at once if their pull is already in the
estimation set), D and d of the arm just pulled grown at every second pull, and, for every
arm, the pull that has become D steps old joining the set. The numpy path does the same steps
vectorised over runs, in the same order; every count is an integer, so only log and exp (in
α_hat_t and in the widths) can differ in the last place.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..policies.patient import TINY, AdaptPatientBandits, PatientBandits
from . import _env
from ._env import Kernel, first_arrival, next_arrival, play
from .index import INF


@njit(cache=True)
def patient_kernel(i0, i1, t0, draws, cal, cum, out, pulls, state):
    """Patient Bandits on a :class:`~delaylab.policies.patient.PatientState`."""
    u, delays, theta, gap, kind, window, T = draws
    head, nxt, cal_arm, cal_value, with_values = cal
    B, K = theta.shape
    n_pulls, succ, width, a_run, b_run, two_log = state
    Wc = head.shape[0]
    for i in range(i0, i1):
        t = t0 + i
        slot = t % Wc
        for b in range(B):
            if t < K:
                a = t
            else:
                a, best = 0, -INF
                for k in range(K):
                    idx = succ[b, k] / n_pulls[b, k] + width[b, k]
                    if idx > best:
                        a, best = k, idx
            play(i, i0, b, t, slot, a, pulls, cum, out, gap, u, delays, theta, kind, window, T, head, nxt,
                 cal_arm, cal_value, with_values)
            n_pulls[b, a] += 1.0
            s = first_arrival(head, slot, b)
            while s >= 0:
                succ[b, cal_arm[s % Wc, b]] += 1.0
                s = next_arrival(nxt, s % Wc, b)
            n = n_pulls[b, a]
            width[b, a] = math.sqrt(two_log / n) + 2.0 * b_run[b] * math.exp(-a_run[b] * math.log(n))
    return i1


class PatientKernel(Kernel):
    fn = staticmethod(patient_kernel)

    def arguments(self):
        return (self.policy.kernel_state(),)


@njit(cache=True)
def adapt_patient_kernel(i0, i1, t0, draws, cal, cum, out, pulls, state):
    """Adapt-Patient Bandits on an :class:`~delaylab.policies.patient.AdaptPatientState`."""
    u, delays, theta, gap, kind, window, T = draws
    head, nxt, cal_arm, cal_value, with_values = cal
    B, K = theta.shape
    (n_pulls, succ, alpha, alpha_hat, times, dels, ordinal, hist, n_est, n_pl, D_, d_, count_D, count_d, rho, conf,
     alpha_low, two_log, w, h) = state
    Wc = head.shape[0]
    for i in range(i0, i1):
        t = t0 + i
        slot = t % Wc
        for b in range(B):
            fb = b * K
            if t < 2 * K:  # pull each arm twice
                a = t % K
            else:
                # (α_hat_t, α_t) from I_bar_t, the most pulled arm (AdaptPatientBandits.estimate)
                ib = 0
                for k in range(1, K):
                    if n_pl[fb + k] > n_pl[fb + ib]:
                        ib = k
                f = fb + ib
                t_bar = n_pl[f]
                n = n_est[f]
                diff = (count_D[f] - count_d[f]) / max(t_bar, 1)  # divided by T_bar_t, as printed
                log_t = math.log(max(t_bar, 2))
                ah = min(-math.log(max(diff, TINY)) / log_t, 1.0)
                if n > 0 and t_bar >= 2:
                    alpha_hat[b] = ah
                    alpha[b] = max(ah - conf[b] / log_t, alpha_low[b])
                else:
                    alpha_hat[b] = np.nan
                    alpha[b] = alpha_low[b]
                am = min(alpha[b], 0.5)
                a, best = 0, -INF
                for k in range(K):
                    pk = n_pulls[b, k]
                    idx = succ[b, k] / max(pk, 1.0) + (math.sqrt(two_log / pk) + 2.0 * math.exp(-am * math.log(pk)))
                    if idx > best:
                        a, best = k, idx
            play(i, i0, b, t, slot, a, pulls, cum, out, gap, u, delays, theta, kind, window, T, head, nxt,
                 cal_arm, cal_value, with_values)
            n_pulls[b, a] += 1.0
            f = fb + a
            j = n_pl[f]
            times[f * w + j] = t
            ordinal[b * T + t] = j
            n_pl[f] = j + 1
            s = first_arrival(head, slot, b)
            while s >= 0:  # the conversions revealed at the end of step t (made at step s)
                arm = cal_arm[s % Wc, b]
                succ[b, arm] += 1.0
                fr = fb + arm
                jr = ordinal[b * T + s]
                delay = t - s
                dels[fr * w + jr] = delay
                if jr < n_est[fr] and delay < h:  # a pull already in the estimation set
                    hist[fr * h + delay] += 1
                    if delay <= D_[fr]:
                        count_D[fr] += 1
                    if delay <= d_[fr]:
                        count_d[fr] += 1
                s = next_arrival(nxt, s % Wc, b)
            if j & 1 == 1:  # D (and maybe d) of the arm just pulled grow by one
                D = (j + 1) >> 1
                D_[f] = D
                count_D[f] += hist[f * h + D]
                new_d = np.int64(math.floor(rho[f] * D))
                if new_d > d_[f]:
                    d_[f] = new_d
                    count_d[f] += hist[f * h + new_d]
            for k in range(K):  # the pull of each arm that is now D steps old joins the set
                fk = fb + k
                jk = n_est[fk]
                if times[fk * w + jk] <= t - D_[fk]:
                    delay = dels[fk * w + jk]
                    n_est[fk] += 1
                    if delay >= 0 and delay < h:
                        hist[fk * h + delay] += 1
                        if delay <= D_[fk]:
                            count_D[fk] += 1
                        if delay <= d_[fk]:
                            count_d[fk] += 1
    return i1


class AdaptPatientKernel(Kernel):
    fn = staticmethod(adapt_patient_kernel)

    def arguments(self):
        return (self.policy.kernel_state(),)


def make(policy, setting, problem, calendar):
    if _env.supported(setting) and type(policy) is PatientBandits:
        return PatientKernel(policy, setting, problem, calendar)
    if _env.supported(setting) and type(policy) is AdaptPatientBandits:
        return AdaptPatientKernel(policy, setting, problem, calendar)
    return None
