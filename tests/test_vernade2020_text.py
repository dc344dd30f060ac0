"""Notebook 03's text, its guide sections and its readings say what the simulations show.

Issue 33, finding 6: the notebook and the guide called Algorithm 1 as printed "a provably correct
but very cautious algorithm" that "explores far more". On the paper's own instance it does worse
than choosing actions uniformly at random; the text must say so, say why, and check it in code
beside the sentence. The comparison credited to the delay term must differ in that term alone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NB = ROOT / "notebooks" / "03_linear_delayed.ipynb"


def _cells():
    return [(c["cell_type"], "".join(c["source"])) for c in json.loads(NB.read_text(encoding="utf-8"))["cells"]]


def _markdown() -> str:
    return "\n".join(s for t, s in _cells() if t == "markdown")


def _guide_section() -> str:
    text = (ROOT / "docs" / "instructor.md").read_text(encoding="utf-8")
    return text.split("## Notebook 03")[1].split("\n## Notebook 04")[0]


def _readings_section() -> str:
    text = (ROOT / "docs" / "readings.md").read_text(encoding="utf-8")
    return text.split("## 3. ")[1].split("\n## 4. ")[0]


def test_nothing_calls_the_printed_algorithm_merely_cautious():
    for where, text in [("notebook 03", _markdown()), ("guide, notebook 03", _guide_section()),
                        ("readings, paper 3", _readings_section())]:
        for stale in ("very cautious", "provably correct but", "explores far more", "explores the most"):
            assert stale not in text, f"{where} still says {stale!r}"


def test_the_text_says_the_printed_algorithm_loses_to_uniform_play_and_why():
    cells = _cells()
    md = _markdown()
    # said where the issue found it: §5's reading, its verdict, What to remember, and the live panel's reading
    assert "does worse than choosing actions uniformly at random in all three panels" in md
    assert "ends above OTFLinTS, and above uniform random play, in every panel" in md
    assert "Algorithm 1 as printed does **worse than choosing actions uniformly at random**" in md
    assert "**OTFLinUCB as printed does worse than choosing actions uniformly at random**" in md
    assert "Algorithm 1 as printed ends highest, above uniform random play" in md          # Figure 3
    # why: the estimate is τ_m θ, the width dominates, the least-explored directions have low rewards
    assert "the width dominates for a long time and the learner over-explores the least-explored, low-reward" in md
    assert "The width decides" in md and "the sparse ones, whose mean" in md
    # each of those paragraphs is followed, before the next section, by a check cell with a uniform-play claim
    for key in ("does worse than choosing actions uniformly at random in all three panels",
                "**OTFLinUCB as printed does worse than choosing actions uniformly at random**",
                "Algorithm 1 as printed ends highest, above uniform random play"):
        i = next(j for j, (t, s) in enumerate(cells) if t == "markdown" and key in s)
        later = []
        for t, s in cells[i + 1:]:
            if t == "markdown" and s.startswith("## "):
                break
            later.append(s if t == "code" else "")
        assert any("dl.UNIFORM" in s and "C.check(" in s for s in later), key
    guide = _guide_section()
    assert "worse than choosing actions uniformly at random" in guide and "least-explored" in guide


def test_check_cells_change_no_control_and_use_their_own_parameters():
    for t, s in _cells():
        if t != "code":
            continue
        assert not re.search(r"\.(value|index)\s*=[^=]", s), f"a cell moves a control:\n{s}"
        if "claims" in s or "C.check(" in s:
            assert "fig1.results" not in s and "fig3.results" not in s and "panel." not in s, s


def test_statements_attributed_to_the_paper_say_how_we_read_them():
    """A paragraph that cites the paper (an equation, a theorem, an algorithm box, 'the paper') says
    "as printed", "corrected" or "our reading"."""
    cite = re.compile(r"Eq\. \d|Theorem \d|Algorithm \d|Remark \d|the paper|paper's|Section [78]\b")
    missing = []
    for t, s in _cells():
        if t != "markdown":
            continue
        for para in s.split("\n\n"):
            if cite.search(para) and not re.search(r"as printed|corrected|our reading", para):
                missing.append(para[:120])
    assert not missing, "\n".join(missing)


def test_the_delay_term_is_credited_with_what_the_comparison_that_isolates_it_shows():
    md = _markdown()
    assert "the two differ in the delay term alone" in md
    assert "so any gap between them is the delay term's" in md
    assert "The two differ in their width alone" in md   # LinUCB: what else differs (review nb03-r1, 8)
    assert "**The delay term costs regret here**" in md and "**What the delay term does.**" in md


def test_parameters_not_in_the_paper_are_marked():
    md, readings = _markdown(), _readings_section()
    assert "$\\delta = 0.1$ and $\\lambda = 1$ are not in the paper's text" in md
    assert "δ = 0.1 and λ = 1 are not in the paper's text" in " ".join(readings.split())


def test_the_geometric_law_is_written_with_its_mean_not_with_lambda():
    """λ is the regulariser in this notebook: τ_m of the geometric law is 1 − (μ/(μ+1))^(m+1)."""
    import delaylab as dl
    from delaylab import exercises as ex  # noqa: F401 (registers the exercises)

    assert abs(dl.Geometric(50).cdf(50) - (1 - (50 / 51) ** 51)) < 1e-12
    from delaylab.exercises import p03

    texts = " ".join(msg for _, msg in p03._target_wrong(ex.params("03.ridge-target")))
    assert "1 − λ^(m+1)" not in texts and "1 - (\\mu/(\\mu + 1))^{m+1}" in texts
    assert "1 − λ^(m+1)" not in _guide_section()


def test_the_guide_board_numbers_are_what_delaylab_computes():
    """The guide's board derivation in §4/§5 states 1 − 1/√d ≈ 0.55, τ_m times that ≈ 0.35 (m = μ = 100, d = 5), 2f ≈ 13 at
    t = 1000 and 2f ≈ 14 at T = 3000; the notebook states the same."""
    import math

    import delaylab as dl
    from delaylab.policies.linear import confidence_radius

    gap = float(dl.Geometric(100).cdf(100)) * (1 - 1 / math.sqrt(5))
    two_f_1000, two_f_3000 = (2 * float(confidence_radius(t, 5, 1.0, 0.1)) for t in (1000, 3000))
    guide, md = _guide_section(), _markdown()
    assert f"1 − 1/√d ≈ {1 - 1 / math.sqrt(5):.2f} under θ (τ_m times that, ≈ {gap:.2f}" in guide
    assert f"1 - 1/\\sqrt d \\approx {1 - 1 / math.sqrt(5):.2f}$ under $\\theta$" in md
    assert f"α_{{t,δ}} ≥ 2f_{{t,δ}} ≈ {two_f_1000:.0f}" in guide
    assert f"2f_{{t,δ}} ≈ {two_f_3000:.0f} multiplies the norm at T = 3000" in guide


# ------------------------------------------------------------------ review nb03-r1 (reviews/nb03-r1.md)
def _code() -> list[str]:
    return [s for t, s in _cells() if t == "code"]


def _check_cell(marker: str) -> str:
    hits = [s for s in _code() if s.startswith(marker)]
    assert len(hits) == 1, marker
    return hits[0]


def test_r1_1_which_part_of_the_width_keeps_algorithm_1_above_uniform_play():
    """At T = 3000 the radius 2f alone loses to uniform play only in (100, 500); in the first two
    panels Algorithm 1 without its delay term ends below uniform play: the delay term decides."""
    md, guide, readings = _markdown(), _guide_section(), " ".join(_readings_section().split())
    assert "The width decides, and it sends the learner to the sparse, low-reward actions" not in md
    assert "Its delay term, needed for the worst-case guarantee, only adds to that here" not in md
    assert ("In the first two panels it is not: without its delay term the same algorithm ends below uniform play at "
            "$T = 3000$, and it is the delay term, on top of $2f_{t,\\delta}$, that keeps Algorithm 1 above it") in md
    assert "it is the delay term, needed for the worst-case guarantee, that keeps it above uniform play" in md
    assert "the delay term is what keeps Algorithm 1 above it" in guide
    assert "and it is the delay term that keeps Algorithm 1 above it" in readings
    cell = _check_cell("# §5's statements on Figure 1")
    assert 'C.lower(r1[k], NT, U, text=f"{k}: ... and below uniform play") for k in [(100, 100), (500, 100)]' in cell
    assert 'C.lower(slow, U, NT' in cell


def test_r1_2_algorithm_1_does_not_keep_picking_bad_actions():
    """It over-explores early, then adds less regret per step than uniform play and overtakes it."""
    for where, text in [("notebook", _markdown()), ("guide", _guide_section()), ("readings", _readings_section())]:
        assert "keeps picking" not in text, where
    md = _markdown()
    assert "Nor does Algorithm 1 keep playing worse than random" in md
    assert "run on to $T = 6000$, it ends below uniform play in $(100, 100)$" in md
    assert "at (100, 100) it ends below uniform play by T = 6000" in _guide_section()
    cell = _check_cell("# §5's statements on Figure 1")
    assert "longer = dl.simulate(paper.setting(100, 100), pols, 6000, 10, seed=0)" in cell
    assert 'C.lower(longer, "OTFLinUCB", U' in cell and "paper.late_slope(r1[k], U, 2000)" in cell


def test_r1_3_4_the_cheap_delay_term_is_not_a_little_wider_and_costs_what_the_paper_says():
    from delaylab.policies import linear

    md, guide, readings = _markdown(), _guide_section(), " ".join(_readings_section().split())
    for stale in ("widens the set a little more", "costs $O(m)$ instead of $O(md^2)$ per round",
                  "played, $O(m)$ per round"):
        assert stale not in md, stale
    assert "slightly wider set" not in guide and "slightly wider" not in linear.__doc__
    assert "the cheap term is up to about 1.7 times the exact one here, when the window first fills" in md
    assert "up to about 1.7 times as large when the window first fills, at step m" in guide
    assert "about 1.7 times the exact one when the window first fills (step m = μ = 100" in readings
    assert "$O(d^2)$ per round as the paper counts it" in md and "O(d²) per round in the paper's count" in readings
    cell = _check_cell("# §3's statements on the cheap delay term")
    assert "why.cheap_term / why.exact_term" in cell and 'C.ratio_within(both, "cheap", "exact"' in cell


def test_r1_7_the_pending_conversions_always_pull_the_same_way():
    md = _markdown()
    assert "when the pending conversions all push the estimate the same way" not in md
    assert "can only be missing from $B_t$, never extra" in md
    assert "the proof charges each of the last $m$ actions a whole missing conversion" in md


def test_r1_8_linucb_sees_the_conversions_otflinucb_counts():
    from delaylab.policies.linear import LinUCB

    md = _markdown()
    assert "every conversion seen so far, whatever its delay" not in md and "three ways at once" not in md
    assert "so LinUCB sees exactly the conversions OTFLinUCB counts" in md
    assert "whatever its delay" not in LinUCB.__doc__ and "differ in their width alone" in LinUCB.__doc__
    assert "differs from it in its width alone" in " ".join(_readings_section().split())


def test_r1_9_10_11_the_verdict_says_what_is_compared_and_what_differs():
    from delaylab.papers import vernade2020 as paper

    md = _markdown()
    assert "The paper's ordering holds for the code it ran" not in md
    assert "we did not run the authors' Thompson-sampling code" in md
    assert "We did not run the authors' Thompson-sampling code" in " ".join(_readings_section().split())
    assert "we did not run the authors' Thompson-sampling code" in _guide_section()
    caption = paper.figure1_panel(runs=1).caption.value
    assert "whose curves are the ones in the paper" not in caption and "Algorithm 2 as printed" in caption
    assert "the two panels end at similar regrets" not in md
    assert "the larger window ends higher, by about 40% (120 runs), where the paper calls both \"roughly 100\"" in md
    assert "every curve is still rising" not in md and "every curve still rises" not in md
    assert "every learner's curve rises faster over its last 500 steps than in $(100, 100)$" in md
    cell = _check_cell("# §5's statements on Figure 1")
    assert "within 50 of each other" not in cell and "paper.ratio(a_wide.final(A), a_fast.final(A))" in cell


def test_r1_13_a_maximum_is_not_given_a_standard_error():
    cell = _check_cell("# §5's statements on Figure 1")
    assert "cov.max(), se(cov)" not in cell
    assert "cov.max(), 0," in cell and "cov.mean(), se(cov)" in cell


def test_r1_14_figure_3_draws_algorithm_1_as_printed():
    import inspect

    from delaylab.papers import vernade2020 as paper

    assert inspect.signature(paper.figure3_panel).parameters["width"].default == "exact"
    assert "cheap" not in paper.figure3_panel(runs=1).caption.value
    cell = _check_cell("# §6's statements on Figure 3")
    assert 'width="cheap"' not in cell and "paper.figure3(runs=10, seed=0)" in cell


def test_r1_15_16_sections_and_readings_are_named_right():
    md = _markdown()
    assert "(Section 3 says what else they change)" not in md
    assert "(§3 says how LinUCB differs, §5 what the authors' index changes)" in md
    assert "Section 8 as printed: $K$ vectors drawn from" not in md
    assert ("\"sample and normalize $K$ actions from $\\{0,1\\}^d$\"; we draw each uniformly from "
            "$\\{0,1\\}^d \\setminus \\{0\\}$") in md
    assert "sample and normalize K actions from {0,1}^d" in " ".join(_readings_section().split())


# ------------------------------------------------------------------ review nb03-r2 (reviews/nb03-r2.md)
def test_r2_1_figure_3_is_ordered_at_the_horizon_not_all_along():
    """Early on the authors' index is above OTFLinTS and both above uniform play: "stays lowest" was
    wrong. The text gives the order at T and the crossings, the check cell tests each time."""
    md, guide = _markdown(), _guide_section()
    assert "stays lowest" not in md and "stays lowest" not in guide
    assert "at $T = 10{,}000$ the index of the authors' code ends lowest, then OTFLinTS" in md
    assert ("Early on, the order of the first three is reversed: at $t = 500$ the authors' index is above OTFLinTS, "
            "and both are above uniform random play") in md
    assert ("The authors' index falls below uniform play between $t = 1000$ and $t = 2000$, OTFLinTS only between "
            "$t = 2000$ and $t = 3000$") in md
    assert "an ordering at the horizon is not an ordering all along" in guide
    cell = _check_cell("# §6's statements on Figure 3")
    for piece in ("gap(A, TS, 500)", "gap(TS, U, 500)", "gap(A, U, 1000)", "gap(U, A, 2000)", "gap(TS, U, 2000)",
                  "gap(U, TS, 3000)", "paper.paired(r3.at(a, t), r3.at(b, t))"):
        assert piece in cell, piece


def test_r2_2_an_action_converts_with_theta_and_is_counted_with_tau_m_theta():
    md = _markdown()
    assert "converts, in the end, only with probability" not in md
    assert ("it converts within the window (and is counted in $B_t$) only with probability "
            "$\\tau_m \\langle A_s, \\theta\\rangle$") in md
    # §1: it converts (X_s = 1) with probability <A_s, θ>
    assert "$X_t \\sim \\text{Bernoulli}(\\langle A_t, \\theta\\rangle)$" in md


def test_r2_3_pending_conversions_bias_b_t_one_way_not_the_estimate():
    """B_t misses Σ c_s A_s with c_s ∈ {−1, 0}; the estimate's shift is V_t⁻¹ times that, and V_t⁻¹
    has entries of both signs."""
    md = _markdown()
    assert "pull the estimate the same way" not in md
    assert "always bias $B_t$ the same way (they cannot cancel like zero-mean noise)" in md


def test_r2_5_the_guide_does_not_say_the_cheap_term_becomes_equal():
    """Measured 1.027 at t = 10m (m = 100): never equal; the notebook checks "within 5%" at t = 10m."""
    guide, md = _guide_section(), _markdown()
    assert "equal once t ≫ m" not in guide and "It is slight once $t \\gg m$" in md
    assert ("a delay term up to about 1.7 times as large when the window first fills, at step m (within a few per "
            "cent once t ≫ m)") in guide
    assert "... and at step 999 within 5% of it" in _check_cell("# §3's statements on the cheap delay term")


def test_r2_6_on_the_fly_is_not_attributed_to_the_paper_as_censoring():
    from delaylab.policies import linear

    doc = " ".join(linear.__doc__.split())
    assert '("on the fly" censoring)' not in doc
    assert '"On-The-Fly", in the algorithms\' names, is the paper\'s; it does not name this censoring' in doc


# ------------------------------------------------------------------ review nb03-r3 (reviews/nb03-r3.md)
def test_r3_4_the_index_of_y_tilde_is_a_correction_of_the_printed_one():
    """Section 3 (as printed): the learner observes the Y_{s,t} "at the end of round t", after playing;
    Ỹ_{s,t} with t − s in B_t would use them at round t's decision. With t − 1 − s the conversions
    that may still come are those of exactly m actions, the range of Theorem 1's sum."""
    from delaylab.policies import linear

    md = _markdown()
    assert "in our step convention, where the paper writes $t - s$" not in md
    assert ("(Eq. 2 and Section 4, as printed but for one index, corrected: Section 4 prints $t - s$, but the learner "
            "observes the $Y_{s,t}$ \"at the end of round $t$\" (Section 3, as printed)") in md
    doc = " ".join(linear.__doc__.split())
    assert "t − 1 − s corrects the printed t − s" in doc
    # a pull s is still pending at the decision of round t iff its lag is below m: count them, m = 7, t = 40
    m, t = 7, 40
    assert sum(1 for s in range(t) if t - 1 - s < m) == m and sum(1 for s in range(t) if t - s < m) == m - 1
    # and delaylab reveals a pull of step s with delay D at the end of step s + D: seen at step t iff D ≤ t − 1 − s
    assert "the learner deciding at step t knows every outcome with s + D ≤ t − 1" in " ".join(
        (ROOT / "docs" / "readings.md").read_text(encoding="utf-8").split())


