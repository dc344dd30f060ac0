#!/usr/bin/env python3
"""delaylab benchmark: one table for the whole workbook (run with `python3 tasks.py bench`).

Sections: each notebook top to bottom at its defaults; paper 1 (interactive update, figures at
the paper's scale, cost per run-step and speed-up over plain loops); papers 2–5 (their own
benchmark modules, bench_<paper>.py); sweeps and the cache (bench_sweep.py); how the cost grows
with T, the number of runs, K and the window m (log–log slopes); the worst control move of each
live panel (`panels`, issue 15: within 1 s at every value), and with a student's policy raced in it
(issue 25: drawn with the paper's curves, not after them); what one dashboard kernel costs to start
and hold (`serve`). Targets are those of the issues
for a 2-core machine. Nothing here is a test: timings vary with the load of the machine.
`python3 tasks.py bench paper3 scaling` runs only the named sections. `soak` (issue 29: ten
minutes of steady visitors on a `--public` server, bench_soak.py), `start` (each notebook's first
visit after a server start, bench_start.py) and `runall` (a student's Run All in JupyterLab in
chromium, bench_runall.py) and `extension` (dashboards inside a Jupyter server, with its spare
kernel and without, bench_extension.py) run only when named, with their options after their name:
`python3 tasks.py bench soak --minutes 2`.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the reference loops: tests/oracles
import delaylab as dl  # noqa: E402
from delaylab.panels.conversions import ConversionsPanel  # noqa: E402
from delaylab.papers import vernade2017 as paper  # noqa: E402
from delaylab.streams import ENVIRONMENT, Batch, RunStreams  # noqa: E402
from oracles.vernade2017 import numpy_run, plain_run  # noqa: E402
from table import ROWS, best_of, row, slider_move  # noqa: E402

def interactive_update():
    panel = ConversionsPanel()
    return slider_move(panel, panel.mean_delay, [400, 600, 500]), panel


def plain_per_run_step(fn, algorithm, runs=2, horizon=10_000):
    law = dl.Geometric(paper.MEAN_DELAY)
    t0 = time.perf_counter()
    for r in range(runs):
        u = RunStreams(0, Batch(np.array([r])), ENVIRONMENT).uniform(horizon, (2,))[:, 0]
        fn(algorithm, paper.THETA_L, paper.MEAN_DELAY, paper.WINDOW, u[:, 0], law.ppf(u[:, 1]))
    return (time.perf_counter() - t0) / (runs * horizon)


def paper1():
    print(f"delaylab {dl.__version__} benchmark · Python {platform.python_version()} · numpy {np.__version__} "
          f"· {os.cpu_count()} cores")
    print(f"{'':62s} {'measured':>14s} {'target':>10s}")
    t, panel = interactive_update()
    row(f"interactive update, notebook 01 defaults ({len(panel.selected())} policies, T = "
        f"{panel.horizon.value}, {panel.runs.value} runs)", t, "s", "≤ 0.5 s", t <= 0.5)
    t1 = best_of(lambda: paper.figure1(runs=100), 1)
    row("Figure 1 at paper scale (4 panels × 2 policies × 100 runs, T = 10⁴)", t1)
    t2 = best_of(lambda: paper.figure2(runs=200), 1)
    row("Figure 2 at paper scale (4 policies × 200 runs, T = 10⁴)", t2, "s", "≤ 30 s", t2 <= 30)
    t3 = best_of(lambda: paper.figure3(runs=100), 1)
    row("Figure 3 at paper scale (2 panels × 2 policies × 100 runs, T = 10⁴)", t3)
    per_step = t2 / (4 * 200 * paper.HORIZON)
    row("engine: time per run-step (Figure 2 at paper scale)", per_step * 1e6, "µs")
    plain = np.mean([plain_per_run_step(plain_run, a) for a in paper.FIG2_NAMES])
    row("plain per-run loop with math (same 4 policies), per run-step", plain * 1e6, "µs")
    row("  speed-up of the engine over it", plain / per_step, "×", "≥ 50×", plain / per_step >= 50)
    nump = np.mean([plain_per_run_step(numpy_run, a, runs=1) for a in paper.FIG2_NAMES])
    row("plain per-run loop with numpy per step, per run-step", nump * 1e6, "µs")
    row("  speed-up of the engine over it", nump / per_step, "×", "≥ 50×", nump / per_step >= 50)


def notebooks():
    """Each notebook executed top to bottom at its defaults, in a fresh kernel."""
    import nbclient
    import nbformat

    for path in sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9]*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        t0 = time.perf_counter()
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}}).execute()
        t = time.perf_counter() - t0
        row(f"notebook {path.name} top to bottom at its defaults (every figure, default scale)", t, "s",
            "≤ 120 s", t <= 120)


def scaling():
    """Cost of D-KLUCB against T, runs, K and the window m, with log–log slopes."""

    def timed(T=3000, runs=200, K=3, m=1000, law=None):
        law = law or dl.Geometric(paper.MEAN_DELAY)
        theta = np.linspace(0.1, 0.03, K)
        env = dl.Conversions(theta, law, window=m)
        return best_of(lambda: dl.simulate(env, dl.DelayedKLUCB(law, m), T, runs, checkpoints=10), 1)

    axes = [("T", [1000, 3000, 10_000], lambda v: timed(T=v)),
            ("runs", [20, 200, 2000], lambda v: timed(runs=v)),
            ("K", [2, 8, 32], lambda v: timed(K=v)),
            ("window m (general law: ring buffer of m pulls)", [100, 1000, 3000],
             lambda v: timed(m=v, law=dl.Uniform(0, 2 * v)))]
    print("\nscaling: D-KLUCB, geometric delays μ = 500, m = 1000, T = 3000, 200 runs, K = 3 unless varied")
    for name, values, fn in axes:
        times = [fn(v) for v in values]
        slope = np.polyfit(np.log(values), np.log(times), 1)[0]
        cells = ", ".join(f"{v:,}: {t:.2f} s" for v, t in zip(values, times))
        print(f"  {name:48s} {cells}")
        row(f"  log–log slope of time against {name.split(' (')[0]}", slope, "")


def panel_moves():
    """Worst time of one control move, per live panel: every control to each of its extreme
    values, from the corner where every policy is shown and every slider is at its maximum, with
    the panel's results cache emptied first (issue 15: every move answers within 1 s)."""
    import ipywidgets as W

    from delaylab.panels.adversarial import AdversarialPanel
    from delaylab.panels.anonymous import AnonymousPanel
    from delaylab.panels.arm_delays import ArmDelaysPanel
    from delaylab.panels.fields import controls, extreme_values
    from delaylab.panels.linear import EllipsePanel, LinearPanel

    def value(w, state):
        if "index" in state:
            o = w.options[state["index"]]
            return o[1] if isinstance(o, tuple) else o
        return state["value"]

    print("\nworst control move per panel (from the all-maximum corner, cache emptied before each move)")
    for name, cls in [("01", ConversionsPanel), ("02", ArmDelaysPanel), ("03", LinearPanel), ("03 (d = 2)", EllipsePanel),
                      ("04", AnonymousPanel), ("05", AdversarialPanel)]:
        panel = cls()
        found = [w for w in controls(panel.widget) if extreme_values(w)]
        corner = ([w for w in found if isinstance(w, W.Checkbox)]
                  + [w for w in found if isinstance(w, (W.IntSlider, W.FloatSlider, W.FloatLogSlider))])
        for w in corner:
            w.value = value(w, extreme_values(w)[-2 if isinstance(w, W.Checkbox) else -1])
        times = []
        for w in found:
            if w.disabled:
                continue
            for state in extreme_values(w):
                times.append((slider_move(panel, w, [value(w, state)], repeat=1), w.description))
        if getattr(panel, "budget", None) is not None:
            panel.budget.cancel()
        t, what = max(times)
        row(f"panel {name} {cls.__name__}: worst of {len(times)} control moves ({what})", t, "s", "≤ 1 s", t <= 1)
    race_moves()


