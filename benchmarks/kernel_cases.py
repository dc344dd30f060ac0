#!/usr/bin/env python3
"""The kernel benchmark's cases, and a measuring process for one checkout of delaylab.

``python kernel_cases.py`` imports whichever ``delaylab`` comes first on its path (the current
checkout, or an older one given in PYTHONPATH: bench_kernels.py compares the kernels with those
of the commit before their refactor), then answers one request per line on its standard input,
``NAME<TAB>RUNS<TAB>MODE<TAB>REPEAT``, with the CPU µs per run-step of ``dl.simulate`` (best of
REPEAT), MODE being ``numba`` (the kernels) or ``numpy`` (``DELAYLAB_KERNELS``), and after a
tab the mean final regret of that simulation (the same in both checkouts when they simulate the
same runs). Its first line
says ``ready``, once every kernel it measures is compiled or loaded. The cases use only what
both checkouts have: the same settings, policies and horizons, so the runs are the same.

``python kernel_cases.py --instructions MODE NAME:RUNS ...`` instead runs each case once, inside
``math.fsum``, for ``valgrind --tool=callgrind --toggle-collect=math_fsum --dump-after=math_fsum``
to count the instructions of each simulation alone (one dump per case, in order): a count that
other work on the machine does not change, unlike a time.
"""

from __future__ import annotations

import gc
import os
import sys
import time

import numpy as np

import delaylab as dl
from delaylab.papers import pikeburke2018 as pikeburke
from delaylab.papers import vernade2017 as paper

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

# name → (setting, policy, plain loop's name or None)
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
    # the reference curve of every figure (a kernel since issue 37; before: the numpy path)
    "Uniform random (conversions)": (CONV, dl.UniformRandom(), None),
    "Uniform random (losses)": (ADV, dl.UniformRandom(), None),
    "Uniform random (linear, d = 5, K = 10)": (LIN, dl.UniformRandom(), None),
}
BATCHES = (1, 30, 1000)
STEPS = {1: 4000, 20: 4000, 30: 4000, 1000: 600}  # horizon per batch size (≈ 10⁵–10⁶ run-steps)


def cpu_per_run_step(name, runs, mode, repeat=2):
    """CPU µs per run-step of ``dl.simulate`` of case ``name`` at ``runs`` runs on the path
    ``mode``, best of ``repeat`` (after one short simulation that compiles or loads the kernel),
    and the mean final regret of the policy; the garbage collector is kept out of the timed calls."""
    setting, policy, _ = ALGORITHMS[name]
    os.environ["DELAYLAB_KERNELS"] = mode
    T = STEPS[runs]
    dl.simulate(setting, policy, 50, runs, checkpoints=1)  # compiled / loaded
    best, regret = np.inf, np.nan
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeat):
            c = time.process_time()
            result = dl.simulate(setting, policy, T, runs, checkpoints=100)
            best = min(best, time.process_time() - c)
            regret = float(np.mean(np.asarray(next(iter(result.regret.values())))[..., -1]))
    finally:
        gc.enable()
    return best / (T * runs) * 1e6, regret


#: horizon per batch size when counting instructions (valgrind runs about 50 times slower)
INSTRUCTION_STEPS = {1: 4000, 20: 1000, 30: 1000, 1000: 150}


def instructions(mode: str, cases) -> None:
    """Each case (``NAME:RUNS``) simulated once as warm-up, then once inside ``math.fsum`` (the
    function valgrind counts in, see the module's docstring), the garbage collector kept out."""
    import math

    os.environ["DELAYLAB_KERNELS"] = mode
    for case in cases:
        name, runs = case.rsplit(":", 1)
        setting, policy, _ = ALGORITHMS[name]
        T, runs = INSTRUCTION_STEPS[int(runs)], int(runs)
        dl.simulate(setting, policy, T, runs, checkpoints=100)  # compiled or loaded, first calls paid
        gc.collect()
        gc.disable()
        math.fsum(map(lambda _: dl.simulate(setting, policy, T, runs, checkpoints=100) and 0.0, [0]))
        gc.enable()


def serve() -> None:
    """Answer requests on stdin (see the module's docstring) until it closes."""
    for name in ALGORITHMS:  # compile or load every kernel before the first measurement
        cpu_per_run_step(name, 1, "numba", repeat=0)
    print("ready", flush=True)
    for line in sys.stdin:
        name, runs, mode, repeat = line.rstrip("\n").split("\t")
        us, regret = cpu_per_run_step(name, int(runs), mode, int(repeat))
        print(f"{us:.6f}\t{regret!r}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--instructions"]:
        instructions(sys.argv[2], sys.argv[3:])
    else:
        serve()
