"""The live panel of notebook 02: arm-dependent, heavy-tailed delays (Manegueu et al. 2020).

Two Bernoulli arms with means μ_1 = 0.6 and μ_2 = 0.6 + Δ, uncensored conversions, arm i's
delays Pareto with tail index α_i. Sliders set α_1, α_2, the gap Δ, Patient Bandits' α_hat, D-UCB's
threshold m, the horizon and the runs; dropdowns choose a preset instance and the delay law D-UCB
is told; check boxes choose the policies. Shown by default: Patient Bandits with and without its
bias term (the same index otherwise: the comparison that isolates the bias term), D-UCB and UCB1;
uniform random play, the reference of every regret figure, is always drawn. Every change reruns
only what it affects (results are cached per policy and setting) and redraws, in place, the
regret curves, the observed means μ_hat_i(t) of Patient Bandits against the true μ_i, and the tails
P(D_i > m) on log–log axes (the arms in colours that no regret curve uses).

Adapt-Patient Bandits runs with Section 8.3's printed constants (c = 0.7, α_low = 0.1, μ_low = 0.6).
Assumption 2 never holds on the panel (it asks min_k μ_k > μ_low, and μ_1 = 0.6); on the default
instance its α_t stays at 0.1 and it plays exactly as Patient Bandits with α_hat = 0.1, run for run.

Ranges are bounded so that no combination fails or takes more than about two seconds:
α_i ∈ [0.05, 2], Δ ∈ [−0.4, 0.35], α_hat ∈ [0.02, 1], m ∈ [1, 1000], T ≤ 5000, runs ≤ 200.
"""

from __future__ import annotations

from typing import NamedTuple

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from ..laws import Pareto
from ..papers.manegueu2020 import ARM_COLOURS, ASSUMED_COLOUR, NO_BIAS, decade_ticks
from ..policies.delayed import DelayedUCB
from ..policies.patient import AdaptPatientBandits, PatientBandits
from ..policies.simple import UNIFORM, UniformRandom
from ..policies.ucb import UCB1
from ..settings.bernoulli import Conversions
from ..viz.plots import CurvePlot, figure_layout
from ..viz.save import SaveButton
from ..viz.style import style
from ..viz.widget import FigureWidget
from .base import Panel
from .fields import Presets
from .layout import put_legend_below, section
from .race import YOUR_POLICY, RaceSetting
from .results import ResultCache, together

MU_1 = 0.6
TOGGLES = ("Patient Bandits", NO_BIAS, "D-UCB", "UCB1", "Adapt-Patient Bandits")
PRESETS = {"fig5": (1.0, 0.3, 0.2), "fig4": (0.7, 0.7, 0.2), "swap": (0.3, 1.0, 0.2)}
ASSUMED = [("Pareto(0.7), both arms (Fig. 5)", "pareto07"), ("Pareto(α̂) for both arms", "alpha_hat"),
           ("the true law of each arm", "true")]
_STYLE = {"description_width": "120px"}
_WIDE = W.Layout(width="330px")


class Computed(NamedTuple):
    """What one update of :class:`ArmDelaysPanel` draws."""

    results: dict  # policy name → its Result
    means: tuple
    alphas: tuple
    horizon: int


