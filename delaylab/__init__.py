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

from . import bounds, indices
from .engine import simulate
from .feedback import AnonymousSums, Arrivals
from .grid import Grid, grid
from .laws import (NEVER, DelayLaw, Empirical, Fixed, Geometric, HalfNormal, Pareto, Poisson,
                   SurvivalLaw, Uniform, criteo)
from .policies.base import Policy, Problem
from .policies.delayed import DelayedKLUCB, DelayedUCB
from .policies.discarding import DiscardingKLUCB, DiscardingUCB
from .policies.estimated import OnlineCDF, OnlineGeometric
from .policies.simple import FixedSequence, RoundRobin, UniformRandom
from .policies.ucb import KLUCB, UCB1
from .result import Result
from .settings.adversarial import AdversarialLosses
from .settings.base import Setting
from .settings.bernoulli import AggregatedAnonymous, Conversions, LabelledRewards
from .settings.linear import LinearConversions

# Issue 8: sweeps in chunks on an executor (in-process, processes, Dask), with an on-disk cache
from .sweep import sweep
# Pike-Burke, Agrawal, Szepesvári, Grünewälder 2018 (notebook 04)
from .policies.improved_ucb import ImprovedUCB  # noqa: E402
from .policies.odaaf import ODAAF, ODAAFB, ODAAFV  # noqa: E402
from .policies.qpmd import QPMD  # noqa: E402
# Manegueu, Vernade, Carpentier, Valko 2020 (paper 2): arm-dependent, heavy-tailed delays
from .laws import ScaledPareto
from .policies.patient import AdaptPatientBandits, PatientBandits
# Vernade, Carpentier, Lattimore, Zappella, Ermis, Brueckner 2020 (paper 3): linear bandits
from .policies.linear import LinUCB, OTFLinTS, OTFLinUCB  # noqa: E402
# Thune, Cesa-Bianchi, Seldin 2019 (paper 5): adversarial losses with unrestricted delays
from .policies.exp_weights import DEW, Exp3
from .policies.skipper import Doubling, Skipper
from .settings import sequences

__version__ = "0.1.0"

__all__ = [
    "bounds", "indices", "simulate", "Result", "grid", "Grid",
    "DelayLaw", "Geometric", "Pareto", "Uniform", "Poisson", "HalfNormal", "Fixed",
    "SurvivalLaw", "Empirical", "criteo", "NEVER",
    "Setting", "Conversions", "LabelledRewards", "AggregatedAnonymous", "LinearConversions",
    "AdversarialLosses", "Arrivals", "AnonymousSums",
    "Policy", "Problem", "UCB1", "KLUCB", "DelayedUCB", "DelayedKLUCB", "DiscardingUCB",
    "DiscardingKLUCB", "OnlineGeometric", "OnlineCDF", "FixedSequence", "RoundRobin",
    "UniformRandom",
    # Pike-Burke et al. 2018
    "ODAAF", "ODAAFB", "ODAAFV", "QPMD", "ImprovedUCB",
]

# Issue 8: sweeps
__all__ += ["sweep"]
# Manegueu et al. 2020 (paper 2)
__all__ += ["ScaledPareto", "PatientBandits", "AdaptPatientBandits"]
# Vernade et al. 2020 (paper 3)
__all__ += ["OTFLinUCB", "OTFLinTS", "LinUCB"]
# Thune, Cesa-Bianchi, Seldin 2019 (paper 5)
__all__ += ["Exp3", "DEW", "Skipper", "Doubling", "sequences"]
