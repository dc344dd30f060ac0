"""The dashboards' server: Voila 0.5, with what serving many visitors needs.

:class:`DashboardServer` is Voila's application (every Voila option and voila.json still
apply) with four additions:

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
  A burst of visitors may be counted a little high for a moment (a page whose kernel is
  starting can be counted twice), never low.
* **A cap on visitors' kernels** (``--DashboardServer.max_kernels=N``): a visitor beyond it
  gets a short "busy, try again" page with HTTP 503 and ``Retry-After``, at once, instead of a
  kernel. Preheated kernels waiting in the pool are not counted.
* **A kernel of our own** (:class:`DashboardKernelSpecManager`): Python notebooks run in
  ``python -m delaylab.serve.kernel`` (a memory cap, the sweep cache, compiled kernels warmed
  up, then ipykernel), with one BLAS/OpenMP thread per kernel so that visitors share the cores
  instead of fighting over them.
* **A status endpoint**, ``GET /delaylab/status``: kernels running, in the pool, visitors'
  kernels, the cap (for a health check and for the tests).
* **plotly's widget module as a static file** (:class:`PlotlyModuleHandler`), at
  ``<base_url>delaylab/static/plotly-widget.<hash>.js``, cached by browsers for good (the name
  changes with the content), its URL given to the kernels: see :mod:`delaylab.viz.widget`.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

import tornado.web
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_core.utils import ensure_async
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from jupyter_server.utils import url_path_join
from traitlets import Int, Unicode, default
from voila.app import Voila
from voila.tornado.handler import TornadoVoilaHandler

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
<p>{visitors} visitors are using the live dashboards right now, the most this server runs at
once. Please try again in a minute: this page reloads itself in {retry} seconds.</p>
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

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.awaiting_page: dict = {}  # kernel id -> when it was handed to a page that has not connected yet

    def notify_connect(self, kernel_id):
        self.awaiting_page.pop(kernel_id, None)
        super().notify_connect(kernel_id)

    async def cull_kernel_if_idle(self, kernel_id):
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


class DashboardPageHandler(TornadoVoilaHandler):
    """Voila's page handler, plus the xsrf cookie, the cap on visitors' kernels, and a record of
    the kernel handed to each page."""

    @tornado.web.authenticated
    async def get(self, path=None):
        self.xsrf_token  # sets the _xsrf cookie that the page's shutdown request sends back
        app = self.settings["voila"]
        if app.max_kernels and app.load() >= app.max_kernels:
            self.set_status(503)
            self.set_header("Retry-After", str(app.busy_retry_seconds))
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.set_header("Cache-Control", "no-cache, no-store, must-revalidate")
            app.log.warning("busy: %d visitors' kernels, cap %d: refused %s", app.load(), app.max_kernels, path)
            self.finish(BUSY_PAGE.format(visitors=app.load(), retry=app.busy_retry_seconds))
            return
        app.admitting += 1
        admitted, head = True, ""
        try:
            async for html in self.get_generator(path=path):
                if admitted:
                    head += html
                    found = _KERNEL_ID.search(head)
                    if found:  # this page's kernel: counted as a visitor's from now on
                        app.handed_out(found.group(1))
                        app.admitting -= 1
                        admitted, head = False, ""
                if "cdn.jsdelivr.net" in html:
                    html = _CDN_LINK.sub("", html)
                html = self.preload_plotly_module(html)
                self.write(html)
                self.flush()
        finally:
            if admitted:
                app.admitting -= 1


    def preload_plotly_module(self, html: str) -> str:
        """The page's head with a ``modulepreload`` link to plotly's widget module: the browser
        fetches and compiles it (from its cache after the first visit) while Voila's own scripts
        load and the kernel connects, instead of after the widgets' state has arrived."""
        if "</head>" not in html:
            return html
        url = self.settings["voila"].plotly_module_url()
        return html.replace("</head>", f'<link rel="modulepreload" href="{url}">\n</head>', 1)


class StatusHandler(JupyterHandler):
    """``GET /delaylab/status``: the server's kernels as JSON."""

    def get(self):
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-cache, no-store, must-revalidate")
        self.finish(json.dumps(self.settings["voila"].status()))

    def check_xsrf_cookie(self):  # a GET: nothing to protect
        return


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


