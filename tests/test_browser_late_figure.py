"""A figure whose model the page was too busy to set up in time still shows what the kernel drew.

anywidget (0.11) gives each model 2 s from its creation in the page to load its module; when the
page's main thread is busy longer than that (a slow or loaded machine, a Run All drawing many
figures at once), it logs "[anywidget] Failed to initialize model." and from then on drops every
message the kernel sends to that model, while still drawing the figure from the state it was
created with. A figure made empty and filled afterwards, as every reproduced paper figure is
(:class:`delaylab.panels.reproduce.FigureReproduction`), then stayed blank in JupyterLab, and
took no later update: `bench runall` saw it in notebook 04 (issue 37).
:class:`delaylab.viz.widget.FigureWidget` takes its model's messages in hand again and asks the
kernel for what it missed.

Here the page is made busy on purpose, the way a slow machine is: right after the figure's model
is created, the page's main thread is held for 2.5 s (inside the ``URL.createObjectURL`` call
with which anywidget starts loading the figure's module), then the kernel fills the figure, and
later changes it again. The figure must show both.
"""

from __future__ import annotations

import time

import nbformat
import pytest

from test_browser import _wait_kernel, browser, collect_errors, lab_server  # noqa: F401  (browser: a fixture)

pytestmark = pytest.mark.browser

#: the next module anywidget loads after the flag is set waits 2.5 s, the main thread held
SLOW_ONCE = """(() => {
  const create = URL.createObjectURL;
  URL.createObjectURL = function (blob) {
    if (globalThis.__delaylab_slow_once) {
      globalThis.__delaylab_slow_once = false;
      const t0 = performance.now();
      while (performance.now() - t0 < 2500) {}
    }
    return create.call(this, blob);
  };
})();"""


def wait_for(flag):
    return (f"while not pathlib.Path({str(flag)!r}).exists():  # the test says go\n"
            "    time.sleep(0.1)")


def cells(flag, again):
    return [
        "import time, pathlib\nimport plotly.graph_objects as go\nfrom delaylab.viz.widget import FigureWidget",
        # the first figure loads plotly's module in the page
        "first = FigureWidget(go.Figure(go.Scatter(x=[0, 1], y=[0, 1]), layout=dict(title='first')))\nfirst",
        wait_for(flag),  # the test makes the page slow, then says go
        # made empty and shown while the page is slow, then filled by the kernel
        "late = FigureWidget(go.Figure(go.Scatter(x=[], y=[]), layout=dict(title='late')))\nlate",
        "time.sleep(3.0)\nwith late.batch_update():\n    late.data[0].x, late.data[0].y = [0, 1, 2, 3], [3, 1, 2, 0]",
        wait_for(again),
        "late.data[0].y = [1, 1, 1, 1]",
    ]


#: the second figure on the page (found by its place: a figure drawn from the state it was created
#: with may lack even its title)
LATE = """() => { const el = document.querySelectorAll('.js-plotly-plot')[1];
  return el ? {svg: !!el.querySelector('.main-svg'), title: el.layout?.title?.text ?? null,
               y: Array.from(el.data?.[0]?.y ?? [])} : null; }"""
FIRST_DRAWN = """() => [...document.querySelectorAll('.js-plotly-plot')].some(e => e.layout?.title?.text === 'first'
  && e.querySelector('.main-svg'))"""


def wait_late(page, y, timeout=60_000):
    try:
        page.wait_for_function(f"(y) => JSON.stringify(({LATE})()?.y) === JSON.stringify(y)", arg=y,
                               timeout=timeout, polling=200)
    except Exception:
        pass  # the assertion after it says what the page shows
    return page.evaluate(LATE)


def run_all_then_slow_the_page(page, server, name, flag):
    """Open notebook ``name`` in JupyterLab, Run All, and once its first figure is drawn make the page
    busy (SLOW_ONCE) just before the kernel, released by ``flag``, creates the late widget."""
    page.add_init_script(SLOW_ONCE)
    collect_errors(page)
    page.goto(f"{server.url}/lab/tree/{name}", timeout=120_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    _wait_kernel(server, "idle")
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.wait_for_function(FIRST_DRAWN, timeout=120_000, polling=200)
    page.evaluate("globalThis.__delaylab_slow_once = true")
    flag.touch()


def test_a_figure_set_up_late_shows_what_the_kernel_drew(browser, tmp_path):  # noqa: F811
    source, flag, again = tmp_path / "source", tmp_path / "go", tmp_path / "again"
    source.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells(flag, again)], metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nbformat.write(nb, source / "late.ipynb")
    server, _ = lab_server(tmp_path, "lab-late-figure.log", source=source)
    page = None
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        run_all_then_slow_the_page(page, server, "late.ipynb", flag)
        started = time.perf_counter()
        late = wait_late(page, [3, 1, 2, 0])
        print(f"\nlate figure filled {time.perf_counter() - started:.1f} s after it was made; page errors: {page.errors}")
        assert page.evaluate("globalThis.__delaylab_slow_once") is False  # the page was slow when it mattered
        assert late is not None and late["svg"], late
        assert late["y"] == [3, 1, 2, 0] and late["title"] == "late", (late, page.errors)
        # and a later update from the kernel reaches it too
        again.touch()
        late = wait_late(page, [1, 1, 1, 1])
        assert late["y"] == [1, 1, 1, 1], (late, page.errors)
    finally:
        if page is not None:
            page.close()
        server.close()


def test_a_save_button_set_up_late_still_downloads(browser, tmp_path):  # noqa: F811
    # the same busy page for a "save figure" button's downloader (delaylab.viz.save): its file
    # travels in a message from the kernel, which anywidget would drop
    source, flag, again = tmp_path / "source", tmp_path / "go", tmp_path / "again"
    source.mkdir()
    code = cells(flag, again)[:3] + [
        "from delaylab.viz.save import SaveButton\nbutton = SaveButton(first, 'late-save')\nbutton.widget",
        wait_for(again),
        "html = button.save()",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in code], metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nbformat.write(nb, source / "save.ipynb")
    server, _ = lab_server(tmp_path, "lab-late-save.log", source=source)
    page, downloads = None, []
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        page.on("download", lambda d: downloads.append(d))
        run_all_then_slow_the_page(page, server, "save.ipynb", flag)
        page.wait_for_function("() => globalThis.__delaylab_slow_once === false", timeout=60_000, polling=200)
        time.sleep(3.0)  # anywidget's 2 s are over
        again.touch()
        deadline = time.time() + 60
        while not downloads and time.time() < deadline:
            page.wait_for_timeout(200)
        print(f"\ndownloads: {[d.suggested_filename for d in downloads]}; page errors: {page.errors}")
        assert [d.suggested_filename for d in downloads] == ["late-save.html"], page.errors
    finally:
        if page is not None:
            page.close()
        server.close()