#: per notebook: the live panel (and its arguments), its implement exercise raced as "your policy",
#: a slider and the values it is moved to (each a value not yet computed). Notebooks 01 and 05 also
#: at their largest horizon and runs ("max"), where the curves come as a first answer
RACES = {"01": ("conversions", "ConversionsPanel", {}, "01.d-ucb-index", "mean_delay", [300, 700, 200, 900]),
         "02": ("arm_delays", "ArmDelaysPanel", {}, "02.patient-ucb", "alpha1", [0.8, 1.2, 0.6, 1.4]),
         "03": ("linear", "LinearPanel", {}, "03.otf-index", "window", [150, 60, 250, 120]),
         "04": ("anonymous", "AnonymousPanel", {}, "04.survivors", "gap", [0.2, 0.35, 0.25, 0.4]),
         "05": ("adversarial", "AdversarialPanel", {}, "05.dew-update", "delay", [40, 10, 60, 30]),
         "01 max": ("conversions", "ConversionsPanel", {"horizon": 20_000, "runs": 200},
                                       "01.d-ucb-index", "mean_delay", [300, 700, 200]),
         "05 max": ("adversarial", "AdversarialPanel", {"horizon": 4000, "runs": 60},
                                     "05.dew-update", "delay", [40, 10, 60])}


