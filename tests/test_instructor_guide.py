"""The instructor's guide (docs/instructor.md) against what it describes.

For every paper notebook the guide must have objectives tied to the exercises that test them, a
textbook map of every numbered section citing both books, a lecture plan timed to 90 minutes (and
a 60-minute cut), the misconceptions the checks diagnose, and the exercise table. Everything it
cites must exist: each exercise with its registry kind, difficulty and minutes, each exercise
number and its heading in the notebook, each notebook section (§N) and its title, each control of
a live panel (⟦label⟧) with the values and options it is moved to, each textbook chapter. So the
guide fails the day an exercise is added, retimed or renumbered, a section or a control renamed.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest

from delaylab import exercises as ex

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "instructor.md"
NOTEBOOKS = {"01": "01_delayed_conversions.ipynb", "02": "02_arm_dependent_delays.ipynb",
             "03": "03_linear_delayed.ipynb", "04": "04_aggregated_anonymous.ipynb",
             "05": "05_adversarial_delays.ipynb"}
#: The live panels each notebook builds (checked against the notebook's code below).
PANELS = {"01": [("delaylab.panels.conversions", "ConversionsPanel")],
          "02": [("delaylab.panels.arm_delays", "ArmDelaysPanel")],
          "03": [("delaylab.panels.linear", "LinearPanel"), ("delaylab.panels.linear", "EllipsePanel")],
          "04": [("delaylab.panels.anonymous", "AnonymousPanel")],
          "05": [("delaylab.panels.adversarial", "AdversarialPanel")]}
#: The chapters the guide may cite, as the two books title them (a second statement of the list).
LS = {2: "Foundations of probability", 4: "Stochastic bandits", 5: "Concentration of measure",
      6: "The explore-then-commit algorithm", 7: "The upper confidence bound algorithm",
      8: "The upper confidence bound algorithm: asymptotic optimality",
      9: "The upper confidence bound algorithm: minimax optimality",
      10: "The upper confidence bound algorithm: Bernoulli noise", 11: "The Exp3 algorithm",
      15: "Minimax lower bounds", 16: "Instance-dependent lower bounds", 18: "Contextual bandits",
      19: "Stochastic linear bandits", 20: "Confidence bounds for least squares estimators",
      22: "Stochastic linear bandits for finitely many arms", 36: "Thompson sampling"}
SLIVKINS = {1: "Stochastic bandits", 2: "Lower bounds", 3: "Bayesian bandits and Thompson sampling",
            5: "Full feedback and adversarial costs", 6: "Adversarial bandits", 8: "Contextual bandits"}
SUBSECTIONS = ("### Learning objectives", "### Prerequisites", "### Textbook map", "### A 90-minute lecture",
               "### Misconceptions the checks diagnose", "### Exercises: lecture or homework, and time")
TIERS = ("common", "occasional", "rare")
EXERCISE_CITE = re.compile(r"Exercises?\s+(\d\.\d+(?:\s*(?:,|and|or|–)\s*\d\.\d+)*)")
NUMBER = re.compile(r"\d\.\d+")
SECTION_CITE = re.compile(r"(?:\b(0\d) )?§(\d+)(?:–§(\d+))?")
CONTROL = re.compile(r"⟦([^⟧]+)⟧(?:\s+(-?\d+(?:\.\d+)?)\s*→\s*(-?\d+(?:\.\d+)?)"
                     r"|\s*→\s*(?:“([^”]+)”|(-?\d+(?:\.\d+)?)))?")


# ------------------------------------------------------------------ reading the guide
@functools.lru_cache(maxsize=None)
def guide() -> str:
    assert GUIDE.exists(), "docs/instructor.md is missing"
    return GUIDE.read_text(encoding="utf-8")


def _split(text: str, level: str) -> list[tuple[str, str]]:
    """(heading line, body) for every heading of exactly this level ("## " or "### ")."""
    pieces, head, body = [], None, []
    for line in text.splitlines():
        if line.startswith(level) and not line.startswith(level.strip() + "#"):
            if head is not None:
                pieces.append((head, "\n".join(body)))
            head, body = line, []
        elif head is not None:
            body.append(line)
    if head is not None:
        pieces.append((head, "\n".join(body)))
    return pieces


@functools.lru_cache(maxsize=None)
def parts() -> dict[str, str]:
    """The guide's part for each notebook ("## Notebook 01 · …" up to the next "## ")."""
    out = {}
    for head, body in _split(guide(), "## "):
        m = re.match(r"## Notebook (\d\d) · ", head)
        if m:
            out[m.group(1)] = body
    return out


