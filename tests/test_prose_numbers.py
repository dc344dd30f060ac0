"""Every number the notebooks' prose states about a formula is pinned here against delaylab.

A claim is a piece of a notebook's markdown with ``{}`` where the number stands: the test finds
the piece in the notebook (so that editing the prose without the claim fails) and checks that
delaylab computes that number (so that a change in delaylab, or a wrong number, fails). Numbers
about simulations are not written in the prose at all: the notebooks print them under each figure
(``FigureReproduction(summary=…)``) or in a code cell, from the results they show.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import delaylab as dl
from delaylab.papers import manegueu2020, thune2019, vernade2017
from delaylab.policies.linear import confidence_radius
from delaylab.policies.odaaf import odaaf_v_sizes
from delaylab.policies.patient import log_term

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def _markdown(nb: str) -> str:
    (path,) = NOTEBOOKS.glob(f"{nb}_*.ipynb")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def _tau(mu, m):
    return float(dl.Geometric(mu).cdf(m))


#: notebook 05: the β a student gets by dropping |S_β| from Corollary 4's balancing (K = 2, T = 1000, D = 22,400)
_SLIP_05 = math.sqrt((math.e * 1000 + 22_400) / (16 * math.e**2 * math.log(2)))

CLAIMS = [
    # notebook 01
    ("01", "$(0 + 0.05 + 0.07)/3 = {}$ per step", vernade2017.round_robin_cost(), ".2f"),
    ("01", "round robin, which costs exactly ${}$ per step", vernade2017.round_robin_cost(), ".2f"),
    ("01", "narrower by $\\sqrt{{\\tau_m}}$ (${}$ at $\\mu = 500$", math.sqrt(_tau(500, 1000)), ".2f"),
    ("01", "a slope $\\sum_k 1/(2\\tau_m\\Delta_k) = {}$ on", vernade2017.ucb_slope(vernade2017.THETA_L, 1000), ".1f"),
    ("01", "times the lower bound's ${}$ (the table", vernade2017.lower_bound(vernade2017.THETA_L, 1000), ".1f"),
    ("01", "on $\\theta_L$, ${}$ times the lower bound's", vernade2017.ucb_slope(vernade2017.THETA_L, 1000)
     / vernade2017.lower_bound(vernade2017.THETA_L, 1000), ".1f"),
    ("01", "$\\sum_k 1/(2\\tau_m^2\\Delta_k) = {}$", vernade2017.ucb_slope(vernade2017.THETA_L, 1000, factor=True), ".1f"),
    ("01", "the Poisson divergence costs (Figure 1's verdict), ${}$ here", vernade2017.poisson_factor(vernade2017.THETA_L, 1000),
     ".2f"),
    ("01", "that is ${}$ (censored)", vernade2017.poisson_factor(vernade2017.THETA_L, 1000), ".2f"),
    ("01", "and ${}$ (uncensored) on $\\theta_L$", vernade2017.poisson_factor(vernade2017.THETA_L, None), ".2f"),
    ("01", "against ${}$ and $2$ on $\\theta_H$", vernade2017.poisson_factor(vernade2017.THETA_H, 1000), ".2f"),
    ("01", "against $1.76$ and ${}$ on $\\theta_H$", vernade2017.poisson_factor(vernade2017.THETA_H, None), ".0f"),
    ("01", "average about ${}$, $380$", vernade2017.observed_delay_mean(500, 1000), ".0f"),
    ("01", "$238$, ${}$ and $474$", vernade2017.observed_delay_mean(500, 2500), ".0f"),
    ("01", "$380$ and ${}$ (our computation)", vernade2017.observed_delay_mean(500, 10_000), ".0f"),
    ("01", "(here $\\tau_m = \\tau(400) = {}$)", _tau(200, 400), ".3f"),
    ("01", "at uniform random play's expected cost, ${}$ per step on", vernade2017.round_robin_cost(), ".2f"),
    ("01", "the asymptotic slopes of §7, ${}$ for Discarding UCB", vernade2017.ucb_slope(vernade2017.THETA_L, 1000), ".1f"),
    ("01", "for Discarding UCB against ${}$ for D-UCB", vernade2017.ucb_slope(vernade2017.THETA_L, 1000, factor=True),
     ".1f"),
    # notebook 02
    ("02", "the deviation term is still ${}$ after 1000 pulls", math.sqrt(2 * log_term(2, 3000) / 1000), ".2f"),
    ("02", "$0.6\\,\\tau_1(10) = {}$", 0.6 * float(dl.Pareto(1.0).cdf(10)), ".2f"),
    ("02", "$0.8\\,\\tau_2(10) = {}$", 0.8 * float(dl.Pareto(0.3).cdf(10)), ".2f"),
    ("02", "the better arm's is the larger only from $m = {}$ on", manegueu2020.figure5_crossing_window(), "d"),
    ("02", "At $m = 100$ they are close, ${}$", 0.8 * float(dl.Pareto(0.3).cdf(100)), ".3f"),
    ("02", "$0.600$ against ${}$", 0.6 * float(dl.Pareto(1.0).cdf(100)), ".3f"),
    ("02", "At $m = 200$, ${}$", 0.8 * float(dl.Pareto(0.3).cdf(200)), ".3f"),
    ("02", "$0.637$ against ${}$", 0.6 * float(dl.Pareto(1.0).cdf(200)), ".3f"),
    ("02", "$(c/2)^{{1/\\alpha_{{low}}}} = 0.35^{{10}} \\approx {}\\cdot 10^{{-5}}$", 0.35 ** 10 / 1e-5, ".0f"),
    ("02", "$\\log(24\\sqrt{{29}}/0.42)/\\log\\bar T_t \\approx {}/\\log \\bar T_t",
     math.log(24 * math.sqrt(29) / 0.42), ".1f"),
    ("02", "\\ge {}$ for $\\bar T_t \\le 10^4$", math.log(24 * math.sqrt(29) / 0.42) / math.log(1e4), ".1f"),
    # the bias term 2 n^(−a) falls fastest in n (|d/dn| = 2a n^(−a−1), largest in a) at a = 1/ln n
    ("02", "$\\hat\\alpha = 1/\\ln T_i$ (about ${}$ for $T_i = 1500$)", 1 / math.log(1500), ".2f"),
    # notebook 03
    ("03", "The radius alone, $2f_{{t,\\delta}}$ ($\\approx {}$ at $t = 1000$", 2 * float(confidence_radius(1000, 5, 1.0, 0.1)),
     ".0f"),
    ("03", "at $t = 1000$, $\\approx {}$ at $T = 3000$), is enough", 2 * float(confidence_radius(3000, 5, 1.0, 0.1)), ".0f"),
    ("03", "that probability averages ${}", _tau(100, 100), ".2f"),
    ("03", "that probability averages $0.63 - {}", float(np.mean([_tau(100, k) for k in range(100)])), ".2f"),
    ("03", "that probability averages $0.63 - 0.37 = {}$", _tau(100, 100) - float(np.mean([_tau(100, k) for k in
                                                                                          range(100)])), ".2f"),
    ("03", "($\\tau_m = {}$ minus the mean of $P(D \\le k)$ over $k < m$)", _tau(100, 100), ".2f"),
    ("03", "In $(100, 500)$, where $\\tau_m = {}$, even the algorithm", _tau(500, 100), ".2f"),
    ("03", "$1 - 1/\\sqrt d \\approx {}$ under $\\theta$", 1 - 1 / math.sqrt(5), ".2f"),
    ("03", "$\\alpha_{{t,\\delta}} \\ge 2f_{{t,\\delta}} \\approx {}$ at $t = 1000$",
     2 * float(confidence_radius(1000, 5, 1.0, 0.1)), ".0f"),
    ("03", "in $(100, 500)$, where $\\tau_m = {}$", _tau(500, 100), ".2f"),
    ("03", "$\\tau_m$ goes from {} to", _tau(100, 100), ".2f"),
    ("03", "goes from 0.63 to {}:", _tau(100, 500), ".2f"),
    ("03", "In $(100, 500)$ only {}% of the conversions", 100 * _tau(500, 100), ".0f"),
    ("03", "$\\tau_m = P(D \\le m) \\approx {}$, so more than half", float(dl.criteo(100).cdf(2000)), ".2f"),
    ("03", "Here $\\tau_m \\approx {}$", float(dl.criteo(100).cdf(2000)), ".2f"),
    ("03", "($2\\times10^5$ s, about {} days)", 2e5 / 86400, ".1f"),
    ("03", "($\\sqrt{{\\beta_t + \\lambda}} \\approx {}$ at $t = 1000$", math.sqrt(
        2 * math.log(1 / 0.1) + 5 * math.log(1 + 1000 / (5 * 1.0)) + 1.0), ".1f"),   # the authors' code's β_t
    ("03", "at $t = 1000$, against $2f_{{t,\\delta}} \\approx {}$ in Algorithm 1)",
     2 * float(confidence_radius(1000, 5, 1.0, 0.1)), ".0f"),
    # notebook 04
    ("04", "$V(\\tau) = {}$", float(dl.Uniform(0, 20).var), ".1f"),
    ("04", "$\\tilde\\Delta_3 = {}$", 0.5 ** 3, ".3f"),
    ("04", "about $0.6\\,\\mathbb E[\\tau] = {}$ of its own rewards leave", 0.6 * float(dl.Uniform(0, 200).mean), ".0f"),
    # the live panel's defaults (Δ = 0.3, T = 5000): ODAAF-V's regret Δ·n_1, its first worse-arm block (review nb04-r11),
    # in the table of "What a loose d or V costs" since nb04-r13 (the other columns: test_r13_finding_1 in
    # tests/test_pikeburke2018_notebook.py, from the runs)
    ("04", "| 492.0 | {} | 740.7 |", 0.3 * float(odaaf_v_sizes(1, 5000, 10.0, float(dl.Uniform(0, 20).var))), ".1f"),
    ("04", "| 370.8 | {} | 0 |", 0.3 * float(odaaf_v_sizes(1, 5000, 10.0, 100.0)), ".1f"),
    # notebook 05
    ("05", "the first {} rounds, those with", int(np.count_nonzero(dl.sequences.example8_delays(8192, 2))), "d"),
    ("05", "those with $t < \\sqrt{{KT/\\ln K}} \\approx {}$", math.sqrt(2 * 8192 / math.log(2)), ".1f"),
    ("05", "$\\sqrt{{(eKT/2 + D)/(16e^2\\ln K)}}$ is {} at the live panel's defaults", _SLIP_05, ".1f"),
    ("05", "(Exercise 5.4 asks what that does); $\\beta^*$ is {}, computed below", dl.policies.skipper.corollary4_beta(2, 1000, 22_400),
     ".1f"),
    ("05", "(the slip of Section 3): {} here, below $d = 20$", _SLIP_05, ".1f"),
    ("05", "Corollary 4's $\\beta$ is {}.", dl.policies.skipper.corollary4_beta(2, 1000, 22_400), ".1f"),
]


@pytest.mark.parametrize("nb, text, value, fmt", CLAIMS, ids=[f"{c[0]}:{c[1][:40]}" for c in CLAIMS])
def test_a_stated_number_is_what_delaylab_computes(nb, text, value, fmt):
    stated = text.format(format(value, fmt))
    assert stated in _markdown(nb), f"notebook {nb} does not say {stated!r}"


def test_the_observed_means_stop_misleading_early_on_figure_5_and_never_with_alpha_0_1():
    """Notebook 02, Section 4: with a gap of 0.2 the observed means stop misleading early (under round robin,
    after the step printed in §2); with α₂ = 0.1, Δ = 0.1 the better arm's expected observed mean is the
    lower one at every step up to T = 3000, and by the estimate of Exercise 2.3 for about 8·10⁸ steps: with
    every step lag spaced by 2 (round robin), the bias is about μ₂ t^(−α)/(1 − α), the other arm's (α = 1)
    vanishes, so the crossing is at t = ((1 − α)(1 − μ₁/μ₂))^(−1/α)."""
    assert 100 <= manegueu2020.looks_worse_until() <= 400
    assert manegueu2020.looks_worse_until((0.6, 0.7), (1.0, 0.1), 3000) == 3000
    t_cross = ((1 - 0.1) * (1 - 0.6 / 0.7)) ** (-1 / 0.1)
    assert 7.5e8 < t_cross < 8.5e8
    # the exact expectation far beyond the horizon: still the lower one at t = 200,000
    e = manegueu2020.expected_observed_mean((0.6, 0.7), manegueu2020.pareto_arms((1.0, 0.1)), [200_000])[0]
    assert e[1] < e[0]
    text = _markdown("02")
    assert "under round robin, after the step printed in §2" in text
    assert "under round robin its expectation is, at every step up to $T = 3000$ (by the estimate of Exercise 2.3, " \
           "for about $8\\cdot 10^8$ steps)" in text


def test_uniform_play_regret_in_example_8():
    """Notebook 05: uniform play on Example 8's losses (means 0.25 and 0.75) costs 0.5 × T/2."""
    assert thune2019.GAP == 0.5 and "$\\approx 0.5 \\times T/2$" in _markdown("05")


