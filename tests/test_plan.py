"""delaylab.plan.Plan: the checked arguments shared by simulate, estimate and sweep."""

import numpy as np
import pytest

import delaylab as dl
from delaylab.plan import Plan


def grid_problem():
    g = dl.grid(gap=[0.05, 0.2], mean=[10.0, 60.0])
    law = dl.Geometric(mean=g.mean)
    env = dl.Conversions(np.stack([0.3 + g.gap, np.full(g.size, 0.3)], axis=1), law, window=80)
    return env, [dl.DelayedUCB(law, 80), dl.UniformRandom(), dl.UniformRandom()], g


def test_a_plan_holds_the_checked_arguments():
    env, pols, g = grid_problem()
    plan = Plan.of(env, pols, 200.0, [4, 1, 3], np.int64(7), 5, g, trace=np.bool_(True))
    assert list(plan.policies) == ["D-UCB", "UniformRandom", "UniformRandom (2)"]
    assert plan.horizon == 200 and plan.seed == 7 and plan.trace is True and plan.keep == "all"
    assert plan.run_ids.tolist() == [4, 1, 3] and plan.times.tolist() == [40, 80, 120, 160, 200]
    assert plan.cells == 4 and plan.shape == (2, 2) and plan.columns == 12
    assert plan.result_bytes("summary") < plan.result_bytes("all")
    problem = plan.problem(dl.streams.Batch(plan.run_ids[:1], plan.cells))
    assert (problem.horizon, problem.seed, problem.n_arms, problem.batch.size) == (200, 7, 2, 4)


def test_per_cell_parameters_without_a_grid_give_one_axis():
    env = dl.Conversions(np.array([[0.5, 0.3], [0.4, 0.35], [0.6, 0.1]]), dl.Geometric(10))
    plan = Plan.of(env, dl.UCB1(), 50, 2, 0, None, None)
    assert plan.cells == 3 and plan.shape == (3,) and len(plan.times) == 50
    single = Plan.of(dl.Conversions([0.5, 0.3], dl.Geometric(10)), dl.UCB1(), 50, 2, 0, None, None)
    assert single.cells == 1 and single.shape == ()


def test_the_arguments_a_sweep_sends_reproduce_the_plan():
    """sweep sends plan.arguments() to its workers with each chunk's runs: simulate must get the
    same plan back, hence the same runs."""
    env, pols, g = grid_problem()
    kw = dict(horizon=60, runs=[2, 0], seed=1, checkpoints=[10, 60], trace=True, grid=g)
    plan = Plan.of(env, pols, kw["horizon"], kw["runs"], kw["seed"], kw["checkpoints"], g, trace=True)
    direct = dl.simulate(env, pols, **kw)
    again = dl.simulate(**plan.arguments(), runs=plan.run_ids)
    assert again.names == direct.names and again.grid_shape == direct.grid_shape == (2, 2)
    for name in direct.names:
        assert np.array_equal(again.regret[name], direct.regret[name])
        assert again.traces[name].keys() == direct.traces[name].keys()


def test_the_trace_budget_names_the_policy_and_returns_the_recorded_shapes():
    env, pols, g = grid_problem()
    plan = Plan.of(env, pols, 100, 10, 0, 100, g, trace=True)
    snapshot = {"n": np.zeros((4, 2)), "s": np.zeros((4, 2))}  # 32 bytes per column
    assert plan.check_trace("D-UCB", snapshot, 4, budget=32 * 40 * 100) == {"n": (2,), "s": (2,)}
    with pytest.raises(ValueError, match=r"trace=True would record the state of 'D-UCB' at 100 times: .*checkpoints"):
        plan.check_trace("D-UCB", snapshot, 4, budget=32 * 40 * 100 - 1)
