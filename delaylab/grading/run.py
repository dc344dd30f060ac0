"""One submission's notebook, run top to bottom in a sandboxed kernel, its answers read as data.

:func:`run_notebook` starts a kernel in a :class:`~delaylab.grading.sandbox.Sandbox` (its own
throwaway folder, no network, an unprivileged user, limits), executes the code cells one by one
with jupyter_client and, right after each answer cell, reads the answer through a Jupyter
``user_expressions`` (:func:`delaylab.grading.graded_kernel.grading_probe`). What comes back is
parsed as JSON and nothing else: a student's kernel can only ever send an answer.

Time: each cell has ``cell_timeout`` seconds and the whole submission ``timeout``. A cell that
overruns is interrupted (its exercise: "timeout") and the notebook goes on; a cell that cannot be
interrupted, or that ends the kernel (``os._exit``, a crash, the memory cap), is left out and the
notebook is run again from the top in a fresh sandbox, so that the rest of the work still counts
(at most :data:`ATTEMPTS` runs, all within ``timeout``; a cell that ran out of time is left out of
a rerun too, with its verdict). Outputs are kept for the lecturer's copy
of the notebook, cut to a few kilobytes per cell; no message above 64 MiB is read at all.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

#: how many times a notebook is run (again without each cell that ended its kernel)
ATTEMPTS = 3
#: seconds an interrupted cell has to stop before its kernel is killed
GRACE = 5.0
#: largest ZeroMQ message read from a kernel (bytes); a larger one is dropped unread
MAX_MESSAGE = 64 << 20
#: output kept per cell (characters of text; bytes of an image)
KEEP_TEXT, KEEP_IMAGE = 8_000, 400_000
#: a kernel that is not ready after this many seconds did not start
START_SECONDS = 90.0
#: seconds a cell's threads get to finish inside that cell (graded_kernel.grading_settle)
SETTLE_SECONDS = 20.0
#: bytes a submission may write in its folder (each file is also capped by the sandbox's limits)
DISK_LIMIT = 1 << 30

_SETTLE = ("__import__('sys').modules['delaylab.exercises'].grading_settle({s}) "
           "if 'delaylab.exercises' in __import__('sys').modules else None")
_EXERCISES = "__import__('delaylab.exercises').exercises"


def probe(name: str) -> str:
    """The ``user_expressions`` entry that reads the notebook variable ``name``."""
    return f"{_EXERCISES}.grading_probe({name!r})"


@dataclass
class CellRun:
    """What happened to one code cell: ``status`` is "ok", "error", "timeout" (interrupted, the
    kernel went on), "died" (the kernel ended), "stuck" (it could not be interrupted: killed),
    "skipped" (left out after it ended the kernel in an earlier run) or "not run"."""

    status: str
    error: str = ""
    seconds: float = 0.0
    probes: dict = field(default_factory=dict)
    outputs: list = field(default_factory=list)

    @property
    def fatal(self) -> bool:
        return self.status in ("died", "stuck")


@dataclass
class NotebookRun:
    cells: dict  # code cell index -> CellRun
    typed: str | None = None
    attempts: int = 1
    seconds: float = 0.0
    notes: list = field(default_factory=list)
    failed_to_start: str = ""


class SandboxKernel:
    """A kernel in the sandbox: started by :meth:`start`, stopped by :meth:`stop` (everything in its
    sandbox dies with it)."""

    def __init__(self, sandbox, workdir: Path, private: Path, *, env: dict, read_only=(), overlays=None, cwd=None):
        self.sandbox, self.workdir, self.private = sandbox, Path(workdir), Path(private)
        self.cwd = cwd
        self.env, self.read_only, self.overlays = env, read_only, overlays or {}
        self.km = self.kc = None
        self.log = self.private / "kernel-stderr.log"

    def start(self) -> None:
        import zmq
        from jupyter_client import KernelManager
        from jupyter_client.kernelspec import KernelSpecManager

        run = self.workdir / "run"
        connection = run / "k.json"
        argv = self.sandbox.command([self.sandbox.python, "-m", "ipykernel_launcher", "-f", str(connection)],
                                    workdir=self.workdir, env=self.env, read_only=self.read_only,
                                    overlays=self.overlays, chown=[connection], cwd=self.cwd)
        specs = self.private / "kernels"
        (specs / "delaylab-grading").mkdir(parents=True, exist_ok=True)
        (specs / "delaylab-grading" / "kernel.json").write_text(json.dumps(
            {"argv": argv, "display_name": "delaylab grading", "language": "python", "interrupt_mode": "message"}))
        context = zmq.Context()
        context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE)
        self.km = KernelManager(kernel_name="delaylab-grading", transport="ipc", connection_file=str(connection),
                                kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(specs)]), context=context)
        self._err = open(self.log, "wb")
        self.km.start_kernel(stdout=subprocess.DEVNULL, stderr=self._err)
        self.kc = self.km.client(context=context)
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=START_SECONDS)

    def alive(self) -> bool:
        return self.km is not None and self.km.is_alive()

    def stop(self) -> None:
        try:
            if self.kc is not None:
                self.kc.stop_channels()
            if self.km is not None and self.km.has_kernel:
                self.km.shutdown_kernel(now=True)
        except Exception:  # noqa: BLE001 - a kernel that is already gone
            if self.km is not None and self.km.provisioner is not None and self.km.provisioner.process is not None:
                self.km.provisioner.process.kill()
        finally:
            if getattr(self, "_err", None) is not None:
                self._err.close()
            if self.km is not None:
                self.km.context.destroy(linger=0)

    def stderr_tail(self, n: int = 600) -> str:
        try:
            return self.log.read_bytes()[-n:].decode(errors="replace")
        except OSError:
            return ""

    # ---------------------------------------------------------------- one cell
    def execute(self, code: str, *, timeout: float, expressions: dict | None = None) -> CellRun:
        """Run ``code`` in the kernel, with at most ``timeout`` seconds (then an interrupt)."""
        t0 = time.monotonic()
        msg_id = self.kc.execute(code, silent=False, store_history=True, user_expressions=expressions or {},
                                 allow_stdin=False, stop_on_error=False)
        outputs = Outputs()
        deadline, interrupted, error = t0 + max(timeout, 0.1), False, ""
        next_look = t0 + 2.0
        while True:
            if time.monotonic() >= next_look:
                next_look = time.monotonic() + 2.0
                if disk_usage(self.workdir) > DISK_LIMIT:
                    return CellRun("stuck", f"it wrote more than {DISK_LIMIT >> 30} GiB to disk", time.monotonic() - t0,
                                   outputs=outputs.cells)
            left = deadline - time.monotonic()
            if left <= 0:
                if interrupted:
                    return CellRun("stuck", f"still running {timeout + GRACE:.0f} s after its time limit "
                                            f"({timeout:.0f} s), and an interrupt did not stop it",
                                   time.monotonic() - t0, outputs=outputs.cells)
                self.km.interrupt_kernel()
                interrupted, deadline = True, time.monotonic() + GRACE
                continue
            try:
                msg = self.kc.get_iopub_msg(timeout=min(left, 0.5))
            except queue.Empty:
                if not self.alive():
                    return CellRun("died", "the kernel ended while this cell ran (os._exit, a crash, or the "
                                           "memory limit)", time.monotonic() - t0, outputs=outputs.cells)
                continue
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "status" and content.get("execution_state") == "idle":
                break
            if kind == "error":
                error = one_line(f"{content.get('ename', 'Error')}: {content.get('evalue', '')}")
            outputs.add(kind, content)
        reply = self._reply(msg_id)
        seconds = time.monotonic() - t0
        if interrupted:
            return CellRun("timeout", f"stopped after its time limit of {timeout:.0f} s", seconds, outputs=outputs.cells)
        status = "ok" if reply.get("status") == "ok" else "error"
        if status == "error" and not error:
            error = one_line(f"{reply.get('ename', 'Error')}: {reply.get('evalue', '')}")
        return CellRun(status, error, seconds, probes=_parse(reply.get("user_expressions", {})),
                       outputs=outputs.cells)

    def _reply(self, msg_id: str) -> dict:
        end = time.monotonic() + 10
        while time.monotonic() < end:
            try:
                msg = self.kc.get_shell_msg(timeout=1)
            except queue.Empty:
                if not self.alive():
                    break
                continue
            if msg.get("parent_header", {}).get("msg_id") == msg_id:
                return msg.get("content", {})
        return {}


def disk_usage(folder: Path, most: int = 100_000) -> int:
    """Bytes in the files below ``folder`` (counting at most ``most`` entries: beyond, the limit's worth)."""
    total, seen = 0, 0
    for parent, _dirs, files in os.walk(folder):
        for name in files:
            seen += 1
            if seen > most:
                return DISK_LIMIT + 1
            try:
                total += os.lstat(os.path.join(parent, name)).st_size
            except OSError:
                pass
    return total


def _parse(expressions: dict) -> dict:
    """The probes' values: each a JSON object (a str's repr, read with ast.literal_eval), else None."""
    out = {}
    for key, result in (expressions or {}).items():
        try:
            text = result["data"]["text/plain"] if result.get("status") == "ok" else None
            if text is None or len(text) > 1_000_000:
                out[key] = None
                continue
            value = ast.literal_eval(text)
            out[key] = json.loads(value) if isinstance(value, str) else value
        except Exception:  # noqa: BLE001 - whatever the kernel sent: an unreadable answer
            out[key] = None
    return out


def one_line(text: str, n: int = 200) -> str:
    """``text`` on one line, ANSI colours removed, at most ``n`` characters."""
    import re

    text = re.sub(r"\x1b\[[0-9;]*m", "", str(text))
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


class Outputs:
    """A cell's outputs, as nbformat dicts, cut to :data:`KEEP_TEXT` characters of text per cell
    and :data:`KEEP_IMAGE` bytes per image; widgets and interactive figures become a line of text."""

    def __init__(self):
        self.cells: list = []
        self.text = 0
        self.cut = 0

    def add(self, kind: str, content: dict) -> None:
        if kind == "stream":
            self._stream(content.get("name", "stdout"), content.get("text", ""))
        elif kind in ("display_data", "execute_result"):
            data = self._data(content.get("data", {}))
            if data:
                out = {"output_type": kind, "data": data, "metadata": {}}
                if kind == "execute_result":
                    out["execution_count"] = content.get("execution_count")
                self.cells.append(out)
        elif kind == "error":
            self.cells.append({"output_type": "error", "ename": str(content.get("ename", ""))[:200],
                               "evalue": str(content.get("evalue", ""))[:KEEP_TEXT],
                               "traceback": [str(t)[:KEEP_TEXT] for t in content.get("traceback", [])[-20:]]})
        elif kind == "clear_output":
            self.cells.clear()

    def _stream(self, name: str, text: str) -> None:
        room = KEEP_TEXT - self.text
        if room <= 0:
            self.cut += len(text)
            return
        part = text[:room]
        self.cut += len(text) - len(part)
        self.text += len(part)
        if self.cells and self.cells[-1].get("output_type") == "stream" and self.cells[-1]["name"] == name:
            self.cells[-1]["text"] += part
        else:
            self.cells.append({"output_type": "stream", "name": name, "text": part})
        if self.cut:
            self.cells.append({"output_type": "stream", "name": "stderr",
                               "text": f"\n[… output cut by the grader: more than {KEEP_TEXT:,} characters]\n"})

    def _data(self, data: dict) -> dict:
        keep = {}
        for mime in ("text/html", "text/markdown", "text/latex", "text/plain"):
            if mime in data and isinstance(data[mime], str):
                keep[mime] = data[mime][:KEEP_TEXT]
        for mime in ("image/png", "image/jpeg", "image/svg+xml"):
            if mime in data and isinstance(data[mime], str) and len(data[mime]) <= KEEP_IMAGE:
                keep[mime] = data[mime]
        if any(m.startswith("application/vnd.jupyter.widget") or "plotly" in m for m in data):
            keep = {"text/plain": "[an interactive figure or widget: not kept in the graded copy]"}
        return keep


# ------------------------------------------------------------------ a whole notebook
def run_notebook(codes: list, *, sandbox, private: Path, prepare, env_for, read_only=(), overlays=None,
                 probes: dict | None = None, cell_timeout: float = 120.0, timeout: float = 900.0) -> NotebookRun:
    """Run the code cells ``codes`` (a list of (index, source)) in a sandboxed kernel.

    ``prepare(workdir)`` fills a fresh working folder before each run (the submission's files in
    its ``notebook`` folder, where the kernel starts); ``env_for(workdir)`` is the kernel's
    environment; ``probes`` maps a cell index to the ``user_expressions`` read right after it ran."""
    probes = probes or {}
    start = time.monotonic()
    deadline = start + timeout
    skip: dict = {}
    result = NotebookRun(cells={})
    for attempt in range(1, ATTEMPTS + 1):
        result.attempts = attempt
        workdir = private / f"run{attempt}"
        shutil.rmtree(workdir, ignore_errors=True)
        prepare(workdir)
        kernel = SandboxKernel(sandbox, workdir, private, env=env_for(workdir), read_only=read_only, overlays=overlays,
                               cwd=workdir / "notebook")
        restart = False
        try:
            try:
                kernel.start()
            except Exception as exc:  # noqa: BLE001 - the kernel never answered
                result.failed_to_start = one_line(f"{type(exc).__name__}: {exc}. {kernel.stderr_tail()}", 400)
                break
            for index, code in codes:
                if index in skip:  # (it ended the kernel in an earlier run)
                    result.cells[index] = skip[index]
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    result.cells[index] = CellRun("not run", f"the notebook's time limit ({timeout:.0f} s) was "
                                                             "reached before this cell")
                    continue
                expressions = {"settle": _SETTLE.format(s=SETTLE_SECONDS), **probes.get(index, {})}
                run = kernel.execute(code, timeout=min(cell_timeout, left), expressions=expressions)
                result.cells[index] = run
                if run.status == "timeout":  # interrupted: a rerun leaves it out rather than wait again
                    skip[index] = run
                if run.fatal:
                    skip[index] = CellRun("skipped", run.error, run.seconds, outputs=run.outputs)
                    first = one_line(next((ln for ln in code.splitlines() if ln.strip()), ""), 60)
                    result.notes.append(f"The cell that begins “{first}”: {run.error}. The notebook was run again "
                                        "without it, so the rest of the work still counts.")
                    restart = True
                    break
            else:
                if kernel.alive() and deadline > time.monotonic():
                    last = kernel.execute("pass", timeout=min(30.0, deadline - time.monotonic()),
                                          expressions={"typed": f"{_EXERCISES}.grading_typed()"})
                    result.typed = last.probes.get("typed") if isinstance(last.probes.get("typed"), str) else None
        finally:
            kernel.stop()
            if os.environ.get("DELAYLAB_GRADING_KEEP") != "1":
                shutil.rmtree(workdir, ignore_errors=True)
        if not restart or time.monotonic() >= deadline:
            break
    for index, _code in codes:
        result.cells.setdefault(index, CellRun("not run", "the kernel ended too often for this cell to run"
                                               if not result.failed_to_start else "the kernel did not start"))
    result.seconds = time.monotonic() - start
    return result
