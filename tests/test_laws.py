"""Delay laws: hand-computed CDFs and moments, inverse-CDF sampling against the CDF, tails."""

import math

import numpy as np
import pytest

import delaylab as dl

N_DRAWS = 200_000


def laws():
    return [
        dl.Geometric(mean=500),
        dl.Geometric(mean=0.3),
        dl.Pareto(alpha=0.3),
        dl.Pareto(alpha=2.5),
        dl.Uniform(3, 17),
        dl.Poisson(mean=4.5),
        dl.Poisson(mean=300),
        dl.HalfNormal(scale=20),
        dl.Fixed(7),
        dl.SurvivalLaw(lambda m: 0.7 * (1 + m) ** -0.3, label="0.7(1+m)^-0.3"),
        dl.criteo(scale=100),
    ]


@pytest.mark.parametrize("law", laws(), ids=lambda law: law.label)
def test_sampling_matches_cdf(law):
    """P̂(D ≤ d) from inverse-CDF draws is within 5 standard errors of τ(d) at many lags."""
    d = law.sample(N_DRAWS, seed=1)
    lags = np.unique(np.quantile(d[d < dl.NEVER], np.linspace(0.02, 0.98, 15)).astype(np.int64))
    for lag in lags:
        p = law.cdf(lag)
        emp = np.mean(d <= lag)
        tol = 5 * math.sqrt(max(p * (1 - p), 1e-6) / N_DRAWS)
        assert abs(emp - p) <= tol, (law.label, lag, emp, p)


@pytest.mark.parametrize("law", laws(), ids=lambda law: law.label)
def test_ppf_is_the_generalised_inverse(law):
    """ppf(u) = min{d : τ(d) ≥ u}: τ(ppf(u)) ≥ u > τ(ppf(u) − 1) for every u."""
    u = np.random.default_rng(2).random(5000)
    d = law.ppf(u)
    finite = d < dl.NEVER
    assert np.all(law.cdf(d[finite]) >= u[finite])
    # minimality, where consecutive CDF values are distinct in double precision (far in a
    # heavy tail, τ(d − 1) and τ(d) round to the same number)
    lo, hi = law.cdf(d[finite] - 1), law.cdf(d[finite])
    resolved = hi - lo > 1e-15
    assert resolved.mean() > 0.9
    assert np.all(lo[resolved] < u[finite][resolved])
    assert d.dtype == np.int64 and np.all(d >= 0)


@pytest.mark.parametrize("law", laws(), ids=lambda law: law.label)
def test_ppf_unchecked_is_ppf_without_the_checks(law):
    """The settings' fast path gives ppf's delays, with or without cells."""
    u = np.random.default_rng(4).random(2000)
    assert np.array_equal(law.ppf_unchecked(u), law.ppf(u))
    cells = np.zeros(u.shape, dtype=np.int64)
    assert np.array_equal(law.ppf_unchecked(u, cells), law.ppf(u))


def test_ppf_unchecked_per_cell():
    law = dl.Poisson(mean=[2.0, 50.0])
    u = np.random.default_rng(5).random((1000, 3))
    cells = np.array([1, 0, 1])
    want = np.stack([dl.Poisson(m).ppf(u[:, j]) for j, m in enumerate((50.0, 2.0, 50.0))], axis=-1)
    assert np.array_equal(law.ppf_unchecked(u, cells), want)


def test_empirical_tables_are_public_and_read_only():
    law = dl.criteo(scale=100)
    assert law.probs[0] == 0 and law.probs[-1] == 1 and law.delays.shape == law.probs.shape
    assert np.array_equal(law.probs, law.get_params()["probs"])
    assert np.array_equal(law.delays, law.get_params()["delays"])
    with pytest.raises(ValueError):
        law.probs[0] = 0.5
    with pytest.raises(ValueError):
        law.delays[0] = 1.0


@pytest.mark.parametrize("law", laws(), ids=lambda law: law.label)
def test_cdf_sf_pmf_are_consistent(law):
    d = np.arange(-2, 60)
    assert np.allclose(law.cdf(d) + law.sf(d), 1.0)
    assert np.all(np.diff(law.cdf(d)) >= -1e-15)
    assert np.allclose(law.pmf(d), law.cdf(d) - law.cdf(d - 1))
    assert law.cdf(-1) == 0.0 and isinstance(law.label, str) and law.label


