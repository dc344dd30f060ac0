"""A figure reproduced at a modest run count, with a button that reruns it at the paper's scale."""

from __future__ import annotations

import html
import time

import ipywidgets as W

from ..sweep import default_cache
from ..viz.save import SaveButton
from .base import Displayable


class FigureReproduction(Displayable):
    """A paper figure: computed at ``runs`` runs on creation; a button reruns it with
    ``paper_runs`` while a progress bar fills, then redraws the same figure in place.

    Parameters
    ----------
    compute : callable (runs, progress) -> results
    draw : callable (results, plot) -> None
        Draws ``results`` into ``plot`` (a :class:`~delaylab.viz.plots.CurvePlot`).
    plot : CurvePlot
    runs, paper_runs : int
    caption : str
        HTML shown under the figure (parameters, what to look for).
    name : str
        File name of the figure when saved as HTML (e.g. ``"vernade2017-figure2"``).
    summary : callable (results) -> str, optional
        The numbers the figure shows, as a sentence (plain text), recomputed after every run — at
        the default run count and at the paper's — so that the text under a figure always states
        what this figure computed.
    full_scale : str, optional
        How the button and the status name the larger run count when it is not the paper's (its
        number was lost, and we chose it): e.g. "our full scale". None (the default): "the paper's".
    """

    #: True: every figure made afterwards computes at ``paper_runs`` on creation (its button's
    #: run) instead of ``runs``. The course site's kernel sets it (:func:`delaylab.site.kernel.install`):
    #: a static page shows the paper's figure.
    start_at_paper_scale: bool = False

    def __init__(self, compute, draw, plot, runs, paper_runs, caption="", name="figure", summary=None,
                 full_scale=None):
        self.compute, self.draw, self.plot = compute, draw, plot
        self.paper_runs = paper_runs
        self.full_scale = full_scale
        self.button = W.Button(description=(f"Run with the paper's {paper_runs} runs" if full_scale is None
                                            else f"Run at {full_scale}: {paper_runs} runs"),
                               button_style="primary", icon="play",
                               layout=W.Layout(width="auto"))
        self.progress = W.FloatProgress(value=0.0, min=0.0, max=1.0, description="progress",
                                        layout=W.Layout(width="40%", visibility="hidden"))
        self.status = W.HTML()
        self.caption = W.HTML(caption)
        self.summarise = summary
        self.summary = W.HTML()
        self.save = SaveButton(plot.fig, name)
        self.button.on_click(lambda _: self.run(self.paper_runs))
        self.results = None
        self.run(paper_runs if self.start_at_paper_scale else runs)

    @property
    def fig(self):
        return self.plot.fig

    def run(self, runs: int) -> None:
        self.button.disabled = True
        self.progress.value = 0.0
        self.progress.layout.visibility = "visible"
        self.status.value = f"<i>running {runs} runs…</i>"
        started = time.perf_counter()

        def report(frac):
            self.progress.value = frac

        try:
            if runs >= self.paper_runs:  # the paper's scale: sweeps read and fill the on-disk cache
                with default_cache(True):
                    self.results = self.compute(runs, report)
            else:
                self.results = self.compute(runs, report)
            with self.plot.updating():
                self.draw(self.results, self.plot)
            self.runs = runs
            self.status.value = (f"{runs} runs ({self.full_scale or 'the paper'}: {self.paper_runs}) · "
                                 f"computed in {time.perf_counter() - started:.1f} s")
            if self.summarise is not None:
                self.summary.value = (f"<div style='margin:4px 0;font-size:14px'><b>What this figure computed "
                                      f"({runs} runs):</b> {html.escape(self.summarise(self.results))}</div>")
        finally:
            self.button.disabled = runs >= self.paper_runs
            self.progress.layout.visibility = "hidden"

    @property
    def widget(self):
        return W.VBox([self.plot.fig, W.HBox([self.button, self.progress]), self.status, self.summary,
                       self.caption, self.save.widget])
