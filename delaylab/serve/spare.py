"""A spare dashboard kernel: the next Voila page's kernel, started before the page asks for it.

Inside a Jupyter server (a JupyterHub's or Binder's, :mod:`delaylab.serve.extension`) Voila has
no pool of preheated kernels: each page starts its kernel, and a kernel's start (a Python
process, ipykernel's imports, delaylab's compiled kernels loaded) is most of what a warm page
waits for (benchmarks/RESULTS.md). :class:`SpareDashboardKernel` keeps one process per server that has
already done that, ``python -m delaylab.serve.kernel --spare`` (:func:`delaylab.serve.kernel.main`):
it waits on its standard input for the one thing a page's kernel needs that cannot be known
before the page, one line of JSON (:func:`handover_message`) with the kernel's arguments (its
connection file), its whole environment (Voila's ``SERVER_*``, ``QUERY_STRING``, ``VOILA_*`` of
the page) and its working folder. It then becomes that page's kernel exactly as a kernel started
for it would be (:func:`delaylab.serve.kernel.take_handover`), and a new spare starts behind it.
It has also imported what the first cell of every dashboard notebook under the server's root
imports (:mod:`delaylab.serve.preimport`: read from the notebooks at each spare's start; the
spare's ``--import-ahead`` argument), and completes at hand-over what those imports do in a
kernel; a page whose notebook's first cell imports less, or whose folder would shadow one of
those modules, gets a kernel started as usual, and the spare waits for the next page
(``c.SpareDashboardKernel.import_ahead = False``: the spare imports nothing ahead).

A spare is used only when it is what a normal start would have been: the same command, and an
environment equal to the page's except for the page's own variables (:func:`server_part`); else,
or when there is none (disabled, not started yet, dead), the page's kernel starts as usual. The
spare is a process of this server like a kernel: its own process group (signals, kill), its
standard input a pipe from the server, so that it exits when the server goes away without a
word (SIGKILL); the server's shutdown of its kernels also stops it (:meth:`SpareDashboardKernel.close`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

from traitlets import Bool
from traitlets.config import LoggingConfigurable

#: the variables Voila gives each page's kernel (voila/handler.py: the request's, and ``VOILA_*``),
#: and jupyter_client's per-kernel ones (``JPY_*``): not known before the page
PAGE_VARIABLES = ("SCRIPT_NAME", "PATH_INFO", "QUERY_STRING", "SERVER_SOFTWARE", "SERVER_PROTOCOL", "SERVER_PORT",
                  "SERVER_NAME")
PAGE_PREFIXES = ("VOILA_", "JPY_")
#: the spare's file descriptor (an inherited pipe) on which it says it has done its imports
READY_FD = "DELAYLAB_SPARE_READY_FD"
READY = b"ready\n"
#: the module a dashboard kernel runs (:func:`delaylab.serve.extension.dashboard_command`)
MODULE = "delaylab.serve.kernel"


def server_part(env: dict) -> dict:
    """``env`` without what is a page's own (:data:`PAGE_VARIABLES`, :data:`PAGE_PREFIXES`)."""
    return {k: v for k, v in env.items() if k not in PAGE_VARIABLES and not k.startswith(PAGE_PREFIXES)
            and k != READY_FD}


def handover_message(args: list, env: dict, cwd) -> bytes:
    """The line a spare reads to become a page's kernel: its arguments, environment, folder."""
    return json.dumps({"args": list(args), "env": dict(env), "cwd": os.fspath(cwd) if cwd else None}).encode() + b"\n"


def spare_command(python: str = sys.executable, ahead=()) -> list:
    """The spare's command; ``ahead``: the modules it imports before its page
    (:mod:`delaylab.serve.preimport`)."""
    return [python, "-m", MODULE, "--spare", *(["--import-ahead", ",".join(ahead)] if ahead else [])]


