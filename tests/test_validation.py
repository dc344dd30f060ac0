"""Bad input to settings and to simulate: a ValueError naming the parameter, the value and the
valid range, raised at the point of entry."""

import numpy as np
import pytest

import delaylab as dl

LAW = dl.Geometric(10)
OK = dict(means=[0.2, 0.1], delays=LAW)


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(OK, means=[0.2, -0.1]), r"means\[1\] = -0.1 is outside the valid range \[0, 1\]"),
    (dict(OK, means=[0.2, 1.5]), r"means\[1\] = 1.5 is outside the valid range \[0, 1\]"),
    (dict(OK, means=[float("nan"), 0.1]), r"means\[0\] = nan is not a finite number; valid range \[0, 1\]"),
    (dict(OK, means=[0.3]), r"means must list at least 2 arms; got 1"),
    (dict(OK, means="0.1, 0.2"), r"means must be a number or an array of numbers"),
    (dict(OK, window=-5), r"window = -5 is outside the valid range \[0, ∞\)"),
    (dict(OK, window=2.5), r"window must be a whole number in \[0, ∞\); got 2.5"),
    (dict(OK, delays=[LAW, LAW, LAW]), r"delays must be one delay law or a list of 2 laws \(one per arm\); got a list of 3"),
    (dict(OK, delays=500), r"delays must be a delay law such as delaylab.Geometric\(mean=500\); got 500"),
    (dict(OK, delays=[LAW, "x"]), r"delays\[1\] must be a delay law"),
    (dict(means=[[0.2, 0.1]] * 3, delays=dl.Geometric([1.0, 2.0])),
     r"per-cell parameters must all have the same number of grid cells; means has 3, delays\[0\] has 2"),
])
@pytest.mark.parametrize("cls", [dl.Conversions, dl.LabelledRewards, dl.AggregatedAnonymous])
def test_bernoulli_settings(cls, kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        cls(**kwargs)


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(horizon=0), r"horizon = 0 is outside the valid range \[1, 100000000\]"),
    (dict(horizon=10.5), r"horizon must be a whole number"),
    (dict(runs=0), r"runs = 0 is outside the valid range \[1, 10000000\]"),
    (dict(runs=[-1, 2]), r"run indices must be distinct and ≥ 0"),
    (dict(runs=[1, 1]), r"run indices must be distinct"),
    (dict(runs="many"), r"runs must be a number of runs ≥ 1 or a sequence of run indices"),
    (dict(seed=-1), r"seed = -1 is outside the valid range"),
    (dict(checkpoints=[0, 5]), r"checkpoints\[0\] = 0 is outside the valid range \[1, 20\]"),
    (dict(policies={}), r"policies must not be empty"),
    (dict(policies={"x": "UCB1"}), r"policies\['x'\] must be a delaylab policy"),
    (dict(setting="conversions"), r"setting must be a delaylab setting"),
    (dict(policies=dl.UCB1(c=[1.0, 2.0, 3.0])), r"simulate: per-cell parameters .* setting has 2, UCB1.c has 3|UCB1.c has 3"),
])
def test_simulate_arguments(kwargs, pattern):
    args = dict(setting=dl.Conversions(means=[[0.2, 0.1], [0.3, 0.1]], delays=LAW), policies=dl.UCB1(),
                horizon=20, runs=3)
    args.update(kwargs)
    with pytest.raises(ValueError, match=pattern):
        dl.simulate(**args)


