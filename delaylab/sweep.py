"""Sweeps: :func:`~delaylab.simulate` in chunks of runs, on an executor, with an on-disk cache.

``sweep(...)`` takes the arguments of ``simulate`` and returns the same :class:`Result`, with
bit-identical arrays, whatever the executor, the chunk size or the number of workers: a run's
outcome depends only on the seed, its index and its parameters (:mod:`delaylab.streams`), so
the runs can be split into chunks (sets of run indices, each with all grid cells), computed
anywhere, and put back in order.

Executors
---------
* ``None`` or ``"inprocess"``: chunks one after the other in this process (the default).
* ``"processes"`` or an int n: n local worker processes (loky's process pool: fresh
  interpreters, and workers that exit within seconds when this process dies, even by SIGKILL,
  so a killed notebook leaves no orphans computing on a shared machine); ``"processes"`` uses
  one per core. The setting and policies are pickled: they must be defined in importable modules (not
  lambdas, not classes of a notebook). If a worker process dies, the pool is restarted and the
  chunks it had not finished are recomputed (twice at most).
* a ``dask.distributed.Client``, or a scheduler address ``"tcp://host:port"``: chunks are Dask
  tasks on whatever cluster the client points at (a ``LocalCluster``, a course cluster, a
  lab's servers). Dask reruns the task of a worker that died on another worker. The workers
  must run the same delaylab (checked before any work). Objects are sent with cloudpickle, so
  lambdas work.

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
import json
import math
import os
import pickle
import time
import uuid
import warnings

import numpy as np

from . import engine
from .cache import Uncacheable, code_version, fingerprint, open_cache
from .engine import check_arguments, simulate
from .policies.base import Problem
from .result import Result
from .streams import Batch
from .summary import Moments, check_memory, result_bytes

#: chunks of fewer columns (runs × grid cells) pay the per-step Python overhead of the engine
MIN_CHUNK_COLUMNS = 256
#: chunks per worker when chunk_runs is not given (so that fast workers take more)
CHUNKS_PER_WORKER = 4
#: times a pool of local processes is restarted after one of its workers died
PROCESS_RESTARTS = 2
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
    T, run_ids, seed, named, G, times = check_arguments(setting, policies, horizon, runs, seed, checkpoints, grid,
                                                        trace=trace, keep=keep)
    shape = grid.shape if grid is not None else ((G,) if G > 1 else ())
    final = result_bytes(len(named), setting.n_arms, G, len(run_ids), len(times), keep)
    # keep="all": the chunks, then the assembled arrays (twice the result at the end)
    check_memory("sweep", final * (2 if keep == "all" else 1), keep,
                 result_bytes(len(named), setting.n_arms, G, 1, len(times), "summary"), len(times))
    traced = _probe(setting, named, T, run_ids, seed, G, times, trace)
    start_executor = _executor(executor)  # checked now, connected below
    if chunk_runs is not None:
        _chunk_size(chunk_runs, len(run_ids), G, 1)
    _Progress(progress, 1)  # checked (a bar is only shown below)
    store = open_cache(cache)
    notes = {"cache": None if store is None else str(store.folder)}
    expected = _expected_arrays(named, setting.n_arms, len(times), shape, traced, keep)

    problem = None
    if store is not None:
        try:
            problem = fingerprint(["delaylab sweep", code_version(), setting, list(named.items()), T,
                                   times, bool(trace), seed, list(shape)] + (["summary"] if keep == "summary" else []))
        except Uncacheable as exc:
            store = None
            notes["cache"] = None
            notes["cache_note"] = f"not cached: {exc}"
            warnings.warn(f"delaylab.sweep runs without its cache: {exc}", stacklevel=2)

    runner = start_executor()
    try:
        n_chunk = _chunk_size(chunk_runs, len(run_ids), G, runner.workers)
        bar = _Progress(progress, len(run_ids) * G * T)
        try:
            result = _run(setting, named, T, run_ids, seed, times, trace, grid, shape, expected,
                          store, problem, runner, n_chunk, bar, notes, keep)
        finally:
            bar.close()
    finally:
        runner.close()
    result.elapsed = time.perf_counter() - started
    return result


def _run(setting, named, T, run_ids, seed, times, trace, grid, shape, expected, store, problem,
         runner, n_chunk, bar, notes, keep="all") -> Result:
    R = len(run_ids)
    axis = len(shape)  # the run axis of every array
    sources, corrupt = [], 0
    if store is not None:
        def check(arrays, n_runs):
            return _check_arrays(arrays, expected, shape, n_runs)
        sources, corrupt = store.entries(problem, run_ids, check)
    have = set()
    if keep == "summary":  # an entry's moments are usable whole: its runs all wanted, none counted twice
        wanted, usable = set(int(r) for r in run_ids), []
        for ids, arrays in sources:
            got = set(int(r) for r in ids)
            if got <= wanted and not (got & have):
                usable.append((ids, arrays))
                have |= got
        sources = usable
        merged = {key: None for key in expected}
    for ids, _ in sources:
        have.update(int(r) for r in ids)
    missing = np.array([r for r in run_ids if int(r) not in have], dtype=np.int64)
    jobs = [missing[i : i + n_chunk] for i in range(0, len(missing), n_chunk)]
    notes.update(executor=runner.description, workers=runner.workers, chunk_runs=n_chunk,
                 computed_chunks=0, computed_runs=len(missing), cached_runs=R - len(missing),
                 corrupt_entries=corrupt)

    done_runs, partial = [R - len(missing)], {}
    bar(done_runs[0] / R)

    def on_progress(i, frac):  # fraction of chunk i done (in-process executor only)
        partial[i] = frac * len(jobs[i])
        bar((done_runs[0] + sum(partial.values())) / R)

    def fold(arrays):  # keep="summary": merge a chunk's moments at once, keep nothing else
        for name in named:
            for kind in ("regret", "pulls"):
                prefix = _key("summary", name, kind)
                m = Moments.from_arrays(arrays, prefix)
                merged[prefix] = m if merged.get(prefix) is None else merged[prefix].merge(m)

    def on_done(i, arrays):
        nonlocal store
        if keep == "summary":
            fold(arrays)
        else:
            sources.append((jobs[i], arrays))
        notes["computed_chunks"] += 1
        if store is not None:
            try:
                store.store(problem, jobs[i], arrays)
            except (OSError, Uncacheable) as exc:  # keep the results; stop caching
                store = None
                notes["cache_note"] = f"stopped caching: {exc}"
                warnings.warn(f"delaylab.sweep could not write its cache ({exc}); continuing without it",
                              stacklevel=3)
        partial.pop(i, None)
        done_runs[0] += len(jobs[i])
        bar((done_runs[0] + sum(partial.values())) / R)

    if keep == "summary":
        for _, arrays in sources:
            fold(arrays)
        sources.clear()
    if jobs:
        runner.run((setting, named, T, seed, times, trace, grid, keep), jobs, on_done, on_progress)
    bar(1.0)
    if keep == "summary":
        summary = {name: {kind: merged[_key("summary", name, kind)] for kind in ("regret", "pulls")}
                   for name in named}
        return Result.summarised(summary, times=times, policies={k: v.clone() for k, v in named.items()},
                                 setting=setting, horizon=T, run_ids=run_ids, seed=seed, grid_shape=shape,
                                 notes=notes)

    # put the runs back in the requested order
    position = {int(r): j for j, r in enumerate(run_ids)}
    out, filled = {}, np.zeros(R, bool)
    for ids, arrays in sources:
        rows = [k for k, r in enumerate(ids) if int(r) in position and not filled[position[int(r)]]]
        if not rows:
            continue
        dest = [position[int(ids[k])] for k in rows]
        for key, a in arrays.items():
            if key not in out:
                out[key] = np.empty(a.shape[:axis] + (R,) + a.shape[axis + 1:], dtype=a.dtype)
            np.moveaxis(out[key], axis, 0)[dest] = np.moveaxis(a, axis, 0)[rows]
        filled[dest] = True
    assert filled.all(), "every run is computed or cached"

    regret, pulls, traces = {}, {}, {}
    for key, a in out.items():
        kind, name, *field = json.loads(key)
        if kind == "regret":
            regret[name] = a
        elif kind == "pulls":
            pulls[name] = a
        else:
            traces.setdefault(name, {})[field[0]] = a
    order = list(named)
    return Result(times=times, regret={n: regret[n] for n in order}, pulls={n: pulls[n] for n in order},
                  traces={n: traces.get(n, {}) for n in order} if trace else {},
                  policies={k: v.clone() for k, v in named.items()}, setting=setting, horizon=T,
                  run_ids=run_ids, seed=seed, grid_shape=shape, notes=notes)


# ====================================================================== validation
def _probe(setting, named, T, run_ids, seed, G, times, trace) -> dict:
    """Start every policy and the setting on one run (all grid cells), as the engine would:
    invalid values raise their ValueError before any chunk runs. Returns, with trace=True,
    {policy name: {field: shape per column}} of the recorded states."""
    batch = Batch(run_ids[:1], G)
    problem = Problem(n_arms=setting.n_arms, horizon=T, feedback=setting.feedback,
                      window=setting.window, dim=setting.dim, batch=batch, seed=seed, span=int(setting.span(T)))
    started = {name: p.clone().start(problem) for name, p in named.items()}
    setting.episode(batch, T, seed).draw(0, 1)
    traced = {}
    if trace:
        for name, pol in started.items():
            snap = {f: np.asarray(v) for f, v in pol.snapshot().items()}
            traced[name] = {f: v.shape[1:] for f, v in snap.items()}
            need = sum(v.nbytes for v in snap.values()) / batch.size * G * len(run_ids) * len(times)
            if need > engine.TRACE_BUDGET:
                raise ValueError(
                    f"trace=True would record the state of {name!r} at {len(times)} times: "
                    f"{need / 2**30:.1f} GiB; pass fewer checkpoints (e.g. checkpoints=200)")
    return traced


def _key(*parts) -> str:
    return json.dumps(list(parts), ensure_ascii=False)


def _expected_arrays(named, K, n_times, shape, traced, keep="all") -> dict:
    """key → (dtype or None, shape after the run axis) of a chunk's arrays; for keep="summary",
    key → (dtype, ("exact", shape)) of the moments (no run axis)."""
    out = {}
    if keep == "summary":
        for name in named:
            for kind, rest in (("regret", n_times), ("pulls", K)):
                prefix = _key("summary", name, kind)
                out[prefix + "n"] = (np.dtype(np.int64), ("exact", (1,)))
                out[prefix + "mean"] = (np.dtype(float), ("exact", tuple(shape) + (rest,)))
                out[prefix + "m2"] = (np.dtype(float), ("exact", tuple(shape) + (rest,)))
        return out
    for name in named:
        out[_key("regret", name)] = (np.dtype(float), (n_times,))
        out[_key("pulls", name)] = (np.dtype(np.int64), (K,))
        for field, rest in traced.get(name, {}).items():
            out[_key("trace", name, field)] = (None, (n_times,) + tuple(rest))
    return out


def _check_arrays(arrays, expected, shape, n_runs):
    if set(arrays) != set(expected):
        return "unexpected arrays"
    for key, (dtype, rest) in expected.items():
        a = arrays[key]
        if rest[:1] == ("exact",):
            if a.shape != rest[1] or a.dtype != dtype or (key.endswith('"]n') and int(a[0]) != n_runs):
                return f"{key} has shape {a.shape} and dtype {a.dtype}"
            continue
        if a.shape != tuple(shape) + (n_runs,) + rest or (dtype is not None and a.dtype != dtype):
            return f"{key} has shape {a.shape} and dtype {a.dtype}"
    return None


def _chunk_size(chunk_runs, R, G, workers) -> int:
    if chunk_runs is None:
        if workers == 1:  # in this process: one batch (fewest steps); chunk_runs= for finer resumption
            return R
        return min(R, max(math.ceil(R / (CHUNKS_PER_WORKER * workers)), math.ceil(MIN_CHUNK_COLUMNS / G)))
    from ._validate import check_int

    return check_int("chunk_runs", chunk_runs, low=1)


# ====================================================================== chunks
def _arrays(res: Result) -> dict:
    """A chunk's Result → flat dict of arrays (what the cache stores)."""
    out = {}
    if res.keep == "summary":
        for name in res.names:
            for kind in ("regret", "pulls"):
                out.update(res.summary[name][kind].arrays(_key("summary", name, kind)))
        return out
    for name in res.names:
        out[_key("regret", name)] = res.regret[name]
        out[_key("pulls", name)] = res.pulls[name]
        for field, a in res.traces.get(name, {}).items():
            out[_key("trace", name, field)] = a
    return out


