#!/usr/bin/env python3
"""delaylab benchmark: prints a table of timings (run with `python3 tasks.py bench`).

Measured on the machine it runs on; targets are those of the foundation issue for a 2-core
machine. Nothing here is a test: timings vary with the load of the machine.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import delaylab as dl  # noqa: E402
from delaylab.panels.conversions import ConversionsPanel  # noqa: E402
from delaylab.papers import vernade2017 as paper  # noqa: E402
from delaylab.streams import ENVIRONMENT, Batch, RunStreams  # noqa: E402
from plain import numpy_run, plain_run  # noqa: E402

ROWS = []


def row(what, value, unit="s", target=None, ok=None):
    ROWS.append((what, value, unit, target, ok))
    shown = f"{value:,.3g} {unit}" if unit != "×" else f"{value:,.0f}×"
    verdict = "" if ok is None else ("ok" if ok else "MISSED")
    print(f"{what:62s} {shown:>14s} {target or '':>10s} {verdict:>7s}", flush=True)


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def interactive_update():
    panel = ConversionsPanel()
    values = [400, 600, 500]

    def move():
        panel._cache.clear()  # a slider move to a new value: everything shown is recomputed
        panel.mean_delay.value = values[0]
        values.append(values.pop(0))

    return best_of(move, 3), panel


def plain_per_run_step(fn, algorithm, runs=2, horizon=10_000):
    law = dl.Geometric(paper.MEAN_DELAY)
    t0 = time.perf_counter()
    for r in range(runs):
        u = RunStreams(0, Batch(np.array([r])), ENVIRONMENT).uniform(horizon, (2,))[:, 0]
        fn(algorithm, paper.THETA_L, paper.MEAN_DELAY, paper.WINDOW, u[:, 0], law.ppf(u[:, 1]))
    return (time.perf_counter() - t0) / (runs * horizon)


def main():
    print(f"delaylab {dl.__version__} benchmark · Python {platform.python_version()} · numpy {np.__version__} "
          f"· {os.cpu_count()} cores")
    print(f"{'':62s} {'measured':>14s} {'target':>10s}")
    t, panel = interactive_update()
    row(f"interactive update, notebook 01 defaults ({len(panel.selected())} policies, T = "
        f"{panel.horizon.value}, {panel.runs.value} runs)", t, "s", "≤ 0.5 s", t <= 0.5)
    t1 = best_of(lambda: paper.figure1(runs=100), 1)
    row("Figure 1 at paper scale (4 panels × 2 policies × 100 runs, T = 10⁴)", t1)
    t2 = best_of(lambda: paper.figure2(runs=200), 1)
    row("Figure 2 at paper scale (4 policies × 200 runs, T = 10⁴)", t2, "s", "≤ 30 s", t2 <= 30)
    t3 = best_of(lambda: paper.figure3(runs=100), 1)
    row("Figure 3 at paper scale (2 panels × 2 policies × 100 runs, T = 10⁴)", t3)
    per_step = t2 / (4 * 200 * paper.HORIZON)
    row("engine: time per run-step (Figure 2 at paper scale)", per_step * 1e6, "µs")
    plain = np.mean([plain_per_run_step(plain_run, a) for a in paper.FIG2_NAMES])
    row("plain per-run loop with math (same 4 policies), per run-step", plain * 1e6, "µs")
    row("  speed-up of the engine over it", plain / per_step, "×", "≥ 50×", plain / per_step >= 50)
    nump = np.mean([plain_per_run_step(numpy_run, a, runs=1) for a in paper.FIG2_NAMES])
    row("plain per-run loop with numpy per step, per run-step", nump * 1e6, "µs")
    row("  speed-up of the engine over it", nump / per_step, "×", "≥ 50×", nump / per_step >= 50)
    print("\nscaling: D-KLUCB, θ_L, μ = 500, m = 1000, T = 3000")
    law = dl.Geometric(paper.MEAN_DELAY)
    env = dl.Conversions(paper.THETA_L, law, window=paper.WINDOW)
    for runs in [10, 50, 200, 1000, 5000]:
        t = best_of(lambda: dl.simulate(env, dl.DelayedKLUCB(law, paper.WINDOW), 3000, runs, checkpoints=10), 1)  # noqa: B023
        print(f"  {runs:5d} runs: {t:6.2f} s, {t / (3000 * runs) * 1e6:6.3f} µs per run-step")
    print("\ngeneral (non-geometric) update, ring buffer of W = m pulls: D-KLUCB, 200 runs, T = 3000")
    for m in [100, 1000, 3000]:
        law_u = dl.Uniform(0, 2 * m)
        env_u = dl.Conversions(paper.THETA_L, law_u, window=m)
        t = best_of(lambda: dl.simulate(env_u, dl.DelayedKLUCB(law_u, m), 3000, 200, checkpoints=10), 1)  # noqa: B023
        print(f"  m = {m:5d}: {t:6.2f} s")


if __name__ == "__main__":
    main()
