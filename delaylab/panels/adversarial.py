"""The live panel of notebook 05: adversarial losses with unrestricted delays (Thune et al. 2019).

Dropdowns choose the delay pattern and the loss sequence; sliders set Skipper's threshold β, the
learning rate η of DEW and of Skipper's base, the typical delay d, the number of huge delays, the
gap Δ between the arms, the horizon and the number of runs; check boxes choose the learners.
Every change reruns what depends on it (results are cached per learner and setting) and redraws
the regret curves and the terms of Theorem 3 along β in place.

Learners: Exp3 (tuned as if there were no delays), DEW(η, d_max) told the true d_max of the
sequence (Algorithm 1: η' = min(η, 1/(4e d_max))), Skipper(β, DEW(η, β)) (η' = min(η, 1/(4eβ))),
"Skipper without skipping" (the same base at the same rate, fed every loss: Skipper's twin that
differs in the skipping alone), and Doubling (no parameter: β_m, η_m from the delays it sees at
action time). Uniform random play is always drawn, on the same runs: the reference a learner must
beat.

Ranges are bounded so that no combination fails or takes more than a couple of seconds:
T ≤ 4000, runs ≤ 60, β ∈ [1, 10⁴], η ∈ [10⁻³, 1].

:func:`panel_result` runs the panel's learners on fixed parameters, without a panel: what the
notebook's claims and the guide's numbers rest on, whatever the student has done with the sliders.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from ..engine import simulate
from ..laws import Geometric, Pareto
from ..papers.thune2019 import theorem3_bound
from ..policies.exp_weights import DEW, Exp3
from ..policies.simple import UNIFORM, UniformRandom
from ..policies.skipper import NO_SKIP, Doubling, Skipper, corollary4_beta
from ..settings import sequences as sq
from ..settings.adversarial import AdversarialLosses
from ..viz.plots import CurvePlot, figure_layout
from ..viz.save import SaveButton
from ..viz.style import SKY, WINE, style
from ..viz.widget import FigureWidget
from .base import Panel
from .layout import section
from .race import YOUR_POLICY, RaceSetting
from .results import ResultCache, together

E = math.e
NAMES = ("Exp3", "DEW", "Skipper", NO_SKIP, "Doubling")
#: the panel's starting values (AdversarialPanel()'s defaults): the fixed parameters of the
#: notebook's claims about what the panel shows
DEFAULTS = dict(pattern="spikes", losses="bernoulli", beta=30.0, eta=0.05, delay=20, n_huge=5, gap=0.5,
                horizon=1000, runs=20, seed=0)
PATTERNS = [("fixed d, plus a few huge delays", "spikes"), ("fixed delay d", "fixed"),
            ("random: geometric, mean d", "geometric"), ("Pareto(α = 0.7), capped at 10T", "pareto"),
            ("Example 8: d_t = T − t early on", "example8")]
LOSSES = [("Bernoulli: means 0.5 ∓ Δ/2", "bernoulli"), ("best arm switches (3 phases)", "switching"),
          ("only slow rounds informative", "slow")]
_STYLE = {"description_width": "105px"}
_MENU = {"description_width": "60px"}  # short descriptions: room for the options
_WIDE = W.Layout(width="320px")


def make_delays(pattern: str, horizon: int, d: int, n_huge: int, seed: int = 0) -> np.ndarray:
    """The delay sequence (T,) of a pattern (one oblivious sequence shared by all runs)."""
    T = horizon
    if pattern == "spikes":
        return sq.spiked_delays(T, n_huge, spike=T // 2, base=d, seed=seed)
    if pattern == "fixed":
        return sq.fixed_delays(T, d)
    if pattern == "geometric":
        return sq.law_delays(Geometric(max(d, 1e-3)), T, seed=seed) if d > 0 else sq.fixed_delays(T, 0)
    if pattern == "pareto":
        return np.minimum(sq.law_delays(Pareto(0.7), T, seed=seed), 10 * T)
    if pattern == "example8":
        return sq.example8_delays(T, 2)
    raise ValueError(f"pattern must be one of {[p for _, p in PATTERNS]}; got {pattern!r}")


def make_losses(kind: str, horizon: int, gap: float, delays, seed: int = 0) -> np.ndarray:
    if kind == "bernoulli":
        return sq.bernoulli_losses([0.5 - gap / 2, 0.5 + gap / 2], horizon, seed=seed)
    if kind == "switching":
        return sq.switching_losses(horizon, 2, gap=gap, phases=3, seed=seed)
    if kind == "slow":
        return sq.slow_informative_losses(delays, 5, gap=gap, seed=seed)
    raise ValueError(f"losses must be one of {[k for _, k in LOSSES]}; got {kind!r}")


def learner(name: str, eta: float, beta: float, delays) -> object:
    """The panel's learner ``name`` with the slider values η and β, on the delay sequence ``delays``."""
    if name == "Exp3":
        return Exp3()
    if name == "DEW":
        return DEW(eta=eta, dmax=float(np.max(delays)))
    if name == "Skipper":
        return Skipper(beta=beta, base=DEW(eta=eta, dmax=beta))
    if name == NO_SKIP:
        return Skipper.without_skipping(beta, eta)
    if name == "Doubling":
        return Doubling()
    if name == UNIFORM:
        return UniformRandom()
    raise ValueError(f"learner must be one of {[*NAMES, UNIFORM]}; got {name!r}")


