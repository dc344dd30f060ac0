"""Each answer judged in the grader's own process, against delaylab's reference, for the student
the grader knows.

What a submission's kernel sent (:mod:`delaylab.grading.run`) is data: a number, an array, text,
or the news that a function was defined. Numbers and choices are checked here with the exercise's
own check (:func:`delaylab.exercises.check`), for the student whose folder the submission is in —
whatever id the notebook typed. An implemented function is rebuilt from its answer cell's source
in a sandboxed worker with no delaylab in it (:mod:`delaylab.grading.function_worker`), and the
exercise's check calls it there through :class:`SandboxedFunction`: every call's arguments go in,
its value (an array) comes out.

A :class:`Verdict` gives the points and one of :data:`REASONS`, and a one-line message: the check's
own sentence (which names the misconception it recognises), never a traceback.
"""

from __future__ import annotations

import select
import shutil
import subprocess
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..exercises import check, get
from ..exercises.guard import CALL_SECONDS, StudentError, TimeLimit, describe
from ..exercises.instance import normalise
from . import function_worker as fw
from .run import CellRun, one_line

#: why an exercise got its points (or did not)
REASONS = ("right", "wrong", "missing", "error", "timeout", "manual")


@dataclass
class Verdict:
    """An exercise's grade: ``points`` (None: to be graded by hand) of ``max_points``, the
    ``reason`` (one of :data:`REASONS`), a one-line ``message`` and the ``answer`` as given."""

    eid: str
    points: float | None
    max_points: float
    reason: str
    message: str
    answer: str = ""


def decode(probe: dict):
    """A probe's value (see graded_kernel.grading_probe) as the object the check expects."""
    kind = probe.get("kind")
    if kind in ("float", "bool", "str"):
        return probe["value"]
    if kind == "none":
        return None
    if kind == "array":
        shape = tuple(int(n) for n in probe.get("shape", []))
        if probe.get("dtype") == "str":
            return np.array([str(x) for x in probe["data"]], dtype=str).reshape(shape)
        return np.array(probe["data"], dtype=bool if probe.get("dtype") == "bool" else float).reshape(shape)
    return fw.opaque(str(probe.get("type", "object")), str(probe.get("repr", "?")))


def shown(value) -> str:
    """An answer as the feedback shows it (short)."""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return "(" + ", ".join(f"{v:.6g}" for v in value.ravel()[:12]) + (", …)" if value.size > 12 else ")")
    return one_line(repr(value), 120)


def judge(eid: str, *, cell: CellRun | None, probe, source: str, student: str, typed: str | None,
          functions, max_points: float) -> Verdict:
    """The verdict on the answer to ``eid``: ``cell`` is how its answer cell ran (None: the cell is
    not in the submission), ``probe`` what it set, ``source`` its code; ``functions(source, name)``
    gives a callable that runs an implemented function in a sandbox."""
    ex = get(eid)

    def verdict(reason, message, answer="", points=0.0):
        return Verdict(eid, points, max_points, reason, one_line(message, 400), answer)

    if cell is None:
        return verdict("missing", "The answer cell of this exercise is not in the notebook (was it deleted?).")
    code = source.strip()  # what the page shows when the cell gave no value
    if cell.status in ("timeout", "stuck"):
        return verdict("timeout", f"Your answer cell was {cell.error}.", code)
    if cell.status in ("died", "skipped"):
        return verdict("error", f"When your answer cell ran, {cell.error}.", code)
    if cell.status == "not run":
        reason = "timeout" if "time limit" in cell.error else "error"
        return verdict(reason, f"Your answer cell did not run: {cell.error}.", code)
    if cell.status == "error":
        return verdict("error", f"Your answer cell raised {cell.error}", code)
    name = ex.answer_name or "your prediction"
    if not isinstance(probe, dict) or probe.get("status") not in ("ok", "missing", "ellipsis"):
        return verdict("error", f"The value of {name} could not be read after your answer cell ran.")
    if probe["status"] == "missing":
        return verdict("missing", f"Your answer cell did not set {name}.")
    if probe["status"] == "ellipsis":
        return verdict("missing", "Not answered (the cell still holds `...`).")
    if ex.kind == "implement":
        if probe.get("kind") != "callable":
            return verdict("wrong", f"{name} should be a function (def {name}(…): …); got {probe.get('type', '?')}.")
        with quiet():
            try:
                fn = functions(source, ex.answer_name)
            except fw.BuildError as exc:
                return verdict("error", f"{str(exc)[0].upper()}{str(exc)[1:]}.", source)
            try:
                fb = check(eid, fn, student=student)
            finally:
                close = getattr(fn, "close", None)
                if close is not None:
                    close()
        answer = source
    else:
        value = decode(probe)
        with quiet():
            fb = check(eid, value, student=student)
        answer = _choice(ex, value) if ex.kind == "predict" else shown(value)
    if fb.correct:
        return verdict("right", fb.message, answer, max_points)
    if not fb.answered:
        return verdict("missing", fb.message, answer)
    message = fb.message
    if ex.parameterised and typed is not None and normalise(typed) not in ("", student) and ex.kind != "implement":
        with quiet():
            theirs = check(eid, decode(probe), student=typed)
        if theirs.correct:
            message = (f"Right for the numbers of “{typed}”, the id your notebook typed, but you are graded as "
                       f"{student}, with that id's numbers. {message}")
    return verdict("wrong", message, answer)


