"""delaylab's Jupyter server extension: the dashboards of ``jupyter lab`` and ``jupyter server``
as :mod:`delaylab.serve` serves them.

On Binder or a JupyterHub, Voila runs inside the Jupyter server (``/voila/render/<path>``), not
as our own server, and reads only the ``VoilaConfiguration`` section of a ``voila.json``: the
executor's timeouts, the removal of the check cells tagged ``hide``, the formulas as MathML and
the kernels' settings came from nowhere, and each page fetched Font Awesome from a CDN. This
extension, enabled wherever delaylab is installed (the package's
``etc/jupyter/jupyter_server_config.d/delaylab.json``; for an editable install, see the
README), gives those pages the same settings:

* **Voila's settings** (:data:`SETTINGS`, the sections of the repository's ``voila.json`` that
  matter there): the ``delaylab`` template (the text shows while the cells run; no stylesheet
  from a CDN), no code and no tracebacks, cells tagged ``hide`` neither run nor shown, a cell's
  time limits, formulas converted to MathML on the server. The tag removal is scoped to Voila's
  exporter, so JupyterLab's own "export as HTML" keeps every cell. The culling of idle kernels
  in ``voila.json`` is not applied: the server's kernels are also the student's JupyterLab
  kernels (a JupyterHub culls idle servers itself).
* **Kernels on Unix sockets** (``KernelManager.transport = "ipc"``, JupyterLab's kernels too)
  where the socket paths fit in the server's runtime folder
  (:func:`delaylab.serve.transport.socket_paths_fit`).
* **plotly's widget module as a static file**, at ``<base_url>delaylab/static/plotly-widget.<hash>.js``
  (the one :mod:`delaylab.serve` serves: plotly.js's basic bundle when installed), prepared in a
  separate process when the server starts so that the server does not hold plotly in memory.
* **Saved notebooks keep what their widgets showed** (:mod:`delaylab.serve.saved`, a pre-save
  hook): reopened without a kernel, a student's notebook shows its answers and verdicts; and a
  notebook only opened is not marked modified (its ``language_info`` filled in on loading).
* **Voila's kernels run as the dashboards' kernels**: a kernel that Voila starts for a page
  (its environment says ``SERVER_SOFTWARE=voila/…``) is started by
  :class:`DashboardProvisioner` as ``python -m delaylab.serve.kernel`` (costly imports skipped,
  compiled kernels warmed up beside it) with the sweep cache, one BLAS/numba thread and the
  static module's URL (:class:`delaylab.serve.pools.DashboardKernelSpecManager`'s settings, which
  the server's config may change). JupyterLab's kernels start as before, with the sweep cache
  (``DELAYLAB_DEFAULT_CACHE``, unless the server's environment sets it, as a hub's does): a Run
  All reads the notebooks' figures at their defaults from the environment's install-time cache
  (Binder's postBuild fills it) or from the student's own, written by the Run All before.
* **A spare dashboard kernel** (:class:`delaylab.serve.spare.SpareDashboardKernel`): Voila has no
  pool of preheated kernels here, so each page would wait for its kernel's process to start, import
  ipykernel and load the compiled kernels. The server keeps one dashboard kernel that has done
  that, waiting for a page; a page's kernel is that spare, handed the page's connection file,
  environment (Voila's ``SERVER_*``, ``QUERY_STRING``, ``VOILA_*``) and folder, and a new spare
  starts behind it. A page whose kernel would start with another command or environment, or that
  finds no spare (a second page right after the first, before the next spare exists), starts its
  kernel as before. The spare is stopped with the server's kernels, and exits by itself when the
  server is killed. The spare also imports what every dashboard notebook's first cell under the
  server's root imports (plotly, ipywidgets, delaylab's figures: :mod:`delaylab.serve.preimport`),
  a page whose notebook imports less starting its kernel as before.
  ``c.SpareDashboardKernel.enabled = False`` turns it off (it holds one idle kernel's memory per
  running server).
* **A dashboard's kernel whose page is gone is stopped** (:class:`DashboardCuller`), as
  :mod:`delaylab.serve` stops it: a page that closed sends Voila's shutdown request, but a
  crashed or killed tab, or a lost network, sends nothing, and a hub culls only idle servers. A
  kernel of a Voila page with no page connected is stopped after ``cull_unconnected_timeout``
  (45 s) of idleness, or ``page_load_grace`` (180 s) after its start if its page never
  connected: the grace of :class:`delaylab.serve.pools.DashboardKernelManager`. Only the kernels
  this extension started for Voila's pages are looked at: the student's JupyterLab kernels are
  never touched.

A setting given in the server's own configuration (a config file, the command line) is never
replaced: these are defaults.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import subprocess
import sys
import threading
import time
import warnings
from functools import lru_cache
from pathlib import Path

from jupyter_client.provisioning import LocalProvisioner
from jupyter_core.utils import ensure_async
from traitlets import Int, default
from traitlets.config import Config, LoggingConfigurable

from . import documents, voila_patches
from .compat import voila_problem
from .spare import SpareDashboardKernel
from .transport import socket_paths_fit

# (delaylab.serve.app, which imports Voila, is imported when the extension loads, not when the
# server finds it: Voila, once imported, shows traitlets' deprecation warnings, and the server
# imports other extensions after this one that would then print some)

#: Jupyter data folder holding the "delaylab" Voila template (delaylab.serve.cli.SHARE)
SHARE = Path(__file__).resolve().parent / "share"

#: what a Voila page needs, as in the repository's voila.json (tests/test_extension.py keeps them
#: equal); ``TagRemovePreprocessor`` nested under ``VoilaExporter``: for Voila's pages only
SETTINGS = {
    "VoilaConfiguration": {
        "template": "delaylab",
        "show_tracebacks": False,
        "strip_sources": True,
        "file_allowlist": [r".*\.(png|jpg|gif|svg|csv)"],
        "extension_denylist": ["jupyterlab-plotly", "jupyterlab-rise", "@jupyterlab/mathjax3-extension"],
    },
    "VoilaExecutor": {"timeout": 300, "skip_cells_with_tag": "hide", "iopub_timeout": 60},
    "VoilaExporter": {
        "preprocessors": ["delaylab.serve.mathml.MathMLPreprocessor"],
        "TagRemovePreprocessor": {"enabled": True, "remove_cell_tags": ["hide"]},
    },
}

#: the name of :class:`DashboardProvisioner`'s entry point (pyproject.toml)
PROVISIONER = "delaylab-dashboards"

#: a warning of jupyter_server that no configuration causes: notebook_shim reads every attribute
#: of the server, the deprecated ``ServerApp.token`` among them, and Voila shows traitlets'
#: deprecation warnings (it enables them when imported)
SPURIOUS = "ServerApp.token config is deprecated"


def _jupyter_server_extension_points():
    return [{"module": "delaylab.serve.extension"}]


def fill(config: Config, defaults: dict) -> list:
    """Put each of ``defaults`` (``{section: {option or nested section: value}}``) into
    ``config`` unless ``config`` has it already; the options set, as ``Section.option``."""
    added = []
    for section, values in defaults.items():
        for key, value in values.items():
            if isinstance(value, dict) and key[:1].isupper():  # a section nested in this one
                added += [f"{section}.{name}" for name in fill(config[section], {key: value})]
            elif key not in config[section]:
                config[section][key] = value
                added.append(f"{section}.{key}")
    return added


def _link_jupyter_server_extension(serverapp) -> None:
    """Before the server builds its kernel manager and before Voila reads its settings (Voila's
    extension loads after this link step): our defaults into the server's configuration, our
    template on Jupyter's data path."""
    warnings.filterwarnings("ignore", message=SPURIOUS, category=DeprecationWarning)
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in [str(SHARE), os.environ.get("JUPYTER_PATH", "")] if p)
    config = serverapp.config
    added = fill(config, SETTINGS)
    if "transport" not in config.KernelManager:
        if socket_paths_fit(serverapp.runtime_dir):
            config.KernelManager.transport = "ipc"
            added.append("KernelManager.transport")
        else:
            serverapp.log.warning("delaylab: kernels on TCP ports: Unix sockets under %s would have longer paths than "
                                  "allowed (set JUPYTER_RUNTIME_DIR to a short folder)", serverapp.runtime_dir)
    if "default_provisioner_name" not in config.KernelProvisionerFactory and \
            not os.environ.get("JUPYTER_DEFAULT_PROVISIONER_NAME"):
        config.KernelProvisionerFactory.default_provisioner_name = PROVISIONER
        added.append("KernelProvisionerFactory.default_provisioner_name")
    serverapp.log.info("delaylab: dashboards as delaylab.serve serves them (%s)", ", ".join(added) or "all set already")
    problem = voila_problem()
    if problem:
        serverapp.log.error("delaylab: %s", problem)


