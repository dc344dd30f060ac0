"""The sweep cache's keys are pinned: a cache filled before a change of the engine or the sweep is
still read after it, as long as the problem (setting, policies, horizon, checkpoints, trace, seed,
grid shape, keep) is the same.

The key also holds :func:`delaylab.cache.code_version` (any edit of delaylab's source files
changes it, on purpose); the test holds that part fixed, so what it pins is how a sweep's problem
becomes its key. A key that changes here makes every cache on disk useless: change it only with
the cache's ``FORMAT`` and say so.
"""

import importlib

import numpy as np
import pytest

import delaylab as dl

sweep_mod = importlib.import_module("delaylab.sweep")  # the module (dl.sweep is the function)


def conversions():
    law = dl.Geometric(40)
    env = dl.Conversions([0.5, 0.4, 0.3], law, window=120)
    pols = {"D-KLUCB": dl.DelayedKLUCB(law, 120), "UCB1": dl.UCB1(), "random": dl.UniformRandom(),
            "est": dl.DelayedUCB(dl.OnlineCDF(), 120)}
    return env, pols, dict(horizon=60, runs=3, seed=3, checkpoints=10)


def grid_traced():
    g = dl.grid(gap=[0.05, 0.2], mean=[10.0, 60.0])
    law = dl.Geometric(mean=g.mean)
    env = dl.Conversions(np.stack([0.3 + g.gap, np.full(g.size, 0.3)], axis=1), law, window=80)
    pols = {"D-UCB": dl.DelayedUCB(law, 80, eps=np.linspace(0, 0.3, g.size)), "random": dl.UniformRandom()}
    return env, pols, dict(horizon=40, runs=[2, 0], seed=1, checkpoints=5, trace=True, grid=g)


def summary():
    env, pols, kw = conversions()
    return env, pols, {**kw, "keep": "summary"}


def anonymous_list():
    env = dl.AggregatedAnonymous([0.6, 0.3, 0.2], dl.Geometric(5))
    return env, [dl.ODAAF(mean_delay=5), dl.ODAAF(mean_delay=8), dl.UniformRandom()], dict(horizon=50, runs=2, seed=0)


#: the problem folder of each sweep's cache entries, with code_version() held fixed
KEYS = {
    "conversions": "fb0f7cae1829a6e79dae85efc01f1b27458efd69d29859a0f4066f47aa1626ff",
    "grid_traced": "11a50ee186f2c15b8aefd8f871a5f0c4aff454cf91fc5f89f4bed6631a865bc3",
    "summary": "80cf617441f537f1b9918e876d9a41b1b680c922f3d63578f30c65a7cde3c318",
    "anonymous_list": "8f9625987b333bffa8432412cfc33441cab22b94b46f583300b66cb0273c55fe",
}


@pytest.mark.parametrize("case", sorted(KEYS))
def test_a_sweep_keeps_its_cache_key(case, tmp_path, monkeypatch):
    monkeypatch.setattr(sweep_mod, "code_version", lambda: "pinned")
    env, pols, kw = globals()[case]()
    first = dl.sweep(env, pols, **kw, cache=tmp_path)
    assert first.notes["cached_runs"] == 0
    folders = sorted(p.name for p in tmp_path.iterdir() if p.is_dir())
    assert folders == [KEYS[case]]
    env, pols, kw = globals()[case]()  # new but equal objects: the same key, every run read back
    assert dl.sweep(env, pols, **kw, cache=tmp_path).notes["computed_runs"] == 0
