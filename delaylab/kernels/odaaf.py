r"""Kernel of the phased elimination family of Pike-Burke et al. (2018): ODAAF, ODAAF-B, ODAAF-V and
Improved UCB (:mod:`delaylab.policies.odaaf`, :mod:`delaylab.policies.improved_ucb`).

Per run, each step: play the block's arm; at the end of the step, the anonymous sum that
arrives (the calendar's list of the step, walked as the numpy step-by-step path does) is
credited to that arm unless the run is in a bridge period (labelled rewards, for Improved UCB:
each to its own arm); when the run's block ends, :meth:`~delaylab.policies.odaaf.Phased._advance`
for that run — the next active arm of Step 1, or Steps 2–4 (elimination, next tolerance,
bridge on the leader, or commitment to the leader), or the next phase after a bridge. The
policy's own arrays hold the state, so ``snapshot()`` shows what the numpy path shows. Rewards
are 0 or 1, so every sum is a whole number and exact in any order: the runs are those of the
numpy paths, bit for bit.

Why a kernel although the numpy policy has the engine's block path (arms fixed for a whole block,
learnt from at once): that path costs a few dozen numpy calls per stretch of steps, and a
stretch ends when *any* run of the batch ends its block, at a draw block (≤ 1024 steps) or at a
checkpoint; with few runs its fixed cost per call dominates. With many runs both paths are
close to the cost of the environment's draws alone, and numpy's block path is slightly ahead
(benchmarks/RESULTS.md; ``python3 tasks.py bench kernels`` measures both). Hence ``max_batch``:
larger chunks take the block path, with the same runs.
"""

from __future__ import annotations

from numba import njit

from ..policies.improved_ucb import ImprovedUCB
from ..policies.odaaf import ODAAF, ODAAFB, ODAAFV
from . import _env
from ._env import Kernel, first_arrival, next_arrival, play
from .index import INF


@njit(cache=True)
def start_phase(b, now, state):
    """Phased._start_phase for run b: Step 1 of the current phase, from the first active arm."""
    active, phase, arm, end, in_bridge, phase_start, length = (state.active, state.phase, state.arm, state.end,
                                                               state.in_bridge, state.phase_start, state.length)
    K = active.shape[1]
    in_bridge[b] = False
    first = 0
    for k in range(K):
        if active[b, k]:
            first = k
            break
    arm[b] = first
    p = phase[b]
    end[b] = now + length[b, p]
    phase_start[b, p] = now


@njit(cache=True)
def advance(b, now, T, state):
    """Phased._advance for run b, whose block ended before step ``now``."""
    (active, sums, samples, phase, arm, end, in_bridge, committed, phase_start, bridge_start, eliminated_at, length,
     width, bridge, _) = state
    K = active.shape[1]
    P = length.shape[1]
    if in_bridge[b]:
        start_phase(b, now, state)
        return
    for k in range(arm[b] + 1, K):  # Step 1 goes on with the next active arm
        if active[b, k]:
            arm[b] = k
            end[b] = now + length[b, phase[b]]
            return
    # Steps 2–4 (Phased._end_of_step1)
    p = phase[b]
    best = -INF
    for k in range(K):
        if active[b, k]:
            x = sums[b, k] / max(samples[b, k], 1.0)
            if x > best:
                best = x
    tol = width[b, p]
    for k in range(K):  # Step 2: eliminate X̄_j + Δ̃ < max_i X̄_i
        if active[b, k] and sums[b, k] / max(samples[b, k], 1.0) + tol < best:
            eliminated_at[b, k] = now - 1
            active[b, k] = False
    leader, lead, n_active = 0, -INF, 0
    for k in range(K):
        if active[b, k]:
            n_active += 1
            x = sums[b, k] / max(samples[b, k], 1.0)
            if x > lead:
                leader, lead = k, x
    if n_active == 1 or p + 1 >= P:  # one arm left (or no phase left): the leader to the end
        arm[b] = leader
        end[b] = max(T, now + 1)
        committed[b] = True
        return
    phase[b] = p + 1  # Step 3
    if bridge:  # Step 4: a bridge period on the leader, its observations discarded
        arm[b] = leader
        in_bridge[b] = True
        end[b] = now + length[b, p]
        bridge_start[b, p] = now
    else:
        start_phase(b, now, state)


@njit(cache=True)
def phased_kernel(i0, i1, t0, draws, cal, cum, out, pulls, state):
    """The phased family on a :class:`~delaylab.policies.odaaf.PhasedState`."""
    u, delays, theta, gap, kind, window, T = draws
    head, nxt, cal_arm, cal_value, with_values = cal
    B, K = theta.shape
    sums, samples, arm, end, in_bridge, labelled = (state.sums, state.samples, state.arm, state.end, state.in_bridge,
                                                    state.labelled)
    Wc = head.shape[0]
    for i in range(i0, i1):
        t = t0 + i
        slot = t % Wc
        for b in range(B):
            a = arm[b]
            play(i, i0, b, t, slot, a, pulls, cum, out, gap, u, delays, theta, kind, window, T, head, nxt,
                 cal_arm, cal_value, with_values)
            total = 0.0
            s = first_arrival(head, slot, b)
            while s >= 0:  # what arrives at the end of step t
                r = s % Wc
                if labelled:
                    sums[b, cal_arm[r, b]] += cal_value[r, b]
                    samples[b, cal_arm[r, b]] += 1.0
                else:
                    total += cal_value[r, b]
                s = next_arrival(nxt, r, b)
            if not labelled and not in_bridge[b]:  # the anonymous sum, credited to the arm played
                sums[b, a] += total
                samples[b, a] += 1.0
            if end[b] == t + 1:
                advance(b, t + 1, T, state)
    return i1


class PhasedKernel(Kernel):
    fn = staticmethod(phased_kernel)
    max_batch = 100  # above, numpy's block path is as fast or faster (the module docstring)

    def arguments(self):
        return (self.policy.kernel_state(),)


def make(policy, setting, problem, calendar):
    # exact types: a subclass may replace a step (e.g. the exercises' survivors()), which the kernel would not see
    if _env.supported(setting) and type(policy) in (ODAAF, ODAAFB, ODAAFV, ImprovedUCB):
        return PhasedKernel(policy, setting, problem, calendar)
    return None
