""""Your policy" in the five live panels: one mechanism (delaylab.panels.race), the same draws as
the paper's algorithms, rerun on every slider move, errors as a sentence in the status."""

import numpy as np
import pytest

from delaylab import exercises as ex
from delaylab.exercises.student import StudentCodeError
from delaylab.panels.adversarial import AdversarialPanel
from delaylab.panels.anonymous import AnonymousPanel
from delaylab.panels.arm_delays import ArmDelaysPanel
from delaylab.panels.conversions import ConversionsPanel
from delaylab.panels.linear import LinearPanel, make_policy
from delaylab.panels.race import YOUR_POLICY, Racing
from delaylab.policies.exp_weights import Exp3
from delaylab.policies.odaaf import ODAAF
from delaylab.policies.ucb import UCB1
from delaylab.viz.style import STYLES


def _linucb(window, delta, lam, width):
    return make_policy("LinUCB", window, delta, lam, width)


# panel, a policy built from the panel's context, the panel's own curve of that same policy, a slider to move
PANELS = {
    "conversions": (lambda: ConversionsPanel(horizon=500, runs=10, mean_delay=100, window=300),
                    lambda: UCB1(), "UCB1", "window"),
    "arm_delays": (lambda: ArmDelaysPanel(horizon=500, runs=10), lambda: UCB1(), "UCB1", "horizon"),
    "linear": (lambda: LinearPanel(horizon=300, runs=4, dim=3, n_actions=5), _linucb, "LinUCB", "lam"),
    "anonymous": (lambda: AnonymousPanel(horizon=1000, runs=4), lambda mean_delay: ODAAF(mean_delay=mean_delay),
                  "ODAAF", "mean_delay"),
    "adversarial": (lambda: AdversarialPanel(horizon=300, runs=6), lambda: Exp3(), "Exp3", "gap"),
}


def _final(panel, name):
    x, y = panel.regret.curve(name)
    return x[-1], y[-1]


def _visible(panel):
    return panel.regret.fig.data[panel.regret._slot[(0, YOUR_POLICY)][1]].visible


@pytest.mark.parametrize("which", sorted(PANELS))
def test_race_draws_on_the_same_draws_and_follows_the_sliders(which):
    make_panel, policy, twin, slider = PANELS[which]
    panel = make_panel()
    assert isinstance(panel, Racing) and not _visible(panel)
    message = panel.race(policy)
    assert _visible(panel) and "mean regret" in message and "mean regret" in panel.status.value
    # the same algorithm as one of the paper's curves, on the same draws: the same curve
    assert _final(panel, YOUR_POLICY) == pytest.approx(_final(panel, twin), rel=1e-12)
    before = _final(panel, YOUR_POLICY)
    s = getattr(panel, slider)
    s.value = s.max if s.value != s.max else s.min  # a slider move reruns the race
    assert _final(panel, YOUR_POLICY) != before
    assert _final(panel, YOUR_POLICY) == pytest.approx(_final(panel, twin), rel=1e-12)
    panel.race(None)
    assert not _visible(panel) and "mean regret" not in panel.status.value


@pytest.mark.parametrize("which", ["conversions", "adversarial"])
def test_student_errors_are_a_sentence_in_the_status(which):
    panel = PANELS[which][0]()

    def broken(**context):
        raise StudentCodeError("your d_ucb_index returned shape (3,); expected (10, 3)")

    message = panel.race(broken)
    assert not _visible(panel)
    assert "expected (10, 3)" in message and "expected (10, 3)" in panel.status.value
    assert "Traceback" not in panel.status.value
    panel.race(lambda: 1 / 0)
    assert "ZeroDivisionError" in panel.status.value and not _visible(panel)


def test_race_label_and_colour():
    panel = PANELS["conversions"][0]()
    panel.race(lambda: UCB1(), label="my UCB")
    trace = panel.regret.fig.data[panel.regret._slot[(0, YOUR_POLICY)][1]]
    assert trace.name == "my UCB" and trace.line.color == STYLES[YOUR_POLICY][0]
    used = {c for name, (c, _) in STYLES.items() if name != YOUR_POLICY}
    assert STYLES[YOUR_POLICY][0] not in used  # a colour of its own
    with pytest.raises(ValueError, match="label"):
        panel.race(lambda: UCB1(), label="  ")


