"""Plain per-run Python loops of the algorithms of Vernade et al. (2017), geometric delays.

The same algorithms as the vectorised package (same O(1) recursion of Eq. (6), same index
formulas with the same Newton iterations), written the way one would without numpy: one run at
a time, one step at a time, with ``math``. Two uses:

* the benchmark's baseline for the speed-up of the vectorised engine;
* a test that the engine's batching, calendar and bookkeeping give exactly the same runs as a
  straightforward loop fed with the same random numbers (tests/test_reference.py).
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

import delaylab as dl
from delaylab.streams import ENVIRONMENT, Batch, RunStreams

ALGORITHMS = ("UCB1", "KL-UCB", "D-UCB", "D-KLUCB", "Discarding UCB", "Discarding KL-UCB")


def klucb_poisson(p, n, beta):
    if n <= 0:
        return math.inf
    if p >= 1.0:
        return p
    c = beta / n
    if p <= 0.0:
        return min(c, 1.0)
    y = 1.0 + c / p
    x = y + math.sqrt(y * y - 1.0)
    for _ in range(4):
        x = x - (x - math.log(x) - y) * x / (x - 1.0) if x > 1.0 else 1.0
    return min(p * x, 1.0)


def _kl_bern(p, q):
    out = 0.0
    if p > 0:
        out += p * math.log(p / q)
    if p < 1:
        out += (1 - p) * math.log((1 - p) / (1 - q))
    return out


def klucb_bernoulli(p, n, beta):
    if n <= 0:
        return math.inf
    p = min(max(p, 0.0), 1.0)
    if p >= 1.0:
        return 1.0
    c = beta / n
    h = -((p * math.log(p) if p > 0 else 0.0) + ((1 - p) * math.log(1 - p) if p < 1 else 0.0))
    q = min(p + math.sqrt(c / 2), -math.expm1(-(c + h) / (1 - p)))
    for _ in range(8):
        if not (p < q < 1):
            break
        slope = (q - p) / (q * (1 - q))
        if slope <= 0:
            break
        q = q - (_kl_bern(p, q) - c) / slope
    return min(max(q, p), 1.0)


def plain_run(algorithm, theta, mean_delay, window, u_reward, delays):
    """One run of ``algorithm``; returns the cumulative pseudo-regret after each step."""
    K, T = len(theta), len(u_reward)
    best = max(theta)
    log_lam = -math.log1p(1.0 / mean_delay)  # log λ, λ = μ / (1 + μ)
    lam = math.exp(log_lam)
    m = window
    lam_m1 = lam ** (m + 1) if m is not None else 0.0
    tau_m = -math.expm1((m + 1) * log_lam) if m is not None else 1.0  # τ(m) = 1 − λ^{m+1}
    N, S = [0.0] * K, [0.0] * K
    O, NT = [0.0] * K, [0.0] * K  # pending weight and Ñ (Eq. 6 recursion)
    done_n, done_s = [0.0] * K, [0.0] * K  # Discarding: pulls ≥ m old and their conversions
    converted = {}
    arms_hist = []
    pending = defaultdict(list)
    regret, out = 0.0, np.empty(T)
    discarding = algorithm.startswith("Discarding")
    for t in range(T):
        beta = math.log(t + 1)
        if discarding:
            missing = [k for k in range(K) if done_n[k] == 0]
            if missing:
                a = min(missing, key=lambda k: (N[k], k))
            else:
                idx = []
                for k in range(K):
                    n = tau_m * done_n[k]
                    th = done_s[k] / n
                    if algorithm == "Discarding UCB":
                        idx.append(th + math.sqrt(beta / (2 * n)))
                    else:
                        idx.append(klucb_poisson(th, n, beta))
                a = max(range(K), key=lambda k: (idx[k], -k))
        elif t < K:
            a = t
        else:
            idx = []
            for k in range(K):
                if algorithm in ("UCB1", "KL-UCB"):
                    xbar = S[k] / N[k]
                    if algorithm == "UCB1":
                        idx.append(xbar + math.sqrt(2.0 * math.log(t + 1) / N[k]))
                    else:
                        idx.append(klucb_bernoulli(xbar, N[k], beta))
                    continue
                nt = NT[k]
                if nt <= 0:
                    idx.append(math.inf)
                    continue
                th = S[k] / nt
                if algorithm == "D-UCB":
                    idx.append(th + math.sqrt(N[k] / nt) * math.sqrt(beta / (2 * nt)))
                else:
                    idx.append(klucb_poisson(th, nt, beta))
            a = max(range(K), key=lambda k: (idx[k], -k))
        regret += best - theta[a]
        out[t] = regret
        d = int(delays[t])
        if u_reward[t] < theta[a] and (m is None or d <= m) and d <= T - 1 - t:
            pending[t + d].append((a, t))
        # bookkeeping after the pull of step t
        arms_hist.append(a)
        N[a] += 1.0
        O[a] += 1.0
        for k in range(K):  # a fraction 1 − λ of the pending weight matures each step
            NT[k] += (1.0 - lam) * O[k]
            O[k] *= lam
        if m is not None and t - m >= 0:
            O[arms_hist[t - m]] -= lam_m1  # its lag reaches m: the rest never matures
        for arm, s in pending.pop(t, ()):
            S[arm] += 1.0
            converted[s] = True
        if discarding and t - m >= 0:
            s = t - m
            done_n[arms_hist[s]] += 1.0
            done_s[arms_hist[s]] += 1.0 if converted.pop(s, False) else 0.0
    return out


def plain_simulate(algorithm, theta, mean_delay, window, horizon, run_ids, seed=0):
    """Runs of the plain loop fed with the engine's random numbers (same seed, same run ids)."""
    law = dl.Geometric(mean=mean_delay)
    res = []
    for r in run_ids:
        u = RunStreams(seed, Batch(np.array([r])), ENVIRONMENT).uniform(horizon, (2,))[:, 0]
        res.append(plain_run(algorithm, list(theta), mean_delay, window, u[:, 0], law.ppf(u[:, 1])))
    return np.array(res)
