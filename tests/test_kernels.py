"""Two paths, one truth: every algorithm with a compiled kernel gives the numpy path's runs.

Both paths simulate the same runs on the same draws; pulls must be identical and regrets (and
traced states) equal to 1e-12, across batch sizes (1, 7, 30 runs), chunkings of the runs and of
the time loop, per-cell parameters and per-arm laws. A failure here means the two paths have
drifted apart: fix the one that no longer matches the formula.
"""

import numpy as np
import pytest

import delaylab as dl
import delaylab.engine as engine
from delaylab import kernels
from delaylab.kernels import _env

pytestmark = pytest.mark.skipif(not kernels.available(), reason="numba is not installed")

M, MU, T = 40, 15, 600
GEO = dl.Geometric(mean=MU)
CONV = dl.Conversions([0.5, 0.4, 0.2], GEO, window=M)
UNCENSORED = dl.Conversions([0.5, 0.4, 0.2], GEO)
LABELLED = dl.LabelledRewards([0.5, 0.4, 0.2], GEO, window=M)
PER_ARM = dl.Conversions([0.5, 0.4, 0.2], [dl.Geometric(mean=5), dl.Uniform(0, 30), dl.Fixed(7)], window=M)
GRID_MEANS = dl.Conversions([[0.5, 0.4, 0.2], [0.3, 0.3, 0.1]], GEO, window=M)

# (id, setting, policy): every algorithm with a kernel, in each of its code paths
CASES = [
    ("UCB1/conversions", CONV, dl.UCB1()),
    ("UCB1/labelled", LABELLED, dl.UCB1(c=0.5)),
    ("KL-UCB/conversions", CONV, dl.KLUCB()),
    ("KL-UCB/labelled", LABELLED, dl.KLUCB(eps=0.1)),
    ("D-UCB/geometric", CONV, dl.DelayedUCB(GEO, M)),
    ("D-KLUCB/geometric", CONV, dl.DelayedKLUCB(GEO, M)),
    ("D-KLUCB/geometric/own-window", UNCENSORED, dl.DelayedKLUCB(GEO, 25)),
    ("UD-UCB/geometric", UNCENSORED, dl.DelayedUCB(GEO)),
    ("UD-KLUCB/geometric", UNCENSORED, dl.DelayedKLUCB(GEO)),
    ("D-UCB/tabulated", CONV, dl.DelayedUCB(dl.Uniform(0, 30), M)),
    ("D-KLUCB/tabulated", CONV, dl.DelayedKLUCB(dl.Uniform(0, 30), M)),
    ("UD-KLUCB/tabulated", UNCENSORED, dl.DelayedKLUCB(dl.Pareto(alpha=1.5))),
    ("D-KLUCB/per-arm laws", PER_ARM, dl.DelayedKLUCB([dl.Geometric(mean=5), dl.Uniform(0, 30), dl.Fixed(7)], M)),
    ("D-KLUCB/wrong law", PER_ARM, dl.DelayedKLUCB(GEO, M)),
    ("Discarding UCB", CONV, dl.DiscardingUCB(GEO, M)),
    ("Discarding KL-UCB", CONV, dl.DiscardingKLUCB(GEO, M)),
    ("Discarding KL-UCB/own-window", UNCENSORED, dl.DiscardingKLUCB(GEO, 10)),
    ("Patient Bandits", PER_ARM, dl.PatientBandits(alpha=0.3)),
    ("Patient Bandits/heavy tails", dl.Conversions([0.5, 0.55], [dl.Pareto(1.0), dl.Pareto(0.3)]),
     dl.PatientBandits(alpha=0.8)),
    ("QPM-D/UCB1", LABELLED, dl.QPMD()),
    ("QPM-D/KL-UCB", LABELLED, dl.QPMD(dl.KLUCB(eps=0.2))),
    ("QPM-D/long delays (queues grow)", dl.LabelledRewards([0.5, 0.4, 0.2], dl.Geometric(mean=150)), dl.QPMD()),
]
_LOSSES = dl.sequences.bernoulli_losses([0.4, 0.5, 0.45], T, seed=1)
_LOSSES9 = dl.sequences.bernoulli_losses(np.linspace(0.3, 0.7, 9), T, seed=2) * 0.7  # not whole numbers
ADV_LAW = dl.AdversarialLosses(_LOSSES, dl.Geometric(mean=8))
ADV_SPIKES = dl.AdversarialLosses(_LOSSES9, dl.sequences.spiked_delays(T, 5, spike=60, base=2, seed=1),
                                  reveal="at_action")
