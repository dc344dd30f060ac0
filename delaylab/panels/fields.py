"""Typed fields of the live panels: what a student types is checked before anything runs.

A wrong value leaves the panel as it was and shows why, next to the field, in the page (never
a traceback); a valid value reruns the panel.
"""

from __future__ import annotations

import html

import ipywidgets as W

MAX_SEED = 2**63 - 1


def parse_seed(text: str) -> int:
    """The seed typed in a field: a whole number in [0, 2^63 − 1], else a ValueError saying so."""
    raw = str(text).strip().replace("_", "")
    if not raw.isdigit():
        raise ValueError(f"seed = {text!r} is not a whole number ≥ 0 (valid range 0 … 2^63 − 1)")
    seed = int(raw)
    if seed > MAX_SEED:
        raise ValueError(f"seed = {seed} is outside the valid range 0 … 2^63 − 1")
    return seed


class SeedField:
    """A text field for the seed of a panel's simulations (the same seed, the same curves).

    ``panel`` must have a ``seed`` attribute and an ``update()`` method.
    """

    def __init__(self, panel):
        self.panel = panel
        self.text = W.Text(value=str(panel.seed), description="seed", continuous_update=False,
                           tooltip="another seed gives other random draws; the same seed, the same curves",
                           style={"description_width": "105px"}, layout=W.Layout(width="260px"))
        self.message = W.HTML()
        self.text.observe(self._changed, names="value")
        self.widget = W.HBox([self.text, self.message], layout=W.Layout(align_items="center"))

    def _changed(self, change) -> None:
        try:
            seed = parse_seed(change["new"])
        except ValueError as exc:
            self.message.value = (f"<span style='color:#D55E00'>{html.escape(str(exc))}; "
                                  f"the curves still use seed {self.panel.seed}</span>")
            return
        self.message.value = ""
        if seed != self.panel.seed:
            self.panel.seed = seed
            self.panel.update()


def with_seed(panel, controls) -> W.VBox:
    """The panel's controls with its seed field under them (one field per panel)."""
    field = panel.__dict__.get("seed_field")
    if field is None:
        field = panel.__dict__["seed_field"] = SeedField(panel)
    return W.VBox([controls, field.widget])


class Presets:
    """A dropdown of named presets for some sliders: choosing one sets them all, with a single
    rerun; moving one of those sliders by hand shows "custom".

    While the preset writes the sliders, ``holding`` is true: the panel's own observers skip
    their rerun (``if presets.holding: return``).
    """

    def __init__(self, dropdown, sliders, values: dict, rerun):
        self.dropdown, self.sliders, self.values, self.rerun = dropdown, list(sliders), values, rerun
        self.holding = False
        dropdown.observe(self._chosen, names="value")
        for s in self.sliders:
            s.observe(self._moved, names="value")

    def _moved(self, change) -> None:
        if not self.holding:
            self.holding = True
            self.dropdown.value = "custom"
            self.holding = False

    def _chosen(self, change) -> None:
        if self.holding or change["new"] == "custom":
            return
        self.holding = True
        try:
            for s, v in zip(self.sliders, self.values[change["new"]]):
                s.value = v
        finally:
            self.holding = False
        self.rerun()
