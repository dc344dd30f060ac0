r"""Kernel of QPM-D (Joulani, György, Szepesvári 2013) over UCB1 or KL-UCB: :mod:`delaylab.policies.qpmd`.

Per run, each step: while the base algorithm asks for an arm whose queue holds rewards, give it
the oldest one (its clock r and its counts move on) and ask again; play the arm it waits for;
the rewards revealed at the end of the step join their arms' queues, latest pull first. The
numpy policy computes the same chain of the base's choices vectorised over runs.

The queues live in the policy's arrays (:class:`~delaylab.policies.qpmd.QPMDState`: ``buf``
(B, K, capacity) rings, ``head``, ``queue_len``). When a step's arrivals might not fit, the
kernel stops before that step and the policy doubles the capacity (:meth:`QPMD.grow`), as the
numpy path does.
"""

from __future__ import annotations

import math

from numba import njit

from ..policies.qpmd import QPMD
from . import _env
from ._env import Kernel, first_arrival, next_arrival, pending, play
from .index import INF, klucb_bernoulli, ucb1


@njit(cache=True)
def base_choice(n, s, par, ucb, b):
    """QPMD._base_choice for run b: arm ρ at the base's round ρ = Σ_k n_k < K, then the argmax of
    its index at decision ρ + 1."""
    K = n.shape[1]
    rho = 0.0
    for k in range(K):
        rho += n[b, k]
    if rho < K:
        return int(rho)
    lr = math.log(rho + 1.0)
    a, best = 0, -INF
    for k in range(K):
        mean = s[b, k] / max(n[b, k], 1.0)
        if ucb:
            idx = ucb1(mean, n[b, k], lr, par)
        else:
            idx = klucb_bernoulli(mean, n[b, k], (1.0 + par) * lr)
        if idx > best:
            a, best = k, idx
    return a


@njit(cache=True)
def qpmd_kernel(i0, i1, t0, draws, cal, cum, out, pulls, state):
    """QPM-D on a :class:`~delaylab.policies.qpmd.QPMDState`; returns the step (row of the block)
    before which the queues must grow, or i1."""
    u, delays, theta, gap, kind, window, T = draws
    head, nxt, cal_arm, cal_value, with_values = cal
    B, K = theta.shape
    n_, s_, pulls_, buf, qhead, qlen, J_, par, ucb = state
    cap = buf.shape[2]
    Wc = head.shape[0]
    for i in range(i0, i1):
        t = t0 + i
        slot = t % Wc
        for b in range(B):  # room for this step's arrivals (at most the list, plus its own pull)?
            cnt = 1 + pending(head, nxt, slot, b)
            for k in range(K):
                if qlen[b, k] + cnt > cap:
                    return i
        for b in range(B):
            J = J_[b]
            while qlen[b, J] > 0:  # feed the base from the queue of the arm it waits for
                h = qhead[b, J]
                v = buf[b, J, h]
                qhead[b, J] = (h + 1) % cap
                qlen[b, J] -= 1
                n_[b, J] += 1.0
                s_[b, J] += v
                J = base_choice(n_, s_, par[b], ucb, b)
            J_[b] = J
            a = J
            play(i, i0, b, t, slot, a, pulls, cum, out, gap, u, delays, theta, kind, window, T, head, nxt,
                 cal_arm, cal_value, with_values)
            pulls_[b, a] += 1.0
            s = first_arrival(head, slot, b)
            while s >= 0:  # the revealed rewards join their queues
                r = s % Wc
                arm = cal_arm[r, b]
                tail = (qhead[b, arm] + qlen[b, arm]) % cap
                buf[b, arm, tail] = cal_value[r, b]
                qlen[b, arm] += 1
                s = next_arrival(nxt, r, b)
    return i1


class QPMDKernel(Kernel):
    fn = staticmethod(qpmd_kernel)

    def arguments(self):
        return (self.policy.kernel_state(),)

    def make_room(self):
        self.policy.grow()


def make(policy, setting, problem, calendar):
    if _env.supported(setting) and type(policy) is QPMD:
        return QPMDKernel(policy, setting, problem, calendar)
    return None
