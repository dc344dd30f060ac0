"""A student's work outlasts the kernel, in JupyterLab (Debian's chromium driven by playwright).

On a copy of the notebooks: opening the index asks nothing (it is not marked modified); in
notebook 01, as "alice", a wrong then a right prediction, an explanation compared with the model
answer (its checklist's formulas drawn as MathML, one point ticked), and a compute exercise; save;
shut the kernel down; open the notebook again: the answers and verdicts are ordinary outputs (no
"Error displaying widget"), the explanation shown once, the tick kept, the first prediction with
its own time. With a new kernel, the predict question still gives the first answer as the first;
the compute exercise's check cell alone shows its last check, right, with no hint button; the
explanation's tick comes back; the index shows the progress. Only the cells
needed run (no Run All): the test is meant to be cheap. Timings are printed and kept in
``test-artifacts/browser/student.json``; only gross bounds are asserted.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request

import pytest

from delaylab import exercises as ex

from test_browser import ARTIFACTS, _kernels, _wait_kernel, browser, lab_server  # noqa: F401  (browser: a fixture)
from test_browser_exercises import replace_and_run

pytestmark = pytest.mark.browser
NOTEBOOK = "01_delayed_conversions.ipynb"
SETUP = "from delaylab.panels.conversions import ConversionsPanel"  # (the imports cell of notebook 01)
SHOWN = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook in front (the others stay in the page)


def open_notebook(page, server, name):
    page.goto(f"{server.url}/lab/tree/{name}", timeout=120_000)
    page.wait_for_function(f"() => [...document.querySelectorAll('.jp-mod-current, .lm-mod-current')]"
                           f".some(t => (t.title || t.innerText || '').includes({json.dumps(name)}))",
                           timeout=120_000)
    page.wait_for_selector(f"{SHOWN} .jp-Cell", timeout=120_000)
    _wait_kernel(server, "idle")


def run_cell(page, text, source=None):
    """Run the cell containing ``text`` (its source replaced by ``source`` if given) and wait until
    it has run: its prompt shows an execution count."""
    cell = cell_with(page, text)
    for _ in range(3):
        if source is None:
            cell.scroll_into_view_if_needed()
            cell.locator(".cm-content").click()
            page.keyboard.press("Shift+Enter")
        else:
            replace_and_run(page, cell, source)
            cell = cell_with(page, source.strip().splitlines()[0])
        deadline = time.time() + 180
        while time.time() < deadline:
            prompt = cell.locator(".jp-InputArea-prompt").inner_text()
            if re.search(r"\[\d+\]", prompt):
                return cell
            if "[ ]" in prompt and time.time() > deadline - 165:  # not started: the key press was lost
                break
            time.sleep(0.2)
    raise AssertionError(f"the cell with {text!r} did not run")


def cell_with(page, text):
    """The code cell whose source contains ``text`` (rendered first: JupyterLab draws a cell's
    editor when it comes into view)."""
    page.mouse.move(700, 500)
    for i in range(80):
        cell = page.locator(f"{SHOWN} .jp-CodeCell", has=page.locator(".cm-content", has_text=text))
        if cell.count() == 1:
            return cell
        page.mouse.wheel(0, -100_000 if i == 0 else 600)
        time.sleep(0.2)
    raise AssertionError(f"no cell contains {text!r}")


def feedback_of(cell, word, timeout=120_000):
    """Wait until the cell's output (a widget's, or ordinary HTML) says ``word``; its text."""
    box = cell.locator(".jp-OutputArea-output", has_text=word).first
    box.wait_for(state="visible", timeout=timeout)
    return box.inner_text()


def dirty(page) -> bool:
    return page.locator(".jp-mod-current.jp-mod-dirty, .lm-TabBar-tab.lm-mod-current.jp-mod-dirty").count() > 0


def test_answers_and_verdicts_outlast_the_kernel(browser, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)  # a student, not the notebooks' tests
    timings = {}
    t0 = time.perf_counter()
    server, work = lab_server(tmp_path, "lab-student-server.log")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)[:300]))
    wrong, right = "both-shrink", ex.solution("01.window")
    labels = ex.get("01.window").choices
    explanation = ("Without a window every conversion arrives eventually; with one a share is lost for good, so "
                   "the scaled rates are harder to tell apart.")
    try:
        # opening the index and closing it asks nothing: it is not marked modified
        open_notebook(page, server, "00_index.ipynb")
        time.sleep(2)
        assert not dirty(page), "opening 00_index marked it modified"

        open_notebook(page, server, NOTEBOOK)
        timings["lab open (s)"] = time.perf_counter() - t0
        t = time.perf_counter()
        run_cell(page, SETUP)
        run_cell(page, "your name or student id", 'ex.start("alice")')

        predict = run_cell(page, 'ex.predict("01.window")')
        try:
            predict.locator(".widget-radio-box label", has_text=labels[wrong]).click()
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "student-predict.png"))
            print(predict.inner_text()[:2000])
            raise
        predict.locator("button", has_text="check").click()
        feedback_of(predict, "Not quite", timeout=30_000)
        predict.locator(".widget-radio-box label", has_text=labels[right]).click()
        predict.locator("button", has_text="check").click()
        feedback_of(predict, "Right", timeout=30_000)

        explain = run_cell(page, 'ex.explain("01.why-window")')
        explain.locator("textarea").fill(explanation)
        explain.locator("button", has_text="compare with the model answer").click()
        feedback_of(explain, "A model answer", timeout=30_000)
        # the checklist: each point's formula drawn as MathML beside its box, whose name (title) is plain
        boxes = explain.locator(".widget-checkbox input[type=checkbox]")
        boxes.first.wait_for(timeout=30_000)
        points = ex.get("01.why-window").points
        assert boxes.count() == len(points)
        k = next(i for i, p in enumerate(points) if "$" in p)  # "with a window, a share $1 - \tau_m$ …"
        point = explain.locator(".widget-hbox:has(.widget-checkbox)").nth(k)
        assert point.locator("math").count() >= 1, point.inner_html()[:1500]
        title = boxes.nth(k).get_attribute("title") or ""
        assert title.startswith("with a window, a share 1 − τ") and "<" not in title, title
        boxes.nth(k).check()

        run_cell(page, "n_tilde = ...", ex.solution_code("01.n-tilde", student="alice"))
        run_cell(page, 'ex.feedback("01.n-tilde")')
        check = cell_with(page, 'ex.feedback("01.n-tilde")')
        try:
            feedback_of(check, "Right", timeout=60_000)
        except Exception:
            print("CHECK CELL:", check.inner_text()[:1500])
            print("ANSWER CELL:", cell_with(page, "n_tilde = ").inner_text()[:800])
            page.screenshot(path=str(ARTIFACTS / "student-check.png"))
            raise
        timings["answer three exercises (s)"] = time.perf_counter() - t

        # save, shut the kernel down, open the notebook again
        page.keyboard.press("Control+s")
        page.wait_for_function("() => !document.querySelector('.lm-TabBar-tab.lm-mod-current.jp-mod-dirty')",
                               timeout=30_000)
        sessions = json.load(urllib.request.urlopen(f"{server.url}/api/sessions", timeout=10))
        kernel = next(x["kernel"]["id"] for x in sessions if x["path"].endswith(NOTEBOOK))
        page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Shut Down Kernel").first.click()
        try:  # ("Shut down the kernel?")
            page.locator(".jp-Dialog .jp-mod-accept").click(timeout=10_000)
        except Exception:  # noqa: BLE001 - no question asked
            pass
        deadline = time.time() + 60
        while any(k["id"] == kernel for k in _kernels(server)) and time.time() < deadline:
            time.sleep(0.3)
        assert not any(k["id"] == kernel for k in _kernels(server)), "the kernel was not shut down"
        t = time.perf_counter()
        page.reload()
        page.wait_for_selector(f"{SHOWN} .jp-Cell", timeout=120_000)
        page.wait_for_selector(f"{SHOWN} .jp-OutputArea-output", timeout=60_000)
        time.sleep(2)
        text = page.inner_text(f"{SHOWN} .jp-NotebookPanel-notebook")
        cell_with(page, 'ex.predict("01.window")').screenshot(path=str(ARTIFACTS / "jupyterlab-reopened-predict.png"))
        cell_with(page, 'ex.explain("01.why-window")').screenshot(path=str(ARTIFACTS / "jupyterlab-reopened-explain.png"))
        assert "Error displaying widget" not in text and "model not found" not in text
        saved = json.loads((work / NOTEBOOK).read_text())
        html = "\n".join("".join(o.get("data", {}).get("text/html", "")) for c in saved["cells"]
                         for o in c.get("outputs", []))
        assert "application/vnd.jupyter.widget-view+json" not in json.dumps(saved)
        for shown in (f"◉ {labels[right]}", "Your first answer: “both shrink” (not it), on ", "A model answer",
                      f"Right: {ex.solution('01.n-tilde', student='alice'):.4g}", "Your explanation", "☑ "):
            assert shown in text or shown in html, shown
        assert explanation in text
        explained = cell_with(page, 'ex.explain("01.why-window")').inner_text()
        assert explained.count(explanation) == 1, explained  # "Your explanation", not again as "first answer"
        assert explained.count("☑") == 1 and explained.count("☐") == len(ex.get("01.why-window").points) - 1
        timings["reopen without the kernel (s)"] = time.perf_counter() - t

        # a new kernel: the first prediction is still the first
        _wait_kernel(server, "idle", timeout=120)
        run_cell(page, SETUP)
        run_cell(page, 'ex.start("alice")')
        predict = run_cell(page, 'ex.predict("01.window")')
        note = feedback_of(predict, "Your first answer", timeout=60_000)
        assert "both shrink" in note and "(not it)" in note
        predict.locator(".widget-radio-box label", has_text=labels["both-grow"]).click()
        predict.locator("button", has_text="check").click()
        note = feedback_of(predict, "Not quite", timeout=30_000)
        assert "Your first answer: “both shrink”" in note
        assert predict.locator(".widget-radio-box input:checked").count() == 1

        # only the check cell of the compute exercise: its last check, right, and no hint button
        check = run_cell(page, 'ex.feedback("01.n-tilde")')
        note = feedback_of(check, "Your last check", timeout=60_000)
        assert "Right:" in note and check.locator("button").count() == 0, check.inner_text()[:1500]
        # the explanation: the box ticked before is ticked again
        explain = run_cell(page, 'ex.explain("01.why-window")')
        feedback_of(explain, "A model answer", timeout=60_000)
        assert explain.locator(".widget-checkbox input:checked").count() == 1

        # the index shows the progress
        t = time.perf_counter()
        open_notebook(page, server, "00_index.ipynb")
        run_cell(page, "ex.table()")
        progress = run_cell(page, "ex.progress()")
        try:
            progress.locator("table").first.wait_for(timeout=60_000)
        except Exception:
            print("PROGRESS CELL:", progress.inner_text()[:3000])
            raise
        table = progress.inner_text()
        timings["index progress (s)"] = time.perf_counter() - t
        row = next(line for line in table.splitlines() if line.startswith("01 ·"))
        cells = [c.strip() for c in row.split("\t")]
        assert cells[1:5] == ["2", "1", "0", f"{len(ex.ids('01')) - 3} of {len(ex.ids('01'))}"], cells
        page.screenshot(path=str(ARTIFACTS / "jupyterlab-progress.png"))
        assert not page.errors, page.errors
    finally:
        page.close()
        server.close()
    records = json.loads((work / ".delaylab-work" / "alice.json").read_text())["exercises"]
    assert records["01.window"]["first"]["answer"] == wrong and records["01.window"]["attempts"] == 3
    (ARTIFACTS / "student.json").write_text(json.dumps({k: round(v, 2) for k, v in timings.items()}, indent=1))
    print("a student's work in JupyterLab:", {k: round(v, 2) for k, v in timings.items()})
    assert timings["answer three exercises (s)"] < 180
