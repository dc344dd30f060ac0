"""delaylab's Jupyter server extension (delaylab/serve/extension.py): Voila's settings as the
dashboards' server has them, given as defaults to the Jupyter server's configuration; the kernels
of Voila's pages started as the dashboards' kernels. tests/test_browser_hub.py drives the pages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import nbformat
import pytest
from traitlets.config import Config

from delaylab.serve import extension
from test_browser import browser  # noqa: F401  (a fixture: chromium)

ROOT = Path(__file__).resolve().parents[1]
VOILA_JSON = json.loads((ROOT / "voila.json").read_text())


def test_the_extension_gives_voila_the_settings_of_voila_json():
    settings = extension.SETTINGS
    assert settings["VoilaExecutor"] == VOILA_JSON["VoilaExecutor"]
    exporter = dict(settings["VoilaExporter"])
    assert exporter.pop("TagRemovePreprocessor") == VOILA_JSON["TagRemovePreprocessor"]
    assert exporter == VOILA_JSON["VoilaExporter"]
    page = dict(settings["VoilaConfiguration"])
    assert page.pop("template") == "delaylab"  # what delaylab.serve's command line gives
    # every setting of voila.json's page section, except the pool of preheated kernels, which Voila
    # as a server extension does not have
    assert page == {k: v for k, v in VOILA_JSON["VoilaConfiguration"].items()
                    if k not in ("preheat_kernel", "default_pool_size")}


def test_fill_gives_defaults_and_keeps_what_the_configuration_says():
    config = Config({"VoilaExecutor": {"timeout": 10}, "VoilaExporter": {"TagRemovePreprocessor": {"enabled": False}}})
    added = extension.fill(config, extension.SETTINGS)
    assert config.VoilaExecutor.timeout == 10 and "VoilaExecutor.timeout" not in added
    assert config.VoilaExecutor.skip_cells_with_tag == "hide" and "VoilaExecutor.skip_cells_with_tag" in added
    assert config.VoilaExporter.TagRemovePreprocessor.enabled is False
    assert config.VoilaExporter.TagRemovePreprocessor.remove_cell_tags == ["hide"]
    assert "VoilaExporter.TagRemovePreprocessor.remove_cell_tags" in added
    assert extension.fill(config, extension.SETTINGS) == []  # a second time: nothing left to add


@pytest.fixture
def linked(monkeypatch):
    """A Jupyter server linked with the extension (its configuration as Voila and the kernel
    manager then read it), with a runtime folder in a short temporary folder; the process's
    warning filters and JUPYTER_PATH as they were afterwards."""
    import shutil
    import tempfile

    from jupyter_server.serverapp import ServerApp

    import voila  # noqa: F401  (as in a server: Voila, imported, shows traitlets' deprecation warnings)

    monkeypatch.setenv("JUPYTER_PATH", os.environ.get("JUPYTER_PATH", ""))
    monkeypatch.setattr(extension.DashboardProvisioner, "kernel_settings", None)

    short = tempfile.mkdtemp(prefix="dl", dir="/tmp")

    def link(config=None, runtime="rt"):
        app = ServerApp(config=Config(config or {}))
        app.runtime_dir = os.path.join(short, runtime)
        extension._link_jupyter_server_extension(app)
        return app

    with warnings.catch_warnings():
        yield link
    shutil.rmtree(short, ignore_errors=True)


@pytest.mark.skipif(os.name != "posix", reason="Unix sockets: POSIX only")
def test_linking_configures_voila_and_the_kernels_before_they_are_built(linked):
    from jupyter_server.services.kernels.kernelmanager import ServerKernelManager
    from nbconvert.exporters import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor
    from voila.configuration import VoilaConfiguration
    from voila.execute import VoilaExecutor
    from voila.exporter import VoilaExporter

    app = linked({"VoilaExecutor": {"timeout": 30}})
    executor = VoilaExecutor(nbformat.v4.new_notebook(), config=app.config)
    assert executor.timeout == 30 and executor.iopub_timeout == 60 and executor.skip_cells_with_tag == "hide"
    page = VoilaConfiguration(parent=app)
    assert page.template == "delaylab" and page.show_tracebacks is False and page.strip_sources is True
    assert str(extension.SHARE) in os.environ["JUPYTER_PATH"].split(os.pathsep)
    assert (extension.SHARE / "voila" / "templates" / "delaylab" / "index.html.j2").exists()
    # the check cells are removed from Voila's pages only: an HTML export from JupyterLab keeps them
    voila_exporter = VoilaExporter(config=app.config)
    assert TagRemovePreprocessor(parent=voila_exporter).remove_cell_tags == {"hide"}
    assert TagRemovePreprocessor(parent=HTMLExporter(config=app.config)).remove_cell_tags == set()
    assert "delaylab.serve.mathml.MathMLPreprocessor" in voila_exporter.preprocessors
    # every kernel of the server on Unix sockets, Voila's started by the extension's provisioner
    assert ServerKernelManager(config=app.config).transport == "ipc"
    assert app.config.KernelProvisionerFactory.default_provisioner_name == extension.PROVISIONER
    # notebook_shim reads the deprecated ServerApp.token of every server: no warning for it
    with warnings.catch_warnings(record=True) as seen:
        try:
            app.token  # noqa: B018  (warns, then needs the identity provider a started server has)
        except AttributeError:
            pass
    assert not [w for w in seen if "token" in str(w.message)]


@pytest.mark.skipif(os.name != "posix", reason="Unix sockets: POSIX only")
def test_linking_keeps_tcp_where_socket_paths_would_be_too_long_and_a_transport_given(linked):
    app = linked(runtime="r" * 80)
    assert "transport" not in app.config.KernelManager
    app = linked({"KernelManager": {"transport": "tcp"}, "KernelProvisionerFactory": {"default_provisioner_name": "x"}})
    assert app.config.KernelManager.transport == "tcp"
    assert app.config.KernelProvisionerFactory.default_provisioner_name == "x"


def test_voila_s_kernels_start_as_the_dashboards_kernels_and_jupyterlab_s_with_the_cache(monkeypatch, tmp_path):
    import asyncio

    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    from delaylab.serve.app import DashboardKernelSpecManager, StaticModule

    class Ready:
        def wait(self, timeout=None):
            return StaticModule("plotly-widget.0123456789abcdef0123.js", b"export default {}")

    monkeypatch.setattr(extension.DashboardProvisioner, "module", Ready())
    monkeypatch.setattr(extension.DashboardProvisioner, "static_url", "/user/ada/delaylab/static")
    monkeypatch.setattr(extension.DashboardProvisioner, "kernel_settings",
                        DashboardKernelSpecManager(cache_folder=str(tmp_path / "cache")))
    spec = KernelSpecManager().get_kernel_spec("python3")

    async def launch(env):
        km = AsyncKernelManager(kernel_name="python3", connection_file=str(tmp_path / "kernel.json"))
        provisioner = extension.DashboardProvisioner(kernel_id="k", kernel_spec=spec, parent=km)
        return await provisioner.pre_launch(env=env)

    voila_page = asyncio.run(launch({**os.environ, "SERVER_SOFTWARE": "voila/0.5.13", "VOILA_BASE_URL": "/user/ada/"}))
    assert voila_page["cmd"][:3] == [sys.executable, "-m", "delaylab.serve.kernel"]
    env = voila_page["env"]
    assert env["DELAYLAB_PLOTLY_MODULE_URL"] == "/user/ada/delaylab/static/plotly-widget.0123456789abcdef0123.js"
    assert env["DELAYLAB_DEFAULT_CACHE"] == str(tmp_path / "cache") and env["NUMBA_NUM_THREADS"] == "1"
    plain = {k: v for k, v in os.environ.items() if k != "DELAYLAB_DEFAULT_CACHE"}  # (the server's own: none)
    lab = asyncio.run(launch({**plain, "JPY_SESSION_NAME": "notebooks/01.ipynb"}))
    assert "ipykernel_launcher" in lab["cmd"] and "delaylab.serve.kernel" not in lab["cmd"]
    # JupyterLab's kernels: only the sweep cache (the notebooks' figures at their defaults, read
    # back by a Run All), unless the server's environment chose one or none
    assert "DELAYLAB_PLOTLY_MODULE_URL" not in lab["env"] and lab["env"]["DELAYLAB_DEFAULT_CACHE"] == str(tmp_path / "cache")
    for chosen in ("", "/srv/cache"):
        kept = asyncio.run(launch({**plain, "JPY_SESSION_NAME": "n.ipynb", "DELAYLAB_DEFAULT_CACHE": chosen}))
        assert kept["env"]["DELAYLAB_DEFAULT_CACHE"] == chosen
    # a kernel of another Python (where delaylab may not be installed) keeps its own launcher
    assert extension.dashboard_command(["/opt/other/python", "-m", "ipykernel_launcher", "-f", "c.json"]) == \
        ["/opt/other/python", "-m", "ipykernel_launcher", "-f", "c.json"]


def test_the_module_made_in_a_separate_process_is_the_dashboards_module():
    from delaylab.viz.widget import dashboard_module

    out = subprocess.run([sys.executable, "-m", "delaylab.serve.extension"], capture_output=True, check=True,
                         timeout=300).stdout
    name, content = out.split(b"\n", 1)
    expected_name, expected, _ = dashboard_module()
    assert name.decode() == expected_name and content == expected


# ============================================================================ the spare kernel, in a real server
PROBE_CELL = """import json, os, resource, sys
print("PROBE" + json.dumps({"pid": os.getpid(), "pgid": os.getpgid(0), "cwd": os.getcwd(), "argv": sys.argv,
      "env": {k: os.environ.get(k) for k in ("QUERY_STRING", "SERVER_SOFTWARE", "JPY_PARENT_PID",
              "DELAYLAB_DEFAULT_CACHE", "DELAYLAB_KERNEL_MEMORY_MB", "NUMBA_NUM_THREADS", "DELAYLAB_SPARE_READY_FD")},
      "rlimit_as": resource.getrlimit(resource.RLIMIT_AS)[0],
      "shell": type(get_ipython()).__name__}) + "PROBE")"""


def dashboard_kernels(server_pid: int) -> dict:
    """The server's dashboard kernel processes: {pid: whether it is a spare not handed over yet
    (its command line still says --spare: a handed-over spare's does too, see ``probe``)}."""
    from processes import children

    out = {}
    for pid in children(server_pid):
        try:
            cmd = (Path("/proc") / str(pid) / "cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if "delaylab.serve.kernel" in cmd:
            out[pid] = "--spare" in cmd
    return out


def alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(predicate, timeout=120, what=""):
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


class JupyterServer:
    """``jupyter server`` with delaylab's extension (the repository's jupyter-config) on a free
    loopback port, a notebook printing what its kernel is (:data:`PROBE_CELL`) in its root."""

    def __init__(self, tmp_path: Path, *args: str, notebooks=()):
        import shutil
        import socket
        import tempfile
        import time
        import urllib.request

        self.root = tmp_path / "home"
        (self.root / "course").mkdir(parents=True, exist_ok=True)
        for notebook in notebooks:  # in the root, as a course's notebooks folder served as the root
            shutil.copy(notebook, self.root / Path(notebook).name)
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Probe"),
                                             nbformat.v4.new_code_cell(PROBE_CELL)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, self.root / "course" / "probe.ipynb")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.runtime = tempfile.mkdtemp(prefix="dlx", dir="/tmp")  # short: Unix sockets
        env = {k: v for k, v in os.environ.items() if not k.startswith("DELAYLAB_")}
        env.update(JUPYTER_CONFIG_PATH=str(ROOT / "jupyter-config"), JUPYTER_RUNTIME_DIR=self.runtime,
                   DELAYLAB_CACHE=str(tmp_path / "cache"))
        self.log_path = tmp_path / f"server-{self.port}.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([sys.executable, "-m", "jupyter", "server", "--no-browser", f"--port={self.port}",
                                      "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--allow-root",
                                      f"--ServerApp.root_dir={self.root}", "--ServerApp.disable_check_xsrf=True", *args],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(self.url + "/api/status", timeout=2)
                break
            except Exception:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.close()
                    raise AssertionError(self.log_path.read_text()[-3000:]) from None
                time.sleep(0.2)

    def page(self, query: str = "") -> dict:
        """What the probe notebook's Voila page says its kernel is."""
        import re
        import urllib.request

        with urllib.request.urlopen(f"{self.url}/voila/render/course/probe.ipynb{query}", timeout=300) as r:
            html = r.read().decode()
        found = re.search(r"PROBE(\{.*?\})PROBE", html.replace("&#34;", '"').replace("&quot;", '"'))
        assert found, html[-2000:]
        return json.loads(found.group(1))

    def kernels(self) -> list:
        import urllib.request

        with urllib.request.urlopen(f"{self.url}/api/kernels", timeout=10) as r:
            return json.loads(r.read())

    def delete_kernel(self, kernel_id: str) -> None:
        import urllib.request

        urllib.request.urlopen(urllib.request.Request(f"{self.url}/api/kernels/{kernel_id}", method="DELETE"),
                               timeout=60).read()

    def close(self) -> None:
        import shutil

        from processes import stop

        stop(self.proc)
        self.log.close()
        shutil.rmtree(self.runtime, ignore_errors=True)


