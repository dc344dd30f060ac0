#!/usr/bin/env python3
"""A paper-scale sweep in bounded memory (issue 17): 10⁴ runs × 10⁵ steps of D-KLUCB through
``dl.sweep(keep="summary")`` on 2 local processes; its full arrays would need ≈ 15 GiB.

Prints the time and the peak memory (resident set) of the sweeping process and of its largest
worker, and their sum (an upper bound of the peak); target ≤ 1 GiB. The sweep runs in a child
process so that the numbers are its own. Run standalone:
``PYTHONPATH=. python benchmarks/bench_bigsweep.py [runs] [horizon]`` (default 10000 100000;
the full case takes a long time on 2 cores: try 1000 10000 first).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

CHILD = r"""
import json, resource, sys, time
import delaylab as dl
from delaylab.summary import result_bytes
if __name__ == "__main__":
    runs, horizon = int(sys.argv[1]), int(sys.argv[2])
    law = dl.Geometric(500)
    env = dl.Conversions([0.5, 0.4, 0.3], law, window=1000)
    pols = {"D-KLUCB": dl.DelayedKLUCB(law, 1000)}
    est = dl.estimate(env, pols, horizon, runs)
    t0 = time.perf_counter()
    res = dl.sweep(env, pols, horizon, runs, seed=0, keep="summary",
                   executor=2, chunk_runs=max(1, min(500, runs // 2)))
    elapsed = time.perf_counter() - t0
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    print(json.dumps({"seconds": elapsed, "estimate_seconds": est["seconds"], "parent": me, "worker": kids, "mean_final": float(res.mean("D-KLUCB")[-1]),
                      "full_bytes": result_bytes(1, 3, 1, runs, horizon, "all")}))
"""


def measure(runs: int, horizon: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(runs), str(horizon)], check=True, capture_output=True,
                         text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(runs: int = 10_000, horizon: int = 100_000):
    from table import row

    m = measure(runs, horizon)
    gib = 1 << 30
    peak = (m["parent"] + m["worker"]) / gib
    row(f"D-KLUCB {runs} runs × T = {horizon}, keep='summary', 2 processes", m["seconds"])
    row("  dl.estimate's time before it started (one process)", m["estimate_seconds"])
    row("  full arrays would need (GiB)", m["full_bytes"] / gib, "GiB")
    row("  peak memory: sweeping process + largest worker (GiB)", peak, "GiB", "≤ 1", peak <= 1.0)
    return m


if __name__ == "__main__":
    import table  # noqa: F401 - the table's row()

    args = [int(a) for a in sys.argv[1:3]]
    main(*args)
