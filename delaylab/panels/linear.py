"""Panels of notebook 03: linear bandits with delayed, censored conversions (Vernade et al. 2020).

:class:`LinearPanel` (the live panel): sliders for the window m, the mean delay μ, d, K, λ, δ,
the horizon and the runs, a delay-law selector and policy check boxes; every change reruns the
selected policies (cached per policy and setting) and redraws the regret in place.

:class:`EllipsePanel` (teaching, d = 2): one run of OTFLinUCB; a time slider moves the estimate
θ̂^W_t and its confidence ellipse {x : ‖x − θ̂^W_t‖_{V_t} ≤ α_{t,δ}} towards τ_m·θ, not θ.

Ranges are bounded so that no combination fails or takes more than a few seconds:
m ∈ [10, 500], μ ∈ [1, 1000], d ∈ [2, 8], K ∈ [2, 20], T ≤ 3000, runs ≤ 40.
"""

from __future__ import annotations

from typing import NamedTuple

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from ..engine import simulate
from ..laws import Geometric, Uniform, criteo
from ..policies.linear import NO_DELAY_TERM, LinUCB, OTFLinTS, OTFLinUCB
from ..policies.simple import UNIFORM, UniformRandom
from ..settings.linear import LinearConversions
from ..viz.plots import CurvePlot, DelayCdfPlot, figure_layout
from ..viz.save import SaveButton
from ..viz.style import style
from ..viz.widget import FigureWidget
from .base import Panel
from .layout import section
from .race import YOUR_POLICY, RaceSetting
from .results import ResultCache, together

AUTHORS = "OTFLinUCB (authors' code)"
TOGGLES = ("OTFLinUCB", NO_DELAY_TERM, "OTFLinTS", "LinUCB", AUTHORS)
#: shown at the start: Algorithm 1 with and without its delay term (they differ in that alone),
#: Algorithm 2; uniform random play is always drawn
SHOWN = ("OTFLinUCB", NO_DELAY_TERM, "OTFLinTS")
LAWS = (("geometric, mean μ", "geometric"), ("uniform on {0 … 2μ}", "uniform"),
        ("Criteo delays / 100 (μ not used)", "criteo"))
_STYLE = {"description_width": "105px"}
_WIDE = W.Layout(width="320px")


def delay_law(kind: str, mu: float):
    """The delay law behind the selector."""
    if kind == "geometric":
        return Geometric(mu)
    if kind == "uniform":
        return Uniform(0, int(round(2 * mu)))
    if kind == "criteo":
        return criteo(100.0)
    raise ValueError(f"delay law must be one of {[v for _, v in LAWS]}; got {kind!r}")


def make_policy(toggle: str, m, delta, lam, width):
    return {"OTFLinUCB": lambda: OTFLinUCB(window=m, delta=delta, lam=lam, width=width),
            "OTFLinTS": lambda: OTFLinTS(window=m, delta=delta, lam=lam, width=width),
            NO_DELAY_TERM: lambda: OTFLinUCB(window=m, delta=delta, lam=lam, variant="no-delay-term"),
            "LinUCB": lambda: LinUCB(delta=delta, lam=lam),
            AUTHORS: lambda: OTFLinUCB(window=m, delta=delta, lam=lam, variant="authors-code"),
            UNIFORM: UniformRandom}[toggle]()


class Computed(NamedTuple):
    """What one update of :class:`LinearPanel` draws."""

    results: dict  # policy name → its Result
    law: object
    kind: str  # the delay-law selector's value
    mean_delay: float
    window: int


