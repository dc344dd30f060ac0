"""A plotly ``FigureWidget`` whose JavaScript is loaded once per page, however many figures it has.

Why not ``go.FigureWidget`` itself: since plotly 6 every FigureWidget is an anywidget that carries
plotly's whole widget module (about 5 MB of JavaScript) in its own state. A page with seven
figures receives and evaluates it seven times, one after the other. anywidget (0.11) gives each
model 2 s to initialise; a model that misses it ("[anywidget] Failed to initialize model.") is
still drawn from its state but drops every later message, so its figure never takes another
update. Three pages of notebook 01 opened at once showed this on every page.

Here the module's code lives in one shared, invisible model per kernel (:class:`_PlotlyCode`),
and every figure's ``_esm`` is a small loader that

* imports that code once per page (later figures reuse the same module), and
* returns from ``initialize`` at once, so the 5 MB no longer count against each figure's 2 s;
  plotly's own model is set up when the module has arrived, and the figure is drawn after that.

Updates sent while the module is still loading reach no plotly code in the page. So that none is
lost, the figure's full state (``_widget_data``, ``_widget_layout``) is synced after every update
message (plotly itself refreshes it only when the figure is displayed): a figure set up late is
drawn from its current state. The page still evaluates 5 MB once, so a very busy page can delay
the small loaders too; the browser tests fail on any such error.

Once the module has arrived, the figures waiting for it are drawn **one per task**, in the order
the page asked for them: the browser shows each figure as soon as it is drawn, instead of drawing
every figure of the page in one go and showing none before the last (a page has up to seven).

**Under the dashboards' server** (:mod:`delaylab.serve.app`) the module does not travel through
the kernel at all: the server serves it as a static file whose name carries a hash of its
content (:func:`dashboard_module`), cached by the browser for good, and passes its URL to the
kernels in ``DELAYLAB_PLOTLY_MODULE_URL``. A figure then syncs that URL (``_plotly_url``) and
the loader imports it: no 5 MB websocket message per page (nor per preheated kernel through the
server), and a visitor's second page takes the module from the browser's cache. The kernel
uses the URL only if it names a module made from this kernel's plotly (same hash); otherwise,
and in JupyterLab or plain Voila (no such variable), the shared model above carries it.

That static copy carries plotly.js's basic bundle (:mod:`delaylab.viz.plotlyjs`: scatter, bar
and pie) when it is installed. A figure created with another trace type then takes plotly's full
module through the kernel, and adding one to a figure already drawn with the basic bundle is
refused (``ValueError``) before the figure changes.

**Through the kernel** (JupyterLab, plain Voila) the same holds: a figure whose traces the basic
bundle draws refers to a shared model carrying that module (about 1.3 MB, evaluated by the page
in about a quarter of the full module's time), any other to the full one. A Run All of a
notebook, whose figures are all of those three types, evaluates only the small one. A
student's own ``go.FigureWidget`` keeps plotly's own full module.
"""

from __future__ import annotations

import hashlib
import os
import uuid
import warnings
from copy import deepcopy
from functools import lru_cache

import ipywidgets
import plotly.graph_objects as go
from plotly.basedatatypes import BaseFigure, BaseTraceType
import traitlets

from . import plotlyjs
from .describe import describe
from .theme import THEME_JS

#: JavaScript: ``takeMessages(model)`` hands a model's messages from the kernel to ipywidgets' own
#: handler, without anywidget's wait for the model's module: anywidget (0.11) drops them all
#: once a model took over 2 s to load (a busy or slow page). The model is found by its id
#: (:class:`SelfIdentified`); resolves to it, or to null for a model without one.
TAKE_MESSAGES_JS = r"""
async function takeMessages(model) {
  const id = model.get("_self_id");
  const real = id ? await model.widget_manager.get_model(id) : null;
  const handle = real && Object.getPrototypeOf(Object.getPrototypeOf(real))._handle_comm_msg;
  if (!real?.comm || typeof handle !== "function") return null;
  real.comm.on_msg((msg) => handle.call(real, msg));
  return real;
}
"""

