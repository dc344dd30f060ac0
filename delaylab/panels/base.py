"""The contract of a live panel: one base class, :class:`Panel`, and the hooks a panel fills in.

A live panel is a few controls (ipywidgets), a main figure with a status line under it, perhaps
figures or tables below it, and a seed field. Every move of a control reruns what the new values
need and redraws in place, within a time budget (:mod:`.budget`), with a student's policy raced
next to the paper's when one is given (:mod:`.race`). The base class owns all of that:

* ``budget`` (:class:`~.budget.Budget`): every update runs through it, every simulation through
  :meth:`Panel.simulate`; the panels of a kernel share one :attr:`Panel.speed`;
* ``raced`` (:class:`~.race.Race`): ``panel.race(policy)`` draws "your policy" next to the paper's;
* ``seed`` and ``seed_field`` (:class:`~.fields.SeedField`);
* ``status``: the status line, "what the figures show" (:meth:`~.budget.Budget.shown`), then
  :meth:`Panel.notes`, then the raced policy's sentence;
* ``widget``: laid out by :func:`~.layout.panel_layout`; displaying a panel displays it.

A panel writes its controls and figures in ``__init__``, ending with :meth:`Panel.start`, and
fills in the hooks::

    class MyPanel(Panel):
        def __init__(self, horizon=1000, runs=20, seed=0):
            super().__init__(seed)
            self.horizon = W.IntSlider(...)              # its controls, as attributes
            self.runs = W.IntSlider(...)
            self.regret = CurvePlot([..., YOUR_POLICY])  # its main figure
            for w in (self.horizon, self.runs):
                w.observe(lambda _: self.update(), names="value")
            self.start()                                 # last: lock the controls, draw in full

        def compute(self):       # what the controls ask for, simulated through self.simulate
            return self.simulate(setting, policies, self.horizon.value, self.runs.value, self.seed)

        def draw(self, result):  # the paper's curves, in one batch update of the main figure
            self.regret.show_result(result)

        def controls(self):      # the sections of controls beside the main figure
            return [section("Simulation", self.horizon, self.runs)]

        def race_setting(self):  # optional: what "your policy" runs on; without it, no race
            return RaceSetting(setting, self.horizon.value, self.runs.value, self.seed)

and where it needs them: :meth:`Panel.notes` (facts for the status line), :meth:`Panel.draw_below`
and :meth:`Panel.below` (the figures under the main one), :attr:`Panel.redraw_only` (controls
that only redraw: their observers call :meth:`Panel.redraw`), :attr:`Panel.main_figure` and
:meth:`Panel.size` when the main figure is not a ``regret`` CurvePlot or there are no ``horizon``
and ``runs`` sliders. Whatever :meth:`Panel.compute` returns is handed to ``notes``, ``draw`` and
``draw_below``.
"""

from __future__ import annotations

from typing import Any, Callable

import ipywidgets as W

from ..viz.display import Displayable
from .budget import Budget, MachineSpeed
from .fields import SeedField, lock_panel_controls
from .layout import panel_layout, status_line
from .race import YOUR_POLICY, Race, RaceSetting


