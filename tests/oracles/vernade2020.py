"""An independent, plain implementation of OTFLinUCB, OTFLinTS and delay-blind LinUCB
(Vernade et al. 2020, Algorithms 1 and 2), one run at a time, straight from the pseudo-code.

It shares nothing with delaylab's policies: V_t is inverted from scratch with numpy.linalg.inv
each round (no Sherman–Morrison), the delay term is a Python loop over the last m actions,
and feedback is a list of pending (arrival, step) pairs. Only the random numbers are read from
delaylab's streams, so that both implementations see the same draws (common random numbers):
then their regrets must coincide.

    cd tests && python -m oracles.vernade2020      # compares with the engine
"""

from __future__ import annotations

import math
import numpy as np

from delaylab.streams import ENVIRONMENT, Batch, RunStreams, StepDraws


def environment(seed, run, horizon, K, d, law, action_map):
    """The run's draws: action sets (T, K, d), reward uniforms (T,), delays (T,)."""
    u = RunStreams(seed, Batch(np.array([run])), ENVIRONMENT).uniform(horizon, (2 + K * d,))[:, 0]
    actions = action_map(u[:, 2:].reshape(horizon, K, d))
    delays = law.ppf(u[:, 1])
    return actions, u[:, 0], delays


def plain_run(algorithm, theta, law, K, horizon, window, setting_window=None, seed=0, run=0,
              delta=0.1, lam=1.0, width="exact", action_map=None):
    """Cumulative pseudo-regret (T,) of one run of ``algorithm`` ∈ {OTFLinUCB, OTFLinTS, LinUCB,
    OTFLinUCB (authors' code), OTFLinUCB without delay term}."""
    from delaylab.settings.linear import binary_actions

    theta = np.asarray(theta, dtype=float)
    d, T, m = theta.size, horizon, window
    actions, u_reward, delays = environment(seed, run, T, K, d, law, action_map or binary_actions)
    z = StepDraws(seed, Batch(np.array([run])), "OTFLinTS", (d,), "normal")
    V = lam * np.eye(d)
    b = np.zeros(d)
    played = []  # A_s
    past_norms = []  # ‖A_s‖ in V_s^{-1}
    pending = []  # (step s, arrival step) of conversions not yet seen
    regret, total = np.empty(T), 0.0
    for t in range(T):  # paper's round t + 1
        Vinv = np.linalg.inv(V)
        theta_hat = Vinv @ b
        rnd = t + 1
        f = math.sqrt(lam) + math.sqrt(2 * math.log(1 / delta) + d * math.log((d * lam + rnd) / (d * lam)))
        recent = range(max(0, t - m), t) if m is not None else range(0)
        if width == "exact":
            S = sum(math.sqrt(played[s] @ Vinv @ played[s]) for s in recent)
        else:
            S = sum(past_norms[s] for s in recent)
        acts = actions[t]
        if algorithm == "OTFLinUCB":
            alpha = 2 * f + S
            idx = [acts[k] @ theta_hat + alpha * math.sqrt(acts[k] @ Vinv @ acts[k]) for k in range(K)]
        elif algorithm == "OTFLinUCB without delay term":  # Algorithm 1 with α = 2f
            idx = [acts[k] @ theta_hat + 2 * f * math.sqrt(acts[k] @ Vinv @ acts[k]) for k in range(K)]
        elif algorithm == "OTFLinUCB (authors' code)":  # squared norms, as in the authors' code
            beta = 2 * math.log(1 / delta) + d * math.log(1 + t / (lam * d))
            S2 = sum(past_norms[s] ** 2 for s in recent)
            idx = [acts[k] @ theta_hat + (math.sqrt(beta + lam) + S2) * (acts[k] @ Vinv @ acts[k]) for k in range(K)]
        elif algorithm == "LinUCB":
            idx = [acts[k] @ theta_hat + f * math.sqrt(acts[k] @ Vinv @ acts[k]) for k in range(K)]
        elif algorithm == "OTFLinTS":
            beta = 1 + S / f
            L = np.linalg.cholesky(Vinv)
            sample = theta_hat + math.sqrt(beta) * (L @ z(t)[0])
            idx = [acts[k] @ sample for k in range(K)]
        else:
            raise ValueError(algorithm)
        top = max(idx)  # ties, up to rounding, go to the lowest index
        k = next(j for j in range(K) if idx[j] >= top - 1e-10 * max(abs(top), 1.0))
        a = acts[k]
        means = acts @ theta
        total += means.max() - means[k]
        regret[t] = total
        past_norms.append(math.sqrt(a @ Vinv @ a))
        played.append(a)
        V = V + np.outer(a, a)
        if u_reward[t] < means[k]:  # a conversion, revealed at the end of step t + D
            D = int(delays[t])
            if (setting_window is None or D <= setting_window) and t + D <= T - 1:
                pending.append((t, t + D))
        # end of step t: conversions arriving now; the learner keeps those with delay ≤ m
        still = []
        for s, arrival in pending:
            if arrival == t:
                if m is None or arrival - s <= m:
                    b = b + played[s]
            else:
                still.append((s, arrival))
        pending = still
    return regret


def main():
    """Engine against this loop on instances unlike the paper's: identical runs, and z-scores."""
    import delaylab as dl

    K, T, R = 6, 1000, 20
    theta = np.array([0.3, 0.6, 0.2, 0.5])
    cases = [("OTFLinUCB", "exact", 30, None, dl.Geometric(15)), ("OTFLinUCB", "cheap", 20, 40, dl.Uniform(0, 40)),
             ("OTFLinTS", "exact", 30, 30, dl.Poisson(12)), ("OTFLinTS", "cheap", 25, None, dl.Geometric(15)),
             ("LinUCB", "exact", None, 50, dl.Uniform(0, 40)),
             ("OTFLinUCB (authors' code)", "cheap", 30, None, dl.Geometric(15)),
             ("OTFLinUCB without delay term", "exact", 30, 30, dl.Geometric(15))]
    for algo, width, m, sw, law in cases:
        env = dl.LinearConversions(theta, law, n_actions=K, window=sw)
        pol = {"OTFLinUCB": lambda: dl.OTFLinUCB(window=m, width=width),  # noqa: B023
               "OTFLinTS": lambda: dl.OTFLinTS(window=m, width=width),  # noqa: B023
               "LinUCB": lambda: dl.LinUCB(),
               "OTFLinUCB (authors' code)": lambda: dl.OTFLinUCB(window=m, variant="authors-code"),  # noqa: B023
               "OTFLinUCB without delay term": lambda: dl.OTFLinUCB(window=m, variant="no-delay-term"),  # noqa: B023
               }[algo]()
        res = dl.simulate(env, {algo: pol}, T, R, seed=4)
        plain = np.stack([plain_run(algo, theta, law, K, T, m, sw, seed=4, run=r, width=width) for r in range(R)])
        same = np.isclose(res.regret[algo], plain, atol=1e-9).all(axis=1)
        e, p = res.regret[algo][:, -1], plain[:, -1]
        se = np.sqrt((e.var(ddof=1) + p.var(ddof=1)) / R)
        z = (e.mean() - p.mean()) / se if se > 0 else 0.0
        print(f"{algo:26s} width={width:5s} m={m} setting window={sw} {law.label}: runs identical {same.sum()}/{R}; "
              f"R(T) engine {e.mean():.1f} ± {e.std(ddof=1) / np.sqrt(R):.1f}, plain {p.mean():.1f}, z = {z:.2f}")


if __name__ == "__main__":
    main()
