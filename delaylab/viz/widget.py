"""A plotly ``FigureWidget`` whose JavaScript is loaded once per page, however many figures it has.

Why not ``go.FigureWidget`` itself: since plotly 6 every FigureWidget is an anywidget that carries
plotly's whole widget module (about 5 MB of JavaScript) in its own state. A page with seven
figures receives and evaluates it seven times, one after the other. anywidget (0.11) gives each
model 2 s to initialise; a model that misses it ("[anywidget] Failed to initialize model.") is
still drawn from its state but drops every later message, so its figure never takes another
update. On a busy machine this left figures stale after a slider move.

Here the module's code lives in one shared, invisible model per kernel (:class:`_PlotlyCode`),
and every figure's ``_esm`` is a small loader that

* imports that code once per page (later figures reuse the same module), and
* returns from ``initialize`` at once: plotly's own model is set up when the module has arrived,
  from the figure's current state (which :func:`delaylab.viz.plots.updating` keeps complete), so a
  slow load can no longer make the model miss anywidget's deadline.

On the Python side nothing changes: it is a ``go.FigureWidget`` with two more synced traits.
"""

from __future__ import annotations

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

    Use it exactly like ``go.FigureWidget`` (``FigureWidget(fig)``, ``batch_update()``, …).
    """

    _esm = _LOADER
    _plotly_code = traitlets.Unicode().tag(sync=True)  # "IPY_MODEL_<id>" of the shared code

    @traitlets.default("_plotly_code")
    def _default_plotly_code(self):
        return f"IPY_MODEL_{_shared_code().model_id}"