def _load_jupyter_server_extension(serverapp) -> None:
    """The static module's handler, and the environment of Voila's kernels."""
    from jupyter_server.utils import url_path_join

    from .app import DashboardKernelSpecManager

    module = PlotlyModule(serverapp.log)
    module.prepare()
    pattern = url_path_join(serverapp.base_url, r"/delaylab/static/(plotly-widget\.[0-9a-f]+\.js)")
    # before Voila's render handler: extensions load in the order of their names ("delaylab" first)
    serverapp.web_app.add_handlers(".*$", [(pattern, plotly_module_handler(), {"module": module}),
                                           documents.extension_handler(serverapp.base_url, serverapp.root_dir)])
    DashboardProvisioner.module = module
    DashboardProvisioner.static_url = url_path_join(serverapp.base_url, "delaylab/static")
    DashboardProvisioner.kernel_settings = DashboardKernelSpecManager(parent=serverapp)
    DashboardProvisioner.culler = DashboardCuller(serverapp.kernel_manager, parent=serverapp)
    DashboardProvisioner.spares = spares = SpareDashboardKernel(DashboardProvisioner.spare_environment,
                                                                cwd=serverapp.root_dir, parent=serverapp)
    stop_spare_with_the_kernels(serverapp.kernel_manager, spares)
    spares.refill()
    # a notebook saved from JupyterLab keeps what its widgets showed, as ordinary output
    # (and a notebook only opened is not marked modified when its kernel starts)
    from .saved import fill_language_info_on_load, pre_save_hook

    serverapp.contents_manager.register_pre_save_hook(pre_save_hook)
    fill_language_info_on_load(serverapp.contents_manager)


