"""Static figures and explorables for the course site: plotly in the page, no kernel.

**A static figure** is a plotly figure inside a ``<figure>``: the site's script
(``assets/site.js``) loads its JSON (moved by the build to a file of its own) and the site's one
shared plotly.js when it comes near the screen, draws it laid out for that screen, and keeps
plotly's zoom, hover and legend toggles. Its text alternative
(:func:`delaylab.viz.describe.describe`) is the visible ``<figcaption>``, and so the figure's
accessible name (read once; the plot's SVG is hidden from screen readers). Arrays travel as
plotly's typed arrays (base64), in single precision: half the bytes of doubles, and more than a
figure can show.

**An explorable** is a live panel (``delaylab/panels``) made static: its most important control
or two (:data:`EXPLORABLES`) are set, through the panel's own widgets, to a few positions along
their range, the panel recomputes as it does when a student moves them (the full computation:
no time budget), and each of its figures is recorded at each position. In the page, a native
``<input type="range">`` per control (a tab stop, the arrow keys, a finger; a screen reader
hears "window m = 1,000") switches every figure of the panel to the recorded combination
(``Plotly.update``), and each caption says which value it shows. What the panel's other
controls do needs the live version: the page names them and links to it. Recordings are kept on
disk (``<sweep cache>/site-explorables``), keyed by delaylab's code version (as the sweep cache)
and the panel's whole state, so a rebuild only redraws.

A panel class not listed is shown as it is (its figures at their defaults), with every control
named as needing the live version. Nothing here reaches into a panel's internals: controls are
the panel's public widget attributes, figures are found in its ``widget`` tree.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import itertools
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

import ipywidgets as W
import numpy as np
from plotly.basedatatypes import BaseFigure

from ..viz.describe import describe, plain, typed

#: Panel class name -> the controls precomputed, as (widget attribute, number of positions).
#: The issue's choice: the window m in 01, α̂ in 02, the window in 03 (and the time t of the
#: ellipse), E[τ] in 04, β in 05.
EXPLORABLES: dict[str, tuple[tuple[str, int], ...]] = {
    "ConversionsPanel": (("window", 11),),
    "ArmDelaysPanel": (("alpha_hat", 10),),
    "LinearPanel": (("window", 10),),
    "EllipsePanel": (("time", 16),),
    "AnonymousPanel": (("mean_delay", 10),),
    "AdversarialPanel": (("beta", 9),),
}

#: recordings kept in the cache folder (the oldest beyond this are deleted)
KEEP_RECORDINGS = 64


# ----------------------------------------------------------------------------- figures as JSON
def _compact_array(spec: dict) -> dict:
    """A plotly typed array in single precision (f8 -> f4; i8 -> i4 when it fits)."""
    arr = typed(spec)
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    elif arr.dtype == np.int64 and (arr.size == 0 or (arr.min() >= -2**31 and arr.max() < 2**31)):
        arr = arr.astype(np.int32)
    out = {"dtype": {np.dtype(np.float32): "f4", np.dtype(np.int32): "i4"}.get(arr.dtype, spec["dtype"]),
           "bdata": base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode("ascii")}
    if "shape" in spec:
        out["shape"] = spec["shape"]
    return out


def compact(obj):
    """A figure's JSON (``to_plotly_json``) made small: typed arrays in single precision, numpy
    scalars and arrays as plain JSON."""
    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj:
            return _compact_array(obj)
        return {k: compact(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [compact(v) for v in obj]
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fiu" and obj.ndim == 1 and obj.size > 8:
            return _compact_array({"dtype": obj.dtype.str[1:], "bdata": base64.b64encode(obj.tobytes()).decode()})
        return compact(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def figure_json(fig) -> dict:
    """``{"data", "layout"}`` of a plotly figure (Figure, FigureWidget or dict), compacted."""
    d = fig.to_plotly_json() if isinstance(fig, BaseFigure) else dict(fig)
    return {"data": compact(d.get("data") or []), "layout": compact(d.get("layout") or {})}


def dumps(obj) -> str:
    """JSON safe inside ``<script type="application/json">`` (no ``</`` in it)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")


class Ids:
    """Element ids unique within a page (one kernel executes one page)."""

    def __init__(self):
        self.n = 0

    def __call__(self, kind="f") -> str:
        self.n += 1
        return f"dl-{kind}{self.n}"


IDS = Ids()


def legend_names(fig_json: dict) -> list[str]:
    """The legend's entries of a figure (names of the visible traces that show in the legend):
    the page sizes a phone's legend, under the plot, from them before the figure's data arrives."""
    out = []
    for t in fig_json.get("data") or []:
        if t.get("showlegend") is False or t.get("visible") is False or not t.get("name"):
            continue
        if t.get("type", "scatter") == "pie":
            continue
        if t["name"] not in out:
            out.append(t["name"])
    return out


