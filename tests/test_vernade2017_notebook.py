"""Notebook 01 (Vernade, Cappé, Perchet 2017): what its text says, against delaylab and the paper.

Each test pins one statement an expert found wrong or misleading (issue 33's findings 1, 2 and 11;
issue 38's items 9 and 13; the review of the notebook that followed), so that the old text, or
code that contradicts the new one, fails. The simulations behind the notebook's claims are
checked where the notebook states them (its check cells, run by nbval); here, what can be
computed exactly or cheaply.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import delaylab as dl
from delaylab import exercises as ex
from delaylab.papers import vernade2017 as paper

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "01_delayed_conversions.ipynb"


def cells() -> list[tuple[str, str]]:
    return [(c["cell_type"], "".join(c["source"])) for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]]


def markdown() -> str:
    return "\n".join(s for kind, s in cells() if kind == "markdown")


def cell_with(text: str) -> str:
    found = [s for _, s in cells() if text in s]
    assert len(found) == 1, f"{len(found)} cells of notebook 01 contain {text!r}"
    return found[0]


# ------------------------------------------------------------- finding 1: what the gap is due to
def test_the_text_credits_the_gap_between_ucb1_and_d_ucb_to_the_constant():
    text = markdown()
    assert "**half of UCB1's** $\\sqrt{2\\log t/N}$" in text
    assert "it is exactly UCB1 with the constant $1/2$ instead of $2$" in text
    assert "**The gap between UCB1 and D-UCB is UCB1's wider constant, not $\\tilde N$.**" in text
    assert "the same index without $\\tilde N$" in text and "each pair differs in $\\tilde N$ alone" in text


def test_the_widths_the_text_compares():
    """UCB1's width sqrt(2 log t/N) is twice D-UCB's sqrt(N/Ñ)·sqrt(log t/(2Ñ)) when Ñ = N."""
    n, t = np.array([3.0, 50.0, 1e4]), 2500
    ucb1 = dl.indices.ucb1_index(0.0, n, t)
    d_ucb = dl.indices.delayed_ucb_index(0.0, n, n, dl.indices.exploration(t))
    np.testing.assert_allclose(ucb1, 2 * d_ucb)


def test_where_n_tilde_matters_the_bias_grows_with_the_rate_and_the_gaps_do_not():
    """'Five times larger on θ_H than on θ_L (rates five times higher), while the gaps Δ_k are only two
    to three times larger (0.1 and 0.2 against 0.05 and 0.07)': the pending bias is θ·(pending share)."""
    np.testing.assert_allclose(np.array(paper.THETA_H) / np.array(paper.THETA_L), [5, 8, 10])
    gaps = lambda th: [round(max(th) - x, 10) for x in th if x < max(th)]  # noqa: E731
    assert gaps(paper.THETA_H) == [0.1, 0.2] and gaps(paper.THETA_L) == [0.05, 0.07]
    ratios = np.array(gaps(paper.THETA_H)) / np.array(gaps(paper.THETA_L))
    assert np.all((2 <= ratios) & (ratios <= 3))
    assert ("while the gaps $\\Delta_k$ are only two to three times larger ($0.1$ and $0.2$ against $0.05$ and "
            "$0.07$)") in markdown()


def test_lemma_8_holds_for_p_below_q_only():
    """Section 3 reads Lemma 8's lost range as 0 < p < q < 1: there (1 − q)d(p, q) ≤ d_Pois(p, q) ≤ d(p, q);
    the lower bound fails for some p > q."""
    p, q = np.meshgrid(np.linspace(0.001, 0.999, 200), np.linspace(0.001, 0.999, 200))
    d, dp = dl.indices.kl_bernoulli(p, q), dl.indices.kl_poisson(p, q)
    below = p < q
    assert np.all((1 - q[below]) * d[below] <= dp[below] + 1e-12) and np.all(dp <= d + 1e-12)
    assert np.any((1 - q[~below]) * d[~below] > dp[~below] + 1e-6)
    assert "for $0 < p < q < 1$; the range is lost in our copy of the paper, our reading" in markdown()


