"""The vectorised engine gives exactly the runs of a plain per-run loop of Patient Bandits and
Adapt-Patient Bandits (tests/oracles/manegueu2020.py) fed the same draws, on instances other
than the paper's: whole regret trajectories exactly, and the α_t used at every step."""


import numpy as np
import pytest

import delaylab as dl

from oracles.manegueu2020 import plain_simulate

INSTANCES = [
    ([0.3, 0.5, 0.45], [dl.Pareto(0.5), dl.ScaledPareto(0.2, 0.5), dl.Geometric(20)]),
    ([0.7, 0.2], [dl.ScaledPareto(0.6, 0.9), dl.Pareto(0.1)]),
    ([0.4, 0.42, 0.38, 0.45], [dl.Fixed(0), dl.Pareto(2.0), dl.Uniform(0, 40), dl.Pareto(0.3)]),
]


@pytest.mark.parametrize("means, laws", INSTANCES)
@pytest.mark.parametrize("name, params", [
    ("Patient Bandits", dict(alpha=0.25)),
    ("Patient Bandits", dict(alpha=0.02)),
    ("Patient Bandits", dict(alpha=0.3, bias=0.0)),
    ("Adapt-Patient Bandits", dict()),
    ("Adapt-Patient Bandits", dict(c=0.9, alpha_low=0.5, mu_low=0.3, confidence=0.0)),
    ("Adapt-Patient Bandits", dict(c=1.0, alpha_low=0.3, mu_low=0.9, confidence=0.1)),
])
def test_engine_equals_plain_loop(means, laws, name, params):
    T, runs = 700, [0, 4, 9]
    pol = dl.PatientBandits(**params) if name == "Patient Bandits" else dl.AdaptPatientBandits(**params)
    res = dl.simulate(dl.Conversions(means, delays=laws), {name: pol}, T, runs, seed=13, trace=True)
    ref, alphas = plain_simulate(name, means, laws, T, runs, seed=13, **params)
    np.testing.assert_array_equal(res.regret[name], ref)
    if name == "Adapt-Patient Bandits":
        # α_t to the last bit but for numpy's and math's log (≤ 1 ulp apart)
        np.testing.assert_allclose(res.traces[name]["alpha"], alphas, rtol=1e-14, atol=0)


def test_the_estimate_moves_in_the_compared_runs():
    """The equality above is not vacuous: with these constants α_t varies within a run."""
    means, laws = INSTANCES[0]
    _, alphas = plain_simulate("Adapt-Patient Bandits", means, laws, 700, [0, 4, 9], seed=13,
                               c=1.0, alpha_low=0.3, mu_low=0.9, confidence=0.1)
    assert len(np.unique(alphas)) > 20
