"""Typed fields of the live panels: what a student types is checked before anything runs.

A wrong value leaves the panel as it was and shows why, next to the field, in the page (never
a traceback); a valid value reruns the panel.
"""

from __future__ import annotations

import html
import math
import numbers

import ipywidgets as W

MAX_SEED = 2**63 - 1
#: longest text a page may send to a text field
MAX_TEXT = 200
#: ipywidgets' single-selection controls (a value chosen by its ``index`` among ``options``):
#: the public classes of its private base ``_Selection`` (tests/test_fields.py checks the list)
SELECTIONS = (W.Dropdown, W.RadioButtons, W.Select, W.SelectionSlider, W.ToggleButtons)


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
        lock_control(self.text)
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


# ----------------------------------------------------------------------------- limits the page cannot move
def controls(root):
    """Every control under ``root`` (a widget, or a panel), depth first: widgets whose value a
    visitor can change (sliders, check boxes, selections, text fields, buttons)."""
    seen = set()

    def walk(obj, depth=0):
        if id(obj) in seen or depth > 3:
            return
        seen.add(id(obj))
        if isinstance(obj, W.Widget):
            if _is_control(obj):
                yield obj
            for child in getattr(obj, "children", ()):
                yield from walk(child, depth)
        elif isinstance(obj, (list, tuple)):
            for v in obj:
                yield from walk(v, depth + 1)
        elif isinstance(obj, dict):
            for v in obj.values():
                yield from walk(v, depth + 1)
        elif hasattr(obj, "__dict__") and depth <= 1:  # the panel, and its helpers (seed field, …)
            for v in vars(obj).values():
                yield from walk(v, depth + 1)

    yield from walk(root)


def _is_control(w) -> bool:
    return isinstance(w, (W.Button, W.Text, W.Textarea, W.Checkbox, W.ToggleButton, *SELECTIONS,
                          W.IntSlider, W.FloatSlider, W.FloatLogSlider, W.BoundedIntText, W.BoundedFloatText))


def _number(v):
    """A finite real number (not a bool), else None."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def clean_state(widget, state: dict) -> dict:
    """What a control accepts from the page: only its value (a selection: its index), valid and
    within the declared limits; a number is snapped to the slider's step grid. Limits (min, max,
    step, options, …) are never taken from the page, and a disabled control takes nothing."""
    if getattr(widget, "disabled", False):
        return {}
    if isinstance(widget, SELECTIONS):
        i = state.get("index")
        ok = isinstance(i, numbers.Integral) and not isinstance(i, bool) and 0 <= i < len(widget.options)
        return {"index": int(i)} if ok else {}
    if "value" not in state:
        return {}
    v = state["value"]
    if isinstance(widget, (W.Checkbox, W.ToggleButton)):
        return {"value": v} if isinstance(v, bool) else {}
    if isinstance(widget, (W.Text, W.Textarea)):
        return {"value": v} if isinstance(v, str) and len(v) <= MAX_TEXT else {}
    x = _number(v)
    if x is None:
        return {}
    if isinstance(widget, W.FloatLogSlider):
        e = math.log(x, widget.base) if x > 0 else widget.min
        return {"value": float(widget.base ** _on_grid(e, widget.min, widget.max, widget.step))}
    x = _on_grid(x, widget.min, widget.max, getattr(widget, "step", None))
    if isinstance(widget, (W.IntSlider, W.BoundedIntText)):
        return {"value": int(round(x))}
    return {"value": round(x, 12)}


def _on_grid(x: float, lo: float, hi: float, step) -> float:
    """x within [lo, hi], on the grid lo + k·step (or at an end of the range)."""
    if x <= lo or x >= hi:
        return lo if x <= lo else hi
    if step:
        x = lo + round((x - lo) / step) * step
    return min(max(x, lo), hi)


def lock_control(widget) -> None:
    """Make ``widget`` take from the page only what :func:`clean_state` lets through. Whatever
    else a message sends (a larger ``max``, a value beyond it, a negative or non-numeric value)
    is dropped, and the page is sent the kernel's state back. The kernel's own code still sets
    any trait (``widget.max = …``)."""
    if isinstance(widget.set_state, _CleanSetState):  # locked already
        return
    # ipywidgets calls self.set_state(state) for every page update
    widget.set_state = _CleanSetState(widget, widget.set_state)


class _CleanSetState:
    """A locked control's ``set_state``: passes on what :func:`clean_state` lets through."""

    def __init__(self, widget, original):
        self.widget, self.original = widget, original

    def __call__(self, sync_data):
        widget = self.widget
        state = clean_state(widget, dict(sync_data))
        if state:
            self.original(state)
        revert = [k for k in sync_data if k in widget.keys and (k not in state or state[k] != sync_data[k])]
        if revert and widget.comm is not None:
            widget.send_state(key=revert)  # the page shows the kernel's values again


def lock_panel_controls(panel) -> list:
    """Lock every control of a panel (see :func:`lock_control`); returns them."""
    found = list(controls(panel))
    for w in found:
        lock_control(w)
    return found


def extreme_values(widget) -> list:
    """The extreme values of a control, as the page would send them: a slider's min and max,
    every index of a selection, both states of a check box (others: none)."""
    if isinstance(widget, SELECTIONS):
        return [{"index": i} for i in range(len(widget.options))]
    if isinstance(widget, (W.Checkbox, W.ToggleButton)):
        return [{"value": True}, {"value": False}]
    if isinstance(widget, W.FloatLogSlider):
        return [{"value": widget.base ** widget.min}, {"value": widget.base ** widget.max}]
    if isinstance(widget, (W.IntSlider, W.FloatSlider)):
        return [{"value": widget.min}, {"value": widget.max}]
    return []