class Messages:
    """The update messages of a figure, with the time each was sent and the last y of the curves
    ``names`` (a CurvePlot's) and the panel's status line at that moment."""

    def __init__(self, panel, names):
        self.panel, self.log, self.t0 = panel, [], time.perf_counter()
        plot = panel.regret
        lines = {n: plot._slot[(0, n)][1] for n in names}
        fig = plot.fig
        for method in ("_send_update_msg", "_send_restyle_msg"):
            send = getattr(fig, method)

            def logged(*args, _send=send, **kwargs):
                _send(*args, **kwargs)
                last = {n: (tuple(fig.data[i].y[-1:]) if fig.data[i].visible and fig.data[i].y is not None else None)
                        for n, i in lines.items()}
                self.log.append((time.perf_counter() - self.t0, last, panel.status.value))

            setattr(fig, method, logged)

    def start(self):
        self.log.clear()
        self.t0 = time.perf_counter()

    def first_change(self, name, before):
        """(seconds, status line) of the first message that changed curve ``name``."""
        return next(((t, s) for t, last, s in self.log if last[name] != before[name]), (None, None))


def race_moves():
    """A live panel with "your policy" raced (the exercise's solution, run as a student's function):
    after a slider move, when the paper's curves and the student's curve are each first redrawn,
    and whether the status line then already gives the student's new result."""
    import importlib

    from delaylab import exercises as ex

    print("\na slider move with \"your policy\" raced (the exercise's solution run as a student's function): "
          "when the paper's\ncurves and the student's are first drawn, whether the status line then gives the "
          "student's new result (max: largest T and runs)")
    for nb, (module, cls, kwargs, eid, slider, values) in RACES.items():
        panel = getattr(importlib.import_module(f"delaylab.panels.{module}"), cls)(**kwargs)
        fn = ex.solution(eid)
        ex.race(panel, eid, namespace={ex.get(eid).answer_name: fn})
        plot = panel.regret
        paper = next(n for n in plot.names if n != "your policy" and plot.fig.data[plot._slot[(0, n)][1]].visible)
        log = Messages(panel, [paper, "your policy"])
        w = getattr(panel, slider)
        delays, paper_t, race_t, moves, current = [], [], [], [], 0
        for v in values:
            panel.budget.wait(120)
            before = {n: tuple(panel.regret.curve(n)[1][-1:]) for n in (paper, "your policy")}
            log.start()
            w.value = v
            moves.append(panel.budget.last["seconds"])
            tp, status_at_paper = log.first_change(paper, before)
            tr, _ = log.first_change("your policy", before)
            if tp is None or tr is None:
                continue
            paper_t.append(tp)
            race_t.append(tr)
            delays.append(tr - tp)
            final = panel.race_result.regret["your policy"][:, -1].mean() if panel.race_result else None
            current += final is not None and f"{final:,.1f}" in status_at_paper
        panel.budget.cancel()
        n = len(delays)
        row(f"panel {nb} raced: paper's curves drawn after (median, {n} moves)", float(np.median(paper_t)))
        row(f"panel {nb} raced: your policy drawn after (median)", float(np.median(race_t)))
        row(f"panel {nb} raced: your policy later than the paper's (worst)", max(delays), "s", "= 0 s", max(delays) == 0)
        row(f"panel {nb} raced: status line current with the paper's curves", current, f"of {n}", f"{n} of {n}",
            current == n)
        row(f"panel {nb} raced: slowest move", max(moves), "s", "≤ 1 s", max(moves) <= 1)


