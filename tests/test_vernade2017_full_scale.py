"""Notebook 01's Figure 2 verdict at the paper's 200 runs (the button's) and on other seeds at the
figure's 40 (review general-r9, notes for notebook 01): the statements the verdict makes at 200 runs
hold there, and the ones it makes of the 40-run figure hold whatever the seed, while the sentences
they replace held on seed 0 only. The whole file takes about 8 s on 2 cores with an empty cache
(Figure 2 at 200 runs about 3 s, each 40-run seed about 1 s), computed once per session."""

from __future__ import annotations

import pytest

from delaylab.papers import vernade2017 as paper


@pytest.fixture(scope="module")
def full():
    return paper.figure2(runs=paper.FIG2_PAPER_RUNS, seed=0)  # what the button runs


@pytest.fixture(scope="module")
def others():
    return {seed: paper.figure2(runs=40, seed=seed) for seed in (1, 2)}


def _claims(res) -> dict:
    return {c.text: c for c in paper.figure2_claims(res)}


def test_the_button_runs_these_parameters():
    assert paper.figure2_panel(runs=2).paper_runs == paper.FIG2_PAPER_RUNS == 200


def test_every_200_run_statement_holds_on_the_buttons_runs(full):
    claims = _claims(full)
    assert all(c.holds for c in claims.values()), "\n".join(str(c) for c in claims.values() if not c.holds)
    said = list(claims)
    for words in ("Discarding KL-UCB's regret still grows faster than D-KLUCB's: it has not caught up by T "
                  "(difference per 1000 steps, by 3 s.e.)",
                  "Discarding UCB's regret grows faster than D-UCB's too (difference per 1000 steps, positive at 200 runs)",
                  "from t = 4,000 to T, D-UCB lies below Discarding UCB",
                  "D-UCB's regret is no lower than Discarding UCB's round robin"):
        assert any(words in t for t in said), words


@pytest.mark.parametrize("seed", [1, 2])
def test_what_the_verdict_says_of_40_runs_holds_on_other_seeds(others, seed):
    claims = _claims(others[seed])
    assert all(c.holds for c in claims.values()), "\n".join(str(c) for c in claims.values() if not c.holds)


def test_the_replaced_sentences_held_on_seed_0_only(others):
    """What the verdict said before: D-UCB level with round robin at t = m (within 2 s.e.), Discarding
    KL-UCB growing faster late by 3 s.e., the UCB pair within 2 s.e. of each other, D-UCB below from
    t = 4000 by 3 s.e., all at 40 runs. Each fails on seed 1 or 2: "how clearly depends on the seed"."""
    level = {s: paper.gap_at(r, "D-UCB", "Discarding UCB", paper.WINDOW) for s, r in others.items()}
    assert level[1][0] > 2 * level[1][1]  # seed 1: +1.74 ± 0.52
    kl = {s: paper.late_difference(r, "Discarding KL-UCB", "D-KLUCB") for s, r in others.items()}
    assert all(0 < m < 3 * se for m, se in kl.values()), kl  # the same sign, not by 3 s.e. (0.9 and 1.3)
    ucb = paper.late_difference(others[2], "Discarding UCB", "D-UCB")
    assert 2 * ucb[1] < ucb[0] < 3 * ucb[1], ucb  # seed 2: 2.3 s.e. ("within 3 s.e." holds, "within 2" not)
    assert paper._smallest_z(others[2], "D-UCB", "Discarding UCB", paper.UCB_AHEAD) < 3 <= \
        paper._smallest_z(others[2], "D-UCB", "Discarding UCB", paper.UCB_AHEAD_FEW)
