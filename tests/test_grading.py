"""Grading that student code cannot touch (delaylab/grading; ``python3 tasks.py grade``).

The end-to-end test grades, with real nbgrader, real kernels and the real sandbox (bubblewrap, an
unprivileged user, no network), a course of nine submissions of the week-1 homework (Exercises
1.2, 1.4, 1.5): solved; half-solved; blank; copied from another student; one that attacks the
gradebook, the course's configuration, another submission and the network; one that monkeypatches
delaylab and calls its solutions; one with os._exit, an infinite loop and a huge print; one correct
but noisy on stderr; one that typed another id. Each must get exactly the points it earned, with
the reason for each lost point, and no submission may change anything outside its sandbox.

The other tests here are fast: the sandbox's refusal and its check as an unprivileged user without
root, the function worker, the judge on data, the typed-id note, the graded-mode implement check.
"""

from __future__ import annotations

import csv
import hashlib
import html
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from delaylab import exercises as ex
from delaylab.exercises import assignment
from delaylab.exercises import _core
from delaylab.exercises._core import reference_code
from delaylab.grading import function_worker as fw
from delaylab.grading import sandbox as sb
from delaylab.grading.judge import judge
from delaylab.grading.run import CellRun

ROOT = Path(__file__).resolve().parent.parent
WEEK = "week1"
NOTEBOOK = "01_delayed_conversions"
EIDS = ["01.pending", "01.d-klucb-index", "01.lower-bound"]  # Exercises 1.2, 1.4, 1.5
POINTS = {"01.pending": 3.0, "01.d-klucb-index": 3.0, "01.lower-bound": 2.0}

#: a long student id (the kernel's socket paths must still fit)
IVAN = "ivan.petrov-2026-matriculation-number-0042"
#: what each submission earned: exercise -> reason (the points follow)
EXPECTED = {
    "alice": {"01.pending": "right", "01.d-klucb-index": "right", "01.lower-bound": "right"},
    "bob": {"01.pending": "right", "01.d-klucb-index": "missing", "01.lower-bound": "wrong"},  # half-solved
    "carol": {"01.pending": "missing", "01.d-klucb-index": "missing", "01.lower-bound": "missing"},  # blank
    "dave": {"01.pending": "wrong", "01.d-klucb-index": "right", "01.lower-bound": "wrong"},  # alice's notebook
    "eve": {"01.pending": "right", "01.d-klucb-index": "right", "01.lower-bound": "right"},  # attacks, answers right
    "frank": {"01.pending": "error", "01.d-klucb-index": "error", "01.lower-bound": "wrong"},  # calls solutions
    "grace": {"01.pending": "right", "01.d-klucb-index": "timeout", "01.lower-bound": "right"},  # exit, loop, print
    "heidi": {"01.pending": "right", "01.d-klucb-index": "right", "01.lower-bound": "right"},  # warnings
    IVAN: {"01.pending": "right", "01.d-klucb-index": "right", "01.lower-bound": "right"},  # typed "Ivan Petrov"
}
#: the run's limits, and the time it must finish in (it takes about 2 minutes on a quiet 2-core machine)
CELL_TIMEOUT, SUBMISSION_TIMEOUT, STATED_SECONDS = 20, 300, 600


