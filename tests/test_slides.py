"""Lecture mode: the slide rule of tools/slides.py, and the notebooks' slide boundaries."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("slides", ROOT / "tools" / "slides.py")
slides = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(slides)
NOTEBOOKS = slides.notebooks()


def md(text, **meta):
    return {"cell_type": "markdown", "id": "m", "metadata": meta, "source": text}


def code(text, tags=()):
    return {"cell_type": "code", "id": "c", "metadata": {"tags": list(tags)} if tags else {},
            "source": text, "outputs": [], "execution_count": None}


def test_rule_headings_panels_and_hidden_cells():
    nb = {"cells": [md("# Title\n\ntext"), code("import numpy as np"), md("## 1. Section"), md("plain text"),
                    md("### detail"), code("panel = Panel()\npanel"), code("x = 1"), code("print(x)"),
                    code("assert x == 1", tags=["hide"]), code("fig1.widget  # a figure"),
                    md("#hashtag, not a heading")],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    types = [c["metadata"]["slideshow"]["slide_type"] for c in slides.apply(nb)["cells"]]
    assert types == ["slide", "-", "slide", "-", "subslide", "subslide", "-", "-", "skip", "subslide", "-"]
    assert nb["metadata"]["rise"]["scroll"] is True
    assert slides.dumps(slides.apply(json.loads(slides.dumps(nb)))) == slides.dumps(nb)  # idempotent


def test_rule_keeps_everything_else_of_a_notebook(tmp_path):
    path = NOTEBOOKS[1]
    before = json.loads(path.read_text(encoding="utf-8"))
    after = slides.apply(json.loads(path.read_text(encoding="utf-8")))
    for a, b in zip(before["cells"], after["cells"]):
        b = dict(b, metadata={k: v for k, v in b["metadata"].items() if k != "slideshow"})
        a = dict(a, metadata={k: v for k, v in a["metadata"].items() if k != "slideshow"})
        assert a == b
    copy = tmp_path / path.name
    copy.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert slides.main([str(copy)]) == 0 and slides.main(["--check", str(copy)]) == 0
    assert json.loads(copy.read_text(encoding="utf-8"))["cells"][0]["metadata"]["slideshow"] == {"slide_type": "slide"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_opens_with_a_title_slide_and_has_sections(path):
    """The rule, applied to each notebook as it is now: a title slide first, one slide per
    section, and every live panel on a (sub-)slide of its own."""
    nb = slides.apply(json.loads(path.read_text(encoding="utf-8")))
    types = [c["metadata"]["slideshow"]["slide_type"] for c in nb["cells"]]
    assert types[0] == "slide" and types.count("slide") >= 3
    for cell, kind in zip(nb["cells"], types):
        if cell["cell_type"] == "code" and slides._source(cell).rstrip().endswith(("panel", "panel.widget")):
            assert kind == "subslide"


def test_committed_notebooks_carry_the_slide_boundaries():
    """Every committed notebook carries the rule's slide metadata (``python3 tasks.py slides``
    sets it after any edit)."""
    assert slides.main(["--check", *map(str, NOTEBOOKS)]) == 0
