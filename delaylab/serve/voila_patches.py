"""Every place the dashboards' server patches, or reads the internals of, Voila, jupyter_server
and jupyter_client: what a Voila upgrade may break, in one module.

They are written for the releases that :mod:`delaylab.serve.compat` allows: the range declared
once in ``pyproject.toml``'s dependency on ``voila`` (``>=0.5.13,<0.6``), checked by
:func:`delaylab.serve.cli.main` (``check_voila()``) before the server starts, so that another
release stops the server with a message naming the range instead of breaking every page deep
in a page load. Before widening that range, read each entry below against the new release.

Patches (code of theirs replaced while the server runs):

1. :func:`keep_signal_handlers` replaces ``voila.execute.VoilaExecutor.async_setup_kernel``:
   nbclient's kernel set-up puts SIGINT and SIGTERM handlers of its own on the event loop and,
   when done, leaves SIGTERM at its default, so the next ``docker stop`` would kill the server
   without an orderly stop (its kernels and socket files left behind).
2. :func:`kernel_manager_mixin` swaps ``voila.app.voila_kernel_manager_factory`` while Voila
   builds its kernel manager (``Voila.init_settings``), so that the pool class Voila makes
   gets :class:`delaylab.serve.pools.PreheatedPools` mixed in (refills that wait for their
   turn); Voila has no option for the pool's class.
3. :class:`PreheatHook` overrides ``VoilaKernelManager._initialize`` (a preheated kernel's start
   and its notebook's execution), the one place a refill can wait for its turn.
4. :func:`bound_request_info_cache` replaces ``RequestInfoSocketHandler._cache`` (each
   preheated kernel's request details, kept by Voila for the server's life) with a bounded
   dict, and :func:`forget_request_info` removes a stopped kernel's entry.

Reads of private state (no public accessor exists):

5. :func:`pools`, :func:`started_pool_kernels`, :func:`notebook_execution`,
   :func:`rendered_kernel_id`: Voila's pools of preheated kernels (``VoilaKernelManager._pools``:
   notebook -> tasks whose result is a dict with ``kernel_id`` and the notebook's execution
   ``task``) and the tuple ``get_rendered_notebook`` returns.
6. :func:`kernels`, :func:`connections`, :func:`pending`: jupyter_server's
   ``MappingKernelManager._kernels`` and ``_kernel_connections`` (the running kernels, and the
   websockets open to each) and jupyter_client's ``MultiKernelManager._pending_kernels``
   (kernels starting or stopping), which the culler and the refills read.
7. :func:`clean_up_kernel`: jupyter_client's ``KernelManager.cleanup_connection_file``,
   ``cleanup_ipc_files`` and ``_close_control_socket`` for a kernel jupyter_server gave up on.
8. What the page handler (:class:`delaylab.serve.handlers.DashboardPageHandler`, which replaces
   ``TornadoVoilaHandler.get`` and iterates its ``get_generator``) reads in the HTML of Voila's
   lab template: :data:`PAGE_KERNEL_ID`, :data:`HEARTBEAT`, :data:`CDN_FONT_LINK`.

Elsewhere, Voila's classes are subclassed through their public methods only:
:class:`~delaylab.serve.pools.DashboardKernelManager` (jupyter_server's kernel manager),
:mod:`delaylab.serve.guards` (the kernel websocket and template static file handlers) and
:class:`~delaylab.serve.app.DashboardServer` (Voila's application).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
import signal

#: the page's config script names its kernel: ``"kernelId": "<uuid>"``
PAGE_KERNEL_ID = re.compile(r'"kernelId":\s*"([0-9a-f-]{36})"')
#: Voila's keep-alive while a page's cells execute (a script calling this, every 10 s)
HEARTBEAT = "window.voila_heartbeat()"
#: Voila's lab template links Font Awesome from a CDN although its own bundle (voila-style.js)
#: has it: a stylesheet from a host the machine cannot reach holds the page up (the scripts after
#: it wait for it), so the links are dropped from every page
CDN_FONT_LINK = re.compile(r'<link rel="stylesheet" href="https://cdn\.jsdelivr\.net/npm/@fortawesome/[^"]*" '
                           r'type="text/css" />')


# ---------------------------------------------------------------------------- 1. signal handlers
def keep_signal_handlers(handlers: dict) -> None:
    """Keep the server's own SIGINT and SIGTERM handlers (``handlers``: what the server set)
    while Voila executes a notebook in one go.

    Templates that execute the whole notebook before rendering (``?template=reveal``: the live
    slides) run nbclient's ``NotebookClient.async_setup_kernel``, which puts handlers of its own
    for both signals on the event loop and, when done, removes them, leaving SIGTERM at its
    default: the next SIGTERM (``docker stop``, a service manager, the tests' ``terminate``)
    would kill the server outright, with no orderly stop (its connection folder and sockets
    left in the temporary folder, its kernels stopping only when they notice their parent
    gone), and a SIGTERM during that page's execution would stop only that page's kernel.
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


# ------------------------------------------------------------------ 2. the kernel manager factory
@contextlib.contextmanager
def kernel_manager_mixin(mixin: type, base: type):
    """Within this block (around ``Voila.init_settings``), the pool class Voila builds around a
    kernel manager class derived from ``base`` gets ``mixin`` first among its bases; other kernel
    managers, and servers without preheated kernels, are as Voila makes them."""
    import voila.app as voila_app

    factory = voila_app.voila_kernel_manager_factory

    def with_mixin(base_class, preheat_kernel, *args, **kwargs):
        cls = factory(base_class, preheat_kernel, *args, **kwargs)
        if not preheat_kernel or not issubclass(base_class, base):
            return cls
        return type(cls)(f"Dashboard{cls.__name__}", (mixin, cls), {})

    voila_app.voila_kernel_manager_factory = with_mixin
    try:
        yield
    finally:
        voila_app.voila_kernel_manager_factory = factory


# ------------------------------------------------------------------ 3. a preheated kernel's start
class PreheatHook:
    """Mixed in before Voila's pool class: a preheated kernel's start and its notebook's execution
    (``VoilaKernelManager._initialize``) go through ``self.preheat(notebook_path, initialize)``,
    where ``initialize()`` is Voila's own and returns what Voila keeps in the pool (see
    :func:`notebook_execution`). A kernel restarted in place (a ``kernel_id`` given) is Voila's
    own business."""

    async def _initialize(self, notebook_path, kernel_id=None, **kwargs):
        initialize = functools.partial(super()._initialize, notebook_path, kernel_id, **kwargs)
        if kernel_id is not None:
            return await initialize()
        return await self.preheat(notebook_path, initialize)

    async def preheat(self, notebook_path, initialize):
        return await initialize()


# ------------------------------------------------------------------ 4. Voila's request-info cache
def bound_request_info_cache(bounded: type, limit: int) -> None:
    """Voila's record of each preheated kernel's page request (its query string and host, served
    at ``/voila/query/<kernel id>``) becomes ``bounded(limit, current record)``, a dict holding at
    most ``limit`` entries, unless it is one already."""
    from voila.request_info_handler import RequestInfoSocketHandler

    if not isinstance(RequestInfoSocketHandler._cache, bounded):
        RequestInfoSocketHandler._cache = bounded(limit, RequestInfoSocketHandler._cache)


def forget_request_info(kernel_id: str) -> None:
    """Drop Voila's record of the page request of the kernel ``kernel_id``."""
    from voila.request_info_handler import RequestInfoSocketHandler

    RequestInfoSocketHandler._cache.pop(kernel_id, None)


# ------------------------------------------------------------------ 5. Voila's pools
def pools(manager) -> dict:
    """Voila's pools of preheated kernels: notebook -> the pool's tasks ({} without pools)."""
    return getattr(manager, "_pools", {})


def started_pool_kernels(manager):
    """(kernel id, whether its notebook has executed) for each preheated kernel that has started
    (its task done, neither failed nor cancelled) in ``manager``'s pools."""
    for pool in pools(manager).values():
        yield from started_in(pool)


def started_in(pool):
    """(kernel id, whether its notebook has executed) for each started kernel of one pool's tasks."""
    for task in pool:
        if task.done() and not task.cancelled() and task.exception() is None:
            content = task.result()
            yield content["kernel_id"], notebook_execution(content).done()


def notebook_execution(content) -> asyncio.Future:
    """The execution of its notebook in a preheated kernel, from what Voila keeps in the pool."""
    return content["task"]


def rendered_kernel_id(rendered) -> str:
    """The kernel id in what ``VoilaKernelManager.get_rendered_notebook`` returns."""
    return rendered[2]


# ------------------------------------------------------------------ 6. kernel manager state
def kernels(manager) -> dict:
    """jupyter_server's running kernels: kernel id -> its kernel manager."""
    return manager._kernels


def connections(manager) -> dict:
    """jupyter_server's count of websockets (pages) connected to each kernel: kernel id -> count."""
    return manager._kernel_connections


def pending(manager, kernel_id: str) -> bool:
    """Whether jupyter_client is still starting or stopping the kernel ``kernel_id`` (it keeps a
    kernel among its pending ones until it has stopped)."""
    return kernel_id in manager._pending_kernels


# ------------------------------------------------------------------ 7. a given-up kernel's files
def clean_up_kernel(log, kernel_id: str, kernel) -> None:
    """Remove a kernel's connection file and Unix socket files and close its control socket
    (jupyter_server drops a kernel that died and could not be restarted without doing so; after
    an orderly stop they are gone already and this does nothing)."""
    for name in ("cleanup_connection_file", "cleanup_ipc_files", "_close_control_socket"):
        method = getattr(kernel, name, None)
        if method is not None:
            try:
                method()
            except Exception as exc:  # a file already gone, a socket already closed
                log.debug("cleaning up after kernel %s (%s): %s", kernel_id, name, exc)
