"""Two paths, one truth, for the kernels of Adapt-Patient Bandits, the
phased family of Pike-Burke et al. 2018 (ODAAF, ODAAF-B, ODAAF-V, Improved UCB), and OTFLinUCB,
OTFLinTS and LinUCB (Vernade et al. 2020).

The same checks as tests/test_kernels.py (whose helpers are used): both paths simulate the
same runs on the same draws; pulls must be identical and regrets and traced states (α_t, α̂_t,
the means, …) equal to 1e-12, across batch sizes, chunkings of the runs and of the time loop,
and per-cell parameters.
"""

import numpy as np
import pytest

import delaylab as dl
import delaylab.engine as engine
from delaylab import kernels
from test_kernels import assert_same, both, equality_tests

pytestmark = pytest.mark.skipif(not kernels.available(), reason="numba is not installed")

T = 600
HEAVY = dl.Conversions([0.5, 0.55], [dl.Pareto(1.0), dl.Pareto(0.3)])
PER_ARM = dl.Conversions([0.5, 0.4, 0.2], [dl.Geometric(mean=5), dl.Uniform(0, 30), dl.Fixed(7)], window=40)

# (id, setting, policy)
CASES = [
    # the paper's constants: α_t = α_low throughout and d_t = 0, α̂_t still estimated (traced)
    ("Adapt-Patient/paper constants", HEAVY, dl.AdaptPatientBandits()),
    # ρ = (c/2)^{1/α_low} = 1/4 and no confidence term: d_t grows, α_t moves with α̂_t
    ("Adapt-Patient/raw estimate", HEAVY, dl.AdaptPatientBandits(c=1.0, alpha_low=0.5, confidence=0.0)),
    ("Adapt-Patient/3 arms, window", PER_ARM, dl.AdaptPatientBandits(c=0.9, alpha_low=0.5, mu_low=0.3,
                                                                     confidence=0.2)),
    # Patient Bandits without its bias term (the comparison of notebook 02 that isolates it)
    ("Patient/no bias term", HEAVY, dl.PatientBandits(alpha=0.3, bias=0.0)),
]
IDS = [c[0] for c in CASES]


(test_every_case_runs_a_kernel, test_kernel_equals_numpy,
 test_kernel_equals_numpy_with_traces_at_every_step) = equality_tests(CASES, trace_horizon=300)


def test_adapt_patient_traces_move(monkeypatch):
    """The traced estimates the equality tests compare are not constant: α̂_t is estimated, and
    with the raw estimate α_t follows it (so a kernel that got them wrong would be caught)."""
    _, setting, policy = CASES[1]
    a, b = both(monkeypatch, setting, policy, 4, horizon=T, trace=True, checkpoints=[1, *range(10, T + 1, 10)])
    tr = b.traces[policy.label]
    hat = tr["alpha_hat"]
    assert np.isnan(hat[:, 0]).all() and np.isfinite(hat[:, -1]).all()
    assert len(np.unique(tr["alpha"])) > 10
    assert_same(a, b)


@pytest.mark.parametrize("name, setting, policy", CASES[1:2], ids=IDS[1:2])
def test_kernel_runs_do_not_depend_on_chunks_or_blocks(monkeypatch, name, setting, policy):
    """(One case: the one whose α_t moves; the numpy path of one-run chunks is slow.)"""
    times = [1, 17, 99, 100, 101, 599, 600]
    a, b = both(monkeypatch, setting, policy, 8, checkpoints=times)
    assert_same(a, b)
    monkeypatch.setattr(engine, "MEMORY_BUDGET", 1)  # one run per chunk
    monkeypatch.setattr(engine, "_BLOCK_NUMBERS", 1)  # blocks of 8 steps
    c, d = both(monkeypatch, setting, policy, 8, checkpoints=times)
    assert_same(a, c)
    assert_same(a, d)
    e, f = both(monkeypatch, setting, policy, [7, 2, 5], checkpoints=times)
    assert np.array_equal(f.pulls[policy.label], a.pulls[policy.label][[7, 2, 5]])
    assert_same(e, f)


