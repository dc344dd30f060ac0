"""Every figure of the workbook is legible: the curves a reader compares can be told apart, and
figure text is Unicode, not TeX, with a title on every axis.

Each paper's figures are built at tiny sizes (every simulation capped at a short horizon and two
runs: the styles do not depend on the numbers) and each panel at its defaults, just as short.
Within each subplot, the visible curves a legend names must differ in (colour, dash, marker);
and two curves whose colours are close (CIELAB distance below ``CLOSE``, e.g. sky blue against
blue) must also differ by a second channel: dash or marker.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import plotly.graph_objects as go
from plotly.basedatatypes import BaseFigure
import pytest

import importlib
from delaylab.panels import adversarial, anonymous, arm_delays, budget, conversions, linear, race
from delaylab.papers import manegueu2020, pikeburke2018, thune2019, vernade2017, vernade2020
from delaylab.viz.style import (BLUE, GREY, INDIGO, MID_GREY, ORANGE, PALETTE, PURPLE, SKY, STYLES, VERMILLION, WINE,
                                 assign_styles, style)

#: CIELAB distance under which two colours count as "the same hue" for a reader
CLOSE = 35.0
TEX = ("_{", "^{", "$", "\\")


# ------------------------------------------------------------------ colour distance
def _lab(hex_colour: str) -> tuple[float, float, float]:
    h = hex_colour.lstrip("#")
    rgb = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def distance(c1: str, c2: str) -> float:
    return math.dist(_lab(c1), _lab(c2))


def _hex(colour) -> str | None:
    if not isinstance(colour, str):
        return None
    if colour.startswith("#") and len(colour) == 7:
        return colour.upper()
    if colour.startswith("rgb"):
        vals = [float(v) for v in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3]]
        return "#" + "".join(f"{int(round(v)):02X}" for v in vals)
    return None


def test_distance_separates_the_complaints():
    # the issue's cases: D-UCB against D-KLUCB in two blues, two greens for α₂
    assert distance("#56B4E9", "#0072B2") < CLOSE
    assert distance("#009E73", "#44AA99") < CLOSE
    for a, b in itertools.combinations(PALETTE, 2):
        close = {frozenset(p) for p in [(BLUE, SKY), (ORANGE, VERMILLION), (PURPLE, WINE)]}
        assert (distance(a, b) < CLOSE) == (frozenset((a, b)) in close), (a, b)


# ------------------------------------------------------------------ what a figure shows
def curves(fig) -> dict:
    """{subplot (xaxis, yaxis): {name: (colour, dash, marker)}} of the visible, named curves."""
    out: dict = {}
    legend_names = {t.name for t in fig.data if t.showlegend is not False and t.name}
    for t in fig.data:
        if t.type != "scatter" or t.visible is False or not t.name:
            continue
        if t.fill in ("toself", "tonexty", "tozeroy") or (t.x is not None and len(t.x) == 0):
            continue
        if t.name not in legend_names and (t.legendgroup or t.name) not in legend_names:
            continue
        mode = t.mode or "lines"
        colour = _hex(t.line.color if "lines" in mode else t.marker.color)
        dash = (t.line.dash or "solid") if "lines" in mode else None
        marker = (t.marker.symbol or "circle") if "markers" in mode else None
        out.setdefault((t.xaxis or "x", t.yaxis or "y"), {})[t.name] = (colour, dash, marker)
    return out


def check_legible(fig, where: str) -> None:
    for sub, named in curves(fig).items():
        seen = {}
        for name, sig in named.items():
            assert sig not in seen, f"{where} {sub}: {name!r} and {seen[sig]!r} are drawn alike {sig}"
            seen[sig] = name
        for (n1, (c1, d1, m1)), (n2, (c2, d2, m2)) in itertools.combinations(named.items(), 2):
            if c1 and c2 and c1 != c2 and distance(c1, c2) < CLOSE:
                assert d1 != d2 or m1 != m2, (f"{where} {sub}: {n1!r} ({c1}) and {n2!r} ({c2}) have close colours "
                                              f"and no second channel (dash or marker)")


def texts(fig) -> list[str]:
    """Every text of a figure: trace names, titles, axis titles, annotations, legend title."""
    lay = fig.layout
    out = [t.name for t in fig.data if t.name]
    out.append(lay.title.text if lay.title else None)
    out += [a.text for a in (lay.annotations or ())]
    for key in dir(lay):
        if key.startswith(("xaxis", "yaxis")) and lay[key] is not None and lay[key].title is not None:
            out.append(lay[key].title.text)
    out.append(lay.legend.title.text if lay.legend and lay.legend.title else None)
    return [s for s in out if s]


def check_text(fig, where: str) -> None:
    for s in texts(fig):
        for bad in TEX:
            assert bad not in s, f"{where}: TeX in figure text {s!r}"


def check_axes(fig, where: str) -> None:
    """Every visible axis that carries data has a title."""
    lay = fig.layout
    used = {(t.xaxis or "x", t.yaxis or "y") for t in fig.data}
    for xa, ya in used:
        for ax in (xa, ya):
            obj = lay[ax.replace("x", "xaxis", 1) if ax.startswith("x") else ax.replace("y", "yaxis", 1)]
            if obj.visible is False:
                continue
            assert obj.title.text, f"{where}: axis {ax} has no title"


def check(fig, where: str) -> None:
    check_legible(fig, where)
    check_text(fig, where)
    check_axes(fig, where)


# ------------------------------------------------------------------ tiny simulations
@pytest.fixture
def tiny(monkeypatch):
    """Every simulation of the papers and panels capped at a short horizon and 2 runs."""
    real_sweep = importlib.import_module("delaylab.sweep").sweep
    real_sim = importlib.import_module("delaylab.engine").simulate

    def cap(args, kw):
        args = list(args)
        names = ["setting", "policies", "horizon", "runs", "seed"]
        for i, n in enumerate(names[: len(args)]):
            kw[n] = args[i]
        kw["horizon"] = min(int(kw["horizon"]), 300)
        runs = kw.get("runs", 2)
        kw["runs"] = runs if not isinstance(runs, int) else 2
        ck = kw.get("checkpoints")
        if ck is not None and not isinstance(ck, int):
            ck = np.asarray(ck)
            kw["checkpoints"] = ck[ck <= kw["horizon"]] if (ck <= kw["horizon"]).any() else 1
        elif isinstance(ck, int):
            kw["checkpoints"] = min(ck, kw["horizon"])
        return kw

    def sweep(*args, **kw):
        kw.pop("cache", None)
        return real_sweep(**cap(args, kw))

    def simulate(*args, **kw):
        return real_sim(**cap(args, kw))

    for mod in (vernade2017, manegueu2020, vernade2020, pikeburke2018, thune2019):
        if hasattr(mod, "sweep"):
            monkeypatch.setattr(mod, "sweep", sweep)
    # the panels simulate through their time budget (panels/budget.py), the race directly when unbudgeted
    monkeypatch.setattr(budget, "_simulate", simulate)
    monkeypatch.setattr(race, "simulate", simulate)


def _fig(obj):
    if isinstance(obj, BaseFigure):
        return obj
    return obj.fig if hasattr(obj, "fig") else obj.plot.fig


PAPER_FIGURES = {
    "01 Figure 1": lambda: vernade2017.figure1_panel(runs=2),
    "01 Figure 2": lambda: vernade2017.figure2_panel(runs=2),
    "01 Figure 3": lambda: vernade2017.figure3_panel(runs=2),
    "01 timeline": lambda: vernade2017.timeline_figure()[0],
    "01 estimators": lambda: vernade2017.estimator_figure(vernade2017.estimator_study(horizon=200, runs=5)),
    "02 orders": lambda: manegueu2020.orders_figure(),
    "02 tails": lambda: manegueu2020.tail_figure(manegueu2020.pareto_arms((1.0, 0.3)), 0.3),
    "02 bias": lambda: manegueu2020.bias_figure(manegueu2020.bias_study(horizon=200, runs=5)),
    "02 Figure 2": lambda: manegueu2020.figure2_panel(runs=2),
    "02 Figure 3": lambda: manegueu2020.figure3_panel(runs=2),
    "02 Figure 4": lambda: manegueu2020.figure4_panel(runs=2),
    "02 Figure 5": lambda: manegueu2020.figure5_panel(runs=2),
    "02 Figure 6": lambda: manegueu2020.figure6_panel(runs=2),
    "02 Figure 7": lambda: manegueu2020.figure7_panel(runs=2),
    "03 Figure 1": lambda: vernade2020.figure1_panel(runs=2),
    "03 Figure 2": lambda: vernade2020.figure2(samples=500),
    "03 Figure 3": lambda: vernade2020.figure3_panel(runs=2),
    "04 timeline": lambda: pikeburke2018.timeline_figure(pikeburke2018.timeline()),
    "04 Figure 2": lambda: pikeburke2018.figure2_panel(runs=2, horizon=300),
    "04 Appendix F": lambda: pikeburke2018.appendix_f_panel(runs=2, horizon=300),
    "04 bridges": lambda: pikeburke2018.bridges_figure(pikeburke2018.bridges(runs=2, horizon=300)),
    "05 trade-off": lambda: thune2019.tradeoff_figure(thune2019.tradeoff(runs=2, horizon=300)),
    "05 Doubling": lambda: thune2019.doubling_figure(thune2019.doubling_run(horizon=512)),
    "05 Example 8": lambda: thune2019.example8_panel(runs=2, horizons=(512, 1024, 2048)),
}


@pytest.mark.parametrize("name", list(PAPER_FIGURES))
def test_paper_figure_is_legible(name, tiny):
    check(_fig(PAPER_FIGURES[name]()), name)


PANELS = {
    "01 panel": lambda: conversions.ConversionsPanel(),
    "02 panel": lambda: arm_delays.ArmDelaysPanel(),
    "03 panel": lambda: linear.LinearPanel(horizon=500, runs=5),
    "03 ellipse": lambda: linear.EllipsePanel(horizon=300),
    "04 panel": lambda: anonymous.AnonymousPanel(horizon=1000, runs=5),
    "05 panel": lambda: adversarial.AdversarialPanel(horizon=500, runs=5),
}


def _panel_figures(panel):
    seen = []
    for key in dir(panel):
        if key.startswith("_"):
            continue
        try:
            obj = getattr(panel, key)
        except Exception:
            continue
        fig = obj if isinstance(obj, BaseFigure) else getattr(obj, "fig", None)
        if isinstance(fig, BaseFigure) and all(fig is not f for f in seen):
            seen.append(fig)
    return seen


@pytest.mark.parametrize("name", list(PANELS))
def test_panel_figures_are_legible(name, tiny):
    figs = _panel_figures(PANELS[name]())
    assert figs, f"{name}: no figure found"
    for i, fig in enumerate(figs):
        check(fig, f"{name} figure {i}")


def test_the_checks_catch_what_the_issue_found():
    """Two similar blues, one green for two values, TeX in a legend: each one fails."""
    fig = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], name="D-UCB", line=dict(color="#56B4E9")),
                     go.Scatter(x=[0, 1], y=[1, 0], name="D-KLUCB", line=dict(color="#0072B2"))])
    with pytest.raises(AssertionError, match="close colours"):
        check_legible(fig, "old Figure 1")
    fig = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], name="α₂ = 0.3", line=dict(color="#117733")),
                     go.Scatter(x=[0, 1], y=[1, 0], name="α₂ = 0.8", line=dict(color="#117733"))])
    with pytest.raises(AssertionError, match="drawn alike"):
        check_legible(fig, "old Figure 3")
    fig = go.Figure([go.Scatter(x=[0], y=[0], name="confidence ellipse (α_{t,δ})")])
    with pytest.raises(AssertionError, match="TeX"):
        check_text(fig, "old ellipse")
    fig = go.Figure([go.Bar(x=[1], y=["arm 1"])])
    with pytest.raises(AssertionError, match="no title"):
        check_axes(fig, "old timeline")


def test_every_style_and_assigned_colour_is_from_a_safe_palette():
    safe = {c.upper() for c in PALETTE} | {MID_GREY, INDIGO, GREY}  # each ≥ 3:1 on white (tests/test_a11y.py)
    for name, (colour, _) in STYLES.items():
        assert colour.upper() in safe, (name, colour)
    names = ["D-UCB", "something new", "another new one", "α_t (used in the UCB)"]
    got = assign_styles(names)
    assert got["D-UCB"] == style("D-UCB")
    assert len({got[n]["color"] for n in names}) == len(names)


# ------------------------------------------------------------------ controls: labels not cut off
CHAR_PX = 6.6  # average width of a character of the widgets' 13 px sans-serif font (Arial: about 0.5 em)


def _px(value, default=None):
    if value is None or value == "":
        return default
    value = str(value)
    return float(value[:-2]) if value.endswith("px") else default


def _controls(widget):
    import ipywidgets as W

    stack = [widget]
    while stack:
        w = stack.pop()
        if isinstance(w, W.Box):
            stack.extend(w.children)
        elif hasattr(w, "description"):
            yield w


@pytest.mark.parametrize("name", list(PANELS))
def test_control_labels_fit(name, tiny):
    """Every description fits its width, and every dropdown option fits its box (no text cut off)."""
    import ipywidgets as W

    panel = PANELS[name]()
    for w in _controls(panel.widget):
        if not w.description:
            continue
        desc = _px(getattr(w.style, "description_width", None), 0.0) if hasattr(w, "style") else 0.0
        if isinstance(w, (W.Checkbox, W.Button, W.ToggleButton)):
            continue
        assert desc and len(w.description) * CHAR_PX <= desc, (
            f"{name}: the label {w.description!r} ({len(w.description) * CHAR_PX:.0f} px) does not fit in {desc} px")
        if isinstance(w, W.Dropdown):
            total = _px(w.layout.width)
            if total is None:
                continue
            room = total - desc - 30  # the arrow and the padding
            for label, _ in w.options:
                assert len(label) * CHAR_PX <= room, (
                    f"{name}: the option {label!r} ({len(label) * CHAR_PX:.0f} px) is cut off in {room:.0f} px")


RACED = {"03.otf-index": "03 panel", "04.survivors": "04 panel", "05.dew-update": "05 panel"}


@pytest.mark.parametrize("eid", list(RACED))
def test_raced_panel_is_legible(eid, tiny, monkeypatch):
    """With the student's policy in the panel ("your policy"), every curve can still be told apart."""
    from delaylab import exercises as ex

    monkeypatch.setenv("DELAYLAB_EXERCISES_EXPECT", "correct")
    panel = PANELS[RACED[eid]]()
    fb = ex.race(panel, eid, namespace={ex.get(eid).answer_name: ex.solution(eid)}).feedback
    assert fb.correct, fb.message
    check(panel.regret.fig, f"{RACED[eid]} with your policy")