def test_r3_1_the_authors_beta_is_defined_and_is_not_otflints_beta():
    """§5 wrote √(β_t + λ) without defining β_t, after §3 had defined OTFLinTS's β_{t,δ}, which is about
    3 times smaller here. The authors' β_t = 2 log(1/δ) + d log(1 + t/(dλ)) (the index the oracle
    tests/oracles/vernade2020.py checks the policy against): √β_t is f_{t,δ}'s logarithmic term."""
    import math

    import pytest

    from delaylab.policies.linear import OTFLinUCB, confidence_radius

    md = _markdown()
    assert "\\sum_{s}\\|A_s\\|^2_{V_s^{-1}}" not in md
    assert ("\\sum_{s=t-m}^{t-1}\\|A_s\\|^2_{V_s^{-1}})\\,\\|a\\|^2_{V_t^{-1}}$ with "
            "$\\beta_t = 2\\log(1/\\delta) + d\\log(1 + t/(d\\lambda))$, $t$ the number of past rounds") in md
    assert "This $\\beta_t$ is not OTFLinTS's $\\beta_{t,\\delta}$ of §3" in md
    assert "$\\sqrt{\\beta_t}$ is the logarithmic term of $f_{t,\\delta}$, so $\\sqrt{\\beta_t + \\lambda} \\le f_{t,\\delta}$" \
        in md
    for t in (1, 10, 1000, 3000):
        for d, lam, delta in [(5, 1.0, 0.1), (2, 0.3, 0.01), (8, 4.0, 0.5)]:
            beta = 2 * math.log(1 / delta) + d * math.log(1 + t / (d * lam))
            f = float(confidence_radius(t, d, lam, delta))
            assert math.sqrt(beta) == pytest.approx(f - math.sqrt(lam), rel=1e-12)
            assert math.sqrt(beta + lam) <= f
    # OTFLinTS's β_{t,δ} at the live panel's defaults is about 2: √(β + λ) ≈ 1.75, against the authors' 5.67
    assert math.sqrt(2 * math.log(10) + 5 * math.log(1 + 1000 / 5) + 1) > 3 * math.sqrt(2.05 + 1)
    assert "not OTFLinTS's β_{t,δ}" in " ".join(OTFLinUCB.__doc__.split())


