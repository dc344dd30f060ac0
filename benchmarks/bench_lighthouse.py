"""Lighthouse on the course site's notebook pages, as a phone on a slow network sees them
(``python3 tasks.py bench lighthouse``; issue 36: performance ≥ 80 and CLS ≤ 0.1 on every
notebook page).

Lighthouse 12.2.3 (npm; 13 needs Node 22) is a measuring tool, not part of the workbook: it is
installed on first use into ``.venv/share/delaylab-test/lighthouse`` with ``npm``. The site is the
one the tests build (``test-artifacts/site/site``, built by ``python3 tasks.py book`` when out of
date; ``--site DIR`` measures another build), served from a local static server that compresses text as static hosts do (GitHub Pages,
nginx's gzip_static). Each page is measured with Lighthouse's defaults: mobile (a Moto G Power's
screen, a 4× slower CPU, simulated slow 4G at 1.6 Mbit/s and 150 ms), in Debian's chromium, ``runs``
times; the median run is printed. Numbers vary with the machine's load: the load average is printed.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VERSION = "12.2.3"
CHROME_FLAGS = ("--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking "
                "--disable-component-update --disable-sync --no-first-run")


def lighthouse() -> Path:
    """The Lighthouse CLI, installed with npm on first use (a test-only tool)."""
    folder = Path(sys.prefix, "share", "delaylab-test", "lighthouse")
    cli = folder / "node_modules" / "lighthouse" / "cli" / "index.js"
    if not cli.exists():
        if not shutil.which("npm"):
            raise SystemExit("Lighthouse needs Node 18+ and npm (Debian: apt-get install nodejs npm)")
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--loglevel=error",
                        f"lighthouse@{VERSION}"], check=True)
    return cli


class Compressing(SimpleHTTPRequestHandler):
    """A static server that gzips text (as static hosts do) and keeps no access log."""

    TEXT = (".html", ".js", ".css", ".json", ".svg", ".txt")
    cache: dict = {}

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802
        path = Path(self.translate_path(self.path.split("?")[0]))
        if path.is_dir():
            path = path / "index.html"
        if path.suffix not in self.TEXT or "gzip" not in self.headers.get("Accept-Encoding", "") or not path.is_file():
            return super().do_GET()
        body = self.cache.get(path)
        if body is None:
            body = self.cache[path] = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600")
        self.end_headers()
        self.wfile.write(body)


def measure(url: str, cli: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="delaylab-lh-") as tmp:
        out = Path(tmp) / "report.json"
        env = {**os.environ, "CHROME_PATH": os.environ.get("DELAYLAB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"}
        proc = subprocess.run(["node", str(cli), url, "--only-categories=performance", "--output=json",
                               f"--output-path={out}", f"--chrome-flags={CHROME_FLAGS}", "--quiet"],
                              env=env, capture_output=True, text=True, timeout=300)
        if proc.returncode or not out.exists():
            raise RuntimeError(f"lighthouse failed on {url}: {proc.stderr[-1500:]}")
        report = json.loads(out.read_text())
    audits = report["audits"]
    value = lambda k: audits[k].get("numericValue")  # noqa: E731
    return {"performance": round(100 * (report["categories"]["performance"]["score"] or 0)),
            "fcp_s": value("first-contentful-paint") / 1000, "lcp_s": value("largest-contentful-paint") / 1000,
            "tbt_ms": value("total-blocking-time"), "cls": value("cumulative-layout-shift"),
            "si_s": value("speed-index") / 1000}


def main(argv=(), row=None, runs: int = 3) -> dict:
    """Measure every notebook page; ``row`` (bench.py's table) gets one line per page and measure."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_site import NOTEBOOKS, built_site

    argv = list(argv)
    if "--site" in argv:  # a site built already (e.g. `python3 tasks.py book --out DIR`)
        folder = Path(argv[argv.index("--site") + 1])
    else:
        folder, _ = built_site()
    cli = lighthouse()
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Compressing, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    results = {}
    try:
        for path in NOTEBOOKS:
            samples = [measure(f"{base}/{path.stem}.html", cli) for _ in range(runs)]
            median = sorted(samples, key=lambda s: s["performance"])[len(samples) // 2]
            median["performance_runs"] = [s["performance"] for s in samples]
            median["cls_max"] = max(s["cls"] for s in samples)
            results[path.stem] = median
            if row:
                row(f"lighthouse {path.stem[:24]}: performance (mobile)", median["performance"], "",
                    "≥ 80", median["performance"] >= 80)
                row(f"  {path.stem[:24]}: CLS (worst of {runs})", median["cls_max"], "", "≤ 0.1", median["cls_max"] <= 0.1)
                row(f"  {path.stem[:24]}: FCP / LCP", median["fcp_s"], "s")
                row(f"  {path.stem[:24]}: LCP", median["lcp_s"], "s")
                row(f"  {path.stem[:24]}: total blocking time", median["tbt_ms"], "ms")
            else:
                print(path.stem, json.dumps(median), flush=True)
    finally:
        server.shutdown()
        server.server_close()
    load = " / ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"(Lighthouse {VERSION}, mobile defaults, median of {runs} runs; load average {load}; "
          f"performance per run: {statistics.mean(p for r in results.values() for p in r['performance_runs']):.0f} mean)")
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