class LinearPanel(Panel):
    """Interactive comparison of OTFLinUCB with and without its delay term, OTFLinTS, and (check
    boxes) delay-blind LinUCB and the authors' index, with uniform random play always drawn
    (binary action sets, θ = (1/√d, …, 1/√d) as in Section 8)."""

    def __init__(self, window=100, mean_delay=100, law="geometric", dim=5, n_actions=10, lam=1.0, delta=0.1,
                 horizon=1000, runs=10, width="exact", shown=SHOWN, seed=0):
        super().__init__(seed)
        self.law = W.Dropdown(options=LAWS, value=law, description="delay law", style={"description_width": "70px"}, layout=_WIDE)
        self.mean_delay = W.FloatLogSlider(value=mean_delay, base=10, min=0, max=3, step=0.05,
                                           description="mean delay μ", readout_format=".0f",
                                           continuous_update=False, style=_STYLE, layout=_WIDE)
        self.window = W.IntSlider(value=window, min=10, max=500, step=10, description="window m",
                                  continuous_update=False, style=_STYLE, layout=_WIDE)
        self.dim = W.IntSlider(value=dim, min=2, max=8, description="dimension d", continuous_update=False,
                               style=_STYLE, layout=_WIDE)
        self.n_actions = W.IntSlider(value=n_actions, min=2, max=20, description="actions K",
                                     continuous_update=False, style=_STYLE, layout=_WIDE)
        self.lam = W.FloatLogSlider(value=lam, base=10, min=-2, max=1, step=0.25, description="λ",
                                    readout_format=".2f", continuous_update=False, style=_STYLE, layout=_WIDE)
        self.delta = W.FloatSlider(value=delta, min=0.01, max=0.5, step=0.01, description="δ",
                                   continuous_update=False, style=_STYLE, layout=_WIDE)
        self.width = W.Dropdown(options=[("exact: ‖A_s‖ in V_t⁻¹", "exact"), ("cheap: ‖A_s‖ in V_s⁻¹", "cheap")],
                                value=width, description="delay term", style=_STYLE, layout=_WIDE)
        self.horizon = W.IntSlider(value=horizon, min=500, max=3000, step=250, description="horizon T",
                                   continuous_update=False, style=_STYLE, layout=_WIDE)
        self.runs = W.IntSlider(value=runs, min=5, max=40, step=5, description="runs",
                                continuous_update=False, style=_STYLE, layout=_WIDE)
        self.toggles = {n: W.Checkbox(value=n in shown, description=n, indent=False, layout=W.Layout(width="auto"))
                        for n in TOGGLES}
        self.regret = CurvePlot([*TOGGLES, UNIFORM, YOUR_POLICY], title="Cumulative regret (mean and 95% band over runs)", height=430)
        self.cdf = DelayCdfPlot(height=300)
        self.save = SaveButton(self.regret.fig, "linear-delayed-regret")
        self._cache = ResultCache(60)
        for w in [self.law, self.mean_delay, self.window, self.dim, self.n_actions, self.lam, self.delta,
                  self.width, self.horizon, self.runs, *self.toggles.values()]:
            w.observe(lambda _: self.update(), names="value")
        self.start()

    def config(self) -> tuple:
        mu = float(round(self.mean_delay.value))
        return (self.law.value, mu, self.window.value, self.dim.value, self.n_actions.value,
                round(self.lam.value, 6), round(self.delta.value, 6), self.width.value, self.horizon.value,
                self.runs.value, self.seed)

    # ------------------------------------------------------------------ the panel's hooks
    def compute(self) -> Computed:
        """Run the selected policies not cached yet for the current settings."""
        kind, mu, m, d, K, lam, delta, width, T, R, seed = cfg = self.config()
        self.mean_delay.disabled = kind == "criteo"
        law = delay_law(kind, mu)
        names = [n for n, box in self.toggles.items() if box.value] + [UNIFORM]

        def key(n):  # the settings a policy's runs depend on
            if n == UNIFORM:  # no window, λ, δ or width
                return n, cfg[:2] + cfg[3:5] + cfg[8:]
            if n in ("LinUCB", NO_DELAY_TERM):  # no width of the delay term
                return n, cfg[:7] + cfg[8:]
            return n, cfg

        todo = [n for n in names if key(n) not in self._cache]
        if todo:
            env = LinearConversions(np.full(d, 1 / np.sqrt(d)), law, n_actions=K, window=m)
            res = self.simulate(env, {n: make_policy(n, m, delta, lam, width) for n in todo}, T, R, seed, checkpoints=200)
            for n in todo:
                self._cache[key(n)] = res
        self.recomputed = todo
        return Computed(together({n: self._cache[key(n)] for n in names}, self.budget.partial), law, kind, mu, m)

    def notes(self, c: Computed) -> list[str]:
        tau = float(c.law.cdf(c.window))
        return [f"τ_m = P(D ≤ m) = {tau:.3f}: the estimate θ̂ targets {tau:.2f}·θ, not θ"]

    def draw(self, c: Computed) -> None:
        """The regret curves."""
        self.regret.show_curves({n: (res, n) for n, res in c.results.items()})

    def draw_below(self, c: Computed) -> None:
        """The delay CDF."""
        mu, m = c.mean_delay, c.window
        self.cdf.show(c.law, m, d_max=int(max(3 * mu, 1.5 * m, 50)) if c.kind != "criteo" else 3 * m)

    def controls(self) -> list:
        toggles = W.GridBox(list(self.toggles.values()),
                            layout=W.Layout(grid_template_columns="repeat(2, max-content)", grid_gap="0 16px"))
        return [section("Delays and window", self.law, self.mean_delay, self.window),
                section("Problem and learners", self.dim, self.n_actions, self.lam, self.delta, self.width),
                section("Simulation", self.horizon, self.runs),
                section("Policies", toggles)]

    def below(self) -> list:
        return [self.cdf.fig]

    def race_setting(self) -> RaceSetting:
        """The panel's runs, for "your policy" (context: the window m, δ, λ, the width rule, the delay law)."""
        kind, mu, m, d, K, lam, delta, width, T, R, seed = cfg = self.config()
        law = delay_law(kind, mu)
        env = LinearConversions(np.full(d, 1 / np.sqrt(d)), law, n_actions=K, window=m)
        return RaceSetting(env, T, R, seed, 200, {"window": m, "delta": delta, "lam": lam, "width": width,
                                                  "delay": law}, cfg)


