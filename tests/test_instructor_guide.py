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
from delaylab.exercises._core import reference_code

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
      36: "Thompson sampling"}
SLIVKINS = {1: "Stochastic bandits", 2: "Lower bounds", 3: "Bayesian bandits and Thompson sampling",
            5: "Full feedback and adversarial costs", 6: "Adversarial bandits", 8: "Contextual bandits"}
SUBSECTIONS = ("### Learning objectives", "### Prerequisites", "### Textbook map", "### A 90-minute lecture",
               "### Misconceptions the checks diagnose", "### Exercises: lecture or homework, and time")
TIERS = ("common", "occasional", "rare")
#: a workbook exercise ("L&S Exercise 6.6" is the book's)
EXERCISE_CITE = re.compile(r"(?<!L&S )Exercises?\s+(\d\.\d+(?:\s*(?:,|and|or|–)\s*\d\.\d+)*)")
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


#: what a plan's row takes at least, in minutes (issue 38: the plans packed 100–110 minutes of work
#: into 90): a derivation on the board, a prediction posed to the room (the question, a show of
#: hands, the answer), and any activity whose minutes the row gives ("Exercise 1.1 (8 min)")
BOARD_MIN, POSED_MIN = 10, 3
#: minutes of a 90-minute slot the core rows must leave free (questions, transitions, a
#: derivation that runs long)
SLACK_MIN = 10


def plan_rows(nb):
    """The plan's rows: (minutes, optional, section, text)."""
    out = []
    for first, section, text in rows(subsection(nb, "### A 90-minute lecture")):
        m = re.fullmatch(r"(\+?)(\d+)", first)
        assert m, f"notebook {nb}: a plan row starts with its minutes, '+' for an optional one: {first!r}"
        assert bool(m.group(1)) == section.endswith(", *optional*"), (nb, first, section)
        out.append((int(m.group(2)), bool(m.group(1)), section.removesuffix(", *optional*"), text))
    return out


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_the_lecture_plan_is_timed_with_slack_and_optional_rows_and_a_60_minute_cut(nb):
    """Each row's minutes cover what it asks for (a board derivation 10, a posed prediction 3, an
    activity its minutes); the core rows leave at least 10 of the 90 minutes free, as the plan's
    "Timing" line says, and the optional rows are what a quick class adds."""
    plan = subsection(nb, "### A 90-minute lecture")
    table = plan_rows(nb)
    for minutes, _optional, section, text in table:
        need = (BOARD_MIN * len(re.findall(r"\*\*(?:Board|Derive)", text)) + POSED_MIN * len(re.findall(r"[Pp]ose Exercise", text))
                + sum(int(x) for x in re.findall(r"\((\d+) min\)", text)))
        assert minutes >= max(need, 3), f"notebook {nb}, {section}: {minutes} minutes for what needs {need}: {text[:80]}"
    core = sum(m for m, optional, _, _ in table if not optional)
    extra = sum(m for m, optional, _, _ in table if optional)
    assert table[0][2] == "title slide" and table[-1][2] == "What to remember"
    assert any(section == "What to remember" and not optional for _, optional, section, _ in table)
    assert core <= 90 - SLACK_MIN and extra > 0, (nb, core, extra)
    timing = re.search(r"\*\*Timing\*\*: the core rows take (\d+) minutes, which leaves (\d+) .*?the optional rows \(\+\) add (\d+)",
                       plan, re.S)
    assert timing and [int(x) for x in timing.groups()] == [core, 90 - core, extra], (nb, core, 90 - core, extra)
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


