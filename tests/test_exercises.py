"""Every exercise: its solution passes, natural wrong answers fail with a hint, unanswered says so,
and no answer of any type — nor any behaviour of the student's code — makes a check raise or hang.
Each student gets their own numbers. The notebooks' answer cells equal the stubs."""

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

import delaylab as dl
from delaylab import exercises as ex
from delaylab.exercises import guard, instance
from delaylab.exercises.solve import answer_cells, solved
from delaylab.exercises.ui import assigned_names

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ALL = ex.ids()
PARAM = [e for e in ALL if ex.get(e).parameterised]
STUDENTS = ["", "alice", "s1234567"]
ODD = ["a string", "2.4403", ["2.4403"], ("1",), [1 + 2j], True, [True], object(), [1, 2], np.zeros(3), {"a": 1},
       float("nan"), float("inf"), lambda *a: 1 / 0, lambda: 1, lambda *a: "text", lambda *a: np.zeros((7, 7)),
       lambda *a: None, lambda *a: ["x"], lambda *a: exit(), lambda *a: (_ for _ in ()).throw(KeyboardInterrupt)]


@pytest.fixture(autouse=True)
def default_student():
    instance.set_current("")
    yield
    instance.set_current("")


@pytest.mark.parametrize("eid", ALL)
@pytest.mark.parametrize("who", STUDENTS)
def test_solution_passes(eid, who):
    fb = ex.check(eid, ex.solution(eid, student=who), student=who)
    assert fb.correct and fb.answered, fb.message


@pytest.mark.parametrize("eid", ALL)
def test_unanswered(eid):
    fb = ex.check(eid, ...)
    assert not fb.correct and not fb.answered and "not answered yet" in fb.message.lower()
    if ex.kind(eid) == "implement":  # the stub as shipped returns `...`
        fb = ex.check(eid, lambda *a: ...)
        assert not fb.answered, fb.message


@pytest.mark.parametrize("eid", [e for e in ALL if ex.kind(e) == "implement"])
def test_a_function_returning_none_is_told_why(eid):
    """A forgotten return (or `return np.add.at(...)`) is a wrong answer with its own message."""
    fb = ex.check(eid, lambda *a: None)
    assert fb.answered and not fb.correct and "returned None" in fb.message and "return" in fb.message


@pytest.mark.parametrize("eid", [e for e in ALL if ex.kind(e) in ("compute", "derive")])
def test_a_none_value_is_told_why(eid):
    fb = ex.check(eid, None)
    assert fb.answered and not fb.correct and "None" in fb.message


@pytest.mark.parametrize("eid", ALL)
@pytest.mark.parametrize("who", STUDENTS)
def test_wrong_answers_fail_with_a_hint(eid, who):
    e = ex.get(eid)
    wrongs = ex.wrong_answers(eid, student=who)
    if e.kind == "explain":
        return
    assert wrongs, f"{eid} lists no natural wrong answer to test"
    for w in wrongs:
        fb = ex.check(eid, w, student=who)
        assert fb.answered and not fb.correct, f"{eid} ({who!r}): wrong answer {w!r} passed"
        assert e.hint in fb.message


@pytest.mark.parametrize("eid", ALL)
def test_any_answer_gives_a_sentence(eid):
    for answer in ODD:
        fb = ex.check(eid, answer)  # never raises
        assert isinstance(fb.message, str) and fb.message and not fb.correct, (answer, fb.message)
        assert "Traceback" not in fb.message


@pytest.mark.parametrize("eid", [e for e in ALL if ex.kind(e) == "implement"])
def test_student_code_that_loops_forever_is_stopped(eid, monkeypatch):
    monkeypatch.setattr(guard, "CALL_SECONDS", 0.3)

    def forever(*args):
        while True:
            pass

    def swallows_once(*args):  # a student's `except Exception` does not catch the stop
        while True:
            try:
                while True:
                    pass
            except Exception:
                pass

    for fn in (forever, swallows_once):
        fb = ex.check(eid, fn)
        assert fb.answered and not fb.correct and "stopped after running longer" in fb.message