CASES += [
    ("Exp3", ADV_LAW, dl.Exp3()),
    ("DEW", ADV_LAW, dl.DEW(eta=0.05, dmax=20)),
    ("DEW/9 arms, spikes", ADV_SPIKES, dl.DEW(eta=0.1)),
    ("Skipper", ADV_LAW, dl.Skipper(beta=6)),
    ("Skipper/Exp3 base, spikes", ADV_SPIKES, dl.Skipper(beta=10, base=dl.Exp3(eta=0.2))),
    ("Doubling/spikes", ADV_SPIKES, dl.Doubling()),
    ("Doubling/law", dl.AdversarialLosses(_LOSSES, dl.Geometric(mean=30), reveal="at_action"), dl.Doubling()),
]
IDS = [c[0] for c in CASES]


def both(monkeypatch, setting, policy, runs, horizon=T, **kw):
    """The numpy path's and the kernels' results of the same simulation."""
    out = []
    for mode in ("numpy", "numba"):
        monkeypatch.setenv("DELAYLAB_KERNELS", mode)
        out.append(dl.simulate(setting, policy, horizon, runs, seed=3, **kw))
    return out


def assert_same(a, b):
    for name in a.regret:
        assert np.array_equal(a.pulls[name], b.pulls[name]), name
        np.testing.assert_allclose(b.regret[name], a.regret[name], rtol=0, atol=1e-12, err_msg=name)
        assert a.traces.get(name, {}).keys() == b.traces.get(name, {}).keys()
        for f, v in a.traces.get(name, {}).items():
            # exponential weights: p ∝ exp(−η L̂) with L̂ summing ℓ/p, so the last-place differences
            # of exp (numpy's SIMD loop against the C library) grow along a run (1e-9 at η = 1)
            tol = 1e-7 if f == "p" else 1e-12
            np.testing.assert_allclose(b.traces[name][f], v, rtol=tol, atol=1e-12, err_msg=f"{name}.{f}")


def equality_tests(cases, trace_horizon):
    """The three tests every case list gets (here and in tests/test_kernels_more.py): each case
    runs a kernel; both paths give the same runs at 1, 7 and 30 runs; and the same traced state
    at every step. Assign the returned functions to test_* names in the test module."""
    ids = [c[0] for c in cases]

    def test_every_case_runs_a_kernel():
        for _, setting, policy in cases:
            problem = dl.Problem(setting.n_arms, T, setting.feedback, getattr(setting, "window", None), None,
                                 engine.Batch(np.arange(2)), 0)
            cal = engine.Calendar(2, 10, with_values=setting.feedback != "conversions")
            assert kernels.kernel_for(policy.clone().start(problem), setting, problem, cal) is not None, policy

    @pytest.mark.parametrize("runs", [1, 7, 30])
    @pytest.mark.parametrize("name, setting, policy", cases, ids=ids)
    def test_kernel_equals_numpy(monkeypatch, name, setting, policy, runs):
        a, b = both(monkeypatch, setting, policy, runs, checkpoints=50)
        assert_same(a, b)
        assert a.regret[policy.label].shape == (runs, 50)

    @pytest.mark.parametrize("name, setting, policy", cases, ids=ids)
    def test_kernel_equals_numpy_with_traces_at_every_step(monkeypatch, name, setting, policy):
        a, b = both(monkeypatch, setting, policy, 5, horizon=trace_horizon, trace=True)
        assert_same(a, b)
        assert a.traces[policy.label]

    return test_every_case_runs_a_kernel, test_kernel_equals_numpy, test_kernel_equals_numpy_with_traces_at_every_step