def _tasks(*args, cwd=ROOT, timeout=1800):
    python = shutil.which("python3") or sys.executable
    return subprocess.run([python, str(ROOT / "tasks.py"), *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout)


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _answer_cell(nb, eid):
    for cell in nb["cells"]:
        ours = cell["metadata"].get("delaylab", {})
        if ours.get("exercise") == eid and ours.get("role") == "answer" and "nbgrader" in cell["metadata"]:
            return cell
    raise AssertionError(f"no answer cell of {eid}")


def _insert_after(nb, cell, source):
    """A cell of the student's own, right after ``cell``."""
    i = nb["cells"].index(cell)
    nb["cells"].insert(i + 1, {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                               "source": source})


def _start(nb, typed):
    for cell in nb["cells"]:
        if cell["metadata"].get("delaylab", {}).get("role") == "start":
            cell["source"] = f'ex.start("{typed}", graded=True)\n'


def _submissions(release, course: Path, port: int, marker: Path) -> dict:
    solved = assignment.solved_submission
    subs = {"alice": solved(release, "alice"), "carol": json.loads(json.dumps(release)),
            "dave": solved(release, "alice"), "eve": solved(release, "eve"), "heidi": solved(release, "heidi")}
    bob = solved(release, "bob")
    _answer_cell(bob, "01.d-klucb-index")["source"] = ex.get("01.d-klucb-index").stub
    _answer_cell(bob, "01.lower-bound")["source"] = f"slope_c = {ex.wrong_answers('01.lower-bound', 'bob')[0]!r}\n"
    subs["bob"] = bob
    # eve answers right, and attacks everything she can name (each attack a cell of its own)
    eve = subs["eve"]
    start = next(c for c in eve["cells"] if c["metadata"].get("delaylab", {}).get("role") == "start")
    attacks = [
        'import sqlite3\nfor path in ["../../../gradebook.db", "../../gradebook.db", %r]:\n'
        '    try:\n        con = sqlite3.connect(path)\n'
        '        con.execute("update grade set auto_score = 99, manual_score = 0"); con.commit()\n'
        '    except Exception as exc:\n        print(path, exc)\n' % str(course / "gradebook.db"),
        'for path in ["../../../nbgrader_config.py", %r]:\n    try:\n'
        '        open(path, "a").write("\\nc.CourseDirectory.course_id = \'owned\'\\n")\n'
        '    except Exception as exc:\n        print(path, exc)\n' % str(course / "nbgrader_config.py"),
        'open(%r, "w").write("{}")' % str(course / "submitted" / "alice" / WEEK / f"{NOTEBOOK}.ipynb"),
        'import socket\ns = socket.create_connection(("127.0.0.1", %d), timeout=3)\ns.sendall(b"leak")' % port,
        'import os\nos.system("touch %s")\nopen(%r, "w").write("escaped")' % (marker, str(marker)),
        'import os, signal\nfor pid in range(2, 400):\n    try:\n        os.kill(pid, signal.SIGKILL)\n'
        '    except Exception:\n        pass\nprint("still here")',
    ]
    for attack in reversed(attacks):
        _insert_after(eve, start, attack)
    # frank calls the solutions and replaces delaylab's objects
    frank = solved(release, "frank")
    _insert_after(frank, next(c for c in frank["cells"] if c["metadata"].get("delaylab", {}).get("role") == "start"),
                  'import os\nos.environ["NBGRADER_EXECUTION"] = ""\nos.environ["DELAYLAB_SOLUTIONS"] = "on"\n'
                  'import delaylab.exercises as e\ne.autograde = lambda *a, **k: "right"\n'
                  'e.check = lambda *a, **k: True\n')
    _answer_cell(frank, "01.pending")["source"] = 'pending = ex.get("01.pending").solution(ex.params("01.pending"))\n'
    _answer_cell(frank, "01.d-klucb-index")["source"] = "from delaylab.exercises.p01 import d_klucb_index\n"
    _answer_cell(frank, "01.lower-bound")["source"] = 'slope_c = ex.solution("01.lower-bound")\n'
    subs["frank"] = frank
    # grace: a 30 MB print, an endless answer cell, and os._exit in a cell of her own
    grace = solved(release, "grace")
    _insert_after(grace, _answer_cell(grace, "01.pending"), 'print("x" * 30_000_000)')
    cell = _answer_cell(grace, "01.d-klucb-index")
    cell["source"] = _source(cell) + "\nwhile True:\n    pass\n"
    _insert_after(grace, cell, "import os\nos._exit(3)")
    subs["grace"] = grace
    # heidi: right, with warnings and text on stderr, in her cells and inside her function
    heidi = subs["heidi"]
    for eid in ("01.pending", "01.lower-bound"):
        cell = _answer_cell(heidi, eid)
        cell["source"] = ('import sys, warnings\nwarnings.warn("heidi checks " + %r)\nprint("a note", file=sys.stderr)\n'
                          'np.log(np.zeros(1))\n' % eid) + _source(cell)
    cell = _answer_cell(heidi, "01.d-klucb-index")
    head, body = reference_code("01.d-klucb-index", student="heidi").split("\n", 1)
    cell["source"] = (f"import warnings\n{head}\n    warnings.warn('my index runs')\n    np.log(np.zeros(1))\n{body}")
    # ivan, on the hub under his long id, typed his name: the notebook used his id's numbers (the hub's user)
    ivan = solved(release, IVAN)
    _start(ivan, "Ivan Petrov")
    subs[IVAN] = ivan
    return subs


def _digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _gradebook(venv_python: Path, course: Path) -> dict:
    code = ("import json\nfrom nbgrader.api import Gradebook\n"
            "out = {'students': [], 'grades': {}, 'cells': {}}\n"
            "with Gradebook('sqlite:///gradebook.db', course_id='delaylab') as gb:\n"
            "    out['students'] = sorted(s.id for s in gb.students)\n"
            f"    a = gb.find_assignment({WEEK!r})\n"
            "    out['cells'] = {c.name: c.max_score for n in a.notebooks for c in n.grade_cells}\n"
            "    for s in a.submissions:\n"
            "        out['grades'][s.student.id] = {g.name: [g.auto_score, g.manual_score] for n in s.notebooks "
            "for g in n.grades}\n"
            "print(json.dumps(out))\n")
    proc = subprocess.run([str(venv_python), "-c", code], cwd=course, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.mark.slow
def test_grading_a_course_no_submission_can_touch(tmp_path):
    if os.geteuid() != 0 and shutil.which("bwrap") is None:
        pytest.fail("the grading test needs bubblewrap (python3 tasks.py test installs it as root): "
                    + sb.INSTALL_HINT)
    setup = _tasks("grade", "--setup")
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-2000:]
    venv_python = Path(setup.stdout.strip().splitlines()[-1])
    course = tmp_path / "course"
    made = _tasks("assignment", WEEK, "--out", str(course))
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    generated = _tasks("nbgrader", "generate_assignment", WEEK, "--course", str(course))
    assert generated.returncode == 0, generated.stdout[-2000:] + generated.stderr[-2000:]
    release = json.loads((course / "release" / WEEK / f"{NOTEBOOK}.ipynb").read_text(encoding="utf-8"))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.setblocking(False)
    marker = Path(tempfile.gettempdir()) / f"delaylab-escaped-{os.getpid()}"
    marker.unlink(missing_ok=True)
    for student, nb in _submissions(release, course, listener.getsockname()[1], marker).items():
        folder = course / "submitted" / student / WEEK
        folder.mkdir(parents=True)
        (folder / f"{NOTEBOOK}.ipynb").write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")
        (folder / "timestamp.txt").write_text("2026-11-27 10:00:00.000000 UTC")
    config = (course / "nbgrader_config.py").read_bytes()
    before = {name: _digest(course / name) for name in ("source", "release", "submitted")}

    t0 = time.monotonic()
    graded = _tasks("grade", WEEK, "--course", str(course), "--cell-timeout", str(CELL_TIMEOUT),
                    "--timeout", str(SUBMISSION_TIMEOUT))
    took = time.monotonic() - t0
    print(graded.stdout[-4000:])
    print(f"graded {len(EXPECTED)} submissions in {took:.0f} s (stated bound {STATED_SECONDS} s; load average "
          f"{os.getloadavg()[0]:.1f})")
    assert graded.returncode == 0, graded.stdout[-3000:] + graded.stderr[-3000:]
    assert took < STATED_SECONDS
    assert "Traceback" not in graded.stdout + graded.stderr and "Warning" not in graded.stderr, graded.stderr[-2000:]

    # exactly the points each earned, in the gradebook and in the table, with the reason for each lost point
    book = _gradebook(venv_python, course)
    assert book["students"] == sorted(EXPECTED)
    assert book["cells"] == {f"{e.replace('.', '_')}-test": POINTS[e] for e in EIDS}
    with open(course / f"grades-{WEEK}.csv", newline="", encoding="utf-8") as f:
        rows = {(r["student"], r["id"]): r for r in csv.DictReader(f)}
    assert len(rows) == len(EXPECTED) * len(EIDS)
    for student, reasons in EXPECTED.items():
        for eid, reason in reasons.items():
            want = POINTS[eid] if reason == "right" else 0.0
            assert book["grades"][student][f"{eid.replace('.', '_')}-test"] == [want, None], (student, eid)
            row = rows[(student, eid)]
            assert (row["reason"], float(row["points"])) == (reason, want), (student, eid, row)
            assert row["detail"] and "\n" not in row["detail"] and "Traceback" not in row["detail"]
    assert "“alice”" in rows[("dave", "01.pending")]["detail"]  # the copy is right for the id it typed
    assert "ModuleNotFoundError" in rows[("frank", "01.d-klucb-index")]["detail"]
    assert "AttributeError" in rows[("frank", "01.pending")]["detail"]
    assert "Solutions are off" in rows[("frank", "01.lower-bound")]["detail"]
    assert "20 s" in rows[("grace", "01.d-klucb-index")]["detail"]
    assert "is not it" in rows[("bob", "01.lower-bound")]["detail"]  # the misconception named

    # nothing outside the sandboxes changed
    assert (course / "nbgrader_config.py").read_bytes() == config
    for name, digest in before.items():
        assert _digest(course / name) == digest, name
    assert not marker.exists()
    with pytest.raises(BlockingIOError):
        listener.accept()  # no connection ever reached the host
    listener.close()

    # what a student reads back: formulas as MathML, their own numbers, a one-line reason, nothing from a CDN
    for student in EXPECTED:
        page = (course / "feedback" / student / WEEK / f"{NOTEBOOK}.html").read_text(encoding="utf-8")
        assert "<math" in page and "<script" not in page and "Traceback" not in page
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page), student
        assert html.escape(ex.given_text("01.pending", student=student)) in page
        assert (course / "feedback" / student / WEEK / "timestamp.txt").is_file()
        assert (course / "autograded" / student / WEEK / f"{NOTEBOOK}.ipynb").is_file()
    assert "Ivan Petrov" in (course / "feedback" / IVAN / WEEK / f"{NOTEBOOK}.html").read_text(encoding="utf-8")
    autograded = (course / "autograded" / "grace" / WEEK / f"{NOTEBOOK}.ipynb").stat().st_size
    assert autograded < 2_000_000, autograded  # the 30 MB print was cut


