"""Every control of every live panel: moved to its extremes (and combinations of them), and sent
forged values the way a page sends them; each update answers within the budget and leaves
every control within its declared limits; the panel still updates afterwards.

Timings are printed (run with ``-s``); only a gross bound is asserted (GROSS seconds, five times
the budget), so that a loaded machine does not make the tests flaky.
"""

import math
import threading
import time

import ipywidgets as W
import numpy as np
import pytest

from delaylab.engine import simulate
from delaylab.laws import Geometric
from delaylab.panels import budget as B
from delaylab.panels.adversarial import AdversarialPanel
from delaylab.panels.anonymous import AnonymousPanel
from delaylab.panels.arm_delays import ArmDelaysPanel
from delaylab.panels.conversions import ConversionsPanel, make_policy
from delaylab.panels.fields import clean_state, controls, extreme_values
from delaylab.panels.linear import EllipsePanel, LinearPanel
from delaylab.settings.bernoulli import Conversions

GROSS = 5 * B.BUDGET_SECONDS
PANELS = {"01 conversions": ConversionsPanel, "02 arm delays": ArmDelaysPanel, "03 linear": LinearPanel,
          "03 ellipse": EllipsePanel, "04 anonymous": AnonymousPanel, "05 adversarial": AdversarialPanel}
LIMITS = ("min", "max", "step", "base", "options", "_options_labels")


def page(widget, state):
    """A message from the page, as ipywidgets receives it from the kernel's comm."""
    widget._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
                        "buffers": []})


def limits(widget):
    return {k: getattr(widget, k) for k in LIMITS if widget.has_trait(k)}


def within(widget, declared) -> bool:
    if limits(widget) != declared:
        return False
    if isinstance(widget, W.FloatLogSlider):
        lo, hi = widget.base ** widget.min, widget.base ** widget.max
        return lo * (1 - 1e-9) <= widget.value <= hi * (1 + 1e-9)
    if isinstance(widget, (W.IntSlider, W.FloatSlider)):
        return widget.min <= widget.value <= widget.max and math.isfinite(widget.value)
    if isinstance(widget, W.widget_selection._Selection):
        return widget.index is not None and 0 <= widget.index < len(widget.options)
    if isinstance(widget, W.Checkbox):
        return isinstance(widget.value, bool)
    return True


def figures(panel):
    figs = [v.fig if hasattr(v, "fig") and hasattr(v.fig, "data") else v for v in vars(panel).values()]
    return [f for f in figs if hasattr(f, "batch_update")]


def snapshot(panel):
    return [(d.visible, None if d.y is None else np.asarray(d.y, dtype=float).copy())
            for f in figures(panel) for d in f.data]


def changed(a, b):
    return any(va != vb or (ya is None) != (yb is None) or (ya is not None and not np.array_equal(ya, yb))
               for (va, ya), (vb, yb) in zip(a, b))


def forged(widget):
    """What a hostile page could send to a control."""
    if isinstance(widget, W.widget_selection._Selection):
        n = len(widget.options)
        return [{"index": n}, {"index": -1}, {"index": "0"}, {"index": True}, {"index": None},
                {"options": ["x"], "_options_labels": ["x"], "index": 0}, {"value": "x"}]
    if isinstance(widget, W.Checkbox):
        return [{"value": "yes"}, {"value": 2}, {"value": None}, {"disabled": True, "value": True}]
    if isinstance(widget, W.Text):
        return [{"value": "-3"}, {"value": "9" * 5000}, {"value": 12}, {"value": None}]
    if isinstance(widget, W.Button):
        return [{"description": "x", "disabled": True, "icon": "bomb"}]
    if isinstance(widget, (W.IntSlider, W.FloatSlider, W.FloatLogSlider)):
        top = widget.base ** widget.max if isinstance(widget, W.FloatLogSlider) else widget.max
        return [{"max": top * 1000 + 1000, "value": top * 1000 + 1000}, {"value": top * 10 + 10},
                {"value": -abs(top) - 5}, {"min": -100, "value": -50}, {"step": 1e-9}, {"value": "abc"},
                {"value": None}, {"value": [1, 2]}, {"value": float("nan")}, {"value": float("inf")},
                {"value": True}, {"value": 1e308}]
    return []