def test_no_simulation_number_in_a_verdict():
    """Verdicts under figures state what is computed under the figure, not numbers typed in: a
    verdict paragraph contains no decimal number beyond the figure's parameters."""
    import re

    allowed = {"0.04", "0.2", "0.3", "0.18", "0.45", "0.995", "0.80", "0.1", "0.35", "0.5", "0.4",
               "0.8", "0.6", "0.9", "1.5",
               "0.63", "0.99",  # 03's τ_m at (m, μ) = (100, 100) and (500, 100): computed, not simulated
               "0.52", "0.48", "0.95"}  # 05's Example 8 slopes, recomputed from its runs in test_thune2019_text
    assert f"{_tau(100, 100):.2f}" == "0.63" and f"{_tau(100, 500):.2f}" == "0.99"
    for nb in ("01", "02", "03", "04", "05"):
        text = _markdown(nb)
        # paragraph by paragraph, a cell's first line included (cells are joined by one newline)
        verdicts = [para.strip() for para in re.split(r"\n\s*\n|\n(?=\*\*Verdict)", text)
                    if para.strip().startswith("**Verdict")]
        assert len(verdicts) == text.count("**Verdict") > 0, (nb, len(verdicts), text.count("**Verdict"))
        for para in verdicts:
            places = r"(?:Sections?|Theorems?|Lemmas?|Corollary|Proposition|Appendix|Figures?|Eq\.|§)\s*\d+(?:\.\d+)*"
            numbers = re.findall(r"(?<![\w^{.])\d+\.\d+(?![\w}])", re.sub(places, "", para))
            assert set(numbers) <= allowed, (nb, para[:80], set(numbers) - allowed)


