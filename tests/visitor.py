"""A dashboard visitor at the protocol level: what a Voila 0.5 page asks of the server, without
drawing anything.

Why: ten visitors' pages drawn by one chromium on the server's own two cores measure that
machine's browser (about 11 CPU s of JavaScript, widget rendering and plotly drawing per page),
not the server, whose kernels and tornado spent about 13 CPU s on all ten visits. A real
audience's browsers run on their own devices; :class:`ProtocolVisitor` puts on the server exactly
the load of one such page, in a few milliseconds of this process's CPU.

What a page does, read from voila 0.5.13's and ipywidgets 8's JavaScript (and checked against a
real page's websocket frames, see tests/test_browser.py's load check):

1. ``GET /voila/render/<nb>``, streamed: the page's config names its ``kernelId``; the server sets
   the ``_xsrf`` cookie. The widgets' views in the outputs name their root models.
2. ``GET /api/kernels/<id>`` (the widget manager's ``KernelAPI.getKernelModel``), then the
   kernel's websocket ``/api/kernels/<id>/channels?session_id=<uuid>`` with the subprotocol
   ``v1.kernel.websocket.jupyter.org`` (jupyter_server's binary framing), and a
   ``kernel_info_request``.
3. The widgets' state, as ipywidgets 8's manager asks for it: a ``comm_open`` of target
   ``jupyter.widget.control`` (metadata version 1.0.0), ``{"method": "request_states"}`` on it;
   the kernel answers with one ``update_states`` message holding every model's state, and the
   control comm is closed. The first figure's state (a model with ``_widget_data``) has then
   arrived: the page would now draw it. Each figure's view then sends ``_view_count``.
4. A slider moved: ``comm_msg`` ``{"method": "update", "state": {"value": v}}`` to the first
   enabled slider (in the page's order), one keyboard step; timed until the kernel is idle
   again after it, having sent at least one update to a figure.
5. Leaving: the page's ``beforeunload`` POST to ``/voila/api/shutdown/<id>`` with the ``_xsrf``
   value (see delaylab/serve/handlers.py), or a bare disconnect (then the culler stops the kernel).

What it does not do: fetch the page's scripts and styles (static files), and send the messages
plotly's JavaScript sends back once it has drawn a figure (``_js2py_traceDeltas``,
``_js2py_widget_layoutDelta``: the figure's computed defaults, which only plotly.js can compute).
Measured per visit (the load check's validation test, three runs): a real page cost the server and
its kernel 0.5-0.7 CPU s, a protocol visitor 0.2-0.3 CPU s, besides the browser's 6-7 CPU s.

Everything runs on one asyncio loop (tornado's HTTP and websocket clients: no new dependency);
:class:`VisitorsThread` runs several visitors at once in a thread of their own.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import threading
import time
import uuid
from datetime import datetime, timezone
from urllib.parse import quote

from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

PROTOCOL = "v1.kernel.websocket.jupyter.org"
_KERNEL_ID = re.compile(r'"kernelId":\s*"([0-9a-f-]{36})"')
_VIEW = re.compile(r'"model_id":\s*"([0-9a-f]{32})"')
SLIDERS = {"IntSliderModel": "value", "FloatSliderModel": "value", "FloatLogSliderModel": "value",
           "SelectionSliderModel": "index"}


def pack(channel: str, parts: list) -> bytes:
    """jupyter_server's v1 websocket framing: the number of offsets, the offsets, then the
    channel, header, parent header, metadata, content and any buffers."""
    channel_b = channel.encode()
    offsets = [8 * (1 + 1 + len(parts) + 1)]
    offsets.append(offsets[-1] + len(channel_b))
    for p in parts:
        offsets.append(offsets[-1] + len(p))
    return b"".join([len(offsets).to_bytes(8, "little"), *(o.to_bytes(8, "little") for o in offsets), channel_b, *parts])


def unpack(frame: bytes):
    """(channel, message dict with ``buffers``) from a v1 frame."""
    n = int.from_bytes(frame[:8], "little")
    offsets = [int.from_bytes(frame[8 * (i + 1):8 * (i + 2)], "little") for i in range(n)]
    channel = frame[offsets[0]:offsets[1]].decode()
    parts = [frame[offsets[i]:offsets[i + 1]] for i in range(1, n - 1)]
    header, parent, metadata, content = (json.loads(p) for p in parts[:4])
    return channel, {"header": header, "parent_header": parent, "metadata": metadata, "content": content,
                     "buffers": parts[4:]}


def slider_move(model_name: str, state: dict):
    """The value a page sends for one keyboard step of a slider (``state``: its widget state):
    one step up, or down when that would pass its maximum. A ``FloatLogSlider``'s ``min``,
    ``max`` and ``step`` are exponents of its ``base`` (its value is ``base ** exponent``): the
    step is taken on the exponent, as the page's slider does. A selection slider: its index."""
    if SLIDERS[model_name] == "index":
        top, value = len(state["_options_labels"]) - 1, state["index"]
        return value - 1 if value >= top else value + 1
    step, top = state.get("step") or 1, state["max"]
    if model_name == "FloatLogSliderModel":
        base = state.get("base") or 10.0
        exponent = math.log(state["value"], base)
        exponent = exponent - step if exponent + step > top + 1e-12 else exponent + step
        return base ** min(max(exponent, state["min"]), top)
    value = state["value"]
    new = value - step if value + step > top + 1e-12 else value + step
    return int(new) if model_name == "IntSliderModel" else new