def test_system_exit_and_interrupts_do_not_escape():
    for exc in (SystemExit(2), KeyboardInterrupt(), GeneratorExit(), MemoryError()):
        def raiser(*a, exc=exc):
            raise exc
        fb = ex.check("01.d-klucb-index", raiser)
        assert not fb.correct and type(exc).__name__ in fb.message or "exit()" in fb.message


def test_text_is_refused_inside_containers_too():
    right = ex.solution("01.n-tilde")
    for answer in (f"{right:.4f}", [f"{right:.4f}"], (f"{right:.4f}",), np.array([f"{right:.4f}"])):
        fb = ex.check("01.n-tilde", answer)
        assert not fb.correct and "text" in fb.message, answer
    assert ex.check("01.n-tilde", [right]).correct and ex.check("01.n-tilde", np.float32(right)).correct


def test_contract():
    assert set(ex.KINDS) == {"predict", "compute", "derive", "explain", "implement"}
    for eid in ALL:
        e = ex.get(eid)
        assert ex.kind(eid) in ex.KINDS and e.stars in (1, 2, 3) and len(e.hints) >= 2
        assert ex.ids(eid.split(".")[0]).count(eid) == 1
        assert e.minutes > 0
    with pytest.raises(ValueError, match="no exercise"):
        ex.check("99.nothing", 1)


@pytest.mark.parametrize("nb", ["01", "02", "03", "04", "05"])
def test_each_notebook_has_the_exercises_a_course_needs(nb):
    kinds = [ex.kind(e) for e in ex.ids(nb)]
    assert len(kinds) >= 5 and "derive" in kinds and "explain" in kinds, kinds
    assert any(ex.get(e).stars == 3 for e in ex.ids(nb))


def test_predict_labels_carry_no_reasons():
    """A label states an outcome; the reasons come with the verdict (no colon, no 'because')."""
    for eid in ALL:
        for label in ex.get(eid).choices.values():
            assert ":" not in label and "because" not in label and len(label) < 80, (eid, label)


# ------------------------------------------------------------- each student their own numbers
@pytest.mark.parametrize("eid", PARAM)
def test_two_students_get_different_numbers_and_cannot_swap_answers(eid):
    a, b = "alice", "bob"
    assert ex.params(eid, a) != ex.params(eid, b)
    assert ex.check(eid, ex.solution(eid, student=a), student=a).correct
    assert not ex.check(eid, ex.solution(eid, student=a), student=b).correct
    assert not ex.check(eid, ex.solution(eid, student=b), student=a).correct
    assert ex.given_text(eid, a) != ex.given_text(eid, b)


def _run_solution_code(eid, who):
    ns = {"np": np, "math": math, "dl": dl, "ex": ex}
    exec(ex.solution_code(eid, student=who), ns)
    return ns[ex.get(eid).answer_name]


@pytest.mark.parametrize("eid", PARAM)
def test_the_solution_text_is_the_students_own(eid):
    """The solution shows the method with the student's numbers: run, it passes for them only — a
    neighbour's copied solution fails."""
    for who, other in [("", "alice"), ("alice", "bob"), ("bob", "")]:
        value = _run_solution_code(eid, who)
        assert ex.check(eid, value, student=who).correct
        assert not ex.check(eid, value, student=other).correct


@pytest.mark.parametrize("eid", PARAM)
def test_few_pairs_of_a_class_share_an_answer(eid):
    """Over 40 students (780 pairs), at most 2% of the pairs could pass with each other's number."""
    ids = [f"student-{i}" for i in range(40)]
    sols = {s: ex.solution(eid, student=s) for s in ids}
    shared = sum(ex.check(eid, sols[a], student=b).correct for a, b in itertools.combinations(ids, 2))
    assert shared <= 0.02 * 780, shared


def test_draws_are_stable_across_machines_and_versions():
    """Pinned: the same id gives the same numbers forever (SHA-256, no numpy generator, no salted hash)."""
    d = instance.Draw("s1234567", "01.n-tilde")
    assert [d.integer(0, 1000) for _ in range(3)] == [_pinned(0), _pinned(1), _pinned(2)]
    assert ex.params("01.n-tilde", " S1234567 ") == ex.params("01.n-tilde", "s1234567")


