"""Plain per-run Python loops of Exp3, DEW, Skipper and Doubling (Thune, Cesa-Bianchi, Seldin 2019).

Written from the paper's pseudo-code (Algorithms 1 and 2, Section 4.1), one run at a time, one
step at a time, with ``math`` and Python lists and a dict as calendar. It draws its arms from
the same uniforms as the package (the run's "exp-weights" stream) and performs the same
floating-point operations in the same order (weights exp(−η'(L̂ − min L̂)), normalised, then
inverse-CDF sampling; the estimates arriving at one step are summed per arm, latest pull first,
before being added), so the regret trajectories must be *exactly* equal to the engine's
(tests/test_thune2019_reference.py). It is also the benchmark's baseline.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from delaylab.streams import purpose_id

E = math.e


def uniforms(seed: int, run: int, horizon: int, name: str = "exp-weights") -> np.ndarray:
    """The uniforms of one run's policy stream (the package's problem.random(name))."""
    g = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(purpose_id(name), int(run)))))
    return g.random(horizon)


def env_uniforms(seed: int, run: int, horizon: int) -> np.ndarray:
    """The uniforms of one run's environment stream (delays drawn from a law)."""
    g = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(0, int(run)))))
    return g.random(horizon)


class ExpWeights:
    """Exponential weights over K arms with learning rate eta (DEW's core, one run)."""

    def __init__(self, K, eta):
        self.K, self.eta = K, eta
        self.L = [0.0] * K

    def restart(self, eta):
        self.L, self.eta = [0.0] * self.K, eta

    def draw(self, u):
        m = min(self.L)
        w = [math.exp(-self.eta * (x - m)) for x in self.L]
        tot = 0.0
        for x in w:
            tot += x
        p = [x / tot for x in w]
        c, acc = [], 0.0
        for x in p:
            acc += x
            c.append(acc)
        target = u * c[-1]
        arm = sum(1 for k in range(self.K - 1) if c[k] <= target)
        return arm, p[arm]

    def add(self, estimates):
        """estimates: list of (arm, ℓ̂) arriving at one step (latest pull first)."""
        tot = defaultdict(float)
        for a, x in estimates:
            tot[a] += x
        for a, x in tot.items():
            self.L[a] += x


def plain_run(algorithm, losses, delays, horizon, u, beta=None, eta=None, dmax=None):
    """Regret trajectory of one run.

    algorithm : "Exp3" (eta None: √(2 ln K/(KT))), "DEW" (eta, dmax), "Skipper" (beta; base
    DEW(1/(4eβ), β)) or "Doubling". ``delays`` are this run's delays, ``u`` its uniforms.
    """
    T, K = horizon, losses.shape[1]
    best = min(range(K), key=lambda a: sum(losses[:T, a]))
    if algorithm == "Exp3":
        rate = math.sqrt(2 * math.log(K) / (K * T)) if eta is None else eta
    elif algorithm == "DEW":
        rate = eta if dmax is None else min(eta, 1 / (4 * E * dmax) if dmax > 0 else math.inf)
    elif algorithm == "Skipper":
        rate = min(1 / (4 * E * beta), 1 / (4 * E * beta))
    else:
        rate = None
    ew = ExpWeights(K, rate if rate is not None else 1.0)
    lnK = math.log(K)
    # Doubling state
    m, sigma, S, Dm = 0, 0, 0, 0.0

    def beta_of(mm):
        return math.sqrt(2.0 ** mm) / (4 * E * lnK)

    def cond(length, skipped, delay, mm):
        return max(float(skipped) ** 2, (E * K * length / 2 + delay) * lnK) <= 2.0 ** mm

    if algorithm == "Doubling":
        ew.restart(1 / (4 * E * beta_of(0)))
    epoch_of, p_pull = [0] * T, [0.0] * T
    pending = defaultdict(list)
    cum, out = 0.0, []
    for t in range(T):
        if algorithm == "Doubling":
            d = float(delays[t])
            b = beta_of(m)
            sk = d >= b
            if not cond(sigma + 1, S + sk, Dm + (0.0 if sk else d), m):
                while True:
                    m += 1
                    b = beta_of(m)
                    sk = d >= b
                    if cond(1, sk, 0.0 if sk else d, m) or m >= 62:
                        break
                sigma, S, Dm = 0, 0, 0.0
                ew.restart(1 / (4 * E * b))
            sigma, S, Dm = sigma + 1, S + sk, Dm + (0.0 if sk else d)
            epoch_of[t] = m
        arm, p = ew.draw(u[t])
        p_pull[t] = p
        cum += losses[t, arm] - losses[t, best]
        if t + delays[t] <= T - 1:
            pending[t + int(delays[t])].append((t, arm))
        arrivals = sorted(pending.pop(t, []), reverse=True)
        est = []
        for s, a in arrivals:
            dd = t - s
            if algorithm == "Skipper" and not dd < beta:
                continue
            if algorithm == "Doubling" and not (epoch_of[s] == m and dd < beta_of(m)):
                continue
            est.append((a, losses[s, a] / p_pull[s]))
        ew.add(est)
        out.append(cum)
    return np.array(out)


def plain_simulate(algorithm, losses, delays, horizon, runs, seed, law=None, **params):
    """(R, T) regrets of the runs; ``law`` given: each run draws its delays from it."""
    out = []
    for r in runs:
        d = delays if law is None else law.ppf(env_uniforms(seed, r, horizon))
        out.append(plain_run(algorithm, losses, np.asarray(d), horizon, uniforms(seed, r, horizon), **params))
    return np.array(out)