def panel_setting(pattern, losses, delay, n_huge, gap, horizon, seed=0):
    """(setting, delays) of the panel at these values (delays revealed at action time)."""
    d = make_delays(pattern, horizon, delay, n_huge, seed)
    return AdversarialLosses(make_losses(losses, horizon, gap, d, seed), d, reveal="at_action"), d


def panel_result(names=(*NAMES, UNIFORM), checkpoints=1, **values):
    """The panel's learners ``names`` on the panel's runs at fixed values (:data:`DEFAULTS`, with
    ``values`` changed), without a panel: the same policies, setting, runs and seed as
    :class:`AdversarialPanel` at those values, so the same final regrets."""
    unknown = set(values) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"panel_result takes the panel's values {sorted(DEFAULTS)}; got {sorted(unknown)}")
    v = {**DEFAULTS, **values}
    env, d = panel_setting(v["pattern"], v["losses"], v["delay"], v["n_huge"], v["gap"], v["horizon"], v["seed"])
    return simulate(env, {n: learner(n, v["eta"], v["beta"], d) for n in names}, v["horizon"], v["runs"], v["seed"],
                    checkpoints=checkpoints)


class Computed(NamedTuple):
    """What one update of :class:`AdversarialPanel` draws."""

    results: dict  # learner → its Result
    delays: np.ndarray  # the delay sequence d_t


