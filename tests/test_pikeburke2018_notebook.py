"""Notebook 04's statements against the paper and against what delaylab computes (issue 33's findings
7 and 8, its other notebook-04 items, and issue 34's): each test fails on the text or code the
issues found wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import delaylab as dl
from delaylab import exercises as ex
from delaylab.papers import pikeburke2018 as paper
from delaylab.policies.improved_ucb import improved_ucb_sizes
from delaylab.policies.odaaf import n_phases, odaaf_sizes

ROOT = Path(__file__).resolve().parent.parent
CELLS = ["".join(c["source"]) for c in
         json.loads((ROOT / "notebooks" / "04_aggregated_anonymous.ipynb").read_text(encoding="utf-8"))["cells"]]
GUIDE = (ROOT / "docs" / "instructor.md").read_text(encoding="utf-8")


def cell(start: str) -> str:
    (c,) = [c for c in CELLS if c.startswith(start)]
    return c


def section(guide: str, head: str, until: str) -> str:
    return guide[guide.index(head):guide.index(until, guide.index(head))]


# ------------------------------------------------------------- finding 7: Appendix F's verdict
def test_appendix_f_verdict_says_which_half_of_the_claim_reproduces():
    verdict = cell("**Verdict (Appendix F")
    assert "matches the paper's claim" not in verdict
    assert "half of the paper's claim reproduces" in verdict
    assert "ODAAF's half reproduces" in verdict and "QPM-D's half does **not** reproduce" in verdict
    assert "Section 5 says, as printed" in cell("## 6. Appendix F")


def test_at_the_notebooks_parameters_odaafs_slope_is_positive_and_qpmds_is_not_measurable():
    study = paper.appendix_f(runs=10, horizon=30_000)
    s = {n: paper.slopes(study, n) for n in ("ODAAF", "QPM-D")}
    se = {n: v.std(ddof=1) / np.sqrt(v.size) for n, v in s.items()}
    assert s["ODAAF"].mean() > 3 * se["ODAAF"]
    assert abs(s["QPM-D"].mean()) < 2 * se["QPM-D"]  # the "slope 0.03, R² = 0.007"
    mean, _ = paper.final_regret(study, "QPM-D")
    assert paper.linear_fit(study["means"], mean)[2] < 0.1
    claims = paper.appendix_f_claims(study, paper.qpmd_far(runs=40, horizon=30_000))
    assert all(c.holds for c in claims), "\n".join(map(str, claims))


# ------------------------------------------------------------- finding 8: what the bridges buy
def test_the_bridge_model_answer_attributes_the_m_term_to_summing_over_pooled_blocks():
    e = ex.get("04.why-bridge")
    text = e.solution + " ".join(e.points) + " ".join(e.hints)
    for wrong in ("feed into the next", "accumulate"):
        assert wrong not in text, wrong
    assert "Section 4.1" in e.solution and "Eq. 3" in e.solution and "Eq. 4" in e.solution
    assert "Proposition 1" in e.solution and "still active" in e.solution
    assert any("active in the current phase" in p for p in e.points)
    guide = section(GUIDE, "## Notebook 04", "## Notebook 05")
    assert "errors no longer accumulate" not in guide and "makes errors accumulate" not in guide
    assert "Proposition 1" in guide and "Section 4.1" in guide
    notebook = "\n".join(CELLS)
    assert "errors of all previous blocks accumulate" not in notebook and "cut that accumulation" not in notebook


# ------------------------------------------------------------- 4.4: nothing gives it away before its check
def test_nothing_between_the_question_and_its_reveal_states_the_outcome():
    start = next(i for i, c in enumerate(CELLS) if 'ex.predict("04.double-delay")' in c)
    end = next(i for i, c in enumerate(CELLS) if c.startswith("### What doubling"))
    between = "\n".join(CELLS[start + 1:end]).lower()
    e = ex.get("04.double-delay")
    for words in (e.choices[e.solution], *e.reveals):
        assert words.lower() not in between, words
    assert "additive cost of order" not in CELLS[0]  # the title cell said it (issue 33)


# ------------------------------------------------------------- bridges credited with a gap: isolated
def test_the_bridge_comparison_differs_in_the_bridges_alone():
    pols = paper.bridge_policies(10.0, 20.0)
    for a, b in (("ODAAF", "ODAAF (with bridges)"), ("ODAAF-B", "ODAAF-B (without bridges)")):
        pa, pb = pols[a].get_params(), pols[b].get_params()
        assert type(pols[a]) is type(pols[b]) and pols[a].bridges != pols[b].bridges
        assert {k for k in pa.keys() | pb.keys() if pa.get(k) != pb.get(k)} == {"bridge"}
    assert "differs from ODAAF in its phase sizes **and** in its bridge periods" in cell("**Verdict (Figure 2")
    assert "bridge=True" in cell("## 7. What the bridge periods do") and "bridge=False" in cell("## 7. What the")


def test_improved_ucb_is_not_called_odaaf_without_delays():
    """Told E[τ] = 0, ODAAF's phases are at least four times Improved UCB's: the gap between them is not
    what delays cost (the notebook said it was, in the panel's things to try and under Appendix F)."""
    T = 50_000
    m = np.arange(1, n_phases(T) + 1)
    assert np.all(odaaf_sizes(m, T, 0.0) >= 4 * improved_ucb_sizes(m, T) - 4)
    text = "\n".join(CELLS)
    assert "the gap to it is what delays and anonymity cost" not in text
    assert "Improved UCB without any delay: what delays cost is the distance to it" not in text
    assert "four times Improved UCB's" in cell("## 3. The algorithm")


# ------------------------------------------------------------- issue 34: what the student's screenshots showed
def test_the_phase_table_keeps_its_columns_apart():
    html = paper.phase_table(horizon=50_000, mean_delay=10.0, bound=20).data
    rows = re.findall(r"<tr>(.*?)</tr>", html)
    assert len(rows) == 1 + n_phases(50_000)
    cells = [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r) for r in rows]
    assert all(len(c) == 5 for c in cells)
    n5 = int(odaaf_sizes(5, 50_000, 10.0))
    assert f"{n5:,}" in cells[5][2] and n5 > 10_000  # one number per cell, thousands separated
    assert "phase_table" in cell("paper.phase_table(")