class Spare:
    """One spare kernel process, started with ``env`` (the server's part of a page kernel's
    environment), that imports ``ahead`` before its page; ``process`` is the
    :class:`subprocess.Popen` a provisioner then holds."""

    def __init__(self, env: dict, cwd=None, ahead=()):
        # ipykernel reads its parent's pid (JPY_PARENT_PID: its kernel exits when that process is
        # gone) when it is imported, before the handover: the spare's parent is this server, as a
        # kernel's is (jupyter_client's launch_kernel)
        env = {**env, "JPY_PARENT_PID": str(os.getpid())}
        self.env, self.parent = server_part(env), env["JPY_PARENT_PID"]
        self.started, self.ahead = time.monotonic(), tuple(ahead)
        read, write = os.pipe()
        os.set_blocking(read, False)
        try:
            self.process = subprocess.Popen(spare_command(ahead=self.ahead), stdin=subprocess.PIPE, env={**env, READY_FD: str(write)},
                                            cwd=cwd, start_new_session=True, pass_fds=(write,))
        except BaseException:
            os.close(read)
            raise
        finally:
            os.close(write)
        self._ready_fd, self._ready = read, False

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    @property
    def ready(self) -> bool:
        """Whether it has said that its imports and warm-up are done (reads its pipe, never waits)."""
        if not self._ready and self._ready_fd is not None:
            try:
                said = os.read(self._ready_fd, 64)
            except BlockingIOError:
                return False
            self._ready = said.startswith(READY)
            self._close_ready_fd()
        return self._ready

    def _close_ready_fd(self) -> None:
        if self._ready_fd is not None:
            os.close(self._ready_fd)
            self._ready_fd = None

    def fits(self, cmd: list, env: dict) -> bool:
        """Whether this spare can be the kernel ``cmd`` with ``env`` would start: alive, the same
        Python and module, the same environment but for the page's variables."""
        ours = spare_command()
        return (self.alive and len(cmd) >= 3 and os.path.normpath(cmd[0]) == os.path.normpath(ours[0])
                and cmd[1:3] == ours[1:3] and server_part(env) == self.env
                and env.get("JPY_PARENT_PID") == self.parent)

    def hand_over(self, args: list, env: dict, cwd) -> subprocess.Popen:
        """Make it the page's kernel; its process (from now on the provisioner's)."""
        self._close_ready_fd()
        self.process.stdin.write(handover_message(args, env, cwd))
        self.process.stdin.flush()  # the pipe stays open, as a normal kernel's standard input
        return self.process

    def stop(self, timeout: float = 5.0) -> None:
        """Stop it (its process group, as a provisioner stops a kernel), and wait for it."""
        self._close_ready_fd()
        if self.alive:
            for signum, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, timeout)):
                try:
                    os.killpg(self.process.pid, signum)
                except OSError:
                    break
                try:
                    self.process.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            pass


