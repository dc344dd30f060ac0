"""A soak of the public dashboards under a class's steady traffic (`python3 tasks.py bench soak
[--minutes 10] [--rate 0.3] [--seed 0]`, issue 29).

Starts ``python -m delaylab.serve notebooks --public`` on a free port of 127.0.0.1 (its temporary
files in a folder of its own, so that its connection files can be counted), waits until its
preheated pools are full, then for ``--minutes`` sends visitors at ``--rate`` visits per second,
evenly spaced with some jitter (three to five on the dashboards at any time): each is a protocol
visitor (tests/visitor.py: the page, the kernel's websocket, the widgets' state), picks a
notebook at random, moves its first slider every few seconds for a stay of 10–16 s, then
closes as a page does (the shutdown request). Besides them, about one abrupt visitor per ten
honest ones connects and drops: half get the widgets' state and vanish without the shutdown
request, half take the page and never connect; the culler must stop their kernels.

Printed: every 30 s the server's kernels (and those in the pools, ready), its resident memory,
open descriptors, connection files and socket files, and the load average; then the time to a
visitor's widget state (median, p90, max) against the issue's budgets; and after the last
visitor, whether kernels, descriptors and connection files return to their values before the
first visit, and whether the server's memory is within 10 MB of its value after the first five
minutes (after half the run when it is shorter). The server is stopped at the end, whatever
happens. Loopback only; bounded by ``--minutes`` plus the pools' filling and the return to
baseline (each waited for at most 15 and 5 minutes)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from processes import children, stop  # noqa: E402
from visitor import ProtocolVisitor  # noqa: E402

NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9]*.ipynb"))
SAMPLE_EVERY = 30  # seconds between the table's rows
STAY = (10.0, 16.0)  # seconds an honest visitor keeps its page open
MOVE_EVERY = 4.0  # seconds between its slider moves
ABRUPT_SHARE = 0.1  # abrupt visitors per honest one
BUDGET_MEDIAN, BUDGET_P90 = 1.5, 3.0  # seconds to the widgets' state (issue 29)
RSS_SLACK_MB = 10
RSS_REFERENCE_S = 300  # the memory after the first five minutes is the reference


def options(argv) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tasks.py bench soak", description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="length of the traffic (default 10)")
    parser.add_argument("--rate", type=float, default=0.3, help="honest visits per second (default 0.3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the visitors' schedule (default 0)")
    args = parser.parse_args(argv)
    if not 0 < args.minutes <= 240:
        parser.error(f"--minutes must be in (0, 240], got {args.minutes}")
    if not 0 < args.rate <= 5:
        parser.error(f"--rate must be in (0, 5] visits per second, got {args.rate}")
    return args


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The dashboard server under test, with what /proc says about it."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "TMPDIR": str(tmp / "t"), "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
               "JUPYTER_DATA_DIR": str(tmp / "data"), "IPYTHONDIR": str(tmp / "ipython")}
        (tmp / "t").mkdir()
        self.log_path = tmp / "server.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([sys.executable, "-m", "delaylab.serve", str(ROOT / "notebooks"), "--public",
                                      f"--port={self.port}", "--Voila.ip=127.0.0.1", "--no-browser"],
                                     cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.kernel_pids: set = set()

    def status(self) -> dict:
        import urllib.request

        return json.load(urllib.request.urlopen(self.url + "/delaylab/status", timeout=10))

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def files(self) -> tuple[int, int]:
        """Connection files (kernel-<id>.json) and kernels' socket files under the server's
        temporary folder."""
        json_files = sockets = 0
        for path in (self.tmp / "t").rglob("kernel-*"):
            if path.name.endswith(".json"):
                json_files += 1
            elif "-ipc-" in path.name:
                sockets += 1
        return json_files, sockets

    def kernels_started(self) -> int:
        """Kernels the server has started so far (its log's "Kernel started" lines)."""
        return self.log_path.read_text(errors="replace").count("Kernel started:")

    def children(self) -> set:
        pids = children(self.proc.pid)
        self.kernel_pids |= pids
        return pids

    def sample(self) -> dict:
        st = self.status()
        json_files, sockets = self.files()
        return {"kernels": st["kernels"], "pooled": st["pooled"], "ready": st["pool_ready"],
                "waiting": st["pool_starting"], "visitors": st["visitors"], "processes": len(self.children()), "rss_mb": self.rss_mb(),
                "fds": self.fds(), "conn_files": json_files, "sockets": sockets, "load": os.getloadavg()[0]}

    def stop(self) -> list:
        """Stop the server (SIGTERM, then SIGKILL after 60 s); kernels of its still running
        afterwards are killed too (by their ids, all started by this server): their ids."""
        stop(self.proc, wait=60)
        self.log.close()
        deadline = time.time() + 15
        left = [p for p in self.kernel_pids if Path(f"/proc/{p}").exists()]
        while left and time.time() < deadline:
            time.sleep(0.5)
            left = [p for p in left if Path(f"/proc/{p}").exists()]
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        return left


async def honest(url, notebook, rng, results, name):
    """A visitor who stays: the widgets' state, a slider move every few seconds, then the
    shutdown request a closing page sends."""
    v = ProtocolVisitor(url, notebook, name)
    stay = rng.uniform(*STAY)
    t0 = time.perf_counter()
    try:
        times = await v.visit(timeout=300)
        if v.status != 200:
            results["refused"].append((notebook, v.status))
            return
        results["state_s"].append(times["state_s"])
        results["by_notebook"].setdefault(notebook, []).append(times["state_s"])
        if v.first_slider() is not None:
            while time.perf_counter() - t0 + MOVE_EVERY < stay:
                await asyncio.sleep(MOVE_EVERY)
                try:
                    results["slider_s"].append(await v.move_slider())
                except AssertionError:  # the kernel answered, no figure changed: the visitor's step
                    results["slider_unchanged"] += 1  # (issue 29's item 7: a logarithmic slider moved linearly)
                    break
        await asyncio.sleep(max(0.0, stay - (time.perf_counter() - t0)))
    except Exception as exc:  # counted and shown, the soak goes on
        results["errors"].append(f"{name} {notebook}: {type(exc).__name__}: {exc}")
    finally:
        try:
            await v.leave(shutdown=True)
        except Exception as exc:
            results["errors"].append(f"{name} {notebook} leaving: {type(exc).__name__}: {exc}")


async def abrupt(url, notebook, connect, results, name):
    """A visitor who vanishes: after the widgets' state without the shutdown request
    (``connect``), or after the page, never connecting."""
    v = ProtocolVisitor(url, notebook, name)
    try:
        if connect:
            await v.visit(timeout=300)
        else:
            await v.get_page()
        results["abrupt"] += 1
    except Exception as exc:
        results["errors"].append(f"{name} {notebook} (abrupt): {type(exc).__name__}: {exc}")
    finally:
        try:
            await v.leave(shutdown=False)
        except Exception:
            pass


def percentile(values, q):
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def header():
    print("kernels: the server's; pooled: in the pools (ready: notebook executed; waiting: a refill not "
          "started yet or starting); visit.: visitors' kernels; procs: kernel processes; fds: the server's "
          "open descriptors; conn: connection files; socks: kernels' socket files")
    print(f"{'t (s)':>6s} {'kernels':>7s} {'pooled':>6s} {'ready':>5s} {'waiting':>7s} {'visit.':>6s} {'procs':>5s} "
          f"{'RSS MB':>7s} {'fds':>5s} {'conn':>4s} {'socks':>5s} {'load':>5s}", flush=True)


def show(t, s):
    print(f"{t:6.0f} {s['kernels']:7d} {s['pooled']:6d} {s['ready']:5d} {s['waiting']:7d} {s['visitors']:6d} {s['processes']:5d} "
          f"{s['rss_mb']:7.1f} {s['fds']:5d} {s['conn_files']:4d} {s['sockets']:5d} {s['load']:5.1f}", flush=True)


async def run(server: Server, args) -> None:
    from tornado.httpclient import AsyncHTTPClient

    AsyncHTTPClient.configure(None, max_clients=64)
    loop = asyncio.get_running_loop()

    def quiet_closed_websockets(loop, context):
        # a visitor's pending waiters fail with ConnectionError when its websocket closes on
        # leaving: nobody awaits them any more, which is expected here
        if not isinstance(context.get("exception"), ConnectionError):
            loop.default_exception_handler(context)

    loop.set_exception_handler(quiet_closed_websockets)
    status = lambda: loop.run_in_executor(None, server.status)  # noqa: E731
    sample = lambda: loop.run_in_executor(None, server.sample)  # noqa: E731

    t0 = time.perf_counter()
    while True:  # the server answers, then its pools fill (a cold sweep cache: each notebook computed once)
        if server.proc.poll() is not None:
            raise RuntimeError(f"the server stopped (exit {server.proc.returncode}); see {server.log_path}")
        try:
            st = await status()
            if st["pooled"] and st["pool_ready"] == st["pooled"] and st["pool_starting"] == 0 and not st["refilling"]:
                break
        except OSError:
            pass
        if time.perf_counter() - t0 > 900:
            raise RuntimeError(f"the pools did not fill within 900 s; see {server.log_path}")
        await asyncio.sleep(1)
    await asyncio.sleep(2)
    base = await sample()
    table.row("soak: pools filled after (server start to every kernel ready)", time.perf_counter() - t0, "s")
    print(f"baseline before the first visit: {base['kernels']} kernels ({base['ready']} ready in the pools), "
          f"RSS {base['rss_mb']:.1f} MB, {base['fds']} descriptors, {base['conn_files']} connection files, "
          f"{base['sockets']} socket files", flush=True)
    print(f"{args.minutes:g} minutes at {args.rate:g} visits/s (seed {args.seed}) over {len(NOTEBOOKS)} notebooks; "
          f"one row every {SAMPLE_EVERY} s:", flush=True)

    rng = random.Random(args.seed)
    results = {"state_s": [], "slider_s": [], "refused": [], "errors": [], "abrupt": 0, "by_notebook": {},
               "slider_unchanged": 0}
    samples = []  # (t, sample)
    pool_seen = []  # pool kernels ready, every 2 s
    refilling_seen = []  # refills executing, every 2 s
    tasks = []
    length = args.minutes * 60
    started_before = server.kernels_started()
    start = time.perf_counter()
    header()
    show(0, base)
    samples.append((0.0, base))

    async def sampler():
        next_row = SAMPLE_EVERY
        while True:
            await asyncio.sleep(2)
            t = time.perf_counter() - start
            try:
                st = await status()
                if t <= traffic_end[0]:
                    pool_seen.append(st["pool_ready"])
                    refilling_seen.append((st["refilling"], st["pool_starting"]))
                if t >= next_row:
                    s = await sample()
                    samples.append((t, s))
                    show(t, s)
                    next_row += SAMPLE_EVERY
            except OSError as exc:
                results["errors"].append(f"status at {t:.0f} s: {exc}")

    traffic_end = [float("inf")]  # the sampler's shares cover the traffic only
    sampling = asyncio.ensure_future(sampler())
    arrival, n = 0.0, 0
    mean = 1 / args.rate
    abrupt_next = rng.expovariate(args.rate * ABRUPT_SHARE)
    while arrival < length:
        await asyncio.sleep(max(0.0, start + arrival - time.perf_counter()))
        n += 1
        tasks.append(asyncio.ensure_future(honest(server.url, rng.choice(NOTEBOOKS), random.Random(rng.random()),
                                                  results, f"visitor {n}")))
        while abrupt_next <= arrival:
            tasks.append(asyncio.ensure_future(abrupt(server.url, rng.choice(NOTEBOOKS), rng.random() < 0.5,
                                                      results, f"abrupt {n}")))
            abrupt_next += rng.expovariate(args.rate * ABRUPT_SHARE)
        arrival += rng.uniform(0.5, 1.5) * mean
    await asyncio.gather(*tasks)
    traffic = traffic_end[0] = time.perf_counter() - start
    started_during = server.kernels_started() - started_before
    print(f"traffic over after {traffic:.0f} s; waiting for the kernels to return to the baseline", flush=True)

    # back to the baseline: the abrupt visitors' kernels culled, the pools refilled
    waited = time.perf_counter()
    while time.perf_counter() - waited < 300:
        s = await sample()
        if (s["kernels"] == base["kernels"] and s["ready"] == base["ready"] and s["fds"] <= base["fds"]
                and s["conn_files"] == base["conn_files"] and s["sockets"] == base["sockets"]):
            break
        await asyncio.sleep(2)
    back_after = time.perf_counter() - waited
    sampling.cancel()
    await asyncio.sleep(2)
    end = await sample()
    show(time.perf_counter() - start, end)

    # ------------------------------------------------------------------ the verdict
    st = results["state_s"]
    print(f"\n{len(st)} honest visits with the widgets' state, {results['abrupt']} abrupt, "
          f"{len(results['refused'])} refused (busy), {len(results['errors'])} errors; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    for e in results["errors"][:10]:
        print("  error:", e)
    if st:
        med, p90 = statistics.median(st), percentile(st, 0.9)
        table.row("soak: time to a visitor's widget state, median", med, "s", f"≤ {BUDGET_MEDIAN:g} s",
                  med <= BUDGET_MEDIAN)
        table.row("soak: time to a visitor's widget state, p90", p90, "s", f"≤ {BUDGET_P90:g} s", p90 <= BUDGET_P90)
        table.row("soak: time to a visitor's widget state, max", max(st), "s")
        table.row("soak: visits with the state within 1 s (a ready pool kernel)", sum(x <= 1 for x in st),
                  f"of {len(st)}")
        for nb, xs in sorted(results["by_notebook"].items()):
            print(f"  {nb[:30]:30s} {len(xs):4d} visits, state median {statistics.median(xs):5.2f} s, "
                  f"max {max(xs):5.2f} s")
    if results["slider_s"]:
        table.row("soak: slider move to kernel idle, median", statistics.median(results["slider_s"]), "s")
    if results["slider_unchanged"]:
        table.row("soak: slider moves that changed no figure (the visitor's step, not the server)",
                  results["slider_unchanged"], "")
    if pool_seen:
        table.row("soak: pool kernels ready, mean over the traffic", statistics.fmean(pool_seen),
                  f"of {base['ready']}")
        table.row("soak: pool kernels ready, fewest", min(pool_seen), f"of {base['ready']}")
        busy = statistics.fmean(r > 0 for r, _ in refilling_seen)
        table.row("soak: share of the traffic with a refill executing", 100 * busy, "%")
        # large: refills held back by the pages at work (DashboardKernelManager.refill_pages_at_work)
        table.row("soak: share of the traffic with refills waiting and none executing",
                  100 * statistics.fmean(r == 0 and w > 0 for r, w in refilling_seen), "%")
        # near 100 %: the refills could not keep up (each one too slow for the rate, one at a
        # time), rather than waiting for the pages
        table.row("soak: kernels started during the traffic", started_during, f"in {traffic:.0f} s")
        if started_during:
            table.row("soak: refilling time per kernel started (≈ one refill's length)",
                      busy * traffic / started_during, "s", f"< {1 / args.rate:.1f} s")
    if results["refused"]:
        table.row("soak: visits refused (busy page)", len(results["refused"]), "")
    if results["errors"]:
        table.row("soak: visitors' errors", len(results["errors"]), "", "= 0", False)

    for key, label in (("kernels", "kernels"), ("fds", "server descriptors"), ("conn_files", "connection files"),
                       ("sockets", "kernels' socket files")):
        ok = end[key] <= base[key] if key == "fds" else end[key] == base[key]
        table.row(f"soak: {label} after the soak (baseline {base[key]})", end[key], "", f"= {base[key]}", ok)
    table.row("soak: back to the baseline after the traffic", back_after, "s")
    reference_t = RSS_REFERENCE_S if traffic >= 2 * RSS_REFERENCE_S else traffic / 2
    reference = min(samples, key=lambda ts: abs(ts[0] - reference_t))
    drift = end["rss_mb"] - reference[1]["rss_mb"]
    table.row(f"soak: server RSS after the soak, against its value at {reference[0]:.0f} s", drift, "MB",
              f"≤ {RSS_SLACK_MB} MB", abs(drift) <= RSS_SLACK_MB)
    table.row("soak: server RSS after the soak, against its start", end["rss_mb"] - base["rss_mb"], "MB")


def main(argv=()):
    args = options(list(argv))
    tmp = Path(tempfile.mkdtemp(prefix="dlsoak-"))  # short: the kernels' Unix sockets live under it
    server = Server(tmp)
    print(f"server: {server.url} (log {server.log_path}); load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores", flush=True)
    try:
        asyncio.run(run(server, args))
    finally:
        left = server.stop()
        if left:
            print(f"kernel processes left after the server stopped (killed): {left}", flush=True)
        tail = server.log_path.read_text(errors="replace")
        counts = {w: tail.count(w) for w in ("Traceback", "busy:", "Culling kernel")}
        print(f"server log: {counts}", flush=True)
        keep = ROOT / "test-artifacts" / "soak-server.log"
        keep.parent.mkdir(exist_ok=True)
        shutil.copy(server.log_path, keep)
        shutil.rmtree(tmp, ignore_errors=True)
        print(f"server log kept in {keep.relative_to(ROOT)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
