"""Vernade, Cappé, Perchet (2017), "Stochastic bandit models for delayed conversions":
the parameters of the paper's figures, how to compute them, and how to draw them.

Section 7: T = 10,000, geometric delays with mean μ = 500, window m = 1000,
θ_H = (0.5, 0.4, 0.3) and θ_L = (0.1, 0.05, 0.03).

* Figure 1: D-UCB and D-KLUCB (censored), UD-UCB and UD-KLUCB (uncensored), on θ_H and θ_L,
  100 runs.
* Figure 2: D-UCB and D-KLUCB against the Discarding baselines, θ_L, censored, 200 runs.
* Figure 3 (Appendix D): D-KLUCB with the delay law known or estimated online, 100 runs. The
  paper does not say which instance; we use θ_L with μ = 500, m = 1000 (the other figures'),
  and γ = 1 for the stochastic approximation of μ (the appendix allows 1/2 ≤ γ ≤ 1).

The figure functions run through :func:`delaylab.sweep`, so ``cache=`` (a folder, or True for the
default one) keeps their results on disk; the button of a ``*_panel`` figure reruns it at the
paper's scale with the cache on (:class:`~delaylab.panels.reproduce.FigureReproduction`), so it is
instant the second time.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .. import bounds
from ..laws import Geometric
from ..panels.reproduce import FigureReproduction
from ..policies.delayed import DelayedKLUCB, DelayedUCB
from ..policies.discarding import DiscardingKLUCB, DiscardingUCB
from ..policies.estimated import OnlineCDF, OnlineGeometric
from ..settings.bernoulli import Conversions
from ..sweep import sweep
from ..viz.plots import CurvePlot, figure_layout
from ..viz.widget import FigureWidget

THETA_H = (0.5, 0.4, 0.3)
THETA_L = (0.1, 0.05, 0.03)
HORIZON = 10_000
MEAN_DELAY = 500
WINDOW = 1000
CHECKPOINTS = 400  # recorded times per curve (plenty for a plot)


def _staged(progress, n):
    """Split one progress bar over n successive simulations."""
    if progress is None:
        return [None] * n
    return [lambda f, i=i: progress((i + f) / n) for i in range(n)]


def lower_bound(theta, window, mean_delay=MEAN_DELAY) -> float:
    """Slope per log T of Theorem 3 (censored) or Theorem 4 (uncensored), pseudo-regret."""
    if window is None:
        return bounds.lai_robbins_slope(theta)
    return bounds.censored_slope(theta, Geometric(mean_delay).cdf(window))


def lower_bound_table(theta=THETA_L, windows=(250, 500, 1000, 2000, 5000, None), mean_delay=MEAN_DELAY) -> str:
    """τ_m and the slope c of the lower bound c·log T for each window (None: uncensored), as text."""
    law = Geometric(mean_delay)
    rows = ["window m   " + "".join(f"{'none' if m is None else m:>9}" for m in windows),
            "τ_m        " + "".join(f"{1.0 if m is None else float(law.cdf(m)):>9.3f}" for m in windows),
            "slope c    " + "".join(f"{lower_bound(theta, m, mean_delay):>9.1f}" for m in windows)]
    return "\n".join(rows)


# ------------------------------------------------------------------------------- Figure 1
FIG1_PANELS = [("θ_H", THETA_H, WINDOW), ("θ_H", THETA_H, None), ("θ_L", THETA_L, WINDOW), ("θ_L", THETA_L, None)]


def figure1(runs=100, seed=0, progress=None, horizon=HORIZON, cache=None):
    """The four panels of Figure 1: {(θ name, window): Result} with UCB and KL-UCB variants.

    ``cache``: see :func:`delaylab.sweep` (None: computed afresh)."""
    law = Geometric(MEAN_DELAY)
    out = {}
    for (name, theta, m), prog in zip(FIG1_PANELS, _staged(progress, len(FIG1_PANELS))):
        env = Conversions(theta, law, window=m)
        pols = {"UCB": DelayedUCB(law, m), "KLUCB": DelayedKLUCB(law, m)}
        out[(name, m)] = sweep(env, pols, horizon, runs, seed, checkpoints=CHECKPOINTS, progress=prog,
                               cache=cache)
    return out


def _panel_title(name, m):
    return f"{name} = {dict(θ_H=THETA_H, θ_L=THETA_L)[name]}, " + ("censored, m = 1000" if m else "uncensored")


def draw_figure1(results, plot: CurvePlot) -> None:
    for i, (name, theta, m) in enumerate(FIG1_PANELS):
        res = results[(name, m)]
        prefix = "D-" if m is not None else "UD-"
        for short in ("UCB", "KLUCB"):
            lo, hi = res.band(short)
            plot.set(prefix + short, res.times, res.mean(short), lo, hi, panel=i)
        for other in ("D-", "UD-"):
            if other != prefix:
                plot.hide(other + "UCB", i)
                plot.hide(other + "KLUCB", i)
        t = res.times.astype(float)
        plot.set("asymptotic lower bound (Theorems 3–4)", t, lower_bound(theta, m) * np.log(t), panel=i)


def summary_figure1(results) -> str:
    """The numbers of Figure 1: each panel's final regrets, and how far KL-UCB ends below UCB on θ_L."""
    parts = []
    for name, _, m in FIG1_PANELS:
        res, pre = results[(name, m)], "D-" if m is not None else "UD-"
        parts.append(f"{_panel_title(name, m)}: {pre}UCB {res.final('UCB').mean():.1f}, "
                     f"{pre}KLUCB {res.final('KLUCB').mean():.1f}")
    z = [float(np.divide(*results[("θ_L", m)].paired("KLUCB", "UCB"))) for m in (WINDOW, None)]
    T = int(results[FIG1_PANELS[0][0], FIG1_PANELS[0][2]].times[-1])
    return (f"regret at T = {T:,} — " + "; ".join(parts) + f". On θ_L, KL-UCB ends below UCB by {z[0]:.0f} "
            f"(censored) and {z[1]:.0f} (uncensored) standard errors of the paired difference.")


