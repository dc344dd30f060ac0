"""The engine: timing and censoring of feedback, the five settings, reproducibility."""

import math

import numpy as np
import pytest

import delaylab as dl
import delaylab.engine as engine


# ---------------------------------------------------------------------------- timing
def test_feedback_arrives_at_the_end_of_step_s_plus_delay(recorder):
    pol, sink = recorder([0] * 12)
    env = dl.Conversions(means=[1.0, 0.0], delays=dl.Fixed(3))  # arm 0 always converts
    dl.simulate(env, pol, horizon=12, runs=2, seed=0)
    for t, _, _, fb in sink:
        if t < 3:
            assert len(fb) == 0
        else:
            assert list(fb.step) == [t - 3, t - 3] and list(fb.run) == [0, 1]
            assert list(fb.delay) == [3, 3] and list(fb.arm) == [0, 0] and fb.value is None


def test_delay_zero_is_seen_before_the_next_decision(recorder):
    pol, sink = recorder([0, 0, 0])
    dl.simulate(dl.Conversions([1.0, 0.5], dl.Fixed(0)), pol, horizon=3, runs=1)
    assert [list(fb.step) for _, _, _, fb in sink] == [[0], [1], [2]]


def test_feedback_beyond_the_horizon_is_never_delivered(recorder):
    pol, sink = recorder([0] * 10)
    dl.simulate(dl.Conversions([1.0, 0.5], dl.Fixed(4)), pol, horizon=10, runs=1)
    assert sorted(s for _, _, _, fb in sink for s in fb.step) == list(range(6))


@pytest.mark.parametrize("window, seen", [(2, False), (3, True), (None, True)])
def test_censoring_window(recorder, window, seen):
    pol, sink = recorder([0] * 10)
    dl.simulate(dl.Conversions([1.0, 0.5], dl.Fixed(3), window=window), pol, horizon=10, runs=1)
    assert (sum(len(fb) for *_, fb in sink) > 0) == seen


def test_zeros_are_never_revealed_as_conversions(recorder):
    pol, sink = recorder([1] * 50)
    dl.simulate(dl.Conversions([1.0, 0.0], dl.Fixed(1)), pol, horizon=50, runs=5)
    assert sum(len(fb) for *_, fb in sink) == 0


def test_several_arrivals_in_one_step_come_in_layers(recorder):
    # delays 2, 1, 0 for pulls at steps 0, 1, 2: all three arrive at the end of step 2
    env = dl.AdversarialLosses(losses=np.full((6, 2), 0.5), delays=[2, 1, 0, 0, 0, 0])
    pol, sink = recorder([0] * 6)
    dl.simulate(env, pol, horizon=6, runs=3)
    fb = sink[2][3]
    assert sorted(fb.step[fb.run == 0]) == [0, 1, 2]
    assert sorted(fb.layer[fb.run == 0]) == [0, 1, 2]
    for idx in fb.layers():  # each layer has distinct runs
        assert len(set(fb.run[idx])) == len(idx)
    assert not fb.single_layer
    one = sink[3][3]  # step 3: only the pull of step 3 arrives
    assert one.single_layer and len(one) == 3 and one.layer.tolist() == [0, 0, 0]


# ---------------------------------------------------------------------------- settings
def test_labelled_rewards_reveal_zeros_with_their_arm(recorder):
    pol, sink = recorder([0, 1] * 100)
    dl.simulate(dl.LabelledRewards([0.7, 0.2], dl.Uniform(0, 3)), pol, horizon=200, runs=4, seed=1)
    arrivals = [fb for *_, fb in sink if len(fb)]
    values = np.concatenate([fb.value for fb in arrivals])
    arms = np.concatenate([fb.arm for fb in arrivals])
    assert set(np.unique(values)) == {0.0, 1.0}
    # every pull is revealed exactly once unless it falls beyond the horizon (delay ≤ 3)
    n = sum(len(fb) for fb in arrivals)
    assert 4 * 197 <= n <= 4 * 200
    # arm 0's revealed mean ≈ 0.7, arm 1's ≈ 0.2 (tolerance: 5 standard errors)
    for a, mu in [(0, 0.7), (1, 0.2)]:
        v = values[arms == a]
        assert abs(v.mean() - mu) < 5 * math.sqrt(mu * (1 - mu) / v.size)


