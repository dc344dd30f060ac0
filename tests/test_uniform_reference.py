"""Every regret figure shows uniform random play, and the reference curve behaves as promised.

A student sees at once when an algorithm does worse than not learning at all: every subplot of
the workbook whose y axis is a regret (a paper's reproduction, a live panel) draws "uniform random
play" (:data:`delaylab.UNIFORM`) on the same draws, dashed grey, in its legend and in the
figure's text alternative; where it would squash the other curves it runs off the top of the
axis with its end value in its legend entry (:class:`delaylab.viz.plots.CurvePlot`).
"""

from __future__ import annotations

import numpy as np
import pytest

import delaylab as dl
from delaylab.viz.describe import describe
from delaylab.viz.plots import REFERENCE_ROOM, CurvePlot
from delaylab.viz.style import style
from test_figures_legible import PANELS, PAPER_FIGURES, _fig, _panel_figures, tiny  # noqa: F401,F811  (tiny: a fixture)


def regret_subplots_without_uniform(fig) -> list[str]:
    """The subplots (x axis, y axis) of ``fig`` whose y axis title says "regret" and that draw no
    visible uniform random play."""
    lay = fig.layout
    missing = []
    used = {(t.xaxis or "x", t.yaxis or "y") for t in fig.data if t.visible is not False}
    for xa, ya in sorted(used):
        axis = lay["yaxis" + ya[1:]]
        title = (axis.title.text or "") if axis is not None and axis.title is not None else ""
        if "regret" not in title.lower():
            continue
        names = [t.name or "" for t in fig.data
                 if (t.xaxis or "x", t.yaxis or "y") == (xa, ya) and t.visible is not False and t.x is not None
                 and len(t.x)]
        if not any(n.startswith(dl.UNIFORM) for n in names):
            missing.append(f"{xa}/{ya} ({title})")
    return missing


@pytest.mark.parametrize("name", list(PAPER_FIGURES))
def test_paper_regret_figures_show_uniform_play(name, tiny):  # noqa: F811
    fig = _fig(PAPER_FIGURES[name]())
    assert not regret_subplots_without_uniform(fig), f"{name}: no {dl.UNIFORM} in {regret_subplots_without_uniform(fig)}"


@pytest.mark.parametrize("name", list(PANELS))
def test_panel_regret_figures_show_uniform_play(name, tiny):  # noqa: F811
    for i, fig in enumerate(_panel_figures(PANELS[name]())):
        missing = regret_subplots_without_uniform(fig)
        assert not missing, f"{name}, figure {i}: no {dl.UNIFORM} in {missing}"


def _result(T=400, runs=8):
    s = dl.Conversions(means=[0.9, 0.2], delays=dl.Geometric(mean=5))
    return dl.simulate(s, dl.with_uniform({"KL-UCB": dl.KLUCB(), "UCB1": dl.UCB1()}), T, runs, 0, checkpoints=20)


def test_with_uniform_adds_the_reference_on_the_same_draws():
    pols = {"UCB1": dl.UCB1()}
    both = dl.with_uniform(pols)
    assert list(both) == ["UCB1", dl.UNIFORM] and list(pols) == ["UCB1"] and dl.with_uniform(both).keys() == both.keys()
    s = dl.Conversions(means=[0.6, 0.3, 0.3], delays=dl.Fixed(0))
    res = dl.simulate(s, both, 3000, 40, 1)
    # uniform play's expected regret is t · mean gap = 3000 · 0.2: within 4 standard errors
    final = res.final(dl.UNIFORM)
    assert abs(final.mean() - 600) < 4 * final.std(ddof=1) / np.sqrt(final.size)
    assert np.array_equal(res.final("UCB1"), dl.simulate(s, pols, 3000, 40, 1).final("UCB1"))  # unchanged by it


def test_reference_is_dashed_grey_and_runs_off_the_top_only_when_it_squashes():
    assert style(dl.UNIFORM) == {"color": "#636363", "dash": "dash"}
    res = _result()
    plot = CurvePlot(["KL-UCB", "UCB1", dl.UNIFORM])
    with plot.updating():
        plot.show_result(res)
    ref = plot.line(dl.UNIFORM)
    top = max(res.band(n)[1].max() for n in ("KL-UCB", "UCB1"))
    end = res.mean(dl.UNIFORM)[-1]
    assert end > REFERENCE_ROOM * top  # this instance: uniform play far above both
    assert plot.fig.layout.yaxis.range is not None and plot.fig.layout.yaxis.range[1] < end
    assert ref.name.startswith(dl.UNIFORM) and f"{end:,.3g}" in ref.name and "above the axis" in ref.name
    text = describe(plot.fig)
    assert "Every other curve ends below uniform random play" in text
    with plot.updating():  # without the others, the axis fits it again and its name is plain
        plot.show_result(res, names=[dl.UNIFORM])
    assert plot.fig.layout.yaxis.range is None and ref.name == dl.UNIFORM


def test_describe_names_the_curves_above_uniform_play():
    res = _result()
    plot = CurvePlot(["KL-UCB", dl.UNIFORM])
    fake = {"KL-UCB": (res.mean(dl.UNIFORM) * 1.1, "worse"), dl.UNIFORM: (res.mean(dl.UNIFORM), "ref")}
    with plot.updating():
        for n, (y, _) in fake.items():
            plot.set(n, res.times, y)
    assert "worse than not learning at all: KL-UCB" in describe(plot.fig)