# ------------------------------------------------------------- the statements an instructor found wrong
def test_a_tail_index_of_one_has_an_infinite_mean():
    assert math.isinf(dl.Pareto(1.0).mean) and math.isfinite(dl.Pareto(1.05).mean)
    text = _markdown("02")
    assert "`dl.Pareto(1.0).mean` is `inf`" in text and "light-tailed" not in text
    assert "For $\\alpha < 1$ the mean delay is infinite" not in text


def test_the_crossing_time_is_computed_not_typed():
    from delaylab import exercises as ex

    t = manegueu2020.looks_worse_until()
    assert t == 268  # the last step at which the better arm's expected observed mean is the lower one
    why = ex.get("02.looks-best").grade("worse", {}).message
    assert f"until t = {t}" in why and "240" not in _markdown("02")


def test_patient_deviation_is_twice_hoeffding():
    """√(2 log(2KT³)/n) = 2·√(log(2/δ)/(2n)) at δ = 1/(KT³): the explanation says so."""
    from delaylab import exercises as ex

    K, T, n = 2, 3000, 17
    delta = 1 / (K * T**3)
    assert math.sqrt(2 * math.log(2 * K * T**3) / n) == pytest.approx(2 * math.sqrt(math.log(2 / delta) / (2 * n)))
    assert "twice the two-sided Hoeffding width" in ex.get("02.patient-ucb").explanation


