"""One visitor of a public dashboard server must not freeze it, lock the others out, or make it
grow (delaylab/serve/guards.py): each test reproduces what one client could do to the server, on
127.0.0.1, with a tiny notebook (a kernel that starts fast), and checks the server's answer to
that client and to the others."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from delaylab.serve import app, guards
from processes import stop

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(os.name != "posix", reason="servers with Unix-socket kernels, /proc")


def _free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tiny(folder: Path, first_cell="x = 6 * 7\nprint(x)") -> Path:
    import nbformat

    folder.mkdir(parents=True, exist_ok=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Tiny"), nbformat.v4.new_code_cell(first_cell)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / "tiny.ipynb")
    return folder


class Server:
    """A dashboard server on 127.0.0.1 (no pool), its process and its log."""

    def __init__(self, folder: Path, tmp_path: Path, *extra):
        self.port = _free_port()
        self.log_path = tmp_path / "server.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "delaylab.serve", str(folder), "--no-browser", f"--port={self.port}",
             "--Voila.ip=127.0.0.1", "--VoilaConfiguration.preheat_kernel=False", *extra],
            cwd=folder, stdout=self.log, stderr=subprocess.STDOUT, env={**os.environ, "DELAYLAB_WARMUP": "0"})
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 120
        while True:
            try:
                self.status()
                break
            except Exception:
                assert self.proc.poll() is None and time.time() < deadline, self.text()[-3000:]
                time.sleep(0.3)

    def status(self) -> dict:
        return json.load(urllib.request.urlopen(self.url + "/delaylab/status", timeout=30))

    def text(self) -> str:
        return self.log_path.read_text()

    def get(self, path, headers=None, timeout=120):
        """(status, body, headers) of a GET, errors included; at most ``timeout`` s in all (a page
        streams heartbeats while it waits: a read timeout would never come)."""
        from tornado.httpclient import HTTPClient, HTTPClientError

        client = HTTPClient()
        try:
            r = client.fetch(self.url + path, headers=headers or {}, request_timeout=timeout, raise_error=False)
        except HTTPClientError as exc:  # 599: timed out
            return exc.code, str(exc), {}
        finally:
            client.close()
        return r.code, (r.body or b"").decode(), r.headers

    def rss_peak_kb(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(re.search(r"VmHWM:\s+(\d+)", status).group(1))

    def close(self):
        stop(self.proc)
        self.log.close()


@pytest.fixture
def tiny_server(tmp_path):
    server = Server(_tiny(tmp_path / "nb"), tmp_path, "--DashboardServer.max_kernels=3")
    yield server
    server.close()


async def _open_page(url, headers=None):
    """A page's kernel and its websocket (the v1 protocol), as tests/visitor.py opens them."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    from visitor import PROTOCOL, ProtocolVisitor

    visitor = ProtocolVisitor(url, "tiny.ipynb")
    await visitor.get_page()
    assert visitor.status == 200 and visitor.kernel_id, visitor.body[-2000:]
    visitor.ws = await websocket_connect(HTTPRequest(_ws_url(visitor), headers={"Cookie": visitor._cookie_header(),
                                                                             **(headers or {})}),
                                         subprotocols=[PROTOCOL])
    visitor._reader = asyncio.ensure_future(visitor._read())
    await _kernel_info(visitor)
    return visitor


def _ws_url(visitor):
    return (f"{visitor.base_url.replace('http', 'ws', 1)}/api/kernels/{visitor.kernel_id}/channels"
            f"?session_id={uuid.uuid4().hex}")


async def _kernel_info(visitor, timeout=120):
    reply = visitor.expect(lambda ch, m: m["header"]["msg_type"] == "kernel_info_reply")
    await visitor.send("shell", "kernel_info_request", {})
    return (await asyncio.wait_for(reply, timeout))[1]


def _run(coro, timeout=300):
    return asyncio.run(asyncio.wait_for(coro, timeout))