def general_text() -> str:
    """The guide outside the notebooks' parts: its opening and every other "## " section."""
    opening = guide().split("\n## ", 1)[0]
    return "\n".join([opening] + [f"{h}\n{b}" for h, b in _split(guide(), "## ") if not h.startswith("## Notebook ")])


def subsection(nb: str, heading: str) -> str:
    for head, body in _split(parts()[nb], "### "):
        if head == heading:
            return body
    raise AssertionError(f"notebook {nb}: no '{heading}' in the guide")


def rows(text: str) -> list[list[str]]:
    """The body rows of the Markdown tables in ``text`` (cells split on unescaped pipes)."""
    out, header = [], True
    for line in text.splitlines():
        if not line.startswith("|"):
            header = True
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if all(set(c) <= set("-: ") for c in cells):
            continue
        if header:  # the first row of a table is its header
            header = False
            continue
        out.append(cells)
    return out


def bullets(text: str) -> list[str]:
    items = []
    for line in text.splitlines():
        if line.startswith("- "):
            items.append(line[2:])
        elif items and line.startswith("  "):
            items[-1] += " " + line.strip()
    return items


def without_code(text: str) -> str:
    return re.sub(r"`[^`]*`", "", text)


def cited_exercises(text: str) -> list[str]:
    return [n for m in EXERCISE_CITE.finditer(text) for n in NUMBER.findall(m.group(1))]


# ------------------------------------------------------------------ what the guide describes
def number(eid: str) -> str:
    """The exercise's number as its heading says ("1.4")."""
    m = re.match(r"✎ Exercise (\d\.\d+) ", ex.heading(eid))
    assert m, ex.heading(eid)
    return m.group(1)


def by_number() -> dict[str, str]:
    return {number(e): e for e in ex.ids()}


@functools.lru_cache(maxsize=None)
def notebook(nb: str) -> dict:
    return json.loads((ROOT / "notebooks" / NOTEBOOKS[nb]).read_text(encoding="utf-8"))


def markdown(nb: str) -> str:
    return "\n".join("".join(c["source"]) for c in notebook(nb)["cells"] if c["cell_type"] == "markdown")


def sections(nb: str) -> dict[int, str]:
    """The notebook's numbered sections, wherever their heading sits in a cell: number → title."""
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^## (\d+)\. (.+)$", markdown(nb), re.M)}


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{4,}", text.lower()))


def _controls_of(widget, out: dict) -> None:
    label = getattr(widget, "description", "")
    if label:
        info = out.setdefault(label, [])
        if hasattr(widget, "min") and hasattr(widget, "max"):
            base = getattr(widget, "base", None)
            lo, hi = (base ** widget.min, base ** widget.max) if base else (widget.min, widget.max)
            info.append(("range", lo, hi))
        elif getattr(widget, "options", None):
            info.append(("options", [o[0] if isinstance(o, tuple) else str(o) for o in widget.options]))
        else:
            info.append(("control",))
    for child in getattr(widget, "children", ()) or ():
        _controls_of(child, out)


@functools.lru_cache(maxsize=None)
def controls(nb: str) -> dict:
    """Every control of the notebook's live panels, by the label the page shows."""
    out: dict = {}
    code = "\n".join("".join(c["source"]) for c in notebook(nb)["cells"] if c["cell_type"] == "code")
    for module, name in PANELS[nb]:
        assert f"{name}(" in code, f"notebook {nb} no longer builds {name}: update PANELS"
        panel = getattr(importlib.import_module(module), name)()
        _controls_of(panel.widget, out)
    return out


def all_controls() -> dict:
    out: dict = {}
    for nb in NOTEBOOKS:
        for label, info in controls(nb).items():
            out.setdefault(label, []).extend(info)
    return out


