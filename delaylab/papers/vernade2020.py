"""Vernade, Carpentier, Lattimore, Zappella, Ermis, Brueckner (ICML 2020), "Linear bandits with
stochastic delayed feedback": the parameters of the paper's figures, how to compute and draw them.

Section 8: d = 5, K = 10 actions per round ("sample and normalize K actions from {0,1}^d", as
printed; we draw them uniformly from {0,1}^d \\ {0}, the zero vector having no direction: our
reading), θ = (1/√d, …, 1/√d), δ = 0.1, λ = 1 (from the authors' scripts), 50 runs (the caption
of Figure 1 says 100, the text 50).

* Figure 1: T = 3000, geometric delays, (m, μ) ∈ {(100, 100), (500, 100), (100, 500)}.
* Figure 3: the Criteo delays rescaled by 0.01 (Section 8, as printed), m = 2000, T = 10,000. The
  paper gives no unit; we read the delays as seconds (the 30-day window is the top of our table),
  so one step is 100 s (our reading). Nor does it give a run count ("in the same setting as
  before", as printed): its button runs Figure 1's 50, at "our full scale" (our reading).

Besides OTFLinUCB and OTFLinTS as printed (Algorithms 1 and 2), each figure shows the index of
the authors' public code (``OTFLinUCB(variant="authors-code")``: squared norms, no factor 2), with
which OTFLinUCB ends below OTFLinTS as in the paper's figures (see
:class:`~delaylab.policies.linear.OTFLinUCB`; OTFLinTS stays Algorithm 2 as printed: we do not
run the authors' Thompson-sampling code), and uniform random play, the reference of every regret
figure. Figure 1 also shows Algorithm 1 without its delay term (``variant="no-delay-term"``:
α_{t,δ} = 2f_{t,δ}, all else the same), the comparison that isolates what the delay term costs.

:func:`otf_choices` watches which actions Algorithm 1 as printed plays on the paper's instance,
the evidence for why it ends above uniform random play.
"""

from __future__ import annotations

import numpy as np

from typing import NamedTuple

from .._validate import check_choice
from ..engine import simulate
from ..laws import Geometric, criteo
from ..panels.reproduce import FigureReproduction
from ..policies.linear import NO_DELAY_TERM, WIDTHS, OTFLinTS, OTFLinUCB, weighted_norms
from ..policies.simple import UNIFORM, with_uniform
from ..settings.linear import LinearConversions
from ..sweep import sweep
from ..viz.plots import CurvePlot
from ..viz.style import SKY

DIM = 5
N_ACTIONS = 10
DELTA = 0.1
LAM = 1.0
HORIZON = 3000
RUNS = 50
#: how Figure 3's button names RUNS: Section 8 prints no run count for Figure 3 (general-r7, finding 3)
FULL_SCALE = "our full scale"
FIG1_PANELS = [(100, 100), (500, 100), (100, 500)]  # (m, μ)
FIG3_WINDOW = 2000
FIG3_HORIZON = 10_000
FIG3_SCALE = 100.0  # seconds per step (the paper's rescaling by 0.01; seconds: our reading)
CHECKPOINTS = 300
AUTHORS = "OTFLinUCB (authors' code)"
NAMES = ["OTFLinUCB", NO_DELAY_TERM, "OTFLinTS", AUTHORS, UNIFORM]


def theta(d: int = DIM) -> np.ndarray:
    """θ = (1/√d, …, 1/√d) (Section 8)."""
    return np.full(d, 1.0 / np.sqrt(d))


def setting(m, mu, d=DIM) -> LinearConversions:
    """Section 8's instance: θ = (1/√d, …), K = 10 binary actions per round, geometric delays of mean
    ``mu``, window ``m``."""
    return LinearConversions(theta(d), Geometric(mu), n_actions=N_ACTIONS, window=m)


def policies(m, delta=DELTA, lam=LAM, authors=True, no_term=False) -> dict:
    """OTFLinUCB and OTFLinTS as printed, (``no_term``) Algorithm 1 without its delay term,
    (``authors``) the authors' code's index, and uniform random play."""
    out = {"OTFLinUCB": OTFLinUCB(window=m, delta=delta, lam=lam)}
    if no_term:
        out[NO_DELAY_TERM] = OTFLinUCB(window=m, delta=delta, lam=lam, variant="no-delay-term")
    out["OTFLinTS"] = OTFLinTS(window=m, delta=delta, lam=lam)
    if authors:
        out[AUTHORS] = OTFLinUCB(window=m, delta=delta, lam=lam, variant="authors-code")
    return with_uniform(out)


