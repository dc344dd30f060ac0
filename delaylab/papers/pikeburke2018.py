"""Pike-Burke, Agrawal, Szepesvári, Grünewälder (2018), "Bandits with delayed, aggregated
anonymous feedback": the experiments of Section 5 and Appendix F, and a timeline of one run.

*Reconstructed* experiment values: our copy of the paper lost its numbers, so we chose them
(``docs/readings.md``, paper 4) and state them here and in notebook 04:

* two Bernoulli arms θ = (0.6, 0.45) (gap Δ = 0.15, so that every variant eliminates the worse
  arm well within the horizon), T = 50,000, 100 runs (paper scale), QPM-D with UCB1 (c = 2);
* Figure 2(a), bounded delays: uniform on {0, …, d} for d ∈ {10, 20, 40}; ODAAF is told
  E[τ] = d/2, ODAAF-B also the bound d;
* Figure 2(b), unbounded delays with the same mean E[τ] = 10: Poisson(10), half-normal
  (σ = 10.5·√(π/2), whose discretised mean is ≈ 10) and geometric (mean 10, variance 110);
  ODAAF is told E[τ], ODAAF-V also V(τ) (the laws' exact moments);
* Appendix F: Poisson delays with E[τ] ∈ {2, 5, 10, 20, 40}, regret at T against E[τ].

The curves of Figure 2 are ratios of mean regrets (mean over runs of the variant's regret divided
by the mean over runs of QPM-D's, at each recorded time). The same random draws (seed, run
index) are used for the anonymous and the labelled settings (common random numbers).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..engine import simulate
from ..sweep import sweep
from ..grid import grid
from ..laws import Fixed, Geometric, HalfNormal, Poisson, Uniform
from ..panels.reproduce import FigureReproduction
from ..policies.improved_ucb import ImprovedUCB
from ..policies.odaaf import ODAAF, ODAAFB, ODAAFV
from ..policies.qpmd import QPMD
from ..policies.ucb import UCB1
from ..settings.bernoulli import AggregatedAnonymous, LabelledRewards
from ..streams import ENVIRONMENT, Batch, RunStreams
from ..viz.plots import figure_layout
from ..viz.style import BLUE, GREEN, ORANGE, PURPLE, style
from ..viz.widget import FigureWidget

THETA = (0.6, 0.45)
HORIZON = 50_000
RUNS = 100  # paper scale (our choice: the number was lost)
BOUNDS = (10, 20, 40)  # Figure 2(a): uniform delays on {0, …, d}
MEAN = 10.0  # Figure 2(b): common mean of the unbounded laws
MEANS_F = (2.0, 5.0, 10.0, 20.0, 40.0)  # Appendix F
CHECKPOINTS = 250


def unbounded_laws(mean=MEAN) -> dict:
    """Figure 2(b): Poisson, half-normal and geometric delays with (about) the same mean."""
    return {"Poisson": Poisson(mean), "half-normal": HalfNormal((mean + 0.5) * math.sqrt(math.pi / 2)),
            "geometric": Geometric(mean)}


def _staged(progress, n):
    if progress is None:
        return [None] * n
    return [lambda f, i=i: progress((i + f) / n) for i in range(n)]


def ratio(res_num, name, res_den, den="QPM-D"):
    """Mean regret of ``name`` divided by QPM-D's, at each recorded time (axis −1)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return res_num.mean(name) / res_den.mean(den)


