r"""Delay laws: the distribution of the number of steps D ∈ {0, 1, 2, …} before feedback.

Conventions shared by the whole package (``docs/readings.md``): a pull at step s with
delay D is revealed at the end of step s + D, so a delay of 0 means "seen before the next
decision". For every law:

* ``cdf(d)`` is τ(d) = P(D ≤ d), the symbol of Vernade et al. (2017);
* ``sf(d)`` is the survival P(D > d) = 1 − τ(d);
* ``ppf(u)`` is the generalised inverse min{d : τ(d) ≥ u}: applied to uniforms on [0, 1) it
  samples the law (inverse-CDF sampling, which lets every policy see the same uniforms);
* ``mean`` and ``var`` are exact (``inf`` when infinite);
* ``label`` is a short human-readable name for legends.

Draws too large to represent are returned as :data:`NEVER` (2**62 steps): "never within the
horizon" is a valid delay, and nothing overflows however heavy the tail.

Parameters may be arrays with one value per grid cell (shape ``(G,)``): a grid of delay laws is
then one batch of runs (see :func:`delaylab.grid`). Methods broadcast their argument against the
parameters with numpy rules, i.e. the cell axis is the last axis of the argument.
"""

from __future__ import annotations

import csv
import math
from importlib import resources

import numpy as np

from ._validate import check_int, check_lags, check_real, check_seed, check_size, check_unit

#: Delay used for "never within any horizon" (draws beyond 2**62 steps).
NEVER = 2**62
#: the largest delay an Empirical law may tabulate (in steps): the largest horizon
EMPIRICAL_MAX_STEPS = 10**8
_LOG_NEVER = math.log(NEVER)

__all__ = [
    "NEVER",
    "DelayLaw",
    "Geometric",
    "Pareto",
    "ScaledPareto",
    "Uniform",
    "Poisson",
    "HalfNormal",
    "Fixed",
    "SurvivalLaw",
    "Empirical",
    "criteo",
    "zeta",
]


def _as_delay(x) -> np.ndarray:
    """Float delays → int64, with +inf, NaN and anything ≥ NEVER mapped to NEVER."""
    x = np.asarray(x, dtype=float)
    x = np.where(np.isfinite(x) & (x < NEVER), x, float(NEVER))
    return np.maximum(x, 0.0).astype(np.int64)


def _floor_lag(d) -> np.ndarray:
    """Integer part of a lag argument, as float (lags may be fractional or negative)."""
    return np.floor(np.asarray(d, dtype=float))


def _read_only(a: np.ndarray) -> np.ndarray:
    """A view of ``a`` that cannot be written to (the law's own table stays as it was checked)."""
    v = a.view()
    v.flags.writeable = False
    return v


# Bernoulli numbers B_2 … B_12 for the Euler–Maclaurin tail of the zeta function.
_B2K = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730)


def zeta(s) -> np.ndarray:
    r"""Riemann zeta function ζ(s) = Σ_{n≥1} n^{−s} for real s > 1 (``inf`` for s ≤ 1).

    Euler–Maclaurin summation with N = 16 explicit terms and six Bernoulli corrections; the
    relative error is below 1e-14 for s ≥ 1 + 1e-9. Used for the mean and variance of the
    discretised Pareto law: E[D] = ζ(α), E[D²] = 2ζ(α − 1) − ζ(α).
    """
    s = np.asarray(s, dtype=float)
    n_terms = 16
    n = np.arange(1, n_terms, dtype=float).reshape((-1,) + (1,) * s.ndim)
    ss = np.where(s > 1, s, 2.0)  # placeholder where the series diverges
    total = np.sum(n ** (-ss), axis=0)
    N = float(n_terms)
    total = total + N ** (1 - ss) / (ss - 1) + 0.5 * N ** (-ss)
    rising = ss.copy()  # s (s+1) … (s + 2k − 2)
    fact = 2.0  # (2k)!
    for k, b in enumerate(_B2K, start=1):
        total = total + b / fact * rising * N ** (-ss - 2 * k + 1)
        rising = rising * (ss + 2 * k - 1) * (ss + 2 * k)
        fact *= (2 * k + 1) * (2 * k + 2)
    out = np.where(s > 1, total, np.inf)
    return out if out.ndim else float(out)


