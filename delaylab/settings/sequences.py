r"""Loss and delay sequences for oblivious adversarial bandits (Thune, Cesa-Bianchi, Seldin 2019).

The paper has no experiments; these small generators build the instances of our notebook. Each
returns plain numpy arrays, fixed before the game (an *oblivious* adversary), to be passed to
:class:`~delaylab.settings.adversarial.AdversarialLosses`::

    losses = bernoulli_losses([0.25, 0.75], horizon=4096, seed=1)       # (T, K) in {0, 1}
    delays = example8_delays(horizon=4096, n_arms=2)                     # (T,) int ≥ 0
    env = AdversarialLosses(losses, delays, reveal="at_action")

Time steps are 0-based in code: step s is the paper's round t = s + 1. A loss is in [0, 1]; a
delay d_s ≥ 0 means the loss of step s is observed at the end of step s + d_s.

Loss sequences

* :func:`bernoulli_losses` — stochastic: ℓ_s(a) ~ Bernoulli(μ_a) independently;
* :func:`switching_losses` — the best arm changes from phase to phase (Bernoulli losses whose
  means move): stale feedback points to the wrong arm after each switch;
* :func:`slow_informative_losses` — only the rounds with a long delay tell the arms apart
  (an oblivious adversary may correlate losses with delays): skipping them is costly;

Delay sequences

* :func:`fixed_delays` — d_s = d for every step;
* :func:`law_delays` — i.i.d. draws from any :class:`~delaylab.laws.DelayLaw`;
* :func:`spiked_delays` — zero delays except a few rounds with an enormous delay;
* :func:`example8_delays` — Example 8 of the paper: d_t = T − t for the first rounds
  t < √(KT / ln K), then 0.

:func:`example8` pairs Example 8's delays with Bernoulli losses (the paper specifies only the
delays; the losses are our choice).
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import check_int, check_probability, check_real
from ..laws import DelayLaw

__all__ = ["bernoulli_losses", "switching_losses", "slow_informative_losses", "fixed_delays", "law_delays", "spiked_delays",
           "example8_delays", "example8_cutoff", "example8"]


def bernoulli_losses(means, horizon: int, seed: int = 0) -> np.ndarray:
    """Stochastic losses ℓ_s(a) ~ Bernoulli(μ_a), independent over steps and arms.

    Parameters
    ----------
    means : sequence of float
        μ_a ∈ [0, 1] for each of the K ≥ 2 arms (the best arm has the smallest mean loss).
    horizon : int
        T ≥ 1 steps.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    ndarray (T, K) of 0.0 and 1.0.
    """
    mu = check_probability("means", means, ndim=(1,))
    if mu.size < 2:
        raise ValueError(f"means must list at least 2 arms; got {mu.size}")
    T = check_int("horizon", horizon, low=1)
    u = np.random.default_rng(check_int("seed", seed, low=0)).random((T, mu.size))
    return (u < mu).astype(float)


def switching_losses(horizon: int, n_arms: int = 2, gap: float = 0.3, phases: int = 3,
                     seed: int = 0) -> np.ndarray:
    """Bernoulli losses whose best arm switches: arm j mod K is best in phase j.

    The horizon is cut into ``phases`` equal phases (up to one round); in phase j arm j mod K has
    mean loss 0.5 − gap/2 and every other arm 0.5 + gap/2, so arm j is best in
    ⌊(phases − 1 − j)/K⌋ + 1 phases. With gap > 0, arm 0 alone has the lowest expected total loss
    when phases ≡ 1 (mod K), e.g. K = 2 and an odd number of phases, provided the horizon is at
    least phases·(⌊phases/K⌋ + 1); when the horizon is a multiple of ``phases``, exactly then.
    When phases ≢ 1 (mod K), arms 0 … r − 1 (r = phases mod K, all K arms when K divides
    ``phases``) are best in equally many phases and tie up to the rounding of the phase lengths.
    On one draw the best arm in hindsight is random: another arm can win by chance.

    Parameters
    ----------
    horizon : int
    n_arms : int
        K ≥ 2.
    gap : float
        Δ ∈ [0, 1]: difference of mean losses within a phase.
    phases : int
        Number of phases ≥ 1.
    seed : int

    Returns
    -------
    ndarray (T, K) of 0.0 and 1.0.
    """
    T = check_int("horizon", horizon, low=1)
    K = check_int("n_arms", n_arms, low=2)
    gap = float(check_real("gap", gap, low=0.0, high=1.0, ndim=(0,)))
    P = check_int("phases", phases, low=1)
    phase = np.minimum(np.arange(T) * P // T, P - 1)
    means = np.full((T, K), 0.5 + gap / 2)
    means[np.arange(T), phase % K] = 0.5 - gap / 2
    u = np.random.default_rng(check_int("seed", seed, low=0)).random((T, K))
    return (u < means).astype(float)


def slow_informative_losses(delays, threshold: int = 5, gap: float = 0.6, n_arms: int = 2,
                            seed: int = 0) -> np.ndarray:
    """Bernoulli losses that differ between arms only on the rounds with d_s ≥ ``threshold``.

    On those rounds arm 0 has mean loss 0.5 − gap/2 and the others 0.5 + gap/2; on every other
    round all arms have mean 0.5. The best arm can only be learned from slow feedback, so a
    small skipping threshold β ≤ ``threshold`` learns nothing about the arms' mean difference
    (the kept rounds' losses are fair coins, drawn once: on a given draw they may still favour an
    arm by chance): the cost |S_β| of Theorem 3 is real here, not just a worst case.
    """
    d = check_real("delays", delays, low=0.0, ndim=(1,))
    thr = float(check_real("threshold", threshold, low=0.0, ndim=(0,)))
    gap = float(check_real("gap", gap, low=0.0, high=1.0, ndim=(0,)))
    K = check_int("n_arms", n_arms, low=2)
    means = np.full((d.size, K), 0.5)
    slow = d >= thr
    means[slow, 0], means[slow, 1:] = 0.5 - gap / 2, 0.5 + gap / 2
    u = np.random.default_rng(check_int("seed", seed, low=0)).random(means.shape)
    return (u < means).astype(float)


def fixed_delays(horizon: int, delay: int) -> np.ndarray:
    """d_s = d for every step (the setting of Cesa-Bianchi et al. 2019)."""
    T = check_int("horizon", horizon, low=1)
    return np.full(T, check_int("delay", delay, low=0), dtype=np.int64)


def law_delays(law: DelayLaw, horizon: int, seed: int = 0) -> np.ndarray:
    """d_s drawn i.i.d. from ``law`` (any delay law of :mod:`delaylab.laws`), fixed for the game.

    Unlike passing the law itself to the setting (each run then draws its own delays), this
    fixes one oblivious delay sequence shared by all runs.
    """
    if not isinstance(law, DelayLaw) or law.n_cells != 1:
        raise ValueError(f"law must be a delay law with one cell, e.g. delaylab.Geometric(10); got {law!r}")
    T = check_int("horizon", horizon, low=1)
    return law.sample(T, seed=check_int("seed", seed, low=0)).astype(np.int64)


def spiked_delays(horizon: int, n_spikes: int, spike=None, base: int = 0, seed: int = 0) -> np.ndarray:
    """A few enormous delays: d_s = ``spike`` on ``n_spikes`` random steps, ``base`` elsewhere.

    This is the situation Skipper is made for: d_max (hence DEW's truncated learning rate
    η' = min(η, 1/(4e d_max))) is set by a handful of rounds. ``spike`` defaults to T.
    """
    T = check_int("horizon", horizon, low=1)
    k = check_int("n_spikes", n_spikes, low=0, high=T)
    spike = T if spike is None else check_int("spike", spike, low=0)
    d = np.full(T, check_int("base", base, low=0), dtype=np.int64)
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    d[rng.choice(T, size=k, replace=False)] = spike
    return d


def example8_cutoff(horizon: int, n_arms: int) -> float:
    """√(KT / ln K): Example 8 delays the rounds t < √(KT / ln K), and bounds the oracle rate with
    β = √(KT / ln K) (as printed). That β is not the figure's "oracle β"
    (:func:`~delaylab.papers.thune2019.oracle_beta`, the minimiser of Theorem 3's bound on the
    instance): on Example 8 that one is √(KT / (32e ln K)), this value over √(32e), since D_β = 0
    for every β below the smallest positive delay (our derivation)."""
    return math.sqrt(n_arms * horizon / math.log(n_arms))


def example8_delays(horizon: int, n_arms: int = 2) -> np.ndarray:
    """Example 8: d_t = T − t for rounds t < √(KT / ln K), d_t = 0 afterwards.

    In the paper's 1-based rounds t = 1 … T the delayed losses all arrive at the end of round T,
    too late to be of any use. In our 0-based steps s = t − 1 this is d_s = T − 1 − s. Then
    D = Σ d_t = Θ(T √(KT / ln K)) while, for β = √(KT / ln K), D_β = 0 and |S_β| < β.
    """
    T = check_int("horizon", horizon, low=1)
    K = check_int("n_arms", n_arms, low=2)
    t = np.arange(1, T + 1)
    return np.where(t < example8_cutoff(T, K), T - t, 0).astype(np.int64)


def example8(horizon: int, n_arms: int = 2, gap: float = 0.5, seed: int = 0):
    """Losses and delays of our Example 8 instance: (losses (T, K), delays (T,)).

    Delays as in :func:`example8_delays`. Losses (our choice; the paper gives none): Bernoulli
    with mean 0.5 − gap/2 for arm 0 and 0.5 + gap/2 for the others.
    """
    K = check_int("n_arms", n_arms, low=2)
    gap = float(check_real("gap", gap, low=0.0, high=1.0, ndim=(0,)))
    means = [0.5 - gap / 2] + [0.5 + gap / 2] * (K - 1)
    return bernoulli_losses(means, horizon, seed), example8_delays(horizon, K)