@pytest.mark.parametrize("make, pattern", [
    (lambda: dl.LinearConversions([0.9, 0.9], LAW), r"theta must have norm ‖θ‖ ≤ 1; got ‖θ‖ = 1.273"),
    (lambda: dl.LinearConversions([], LAW), r"theta must not be empty"),
    (lambda: dl.LinearConversions([0.5, 0.5], LAW, n_actions=1), r"n_actions = 1 is outside the valid range \[2, 10000\]"),
    (lambda: dl.LinearConversions([0.5, -0.5], LAW), r"binary action sets need theta ≥ 0"),
    (lambda: dl.LinearConversions([0.5, 0.5], LAW, action_sets=np.ones((3, 2))), r"shape \(n_actions, d\) = \(10, 2\)"),
    (lambda: dl.LinearConversions([0.5, 0.5], "slow"), r"delays must be a delay law"),
    (lambda: dl.AdversarialLosses(np.full((5, 2), 1.5), [0] * 5), r"losses\[0, 0\] = 1.5 is outside the valid range \[0, 1\]"),
    (lambda: dl.AdversarialLosses(np.full((5, 1), 0.5), [0] * 5), r"at least 2 columns"),
    (lambda: dl.AdversarialLosses(np.full((5, 2), 0.5), [0, 1, -2, 0, 0]), r"delays\[2\] = -2 is outside the valid range \[0, ∞\]"),
    (lambda: dl.AdversarialLosses(np.full((5, 2), 0.5), [0, 1]), r"one delay per round: 5 needed, got 2"),
    (lambda: dl.AdversarialLosses(np.full((5, 2), 0.5), [0] * 5, reveal="later"), r"reveal must be one of \['at_action', 'with_loss'\]"),
    (lambda: dl.grid(), r"at least one named axis"),
])
def test_other_settings(make, pattern):
    with pytest.raises(ValueError, match=pattern):
        make()


@pytest.mark.parametrize("make, pattern", [
    (lambda: dl.Geometric(mean=float("inf")), r"mean = inf is not a finite number; valid range \(0, ∞\)"),
    (lambda: dl.Pareto(alpha=float("inf")), r"alpha = inf is not a finite number"),
    (lambda: dl.Uniform(0, float("inf")), r"high = inf is not a finite number"),
    (lambda: dl.Conversions([0.2, 0.1], dl.Geometric(10), window=float("inf")), r"window must be a whole number"),
])
def test_infinite_values_are_refused_where_they_make_no_sense(make, pattern):
    with pytest.raises(ValueError, match=pattern):
        make()


@pytest.mark.parametrize("policy, pattern", [
    (dl.DelayedUCB(LAW, 10, eps=float("inf")), r"eps = inf is not a finite number"),
    (dl.UCB1(c=float("inf")), r"c = inf is not a finite number"),
    (dl.DelayedUCB(dl.OnlineGeometric(initial_mean=float("inf")), None), r"initial_mean = inf"),
])
def test_infinite_hyperparameters_are_refused(policy, pattern):
    with pytest.raises(ValueError, match=pattern):
        dl.simulate(dl.Conversions([0.2, 0.1], LAW), policy, horizon=10, runs=1)


def test_infinite_delay_means_never():
    assert dl.Fixed(float("inf")).ppf(0.3) == dl.NEVER
    env = dl.AdversarialLosses(np.full((4, 2), 0.5), [0, float("inf"), 1, 0])
    assert env.span(4) >= 1


def test_trace_memory_is_bounded_before_any_step(monkeypatch):
    import delaylab.engine as engine

    monkeypatch.setattr(engine, "TRACE_BUDGET", 10_000)
    with pytest.raises(ValueError, match=r"trace=True would record the state of 'D-UCB' at 500 times.*checkpoints"):
        dl.simulate(dl.Conversions([0.2, 0.1], LAW, 50), {"D-UCB": dl.DelayedUCB(LAW, 50)}, horizon=500,
                    runs=20, trace=True)


def test_a_policy_choosing_an_invalid_arm_is_reported():
    class Broken(dl.RoundRobin):
        def choose(self, t, context=None):
            return super().choose(t, context) - 1  # arm −1 at t = 0

    with pytest.raises(ValueError, match=r"Broken chose arm -1; arms are 0 … 1"):
        dl.simulate(dl.Conversions([0.2, 0.1], LAW), Broken(), horizon=10, runs=2)

    class TooFar(dl.RoundRobin):
        def choose(self, t, context=None):
            return super().choose(t, context) + 2

    with pytest.raises(ValueError, match=r"TooFar chose an arm outside 0 … 1 at step 0"):
        dl.simulate(dl.Conversions([0.2, 0.1], LAW), TooFar(), horizon=10, runs=2)