def _tool(name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_the_slide_view_is_the_deck(nb):
    """Each notebook's "Slide view" is its deck as the slide rule makes it (tools/slides.py writes
    it; the browser tests check the live decks against the same rule): slide by slide, as many as
    the notebook has, each section and exercise where the deck has it."""
    slides = _tool("slides")
    view = re.search(rf"<!-- slide view {nb} -->(.*?)<!-- /slide view -->", subsection(nb, "### A 90-minute lecture"), re.S)
    assert view, f"notebook {nb}: no slide view between its marks"
    deck = slides.apply(notebook(nb))
    assert view.group(1) == slides.outline_text(deck), "run: python3 tasks.py slides"
    kinds = [c["metadata"]["slideshow"]["slide_type"] for c in deck["cells"]
             if c["metadata"]["slideshow"]["slide_type"] != "skip" and "hide" not in c["metadata"].get("tags", [])]
    kinds[0] = "slide"
    assert view.group(1).startswith(f"{kinds.count('slide') + kinds.count('subslide')} slides: ")
    for eid in ex.ids(nb):
        assert re.search(rf"\d+ Exercise {re.escape(number(eid))}\b", view.group(1)), f"{eid} has no slide of its own"
    for n in sections(nb):
        assert f" §{n}" in view.group(1)
    assert slides.guide_with_outlines(guide()) == guide(), "run: python3 tasks.py slides"


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_the_prerequisites_name_the_numpy_of_the_implement_exercise(nb):
    """Every numpy function the implement exercise's reference answer calls is in the notebook's
    prerequisites (issue 38: they left out the numpy the exercises need)."""
    text = subsection(nb, "### Prerequisites")
    named = set(re.findall(r"`[^`]*`", text))
    for eid in (e for e in ex.ids(nb) if ex.kind(e) == "implement"):
        used = set(re.findall(r"np\.[\w.]+", reference_code(eid)))
        assert used, eid
        missing = [u for u in used if not any(u in n for n in named)]
        assert not missing, f"{eid} uses {missing}, which the prerequisites do not name"
        assert f"Exercise {number(eid)}" in text


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


# ------------------------------------------------------------------ reading list, rubrics, time, assessment, week 0
def section_text(title: str) -> str:
    return dict(_split(guide(), "## "))[f"## {title}"]


def test_the_reading_list_gives_each_week_its_paper_chapters_and_further_reading():
    """One row per week: the notebook's own paper exactly as its part cites it (authors, year,
    title, venue), chapters that its textbook map cites, and at least one further reading."""
    table = rows(section_text("Reading list"))
    assert [r[0] for r in table] == ["1", "2", "3", "4", "5"] and [r[1] for r in table] == list(NOTEBOOKS)
    for _week, nb, paper, books, further in table:
        opening = " ".join(parts()[nb].strip().split("\n\n")[0].split())
        cited = re.match(r"(.+?) \((\d{4})\), \*(.+?)\* \((\w+)\)\.", opening)
        assert cited, f"notebook {nb}'s part does not open with its paper"
        assert paper == f"{cited.group(1)} ({cited.group(2)}), *{cited.group(3)}* ({cited.group(4)})", (nb, paper)
        mapped = subsection(nb, "### Textbook map")
        ls, sl = books.split(";")
        for cell, column in ((ls, 1), (sl, 2)):
            chapters = {int(c) for c in re.findall(r"\d+", cell)}
            in_map = {int(c) for row in rows(mapped) for c in re.findall(r"ch\. (\d+)", row[column])}
            in_map |= {int(c) for row in rows(mapped) for c in re.findall(r"ch\. \d+ and (\d+)", row[column])}
            assert chapters and chapters <= in_map, (nb, cell, sorted(in_map))
        assert re.search(r"\(\d{4}\), \*", further), (nb, further)


def test_the_rubrics_cover_every_derive_exercise_and_add_up_to_its_points():
    from delaylab.exercises.assignment import POINTS

    body = section_text("Rubrics for the answers graded by hand")
    assert f"**Derive exercises ({POINTS['derive']} points).**" in body
    assert f"**Explain exercises ({POINTS['explain']} points).**" in body
    table = rows(body)
    derive = sorted(number(e) for e in ex.ids() if ex.kind(e) == "derive")
    assert sorted(r[0] for r in table) == derive
    header = [line for line in body.splitlines() if line.startswith("| ex. |")][0]
    assert sum(int(x) for x in re.findall(r"(\d) point", header)) == POINTS["derive"]
    for row in table:
        assert len(row) == 4 and all(len(cell) > 20 for cell in row[1:]), row
    # an explain answer's grade counts the exercise's own points: four, or as many as the guide says
    words = {4: "four", 5: "five", 6: "six"}
    counts = {number(e): len(ex.get(e).points) for e in ex.ids() if ex.kind(e) == "explain"}
    flat = " ".join(body.split())
    others = "; ".join(f"Exercise {n} {words[c]}" for n, c in counts.items() if c != 4)
    assert f"lists its points — four{'; ' + others if others else ''} —" in flat, (counts, flat[:300])
    assert "Give 2 points for an answer that makes all of them or all but one, 1 for two or more, 0 for fewer" in flat


def test_the_grading_time_follows_the_week_presets():
    """The table's counts come from the week presets and the registry's kinds; the minutes and
    hours from the estimate stated above it, for a class of 40."""
    from delaylab.exercises.assignment import WEEKS, resolve

    body = section_text("Your grading time")
    per_derive = int(re.search(r"(\d+) minutes to read a derivation", body).group(1))
    per_explain = int(re.search(r"(\d+) to\s+read an explain answer", body).group(1))
    per_student = int(re.search(r"and (\d+) per student to read their row", body).group(1))
    for week, homework, derivations, explains, minutes, hours in rows(body):
        chosen = resolve(WEEKS[f"week{week}"])
        assert homework == "Exercises " + ", ".join(number(e) for e in chosen), (week, homework)
        d = sum(ex.kind(e) == "derive" for e in chosen)
        e_ = sum(ex.kind(e) == "explain" for e in chosen)
        assert (int(derivations), int(explains)) == (d, e_), week
        assert int(minutes) == per_derive * d + per_explain * e_ + per_student, week
        assert hours == f"{40 * int(minutes) / 60:.1f} hours", (week, hours)
    lecture_explains = [number(e) for e in ex.ids() if ex.kind(e) == "explain"
                        and all(e not in resolve(w) for w in WEEKS.values())]
    assert "Exercises " + ", ".join(lecture_explains[:-1]) + " and " + lecture_explains[-1] in body.replace("\n", " ")
    assert f"adds {per_explain} minutes per student, {40 * per_explain} minutes for the class" in body.replace("\n", " ")
    script = int(re.search(r"about (\d+) minutes per script", body).group(1))
    assert f"{40 * script // 60} hours for 40" in body


def test_the_final_assessment_covers_each_notebook_once_for_100_points():
    body = section_text("A final assessment")
    table = rows(body)
    assert [r[1] for r in table] == list(NOTEBOOKS)
    assert sum(int(r[3]) for r in table) == 100 and "Total: 100 points." in body
    for _q, nb, _asks, _points, objectives in table:
        cited = cited_exercises(objectives)
        assert cited and all(by_number()[n].startswith(nb) for n in cited), (nb, objectives)


def test_the_final_assessment_is_marked_as_the_rubrics_say():
    """The rubrics give a derivation 1 point per step (set-up, key step, result) and an explanation
    points by the ideas it makes; a 20-point question cannot be marked "with" them as they stand,
    and "three points per step" contradicts them. The assessment says how to scale them."""
    from delaylab.exercises.assignment import POINTS

    body = section_text("A final assessment")
    prose = " ".join(body.split("| question |")[0].split())
    assert "three points per step" not in prose
    rubric = section_text("Rubrics for the answers graded by hand")
    header = [line for line in rubric.splitlines() if line.startswith("| ex. |")][0]
    steps = re.findall(r"1 point: the ([\w -]+?) \|", header)
    assert steps == ["set-up", "key step", "result"] and POINTS["derive"] == len(steps)
    assert f"three equal parts ({', '.join(steps)}" in prose
    assert "split each question's 20 points between its parts" in prose
    assert {int(r[3]) for r in rows(body)} == {20}


def test_the_module_table_points_to_the_week_0_lab_where_it_is():
    """The module table's week-0 row says where the set-up lab is: the lab's section comes first."""
    text = guide()
    lab, table = text.index("### Week 0: the set-up lab"), text.index("| 0 | — | the set-up lab")
    where = re.search(r"\| 0 \| — \| the set-up lab \((above|below)\)", text)
    assert where and where.group(1) == ("above" if lab < table else "below")


def test_week_0_lab_adds_up_and_its_warm_up_says_what_numpy_does():
    """The lab's minutes make 60; every command it names is a command of tasks.py; each line of the
    numpy warm-up gives the result its comment states; the practice assignment exists; and the
    module table releases each week with its preset."""
    import ast
    import importlib.util

    from delaylab.exercises.assignment import WEEKS, resolve

    body = dict(_split(section_text("Running a course"), "### "))["### Week 0: the set-up lab"]
    assert sum(int(r[0]) for r in rows(body)) == 60 and "a 60-minute lab" in body
    spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
    tasks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tasks)
    for command in re.findall(r"python3 tasks\.py (\w+)", guide()):
        assert command in tasks.COMMANDS, command
    code = re.search(r"```python\n(.*?)```", body, re.S).group(1)
    namespace = {}
    for line in code.splitlines():
        statement, _, comment = line.partition("#")
        exec(compile(statement, "week0", "exec"), namespace)
        stated = re.match(r"\s*(array\(.*?\)):", comment)
        if stated:
            last = ast.parse(statement).body[-1]
            value = eval(compile(ast.Expression(last.value), "week0", "eval"), namespace)
            assert np.array_equal(value, eval(stated.group(1), {"array": np.array})), (statement, value)
    module = section_text("Running a course")
    weeks = [r for r in rows(module) if re.fullmatch(r"\d", r[0])]
    assert weeks[0][4] == "`python3 tasks.py assignment 01 --exercises 1.1 --name practice`" and resolve(["1.1"])
    for week in weeks[1:]:
        assert week[4] == f"`python3 tasks.py assignment week{week[0]}`", week
        assert NUMBER.findall(week[3].split("(")[0]) == list(WEEKS[f"week{week[0]}"]), week


