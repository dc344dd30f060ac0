"""Typed fields of the live panels: bad input shows a message, good input reruns."""

import ipywidgets as W
import numpy as np
import pytest

from delaylab.panels.conversions import ConversionsPanel
from delaylab.panels.fields import SELECTIONS, clean_state, controls, lock_control, parse_seed


def test_parse_seed_accepts_whole_numbers_in_range():
    assert parse_seed(" 42 ") == 42 and parse_seed("1_000") == 1000 and parse_seed(str(2**63 - 1)) == 2**63 - 1
    for bad, why in [("-1", "not a whole number"), ("1.5", "not a whole number"), ("abc", "not a whole number"),
                     ("", "not a whole number"), (str(2**63), "outside the valid range")]:
        with pytest.raises(ValueError, match=why):
            parse_seed(bad)


def test_seed_field_reruns_on_a_valid_seed_and_explains_a_bad_one():
    panel = ConversionsPanel(horizon=500, runs=10)
    fields = [w for w in controls(panel.widget) if getattr(w, "description", None) == "seed"]
    assert len(fields) == 1  # shown once, among the panel's controls
    field = fields[0]
    assert field is panel.seed_field.text and field.value == "0"
    _, before = panel.regret.curve("D-KLUCB")
    field.value = "seven"
    message = panel.seed_field.message.value
    assert "not a whole number" in message and "seed 0" in message and panel.seed == 0
    assert np.array_equal(panel.regret.curve("D-KLUCB")[1], before)  # nothing reran
    field.value = "7"
    assert panel.seed == 7 and panel.seed_field.message.value == ""
    assert not np.array_equal(panel.regret.curve("D-KLUCB")[1], before)
    assert [w for w in controls(panel.widget) if getattr(w, "description", None) == "seed"] == [field]  # one per panel


def test_result_cache_forgets_the_oldest_entries_beyond_its_limit():
    from delaylab.panels.results import ResultCache

    cache = ResultCache(limit=3)
    for k in "abcde":
        cache[k] = k.upper()
    assert list(cache) == ["c", "d", "e"] and cache["e"] == "E"


def test_result_cache_keeps_the_entries_a_panel_just_asked_for():
    """A panel asks for every curve it draws, then stores the missing ones: the stored ones must not
    push out a curve it asked for (it then reads them all)."""
    from delaylab.panels.results import ResultCache

    cache = ResultCache(limit=3)
    for k in "abc":
        cache[k] = k.upper()
    assert "a" in cache  # asked for: "b" is now the least recently asked for
    cache["d"] = "D"
    assert list(cache) == ["c", "a", "d"] and cache["a"] == "A"


def test_selections_are_every_public_single_selection_control_of_ipywidgets():
    """The panels recognise selections by the public classes; a release of ipywidgets that adds
    one under its private base ``_Selection`` must be added to SELECTIONS."""

    def subclasses(c):
        for sub in c.__subclasses__():
            yield sub
            yield from subclasses(sub)

    public = {c for c in subclasses(W.widget_selection._Selection)
              if c.__module__.startswith("ipywidgets.") and not c.__name__.startswith("_")}
    assert public == set(SELECTIONS)
    drop = W.Dropdown(options=["a", "b"])
    assert clean_state(drop, {"index": 1}) == {"index": 1} and clean_state(drop, {"index": 2}) == {}


def test_locking_a_control_twice_wraps_it_once():
    s = W.IntSlider(min=0, max=10)
    lock_control(s)
    locked = s.set_state
    lock_control(s)
    assert s.set_state is locked
    s.set_state({"value": 99, "max": 1000})
    assert (s.value, s.max) == (10, 10)