def test_r3_2_delta_and_lambda_are_credited_to_the_authors_scripts_everywhere():
    from delaylab.papers import vernade2020
    from delaylab.policies.linear import OTFLinUCB

    doc = " ".join(OTFLinUCB.__doc__.split())
    assert "in the paper's experiments)" not in doc
    assert ("(0.1 in the authors' scripts for the paper's experiments; not in the paper's text)" in doc
            and "(1 in the authors' scripts for the paper's experiments; not in the paper's text)" in doc)
    assert "δ = 0.1, λ = 1 (from the authors' scripts)" in " ".join(vernade2020.__doc__.split())


def _widgets(w):
    yield w
    for c in getattr(w, "children", ()):
        yield from _widgets(c)


def test_r3_3_the_guides_slide_view_is_the_deck_not_a_stale_description():
    """The slide view said the ellipse panel had two sliders, one 640 pixels wide (it has three, 320
    pixels each: mean delay μ, window m, time t), and that §6 had no slide of its own. It is now the
    deck's outline that tools/slides.py writes (test_instructor_guide checks it against the deck)."""
    import ipywidgets as W

    from delaylab.panels.linear import EllipsePanel

    guide = " ".join(_guide_section().split())
    view = guide.split("**Slide view**")[1].split("### ")[0]
    for stale in ("640", "two sliders", "at the bottom of Figure 1's reading"):
        assert stale not in view, stale
    assert "<!-- slide view 03 -->" in view and "the ellipse panel" in view and " §6 " in view
    panel = EllipsePanel(horizon=300)
    sliders = [w for c in panel.controls() for w in _widgets(c) if isinstance(w, W.IntSlider)]
    assert [s.description for s in sliders] == ["mean delay μ", "window m", "time t"]
    assert {s.layout.width for s in sliders} == {"320px"} and panel.fig.layout.height == 520


def test_r3_5_seconds_and_the_100_second_step_are_our_reading():
    """The paper rescales the delays by 0.01 to keep T = 10^4 and gives no unit."""
    import math

    import numpy as np

    from delaylab.papers import vernade2020

    md = _markdown()
    for stale in ("so that one step is 100 seconds", "$\\log_{10}$ delays (seconds) of the Criteo data"):
        assert stale not in md, stale
    assert ("the paper rescales them by a factor 0.01 to keep the horizon at $T = 10{,}000$, with $m = 2000$ "
            "(Section 8, as printed). The paper gives no unit: we read the delays as seconds (our reading") in md
    assert "(Section 8, as printed; in seconds, our reading)" in md
    readings = " ".join(_readings_section().split())
    assert "divides the delays by 100 (one step = 100 s), as the paper does" not in readings
    assert "The paper gives no unit: we read its delays as seconds" in readings and "100 s (our reading)" in readings
    assert "one step = 100 s (our reading: the paper rescales the delays by 0.01 and gives no unit)" in " ".join(
        _guide_section().split())
    doc = " ".join(vernade2020.__doc__.split())
    assert "(seconds) divided by 100" not in doc and "so one step is 100 s (our reading)" in doc
    assert "our reading" in vernade2020.figure3_panel(runs=1).caption.value
    # the reading's evidence: the 30-day attribution window, in seconds, is the top of the shipped table
    table = np.loadtxt(ROOT / "delaylab" / "data" / "criteo_delay_quantiles.csv", delimiter=",", skiprows=5)
    assert table[-1, 0] == 1.0 and round(math.log10(30 * 86400), 4) == table[-1, 1]
    assert "$10^{6.41}$ s" in md and f"{math.log10(30 * 86400):.2f}" == "6.41"


def test_r3_6_the_authors_index_at_500_100_is_flat_from_about_t_500():
    md = _markdown()
    assert "flat from about $t = 1000$" not in md
    assert ("the larger window's curve is flat from about $t = 500$ (after $t = 500$ it adds less than 5 to its "
            "regret, less than in the 100 steps before) while the smaller window's keeps rising slowly, even after "
            "$t = 1000$") in md
    cell = _check_cell("# §5's statements on Figure 1")
    assert "flat(a_wide, 500).mean(), se(flat(a_wide, 500)), high=5, z=3" in cell
    assert "paper.paired(a_wide.at(A, 500) - a_wide.at(A, 400), flat(a_wide, 500)), low=0, z=3" in cell
    assert "flat(a_fast, 1000).mean(), se(flat(a_fast, 1000)), low=0, z=3" in cell


# ------------------------------------------------------------------ review nb03-r4 (reviews/nb03-r4.md)
def test_r4_1_the_cause_of_losing_to_uniform_play_is_the_width_not_the_censoring():
    """With μ = 1 (τ_m ≈ 1, nothing pending) Algorithm 1 as printed still loses to uniform play at
    T = 1000 (its delay term sums m norms whatever the delays): the text must not credit τ_m's
    shrinkage, and a check cell must run that isolating case beside the panel's defaults."""
    md, guide = _markdown(), _guide_section()
    readings = " ".join(_readings_section().split())
    assert "Why: its estimate targets" not in md and "with $\\hat\\theta^W_t \\approx \\tau_m\\theta$ small" not in md
    assert "With a weak signal or a short horizon" not in md
    assert "its estimate targets τ_m·θ, so the actions' estimates differ by little" not in readings
    assert "under τ_m·θ two actions differ by at most" not in guide
    assert "The delays are not the cause: with $\\mu = 1$ ($\\tau_m \\approx 1$) it still loses" in md
    assert "It loses even with no effective delay ($\\mu = 1$, §4 above)" in md   # r11: μ = 1, not τ_m ≈ 1
    assert "even with no effective delay (μ = 1: its delay term sums m norms whatever the delays" in guide
    assert "even with no effective delay, μ = 1, since the delay term sums m norms whatever the delays" in readings
    cell = _check_cell("# The statements above, on the panel's default parameters")
    assert "paper.setting(100, 1)" in cell and "res4.final(\"OTFLinUCB\") - res1.final(\"OTFLinUCB\")" in cell
    assert 'C.lower(res1, dl.UNIFORM, "OTFLinUCB"' in cell and "C.lower(res1, paper.NO_DELAY_TERM, dl.UNIFORM" in cell