def test_the_lecture_s_solutions_are_the_dashboards_default():
    """The plan of notebook 01 shows Exercise 1.1's solution on the slides: the dashboards' default
    setting shows it, and hides the week's homework (delaylab/exercises/solutions.py)."""
    from delaylab.exercises import _core, solutions
    from delaylab.serve.app import DashboardServer

    assert "click through its hints and “show the solution”" in subsection("01", "### A 90-minute lecture")
    assert DashboardServer.solutions.default_value == solutions.LECTURE
    homework = solutions.homework(_core.known_exercises())
    assert by_number()["1.1"] not in homework and by_number()["1.4"] in homework
    module = section_text("Running a course")
    for week in (r for r in rows(module) if re.fullmatch(r"[1-5]", r[0])):
        assert not {by_number()[n] for n in cited_exercises(week[2])} & homework, week


def test_the_textbook_maps_say_check_where_a_place_is_unconfirmed():
    """The rows re-checked against the books' tables of contents say "check" where they name a
    place we could not confirm; none cites L&S ch. 22 (phased elimination with optimal design, for
    linear bandits) for ODAAF. Review nb05-r9: the §6 row's Slivkins place ("ch. 1, the doubling trick, in the
    chapter's exercises — check") could not be confirmed without the book, so the map no longer names it: it points
    to the chapter of the learner each epoch restarts (exponential weights, Exp3: ch. 6), as the table of contents shows."""
    maps = {nb: subsection(nb, "### Textbook map") for nb in NOTEBOOKS}
    assert "How the maps were checked" in guide() and "check" in maps["01"]
    assert not any("ch. 22" in maps[nb] for nb in NOTEBOOKS)
    doubling = [r for r in rows(maps["05"]) if r[0].startswith("§6")][0]
    assert "check" not in maps["05"] and doubling[2] == "ch. 6 (Exp3: each epoch restarts exponential weights at a new rate)"