@pytest.fixture(scope="module")
def table():
    rows = []
    yield rows
    if rows:
        print("\nupdate times per panel (s): messages, moves that recomputed (> 10 ms), their median and "
              "90th percentile, the worst (which)")
        for name in PANELS:
            mine = [r for r in rows if r[0] == name]
            if mine:
                worst = max(mine, key=lambda r: r[1])
                slow = [r[1] for r in mine if r[1] > 0.01] or [0.0]
                print(f"  {name:16s} {len(mine):4d} {len(slow):4d} {np.median(slow):7.3f} "
                      f"{np.quantile(slow, 0.9):7.3f} {worst[1]:7.3f}  ({worst[2]})")


@pytest.mark.parametrize("name", list(PANELS))
def test_every_control_at_its_extremes_and_forged_values(name, table):
    panel = PANELS[name]()
    budget = getattr(panel, "budget", None)
    tree = panel.widget
    found = [w for w in controls(tree)]
    assert len(found) >= 3, found
    declared = {id(w): limits(w) for w in found}
    rng = np.random.default_rng(0)

    def move(w, state, what):
        t0 = time.perf_counter()
        page(w, state)
        took = time.perf_counter() - t0
        table.append((name, took, f"{w.description} {what}"))
        assert took <= GROSS, (name, w.description, state, took)
        bad = [(v.description, v.value) for v in found if not within(v, declared[id(v)])]
        assert not bad, (w.description, state, bad)

    for w in found:  # each control alone: its extremes, then forged values
        for state in extreme_values(w):
            move(w, state, state)
        for state in forged(w):
            move(w, state, f"forged {state}"[:60])
    for w in found:  # buttons that compute (not the figure's save button)
        if isinstance(w, W.Button) and "save" not in w.description:
            t0 = time.perf_counter()
            w._handle_custom_msg({"event": "click"}, [])
            table.append((name, time.perf_counter() - t0, f"{w.description} click"))
    numeric = [w for w in found if isinstance(w, (W.IntSlider, W.FloatSlider, W.FloatLogSlider))]
    boxes = [w for w in found if isinstance(w, W.Checkbox)]
    for box in boxes:  # the most work: every policy shown, every slider at its maximum
        move(box, {"value": True}, "on")
    for w in numeric:
        move(w, extreme_values(w)[1], "all-max corner")
    for _ in range(2):  # combinations of extremes
        for w in rng.permutation(numeric):
            move(w, extreme_values(w)[rng.integers(2)], "random corner")
    # the panel still answers a legitimate move, and redraws
    if budget is not None:
        budget.cancel()
    w = next(w for w in numeric if not w.disabled)
    before = snapshot(panel)
    lo, hi = extreme_values(w)
    move(w, lo if w.value != lo["value"] else hi, "after everything")
    assert changed(before, snapshot(panel)), (name, w.description)
    if budget is not None:
        budget.cancel()


def test_clean_state_snaps_to_the_grid_and_keeps_the_limits():
    s = W.IntSlider(value=100, min=10, max=200, step=10)
    assert clean_state(s, {"value": 137, "max": 10**6}) == {"value": 140}
    assert clean_state(s, {"value": -5}) == {"value": 10} and clean_state(s, {"value": 10**9}) == {"value": 200}
    assert clean_state(s, {"value": "7"}) == {} and clean_state(s, {"value": True}) == {}
    log = W.FloatLogSlider(value=100, base=10, min=1, max=3, step=0.5)
    assert clean_state(log, {"value": 5000.0}) == {"value": pytest.approx(1000.0)}
    assert clean_state(log, {"value": -1}) == {"value": pytest.approx(10.0)}
    assert clean_state(log, {"value": 200}) == {"value": pytest.approx(10**2.5)}
    d = W.Dropdown(options=["a", "b"])
    assert clean_state(d, {"index": 1}) == {"index": 1} and clean_state(d, {"index": 2}) == {}
    s.disabled = True
    assert clean_state(s, {"value": 20}) == {}