def test_geometric_by_hand():
    law = dl.Geometric(mean=1.0)  # p = 1/2 on {0, 1, …}: P(D > d) = 2^-(d+1)
    assert law.ratio == pytest.approx(0.5)
    assert law.cdf(0) == pytest.approx(0.5)
    assert law.cdf(2) == pytest.approx(1 - 1 / 8)
    assert law.sf(3) == pytest.approx(1 / 16)
    assert (law.mean, law.var) == (1.0, 2.0)
    assert dl.Geometric(mean=500).ratio == pytest.approx(500 / 501)


def test_pareto_by_hand():
    law = dl.Pareto(alpha=1.0)  # P(D > m) = 1/(m + 1)
    assert law.sf(0) == 1.0 and law.sf(3) == pytest.approx(0.25)
    assert law.cdf(0) == 0.0  # D = ⌊X⌋ with X ≥ 1
    assert law.mean == np.inf
    law = dl.Pareto(alpha=2.5)
    assert law.mean == pytest.approx(1.341487257250917, rel=1e-12)  # ζ(2.5)
    # Var = 2ζ(1.5) − ζ(2.5) − ζ(2.5)²
    assert law.var == pytest.approx(2 * 2.612375348685488 - 1.341487257250917 - 1.341487257250917**2, rel=1e-12)
    assert dl.Pareto(alpha=1.5).var == np.inf


def test_zeta_known_values():
    assert dl.laws.zeta(2.0) == pytest.approx(math.pi**2 / 6, rel=1e-14)
    assert dl.laws.zeta(3.0) == pytest.approx(1.2020569031595942, rel=1e-14)
    assert dl.laws.zeta(1.5) == pytest.approx(2.612375348685488, rel=1e-14)
    assert dl.laws.zeta(1.0) == np.inf


def test_uniform_poisson_halfnormal_fixed_by_hand():
    u = dl.Uniform(2, 5)
    assert [u.cdf(d) for d in (1, 2, 3, 5)] == [0.0, 0.25, 0.5, 1.0]
    assert (u.mean, u.var) == (3.5, 1.25)
    p = dl.Poisson(mean=3.0)
    assert p.cdf(0) == pytest.approx(math.exp(-3))
    assert p.cdf(2) == pytest.approx(math.exp(-3) * (1 + 3 + 4.5))
    assert (p.mean, p.var) == (3.0, 3.0)
    h = dl.HalfNormal(scale=2.0)  # D = ⌊2|Z|⌋: τ(d) = erf((d + 1)/(2√2))
    assert h.cdf(0) == pytest.approx(math.erf(1 / (2 * math.sqrt(2))))
    assert h.cdf(3) == pytest.approx(math.erf(4 / (2 * math.sqrt(2))))
    assert h.mean == pytest.approx(sum(math.erfc(d / (2 * math.sqrt(2))) for d in range(1, 40)))
    f = dl.Fixed(4)
    assert (f.cdf(3), f.cdf(4), f.mean, f.var) == (0.0, 1.0, 4.0, 0.0)
    assert np.all(f.sample(10, seed=0) == 4)


def test_survival_law_section_8_3():
    law = dl.SurvivalLaw(lambda m: 0.7 * (1 + m) ** -0.3)
    assert law.cdf(0) == pytest.approx(0.3)
    assert law.ppf(0.2) == 0
    # smallest d with 0.7 (1 + d)^-0.3 ≤ 0.69 is d = 1
    assert law.ppf(0.31) == 1
    assert law.ppf(0.99) == math.ceil((0.7 / 0.01) ** (1 / 0.3) - 1)
    assert np.isnan(law.mean)  # infinite here: not computed
    known = dl.SurvivalLaw(lambda m: 0.5 ** (m + 1), mean=1.0, var=2.0)  # geometric(1)
    assert (known.mean, known.var) == (1.0, 2.0)
    assert dl.SurvivalLaw(lambda m: 0.5 ** (m + 1)).mean == pytest.approx(1.0)


def test_defective_and_astronomical_delays_do_not_overflow():
    never = dl.SurvivalLaw(lambda m: 0.2 + 0.8 / (1 + m))  # 20% of feedback never comes
    assert never.ppf(0.9) == dl.NEVER
    with np.errstate(all="raise"):
        heavy = dl.Pareto(alpha=0.05).ppf(np.array([0.5, 1 - 1e-12, 1 - 2**-53]))
        assert heavy[-1] == dl.NEVER and np.all(heavy > 0)
        assert dl.Fixed(10**30).ppf(0.5) == dl.NEVER
        g = dl.Geometric(mean=1e6).sample(1000, seed=0)
    assert abs(g.mean() - 1e6) < 5 * 1e6 / math.sqrt(1000)


