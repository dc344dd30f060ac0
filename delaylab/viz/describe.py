"""A figure's text alternative, made from its data: what it shows and what it says.

A screen reader cannot read a plotly figure: its SVG holds tick labels and legend entries, not
what the curves do. :func:`describe` writes, from the figure itself (title, subplots, axes and
the visible traces' data), a few sentences a reader can take in without seeing it:

* what is drawn: the title, each subplot's title, its axes (and their ranges) and its series;
* the values that matter: where each curve ends (its last point), a single point's position,
  the bars' heights, a pie's shares;
* the verdict: in each subplot, which curve ends lowest and which highest, and how far apart.

The notebooks' figures carry it as their accessible name (``delaylab.viz.widget.FigureWidget``
syncs it after every update), and so do the course site's static figures, where it is also the
visible caption (``delaylab.site``). Numbers are written as the figures write them: Unicode, no TeX.
"""

from __future__ import annotations

import base64
import html
import math
import re

import numpy as np

from ..policies.simple import UNIFORM

#: at most this many series are named one by one in a subplot (the others are counted)
MAX_SERIES = 8


def plain(text) -> str:
    """Figure text (plotly's small HTML subset) as plain text: ``<br>`` a separator, tags dropped."""
    if text is None:
        return ""
    text = str(text)
    text = re.sub(r"<br\s*/?>", " — ", text, flags=re.I)
    text = re.sub(r"<[^>]+>", "", text)
    text = html.unescape(text)
    return re.sub(r"\s+", " ", text).strip(" —")


def number(v) -> str:
    """A number as a reader says it: 3 significant digits, thousands separated (12,300; 0.0412)."""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return "no value" if v is None else str(v)
    if not math.isfinite(v):
        return "∞" if v > 0 else ("−∞" if v < 0 else "not a number")
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1000:
        digits = int(math.floor(math.log10(a))) + 1
        out = f"{round(v, 3 - digits):,.0f}"
    elif a >= 1:
        out = f"{v:.3g}"
        if "e" in out:
            out = f"{v:,.0f}"
    else:
        out = f"{v:.2g}" if a < 0.001 else f"{v:.3g}"
    return out.replace("-", "−")


def _as_dict(fig) -> dict:
    if isinstance(fig, dict):
        return fig
    if hasattr(fig, "to_plotly_json"):
        return fig.to_plotly_json()
    raise TypeError(f"fig must be a plotly figure or its dict; got {type(fig).__name__}")


def _get(d, *path, default=None):
    for key in path:
        if not isinstance(d, dict) or key not in d:
            return default
        d = d[key]
    return d


def typed(values):
    """plotly's typed-array form (``{"dtype": "f8", "bdata": <base64>, "shape": …}``, how plotly
    stores numpy arrays) as a numpy array; anything else unchanged."""
    if isinstance(values, dict) and "bdata" in values and "dtype" in values:
        arr = np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"]))
        shape = values.get("shape")
        if shape:
            dims = [int(s) for s in str(shape).split(",")] if not isinstance(shape, (list, tuple)) else list(shape)
            arr = arr.reshape(dims)
        return arr
    return values


def _array(values) -> np.ndarray:
    values = typed(values)
    if values is None:
        return np.zeros(0)
    try:
        arr = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return np.zeros(0)
    return arr


def _axis_key(ref: str, letter: str) -> str:
    """'x' -> 'xaxis', 'x2' -> 'xaxis2'."""
    return f"{letter}axis{ref[1:]}"


def _shown(trace) -> bool:
    return trace.get("visible", True) not in (False, "legendonly")


def _is_band(trace) -> bool:
    """A confidence band (a filled polygon without a name of its own), not a series."""
    return bool(trace.get("fill")) and not trace.get("name")


def _subplot_title(layout, xkey, ykey) -> str:
    """make_subplots' title of the subplot on these axes: the paper annotation just above it."""
    xd = _get(layout, xkey, "domain", default=[0, 1])
    yd = _get(layout, ykey, "domain", default=[0, 1])
    for ann in layout.get("annotations") or []:
        if ann.get("xref") != "paper" or ann.get("yref") != "paper" or ann.get("showarrow", True):
            continue
        x, y = ann.get("x"), ann.get("y")
        if x is None or y is None:
            continue
        if xd[0] - 1e-6 <= x <= xd[1] + 1e-6 and abs(y - yd[1]) < 0.03 and ann.get("yanchor") == "bottom":
            return plain(ann.get("text"))
    return ""


def _axis_text(layout, key, values) -> str:
    title = plain(_get(layout, key, "title", "text") or _get(layout, key, "title"))
    log = _get(layout, key, "type") == "log"
    finite = values[np.isfinite(values)] if values.size else values
    if log:
        finite = finite[finite > 0]
    span = f" from {number(finite.min())} to {number(finite.max())}" if finite.size > 1 else ""
    scale = ", log scale" if log else ""
    return f"{title or 'unnamed'}{span}{scale}"


