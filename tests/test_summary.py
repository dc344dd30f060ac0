"""Issue 17, part 2: keep="summary" (moments over runs, memory independent of the number of
runs) and the memory estimate that refuses, before any work, a result that cannot fit."""

import numpy as np
import pytest

import delaylab as dl
import delaylab.engine as engine
from delaylab.summary import Moments

LAW = dl.Geometric(8)
ENV = dl.Conversions([[0.3, 0.1], [0.5, 0.2]], LAW, window=30)
POLS = {"D-KLUCB": dl.DelayedKLUCB(LAW, 30), "UCB1": dl.UCB1()}
KW = dict(horizon=200, runs=40, seed=4, checkpoints=25)


@pytest.fixture(scope="module")
def full():
    return dl.simulate(ENV, POLS, **KW)


def _same_summary(a, b):
    for n in POLS:
        np.testing.assert_allclose(a.mean(n), b.mean(n), rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(a.stderr(n), b.stderr(n), rtol=1e-9, atol=1e-9)
        for x, y in zip(a.band(n), b.band(n)):
            np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(a.mean_pulls(n), b.mean_pulls(n), rtol=1e-12)


def test_summary_equals_the_full_arrays(full, monkeypatch):
    monkeypatch.setattr(engine, "MEMORY_BUDGET", 200_000)  # several chunks, merged
    res = dl.simulate(ENV, POLS, **KW, keep="summary")
    assert res.mean("UCB1").shape == (2, 25) and res.summary["UCB1"]["regret"].n == 40
    _same_summary(res, full)


@pytest.mark.parametrize("chunk_runs", [1, 7, 40])
def test_sweep_summary_equals_the_full_arrays_whatever_the_chunks_and_the_cache(full, tmp_path, chunk_runs):
    first = dl.sweep(ENV, POLS, **KW, keep="summary", chunk_runs=chunk_runs, cache=tmp_path)
    _same_summary(first, full)
    again = dl.sweep(ENV, POLS, **KW, keep="summary", chunk_runs=3, cache=tmp_path)  # merged cached moments
    assert again.notes["cached_runs"] == 40
    _same_summary(again, full)


def test_summary_memory_does_not_grow_with_the_runs():
    small = dl.simulate(ENV, POLS, 50, 4, checkpoints=10, keep="summary")
    large = dl.simulate(ENV, POLS, 50, 400, checkpoints=10, keep="summary")
    size = [sum(m.mean.nbytes + m.m2.nbytes for d in r.summary.values() for m in d.values()) for r in (small, large)]
    assert size[0] == size[1]


def test_per_run_accessors_explain_what_summary_mode_lacks():
    res = dl.simulate(ENV, POLS, 50, 4, keep="summary")
    for get in (lambda: res.final("UCB1"), lambda: res.at("UCB1", 10), lambda: res.regret["UCB1"],
                lambda: res.pulls["UCB1"]):
        with pytest.raises(ValueError, match=r"needs each run's values.*keep='summary'.*res.mean\(name\).*keep='all'"):
            get()
    assert res.names == list(POLS) and "summary" in repr(res)


def test_moments_merge_is_chan_exact():
    x = np.random.default_rng(1).normal(size=(3, 101))
    parts = [Moments.of(x[:, a:b], axis=1) for a, b in [(0, 1), (1, 40), (40, 101)]]
    m = parts[0].merge(parts[1]).merge(parts[2])
    np.testing.assert_allclose(m.mean, x.mean(axis=1), rtol=1e-13)
    np.testing.assert_allclose(m.var(), x.var(axis=1, ddof=1), rtol=1e-12)


@pytest.mark.parametrize("entry", [dl.simulate, dl.sweep])
def test_a_result_too_big_for_memory_is_refused_before_any_work(entry, monkeypatch):
    monkeypatch.setenv("DELAYLAB_MEMORY", "1M")

    def progress(f):
        raise AssertionError("work started")

    # 2 policies × 2 cells × 1000 runs × 300 times × 8 bytes ≈ 9.2 MiB > 1 MiB (sweep: twice, while assembling)
    with pytest.raises(ValueError, match=r"would hold \d+\.\d MiB of results, more than the 1.0 MiB of memory "
                                         r"available now; pass keep='summary' \(.*: 18.\d KiB, whatever the number of "
                                         r"runs\) or fewer checkpoints \(e.g. checkpoints=200\)"):
        entry(ENV, POLS, 300, 1000, progress=progress)
    res = entry(ENV, POLS, 300, 1000, checkpoints=20, keep="summary")  # the way out
    assert res.mean("UCB1").shape == (2, 20)


def test_estimate_before_running_memory_exact_and_time_from_a_pilot():
    law = dl.Geometric(50)
    env = dl.Conversions([0.5, 0.4, 0.3], law, window=100)
    pols = {"D-UCB": dl.DelayedUCB(law, 100), "UCB1": dl.UCB1()}
    est = dl.estimate(env, pols, 3000, 40, checkpoints=50)
    res = dl.simulate(env, pols, 3000, 40, checkpoints=50)
    held = sum(res.regret[n].nbytes + res.pulls[n].nbytes for n in pols)
    assert est["bytes"] == held
    assert est["summary_bytes"] == dl.estimate(env, pols, 3000, 4000, checkpoints=50, pilot=0.01)["summary_bytes"]
    assert est["summary_bytes"] < est["bytes"]
    assert 0 < est["seconds"] < float("inf") and 1 <= est["pilot"]["steps"] <= 3000 and est["pilot"]["runs"] <= 32
    for bad in (0, -1, float("nan"), "fast"):
        with pytest.raises(ValueError, match="pilot"):
            dl.estimate(env, pols, 3000, 40, pilot=bad)
    with pytest.raises(ValueError, match="horizon"):
        dl.estimate(env, pols, 0, 40)
