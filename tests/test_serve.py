"""The dashboards' server (delaylab/serve) without a browser: the kernel spec and launcher, the
``--public`` settings, and, on a real server over HTTP, the visitor cap's 503 page and the
shutdown request a closing page sends (with the ``_xsrf`` cookie the server now sets)."""

from __future__ import annotations

import gzip
import http.client
import http.cookiejar
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zlib
from pathlib import Path

import pytest

from delaylab.serve import app, cli, pools, transport
from delaylab.serve.kernel import set_memory_cap  # noqa: F401  (imported by the launcher)

ROOT = Path(__file__).resolve().parents[1]


def test_python_kernels_start_through_the_launcher_with_the_caps_in_their_environment(tmp_path):
    ksm = app.DashboardKernelSpecManager(memory_mb=1234, threads=1, cache_folder=str(tmp_path))
    spec = ksm.get_kernel_spec("python3")
    assert spec.argv[1:3] == ["-m", "delaylab.serve.kernel"] and "{connection_file}" in spec.argv
    assert spec.env["DELAYLAB_KERNEL_MEMORY_MB"] == "1234" and spec.env["OPENBLAS_NUM_THREADS"] == "1"
    assert spec.env["DELAYLAB_DEFAULT_CACHE"] == str(tmp_path)
    assert "DELAYLAB_PLOTLY_MODULE_URL" not in spec.env  # set by the server (tested below)
    ksm.plotly_module_url = "/delaylab/static/plotly-widget.abc.js"
    assert ksm.get_kernel_spec("python3").env["DELAYLAB_PLOTLY_MODULE_URL"] == ksm.plotly_module_url
    plain = app.DashboardKernelSpecManager(memory_mb=0, threads=0, cache_folder="").get_kernel_spec("python3")
    assert not any(k.startswith("DELAYLAB_") for k in (plain.env or {}))


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_memory_cap_stops_an_oversized_allocation_inside_the_capped_process_only():
    code = ("from delaylab.serve.kernel import set_memory_cap; set_memory_cap(800)\n"
            "import numpy as np\n"
            "try:\n    np.ones(2 * 10**8)\nexcept MemoryError:\n    print('MemoryError')\n"
            "print(np.ones(10**6).sum())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["MemoryError", "1000000.0"], out.stderr[-2000:]


def test_public_expands_into_the_public_settings_and_options_given_replace_theirs():
    argv = cli.command_line(["notebooks", "--public", "--DashboardServer.max_kernels=3"])
    assert "notebooks" in argv and "--Voila.ip=0.0.0.0" in argv
    assert "--MappingKernelManager.cull_connected=True" in argv
    assert "--VoilaConfiguration.show_tracebacks=False" in argv
    assert [a for a in argv if "max_kernels" in a] == ["--DashboardServer.max_kernels=3"]  # traitlets takes one
    assert "--Voila.ip=0.0.0.0" not in cli.command_line(["notebooks", "--public", "--Voila.ip=127.0.0.1"])
    assert cli.command_line(["notebooks"]) == [*(f"--{k}={v}" for k, v in cli.defaults().items()), "notebooks"]


@pytest.mark.skipif(os.name != "posix", reason="Unix sockets: POSIX only (TCP on Windows)")
def test_kernels_talk_over_unix_sockets_unless_the_command_line_says_otherwise():
    assert "--KernelManager.transport=ipc" in cli.command_line(["notebooks"])
    assert "--KernelManager.transport=ipc" in cli.command_line(["notebooks", "--public"])
    argv = cli.command_line(["notebooks", "--KernelManager.transport=tcp"])
    assert [a for a in argv if "transport" in a] == ["--KernelManager.transport=tcp"]


@pytest.mark.skipif(os.name != "posix", reason="Unix sockets: POSIX only (TCP on Windows)")
def test_kernels_use_tcp_where_their_unix_socket_paths_would_be_too_long(monkeypatch):
    # the bound itself: a socket at the longest path the check admits binds
    with tempfile.TemporaryDirectory(prefix="dl", dir="/tmp") as tmp:
        root = os.path.join(tmp, "r")
        while transport.unix_sockets_fit(root + "r"):
            root += "r"
        assert transport.unix_sockets_fit(root) and not transport.unix_sockets_fit(root + "r")
        longest = Path(root, "voila_" + "x" * 8, f"kernel-{uuid.UUID(int=0)}-ipc-99")
        assert len(os.fsencode(longest)) == app.SOCKET_PATH_MAX
        longest.parent.mkdir(parents=True)
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(str(longest))
    # macOS's temporary folder (/var/folders/xx/<28 characters>/T/) leaves no room for Voila's
    # voila_XXXXXXXX/kernel-<uuid>-ipc-N within the 104 bytes of its sun_path
    monkeypatch.setattr(tempfile, "tempdir", "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T")
    assert not transport.unix_sockets_fit()
    assert not any("transport" in a for a in cli.command_line(["notebooks", "--public"]))
    assert "--KernelManager.transport=ipc" in cli.command_line(["notebooks", "--Voila.connection_dir_root=/tmp"])


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    """A dashboard server without a pool, at most one visitor's kernel."""
    yield from _serve(ROOT / "notebooks", tmp_path)


def _serve(folder, tmp_path, *extra):
    port = _free_port()
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "delaylab.serve", str(folder), "--no-browser",
                             f"--port={port}", "--Voila.ip=127.0.0.1", "--VoilaConfiguration.preheat_kernel=False",
                             "--DashboardServer.max_kernels=1", *extra], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while True:
        try:
            urllib.request.urlopen(url + "/delaylab/status", timeout=2)
            break
        except Exception:
            assert proc.poll() is None and time.time() < deadline, (tmp_path / "server.log").read_text()
            time.sleep(0.3)
    try:
        yield url, tmp_path / "server.log"
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def _status(url):
    return json.load(urllib.request.urlopen(url + "/delaylab/status", timeout=10))


