"""Manegueu, Vernade, Carpentier, Valko (2020), "Stochastic bandits with arm-dependent delays":
the parameters of the paper's figures, how to compute them, and how to draw them.

Section 8: two Bernoulli arms, uncensored conversions, arm i's delays Pareto with tail index α_i
(``dl.Pareto``: P(D > m) = (1 + m)^{−α_i}).

* Figure 2: regret at T = 3000 of Patient Bandits against its hyperparameter α̂ ∈ [0.02, 0.5]
  (25 values), μ = (0.5, 0.55), α = (1, 0.3), 400 runs — one vectorised batch over α̂.
* Figure 3: regret at T = 3000 against the gap Δ ∈ [0.02, 0.6] (30 values), μ = (0.4, 0.4 + Δ)
  (the caption's 0.5 + Δ would exceed 1), α_1 = 1, α_2 ∈ {0.2, 0.3, 0.4, 0.5, 0.8}, α̂ = α_2,
  400 runs — one vectorised batch over the 5 × 30 grid.
* Figures 4–5: regret over time of Patient Bandits (α̂ ∈ {0.1, 0.5}) and D-UCB (thresholds
  m ∈ {10, 50, 100, 200}), μ = (0.6, 0.8). Figure 4: α = (0.7, 0.7), D-UCB told the exact law;
  Figure 5: α = (1, 0.3), D-UCB told Pareto(0.7) for both arms. *Reconstructed*: the paper states
  neither the horizon nor the run count; we use T = 3000 (as Figures 2–3) and 100 runs.
* Figures 6–7: μ = (0.6, 0.8), arm 2 Pareto(0.3), arm 1 P(D > m) = 0.7(1 + m)^{−0.3}
  (``dl.ScaledPareto``); Adapt-Patient Bandits (α_low = 0.1, c = 0.7, μ_low = 0.6) against
  Patient Bandits with α̂ ∈ {0.1, 0.3, 0.6}; T = 10,000, 100 runs. Figure 7: the running α_t.
"""

from __future__ import annotations

import warnings

import numpy as np
import plotly.graph_objects as go

from ..sweep import sweep
from ..grid import grid
from ..laws import Pareto, ScaledPareto
from ..panels.reproduce import FigureReproduction
from ..policies.delayed import DelayedUCB
from ..policies.patient import AdaptPatientBandits, PatientBandits
from ..settings.bernoulli import Conversions
from ..viz.plots import CurvePlot, figure_layout
from ..viz.style import style, series
from ..viz.widget import FigureWidget

HORIZON = 3000
CHECKPOINTS = 300

# Figure 2
FIG2_MEANS = (0.5, 0.55)
FIG2_ALPHAS = (1.0, 0.3)
FIG2_ALPHA_HAT = np.round(np.linspace(0.02, 0.5, 25), 3)
# Figure 3
FIG3_BASE = 0.4
FIG3_GAPS = np.round(np.linspace(0.02, 0.6, 30), 3)
FIG3_ALPHA2 = (0.2, 0.3, 0.4, 0.5, 0.8)
# Figures 4-5
FIG45_MEANS = (0.6, 0.8)
FIG45_ALPHA_HAT = (0.1, 0.5)
FIG45_WINDOWS = (10, 50, 100, 200)
FIG45_RUNS = 100  # reconstructed
FIG45_NAMES = [f"Patient Bandits (α̂ = {a})" for a in FIG45_ALPHA_HAT] + [f"D-UCB (m = {m})" for m in FIG45_WINDOWS]
# Figures 6-7
FIG6_MEANS = (0.6, 0.8)
FIG6_ALPHA = 0.3
FIG6_C = 0.7
FIG6_HORIZON = 10_000
FIG6_ALPHA_HAT = (0.1, 0.3, 0.6)
FIG6_NAMES = ["Adapt-Patient Bandits"] + [f"Patient Bandits (α̂ = {a})" for a in FIG6_ALPHA_HAT]
#: the α_low = α variant of Figure 7 (not in the paper): d_t at the right scale, κ = 0
FIG7_ORACLE = "Adapt-Patient, α_low = 0.3, κ = 0 (not in the paper)"


def _staged(progress, n):
    """Split one progress bar over n successive simulations."""
    if progress is None:
        return [None] * n
    return [lambda f, i=i: progress((i + f) / n) for i in range(n)]


