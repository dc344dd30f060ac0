#!/usr/bin/env python3
"""Strip a notebook's outputs: the git "clean" filter of the workbook's notebooks.

    python3 tools/strip_notebook.py < notebook.ipynb > stripped.ipynb

``python3 tasks.py lab`` configures it (``git config filter.delaylab-strip.clean …``), and
``.gitattributes`` applies it to ``notebooks/*.ipynb``: git then sees a notebook you ran and saved
as unchanged unless you edited a cell, so ``git pull`` brings the new version of the workbook
without conflicts on outputs. Your files on disk keep their outputs.

It removes the outputs, execution counts and timing metadata of code cells, the widget state
stored in the notebook's metadata and the kernel's version details, and gives the python3 kernel the
name JupyterLab writes; anything else (your edits to cells) is kept. A file that is not a notebook
passes through unchanged. Only the Python standard library is used.
"""

from __future__ import annotations

import json
import sys

#: The name JupyterLab's ipykernel gives the python3 kernel (and writes into every notebook it saves).
KERNEL_DISPLAY_NAME = "Python 3 (ipykernel)"


def strip(text: str) -> str:
    """The notebook ``text`` without outputs, execution counts and widget state."""
    try:
        nb = json.loads(text)
        cells = nb["cells"]
    except (ValueError, KeyError, TypeError):
        return text
    changed = False
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        if cell.get("outputs"):
            cell["outputs"], changed = [], True
        if cell.get("execution_count") is not None:
            cell["execution_count"], changed = None, True
        meta = cell.get("metadata", {})
        for key in ("execution", "collapsed", "scrolled"):
            if key in meta:
                del meta[key]
                changed = True
    meta = nb.get("metadata", {})
    if "widgets" in meta:
        del meta["widgets"]
        changed = True
    spec = meta.get("kernelspec")
    if isinstance(spec, dict) and spec.get("name") == "python3" and spec.get("display_name") != KERNEL_DISPLAY_NAME:
        spec["display_name"] = KERNEL_DISPLAY_NAME  # what JupyterLab writes on save: no diff from opening a notebook
        changed = True
    info = meta.get("language_info")
    if isinstance(info, dict) and set(info) - {"name"}:  # filled in by the kernel on every run
        meta["language_info"] = {"name": info.get("name", "python")}
        changed = True
    if not changed:
        return text  # byte for byte: a committed notebook stays as it is
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> None:
    data = sys.stdin.buffer.read().decode("utf-8")
    sys.stdout.buffer.write(strip(data).encode("utf-8"))


if __name__ == "__main__":
    main()