# ---------------------------------------------------------------------------------- finding 1
def test_a_frame_with_a_huge_offset_count_is_refused_before_any_allocation(tiny_server):
    """A 16-byte v1 frame claiming 4·10⁷ offsets: jupyter_server built a list that long in the
    event loop (seconds, hundreds of MB). Refused at once and the socket closed; the server
    answers others meanwhile and its peak memory does not jump; the kernel stays."""
    server = tiny_server

    async def scenario():
        visitor = await _open_page(server.url)
        peak = server.rss_peak_kb()
        frame = (4 * 10**7).to_bytes(8, "little") + (64).to_bytes(8, "little")
        await visitor.ws.write_message(frame, binary=True)
        await asyncio.sleep(0.2)
        t0 = time.perf_counter()
        await asyncio.get_running_loop().run_in_executor(None, server.status)
        answered = time.perf_counter() - t0
        await asyncio.wait_for(visitor._reader, 30)  # the page's reader: its socket was closed
        return visitor, peak, answered

    visitor, peak, answered = _run(scenario())
    assert answered < 2.0, f"another request waited {answered:.1f} s while the frame was handled"
    assert visitor.ws.close_code == guards.CLOSE_MALFORMED
    assert server.rss_peak_kb() - peak < 100_000, "the server's peak memory jumped"
    assert server.status()["kernels"] == 1
    assert "cannot hold" in server.text()


def test_malformed_frames_close_the_socket_with_one_log_line_and_no_traceback(tiny_server):
    """Frames jupyter_server cannot parse (offsets beyond the frame, a header that is not JSON)
    each logged a full traceback: now each closes its socket, one line per client per minute."""
    server = tiny_server

    async def scenario():
        from visitor import pack

        visitor = await _open_page(server.url)
        bad = [pack("shell", [b"not json", b"{}", b"{}", b"{}"]),  # a header that is not JSON
               (6).to_bytes(8, "little") + b"".join((10**6).to_bytes(8, "little") for _ in range(6)),  # offsets
               pack("nochannel", [json.dumps({"msg_type": "comm_msg"}).encode(), b"{}", b"{}", b"{}"])]
        codes = []
        for frame in bad * 3:
            visitor.ws = await _reconnect(visitor)
            await visitor.ws.write_message(frame, binary=True)
            assert await asyncio.wait_for(visitor.ws.read_message(), 30) is None
            codes.append(visitor.ws.close_code)
        visitor.ws = await _reconnect(visitor)  # the kernel still answers a good page
        visitor._reader = asyncio.ensure_future(visitor._read())
        await _kernel_info(visitor)
        return codes

    codes = _run(scenario())
    assert codes == [guards.CLOSE_MALFORMED] * 9
    log = server.text()
    assert "Traceback" not in log and "Uncaught exception" not in log, log[-3000:]
    assert len(re.findall(r"a malformed frame", log)) == 1, log[-3000:]


async def _reconnect(visitor):
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    from visitor import PROTOCOL

    return await websocket_connect(HTTPRequest(_ws_url(visitor), headers={"Cookie": visitor._cookie_header()}),
                                   subprotocols=[PROTOCOL])


def test_frame_checks_bound_their_work_by_the_frames_length():
    from visitor import pack

    good = pack("shell", [json.dumps({"msg_type": "comm_msg"}).encode(), b"{}", b"{}", b"{}"])
    assert guards.frame_problem(good, guards.V1) is None
    assert guards.frame_message_type(good, guards.V1) == "comm_msg"
    huge = (2**64 - 1).to_bytes(8, "little") + bytes(8)
    assert "cannot hold" in guards.frame_problem(huge, guards.V1)
    assert guards.frame_problem(bytes(3), guards.V1)
    legacy = (2**31 - 1).to_bytes(4, "big") + bytes(8)  # the legacy protocol's count: a 2 GB format string
    assert guards.frame_problem(legacy, None)
    assert guards.frame_problem("text", guards.V1) and guards.frame_problem("{}", None) is None
    # the legacy protocol: a page may not send shutdown_request there either
    message = json.dumps({"header": {"msg_type": "shutdown_request"}, "channel": "control"})
    assert guards.frame_message_type(message, None) == "shutdown_request"
    body = message.encode()
    binary = (2).to_bytes(4, "big") + (12).to_bytes(4, "big") + (12 + len(body)).to_bytes(4, "big") + body + b"buf"
    assert guards.frame_problem(binary, None) is None
    assert guards.frame_message_type(binary, None) == "shutdown_request"
    single = (1).to_bytes(4, "big") + (8).to_bytes(4, "big") + body
    assert guards.frame_problem(single, None) is None and guards.frame_message_type(single, None) == "shutdown_request"
    assert guards.frame_message_type("[1]", None) is None and guards.frame_message_type("nope", None) is None