def _choice(ex, value) -> str:
    label = ex.choices.get(value) if isinstance(value, str) else None
    return f"{value!r} ({label})" if label else shown(value)


class quiet:
    """``with quiet():`` — the warnings of a student's code and of numpy on its values go nowhere."""

    def __enter__(self):
        self._warnings = warnings.catch_warnings()
        self._warnings.__enter__()
        warnings.simplefilter("ignore")
        self._np = np.errstate(all="ignore")
        self._np.__enter__()
        return self

    def __exit__(self, *exc):
        self._np.__exit__(*exc)
        self._warnings.__exit__(*exc)
        return False


# ------------------------------------------------------------------ implemented functions, in a sandbox
class SandboxedFunction:
    """A student's function, rebuilt from its cell in a sandboxed worker (no delaylab there) and
    called through a pipe; a failure in it is a :class:`StudentError` with the sentence the
    in-process check would give. Its worker is started again after a call that went wrong."""

    def __init__(self, sandbox, folder: Path, source: str, name: str, *, env: dict, hidden=(),
                 seconds: float = CALL_SECONDS):
        self.sandbox, self.folder, self.source, self.name = sandbox, Path(folder), source, name
        self.env, self.hidden, self.seconds = env, hidden, seconds
        self.proc = None
        self.starts = 0
        self._start()

    def _start(self) -> None:
        self.close()
        self.starts += 1
        work = self.folder / f"worker{self.starts}"
        shutil.rmtree(work, ignore_errors=True)
        self.sandbox.folder(work)
        script = work / "function_worker.py"
        shutil.copyfile(fw.__file__, script)
        for sub in ("home", "tmp"):
            (work / sub).mkdir()
        self.sandbox.give(work)
        cmd = self.sandbox.command([self.sandbox.python, "-I", str(script)], workdir=work, env=self.env,
                                   hidden=self.hidden)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        fw.write_frame(self.proc.stdin, {"source": self.source, "name": self.name, "seconds": self.seconds})
        reply = self._read(max(self.seconds, 10.0) + 20.0)
        if reply is None:
            self.close()
            raise fw.BuildError("your answer cell did not finish running on its own (an infinite loop at its top "
                                "level, or a crash)")
        if "build" in reply:
            self.close()
            raise fw.BuildError(str(reply["build"])[:300])
        if "build_failed" in reply:
            self.close()
            raise fw.BuildError(self._sentence(reply["build_failed"], "answer cell"))

    def _read(self, seconds: float):
        deadline = time.monotonic() + seconds
        out = self.proc.stdout
        buf = b""
        need = 4
        size = None
        while len(buf) < need:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([out], [], [], left)
            if not ready:
                return None
            chunk = out.read1(need - len(buf)) if hasattr(out, "read1") else out.read(need - len(buf))
            if not chunk:
                return None
            buf += chunk
            if size is None and len(buf) >= 4:
                size = int.from_bytes(buf[:4], "big")
                if size > fw.MAX_FRAME:
                    return None
                need = 4 + size
        import json

        try:
            return json.loads(buf[4:])
        except ValueError:
            return None

    def _sentence(self, failure: dict, what: str | None = None) -> str:
        name = what or self.name
        if failure.get("timeout"):
            return describe(TimeLimit(), name)
        kind = failure.get("kind")
        text = str(failure.get("text", ""))[:300]
        exc = (SystemExit(text) if kind == "exit" else KeyboardInterrupt() if kind == "interrupt" else
               type(str(failure.get("raised", "Exception"))[:60] or "Exception", (Exception,), {})(text))
        return describe(exc, name)

    def __call__(self, *args):
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        done = False
        try:
            try:
                fw.write_frame(self.proc.stdin, {"args": [fw.encode(a) for a in args]})
            except (BrokenPipeError, OSError):
                raise StudentError(f"your {self.name} ended its process (os._exit, or a crash)") from None
            reply = self._read(self.seconds + 3.0)
            if reply is None:
                if self.proc.poll() is not None:
                    raise StudentError(f"your {self.name} ended its process (os._exit, or a crash)")
                raise StudentError(describe(TimeLimit(), self.name))
            done = "value" in reply
            if not done:
                raise StudentError(self._sentence(reply))
            return fw.decode(reply["value"])
        finally:
            if not done:
                self.close()

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
            self.proc = None