# ------------------------------------------------------------------ the sandbox
def test_no_bubblewrap_is_a_refusal_that_says_what_to_install(monkeypatch):
    monkeypatch.setattr(sb.shutil, "which", lambda name: None)
    with pytest.raises(sb.Unavailable, match="install bubblewrap.*apt-get install bubblewrap.*Nothing was graded"):
        sb.Sandbox.for_this_machine()


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None or not Path("/usr/bin/python3").exists(),
                    reason="needs root (to become an unprivileged user), bubblewrap and /usr/bin/python3")
def test_the_sandbox_works_for_a_lecturer_without_root(tmp_path):
    """A lecturer's laptop: no root, so no dedicated user — bubblewrap's user namespace, with the same
    check (no network, only its own folder writable, not root). Run as the user nobody, with the
    system's Python (the module uses only the standard library)."""
    folder = Path(tempfile.mkdtemp(prefix="dlg-test-"))
    try:
        os.chmod(folder, 0o755)
        shutil.copyfile(sb.__file__, folder / "sandbox.py")
        os.chmod(folder / "sandbox.py", 0o644)
        proc = subprocess.run(["runuser", "-u", "nobody", "--", "/usr/bin/python3", str(folder / "sandbox.py"),
                               "--check"], capture_output=True, text=True, timeout=120, cwd=folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr
    assert "in a user namespace without capabilities" in proc.stdout and "checked" in proc.stdout


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_a_sandboxed_process_is_confined(tmp_path):
    """Whoever runs it: not root, no network (not even the host's loopback), only its own folder
    writable, limits in force, and nothing of the grader's folders visible."""
    box = sb.Sandbox.for_this_machine()
    base = Path(tempfile.mkdtemp(prefix="dlg-test-"))
    secret = tmp_path / "gradebook.db"
    secret.write_text("grades")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    code = f"""
import os, resource, socket
out = []
out.append(os.getuid() != 0)
out.append(not os.path.exists({str(secret)!r}))
try:
    socket.create_connection(("127.0.0.1", {listener.getsockname()[1]}), timeout=2); out.append(False)
except OSError:
    out.append(True)
open("mine.txt", "w").write("ok"); out.append(True)
try:
    open({str(sb.__file__)!r} + ".x", "w"); out.append(False)
except OSError:
    out.append(True)
out.append(resource.getrlimit(resource.RLIMIT_AS)[0] == {256 << 20})
try:
    bytearray(400 << 20); out.append(False)
except MemoryError:
    out.append(True)
print(out)
"""
    try:
        box.limits = sb.Limits(memory=256 << 20)
        work = box.folder(base / "w")
        done = box.run([box.python, "-I", "-c", code], workdir=work, timeout=60)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str([True] * 7), done.stdout
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()


def test_a_submission_that_fills_the_disk_is_seen(tmp_path):
    from delaylab.grading import run

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "big").write_bytes(b"x" * 5000)
    (tmp_path / "small").write_bytes(b"x" * 10)
    assert run.disk_usage(tmp_path) == 5010
    for i in range(5):
        (tmp_path / f"f{i}").touch()
    assert run.disk_usage(tmp_path, most=4) > run.DISK_LIMIT  # too many files to count: as bad as too many bytes