def test_small_window_numbers():
    from delaylab import exercises as ex

    lower = ex.get("03.small-window").grade("lower", {}).message
    assert f"{_tau(100, 20):.3f}" == "0.189" and "0.189" in lower and "3.36 times" in lower


def test_the_leak_out_of_a_block_carries_theta():
    assert "about $\\theta_i\\,\\mathbb E[\\tau]$ rewards of arm $i$ leave the block" in _markdown("04")


def test_readings_give_corollary_4s_beta_in_the_papers_nested_form():
    """Review nb05-r5, finding 1: the paper's β (our reading) is the nested form, equal to β*; the readings
    no longer state a "printed β" of 17.5 (51 on §5's instance) beside it."""
    text = " ".join((Path(__file__).resolve().parent.parent / "docs" / "readings.md").read_text(encoding="utf-8").split())
    assert "β = sqrt(((eKT/2 + D)/(4e) + D)/(4e ln K))" in text
    assert "β* = sqrt((eKT/2 + (1 + 4e)D)/(16e² ln K))" in text
    for K, T, D in [(2, 1000, 22_400), (2, thune2019.TRADEOFF_HORIZON, float(thune2019.tradeoff_setting()[1].sum()))]:
        nested = math.sqrt(((math.e * K * T / 2 + D) / (4 * math.e) + D) / (4 * math.e * math.log(K)))
        assert nested == pytest.approx(dl.policies.skipper.corollary4_beta(K, T, D), rel=1e-12)
    assert "the printed β is" not in text and "51 against 173" not in text


