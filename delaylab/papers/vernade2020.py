"""Vernade, Carpentier, Lattimore, Zappella, Ermis, Brueckner (ICML 2020), "Linear bandits with
stochastic delayed feedback": the parameters of the paper's figures, how to compute and draw them.

Section 8: d = 5, K = 10 actions per round drawn from {0,1}^d \\ {0} and normalised,
θ = (1/√d, …, 1/√d), δ = 0.1, λ = 1 (from the authors' scripts), 50 runs (the caption of
Figure 1 says 100, the text 50).

* Figure 1: T = 3000, geometric delays, (m, μ) ∈ {(100, 100), (500, 100), (100, 500)}.
* Figure 3: the Criteo delays (seconds) divided by 100, m = 2000, T = 10,000.

Besides OTFLinUCB and OTFLinTS as printed (Algorithms 1 and 2), each figure shows the index of
the authors' public code (``OTFLinUCB(variant="authors-code")``: squared norms, no factor 2),
which is what reproduces the paper's curves; see :class:`~delaylab.policies.linear.OTFLinUCB`.
"""

from __future__ import annotations

import numpy as np

from ..sweep import sweep
from ..laws import Geometric, criteo
from ..panels.reproduce import FigureReproduction
from ..policies.linear import OTFLinTS, OTFLinUCB
from ..settings.linear import LinearConversions
from ..viz.plots import CurvePlot
from ..viz.style import SKY

DIM = 5
N_ACTIONS = 10
DELTA = 0.1
LAM = 1.0
HORIZON = 3000
RUNS = 50
FIG1_PANELS = [(100, 100), (500, 100), (100, 500)]  # (m, μ)
FIG3_WINDOW = 2000
FIG3_HORIZON = 10_000
FIG3_SCALE = 100.0  # seconds per step
CHECKPOINTS = 300
AUTHORS = "OTFLinUCB (authors' code)"
NAMES = ["OTFLinUCB", "OTFLinTS", AUTHORS]


def theta(d: int = DIM) -> np.ndarray:
    """θ = (1/√d, …, 1/√d) (Section 8)."""
    return np.full(d, 1.0 / np.sqrt(d))


def policies(m, delta=DELTA, lam=LAM, authors=True) -> dict:
    """OTFLinUCB and OTFLinTS as printed, and (``authors``) the authors' code's index."""
    out = {"OTFLinUCB": OTFLinUCB(window=m, delta=delta, lam=lam),
           "OTFLinTS": OTFLinTS(window=m, delta=delta, lam=lam)}
    if authors:
        out[AUTHORS] = OTFLinUCB(window=m, delta=delta, lam=lam, variant="authors-code")
    return out


def _staged(progress, n):
    if progress is None:
        return [None] * n
    return [lambda f, i=i: progress((i + f) / n) for i in range(n)]


# ------------------------------------------------------------------------------- Figure 1
def figure1(runs=RUNS, seed=0, progress=None, horizon=HORIZON, authors=True):
    """{(m, μ): Result} for the three panels of Figure 1 (geometric delays)."""
    out = {}
    for (m, mu), prog in zip(FIG1_PANELS, _staged(progress, len(FIG1_PANELS))):
        env = LinearConversions(theta(), Geometric(mu), n_actions=N_ACTIONS, window=m)
        out[(m, mu)] = sweep(env, policies(m, authors=authors), horizon, runs, seed,
                                checkpoints=CHECKPOINTS, progress=prog)
    return out


def tau_m(m, mu) -> float:
    return float(Geometric(mu).cdf(m))


def draw_figure1(results, plot: CurvePlot) -> None:
    for i, key in enumerate(FIG1_PANELS):
        plot.show_result(results[key], [n for n in NAMES if n in results[key].names], panel=i)


def _finals(res) -> str:
    names = [n for n in NAMES if n in res.names]
    return ", ".join(f"{n} {res.final(n).mean():.0f}" for n in names)


def summary_figure1(results) -> str:
    """The numbers of Figure 1: each panel's final regrets, and Algorithm 1 against OTFLinTS."""
    parts = []
    for (m, mu) in FIG1_PANELS:
        res = results[(m, mu)]
        ratio = res.final("OTFLinUCB").mean() / res.final("OTFLinTS").mean()
        parts.append(f"(m, μ) = ({m}, {mu}), τ_m = {tau_m(m, mu):.2f}: {_finals(res)} (OTFLinUCB {ratio:.1f} times "
                     f"OTFLinTS)")
    T = int(results[FIG1_PANELS[0]].times[-1])
    return f"regret at T = {T:,} — " + "; ".join(parts) + "."


def figure1_panel(runs=10, seed=0, horizon=HORIZON) -> FigureReproduction:
    titles = [f"m = {m}, μ = {mu} (τ_m = {tau_m(m, mu):.2f})" for m, mu in FIG1_PANELS]
    plot = CurvePlot(NAMES, panels=titles, cols=3, height=420)
    caption = ("Figure 1 of the paper: d = 5, K = 10, T = 3000, θ = (1/√5, …), δ = 0.1, λ = 1, geometric "
               "delays with mean μ, window m. Bands: 95% confidence band of the mean over runs. Solid "
               "blue/vermillion: Algorithms 1 and 2 as printed; dash-dot blue: the index of the authors' "
               "public code (squared norms), whose curves are the ones in the paper.")
    return FigureReproduction(lambda r, p: figure1(r, seed, p, horizon), draw_figure1, plot, runs, RUNS, caption,
                              name="vernade2020-figure1", summary=summary_figure1)