def test_cap_answers_503_busy_and_a_closing_page_stops_its_kernel(server):
    url, log = server
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(url + "/voila/render/00_index.ipynb", timeout=300).read().decode()
    kernel_id = re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', page).group(1)
    assert "Traceback" not in page
    xsrf = {c.name: c.value for c in jar}.get("_xsrf")
    assert xsrf, "the page must set the _xsrf cookie that its shutdown request sends back"
    assert _status(url)["visitors"] == 1

    with pytest.raises(urllib.error.HTTPError) as busy:  # the second visitor, beyond the cap of 1
        urllib.request.urlopen(url + "/voila/render/01_delayed_conversions.ipynb", timeout=60)
    body = busy.value.read().decode()
    assert busy.value.code == 503 and int(busy.value.headers["Retry-After"]) > 0
    assert "busy" in body and "try again" in body and "kernelId" not in body

    # what the page sends when it closes (navigator.sendBeacon, multipart form with _xsrf)
    boundary = uuid.uuid4().hex
    form = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"_xsrf\"\r\n\r\n{xsrf}\r\n"
            f"--{boundary}--\r\n").encode()
    request = urllib.request.Request(f"{url}/voila/api/shutdown/{kernel_id}", data=form, method="POST",
                                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert opener.open(request, timeout=60).status == 204
    assert _status(url)["kernels"] == 0
    assert "_xsrf' argument missing" not in log.read_text()
    # the cap has room again
    assert urllib.request.urlopen(url + "/voila/render/00_index.ipynb", timeout=300).status == 200


def test_compress_gzips_pages_and_scripts_without_holding_back_the_title_and_deflates_the_websocket(tmp_path):
    from visitor import ProtocolVisitor, VisitorsThread

    serving = _serve(ROOT / "notebooks", tmp_path, "--DashboardServer.compress=True")
    url, log = next(serving)
    try:
        # the websocket: permessage-deflate taken, and the widgets' state arrives through it
        thread = VisitorsThread()
        try:
            visitor = ProtocolVisitor(url, "00_index.ipynb")
            thread.run(visitor.visit(), timeout=300)
            assert visitor.status == 200 and visitor.ws is not None, visitor.body[-2000:]
            assert "permessage-deflate" in visitor.ws.headers.get("Sec-WebSocket-Extensions", "")
            assert visitor.states and visitor.first_figure() is not None
            thread.run(visitor.leave(), timeout=120)  # its kernel stops: the cap (1) has room again
        finally:
            thread.close()
        # the page, read chunk by chunk as a browser does: gzip, and the title (with the text) in a
        # chunk before the one that ends the page (tornado's gzip flushes each of Voila's chunks)
        parts = urllib.parse.urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=300)
        conn.request("GET", "/voila/render/01_delayed_conversions.ipynb", headers={"Accept-Encoding": "gzip"})
        page = conn.getresponse()
        assert page.status == 200 and page.headers["Content-Encoding"] == "gzip"
        inflate, html, chunks, title_in = zlib.decompressobj(16 + zlib.MAX_WBITS), b"", 0, None
        while chunk := page.read1(1 << 16):
            chunks += 1
            html += inflate.decompress(chunk)
            if title_in is None and b"<title>" in html:
                title_in = chunks
        conn.close()
        html = html.decode()
        assert "</html>" in html and "Delayed conversions" in html
        assert title_in is not None and title_in < chunks, (title_in, chunks)
        # a script of Voila's, gzipped; plotly's module, gzipped once (by us, not again by tornado)
        from delaylab.viz.widget import dashboard_module

        scripts = re.findall(r'src="(/voila/static/[^"?]+\.js)', html)
        assert scripts, html[:2000]
        for path in (scripts[0], "/delaylab/static/" + dashboard_module()[0]):
            request = urllib.request.Request(url + path, headers={"Accept-Encoding": "gzip"})
            with urllib.request.urlopen(request, timeout=60) as response:
                body = response.read()
                assert response.headers["Content-Encoding"] == "gzip", path
            script = gzip.decompress(body)
            assert not script.startswith(b"\x1f\x8b") and len(script) > 2.5 * len(body), (path, len(body), len(script))
    finally:
        serving.close()