# ------------------------------------------------------------------ the τ_m label inside the CDF's plotting area
def _label_box(fig, width_px=400.0):
    """The τ_m label's box (x0, x1, y0, y1) in data units, the plotting area ``width_px`` wide (the
    figure's own height and margins): plotly places an annotation's anchor at (x, y), shifted by
    (xshift, yshift) px; its box is the text (13 px font: 1.3 em high, 0.6 em per character) plus
    its padding."""
    lay = fig.layout
    labels = [a for a in lay.annotations if a.visible is not False and (a.text or "").startswith("τ_m")]
    assert len(labels) == 1, f"no τ_m label among the figure's annotations: {[a.text for a in lay.annotations]}"
    a = labels[0]
    size = (a.font.size if a.font and a.font.size else None) or lay.font.size or 12
    w, h = 0.6 * size * len(a.text) + 4, 1.3 * size + 4
    (y0, y1), (x0, x1) = lay.yaxis.range, (0.0, float(max(fig.data[0].x)))
    height_px = lay.height - lay.margin.t - lay.margin.b
    px_y, px_x = height_px / (y1 - y0), width_px / (x1 - x0)
    ax, ay = (a.x - x0) * px_x + (a.xshift or 0), (a.y - y0) * px_y + (a.yshift or 0)
    left = {"left": ax, "right": ax - w, "center": ax - w / 2}[a.xanchor]
    bottom = {"bottom": ay, "top": ay - h, "middle": ay - h / 2}[a.yanchor]
    return (x0 + left / px_x, x0 + (left + w) / px_x, y0 + bottom / px_y, y0 + (bottom + h) / px_y), (x0, x1, y0, y1)