@pytest.mark.skipif(os.name != "posix", reason="process groups, /proc: POSIX only")
def test_a_voila_page_s_kernel_is_the_spare_handed_its_page_and_nothing_outlives_the_server(tmp_path):
    server = JupyterServer(tmp_path, "--DashboardKernelSpecManager.memory_mb=3000")
    try:
        spare = wait_until(lambda: [p for p, s in dashboard_kernels(server.proc.pid).items() if s], 120,
                           "a spare kernel started with the server")[0]
        seen = server.page("?seed=7")
        # the page's kernel is the spare, as a kernel started for this page would be
        assert seen["pid"] == spare and seen["pgid"] == spare  # its own process group (signals, kill)
        assert seen["cwd"] == str(server.root / "course")
        assert seen["argv"][1] == "-f" and seen["argv"][2].endswith(".json") and len(seen["argv"]) == 3
        env = seen["env"]
        assert env["QUERY_STRING"] == "seed=7" and env["SERVER_SOFTWARE"].startswith("voila/")
        assert env["JPY_PARENT_PID"] == str(server.proc.pid) and env["DELAYLAB_SPARE_READY_FD"] is None
        assert env["DELAYLAB_DEFAULT_CACHE"] == str(tmp_path / "cache") and env["NUMBA_NUM_THREADS"] == "1"
        assert env["DELAYLAB_KERNEL_MEMORY_MB"] == "3000" and seen["rlimit_as"] == 3000 * 2**20
        assert seen["shell"] == "ZMQInteractiveShell"
        # a new spare behind it, which the next page gets
        second = wait_until(lambda: [p for p, s in dashboard_kernels(server.proc.pid).items() if s and p != spare],
                            120, "a new spare")[0]
        again = server.page("?seed=8")
        assert again["pid"] == second and again["env"]["QUERY_STRING"] == "seed=8"
        # the server stops a spare's kernel as any kernel (the provisioner holds its process)
        kernels = server.kernels()
        assert len(kernels) == 2
        for kernel in kernels:
            server.delete_kernel(kernel["id"])
        wait_until(lambda: not alive(spare) and not alive(second), 30, "the pages' kernels stopped")
        third = wait_until(lambda: list(dashboard_kernels(server.proc.pid)), 120, "the third spare")
        assert "Traceback" not in server.log_path.read_text()
    finally:
        server.close()
    assert server.proc.returncode is not None
    assert not [p for p in third if alive(p)]  # the server's stop stopped its spare


