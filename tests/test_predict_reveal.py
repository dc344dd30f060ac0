"""Predict before the reveal: nothing above a predict question gives its answer away.

A predict question asks the student to commit before they see. Its answer must not be in the
notebook above it — the text, the code, the question itself — nor in the cells that run with it
(from the question down to the next text cell: what "Run All" shows before the student has
chosen). Each predict exercise lists its ``reveals``, the words that would state its outcome
(delaylab/exercises/_core.py); none of them, nor the right choice's label, may appear there.
What the cells print is checked by the same words in their source (the f-strings that print a
verdict) and, for the numbers they print, by the expert reviews.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from delaylab import exercises as ex

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = {p.name[:2]: p for p in sorted((ROOT / "notebooks").glob("0[1-9]_*.ipynb"))}


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _cells(nb_path: Path) -> list[dict]:
    return json.loads(nb_path.read_text(encoding="utf-8"))["cells"]


def _source(cell) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def before_the_check(cells: list[dict], eid: str) -> tuple[int, str]:
    """(index of the question's cell, the text a student has seen before choosing): every cell above
    the question, and the code cells that follow it up to the next text cell."""
    at = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and f'ex.predict("{eid}"' in _source(c)]
    assert len(at) == 1, f"{eid}: expected one cell with ex.predict(\"{eid}\"), found {len(at)}"
    i = at[0]
    end = i + 1
    while end < len(cells) and cells[end]["cell_type"] == "code":
        end += 1
    return i, _norm("\n".join(_source(c) for c in cells[:end]))


def predicts(nb: str) -> list[str]:
    return [e for e in ex.ids(nb) if ex.kind(e) == "predict"]


@pytest.mark.parametrize("nb", sorted(NOTEBOOKS))
def test_every_predict_lists_what_would_reveal_it(nb):
    for eid in predicts(nb):
        reveals = ex.get(eid).reveals
        assert reveals and all(isinstance(r, str) and len(r.split()) >= 2 for r in reveals), (
            f"{eid}: list in `reveals` the phrases (two words or more) that would state its outcome")


@pytest.mark.parametrize("nb", sorted(NOTEBOOKS))
def test_nothing_above_a_predict_gives_its_answer(nb):
    cells = _cells(NOTEBOOKS[nb])
    found = []
    for eid in predicts(nb):
        e = ex.get(eid)
        i, seen = before_the_check(cells, eid)
        for words in (e.choices[e.solution], *e.reveals):
            if _norm(words) in seen:
                found.append(f"{eid} (cell {i}): {words!r} appears above the question or in the cells run with it")
    assert not found, "\n".join(found)


def test_the_check_finds_a_giveaway():
    cells = [{"cell_type": "markdown", "source": "For small β Skipper learns nothing at all."},
             {"cell_type": "code", "source": 'ex.predict("05.x")'},
             {"cell_type": "code", "source": 'print("the answer: it grows linearly")'},
             {"cell_type": "markdown", "source": "Now move the slider: it grows linearly."}]
    i, seen = before_the_check(cells, "05.x")
    assert i == 1
    assert _norm("Skipper learns nothing") in seen and _norm("grows linearly") in seen
    assert "now move the slider" not in seen


@pytest.mark.parametrize("nb", sorted(NOTEBOOKS))
def test_no_solution_shown_above_a_predict_gives_its_answer(nb):
    """What the exercise machinery prints for an exercise placed above a predict question — its hints and
    its solution's explanation, for a few students' numbers — may not state the question's outcome either
    (review nb04-r5, finding 6: Exercise 4.2's explanation said "phases lengthen", a reveal of 4.4)."""
    from delaylab.exercises import _core
    cells = [_source(c) for c in _cells(NOTEBOOKS[nb])]
    found = []
    for eid in predicts(nb):
        e = ex.get(eid)
        i = next(k for k, c in enumerate(cells) if f'ex.predict("{eid}"' in c)
        above = "\n".join(cells[:i])
        for other in (o for o in ex.ids(nb) if o != eid and f'"{o}"' in above):
            texts = [_core.reference_explanation(other, s) for s in ("s1", "s2", "s3")]
            texts += [h(ex.params(other, "s1")) if callable(h) else h for h in ex.get(other).hints]
            seen = _norm(" ".join(map(str, texts)))
            found += [f"{eid}: {words!r} in what {other} shows above it" for words in (e.choices[e.solution], *e.reveals)
                      if _norm(words) in seen]
    assert not found, "\n".join(found)