def _pinned(n):
    import hashlib

    key = "delaylab-exercise\x0001.n-tilde\x00s1234567\x000".encode()
    return int.from_bytes(hashlib.sha256(key + n.to_bytes(8, "big")).digest()[:8], "big") % 1001


def test_start_sets_the_student_and_the_environment_gives_a_default(monkeypatch):
    ex.start("Alice")
    assert instance.current() == "alice" and ex.solution("01.n-tilde") == ex.solution("01.n-tilde", student="alice")
    monkeypatch.setenv(instance.STUDENT_ENV, "bob")
    ex.start()
    assert instance.current() == "bob"
    monkeypatch.delenv(instance.STUDENT_ENV)
    ex.start("")
    assert instance.current() == ""
    with pytest.raises(ValueError, match="student"):
        ex.start(["alice"])


# ------------------------------------------------------------- answers taken when their cell runs
def test_a_later_cell_cannot_change_what_is_graded(monkeypatch):
    from delaylab.exercises import ui

    monkeypatch.setattr(ui, "_HOOKED", [object()])
    monkeypatch.setattr(ui, "_CAPTURED", {})
    ns = {}
    exec("n_tilde = 2 * (1 - (2/3)**5) + (1 - (2/3)**3)", ns)
    ui.capture("n_tilde = 2 * (1 - (2/3)**5) + (1 - (2/3)**3)", ns)
    ns["n_tilde"] = np.arange(3.0)  # a later cell reuses the name
    ui.capture("x = 1", ns)          # (it does not assign n_tilde: nothing is taken)
    assert ui.answer_of("01.n-tilde") == pytest.approx(ex.solution("01.n-tilde"))


def test_the_captured_answer_is_graded_not_the_namespace(monkeypatch):
    from delaylab.exercises import ui

    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)
    monkeypatch.setattr(ui, "_HOOKED", [object()])
    monkeypatch.setattr(ui, "_CAPTURED", {})
    assert ex.feedback("04.leak").feedback.status == "unanswered"  # skipped: nothing taken, whatever is around
    ui.capture("leak = 6.0", {"leak": 6.0})
    assert ex.feedback("04.leak").feedback.status == "correct"


def test_assigned_names():
    assert assigned_names("a = 1\nb, c = 2, 3\nd: float = 4\ne += 1\ndef f(): pass\nif x:\n    g = 1") == {
        "a", "b", "c", "d", "e", "f"}
    assert assigned_names("this is not python") == set()


def test_notebook_cells_never_assign_an_answer_name():
    """Only a notebook's answer cell assigns its exercise's answer: no other cell can be graded in its place."""
    names = {ex.get(e).answer_name for e in ALL if ex.get(e).answer_name}
    for path in sorted(NOTEBOOKS.glob("0[1-5]_*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        answers = {i for i, _ in answer_cells(nb)}
        for i, cell in enumerate(nb["cells"]):
            if cell["cell_type"] == "code" and i not in answers:
                clash = assigned_names("".join(cell["source"])) & names
                assert not clash, f"{path.name} cell {i} assigns {clash}"


# ------------------------------------------------------------- the widgets
def test_predict_keeps_the_first_answer_and_reasons_come_after_the_check(monkeypatch):
    from delaylab.exercises import ui

    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)
    monkeypatch.setattr(ui, "_FIRST", {})
    w = ex.predict("01.window")
    assert "round robin" not in w.out.value  # no reason before a check
    w.choices.value = "both-shrink"
    w.check()
    w.choices.value = "discarding-grows"
    w.check()
    assert w.feedback.correct and w.first == "both-shrink"
    assert "Your first answer" in w.out.value and "both shrink" in w.out.value


def test_explain_compares_with_the_model_answer(monkeypatch):
    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)
    w = ex.explain("01.why-window")
    assert w.feedback.status == "unanswered" and "model answer" not in w.out.value.lower().replace("compare", "")
    w.text.value = "too short"
    assert w.compare().status == "unanswered"
    w.text.value = "Without a window everything arrives eventually, with one some is lost."
    assert w.compare().correct and "A model answer" in w.out.value and len(w.ticks.children) == 4


