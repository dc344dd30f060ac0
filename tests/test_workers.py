"""Issue 17, parts 4 and 5: no orphan workers when the sweeping process dies; two processes
sweeping into the same cache at once lose nothing and serve no half-written entry."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import delaylab as dl

ROOT = Path(__file__).resolve().parents[1]

SWEEP = textwrap.dedent("""
    import os, sys
    import delaylab as dl
    if __name__ == "__main__":
        law = dl.Geometric(20)
        env = dl.Conversions([0.3, 0.2, 0.1], law)
        res = dl.sweep(env, {{"D-KLUCB": dl.DelayedKLUCB(law), "UCB1": dl.UCB1()}}, {horizon}, runs={runs},
                       seed={seed}, checkpoints=50, executor={executor}, chunk_runs={chunk}, cache={cache!r},
                       keep={keep!r})
        import numpy as np
        np.save(sys.argv[1], np.stack([res.mean(n) for n in res.names]))
        print(res.notes["computed_runs"], res.notes["cached_runs"], res.notes["corrupt_entries"], flush=True)
""")


def _children(pid: int) -> set[int]:
    """Descendants of ``pid`` (from /proc)."""
    kids, frontier = set(), {pid}
    while frontier:
        found = set()
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                if ppid in frontier and int(d.name) not in kids:
                    found.add(int(d.name))
        kids |= found
        frontier = found
    return kids


def _is_worker(pid: int) -> bool:
    """A worker process of the pool (not loky's resource tracker)."""
    try:
        return b"popen_loky" in (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc to find the workers")
def test_workers_exit_within_5_s_when_the_parent_is_killed(tmp_path):
    script = tmp_path / "sweep.py"
    script.write_text(SWEEP.format(horizon=200_000, runs=8, seed=0, executor=2, chunk=2, cache=None, keep="all"))
    parent = subprocess.Popen([sys.executable, str(script), str(tmp_path / "out.npy")], cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        workers, deadline = set(), time.monotonic() + 60
        while time.monotonic() < deadline:  # wait until both workers compute
            workers = {p for p in _children(parent.pid) if _alive(p) and _is_worker(p)}
            busy = [p for p in workers if (Path("/proc") / str(p) / "stat").read_text().rsplit(")", 1)[1].split()[0] == "R"]
            if len(busy) >= 2:
                break
            time.sleep(0.2)
        assert len(workers) >= 2, f"the sweep did not start its workers: {workers}"
        time.sleep(2.0)  # well into their chunks (which take minutes)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        killed = time.monotonic()
        while time.monotonic() - killed < 5 and any(_alive(p) for p in workers):
            time.sleep(0.1)
        left = [p for p in workers if _alive(p)]
        print(f"workers {sorted(workers)} gone {time.monotonic() - killed:.1f} s after the parent was killed")
        assert not left, f"workers {left} still run 5 s after their parent was killed"
    finally:
        for p in _children(parent.pid) | {parent.pid}:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass


@pytest.mark.parametrize("keep", ["all", "summary"])
def test_two_processes_sweeping_into_one_cache_lose_nothing(tmp_path, keep):
    cache = tmp_path / "cache"
    script = tmp_path / "sweep.py"
    script.write_text(SWEEP.format(horizon=300, runs=24, seed=5, executor=None, chunk=3, cache=str(cache), keep=keep))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, str(script), str(tmp_path / f"out{i}.npy")], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, text=True) for i in range(2)]
    outs = [p.communicate(timeout=300)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert all(o[2] == "0" for o in outs), f"a process found a corrupt (half-written?) entry: {outs}"
    law = dl.Geometric(20)
    ref = dl.simulate(dl.Conversions([0.3, 0.2, 0.1], law), {"D-KLUCB": dl.DelayedKLUCB(law), "UCB1": dl.UCB1()},
                      300, 24, seed=5, checkpoints=50)
    want = np.stack([ref.mean(n) for n in ref.names])
    for i in range(2):
        np.testing.assert_allclose(np.load(tmp_path / f"out{i}.npy"), want, rtol=1e-12, atol=1e-9)
    # everything both computed is in the cache, whole: a third sweep reads all of it
    third = subprocess.run([sys.executable, str(script), str(tmp_path / "out2.npy")], cwd=tmp_path, env=env,
                           stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    assert third == ["0", "24", "0"], third
    assert not list(cache.rglob(".tmp-*")), "temporary files were left behind"