# ------------------------------------------------------------------------------- Figure 2
def figure2(runs=RUNS, seed=0, progress=None, horizon=HORIZON, theta=THETA):
    """{"bounded": (anonymous Result, labelled Result) on a grid over d,
    "unbounded": {law name: (anonymous Result, labelled Result)}}."""
    stages = _staged(progress, 2 + 2 * 3)
    d = np.array(BOUNDS, dtype=float)
    g = grid(d=d)
    law = Uniform(0, high=d)
    ck = dict(checkpoints=CHECKPOINTS)
    anon = sweep(AggregatedAnonymous(theta, law), {"ODAAF": ODAAF(mean_delay=d / 2),
                                                      "ODAAF-B": ODAAFB(mean_delay=d / 2, bound=d)},
                    horizon, runs, seed, grid=g, progress=stages[0], **ck)
    lab = sweep(LabelledRewards(theta, law), {"QPM-D": QPMD(UCB1())}, horizon, runs, seed, grid=g,
                   progress=stages[1], **ck)
    out = {"bounded": (anon, lab), "unbounded": {}}
    for i, (name, law) in enumerate(unbounded_laws().items()):
        mu, var = float(law.mean), float(law.var)
        anon = sweep(AggregatedAnonymous(theta, law), {"ODAAF": ODAAF(mean_delay=mu),
                                                          "ODAAF-V": ODAAFV(mean_delay=mu, variance=var)},
                        horizon, runs, seed, progress=stages[2 + 2 * i], **ck)
        lab = sweep(LabelledRewards(theta, law), {"QPM-D": QPMD(UCB1())}, horizon, runs, seed,
                       progress=stages[3 + 2 * i], **ck)
        out["unbounded"][name] = (anon, lab)
    return out


def figure2_curves(results) -> list[tuple[int, str, str, np.ndarray, np.ndarray]]:
    """(panel, algorithm, delay label, times, ratio to QPM-D) for every curve of Figure 2."""
    curves = []
    anon, lab = results["bounded"]
    for j, dj in enumerate(BOUNDS):
        for name in ("ODAAF", "ODAAF-B"):
            curves.append((0, name, f"d = {dj}", anon.times, ratio(anon, name, lab)[j]))
    for name_law, (anon, lab) in results["unbounded"].items():
        for name in ("ODAAF", "ODAAF-V"):
            curves.append((1, name, name_law, anon.times, ratio(anon, name, lab)))
    return curves


#: Figure 2: one colour per delay law (within a panel); the algorithm by dash and marker
LAW_COLORS = (BLUE, ORANGE, GREEN)
ALGO_LINES = {"ODAAF": ("solid", None), "ODAAF-B": ("dash", "circle"), "ODAAF-V": ("dash", "circle")}


class RatioPlot:
    """Figure 2: two panels of ratio curves; colour = delay law, dash and marker = algorithm
    (ODAAF solid, its variant dashed with circles)."""

    def __init__(self):
        fig = make_subplots(rows=1, cols=2, subplot_titles=[
            "(a) bounded delays: uniform on {0, …, d}", f"(b) unbounded delays, E[τ] ≈ {MEAN:g}"],
            horizontal_spacing=0.1)
        self._slot = {}
        specs = [(0, n, f"d = {d}", k) for k, d in enumerate(BOUNDS) for n in ("ODAAF", "ODAAF-B")]
        specs += [(1, n, law, k) for k, law in enumerate(unbounded_laws()) for n in ("ODAAF", "ODAAF-V")]
        for panel, name, law, k in specs:
            dash, sym = ALGO_LINES[name]
            fig.add_trace(go.Scatter(x=[], y=[], mode="lines+markers" if sym else "lines", name=f"{name}, {law}",
                                     line=dict(color=LAW_COLORS[k], dash=dash, width=2.2),
                                     marker=dict(symbol=sym, size=7, color=LAW_COLORS[k], maxdisplayed=12) if sym else None),
                          row=1, col=panel + 1)
            self._slot[(panel, name, law)] = len(fig.data) - 1
        for col in (1, 2):
            fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="ratio 1", showlegend=col == 1,
                                     line=dict(color="#7F7F7F", dash="dot", width=1)), row=1, col=col)
        fig.update_xaxes(title_text="step t")
        fig.update_yaxes(title_text="regret / regret of QPM-D")
        figure_layout(fig, 430, margin=dict(t=60), legend=dict(font=dict(size=11)))
        self.fig = FigureWidget(fig)

    def updating(self):
        return self.fig.batch_update()

    def line(self, panel, name, law):
        """The trace of algorithm ``name`` under delay law ``law`` in ``panel`` (0: bounded delays,
        1: unbounded), as :func:`figure2_curves` names them."""
        return self.fig.data[self._slot[(panel, name, law)]]

    def curve(self, panel, name, law):
        """(x, y) of a ratio curve, as drawn (see :meth:`line`)."""
        d = self.line(panel, name, law)
        return np.asarray(d.x), np.asarray(d.y)


