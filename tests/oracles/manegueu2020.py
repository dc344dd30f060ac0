"""Plain per-run Python loops of Patient Bandits and Adapt-Patient Bandits (Manegueu et al. 2020).

Written from the paper's pseudo-code (Algorithms 1 and 2, Theorem 1, Section 6.3), one run at a
time, one step at a time, with ``math`` and lists, independently of the package's bookkeeping:
the α estimate of Adapt-Patient Bandits is recomputed from the whole history at every step
(O(t) per step), where the package updates it incrementally. Fed the engine's random numbers
(same seed, same run indices), it must give exactly the engine's regret trajectories
(tests/test_manegueu2020_reference.py). Also the benchmark's baseline for the speed-up.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from delaylab.streams import ENVIRONMENT, Batch, RunStreams


def ucb(successes, pulls, alpha, K, T, bias=1.0):
    """UCB_i = μ_hat_i + sqrt(2 log(2KT³)/T_i) + 2 T_i^{−(α ∧ 1/2)} (Theorem 1); ``bias`` multiplies
    the last term (0: the deviation term alone)."""
    L = math.log(2.0 * K) + 3.0 * math.log(T)
    out = []
    for s, n in zip(successes, pulls):
        mean = s / max(n, 1.0)
        out.append(mean + (math.sqrt(2.0 * L / n) + 2.0 * bias * math.exp(-min(alpha, 0.5) * math.log(n))))
    return out


def argmax(values):
    best = 0
    for k in range(1, len(values)):
        if values[k] > values[best]:
            best = k
    return best


def alpha_estimate(history, pulls, t, K, T, c, alpha_low, mu_low, confidence):
    """(α_hat_t, α_t) at the decision of step t, from the history [(arm, converted, delay), …]."""
    ibar = argmax(pulls)  # the most pulled arm, ties: the lowest
    t_bar = pulls[ibar]
    D = int(t_bar) // 2
    d = math.floor(math.exp(math.log(c / 2.0) / alpha_low) * D)
    n = cnt = 0
    for s, (arm, converted, delay) in enumerate(history):
        if arm == ibar and s <= t - 1 - D:  # pulls at least D steps old: X_{s,D} is known
            n += 1
            if converted and d < delay <= D:
                cnt += 1
    if n == 0:
        return math.nan, alpha_low
    diff = cnt / t_bar  # m_{t,D} − m_{t,d}: (1/T_bar_t) Σ over the pulls at least D steps old
    log_t = math.log(t_bar)
    alpha_hat = 1.0 if diff == 0 else min(-math.log(diff) / log_t, 1.0)
    L = math.log(2.0 * K) + 3.0 * math.log(T)
    conf = confidence * math.log(24.0 * math.sqrt(L) / (c * mu_low))
    return alpha_hat, max(alpha_hat - conf / log_t, alpha_low)


def plain_run(algorithm, means, delays, u_reward, alpha=0.5, c=0.7, alpha_low=0.1, mu_low=0.6,
              confidence=1.0, bias=1.0):
    """One run of "Patient Bandits" or "Adapt-Patient Bandits" on uncensored conversions.

    ``delays[t][k]`` is the delay arm k would have at step t. Returns the cumulative
    pseudo-regret after each step and the α_t used at each step (Adapt-Patient; else α).
    """
    K, T = len(means), len(u_reward)
    best = max(means)
    pulls, seen = [0.0] * K, [0.0] * K
    history, pending = [], defaultdict(list)
    regret, out, alphas = 0.0, np.empty(T), np.empty(T)
    for t in range(T):
        a_t = alpha
        if algorithm == "Patient Bandits":
            a = t if t < K else argmax(ucb(seen, pulls, alpha, K, T, bias))
        else:
            if t < 2 * K:
                a, a_t = t % K, alpha_low
            else:
                _, a_t = alpha_estimate(history, pulls, t, K, T, c, alpha_low, mu_low, confidence)
                a = argmax(ucb(seen, pulls, a_t, K, T))
        alphas[t] = a_t
        regret += best - means[a]
        out[t] = regret
        converted = u_reward[t] < means[a]
        delay = int(delays[t][a])
        if converted and delay <= T - 1 - t:
            pending[t + delay].append(a)  # revealed at the end of step t + delay
        history.append((a, converted, delay))
        pulls[a] += 1.0
        for arm in pending.pop(t, ()):
            seen[arm] += 1.0
    return out, alphas


def plain_simulate(algorithm, means, laws, horizon, run_ids, seed=0, **params):
    """Runs of the plain loop fed the engine's random numbers: (regret, alphas), (R, T) each."""
    regrets, alphas = [], []
    for r in run_ids:
        u = RunStreams(seed, Batch(np.array([r])), ENVIRONMENT).uniform(horizon, (2,))[:, 0]
        delays = np.stack([law.ppf(u[:, 1]) for law in laws], axis=1)
        reg, al = plain_run(algorithm, list(means), delays.tolist(), u[:, 0].tolist(), **params)
        regrets.append(reg)
        alphas.append(al)
    return np.array(regrets), np.array(alphas)