HOLDER = """import logging, os, sys, time
from delaylab.serve.spare import SpareDashboardKernel
spares = SpareDashboardKernel(lambda: {**os.environ, "DELAYLAB_WARMUP": "0"}, log=logging.getLogger())
assert spares.wait_ready(120)
print(spares.spare.process.pid, flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(os.name != "posix", reason="process groups, /proc: POSIX only")
def test_a_spare_exits_when_its_server_is_killed_and_none_starts_when_disabled():
    import signal

    from traitlets.config import Config

    from delaylab.serve.spare import SpareDashboardKernel

    # a server killed without a word (SIGKILL: no clean-up ran): its spare exits by itself
    server = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True)
    try:
        spare = int(server.stdout.readline())
        assert alive(spare)
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        wait_until(lambda: not alive(spare), 60, "the spare gone with its server")
    finally:
        server.kill()
        server.wait(10)
        server.stdout.close()
    # switched off in the server's configuration: no spare is ever started
    off = SpareDashboardKernel(lambda: dict(os.environ), config=Config({"SpareDashboardKernel": {"enabled": False}}))
    assert not off.wait_ready(1.0) and off.spare is None
    assert off.take([sys.executable, "-m", "delaylab.serve.kernel", "-f", "k.json"], dict(os.environ), None) is None
    assert off.spare is None


def test_a_kernel_starts_as_before_when_the_spare_does_not_fit_and_jupyterlab_s_never_take_it(tmp_path):
    import asyncio
    import logging

    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    from delaylab.serve.spare import SpareDashboardKernel

    base = {**os.environ, "DELAYLAB_WARMUP": "0"}
    spares = SpareDashboardKernel(lambda: dict(base), cwd=str(tmp_path), log=logging.getLogger("test"))
    page = {**base, "SERVER_SOFTWARE": "voila/0.5.13", "QUERY_STRING": "a=1", "VOILA_BASE_URL": "/",
            "JPY_PARENT_PID": str(os.getpid())}
    cmd = [sys.executable, "-m", "delaylab.serve.kernel", "-f", str(tmp_path / "kernel.json")]
    try:
        assert spares.wait_ready(120)
        first = spares.spare.process
        # another environment than the spare's (a setting changed since it started): started as usual
        assert spares.take(cmd, {**page, "DELAYLAB_SOLUTIONS": "off"}, tmp_path) is None
        assert first.poll() is not None  # that spare stopped, a new one on its way
        assert spares.wait_ready(120)
        second = spares.spare.process
        assert second.pid != first.pid
        # another command (a kernel of another launcher): as usual, and the spare is replaced
        assert spares.take([sys.executable, "-m", "ipykernel_launcher", "-f", "k.json"], page, tmp_path) is None
        assert spares.wait_ready(120)
        # a spare that died: as usual
        third = spares.spare.process
        third.kill()
        third.wait(10)
        assert spares.take(cmd, page, tmp_path) is None
        assert spares.wait_ready(120)
        # a JupyterLab kernel (no Voila page) never takes it, through the provisioner
        fourth = spares.spare.process
        monkey = pytest.MonkeyPatch()
        monkey.setattr(extension.DashboardProvisioner, "spares", spares)
        monkey.setattr(extension.DashboardProvisioner, "kernel_settings", None)
        spec = KernelSpecManager().get_kernel_spec("python3")

        async def lab_kernel():
            km = AsyncKernelManager(kernel_name="python3", connection_file=str(tmp_path / "lab.json"))
            provisioner = extension.DashboardProvisioner(kernel_id="lab", kernel_spec=spec, parent=km)
            kwargs = await provisioner.pre_launch(env={**base, "JPY_SESSION_NAME": "01.ipynb"}, cwd=str(tmp_path))
            await provisioner.launch_kernel(kwargs.pop("cmd"), **kwargs)
            pid = provisioner.pid
            await provisioner.kill()
            await provisioner.wait()
            return pid

        try:
            assert asyncio.run(lab_kernel()) != fourth.pid
        finally:
            monkey.undo()
        assert spares.spare.process is fourth and fourth.poll() is None
        # the page's kernel: the spare, whatever the page's own variables say
        taken = spares.take(cmd, {**page, "QUERY_STRING": "b=2", "SERVER_PORT": "1"}, tmp_path)
        assert taken is fourth
        # it runs ipykernel with the handed arguments (a connection file that did not exist: written)
        wait_until(lambda: (tmp_path / "kernel.json").exists(), 60, "the kernel's connection file")
        assert taken.poll() is None
        taken.terminate()
        taken.wait(30)
    finally:
        spares.close()
    for process in (first, second, third, fourth):
        assert process.poll() is not None
    assert spares.spare is None


def test_the_first_page_waits_for_the_spare_being_started_rather_than_starting_its_own(tmp_path, monkeypatch):
    import asyncio
    import logging
    import threading

    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    from delaylab.serve.spare import SpareDashboardKernel

    module_ready = threading.Event()  # plotly's module, for which the first spare and page both wait

    def environment():
        module_ready.wait(60)
        return {**os.environ, "DELAYLAB_WARMUP": "0"}

    spares = SpareDashboardKernel(environment, cwd=str(tmp_path), log=logging.getLogger("test"))
    monkeypatch.setattr(extension.DashboardProvisioner, "spares", spares)
    monkeypatch.setattr(extension.DashboardProvisioner, "kernel_settings", None)
    monkeypatch.setattr(extension.DashboardProvisioner, "culler", None)
    spec = KernelSpecManager().get_kernel_spec("python3")

    async def page_kernel():
        km = AsyncKernelManager(kernel_name="python3", connection_file=str(tmp_path / "page.json"))
        provisioner = extension.DashboardProvisioner(kernel_id="page", kernel_spec=spec, parent=km)
        env = {**os.environ, "DELAYLAB_WARMUP": "0", "SERVER_SOFTWARE": "voila/0.5.13"}
        kwargs = await provisioner.pre_launch(env=env, cwd=str(tmp_path))
        threading.Timer(0.3, module_ready.set).start()  # the module ready while the page starts
        await provisioner.launch_kernel(kwargs.pop("cmd"), **kwargs)
        return provisioner

    provisioner = None
    try:
        spares.refill()
        assert spares.spare is None  # its start waits for the module
        provisioner = asyncio.run(page_kernel())
        assert provisioner.process is not None and "--spare" in provisioner.process.args
        wait_until(lambda: (tmp_path / "page.json").exists(), 60, "the kernel's connection file")
    finally:
        if provisioner is not None and provisioner.process is not None:
            provisioner.process.terminate()
            provisioner.process.wait(30)
        spares.close()


# ============================================================================ the spare's imports ahead
#: what a page's kernel is, as far as the modules a spare imports ahead can change it: printed by a
#: cell added at the end of a copy of notebook 01 (``state.ipynb``), compared between a page on a
#: spare and a page whose kernel the server started for it
STATE_CELL = r'''import json, logging, os, signal, sys, threading, warnings
import plotly.io as _pio, comm as _comm
from delaylab.serve import preimport as _preimport
from delaylab.exercises import ui as _ui
_ip = get_ipython()
for _t in threading.enumerate():  # the compiled kernels' warm-up done (a started kernel's runs beside its cells)
    if _t.name == "delaylab-warmup":
        _t.join(300)
def _name(f):
    return f"{getattr(f, '__module__', '')}.{getattr(f, '__qualname__', type(f).__name__)}"
def _handler(s):
    h = signal.getsignal(s)
    return _name(h) if callable(h) else str(h)
print("STATE" + json.dumps({
    "pid": os.getpid(), "ahead": list(_preimport.IMPORTED_AHEAD),
    "renderer": _pio.renderers.default, "render_on_display": _pio.renderers.render_on_display,
    "renderers_to_activate": [type(r).__name__ for r in _pio.renderers._to_activate],
    "template": str(_pio.templates.default),
    "comm_targets": sorted(_comm.get_comm_manager().targets),
    "events": {e: sorted(map(_name, c)) for e, c in _ip.events.callbacks.items()},
    "answer_capture_in_this_kernel": bool(_ui._HOOKED) and _ui._HOOKED[0] is _ip,
    "formatters": {m: sorted(map(str, f.type_printers)) + sorted(map(str, f.deferred_printers))
                   for m, f in _ip.display_formatter.formatters.items()},
    "warning_filters": [repr(f) for f in warnings.filters],
    "streams": [type(sys.stdout).__name__, type(sys.stderr).__name__, type(sys.displayhook).__name__,
                _name(sys.excepthook)],
    "signals": {s.name: _handler(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE)},
    "logging": {n: [type(h).__name__ for h in logging.getLogger(n or None).handlers]
                for n in ("", "plotly", "delaylab", "traitlets", "numba")},
    "cwd": os.getcwd(), "path": sys.path, "argv": sys.argv[1:2],
    "modules": sorted(sys.modules),
}) + "STATE")'''

#: modules a spare has that a started kernel has not: its own hand-over's
SPARE_OWN_MODULES = {"delaylab.serve.spare"}


def state_notebook(folder: Path) -> Path:
    """Notebook 01 with :data:`STATE_CELL` added at its end (its first cell unchanged)."""
    nb = nbformat.read(ROOT / "notebooks" / "01_delayed_conversions.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(STATE_CELL))
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / "state.ipynb")
    return folder / "state.ipynb"


def page_state(server: JupyterServer) -> dict:
    """What :data:`STATE_CELL` printed on the page of ``state.ipynb`` (Voila runs every cell)."""
    import html
    import re
    import urllib.request

    with urllib.request.urlopen(f"{server.url}/voila/render/state.ipynb", timeout=300) as r:
        text = html.unescape(r.read().decode())
    found = re.search(r"STATE(\{.*?\})STATE", text)
    assert found, text[-3000:]
    return json.loads(found.group(1))


def spares_ahead(server: JupyterServer) -> dict:
    """The server's spares not handed over yet that import modules ahead: {pid: those modules}."""
    out = {}
    for pid, spare in dashboard_kernels(server.proc.pid).items():
        try:
            cmd = (Path("/proc") / str(pid) / "cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if spare and "--import-ahead" in cmd:
            out[pid] = cmd[cmd.index("--import-ahead") + 1].split(",")
    return out


@pytest.mark.browser
@pytest.mark.skipif(os.name != "posix", reason="process groups, /proc: POSIX only")
def test_a_page_on_a_spare_that_imported_ahead_draws_reruns_and_is_what_a_started_kernel_gives(tmp_path, browser):  # noqa: F811
    """A server whose root holds the notebooks: its spare imports ahead what every notebook's
    first cell imports (plotly, ipywidgets, delaylab's figures). Notebook 01's page on that spare
    passes the dashboard test of tests/test_browser.py in chromium (every figure drawn, a slider
    and a selection rerun and redraw, a bad seed answered, the save button). The next page, a copy
    of 01 that prints its kernel's state, is on the next spare, which had those modules imported
    before its page (its ``IMPORTED_AHEAD``); its state is that of the same page's kernel on a
    server without a spare: plotly's renderer, the widgets' comm targets, the exercises' answer
    capture, IPython's hooks and formatters, warning filters, streams, signals, loggers, paths and
    the modules imported."""
    import test_browser as dashboards

    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb")) + [state_notebook(tmp_path / "state")]
    server = JupyterServer(tmp_path / "spare", notebooks=notebooks)
    try:
        spare, ahead = next(iter(wait_until(lambda: spares_ahead(server), 120, "a spare importing ahead").items()))
        assert {"plotly.graph_objects", "ipywidgets", "delaylab.viz.widget", "delaylab.viz.plots"} <= set(ahead)
        dashboards.test_dashboard_loads_draws_and_responds(server, browser, ROOT / "notebooks" / "01_delayed_conversions.ipynb")
        assert f"a page's kernel is the spare (pid {spare}," in server.log_path.read_text()
        second = wait_until(lambda: [p for p in spares_ahead(server) if p != spare], 120, "the next spare")[0]
        on_spare = page_state(server)
        assert on_spare["pid"] == second
        # the modules were imported in the spare, before its page: none failed, none left out
        assert on_spare["ahead"] == ahead
        assert "Traceback" not in server.log_path.read_text()
    finally:
        server.close()
    # the same sweep cache (the figures at their defaults read, not computed, as on the spare's page)
    (tmp_path / "started").mkdir()
    (tmp_path / "started" / "cache").symlink_to(tmp_path / "spare" / "cache", target_is_directory=True)
    started = JupyterServer(tmp_path / "started", "--SpareDashboardKernel.enabled=False", notebooks=notebooks)
    try:
        fresh = page_state(started)
    finally:
        started.close()
    assert fresh["ahead"] == [] and fresh["renderer"] == "plotly_mimetype"
    assert {"jupyter.widget", "jupyter.widget.control"} <= set(fresh["comm_targets"])
    assert fresh["answer_capture_in_this_kernel"]
    spare_modules, fresh_modules = set(on_spare.pop("modules")), set(fresh.pop("modules"))
    assert spare_modules - fresh_modules <= SPARE_OWN_MODULES and fresh_modules <= spare_modules, \
        (spare_modules - fresh_modules, fresh_modules - spare_modules)
    assert on_spare.pop("cwd") == str(tmp_path / "spare" / "home") and fresh.pop("cwd") == str(tmp_path / "started" / "home")
    for key in ("pid", "ahead"):
        on_spare.pop(key), fresh.pop(key)
    assert on_spare == fresh


#: run in a fresh Python as a spare is (its costly import skipped, ipykernel imported, delaylab
#: imported by its warm-up), then the spare's imports ahead for the repository's notebooks, with
#: everything recorded that those imports read or change and that differs between a spare before
#: its page and a kernel running its first cell: IPython's shell (``get_ipython()``, the shell
#: class's instance, the comm manager), the environment, the working folder and relative paths,
#: ``sys.argv``, the standard streams held, signal handlers, threads and log handlers
AUDIT = r'''
import gc, json, logging, os, signal, sys, threading, traceback
del sys.path[0]  # as the spare (delaylab.serve.kernel.main): not the working folder first
sys.modules.setdefault("rfc3987_syntax", None)
from ipykernel import kernelapp
import delaylab.warmup
from delaylab.serve import preimport
modules = preimport.modules_every_notebook_imports(sys.argv[1])
import comm, IPython, IPython.core.getipython as getipython
from IPython.core.interactiveshell import InteractiveShell
seen = {"kernel": set(), "environ": set(), "cwd": set(), "argv": set()}
on = [False]
def where():
    for f in reversed(traceback.extract_stack()[:-2]):
        if "importlib" not in f.filename and not f.filename.startswith("<") and "getipython" not in f.filename:
            return f"{f.filename}:{f.lineno}"
    return "?"
def spy(kind, original):
    def call(*args, **kwargs):
        if on[0]:
            seen[kind].add(where())
        return original(*args, **kwargs)
    return call
getipython.get_ipython = IPython.get_ipython = spy("kernel", getipython.get_ipython)
InteractiveShell.initialized = classmethod(spy("kernel", InteractiveShell.initialized.__func__))
comm.get_comm_manager = spy("kernel", comm.get_comm_manager)
comm.create_comm = spy("kernel", comm.create_comm)
os.getcwd = spy("cwd", os.getcwd)
Environ = type(os.environ)
for name in ("__getitem__", "__contains__"):
    original = getattr(Environ, name)
    def read(self, key, _original=original):
        if on[0]:
            seen["environ"].add(key)
        return _original(self, key)
    setattr(Environ, name, read)
class Argv(list):
    def __getitem__(self, i):
        if on[0]:
            seen["argv"].add(where())
        return list.__getitem__(self, i)
    def __iter__(self):
        if on[0]:
            seen["argv"].add(where())
        return list.__iter__(self)
    def __len__(self):
        if on[0]:
            seen["argv"].add(where())
        return list.__len__(self)
sys.argv = Argv(sys.argv)
def audit(event, args):
    if on[0] and event in ("open", "os.listdir", "os.scandir", "os.chdir") and args and args[0] is not None \
            and isinstance(args[0], (str, bytes, os.PathLike)) and not os.path.isabs(os.fsdecode(args[0])):
        seen["cwd"].add(f"{event} {os.fsdecode(args[0])} at {where()}")
sys.addaudithook(audit)
def held(stream):
    return {id(r) for r in gc.get_referrers(stream) if not isinstance(r, type(sys._getframe())) and r is not sys.__dict__}
def handlers():
    loggers = [logging.getLogger()] + [l for l in logging.Logger.manager.loggerDict.values() if isinstance(l, logging.Logger)]
    return {id(h) for l in loggers for h in l.handlers}
def signals():
    return {s.name: repr(signal.getsignal(s)) for s in signal.valid_signals() if isinstance(s, signal.Signals)}
import warnings
filters = list(warnings.filters)
before = (held(sys.stdout), held(sys.stderr), handlers(), signals(), {t.name for t in threading.enumerate()},
          sys.displayhook, sys.excepthook)
on[0] = True
imported, said = preimport.import_ahead(modules)
on[0] = False
after = (held(sys.stdout), held(sys.stderr), handlers(), signals(), {t.name for t in threading.enumerate()},
         sys.displayhook, sys.excepthook)
print(json.dumps({"modules": modules, "imported": imported, "said": said,
                  **{k: sorted(v) for k, v in seen.items()},
                  "stdout_held": len(after[0] - before[0]), "stderr_held": len(after[1] - before[1]),
                  "log_handlers": len(after[2] - before[2]),
                  "signals": sorted(k for k in after[3] if after[3][k] != before[3].get(k)),
                  "threads": sorted(after[4] - before[4]), "hooks_changed": after[5:] != before[5:],
                  "filters_first": len(warnings.filters) - len(filters),
                  "filters_kept": warnings.filters[len(warnings.filters) - len(filters):] == filters}))
'''

#: the module-level code that asks for IPython's shell while imported ahead, and what
#: :func:`delaylab.serve.preimport.complete` does for it once the kernel's shell exists
KERNEL_AT_IMPORT = {
    "plotly/io/_renderers.py": "plotly's default renderer chosen again",
    "ipywidgets/__init__.py": "ipywidgets' _handle_ipython(): its comm targets",
    "delaylab/exercises/ui.py": "delaylab.exercises.install_capture(): the answer capture",
}


@pytest.mark.skipif(os.name != "posix", reason="as the spare: POSIX only")
def test_what_a_spare_imports_ahead_depends_on_nothing_of_its_page_but_what_hand_over_completes():
    from delaylab.serve.spare import PAGE_PREFIXES, PAGE_VARIABLES

    out = subprocess.run([sys.executable, "-c", AUDIT, str(ROOT / "notebooks")], capture_output=True, text=True,
                         timeout=300, cwd=ROOT, env={**os.environ, "DELAYLAB_WARMUP": "0"})
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.splitlines()[-1])
    # the notebooks' shared imports, all imported, silently
    assert {"plotly.graph_objects", "ipywidgets", "delaylab.viz.widget"} <= set(seen["modules"])
    assert seen["imported"] == seen["modules"] and seen["said"] == []
    # the kernel asked for only where hand-over completes what the import would have done
    asked = {site.split("site-packages/")[-1].split(str(ROOT) + "/")[-1].rsplit(":", 1)[0] for site in seen["kernel"]}
    assert asked <= set(KERNEL_AT_IMPORT) and "ipywidgets/__init__.py" in asked, seen["kernel"]
    assert "PLOTLY_RENDERER" in seen["environ"]  # plotly told a renderer: it looked for no browser
    # no page's own variable read (the spare's environment is the page's but for those), nor the
    # working folder, a relative path or the command line (a spare's differ from the page kernel's)
    page_own = [k for k in seen["environ"] if k in PAGE_VARIABLES or k.startswith(PAGE_PREFIXES)]
    assert page_own == [] and seen["cwd"] == [] and seen["argv"] == [], seen
    # no standard stream held (a kernel's are its own, made at its start), no signal handler, thread,
    # log handler or interpreter hook set
    assert seen["stdout_held"] == seen["stderr_held"] == seen["log_handlers"] == 0, seen
    assert seen["signals"] == [] and seen["threads"] == [] and not seen["hooks_changed"], seen
    # warning filters only put first (hand-over puts them first again, after the kernel's own)
    assert seen["filters_kept"], seen


