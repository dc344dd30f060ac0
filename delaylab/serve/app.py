"""The dashboards' server: Voila 0.5, with what serving many visitors needs.

:class:`DashboardServer` is Voila's application (every Voila option and voila.json still
apply) with these additions:

* **Pages close their kernels.** A Voila page asks the server to shut its kernel down when it
  closes (a ``navigator.sendBeacon`` POST to ``/voila/api/shutdown/<id>`` carrying the
  ``_xsrf`` cookie's value). Voila 0.5.13 never sets that cookie, so every such request was
  refused (``403 '_xsrf' argument missing``) and every visit left its kernel running until the
  idle cull. The page handler here sets the cookie (tornado's ``xsrf_token``), so the request
  carries a valid token and the kernel stops when its page closes. As a backstop for pages
  that vanish without a word (a crashed tab, a lost network), the culler stops kernels that
  have no page connected and have been idle for 45 s
  (``DashboardKernelManager.cull_unconnected_timeout``; voila.json checks every 10 s); a
  kernel handed to a page is not culled while that page is still loading (up to 3 minutes).
  Each visitor counts once, from the page's admission on (:meth:`DashboardServer.load`).
* **A cap on visitors' kernels** (``--DashboardServer.max_kernels=N``): a visitor beyond it
  gets a short "busy, try again" page with HTTP 503 and ``Retry-After``, at once, instead of a
  kernel. Preheated kernels waiting in the pool are not counted.
* **A kernel of our own** (:class:`DashboardKernelSpecManager`): Python notebooks run in
  ``python -m delaylab.serve.kernel`` (a memory cap, the sweep cache, compiled kernels warmed
  up, then ipykernel), with one BLAS/OpenMP thread per kernel so that visitors share the cores
  instead of fighting over them.
* **Kernels on Unix sockets** (:func:`defaults`, POSIX, where the socket paths fit): no TCP
  ports for another process to take between jupyter_client choosing them and the kernel binding
  them, and none open to other local users.
* **A status endpoint**, ``GET /delaylab/status``: kernels running, in the pool, visitors'
  kernels, the cap (for a health check and for the tests).
* **The presenter's pass** (``--DashboardServer.presenter_key=KEY``): a lecturer opens
  ``/delaylab/presenter?key=KEY`` once; that browser (a signed cookie, 12 hours) then gets a
  kernel whatever the cap (a full room must not lock the projected dashboard out), its kernels
  do not count towards the cap, and they are not culled for idleness while their page is open
  (a lecture can go 15 minutes without a slider move). The key is never in the dashboards'
  addresses, so projecting the address bar does not give it away.
* **plotly's widget module as a static file** (:class:`PlotlyModuleHandler`), at
  ``<base_url>delaylab/static/plotly-widget.<hash>.js``, cached by browsers for good (the name
  changes with the content), its URL given to the kernels: see :mod:`delaylab.viz.widget`.
* **Compressed answers** (``--DashboardServer.compress``, on with ``--public``): gzip for pages,
  scripts and styles (still streamed chunk by chunk), permessage-deflate for the websocket.
* **Guards against one visitor** (:mod:`delaylab.serve.guards`): kernel websocket frames checked
  before jupyter_server reads them, message types a page may not send dropped, websockets per
  kernel capped, per-client limits on pages loading and requests a minute, unknown templates and
  themes refused before a kernel starts, and what a dead kernel leaves behind removed with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import hashlib
import hmac
import json
import os
import re
import signal
import sys
import tempfile
import weakref
from datetime import datetime, timezone
from pathlib import Path

import tornado.web
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_core.utils import ensure_async
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from jupyter_server.utils import url_path_join
from traitlets import Bool, Float, Int, TraitError, Unicode, default, validate
from voila.app import Voila
from voila.tornado.handler import TornadoVoilaHandler

from . import guards
from .compat import check_voila
from .transport import SOCKET_PATH_MAX, socket_paths_fit  # noqa: F401  (SOCKET_PATH_MAX: this module's name for it)

#: Voila's lab template links Font Awesome from a CDN although its own bundle (voila-style.js)
#: has it: a stylesheet from a host the machine cannot reach holds the page up (the scripts after
#: it wait for it), so the links are dropped from every page
_CDN_LINK = re.compile(r'<link rel="stylesheet" href="https://cdn\.jsdelivr\.net/npm/@fortawesome/[^"]*" type="text/css" />')
#: the page's config script names its kernel: ``"kernelId": "<uuid>"``
_KERNEL_ID = re.compile(r'"kernelId":\s*"([0-9a-f-]{36})"')

BUSY_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="{retry}">
<title>delaylab: busy, try again</title>
<style>body{{font-family:sans-serif;max-width:40em;margin:4em auto;padding:0 1em;line-height:1.5}}</style>
</head><body>
<h1>The dashboards are busy</h1>
<p>{why} Please try again in a minute: this page reloads itself in {retry} seconds.</p>
<p>To run the workbook on your own computer: <code>python3 tasks.py lab</code> in a copy of the
repository (see its README).</p>
</body></html>
"""


