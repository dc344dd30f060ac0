"""The panel contract (delaylab.panels.base): a toy panel written through its hooks alone gets
the budget, the seed field, the status line, the race and the widget of the paper's panels."""

import ast
from pathlib import Path

import ipywidgets as W
import numpy as np
import pytest

import delaylab.panels as panels_package
from delaylab.engine import simulate
from delaylab.laws import Fixed
from delaylab.panels.base import Displayable, Panel
from delaylab.panels.budget import MachineSpeed
from delaylab.panels.layout import section
from delaylab.panels.race import YOUR_POLICY, RaceSetting
from delaylab.policies.ucb import UCB1
from delaylab.settings.bernoulli import Conversions
from delaylab.viz.plots import CurvePlot

THETA = (0.6, 0.4)


class ToyPanel(Panel):
    """UCB1 on two Bernoulli arms: a horizon, a number of runs, and a slider that only redraws."""

    def __init__(self, horizon=300, runs=4, seed=0):
        super().__init__(seed)
        self.horizon = W.IntSlider(value=horizon, min=100, max=1000, step=100, description="horizon T")
        self.runs = W.IntSlider(value=runs, min=2, max=10, step=2, description="runs")
        self.thickness = W.FloatSlider(value=2.0, min=1.0, max=5.0, step=0.5, description="line width")
        self.regret = CurvePlot(["UCB1", YOUR_POLICY])
        self.computed = 0
        for w in (self.horizon, self.runs):
            w.observe(lambda _: self.update(), names="value")
        self.thickness.observe(lambda _: self.redraw(), names="value")
        self.start()

    redraw_only = ("thickness",)

    def compute(self):
        self.computed += 1
        return self.simulate(Conversions(THETA, Fixed(0)), {"UCB1": UCB1()}, self.horizon.value, self.runs.value,
                             self.seed, checkpoints=50)

    def notes(self, result):
        return [f"UCB1 ends at {result.final('UCB1').mean():.1f}"]

    def draw(self, result):
        self.regret.show_result(result)
        self.regret.line("UCB1").line.width = self.thickness.value

    def controls(self):
        return [section("Simulation", self.horizon, self.runs, self.thickness)]

    def race_setting(self):
        return RaceSetting(Conversions(THETA, Fixed(0)), self.horizon.value, self.runs.value, self.seed, 50)


class QuietPanel(ToyPanel):
    """The same panel without a race (no race_setting)."""

    race_setting = Panel.race_setting


def _direct(panel):
    return simulate(Conversions(THETA, Fixed(0)), {"UCB1": UCB1()}, panel.horizon.value, panel.runs.value,
                    panel.seed, checkpoints=50)


def test_a_toy_panel_draws_its_defaults_in_full_and_reruns_on_a_move():
    panel = ToyPanel()
    assert panel.budget is not None and panel.computed == 1
    np.testing.assert_allclose(panel.regret.curve("UCB1")[1], _direct(panel).mean("UCB1"))
    assert "All 4 runs, T = 300" in panel.status.value and "UCB1 ends at" in panel.status.value
    panel.horizon.value = 500
    assert panel.computed == 2 and panel.regret.curve("UCB1")[0][-1] == 500
    np.testing.assert_allclose(panel.regret.curve("UCB1")[1], _direct(panel).mean("UCB1"))


def test_a_panel_that_forgets_start_says_so():
    class Unstarted(ToyPanel):
        def start(self):
            pass

    panel = Unstarted()
    with pytest.raises(RuntimeError, match=r"Unstarted is not started: its __init__ must end with self.start\(\)"):
        panel.horizon.value = 500


def test_a_redraw_only_control_redraws_without_computing_and_is_not_part_of_the_state():
    panel = ToyPanel()
    state = panel.budget.state()
    panel.thickness.value = 4.0
    assert panel.computed == 1 and panel.regret.line("UCB1").line.width == 4.0
    assert panel.budget.state() == state  # a refinement in flight would still be drawn


def test_the_seed_field_is_under_the_controls_and_reruns_on_a_new_seed():
    panel = ToyPanel()
    texts = [w for w in _walk(panel.widget) if isinstance(w, W.Text)]
    assert texts == [panel.seed_field.text]
    before = panel.regret.curve("UCB1")[1].copy()
    panel.seed_field.text.value = "5"
    assert panel.seed == 5 and panel.computed == 2
    assert not np.array_equal(before, panel.regret.curve("UCB1")[1])
    assert panel.budget.state()[-1] == 5


