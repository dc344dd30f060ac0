"""The self-study frame of the paper notebooks, and a verdict in visible prose under every
reproduction: what a student alone, or a visitor of a dashboard (where cells tagged "hide" are
removed), needs to read."""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PAPERS = ["03", "04", "05"]
FIGURE = re.compile(r"paper\.\w*(figure|panel|figure\d)\w*\(")


def cells(nb):
    (path,) = NOTEBOOKS.glob(f"{nb}_*.ipynb")
    out = []
    for c in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        out.append((c["cell_type"], "".join(c["source"]), "hide" in c["metadata"].get("tags", [])))
    return out


@pytest.mark.parametrize("nb", PAPERS)
def test_opening_says_what_it_teaches_assumes_and_how_long(nb):
    opening = " ".join(s for kind, s, _ in cells(nb)[:3] if kind == "markdown")
    for part in ("You will learn", "It assumes", "Time"):
        assert part in opening, f"{nb}: the opening does not say {part!r}"
    assert re.search(r"notebook 0\d", opening, re.I), f"{nb}: the opening names no earlier notebook"


@pytest.mark.parametrize("nb", PAPERS)
def test_ending_remembers_and_points_onwards(nb):
    heads = [s.splitlines()[0] for kind, s, _ in cells(nb) if kind == "markdown"]
    assert heads[-2:] == ["## What to remember", "## Where next"], heads[-2:]


@pytest.mark.parametrize("nb", PAPERS)
def test_every_reproduction_has_a_visible_verdict_under_it(nb):
    cs = cells(nb)
    for i, (kind, src, hidden) in enumerate(cs):
        if kind != "code" or hidden or not FIGURE.search(src) or "timeline" in src:
            continue
        after = next(((k, s) for k, s, h in cs[i + 1:] if not h), None)
        assert after and after[0] == "markdown" and re.search(r"\*\*(Verdict|What)", after[1]), (
            f"{nb}: no verdict in prose right under {src.splitlines()[0]!r}")