GRID_CASES = [
    ("Adapt-Patient κ per cell", HEAVY, dl.AdaptPatientBandits(c=1.0, alpha_low=0.3,
                                                                confidence=np.array([0.0, 0.5, 1.0]))),
    ("Adapt-Patient c per cell", PER_ARM, dl.AdaptPatientBandits(c=np.array([0.3, 1.0]), alpha_low=0.5)),
    ("Patient bias term per cell", HEAVY, dl.PatientBandits(alpha=0.3, bias=np.array([0.0, 0.5, 1.0]))),
]


@pytest.mark.parametrize("name, setting, policy", GRID_CASES, ids=[c[0] for c in GRID_CASES])
def test_kernel_equals_numpy_on_grids(monkeypatch, name, setting, policy):
    a, b = both(monkeypatch, setting, policy, 7, checkpoints=20, trace=True)
    assert_same(a, b)
    assert a.grid_shape and a.regret[policy.label].shape[:-2] == a.grid_shape


# ------------------------------------------------------------------ the phased family (kernels.odaaf)
# The numpy side is the engine's block path (anonymous feedback) or the step-by-step path
# (labelled); tests/test_pikeburke2018_policies.py shows that both give the same runs.
TP = 6000  # long enough for eliminations, bridges, later phases and commitment
ANON = dl.AggregatedAnonymous([0.9, 0.6, 0.2], dl.Uniform(0, 20))
PHASED = [
    ("ODAAF", ANON, dl.ODAAF(mean_delay=10)),
    ("ODAAF-B", ANON, dl.ODAAFB(mean_delay=10, bound=20)),
    ("ODAAF-V", ANON, dl.ODAAFV(mean_delay=10, variance=36.7)),
    ("Improved UCB/no delay", dl.AggregatedAnonymous([0.9, 0.6, 0.2], dl.Fixed(0)), dl.ImprovedUCB()),
    ("Improved UCB/labelled", dl.LabelledRewards([0.7, 0.6, 0.2], dl.Geometric(mean=30)), dl.ImprovedUCB()),
    ("ODAAF-B/censored, geometric", dl.AggregatedAnonymous([0.8, 0.5], dl.Geometric(mean=20), window=15),
     dl.ODAAFB(mean_delay=20, bound=30)),
    ("ODAAF with bridges", ANON, dl.ODAAF(mean_delay=10, bridge=True)),
    ("ODAAF-B without bridges", ANON, dl.ODAAFB(mean_delay=10, bound=20, bridge=False)),
]
PIDS = [c[0] for c in PHASED]


def test_every_phased_case_runs_a_kernel_and_subclasses_do_not():
    from delaylab.exercises.p04 import StudentODAAF

    for _, setting, policy in [*PHASED, ("student", ANON, StudentODAAF(mean_delay=10))]:
        problem = dl.Problem(setting.n_arms, TP, setting.feedback, getattr(setting, "window", None), None,
                             engine.Batch(np.arange(2)), 0)
        cal = engine.Calendar(2, 10, with_values=True)
        k = kernels.kernel_for(policy.clone().start(problem), setting, problem, cal)
        assert (k is not None) == (type(policy) is not StudentODAAF), policy


@pytest.mark.parametrize("runs", [1, 7, 30])
@pytest.mark.parametrize("name, setting, policy", PHASED, ids=PIDS)
def test_phased_kernel_equals_numpy(monkeypatch, name, setting, policy, runs):
    a, b = both(monkeypatch, setting, policy, runs, horizon=TP, checkpoints=40, trace=True)
    assert_same(a, b)
    tr = a.traces[policy.label]
    if runs == 30 and setting.means.max() == 0.9:  # the runs went through the phases' events, which the traces compare
        assert (tr["eliminated_at"][:, -1] >= 0).any()
        assert (tr["phase"][:, -1] >= 1).any()
        assert (tr["bridge_start"][:, -1] >= 0).any() == policy.bridges