class PlotlyModule:
    """plotly's widget module as the dashboards serve it (:func:`delaylab.viz.widget.dashboard_module`),
    prepared by ``python -m delaylab.serve.extension`` in a process of its own (imported into the
    server, plotly would stay in its memory for good) in a thread: ``wait()`` gives the
    :class:`delaylab.serve.handlers.StaticModule`, or None if it could not be made (the kernels then
    send it to each page themselves, as in JupyterLab)."""

    def __init__(self, log):
        self.log, self.static, self._done = log, None, threading.Event()

    def prepare(self) -> None:
        threading.Thread(target=self._make, name="delaylab-plotly-module", daemon=True).start()

    def _make(self) -> None:
        from .app import StaticModule

        try:
            out = subprocess.run([sys.executable, "-m", "delaylab.serve.extension"], capture_output=True,
                                 timeout=300, check=True).stdout
            name, content = out.split(b"\n", 1)
            self.static = StaticModule(name.decode(), content)
            self.log.info("delaylab: plotly's widget module at delaylab/static/%s (%.1f MB)", self.static.name,
                          len(content) / 1e6)
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            detail = getattr(exc, "stderr", b"") or b""
            self.log.warning("delaylab: plotly's widget module not served (%s %s): each page gets it from its "
                             "kernel", exc, detail.decode(errors="replace")[-500:])
        finally:
            self._done.set()

    def wait(self, timeout: float = 120):
        self._done.wait(timeout)
        return self.static