# ----------------------------------------------------------------------------- teaching, d = 2
def quarter_circle(u):
    """d = 2 action sets: K unit vectors at uniform angles in [0, π/2] (all means ⟨a, θ⟩ ≥ 0)."""
    phi = 0.5 * np.pi * u[..., :1]
    return np.concatenate([np.cos(phi), np.sin(phi)], axis=-1)


def ellipse_setting(theta, mean_delay, window, n_actions=8) -> LinearConversions:
    """The setting of :class:`EllipsePanel`: d = 2, quarter-circle action sets, geometric delays."""
    return LinearConversions(theta, Geometric(mean_delay), n_actions=n_actions, window=window,
                             action_sets=quarter_circle)


def ellipse_estimates(theta=(0.8, 0.45), mean_delay=50, window=50, horizon=3000, n_actions=8, runs=20, seed=0):
    """θ̂ᵂ at the horizon of ``runs`` runs of OTFLinUCB in :class:`EllipsePanel`'s setting, (runs, 2):
    where the estimate the panel draws goes, measured on its own runs."""
    res = simulate(ellipse_setting(theta, mean_delay, window, n_actions), {"OTFLinUCB": OTFLinUCB(window=window)},
                   horizon, runs, seed, checkpoints=[horizon], trace=True)
    return res.traces["OTFLinUCB"]["theta_hat"][:, -1]


def ellipse(center, v_inv, radius, n=120):
    """Boundary of {x : ‖x − center‖_V ≤ radius}: center + radius·L·(cos, sin), V^{-1} = L Lᵀ."""
    L = np.linalg.cholesky(v_inv)
    phi = np.linspace(0, 2 * np.pi, n)
    return center[:, None] + radius * L @ np.stack([np.cos(phi), np.sin(phi)])