# ---------------------------------------------------------------------------------- finding 2
def test_one_clients_burst_does_not_lock_out_the_others(tmp_path):
    """Five page requests at once from one client (behind the local reverse proxy: X-Real-IP),
    never connecting: two get a kernel, one the busy page (pages loading), two 429 (requests per
    minute), each with its reason; an honest visitor from another address then gets a seat."""
    server = Server(_tiny(tmp_path / "nb"), tmp_path, "--DashboardServer.max_kernels=3",
                    "--DashboardServer.client_pages_loading=2", "--DashboardServer.client_requests_per_minute=3",
                    "--DashboardServer.client_address_header=X-Real-IP")
    try:
        from concurrent.futures import ThreadPoolExecutor

        burst = {"X-Real-IP": "10.0.0.1"}
        with ThreadPoolExecutor(5) as pool:
            answers = list(pool.map(lambda _: server.get("/voila/render/tiny.ipynb", burst), range(5)))
        codes = sorted(code for code, _, _ in answers)
        assert codes == [200, 200, 429, 429, 503], codes
        busy = next(body for code, body, _ in answers if code == 503)
        assert "loading from your address" in busy
        assert all(int(h["Retry-After"]) > 0 for code, _, h in answers if code != 200)
        log = server.text()
        assert "client 10.0.0.1 has 2 pages loading" in log and "client 10.0.0.1 made more than 3" in log
        deadline = time.time() + 30  # the budget: a seat within 30 s
        while True:
            code, body, _ = server.get("/voila/render/tiny.ipynb", {"X-Real-IP": "10.0.0.2"})
            if code == 200:
                break
            assert time.time() < deadline, (code, body[-500:])
            time.sleep(1)
        assert "kernelId" in body
    finally:
        server.close()


def test_an_ipv6_client_is_its_64_network():
    """One subscriber gets a whole /64: its 2**64 addresses must not be 2**64 clients."""
    assert guards.client_key("2001:db8:1:2:aaaa::1") == guards.client_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert guards.client_key("2001:db8:1:3::1") != guards.client_key("2001:db8:1:2::1")
    assert guards.client_key("::ffff:192.0.2.7") == "192.0.2.7" and guards.client_key("192.0.2.7") == "192.0.2.7"
    assert guards.client_key("::1") == "::1" and guards.client_key("not an address") == "not an address"


def test_a_negative_limit_is_refused_naming_the_option():
    from traitlets import TraitError

    with pytest.raises(TraitError, match=r"client_pages_loading=-1: a limit must be 0 \(none\) or more"):
        app.DashboardServer(client_pages_loading=-1)
    assert app.DashboardServer(max_websockets_per_kernel=0).max_websockets_per_kernel == 0


def test_client_limits_forget_old_requests_and_hold_a_bounded_number_of_clients():
    limits = guards.ClientLimits(requests_per_minute=2, clients=3)
    assert limits.request("a", now=0) and limits.request("a", now=1) and not limits.request("a", now=2)
    assert limits.retry_after("a", now=2) == 59
    assert limits.request("a", now=61)  # the first one has left the window
    for c in "bcde":
        limits.request(c, now=70)
    assert len(limits.requests) == 3 and "a" not in limits.requests
    # the machine itself (tests, benchmarks, a proxy that does not name the client) is not limited
    assert all(limits.request(local, now=80) for local in ("127.0.0.1", "::1") for _ in range(5))


# ---------------------------------------------------------------------------------- finding 3
def test_an_unknown_template_or_theme_is_refused_before_a_kernel_starts(tiny_server):
    server = tiny_server
    for query, named in (("template=nope", "template"), ("theme=%3Cscript%3E", "theme")):
        code, body, _ = server.get(f"/voila/render/tiny.ipynb?{query}")
        assert code == 400 and f"unknown {named}" in body and "<script>" not in body, (code, body[-500:])
    st = server.status()
    assert (st["kernels"], st["admitting"], st["load"]) == (0, 0, 0), st
    log = server.text()
    assert "Kernel started" not in log and "Task exception was never retrieved" not in log, log[-3000:]


