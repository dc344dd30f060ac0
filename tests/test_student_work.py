"""A student's work outlasts the kernel, and the feedback is one they can act on.

The record per student (delaylab/exercises/work.py): the first answer stays the first, a new
kernel restores answers and verdicts, progress is counted per notebook (the index and
``tasks.py progress``). Exercise outputs carry their state as HTML, which a saved notebook keeps
(delaylab/serve/saved.py). A race's verdict compares the same runs at the same horizon as the
status line once the background computation has finished. Stale answers are never graded; numbers
state their precision; a near miss is "close"; a counterexample shows its whole input.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from delaylab import exercises as ex
from delaylab.exercises import instance, ui, work
from delaylab.serve.saved import WIDGET, static_outputs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def records(tmp_path, monkeypatch):
    """A student in a kernel of their own: records in a fresh folder, no test expectation, and the
    widgets' memory of first answers emptied (as in a new kernel)."""
    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)
    monkeypatch.setenv(work.RECORD_ENV, str(tmp_path / "records"))
    monkeypatch.setattr(ui, "_FIRST", {})
    monkeypatch.setattr(ui, "_WRITTEN", {})
    ex.start("alice")
    yield tmp_path / "records"
    instance.set_current("")


def new_kernel(monkeypatch):
    """What a kernel restart forgets: the widgets' memory (the record file stays)."""
    monkeypatch.setattr(ui, "_FIRST", {})
    monkeypatch.setattr(ui, "_WRITTEN", {})
    ex.start("alice")


def test_the_first_prediction_stays_the_first_across_kernels(records, monkeypatch):
    w = ex.predict("01.window")
    w.choices.value = "both-shrink"
    w.check()
    w.choices.value = "discarding-grows"
    w.check()
    item = json.loads((records / "alice.json").read_text())["exercises"]["01.window"]
    assert item["first"]["answer"] == "both-shrink" and item["first"]["status"] == "wrong"
    assert item["last"]["answer"] == "discarding-grows" and item["last"]["status"] == "correct"
    assert item["attempts"] == 2 and item["first"]["at"] <= item["last"]["at"]

    new_kernel(monkeypatch)
    again = ex.predict("01.window")  # restored: the last choice and verdict, the first answer kept
    assert again.choices.value == "discarding-grows" and again.feedback.correct
    assert "Your first answer: “both shrink” (not it)" in again.out.value
    again.choices.value = "both-grow"
    again.check()
    assert again.first == "both-shrink" and "both shrink" in again.out.value
    item = json.loads((records / "alice.json").read_text())["exercises"]["01.window"]
    assert item["first"]["answer"] == "both-shrink" and item["attempts"] == 3


def test_an_explanation_and_a_verdict_come_back(records, monkeypatch):
    text = "Without a window every conversion arrives eventually; with one a share is lost for good."
    e = ex.explain("01.why-window")
    e.text.value = text
    e.compare()
    ui.capture("n_tilde = 3", {"n_tilde": 3.0})
    monkeypatch.setattr(ui, "_HOOKED", [object()])
    assert ex.feedback("01.n-tilde").feedback.status == "wrong"
    new_kernel(monkeypatch)
    monkeypatch.setattr(ui, "_CAPTURED", {})
    restored = ex.explain("01.why-window")
    assert restored.text.value == text and "A model answer" in restored.out.value
    assert text in restored.static_html()
    shown = ex.feedback("01.n-tilde")  # not run in this kernel: the last check is recalled
    assert shown.feedback.status == "unanswered" and "Your last check" in shown.static_html()
    assert "not right yet" in shown.static_html()