class DashboardServer(Voila):
    """Voila serving delaylab's notebooks (see the module's docstring)."""

    max_kernels = Int(0, config=True, help="Visitors' kernels at once (0: no cap); beyond it a 503 'busy' page.")
    busy_retry_seconds = Int(30, config=True, help="Retry-After of the busy page, in seconds.")

    def initialize(self, argv=None):
        super().initialize(argv)
        self.voila_configuration.kernel_spec_manager_class = DashboardKernelSpecManager
        if self.voila_configuration.multi_kernel_manager_class is AsyncMappingKernelManager:
            self.voila_configuration.multi_kernel_manager_class = DashboardKernelManager
        self.admitting = 0  # pages admitted whose kernel is not known yet

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
        return set(self.kernel_manager.list_kernel_ids()) - self.pooled_kernels()

    def load(self) -> int:
        """Visitors' kernels running, plus pages admitted whose kernel is starting."""
        return len(self.visitor_kernels()) + self.admitting

    def handed_out(self, kernel_id: str) -> None:
        """A kernel was given to a page: it counts as active now (a preheated kernel may have
        waited in the pool for long: the culler must not take it while its page loads)."""
        if hasattr(self.kernel_manager, "awaiting_page"):
            self.kernel_manager.awaiting_page[kernel_id] = _now()
        try:
            kernel = self.kernel_manager.get_kernel(kernel_id)
        except KeyError:
            return
        kernel.last_activity = _now()

    def status(self) -> dict:
        return {"kernels": len(self.kernel_manager.list_kernel_ids()), "pooled": len(self.pooled_kernels()),
                "pool_ready": self.ready_pool_kernels(),
                "pool_starting": self.starting_pool_kernels(), "visitors": len(self.visitor_kernels()),
                "admitting": self.admitting, "max_kernels": self.max_kernels}

    # ------------------------------------------------------------------ handlers
    def init_handlers(self):
        handlers = []
        for spec in super().init_handlers():
            if len(spec) >= 2 and spec[1] is TornadoVoilaHandler:
                spec = (spec[0], DashboardPageHandler, *spec[2:])
            handlers.append(spec)
        handlers.insert(0, (self.server_url.rstrip("/") + "/delaylab/status", StatusHandler))
        handlers.insert(0, self.plotly_module_handler())
        return handlers

    # ------------------------------------------------------------------ plotly's module, static
    def init_settings(self):
        settings = super().init_settings()  # creates the kernel spec manager: the kernels get the URL
        if isinstance(self.kernel_spec_manager, DashboardKernelSpecManager):
            self.kernel_spec_manager.plotly_module_url = self.plotly_module_url()
        return settings

    def plotly_module_url(self) -> str:
        """Where a page finds plotly's widget module (under the client's ``base_url``)."""
        from delaylab.viz.widget import plotly_module_name

        return url_path_join(self.base_url, "delaylab/static", plotly_module_name())

    def plotly_module_handler(self) -> tuple:
        from delaylab.viz.widget import plotly_module, plotly_module_name

        return (url_path_join(self.server_url, r"/delaylab/static/(plotly-widget\.[0-9a-f]+\.js)"),
                PlotlyModuleHandler, {"module": StaticModule(plotly_module_name(), plotly_module())})


#: ``--public``: what a server open to anyone adds to voila.json's settings (an option given on
#: the command line too, e.g. ``--DashboardServer.max_kernels=20``, replaces its entry here)
PUBLIC = {
    "Voila.ip": "0.0.0.0",
    "DashboardServer.max_kernels": 10,  # 10 visitors' kernels at once; the 11th: a "busy" page
    "DashboardKernelSpecManager.memory_mb": 3072,  # address space per kernel (RLIMIT_AS)
    "MappingKernelManager.cull_connected": True,  # an open but idle tab loses its kernel...
    "MappingKernelManager.cull_idle_timeout": 900,  # ...after 15 minutes without a slider move
    "MappingKernelManager.cull_interval": 10,
    "DashboardKernelManager.cull_unconnected_timeout": 45,  # a closed tab's kernel: 45 s
    "VoilaConfiguration.show_tracebacks": False,
    "VoilaConfiguration.strip_sources": True,
}


def command_line(argv) -> list:
    """Voila's command line for ``argv``, with ``--public`` expanded into :data:`PUBLIC`."""
    argv = list(argv)
    if "--public" in argv:
        given = {a[2:].split("=", 1)[0] for a in argv if a.startswith("--") and "=" in a}
        i = argv.index("--public")
        argv[i:i + 1] = [f"--{k}={v}" for k, v in PUBLIC.items() if k not in given]
    return argv


#: Jupyter data folder holding the "delaylab" Voila template (the text shows while cells execute)
SHARE = Path(__file__).resolve().parent / "share"


def main(argv=None) -> None:
    """``python -m delaylab.serve NOTEBOOK_FOLDER [--public] [Voila options]``"""
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in [str(SHARE), os.environ.get("JUPYTER_PATH", "")] if p)
    argv = ["--VoilaConfiguration.template=delaylab", *command_line(sys.argv[1:] if argv is None else argv)]
    DashboardServer.launch_instance(argv)