def figure1_panel(runs=20, seed=0) -> FigureReproduction:
    plot = CurvePlot(["D-UCB", "D-KLUCB", "UD-UCB", "UD-KLUCB"], panels=[_panel_title(n, m) for n, _, m in FIG1_PANELS],
                     extra=["asymptotic lower bound (Theorems 3–4)"])
    caption = ("Figure 1 of the paper: T = 10,000, geometric delays with μ = 500, window m = 1000 "
               "(censored panels). Bands: 95% confidence band of the mean over runs. The dashed black "
               "curve is c·log t with the asymptotic slope c of Theorem 3 (censored) or 4 (uncensored).")
    return FigureReproduction(lambda r, p: figure1(r, seed, p), draw_figure1, plot, runs, 100, caption,
                              name="vernade2017-figure1", summary=summary_figure1)


# ------------------------------------------------------------------------------- Figure 2
FIG2_NAMES = ["D-UCB", "D-KLUCB", "Discarding UCB", "Discarding KL-UCB"]


def figure2(runs=200, seed=0, progress=None, horizon=HORIZON, cache=None):
    """Figure 2: D-UCB, D-KLUCB and the Discarding baselines on θ_L, censored (μ = 500, m = 1000)."""
    law = Geometric(MEAN_DELAY)
    env = Conversions(THETA_L, law, window=WINDOW)
    pols = {"D-UCB": DelayedUCB(law, WINDOW), "D-KLUCB": DelayedKLUCB(law, WINDOW),
            "Discarding UCB": DiscardingUCB(law, WINDOW), "Discarding KL-UCB": DiscardingKLUCB(law, WINDOW)}
    return sweep(env, pols, horizon, runs, seed, checkpoints=CHECKPOINTS, progress=progress, cache=cache)


def draw_figure2(res, plot: CurvePlot) -> None:
    plot.show_result(res, FIG2_NAMES)


def round_robin_cost(theta=THETA_L) -> float:
    """Regret per step of round robin: the mean gap of the arms."""
    theta = np.asarray(theta, dtype=float)
    return float(np.mean(theta.max() - theta))


def summary_figure2(res) -> str:
    """The numbers of Figure 2: final regrets, and Discarding's round-robin phase."""
    T = int(res.times[-1])
    k = int(np.argmin(np.abs(res.times - WINDOW)))
    finals = ", ".join(f"{n} {res.final(n).mean():.1f}" for n in FIG2_NAMES)
    z = [float(np.divide(*res.paired(a, b))) for a, b in [("D-KLUCB", "Discarding KL-UCB"), ("D-UCB", "Discarding UCB")]]
    return (f"regret at T = {T:,}: {finals}. Discarding KL-UCB's regret at t = {int(res.times[k]):,} is "
            f"{res.mean('Discarding KL-UCB')[k]:.1f} in every run alike ({round_robin_cost():.2f} per step of round "
            f"robin). The delay-corrected policies end below their Discarding counterparts by {z[0]:.0f} (KL-UCB) "
            f"and {z[1]:.0f} (UCB) standard errors of the paired difference.")


