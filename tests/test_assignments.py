"""Graded assignments (python3 tasks.py assignment): the nbgrader course folder, a release with no
solution in it, and autograding that gives full points to a solved submission, none to an
unanswered one, and grades each student against their own numbers.

The end-to-end test installs nbgrader from PyPI into a throwaway virtual environment (never into
the workbook's .venv: the launch command must not carry nbgrader's JupyterLab extensions), with
delaylab from this checkout, and runs nbgrader's own command line.
"""

from __future__ import annotations

import json
import os
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
NBGRADER = "nbgrader==0.9.*"


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
            assert "### BEGIN HIDDEN TESTS" in _source(test_cell) and f'ex.autograde("{eid}"' in _source(test_cell)
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


def test_autograding_grades_the_owner_of_the_submission(monkeypatch, tmp_path):
    """nbgrader runs a submission in autograded/<student>/<assignment>/: that student's numbers count,
    not the id the notebook's ex.start cell names."""
    from delaylab.exercises import instance

    folder = tmp_path / "autograded" / "carol" / "01_delayed_conversions"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    ex.start("alice", graded=True)
    try:
        assert instance.grading_student() == "carol" and instance.current() == "carol"
        assert ex.autograde("01.n-tilde", _answer("01.n-tilde", "carol")) == "01.n-tilde: right"
        with pytest.raises(AssertionError, match="01.n-tilde"):
            ex.autograde("01.n-tilde", _answer("01.n-tilde", "alice"))
    finally:
        from delaylab.exercises import _core

        _core._GRADED.clear()
        monkeypatch.delenv("NBGRADER_EXECUTION")
        ex.start("")


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
    proc = _tasks("assignment", "02", "4", "--out", "course", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = tmp_path / "course"
    assert (out / "nbgrader_config.py").exists()
    assert sorted(p.name for p in (out / "source").iterdir()) == ["02_arm_dependent_delays", "04_aggregated_anonymous"]
    assert f"wrote {out / 'source'}" in proc.stdout
    bad = _tasks("assignment", "07", "--out", str(out))
    assert bad.returncode != 0 and "no paper notebook '07'" in bad.stderr and "Traceback" not in bad.stderr


# ------------------------------------------------------------- nbgrader itself, in a throwaway environment
@pytest.fixture(scope="module")
def nbgrader_env(tmp_path_factory):
    """A virtual environment with nbgrader from PyPI and delaylab from this checkout (editable)."""
    venv = tmp_path_factory.mktemp("nbgrader-env") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    proc = subprocess.run([*pip, NBGRADER, "-e", str(ROOT)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return venv


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
    code = ("import json, sys\nfrom nbgrader.api import Gradebook\n"
            "with Gradebook('sqlite:///gradebook.db') as gb:\n"
            f"    s = gb.find_submission({name!r}, {student!r})\n"
            "    print(json.dumps({g.name: g.auto_score for n in s.notebooks for g in n.grades}))\n")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=course, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


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
def test_nbgrader_release_and_autograde(nbgrader_env, tmp_path):
    course = tmp_path / "course"
    proc = _tasks("assignment", "all", "--out", str(course))  # the command a lecturer types
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    names = sorted(p.name for p in (course / "source").iterdir())
    assert len(names) == 5
    for name in names:
        _nbgrader(nbgrader_env, course, "generate_assignment", name, "--force")
    # the release holds no solution
    for name in names:
        (release,) = (course / "release" / name).glob("*.ipynb")
        text = release.read_text(encoding="utf-8")
        for eid in ex.ids(name[:2]):
            for piece in _solution_texts(eid):
                assert json.dumps(piece)[1:-1] not in text, f"{name}: a solution of {eid} is in the release: {piece!r}"
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    # submissions: alice solves (her own numbers), bob leaves everything, carol copies alice's notebook
    for name in ("01_delayed_conversions", "05_adversarial_delays"):
        (release,) = (course / "release" / name).glob("*.ipynb")
        nb = json.loads(release.read_text(encoding="utf-8"))
        for student, sub in [("alice", assignment.solved_submission(nb, "alice")), ("bob", nb),
                             ("carol", assignment.solved_submission(nb, "alice"))]:
            folder = course / "submitted" / student / name
            folder.mkdir(parents=True, exist_ok=True)
            (folder / release.name).write_text(json.dumps(sub, indent=1, ensure_ascii=False), encoding="utf-8")
        _nbgrader(nbgrader_env, course, "autograde", name, "--create", "--force")
        full = {f"{e.replace('.', '_')}-test": float(assignment.POINTS[ex.kind(e)])
                for e in ex.ids(name[:2]) if ex.kind(e) != "explain"}
        alice, bob, carol = (_scores(nbgrader_env, course, name, s) for s in ("alice", "bob", "carol"))
        assert {k: v for k, v in alice.items() if k in full} == full, alice
        assert not any(bob[k] for k in full), bob
        for e in ex.ids(name[:2]):
            key = f"{e.replace('.', '_')}-test"
            if ex.get(e).parameterised:
                assert carol[key] == 0.0, (e, carol)  # graded against carol's numbers, not alice's
        print(f"{name}: alice {sum(alice[k] for k in full)}/{sum(full.values())}, bob "
              f"{sum(bob[k] or 0 for k in full)}, carol (alice's notebook) {sum(carol[k] or 0 for k in full)}")