class DelayLaw:
    """Base class of delay laws. Subclasses implement ``_cdf`` and ``_ppf_guess``.

    ``cells`` in the private methods is ``None`` (parameters broadcast against the last axis of
    the argument as they are) or an integer array giving, for each position of the argument's
    last axis, the grid cell whose parameters apply there.
    """

    #: names of the numeric parameters (each a 0-d array or one value per grid cell)
    _param_names: tuple[str, ...] = ()

    # ---------------------------------------------------------------- parameters and cells
    def _set_params(self, **params) -> None:
        sizes = {}
        for k, v in params.items():
            arr = np.asarray(v, dtype=float)
            setattr(self, "_par_" + k, arr)
            sizes[k] = 1 if arr.ndim == 0 else arr.shape[0]
        multi = {v for v in sizes.values() if v != 1}
        if len(multi) > 1:
            raise ValueError(
                f"{type(self).__name__}: per-cell parameters must have the same length; got {sizes}"
            )
        self._n_cells = max(multi) if multi else 1
        self._per_cell = any(np.asarray(getattr(self, "_par_" + k)).ndim == 1 for k in params)

    def _p(self, name: str, cells=None) -> np.ndarray:
        """Parameter ``name`` ready to broadcast against the argument's last axis."""
        v = getattr(self, "_par_" + name)
        if v.ndim == 0:
            return v
        if cells is None:
            return v
        return v[cells]

    @property
    def n_cells(self) -> int:
        """Number of grid cells (1 when every parameter is a single value)."""
        return self._n_cells

    @property
    def per_cell(self) -> bool:
        return self._per_cell

    def cell(self, g: int) -> "DelayLaw":
        """The law of grid cell ``g`` (a law with single-valued parameters)."""
        if not self._per_cell:
            return self
        g = check_int("g", g, low=0, high=self._n_cells - 1)
        kw = {}
        for k in self._param_names:
            v = getattr(self, "_par_" + k)
            kw[k] = v.item() if v.ndim == 0 else v[g].item()
        return type(self)(**kw)

    def get_params(self) -> dict:
        """The parameters that define the law, by the constructor's names, as the law stores them
        (numbers as float arrays: 0-d, or one value per grid cell).

        ``type(law)(**law.get_params())`` is the same law. Tables computed from the parameters
        are not part of them: the sweep cache's fingerprint (:mod:`delaylab.fingerprints`)
        describes a law by these values alone, as :meth:`delaylab.policies.base.Policy.get_params`
        describes a policy.
        """
        return {k: getattr(self, "_par_" + k) for k in self._param_names}

    # ---------------------------------------------------------------- public API
    def cdf(self, d) -> np.ndarray:
        """τ(d) = P(D ≤ d)."""
        return self._cdf(check_lags("d", d), None)

    def sf(self, d) -> np.ndarray:
        """P(D > d) = 1 − τ(d)."""
        return self._sf(check_lags("d", d), None)

    def pmf(self, d) -> np.ndarray:
        """P(D = d) for integer d."""
        d = _floor_lag(check_lags("d", d))
        return self._cdf(d, None) - self._cdf(d - 1, None)

    def ppf(self, u) -> np.ndarray:
        """Smallest d with τ(d) ≥ u ∈ [0, 1], as int64 (:data:`NEVER` beyond 2**62 steps)."""
        u = check_unit("u", u)
        with np.errstate(divide="ignore"):  # u = 1: log(0) = −∞, i.e. NEVER
            return self._ppf(u, None)

    def ppf_unchecked(self, u, cells=None) -> np.ndarray:
        """:meth:`ppf` without its checks: the fast path of the settings' draws.

        ``u`` must be a float array of values in [0, 1] (nothing checks it: a value outside
        gives a meaningless delay, not an error). ``cells`` is ``None`` (parameters broadcast
        against the last axis of ``u``) or an integer array giving, for each position of that
        axis, the grid cell whose parameters apply there. The settings draw millions of delays
        per sweep from uniforms they made themselves: validating them again would only cost time.
        """
        return self._ppf(u, cells)

    def sample(self, size, seed=None) -> np.ndarray:
        """Independent draws by inverse-CDF sampling of ``numpy.random.default_rng(seed)``.

        ``size`` is a whole number ≥ 0 or a tuple of them (at most 10⁸ draws in all).
        """
        size = check_size("size", size)
        u = np.random.default_rng(check_seed("seed", seed)).random(size)
        if self._per_cell and np.ndim(u) and np.shape(u)[-1] != self._n_cells:
            raise ValueError(
                f"size must end with the number of grid cells ({self._n_cells}); got {size}"
            )
        return self._ppf(u, None)

    def table(self, n: int) -> np.ndarray:
        """τ(0), …, τ(n − 1): shape ``(n,)``, or ``(G, n)`` for a per-cell law."""
        n = check_int("n", n, low=0, high=10**9)
        lags = np.arange(n, dtype=float)
        if not self._per_cell:
            return np.broadcast_to(self._cdf(lags, None), (n,)).copy()
        return self._cdf(lags[:, None], None).T.copy()

    def saturation_lag(self, limit: int) -> int:
        """Smallest lag d ≤ ``limit`` with τ(d) = 1 exactly in every cell (else ``limit``).

        Pulls older than this lag have all their feedback in: delay-corrected counts need no
        memory beyond it.
        """
        lo, hi = 0, check_int("limit", limit, low=0, high=NEVER)
        if np.all(self._cdf(float(hi), None) < 1.0):
            return hi
        while lo < hi:  # bisection on the monotone predicate "τ(d) = 1 in every cell"
            mid = (lo + hi) // 2
            if np.all(self._cdf(float(mid), None) >= 1.0):
                hi = mid
            else:
                lo = mid + 1
        return lo

    @property
    def mean(self):
        """E[D] (``inf`` when infinite)."""
        return self._mean()

    @property
    def var(self):
        """Var[D] (``inf`` when infinite)."""
        return self._var()

    @property
    def label(self) -> str:
        return self._label()

    def __repr__(self) -> str:
        return self.label

    # ---------------------------------------------------------------- to implement
    def _cdf(self, d, cells) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _sf(self, d, cells) -> np.ndarray:
        return 1.0 - self._cdf(d, cells)

    def _ppf_guess(self, u, cells) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _ppf(self, u, cells) -> np.ndarray:
        """Closed-form guess, then an exact correction of floating-point off-by-one errors."""
        d = self._ppf_guess(u, cells)
        finite = d < NEVER
        df = d.astype(float)
        down = finite & (d > 0) & (self._cdf(df - 1, cells) >= u)
        d = np.where(down, d - 1, d)
        up = finite & (self._cdf(d.astype(float), cells) < u)
        return np.where(up, d + 1, d)

    def _mean(self):
        return self._moments()[0]

    def _var(self):
        return self._moments()[1]

    def _moments(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _label(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def _fmt(self, name: str, symbol: str) -> str:
        v = getattr(self, "_par_" + name)
        if v.ndim == 0:
            return f"{symbol}={v.item():g}"
        return f"{symbol}∈[{v.min():g}…{v.max():g}]"


def _moments_from_sf(sf_values: np.ndarray):
    """Mean and variance of a law from P(D > d), d = 0 … n−1 (zero beyond, along the last axis).

    E[D] = Σ_d P(D > d) and E[D²] = Σ_d (2d + 1) P(D > d).
    """
    d = np.arange(sf_values.shape[-1], dtype=float)
    m1 = sf_values.sum(axis=-1)
    m2 = ((2 * d + 1) * sf_values).sum(axis=-1)
    var = np.maximum(m2 - m1**2, 0.0)
    if np.ndim(m1) == 0:
        return float(m1), float(var)
    return m1, var


# ==================================================================================== laws
class Geometric(DelayLaw):
    r"""Geometric delays on {0, 1, …} with mean μ: P(D > d) = λ^{d+1}, λ = μ / (1 + μ).

    This is the reading of Vernade et al. (2017, Section 7) taken in ``docs/readings.md``: the paper's
    "parameter λ = 1/μ" is inconsistent, so we parametrise by the mean. The survival ratio
    P(D > d + 1) / P(D > d) = λ is constant, which gives the O(1) update of Eq. (6)
    (see :class:`delaylab.policies.counts.GeometricCount`).

    Parameters
    ----------
    mean : float or array
        μ > 0 (one value per grid cell if an array).
    """

    _param_names = ("mean",)

    def __init__(self, mean):
        mu = check_real("mean", mean, low=0.0, low_open=True, ndim=(0, 1))
        self._set_params(mean=mu)
        self._log_ratio = -np.log1p(1.0 / mu)  # log λ

    @property
    def ratio(self):
        """λ = μ / (1 + μ) = P(D > d + 1 | D > d), the constant survival ratio."""
        return np.exp(self._log_ratio)

    def _lr(self, cells):
        lr = self._log_ratio
        return lr if (lr.ndim == 0 or cells is None) else lr[cells]

    def _cdf(self, d, cells):
        d = _floor_lag(d)
        return np.where(d >= 0, -np.expm1((np.maximum(d, 0) + 1) * self._lr(cells)), 0.0)

    def _sf(self, d, cells):
        d = _floor_lag(d)
        return np.where(d >= 0, np.exp((np.maximum(d, 0) + 1) * self._lr(cells)), 1.0)

    def _ppf_guess(self, u, cells):
        x = np.ceil(np.log1p(-u) / self._lr(cells)) - 1.0
        return _as_delay(x)

    def _moments(self):
        mu = self._par_mean
        return (float(mu), float(mu * (1 + mu))) if mu.ndim == 0 else (mu.copy(), mu * (1 + mu))

    def _label(self):
        return f"Geometric({self._fmt('mean', 'μ')})"


class Pareto(DelayLaw):
    r"""Discretised Pareto type I delays with tail index α: D = ⌊X⌋, X ~ Pareto(x_m = 1, α).

    P(D > d) = (d + 1)^{−α} for d ≥ 0, so Assumption 1 of Manegueu et al. (2020),
    P(D > m) ≤ m^{−α}, holds. E[D] = ζ(α) for α > 1 and E[D²] = 2ζ(α − 1) − ζ(α) for α > 2.
    Draws are computed in log space: very heavy tails (α = 0.05) give :data:`NEVER`, not an
    overflow.

    Parameters
    ----------
    alpha : float or array
        Tail index α > 0.
    """

    _param_names = ("alpha",)

    def __init__(self, alpha):
        a = check_real("alpha", alpha, low=0.0, low_open=True, ndim=(0, 1))
        self._set_params(alpha=a)

    def _sf(self, d, cells):
        d = _floor_lag(d)
        return np.where(d >= 0, (np.maximum(d, 0) + 1) ** (-self._p("alpha", cells)), 1.0)

    def _cdf(self, d, cells):
        return 1.0 - self._sf(d, cells)

    def _ppf_guess(self, u, cells):
        log_x = -np.log1p(-u) / self._p("alpha", cells)  # log X, X = (1 − u)^{−1/α}
        x = np.where(log_x < _LOG_NEVER, np.exp(np.minimum(log_x, _LOG_NEVER)), np.inf)
        return _as_delay(np.floor(x))

    def _moments(self):
        a = self._par_alpha
        m1 = zeta(a)
        with np.errstate(invalid="ignore"):  # inf − inf where the moments are infinite
            var = np.where(a > 2, 2 * zeta(a - 1) - m1 - np.asarray(m1) ** 2, np.inf)
        return (m1, float(var)) if np.ndim(a) == 0 else (m1, var)

    def _label(self):
        return f"Pareto({self._fmt('alpha', 'α')})"


class ScaledPareto(DelayLaw):
    r"""Pareto tail scaled by c: P(D > m) = c·(1 + m)^{−α} for m ≥ 0 (Manegueu et al. 2020, §8.3).

    With probability 1 − c the feedback is immediate (D = 0); otherwise D follows
    :class:`Pareto` (α). The paper's Section 8.3 uses c = 0.7 for the suboptimal arm and says that
    Assumption 2, c·m^{−α} ≤ P(D > m) ≤ m^{−α} for every m ≥ 1, then holds with c = 0.7. In the
    paper's timing it does not: P(D > m)·m^α = c·(m/(1 + m))^α is smallest at m = 1, so the printed
    law satisfies it only up to c·2^{−α} (0.7·2^{−0.3} ≈ 0.569). delaylab reveals a delay one step
    later (notebook 02, §2): it runs the paper's model with D + 1, P(D + 1 > m) = c·m^{−α} for m ≥ 1,
    which satisfies it with c exactly. (Our copy of the paper prints τ(0) = 1 − 0.7/2^α at m = 0,
    which leaves no mass at D = 1; we take P(D > m) = c(1 + m)^{−α} for every m ≥ 0, i.e.
    P(D = 0) = 1 − c: in the paper's timing the two agree for m ≥ 1; in ours P(D > 0) is the
    shifted model's P(D + 1 > 1), so this reading is what makes c valid.)
    E[D] = c·ζ(α) and E[D²] = c·(2ζ(α − 1) − ζ(α)). Draws are computed in log space: very heavy
    tails give :data:`NEVER`, not an overflow.

    Parameters
    ----------
    alpha : float or array
        Tail index α > 0.
    c : float or array
        Scale c ∈ (0, 1] (c = 1 is :class:`Pareto`).
    """

    _param_names = ("alpha", "c")

    def __init__(self, alpha, c=0.7):
        a = check_real("alpha", alpha, low=0.0, low_open=True, ndim=(0, 1))
        cc = check_real("c", c, low=0.0, high=1.0, low_open=True, ndim=(0, 1))
        self._set_params(alpha=a, c=cc)

    def _sf(self, d, cells):
        d = _floor_lag(d)
        tail = self._p("c", cells) * (np.maximum(d, 0) + 1) ** (-self._p("alpha", cells))
        return np.where(d >= 0, tail, 1.0)

    def _cdf(self, d, cells):
        return 1.0 - self._sf(d, cells)

    def _ppf_guess(self, u, cells):
        # smallest d ≥ 0 with c (d + 1)^{−α} ≤ 1 − u: d + 1 ≥ x = ((1 − u)/c)^{−1/α}
        c = self._p("c", cells)
        with np.errstate(divide="ignore"):
            log_x = (np.log(c) - np.log1p(-u)) / self._p("alpha", cells)
        x = np.where(log_x < _LOG_NEVER, np.exp(np.minimum(log_x, _LOG_NEVER)), np.inf)
        return _as_delay(np.where(log_x <= 0, 0.0, np.ceil(x) - 1.0))

    def _moments(self):
        a, c = self._par_alpha, self._par_c
        z = zeta(a)
        m1 = c * z
        with np.errstate(invalid="ignore"):  # inf − inf where the moments are infinite
            var = np.where(a > 2, c * (2 * zeta(a - 1) - z) - m1**2, np.inf)
        if np.ndim(m1) == 0:
            return float(m1), float(var)
        return np.asarray(m1, float), np.asarray(var, float)

    def _label(self):
        if self._par_c.ndim == 0:
            return f"{self._par_c.item():g}·Pareto({self._fmt('alpha', 'α')})"
        return f"ScaledPareto({self._fmt('alpha', 'α')}, {self._fmt('c', 'c')})"


class Uniform(DelayLaw):
    """Uniform delays on the integers {low, …, high} (both included).

    Parameters
    ----------
    low, high : int or array
        0 ≤ low ≤ high.
    """

    _param_names = ("low", "high")

    def __init__(self, low=0, high=None):
        if high is None:
            raise ValueError("high must be given: Uniform(low, high) is uniform on {low, …, high}")
        lo = check_real("low", low, low=0.0, ndim=(0, 1))
        hi = check_real("high", high, low=0.0, ndim=(0, 1))
        if np.any(lo != np.floor(lo)) or np.any(hi != np.floor(hi)):
            raise ValueError(f"low and high must be whole numbers of steps; got {low!r}, {high!r}")
        if np.any(hi < lo):
            raise ValueError(f"high = {high!r} must be ≥ low = {low!r}")
        self._set_params(low=lo, high=hi)

    def _cdf(self, d, cells):
        lo, hi = self._p("low", cells), self._p("high", cells)
        return np.clip((_floor_lag(d) - lo + 1) / (hi - lo + 1), 0.0, 1.0)

    def _ppf_guess(self, u, cells):
        lo, hi = self._p("low", cells), self._p("high", cells)
        return _as_delay(lo + np.floor(u * (hi - lo + 1)))

    def _moments(self):
        n = self._par_high - self._par_low + 1
        m, v = (self._par_low + self._par_high) / 2, (n**2 - 1) / 12
        return (float(m), float(v)) if np.ndim(m) == 0 else (m, v)

    def _label(self):
        if self._par_low.ndim == 0 and self._par_high.ndim == 0:
            return f"Uniform{{{self._par_low.item():g}…{self._par_high.item():g}}}"
        return f"Uniform({self._fmt('low', 'low')}, {self._fmt('high', 'high')})"


class Fixed(DelayLaw):
    """Every delay equals ``delay`` (0: immediate feedback; huge: never within the horizon).

    Parameters
    ----------
    delay : int or array
        Whole number of steps ≥ 0.
    """

    _param_names = ("delay",)

    def __init__(self, delay=0):
        d = check_real("delay", delay, low=0.0, ndim=(0, 1), allow_inf=True)  # inf: never
        if np.any(d != np.floor(d)):
            raise ValueError(f"delay must be a whole number of steps ≥ 0 (or inf: never); got {delay!r}")
        self._set_params(delay=np.minimum(d, float(NEVER)))

    def _cdf(self, d, cells):
        return (_floor_lag(d) >= self._p("delay", cells)).astype(float)

    def _ppf_guess(self, u, cells):
        return _as_delay(np.broadcast_to(self._p("delay", cells), np.shape(u)))

    def _ppf(self, u, cells):
        return self._ppf_guess(u, cells)

    def _moments(self):
        d = self._par_delay
        return (float(d), 0.0) if d.ndim == 0 else (d.copy(), np.zeros_like(d))

    def _label(self):
        return f"Fixed({self._fmt('delay', 'd')})"


class _Tabulated(DelayLaw):
    """A law with finite support, stored as tables of τ(d) per grid cell.

    Subclasses set ``self._tables`` (one 1-d array per cell, τ(lo), τ(lo + 1), …, ending with
    exactly 1) and ``self._lo`` (the first tabulated lag of each cell; τ = 0 below it up to a
    mass under 1e-30). Tables are ragged: a grid of very different parameters costs the sum of
    its tables, not the largest one times the number of cells.
    """

    def _rows(self, cells):
        if len(self._tables) == 1:
            return None
        return np.arange(self._n_cells) if cells is None else np.asarray(cells)

    def _cdf(self, d, cells):
        d = _floor_lag(d)
        rows = self._rows(cells)
        if rows is None:
            return self._cdf_row(0, d)
        d_b = np.broadcast_to(d, np.broadcast_shapes(d.shape, rows.shape))
        out = np.empty(d_b.shape)
        for g in np.unique(rows):
            cols = rows == g
            out[..., cols] = self._cdf_row(g, d_b[..., cols])
        return out

    def _cdf_row(self, g, d):
        tab, lo = self._tables[g], self._lo[g]
        idx = np.clip(d - lo, -1, len(tab) - 1).astype(np.int64)
        return np.where(idx < 0, 0.0, tab[np.maximum(idx, 0)])

    def _ppf(self, u, cells):
        u = np.asarray(u, dtype=float)
        rows = self._rows(cells)
        if rows is None:
            return self._lo[0] + np.searchsorted(self._tables[0], u, side="left").astype(np.int64)
        u_b = np.broadcast_to(u, np.broadcast_shapes(u.shape, rows.shape))
        out = np.empty(u_b.shape, dtype=np.int64)
        for g in np.unique(rows):  # one search per distinct cell
            cols = rows == g
            out[..., cols] = self._lo[g] + np.searchsorted(self._tables[g], u_b[..., cols], side="left")
        return out

    def _moments(self):
        # E[D] = Σ_d P(D > d) = lo + Σ_{d ≥ lo} (1 − τ(d)), and E[D²] = Σ_d (2d + 1) P(D > d)
        m1, var = [], []
        for tab, lo in zip(self._tables, self._lo):
            d = lo + np.arange(len(tab), dtype=float)
            sf = 1.0 - tab
            first = float(lo)
            second = float(lo) ** 2 + np.sum((2 * d + 1) * sf)
            mean = first + sf.sum()
            m1.append(mean)
            var.append(max(second - mean**2, 0.0))
        if not self._per_cell:
            return m1[0], var[0]
        return np.array(m1), np.array(var)


class Poisson(_Tabulated):
    """Poisson delays with mean λ.

    The CDF is tabulated on [λ − 12√λ − 10, λ + 12√λ + 40] ∩ [0, ∞), outside of which the mass is
    below 1e-30; ``mean`` and ``var`` are the exact λ.

    Parameters
    ----------
    mean : float or array
        λ in (0, 1e9].
    """

    _param_names = ("mean",)

    def __init__(self, mean):
        lam = check_real("mean", mean, low=0.0, high=1e9, low_open=True, ndim=(0, 1))
        self._set_params(mean=lam)
        self._tables, self._lo = [], []
        for lam_g in np.atleast_1d(lam):
            lo = max(0, int(np.floor(lam_g - 12 * np.sqrt(lam_g) - 10)))
            hi = int(np.ceil(lam_g + 12 * np.sqrt(lam_g) + 40))
            k = np.arange(lo, hi + 1, dtype=float)
            log_fact = math.lgamma(lo + 1) + np.concatenate([[0.0], np.cumsum(np.log(k[1:]))])
            pmf = np.exp(k * math.log(lam_g) - lam_g - log_fact)
            cdf = np.cumsum(pmf)
            cdf = np.minimum(cdf / cdf[-1], 1.0)
            cdf[-1] = 1.0
            self._tables.append(cdf)
            self._lo.append(lo)

    def _moments(self):
        lam = self._par_mean
        return (float(lam), float(lam)) if lam.ndim == 0 else (lam.copy(), lam.copy())

    def _label(self):
        return f"Poisson({self._fmt('mean', 'λ')})"


class HalfNormal(_Tabulated):
    """Discretised half-normal delays: D = ⌊σ|Z|⌋ with Z standard normal.

    τ(d) = erf((d + 1) / (σ√2)); the table stops where erf reaches 1 in double precision
    (about 8.5σ). ``mean`` and ``var`` are the exact moments of the discretised law (close to
    σ√(2/π) − 1/2 and σ²(1 − 2/π) + 1/12).

    Parameters
    ----------
    scale : float or array
        σ in (0, 1e6].
    """

    _param_names = ("scale",)

    def __init__(self, scale):
        sig = check_real("scale", scale, low=0.0, high=1e6, low_open=True, ndim=(0, 1))
        self._set_params(scale=sig)
        erf = np.frompyfunc(math.erf, 1, 1)
        self._tables, self._lo = [], []
        for s_g in np.atleast_1d(sig):
            L = int(np.ceil(6.0 * np.sqrt(2.0) * s_g)) + 2
            tab = np.asarray(erf((np.arange(L, dtype=float) + 1) / (s_g * np.sqrt(2.0))), dtype=float)
            tab[-1] = 1.0
            self._tables.append(tab)
            self._lo.append(0)

    def _label(self):
        return f"HalfNormal({self._fmt('scale', 'σ')})"


class SurvivalLaw(DelayLaw):
    r"""A law given by its survival function ``sf(m) = P(D > m)``, m = 0, 1, 2, …

    Example: the law of Manegueu et al. (2020, Section 8.3),
    ``SurvivalLaw(lambda m: 0.7 * (1 + m) ** -0.3, label="0.7(1+m)^-0.3")``.
    ``sf`` receives a float array of non-negative whole numbers (possibly up to 2**62) and must
    be non-increasing with values in [0, 1]. It may tend to a positive limit: the remaining mass
    is "never" (:data:`NEVER`). Sampling inverts it by exponential and binary search, at most
    126 vectorised calls of ``sf`` per batch of draws.

    Parameters
    ----------
    sf : callable
        The survival function.
    label : str
        Short name for legends.
    mean, var : float, optional
        Exact moments if known. Otherwise they are summed numerically when the tail falls below
        1e-15 within 2**22 steps, and reported as ``nan`` (unknown) when it does not.
    """

    def __init__(self, sf, label: str = "custom law", mean=None, var=None):
        if not callable(sf):
            raise ValueError(f"sf must be a callable m -> P(D > m); got {sf!r}")
        # every lag up to 4096, then 4096 lags spaced geometrically up to 2**62
        probe = np.unique(np.concatenate([np.arange(4097.0), np.floor(np.geomspace(4096.0, 2.0**62, 4096))]))
        try:
            vals = np.broadcast_to(np.asarray(sf(probe), dtype=float), probe.shape)
        except Exception as exc:  # noqa: BLE001 - report any failure of user code clearly
            raise ValueError(f"sf could not be evaluated on an array of lags: {exc}") from exc
        bad = ~np.isfinite(vals) | (vals < 0) | (vals > 1)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"sf must return probabilities in [0, 1]; sf({probe[i]:.0f}) = {float(vals[i])!r}")
        rise = np.diff(vals) > 1e-12
        if rise.any():
            i = int(np.argmax(rise))
            raise ValueError(f"sf must be non-increasing in m (valid: sf(m + 1) ≤ sf(m) ≤ 1); got "
                             f"sf({probe[i]:.0f}) = {float(vals[i])!r} < sf({probe[i + 1]:.0f}) = {float(vals[i + 1])!r}")
        self._sf_fn = sf
        self._name = str(label)
        self._given = (mean, var)
        self._n_cells, self._per_cell = 1, False

    def cell(self, g: int) -> "SurvivalLaw":
        return self

    def get_params(self) -> dict:
        """``sf``, ``label``, ``mean`` and ``var`` as given (see :meth:`DelayLaw.get_params`)."""
        mean, var = self._given
        return {"sf": self._sf_fn, "label": self._name, "mean": mean, "var": var}

    def _sf(self, d, cells):
        d = _floor_lag(d)
        vals = np.asarray(self._sf_fn(np.maximum(d, 0.0)), dtype=float)
        return np.where(d >= 0, np.clip(vals, 0.0, 1.0), 1.0)

    def _cdf(self, d, cells):
        return 1.0 - self._sf(d, cells)

    def _ppf(self, u, cells):
        # smallest d ≥ 0 with sf(d) ≤ 1 − u; search on integers, vectorised over u
        u = np.asarray(u, dtype=float)
        target = 1.0 - u
        found0 = self._sf(np.zeros_like(u), None) <= target
        hi = np.ones_like(u)
        ok_hi = self._sf(hi, None) <= target
        for _ in range(62):  # exponential search for an upper end
            if np.all(ok_hi | found0):
                break
            hi = np.where(ok_hi | found0, hi, hi * 2)
            ok_hi = self._sf(hi, None) <= target
        never = ~(ok_hi | found0)
        lo = np.where(found0 | never, 0.0, np.floor(hi / 2))  # sf(lo) > target unless found0
        hi = np.where(found0 | never, 0.0, hi)
        for _ in range(64):  # binary search on (lo, hi]
            active = hi - lo > 1
            if not active.any():
                break
            mid = np.floor((lo + hi) / 2)
            ok = self._sf(mid, None) <= target
            hi = np.where(active & ok, mid, hi)
            lo = np.where(active & ~ok, mid, lo)
        d = np.where(found0, 0.0, hi)
        return np.where(never, NEVER, _as_delay(d))

    def _moments(self):
        mean, var = self._given
        if mean is not None:
            return float(mean), (np.nan if var is None else float(var))
        n = 1 << 22
        if self._sf(float(n), None) > 1e-15:
            return np.nan, np.nan
        m1, v = _moments_from_sf(self._sf(np.arange(n, dtype=float), None))
        return m1, (v if var is None else float(var))

    def _label(self):
        return self._name


class Empirical(DelayLaw):
    r"""A law given by a table of quantiles (e.g. measured conversion delays).

    The quantile function Q is interpolated linearly between the knots (in ``log`` space of the
    delay by default, as for delays spanning several orders of magnitude) and discretised:
    D = ⌊Q(U) / scale⌋ steps. Hence τ(d) = F((d + 1)·scale) with F = Q^{-1}.

    Parameters
    ----------
    probs : array
        Probability levels, strictly increasing, from 0 to 1.
    delays : array
        The matching delay quantiles (same unit as ``scale``), > 0 and strictly increasing.
    scale : float
        Delay units per step (> 0): e.g. 100 seconds per step.
    log : bool
        Interpolate Q linearly in log(delay) (default) or in delay.
    label : str
    """

    def __init__(self, probs, delays, scale=1.0, log=True, label="empirical law"):
        p = check_real("probs", probs, low=0.0, high=1.0, ndim=(1,))
        x = check_real("delays", delays, low=0.0, low_open=log, ndim=(1,))
        s = float(check_real("scale", scale, low=0.0, low_open=True, ndim=(0,)))
        if p.shape != x.shape or p.size < 2:
            raise ValueError(f"probs and delays must be 1-d of the same length ≥ 2; got {p.size}, {x.size}")
        if p[0] != 0 or p[-1] != 1 or np.any(np.diff(p) <= 0):
            raise ValueError("probs must increase strictly from 0 to 1")
        if np.any(np.diff(x) <= 0):
            raise ValueError("delays must be strictly increasing")
        with np.errstate(over="ignore"):
            steps = x[-1] / s
        if not steps <= EMPIRICAL_MAX_STEPS:
            raise ValueError(f"delays[-1] / scale = {x[-1]:g} / {s:g} = {steps:g} steps is outside the valid range "
                             f"[0, {EMPIRICAL_MAX_STEPS:g}] (the largest horizon): give delays in a coarser unit or a "
                             f"larger scale; feedback that may never come is a SurvivalLaw tending to a positive limit")
        self._probs, self._knots, self._scale, self._log = p, x, s, bool(log)
        self._name = str(label)
        self._n_cells, self._per_cell = 1, False
        self._max_step = int(np.floor(x[-1] / s))

    def cell(self, g: int) -> "Empirical":
        return self

    def get_params(self) -> dict:
        """``probs``, ``delays`` (float arrays), ``scale``, ``log`` and ``label``, as checked by the
        constructor (see :meth:`DelayLaw.get_params`)."""
        return {"probs": self._probs, "delays": self._knots, "scale": self._scale, "log": self._log,
                "label": self._name}

    @property
    def probs(self) -> np.ndarray:
        """The probability levels of the quantile table, from 0 to 1 (read-only)."""
        return _read_only(self._probs)

    @property
    def delays(self) -> np.ndarray:
        """The delay quantiles at :attr:`probs`, in the table's unit (read-only)."""
        return _read_only(self._knots)

    def _tr(self, x):
        return np.log(np.maximum(x, 1e-300)) if self._log else x

    def quantile(self, u) -> np.ndarray:
        """Q(u), the continuous delay quantile (in the table's unit)."""
        y = np.interp(u, self._probs, self._tr(self._knots))
        return np.exp(y) if self._log else y

    def _cdf(self, d, cells):
        d = _floor_lag(d)
        x = (np.maximum(d, 0) + 1) * self._scale
        v = np.interp(self._tr(x), self._tr(self._knots), self._probs, left=0.0, right=1.0)
        return np.where(d >= 0, v, 0.0)

    def _ppf_guess(self, u, cells):
        return _as_delay(np.floor(self.quantile(u) / self._scale))

    def _moments(self):
        m1 = m2 = 0.0  # E[D] = Σ P(D > d), E[D²] = Σ (2d + 1) P(D > d), in blocks (bounded memory)
        for start in range(0, self._max_step + 1, 1 << 22):
            d = np.arange(start, min(self._max_step + 1, start + (1 << 22)), dtype=float)
            sf = 1.0 - self._cdf(d, None)
            m1 += float(sf.sum())
            m2 += float(((2 * d + 1) * sf).sum())
        return m1, max(m2 - m1**2, 0.0)

    def _label(self):
        return self._name


def criteo(scale: float = 100.0) -> Empirical:
    """Conversion delays of the Criteo Attribution Modeling for Bidding dataset.

    Source: Diemert, Meynet, Galland and Lefortier (AdKDD 2017), as used by Vernade et al.
    (ICML 2020, Figures 2–3). The table shipped in ``delaylab/data/criteo_delay_quantiles.csv``
    gives quantiles of log10(delay in seconds) of the smoothed empirical distribution (30-day
    attribution window; mean about 6.6 days, median about 3.4 days).

    Parameters
    ----------
    scale : float
        Seconds per step. The paper divides delays by 100 for its T = 10^4 experiment.
    """
    text = resources.files("delaylab").joinpath("data/criteo_delay_quantiles.csv").read_text()
    rows = [r for r in csv.reader(line for line in text.splitlines() if not line.startswith("#"))]
    header, body = rows[0], rows[1:]
    if header != ["quantile", "log10_delay_seconds"]:
        raise RuntimeError(f"unexpected header in the Criteo table: {header}")
    probs = np.array([float(r[0]) for r in body])
    secs = 10.0 ** np.array([float(r[1]) for r in body])
    s = float(check_real("scale", scale, low=0.0, low_open=True, ndim=(0,)))
    return Empirical(probs, secs, scale=s, log=True, label=f"Criteo delays (s/{s:g})")


def as_law(name: str, value) -> DelayLaw:
    """Check that ``value`` is a delay law (for error messages naming the parameter)."""
    if not isinstance(value, DelayLaw):
        raise ValueError(
            f"{name} must be a delay law such as delaylab.Geometric(mean=500); got {value!r}"
        )
    return value
