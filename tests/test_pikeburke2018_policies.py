"""ODAAF, ODAAF-B, ODAAF-V, Improved UCB and QPM-D (Pike-Burke et al. 2018): phase sizes on
hand-computed values, phase / bridge / elimination bookkeeping, the engine's block path, batch
independence, bad input."""

import math

import numpy as np
import pytest

import delaylab as dl
from delaylab import engine
from delaylab.policies.improved_ucb import improved_ucb_sizes
from delaylab.policies.odaaf import n_phases, odaaf_b_binding_bound, odaaf_b_sizes, odaaf_sizes, odaaf_v_sizes


# ----------------------------------------------------------------------------- phase sizes
def test_odaaf_sizes_by_hand():
    # T = 10^4, E[τ] = 10. m = 1: Δ̃ = 1/2, L = log 2500 = 7.82405; √(2L) = 3.95576;
    # 2L + (8/3)(1/2)L + 6(1/2)(1)(10) = 15.64809 + 10.43206 + 30 = 56.08015, √ = 7.48867;
    # (3.95576 + 7.48867)² / (1/4) = 523.90 → 524.
    # m = 2: Δ̃ = 1/4, L = log 625 = 6.43775; last term 6(1/4)(2)(10) = 30 → 1749.28 → 1750.
    assert odaaf_sizes([1, 2], 10**4, 10.0).tolist() == [524, 1750]
    # no delay: (√(2L) + √(2L + (4/3)L))² · 4 = (3.95576 + 5.10728)² · 4 = 328.5 → 329
    assert odaaf_sizes(1, 10**4, 0.0) == 329


def test_odaaf_v_and_b_sizes_by_hand():
    # ODAAF-V, E = V = 10: m = 1: last term 4(1/2)(10 + 20) = 60 → 700.52 → 701;
    # m = 2: 4(1/4)(30) = 30, the same as ODAAF's m = 2 → 1750
    assert odaaf_v_sizes([1, 2], 10**4, 10.0, 10.0).tolist() == [701, 1750]
    # ODAAF-B, E = 10: n'_1 = 462 (last term 4(1/2)10 = 20), n'_2 = 1240 (last term 10).
    # d = 20: d̃_m = min(20, n_m/m) = 20, m d̃_m = 20, 40 < n'_m → n = n'
    assert odaaf_b_sizes([1, 2], 10**4, 10.0, 20.0).tolist() == [462, 1240]
    # d = 1000: d̃_1 = min(1000, 524) → 524; d̃_2 = min(1000, 1750/2) = 875 → 2·875 = 1750
    assert odaaf_b_sizes([1, 2], 10**4, 10.0, 1000.0).tolist() == [524, 1750]


def test_the_bound_matters_to_odaaf_b_only_above_the_binding_threshold():
    # T = 10^4, E = 10 (numbers above): n'_m / m = 462, 620, ... and ODAAF's n_1 = 524 > 462, so
    # phase 1 is the first to bind, at d > 462; every d up to 462 gives the same phases
    assert odaaf_b_binding_bound(10**4, 10.0) == 462.0
    m = np.arange(1, n_phases(10**4) + 1)
    assert odaaf_b_sizes(m, 10**4, 10.0, 10.0).tolist() == odaaf_b_sizes(m, 10**4, 10.0, 462.0).tolist()
    assert odaaf_b_sizes(m, 10**4, 10.0, 463.0)[0] == 463
    # E = 0: ODAAF's n_m equals n'_m, so no phase can ever bind
    assert odaaf_b_binding_bound(10**4, 0.0) == float("inf")


def test_improved_ucb_sizes_and_number_of_phases():
    # n_m = ⌈2 log(TΔ̃²)/Δ̃²⌉: T = 10^4, m = 0: 2 log 10^4 = 18.42 → 19; m = 1: 8 log 2500 = 62.59 → 63
    assert improved_ucb_sizes([0, 1], 10**4).tolist() == [19, 63]
    # M = ⌊½ log₂(T/e)⌋: T = 10^4 → ⌊½ · 11.85⌋ = 5; T = 10^5 → ⌊½ · 15.17⌋ = 7
    assert n_phases(10**4) == 5 and n_phases(10**5) == 7 and n_phases(5) == 1
    L = math.log(10**4 * 2.0**-10)
    assert L >= 1.0  # the last phase M = 5 still has L ≥ 1


# ----------------------------------------------------------------------------- bookkeeping
def last(res, name, field):
    return res.traces[name][field][:, -1]


