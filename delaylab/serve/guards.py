"""What keeps one visitor of a public dashboard server from freezing it, locking the others out,
or making it grow: checks on what a page may send and how much one client may ask, at the
door, before the server spends memory, a kernel or a file descriptor on it.

* **Kernel websocket frames checked before they are read** (:func:`frame_problem`). In
  jupyter_server's binary ("v1") framing the first 8 bytes give a count of offsets, and
  jupyter_server builds a list that long in the server's event loop before looking at anything
  else: a count of 2**32 in a 20-byte frame held every visitor for many minutes and took tens of
  gigabytes. A frame whose count is more than its own length can hold, whose offsets run
  backwards or past its end, whose channel is not a kernel channel or whose header is not a JSON
  object is refused here and its websocket closed (code 1007), before jupyter_server sees it.
  The legacy protocol's binary frames (a 4-byte count) are checked the same way.
* **Messages a page may not send refused**: the message types a Voila page sends (comms and
  ``kernel_info_request``). Voila also allows ``shutdown_request``, which a page never sends (it
  stops its kernel with the shutdown POST): sent on the websocket, it made the kernel exit and
  jupyter_client restart it five times, then give it up.
* **Websockets per kernel capped** (``max_websockets_per_kernel``): a page opens one; each costs
  the server about nine file descriptors (ZMQ sockets), so one visitor opening hundreds to their
  own kernel ran the server out of descriptors for everyone.
* **Per client** (the peer's address, or a header a trusted reverse proxy sets): at most
  ``client_pages_loading`` pages given a kernel and not yet connected to it, and at most
  ``client_requests_per_minute`` page requests and kernel websockets a minute. Beyond either,
  the "busy" page (HTTP 503, or 429 for the rate) with the reason, and a log line saying why.
* **Log lines about refused frames rate-limited** (:class:`QuietLog`): one line per reason and
  client per minute at most, then a count of those left out; never a traceback per frame.

:class:`ClientLimits` holds the per-client counts; :class:`GuardedKernelWebsocketHandler`
checks the websockets; :class:`SafeTemplateStaticFileHandler` answers 404 instead of a
traceback for template paths that do not have the form ``<template>/static/<file>``.
"""

from __future__ import annotations

import ipaddress
import json
import os
import time
from collections import OrderedDict

import tornado.web
from voila.static_file_handler import TemplateStaticFileHandler
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

from . import voila_patches

#: jupyter_server's v1 websocket subprotocol (binary frames with an offsets table)
V1 = "v1.kernel.websocket.jupyter.org"
#: the kernel channels a page's websocket may name
CHANNELS = frozenset({"shell", "control", "iopub", "stdin"})
#: message types a Voila page sends to its kernel (what Voila allows, without ``shutdown_request``)
PAGE_MESSAGE_TYPES = frozenset({"comm_open", "comm_close", "comm_msg", "comm_info_request", "kernel_info_request"})
#: the most offsets a frame may carry: channel, header, parent header, metadata, content, the end,
#: and up to a thousand binary buffers (a widget message carries a few)
MAX_OFFSETS = 6 + 1024
#: websocket close code for a frame that does not follow the protocol (RFC 6455: inconsistent data)
CLOSE_MALFORMED = 1007


def frame_problem(frame, subprotocol) -> str | None:
    """Why a kernel websocket frame must be refused before jupyter_server parses it, or None.
    Reads only the frame's header and its offsets table, checked against the frame's length
    first: the work is bounded by :data:`MAX_OFFSETS`, whatever the frame claims."""
    if isinstance(frame, str):
        if subprotocol == V1:
            return "a text frame on the binary (v1) protocol"
        return None  # the legacy protocol's JSON: jupyter_server parses it (bounded by the frame)
    size = len(frame)
    if subprotocol != V1:  # the legacy protocol's binary frame: a 4-byte big-endian count, then offsets
        if size < 8:
            return f"a binary frame of {size} bytes, shorter than its header"
        count = int.from_bytes(frame[:4], "big", signed=True)
        if not 1 <= count <= MAX_OFFSETS:
            return f"a buffer count of {count} (valid: 1 to {MAX_OFFSETS})"
        if 4 * (count + 1) > size:
            return f"a buffer count of {count} that a frame of {size} bytes cannot hold"
        offsets = [int.from_bytes(frame[4 * (i + 1):4 * (i + 2)], "big") for i in range(count)]
        if offsets[0] < 4 * (count + 1) or any(b < a for a, b in zip(offsets, offsets[1:])) or offsets[-1] > size:
            return "offsets out of order or beyond the frame"
        return None
    if size < 8:
        return f"a frame of {size} bytes, shorter than its offset count"
    count = int.from_bytes(frame[:8], "little")
    if 8 * (count + 1) > size:
        return f"an offset count of {count} that a frame of {size} bytes cannot hold"
    if not 6 <= count <= MAX_OFFSETS:
        return f"an offset count of {count} (valid: 6 to {MAX_OFFSETS})"
    offsets = [int.from_bytes(frame[8 * (i + 1):8 * (i + 2)], "little") for i in range(count)]
    if offsets[0] < 8 * (count + 1) or any(b < a for a, b in zip(offsets, offsets[1:])) or offsets[-1] > size:
        return "offsets out of order or beyond the frame"
    try:
        channel = bytes(frame[offsets[0]:offsets[1]]).decode("ascii")
    except UnicodeDecodeError:
        channel = None
    if channel not in CHANNELS:
        return "no kernel channel named"
    return None