# ------------------------------------------------------------------ the tests
@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_every_notebook_has_its_part_with_every_subsection(nb):
    assert nb in parts(), f"no '## Notebook {nb} · …' part in the guide"
    heads = [h for h, _ in _split(parts()[nb], "### ")]
    missing = [s for s in SUBSECTIONS if s not in heads]
    assert not missing, f"notebook {nb}: missing {missing}"


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_objectives_are_tied_to_the_exercises_that_test_them(nb):
    items = bullets(subsection(nb, "### Learning objectives"))
    assert len(items) >= 3, f"notebook {nb}: too few objectives"
    mine = {number(e) for e in ex.ids(nb)}
    tested = set()
    for item in items:
        cited = set(cited_exercises(item))
        assert cited & mine, f"notebook {nb}: objective cites no exercise of the notebook: {item[:80]}"
        tested |= cited
    assert mine <= tested, f"notebook {nb}: exercises no objective names: {sorted(mine - tested)}"


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_textbook_map_covers_every_section_and_cites_both_books(nb):
    table = rows(subsection(nb, "### Textbook map"))
    mapped, ls_cited, sl_cited = set(), set(), set()
    for first, ls_cell, sl_cell in table:
        m = re.match(r"§(\d+) (.+)", first)
        assert m, f"notebook {nb}: a map row must start with §N and the section's title: {first!r}"
        n, title = int(m.group(1)), m.group(2)
        assert n in sections(nb), f"notebook {nb} has no section {n} ({first!r})"
        assert words(title) <= words(sections(nb)[n]), (
            f"notebook {nb} §{n} is now titled {sections(nb)[n]!r}; the guide says {title!r}")
        mapped.add(n)
        for cell, book, cited in ((ls_cell, LS, ls_cited), (sl_cell, SLIVKINS, sl_cited)):
            pairs = re.findall(r"ch\. (\d+)(?:\s*(?:and|–)\s*(\d+))?", cell)
            chapters = {int(c) for pair in pairs for c in pair if c}
            assert chapters or "not covered" in cell, f"notebook {nb} §{n}: cite a chapter or say 'not covered'"
            assert chapters <= set(book), f"notebook {nb} §{n}: chapters outside the list: {chapters - set(book)}"
            cited |= chapters
    assert mapped == set(sections(nb)), f"notebook {nb}: sections not mapped: {sorted(set(sections(nb)) - mapped)}"
    assert ls_cited and sl_cited, f"notebook {nb}: the map must cite chapters of both books"


def test_the_chapter_lists_are_the_books():
    body = dict(_split(guide(), "## "))["## The two textbooks"]
    ls_part, sl_part = body.split("Slivkins, *Introduction to Multi-Armed Bandits*")
    for text, book in ((ls_part, LS), (sl_part, SLIVKINS)):
        listed = {int(n): t for n, t in rows(text)}
        assert listed.keys() == book.keys(), (sorted(listed), sorted(book))
        for n, title in book.items():
            assert listed[n].lower() == title.lower(), (n, listed[n], title)
    assert "Lattimore and Szepesvári, *Bandit Algorithms*" in ls_part and "(2020)" in ls_part and "(2019)" in sl_part


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_the_lecture_plan_is_timed_to_90_minutes_with_a_60_minute_cut(nb):
    plan = subsection(nb, "### A 90-minute lecture")
    blocks = [tuple(map(int, re.fullmatch(r"(\d+)–(\d+)", r[0]).groups())) for r in rows(plan)]
    assert blocks and blocks[0][0] == 0 and blocks[-1][1] == 90, blocks
    assert all(a < b for a, b in blocks) and all(b == c for (_, b), (c, _) in zip(blocks, blocks[1:])), blocks
    assert "**Board**" in plan or "**Derive" in plan, f"notebook {nb}: nothing derived on the board"
    posed = {n for m in re.finditer(r"[Pp]ose (Exercise \d\.\d+)", plan) for n in NUMBER.findall(m.group(1))}
    predicts = {number(e) for e in ex.ids(nb) if ex.kind(e) == "predict"}
    assert predicts <= posed, f"notebook {nb}: predict questions not posed to the room: {sorted(predicts - posed)}"
    short = re.search(r"\*\*For a 60-minute slot\*\*:(.*?)\n\n", plan, re.S)
    assert short, f"notebook {nb}: no 60-minute cut"
    minutes = [int(x) for x in re.findall(r"\((\d+)(?: min)?\)", short.group(1))]
    assert sum(minutes) == 60, f"notebook {nb}: the 60-minute cut adds up to {sum(minutes)} ({minutes})"
    assert "skip" in short.group(1) or "leave" in short.group(1)
    assert "**Slide view**" in plan, f"notebook {nb}: say where the slide view breaks or is awkward"


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_every_control_cited_exists_with_its_values_and_options(nb):
    """Within a notebook's part a value must fit every control of that label (notebook 03 has a
    "window m" on two panels, with different ranges): the text does not say which one is meant."""
    _check_controls(parts()[nb], controls(nb), f"notebook {nb}", every=True)


def test_controls_cited_outside_the_notebooks_parts_exist():
    _check_controls(general_text(), all_controls(), "the guide's general part", every=False)


