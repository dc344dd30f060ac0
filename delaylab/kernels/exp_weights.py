r"""Kernels of exponential weights with delayed losses (Thune, Cesa-Bianchi, Seldin 2019):
Exp3, DEW and Skipper over either (:mod:`delaylab.policies.exp_weights`,
:mod:`delaylab.policies.skipper`), on :class:`~delaylab.AdversarialLosses`.

Per run and step: p_t ∝ exp(η'(min_b L̂(b) − L̂(a))) (normalised by numpy's pairwise sum, whose
order is reproduced), the arm by inverse-CDF sampling from the policy's own uniform, then the
arriving losses ℓ_s/p_s(A_s) summed per arm in the calendar's order and added to L̂ (as
``Arrivals.add_to``). Skipper passes on only the losses with delay d_s < β and records the kept
delays. Doubling (delays at action time) first updates its epoch (Eq. 6), restarting the base
(L̂ = 0, η_m = 1/(4eβ_m)) when a new epoch begins, and passes on only the losses of the current
epoch with d_s < β_m.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..policies.exp_weights import DEW, E, Exp3
from ..policies.skipper import MAX_EPOCH, Doubling, Skipper
from ..settings.adversarial import AdversarialLosses
from ._env import Kernel, owned, per_run

INF = math.inf


@njit(cache=True)
def pairwise_sum(w, n):
    """numpy's pairwise summation of w[0:n] (n ≤ 128: one block), the order of ``w.sum()``."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += w[i]
        return res
    r0, r1, r2, r3 = w[0], w[1], w[2], w[3]
    r4, r5, r6, r7 = w[4], w[5], w[6], w[7]
    i = 8
    while i < n - (n % 8):
        r0 += w[i]
        r1 += w[i + 1]
        r2 += w[i + 2]
        r3 += w[i + 3]
        r4 += w[i + 4]
        r5 += w[i + 5]
        r6 += w[i + 6]
        r7 += w[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += w[i]
        i += 1
    return res


@njit(cache=True)
def doubling_condition(length, skipped, delay, epoch, K, lnK):
    """Eq. (6) of the Doubling scheme (:meth:`Doubling.condition`)."""
    return max(float(skipped) * float(skipped), (E * K * length / 2 + delay) * lnK) <= 2.0 ** epoch


@njit(cache=True)
def doubling_step(b, t, d, K, lnK, L, eta, epoch, beta, epoch_start, length_, skipped_, delay_,
                  skipped_tot, exp_delay, epoch_of, max_epoch):
    """:meth:`Doubling.choose` before the base's draw, for run b whose round-t delay is d."""
    skip = d >= beta[b]
    length = length_[b] + 1
    skipped = skipped_[b] + (1 if skip else 0)
    delay = delay_[b] + (0.0 if skip else d)
    if not doubling_condition(length, skipped, delay, epoch[b], K, lnK):
        m = epoch[b]
        while True:  # new epochs, starting with round t, until Eq. (6) holds
            m += 1
            bm = math.sqrt(2.0 ** m) / (4 * E * lnK)
            sk = d >= bm
            if doubling_condition(1, 1 if sk else 0, 0.0 if sk else d, m, K, lnK) or m >= max_epoch:
                break
        epoch[b], beta[b] = m, bm
        skip, length, skipped, delay = sk, 1, (1 if sk else 0), (0.0 if sk else d)
        epoch_start[b] = t
        for k in range(K):  # the base restarts: L̂ = 0, η_m = 1/(4eβ_m)
            L[b, k] = 0.0
        eta[b] = 1.0 / (4 * E * beta[b])
    length_[b], skipped_[b], delay_[b] = length, skipped, delay
    skipped_tot[b] += 1 if skip else 0
    exp_delay[b] += 0.0 if skip else d
    epoch_of[t, b] = epoch[b]


@njit(cache=True)
def exp_weights_kernel(i0, i1, t0, losses, delays, best, T, head, nxt, cal_arm, cal_value, cum, out, pulls,
                       uniforms, L, p_now, p_pull, eta, beta, kept_delay, skipper, doubling, lnK, epoch,
                       epoch_start, length_, skipped_, delay_, skipped_tot, exp_delay, epoch_of, max_epoch):
    """Exp3 / DEW (beta = +inf), Skipper (losses with d_s < beta only; kept delays recorded) or
    Doubling (beta, eta and the base's L̂ per run and epoch; losses of the current epoch only)."""
    B, K = L.shape
    Wc = head.shape[0]
    Wp = p_pull.shape[0]  # p_s(A_s) kept in a ring of the setting's span (DEW._p_pull)
    w = np.empty(K)
    tmp = np.zeros(K)
    for i in range(i0, i1):
        t = t0 + i
        for b in range(B):
            if doubling:
                doubling_step(b, t, float(delays[i, b]), K, lnK, L, eta, epoch, beta, epoch_start, length_,
                              skipped_, delay_, skipped_tot, exp_delay, epoch_of, max_epoch)
            # choose: p_t from the arrived estimates, then inverse-CDF sampling
            mn = INF
            for k in range(K):
                mn = min(mn, L[b, k])
            for k in range(K):
                w[k] = math.exp((mn - L[b, k]) * eta[b])
            s = pairwise_sum(w, K)
            for k in range(K):
                p_now[b, k] = w[k] / s
            c = 0.0
            total = 0.0
            for k in range(K):
                total += p_now[b, k]
            x = uniforms[i - i0, b] * total
            a = 0
            for k in range(K - 1):
                c += p_now[b, k]
                if c <= x:
                    a += 1
            pulls[b, a] += 1
            loss = losses[i, a]
            cum[b] += loss - losses[i, best]
            out[i - i0, b] = cum[b]
            d = delays[i, b]
            slot = t % Wc
            cal_arm[slot, b] = a
            cal_value[slot, b] = loss
            if d <= T - 1 - t:
                s2 = (d + t) % Wc
                nxt[slot, b] = head[s2, b]
                head[s2, b] = t
            # update: p_t(A_t) recorded, then the arrivals' estimates summed per arm and added
            p_pull[t % Wp, b] = p_now[b, a]
            s = head[slot, b]
            head[slot, b] = -1
            any_kept = False
            while s >= 0:
                r = s % Wc
                dd = t - s
                if dd < beta[b] and (not doubling or epoch_of[s, b] == epoch[b]):
                    arm = cal_arm[r, b]
                    tmp[arm] += cal_value[r, b] / p_pull[s % Wp, b]
                    any_kept = True
                    if skipper:
                        kept_delay[s, b] = dd
                s = nxt[r, b]
            if any_kept:
                for k in range(K):
                    L[b, k] += tmp[k]
                    tmp[k] = 0.0
    return i1


class ExpWeightsKernel(Kernel):
    _fn = staticmethod(exp_weights_kernel)

    def __init__(self, policy, setting, problem, calendar):
        self.policy, self.cal, self.T = policy, calendar, int(problem.horizon)
        self.B = problem.size
        self.skipper = isinstance(policy, Skipper)
        self.doubling = isinstance(policy, Doubling)
        self.base = policy.base_ if self.skipper or self.doubling else policy
        self.kept = policy._kept_delay if self.skipper else np.zeros((1, 1))
        if self.doubling:  # β, η and the epochs change during the run: the policy's own arrays
            p = policy
            self.eta = p.base_._eta_p[:, 0]
            self.beta = p.beta_
            self.extra = (math.log(problem.n_arms),)
        else:
            self.eta = per_run(self.base._eta_p, self.B)
            self.beta = per_run(policy._beta_run, self.B) if self.skipper else np.full(self.B, INF)
            z, zf = np.zeros(1, dtype=np.int64), np.zeros(1)
            self.extra = (1.0, z, z, z, z, zf, z, zf, np.zeros((1, 1), dtype=np.int16), MAX_EPOCH)

    def run(self, block, t0, i0, i1, cum, pulls):
        b = self.base
        losses = owned(block.losses)
        d = block.delays
        d = d if d.flags.c_contiguous and d.flags.writeable and d.dtype == np.int64 else owned(d, dtype=np.int64)
        u = np.stack([b._u(t0 + i) for i in range(i0, i1)])
        out = np.empty((i1 - i0, self.B))
        cal = self.cal
        self._fn(int(i0), int(i1), int(t0), losses, d, int(block.ep.best), self.T, cal.head, cal.next, cal.arm,
                 cal.value, cum, out, pulls, u, b.cum_loss_, b.p_, b._p_pull, self.eta, self.beta, self.kept,
                 self.skipper, self.doubling, *self._extra())
        if self.skipper:
            self.policy._t = t0 + i1 - 1
        return out

    def _extra(self):
        if not self.doubling:
            return self.extra
        p = self.policy
        return (self.extra[0], p.epoch_, p.epoch_start_, p.epoch_length_, p.epoch_skipped_, p.epoch_delay_,
                p.skipped_, p.experienced_delay_, p._epoch_of, MAX_EPOCH)


def make(policy, setting, problem, calendar):
    if not isinstance(setting, AdversarialLosses) or problem.n_arms > 128:
        return None
    if type(policy) is Doubling and setting.reveal != "at_action":
        return None  # the numpy path raises the error that says why
    if (type(policy) in (Exp3, DEW, Doubling)
            or (type(policy) is Skipper and type(policy.base_) in (Exp3, DEW))):
        return ExpWeightsKernel(policy, setting, problem, calendar)
    return None