def figure2_panel(runs=40, seed=0) -> FigureReproduction:
    plot = CurvePlot(FIG2_NAMES, title="Figure 2: delay-corrected policies against Discarding "
                     "(θ_L, μ = 500, m = 1000)")
    caption = ("Discarding policies only use pulls at least m = 1000 steps old: before that they play "
               f"round robin, hence a linear regret of (0 + 0.05 + 0.07)/3 = {round_robin_cost():.2f} per step, then "
               "they catch up slowly. Bands: 95% confidence band of the mean.")
    return FigureReproduction(lambda r, p: figure2(r, seed, p), draw_figure2, plot, runs, 200, caption,
                              name="vernade2017-figure2", summary=summary_figure2)


# ------------------------------------------------------------------------------- Figure 3
FIG3_NAMES = ["D-KLUCB", "D-KLUCB (estimated CDF)", "UD-KLUCB", "UD-KLUCB (estimated geometric law)"]


def figure3(runs=100, seed=0, progress=None, horizon=HORIZON, cache=None):
    """Appendix D, Figure 3: D-KLUCB knowing the law or estimating it online, θ_L, μ = 500."""
    law = Geometric(MEAN_DELAY)
    p1, p2 = _staged(progress, 2)
    censored = sweep(Conversions(THETA_L, law, window=WINDOW),
                     {"D-KLUCB": DelayedKLUCB(law, WINDOW),
                      "D-KLUCB (estimated CDF)": DelayedKLUCB(OnlineCDF(), WINDOW)},
                     horizon, runs, seed, checkpoints=CHECKPOINTS, progress=p1, cache=cache)
    uncensored = sweep(Conversions(THETA_L, law),
                       {"UD-KLUCB": DelayedKLUCB(law, None),
                        "UD-KLUCB (estimated geometric law)": DelayedKLUCB(OnlineGeometric(gamma=1.0), None)},
                       horizon, runs, seed, checkpoints=CHECKPOINTS, progress=p2, cache=cache)
    return {"censored": censored, "uncensored": uncensored}


def draw_figure3(results, plot: CurvePlot) -> None:
    for i, key in enumerate(["censored", "uncensored"]):
        res = results[key]
        plot.show_result(res, [n for n in FIG3_NAMES if n in res.names], panel=i)


def summary_figure3(results) -> str:
    """The numbers of Figure 3: known against estimated law, censored and uncensored."""
    parts = []
    for key, known, est in [("censored", "D-KLUCB", "D-KLUCB (estimated CDF)"),
                            ("uncensored", "UD-KLUCB", "UD-KLUCB (estimated geometric law)")]:
        res = results[key]
        a, b = res.final(known).mean(), res.final(est).mean()
        parts.append(f"{key}: known law {a:.1f}, estimated {b:.1f} ({b / a:.2f} times)")
    return f"regret at T = {int(results['censored'].times[-1]):,} — " + "; ".join(parts) + "."


def figure3_panel(runs=20, seed=0) -> FigureReproduction:
    plot = CurvePlot(FIG3_NAMES, panels=["censored, m = 1000", "uncensored"])
    caption = ("Appendix D: the delay law estimated online — in the censored model by the empirical CDF "
               "of the observed delays (which estimates τ_d/τ_m), in the uncensored model by a running "
               "mean of the observed delays plugged into the geometric recursion of Eq. (6). Instance "
               "(not given in the paper): θ_L, μ = 500, m = 1000, γ = 1.")
    return FigureReproduction(lambda r, p: figure3(r, seed, p), draw_figure3, plot, runs, 100, caption,
                              name="vernade2017-figure3", summary=summary_figure3)


# ------------------------------------------------------------------------------- teaching
def timeline_figure(theta=0.3, mean_delay=8.0, window=12, now=30, seed=3):
    """One arm pulled at every step s < now: when does each conversion show up?

    Green: conversions already seen at ``now``; grey: conversions still on their way (the learner
    cannot tell them from zeros); red: conversions later than the window, never seen; hollow
    circles: zeros, never seen either.
    """
    rng = np.random.default_rng(seed)
    converted = rng.random(now) < theta
    delays = Geometric(mean_delay).ppf(rng.random(now))
    s = np.arange(now)
    arrival = s + delays
    seen = converted & (delays <= window) & (arrival <= now - 1)
    pending = converted & (delays <= window) & (arrival > now - 1)
    lost = converted & (delays > window)

    def segments(mask):
        xs, ys = [], []
        for i in np.flatnonzero(mask):
            xs += [s[i], min(arrival[i], s[i] + window + 3), None]
            ys += [s[i], s[i], None]
        return xs, ys

    fig = go.Figure()
    for mask, name, color, dash in [(seen, "conversion, already seen", "#009E73", "solid"),
                                    (pending, "conversion on its way (looks like a zero)", "#7F7F7F", "dot"),
                                    (lost, "conversion after the window: never seen", "#D55E00", "dash")]:
        x, y = segments(mask)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=name, line=dict(color=color, dash=dash, width=3)))
        fig.add_trace(go.Scatter(x=np.minimum(arrival[mask], s[mask] + window + 3), y=s[mask], mode="markers",
                                 marker=dict(color=color, size=8, symbol="diamond"), showlegend=False))
    fig.add_trace(go.Scatter(x=s[~converted], y=s[~converted], mode="markers", name="zero (never revealed)",
                             marker=dict(symbol="circle-open", size=9, color="#000000")))
    fig.add_vline(x=now - 1, line=dict(color="#0072B2", width=2), annotation_text=f"now (t = {now})")
    figure_layout(fig, 420, f"θ = {theta}, geometric delays with mean {mean_delay:g}, window m = {window}",
                  xaxis_title="step", yaxis_title="pull made at step s", legend=dict(orientation="h", x=0, y=-0.2))
    counts = {"seen": int(seen.sum()), "pending": int(pending.sum()), "lost": int(lost.sum()),
              "zeros": int((~converted).sum())}
    return FigureWidget(fig), counts


