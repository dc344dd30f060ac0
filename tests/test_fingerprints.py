"""Fingerprints of delay laws, policies and settings stay what they were.

The sweep cache names a problem's folder by its fingerprint (:mod:`delaylab.fingerprints`):
a change of the canonical description would silently orphan every cached sweep. The values
below were computed before fingerprinting moved out of ``cache.py`` and before the delay laws
had :meth:`~delaylab.laws.DelayLaw.get_params`; they must not change.
"""

from __future__ import annotations

import numpy as np
import pytest

import delaylab as dl
from delaylab.cache import fingerprint


def survival(m):
    return 0.7 * (1 + m) ** -0.3


def objects():
    return {
        "geometric": dl.Geometric(mean=3),
        "geometric_cells": dl.Geometric(mean=np.array([2.0, 5.0])),
        "pareto": dl.Pareto(1.0),
        "scaled_pareto": dl.ScaledPareto(0.5, c=0.7),
        "uniform": dl.Uniform(0, 6),
        "fixed": dl.Fixed(2),
        "poisson": dl.Poisson(4.0),
        "halfnormal": dl.HalfNormal(3.0),
        "survival": dl.SurvivalLaw(survival, label="0.7(1+m)^-0.3"),
        "survival_moments": dl.SurvivalLaw(survival, mean=None, var=2.0),
        "empirical": dl.Empirical([0.0, 0.5, 1.0], [1.0, 10.0, 100.0], scale=2.0, log=True, label="emp"),
        "criteo": dl.laws.criteo(),
        "ducb": dl.DelayedUCB(dl.Geometric(mean=3), 5),
        "dklucb_uniform": dl.DelayedKLUCB(dl.Uniform(0, 6), window=5, eps=0.1),
        "ucb1_cells": dl.UCB1(c=np.array([1.0, 2.0])),
        "ducb_per_arm": dl.DelayedUCB([dl.Geometric(mean=3), dl.Pareto(1.0)], 5),
        "odaaf": dl.ODAAF(mean_delay=3),
        "setting": dl.Conversions([0.5, 0.3], dl.Geometric(mean=3), window=5),
        "setting_arm_laws": dl.Conversions([0.5, 0.3], [dl.Geometric(mean=3), dl.SurvivalLaw(survival, label="x")]),
    }


PINNED = {
    "geometric": "afe1dcd189f293546893b3c0ad7bff5f8642d4d91c3eb676dab0a915c23df8e8",
    "geometric_cells": "b7122d63f5aa2a0f286d656c4f0974a96e0365838c9d2ddb2f601867f6d07263",
    "pareto": "573ee85652a003f7dea6bf5398aa66aac692e25d291d4a31779ea9e2ad7b5db9",
    "scaled_pareto": "7646d7b13c9a8bda14b9147bafa3e6b87aaca165bda8dc62d596fbfc3af7b9e2",
    "uniform": "2e8f78e77eb9cb1b7675e2dbd96f770e75dea1ced5d86fbeca3d567d1d019082",
    "fixed": "cfc3d6bd14c3abf85d918903e69889ad95c8cbaee7217b97d4bb3100c0d49982",
    "poisson": "a201e3b15e23b536275fb166e4fb97f52a6b34e7fc40a46a9a4d33070ecad4bc",
    "halfnormal": "f1ed681fb7fb9ce6280eac6c816f8d1e54dead66e1280bbbadfb5da9217b8749",
    "survival": "ece8a48ec60a68aab66b4274b2ff73c87e47f3133fbbba1e4ba770b7ecb24eb0",
    "survival_moments": "62209e6058de49955ff8502c6978aa5fe7c4d7fce70b70a389b8120799396db4",
    "empirical": "6cd9bbb486dac29f9ef6e59231be24eef19df5642503ad1eb5245315cbf22376",
    "criteo": "73edc14d80556954a9ad5404b5c2420e605c6b4a50645fc0d43abbcdf582b0ba",
    "ducb": "d8e8fa9db4a03dc7e1995a9309ccfa8f3770e2dba02f5f7956d0f309fc717e19",
    "dklucb_uniform": "9de81175987bd2ecec7c42e4cce2642b69da888b53b5a0758e01d92c3da62f6a",
    "ucb1_cells": "54a255dbc92116a091168e662470b7f7ee8a5ce1ddd816effa5cfb114cc6b877",
    "ducb_per_arm": "3e20ab92383402a142436f4f04e359612d38e7c059b30d04b96e9adf1952d71b",
    "odaaf": "adcccc7e103012e51b39f782b80b267e46a3370a17569b607bfeb4a28d8792b9",
    "setting": "5f2cf1f8cb0de12f9010b0b5cfb98246344ff6b3ac8cc4944d7f8eaa9b006b02",
    "setting_arm_laws": "df84fddcfe5201a138efa90b9bfd1d63f28941827c89432a943dc94ee961d262",
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_fingerprint_is_unchanged(name):
    assert fingerprint(objects()[name]) == PINNED[name]


LAWS = ["geometric", "geometric_cells", "pareto", "scaled_pareto", "uniform", "fixed", "poisson", "halfnormal",
        "survival", "survival_moments", "empirical", "criteo"]


@pytest.mark.parametrize("name", LAWS)
def test_a_law_is_rebuilt_from_its_params(name):
    """get_params() names the constructor's arguments: the rebuilt law is the same law."""
    law = objects()[name]
    again = type(law)(**law.get_params())
    assert fingerprint(again) == fingerprint(law)
    assert again.label == law.label
    lags = np.arange(40.0) if law.n_cells == 1 else np.arange(40.0)[:, None]
    np.testing.assert_array_equal(again.cdf(lags), law.cdf(lags))


def test_an_unknown_law_is_described_by_all_its_attributes():
    """A law subclass that does not store its parameters the DelayLaw way is still fingerprinted
    (by its attributes), and two of them differ when an attribute differs."""

    class Shifted(dl.Geometric):
        def __init__(self, mean, shift):
            super().__init__(mean)
            self.shift = shift

    assert fingerprint(Shifted(3, 1)) != fingerprint(Shifted(3, 2))
    assert fingerprint(Shifted(3, 1)) == fingerprint(Shifted(3, 1))
