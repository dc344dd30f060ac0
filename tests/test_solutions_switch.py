"""Which solutions a notebook shows: the students' setting, and the lecturer's on the dashboards
(issue 38, item 8; :mod:`delaylab.exercises.solutions`).

The lecture dashboards used to show the graded implement exercise's solution behind the hint
button unless started with ``DELAYLAB_SOLUTIONS=off``, which also took away the in-lecture
solution the guide's lecture plan uses (Exercise 1.1). Now the dashboards' server sets its
kernels' setting from its own option (default ``lecture``: the lectures' exercises, not the week's
graded homework), whatever the server's environment (the students' setting) says."""

from __future__ import annotations

import re
import urllib.request

import nbformat
import pytest
from hypothesis import given, settings, strategies as st
from traitlets import TraitError

from delaylab import exercises as ex
from delaylab.exercises import solutions
from delaylab.exercises import _core, ui
from delaylab.exercises.assignment import WEEKS, resolve
from delaylab.serve import app, cli, pools
from test_serve import _serve

GRADED = {e for week in WEEKS.values() for e in resolve(week)}


@pytest.fixture
def setting(monkeypatch):
    def set_(value):
        if value is None:
            monkeypatch.delenv(solutions.ENV, raising=False)
        else:
            monkeypatch.setenv(solutions.ENV, value)
    monkeypatch.setattr(_core, "_GRADED", [])
    return set_


def test_lecture_shows_every_exercise_but_the_graded_homework(setting):
    setting("lecture")
    shown = {e for e in ex.ids() if ui.solutions_shown(e)}
    assert shown == set(ex.ids()) - GRADED
    assert "01.n-tilde" in shown and "01.d-klucb-index" not in shown  # the lecture plan's 1.1; week 1's 1.4
    assert len(GRADED) == sum(len(w) for w in WEEKS.values()) == 14
    assert not ui.solutions_shown()  # "every solution": not under lecture
    assert ex.solution("01.d-klucb-index") == _core.solutions_off("01.d-klucb-index")
    assert "graded homework" in ex.solution_code("01.d-klucb-index")
    assert ex.solution("01.n-tilde") == pytest.approx(ex.solution("01.n-tilde", student=""))
    assert "def " not in ui.solution_html("01.d-klucb-index") and "graded homework" in ui.solution_html("01.d-klucb-index")
    assert "<pre" in ui.solution_html("01.n-tilde")


@pytest.mark.parametrize("value, expected", [
    (None, "all"), ("", "all"), ("on", "all"), ("ALL", "all"), (" off ", "none"), ("none", "none"),
    ("1.1, 01.window", {"01.n-tilde", "01.window"}), ("5.4", {"05.skipper-beta"})])
def test_each_setting_shows_what_it_says(setting, value, expected):
    setting(value)
    shown = {e for e in ex.ids() if ui.solutions_shown(e)}
    want = set(ex.ids()) if expected == "all" else set() if expected == "none" else expected
    assert shown == want
    assert ui.solutions_shown() == (expected == "all")


def test_a_graded_release_shows_none_whatever_the_setting(setting, monkeypatch):
    setting("all")
    monkeypatch.setattr(_core, "_GRADED", [True])
    assert not any(ui.solutions_shown(e) for e in ex.ids())
    assert ex.solution("01.n-tilde") == ui.SOLUTIONS_OFF


def test_a_setting_it_does_not_know_shows_nothing_and_says_why(setting):
    setting("1.1;1.3")
    assert not any(ui.solutions_shown(e) for e in ex.ids())
    assert "'1.1;1.3' is not a setting" in ex.solution("01.n-tilde")


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=12))
def test_check_accepts_the_settings_and_names_anything_else(value):
    try:
        normal = _core.solution_setting(value)
    except ValueError as exc:
        assert f"solutions={value!r}: not a setting" in str(exc) and "1.1, 1.2" in str(exc)
        return
    assert normal in ("all", "none", "lecture") or all(e in ex.ids() for e in normal.split(","))
    assert _core.solution_setting(normal) == normal


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(sorted(ex.ids())), min_size=1, max_size=5))
def test_a_list_of_exercises_round_trips(eids):
    assert _core.solution_setting(",".join(eids)).split(",") == list(dict.fromkeys(eids))


def test_the_dashboards_server_sets_its_kernels_setting_and_refuses_a_bad_one():
    manager = pools.DashboardKernelSpecManager(solutions="lecture", cache_folder="")
    assert manager.kernel_env()["DELAYLAB_SOLUTIONS"] == "lecture"
    assert "DELAYLAB_SOLUTIONS" not in pools.DashboardKernelSpecManager(cache_folder="").kernel_env()  # the extension's: the student's
    assert app.DashboardServer(solutions="1.1,5.4").solutions == "01.n-tilde,05.skipper-beta"
    assert app.DashboardServer().solutions == "lecture"
    with pytest.raises(TraitError, match=r"DashboardServer\.solutions='everything': not a setting"):
        app.DashboardServer(solutions="everything")
    assert "--DashboardServer.solutions=none" in cli.command_line(["nb", "--solutions", "none"])
    assert "--DashboardServer.solutions=1.1" in cli.command_line(["nb", "--solutions=1.1"])


def test_the_lecture_dashboards_keep_their_solutions_when_the_students_are_off(tmp_path, monkeypatch):
    """A real dashboards' server started where ``DELAYLAB_SOLUTIONS=off`` (a hub's setting for the
    students' servers): its page still shows Exercise 1.1's solution, and not Exercise 1.4's."""
    monkeypatch.setenv("DELAYLAB_SOLUTIONS", "off")
    folder = tmp_path / "notebooks"
    folder.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "from delaylab import exercises as ex\nfrom delaylab.exercises.ui import solutions_shown\n"
        "print('SHOWN=' + '+'.join(e for e in ('01.n-tilde', '01.d-klucb-index', '05.skipper-beta') if solutions_shown(e)) + '=')\n"
        "print('CODE=' + ex.solution_code('01.d-klucb-index')[:40])")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / "which.ipynb")
    serving = _serve(folder, tmp_path)
    url, log = next(serving)
    try:
        page = urllib.request.urlopen(url + "/voila/render/which.ipynb", timeout=300).read().decode()
    finally:
        serving.close()
    shown = re.search(r"SHOWN=([\w.+-]*)=", page)
    assert shown and shown.group(1) == "01.n-tilde+05.skipper-beta", (shown, log.read_text()[-2000:])
    assert "CODE=This exercise is graded homework" in page