def test_appendix_f_has_a_title_and_says_why_some_error_bars_are_missing():
    fr = paper.appendix_f_panel(runs=2, horizon=3000)
    assert "Appendix F" in (fr.fig.layout.title.text or "")
    assert "Where a bar is missing, every run ended with the same regret" in fr.caption.value
    study = paper.appendix_f(runs=10, horizon=30_000)
    sd = study["anonymous"].final("ODAAF").std(axis=-1)
    assert np.any(sd == 0) and np.any(sd > 0)  # the reason: identical runs where the bar is missing
    assert "where a bar is missing, every run ended with the same regret" in cell("## 6. Appendix F")
    names = [t.name for t in fr.fig.data]
    assert dl.UNIFORM in names and "Improved UCB, no delay" not in names


def test_claims_of_the_notebook_hold_on_their_own_parameters():
    """The bridges' and Exercise 4.4's claims (the others are in the tests above and in nbval)."""
    for claims in (paper.bridges_claims(paper.bridges(runs=20, horizon=30_000)),
                   paper.doubling_claims(paper.doubling(runs=20, horizon=5000, gap=0.3))):
        assert all(c.holds for c in claims), "\n".join(map(str, claims))


@pytest.mark.parametrize("start", ["dl.claims.check(*paper.doubling_claims", "f2 = paper.figure2(",
                                   "study, far = paper.appendix_f(", "dl.claims.check(*paper.bridges_claims"])
def test_every_verdict_has_its_check_cell_on_fixed_parameters(start):
    src = cell(start)
    assert "dl.claims.check(" in src and "panel." not in src and "fig2.results" not in src and "figF" not in src