def test_the_claims_of_section_4_fail_where_they_should():
    """The claims helper is not a rubber stamp: given θ_L's result where θ_H's and μ = 5000's belong,
    each statement about θ_H and about long delays fails."""
    at_defaults = paper.comparison()  # the notebook's parameters (a few seconds)
    on_high = paper.comparison(paper.THETA_H, names=[n for pair in paper.PAIRS for n in pair])
    streaks = paper.comparison(names=paper.PAIRS[0], runs=10, trace=True)
    long_delays = paper.comparison(names=["D-UCB"], mean_delay=5000)
    good = paper.ntilde_claims(at_defaults, on_high, streaks, long_delays)
    assert all(c.holds for c in good), "\n".join(str(c) for c in good if not c.holds)
    swapped = paper.ntilde_claims(at_defaults, at_defaults, streaks, at_defaults)
    failed = [c.text for c in swapped if not c.holds]
    assert failed == ["θ_H: D-KLUCB ends well below D-KLUCB without Ñ",
                      "θ_H: D-UCB gains little from Ñ (level with D-UCB without Ñ)",
                      "μ = 5000: D-UCB ends above uniform random play"]


# ------------------------------------------------------------- finding 2: the naive estimator's bias
def test_the_estimator_verdict_names_the_window_not_the_pending_pulls_as_what_stays():
    text = cell_with("**What the figure shows — matches the paper (Section 5.1")
    assert "a constant share of every arm's recent pulls is always still on its way" not in text
    assert "so $S/N \\to \\tau_m\\theta$ however long the arm is played" in text
    assert "fades like $1/N$: it halves between $t = 750$ and $t = 1500$" in text


def test_the_pending_share_is_bounded_by_mu_over_k_and_vanishes_the_window_share_stays():
    """Under round robin (θ_H, μ = 200, m = 400), exactly: S/N's expected shortfall is 1 − Ñ/N =
    (1 − τ_m) + (τ_m − Ñ/N); the second part's weight τ_m·N − Ñ is at most the uncensored pending
    weight, about μ/K, so the part halves when N doubles, and the first part does not move."""
    law, m, K = dl.Geometric(200), 400, 3
    tau_m = float(law.cdf(m))
    shares = {}
    for t in (1500, 3000, 6000):
        count = dl.policies.counts.TabulatedCount(
            dl.policies.delayed.weight_table([law] * K, m, t + 1, dl.streams.Batch(np.arange(1))), 1, K)
        for s in range(t):
            onehot = np.zeros((1, K))
            onehot[0, s % K] = 1.0
            count.push(s, np.array([s % K]), onehot)
        n = t / K
        weight = tau_m * n - count.value()[0]
        assert np.all(weight > 0) and np.all(weight <= law.mean / K * 1.01)
        shares[t] = float(np.mean(weight / n))
    assert shares[1500] / shares[3000] == pytest.approx(2, rel=1e-6)
    assert shares[3000] / shares[6000] == pytest.approx(2, rel=1e-6)


def test_the_estimator_study_splits_the_shortfall_as_the_text_says():
    study = paper.estimator_study(horizon=1500, runs=40)
    end, half = paper.estimator_parts(study), paper.estimator_parts(study, 750)
    np.testing.assert_allclose(end["window"] + end["pending"], end["predicted"])
    assert end["window"][0] == pytest.approx(1 - float(dl.Geometric(200).cdf(400)))
    assert np.mean(half["pending"]) / np.mean(end["pending"]) == pytest.approx(2, rel=0.01)
    summary = paper.estimator_summary(study)
    assert "is the window's (1 − τ_m, it stays)" in summary and "vanishes like 1/N" in summary