def _check_controls(text, known, where, every):
    found = list(CONTROL.finditer(text))
    if where.startswith("notebook"):
        assert found, f"{where}: the plan names no control of the live panel"
    for m in found:
        label, a, b, option, to = m.groups()
        assert label in known, f"{where}: no control labelled {label!r}; the panels have {sorted(known)}"
        infos = known[label]
        ranges = [i for i in infos if i[0] == "range"]
        for v in [float(x) for x in (a, b, to) if x is not None]:
            fits = [lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9) for _, lo, hi in ranges]
            assert fits and (all(fits) if every else any(fits)), f"{where}: {label!r} cannot be set to {v:g}: {infos}"
        if option is not None:
            assert any(i[0] == "options" and option in i[1] for i in infos), (
                f"{where}: {label!r} has no option {option!r}: {infos}")


def test_every_exercise_is_listed_with_its_kind_difficulty_and_minutes():
    listed = {}
    for nb in NOTEBOOKS:
        table = rows(subsection(nb, "### Exercises: lecture or homework, and time"))
        for no, eid, kind, stars, minutes, use in table:
            eid = eid.strip("`")
            assert eid in ex.ids(), f"the guide lists {eid!r}, which the registry does not have"
            x = ex.get(eid)
            assert x.notebook == nb, (eid, nb)
            assert no == number(eid), f"{eid} is Exercise {number(eid)}, the guide says {no}"
            assert kind == x.kind, f"{eid} is a {x.kind} exercise, the guide says {kind}"
            assert stars == "★" * x.stars + "☆" * (3 - x.stars), f"{eid}: difficulty {x.stars}, not {stars}"
            assert int(minutes) == x.minutes, f"{eid}: the registry expects {x.minutes} minutes, the guide {minutes}"
            assert "lecture" in use or "homework" in use, (eid, use)
            listed[eid] = x.minutes
        total = re.search(r"^Total: (\d+) minutes\.", parts()[nb], re.M)
        assert total and int(total.group(1)) == sum(ex.get(e).minutes for e in ex.ids(nb)), (
            f"notebook {nb}: the total should be {sum(ex.get(e).minutes for e in ex.ids(nb))} minutes")
    assert set(listed) == set(ex.ids()), f"not in the guide: {sorted(set(ex.ids()) - set(listed))}"


def _diagnosed(eid) -> int:
    """How many wrong answers the exercise's check tells apart (its graded misconceptions)."""
    x = ex.get(eid)
    if x.kind == "predict":
        return len(x.choices) - 1
    free = dict(zip(x.grade.__code__.co_freevars, (c.cell_contents for c in x.grade.__closure__)))
    if x.kind in ("compute", "derive"):
        return len(free["misconceptions"](ex.params(eid, "")))
    if x.kind == "implement":  # the natural wrong versions, not the all-zero stub the tests also use
        args = free["inputs"](np.random.default_rng(0))
        return sum(bool(np.any(np.asarray(w(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]))))
                   for w in ex.wrong_answers(eid))
    return 0


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_misconceptions_list_what_the_checks_diagnose(nb):
    text = subsection(nb, "### Misconceptions the checks diagnose")
    assert "no classroom data" in text.lower(), f"notebook {nb}: say that the expectations are not measured"
    table = rows(text)
    for cells in table:
        assert len(cells) == 4 and cells[0] in by_number(), cells
        assert cells[3].split(":")[0].strip() in TIERS, f"notebook {nb}: tier must be one of {TIERS}: {cells}"
        assert ":" in cells[3], f"notebook {nb}: give the reason for the tier: {cells}"
    for eid in ex.ids(nb):
        n, x = number(eid), ex.get(eid)
        mine = [c for c in table if c[0] == n]
        if x.kind == "explain":
            assert re.search(rf"Exercise {re.escape(n)} \(explain\) is self-assessed", text), (
                f"{eid}: say how the explain exercise is assessed")
            continue
        assert len(mine) == _diagnosed(eid), (
            f"{eid}: its check diagnoses {_diagnosed(eid)} wrong answers, the guide lists {len(mine)}")
        if x.kind == "predict":
            quoted = [re.fullmatch(r"“(.+)”", c[1]).group(1) for c in mine]
            assert sorted(quoted) == sorted(v for k, v in x.choices.items() if k != x.solution), (eid, quoted)