def _staged(progress, n):
    if progress is None:
        return [None] * n
    return [lambda f, i=i: progress((i + f) / n) for i in range(n)]


#: the last few figures (and watched runs, :func:`otf_choices`) computed, by their parameters: a
#: check cell that asks for what the notebook has just computed (same runs, seed and horizon) reads
#: it instead of computing it again
_DONE: dict = {}


def forget() -> None:
    """Forget the remembered figures (benchmarks time the computation itself)."""
    _DONE.clear()


def _remembered(key, compute, progress):
    if key in _DONE:
        if progress is not None:
            progress(1.0)
        return _DONE[key]
    out = compute()
    while len(_DONE) >= 4:
        _DONE.pop(next(iter(_DONE)))
    _DONE[key] = out
    return out


# ------------------------------------------------------------------------------- Figure 1
def figure1(runs=RUNS, seed=0, progress=None, horizon=HORIZON, authors=True):
    """{(m, μ): Result} for the three panels of Figure 1 (geometric delays): Algorithms 1 and 2 as
    printed, Algorithm 1 without its delay term, (``authors``) the authors' index, uniform play.

    The same arguments give the same (remembered) results: a run depends only on its parameters."""
    def compute():
        out = {}
        for (m, mu), prog in zip(FIG1_PANELS, _staged(progress, len(FIG1_PANELS))):
            out[(m, mu)] = sweep(setting(m, mu), policies(m, authors=authors, no_term=True), horizon, runs, seed,
                                 checkpoints=CHECKPOINTS, progress=prog)
        return out
    return _remembered(("figure1", runs, seed, horizon, authors), compute, progress)


def tau_m(m, mu) -> float:
    return float(Geometric(mu).cdf(m))


def late_slope(res, name, t0=2500) -> np.ndarray:
    """Per run, the regret's slope over the last steps, (R(T) − R(t0)) / (T − t0): how fast a curve
    still rises at the horizon."""
    T = int(res.times[-1])
    return (np.asarray(res.final(name), float) - np.asarray(res.at(name, t0), float)) / (T - t0)


def difference(a, b) -> tuple[float, float]:
    """mean(a) − mean(b) with its standard error, for runs of two different settings (unpaired)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(a.mean() - b.mean()), float(np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size))


def ratio(a, b) -> tuple[float, float]:
    """mean(a) / mean(b) with its standard error (delta method), for runs of two different settings
    (unpaired)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    r = float(a.mean() / b.mean())
    rel = np.sqrt(a.var(ddof=1) / a.size / a.mean() ** 2 + b.var(ddof=1) / b.size / b.mean() ** 2)
    return r, float(abs(r) * rel)


