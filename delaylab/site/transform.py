"""The notebooks as the course site shows them: a copy changed at build time, by cell metadata.

The contract with the notebooks (keyed on cells' metadata and tags, never on their position or
text, so that notebooks can be rewritten freely):

* a cell tagged ``hide`` is a check cell (as on the dashboards): not executed, not shown;
* a cell whose ``metadata.delaylab.exercise`` names an exercise (``"01.n-tilde"``), whatever its
  ``metadata.delaylab.role`` ("answer", "check", "start", …), belongs to that exercise: not
  executed, not shown. In place of the first cell of each exercise the page gets a box with links
  to do it live (JupyterLab on Binder or on a JupyterHub, the notebook's download); the
  exercise's statement, the markdown before it, stays. An exercise's check, hints and solution
  never reach the site (``delaylab.site.kernel`` also shows nothing of ``delaylab.exercises`` that
  an untagged cell displays);
* every other code cell runs; its code is folded (``hide-input``), its output shown as the site
  makes it (static figures, explorables: :mod:`delaylab.site.kernel`);
* markdown keeps its text; its formulas become MathML (:func:`delaylab.serve.mathml.markdown_with_mathml`,
  as on the dashboards), drawn by the browser with no script and no CDN;
* the page gets a launch bar under its title: open it live in JupyterLab or as a dashboard on
  Binder, on a JupyterHub, or download the ``.ipynb`` (:mod:`delaylab.site.config`).
"""

from __future__ import annotations

import copy
import html
import json
import re

import nbformat

from ..serve.mathml import markdown_with_mathml
from .config import HUB, SiteConfig, links

#: metadata of the cell the build adds first (the kernel's set-up), removed after execution
SETUP = "site-setup"

_KINDS = {"predict": "a prediction to make before you move a slider, checked on the spot",
          "compute": "a number to compute, checked on the spot",
          "implement": "a function to write, checked and raced in the live panel"}


def exercise_of(cell) -> str | None:
    """The exercise id a cell belongs to (``metadata.delaylab.exercise``), or None."""
    meta = cell.get("metadata", {}).get("delaylab")
    if isinstance(meta, dict) and meta.get("exercise"):
        return str(meta["exercise"])
    return None


def is_hidden(cell) -> bool:
    return "hide" in (cell.get("metadata", {}).get("tags") or [])


def _a(url: str, text: str, cls: str = "", download: bool = False) -> str:
    extra = f' class="{cls}"' if cls else ""
    if download:
        extra += " download"
    if HUB in url:  # a template: the page's script fills in the reader's hub
        return f'<a{extra} data-hub-template="{html.escape(url)}" hidden>{html.escape(text)}</a>'
    return f'<a{extra} href="{html.escape(url)}">{html.escape(text)}</a>'


def _hub_form(any_template: bool) -> str:
    if not any_template:
        return ""
    return ('<label class="dl-hub-form">your JupyterHub: <input type="url" class="dl-hub-input" '
            'placeholder="https://hub.your-university.edu" autocomplete="url" spellcheck="false"></label>')


def live_links(cfg: SiteConfig, notebook: str) -> list[tuple[str, str]]:
    """[(text, url)] of the live versions of a notebook (for the notes of the explorables)."""
    ln = links(cfg, notebook)
    out = []
    if "binder_dashboard" in ln:
        out.append(("live dashboard on Binder", ln["binder_dashboard"]))
    if "binder_lab" in ln:
        out.append(("JupyterLab on Binder", ln["binder_lab"]))
    if "hub_lab" in ln and HUB not in ln["hub_lab"]:
        out.append(("JupyterLab on your JupyterHub", ln["hub_lab"]))
    out.append(("download the notebook", f"notebooks/{notebook}"))
    return out


