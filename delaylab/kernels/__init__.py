r"""Compiled kernels (numba): the engine's fast path, beside the numpy policies.

The numpy policies in :mod:`delaylab.policies` are the reference: they read like the papers and
the notebooks show them. For the algorithms the panels and figures run, a kernel here runs the
*whole* time loop of a block of steps, for every run of the batch, in one compiled call: the
same draws (the setting's :class:`~delaylab.settings.base.Block`), the same calendar of pending
feedback, the same formulas in the same order, written per run and per arm. The kernel works
on the policy's own state arrays, which the policy declares in a NamedTuple returned by its
``kernel_state()`` (e.g. :class:`delaylab.policies.ucb.BlindIndexState`), so ``snapshot()`` and
``simulate(trace=True)`` see exactly what the numpy path would show. A kernel reads nothing else
of the policy; the setting's draws and the engine's calendar reach it as NamedTuples too
(:mod:`._env`).

One module per algorithm family:

* :mod:`.index` — UCB1, KL-UCB, D-UCB/D-KLUCB, UD-UCB/UD-KLUCB (geometric recursion and tabulated
  counts), Discarding UCB/KL-UCB (Vernade et al. 2017);
* :mod:`.qpmd` — QPM-D over UCB1 or KL-UCB (Joulani et al. 2013);
* :mod:`.patient` — Patient Bandits and Adapt-Patient Bandits (Manegueu et al. 2020);
* :mod:`.exp_weights` — Exp3, DEW, Skipper and Doubling (Thune et al. 2019);
* :mod:`.odaaf` — ODAAF, ODAAF-B, ODAAF-V and Improved UCB (Pike-Burke et al. 2018), phased;
* :mod:`.linear` — OTFLinUCB, OTFLinTS and LinUCB (Vernade et al. 2020).

Where a kernel is no faster than numpy on large batches (KL-UCB, and D-UCB with the geometric
count, beyond about 2000 runs per chunk; the phased family beyond 100 runs, against the engine's
block path), it declares ``max_batch`` and larger chunks take the numpy path; both give the same
runs.

Which path runs (:func:`enabled`): the kernels when numba can be imported, unless the
environment variable ``DELAYLAB_KERNELS=numpy`` is set; without numba, the numpy path runs,
silently (numba is a declared dependency; a missing numba only costs speed). Both paths give
the same runs: the tests (tests/test_kernels.py) simulate every algorithm with a kernel both
ways on shared draws and require identical pulls and regrets. (Elementary functions such as
``log`` may differ by one unit in the last place between numpy's SIMD loops (AVX-512 on some
machines) and the C library that numba calls, so indices agree to ~1e-15, except where the
index's equation is ill-conditioned: KL-UCB's d(p, q) = β/n with β/n below ~1e-6, where an ulp
moves q by up to ~1e-12; only a tie to that precision could choose another arm, which the
tests would report.)

Kernels are compiled once and cached on disk (``cache=True``: in ``__pycache__`` next to these
modules, or in numba's user-wide cache directory if the package is not writable, or in
``NUMBA_CACHE_DIR``); :func:`delaylab.warmup.warmup` compiles or loads all of them on tiny inputs.
"""

from __future__ import annotations

import importlib.util
import os

__all__ = ["enabled", "available", "kernel_for", "MODES"]

#: values of the environment variable DELAYLAB_KERNELS
MODES = ("numba", "numpy")

# numba is a dependency, but the numpy path must work without it; it is imported only when a
# kernel is first needed (importing delaylab stays fast)
_NUMBA = importlib.util.find_spec("numba") is not None


def available() -> bool:
    """Whether numba can be imported (the kernels can run)."""
    return _NUMBA


def mode() -> str:
    """The path requested by ``DELAYLAB_KERNELS`` ("numba", the default, or "numpy")."""
    value = os.environ.get("DELAYLAB_KERNELS", "numba").strip().lower() or "numba"
    if value not in MODES:
        raise ValueError(f"DELAYLAB_KERNELS must be one of {MODES}; got {value!r}")
    return value


def enabled() -> bool:
    """Whether simulations use the compiled kernels (numba importable and not turned off)."""
    return _NUMBA and mode() == "numba"


def kernel_for(policy, setting, problem, calendar):
    """A compiled kernel running ``policy`` (started) on ``setting``, or None for the numpy path.

    ``calendar`` is the engine's :class:`~delaylab.feedback.Calendar` of the runner: the kernel
    schedules and pops the feedback in it, as the numpy path does.
    """
    if not enabled() or calendar is None:
        return None
    families = _families()
    for family in families:
        k = family.make(policy, setting, problem, calendar)
        if k is not None:
            return k if k.max_batch is None or problem.size <= k.max_batch else None
    return None


_FAMILIES = None


def _families():
    """The kernel modules, imported (and their kernels loaded) once; () if numba cannot load them,
    e.g. when no cache directory is writable (set NUMBA_CACHE_DIR): then numpy runs, with a warning."""
    global _FAMILIES
    if _FAMILIES is None:
        try:
            from . import exp_weights, index, linear, odaaf, patient, qpmd

            _FAMILIES = (index, qpmd, patient, exp_weights, odaaf, linear)
        except Exception as err:  # pragma: no cover - depends on the installation
            import warnings

            warnings.warn(f"delaylab's compiled kernels could not be loaded ({err}); simulations use numpy "
                          f"(set NUMBA_CACHE_DIR to a writable directory, or DELAYLAB_KERNELS=numpy)",
                          RuntimeWarning, stacklevel=3)
            _FAMILIES = ()
    return _FAMILIES