def pareto_arms(alphas):
    """One Pareto law per arm: P(D_i > m) = (1 + m)^{−α_i}."""
    return [Pareto(a) for a in alphas]


def section83_laws(alpha=FIG6_ALPHA, c=FIG6_C):
    """Section 8.3: arm 1 P(D > m) = c(1 + m)^{−α}, arm 2 Pareto(α)."""
    return [ScaledPareto(alpha, c), Pareto(alpha)]


# ------------------------------------------------------------------------- orders of the bounds
def worst_case_order(T, alpha, K=2):
    """max(sqrt(KT), K^{α∧1/2} T^{1−α∧1/2}): the order of Theorem 3 without logarithms."""
    a = min(alpha, 0.5)
    T = np.asarray(T, dtype=float)
    return np.maximum(np.sqrt(K * T), K**a * T ** (1 - a))


def lower_bound_order(T, alpha):
    """T^{1−α}/8: Theorem 4, the worst case of any algorithm over instances satisfying
    Assumption 1 with this α (K = 2)."""
    return np.asarray(T, dtype=float) ** (1 - alpha) / 8


def orders_figure(alphas=(0.1, 0.2, 0.3, 0.5, 0.8), T_max=10**6):
    """Theorems 3–4 on log–log axes: the worst-case regret grows like T^{1−α} when α < 1/2."""
    T = np.logspace(1, np.log10(T_max), 120)
    fig = go.Figure()
    for i, a in enumerate(alphas):
        st = series(i)
        fig.add_trace(go.Scatter(x=T, y=lower_bound_order(T, a), mode="lines", name=f"T^(1−α)/8, α = {a}",
                                 line=dict(color=st["color"], width=2)))
    fig.add_trace(go.Scatter(x=T, y=np.sqrt(2 * T), mode="lines", name="√(KT): bandits without delays",
                             line=dict(color="#000000", dash="dot", width=2)))
    fig.update_xaxes(type="log", title_text="horizon T")
    fig.update_yaxes(type="log", title_text="worst-case regret (order)")
    figure_layout(fig, 380, "Theorem 4: no algorithm beats T^(1−α)/8 on every instance (K = 2)")
    return FigureWidget(fig)


# ------------------------------------------------------------------------- Assumption 1
def tail_figure(laws, alpha_bound, names=None, m_max=10**6):
    """P(D_i > m) of each arm on log–log axes, with the bound m^{−α} of Assumption 1."""
    names = names or [f"arm {i + 1}: {law.label}" for i, law in enumerate(laws)]
    m = np.unique(np.logspace(0, np.log10(m_max), 200).astype(np.int64))
    fig = go.Figure()
    for i, (law, name) in enumerate(zip(laws, names)):
        st = style(f"arm {i + 1}")
        fig.add_trace(go.Scatter(x=m, y=law.sf(m), mode="lines", name=name,
                                 line=dict(color=st["color"], width=2.5)))
    fig.add_trace(go.Scatter(x=m, y=m.astype(float) ** -alpha_bound, mode="lines",
                             name=f"bound m^(−α), α = {alpha_bound}",
                             line=dict(color="#000000", dash="longdash", width=1.5)))
    fig.update_xaxes(type="log", title_text="m (steps)")
    fig.update_yaxes(type="log", title_text="P(D > m)")
    figure_layout(fig, 380, "Assumption 1: every arm's tail lies below m^(−α)")
    return FigureWidget(fig)


# ------------------------------------------------------------------------- the bias of μ̂
class _RoundRobinPatient(PatientBandits):
    """Patient Bandits' estimator μ̂ watched under round-robin play (non-adaptive)."""

    def choose(self, t, context=None):
        return np.full(self.problem_.size, t % self.problem_.n_arms, dtype=np.int64)


def expected_observed_mean(means, laws, times):
    """E μ̂_i(t) under round robin: μ_i · mean over arm i's pulls s ≤ t − 1 of τ_i(t − 1 − s),
    shape (len(times), K) — exact, from the delay laws (a pull at s is seen by the end of step
    t − 1 iff D_s ≤ t − 1 − s)."""
    K = len(means)
    out = np.empty((len(times), K))
    for j, t in enumerate(times):
        for i in range(K):
            s = np.arange(i, t, K)
            out[j, i] = means[i] * laws[i].cdf(t - 1 - s).mean()
    return out