@pytest.mark.parametrize("name, setting, policy", PHASED[:4:3], ids=PIDS[:4:3])
def test_phased_kernel_equals_numpy_with_traces_at_every_step(monkeypatch, name, setting, policy):
    a, b = both(monkeypatch, setting, policy, 3, horizon=2500, trace=True)
    assert_same(a, b)


@pytest.mark.parametrize("name, setting, policy", PHASED[1:2], ids=PIDS[1:2])
def test_phased_kernel_runs_do_not_depend_on_chunks_or_blocks(monkeypatch, name, setting, policy):
    """(ODAAF-B: Step 1, eliminations and bridges within 3000 steps.)"""
    times = [1, 17, 999, 1000, 1001, 2999, 3000]
    a, b = both(monkeypatch, setting, policy, 8, horizon=3000, checkpoints=times, trace=True)
    assert_same(a, b)
    assert (a.traces[policy.label]["bridge_start"][:, -1] >= 0).any()
    monkeypatch.setattr(engine, "MEMORY_BUDGET", 1)  # one run per chunk
    monkeypatch.setattr(engine, "_BLOCK_NUMBERS", 1)  # blocks of 8 steps
    c, d = both(monkeypatch, setting, policy, 8, horizon=3000, checkpoints=times, trace=True)
    assert_same(a, c)
    assert_same(a, d)
    e, f = both(monkeypatch, setting, policy, [7, 2, 5], horizon=3000, checkpoints=times)
    assert np.array_equal(f.pulls[policy.label], a.pulls[policy.label][[7, 2, 5]])
    assert_same(e, f)


def test_phased_kernel_on_grids(monkeypatch):
    env = dl.AggregatedAnonymous([[0.9, 0.6, 0.2], [0.6, 0.5, 0.45]], dl.Uniform(0, 20))
    for policy in (dl.ODAAF(mean_delay=np.array([2.0, 10.0])), dl.ODAAFB(mean_delay=10, bound=np.array([20.0, 80.0]))):
        a, b = both(monkeypatch, env, policy, 5, horizon=TP, checkpoints=20, trace=True)
        assert_same(a, b)
        assert a.grid_shape == (2,)


def test_large_batches_of_the_phased_family_take_the_block_path_with_the_same_runs(monkeypatch):
    """Above max_batch (100 runs) numpy's block path is as fast: those chunks run on numpy."""
    monkeypatch.setenv("DELAYLAB_KERNELS", "numba")
    for B, has_kernel in [(100, True), (101, False)]:
        problem = dl.Problem(3, TP, "anonymous", None, None, engine.Batch(np.arange(B)), 0)
        cal = engine.Calendar(B, 10, with_values=True)
        assert (kernels.kernel_for(dl.ODAAF(mean_delay=10).start(problem), ANON, problem, cal) is not None) == has_kernel
    policy = dl.ODAAFV(mean_delay=10, variance=36.7)
    big = dl.simulate(ANON, policy, TP, 120, seed=3, checkpoints=10, trace=True)  # numpy's block path
    part = dl.simulate(ANON, policy, TP, range(90, 120), seed=3, checkpoints=10, trace=True)  # the kernel
    assert np.array_equal(part.pulls["ODAAF-V"], big.pulls["ODAAF-V"][90:])
    np.testing.assert_allclose(part.regret["ODAAF-V"], big.regret["ODAAF-V"][90:], rtol=0, atol=1e-12)
    assert np.array_equal(part.traces["ODAAF-V"]["eliminated_at"], big.traces["ODAAF-V"]["eliminated_at"][90:])


# ------------------------------------------------------------------ linear learners (kernels.linear)
def _linear(d, K, m, mean=30, window="m"):
    return dl.LinearConversions(np.full(d, 1 / np.sqrt(d)), dl.Geometric(mean=mean), n_actions=K,
                                window=m if window == "m" else window)