def test_r4_1_mu_1_leaves_nothing_pending_in_the_window():
    import delaylab as dl

    assert float(dl.Geometric(1).cdf(100)) > 0.9999


def test_r4_2_one_list_of_how_the_authors_code_deviates():
    from delaylab.policies import linear

    doc = " ".join(linear.__doc__.split())
    assert "pseudo-inverses" not in doc
    assert "squared norms, no factor 2, no √λ outside the root; our reading of that code" in doc
    assert 'variant="authors-code"' in doc


def test_r4_3_the_cheap_term_is_about_1_7_times_not_nearly_twice():
    from delaylab.policies import linear

    for where, text in [("notebook", _markdown()), ("guide", _guide_section()),
                        ("readings", " ".join(_readings_section().split())), ("linear.py", linear.__doc__)]:
        assert "nearly twice" not in " ".join(text.split()), where


def test_r4_4_still_in_the_linear_regime_is_the_papers_and_about_its_algorithms():
    md = _markdown()
    assert "still rising at $T = 3000$, as the paper says" not in md
    assert "what the paper calls \"still in the linear regime\"" not in md
    assert "the paper has \"both algorithms […] still in the linear regime\" at $T = 3000$ (Section 8, as printed)" in md


def test_r4_5_no_editing_note_left_in_the_textbook_map():
    assert "— check)" not in _guide_section()


def test_r4_6_the_stub_says_which_norms_the_cheap_delay_term_sums():
    src = (ROOT / "delaylab" / "exercises" / "p03.py").read_text(encoding="utf-8")
    assert "in V_t^-1 (in V_s^-1 when the panel's delay term is 'cheap')." in src
    assert "in V_t^-1 (in V_s^-1 when the panel's delay term is 'cheap')." in "".join(_code())


def test_r4_7_the_cheap_term_ratio_is_read_at_the_step_it_names():
    cell = _check_cell("# §3's statements on the cheap delay term")
    assert "ratio[99]" not in cell and "ratio[-1]" not in cell
    assert "at step 100 (the first whose delay term sums m actions)" in cell and "ratio[100]" in cell
    assert "at step 999" in cell and "ratio[999]" in cell


def test_r4_8_notebook_04_sums_the_arriving_pulls_not_all_arms():
    md = _markdown()
    assert "summed over all arms" not in md
    assert "summed over all the past pulls whose delays end in the same round" in md


# ------------------------------------------------------------------ review nb03-r5 (reviews/nb03-r5.md)
def test_r5_1_exercise_3_3_says_which_geometric_law_and_names_the_other_one():
    """The paper's "geometric with mean μ" has two conventions; the authors' scripts use scipy's, on {1, 2, …}.
    The exercise must state delaylab's law, and an answer from the other one must be told so, not to give more
    digits: every drawn instance (and the default one) tells the two apart."""
    import numpy as np

    from delaylab import exercises as ex
    from delaylab.exercises import p03

    for who in ("", "alice", "student0"):
        given = ex.get("03.ridge-target").given(ex.params("03.ridge-target", who))
        assert "delays are geometric on {0, 1, 2, …} with mean μ" in given and "P(D > d) = (\\mu/(1+\\mu))^{d+1}" in given
    for who in [""] + [f"student{i}" for i in range(60)]:
        p = ex.params("03.ridge-target", who)
        tau_1 = 1 - (1 - 1 / p["mu"]) ** p["m"]
        answer = tau_1 / p03._tau(p["mu"], p["m"]) * np.asarray(ex.solution("03.ridge-target", who))
        fb = ex.check("03.ridge-target", answer, student=who)
        assert not fb.correct and "a geometric law on {1, 2, …}" in fb.message, (who, fb.message)
    assert "the geometric law on {1, 2, …} (scipy's, the authors' scripts)" in _guide_section()


def test_r5_2_no_linear_regime_is_filed_under_what_reproduces():
    md = _markdown()
    verdict = md.split("**Verdict (Figure 1)")[1].split("What does not:")
    assert "linear regime" not in verdict[0]
    assert "every learner's curve still rises at T = 3000" not in _guide_section()


def test_r5_3_every_curve_bends_down_in_100_500_is_checked_in_code():
    cell = _check_cell("# §5's statements on Figure 1")
    assert "slope = lambda r, n, a, b: (r.at(n, b) - r.at(n, a)) / (b - a)" in cell
    assert "drop = lambda r, n: paper.paired(slope(r, n, 1000, 2000), slope(r, n, 2000, 3000))" in cell
    assert "*drop(slow, n), low=0,\n                z=4, runs=10)\n     for n in paper.NAMES[:3]]" in cell   # r11: z = 4


def test_r5_4_the_window_of_figure_3_is_not_larger_than_the_mean_delay_under_our_reading():
    import numpy as np

    import delaylab as dl

    law = dl.criteo(100.0)
    mean, median = law.mean, int(np.argmax(law.cdf(np.arange(20_000)) >= 0.5))
    assert mean > 2000 and median > 2000
    md = " ".join(_markdown().split())
    assert (f"the law's mean is about {round(mean, -2):,.0f} steps ({mean * 100 / 86_400:.1f} days), its median about "
            f"{round(median, -2):,.0f}") in md
    readings = " ".join(_readings_section().split())
    assert (f"our law's mean is about {round(mean, -2):,.0f} steps and its median about "
            f"{round(median, -2):,.0f}") in readings


def test_r5_5_figure_3_is_checked_at_10_runs_not_3():
    cell = _check_cell("# §6's statements on Figure 3")
    assert "runs=3" not in cell and "paper.figure3(runs=10, seed=0)" in cell and cell.count("runs=10") == 7
    assert "paper.figure3_panel(runs=10)" in "".join(_code())
    md = _markdown()
    assert "(the delay term sums 2000 norms per round)" not in md and "By default 3 runs" not in md
    assert "OTFLinTS at $t = 2000$ only by 2 s.e." in md


# ------------------------------------------------------------------ review nb03-r6 (reviews/nb03-r6.md)
def test_r6_1_the_linear_regime_is_given_in_numbers_not_a_verdict():
    """Round 5 filed the paper's "still in the linear regime" under "what does not" because every slope falls;
    round 6 found the slopes keep 80–89 %, far more than a log curve's. Both are true: the verdict files it under
    neither and gives both quantities, each checked with its effect size (a line keeps 100 %, ∝ √t 77 %,
    ∝ log t 58 % of its regret per step from [1000, 2000] to [2000, 3000])."""
    import math

    from delaylab.papers import vernade2020 as paper

    assert round(100 * math.log(3 / 2) / math.log(2)) == 58
    assert round(100 * (math.sqrt(3) - math.sqrt(2)) / (math.sqrt(2) - 1)) == 77
    assert paper.NAMES[:3] == ["OTFLinUCB", paper.NO_DELAY_TERM, "OTFLinTS"]
    md = _markdown()
    verdict = md.split("**Verdict (Figure 1)")[1].split("\n\n")[0]
    ok, rest = verdict.split("What does not:")
    bad, neither = rest.split("Neither reproduced nor not, in numbers:")
    assert "linear regime" not in ok and "linear regime" not in bad and "no learner is in the" not in md
    assert ("keep 75–95% of their regret per step, a line 100%, a log curve 58%; yet each one's slope falls. "
            "The authors' index keeps 30–85% (40 runs).") in neither
    assert ("a curve $\\propto t$ keeps its regret per step, $\\propto \\sqrt t$ 77% of it, $\\propto \\log t$ 58%. "
            "Algorithms 1 (with or without its delay term) and 2 keep 75–95%: near the paper's \"linear regime\", yet "
            "each slope falls (a paired drop of more than 4 s.e., 10 runs)") in md
    cell = _check_cell("# §5's statements on Figure 1")
    assert "no 'linear regime'" not in cell
    assert "*keep(slow, n), low=0.75, high=0.95, z=2, runs=10) for n in paper.NAMES[:3]]" in cell
    assert "*keep(slow, U), low=0.95, high=1.05, z=2, runs=10)" in cell
    guide = _guide_section()
    assert "no “linear regime”" not in guide
    assert ("keep 75–95% of their regret per step (a line 100%, a log curve 58%), yet each slope falls; the authors' "
            "index keeps 30–85%. Neither “reproduced” nor “not”: show both numbers.") in guide