def _compute(payload, ids, progress=None) -> dict:
    setting, named, T, seed, times, trace, grid, keep = payload
    return _arrays(simulate(setting, named, T, runs=ids, seed=seed, checkpoints=times, trace=trace,
                            grid=grid, progress=progress, keep=keep))


def _load(payload: bytes):
    try:
        return pickle.loads(payload)
    except Exception as exc:  # noqa: BLE001 - reported with advice
        raise RuntimeError(
            f"a worker could not load the sweep's setting and policies ({type(exc).__name__}: {exc}). "
            "Classes and functions defined in a notebook or an interactive session cannot be sent to "
            "worker processes; define them in an importable module, or run with executor=None") from None


def _worker_version() -> str:
    return code_version()


def _worker_check(payload: bytes) -> str:
    _load(payload)
    return code_version()


def _worker_compute(payload: bytes, ids, version: str) -> dict:
    if code_version() != version:
        raise RuntimeError(f"this worker runs delaylab {code_version()}, the client {version}: install the "
                           "same delaylab on every worker (results would not be comparable)")
    return _compute(_load(payload), ids)


# ====================================================================== executors
def _executor(executor):
    """Check ``executor=`` and return a function that starts it (connects to a cluster)."""
    if executor is None or (isinstance(executor, str) and executor == "inprocess"):
        return _InProcess
    if isinstance(executor, str) and executor == "processes":
        return lambda: _Processes(os.cpu_count() or 1)
    if isinstance(executor, (int, np.integer)) and not isinstance(executor, bool):
        from ._validate import check_int

        n = check_int("executor (number of worker processes)", executor, low=1, high=1024)
        return lambda: _Processes(n)
    if isinstance(executor, str) and ":" in executor:
        return lambda: _Dask(_connect(executor), own=True)
    try:
        from distributed import Client
    except ImportError:
        Client = ()
    if Client and isinstance(executor, Client):
        return lambda: _Dask(executor, own=False)
    raise ValueError(f"executor must be None or 'inprocess', 'processes', a number of worker processes, "
                     f"a dask.distributed.Client or a scheduler address such as 'tcp://host:8786'; "
                     f"got {executor!r}")


