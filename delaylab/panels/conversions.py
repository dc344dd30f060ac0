"""The live panel of notebook 01: delayed conversions (Vernade, Cappé, Perchet 2017).

Sliders set the mean delay μ (geometric delays), the censoring window m, the conversion rates,
the horizon and the number of runs; check boxes choose the policies. Every change reruns the
selected policies (results are cached per policy and setting, so toggling a policy already
computed is instant) and redraws the regret curves and the delay CDF in place. Uniform random
play is always drawn, on the same draws: the reference a learner must beat.

The default comparison isolates the delay-corrected count Ñ: each delay-corrected policy is shown
beside the same policy "without Ñ", told that conversions arrive at once (``Fixed(0)``, so that
Ñ = N): the two differ in Ñ alone. D-UCB without Ñ is UCB1 with the constant 1/2, run by run;
UCB1 itself (constant 2) differs from D-UCB in its exploration constant as well.

Ranges are bounded so that no combination fails or takes more than a few seconds: μ ∈ [10, 5000],
m ∈ [0, 5000], θ_k ∈ [0.01, 0.9], T ≤ 20,000, runs ≤ 200.
"""

from __future__ import annotations

from typing import NamedTuple

import ipywidgets as W
import numpy as np

from .. import bounds
from ..laws import Fixed, Geometric
from ..policies.delayed import DelayedKLUCB, DelayedUCB
from ..policies.discarding import DiscardingKLUCB, DiscardingUCB
from ..policies.simple import UNIFORM, UniformRandom
from ..policies.ucb import KLUCB, UCB1
from ..settings.bernoulli import Conversions
from ..viz.plots import CurvePlot, DelayCdfPlot
from ..viz.save import SaveButton
from .base import Panel
from .fields import Presets
from .layout import section
from .race import YOUR_POLICY, RaceSetting
from .results import ResultCache, together

THETA_L = (0.1, 0.05, 0.03)
THETA_H = (0.5, 0.4, 0.3)
#: the suffix of a delay-corrected policy told that conversions arrive at once (Ñ = N)
WITHOUT = " without Ñ"
TOGGLES = ("D-UCB", "D-UCB" + WITHOUT, "D-KLUCB", "D-KLUCB" + WITHOUT, "Discarding UCB", "Discarding KL-UCB",
           "UCB1", "KL-UCB")
#: what the panel shows at first: each delay-corrected index beside itself without Ñ (they differ in Ñ
#: alone), and Discarding KL-UCB (Exercise 1.3)
SHOWN = ("D-UCB", "D-UCB" + WITHOUT, "D-KLUCB", "D-KLUCB" + WITHOUT, "Discarding KL-UCB")
BOUND = "asymptotic lower bound (Theorems 3–4)"
_STYLE = {"description_width": "105px"}
_WIDE = W.Layout(width="320px")


def make_policy(toggle: str, law, window):
    """The policy behind a toggle, told the delay law and the window (None: uncensored).

    "… without Ñ" is the same policy told that every conversion arrives at once (``Fixed(0)``):
    its Ñ is N, so theta_hat = S/N and D-UCB's factor sqrt(N/Ñ) is 1. It differs from the policy in Ñ
    alone."""
    return {"UCB1": lambda: UCB1(), "KL-UCB": lambda: KLUCB(),
            "D-UCB": lambda: DelayedUCB(law, window), "D-KLUCB": lambda: DelayedKLUCB(law, window),
            "D-UCB" + WITHOUT: lambda: DelayedUCB(Fixed(0), window),
            "D-KLUCB" + WITHOUT: lambda: DelayedKLUCB(Fixed(0), window),
            "Discarding UCB": lambda: DiscardingUCB(law, window),
            "Discarding KL-UCB": lambda: DiscardingKLUCB(law, window),
            UNIFORM: lambda: UniformRandom()}[toggle]()


class Computed(NamedTuple):
    """What one update of :class:`ConversionsPanel` draws."""

    curves: dict  # curve name → (Result, the Result's policy name)
    law: Geometric
    window: int | None  # None: uncensored
    theta: tuple
    horizon: int
    mean_delay: float


