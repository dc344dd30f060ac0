r"""Kernels of the paper-1 family (Vernade, Cappé, Perchet 2017): the index policies.

* UCB1, KL-UCB (:mod:`delaylab.policies.ucb`), on conversions or labelled rewards;
* D-UCB / D-KLUCB and UD-UCB / UD-KLUCB (:mod:`delaylab.policies.delayed`) with the geometric
  recursion of Eq. (6) or the tabulated count (any law); the online estimators of Appendix D
  (OnlineGeometric, OnlineCDF) stay on the numpy path;
* Discarding UCB / KL-UCB (:mod:`delaylab.policies.discarding`).

Each function below is the numpy policy's formula for one run and one arm, with the same
operations in the same order (see the references named in the docstrings).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.extending import overload

from ..policies.counts import GeometricCount, GeometricCountState, TabulatedCount, TabulatedCountState
from ..policies.delayed import DelayedKLUCB, DelayedUCB
from ..policies.discarding import DiscardingKLUCB, DiscardingUCB
from ..policies.ucb import KLUCB, UCB1
from . import _env
from ._env import Kernel, first_arrival, is_state, next_arrival, play

INF = math.inf


# ---------------------------------------------------------------------- indices (delaylab.indices)
@njit(cache=True, inline="always")
def poisson_start(p, n, beta, upper):
    """The first operations of :func:`klucb_poisson`: (q, ps, y, x₀). Where no Newton step is
    needed (p ≥ upper, n ≤ 0 or p ≤ 0) q is the index and x₀ = 0; else q = nan, and the index is
    ``poisson_end(ps, x, upper)`` with x three ``poisson_step``s from x₀ = y + sqrt(y² − 1)."""
    if p >= upper:
        return p, 1.0, 0.0, 0.0
    if n <= 0:
        return INF, 1.0, 0.0, 0.0
    c = min(beta / (n if n > 0 else 1.0), 2.0 * upper)
    if not p > 0:  # the numpy path's Newton steps run on ps = 1 but are not used: q = c
        return min(c, upper), 1.0, 0.0, 0.0
    y = 1.0 + max(c / p, 1e-15)
    return math.nan, p, y, y + math.sqrt((y - 1.0) * (y + 1.0))


@njit(cache=True, inline="always")
def poisson_step(x, y):
    """One Newton step on x − log x − y, from above (the numpy path's operations, in its order)."""
    h = x - math.log(x)
    h -= y
    h *= x
    h /= x - 1.0
    return x - h


@njit(cache=True, inline="always")
def poisson_end(ps, x, upper):
    return min(ps * x, upper)


@njit(cache=True)
def klucb_poisson(p, n, beta, upper):
    """:func:`delaylab.indices.klucb_poisson` for one arm."""
    q, ps, y, x = poisson_start(p, n, beta, upper)
    if q == q:
        return q
    for _ in range(3):
        x = poisson_step(x, y)
    return poisson_end(ps, x, upper)


@njit(cache=True, inline="always")
def bernoulli_start(p, n, beta):
    """The first operations of :func:`klucb_bernoulli`: (q, pc, neg_entropy, c, z₀). Where no Newton
    step is needed (n ≤ 0) q is the index; else q = nan, and the index is ``bernoulli_end(p, z)``
    with z four ``bernoulli_step``s from z₀ (p is the clipped p, the first value returned)."""
    if not n > 0:
        return INF, 0.0, 0.0, 0.0, 0.0
    c = max(beta / n, 1e-15)
    pc = p if p < 1.0 else 0.5
    neg_entropy = (pc * math.log(pc / 1.0) if pc > 0 else 0.0) + (1.0 - pc) * math.log1p(-pc)
    q0 = min(pc + c + math.sqrt(c * (c + 2.0 * pc)), pc + math.sqrt(2.0 * c * (1.0 - pc)))
    z = min(-math.log1p(-min(q0, 1.0 - 1e-16)), (c - neg_entropy) / (1.0 - pc))
    return math.nan, pc, neg_entropy, c, z


@njit(cache=True, inline="always")
def bernoulli_step(z, pc, neg_entropy, c):
    """One Newton step in z = −log(1 − q) (the numpy path's operations, in its order)."""
    q = -math.expm1(-z)
    g = neg_entropy - pc * math.log(q) + (1.0 - pc) * z - c
    return z - g * q / (q - pc)


@njit(cache=True, inline="always")
def bernoulli_end(p, z):
    q = min(max(-math.expm1(-z), p), 1.0)
    if p >= 1.0:
        q = 1.0
    return q


@njit(cache=True)
def klucb_bernoulli(p, n, beta):
    """:func:`delaylab.indices.klucb_bernoulli` for one arm."""
    p = min(max(p, 0.0), 1.0)
    q, pc, neg_entropy, c, z = bernoulli_start(p, n, beta)
    if q == q:
        return q
    for _ in range(4):
        z = bernoulli_step(z, pc, neg_entropy, c)
    return bernoulli_end(p, z)


@njit(cache=True)
def ucb1(mean, n, log_t, c):
    """UCB1's index (:meth:`delaylab.UCB1.index`): mean + sqrt(c log t / n), +inf if n = 0."""
    if n <= 0:
        return INF
    return mean + math.sqrt(c * log_t / max(n, 1e-300))


@njit(cache=True)
def delayed_ucb(theta, n, n_tilde, beta):
    """:func:`delaylab.indices.delayed_ucb_index` for one arm."""
    if not n_tilde > 0:
        return INF
    safe = max(n_tilde, 1e-300)
    return theta + math.sqrt(n / safe) * math.sqrt(beta / (2.0 * safe))


@njit(cache=True, fastmath={"reassoc", "contract"})
def ring_dot(onehot, rev2, offset):
    """Σ_j onehot[j] · rev2[offset + j]: the recent part of the tabulated Ñ. The weights are dyadic
    (:meth:`TabulatedCount.set_weights`), so every partial sum is exact and the reordering that
    ``fastmath`` allows (SIMD) gives exactly the numpy path's value."""
    acc = 0.0
    for j in range(onehot.shape[0]):
        acc += onehot[j] * rev2[offset + j]
    return acc


@njit(cache=True, inline="always")
def poisson_choose(th, nt, beta, upper, q, ps, y, x, choice):
    """choice[b] = argmax_k klucb_poisson(th[b, k], nt[b, k], β[b], upper) for every run b, first of
    ties; q, ps, y, x are (B, K) scratch arrays. The same operations as :func:`klucb_poisson`, arm
    by arm, but each Newton step is taken for every run and arm before the next: the B·K chains
    are independent, so the CPU overlaps their logs and divisions instead of waiting for each."""
    B, K = th.shape
    for b in range(B):
        for k in range(K):
            q[b, k], ps[b, k], y[b, k], x[b, k] = poisson_start(th[b, k], nt[b, k], beta[b], upper)
    for _ in range(3):
        for b in range(B):
            for k in range(K):
                if q[b, k] != q[b, k]:
                    x[b, k] = poisson_step(x[b, k], y[b, k])
    for b in range(B):
        a, best = 0, -INF
        for k in range(K):
            v = q[b, k] if q[b, k] == q[b, k] else poisson_end(ps[b, k], x[b, k], upper)
            if v > best:
                a, best = k, v
        choice[b] = a


# ---------------------------------------------------------------------- UCB1, KL-UCB
@njit(cache=True)
def blind_kernel(i0, i1, t0, draws, cal, cum, out, pulls, state, kl):
    """UCB1 (kl = False, state.par = c) or KL-UCB (kl = True, state.par = ε) on a
    :class:`~delaylab.policies.ucb.BlindIndexState`: :mod:`delaylab.policies.ucb`."""
    u, delays, theta, gap, kind, window, T = draws
    head, nxt, cal_arm, cal_value, with_values = cal
    B, K = theta.shape
    W = head.shape[0]
    n_pulls, succ, revealed, labelled, par = state.pulls, state.successes, state.revealed, state.labelled, state.par
    # every run's decision first, then every run's pull and update (as in delayed_kernel): the
    # Newton steps of KL-UCB's index, for all runs and arms, are independent chains that overlap
    pk = np.empty((B, K))
    q, pc, ne, c, z = np.empty((B, K)), np.empty((B, K)), np.empty((B, K)), np.empty((B, K)), np.empty((B, K))
    choice = np.empty(B, dtype=np.int64)
    for i in range(i0, i1):  # steps outside, runs inside: the calendar's rows are contiguous
        t = t0 + i
        slot = t % W
        lt = math.log(t + 1)
        if t < K:
            choice[:] = t
        elif kl:
            for b in range(B):
                beta = (1.0 + par[b]) * lt
                for k in range(K):
                    n = revealed[b, k] if labelled else n_pulls[b, k]
                    pk[b, k] = min(max(succ[b, k] / max(n, 1.0), 0.0), 1.0)
                    q[b, k], pc[b, k], ne[b, k], c[b, k], z[b, k] = bernoulli_start(pk[b, k], n, beta)
            for _ in range(4):
                for b in range(B):
                    for k in range(K):
                        if q[b, k] != q[b, k]:
                            z[b, k] = bernoulli_step(z[b, k], pc[b, k], ne[b, k], c[b, k])
            for b in range(B):
                a, best = 0, -INF
                for k in range(K):
                    idx = q[b, k] if q[b, k] == q[b, k] else bernoulli_end(pk[b, k], z[b, k])
                    if idx > best:
                        a, best = k, idx
                choice[b] = a
        else:
            for b in range(B):
                a, best = 0, -INF
                for k in range(K):
                    n = revealed[b, k] if labelled else n_pulls[b, k]
                    idx = ucb1(succ[b, k] / max(n, 1.0), n, lt, par[b])
                    if idx > best:
                        a, best = k, idx
                choice[b] = a
        for b in range(B):
            a = choice[b]
            play(i, i0, b, t, slot, a, pulls, cum, out, gap, u, delays, theta, kind, window, T, head, nxt,
                 cal_arm, cal_value, with_values)
            n_pulls[b, a] += 1.0
            s = first_arrival(head, slot, b)
            while s >= 0:
                r = s % W
                arm = cal_arm[r, b]
                succ[b, arm] += cal_value[r, b] if with_values else 1.0
                if labelled:
                    revealed[b, arm] += 1.0
                s = next_arrival(nxt, r, b)


class BlindKernel(Kernel):
    fn = staticmethod(blind_kernel)

    @property
    def max_batch(self):
        # KL-UCB's Bernoulli index (a log and an expm1 per Newton step): numpy's SIMD loops catch
        # up on large batches, from about 800 runs since the engine's blocks grew (benchmarks/RESULTS.md)
        return 768 if isinstance(self.policy, KLUCB) else None

    def arguments(self):
        return self.policy.kernel_state(), isinstance(self.policy, KLUCB)


# ---------------------------------------------------------------------- D-UCB, D-KLUCB, UD-*
# Ñ's two implementations (delaylab.policies.counts), chosen when the kernel is compiled by the
# type of the count's state: a GeometricCountState or a TabulatedCountState. Each call covers
# every run of the batch (one call per step: the runs are independent), and is inlined where it is
# called: a call per step passes the count's arrays and counts their references (issue 37's
# single-run times, benchmarks/RESULTS.md).
def n_tilde(count, t, out):  # pragma: no cover - compiled through its overload
    """Ñ_k of every run b for the decision of step t (``count.value()``), (B, K): the geometric
    count's own array (not to be written), or the tabulated count's, computed into ``out``."""
    raise NotImplementedError


def push(count, t, arms):  # pragma: no cover - compiled through its overload
    """``count.push``: arms[b] pulled at step t of every run b."""
    raise NotImplementedError


@overload(n_tilde, inline="always")
def _n_tilde(count, t, out):
    if is_state(count, GeometricCountState):
        def geometric(count, t, out):
            return count.n_tilde
        return geometric
    if is_state(count, TabulatedCountState):
        def tabulated(count, t, out):  # TabulatedCount.value()
            w_old, old, buf, rev2 = count.w_old, count.old, count.buf, count.rev2
            B, K = out.shape
            Wt = buf.shape[2]
            tc = t - 1  # the count's clock: its last push
            for b in range(B):
                bw = b if w_old.shape[0] > 1 else 0
                for k in range(K):
                    kw = k if w_old.shape[1] > 1 else 0
                    v = w_old[bw, kw] * old[b, k]
                    if Wt > 0 and tc >= 0:
                        v = v + ring_dot(buf[b, k], rev2[bw, kw], Wt - 1 - tc % Wt)
                    out[b, k] = v
            return out
        return tabulated
    return None


@overload(push, inline="always")
def _push(count, t, arms):
    if is_state(count, GeometricCountState):
        def geometric(count, t, arms):  # GeometricCount.push
            nt, O, lam, matures, mr, lam_m1, ring = count
            B, K = O.shape
            for b in range(B):
                a = arms[b]
                for k in range(K):
                    o = O[b, k] + (1.0 if k == a else 0.0)
                    nt[b, k] += matures[b, k] * o
                    O[b, k] = o * lam[b, k]
                if mr >= 0:
                    ring[t % (mr + 1), b] = a
                    s = t - mr
                    if s >= 0:
                        k2 = ring[s % (mr + 1), b]
                        O[b, k2] -= lam_m1[b, k2]
        return geometric
    if is_state(count, TabulatedCountState):
        def tabulated(count, t, arms):  # TabulatedCount.push
            old, buf = count.old, count.buf
            B, K = old.shape
            Wt = buf.shape[2]
            for b in range(B):
                a = arms[b]
                if Wt == 0:
                    old[b, a] += 1.0
                else:
                    slot = t % Wt
                    if t >= Wt:
                        for k in range(K):
                            old[b, k] += buf[b, k, slot]
                    for k in range(K):
                        buf[b, k, slot] = 1.0 if k == a else 0.0
        return tabulated
    return None


@njit(cache=True)
def delayed_kernel(i0, i1, t0, draws, cal, cum, out, pulls, state, kl):
    """D-UCB / D-KLUCB (kl) on a :class:`~delaylab.policies.delayed.DelayedIndexState`, with Ñ
    from the geometric recursion (:class:`GeometricCount`) or the tabulated weights
    (:class:`TabulatedCount`): :mod:`delaylab.policies.delayed`. Conversions later than the
    policy's window m are ignored unless all_in_window."""
    u, delays, theta, gap, kind, window, T = draws
    head, nxt, cal_arm, cal_value, with_values = cal
    B, K = theta.shape
    Wc = head.shape[0]
    n_pulls, succ, eps, m, all_in_window, count = (state.pulls, state.successes, state.eps, state.m,
                                                   state.all_in_window, state.count)
    # every run's decision first, then every run's pull and update: the decisions of one step are
    # independent chains of Newton steps (logs and divisions) that the CPU overlaps, where one
    # run's decide-then-update waited for each chain in turn
    scratch, ths, beta = np.empty((B, K)), np.empty((B, K)), np.empty(B)
    q, ps, y, x = np.empty((B, K)), np.empty((B, K)), np.empty((B, K)), np.empty((B, K))
    choice = np.empty(B, dtype=np.int64)
    for i in range(i0, i1):  # steps outside, runs inside: the calendar's rows are contiguous
        t = t0 + i
        slot = t % Wc
        lt = math.log(t + 1)
        if t < K:
            choice[:] = t
        else:
            nts = n_tilde(count, t, scratch)
            for b in range(B):
                beta[b] = (1.0 + eps[b]) * lt
                for k in range(K):
                    ths[b, k] = succ[b, k] / max(nts[b, k], 1e-300)
            if kl:
                poisson_choose(ths, nts, beta, 1.0, q, ps, y, x, choice)
            else:
                for b in range(B):
                    a, best = 0, -INF
                    for k in range(K):
                        idx = delayed_ucb(ths[b, k], n_pulls[b, k], nts[b, k], beta[b])
                        if idx > best:
                            a, best = k, idx
                    choice[b] = a
        for b in range(B):
            a = choice[b]
            play(i, i0, b, t, slot, a, pulls, cum, out, gap, u, delays, theta, kind, window, T, head, nxt,
                 cal_arm, cal_value, with_values)
            # DelayedIndex.update: N, then Ñ's push (below, for every run), then the conversions revealed
            n_pulls[b, a] += 1.0
            s = first_arrival(head, slot, b)
            while s >= 0:
                if all_in_window or t - s <= m:
                    succ[b, cal_arm[s % Wc, b]] += 1.0
                s = next_arrival(nxt, s % Wc, b)
        push(count, t, choice)  # each run's Ñ apart from the others: the same as after each run's pull


class DelayedKernel(Kernel):
    fn = staticmethod(delayed_kernel)

    @property
    def max_batch(self):
        # D-UCB's index is two square roots, which numpy's SIMD loops take as fast on large
        # batches with the O(1) geometric count: even at about 1000-1500 runs (benchmarks/RESULTS.md).
        # D-KLUCB's Newton steps (interleaved over runs) and the tabulated count keep the kernel
        # ahead at every size
        return 1024 if isinstance(self.policy, DelayedUCB) and isinstance(self.policy.count_, GeometricCount) else None

    def arguments(self):
        return self.policy.kernel_state(), isinstance(self.policy, DelayedKLUCB)

    def after(self, last_step):
        if isinstance(self.policy.count_, TabulatedCount):
            self.policy.count_.t = last_step


# ---------------------------------------------------------------------- Discarding UCB / KL-UCB
@njit(cache=True)
def discarding_kernel(i0, i1, t0, draws, cal, cum, out, pulls, state, kl):
    """Discarding UCB / KL-UCB (kl) on a :class:`~delaylab.policies.discarding.DiscardingState`:
    :mod:`delaylab.policies.discarding`."""
    u, delays, theta, gap, kind, window, T = draws
    head, nxt, cal_arm, cal_value, with_values = cal
    B, K = theta.shape
    Wc = head.shape[0]
    n_pulls, done_pulls, done_succ, arms_ring, converted, tau_m, eps, m = state
    ring = m + 1
    # every run's decision first, then every run's pull and update (as in delayed_kernel)
    nts, ths, beta = np.empty((B, K)), np.empty((B, K)), np.empty(B)
    q, ps, y, x = np.empty((B, K)), np.empty((B, K)), np.empty((B, K)), np.empty((B, K))
    choice, missing = np.empty(B, dtype=np.int64), np.empty(B, dtype=np.bool_)
    for i in range(i0, i1):  # steps outside, runs inside: the calendar's rows are contiguous
        t = t0 + i
        slot = t % Wc
        lt = math.log(t + 1)
        for b in range(B):
            # choose: arms without a pull m steps old are played round robin, least pulled first
            missing[b] = False
            for k in range(K):
                if done_pulls[b, k] == 0:
                    missing[b] = True
            beta[b] = (1.0 + eps[b]) * lt
            for k in range(K):
                n = tau_m[b, k] * done_pulls[b, k] if not missing[b] else 0.0  # 0: no Newton steps
                nts[b, k] = n
                ths[b, k] = done_succ[b, k] / n if n > 0 else 0.0
        if kl:
            poisson_choose(ths, nts, beta, 1.0, q, ps, y, x, choice)
        for b in range(B):
            if missing[b]:
                a, least = 0, INF
                for k in range(K):
                    v = n_pulls[b, k] if done_pulls[b, k] == 0 else INF
                    if v < least:
                        a, least = k, v
                choice[b] = a
            elif not kl:
                a, best = 0, -INF
                for k in range(K):
                    n, th = nts[b, k], ths[b, k]
                    idx = th + math.sqrt(beta[b] / (2.0 * max(n, 1e-300))) if n > 0 else INF
                    if idx > best:
                        a, best = k, idx
                choice[b] = a
        for b in range(B):
            a = choice[b]
            play(i, i0, b, t, slot, a, pulls, cum, out, gap, u, delays, theta, kind, window, T, head, nxt,
                 cal_arm, cal_value, with_values)
            n_pulls[b, a] += 1.0
            arms_ring[t % ring, b] = a
            converted[t % ring, b] = 0.0
            s = first_arrival(head, slot, b)
            while s >= 0:
                if t - s <= m:
                    converted[s % ring, b] = 1.0
                s = next_arrival(nxt, s % Wc, b)
            s = t - m
            if s >= 0:
                old = arms_ring[s % ring, b]
                done_pulls[b, old] += 1.0
                done_succ[b, old] += converted[s % ring, b]


class DiscardingKernel(Kernel):
    fn = staticmethod(discarding_kernel)

    def arguments(self):
        return self.policy.kernel_state(), isinstance(self.policy, DiscardingKLUCB)


def make(policy, setting, problem, calendar):
    """The kernel of ``policy`` if this family has one for it, else None."""
    if not _env.supported(setting):
        return None
    if type(policy) in (UCB1, KLUCB):
        return BlindKernel(policy, setting, problem, calendar)
    if type(policy) in (DelayedUCB, DelayedKLUCB) and type(policy.count_) in (GeometricCount, TabulatedCount):
        return DelayedKernel(policy, setting, problem, calendar)
    if type(policy) in (DiscardingUCB, DiscardingKLUCB):
        return DiscardingKernel(policy, setting, problem, calendar)
    return None