def test_criteo_law_matches_its_source():
    law = dl.criteo(scale=1.0)  # one step = one second
    day = 86_400
    assert law.mean / day == pytest.approx(6.6, abs=0.1)  # "mean delay about 6.6 days"
    assert law.ppf(0.5) / day == pytest.approx(3.4, abs=0.1)  # "median about 3.4 days"
    assert dl.criteo(scale=100).ppf(0.5) == pytest.approx(law.ppf(0.5) / 100, abs=1)


def test_per_cell_parameters_broadcast_over_the_last_axis():
    law = dl.Geometric(mean=[1.0, 10.0, 100.0])
    assert law.n_cells == 3 and law.per_cell
    assert np.allclose(law.cdf(np.zeros(3)), [dl.Geometric(m).cdf(0) for m in (1, 10, 100)])
    assert law.table(5).shape == (3, 5)
    assert law.cell(2).label == "Geometric(μ=100)"
    assert np.allclose(law.mean, [1, 10, 100])
    pois = dl.Poisson(mean=[2.0, 50.0])
    u = np.random.default_rng(0).random((40_000, 2))
    d = pois.ppf(u)
    assert np.allclose(d.mean(axis=0), [2.0, 50.0], rtol=0.02)
    assert np.allclose(pois.cdf(np.array([[1, 1]])), [[dl.Poisson(2.0).cdf(1), dl.Poisson(50.0).cdf(1)]])


def test_saturation_lag():
    assert dl.Uniform(0, 10).saturation_lag(1000) == 10
    assert dl.Fixed(0).saturation_lag(50) == 0
    assert dl.Geometric(mean=5).saturation_lag(100) == 100  # τ < 1 up to 100
    assert dl.Pareto(alpha=1.0).saturation_lag(10_000) == 10_000


@pytest.mark.parametrize(
    "make, pattern",
    [
        (lambda: dl.Geometric(mean=0), r"mean = 0.* valid range \(0, ∞\)"),
        (lambda: dl.Geometric(mean=-3), r"mean = -3"),
        (lambda: dl.Geometric(mean=float("nan")), r"mean = nan is not a finite number"),
        (lambda: dl.Pareto(alpha=0), r"alpha = 0.*\(0, ∞\)"),
        (lambda: dl.Uniform(5, 2), r"high = 2 must be ≥ low = 5"),
        (lambda: dl.Uniform(0.5, 2), r"whole numbers"),
        (lambda: dl.Poisson(mean=-1), r"mean = -1"),
        (lambda: dl.HalfNormal(scale=0), r"scale = 0"),
        (lambda: dl.Fixed(-1), r"delay = -1"),
        (lambda: dl.SurvivalLaw(lambda m: 0.1 + 0 * m + 0.01 * np.minimum(m, 5)), r"non-increasing"),
        (lambda: dl.SurvivalLaw(3), r"callable"),
        (lambda: dl.Geometric(mean="fast"), r"mean must be a number"),
        (lambda: dl.criteo(scale=0), r"scale = 0"),
    ],
)
def test_bad_parameters_name_parameter_value_and_range(make, pattern):
    with pytest.raises(ValueError, match=pattern):
        make()


def test_large_poisson_grids_stay_small_and_exact():
    lams = np.array([2.0, 1e4, 1e7])
    law = dl.Poisson(mean=lams)
    assert sum(t.size for t in law._tables) < 100_000  # tables cover λ ± 12√λ only
    # P(X ≤ λ) ≈ 1/2 + 2/(3√(2πλ)) for large λ (Ramanujan): 0.50266 and 0.500084
    expected = [float(dl.Poisson(2.0).cdf(2)), 0.5 + 2 / (3 * np.sqrt(2 * np.pi * 1e4)),
                0.5 + 2 / (3 * np.sqrt(2 * np.pi * 1e7))]
    assert law.cdf(np.array([2.0, 1e4, 1e7])) == pytest.approx(expected, abs=1e-5)
    d = law.ppf(np.random.default_rng(0).random((20_000, 3)))
    assert np.allclose(d.mean(axis=0), lams, rtol=5 * np.sqrt(lams) / lams / np.sqrt(20_000) + 1e-9)
