"""The dashboards' HTTP handlers and the pages of their own the server sends.

* :class:`DashboardPageHandler`: Voila's page handler, plus the ``_xsrf`` cookie a closing page
  sends back with its shutdown request, the cap on visitors' kernels and the per-client limits
  (the "busy" page, :data:`BUSY_PAGE`), a record of the kernel handed to each page, and a page
  whose kernel died told so (:data:`KERNEL_LOST_HTML`) instead of computing for good.
* :class:`StatusHandler`: ``GET /delaylab/status``, the server's kernels as JSON.
* :class:`PresenterHandler`: ``GET /delaylab/presenter?key=KEY``, the lecturer's pass
  (:data:`PRESENTER_COOKIE`; a wrong key: :data:`FORBIDDEN_PAGE`).
* :class:`PlotlyModuleHandler` and :class:`StaticModule`: plotly's widget module as a static,
  content-hashed, gzipped file.

The handlers read the server's state through ``self.settings["voila"]``, the
:class:`delaylab.serve.app.DashboardServer`.
"""

from __future__ import annotations

import asyncio
import gzip
import hmac
import json

import tornado.web
from jupyter_core.utils import ensure_async
from jupyter_server.base.handlers import JupyterHandler
from voila.tornado.handler import TornadoVoilaHandler

from . import guards, voila_patches

#: the page a visitor beyond the cap or the per-client limits gets (HTTP 503 or 429, ``Retry-After``)
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

#: what a page shows when its kernel died before its notebook ran (its cells never come)
KERNEL_LOST_HTML = """
<div role="alert" style="margin:1em 0;padding:0.8em 1em;border-left:4px solid #D55E00;background:#fff4ec">
<strong>This dashboard could not start its computations.</strong> Please reload the page in a
moment. If it happens again, the server may be short of memory: try later, or run the workbook
on your own computer (<code>python3 tasks.py lab</code>, see the repository's README).</div>
<script>(function () { var el = document.getElementById("loading"); if (el) { el.style.display = "none"; } })();</script>
"""


class DashboardPageHandler(TornadoVoilaHandler):
    """Voila's page handler, plus the xsrf cookie, the cap on visitors' kernels, and a record of
    the kernel handed to each page."""

    @tornado.web.authenticated
    async def get(self, path=None):
        _ = self.xsrf_token  # read for its side effect: sets the _xsrf cookie the page's shutdown request sends back
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
        load = app.load() if refusal is None and app.max_kernels and not presenter else 0
        if load >= app.max_kernels > 0:
            refusal = (503, app.busy_retry_seconds, f"busy: {load} visitors' kernels, cap {app.max_kernels}",
                       f"{load} visitors are using the live dashboards right now, the most this server "
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
                    found = voila_patches.PAGE_KERNEL_ID.search(head)
                    if found:  # this page's kernel: counted as a visitor's from now on
                        kernel_id = found.group(1)
                        app.handed_out(kernel_id, presenter=presenter, client=client)
                        app.admitting -= counted
                        app.admissions.pop(task, None)
                        admitted, head = False, ""
                lost = kernel_id or self.page_kernel()
                if lost and voila_patches.HEARTBEAT in html and lost not in self.kernel_manager:
                    # Voila waits for the cells' outputs for good once the kernel has died
                    # (a failed start, after jupyter_client's five restarts; a memory cap too
                    # low): say so, instead of a "computing" bar that never ends
                    app.log.warning("the kernel %s of a page of %s stopped before its notebook ran: "
                                    "the visitor is told to reload", lost, path)
                    self.write(KERNEL_LOST_HTML)
                    await pieces.aclose()
                    break
                if "cdn.jsdelivr.net" in html:
                    html = voila_patches.CDN_FONT_LINK.sub("", html)
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
        evaluation (plotly's own top-level code, a large part of the page's main-thread work) in the
        page's first idle moment (``requestIdleCallback``: while the page waits for Voila's
        scripts or for its kernel), not after the widgets' state. The figures' loader then finds
        it evaluated: the same URL is the same module (:mod:`delaylab.viz.widget`). Only with
        ``--DashboardServer.early_plotly=True``: it measured no faster (benchmarks/RESULTS.md)."""
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

    Through the kernel, the module reached each page as a websocket message of several megabytes
    and was evaluated from a blob URL, on every visit. As a file with a content-hashed name it is
    sent gzipped and kept by the browser for a year without asking again
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

    def compute_etag(self):  # the name is the version: no need to hash megabytes per request
        return None


class StaticModule:
    """A file's name, its content and the content gzipped (a noticeable CPU cost for plotly's
    module: paid once, when the server starts, not while a visitor waits; benchmarks/RESULTS.md)."""

    def __init__(self, name: str, content: bytes):
        self.name, self.content = name, content
        self.gzipped = gzip.compress(content, compresslevel=6, mtime=0)
