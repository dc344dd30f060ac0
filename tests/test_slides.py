"""Lecture mode: the slide rule of tools/slides.py, the notebooks' slide boundaries, and the PDF
backup's writer (tools/slides_pdf.py)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


slides = _tool("slides")
NOTEBOOKS = slides.notebooks()


def md(text, **meta):
    return {"cell_type": "markdown", "id": "m", "metadata": meta, "source": text}


def code(text, tags=()):
    return {"cell_type": "code", "id": "c", "metadata": {"tags": list(tags)} if tags else {},
            "source": text, "outputs": [], "execution_count": None}


LONG = "A paragraph long enough to fill a good part of a slide by itself. " * 6


def types_of(*cells):
    nb = {"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return [c["metadata"]["slideshow"]["slide_type"] for c in slides.apply(nb)["cells"]]


def test_rule_headings_panels_and_hidden_cells():
    nb = {"cells": [md("# Title\n\n" + LONG), code("import numpy as np"), md("## 1. Section\n\n" + LONG), md("plain text"),
                    md("### detail"), code("panel = Panel()\npanel"), code("x = 1"), code("print(x)"),
                    code("assert x == 1", tags=["hide"]), code("fig1.widget  # a figure"),
                    md("#hashtag, not a heading")],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    types = [c["metadata"]["slideshow"]["slide_type"] for c in slides.apply(nb)["cells"]]
    # ("### detail" alone would be a nearly empty slide: the panel joins it)
    assert types == ["slide", "-", "slide", "-", "subslide", "-", "-", "-", "skip", "subslide", "-"]
    assert nb["metadata"]["rise"]["scroll"] is True
    assert slides.dumps(slides.apply(json.loads(slides.dumps(nb)))) == slides.dumps(nb)  # idempotent


def test_an_exercise_is_one_slide_with_its_widgets():
    """The student's numbers, the check with its hints, a predict or explain question, a race and
    ex.start continue the slide of the text before them: no slide holds a lone widget."""
    assert types_of(md("## 2. Section\n\n" + LONG), md("### ✎ Exercise 2.1 (compute): x\n\n" + LONG),
                    code('ex.given("02.x")'), code("# the answer\nx = ..."), code('ex.feedback("02.x")'),
                    md("### ✎ Exercise 2.2 (predict): y\n\n" + LONG), code('ex.predict("02.y")'),
                    code('ex.race(panel, "02.x")'), code('ex.start("")')) == \
        ["slide", "subslide", "-", "-", "-", "subslide", "-", "-", "-"]
    assert slides.exercise_call('ex.feedback("01.n-tilde")') == "feedback"
    assert slides.exercise_call("panel") is None and slides.exercise_call("ex = 1\nex") is None


def test_a_nearly_empty_slide_takes_the_next_sub_slide_in():
    """A section whose introduction is a line or two, followed by an exercise or a figure: one
    slide. After a long introduction, or after a figure, the sub-slide stays."""
    short = md("## 4. Live panel\n\nMove the sliders.")
    assert types_of(short, md("### ✎ Exercise 1.3 (predict): z\n\n" + LONG), code("panel")) == ["slide", "-", "subslide"]
    assert types_of(short, code("fig")) == ["slide", "-"]
    assert types_of(md("## 4. Live panel\n\n" + LONG), code("fig")) == ["slide", "subslide"]
    assert types_of(md("## 6. Figure\n\n" + LONG), code("fig"), code("fig2")) == ["slide", "subslide", "subslide"]
    # what counts: words, not markup, link targets or TeX commands
    assert slides.text_length(md("[a](" + "x" * 400 + ") $\\tilde N$")) < 20
    assert slides.text_length(code('ex.predict("01.window")')) == slides.WIDGET_TEXT["predict"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_exercise_widget_opens_a_slide(path):
    nb = slides.apply(json.loads(path.read_text(encoding="utf-8")))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and slides.exercise_call(slides._source(cell)):
            assert cell["metadata"]["slideshow"]["slide_type"] == "-", slides._source(cell)


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


def test_the_pdf_backup_is_a_pdf_of_its_images(tmp_path):
    """tools/slides_pdf.py's writer, without a browser: one page per JPEG, each page its image's
    shape, the cross-reference table pointing at every object, the outline's titles in order
    (any character: UTF-16). The browser test writes a real deck's."""
    pdf = _tool("slides_pdf")

    def jpeg(w, h, fill=b"\0"):  # a frame header is all the writer reads of a JPEG
        sof = b"\xff\xc0\x00\x11\x08" + h.to_bytes(2, "big") + w.to_bytes(2, "big") + b"\x03" + b"\x01\x22\x00" * 3
        return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + sof + fill * 50 + b"\xff\xd9"

    assert pdf.jpeg_size(jpeg(1920, 1080)) == (1920, 1080)
    with pytest.raises(ValueError):
        pdf.jpeg_size(b"GIF89a")
    path = tmp_path / "deck.pdf"
    pdf.write_pdf(path, [jpeg(1920, 1080), jpeg(1920, 1080, b"\1"), jpeg(1440, 1080)], title="1 · Delayed",
                  outline=[(0, "1 · Delayed conversions: Ñ and θ̂"), (2, "2. What the learner estimates")])
    data = path.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    xref = int(re.search(rb"startxref\s+(\d+)", data).group(1))
    offsets = [int(x) for x in re.findall(rb"(\d{10}) 00000 n", data[xref:])]
    for n, at in enumerate(offsets, start=1):
        assert data[at:].startswith(b"%d 0 obj" % n)
    assert re.search(rb"/Count 3 >>", data)
    boxes = re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    assert boxes == [(b"960.00", b"540.00")] * 2 + [(b"960.00", b"720.00")]
    titles = [bytes.fromhex(h.decode()).decode("utf-16-be") for h in re.findall(rb"/Title <feff([0-9a-f]*)> /Parent", data)]
    assert titles == ["1 · Delayed conversions: Ñ and θ̂", "2. What the learner estimates"]


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