def test_anonymous_sums_are_the_rewards_arriving_each_step(recorder):
    seq = [0, 1] * 50
    pol_a, sink_a = recorder(seq)
    pol_l, sink_l = recorder(seq)
    law = dl.Uniform(0, 4)
    dl.simulate(dl.AggregatedAnonymous([0.6, 0.3], law), pol_a, horizon=100, runs=3, seed=7)
    dl.simulate(dl.LabelledRewards([0.6, 0.3], law), pol_l, horizon=100, runs=3, seed=7)
    for (_, _, _, anon), (_, _, _, lab) in zip(sink_a, sink_l):
        assert isinstance(anon, dl.AnonymousSums) and not hasattr(anon, "arm")
        expected = np.bincount(lab.run, weights=lab.value, minlength=3)
        assert np.array_equal(anon.total, expected)  # same draws: common random numbers


def test_linear_conversions(recorder):
    d, K, T = 4, 6, 400
    theta = np.full(d, 0.5)
    pol, sink = recorder([0] * T)
    env = dl.LinearConversions(theta, delays=dl.Geometric(5), n_actions=K, window=20)
    res = dl.simulate(env, pol, horizon=T, runs=3, seed=2)
    ctx = np.stack([c for _, _, c, _ in sink])  # (T, B, K, d)
    assert ctx.shape == (T, 3, K, d)
    assert np.allclose(np.linalg.norm(ctx, axis=-1), 1.0)
    assert np.all(np.isin(np.round(ctx * np.sqrt((ctx > 0).sum(-1, keepdims=True)), 12), [0.0, 1.0]))
    means = ctx @ theta
    regret = np.cumsum(means.max(-1) - means[..., 0], axis=0).T
    assert np.allclose(res.regret["Recorder"], regret)
    # conversions are revealed with the index of the chosen action (0 here)
    fbs = [fb for *_, fb in sink if len(fb)]
    assert all(np.all(fb.arm == 0) for fb in fbs) and all(np.all(fb.delay <= 20) for fb in fbs)
    conv = sum(len(fb) for fb in fbs)
    expected = means[:, :, 0].sum() * dl.Geometric(5).cdf(20)
    assert abs(conv - expected) < 5 * math.sqrt(expected) + 3 * 20 * 0.5  # horizon edge


def test_linear_action_sets_custom():
    fixed = np.array([[0.2, 0.0], [0.0, 0.3], [0.1, 0.1]])  # means 0.16, 0.15, 0.13
    env = dl.LinearConversions([0.8, 0.5], delays=dl.Fixed(0), n_actions=3, action_sets=fixed)
    res = dl.simulate(env, dl.FixedSequence([2] * 5), horizon=5, runs=1)
    assert np.allclose(res.regret["FixedSequence"][0], np.arange(1, 6) * 0.03)
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        dl.LinearConversions([1.0, 0.0], delays=dl.Fixed(0), n_actions=2, action_sets=lambda u: -u)


def test_linear_callable_action_sets_are_checked_at_every_draw():
    calls = []

    def sets(u):  # valid when the setting probes it, then a mean of 2 from the second call on
        calls.append(1)
        return u / np.sqrt(u.shape[-1]) * (1.0 if len(calls) == 1 else 4.0)

    env = dl.LinearConversions([1.0, 0.0], delays=dl.Fixed(0), n_actions=2, action_sets=sets)
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        dl.simulate(env, dl.FixedSequence([0] * 5), horizon=5, runs=1)


def test_adversarial_losses_regret_and_delays(recorder):
    T = 30
    losses = np.zeros((T, 3))
    losses[:, 0] = 0.2
    losses[:, 1] = np.r_[np.ones(5), np.zeros(25)]  # best in hindsight: arm 1 (total 5 < 6)
    losses[:, 2] = 0.9
    delays = np.arange(T) % 4
    pol, sink = recorder([0] * T)
    env = dl.AdversarialLosses(losses, delays, reveal="at_action")
    res = dl.simulate(env, pol, horizon=T, runs=2)
    assert env.best_arm(T) == 1
    assert np.allclose(res.regret["Recorder"][0], np.cumsum(losses[:, 0] - losses[:, 1]))
    assert [int(c[0]) for _, _, c, _ in sink] == list(delays)  # delays revealed at action time
    for t, _, _, fb in sink:
        assert np.all(fb.step + delays[fb.step] == t) and np.allclose(fb.value, 0.2)
    env2 = dl.AdversarialLosses(losses, dl.Geometric(2), reveal="with_loss")
    pol2, sink2 = recorder([2] * T)
    dl.simulate(env2, pol2, horizon=T, runs=4, seed=3)
    assert all(c is None for _, _, c, _ in sink2)
    with pytest.raises(ValueError, match="horizon = 31 exceeds the 30 rounds"):
        dl.simulate(env, dl.RoundRobin(), horizon=31, runs=1)