class ProtocolVisitor:
    """One visitor's page, at the protocol level (see the module's docstring). Times in seconds
    from :meth:`visit`'s start: ``page_s`` (the page's HTML complete), ``connected_s`` (kernel
    info replied), ``state_s`` (every widget's state arrived, the first figure's included);
    :meth:`move_slider` returns its latency."""

    def __init__(self, base_url: str, notebook: str, name: str = "visitor"):
        self.base_url = base_url.rstrip("/")
        self.notebook = notebook
        self.name = name
        self.session = uuid.uuid4().hex
        self.cookies: dict = {}
        self.kernel_id = None
        self.status = None  # HTTP status of the page
        self.body = ""
        self.states: dict = {}
        self.ws = None
        self.times: dict = {}
        self.received = 0  # websocket messages received
        self.sent = 0  # ... and sent
        self._waiters: list = []  # (predicate, future)
        self._reader = None

    # ------------------------------------------------------------------ HTTP
    def _cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    def _header_line(self, line: str) -> None:
        if line.lower().startswith("set-cookie:"):
            name, _, rest = line.split(":", 1)[1].strip().partition("=")
            self.cookies[name] = rest.split(";", 1)[0]

    async def get_page(self) -> int:
        """The page, streamed as a browser reads it; its status (503: the busy page)."""
        chunks = []
        request = HTTPRequest(f"{self.base_url}/voila/render/{quote(self.notebook)}", request_timeout=600,
                              header_callback=self._header_line, streaming_callback=lambda c: chunks.append(c))
        response = await AsyncHTTPClient().fetch(request, raise_error=False)
        self.status = response.code
        self.body = b"".join(chunks).decode("utf-8", "replace")
        found = _KERNEL_ID.search(self.body)
        self.kernel_id = found and found.group(1)
        return self.status

    # ------------------------------------------------------------------ kernel messages
    def _message(self, msg_type: str, content: dict, metadata=None) -> tuple:
        header = {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "username": "", "session": self.session,
                  "date": datetime.now(timezone.utc).isoformat(), "version": "5.3"}
        parts = [json.dumps(x).encode() for x in (header, {}, metadata or {}, content)]
        return header["msg_id"], parts

    async def send(self, channel: str, msg_type: str, content: dict, metadata=None) -> str:
        msg_id, parts = self._message(msg_type, content, metadata)
        await self._write(channel, parts)
        return msg_id

    async def _write(self, channel, parts):
        self.sent += 1
        await self.ws.write_message(pack(channel, parts), binary=True)

    def expect(self, predicate) -> asyncio.Future:
        """A future for the first message from now on for which ``predicate(channel, msg)`` holds."""
        future = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        return future

    async def _read(self) -> None:
        while True:
            frame = await self.ws.read_message()
            if frame is None:
                for _, future in self._waiters:
                    if not future.done():
                        future.set_exception(ConnectionError(f"{self.name}: websocket closed"))
                return
            if isinstance(frame, str):  # the legacy protocol (not negotiated here): never expected
                raise RuntimeError(f"{self.name}: a text frame, not the v1 protocol")
            self.received += 1
            channel, msg = unpack(frame)
            for item in list(self._waiters):
                predicate, future = item
                if not future.done() and predicate(channel, msg):
                    future.set_result((time.perf_counter(), msg))
                    self._waiters.remove(item)

    # ------------------------------------------------------------------ a visit
    async def visit(self, started: float | None = None, timeout: float = 300) -> dict:
        """Open the page and wait for the widgets' state; ``self.times`` (from ``started``)."""
        started = time.perf_counter() if started is None else started
        self.started = started
        await self.get_page()
        self.times["page_s"] = time.perf_counter() - started
        if self.status != 200 or not self.kernel_id:
            return self.times
        headers = {"Cookie": self._cookie_header()}
        await AsyncHTTPClient().fetch(HTTPRequest(f"{self.base_url}/api/kernels/{self.kernel_id}", headers=headers))
        url = (f"{self.base_url.replace('http', 'ws', 1)}/api/kernels/{self.kernel_id}/channels"
               f"?session_id={self.session}")
        # offers permessage-deflate as browsers do (a server with DashboardServer.compress takes it)
        self.ws = await websocket_connect(HTTPRequest(url, headers=headers), subprotocols=[PROTOCOL],
                                          max_message_size=1 << 30, compression_options={})
        if self.ws.selected_subprotocol != PROTOCOL:
            raise RuntimeError(f"{self.name}: the server did not accept {PROTOCOL}")
        self.times["websocket_s"] = time.perf_counter() - started
        self._reader = asyncio.ensure_future(self._read())
        reply = self.expect(lambda ch, m: m["header"]["msg_type"] == "kernel_info_reply")
        await self.send("shell", "kernel_info_request", {})
        await asyncio.wait_for(reply, timeout)
        self.times["connected_s"] = time.perf_counter() - started
        control = uuid.uuid4().hex
        states = self.expect(lambda ch, m: m["header"]["msg_type"] == "comm_msg"
                             and m["content"].get("comm_id") == control
                             and m["content"]["data"].get("method") == "update_states")
        await self.send("shell", "comm_open", {"comm_id": control, "target_name": "jupyter.widget.control",
                                               "data": {}}, metadata={"version": "1.0.0"})
        await self.send("shell", "comm_msg", {"comm_id": control, "data": {"method": "request_states"}})
        arrived, msg = await asyncio.wait_for(states, timeout)
        self.states = msg["content"]["data"]["states"]
        await self.send("shell", "comm_close", {"comm_id": control, "data": {}})
        if self.first_figure() is None:
            raise AssertionError(f"{self.name}: no figure among the {len(self.states)} widgets' states")
        self.times["state_s"] = arrived - started
        for model in self.in_page_order():  # each figure's view, created, counts itself (plotly syncs _view_count)
            if model in self.figures() and "_view_count" in self.states[model]["state"]:
                await self.send("shell", "comm_msg", {"comm_id": model, "data": {
                    "method": "update", "state": {"_view_count": 1}, "buffer_paths": []}})
        self.times["state_bytes"] = len(json.dumps(msg["content"])) + sum(len(b) for b in msg["buffers"])
        return self.times

    def in_page_order(self) -> list:
        """Model ids in the order the page shows them: the outputs' views, depth first through
        every reference (children, an Output widget's outputs)."""
        order, seen = [], set()

        def refs(value):
            if isinstance(value, str) and value.startswith("IPY_MODEL_"):
                yield value[len("IPY_MODEL_"):]
            elif isinstance(value, dict):
                if isinstance(value.get("model_id"), str):
                    yield value["model_id"]
                for v in value.values():
                    yield from refs(v)
            elif isinstance(value, list):
                for v in value:
                    yield from refs(v)

        def walk(model_id):
            if model_id in seen or model_id not in self.states:
                return
            seen.add(model_id)
            order.append(model_id)
            for ref in refs(self.states[model_id]["state"]):
                walk(ref)

        for model_id in _VIEW.findall(self.body):
            walk(model_id)
        return order

    def first_figure(self):
        return next((m for m in self.in_page_order() if "_widget_data" in self.states[m]["state"]), None)

    def figures(self) -> set:
        return {m for m, s in self.states.items() if "_widget_data" in s["state"]}

    def first_slider(self):
        for m in self.in_page_order():
            s = self.states[m]
            if s["model_name"] in SLIDERS and not s["state"].get("disabled"):
                return m
        return None

    async def move_slider(self, timeout: float = 120) -> float:
        """One keyboard step of the first enabled slider (left at its maximum, else right), as
        the page sends it; seconds until the kernel is idle after it, having updated a figure."""
        model = self.first_slider()
        if model is None:
            raise AssertionError(f"{self.name}: no enabled slider on {self.notebook}")
        s = self.states[model]["state"]
        key = SLIDERS[self.states[model]["model_name"]]
        new = slider_move(self.states[model]["model_name"], s)
        figures = self.figures()
        updated = self.expect(lambda ch, m: m["header"]["msg_type"] == "comm_msg"
                              and m["content"].get("comm_id") in figures)
        t0 = time.perf_counter()
        msg_id, parts = self._message("comm_msg", {"comm_id": model, "data": {"method": "update", "state": {key: new},
                                                                               "buffer_paths": []}})
        idle = self.expect(lambda ch, m: m["header"]["msg_type"] == "status"
                           and m["parent_header"].get("msg_id") == msg_id
                           and m["content"].get("execution_state") == "idle")
        await self._write("shell", parts)
        done, _ = await asyncio.wait_for(idle, timeout)
        if not updated.done():
            raise AssertionError(f"{self.name}: the slider's update changed no figure on {self.notebook}")
        s[key] = new
        self.times["slider_first_figure_message_s"] = updated.result()[0] - t0
        self.times["slider_s"] = done - t0
        return done - t0

    async def leave(self, shutdown: bool = True) -> int | None:
        """Close as a page does: the shutdown POST with the ``_xsrf`` value (its HTTP status), or
        (``shutdown=False``) just the disconnect."""
        code = None
        if shutdown and self.kernel_id:
            xsrf = self.cookies.get("_xsrf", "")
            response = await AsyncHTTPClient().fetch(HTTPRequest(
                f"{self.base_url}/voila/api/shutdown/{self.kernel_id}", method="POST",
                headers={"Cookie": self._cookie_header(), "Content-Type": "application/x-www-form-urlencoded"},
                body=f"_xsrf={quote(xsrf)}"), raise_error=False)
            code = response.code
        if self.ws is not None:
            self.ws.close()
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, 10)
            except (asyncio.TimeoutError, ConnectionError):
                pass
        return code


class VisitorsThread:
    """Protocol visitors on an asyncio loop in a thread of their own (the test's main thread
    drives playwright's synchronous API): :meth:`run` a coroutine there and wait for it."""

    def __init__(self):
        # one HTTP client per loop, ten connections by default: every visitor's page streams at once
        AsyncHTTPClient.configure(None, max_clients=64)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="protocol-visitors")
        self.thread.start()

    def submit(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro, timeout=None):
        return self.submit(coro).result(timeout)

    def close(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


async def gather(coros):
    """Results (or exceptions) of ``coros`` run at once."""
    return await asyncio.gather(*coros, return_exceptions=True)
