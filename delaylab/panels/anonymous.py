"""The live panel of notebook 04: delayed, aggregated, anonymous feedback (Pike-Burke et al. 2018).

Two Bernoulli arms θ = (0.5, 0.5 − Δ): the better arm is arm 1, played first in every phase. Controls:
the delay law and its mean E[τ], the bound d that ODAAF-B is told, the variance V that ODAAF-V is
told, the gap Δ, the horizon and the number of runs. When the law or its mean changes, d and V are
reset to the law's true values (a bound: 2E[τ] for the uniform law, the 99.9% quantile otherwise —
unbounded laws have none, so there ODAAF-B runs outside the paper's Assumption 2; V exactly, which
the slider shows to its step of 0.1); raise them to see what a loose belief costs: longer phases (for
d, only past :func:`odaaf_b_binding_bound`). Told less than the truth, the variants run outside the
paper's Assumptions 2 and 3, so the paper's guarantees do not apply. What ODAAF-V's regret does, told
each of a few V at the defaults (T = 5000) and at T = 50,000, is in notebook 04 ("What a loose d or V
costs"), checked there by :func:`delaylab.papers.pikeburke2018.loose_variance_claims` and
:func:`delaylab.papers.pikeburke2018.loose_variance_costs`, for those V only. A d below E[τ] is not a
bound: ODAAF-B is then not run. Uniform random
play is drawn as the reference, as its exact expected regret t·Δ/2 (:func:`uniform_regret`: it
ignores feedback, so the delays do not change it; a simulation of ``dl.UniformRandom`` agrees, within
its noise, tests/test_pikeburke2018_panel.py).

The table under the figure gives, per policy, the regret at T (at the last step shown while a shorter
first answer is drawn: every result drawn then is cut to its runs and steps, :func:`.results.together`)
and when an arm was eliminated: the
worse arm (right) or the better one (a wrong elimination: the policy then plays the worse arm to
the end). "Your policy" (a student's elimination test raced with ``ex.race``) has its row too, from
its own runs (the same runs and horizon as its curve), so what a wrong elimination costs shows.

Results are cached per policy and the inputs it depends on (moving d reruns ODAAF-B only).
Ranges keep every update within about a second or two: E[τ] ∈ [0.5, 50], T ≤ 100,000, runs ≤ 40
(QPM-D and the ODAAF family run compiled).
"""

from __future__ import annotations

import html
import math
from typing import NamedTuple

import ipywidgets as W
import numpy as np

from ..laws import Fixed, Geometric, HalfNormal, Poisson, Uniform
from ..policies.improved_ucb import ImprovedUCB
from ..policies.odaaf import ODAAF, ODAAFB, ODAAFV, Phased, odaaf_b_binding_bound
from ..policies.qpmd import QPMD
from ..policies.simple import UNIFORM
from ..policies.ucb import UCB1
from ..settings.bernoulli import AggregatedAnonymous, LabelledRewards
from ..viz.plots import CurvePlot
from ..viz.save import SaveButton
from .base import Panel
from .layout import section
from .race import YOUR_POLICY, RaceSetting
from .results import ResultCache, together

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


def uniform_regret(means, times):
    """Uniform random play's expected regret after t steps: t times the mean gap, t·Σ_k Δ_k/K (exact)."""
    theta = np.asarray(means, dtype=float)
    return np.asarray(times, dtype=float) * float(np.mean(theta.max() - theta))


def true_bound(law) -> int:
    """The largest delay of a uniform law; the 99.9% quantile of an unbounded one."""
    return int(law.get_params()["high"]) if isinstance(law, Uniform) else int(law.ppf(0.999))


