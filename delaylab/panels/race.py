""""Your policy" in a live panel: a student's policy raced next to the paper's, on the same draws.

One mechanism for every live panel. A panel class derives from :class:`Racing`, lists
:data:`YOUR_POLICY` among the curves of its ``regret`` plot, and says in :meth:`Racing.race_setting`
what it simulates (the setting, horizon, runs and checkpoints of its own runs, plus the context a
student's policy may need: the delay law, the window, η, …). Then::

    panel.race(policy, label="your policy")   # a Policy, or a callable(**context) -> Policy
    panel.race(None)                          # remove the curve

adds a curve in its own colour, simulated with the panel's seed, setting, horizon and runs (so on the
same random draws as the paper's algorithms: a run's draws depend only on the seed and its index),
and reruns it at every update of the panel (every slider move). If the student's code fails,
the panel's status says so in a sentence and the curve is hidden; a panel never shows a traceback.

The student's curve is part of the panel's own update, not a second one after it: the panel's
``update`` calls :meth:`Racing.race_compute` after its own simulations (so within the same time
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
from .budget import Cancelled
from .results import ResultCache

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
        callable given to :meth:`Racing.race` receives the entries its signature names.
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
        trace = plot.fig.data[plot._slot[(0, YOUR_POLICY)][1]]
        trace.name = self.label
        trace.line.width = 3.5
        trace.mode = "lines+markers"
        trace.marker = dict(symbol="diamond", size=7, maxdisplayed=12)


class Racing:
    """Mixin of the live panels: ``panel.race(policy)`` draws "your policy" next to the paper's.

    Subclasses define :meth:`race_setting`, have a ``regret`` CurvePlot with a :data:`YOUR_POLICY`
    slot and a ``status`` HTML widget, and in their ``update`` call :meth:`race_compute` after
    their own simulations, then ``race.draw(self.regret)`` with their curves and end their status
    line with ``race.line``.
    """

    race_policy = None
    race_label = YOUR_POLICY
    race_message = ""

    # ------------------------------------------------------------------ to define per panel
    def race_setting(self) -> RaceSetting:  # pragma: no cover - every panel defines it
        raise NotImplementedError

    # ------------------------------------------------------------------ API
    def race(self, policy: Callable | Any | None, label: str = YOUR_POLICY):
        """Race ``policy`` in this panel (None removes it); returns the panel's status sentence."""
        if not isinstance(label, str) or not label.strip():
            raise ValueError(f"label must be a non-empty string; got {label!r}")
        self.race_policy, self.race_label = policy, label.strip()
        self.__dict__["_race_cache"] = ResultCache(8)
        self.update()
        return self.race_message

    @property
    def race_result(self):
        """The last simulation of the raced policy (a Result), or None."""
        return self.__dict__.get("_race_last")

    # ------------------------------------------------------------------ in every update
    def race_compute(self) -> RaceDraw:
        """Simulate the raced policy for the panel's current settings (through the panel's time
        budget when it has one: a first answer like the paper's curves, refined with them)."""
        self.__dict__["_race_last"] = None
        # the panel's show_curves leaves the curve to RaceDraw.draw: within one batch_update, a trace
        # hidden then shown again would stay hidden (plotly compares with the value before the batch)
        self.regret.pinned = frozenset({YOUR_POLICY})
        if self.race_policy is None:
            self.race_message = ""
            return RaceDraw()
        cache = self.__dict__.setdefault("_race_cache", ResultCache(8))
        try:
            rs = self.race_setting()
            res = cache.get(rs.key) if rs.key is not None else None
            if res is None:
                budget = self.__dict__.get("budget")
                run = simulate if budget is None else budget.simulate
                res = run(rs.setting, {YOUR_POLICY: build(self.race_policy, rs.context)}, rs.horizon,
                          rs.runs, rs.seed, checkpoints=rs.checkpoints)
                if rs.key is not None and "first_answer" not in res.notes:  # a first answer is not kept
                    cache[rs.key] = res
        except Exception as exc:  # the student's code: a sentence in the status, never a traceback
            if isinstance(exc, Cancelled):  # a newer move: not the student's doing
                raise
            self.race_message = f"{self.race_label} is not drawn: {describe_error(exc)}."
            return RaceDraw(None, self.race_message, self.race_label)
        self.__dict__["_race_last"] = res
        final = res.regret[YOUR_POLICY][:, -1]
        T, R = res.notes.get("first_answer", (rs.horizon, rs.runs))
        runs = (f"the first {R:,} of {rs.runs:,} runs so far" if R < rs.runs else
                "the one run" if R == 1 else f"all {R:,} runs")
        steps = f"T = {T:,}" + (f" (of {rs.horizon:,})" if T < rs.horizon else "")
        self.race_message = (f"{self.race_label}: mean regret {final.mean():,.1f} at {steps}, over {runs}, "
                             f"on the same random draws as the other curves")
        return RaceDraw(res, self.race_message, self.race_label)