class EllipsePanel(Panel):
    """One run of OTFLinUCB in d = 2: θ, τ_m·θ, θ̂^W_t and its confidence ellipse over time."""

    redraw_only = ("time",)  # moves along the run: nothing is recomputed
    shows_seed = False  # one chosen run
    legend_below = False  # the axes keep one scale

    def __init__(self, theta=(0.8, 0.45), mean_delay=50, window=50, horizon=3000, n_actions=8, seed=1):
        super().__init__(seed)
        self.theta = np.asarray(theta, dtype=float)
        self.horizon, self.n_actions = horizon, n_actions
        self.mean_delay = W.IntSlider(value=mean_delay, min=1, max=400, step=1, description="mean delay μ",
                                      continuous_update=False, style=_STYLE, layout=_WIDE)
        self.window = W.IntSlider(value=window, min=1, max=400, step=1, description="window m",
                                  continuous_update=False, style=_STYLE, layout=_WIDE)
        self.time = W.IntSlider(value=horizon // 10, min=10, max=horizon, step=10, description="time t",
                                style=_STYLE, layout=_WIDE)
        fig = go.Figure()
        blue, verm = style("OTFLinUCB")["color"], "#D55E00"
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="confidence ellipse (radius α = 2f + delay term)",
                                 line=dict(color=blue, width=2), fill="toself", fillcolor="rgba(0,114,178,0.12)"))
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="without the delay term (radius 2f)",
                                 line=dict(color=blue, width=1.5, dash="dot")))
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="path of θ̂ᵂ", line=dict(color="#7F7F7F", width=1)))
        fig.add_trace(go.Scatter(x=[], y=[], mode="markers", name="θ̂ᵂ at time t (estimate)",
                                 marker=dict(color=blue, size=11)))
        fig.add_trace(go.Scatter(x=[self.theta[0]], y=[self.theta[1]], mode="markers", name="θ",
                                 marker=dict(color="#000000", size=13, symbol="star")))
        fig.add_trace(go.Scatter(x=[], y=[], mode="markers", name="τ_m·θ (what θ̂ᵂ estimates)",
                                 marker=dict(color=verm, size=13, symbol="diamond")))
        fig.add_trace(go.Scatter(x=[0, self.theta[0]], y=[0, self.theta[1]], mode="lines", showlegend=False,
                                 line=dict(color="#000000", width=1, dash="dash")))
        figure_layout(fig, 520, " ", xaxis=dict(title="θ₁", range=[-0.6, 1.4], zeroline=True),
                      yaxis=dict(title="θ₂", range=[-0.6, 1.1], scaleanchor="x", scaleratio=1))
        self.fig = FigureWidget(fig)
        self._cache: dict = {}
        self.mean_delay.observe(lambda _: self.update(), names="value")
        self.window.observe(lambda _: self.update(), names="value")
        self.time.observe(lambda _: self.redraw(), names="value")
        self.start()

    @property
    def main_figure(self):
        return self.fig

    def size(self) -> tuple:
        return ()  # one run: the status line speaks only of a first answer

    # ------------------------------------------------------------------ the panel's hooks
    def compute(self) -> None:
        """One run with the traced state at every 10th step (``trace``), and ``tau_m``."""
        mu, m = self.mean_delay.value, self.window.value
        if (mu, m) not in self._cache:
            env = ellipse_setting(self.theta, mu, m, self.n_actions)
            pol = OTFLinUCB(window=m)
            res = self.simulate(env, {"OTFLinUCB": pol}, self.horizon, [self.seed], 0,
                                checkpoints=np.arange(10, self.horizon + 1, 10), trace=True)
            tr = {k: v[0] for k, v in res.traces["OTFLinUCB"].items()}
            tr["times"] = res.times
            if "first_answer" not in res.notes:  # a first answer is drawn, not kept
                self._cache[(mu, m)] = tr
        self.trace = self._cache[(mu, m)] if (mu, m) in self._cache else tr
        self.tau_m = float(Geometric(mu).cdf(m))

    def _step(self) -> int:
        """The index in ``trace`` of the time slider's t."""
        i = int(np.searchsorted(self.trace["times"], self.time.value))
        return min(i, len(self.trace["times"]) - 1)

    def notes(self, _) -> list[str]:
        est, tm = self.trace["theta_hat"][self._step()], self.tau_m * self.theta
        return [f"distance of the estimate θ̂ to τ_m·θ: {np.linalg.norm(est - tm):.3f}, "
                f"to θ: {np.linalg.norm(est - self.theta):.3f}"]

    def draw(self, _) -> None:
        """The ellipses, the path of the estimate and the estimate at the time slider's t."""
        tr, i = self.trace, self._step()
        est, v_inv, alpha = tr["theta_hat"][i], tr["v_inv"][i], float(tr["alpha"][i])
        outer = ellipse(est, v_inv, alpha)
        inner = ellipse(est, v_inv, 2 * float(tr["f"][i]))
        tm = self.tau_m * self.theta
        d = self.fig.data
        d[0].x, d[0].y = outer[0], outer[1]
        d[1].x, d[1].y = inner[0], inner[1]
        d[2].x, d[2].y = tr["theta_hat"][: i + 1, 0], tr["theta_hat"][: i + 1, 1]
        d[3].x, d[3].y = [est[0]], [est[1]]
        d[5].x, d[5].y = [tm[0]], [tm[1]]
        self.fig.layout.title.text = (f"t = {int(tr['times'][i])}: α = {alpha:.2f} (2f = {2 * tr['f'][i]:.2f}, "
                                      f"delay term {alpha - 2 * tr['f'][i]:.2f}) · τ_m = {self.tau_m:.2f}")

    @property
    def estimate(self) -> np.ndarray:
        """θ̂ᵂ at the time slider's t, as drawn (the blue dot)."""
        dot = self.fig.data[3]
        return np.array([dot.x[0], dot.y[0]])

    def controls(self) -> list:
        return [section("One run of OTFLinUCB, d = 2", self.mean_delay, self.window),
                section("Time", self.time, note="moves along the run: nothing is recomputed")]