# ------------------------------------------------------------- statements found on a reading, paper in hand
def test_the_leak_across_a_block_boundary_carries_theta_in_what_to_remember_too():
    text = _markdown("04")
    assert "only about $\\mathbb E[\\tau]$ rewards cross" not in text
    assert "about $\\theta_j\\,\\mathbb E[\\tau]$ of the previous arm $j$ enter arm $i$'s block" in text


def test_the_alpha_hat_question_names_the_instance_figure_2_measures():
    """Exercise 2.4 is answered by Figure 2, whose means are not Figure 5's."""
    assert manegueu2020.FIG2_MEANS == (0.5, 0.55) and manegueu2020.FIG2_ALPHAS == (1.0, 0.3)
    assert "On Figure 2's instance ($\\mu = (0.5, 0.55)$, $\\alpha = (1, 0.3)$)" in _markdown("02")


def test_the_criteo_delays_that_exceed_the_horizon_are_given_one_number():
    """Review nb03-r1, 6: the delays that exceed T (10^6 s), not the conversions of a run (more of
    those arrive after T: late pulls too). Review nb03-r2, 7: that share, P(D > 10^4 steps), is the
    one already given as "longer than 10^6 s": one number, 23%, not "23%" and "a quarter"."""
    from delaylab.papers import vernade2020

    late = 1 - float(dl.criteo(100).cdf(vernade2020.FIG3_HORIZON))
    assert vernade2020.FIG3_HORIZON * vernade2020.FIG3_SCALE == 1e6 and f"{late:.0%}" == "23%"
    md = _markdown("03")
    assert "about a quarter arrive after the horizon" not in md and "a quarter of the delays" not in md
    assert (f"and {late:.0%} are longer" in md and f"and the {late:.0%} of the delays longer than $10^6$ s exceed the "
            "whole horizon ($T = 10{,}000$ steps $= 10^6$ s)" in md)


