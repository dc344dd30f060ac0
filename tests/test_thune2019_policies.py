"""Exp3, DEW, Skipper and Doubling (Thune, Cesa-Bianchi, Seldin 2019): updates on hand-computed
cases, Skipper's filter, the Doubling condition of Eq. (6), batch invariance, bad input."""

import math

import numpy as np
import pytest

import delaylab as dl
from delaylab.feedback import Arrivals
from delaylab.policies.base import Problem
from delaylab.policies.exp_weights import theorem1_eta
from delaylab.policies.skipper import corollary4_beta, skipped_and_experienced
from delaylab.settings import sequences as sq
from delaylab.streams import Batch

E = math.e
I = np.int64


def started(policy, K=3, T=50, B=1):
    problem = Problem(n_arms=K, horizon=T, feedback="adversarial", window=None, dim=None,
                      batch=Batch(np.arange(B)), seed=0)
    return policy.start(problem)


def arrivals(t, run, step, arm, value, layer=None):
    a = [np.asarray(x, dtype=I) for x in (run, step, arm)]
    return Arrivals(t, *a, np.asarray(value, dtype=float), None if layer is None else np.asarray(layer, dtype=I))


# ------------------------------------------------------------------ exponential weights by hand
def test_dew_update_by_hand_with_several_arrivals_in_one_step():
    pol = started(dl.DEW(eta=0.5), K=3)
    empty = arrivals(0, [], [], [], [])
    a0 = pol.choose(0)
    assert np.allclose(pol.p_, 1 / 3)
    pol.update(0, np.array([1]), empty)  # p_0(A_0 = 1) = 1/3 stored
    pol.choose(1)
    pol.update(1, np.array([2]), empty)  # p_1(A_1 = 2) = 1/3
    # both losses arrive at the end of step 2 (two layers: latest pull first)
    pol.choose(2)
    pol.update(2, np.array([0]), arrivals(2, [0, 0], [1, 0], [2, 1], [0.6, 0.9], [0, 1]))
    L = np.array([0.0, 0.9 * 3, 0.6 * 3])  # ℓ̂ = ℓ / p_s(A_s)
    assert np.allclose(pol.cum_loss_[0], L)
    w = np.exp(-0.5 * L)
    assert np.allclose(pol.probabilities()[0], w / w.sum())
    # the next pull's probability is the one stored for its loss estimate
    pol.choose(3)
    p3 = pol.p_[0].copy()
    arm = int(pol.choose(3)[0])
    pol.update(3, np.array([arm]), arrivals(3, [0], [3], [arm], [1.0]))
    assert pol.cum_loss_[0, arm] == pytest.approx(L[arm] + 1.0 / p3[arm])
    assert a0.shape == (1,)


def test_truncated_learning_rate():
    pol = started(dl.DEW(eta=0.5, dmax=2), K=2)
    assert pol._eta_p == pytest.approx(1 / (8 * E))  # η' = min(η, 1/(4e d_max))
    pol.cum_loss_[0] = [0.0, 4.0]
    expected = np.array([1.0, math.exp(-4 / (8 * E))])
    assert np.allclose(pol.probabilities()[0], expected / expected.sum())
    assert started(dl.DEW(eta=0.01, dmax=2), K=2)._eta_p == pytest.approx(0.01)
    assert started(dl.DEW(eta=0.3, dmax=0), K=2)._eta_p == pytest.approx(0.3)  # d_max = 0: no truncation
    assert started(dl.Exp3(), K=4, T=1000)._eta_p == pytest.approx(math.sqrt(2 * math.log(4) / 4000))


def test_weights_do_not_underflow_on_long_horizons():
    pol = started(dl.DEW(eta=5.0), K=3)
    pol.cum_loss_[0] = [1e6, 1e6 + 3.0, 2e9]
    p = pol.probabilities()[0]
    assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0)
    assert p[0] == pytest.approx(1 / (1 + math.exp(-15))) and p[2] == 0.0


def test_draws_follow_p():
    """Inverse-CDF sampling from the run's own uniforms: frequencies match p within 5 s.e."""
    B = 20_000
    pol = started(dl.DEW(eta=1.0), K=3, B=B)
    pol.cum_loss_[:] = [0.0, 0.5, 2.0]
    p = pol.probabilities()[0]
    freq = np.bincount(pol.choose(0), minlength=3) / B
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / B))