def test_r6_1_paired_ratio_is_the_delta_method_with_the_covariance():
    """Hand-computed: a = (2, 4), b = (1, 3): ratio 3/2; Var a = Var b = Cov = 2, so
    Var ≈ (2 − 2·1.5·2 + 1.5²·2) / (2 · 2²) = 1/16, s.e. 1/4. Independent runs would give a larger one."""
    from delaylab.papers import vernade2020 as paper

    r, se = paper.paired_ratio([2.0, 4.0], [1.0, 3.0])
    assert r == 1.5 and abs(se - 0.25) < 1e-12
    assert paper.ratio([2.0, 4.0], [1.0, 3.0])[1] > se


def test_r6_4_a_third_higher_is_not_filed_as_a_non_reproduction():
    verdict = _markdown().split("**Verdict (Figure 1)")[1].split("\n\n")[0]
    bad, neither = verdict.split("What does not:")[1].split("Neither reproduced nor not, in numbers:")
    assert "third higher" not in bad and "similar regret" not in verdict
    assert ("with the authors' index the larger window ends higher, by about 40% (120 runs), where the paper calls "
            "both \"roughly 100\" (Section 8, as printed)") in neither


def test_r6_5_the_authors_index_is_checked_on_40_runs():
    """At 10 runs the authors' slope drop in (100, 500) was 2.6 s.e. at seed 0 and 1.3 at seed 1 (review nb03-r6,
    5), and the cell's other checks of that index failed at seeds 1–3 too (its regret is small: flat after t = 500,
    still rising after t = 1000, the ratio of 1.1–1.6, the late slope). On 40 runs of that learner alone in each
    panel (1.2–1.6 s of CPU) each holds at seeds 0–3 with its z: the slope drop is 4.2–6.8 s.e., the share kept
    0.50–0.64 (s.e. ≤ 0.074), inside [0.3, 0.85] within 2 s.e."""
    cell = _check_cell("# §5's statements on Figure 1")
    assert "z=2 if n == A" not in cell and "2 s.e. for the authors' index" not in _markdown()
    assert ("a_wide, a_fast, a_slow = (dl.simulate(paper.setting(m, mu), {A: paper.policies(m)[A]}, 3000, n, seed=0)\n"
            "                          for m, mu, n in [(500, 100, 120), (100, 100, 120), (100, 500, 40)])") in cell
    assert "*keep(a_slow, A), low=0.3, high=0.85, z=2,\n               runs=40)" in cell
    assert "*drop(a_slow, A), low=0, z=3, runs=40))" in cell
    assert "+ [(A, a_slow, a_fast)]]" in cell and "(2 s.e.)\"," not in cell
    assert "Its regret is small: the cell checks it on 40 runs (120 for the ratio), 10 are too noisy." in _markdown()


def test_r6_2_the_when_clause_is_read_as_describing_the_central_panel():
    for where, text in [("notebook", " ".join(_markdown().split())), ("readings", " ".join(_readings_section().split()))]:
        assert "Under our reading it is not" not in text and "does not fit" not in text, where
        assert ("the behaviour \"is similar to the central plot of Figure 1, when the window is larger than the "
                "expectation of the delays\" (as printed). We read the \"when\" clause as describing that central "
                "panel") in text, where
        assert "Read as a claim about" in text and "it would not fit the seconds reading" in text, where


def test_r6_3_the_index_does_not_say_both_algorithms_are_run_as_the_authors_ran_them():
    nb = json.loads((ROOT / "notebooks" / "00_index.ipynb").read_text(encoding="utf-8"))
    row = next(line for c in nb["cells"] for line in c["source"] if line.startswith("| 3 |"))
    assert "as the authors ran them" not in row
    assert "OTFLinUCB and OTFLinTS as printed, and OTFLinUCB with the index of the authors' public code." in row


def test_r6_6_the_cost_in_what_to_remember_names_its_place():
    assert ("($O(d^2)$ per round instead of $O(md^2)$, Section 5, \"Improved computation complexity\", as printed)"
            in _markdown())


# ------------------------------------------------------------------ review nb03-r7 (reviews/nb03-r7.md)
def test_r7_1_exercise_3_3_names_the_exponential_approximation_of_tau_m():
    """τ_m ≈ 1 − e^{−m/μ} matches the paper's printed τ values (0.63, 0.993, 1/τ_m = 5.5) to their digits, so a
    student may use it; on main 172 of 300 students were told to "give more digits" and 3 were graded right. Every
    instance now tells it apart from the answer (accept) and names it; 25 of 2000 students got new numbers."""
    import math

    import numpy as np

    from delaylab import exercises as ex
    from delaylab.exercises import p03

    assert [round(1 - math.exp(-m / mu), k) for m, mu, k in [(100, 100, 2), (500, 100, 3)]] == [0.63, 0.993]
    assert round(1 / (1 - math.exp(-100 / 500)), 1) == 5.5
    for who in ["", "bob123"] + [f"student{i}" for i in range(300)]:
        p = ex.params("03.ridge-target", who)
        answer = (1 - math.exp(-p["m"] / p["mu"])) / p03._tau(p["mu"], p["m"]) * np.asarray(
            ex.solution("03.ridge-target", who))
        fb = ex.check("03.ridge-target", answer, student=who)
        assert not fb.correct and "the exponential approximation" in fb.message, (who, fb.message)
        assert "Give more digits" not in fb.message
    assert "| 3.3 | τ_m ≈ 1 − e^(−m/μ), the exponential approximation |" in _guide_section()


def test_r7_2_the_numbers_in_the_prose_are_the_ones_checked():
    """The slope shares were written 80–89 % (two thirds for the authors' index) but checked in 75–95 % (30–85 %) at
    z = 2: OTFLinTS keeps 0.804 ± 0.013 (review nb03-r7, 2), so 80–89 % cannot be checked robustly; the prose gives
    the checked ranges. The cheap/exact ratio "up to about 1.7 at t = m" is 1.742 at step 100 (s.e. < 0.001 at seeds
    0–2, the largest mean ratio over steps): it is now checked in [1.6, 1.8], and no step above 1.8."""
    md, guide = _markdown(), _guide_section()
    for text in (md, guide):
        assert "80–89%" not in text and "two thirds" not in text
    assert "Algorithms 1 (with or without its delay term) and 2 keep 75–95%:" in md
    assert "The authors' index keeps 30–85%. Its regret is small" in md
    assert "Algorithms 1 and 2 keep 75–95% of their regret per step" in guide
    cell = _check_cell("# §5's statements on Figure 1")
    assert "low=0.75, high=0.95, z=2, runs=10) for n in paper.NAMES[:3]]" in cell
    assert "*keep(a_slow, A), low=0.3, high=0.85, z=2,\n               runs=40)" in cell
    assert "the cheap term is up to about 1.7 times the exact one here, when the window first fills" in md
    cell = _check_cell("# §3's statements on the cheap delay term")
    assert "over 1.5 times" not in cell and "low=1.5" not in cell
    assert "ratio[100].mean(), se(ratio[100]), low=1.6, high=1.8, z=3, runs=10)" in cell
    assert "np.nanmax(ratio.mean(axis=1)), 0, high=1.8, runs=10)" in cell


def test_r7_3_the_window_comparison_is_a_sentence():
    md = _markdown()
    assert "Neither, read the numbers" not in md
    assert ("Neither reproduced nor not, in numbers: with the authors' index the larger window ends higher, by "
            "about 40% (120 runs), where the paper calls both \"roughly 100\" (Section 8, as printed).") in md


def test_r7_4_the_model_the_unknown_law_and_figure_1_point_to_the_paper():
    cells = [s for _, s in _cells()]
    assert "it **does not know the delay law** (Section 3, as printed)." in cells[0]
    assert "Each round $t$ (Section 3, as printed):" in cells[4]
    assert ("(Section 4, as printed: the learner itself ignores a conversion that comes later than the window $m$; "
            "here") in cells[4]
    assert "In the paper the learner itself ignores" not in cells[4]
    assert "(Figure 1's right panel, $\\mu = 500$ at $m = 100$: ours, and the paper's in Section 8;" in _markdown()