def _series(trace):
    """(name, kind, facts) of one visible trace: kind "line", "point", "bar", "pie" or "other"."""
    name = plain(trace.get("name")) or "unnamed series"
    kind = trace.get("type", "scatter")
    if kind == "pie":
        labels = [plain(v) for v in trace.get("labels") or []]
        vals = _array(trace.get("values"))
        if vals.size and vals.sum() > 0:
            shares = ", ".join(f"{lab} {v / vals.sum():.0%}" for lab, v in zip(labels, vals))
            return name, "pie", shares
        return name, "pie", ""
    x, y = trace.get("x"), _array(trace.get("y"))
    if kind == "bar":
        x = typed(x)
        xs = list(x) if x is not None else list(range(len(y)))
        pairs = [(a, float(b)) for a, b in zip(xs, y) if a is not None and math.isfinite(b)]
        if not pairs:
            return name, "bar", ""
        label = lambda a: plain(a) if isinstance(a, str) else number(a)  # noqa: E731
        if len(pairs) <= 12:
            return name, "bar", ", ".join(f"{label(a)}: {number(b)}" for a, b in pairs)
        top = max(pairs, key=lambda p: p[1])
        return name, "bar", (f"{len(pairs)} bars from {label(pairs[0][0])} to {label(pairs[-1][0])}, heights "
                             f"{number(min(b for _, b in pairs))} to {number(top[1])} (highest at {label(top[0])})")
    xa = _array(x)
    if y.size == 0:
        return name, "other", ""
    if xa.size != y.size:
        xa = np.arange(y.size, dtype=float)
    ok = np.isfinite(y) & np.isfinite(xa)
    if not ok.any():
        return name, "other", ""
    xa, y = xa[ok], y[ok]
    mode = trace.get("mode") or ("lines" if y.size > 20 else "lines+markers")
    if y.size == 1 or "lines" not in mode:
        if y.size == 1:
            return name, "point", (float(xa[0]), float(y[0]))
        return name, "points", (int(y.size), float(y.min()), float(y.max()))
    if not bool(np.all(np.diff(xa) >= 0)):  # not a function of x: a path or a closed curve
        closed = math.isclose(xa[0], xa[-1], abs_tol=1e-9) and math.isclose(y[0], y[-1], abs_tol=1e-9)
        box = (float(xa.min()), float(xa.max()), float(y.min()), float(y.max()))
        return name, "closed" if closed else "path", (box, (float(xa[-1]), float(y[-1])))
    return name, "line", (float(xa[-1]), float(y[-1]), float(y.min()), float(y.max()))


def _verdict(lines, xname) -> str:
    """Which curve ends lowest and which highest (when the curves end at the same x)."""
    if len(lines) < 2:
        return ""
    ends = {round(v[1][0], 9) for v in lines}
    if len(ends) != 1:
        return ""
    ranked = sorted(lines, key=lambda v: v[1][1])
    lo, hi = ranked[0], ranked[-1]
    if math.isclose(lo[1][1], hi[1][1], rel_tol=1e-9, abs_tol=1e-12):
        return f"All {len(lines)} curves end at the same value, {number(lo[1][1])}."
    ratio = ""
    if lo[1][1] > 0 and hi[1][1] > 0:
        r = hi[1][1] / lo[1][1]
        ratio = f", {number(r)} times as much" if r >= 1.5 else ""
    at = f"At {xname} = {number(lo[1][0])}" if xname else "At the end"
    return f"{at}, lowest: {lo[0]} ({number(lo[1][1])}); highest: {hi[0]} ({number(hi[1][1])}{ratio})."


def _look(trace) -> str:
    """A trace's colour and line style in words (:func:`delaylab.viz.style.describe_style`)."""
    from .style import describe_style

    line = trace.get("line") or {}
    marker = trace.get("marker") or {}
    mode = trace.get("mode") or "lines"
    return describe_style(line.get("color") or marker.get("color"), line.get("dash"),
                          marker.get("symbol") if "markers" in mode else None)


def _against_uniform(lines) -> str:
    """Which curves end above uniform random play (worse than not learning), when it is drawn."""
    ref = [f for n, f in lines if n.startswith(UNIFORM)]
    rest = [(n, f) for n, f in lines if not n.startswith(UNIFORM)]
    if not ref or not rest or len({round(f[0], 9) for _, f in lines}) != 1:
        return ""
    above = [n for n, f in rest if f[1] > ref[0][1]]
    if not above:
        return f"Every other curve ends below {UNIFORM}."
    return f"Ending above {UNIFORM}, worse than not learning at all: {', '.join(above)}."


def describe(fig) -> str:
    """The text alternative of a plotly figure (a Figure, FigureWidget or its dict): what it
    shows (title, subplots, axes, series) and what it says (where each curve ends, which ends
    lowest and highest). Plain text, a few sentences; never raises on an odd figure."""
    try:
        return _describe(_as_dict(fig))
    except Exception as exc:  # noqa: BLE001  (a caption must never break a figure)
        return f"A figure (no description: {type(exc).__name__})."


