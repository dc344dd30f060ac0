"""The live panel of notebook 04: delayed, aggregated, anonymous feedback (Pike-Burke et al. 2018).

Two Bernoulli arms θ = (0.5, 0.5 − Δ). Controls: the delay law and its mean E[τ], the bound d
that ODAAF-B is told, the variance V that ODAAF-V is told, the gap Δ, the horizon and the number
of runs. When the law or its mean changes, d and V are reset to the law's true values (a bound:
2E[τ] for the uniform law, the 99.9% quantile otherwise — unbounded laws have none); move them
to see what a wrong belief costs. A d below E[τ] is not a bound: ODAAF-B is then not run.

Results are cached per policy and the inputs it depends on (moving d reruns ODAAF-B only).
Ranges keep every update within about a second or two: E[τ] ∈ [0.5, 50], T ≤ 100,000, runs ≤ 40
(QPM-D and the ODAAF family run compiled).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import ipywidgets as W
import numpy as np

from ..laws import Fixed, Geometric, HalfNormal, Poisson, Uniform
from ..policies.improved_ucb import ImprovedUCB
from ..policies.odaaf import ODAAF, ODAAFB, ODAAFV, odaaf_b_binding_bound
from ..policies.qpmd import QPMD
from ..policies.ucb import UCB1
from ..settings.bernoulli import AggregatedAnonymous, LabelledRewards
from ..viz.plots import CurvePlot
from ..viz.save import SaveButton
from .base import Panel
from .layout import section
from .race import YOUR_POLICY, RaceSetting
from .results import ResultCache

NAMES = ("ODAAF", "ODAAF-B", "ODAAF-V", "QPM-D", "Improved UCB")
LAWS = {"uniform on {0, …, 2E[τ]}": "uniform", "Poisson": "poisson", "half-normal": "halfnormal",
        "geometric": "geometric"}
_STYLE = {"description_width": "120px"}
_WIDE = W.Layout(width="340px")


def make_law(kind: str, mean: float):
    """The delay law of a kind with expected delay ≈ ``mean``."""
    if kind == "uniform":
        return Uniform(0, int(round(2 * mean)))
    if kind == "poisson":
        return Poisson(mean)
    if kind == "halfnormal":
        return HalfNormal((mean + 0.5) * math.sqrt(math.pi / 2))
    if kind == "geometric":
        return Geometric(mean)
    raise ValueError(f"law must be one of {sorted(LAWS.values())}; got {kind!r}")


def true_bound(law) -> int:
    """The largest delay of a uniform law; the 99.9% quantile of an unbounded one."""
    return int(law.get_params()["high"]) if isinstance(law, Uniform) else int(law.ppf(0.999))


class Computed(NamedTuple):
    """What one update of :class:`AnonymousPanel` draws."""

    results: dict  # policy name → its Result
    law: object
    horizon: int
    valid_b: bool  # whether ODAAF-B's d is a bound (≥ E[τ]): else it is not run


class AnonymousPanel(Panel):
    """Interactive comparison of ODAAF, ODAAF-B, ODAAF-V, QPM-D and Improved UCB (no delay)."""

    def __init__(self, law="uniform", mean_delay=10.0, gap=0.3, horizon=5000, runs=20, seed=0):
        super().__init__(seed)
        self.law = W.Dropdown(options=list(LAWS.items()), value=law, description="delay law",
                              style=_STYLE, layout=_WIDE)
        self.mean_delay = W.FloatSlider(value=mean_delay, min=0.5, max=50, step=0.5, description="E[τ]",
                                        readout_format=".1f", continuous_update=False, style=_STYLE, layout=_WIDE)
        self.bound = W.IntSlider(value=0, min=0, max=3000, step=1, description="ODAAF-B told d",
                                 continuous_update=False, style=_STYLE, layout=_WIDE)
        self.variance = W.FloatSlider(value=0.0, min=0.0, max=3000.0, step=0.5, description="ODAAF-V told V",
                                      readout_format=".1f", continuous_update=False, style=_STYLE, layout=_WIDE)
        self.gap = W.FloatSlider(value=gap, min=0.05, max=0.45, step=0.01, description="gap Δ",
                                 readout_format=".2f", continuous_update=False, style=_STYLE, layout=_WIDE)
        self.horizon = W.IntSlider(value=horizon, min=2000, max=100_000, step=1000, description="horizon T",
                                   continuous_update=False, style=_STYLE, layout=_WIDE)
        self.runs = W.IntSlider(value=runs, min=4, max=40, step=2, description="runs",
                                continuous_update=False, style=_STYLE, layout=_WIDE)
        self.truth = W.HTML()
        self.summary = W.HTML()
        self.regret = CurvePlot([*NAMES, YOUR_POLICY], title="Cumulative regret (mean and 95% band over runs)", height=430)
        self.save = SaveButton(self.regret.fig, "aggregated-anonymous-regret")
        self._cache = ResultCache(80)
        self._hold = False
        self._reset_beliefs()
        for w in [self.bound, self.variance, self.gap, self.horizon, self.runs]:
            w.observe(self._changed, names="value")
        for w in [self.law, self.mean_delay]:
            w.observe(self._law_changed, names="value")
        self.start()

    # ------------------------------------------------------------------ events
    def _changed(self, change):
        if not self._hold:
            self.update()

    def _law_changed(self, change):
        if self._hold:
            return
        self._reset_beliefs()
        self.update()

    def _reset_beliefs(self):
        """d and V told to ODAAF-B/-V: the law's true values."""
        law = self.delay_law
        self._hold = True
        try:
            self.bound.value = min(true_bound(law), self.bound.max)
            self.variance.value = min(round(float(law.var) * 2) / 2, self.variance.max)
        finally:  # never left holding: every later move would be ignored
            self._hold = False

    # ------------------------------------------------------------------ state
    @property
    def delay_law(self):
        return make_law(self.law.value, float(self.mean_delay.value))

    @property
    def means(self) -> tuple:
        return (0.5, round(0.5 - self.gap.value, 4))

    def _key(self, name, law_key, common):
        extra = {"ODAAF-B": (self.bound.value,), "ODAAF-V": (self.variance.value,)}.get(name, ())
        if name == "Improved UCB":
            return (name,) + common + extra
        return (name, law_key) + common + extra

    def _policy(self, name, mu):
        return {"ODAAF": lambda: ODAAF(mean_delay=mu),
                "ODAAF-B": lambda: ODAAFB(mean_delay=mu, bound=float(self.bound.value)),
                "ODAAF-V": lambda: ODAAFV(mean_delay=mu, variance=float(self.variance.value)),
                "QPM-D": lambda: QPMD(UCB1()), "Improved UCB": lambda: ImprovedUCB()}[name]()

    # ------------------------------------------------------------------ the panel's hooks
    def compute(self) -> Computed:
        """Run what the current settings need and is not cached (moving d reruns ODAAF-B only)."""
        law = self.delay_law
        mu = float(law.mean)
        theta, T, R = self.means, self.horizon.value, self.runs.value
        law_key = (self.law.value, float(self.mean_delay.value))
        common = (theta, T, R, self.seed)
        valid_b = self.bound.value >= mu
        names = [n for n in NAMES if n != "ODAAF-B" or valid_b]
        keys = {n: self._key(n, law_key, common) for n in names}
        todo = [n for n in names if keys[n] not in self._cache]
        groups = {"anonymous": [n for n in todo if n.startswith("ODAAF")],
                  "labelled": [n for n in todo if n == "QPM-D"],
                  "no delay": [n for n in todo if n == "Improved UCB"]}
        for kind, group in groups.items():
            if not group:
                continue
            env = {"anonymous": lambda: AggregatedAnonymous(theta, law),
                   "labelled": lambda: LabelledRewards(theta, law),
                   "no delay": lambda: AggregatedAnonymous(theta, Fixed(0))}[kind]()
            res = self.simulate(env, {n: self._policy(n, mu) for n in group}, T, R, self.seed, checkpoints=300,
                                trace=kind == "anonymous")
            for n in group:
                self._cache[keys[n]] = res
        self.recomputed = todo
        return Computed({n: self._cache[keys[n]] for n in names}, law, T, valid_b)

    def notes(self, c: Computed) -> list[str]:
        mu = float(c.law.mean)
        binds = odaaf_b_binding_bound(c.horizon, mu)
        return [f"ODAAF-B is not run: d = {self.bound.value} < E[τ] = {mu:.2f} is not a bound on the delays"
                if not c.valid_b else
                f"ODAAF-B's phases depend on d only for d > {binds:,.0f}: below, moving d changes nothing"
                if self.bound.value <= binds else ""]

    def draw(self, c: Computed) -> None:
        """The regret curves."""
        self.regret.show_curves({n: (res, n) for n, res in c.results.items()})

    def draw_below(self, c: Computed) -> None:
        """The law's facts under its controls, and the table of final regrets and eliminations."""
        law = c.law
        self.truth.value = (f"<div style='color:#555;font-size:12px;line-height:1.35'>{law.label}: "
                            f"E[τ] = {float(law.mean):.2f}, V(τ) = {float(law.var):.1f}, "
                            f"{'largest delay' if isinstance(law, Uniform) else '99.9% quantile'} = "
                            f"{true_bound(law)}; θ = {self.means}</div>")
        rows, pad = [], " style='padding:0 10px 0 0'"
        for n, res in c.results.items():
            final = res.final(n)
            half = 1.96 * final.std(ddof=1) / np.sqrt(final.size)
            digits = 1 if half < 10 else 0  # "± 0" would say the runs all agree
            cell = f"{final.mean():,.{digits}f} ± {half:,.{digits}f}"
            elim = ""
            if n in res.traces:
                at = res.traces[n]["eliminated_at"][:, -1, 1]
                share = float(np.mean(at >= 0))
                elim = (f"{share:.0%} of runs, median step {int(np.median(at[at >= 0])):,}" if share > 0
                        else "not within T")
            rows.append(f"<tr><td{pad}>{n}</td><td style='padding:0 10px 0 0;text-align:right'>{cell}</td>"
                        f"<td{pad}>{elim}</td></tr>")
        self.summary.value = (f"<table style='font-size:13px;line-height:1.5'><tr><th{pad}>policy</th>"
                              f"<th{pad}>regret at T (95% CI)</th><th{pad}>worse arm eliminated</th></tr>"
                              + "".join(rows) + "</table>")

    def controls(self) -> list:
        return [section("Delays", self.law, self.mean_delay, self.truth),
                section("What the variants are told", self.bound, self.variance,
                        note="reset to the truth when the law changes"),
                section("Arms and simulation", self.gap, self.horizon, self.runs)]

    def below(self) -> list:
        return [self.summary]

    def race_setting(self) -> RaceSetting:
        """The panel's runs with anonymous feedback, for "your policy" (context: the delay law, its mean
        E[τ], the bound d of ODAAF-B and the variance V of ODAAF-V)."""
        law = self.delay_law
        common = (self.means, self.horizon.value, self.runs.value, self.seed)
        return RaceSetting(AggregatedAnonymous(self.means, law), self.horizon.value, self.runs.value, self.seed,
                           300, {"delay": law, "mean_delay": float(law.mean), "bound": float(self.bound.value),
                                 "variance": float(self.variance.value)},
                           (self.law.value, float(self.mean_delay.value), self.bound.value, self.variance.value)
                           + common)