def frame_message_type(frame, subprotocol) -> str | None:
    """The ``msg_type`` in the header of a frame :func:`frame_problem` passed, or None when the
    header is not a JSON object with one. v1: the header part alone; the legacy protocol: the
    message's JSON (a text frame, or a binary frame's first part), whose ``header`` holds it."""
    try:
        if isinstance(frame, str):
            header = json.loads(frame).get("header")
        elif subprotocol == V1:
            start, end = (int.from_bytes(frame[8 * (i + 1):8 * (i + 2)], "little") for i in (1, 2))
            header = json.loads(bytes(frame[start:end]))
        else:
            count = int.from_bytes(frame[:4], "big")
            start = int.from_bytes(frame[4:8], "big")
            end = int.from_bytes(frame[8:12], "big") if count > 1 else len(frame)
            header = json.loads(bytes(frame[start:end])).get("header")
    except (ValueError, UnicodeDecodeError, AttributeError):
        return None
    msg_type = header.get("msg_type") if isinstance(header, dict) else None
    return msg_type if isinstance(msg_type, str) else None


class QuietLog:
    """Warnings at most once per ``interval`` seconds for each key (a reason and a client); the
    lines left out are counted and reported with the next one. Keeps at most ``keys`` keys."""

    def __init__(self, log, interval: float = 60.0, keys: int = 1000):
        self.log, self.interval, self.keys = log, interval, keys
        self.last: OrderedDict = OrderedDict()  # key -> (monotonic time of its last line, lines left out)

    def warning(self, key, msg: str, *args) -> bool:
        """Log ``msg % args`` unless ``key`` was logged less than ``interval`` s ago; whether it was."""
        now = time.monotonic()
        seen = self.last.get(key)
        if seen is not None and now - seen[0] < self.interval:
            self.last[key] = (seen[0], seen[1] + 1)
            return False
        left_out = seen[1] if seen else 0
        self.last[key] = (now, 0)
        self.last.move_to_end(key)
        while len(self.last) > self.keys:
            self.last.popitem(last=False)
        suffix = f" ({left_out} more like it in the last {self.interval:.0f} s not logged)" if left_out else ""
        self.log.warning(msg + suffix, *args)
        return True


class ClientLimits:
    """Per-client counts: a sliding one-minute window of requests (pages and kernel websockets)
    per client, the client each admitted page and each visitor's kernel came from, and the open
    websockets of each kernel. Forgets clients idle for a minute; holds at most ``clients``."""

    def __init__(self, requests_per_minute: int = 0, pages_loading: int = 0, websockets_per_kernel: int = 0,
                 clients: int = 10000):
        self.requests_per_minute = requests_per_minute
        self.pages_loading = pages_loading
        self.websockets_per_kernel = websockets_per_kernel
        self.clients = clients
        self.requests: OrderedDict = OrderedDict()  # client -> monotonic times of its requests in the last minute
        self.kernel_client: dict = {}  # kernel id -> the client whose page it was given to
        self.websockets: dict = {}  # kernel id -> websockets open (or opening) to it

    def request(self, client: str, now: float | None = None) -> bool:
        """Count a request of ``client``; False when it is beyond ``requests_per_minute``."""
        if not self.requests_per_minute or client in LOOPBACK:
            return True
        now = time.monotonic() if now is None else now
        times = [t for t in self.requests.pop(client, ()) if now - t < 60.0]
        allowed = len(times) < self.requests_per_minute
        if allowed:
            times.append(now)
        self.requests[client] = times
        while len(self.requests) > self.clients:
            self.requests.popitem(last=False)
        return allowed

    def retry_after(self, client: str, now: float | None = None) -> int:
        """Seconds until ``client`` may ask again (its oldest request in the window leaves it)."""
        now = time.monotonic() if now is None else now
        times = self.requests.get(client) or [now]
        return max(1, int(60.0 - (now - times[0])) + 1)

    def forget_kernel(self, kernel_id: str) -> None:
        self.kernel_client.pop(kernel_id, None)
        self.websockets.pop(kernel_id, None)