def _describe(fig: dict) -> str:
    layout = fig.get("layout") or {}
    data = [t for t in fig.get("data") or [] if isinstance(t, dict)]
    title = plain(_get(layout, "title", "text") or (layout.get("title") if isinstance(layout.get("title"), str) else ""))
    parts = [f"Figure: {title}." if title else "Figure."]
    banded = {t.get("legendgroup") for t in data if _shown(t) and _is_band(t) and t.get("legendgroup")}
    # a trace without a name of its own takes its legend group's (the entry that stands for it);
    # one with neither, kept out of the legend, is drawing (a marker, a guide), not a series
    group_names = {t.get("legendgroup"): t.get("name") for t in data if t.get("legendgroup") and t.get("name")}
    named = []
    for trace in data:
        if not plain(trace.get("name")) and not _is_band(trace):
            name = group_names.get(trace.get("legendgroup")) or trace.get("legendgroup")
            if name:
                trace = {**trace, "name": name}
            elif trace.get("showlegend") is False and any(plain(t.get("name")) for t in data):
                continue
        named.append(trace)
    data = named
    groups: dict[tuple[str, str], list] = {}
    for trace in data:
        if not _shown(trace) or _is_band(trace):
            continue
        if trace.get("type") == "pie":
            key = ("pie", "pie")
        else:
            key = (trace.get("xaxis") or "x", trace.get("yaxis") or "y")
        groups.setdefault(key, []).append(trace)
    if not groups:
        parts.append("Nothing is drawn yet.")
        return " ".join(parts)
    many = len(groups) > 1
    meta = layout.get("meta")
    styles = isinstance(meta, dict) and meta.get("describe") == "styles"
    for i, ((xref, yref), traces) in enumerate(groups.items()):
        if xref == "pie":
            for t in traces:
                name, _, shares = _series(t)
                parts.append(f"Pie chart {name}: {shares}." if shares else f"Pie chart {name}.")
            continue
        xkey, ykey = _axis_key(xref, "x"), _axis_key(yref, "y")
        sub = _subplot_title(layout, xkey, ykey)
        xs = np.concatenate([_array(t.get("x")) for t in traces if t.get("type", "scatter") != "bar"] or [np.zeros(0)])
        ys = np.concatenate([_array(t.get("y")) for t in traces] or [np.zeros(0)])
        head = f"Panel {i + 1}" + (f", {sub}" if sub else "") if many else (sub or "")
        axes = "; ".join(f"{k[0]}: {_axis_text(layout, k, v)}" for k, v in ((xkey, xs), (ykey, ys))
                         if _get(layout, k, "visible") is not False)  # a hidden axis says nothing
        if head or axes:
            parts.append(f"{head + ': ' if head else ''}{axes}.")
        series = [_series(t) for t in traces]
        lines = [(n, f) for n, k, f in series if k == "line"]
        # curves drawn with a confidence band are the estimates compared; lines without one
        # (a bound, a reference) are named but not ranked, unless no curve has a band
        ranked = [(n, f) for (n, k, f), t in zip(series, traces) if k == "line" and t.get("legendgroup") in banded]
        lines = ranked if len(ranked) >= 2 else lines
        described = []
        if styles:  # a colour key: every curve with its colour and line style, nothing else
            described = [f"{plain(t.get('name'))}: {_look(t)}" for t in traces]
            parts.append("Curves: " + "; ".join(described) + ".")
            continue
        names = [n for n, _, _ in series]
        for name, kind, facts in series[:MAX_SERIES]:
            if kind == "other" and names.count(name) > 1:
                continue  # a legend entry drawn apart from its data (no data of its own)
            if kind == "line":
                x_end, y_end, _, _ = facts
                described.append(f"{name} ends at {number(y_end)} (x = {number(x_end)})")
            elif kind == "point":
                described.append(f"{name} at ({number(facts[0])}, {number(facts[1])})")
            elif kind == "points":
                described.append(f"{name}: {facts[0]} points, y from {number(facts[1])} to {number(facts[2])}")
            elif kind == "closed":
                (x0, x1, y0, y1), _ = facts
                described.append(f"{name}: a closed curve over x {number(x0)} to {number(x1)}, "
                                 f"y {number(y0)} to {number(y1)}")
            elif kind == "path":
                _, (xe, ye) = facts
                described.append(f"{name}: a path ending at ({number(xe)}, {number(ye)})")
            elif kind == "bar":
                described.append(f"bars {name}: {facts}" if facts else f"bars {name}")
            else:
                described.append(name)
        if len(series) > MAX_SERIES:
            described.append(f"and {len(series) - MAX_SERIES} more series")
        parts.append("Series: " + "; ".join(described) + ".")
        xname = plain(_get(layout, xkey, "title", "text") or "")
        verdict = _verdict(lines, xname.split(" (")[0] if xname else "")
        if verdict:
            parts.append(verdict)
        parts.append(_against_uniform(lines))
    return " ".join(p for p in parts if p)
