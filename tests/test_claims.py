"""delaylab.claims: each claim holds exactly when its numbers say so, with the evidence printed;
and delaylab.panels.moves, which plays the student who moves every slider in the solved copies."""

from __future__ import annotations

import math
from types import SimpleNamespace

import ipywidgets as W
import numpy as np
import pytest

from delaylab import claims
from delaylab.panels.moves import Watch, moved_value


def fake(finals: dict, horizon=100):
    """A Result-like object with the given final regrets per run."""
    arr = {k: np.asarray(v, float) for k, v in finals.items()}
    return SimpleNamespace(final=lambda n: arr[n], horizon=horizon, grid_shape=())


def test_lower_uses_the_paired_difference():
    # b − a = (2, 4, 6, 8): mean 5, sd √(20/3), se √(20/3)/2 = 1.291: 3.87 s.e.
    res = fake({"a": [10, 10, 10, 10], "b": [12, 14, 16, 18]})
    c = claims.lower(res, "a", "b")
    assert c.holds and "gap 5" in c.evidence and "± 1.29" in c.evidence and "4 paired runs" in c.evidence
    assert not claims.lower(res, "a", "b", z=4).holds
    assert not claims.lower(res, "b", "a").holds
    # runs that differ wildly but pair up: the paired difference decides, not the spread of each
    paired = fake({"a": [1, 100, 1000, 5], "b": [3, 101, 1003, 6]})
    assert claims.lower(paired, "a", "b").holds


def test_lower_with_zero_spread():
    res = fake({"a": [1, 2, 3], "b": [2, 3, 4]})
    c = claims.lower(res, "a", "b")
    assert c.holds and "inf s.e." in c.evidence


def test_ratio_within_and_its_standard_error():
    res = fake({"a": [9, 11, 10, 10], "b": [10, 10, 10, 10]})
    c = claims.ratio_within(res, "a", "b", 0.9, 1.1)
    assert c.holds and c.evidence.startswith("ratio 1.000")
    # se of ā/b̄ with b constant: sd(a)/√n / b̄ = √(2/3)/2/10 = 0.0408
    assert "± 0.0408" in c.evidence
    assert not claims.ratio_within(res, "a", "b", 1.01, 2).holds


def test_not_different_and_estimate():
    res = fake({"a": [1, 2, 3, 4], "b": [2, 1, 4, 3]})
    assert claims.not_different(res, "a", "b").holds
    assert claims.estimate("a fall of about 60 %", 0.63, 0.02, low=0.55, high=0.7, z=2).holds
    assert not claims.estimate("a fall of about 40 %", 0.63, 0.02, low=0.35, high=0.45).holds
    assert "0.63 ± 0.02" in str(claims.estimate("x", 0.63, 0.02))


def test_check_prints_and_fails_with_every_failed_claim(capsys):
    ok = claims.estimate("holds", 1.0, 0.1, low=0)
    bad = claims.estimate("does not", 1.0, 0.1, high=0)
    claims.check(ok, [ok])
    assert capsys.readouterr().out.count("✓ holds") == 2
    with pytest.raises(AssertionError, match="does not"):
        claims.check(ok, bad)
    with pytest.raises(TypeError):
        claims.check("a sentence")


def test_grid_results_are_refused():
    res = fake({"a": np.zeros((2, 3)), "b": np.ones((2, 3))})
    with pytest.raises(ValueError, match="grid"):
        claims.lower(res, "a", "b")


def test_moved_values_are_valid_and_different():
    s = W.IntSlider(value=10, min=0, max=100, step=5)
    assert moved_value(s) == 70
    f = W.FloatLogSlider(value=100, base=10, min=1, max=4, step=0.1)
    assert math.isclose(moved_value(f), 10 ** 3.1)
    d = W.Dropdown(options=[("a", 1), ("b", 2), ("c", 3)], value=1)
    assert moved_value(d) == 2 or moved_value(d) == 3
    assert moved_value(W.Checkbox(value=True)) is False
    assert moved_value(W.Button()) is None
    assert moved_value(W.IntSlider(value=70, min=0, max=100)) is None  # already there


def test_watch_moves_a_panel_once_and_names_the_cell_that_moves_it_back():
    from delaylab.panels.conversions import ConversionsPanel

    panel = ConversionsPanel(horizon=300, runs=4)
    before = panel.mean_delay.value
    watch = Watch()
    watch.after_cell({"panel": panel}, "panel")
    assert panel.mean_delay.value != before
    watch.after_cell({"panel": panel}, "print(1)")
    watch.untouched()
    panel.mean_delay.value = before
    watch.after_cell({"panel": panel}, "panel.mean_delay.value = 500  # back")
    with pytest.raises(AssertionError, match="back"):
        watch.untouched()
