#!/usr/bin/env python3
"""Lecture mode: set the notebooks' slide boundaries by one rule (Voila's reveal template, RISE).

    python3 tasks.py slides            set them in every notebook of notebooks/
    python3 tasks.py slides --check    exit 1 and name the notebooks whose slides differ from the rule

The rule (each cell's ``metadata.slideshow.slide_type``, which RISE and nbconvert read):

* a Markdown cell opening with a ``#`` or ``##`` heading starts a **slide** (the notebook's
  title, then one slide per numbered section);
* a Markdown cell opening with a ``###`` heading starts a **sub-slide** (below, in RISE);
* a code cell that shows something (its last line is an expression, e.g. ``panel`` or
  ``fig1.widget``: a live panel or a figure) starts a **sub-slide**, so that every panel and
  figure gets the whole screen under the text that introduces it;
* but a cell of an exercise (its last line a call ``ex.…(…)``: the student's numbers, the check
  and its hints, a predict or explain question, a race's verdict, ``ex.start``) continues the
  slide of the text before it: an exercise is one slide, its statement with its widgets, not
  three (two of them nearly empty);
* and a sub-slide does not start after a slide that would be nearly empty: while the current
  slide holds less than :data:`SHORT` characters of text (about four lines at the slides'
  28 px) and no figure, the next sub-slide's cells join it (a section's two-line introduction
  and the exercise or figure after it are one slide);
* a code cell tagged ``hide`` (self-checks, hidden in the dashboards too) is **skipped**;
* every other cell continues the current slide (``-``).

The browser tests (tests/test_browser.py) measure the result on every screen of every deck: no
slide nearly empty, no text below the sizes a lecture hall needs, nothing covering text.

**The guide's slide notes.** Each notebook's "Slide view" paragraph in docs/instructor.md holds,
between ``<!-- slide view NN -->`` and ``<!-- /slide view -->``, the deck's outline as this rule
makes it (:func:`outline`): the same command writes it, and ``--check`` fails when it differs.

The notebook's ``metadata.rise`` gets ``scroll: true`` (a long slide scrolls instead of being
cut) and the light theme. Nothing else is touched: the file is rewritten exactly as Jupyter
writes it, so rerunning the rule after anyone's edit changes only slide metadata.
Only the Python standard library is used (``tasks.py`` runs it without the virtual environment).
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RISE = {"scroll": True, "theme": "simple", "transition": "none", "enable_chalkboard": False}
#: characters of text below which a slide takes the next sub-slide's cells in (see the rule)
SHORT = 320
#: what an exercise's widgets count for, in characters of text (a box of one or two lines; a
#: predict question's choices or an explanation's text field: more)
WIDGET_TEXT = {"predict": 300, "explain": 300}
WIDGET_DEFAULT = 150


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def shows_something(code: str) -> bool:
    """True when the cell's last statement is an expression other than a call to print (so
    Jupyter displays its value: a panel, a figure)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return False
    value = tree.body[-1].value
    return not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "print")


def exercise_call(code: str) -> str | None:
    """The name ``f`` when the cell's last statement is a call ``ex.f(…)`` (an exercise's
    widget), else None."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return None
    call = tree.body[-1].value
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "ex"):
        return call.func.attr
    return None


def slide_type(cell) -> str:
    """The cell's slide type by the rule, before nearly empty slides are merged (:func:`apply`)."""
    text = _source(cell).lstrip()
    if cell["cell_type"] == "markdown":
        first = text.splitlines()[0] if text else ""
        if first.startswith(("# ", "## ")):
            return "slide"
        if first.startswith("### "):
            return "subslide"
        return "-"
    if cell["cell_type"] == "code":
        if "hide" in cell.get("metadata", {}).get("tags", []):
            return "skip"
        if exercise_call(text) is None and shows_something(text):
            return "subslide"
    return "-"


def text_length(cell) -> int:
    """About how many characters of text the cell shows on a slide: a Markdown cell's words
    (markup, link targets and TeX commands left out), an exercise's widget by its kind, a
    printed table by its lines, nothing for the rest."""
    text = _source(cell)
    if cell["cell_type"] == "markdown":
        text = re.sub(r"\]\([^)]*\)", "]", text)          # a link's target
        text = re.sub(r"\\[A-Za-z]+", "x", text)         # a TeX command: one symbol
        return len(re.sub(r"[#*_`$|{}\[\]\\^-]", "", text).strip())
    if cell["cell_type"] == "code" and "hide" not in cell.get("metadata", {}).get("tags", []):
        name = exercise_call(text)
        if name is not None:
            return WIDGET_TEXT.get(name, WIDGET_DEFAULT)
        if shows_something(text) or "print(" in text:
            return WIDGET_DEFAULT
    return 0


