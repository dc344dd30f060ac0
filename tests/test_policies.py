"""Policies of Vernade et al. (2017): protocol, qualitative results of the paper, estimators."""

import math

import numpy as np
import pytest

import delaylab as dl

LAW = dl.Geometric(mean=100)
THETA_L = [0.1, 0.05, 0.03]


def test_each_arm_is_played_once_first():
    env = dl.Conversions([0.2, 0.5, 0.1, 0.3], LAW, window=200)
    for pol in [dl.UCB1(), dl.KLUCB(), dl.DelayedUCB(LAW, 200), dl.DelayedKLUCB(LAW, 200)]:
        res = dl.simulate(env, {"p": pol}, horizon=4, runs=3, checkpoints=[1, 2, 3, 4])
        gaps = 0.5 - np.array([0.2, 0.5, 0.1, 0.3])
        assert np.allclose(res.regret["p"], np.cumsum(gaps))


def test_labels_follow_the_paper():
    assert dl.DelayedUCB(LAW, 100).label == "D-UCB"
    assert dl.DelayedKLUCB(LAW, None).label == "UD-KLUCB"
    assert dl.DiscardingKLUCB(LAW, 100).label == "Discarding KL-UCB"
    assert dl.KLUCB().label == "KL-UCB" and dl.UCB1().label == "UCB1"
    assert dl.DelayedKLUCB(dl.OnlineCDF(), 100).label == "D-KLUCB (estimated CDF)"