# ------------------------------------------------------------------------------- Figure 3
def figure3(runs=RUNS, seed=0, progress=None, horizon=FIG3_HORIZON, width="exact", authors=True):
    """Figure 3: Criteo delays / 100, m = 2000, T = 10,000."""
    law = criteo(FIG3_SCALE)
    env = LinearConversions(theta(), law, n_actions=N_ACTIONS, window=FIG3_WINDOW)
    pols = policies(FIG3_WINDOW, authors=authors)
    pols["OTFLinUCB"].width = width
    pols["OTFLinTS"].width = width
    return sweep(env, pols, horizon, runs, seed, checkpoints=CHECKPOINTS, progress=progress)


def draw_figure3(res, plot: CurvePlot) -> None:
    plot.show_result(res, [n for n in NAMES if n in res.names])


def summary_figure3(res) -> str:
    """The numbers of Figure 3: final regrets."""
    return f"regret at T = {int(res.times[-1]):,}: {_finals(res)}."


def figure3_panel(runs=3, seed=0, horizon=FIG3_HORIZON, width="cheap") -> FigureReproduction:
    law = criteo(FIG3_SCALE)
    t_m = float(law.cdf(FIG3_WINDOW))
    plot = CurvePlot(NAMES, title=f"Figure 3: Criteo delays / 100, m = 2000 (τ_m = {t_m:.2f})", height=420)
    caption = (f"Figure 3 of the paper: heavy-tailed delays (Criteo, Diemert et al. 2017) divided by 100, so one "
               f"step is 100 s; m = 2000, T = 10,000, other parameters as in Figure 1. Here the delay term uses "
               f"the cheap width ‖A_s‖ in V_s⁻¹ (width='{width}'), as the exact one costs O(m d²) per round "
               f"with m = 2000. Bands: 95% confidence band of the mean.")
    return FigureReproduction(lambda r, p: figure3(r, seed, p, horizon, width), draw_figure3, plot, runs, RUNS,
                              caption, name="vernade2020-figure3", summary=summary_figure3)


# ------------------------------------------------------------------------------- Figure 2
#: reference durations marked on Figure 2's axis (seconds)
_DURATIONS = (("1 min", 60.0), ("1 hour", 3600.0), ("1 day", 86_400.0), ("1 week", 604_800.0),
              ("30 days", 2_592_000.0))


def criteo_log10_density():
    """The density of log₁₀(delay in seconds) of the law we fit to the Criteo delays.

    The law (:func:`delaylab.laws.criteo`) interpolates the shipped quantile table linearly in
    log(delay): between two knots the density of log₁₀ delay is constant, Δp / Δlog₁₀(delay).
    Returns (edges (n + 1,), density (n,)).
    """
    law = criteo(FIG3_SCALE)
    edges = np.log10(law.delays)
    return edges, np.diff(law.probs) / np.diff(edges)


def figure2(samples=20_000, seed=0):
    """Figure 2 of the paper: the distribution of log₁₀ delays (seconds) of the Criteo data.

    The histogram shows ``samples`` delays drawn from the law we fit (quantile table, linear in
    log delay); the line is that law's density; vertical lines mark one step (100 s), the window
    m = 2000 steps and the horizon T = 10,000 steps of Figure 3. A FigureWidget.
    """
    import plotly.graph_objects as go

    from ..viz.plots import figure_layout
    from ..viz.widget import FigureWidget

    law = criteo(FIG3_SCALE)
    edges, dens = criteo_log10_density()
    u = np.random.default_rng(seed).uniform(size=samples)
    x = np.interp(u, law.probs, edges)
    fig = go.Figure()
    # a histogram (bins of 0.1 in log10 delay, as a density) drawn as bars: the dashboards' plotly.js
    # is the basic bundle (scatter, bar, pie; delaylab.viz.plotlyjs)
    width = 0.1
    count = int(np.ceil((edges[-1] - edges[0]) / width - 1e-9))  # bins from the first edge past the last
    density, bins = np.histogram(x, bins=edges[0] + width * np.arange(count + 1), density=True)
    fig.add_trace(go.Bar(x=(bins[:-1] + bins[1:]) / 2, y=density, width=0.98 * width,  # a thin gap between bars
                         name=f"{samples:,} delays drawn from our law",
                         marker=dict(color=SKY, line=dict(width=0)), opacity=0.75))
    fig.add_trace(go.Scatter(x=np.repeat(edges, 2)[1:-1], y=np.repeat(dens, 2), mode="lines",
                             name="density of the law we fit (quantile table)", line=dict(color="#000000", width=2)))
    top = float(dens.max()) * 1.08
    for name, sec, colour, dash in [("one step (100 s)", FIG3_SCALE, "#7F7F7F", "dot"),
                                    (f"window m = {FIG3_WINDOW} steps", FIG3_WINDOW * FIG3_SCALE, "#D55E00", "dash"),
                                    (f"horizon T = {FIG3_HORIZON:,} steps", FIG3_HORIZON * FIG3_SCALE, "#009E73",
                                     "dashdot")]:
        fig.add_trace(go.Scatter(x=[np.log10(sec)] * 2, y=[0, top], mode="lines", name=name,
                                 line=dict(color=colour, dash=dash, width=2)))
    for label, sec in _DURATIONS:
        fig.add_annotation(x=np.log10(sec), y=1.0, yref="paper", text=label, showarrow=False, yanchor="bottom",
                           font=dict(size=11, color="#555555"))
    t_m = float(law.cdf(FIG3_WINDOW))
    figure_layout(fig, 400, f"Figure 2: Criteo conversion delays (log₁₀ seconds); τ_m = P(D ≤ {FIG3_WINDOW}) = {t_m:.2f}",
                  xaxis=dict(title="log₁₀ delay (seconds)"), yaxis=dict(title="density"),
                  margin=dict(t=80))
    return FigureWidget(fig)