#: the machine itself: a local test or benchmark, or a reverse proxy that does not say whose
#: request it passes on (``DashboardServer.client_address_header``); not limited per client, so
#: that the limits never become one limit for every visitor behind such a proxy
LOOPBACK = frozenset({"127.0.0.1", "::1"})


def client_of(handler) -> str:
    """The client a request comes from: the peer's address, or, when the request comes from the
    machine itself (a reverse proxy there) and ``DashboardServer.client_address_header`` is set,
    that header's value (the proxy's ``X-Real-IP``); see :func:`client_key`."""
    peer = handler.request.remote_ip or ""
    voila = handler.settings.get("voila")
    header = getattr(voila, "client_address_header", "")
    if header and peer in LOOPBACK:
        given = handler.request.headers.get(header, "").split(",")[0].strip()
        if given:
            return client_key(given[:64])
    return client_key(peer)


def client_key(address: str) -> str:
    """The client an address stands for: an IPv4 address itself; an IPv6 address's /64 network
    (one subscriber gets a whole /64, so its 2**64 addresses are one client); the loopback
    addresses themselves; anything else as given."""
    if ":" not in address or address in LOOPBACK:
        return address
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # without a link-local zone
    except ValueError:
        return address
    if ip.version == 6 and ip.ipv4_mapped is not None:  # ::ffff:a.b.c.d: an IPv4 client
        return str(ip.ipv4_mapped)
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def limits_of(handler) -> ClientLimits | None:
    return getattr(handler.settings.get("voila"), "client_limits", None)


class GuardedKernelWebsocketHandler(VoilaKernelWebsocketHandler):
    """Voila's kernel websocket, with the checks of this module: frames checked before
    jupyter_server reads them, message types a page may not send dropped, a cap on websockets per
    kernel and the per-client request rate."""

    _counted_kernel = None

    async def get(self, kernel_id):
        limits = limits_of(self)
        if limits is not None:
            client = client_of(self)
            app = self.settings["voila"]
            if not limits.request(client):
                app.log.warning("refused a websocket to kernel %s: client %s made more than %d requests "
                                "in a minute", kernel_id, client, limits.requests_per_minute)
                return self._refuse_upgrade(429, "Too many requests from your address: try again in a minute.",
                                            retry=limits.retry_after(client))
            open_now = limits.websockets.get(kernel_id, 0)
            if limits.websockets_per_kernel and open_now >= limits.websockets_per_kernel:
                app.log.warning("refused a websocket to kernel %s from %s: %d open, the most per kernel",
                                kernel_id, client, open_now)
                return self._refuse_upgrade(429, "Too many connections to this dashboard's kernel.",
                                            retry=30)
            limits.websockets[kernel_id] = open_now + 1
            self._counted_kernel = kernel_id
        return await super().get(kernel_id)

    def _refuse_upgrade(self, status: int, text: str, retry: int) -> None:
        self.set_status(status)
        self.set_header("Retry-After", str(retry))
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(text + "\n")

    def _release(self) -> None:
        kernel_id, self._counted_kernel = self._counted_kernel, None
        limits = limits_of(self)
        if kernel_id is not None and limits is not None and kernel_id in limits.websockets:
            limits.websockets[kernel_id] -= 1
            if limits.websockets[kernel_id] <= 0:
                del limits.websockets[kernel_id]

    def on_close(self):
        self._release()
        if getattr(self, "connection", None) is not None:  # None: closed before it was set up
            super().on_close()

    def on_finish(self):  # refused or failed before the upgrade: the count is given back
        if self.ws_connection is None:
            self._release()
        super().on_finish()

    def on_connection_close(self):
        self._release()
        super().on_connection_close()

    def on_message(self, message):
        subprotocol = self.selected_subprotocol
        problem = frame_problem(message, subprotocol)
        if problem is None:
            msg_type = frame_message_type(message, subprotocol)
            if msg_type is None:
                problem = "a header that is not a JSON object with a msg_type"
            elif msg_type not in PAGE_MESSAGE_TYPES:
                self._quiet_log().warning(("type", client_of(self), msg_type),
                                          "kernel %s: dropped a %r message from %s, which a page may not send",
                                          self.kernel_id, msg_type, client_of(self))
                return None
        if problem is None:
            try:
                return super().on_message(message)
            except Exception as exc:  # what jupyter_server could not parse: no traceback per frame
                problem = f"{type(exc).__name__}: {str(exc)[:200]}"
        self._quiet_log().warning(("frame", client_of(self)),
                                  "kernel %s: closed the websocket of %s: a malformed frame (%s)",
                                  getattr(self, "kernel_id", "?"), client_of(self), problem)
        self.close(CLOSE_MALFORMED, "malformed frame")
        return None

    def _quiet_log(self) -> QuietLog:
        app = self.settings["voila"]
        if getattr(app, "quiet_log", None) is None:
            app.quiet_log = QuietLog(app.log)
        return app.quiet_log


