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

And a notebook that was only opened is not modified: its ``language_info`` is filled in on loading
as the kernel will report it (:func:`fill_language_info_on_load`).
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




# ------------------------------------------------------------------ opened: not modified
def python_language_info() -> dict:
    """What ipykernel's Python kernel reports as its ``language_info`` (and JupyterLab writes into
    a notebook's metadata when the kernel starts), for the Python running this server: the kernel
    of the "python3" kernelspec in delaylab's environment."""
    import platform

    return {"codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
            "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
            "pygments_lexer": "ipython3", "version": platform.python_version()}


def with_language_info(model: dict) -> dict:
    """A notebook as loaded, its ``language_info`` filled in as the kernel will report it.

    The notebooks are stored with ``{"name": "python"}`` only (the kernel's version differs from
    machine to machine); when the kernel starts, JupyterLab writes what the kernel reports into
    the metadata, which marked every notebook modified on opening ("save changes?" on closing a
    notebook that was only read). Filled in on loading, the kernel's report changes nothing."""
    nb = model.get("content") if model.get("type") == "notebook" else None
    if not isinstance(nb, dict):
        return model
    meta = nb.get("metadata", {})
    info = python_language_info()
    current = meta.get("language_info", {})
    if (meta.get("kernelspec", {}).get("name") == "python3" and isinstance(current, dict)
            and all(info.get(k) == v for k, v in current.items() if k != "version")):
        meta["language_info"] = {**info}
    return model


def fill_language_info_on_load(contents_manager) -> None:
    """Have ``contents_manager.get`` fill in each notebook's ``language_info`` (:func:`with_language_info`)."""
    import functools
    import inspect

    get = contents_manager.get
    if getattr(get, "delaylab_language_info", False):
        return
    if inspect.iscoroutinefunction(get):
        @functools.wraps(get)
        async def filled(*args, **kwargs):
            return with_language_info(await get(*args, **kwargs))
    else:
        @functools.wraps(get)
        def filled(*args, **kwargs):
            return with_language_info(get(*args, **kwargs))
    filled.delaylab_language_info = True
    contents_manager.get = filled


__all__ = ["static_outputs", "pre_save_hook", "WIDGET", "with_language_info", "fill_language_info_on_load"]