def test_phases_eliminations_and_commitment_with_deterministic_rewards():
    """θ = (1, 0), no delay: arm 0 then arm 1 for n_1 steps each; arm 1 eliminated at the end of
    phase 1; arm 0 to the end. Regret = n_1 exactly."""
    T = 10**4
    n1 = int(odaaf_sizes(1, T, 0.0))
    res = dl.simulate(dl.AggregatedAnonymous([1.0, 0.0], dl.Fixed(0)), {"o": dl.ODAAF(mean_delay=0)}, T, 3,
                      checkpoints=[n1, 2 * n1, T], trace=True)
    assert np.all(res.regret["o"][:, 0] == 0) and np.all(res.regret["o"][:, 1] == n1)
    assert np.all(res.final("o") == n1) and np.all(res.pulls["o"] == [T - n1, n1])
    assert np.all(last(res, "o", "eliminated_at") == [-1, 2 * n1 - 1])
    assert np.all(last(res, "o", "phase_start")[:, 0] == 0) and np.all(last(res, "o", "phase_start")[:, 1:] == -1)
    tr = res.traces["o"]
    assert np.all(tr["active"][:, 0] == [True, True]) and np.all(tr["active"][:, 1] == [True, False])


def test_corruption_of_the_anonymous_sums_by_delays():
    """θ = (1, 0), every reward 5 steps late: arm 0's first 5 observations are 0, and its last 5
    rewards land in arm 1's block: X̄_0 = (n_1 − 5)/n_1, X̄_1 = 5/n_1 at the end of phase 1."""
    T, d = 10**4, 5
    n1 = int(odaaf_sizes(1, T, d))
    res = dl.simulate(dl.AggregatedAnonymous([1.0, 0.0], dl.Fixed(d)), {"o": dl.ODAAF(mean_delay=d)}, T, 2,
                      checkpoints=[2 * n1, T], trace=True)
    np.testing.assert_array_equal(res.traces["o"]["mean"][:, 0], [[(n1 - d) / n1, d / n1]] * 2)
    assert np.all(res.traces["o"]["eliminated_at"][:, 0] == [-1, 2 * n1 - 1])


def test_bridge_periods_are_played_by_the_leader_and_discarded():
    """θ = (1, 1, 0), delays 3: phase 1 plays arms 0, 1, 2 for n_1 steps each; arm 2 is
    eliminated; the bridge plays the leader (arm 0, lowest index on the tie) for n_1 steps and
    its observations are discarded; phase 2 then plays arms 0 and 1 for n_2 − n_1 steps each."""
    T, mu, bound = 20_000, 3.0, 3.0
    n1, n2 = odaaf_b_sizes([1, 2], T, mu, bound).tolist()
    bridge_end = 4 * n1
    checks = [3 * n1, bridge_end, bridge_end + 2 * (n2 - n1), T]
    res = dl.simulate(dl.AggregatedAnonymous([1.0, 1.0, 0.0], dl.Fixed(3)), {"b": dl.ODAAFB(mean_delay=mu, bound=bound)},
                      T, 2, checkpoints=checks, trace=True)
    tr = res.traces["b"]
    assert np.all(tr["eliminated_at"][:, 0] == [-1, -1, 3 * n1 - 1])
    assert np.all(tr["in_bridge"][:, 0]) and not np.any(tr["in_bridge"][:, 1])
    assert np.all(tr["bridge_start"][:, -1, 0] == 3 * n1)
    assert np.all(tr["phase_start"][:, -1, :2] == [0, bridge_end])
    np.testing.assert_array_equal(tr["samples"][:, 1], [[n1, n1, n1]] * 2)  # bridge discarded
    np.testing.assert_array_equal(tr["samples"][:, 2], [[n2, n2, n1]] * 2)
    np.testing.assert_array_equal(tr["n"][:, 0, :2], [[n1, n2]] * 2)
    # regret: only arm 2 (gap 1) was ever played at a loss
    assert np.all(res.final("b") == n1)
    # without the bridge (ODAAF), phase 2 starts right after phase 1
    res = dl.simulate(dl.AggregatedAnonymous([1.0, 1.0, 0.0], dl.Fixed(3)), {"o": dl.ODAAF(mean_delay=mu)}, T, 1,
                      checkpoints=[T], trace=True)
    assert res.traces["o"]["phase_start"][0, -1, 1] == 3 * int(odaaf_sizes(1, T, mu))
    assert np.all(res.traces["o"]["bridge_start"] == -1)


