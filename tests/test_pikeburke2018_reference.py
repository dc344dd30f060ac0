"""The vectorised ODAAF family, Improved UCB and QPM-D give exactly the runs of plain per-run
loops written from the pseudo-code (tests/oracles/pikeburke2018.py), fed the same draws."""


import numpy as np
import pytest

import delaylab as dl

from oracles.pikeburke2018 import plain_simulate


@pytest.mark.parametrize("theta, law, T", [
    ([0.6, 0.3], dl.Uniform(0, 20), 6000),
    ([0.5, 0.4, 0.2], dl.Poisson(8.0), 9000),
    ([0.3, 0.35], dl.Geometric(5.0), 3000),
])
def test_phased_policies_equal_plain_loops(theta, law, T):
    mu, var = float(law.mean), float(law.var)
    bound = 20.0 if isinstance(law, dl.Uniform) else 3 * mu
    runs = [0, 2, 5]
    pols = {"ODAAF": dl.ODAAF(mean_delay=mu), "ODAAF-B": dl.ODAAFB(mean_delay=mu, bound=bound),
            "ODAAF-V": dl.ODAAFV(mean_delay=mu, variance=var)}
    res = dl.simulate(dl.AggregatedAnonymous(theta, law), pols, T, runs, seed=7)
    known = {"ODAAF": dict(mean_delay=mu), "ODAAF-B": dict(mean_delay=mu, bound=bound),
             "ODAAF-V": dict(mean_delay=mu, variance=var)}
    for name in pols:
        ref = plain_simulate(name, theta, law, T, runs, seed=7, **known[name])
        np.testing.assert_array_equal(res.regret[name], ref, err_msg=name)
    ref = plain_simulate("Improved UCB", theta, law, T, runs, seed=7)
    for env in (dl.LabelledRewards(theta, dl.Fixed(0)), dl.AggregatedAnonymous(theta, dl.Fixed(0))):
        res = dl.simulate(env, dl.ImprovedUCB(), T, runs, seed=7)
        np.testing.assert_array_equal(res.regret["Improved UCB"], ref, err_msg=env.label)


@pytest.mark.parametrize("theta, law", [([0.6, 0.5], dl.Poisson(10.0)), ([0.4, 0.3, 0.25], dl.Uniform(0, 30)),
                                        ([0.5, 0.45], dl.Fixed(0))])
def test_qpmd_equals_plain_loop(theta, law):
    T, runs = 3000, [1, 3, 4]
    res = dl.simulate(dl.LabelledRewards(theta, law), dl.QPMD(dl.UCB1()), T, runs, seed=3)
    np.testing.assert_array_equal(res.regret["QPM-D"], plain_simulate("QPM-D", theta, law, T, runs, seed=3))


@pytest.mark.parametrize("theta, law, T", [([0.6, 0.3], dl.Uniform(0, 20), 6000), ([0.5, 0.45, 0.0], dl.Poisson(8.0), 9000)])
def test_bridges_switched_on_and_off_equal_plain_loops(theta, law, T):
    """ODAAF with bridge periods, ODAAF-B and ODAAF-V without: each differs from the paper's variant in
    the bridges alone, and equals the plain loop with that one switch turned."""
    mu, var, bound = float(law.mean), float(law.var), 20.0
    runs = [0, 3]
    pols = {"ODAAF": dl.ODAAF(mean_delay=mu, bridge=True), "ODAAF-B": dl.ODAAFB(mean_delay=mu, bound=bound, bridge=False),
            "ODAAF-V": dl.ODAAFV(mean_delay=mu, variance=var, bridge=False)}
    res = dl.simulate(dl.AggregatedAnonymous(theta, law), pols, T, runs, seed=5)
    known = {"ODAAF": dict(mean_delay=mu), "ODAAF-B": dict(mean_delay=mu, bound=bound),
             "ODAAF-V": dict(mean_delay=mu, variance=var)}
    for name, policy in pols.items():
        ref = plain_simulate(name, theta, law, T, runs, seed=5, bridge=policy.bridges, **known[name])
        np.testing.assert_array_equal(res.regret[name], ref, err_msg=name)
        other = plain_simulate(name, theta, law, T, runs, seed=5, bridge=not policy.bridges, **known[name])
        assert not np.array_equal(res.regret[name], other), name  # the switch changes the runs
