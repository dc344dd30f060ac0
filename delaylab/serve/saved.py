"""A notebook saved from JupyterLab keeps what its widgets showed, as ordinary output.

A widget's output holds only a reference to a model that lives in the kernel: saved, shut down
and reopened, every one of them read "Error displaying widget: model not found" — the student's
predictions, explanations and verdicts among them. delaylab's Jupyter server extension runs
:func:`pre_save_hook` on every notebook the server saves (JupyterLab's save and autosave; the
server imports this module alone, not the exercises):

* an output that carries, beside its widget, the same state as ``text/html`` (every exercise's:
  :class:`delaylab.exercises.ui.Live`) is saved as that HTML alone;
* any other widget output (a live panel, a figure, a slider) is saved as a short note saying that
  it comes back when its cell runs again.

The open page is not changed (its widgets stay live); the file on disk is what a reopened
notebook shows. Reopened while its kernel still runs, a notebook shows the saved outputs too: run
a cell again to bring its widgets back.
"""

from __future__ import annotations

import html

WIDGET = "application/vnd.jupyter.widget-view+json"

#: what a widget output without its own HTML becomes in the saved file
NOTE = ("<div style='color:#4B5563;font-size:13px;border-left:3px solid #9CA3AF;padding:2px 8px;margin:2px 0'>"
        "{what} — live while the notebook runs: run this cell again (or <i>Run ▸ Run All Cells</i>) to bring it "
        "back.</div>")


def _what(data: dict) -> str:
    text = str(data.get("text/plain", ""))
    if "Figure" in text[:40]:
        return "A live figure"
    return "A live control or panel"


def static_outputs(nb: dict) -> int:
    """Replace, in a notebook (its JSON, changed in place), each widget output by its HTML (or a
    note); the number of outputs changed."""
    changed = 0
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            data = out.get("data")
            if not isinstance(data, dict) or WIDGET not in data:
                continue
            if "text/html" not in data:
                data["text/html"] = NOTE.format(what=html.escape(_what(data)))
                data["text/plain"] = _what(data) + ": run this cell again to bring it back."
            del data[WIDGET]
            changed += 1
    if changed:
        nb.get("metadata", {}).pop("widgets", None)  # (the widget state no output refers to any more)
    return changed


def pre_save_hook(model: dict, **kwargs) -> None:
    """The server's pre-save hook (``ContentsManager.register_pre_save_hook``): notebooks only."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    try:
        static_outputs(model["content"])
    except Exception:  # noqa: BLE001 - a save never fails because of this
        pass


__all__ = ["static_outputs", "pre_save_hook", "WIDGET"]