#: the mean-delay slider's step, in log10: a factor of 2^(1/6) (about 1.12), so that doubling μ (the
#: guide's 500 → 1000) is six steps
MU_STEP = float(np.log10(2) / 6)


def mean_delay_grid_min(value, lowest=10.0) -> float:
    """The slider's lower end (log10): the grid point at or below ``lowest`` of a grid through
    ``value``, so that the slider can return to its initial value (the one the notebook's checks
    use) after it was moved (review nb01-r8, finding 6: with min = 1 and step 0.05, 500 was not on
    the grid, and the nearest reachable value was 501)."""
    steps = max(0, int(np.ceil(np.log10(value / lowest) / MU_STEP - 1e-9)))
    return float(np.log10(value) - steps * MU_STEP)


class ConversionsPanel(Panel):
    """Interactive comparison of the policies of Vernade et al. (2017) on delayed conversions."""

    def __init__(self, mean_delay=500, window=1000, censored=True, means=THETA_L, horizon=2500,
                 runs=60, shown=SHOWN, seed=0):
        super().__init__(seed)
        self.mean_delay = W.FloatLogSlider(value=mean_delay, base=10, min=mean_delay_grid_min(mean_delay),
                                           max=np.log10(5000), step=MU_STEP,
                                           description="mean delay μ", readout_format=".0f",
                                           continuous_update=False, style=_STYLE, layout=_WIDE)
        self.window = W.IntSlider(value=window, min=0, max=5000, step=50, description="window m",
                                  continuous_update=False, style=_STYLE, layout=_WIDE)
        self.censored = W.Checkbox(value=censored, description="censored at m", indent=False,
                                   tooltip="conversions later than m steps are never seen")
        self.horizon = W.IntSlider(value=horizon, min=500, max=20_000, step=500, description="horizon T",
                                   continuous_update=False, style=_STYLE, layout=_WIDE)
        self.runs = W.IntSlider(value=runs, min=10, max=200, step=10, description="runs",
                                continuous_update=False, style=_STYLE, layout=_WIDE)
        self.preset = W.Dropdown(options=[("θ_L = (0.1, 0.05, 0.03)", "L"), ("θ_H = (0.5, 0.4, 0.3)", "H"),
                                          ("custom", "custom")], value="L" if tuple(means) == THETA_L else
                                 ("H" if tuple(means) == THETA_H else "custom"),
                                 description="preset θ", style=_STYLE, layout=_WIDE)
        self.thetas = [W.FloatSlider(value=v, min=0.01, max=0.9, step=0.01, description=f"θ{k + 1}",
                                     readout_format=".2f", continuous_update=False, style=_STYLE, layout=_WIDE)
                       for k, v in enumerate(means)]
        self.toggles = {name: W.Checkbox(value=name in shown, description=name, indent=False, layout=W.Layout(width="auto"))
                        for name in TOGGLES}
        self.show_bound = W.Checkbox(value=True, description="lower bound (Theorems 3–4)", indent=False)
        curves = ["D-UCB", "UD-UCB", "D-UCB" + WITHOUT, "UD-UCB" + WITHOUT, "D-KLUCB", "UD-KLUCB",
                  "D-KLUCB" + WITHOUT, "UD-KLUCB" + WITHOUT, "Discarding UCB", "Discarding KL-UCB", "UCB1", "KL-UCB",
                  UNIFORM, YOUR_POLICY]
        self.regret = CurvePlot(curves, extra=[BOUND], title="Cumulative regret (mean and 95% band over runs)",
                                height=430)
        self.cdf = DelayCdfPlot()
        self.save = SaveButton(self.regret.fig, "delayed-conversions-regret")
        self._cache = ResultCache(60)
        for w in [self.mean_delay, self.window, self.censored, self.horizon, self.runs, *self.thetas,
                  *self.toggles.values(), self.show_bound]:
            w.observe(self._changed, names="value")
        self.presets = Presets(self.preset, self.thetas, {"L": THETA_L, "H": THETA_H}, self.update)
        self.start()

    # ------------------------------------------------------------------ events
    def _changed(self, change):
        if not self.presets.holding:  # a preset sets several sliders, then reruns once
            self.update()

    # ------------------------------------------------------------------ state
    @property
    def means(self) -> tuple:
        return tuple(round(s.value, 4) for s in self.thetas)

    @property
    def window_m(self):
        return self.window.value if self.censored.value else None

    def curve_name(self, toggle: str) -> str:
        """Legend name: D-UCB and D-KLUCB become UD-… in the uncensored model."""
        if toggle.startswith("D-") and self.window_m is None:
            return "U" + toggle
        return toggle

    def selected(self) -> list[str]:
        """The checked policies the model allows (no Discarding without a window), then uniform
        random play, always."""
        uncensored = self.window_m is None
        for name in ("Discarding UCB", "Discarding KL-UCB"):
            self.toggles[name].disabled = uncensored
        return [n for n, box in self.toggles.items()
                if box.value and not (uncensored and n.startswith("Discarding"))] + [UNIFORM]

    # ------------------------------------------------------------------ the panel's hooks
    def compute(self) -> Computed:
        """Run the selected policies not cached yet for the current settings."""
        mu = float(round(self.mean_delay.value))  # whole steps: a readable label, a stable cache key
        law = Geometric(mu)
        m, theta, T, R = self.window_m, self.means, self.horizon.value, self.runs.value
        config = (mu, m, theta, T, R, self.seed)
        names = self.selected()
        todo = [n for n in names if (n, config) not in self._cache]
        if todo:
            env = Conversions(theta, law, window=m)
            res = self.simulate(env, {n: make_policy(n, law, m) for n in todo}, T, R, self.seed, checkpoints=300)
            for n in todo:
                self._cache[(n, config)] = res
        self.recomputed = todo
        drawn = together({n: self._cache[(n, config)] for n in names}, self.budget.partial)
        return Computed({self.curve_name(n): (drawn[n], n) for n in names}, law, m, theta, T, mu)

    def notes(self, c: Computed) -> list[str]:
        return ["no gap: every arm is optimal" if len(set(c.theta)) == 1 else ""]

    def draw(self, c: Computed) -> None:
        """The regret curves and the lower bound."""
        self.regret.show_curves(c.curves)
        if self.show_bound.value and len(set(c.theta)) > 1:
            t = np.linspace(1, c.horizon, 300)
            slope = (bounds.lai_robbins_slope(c.theta) if c.window is None
                     else bounds.censored_slope(c.theta, c.law.cdf(c.window)))
            self.regret.set(BOUND, t, slope * np.log(t))
        else:
            self.regret.hide(BOUND)

    def draw_below(self, c: Computed) -> None:
        """The delay CDF."""
        mu, m = c.mean_delay, c.window
        self.cdf.show(c.law, m, d_max=int(max(3 * mu, 1.5 * (m or 0), 50)))  # room for the τ_m label

    def controls(self) -> list:
        toggles = W.GridBox(list(self.toggles.values()),
                            layout=W.Layout(grid_template_columns="repeat(2, max-content)", grid_gap="0 16px"))
        return [section("Delays and censoring", self.mean_delay, self.window, self.censored,
                        note="censored: conversions later than m steps are never seen"),
                section("Arms", self.preset, *self.thetas),
                section("Simulation", self.horizon, self.runs),
                section("Policies", toggles, self.show_bound)]

    def below(self) -> list:
        return [self.cdf.fig]

    def race_setting(self) -> RaceSetting:
        """The panel's runs, for "your policy" (context: the delay law and the window m, None if uncensored)."""
        law, m = Geometric(float(round(self.mean_delay.value))), self.window_m
        return RaceSetting(Conversions(self.means, law, window=m), self.horizon.value, self.runs.value, self.seed,
                           300, {"delay": law, "window": m}, (law.mean, m, self.means, self.horizon.value,
                                                               self.runs.value, self.seed))
