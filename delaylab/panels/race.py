""""Your policy" in a live panel: a student's policy raced next to the paper's, on the same draws.

One mechanism for every live panel. A panel (:class:`~delaylab.panels.base.Panel`) lists
:data:`YOUR_POLICY` among the curves of its ``regret`` plot, and says in ``race_setting()``
what it simulates (the setting, horizon, runs and checkpoints of its own runs, plus the context a
student's policy may need: the delay law, the window, η, …). Then::

    panel.race(policy, label="your policy")   # a Policy, or a callable(**context) -> Policy
    panel.race(None)                          # remove the curve

adds a curve in its own colour, simulated with the panel's seed, setting, horizon and runs (so on the
same random draws as the paper's algorithms: a run's draws depend only on the seed and its index),
and reruns it at every update of the panel (every slider move). If the student's code fails,
the panel's status says so in a sentence and the curve is hidden; a panel never shows a traceback.

The student's curve is part of the panel's own update, not a second one after it: the panel
(its base class) calls :meth:`Race.compute` after its own simulations (so within the same time
budget, and as a first answer of the same runs when theirs is one), then draws the returned
:class:`RaceDraw` in the same ``batch_update`` as the paper's curves and puts its sentence in the
same status line. A slider move thus shows every curve and the status line of the new value at once.

``delaylab.exercises.race(panel, eid)`` builds the policy from an *implement* exercise's function.
"""

from __future__ import annotations

import html
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

from ..engine import simulate
from .budget import Cancelled, log
from .results import ResultCache, together

#: The curve of the student's policy (its colour is in :mod:`delaylab.viz.style`).
YOUR_POLICY = "your policy"
_ERROR = "#8A3B00"
_OK = "#332288"


@dataclass
class RaceSetting:
    """What a panel simulates, for the student's policy to run on the same draws.

    Attributes
    ----------
    setting : the environment of the panel's runs (as given to :func:`delaylab.simulate`).
    horizon, runs, seed, checkpoints : as in the panel's own ``simulate`` call.
    context : dict
        What a student's policy may need to be built (``delay``, ``window``, ``eta``, …): the
        callable given to ``panel.race`` receives the entries its signature names.
    key : hashable or None
        Everything the result depends on (None: always rerun).
    """

    setting: Any
    horizon: int
    runs: int
    seed: int
    checkpoints: Any = 200
    context: dict = field(default_factory=dict)
    key: Any = None


def build(policy, context: dict):
    """The policy for one simulation: ``policy`` itself, or ``policy(**context)`` restricted to
    the names its signature accepts (all of them if it takes ``**kwargs``)."""
    if not callable(policy) or hasattr(policy, "choose"):
        return policy
    try:
        params = inspect.signature(policy).parameters.values()
    except (TypeError, ValueError):
        return policy(**context)
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return policy(**context)
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return policy(**{k: v for k, v in context.items() if k in names})


def describe_error(exc: BaseException) -> str:
    """A student's failure as one sentence (no traceback)."""
    from ..exercises.guard import NotWritten

    if isinstance(exc, NotWritten):
        return "your function still returns `...`: write its body, run its cell, then run the race cell again"
    text = str(exc).rstrip(".")
    if type(exc).__name__ == "StudentCodeError":
        return text
    return f"your policy raised {type(exc).__name__}: {text}"


@dataclass
class RaceDraw:
    """The student's curve of one update: drawn with the paper's (:meth:`draw`, inside the regret
    plot's ``updating()``), and its sentence for the status line (:attr:`line`)."""

    result: Any = None  # the Result (None: no curve)
    message: str = ""  # the sentence (empty: nothing raced)
    label: str = YOUR_POLICY

    @property
    def line(self) -> str:
        """HTML to end the panel's status line with (a line of its own), or ""."""
        if not self.message:
            return ""
        colour = _OK if self.result is not None else _ERROR
        return f"<br><span style='color:{colour}'>{html.escape(self.message)}</span>"

    def draw(self, plot) -> None:
        """Show or hide the curve (call inside ``plot.updating()``, after the paper's curves)."""
        if self.result is None:
            plot.hide(YOUR_POLICY)
            return
        res = self.result
        lo, hi = res.band(YOUR_POLICY)
        plot.set(YOUR_POLICY, res.times, res.mean(YOUR_POLICY), lo, hi)
        trace = plot.line(YOUR_POLICY)
        trace.name = self.label
        trace.line.width = 3.5
        trace.mode = "lines+markers"
        trace.marker = dict(symbol="diamond", size=7, maxdisplayed=12)


