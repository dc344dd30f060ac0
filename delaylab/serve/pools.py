"""The dashboards' kernels: how they start, when the culler stops them, and Voila's pools of
preheated kernels, refilled without taking the cores from the visitors' pages.

* :class:`DashboardKernelSpecManager`: Python notebooks run in ``python -m delaylab.serve.kernel``
  (a memory cap, the sweep cache, compiled kernels warmed up, then ipykernel) with one
  BLAS/OpenMP thread per kernel, so that visitors share the cores instead of fighting over them.
* :class:`DashboardKernelManager`: jupyter_server's kernel manager, whose culler also stops
  kernels no page is connected to (a tab that vanished without a word), spares a page that is
  still loading and the presenter's open page, and which decides when a refill may start.
* :class:`PreheatedPools`: Voila's pools, whose refills wait for their turn.

What these read of jupyter_server's and Voila's private state goes through
:mod:`delaylab.serve.voila_patches`.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from datetime import datetime, timezone

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_core.utils import ensure_async
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Float, Int, Unicode, default

from . import guards, voila_patches


def now():
    """The server's clock for its records of pages and kernels (aware, UTC, as jupyter_server's
    ``last_activity``); the tests move it by replacing this function."""
    return datetime.now(timezone.utc)


def notebooks_ready(manager) -> tuple:
    """(notebooks whose pool holds a preheated kernel that has executed the notebook, notebooks
    with a pool) in ``manager``'s pools of preheated kernels."""
    all_pools = voila_patches.pools(manager)
    ready = sum(any(executed for _, executed in voila_patches.started_in(pool)) for pool in all_pools.values())
    return ready, len(all_pools)


class DashboardKernelSpecManager(KernelSpecManager):
    """Kernel specs as installed, except that Python (ipykernel) kernels start through
    :mod:`delaylab.serve.kernel` with the settings below in their environment."""

    memory_mb = Int(0, config=True, help="Address-space cap of each kernel in MiB (RLIMIT_AS); 0: none.")
    threads = Int(1, config=True, help="BLAS/OpenMP/numba threads per kernel; 0: the libraries' default.")
    cache_folder = Unicode(config=True,
                           help="On-disk sweep cache for the kernels (DELAYLAB_DEFAULT_CACHE); empty: none. "
                                "Default: delaylab's cache folder ($DELAYLAB_CACHE or ~/.cache/delaylab).")

    @default("cache_folder")
    def _default_cache_folder(self):
        from delaylab.cache import default_folder, open_cache

        try:
            return str(open_cache(default_folder()).folder)
        except (ValueError, OSError) as exc:  # not writable: the kernels compute everything
            self.log.warning("delaylab: no sweep cache for the dashboards' kernels (%s)", exc)
            return ""

    def get_kernel_spec(self, kernel_name, *args, **kwargs):
        spec = super().get_kernel_spec(kernel_name, *args, **kwargs)
        argv = list(spec.argv)
        if "ipykernel_launcher" in argv and argv[argv.index("ipykernel_launcher") - 1] == "-m":
            i = argv.index("ipykernel_launcher")
            spec.argv = [*argv[:i], "delaylab.serve.kernel", *argv[i + 1:]]
            env = dict(spec.env or {})
            env.update(self.kernel_env())
            spec.env = env
        return spec

    plotly_module_url = Unicode("", config=True,
                                help="URL (path) of plotly's widget module served by the dashboards' server; "
                                     "empty: the kernels send it to each page themselves.")
    solutions = Unicode("", config=True,
                        help="DELAYLAB_SOLUTIONS of the kernels (delaylab.exercises.solutions), whatever the "
                             "server's environment says; empty: the environment's (the dashboards' server sets "
                             "it from DashboardServer.solutions).")

    def kernel_env(self) -> dict:
        env = {}
        if self.plotly_module_url:
            env["DELAYLAB_PLOTLY_MODULE_URL"] = self.plotly_module_url
        if self.memory_mb:
            env["DELAYLAB_KERNEL_MEMORY_MB"] = str(self.memory_mb)
        if self.threads:
            for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
                env[name] = str(self.threads)
        if self.cache_folder:
            env["DELAYLAB_DEFAULT_CACHE"] = self.cache_folder
        if self.solutions:
            env["DELAYLAB_SOLUTIONS"] = self.solutions
        return env