def _now():
    return datetime.now(timezone.utc)


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
        return env


#: Voila's keep-alive while a page's cells execute (a script calling this, every 10 s)
_HEARTBEAT = "window.voila_heartbeat()"
#: what a page shows when its kernel died before its notebook ran (its cells never come)
KERNEL_LOST_HTML = """
<div role="alert" style="margin:1em 0;padding:0.8em 1em;border-left:4px solid #D55E00;background:#fff4ec">
<strong>This dashboard could not start its computations.</strong> Please reload the page in a
moment. If it happens again, the server may be short of memory: try later, or run the workbook
on your own computer (<code>python3 tasks.py lab</code>, see the repository's README).</div>
<script>(function () { var el = document.getElementById("loading"); if (el) { el.style.display = "none"; } })();</script>
"""


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
        the kernel is listed (a page's kernel then counts once: :meth:`DashboardServer.load`)."""
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
            self.page_seen[kernel_id] = _now()
        for gone in [k for k in self.page_seen if k not in self._kernels]:
            del self.page_seen[gone]

    def refill_limit(self) -> int:
        """Refills at once: ``refill_concurrency`` while a page is open or loading (a page
        connected to its kernel, given one, or being admitted), else one per core (at the
        server's start)."""
        if getattr(self.parent, "admitting", 0) or self.awaiting_page or any(self._kernel_connections.values()):
            return max(1, self.refill_concurrency)
        return max(1, self.refill_concurrency, os.cpu_count() or 1)

    def pool_kernels(self, notebook) -> int:
        """Kernels in ``notebook``'s pool that are ready or on their way (started, executing the
        notebook): not the refills still waiting for their turn."""
        return sum(1 for task in getattr(self, "_pools", {}).get(notebook, ())
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
        now, quiet = _now(), self.refill_quiet_seconds
        pages = set(self.awaiting_page) | {k for k, c in self._kernel_connections.items() if c}
        for kernel_id in pages:
            kernel = self._kernels.get(kernel_id)
            if kernel is None:
                continue
            if getattr(kernel, "execution_state", None) == "busy":
                n += 1
                continue
            signs = [t for t in (self.awaiting_page.get(kernel_id), self.page_seen.get(kernel_id),
                                 getattr(kernel, "last_activity", None)) if t is not None]
            if signs and (now - max(signs)).total_seconds() < quiet:
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
        if kernel_id not in self._kernels:
            return  # stopped since the culler listed the kernels (a page closed it, or it died)
        if kernel_id in self._pending_kernels:
            # starting, or stopping: jupyter_client keeps a kernel there until it has stopped, and
            # a page's closing stops its kernel while the culler may find it idle and unconnected
            return
        if kernel_id in self.presenter_kernels and self._kernel_connections.get(kernel_id):
            return  # the presenter's page is open: idle is normal during a lecture
        handed = self.awaiting_page.get(kernel_id)
        if handed is not None:
            if (_now() - handed).total_seconds() < self.page_load_grace:
                return  # its page is still loading
            self.awaiting_page.pop(kernel_id, None)
        kernel = self._kernels.get(kernel_id)
        if (kernel is not None and hasattr(kernel, "last_activity") and not self._kernel_connections.get(kernel_id)
                and getattr(kernel, "execution_state", None) != "busy"
                and (_now() - kernel.last_activity).total_seconds() > self.cull_unconnected_timeout):
            self.log.warning("Culling kernel %s: no page connected for %d s", kernel_id,
                             (_now() - kernel.last_activity).total_seconds())
            await ensure_async(self.shutdown_kernel(kernel_id))
            return
        return await super().cull_kernel_if_idle(kernel_id)


class PreheatedPools:
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
    (see :meth:`DashboardServer.init_settings`)."""

    async def _initialize(self, notebook_path, kernel_id=None, **kwargs):
        if kernel_id is not None:  # a kernel restarted in place: Voila's own
            return await super()._initialize(notebook_path, kernel_id, **kwargs)
        task = asyncio.current_task()
        await self.refill_turn(task, notebook_path)
        self.refilling_notebooks[notebook_path] = self.refilling_notebooks.get(notebook_path, 0) + 1

        def executed(_=None):
            self.refilling_notebooks[notebook_path] -= 1

        try:
            content = await super()._initialize(notebook_path, kernel_id, **kwargs)
        except BaseException:
            executed()
            raise
        finally:
            self.claimed.discard(task)

        content["task"].add_done_callback(executed)
        return content

    async def get_rendered_notebook(self, notebook_name, *args, **kwargs):
        pool = self._pools.get(notebook_name) or []
        if pool and not pool[0].done():  # a refill still waiting or starting: this visitor's, now
            self.claimed.add(pool[0])
        self.page_activity()
        rendered = await super().get_rendered_notebook(notebook_name, *args, **kwargs)
        task = asyncio.current_task()
        if task is not None:  # the page's handler: its kernel (see DashboardPageHandler.get)
            self.kernel_of_task[task] = rendered[2]
        return rendered


class DashboardPageHandler(TornadoVoilaHandler):
    """Voila's page handler, plus the xsrf cookie, the cap on visitors' kernels, and a record of
    the kernel handed to each page."""

    @tornado.web.authenticated
    async def get(self, path=None):
        self.xsrf_token  # sets the _xsrf cookie that the page's shutdown request sends back
        app = self.settings["voila"]
        problem = guards.page_argument_problem(self, self.voila_configuration)
        if problem:  # Voila would start a kernel, then fail in the background
            app.log.warning("refused %s: %s", path, problem)
            self.set_status(400)
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            self.finish(f"400 Bad Request: {problem}\n")
            return
        presenter = app.is_presenter(self)
        client = guards.client_of(self)
        refusal = None if presenter else app.refusal(client)
        if refusal is None and app.max_kernels and not presenter and app.load() >= app.max_kernels:
            refusal = (503, app.busy_retry_seconds, f"busy: {app.load()} visitors' kernels, cap {app.max_kernels}",
                       f"{app.load()} visitors are using the live dashboards right now, the most this server "
                       "runs at once.")
        if refusal is not None:
            status, retry, why_log, why = refusal
            self.set_status(status)
            self.set_header("Retry-After", str(retry))
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.set_header("Cache-Control", "no-cache, no-store, must-revalidate")
            app.log.warning("%s: refused %s", why_log, path)
            self.finish(BUSY_PAGE.format(why=why, retry=retry))
            return
        counted = 0 if presenter else 1  # the presenter's page is not a visitor's
        app.admitting += counted
        task = asyncio.current_task()
        app.admissions[task] = (client, presenter)
        admitted, head, kernel_id, started = True, "", None, False
        pieces = self.get_generator(path=path)
        try:
            async for html in pieces:
                if admitted:
                    head += html
                    found = _KERNEL_ID.search(head)
                    if found:  # this page's kernel: counted as a visitor's from now on
                        kernel_id = found.group(1)
                        app.handed_out(kernel_id, presenter=presenter, client=client)
                        app.admitting -= counted
                        app.admissions.pop(task, None)
                        admitted, head = False, ""
                lost = kernel_id or self.page_kernel()
                if lost and _HEARTBEAT in html and lost not in self.kernel_manager:
                    # Voila waits for the cells' outputs for good once the kernel has died
                    # (a failed start, after jupyter_client's five restarts; a memory cap too
                    # low): say so, instead of a "computing" bar that never ends
                    app.log.warning("the kernel %s of a page of %s stopped before its notebook ran: "
                                    "the visitor is told to reload", lost, path)
                    self.write(KERNEL_LOST_HTML)
                    await pieces.aclose()
                    break
                if "cdn.jsdelivr.net" in html:
                    html = _CDN_LINK.sub("", html)
                html = self.preload_plotly_module(html)
                self.write(html)
                self.flush()
                started = True
        except Exception as exc:
            if not started or isinstance(exc, tornado.web.HTTPError):
                raise  # nothing sent yet: Voila's own error page
            # a preheated kernel that died before or while executing its notebook: Voila's page
            # stops half-way (no cells, a "computing" bar for good) and the error goes to the log
            lost = kernel_id or self.page_kernel()
            app.log.warning("the kernel %s of a page of %s failed (%s: %s): the visitor is told to reload",
                            lost, path, type(exc).__name__, exc)
            self.write(KERNEL_LOST_HTML)
            if lost and lost in self.kernel_manager:  # a dead kernel must not hold a visitor's place
                asyncio.ensure_future(self._stop_kernel(lost))
        finally:
            app.admissions.pop(task, None)
            if admitted:
                app.admitting -= counted

    def page_kernel(self):
        """The id of the kernel Voila started or took from the pool for this page, or None."""
        return getattr(self.kernel_manager, "kernel_of_task", {}).get(asyncio.current_task())

    async def _stop_kernel(self, kernel_id: str) -> None:
        try:
            await ensure_async(self.kernel_manager.shutdown_kernel(kernel_id, now=True))
        except Exception as exc:  # already gone: nothing to stop
            self.log.debug("stopping the failed kernel %s: %s", kernel_id, exc)

    def preload_plotly_module(self, html: str) -> str:
        """The page's head with a ``modulepreload`` link to plotly's widget module: the browser
        fetches and compiles it (from its cache after the first visit) while Voila's own scripts
        load and the kernel connects, instead of after the widgets' state has arrived; and its
        evaluation (about 1.3 s of the page's main thread: plotly's own top-level code) in the
        page's first idle moment (``requestIdleCallback``: while the page waits for Voila's
        scripts or for its kernel), not after the widgets' state. The figures' loader then finds
        it evaluated: the same URL is the same module (:mod:`delaylab.viz.widget`). Only with
        ``--DashboardServer.early_plotly=True``: it measured no faster (see that option's help)."""
        if "</head>" not in html or not self.settings["voila"].early_plotly:
            return html
        url = self.settings["voila"].plotly_module_url()
        early = (f'<link rel="modulepreload" href="{url}">\n'
                 f'<script>(window.requestIdleCallback || setTimeout)(function () {{ '
                 f'import(new URL("{url}", document.baseURI).href).catch(function () {{}}); }});</script>\n')
        return html.replace("</head>", early + "</head>", 1)


class StatusHandler(JupyterHandler):
    """``GET /delaylab/status``: the server's kernels as JSON."""

    def get(self):
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-cache, no-store, must-revalidate")
        self.finish(json.dumps(self.settings["voila"].status()))

    def check_xsrf_cookie(self):  # a GET: nothing to protect
        return


class PresenterHandler(JupyterHandler):
    """``GET /delaylab/presenter?key=KEY[&next=PATH]``: with the right key, this browser becomes
    the presenter's (:data:`PRESENTER_COOKIE`, signed, 12 hours), then goes on to ``next`` (a
    path on this server; default: the server's root, the list of dashboards). A wrong key, or no key configured: 403."""

    def get(self):
        app = self.settings["voila"]
        key = self.get_argument("key", "")
        if not app.presenter_key or not hmac.compare_digest(key.encode(), app.presenter_key.encode()):
            # a page of our own: Jupyter Server's error page needs a static_path that Voila's
            # application does not set (it logged a traceback for every wrong key)
            self.log.warning("presenter: a wrong key, or no presenter_key set")
            self.set_status(403)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(FORBIDDEN_PAGE)
            return
        self.set_signed_cookie(PRESENTER_COOKIE, app.presenter_token(), expires_days=0.5, httponly=True,
                               samesite="Lax")
        target = self.get_argument("next", "")
        if not target.startswith("/") or target.startswith(("//", "/\\")):  # this server's paths only
            target = app.server_url
        self.redirect(target)

    def check_xsrf_cookie(self):  # a GET: nothing to protect
        return


FORBIDDEN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>delaylab: not the presenter's key</title></head>
<body style="font-family:sans-serif;max-width:40em;margin:4em auto;padding:0 1em;line-height:1.5">
<h1>Not the presenter's key</h1>
<p>This address gives the lecturer's browser its pass only with the key set on the server
(<code>--DashboardServer.presenter_key</code>). The dashboards themselves need no key.</p>
</body></html>
"""

#: the cookie that marks the presenter's browser (see :class:`PresenterHandler`)
PRESENTER_COOKIE = "delaylab-presenter"


class PlotlyModuleHandler(tornado.web.RequestHandler):
    """``GET <base_url>delaylab/static/plotly-widget.<hash>.js``: plotly's widget module
    (:func:`delaylab.viz.widget.plotly_module`), what every figure on a page needs first.

    Through the kernel, the module reached each page as a 5 MB websocket message and was
    evaluated from a blob URL, on every visit. As a file with a content-hashed name it is sent
    gzipped (about a quarter of the size) and kept by the browser for a year without asking again
    (``immutable``): a visitor's next pages take it from the cache, and chromium can keep the
    compiled code too. A plotly upgrade changes the content, hence the name: a browser never runs
    a cached module that is not the kernel's. Any other name: 404. No login needed: it is
    plotly's public code, like Voila's own static files.
    """

    def initialize(self, module: "StaticModule"):
        self.module = module

    def get(self, name):
        if name != self.module.name:
            raise tornado.web.HTTPError(404)
        self.set_header("Content-Type", "text/javascript; charset=utf-8")
        self.set_header("Cache-Control", "public, max-age=31536000, immutable")
        self.set_header("Vary", "Accept-Encoding")
        if "gzip" in self.request.headers.get("Accept-Encoding", ""):
            self.set_header("Content-Encoding", "gzip")
            self.finish(self.module.gzipped)
        else:
            self.finish(self.module.content)

    def compute_etag(self):  # the name is the version: no need to hash 5 MB per request
        return None


class StaticModule:
    """A file's name, its content and the content gzipped (about 0.2 s of CPU for plotly's 5 MB:
    done once, when the server starts, not while a visitor waits)."""

    def __init__(self, name: str, content: bytes):
        self.name, self.content = name, content
        self.gzipped = gzip.compress(content, compresslevel=6, mtime=0)


def keep_signal_handlers(handlers: dict) -> None:
    """Keep the server's own SIGINT and SIGTERM handlers (``handlers``: what the server set)
    while Voila executes a notebook in one go.

    Templates that execute the whole notebook before rendering (``?template=reveal``: the live
    slides) run nbclient's ``NotebookClient.async_setup_kernel``, which puts handlers of its own
    for both signals on the event loop and, when done, removes them, leaving SIGTERM at its
    default. After one such page, the next SIGTERM (``docker stop``, a service manager, the
    tests' ``terminate``) killed the server outright: no orderly stop, its connection folder and
    sockets left in the temporary folder, its kernels stopping only when they noticed their
    parent gone; and a SIGTERM during that page's execution stopped only that page's kernel.
    Here, once nbclient has set its handlers, they are taken off the loop again (nbclient's
    later removal then does nothing) and the server's put back."""
    import voila.execute

    executor = voila.execute.VoilaExecutor
    setup = getattr(executor.async_setup_kernel, "__wrapped_setup__", executor.async_setup_kernel)

    @contextlib.asynccontextmanager
    async def async_setup_kernel(self, **kwargs):
        async with setup(self, **kwargs):
            loop = asyncio.get_running_loop()
            for sig, handler in handlers.items():
                try:
                    if loop.remove_signal_handler(sig) and handler is not None:
                        signal.signal(sig, handler)
                except (RuntimeError, ValueError):  # not the main thread's loop: nbclient set none
                    pass
            yield

    async_setup_kernel.__wrapped_setup__ = setup
    executor.async_setup_kernel = async_setup_kernel


class DashboardServer(Voila):
    """Voila serving delaylab's notebooks (see the module's docstring)."""

    max_kernels = Int(0, config=True, help="Visitors' kernels at once (0: no cap); beyond it a 503 'busy' page.")
    busy_retry_seconds = Int(30, config=True, help="Retry-After of the busy page, in seconds.")
    early_plotly = Bool(False, config=True,
                        help="Each page fetches plotly's widget module at once (modulepreload) and evaluates it "
                             "in its first idle moment, before the widgets' state arrives, instead of when the "
                             "first figure needs it. Off: measured on 2 cores, 12 alternating visits each, the "
                             "first figure came no sooner (fresh browser 4.10 s against 4.15 s off, returning "
                             "4.00 against 4.09) and a fresh page's main thread worked 0.5 CPU s more; with "
                             "plotly.js's basic bundle, 3.33 s against 3.29 s off.")
    compress = Bool(False, config=True,
                    help="Compress what the server sends to browsers that accept it: pages, scripts and "
                         "styles with gzip, websocket messages (the widgets' state, figure updates) with "
                         "permessage-deflate at level 1. A first visit then fetches about a quarter of the "
                         "bytes (its scripts: 5.8 MB), at some CPU per first visit. On with --public; off "
                         "by default, for a server on the same machine as its browser (it only costs CPU "
                         "there) and behind a reverse proxy that compresses.")
    presenter_key = Unicode("", config=True,
                            help="Key of /delaylab/presenter?key=...: the browser that opens it gets kernels "
                                 "beyond the cap, not culled while their page is open (empty: no presenter).")
    client_pages_loading = Int(0, config=True,
                               help="Pages one client (address) may have given a kernel and not yet connected to "
                                    "it; beyond: the busy page (0: no limit). See delaylab/serve/guards.py.")
    client_requests_per_minute = Int(0, config=True,
                                     help="Page requests and kernel websockets one client (address) may open per "
                                          "minute; beyond: HTTP 429 (0: no limit).")
    max_websockets_per_kernel = Int(4, config=True,
                                    help="Websockets open to one kernel at once (a page opens one); beyond: HTTP 429 "
                                         "(0: no limit).")
    client_address_header = Unicode("", config=True,
                                    help="Header naming the client's address set by a reverse proxy on this machine "
                                         "(e.g. X-Real-IP), read only from requests from 127.0.0.1 or ::1; empty: "
                                         "the peer's address (behind a proxy: the proxy's, one client for all).")

    @validate("client_pages_loading", "client_requests_per_minute", "max_websockets_per_kernel")
    def _limit_not_negative(self, proposal):
        if proposal["value"] < 0:
            raise TraitError(f"DashboardServer.{proposal['trait'].name}={proposal['value']}: "
                             "a limit must be 0 (none) or more")
        return proposal["value"]

    def presenter_token(self) -> str:
        """The presenter cookie's value: changes with the key (a new key revokes old cookies)."""
        return hashlib.sha256(b"delaylab-presenter\0" + self.presenter_key.encode()).hexdigest()[:32]

    def is_presenter(self, handler) -> bool:
        if not self.presenter_key:
            return False
        value = handler.get_signed_cookie(PRESENTER_COOKIE, max_age_days=0.5)
        return value is not None and hmac.compare_digest(value, self.presenter_token().encode())

    def initialize(self, argv=None):
        super().initialize(argv)
        self.voila_configuration.kernel_spec_manager_class = DashboardKernelSpecManager
        if self.voila_configuration.multi_kernel_manager_class is AsyncMappingKernelManager:
            self.voila_configuration.multi_kernel_manager_class = DashboardKernelManager
        self.admitting = 0  # pages admitted whose kernel is not known yet
        self.admissions: dict = {}  # the admitted pages' tasks -> (client, presenter), until their kernel is known
        self.handed: set = set()  # kernels named to a (visitor's or presenter's) page
        self.client_limits = guards.ClientLimits(self.client_requests_per_minute, self.client_pages_loading,
                                                 self.max_websockets_per_kernel)
        if self.config.get("KernelManager", {}).get("transport", "tcp") == "ipc":
            self.log.info("delaylab: kernels on Unix sockets")
        elif os.name == "posix" and not unix_sockets_fit(self.connection_dir_root):
            self.log.warning("delaylab: kernels on TCP ports: the socket paths under %s would be longer than "
                             "Unix sockets allow (set TMPDIR or --Voila.connection_dir_root to a short "
                             "folder)", self.connection_dir_root)
        keep_signal_handlers({sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)})

    def init_settings(self):
        """Voila's settings; the kernel manager class Voila builds here for its pools of
        preheated kernels gets :class:`PreheatedPools` (refills that wait for their turn), and
        the kernel spec manager created here gives the kernels the URL of plotly's module."""
        import voila.app as voila_app

        factory = voila_app.voila_kernel_manager_factory

        def with_preheated_pools(base_class, preheat_kernel, *args, **kwargs):
            cls = factory(base_class, preheat_kernel, *args, **kwargs)
            if not preheat_kernel or not issubclass(base_class, DashboardKernelManager):
                return cls
            return type(cls)(f"Dashboard{cls.__name__}", (PreheatedPools, cls), {})

        voila_app.voila_kernel_manager_factory = with_preheated_pools
        try:
            settings = super().init_settings()
        finally:
            voila_app.voila_kernel_manager_factory = factory
        # a page sends comms and kernel_info_request; Voila also allows shutdown_request, which a
        # page never sends (it stops its kernel with the shutdown POST)
        self.kernel_manager.allowed_message_types = sorted(guards.PAGE_MESSAGE_TYPES)
        if isinstance(self.kernel_spec_manager, DashboardKernelSpecManager):
            self.kernel_spec_manager.plotly_module_url = self.plotly_module_url()
        if self.compress:  # read when the tornado application is built, not later (tornado_settings)
            settings["compress_response"] = True
            settings["websocket_compression_options"] = {"compression_level": 1}
        return settings

    # ------------------------------------------------------------------ kernels
    def pooled_kernels(self) -> set:
        """Ids of the preheated kernels waiting in Voila's pool (not handed to a page)."""
        ids = set()
        for pool in getattr(self.kernel_manager, "_pools", {}).values():
            for task in pool:
                if task.done() and not task.cancelled() and task.exception() is None:
                    ids.add(task.result()["kernel_id"])
        return ids

    def ready_pool_kernels(self) -> int:
        """Preheated kernels that have executed their whole notebook (a page served at once)."""
        n = 0
        for pool in getattr(self.kernel_manager, "_pools", {}).values():
            for task in pool:
                if task.done() and not task.cancelled() and task.exception() is None:
                    n += task.result()["task"].done()
        return n

    def starting_pool_kernels(self) -> int:
        return sum(not t.done() for pool in getattr(self.kernel_manager, "_pools", {}).values() for t in pool)

    def visitor_kernels(self) -> set:
        """Kernels handed to pages (running, not waiting in the pool), the presenter's included."""
        return set(self.kernel_manager.list_kernel_ids()) - self.pooled_kernels()

    def presenter_kernels(self) -> set:
        return self.visitor_kernels() & getattr(self.kernel_manager, "presenter_kernels", set())

    def load(self) -> int:
        """Visitors' kernels running (not the presenter's), plus pages admitted whose kernel is
        not running yet, each visitor once: a page whose kernel is starting (its id known from
        :meth:`DashboardKernelManager.pre_start_kernel`) counts once it runs as that kernel; a
        page taking a kernel from the pool (its id not known yet) as one of the running kernels
        no page has been named yet."""
        visitors = self.visitor_kernels() - self.presenter_kernels()
        of_task = getattr(self.kernel_manager, "kernel_of_task", {})
        pages = [of_task.get(task) for task, (_, presenter) in list(self.admissions.items()) if not presenter]
        waiting = sum(kernel not in visitors for kernel in pages)  # their kernel not running (or not known)
        unknown = sum(kernel is None for kernel in pages)
        unnamed = visitors - self.handed - set(pages)  # running, not a page's yet: being taken from the pool
        return len(visitors) + waiting - min(len(unnamed), unknown)

    def refusal(self, client: str):
        """Why a page request of ``client`` is refused by the per-client limits, as (HTTP status,
        Retry-After, the log's reason, the visitor's), or None."""
        limits = self.client_limits
        if not limits.request(client):
            return (429, limits.retry_after(client),
                    f"client {client} made more than {limits.requests_per_minute} requests in a minute",
                    "Your address has opened many dashboards in the last minute.")
        if limits.pages_loading and client not in guards.LOOPBACK:
            awaiting = getattr(self.kernel_manager, "awaiting_page", {})
            loading = (sum(c == client for c, presenter in list(self.admissions.values()) if not presenter)
                       + sum(limits.kernel_client.get(k) == client for k in list(awaiting)))
            if loading >= limits.pages_loading:
                return (503, self.busy_retry_seconds,
                        f"client {client} has {loading} pages loading, the most per client",
                        f"{loading} dashboards are loading from your address at once, the most this server "
                        "allows one address.")
        return None

    def handed_out(self, kernel_id: str, presenter: bool = False, client: str = "") -> None:
        """A kernel was given to a page: it counts as active now (a preheated kernel may have
        waited in the pool for long: the culler must not take it while its page loads)."""
        running = set(self.kernel_manager.list_kernel_ids())
        self.handed &= running
        self.handed.add(kernel_id)
        self.client_limits.kernel_client[kernel_id] = client
        if hasattr(self.kernel_manager, "awaiting_page"):
            self.kernel_manager.awaiting_page[kernel_id] = _now()
            self.kernel_manager.page_activity()
            running = set(self.kernel_manager.list_kernel_ids())
            self.kernel_manager.presenter_kernels &= running  # forget stopped ones
            if presenter:
                self.kernel_manager.presenter_kernels.add(kernel_id)
        try:
            kernel = self.kernel_manager.get_kernel(kernel_id)
        except KeyError:
            return
        kernel.last_activity = _now()

    def status(self) -> dict:
        return {"kernels": len(self.kernel_manager.list_kernel_ids()), "pooled": len(self.pooled_kernels()),
                "pool_ready": self.ready_pool_kernels(),
                "pool_starting": self.starting_pool_kernels(), "visitors": len(self.visitor_kernels()),
                "presenters": len(self.presenter_kernels()), "load": self.load(),
                "admitting": self.admitting, "max_kernels": self.max_kernels,
                "refilling": getattr(self.kernel_manager, "refilling", 0)}

    # ------------------------------------------------------------------ handlers
    def init_handlers(self):
        handlers = []
        for spec in super().init_handlers():
            if len(spec) >= 2 and spec[1] is TornadoVoilaHandler:
                spec = (spec[0], DashboardPageHandler, *spec[2:])
            spec = guards.guarded_handler(spec)
            handlers.append(spec)
        handlers.insert(0, (self.server_url.rstrip("/") + "/delaylab/status", StatusHandler))
        handlers.insert(0, (self.server_url.rstrip("/") + "/delaylab/presenter", PresenterHandler))
        handlers.insert(0, self.plotly_module_handler())
        return handlers

    # ------------------------------------------------------------------ plotly's module, static
    def plotly_module_url(self) -> str:
        """Where a page finds plotly's widget module (under the client's ``base_url``)."""
        return url_path_join(self.base_url, "delaylab/static", self.plotly_module().name)

    def plotly_module(self) -> "StaticModule":
        """The module this server serves (:func:`delaylab.viz.widget.dashboard_module`: with
        plotly.js's basic bundle when it is installed), made once."""
        if getattr(self, "_plotly_module", None) is None:
            from delaylab.viz.widget import dashboard_module

            name, content, traces = dashboard_module()
            self.log.info("delaylab: plotly's widget module %s (%.1f MB, %s)", name, len(content) / 1e6,
                          "plotly.js's basic bundle: " + ", ".join(sorted(traces)) if traces else
                          "plotly.js in full: `python -m delaylab.viz.plotlyjs` fetches the basic bundle")
            self._plotly_module = StaticModule(name, content)
        return self._plotly_module

    def plotly_module_handler(self) -> tuple:
        return (url_path_join(self.server_url, r"/delaylab/static/(plotly-widget\.[0-9a-f]+\.js)"),
                PlotlyModuleHandler, {"module": self.plotly_module()})


#: ``--public``: what a server open to anyone adds to voila.json's settings (an option given on
#: the command line too, e.g. ``--DashboardServer.max_kernels=20``, replaces its entry here)
PUBLIC = {
    "Voila.ip": "0.0.0.0",
    "DashboardServer.max_kernels": 10,  # 10 visitors' kernels at once; the 11th: a "busy" page
    # one client (address) at most 4 pages loading at once and 60 pages or websockets a minute: a
    # burst from one address leaves the other seats to the others (delaylab/serve/guards.py)
    "DashboardServer.client_pages_loading": 4,
    "DashboardServer.client_requests_per_minute": 60,
    # two preheated kernels per notebook (voila.json: one): a class opening the five panels at
    # once is served by kernels that executed their notebook beforehand (memory: README)
    "VoilaConfiguration.default_pool_size": 2,
    "DashboardKernelSpecManager.memory_mb": 3072,  # address space per kernel (RLIMIT_AS)
    "MappingKernelManager.cull_connected": True,  # an open but idle tab loses its kernel...
    "MappingKernelManager.cull_idle_timeout": 900,  # ...after 15 minutes without a slider move
    "MappingKernelManager.cull_interval": 10,
    "DashboardKernelManager.cull_unconnected_timeout": 45,  # a closed tab's kernel: 45 s
    "VoilaConfiguration.show_tracebacks": False,
    "VoilaConfiguration.strip_sources": True,
    "DashboardServer.compress": True,  # visitors over a network: a quarter of the bytes
}


def unix_sockets_fit(root=None) -> bool:
    """Whether the kernels' Unix sockets fit in ``sun_path`` on this system: POSIX, and the longest
    socket path Voila and jupyter_client make, ``<root>/voila_XXXXXXXX/kernel-<uuid>-ipc-NN``,
    within :data:`SOCKET_PATH_MAX` bytes (:func:`delaylab.serve.transport.socket_paths_fit`).
    ``root`` is Voila's ``connection_dir_root``, the temporary folder by default (on macOS a long
    one under ``/var/folders``, where it does not fit)."""
    return socket_paths_fit(os.path.join(root or tempfile.gettempdir(), "voila_" + "x" * 8))


def defaults(given=None) -> dict:
    """What every dashboard server sets unless its command line (``given``: option -> value) says
    otherwise: kernels that talk to the server over Unix sockets (files in the server's private
    temporary folder), not TCP ports on 127.0.0.1. jupyter_client picks a kernel's five ports as
    free a moment before the kernel binds them, and on a busy machine another process's outgoing
    connection can take one in between (seen in CI: "Address already in use"; jupyter_client
    8.10's restarts with "new random ports" kept the port it had cached, so the kernel died five
    times and its visitor's page waited for good). Sockets in a folder only the server's user can
    open are also closed to other local users. TCP where there are no Unix sockets (Windows) or
    where their paths would be too long (:func:`unix_sockets_fit`)."""
    given = given or {}
    if "KernelManager.transport" in given:
        return {}
    return {"KernelManager.transport": "ipc"} if unix_sockets_fit(given.get("Voila.connection_dir_root")) else {}


def command_line(argv) -> list:
    """Voila's command line for ``argv``: :func:`defaults` first, and ``--public`` expanded into
    :data:`PUBLIC`; an option given in ``argv`` replaces either's entry."""
    argv = list(argv)
    given = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    if "--public" in argv:
        i = argv.index("--public")
        argv[i:i + 1] = [f"--{k}={v}" for k, v in PUBLIC.items() if k not in given]
    return [f"--{k}={v}" for k, v in defaults(given).items()] + argv


#: Jupyter data folder holding the "delaylab" Voila template (the text shows while cells execute)
SHARE = Path(__file__).resolve().parent / "share"


def main(argv=None) -> None:
    """``python -m delaylab.serve NOTEBOOK_FOLDER [--public] [Voila options]``"""
    check_voila()
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in [str(SHARE), os.environ.get("JUPYTER_PATH", "")] if p)
    argv = ["--VoilaConfiguration.template=delaylab", *command_line(sys.argv[1:] if argv is None else argv)]
    DashboardServer.launch_instance(argv)

