""""Your policy" in a live panel: a student's policy raced next to the paper's, on the same draws.

One mechanism for every live panel. A panel class derives from :class:`Racing`, lists
:data:`YOUR_POLICY` among the curves of its ``regret`` plot, and says in :meth:`Racing.race_setting`
what it simulates (the setting, horizon, runs and checkpoints of its own runs, plus the context a
student's policy may need: the delay law, the window, η, …). Then::

    panel.race(policy, label="your policy")   # a Policy, or a callable(**context) -> Policy
    panel.race(None)                          # remove the curve

adds a curve in its own colour, simulated with the panel's seed, setting, horizon and runs (so on the
same random draws as the paper's algorithms: a run's draws depend only on the seed and its index),
and reruns it after every update of the panel (every slider move). If the student's code fails,
the panel's status says so in a sentence and the curve is hidden; a panel never shows a traceback.

``delaylab.exercises.race(panel, eid)`` builds the policy from an *implement* exercise's function.
"""

from __future__ import annotations

import functools
import html
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

from ..engine import simulate
from .budget import budgeted
from .results import ResultCache

#: The curve of the student's policy (its colour is in :mod:`delaylab.viz.style`).
YOUR_POLICY = "your policy"
_ERROR = "#8A3B00"
_MARK = "<br><!-- your policy -->"  # where the race's sentence starts in a panel's status line


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
    from ..exercises._core import _NotAnswered

    if isinstance(exc, _NotAnswered):
        return "your function still returns `...`: write its body, run its cell, then run the race cell again"
    text = str(exc).rstrip(".")
    if type(exc).__name__ == "StudentCodeError":
        return text
    return f"your policy raised {type(exc).__name__}: {text}"


class Racing:
    """Mixin of the live panels: ``panel.race(policy)`` draws "your policy" next to the paper's.

    Subclasses define :meth:`race_setting` and have a ``regret`` CurvePlot with a
    :data:`YOUR_POLICY` slot and a ``status`` HTML widget. Their ``update()`` is wrapped (once,
    when the class is defined) so that the race follows every update without any line in it.
    """

    race_policy = None
    race_label = YOUR_POLICY
    race_message = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        outer = cls.__dict__.get("update")
        if outer is None or getattr(outer, "_races", False):
            return
        # a budgeted update (panels/budget.py) is extended inside its budget: the race's simulation
        # then gets a first answer and a background refinement like the paper's curves
        inner, ignore = getattr(outer, "budgeted", (outer, None))

        @functools.wraps(inner)
        def update(self, *args, **kw):
            out = inner(self, *args, **kw)
            self.race_update()
            return out

        update._races = True
        cls.update = update if ignore is None else budgeted(update, ignore=ignore)
        cls.update._races = True

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
        if not self.__dict__.get("_race_hooked"):
            # the curve and the status sentence survive any redraw of the panel (e.g. a refinement
            # drawn later by the panel's own update): the plot leaves the curve alone, and the
            # status line gets the sentence back whenever it is rewritten
            self.__dict__["_race_hooked"] = True
            self.regret.pinned = frozenset({YOUR_POLICY})
            status = getattr(self, "status", None)
            if status is not None:
                status.observe(self._race_keep_status, names="value")
        self.update()
        return self.race_message

    @property
    def race_result(self):
        """The last simulation of the raced policy (a Result), or None."""
        return self.__dict__.get("_race_last")

    # ------------------------------------------------------------------ after every update
    def race_update(self) -> None:
        plot = self.regret
        self.__dict__["_race_last"] = None
        if self.race_policy is None:
            self.race_message = ""
            self._race_status("", "")
            with plot.updating():
                plot.hide(YOUR_POLICY)
            return
        cache = self.__dict__.setdefault("_race_cache", ResultCache(8))
        try:
            rs = self.race_setting()
            res = cache.get(rs.key) if rs.key is not None else None
            if res is None:
                budget = self.__dict__.get("budget")
                run = simulate if budget is None else budget.simulate  # within the panel's time budget
                res = run(rs.setting, {YOUR_POLICY: build(self.race_policy, rs.context)}, rs.horizon,
                          rs.runs, rs.seed, checkpoints=rs.checkpoints)
                if rs.key is not None and "first_answer" not in res.notes:  # a first answer is not kept
                    cache[rs.key] = res
        except Exception as exc:  # the student's code: a sentence in the status, never a traceback
            self.race_message = f"{self.race_label} is not drawn: {describe_error(exc)}."
            with plot.updating():
                plot.hide(YOUR_POLICY)
            self._race_status(self.race_message, _ERROR)
            return
        self.__dict__["_race_last"] = res
        lo, hi = res.band(YOUR_POLICY)
        slot = plot._slot[(0, YOUR_POLICY)][1]
        with plot.updating():
            plot.set(YOUR_POLICY, res.times, res.mean(YOUR_POLICY), lo, hi)
            trace = plot.fig.data[slot]
            trace.name = self.race_label
            trace.line.width = 3.5
            trace.mode = "lines+markers"
            trace.marker = dict(symbol="diamond", size=7, maxdisplayed=12)
        final = res.regret[YOUR_POLICY][:, -1]
        T, R = res.notes.get("first_answer", (rs.horizon, rs.runs))
        self.race_message = (f"{self.race_label}: mean regret {final.mean():.1f} at T = {T} "
                             f"({R} runs, same draws as the other curves)")
        self._race_status(self.race_message, "#332288")

    def _race_status(self, sentence: str, colour: str) -> None:
        self.__dict__["_race_line"] = (f"{_MARK}<span style='color:{colour}'>{html.escape(sentence)}</span>"
                                       if sentence else "")
        status = getattr(self, "status", None)
        if status is not None:
            status.value = (status.value or "").split(_MARK)[0] + self.__dict__["_race_line"]

    def _race_keep_status(self, change) -> None:
        line = self.__dict__.get("_race_line", "")
        if line and _MARK not in (change["new"] or ""):
            self.status.value = (change["new"] or "") + line

