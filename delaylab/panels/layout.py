"""How every live panel is laid out and how its status line reads.

A laptop shows about 700 px of a page at once: the controls and the main (regret) figure must be
seen together, so that moving a slider shows what it does. :func:`panel_layout` puts the
controls beside the main figure on a wide page (JupyterLab with its side bar open, Voila) and
below it on a narrow one (the figure first, so that the curves stay at the top); secondary
figures and tables come below, side by side when there is room. The status line sits under the
main figure, where a student looks after a move.
"""

from __future__ import annotations

import ipywidgets as W

#: the main column grows from this width; beside it the controls column (:data:`CONTROLS_WIDTH`)
MAIN_BASIS = "560px"
CONTROLS_WIDTH = "350px"
#: CSS classes of a panel's parts (the browser tests find them by these)
PANEL, MAIN, CONTROLS = "delaylab-panel", "delaylab-panel-main", "delaylab-panel-controls"


def section(title: str, *children, note: str = "") -> W.VBox:
    """A titled group of controls (a heading, the controls, an optional small note under them)."""
    parts = [W.HTML(f"<b>{title}</b>", layout=W.Layout(margin="6px 0 0 0"))] if title else []
    parts += list(children)
    if note:
        parts.append(W.HTML(f"<div style='color:#555;font-size:12px;line-height:1.35'>{note}</div>"))
    return W.VBox(parts)


def put_legend_below(fig) -> None:
    """Put a figure's legend in rows under its plotting area: beside the controls the main
    column is narrow, and a legend on the right (names up to 40 characters) would take half of it.

    The legend sits at the bottom of the figure (``yref="container"``), and plotly grows the
    bottom margin to hold it under the x axis's ticks and title, however many rows it wraps into.
    (A legend placed at a share of the plotting area's height below it, ``y=-0.2``, met the x-axis
    title once it wrapped into rows that shrank the plotting area: at a phone's width.)"""
    fig.update_layout(legend=dict(orientation="h", x=0, xanchor="left", yref="container", y=0, yanchor="bottom"),
                      margin=dict(r=10))


def panel_layout(main, status, controls, below=(), after_main=(), legend_below=True) -> W.VBox:
    """The panel's widget: ``main`` (the main figure), with ``status`` and ``after_main`` (e.g. the
    save button) under it, ``controls`` (a list of sections) beside it, wrapping below it on a
    narrow page; ``below``: secondary figures or tables, side by side when there is room.
    ``legend_below``: the main figure's legend goes under its plotting area (:func:`put_legend_below`;
    not for a figure whose axes keep one scale, which a shorter plotting area would make narrower)."""
    if legend_below:
        put_legend_below(main)
    column = W.VBox([main, status, *after_main],
                    layout=W.Layout(flex=f"1 1 {MAIN_BASIS}", min_width="0", margin="0 12px 0 0"))
    column.add_class(MAIN)
    side = W.VBox(list(controls), layout=W.Layout(flex=f"0 0 {CONTROLS_WIDTH}", width=CONTROLS_WIDTH))
    side.add_class(CONTROLS)
    top = W.HBox([column, side], layout=W.Layout(flex_flow="row wrap", align_items="flex-start", width="100%"))
    parts = [top]
    if below:
        parts.append(W.HBox([W.Box([b], layout=W.Layout(flex="1 1 440px", min_width="0", margin="0 12px 0 0"))
                             for b in below], layout=W.Layout(flex_flow="row wrap", width="100%")))
    panel = W.VBox(parts, layout=W.Layout(width="100%"))
    panel.add_class(PANEL)
    return panel


def status_line(*facts, race_line: str = "") -> str:
    """The HTML of a status line: the facts (non-empty ones) joined by " · ", then the raced
    policy's sentence on a line of its own."""
    text = " · ".join(f for f in facts if f)
    return f"<div style='color:#555;line-height:1.45'>{text}{race_line}</div>"
