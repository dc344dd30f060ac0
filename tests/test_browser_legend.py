"""A live panel's legend under its regret figure never meets the x axis's title or tick labels.

Issue 38 (item 9): in notebook 01's panel the x-axis title overprinted a legend entry. The legend
was placed at a share of the plotting area's height below it (``y=-0.2``); once it wrapped into
several rows, plotly grew the bottom margin, the plotting area shrank, and the legend's top came
up into the axis title. Each panel's main figure is drawn here by plotly.js in chromium, laid out
as the panel lays it out (:func:`delaylab.panels.layout.put_legend_below`), at the main column's
narrowest widths (a phone, a projected slide) and a laptop's, with every curve a student can
tick shown; the boxes of the legend entries, the x-axis title and the tick labels must not
intersect, and the legend must lie inside the figure. The measured boxes are printed.

One static page (no Voila, no kernel) draws every figure at every width: plotly.js is loaded once.
"""

from __future__ import annotations

import json
from pathlib import Path

import plotly
import plotly.graph_objects as go
import pytest

from delaylab.panels.conversions import TOGGLES
from delaylab.panels.layout import put_legend_below
from test_browser import ARGS, chromium_path
from test_figures_legible import PANELS, tiny  # noqa: F401  (tiny: a fixture)

pytestmark = pytest.mark.browser

WIDTHS = (350, 560, 900)  # px of the main figure: a phone, the main column beside the controls, a laptop
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"

#: per figure's div: the boxes (top, bottom, left, right, text) of the figure, its legend entries,
#: its x-axis titles and tick labels
BOXES = """ids => Object.fromEntries(ids.map(id => {
  const g = document.getElementById(id);
  const box = e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right, e.textContent]; };
  const svg = g.querySelector('.main-svg').getBoundingClientRect();
  return [id, {figure: [svg.top, svg.bottom, svg.left, svg.right],
               legend: [...g.querySelectorAll('.legend .traces')].map(box),
               axis: [...g.querySelectorAll('.g-xtitle text, .xtick text')].filter(e => e.textContent).map(box)}];
}))"""


def overlaps(a, b) -> bool:
    return not (a[1] <= b[0] or b[1] <= a[0] or a[3] <= b[2] or b[3] <= a[2])


def collisions(boxes) -> list[str]:
    """The legend entries that meet an x-axis text, or stick out of the figure."""
    found = []
    top, bottom, left, right = boxes["figure"]
    for entry in boxes["legend"]:
        for text in boxes["axis"]:
            if overlaps(entry, text):
                found.append(f"legend entry {entry[4]!r} meets the axis text {text[4]!r}")
        if entry[1] > bottom + 1 or entry[0] < top - 1:
            found.append(f"legend entry {entry[4]!r} sticks out of the figure")
    return found


def measure(browser, figures: dict) -> dict:
    """{(name, width): boxes} of each figure of ``figures`` (name → figure) drawn at each width."""
    keys = [(name, w) for name in figures for w in WIDTHS]
    ids = [f"g{i}" for i in range(len(keys))]
    page = browser.new_page(viewport={"width": max(WIDTHS) + 40, "height": 1000})
    try:
        page.set_content("<html><body style='margin:0'>" + "".join(
            f"<div id='{i}' style='width:{w}px'></div>" for i, (_, w) in zip(ids, keys)) + "</body></html>")
        page.add_script_tag(path=str(PLOTLY_JS))
        data = {i: json.loads(go.Figure(figures[name]).to_json()) for i, (name, _) in zip(ids, keys)}
        page.evaluate("figs => Promise.all(Object.entries(figs).map(([id, f]) => Plotly.newPlot(id, f.data, f.layout)))",
                      data)
        boxes = page.evaluate(BOXES, ids)
        return {key: boxes[i] for i, key in zip(ids, keys)}
    finally:
        page.close()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="`python3 tasks.py test` installs playwright")
    with sync_api.sync_playwright() as pw:
        br = pw.chromium.launch(executable_path=chromium_path(), args=ARGS, headless=True)
        yield br
        br.close()


def main_figure(name):
    panel = PANELS[name]()
    if name.startswith("01"):  # every policy a student can tick: the longest legend
        for toggle in TOGGLES:
            panel.toggles[toggle].value = True
    panel.budget.wait(60)
    fig = panel.main_figure
    if panel.legend_below:
        put_legend_below(fig)
    return panel, fig


def test_the_legend_below_the_regret_figure_meets_no_axis_text(browser, tiny):  # noqa: F811
    figures = {}
    for name in PANELS:
        panel, fig = main_figure(name)
        if panel.legend_below:
            figures[name] = fig
    assert "01 panel" in figures
    found = []
    for (name, width), boxes in measure(browser, figures).items():
        top = boxes["figure"][0]
        print(f"{name} at {width} px: legend {len(boxes['legend'])} entries, from {min(e[0] for e in boxes['legend']) - top:.0f} "
              f"px below the figure's top; the x axis's texts down to {max(a[1] for a in boxes['axis']) - top:.0f} px")
        found += [f"{name} at {width} px: {c}" for c in collisions(boxes)]
    assert not found, "\n".join(found)


def test_the_old_placement_is_caught(browser, tiny):  # noqa: F811
    """The placement of the issue (y = −0.2 of the plotting area) collides at a phone's width."""
    _, fig = main_figure("01 panel")
    fig.update_layout(legend=dict(yref="paper", y=-0.2, yanchor="top"))
    assert collisions(measure(browser, {"old": fig})[("old", WIDTHS[0])])