class DashboardKernelManager(AsyncMappingKernelManager):
    """Jupyter Server's kernel manager (Voila adds its pool of preheated kernels on top), whose
    culler also stops, after ``cull_unconnected_timeout`` s of idleness, a kernel that no page is
    connected to, whatever ``cull_idle_timeout`` and ``cull_connected`` say about kernels with a
    page (so a public server can cull idle open tabs after 15 minutes, and closed ones after 45 s).
    """

    cull_unconnected_timeout = Int(45, config=True,
                                   help="Seconds of idleness after which a kernel with no page connected is stopped.")
    page_load_grace = Int(180, config=True,
                          help="Seconds a kernel handed to a page is never culled while that page has not connected "
                               "yet (a page loading on a slow or busy machine).")

    refill_quiet_seconds = Float(1.0, config=True,
                                 help="A page counts as at work (see refill_pages_at_work) while its kernel is busy "
                                      "and for this many seconds after its last sign of life: its kernel given to "
                                      "it, its websocket connected, a message of its kernel.")
    refill_pages_at_work = Int(2, config=True,
                               help="A refill starts while at most this many pages are at work (being admitted, "
                                    "loading, drawing, redrawing after a slider); more (a burst of visitors) and it "
                                    "waits until they have settled. A page at work mostly waits for its browser, "
                                    "its kernel busy for moments: two of them and a refill share two cores; "
                                    "0: only when no page is at work.")
    refill_floor = Int(1, config=True,
                       help="A pool holding fewer kernels than this (ready, or started and executing their notebook) "
                            "refills at once, whatever the pages are doing, beside at most refill_concurrency other "
                            "refills: its next visitor would otherwise wait for that same kernel to start. "
                            "0: no floor.")
    refill_concurrency = Int(1, config=True,
                             help="Preheated kernels refilling the pools at once while visitors have kernels "
                                  "(while nobody is visiting: one per core, at least this many).")
    refill_max_wait = Float(120.0, config=True,
                            help="Seconds after which a refill starts whatever the pages are doing.")

    def __init__(self, **kwargs):
        # before Voila's pool (a subclass, see PreheatedPools) starts filling in super().__init__
        self.awaiting_page: dict = {}  # kernel id -> when it was handed to a page that has not connected yet
        self.page_seen: dict = {}  # kernel id -> when a page last connected to it
        self.refilling_notebooks: dict = {}  # notebook -> its preheated kernels started and executing it
        self.claimed: set = set()  # pool tasks a visitor is waiting for: they skip the queue
        self.past_turn = weakref.WeakSet()  # pool tasks whose refill has started (their kernel starting or started)
        self.presenter_kernels: set = set()  # kernels of the presenter's pages (DashboardServer.presenter_key)
        # asyncio task -> the kernel started in it, or taken from the pool in it: a page's handler
        # knows its kernel before the page's HTML names it (after the cells), so that it can tell
        # when that kernel has died
        self.kernel_of_task = weakref.WeakKeyDictionary()
        guards.bound_request_info()
        super().__init__(**kwargs)

    def pre_start_kernel(self, kernel_name, kwargs):
        """jupyter_client's, plus the new kernel's id recorded for the task starting it, before
        the kernel is listed (a page's kernel then counts once: :meth:`delaylab.serve.app.DashboardServer.load`)."""
        started = super().pre_start_kernel(kernel_name, kwargs)
        task = asyncio.current_task()
        if task is not None:
            self.kernel_of_task[task] = started[2]
        return started

    def remove_kernel(self, kernel_id):
        """jupyter_client's, plus what a kernel leaves behind when it died and was given up
        (its connection and socket files, Voila's record of its request): :func:`guards.kernel_removed`."""
        kernel = super().remove_kernel(kernel_id)
        guards.kernel_removed(self, kernel_id, kernel)
        return kernel

    async def start_kernel(self, *args, **kwargs):
        kernel_id = await super().start_kernel(*args, **kwargs)
        task = asyncio.current_task()
        if task is not None:  # a page's request (Voila starts its kernel in the handler's task)
            self.kernel_of_task[task] = kernel_id
        return kernel_id

    def notify_connect(self, kernel_id):
        self.awaiting_page.pop(kernel_id, None)
        self.page_activity(kernel_id)
        super().notify_connect(kernel_id)

    @property
    def refilling(self) -> int:
        """Preheated kernels started and still executing their notebook."""
        return sum(self.refilling_notebooks.values())

    def page_activity(self, kernel_id=None) -> None:
        """A page connected to its kernel ``kernel_id`` (a sign of life, see :meth:`pages_at_work`);
        the record of kernels that have stopped is dropped here."""
        if kernel_id is not None:
            self.page_seen[kernel_id] = now()
        for gone in [k for k in self.page_seen if k not in voila_patches.kernels(self)]:
            del self.page_seen[gone]

    def refill_limit(self) -> int:
        """Refills at once: ``refill_concurrency`` while a page is open or loading (a page
        connected to its kernel, given one, or being admitted), else one per core (at the
        server's start)."""
        if getattr(self.parent, "admitting", 0) or self.awaiting_page or any(voila_patches.connections(self).values()):
            return max(1, self.refill_concurrency)
        return max(1, self.refill_concurrency, os.cpu_count() or 1)

    def pool_kernels(self, notebook) -> int:
        """Kernels in ``notebook``'s pool that are ready or on their way (started, executing the
        notebook): not the refills still waiting for their turn."""
        return sum(1 for task in voila_patches.pools(self).get(notebook, ())
                   if (task.done() and not task.cancelled() and task.exception() is None)
                   or (not task.done() and task in self.past_turn))

    def pages_at_work(self) -> int:
        """Pages the server is serving right now: pages being admitted (their kernel not known
        yet), and pages given a kernel (connected to it, or not yet) whose kernel is busy or has
        shown a sign of life within ``refill_quiet_seconds`` (given to the page, the page
        connecting, a message from the kernel: a page drawing its figures keeps talking to its
        kernel, and so does a slider's redraw). A page that stopped talking (an idle open tab, a
        tab closed before it connected) is not at work."""
        n = getattr(self.parent, "admitting", 0)
        at, quiet = now(), self.refill_quiet_seconds
        pages = set(self.awaiting_page) | {k for k, c in voila_patches.connections(self).items() if c}
        for kernel_id in pages:
            kernel = voila_patches.kernels(self).get(kernel_id)
            if kernel is None:
                continue
            if getattr(kernel, "execution_state", None) == "busy":
                n += 1
                continue
            signs = [t for t in (self.awaiting_page.get(kernel_id), self.page_seen.get(kernel_id),
                                 getattr(kernel, "last_activity", None)) if t is not None]
            if signs and (at - max(signs)).total_seconds() < quiet:
                n += 1
        return n

    def pages_quiet(self) -> bool:
        """No page at work (:meth:`pages_at_work`)."""
        return self.pages_at_work() == 0

    def refill_may_start(self, notebook=None) -> bool:
        """Whether a refill of ``notebook``'s pool may start now. Never while another refill of
        the same notebook executes (the second one then reads the figures the first one put in
        the sweep cache: at the server's first start, with an empty cache, each notebook's
        figures are computed once, not once per kernel). A pool below ``refill_floor`` refills at
        once, beside at most ``refill_concurrency`` other refills (or :meth:`refill_limit`, when
        that is more: nobody visiting): its next visitor would otherwise wait for that same
        kernel, so starting it now costs no more CPU, only sooner. Any other
        refill waits until fewer than :meth:`refill_limit` refills execute and the load allows
        it: at most ``refill_pages_at_work`` pages at work. Under steady traffic, a page or two
        at work at a time, the pools thus refill beside the pages; a burst of visitors is served
        first, and the refills of the pools it left with a kernel come after it."""
        if self.refilling_notebooks.get(notebook):
            return False
        if self.pool_kernels(notebook) < self.refill_floor:
            return self.refilling < max(self.refill_limit(), self.refill_concurrency + 1)
        return self.refilling < self.refill_limit() and self.pages_at_work() <= self.refill_pages_at_work

    async def refill_turn(self, task=None, notebook=None) -> None:
        """Wait until a pool refill (of ``notebook``) may start: at once for a task a visitor
        waits for (``claimed``); else as soon as :meth:`refill_may_start` says so; at the latest
        after ``refill_max_wait`` s."""
        loop = asyncio.get_event_loop()
        waited = loop.time()
        try:
            while task not in self.claimed and loop.time() - waited < self.refill_max_wait:
                if self.refill_may_start(notebook):
                    return
                await asyncio.sleep(0.2)
        finally:
            if task is not None:
                self.past_turn.add(task)

    async def cull_kernel_if_idle(self, kernel_id):
        if kernel_id not in voila_patches.kernels(self):
            return  # stopped since the culler listed the kernels (a page closed it, or it died)
        if voila_patches.pending(self, kernel_id):
            # starting, or stopping: jupyter_client keeps a kernel there until it has stopped, and
            # a page's closing stops its kernel while the culler may find it idle and unconnected
            return
        if kernel_id in self.presenter_kernels and voila_patches.connections(self).get(kernel_id):
            return  # the presenter's page is open: idle is normal during a lecture
        handed = self.awaiting_page.get(kernel_id)
        if handed is not None:
            if (now() - handed).total_seconds() < self.page_load_grace:
                return  # its page is still loading
            self.awaiting_page.pop(kernel_id, None)
        kernel = voila_patches.kernels(self).get(kernel_id)
        if (kernel is not None and hasattr(kernel, "last_activity") and not voila_patches.connections(self).get(kernel_id)
                and getattr(kernel, "execution_state", None) != "busy"
                and (now() - kernel.last_activity).total_seconds() > self.cull_unconnected_timeout):
            self.log.warning("Culling kernel %s: no page connected for %d s", kernel_id,
                             (now() - kernel.last_activity).total_seconds())
            await ensure_async(self.shutdown_kernel(kernel_id))
            return
        return await super().cull_kernel_if_idle(kernel_id)