# ---------------------------------------------------------------------------- reproducibility
def conv_setting():
    return dl.Conversions([0.3, 0.2, 0.1], dl.Geometric(40), window=120)


def paper_policies():
    law = dl.Geometric(40)
    return {"D-KLUCB": dl.DelayedKLUCB(law, 120), "UCB1": dl.UCB1(), "random": dl.UniformRandom(),
            "Disc": dl.DiscardingUCB(law, 120), "est": dl.DelayedUCB(dl.OnlineCDF(), 120)}


def test_a_run_depends_only_on_seed_and_index():
    env = conv_setting()
    r10 = dl.simulate(env, paper_policies(), horizon=400, runs=10, seed=4)
    r3 = dl.simulate(env, paper_policies(), horizon=400, runs=3, seed=4)
    r_mid = dl.simulate(env, paper_policies(), horizon=400, runs=[7, 3, 9], seed=4)
    for name in r10.names:
        assert np.array_equal(r10.regret[name][:3], r3.regret[name])
        assert np.array_equal(r10.regret[name][[7, 3, 9]], r_mid.regret[name])
    other = dl.simulate(env, paper_policies(), horizon=400, runs=3, seed=5)
    assert not np.array_equal(other.regret["random"], r3.regret["random"])


def test_results_do_not_depend_on_chunking(monkeypatch):
    env = conv_setting()
    whole = dl.simulate(env, paper_policies(), horizon=300, runs=9, seed=1)
    monkeypatch.setattr(engine, "MEMORY_BUDGET", 1)  # one run per chunk
    chunked = dl.simulate(env, paper_policies(), horizon=300, runs=9, seed=1)
    for name in whole.names:
        assert np.array_equal(whole.regret[name], chunked.regret[name])
        assert np.array_equal(whole.pulls[name], chunked.pulls[name])


def test_results_do_not_depend_on_the_other_policies():
    env = conv_setting()
    alone = dl.simulate(env, {"D-KLUCB": paper_policies()["D-KLUCB"]}, horizon=300, runs=5)
    together = dl.simulate(env, paper_policies(), horizon=300, runs=5)
    assert np.array_equal(alone.regret["D-KLUCB"], together.regret["D-KLUCB"])


def test_common_random_numbers_across_policies():
    env = conv_setting()
    seq = list(np.random.default_rng(0).integers(0, 3, 300))
    res = dl.simulate(env, {"a": dl.FixedSequence(seq), "b": dl.FixedSequence(seq)}, horizon=300, runs=4)
    assert np.array_equal(res.regret["a"], res.regret["b"])


def test_grid_cells_equal_separate_simulations():
    g = dl.grid(gap=[0.05, 0.15], mean=[10.0, 80.0])
    means = np.stack([0.3 + g.gap, np.full(g.size, 0.3)], axis=1)
    law = dl.Geometric(mean=g.mean)
    env = dl.Conversions(means, law, window=100)
    pols = {"D-UCB": dl.DelayedUCB(law, 100, eps=np.linspace(0, 0.3, g.size)), "KL-UCB": dl.KLUCB()}
    res = dl.simulate(env, pols, horizon=250, runs=4, seed=2, grid=g)
    assert res.regret["D-UCB"].shape == (2, 2, 4, 250)
    for i, gap in enumerate(g.axis("gap")):
        for j, mu in enumerate(g.axis("mean")):
            cell = i * 2 + j
            one_law = dl.Geometric(mean=mu)
            single = dl.simulate(dl.Conversions([0.3 + gap, 0.3], one_law, window=100),
                                 {"D-UCB": dl.DelayedUCB(one_law, 100, eps=float(np.linspace(0, 0.3, 4)[cell])),
                                  "KL-UCB": dl.KLUCB()}, horizon=250, runs=4, seed=2)
            for name in pols:
                assert np.array_equal(res.regret[name][i, j], single.regret[name])