def _connect(address: str):
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("executor=<scheduler address> needs dask.distributed: "
                         "pip install 'delaylab[cluster]'") from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except Exception as exc:  # noqa: BLE001 - any failure to connect is reported the same way
        raise ConnectionError(
            f"could not connect to the Dask scheduler at {address!r} within {CONNECT_TIMEOUT:g} s "
            f"({type(exc).__name__}: {exc}). Check the address and that `dask scheduler` runs there, "
            f"or run with executor=None (in this process)") from None
    return client


def _serialised(payload, dumps, where: str) -> bytes:
    """Pickle the sweep's objects, naming the one that cannot be sent to the workers."""
    try:
        return dumps(payload)
    except Exception as exc:  # noqa: BLE001
        setting, named = payload[0], payload[1]
        for label, obj in [("the setting", setting)] + [(f"policy {n!r}", p) for n, p in named.items()]:
            try:
                dumps(obj)
            except Exception as e:  # noqa: BLE001
                raise ValueError(f"{label} {obj!r} cannot be sent to {where}: {type(e).__name__}: {e}. "
                                 "Functions must be defined at the top level of an importable module "
                                 "(not lambdas); or run with executor=None (in this process)") from None
        raise ValueError(f"the sweep's arguments cannot be sent to {where}: {exc}; "
                         "run with executor=None (in this process)") from None