def test_clean_state_on_random_sliders_and_random_messages():
    """Seeded fuzzing: whatever a message holds, a locked slider keeps its limits and a value on
    its grid within them."""
    from delaylab.panels.fields import lock_control

    rng = np.random.default_rng(15)
    junk = [None, "", "12", "nan", True, False, [], [3], {}, {"a": 1}, float("nan"), float("inf"), -float("inf"),
            1e308, -1e308, 2**70, -(2**70), 0, -0.0, 5e-324]
    for _ in range(300):
        kind = rng.integers(3)
        lo = float(rng.integers(-50, 50))
        step = float(rng.choice([1, 2, 5, 0.5, 0.25]))
        hi = lo + step * int(rng.integers(1, 40))
        if kind == 0:
            w = W.IntSlider(min=int(lo), max=int(lo) + int(step) * int(rng.integers(1, 40)), step=max(1, int(step)))
        elif kind == 1:
            w = W.FloatSlider(min=lo, max=hi, step=step)
        else:
            w = W.FloatLogSlider(base=10, min=-2, max=float(rng.integers(0, 5)), step=float(rng.choice([0.05, 0.25])))
        w.value = w.base ** w.min if kind == 2 else w.min  # on the grid, as a panel starts
        lock_control(w)
        declared = limits(w)
        for _ in range(5):
            v = junk[rng.integers(len(junk))] if rng.random() < 0.4 else float(rng.normal(0, 10 ** rng.integers(0, 9)))
            state = {"value": v}
            if rng.random() < 0.3:
                state[str(rng.choice(["min", "max", "step", "base", "readout_format"]))] = v
            w.set_state(state)
            assert limits(w) == declared and within(w, declared), (w, state)
            if isinstance(w, W.FloatLogSlider):
                e = math.log10(w.value)
            else:
                e = w.value
            k = (e - w.min) / w.step
            assert abs(k - round(k)) < 1e-6 or e in (w.min, w.max), (w, state)  # on the slider's grid


def test_a_forged_limit_is_sent_back_to_the_page():
    panel = ConversionsPanel(horizon=500, runs=10)
    sent = []
    panel.horizon.send_state = lambda key=None: sent.append(key)
    page(panel.horizon, {"max": 200_000, "value": 200_000})
    assert panel.horizon.max == 20_000 and panel.horizon.value == 20_000
    assert sent and set(sent[-1]) == {"max", "value"}


def test_a_forged_negative_value_does_not_block_later_moves():
    panel = AnonymousPanel(horizon=2000, runs=4)
    page(panel.mean_delay, {"min": -100, "value": -50})
    assert panel.mean_delay.value == 0.5 and panel.mean_delay.min == 0.5
    before = snapshot(panel)
    page(panel.gap, {"value": 0.1})
    assert changed(before, snapshot(panel))


# ----------------------------------------------------------------------------- first answers, refinement, cancel
def slow_panel():
    """Panel 01 at its largest sizes, with the budget lowered so that a small machine and a fast
    one both need a first answer."""
    panel = ConversionsPanel(horizon=2000, runs=20, mean_delay=50, window=200,
                             shown=("UCB1", "D-UCB", "D-KLUCB", "Discarding KL-UCB"))  # UCB1 ticked
    panel.budget.seconds = 0.05
    return panel


class _Policy:
    def __init__(self, window=None):
        self.window = window


class _Setting:
    n_arms, dim = 10, 5


def test_cost_model_keys_a_policys_window_and_never_guesses_a_larger_window_cheaper():
    model = B.CostModel()
    small, large = (model.key("OTFLinUCB", _Setting(), _Policy(w)) for w in (10, 500))
    assert small != large and small[:3] == large[:3] == ("OTFLinUCB", 10, 5)
    assert model.key("LinUCB", _Setting(), _Policy())[3] is None
    assert model.key("LinUCB", _Setting(), _Policy(True))[3] is None  # a flag is not a window
    model.obs[small] = {20: 1e-6, 40: 2e-6}  # a + b·R through both: a = 0, b = 5e-8
    model.obs[large] = {20: 6e-6}
    assert model.rate(small, 30) == pytest.approx(1.5e-6)
    # a window not measured: the nearest larger window's cost...
    assert model.rate(model.key("OTFLinUCB", _Setting(), _Policy(100)), 20) == pytest.approx(6e-6)
    # ...and beyond the largest, in proportion to the window
    assert model.rate(model.key("OTFLinUCB", _Setting(), _Policy(1000)), 20) == pytest.approx(12e-6)
    # another policy never measured: as costly as the costliest measured one (here at R = 20)
    assert model.rate(model.key("OTFLinTS", _Setting(), _Policy(10)), 20) == pytest.approx(6e-6)