def test_the_server_still_stops_in_order_on_sigterm_after_a_page_executed_in_one_go(tmp_path):
    # Voila's templates that execute the whole notebook before rendering (its reveal and classic
    # templates; delaylab's live slides now stream their cells instead) go through nbclient, whose
    # signal handlers, once removed, left SIGTERM at its default: the server was killed outright
    # (exit -15), its connection folder left in the temporary folder
    serving = _serve(ROOT / "notebooks", tmp_path)
    url, log = next(serving)
    try:
        page = urllib.request.urlopen(url + "/voila/render/00_index.ipynb?template=classic", timeout=300)
        assert page.status == 200 and "jupyter-config-data" in page.read().decode()
        folder = Path(re.search(r"Storing connection files in (\S+?)\.?$", log.read_text(), re.M).group(1))
        assert folder.is_dir()
    finally:
        serving.close()  # SIGTERM, then up to 30 s
    assert "Handle signal 15" in log.read_text()
    assert not folder.exists(), sorted(p.name for p in folder.iterdir())


def test_without_the_cookie_the_shutdown_request_is_still_refused(server):
    """The fix is the cookie, not a hole: a forged request without the token is refused."""
    url, _ = server
    page = urllib.request.urlopen(url + "/voila/render/00_index.ipynb", timeout=300).read().decode()
    kernel_id = re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', page).group(1)
    request = urllib.request.Request(f"{url}/voila/api/shutdown/{kernel_id}", data=b"", method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    assert refused.value.code == 403 and _status(url)["kernels"] == 1


def test_pool_refills_wait_for_quiet_pages_but_a_visitor_gets_a_waiting_refill_at_once(tmp_path):
    """Two preheated kernels per notebook. A visitor takes one; its refill does not start while
    a page is at work (here: no page at work allowed beside a refill, no floor, and a page
    counts as at work for ten minutes after it got its kernel), so no kernel starts. A second
    visitor takes the other; a third gets the waiting refill, which then starts at once
    (without that, the page would wait for ten minutes here)."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 6 * 7\nprint(x)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "tiny.ipynb")
    port = _free_port()
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "delaylab.serve", str(tmp_path), "--no-browser", f"--port={port}",
                             "--Voila.ip=127.0.0.1", "--VoilaConfiguration.preheat_kernel=True",
                             "--VoilaConfiguration.default_pool_size=2",
                             "--DashboardKernelManager.refill_quiet_seconds=600",
                             "--DashboardKernelManager.refill_pages_at_work=0",
                             "--DashboardKernelManager.refill_floor=0",
                             "--DashboardKernelManager.refill_max_wait=600"],
                            cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "DELAYLAB_WARMUP": "0"})
    url = f"http://127.0.0.1:{port}"

    def wait(predicate, what, timeout=180):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                st = _status(url)
                if predicate(st):
                    return st
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
            time.sleep(0.3)
        raise AssertionError(f"{what} not within {timeout} s: {_status(url)}")

    def visit():
        page = urllib.request.urlopen(url + "/voila/render/tiny.ipynb", timeout=120).read().decode()
        assert "42" in page and "Traceback" not in page
        return re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', page).group(1)

    try:
        wait(lambda st: st["pooled"] == 2 and st["pool_ready"] == 2 and st["pool_starting"] == 0, "the pool filled")
        first = visit()
        time.sleep(5)
        st = _status(url)  # the refill waits: one visitor, one kernel in the pool, none started
        seen = (st["visitors"], st["pooled"], st["kernels"], st["pool_starting"], st["refilling"])
        assert seen == (1, 1, 2, 1, 0), st
        second = visit()
        third = visit()  # the waiting refill, started for this visitor
        assert len({first, second, third}) == 3
        st = wait(lambda st: st["visitors"] == 3, "three visitors' kernels")
        assert st["kernels"] == 3 + st["pooled"] and st["refilling"] == 0, st
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
    if os.name == "posix":  # every kernel on Unix sockets (app.DEFAULTS): ipykernel warns of each TCP one
        assert "running over TCP" not in (tmp_path / "server.log").read_text()


def test_the_presenter_gets_a_kernel_beyond_the_cap_and_only_with_the_key(tmp_path):
    """``presenter_key``: a wrong key is refused; with the right one the browser (its cookie) is
    served when the cap is full, and its kernel does not count towards the cap."""
    port = _free_port()
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "delaylab.serve", str(ROOT / "notebooks"), "--no-browser",
                             f"--port={port}", "--Voila.ip=127.0.0.1", "--VoilaConfiguration.preheat_kernel=False",
                             "--DashboardServer.max_kernels=1", "--DashboardServer.presenter_key=s3cret-key"],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "DELAYLAB_WARMUP": "0"})
    url = f"http://127.0.0.1:{port}"
    page_url = url + "/voila/render/00_index.ipynb"
    try:
        deadline = time.time() + 120
        while True:
            try:
                _status(url)
                break
            except Exception:
                assert proc.poll() is None and time.time() < deadline, (tmp_path / "server.log").read_text()
                time.sleep(0.3)
        with pytest.raises(urllib.error.HTTPError) as wrong:
            urllib.request.urlopen(url + "/delaylab/presenter?key=s3cret-kez", timeout=30)
        assert wrong.value.code == 403 and "Not the presenter's key" in wrong.value.read().decode()
        assert "Traceback" not in (tmp_path / "server.log").read_text()
        assert urllib.request.urlopen(page_url, timeout=300).status == 200  # a visitor: the cap is full
        with pytest.raises(urllib.error.HTTPError) as busy:
            urllib.request.urlopen(page_url, timeout=60)
        assert busy.value.code == 503

        presenter = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        next_path = urllib.parse.quote("/voila/render/00_index.ipynb")
        page = presenter.open(f"{url}/delaylab/presenter?key=s3cret-key&next={next_path}", timeout=300).read().decode()
        assert re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', page) and "busy" not in page
        st = _status(url)
        assert (st["visitors"], st["presenters"]) == (2, 1), st
        with pytest.raises(urllib.error.HTTPError) as still_busy:  # the presenter's kernel is not a visitor's
            urllib.request.urlopen(page_url, timeout=60)
        assert still_busy.value.code == 503
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def test_the_presenters_open_page_keeps_its_kernel_when_idle_others_are_culled():
    """The culler: an idle kernel with a page connected is culled (``cull_connected``, the
    public setting), unless it is the presenter's."""
    import asyncio
    from datetime import timedelta
    from types import SimpleNamespace

    km = app.DashboardKernelManager(cull_idle_timeout=60, cull_connected=True)
    culled = []

    async def shutdown_kernel(kernel_id, *args, **kwargs):
        culled.append(kernel_id)

    km.shutdown_kernel = shutdown_kernel
    for kid in ("visitor", "presenter"):
        km._kernels[kid] = SimpleNamespace(execution_state="idle", kernel_name="python3",
                                           kernel_spec=SimpleNamespace(metadata={}),
                                           last_activity=pools.now() - timedelta(seconds=3600))
        km._kernel_connections[kid] = 1
    km.presenter_kernels.add("presenter")
    for kid in ("visitor", "presenter"):
        asyncio.run(km.cull_kernel_if_idle(kid))
    assert culled == ["visitor"]


def test_a_kernel_whose_page_closed_it_is_not_culled_while_it_stops():
    """A closing page stops its kernel (the beacon); the culler, running while that shutdown is
    under way, finds the kernel idle with no page and must leave it alone, not stop it twice.
    Jupyter Server's and jupyter_client's own shutdown path, with a kernel slow to stop."""
    import asyncio
    from datetime import timedelta
    from types import SimpleNamespace

    km = app.DashboardKernelManager(cull_idle_timeout=60)
    calls, shutdowns = [], []

    async def page_closes_while_the_culler_runs():
        async def slow_stop(now=False, restart=False):  # the process takes its time to end
            calls.append("closed")
            await asyncio.sleep(0.2)

        ready = asyncio.get_running_loop().create_future()
        ready.set_result(None)
        km._kernels["closed"] = SimpleNamespace(execution_state="idle", kernel_name="python3", ready=ready,
                                                kernel_spec=SimpleNamespace(metadata={}), shutdown_kernel=slow_stop,
                                                last_activity=pools.now() - timedelta(seconds=600))
        km._kernel_connections["closed"] = 0
        stop = asyncio.ensure_future(km.shutdown_kernel("closed"))  # the page's
        own = km.shutdown_kernel

        async def culled(kernel_id, *args, **kwargs):  # what the culler would add
            shutdowns.append(kernel_id)
            return await own(kernel_id, *args, **kwargs)

        km.shutdown_kernel = culled
        await asyncio.sleep(0.05)
        await km.cull_kernel_if_idle("closed")
        await stop

    asyncio.run(page_closes_while_the_culler_runs())
    assert calls == ["closed"]  # once, by the page
    assert shutdowns == []  # the culler did not ask again ("Culling kernel ...: no page connected")
    assert "closed" not in km._kernels  # and it did stop


def test_refills_wait_while_a_pages_kernel_is_talking():
    """A page drawing its figures (or a slider moved) keeps its kernel sending messages: pool
    refills are not quiet until that has stopped for ``refill_quiet_seconds``."""
    import asyncio
    from datetime import timedelta
    from types import SimpleNamespace

    km = app.DashboardKernelManager(refill_quiet_seconds=10)
    km._kernels["page"] = SimpleNamespace(last_activity=pools.now() - timedelta(seconds=3))
    km._kernel_connections["page"] = 1

    async def quiet():
        return km.pages_quiet()

    assert not asyncio.run(quiet())
    km._kernels["page"].last_activity = pools.now() - timedelta(seconds=30)
    assert asyncio.run(quiet())
    km._kernels["pool"] = SimpleNamespace(last_activity=pools.now())  # no page connected: not a page's
    assert asyncio.run(quiet())


class _VirtualClockLoop:
    """An asyncio loop whose clock moves only when the loop would wait: ``asyncio.sleep(s)``
    returns at once, ``s`` later on the loop's clock (and on :func:`pools.now`, patched to follow
    it). Minutes of simulated visitors then take a fraction of a second, and no timing of the
    machine (its load) enters the test."""

    def __new__(cls):
        import asyncio
        import selectors

        class Selector(selectors.DefaultSelector):
            def select(self, timeout=None):
                if timeout:  # nothing ready before the next timer: jump to it
                    loop.virtual += timeout
                return super().select(0)

        class Loop(asyncio.SelectorEventLoop):
            virtual = 0.0

            def time(self):
                return self.virtual

        loop = Loop(Selector())
        return loop


class _Pages:
    """Visitors' pages as the kernel manager sees them, on a :class:`_VirtualClockLoop`: each is
    admitted (``DashboardServer.admitting``), given a kernel (``awaiting_page``, as
    ``DashboardServer.handed_out`` does), connects, has its kernel busy while it sends the widgets'
    state and after each slider move, then closes (its kernel stops)."""

    def __init__(self, km, server):
        self.km, self.server, self.n = km, server, 0

    async def visit(self, stay=13.0, admitted_for=0.3, connect_after=1.0, compute=0.5, move_every=4.0):
        import asyncio
        from types import SimpleNamespace

        km, loop = self.km, asyncio.get_running_loop()
        self.n += 1
        kid = f"page-{self.n}"
        t0 = loop.time()
        self.server.admitting += 1
        await asyncio.sleep(admitted_for)
        self.server.admitting -= 1
        kernel = km._kernels[kid] = SimpleNamespace(last_activity=pools.now(), execution_state="idle")
        km._kernel_connections[kid] = 0
        km.awaiting_page[kid] = pools.now()
        km.page_activity()
        await asyncio.sleep(connect_after)
        km.notify_connect(kid)

        async def talk():
            kernel.execution_state, kernel.last_activity = "busy", pools.now()
            await asyncio.sleep(compute)
            kernel.execution_state, kernel.last_activity = "idle", pools.now()

        await talk()  # the widgets' state
        while loop.time() - t0 + move_every < stay:
            await asyncio.sleep(move_every)
            await talk()  # a slider moved
        await asyncio.sleep(max(0.0, stay - (loop.time() - t0)))
        km._kernel_connections.pop(kid)  # the page closed: its kernel stopped
        km._kernels.pop(kid)


def _refill_scene(monkeypatch, **settings):
    """A kernel manager with a fake server (its ``admitting``) and pools of fake kernels, on a
    virtual clock: (loop, km, server, pages, ready, waiting) where ``ready()`` is a pool task
    done (a ready kernel) and ``waiting()`` one not done (a refill)."""
    from datetime import timedelta

    from traitlets.config import Configurable

    loop = _VirtualClockLoop()
    epoch = pools.now()
    monkeypatch.setattr(pools, "now", lambda: epoch + timedelta(seconds=loop.time()))
    server = Configurable()
    server.admitting = 0
    km = app.DashboardKernelManager(parent=server, refill_max_wait=600, **settings)
    km._pools = {}

    def ready():
        task = loop.create_future()
        task.set_result({"kernel_id": "pooled"})
        return task

    return loop, km, server, _Pages(km, server), ready, loop.create_future


def test_under_steady_traffic_a_refill_starts_beside_the_pages(monkeypatch):
    """Visitors arriving steadily, 0.3 a second, each staying 13 s and moving a slider every
    4 s (three to five pages open at any time, never ten seconds without a page at work): a
    pool that gave one of its two kernels away refills within seconds, not after a quiet spell
    that never comes."""
    import asyncio

    loop, km, server, pages, ready, _ = _refill_scene(monkeypatch)
    waited = {}

    async def scene():
        task = asyncio.current_task()
        km._pools["01.ipynb"] = [ready(), task]  # one kernel ready, this refill waiting
        visits = []

        async def traffic():
            for _ in range(60):  # three minutes
                visits.append(asyncio.ensure_future(pages.visit()))
                await asyncio.sleep(10 / 3)

        arrivals = asyncio.ensure_future(traffic())
        await asyncio.sleep(60)  # steady state: four or five pages open
        assert len(km._kernel_connections) >= 3
        t0 = loop.time()
        await km.refill_turn(task, "01.ipynb")
        waited["refill"] = loop.time() - t0
        waited["pages open"] = len(km._kernel_connections)
        await arrivals
        await asyncio.gather(*visits)

    loop.run_until_complete(scene())
    loop.close()
    assert waited["refill"] < 15, waited  # the old rule waited for 10 s without a page: past the traffic
    assert waited["pages open"] >= 3, waited  # it started while visitors were on the pages


def test_a_burst_is_served_before_its_refills_but_an_emptied_pool_refills_at_once(monkeypatch):
    """Eight visitors arrive at once. A pool that still holds a ready kernel (at its floor) waits
    until the burst's pages have settled down to ``refill_pages_at_work`` at work (the others
    connected, their state sent, their kernels idle for ``refill_quiet_seconds``), then starts.
    Pools the burst emptied refill at once, but no more than one beyond ``refill_concurrency``
    (one while visitors are on): of three, the third waits until the others have executed
    their notebooks."""
    import asyncio

    loop, km, server, pages, ready, waiting = _refill_scene(monkeypatch, refill_quiet_seconds=2)
    started = {}

    async def refill(notebook, task, execute=None):
        await km.refill_turn(task, notebook)
        started[notebook] = loop.time()
        if execute:  # its kernel executes the notebook (PreheatedPools counts it in refilling_notebooks)
            km.refilling_notebooks[notebook] = 1
            await asyncio.sleep(execute)
            km.refilling_notebooks[notebook] = 0

    async def scene():
        burst = [asyncio.ensure_future(pages.visit(stay=60, connect_after=1 + 0.3 * i, compute=1, move_every=100))
                 for i in range(8)]
        await asyncio.sleep(0.1)
        tasks = {nb: waiting() for nb in ("01", "02", "03", "04")}
        km._pools = {"01": [ready(), tasks["01"]], "02": [tasks["02"]], "03": [tasks["03"]], "04": [tasks["04"]]}
        await asyncio.gather(refill("01", tasks["01"]), refill("02", tasks["02"], execute=3),
                             refill("03", tasks["03"], execute=3), refill("04", tasks["04"]))
        await asyncio.gather(*burst)

    loop.run_until_complete(scene())
    loop.close()
    assert started["02"] < 0.5 and started["03"] < 0.5, started  # emptied by the burst: at once
    assert started["04"] >= 0.1 + 3, started  # when the first two have executed their notebooks
    last = 7 - km.refill_pages_at_work  # the last page not allowed beside a refill
    settled = 0.3 + 1 + 0.3 * last + 1 + 2  # that page connected, its state sent, then quiet
    assert settled <= started["01"] <= settled + 0.5, (settled, started)  # after the burst, at once


def test_an_emptied_pool_refills_beside_a_refill_that_executes_and_others_wait_their_turn(monkeypatch):
    """A visitor's page open (one refill at a time), a third notebook's refill executing until
    5 s: the refill of an empty pool starts at once beside it (its next visitor would otherwise
    wait for that kernel); the refill of a pool that still holds a kernel waits until no refill
    executes."""
    import asyncio
    from types import SimpleNamespace

    loop, km, server, pages, ready, waiting = _refill_scene(monkeypatch)
    started = {}

    async def refill(notebook, task, execute):
        await km.refill_turn(task, notebook)
        started[notebook] = loop.time()
        km.refilling_notebooks[notebook] = 1
        await asyncio.sleep(execute)
        km.refilling_notebooks[notebook] = 0

    async def scene():
        km._kernels["open tab"] = SimpleNamespace(last_activity=pools.now(), execution_state="idle")
        km._kernel_connections["open tab"] = 1  # a visitor: one refill at a time
        km.refilling_notebooks["03"] = 1
        at_floor, empty = waiting(), waiting()
        km._pools = {"01": [ready(), at_floor], "02": [empty]}
        first = asyncio.ensure_future(refill("01", at_floor, execute=3))
        await asyncio.sleep(0.1)
        second = asyncio.ensure_future(refill("02", empty, execute=3))
        await asyncio.sleep(4.9)
        km.refilling_notebooks["03"] = 0
        await asyncio.gather(first, second)

    loop.run_until_complete(scene())
    loop.close()
    assert started["02"] < 0.5 and 5 <= started["01"] < 5.5, started


def test_kernels_import_plotly_and_jsonschema_without_rfc3987_syntax():
    """The launcher's skipped import (1.6 CPU s per kernel start): what imports it still works."""
    code = ("import sys\nfrom delaylab.serve.kernel import skip_costly_imports\nskip_costly_imports()\n"
            "import plotly.graph_objects, nbformat, jsonschema\n"
            "nbformat.validate(nbformat.v4.new_notebook())\n"
            "print(sys.modules['rfc3987_syntax'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["None"], out.stderr[-2000:]


def test_kernels_under_the_server_load_plotlys_module_from_its_static_hashed_url(tmp_path):
    """The server serves plotly's widget module (with plotly.js's basic bundle, fetched at set-up)
    at a URL named by its content's hash, cached for good and gzipped; its kernels' figures carry
    that URL (and no 5 MB shared model)."""
    import gzip

    import nbformat

    from delaylab.viz import plotlyjs
    from delaylab.viz.widget import basic_module_name, dashboard_module, plotly_module

    assert plotlyjs.installed() is not None, "set-up fetches it: python -m delaylab.viz.plotlyjs"
    name, module, traces = dashboard_module()
    assert name == basic_module_name() and traces == plotlyjs.TRACES and len(module) < len(plotly_module()) / 3

    folder = tmp_path / "nb"
    folder.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os\nfrom delaylab.viz import widget\nfig = widget.FigureWidget()\n"
        "print('url=' + fig._plotly_url, 'code=' + fig._plotly_code, 'shared=' + str(widget._CODE),\n"
        "      'env=' + os.environ.get('DELAYLAB_PLOTLY_MODULE_URL', ''))")])
    nbformat.write(nb, folder / "probe.ipynb")
    url, _ = next(served := _serve(folder, tmp_path, "--DashboardServer.early_plotly=True"))
    try:
        path = "/delaylab/static/" + name
        page = urllib.request.urlopen(url + "/voila/render/probe.ipynb", timeout=300).read().decode()
        assert f"url={path} code= shared=None env={path}" in page, page[-3000:]
        head = page[:page.index("</head>")]  # fetched and compiled while the page's own scripts load
        assert f'<link rel="modulepreload" href="{path}">' in head
        # ...and evaluated in the page's first idle moment, from the very URL the figures import
        assert f'import(new URL("{path}", document.baseURI).href)' in head and "requestIdleCallback" in head

        zipped = urllib.request.urlopen(urllib.request.Request(url + path, headers={"Accept-Encoding": "gzip"}),
                                        timeout=60)
        assert zipped.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert zipped.headers["Content-Type"].startswith("text/javascript")
        assert zipped.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped.headers["Vary"]
        body = zipped.read()
        assert len(body) < len(module) / 2 and gzip.decompress(body) == module
        plain = urllib.request.urlopen(url + path, timeout=60)  # a client that takes no gzip
        assert plain.headers.get("Content-Encoding") is None and plain.read() == module
        for other in ("plotly-widget.0123456789abcdef0123.js", "plotly-widget.js"):  # another plotly's, or none
            with pytest.raises(urllib.error.HTTPError) as missing:
                urllib.request.urlopen(f"{url}/delaylab/static/{other}", timeout=60)
            assert missing.value.code == 404
    finally:
        served.close()  # the generator's `finally`: the server stops