class ArmDelaysPanel(Panel):
    """Interactive comparison of Patient Bandits, D-UCB and UCB1 with arm-dependent delays."""

    def __init__(self, alpha1=1.0, alpha2=0.3, gap=0.2, alpha_hat=0.3, window=50, horizon=1500, runs=30,
                 assumed="pareto07", shown=("Patient Bandits", NO_BIAS, "D-UCB", "UCB1"), seed=0):
        super().__init__(seed)

        def slider(cls, value, lo, hi, step, desc, fmt):
            return cls(value=value, min=lo, max=hi, step=step, description=desc, readout_format=fmt,
                       continuous_update=False, style=_STYLE, layout=_WIDE)

        self.alpha1 = slider(W.FloatSlider, alpha1, 0.05, 2.0, 0.05, "tail index α₁", ".2f")
        self.alpha2 = slider(W.FloatSlider, alpha2, 0.05, 2.0, 0.05, "tail index α₂", ".2f")
        self.gap = slider(W.FloatSlider, gap, -0.4, 0.35, 0.01, "gap Δ = μ₂ − μ₁", ".2f")
        self.alpha_hat = slider(W.FloatSlider, alpha_hat, 0.02, 1.0, 0.02, "Patient's α̂", ".2f")
        self.window = slider(W.IntSlider, window, 1, 1000, 1, "D-UCB's m", "d")
        self.horizon = slider(W.IntSlider, horizon, 500, 5000, 500, "horizon T", "d")
        self.runs = slider(W.IntSlider, runs, 10, 200, 10, "runs", "d")
        key = next((k for k, v in PRESETS.items() if v == (alpha1, alpha2, gap)), "custom")
        self.preset = W.Dropdown(options=[("Figure 5: α = (1, 0.3)", "fig5"), ("Figure 4: α = (0.7, 0.7)", "fig4"),
                                          ("better arm lighter: α = (0.3, 1)", "swap"), ("custom", "custom")],
                                 value=key, description="instance", style={"description_width": "70px"}, layout=_WIDE)
        self.assumed = W.Dropdown(options=ASSUMED, value=assumed, description="D-UCB is told", style={"description_width": "95px"},
                                  layout=_WIDE)
        self.toggles = {n: W.Checkbox(value=n in shown, description=n, indent=False, layout=W.Layout(width="auto"))
                        for n in TOGGLES}
        self.regret = CurvePlot([*TOGGLES, UNIFORM, YOUR_POLICY], title="Cumulative regret (mean and 95% band over runs)",
                                height=420)
        self.save = SaveButton(self.regret.fig, "arm-dependent-delays-regret")
        self.means_fig = self._means_figure()
        self.tails_fig = self._tails_figure()
        self._cache = ResultCache(60)
        for w in [self.alpha1, self.alpha2, self.gap, self.alpha_hat, self.window, self.horizon, self.runs,
                  self.assumed, *self.toggles.values()]:
            w.observe(self._changed, names="value")
        self.presets = Presets(self.preset, [self.alpha1, self.alpha2, self.gap], PRESETS, self.update)
        self.start()

    # ------------------------------------------------------------------ figures
    @staticmethod
    def _means_figure():
        fig = go.Figure()
        for i in range(2):
            c = ARM_COLOURS[i]
            fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name=f"arm {i + 1}: observed mean",
                                     line=dict(color=c, width=2.4)))
            fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name=f"arm {i + 1}: true mean",
                                     line=dict(color=c, dash="dot", width=2)))
        fig.update_xaxes(title_text="step t")
        fig.update_yaxes(title_text="mean over runs")
        # two lines: in a half-width figure one line ran into the next figure's title
        figure_layout(fig, 400, "What Patient Bandits sees:<br>observed and true means")
        put_legend_below(fig)  # beside the plot, a legend would leave no room in a half-width figure
        fig.update_layout(margin=dict(b=110, t=86), legend=dict(y=-0.28))
        return FigureWidget(fig)

    @staticmethod
    def _tails_figure():
        fig = go.Figure()
        for i in range(2):
            fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name=f"arm {i + 1}: P(D > m)",
                                     line=dict(color=ARM_COLOURS[i], width=2.4)))
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="m^(−α-hat): what Patient Bandits assumes",
                                 line=dict(color=ASSUMED_COLOUR, dash="longdash", width=2)))
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="D-UCB's threshold m",
                                 line=dict(color=style("D-UCB")["color"], dash="dash", width=2)))
        fig.update_xaxes(type="log", title_text="m (steps)")
        fig.update_yaxes(type="log", title_text="P(D > m)")
        figure_layout(fig, 400, "Delay tails (Assumption 1)")
        put_legend_below(fig)
        fig.update_layout(margin=dict(b=110, r=24), legend=dict(y=-0.28))
        return FigureWidget(fig)

    # ------------------------------------------------------------------ events
    def _changed(self, change):
        if not self.presets.holding:  # a preset sets several sliders, then reruns once
            self.update()

    # ------------------------------------------------------------------ state
    @property
    def means(self) -> tuple:
        return (MU_1, round(MU_1 + self.gap.value, 4))

    @property
    def alphas(self) -> tuple:
        return (round(self.alpha1.value, 4), round(self.alpha2.value, 4))

    def assumed_law(self):
        """The delay law(s) D-UCB is told."""
        kind = self.assumed.value
        if kind == "pareto07":
            return Pareto(0.7)
        if kind == "alpha_hat":
            return Pareto(round(self.alpha_hat.value, 4))
        return [Pareto(a) for a in self.alphas]

    def _policies(self, names):
        """name → (cache key of the policy's own parameters, policy)."""
        a_hat, m = round(self.alpha_hat.value, 4), self.window.value
        make = {"Patient Bandits": (("P", a_hat), lambda: PatientBandits(a_hat)),
                NO_BIAS: (("PN",), lambda: PatientBandits(a_hat, bias=0.0)),  # α_hat enters only the bias term
                UNIFORM: (("R",), lambda: UniformRandom()),
                "D-UCB": (("D", m, self.assumed.value, a_hat if self.assumed.value == "alpha_hat" else None),
                          lambda: DelayedUCB(self.assumed_law(), window=m)),
                "UCB1": (("U",), lambda: UCB1()),
                "Adapt-Patient Bandits": (("A",), lambda: AdaptPatientBandits(c=0.7, alpha_low=0.1, mu_low=0.6))}
        return {n: make[n] for n in names}

    # ------------------------------------------------------------------ the panel's hooks
    def compute(self) -> Computed:
        """Run the selected policies not cached yet for the current settings."""
        means, alphas, T, R = self.means, self.alphas, self.horizon.value, self.runs.value
        setting = (means, alphas, T, R, self.seed)
        names = [n for n, box in self.toggles.items() if box.value] + [UNIFORM]  # the reference: always drawn
        pols = self._policies(names)
        todo = {n: p for n, (k, p) in pols.items() if (k, setting) not in self._cache}
        if todo:
            env = Conversions(means, delays=[Pareto(a) for a in alphas])
            res = self.simulate(env, {n: make() for n, make in todo.items()}, T, R, self.seed, checkpoints=200,
                                trace="Patient Bandits" in todo)
            for n in todo:
                self._cache[(pols[n][0], setting)] = res
        self.recomputed = list(todo)
        return Computed(together({n: self._cache[(pols[n][0], setting)] for n in pols}, self.budget.partial),
                        means, alphas, T)

    def notes(self, c: Computed) -> list[str]:
        means, alphas = c.means, c.alphas
        better = 2 if means[1] > means[0] else (1 if means[0] > means[1] else None)
        heavier = 2 if alphas[1] < alphas[0] else (1 if alphas[0] < alphas[1] else None)
        note = ("no gap: both arms are optimal" if better is None else
                f"arm {better} is better" + (" and has the heavier tail" if better == heavier else ""))
        return [f"μ = {means}, α = {alphas}: {note}."]

    def draw(self, c: Computed) -> None:
        """The regret curves."""
        self.regret.show_curves({n: (res, n) for n, res in c.results.items()})

    def draw_below(self, c: Computed) -> None:
        """The observed means of Patient Bandits, and the delay tails."""
        self._draw_means(c.results.get("Patient Bandits"), c.means)
        self._draw_tails(c.alphas, c.horizon)

    def _draw_means(self, res, means):
        """μ_hatᵢ(t) of Patient Bandits (its Result ``res``, None if not shown) against the true μᵢ."""
        fig = self.means_fig
        with fig.batch_update():
            if res is not None:
                observed = res.traces["Patient Bandits"]["mean"].mean(axis=0)  # (n, K)
                t = res.times
                for i in range(2):
                    fig.data[2 * i].x, fig.data[2 * i].y = t, observed[:, i]
                    fig.data[2 * i + 1].x, fig.data[2 * i + 1].y = [t[0], t[-1]], [means[i], means[i]]
                    fig.data[2 * i].visible = fig.data[2 * i + 1].visible = True
            else:
                for d in fig.data:
                    d.visible = False

    def _draw_tails(self, alphas, T):
        fig = self.tails_fig
        m = np.unique(np.logspace(0, np.log10(max(T, 10)), 120).astype(np.int64))
        low = float(Pareto(max(alphas)).sf(m[-1]))
        with fig.batch_update():
            for i, a in enumerate(alphas):
                fig.data[i].x, fig.data[i].y = m, Pareto(a).sf(m)
            fig.data[2].x, fig.data[2].y = m, m.astype(float) ** -self.alpha_hat.value
            w = self.window.value
            fig.data[3].x, fig.data[3].y = [w, w], [low, 1.0]
            # one label per power of ten, written out (no "100µ"), and room for the last one
            fig.layout.xaxis.update(range=[0, np.log10(m[-1]) + 0.08], **decade_ticks(1, m[-1]))
            fig.layout.yaxis.update(**decade_ticks(min(low, float(m[-1]) ** -self.alpha_hat.value), 1.0))

    def controls(self) -> list:
        toggles = W.GridBox(list(self.toggles.values()),
                            layout=W.Layout(grid_template_columns="max-content", grid_gap="0 16px"))
        return [section("Instance (μ₁ = 0.6, μ₂ = 0.6 + Δ)", self.preset, self.alpha1, self.alpha2, self.gap),
                section("Algorithms", self.alpha_hat, self.window, self.assumed, toggles),
                section("Simulation", self.horizon, self.runs)]

    def below(self) -> list:
        return [self.means_fig, self.tails_fig]

    def race_setting(self) -> RaceSetting:
        """The panel's runs, for "your policy" (context: α_hat, the window m of D-UCB, the law D-UCB is told,
        the horizon T)."""
        a_hat, m, T = round(self.alpha_hat.value, 4), self.window.value, self.horizon.value
        env = Conversions(self.means, delays=[Pareto(a) for a in self.alphas])
        return RaceSetting(env, T, self.runs.value, self.seed, 200,
                           {"alpha_hat": a_hat, "window": m, "delay": self.assumed_law(), "horizon": T},
                           (self.means, self.alphas, T, self.runs.value, self.seed, a_hat, m, self.assumed.value))