def draw_figure2(results, plot: RatioPlot) -> None:
    T = 1
    for panel, name, law, t, r in figure2_curves(results):
        d = plot.line(panel, name, law)
        d.x, d.y = t, r
        T = max(T, int(t[-1]))
    for i in (-2, -1):
        plot.fig.data[i].x, plot.fig.data[i].y = [0, T], [1, 1]


def figure2_panel(runs=10, seed=0, horizon=HORIZON) -> FigureReproduction:
    caption = (f"<b>Reconstructed experiment</b> (our copy lost the paper's numbers): θ = {THETA}, "
               f"T = {horizon:,} (shown), QPM-D with UCB1. (a) uniform delays on {{0, …, d}}, d ∈ {BOUNDS}; "
               f"(b) Poisson, half-normal and geometric delays with mean ≈ {MEAN:g}. Each curve is the "
               "mean regret of the variant divided by the mean regret of QPM-D (same draws). The jumps "
               "are the changes of arm at fixed steps of the phase schedule; once the worse arm is "
               "eliminated, the variant's regret stops growing while QPM-D's still grows like log t: the "
               "ratio stays bounded and slowly decreases.")
    caption += f" The button reruns it at paper scale: {RUNS} runs, T = {HORIZON:,}."
    return FigureReproduction(lambda r, p: figure2(r, seed, p, HORIZON if r >= RUNS else horizon), draw_figure2,
                              RatioPlot(), runs, RUNS, caption, name="pikeburke2018-figure2")


# ------------------------------------------------------------------------------- Appendix F
def appendix_f(runs=RUNS, seed=0, progress=None, horizon=HORIZON, theta=THETA, means=MEANS_F):
    """Regret at T against E[τ] (Poisson delays): {"means", "anonymous", "labelled", "no delay"}."""
    p1, p2, p3 = _staged(progress, 3)
    mus = np.array(means, dtype=float)
    g = grid(mean=mus)
    law = Poisson(mus)
    anon = sweep(AggregatedAnonymous(theta, law), {"ODAAF": ODAAF(mean_delay=mus),
                                                      "ODAAF-V": ODAAFV(mean_delay=mus, variance=mus)},
                    horizon, runs, seed, grid=g, checkpoints=10, progress=p1)
    lab = sweep(LabelledRewards(theta, law), {"QPM-D": QPMD(UCB1())}, horizon, runs, seed, grid=g,
                   checkpoints=10, progress=p2)
    ref = sweep(AggregatedAnonymous(theta, Fixed(0)), {"Improved UCB": ImprovedUCB()}, horizon, runs, seed,
                   checkpoints=10, progress=p3)
    return {"means": mus, "anonymous": anon, "labelled": lab, "no delay": ref}


def final_regret(study, name):
    """Mean and standard error of the regret at T, per E[τ]: two arrays (n_means,)."""
    res = study["labelled"] if name == "QPM-D" else study["anonymous"]
    f = res.final(name)
    return f.mean(axis=-1), f.std(axis=-1, ddof=1) / np.sqrt(f.shape[-1])


def linear_fit(x, y):
    """Least-squares line y ≈ a x + b and its R²."""
    a, b = np.polyfit(x, y, 1)
    resid = y - (a * np.asarray(x) + b)
    return a, b, 1 - resid.var() / np.var(y)


class LinePlot:
    """Appendix F: final regret (mean ± 1.96 s.e.) against E[τ]."""

    NAMES = ("ODAAF", "ODAAF-V", "QPM-D")

    def __init__(self):
        fig = go.Figure()
        for n in self.NAMES:
            fig.add_trace(go.Scatter(x=[], y=[], mode="lines+markers", name=n,
                                     line=dict(color=style(n)["color"], width=2.2),
                                     error_y=dict(type="data", array=[], visible=True)))
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="Improved UCB, no delay",
                                 line=dict(color=style("Improved UCB")["color"], dash="dot", width=1.5)))
        fig.update_xaxes(title_text="expected delay E[τ]")
        fig.update_yaxes(title_text="regret at T")
        figure_layout(fig, 400, margin=dict(t=50))
        self.fig = FigureWidget(fig)

    def updating(self):
        return self.fig.batch_update()


