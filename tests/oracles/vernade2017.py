"""Plain per-run Python loops of the algorithms of Vernade et al. (2017), geometric delays.

The same algorithms as the vectorised package (same O(1) recursion of Eq. (6), same index
formulas with the same Newton iterations), written the way one would without numpy: one run at
a time, one step at a time, with ``math``. "D-UCB without Ñ" and "D-KLUCB without Ñ" are the same
indices with N in place of Ñ (the package's policies told ``Fixed(0)``, notebook 01's panel). Two
uses:

* the benchmark's baseline for the speed-up of the vectorised engine;
* a test that the engine's batching, calendar and bookkeeping give exactly the same runs as a
  straightforward loop fed with the same random numbers (tests/test_vernade2017_reference.py).
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

import delaylab as dl
from delaylab.streams import ENVIRONMENT, Batch, RunStreams

ALGORITHMS = ("UCB1", "KL-UCB", "D-UCB", "D-KLUCB", "Discarding UCB", "Discarding KL-UCB", "D-UCB without Ñ",
              "D-KLUCB without Ñ")


def klucb_poisson(p, n, beta, upper=1.0):
    """delaylab.indices.klucb_poisson for one arm, with math (same operations)."""
    if n <= 0:
        return math.inf
    if p >= upper:
        return p
    c = min(beta / n, 2.0 * upper)
    ps = p if p > 0 else 1.0
    y = 1.0 + max(c / ps, 1e-15)
    x = y + math.sqrt((y - 1.0) * (y + 1.0))
    for _ in range(3):
        x -= (x - math.log(x) - y) * x / (x - 1.0)
    return min(ps * x if p > 0 else c, upper)


def klucb_bernoulli(p, n, beta):
    """delaylab.indices.klucb_bernoulli for one arm, with math (same operations)."""
    if n <= 0:
        return math.inf
    p = min(max(p, 0.0), 1.0)
    if p >= 1.0:
        return 1.0
    c = max(beta / n, 1e-15)
    pc = p
    neg_entropy = (pc * math.log(pc) if pc > 0 else 0.0) + (1.0 - pc) * math.log1p(-pc)
    q0 = min(pc + c + math.sqrt(c * (c + 2.0 * pc)), pc + math.sqrt(2.0 * c * (1.0 - pc)))
    z = min(-math.log1p(-min(q0, 1.0 - 1e-16)), (c - neg_entropy) / (1.0 - pc))
    for _ in range(4):
        q = -math.expm1(-z)
        z -= (neg_entropy - pc * math.log(q) + (1.0 - pc) * z - c) * q / (q - pc)
    return min(max(-math.expm1(-z), p), 1.0)


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
                nt = N[k] if algorithm.endswith("without Ñ") else NT[k]  # without Ñ: N in its place
                if nt <= 0:
                    idx.append(math.inf)
                    continue
                th = S[k] / nt
                if algorithm.startswith("D-UCB"):
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


def numpy_run(algorithm, theta, mean_delay, window, u_reward, delays):
    """The same algorithms one run at a time, each step with numpy on vectors of K arms and the
    package's index formulas: how per-run bandit code is usually written."""
    from delaylab.indices import delayed_ucb_index, klucb_poisson

    theta = np.asarray(theta, dtype=float)
    K, T = theta.size, len(u_reward)
    gaps = theta.max() - theta
    lam = mean_delay / (1.0 + mean_delay)
    m = window
    N, S, O, NT = np.zeros(K), np.zeros(K), np.zeros(K), np.zeros(K)
    done_n, done_s = np.zeros(K), np.zeros(K)
    tau_m = 1.0 - lam ** (m + 1) if m is not None else 1.0
    arms_hist, converted, pending = [], {}, defaultdict(list)
    out, regret = np.empty(T), 0.0
    for t in range(T):
        beta = np.log(t + 1)
        if algorithm.startswith("Discarding"):
            if np.any(done_n == 0):
                a = int(np.argmin(np.where(done_n == 0, N, np.inf)))
            else:
                n = tau_m * done_n
                if algorithm == "Discarding UCB":
                    a = int(np.argmax(done_s / n + np.sqrt(beta / (2 * n))))
                else:
                    a = int(np.argmax(klucb_poisson(done_s / n, n, beta)))
        elif t < K:
            a = t
        elif algorithm == "D-UCB":
            a = int(np.argmax(delayed_ucb_index(S / np.maximum(NT, 1e-300), N, NT, beta)))
        else:
            a = int(np.argmax(klucb_poisson(S / np.maximum(NT, 1e-300), NT, beta)))
        regret += gaps[a]
        out[t] = regret
        d = int(delays[t])
        if u_reward[t] < theta[a] and (m is None or d <= m) and d <= T - 1 - t:
            pending[t + d].append((a, t))
        arms_hist.append(a)
        e = np.zeros(K)
        e[a] = 1.0
        N += e
        O += e
        NT += (1.0 - lam) * O
        O *= lam
        if m is not None and t - m >= 0:
            O[arms_hist[t - m]] -= lam ** (m + 1)
        for arm, s in pending.pop(t, ()):
            S[arm] += 1.0
            converted[s] = True
        if m is not None and t - m >= 0 and algorithm.startswith("Discarding"):
            done_n[arms_hist[t - m]] += 1.0
            done_s[arms_hist[t - m]] += 1.0 if converted.pop(t - m, False) else 0.0
    return out