def test_early_plotly_puts_the_module_in_the_head_and_can_be_turned_off():
    """``--DashboardServer.early_plotly``: a page's head asks for plotly's module and evaluates it
    early; off (the default: it measured no faster, see its help), the page is as Voila renders it."""
    from types import SimpleNamespace

    from delaylab.serve.app import DashboardPageHandler, DashboardServer

    url = "/delaylab/static/plotly-widget.0123456789abcdef0123.js"
    html = "<html><head><title>t</title></head><body></body></html>"
    for early in (True, False):
        server = SimpleNamespace(early_plotly=early, plotly_module_url=lambda: url)
        handler = SimpleNamespace(settings={"voila": server})
        out = DashboardPageHandler.preload_plotly_module(handler, html)
        head = out[:out.index("</head>")]
        assert (f'<link rel="modulepreload" href="{url}">' in head) is early
        assert (f'import(new URL("{url}", document.baseURI).href)' in head) is early
        assert out.replace(head, "") == html.replace(html[:html.index("</head>")], "")
    assert DashboardServer().early_plotly is False
    # a chunk of the streamed page without the head's end is passed on as it is
    assert DashboardPageHandler.preload_plotly_module(handler, "<div>cell</div>") == "<div>cell</div>"


def test_voila_json_gives_a_cells_last_outputs_time_on_a_busy_machine():
    """nbclient's default 4 s for a cell's last outputs after its reply was exceeded once with six
    kernels starting at once on 2 cores (its warning, then outputs lost: see
    tests/test_browser.py, assert_no_output_lost). voila.json's executor waits up to 60 s (it
    returns as soon as the outputs are in), and still stops a cell after 300 s."""
    import nbformat
    from traitlets.config import Config
    from voila.execute import VoilaExecutor

    config = Config(json.loads((Path(__file__).resolve().parents[1] / "voila.json").read_text()))
    executor = VoilaExecutor(nbformat.v4.new_notebook(), config=config)
    assert executor.iopub_timeout == 60 and executor.timeout == 300 and executor.skip_cells_with_tag == "hide"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is what makes the kernel die here")