def paired_ratio(a, b) -> tuple[float, float]:
    """mean(a) / mean(b) with its standard error (delta method, with the covariance), for two
    quantities of the same runs (paired): e.g. the share of its slope a curve keeps."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    r = float(a.mean() / b.mean())
    cov = np.cov(a, b, ddof=1)
    return r, float(np.sqrt(max(0.0, cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1]) / a.size) / abs(b.mean()))


def paired(a, b) -> tuple[float, float]:
    """mean(a − b) with its standard error, for two quantities of the same runs (paired)."""
    x = np.asarray(a, float) - np.asarray(b, float)
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size))


def draw_figure1(results, plot: CurvePlot) -> None:
    for i, key in enumerate(FIG1_PANELS):
        plot.show_result(results[key], [n for n in NAMES if n in results[key].names], panel=i)


def _finals(res) -> str:
    names = [n for n in NAMES if n in res.names]
    return ", ".join(f"{n} {res.final(n).mean():.0f}" for n in names)


def _above_uniform(res) -> str:
    worse = [n for n in NAMES if n in res.names and n != UNIFORM
             and res.final(n).mean() > res.final(UNIFORM).mean()]
    return f" (above uniform random play: {', '.join(worse)})" if worse else ""


def summary_figure1(results) -> str:
    """The numbers of Figure 1: each panel's final regrets, Algorithm 1 against OTFLinTS, and the
    curves that end above uniform random play."""
    parts = []
    for (m, mu) in FIG1_PANELS:
        res = results[(m, mu)]
        ratio = res.final("OTFLinUCB").mean() / res.final("OTFLinTS").mean()
        parts.append(f"(m, μ) = ({m}, {mu}), τ_m = {tau_m(m, mu):.2f}: {_finals(res)}{_above_uniform(res)}; "
                     f"OTFLinUCB {ratio:.1f} times OTFLinTS")
    T = int(results[FIG1_PANELS[0]].times[-1])
    return f"regret at T = {T:,} — " + " · ".join(parts) + "."


def figure1_panel(runs=10, seed=0, horizon=HORIZON) -> FigureReproduction:
    titles = [f"m = {m}, μ = {mu} (τ_m = {tau_m(m, mu):.2f})" for m, mu in FIG1_PANELS]
    plot = CurvePlot(NAMES, panels=titles, cols=3, height=420)
    caption = ("Figure 1 of the paper: d = 5, K = 10, T = 3000, θ = (1/√5, …), geometric delays with mean μ, "
               "window m; δ = 0.1 and λ = 1 (not in the paper's text: the authors' scripts). Bands: 95% "
               "confidence band of the mean over runs. Solid blue/vermillion: Algorithms 1 and 2 as printed; "
               "dashed green: Algorithm 1 without its delay term (α = 2f, all else the same); dash-dot blue: "
               "OTFLinUCB with the index of the authors' public code (squared norms): with it OTFLinUCB ends "
               "below OTFLinTS (Algorithm 2 as printed), the paper's ordering; dashed grey: uniform random play.")
    return FigureReproduction(lambda r, p: figure1(r, seed, p, horizon), draw_figure1, plot, runs, RUNS, caption,
                              name="vernade2020-figure1", summary=summary_figure1)


# ------------------------------------------------------------------------------- Figure 3
def figure3(runs=RUNS, seed=0, progress=None, horizon=FIG3_HORIZON, width="exact", authors=True):
    """Figure 3: Criteo delays / 100, m = 2000, T = 10,000, with uniform random play (remembered
    like :func:`figure1`)."""
    def compute():
        law = criteo(FIG3_SCALE)
        env = LinearConversions(theta(), law, n_actions=N_ACTIONS, window=FIG3_WINDOW)
        pols = policies(FIG3_WINDOW, authors=authors)
        pols["OTFLinUCB"].width = width
        pols["OTFLinTS"].width = width
        return sweep(env, pols, horizon, runs, seed, checkpoints=CHECKPOINTS, progress=progress)
    return _remembered(("figure3", runs, seed, horizon, width, authors), compute, progress)


def draw_figure3(res, plot: CurvePlot) -> None:
    plot.show_result(res, [n for n in NAMES if n in res.names])


def summary_figure3(res) -> str:
    """The numbers of Figure 3: final regrets, and the curves that end above uniform random play."""
    return f"regret at T = {int(res.times[-1]):,}: {_finals(res)}{_above_uniform(res)}."


#: what Figure 3's caption says of the delay term, by ``width``: V_t⁻¹ is Algorithm 1 as printed but, for
#: OTFLinTS, Section 7's text (line 4 of Algorithm 2 writes V_s⁻¹, the stored norms)
_FIG3_TERM = {"exact": "in V_t⁻¹ (Algorithm 1 as printed; for OTFLinTS, Section 7's text)",
              "cheap": "with the stored norms in V_s⁻¹ (cheap; for OTFLinTS, line 4 of Algorithm 2 as printed)"}


def figure3_panel(runs=10, seed=0, horizon=FIG3_HORIZON, width="exact") -> FigureReproduction:
    """Figure 3's panel (Criteo delays rescaled, m = 2000): by default the fewest runs the notebook's checks
    need; its button reruns at ``RUNS``."""
    width = check_choice("width", width, WIDTHS)
    law = criteo(FIG3_SCALE)
    t_m = float(law.cdf(FIG3_WINDOW))
    plot = CurvePlot(NAMES, title=f"Figure 3: Criteo delays / 100, m = 2000 (τ_m = {t_m:.2f})", height=420)
    caption = (f"Figure 3 of the paper: heavy-tailed delays (Criteo, Diemert et al. 2017) rescaled by 0.01, so one "
               f"step is 100 s (the delays read as seconds: our reading); m = 2000, T = 10,000, other parameters "
               f"as in Figure 1; the delay term "
               f"{_FIG3_TERM[width]}. "
               f"Bands: 95% confidence band of the mean; dashed grey: uniform random play.")
    return FigureReproduction(lambda r, p: figure3(r, seed, p, horizon, width), draw_figure3, plot, runs, RUNS,
                              caption, name="vernade2020-figure3", summary=summary_figure3, full_scale=FULL_SCALE)


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
    """Figure 2 of the paper: the distribution of log₁₀ delays of the Criteo data (seconds: our reading).

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


