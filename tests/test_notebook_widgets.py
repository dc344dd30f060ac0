"""Notebooks in a real (headless) kernel: run each notebook up to its live panel, then move
every control from the kernel and check that the figures changed.

A notebook takes part by defining a variable ``panel`` whose figures are ``panel.regret`` (a
CurvePlot). New notebooks with a live panel are picked up automatically.
"""

import json
from pathlib import Path

import nbformat
import pytest

nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9]*.ipynb"))

CHECK = r"""
import json, numpy as np, ipywidgets as W
def snapshot():
    return [(d.visible, None if d.y is None else np.asarray(d.y).copy()) for d in panel.regret.fig.data]
def changed(a, b):
    return any(va != vb or (ya is None) != (yb is None) or (ya is not None and (ya.shape != yb.shape or not np.array_equal(ya, yb)))
               for (va, ya), (vb, yb) in zip(a, b))
report = {}
def walk(w):
    yield w
    for child in getattr(w, "children", ()):
        yield from walk(child)
controls = list(walk(panel.widget.children[0]))
for w in controls:
    if isinstance(w, W.HTML) or not hasattr(w, "value") or getattr(w, "disabled", False):
        continue
    original = w.value
    if isinstance(w, (W.IntSlider, W.FloatSlider, W.FloatLogSlider)):
        new = w.min if w.value > w.min else w.max
    elif isinstance(w, W.Checkbox):
        new = not w.value
    elif isinstance(w, W.Dropdown):
        new = [o[1] for o in w.options if o[1] != w.value][0]
    else:
        continue
    before = snapshot()
    w.value = new
    report[w.description] = changed(before, snapshot())
    w.value = original
print("REPORT" + json.dumps(report))
"""


def panel_notebooks():
    out = []
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        if any(c.cell_type == "code" and c.source.lstrip().startswith("panel =") for c in nb.cells):
            out.append(path)
    return out


@pytest.mark.parametrize("path", panel_notebooks(), ids=lambda p: p.name)
def test_widgets_move_figures_in_a_headless_kernel(path):
    nb = nbformat.read(path, as_version=4)
    upto = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.lstrip().startswith("panel ="))
    nb.cells = nb.cells[: upto + 1] + [nbformat.v4.new_code_cell(CHECK)]
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    report = json.loads(text.split("REPORT", 1)[1])
    assert len(report) >= 4, report  # the sliders, check boxes and selections were found
    assert all(report.values()), {k: v for k, v in report.items() if not v}