def test_the_outline_names_each_slide_as_the_deck_has_it():
    """What the guide's "Slide view" lists (tools/slides.py's outline): slides numbered as the
    slides' counter numbers them, each section, exercise, figure and panel where the deck has it,
    a race with its exercise, and the text an exercise's slide goes on with after its check."""
    nb = {"cells": [md("# 1 · Title\n\n" + LONG), code('ex.start("")'), md("## 1. Setting\n\n" + LONG),
                    code("tl = paper.timeline_figure(theta=0.3)\ntl"),
                    md("### ✎ Exercise 1.1 (compute): x\n\n" + LONG), code('ex.given("01.x")'), code("x = ..."),
                    code('ex.feedback("01.x")'), md("The derivation, to read once you have tried it: " + LONG),
                    md("## 2. Panel\n\n" + LONG), code("panel = ConversionsPanel()\npanel"),
                    md("### ✎ Exercise 1.2 (implement): y\n\n" + LONG), code('ex.feedback("01.y")'),
                    md("Once it passes, race it."), code('ex.race(panel, "01.y")'),
                    md("## 3. Figure 1\n\n" + LONG), code("fig1 = paper.figure1_panel(runs=20)\nfig1")],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    assert slides.outline_text(slides.apply(nb)) == (
        "9 slides: 1 the title, ex.start · 2 §1 · 3 the timeline figure · "
        "4 Exercise 1.1, then “The derivation, to read once you have…” · 5 §2 · 6 the live panel · "
        "7 Exercise 1.2 and its race · 8 §3 · 9 Figure 1.")
    assert slides.plain(r"What doubling $\mathbb E[\tau]$ does, and where $\tilde N$ matters") == \
        "What doubling E[τ] does, and where Ñ matters"