def test_hints_come_in_steps_then_the_solution(monkeypatch):
    from delaylab.exercises.ui import Steps

    s = Steps("01.n-tilde")
    assert s.out.value == "" and "hint 1" in s.button.description
    s.next()
    assert ex.get("01.n-tilde").hints[0].split(":")[0] in s.out.value and "Hint 2" not in s.out.value
    s.next()
    assert "Hint 2" in s.out.value and "n_tilde = sum" not in s.out.value
    s.next()
    assert "n_tilde = sum" in s.out.value
    monkeypatch.setenv("DELAYLAB_SOLUTIONS", "off")
    s = Steps("01.n-tilde")
    for _ in range(3):
        s.next()
    assert "n_tilde = sum" not in s.out.value and "Solutions are off" in s.out.value


def test_table_lists_every_exercise_with_its_difficulty():
    page = ex.table().value
    for eid in ALL:
        assert ex.get(eid).title.replace("'", "&#x27;") in page
    assert "01_delayed_conversions.ipynb" in page and "★★★" in page and "derive" in page


def test_dashboard_says_where_to_answer(monkeypatch):
    monkeypatch.setenv("VOILA_KERNEL_ID", "k")
    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)
    fb = ex.feedback("01.n-tilde", namespace={}).feedback
    assert fb.status == "unanswered" and "JupyterLab" in fb.message


# ------------------------------------------------------------- the notebooks' cells
def _notebook(name):
    (path,) = NOTEBOOKS.glob(f"{name}_*.ipynb")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("nb", sorted({e.split(".")[0] for e in ALL}))
def test_notebook_answer_cells_are_the_stubs_in_order(nb):
    book = _notebook(nb)
    cells = list(answer_cells(book))
    assert [eid for _, eid in cells] == ex.ids(nb)
    sources = ["".join(c["source"]) for c in book["cells"]]
    for i, eid in cells:
        assert sources[i] == ex.get(eid).stub, f"{nb}: answer cell of {eid} differs from its stub"
        e = ex.get(eid)
        heading = next(s for s in reversed(sources[:i]) if s.lstrip().startswith("#"))
        assert ex.heading(eid) in heading, f"{nb}: the heading above {eid} is not {ex.heading(eid)!r}"
        roles = lambda k: book["cells"][k]["metadata"].get("delaylab", {})  # noqa: E731
        if e.kind in ("compute", "derive", "implement"):
            assert f'ex.feedback("{eid}")' in sources[i + 1], f"{nb}: no check cell right after {eid}"
            assert roles(i + 1) == {"exercise": eid, "role": "check"}  # the site and the assignments key on it
        if e.parameterised:
            assert f'ex.given("{eid}")' in sources[i - 1], f"{nb}: the student's numbers are not shown above {eid}"
            assert roles(i - 1) == {"exercise": eid, "role": "given"}
    for k, text in enumerate(sources):
        if text.startswith("ex.race("):
            assert roles(k)["role"] == "race" and f'"{roles(k)["exercise"]}"' in text
    assert any(s.startswith("ex.start(") for s in sources), f"{nb}: no ex.start cell"


@pytest.mark.parametrize("nb", sorted({e.split(".")[0] for e in ALL}))
def test_solved_copy_fills_every_answer(nb):
    out = solved(_notebook(nb))
    for i, eid in answer_cells(out):
        assert out["cells"][i]["source"] == ex.solution_code(eid, student="")


def test_write_solved_keeps_only_notebooks_with_exercises(tmp_path):
    from delaylab.exercises.solve import write_solved

    (tmp_path / "02_gone.ipynb").write_text("{}")  # a stale copy
    written = write_solved(NOTEBOOKS, tmp_path)
    names = sorted(p.name for p in tmp_path.glob("*.ipynb"))
    assert names == sorted(p.name for p in written) and "02_gone.ipynb" not in names
    assert any(n.startswith("01_") for n in names) and not any(n.startswith("00_") for n in names)
    for p in written:
        nb = json.loads(p.read_text(encoding="utf-8"))
        assert nb["cells"][0]["id"] == "delaylab-solved-mode"