def launch_bar(cfg: SiteConfig, notebook: str) -> str:
    """The launch bar (one line of HTML)."""
    ln = links(cfg, notebook)
    items = []
    if "binder_lab" in ln:
        items.append(_a(ln["binder_lab"], "JupyterLab on Binder", "dl-binder-lab"))
        items.append(_a(ln["binder_dashboard"], "dashboard on Binder", "dl-binder-dashboard"))
    if "hub_lab" in ln:
        items.append(_hub_form(HUB in ln["hub_lab"]) + _a(ln["hub_lab"], "JupyterLab on your hub", "dl-hub-lab")
                     + _a(ln["hub_dashboard"], "dashboard on your hub", "dl-hub-dashboard"))
    items.append(_a(f"notebooks/{notebook}", f"download {notebook}", "dl-download", download=True))
    # with no repository there is nothing live to open here: say what the download is for
    title = "Run it live:" if ln else "Run it in your own JupyterLab:"
    return (f'<nav class="dl-launch" aria-label="Run this notebook live"><span class="dl-launch-title">'
            f'{title}</span> ' + ' <span class="dl-sep" aria-hidden="true">·</span> '.join(items) + "</nav>")


def exercise_box(cfg: SiteConfig, notebook: str, eid: str) -> str:
    """The box that replaces an exercise's cells: what kind it is, and where to do it live."""
    try:
        from .. import exercises as ex

        kind = ex.kind(eid)
        title = ex.get(eid).title
    except Exception:  # noqa: BLE001  (an exercise the registry does not know yet: the box still links)
        kind, title = "", ""
    ln = links(cfg, notebook)
    where = []
    if "binder_lab" in ln:
        where.append(_a(ln["binder_lab"], "in JupyterLab on Binder"))
        if kind == "predict":
            where.append(_a(ln["binder_dashboard"], "on the dashboard on Binder"))
    if "hub_lab" in ln:
        where.append(_a(ln["hub_lab"], "on your JupyterHub", "dl-hub-lab"))
    where.append(_a(f"notebooks/{notebook}", "in the notebook (download it)", download=True))
    what = f" — {html.escape(_KINDS[kind])}" if kind in _KINDS else ""
    name = f" <i>{html.escape(title)}</i>" if title else ""
    return (f'<div class="dl-exercise" role="note" data-exercise="{html.escape(eid)}"><p><b>✎ Do this exercise '
            f'live</b>{name}{what}. Its check, hints and solution are in the live notebook: '
            + " · ".join(where) + ".</p></div>")


def _with_bar(source: str, bar: str) -> str:
    """The launch bar right under the page's title (the first heading), else at the top."""
    lines = source.split("\n")
    for i, line in enumerate(lines):
        if re.match(r"^#\s", line):
            return "\n".join(lines[: i + 1] + ["", bar, ""] + lines[i + 1 :])
    return f"{bar}\n\n{source}"


def transform(nb, notebook: str, cfg: SiteConfig, setup_options: dict | None = None):
    """The site's copy of a notebook (``nb`` is not changed). ``notebook``: its file name."""
    nb = copy.deepcopy(nb)
    cells, seen, bar_done = [], set(), False
    options = dict(setup_options or {})
    options.setdefault("links", live_links(cfg, notebook))
    setup = nbformat.v4.new_code_cell(
        f"import delaylab.site.kernel as _delaylab_site\n_delaylab_site.install({json.dumps(json.dumps(options))})",
        metadata={"delaylab": {"site": SETUP}, "tags": ["remove-cell"]})
    cells.append(setup)
    for cell in nb.cells:
        if is_hidden(cell):
            continue
        eid = exercise_of(cell)
        if eid is not None:
            if eid not in seen:
                seen.add(eid)
                cells.append(nbformat.v4.new_markdown_cell(exercise_box(cfg, notebook, eid),
                                                           metadata={"delaylab_site": {"box": eid}}))
            continue
        cell = copy.deepcopy(cell)
        if cell.cell_type == "markdown":
            source = markdown_with_mathml(cell.source)
            if not bar_done:
                source, bar_done = _with_bar(source, launch_bar(cfg, notebook)), True
            cell.source = source
        elif cell.cell_type == "code":
            tags = list(cell.metadata.get("tags") or [])
            if "hide-input" not in tags:
                tags.append("hide-input")
            cell.metadata["tags"] = tags
            cell.outputs, cell.execution_count = [], None
        cells.append(cell)
    if not bar_done:
        cells.insert(1, nbformat.v4.new_markdown_cell(launch_bar(cfg, notebook)))
    nb.cells = cells
    nb.metadata.pop("widgets", None)
    return nb


def without_setup(nb):
    """The executed notebook without the set-up cell."""
    nb.cells = [c for c in nb.cells if (c.get("metadata", {}).get("delaylab") or {}).get("site") != SETUP]
    return nb
