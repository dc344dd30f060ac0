"""Issue 17, part 1: each bad input found by hand gets a ValueError naming the parameter, the
value and the valid range, before any work (each of these was silent or unclear before)."""

import numpy as np
import pytest

import delaylab as dl

LAW = dl.Geometric(10)
ENV = dl.Conversions([0.2, 0.1], LAW)


def _no_work():
    """A progress callable that fails the test if any step was simulated."""
    def progress(fraction):
        raise AssertionError(f"work started ({fraction:.0%}) before the error")
    return progress


@pytest.mark.parametrize("entry", [dl.simulate, dl.sweep], ids=["simulate", "sweep"])
@pytest.mark.parametrize("kwargs, pattern", [
    (dict(checkpoints=10.0), r"checkpoints must be None, a whole number n .*list of whole times in \[1, 20\]; got 10"),
    (dict(checkpoints="10"), r"checkpoints must be None, a whole number n .* in \[1, 20\]; got '10'"),
    (dict(checkpoints=[1.5, 2.5]), r"checkpoints\[0\] = 1.5 is not a whole time; checkpoints are steps in \[1, 20\]"),
    (dict(checkpoints=[5, 3]), r"checkpoints must be strictly increasing times in \[1, 20\]"),
    (dict(checkpoints=[True, 2]), r"checkpoints must be whole times in \[1, 20\]"),
    (dict(checkpoints=[3, 30]), r"checkpoints\[1\] = 30 is outside the valid range \[1, 20\]"),
    (dict(checkpoints=True), r"checkpoints must be None, a whole number"),
    (dict(progress="bar"), r"progress must be None.*got 'bar'"),
    (dict(trace="yes"), r"trace must be True or False; got 'yes'"),
    (dict(keep="mean"), r"keep must be one of \['all', 'summary'\]; got 'mean'"),
    (dict(keep="summary", trace=True), r"trace=True .* needs keep='all'"),
])
def test_simulate_and_sweep_arguments(entry, kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        entry(ENV, dl.UCB1(), 20, runs=3, **({"progress": _no_work()} | kwargs))


@pytest.mark.parametrize("make, pattern", [
    (lambda: LAW.ppf(1.5), r"u = 1.5 is outside the valid range \[0, 1\]"),
    (lambda: LAW.ppf(-0.2), r"u = -0.2 is outside the valid range \[0, 1\]"),
    (lambda: LAW.ppf([0.5, float("nan")]), r"u\[1\] = nan is not a finite number; valid range \[0, 1\]"),
    (lambda: LAW.sample(-3), r"size = -3 is outside the valid range \[0, 100000000\]"),
    (lambda: LAW.sample(2.5), r"size must be a whole number in \[0, 100000000\]; got 2.5"),
    (lambda: LAW.sample((4, -1)), r"size\[1\] = -1 is outside the valid range"),
    (lambda: LAW.sample(10**9), r"size = 1000000000 is outside the valid range \[0, 100000000\]"),
    (lambda: LAW.sample(3, seed=-1), r"seed = -1 is outside the valid range \[0, "),
    (lambda: LAW.cdf("3"), r"d must be a number or an array of numbers; got '3'"),
    (lambda: LAW.sf(float("nan")), r"d = nan is not a number"),
    (lambda: LAW.table(-1), r"n = -1 is outside the valid range"),
    # not non-increasing between the points the old check probed (0, 1, 2, 5, 10, 100, …)
    (lambda: dl.SurvivalLaw(lambda m: 0.9 ** m + 0.3 * ((m >= 30) & (m < 40))),
     r"sf must be non-increasing in m \(valid: sf\(m \+ 1\) ≤ sf\(m\) ≤ 1\); got sf\(29\) = 0.04.* < sf\(30\) = 0.34"),
    (lambda: dl.SurvivalLaw(lambda m: np.where(m > 1e6, 1.5, 0.5)), r"sf must return probabilities in \[0, 1\]"),
    (lambda: dl.Empirical([0, 1], [1, 1e300]), r"delays\[-1\] / scale = 1e\+300 / 1 = 1e\+300 steps is outside the valid range \[0, 1e\+08\]"),
    (lambda: dl.Empirical([0, 0.5, 1], [1, 10, 1e30], log=False), r"delays\[-1\] / scale .* outside the valid range"),
    (lambda: dl.Empirical([0, 1], [1, 100], scale=1e-300), r"steps is outside the valid range"),
])
def test_delay_laws(make, pattern):
    with pytest.raises(ValueError, match=pattern):
        make()


def test_huge_but_valid_empirical_law_has_exact_moments_in_bounded_memory():
    law = dl.Empirical([0, 1], [0, 3 * 10**7], log=False)  # uniform on [0, 3·10⁷) steps
    assert law.mean == pytest.approx((3 * 10**7 - 1) / 2, rel=1e-9)


def test_dew_keeps_the_probabilities_of_pending_pulls_only():
    """DEW's p_s(A_s) are kept for the setting's span (longest delay + 1), not the horizon, and the
    runs are the same as with a horizon-long table (span = horizon)."""
    from delaylab.policies.base import Problem
    from delaylab.streams import Batch

    T, delays = 400, np.tile([0, 3, 1, 5, 2], 80)
    env = dl.AdversarialLosses(np.random.default_rng(0).random((T, 3)), delays)
    problem = Problem(n_arms=3, horizon=T, feedback="adversarial", window=None, dim=None,
                      batch=Batch(np.arange(4)), seed=0, span=env.span(T))
    assert dl.DEW(eta=0.3).start(problem)._p_pull.shape == (6, 4)
    short = dl.simulate(env, dl.DEW(eta=0.3), T, 4, seed=2)

    class FullTable(dl.DEW):  # the old layout: one row per step of the horizon
        def reset(self, problem):
            super().reset(Problem(**{**problem.__dict__, "span": None}))

    full = dl.simulate(env, FullTable(eta=0.3), T, 4, seed=2)
    np.testing.assert_array_equal(short.regret["DEW"], full.regret["FullTable"])
