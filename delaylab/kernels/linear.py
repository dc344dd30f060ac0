r"""Kernel of the linear learners of Vernade et al. (ICML 2020): OTFLinUCB (Algorithm 1,
``variant="paper"``, and ``"no-delay-term"``: α_{t,δ} = 2 f_{t,δ}), OTFLinTS (Algorithm 2) and delay-blind LinUCB, both widths of the delay
term: :mod:`delaylab.policies.linear`.

Per run, each step: θ̂^W_t = V_t^{-1} B_t, the delay term Σ_{s=t−m}^{t−1} ‖A_s‖ (in V_t^{-1}
over the ring of the last m + 1 actions, or the stored ‖A_s‖_{V_s^{-1}}), then OTFLinUCB's
index ⟨a, θ̂⟩ + (2 f_{t,δ} + term) ‖a‖_{V_t^{-1}}, LinUCB's ⟨a, θ̂⟩ + f_{t,δ} ‖a‖_{V_t^{-1}}, or
OTFLinTS's ⟨a, θ̃⟩ with θ̃ = θ̂ + sqrt(1 + term / f_{t,δ}) L z (L the Cholesky factor of V_t^{-1},
computed here from its lower triangle as numpy's does; z the step's Gaussian draws, read from
the policy's own stream before the call, as the numpy path reads them); the argmax (ties up to
``TIE_TOL`` to the lowest action, as :func:`~delaylab.policies.linear.argmax_lowest`); the
pull; the Sherman–Morrison update of V^{-1}; the conversions arriving at the end of the step,
those seen within m steps (all, for LinUCB) added to B_t, latest pull first as the numpy path's
layers.

Why: the numpy policy does about thirty small numpy operations per step on (B, d, d) and
(B, d, m + 1) arrays, so with the panel's few runs the per-call cost dominates. Compiled, a
run-step costs the O(K d² + m d²) arithmetic itself (the exact delay term V^{-1}·[A_s …] with
the ring index innermost, so that it vectorises). The kernel is faster than numpy at every batch
size, from one run to a thousand (benchmarks/RESULTS.md; ``python3 tasks.py bench kernels``), so
there is no ``max_batch``. The small matrix products are written as loops here and run
through numpy's matmul there, so sums may be ordered differently: values agree to ~1e-15
(the tests require 1e-12 on the traced V^{-1}, θ̂ and α and identical pulls; the argmax's tie
tolerance keeps rounding from choosing between actions that tie exactly). OTFLinUCB's
``variant="authors-code"`` (a demonstration of the authors' code, not run by the panels) stays
on numpy.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..policies.linear import TIE_TOL, LinearState, LinUCB, OTFLinTS, OTFLinUCB
from ..settings.linear import LinearConversions
from ._env import calendar_arrays, first_arrival, next_arrival, schedule, writable

OTFLINUCB, LINUCB, OTFLINTS, OTFLINUCB_2F = 0, 1, 2, 3


class LinearDraws(NamedTuple):
    """A block of :class:`~delaylab.LinearConversions` as the kernel reads it (row i: step t0 + i)."""

    #: (n, B) reward uniforms: the pull of action a converts iff u < its mean
    u: np.ndarray
    #: (n, B) int64 delays
    delays: np.ndarray
    #: (n, B, K, d) the action sets
    actions: np.ndarray
    #: (n, B, K) the actions' conversion probabilities
    means: np.ndarray
    #: (n, B) the best mean of each round
    best: np.ndarray
    #: the setting's censoring window, −1 for none
    window: int
    #: the horizon T
    T: int


@njit(cache=True)
def linear_kernel(i0, i1, t0, draws, cal, cum, out, pulls, state, kind, z):
    """The linear learners on a :class:`~delaylab.policies.linear.LinearState`. kind: OTFLINUCB,
    OTFLINUCB_2F (index with 2 f_{t,δ}, no delay term), LINUCB (index with f_{t,δ}, no delay term) or OTFLINTS (z: its Gaussian draws (n, B, d) for
    rows i0 … i1 − 1)."""
    u, delays, actions, means, best, window, T = draws
    head, nxt, cal_arm, cal_value, with_values = cal
    v_inv, bvec, ring, norms, f_table, m, exact = state
    B, K, d = actions.shape[1], actions.shape[2], actions.shape[3]
    M = ring.shape[2]
    Wc = head.shape[0]
    th = np.empty(d)
    vx = np.empty(d)
    idx = np.empty(K)
    nrm = np.empty(M)
    y = np.empty(M)
    L = np.zeros((d, d))
    for i in range(i0, i1):
        t = t0 + i
        slot = t % Wc
        for b in range(B):
            fb = b if f_table.shape[0] > 1 else 0  # one row shared by every run, or one per run
            # θ̂ = V^{-1} B
            for r in range(d):
                acc = 0.0
                for c in range(d):
                    acc += v_inv[b, r, c] * bvec[b, c]
                th[r] = acc
            # α_{t,δ} = 2 f_{t,δ} + Σ_{s=t−m}^{t−1} ‖A_s‖ (the slot of round t − m − 1 excluded)
            term = 0.0
            if (kind == OTFLINUCB or kind == OTFLINTS) and M - 1 >= 1:
                stale = (t - M) % M
                if exact:  # Y = V^{-1} X over the ring, then ‖A_s‖² = Σ_r Y[r, s] X[r, s]; s innermost (SIMD)
                    for s in range(M):
                        nrm[s] = 0.0
                    for r in range(d):
                        for s in range(M):
                            y[s] = 0.0
                        for c in range(d):
                            w = v_inv[b, r, c]
                            for s in range(M):
                                y[s] += w * ring[b, c, s]
                        for s in range(M):
                            nrm[s] += y[s] * ring[b, r, s]
                    for s in range(M):
                        nrm[s] = math.sqrt(max(nrm[s], 0.0))
                    tot = 0.0
                    for s in range(M):
                        tot += nrm[s]
                    term = tot - nrm[stale]
                else:
                    tot = 0.0
                    for s in range(M):
                        tot += norms[b, s]
                    term = tot - norms[b, stale]
            top = -np.inf
            if kind == OTFLINTS:  # θ̃ = θ̂ + sqrt(β) L z, V^{-1} = L Lᵀ (its lower triangle), β = 1 + term / f
                for j in range(d):
                    acc = v_inv[b, j, j]
                    for k in range(j):
                        acc -= L[j, k] * L[j, k]
                    L[j, j] = math.sqrt(acc)
                    for r in range(j + 1, d):
                        acc = v_inv[b, r, j]
                        for k in range(j):
                            acc -= L[r, k] * L[j, k]
                        L[r, j] = acc / L[j, j]
                sb = math.sqrt(1.0 + term / f_table[fb, t])
                for r in range(d):
                    acc = 0.0
                    for c in range(r + 1):
                        acc += L[r, c] * z[i - i0, b, c]
                    vx[r] = th[r] + sb * acc
                for k in range(K):
                    lin = 0.0
                    for c in range(d):
                        lin += actions[i, b, k, c] * vx[c]
                    idx[k] = lin
                    if lin > top:
                        top = lin
            else:
                alpha = f_table[fb, t] if kind == LINUCB else 2.0 * f_table[fb, t] + term  # term = 0 for OTFLINUCB_2F
                for k in range(K):
                    lin = 0.0
                    q = 0.0
                    for c in range(d):
                        lin += actions[i, b, k, c] * th[c]
                        acc = 0.0
                        for r in range(d):
                            acc += actions[i, b, k, r] * v_inv[b, r, c]
                        q += acc * actions[i, b, k, c]
                    idx[k] = lin + alpha * math.sqrt(max(q, 0.0))
                    if idx[k] > top:
                        top = idx[k]
            cut = top - TIE_TOL * max(abs(top), 1.0)
            a = 0
            for k in range(K):
                if idx[k] >= cut:
                    a = k
                    break
            # the pull
            mean = means[i, b, a]
            pulls[b, a] += 1
            cum[b] += best[i, b] - mean
            out[i - i0, b] = cum[b]
            dl = delays[i, b]
            due = u[i, b] < mean and (window < 0 or dl <= window) and dl <= T - 1 - t
            schedule(b, t, slot, a, due, dl, 0.0, head, nxt, cal_arm, cal_value, with_values)
            # Sherman–Morrison: V^{-1} −= (V^{-1}A)(V^{-1}A)ᵀ / (1 + ‖A‖²)
            q = 0.0
            for r in range(d):
                acc = 0.0
                for c in range(d):
                    acc += v_inv[b, r, c] * actions[i, b, a, c]
                vx[r] = acc
                q += actions[i, b, a, r] * acc
            q = max(q, 0.0)
            for r in range(d):
                for c in range(d):
                    v_inv[b, r, c] -= vx[r] * (vx[c] / (1.0 + q))
            rs = t % M
            for c in range(d):
                ring[b, c, rs] = actions[i, b, a, c]
            norms[b, rs] = math.sqrt(q)
            # conversions arriving at the end of step t: those seen within m steps join B_t
            s = first_arrival(head, slot, b)
            while s >= 0:
                if m < 0 or t - s <= m:
                    for c in range(d):
                        bvec[b, c] += ring[b, c, s % M]
                s = next_arrival(nxt, s % Wc, b)
    return i1


class LinearKernel:
    """The kernel of OTFLinUCB, OTFLinTS and LinUCB: :meth:`run` as :meth:`._env.Kernel.run`."""

    fn = staticmethod(linear_kernel)
    max_batch = None

    def __init__(self, policy, setting, problem, calendar, kind):
        self.policy, self.kind = policy, kind
        self.calendar = calendar
        self.window = -1 if setting.window is None else int(setting.window)
        self.T = int(problem.horizon)
        self.B = problem.size
        self.state = None
        self._no_z = np.zeros((0, 0, 0))  # no Gaussian draws (OTFLinUCB, LinUCB)

    def run(self, block, t0, i0, i1, cum, pulls):
        p = self.policy
        c = writable
        draws = LinearDraws(c(block.u), c(block.delays, np.int64), c(block.actions), c(block.means), c(block.best),
                            self.window, self.T)
        if self.state is None:  # the policy's arrays (updated in place) and a writable C-contiguous f table, once
            state = p.kernel_state()
            f = state.f_table
            f = f[:1] if f.shape[0] > 1 and f.strides[0] == 0 else f  # a row broadcast to every run: that row
            self.state = LinearState(state.v_inv, state.b, state.actions, state.norms, writable(f), state.m,
                                     state.exact)
        # OTFLinTS: the Gaussian draws of each step, from the policy's own stream as the numpy path reads them
        z = p.normals(t0 + i0, t0 + i1) if self.kind == OTFLINTS else self._no_z
        out = np.empty((i1 - i0, self.B))
        self.fn(int(i0), int(i1), int(t0), draws, calendar_arrays(self.calendar), cum, out, pulls, self.state,
                self.kind, c(z))
        p.t_next_ = t0 + i1
        return out


def make(policy, setting, problem, calendar):
    if not isinstance(setting, LinearConversions):
        return None
    if type(policy) is OTFLinUCB and policy.variant in ("paper", "no-delay-term"):
        return LinearKernel(policy, setting, problem, calendar,
                            OTFLINUCB if policy.variant == "paper" else OTFLINUCB_2F)
    if type(policy) is OTFLinTS:
        return LinearKernel(policy, setting, problem, calendar, OTFLINTS)
    if type(policy) is LinUCB:
        return LinearKernel(policy, setting, problem, calendar, LINUCB)
    return None
