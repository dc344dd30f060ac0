"""Claims are code: what a notebook says a simulation shows, checked where it says it.

Every sentence of the workbook that reports what a simulation shows ("D-KLUCB ends below
Discarding", "estimating the law costs little", "its regret falls by about 60 %") has a
:class:`Claim` beside it: the sentence, whether it holds, and the evidence — the effect size with
its standard error and the number of runs it rests on. A check cell computes its claims on its
own fixed parameters (never on a live panel's current state, which the student may have moved)
and ends with :func:`check`, which prints every claim with its evidence and fails the cell, with
all of them listed, when one does not hold::

    res = dl.simulate(setting, policies, horizon=2500, runs=60, seed=0)
    dl.claims.check(
        dl.claims.lower(res, "D-KLUCB", "Discarding KL-UCB"),
        dl.claims.ratio_within(res, "UCB1", "D-UCB", 0.8, 1.25,
                               text="UCB1 and D-UCB end within 25 % of each other"),
    )

The helpers take a :class:`~delaylab.result.Result` whose policies met the same draws (common
random numbers): differences are paired run by run, so their standard errors are those of the
paired difference. :func:`estimate` states any other number with its standard error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: how many standard errors an ordering claim needs by default (a false ordering passes with
#: probability about 0.1 % under a normal approximation)
Z = 3.0


@dataclass(frozen=True)
class Claim:
    """One sentence of the workbook about a simulation, with its evidence.

    Attributes
    ----------
    text : str
        The sentence, as the notebook states it.
    holds : bool
        Whether the simulation supports it.
    evidence : str
        The effect size with its standard error and the runs it rests on.
    """

    text: str
    holds: bool
    evidence: str

    def __str__(self) -> str:
        return f"{'✓' if self.holds else '✗ DOES NOT HOLD:'} {self.text} — {self.evidence}"


class Claims(list):
    """The claims of a check cell (a list of :class:`Claim`); shown one per line."""

    def __str__(self) -> str:
        return "\n".join(str(c) for c in self)

    def __repr__(self) -> str:
        return str(self)

    @property
    def holds(self) -> bool:
        return all(c.holds for c in self)


def _num(x: float) -> str:
    if not math.isfinite(x):
        return str(x)
    a = abs(x)
    if a >= 100:
        return f"{x:,.0f}"
    if a >= 10:
        return f"{x:.1f}"
    return f"{x:.3g}"


def _paired(result, a: str, b: str) -> tuple[np.ndarray, float, float, int]:
    """Final regret of ``b`` minus ``a``'s, run by run, with its mean and standard error."""
    fa, fb = np.asarray(result.final(a), float), np.asarray(result.final(b), float)
    if fa.ndim != 1:
        raise ValueError(f"claims compare the runs of one setting; the result has a grid {result.grid_shape}: "
                         f"pass result of one cell")
    d = fb - fa
    n = d.size
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf
    return d, float(d.mean()), se, n


def lower(result, a: str, b: str, *, z: float = Z, text: str | None = None) -> Claim:
    """``a`` ends with a lower regret than ``b``, by more than ``z`` standard errors of the paired
    difference of their final regrets."""
    _, gap, se, n = _paired(result, a, b)
    ma, mb = float(np.mean(result.final(a))), float(np.mean(result.final(b)))
    zs = gap / se if se > 0 else (math.inf if gap > 0 else -math.inf)
    return Claim(text or f"{a} ends below {b}", bool(gap > z * se),
                 f"final regret {_num(ma)} against {_num(mb)}: gap {_num(gap)} ± {_num(se)} (s.e., {_num(zs)} s.e.; "
                 f"needs > {z:g}), {n} paired runs at T = {result.horizon:,}")


def not_different(result, a: str, b: str, *, z: float = 2.0, text: str | None = None) -> Claim:
    """Neither ``a`` nor ``b`` ends significantly lower: the paired gap is within ``z`` standard
    errors of 0 (a weak statement: say in the text how many runs it rests on)."""
    _, gap, se, n = _paired(result, a, b)
    ma, mb = float(np.mean(result.final(a))), float(np.mean(result.final(b)))
    return Claim(text or f"{a} and {b} end level", bool(abs(gap) <= z * se),
                 f"final regret {_num(ma)} against {_num(mb)}: gap {_num(gap)} ± {_num(se)} (s.e.; needs within "
                 f"{z:g} s.e. of 0), {n} paired runs at T = {result.horizon:,}")


def ratio_within(result, a: str, b: str, low: float, high: float, *, text: str | None = None) -> Claim:
    """The ratio of the mean final regrets of ``a`` and ``b`` lies in [low, high], with its
    standard error from the paired runs (delta method)."""
    fa, fb = np.asarray(result.final(a), float), np.asarray(result.final(b), float)
    n = fa.size
    ma, mb = float(fa.mean()), float(fb.mean())
    r = ma / mb if mb else math.inf
    if n > 1 and mb:
        # Var(ā/b̄) ≈ (Var(a) − 2r Cov(a,b) + r² Var(b)) / (n b̄²)
        cov = np.cov(fa, fb, ddof=1)
        se = math.sqrt(max(0.0, cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1]) / n) / abs(mb)
    else:
        se = math.inf
    return Claim(text or f"{a}'s final regret is {low:g}–{high:g} times {b}'s", bool(low <= r <= high),
                 f"ratio {r:.3f} ± {_num(se)} (s.e.), {_num(ma)} against {_num(mb)}, {n} paired runs at "
                 f"T = {result.horizon:,}")


def estimate(text: str, value: float, se: float, *, low: float = -math.inf, high: float = math.inf,
             z: float = 0.0, runs: int | None = None) -> Claim:
    """A number with its standard error, claimed to lie in [low, high]; with ``z`` > 0 the whole
    interval value ± z·se must lie there (a claim that survives the noise)."""
    lo, hi = value - z * se, value + z * se
    where = []
    if math.isfinite(low):
        where.append(f"≥ {_num(low)}")
    if math.isfinite(high):
        where.append(f"≤ {_num(high)}")
    need = f"; needs {' and '.join(where)}" + (f" within {z:g} s.e." if z else "") if where else ""
    on = f", {runs} runs" if runs else ""
    return Claim(text, bool(lo >= low and hi <= high), f"{_num(value)} ± {_num(se)} (s.e.{need}){on}")


def check(*claims: Claim) -> None:
    """Print every claim with its evidence and fail (AssertionError listing them) if one does not
    hold: the end of a notebook's check cell. Lists of claims are flattened."""
    out = Claims(c for group in claims for c in (group if isinstance(group, (list, tuple)) else [group]))
    for c in out:
        if not isinstance(c, Claim):
            raise TypeError(f"check() takes Claim objects; got {type(c).__name__}")
    print(out)
    if not out.holds:
        failed = "\n".join(str(c) for c in out if not c.holds)
        raise AssertionError(f"a statement of this notebook does not hold:\n{failed}")