# ------------------------------------------------------------------ implement answers, from their cell
def test_an_implement_answer_is_rebuilt_from_its_own_cell():
    fn = fw.build("import math\ndef f(x):\n    return np.sqrt(x) + math.pi\n", "f")
    assert fn(np.array([4.0]))[0] == pytest.approx(2 + np.pi)
    for source, message in [("def g(x):\n    return x\n", "does not define f"),
                            ("f = 3\n", "should be a function"),
                            ("def f(x)\n    return x\n", "syntax error on line 1"),
                            ("from delaylab.indices import klucb_poisson as f\n", "delaylab is not available"),
                            ("import delaylab.exercises.p01\ndef f(x):\n    return x\n", "delaylab is not available")]:
        with pytest.raises(fw.BuildError, match=message):
            fw.build(source, "f")
    # a helper of another cell is not there when the function is called
    g = fw.build("def f(x):\n    return helper(x)\n", "f")
    with pytest.raises(NameError):
        g(1.0)


def test_values_cross_the_pipe_as_data_never_as_pickles():
    for value in (np.arange(6.0).reshape(2, 3), np.array([True, False]), 2.5, 7, None, Ellipsis, np.array(["a"])):
        back = fw.decode(json.loads(json.dumps(fw.encode(value))))
        if isinstance(value, np.ndarray):
            assert back.dtype == value.dtype and np.array_equal(back, value)
        else:
            assert back is value or back == value
    odd = fw.decode(json.loads(json.dumps(fw.encode(object()))))
    assert type(odd).__name__ == "object" and repr(odd).startswith("<object object")
    assert "pickle" not in json.dumps(fw.encode(np.array([{"a": 1}], dtype=object)))