def shows_a_figure(cell) -> bool:
    return cell["cell_type"] == "code" and slide_type(cell) == "subslide"


def apply(nb: dict) -> dict:
    """``nb`` (a notebook as JSON) with slide types set by the rule; modified in place."""
    held, figure = 0, False  # the current slide's text (characters) and whether it shows a figure
    for cell in nb["cells"]:
        kind = slide_type(cell)
        if kind == "subslide" and held < SHORT and not figure:
            kind = "-"  # the slide so far would be nearly empty: this sub-slide joins it
        if kind in ("slide", "subslide"):
            held, figure = 0, False
        if kind != "skip":
            held += text_length(cell)
            figure = figure or shows_a_figure(cell)
        cell.setdefault("metadata", {})["slideshow"] = {"slide_type": kind}
    nb.setdefault("metadata", {})["rise"] = dict(RISE)
    return nb


#: TeX in a heading as the slide shows it (MathML), for the outline's plain text
_TEX = {r"\mathbb E": "E", r"\tilde N": "Ñ", r"\hat\theta": "θ̂", r"\hat\alpha": "α̂", r"\tau": "τ", r"\theta": "θ",
        r"\alpha": "α", r"\beta": "β", r"\mu": "μ", r"\Delta": "Δ", r"\eta": "η"}


def plain(text: str) -> str:
    """A line of Markdown as plain words: TeX symbols as characters, markup left out."""
    for tex, char in _TEX.items():
        text = text.replace(tex, char)
    text = re.sub(r"\\[A-Za-z]+", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"\s+", " ", re.sub(r"[#*_`$\\{}]", "", text)).strip()


def _heading(text: str) -> str:
    """What a slide's first heading says, short: "the title", "§3", "Exercise 1.4", or its words."""
    first = text.lstrip().splitlines()[0] if text.strip() else ""
    if first.startswith("# "):
        return "the title"
    m = re.match(r"##\s+(\d+)\.", first)
    if m:
        return f"§{m.group(1)}"
    m = re.match(r"###\s+✎\s+Exercise\s+(\d+\.\d+)", first)
    if m:
        return f"Exercise {m.group(1)}"
    words = re.split(r" \(|, and ", plain(first.lstrip("# ")))[0]
    return f"“{words}”" if words else ""


def _shown(code: str) -> str:
    """What a code cell that shows something shows, by the function that made it: the live panel,
    "Figure 2" (a paper's figure), "the timeline figure", …"""
    calls = re.findall(r"\b([A-Za-z_]\w*)\(", code)
    panels = [c for c in calls if c.endswith("Panel")]
    if panels:
        return "the ellipse panel" if panels[-1] == "EllipsePanel" else "the live panel"
    made = [c for c in calls if re.search(r"figure|panel|table", c)]
    name = made[-1] if made else ""
    m = re.fullmatch(r"figure(\d+)(?:_panel)?", name)
    if m:
        return f"Figure {m.group(1)}"
    m = re.fullmatch(r"example(\d+)(?:_panel)?", name)
    if m:
        return f"Example {m.group(1)}'s figure"
    if name.startswith("appendix_"):
        return f"Appendix {name.split('_')[1].upper()}'s figure"
    words = re.sub(r"_(figure|panel)$", "", name).replace("_", " ")
    if not words:
        return "a figure"
    return f"the {words}" if name.endswith("table") else f"the {words} figure"