_LOADER = THEME_JS + TAKE_MESSAGES_JS + r"""
// plotly's widget module, imported once per page for all figures (keyed by its URL or its shared model).
const MODULES = (globalThis[Symbol.for("delaylab.plotly-widget")] ??= new Map());

// Either a static URL served by the dashboards' server (cached by the browser), or the shared model.
function plotlyModule(model) {
  const path = model.get("_plotly_url");
  // absolute: this loader itself runs from a blob: URL, against which a path cannot resolve
  const ref = path ? new URL(path, document.baseURI).href : model.get("_plotly_code");
  let module = MODULES.get(ref);
  if (!module) {
    module = path ? import(/* webpackIgnore: true */ ref) : model.widget_manager.get_model(ref.replace(/^IPY_MODEL_/, "")).then(async (holder) => {
      const url = URL.createObjectURL(new Blob([holder.get("esm")], { type: "text/javascript" }));
      try {
        return await import(/* webpackIgnore: true */ url);
      } finally {
        URL.revokeObjectURL(url);
      }
    });
    module.catch(() => MODULES.delete(ref));  // a failed load is retried by the next figure
    MODULES.set(ref, module);
  }
  return module;
}

// Figures are drawn one at a time, each in a task of its own, in the order the page asks for them:
// the browser shows a figure as soon as it is drawn. (Otherwise every figure waiting for the module
// is drawn in one go, and none shows before the last is done: a second per five figures here.)
// The next figure's turn comes after this one's synchronous drawing, not after its promise: a view
// that waits for something (JupyterLab attaches a cell's output only when it is near the screen)
// must not hold up the figures after it.
const TURNS = (globalThis[Symbol.for("delaylab.plotly-turns")] ??= { last: Promise.resolve() });
function inTurn(draw) {
  let drawn;
  const turn = TURNS.last.then(() => new Promise((resolve) => setTimeout(resolve, 0))).then(() => { drawn = draw(); });
  TURNS.last = turn.catch(() => {});
  return turn.then(() => drawn);
}

// anywidget (0.11) gives a model 2 s from its creation in the page to load its module; past that
// ("[anywidget] Failed to initialize model.", a busy or slow page) it drops every message the kernel
// sends the model, and the figure is drawn from the state it was created with: blank, if the kernel
// filled it afterwards, and deaf to every later update. So each figure takes its model's messages in
// hand (TAKE_MESSAGES_JS) and tells the kernel which revision of the figure it holds; the kernel
// sends the full figure if that is not the latest ("delaylab-synced"), and the views are drawn
// again from it.
// The figure's text alternative (delaylab.viz.describe, synced as _description) as the accessible
// name of its view, a figure (not an image: it holds plotly's mode-bar buttons, which stay
// reachable); its SVG, tick labels and legend entries, is hidden from screen readers, which read
// what the figure shows instead. The name is not a live region: a slider's move is not read out.
function labelled(model, el) {
  const label = () => {
    const text = model.get("_description");
    if (text) {
      el.setAttribute("role", "figure");
      el.setAttribute("aria-label", text);
    }
  };
  const quiet = () => el.querySelectorAll("svg.main-svg:not([aria-hidden])").forEach((svg) => svg.setAttribute("aria-hidden", "true"));
  label();
  quiet();
  const svgs = new MutationObserver(quiet);
  svgs.observe(el, {childList: true, subtree: true});
  model.on("change:_description", label);
  return () => {
    svgs.disconnect();
    model.off("change:_description", label);
  };
}

export default () => {
  let figure;  // plotly's widget for this model: a promise, resolved once its module is loaded
  let taken;   // the model (ipywidgets'), once its messages are in hand: a promise
  return {
    initialize({ model }) {
      taken = takeMessages(model).then((real) => {
        if (real) model.send({ kind: "delaylab-sync", revision: model.get("_revision") });
        return real;
      });
      taken.catch((error) => console.error("[delaylab] a figure's messages could not be taken in hand", error));
      // not awaited: anywidget drops the messages of a model that takes over 2 s here
      figure = plotlyModule(model).then(async (module) => {
        const widget = module.default();
        await widget.initialize({ model });
        return widget;
      });
      figure.catch((error) => console.error("[delaylab] plotly's widget module failed to load", error));
    },
    async render(view) {
      const widget = await figure;
      let cleanup = await inTurn(() => widget.render(view));
      const unlabel = labelled(view.model, view.el);
      DL_THEME.follow(view.el, {widget: true});  // the page's light or dark theme (delaylab.viz.theme)
      const real = await taken.catch(() => null);
      // the kernel sent the full figure (see takeMessages): draw it again once that state is set
      const synced = (msg) => msg?.kind === "delaylab-synced" && real && real.state_change.then(() => inTurn(() => {
        if (typeof cleanup === "function") cleanup();
        view.el.replaceChildren();
        cleanup = widget.render(view);
      }));
      view.model.on("msg:custom", synced);
      return () => {
        view.model.off("msg:custom", synced);
        unlabel();
        if (typeof cleanup === "function") cleanup();
      };
    },
  };
};
"""


