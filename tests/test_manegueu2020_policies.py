"""Manegueu et al. (2020): the Section 8.3 law, the Patient UCB, the α estimator of
Adapt-Patient Bandits, batch independence, bad input and heavy tails."""

import math

import numpy as np
import pytest

import delaylab as dl
from delaylab.policies.patient import log_term, patient_index

MEANS = [0.6, 0.8]


# ------------------------------------------------------------------------ the Section 8.3 law
def test_scaled_pareto_survival_and_moments_by_hand():
    law = dl.ScaledPareto(alpha=0.3, c=0.7)
    m = np.array([0, 1, 2, 9, 99, 10**6])
    assert np.allclose(law.sf(m), 0.7 * (1.0 + m) ** -0.3, rtol=1e-14)
    assert law.sf(-1) == 1.0 and law.pmf(0) == pytest.approx(0.3)
    assert law.label == "0.7·Pareto(α=0.3)"
    assert np.isinf(law.mean)
    law2 = dl.ScaledPareto(alpha=3.5, c=0.5)  # E[D] = Σ_d P(D > d) = c ζ(α)
    d = np.arange(2_000_000, dtype=float)
    assert law2.mean == pytest.approx(0.5 * np.sum((1 + d) ** -3.5), rel=1e-9)
    ed2 = np.sum((2 * d + 1) * 0.5 * (1 + d) ** -3.5)
    assert law2.var == pytest.approx(ed2 - law2.mean**2, rel=1e-6)
    assert np.array_equal(dl.ScaledPareto(0.8, c=1.0).ppf(np.linspace(0, 0.999, 500)),
                          dl.Pareto(0.8).ppf(np.linspace(0, 0.999, 500)))


def test_scaled_pareto_sampling_matches_the_formula():
    law = dl.ScaledPareto(alpha=0.3, c=0.7)
    n = 200_000
    draws = law.sample(n, seed=4)
    for m in [0, 1, 3, 10, 100, 1000, 10**5]:
        p = 0.7 * (1 + m) ** -0.3
        assert abs(np.mean(draws > m) - p) < 5 * math.sqrt(p * (1 - p) / n), m
    u = np.random.default_rng(0).random(5000)
    d = law.ppf(u)  # the generalised inverse: τ(d) ≥ u > τ(d − 1)
    assert np.all(law.cdf(d) >= u) and np.all(law.cdf(d - 1) < u)