def test_in_a_graded_release_the_check_cell_checks_the_function_as_the_grader_will(monkeypatch):
    """A function that calls a helper of another cell passes in the student's kernel, but the grader
    rebuilds it from its own cell: in a graded release the check cell says so, before the deadline."""
    from delaylab.exercises import ui

    monkeypatch.setattr(_core, "_GRADED", [True])
    helper_source = "def d_klucb_index(theta_hat, N_tilde, beta):\n    return helper(theta_hat, N_tilde, beta)\n"
    fb = ui.as_graded("01.d-klucb-index", helper_source)
    fn = fb if callable(fb) else None
    assert fn is not None
    checked = ex.check("01.d-klucb-index", fn)
    assert not checked.correct and "NameError" in checked.message and "helper" in checked.message
    assert ui.as_graded("01.d-klucb-index", "from delaylab.indices import klucb_poisson as d_klucb_index\n"
                        ).message.startswith("Delaylab is not available")
    right = ui.as_graded("01.d-klucb-index", reference_code("01.d-klucb-index", student=""))
    assert ex.check("01.d-klucb-index", right).correct


# ------------------------------------------------------------------ the judge, on data
def _ok(value):
    kind = "float" if isinstance(value, float) else "str"
    return CellRun("ok", probes={"answer": {"status": "ok", "kind": kind, "value": value}})