def draw_appendix_f(study, plot: LinePlot) -> None:
    mus = study["means"]
    for i, n in enumerate(plot.NAMES):
        m, se = final_regret(study, n)
        plot.fig.data[i].x, plot.fig.data[i].y = mus, m
        plot.fig.data[i].error_y.array = 1.96 * se
    ref = study["no delay"].final("Improved UCB").mean()
    plot.fig.data[-1].x, plot.fig.data[-1].y = [0, mus[-1]], [ref, ref]


def appendix_f_panel(runs=10, seed=0, horizon=HORIZON) -> FigureReproduction:
    caption = (f"<b>Reconstructed experiment</b>: θ = {THETA}, T = {horizon:,}, Poisson delays with "
               f"E[τ] ∈ {MEANS_F} (ODAAF-V told V(τ) = E[τ]). Error bars: 95% confidence intervals of "
               "the mean. The dotted line is Improved UCB without any delay: what delays cost is the "
               "distance to it.")
    caption += f" The button reruns it at paper scale: {RUNS} runs, T = {HORIZON:,}."
    return FigureReproduction(lambda r, p: appendix_f(r, seed, p, HORIZON if r >= RUNS else horizon), draw_appendix_f,
                              LinePlot(), runs, RUNS, caption, name="pikeburke2018-appendixF")


# ------------------------------------------------------------------------------- timeline
class _Recorder(ODAAFB):
    """ODAAF-B that also keeps the arm played and the anonymous sum seen at every step (one run)."""

    last = None  # the started copy of the latest run (simulate starts a clone)

    def reset(self, problem):
        super().reset(problem)
        self.arms_, self.seen_, self.bridge_steps_ = [], [], []
        type(self).last = self

    def update_block(self, t, h, arms, totals):
        self.arms_.append(np.full(h, arms[0]))
        self.seen_.append(totals[:, 0].copy())
        self.bridge_steps_.append(np.full(h, bool(self.in_bridge_[0])))
        super().update_block(t, h, arms, totals)


def timeline(theta=(0.6, 0.45, 0.2), law=None, bound=20, horizon=20_000, run=0, seed=0):
    """One run of ODAAF-B, step by step: what is played, what is seen, and what it is made of.

    Returns a dict with ``arms`` (T,), ``bridge`` (T,) bool, ``seen`` (T,) the anonymous sums,
    ``parts`` (K, T) the rewards of each arm arriving at each step (which the learner cannot see;
    they add up to ``seen``), ``phase_start``, ``bridge_start``, ``eliminated_at``, ``n``.
    """
    law = Uniform(0, bound) if law is None else law
    res = simulate(AggregatedAnonymous(theta, law), {"ODAAF-B": _Recorder(mean_delay=float(law.mean), bound=bound)},
                   horizon, [run], seed, checkpoints=[horizon])
    p = _Recorder.last
    arms = np.concatenate(p.arms_)
    u = RunStreams(seed, Batch(np.array([run])), ENVIRONMENT).uniform(horizon, (2,))[:, 0]
    reward = u[:, 0] < np.asarray(theta)[arms]
    delay = law.ppf(u[:, 1])
    steps = np.arange(horizon)
    ok = reward & (delay <= horizon - 1 - steps)
    K = len(theta)
    parts = np.zeros((K, horizon))
    np.add.at(parts, (arms[ok], steps[ok] + delay[ok]), 1.0)
    return {"theta": np.asarray(theta), "law": law, "bound": bound, "arms": arms,
            "bridge": np.concatenate(p.bridge_steps_), "seen": np.concatenate(p.seen_), "parts": parts,
            "phase_start": p.phase_start_[0], "bridge_start": p.bridge_start_[0],
            "eliminated_at": p.eliminated_at_[0], "n": p.n_[0], "regret": res.regret["ODAAF-B"][0, -1]}


ARM_COLORS = (BLUE, ORANGE, GREEN, PURPLE)