def test_every_cited_exercise_and_section_exists():
    numbers = by_number()
    for nb, text in parts().items():
        for n in cited_exercises(text):
            assert n in numbers, f"notebook {nb}'s part cites Exercise {n}, which does not exist"
        for m in SECTION_CITE.finditer(without_code(text)):
            other = m.group(1) or nb
            for s in (int(x) for x in m.group(2, 3) if x):
                assert s in sections(other), f"notebook {nb}'s part cites {other} §{s}, which does not exist"
    rest = without_code(general_text())
    for n in cited_exercises(rest):
        assert n in numbers, f"the guide cites Exercise {n}, which does not exist"
    for m in SECTION_CITE.finditer(rest):
        assert m.group(1), f"outside a notebook's part, write the notebook before §{m.group(2)} (e.g. 01 §6)"
        for s in (int(x) for x in m.group(2, 3) if x):
            assert s in sections(m.group(1)), f"notebook {m.group(1)} has no §{s}"
    for n in set(cited_exercises(guide())):
        eid = numbers[n]
        assert "### " + ex.heading(eid) in markdown(eid.split(".")[0]), (
            f"the notebook's heading of {eid} is not {ex.heading(eid)!r}")


def test_the_module_plan_adds_up_to_the_registry_minutes():
    body = dict(_split(guide(), "## "))["## Running a course"]
    weeks = [r for r in rows(body) if re.fullmatch(r"\d", r[0])]
    assert [int(r[0]) for r in weeks] == [0, 1, 2, 3, 4, 5], "a week 0 (set-up), then one week per notebook"
    seen = set()
    for week in weeks[1:]:
        homework = week[3]
        m = re.search(r"Exercises ([\d., and]+) \((\d+) min\)", homework)
        assert m, week
        cited = NUMBER.findall(m.group(1))
        assert sum(ex.get(by_number()[n]).minutes for n in cited) == int(m.group(2)), (
            f"week {week[0]}: exercises {cited} take {sum(ex.get(by_number()[n]).minutes for n in cited)} minutes")
        seen |= set(cited) | set(cited_exercises(week[2]))
    assert seen == set(by_number()), f"exercises no week uses: {sorted(set(by_number()) - seen)}"


def test_the_graded_homework_section_says_what_a_student_can_still_read():
    """It names the command, the files a student can read, the doors a hub setting closes (and
    that setting is the one the package reads), and the share of pairs that can swap a number as
    measured now (the same class of 40 as tests/test_exercises.py, which allows 2%)."""
    body = dict(_split(guide(), "## "))["## Graded homework with nbgrader"]
    for phrase in ("python3 tasks.py assignment week1", "python3 tasks.py grade week1 --course",
                   "`delaylab/exercises/p01.py` … `p05.py`",
                   "tests/test_exercises.py::test_few_pairs_of_a_class_share_an_answer", "in a simulated class of 40",
                   "deletes `graded=True`", '`c.Spawner.environment = {"DELAYLAB_SOLUTIONS": "off"}`'):
        assert phrase in body, phrase
    from delaylab.exercises.ui import SOLUTIONS_ENV

    assert SOLUTIONS_ENV == "DELAYLAB_SOLUTIONS"
    students = [f"student-{i}" for i in range(40)]
    worst = 0.0
    for eid in (e for e in ex.ids() if ex.get(e).parameterised):
        answers = {s: ex.solution(eid, student=s) for s in students}
        shared = sum(ex.check(eid, answers[a], student=b).correct for a, b in itertools.combinations(students, 2))
        worst = max(worst, shared / 780)
    stated = re.search(r"between 0 and about ([\d.]+)% of the\s+pairs", body)
    assert stated, "state the measured share of pairs"
    assert abs(float(stated.group(1)) - 100 * worst) < 0.1, f"the measured maximum is now {100 * worst:.2f}%"


def test_the_guide_points_to_nothing_private():
    for private in ("/work/", "shared/notes", "notes/papers"):
        assert private not in guide(), private


def test_the_readme_s_lecture_mode_and_the_index_point_to_the_guide():
    """A lecturer arrives at the README's "Lecture mode" or at the index notebook: both send them
    here. (The index names the file without a link: a link to ../docs/ would make the guide, which
    gives away the predict questions, a page of the course site.)"""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lecture = re.search(r"^## Lecture mode\b.*?(?=^## )", readme, re.M | re.S)
    assert lecture, "the README has no '## Lecture mode' section"
    assert "](docs/instructor.md)" in lecture.group(0), "README's Lecture mode section does not link the guide"
    index = json.loads((ROOT / "notebooks" / "00_index.ipynb").read_text(encoding="utf-8"))
    text = "\n".join("".join(c["source"]) for c in index["cells"] if c["cell_type"] == "markdown")
    assert "`docs/instructor.md`" in text, "the index notebook does not name the instructor's guide"
