"""Every live panel at a laptop's size (a 1366×768 window), in JupyterLab and in Voila.

A student moves a slider and looks at the regret curves: both must be on the screen at once. For
each panel (one notebook holding all of them, at their notebooks' defaults), the first slider and
the plotting area of the main (regret) figure must lie within the first 768 px below the panel's
top (a gross bound: about 700 px are seen at once). The geometry of every panel is printed, and a
screenshot of the window with each panel at its top is kept in ``test-artifacts/browser/``.
"""

from __future__ import annotations

import json

import nbformat
import pytest

from test_browser import (ARTIFACTS, _wait_kernel, browser, collect_errors, dashboard_server,  # noqa: F401
                          lab_server, table, wait_drawn)

pytestmark = pytest.mark.browser

WINDOW = {"width": 1366, "height": 768}
BOUND = 768
#: the panels, as their notebooks create them
PANELS = [("01", "ConversionsPanel()"), ("02", "ArmDelaysPanel()"),
          ("03 (d = 2)", "EllipsePanel(theta=(0.8, 0.45), mean_delay=50, window=50, horizon=3000)"),
          ("03", "LinearPanel()"), ("04", "AnonymousPanel()"), ("05", "AdversarialPanel()")]
IMPORTS = """from delaylab.panels.adversarial import AdversarialPanel
from delaylab.panels.anonymous import AnonymousPanel
from delaylab.panels.arm_delays import ArmDelaysPanel
from delaylab.panels.conversions import ConversionsPanel
from delaylab.panels.linear import EllipsePanel, LinearPanel"""

#: per output holding a panel: its height and width, and the first slider's and the main figure's
#: plotting area's top and bottom, in px below the panel's top; whether the controls are beside it
GEOMETRY = """() => [...document.querySelectorAll('.jp-OutputArea-output')]
  .filter(o => o.querySelector('.widget-slider'))
  .map(o => {
    const panel = o.querySelector('.delaylab-panel') || o;
    const box = panel.getBoundingClientRect();
    const rel = el => { if (!el) return null; const r = el.getBoundingClientRect();
                        return [Math.round(r.top - box.top), Math.round(r.bottom - box.top)]; };
    const plots = [...panel.querySelectorAll('.js-plotly-plot')];
    const main = panel.querySelector('.delaylab-panel-main .js-plotly-plot') ||
      plots.find(p => /regret/i.test(String((p.layout && p.layout.title && p.layout.title.text) || ''))) || plots[0];
    const controls = panel.querySelector('.delaylab-panel-controls');
    return {height: Math.round(box.height), width: Math.round(box.width),
            slider: rel(panel.querySelector('.widget-slider')),
            plot_area: rel(main && main.querySelector('.nsewdrag')),
            beside: !!(controls && main && controls.getBoundingClientRect().left >= main.getBoundingClientRect().right - 1)};
  })"""


def panels_notebook(folder):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(IMPORTS)] + [nbformat.v4.new_code_cell(f"{make}.widget")
                                                       for _, make in PANELS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / "panels.ipynb")
    return folder


def check(page, where):
    """Measure every panel, keep a screenshot of each at the window's top, assert the bound."""
    page.wait_for_function(f"() => ({GEOMETRY})().length === {len(PANELS)} && ({GEOMETRY})().every(g => g.plot_area)",
                           timeout=120_000, polling=250)
    page.wait_for_timeout(1500)  # plotly's autosize after the last layout change
    found = page.evaluate(GEOMETRY)
    for (name, _), _g in zip(PANELS, found):
        page.evaluate("""i => [...document.querySelectorAll('.jp-OutputArea-output')]
            .filter(o => o.querySelector('.widget-slider'))[i].scrollIntoView({block: 'start'})""",
                      [n for n, _ in PANELS].index(name))
        page.wait_for_timeout(300)
        page.screenshot(path=str(ARTIFACTS / f"panel-{name.split()[0]}{'-d2' if 'd = 2' in name else ''}-{where}-1366x768.png"))
    rows = [(name, g["height"], g["width"], *g["slider"], *g["plot_area"], "yes" if g["beside"] else "no")
            for (name, _), g in zip(PANELS, found)]
    text = table(f"live panels in {where} at 1366×768 (px below the panel's top)",
                 ("panel", "height", "width", "slider top", "slider bottom", "plot top", "plot bottom",
                  "controls beside"), rows)
    (ARTIFACTS / f"panels-{where}.txt").write_text(text + "\n" + json.dumps(found) + "\n")
    for (name, _), g in zip(PANELS, found):
        assert g["slider"][1] <= BOUND and g["plot_area"][1] <= BOUND, (where, name, g)
    assert not page.errors, page.errors


def test_every_panel_shows_its_controls_and_regret_figure_together_in_voila(browser, tmp_path):  # noqa: F811
    server = dashboard_server("voila-panels-server.log", notebooks=panels_notebook(tmp_path / "panels"))
    page = browser.new_page(viewport=WINDOW)
    collect_errors(page)
    try:
        page.goto(f"{server.url}/voila/render/panels.ipynb", timeout=300_000)
        wait_drawn(page)
        check(page, "voila")
    finally:
        page.close()
        server.close()


def test_every_panel_shows_its_controls_and_regret_figure_together_in_jupyterlab(browser, tmp_path):  # noqa: F811
    server, work = lab_server(tmp_path, "lab-panels-server.log", source=panels_notebook(tmp_path / "source"))
    page = browser.new_page(viewport=WINDOW)
    collect_errors(page)
    try:
        page.goto(f"{server.url}/lab/tree/panels.ipynb", timeout=120_000)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        _wait_kernel(server, "idle")
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        _wait_kernel(server, "busy", timeout=60)
        _wait_kernel(server, "idle", timeout=300, stable=3)
        check(page, "jupyterlab")
    finally:
        page.close()
        server.close()