class _RoundRobinEstimator(DelayedUCB):
    """D-UCB's estimator watched under round-robin play (a fixed, non-adaptive sequence)."""

    def choose(self, t, context=None):
        return np.full(self.problem_.size, t % self.problem_.n_arms, dtype=np.int64)

    def snapshot(self):
        out = super().snapshot()
        out["successes"] = self.successes_.copy()
        return out


def estimator_study(theta=THETA_H, mean_delay=200, window=400, horizon=1500, runs=300, seed=0):
    """S/Ñ against the naive S/N under round-robin play: {"t", "theta", "corrected", "naive"}.

    Arrays are (runs, recorded times, arms).
    """
    law = Geometric(mean_delay)
    # sweep: simulate's result, array for array, from the dashboards' on-disk cache when they set one
    res = sweep(Conversions(theta, law, window=window), {"est": _RoundRobinEstimator(law, window)},
                horizon, runs, seed, checkpoints=150, trace=True)
    tr = res.traces["est"]
    naive = tr["successes"] / np.maximum(tr["pulls"], 1)
    return {"t": res.times, "theta": np.asarray(theta), "corrected": tr["theta_hat"], "naive": naive,
            "window": window, "law": law}


def estimator_summary(study) -> str:
    """The numbers of the estimator study at its last time: S/Ñ and S/N against θ."""
    corrected, naive = study["corrected"][:, -1], study["naive"][:, -1]
    runs = corrected.shape[0]
    margin = 1.96 * corrected.std(axis=0, ddof=1) / np.sqrt(runs)
    theta = study["theta"]
    fmt = lambda v: "(" + ", ".join(f"{x:.3f}" for x in v) + ")"  # noqa: E731
    low = np.mean(1 - naive.mean(axis=0) / theta)
    return (f"at t = {int(study['t'][-1]):,}, averaged over {runs} runs: S/Ñ = {fmt(corrected.mean(axis=0))} for "
            f"θ = {fmt(theta)}, with a 95% margin of ±{margin.max():.3f}; the naive S/N = {fmt(naive.mean(axis=0))}, "
            f"on average {low:.0%} too low.")


def estimator_figure(study):
    """Mean of S/Ñ (solid) and S/N (dashed) over runs against θ (dotted), per arm."""
    colors = ["#0072B2", "#D55E00", "#009E73", "#CC79A7"]
    fig = go.Figure()
    t = study["t"]
    for k, th in enumerate(study["theta"]):
        c = colors[k % len(colors)]
        for key, dash, label in [("corrected", "solid", "S/Ñ (delay-corrected)"), ("naive", "dash", "S/N (naive)")]:
            v = study[key][:, :, k]
            m, se = v.mean(0), v.std(0, ddof=1) / np.sqrt(v.shape[0])
            fig.add_trace(go.Scatter(x=np.r_[t, t[::-1]], y=np.r_[m + 1.96 * se, (m - 1.96 * se)[::-1]],
                                     fill="toself", line=dict(width=0), fillcolor="rgba(0,0,0,0.08)",
                                     hoverinfo="skip", showlegend=False))
            fig.add_trace(go.Scatter(x=t, y=m, mode="lines", line=dict(color=c, dash=dash, width=2.2),
                                     name=f"arm {k + 1}: {label}"))
        fig.add_trace(go.Scatter(x=[t[0], t[-1]], y=[th, th], mode="lines", line=dict(color=c, dash="dot", width=1.5),
                                 name=f"arm {k + 1}: θ = {th}"))
    figure_layout(fig, 430, f"Round-robin pulls, {study['law'].label}, window m = {study['window']}",
                  xaxis_title="step t", yaxis_title="estimate of θ (mean over runs)",
                  legend=dict(orientation="h", x=0, y=-0.25))
    return FigureWidget(fig)
