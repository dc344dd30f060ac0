"""What the course site's build changes in the kernel that executes a notebook for the site.

:func:`install` (run by a first cell the build adds, and removes afterwards) makes the notebook
write static HTML where it would show widgets:

* a paper figure (:class:`~delaylab.panels.reproduce.FigureReproduction`) is computed at the
  paper's scale at once (its button's run: the sweep cache serves it when it holds it) and shown
  as a static plotly figure with its caption;
* a live panel (a panel object, or its ``widget``) becomes an explorable
  (:mod:`delaylab.site.static`): its main controls precomputed, the others named as needing the
  live version, with a link to it;
* any other plotly figure (a FigureWidget, a ``go.Figure``) becomes a static figure;
* an HTML widget shown alone (the index's table of exercises) becomes its HTML;
* anything of ``delaylab.exercises`` (a predict question, a check, a race's verdict, "show
  solution") and any other widget shows nothing: the site shows an exercise's statement and a
  link to do it live, never its check or its solution.

Panels compute in full (no time budget, as in the tests): a first answer would be recorded
otherwise. Everything else runs as in JupyterLab.
"""

from __future__ import annotations

import html
import inspect
import json

import ipywidgets as W
from IPython.core.formatters import IPythonDisplayFormatter
from IPython.display import publish_display_data
from plotly.basedatatypes import BaseFigure

from ..viz.describe import describe
from . import static

#: set by :func:`install`: the live links of this page ({"lab": url, "dashboard": url, "hub": …})
OPTIONS: dict = {}


def _emit(markup: str) -> None:
    publish_display_data({"text/html": markup, "text/plain": "(a figure of the course site)"},
                         metadata={"delaylab": {"site": True}})


def _from_exercises(obj) -> bool:
    module = type(obj).__module__ or ""
    return module == "delaylab.exercises" or module.startswith("delaylab.exercises.")


def _owned_figures(obj) -> list:
    """The plotly figures an object holds in its attributes (directly, or as a plot's ``fig``)."""
    out = []
    for v in vars(obj).values() if hasattr(obj, "__dict__") else ():
        if isinstance(v, BaseFigure):
            out.append(v)
        elif isinstance(getattr(v, "fig", None), BaseFigure) and not isinstance(v, type):
            out.append(v.fig)
    return out


def _owner(figs):
    """The object of the notebook's namespace whose figures these are (a panel, a reproduction)."""
    from IPython import get_ipython

    ns = get_ipython().user_ns
    ids = {id(f) for f in figs}
    for name, obj in list(ns.items()):
        if name.startswith("_") or isinstance(obj, (type, BaseFigure, W.Widget)) or inspect.ismodule(obj):
            continue
        try:
            owned = _owned_figures(obj)
        except Exception:  # noqa: BLE001
            continue
        if owned and ids & {id(f) for f in owned}:
            return obj
    return None


def _is_reproduction(obj) -> bool:
    from ..panels.reproduce import FigureReproduction

    return isinstance(obj, FigureReproduction)


def _is_panel(obj) -> bool:
    return hasattr(obj, "widget") and not _is_reproduction(obj) and type(obj).__module__.startswith("delaylab.")


def static_figure(fig) -> str:
    return static.figure_html(static.figure_json(fig), describe(fig))


def reproduction_html(rep) -> str:
    runs = getattr(rep, "runs", None)
    full = getattr(rep, "full_scale", None)  # a run count of our choice, where the paper's was lost
    at, of = (full, full) if full else ("the paper's scale", "the paper")
    scale = (f"At {at}: {runs:,} runs." if runs is not None and runs >= rep.paper_runs
             else f"{runs} runs ({of}: {rep.paper_runs}).")
    # what this figure computed (FigureReproduction(summary=…)), as under the live figure, then its caption
    caption = (f'<div class="dl-caption"><p class="dl-scale">{html.escape(scale)}</p>{rep.summary.value}'
               f'{rep.caption.value}</div>')
    return static.figure_html(static.figure_json(rep.fig), describe(rep.fig), caption_html=caption)


