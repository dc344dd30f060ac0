"""The vectorised engine gives exactly the runs of a plain per-run loop fed the same draws.

tests/oracles/vernade2017.py implements the six policies of Vernade et al. (2017) one run at a time with
``math`` and Python lists: its own calendar (a dict of arrival steps), its own counts. Equality
of whole regret trajectories checks the engine's batching, calendar, censoring and bookkeeping.
"""


import numpy as np
import pytest

import delaylab as dl

from oracles.vernade2017 import ALGORITHMS, plain_simulate


def engine_policy(name, law, m):
    if name.endswith("without Ñ"):  # the live panel's policy of that name
        from delaylab.panels.conversions import make_policy
        return make_policy(name, law, m)
    return {"UCB1": dl.UCB1(), "KL-UCB": dl.KLUCB(), "D-UCB": dl.DelayedUCB(law, m),
            "D-KLUCB": dl.DelayedKLUCB(law, m), "Discarding UCB": dl.DiscardingUCB(law, m),
            "Discarding KL-UCB": dl.DiscardingKLUCB(law, m)}[name]


@pytest.mark.parametrize("theta, mu, window", [
    ([0.3, 0.2, 0.1], 30.0, 50),
    ([0.3, 0.2, 0.1], 30.0, None),
    ([0.3, 0.2, 0.1], 30.0, 0),
    ([0.05, 0.04, 0.03, 0.02], 200.0, 400),
    ([0.6, 0.55], 5.0, 7),
])
def test_engine_equals_plain_loop(theta, mu, window):
    law, T, runs = dl.Geometric(mu), 1500, [0, 3, 4, 11]
    names = [a for a in ALGORITHMS if window is not None or not a.startswith("Discarding")]
    res = dl.simulate(dl.Conversions(theta, law, window=window),
                      {n: engine_policy(n, law, window) for n in names}, horizon=T, runs=runs, seed=21)
    for n in names:
        ref = plain_simulate(n, theta, mu, window, T, runs, seed=21)
        np.testing.assert_array_equal(res.regret[n], ref, err_msg=n)


@pytest.mark.parametrize("window", [300, None])
def test_d_ucb_without_n_tilde_is_ucb1_with_the_constant_one_half(window):
    """Notebook 01: D-UCB without Ñ differs from D-UCB in Ñ alone, and from UCB1 in the exploration
    constant alone (1/2 against 2): its runs are UCB1(c = 1/2)'s, step for step."""
    from delaylab.panels.conversions import make_policy

    law = dl.Geometric(100.0)
    s = dl.Conversions([0.3, 0.2, 0.1], law, window=window)
    res = dl.simulate(s, {"without": make_policy("D-UCB without Ñ", law, window), "ucb": dl.UCB1(c=0.5),
                          "ucb1": dl.UCB1()}, 2000, 12, 3)
    np.testing.assert_array_equal(res.regret["without"], res.regret["ucb"])
    assert not np.array_equal(res.regret["without"], res.regret["ucb1"])
