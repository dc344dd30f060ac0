"""Property-based tests (Hypothesis) of input validation, issue 17.

Hypothesis generates bad and edge values for every public constructor (delay laws, settings,
policies) and every argument of simulate and sweep. For each value, exactly one of:

* it is valid (by an independent description of the valid range written here), and the object
  is built and a short simulation runs to the end with finite regret; or
* it is invalid, and a ``ValueError`` naming the parameter is raised, from delaylab's own code
  (not from numpy), before any step is simulated (a progress callable must not have been called).

So: no silent acceptance, no numpy traceback, no error after work. The examples are few and
derandomized (profile "delaylab" in conftest.py).
"""

from __future__ import annotations

import math
import numbers
import traceback

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import assume, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import delaylab as dl  # noqa: E402

LAW = dl.Geometric(5)
T, R = 12, 2

# ------------------------------------------------------------------ generated values
finite = st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False)
edge_floats = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 1e-300, 1e300, -1e300, 2.0**63,
                               float("nan"), float("inf"), -float("inf")])
numbers_ = st.one_of(finite, edge_floats, st.integers(-10**20, 10**20), st.sampled_from([0, 1, 2, 3, -1, 10**9]))
junk = st.one_of(
    st.none(), st.booleans(), st.text(alphabet="ab1.,- ", max_size=4), st.complex_numbers(max_magnitude=5),
    st.just(object()), st.just([]), st.just({}), st.just(np.array([[0.5, 0.5]])),
)
scalars = st.one_of(numbers_, junk)
vectors = st.lists(st.one_of(numbers_, st.sampled_from([0.1, 0.3, 0.9])), min_size=0, max_size=4)
anything = st.one_of(scalars, vectors, vectors.map(np.array))