def test_hints_and_solutions_seen_are_recorded_and_counted(records, monkeypatch):
    ui.capture("n_tilde = 3", {"n_tilde": 3.0})
    monkeypatch.setattr(ui, "_HOOKED", [object()])
    checked = ex.feedback("01.n-tilde")
    for _ in range(3):  # two hints, then the solution
        checked.steps.next()
    item = work.entry("01.n-tilde")
    assert item["hints"] == 2 and item["solution"]
    ui.capture("n_tilde = 2 * (1 - (2/3)**5) + (1 - (2/3)**3)", {"n_tilde": ex.solution("01.n-tilde")})
    ui.capture("x = 1", {})
    p = work.progress("alice")["01"]
    assert p["exercises"] == len(ex.ids("01")) and p["tried"] == 1 and p["hints"] == 2 and p["solutions"] == 1
    assert ex.feedback("01.n-tilde").feedback.correct
    p = work.progress("alice")["01"]
    assert p["done"] == 1 and p["tried"] == 0 and p["items"]["01.n-tilde"] == "done"
    html = ui.progress_html("alice")
    assert "Progress of alice" in html and "1.1&nbsp;✓" in html
    out = subprocess.run([sys.executable, "-m", "delaylab.exercises", "alice", "--folder", str(records)],
                         capture_output=True, text=True, check=True).stdout
    row = next(line for line in out.splitlines() if line.startswith("01 "))
    n = len(ex.ids("01"))
    marks = " ".join(["1.1 ✓"] + [f"1.{i} ·" for i in range(2, n + 1)])
    assert [c.strip() for c in row.split("|")][1:] == [str(n), "0", "1", "0", str(n - 1), "2", "1", marks], out


def test_tasks_progress_says_each_exercise_no_warning_and_whose_record_is_missing(records, monkeypatch):
    """``python3 tasks.py progress STUDENT`` itself: no RuntimeWarning from runpy, the exercises'
    marks as the index shows them, and a name without a record is said to have none."""
    import shutil

    monkeypatch.setattr(ui, "_HOOKED", [object()])
    assert ex.feedback("02.bias", ex.solution("02.bias")).feedback.correct
    python = shutil.which("python3") or sys.executable

    def tasks(*args):
        return subprocess.run([python, str(ROOT / "tasks.py"), "progress", *args, "--folder", str(records)],
                              capture_output=True, text=True, cwd=ROOT, timeout=900)

    done = tasks("alice")
    assert done.returncode == 0 and "Warning" not in done.stderr, done.stderr[-2000:]
    row = next(line for line in done.stdout.splitlines() if line.startswith("02 "))
    marks = [c.strip() for c in row.split("|")][-1]
    states = work.progress("alice")["02"]["items"]
    want = " ".join(f"2.{i} {work.MARKS[states[e]][0]}" for i, e in enumerate(ex.ids("02"), 1))
    assert marks == want and f"2.{ex.ids('02').index('02.bias') + 1} ✓" in marks and "·" in marks, (marks, want)
    nobody = tasks("nobody")
    assert nobody.returncode == 0 and "Warning" not in nobody.stderr, nobody.stderr[-2000:]
    assert "No record for 'nobody'" in nobody.stdout and "alice" in nobody.stdout, nobody.stdout
    assert not any(line.startswith("01 ") for line in nobody.stdout.splitlines()), nobody.stdout


def test_a_restored_right_answer_shows_no_hint_button(records, monkeypatch):
    """Right, saved, a new kernel, only the check cell run: the last check is shown once, as right,
    and the hint button stays gone (a wrong last check keeps it)."""
    monkeypatch.setattr(ui, "_HOOKED", [object()])
    monkeypatch.setattr(ui, "_CAPTURED", {})
    ui.capture("bias = 0.1", {"bias": ex.solution("02.bias")})
    assert ex.feedback("02.bias").feedback.correct
    ui.capture("leak = 3", {"leak": 3.0})
    assert not ex.feedback("04.leak").feedback.correct
    new_kernel(monkeypatch)
    monkeypatch.setattr(ui, "_CAPTURED", {})
    shown = ex.feedback("02.bias")
    html = shown.static_html()
    assert shown.feedback.status == "unanswered" and "Your last check" in html
    assert shown.steps is None and shown.widget is None and "hint" not in html.lower(), html
    assert "right — Right" not in html and html.count("Right:") == 1 and "✓" in html
    still = ex.feedback("04.leak")
    assert still.steps is not None and "not right yet" in still.static_html()