# ------------------------------------------------------------- finding 11: which constant Exercise 1.5 wants
def test_exercise_1_5_asks_for_the_pseudo_regret_slope_and_says_it_is_not_the_printed_constant():
    prompt = cell_with("### ✎ Exercise 1.5")
    assert "the constant $c$ of Theorem 3" not in prompt
    assert "the slope $c$ of the censored lower bound for the **pseudo-regret**" in prompt
    assert "This is not the constant of Theorem 3 as printed, which has an extra factor $\\tau_m$" in prompt
    assert "PSEUDO-REGRET" in ex.get("01.lower-bound").stub and "Theorem 3" not in ex.get("01.lower-bound").stub
    p = ex.params("01.lower-bound", "")
    printed = dl.bounds.censored_slope((p["best"], p["other"]), float(dl.Geometric(p["mu"]).cdf(p["m"])),
                                       paper_regret=True)
    verdict = ex.check("01.lower-bound", printed, student="")
    assert not verdict.correct and "Theorem 3's constant as printed" in verdict.message
    assert ex.check("01.lower-bound", ex.solution("01.lower-bound", ""), student="").correct


def test_the_two_constants_at_the_defaults():
    """The issue's numbers: Theorem 3 as printed 3.029, the pseudo-regret's slope 3.503 (θ = (0.1, 0.05),
    μ = 500, m = 1000)."""
    tau_m = float(dl.Geometric(500).cdf(1000))
    assert dl.bounds.censored_slope((0.1, 0.05), tau_m, paper_regret=True) == pytest.approx(3.029, abs=5e-4)
    assert dl.bounds.censored_slope((0.1, 0.05), tau_m) == pytest.approx(3.503, abs=5e-4)


# ------------------------------------------------------------- issue 38, item 13: Exercise 1.4's statement
def test_exercise_1_4_states_the_index_where_theta_hat_is_at_least_one():
    statement = cell_with("### ✎ Exercise 1.4")
    assert "Where $\\hat\\theta \\ge 1$ (possible, since $\\tilde N < N$)" in statement
    assert "the index is $\\hat\\theta$ itself" in statement
    assert "and theta_hat itself where theta_hat >= 1" in ex.get("01.d-klucb-index").stub
    assert float(dl.indices.klucb_poisson(1.187, 5.0, 3.0)) == pytest.approx(1.187)  # the "1 instead of 1.187"


# ------------------------------------------------------------- the review: statements attributed to the paper
def test_statements_about_the_paper_say_as_printed_corrected_or_our_reading():
    text = markdown()
    for passage in ["corrected: Section 7 of the paper, as printed, takes", "This is the paper's Eq. (6), corrected",
                    "the same count has the weight $\\tau(t-1-s)$; our reading", "(Section 7, as printed)",
                    "our reading: Appendix B's bound on $E[N_k(T)]$", "Theorem 3 as printed has an extra factor",
                    "(end of Section 6, as printed", "(Appendix D, as printed)"]:
        assert passage in text, passage
    assert "(the paper's Eq. 6)" not in text and "same quantity" not in text


def test_eq_6_as_printed_and_as_corrected():
    """With delays on {0, 1, …}, P(D > e) = λ^(e+1): the pull just made is pending with probability
    λ, so O ← λ(O + 1{A_t = k}); the printed O ← λO + 1{A_t = k} counts it as wholly pending."""
    law = dl.Geometric(7.0)
    lam = float(law.ratio)
    pulls = [0, 2, 3, 7]  # one arm's pulls; the decision of step t = 9
    exact = sum(1 - float(law.cdf(9 - 1 - s)) for s in pulls)
    O_ours = O_printed = 0.0
    for t in range(9):
        a = 1.0 if t in pulls else 0.0
        O_ours, O_printed = lam * (O_ours + a), lam * O_printed + a
    assert O_ours == pytest.approx(exact) and O_printed != pytest.approx(exact)


def test_no_cell_changes_a_control_and_the_solved_copy_moves_the_panels():
    from delaylab.exercises.solve import FOLLOWS_THE_STUDENT

    assert "01" in FOLLOWS_THE_STUDENT
    for kind, source in cells():
        if kind == "code":
            assert not re.search(r"\.(value|index)\s*=[^=]", source), source[:80]


