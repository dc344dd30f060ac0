"""Where the chunks of a :func:`~delaylab.sweep` run: in this process, in local worker
processes, or on a Dask cluster.

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

Every executor runs a *task* on lists of run indices: a picklable callable ``task(ids,
progress=None)`` returning a chunk's arrays, whose ``parts()`` lists ``(label, object)`` of what it
carries (so that an object that cannot be sent to the workers is named). ``run(task, jobs,
on_done, on_progress)`` calls ``on_done(i, arrays)`` as chunk ``jobs[i]`` finishes, in any order;
``on_progress(i, fraction)`` follows the chunks under way in this process.
"""

from __future__ import annotations

import os
import pickle
import time
import uuid

import numpy as np

from .cache import code_version

#: times a pool of local processes is restarted after one of its workers died
PROCESS_RESTARTS = 2


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
    return _load(payload)(ids)


# ====================================================================== executors
def starter(executor, connect_timeout: float):
    """Check ``executor=`` and return a function that starts it (connects to a cluster, waiting at
    most ``connect_timeout`` seconds for the scheduler and for a worker)."""
    if executor is None or (isinstance(executor, str) and executor == "inprocess"):
        return _InProcess
    if isinstance(executor, str) and executor == "processes":
        return lambda: _Processes(os.cpu_count() or 1)
    if isinstance(executor, (int, np.integer)) and not isinstance(executor, bool):
        from ._validate import check_int

        n = check_int("executor (number of worker processes)", executor, low=1, high=1024)
        return lambda: _Processes(n)
    if isinstance(executor, str) and ":" in executor:
        return lambda: _Dask(_connect(executor, connect_timeout), connect_timeout, own=True)
    try:
        from distributed import Client
    except ImportError:
        Client = ()
    if Client and isinstance(executor, Client):
        return lambda: _Dask(executor, connect_timeout, own=False)
    raise ValueError(f"executor must be None or 'inprocess', 'processes', a number of worker processes, "
                     f"a dask.distributed.Client or a scheduler address such as 'tcp://host:8786'; "
                     f"got {executor!r}")


def _connect(address: str, timeout: float):
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("executor=<scheduler address> needs dask.distributed: "
                         "pip install 'delaylab[cluster]'") from None
    try:
        client = Client(address, timeout=timeout, set_as_default=False)
    except Exception as exc:  # noqa: BLE001 - any failure to connect is reported the same way
        raise ConnectionError(
            f"could not connect to the Dask scheduler at {address!r} within {timeout:g} s "
            f"({type(exc).__name__}: {exc}). Check the address and that `dask scheduler` runs there, "
            f"or run with executor=None (in this process)") from None
    return client


def _serialised(task, dumps, where: str) -> bytes:
    """Pickle the sweep's objects, naming the one that cannot be sent to the workers."""
    try:
        return dumps(task)
    except Exception as exc:  # noqa: BLE001
        for label, obj in task.parts():
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

    def run(self, task, jobs, on_done, on_progress):
        for i, ids in enumerate(jobs):
            on_done(i, task(ids, progress=lambda f, i=i: on_progress(i, f)))

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

    def run(self, task, jobs, on_done, on_progress):
        from concurrent.futures import wait
        from concurrent.futures.process import BrokenProcessPool

        from loky import ProcessPoolExecutor

        data = _serialised(task, lambda o: pickle.dumps(o, protocol=pickle.HIGHEST_PROTOCOL),
                           "worker processes")
        pending = dict(enumerate(jobs))
        for _attempt in range(1 + PROCESS_RESTARTS):  # a pool whose worker died is restarted
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
    def __init__(self, client, connect_timeout: float, own: bool):
        self.client, self.own = client, own
        try:
            client.wait_for_workers(1, timeout=connect_timeout)
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

    def run(self, task, jobs, on_done, on_progress):
        import cloudpickle
        from distributed import as_completed

        data = _serialised(task, cloudpickle.dumps, "the Dask workers")
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