class Race:
    """What a panel races: the student's policy (or None), its label, its last result and sentence.

    Every panel holds one (``panel.raced``, :class:`~delaylab.panels.base.Panel`); its
    :meth:`compute` is called in each of the panel's updates, after the paper's simulations.
    """

    def __init__(self):
        self.policy = None  # a Policy, a callable(**context) -> Policy, or None (nothing raced)
        self.label = YOUR_POLICY
        self.message = ""  # the sentence of the last update ("" when nothing is raced)
        self.result = None  # the Result of the last update (None: nothing drawn)
        self.cache = ResultCache(8)
        self.listeners: list[Callable[[], None]] = []  # told after each drawing of the raced policy

    def set(self, policy: Callable | Any | None, label: str = YOUR_POLICY) -> None:
        """Race ``policy`` from the next update on (None: nothing), drawn as ``label``; the
        listeners of the previous policy are dropped."""
        if not isinstance(label, str) or not label.strip():
            raise ValueError(f"label must be a non-empty string; got {label!r}")
        self.policy, self.label = policy, label.strip()
        self.cache = ResultCache(8)
        self.listeners = []

    def listen(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` after each update of the panel has drawn the raced policy (a slider
        move, or a stage of the background computation, then from its thread): e.g. a verdict
        that compares the raced policy's final regret with a curve of the paper's."""
        self.listeners.append(listener)

    def drawn(self) -> None:
        """The panel has drawn an update: tell the listeners (a failing one is logged, not raised)."""
        for listener in list(self.listeners):
            try:
                listener()
            except Exception:  # noqa: BLE001 - a listener never breaks the panel's update
                log.exception("a listener of the raced policy failed")

    def compute(self, race_setting: Callable[[], RaceSetting], run: Callable | None = None,
                shown: Callable | None = None) -> RaceDraw:
        """Simulate the raced policy on what ``race_setting()`` says the panel runs, with ``run``
        (arguments of :func:`delaylab.simulate`; a panel passes its time budget's, so that the
        race is a first answer like the paper's curves, refined with them). ``shown()``: what the
        paper's curves show (the budget's ``partial``); a result kept from an earlier move is cut
        to it (:func:`.results.together`)."""
        run = simulate if run is None else run
        self.result = None
        if self.policy is None:
            self.message = ""
            return RaceDraw()
        try:
            rs = race_setting()
            res = self.cache.get(rs.key) if rs.key is not None else None
            if res is None:
                res = run(rs.setting, {YOUR_POLICY: build(self.policy, rs.context)}, rs.horizon,
                          rs.runs, rs.seed, checkpoints=rs.checkpoints)
                if rs.key is not None and "first_answer" not in res.notes:  # a first answer is not kept
                    self.cache[rs.key] = res
            res = together({YOUR_POLICY: res}, shown() if shown is not None else None)[YOUR_POLICY]
        except Exception as exc:  # the student's code: a sentence in the status, never a traceback
            if isinstance(exc, Cancelled):  # a newer move: not the student's doing
                raise
            self.message = f"{self.label} is not drawn: {describe_error(exc)}."
            return RaceDraw(None, self.message, self.label)
        self.result = res
        final = res.regret[YOUR_POLICY][:, -1]
        T, R = res.notes.get("first_answer", res.notes.get("cut", (rs.horizon, rs.runs)))
        runs = (f"the first {R:,} of {rs.runs:,} runs so far" if R < rs.runs else
                "the one run" if R == 1 else f"all {R:,} runs")
        steps = f"T = {T:,}" + (f" (of {rs.horizon:,})" if T < rs.horizon else "")
        self.message = (f"{self.label}: mean regret {final.mean():,.1f} at {steps}, over {runs}, "
                        f"on the same random draws as the other curves")
        return RaceDraw(res, self.message, self.label)