def test_the_explain_checklist_keeps_its_formulas_and_the_ticks(records, monkeypatch):
    """The points show their formulas as MathML beside the boxes (a checkbox's own label would drop
    them, and its tooltip would show the raw MathML); the boxes ticked are kept in the record and
    shown in the saved output; the student's text shows once."""
    import html

    from delaylab.exercises.texts import to_html, to_plain

    text = "The correction needs each arm's delay law, and those laws are unknown, so the index bounds the bias."
    e = ex.explain("02.why-not-correct")
    e.text.value = text
    e.compare()
    points = ex.get("02.why-not-correct").points
    rows = e.ticks.children
    assert len(rows) == len(points)
    for row, point in zip(rows, points):
        box, label = row.children
        assert "<" not in box.description + (box.tooltip or "") and box.tooltip == to_plain(point)
        assert label.value == to_html(point)
    assert "<math" in rows[0].children[1].value and rows[0].children[0].tooltip.startswith("Ñ needs")
    rows[0].children[0].value = True
    rows[2].children[0].value = True
    assert work.entry("02.why-not-correct")["ticked"] == [0, 2]
    saved = e._bundle()["text/html"]
    shown = html.escape(text)
    assert saved.count(shown) == 1, saved
    assert saved.count("☑") == 2 and saved.count("☐") == len(points) - 2
    assert saved.index("☑") < saved.index(to_html(points[0]))
    new_kernel(monkeypatch)
    again = ex.explain("02.why-not-correct")
    assert again.ticked() == [0, 2] and again.text.value == text
    assert again.static_html().count(shown) == 1
    again.text.value = text + " Assumption 1 bounds it."
    again.compare()
    assert again.ticked() == [0, 2]
    assert "Your first answer" in again.out.value and again.static_html().count(shown) == 2  # the first, and the new one


def test_a_restored_prediction_gives_each_answer_its_own_time(records, monkeypatch):
    """The first answer is shown with the time it was given, not the last check's."""
    stamps = iter(["2026-11-27T19:53:10+00:00", "2026-11-27T19:57:40+00:00"])
    monkeypatch.setattr(work, "now", lambda: next(stamps))
    w = ex.predict("01.window")
    w.choices.value = "both-shrink"
    w.check()
    assert "Your first answer: “both shrink” (not it), on 27 Nov at 19:53." in w.out.value
    w.choices.value = ex.solution("01.window")
    w.check()
    new_kernel(monkeypatch)
    again = ex.predict("01.window")
    note = again.out.value
    assert "Your first answer: “both shrink” (not it), on 27 Nov at 19:53." in note, note
    assert "Your last check, on 27 Nov at 19:57." in note and "checked on 27 Nov at 19:57" not in note, note


def test_a_check_cells_verdict_does_not_repeat_its_first_hint(records, monkeypatch):
    """A wrong answer's verdict in a check cell says what is wrong; the hint button under it gives
    the hints in steps, the first one included: the verdict does not say it too. (``ex.check``,
    which has no button, still ends with it.)"""
    from delaylab.exercises.texts import to_html

    monkeypatch.setattr(ui, "_HOOKED", [object()])
    seen = 0
    for eid in ex.ids():
        if ex.kind(eid) not in ("compute", "derive", "implement"):
            continue
        hint = ex.get(eid).hints[0]
        for answer in ex.wrong_answers(eid)[:2]:
            shown = ex.feedback(eid, answer)
            if shown.feedback.correct or not shown.feedback.answered:
                continue
            verdict = shown.verdict_html()
            assert hint not in shown.feedback.message and to_html(hint) not in verdict, (eid, verdict)
            assert shown.steps is not None and to_html(hint) in shown.steps._html() if shown.steps.shown else True
            shown.steps.next()
            assert to_html(hint) in shown.steps.out.value, eid
            if not ex.check(eid, answer).message.startswith("Close:"):
                assert hint in ex.check(eid, answer).message, eid
            seen += 1
    assert seen >= 10


def test_nothing_is_recorded_under_the_tests_or_on_a_dashboard(tmp_path, monkeypatch):
    monkeypatch.setenv(work.RECORD_ENV, str(tmp_path))
    monkeypatch.setenv("DELAYLAB_EXERCISES_EXPECT", "unanswered")
    assert not work.enabled()
    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT")
    monkeypatch.setenv("VOILA_KERNEL_ID", "k")
    assert not work.enabled()
    monkeypatch.delenv("VOILA_KERNEL_ID")
    assert work.enabled()
    monkeypatch.setenv(work.RECORD_ENV, "off")
    assert not work.enabled()