FIRST_CELL_RUN = r'''
import json, sys
del sys.path[0]
exec(compile(sys.argv[1], "<first cell>", "exec"), {"__name__": "__main__"})
print(json.dumps(sorted(sys.modules)))
'''


def test_what_is_imported_ahead_is_what_every_notebook_s_first_cell_imports_when_it_runs():
    """Read from the source, never more than running it imports: each notebook's first cell, run,
    imports every module :func:`certain_imports` says it does, and the spare's list is what all
    of them import."""
    from delaylab.serve import preimport

    notebooks = preimport.dashboard_notebooks(ROOT / "notebooks")
    assert [p.name for p in notebooks] == sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    ahead = preimport.modules_every_notebook_imports(ROOT / "notebooks")
    assert {"plotly.graph_objects", "ipywidgets", "delaylab.viz.widget", "delaylab.viz.plots"} <= set(ahead)
    for path in notebooks:
        cell = preimport.first_code_cell(path)
        certain = preimport.certain_imports(cell)
        assert set(ahead) <= certain
        out = subprocess.run([sys.executable, "-c", FIRST_CELL_RUN, cell], capture_output=True, text=True,
                             timeout=300, cwd=path.parent, env={**os.environ, "DELAYLAB_WARMUP": "0"})
        assert out.returncode == 0, out.stderr[-2000:]
        imported = set(json.loads(out.stdout.splitlines()[-1]))
        assert certain <= imported, (path.name, sorted(certain - imported))
    # a package comes before its modules (imported in that order)
    assert all(ahead.index(m.rpartition(".")[0]) < ahead.index(m) for m in ahead if m.rpartition(".")[0] in ahead)
    # what a cell imports only under a condition, or in a function, is not counted; nor a magic
    assert preimport.certain_imports("if x:\n    import plotly\ndef f():\n    import ipywidgets\n") == set()
    assert preimport.certain_imports("%matplotlib inline\nimport plotly") == set()
    assert preimport.certain_imports("try:\n    import numpy.linalg\n    x = f()\n    import plotly\n"
                                     "except Exception:\n    pass") == {"numpy", "numpy.linalg"}


