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
"""

from __future__ import annotations

from copy import deepcopy

import ipywidgets
import plotly.graph_objects as go
import traitlets

_LOADER = r"""
// plotly's widget module, imported once per page for all figures (keyed by the shared model).
const MODULES = (globalThis[Symbol.for("delaylab.plotly-widget")] ??= new Map());

function plotlyModule(model) {
  const ref = model.get("_plotly_code");
  let module = MODULES.get(ref);
  if (!module) {
    module = model.widget_manager.get_model(ref.replace(/^IPY_MODEL_/, "")).then(async (holder) => {
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

export default () => {
  let figure;  // plotly's widget for this model: a promise, resolved once its module is loaded
  return {
    initialize({ model }) {
      // not awaited: anywidget drops the messages of a model that takes over 2 s here
      figure = plotlyModule(model).then(async (module) => {
        const widget = module.default();
        await widget.initialize({ model });
        return widget;
      });
      figure.catch((error) => console.error("[delaylab] plotly's widget module failed to load", error));
    },
    async render(view) {
      return (await figure).render(view);
    },
  };
};
"""


class _PlotlyCode(ipywidgets.Widget):
    """Invisible model holding plotly's widget module, shared by every :class:`FigureWidget`."""

    esm = traitlets.Unicode().tag(sync=True)


_CODE: _PlotlyCode | None = None


def _shared_code() -> _PlotlyCode:
    global _CODE
    if _CODE is None or _CODE.comm is None:  # first figure, or the widgets were closed
        _CODE = _PlotlyCode(esm=str(go.FigureWidget._esm))
    return _CODE


class FigureWidget(go.FigureWidget):
    """``go.FigureWidget`` that shares plotly's JavaScript with the other figures on the page.

    Use it exactly like ``go.FigureWidget`` (``FigureWidget(fig)``, ``batch_update()``, direct
    assignments, …). It adds one synced trait, ``_plotly_code`` (the shared model), replaces
    ``_esm`` by the loader, and syncs the full state after every update (see the module's doc).
    """

    _esm = _LOADER
    _plotly_code = traitlets.Unicode().tag(sync=True)  # "IPY_MODEL_<id>" of the shared code

    @traitlets.default("_plotly_code")
    def _default_plotly_code(self):
        return f"IPY_MODEL_{_shared_code().model_id}"

    def _sync_state(self):
        """The full figure, as plotly sends it when a figure is displayed."""
        self._widget_layout = deepcopy(self._layout_obj._props)
        self._widget_data = deepcopy(self._data)


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