def test_scaled_pareto_per_cell_and_very_heavy_tails():
    law = dl.ScaledPareto(alpha=[0.3, 0.05], c=[0.7, 1.0])
    assert law.n_cells == 2 and law.cell(1).label == "1·Pareto(α=0.05)"
    heavy = dl.ScaledPareto(alpha=0.05, c=0.7).ppf(np.array([0.5, 1 - 1e-12, 1 - 2**-53]))
    assert heavy.dtype == np.int64 and heavy[-1] == dl.NEVER and heavy[0] < 10**6


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(alpha=0.0), r"alpha = 0 .*\(0, ∞\)"),
    (dict(alpha=0.3, c=0.0), r"c = 0 .*\(0, 1\]"),
    (dict(alpha=0.3, c=1.5), r"c = 1.5 .*\(0, 1\]"),
])
def test_scaled_pareto_bad_input(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        dl.ScaledPareto(**kwargs)


# ------------------------------------------------------------------------ the UCB of Theorem 1
def test_patient_index_by_hand():
    # K = 2, T = 3000: log(2KT³) = log 4 + 3 log 3000
    L = math.log(4) + 3 * math.log(3000)
    assert log_term(2, 3000) == pytest.approx(L)
    mean, pulls = np.array([[0.5, 0.25]]), np.array([[100.0, 16.0]])
    got = patient_index(mean, pulls, 0.3, 2, 3000)
    want = [0.5 + math.sqrt(2 * L / 100) + 2 * 100**-0.3, 0.25 + math.sqrt(2 * L / 16) + 2 * 16**-0.3]
    assert np.allclose(got, [want], rtol=1e-13)
    # α ∧ 1/2: any α ≥ 1/2 gives the same index, 2/sqrt(T_i) as bias term
    assert np.allclose(patient_index(mean, pulls, 0.9, 2, 3000),
                       mean + np.sqrt(2 * L / pulls) + 2 / np.sqrt(pulls), rtol=1e-13)
    # α → 0: the bias term tends to 2, nothing overflows
    tiny = patient_index(mean, pulls, 1e-300, 2, 3000)
    assert np.all(np.isfinite(tiny)) and np.allclose(tiny - mean - np.sqrt(2 * L / pulls), 2.0)


def test_patient_plays_each_arm_once_then_its_ucb():
    env = dl.Conversions([0.3, 0.5, 0.4], delays=dl.Fixed(0))
    res = dl.simulate(env, {"p": dl.PatientBandits(0.5)}, horizon=3, runs=2, checkpoints=[1, 2, 3])
    assert np.allclose(res.regret["p"], [[0.2, 0.2, 0.3]] * 2)
    res = dl.simulate(env, {"a": dl.AdaptPatientBandits()}, horizon=6, runs=2, checkpoints=[6])
    assert np.array_equal(res.pulls["a"], [[2, 2, 2]] * 2)  # each arm twice


def test_a_run_does_not_depend_on_the_batch():
    env = dl.Conversions(MEANS, delays=[dl.ScaledPareto(0.3, 0.7), dl.Pareto(0.3)])
    pols = {"P": dl.PatientBandits(0.3), "A": dl.AdaptPatientBandits(c=0.9, alpha_low=0.5, confidence=0.0)}
    big = dl.simulate(env, pols, horizon=1200, runs=12, seed=5, trace=True, checkpoints=40)
    alone = dl.simulate(env, pols, horizon=1200, runs=[7], seed=5, trace=True, checkpoints=40)
    for n in pols:
        assert np.array_equal(alone.regret[n][0], big.regret[n][7])
    assert np.array_equal(alone.traces["A"]["alpha"][0], big.traces["A"]["alpha"][7])


def test_grid_of_alpha_equals_separate_simulations():
    env = dl.Conversions([0.5, 0.55], delays=[dl.Pareto(1.0), dl.Pareto(0.3)])
    g = dl.grid(alpha=[0.05, 0.3, 0.5])
    res = dl.simulate(env, {"P": dl.PatientBandits(alpha=g.alpha)}, 800, runs=4, seed=2, grid=g)
    assert res.regret["P"].shape == (3, 4, 800)
    for i, a in enumerate(g.alpha):
        one = dl.simulate(env, {"P": dl.PatientBandits(alpha=a)}, 800, runs=4, seed=2)
        assert np.array_equal(res.regret["P"][i], one.regret["P"])


def test_grid_of_adapt_patient_constants_equals_separate_simulations():
    env = dl.Conversions(MEANS, delays=[dl.ScaledPareto(0.3, 0.7), dl.Pareto(0.3)])
    g = dl.grid(c=[0.7, 1.0], alpha_low=[0.2, 0.4])
    pol = dl.AdaptPatientBandits(c=g.c, alpha_low=g.alpha_low, mu_low=0.5, confidence=[0.0, 0.5, 1.0, 0.2])
    res = dl.simulate(env, {"A": pol}, 900, runs=3, seed=4, grid=g, trace=True, checkpoints=30)
    kappas = [0.0, 0.5, 1.0, 0.2]
    for i, (c, a) in enumerate([(0.7, 0.2), (0.7, 0.4), (1.0, 0.2), (1.0, 0.4)]):
        one = dl.simulate(env, {"A": dl.AdaptPatientBandits(c=c, alpha_low=a, mu_low=0.5, confidence=kappas[i])},
                          900, runs=3, seed=4, trace=True, checkpoints=30)
        r, k = divmod(i, 2)
        assert np.array_equal(res.regret["A"][r, k], one.regret["A"])
        assert np.array_equal(res.traces["A"]["alpha"][r, k], one.traces["A"]["alpha"])


def test_patient_bandits_beats_ducb_when_the_better_arm_has_heavier_delays():
    """Figure 5 in small: μ = (0.6, 0.8), α = (1, 0.3); D-UCB assumes Pareto(0.7) for both arms.
    With m = 10 it sees 0.6·τ_1(10) = 0.545 against 0.8·τ_2(10) = 0.41: the worse arm looks better."""
    env = dl.Conversions(MEANS, delays=[dl.Pareto(1.0), dl.Pareto(0.3)])
    pols = {"P": dl.PatientBandits(0.5), "D": dl.DelayedUCB(dl.Pareto(0.7), window=10)}
    res = dl.simulate(env, pols, horizon=3000, runs=30, seed=1)
    d = res.final("D") - res.final("P")
    assert d.mean() > 4 * d.std(ddof=1) / math.sqrt(30)
    assert res.pulls["D"][:, 0].mean() > 0.8 * 3000  # D-UCB mostly plays the worse arm


class _OneArmEstimator(dl.AdaptPatientBandits):
    """Adapt-Patient's α estimator watched while arm 0 is always played (non-adaptive)."""

    def choose(self, t, context=None):
        self.alpha_hat_, self.alpha_ = self.estimate()
        return np.zeros(self.problem_.size, dtype=np.int64)


def test_alpha_estimator_divides_by_t_bar_as_printed_and_converges_on_the_section_8_3_law():
    """Review nb02-r1, W3: m_{t,D} = (1/T_bar_t) Σ_{pulls at least D steps old} X_{s,D}, the printed
    normaliser 1/T_bar_t (not the n_t pulls the sum runs over). So m_{t,D} − m_{t,d} estimates
    (n_t/T_bar_t)·μ(τ(D) − τ(d)) without bias; with one arm played at every step n_t = T_bar_t − D_t
    ≈ T_bar_t/2, and α_hat = −log(m_{t,D} − m_{t,d}) / log T_bar approaches α = 0.3 from above."""
    alpha, c, mu = 0.3, 0.7, 0.8
    law = dl.ScaledPareto(alpha, c)
    env = dl.Conversions([mu, 0.5], delays=[law, dl.Pareto(1.0)])
    T, R = 6000, 60
    pol = _OneArmEstimator(c=c, alpha_low=alpha, mu_low=0.6, confidence=0.0)
    res = dl.simulate(env, {"e": pol}, T, R, seed=8, trace=True, checkpoints=[1000, 3000, 6000])
    a_hat = res.traces["e"]["alpha_hat"]  # (R, 3): α_hat used at steps 1000, 3000, 6000
    rho = (c / 2) ** (1 / alpha)
    population = []
    for j, t in enumerate(res.times):
        t_bar = t - 1  # pulls of arm 0 made before the decision of step t (0-based t − 1)
        D = t_bar // 2
        d = math.floor(rho * D)
        n = t_bar - D  # the pulls at least D steps old: all but the last D
        expected = n / t_bar * mu * (law.cdf(D) - law.cdf(d))
        unnormalised = mu * (law.cdf(D) - law.cdf(d))  # what dividing by n would estimate
        diff = np.exp(-a_hat[:, j] * math.log(t_bar))  # m_{t,D} − m_{t,d} of each run
        se = diff.std(ddof=1) / math.sqrt(R)
        assert abs(diff.mean() - expected) < 4 * se, (t, diff.mean(), expected, se)
        assert abs(diff.mean() - unnormalised) > 20 * se  # the 1/n_t of main's code is rejected
        population.append(-math.log(expected) / math.log(t_bar))
    assert abs(a_hat[:, -1].mean() - population[-1]) < 0.01 and 0 < population[-1] - alpha < math.log(2) / math.log(6000)
    assert np.all(np.diff(a_hat.mean(axis=0)) < 0)  # approaches α from above


def test_adapt_patient_with_the_paper_constants_stays_at_alpha_low():
    """c = 0.7, α_low = 0.1, μ_low = 0.6, T = 10⁴: the confidence term exceeds 0.6 (our reading)."""
    conf = math.log(24 * math.sqrt(log_term(2, 10_000)) / (0.7 * 0.6))
    assert conf / math.log(10_000) > 0.6
    env = dl.Conversions(MEANS, delays=[dl.ScaledPareto(0.3, 0.7), dl.Pareto(0.3)])
    res = dl.simulate(env, {"A": dl.AdaptPatientBandits()}, 10_000, 4, trace=True, checkpoints=20)
    assert np.all(res.traces["A"]["alpha"] == 0.1)
    assert np.all(np.isfinite(res.traces["A"]["alpha_hat"][:, 1:]))


def test_heavy_tails_and_tiny_alpha_run():
    env = dl.Conversions([0.3, 0.6], delays=[dl.Pareto(0.05), dl.ScaledPareto(0.05, 0.7)])
    pols = {"P": dl.PatientBandits(1e-6), "A": dl.AdaptPatientBandits(alpha_low=1e-3, c=1.0),
            "D": dl.DelayedUCB(dl.Pareto(0.05), window=50)}
    res = dl.simulate(env, pols, 2000, 3, trace=True, checkpoints=10)
    for n in pols:
        assert np.all(np.isfinite(res.regret[n]))


@pytest.mark.parametrize("policy, pattern", [
    (dl.PatientBandits(alpha=0), r"alpha = 0 .*\(0, ∞\)"),
    (dl.PatientBandits(alpha=-1), r"alpha = -1 "),
    (dl.PatientBandits(alpha="x"), r"alpha must be a number"),
    (dl.PatientBandits(alpha=0.3, bias=-1), r"bias = -1 .*\[0, ∞\)"),
    (dl.AdaptPatientBandits(c=0), r"c = 0 .*\(0, 1\]"),
    (dl.AdaptPatientBandits(c=1.2), r"c = 1.2 .*\(0, 1\]"),
    (dl.AdaptPatientBandits(mu_low=0), r"mu_low = 0 .*\(0, 1\]"),
    (dl.AdaptPatientBandits(mu_low=1.5), r"mu_low = 1.5 .*\(0, 1\]"),
    (dl.AdaptPatientBandits(alpha_low=0), r"alpha_low = 0 .*\(0, 1\]"),
    (dl.AdaptPatientBandits(confidence=-1), r"confidence = -1 .*\[0, ∞\)"),
])
def test_bad_input_is_reported_before_any_step(policy, pattern):
    env = dl.Conversions(MEANS, delays=[dl.Pareto(1.0), dl.Pareto(0.3)])
    with pytest.raises(ValueError, match=pattern):
        dl.simulate(env, policy, 100, 2)


def test_per_cell_hyperparameters_must_match_the_grid():
    env = dl.Conversions(np.array([[0.5, 0.6], [0.5, 0.7], [0.5, 0.8]]), delays=dl.Pareto(0.5))
    with pytest.raises(ValueError, match="same number of grid cells.*alpha has 2"):
        dl.simulate(env, dl.PatientBandits(alpha=[0.1, 0.2]), 100, 2)


def test_per_arm_lists_of_the_wrong_length_are_refused():
    with pytest.raises(ValueError, match="delays"):
        dl.Conversions(MEANS, delays=[dl.Pareto(1.0), dl.Pareto(0.3), dl.Pareto(0.5)])
    with pytest.raises(ValueError, match="2 laws"):
        dl.simulate(dl.Conversions(MEANS, delays=dl.Pareto(0.5)),
                    dl.DelayedUCB([dl.Pareto(0.7)] * 3, window=10), 100, 2)


def test_labels():
    assert dl.PatientBandits(0.3).label == "Patient Bandits"
    assert dl.AdaptPatientBandits().label == "Adapt-Patient Bandits"