(test_every_case_runs_a_kernel, test_kernel_equals_numpy,
 test_kernel_equals_numpy_with_traces_at_every_step) = equality_tests(CASES, trace_horizon=200)


@pytest.mark.parametrize("name, setting, policy", CASES[::3], ids=IDS[::3])
def test_kernel_runs_do_not_depend_on_chunks_or_blocks(monkeypatch, name, setting, policy):
    """Chunks of runs and short blocks of steps (the kernel is called once per block) give the
    runs of one big batch, on both paths."""
    a, b = both(monkeypatch, setting, policy, 12, checkpoints=[1, 17, 99, 100, 101, 599, 600])
    assert_same(a, b)
    monkeypatch.setattr(engine, "MEMORY_BUDGET", 1)  # one run per chunk
    monkeypatch.setattr(engine, "_BLOCK_NUMBERS", 1)  # blocks of 8 steps
    c, d = both(monkeypatch, setting, policy, 12, checkpoints=[1, 17, 99, 100, 101, 599, 600])
    assert_same(a, c)
    assert_same(a, d)
    e, f = both(monkeypatch, setting, policy, [11, 3, 5], checkpoints=[1, 17, 99, 100, 101, 599, 600])
    name = policy.label
    assert np.array_equal(f.pulls[name], a.pulls[name][[11, 3, 5]])
    assert_same(e, f)


GRID_CASES = [
    ("UCB1 c per cell", CONV, dl.UCB1(c=np.array([0.5, 2.0, 8.0]))),
    ("KL-UCB ε per cell", LABELLED, dl.KLUCB(eps=np.array([0.0, 1.0]))),
    ("D-KLUCB law per cell", CONV, dl.DelayedKLUCB(dl.Geometric(mean=np.array([5.0, 15.0, 60.0])), M)),
    ("D-UCB ε per cell", CONV, dl.DelayedUCB(GEO, M, eps=np.array([0.0, 0.5]))),
    ("D-KLUCB tabulated law per cell", CONV, dl.DelayedKLUCB(dl.Uniform(0, np.array([10, 30])), M)),
    ("Discarding UCB law per cell", CONV, dl.DiscardingUCB(dl.Geometric(mean=np.array([5.0, 60.0])), M)),
    ("UCB1 means per cell", GRID_MEANS, dl.UCB1()),
    ("D-KLUCB means per cell", GRID_MEANS, dl.DelayedKLUCB(GEO, M)),
    ("Patient α per cell", PER_ARM, dl.PatientBandits(alpha=np.array([0.1, 0.3, 1.0]))),
    ("DEW η per cell", ADV_LAW, dl.DEW(eta=np.array([0.01, 0.1, 1.0]))),
    ("Skipper β per cell", ADV_LAW, dl.Skipper(beta=np.array([2.0, 9.5]))),
    ("QPM-D c per cell", LABELLED, dl.QPMD(dl.UCB1(c=np.array([0.5, 2.0])))),
]


@pytest.mark.parametrize("name, setting, policy", GRID_CASES, ids=[c[0] for c in GRID_CASES])
def test_kernel_equals_numpy_on_grids(monkeypatch, name, setting, policy):
    a, b = both(monkeypatch, setting, policy, 7, checkpoints=20, trace=True)
    assert_same(a, b)
    assert a.grid_shape and a.regret[policy.label].shape[:-2] == a.grid_shape


def test_several_policies_in_one_simulation_each_match(monkeypatch):
    pols = {"u": dl.UCB1(), "d": dl.DelayedKLUCB(GEO, M), "r": dl.RoundRobin(), "x": dl.DiscardingUCB(GEO, M)}
    a, b = both(monkeypatch, CONV, pols, 9, checkpoints=30)
    assert_same(a, b)


