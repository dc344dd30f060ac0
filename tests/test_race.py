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
from delaylab.panels.base import Panel
from delaylab.panels.race import YOUR_POLICY
from delaylab.policies.exp_weights import Exp3
from delaylab.policies.odaaf import ODAAF
from delaylab.policies.ucb import UCB1
from delaylab.viz.style import STYLES


def _no_term(window, delta, lam, width):
    return make_policy("OTFLinUCB without delay term", window, delta, lam, width)


#: panel 01's policies with UCB1 ticked (it is not by default): the twin of a raced UCB1
WITH_UCB1 = ("UCB1", "D-UCB", "D-KLUCB", "Discarding KL-UCB")
# panel, a policy built from the panel's context, the panel's own curve of that same policy, a slider to move
PANELS = {
    "conversions": (lambda: ConversionsPanel(horizon=500, runs=10, mean_delay=100, window=300, shown=WITH_UCB1),
                    lambda: UCB1(), "UCB1", "window"),
    "arm_delays": (lambda: ArmDelaysPanel(horizon=500, runs=10), lambda: UCB1(), "UCB1", "horizon"),
    "linear": (lambda: LinearPanel(horizon=300, runs=4, dim=3, n_actions=5), _no_term, "OTFLinUCB without delay term",
               "lam"),
    "anonymous": (lambda: AnonymousPanel(horizon=1000, runs=4), lambda mean_delay: ODAAF(mean_delay=mean_delay),
                  "ODAAF", "mean_delay"),
    "adversarial": (lambda: AdversarialPanel(horizon=300, runs=6), lambda: Exp3(), "Exp3", "gap"),
}


def _final(panel, name):
    x, y = panel.regret.curve(name)
    return x[-1], y[-1]


def _visible(panel):
    return panel.regret.line(YOUR_POLICY).visible


@pytest.mark.parametrize("which", sorted(PANELS))
def test_race_draws_on_the_same_draws_and_follows_the_sliders(which):
    make_panel, policy, twin, slider = PANELS[which]
    panel = make_panel()
    assert isinstance(panel, Panel) and panel.races and not _visible(panel)
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
    trace = panel.regret.line(YOUR_POLICY)
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


class Messages:
    """Every update message of a panel's regret figure: the curves as they were when it was sent,
    and the panel's status line at that moment."""

    def __init__(self, panel, names):
        self.sent = []
        plot, fig = panel.regret, panel.regret.fig
        lines = {n: plot._slot[(0, n)][1] for n in names}
        for method in ("_send_update_msg", "_send_restyle_msg"):
            send = getattr(fig, method)

            def logged(*args, _send=send, **kwargs):
                _send(*args, **kwargs)
                curves = {n: (np.asarray(fig.data[i].x, float).copy(), np.asarray(fig.data[i].y, float).copy())
                          if fig.data[i].visible else None for n, i in lines.items()}
                self.sent.append((curves, panel.status.value))

            setattr(fig, method, logged)

    def first_changing(self, name, before):
        """(curves, status) of the first message in which curve ``name`` differs from ``before``."""
        for curves, status in self.sent:
            if curves[name] is None or not np.array_equal(curves[name][1], before):
                return curves, status
        raise AssertionError(f"no message changed {name}")


@pytest.mark.parametrize("which", sorted(PANELS))
def test_one_slider_move_draws_the_race_and_its_status_with_the_papers_curves(which):
    """The student's curve and sentence are part of the paper's update: in the very message that
    redraws the paper's curves for the new value, the raced curve (the same algorithm as one of
    them, on the same draws) is already the new one, and the status line already gives its new
    mean regret."""
    make_panel, policy, twin, slider = PANELS[which]
    panel = make_panel()
    panel.race(policy)
    log = Messages(panel, [twin, YOUR_POLICY])
    before = panel.regret.curve(twin)[1].copy()
    s = getattr(panel, slider)
    s.value = s.max if s.value != s.max else s.min
    curves, status = log.first_changing(twin, before)
    assert curves[YOUR_POLICY] is not None
    np.testing.assert_allclose(curves[YOUR_POLICY][1], curves[twin][1], rtol=1e-12)
    new = panel.race_result.regret[YOUR_POLICY][:, -1].mean()
    assert f"mean regret {new:,.1f}" in status
    assert len(log.sent) == len({id(c) for c, _ in log.sent})  # (one entry per message)


def test_a_first_answer_and_its_refinement_draw_the_race_with_the_papers_curves():
    """With a first answer, the paper's curves and the student's show the same first runs in the
    same message, and the status line says so in words; the refinement redraws them together."""
    panel = ConversionsPanel(horizon=3000, runs=40, mean_delay=100, window=300, shown=WITH_UCB1)
    panel.race(lambda: UCB1())
    assert panel.budget.wait(120)
    panel.budget.seconds = 0.05  # a first answer at any size on any machine
    log = Messages(panel, ["UCB1", YOUR_POLICY])
    before = panel.regret.curve("UCB1")[1].copy()
    panel.horizon.value = 4000
    curves, status = log.first_changing("UCB1", before)
    T1, R1 = panel.budget.last["first"]
    assert (T1, R1) != (4000, 40)
    assert curves["UCB1"][0][-1] == curves[YOUR_POLICY][0][-1] == T1
    np.testing.assert_allclose(curves[YOUR_POLICY][1], curves["UCB1"][1], rtol=1e-12)  # the same runs
    assert "so far — the rest is being computed" in status and "policies recomputed" not in status
    assert (f"over the first {R1} of 40 runs so far" in status) == (R1 < 40)
    assert panel.budget.wait(120)
    curves, status = log.sent[-1]
    assert curves["UCB1"][0][-1] == curves[YOUR_POLICY][0][-1] == 4000
    np.testing.assert_allclose(curves[YOUR_POLICY][1], curves["UCB1"][1], rtol=1e-12)
    assert "All 40 runs, T = 4,000" in status and "over all 40 runs" in status and "so far" not in status


def test_the_race_answers_within_the_budget_then_refines():
    """The student's simulation goes through the panel's time budget: a first answer (fewer runs or
    a shorter horizon) at once, then the full one from the background refinement, equal to a direct run."""
    panel = ConversionsPanel(horizon=3000, runs=40, mean_delay=100, window=300, shown=WITH_UCB1)
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