def grid(fig_json: dict) -> tuple[int, int]:
    """(columns, rows) of a figure's subplots: the distinct domains of the axes its traces use
    (the page stacks side-by-side panels on a phone, and reserves their height)."""
    layout = fig_json.get("layout") or {}
    xs, ys = set(), set()
    for t in fig_json.get("data") or []:
        if t.get("type") == "pie":
            continue
        xk = "xaxis" + (t.get("xaxis") or "x")[1:]
        yk = "yaxis" + (t.get("yaxis") or "y")[1:]
        xs.add(tuple((layout.get(xk) or {}).get("domain") or (0, 1)))
        ys.add(tuple((layout.get(yk) or {}).get("domain") or (0, 1)))
    return max(len(xs), 1), max(len(ys), 1)


def figure_html(fig_json: dict, alt: str, extra: dict | None = None, fid: str | None = None,
                caption_html: str = "") -> str:
    """One static figure: ``<figure>`` with the plot's place (its height kept, so the page does
    not jump when it is drawn), the text alternative as the ``<figcaption>`` (the figure's
    accessible name: a screen reader reads it once, and never the plot's SVG), and the figure's
    JSON (plus ``extra``: explorable steps) beside it, which the build moves to a file of its
    own that the page loads when the figure comes near the screen."""
    fid = fid or IDS("f")
    height = int(fig_json.get("layout", {}).get("height") or 450)
    spec = dict(fig_json)
    if extra:
        spec["delaylab"] = extra
    legend = html.escape(json.dumps([len(plain(n)) for n in legend_names(fig_json)]))
    cols, rows = grid(fig_json)
    return (f'<figure class="dl-figure" id="{fid}">'
            f'<div class="dl-plot" data-spec="{fid}-json" data-height="{height}" data-legend="{legend}" '
            f'data-grid="{cols}x{rows}" '
            f'style="min-height:{height}px"></div>'
            f'{caption_html}'
            f'<figcaption class="dl-alt" id="{fid}-alt">{html.escape(alt)}</figcaption>'
            f'<script type="application/json" id="{fid}-json">{dumps(spec)}</script></figure>')


# ----------------------------------------------------------------------------- widget trees
def walk(widget):
    """Every widget of a tree (boxes' children, depth first, in display order)."""
    yield widget
    for child in getattr(widget, "children", ()) or ():
        yield from walk(child)


def figures_in(widget) -> list:
    return [w for w in walk(widget) if isinstance(w, BaseFigure)]


def controls_in(widget) -> list:
    """The value widgets a reader can change (sliders, menus, boxes, text fields), in order."""
    out = []
    for w in walk(widget):
        if isinstance(w, W.ValueWidget) and not isinstance(w, (W.HTML, W.HTMLMath, W.Label, W.FloatProgress,
                                                                 W.IntProgress, W.Valid)):
            if not getattr(w, "disabled", False) or isinstance(w, W.Checkbox):
                out.append(w)
    return out


def label_of(w) -> str:
    return plain(getattr(w, "description", "") or getattr(w, "tooltip", "") or type(w).__name__)


# ----------------------------------------------------------------------------- positions
def positions(slider, n: int) -> list:
    """``n`` values along a slider's range on its own grid (log sliders: evenly in the exponent),
    always with its current value; sorted, no duplicates."""
    value = slider.value
    if isinstance(slider, (W.FloatLogSlider,)):
        lo, hi, step, base = slider.min, slider.max, slider.step, slider.base
        exps = np.linspace(lo, hi, n)
        exps = np.round((exps - lo) / step) * step + lo
        vals = [float(f"{base ** e:.6g}") for e in exps]
    elif isinstance(slider, (W.IntSlider, W.FloatSlider)):
        lo, hi, step = slider.min, slider.max, slider.step
        raw = np.linspace(lo, hi, n)
        snapped = np.round((raw - lo) / step) * step + lo
        if isinstance(slider, W.IntSlider):
            vals = [int(round(v)) for v in snapped]
        else:
            vals = [float(f"{v:.6g}") for v in snapped]
    elif hasattr(slider, "options"):  # a menu: all its options
        return [v for _, v in _options(slider)]
    else:
        raise TypeError(f"cannot precompute a {type(slider).__name__}")
    vals = sorted(set(vals) | {value})
    return vals


def _options(menu):
    opts = menu.options
    if isinstance(opts, dict):
        opts = list(opts.items())
    return [(o, o) if not isinstance(o, (tuple, list)) else (o[0], o[1]) for o in opts]


