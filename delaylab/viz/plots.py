"""Plotly FigureWidgets that notebooks update in place.

Every figure is a ``go.FigureWidget`` whose traces are created once; later updates only change
their data, inside ``fig.batch_update()`` (one message to the browser per update). Curves are
drawn as a mean line with a band (mean ± 1.96 standard errors: a 95% confidence band of the
mean over runs).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import band_color, style

FONT = dict(family="Arial, Helvetica, sans-serif", size=13)


def _layout(fig, height, title=None):
    fig.update_layout(height=height, template="plotly_white", font=FONT, title=title,
                      margin=dict(l=60, r=20, t=60 if title else 30, b=50),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))


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
    """

    def __init__(self, names, panels=None, cols=2, xaxis="step t", yaxis="cumulative regret",
                 height=None, title=None, extra=(), log_x=False, log_y=False):
        panels = list(panels) if panels else [None]
        n = len(panels)
        cols = min(cols, n)
        rows = -(-n // cols)
        fig = make_subplots(rows=rows, cols=cols, subplot_titles=[p or "" for p in panels],
                            horizontal_spacing=0.08, vertical_spacing=0.12)
        self.panels, self.names = panels, list(names)
        self._slot = {}
        for i, panel in enumerate(panels):
            r, c = divmod(i, cols)
            for name in self.names:
                st = style(name)
                fig.add_trace(go.Scatter(x=[], y=[], fill="toself", fillcolor=band_color(name),
                                         line=dict(width=0), hoverinfo="skip", showlegend=False,
                                         legendgroup=name, visible=False), row=r + 1, col=c + 1)
                fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name=name, legendgroup=name,
                                         line=dict(color=st["color"], dash=st["dash"], width=2.2),
                                         showlegend=(i == 0), visible=False), row=r + 1, col=c + 1)
                self._slot[(i, name)] = (len(fig.data) - 2, len(fig.data) - 1)
            for name in extra:
                fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name=name, legendgroup=name,
                                         line=dict(color="#000000", dash="longdash", width=1.5),
                                         showlegend=(i == 0), visible=False), row=r + 1, col=c + 1)
                self._slot[(i, name)] = (None, len(fig.data) - 1)
        fig.update_xaxes(title_text=xaxis, type="log" if log_x else None)
        fig.update_yaxes(title_text=yaxis, type="log" if log_y else None)
        _layout(fig, height or (380 if rows == 1 else 330 * rows), title)
        self.fig = go.FigureWidget(fig)

    def set(self, name, x, mean, lo=None, hi=None, panel: int = 0) -> None:
        """Show curve ``name`` in ``panel`` (call inside ``batch_update``)."""
        band, line = self._slot[(panel, name)]
        d = self.fig.data
        x = np.asarray(x, dtype=float)
        d[line].x, d[line].y, d[line].visible = x, np.asarray(mean, dtype=float), True
        if band is not None:
            if lo is None:
                d[band].visible = False
            else:
                d[band].x = np.concatenate([x, x[::-1]])
                d[band].y = np.concatenate([np.asarray(hi, float), np.asarray(lo, float)[::-1]])
                d[band].visible = True

    def hide(self, name, panel: int = 0) -> None:
        for i in self._slot[(panel, name)]:
            if i is not None:
                self.fig.data[i].visible = False

    def show_result(self, result, names=None, panel: int = 0, keys=None) -> None:
        """Mean regret of ``result`` with bands, for ``names`` (all by default); others hidden."""
        names = result.names if names is None else names
        keys = keys or {n: n for n in names}
        for n in self.names:
            if n in names:
                lo, hi = result.band(keys[n])
                self.set(n, result.times, result.mean(keys[n]), lo, hi, panel)
            else:
                self.hide(n, panel)

    def curve(self, name, panel: int = 0):
        """(x, y) of the mean line of a curve, as drawn."""
        _, line = self._slot[(panel, name)]
        return np.asarray(self.fig.data[line].x), np.asarray(self.fig.data[line].y)


class DelayCdfPlot:
    """τ(d) = P(D ≤ d) of a delay law, with the window m and τ_m marked."""

    def __init__(self, height=320):
        fig = go.Figure()
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="τ(d) = P(D ≤ d)",
                                 line=dict(color="#0072B2", width=2.5)))
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="window m",
                                 line=dict(color="#D55E00", dash="dash", width=2)))
        fig.add_trace(go.Scatter(x=[], y=[], mode="markers+text", name="τ_m", textposition="top left",
                                 marker=dict(color="#D55E00", size=10), showlegend=False))
        fig.update_xaxes(title_text="delay d (steps)")
        fig.update_yaxes(title_text="τ(d)", range=[0, 1.05])
        _layout(fig, height)
        self.fig = go.FigureWidget(fig)

    def show(self, law, window=None, d_max=None) -> None:
        if d_max is None:
            q = law.ppf(0.995)
            d_max = int(min(max(q, (window or 0) * 1.5, 20), 10**7))
        d = np.unique(np.linspace(0, d_max, 400).astype(np.int64))
        tau = law.cdf(d)
        with self.fig.batch_update():
            self.fig.data[0].x, self.fig.data[0].y = d, tau
            if window is None:
                self.fig.data[1].visible = self.fig.data[2].visible = False
                self.fig.layout.title = f"{law.label}: uncensored (every conversion eventually seen)"
            else:
                tm = float(law.cdf(window))
                self.fig.data[1].x, self.fig.data[1].y = [window, window], [0, 1.05]
                self.fig.data[2].x, self.fig.data[2].y = [window], [tm]
                self.fig.data[2].text = [f"τ_m = {tm:.3f}"]
                self.fig.data[1].visible = self.fig.data[2].visible = True
                self.fig.layout.title = (f"{law.label}, window m = {window}: a share 1 − τ_m = "
                                         f"{1 - tm:.1%} of conversions is never seen")