def test_where_the_large_mode_of_the_criteo_delays_lies():
    """Review nb03-r1, 5: the large mode of Figure 2 is not 'one to ten days': the density of log10 delay
    rises from about 10^4.6 s (half a day), peaks near 10^6.15 s (16 days) and ends at 30 days; 40 % of
    the delays lie between 10^5 and 10^6 s, 23 % beyond. The small mode peaks at about two minutes."""
    from delaylab.papers import vernade2020

    edges, dens = vernade2020.criteo_log10_density()
    top = int(np.argmax(dens))
    assert 6.1 < edges[top] < 6.15 < edges[top + 1] < 6.2
    assert round(10 ** 6.15 / 86400) == 16 and round(10 ** edges[-1] / 86400) == 30
    small = int(np.argmax(np.where(edges[:-1] < 3, dens, 0)))   # the mode below 1000 s
    assert 90 < 10 ** edges[small] < 10 ** edges[small + 1] < 160                 # about two minutes
    rise = int(np.argmax((edges[:-1] > 4) & (dens > 1.5 * dens[(edges[:-1] > 3.7) & (edges[:-1] < 4.5)].max())))
    assert round(edges[rise], 1) == 4.6 and 10 ** 4.6 / 3600 == pytest.approx(11, abs=0.2)  # half a day
    law = dl.criteo(100)                                          # one step = 100 s
    between, beyond = float(law.cdf(10_000) - law.cdf(1000)), float(1 - law.cdf(10_000))
    assert f"{between:.0%}" == "40%" and f"{beyond:.0%}" == "23%"
    md = _markdown("03")
    assert "one to ten days" not in md and "around a minute to an hour" not in md
    for piece in ("a small one that peaks at about two minutes", "rises from about half a day ($10^{4.6}$ s)",
                  "peaks near $10^{6.15}$ s, about 16 days", "ends at the 30-day cut-off",
                  f"in our law {between:.0%} are, and {beyond:.0%} are longer"):
        assert piece in md, piece
    guide = (Path(__file__).resolve().parent.parent / "docs" / "instructor.md").read_text(encoding="utf-8")
    readings = (Path(__file__).resolve().parent.parent / "docs" / "readings.md").read_text(encoding="utf-8")
    assert "one to ten days" not in guide
    assert (f"a large one peaking near 16 days; {between:.0%} of the delays lie between 10^5 and 10^6 s, "
            f"{beyond:.0%} beyond") in guide
    assert f"{between:.0%} of its delays lie between 10^5 and" in readings and f"and {beyond:.0%} are longer" in readings


@pytest.mark.parametrize("nb", ["01", "02", "03", "04", "05"])
def test_a_section_said_to_be_below_is_a_later_heading_of_the_notebook(nb):
    """"Section N below", "Section N (below)" and "§N (below)" name the notebook's own numbered headings."""
    import re

    (path,) = NOTEBOOKS.glob(f"{nb}_*.ipynb")
    cells = ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]]
    heads = {int(m.group(1)): i for i, s in enumerate(cells) if (m := re.match(r"## (\d+)\. ", s))}
    found = 0
    for i, text in enumerate(cells):
        for m in re.finditer(r"(?:Section |§)(\d+) \(?below\)?", text):
            found += 1
            assert heads.get(int(m.group(1)), -1) > i, f"notebook {nb} cell {i}: {m.group(0)!r}"
    assert found or nb in ("03", "04")


def test_hints_name_sections_the_notebook_has():
    import re

    from delaylab import exercises as ex

    for eid in ex.ids():
        (path,) = NOTEBOOKS.glob(f"{eid[:2]}_*.ipynb")
        cells = ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]]
        heads = {int(m.group(1)) for s in cells if (m := re.match(r"## (\d+)\. ", s))}
        for hint in ex.get(eid).hints:
            for m in re.finditer(r"Sections? (\d+)", hint):
                assert int(m.group(1)) in heads, (eid, hint)