class PreheatedPools(voila_patches.PreheatHook):
    """Voila's pools of preheated kernels (one per notebook, ``default_pool_size`` kernels each,
    or per notebook in ``VoilaKernelManager.kernel_pools_config``), refilled without taking the
    cores from the visitors' pages.

    Voila refills a pool one second after it hands a kernel to a page: ten visitors at once start
    ten kernels that execute their notebooks at once, on the cores the ten pages need to draw and
    answer. Here a refill waits for its turn (:meth:`DashboardKernelManager.refill_turn`): one
    at a time while visitors have kernels (every core while nobody is visiting: at the server's
    start), and only while the load allows it, at most ``refill_pages_at_work`` pages at work
    (being admitted, loading, or with a kernel busy or talking within ``refill_quiet_seconds``:
    :meth:`~DashboardKernelManager.pages_at_work`). Steady traffic, a page or two at a time, thus
    keeps the pools full; a burst of visitors is served before its refills start. A pool below
    ``refill_floor`` kernels refills at once whatever the pages are doing, one refill beyond
    what ``refill_concurrency`` allows: its next visitor would otherwise wait for that kernel.
    A visitor who arrives when the pool holds only a waiting refill takes it, and it starts at
    once. The kernel counts as refilling until its notebook has executed.

    Mixed into the kernel manager class that Voila builds around :class:`DashboardKernelManager`
    (:func:`delaylab.serve.voila_patches.kernel_manager_mixin`, in
    :meth:`delaylab.serve.app.DashboardServer.init_settings`); a refill waits in :meth:`preheat`
    (:class:`delaylab.serve.voila_patches.PreheatHook`)."""

    async def preheat(self, notebook_path, initialize):
        """Voila's start of a preheated kernel for ``notebook_path`` (``initialize``), once it is
        this refill's turn, counted in ``refilling_notebooks`` until the notebook has executed."""
        task = asyncio.current_task()
        await self.refill_turn(task, notebook_path)
        self.refilling_notebooks[notebook_path] = self.refilling_notebooks.get(notebook_path, 0) + 1

        def executed(_=None):
            self.refilling_notebooks[notebook_path] -= 1

        try:
            content = await initialize()
        except BaseException:
            executed()
            raise
        finally:
            self.claimed.discard(task)

        voila_patches.notebook_execution(content).add_done_callback(executed)
        return content

    async def get_rendered_notebook(self, notebook_name, *args, **kwargs):
        pool = voila_patches.pools(self).get(notebook_name) or []
        if pool and not pool[0].done():  # a refill still waiting or starting: this visitor's, now
            self.claimed.add(pool[0])
        self.page_activity()
        rendered = await super().get_rendered_notebook(notebook_name, *args, **kwargs)
        task = asyncio.current_task()
        if task is not None:  # the page's handler: its kernel (see handlers.DashboardPageHandler.get)
            self.kernel_of_task[task] = voila_patches.rendered_kernel_id(rendered)
        return rendered