def outline(nb: dict) -> list[list[list[str]]]:
    """The deck of ``nb`` (slide types set by :func:`apply`): per slide, the parts of each of its
    sub-slides, e.g. ``[["§4", "Exercise 1.3"], ["the live panel", "Exercise 1.4 and its race"]]``."""
    deck: list[list[list[str]]] = []
    after = False  # the last part is an exercise whose widgets have been shown: text now follows it
    numbers, number = {}, ""  # exercise id -> its number, from the headings above its widgets
    for cell in nb["cells"]:
        kind = cell.get("metadata", {}).get("slideshow", {}).get("slide_type", "-")
        if kind == "skip" or "hide" in cell.get("metadata", {}).get("tags", []):
            continue
        if kind == "slide" or not deck:
            deck.append([[]])
        elif kind == "subslide":
            deck[-1].append([])
        parts, text = deck[-1][-1], _source(cell)
        if kind in ("slide", "subslide"):
            after = False
        if cell["cell_type"] == "markdown":
            name = _heading(text) if text.lstrip().startswith("#") else ""
            if name:
                parts.append(name)
                number = name.split()[1] if name.startswith("Exercise ") else ""
                after = False
            elif after and parts and parts[-1].startswith("Exercise") and "“" not in parts[-1]:
                words = plain(text.strip().splitlines()[0]).split()
                parts[-1] += ", then “" + " ".join(words[:7]) + ("…”" if len(words) > 7 else "”")
        elif cell["cell_type"] == "code":
            call = exercise_call(text)
            eid = re.search(r"ex\.\w+\((?:\w+,\s*)?[\"']([\w.-]+)[\"']", text)
            if eid and number and call != "race":
                numbers.setdefault(eid.group(1), number)
            if call == "race":
                raced = numbers.get(eid.group(1), "") if eid else ""
                if parts and parts[-1].startswith(f"Exercise {raced}"):
                    parts[-1] = re.sub(r", then “.*”$", "", parts[-1]) + " and its race"
                else:
                    parts.append(f"the race of Exercise {raced}" if raced else "a race")
            elif call == "start":
                parts.append("ex.start")
            elif call in ("feedback", "predict", "explain"):
                after = True
            elif call is None and shows_something(text):
                shown = _shown(text)
                if not (parts and parts[-1].strip("“”").startswith(shown)):  # a heading that names it already
                    parts.append(shown)
                after = False
    return deck


def outline_text(nb: dict) -> str:
    """The deck's outline as the guide's "Slide view" says it: every slide and sub-slide numbered
    as the slides' own counter (bottom right) numbers them, each with what it holds."""
    screens = [parts for slide in outline(nb) for parts in slide]
    items = [f"{c} {', '.join(parts) if parts else '(continued)'}" for c, parts in enumerate(screens, start=1)]
    return f"{len(screens)} slides: " + " · ".join(items) + "."


GUIDE = ROOT / "docs" / "instructor.md"
VIEW = re.compile(r"(<!-- slide view (\d\d) -->)(.*?)(<!-- /slide view -->)", re.S)


def guide_with_outlines(text: str, folder: Path = ROOT / "notebooks") -> str:
    """The guide's text with each notebook's slide view written between its marks."""
    def fill(m):
        path = next(iter(sorted(folder.glob(f"{m.group(2)}_*.ipynb"))), None)
        if path is None:
            return m.group(0)
        return m.group(1) + outline_text(apply(json.loads(path.read_text(encoding="utf-8")))) + m.group(4)
    return VIEW.sub(fill, text)


def dumps(nb: dict) -> str:
    """As Jupyter (nbformat) writes a notebook."""
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False, separators=(",", ": ")) + "\n"


def notebooks(folder: Path = ROOT / "notebooks"):
    return sorted(folder.glob("*.ipynb"))


def main(argv) -> int:
    check = "--check" in argv
    paths = [Path(a) for a in argv if not a.startswith("--")] or notebooks()
    differ = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        new = dumps(apply(json.loads(text)))
        if new != text:
            differ.append(path)
            if not check:
                path.write_text(new, encoding="utf-8")
    guide_differs = False
    if GUIDE.exists() and not any(not a.startswith("--") for a in argv):
        text = GUIDE.read_text(encoding="utf-8")
        new = guide_with_outlines(text)
        guide_differs = new != text
        if guide_differs and not check:
            GUIDE.write_text(new, encoding="utf-8")
    if check:
        for path in differ:
            print(f"{path}: slide boundaries differ from the rule (run: python3 tasks.py slides)")
        if guide_differs:
            print(f"{GUIDE}: a slide view differs from its deck (run: python3 tasks.py slides)")
        return 1 if differ or guide_differs else 0
    print(f"slide boundaries set in {len(differ)} of {len(paths)} notebooks"
          + ("; the guide's slide views rewritten" if guide_differs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
