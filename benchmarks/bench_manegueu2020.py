#!/usr/bin/env python3
"""Benchmark of paper 2 (Manegueu et al. 2020): the live panel and the paper's figures.

Run as ``PYTHONPATH=. python benchmarks/bench_manegueu2020.py``. Timings depend on the load of
the machine; targets are those of the paper-2 issue.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the reference loops: tests/oracles
import delaylab as dl  # noqa: E402
from table import best_of, row, slider_move  # noqa: E402
from delaylab.panels.arm_delays import ArmDelaysPanel  # noqa: E402
from delaylab.papers import manegueu2020 as paper  # noqa: E402
from delaylab.streams import ENVIRONMENT, Batch, RunStreams  # noqa: E402
from oracles.manegueu2020 import plain_run  # noqa: E402


def interactive_update():
    panel = ArmDelaysPanel()
    return slider_move(panel, panel.alpha2, [0.35, 0.25, 0.3]), panel


def alpha_hat_update(panel):
    values = [0.32, 0.28, 0.3]

    def move():
        panel._cache.clear()
        panel.toggles["Patient Bandits"].value = True
        panel.update()  # fill the cache, then time the move that reruns Patient Bandits only
        t0 = time.perf_counter()
        panel.alpha_hat.value = values[0]
        values.append(values.pop(0))
        return time.perf_counter() - t0

    return min(move() for _ in range(3))


def plain_per_run_step(runs=2, horizon=3000):
    laws = paper.pareto_arms(paper.FIG2_ALPHAS)
    t0 = time.perf_counter()
    for r in range(runs):
        u = RunStreams(0, Batch(np.array([r])), ENVIRONMENT).uniform(horizon, (2,))[:, 0]
        delays = np.stack([law.ppf(u[:, 1]) for law in laws], axis=1).tolist()
        plain_run("Patient Bandits", list(paper.FIG2_MEANS), delays, u[:, 0].tolist(), alpha=0.3)
    return (time.perf_counter() - t0) / (runs * horizon)


def main():
    print("paper 2: Manegueu, Vernade, Carpentier, Valko (2020)")
    t, panel = interactive_update()
    row(f"interactive update, notebook 02 defaults ({len([b for b in panel.toggles.values() if b.value])} "
        f"policies, T = {panel.horizon.value}, {panel.runs.value} runs)", t, "s", "≤ 0.5 s", t <= 0.5)
    row("  moving α̂ only (Patient Bandits rerun, others cached)", alpha_hat_update(panel), "s")
    t2 = best_of(lambda: paper.figure2(runs=400), 1)
    row("Figure 2 at paper scale (25 values of α̂ × 400 runs, T = 3000)", t2, "s", "≤ 30 s", t2 <= 30)
    t3 = best_of(lambda: paper.figure3(runs=400), 1)
    row("Figure 3 at paper scale (5 × 30 grid × 400 runs, T = 3000)", t3, "s", "≤ 60 s", t3 <= 60)
    per_step = t2 / (25 * 400 * paper.HORIZON)
    row("engine: time per run-step (Figure 2 at paper scale)", per_step * 1e6, "µs")
    plain = plain_per_run_step()
    row("plain per-run loop of Patient Bandits, per run-step", plain * 1e6, "µs")
    row("  speed-up of the engine over it", plain / per_step, "×")
    t45 = best_of(lambda: (paper.figure4(runs=100), paper.figure5(runs=100)), 1)
    row("Figures 4 and 5 (6 policies and uniform play × 100 runs each, T = 3000)", t45, "s")
    t6 = best_of(lambda: paper.figure6(runs=100), 1)  # figure6 always computes (the notebook's figure6_results keeps it)
    row("Figures 6–7 (5 policies and uniform play × 100 runs, T = 10⁴, with traces)", t6, "s")
    env = dl.Conversions(paper.FIG6_MEANS, delays=paper.section83_laws())
    ta = best_of(lambda: dl.simulate(env, dl.AdaptPatientBandits(), paper.FIG6_HORIZON, 100, checkpoints=10), 1)
    row("  Adapt-Patient Bandits alone (100 runs, T = 10⁴)", ta, "s")


if __name__ == "__main__":
    main()