def test_the_record_lives_beside_the_notebooks(tmp_path, monkeypatch):
    monkeypatch.delenv(work.RECORD_ENV, raising=False)
    (tmp_path / "notebooks" / "mine").mkdir(parents=True)
    (tmp_path / "notebooks" / "00_index.ipynb").write_text("{}")
    assert work.folder(tmp_path / "notebooks" / "mine") == tmp_path / "notebooks" / work.FOLDER
    assert work.file_name("alice") == "alice.json" and work.file_name("") == "_default.json"
    assert work.file_name("../x y") != work.file_name("..x_y") and "/" not in work.file_name("../x y")
    ignored = subprocess.run(["git", "check-ignore", "-q", f"notebooks/{work.FOLDER}/alice.json"], cwd=ROOT)
    assert ignored.returncode == 0, "git must ignore the records"
    kept = subprocess.run(["git", "check-ignore", "-q", "notebooks/mine/README.md"], cwd=ROOT)
    assert kept.returncode == 1 and (ROOT / "notebooks" / "mine" / "README.md").exists()


# ------------------------------------------------------------- what a saved notebook keeps
def test_exercise_outputs_carry_their_state_as_html(records):
    w = ex.predict("01.window")
    bundle = w._bundle()
    assert set(bundle) == {WIDGET, "text/html", "text/plain"} and bundle[WIDGET]["model_id"] == w.widget.model_id
    w.choices.value = "both-shrink"
    w.check()
    html = w._bundle()["text/html"]
    assert "◉ both shrink" in html and "Your first answer" in html
    right = ui.Checked("01.n-tilde", ex.check("01.n-tilde", ex.solution("01.n-tilde")))
    assert right.widget is None and "hint" not in right.static_html().lower()  # no hint after a right answer
    assert set(right._bundle()) == {"text/html", "text/plain"}
    wrong = ui.Checked("01.n-tilde", ex.check("01.n-tilde", 3.0))
    assert wrong.widget is not None and wrong.steps is not None


def test_a_saved_notebook_keeps_html_not_widget_views():
    nb = {"metadata": {"widgets": {"state": {}}}, "cells": [
        {"cell_type": "code", "outputs": [{"output_type": "display_data", "data": {
            WIDGET: {"model_id": "a"}, "text/html": "<b>✓ Right</b>", "text/plain": "correct"}}]},
        {"cell_type": "code", "outputs": [{"output_type": "display_data", "data": {
            WIDGET: {"model_id": "b"}, "text/plain": "FigureWidget({...})"}}]},
        {"cell_type": "markdown", "source": "text"}]}
    assert static_outputs(nb) == 2
    first, second = (c["outputs"][0]["data"] for c in nb["cells"][:2])
    assert first == {"text/html": "<b>✓ Right</b>", "text/plain": "correct"}
    assert WIDGET not in second and "run this cell again" in second["text/html"]
    assert "widgets" not in nb["metadata"]


# ------------------------------------------------------------- answers: never a stale value
def test_an_answer_cell_that_sets_nothing_leaves_nothing_to_grade(monkeypatch):
    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)
    monkeypatch.setattr(ui, "_HOOKED", [object()])
    monkeypatch.setattr(ui, "_CAPTURED", {})
    monkeypatch.setattr(ui, "_CELLS", {})
    ui.capture("bias = 0.3874j", {"bias": 0.3874j}, cell_id="c1")
    ui.capture("print(0.3874)", {"bias": 0.3874j}, cell_id="c1")  # the same cell, now a print
    fb = ex.feedback("02.bias").feedback
    assert fb.status == "unanswered" and "did not set bias" in fb.message and "complex" not in fb.message
    ui.capture("bias = 0.52", {"bias": 0.52}, cell_id="c1")
    ui.capture("bias = 1 / 0", {"bias": 0.52}, cell_id="c1", failed=True)
    fb = ex.feedback("02.bias").feedback
    assert fb.status == "unanswered" and "error" in fb.message