# ---------------------------------------------------------------------------------- finding 4
def test_websockets_per_kernel_are_capped_and_given_back_when_closed(tmp_path):
    server = Server(_tiny(tmp_path / "nb"), tmp_path, "--DashboardServer.max_websockets_per_kernel=3")
    try:
        async def scenario():
            from tornado.httpclient import HTTPClientError
            from tornado.websocket import WebSocketError

            visitor = await _open_page(server.url)
            extra = [await _reconnect(visitor) for _ in range(2)]
            with pytest.raises((HTTPClientError, WebSocketError)) as refused:
                await _reconnect(visitor)
            for ws in extra:
                ws.close()
            await asyncio.sleep(1)
            again = await _reconnect(visitor)  # closed ones are given back
            again.close()
            return refused.value

        refused = _run(scenario())
        assert getattr(refused, "code", None) == 429, refused
        assert "3 open, the most per kernel" in server.text()
    finally:
        server.close()


# ---------------------------------------------------------------------------------- finding 5
def test_a_pages_shutdown_request_is_dropped_like_execute_request(tiny_server):
    """shutdown_request on the page's websocket made the kernel exit and restart five times, then
    be given up with its files left behind: now it is dropped, and the kernel keeps running."""
    server = tiny_server

    async def scenario():
        visitor = await _open_page(server.url)
        before = (await _kernel_info(visitor))["header"]["session"]
        await visitor.send("control", "shutdown_request", {"restart": False})
        await visitor.send("shell", "execute_request", {"code": "import os; os._exit(3)", "silent": False})
        # the same on the legacy protocol (JSON text frames, offered by not asking for v1)
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        legacy = await websocket_connect(HTTPRequest(_ws_url(visitor), headers={"Cookie": visitor._cookie_header()}))
        assert legacy.selected_subprotocol is None
        header = {"msg_id": uuid.uuid4().hex, "msg_type": "shutdown_request", "username": "", "session": "s",
                  "date": "2026-01-01T00:00:00Z", "version": "5.3"}
        await legacy.write_message(json.dumps({"header": header, "parent_header": {}, "metadata": {},
                                               "content": {"restart": False}, "channel": "control"}))
        await asyncio.sleep(3)
        legacy.close()
        after = (await _kernel_info(visitor, 30))["header"]["session"]
        return before, after

    before, after = _run(scenario())
    assert before == after  # the same kernel process, not a restarted one
    log = server.text()
    assert "restarting" not in log.lower() and "dropped a 'shutdown_request' message" in log, log[-3000:]


def test_a_dead_kernels_connection_and_socket_files_are_removed_with_it(tmp_path):
    """A kernel that died and could not be restarted was dropped from the server's map with its
    connection file and Unix socket files left in the connection folder."""
    from jupyter_client.manager import AsyncKernelManager

    km = app.DashboardKernelManager(connection_dir=str(tmp_path))
    kernel = AsyncKernelManager(connection_file=str(tmp_path / "kernel-x.json"), transport="ipc",
                                ip=str(tmp_path / "kernel-x-ipc"))
    kernel.write_connection_file()
    for port in kernel.ports:
        Path(f"{kernel.ip}-{port}").touch()  # what the kernel's bound sockets leave
    assert len(list(tmp_path.iterdir())) == 6
    km._kernels["x"] = kernel
    km._handle_kernel_died("x")
    assert "x" not in km._kernels and list(tmp_path.iterdir()) == []


def test_request_info_is_forgotten_when_its_kernel_stops_and_bounded():
    """Voila keeps each preheated kernel's request details (its query string, served at
    /voila/query/<kernel id>) for the server's life: now until its kernel stops, at most a bounded number."""
    from voila.request_info_handler import RequestInfoSocketHandler

    km = app.DashboardKernelManager()
    cache = RequestInfoSocketHandler._cache
    cache.clear()
    RequestInfoSocketHandler.send_updates({"kernel_id": "k1", "payload": {"QUERY_STRING": "a" * 1000}})
    km._kernels["k1"] = SimpleNamespace()
    km.remove_kernel("k1")
    assert "k1" not in cache
    for i in range(guards.REQUEST_INFO_MAX + 50):
        RequestInfoSocketHandler.send_updates({"kernel_id": f"k{i}", "payload": {}})
    assert len(cache) <= guards.REQUEST_INFO_MAX
    cache.clear()