def test_loss_estimate_is_unbiased():
    """E[ℓ̂_s(a)] = ℓ_s(a) for each arm: mean of the estimates over runs, 5 s.e."""
    B, ell = 40_000, np.array([0.2, 0.7, 1.0])
    pol = started(dl.DEW(eta=1.0), K=3, B=B)
    pol.cum_loss_[:] = [0.0, 1.0, 0.5]
    arms = pol.choose(0)
    assert np.ptp(pol.p_[0]) > 0.2  # far from uniform: the 1/p_s(A_s) weights matter
    runs = np.arange(B)
    pol.update(0, arms, arrivals(0, runs, np.zeros(B), arms, ell[arms]))
    est = pol.cum_loss_ - [0.0, 1.0, 0.5]
    se = est.std(axis=0, ddof=1) / math.sqrt(B)
    assert np.all(np.abs(est.mean(axis=0) - ell) < 5 * se)


# ------------------------------------------------------------------ Skipper
class RecordingDEW(dl.DEW):
    sink: list = []

    def _observe(self, feedback, keep=None):
        k = np.ones(len(feedback), bool) if keep is None else keep
        RecordingDEW.sink.extend(zip(feedback.run[k].tolist(), feedback.step[k].tolist(), feedback.delay[k].tolist()))
        super()._observe(feedback, keep)