def test_a_page_whose_notebook_imports_less_or_whose_folder_shadows_an_import_does_not_get_the_spare(tmp_path):
    import logging
    import shutil

    from delaylab.serve import preimport
    from delaylab.serve.spare import SpareDashboardKernel

    first = ROOT / "notebooks" / "01_delayed_conversions.ipynb"
    ahead = preimport.modules_every_notebook_imports(ROOT / "notebooks")

    def page(folder, name):
        return {"SCRIPT_NAME": f"/user/a/voila/render/{folder.name}/{name}", "SERVER_SOFTWARE": "voila/0.5.13"}

    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(first, course)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import math\nimport delaylab")])
    nbformat.write(nb, course / "mine.ipynb")
    assert preimport.refusal(ahead, page(course, first.name), course) is None
    assert preimport.refusal([], page(course, "mine.ipynb"), course) is None  # nothing imported ahead
    assert "does not import" in preimport.refusal(ahead, page(course, "mine.ipynb"), course)
    assert "no notebook" in preimport.refusal(ahead, page(course, "gone.ipynb"), course)
    assert "no notebook" in preimport.refusal(ahead, {"SCRIPT_NAME": "/voila/render/x.py"}, course)
    for shadow in ("plotly.py", "ipywidgets/__init__.py", "plotly-9.0.dist-info/METADATA"):
        folder = tmp_path / shadow.split("/")[0].replace(".", "_")
        folder.mkdir()
        shutil.copy(first, folder)
        (folder / shadow).parent.mkdir(parents=True, exist_ok=True)
        (folder / shadow).write_text("")
        said = preimport.refusal(ahead, page(folder, first.name), folder)
        assert said and shadow.split("/")[0].removesuffix(".py") in said, (shadow, said)
    (tmp_path / "ns" / "plotly").mkdir(parents=True)  # a folder without __init__: shadows nothing
    shutil.copy(first, tmp_path / "ns")
    assert preimport.refusal(ahead, page(tmp_path / "ns", first.name), tmp_path / "ns") is None
    # the server's spare: kept for the next page when a page must not get it
    root = tmp_path / "root"
    root.mkdir()
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy(path, root)
    (root / "mine").mkdir()  # a student's own notebook, its first cell importing less
    nbformat.write(nb, root / "mine" / "mine.ipynb")
    cmd = [sys.executable, "-m", "delaylab.serve.kernel", "-f", str(tmp_path / "k.json")]
    base = {**os.environ, "DELAYLAB_WARMUP": "0", "JPY_PARENT_PID": str(os.getpid())}
    spares = SpareDashboardKernel(lambda: dict(base), cwd=str(root), log=logging.getLogger("test"))
    try:
        assert spares.wait_ready(120)
        spare = spares.spare
        assert list(spare.ahead) == ahead and "--import-ahead" in spare.process.args
        assert spares.take(cmd, {**base, **page(root / "mine", "mine.ipynb")}, root / "mine") is None
        assert spares.spare is spare and spare.alive  # kept
        taken = spares.take(cmd, {**base, **page(root, first.name)}, root)
        assert taken is spare.process
    finally:
        spares.close()
        if spare.alive:
            spare.stop()