class AdversarialPanel(Panel):
    """Interactive comparison of Exp3, DEW, Skipper and Doubling on oblivious delayed losses."""

    def __init__(self, pattern=DEFAULTS["pattern"], losses=DEFAULTS["losses"], beta=DEFAULTS["beta"],
                 eta=DEFAULTS["eta"], delay=DEFAULTS["delay"], n_huge=DEFAULTS["n_huge"], gap=DEFAULTS["gap"],
                 horizon=DEFAULTS["horizon"], runs=DEFAULTS["runs"], shown=NAMES, seed=DEFAULTS["seed"]):
        super().__init__(seed)
        self.pattern = W.Dropdown(options=PATTERNS, value=pattern, description="delays", style=_MENU, layout=_WIDE)
        self.losses = W.Dropdown(options=LOSSES, value=losses, description="losses", style=_MENU, layout=_WIDE)
        self.delay = W.IntSlider(value=delay, min=0, max=200, step=1, description="delay d",
                                 continuous_update=False, style=_STYLE, layout=_WIDE)
        self.n_huge = W.IntSlider(value=n_huge, min=0, max=50, step=1, description="huge delays",
                                  continuous_update=False, style=_STYLE, layout=_WIDE)
        self.gap = W.FloatSlider(value=gap, min=0.05, max=1.0, step=0.05, description="gap Δ",
                                 readout_format=".2f", continuous_update=False, style=_STYLE, layout=_WIDE)
        self.beta = W.FloatLogSlider(value=beta, base=10, min=0, max=4, step=0.05, description="threshold β",
                                     readout_format=".3g", continuous_update=False, style=_STYLE, layout=_WIDE)
        self.eta = W.FloatLogSlider(value=eta, base=10, min=-3, max=0, step=0.05, description="learning rate η",
                                    readout_format=".3g", continuous_update=False, style=_STYLE, layout=_WIDE)
        self.horizon = W.IntSlider(value=horizon, min=500, max=4000, step=250, description="horizon T",
                                   continuous_update=False, style=_STYLE, layout=_WIDE)
        self.runs = W.IntSlider(value=runs, min=5, max=60, step=5, description="runs",
                                continuous_update=False, style=_STYLE, layout=_WIDE)
        self.toggles = {n: W.Checkbox(value=n in shown, description=n, indent=False, layout=W.Layout(width="auto"))
                        for n in NAMES}
        self.tune = W.Button(description="β, η ← Corollary 4",
                             tooltip="Corollary 4's tuning (notebook 05, §3): "
                                     "β = √((eKT/2 + (1 + 4e)D)/(16e² ln K)), η = 1/(4eβ)",
                             layout=W.Layout(width="auto"))
        self.tune.on_click(lambda _: self.use_corollary4())
        self.regret = CurvePlot([*NAMES, UNIFORM, YOUR_POLICY],
                                title="Regret against the best fixed arm (mean, 95% band)", height=430)
        self.terms = self._terms_figure()
        self.save = SaveButton(self.regret.fig, "adversarial-delays-regret")
        self._cache = ResultCache(60)
        self._hold = False
        for w in [self.pattern, self.losses, self.delay, self.n_huge, self.gap, self.beta, self.eta,
                  self.horizon, self.runs, *self.toggles.values()]:
            w.observe(self._changed, names="value")
        self.start()

    # ------------------------------------------------------------------ figures
    @staticmethod
    def _terms_figure():
        fig = go.Figure()
        for name, color, dash in [("|S_β|: skipped rounds", "#D55E00", "dash"),
                                  ("(KTe/2 + D_β)/(4eβ)", WINE, "dash"),
                                  ("4eβ ln K", SKY, "dash"),
                                  ("bound (3), η = 1/(4eβ)", "#000000", "solid")]:
            fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name=name, line=dict(color=color, dash=dash, width=2)))
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="β of the slider",
                                 line=dict(color=style("Skipper")["color"], width=2)))
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="β of Corollary 4",
                                 line=dict(color="#7F7F7F", dash="dot", width=2)))
        fig.update_xaxes(type="log", title_text="threshold β")
        fig.update_yaxes(type="log", title_text="terms of Theorem 3")
        figure_layout(fig, 340, "Theorem 3 along β for this delay sequence", margin=dict(t=50))
        return FigureWidget(fig)

    # ------------------------------------------------------------------ events
    def _changed(self, change):
        if not self._hold:
            self.update()

    def use_corollary4(self) -> None:
        """Set β and η to Corollary 4's tuning for the current sequence (T and D known)."""
        d = self._delays()
        b = corollary4_beta(2, self.horizon.value, float(d.sum()))
        self._hold = True
        try:
            self.beta.value = float(np.clip(b, 1.0, 1e4))
            self.eta.value = float(np.clip(1 / (4 * E * self.beta.value), 1e-3, 1.0))
        finally:  # never left holding: every later move would be ignored
            self._hold = False
        self.update()

    # ------------------------------------------------------------------ computation
    def _policy(self, name, delays):
        return learner(name, self.eta.value, self.beta.value, delays)

    def _key(self, name):
        """What a learner's result depends on (its cache key)."""
        pattern = self.pattern.value
        setting = (pattern, self.losses.value, round(self.gap.value, 4), self.horizon.value, self.runs.value,
                   self.delay.value if pattern in ("spikes", "fixed", "geometric") else None,
                   self.n_huge.value if pattern == "spikes" else None, self.seed)
        if name == UNIFORM and self.losses.value != "slow":  # the delays do not reach it, nor its losses
            return (name, (self.losses.value, round(self.gap.value, 4), self.horizon.value, self.runs.value, self.seed), ())
        # DEW, Skipper and its twin depend on η only through their truncated rates η'
        own = {"DEW": (float(f"{self._rates()[0]:.8g}"),),
               "Skipper": (float(f"{self._rates()[1]:.8g}"), round(self.beta.value, 6)),
               NO_SKIP: (float(f"{self._rates()[1]:.8g}"),)}
        return (name, setting, own.get(name, ()))

    def _caps(self) -> dict:
        """The caps on η: DEW's 1/(4e·d_max) (Algorithm 1) and Skipper's base's 1/(4eβ)."""
        dmax = float(self._delays().max())
        skipper = 1 / (4 * E * self.beta.value)
        return {"DEW": 1 / (4 * E * dmax) if dmax > 0 else np.inf, "Skipper": skipper, NO_SKIP: skipper}

    def _rates(self):
        """η' = min(η, cap) of DEW and of Skipper's base."""
        caps = self._caps()
        return min(self.eta.value, caps["DEW"]), min(self.eta.value, caps["Skipper"])

    def _delays(self):
        key = (self.pattern.value, self.horizon.value, self.delay.value, self.n_huge.value, self.seed)
        if getattr(self, "_delays_key", None) != key:
            self._delays_key, self._delays_value = key, make_delays(*key)
        return self._delays_value

    def selected(self) -> list[str]:
        self.delay.disabled = self.pattern.value in ("pareto", "example8")
        self.n_huge.disabled = self.pattern.value != "spikes"
        return [n for n, box in self.toggles.items() if box.value]

    # ------------------------------------------------------------------ the panel's hooks
    def compute(self) -> Computed:
        """Run the selected learners (and uniform random play) not cached yet for the current settings."""
        T, R = self.horizon.value, self.runs.value
        delays = self._delays()
        names = [*self.selected(), UNIFORM]
        todo = [n for n in names if self._key(n) not in self._cache]
        if todo:
            env, _ = panel_setting(self.pattern.value, self.losses.value, self.delay.value, self.n_huge.value,
                                   self.gap.value, T, self.seed)
            res = self.simulate(env, {n: self._policy(n, delays) for n in todo}, T, R, self.seed, checkpoints=200)
            for n in todo:
                self._cache[self._key(n)] = res
        self.recomputed = todo
        return Computed(together({n: self._cache[self._key(n)] for n in names}, self.budget.partial), delays)

    def notes(self, c: Computed) -> list[str]:
        delays, beta = c.delays, self.beta.value
        dmax, D = int(delays.max()), float(delays.sum())
        S = int(np.count_nonzero(delays >= beta))
        Dbeta = float(delays[delays < beta].sum())
        return [f"delays: largest d_max = {dmax:,}, total D = {D:,.0f}",
                f"DEW learns at η' = min(η, 1/(4e·d_max)) = {self._rates()[0]:.2e}",
                f"Skipper skips the |S_β| = {S:,} rounds of delay ≥ β (the others' delays sum to D_β = {Dbeta:,.0f}) "
                f"and learns at η' = min(η, 1/(4eβ)) = {self._rates()[1]:.2e}; without skipping, its base learns "
                "at the same rate from every loss",
                self._eta_note()]

    def draw(self, c: Computed) -> None:
        """The regret curves."""
        self.regret.show_curves({n: (res, n) for n, res in c.results.items()})

    def draw_below(self, c: Computed) -> None:
        """The terms of Theorem 3 along β."""
        self._draw_terms(c.delays)

    def _eta_note(self) -> str:
        """Say so when moving η cannot change any curve shown (η matters only below a cap)."""
        caps = self._caps()
        shown = [caps[n] for n in self.selected() if n in caps]
        if not shown:
            return "η is used only by DEW, Skipper and Skipper without skipping, all hidden"
        if self.eta.value < max(shown):
            return ""
        return f"η is above the cap of every learner shown: it changes nothing until η < {max(shown):.2e}"

    def _draw_terms(self, delays):
        T = self.horizon.value
        b = np.geomspace(1, max(10.0, 2 * T), 200)
        bound, S, Db = theorem3_bound(2, T, delays, b)
        b4 = corollary4_beta(2, T, float(delays.sum()))
        top = float(np.nanmax(bound)) * 1.5
        f = self.terms
        with f.batch_update():
            for i, y in enumerate([S, (2 * T * E / 2 + Db) / (4 * E * b), 4 * E * b * math.log(2), bound]):
                f.data[i].x, f.data[i].y = b, np.maximum(y, 0.5)
            f.data[4].x, f.data[4].y = [self.beta.value] * 2, [0.5, top]
            f.data[5].x, f.data[5].y = [b4] * 2, [0.5, top]

    def controls(self) -> list:
        toggles = W.GridBox(list(self.toggles.values()),
                            layout=W.Layout(grid_template_columns="repeat(2, max-content)", grid_gap="0 16px"))
        return [section("Delays and losses", self.pattern, self.delay, self.n_huge, self.losses, self.gap),
                section("Learners", self.beta, self.eta, self.tune, toggles,
                        note="Exp3: η tuned for no delay · DEW(η, d_max) · Skipper(β, DEW(η, β)) · "
                             "without skipping: DEW(η, β) fed every loss · Doubling: no parameter · "
                             "uniform random play: always drawn"),
                section("Simulation", self.horizon, self.runs)]

    def below(self) -> list:
        return [self.terms]

    def race_setting(self) -> RaceSetting:
        """The panel's runs, for "your policy" (context: the delays d_t, d_max, η, β)."""
        T, R, delays = self.horizon.value, self.runs.value, self._delays()
        env, _ = panel_setting(self.pattern.value, self.losses.value, self.delay.value, self.n_huge.value,
                               self.gap.value, T, self.seed)
        context = {"delays": delays, "dmax": float(delays.max()), "eta": float(self.eta.value),
                   "beta": float(self.beta.value)}
        return RaceSetting(env, T, R, self.seed, 200, context,
                           self._key(YOUR_POLICY)[1] + (round(self.eta.value, 10), round(self.beta.value, 6)))