def _real(v):
    """v as a float (a real, non-bool number), else None."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        return None
    return float(v)


def _reals(v, ndim=(0, 1)):
    """v as a non-empty float array of finite reals with an allowed ndim, else None."""
    if isinstance(v, (str, bytes, bool, np.bool_)) or v is None:
        return None
    if isinstance(v, (list, np.ndarray)):
        items = list(np.asarray(v, dtype=object).ravel()) if isinstance(v, np.ndarray) else v
        if any(_real(x) is None for x in items):
            return None
    elif _real(v) is None:
        return None
    arr = np.asarray(v, dtype=float)
    if arr.ndim not in ndim or arr.size == 0 or not np.all(np.isfinite(arr)):
        return None
    return arr


def _whole(v, low, high):
    x = _real(v)
    return x is not None and math.isfinite(x) and x == int(x) and low <= x <= high


def expect(make, valid: bool, name: str, run=None):
    """Build with ``make()``; then, if built, run ``run(obj, progress)``. Check the contract."""
    calls = []

    def progress(frac):
        calls.append(frac)

    try:
        obj = make()
        if run is not None:
            out = run(obj, progress)
            for n in out.names:
                assert np.all(np.isfinite(out.mean(n)))
    except ValueError as exc:
        assert not valid, f"valid {name} refused: {exc}"
        assert name.split("[")[0] in str(exc), f"the error does not name {name!r}: {exc}"
        frames = traceback.extract_tb(exc.__traceback__)
        assert "numpy" not in frames[-1].filename, f"a numpy error leaked: {exc}"
        assert "delaylab" in frames[-1].filename, frames[-1].filename
        assert not calls, f"the error came after work ({calls[-1]:.0%} done): {exc}"
        return
    assert valid, f"invalid {name} accepted silently"


def simulate_with(policies=None, setting=None):
    def run(obj, progress):
        env = obj if setting is None else setting
        pol = obj if policies is None else policies
        return dl.simulate(env, pol, T, R, seed=1, checkpoints=3, progress=progress)
    return run


CONV = simulate_with(policies=dl.UCB1())


# ------------------------------------------------------------------ delay laws
def _positive(v, high=math.inf):
    a = _reals(v)
    return a is not None and bool(np.all((a > 0) & (a <= high)))


LAWS = {
    "Geometric.mean": (lambda v: dl.Geometric(v), lambda v: _positive(v)),
    "Pareto.alpha": (lambda v: dl.Pareto(v), lambda v: _positive(v)),
    "ScaledPareto.c": (lambda v: dl.ScaledPareto(1.5, v), lambda v: _positive(v, 1.0)),
    "Poisson.mean": (lambda v: dl.Poisson(v), lambda v: _positive(v, 1e9) and np.size(v) <= 2
                     and np.max(v) < 1e7),
    "HalfNormal.scale": (lambda v: dl.HalfNormal(v), lambda v: _positive(v, 1e6) and np.max(v) < 1e5),
    "Uniform.high": (lambda v: dl.Uniform(0, v),
                     lambda v: (a := _reals(v)) is not None and bool(np.all((a >= 0) & (a == np.floor(a))))),
}


@pytest.mark.parametrize("law", sorted(LAWS))
@given(value=anything)
def test_delay_law_parameters(law, value):
    make, valid = LAWS[law]
    if isinstance(value, (list, np.ndarray)) and np.size(value) > 2:
        value = list(np.ravel(value))[:2]  # a grid of at most two cells keeps tables small
    name = law.split(".")[1]
    ok = valid(value)
    expect(lambda: make(value), ok, name,
           run=(lambda law_, p: dl.simulate(dl.Conversions([0.3, 0.1], law_), dl.UCB1(), T, R, progress=p,
                                            checkpoints=3)) if ok and np.ndim(value) == 0 else None)


@given(u=anything)
def test_ppf_takes_probability_levels(u):
    a = _reals(u, ndim=(0, 1, 2))
    expect(lambda: LAW.ppf(u), a is not None and bool(np.all((a >= 0) & (a <= 1))), "u")


@given(size=st.one_of(scalars, st.tuples(numbers_, numbers_)))
def test_sample_size(size):
    dims = size if isinstance(size, (tuple, list)) else (size,)  # () or []: one draw
    ok = all(_whole(d, 0, 10**8) for d in dims) and math.prod(int(d) for d in dims) <= 10**8
    expect(lambda: LAW.sample(size, seed=0), ok, "size")


@given(seed=scalars)
def test_sample_seed(seed):
    expect(lambda: LAW.sample(3, seed=seed), seed is None or _whole(seed, 0, 2**128 - 1), "seed")


@given(a=st.floats(0, 1), b=st.floats(0, 1), jump=st.floats(0.001, 0.5), at=st.integers(3, 3000))
def test_survival_law_non_increasing_or_refused(a, b, jump, at):
    """A survival function with an upward jump anywhere in the first 4096 lags is refused."""
    def sf(m, a=a, b=b, jump=jump, at=at):
        return np.clip(0.5 * np.exp(-m / 50.0) + jump * (m >= at) * (m < at + 7), 0.0, 1.0)

    vals = sf(np.arange(0.0, at + 8))
    rises = bool(np.any(np.diff(vals) > 1e-12))
    expect(lambda: dl.SurvivalLaw(sf), not rises, "sf")


@given(top=st.one_of(finite, edge_floats), scale=st.one_of(finite, edge_floats))
def test_empirical_law_range(top, scale):
    ok = (math.isfinite(top) and top > 1 and math.isfinite(scale) and scale > 0 and top / scale <= 1e8)
    top_ok = math.isfinite(top) and top > 0
    name = "scale" if top_ok and not (math.isfinite(scale) and scale > 0) else "delays"
    expect(lambda: dl.Empirical([0, 0.5, 1], [0.5, 1, top], scale=scale), ok, name)


# ------------------------------------------------------------------ settings
@given(means=anything)
def test_bernoulli_setting_means(means):
    a = _reals(means, ndim=(1, 2))  # 2-d: one row of means per grid cell
    ok = a is not None and a.shape[-1] >= 2 and bool(np.all((a >= 0) & (a <= 1)))
    expect(lambda: dl.Conversions(means, LAW), ok, "means", run=CONV)


@given(window=scalars)
def test_bernoulli_setting_window(window):
    ok = window is None or _whole(window, 0, math.inf)
    expect(lambda: dl.LabelledRewards([0.3, 0.1], LAW, window=window), ok, "window", run=CONV)


@given(delays=anything)
def test_adversarial_setting_delays(delays):
    a = _reals(delays, ndim=(1,))
    ok = a is not None and a.size == 4 and bool(np.all(a >= 0)) and bool(np.all(a == np.floor(a)))
    expect(lambda: dl.AdversarialLosses(np.full((4, 2), 0.5), delays), ok, "delays",
           run=simulate_with(policies=dl.DEW(eta=0.5)))


# ------------------------------------------------------------------ policies
def _pos(v):
    a = _reals(v)  # a number, or one per grid cell
    return a is not None and bool(np.all(a > 0))


POLICIES = {
    # name: (make(value), setting, valid(value) or None when the range is the policy's own business)
    "UCB1.c": (lambda v: dl.UCB1(c=v), dl.Conversions([0.3, 0.1], LAW), None),
    "KLUCB.eps": (lambda v: dl.KLUCB(eps=v), dl.Conversions([0.3, 0.1], LAW), None),
    "DelayedKLUCB.window": (lambda v: dl.DelayedKLUCB(LAW, window=v), dl.Conversions([0.3, 0.1], LAW, 5),
                            lambda v: _whole(v, 0, 5)),  # the setting censors after 5 steps
    "DEW.eta": (lambda v: dl.DEW(eta=v), dl.AdversarialLosses(np.full((T, 2), 0.5), [1] * T), _pos),
    "PatientBandits.alpha": (lambda v: dl.PatientBandits(alpha=v), dl.Conversions([0.3, 0.1], dl.Pareto(0.5)),
                             None),
    "Skipper.beta": (lambda v: dl.Skipper(beta=v), dl.AdversarialLosses(np.full((T, 2), 0.5), [1] * T), None),
    "ODAAF.mean_delay": (lambda v: dl.ODAAF(mean_delay=v), dl.AggregatedAnonymous([0.3, 0.1], LAW), None),
}


@pytest.mark.parametrize("param", sorted(POLICIES))
@given(value=st.one_of(scalars, vectors))
def test_policy_hyperparameters(param, value):
    make, env, valid = POLICIES[param]
    name = param.split(".")[1]
    if valid is not None:
        ok = valid(value)
    else:  # whatever the policy's range, these are never valid numbers
        x = _real(value)
        ok = None if (x is not None and math.isfinite(x)) else False
        if isinstance(value, list):
            ok = None if _reals(value, ndim=(1,)) is not None else False
    if ok is None:  # a finite number: refused with its name before work, or simulated to the end
        try:
            expect(lambda: make(value), False, name, run=simulate_with(setting=env))
        except AssertionError as exc:
            if "accepted silently" not in str(exc):
                raise
        return
    expect(lambda: make(value), ok, name, run=simulate_with(setting=env))


# ------------------------------------------------------------------ simulate and sweep
ARGS = {
    "horizon": (scalars, lambda v: _whole(v, 1, 10**8) and _real(v) <= 200),
    "runs": (st.one_of(scalars, st.lists(st.integers(-2, 5), max_size=4)),
             lambda v: (_whole(v, 1, 10**7) and _real(v) <= 50) if not isinstance(v, list)
             else (len(v) > 0 and len(set(v)) == len(v) and min(v) >= 0)),
    "seed": (scalars, lambda v: _whole(v, 0, 2**63 - 1)),
    "checkpoints": (st.one_of(scalars, st.lists(st.one_of(st.integers(-1, 14), st.floats(0, 14)), max_size=4)),
                    lambda v: v is None or (isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1)
                    or (isinstance(v, list) and len(v) > 0 and all(_whole(x, 1, T) for x in v)
                        and all(a < b for a, b in zip(v, v[1:])))),
    "trace": (scalars, lambda v: isinstance(v, bool)),
    "keep": (st.one_of(scalars, st.sampled_from(["all", "summary", "ALL", ""])), lambda v: isinstance(v, str)
             and v in ("all", "summary")),
    "grid": (scalars, lambda v: v is None),
}


@pytest.mark.parametrize("entry", ["simulate", "sweep"])
@pytest.mark.parametrize("arg", sorted(ARGS))
@given(data=st.data())
def test_simulate_and_sweep_arguments(entry, arg, data):
    strategy, valid = ARGS[arg]
    value = data.draw(strategy)
    kw = {"checkpoints": 3} | {arg: value}
    kw.setdefault("horizon", T)
    kw.setdefault("runs", R)
    fn = getattr(dl, entry)
    if arg in ("horizon", "runs"):  # valid but long: not worth simulating here
        assume(not (_whole(value, 1, math.inf) and _real(value) > 200))
    ok = valid(value)
    expect(lambda: dl.Conversions([0.3, 0.1], LAW), ok, arg,
           run=lambda env, p: fn(env, dl.UCB1(), progress=p, **kw))


SWEEP_ONLY = {
    "chunk_runs": (scalars, lambda v: _whole(v, 1, math.inf)),
    # no ints (they start worker processes) and no ':' (a scheduler address is dialled)
    "executor": (st.one_of(finite, edge_floats, junk, st.sampled_from(["inprocess", "thread", "process"])),
                 lambda v: v is None or (isinstance(v, str) and v == "inprocess")),
    "cache": (st.one_of(finite, edge_floats, st.none(), st.booleans().filter(lambda b: not b),
                        st.just(object()), st.just([])), lambda v: v is None or v is False),
    "progress": (st.one_of(scalars, st.just(True)), lambda v: v is None or isinstance(v, bool)),
}


@pytest.mark.parametrize("arg", sorted(SWEEP_ONLY))
@given(data=st.data())
def test_sweep_only_arguments(arg, data):
    strategy, valid = SWEEP_ONLY[arg]
    value = data.draw(strategy)
    ok = valid(value)
    if arg == "progress":  # the caller's progress is the argument itself here
        expect(lambda: dl.Conversions([0.3, 0.1], LAW), ok, arg,
               run=lambda env, p: dl.sweep(env, dl.UCB1(), T, R, checkpoints=3, progress=value))
        return
    expect(lambda: dl.Conversions([0.3, 0.1], LAW), ok, arg,
           run=lambda env, p: dl.sweep(env, dl.UCB1(), T, R, checkpoints=3, progress=p, **{arg: value}))
