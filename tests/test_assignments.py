"""Graded assignments (python3 tasks.py assignment): the nbgrader course folder, the week's
selection of exercises and their points, a release with no solution in it and no prose that gives
a graded prediction away. (Grading the submissions: tests/test_grading.py.)

The end-to-end test uses the grading environment .venv-grade (``python3 tasks.py grade --setup``:
nbgrader from PyPI, never in the workbook's .venv, whose launch command must not carry nbgrader's
JupyterLab extensions) and runs nbgrader's own command line.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from delaylab import exercises as ex
from delaylab.exercises import assignment
from delaylab.exercises._core import reference_code, reference_explanation
from delaylab.exercises.solve import answer_cells

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def _notebook(nb_id):
    (path,) = NOTEBOOKS.glob(f"{nb_id}_*.ipynb")
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


@pytest.mark.parametrize("nb_id", ["01", "02", "03", "04", "05"])
def test_source_notebook_has_a_graded_cell_per_exercise(nb_id):
    nb = _notebook(nb_id)
    g = assignment.graded(nb)
    graded = {}
    for cell in g["cells"]:
        meta = cell["metadata"].get("nbgrader")
        ours = cell["metadata"].get("delaylab", {})
        if meta:
            graded.setdefault(ours["exercise"], {})[ours["role"]] = (cell, meta)
    assert sorted(graded) == sorted(ex.ids(nb_id))
    for eid, roles in graded.items():
        kind = ex.kind(eid)
        answer_cell, answer_meta = roles["answer"]
        assert answer_meta["solution"] and "### BEGIN SOLUTION" in _source(answer_cell)
        if kind == "explain":
            assert answer_cell["cell_type"] == "markdown" and answer_meta["grade"]
            assert answer_meta["points"] == assignment.POINTS["explain"]
        else:
            test_cell, test_meta = roles["test"]
            assert test_meta["grade"] and test_meta["locked"] and test_meta["points"] == assignment.POINTS[kind]
            # no hidden test: nothing is judged in the student's kernel (delaylab/grading judges outside it)
            assert "HIDDEN TESTS" not in _source(test_cell) and "autograde" not in _source(test_cell)
            assert f'("{eid}"' in _source(test_cell)
    sources = [_source(c) for c in g["cells"]]
    assert not any({"hide", "solution"} & set(c["metadata"].get("tags", [])) for c in g["cells"])
    assert "**The derivation**" not in "".join(_source(c) for c in g["cells"])  # notebook 05's worked Corollary 4
    assert 'ex.start("", graded=True)' in "".join(sources)
    assert len(list(answer_cells(nb))) == len(ex.ids(nb_id))


def test_graded_mode_turns_solutions_off(monkeypatch):
    from delaylab.exercises import _core, ui

    monkeypatch.setattr(_core, "_GRADED", [])
    assert ex.solution("01.n-tilde") == pytest.approx(2.440, abs=1e-3)
    ex.start("alice", graded=True)
    try:
        assert isinstance(ex.solution("01.n-tilde"), str) and "Solutions are off" in ex.solution("01.n-tilde")
        # nor the filled-in answer cell, nor the explanation: no call of the public API gives them
        for eid in ex.ids():
            assert "Solutions are off" in ex.solution_code(eid) and "Solutions are off" in ex.explanation(eid)
            assert "Solutions are off" in ex.solution(eid)
        s = ui.Steps("01.n-tilde")
        for _ in range(3):
            s.next()
        assert "Solutions are off" in s.out.value and "n_tilde = sum" not in s.out.value
        assert ex.record("01.window", "both-grow").feedback.message.startswith("Your prediction is recorded")
        assert "round robin" not in ex.record("01.window", "both-grow").feedback.message  # no verdict, no reasons
    finally:
        _core._GRADED.clear()
        ex.start("")


def test_the_source_notebooks_keep_their_solutions_where_solutions_are_off(monkeypatch):
    """A lecturer who writes the assignments on a hub whose students have solutions off
    (DELAYLAB_SOLUTIONS=off) still gets the solutions into the source notebooks."""
    monkeypatch.setenv("DELAYLAB_SOLUTIONS", "off")
    text = json.dumps(assignment.graded(_notebook("01")))
    assert "Solutions are off" not in text and "n_tilde = sum" in text
    assert "Solutions are off" in ex.solution_code("01.n-tilde")


def test_the_week_presets_are_the_guides_module_table():
    """``tasks.py assignment week1`` … ``week5`` grade the homework the guide's five-week module lists."""
    guide = (ROOT / "docs" / "instructor.md").read_text(encoding="utf-8")
    table = guide[guide.index("### A five-week module"):]
    weeks = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] in "12345" and cells[0]:
            m = re.search(r"Exercises ([\d., and]+?) \(", cells[3])
            weeks[f"week{cells[0]}"] = tuple(re.findall(r"\d\.\d+", m.group(1)))
    assert weeks == assignment.WEEKS


