"""Plotly FigureWidgets that notebooks update in place.

Every figure is a :class:`delaylab.viz.widget.FigureWidget` (a ``go.FigureWidget`` that shares
plotly's JavaScript with the page's other figures) whose traces are created once; later updates
only change their data, inside ``fig.batch_update()`` (one message to the browser per update).
Curves are drawn as a mean line with a band (mean ± 1.96 standard errors: a 95% confidence band
of the mean over runs).
"""

from __future__ import annotations


import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..policies.simple import UNIFORM
from .style import VERMILLION, assign_styles, band_color, style, symbol, text_colour
from .widget import FigureWidget

#: uniform random play runs off the top of a regret axis when it ends above this many times the
#: highest of the other curves: it would squash them (its end value is then in its legend entry)
REFERENCE_ROOM = 1.6

FONT = dict(family="Arial, Helvetica, sans-serif", size=13)


def figure_layout(fig, height, title=None, **layout):
    """The workbook's look for every figure: template, font, title at the left, legend on the
    right; ``layout`` (any of plotly's layout arguments) is applied last and wins."""
    fig.update_layout(height=height, template="plotly_white", font=FONT,
                      title=dict(text=title, x=0, xanchor="left") if title else None,
                      margin=dict(l=60, r=10, t=70 if title else 40, b=50),
                      legend=dict(orientation="v", x=1.02, xanchor="left", y=1, yanchor="top",
                                  font=dict(size=12)))
    if layout:
        fig.update_layout(**layout)


