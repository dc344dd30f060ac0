"""Moving a live panel's controls as a student would, and noticing who moves them back.

A notebook's check cells assert its claims on their own fixed parameters: they must pass
whatever the student did with the panels above them, and they must never change a control
(a check that moves the student's slider back hides what the student was looking at). The
solved copies that CI runs (:mod:`delaylab.exercises.solve`) test both: after every cell, each
live panel met for the first time has its controls moved away from their defaults
(:func:`move`), and each control's value is then watched; the copy's last cell fails if a later
cell changed one (:func:`untouched`).
"""

from __future__ import annotations

import math

import ipywidgets as W

from .base import Panel
from .fields import SELECTIONS, controls

#: where along its range each slider is moved (a fraction of the way from min to max)
ALONG = 0.7


def moved_value(widget):
    """A valid value of ``widget`` other than its current one, as a student might choose it
    (``ALONG`` of a slider's range, another option of a selection, the other state of a check
    box), or None for controls left alone (buttons, text fields)."""
    if isinstance(widget, SELECTIONS):
        options = list(widget.options)
        if len(options) < 2 or widget.index is None:
            return None
        i = (widget.index + max(1, round(ALONG * (len(options) - 1)))) % len(options)
        opt = options[i]
        return opt[1] if isinstance(opt, tuple) and len(opt) == 2 else opt
    if isinstance(widget, (W.Checkbox, W.ToggleButton)):
        return not widget.value
    if isinstance(widget, W.FloatLogSlider):
        exp = widget.min + ALONG * (widget.max - widget.min)
        steps = round((exp - widget.min) / widget.step) if widget.step else 0
        value = widget.base ** (widget.min + steps * widget.step)
        return None if math.isclose(value, widget.value, rel_tol=1e-9) else value
    if isinstance(widget, (W.IntSlider, W.FloatSlider)):
        span = widget.max - widget.min
        steps = round(ALONG * span / widget.step) if widget.step else 0
        value = widget.min + steps * widget.step
        value = int(value) if isinstance(widget, W.IntSlider) else float(value)
        return None if value == widget.value else value
    return None


def move(panel: Panel) -> dict:
    """Move every control of ``panel`` that has a value (:func:`moved_value`), one after the
    other, as a student would; returns {control: its value once all are moved} (a move may
    change another control, e.g. a preset that becomes "custom")."""
    moved = []
    for w in controls(panel):
        value = moved_value(w)
        if value is None:
            continue
        w.value = value
        moved.append(w)
    return {w: w.value for w in moved}


class Watch:
    """Every live panel of a namespace, moved once when first seen, then watched.

    ``after_cell(namespace, cell)`` (an IPython post_run_cell hook calls it) moves the panels
    it has not seen yet and records which cell changed a control it moved; :meth:`untouched`
    raises an AssertionError naming them."""

    def __init__(self):
        self.seen: set[int] = set()
        self.values: dict = {}  # control -> (panel name, control description, value given)
        self.changed: list[str] = []

    def after_cell(self, namespace: dict, cell: str = "") -> None:
        for control, (name, what, value) in self.values.items():
            if control.value != value and not any(what in c and name in c for c in self.changed):
                self.changed.append(f"{name}.{what}: {value!r} → {control.value!r}, by the cell {cell[:120]!r}")
        for name, obj in list(namespace.items()):
            if isinstance(obj, Panel) and id(obj) not in self.seen and not name.startswith("_"):
                self.seen.add(id(obj))
                if obj.budget is not None:
                    obj.budget.wait()
                for control, value in move(obj).items():
                    what = getattr(control, "description", "") or type(control).__name__
                    self.values[control] = (name, what, value)

    def untouched(self) -> None:
        if self.changed:
            raise AssertionError("a cell changed a control of a live panel (check cells must never move the "
                                 "student's controls):\n" + "\n".join(self.changed))
