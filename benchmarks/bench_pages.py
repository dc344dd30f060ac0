"""Where a dashboard page's time goes (issue 15): a timeline of each notebook's warm visit.

``python3 tasks.py bench pages`` (or ``.venv/bin/python benchmarks/bench_pages.py [--trace] [--compress] [NAME ...]``)
starts the dashboards' server (``python -m delaylab.serve``, voila.json's settings) on a sweep
cache of its own (kept in ``$TMPDIR/delaylab-bench-pages-cache`` so that later runs start warm),
waits until every notebook's preheated kernel is ready, then opens each notebook once in
chromium and prints, in seconds from the request:

* ``html``: the page's HTML has arrived (Voila streams it while the kernel executes);
* ``title``: the notebook's title shows; ``ws``: the kernel's websocket is open;
* ``state``: the largest websocket message has arrived (the widgets' state, one reply);
* ``module``: plotly's widget module is imported (``delaylab.viz.widget``'s loader);
* ``figure``: the first figure is drawn (an SVG with data);
* the widgets on the page, the bytes received over the websocket and over HTTP (the latter as
  the browser counts them, 0 for a cached response), and the largest websocket message;
* the websocket's bytes per kind of kernel message (many ``comm_msg/update`` of whole states
  and hundreds of ``status``: the widget manager's state request timed out and it asked each
  widget on its own), and the HTTP responses over 200 kB;
* with ``--compress``, the server compresses what it sends (``--DashboardServer.compress``, as
  ``--public`` does): the HTTP bytes are then what crosses a network;
* with ``--trace``, a chromium trace of each second visit (``test-artifacts/browser/trace-*.json``,
  opens in chromium's performance panel), summarised: the main thread's time by kind of work.

Each page is visited twice in the same browser window (a visitor coming back): the second
visit shows what the HTTP cache saves. Nothing is asserted: this is a measurement (the load of
the machine is printed with it); the browser test of serving
(``tests/test_browser.py::test_first_figure_cold_and_warm_slider_latency_and_no_kernel_left``)
measures cold and warm first figures against the targets.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
TRACE = "--trace" in sys.argv  # a chromium trace of each second visit, summarised
COMPRESS = "--compress" in sys.argv  # gzip and permessage-deflate, as on a --public server
sys.path.insert(0, str(ROOT / "tests"))
import test_browser as tb  # noqa: E402  (its server, browser and waiting helpers)

# Recorded from the page's first script on: websocket bytes, and the moments things happen.
PROBE = r"""
(() => {
  const T = (globalThis.__delaylab_t = {ws_bytes: 0, ws_messages: 0, ws_largest: 0, ws_largest_at: 0});
  const now = () => performance.now() / 1000;
  const Native = WebSocket;
  globalThis.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("open", () => { T.ws ??= now(); });
      this.addEventListener("message", (e) => {
        const n = typeof e.data === "string" ? e.data.length : (e.data.byteLength ?? e.data.size ?? 0);
        T.ws_bytes += n; T.ws_messages += 1;
        if (n > T.ws_largest) { T.ws_largest = n; T.ws_largest_at = now(); }
        try {  // what the kernel sends: bytes per message type (and comm method), after the state
          let msg;
          if (typeof e.data === "string") msg = JSON.parse(e.data);
          else if (e.data.byteLength) {  // v1 websocket protocol: offsets, channel, header, parent, metadata, content
            const dv = new DataView(e.data), k = Number(dv.getBigUint64(0, true)), off = [];
            for (let i = 1; i <= k; i++) off.push(Number(dv.getBigUint64(8 * i, true)));
            const part = (i) => new TextDecoder().decode(new Uint8Array(e.data, off[i], (off[i + 1] ?? e.data.byteLength) - off[i]));
            msg = {header: JSON.parse(part(1)), content: JSON.parse(part(4))};
          }
          const c = msg.content || {}, d = c.data || {};
          const key = msg.header.msg_type + (d.method ? "/" + d.method : "") +
            (d.state ? "/" + Object.keys(d.state).sort().join(",").slice(0, 60) : "");
          const h = (T.kinds ??= {});
          h[key] = h[key] || [0, 0]; h[key][0] += 1; h[key][1] += n;
        } catch (err) { /* not a kernel message */ }
      });
    }
  };
  const poll = () => {
    if (T.title === undefined && (TITLE_SHOWN)()) T.title = now();
    const mods = globalThis[Symbol.for("delaylab.plotly-widget")];
    if (T.module === undefined && mods && mods.size) {
      T.module_requested ??= now();
      [...mods.values()][0].then(() => { T.module ??= now(); }, () => {});
    }
    if (T.figure === undefined && (FIRST_FIGURE)()) T.figure = now();
    if (T.figure === undefined) setTimeout(poll, 20);
  };
  poll();
})();
""".replace("TITLE_SHOWN", tb.TITLE_SHOWN).replace("FIRST_FIGURE", tb.FIRST_FIGURE)  # the browser tests' own

RESULT = """() => {
  const T = globalThis.__delaylab_t, nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  const big = res.filter(r => r.encodedBodySize > 200000 || r.transferSize > 200000)
                 .map(r => [r.name.replace(location.origin, ''), r.transferSize, r.encodedBodySize, +(r.duration / 1000).toFixed(2)]);
  return {...T, html: nav.responseEnd / 1000, dom_loaded: nav.domContentLoadedEventEnd / 1000,
          http_bytes: res.reduce((s, r) => s + r.transferSize, 0) + nav.transferSize, big,
          widgets: document.querySelectorAll('.jupyter-widgets, .widget-box, .widget-inline-hbox').length,
          figures: document.querySelectorAll('.js-plotly-plot').length};
}"""


def main(names):
    from playwright.sync_api import sync_playwright

    cache = Path(tempfile.gettempdir()) / "delaylab-bench-pages-cache"
    cache.mkdir(exist_ok=True)
    tb._CACHE[:] = [str(cache)]
    notebooks = [p for p in tb.NOTEBOOKS if not names or any(n in p.stem for n in names)]
    t0 = time.perf_counter()
    server = tb.dashboard_server("bench-pages-server.log", *(["--DashboardServer.compress=True"] if COMPRESS else []))
    rows = []
    try:
        _pools_ready(server)
        print(f"pool ready {time.perf_counter() - t0:.1f} s after the server start "
              f"(sweep cache {cache}); load: {os.getloadavg()}", flush=True)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=tb.chromium_path(), args=tb.ARGS, headless=True)
            for path in notebooks:
                ctx = browser.new_context(viewport={"width": 1400, "height": 900})
                ctx.add_init_script(PROBE)
                for visit in ("first", "again"):
                    page = ctx.new_page()
                    tb.collect_errors(page)
                    trace = TRACE and visit == "again"
                    if trace:
                        browser.start_tracing(page=page, path=str(ARTIFACTS / f"trace-{path.stem}.json"),
                                              categories=["toplevel", "devtools.timeline", "v8", "v8.execute", "blink",
                                                          "disabled-by-default-v8.cpu_profiler"])
                    page.goto(f"{server.url}/voila/render/{path.name}", wait_until="commit", timeout=300_000)
                    page.wait_for_function("() => globalThis.__delaylab_t && globalThis.__delaylab_t.figure",
                                           timeout=300_000, polling=100)
                    if trace:
                        browser.stop_tracing()
                        print(f"{'':34s} trace to the first figure: " + trace_summary(ARTIFACTS / f"trace-{path.stem}.json"))
                    page.wait_for_timeout(1500)  # the rest of the state and figures
                    r = page.evaluate(RESULT)
                    r["errors"] = page.errors
                    if "figure" not in r:  # a new document since the first figure: the page reloaded itself
                        print(f"{path.stem} {visit}: the page reloaded after its first figure; it said "
                              f"{[m for m in page.console if m.startswith('error')][-5:]}; "
                              f"kernel messages {tb.kernel_messages(page)}")
                        r["figure"] = float("nan")
                    rows.append((path.stem, visit, r))
                    print(f"{path.stem[:26]:26s} {visit:5s} html {r['html']:5.2f}  title {r.get('title', -1):5.2f}  "
                          f"ws {r.get('ws', -1):5.2f}  state {r['ws_largest_at']:5.2f}  "
                          f"module {r.get('module', -1):5.2f}  figure {r['figure']:5.2f}   widgets {r['widgets']:3d}  "
                          f"figures {r['figures']}  ws {r['ws_bytes'] / 1e6:5.2f} MB in {r['ws_messages']} msgs "
                          f"(largest {r['ws_largest'] / 1e6:.2f} MB)  http {r['http_bytes'] / 1e6:5.2f} MB  "
                          f"errors {len(r['errors'])}", flush=True)
                    kinds = sorted((r.get("kinds") or {}).items(), key=lambda kv: -kv[1][1])[:6]
                    print(f"{'':34s} websocket: " + "; ".join(f"{k} {n}x {b / 1e6:.2f} MB" for k, (n, b) in kinds))
                    for name, transfer, body, dur in r["big"]:
                        print(f"{'':34s} {name[:70]:70s} {transfer / 1e6:6.2f} MB sent, {body / 1e6:6.2f} MB body, {dur} s")
                    tb.close(page, ctx if visit == "again" else _Keep(), server)
                    _pools_ready(server)
            browser.close()
    finally:
        server.close()
    print(f"load after: {os.getloadavg()}")
    out = ARTIFACTS / "bench-pages.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=1))
    return rows


def _pools_ready(server, timeout=600):
    """Seconds until every notebook's preheated kernel is ready (a busy server may not answer
    its status request within the tests' 10 s: asked again)."""
    t0 = time.perf_counter()
    while True:
        try:
            tb.pools_ready(server, timeout=max(1, timeout - (time.perf_counter() - t0)))
            return time.perf_counter() - t0
        except TimeoutError:
            if time.perf_counter() - t0 > timeout:
                raise


