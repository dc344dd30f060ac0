"""Plain per-run Python loops of the algorithms of Pike-Burke et al. (2018): an independent check.

Written from the pseudo-code (Algorithm 1 as reconstructed in notes/papers.md §4; QPM-D of
Joulani et al. 2013 with UCB1; Improved UCB of Auer & Ortner 2010), one run at a time, one step
at a time, with ``math``, lists and a dict of pending sums — none of the package's policy code.
Fed with the engine's random numbers (same seed, same run index), they must give exactly the
regret trajectories of the vectorised package (tests/test_pikeburke2018_reference.py); the
benchmark also times them.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque

import numpy as np

from delaylab.streams import ENVIRONMENT, Batch, RunStreams
from .vernade2017 import klucb_bernoulli

ALGORITHMS = ("ODAAF", "ODAAF-B", "ODAAF-V", "Improved UCB", "QPM-D")


def sizes(variant, T, mean_delay=0.0, variance=0.0, bound=0.0):
    """[(Δ̃_m, n_m, width_m)] for the phases of a variant, written out from the formulas."""
    out = []
    if variant == "Improved UCB":
        M = max(1, int(math.floor(0.5 * math.log2(T / math.e))))
        for m in range(0, M + 1):
            tol = 2.0 ** -m
            L = math.log(T * tol * tol)
            n = math.ceil(2 * L / (tol * tol))
            out.append((tol, n, 2 * math.sqrt(L / (2 * n))))
        return out
    M = max(1, int(math.floor(0.5 * math.log2(T / math.e))))
    for m in range(1, M + 1):
        tol = 2.0 ** -m
        L = math.log(T * tol * tol)

        def n_of(last, L=L, tol=tol):
            return math.ceil((math.sqrt(2 * L) + math.sqrt(2 * L + (8 / 3) * tol * L + last)) ** 2 / (tol * tol))

        if variant == "ODAAF":
            n = n_of(6 * tol * m * mean_delay)
        elif variant == "ODAAF-V":
            n = n_of(4 * tol * (mean_delay + 2 * variance))
        else:  # ODAAF-B
            d_tilde = min(bound, n_of(6 * tol * m * mean_delay) / m)
            n = max(n_of(4 * tol * mean_delay), math.ceil(m * d_tilde))
        out.append((tol, n, tol))
    return out


def plain_phased(variant, theta, u_reward, delays, mean_delay=0.0, variance=0.0, bound=0.0, bridge=None):
    """One run of ODAAF / ODAAF-B / ODAAF-V (anonymous sums) or Improved UCB (no delay);
    ``bridge`` (True or False) overrides whether the variant plays bridge periods."""
    K, T = len(theta), len(u_reward)
    best_mean = max(theta)
    phases = sizes(variant, T, mean_delay, variance, bound)
    if bridge is None:
        bridge = variant in ("ODAAF-B", "ODAAF-V")
    pending = defaultdict(float)  # arrival step → sum of the rewards arriving then
    S, N = [0.0] * K, [0.0] * K
    out = np.empty(T)
    state = {"t": 0, "regret": 0.0}

    def play(arm, record):
        t = state["t"]
        state["regret"] += best_mean - theta[arm]
        out[t] = state["regret"]
        d = int(delays[t])
        if u_reward[t] < theta[arm] and d <= T - 1 - t:
            pending[t + d] += 1.0
        observed = pending.pop(t, 0.0)  # the anonymous sum at the end of step t
        if record:
            S[arm] += observed
            N[arm] += 1.0
        state["t"] = t + 1
        return state["t"] < T

    active = list(range(K))
    previous = 0
    for p, (_tol, n, width) in enumerate(phases):
        length = max(n - previous, 1)
        previous += length
        for arm in active:  # Step 1
            for _ in range(length):
                if not play(arm, True):
                    return out
        xbar = {i: S[i] / N[i] for i in active}  # Step 2
        top = max(xbar.values())
        active = [j for j in active if not xbar[j] + width < top]
        leader = max(active, key=lambda i: (xbar[i], -i))
        if len(active) == 1 or p == len(phases) - 1:
            while play(leader, True):
                pass
            return out
        if bridge:  # Step 4
            for _ in range(length):
                if not play(leader, False):
                    return out
    return out


def plain_qpmd(theta, u_reward, delays, c=2.0, window=None, kl=False):
    """One run of QPM-D (Joulani et al. 2013, Algorithm 1) on labelled rewards, over UCB1 (with
    ``c``) or, with ``kl``, KL-UCB (ε = 0); ``window``: rewards delayed beyond it never arrive."""
    K, T = len(theta), len(u_reward)
    best_mean = max(theta)
    queues = [deque() for _ in range(K)]
    n, s = [0.0] * K, [0.0] * K
    pending = defaultdict(list)
    out, regret = np.empty(T), 0.0

    def base():
        rho = int(sum(n))
        if rho < K:
            return rho
        if kl:
            idx = [klucb_bernoulli(s[k] / n[k], n[k], math.log(rho + 1)) for k in range(K)]
        else:
            idx = [s[k] / n[k] + math.sqrt(c * math.log(rho + 1) / n[k]) for k in range(K)]
        return max(range(K), key=lambda k: (idx[k], -k))

    J = 0
    for t in range(T):
        while queues[J]:
            n[J] += 1.0
            s[J] += queues[J].popleft()
            J = base()
        regret += best_mean - theta[J]
        out[t] = regret
        d = int(delays[t])
        if d <= T - 1 - t and (window is None or d <= window):
            pending[t + d].append((t, J, 1.0 if u_reward[t] < theta[J] else 0.0))
        for _, arm, reward in sorted(pending.pop(t, ()), reverse=True):  # latest pull first
            queues[arm].append(reward)
    return out


def plain_simulate(algorithm, theta, law, horizon, run_ids, seed=0, **known):
    """Runs of the plain loops fed with the engine's random numbers (same seed, same run ids).

    ``law`` is the setting's delay law; Improved UCB runs without delays (its delays are 0).
    """
    res = []
    for r in run_ids:
        u = RunStreams(seed, Batch(np.array([r])), ENVIRONMENT).uniform(horizon, (2,))[:, 0]
        if algorithm == "QPM-D":
            res.append(plain_qpmd(list(theta), u[:, 0], law.ppf(u[:, 1])))
        elif algorithm == "Improved UCB":
            res.append(plain_phased(algorithm, list(theta), u[:, 0], np.zeros(horizon, dtype=np.int64)))
        else:
            res.append(plain_phased(algorithm, list(theta), u[:, 0], law.ppf(u[:, 1]), **known))
    return np.array(res)