@pytest.mark.parametrize("nb", ["01", "02", "03", "04", "05"])
def test_every_notebook_words_its_hints_the_same(nb):
    """One sentence in every introduction, one above every implement exercise: the same in 01–05."""
    text = "\n".join("".join(c["source"]) for c in _notebook(nb)["cells"] if c["cell_type"] == "markdown")
    assert text.count("if you are stuck, the check cell gives hints one step at a time, then the solution") == 1
    implement = sum(ex.kind(e) == "implement" for e in ex.ids(nb))
    assert text.count("If you are stuck, the check cell's hints come one step at a time.") == implement
    assert "its hints come" not in text and "offers hints" not in text


def test_a_rounding_aware_check_names_a_slip_only_where_the_answer_points_at_it():
    """Review nb05-r7, finding 1: with a slip 7.5e-4 from the answer and a tolerance of 2e-4, the answer
    rounded to 3 digits (76.3 for 76.3457) lies within the slip's tolerance (76.2884). A rounding-aware check
    tells it to give more digits, and names the slip only for an answer nearer to the slip than to the goal
    that is not the goal rounded; a plain check keeps its old behaviour."""
    from delaylab.exercises._core import number_grader

    goal, slip = 76.3457, 76.2884
    aware = number_grader(lambda p: goal, rtol=2e-4, misconceptions=lambda p: [(slip, "the slip.")], rounding_aware=True)
    plain = number_grader(lambda p: goal, rtol=2e-4, misconceptions=lambda p: [(slip, "the slip.")])
    assert "is not it: the slip." in plain(76.3, {}).message
    for x in (76.3, 76.4, 76.0):  # β* rounded or cut to the digits given: never the slip
        fb = aware(x, {})
        assert fb.message.startswith("Close:") and "5 significant digits" in fb.message, (x, fb.message)
    for x in (slip, 76.29, 76.288):
        assert "is not it: the slip." in aware(x, {}).message, x
    assert aware(76.34, {}).correct and aware(goal * 1.0001, {}).correct
    assert aware(90.0, {}).message == "90 is not it." and aware(100.0, {}).message == "100 is not it."
    with pytest.raises(ValueError, match="rounding_aware"):
        number_grader(lambda p: [1.0, 2.0], shape=(2,), rounding_aware=True)


def test_a_derive_check_calls_close_only_what_more_digits_can_fix():
    """Review nb03-r9, finding 3: within 10 tolerances (2 % at rtol 2e-3) a wrong derivation 1.5 % off was told
    to give more digits. ``close_within=3`` narrows that window to 0.6 %; ``close_if_rounded`` keeps "Close" for
    the right answer written to fewer digits (each entry less than one unit of its last digit away, within 5 %),
    even where a slip's value lies within the tolerance of those digits. Hand-computed: goal (0.03978, 0.06849)."""
    import numpy as np

    from delaylab.exercises._core import number_grader

    goal, slip = np.array([0.03978, 0.06849]), np.array([0.04005, 0.06805])
    kw = dict(rtol=2e-3, shape=(2,), misconceptions=lambda p: [(slip, "the slip.")])
    plain = number_grader(lambda p: goal, **kw)
    narrow = number_grader(lambda p: goal, close_within=3.0, close_if_rounded=True, **kw)
    off = goal * 1.015                                                  # 1.5 % off, no digits missing
    assert plain(off, {}).message.startswith("Close:")
    assert narrow(off, {}).message == "(0.04038, 0.06952) is not it."
    assert narrow(goal * 1.005, {}).message.startswith("Close:")      # 0.5 %: within 3 tolerances
    assert narrow(goal * 1.007, {}).message.endswith("is not it.")    # 0.7 %: not
    for x in ([0.04, 0.068], [0.04, 0.069], [0.039, 0.068]):          # the goal to 1–2 digits: more digits
        assert narrow(np.array(x), {}).message.startswith("Close:"), x
    assert "is not it: the slip." in plain(np.array([0.04, 0.068]), {}).message   # within the slip's tolerance
    assert "is not it: the slip." in narrow(slip, {}).message           # the slip to 4 digits: named
    assert narrow(np.array([0.03, 0.07]), {}).message == "(0.03, 0.07) is not it."    # 25 % off in one entry
    assert narrow(goal * 1.001, {}).correct