class CurvePlot:
    """Mean curves with confidence bands, one slot per (panel, name), updated in place.

    Parameters
    ----------
    names : list of str
        Every curve that may be shown (slots are created once, hidden until used).
    panels : list of str
        Subplot titles (one panel if a single title or None).
    cols : int
        Panels per row.
    xaxis, yaxis : str
        Axis titles.
    extra : list of str
        Names of extra dashed black lines per panel (e.g. a lower bound).

    Curves named in ``pinned`` are left as they are by :meth:`show_result` and :meth:`show_curves`
    (they are drawn and hidden by someone else, e.g. a raced student policy).

    The curve named :data:`~delaylab.policies.simple.UNIFORM` (uniform random play, the reference
    of every regret figure) is drawn like the others, thinner; where it would squash them (it ends
    above :data:`REFERENCE_ROOM` times the highest of the others), it runs off the top of the
    axis, and its legend entry says where it ends.
    """

    pinned: frozenset = frozenset()

    def __init__(self, names, panels=None, cols=2, xaxis="step t", yaxis="cumulative regret",
                 height=None, title=None, extra=(), log_x=False, log_y=False):
        panels = list(panels) if panels else [None]
        n = len(panels)
        cols = min(cols, n)
        rows = -(-n // cols)
        fig = make_subplots(rows=rows, cols=cols, subplot_titles=[p or "" for p in panels],
                            horizontal_spacing=0.09, vertical_spacing=0.2 if rows > 1 else 0.1)
        self.panels, self.names = panels, list(names)
        self._slot = {}
        self._in_legend: set[str] = set()
        self._clipped: set[int] = set()  # panels whose y range cuts uniform random play
        self._drawn: dict = {}  # (panel, name) -> (lowest, highest) value drawn, line and band
        self._drawn_end: dict = {}  # panel -> where uniform random play's mean ends
        styles = assign_styles(self.names)
        for i in range(len(panels)):
            r, c = divmod(i, cols)
            for name in self.names:
                st, sym = styles[name], symbol(name)
                fig.add_trace(go.Scatter(x=[], y=[], mode="lines", fill="toself",  # no markers on a short band
                                         fillcolor=band_color(name, color=st["color"]),
                                         line=dict(width=0), hoverinfo="skip", showlegend=False,
                                         legendgroup=name, visible=False), row=r + 1, col=c + 1)
                marker = dict(symbol=sym, size=8, color=st["color"], maxdisplayed=14) if sym else None
                fig.add_trace(go.Scatter(x=[], y=[], mode="lines+markers" if sym else "lines", name=name,
                                         legendgroup=name, marker=marker,
                                         line=dict(color=st["color"], dash=st["dash"],
                                                   width=1.8 if name == UNIFORM else 2.2),
                                         showlegend=False, visible=False), row=r + 1, col=c + 1)
                self._slot[(i, name)] = (len(fig.data) - 2, len(fig.data) - 1)
            for name in extra:
                fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name=name, legendgroup=name,
                                         line=dict(color="#000000", dash="longdash", width=1.5),
                                         showlegend=False, visible=False), row=r + 1, col=c + 1)
                self._slot[(i, name)] = (None, len(fig.data) - 1)
        fig.update_xaxes(title_text=xaxis, type="log" if log_x else None)
        fig.update_yaxes(title_text=yaxis, type="log" if log_y else None)
        figure_layout(fig, height or (400 if rows == 1 else 360 * rows), title)
        self.fig = FigureWidget(fig)

    def updating(self):
        """``fig.batch_update()``: one message to the views, then the full state synced
        (:class:`~delaylab.viz.widget.FigureWidget`)."""
        return self.fig.batch_update()

    def set(self, name, x, mean, lo=None, hi=None, panel: int = 0) -> None:
        """Show curve ``name`` in ``panel`` (call inside :meth:`updating`)."""
        band, line = self._slot[(panel, name)]
        d = self.fig.data
        x = np.asarray(x, dtype=float)
        d[line].x, d[line].y, d[line].visible = x, np.asarray(mean, dtype=float), True
        ys = [np.asarray(v, dtype=float) for v in (mean, lo, hi) if v is not None and len(v)]
        finite = np.concatenate(ys)[np.isfinite(np.concatenate(ys))] if ys else np.zeros(0)
        if finite.size:
            self._drawn[(panel, name)] = (float(finite.min()), float(finite.max()))
        else:
            self._drawn.pop((panel, name), None)
        if name == UNIFORM:
            self._drawn_end[panel] = float(np.asarray(mean, dtype=float)[-1]) if len(mean) else None
        if name not in self._in_legend:  # one legend entry per name, wherever it first appears
            d[line].showlegend = True
            self._in_legend.add(name)
        if band is not None:
            if lo is None:
                d[band].visible = False
            else:
                d[band].x = np.concatenate([x, x[::-1]])
                d[band].y = np.concatenate([np.asarray(hi, float), np.asarray(lo, float)[::-1]])
                d[band].visible = True
        self._fit_reference(panel)

    def hide(self, name, panel: int = 0) -> None:
        for i in self._slot[(panel, name)]:
            if i is not None:
                self.fig.data[i].visible = False
        self._drawn.pop((panel, name), None)
        if name == UNIFORM:
            self._drawn_end[panel] = None
        self._fit_reference(panel)

    def _fit_reference(self, panel: int) -> None:
        """Let uniform random play run off the top of ``panel``'s y axis when it would squash the
        other curves, with its end value in its legend entry; otherwise the axis fits every curve.
        (What is drawn is read from :attr:`_drawn`: inside a batch update, plotly's traces still
        answer with their values from before it.)"""
        slot = self._slot.get((panel, UNIFORM))
        if slot is None:
            return
        ref = self.fig.data[slot[1]]
        axis = self.fig.layout["yaxis" + (ref.yaxis or "y")[1:]]
        drawn = [(lo, hi) for (p, name), (lo, hi) in self._drawn.items() if p == panel and name != UNIFORM]
        top = max((hi for _, hi in drawn), default=np.nan)
        bottom = min((lo for lo, _ in drawn), default=np.nan)
        ref_y = self._drawn_end.get(panel)
        clip = (ref_y is not None and (panel, UNIFORM) in self._drawn and np.isfinite(top) and top > 0
                and axis.type != "log" and self._drawn[(panel, UNIFORM)][1] > REFERENCE_ROOM * top)
        if clip:
            low = min(0.0, bottom)
            axis.range = [low, top + 0.08 * (top - low)]
            ref.name = f"{UNIFORM} (ends at {ref_y:,.3g}, above the axis)"
            self._clipped.add(panel)
        else:
            if panel in self._clipped:  # the range set above, not one a figure chose
                axis.range, axis.autorange = None, True
                self._clipped.discard(panel)
            ref.name = UNIFORM

    def show_result(self, result, names=None, panel: int = 0, keys=None) -> None:
        """Mean regret of ``result`` with bands, for ``names`` (all by default); others hidden."""
        names = result.names if names is None else names
        keys = keys or {n: n for n in names}
        for n in self.names:
            if n in names:
                lo, hi = result.band(keys[n])
                self.set(n, result.times, result.mean(keys[n]), lo, hi, panel)
            elif n not in self.pinned:
                self.hide(n, panel)

    def show_curves(self, shown: dict, panel: int = 0) -> None:
        """Mean and band of each curve in ``shown`` (curve name → (Result, the Result's policy
        name)); every other curve of the panel hidden."""
        for n in self.names:
            if n in shown:
                res, key = shown[n]
                lo, hi = res.band(key)
                self.set(n, res.times, res.mean(key), lo, hi, panel)
            elif n not in self.pinned:
                self.hide(n, panel)

    def line(self, name, panel: int = 0):
        """The trace of the mean line of curve ``name`` in ``panel`` (to restyle it)."""
        _, line = self._slot[(panel, name)]
        return self.fig.data[line]

    def curve(self, name, panel: int = 0):
        """(x, y) of the mean line of a curve, as drawn."""
        trace = self.line(name, panel)
        return np.asarray(trace.x), np.asarray(trace.y)