def looks_worse_until(means=FIG45_MEANS, alphas=(1.0, 0.3), horizon=3000) -> int:
    """The last step t ≤ ``horizon`` at which, under round robin, the better arm's expected
    observed mean is below the other's (0 if never): exact, from :func:`expected_observed_mean`."""
    t = np.arange(len(means), horizon + 1)
    exp = expected_observed_mean(means, pareto_arms(alphas), t)
    best = int(np.argmax(means))
    worse = t[exp[:, best] < np.delete(exp, best, axis=1).max(axis=1)]
    return int(worse.max()) if worse.size else 0


def bias_study(means=FIG45_MEANS, alphas=(1.0, 0.3), horizon=3000, runs=200, seed=0):
    """μ̂_i(t) (conversions seen / pulls) under round robin against μ_i, with its exact expectation."""
    laws = pareto_arms(alphas)
    # sweep: simulate's result, array for array, from the dashboards' on-disk cache when they set one
    res = sweep(Conversions(means, delays=laws), {"rr": _RoundRobinPatient(0.5)}, horizon, runs, seed,
                checkpoints=100, trace=True)
    return {"t": res.times, "observed": res.traces["rr"]["mean"], "means": np.asarray(means),
            "expected": expected_observed_mean(means, laws, res.times), "laws": laws, "alphas": alphas}


def bias_figure(study):
    """Mean over runs of μ̂_i(t) (solid), its exact expectation (dashed), μ_i (dotted)."""
    fig = go.Figure()
    t = study["t"]
    for i, mu in enumerate(study["means"]):
        c = style(f"arm {i + 1}")["color"]
        v = study["observed"][:, :, i]
        m, se = v.mean(0), v.std(0, ddof=1) / np.sqrt(v.shape[0])
        fig.add_trace(go.Scatter(x=np.r_[t, t[::-1]], y=np.r_[m + 1.96 * se, (m - 1.96 * se)[::-1]], fill="toself",
                                 line=dict(width=0), fillcolor="rgba(0,0,0,0.08)", hoverinfo="skip", showlegend=False))
        fig.add_trace(go.Scatter(x=t, y=m, mode="lines", line=dict(color=c, width=2.4),
                                 name=f"arm {i + 1} (α = {study['alphas'][i]}): observed μ̂"))
        fig.add_trace(go.Scatter(x=t, y=study["expected"][:, i], mode="lines", line=dict(color=c, dash="dash", width=1.5),
                                 name=f"arm {i + 1}: E μ̂ (exact)"))
        fig.add_trace(go.Scatter(x=[t[0], t[-1]], y=[mu, mu], mode="lines", line=dict(color=c, dash="dot", width=1.5),
                                 name=f"arm {i + 1}: true μ = {mu}"))
    figure_layout(fig, 420, "Round-robin pulls: the observed mean of the better arm looks worse",
                  xaxis_title="step t", yaxis_title="mean over runs")
    return FigureWidget(fig)


# ------------------------------------------------------------------------- Figure 2
def figure2(runs=400, seed=0, progress=None, horizon=HORIZON, alpha_hat=FIG2_ALPHA_HAT):
    """Figure 2 as one batch over α̂: Result with regret (25, runs, n)."""
    g = grid(alpha_hat=alpha_hat)
    env = Conversions(FIG2_MEANS, delays=pareto_arms(FIG2_ALPHAS))
    return sweep(env, {"Patient Bandits": PatientBandits(alpha=g.alpha_hat)}, horizon, runs, seed,
                    checkpoints=[horizon], progress=progress, grid=g)


def u_shape(res):
    """(α̂ values, mean final regret, standard error of the paired difference to the minimum)."""
    final = res.final("Patient Bandits")  # (25, R)
    mean = final.mean(axis=1)
    k = int(np.argmin(mean))
    d = final - final[k]
    se = d.std(axis=1, ddof=1) / np.sqrt(final.shape[1])
    return mean, k, se


def draw_figure2(res, plot: CurvePlot) -> None:
    x = FIG2_ALPHA_HAT[: res.final("Patient Bandits").shape[0]]
    lo, hi = res.band("Patient Bandits")
    plot.set("Patient Bandits", x, res.mean("Patient Bandits")[:, -1], lo[:, -1], hi[:, -1])
    top = float(hi.max())
    plot.set("α₂ = 0.3 (the heavier tail)", [0.3, 0.3], [float(lo.min()), top])