def test_checkpoints_and_summaries():
    env = conv_setting()
    full = dl.simulate(env, dl.UCB1(), horizon=200, runs=6, seed=3)
    thin = dl.simulate(env, dl.UCB1(), horizon=200, runs=6, seed=3, checkpoints=4)
    assert list(thin.times) == [50, 100, 150, 200]
    assert np.array_equal(thin.regret["UCB1"], full.regret["UCB1"][:, [49, 99, 149, 199]])
    lo, hi = full.band("UCB1")
    assert np.all(lo <= full.mean("UCB1")) and np.all(full.mean("UCB1") <= hi)
    assert full.final("UCB1").shape == (6,) and full.pulls["UCB1"].sum(axis=1).tolist() == [200] * 6
    seen = []
    dl.simulate(env, dl.UCB1(), horizon=200, runs=2, progress=seen.append)
    assert seen[-1] == 1.0 and all(a < b for a, b in zip(seen, seen[1:]))


# ---------------------------------------------------------------------------- unbiasedness
class FixedPulls:
    """Mixin: a policy's estimator watched under a fixed, non-adaptive pull sequence."""

    def __init__(self, delay=None, window=None, eps=0.0, arms=()):
        super().__init__(delay, window, eps)
        self.arms = arms

    def choose(self, t, context=None):
        return np.full(self.problem_.size, self.arms[t])


class FixedDelayedUCB(FixedPulls, dl.DelayedUCB):
    pass


@pytest.mark.parametrize("law, window", [
    (dl.Geometric(30), 50), (dl.Geometric(30), None), (dl.Pareto(0.6), 40), (dl.Uniform(0, 60), 25),
])
def test_theta_hat_is_unbiased_for_a_fixed_pull_sequence(law, window):
    """E[S_k(t)] = θ_k Ñ_k(t) exactly, so the mean of θ̂ = S/Ñ over runs is θ (Eq. 5)."""
    theta = np.array([0.4, 0.15])
    T, R = 150, 4000
    arms = list(np.random.default_rng(3).integers(0, 2, T))
    pol = FixedDelayedUCB(law, window, arms=arms)
    res = dl.simulate(dl.Conversions(theta, law, window=window), {"fixed": pol}, horizon=T, runs=R,
                      seed=9, checkpoints=[40, 150], trace=True)
    tr = res.traces["fixed"]
    for k_t, t in enumerate([40, 150]):
        n_tilde = tr["n_tilde"][0, k_t]  # deterministic given the pulls
        assert np.allclose(tr["n_tilde"][:, k_t], n_tilde)
        lags = t - 1 - np.arange(t)
        w = law.cdf(lags if window is None else np.minimum(lags, window))
        for k in range(2):
            mask = np.array(arms[:t]) == k
            assert n_tilde[k] == pytest.approx(w[mask].sum())
            var_s = np.sum(theta[k] * w[mask] * (1 - theta[k] * w[mask]))
            tol = 5 * math.sqrt(var_s / R) / n_tilde[k]  # 5 standard errors of the mean of θ̂
            assert abs(tr["theta_hat"][:, k_t, k].mean() - theta[k]) < tol


class FixedDiscarding(FixedPulls, dl.DiscardingUCB):
    pass


def test_discarding_estimate_is_unbiased_for_a_fixed_pull_sequence():
    """θ̂^m = S_k(t − m) / (τ_m N_k(t − m)): only complete pulls, each seen w.p. θ τ_m."""
    law, m, T, R = dl.Geometric(20), 30, 120, 4000
    theta = np.array([0.5, 0.2])
    arms = list(np.random.default_rng(4).integers(0, 2, T))
    res = dl.simulate(dl.Conversions(theta, law, window=m), {"disc": FixedDiscarding(law, m, arms=arms)},
                      horizon=T, runs=R, seed=5, checkpoints=[T], trace=True)
    tr = res.traces["disc"]
    tau_m = law.cdf(m)
    for k in range(2):
        n_done = np.sum(np.array(arms[: T - m]) == k)  # pulls at least m steps old
        assert np.allclose(tr["n_tilde"][:, 0, k], tau_m * n_done)
        tol = 5 * np.sqrt(theta[k] * tau_m * (1 - theta[k] * tau_m) / n_done / R) / tau_m
        assert abs(tr["theta_hat"][:, 0, k].mean() - theta[k]) < tol
