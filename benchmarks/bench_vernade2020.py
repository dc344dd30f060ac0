#!/usr/bin/env python3
"""Benchmarks of paper 3 (Vernade et al. 2020, linear bandits with delayed feedback).

    PYTHONPATH=. python benchmarks/bench_vernade2020.py

Timings vary with the load of the machine (2 shared cores): read them as orders of magnitude.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the reference loops: tests/oracles
from table import best_of, row, slider_move  # noqa: E402

import delaylab as dl  # noqa: E402
from delaylab.panels.linear import LinearPanel  # noqa: E402
from delaylab.papers import vernade2020 as paper  # noqa: E402
from oracles.vernade2020 import plain_run  # noqa: E402


def interactive_update():
    panel = LinearPanel()
    return slider_move(panel, panel.window, [150, 200, 100]), panel


def width_cost(m, width, runs=50, horizon=3000):
    env = dl.LinearConversions(paper.theta(), dl.Geometric(100), n_actions=paper.N_ACTIONS, window=m)
    pol = dl.OTFLinUCB(window=m, width=width)
    return best_of(lambda: dl.simulate(env, pol, horizon, runs, checkpoints=10), 1) / (runs * horizon)


def main():
    t, panel = interactive_update()
    row(f"paper 3: interactive update, notebook 03 defaults (3 policies and uniform play, T = {panel.horizon.value}, "
        f"{panel.runs.value} runs)", t, "s", "≤ 0.5 s", t <= 0.5)
    t1 = best_of(lambda: (paper.forget(), paper.figure1(runs=50, authors=False)), 1)
    row("paper 3: Figure 1 at paper scale (3 panels × 3 policies and uniform play × 50 runs, T = 3000)", t1, "s",
        "≤ 30 s", t1 <= 30)
    t1b = best_of(lambda: (paper.forget(), paper.figure1(runs=50)), 1)
    row("paper 3: the same with the authors'-code curve (4 policies and uniform play)", t1b)
    t3 = best_of(lambda: (paper.forget(), paper.figure3(runs=50)), 1)
    row("paper 3: Figure 3 at paper scale (3 policies and uniform play × 50 runs, m = 2000, T = 10⁴)", t3)
    for m in (100, 500, 2000):
        exact, cheap = width_cost(m, "exact"), width_cost(m, "cheap")
        row(f"paper 3: OTFLinUCB per run-step, m = {m}, exact width (O(m d²))", exact * 1e6, "µs")
        row(f"paper 3: OTFLinUCB per run-step, m = {m}, cheap width (O(m))", cheap * 1e6, "µs")
        row(f"paper 3:   exact / cheap, m = {m}", exact / cheap, "×")
    law = dl.Geometric(100)
    t0 = time.perf_counter()
    plain_run("OTFLinUCB", paper.theta(), law, paper.N_ACTIONS, 1000, 100, 100)
    plain = (time.perf_counter() - t0) / 1000
    engine = width_cost(100, "exact", runs=50, horizon=1000)
    row("paper 3: plain per-run loop (OTFLinUCB, m = 100), per run-step", plain * 1e6, "µs")
    row("paper 3:   speed-up of the engine (50 runs) over it", plain / engine, "×")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