def panel_html(panel, widget=None) -> str:
    widget = widget if widget is not None else panel.widget
    spec = static.EXPLORABLES.get(type(panel).__name__, ())
    spec = tuple((attr, n) for attr, n in spec if isinstance(getattr(panel, attr, None), W.ValueWidget))
    chosen = {id(getattr(panel, attr)) for attr, _ in spec}
    others = [w for w in static.controls_in(widget) if id(w) not in chosen]
    note = _live_note(others, bool(spec))
    if not spec:
        figs = static.figures_in(widget)
        return ('<section class="dl-explorable">' + "".join(static_figure(f) for f in figs)
                + f'<p class="dl-live-note">{note}</p></section>')
    rec = static.record(panel, widget, spec)
    return static.explorable_html(rec, note)


def _live_note(others, some_precomputed: bool) -> str:
    boxes = [static.label_of(w) for w in others if isinstance(w, (W.Checkbox, W.ToggleButton))]
    rest = [static.label_of(w) for w in others if not isinstance(w, (W.Checkbox, W.ToggleButton))]
    names = list(dict.fromkeys(rest))
    what = ", ".join(html.escape(n) for n in names)
    if boxes:
        what += (", " if what else "") + "the check boxes (" + ", ".join(html.escape(b) for b in dict.fromkeys(boxes)) + ")"
    links = live_links_html()
    lead = "The other controls" if some_precomputed else "This panel's controls"
    return (f"{lead} — {what} — rerun the simulations and need the live version: {links}." if what
            else f"The live version recomputes at every value: {links}.")


def live_links_html() -> str:
    links = OPTIONS.get("links") or []
    if not links:
        return "open this notebook in JupyterLab (download it with the link at the top of the page)"
    return " · ".join(f'<a href="{html.escape(url)}" class="dl-live-link">{html.escape(text)}</a>'
                      for text, url in links)


def show(obj) -> bool:
    """The site's display of ``obj``: True if shown (or deliberately not shown) here."""
    if _from_exercises(obj):
        return True  # an exercise's widgets, checks and solutions: never on the site
    if _is_reproduction(obj):
        _emit(reproduction_html(obj))
        return True
    if isinstance(obj, W.Widget):
        figs = static.figures_in(obj)
        if isinstance(obj, BaseFigure):
            owner = None
        else:
            owner = _owner(figs) if figs else None
        if owner is not None and _is_reproduction(owner):
            _emit(reproduction_html(owner))
        elif owner is not None and _is_panel(owner):
            _emit(panel_html(owner, obj))
        elif figs:
            _emit("".join(static_figure(f) for f in figs))
        elif isinstance(obj, (W.HTML, W.HTMLMath)):
            _emit(obj.value)
        return True  # controls, buttons, progress bars: nothing on a static page
    if isinstance(obj, BaseFigure):
        _emit(static_figure(obj))
        return True
    if _is_panel(obj):
        _emit(panel_html(obj))
        return True
    return False


class SiteDisplay(IPythonDisplayFormatter):
    """IPython's ``_ipython_display_`` step, with :func:`show` first."""

    def __call__(self, obj):
        if show(obj):
            return True
        return super().__call__(obj)


def install(options: str | dict = "{}") -> None:
    """Set up this kernel for the site (see the module's doc); ``options``: JSON or a dict with
    ``links``, the page's live versions as [text, url] pairs."""
    from IPython import get_ipython

    from ..panels import budget
    from ..panels.reproduce import FigureReproduction

    OPTIONS.clear()
    OPTIONS.update(json.loads(options) if isinstance(options, str) else options)
    budget.BUDGET_SECONDS = float("inf")
    FigureReproduction.start_at_paper_scale = True  # computed at once at the paper's scale
    ip = get_ipython()
    formatter = ip.display_formatter
    if not isinstance(formatter.ipython_display_formatter, SiteDisplay):
        formatter.ipython_display_formatter = SiteDisplay(parent=formatter)
