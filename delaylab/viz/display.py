"""What a notebook shows for delaylab's objects that are built around one widget."""

from __future__ import annotations

import ipywidgets as W


class Displayable:
    """Shown in a notebook as its ``widget``: a live panel, a figure reproduction, a save button,
    an exercise's check, prediction, explanation or race. Subclasses set ``self.widget``."""

    widget: W.Widget

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
