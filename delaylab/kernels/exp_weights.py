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
from typing import NamedTuple

import numpy as np
from numba import njit

from ..policies.exp_weights import DEW, E, Exp3
from ..policies.skipper import MAX_EPOCH, Doubling, DoublingState, Skipper
from ..settings.adversarial import AdversarialLosses
from ._env import calendar_arrays, first_arrival, next_arrival, schedule, writable

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
    """:meth:`Doubling.choose` before the base's draw, for run b whose round-t delay is d (the
    arrays of a :class:`~delaylab.policies.skipper.DoublingState`; L̂ and η of its base)."""
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


class Filter(NamedTuple):
    """What Skipper and Doubling add to their base (DEW or Exp3), as the one compiled loop of the
    four policies reads it, built by :meth:`ExpWeightsKernel.filter` from the policy's declared
    state. What a policy does not have is empty, its flag off (one loop, compiled once, rather than
    one per policy: a function overloaded on the state's type would be called, not inlined, at
    every step)."""

    #: (B,) β per run: the losses with d_s ≥ β are skipped (+inf: none, DEW and Exp3)
    beta: np.ndarray
    #: whether the policy is a Skipper
    skipper: bool
    #: Skipper's kept delays (updated), :class:`~delaylab.policies.skipper.SkipperState`
    kept_delay: np.ndarray
    #: whether the policy is Doubling
    doubling: bool
    #: Doubling's state (updated)
    state: DoublingState


class LossDraws(NamedTuple):
    """A block of :class:`~delaylab.AdversarialLosses` as the kernel reads it (row i: step t0 + i)."""

    #: (n, K) the losses ℓ_t(a) of every arm
    losses: np.ndarray
    #: (n, B) int64, the delays d_t
    delays: np.ndarray
    #: the best arm in hindsight (the regret's comparator)
    best: int
    #: the horizon T
    T: int


@njit(cache=True)
def exp_weights_kernel(i0, i1, t0, draws, cal, cum, out, pulls, uniforms, base, filt):
    """Exp3 / DEW, Skipper (losses with d_s < β only; kept delays recorded) or Doubling (β, η and
    the base's L̂ per run and epoch; losses of the current epoch only), on the base's
    :class:`~delaylab.policies.exp_weights.ExpWeightsState` and a :class:`Filter`."""
    losses, delays, best, T = draws
    head, nxt, cal_arm, cal_value, with_values = cal
    L, p_now, p_pull, eta = base
    beta, skipper, kept_delay, doubling, dbl = filt
    _, epoch, epoch_start, length_, skipped_, delay_, skipped_tot, exp_delay, epoch_of, lnK, max_epoch = dbl
    B, K = L.shape
    Wc = head.shape[0]
    Wp = p_pull.shape[0]  # p_s(A_s) kept in a ring of the setting's span (DEW._p_pull)
    w = np.empty(K)
    tmp = np.zeros(K)
    for i in range(i0, i1):
        t = t0 + i
        slot = t % Wc
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
            schedule(b, t, slot, a, d <= T - 1 - t, d, loss, head, nxt, cal_arm, cal_value, True)  # losses are values
            # update: p_t(A_t) recorded, then the arrivals' estimates summed per arm and added
            p_pull[t % Wp, b] = p_now[b, a]
            any_kept = False
            s = first_arrival(head, slot, b)
            while s >= 0:
                r = s % Wc
                dd = t - s
                if dd < beta[b] and (not doubling or epoch_of[s, b] == epoch[b]):
                    arm = cal_arm[r, b]
                    tmp[arm] += cal_value[r, b] / p_pull[s % Wp, b]
                    any_kept = True
                    if skipper:
                        kept_delay[s, b] = dd
                s = next_arrival(nxt, r, b)
            if any_kept:
                for k in range(K):
                    L[b, k] += tmp[k]
                    tmp[k] = 0.0
    return i1


class ExpWeightsKernel:
    """The kernel of Exp3, DEW, Skipper and Doubling: :meth:`run` as :meth:`._env.Kernel.run`."""

    fn = staticmethod(exp_weights_kernel)
    max_batch = None

    def __init__(self, policy, setting, problem, calendar):
        self.policy, self.calendar, self.T = policy, calendar, int(problem.horizon)
        self.B, self.K = problem.size, problem.n_arms
        self.filtered = isinstance(policy, (Skipper, Doubling))
        self.base = policy.base_ if self.filtered else policy
        self.state = None  # the base's state and the Filter, built at the first call (their arrays are updated in place)

    def filter(self) -> Filter:
        """The :class:`Filter` of the policy, from its declared state."""
        if isinstance(self.policy, Doubling):
            st = self.policy.kernel_state()
            return Filter(st.beta, False, np.zeros((0, 0)), True, st)
        none_i, none_f = np.zeros(0, dtype=np.int64), np.zeros(0)
        no_doubling = DoublingState(none_f, none_i, none_i, none_i, none_i, none_f, none_i, none_f,
                                    np.zeros((0, 0), dtype=np.int16), math.log(self.K), MAX_EPOCH)
        if isinstance(self.policy, Skipper):
            st = self.policy.kernel_state()
            return Filter(st.beta, True, st.kept_delay, False, no_doubling)
        return Filter(np.full(self.B, INF), False, np.zeros((0, 0)), False, no_doubling)

    def run(self, block, t0, i0, i1, cum, pulls):
        draws = LossDraws(writable(block.losses), writable(block.delays, np.int64), int(block.ep.best), self.T)
        out = np.empty((i1 - i0, self.B))
        if self.state is None:
            self.state = (self.base.kernel_state(), self.filter())
        self.fn(int(i0), int(i1), int(t0), draws, calendar_arrays(self.calendar), cum, out, pulls,
                self.base.uniforms(t0 + i0, t0 + i1), *self.state)
        if isinstance(self.policy, Skipper):
            self.policy.last_step_ = t0 + i1 - 1
        return out


def make(policy, setting, problem, calendar):
    if not isinstance(setting, AdversarialLosses) or problem.n_arms > 128:
        return None
    if type(policy) is Doubling and setting.reveal != "at_action":
        return None  # the numpy path raises the error that says why
    if (type(policy) in (Exp3, DEW, Doubling)
            or (type(policy) is Skipper and type(policy.base_) in (Exp3, DEW))):
        return ExpWeightsKernel(policy, setting, problem, calendar)
    return None
