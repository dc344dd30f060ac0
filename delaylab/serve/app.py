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
* **The lecturer's solutions** (``--solutions=lecture|all|none|1.1,1.3``, default ``lecture``):
  which exercises' solutions the dashboards and live slides show (the hint button's last step, an
  explanation's model answer), passed to every kernel as ``DELAYLAB_SOLUTIONS`` whatever the
  server's own environment says (:mod:`delaylab.exercises.solutions`): by default the exercises
  done in the lecture, not the graded homework.
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

The concerns live in their own modules; this one wires them together into Voila's application:

* :mod:`delaylab.serve.pools`: the kernels (:class:`DashboardKernelSpecManager`), the culler and
  the refills' turns (:class:`DashboardKernelManager`), Voila's pools (:class:`PreheatedPools`);
* :mod:`delaylab.serve.handlers`: the page, status, presenter and plotly module handlers, and the
  pages of our own (:data:`BUSY_PAGE`, :data:`KERNEL_LOST_HTML`, :data:`FORBIDDEN_PAGE`);
* :mod:`delaylab.serve.guards`: the checks against one visitor;
* :mod:`delaylab.serve.voila_patches`: every patch of Voila's, jupyter_server's and
  jupyter_client's code and every read of their private state, for the Voila releases
  :mod:`delaylab.serve.compat` allows;

Their public names are importable from here too. The command line, :mod:`delaylab.serve.cli`
(:func:`~delaylab.serve.cli.main`, :data:`~delaylab.serve.cli.PUBLIC`,
:func:`~delaylab.serve.cli.defaults`), sits above this module and starts its server.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pathlib
import signal

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from jupyter_server.utils import url_path_join
from traitlets import Bool, Float, Int, TraitError, Unicode, validate
from voila.app import Voila
from voila.tornado.handler import TornadoVoilaHandler

from . import documents, guards, pools, voila_patches
from .handlers import (BUSY_PAGE, FORBIDDEN_PAGE, KERNEL_LOST_HTML, PRESENTER_COOKIE, DashboardPageHandler,
                       PlotlyModuleHandler, PresenterHandler, StaticModule, StatusHandler)
from .pools import DashboardKernelManager, DashboardKernelSpecManager, PreheatedPools
from .transport import SOCKET_PATH_MAX, unix_sockets_fit
from .voila_patches import keep_signal_handlers

#: what this module gives, its own and re-exported from the modules above (``from
#: delaylab.serve.app import ...`` in the tests, the benchmarks and the extension)
__all__ = ["BUSY_PAGE", "FORBIDDEN_PAGE", "KERNEL_LOST_HTML", "PRESENTER_COOKIE",
           "SOCKET_PATH_MAX", "DashboardKernelManager", "DashboardKernelSpecManager", "DashboardPageHandler",
           "DashboardServer", "PlotlyModuleHandler", "PreheatedPools", "PresenterHandler", "StaticModule",
           "StatusHandler", "keep_signal_handlers", "unix_sockets_fit"]


