#!/usr/bin/env python3
"""Compiled kernels (delaylab/kernels): µs per run-step now, before the kernels' refactor, numpy.

For each algorithm with a kernel, at 1, 30 and 1000 runs: the CPU µs per run-step of the plain
per-run Python loop (tests/oracles/*.py, and below for the tabulated count; its cost does not
depend on the number of runs), of the numpy engine (DELAYLAB_KERNELS=numpy), of the kernels at
commit 40b6edf (before their refactor; extracted with ``git archive``, measured in its own
process) and of the kernels now (DELAYLAB_KERNELS=numba). Both checkouts run the same cases
(kernel_cases.py, in a process each), interleaved and best of a few rounds, the garbage
collector off while timed; a ``≠`` marks a case whose mean regret differs between them (a
changed algorithm, not the same work). CPU time is less sensitive than wall time to other
processes on a shared machine, not immune: repeat before trusting a 5 % difference. Also: the
time of :func:`delaylab.warmup.warmup` with the on-disk cache (a fresh kernel after installation).
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
from kernel_cases import ADV, ALGORITHMS, BATCHES, LAW, LIN, M, PATIENT  # noqa: E402
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

ROOT = Path(__file__).resolve().parents[1]
#: the last commit before the kernels' refactor (issue 37 compares every kernel with it)
BEFORE = "40b6edf"
#: rounds of interleaved measurements per row, and simulations per round (best of all)
ROUNDS = 3
REPEAT = {1: 5, 30: 2, 1000: 1}


class Checkout:
    """A kernel_cases.py process measuring the delaylab found first on ``pythonpath``."""

    def __init__(self, pythonpath=None):
        env = dict(os.environ)
        env.pop("DELAYLAB_KERNELS", None)
        if pythonpath:
            env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve().parent / "kernel_cases.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                                     cwd=str(pythonpath or ROOT))
        if self.proc.stdout.readline().strip() != "ready":
            self.close()
            raise RuntimeError(f"kernel_cases.py did not start for {pythonpath or ROOT}")

    def measure(self, name, runs, mode, repeat):
        """(µs per run-step, mean final regret) of case ``name``."""
        self.proc.stdin.write(f"{name}\t{runs}\t{mode}\t{repeat}\n")
        self.proc.stdin.flush()
        us, regret = self.proc.stdout.readline().split("\t")
        return float(us), float(regret)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def before_checkout():
    """The package at :data:`BEFORE`, extracted once into a folder kept between runs (its numba
    cache with it), or None where this is not a git checkout."""
    folder = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "delaylab-bench" / BEFORE
    if not (folder / "delaylab" / "__init__.py").exists():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", BEFORE, "delaylab"], capture_output=True)
        if archive.returncode:
            return None
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def cpu_per_run_step(setting, policy, runs, mode, repeat=2, T=None):
    """CPU µs per run-step of ``dl.simulate`` in this process (best of ``repeat``)."""
    os.environ["DELAYLAB_KERNELS"] = mode
    T = T or {1: 4000, 20: 4000, 30: 4000}.get(runs, 600)
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


def side_by_side(now, before):
    """The table: every case at every batch size, plain / numpy / before / now; returns the rows
    slower than before (by more than 5 %) and those slower than numpy (by more than 5 %)."""
    print(f"{'µs per run-step (CPU)':40s} {'runs':>5s} {'plain':>8s} {'numpy':>8s} {BEFORE:>8s} {'now':>8s}"
          f" {'now/before':>10s} {'now/numpy':>9s}")
    slower, above_numpy = [], []
    for name, (setting, _policy, plain) in ALGORITHMS.items():
        p = plain_per_run_step(plain, setting) if plain else np.nan
        for R in BATCHES:
            rounds = {"numpy": [], "before": [], "now": []}
            regrets = {}
            for _ in range(ROUNDS):  # interleaved: a busy moment of the machine hits every column
                for key, proc, mode in (("before", before, "numba"), ("now", now, "numba"), ("numpy", now, "numpy")):
                    if proc is None:
                        continue
                    us, regret = proc.measure(name, R, mode, REPEAT[R])
                    rounds[key].append(us)
                    regrets[key] = regret
            nump, old, new = (min(rounds[k], default=np.nan) for k in ("numpy", "before", "now"))
            same = "" if before is None or math.isclose(regrets["before"], regrets["now"], rel_tol=1e-9) else " ≠"
            cell = lambda v: f"{v:8.3f}" if np.isfinite(v) else f"{'–':>8s}"  # noqa: E731
            print(f"{name:40s} {R:5d} {cell(p)} {cell(nump)} {cell(old)} {cell(new)} {new / old:9.2f}×"
                  f" {new / nump:8.2f}×{same}", flush=True)
            if new > 1.05 * old:
                slower.append(f"{name} at {R}")
            if new > 1.05 * nump:
                above_numpy.append(f"{name} at {R}")
    return slower, above_numpy


def main():
    if not kernels.available():
        print("numba is not installed: no kernels to measure")
        return
    print(f"(the kernels at {BEFORE} and now: DELAYLAB_KERNELS=numba; best of {ROUNDS} interleaved rounds of "
          f"{REPEAT} simulations by runs; plain: the per-run Python loop; load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    default = os.environ.get("DELAYLAB_KERNELS")
    folder = before_checkout()
    if folder is None:
        print(f"(no git checkout: the column {BEFORE} is left empty)")
    now = Checkout()
    before = Checkout(folder) if folder is not None else None
    try:
        slower, above_numpy = side_by_side(now, before)
        d30 = cpu_per_run_step(dl.Conversions(paper.THETA_L, LAW, window=M), dl.DelayedKLUCB(LAW, M), 30, "numba", 3)
        row("kernels: D-KLUCB at 30 runs, per run-step (CPU)", d30, "µs", "≤ 0.3 µs", d30 <= 0.3)
        q20 = cpu_per_run_step(dl.LabelledRewards(paper.THETA_L, LAW, window=M), dl.QPMD(), 20, "numba", 3)
        row("kernels: QPM-D at 20 runs, per run-step (CPU)", q20, "µs", "≤ 0.3 µs", q20 <= 0.3)
        if before is not None:
            row(f"kernels: rows slower than at {BEFORE} (> 1.05×): {', '.join(slower) or 'none'}", len(slower), "",
                "0", not slower)
        row(f"kernels: rows slower than numpy (> 1.05×): {', '.join(above_numpy) or 'none'}", len(above_numpy), "",
            "0", not above_numpy)
    finally:
        now.close()
        if before is not None:
            before.close()
        if default is None:
            os.environ.pop("DELAYLAB_KERNELS", None)
        else:
            os.environ["DELAYLAB_KERNELS"] = default
    print(f"(load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    (cold, cold_cpu), (warm, warm_cpu) = warmup_times()
    row("warmup() in a fresh Python, cold (compiles every kernel)", cold, "s")
    row("  CPU time", cold_cpu, "s")
    row("warmup() in a fresh Python, from the on-disk cache", warm, "s")
    row("  CPU time (wall time above includes waiting for a loaded machine)", warm_cpu, "s", "≤ 2 s", warm_cpu <= 2)


if __name__ == "__main__":
    main()
