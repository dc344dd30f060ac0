#!/usr/bin/env python3
"""Benchmark of notebook 04 (Pike-Burke et al. 2018): interactive update, Figure 2 and Appendix F
at paper scale, the engine's block path for phased policies, and the plain per-run loops.

Run: ``PYTHONPATH=. /tmp/v/bin/python benchmarks/bench_pikeburke2018.py``. Timings depend on the
load of the machine.
"""

from __future__ import annotations

import os

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the reference loops: tests/oracles
import delaylab as dl  # noqa: E402
from table import best_of, row, slider_move  # noqa: E402
from delaylab import engine  # noqa: E402
from delaylab.panels.anonymous import AnonymousPanel  # noqa: E402
from delaylab.papers import pikeburke2018 as paper  # noqa: E402
from delaylab.streams import ENVIRONMENT, Batch, RunStreams  # noqa: E402
from oracles.pikeburke2018 import plain_phased, plain_qpmd  # noqa: E402


def interactive_update():
    panel = AnonymousPanel()
    t_all = slider_move(panel, panel.mean_delay, [12.0, 8.0, 10.0])
    # new values of d: ODAAF-B recomputed each time, the rest read from the panel's cache
    return t_all, slider_move(panel, panel.bound, [25, 30, 35], forget=False), panel


def main():
    t, t_b, panel = interactive_update()
    row(f"interactive update, notebook 04 defaults (5 policies, T = {panel.horizon.value:,}, "
        f"{panel.runs.value} runs)", t, "s", "≤ 1 s", t <= 1.0)
    row("  moving d only (ODAAF-B recomputed, the rest cached)", t_b, "s")
    t2 = best_of(lambda: paper.figure2(runs=paper.RUNS), 1)
    row(f"Figure 2 at paper scale (6 delay laws, {paper.RUNS} runs, T = {paper.HORIZON:,})", t2, "s", "≤ 120 s",
        t2 <= 120)
    tf = best_of(lambda: paper.appendix_f(runs=paper.RUNS), 1)
    row(f"Appendix F at paper scale (5 means, {paper.RUNS} runs, T = {paper.HORIZON:,})", tf, "s")

    env = dl.AggregatedAnonymous(paper.THETA, dl.Poisson(10.0))
    pols = {"ODAAF": dl.ODAAF(mean_delay=10), "ODAAF-B": dl.ODAAFB(mean_delay=10, bound=40),
            "ODAAF-V": dl.ODAAFV(mean_delay=10, variance=10)}
    T, R = 20_000, 20
    compiled = best_of(lambda: dl.simulate(env, pols, T, R, checkpoints=200), 1)  # kernels.odaaf (≤ 100 runs)
    default = os.environ.get("DELAYLAB_KERNELS")
    os.environ["DELAYLAB_KERNELS"] = "numpy"  # the two numpy paths
    try:
        fast = best_of(lambda: dl.simulate(env, pols, T, R, checkpoints=200), 1)
        engine.BLOCK_STEPS = False
        slow = best_of(lambda: dl.simulate(env, pols, T, R, checkpoints=200), 1)
    finally:
        engine.BLOCK_STEPS = True
        if default is None:
            os.environ.pop("DELAYLAB_KERNELS", None)
        else:
            os.environ["DELAYLAB_KERNELS"] = default
    row(f"ODAAF ×3 variants, {R} runs, T = {T:,}: compiled kernel (the default engine)", compiled, "s")
    row("  numpy: block path", fast, "s")
    row("  numpy: step-by-step path", slow, "s")
    row("  speed-up of the block path", slow / fast, "×")
    lab = dl.LabelledRewards(paper.THETA, dl.Poisson(10.0))
    tq = best_of(lambda: dl.simulate(lab, dl.QPMD(), T, R, checkpoints=200), 1)
    row(f"QPM-D, {R} runs, T = {T:,} (step by step: its arm changes with every arrival)", tq, "s")

    law = dl.Poisson(10.0)
    u = RunStreams(0, Batch(np.array([0])), ENVIRONMENT).uniform(T, (2,))[:, 0]
    delays = law.ppf(u[:, 1])
    t0 = time.perf_counter()
    plain_phased("ODAAF", list(paper.THETA), u[:, 0], delays, mean_delay=10.0)
    row("plain per-run loop, ODAAF, per run-step", (time.perf_counter() - t0) / T * 1e6, "µs")
    t0 = time.perf_counter()
    plain_qpmd(list(paper.THETA), u[:, 0], delays)
    per_q = (time.perf_counter() - t0) / T
    row("plain per-run loop, QPM-D, per run-step", per_q * 1e6, "µs")
    row("  engine QPM-D per run-step (above)", tq / (T * R) * 1e6, "µs")


if __name__ == "__main__":
    main()