def test_r7_5_fifty_runs_for_figure_3_is_our_reading():
    """Section 8 prints 50 runs for the geometric experiments (Figure 1) and says only "the same setting as before"
    for Figure 3. (The button's own label is another change's: general-fix7.)"""
    md = _markdown().split("**Verdict (Figure 3)")[1]
    assert "the paper's 50" not in md
    assert ("By default 10 runs; the button reruns at 50 (the paper's count for Figure 1; for Figure 3, \"the same "
            "setting as before\": our reading).") in md


# ------------------------------------------------------------------ review nb03-r8 (reviews/nb03-r8.md)
def test_r8_1_the_notebooks_own_sections_are_section_signs_the_papers_are_sections():
    """"Section 4" meant the notebook's §4 in some cells and the paper's Section 4 ("Concentration …") in others,
    once within one cell (What to remember): the notebook's own sections are now "§N", the paper's "Section N"."""
    md = _markdown()
    for stale in ("Section 2 says where the estimate goes", "live panel of Section 4.",
                  "(Section 3 says how LinUCB differs", "(Section 5 checks it where", "OTFLinUCB's bonus (Section 3)",
                  "authors' code (Section 5).", "the one Section 4 isolated", "shrink the signal (Section 4)",
                  "perturbation (Section 3).", "$\\beta_{t,\\delta}$ of Section 3:", "\\approx 1$, Section 4)",
                  "$(100, 100)$, Section 5)"):
        assert stale not in md, stale
    assert "$(100, 100)$, §5 above)" in md and "the one §4 isolated" in md
    assert not re.search(r"# Section \d's", "".join(_code()))
    # the paper's own sections keep their name
    assert "Section 5, \"Improved computation complexity\", as printed" in md


def test_r8_2_readings_give_the_corrected_index_of_y_tilde():
    text = " ".join(_readings_section().split())
    assert ("*Ỹ_{s,t} (Eq. 2, Section 4)*: the paper prints 1{D_s ≤ min(m, t − s)}." in text
            and "we use min(m, t − 1 − s) (corrected)" in text and "(with t − s, m − 1)" in text)


def test_r8_3_the_small_ellipse_is_checked_at_the_panels_own_parameters():
    """Cell 29 says the ellipse of radius 2f alone holds τ_mθ at the panel's defaults (m = μ = 100, T = 1000); on
    main only (500, 100) at T = 3000 was checked. At its own parameters: largest distance/2f 0.22 over 10 runs."""
    cell = _check_cell("# The statements above, on the panel's default parameters")
    assert "cov4 = paper.coverage(100, 100, horizon=1000)" in cell
    assert "cov4.max(), 0, high=1, runs=10)" in cell
    assert "(checked in the next cell, and in §5 where the delay term is largest)" in _markdown()
    from delaylab.papers import vernade2020 as paper
    assert paper.coverage(100, 100, horizon=1000).max() < 1


def test_r8_4_the_guide_says_otflints_ends_about_level_with_uniform_play_at_m_20():
    assert ("OTFLinTS learns more slowly (at T = 1000 it now ends about level with uniform play)"
            in _guide_section())


def test_r8_5_figure_3_panel_defaults_to_the_runs_its_checks_need():
    import inspect

    from delaylab.papers import vernade2020 as paper
    assert inspect.signature(paper.figure3_panel).parameters["runs"].default == 10
    assert inspect.signature(paper.figure1_panel).parameters["runs"].default == 10
    assert "the fewest runs the notebook's checks" in paper.figure3_panel.__doc__


# ------------------------------------------------------------------ review nb03-r9 (reviews/nb03-r9.md)
def test_r9_1_exercise_hints_name_the_notebooks_sections_with_section_signs():
    """The hints of 3.2, 3.3, 3.4 and 3.6 wrote "Section 2", "Section 3" for the notebook's §2 and §3; the paper's
    Section 2 is Related Work, its Section 3 the setting, and Algorithm 1 is in its Section 5. As in p01.py, a hint
    now writes "Notebook §N"; "Section N" is the paper's."""
    from delaylab import exercises as ex

    hints = {eid: ex.get(eid).hints for eid in ex.ids("03")}
    assert hints["03.width"][0].startswith("Notebook §2 and §3: the width is")
    assert hints["03.ridge-target"][0].startswith(r"Notebook §2: $\hat\theta^W_t = V_t^{-1}B_t$")
    assert hints["03.otf-index"][0].startswith("Notebook §3 (the paper's Algorithm 1, in its Section 5): the index")
    assert hints["03.why-last-m"][0].startswith("Notebook §2: which actions' conversions")
    for eid, hs in hints.items():
        for h in hs:
            for m in re.finditer(r"Sections? \d", h):
                assert h[:m.start()].endswith(("paper's ", "its ")), (eid, h)


def _f(t, lam, delta, d=2):
    """f_{t,δ} by hand: √λ + √(2 log(1/δ) + d log((dλ + t)/(dλ)))."""
    import math
    return math.sqrt(lam) + math.sqrt(2 * math.log(1 / delta) + d * math.log((d * lam + t) / (d * lam)))


def test_r9_2_exercise_3_2_tells_a_missing_square_root_of_lambda_from_a_missing_delay_term():
    """Dropping √λ from f gives (2f − 2√λ + delay term)·‖a‖: when the delay term is 2√λ (λ = 1, term 2.0; λ = 0.5,
    term 1.4) that is the "no delay term" answer 2f·‖a‖, and 9 of 400 students were told they left the delay term
    out. It is now a misconception of its own, and an instance whose misconceptions are not 3 tolerances apart is
    drawn again (86 of 2000 students get new numbers, each of them such a collision)."""
    import math

    import numpy as np

    from delaylab import exercises as ex

    # the default instance, by hand: V = [[41, 12], [12, 26]] (det 922), a = (0.6, 0.8), t = 66, δ = 0.1, λ = 1
    f = 1 + math.sqrt(2 * math.log(10) + 2 * math.log(68 / 2))
    norm = math.sqrt((26 * 0.36 - 2 * 12 * 0.48 + 41 * 0.64) / 922)
    assert abs(f - 4.414365) < 1e-6 and abs(norm - 0.161608) < 1e-6
    assert abs(ex.solution("03.width", "") - (2 * f + 2.4) * norm) < 1e-9
    fb = ex.check("03.width", (2 * (f - 1) + 2.4) * norm, student="")
    assert not fb.correct and "starts with $\\sqrt\\lambda$" in fb.message, fb.message
    assert "left out the delay term" in ex.check("03.width", 2 * f * norm, student="").message
    # a delay term of 2√λ makes the two slips one number: such an instance is not drawn
    accept = ex.get("03.width").accept
    p = dict(ex.params("03.width", ""))
    assert accept(p) and not accept({**p, "delay_term": 2.0})
    assert not accept({**p, "lam": 0.5, "t": 65, "delay_term": 1.4})
    # every student: each slip named for what it is, none accepted
    for who in ["alice", "s12345", "student2", "student68", "student72", "student84", "student86", "student286",
                "student318", "student371", "student378"] + [f"student{i}" for i in range(400)]:
        q = ex.params("03.width", who)
        V, a = np.array(q["V"], dtype=float), np.array(q["a"], dtype=float)
        f, norm = _f(q["t"], q["lam"], q["delta"]), math.sqrt(a @ np.linalg.solve(V, a))
        assert abs(ex.solution("03.width", who) - (2 * f + q["delay_term"]) * norm) < 1e-9, who
        no_root = ex.check("03.width", (2 * (f - math.sqrt(q["lam"])) + q["delay_term"]) * norm, student=who)
        assert not no_root.correct and "starts with $\\sqrt\\lambda$" in no_root.message, (who, no_root.message)
        no_term = ex.check("03.width", 2 * f * norm, student=who)
        assert not no_term.correct and "left out the delay term" in no_term.message, (who, no_term.message)
        for w in ex.wrong_answers("03.width", who):
            assert not ex.check("03.width", w, student=who).correct, (who, w)
    assert "| 3.2 | f_{t,δ} without its √λ |" in _guide_section()