def value_label(slider, value) -> str:
    if hasattr(slider, "options"):
        return next((str(lab) for lab, v in _options(slider) if v == value), str(value))
    if isinstance(value, float):
        if abs(value) >= 100 or float(value).is_integer():
            return f"{value:,.0f}"
        return f"{value:.3g}"
    return f"{value:,}" if isinstance(value, int) else str(value)


# ----------------------------------------------------------------------------- recording
@dataclass
class Recording:
    """A panel's figures at every combination of the chosen controls' positions."""

    controls: list  # [(attribute, label, [values], [labels])]
    default: list  # index of each control's current value
    states: list  # per combination (row-major over the controls): [figure JSON per figure]
    alts: list  # per combination: [text alternative per figure]


def _simple_state(panel) -> dict:
    """The panel's plain attributes (seed, θ, horizon …): part of a recording's key."""
    out = {}
    for k, v in sorted(vars(panel).items()):
        if k.startswith("_"):
            continue
        if isinstance(v, (int, float, str, bool, type(None))):
            out[k] = v
        elif isinstance(v, (tuple, list)) and all(isinstance(x, (int, float, str)) for x in v):
            out[k] = list(v)
        elif isinstance(v, np.ndarray) and v.size <= 64:
            out[k] = v.tolist()
    return out


