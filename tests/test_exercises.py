"""Every exercise: its solution passes, natural wrong answers fail with a sentence, unanswered says
so, and no answer of any type makes a check raise. The notebooks' answer cells equal the stubs."""

import json
from pathlib import Path

import numpy as np
import pytest

from delaylab import exercises as ex
from delaylab.exercises.solve import answer_cells, solved

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ALL = ex.ids()
ODD = ["a string", 3, 2.5, True, object(), [1, 2], np.zeros(3), {"a": 1}, lambda *a: 1 / 0, lambda: 1,
       lambda *a: "text", lambda *a: np.zeros((7, 7))]


@pytest.mark.parametrize("eid", ALL)
def test_solution_passes(eid):
    fb = ex.check(eid, ex.solution(eid))
    assert fb.correct and fb.answered, fb.message


@pytest.mark.parametrize("eid", ALL)
def test_unanswered(eid):
    for answer in (..., None):
        fb = ex.check(eid, answer)
        assert not fb.correct and not fb.answered and "not answered yet" in fb.message.lower()
    if ex.kind(eid) == "implement":  # the stub as shipped returns `...`
        fb = ex.check(eid, lambda *a: ...)
        assert not fb.answered, fb.message


@pytest.mark.parametrize("eid", ALL)
def test_wrong_answers_fail_with_a_hint(eid):
    e = ex.get(eid)
    assert e.wrong_answers, f"{eid} lists no natural wrong answer to test"
    if e.kind == "implement":  # every implement exercise: zeros fail too
        assert any("zeros" in repr(getattr(w, "__code__", "")) or _returns_zeros(w) for w in e.wrong_answers)
    for w in e.wrong_answers:
        fb = ex.check(eid, w)
        assert fb.answered and not fb.correct, f"{eid}: wrong answer {w!r} passed"
        assert e.hint in fb.message


def _returns_zeros(fn):
    import inspect

    try:
        n = len(inspect.signature(fn).parameters)
        return not np.any(np.asarray(fn(*[np.ones((2, 2))] * n)))
    except Exception:
        return False


@pytest.mark.parametrize("eid", ALL)
def test_any_answer_gives_a_sentence(eid):
    for answer in ODD:
        fb = ex.check(eid, answer)  # never raises
        assert isinstance(fb.message, str) and fb.message and not fb.correct
        assert "Traceback" not in fb.message


def test_contract():
    assert set(ex.KINDS) == {"predict", "compute", "implement"}
    for eid in ALL:
        assert ex.kind(eid) in ex.KINDS
        assert ex.ids(eid.split(".")[0]).count(eid) == 1
    with pytest.raises(ValueError, match="no exercise"):
        ex.check("99.nothing", 1)


def _notebook(name):
    (path,) = NOTEBOOKS.glob(f"{name}_*.ipynb")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("nb", sorted({e.split(".")[0] for e in ALL}))
def test_notebook_answer_cells_are_the_stubs_in_order(nb):
    book = _notebook(nb)
    cells = list(answer_cells(book))
    assert [eid for _, eid in cells] == ex.ids(nb)
    for i, eid in cells:
        assert "".join(book["cells"][i]["source"]) == ex.get(eid).stub, f"{nb}: answer cell of {eid} differs from its stub"
    sources = ["".join(c["source"]) for c in book["cells"] if c["cell_type"] == "code"]
    for eid in ex.ids(nb):
        if ex.kind(eid) != "predict":  # a predict widget checks itself; the others have a check cell
            assert any(f'ex.feedback("{eid}")' in s for s in sources), f"{nb}: no check cell for {eid}"


@pytest.mark.parametrize("nb", sorted({e.split(".")[0] for e in ALL}))
def test_solved_copy_fills_every_answer(nb):
    out = solved(_notebook(nb))
    for i, eid in answer_cells(out):
        assert out["cells"][i]["source"] == ex.get(eid).solution_code


# ------------------------------------------------------------- the exercises' numbers, against delaylab itself
def test_n_tilde_is_delaylabs_count():
    """01.n-tilde: the hand computation equals the count D-UCB uses (pulls at 2, 5, 9; decision 12)."""
    from delaylab.policies.counts import GeometricCount

    count = GeometricCount(2 / 3, 4, 1, 2)
    for t in range(12):  # the engine's steps 0 … 11, then the decision of step 12
        arm = 0 if t in (2, 5, 9) else 1
        count.push(t, np.array([arm]), np.eye(2)[[arm]])
    assert count.value()[0, 0] == pytest.approx(ex.solution("01.n-tilde"), rel=1e-12)


def test_bias_matches_monte_carlo():
    """02.bias: μ − E μ̂ for ten pulls of Pareto(0.3)-delayed conversions, against simulated draws."""
    import delaylab as dl

    n = 200_000
    rng = np.random.default_rng(3)
    delays = dl.Pareto(0.3).sample((n, 10), seed=4)
    lags = np.arange(9, -1, -1)  # pulls at s = 1 … 10, decision of step 11: lag t − 1 − s
    seen = (rng.random((n, 10)) < 0.8) & (delays <= lags)
    bias = 0.8 - seen.mean(axis=1)
    assert abs(bias.mean() - ex.solution("02.bias")) < 4 * bias.std() / np.sqrt(n)


def test_lower_bound_is_theorem_3():
    import delaylab as dl
    from delaylab.papers import vernade2017

    assert ex.solution("01.lower-bound") == pytest.approx(vernade2017.lower_bound((0.1, 0.05), 1000, 500))
    assert ex.solution("01.lower-bound") > dl.bounds.lai_robbins_slope((0.1, 0.05))  # censoring: harder


def test_table_lists_every_exercise():
    page = ex.table().value
    for eid in ALL:
        assert ex.get(eid).title.replace("'", "&#x27;") in page
    assert "01_delayed_conversions.ipynb" in page


def test_dashboard_says_where_to_answer(monkeypatch):
    monkeypatch.setenv("VOILA_KERNEL_ID", "k")
    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)
    fb = ex.feedback("01.n-tilde", namespace={}).feedback
    assert fb.status == "unanswered" and "JupyterLab" in fb.message


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