def _compact(code: str) -> str:
    """The loader as every figure carries it: its whole-line comments and indentation left out
    (the readable source is above; a page receives one copy per figure)."""
    return "\n".join(line.strip() for line in code.splitlines() if line.strip() and not line.strip().startswith("//"))


class _PlotlyCode(ipywidgets.Widget):
    """Invisible model holding plotly's widget module, shared by every :class:`FigureWidget`."""

    esm = traitlets.Unicode().tag(sync=True)


_CODE: _PlotlyCode | None = None
_BASIC_CODE: _PlotlyCode | None = None


@lru_cache(maxsize=1)
def plotly_module() -> bytes:
    """plotly's widget module (the ``_esm`` of ``go.FigureWidget``), as UTF-8 bytes."""
    return str(go.FigureWidget._esm).encode("utf-8")


@lru_cache(maxsize=1)
def plotly_module_name() -> str:
    """File name of :func:`plotly_module` for a static URL: ``plotly-widget.<hash>.js``, the hash
    from the content, so that another plotly (another module) is another URL and a browser never
    runs a cached module that does not match the kernel's plotly."""
    return f"plotly-widget.{hashlib.sha256(plotly_module()).hexdigest()[:20]}.js"


@lru_cache(maxsize=1)
def basic_module_name() -> str | None:
    """File name of :func:`dashboard_module` when it carries plotly.js's basic bundle
    (:mod:`delaylab.viz.plotlyjs`): the hash covers plotly's module and the bundle. None when the
    bundle is not installed."""
    basic = plotlyjs.installed()
    if basic is None:
        return None
    digest = hashlib.sha256(plotly_module() + b"\0" + basic).hexdigest()
    return f"plotly-widget.{digest[:20]}.js"


def dashboard_module() -> tuple[str, bytes, frozenset | None]:
    """What the dashboards' server serves as plotly's widget module: ``(file name, content, trace
    types it draws)``. plotly's module with plotly.js's basic bundle spliced in when the bundle is
    installed (trace types :data:`delaylab.viz.plotlyjs.TRACES`); else, or if the splice fails
    (said in a warning), plotly's full module (every trace type: None)."""
    basic = plotlyjs.installed()
    if basic is not None:
        try:
            spliced = plotlyjs.splice(plotly_module().decode(), basic.decode())
        except plotlyjs.SpliceError as exc:
            warnings.warn(f"plotly.js's basic bundle not used, the dashboards serve plotly's full widget "
                          f"module: {exc}", stacklevel=2)
        else:
            return basic_module_name(), spliced.encode(), plotlyjs.TRACES
    return plotly_module_name(), plotly_module(), None