#: places inside a chapter confirmed in a public copy of the book's pages (L&S 2020, p. 90: Section
#: 6.2's notes 1 and 2, which point to Exercises 6.6 and 6.8; p. 94: Exercise 6.8, "Elimination
#: algorithm"); a map cell that names any other exercise or note must say "check"
CONFIRMED_LS = {"note 1": "Exercise 6.6", "note 2": "Exercise 6.8"}


def test_a_map_cell_naming_a_place_inside_a_chapter_is_confirmed_or_says_check():
    """Review r5 of the general parts: L&S ch. 6 covers the doubling trick (Section 6.2, note 1, and
    Exercise 6.6) and phased elimination (note 2, Exercise 6.8); the maps said "not covered" and
    "check which". Every other exercise or note a map names is marked "check"."""
    for nb in NOTEBOOKS:
        for first, ls_cell, sl_cell in rows(subsection(nb, "### Textbook map")):
            for column, cell in (("L&S", ls_cell), ("Slivkins", sl_cell)):
                if "check" in cell or not re.search(r"[Ee]xercise|\bnotes?\b", cell):
                    continue
                assert column == "L&S", f"notebook {nb} {first}: {column}'s place is unconfirmed: say 'check'"
                named = set(re.findall(r"L&S (Exercise \d+\.\d+)", cell))
                assert named and named <= set(CONFIRMED_LS.values()), (nb, first, cell)
                assert "ch. 6" in cell, (nb, first, cell)
    doubling = [r for r in rows(subsection("05", "### Textbook map")) if r[0].startswith("§6")][0]
    assert "ch. 6" in doubling[1] and "Exercise 6.6" in doubling[1] and "note 1" in doubling[1]
    assert "not covered" not in doubling[1]
    odaaf = [r for r in rows(subsection("04", "### Textbook map")) if r[0].startswith("§3")][0]
    assert "note 2 of Section 6.2 and L&S Exercise 6.8" in odaaf[1] and "check which" not in odaaf[1]
    checked = " ".join(general_text().split())
    assert "the doubling trick is in L&S ch. 6 (note 1 of Section 6.2, L&S Exercise 6.6)" in checked
    assert "Slivkins' first chapter" not in checked  # never confirmed here (no copy of the book)


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_the_lecture_plan_leaves_the_week_s_graded_homework_to_the_homework(nb):
    """The plan's closing row assigns exactly the week's preset (what `tasks.py assignment weekN`
    grades), and no row has the room solve one of those exercises (the dashboards withhold their
    worked answers): a row may pose it, with no minutes of work (review r5, finding 3)."""
    from delaylab.exercises.assignment import WEEKS

    week = WEEKS[f"week{int(nb)}"]
    table = plan_rows(nb)
    closing = next(text for _m, _o, _s, text in table if "Homework:" in text)
    first = EXERCISE_CITE.search(closing[closing.index("Homework:"):])
    assert first and NUMBER.findall(first.group(1)) == list(week), (nb, closing, week)
    for _minutes, _optional, section, text in table:
        if text == closing:
            continue
        graded = set(cited_exercises(text)) & set(week)
        if graded:
            assert not re.search(r"\(\d+ min\)|\d+ min\)", text) and "if time" not in text, (
                f"notebook {nb}, {section}: the room works on graded homework {sorted(graded)}: {text[:100]}")
    use = {no: u for no, _eid, _k, _s, _m, u in rows(subsection(nb, "### Exercises: lecture or homework, and time"))}
    for n in week:
        assert use[n].startswith("homework"), (nb, n, use[n])