def _drawing_version() -> str:
    """A hash of ``delaylab/viz`` (how figures are drawn: colours, layout, texts). The sweep cache's
    code version leaves it out (it cannot change a simulation), but a recording holds the figures as
    drawn: a new palette must not be served from an old recording."""
    folder = Path(__file__).resolve().parents[1] / "viz"
    h = hashlib.sha256()
    for p in sorted(folder.glob("*.py")):
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def _key(panel, widget, spec) -> str:
    from ..cache import code_version

    state = [(type(w).__name__, label_of(w), repr(w.value)) for w in controls_in(widget)]
    text = json.dumps([code_version(), _drawing_version(), type(panel).__module__, type(panel).__qualname__, state,
                       _simple_state(panel), [list(s) for s in spec]], default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _folder() -> Path | None:
    from ..cache import default_folder

    folder = Path(os.environ.get("DELAYLAB_SITE_CACHE") or default_folder() / "site-explorables")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


def _load(key):
    folder = _folder()
    path = folder / f"explorable-{key}.json.gz" if folder else None
    if path is None or not path.exists():
        return None
    try:
        rec = Recording(**json.loads(gzip.decompress(path.read_bytes())))
        os.utime(path)  # recently used
        return rec
    except Exception:  # noqa: BLE001  (a damaged file: record again)
        return None


def _save(key, rec: Recording) -> None:
    folder = _folder()
    if folder is None:
        return
    data = gzip.compress(json.dumps(rec.__dict__, separators=(",", ":")).encode(), 6)
    tmp = folder / f".tmp-{key}-{os.getpid()}"
    tmp.write_bytes(data)
    os.replace(tmp, folder / f"explorable-{key}.json.gz")
    files = sorted(folder.glob("explorable-*.json.gz"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[KEEP_RECORDINGS:]:
        old.unlink(missing_ok=True)


def record(panel, widget, spec) -> Recording:
    """Set the controls of ``spec`` ((attribute, positions), …) to each combination of their
    positions through the panel's widgets, and record every figure of ``widget``; the controls
    are set back afterwards."""
    key = _key(panel, widget, spec)
    cached = _load(key)
    if cached is not None:
        return cached
    sliders = [getattr(panel, attr) for attr, _ in spec]
    values = [positions(s, n) for s, (_, n) in zip(sliders, spec)]
    defaults = [s.value for s in sliders]
    figs = figures_in(widget)
    states, alts = [], []
    try:
        for combo in itertools.product(*values):
            for s, v in zip(sliders, combo):
                if s.value != v:
                    s.value = v
            states.append([figure_json(f) for f in figs])
            alts.append([describe(f) for f in figs])
    finally:
        for s, v in zip(sliders, defaults):
            if s.value != v:
                s.value = v
    controls = [(attr, label_of(s), vals, [value_label(s, v) for v in vals])
                for (attr, _), s, vals in zip(spec, sliders, values)]
    default = [vals.index(d) for vals, d in zip(values, defaults)]
    rec = Recording(controls, default, states, alts)
    _save(key, rec)
    return rec


# ----------------------------------------------------------------------------- differences
def _flat(d: dict, prefix="") -> dict:
    out = {}
    for k, v in d.items():
        path = f"{prefix}{k}"
        if isinstance(v, dict) and not ("bdata" in v and "dtype" in v) and v:
            out.update(_flat(v, path + "."))
        else:
            out[path] = v
    return out


def step_updates(states: list) -> tuple[list, list]:
    """For one figure recorded at every position: the traces that change and, per position, the
    ``[data update, layout update, trace indices]`` of ``Plotly.update`` that brings any
    position's figure to it."""
    n = len(states[0]["data"])
    if any(len(s["data"]) != n for s in states):
        raise ValueError("the figure's traces change in number between positions")
    changed = sorted({i for s in states for i in range(n) if s["data"][i] != states[0]["data"][i]})
    keys = sorted({k for s in states for i in changed
                   for k in set(s["data"][i]) | set(states[0]["data"][i])
                   if any(t["data"][i].get(k) != states[0]["data"][i].get(k) for t in states)})
    flats = [_flat(s["layout"]) for s in states]
    lkeys = sorted({k for f in flats for k in f if any(g.get(k) != f.get(k) for g in flats)})
    updates = []
    for s, f in zip(states, flats):
        data = {k: [s["data"][i].get(k) for i in changed] for k in keys}
        layout = {k: f.get(k) for k in lkeys}
        updates.append([data, layout, changed])
    return changed, updates


# ----------------------------------------------------------------------------- the page's HTML
def shown(rec: Recording, k: int) -> str:
    """What combination ``k`` shows, as a caption says it: "window m = 1,000" (and the others)."""
    sizes = [len(c[2]) for c in rec.controls]
    index = list(itertools.product(*[range(n) for n in sizes]))[k]
    return ", ".join(f"{c[1]} = {c[3][i]}" for c, i in zip(rec.controls, index))


def explorable_html(rec: Recording, live_note: str) -> str:
    """The recorded panel as HTML: a native range input per precomputed control (Tab, the arrow
    keys, Home and End; a screen reader hears "window m = 1,000"), then the panel's figures, each
    of which follows the controls, its caption saying which value it shows; ``live_note``: what
    needs the live version (HTML)."""
    gid = IDS("x")
    nfig = len(rec.states[0])
    sizes = [len(c[2]) for c in rec.controls]
    combos = list(itertools.product(*[range(s) for s in sizes]))
    index = {c: i for i, c in enumerate(combos)}
    start = index[tuple(rec.default)]
    parts = []
    for j in range(nfig):
        states = [rec.states[k][j] for k in range(len(combos))]
        base = states[start]
        alts = [f"Shown: {shown(rec, k)}. {rec.alts[k][j]}" for k in range(len(combos))]
        try:
            _, updates = step_updates(states)
        except ValueError:  # cannot switch: shown at its default only
            parts.append(figure_html(base, rec.alts[start][j]))
            continue
        extra = {"group": gid, "alts": alts, "sizes": sizes, "start": list(rec.default), "updates": updates}
        parts.append(figure_html({"data": base["data"], "layout": base["layout"]}, alts[start], extra))
    controls = "".join(_range_html(gid, c, control, rec.default[c]) for c, control in enumerate(rec.controls))
    names = ", ".join(f"<b>{html.escape(c[1])}</b> ({html.escape(c[3][0])} to {html.escape(c[3][-1])}, "
                      f"{len(c[2])} positions)" for c in rec.controls)
    plural = "s" if len(sizes) > 1 else ""
    head = (f'<p class="dl-explorable-note">Precomputed here, no server needed: move the slider{plural} — '
            f'{names} — with the mouse, a finger or the arrow keys. Every figure below follows.</p>')
    return (f'<section class="dl-explorable" id="{gid}" aria-label="explorable panel">{head}'
            f'<div class="dl-controls" role="group" aria-label="precomputed control{plural}">{controls}</div>'
            + "".join(parts) + f'<p class="dl-live-note">{live_note}</p></section>')


def _range_html(gid: str, c: int, control, default: int) -> str:
    """A native ``<input type="range">`` over a control's recorded positions: its name is the
    control's label, its ``aria-valuetext`` the value ("window m = 1,000"), its visible readout
    the same value."""
    attr, label, _values, labels = control
    cid = f"{gid}-c{c}"
    text = f"{label} = {labels[default]}"
    return (f'<div class="dl-control"><label for="{cid}">{html.escape(label)}</label>'
            f'<input type="range" id="{cid}" class="dl-range" min="0" max="{len(labels) - 1}" step="1" '
            f'value="{default}" data-group="{gid}" data-control="{c}" aria-valuetext="{html.escape(text)}" '
            f'data-labels="{html.escape(json.dumps(labels, ensure_ascii=False))}" data-name="{html.escape(label)}">'
            f'<output for="{cid}" class="dl-readout" aria-hidden="true">{html.escape(labels[default])}</output>'
            f'<span class="dl-range-ends" aria-hidden="true"><span>{html.escape(labels[0])}</span>'
            f'<span>{html.escape(labels[-1])}</span></span></div>')