@pytest.mark.skipif(os.name != "posix", reason="as the spare: POSIX only")
def test_a_spare_whose_imports_ahead_said_something_becomes_a_kernel_started_afresh(tmp_path):
    """What an import prints, warns or raises would have been the page's first cell's output: a
    spare whose imports ahead said anything starts the page's kernel afresh in its own process
    (the same pid, the provisioner's), with nothing imported ahead; one whose imports were silent
    keeps them."""
    from jupyter_client import BlockingKernelClient
    from jupyter_client.connect import write_connection_file

    from delaylab.serve.spare import Spare

    probe = "import os; from delaylab.serve import preimport as p; print(os.getpid(), ','.join(p.IMPORTED_AHEAD))"
    env = {**os.environ, "DELAYLAB_WARMUP": "0", "JPY_PARENT_PID": str(os.getpid())}
    for ahead, kept in ((["json", "delaylab_no_such_module"], ""), (["json", "csv"], "json,csv")):
        spare = Spare(env, cwd=tmp_path, ahead=ahead)
        client = None
        try:
            wait_until(lambda s=spare: s.ready, 60, "the spare ready")
            connection = str(tmp_path / f"kernel-{len(kept)}.json")
            write_connection_file(connection, ip="127.0.0.1")
            spare.hand_over(["-f", connection], env, tmp_path)
            client = BlockingKernelClient(connection_file=connection)
            client.load_connection_file()
            client.start_channels(hb=False)  # (a heartbeat missed while the process execs is no death)
            client.wait_for_ready(timeout=120)
            said = []
            client.execute_interactive(probe, timeout=60,
                                       output_hook=lambda m, out=said: out.append(m["content"].get("text", "")))
            assert "".join(said).split() == [str(spare.process.pid)] + ([kept] if kept else [])
        finally:
            if client is not None:
                client.stop_channels()
            spare.stop()