def test_numpy_mode_really_runs_numpy(monkeypatch):
    calls = []
    real = _env.Kernel.run

    def spy(self, *args):
        calls.append(type(self).__name__)
        return real(self, *args)

    monkeypatch.setattr(_env.Kernel, "run", spy)
    monkeypatch.setenv("DELAYLAB_KERNELS", "numpy")
    assert not kernels.enabled()
    dl.simulate(CONV, dl.DelayedKLUCB(GEO, M), 50, 3)
    assert calls == []
    monkeypatch.setenv("DELAYLAB_KERNELS", "numba")
    assert kernels.enabled()
    dl.simulate(CONV, dl.DelayedKLUCB(GEO, M), 50, 3)
    assert calls and set(calls) == {"DelayedKernel"}


def test_bad_mode_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("DELAYLAB_KERNELS", "fortran")
    with pytest.raises(ValueError, match="DELAYLAB_KERNELS must be one of"):
        dl.simulate(CONV, dl.UCB1(), 10, 1)


def test_policies_without_a_kernel_take_the_numpy_path(monkeypatch):
    monkeypatch.setenv("DELAYLAB_KERNELS", "numba")
    problem = dl.Problem(3, T, "conversions", M, None, engine.Batch(np.arange(2)), 0)
    cal = engine.Calendar(2, 10, with_values=False)
    online = dl.DelayedKLUCB(dl.OnlineCDF(), M).start(problem)
    assert kernels.kernel_for(online, CONV, problem, cal) is None
    assert kernels.kernel_for(dl.RoundRobin().start(problem), CONV, problem, cal) is None


def test_warmup_compiles_every_kernel_quickly_from_the_cache():
    from delaylab.warmup import warmup

    warmup()  # compiles if needed
    assert warmup() < 30  # from the in-process cache: no compilation (gross bound)


def test_max_batch_sends_large_batches_of_klucb_and_ducb_to_numpy(monkeypatch):
    """KL-UCB's and D-UCB's (geometric count) kernels are no faster than numpy on large batches:
    chunks above their max_batch run on numpy; the other kernels run at every batch size."""
    monkeypatch.setenv("DELAYLAB_KERNELS", "numba")

    def kernel(policy, B):
        problem = dl.Problem(3, T, "conversions", M, None, engine.Batch(np.arange(B)), 0)
        cal = engine.Calendar(B, 10, with_values=False)
        return kernels.kernel_for(policy.clone().start(problem), CONV, problem, cal)

    for policy in (dl.KLUCB(), dl.DelayedUCB(GEO, M)):
        k = kernel(policy, 30)
        assert k is not None and k.max_batch is not None
        assert kernel(policy, k.max_batch) is not None
        assert kernel(policy, k.max_batch + 1) is None
    for policy in (dl.UCB1(), dl.DelayedKLUCB(GEO, M), dl.DelayedUCB(dl.Uniform(0, 30), M),
                   dl.DelayedKLUCB(dl.Uniform(0, 30), M), dl.DiscardingKLUCB(GEO, M)):
        assert kernel(policy, 30).max_batch is None
        assert kernel(policy, 5000) is not None


@pytest.mark.parametrize("policy", [dl.KLUCB(), dl.DelayedUCB(GEO, M)], ids=["KL-UCB", "D-UCB"])
def test_runs_above_max_batch_are_the_runs_of_the_kernel(monkeypatch, policy):
    """A chunk above max_batch (numpy) and chunks below it (the kernel) give the same runs."""
    from delaylab.kernels import index

    monkeypatch.setenv("DELAYLAB_KERNELS", "numba")
    cls = index.BlindKernel if isinstance(policy, dl.KLUCB) else index.DelayedKernel
    monkeypatch.setattr(cls, "max_batch", 5)
    paths = []
    real = engine._Runner._advance_kernel
    monkeypatch.setattr(engine._Runner, "_advance_kernel", lambda self, *a: paths.append(1) or real(self, *a))
    big = dl.simulate(CONV, policy, 300, 12, seed=3, checkpoints=10)  # 12 > 5: numpy
    assert paths == []
    small = dl.simulate(CONV, policy, 300, [11, 3, 5], seed=3, checkpoints=10)  # the kernel
    assert paths
    name = policy.label
    assert np.array_equal(small.pulls[name], big.pulls[name][[11, 3, 5]])
    np.testing.assert_allclose(small.regret[name], big.regret[name][[11, 3, 5]], rtol=0, atol=1e-12)