class _InProcess:
    description, workers = "inprocess", 1

    def run(self, payload, jobs, on_done, on_progress):
        for i, ids in enumerate(jobs):
            on_done(i, _compute(payload, ids, progress=lambda f, i=i: on_progress(i, f)))

    def close(self):
        pass


#: seconds between two checks, in a worker process, that the sweeping process is still alive
PARENT_POLL = 0.5


def _watch_parent(parent: int) -> None:
    """In each worker: a thread that ends the worker when its parent process is gone (killed, even
    by SIGKILL, which no handler sees), so no orphan keeps computing a chunk nobody will read."""
    import threading

    def watch():
        while True:
            time.sleep(PARENT_POLL)
            if os.getppid() != parent:  # re-parented: the sweeping process died
                os._exit(1)

    threading.Thread(target=watch, name="delaylab-parent-watch", daemon=True).start()


class _Processes:
    """Local worker processes (loky's executor), each watching that its parent is alive: when the
    sweeping process dies, however it dies, its workers exit within a second instead of running on
    as orphans (loky alone notices only between tasks)."""

    def __init__(self, n: int):
        self.workers, self.description = n, f"{n} processes"
        self.pool = None

    def run(self, payload, jobs, on_done, on_progress):
        from concurrent.futures import wait
        from concurrent.futures.process import BrokenProcessPool

        from loky import ProcessPoolExecutor

        data = _serialised(payload, lambda o: pickle.dumps(o, protocol=pickle.HIGHEST_PROTOCOL),
                           "worker processes")
        pending = dict(enumerate(jobs))
        for attempt in range(1 + PROCESS_RESTARTS):  # a pool whose worker died is restarted
            self.pool = ProcessPoolExecutor(max_workers=min(self.workers, len(pending)),
                                            initializer=_watch_parent, initargs=(os.getpid(),))
            try:
                version = self.pool.submit(_worker_check, data).result()  # loadable there, before any work
                futures = {self.pool.submit(_worker_compute, data, ids, version): i for i, ids in pending.items()}
                while futures:
                    finished, _ = wait(futures, return_when="FIRST_COMPLETED")
                    ok = [f for f in finished if not isinstance(f.exception(), BrokenProcessPool)]
                    for fut in ok:  # keep the chunks finished before a worker died
                        i = futures.pop(fut)
                        on_done(i, fut.result())
                        del pending[i]
                    if len(ok) < len(finished):
                        raise BrokenProcessPool("a worker process died")
                return
            except BrokenProcessPool as exc:
                self.close()
                error = exc
        raise RuntimeError(f"worker processes died {1 + PROCESS_RESTARTS} times ({error}). A script that starts "
                           "worker processes needs its code under `if __name__ == '__main__':`; finished "
                           "chunks are in the cache if one was given: rerun to resume") from None

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=True, kill_workers=True)  # none left running
            self.pool = None