class Panel(Displayable):
    """A live panel: controls, a main figure and its status line, a time budget, a seed, a race.

    See the module's doc for the hooks a panel fills in. Attributes the base sets: ``seed``,
    ``status`` (an HTML widget), ``save`` (a :class:`~delaylab.viz.save.SaveButton` under the
    main figure, or None), ``raced``, and from :meth:`start` on, ``budget`` and ``seed_field``.
    """

    #: names of controls that only redraw what was computed (e.g. a time slider): their moves
    #: call :meth:`redraw`, and they are not part of what a result depends on
    redraw_only: tuple[str, ...] = ()
    #: whether a seed field goes under the controls
    shows_seed: bool = True
    #: whether the main figure's legend goes under its plotting area (:func:`.layout.panel_layout`)
    legend_below: bool = True
    #: how fast this machine simulates, learnt from every panel of the kernel: a panel's first
    #: move of a policy it never ran is sized with what the others measured
    speed: MachineSpeed = MachineSpeed()

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.status = W.HTML()
        self.save = None
        self.raced = Race()
        self.budget: Budget | None = None
        self.seed_field: SeedField | None = None
        self._drawn: tuple = (None, None)  # (what compute returned, the race's draw): redraw() draws it again

    # ------------------------------------------------------------------ hooks a panel fills in
    def compute(self) -> Any:
        """Simulate what the controls now ask for, through :meth:`simulate` (so within the time
        budget; a panel caches what it may show again), and return what :meth:`notes`,
        :meth:`draw` and :meth:`draw_below` show."""
        raise NotImplementedError(f"{type(self).__name__} must define compute()")

    def notes(self, computed) -> list[str]:
        """Facts for the status line, after what the figures show (empty ones are left out)."""
        return []

    def draw(self, computed) -> None:
        """Draw the main figure. Called inside one batch update of it; the raced policy's curve is
        drawn after, in the same batch, so that one message shows every curve of a move."""
        raise NotImplementedError(f"{type(self).__name__} must define draw()")

    def draw_below(self, computed) -> None:
        """Draw the figures and tables under the main one (after the main figure)."""

    def controls(self) -> list:
        """The sections of controls beside the main figure (:func:`.layout.section`)."""
        raise NotImplementedError(f"{type(self).__name__} must define controls()")

    def below(self) -> list:
        """Figures and tables under the main one, side by side when there is room."""
        return []

    def race_setting(self) -> RaceSetting:
        """What the panel simulates, for a student's policy to race on the same draws (with a
        :data:`~.race.YOUR_POLICY` curve in its ``regret`` plot). A panel without it does not race."""
        raise NotImplementedError(f"{type(self).__name__} does not race policies")

    @property
    def main_figure(self):
        """The main figure (a FigureWidget): the ``regret`` CurvePlot's."""
        return self.regret.fig

    def size(self) -> tuple:
        """(horizon, runs) of the full computation, for the status line's first words ("All 60
        runs, T = 2,500"); () to say nothing there while everything is shown."""
        return (self.horizon.value, self.runs.value)

    # ------------------------------------------------------------------ what the base does
    @property
    def races(self) -> bool:
        """Whether the panel can race a student's policy (it defines :meth:`race_setting`)."""
        return type(self).race_setting is not Panel.race_setting

    def start(self) -> None:
        """The end of a panel's ``__init__``: lock its controls against the page
        (:func:`~.fields.lock_panel_controls`), make its time budget and seed field, and draw it
        at its defaults in full (a first drawing has no time limit)."""
        if self.races:  # the raced curve is drawn and hidden by the race alone (RaceDraw.draw)
            self.regret.pinned = frozenset({YOUR_POLICY})
        skip = {id(getattr(self, name)) for name in self.redraw_only}
        state = [w for w in lock_panel_controls(self) if w.has_trait("value") and id(w) not in skip]
        self.budget = Budget(self, self.refresh, state, speed=self.speed)
        if self.shows_seed:  # (after the budget's controls: the seed is part of its state, not the text typed)
            self.seed_field = SeedField(self)
        self.budget.run(unlimited=True)

    def update(self) -> None:
        """Rerun what the controls now ask for and redraw in place, within the time budget
        (what every control's observer calls)."""
        self._started().run()

    def refresh(self) -> None:
        """One update's work (run by the budget, for a move or for a refinement from its
        background thread): compute, race, then draw the status line and the figures."""
        computed = self.compute()
        race = (self.raced.compute(self.race_setting, self.simulate, lambda: self.budget.partial)
                if self.races else None)
        self._drawn = (computed, race)
        self._draw(computed, race)

    def redraw(self) -> None:
        """Draw the last results again without computing (a control in :attr:`redraw_only`);
        waits while a refinement is drawn from the background thread."""
        with self._started().lock:
            self._draw(*self._drawn)

    def _started(self) -> Budget:
        if self.budget is None:
            raise RuntimeError(f"{type(self).__name__} is not started: its __init__ must end with self.start()")
        return self.budget

    def _draw(self, computed, race) -> None:
        self.status.value = status_line(self.budget.shown(*self.size()), *self.notes(computed),
                                        race_line=race.line if race is not None else "")
        with self.main_figure.batch_update():
            self.draw(computed)
            if race is not None:
                race.draw(self.regret)
        self.draw_below(computed)
        if race is not None:
            self.raced.drawn()  # (a verdict comparing the raced policy with the paper's follows the update)

    def simulate(self, setting, policies, horizon, runs, seed=0, **kwargs):
        """:func:`delaylab.simulate` within the panel's time budget (:meth:`.budget.Budget.simulate`):
        the full result, or a first answer refined in the background."""
        return self.budget.simulate(setting, policies, horizon, runs, seed, **kwargs)

    # ------------------------------------------------------------------ the race
    def race(self, policy: Callable | Any | None, label: str = YOUR_POLICY) -> str:
        """Race ``policy`` (a Policy, or a callable(**context) -> Policy) in this panel, drawn as
        ``label``; None removes it. Returns the sentence the status line ends with."""
        if not self.races:
            raise TypeError(f"{type(self).__name__} does not race policies (it defines no race_setting())")
        self.raced.set(policy, label)
        self.update()
        return self.raced.message

    @property
    def race_result(self):
        """The last simulation of the raced policy (a Result), or None."""
        return self.raced.result

    @property
    def race_message(self) -> str:
        """The raced policy's sentence in the last update ("" when nothing is raced)."""
        return self.raced.message

    # ------------------------------------------------------------------ display
    @property
    def widget(self) -> W.VBox:
        """The panel's widget (a new layout of the same controls and figures at each call)."""
        controls = self.controls()
        if self.seed_field is not None:
            controls = [W.VBox([W.VBox(controls), self.seed_field.widget])]
        return panel_layout(self.main_figure, self.status, controls,
                            after_main=[self.save.widget] if self.save is not None else [],
                            below=self.below(), legend_below=self.legend_below)
