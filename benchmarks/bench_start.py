"""The first visitor after a start (issue 37): each notebook's first figure, visited as soon as the
dashboards' server answers.

``python3 tasks.py bench start`` (or ``.venv/bin/python benchmarks/bench_start.py [--once] [NAME ...]``)
starts the dashboards' server as ``tasks.py dashboard`` does (``python -m delaylab.serve
notebooks``, voila.json's settings, ``--DashboardServer.ready_wait=600``: the port opens once
every notebook has a preheated kernel), polls its status until it answers, and at once opens one
notebook in chromium: the time from that request to the page's first figure is what the first
visitor after a start waits. A fresh server for each notebook; each also started with
``ready_wait=0`` (the port open at once, the pools filling behind it: how it was), alternating,
so both see the same machine. Also printed: the seconds from the server's start to its port
answering. The sweep cache is the one ``bench pages`` keeps (``$TMPDIR/delaylab-bench-pages-cache``),
filled by the first start: a restart, as before a lecture. Nothing is asserted: the load average is
printed beside the numbers; repeat on a busy machine (``--once``: only the ready server).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))
import test_browser as tb  # noqa: E402  (its browser, ports and waiting helpers)
from bench_pages import PROBE  # noqa: E402  (the moment of the first figure, in the page)
from table import row  # noqa: E402

#: the server's settings compared: as `tasks.py dashboard` starts it, and the port open at once
VARIANTS = {"ready": "600", "open at once": "0"}
TARGET = 3.0  # s, issue 37: the first visit of each notebook after a start


def start(ready_wait: str, cache: Path, log: Path):
    """The server started; (process, url, seconds until its status answered)."""
    port = tb.free_port()
    env = {**os.environ, "DELAYLAB_CACHE": str(cache)}
    env.pop("DELAYLAB_EXERCISES_EXPECT", None)
    t0 = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "delaylab.serve", str(ROOT / "notebooks"), "--no-browser",
                                 f"--port={port}", "--Voila.ip=127.0.0.1", f"--DashboardServer.ready_wait={ready_wait}"],
                                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            urllib.request.urlopen(url + "/delaylab/status", timeout=2)
            return proc, url, time.perf_counter() - t0
        except Exception:
            if proc.poll() is not None or time.perf_counter() - t0 > 900:
                tb.stop(proc)
                raise RuntimeError(f"the server did not start; see {log}") from None
            time.sleep(0.1)


def first_figure(browser, url: str) -> float:
    """Seconds from the request of ``url`` to its first figure, in a fresh window."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    ctx.add_init_script(PROBE)
    page = ctx.new_page()
    try:
        page.goto(url, wait_until="commit", timeout=600_000)
        page.wait_for_function("() => globalThis.__delaylab_t && globalThis.__delaylab_t.figure", timeout=600_000,
                               polling=50)
        return float(page.evaluate("() => globalThis.__delaylab_t.figure"))
    finally:
        ctx.close()


def main(argv=()):
    from playwright.sync_api import sync_playwright

    argv = list(argv)
    variants = {"ready": VARIANTS["ready"]} if "--once" in argv else VARIANTS
    names = [a for a in argv if not a.startswith("--")]
    notebooks = [p for p in tb.NOTEBOOKS if p.stem[:2] != "00" and (not names or any(n in p.stem for n in names))]
    cache = Path(tempfile.gettempdir()) / "delaylab-bench-pages-cache"
    cache.mkdir(exist_ok=True)
    tb.ARTIFACTS.mkdir(parents=True, exist_ok=True)
    worst = {v: 0.0 for v in variants}
    print(f"{'first visit after a start':32s} {'server':>12s} {'port open':>10s} {'first figure':>13s}   load average")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=tb.chromium_path(), args=tb.ARGS, headless=True)
        try:
            for path in notebooks:
                for variant, wait in variants.items():
                    proc, url, opened = start(wait, cache, tb.ARTIFACTS / "bench-start-server.log")
                    try:
                        t = first_figure(browser, f"{url}/voila/render/{path.name}")
                    finally:
                        tb.stop(proc)
                    worst[variant] = max(worst[variant], t)
                    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
                    print(f"{path.stem[:32]:32s} {variant:>12s} {opened:9.1f}s {t:12.2f}s   {load}", flush=True)
        finally:
            browser.close()
    for variant in variants:
        target = f"≤ {TARGET:g} s" if variant == "ready" else None
        row(f"first visit after a start, worst notebook ({variant})", worst[variant], "s", target,
            worst[variant] <= TARGET if target else None)


if __name__ == "__main__":
    main(sys.argv[1:])