def summary_figure2(res) -> str:
    """The numbers of Figure 2: the ends and the bottom of the U, in paired standard errors."""
    mean, k, se = u_shape(res)
    return (f"regret at T = {int(res.times[-1]):,}: {mean[0]:.1f} at α̂ = {FIG2_ALPHA_HAT[0]}, a minimum of "
            f"{mean[k]:.1f} at α̂ = {FIG2_ALPHA_HAT[k]}, {mean[-1]:.1f} at α̂ = {FIG2_ALPHA_HAT[-1]}; the two ends lie "
            f"{(mean[0] - mean[k]) / se[0]:.1f} and {(mean[-1] - mean[k]) / se[-1]:.1f} standard errors of the paired "
            f"difference above the minimum; the whole U spans {mean.max() - mean.min():.1f} "
            f"({(mean.max() - mean.min()) / mean.min():.1%} of the minimum).")


def figure2_panel(runs=100, seed=0) -> FigureReproduction:
    plot = CurvePlot(["Patient Bandits"], extra=["α₂ = 0.3 (the heavier tail)"], xaxis="hyperparameter α̂",
                     yaxis="regret at T = 3000",
                     title="Figure 2: μ = (0.5, 0.55), α = (1, 0.3), T = 3000")
    caption = ("One batch of 25 values of α̂ × runs, all on the same draws (common random numbers). Band: 95% "
               "confidence band of the mean.")
    return FigureReproduction(lambda r, p: figure2(r, seed, p), draw_figure2, plot, runs, 400, caption,
                              name="manegueu2020-figure2", summary=summary_figure2)


# ------------------------------------------------------------------------- Figure 3
FIG3_NAMES = [f"α₂ = {a}" for a in FIG3_ALPHA2]


def figure3(runs=400, seed=0, progress=None, horizon=HORIZON, gaps=FIG3_GAPS, alpha2=FIG3_ALPHA2):
    """Figure 3 as one batch over the (α_2, Δ) grid: regret (5, 30, runs, n)."""
    g = grid(alpha2=alpha2, gap=gaps)
    means = np.stack([np.full(g.size, FIG3_BASE), FIG3_BASE + g.gap], axis=1)
    env = Conversions(means, delays=[Pareto(1.0), Pareto(g.alpha2)])
    return sweep(env, {"Patient Bandits": PatientBandits(alpha=g.alpha2)}, horizon, runs, seed,
                    checkpoints=[horizon], progress=progress, grid=g)


def draw_figure3(res, plot: CurvePlot) -> None:
    lo, hi = res.band("Patient Bandits")
    mean = res.mean("Patient Bandits")
    for i, name in enumerate(FIG3_NAMES):
        plot.set(name, FIG3_GAPS, mean[i, :, -1], lo[i, :, -1], hi[i, :, -1])


def summary_figure3(res) -> str:
    """The numbers of Figure 3: the peak regret over Δ for each α₂, and where it is."""
    peak = res.final("Patient Bandits").mean(axis=-1)  # (α₂, Δ)
    parts = [f"α₂ = {a}: {peak[i].max():.0f} at Δ = {FIG3_GAPS[int(np.argmax(peak[i]))]}"
             for i, a in enumerate(FIG3_ALPHA2)]
    return "the peak regret over Δ at T = 3,000 — " + "; ".join(parts) + "."


def figure3_panel(runs=40, seed=0) -> FigureReproduction:
    plot = CurvePlot(FIG3_NAMES, xaxis="gap Δ", yaxis="regret at T = 3000",
                     title="Figure 3: μ = (0.4, 0.4 + Δ), α₁ = 1, Patient Bandits with α̂ = α₂")
    caption = ("One batch over the 5 × 30 grid of (α₂, Δ). Band: 95% confidence band of the mean. The arm "
               "means are (0.4, 0.4 + Δ): the caption's 0.5 + Δ would exceed 1 for Δ > 0.5.")
    return FigureReproduction(lambda r, p: figure3(r, seed, p), draw_figure3, plot, runs, 400, caption,
                              name="manegueu2020-figure3", summary=summary_figure3)