def test_kl_indices_and_argmax_equal_numpy_on_a_wide_grid():
    """The kernels' D-KLUCB and KL-UCB indices (klucb_poisson, klucb_bernoulli: one arm) and the
    batch argmax (poisson_choose, every run's Newton steps interleaved) against delaylab.indices
    over p, n and β from the edges (p = 0, p ≥ 1, n = 0, tiny and huge β/n) to the typical, with
    ties (equal rows)."""
    from delaylab.indices import klucb_bernoulli, klucb_poisson
    from delaylab.kernels import index

    rng = np.random.default_rng(5)
    p = np.concatenate([[0.0, 1.0, 1.5, 1e-12, 1 - 1e-16], 10 ** rng.uniform(-9, 0, 400), rng.uniform(0, 1, 400)])
    n = np.concatenate([[0.0, -1.0, 1e-9, 1e9], 10 ** rng.uniform(-6, 6, p.size - 4)])
    beta = 10 ** rng.uniform(-3, 2, p.size)
    want = klucb_poisson(p, n, beta)
    got = np.array([index.klucb_poisson(*v, 1.0) for v in zip(p, n, beta)])
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
    assert np.array_equal(np.isinf(got), np.isinf(want))
    # KL-UCB's Bernoulli index (start/step/end, as the blind kernel runs it); p = 1 − 1e-16 left out:
    # there q − p rounds to 0 in the Newton step, which numpy turns into nan and numba into a
    # ZeroDivisionError (p = S/N never comes that close to 1)
    pb, nb, bb = np.minimum(np.delete(p, 4), 1.0), np.delete(n, 4), np.delete(beta, 4)
    want = klucb_bernoulli(pb, nb, bb)
    got = np.array([index.klucb_bernoulli(*v) for v in zip(pb, nb, bb)])
    assert np.array_equal(np.isinf(got), np.isinf(want))
    # numpy's SIMD log/expm1 (AVX-512 on some machines) and the C library numba calls differ by an
    # ulp on ~10% of inputs, and the Newton equation d(p, q) = c is ill-conditioned for tiny c: an
    # ulp of its terms moves q by ε·(|p log p| + |(1−p) log(1−p)| + |p log q| + (1−p)|log(1−q)|)
    # ·q(1−q)/(q − p) (seen: 5e-13 at β/n = 6e-9). Allowed: 64 such ulps (the worst seen over
    # 36,000 random cases: 6.5); a changed formula moves q by far more.
    fin = np.isfinite(want)
    q, pf = want[fin], pb[fin]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = (np.abs(pf * np.log(np.where(pf > 0, pf, 1.0))) + np.abs((1 - pf) * np.log1p(-np.where(pf < 1, pf, 0.5)))
                 + np.abs(pf * np.log(q)) + (1 - pf) * -np.log1p(-np.minimum(q, 1 - 1e-16)))
        cond = np.where(q > pf, q * (1 - q) / (q - pf), 0.0)
    allowed = 64 * np.finfo(float).eps * (np.nan_to_num(terms * cond) + q)
    assert np.all(np.abs(got[fin] - q) <= allowed), np.max(np.abs(got[fin] - q) / allowed)
    K = 4
    th, nt = p[: p.size // K * K].reshape(-1, K), n[: p.size // K * K].reshape(-1, K)
    th[::7] = th[::7, :1]  # ties: the first of equal indices is chosen
    nt[::7] = nt[::7, :1]
    b = np.log(np.arange(th.shape[0]) + 2.0)
    choice = np.empty(th.shape[0], dtype=np.int64)
    scratch = [np.empty(th.shape) for _ in range(4)]
    index.poisson_choose(th, nt, b, 1.0, *scratch, choice)
    assert np.array_equal(choice, np.argmax(klucb_poisson(th, nt, b[:, None]), axis=1))


CALLER = '''from numba import njit

from .helper import step


@njit(cache=True)
def run(x):
    return step(x)
'''
HELPER = '''from numba import njit


@njit(cache=True, inline="always")
def step(x):
    return x + {}
'''


def test_a_change_in_another_module_of_a_kernel_is_not_served_from_numba_s_cache(tmp_path):
    """numba caches a function with the code of what it calls from other modules but checks only
    its own file (numba issue #1833): kernels.drop_stale_cache empties the cache when any of them
    changed. A caller and an inlined helper in two modules, cached, then the helper changed: the
    next process must run the new helper (numba alone would give the old answer from its cache)."""
    import subprocess
    import sys

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "caller.py").write_text(CALLER)
    code = ("import pkg.caller as c; from delaylab.kernels import drop_stale_cache; "
            "print(drop_stale_cache([c]), c.run(1.0))")
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}

    def answer(increment):
        (pkg / "helper.py").write_text(HELPER.format(increment))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        return out.stdout.split()

    assert answer("1.0") == ["True", "2.0"]  # a new cache: stamped
    assert answer("1.0") == ["False", "2.0"]  # from the cache
    assert answer("20.0") == ["True", "21.0"]  # the helper changed: the caller's cache was emptied


