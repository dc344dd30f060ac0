"""The vectorised Exp3, DEW, Skipper and Doubling give exactly the runs of plain per-run loops.

tests/oracles/thune2019.py implements the four algorithms from the paper's pseudo-code, one
run at a time with ``math``, Python lists and its own calendar, fed the same uniforms. Equality
of whole regret trajectories checks the batching, the calendar, the stored p_s(A_s), Skipper's
filter and the epochs of Doubling.
"""


import numpy as np
import pytest

import delaylab as dl
from delaylab.settings import sequences as sq

from oracles.thune2019 import plain_simulate

T, RUNS, SEED = 700, [0, 2, 5], 13


def instances():
    L3 = sq.switching_losses(T, n_arms=3, gap=0.4, phases=4, seed=3)
    L2 = sq.bernoulli_losses([0.3, 0.6], T, seed=4)
    yield "fixed", L3, sq.fixed_delays(T, 7), None
    yield "spiked", L2, sq.spiked_delays(T, 10, spike=T // 2, base=2, seed=1), None
    yield "example8", L2, sq.example8_delays(T, 2), None
    yield "law", L3, None, dl.Geometric(12)


CASES = [("Exp3", {}), ("Exp3", {"eta": 0.3}), ("DEW", {"eta": 0.2, "dmax": 3}), ("DEW", {"eta": 0.05}),
         ("Skipper", {"beta": 9.5}), ("Skipper", {"beta": 30}), ("Doubling", {})]


@pytest.mark.parametrize("name, losses, delays, law", list(instances()), ids=lambda x: x if isinstance(x, str) else "")
def test_engine_equals_plain_loop(name, losses, delays, law):
    env = dl.AdversarialLosses(losses, law if law is not None else delays, reveal="at_action")
    pols = {f"{a} {p}": getattr(dl, a)(**p) for a, p in CASES}
    res = dl.simulate(env, pols, horizon=T, runs=RUNS, seed=SEED)
    for (a, p), key in zip(CASES, pols):
        ref = plain_simulate(a, losses, delays, T, RUNS, SEED, law=law, **p)
        np.testing.assert_array_equal(res.regret[key], ref, err_msg=key)