class SafeTemplateStaticFileHandler(TemplateStaticFileHandler):
    """Voila's template static files, answering 404 (not a 500 with a traceback) for a path that
    is not ``<template>/static/<file>`` once normalised (``lab/static/..%2f..``)."""

    def parse_url_path(self, path):
        parts = os.path.normpath(path).split(os.path.sep)
        if len(parts) < 3 or parts[1] != "static" or ".." in parts or path.split("/", 2)[1:2] != ["static"]:
            raise tornado.web.HTTPError(404)
        return super().parse_url_path(path)


class NotFoundHandler(tornado.web.RequestHandler):
    """404 for paths this server does not serve (``/logout``: there is no login to leave)."""

    def get(self, *args):
        raise tornado.web.HTTPError(404)

    post = get


def known_templates() -> set:
    """Names of the Voila templates installed (a folder with an ``index.html.j2`` in a Jupyter
    data folder's ``voila/templates``): what ``?template=`` may name."""
    from jupyter_core.paths import jupyter_path

    names = set()
    for folder in jupyter_path("voila", "templates"):
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        names.update(e for e in entries if os.path.isfile(os.path.join(folder, e, "index.html.j2")))
    return names


#: what ``?theme=`` may name: Voila's two themes (and the configured one, see :func:`page_argument_problem`)
THEMES = ("light", "dark")


def page_argument_problem(handler, configuration) -> str | None:
    """Why a page request's ``?template=`` or ``?theme=`` must be refused (an unknown name: Voila
    would start a kernel, then fail in the background), or None."""
    template = handler.get_argument("template", None)
    if template is not None:
        known = known_templates() | {configuration.template}
        if template not in known:
            return f"unknown template {_shown(template)}: this server has {', '.join(sorted(known))}"
    theme = handler.get_argument("theme", None)
    if theme is not None:
        known = set(THEMES) | {configuration.theme}
        if theme not in known:
            return f"unknown theme {_shown(theme)}: this server has {', '.join(sorted(known))}"
    return None


def _shown(value: str) -> str:
    """A value from a request, fit for a log line and a page: quoted, at most 60 characters, any
    character but letters, digits and ``._-`` shown as ``?``."""
    return "'" + "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "?" for c in value[:60]) + "'"


#: the most requests' details Voila keeps for preheated kernels' pages (each entry lives until its
#: kernel stops: :func:`kernel_removed`; this bounds them whatever happens)
REQUEST_INFO_MAX = 1000


class BoundedDict(OrderedDict):
    """A dict holding at most ``limit`` entries: the oldest go first."""

    def __init__(self, limit: int, *args, **kwargs):
        self.limit = limit
        super().__init__(*args, **kwargs)

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)


def bound_request_info() -> None:
    """Voila's record of each preheated kernel's page request (its query string and host, served
    at ``/voila/query/<kernel id>``) was kept for the server's life; here it holds at most
    :data:`REQUEST_INFO_MAX` entries, and each goes when its kernel stops (:func:`kernel_removed`)."""
    voila_patches.bound_request_info_cache(BoundedDict, REQUEST_INFO_MAX)


def kernel_removed(manager, kernel_id: str, kernel) -> None:
    """What goes with a kernel when the kernel manager drops it: its connection file and Unix
    socket files (:func:`delaylab.serve.voila_patches.clean_up_kernel`), Voila's record of its
    page's request, and this module's counts for it."""
    if kernel is not None:
        voila_patches.clean_up_kernel(manager.log, kernel_id, kernel)
    voila_patches.forget_request_info(kernel_id)
    app = getattr(manager, "parent", None)
    limits = getattr(app, "client_limits", None)
    if limits is not None:
        limits.forget_kernel(kernel_id)
    handed = getattr(app, "handed", None)
    if handed is not None:
        handed.discard(kernel_id)


def guarded_handler(spec: tuple) -> tuple:
    """A Voila handler spec with this module's handler in place of Voila's where it has one."""
    if len(spec) < 2:
        return spec
    if spec[1] is VoilaKernelWebsocketHandler:
        return (spec[0], GuardedKernelWebsocketHandler, *spec[2:])
    if spec[1] is TemplateStaticFileHandler:
        return (spec[0], SafeTemplateStaticFileHandler, *spec[2:])
    if isinstance(spec[0], str) and spec[0].rstrip("/").endswith("/logout"):
        return (spec[0], NotFoundHandler)  # Jupyter Server's logout page needs templates Voila lacks
    return spec