def served_module() -> tuple[str, frozenset | None]:
    """``(URL, trace types)`` of the module the dashboards' server serves (passed to the kernels in
    ``DELAYLAB_PLOTLY_MODULE_URL``), if this kernel's plotly has that very module; else ``("",
    None)``: not under that server, or another plotly. Trace types None: all."""
    url = os.environ.get("DELAYLAB_PLOTLY_MODULE_URL", "")
    if not url:
        return "", None
    name = url.rsplit("/", 1)[-1]
    if name == basic_module_name():  # first: the usual case, and then the full module is never hashed
        return url, plotlyjs.TRACES
    if name == plotly_module_name():
        return url, None
    return "", None


def plotly_module_url() -> str:
    """The URL (path) the dashboards' server serves plotly's module at, or ``""`` (see
    :func:`served_module`)."""
    return served_module()[0]


def _trace_types(data) -> set[str]:
    """The trace types in a figure's ``data`` argument (a figure, its dict, a trace or a list)."""
    if isinstance(data, BaseFigure):
        return {trace.type for trace in data.data}
    if isinstance(data, dict):
        data = data.get("data", ())
    if data is None or isinstance(data, (dict, BaseTraceType)):
        data = [] if data is None else [data]
    return {d.get("type", "scatter") if isinstance(d, dict) else d.type for d in data}


def _check_traces(traces, allowed) -> None:
    unknown = sorted({trace.type for trace in traces} - allowed)
    if unknown:
        raise ValueError(f"trace type {', '.join(map(repr, unknown))}: this figure's plotly.js (the basic bundle, "
                         f"delaylab.viz.plotlyjs) draws only {', '.join(sorted(allowed))}. Draw it with those "
                         f"(e.g. a histogram as a bar chart of numpy.histogram), or create the figure with that "
                         f"trace from the start (it then loads plotly's full module)")


def _shared_code(basic: bool = False) -> _PlotlyCode:
    """The shared model carrying plotly's module: its full one, or (``basic``) the one with
    plotly.js's basic bundle (:func:`basic_module`)."""
    global _CODE, _BASIC_CODE
    if basic:
        if _BASIC_CODE is None or _BASIC_CODE.comm is None:
            _BASIC_CODE = _PlotlyCode(esm=basic_module())
        return _BASIC_CODE
    if _CODE is None or _CODE.comm is None:  # first figure, or the widgets were closed
        _CODE = _PlotlyCode(esm=str(go.FigureWidget._esm))
    return _CODE


@lru_cache(maxsize=1)
def basic_module() -> str | None:
    """plotly's module with plotly.js's basic bundle (:func:`dashboard_module`), which a page
    evaluates in about a quarter of the full module's time; None without the bundle."""
    _, module, traces = dashboard_module()
    return None if traces is None else module.decode()


class SelfIdentified(traitlets.HasTraits):
    """A widget whose model id is chosen before its comm opens and synced as ``_self_id``, so that
    its module in the page finds its model (:data:`TAKE_MESSAGES_JS`). Put it first among the
    widget's bases."""

    _self_id = traitlets.Unicode().tag(sync=True)

    def open(self):
        if self.comm is None and self._model_id is None:
            self._model_id = self._self_id = uuid.uuid4().hex
        super().open()