def papers(name):
    module = __import__(f"bench_{name}")
    print(f"\n{module.__doc__.strip().splitlines()[0] if module.__doc__ else name}")
    module.main()


def visitors():
    """Ten visitors at once on a `--public` dashboard server, and an eleventh beyond the cap: the
    browser tests marked `load` (tests/test_browser.py), which keep their numbers in
    test-artifacts/browser/ten-visitors.json, one entry per variant: "own_devices" (nine
    protocol visitors, tests/visitor.py, and one real chromium page: a real audience, whose
    browsers draw on their own devices), "one_chromium" (the worst case: ten pages drawn by one
    chromium on the server's two cores) and "validation" (one protocol visitor against one real
    page on an idle server)."""
    import json
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    path = root / "test-artifacts" / "browser" / "ten-visitors.json"
    path.unlink(missing_ok=True)  # numbers from this run only
    code = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-m", "load", "-p", "no:cacheprovider",
                           str(root / "tests" / "test_browser.py")], cwd=root).returncode
    if not path.exists():
        row("ten visitors at once: no numbers (the load check failed before measuring)", float("nan"), "s")
        return
    labels = {"validation": "one visitor, idle server",
              "own_devices": "ten visitors, own devices (9 protocol + 1 chromium)",
              "one_chromium": "ten visitors, worst case: one chromium on the server's cores"}
    for variant, numbers in json.loads(path.read_text()).items():
        label = labels.get(variant, variant)
        for key, value in numbers.items():
            if key == "protocol" and isinstance(value, dict):
                for k, v in value.items():
                    if k.endswith("_s"):
                        row(f"{label}: protocol visitor {k}", v, "s")
            elif key.startswith("cpu_s") and isinstance(value, dict):
                for k, v in value.items():
                    row(f"{label}: CPU s until the last first figure, {k}", v, "s")
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                row(f"{label}: {key}", value, "s" if key.endswith("_s") else "")
    if code:
        row("ten visitors: a load check's gross bounds failed (see its output above)", float(code), "exit")


def pages():
    """Each dashboard's warm visit, twice in one window (benchmarks/bench_pages.py: where a page's
    time goes, printed as a timeline; issue 15's target: the first figure within 3 s)."""
    import bench_pages

    for stem, visit, r in bench_pages.main([]):
        row(f"page {stem[:26]} ({visit} visit): first figure", r["figure"], "s", "≤ 3 s", r["figure"] <= 3)


def book():
    """The course site's build (delaylab/site, `tasks.py book`), twice into a temporary folder: cold
    (an empty sweep cache and no recorded explorables: every figure computed) and warm (both kept
    from the cold build, as on a lecturer's second build). Issue 27's targets: ≤ 15 min cold,
    ≤ 5 min warm, the site ≤ 60 MB."""
    import json
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="delaylab-bench-book-") as tmp:
        env = {**os.environ, "DELAYLAB_CACHE": str(Path(tmp) / "cache")}
        env.pop("DELAYLAB_SITE_CACHE", None)
        for label, target in (("cold", 900), ("warm", 300)):
            out = Path(tmp) / "site"
            t0 = time.perf_counter()
            code = subprocess.run([sys.executable, "-m", "delaylab.site", "--root", str(root), "--notebooks",
                                   str(root / "notebooks"), "--out", str(out)], cwd=root, env=env,
                                  stdout=subprocess.DEVNULL).returncode
            wall = time.perf_counter() - t0
            if code:
                row(f"course site, {label} build: FAILED (exit {code})", float("nan"), "s")
                return
            report = json.loads((out / ".delaylab-build.json").read_text())
            row(f"course site, {label} build (sweep cache {'empty' if label == 'cold' else 'filled'})", wall, "s",
                f"≤ {target} s", wall <= target)
            sec = report["seconds"]
            row(f"  {label}: notebooks executed (2 at a time)", sec["execute"], "s")
            row(f"  {label}: Jupyter Book", sec["jupyter_book"], "s")
        row("course site: size", report["site_bytes"] / 1e6, "MB", "≤ 60 MB", report["site_bytes"] <= 60e6)
        row("course site: largest page (HTML)", max(report["page_bytes"].values()) / 1e6, "MB")
        row("course site: plotly.js (shared by every page)", report["plotly_js_bytes"] / 1e6, "MB")


