"""A student answers exercises in JupyterLab (Debian's chromium driven by playwright).

On a copy of notebook 01 (never written back): Run All as shipped (every check says "not
answered yet"), then one exercise of each kind, as a student would do it: choose an answer of a
predict widget and click *check*; type a number into a compute exercise's cell and run its check
cell, then a wrong one and open the first hint; type a derived value; write an explanation and
compare it with the model answer; write an implement function, run its check, then race it in the
live panel. Each time the feedback box (a ``.widget-html``) must say "Right" (or show the model
answer), and no traceback may appear. The timings are
printed (and kept in ``test-artifacts/browser/exercises.json``); only gross bounds are asserted.

Uses the server, browser and kernel helpers of ``tests/test_browser.py``.
"""

from __future__ import annotations

import json
import time

import pytest

from delaylab import exercises as ex

from test_browser import ARTIFACTS, ROOT, _wait_kernel, browser, lab_server  # noqa: F401  (browser: a fixture)

pytestmark = pytest.mark.browser
NOTEBOOK = "01_delayed_conversions.ipynb"


def code_cell(page, text):
    """The code cell whose source contains ``text``."""
    cell = page.locator(".jp-CodeCell", has=page.locator(".cm-content", has_text=text))
    assert cell.count() == 1, f"{cell.count()} cells contain {text!r}"
    return cell


def replace_and_run(page, cell, source):
    """Put ``source`` into ``cell`` as a student would (click, select all, paste) and run it
    with Shift+Enter, which also selects the next cell."""
    cell.scroll_into_view_if_needed()
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(source)  # like a paste: no auto-indent, no auto-closed brackets
    page.keyboard.press("Shift+Enter")


def run_next(page):
    """Run the selected cell (the one after the cell just run)."""
    page.keyboard.press("Shift+Enter")


def feedback_of(cell, word, timeout=120_000):
    """Wait until the cell's feedback says ``word`` (a widget's, or ordinary HTML: a right answer
    needs no hint button, so its verdict is plain HTML); its text."""
    box = cell.locator(".jp-OutputArea-output", has_text=word).first
    box.wait_for(state="visible", timeout=timeout)
    return box.inner_text()


