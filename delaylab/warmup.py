"""Compile (or load from numba's on-disk cache) every compiled kernel, on tiny simulations.

``python -m delaylab.warmup`` after installing (``tasks.py`` does it; ``python -m
delaylab.kernels`` is the same), and the dashboards' preheated kernels before a visitor arrives
(:mod:`delaylab.serve.kernel`). It drives whole simulations, so it sits above the package, not in
:mod:`delaylab.kernels` (which the engine imports).
"""

from __future__ import annotations

import time

import numpy as np

import delaylab as dl
from delaylab import kernels


def warmup(verbose: bool = False) -> float:
    """Compile (or load from the on-disk cache) every kernel on tiny inputs; returns seconds.

    The dashboards' preheated kernels call this before a visitor arrives. Does nothing (0 s)
    when the kernels are not enabled.
    """
    if not kernels.enabled():
        return 0.0
    t0 = time.perf_counter()
    law = dl.Geometric(mean=3)
    conv = dl.Conversions([0.5, 0.3], law, window=5)
    lab = dl.LabelledRewards([0.5, 0.3], law, window=5)
    uncensored = dl.Conversions([0.5, 0.3], law)
    runs = [(conv, [dl.UCB1(), dl.KLUCB(), dl.DelayedUCB(law, 5), dl.DelayedKLUCB(law, 5),
                    dl.DelayedKLUCB(dl.Uniform(0, 6), 5), dl.DelayedUCB(dl.Uniform(0, 6), 5),
                    dl.DiscardingUCB(law, 5), dl.DiscardingKLUCB(law, 5)]),
            (uncensored, [dl.DelayedUCB(law), dl.DelayedKLUCB(law)]),
            (lab, [dl.UCB1(), dl.KLUCB(), dl.QPMD(), dl.QPMD(dl.KLUCB())])]
    for env, pols in runs:
        for p in pols:
            dl.simulate(env, p, 20, 2, checkpoints=2)
    dl.simulate(conv, dl.UCB1(c=np.array([1.0, 2.0])), 20, 2, checkpoints=2)
    arm_laws = dl.Conversions([0.5, 0.3], [law, dl.Pareto(1.0)])
    for p in (dl.PatientBandits(alpha=0.3), dl.AdaptPatientBandits()):
        dl.simulate(arm_laws, p, 20, 2, checkpoints=2)
    adv = dl.AdversarialLosses(np.tile([0.2, 0.6], (20, 1)), dl.Geometric(mean=3))
    for p in (dl.Exp3(), dl.DEW(eta=0.1, dmax=5), dl.Skipper(beta=4)):
        dl.simulate(adv, p, 20, 2, checkpoints=2)
    dl.simulate(dl.AdversarialLosses(adv.losses, adv.delays, reveal="at_action"), dl.Doubling(), 20, 2, checkpoints=2)
    # the phased family shares one kernel (ODAAF-B/-V's bridges and Improved UCB's labels are arguments)
    dl.simulate(dl.AggregatedAnonymous([0.5, 0.3], law), dl.ODAAF(mean_delay=3), 20, 2, checkpoints=2)
    lin = dl.LinearConversions([0.6, 0.3], law, n_actions=3, window=5)
    dl.simulate(lin, dl.OTFLinTS(window=5), 20, 2, checkpoints=2)  # one specialisation for the three learners
    for env in (conv, adv, lin):  # uniform play: one kernel per kind of setting
        dl.simulate(env, dl.UniformRandom(), 20, 2, checkpoints=2)
    elapsed = time.perf_counter() - t0
    if verbose:
        print(f"delaylab kernels ready in {elapsed:.2f} s")
    return elapsed


if __name__ == "__main__":
    if kernels.enabled():
        warmup(verbose=True)
    else:
        print("delaylab kernels are off (numba missing or DELAYLAB_KERNELS=numpy): nothing to compile")