# geometric delays of mean μ and window m: τ_m from 0.001 to 1 (0.982: notebook 01's cut-off label)
CDF_CASES = [(mu, m) for mu in (10, 100, 250, 500, 5000) for m in (0, 5, 50, 300, 1000, 5000)]


@pytest.mark.parametrize("panel_d_max", [lambda mu, m: max(3 * mu, 1.5 * m, 50),  # panels 01 and 03's x range
                                         lambda mu, m: max(3 * mu, 1.2 * m, 50),  # m nearer the right edge
                                         lambda mu, m: None], ids=["panels", "tight", "default"])
def test_the_tau_m_label_stays_inside_the_plotting_area_and_off_the_curve(panel_d_max):
    """For every τ_m (near 0 and near 1 too) and window m, the label lies within the axes' ranges
    (the plotting area: 400 px wide, the figure's own height), beside the window line, and no
    point of the curve lies under it."""
    from delaylab.laws import Geometric
    from delaylab.viz.plots import DelayCdfPlot

    for height in (320, 300):  # panel 01's and panel 03's
        plot = DelayCdfPlot(height=height)
        for mu, m in CDF_CASES:
            law, d_max = Geometric(mu), panel_d_max(mu, m)
            plot.show(law, m, d_max=None if d_max is None else int(d_max))
            (bx0, bx1, by0, by1), (x0, x1, y0, y1) = _label_box(plot.fig)
            tm, where = float(law.cdf(m)), f"μ = {mu}, m = {m}, τ_m = {law.cdf(m):.3f}"
            assert y0 <= by0 and by1 <= y1, f"{where}: the label spans y {by0:.3f}…{by1:.3f}, the axis {y0}…{y1}"
            assert x0 <= bx0 and bx1 <= x1, f"{where}: the label spans x {bx0:.0f}…{bx1:.0f} of {x0:.0f}…{x1:.0f}"
            a = plot.fig.layout.annotations[0]
            assert a.text == f"τ_m = {tm:.3f}" and min(abs(bx0 - m), abs(bx1 - m)) < 0.05 * (x1 - x0), where
            if a.y == tm:  # beside the marker
                assert (by0 < tm) == (a.yanchor == "top") and (by1 > tm) == (a.yanchor == "bottom"), where
            d = np.asarray(plot.fig.data[0].x, float)
            tau = np.asarray(plot.fig.data[0].y, float)
            inside = (d >= bx0) & (d <= bx1) & (tau >= by0) & (tau <= by1)
            assert not inside.any(), f"{where}: the curve crosses the label at d = {d[inside][:3]}"


def test_the_tau_m_label_at_notebook_01s_values():
    """Notebook 01's panel at μ = 250 (τ_m = 0.982, the label once cut off at the top): below and
    right of the marker; at μ = 5000 (τ_m = 0.181, m near the left edge): at the top of the window
    line; none when uncensored."""
    panel = conversions.ConversionsPanel(horizon=500, runs=10, mean_delay=250)
    a = panel.cdf.fig.layout.annotations[0]
    assert (a.text, a.x, a.y, a.xanchor, a.yanchor) == ("τ_m = 0.982", 1000, pytest.approx(0.982, abs=5e-4), "left", "top")
    panel.mean_delay.value = 5000
    a = panel.cdf.fig.layout.annotations[0]
    assert (a.text, a.y, a.xanchor, a.yanchor) == ("τ_m = 0.181", 1.0, "left", "top")
    panel.censored.value = False
    assert panel.cdf.fig.layout.annotations[0].visible is False