def test_discarding_plays_round_robin_for_its_first_m_steps():
    m = 300
    env = dl.Conversions(THETA_L, LAW, window=m)
    res = dl.simulate(env, {"d": dl.DiscardingKLUCB(LAW, m)}, horizon=m, runs=5)
    # round robin over 3 arms: regret grows by (0 + 0.05 + 0.07)/3 = 0.04 per step, exactly
    assert np.allclose(res.regret["d"][:, 2::3], 0.12 * np.arange(1, m // 3 + 1))
    assert np.all(res.pulls["d"] == m // 3)


def test_regret_orderings_of_figure_2_on_a_smaller_instance():
    """θ_L, μ = 100, m = 200, T = 3000: D-KLUCB beats Discarding KL-UCB, and the KL variants
    beat the UCB ones at low conversion rates (Section 7). (D-UCB against Discarding UCB is
    checked on the paper's own instance, in the notebook.)"""
    m, T, R = 200, 3000, 60
    env = dl.Conversions(THETA_L, LAW, window=m)
    pols = {"D-KLUCB": dl.DelayedKLUCB(LAW, m), "D-UCB": dl.DelayedUCB(LAW, m),
            "Disc KL": dl.DiscardingKLUCB(LAW, m), "Disc UCB": dl.DiscardingUCB(LAW, m)}
    res = dl.simulate(env, pols, horizon=T, runs=R, seed=11)
    final = {k: res.final(k) for k in pols}

    def below(a, b):  # a's mean regret is below b's by more than 3 standard errors of the difference
        d = final[b] - final[a]  # paired: common random numbers
        return d.mean() > 3 * d.std(ddof=1) / math.sqrt(R)

    assert below("D-KLUCB", "Disc KL")
    assert below("D-KLUCB", "D-UCB") and below("Disc KL", "Disc UCB")


def test_a_misspecified_law_is_accepted_and_matters():
    env = dl.Conversions([0.3, 0.25], dl.Geometric(200), window=400)
    true = dl.DelayedKLUCB(dl.Geometric(200), 400)
    wrong = dl.DelayedKLUCB(dl.Geometric(2), 400)  # believes feedback is almost immediate
    res = dl.simulate(env, {"true": true, "wrong": wrong}, horizon=1500, runs=40, seed=1, trace=True,
                      checkpoints=[1500])
    # with the wrong law Ñ ≈ N: θ̂ is biased low by the missing conversions
    th_true = res.traces["true"]["theta_hat"][:, 0].mean(axis=0)
    th_wrong = res.traces["wrong"]["theta_hat"][:, 0].mean(axis=0)
    assert np.all(th_wrong < th_true)


def test_general_update_matches_geometric_recursion_in_a_simulation():
    """A geometric law given as a SurvivalLaw takes the general (tabulated) path."""
    env = dl.Conversions([0.3, 0.2], dl.Geometric(20), window=60)
    lam = 20 / 21
    same = dl.SurvivalLaw(lambda m: lam ** (m + 1))
    res = dl.simulate(env, {"geo": dl.DelayedKLUCB(dl.Geometric(20), 60), "tab": dl.DelayedKLUCB(same, 60)},
                      horizon=800, runs=10, seed=4)
    assert np.array_equal(res.pulls["geo"], res.pulls["tab"])


def test_per_arm_delay_laws():
    laws = [dl.Geometric(5), dl.Pareto(0.8)]
    env = dl.Conversions([0.5, 0.4], laws, window=50)
    res = dl.simulate(env, {"D-UCB": dl.DelayedUCB(laws, 50)}, horizon=500, runs=5, trace=True, checkpoints=[500])
    n_tilde = res.traces["D-UCB"]["n_tilde"][:, 0]
    pulls = res.pulls["D-UCB"]
    assert np.all(n_tilde[:, 1] < pulls[:, 1] * laws[1].cdf(50) + 1e-9)


def test_online_geometric_estimate_converges_to_the_mean_delay():
    mu, T = 30.0, 6000
    env = dl.Conversions([0.5, 0.45], dl.Geometric(mu))
    res = dl.simulate(env, {"est": dl.DelayedKLUCB(dl.OnlineGeometric(gamma=1.0), None)}, horizon=T,
                      runs=20, seed=3, trace=True, checkpoints=[T])
    mu_hat = res.traces["est"]["mean_delay"][:, 0]
    # the running mean of observed delays; early observations are biased low (long delays are
    # still pending), the bias fades as T/μ grows: within 10% at T = 200 μ
    assert abs(mu_hat.mean() - mu) < 0.1 * mu


def test_online_cdf_estimates_tau_over_tau_m():
    law, m, T = dl.Geometric(40), 80, 6000
    env = dl.Conversions([0.5, 0.45], law, window=m)
    res = dl.simulate(env, {"est": dl.DelayedKLUCB(dl.OnlineCDF(), m)}, horizon=T, runs=20, seed=3,
                      trace=True, checkpoints=[T])
    cdf = res.traces["est"]["cdf"][:, 0]  # (R, m + 1)
    target = law.table(m + 1) / law.cdf(m)
    n_obs = 0.475 * T * law.cdf(m)  # about this many delays observed per run
    tol = 5 * np.sqrt(target * (1 - target) / (n_obs * 20)) + 1e-3
    assert np.all(np.abs(cdf.mean(axis=0) - target) < tol)


def test_estimated_law_variants_do_not_hurt_much():
    """Appendix D, Figure 3: estimating the law online costs little."""
    law, m, T, R = dl.Geometric(50), 150, 3000, 40
    env = dl.Conversions(THETA_L, law, window=m)
    res = dl.simulate(env, {"known": dl.DelayedKLUCB(law, m), "est": dl.DelayedKLUCB(dl.OnlineCDF(), m)},
                      horizon=T, runs=R, seed=8)
    assert res.final("est").mean() < 1.5 * res.final("known").mean()


def test_extreme_but_valid_settings_run():
    # huge mean delay: nothing is ever seen, the policy still runs and plays
    env = dl.Conversions(THETA_L, dl.Geometric(1e6), window=None)
    res = dl.simulate(env, [dl.DelayedKLUCB(dl.Geometric(1e6), None), dl.UCB1()], horizon=500, runs=3)
    assert res.regret["UD-KLUCB"].shape == (3, 500)
    # window 0: only immediate conversions count
    env0 = dl.Conversions(THETA_L, dl.Geometric(2), window=0)
    dl.simulate(env0, [dl.DelayedUCB(dl.Geometric(2), 0), dl.DiscardingKLUCB(dl.Geometric(2), 0)], horizon=300, runs=2)
    # horizon 1
    one = dl.simulate(env0, dl.DelayedKLUCB(dl.Geometric(2), 0), horizon=1, runs=4)
    assert one.regret["D-KLUCB"].shape == (4, 1)
    # very heavy tails, uncensored, general update path
    heavy = dl.Conversions([0.5, 0.3], dl.Pareto(0.05))
    dl.simulate(heavy, dl.DelayedUCB(dl.Pareto(0.05), None), horizon=300, runs=2)


@pytest.mark.parametrize("policy, env, pattern", [
    (dl.DelayedUCB(), dl.Conversions(THETA_L, LAW, 100), r"needs the delay law it assumes"),
    (dl.DelayedUCB(LAW, window=-1), dl.Conversions(THETA_L, LAW, 100), r"window = -1 is outside the valid range \[0, ∞\)"),
    (dl.DelayedUCB(LAW, window=2.5), dl.Conversions(THETA_L, LAW, 100), r"window must be a whole number"),
    (dl.DelayedKLUCB(LAW, 500), dl.Conversions(THETA_L, LAW, 100), r"window = 500 exceeds the setting's window 100.*\[0, 100\]"),
    (dl.DelayedKLUCB(LAW, None), dl.Conversions(THETA_L, LAW, 100), r"window=None assumes every conversion"),
    (dl.DiscardingUCB(LAW, None), dl.Conversions(THETA_L, LAW), r"needs a window m ≥ 0"),
    (dl.DelayedUCB([LAW, LAW], 100), dl.Conversions(THETA_L, LAW, 100), r"list of 3 laws .*got a list of 2"),
    (dl.DelayedUCB("geometric", 100), dl.Conversions(THETA_L, LAW, 100), r"delay must be a delay law"),
    (dl.DelayedUCB(LAW, 100, eps=-1), dl.Conversions(THETA_L, LAW, 100), r"eps = -1 is outside the valid range \[0, ∞\)"),
    (dl.UCB1(c=0), dl.Conversions(THETA_L, LAW), r"c = 0 is outside the valid range \(0, ∞\)"),
    (dl.DelayedUCB(LAW, 100), dl.AggregatedAnonymous(THETA_L, LAW), r"learns from conversions feedback; the setting reveals anonymous"),
    (dl.DelayedUCB(dl.OnlineGeometric(), 100), dl.Conversions(THETA_L, LAW, 100), r"with a window use delaylab.OnlineCDF"),
    (dl.DelayedUCB(dl.OnlineCDF(), None), dl.Conversions(THETA_L, LAW), r"OnlineCDF needs a window"),
    (dl.DelayedUCB(dl.OnlineGeometric(gamma=0.2), None), dl.Conversions(THETA_L, LAW), r"gamma = 0.2 is outside the valid range \[0.5, 1\]"),
    (dl.DelayedUCB(dl.Pareto(1.0), 0), dl.Conversions(THETA_L, LAW, 0), r"τ\(m\) = P\(D ≤ 0\) = 0"),
    (dl.FixedSequence([0, 1]), dl.Conversions(THETA_L, LAW), r"arms lists 2 pulls; the horizon needs 10"),
    (dl.FixedSequence([0, 5] * 5), dl.Conversions(THETA_L, LAW), r"arms\[1\] = 5 is outside the valid range \[0, 2\]"),
])
def test_bad_policy_input_is_reported_before_any_step(policy, env, pattern):
    steps = []

    class Spy(dl.RoundRobin):
        def choose(self, t, context=None):
            steps.append(t)
            return super().choose(t, context)

    with pytest.raises(ValueError, match=pattern):
        dl.simulate(env, {"spy": Spy(), "bad": policy}, horizon=10, runs=2)
    assert steps == []  # no simulation started


def test_windows_longer_than_the_horizon_cost_nothing_and_change_nothing():
    """A lag never exceeds T − 1: m = 10**9 acts like m = T − 1 (and allocates nothing big)."""
    env = dl.Conversions([0.5, 0.4], dl.Geometric(5))
    laws = [dl.Geometric(5), dl.Uniform(0, 30), dl.OnlineCDF()]
    pols = {}
    for i, law in enumerate(laws):
        pols[f"big{i}"] = dl.DelayedKLUCB(law, 10**9)
        pols[f"cap{i}"] = dl.DelayedKLUCB(law, 49)
    pols["disc"] = dl.DiscardingUCB(dl.Geometric(5), 10**9)
    res = dl.simulate(env, pols, horizon=50, runs=30, seed=1)
    for i in range(len(laws)):
        assert np.array_equal(res.regret[f"big{i}"], res.regret[f"cap{i}"])
    assert np.all(res.pulls["disc"] == 25)  # never an index: round robin throughout
