"""The policies of Vernade et al. (2017) against their definitions, for any delay law.

A deliberately naive per-run implementation, sharing nothing with the package but the random
numbers and the laws' CDFs: at every decision Ñ is recomputed as the defining sum over all past
pulls, S from the list of revealed conversions, and every index by bisection. Whole regret
trajectories must coincide with the engine's, which checks the general (non-geometric) Ñ
update, per-arm laws, policy windows narrower than the setting's, and the calendar.
"""

import math

import numpy as np
import pytest

import delaylab as dl
from delaylab.policies.counts import dyadic
from delaylab.policies.delayed import effective_window, weight_table
from delaylab.streams import ENVIRONMENT, Batch, RunStreams


def kl_pois(p, q):
    return (p * math.log(p / q) if p > 0 else 0.0) + q - p


def kl_bern(p, q):
    out = p * math.log(p / q) if p > 0 else 0.0
    return out + ((1 - p) * math.log((1 - p) / (1 - q)) if p < 1 else 0.0)


def klucb(p, n, beta, div):
    """max{q ∈ [p, 1] : n div(p, q) ≤ β} by bisection."""
    if n <= 0:
        return math.inf
    if p >= 1:
        return p if div is kl_pois else 1.0
    if div is kl_pois and n * div(p, 1.0) <= beta:
        return 1.0
    lo, hi = p, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if n * div(p, mid) <= beta else (lo, mid)
    return lo


def naive_run(alg, theta, laws, env_m, pol_m, u_reward, u_delay):
    K, T = len(theta), len(u_reward)
    tau = [law.cdf(np.arange(T + 1)) for law in laws]  # τ_k(lag), lag = 0 … T
    if not all(isinstance(law, dl.Geometric) for law in laws):  # the engine's TabulatedCount rounds
        W = weight_table(laws, effective_window(pol_m, T), T, Batch(np.arange(1))).shape[-1] - 1  # τ to
        tau = [dyadic(x, W) for x in tau]  # dyadic numbers (1e-15), so that sums of Ñ are exact
    pulls = []  # (arm, step at whose end the conversion is revealed, or None)
    regret, out = 0.0, np.empty(T)
    for t in range(T):
        beta = math.log(t + 1)
        N, S, NT, done_n, done_s = (np.zeros(K) for _ in range(5))
        for s, (a, rev) in enumerate(pulls):
            lag = t - 1 - s
            N[a] += 1
            seen = rev is not None and rev <= t - 1 and (pol_m is None or rev - s <= pol_m)
            S[a] += seen
            NT[a] += tau[a][lag if pol_m is None else min(lag, pol_m)]
            if pol_m is not None and lag >= pol_m:
                done_n[a] += 1
                done_s[a] += seen
        if alg.startswith("Discarding"):
            missing = [k for k in range(K) if done_n[k] == 0]
            if missing:
                a = min(missing, key=lambda k: (N[k], k))
            else:
                n = np.array([tau[k][pol_m] for k in range(K)]) * done_n
                th = done_s / n
                idx = th + np.sqrt(beta / (2 * n)) if alg == "Discarding UCB" else [
                    klucb(th[k], n[k], beta, kl_pois) for k in range(K)]
                a = int(np.argmax(idx))
        elif t < K:
            a = t
        else:
            if alg == "UCB1":
                idx = S / N + np.sqrt(2 * math.log(t + 1) / N)
            elif alg == "KL-UCB":
                idx = [klucb(S[k] / N[k], N[k], beta, kl_bern) for k in range(K)]
            elif alg == "D-UCB":
                idx = [S[k] / NT[k] + math.sqrt(N[k] / NT[k]) * math.sqrt(beta / (2 * NT[k])) if NT[k] > 0
                       else math.inf for k in range(K)]
            else:
                idx = [klucb(S[k] / NT[k], NT[k], beta, kl_pois) if NT[k] > 0 else math.inf for k in range(K)]
            a = int(np.argmax(idx))
        regret += max(theta) - theta[a]
        out[t] = regret
        d = int(laws[a].ppf(u_delay[t]))
        converted = u_reward[t] < theta[a]
        pulls.append((a, t + d if converted and (env_m is None or d <= env_m) else None))
    return out


def engine_policy(alg, laws, m):
    delay = laws[0] if all(law is laws[0] for law in laws) else laws
    return {"UCB1": dl.UCB1(), "KL-UCB": dl.KLUCB(), "D-UCB": dl.DelayedUCB(delay, m),
            "D-KLUCB": dl.DelayedKLUCB(delay, m), "Discarding UCB": dl.DiscardingUCB(delay, m),
            "Discarding KL-UCB": dl.DiscardingKLUCB(delay, m)}[alg]


CASES = [  # (laws, setting window, policy window)
    ([dl.Uniform(3, 40)] * 3, 30, 30),
    ([dl.Pareto(0.6)] * 3, 20, 20),
    ([dl.Poisson(12.0), dl.Geometric(8.0), dl.HalfNormal(10.0)], 25, 25),
    ([dl.criteo(scale=1000.0)] * 3, None, None),
    ([dl.Uniform(0, 20)] * 3, None, None),
    ([dl.Geometric(15.0)] * 3, None, 12),  # the learner ignores conversions later than 12
    ([dl.Uniform(3, 40)] * 3, 30, 10),  # a policy window narrower than the setting's
]


@pytest.mark.parametrize("laws, env_m, pol_m", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_engine_equals_the_definitions(laws, env_m, pol_m):
    theta, T, runs, seed = [0.45, 0.3, 0.2], 250, [0, 5], 13
    algs = ["D-UCB", "D-KLUCB"] + (["Discarding UCB", "Discarding KL-UCB"] if pol_m is not None else [])
    if env_m == pol_m:
        algs += ["UCB1", "KL-UCB"]
    env = dl.Conversions(theta, laws, window=env_m)
    res = dl.simulate(env, {a: engine_policy(a, laws, pol_m) for a in algs}, horizon=T, runs=runs, seed=seed)
    for j, r in enumerate(runs):
        u = RunStreams(seed, Batch(np.array([r])), ENVIRONMENT).uniform(T, (2,))[:, 0]
        for a in algs:
            np.testing.assert_array_equal(res.regret[a][j], naive_run(a, theta, laws, env_m, pol_m, u[:, 0], u[:, 1]),
                                          err_msg=f"{a}, run {r}")