def test_student_answers_one_exercise_of_each_kind(browser, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)  # a student, not the notebooks' tests
    timings = {}
    t0 = time.perf_counter()
    server, work = lab_server(tmp_path, "lab-exercises-server.log")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)[:300]))
    try:
        page.goto(f"{server.url}/lab/tree/{NOTEBOOK}", timeout=120_000)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        _wait_kernel(server, "idle")
        timings["lab open (s)"] = time.perf_counter() - t0

        t = time.perf_counter()
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        _wait_kernel(server, "busy", timeout=60)
        _wait_kernel(server, "idle", timeout=300, stable=3)
        timings["run all (s)"] = time.perf_counter() - t
        shipped = code_cell(page, 'ex.feedback("01.n-tilde")')
        assert "Not answered yet" in feedback_of(shipped, "Not answered yet")
        panel = code_cell(page, "panel = ConversionsPanel()")
        assert panel.locator(".widget-html", has_text="your policy").count() == 0  # the stub races nothing

        # predict: choose, then check (a widget: the same on the dashboards)
        predict = code_cell(page, 'ex.predict("01.window")')
        predict.scroll_into_view_if_needed()
        label = ex.get("01.window").choices[ex.solution("01.window")]
        t = time.perf_counter()
        predict.locator(".widget-radio-box label", has_text=label).click()
        predict.locator("button", has_text="check").click()
        text = feedback_of(predict, "Right", timeout=30_000)
        timings["predict: click to feedback (s)"] = time.perf_counter() - t
        assert "round robin" in text

        # compute: type the number in its cell, run it and the check cell
        answer = code_cell(page, "n_tilde = ...")
        t = time.perf_counter()
        replace_and_run(page, answer, "n_tilde = 2 * (1 - (2/3)**5) + (1 - (2/3)**3)\n")
        run_next(page)
        text = feedback_of(code_cell(page, 'ex.feedback("01.n-tilde")'), "Right")
        timings["compute: run to feedback (s)"] = time.perf_counter() - t
        assert "2.44" in text

        # ... and a wrong number gets a hint, not a traceback
        replace_and_run(page, code_cell(page, "n_tilde = 2 *"), "n_tilde = 3\n")
        run_next(page)
        check = code_cell(page, 'ex.feedback("01.n-tilde")')
        text = feedback_of(check, "is not it")
        # the verdict names the mistake; the steps are behind the hint button (not repeated in the verdict)
        assert "raw number of pulls" in text and "hint 1 of 2" in text and "Hint 1" not in text
        check.locator("button", has_text="hint 1 of 2").click()  # hints in steps: the first one only
        assert "§2" in feedback_of(check, "Hint 1", timeout=30_000)
        assert check.locator(".widget-html", has_text="Hint 2").count() == 0

        # derive: the value of a formula derived on paper, for the default numbers (K = 3, μ = 10, r = 0)
        t = time.perf_counter()
        replace_and_run(page, code_cell(page, "pending = ..."), "lam = 10 / 11\npending = lam / (1 - lam ** 3)\n")
        run_next(page)
        feedback_of(code_cell(page, 'ex.feedback("01.pending")'), "Right")
        timings["derive: run to feedback (s)"] = time.perf_counter() - t

        # explain: write, compare with the model answer (self-assessed)
        explain = code_cell(page, 'ex.explain("01.why-window")')
        explain.scroll_into_view_if_needed()
        explain.locator("textarea").fill("Without a window every conversion arrives eventually; with one a share "
                                         "is lost for good, so the scaled rates are harder to tell apart.")
        t = time.perf_counter()
        explain.locator("button", has_text="compare with the model answer").click()
        feedback_of(explain, "A model answer", timeout=30_000)
        timings["explain: click to model answer (s)"] = time.perf_counter() - t
        assert explain.locator(".widget-checkbox").count() == len(ex.get("01.why-window").points)

        # implement: write the function, run its check, then race it in the live panel
        answer = code_cell(page, "def d_klucb_index(theta_hat, N_tilde, beta):")
        t = time.perf_counter()
        replace_and_run(page, answer, ex.solution_code("01.d-klucb-index"))
        run_next(page)
        text = feedback_of(code_cell(page, 'ex.feedback("01.d-klucb-index")'), "Right")
        timings["implement: run to feedback (s)"] = time.perf_counter() - t
        assert "simulation with shared draws" in text

        t = time.perf_counter()
        race = code_cell(page, 'ex.race(panel, "01.d-klucb-index")')
        race.scroll_into_view_if_needed()
        race.locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")
        feedback_of(race, "races in the live panel")
        timings["race: run to feedback (s)"] = time.perf_counter() - t
        # the verdict compares the final regrets once the panel has every run: its output is updated
        text = feedback_of(race, "lower is better", timeout=240_000)
        timings["race: run to the final comparison (s)"] = time.perf_counter() - t
        assert "D-KLUCB" in text and "over all" in text
        legend = page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot')].some(el => "
                               "(el.data || []).some(d => d.name === 'your policy' && d.visible !== false "
                               "&& (d.y || []).length > 0))")
        assert legend, "no 'your policy' curve drawn in the live panel"

        page.screenshot(path=str(ARTIFACTS / "jupyterlab-exercises.png"))
        notebook_text = page.inner_text(".jp-NotebookPanel-notebook")
        assert "Traceback" not in notebook_text
        assert page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]').count() == 0
        assert not page.errors, page.errors
    finally:
        page.close()
        server.close()
    assert (work / NOTEBOOK).read_bytes() == (ROOT / "notebooks" / NOTEBOOK).read_bytes()  # never written back
    (ARTIFACTS / "exercises.json").write_text(json.dumps({k: round(v, 2) for k, v in timings.items()}, indent=1))
    print("exercises in JupyterLab:", {k: round(v, 2) for k, v in timings.items()})
    assert timings["predict: click to feedback (s)"] < 30 and timings["compute: run to feedback (s)"] < 60