# ---------------------------------------------------------------------------------- finding 7
def test_a_page_whose_kernel_is_starting_counts_once(tmp_path):
    """While a page's kernel executes its notebook, the visitor was counted twice (admitting and
    kernel): with a cap of 2, a second visitor was told "busy: 2 visitors"."""
    server = Server(_tiny(tmp_path / "nb", "import time\ntime.sleep(8)\nprint(42)"), tmp_path,
                    "--DashboardServer.max_kernels=2")
    try:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(server.get, "/voila/render/tiny.ipynb")
            deadline = time.time() + 60
            while not server.status()["kernels"]:
                assert time.time() < deadline and not first.done()
                time.sleep(0.2)
            time.sleep(1)
            st = server.status()
            assert not first.done(), "the page finished before the count was read"
            assert st["load"] == 1, st
            second = server.get("/voila/render/tiny.ipynb")  # a seat left: served
            assert second[0] == 200, second[1][-500:]
            assert first.result()[0] == 200
    finally:
        server.close()


def test_the_culler_passes_over_a_kernel_that_stopped_during_its_pass():
    km = app.DashboardKernelManager(cull_idle_timeout=60)
    asyncio.run(km.cull_kernel_if_idle("gone-already"))  # jupyter_server: KeyError


def test_logout_and_template_paths_outside_static_answer_404_without_a_traceback(tiny_server):
    server = tiny_server
    for path in ("/logout", "/voila/templates/lab/static/..%2f..%2f..%2fetc%2fpasswd",
                 "/voila/templates/lab/nostatic/x.js", "/voila/templates/lab"):
        code, _, _ = server.get(path)
        assert code == 404, (path, code)
    assert server.get("/voila/templates/lab/static/voila.js")[0] in (200, 404)  # the form itself still served
    log = server.text()
    assert "Traceback" not in log and "500 GET" not in log, log[-3000:]


def test_the_protocol_visitor_moves_a_log_slider_to_a_new_value():
    """Notebook 01's μ slider is a FloatLogSlider (its value is base**exponent): stepping the value
    by ``step`` as if linear landed, once the kernel snapped it, on the same value."""
    from visitor import slider_move

    state = {"value": 10 ** 1.5, "min": 0.0, "max": 2.0, "step": 0.1, "base": 10.0}
    new = slider_move("FloatLogSliderModel", state)
    assert new == pytest.approx(10 ** 1.6)
    assert slider_move("FloatLogSliderModel", {**state, "value": 100.0}) == pytest.approx(10 ** 1.9)
    assert slider_move("IntSliderModel", {"value": 3, "min": 0, "max": 3, "step": 1}) == 2
    assert slider_move("FloatSliderModel", {"value": 0.5, "min": 0, "max": 1, "step": 0.25}) == 0.75


def test_sigterm_to_tasks_dashboard_stops_the_server(tmp_path):
    """`python3 tasks.py dashboard` under a service manager: SIGTERM ended tasks.py and left the
    server (and its kernels) running, orphaned. tasks.py now becomes the server (exec)."""
    port = _free_port()
    log = open(tmp_path / "tasks.log", "w")
    proc = subprocess.Popen([sys.executable, str(ROOT / "tasks.py"), "dashboard", str(port),
                             "--VoilaConfiguration.preheat_kernel=False"], cwd=ROOT, stdout=log,
                            stderr=subprocess.STDOUT, env={**os.environ, "DELAYLAB_WARMUP": "0"})
    url = f"http://127.0.0.1:{port}/delaylab/status"

    def answering():
        try:
            urllib.request.urlopen(url, timeout=5)
            return True
        except (urllib.error.URLError, ConnectionError, OSError):
            return False

    try:
        deadline = time.time() + 240
        while not answering():
            assert proc.poll() is None and time.time() < deadline, (tmp_path / "tasks.log").read_text()[-3000:]
            time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
        deadline = time.time() + 30
        while answering():
            assert time.time() < deadline, "the server still answers after tasks.py got SIGTERM"
            time.sleep(0.5)
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _pids_with(f"--port={port}"):  # an orphaned server, if any
            os.kill(pid, signal.SIGKILL)
        log.close()


def _pids_with(text):
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmdline and int(entry.name) != os.getpid():
                pids.append(int(entry.name))
    return pids