def test_every_check_cell_prints_its_claims():
    """The check cells of the verdicts end with dl.claims.check on fixed parameters."""
    checks = [s for kind, s in cells() if kind == "code" and "dl.claims.check(" in s]
    assert len(checks) == 6
    for source in checks:
        assert "panel." not in source and "fig1.results" not in source and "fig2.results" not in source


# ------------------------------------------------------------- the instructor's guide, against the notebook
def guide_part() -> str:
    text = (ROOT / "docs" / "instructor.md").read_text(encoding="utf-8")
    return text[text.index("## Notebook 01 ·"):text.index("## Notebook 02 ·")]


def test_the_guides_board_derivations_are_the_notebooks():
    """Each step the guide derives on the board for notebook 01 is a statement of the notebook."""
    guide, text = guide_part(), markdown()
    pairs = [  # (the guide's board, the notebook's words for it)
        ("E[S_k(t)] = Σ_s θ_k·P(D ≤ min(t − 1 − s, m)) = θ_k·Ñ_k(t)", "$E[S_k] = \\theta_k \\tilde N_k$ exactly"),
        ("E[S/N] = θ·Ñ/N < θ", "the naive $S_k/N_k$ has the expectation $\\theta_k\\tilde N_k/N_k$"),
        ("the window's share 1 − τ_m never vanishes (S/N → τ_mθ)", "so $S/N \\to \\tau_m\\theta$ however long"),
        ("so their share fades like 1/N", "fades like $1/N$: it halves between $t = 750$ and $t = 1500$"),
        ("the recursion O ← λ(O + 1{A_t = k}), the paper's Eq. 6 in our timing",
         "obeys $O_k \\leftarrow \\lambda (O_k + \\mathbb 1\\{A_t = k\\})$ after each step"),
        ("D-UCB's width √(log t/(2N)) is half of UCB1's √(2 log t/N)", "**half of UCB1's** $\\sqrt{2\\log t/N}$"),
        ("c = Σ_k Δ_k / d(τ_mθ_k, τ_mθ*)", "so its slope is $c = \\sum_k \\Delta_k / d_k$"),
    ]
    for board, notebook in pairs:
        assert board in guide, board
        assert notebook in text, notebook
    assert "d_k = d(\\tau_m\\theta_k, \\tau_m\\theta^*)" in text


def test_what_the_guide_says_the_panel_shows_when_mu_doubles():
    """'⟦mean delay μ⟧ 500 → 1000: τ_m drops from 0.86 to 0.63 … and D-UCB's and D-KLUCB's regrets rise.'"""
    assert "⟦mean delay μ⟧ 500 → 1000: τ_m drops from 0.86 to 0.63" in guide_part()
    assert "and D-UCB's and D-KLUCB's regrets rise" in guide_part()
    before, after = paper.comparison(), paper.comparison(mean_delay=1000)
    for name in ("D-UCB", "D-KLUCB"):
        a, b = before.final(name), after.final(name)
        se = np.hypot(a.std(ddof=1) / np.sqrt(a.size), b.std(ddof=1) / np.sqrt(b.size))
        assert b.mean() - a.mean() > 3 * se, (name, a.mean(), b.mean(), se)


def test_readings_say_how_each_reading_of_the_paper_is_taken():
    text = (ROOT / "docs" / "readings.md").read_text(encoding="utf-8")
    part = text[text.index("## 1. Delayed conversions"):text.index("## 2. Arm-dependent")]
    for passage in ["not a mean\n  of 500 (*corrected*)", "the weight is τ(t − 1 − s): *our reading*",
                    "O_k ← λ(O_k + 1{A_t = k}) (*corrected*",
                    "*our\n  reading*, the one that makes θ̂^m unbiased", "We read 0 < p < q < 1",
                    "c = Σ_k τ_mΔ_k/d(τ_mθ_k, τ_mθ*) (*as printed*)", "Exercise 1.5 asks for that one",
                    "D-UCB without Ñ is exactly UCB1 with the constant 1/2"]:
        assert passage in part, passage
