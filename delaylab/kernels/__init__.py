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

Kernels are compiled once and cached on disk (``cache=True``); :func:`delaylab.warmup.warmup` compiles
or loads all of them on tiny inputs. Where (:func:`cache_folder`): in ``__pycache__`` next to these
modules, where whoever installs delaylab compiles them (``python -m delaylab.kernels``: an image's
build, Binder's postBuild, a hub admin), or in ``NUMBA_CACHE_DIR`` if set. numba only uses a
folder it can write to, so a user who cannot write to the package (the students of a JupyterHub
sharing one environment) gets a folder of their own, ``$XDG_CACHE_HOME/delaylab-kernels`` (else
``~/.cache/delaylab-kernels``), seeded with a copy of the compiled kernels of ``__pycache__``
before they are loaded: they load in about a second instead of compiling for a minute.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["enabled", "available", "kernel_for", "cache_folder", "cache_report", "drop_stale_cache", "MODES"]

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
            with _numba_cache():
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


# ====================================================================== where numba caches them
#: the compiled kernels as whoever installed delaylab compiled them (numba's in-tree cache)
INSTALLED = Path(__file__).resolve().parent / "__pycache__"
#: the file, in each folder of numba's cache, holding the digest of the sources its kernels were compiled from
STAMP = "delaylab-kernels.sha256"
#: numba's cache files: an index per function and the compiled code it lists, and the digest of
#: the sources they were compiled from (:func:`drop_stale_cache`)
CACHE_FILES = ("*.nbi", "*.nbc", STAMP)


def _user_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "delaylab-kernels"


def _writable(folder: Path) -> bool:
    """Whether this process can write into ``folder`` (or create it in its parent)."""
    probe = folder if folder.exists() else folder.parent
    return os.access(probe, os.W_OK | os.X_OK)


def _numba_subfolder(source_folder: Path) -> str:
    """The sub-folder numba gives the cache of the modules of ``source_folder`` inside a cache
    root (``NUMBA_CACHE_DIR``): numba's ``get_suitable_cache_subpath`` (the folder's name, ``_``
    and the SHA-1 of its absolute path; tests/test_hub.py checks that the two agree)."""
    path = os.path.abspath(source_folder)
    return f"{os.path.basename(path)}_{hashlib.sha1(path.encode()).hexdigest()}"


def cache_folder() -> Path:
    """The folder numba reads and writes this process's compiled kernels in: ``NUMBA_CACHE_DIR``'s
    sub-folder for these modules if it is set; else :data:`INSTALLED` if this process can write
    to it; else the user's own folder (see the module's docstring)."""
    from numba.core import config

    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / _numba_subfolder(INSTALLED.parent)
    if _writable(INSTALLED):
        return INSTALLED
    return _user_folder() / _numba_subfolder(INSTALLED.parent)


def seed(folder: Path, source: Path = INSTALLED) -> int:
    """Copy into ``folder`` each of numba's cache files in ``source`` that ``folder`` lacks or
    has older (delaylab installed anew); returns how many. Each copy lands whole (a temporary
    file, then a rename): a kernel starting beside never reads half a file. Files this user's
    numba wrote since (a new specialisation added to an index) are newer and kept."""
    if folder == source or not source.is_dir():
        return 0
    copied = 0
    for pattern in CACHE_FILES:
        for src in source.glob(pattern):
            dest, tmp = folder / src.name, None
            try:
                stamp = src.stat()
                if dest.exists() and dest.stat().st_mtime >= stamp.st_mtime:
                    continue
                folder.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=folder, prefix=".seed-")
                with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
                    shutil.copyfileobj(inp, out)
                os.utime(tmp, (stamp.st_atime, stamp.st_mtime))
                os.replace(tmp, dest)
                copied += 1
            except OSError:  # unreadable, or no room: numba compiles what is missing
                if tmp is not None:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp)
    return copied


@contextlib.contextmanager
def _numba_cache():
    """While the kernel modules are imported (numba picks each function's cache folder when it
    is defined): numba's cache in :func:`cache_folder`, seeded from :data:`INSTALLED`. Only
    delaylab's functions get the user's folder: numba's setting is put back afterwards."""
    from numba.core import config

    folder = cache_folder()
    seed(folder)
    if folder == INSTALLED or config.CACHE_DIR:
        yield
        return
    saved, config.CACHE_DIR = config.CACHE_DIR, str(folder.parent)
    try:
        yield
    finally:
        config.CACHE_DIR = saved


def cache_report() -> dict:
    """After :func:`delaylab.warmup.warmup`: ``{"folder", "loaded", "compiled"}``: the kernels numba loaded from
    its cache and those it compiled in this process (``python -m delaylab.kernels`` prints it;
    a student whose kernels compiled did not get the installed ones)."""
    from numba.core.dispatcher import Dispatcher

    seen, loaded, compiled = set(), 0, 0
    for module in _families():
        for obj in vars(module).values():
            if isinstance(obj, Dispatcher) and id(obj) not in seen:
                seen.add(id(obj))
                loaded += sum(obj.stats.cache_hits.values())
                compiled += sum(obj.stats.cache_misses.values())
    return {"folder": str(cache_folder()), "loaded": loaded, "compiled": compiled}


# ====================================================================== a stale cache dropped
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