def test_dew_steps_a_wrapping_policy_calls():
    """record_pull, observe (through the _observe hook a subclass overrides), restart_runs and
    set_rate: what Skipper and Doubling call on their base, on a hand-computed case."""
    pol = started(RecordingDEW(eta=0.5), K=2, B=3)
    pol.choose(0)
    pol.record_pull(0, np.array([1, 0, 1]))  # p_0 = 1/2 everywhere
    RecordingDEW.sink = []
    pol.observe(arrivals(1, [0, 1, 2], [0, 0, 0], [1, 0, 1], [0.5, 1.0, 0.25]), np.array([True, False, True]))
    assert [r for r, _, _ in RecordingDEW.sink] == [0, 2]
    assert np.allclose(pol.cum_loss_, [[0.0, 1.0], [0.0, 0.0], [0.0, 0.5]])
    pol.restart_runs(np.array([2]))
    assert np.allclose(pol.cum_loss_, [[0.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
    assert pol.snapshot()["eta"].tolist() == [0.5, 0.5, 0.5]
    pol.set_rate(0.25, np.array([1]))  # a scalar rate becomes one per run
    assert pol.snapshot()["eta"].tolist() == [0.5, 0.25, 0.5]
    assert pol.kernel_state().eta.tolist() == [0.5, 0.25, 0.5]
    pol.set_rate(np.array([0.1, 0.2, 0.3]))
    pol.kernel_state().eta[0] = 0.4  # the kernel updates the policy's own per-run rates
    assert pol.snapshot()["eta"].tolist() == [0.4, 0.2, 0.3]
    w = np.exp(-np.array([0.4, 0.2, 0.3])[:, None] * (pol.cum_loss_ - pol.cum_loss_.min(axis=1, keepdims=True)))
    assert np.allclose(pol.probabilities(), w / w.sum(axis=1, keepdims=True))


@pytest.mark.parametrize("beta", [1, 4, 4.5, 30])
def test_skipper_passes_exactly_the_feedback_with_delay_below_beta(beta):
    T = 120
    d = np.random.default_rng(5).integers(0, 12, T)
    d[[3, 50, 51]] = [200, 60, 15]
    env = dl.AdversarialLosses(sq.bernoulli_losses([0.4, 0.6], T, seed=2), d)
    RecordingDEW.sink = []
    res = dl.simulate(env, dl.Skipper(beta=beta, base=RecordingDEW(eta=0.1)), T, runs=1, trace=True)
    got = sorted((s, dd) for _, s, dd in RecordingDEW.sink)
    want = [(s, int(d[s])) for s in range(T) if d[s] < beta and s + d[s] <= T - 1]
    assert got == want
    tr = res.traces["Skipper"]
    wait = math.ceil(beta)
    skipped_known = sum(1 for s in range(T - wait + 1) if d[s] >= beta)
    assert tr["skipped"][0, -1] == skipped_known
    assert tr["experienced_delay"][0, -1] == sum(int(d[s]) for s, _ in want)
    assert tr["observed"][0, -1] == len(want)


def test_skipped_and_experienced_by_hand():
    d = [0, 5, 2, 9, 5, 100]
    S, D = skipped_and_experienced(d, [1, 5, 5.5, 10, 101])
    assert S.tolist() == [5, 4, 2, 1, 0] and D.tolist() == [0, 2, 12, 21, 121]


def test_skipper_default_base_is_dew_of_theorem_3():
    pol = started(dl.Skipper(beta=7.0), K=2)
    assert pol.base_._eta_p == pytest.approx(1 / (4 * E * 7.0))
    pol = started(dl.Skipper(beta=7.0, base=dl.DEW(eta=0.01)), K=2)
    assert pol.base_._eta_p == pytest.approx(0.01)


def test_tunings_of_theorem1_and_corollary4():
    K, T, D = 3, 1000, 5000.0
    assert theorem1_eta(K, T, D) == pytest.approx(math.sqrt(math.log(3) / (3 * 1000 * E / 2 + 5000)))
    # β balances 4eβ ln K and (eKT/2 + (1 + 4e)D)/(4eβ): by hand, 22.10
    assert corollary4_beta(K, T, D) == pytest.approx(math.sqrt((E * 3 * 1000 / 2 + (1 + 4 * E) * 5000)
                                                               / (16 * E * E * math.log(3))))
    assert corollary4_beta(K, T, D) == pytest.approx(22.1012, abs=1e-4)
    d = sq.example8_delays(T, 2)
    dew = dl.DEW.theorem1(2, T, d)
    assert dew.dmax == T - 1 and dew.eta == pytest.approx(theorem1_eta(2, T, d.sum()))
    assert dl.Skipper.corollary4(2, T, d).beta == pytest.approx(corollary4_beta(2, T, d.sum()))


# ------------------------------------------------------------------ Doubling
def test_doubling_condition_eq6():
    pol = started(dl.Doubling(), K=2)
    c = E * 2 / 2 * math.log(2)  # eK/2 ln K per round of the epoch
    assert pol.condition(2, 0, 0.0, 2) == (2 * c <= 4)
    assert not pol.condition(3, 0, 0.0, 2)  # 3c = 5.65 > 4
    assert pol.condition(1, 2, 0.0, 2) and not pol.condition(1, 3, 0.0, 3)  # |S|² ≤ ω: 4 ≤ 4, 9 > 8
    assert pol.condition(1, 0, 3.99 / math.log(2) - E, 2) and not pol.condition(1, 0, 4.01 / math.log(2) - E, 2)


def test_doubling_epochs_by_hand_without_delays():
    """K = 2, d_t = 0: epoch m holds σ rounds while (eσ) ln 2 = 1.884σ ≤ 2^m, i.e. ⌊2^m/1.884⌋ rounds:
    1, 2, 4, 8, 16, 33, 67, … for m = 1, 2, … (m = 0 holds none: 1.884 > 1)."""
    T = 200
    env = dl.AdversarialLosses(sq.bernoulli_losses([0.3, 0.6], T), np.zeros(T, int), reveal="at_action")
    res = dl.simulate(env, dl.Doubling(), T, runs=1, trace=True)
    m = res.traces["Doubling"]["epoch"][0]
    start = res.traces["Doubling"]["epoch_start"][0]
    lengths = [int(2.0**j / (E * math.log(2))) for j in range(1, 9)]
    assert lengths[:7] == [1, 2, 4, 8, 16, 33, 67]
    want = np.repeat(np.arange(1, 9), lengths)[:T]
    assert m.tolist() == want.tolist()
    starts = np.concatenate([[0], np.cumsum(lengths)])
    assert np.array_equal(start, starts[m - 1])
    beta = res.traces["Doubling"]["beta"][0]
    assert np.allclose(beta, np.sqrt(2.0 ** m) / (4 * E * math.log(2)))   # Eq. (5)
    assert np.allclose(res.traces["Doubling"]["eta"][0], 1 / (4 * E * beta))


def test_corollary4_beta_gives_the_stated_bound():
    """At Corollary 4's β, Theorem 3 (with |S_β| ≤ D/β and D_β ≤ D) is exactly the corollary's bound:
    86.8 at K = 2, T = 1000, D = 0 (the reading √((eKT/2 + D)/(4e ln K)) gave 156)."""
    from delaylab.papers import thune2019

    for K, T, D in [(2, 1000, 0.0), (3, 2000, 10_000.0), (5, 500, 1e6)]:
        b = corollary4_beta(K, T, D)
        relaxed = D / b + 4 * E * b * math.log(K) + (E * K * T / 2 + D) / (4 * E * b)
        assert relaxed == pytest.approx(thune2019.corollary4_bound(K, T, D), rel=1e-12)
    assert thune2019.corollary4_bound(2, 1000, 0) == pytest.approx(86.81, abs=0.01)


def test_doubling_epochs_meet_lemma_5():
    """Lemma 5: in every completed epoch, the Theorem 3 bound at β_m is at most 3√ω_m — which needs
    β_m = √ω_m/(4e ln K) (with the whole fraction under the root it fails in the first long epoch)."""
    T = 3000
    d = sq.law_delays(dl.Pareto(0.6), T, seed=3)
    d = np.minimum(d, 10 * T)
    env = dl.AdversarialLosses(sq.bernoulli_losses([0.3, 0.6], T), d, reveal="at_action")
    tr = {k: v[0] for k, v in dl.simulate(env, dl.Doubling(), T, runs=1, trace=True).traces["Doubling"].items()}
    ends = np.flatnonzero(np.diff(tr["epoch"]) > 0)  # the last step of every completed epoch
    assert len(ends) >= 5
    lnK = math.log(2)
    for t in ends:
        m, start = int(tr["epoch"][t]), int(tr["epoch_start"][t])
        beta = tr["beta"][t]
        rounds = d[start:t + 1]
        skipped, experienced = (rounds >= beta).sum(), rounds[rounds < beta].sum()
        bound = skipped + 4 * E * beta * lnK + (E * 2 * (t + 1 - start) / 2 + experienced) / (4 * E * beta)
        assert bound <= 3 * math.sqrt(2.0 ** m) + 1e-9, (m, bound, 3 * math.sqrt(2.0 ** m))


def test_doubling_skipped_rounds_force_new_epochs():
    """Every delay enormous: each round is skipped, |S|² dominates: σ² ≤ 2^m."""
    T = 100
    env = dl.AdversarialLosses(sq.bernoulli_losses([0.3, 0.6], T), np.full(T, 10**6), reveal="at_action")
    res = dl.simulate(env, dl.Doubling(), T, runs=1, trace=True)
    tr = res.traces["Doubling"]
    assert tr["skipped"][0, -1] == T and tr["experienced_delay"][0, -1] == 0
    lhs = np.maximum(tr["epoch_length"][0] ** 2.0, E * tr["epoch_length"][0] * math.log(2))
    assert np.all(lhs <= 2.0 ** tr["epoch"][0])  # Eq. (6) holds at every step
    # and a new epoch starts exactly when adding the round would break it
    grow = np.diff(tr["epoch"][0]) > 0
    nxt = tr["epoch_length"][0][:-1] + 1.0
    assert np.array_equal(grow, np.maximum(nxt**2, E * nxt * math.log(2)) > 2.0 ** tr["epoch"][0][:-1])


def test_doubling_restart_drops_feedback_of_earlier_epochs(monkeypatch):
    monkeypatch.setenv("DELAYLAB_KERNELS", "numpy")  # spies on the numpy policy (tests/test_kernels.py: same runs)
    T = 60
    d = np.full(T, 3)
    env = dl.AdversarialLosses(sq.bernoulli_losses([0.3, 0.6], T), d, reveal="at_action")
    pol = dl.Doubling()
    seen = []
    orig = dl.DEW._observe

    def spy(self, feedback, keep=None):
        seen.extend(feedback.step[keep].tolist())
        return orig(self, feedback, keep)

    dl.DEW._observe = spy
    try:
        res = dl.simulate(env, pol, T, runs=1, trace=True)
    finally:
        dl.DEW._observe = orig
    epoch = res.traces["Doubling"]["epoch"][0]
    beta = res.traces["Doubling"]["beta"][0]
    want = [s for s in range(T - 3) if epoch[s] == epoch[s + 3] and 3 < beta[s]]
    assert seen == want and len(want) > 0


def test_doubling_needs_delays_at_action_time():
    env = dl.AdversarialLosses(sq.bernoulli_losses([0.3, 0.6], 20), np.zeros(20, int))
    with pytest.raises(ValueError, match="at_action"):
        dl.simulate(env, dl.Doubling(), 20, runs=1)


# ------------------------------------------------------------------ runs, grids, results
POLICIES = {"Exp3": dl.Exp3(), "DEW": dl.DEW(eta=0.05, dmax=20), "Skipper": dl.Skipper(beta=15),
            "Doubling": dl.Doubling()}


def test_a_run_does_not_depend_on_the_batch():
    T = 400
    env = dl.AdversarialLosses(sq.switching_losses(T, 3, seed=1), dl.Geometric(10), reveal="at_action")
    alone = dl.simulate(env, POLICIES, T, runs=[4], seed=9)
    batch = dl.simulate(env, POLICIES, T, runs=range(7), seed=9)
    for n in POLICIES:
        np.testing.assert_array_equal(alone.regret[n][0], batch.regret[n][4])
        assert not np.array_equal(batch.regret[n][0], batch.regret[n][4])


def test_grid_of_beta_is_one_batch_with_the_same_runs():
    T = 300
    env = dl.AdversarialLosses(sq.bernoulli_losses([0.3, 0.6], T, seed=1), sq.fixed_delays(T, 6))
    g = dl.grid(beta=[3.0, 10.0])
    res = dl.simulate(env, {"s": dl.Skipper(beta=g.beta)}, T, runs=3, seed=2, grid=g)
    assert res.regret["s"].shape == (2, 3, T)
    for i, b in enumerate([3.0, 10.0]):
        one = dl.simulate(env, {"s": dl.Skipper(beta=b)}, T, runs=3, seed=2)
        np.testing.assert_array_equal(res.regret["s"][i], one.regret["s"])


def test_doubling_beats_dew_of_theorem1_on_example8():
    """Example 8 (T = 4096, K = 2, losses with gap 0.5): DEW tuned as in Theorem 1 truncates its
    learning rate to 1/(4e(T − 1)) and barely learns; Doubling and Skipper (Corollary 4) skip the
    huge delays. Paired comparison, 3 standard errors."""
    T, R = 4096, 12
    losses, d = sq.example8(T, 2, gap=0.5, seed=1)
    env = dl.AdversarialLosses(losses, d, reveal="at_action")
    res = dl.simulate(env, {"DEW": dl.DEW.theorem1(2, T, d), "Skipper": dl.Skipper.corollary4(2, T, d),
                            "Doubling": dl.Doubling()}, T, runs=R, seed=3, checkpoints=1)

    def below(a, b):
        diff = res.final(b) - res.final(a)
        return diff.mean() > 3 * diff.std(ddof=1) / math.sqrt(R)

    assert below("Doubling", "Skipper") and below("Skipper", "DEW")
    assert res.final("DEW").mean() > 0.8 * 0.25 * T  # nearly uniform play: regret ≈ gap·T/2


def test_labels():
    assert [p.label for p in POLICIES.values()] == ["Exp3", "DEW", "Skipper", "Doubling"]


# ------------------------------------------------------------------ bad input
T0 = 30
GOOD_L, GOOD_D = sq.bernoulli_losses([0.3, 0.6], T0), np.zeros(T0, int)


@pytest.mark.parametrize("policy, pattern", [
    (dl.DEW(eta=0.0), r"eta = 0 is outside the valid range \(0, ∞\)"),
    (dl.DEW(eta=-1.0), r"eta = -1 is outside"),
    (dl.DEW(eta=0.1, dmax=-2), r"dmax = -2 is outside the valid range \[0, ∞\)"),
    (dl.Exp3(eta=0.0), r"eta = 0 is outside"),
    (dl.Skipper(beta=0.0), r"beta = 0 is outside the valid range \(0, ∞\)"),
    (dl.Skipper(beta=-3.0), r"beta = -3 is outside"),
    (dl.Skipper(beta=np.inf), r"beta = inf is not a finite number"),
    (dl.Skipper(beta=5, base=dl.UCB1()), r"base must be a DEW or Exp3"),
    (dl.Skipper(beta=5, base=dl.DEW(eta=-1)), r"eta = -1 is outside"),
])
def test_bad_hyperparameters(policy, pattern):
    env = dl.AdversarialLosses(GOOD_L, GOOD_D)
    with pytest.raises(ValueError, match=pattern):
        dl.simulate(env, policy, T0, runs=1)


@pytest.mark.parametrize("losses, delays, pattern", [
    (GOOD_L * 2, GOOD_D, r"losses\[\d+, \d\] = 2 is outside the valid range \[0, 1\]"),
    (GOOD_L - 1, GOOD_D, r"is outside the valid range \[0, 1\]"),
    (GOOD_L[:, 0], GOOD_D, r"losses must be a 2-d array"),
    (GOOD_L[:, :1], GOOD_D, r"at least 2 columns"),
    (GOOD_L, GOOD_D - 1, r"delays\[0\] = -1 is outside the valid range"),
    (GOOD_L, GOOD_D[:10], r"one delay per round"),
])
def test_bad_losses_and_delays(losses, delays, pattern):
    with pytest.raises(ValueError, match=pattern):
        dl.AdversarialLosses(losses, delays)


@pytest.mark.parametrize("call, pattern", [
    (lambda: sq.bernoulli_losses([0.5, 1.5], 10), r"means\[1\] = 1.5 is outside"),
    (lambda: sq.bernoulli_losses([0.5], 10), r"at least 2 arms"),
    (lambda: sq.switching_losses(10, gap=2.0), r"gap = 2 is outside"),
    (lambda: sq.fixed_delays(10, -1), r"delay = -1 is outside"),
    (lambda: sq.example8_delays(10, 1), r"n_arms = 1 is outside"),
    (lambda: sq.law_delays("geometric", 10), r"law must be a delay law"),
    (lambda: sq.spiked_delays(10, 11), r"n_spikes = 11 is outside"),
])
def test_bad_sequence_parameters(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


# ------------------------------------------------------------------ sequences
def test_sequences():
    T, K = 10_000, 2
    d = sq.example8_delays(T, K)
    cut = math.sqrt(K * T / math.log(K))  # 169.9
    assert d[0] == T - 1 and d[168] == T - 169 and d[169] == 0 and np.count_nonzero(d) == 169
    assert np.all(np.arange(169) + d[:169] == T - 1)  # all arrive at the last step
    S, D = skipped_and_experienced(d, cut)
    assert S == 169 < cut and D == 0
    L = sq.bernoulli_losses([0.2, 0.8], T, seed=1)
    assert L.shape == (T, 2) and set(np.unique(L)) <= {0.0, 1.0}
    assert abs(L[:, 0].mean() - 0.2) < 0.02 and abs(L[:, 1].mean() - 0.8) < 0.02
    sw = sq.switching_losses(3000, n_arms=2, gap=1.0, phases=3)
    assert np.all(sw[:1000, 0] == 0) and np.all(sw[1000:2000, 1] == 0) and np.all(sw[2000:, 0] == 0)
    assert dl.AdversarialLosses(sw, sq.fixed_delays(3000, 4)).best_arm(3000) == 0
    sp = sq.spiked_delays(100, 4, base=1)
    assert np.sort(sp)[-4:].tolist() == [100] * 4 and np.count_nonzero(sp == 1) == 96
    ld = sq.law_delays(dl.Geometric(20), 5000, seed=3)
    assert ld.dtype == np.int64 and abs(ld.mean() - 20) < 1.5
    assert np.array_equal(ld, sq.law_delays(dl.Geometric(20), 5000, seed=3))
