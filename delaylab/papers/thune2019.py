r"""Thune, Cesa-Bianchi, Seldin (2019), "Nonstochastic multiarmed bandits with unrestricted delays":
the bounds of the paper, and the experiments of our notebook (the paper has none).

* Theorem 1 (DEW), Theorem 3 and Corollary 4 (Skipper), Theorem 6 and Corollary 7 (Doubling):
  the regret bounds as functions, and the two rates of Section 4.3, "explicit"
  √((KT + D) ln K) and "oracle" min_β {|S_β| + β ln K + (KT + D_β)/β} (constants dropped).
* Example 8 (our instance: K = 2, Bernoulli losses with means 0.25 and 0.75, the paper's delays
  d_t = T − t for t < √(KT/ln K)): final regret against T on log–log axes for DEW tuned as in
  Theorem 1, Skipper tuned as in Corollary 4, the same Skipper with the oracle β that minimises
  Theorem 3 on the instance (:func:`oracle_beta`: the two differ in β alone), Doubling, Exp3 tuned
  for no delays, and uniform random play's expected regret, exact (the reference).
* The trade-off of Theorem 3 as a function of β (:func:`tradeoff`): the bound's terms, the regret
  of Skipper(β), of its twin without skipping (the same base at the same rate, fed every loss) and
  of uniform random play; Doubling's epochs and thresholds over one run (:func:`doubling_run`), and
  Eq. (6) along it (:func:`eq6_terms`).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from ..engine import simulate
from ..sweep import sweep
from ..grid import grid
from ..laws import Pareto
from ..panels.layout import put_legend_below
from ..panels.reproduce import FigureReproduction
from ..policies.exp_weights import DEW, Exp3
from ..policies.simple import UNIFORM, UniformRandom
from ..policies.skipper import NO_SKIP, Doubling, Skipper, corollary4_beta, skipped_and_experienced
from ..settings import sequences as sq
from ..settings.adversarial import AdversarialLosses
from ..viz.plots import CurvePlot, figure_layout
from ..viz.style import GREEN, SKY, WINE, style
from ..viz.widget import FigureWidget

E = math.e
K = 2
GAP = 0.5  # losses of Example 8: means 0.5 ∓ GAP/2
EXAMPLE8_HORIZONS = tuple(2**e for e in range(9, 15))  # 512 … 16,384: the notebook's default scale
EXAMPLE8_PAPER_HORIZONS = tuple(2**e for e in range(9, 17))  # up to 65,536 behind the button
#: Skipper with the β that minimises Theorem 3's bound on the instance (:func:`oracle_beta`)
ORACLE_SKIPPER = "Skipper (oracle β)"
EXAMPLE8_NAMES = ["Exp3", "DEW", "Skipper", ORACLE_SKIPPER, "Doubling"]
#: the colour of the two rate lines of the Example 8 figure: bluish green, which no curve of that
#: figure uses (Exp3 is black, dotted)
RATE_COLOUR = GREEN
EXPLICIT = "explicit rate √((KT + D) ln K): slope → 3/4"
ORACLE = "oracle rate min_β |S_β| + β ln K + (KT + D_β)/β: slope → 1/2"


# ------------------------------------------------------------------------------- bounds
def theorem1_bound(n_arms, horizon, total_delay, dmax, eta) -> float:
    """Theorem 1: max{ln K/η, 4e d_max ln K} + η(KTe/2 + D)."""
    lnK = math.log(n_arms)
    return max(lnK / eta, 4 * E * dmax * lnK) + eta * (n_arms * horizon * E / 2 + total_delay)


def theorem3_bound(n_arms, horizon, delays, beta, eta=None):
    """Theorem 3: |S_β| + max{ln K/η, 4eβ ln K} + η(KTe/2 + D_β), with η = 1/(4eβ) by default.

    ``beta`` may be an array; returns (bound, |S_β|, D_β) with its shape.
    """
    beta = np.asarray(beta, dtype=float)
    eta = 1.0 / (4 * E * beta) if eta is None else np.asarray(eta, dtype=float)
    S, D = skipped_and_experienced(np.asarray(delays)[:horizon], beta)
    lnK = math.log(n_arms)
    bound = S + np.maximum(lnK / eta, 4 * E * beta * lnK) + eta * (n_arms * horizon * E / 2 + D)
    return bound, S, D


def corollary4_bound(n_arms, horizon, total_delay) -> float:
    """Corollary 4: 2√((KTe/2 + (1 + 4e)D) ln K)."""
    return 2 * math.sqrt((n_arms * horizon * E / 2 + (1 + 4 * E) * total_delay) * math.log(n_arms))


def _argmin_over_beta(delays, a, c0, b=1.0) -> tuple[float, float]:
    r"""(min, argmin) over β > 0 of |S_β| + aβ + (c0 + D_β)/(bβ), exactly.

    |S_β| and D_β are constant for β in each interval (v_i, v_{i+1}] between consecutive distinct
    delays (|S_β| = #{d ≥ v_{i+1}}, D_β = Σ_{d ≤ v_i} d), where the function is convex in β with
    its minimum at √((c0 + D_β)/(ab)) clipped to the interval (just inside its open left end).
    """
    d = np.sort(np.asarray(delays, dtype=float))
    v = np.unique(np.concatenate([[0.0], d]))
    lo, hi = v, np.append(v[1:], np.inf)
    S = d.size - np.searchsorted(d, hi, side="left")
    csum = np.concatenate([[0.0], np.cumsum(d)])
    D = csum[np.searchsorted(d, lo, side="right")]
    beta = np.clip(np.sqrt((c0 + D) / (a * b)), np.nextafter(np.maximum(lo, 1e-12), np.inf), hi)
    f = S + a * beta + (c0 + D) / (b * beta)
    i = int(np.argmin(f))
    return float(f[i]), float(beta[i])


def min_over_beta(delays, a, c0, b=1.0) -> float:
    r"""min over β > 0 of |S_β| + aβ + (c0 + D_β)/(bβ), exactly (:func:`_argmin_over_beta`)."""
    return _argmin_over_beta(delays, a, c0, b)[0]


def oracle_beta(n_arms, horizon, delays) -> float:
    """The β that minimises Theorem 3's bound with η = 1/(4eβ),
    |S_β| + 4eβ ln K + (KTe/2 + D_β)/(4eβ), on these delays: an oracle tuning (it needs every
    delay in advance), ours, not the paper's. Where every β below the smallest positive delay skips
    the same rounds and D_β = 0 (Example 8), it is Corollary 4's formula with D_β = 0 in place of D."""
    d = np.asarray(delays, dtype=float)[:horizon]
    return _argmin_over_beta(d, 4 * E * math.log(n_arms), n_arms * horizon * E / 2, 4 * E)[1]


def theorem6_bound(n_arms, horizon, delays) -> float:
    """Theorem 6: 15 min_β {|S_β| + 4eβ ln K + (KT + D_β)/(4eβ)} + 10e²K ln K + 5."""
    d = np.asarray(delays, dtype=float)[:horizon]
    lnK = math.log(n_arms)
    inner = min_over_beta(d, 4 * E * lnK, n_arms * horizon, 4 * E)
    return 15 * inner + 10 * E**2 * n_arms * lnK + 5


def corollary7_bound(n_arms, horizon, total_delay) -> float:
    """Corollary 7: 30√((KTe/2 + (1 + 4e)D) ln K) + 10e²K ln K + 5."""
    return (30 * math.sqrt((n_arms * horizon * E / 2 + (1 + 4 * E) * total_delay) * math.log(n_arms))
            + 10 * E**2 * n_arms * math.log(n_arms) + 5)


def explicit_rate(n_arms, horizon, delays) -> float:
    """√((KT + D) ln K), the explicit bound of Section 4.3 without constants."""
    D = float(np.sum(np.asarray(delays, dtype=float)[:horizon]))
    return math.sqrt((n_arms * horizon + D) * math.log(n_arms))


def oracle_rate(n_arms, horizon, delays) -> float:
    """min_β {|S_β| + β ln K + (KT + D_β)/β}, the oracle bound of Section 4.3 without constants."""
    d = np.asarray(delays, dtype=float)[:horizon]
    return min_over_beta(d, math.log(n_arms), n_arms * horizon)


# ------------------------------------------------------------------------------- Exercise 5.2's mistake
#: the name of :class:`DEWToday` in the notebook's claims
TODAY = "DEW dividing by today's p_t"


class DEWToday(DEW):
    """DEW whose loss estimates divide by today's probability p_t(A_s), not by p_s(A_s), the one the
    arm had when it was pulled: the natural mistake of Exercise 5.2, as a policy (biased; the
    numpy path only). At DEW's truncated rate p hardly moves while a loss is outstanding, so it
    differs little from DEW: the notebook measures how little."""

    @property
    def label(self):
        return TODAY

    def _observe(self, feedback, keep=None):
        est = feedback.value / self.p_[feedback.run, feedback.arm]
        feedback.add_to(self.cum_loss_, mask=keep, weights=est)


# ------------------------------------------------------------------------------- Example 8
def example8_policies(horizon, delays) -> dict:
    """The five learners of the Example 8 figure, tuned from the instance where they may be. The two
    Skippers differ in β (and so in η = 1/(4eβ)) alone: Corollary 4's, tuned through T and D, and
    the oracle β of :func:`oracle_beta`."""
    return {"Exp3": Exp3(), "DEW": DEW.theorem1(K, horizon, delays),
            "Skipper": Skipper.corollary4(K, horizon, delays),
            ORACLE_SKIPPER: Skipper(beta=oracle_beta(K, horizon, delays)), "Doubling": Doubling()}


def example8_setting(horizon, seed=0):
    losses, delays = sq.example8(horizon, K, gap=GAP, seed=seed)
    return AdversarialLosses(losses, delays, reveal="at_action"), delays


def uniform_regret(losses, horizon=None) -> float:
    """The expected regret of uniform random play at T on fixed losses, exactly:
    Σ_{t<T} ((1/K) Σ_a ℓ_t(a) − ℓ_t(a*)), with a* the best fixed arm over the horizon (the engine's).
    No runs: the reference of the Example 8 figure, whose largest horizons a simulated uniform play
    (no compiled kernel) would slow down most."""
    ell = np.asarray(losses, dtype=float)[:horizon]
    best = int(np.argmin(ell.sum(axis=0)))
    return float((ell.mean(axis=1) - ell[:, best]).sum())


def example8_uniform(horizon, seed=0) -> float:
    """:func:`uniform_regret` on the Example 8 instance of horizon T (the figure's losses)."""
    return uniform_regret(sq.example8(int(horizon), K, gap=GAP, seed=seed)[0])


def example8(horizons=EXAMPLE8_HORIZONS, runs=10, seed=0, progress=None) -> dict:
    """{T: Result} of the five learners on Example 8 for each horizon T (regret at T only); uniform
    random play's expected regret is :func:`example8_uniform`."""
    horizons = [int(T) for T in horizons]
    total, done, out = sum(horizons), 0, {}
    for T in horizons:
        env, delays = example8_setting(T, seed)
        prog = None if progress is None else (lambda f, a=done, T=T: progress((a + f * T) / total))
        out[T] = sweep(env, example8_policies(T, delays), T, runs, seed, checkpoints=1, progress=prog)
        done += T
    return out


def exp3_rate(horizon, n_arms=K) -> float:
    """Exp3's delay-free rate √(2 ln K/(KT)) (:class:`~delaylab.policies.exp_weights.Exp3`)."""
    return math.sqrt(2 * math.log(n_arms) / (n_arms * horizon))


def exp3_as_skipper(horizon, n_arms=K) -> Skipper:
    """Skipper(1, DEW(η, 1)) at Exp3's rate η = :func:`exp3_rate`: it keeps the rounds with d_t = 0
    and, its cap 1/(4e) being above η (T ≥ 82 at K = 2), learns at η. On Example 8, where no
    delayed loss arrives before the game ends, it plays exactly as Exp3, so Theorem 3 (for any η)
    bounds Exp3 there (our reading; :func:`exp3_as_skipper_gaps` measures it)."""
    return Skipper(beta=1.0, base=DEW(eta=exp3_rate(horizon, n_arms), dmax=1.0))


def exp3_as_skipper_gaps(results) -> dict:
    """{T: largest |final regret of Exp3 − of :func:`exp3_as_skipper`| over the runs} on Example 8,
    the Skipper run on each result's own setting, seed and runs (0 where they play alike)."""
    out = {}
    for T, r in results.items():
        env, _ = example8_setting(T, r.seed)
        skip = sweep(env, {"Skipper(1)": exp3_as_skipper(T)}, T, list(r.run_ids), r.seed, checkpoints=1)
        out[T] = float(np.max(np.abs(skip.final("Skipper(1)") - r.final("Exp3"))))
    return out


def example8_results(horizons=EXAMPLE8_HORIZONS, runs=10, seed=0, reuse=None) -> dict:
    """:func:`example8` at these parameters; ``reuse`` (e.g. a figure's ``results``) is returned
    instead when it holds exactly these horizons, runs, seed and learners, else recomputed. A
    check cell then rests on its own parameters whatever the figure's button did."""
    horizons = [int(T) for T in horizons]
    if (isinstance(reuse, dict) and sorted(reuse) == sorted(horizons)
            and all(r.seed == seed and list(r.run_ids) == list(range(runs)) and set(EXAMPLE8_NAMES) <= set(r.names)
                    for r in reuse.values())):
        return reuse
    return example8(horizons, runs, seed)


def example8_table(results) -> dict:
    """{name: (T array, mean final regret, standard error)}."""
    Ts = np.array(sorted(results))
    out = {}
    for n in EXAMPLE8_NAMES:
        finals = [results[T].final(n) for T in Ts]
        out[n] = (Ts, np.array([f.mean() for f in finals]),
                  np.array([f.std(ddof=1) / math.sqrt(f.size) if f.size > 1 else 0.0 for f in finals]))
    return out


def fitted_slope(T, regret) -> float:
    """Least-squares slope of log regret against log T over the last three horizons."""
    return float(np.polyfit(np.log(T[-3:]), np.log(regret[-3:]), 1)[0])


def run_slopes(results, name) -> np.ndarray:
    """:func:`fitted_slope` of each run (run i at every horizon), for the standard error of a slope.
    Runs whose regret is not positive at one of the last three horizons are left out."""
    Ts = np.array(sorted(results))[-3:]
    finals = np.array([results[T].final(name) for T in Ts])  # (3, runs)
    ok = np.all(finals > 0, axis=0)
    return np.polyfit(np.log(Ts), np.log(finals[:, ok]), 1)[0]


def ratio(a, b) -> tuple[float, float]:
    """mean(a)/mean(b) of two arrays of final regrets paired by run, and its standard error (delta
    method, with their covariance)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    r = a.mean() / b.mean()
    cov = np.cov(a, b, ddof=1)
    return float(r), float(math.sqrt(max(0.0, cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1]) / a.size) / abs(b.mean()))


def draw_example8(results, plot: CurvePlot) -> None:
    table = example8_table(results)
    for n, (T, m, se) in table.items():
        plot.set(n, T, m, np.maximum(m - 1.96 * se, 1e-3), m + 1.96 * se)
    T = table["DEW"][0]
    plot.set(UNIFORM, T, [example8_uniform(t, results[t].seed) for t in T])
    Tf = np.geomspace(T[0], T[-1], 30).round().astype(int)
    plot.set(EXPLICIT, Tf, [explicit_rate(K, t, sq.example8_delays(t, K)) for t in Tf])
    plot.set(ORACLE, Tf, [oracle_rate(K, t, sq.example8_delays(t, K)) for t in Tf])


def summary_example8(results) -> str:
    """The numbers of the Example 8 figure: regret at the largest T, and each fitted slope."""
    table = example8_table(results)
    Ts = table["DEW"][0]
    span = f"T = {Ts[-3]:,} to {Ts[-1]:,}"
    parts = [f"{n} {m[-1]:.0f} (slope {fitted_slope(T, m):.2f})" for n, (T, m, _) in table.items()]
    u = np.array([example8_uniform(t, results[t].seed) for t in Ts])
    parts.append(f"{UNIFORM} {u[-1]:.0f}, its exact expectation (slope {fitted_slope(Ts, u):.2f})")
    return (f"regret at T = {Ts[-1]:,}, and the slope of log regret against log T fitted over {span} — "
            + "; ".join(parts) + ".")


def example8_panel(runs=10, seed=0, horizons=EXAMPLE8_HORIZONS, paper_runs=40) -> FigureReproduction:
    plot = CurvePlot([*EXAMPLE8_NAMES, UNIFORM], extra=[EXPLICIT, ORACLE], xaxis="horizon T", yaxis="regret at T",
                     log_x=True, log_y=True, height=460,
                     title="Example 8: regret at T (mean and 95% band over runs), log–log axes")
    plot.fig.data[-2].line.dash, plot.fig.data[-1].line.dash = "longdash", "longdashdot"
    plot.fig.data[-2].line.color = plot.fig.data[-1].line.color = RATE_COLOUR
    # in rows under the plot: on the right, the rates' long names met the x axis's last label on a
    # 1024-px projector (the slides' layout keeps a legend in rows clear of the axis)
    put_legend_below(plot.fig)
    caption = ("Example 8: d_t = T − t for the first √(KT/ln K) rounds, 0 afterwards; K = 2, Bernoulli "
               f"losses with means {0.5 - GAP / 2} and {0.5 + GAP / 2} (our choice: the paper gives no losses). "
               "DEW tuned as in Theorem 1 (d_max = T − 1), Skipper as in Corollary 4 (T and D known), the same "
               "Skipper with the β that minimises Theorem 3 on the instance (oracle β: our comparison, it "
               "needs every delay in advance), Doubling knows neither, Exp3 is tuned as if there were no "
               "delays; dashed grey: uniform random play's expected regret, computed exactly from the losses. "
               "Thin bluish-green lines: the explicit (long-dashed) and oracle (long-dash-dotted) rates of the "
               "paper's Section 4.3 without their constants (rates, not regrets: only their slopes compare). "
               "The button runs "
               f"T up to {EXAMPLE8_PAPER_HORIZONS[-1]:,} with {paper_runs} runs.")
    return FigureReproduction(
        lambda r, p: example8(horizons if r < paper_runs else EXAMPLE8_PAPER_HORIZONS, r, seed, p),
        draw_example8, plot, runs, paper_runs, caption, name="thune2019-example8", summary=summary_example8,
        full_scale="our full scale")  # the paper has no experiments: the run count is ours


# ------------------------------------------------------------------------------- Theorem 3
TRADEOFF_HORIZON = 3000
TRADEOFF_ALPHA = 0.7
TRADEOFF_BETAS = tuple(np.geomspace(1, 3000, 14).round(1))


TRADEOFF_SLOW = 5  # rounds with d_t ≥ 5 carry the information (about 1/3 of them)


def tradeoff_setting(horizon=TRADEOFF_HORIZON, alpha=TRADEOFF_ALPHA, seed=0):
    """Heavy-tailed delays (one Pareto(α) sequence, fixed, capped at 10·horizon) and losses that tell
    the two arms apart only on the rounds with d_t ≥ 5 (gap 0.6): :func:`~delaylab.settings.sequences.slow_informative_losses`."""
    delays = sq.law_delays(Pareto(alpha), horizon, seed=seed + 1)
    delays = np.minimum(delays, 10 * horizon)  # beyond the horizon anyway: keeps D finite and readable
    losses = sq.slow_informative_losses(delays, TRADEOFF_SLOW, gap=0.6, seed=seed)
    return AdversarialLosses(losses, delays), delays


def tradeoff(betas=TRADEOFF_BETAS, horizon=TRADEOFF_HORIZON, alpha=TRADEOFF_ALPHA, runs=20, seed=0, progress=None):
    """Theorem 3 along β: its terms, the bound and the regret of Skipper(β, DEW(1/(4eβ), β)), of its
    twin without skipping (the same base at the same rate, fed every loss) and of uniform random play.

    Returns a dict of arrays over β: ``beta``, ``skipped`` (|S_β|), ``experienced`` (D_β),
    ``bound`` (Eq. 3 with η = 1/(4eβ)), ``regret`` and ``no_skip`` (runs × β, final regrets of
    Skipper and of its twin), ``uniform`` (runs, uniform random play's final regret, on the same
    runs), and the Corollary 4 threshold ``beta_cor4``. All runs of Skipper and of its twin are one
    vectorised batch (a grid over β).
    """
    env, delays = tradeoff_setting(horizon, alpha, seed)
    betas = np.asarray(betas, dtype=float)
    bound, S, D = theorem3_bound(K, horizon, delays, betas)
    g = grid(beta=betas)
    res = sweep(env, {"Skipper": Skipper(beta=g.beta), NO_SKIP: Skipper.without_skipping(g.beta)}, horizon, runs, seed,
                checkpoints=1, grid=g, progress=progress)
    uniform = simulate(env, {UNIFORM: UniformRandom()}, horizon, runs, seed, checkpoints=1).final(UNIFORM)
    return {"beta": betas, "skipped": S, "experienced": D, "bound": bound, "regret": res.final("Skipper").T,
            "no_skip": res.final(NO_SKIP).T, "uniform": uniform,
            "beta_cor4": corollary4_beta(K, horizon, delays.sum()), "horizon": horizon, "delays": delays}


def _mean_se(r):
    """Mean over runs (axis 0) and its standard error."""
    return r.mean(0), r.std(0, ddof=1) / math.sqrt(r.shape[0])


def tradeoff_figure(study):
    """|S_β|, (KTe/2 + D_β)/(4eβ), 4eβ ln K, the bound (3), the regrets of Skipper(β) and of its twin
    without skipping, and uniform random play's, against β (log–log); Corollary 4's β marked by a
    vertical segment drawn as data (a shape's x on a log axis would be read as a power of ten)."""
    b, T = study["beta"], study["horizon"]
    fig = go.Figure()
    terms = [("|S_β|: skipped rounds", study["skipped"], "#D55E00", "dash"),
             ("(KTe/2 + D_β)/(4eβ): variance and experienced delay", (K * T * E / 2 + study["experienced"]) / (4 * E * b), WINE, "dash"),
             ("4eβ ln K: small learning rate", 4 * E * b * math.log(K), SKY, "dashdot"),
             ("bound (3) of Theorem 3", study["bound"], "#000000", "solid")]
    for name, y, c, dash in terms:
        fig.add_trace(go.Scatter(x=b, y=np.maximum(y, 0.5), mode="lines", name=name, line=dict(color=c, dash=dash, width=2)))
    for key, name, width in [("regret", "regret of Skipper(β)", 3), ("no_skip", f"regret of {NO_SKIP}", 2)]:
        m, se = _mean_se(study[key])
        st = style("Skipper" if key == "regret" else NO_SKIP)
        fig.add_trace(go.Scatter(x=b, y=m, mode="lines+markers", name=f"{name} (mean ± 1.96 s.e.)",
                                 line=dict(color=st["color"], dash=st["dash"], width=width),
                                 error_y=dict(type="data", array=1.96 * se)))
    u = float(np.mean(study["uniform"]))
    st = style(UNIFORM)
    fig.add_trace(go.Scatter(x=[b[0], b[-1]], y=[u, u], mode="lines", name=f"{UNIFORM} (regret at T: {u:,.0f})",
                             line=dict(color=st["color"], dash=st["dash"], width=2)))
    ys = np.concatenate([np.maximum(tr.y, 0.5) for tr in fig.data])
    b4 = float(study["beta_cor4"])
    fig.add_trace(go.Scatter(x=[b4, b4], y=[0.5, float(ys.max()) * 1.5], mode="lines", name=f"β of Corollary 4: {b4:.0f}",
                             line=dict(color="#7F7F7F", dash="dot", width=2)))
    fig.update_xaxes(type="log", title_text="threshold β")
    fig.update_yaxes(type="log", title_text="regret / bound terms at T")
    figure_layout(fig, 460, f"Theorem 3 along β: Pareto(α = {TRADEOFF_ALPHA}) delays capped at 10T, T = {T}")
    return FigureWidget(fig)


# ------------------------------------------------------------------------------- Doubling
def doubling_run(horizon=8192, seed=0, run=0, delays="example8"):
    """One run of Doubling, traced at every step: epochs m, thresholds β_m, skips, delays.

    ``delays``: "example8" or an array (T,).
    """
    losses = sq.bernoulli_losses([0.5 - GAP / 2, 0.5 + GAP / 2], horizon, seed=seed)
    d = sq.example8_delays(horizon, K) if isinstance(delays, str) else np.asarray(delays)
    env = AdversarialLosses(losses, d, reveal="at_action")
    res = simulate(env, {"Doubling": Doubling()}, horizon, [run], seed, trace=True)
    tr = {k: v[0] for k, v in res.traces["Doubling"].items()}
    tr["delays"], tr["t"], tr["regret"] = d, res.times, res.regret["Doubling"][0]
    return tr


def eq6_terms(tr, n_arms=K):
    """Eq. (6) along a traced Doubling run (:func:`doubling_run`), per step: the epoch's |S^m_β|²,
    its (eKσ(m)/2 + D^m_β) ln K, and ω_m = 2^m (the epoch's counts include the current round)."""
    m, start = np.asarray(tr["epoch"]), np.asarray(tr["epoch_start"])
    skipped = np.asarray(tr["skipped"], dtype=float)
    delay = np.asarray(tr["experienced_delay"], dtype=float)
    before = lambda x: np.concatenate([[0.0], x])[start]  # noqa: E731 (the totals before the epoch began)
    S = skipped - before(skipped)
    D = delay - before(delay)
    lnK = math.log(n_arms)
    return S**2, (E * n_arms * np.asarray(tr["epoch_length"]) / 2 + D) * lnK, np.exp2(m.astype(float))


def doubling_figure(tr):
    """β_m over time (step line) with the delays d_t, epoch starts marked; log y axis."""
    t, d = tr["t"], tr["delays"][: len(tr["t"])]
    fig = go.Figure()
    pos = d > 0
    fig.add_trace(go.Scatter(x=t[pos], y=d[pos], mode="markers", name="delay d_t (> 0)",
                             marker=dict(color="#7F7F7F", size=3)))
    st = style("Doubling")
    fig.add_trace(go.Scatter(x=t, y=tr["beta"], mode="lines", name="threshold β_m (skip if d_t ≥ β_m)",
                             line=dict(color=st["color"], width=3, shape="hv")))
    starts = np.flatnonzero(np.diff(tr["epoch"]) > 0) + 1
    fig.add_trace(go.Scatter(x=t[starts], y=tr["beta"][starts], mode="markers+text", name="new epoch",
                             text=[f"m={m}" for m in tr["epoch"][starts]], textposition="top left",
                             marker=dict(color="#000000", size=7, symbol="diamond")))
    fig.update_xaxes(type="log", title_text="step t")
    fig.update_yaxes(type="log", title_text="delay / threshold (steps)")
    figure_layout(fig, 420, f"Doubling on Example 8 (T = {len(t)}): epochs and thresholds of one run")
    return FigureWidget(fig)
