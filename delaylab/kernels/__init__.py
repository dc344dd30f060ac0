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
* :mod:`.linear` — OTFLinUCB, OTFLinTS and LinUCB (Vernade et al. 2020);
* :mod:`.uniform` — uniform random play, in every setting (the reference curve of every figure).

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
            from . import exp_weights, index, linear, odaaf, patient, qpmd, uniform

            _FAMILIES = (index, qpmd, patient, exp_weights, odaaf, linear, uniform)
            drop_stale_cache(_FAMILIES)
        except Exception as err:  # pragma: no cover - depends on the installation
            import warnings

            warnings.warn(f"delaylab's compiled kernels could not be loaded ({err}); simulations use numpy "
                          f"(set NUMBA_CACHE_DIR to a writable directory, or DELAYLAB_KERNELS=numpy)",
                          RuntimeWarning, stacklevel=3)
            _FAMILIES = ()
    return _FAMILIES


#: the file, in each folder of numba's cache, holding the digest of the sources its kernels were compiled from
STAMP = "delaylab-kernels.sha256"


def sources(modules) -> dict:
    """The modules of delaylab whose code or constants the compiled functions of ``modules`` may
    hold, name -> file: the modules themselves, and those of the delaylab objects they import
    (the helpers of :mod:`._env`, the policies' state classes and constants such as
    ``patient.TINY``)."""
    import inspect
    import sys

    found = {}
    for module in modules:
        found[module.__name__] = module.__file__
        for obj in vars(module).values():
            name = obj.__name__ if inspect.ismodule(obj) else getattr(obj, "__module__", None)
            if isinstance(name, str) and name.split(".")[0] == module.__name__.split(".")[0]:
                source = getattr(sys.modules.get(name), "__file__", None)
                if source:
                    found[name] = source
    return found


def drop_stale_cache(modules) -> bool:
    """Empty numba's on-disk cache of every compiled function of ``modules`` when the sources
    they were compiled from (:func:`sources`) have changed since: returns whether it did.

    numba keeps, in the cache of a kernel, the code of every function it calls, here the
    calendar walk of :mod:`._env` inlined into each family's loop, but throws that cache away
    only when the kernel's own file changes (numba issue #1833, "Caching issue: functions in
    different modules"; its documentation says so under "Cache invalidation"). An update that
    changed ``_env.py`` alone (a ``git pull``) would leave every kernel running the old code, and
    different results from the numpy path's. So each cache folder keeps the digest of the
    sources (:data:`STAMP`), checked when the kernels are first needed (a few milliseconds);
    where it differs, every function's cache index is emptied (``recompile()`` of a dispatcher
    not compiled yet) and the functions compile again at their first call."""
    import hashlib
    from pathlib import Path

    from numba.core.dispatcher import Dispatcher

    h = hashlib.sha256()
    for name, path in sorted(sources(modules).items()):
        h.update(name.encode() + b"\0" + Path(path).read_bytes())
    digest = h.hexdigest()
    compiled = [obj for m in modules for obj in vars(m).values()
                if isinstance(obj, Dispatcher) and obj.py_func.__module__ == m.__name__ and obj.stats.cache_path]
    stale = False
    for folder in sorted({d.stats.cache_path for d in compiled}):
        stamp = Path(folder) / STAMP
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        stale = True
        try:
            for d in compiled:
                if d.stats.cache_path == folder:
                    d.recompile()  # nothing compiled in this process yet: only the cache's index emptied
            stamp.write_text(digest)
        except OSError:  # a cache folder we cannot write: numba will not write there either
            pass
    return stale