def test_the_module_s_reading_time_is_what_the_notebooks_state():
    """Notebooks 01 and 02 state "40 minutes to read and run"; 03–05 give one total with the
    exercises (review r5, finding 9): the module names which."""
    says = [nb for nb in NOTEBOOKS if "40 minutes to read and run" in markdown(nb)]
    module = " ".join(section_text("Running a course").split())
    m = re.search(r"\(notebooks (\d\d) and (\d\d) estimate about 40 minutes to read and run; (\d\d)–(\d\d) give one total", module)
    assert m and list(m.group(1, 2)) == says, (says, m and m.group(0))
    assert [nb for nb in NOTEBOOKS if nb not in says] == [f"{n:02d}" for n in range(int(m.group(3)), int(m.group(4)) + 1)]


def test_week_0_releases_what_the_lab_fetches_and_grades():
    """The lab fetches and grades the practice assignment with `--course DIR`: the checklist
    releases it there before the lab, and every assignment it writes goes to that DIR."""
    body = dict(_split(section_text("Running a course"), "### "))["### Week 0: the set-up lab"]
    flat = " ".join(body.split())
    graded = re.findall(r"python3 tasks\.py grade (\w+) --course (\w+)", flat)
    assert ("practice", "DIR") in graded
    checklist = flat[flat.index("**Your checklist for week 0**"):]
    for name, course in set(graded) | {("week1", "DIR")}:
        assert f"python3 tasks.py nbgrader generate_assignment {name} --course {course}" in checklist, name
    for command in re.findall(r"`python3 tasks\.py assignment [^`]*`", checklist):
        assert command.endswith("--out DIR`"), command
    assert "`python3 tasks.py assignment 01 --exercises 1.1 --name practice --out DIR`" in checklist
    assert checklist.index("--name practice") < checklist.index("generate_assignment practice")