def test_r9_3_exercise_3_3_tells_a_wrong_derivation_it_is_wrong_not_to_give_more_digits():
    """Student "alice" (λ = 2, counts (30, 28, 16), θ = (0.4, 0.7), μ = 193, m = 20) who builds the Gram matrix from
    u = (1, 1) is 1.5 % off and was told "Close: … give more digits". That slip is now named, and the derive check's
    "Close" window is 3 tolerances (0.6 %), or the right answer written to fewer digits (within 5 %)."""
    import numpy as np

    from delaylab import exercises as ex

    assert ex.params("03.ridge-target", "alice") == {"counts": (30, 28, 16), "lam": 2.0, "theta": (0.4, 0.7),
                                                     "mu": 193, "m": 20}
    # by hand: G = [[38, 8], [8, 36]], V = G + 2I (det 1456), Gθ = (20.8, 28.4): V⁻¹Gθ = (563.2, 969.6)/1456;
    # with u = (1, 1): G' = [[46, 16], [16, 44]], V' (det 1952), G'θ = (29.6, 37.2): (766.4, 1312)/1952
    tau = 1 - (193 / 194) ** 21
    right = tau * np.array([563.2, 969.6]) / 1456
    u11 = tau * np.array([766.4, 1312.0]) / 1952
    assert np.allclose(ex.solution("03.ridge-target", "alice"), right, rtol=1e-12)
    assert np.allclose(right, [0.03978, 0.06849], atol=5e-6) and np.allclose(u11, [0.04038, 0.06913], atol=5e-6)
    fb = ex.check("03.ridge-target", u11, student="alice")
    assert not fb.correct and "that takes u = (1, 1)" in fb.message and "more digits" not in fb.message, fb.message
    assert "Close:" in ex.check("03.ridge-target", np.array([0.040, 0.068]), student="alice").message
    assert "Close:" in ex.check("03.ridge-target", right * 1.004, student="alice").message
    off = ex.check("03.ridge-target", right * 1.015, student="alice")
    assert not off.correct and "more digits" not in off.message and "is not it" in off.message, off.message
    for who in ["", "s12345"] + [f"student{i}" for i in range(300)]:
        q = ex.params("03.ridge-target", who)
        n1, n2, n3 = q["counts"]
        G = np.array([[n1 + n3, n3], [n3, n2 + n3]], dtype=float)
        t = 1 - (q["mu"] / (q["mu"] + 1)) ** (q["m"] + 1)
        ans = ex.solution("03.ridge-target", who)
        fb = ex.check("03.ridge-target", t * np.linalg.solve(G + q["lam"] * np.eye(2), G @ np.array(q["theta"])),
                      student=who)
        assert not fb.correct and "that takes u = (1, 1)" in fb.message, (who, fb.message)
        for k in (1.01, 0.985, 1.03):      # a wrong derivation 1–3 % off is wrong, not "close"
            fb = ex.check("03.ridge-target", ans * k, student=who)
            assert not fb.correct and "more digits" not in fb.message, (who, k, fb.message)
        two = np.array([float(f"{v:.2g}") for v in ans])   # the right answer to 2 significant digits
        fb = ex.check("03.ridge-target", two, student=who)
        assert fb.correct or fb.message.startswith("Close:"), (who, two, fb.message)
        for w in ex.wrong_answers("03.ridge-target", who):
            assert not ex.check("03.ridge-target", w, student=who).correct, (who, w)
    assert "| 3.3 | u taken as (1, 1) |" in _guide_section()


def test_r9_4_about_a_third_higher_is_not_checked_in_a_band_that_10_percent_passes():
    """"About a third higher" was checked in 1.1–1.6 (z = 2), which "10 % higher" and "60 % higher" also pass.
    Round 9 checked it against 4/3; round 11 found that check held on seed 0 only: see test_r11_1."""
    cell = _check_cell("# §5's statements on Figure 1")
    assert "low=1.1, high=1.6" not in cell


def test_r9_5_the_cheap_term_ratio_is_said_at_the_step_that_is_measured():
    """The check reads the ratio at engine step 100 (the first whose sum holds m actions), the paper's round m + 1;
    the text said "at t = m", which in the paper's numbering sums m − 1 actions."""
    md, guide = " ".join(_markdown().split()), _guide_section()
    readings = " ".join(_readings_section().split())
    for text in (md, guide, readings):
        assert "at $t = m$" not in text and "at t = m" not in text
    assert ("the cheap term is up to about 1.7 times the exact one here, when the window first fills (step $m$, the "
            "paper's round $m + 1$; the next cell checks both") in md
    assert "about 1.7 times the exact one when the window first fills (step m = μ = 100, the paper's round m + 1)" \
        in readings
    assert "(notebook 03, §3, checks both)" in readings and "notebook 03, Section 3" not in readings
    assert "at step 100 (the first whose delay term sums m actions)" in _check_cell("# §3's statements on the cheap")


def test_r9_6_otflints_beta_in_v_t_is_credited_to_section_7s_text_not_to_algorithm_2():
    """Line 4 of Algorithm 2 as printed sums the norms in V_s⁻¹; V_t⁻¹ in β_{t,δ} is Section 7's text."""
    from delaylab.papers import vernade2020 as paper

    md = _markdown()
    assert "**OTFLinTS** (Algorithm 2, Section 7) samples" not in md
    assert "**OTFLinTS** (Section 7's text; line 4 of Algorithm 2 writes $V_s^{-1}$, see below) samples" in md
    exact = paper.figure3_panel(runs=1).caption.value
    assert "as printed" not in exact.split("the delay term")[1].split("(Algorithm 1 as printed")[0]
    assert "the delay term in V_t⁻¹ (Algorithm 1 as printed; for OTFLinTS, Section 7's text)" in exact
    cheap = paper.figure3_panel(runs=1, width="cheap").caption.value
    assert "with the stored norms in V_s⁻¹ (cheap; for OTFLinTS, line 4 of Algorithm 2 as printed)" in cheap
    import pytest
    with pytest.raises(ValueError, match="width"):
        paper.figure3_panel(runs=1, width="exactly")


# ----------------------------------------------------------------- review nb03-r10 (reviews/nb03-r10.md)
def test_r10_1_the_radius_alone_losing_at_t_1000_is_not_credited_to_a_small_tau_m():
    """At T = 1000, Algorithm 1 without its delay term loses to uniform play at (500, 100), where τ_m = 0.99, as it
    does at (100, 100), τ_m = 0.63: "with a weak signal (τ_m ≤ 0.63 here)" credited τ_m with it. The text now states
    what was measured, with its parameters and no cause, and §5's check cell checks (500, 100) at t = 1000. The
    paired run below (10 runs, seed 0, as the notebook) is the reviewer's: only μ changes, 100 against 1, at m = 500."""
    import delaylab as dl
    from delaylab.papers import vernade2020 as paper
    from delaylab.policies.linear import OTFLinUCB
    from delaylab.policies.simple import with_uniform

    md = " ".join(_markdown().split())
    assert "With a weak signal ($\\tau_m \\le 0.63$ here)" not in md and "once the delays shrink the signal" not in md
    assert "($T = 3000$, $\\tau_m \\ge 0.63$)" not in md
    assert ("At $T = 1000$ the radius $2f_{t,\\delta}$ alone does it with $\\mu = 100$, at $m = 100$ ($\\tau_m = 0.63$) "
            "and $m = 500$ ($\\tau_m = 0.99$), but not with $\\mu = 1$; in the first two panels of Figure 1 "
            "($T = 3000$) it is the delay term") in md
    assert ("is enough to lose to uniform play at $T = 1000$ with $\\mu = 100$, at $m = 100$ (§4) and at $m = 500$, "
            "where $\\tau_m = 0.99$; and, at $T = 3000$, in $(100, 500)$.") in md
    cell = _check_cell("# §5's statements on Figure 1")
    assert "*paper.paired(wide.at(NT, 1000), wide.at(U, 1000)), low=0, z=3, runs=10)" in cell
    assert "C.lower(res4, dl.UNIFORM, paper.NO_DELAY_TERM" in _check_cell("# The statements above, on the panel's")
    assert "C.lower(res1, paper.NO_DELAY_TERM, dl.UNIFORM" in _check_cell("# The statements above, on the panel's")
    gaps = {}
    for mu in (100, 1):
        pol = with_uniform({paper.NO_DELAY_TERM: OTFLinUCB(window=500, variant="no-delay-term")})
        res = dl.simulate(paper.setting(500, mu), pol, 1000, 10, seed=0)
        gaps[mu] = paper.paired(res.final(paper.NO_DELAY_TERM), res.final(dl.UNIFORM))
    assert round(paper.tau_m(500, 100), 2) == 0.99 and round(paper.tau_m(100, 100), 2) == 0.63
    assert gaps[100][0] > 3 * gaps[100][1], gaps       # μ = 100, τ_m = 0.99: above uniform play (16.0 ± 2.4)
    assert gaps[1][0] < -3 * gaps[1][1], gaps          # μ = 1: below it (−16.2 ± 2.1)


def test_r10_2_the_slopes_fall_by_more_than_the_check_used_to_require():
    """"(by 3 s.e.)" read as the size of the fall; the paired drops are 20, 13 and 14 s.e. (10 runs, seed 0). The
    text said "more than 10 s.e." and the check asked for it; round 11 found that held on seed 0 only, and both
    now say 4 (test_r11_2)."""
    md = _markdown()
    assert "(by 3 s.e.)" not in md
    assert "yet each slope falls (a paired drop of more than 4 s.e., 10 runs)." in md


