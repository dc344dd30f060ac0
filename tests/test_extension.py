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