def test_the_watchdog_stops_a_computation_far_over_its_estimate_or_over_the_time_left(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(B.time, "perf_counter", lambda: clock[0])

    def stopped(left, estimate, elapsed, fraction):
        clock[0] = 0.0
        check = B._watchdog(left, estimate)
        clock[0] = elapsed
        try:
            check(fraction)
        except B._Overrun:
            return True
        return False

    # sized for 0.2 s of the 1 s left: projected 0.5 s (2.5 times the estimate) is stopped...
    assert stopped(1.0, 0.2, 0.05, 0.1)
    # ...projected 0.3 s (1.5 times) is not
    assert not stopped(1.0, 0.2, 0.06, 0.2)
    # estimated 0.7 s of 0.8 s left, projected 1.0 s: over the time left, stopped
    assert stopped(0.8, 0.7, 0.1, 0.1)
    # too early to judge (under a tenth of what is allowed), finished, or not started: never stopped
    assert not stopped(1.0, 0.2, 0.03, 0.01)
    assert not stopped(1.0, 0.01, 0.5, 1.0) and not stopped(1.0, 0.01, 0.5, 0.0)


def test_first_answer_is_the_first_runs_and_the_refinement_the_full_result():
    panel = slow_panel()
    page(panel.horizon, {"value": 4000})
    assert "so far — the rest is being computed" in panel.status.value and panel.budget.busy
    T1, R1 = panel.budget.last["first"]
    assert R1 < 20 or T1 < 4000
    curve = panel.regret.curve("D-KLUCB")
    assert curve[0][-1] == T1
    assert panel.budget.wait(120)
    assert "All 20 runs, T = 4,000" in panel.status.value
    law = Geometric(50.0)
    env = Conversions(panel.means, law, window=200)
    full = simulate(env, {"D-KLUCB": make_policy("D-KLUCB", law, 200)}, 4000, 20, 0, checkpoints=300)
    t, y = panel.regret.curve("D-KLUCB")
    assert t[-1] == 4000 and np.allclose(y, full.mean("D-KLUCB"))
    first = simulate(env, {"D-KLUCB": make_policy("D-KLUCB", law, 200)}, T1, R1, 0, checkpoints=300)
    assert np.allclose(curve[1], first.mean("D-KLUCB"))  # exactly the first runs of the full answer


def test_a_newer_move_cancels_the_stale_refinement():
    panel = slow_panel()
    page(panel.horizon, {"value": 6000})
    stale = panel.budget._thread
    assert stale.is_alive()
    t0 = time.perf_counter()
    page(panel.mean_delay, {"value": 100.0})
    assert time.perf_counter() - t0 <= GROSS
    stale.join(10)
    assert not stale.is_alive()  # cancelled, not queued
    assert panel.budget.wait(120)
    law = Geometric(100.0)
    env = Conversions(panel.means, law, window=200)
    full = simulate(env, {"UCB1": make_policy("UCB1", law, 200)}, 6000, 20, 0, checkpoints=300)
    assert np.allclose(panel.regret.curve("UCB1")[1], full.mean("UCB1"))  # the newest settings won


def test_controls_stay_responsive_during_a_refinement():
    panel = slow_panel()
    page(panel.horizon, {"value": 8000})
    assert panel.budget.busy
    times = []
    for v in (False, True, False):  # a cached redraw while the background computes
        t0 = time.perf_counter()
        page(panel.show_bound, {"value": v})
        times.append(time.perf_counter() - t0)
    print(f"\ncheck-box moves during a refinement: {', '.join(f'{t:.3f} s' for t in times)}")
    assert max(times) <= GROSS
    panel.budget.cancel()


def test_refinement_draws_from_its_thread_while_the_main_thread_moves():
    """Figure updates from both threads go one at a time (the panel's lock)."""
    panel = slow_panel()
    errors = []

    def hammer():
        try:
            for v in (3000, 5000, 2000, 7000):
                page(panel.horizon, {"value": v})
                time.sleep(0.05)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    t = threading.Thread(target=hammer)
    t.start()
    t.join(120)
    assert not errors and panel.budget.wait(120)
    assert panel.regret.curve("D-KLUCB")[0][-1] == 7000


# ----------------------------------------------------------------------------- through a real kernel
KERNEL_SETUP = r"""
from delaylab.panels.conversions import ConversionsPanel
panel = ConversionsPanel(horizon=1000, runs=10, mean_delay=50, window=200)
panel.budget.seconds = 0.05  # a first answer at any size on any machine: the refinement runs in a thread
import json
print("IDS" + json.dumps({"horizon": panel.horizon.model_id, "runs": panel.runs.model_id,
                          "fig": panel.regret.fig.model_id}))
"""

KERNEL_CHECK = r"""
panel.budget.wait(120)
print("STATE" + json.dumps({"horizon": [panel.horizon.value, panel.horizon.min, panel.horizon.max],
                            "runs": [panel.runs.value, panel.runs.min, panel.runs.max],
                            "last": panel.regret.curve("D-KLUCB")[0][-1], "status": panel.status.value,
                            "seconds": panel.budget.last.get("seconds")}))
"""


def test_forged_comm_messages_in_a_real_kernel_and_updates_from_the_refinement_thread():
    """The page's way: comm messages on the kernel's shell channel. The limits hold, and the
    figure updates computed in the background thread reach the page (iopub)."""
    jupyter_client = pytest.importorskip("jupyter_client")
    import json
    import queue

    km, kc = jupyter_client.manager.start_new_kernel(kernel_name="python3")
    try:
        def execute(code):
            msg_id = kc.execute(code)
            out = []
            while True:
                msg = kc.get_iopub_msg(timeout=300)
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                if msg["msg_type"] == "stream":
                    out.append(msg["content"]["text"])
                if msg["msg_type"] == "error":
                    raise AssertionError("\n".join(msg["content"]["traceback"]))
                if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    return "".join(out)

        ids = json.loads(execute(KERNEL_SETUP).split("IDS", 1)[1])

        sent = []

        def forge(model, state):
            msg = kc.session.msg("comm_msg", {
                "comm_id": ids[model], "data": {"method": "update", "state": state, "buffer_paths": []}})
            sent.append(msg["header"]["msg_id"])
            kc.shell_channel.send(msg)

        forge("horizon", {"max": 200_000, "value": 200_000})
        forge("runs", {"min": -100, "value": -50})
        forge("runs", {"value": "many"})
        # the figure's updates after the first answer come from the refinement thread
        # the moves are answered when the kernel is idle after the last message; later figure
        # messages come from the refinement thread
        fig_updates, from_thread, answered, deadline = 0, 0, False, time.time() + 120
        while time.time() < deadline:
            try:
                msg = kc.get_iopub_msg(timeout=5)
            except queue.Empty:
                if from_thread:
                    break
                continue
            if msg["msg_type"] == "status" and msg["parent_header"].get("msg_id") == sent[-1]:
                answered = answered or msg["content"]["execution_state"] == "idle"
            if msg["msg_type"] == "comm_msg" and msg["content"]["comm_id"] == ids["fig"]:
                fig_updates += 1
                from_thread += answered
        state = json.loads(execute(KERNEL_CHECK).split("STATE", 1)[1])
        print(f"\nreal kernel: {fig_updates} figure messages, {from_thread} from the refinement thread; state {state}")
        assert state["horizon"] == [20_000, 500, 20_000] and state["runs"] == [10, 10, 200]
        assert state["last"] == 20_000 and "All 10 runs, T = 20,000" in state["status"]
        assert fig_updates > from_thread >= 1  # the first answer, then the refinement(s) from the thread
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_ellipse_panel_first_answer_then_full_trace_and_the_time_slider_meanwhile():
    panel = EllipsePanel(horizon=3000)
    panel.budget.seconds = 0.02
    page(panel.window, {"value": 120})
    assert "so far — the rest is being computed" in panel.status.value and panel.trace["times"][-1] < 3000
    assert (50, 120) not in panel._cache  # a first answer is drawn, not kept
    page(panel.time, {"value": 2500})  # only redraws: does not cancel the refinement
    assert panel.budget.wait(120)
    assert panel.trace["times"][-1] == 3000 and (50, 120) in panel._cache
    assert "so far" not in panel.status.value and "distance of the estimate" in panel.status.value


def test_the_status_line_says_what_is_shown_in_words():
    """What the figures show, in a student's words: every run, or how many so far."""
    panel = ConversionsPanel(horizon=1000, runs=10)
    budget = panel.budget
    assert budget.shown(2500, 60) == "All 60 runs, T = 2,500" and budget.shown(3000, 1) == "One run, T = 3,000"
    assert budget.shown() == ""
    budget.partial = (2500, 24, 2500, 60)
    assert budget.shown(2500, 60) == "<b>Showing 24 of 60 runs (T = 2,500) so far — the rest is being computed…</b>"
    budget.partial = (1200, 10, 2500, 60)
    assert "Showing a shorter run (T = 1,200 of 2,500), 10 of 60 runs, so far" in budget.shown(2500, 60)
    budget.partial = (1200, 1, 2500, 1)
    assert "Showing a shorter run (T = 1,200 of 2,500) so far" in budget.shown()
    assert "recomputed" not in panel.status.value and "in 0." not in panel.status.value


def test_a_failed_refinement_says_so_in_the_status_line(monkeypatch, caplog):
    panel = slow_panel()
    timed = panel.budget._timed

    def failing(*args, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("out of memory")
        return timed(*args, **kwargs)

    monkeypatch.setattr(panel.budget, "_timed", failing)
    page(panel.horizon, {"value": 4000})
    assert B.COMPUTING in panel.status.value
    assert panel.budget.wait(120)
    assert B.COMPUTING not in panel.status.value and "could not be computed" in panel.status.value
    assert "background refinement of ConversionsPanel failed" in caplog.text


def test_cached_curves_drawn_beside_a_first_answer_show_its_runs_and_steps():
    """Review nb04-r6, finding 1, for every panel (they share :func:`delaylab.panels.results.together`): a
    move that simulates one policy anew draws the others from the cache; while the new one is a first
    answer (T' steps, R' runs), the cached full results are cut to the same runs and steps."""
    from delaylab.panels.race import YOUR_POLICY
    from delaylab.policies.simple import UNIFORM
    from delaylab.policies.ucb import UCB1

    panel = ConversionsPanel(horizon=2000, runs=20, mean_delay=50, window=200, shown=("UCB1",))
    panel.race(UCB1(c=1.0))  # "your policy", kept by the race's own cache
    assert panel.budget.wait(120)
    raced = panel.race_result
    panel.budget._size = lambda keys, T, R, left: (min(T, 700), min(R, 10))  # a first answer, on any machine
    cached = panel._drawn[0].curves[panel.curve_name("UCB1")][0]
    assert cached.horizon == 2000 and cached.runs == 20
    panel.toggles["D-UCB"].value = True  # simulates D-UCB only
    try:
        assert panel.recomputed == ["D-UCB"] and panel.budget.partial == (700, 10, 2000, 20)
        for name in ("UCB1", "D-UCB", UNIFORM, YOUR_POLICY):
            t, _ = panel.regret.curve(name)
            assert 650 < t[-1] <= 700, (name, t[-1])
        shown = panel._drawn[0].curves[panel.curve_name("UCB1")][0]
        assert shown.runs == 10 and shown.notes["cut"] == (700, 10)
        keep = cached.times <= 700  # exactly the first runs, at the steps shown
        assert np.array_equal(shown.regret["UCB1"], cached.regret["UCB1"][:10, keep])
        assert np.array_equal(panel.regret.curve("UCB1")[1], cached.regret["UCB1"][:10, keep].mean(axis=0))
        assert panel.race_result.runs == 10 and raced.runs == 20
        assert "at T = 700 (of 2,000), over the first 10 of 20 runs so far" in panel.race_message
    finally:
        assert panel.budget.wait(120)
    assert np.array_equal(panel.regret.curve("UCB1")[1], cached.mean("UCB1"))  # the full result again
    from delaylab.panels.results import cut
    assert cut(cached, 2000, 20) is cached