def test_r10_3_exercise_3_3s_tau_m_theta_slip_is_named_without_the_answer_formula():
    """The feedback to τ_m·θ, the common slip, stated E θ̂ = τ_m V⁻¹(V − λI)θ, the whole answer, before any hint.
    It now names the slip and gives a step (λI is in V_t, not in B_t); the formula stays in the second hint and the
    explanation."""
    import numpy as np

    from delaylab import exercises as ex
    from delaylab.exercises import p03

    e = ex.get("03.ridge-target")
    assert "\\tau_m(V_t - \\lambda I)\\theta" in e.hints[1]
    for who in ["", "alice", "bob", "s1234567", "zoe-42"] + [f"student{i}" for i in range(100)]:
        p = ex.params("03.ridge-target", who)
        wrong, text = p03._target_wrong(p)[1]
        assert np.allclose(wrong, p03._tau(p["mu"], p["m"]) * np.asarray(p["theta"])), who
        for hint in (True, False):
            fb = ex.check("03.ridge-target", wrong, student=who, hint=hint)
            assert not fb.correct and "the limit as $t \\to \\infty$" in fb.message, (who, fb.message)
            assert "$V_t$ holds it, $B_t$ does not" in fb.message, fb.message
            for leak in ("\\lambda I)", "I - \\lambda V", "\\mathbb{E}\\,\\hat\\theta", "\\mathbb{E}[B_t] ="):
                assert leak not in fb.message, (who, leak, fb.message)
            answer = ex.solution("03.ridge-target", who)
            assert f"{answer[0]:.4f}" not in fb.message, (who, fb.message)


# ----------------------------------------------------------------- review nb03-r11 (reviews/nb03-r11.md)
def _slow_panel(seed):
    """Figure 1's (100, 500) panel at 10 runs: Algorithm 1 with and without its delay term, OTFLinTS (the
    notebook's runs at seed 0, as `paper.figure1` draws them run by run)."""
    from delaylab.papers import vernade2020 as paper
    from delaylab.sweep import sweep

    pols = paper.policies(100, authors=False, no_term=True)
    return sweep(paper.setting(100, 500), pols, 3000, 10, seed, checkpoints=paper.CHECKPOINTS)


def test_r11_1_the_larger_window_ends_higher_by_about_40_percent_checked_in_1_2_to_1_6():
    """"About a third higher" was checked within 2 s.e. of 4/3 and in 1.25–1.5 at z = 2 on 40 runs; the ratio is about
    1.39 (1.26–1.55 over seeds 0–63 at 40 runs, s.e. about 0.05), so those checks held on seed 0 only (seed 9:
    1.44 ± 0.05, seed 5: 1.33 ± 0.06). The text says "by about 40%" and the check asks 1.2–1.6 within 2 s.e.,
    which at 40 runs failed on seeds 20, 57 and 61 of 0–63: the two panels of the ratio now run 120 (s.e. about
    0.03; +0.7 s of CPU in the notebook). Here seed 20, the worst at 40 runs (1.32 ± 0.04 at 120): about 1.6 s of CPU."""
    import delaylab as dl
    from delaylab.papers import vernade2020 as paper

    md = _markdown()
    assert "a third higher" not in md and "4 / 3" not in _check_cell("# §5's statements on Figure 1")
    assert "yet the larger window ends higher, by about 40%;" in md
    cell = _check_cell("# §5's statements on Figure 1")
    assert ("    C.estimate(\"... but it ends higher, by about 40% (ratio of the final regrets, 1.2 to 1.6 within 2 "
            "s.e.)\",\n               *paper.ratio(a_wide.final(A), a_fast.final(A)), low=1.2, high=1.6, z=2, "
            "runs=120),") in cell
    assert "low=1.25, high=1.5" not in cell
    A = paper.AUTHORS
    wide, fast = (dl.simulate(paper.setting(m, mu), {A: paper.policies(m)[A]}, 3000, 120, seed=20)
                  for m, mu in [(500, 100), (100, 100)])
    r, se = paper.ratio(wide.final(A), fast.final(A))
    assert 1.2 <= r - 2 * se and r + 2 * se <= 1.6, (r, se)


def test_r11_2_each_slope_falls_by_more_than_4_standard_errors_not_10():
    """The paired drops of the regret per step in (100, 500) are 7.7–20 s.e. over seeds 0–9 and 4.4 at the least
    over seeds 0–139 (seed 82; 5.6 the next), so "more than 10 s.e." held on seed 0 only (seed 3: 8.3, 7.7, 10.8).
    Text and check now say 4; here seed 3, where z = 10 failed (one panel, three learners and uniform play,
    10 runs: about 1 s of CPU)."""
    from delaylab.papers import vernade2020 as paper

    md = _markdown()
    assert "more than 10 s.e." not in md and "z=10" not in _check_cell("# §5's statements on Figure 1")
    assert "yet each slope falls (a paired drop of more than 4 s.e., 10 runs)." in md
    slow = _slow_panel(3)
    slope = lambda n, a, b: (slow.at(n, b) - slow.at(n, a)) / (b - a)   # noqa: E731
    zs = []
    for n in paper.NAMES[:3]:
        m, se = paper.paired(slope(n, 1000, 2000), slope(n, 2000, 3000))
        zs.append(m / se)
    assert min(zs) > 4 and min(zs) < 10, zs


def test_r11_3_no_effective_delay_is_mu_1_not_tau_m_near_1():
    """τ_m = 0.99 at (500, 100), yet there the delays act: "no effective delay" is μ = 1, §4's experiment."""
    remember = " ".join(_markdown().split("## What to remember")[1].split())
    assert "no effective delay ($\\tau_m \\approx 1$" not in remember
    assert "It loses even with no effective delay ($\\mu = 1$, §4 above)" in remember


def test_r11_4_slow_learning_is_credited_to_comparisons_that_shrink_tau_m():
    """Figure 1's right panel changes μ (100 → 500) at m = 100; Exercise 3.5 shrinks m (100 → 20) at μ = 100,
    the comparison that shrinks the window (its outcome is checked in test_predict_outcomes)."""
    from delaylab import exercises as ex

    remember = " ".join(_markdown().split("## What to remember")[1].split())
    assert "small windows make learning slow" not in remember
    assert ("a window short for the delays (small $\\tau_m$) makes learning slow (Figure 1's right panel, $\\mu = 500$ "
            "at $m = 100$: ours, and the paper's in Section 8; Exercise 3.5, $m = 20$ at $\\mu = 100$).") in remember
    cells = _cells()
    i = next(k for k, (_, s) in enumerate(cells) if s.startswith("### ✎ Exercise 3.5 (predict"))
    assert "Shrink the window below the mean delay" in cells[i][1]
    assert 'ex.predict("03.small-window")' in "".join(s for _, s in cells[i + 1:i + 3])
    assert ex.solution("03.small-window") == "higher"


def test_r11_5_the_guides_criteo_step_cites_a_check_on_criteo_delays():
    """The optional §4 step moves the panel to Criteo delays / 100 at m = 100 and says the cheap term barely moves
    the regret, citing §3's check, which ran on geometric delays only. §3's check cell now runs the Criteo
    case too (0.03 s of CPU); here seeds 1 and 2 (ratio 1.002 and 1.001, s.e. about 0.001 at seeds 0–9)."""
    import delaylab as dl
    from delaylab.papers import vernade2020 as paper

    row = next(line for line in _guide_section().splitlines() if line.startswith("| +5 | §4, *optional*"))
    assert "“Criteo delays / 100 (μ not used)”" in row
    assert ("the regret barely moves (the check under §3: the two terms on geometric delays, m = μ = 100; the regret "
            "there and on the Criteo delays at m = 100)") in row
    cell = _check_cell("# §3's statements on the cheap delay term")
    assert ("crit = dl.simulate(dl.LinearConversions(paper.theta(), dl.criteo(100), window=100), pair(), 1000, 10, "
            "seed=0)") in cell
    assert 'C.ratio_within(crit, "cheap", "exact", 0.95, 1.05' in cell
    for seed in (1, 2):
        pair = {"exact": dl.OTFLinUCB(window=100), "cheap": dl.OTFLinUCB(window=100, width="cheap")}
        res = dl.simulate(dl.LinearConversions(paper.theta(), dl.criteo(100), window=100), pair, 1000, 10, seed=seed)
        assert dl.claims.ratio_within(res, "cheap", "exact", 0.95, 1.05).holds, seed