def _segments(arms, bridge):
    """[(start, end, arm, is_bridge)] of maximal stretches with the same arm and kind."""
    change = np.flatnonzero((np.diff(arms) != 0) | (np.diff(bridge.astype(int)) != 0)) + 1
    starts = np.r_[0, change]
    ends = np.r_[change, len(arms)]
    return [(int(s), int(e), int(arms[s]), bool(bridge[s])) for s, e in zip(starts, ends)]


def timeline_figure(tl, zoom=60, show_until=None):
    """Top: which arm is played when (bridges hatched), phase starts and eliminations. Bottom: the
    anonymous sums around the first change of arm, split into the rewards of each arm (what the
    learner cannot see)."""
    K = len(tl["theta"])
    T = len(tl["arms"])
    end = show_until or T
    fig = make_subplots(rows=2, cols=1, row_heights=[0.38, 0.62], vertical_spacing=0.16,
                        subplot_titles=["Which arm ODAAF-B plays (one run)",
                                        "Around the first change of arm: the anonymous sum at each step, "
                                        "and the arms its rewards come from"])
    for s, e, a, br in _segments(tl["arms"], tl["bridge"]):
        if s >= end:
            break
        fig.add_trace(go.Bar(x=[min(e, end) - s], y=[f"arm {a + 1}"], base=[s], orientation="h",
                             marker=dict(color=ARM_COLORS[a % 4], pattern=dict(shape="/" if br else "")),
                             showlegend=False, hovertemplate=f"{'bridge' if br else 'Step 1'}: arm {a + 1}, "
                             f"steps {s}–{e - 1}<extra></extra>"), row=1, col=1)
    for m, s in enumerate(tl["phase_start"]):
        if 0 <= s < end:
            fig.add_vline(x=s, line=dict(color="#555555", dash="dot", width=1), row=1, col=1)
            fig.add_annotation(x=s, y=1.0, yref="y domain", text=f"phase {m + 1}", showarrow=False,
                               xanchor="left", font=dict(size=11), row=1, col=1)
    for k, s in enumerate(tl["eliminated_at"]):
        if s >= 0:
            fig.add_trace(go.Scatter(x=[s], y=[f"arm {k + 1}"], mode="markers", marker=dict(symbol="x", size=13,
                          color="#D55E00", line=dict(width=2)), name="elimination", showlegend=k == int(
                              np.flatnonzero(tl["eliminated_at"] >= 0)[0])), row=1, col=1)
    fig.add_trace(go.Bar(x=[None], y=[None], marker=dict(color="#BBBBBB", pattern=dict(shape="/")),
                         name="bridge period (observations discarded)"), row=1, col=1)
    switch = int(np.flatnonzero(np.diff(tl["arms"]) != 0)[0]) + 1
    lo, hi = max(0, switch - zoom), min(T, switch + zoom)
    x = np.arange(lo, hi)
    for k in range(K):
        fig.add_trace(go.Bar(x=x, y=tl["parts"][k, lo:hi], name=f"rewards of arm {k + 1} (hidden)",
                             marker=dict(color=ARM_COLORS[k % 4]), opacity=0.85), row=2, col=1)
    fig.add_trace(go.Scatter(x=x, y=tl["seen"][lo:hi], mode="markers", name="anonymous sum seen",
                             marker=dict(color="#000000", size=6, symbol="circle-open")), row=2, col=1)
    fig.add_vline(x=switch - 0.5, line=dict(color="#D55E00", dash="dash", width=2), row=2, col=1)
    figure_layout(fig, 620, barmode="stack", margin=dict(t=60), legend=dict(orientation="h", x=0, y=-0.12))
    fig.update_xaxes(title_text="step t", row=2, col=1)
    fig.update_xaxes(range=[0, end], title_text="step t", row=1, col=1)
    fig.update_yaxes(title_text="arm played", row=1, col=1)
    fig.update_yaxes(title_text="sum at step t", row=2, col=1)
    return FigureWidget(fig)


__all__ = ["THETA", "HORIZON", "RUNS", "BOUNDS", "MEAN", "MEANS_F", "unbounded_laws", "figure2",
           "figure2_curves", "figure2_panel", "appendix_f", "final_regret", "linear_fit", "appendix_f_panel",
           "timeline", "timeline_figure", "ratio"]