def test_a_weeks_assignment_grades_its_exercises_with_their_points_and_keeps_the_rest_as_practice():
    nb = _notebook("01")
    chosen = assignment.resolve(["1.2", "1.4", "01.lower-bound"], "01")
    g = assignment.graded(nb, assignment.points_of("1.4=4,compute=5"), chosen)
    graded = {c["metadata"]["delaylab"]["exercise"]: c["metadata"]["nbgrader"].get("points")
              for c in g["cells"] if c["metadata"].get("nbgrader", {}).get("grade")}
    assert graded == {"01.pending": 3, "01.d-klucb-index": 4, "01.lower-bound": 5}
    text = [_source(c) for c in g["cells"]]
    for eid in ("01.n-tilde", "01.window", "01.why-window"):  # practice: as in the notebook, checked on the spot
        head = next(t for t in text if t.startswith(f"### {ex.heading(eid)}"))
        assert "*Practice: not graded in this assignment" in head
        assert ex.get(eid).stub.strip() in [t.strip() for t in text]
    assert sum("Practice" in t for t in text) == 3
    with pytest.raises(ValueError, match="no exercise '9.9' in notebook 01; choose from 1.1, 1.2"):
        assignment.resolve(["9.9"], "01")
    with pytest.raises(ValueError, match="no exercise '2.1' in notebook 01"):
        assignment.resolve(["2.1"], "01")
    for bad in ("1.4", "1.4=x", "1.4=-1", "speed=2"):
        with pytest.raises(ValueError, match="--points|--exercises"):
            assignment.points_of(bad)