class FigureWidget(SelfIdentified, go.FigureWidget):
    """``go.FigureWidget`` that shares plotly's JavaScript with the other figures on the page.

    Use it exactly like ``go.FigureWidget`` (``FigureWidget(fig)``, ``batch_update()``, direct
    assignments, …). It adds two synced traits, ``_plotly_url`` (the static module's URL under
    the dashboards' server) or else ``_plotly_code`` (the shared model), replaces
    ``_esm`` by the loader, and syncs the full state after every update (see the module's doc).

    For every reader: ``_description``, the figure's text alternative made from its data
    (:func:`delaylab.viz.describe.describe`, refreshed after every update), is the view's
    accessible name (``role="figure"``, ``aria-label``; its SVG hidden from screen readers); and
    the view follows the page's light or
    dark theme (:mod:`delaylab.viz.theme`).
    """

    _esm = _compact(_LOADER)
    _plotly_url = traitlets.Unicode().tag(sync=True)  # the static module's URL, or ""
    _plotly_code = traitlets.Unicode().tag(sync=True)  # else "IPY_MODEL_<id>" of the shared code
    _description = traitlets.Unicode().tag(sync=True)  # the text alternative (delaylab.viz.describe)
    _revision = traitlets.Int(0).tag(sync=True)  # counts the updates sent: what a page has seen

    def __init__(self, data=None, *args, **kwargs):
        # decided before the comm opens, which sends _plotly_url
        url, traces = served_module()
        self._needs_full_plotly = traces is not None and not _trace_types(data) <= traces
        # through the kernel (JupyterLab, plain Voila): the basic bundle too, if it draws the figure
        self._basic_plotly = (not url and _trace_types(data) <= plotlyjs.TRACES and basic_module() is not None)
        self._complete = False
        super().__init__(data, *args, **kwargs)  # (opens no comm: see open)
        self._description = describe(self)
        self._complete = True
        self.open()
        self.on_msg(self._page_message)

    def open(self):
        """Open the comm once the figure is complete: the page's model is created with the whole
        figure (its data, layout and text alternative), not filled by messages after it (plotly
        opens it empty, then sends them). A page that drops a new model's messages (see the
        module's loader) still draws the figure as it was made."""
        if getattr(self, "_complete", True):
            super().open()

    def _page_message(self, _widget, content, _buffers) -> None:
        """A view's loader said which revision it holds (``delaylab-sync``): if not the latest, send
        the full figure, then ``delaylab-synced`` (it draws its views again)."""
        if isinstance(content, dict) and content.get("kind") == "delaylab-sync" and content.get("revision") != self._revision:
            self.send_state(["_widget_data", "_widget_layout", "_description", "_revision"])
            self.send({"kind": "delaylab-synced"})

    @traitlets.default("_plotly_url")
    def _default_plotly_url(self):
        # a trace the served module cannot draw: plotly's full module, through the kernel
        return "" if getattr(self, "_needs_full_plotly", False) else plotly_module_url()

    def add_traces(self, data, *args, **kwargs):
        """plotly's ``add_traces``; a trace type the page's plotly.js cannot draw (the basic
        bundle's, see the module's doc) is refused here (``ValueError``), before the figure changes."""
        traces = served_module()[1] if self._plotly_url else (plotlyjs.TRACES if self._basic_plotly else None)
        if traces is not None:
            _check_traces(self._data_validator.validate_coerce(data), traces)
        return super().add_traces(data, *args, **kwargs)

    @traitlets.default("_plotly_code")
    def _default_plotly_code(self):
        # no shared model (5 MB to every page) when the module has a URL
        if self._plotly_url:
            return ""
        return f"IPY_MODEL_{_shared_code(basic=getattr(self, '_basic_plotly', False)).model_id}"

    def _sync_state(self):
        """The full figure, as plotly sends it when a figure is displayed, and its text
        alternative (:func:`delaylab.viz.describe.describe`), the view's accessible name."""
        with self.hold_sync():  # one message
            self._widget_layout = self.layout.to_plotly_json()  # a deep copy of the layout's properties
            self._widget_data = deepcopy(self._data)
            self._description = describe(self)
            self._revision += 1


def _then_sync_state(name):
    def send(self, *args, **kwargs):
        getattr(go.FigureWidget, name)(self, *args, **kwargs)
        self._sync_state()

    send.__name__ = send.__qualname__ = name
    send.__doc__ = f"plotly's ``{name}``, then the full state synced."
    return send


# every way plotly sends an update to the views (batch_update ends in one of them)
for _name in ("_send_relayout_msg", "_send_restyle_msg", "_send_update_msg", "_send_animate_msg",
              "_send_addTraces_msg", "_send_deleteTraces_msg", "_send_moveTraces_msg"):
    getattr(go.FigureWidget, _name)  # fails at import, not at the first update, if plotly renames it
    setattr(FigureWidget, _name, _then_sync_state(_name))