# ------------------------------------------------------------------ why Algorithm 1 as printed explores
class _Watched(OTFLinUCB):
    """OTFLinUCB as printed (numpy path) that writes down, each round, what it played against what
    it was offered: :func:`otf_choices`. ``log`` is shared by its clones (the engine runs a clone)."""

    def __init__(self, window=None, delta=DELTA, lam=LAM, width="exact", variant="paper", log=None):
        super().__init__(window=window, delta=delta, lam=lam, width=width, variant=variant)
        self.log = log

    def choose(self, t, context=None):
        index = self.index(t, context)
        arms = super().choose(t, context)
        rows = np.arange(context.shape[0])
        truth = context @ self._theta
        width = weighted_norms(context, self.v_inv_)
        estimate = (context @ self.theta_hat()[:, :, None])[:, :, 0]
        self.log.append(np.stack([
            truth[rows, arms], truth.mean(axis=1), truth.max(axis=1),  # ⟨A_t, θ⟩; the offered actions' mean and best
            width[rows, arms] > np.median(width, axis=1),  # played a wider-than-median action
            arms == np.argmax(estimate, axis=1),  # played the action the estimate ranks first
            (index[rows, arms] - estimate[rows, arms]) / np.ptp(estimate, axis=1).clip(1e-12),  # its bonus / estimate spread
            self.delay_term(t, "exact"), self.delay_term(t, "cheap"),  # the delay term, both ways, on this run
        ]))
        return arms


class Choices(NamedTuple):
    """What OTFLinUCB played, per run (arrays of shape (runs,), averaged over the rounds watched),
    and its delay term computed both ways, round by round."""

    played: np.ndarray  #: mean ⟨A_t, θ⟩ of the actions played
    offered: np.ndarray  #: mean ⟨a, θ⟩ of the actions offered (what uniform random play gets on average)
    best: np.ndarray  #: mean of the round's best ⟨a, θ⟩ (regret = T·(best − played))
    wider: np.ndarray  #: share of rounds in which the action played is wider than the median, ‖a‖ in V_t⁻¹
    top_estimate: np.ndarray  #: share of rounds in which it is the action whose estimate ⟨a, θ̂⟩ is largest
    bonus_over_spread: np.ndarray  #: its bonus α‖a‖ over the spread of the estimates in the round (median)
    exact_term: np.ndarray  #: (T, runs) the delay term of step t, Σ_{s=t−m}^{t−1} ‖A_s‖ in V_t⁻¹ (what it used)
    cheap_term: np.ndarray  #: (T, runs) the same sum with the stored ‖A_s‖ in V_s⁻¹, on the same run


def otf_choices(m=100, mu=100, horizon=1000, runs=10, seed=0, d=DIM, variant="paper") -> Choices:
    """Run OTFLinUCB (``variant``) on the paper's instance (θ = (1/√d, …), binary action sets, K = 10,
    geometric delays of mean ``mu``, window ``m``) and say what it played, round by round: the
    same runs as ``simulate`` with the same arguments (a watched copy of the policy; remembered
    like :func:`figure1`)."""
    def compute():
        log: list = []
        env = setting(m, mu, d)

        class Watched(_Watched):
            def reset(self, problem):
                super().reset(problem)
                self._theta = np.asarray(env.theta, dtype=float)

        simulate(env, {"watched": Watched(window=m, variant=variant, log=log)}, horizon, runs, seed)
        rec = np.stack(log)  # (T, 8, B)
        return Choices(*rec[:, :5].mean(axis=0), np.median(rec[:, 5], axis=0), rec[:, 6], rec[:, 7])
    return _remembered(("otf_choices", m, mu, horizon, runs, seed, d, variant), compute, None)


def coverage(m=500, mu=100, horizon=HORIZON, runs=10, seed=0, every=10) -> np.ndarray:
    """Does the ellipse without the delay term hold τ_m·θ? Per run, the largest ratio
    ‖θ̂ᵂ_t − τ_m·θ‖_{V_t} / (2 f_{t,δ}) over the checkpoints t = every, 2·every, … of Algorithm 1
    without its delay term on Section 8's instance: below 1, the radius 2f_{t,δ} alone was enough
    (Theorem 1 adds the delay term for the worst case). Shape (runs,)."""
    res = simulate(setting(m, mu), {"x": OTFLinUCB(window=m, variant="no-delay-term")}, horizon, runs, seed,
                   checkpoints=np.arange(every, horizon + 1, every), trace=True)
    tr = res.traces["x"]
    err = tr["theta_hat"] - tau_m(m, mu) * theta()
    dist = np.sqrt(np.einsum("rti,rtij,rtj->rt", err, np.linalg.inv(tr["v_inv"]), err))
    return (dist / (2 * tr["f"])).max(axis=1)