def test_the_panel_points_to_the_section_of_adapt_patient_bandits():
    text = _markdown("02")
    assert "**Adapt-Patient Bandits** (§8 below)" in text and "## 8. Adapt-Patient Bandits" in text


def test_adapt_patients_short_wait_is_zero_below_seventy_thousand_pulls():
    """Notebook 02, Section 8: d_t = ⌊(c/2)^(1/α_low)·⌊T̄_t/2⌋⌋ = 0 for every T̄_t < 70,000 (c = 0.7, α_low = 0.1)."""
    factor = (0.7 / 2) ** (1 / 0.1)
    assert math.floor(factor * (70_000 // 2)) == 0 and math.floor(factor * (80_000 // 2)) == 1
    assert "so $d_t = 0$ for any $\\bar T_t < 70{,}000$" in _markdown("02")


def test_odaaf_v_under_geometric_delays_eliminates_last():
    """Notebook 04, Section 5: with geometric delays ODAAF-V has eliminated the worse arm in no run by the
    notebook's T = 30,000, and in every run by T = 50,000 (our full scale), seeded as the notebook's: read
    from the traced runs' elimination steps (no regret over the last steps is not the same thing)."""
    from delaylab.papers import pikeburke2018 as pb

    law = pb.unbounded_laws()["geometric"]
    policy = {"ODAAF-V": dl.ODAAFV(mean_delay=float(law.mean), variance=float(law.var))}
    done = {}
    for T in (30_000, 50_000):
        res = dl.simulate(dl.AggregatedAnonymous(pb.THETA, law), policy, T, 10, 0, checkpoints=[T], trace=True)
        done[T] = float(np.mean(res.traces["ODAAF-V"]["eliminated_at"][:, -1, 1] >= 0))
    assert done == {30_000: 0.0, 50_000: 1.0}, done
    assert "it eliminates last (at the notebook's horizon in no run; at $T = 50{,}000$ in every run)" in \
        _markdown("04")


def test_the_leak_explanation_does_not_cancel_what_differs():
    """04.leak's explanation: arm i's own rewards that leave are θ_i·E[τ], not 'as many' as arm j's θ_j·E[τ]."""
    from delaylab import exercises as ex

    from delaylab.exercises.texts import to_plain

    why = to_plain(ex.explanation("04.leak", student=""))
    assert "As many" not in why and "θᵢ E[τ] of arm i's own rewards leave" in why and "(θⱼ − θᵢ) E[τ]" in why


def test_the_block_bias_diagnosis_says_theta_i_leaves_not_as_many():
    """04.block-bias, the answer that counts only arm j's incoming rewards: arm i's outgoing ones are θ_i·E[τ]."""
    from delaylab import exercises as ex

    p = ex.params("04.block-bias", "")
    from delaylab.exercises.texts import to_plain

    msg = to_plain(ex.check("04.block-bias", p["theta_j"] * (p["d"] / 2) / p["n"], student="").message)
    assert "as many" not in msg and "θᵢ E[τ] of arm i's own rewards also leave the block" in msg
    guide = (Path(__file__).resolve().parent.parent / "docs" / "instructor.md").read_text(encoding="utf-8")
    assert "as many of arm i's rewards leave" not in guide


def test_the_guides_bias_bound_chain_holds():
    """docs/instructor.md, notebook 02's lecture, over the paper's lags 1 … T (review nb02-r12, NIT 4):
    (1/T) Σ_{v=1}^{T} v^(−α) ≤ T^(−α)/(1 − α) ≤ 2T^(−α) for α ≤ 1/2."""
    for a in (0.05, 0.1, 0.3, 0.45, 0.5):
        for T in (1, 2, 3, 10, 100, 10**4, 10**6):
            lhs = float(np.sum(np.arange(1, T + 1, dtype=float) ** -a)) / T
            mid = T ** -a / (1 - a)
            assert lhs <= mid * (1 + 1e-12) and mid <= 2 * T ** -a * (1 + 1e-12), (a, T)
    guide = " ".join((Path(__file__).resolve().parent.parent / "docs" / "instructor.md").read_text(encoding="utf-8").split())
    assert "≤ (1/T_i) Σ_{v=1}^{T_i} v^(−α) ≤ (1/T_i) ∫_0^{T_i} x^(−α) dx = T_i^(−α)/(1 − α) ≤ 2T_i^(−α) for α ≤ 1/2" in guide


GUIDE_CLAIMS = [
    ("round robin, {} regret per step on θ_L", vernade2017.round_robin_cost(), ".2f"),
    ("whose slope is {} on θ_L", vernade2017.ucb_slope(vernade2017.THETA_L, 1000), ".1f"),
    ("against the lower bound's {} (§7)", vernade2017.lower_bound(vernade2017.THETA_L, 1000), ".1f"),
    ("τ_m goes from {} to", _tau(500, 1000), ".2f"),
    ("goes from 0.86 to {})", _tau(500, 2000), ".2f"),
    ("τ_m drops from 0.86 to {}", _tau(1000, 1000), ".2f"),
    ("the deviation term is still {} after 1000 pulls", math.sqrt(2 * log_term(2, 3000) / 1000), ".2f"),
    ("0.6·τ₁(10) = {}", 0.6 * float(dl.Pareto(1.0).cdf(10)), ".2f"),
    ("0.8·τ₂(10) = {}", 0.8 * float(dl.Pareto(0.3).cdf(10)), ".2f"),
    ("2T_i^(−α̂) falls fastest at α̂ = 1/ln T_i, about {} at T_i = 1500", 1 / math.log(1500), ".2f"),
    ("The status line gives τ_m: {}, then", _tau(100, 100), ".2f"),
    ("τ_m: 0.63, then {};", _tau(100, 20), ".2f"),
    ("shrinks by a factor {} while", _tau(100, 100) / _tau(100, 20), ".1f"),
    ("2f_{{t,δ}} ≈ {} multiplies the norm at T = 3000 and alone", 2 * float(confidence_radius(3000, 5, 1.0, 0.1)),
     ".0f"),
    ("panel, τ_m = {}: every learner still adds regret", _tau(500, 100), ".2f"),
    ("m = 2000, τ_m ≈ {}.", float(dl.criteo(100).cdf(2000)), ".2f"),
    ("the signal: {} against", _tau(100, 100), ".2f"),
    ("0.63 against {} |", _tau(100, 20), ".2f"),
]


@pytest.mark.parametrize("text, value, fmt", GUIDE_CLAIMS, ids=[c[0][:40] for c in GUIDE_CLAIMS])
def test_a_number_the_instructors_guide_states_is_what_delaylab_computes(text, value, fmt):
    guide = (Path(__file__).resolve().parent.parent / "docs" / "instructor.md").read_text(encoding="utf-8")
    stated = text.format(format(value, fmt))
    assert stated in guide, f"docs/instructor.md does not say {stated!r}"


def test_the_panels_phase_numbers_in_notebook_04():
    """Section 4's things to try: ODAAF-V's n_1 with geometric delays of mean 10 (V = 110) at T = 5000, and the
    bound d above which ODAAF-B's phases depend on d ("several hundred")."""
    from delaylab.policies.odaaf import odaaf_b_binding_bound, odaaf_v_sizes

    n1 = int(odaaf_v_sizes(1, 5000, 10.0, float(dl.Geometric(10.0).var)))
    assert dl.Geometric(10.0).var == 110 and 2 * n1 > 5000
    text = _markdown("04")
    assert f"two blocks of $n_1 = {n1:,}$ steps".replace(",", "{,}") in text
    assert 200 <= odaaf_b_binding_bound(5000, 10.0) < 1000 and "only for $d$ of several hundred" in text