def test_r6_1_the_at_a_glance_idea_of_02_is_what_notebook_02_measures():
    """General-r6, finding 1: "the bias cannot be removed, only paid for" credits the bias term with
    what notebook 02 shows it does not do (on Figure 5's instance it costs regret; D-UCB told each
    arm's law removes the bias and does best)."""
    row = next(r for r in rows(general_text()) if r[0] == "02")
    assert "only paid for" not in row[2]
    assert ("Patient Bandits pays the worst-case bias, which keeps its index an upper confidence bound but is not "
            "what finds the better arm (on Figure 5's instance it costs regret)") in row[2]
    nb02 = " ".join(markdown("02").split())
    assert "the bias term is not what finds the better arm here" in nb02
    assert "At the horizons here the term costs regret where the observed means stop misleading early (Figure 5's instance)" in nb02


def test_r6_2_the_paper_scale_bullet_names_the_buttons_that_are_ours():
    """General-r6, finding 2: 04's Figure 2 button reads "Run at our full scale", as do 02's Figures 3–5
    and 05's Example 8 (the papers print no run count for them)."""
    general = " ".join(general_text().split())
    bullet = general[general.index("**Paper-scale buttons**"):]
    bullet = bullet[:bullet.index(" * ")] if " * " in bullet else bullet
    # general-r7, finding 3: 03's Figure 3 ("in the same setting as before") prints no run count either
    # general-r8, finding 1: Pike-Burke et al. give a run count our copy lost; 03's Figure 3 is our reading
    assert ("*Run at our full scale: … runs* where the paper states no run count (02's Figures 3–5, 05), where our "
            "copy lost it (04), or where we read it from an earlier figure (03's Figure 3, \"the same setting as "
            "before\"); 03's Figure 1 runs the text's 50, its caption says 100") in bullet
    assert "(04's Figure 2, *Run at our full scale*)" in bullet


# ------------------------------------------------------------------ review general-r7
def test_r7_7_the_lectures_solutions_are_every_in_the_lecture_exercise_s():
    """General-r7, finding 7: the dashboards' default ``lecture`` shows the solution of every exercise
    that no week grades, in all five notebooks at once: among the compute, derive and implement ones,
    1.1 and 4.1, not 1.1 alone."""
    from delaylab.exercises import _core, solutions

    known = _core.known_exercises()
    homework = solutions.homework(known)
    worked = sorted((n for n, eid in by_number().items() if eid not in homework
                     and _core.kind(eid) in ("compute", "derive", "implement")), key=lambda n: tuple(map(int, n.split("."))))
    assert worked == ["1.1", "4.1"], worked
    general = " ".join(general_text().split())
    assert "the hint buttons show Exercise 1.1's worked answer" not in general
    assert ("the hint buttons show the worked answers of the module's “in the lecture” column, in all five notebooks "
            "(among the compute, derive and implement exercises: 1.1, 4.1), never those of any week's homework") in general
    assert "(the module's “in the lecture” column below: Exercise 1.1's," not in general
    assert ("(the module's “in the lecture” column below, all five notebooks' at once; among the compute, derive and "
            "implement exercises: 1.1, which notebook 01's plan shows for the default numbers, and 4.1) and withholds it "
            "for every week's graded homework") in general


# ------------------------------------------------------------------ review general-r8
def test_r8_5_the_rubric_of_3_3_states_the_exercises_premise():
    """General-r8, finding 5: E[B_t] = τ_m(V_t − λI)θ holds because Exercise 3.3's actions are all more than m steps
    old; in general the last m actions enter B_t with probabilities below τ_m (the bias the width pays for)."""
    from delaylab import exercises as ex

    general = " ".join(general_text().split())
    row = general[general.index("| 3.3 | the actions are fixed"):]
    row = row[:row.index(" | 4.1 ")] if " | 4.1 " in row else row[:600]
    assert "a conversion more than m steps old counts with probability τ_m" not in row
    assert ("the actions are all more than m steps old (the exercise's premise), so each pull's conversion is counted "
            "with probability τ_m: E[B_t] = τ_m(V_t − λI)θ, λ the ridge parameter") in row
    assert "all more than m steps ago" in str(ex.given("03.ridge-target"))
