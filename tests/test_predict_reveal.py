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


def _stem_word(m: re.Match) -> str:
    """A word without its ending: skips, skipped, skipping → skip; uses, used → us (crude, but the same on
    both sides of a comparison, so a reveal listed in one form also catches its other forms)."""
    w = m.group(0)
    for suffix in ("ing", "ed", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[:-len(suffix)]
            break
    if w.endswith("e") and len(w) >= 4:
        w = w[:-1]
    if len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "aeioulsz":
        w = w[:-1]
    return w


def _stem(text: str) -> str:
    return re.sub(r"[a-z]+", _stem_word, _norm(text))


def _gives_away(words: str, seen: str) -> bool:
    """``words`` (a reveal) is in ``seen`` (normalised text), as written or in another word form (review
    nb05-r6, finding 1: "skips every round" was listed, "would skip every round" was not caught)."""
    return _norm(words) in seen or re.search(rf"(?<!\w){re.escape(_stem(words))}(?!\w)", _stem(seen)) is not None


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
            if _gives_away(words, seen):
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
                      if _gives_away(words, seen)]
    assert not found, "\n".join(found)


def test_the_check_finds_a_giveaway_in_another_word_form():
    """Review nb05-r6, finding 1: above Exercise 5.4, "so Skipper would skip every round" (cell 21) and "every
    d_t >= 20 is skipped" (cell 23's comment) stated its outcome; `reveals` listed "skips every round" and
    "every round is skipped" only. Both sentences, as they stood, must be caught."""
    e = ex.get("05.skipper-beta")
    for old in ("An easy slip is to drop the $|S_\\beta|$ term: it is 17.5 at the live panel's defaults, below $d = 20$, "
                "so Skipper would skip every round; $\\beta^*$ is 57.3, computed below.",
                "assert relaxed(b_slip) > relaxed(b_star) and b_slip < 20  # the slip: a larger bound, and every "
                "d_t >= 20 is skipped",
                "With this beta, Skipper skipped every round.", "Skipping every round, it plays uniformly."):
        cells = [{"cell_type": "markdown", "source": old}, {"cell_type": "code", "source": 'ex.predict("05.skipper-beta")'}]
        _, seen = before_the_check(cells, "05.skipper-beta")
        assert any(_gives_away(w, seen) for w in e.reveals), old
    # and the stemming does not make every sentence about skipping a giveaway (cell 24: "every round Skipper skips")
    _, seen = before_the_check([{"cell_type": "markdown", "source": "Skipper skips the rounds with d_t >= beta; "
                                 "each skipped round costs at most one unit. With β ≥ 5 every round Skipper skips is "
                                 "an informative one."},
                                {"cell_type": "code", "source": 'ex.predict("05.skipper-beta")'}], "05.skipper-beta")
    assert not any(_gives_away(w, seen) for w in (e.choices[e.solution], *e.reveals))
