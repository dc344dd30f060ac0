#!/usr/bin/env python3
"""Lecture mode: set the notebooks' slide boundaries by one rule (Voila's reveal template, RISE).

    python3 tasks.py slides            set them in every notebook of notebooks/
    python3 tasks.py slides --check    exit 1 and name the notebooks whose slides differ from the rule

The rule (each cell's ``metadata.slideshow.slide_type``, which RISE and nbconvert read):

* a Markdown cell opening with a ``#`` or ``##`` heading starts a **slide** (the notebook's
  title, then one slide per numbered section);
* a Markdown cell opening with a ``###`` heading starts a **sub-slide** (below, in RISE);
* a code cell that shows something (its last line is an expression, e.g. ``panel`` or
  ``fig1.widget``: a live panel or a figure) starts a **sub-slide**, so that every panel and
  figure gets the whole screen under the text that introduces it;
* a code cell tagged ``hide`` (self-checks, hidden in the dashboards too) is **skipped**;
* every other cell continues the current slide (``-``).

The notebook's ``metadata.rise`` gets ``scroll: true`` (a long slide scrolls instead of being
cut) and the light theme. Nothing else is touched: the file is rewritten exactly as Jupyter
writes it, so rerunning the rule after anyone's edit changes only slide metadata.
Only the Python standard library is used (``tasks.py`` runs it without the virtual environment).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RISE = {"scroll": True, "theme": "simple", "transition": "none", "enable_chalkboard": False}


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def shows_something(code: str) -> bool:
    """True when the cell's last statement is an expression other than a call to print (so
    Jupyter displays its value: a panel, a figure)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return False
    value = tree.body[-1].value
    return not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "print")


def slide_type(cell) -> str:
    text = _source(cell).lstrip()
    if cell["cell_type"] == "markdown":
        first = text.splitlines()[0] if text else ""
        if first.startswith(("# ", "## ")):
            return "slide"
        if first.startswith("### "):
            return "subslide"
        return "-"
    if cell["cell_type"] == "code":
        if "hide" in cell.get("metadata", {}).get("tags", []):
            return "skip"
        if shows_something(text):
            return "subslide"
    return "-"


def apply(nb: dict) -> dict:
    """``nb`` (a notebook as JSON) with slide types set by the rule; modified in place."""
    for cell in nb["cells"]:
        cell.setdefault("metadata", {})["slideshow"] = {"slide_type": slide_type(cell)}
    nb.setdefault("metadata", {})["rise"] = dict(RISE)
    return nb


def dumps(nb: dict) -> str:
    """As Jupyter (nbformat) writes a notebook."""
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False, separators=(",", ": ")) + "\n"


def notebooks(folder: Path = ROOT / "notebooks"):
    return sorted(folder.glob("*.ipynb"))


def main(argv) -> int:
    check = "--check" in argv
    paths = [Path(a) for a in argv if not a.startswith("--")] or notebooks()
    differ = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        new = dumps(apply(json.loads(text)))
        if new != text:
            differ.append(path)
            if not check:
                path.write_text(new, encoding="utf-8")
    if check:
        for path in differ:
            print(f"{path}: slide boundaries differ from the rule (run: python3 tasks.py slides)")
        return 1 if differ else 0
    print(f"slide boundaries set in {len(differ)} of {len(paths)} notebooks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