# ------------------------------------------------------------------------- Figures 4-5
def figure45(alphas, assumed, runs=FIG45_RUNS, seed=0, progress=None, horizon=HORIZON):
    """Patient Bandits (α̂ = 0.1, 0.5) and D-UCB (m = 10 … 200, told ``assumed``), μ = (0.6, 0.8)."""
    env = Conversions(FIG45_MEANS, delays=pareto_arms(alphas))
    pols = {f"Patient Bandits (α̂ = {a})": PatientBandits(a) for a in FIG45_ALPHA_HAT}
    pols.update({f"D-UCB (m = {m})": DelayedUCB(assumed, window=m) for m in FIG45_WINDOWS})
    return sweep(env, pols, horizon, runs, seed, checkpoints=CHECKPOINTS, progress=progress)


def figure4(runs=FIG45_RUNS, seed=0, progress=None, horizon=HORIZON):
    """Figure 4: α = (0.7, 0.7), D-UCB told the exact law Pareto(0.7)."""
    return figure45((0.7, 0.7), Pareto(0.7), runs, seed, progress, horizon)


def figure5(runs=FIG45_RUNS, seed=0, progress=None, horizon=HORIZON):
    """Figure 5: α = (1, 0.3), D-UCB told Pareto(0.7) for both arms (wrong for both)."""
    return figure45((1.0, 0.3), Pareto(0.7), runs, seed, progress, horizon)


def draw_figure45(res, plot: CurvePlot) -> None:
    plot.show_result(res, FIG45_NAMES)


def summary_figure45(res) -> str:
    """The numbers of Figures 4–5: each policy's final regret and its slope over the second half."""
    parts = [f"{n} {res.final(n).mean():.0f} ({slopes(res, n).mean():.3f} per step late)" for n in FIG45_NAMES]
    return f"regret at T = {int(res.times[-1]):,} (and its growth per step over the second half) — " + "; ".join(parts) + "."


def figure4_panel(runs=30, seed=0) -> FigureReproduction:
    plot = CurvePlot(FIG45_NAMES, title="Figure 4: μ = (0.6, 0.8), α = (0.7, 0.7): one delay law for both arms")
    caption = ("D-UCB is told the exact law Pareto(0.7) and ignores conversions later than its threshold m. "
               "Horizon and run count are not given in the paper (reconstructed: T = 3000, 100 runs). "
               "Band: 95% confidence band of the mean.")
    return FigureReproduction(lambda r, p: figure4(r, seed, p), draw_figure45, plot, runs, FIG45_RUNS, caption,
                              name="manegueu2020-figure4", summary=summary_figure45)


def figure5_panel(runs=30, seed=0) -> FigureReproduction:
    plot = CurvePlot(FIG45_NAMES, title="Figure 5: μ = (0.6, 0.8), α = (1, 0.3): the better arm has the heavier tail")
    caption = ("D-UCB is told Pareto(0.7) for both arms (the truth: α = 1 and 0.3). Horizon and run count are "
               "not given in the paper (reconstructed: T = 3000, 100 runs). Band: 95% confidence band of the mean.")
    return FigureReproduction(lambda r, p: figure5(r, seed, p), draw_figure45, plot, runs, FIG45_RUNS, caption,
                              name="manegueu2020-figure5", summary=summary_figure45)


def slopes(res, name, frac=0.5):
    """Mean regret per step over the last ``frac`` of the horizon, per run (R,)."""
    t = res.times
    k = int(np.searchsorted(t, (1 - frac) * t[-1]))
    r = res.regret[name]
    return (r[:, -1] - r[:, k]) / (t[-1] - t[k])


# ------------------------------------------------------------------------- Figures 6-7
_FIG6: dict = {}


def figure6(runs=100, seed=0, progress=None, horizon=FIG6_HORIZON):
    """Figures 6–7: Adapt-Patient (α_low = 0.1, c = 0.7, μ_low = 0.6) vs Patient (α̂ = 0.1, 0.3,
    0.6) on the Section 8.3 instance; traces of α_t (``res.traces[name]["alpha"]``) recorded.
    Also the variant of Adapt-Patient with α_low = α = 0.3 and κ = 0 (:data:`FIG7_ORACLE`)."""
    key = (runs, seed, horizon)
    if key in _FIG6:  # Figures 6 and 7 come from the same simulation
        if progress is not None:
            progress(1.0)
        return _FIG6[key]
    env = Conversions(FIG6_MEANS, delays=section83_laws())
    pols = {"Adapt-Patient Bandits": AdaptPatientBandits(c=FIG6_C, alpha_low=0.1, mu_low=0.6)}
    pols.update({f"Patient Bandits (α̂ = {a})": PatientBandits(a) for a in FIG6_ALPHA_HAT})
    pols[FIG7_ORACLE] = AdaptPatientBandits(c=FIG6_C, alpha_low=FIG6_ALPHA, mu_low=0.6, confidence=0.0)
    res = sweep(env, pols, horizon, runs, seed, checkpoints=CHECKPOINTS, trace=True, progress=progress)
    _FIG6.clear()
    _FIG6[key] = res
    return res