# ----------------------------------------------------------------------------- engine paths
@pytest.mark.parametrize("law", [dl.Poisson(10.0), dl.Uniform(0, 40), dl.Geometric(20.0), dl.Fixed(0)])
def test_block_path_gives_exactly_the_step_by_step_runs(law, monkeypatch):
    env = dl.AggregatedAnonymous([0.5, 0.7, 0.4], law)
    pols = {"ODAAF": dl.ODAAF(mean_delay=float(law.mean)),
            "ODAAF-B": dl.ODAAFB(mean_delay=float(law.mean), bound=60.0 if law.mean else 0.0),
            "ODAAF-V": dl.ODAAFV(mean_delay=float(law.mean), variance=float(law.var)),
            "Improved UCB": dl.ImprovedUCB()}
    monkeypatch.setenv("DELAYLAB_KERNELS", "numpy")  # the numpy paths (tests/test_kernels_more.py: the kernel's runs)
    fast = dl.simulate(env, pols, 6000, 4, seed=2, checkpoints=97, trace=True)
    monkeypatch.setattr(engine, "BLOCK_STEPS", False)
    slow = dl.simulate(env, pols, 6000, 4, seed=2, checkpoints=97, trace=True)
    for name in pols:
        np.testing.assert_array_equal(fast.regret[name], slow.regret[name], err_msg=name)
        np.testing.assert_array_equal(fast.pulls[name], slow.pulls[name], err_msg=name)
        for f in fast.traces[name]:
            np.testing.assert_array_equal(fast.traces[name][f], slow.traces[name][f], err_msg=f"{name}.{f}")


def test_a_run_does_not_depend_on_the_batch():
    env = dl.AggregatedAnonymous([0.5, 0.6], dl.Poisson(5.0))
    pols = {"ODAAF": dl.ODAAF(mean_delay=5), "ODAAF-V": dl.ODAAFV(mean_delay=5, variance=5)}
    alone = dl.simulate(env, pols, 8000, [3], seed=1)
    together = dl.simulate(env, pols, 8000, 6, seed=1)
    for n in pols:
        np.testing.assert_array_equal(alone.regret[n][0], together.regret[n][3])
    lab = dl.LabelledRewards([0.5, 0.6], dl.Poisson(5.0))
    alone = dl.simulate(lab, dl.QPMD(), 2000, [3], seed=1)
    together = dl.simulate(lab, dl.QPMD(), 2000, 6, seed=1)
    np.testing.assert_array_equal(alone.regret["QPM-D"][0], together.regret["QPM-D"][3])


def test_grid_of_known_mean_delays_is_one_batch_with_the_same_runs():
    env = dl.AggregatedAnonymous([0.5, 0.65], dl.Poisson(mean=[5.0, 20.0]))
    g = dl.grid(mean_delay=[5.0, 20.0])
    res = dl.simulate(env, dl.ODAAF(mean_delay=np.array([5.0, 20.0])), 8000, 3, seed=4, grid=g)
    for i, mu in enumerate([5.0, 20.0]):
        one = dl.simulate(dl.AggregatedAnonymous([0.5, 0.65], dl.Poisson(mu)), dl.ODAAF(mean_delay=mu), 8000, 3, seed=4)
        np.testing.assert_array_equal(res.regret["ODAAF"][i], one.regret["ODAAF"])


def test_qpmd_without_delays_is_its_base_algorithm():
    env = dl.LabelledRewards([0.5, 0.45, 0.3], dl.Fixed(0))
    res = dl.simulate(env, {"q": dl.QPMD(dl.UCB1()), "u": dl.UCB1(), "qk": dl.QPMD(dl.KLUCB()), "k": dl.KLUCB()},
                      3000, 4, seed=5)
    np.testing.assert_array_equal(res.regret["q"], res.regret["u"])
    np.testing.assert_array_equal(res.regret["qk"], res.regret["k"])


def test_qpmd_queues_hold_what_the_base_has_not_used():
    env = dl.LabelledRewards([0.5, 0.45], dl.Fixed(30))
    res = dl.simulate(env, dl.QPMD(), 1000, 3, seed=0, checkpoints=[1000], trace=True)
    tr = res.traces["QPM-D"]
    # every reward revealed by the end (pulls ≤ T − 31) is either used by the base or queued
    used_or_queued = tr["n"][:, -1].sum(1) + tr["queued"][:, -1].sum(1)
    assert np.all(used_or_queued == 1000 - 30)


