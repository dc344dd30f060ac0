#!/usr/bin/env python3
"""Sweeps (issue 8): Figure 2 of paper 1 at the paper's scale through dl.sweep — first run into
an empty cache, rerun from the cache, local processes, a Dask LocalCluster — against simulate.

Run: ``PYTHONPATH=. python benchmarks/bench_sweep.py``. Timings depend on the machine's load.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import delaylab as dl  # noqa: E402
from table import best_of, row  # noqa: E402
from delaylab.papers import vernade2017 as paper  # noqa: E402

RUNS = 200


def figure2_problem():
    law = dl.Geometric(paper.MEAN_DELAY)
    env = dl.Conversions(paper.THETA_L, law, window=paper.WINDOW)
    pols = {"D-UCB": dl.DelayedUCB(law, paper.WINDOW), "D-KLUCB": dl.DelayedKLUCB(law, paper.WINDOW),
            "Discarding UCB": dl.DiscardingUCB(law, paper.WINDOW),
            "Discarding KL-UCB": dl.DiscardingKLUCB(law, paper.WINDOW)}
    return env, pols


def main():
    env, pols = figure2_problem()
    kw = dict(horizon=paper.HORIZON, runs=RUNS, seed=0, checkpoints=paper.CHECKPOINTS)
    out = {}
    t = best_of(lambda: out.update(ref=dl.simulate(env, pols, **kw)), 1)
    row(f"Figure 2 ({RUNS} runs, T = 10⁴): simulate", t)
    with tempfile.TemporaryDirectory() as folder:
        t_first = best_of(lambda: out.update(first=dl.sweep(env, pols, **kw, cache=folder)), 1)
        row("  sweep into an empty cache", t_first)
        t_again = best_of(lambda: out.update(again=dl.sweep(env, pols, **kw, cache=folder)), 3)
        row("  sweep again: every run read from the cache", t_again, "s", "≤ 1 s", t_again <= 1)
    t_proc = best_of(lambda: out.update(proc=dl.sweep(env, pols, **kw, executor=2, chunk_runs=RUNS // 4)), 1)
    row("  sweep on 2 local processes, 4 chunks (incl. starting them)", t_proc)
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        t_dask = best_of(lambda: out.update(dask=dl.sweep(env, pols, **kw, executor=client,
                                                           chunk_runs=RUNS // 4)), 1)
    row("  sweep on a Dask LocalCluster, 2 workers, 4 chunks", t_dask)
    same = all(np.array_equal(out["ref"].regret[n], out[k].regret[n])
               for k in ("first", "again", "proc", "dask") for n in out["ref"].names)
    row("  every sweep bit-identical to simulate (1 = yes)", float(same), "", "1", same)


if __name__ == "__main__":
    main()