LINEAR = [
    ("OTFLinUCB/exact", _linear(5, 10, 100), dl.OTFLinUCB(window=100)),
    ("OTFLinUCB/cheap", _linear(3, 4, 20), dl.OTFLinUCB(window=20, width="cheap")),
    ("OTFLinUCB/d=8, K=20, m=500 > T", _linear(8, 20, 500, mean=100), dl.OTFLinUCB(window=500)),
    ("OTFLinUCB/uncensored setting, m=15", _linear(2, 3, None, mean=10, window=None),
     dl.OTFLinUCB(window=15, lam=0.3, delta=0.3)),
    ("OTFLinUCB without delay term", _linear(5, 10, 100), dl.OTFLinUCB(window=100, variant="no-delay-term")),
    ("OTFLinTS/exact", _linear(5, 10, 100), dl.OTFLinTS(window=100)),
    ("OTFLinTS/cheap, d=8, K=20", _linear(8, 20, 50, mean=100), dl.OTFLinTS(window=50, width="cheap")),
    ("LinUCB", _linear(5, 10, 100), dl.LinUCB()),
    ("LinUCB/uncensored", _linear(3, 4, None, mean=10, window=None), dl.LinUCB(lam=0.3)),
]
LIDS = [c[0] for c in LINEAR]


def test_linear_kernels_for_the_algorithms_as_printed():
    setting = LINEAR[0][1]
    problem = dl.Problem(setting.n_arms, T, "linear", setting.window, setting.dim, engine.Batch(np.arange(2)), 0)
    cal = engine.Calendar(2, 10, with_values=False)
    for policy, has_kernel in [(dl.OTFLinUCB(window=100), True), (dl.OTFLinUCB(window=100, width="cheap"), True),
                               (dl.OTFLinUCB(window=100, variant="authors-code"), False),
                               (dl.OTFLinUCB(window=100, variant="no-delay-term"), True),
                               (dl.OTFLinTS(window=100), True), (dl.LinUCB(), True)]:
        assert (kernels.kernel_for(policy.start(problem), setting, problem, cal) is not None) == has_kernel, policy


@pytest.mark.parametrize("runs", [1, 7, 30])
@pytest.mark.parametrize("name, setting, policy", LINEAR, ids=LIDS)
def test_linear_kernel_equals_numpy(monkeypatch, name, setting, policy, runs):
    a, b = both(monkeypatch, setting, policy, runs, checkpoints=30, trace=True)
    assert_same(a, b)  # V^{-1}, θ̂, α and f traced: equal to 1e-12


@pytest.mark.parametrize("name, setting, policy", LINEAR[::3], ids=LIDS[::3])
def test_linear_kernel_runs_do_not_depend_on_chunks_or_blocks(monkeypatch, name, setting, policy):
    times = [1, 17, 99, 100, 101, 299, 300]
    a, b = both(monkeypatch, setting, policy, 8, horizon=300, checkpoints=times, trace=True)
    assert_same(a, b)
    monkeypatch.setattr(engine, "MEMORY_BUDGET", 1)  # one run per chunk
    monkeypatch.setattr(engine, "_BLOCK_NUMBERS", 1)  # blocks of 8 steps
    c, d = both(monkeypatch, setting, policy, 8, horizon=300, checkpoints=times, trace=True)
    assert_same(a, c)
    assert_same(a, d)
    e, f = both(monkeypatch, setting, policy, [7, 2, 5], horizon=300, checkpoints=times)
    assert np.array_equal(f.pulls[policy.label], a.pulls[policy.label][[7, 2, 5]])
    assert_same(e, f)


@pytest.mark.parametrize("cls", [dl.OTFLinUCB, dl.OTFLinTS])
def test_linear_kernel_on_grids(monkeypatch, cls):
    policy = cls(window=40, delta=np.array([0.05, 0.3]), lam=np.array([0.1, 3.0]))
    a, b = both(monkeypatch, _linear(4, 6, 40), policy, 5, checkpoints=20, trace=True)
    assert_same(a, b)
    assert a.grid_shape == (2,)
