#!/usr/bin/env python3
"""Benchmark of notebook 05 (Thune, Cesa-Bianchi, Seldin 2019): interactive update of the live
panel, the Example 8 sweep at the notebook's scale, and the speed-up over plain per-run loops.

Timings vary with the load of the machine: nothing here is a test.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the reference loops: tests/oracles
from table import best_of, row  # noqa: E402
from oracles.thune2019 import plain_run, uniforms  # noqa: E402

import delaylab as dl  # noqa: E402
from delaylab.panels.adversarial import AdversarialPanel  # noqa: E402
from delaylab.papers import thune2019 as paper  # noqa: E402
from delaylab.settings import sequences as sq  # noqa: E402


def interactive_updates():
    panel = AdversarialPanel()
    betas, patterns = [40.0, 60.0, 30.0], ["fixed", "spikes"]

    def move_beta():  # a slider move to a new value: what depends on β (Skipper, its twin) is recomputed
        panel._cache.clear()
        panel.update()  # warm: everything computed
        t0 = time.perf_counter()
        panel.beta.value = betas[0]
        betas.append(betas.pop(0))
        return time.perf_counter() - t0

    def move_pattern():  # everything shown is recomputed
        panel._cache.clear()
        panel.pattern.value = patterns[0]
        patterns.append(patterns.pop(0))

    t_beta = min(move_beta() for _ in range(3))
    t_all = best_of(move_pattern, 3)
    return t_beta, t_all, panel


def main():
    t_beta, t_all, panel = interactive_updates()
    T, R = panel.horizon.value, panel.runs.value
    row(f"nb05 interactive update: β slider (Skipper and its twin rerun, T = {T}, {R} runs)", t_beta, "s", "≤ 0.5 s", t_beta <= 0.5)
    row(f"nb05 interactive update: delay pattern (5 learners and uniform play rerun, T = {T}, {R} runs)", t_all, "s", "≤ 0.5 s",
        t_all <= 0.5)
    t = best_of(lambda: paper.example8(runs=10), 1)
    row(f"nb05 Example 8 sweep, notebook scale ({len(paper.EXAMPLE8_NAMES)} learners, uniform play exact, T = 2^9…2^14, "
        "10 runs)", t, "s", "≤ 60 s", t <= 60)
    t = best_of(lambda: paper.tradeoff(runs=20), 1)
    row("nb05 Theorem 3 trade-off (Skipper and its twin: 14 β × 20 runs as one grid; uniform play; T = 3000)", t, "s")
    # engine against plain per-run loops, Example 8 at T = 4096
    T = 4096
    losses, d = sq.example8(T, 2, gap=paper.GAP, seed=0)
    env = dl.AdversarialLosses(losses, d, reveal="at_action")
    runs = 20
    t_eng = best_of(lambda: dl.simulate(env, {"Doubling": dl.Doubling()}, T, runs, 0, checkpoints=1), 1)
    t_plain = best_of(lambda: [plain_run("Doubling", losses, d, T, uniforms(0, r, T)) for r in range(4)], 1) * runs / 4
    row(f"engine: time per run-step, Doubling ({runs} runs, T = {T})", t_eng / (runs * T) * 1e6, "µs")
    row("plain per-run loop: time per run-step, Doubling", t_plain / (runs * T) * 1e6, "µs")
    row("speed-up of the vectorised engine over plain loops (20 runs)", t_plain / t_eng, "×")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