def trace_summary(path: Path, since_ms: float = 0.0) -> str:
    """The page's main thread in a chromium trace: busy time, and the time of the heaviest kinds
    of work (nested events are counted in their parents too)."""
    events = json.loads(path.read_text())
    events = events.get("traceEvents", events)
    main = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name"
            and e.get("args", {}).get("name") == "CrRendererMain"}
    work = [e for e in events if (e.get("pid"), e.get("tid")) in main and e.get("ph") == "X" and "dur" in e]
    if not work:
        return "no main-thread events in the trace"
    t0 = min(e["ts"] for e in work)
    busy = sum(e["dur"] for e in work if e["name"] in ("RunTask", "ThreadControllerImpl::RunTask")) / 1e6
    span = (max(e["ts"] + e["dur"] for e in work) - t0) / 1e6
    by = {}
    for e in work:
        by[e["name"]] = by.get(e["name"], 0) + e["dur"] / 1e6
    top = sorted(((k, v) for k, v in by.items() if k != "RunTask"), key=lambda kv: -kv[1])[:12]
    return (f"main thread busy {busy:.2f} s of {span:.2f} s; " +
            "; ".join(f"{k} {v:.2f}" for k, v in top) + "\n" + profile_summary(events))


def profile_summary(events: list, top: int = 12) -> str:
    """The main thread's JavaScript by file, from V8's sampling profiler in the trace (its
    ``ProfileChunk`` events): the seconds of samples whose function (self time) is in each file,
    heaviest first; "(program)" and "(garbage collector)" are V8's own."""
    nodes, by, total = {}, {}, 0.0
    for e in events:
        if e.get("name") != "ProfileChunk":
            continue
        profile = e.get("args", {}).get("data", {}).get("cpuProfile", {})
        for node in profile.get("nodes", []):
            frame = node.get("callFrame", {})
            url = frame.get("url") or f"({frame.get('functionName') or 'program'})"
            nodes[(e.get("id"), node["id"])] = url.split("?")[0].rsplit("/", 3)[-3:]
        deltas = e["args"]["data"].get("timeDeltas", [])
        for sample, dt in zip(profile.get("samples", []), deltas):
            where = "/".join(nodes.get((e.get("id"), sample), ["?"]))
            by[where] = by.get(where, 0.0) + dt / 1e6
            total += dt / 1e6
    if not by:
        return "no profile samples in the trace"
    idle = by.pop("(idle)", 0.0)
    heaviest = sorted(by.items(), key=lambda kv: -kv[1])[:top]
    return (f"JavaScript samples {total - idle:.2f} s (idle {idle:.2f} s), by file: " +
            "; ".join(f"{k} {v:.2f}" for k, v in heaviest))


class _Keep:
    """A window kept open after its first page closes (the visitor comes back to it)."""

    def close(self):
        pass


if __name__ == "__main__":
    main([a for a in sys.argv[1:] if a not in ("--trace", "--compress")])
