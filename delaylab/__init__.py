"""delaylab: bandits with delayed feedback, for teaching.

One simulation engine for five settings (conversions, labelled delayed rewards, aggregated
anonymous feedback, linear conversions, adversarial losses), delay laws, and the algorithms of
the papers the workbook follows. Quick start::

    import delaylab as dl
    law = dl.Geometric(mean=500)
    env = dl.Conversions(means=[0.1, 0.05, 0.03], delays=law, window=1000)
    res = dl.simulate(env, {"D-KLUCB": dl.DelayedKLUCB(delay=law, window=1000),
                            "UCB1": dl.UCB1()}, horizon=10_000, runs=100, seed=0)
    res.regret["D-KLUCB"]   # (100, 10_000) cumulative pseudo-regret of each run
"""

from . import startup  # noqa: F401  (first, before anything imports plotly: see delaylab.startup)
from . import bounds, claims, indices
from .cache import cache_clear, cache_info
from .engine import estimate, simulate
from .feedback import AnonymousSums, Arrivals
from .grid import Grid, grid
from .laws import (NEVER, DelayLaw, Empirical, Fixed, Geometric, HalfNormal, Pareto, Poisson,
                   ScaledPareto, SurvivalLaw, Uniform, criteo)
from .policies.base import Policy, Problem
from .policies.simple import UNIFORM, FixedSequence, RoundRobin, UniformRandom, with_uniform
from .policies.ucb import KLUCB, UCB1
from .result import Result
from .settings import sequences
from .settings.adversarial import AdversarialLosses
from .settings.base import Setting
from .settings.bernoulli import AggregatedAnonymous, Conversions, LabelledRewards
from .settings.linear import LinearConversions
from .sweep import sweep

# 1. Vernade, Cappé, Perchet 2017: delayed conversions
from .policies.delayed import DelayedKLUCB, DelayedUCB  # isort: skip
from .policies.discarding import DiscardingKLUCB, DiscardingUCB  # isort: skip
from .policies.estimated import OnlineCDF, OnlineGeometric  # isort: skip
# 2. Manegueu, Vernade, Carpentier, Valko 2020: arm-dependent, heavy-tailed delays
from .policies.patient import AdaptPatientBandits, PatientBandits  # isort: skip
# 3. Vernade, Carpentier, Lattimore, Zappella, Ermis, Brueckner 2020: linear bandits
from .policies.linear import LinUCB, OTFLinTS, OTFLinUCB  # isort: skip
# 4. Pike-Burke, Agrawal, Szepesvári, Grünewälder 2018: aggregated anonymous feedback
from .policies.improved_ucb import ImprovedUCB  # isort: skip
from .policies.odaaf import ODAAF, ODAAFB, ODAAFV  # isort: skip
from .policies.qpmd import QPMD  # isort: skip
# 5. Thune, Cesa-Bianchi, Seldin 2019: adversarial losses, unrestricted delays
from .policies.exp_weights import DEW, Exp3  # isort: skip
from .policies.skipper import Doubling, Skipper  # isort: skip

from ._version import __version__  # noqa: E402,F401  (re-exported)

__all__ = [
    "bounds", "claims", "indices", "estimate", "simulate", "sweep", "Result", "grid", "Grid", "cache_info", "cache_clear",
    "DelayLaw", "Geometric", "Pareto", "ScaledPareto", "Uniform", "Poisson", "HalfNormal", "Fixed",
    "SurvivalLaw", "Empirical", "criteo", "NEVER",
    "Setting", "Conversions", "LabelledRewards", "AggregatedAnonymous", "LinearConversions",
    "AdversarialLosses", "sequences", "Arrivals", "AnonymousSums",
    "Policy", "Problem", "UCB1", "KLUCB", "FixedSequence", "RoundRobin", "UniformRandom", "UNIFORM", "with_uniform",
    "DelayedUCB", "DelayedKLUCB", "DiscardingUCB", "DiscardingKLUCB", "OnlineGeometric", "OnlineCDF",
    "PatientBandits", "AdaptPatientBandits",
    "OTFLinUCB", "OTFLinTS", "LinUCB",
    "ODAAF", "ODAAFB", "ODAAFV", "QPMD", "ImprovedUCB",
    "Exp3", "DEW", "Skipper", "Doubling",
]