def lighthouse_pages():
    """Lighthouse (mobile, slow 4G, 4× CPU) on every notebook page of the course site
    (benchmarks/bench_lighthouse.py; issue 36: performance ≥ 80, CLS ≤ 0.1)."""
    import bench_lighthouse

    bench_lighthouse.main(row=row)


def start(argv):
    """The first visitor after a start, each notebook (benchmarks/bench_start.py, issue 37: ≤ 3 s)."""
    import bench_start

    bench_start.main(argv)


def runall(argv):
    """A student's Run All in JupyterLab in chromium, each notebook (benchmarks/bench_runall.py,
    issue 37: ≤ 15 s until every figure is drawn and every panel idle)."""
    import bench_runall

    bench_runall.main(argv)


def extension(argv):
    """A dashboard inside a Jupyter server (a hub's, Binder's): where its time goes, with the
    extension's spare kernel and without (benchmarks/bench_extension.py, issue 35)."""
    import bench_extension

    bench_extension.main(argv)


def soak(argv):
    """Steady visitors on a `--public` dashboard server (benchmarks/bench_soak.py, issue 29):
    time to a visitor's widget state against its budgets, and whether the server's kernels,
    descriptors, connection files and memory return to their baseline."""
    import bench_soak

    bench_soak.main(argv)


SECTIONS = {
    "notebooks": notebooks,
    "paper1": paper1,
    "paper2": lambda: papers("manegueu2020"),
    "paper3": lambda: papers("vernade2020"),
    "paper4": lambda: papers("pikeburke2018"),
    "paper5": lambda: papers("thune2019"),
    "sweep": lambda: papers("sweep"),
    "kernels": lambda: papers("kernels"),
    "bigsweep": lambda: papers("bigsweep"),  # 10⁴ runs × 10⁵ steps in ≤ 1 GiB: long (see its docstring)
    "scaling": scaling,
    "panels": panel_moves,
    "serve": lambda: papers("serve"),  # a dashboard kernel: start, notebook, CPU, memory
    "visitors": visitors,
    "pages": pages,
    "book": book,  # the course site, built cold then warm (several minutes)
    "lighthouse": lighthouse_pages,  # the site's notebook pages on a phone (Lighthouse, from npm)
    "soak": soak,  # steady visitors on a --public server for ten minutes: only when named
    "start": start,  # a server started ten times, a notebook visited at once: only when named
    "runall": runall,  # JupyterLab and chromium, Run All of each notebook: only when named
    "extension": extension,  # dashboards inside a Jupyter server, spare kernel or not: only when named
}
#: sections that take options (the arguments after their name) and run only when named
WITH_OPTIONS = {"soak", "start", "runall", "extension"}


def main(argv):
    sys.modules.setdefault("bench", sys.modules[__name__])  # bench_<paper>.py rows land in this table
    chosen, options, unknown = [], {}, []
    for arg in argv:
        if arg in SECTIONS:
            chosen.append(arg)
            options[arg] = []
        elif chosen and chosen[-1] in WITH_OPTIONS:
            options[chosen[-1]].append(arg)
        else:
            unknown.append(arg)
    if unknown:
        sys.exit(f"unknown section(s) {unknown}; choose among {list(SECTIONS)}")
    for name in chosen or [s for s in SECTIONS if s not in WITH_OPTIONS]:
        print(f"\n=== {name}", flush=True)
        SECTIONS[name](*([options.get(name, [])] if name in WITH_OPTIONS else []))
    missed = [r[0].strip() for r in ROWS if r[4] is False]
    print(f"\n{len(ROWS)} measurements; targets missed: {missed or 'none'}")


if __name__ == "__main__":
    main(sys.argv[1:])
