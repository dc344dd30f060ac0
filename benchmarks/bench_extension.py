"""Where a dashboard's time goes when Voila runs inside JupyterLab (the server extension of a
JupyterHub or Binder, delaylab/serve/extension.py), with no pool of preheated kernels.

``python3 tasks.py bench extension`` (or ``.venv/bin/python benchmarks/bench_extension.py [--visits N]``)
measures, each several times (medians printed, with the load average):

* ``kernel``: a dashboard kernel's start, from the provisioner's launch to its first reply
  (``kernel_info``) and to the end of notebook 02's first cell (its imports), as Voila's kernel
  manager starts it (``delaylab-dashboards`` provisioner, an environment saying
  ``SERVER_SOFTWARE=voila/…``, the page's notebook): with the spare kernel importing ahead (the
  default), with the spare only (``SpareDashboardKernel.import_ahead = False``) and without a
  spare, alternating; and ``import ipykernel.kernelapp`` alone in a fresh Python, for scale;
* ``cells``: each notebook's cells executed in a ready dashboard kernel (nbclient, the cells
  tagged ``hide`` skipped as Voila skips them), the slowest cells named;
* ``pages``: a Jupyter server with the extension (``jupyter server``, a hub's URL prefix, the
  repository's jupyter-config), the dashboards visited in chromium one after another as a student
  does (notebook 01 first, then 02 and 04 in turn, each page closed before the next), with the
  spare kernel and without (``--SpareDashboardKernel.enabled=False``), alternating servers. Per
  visit, in seconds from the request: ``head`` (the template's first bytes), ``kernel`` (the
  page's kernel process exists: started then, or the spare's start if it was the spare),
  ``html`` (the last cell executed, the page's HTML complete), ``ws`` (the widgets' websocket open),
  ``figure`` (the first figure drawn). Three kinds of server: ``imports ahead`` (the default: the
  spare also imports what every notebook's first cell imports, delaylab/serve/preimport.py),
  ``spare`` (``--SpareDashboardKernel.import_ahead=False``), ``no spare``
  (``--SpareDashboardKernel.enabled=False``); ``--variants "imports ahead,spare"`` picks some.

Nothing is asserted: a measurement, on a machine whose load is printed beside it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))
import test_browser as tb  # noqa: E402  (its browser, servers and waiting helpers)
from bench_pages import PROBE  # noqa: E402  (the moments a page's things happen)

BASE = "/user/student/"
CACHE = Path(tempfile.gettempdir()) / "delaylab-bench-extension-cache"
ORDER = ("01_delayed_conversions", "02_arm_dependent_delays", "04_aggregated_anonymous")
RESULT = """() => {
  const T = globalThis.__delaylab_t, nav = performance.getEntriesByType('navigation')[0];
  return {...T, head: nav.responseStart / 1000, html: nav.responseEnd / 1000};
}"""
VOILA_ENV = {"SERVER_SOFTWARE": "voila/0.5.13", "VOILA_BASE_URL": BASE, "VOILA_SERVER_URL": "/",
             "VOILA_PREHEAT": "False"}


def median(values):
    values = [v for v in values if v == v]
    return statistics.median(values) if values else float("nan")


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


# ============================================================================ kernel start
def kernel_starts(runs: int) -> None:
    import nbformat
    from jupyter_client.manager import AsyncKernelManager

    from delaylab.serve import extension

    notebook = ROOT / "notebooks" / f"{ORDER[1]}.ipynb"
    first_cell = next(c.source for c in nbformat.read(notebook, as_version=4).cells if c.cell_type == "code")
    page = {**VOILA_ENV, "SCRIPT_NAME": f"{BASE}voila/render/notebooks/{notebook.name}"}

    async def one() -> tuple:
        env = {**os.environ, **page}  # the server's environment as it is now (the provisioner's name set)
        km = AsyncKernelManager(kernel_name="python3")
        km.kernel_spec  # noqa: B018  (read before the clock starts)
        t0 = time.perf_counter()
        await km.start_kernel(env=env, cwd=str(notebook.parent))
        kc = km.client()
        kc.start_channels()
        await kc.wait_for_ready(timeout=120)
        ready = time.perf_counter() - t0
        reply = await kc.execute_interactive(first_cell, timeout=120, output_hook=lambda msg: None)
        cell = time.perf_counter() - t0
        assert reply["content"]["status"] == "ok", reply["content"]
        kc.stop_channels()
        await km.shutdown_kernel(now=True)
        return ready, cell

    async def measure():
        from delaylab.serve.spare import SpareDashboardKernel

        os.environ["JUPYTER_DEFAULT_PROVISIONER_NAME"] = extension.PROVISIONER
        spares = extension.DashboardProvisioner.spares = SpareDashboardKernel(
            extension.DashboardProvisioner.spare_environment, cwd=str(notebook.parent))
        times = {"imports ahead": [], "spare": [], "no spare": []}
        try:
            for _ in range(runs):
                for variant in times:
                    spares.enabled, spares.import_ahead = variant != "no spare", variant == "imports ahead"
                    waiting = spares.spare
                    if waiting is not None and (not spares.enabled or bool(waiting.ahead) != spares.import_ahead):
                        spares.spare = None  # started for another variant: replaced
                        waiting.stop()
                    if spares.enabled:
                        await asyncio.get_running_loop().run_in_executor(None, spares.wait_ready, 120)
                    times[variant].append(await one())
        finally:
            spares.close()
        return times

    imports = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); import ipykernel.kernelapp; "
                              "print(time.perf_counter() - t)"], capture_output=True, text=True, check=True)
        imports.append(float(out.stdout))
    times = asyncio.run(measure())
    print(f"import ipykernel.kernelapp: median {median(imports):.2f} s of {runs} ({load()})")
    for variant, values in times.items():
        print(f"dashboard kernel, {variant:13s}: start to first reply median {median([v[0] for v in values]):.2f} s "
              f"({', '.join(f'{v[0]:.2f}' for v in values)}), to {ORDER[1][:2]}'s first cell done median "
              f"{median([v[1] for v in values]):.2f} s ({', '.join(f'{v[1]:.2f}' for v in values)}; load {load()})")


# ============================================================================ cells
def cells(runs: int) -> None:
    import nbclient
    import nbformat

    from delaylab.serve import extension

    os.environ["JUPYTER_DEFAULT_PROVISIONER_NAME"] = extension.PROVISIONER  # the dashboards' kernel
    env = {**os.environ, **VOILA_ENV, "DELAYLAB_DEFAULT_CACHE": str(CACHE)}
    CACHE.mkdir(exist_ok=True)
    for stem in ORDER[1:]:  # once, not timed: the notebooks' figures at their defaults in the cache
        nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
        nb.cells = [c for c in nb.cells if "hide" not in c.metadata.get("tags", [])]
        client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=600,
                                         resources={"metadata": {"path": str(ROOT / "notebooks")}})
        client.km = client.create_kernel_manager()
        asyncio.run(_execute(client, env))
    for stem in ORDER[1:]:
        path = ROOT / "notebooks" / f"{stem}.ipynb"
        per_cell, totals = {}, []
        for _ in range(runs):
            nb = nbformat.read(path, as_version=4)
            nb.cells = [c for c in nb.cells if "hide" not in c.metadata.get("tags", [])]
            client = nbclient.NotebookClient(nb, kernel_name="python3", record_timing=True, resources={
                "metadata": {"path": str(path.parent)}}, timeout=600)
            client.km = client.create_kernel_manager()
            asyncio.run(_execute(client, env))
            total = 0.0
            for i, c in enumerate(nb.cells):
                timing = c.metadata.get("execution") or {}
                if "iopub.execute_input" in timing and "shell.execute_reply" in timing:
                    from datetime import datetime

                    a = datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00"))
                    b = datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
                    per_cell.setdefault(i, []).append((b - a).total_seconds())
                    total += (b - a).total_seconds()
            totals.append(total)
        slow = sorted(per_cell.items(), key=lambda kv: -median(kv[1]))[:4]
        print(f"{stem}: cells executed in median {median(totals):.2f} s ({runs} runs; load {load()}); slowest: "
              + ", ".join(f"cell {i} {median(v):.2f} s" for i, v in slow))


async def _execute(client, env):
    await client.async_start_new_kernel(env=env)
    try:
        await client.async_start_new_kernel_client()
        for index, cell in enumerate(client.nb.cells):
            await client.async_execute_cell(cell, index)
    finally:
        await client._async_cleanup_kernel()


# ============================================================================ pages
#: the servers compared by ``pages``: their options
VARIANTS = {"imports ahead": [], "spare": ["--SpareDashboardKernel.import_ahead=False"],
            "no spare": ["--SpareDashboardKernel.enabled=False"]}


def server(variant: str, home: Path):
    env = {**os.environ, "DELAYLAB_CACHE": str(CACHE), "JUPYTER_CONFIG_PATH": str(ROOT / "jupyter-config")}
    env.pop("DELAYLAB_EXERCISES_EXPECT", None)
    # no XSRF check: a student's browser holds JupyterLab's XSRF cookie when it opens a dashboard,
    # and a page that closes asks the server to stop its kernel, which it refuses without one
    srv = tb.Server([sys.executable, "-m", "jupyter", "server", "--no-browser", "--port={port}",
                     "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--allow-root",
                     "--ServerApp.disable_check_xsrf=True", f"--ServerApp.base_url={BASE}",
                     f"--ServerApp.root_dir={home}", *VARIANTS[variant]],
                    f"{BASE}api/status", home, f"bench-extension-{variant.replace(' ', '-')}.log", env=env)
    srv.url = srv.url + BASE.rstrip("/")  # what tb.close appends /api/kernels/... to
    return srv


def pages(visits: int, variants=tuple(VARIANTS)) -> None:
    from playwright.sync_api import sync_playwright

    CACHE.mkdir(exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="delaylab-bench-ext-"))
    shutil.copytree(ROOT / "notebooks", home / "notebooks")
    rows = {variant: [] for variant in variants}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=tb.chromium_path(), args=tb.ARGS, headless=True)
        try:
            srv = server("no spare", home)  # once, not timed: the notebooks' figures into the sweep cache
            try:
                for stem in ORDER:
                    visit(browser, srv, stem)
            finally:
                srv.close()
            for rnd in range(2):
                for variant in variants:
                    srv = server(variant, home)
                    try:
                        time.sleep(10)  # the plotly module prepared, the spare (if any) ready: a student's server
                        for i in range(visits):
                            stem = ORDER[0] if i == 0 else ORDER[1 + (i - 1) % 2]
                            rows[variant].append((i, stem, visit(browser, srv, stem)))
                            r = rows[variant][-1][2]
                            print(f"{variant:13s} round {rnd} visit {i} {stem[:24]:24s} "
                                  + "  ".join(f"{k} {r.get(k, float('nan')):5.2f}" for k in
                                              ("head", "html", "ws", "figure"))
                                  + ("  RELOADED" if r.get("reloaded") else "") + f"  (load {load()})", flush=True)
                    finally:
                        srv.close()
        finally:
            browser.close()
            shutil.rmtree(home, ignore_errors=True)
    for variant, values in rows.items():
        for label, visits_of in (("first visit", [r for i, _, r in values if i == 0]),
                                 ("later visits", [r for i, _, r in values if i > 0])):
            chosen = [r for r in visits_of if not r.get("reloaded")]  # a reload's times start at the reload
            print(f"{variant:13s} {label:12s} medians of {len(chosen)}: "
                  + "  ".join(f"{k} {median([r.get(k, float('nan')) for r in chosen]):5.2f}"
                              for k in ("head", "html", "ws", "figure"))
                  + f"  (left out, the page reloaded itself: {len(visits_of) - len(chosen)})")
    print(f"load after: {load()}")


def visit(browser, srv, stem) -> dict:
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    ctx.add_init_script(PROBE)
    page = ctx.new_page()
    tb.collect_errors(page)
    page.goto(f"{srv.url}/voila/render/notebooks/{stem}.ipynb", wait_until="commit", timeout=300_000)
    for attempt in range(2):
        page.wait_for_function("() => globalThis.__delaylab_t && globalThis.__delaylab_t.figure", timeout=300_000,
                               polling=50)
        try:
            r = page.evaluate(RESULT)
            break
        except Exception:  # the page reloaded itself (its widgets not found in its kernel: the template)
            if attempt:
                raise
            page.wait_for_load_state("commit", timeout=300_000)
    r["reloaded"] = page.navigations[0] > 1 or any("reloading the page" in m for m in page.console)
    tb.close(page, ctx, srv)
    return r


def main(argv) -> None:
    visits = int(argv[argv.index("--visits") + 1]) if "--visits" in argv else 7
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 5
    parts = [a for a in argv if a in ("kernel", "cells", "pages")] or ["kernel", "pages", "cells"]
    print(f"load before: {load()}")
    if "kernel" in parts:
        kernel_starts(runs)
    if "pages" in parts:
        chosen = argv[argv.index("--variants") + 1].split(",") if "--variants" in argv else list(VARIANTS)
        pages(visits, tuple(v.strip() for v in chosen))
    if "cells" in parts:
        cells(max(1, runs // 2))


if __name__ == "__main__":
    main(sys.argv[1:])