class DashboardServer(Voila):
    """Voila serving delaylab's notebooks (see the module's docstring)."""

    max_kernels = Int(0, config=True, help="Visitors' kernels at once (0: no cap); beyond it a 503 'busy' page.")
    busy_retry_seconds = Int(30, config=True, help="Retry-After of the busy page, in seconds.")
    early_plotly = Bool(False, config=True,
                        help="Each page fetches plotly's widget module at once (modulepreload) and evaluates it "
                             "in its first idle moment, before the widgets' state arrives, instead of when the "
                             "first figure needs it. Off by default: the first figure came no sooner with it, "
                             "and a fresh page's main thread worked more (benchmarks/RESULTS.md, Dashboards).")
    compress = Bool(False, config=True,
                    help="Compress what the server sends to browsers that accept it: pages, scripts and "
                         "styles with gzip, websocket messages (the widgets' state, figure updates) with "
                         "permessage-deflate at level 1. A first visit then fetches far fewer bytes, at some "
                         "server CPU per first visit (benchmarks/RESULTS.md, Dashboards). On with --public; "
                         "off by default, for a server on the same machine as its browser (it only costs CPU "
                         "there) and behind a reverse proxy that compresses.")
    solutions = Unicode("lecture", config=True,
                        help="Which exercises' solutions the dashboards show: lecture (those done in the lecture, "
                             "none of the graded homework of the guide's module table), all, none, or a list "
                             "such as 1.1,1.3. Set for every kernel, whatever DELAYLAB_SOLUTIONS says in the "
                             "server's environment (the students' setting).")
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

    ready_wait = Float(0.0, config=True,
                       help="Seconds the server may wait, before it opens its port and says it is running, until "
                            "every notebook's pool holds a preheated kernel that has executed its notebook: the "
                            "first visitor of each notebook after a start then waits no longer than any other "
                            "(`tasks.py dashboard` sets 600). Past it, the port opens anyway, with a warning. "
                            "0: open at once (the first visitors wait for the kernels still starting).")

    @validate("solutions")
    def _solutions_setting(self, proposal):
        from delaylab.exercises import solution_setting

        try:
            return solution_setting(proposal["value"])
        except ValueError as exc:
            raise TraitError(f"DashboardServer.{exc}") from None

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
        voila_patches.keep_signal_handlers({sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)})

    def listen(self):
        """Voila's (the port opened, then the server runs), after :meth:`wait_for_pools` when
        ``ready_wait`` is set; stopped cleanly if interrupted while it waits."""
        if self.ready_wait > 0 and voila_patches.pools(self.kernel_manager):
            from tornado.ioloop import IOLoop

            self.ioloop = IOLoop.current()  # Voila's SIGTERM handler stops it (it sets it only in listen)
            try:
                self.ioloop.run_sync(self.wait_for_pools)
            except (KeyboardInterrupt, TimeoutError, RuntimeError):  # Ctrl-C, or a signal stopped the loop
                self.log.info("Stopping before the port opened...")
                self.stop()
                return
        super().listen()

    async def wait_for_pools(self) -> None:
        """Wait (up to ``ready_wait`` s) until every notebook's pool holds a preheated kernel
        that has executed its notebook (:func:`delaylab.serve.pools.notebooks_ready`)."""
        import asyncio
        import time

        t0 = time.monotonic()
        self.log.info("delaylab: opening the port once every notebook has a preheated kernel (up to %.0f s)",
                      self.ready_wait)
        while True:
            ready, total = pools.notebooks_ready(self.kernel_manager)
            if ready >= total:
                self.log.info("delaylab: ready: %d notebooks with a preheated kernel, %.1f s after the start",
                              total, time.monotonic() - t0)
                return
            if time.monotonic() - t0 > self.ready_wait:
                self.log.warning("delaylab: %d of %d notebooks have a preheated kernel after %.0f s: opening the "
                                 "port anyway", ready, total, self.ready_wait)
                return
            await asyncio.sleep(0.2)

    def init_settings(self):
        """Voila's settings; the kernel manager class Voila builds here for its pools of
        preheated kernels gets :class:`PreheatedPools` (refills that wait for their turn), and
        the kernel spec manager created here gives the kernels the URL of plotly's module."""
        with voila_patches.kernel_manager_mixin(PreheatedPools, DashboardKernelManager):
            settings = super().init_settings()
        # a page sends comms and kernel_info_request; Voila also allows shutdown_request, which a
        # page never sends (it stops its kernel with the shutdown POST)
        self.kernel_manager.allowed_message_types = sorted(guards.PAGE_MESSAGE_TYPES)
        if isinstance(self.kernel_spec_manager, DashboardKernelSpecManager):
            self.kernel_spec_manager.plotly_module_url = self.plotly_module_url()
            self.kernel_spec_manager.solutions = self.solutions
        if self.compress:  # read when the tornado application is built, not later (tornado_settings)
            settings["compress_response"] = True
            settings["websocket_compression_options"] = {"compression_level": 1}
        return settings

    # ------------------------------------------------------------------ kernels
    def pooled_kernels(self) -> set:
        """Ids of the preheated kernels waiting in Voila's pool (not handed to a page)."""
        return {kernel_id for kernel_id, _ in voila_patches.started_pool_kernels(self.kernel_manager)}

    def ready_pool_kernels(self) -> int:
        """Preheated kernels that have executed their whole notebook (a page served at once)."""
        return sum(executed for _, executed in voila_patches.started_pool_kernels(self.kernel_manager))

    def starting_pool_kernels(self) -> int:
        return sum(not t.done() for pool in voila_patches.pools(self.kernel_manager).values() for t in pool)

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
        visitors = self.visitor_kernels()
        visitors -= getattr(self.kernel_manager, "presenter_kernels", set())
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
            self.kernel_manager.awaiting_page[kernel_id] = pools.now()
            self.kernel_manager.page_activity()
            running = set(self.kernel_manager.list_kernel_ids())
            self.kernel_manager.presenter_kernels &= running  # forget stopped ones
            if presenter:
                self.kernel_manager.presenter_kernels.add(kernel_id)
        try:
            kernel = self.kernel_manager.get_kernel(kernel_id)
        except KeyError:
            return
        kernel.last_activity = pools.now()

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
        handlers.insert(0, documents.standalone_handler(self.server_url, pathlib.Path(self.root_dir)))
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