def draw_figure6(res, plot: CurvePlot) -> None:
    plot.show_result(res, FIG6_NAMES)


def summary_figure6(res) -> str:
    """The numbers of Figure 6: each policy's final regret."""
    return (f"regret at T = {int(res.times[-1]):,} — "
            + "; ".join(f"{n} {res.final(n).mean():.0f}" for n in FIG6_NAMES) + ".")


def summary_figure7(res) -> str:
    """The numbers of Figure 7: the estimates of α at the horizon."""
    tr = res.traces
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        used = float(np.nanmean(tr["Adapt-Patient Bandits"]["alpha"][:, -1]))
        raw = float(np.nanmean(tr["Adapt-Patient Bandits"]["alpha_hat"][:, -1]))
        oracle = float(np.nanmean(tr[FIG7_ORACLE]["alpha_hat"][:, -1]))
    return (f"at T = {int(res.times[-1]):,}, mean over runs: α_t = {used:.3f} (used in the index), α̂_t = {raw:.3f} "
            f"(before the confidence term); with d_t at the right scale, α̂_t = {oracle:.3f} (true α = {FIG6_ALPHA}).")


def figure6_panel(runs=20, seed=0) -> FigureReproduction:
    plot = CurvePlot(FIG6_NAMES, title="Figure 6: μ = (0.6, 0.8), Section 8.3 delays (α = 0.3, c = 0.7)")
    caption = ("Adapt-Patient Bandits with (α_low = 0.1, c = 0.7, μ_low = 0.6) as printed, against Patient Bandits "
               "with three values of α̂. T = 10,000. Band: 95% confidence band of the mean.")
    return FigureReproduction(lambda r, p: figure6(r, seed, p), draw_figure6, plot, runs, 100, caption,
                              name="manegueu2020-figure6", summary=summary_figure6)


FIG7_NAMES = ["α_t (used in the UCB)", "α̂_t (before the confidence term)", FIG7_ORACLE]


def alpha_curves(res):
    """{curve name: (mean, lo, hi)} over runs of the running α estimates (NaN while undefined)."""
    out = {}
    for name, (pol, field) in {FIG7_NAMES[0]: ("Adapt-Patient Bandits", "alpha"),
                               FIG7_NAMES[1]: ("Adapt-Patient Bandits", "alpha_hat"),
                               FIG7_NAMES[2]: (FIG7_ORACLE, "alpha_hat")}.items():
        v = res.traces[pol][field]  # (R, n)
        n = np.sum(~np.isnan(v), axis=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # columns where every run is NaN
            m = np.nanmean(v, axis=0)
            se = np.nanstd(v, axis=0) / np.sqrt(np.maximum(n, 1))
        out[name] = (m, m - 1.96 * se, m + 1.96 * se)
    return out


def draw_figure7(res, plot: CurvePlot) -> None:
    t = res.times
    for name, (m, lo, hi) in alpha_curves(res).items():
        ok = np.isfinite(m)
        plot.set(name, t[ok], m[ok], lo[ok], hi[ok])
    plot.set("true α = 0.3", [t[0], t[-1]], [FIG6_ALPHA, FIG6_ALPHA])


def figure7_panel(runs=20, seed=0) -> FigureReproduction:
    plot = CurvePlot(FIG7_NAMES, extra=["true α = 0.3"], yaxis="estimate of α (mean over runs)",
                     title="Figure 7: the running estimate of α (Section 8.3 instance)")
    caption = ("α_t is what Adapt-Patient uses; α̂_t is the estimate before the confidence term is subtracted; the "
               "third curve is α̂_t when d_t = ⌊(c/2)^{1/α} D_t⌋ uses the true α = 0.3 (not in the paper).")
    return FigureReproduction(lambda r, p: figure6(r, seed, p), draw_figure7, plot, runs, 100, caption,
                              name="manegueu2020-figure7", summary=summary_figure7)
