"""The dashboards as Binder and a JupyterHub serve them: Voila inside JupyterLab (a server
extension, ``/voila/render/<path>``), from the environment binder/postBuild builds, in chromium.

JupyterLab is started the way a JupyterHub's single-user server runs it, under a hub's URL
prefix (``/user/student/``), from a folder with no voila.json (a hub's home), with the Python and
the configuration of the environment that ``binder/postBuild`` built for real
(tests/test_binder.py's :func:`environment`: delaylab's wheel, so its server extension's switch,
the page settings, the compiled kernels, the notebooks' figures in the environment's sweep
cache) and nothing else (no ``JUPYTER_CONFIG_PATH``). A real hub, with two students, PAM logins
and nbgitpuller, is tests/test_hub.py. Every notebook's page must pass the dashboard test of
tests/test_browser.py itself (no error, no code, every figure drawn from one copy of plotly's
module, the formulas as MathML and no TeX left, a slider and a selection redraw, a bad seed
answered, the save button), and besides: the notebook's title shows, the cells tagged ``hide``
are absent, plotly's module comes from the server's ``delaylab/static/``, and **no request goes to
another host** (every request of every page is recorded). The seconds until each page's title and
first figure show are printed and kept in ``test-artifacts/browser/hub-pages.txt``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest

import test_browser as dashboards
from test_binder import SYSTEM_PYTHON, environment, is_root
from test_browser import ARTIFACTS, NOTEBOOKS, ROOT, Server, browser  # noqa: F401  (browser: a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("extension"),  # one server for the module
              pytest.mark.skipif(not is_root() or not Path(SYSTEM_PYTHON).exists(),
                                 reason="the environment is built by a non-root user it creates (tests/test_binder.py)")]

#: a JupyterHub serves each user's server under a prefix of this kind
BASE = "/user/student/"
REPORT = ARTIFACTS / "hub-pages.txt"


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """JupyterLab as a JupyterHub's single-user server runs it, from Binder's environment."""
    prefix = Path(environment()["prefix"])
    home = tmp_path_factory.mktemp("home")
    shutil.copytree(ROOT / "notebooks", home / "notebooks")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER_CONFIG_PATH", "DELAYLAB_", "VIRTUAL_ENV"))}
    env["PATH"] = f"{prefix / 'bin'}{os.pathsep}{env['PATH']}"
    env["DELAYLAB_CACHE"] = tempfile.mkdtemp(prefix="delaylab-hub-cache-")  # this user's: the shared one serves
    server = Server([str(prefix / "bin" / "python"), "-m", "jupyter", "lab", "--no-browser", "--port={port}",
                     "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--allow-root",
                     f"--ServerApp.base_url={BASE}", f"--ServerApp.root_dir={home / 'notebooks'}"],
                    f"{BASE}api/status", home, "hub-server.log", env=env)
    server.origin = server.url
    server.url = server.origin + BASE.rstrip("/")  # what the dashboard tests append /voila/render/... to
    REPORT.write_text("")
    yield server
    server.close()
    shutil.rmtree(env["DELAYLAB_CACHE"], ignore_errors=True)
    log = server.log_path.read_text()
    dashboards.assert_no_output_lost(server)
    assert "delaylab.serve.extension | extension was successfully loaded" in log
    assert "running over TCP without encryption" not in log and "Traceback (most recent" not in log, log[-3000:]


class RecordingBrowser:
    """The test's browser, except that each page it opens records every request it makes, the
    moments its title and first figure show (tests/test_browser.py's ``SEEN``), and, just before
    it closes, what it shows (:class:`RecordedPage`). ``records``: one dict per page."""

    def __init__(self, chromium):
        self._browser, self.records = chromium, []

    def new_page(self, **kwargs):
        page = self._browser.new_page(**kwargs)
        record = {"requests": []}
        page.on("request", lambda request: record["requests"].append(request.url))
        page.add_init_script(dashboards.SEEN)
        self.records.append(record)
        return RecordedPage(page, record)

    def __getattr__(self, name):
        return getattr(self._browser, name)


#: what a page shows: its title, the cells Voila rendered, when its title and first figure showed
SHOWN = f"""() => ({{title: ({dashboards.TITLE_SHOWN})(),
    h1: (document.querySelector('h1') || {{}}).innerText || '',
    cells: document.querySelectorAll('[cell-index]').length,
    seen: globalThis.__delaylab_seen || {{}}}})"""


class RecordedPage:
    """A playwright page that keeps what it shows in its record when it is closed."""

    def __init__(self, page, record):
        self._page, self._record = page, record

    def close(self, *args, **kwargs):
        try:
            self._record.update(self._page.evaluate(SHOWN))
        except Exception as exc:  # a page that broke: the dashboard test says why
            self._record["error"] = repr(exc)
        return self._page.close(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._page, name)


def shown_cells(path: Path) -> int:
    nb = nbformat.read(path, as_version=4)
    return sum("hide" not in c.metadata.get("tags", []) for c in nb.cells)


def other_hosts(requests, origin) -> list:
    return [u for u in requests if not u.startswith(origin + "/") and urlsplit(u).scheme not in ("data", "blob")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_server_extension_s_dashboard_is_delaylab_serve_s(hub, browser, path, monkeypatch):  # noqa: F811
    recording = RecordingBrowser(browser)
    # the dashboard test's screenshots, kept beside the dashboards' own
    shoot = dashboards.screenshot
    monkeypatch.setattr(dashboards, "screenshot", lambda page, name: shoot(page, f"hub-{name}"))
    dashboards.test_dashboard_loads_draws_and_responds(hub, recording, path)
    record = recording.records[0]
    assert record["title"] and record["h1"].strip(), record.get("h1")
    assert record["cells"] == shown_cells(path)  # the cells tagged "hide" are not on the page
    assert not other_hosts(record["requests"], hub.origin), other_hosts(record["requests"], hub.origin)
    modules = [u for u in record["requests"] if "/delaylab/static/plotly-widget." in u]
    assert modules and all(u.startswith(f"{hub.origin}{BASE}delaylab/static/") for u in modules), modules
    assert any("/voila/templates/delaylab/" in u for u in record["requests"])  # delaylab's template
    line = (f"{path.stem[:28]:28}  title {record['seen'].get('title', float('nan')):5.2f} s  first figure "
            f"{record['seen'].get('figure', float('nan')):5.2f} s  requests {len(record['requests'])}  "
            f"(load average {os.getloadavg()[0]:.1f}: `tasks.py test` runs this beside another browser test; "
            "tests/test_hub.py and `tasks.py bench` time a quiet machine)")
    print("\nserver extension (JupyterLab's Voila, fresh kernel per page):", line)
    with open(REPORT, "a") as f:
        f.write(line + "\n")


def test_the_server_extension_s_index_links_to_every_paper_notebook(hub, browser):  # noqa: F811
    recording = RecordingBrowser(browser)
    dashboards.test_index_links_to_every_paper_notebook(hub, recording)
    requests = [u for record in recording.records for u in record["requests"]]
    assert requests and not other_hosts(requests, hub.origin), other_hosts(requests, hub.origin)


def test_the_server_extension_serves_plotly_s_module_cached_and_compressed(hub):
    """The module every figure imports: gzipped, cached by browsers for good, no login needed
    (plotly's public code, like Jupyter's static files); another name is 404."""
    import urllib.error
    import urllib.request

    page = urllib.request.urlopen(f"{hub.url}/voila/render/00_index.ipynb", timeout=300).read().decode()
    assert "cdn.jsdelivr.net" not in page and "fontawesome" not in page.lower()
    status = json.load(urllib.request.urlopen(f"{hub.url}/api/kernels", timeout=30))
    assert status  # the page's kernel
    from delaylab.viz.widget import dashboard_module

    name, content, _ = dashboard_module()
    request = urllib.request.Request(f"{hub.url}/delaylab/static/{name}", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=120) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        assert "immutable" in response.headers["Cache-Control"]
        import gzip

        assert gzip.decompress(response.read()) == content
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{hub.url}/delaylab/static/plotly-widget.00000000000000000000.js", timeout=30)
    assert missing.value.code == 404