def _judge(eid, run, student="carol", typed=None):
    return judge(eid, cell=run, probe=run.probes.get("answer") if run else None, source="", student=student,
                 typed=typed, functions=None, max_points=2.0)


def test_the_judge_gives_points_for_the_graders_student_and_says_why_not():
    right = ex.get("01.lower-bound").solution(ex.params("01.lower-bound", "carol"))
    alices = ex.get("01.lower-bound").solution(ex.params("01.lower-bound", "alice"))
    v = _judge("01.lower-bound", _ok(right))
    assert (v.points, v.reason) == (2.0, "right")
    v = _judge("01.lower-bound", _ok(alices), typed="alice")
    assert (v.points, v.reason) == (0.0, "wrong") and "“alice”" in v.message and "carol" in v.message
    v = _judge("01.lower-bound", _ok(alices), typed="carol")
    assert v.reason == "wrong" and "“" not in v.message.split(".")[0]
    v = _judge("01.lower-bound", _ok("2.4"))
    assert v.reason == "wrong" and "text" in v.message
    cases = [(None, "missing", "not in the notebook"),
             (CellRun("ok", probes={"answer": {"status": "ellipsis"}}), "missing", "Not answered"),
             (CellRun("ok", probes={"answer": {"status": "missing"}}), "missing", "did not set slope_c"),
             (CellRun("error", "ZeroDivisionError: division by zero"), "error", "raised ZeroDivisionError"),
             (CellRun("timeout", "stopped after its time limit of 20 s"), "timeout", "20 s"),
             (CellRun("stuck", "still running"), "timeout", "still running"),
             (CellRun("skipped", "the kernel ended while this cell ran"), "error", "kernel ended"),
             (CellRun("ok", probes={"answer": None}), "error", "could not be read")]
    for run, reason, words in cases:
        v = _judge("01.lower-bound", run)
        assert (v.points, v.reason) == (0.0, reason) and words in v.message, (run, v)
    v = _judge("01.window", _ok("discarding-grows"))
    assert v.reason == "right" and "Discarding KL-UCB's grows" in v.answer


# ------------------------------------------------------------------ the id typed in a graded release
def test_on_a_hub_a_graded_release_uses_the_hub_user_and_says_so(monkeypatch):
    from delaylab.exercises import instance

    monkeypatch.setattr(_core, "_GRADED", [])
    monkeypatch.setenv("JUPYTERHUB_USER", "frank")
    try:
        started = ex.start("Frank Smith", graded=True)
        assert instance.current() == "frank"
        assert "you typed <b>frank smith</b>" in started.html() and "logged in as <b>frank</b>" in started.html()
        assert ex.given_text("01.pending") == ex.given_text("01.pending", student="frank")
        assert "you typed" not in ex.start("frank", graded=True).html()
        assert "you typed" not in ex.start("", graded=True).html()
        monkeypatch.delenv("JUPYTERHUB_USER")
        assert "you typed" not in ex.start("Frank Smith", graded=True).html()  # no hub: the typed id is used
        assert instance.current() == "frank smith"
    finally:
        _core._GRADED.clear()
        ex.start("")