def test_an_answer_run_before_the_import_is_found_in_the_history(monkeypatch):
    monkeypatch.setattr(ui, "_CAPTURED", {})

    class History:
        input_hist_raw = ["", "leak = 6.0", "import numpy as np"]

    class Shell:
        history_manager = History()
        user_ns = {"leak": 6.0}

    ui._from_history(Shell())
    assert ui.answer_of("04.leak") == 6.0 if ui._HOOKED else ui._CAPTURED["leak"] == 6.0


# ------------------------------------------------------------- feedback a student can act on
def test_numeric_exercises_state_their_precision_and_a_near_miss_is_close():
    for eid in (e for e in ex.ids() if ex.kind(e) in ("compute", "derive")):
        assert "significant digits" in repr(ex.given(eid)), eid
    goal = ex.solution("02.bias")
    near = float(f"{goal * (1 + 4e-3):.6g}")  # four tolerances off: a value rounded too early
    fb = ex.check("02.bias", near)
    assert not fb.correct and fb.message.startswith("Close:") and "significant digits" in fb.message
    assert ex.check("02.bias", goal * 1.2).message.count("Close") == 0  # far off: not close
    assert ex.check("02.bias", float(f"{goal:.4g}")).correct


def test_a_counterexample_shows_the_whole_row_that_decides_it():
    max_over_all = ex.wrong_answers("04.survivors")[1]
    fb = ex.check("04.survivors", max_over_all)
    assert not fb.correct
    for arg in ("means[", "active[", "tolerance["):
        assert arg in fb.message, fb.message
    shown = fb.message.split("means[")[1].split("]", 1)[1].split(";")[0]
    assert shown.count(",") >= 1  # a whole row, not one element


# ------------------------------------------------------------- the race: like for like
RACES = {
    "01.d-klucb-index": lambda: __import__("delaylab.panels.conversions", fromlist=["x"]).ConversionsPanel(
        horizon=1500, runs=20, mean_delay=100, window=300),
    "02.patient-ucb": lambda: __import__("delaylab.panels.arm_delays", fromlist=["x"]).ArmDelaysPanel(
        horizon=1500, runs=20),
    "03.otf-index": lambda: __import__("delaylab.panels.linear", fromlist=["x"]).LinearPanel(
        horizon=400, runs=6, dim=3, n_actions=5),
    "04.survivors": lambda: __import__("delaylab.panels.anonymous", fromlist=["x"]).AnonymousPanel(
        horizon=3000, runs=10),
    "05.dew-update": lambda: __import__("delaylab.panels.adversarial", fromlist=["x"]).AdversarialPanel(
        horizon=600, runs=12),
}


@pytest.mark.parametrize("eid", sorted(RACES))
def test_the_race_verdict_compares_the_status_lines_runs_after_the_background_finishes(eid, monkeypatch):
    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)
    panel = RACES[eid]()
    assert panel.budget.wait(120)
    panel.budget.seconds = 0.02  # a first answer at any size on any machine: the rest in the background
    raced = ex.race(panel, eid, namespace={ex.get(eid).answer_name: ex.solution(eid)})
    assert raced.correct, raced.message
    assert panel.budget.wait(300)
    result = panel.race_result
    assert "first_answer" not in result.notes and panel.budget.partial is None
    T, R = int(result.times[-1]), result.regret["your policy"].shape[0]
    yours = result.regret["your policy"][:, -1].mean()
    twin = ex.get(eid).race_against
    x, y = panel.regret.curve(twin)
    status = panel.status.value
    runs = f"over all {R:,} runs" if R > 1 else "over the one run"
    assert f"mean regret {yours:,.1f} at T = {T:,}, {runs}" in status, status
    assert f"at T = {T:,}, {runs.replace('over the one run', 'over the one run')}: your policy {yours:,.1f}, " \
           f"{twin} {y[-1]:,.1f}" in raced.message, raced.message
    assert int(x[-1]) == T and yours == pytest.approx(y[-1], rel=1e-9)  # the solution is the paper's algorithm