def test_the_controls_are_locked_against_the_page():
    panel = ToyPanel()
    panel.horizon.set_state({"max": 10**6, "value": 10**6})
    assert panel.horizon.max == 1000 and panel.horizon.value == 1000


def test_the_race_draws_your_policy_on_the_same_draws_in_the_same_status_line():
    panel = ToyPanel()
    assert panel.races and panel.race_result is None and panel.race_message == ""
    message = panel.race(UCB1(), label="mine")
    assert message.startswith("mine: mean regret") and message in panel.status.value.replace("&#x27;", "'")
    np.testing.assert_allclose(panel.regret.curve(YOUR_POLICY)[1], panel.regret.curve("UCB1")[1])
    assert panel.regret.line(YOUR_POLICY).name == "mine"
    panel.runs.value = 6  # the race follows the controls
    assert panel.race_result.regret[YOUR_POLICY].shape[0] == 6
    panel.race(None)
    assert not panel.regret.line(YOUR_POLICY).visible and "mean regret" not in panel.status.value


def test_a_panel_without_race_setting_does_not_race():
    panel = QuietPanel()
    assert not panel.races
    with pytest.raises(TypeError, match="QuietPanel does not race"):
        panel.race(UCB1())


def test_the_panels_of_a_kernel_share_one_machine_speed_unless_given_their_own():
    a, b = ToyPanel(), QuietPanel()
    assert a.budget.model.speed is b.budget.model.speed is Panel.speed

    class OwnSpeed(ToyPanel):
        speed = MachineSpeed()

    own = OwnSpeed()
    assert own.budget.model.speed is OwnSpeed.speed is not Panel.speed
    scale = Panel.speed.scale
    own.horizon.value = 600  # its measurements move its own scale only
    assert Panel.speed.scale == scale and OwnSpeed.speed.scale != 1.0


def test_machine_speed_learns_a_fifth_of_the_way():
    speed = MachineSpeed()
    prior = speed.prior(10)
    speed.learn(3 * prior, 10)  # three times slower than the prior
    assert speed.scale == pytest.approx(0.8 + 0.2 * 3)


def test_one_ipython_display_and_no_attribute_injection_in_the_panels():
    """What the panel contract replaced stays gone: no panel module defines an
    ``_ipython_display_`` of its own (the base's Displayable does), writes into an object's
    ``__dict__``, or changes module-level state from a function (``global``, ``NAME[...] = ``)."""
    folder = Path(panels_package.__file__).parent
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module_names = {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                        for t in getattr(node, "targets", [getattr(node, "target", None)]) if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            where = f"{path.name}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.FunctionDef) and node.name == "_ipython_display_":
                assert path.name == "base.py", f"{where} defines its own _ipython_display_"
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
                assert node.value.attr != "__dict__", f"{where} reads or writes an object's __dict__"
            assert not isinstance(node, ast.Global), f"{where} rebinds a module global"
            if isinstance(node, ast.FunctionDef):
                for inner in ast.walk(node):
                    targets = (inner.targets if isinstance(inner, ast.Assign) else
                               [inner.target] if isinstance(inner, ast.AugAssign) else [])
                    for t in targets:
                        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                            assert t.value.id not in module_names, f"{where} changes module state {t.value.id}"
    from delaylab.panels.reproduce import FigureReproduction

    assert issubclass(FigureReproduction, Displayable) and issubclass(Panel, Displayable)


def _walk(w):
    yield w
    for child in getattr(w, "children", ()):
        yield from _walk(child)


def test_one_display_of_a_widget_in_the_whole_package():
    """Objects shown as their ``widget`` (panels, reproductions, save buttons, exercises' widgets)
    inherit :class:`delaylab.viz.display.Displayable`: no module writes that method again."""
    import delaylab
    from delaylab.exercises import ui
    from delaylab.viz.display import Displayable as Shown
    from delaylab.viz.save import SaveButton

    copies = []
    for path in sorted(Path(delaylab.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name == "_ipython_display_":
                if "display(self.widget)" in ast.unparse(node):
                    copies.append(path.name)
    assert copies == ["display.py"]
    assert Displayable is Shown
    assert all(issubclass(c, Shown) for c in (SaveButton, ui.Checked, ui.Predict, ui.Explain, ui.Raced))