# uniform random play, the reference curve of every figure: one kernel for every kind of setting
UNIFORM_CASES = [
    ("uniform/conversions", CONV, dl.UniformRandom()),
    ("uniform/uncensored", UNCENSORED, dl.UniformRandom()),
    ("uniform/labelled", LABELLED, dl.UniformRandom()),
    ("uniform/per-arm laws", PER_ARM, dl.UniformRandom()),
    ("uniform/means per cell", GRID_MEANS, dl.UniformRandom()),
    ("uniform/anonymous", dl.AggregatedAnonymous([0.5, 0.4, 0.2], dl.Poisson(10.0)), dl.UniformRandom()),
    ("uniform/losses", ADV_LAW, dl.UniformRandom()),
    ("uniform/losses, 9 arms, spikes", ADV_SPIKES, dl.UniformRandom()),
    ("uniform/linear", dl.LinearConversions(np.full(3, 1 / np.sqrt(3)), GEO, n_actions=7, window=M),
     dl.UniformRandom()),
]


@pytest.mark.parametrize("name, setting, policy", UNIFORM_CASES, ids=[c[0] for c in UNIFORM_CASES])
def test_uniform_play_has_a_kernel_equal_to_numpy(monkeypatch, name, setting, policy):
    problem = dl.Problem(setting.n_arms, T, setting.feedback, getattr(setting, "window", None), None,
                         engine.Batch(np.arange(2)), 0)
    cal = engine.Calendar(2, 10, with_values=setting.feedback not in ("conversions", "linear"))
    assert kernels.kernel_for(policy.clone().start(problem), setting, problem, cal) is not None
    for runs in (1, 7, 30):
        a, b = both(monkeypatch, setting, policy, runs, checkpoints=50)
        assert_same(a, b)
    monkeypatch.setattr(engine, "MEMORY_BUDGET", 1)  # one run per chunk
    monkeypatch.setattr(engine, "_BLOCK_NUMBERS", 1)  # blocks of 8 steps
    c, d = both(monkeypatch, setting, policy, 7, checkpoints=50)
    assert_same(c, d)
    monkeypatch.undo()
    assert_same(both(monkeypatch, setting, policy, 7, checkpoints=50)[0], c)  # as one chunk in long blocks


def test_step_draws_rows_are_the_steps_stacked():
    """StepDraws.rows (the kernels' uniforms) gives what step-by-step reads give, across buffers."""
    from delaylab.streams import StepDraws

    a, b = StepDraws(5, engine.Batch(np.arange(3)), "x", block=16), StepDraws(5, engine.Batch(np.arange(3)), "x", block=16)
    for t0, t1 in [(0, 1), (1, 16), (16, 17), (20, 70), (70, 71), (100, 140)]:
        assert np.array_equal(a.rows(t0, t1), np.stack([b(t) for t in range(t0, t1)]))