class DelayCdfPlot:
    """τ(d) = P(D ≤ d) of a delay law, with the window m and τ_m marked.

    The "τ_m = …" label sits beside the marker, inside the plotting area for every τ_m. The curve
    lies lower left of the marker and higher right of it, so the label goes above and left of it,
    or below and right of it (the one with room: above while τ_m ≤ :attr:`LABEL_ABOVE`, below
    while τ_m ≥ :attr:`LABEL_BELOW`, :attr:`LABEL_ROOM` of the x range beside the window line).
    When neither has room (τ_m near 0 with m near the left edge, or near 1 with m near the right
    edge), the label goes along the window line at the end the curve has not reached: at its top,
    right of it, or at its bottom, left of it."""

    #: a label fits above the marker up to this τ_m, below it from this τ_m (y range 0 … 1.05)
    LABEL_ABOVE, LABEL_BELOW = 0.85, 0.2
    #: the share of the x range a label needs beside the window line
    LABEL_ROOM = 0.3

    def __init__(self, height=320):
        fig = go.Figure()
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="τ(d) = P(D ≤ d)",
                                 line=dict(color="#0072B2", width=2.5)))
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="window m",
                                 line=dict(color="#D55E00", dash="dash", width=2)))
        fig.add_trace(go.Scatter(x=[], y=[], mode="markers", name="τ_m",
                                 marker=dict(color="#D55E00", size=10), showlegend=False))
        fig.update_xaxes(title_text="delay d (steps)")
        fig.update_yaxes(title_text="τ(d) = P(D ≤ d)", range=[0, 1.05])
        fig.add_annotation(x=0, y=0, text="", showarrow=False, visible=False, font=dict(color=text_colour(VERMILLION)))
        figure_layout(fig, height, title=" ")
        self.fig = FigureWidget(fig)

    @classmethod
    def _label_place(cls, tm: float, at: float) -> tuple[float, bool, bool]:
        """(y, above, left) of the τ_m label at τ_m = ``tm``, the window at share ``at`` of the x
        range: its anchor's height, whether the label is above it, whether left of the window."""
        room = {"above": tm <= cls.LABEL_ABOVE, "below": tm >= cls.LABEL_BELOW,
                "left": at >= cls.LABEL_ROOM, "right": at <= 1 - cls.LABEL_ROOM}
        for above, left in [(True, True), (False, False)][::1 if tm <= 0.5 else -1]:  # the side with more room first
            if room["above" if above else "below"] and room["left" if left else "right"]:
                return tm, above, left
        return (1.0, False, False) if tm < 0.5 else (0.0, True, True)

    @property
    def tau_m(self) -> float | None:
        """τ_m = P(D ≤ m) as marked on the curve (None when no window is shown)."""
        marker = self.fig.data[2]
        return float(marker.y[0]) if marker.visible and marker.y else None

    def show(self, law, window=None, d_max=None) -> None:
        if d_max is None:
            q = law.ppf(0.995)
            d_max = int(min(max(q, (window or 0) * 1.5, 20), 10**7))
        d = np.unique(np.linspace(0, d_max, 400).astype(np.int64))
        tau = law.cdf(d)
        with self.fig.batch_update():
            self.fig.data[0].x, self.fig.data[0].y = d, tau
            label = self.fig.layout.annotations[0]
            if window is None:
                self.fig.data[1].visible = self.fig.data[2].visible = label.visible = False
                self.fig.layout.title.text = f"Delays: {law.label}<br><sup>uncensored: every conversion is eventually seen</sup>"
            else:
                tm = float(law.cdf(window))
                self.fig.data[1].x, self.fig.data[1].y = [window, window], [0, 1.05]
                self.fig.data[2].x, self.fig.data[2].y = [window], [tm]
                y, above, left = self._label_place(tm, window / max(float(d[-1]), 1.0))
                label.update(x=window, y=y, text=f"τ_m = {tm:.3f}", xanchor="right" if left else "left",
                             yanchor="bottom" if above else "top", xshift=-6 if left else 6,
                             yshift=4 if above else -4, visible=True)
                self.fig.data[1].visible = self.fig.data[2].visible = True
                self.fig.layout.title.text = (f"Delays: {law.label}, window m = {window}<br><sup>1 − τ_m = "
                                              f"{1 - tm:.1%} of the conversions are never seen</sup>")


def palette_figure() -> go.FigureWidget:
    """The colour and line style of every algorithm of the workbook, grouped by paper."""
    from .style import PAPERS

    fig = go.Figure()
    rows = [(paper, name) for paper, names in PAPERS.items() for name in names]
    for i, (paper, name) in enumerate(rows):
        y = len(rows) - i
        fig.add_trace(go.Scatter(x=[0, 1], y=[y, y], mode="lines", name=name, showlegend=False,
                                 line=dict(width=4, **style(name)), hoverinfo="name"))
        fig.add_annotation(x=1.05, y=y, text=name, showarrow=False, xanchor="left", font=dict(size=12))
        fig.add_annotation(x=-0.05, y=y, text=paper if i == 0 or rows[i - 1][0] != paper else "",
                           showarrow=False, xanchor="right", font=dict(size=12, color="#555"))
    fig.update_xaxes(visible=False, range=[-1.6, 2.2])
    fig.update_yaxes(visible=False, range=[0.3, len(rows) + 0.7])
    figure_layout(fig, 22 * len(rows) + 70, "One colour and line style per algorithm, in every notebook")
    # its text alternative names each curve's colour and line style (delaylab.viz.describe)
    fig.update_layout(margin=dict(l=10, r=10, t=50, b=10), meta={"describe": "styles"})
    return FigureWidget(fig)