class SpareDashboardKernel(LoggingConfigurable):
    """The server's spare kernel (at most one): :meth:`take` hands it to a page's kernel start,
    :meth:`refill` starts the next one, in a thread (its environment from ``environment``, a
    callable that may wait: the server's environment and the dashboards' settings, plotly's
    module's URL among them). ``c.SpareDashboardKernel.enabled = False`` in the server's
    configuration: no spare, every page's kernel starts when the page asks for it."""

    enabled = Bool(True, config=True, help="Keep one dashboard kernel started ahead, which the next Voila page "
                                           "takes as its kernel (one idle kernel's memory, held by each running server).")
    import_ahead = Bool(True, config=True, help="The spare also imports what the first cell of every dashboard "
                                                "notebook under the server's root imports (delaylab.serve.preimport); "
                                                "a page whose notebook imports less gets a kernel started as usual.")

    def __init__(self, environment, cwd=None, **kwargs):
        super().__init__(**kwargs)
        self.environment, self.cwd = environment, cwd
        self.spare: Spare | None = None
        self.closed = False
        self._lock = threading.Lock()
        self._starting: threading.Thread | None = None

    def refill(self) -> None:
        """Start a spare, in a thread, unless there is one or one starting (or disabled, closed)."""
        with self._lock:
            if not self.enabled or self.closed or self.spare is not None or self._starting is not None:
                return
            self._starting = threading.Thread(target=self._start, name="delaylab-spare-kernel", daemon=True)
            self._starting.start()

    def _start(self) -> None:
        try:
            env = self.environment()
            ahead = self.modules_ahead()
            with self._lock:
                if self.closed or self.spare is not None:
                    return
                self.spare = Spare(env, cwd=self.cwd, ahead=ahead)
            self.log.info("delaylab: a spare dashboard kernel started (pid %d, %d modules imported ahead)",
                          self.spare.process.pid, len(ahead))
        except Exception as exc:  # a page's kernel then starts as usual
            self.log.warning("delaylab: no spare dashboard kernel (%s: %s)", type(exc).__name__, exc)
        finally:
            with self._lock:
                self._starting = None

    def modules_ahead(self) -> list:
        """What the next spare imports before its page: what every dashboard notebook under the
        server's root imports in its first cell (read from the files at each spare's start)."""
        if not self.import_ahead or not self.cwd:
            return []
        from .preimport import modules_every_notebook_imports

        return modules_every_notebook_imports(self.cwd)

    def wait_started(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) for a spare being started now: the first page after the
        server's start asks for its kernel the moment plotly's module is ready, when the first
        spare, which waited for that module too, is being started (not in the event loop)."""
        starting = self._starting
        if starting is not None:
            starting.join(timeout)

    def take(self, cmd: list, env: dict, cwd) -> subprocess.Popen | None:
        """The spare, handed over to be the kernel ``cmd`` with ``env`` in ``cwd``, if it fits
        (:meth:`Spare.fits`); else None (the caller starts it as usual). A new spare starts either way."""
        with self._lock:
            spare, self.spare = self.spare, None
        try:
            if spare is None:
                return None
            refused = spare.fits(cmd, env) and self.refusal(spare, env, cwd)
            if refused:  # kept for the next page
                self.log.info("delaylab: spare dashboard kernel not used for this page (%s)", refused)
                with self._lock:
                    if self.spare is None and not self.closed:
                        self.spare, spare = spare, None
                if spare is not None:
                    spare.stop(timeout=1.0)
                return None
            if not spare.fits(cmd, env):
                page = server_part(env)
                differ = sorted(k for k in set(page) | set(spare.env) if page.get(k) != spare.env.get(k))
                why = ("it has stopped" if not spare.alive else
                       f"another environment: {', '.join(differ)}" if differ else "another command or parent")
                self.log.info("delaylab: spare dashboard kernel not used (%s)", why)
                spare.stop(timeout=1.0)
                return None
            ready = spare.ready
            process = spare.hand_over(cmd[3:], env, cwd)
            self.log.info("delaylab: a page's kernel is the spare (pid %d, %s, started %.1f s before)", process.pid,
                          "ready" if ready else "still warming up", time.monotonic() - spare.started)
            return process
        finally:
            self.refill()

    @staticmethod
    def refusal(spare: Spare, env: dict, cwd) -> str | None:
        """Why the page with ``env`` in ``cwd`` must not get ``spare`` (its notebook's first cell
        imports less than the spare did, or its folder shadows a module the spare imported), or None."""
        if not spare.ahead:
            return None
        from .preimport import refusal

        return refusal(spare.ahead, env, cwd)

    def wait_ready(self, timeout: float) -> bool:
        """Wait until a spare has done its imports and warm-up (benchmarks, tests); whether it has."""
        deadline = time.monotonic() + timeout
        self.refill()
        while time.monotonic() < deadline:
            spare = self.spare
            if spare is not None and spare.ready:
                return True
            time.sleep(0.05)
        return False

    def close(self) -> None:
        """Stop the spare and start no other (the server is stopping); waits for it to exit."""
        with self._lock:
            self.closed = True
            spare, self.spare = self.spare, None
            starting = self._starting
        if spare is not None:
            spare.stop()
        if starting is not None:  # its environment still being prepared: it starts nothing now
            starting.join(10)