# ----------------------------------------------------------------------------- behaviour
def test_odaaf_regret_grows_with_the_expected_delay():
    mus = [2.0, 10.0, 30.0, 60.0]
    env = dl.AggregatedAnonymous([0.6, 0.45], dl.Poisson(mean=mus))
    res = dl.simulate(env, dl.ODAAF(mean_delay=np.array(mus)), 40_000, 20, seed=0, checkpoints=10,
                      grid=dl.grid(mean_delay=mus))
    final = res.final("ODAAF").mean(axis=-1)
    assert np.all(np.diff(final) > 0), final
    slope, icpt = np.polyfit(mus, final, 1)
    resid = final - (slope * np.array(mus) + icpt)
    assert 1 - resid.var() / final.var() > 0.95, final  # roughly linear in E[τ]


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("policy, message", [
    (dl.ODAAF(mean_delay=-1), "mean_delay = -1 is outside the valid range"),
    (dl.ODAAF(), "needs the expected delay"),
    (dl.ODAAFV(mean_delay=5, variance=-2), "variance = -2 is outside"),
    (dl.ODAAFV(mean_delay=5), "needs the variance"),
    (dl.ODAAFB(mean_delay=5, bound=3), "bound = 3 is smaller than mean_delay = 5"),
    (dl.ODAAFB(mean_delay=5), "needs the delay bound"),
    (dl.ODAAF(mean_delay="ten"), "mean_delay must be a number"),
    (dl.ODAAFB(mean_delay=[2.0, 8.0], bound=[5.0, 5.0]), r"bound = \[5.0, 5.0\] is smaller than mean_delay"),
    (dl.ODAAF(mean_delay=5, bridge="yes"), r"bridge = 'yes' must be True, False or None"),
    (dl.ODAAFB(mean_delay=5, bound=9, bridge=1), r"bridge = 1 must be True, False or None"),
])
def test_bad_hyperparameters(policy, message):
    with pytest.raises(ValueError, match=message):
        dl.simulate(dl.AggregatedAnonymous([0.5, 0.6], dl.Poisson(5.0)), policy, 100, 1)


def test_bad_settings_and_feedback():
    with pytest.raises(ValueError, match=r"means\[1\] = 1.5 is outside the valid range \[0, 1\]"):
        dl.AggregatedAnonymous([0.5, 1.5], dl.Poisson(5.0))
    with pytest.raises(ValueError, match="learns from anonymous feedback; the setting reveals labelled"):
        dl.simulate(dl.LabelledRewards([0.5, 0.6], dl.Poisson(5.0)), dl.ODAAF(mean_delay=5), 100, 1)
    with pytest.raises(ValueError, match="QPMD learns from labelled feedback"):
        dl.simulate(dl.AggregatedAnonymous([0.5, 0.6], dl.Poisson(5.0)), dl.QPMD(), 100, 1)
    with pytest.raises(ValueError, match="base must be delaylab.UCB1"):
        dl.simulate(dl.LabelledRewards([0.5, 0.6], dl.Poisson(5.0)), dl.QPMD(base="ucb"), 100, 1)
    with pytest.raises(ValueError, match="c = 0 is outside"):
        dl.simulate(dl.LabelledRewards([0.5, 0.6], dl.Poisson(5.0)), dl.QPMD(dl.UCB1(c=0)), 100, 1)


def test_labels_and_clone():
    assert [p.label for p in (dl.ODAAF(mean_delay=1), dl.ODAAFB(mean_delay=1, bound=2),
                              dl.ODAAFV(mean_delay=1, variance=1), dl.QPMD(), dl.ImprovedUCB())] == [
        "ODAAF", "ODAAF-B", "ODAAF-V", "QPM-D", "Improved UCB"]
    p = dl.ODAAFB(mean_delay=3, bound=7)
    assert p.clone().get_params() == {"mean_delay": 3, "bound": 7}  # (the cache keys of tests/test_sweep_keys.py)
    assert dl.ODAAF(3, bridge=True).clone().get_params() == {"mean_delay": 3, "bridge": True}
    # the bridge switched on or off, all else equal: named so, and only that parameter differs
    assert [p.label for p in (dl.ODAAF(mean_delay=1, bridge=True), dl.ODAAFB(mean_delay=1, bound=2, bridge=False),
                              dl.ODAAFV(mean_delay=1, variance=1, bridge=False))] == [
        "ODAAF with bridges", "ODAAF-B without bridges", "ODAAF-V without bridges"]
    assert [p.bridges for p in (dl.ODAAF(1), dl.ODAAF(1, bridge=True), dl.ODAAFB(1, 2), dl.ODAAFB(1, 2, bridge=False),
                                dl.ODAAFV(1, 1), dl.ODAAFV(1, 1, bridge=False))] == [False, True, True, False, True, False]