class Computed(NamedTuple):
    """What one update of :class:`AnonymousPanel` draws."""

    results: dict  # policy name → its Result
    law: object
    horizon: int
    valid_b: bool  # whether ODAAF-B's d is a bound (≥ E[τ]): else it is not run
    shown: int = 0  # the last step drawn: T, or a first answer's shorter T' (0: T)

    @property
    def last_step(self) -> int:
        return self.shown or self.horizon


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
        self.variance = W.FloatSlider(value=0.0, min=0.0, max=3000.0, step=0.1, description="ODAAF-V told V",
                                      readout_format=".1f", continuous_update=False, style=_STYLE, layout=_WIDE)
        self.gap = W.FloatSlider(value=gap, min=0.05, max=0.45, step=0.01, description="gap Δ",
                                 readout_format=".2f", continuous_update=False, style=_STYLE, layout=_WIDE)
        self.horizon = W.IntSlider(value=horizon, min=2000, max=100_000, step=1000, description="horizon T",
                                   continuous_update=False, style=_STYLE, layout=_WIDE)
        self.runs = W.IntSlider(value=runs, min=4, max=40, step=2, description="runs",
                                continuous_update=False, style=_STYLE, layout=_WIDE)
        self.truth = W.HTML()
        self.summary = W.HTML()
        self.regret = CurvePlot([*NAMES, UNIFORM, YOUR_POLICY], title="Cumulative regret (mean and 95% band over runs)", height=430)
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
        """d and V told to ODAAF-B/-V: the law's true values (V exactly: the slider's readout and the
        law's line both show it to 0.1)."""
        law = self.delay_law
        self._hold = True
        try:
            self.bound.value = min(true_bound(law), self.bound.max)
            self.variance.value = min(float(law.var), self.variance.max)
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
        partial = self.budget.partial
        return Computed(together({n: self._cache[keys[n]] for n in names}, partial), law, T, valid_b,
                        T if partial is None else partial[0])

    def notes(self, c: Computed) -> list[str]:
        mu = float(c.law.mean)
        binds = odaaf_b_binding_bound(c.horizon, mu)
        return [f"ODAAF-B is not run: d = {self.bound.value} < E[τ] = {mu:.2f} is not a bound on the delays"
                if not c.valid_b else
                f"ODAAF-B's phases depend on d only for d > {binds:,.0f}: below, moving d changes nothing"
                if self.bound.value <= binds else "", self._unfinished(c)]

    def _unfinished(self, c: Computed) -> str:
        """The phased policies that eliminate nothing within T in any run: until a first elimination
        they play the arms in a fixed order (the better arm first), so their regret shows that order,
        not what they learnt."""
        idle = [n for n, res in c.results.items() if n in res.traces and "eliminated_at" in res.traces[n]
                and not np.any(res.traces[n]["eliminated_at"][:, -1, :] >= 0)]
        if not idle:
            return ""
        within = (f"T = {c.horizon:,}" if c.last_step >= c.horizon else
                  f"the T = {c.last_step:,} steps shown so far")
        return (f"{', '.join(idle)} {'eliminates' if len(idle) == 1 else 'eliminate'} nothing within "
                f"{within}: {'its' if len(idle) == 1 else 'their'} regret only reflects the order of play "
                "(the better arm first in every phase), not learning")

    def draw(self, c: Computed) -> None:
        """The regret curves, and uniform random play's expected regret."""
        self.regret.show_curves({n: (res, n) for n, res in c.results.items()})
        times = next(iter(c.results.values())).times
        self.regret.set(UNIFORM, times, uniform_regret(self.means, times))

    def simulate(self, setting, policies, horizon, runs, seed=0, **kwargs):
        """The base's :meth:`~.base.Panel.simulate`; a raced phased policy (a student's elimination test)
        is traced, so that the table gives its eliminations too."""
        if YOUR_POLICY in policies and isinstance(policies[YOUR_POLICY], Phased):
            kwargs.setdefault("trace", True)
        return super().simulate(setting, policies, horizon, runs, seed, **kwargs)

    def table_rows(self, c: Computed | None = None) -> list[tuple]:
        """(policy, regret at T: mean, 95% half-width, worse arm eliminated, better arm eliminated) per
        row of the table (of the last update when ``c`` is None), uniform random play after the
        paper's policies and "your policy" last (when one is raced and drawn); the eliminations as
        (share of runs, median step) or None where the policy has no phases."""
        if c is None:
            c = self._drawn[0]
        shown = [(n, res, n) for n, res in c.results.items()]
        raced = self.race_result
        if raced is not None:
            shown.append((self.raced.label, raced, raced.names[0]))
        rows = []
        for label, res, key in shown:
            final = res.final(key)
            half = 1.96 * final.std(ddof=1) / np.sqrt(final.size) if final.size > 1 else float("nan")
            elim = [None, None]
            if key in res.traces and "eliminated_at" in res.traces[key]:
                at = res.traces[key]["eliminated_at"][:, -1, :]
                for arm in (1, 0):
                    done = at[:, arm] >= 0
                    elim[1 - arm] = (float(done.mean()), int(np.median(at[done, arm])) if done.any() else None)
            rows.append((label, float(final.mean()), float(half), elim[0], elim[1]))
        rows.insert(len(c.results), (UNIFORM, float(uniform_regret(self.means, c.last_step)), float("nan"), None,
                                     None))
        return rows

    def draw_below(self, c: Computed) -> None:
        """The law's facts under its controls, and the table of final regrets and eliminations."""
        law = c.law
        self.truth.value = (f"<div style='color:#555;font-size:12px;line-height:1.35'>{law.label}: "
                            f"E[τ] = {float(law.mean):.2f}, V(τ) = {float(law.var):.1f}, "
                            f"{'largest delay' if isinstance(law, Uniform) else '99.9% quantile'} = "
                            f"{true_bound(law)}; θ = {self.means}</div>")

        def when(e):
            if e is None:
                return "—"
            share, step = e
            return f"{share:.0%} of runs, median step {step:,}" if share > 0 else f"none within {at}"

        at = "T" if c.last_step >= c.horizon else f"T = {c.last_step:,}"  # a first answer's shorter run
        rows, pad = [], " style='padding:2px 14px 2px 0'"
        num = " style='padding:2px 14px 2px 0;text-align:right;white-space:nowrap'"
        for label, mean, half, worse, better in self.table_rows(c):
            digits = 1 if half < 10 else 0  # "± 0" would say the runs all agree
            cell = f"{mean:,.{digits}f} ± {half:,.{digits}f}" if np.isfinite(half) else f"{mean:,.1f} (exact)"
            rows.append(f"<tr><td{pad}>{html.escape(label)}</td><td{num}>{cell}</td><td{pad}>{when(worse)}</td>"
                        f"<td{pad}>{when(better)}</td></tr>")
        self.summary.value = ("<div style='overflow-x:auto;max-width:100%'>"  # a phone scrolls it, the page does not
                              "<table style='font-size:13px;line-height:1.5;border-collapse:collapse'>"
                              f"<caption style='text-align:left;font-weight:bold;padding:0 0 4px 0'>Regret at {at} and "
                              f"eliminations, per policy{'' if at == 'T' else ' (a shorter run, so far)'}</caption>"
                              f"<tr><th{pad} scope='col'>policy</th><th{pad} scope='col'>regret at {at} (95% CI)</th>"
                              f"<th{pad} scope='col'>worse arm eliminated</th>"
                              f"<th{pad} scope='col'>better arm eliminated (wrong)</th></tr>"
                              + "".join(rows) + "</table></div>")

    def controls(self) -> list:
        return [section("Delays", self.law, self.mean_delay, self.truth),
                section("What the variants are told", self.bound, self.variance,
                        note="reset to the truth when the law changes (for an unbounded law, d is its 99.9% quantile: "
                             "ODAAF-B is then outside the paper's Assumption 2)"),
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
