#!/usr/bin/env python3
"""Compiled kernels (delaylab/kernels): µs per run-step of the plain loop, numpy, the kernels.

For each algorithm with a kernel: the cost per run-step at 1, 30 and 1000 runs of the plain
per-run Python loop (tests/oracles/*.py, and below for the tabulated count and QPM-D on the
censored setting; its cost does not depend on the number of runs), of
the numpy engine (DELAYLAB_KERNELS=numpy) and of the default engine (the kernels, unless the
dispatch sends that batch size to numpy), and the ratio of each to the fastest. Times are the
CPU time of this process (less sensitive than wall time to other processes on a shared
machine), best of a few repeats, including the draws of the environment. Also: the time of
:func:`delaylab.warmup.warmup` with the on-disk cache (a fresh kernel after installation).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the reference loops: tests/oracles
import delaylab as dl  # noqa: E402
from table import row  # noqa: E402
from delaylab import kernels  # noqa: E402
from delaylab.papers import pikeburke2018 as pikeburke  # noqa: E402
from delaylab.papers import vernade2017 as paper  # noqa: E402
from delaylab.streams import ENVIRONMENT, Batch, RunStreams  # noqa: E402
from oracles.vernade2017 import klucb_poisson, plain_run  # noqa: E402
from oracles.manegueu2020 import plain_run as plain_patient  # noqa: E402
from oracles.pikeburke2018 import plain_phased, plain_qpmd  # noqa: E402
from oracles.thune2019 import plain_run as plain_exp  # noqa: E402
from oracles.vernade2020 import plain_run as plain_linear  # noqa: E402

LAW = dl.Geometric(paper.MEAN_DELAY)
CONV = dl.Conversions(paper.THETA_L, LAW, window=paper.WINDOW)
LAB = dl.LabelledRewards(paper.THETA_L, LAW, window=paper.WINDOW)
M = paper.WINDOW
PATIENT = dl.Conversions([0.5, 0.55], [dl.Pareto(1.0), dl.Pareto(0.3)])
ANON = dl.AggregatedAnonymous(pikeburke.THETA, dl.Poisson(10.0))  # bench_pikeburke2018's instance
LIN = dl.LinearConversions(np.full(5, 1 / np.sqrt(5)), dl.Geometric(mean=100), n_actions=10, window=100)  # the panel's
LIN_BIG = dl.LinearConversions(np.full(8, 1 / np.sqrt(8)), dl.Geometric(mean=100), n_actions=20, window=500)
ADV_T = 5000
ADV = dl.AdversarialLosses(dl.sequences.bernoulli_losses([0.45, 0.5], ADV_T, seed=0), dl.Geometric(mean=20))

# name → (setting, policy, plain loop or None)
ALGORITHMS = {
    "UCB1": (CONV, dl.UCB1(), "UCB1"),
    "KL-UCB": (CONV, dl.KLUCB(), "KL-UCB"),
    "D-UCB": (CONV, dl.DelayedUCB(LAW, M), "D-UCB"),
    "D-KLUCB": (CONV, dl.DelayedKLUCB(LAW, M), "D-KLUCB"),
    "D-KLUCB (tabulated, Uniform(0, 1000))": (CONV, dl.DelayedKLUCB(dl.Uniform(0, 1000), M), "D-KLUCB tabulated"),
    "UD-KLUCB": (dl.Conversions(paper.THETA_L, LAW), dl.DelayedKLUCB(LAW), "D-KLUCB"),
    "Discarding UCB": (CONV, dl.DiscardingUCB(LAW, M), "Discarding UCB"),
    "Discarding KL-UCB": (CONV, dl.DiscardingKLUCB(LAW, M), "Discarding KL-UCB"),
    "QPM-D (UCB1)": (LAB, dl.QPMD(), "QPM-D"),
    "QPM-D (KL-UCB)": (LAB, dl.QPMD(dl.KLUCB()), "QPM-D (KL-UCB)"),
    "Patient Bandits": (PATIENT, dl.PatientBandits(alpha=0.3), "Patient Bandits"),
    "Adapt-Patient Bandits": (PATIENT, dl.AdaptPatientBandits(), "Adapt-Patient Bandits"),
    "ODAAF": (ANON, dl.ODAAF(mean_delay=10), "ODAAF"),
    "ODAAF-B": (ANON, dl.ODAAFB(mean_delay=10, bound=40), "ODAAF-B"),
    "ODAAF-V": (ANON, dl.ODAAFV(mean_delay=10, variance=10), "ODAAF-V"),
    "Improved UCB (no delay)": (dl.AggregatedAnonymous(pikeburke.THETA, dl.Fixed(0)), dl.ImprovedUCB(), "Improved UCB"),
    "OTFLinUCB (m = 100, d = 5, K = 10)": (LIN, dl.OTFLinUCB(window=100), "OTFLinUCB"),
    "OTFLinUCB (m = 500, d = 8, K = 20)": (LIN_BIG, dl.OTFLinUCB(window=500), None),
    "OTFLinTS (m = 100, d = 5, K = 10)": (LIN, dl.OTFLinTS(window=100), "OTFLinTS"),
    "LinUCB (d = 5, K = 10)": (LIN, dl.LinUCB(), "LinUCB"),
    "Exp3": (ADV, dl.Exp3(), "Exp3"),
    "DEW": (ADV, dl.DEW(eta=0.05, dmax=100), "DEW"),
    "Skipper": (ADV, dl.Skipper(beta=30), "Skipper"),
    "Doubling": (dl.AdversarialLosses(ADV.losses, ADV.delays, reveal="at_action"), dl.Doubling(), "Doubling"),
}
BATCHES = (1, 30, 1000)
STEPS = {1: 4000, 20: 4000, 30: 4000, 1000: 600}  # horizon per batch size (≈ 10⁵–10⁶ run-steps)


def cpu_per_run_step(setting, policy, runs, mode, repeat=2):
    os.environ["DELAYLAB_KERNELS"] = mode
    T = STEPS[runs]
    dl.simulate(setting, policy, 50, runs, checkpoints=1)  # compiled / loaded
    best = np.inf
    for _ in range(repeat):
        c = time.process_time()
        dl.simulate(setting, policy, T, runs, checkpoints=100)
        best = min(best, time.process_time() - c)
    return best / (T * runs) * 1e6


def plain_tabulated(theta, law, m, u_reward, delays):
    """One run of D-KLUCB assuming ``law`` (any law: Ñ from its table, :class:`TabulatedCount`),
    plain Python: Ñ_k = τ(m) · (pulls of k at least m steps old) + Σ_{e<m} τ(e) · 1{A_{t−1−e} = k}."""
    K, T = len(theta), len(u_reward)
    w = [float(v) for v in law.cdf(np.arange(m + 1, dtype=float))]  # w[e] = τ(e), e ≤ m
    best = max(theta)
    N, S, old = [0.0] * K, [0.0] * K, [0.0] * K
    arms, pending = [], {}
    regret, out = 0.0, np.empty(T)
    for t in range(T):
        if t < K:
            a = t
        else:
            beta = math.log(t + 1)
            nt = [w[m] * old[k] for k in range(K)]
            for e in range(min(m, t)):
                nt[arms[t - 1 - e]] += w[e]
            idx = [klucb_poisson(S[k] / max(nt[k], 1e-300), nt[k], beta) for k in range(K)]
            a = max(range(K), key=lambda k: (idx[k], -k))
        regret += best - theta[a]
        out[t] = regret
        d = int(delays[t])
        if u_reward[t] < theta[a] and d <= m and d <= T - 1 - t:
            pending.setdefault(t + d, []).append(a)
        arms.append(a)
        N[a] += 1.0
        if t - m >= 0:
            old[arms[t - m]] += 1.0
        for arm in pending.pop(t, ()):
            S[arm] += 1.0
    return out


def plain_go(name, setting, T=4000, run=0):
    """A function running the plain loop of ``name`` for one run of ``setting`` (the engine's
    draws of run ``run``, seed 0): returns its cumulative regret after each step."""
    u = RunStreams(0, Batch(np.array([run])), ENVIRONMENT).uniform(T, (2,))[:, 0]
    if name in ("QPM-D", "QPM-D (KL-UCB)"):
        d = LAW.ppf(u[:, 1])
        return lambda: plain_qpmd(list(paper.THETA_L), u[:, 0], d, window=setting.window, kl=name != "QPM-D")
    if name in ("Patient Bandits", "Adapt-Patient Bandits"):  # the plain Adapt-Patient is O(t) per step
        d = np.stack([law.ppf(u[:, 1]) for law in PATIENT.laws], axis=1).tolist()
        return lambda: plain_patient(name, [0.5, 0.55], d, u[:, 0], alpha=0.3)
    if name in ("ODAAF", "ODAAF-B", "ODAAF-V", "Improved UCB"):
        d = (dl.Poisson(10.0).ppf(u[:, 1]) if name != "Improved UCB" else np.zeros(T)).astype(np.int64).tolist()
        return lambda: plain_phased(name, list(pikeburke.THETA), u[:, 0], d, mean_delay=10.0, variance=10.0,
                                    bound=40.0)
    if name in ("OTFLinUCB", "OTFLinTS", "LinUCB"):  # its own draws (the same streams); a shorter run: numpy's inverse per step
        return lambda: plain_linear(name, LIN.theta, LIN.law, LIN.n_arms, 1000, 100, 100)
    if name in ("Exp3", "DEW", "Skipper", "Doubling"):
        d = dl.Geometric(mean=20).ppf(u[:, 1]).astype(np.int64)
        return lambda: plain_exp(name, ADV.losses, d, T, u[:, 0], beta=30.0, eta=0.05, dmax=100.0)
    d = LAW.ppf(u[:, 1])
    if name == "D-KLUCB tabulated":
        return lambda: plain_tabulated(paper.THETA_L, dl.Uniform(0, 1000), M, u[:, 0], d)
    return lambda: plain_run(name, paper.THETA_L, paper.MEAN_DELAY, setting.window, u[:, 0], d)


def plain_per_run_step(name, setting, T=4000):
    if name in ("OTFLinUCB", "OTFLinTS", "LinUCB"):
        T = 1000  # plain_go runs them 1000 steps
    go = plain_go(name, setting, T)
    c = time.process_time()
    go()
    return (time.process_time() - c) / T * 1e6


def warmup_times():
    """delaylab.warmup.warmup() in a fresh interpreter (s): cold (NUMBA_CACHE_DIR an empty directory: every
    kernel compiled from scratch, then cached there) and then from that on-disk cache."""
    import tempfile

    code = ("import time; t=time.perf_counter(); c=time.process_time(); from delaylab.warmup import warmup; "
            "warmup(); print(time.perf_counter()-t, time.process_time()-c)")
    with tempfile.TemporaryDirectory(prefix="delaylab-numba-") as cache:
        env = dict(os.environ, DELAYLAB_KERNELS="numba", NUMBA_CACHE_DIR=cache)
        out = [tuple(map(float, subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                               text=True, check=True).stdout.split()[-2:])) for _ in range(2)]
    return out


def main():
    if not kernels.available():
        print("numba is not installed: no kernels to measure")
        return
    print("(kernels: the default engine, i.e. the compiled kernel unless the batch is above its max_batch)")
    print(f"{'µs per run-step (CPU)':40s} {'runs':>5s} {'plain':>8s} {'numpy':>8s} {'kernels':>8s}   ratios to the fastest")
    default = os.environ.get("DELAYLAB_KERNELS")
    slower = []
    try:
        for name, (setting, policy, plain) in ALGORITHMS.items():
            p = plain_per_run_step(plain, setting) if plain else np.nan
            for R in BATCHES:
                nump = cpu_per_run_step(setting, policy, R, "numpy", repeat=1 if R == 1 else 2)
                kern = cpu_per_run_step(setting, policy, R, "numba", repeat=3)
                fastest = np.nanmin([p, nump, kern])
                ratios = " ".join(f"{v / fastest:6.1f}×" if np.isfinite(v) else "      –" for v in (p, nump, kern))
                shown = "      –" if not np.isfinite(p) else f"{p:8.3f}"
                print(f"{name:40s} {R:5d} {shown:>8s} {nump:8.3f} {kern:8.3f}   {ratios}", flush=True)
                if kern > 1.1 * nump:  # noise or real? both paths again, interleaved, best of three each
                    again = [(cpu_per_run_step(setting, policy, R, "numpy", repeat=1),
                              cpu_per_run_step(setting, policy, R, "numba", repeat=1)) for _ in range(3)]
                    nump, kern = min(a for a, _ in again), min(b for _, b in again)
                    print(f"{'':40s} {'':5s} {'again:':>8s} {nump:8.3f} {kern:8.3f}   (interleaved, best of 3)")
                    if kern > 1.1 * nump:
                        slower.append(f"{name} at {R} runs")
        d30 = cpu_per_run_step(CONV, dl.DelayedKLUCB(LAW, M), 30, "numba", repeat=3)
        row("kernels: D-KLUCB at 30 runs, per run-step (CPU)", d30, "µs", "≤ 0.3 µs", d30 <= 0.3)
        q20 = cpu_per_run_step(LAB, dl.QPMD(), 20, "numba", repeat=3)
        row("kernels: QPM-D at 20 runs, per run-step (CPU)", q20, "µs", "≤ 0.3 µs", q20 <= 0.3)
        row(f"kernels: algorithms slower than numpy (> 1.1×): {', '.join(slower) or 'none'}", len(slower), "",
            "0", not slower)
    finally:
        if default is None:
            os.environ.pop("DELAYLAB_KERNELS", None)
        else:
            os.environ["DELAYLAB_KERNELS"] = default
    (cold, cold_cpu), (warm, warm_cpu) = warmup_times()
    row("warmup() in a fresh Python, cold (compiles every kernel)", cold, "s")
    row("  CPU time", cold_cpu, "s")
    row("warmup() in a fresh Python, from the on-disk cache", warm, "s")
    row("  CPU time (wall time above includes waiting for a loaded machine)", warm_cpu, "s", "≤ 2 s", warm_cpu <= 2)


if __name__ == "__main__":
    main()