@pytest.mark.parametrize("nb_id", ["01", "02", "03", "04", "05"])
def test_no_prose_in_a_release_gives_a_graded_prediction_away(nb_id):
    """Whatever the notebook's prose says after a predict question (its verdicts, "what to look for"),
    a graded release leaves out each paragraph that states the answer of a graded prediction."""
    nb = _notebook(nb_id)
    predicts = [e for e in ex.ids(nb_id) if ex.kind(e) == "predict"]
    found = {e: [b for c in nb["cells"] if c["cell_type"] == "markdown" and not _source(c).startswith("### ✎")
                 for b in assignment.giveaways(_source(c), e)] for e in predicts}
    print({e: [b[:80] for b in blocks] for e, blocks in found.items() if blocks})  # the notebooks' own (reported)
    release = assignment.graded(nb)
    for cell in release["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = _source(cell)
        for e in predicts:
            if not text.startswith(f"### {ex.heading(e)}"):
                assert not assignment.giveaways(text, e), (e, text[:300])
    if nb_id == "05":  # the detector finds what a reader sees as the answer (the reading of the panel after 5.4)
        assert any("so every round is skipped" in b for b in found["05.skipper-beta"])
        assert "so every round is skipped" not in json.dumps(release, ensure_ascii=False)
        assert "gives away the answer of Exercise 5.4" in json.dumps(release, ensure_ascii=False)
    # a week that grades no prediction keeps every paragraph
    weekly = assignment.graded(nb, exercises=[e for e in ex.ids(nb_id) if ex.kind(e) != "predict"])
    assert "gives away the answer" not in json.dumps(weekly, ensure_ascii=False)


def test_the_course_configuration_switches_nbgrader_autograde_off_and_sets_no_cache():
    assert "DELAYLAB_DEFAULT_CACHE" not in assignment.CONFIG and "timeout" not in assignment.CONFIG
    namespace = {"get_config": lambda: _Config()}
    exec(compile(assignment.CONFIG, "nbgrader_config.py", "exec"), namespace)
    refuse = namespace["GradeWithDelaylab"]
    with pytest.raises(RuntimeError, match="python3 tasks.py grade"):
        refuse()({}, {})  # as nbconvert's exporter calls it (tests/test_assignments.py's slow test runs nbgrader)


class _Config(dict):
    """Enough of traitlets' Config for the course configuration to run."""

    def __getattr__(self, name):
        return self.setdefault(name, _Config())

    def __setattr__(self, name, value):
        self[name] = value


def _answer(eid, student):
    return ex.get(eid).solution(ex.params(eid, student))


def _tasks(*args, cwd=ROOT):
    """The lecturer's command line, ``python3 tasks.py ...`` (the venv is the one the tests run in)."""
    python = shutil.which("python3") or sys.executable
    return subprocess.run([python, str(ROOT / "tasks.py"), *args], capture_output=True, text=True, cwd=cwd,
                          timeout=900)


def test_tasks_assignment_writes_the_course_folder(tmp_path):
    """``python3 tasks.py assignment`` itself (not only the module it runs): a relative --out is the
    caller's folder, and a notebook that does not exist is a one-line error."""
    week = _tasks("assignment", "week1", "--out", "course", cwd=tmp_path)
    assert week.returncode == 0 and (tmp_path / "course" / "source" / "week1" / "01_delayed_conversions.ipynb").exists()
    bad = _tasks("assignment", "01", "--exercises", "1.2,7.1", "--out", "course", cwd=tmp_path)
    assert bad.returncode != 0 and "no exercise '7.1' in notebook 01" in bad.stderr and "Traceback" not in bad.stderr
    proc = _tasks("assignment", "02", "4", "--out", "course", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = tmp_path / "course"
    assert (out / "nbgrader_config.py").exists()
    assert sorted(p.name for p in (out / "source").iterdir()) == ["02_arm_dependent_delays", "04_aggregated_anonymous",
                                                                  "week1"]
    assert f"wrote {out / 'source'}" in proc.stdout
    bad = _tasks("assignment", "07", "--out", str(out))
    assert bad.returncode != 0 and "no paper notebook '07'" in bad.stderr and "Traceback" not in bad.stderr


# ------------------------------------------------------------- nbgrader itself, in a throwaway environment
@pytest.fixture(scope="module")
def nbgrader_env():
    """The grading environment .venv-grade (nbgrader from PyPI, delaylab from this checkout), made by
    the lecturer's command ``python3 tasks.py grade --setup`` (shared with tests/test_grading.py)."""
    proc = _tasks("grade", "--setup")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return Path(proc.stdout.strip().splitlines()[-1]).parent.parent


def _nbgrader(venv, course, *args):
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env.pop("DELAYLAB_EXERCISES_EXPECT", None)
    for key in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[key] = str(course / ".jupyter" / key.lower())
    proc = subprocess.run([str(venv / "bin" / "nbgrader"), *args], cwd=course, env=env, capture_output=True,
                          text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _scores(venv, course, name, student):
    """{grade id: (auto score, manual score)} of a student's submission, from the course's gradebook."""
    code = ("import json, sys\nfrom nbgrader.api import Gradebook\n"
            "with Gradebook('sqlite:///gradebook.db') as gb:\n"
            f"    s = gb.find_submission({name!r}, {student!r})\n"
            "    print(json.dumps({g.name: [g.auto_score, g.manual_score] for n in s.notebooks for g in n.grades}))\n")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=course, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return {k: tuple(v) for k, v in json.loads(out.stdout).items()}


def _solution_texts(eid):
    """Pieces of text that only a solution contains (code lines beyond the stub, explanations, model answers)."""
    e = ex.get(eid)
    texts = []
    if e.kind in ("compute", "derive", "implement"):
        stub = set(e.stub.splitlines())
        texts += [line.strip() for line in reference_code(eid, student="").splitlines()
                  if line.strip() and line not in stub and len(line.strip()) > 12]
    if e.kind == "explain":
        texts += [e.solution, *e.points]
    if e.kind == "predict":
        texts += [e.grade(k, {}).message.split(". ", 1)[-1][:60] for k in e.choices]
    texts.append(reference_explanation(eid, student="")[:80])  # (ex.explanation is off in a graded kernel)
    assert not any("Solutions are off" in t for t in texts), eid  # the grep below would find nothing
    return [t for t in texts if t]


@pytest.mark.slow
def test_nbgrader_release_and_grading(nbgrader_env, tmp_path):
    """All five assignments released by nbgrader hold no solution; `nbgrader autograde` is switched off
    by the course's configuration (it would run students' code with the lecturer's rights); notebook
    05 with all its exercises (a predict, an implement and an explain among them) is graded by
    `python3 tasks.py grade`, each student against their own numbers."""
    course = tmp_path / "course"
    proc = _tasks("assignment", "all", "--out", str(course))  # the command a lecturer types
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    names = sorted(p.name for p in (course / "source").iterdir())
    assert len(names) == 5
    for name in names:
        _nbgrader(nbgrader_env, course, "generate_assignment", name, "--force")
    # the release holds no solution, and no paragraph that gives a graded prediction away
    for name in names:
        (release,) = (course / "release" / name).glob("*.ipynb")
        text = release.read_text(encoding="utf-8")
        for eid in ex.ids(name[:2]):
            for piece in _solution_texts(eid):
                assert json.dumps(piece)[1:-1] not in text, f"{name}: a solution of {eid} is in the release: {piece!r}"
        assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text
    assert "so every round is skipped" not in (course / "release" / names[4] / f"{names[4]}.ipynb").read_text()
    name = "05_adversarial_delays"
    (release,) = (course / "release" / name).glob("*.ipynb")
    nb = json.loads(release.read_text(encoding="utf-8"))
    for student, sub in [("alice", assignment.solved_submission(nb, "alice")), ("bob", nb),
                         ("carol", assignment.solved_submission(nb, "alice"))]:
        folder = course / "submitted" / student / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / release.name).write_text(json.dumps(sub, indent=1, ensure_ascii=False), encoding="utf-8")
    # nbgrader's own autograde is refused, and leaves no score
    env = {**os.environ, "PATH": f"{nbgrader_env / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    refused = subprocess.run([str(nbgrader_env / "bin" / "nbgrader"), "autograde", name, "--create"], cwd=course,
                             env=env, capture_output=True, text=True, timeout=600)
    assert "python3 tasks.py grade" in refused.stdout + refused.stderr, refused.stderr[-2000:]
    assert not (course / "autograded" / "alice" / name / release.name).exists()
    proc = _tasks("grade", name, "--course", str(course))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    print(proc.stdout[-1500:])
    auto = {f"{e.replace('.', '_')}-test": float(assignment.POINTS[ex.kind(e)])
            for e in ex.ids("05") if ex.kind(e) != "explain"}
    alice, bob, carol = (_scores(nbgrader_env, course, name, s) for s in ("alice", "bob", "carol"))
    assert {k: alice[k][0] for k in auto} == auto, alice
    assert alice["05_why-skip-answer"][0] is None  # the explain answer waits to be graded by hand
    assert not any(bob[k][0] for k in auto) and bob["05_why-skip-answer"][0] == 0, bob  # unanswered: 0
    for e in ex.ids("05"):
        if ex.kind(e) != "explain":
            key = f"{e.replace('.', '_')}-test"
            # graded against carol's numbers, not alice's: only what is the same for everyone passes
            assert carol[key][0] == (0.0 if ex.get(e).parameterised else auto[key]), (e, carol)
    # the lecturer grades alice's explain answer by hand and overrides one score; grading her again keeps
    # both, and the table shows them, with the other students' rows as they were
    code = ("from nbgrader.api import Gradebook\nwith Gradebook('sqlite:///gradebook.db') as gb:\n"
            f"    gb.find_grade('05_why-skip-answer', {name!r}, {name!r}, 'alice').manual_score = 1.5\n"
            f"    gb.find_grade('05_eta-test', {name!r}, {name!r}, 'alice').manual_score = 0.5\n"
            "    gb.db.commit()\n")
    assert subprocess.run([str(nbgrader_env / "bin" / "python"), "-c", code], cwd=course).returncode == 0
    before = (course / f"grades-{name}.csv").read_text(encoding="utf-8")
    again = _tasks("grade", name, "--course", str(course), "--student", "alice")
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    alice = _scores(nbgrader_env, course, name, "alice")
    assert alice["05_why-skip-answer"] == (None, 1.5) and alice["05_eta-test"] == (2.0, 0.5)
    with open(course / f"grades-{name}.csv", newline="", encoding="utf-8") as f:
        rows = {(r["student"], r["id"]): r for r in csv.DictReader(f)}
    assert (rows[("alice", "05.why-skip")]["points"], rows[("alice", "05.why-skip")]["reason"]) == ("1.5", "manual")
    assert rows[("alice", "05.eta")]["points"] == "0.5" and "set by hand" in rows[("alice", "05.eta")]["detail"]
    assert [ln for ln in before.splitlines() if not ln.startswith("alice,")] == [
        ln for ln in (course / f"grades-{name}.csv").read_text(encoding="utf-8").splitlines()
        if not ln.startswith("alice,")]


@pytest.mark.parametrize("nb_id", ["01", "02", "03", "04", "05"])
def test_no_prose_above_a_predict_question_gives_its_answer_away(nb_id):
    """Nothing above a predict question gives its answer (the brief): every markdown cell of the
    notebook before the question's own heading passes the release's give-away detector."""
    nb = _notebook(nb_id)
    texts = [_source(c) for c in nb["cells"] if c["cell_type"] == "markdown"]
    for e in (e for e in ex.ids(nb_id) if ex.kind(e) == "predict"):
        at = next(i for i, t in enumerate(texts) if t.startswith(f"### {ex.heading(e)}"))
        spoilers = [b[:200] for t in texts[:at] for b in assignment.giveaways(t, e)]
        assert not spoilers, (e, spoilers)