@pytest.mark.parametrize("preheat", [False, True])
def test_a_page_whose_kernel_dies_says_so_instead_of_computing_for_good(tmp_path, preheat):
    """A kernel that dies at its start (here: a 40 MiB memory cap, too small for Python) left
    Voila's page with its "computing" bar for good: a freshly started kernel's page waited for
    its cells forever (heartbeats only), a dead preheated kernel's page stopped half-way. The
    page now tells the visitor to reload, and the dead kernel holds no visitor's place."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Tiny"),
                                         nbformat.v4.new_code_cell("print(6 * 7)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "tiny.ipynb")
    port = _free_port()
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "delaylab.serve", str(tmp_path), "--no-browser", f"--port={port}",
                             "--Voila.ip=127.0.0.1", f"--VoilaConfiguration.preheat_kernel={preheat}",
                             "--DashboardKernelSpecManager.memory_mb=40"],
                            cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "DELAYLAB_WARMUP": "0"})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                st = _status(url)
                if not preheat or (st["pooled"] and st["pool_ready"] == st["pooled"]):
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            assert proc.poll() is None and time.time() < deadline, (tmp_path / "server.log").read_text()[-3000:]
            time.sleep(0.3)
        t0 = time.perf_counter()
        page = urllib.request.urlopen(url + "/voila/render/tiny.ipynb", timeout=120).read().decode()
        took = time.perf_counter() - t0
        assert "could not start its computations" in page and "Traceback" not in page, page[-1500:]
        assert took < 100, took  # the kernel is given up after jupyter_client's restarts, then one heartbeat
        told = re.search(r"the kernel ([0-9a-f-]{36}) of a page of tiny.ipynb .* the visitor is told to reload",
                         (tmp_path / "server.log").read_text())
        assert told, (tmp_path / "server.log").read_text()[-3000:]
        deadline = time.time() + 30  # the dead kernel is stopped: it holds no visitor's place
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/kernels/{told.group(1)}", timeout=10)
            except urllib.error.HTTPError as exc:
                assert exc.code == 404
                break
            assert time.time() < deadline, f"kernel {told.group(1)} still listed"
            time.sleep(0.3)
        assert _status(url)["admitting"] == 0
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def test_with_ready_wait_the_port_opens_once_every_notebook_has_a_preheated_kernel(tmp_path):
    """``--DashboardServer.ready_wait`` (what ``tasks.py dashboard`` sets, issue 37): the server's
    first answer already finds every notebook's pool holding a kernel that has executed its
    notebook (one of them takes 4 s), so no first visitor waits for a kernel still starting."""
    import nbformat

    for name, code in (("quick", "x = 6 * 7"), ("slow", "import time\ntime.sleep(4)\nx = 1")):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
    port = _free_port()
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "delaylab.serve", str(tmp_path), "--no-browser", f"--port={port}",
                             "--Voila.ip=127.0.0.1", "--VoilaConfiguration.preheat_kernel=True",
                             "--VoilaConfiguration.default_pool_size=1", "--DashboardServer.ready_wait=300"],
                            cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "DELAYLAB_WARMUP": "0"})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 300
        while True:
            try:
                st = _status(url)
                break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None and time.time() < deadline, (tmp_path / "server.log").read_text()[-3000:]
                time.sleep(0.1)
        assert st["pool_ready"] == 2 and st["pool_starting"] == 0, st
        assert "ready: 2 notebooks with a preheated kernel" in (tmp_path / "server.log").read_text()
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def test_the_notebooks_link_to_the_readings_opens_a_page_and_nothing_else_is_served(server):
    """The notebooks' ``../docs/readings.md`` resolves, from ``/voila/render/<notebook>``, to
    ``/voila/docs/readings.md``: the document as a page, scripts forbidden; any other document, a
    missing one, or a way out of the folder is a 404."""
    url, _ = server
    index = urllib.request.urlopen(url + "/voila/render/00_index.ipynb", timeout=300).read().decode()
    # each shown cell once on the page (the template once wrapped every cell twice)
    import nbformat

    nb = nbformat.read(ROOT / "notebooks" / "00_index.ipynb", as_version=4)
    shown = sum("hide" not in c.metadata.get("tags", []) for c in nb.cells)
    assert index.count("<div cell-index=") == shown and len(re.findall(r"voila_process\(\d", index)) == shown
    link = re.search(r'href="(\.\./docs/readings\.md)"', index)
    assert link, "the index links to the readings"
    target = urllib.parse.urljoin(url + "/voila/render/00_index.ipynb", link.group(1))
    with urllib.request.urlopen(target, timeout=60) as response:
        page = response.read().decode()
        assert response.headers["Content-Type"].startswith("text/html")
        assert "script-src" not in response.headers["Content-Security-Policy"]
        assert response.headers["Content-Security-Policy"].startswith("default-src 'none'")
    first_heading = re.search(r"^# (.+)$", (ROOT / "docs" / "readings.md").read_text(), re.M).group(1)
    assert f"<title>{first_heading} · delaylab</title>" in page and '<html lang="en">' in page and "<main>" in page
    assert "<h2" in page and "**" not in page  # markdown rendered, not shown raw
    for path in ("/voila/docs/instructor.md", "/voila/docs/nothing.md", "/voila/docs/..%2Fdocs%2Freadings.md",
                 "/voila/docs/readings.txt"):
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(url + path, timeout=60)
        assert missing.value.code == 404, path


def test_a_document_is_found_only_by_its_name_in_a_docs_folder_under_the_root(tmp_path):
    from delaylab.serve.documents import find

    root, outside = tmp_path / "home", tmp_path / "docs"
    (root / "course" / "docs").mkdir(parents=True)
    outside.mkdir()
    for folder in (root / "course" / "docs", outside):
        (folder / "readings.md").write_text("# R\n")
        (folder / "instructor.md").write_text("# I\n")
    assert find(root, "course/", "readings") == (root / "course" / "docs" / "readings.md").resolve()
    assert find(root, "course/", "instructor") is None  # not a document the notebooks link to
    assert find(root, "", "readings") is None  # no such file
    assert find(root, "../", "readings") is None  # outside the root, though it exists
    assert find(root, "course/../../", "readings") is None
    (root / "course" / "docs" / "readings.md").unlink()
    (root / "course" / "docs" / "readings.md").symlink_to(outside / "readings.md")
    assert find(root, "course/", "readings") is None  # a link out of the root


def test_the_dashboards_serve_every_document_a_notebook_links_to():
    from delaylab.serve.documents import DOCUMENTS
    from delaylab.site.build import linked_documents

    linked = {p.stem for p in linked_documents(sorted((ROOT / "notebooks").glob("*.ipynb")))}
    assert linked and set(DOCUMENTS) == linked