def test_ex_race_reads_the_students_function(monkeypatch):
    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)  # a student, not the notebooks' tests
    panel = PANELS["conversions"][0]()
    eid = "01.d-klucb-index"
    ns = {}
    assert ex.race(panel, eid, namespace=ns).feedback.status == "unanswered"
    ns["d_klucb_index"] = lambda theta_hat, N_tilde, beta: ...  # the stub as shipped: no curve, no message in the panel
    assert ex.race(panel, eid, namespace=ns).feedback.status == "unanswered"
    assert not _visible(panel) and "your policy" not in panel.status.value
    ns["d_klucb_index"] = 3
    assert ex.race(panel, eid, namespace=ns).feedback.status == "wrong"
    ns["d_klucb_index"] = lambda theta_hat, N_tilde, beta: np.zeros(7)
    fb = ex.race(panel, eid, namespace=ns).feedback
    assert fb.status == "wrong" and "shape" in fb.message and "Traceback" not in fb.message
    assert not _visible(panel) and "your policy" not in panel.status.value
    ns["d_klucb_index"] = ex.solution(eid)
    fb = ex.race(panel, eid, namespace=ns).feedback
    assert fb.correct, fb.message
    # the solution is D-KLUCB itself: on the same draws, the same curve as the panel's D-KLUCB
    assert _final(panel, YOUR_POLICY) == pytest.approx(_final(panel, "D-KLUCB"), rel=1e-9)
    assert f"{_final(panel, 'D-KLUCB')[1]:.1f}" in fb.message  # the two numbers, side by side


def test_a_function_that_fails_its_check_races_but_is_not_called_right(monkeypatch):
    """A variant of the index races (to see what it costs), but the verdict says it is not D-KLUCB."""
    monkeypatch.delenv("DELAYLAB_EXERCISES_EXPECT", raising=False)
    panel = PANELS["conversions"][0]()
    variant = ex.get("01.d-klucb-index").wrong_answers[3]  # a UCB-type width instead of the KL bound
    fb = ex.race(panel, "01.d-klucb-index", namespace={"d_klucb_index": variant}).feedback
    assert fb.status == "wrong" and _visible(panel)
    assert "does not pass its check" in fb.message and "lower is better" in fb.message and "✓" not in fb.message


def test_race_survives_a_redraw_by_the_panel_alone():
    """A panel may redraw later without the race (e.g. a refinement computed in the background):
    the curve stays, and the status line gets the race's sentence back."""
    panel = PANELS["conversions"][0]()
    panel.race(lambda: UCB1())
    drawn = _final(panel, YOUR_POLICY)
    type(panel).update.__wrapped__(panel)  # the panel's own update, without the race
    assert _visible(panel) and _final(panel, YOUR_POLICY) == drawn
    assert panel.status.value.count("your policy: mean regret") == 1
    panel.horizon.value = 1000  # a move: one sentence, the new one
    assert panel.status.value.count("your policy: mean regret") == 1 and "T = 1000" in panel.status.value
    panel.race(None)
    assert "your policy" not in panel.status.value and not _visible(panel)


def test_the_race_answers_within_the_budget_then_refines():
    """The student's simulation goes through the panel's time budget: a first answer (fewer runs or
    a shorter horizon) at once, then the full one from the background refinement, equal to a direct run."""
    panel = ConversionsPanel(horizon=3000, runs=40, mean_delay=100, window=300)
    panel.budget.seconds = 0.05  # a first answer at any size on any machine
    panel.race(lambda: UCB1())
    first = panel.race_result
    assert first is not None and "first_answer" in first.notes
    assert "runs" in panel.status.value
    assert panel.budget.wait(120)
    full = panel.race_result
    assert "first_answer" not in full.notes and full.regret[YOUR_POLICY].shape[0] == 40
    x, y = panel.regret.curve(YOUR_POLICY)
    np.testing.assert_allclose(y, full.mean(YOUR_POLICY))
    np.testing.assert_allclose(_final(panel, YOUR_POLICY)[1], _final(panel, "UCB1")[1])  # same draws as UCB1's