def test_regret_ratio_to_qpmd_stays_bounded_as_time_grows():
    """θ = (0.6, 0.3), delays uniform on {0..20}: once the worse arm is eliminated (phase 2 in every
    run), ODAAF's regret stops growing while QPM-D's does not: the ratio no longer increases."""
    theta, law, T = (0.6, 0.3), dl.Uniform(0, 20), 20_000
    anon = dl.simulate(dl.AggregatedAnonymous(theta, law), {"ODAAF": dl.ODAAF(mean_delay=10),
                                                            "ODAAF-B": dl.ODAAFB(mean_delay=10, bound=20)},
                       T, 10, seed=0, checkpoints=40, trace=True)
    lab = dl.simulate(dl.LabelledRewards(theta, law), dl.QPMD(), T, 10, seed=0, checkpoints=40)
    for name in ("ODAAF", "ODAAF-B"):
        assert np.all(anon.traces[name]["eliminated_at"][:, -1, 1] < T // 2)
        r = anon.mean(name) / lab.mean("QPM-D")
        half = np.searchsorted(anon.times, T // 2)
        assert np.all(np.diff(r[half:]) <= 0) and r[-1] < 20, r


def test_pull_many_equals_the_pulls_of_each_step():
    from delaylab.settings.base import Block
    from delaylab.streams import Batch

    for env in (dl.AggregatedAnonymous([0.5, 0.7, 0.2], [dl.Poisson(3.0), dl.Uniform(0, 9), dl.Fixed(2)], window=6),
                dl.AggregatedAnonymous([[0.5, 0.7], [0.1, 0.9]], dl.Geometric(4.0))):
        ep = env.episode(Batch(np.arange(3), env.n_cells), 100, seed=1)
        block = ep.draw(0, 50)
        arms = np.arange(3 * env.n_cells) % env.n_arms
        fast, slow = block.pull_many(5, 30, arms), Block.pull_many(block, 5, 30, arms)
        for f in ("regret", "delay", "revealed", "value"):
            np.testing.assert_array_equal(getattr(fast, f), getattr(slow, f), err_msg=f)


def test_block_path_with_censoring_and_per_cell_means(monkeypatch):
    env = dl.AggregatedAnonymous([[0.5, 0.7], [0.6, 0.2]], dl.Geometric(20.0), window=15)
    pols = {"ODAAF": dl.ODAAF(mean_delay=[5.0, 20.0]), "ODAAF-B": dl.ODAAFB(mean_delay=5.0, bound=[15.0, 30.0])}
    monkeypatch.setenv("DELAYLAB_KERNELS", "numpy")  # the numpy paths (tests/test_kernels_more.py: the kernel's runs)
    fast = dl.simulate(env, pols, 5000, 3, seed=9, checkpoints=33)
    monkeypatch.setattr(engine, "BLOCK_STEPS", False)
    slow = dl.simulate(env, pols, 5000, 3, seed=9, checkpoints=33)
    for name in pols:
        np.testing.assert_array_equal(fast.regret[name], slow.regret[name], err_msg=name)


def test_timeline_of_one_run_is_consistent():
    from delaylab.papers import pikeburke2018 as paper

    tl = paper.timeline(theta=(0.6, 0.45, 0.2), law=dl.Uniform(0, 20), bound=20, horizon=20_000)
    assert np.array_equal(tl["parts"].sum(axis=0), tl["seen"])  # the hidden parts add up to the sums
    n1 = tl["n"][0]
    assert np.all(tl["arms"][:n1] == 0) and np.all(tl["arms"][n1:2 * n1] == 1) and np.all(tl["arms"][2 * n1:3 * n1] == 2)
    b = tl["bridge_start"][0]
    assert b == 3 * n1 and np.all(tl["bridge"][b:b + n1]) and not tl["bridge"][b - 1]
    assert tl["phase_start"][1] == b + n1
    for k, s in enumerate(tl["eliminated_at"]):
        if s >= 0:
            assert np.all(tl["arms"][s + 1:] != k)  # never played again