class _Dask:
    def __init__(self, client, own: bool):
        self.client, self.own = client, own
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
            versions = client.run(_worker_version)
        except Exception as exc:  # noqa: BLE001
            self.close()
            raise ConnectionError(f"the Dask cluster of {client!r} has no usable worker "
                                  f"({type(exc).__name__}: {exc}); its workers need delaylab installed") from None
        mine = code_version()
        other = {w: v for w, v in versions.items() if v != mine}
        if other:
            self.close()
            raise RuntimeError(f"Dask workers {sorted(other)} run delaylab {sorted(set(other.values()))}, "
                               f"this process {mine}: install the same delaylab on every worker")
        self.version = mine
        self.workers = max(1, sum(client.nthreads().values()))
        self.description = f"dask {client.scheduler.address}"

    def run(self, payload, jobs, on_done, on_progress):
        import cloudpickle
        from distributed import as_completed

        data = _serialised(payload, cloudpickle.dumps, "the Dask workers")
        token = uuid.uuid4().hex[:12]
        futures = {self.client.submit(_worker_compute, data, ids, self.version, pure=False,
                                      key=f"delaylab-chunk-{token}-{i}"): i for i, ids in enumerate(jobs)}
        try:
            for fut in as_completed(list(futures)):
                on_done(futures[fut], fut.result())
        finally:
            self.client.cancel([f for f in futures if not f.done()])

    def close(self):
        if self.own:
            self.client.close()


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