@lru_cache(maxsize=1)
def plotly_module_handler():
    """:class:`delaylab.serve.handlers.PlotlyModuleHandler` inside a Jupyter server: plotly's public
    code, served without a login like Jupyter's own static files, once it is prepared."""
    import tornado.web

    from .app import PlotlyModuleHandler

    try:  # jupyter_server >= 2.13 checks that every handler says whether it needs a login
        from jupyter_server.auth.decorator import allow_unauthenticated
    except ImportError:  # older: nothing to say
        def allow_unauthenticated(method):
            return method

    class PlotlyModuleFileHandler(PlotlyModuleHandler):
        def initialize(self, module: PlotlyModule):
            self.pending = module

        @allow_unauthenticated
        async def get(self, name):
            self.module = await asyncio.get_running_loop().run_in_executor(None, self.pending.wait)
            if self.module is None:
                raise tornado.web.HTTPError(404)
            return super().get(name)

    return PlotlyModuleFileHandler


def _pools_default(name: str):
    """The default of ``name`` in :class:`delaylab.serve.pools.DashboardKernelManager`: one grace
    for the dashboards, whichever server runs them."""
    from .pools import DashboardKernelManager

    return getattr(DashboardKernelManager, name).default_value


class DashboardCuller(LoggingConfigurable):
    """Stops the kernels of Voila's pages whose page is gone (see the module's docstring): each
    kernel :class:`DashboardProvisioner` starts for a page is recorded (:meth:`add`), and every
    ``cull_interval`` s a kernel with no page connected, not busy, is stopped once it has been
    idle for ``cull_unconnected_timeout`` s since a page was last connected to it (a page's
    connecting and leaving are heard as they happen: :meth:`watch`), or, if no page ever
    connected, ``page_load_grace`` s after its start. Configurable in the Jupyter
    server's configuration (``--DashboardCuller.cull_unconnected_timeout=N``)."""

    cull_unconnected_timeout = Int(config=True, help="Seconds of idleness after which a dashboard's kernel with no "
                                                     "page connected is stopped.")
    page_load_grace = Int(config=True, help="Seconds after its start during which a dashboard's kernel whose page "
                                            "has not connected yet is never stopped (a page loading).")
    cull_interval = Int(10, config=True, help="Seconds between two looks at the dashboards' kernels.")

    @default("cull_unconnected_timeout")
    def _default_timeout(self):
        return _pools_default("cull_unconnected_timeout")

    @default("page_load_grace")
    def _default_grace(self):
        return _pools_default("page_load_grace")

    def __init__(self, manager, clock=None, **kwargs):
        super().__init__(**kwargs)
        self.manager = manager
        self.clock = clock or time.monotonic
        self.started: dict = {}  # kernel id -> when it was started for a page
        self.connected: dict = {}  # kernel id -> when a page was last seen connected to it
        self._callback = None
        self.watch()

    def watch(self) -> None:
        """Hear of every page connecting to or leaving a kernel (jupyter_server's
        ``notify_connect`` and ``notify_disconnect``, wrapped on this server's manager): a page
        killed seconds after it connected, between two looks, still counts as connected."""
        for name in ("notify_connect", "notify_disconnect"):
            original = getattr(self.manager, name, None)
            if original is None:
                continue

            def heard(kernel_id, *args, _original=original, **kwargs):
                if kernel_id in self.started:
                    self.connected[kernel_id] = self.clock()
                return _original(kernel_id, *args, **kwargs)

            setattr(self.manager, name, heard)

    def add(self, kernel_id: str) -> None:
        """A kernel started for a Voila page (from then on it is looked after); starts the
        periodic look at the first one (in the server's event loop)."""
        self.started[kernel_id] = self.clock()
        if self._callback is None and self.cull_interval > 0:
            from tornado.ioloop import PeriodicCallback

            self._callback = PeriodicCallback(self.cull, 1000 * self.cull_interval)
            self._callback.start()

    def stop(self) -> None:
        if self._callback is not None:
            self._callback.stop()
            self._callback = None

    def gone(self, kernel_id: str) -> str | None:
        """Why the kernel ``kernel_id`` is to be stopped now, or None."""
        kernel = voila_patches.kernels(self.manager).get(kernel_id)
        if kernel is None or voila_patches.pending(self.manager, kernel_id):
            return None  # stopped, starting or stopping
        now = self.clock()
        if voila_patches.connections(self.manager).get(kernel_id):
            self.connected[kernel_id] = now
            return None
        if getattr(kernel, "execution_state", None) == "busy":
            return None  # running its notebook for a page still loading
        seen = self.connected.get(kernel_id)
        if seen is None:
            waited = now - self.started[kernel_id]
            return f"its page never connected in {waited:.0f} s" if waited > self.page_load_grace else None
        activity = getattr(kernel, "last_activity", None)
        idle = now - seen
        if activity is not None:  # jupyter_server's clock (UTC): how long ago, on ours
            from datetime import datetime, timezone

            idle = min(idle, (datetime.now(timezone.utc) - activity).total_seconds())
        return f"no page connected for {idle:.0f} s" if idle > self.cull_unconnected_timeout else None

    async def cull(self) -> list:
        """One look: stop the kernels whose page is gone; their ids."""
        stopped = []
        for kernel_id in list(self.started):
            if kernel_id not in voila_patches.kernels(self.manager):
                self.started.pop(kernel_id, None)
                self.connected.pop(kernel_id, None)
                continue
            why = self.gone(kernel_id)
            if why is None:
                continue
            self.log.warning("delaylab: stopping dashboard kernel %s: %s", kernel_id, why)
            self.started.pop(kernel_id, None)
            self.connected.pop(kernel_id, None)
            try:
                await ensure_async(self.manager.shutdown_kernel(kernel_id))
                stopped.append(kernel_id)
            except Exception as exc:  # stopped meanwhile: nothing left to do
                self.log.info("delaylab: dashboard kernel %s already gone (%s)", kernel_id, exc)
        return stopped


class DashboardProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner (the default), except for the kernels Voila starts for
    its pages, which start as the dashboards' kernels (see the module's docstring), or are the
    server's spare kernel (:class:`delaylab.serve.spare.SpareDashboardKernel`) when it fits. Used
    for every kernel of a server with this extension (``KernelProvisionerFactory.default_provisioner_name``)."""

    module: PlotlyModule | None = None
    static_url = ""
    kernel_settings = None  # DashboardKernelSpecManager: the kernels' environment
    culler: DashboardCuller | None = None
    spares: SpareDashboardKernel | None = None
    #: whether this provisioner's kernel is a Voila page's (set by pre_launch)
    dashboard = False

    async def pre_launch(self, **kwargs):
        kwargs = await super().pre_launch(**kwargs)
        env = kwargs.get("env") or {}
        self.dashboard = is_voila_page(env)
        if not self.dashboard:
            kwargs["env"] = {**env, **self.lab_env(env)}
            return kwargs
        if type(self).culler is not None:
            type(self).culler.add(self.kernel_id)
        kwargs["cmd"] = dashboard_command(kwargs["cmd"])
        extra = await self.dashboard_env()
        kwargs["env"] = {**env, **extra}
        return kwargs

    def lab_env(self, env: dict) -> dict:
        """A JupyterLab kernel's additions to its environment: the sweep cache
        (``DELAYLAB_DEFAULT_CACHE``, as a hub sets it), so that a Run All reads the notebooks'
        figures at their defaults from the environment's install-time cache and from the
        student's own (a second Run All computes nothing twice), unless the server's environment
        chose a cache, or none (an empty value)."""
        settings = type(self).kernel_settings
        if settings is None or "DELAYLAB_DEFAULT_CACHE" in env or not settings.cache_folder:
            return {}
        return {"DELAYLAB_DEFAULT_CACHE": settings.cache_folder}

    async def launch_kernel(self, cmd, **kwargs):
        """A Voila page's kernel is the spare when there is one that fits (its process then the
        one this provisioner polls, signals and kills); any other kernel starts as usual."""
        spares = type(self).spares
        if self.dashboard and spares is not None and spares.enabled and set(kwargs) <= HANDOVER_KWARGS:
            env = dict(kwargs.get("env") or os.environ)
            if not kwargs.get("independent"):  # as jupyter_client's launch_kernel
                env["JPY_PARENT_PID"] = str(os.getpid())
            await asyncio.get_running_loop().run_in_executor(None, spares.wait_started, SPARE_START_WAIT)
            # (in a thread: it reads the page's notebook, for what its first cell imports)
            process = await asyncio.get_running_loop().run_in_executor(None, spares.take, cmd, env, kwargs.get("cwd"))
            if process is not None:
                self.process, self.pid = process, process.pid
                try:
                    self.pgid = os.getpgid(process.pid)
                except OSError:
                    self.pgid = None
                self.cwd = kwargs.get("cwd", Path.cwd())
                return self.connection_info
        return await super().launch_kernel(cmd, **kwargs)

    async def dashboard_env(self) -> dict:
        return await asyncio.get_running_loop().run_in_executor(None, type(self).spare_environment, False)

    @classmethod
    def spare_environment(cls, whole: bool = True) -> dict:
        """The dashboards' settings for a kernel's environment (waits for plotly's module);
        ``whole``: on top of this server's environment, as a page's kernel gets it (the spare's)."""
        base = dict(os.environ) if whole else {}
        if cls.kernel_settings is None:  # the extension is not loaded in this server
            return base
        static = cls.module.wait() if cls.module is not None else None
        cls.kernel_settings.plotly_module_url = f"{cls.static_url}/{static.name}" if static else ""
        return {**base, **cls.kernel_settings.kernel_env()}


#: seconds a page's kernel waits for a spare being started at that moment (its process being
#: created: it waited for plotly's module, as the page did) before it starts one of its own
SPARE_START_WAIT = 10.0

#: what jupyter_client may pass to a provisioner's launch_kernel that a spare's handover honours
HANDOVER_KWARGS = frozenset({"env", "cwd", "kernel_id", "extra_arguments", "independent"})


def stop_spare_with_the_kernels(manager, spares: SpareDashboardKernel) -> None:
    """Stop ``spares``' spare when the server stops its kernels (its ``shutdown_all``, at its
    exit) and at the interpreter's exit; a server killed without a word closes the spare's
    standard input, on which it then exits (:func:`delaylab.serve.kernel.take_handover`)."""
    original = manager.shutdown_all

    async def shutdown_all(*args, **kwargs):
        await asyncio.get_running_loop().run_in_executor(None, spares.close)
        return await ensure_async(original(*args, **kwargs))

    manager.shutdown_all = shutdown_all
    atexit.register(spares.close)


def is_voila_page(env: dict) -> bool:
    """Whether a kernel's environment is that of a kernel Voila starts for a page."""
    return str(env.get("SERVER_SOFTWARE", "")).startswith("voila/")


def dashboard_command(cmd: list) -> list:
    """``cmd`` with ``-m ipykernel_launcher`` replaced by ``-m delaylab.serve.kernel`` when the
    kernel runs this very Python (where delaylab is installed); otherwise as it is."""
    cmd = list(cmd)
    if (cmd and os.path.normpath(cmd[0]) == os.path.normpath(sys.executable) and "ipykernel_launcher" in cmd
            and cmd[cmd.index("ipykernel_launcher") - 1] == "-m"):
        cmd[cmd.index("ipykernel_launcher")] = "delaylab.serve.kernel"
    return cmd


def main() -> None:
    """``python -m delaylab.serve.extension``: the module's file name, a newline, its content."""
    from delaylab.viz.widget import dashboard_module

    name, content, _ = dashboard_module()
    sys.stdout.buffer.write(name.encode() + b"\n" + content)


if __name__ == "__main__":
    main()
