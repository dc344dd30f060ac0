"""Sweeps: :func:`~delaylab.simulate` in chunks of runs, on an executor, with an on-disk cache.

``sweep(...)`` takes the arguments of ``simulate`` and returns the same :class:`Result`, with
bit-identical arrays, whatever the executor, the chunk size or the number of workers: a run's
outcome depends only on the seed, its index and its parameters (:mod:`delaylab.streams`), so
the runs can be split into chunks (sets of run indices, each with all grid cells), computed
anywhere, and put back in order.

Executors
---------
``executor=`` None or ``"inprocess"`` (the default), ``"processes"`` or a number of local worker
processes, a ``dask.distributed.Client`` or a scheduler's address: see :mod:`delaylab.executors`.

Cache
-----
``cache=`` a folder, True (``$DELAYLAB_CACHE`` or ``~/.cache/delaylab``) or None: finished
chunks are written as they complete (see :mod:`delaylab.cache`), so rerunning a finished sweep
reads everything back, an interrupted one resumes where it stopped, and a sweep with more runs
computes only the new ones.

Before any work starts, every argument is checked as ``simulate`` checks it, every policy and
the setting are started on a one-run probe (so an invalid grid value or hyperparameter raises
its ``ValueError`` at once), the cache folder is checked to be writable, the scheduler to be
reachable, and the setting and policies to be transferable to the workers.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import time
import warnings
from dataclasses import dataclass

import numpy as np

from . import engine
from .cache import Uncacheable, code_version, fingerprint, open_cache
from .chunks import Layout, gatherer, to_arrays
from .engine import simulate
from .executors import starter
from .plan import Plan
from .result import Result
from .streams import Batch

#: chunks of fewer columns (runs × grid cells) pay the per-step Python overhead of the engine
MIN_CHUNK_COLUMNS = 256
#: chunks per worker when chunk_runs is not given (so that fast workers take more)
CHUNKS_PER_WORKER = 4
#: seconds allowed to connect to a Dask scheduler given by its address, and to find a worker
CONNECT_TIMEOUT = 5.0


#: the cache used when a sweep is given cache=None (see :func:`default_cache`); outside any
#: ``default_cache`` block, the folder in $DELAYLAB_DEFAULT_CACHE if set (the dashboards' kernels:
#: see delaylab/serve/kernel.py), else none
_DEFAULT_CACHE = contextvars.ContextVar("delaylab_default_cache",
                                        default=os.environ.get("DELAYLAB_DEFAULT_CACHE") or None)


@contextlib.contextmanager
def default_cache(cache=True):
    """Within this block, sweeps given ``cache=None`` use ``cache`` (the paper-scale buttons of
    the notebooks run their figures this way). An unusable cache folder means no cache, with no
    error: a figure is then recomputed rather than refused."""
    try:
        open_cache(cache)
    except ValueError:
        cache = None
    token = _DEFAULT_CACHE.set(cache)
    try:
        yield
    finally:
        _DEFAULT_CACHE.reset(token)


def sweep(setting, policies, horizon, runs=100, seed=0, *, checkpoints=None, grid=None, trace=False,
          executor=None, chunk_runs=None, cache=None, progress=None, keep="all") -> Result:
    """:func:`~delaylab.simulate` in chunks of runs, on an executor, with an on-disk cache.

    Parameters
    ----------
    setting, policies, horizon, runs, seed, checkpoints, grid, trace
        As for :func:`~delaylab.simulate`; the result is the same, array for array.
    executor : None, "inprocess", "processes", int, dask.distributed.Client or str
        Where chunks run: in this process (None, the default), in n local processes
        ("processes": one per core), or on a Dask cluster (a Client, or the scheduler's address
        such as ``"tcp://scheduler:8786"``). See the module docstring.
    chunk_runs : int, optional
        Run indices per chunk (each chunk simulates all grid cells of its runs). Default: about
        4 chunks per worker, but at least 256 columns (runs × cells) per chunk.
    cache : None, bool, str or Path
        Folder of the on-disk cache (True: ``$DELAYLAB_CACHE`` or ``~/.cache/delaylab``; False:
        no cache; None: the one set by :func:`default_cache`, else no cache).
    progress : None, True or callable
        A callable receives the fraction of the run-steps done (cached runs count as done at
        once); True shows a bar (``tqdm.auto``: a widget in notebooks, text in terminals).
    keep : "all" or "summary"
        As for :func:`~delaylab.simulate`: with "summary" each finished chunk is reduced to the
        mean and variance over its runs at each checkpoint and merged at once, so memory does not
        grow with the number of runs (10⁴ runs × 10⁵ steps fit in well under 1 GiB). A sweep whose
        full result would not fit in the available memory is refused before any work.

    Returns
    -------
    Result
        As from :func:`~delaylab.simulate`; ``notes`` tells how many chunks were computed or
        read from the cache (``computed_chunks``, ``computed_runs``, ``cached_runs``,
        ``corrupt_entries``, ``executor``, ``cache``).
    """
    started = time.perf_counter()
    if cache is None:
        cache = _DEFAULT_CACHE.get()
    plan = Plan.of(setting, policies, horizon, runs, seed, checkpoints, grid, trace=trace, keep=keep)
    plan.check_memory("sweep", copies=2)  # keep="all": the chunks, then the assembled arrays
    traced = _probe(plan)
    start_executor = starter(executor, CONNECT_TIMEOUT)  # checked now, connected below
    R = len(plan.run_ids)
    if chunk_runs is not None:
        _chunk_size(chunk_runs, R, plan.cells, 1)
    _Progress(progress, 1)  # checked (a bar is only shown below)
    entries, notes = _open(cache, plan)
    check = Layout(plan, traced).check
    runner = start_executor()
    try:
        n_chunk = _chunk_size(chunk_runs, R, plan.cells, runner.workers)
        bar = _Progress(progress, R * plan.cells * plan.horizon)
        try:
            result = _run(plan, check, entries, runner, n_chunk, bar, notes)
        finally:
            bar.close()
    finally:
        runner.close()
    result.elapsed = time.perf_counter() - started
    return result


def _run(plan: Plan, check, entries: "_Entries", runner, n_chunk: int, bar: "_Progress", notes: dict) -> Result:
    """The sweep's runs: those in the cache read back, the others computed by ``runner`` in chunks
    of ``n_chunk`` runs; then the result, with ``notes`` on where its runs came from."""
    R = len(plan.run_ids)
    gather = gatherer(plan)
    sources, corrupt = entries.read(plan.run_ids, check)
    sources = gather.usable(sources)
    missing = _missing(plan.run_ids, sources)
    jobs = [missing[i : i + n_chunk] for i in range(0, len(missing), n_chunk)]
    notes.update(executor=runner.description, workers=runner.workers, chunk_runs=n_chunk,
                 computed_chunks=0, computed_runs=len(missing), cached_runs=R - len(missing),
                 corrupt_entries=corrupt)
    chunks = _Chunks(jobs, gather, entries, bar, notes, done_runs=R - len(missing), total_runs=R)
    for ids, arrays in sources:
        gather.add(ids, arrays)
    if jobs:
        runner.run(_Task(plan.arguments()), jobs, chunks.finished, chunks.progress)
    bar(1.0)
    return gather.result(notes)


class _Chunks:
    """The chunks a sweep computes: each one finished is gathered, written to the cache and
    counted in the progress, which also follows the chunks under way (in-process executor)."""

    def __init__(self, jobs, gather, entries: "_Entries", bar: "_Progress", notes: dict, *, done_runs: int,
                 total_runs: int):
        self.jobs, self.gather, self.entries, self.bar, self.notes = jobs, gather, entries, bar, notes
        self.done_runs, self.total_runs, self.partial = done_runs, total_runs, {}
        self._show()

    def progress(self, i: int, fraction: float) -> None:
        """Fraction of chunk ``i`` done."""
        self.partial[i] = fraction * len(self.jobs[i])
        self._show()

    def finished(self, i: int, arrays: dict) -> None:
        self.gather.add(self.jobs[i], arrays)
        self.notes["computed_chunks"] += 1
        self.entries.write(self.jobs[i], arrays)
        self.partial.pop(i, None)
        self.done_runs += len(self.jobs[i])
        self._show()

    def _show(self) -> None:
        self.bar((self.done_runs + sum(self.partial.values())) / self.total_runs)


def _missing(run_ids, sources) -> np.ndarray:
    """The run indices that no source holds, in the requested order."""
    have = set()
    for ids, _ in sources:
        have.update(int(r) for r in ids)
    return np.array([r for r in run_ids if int(r) not in have], dtype=np.int64)


# ====================================================================== the cache
def _open(cache, plan: Plan) -> tuple["_Entries", dict]:
    """The sweep's place in the cache (none without a cache, or for a problem that cannot be
    described), and the notes saying which."""
    store = open_cache(cache)
    notes = {"cache": None if store is None else str(store.folder)}
    if store is None:
        return _Entries(None, None, notes), notes
    try:
        return _Entries(store, _cache_key(plan), notes), notes
    except Uncacheable as exc:
        notes["cache"] = None
        notes["cache_note"] = f"not cached: {exc}"
        warnings.warn(f"delaylab.sweep runs without its cache: {exc}", stacklevel=3)
        return _Entries(None, None, notes), notes


def _cache_key(plan: Plan) -> str:
    """Everything that determines a run's outcome but its index, as a fingerprint (pinned by
    tests/test_sweep_keys.py: another key for the same problem makes the caches on disk useless)."""
    return fingerprint(["delaylab sweep", code_version(), plan.setting, list(plan.policies.items()), plan.horizon,
                        plan.times, bool(plan.trace), plan.seed, list(plan.shape)]
                       + (["summary"] if plan.keep == "summary" else []))


class _Entries:
    """A sweep's entries in its cache (none without a cache): read back, and written as chunks
    finish; a write that fails stops the caching, with a warning, never the sweep."""

    def __init__(self, cache, key, notes: dict):
        self.cache, self.key, self.notes = cache, key, notes

    def read(self, run_ids, check) -> tuple[list, int]:
        if self.cache is None:
            return [], 0
        return self.cache.entries(self.key, run_ids, check)

    def write(self, ids, arrays: dict) -> None:
        if self.cache is None:
            return
        try:
            self.cache.store(self.key, ids, arrays)
        except (OSError, Uncacheable) as exc:  # keep the results; stop caching
            self.cache = None
            self.notes["cache_note"] = f"stopped caching: {exc}"
            warnings.warn(f"delaylab.sweep could not write its cache ({exc}); continuing without it", stacklevel=4)


# ====================================================================== validation
def _probe(plan: Plan) -> dict:
    """Start every policy and the setting on one run (all grid cells), as the engine would:
    invalid values raise their ValueError before any chunk runs. Returns, with trace=True,
    {policy name: {field: shape per column}} of the recorded states."""
    batch = Batch(plan.run_ids[:1], plan.cells)
    problem = plan.problem(batch)
    started = {name: p.clone().start(problem) for name, p in plan.policies.items()}
    plan.setting.episode(batch, plan.horizon, plan.seed).draw(0, 1)
    if not plan.trace:
        return {}
    return {name: plan.check_trace(name, pol.snapshot(), batch.size, engine.TRACE_BUDGET)
            for name, pol in started.items()}


def _chunk_size(chunk_runs, R, G, workers) -> int:
    if chunk_runs is None:
        if workers == 1:  # in this process: one batch (fewest steps); chunk_runs= for finer resumption
            return R
        return min(R, max(math.ceil(R / (CHUNKS_PER_WORKER * workers)), math.ceil(MIN_CHUNK_COLUMNS / G)))
    from ._validate import check_int

    return check_int("chunk_runs", chunk_runs, low=1)


# ====================================================================== the chunks' task
@dataclass(frozen=True)
class _Task:
    """What a chunk of run indices computes, wherever it runs (see :mod:`delaylab.executors`):
    simulate with the plan's arguments (a run's outcome depends only on the seed, its index and
    the parameters), as the flat arrays the cache stores."""

    payload: dict  # simulate's keyword arguments but runs

    def __call__(self, ids, progress=None) -> dict:
        return _compute(self.payload, ids, progress)

    def parts(self) -> list:
        """(label, object) of what the task carries to the workers."""
        named = self.payload["policies"]
        return [("the setting", self.payload["setting"])] + [(f"policy {n!r}", p) for n, p in named.items()]


def _compute(payload, ids, progress=None) -> dict:
    return to_arrays(simulate(**payload, runs=ids, progress=progress))


# ====================================================================== progress
class _Progress:
    """progress=: None, a callable of the fraction done, or True for a tqdm.auto bar."""

    def __init__(self, progress, total: int):
        self.fn, self.bar, self.total, self.last = None, None, total, -1.0
        self.show = progress is True
        if callable(progress):
            self.fn = progress
        elif progress is not None and not isinstance(progress, bool):
            raise ValueError(f"progress must be None, True (a progress bar) or a callable of the fraction "
                             f"done; got {progress!r}")

    def __call__(self, fraction: float) -> None:
        fraction = min(1.0, max(fraction, self.last))
        if fraction == self.last:
            return
        self.last = fraction
        if self.fn is not None:
            self.fn(fraction)
        elif self.show:
            if self.bar is None:  # shown at the first report
                from tqdm.auto import tqdm

                self.bar = tqdm(total=self.total, unit="run-step", unit_scale=True, desc="delaylab.sweep",
                                leave=False)
            self.bar.update(round(fraction * self.total) - self.bar.n)

    def close(self):
        if self.bar is not None:
            self.bar.close()
