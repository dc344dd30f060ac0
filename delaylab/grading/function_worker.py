"""An implement answer, rebuilt from its cell's source and called on the grader's inputs.

An implement exercise is graded from the source of its answer cell alone, run in a fresh namespace
that holds ``np``/``numpy`` and ``math`` — not from the student's kernel, where the function could
close over anything the student defined or replaced. :func:`build` does that rebuilding; the
student's own kernel uses it too (in a graded release the check cell checks the function the way
the grader will, see ``delaylab.exercises.ui``), and the grader runs it in a sandbox with no
delaylab at all: this file is copied there and run as a script (:func:`serve`), so it imports
only the standard library and numpy.

The grader talks to :func:`serve` over its stdin and stdout: frames of a 4-byte length and a JSON
object. Arrays travel as ``np.save`` bytes read back with ``allow_pickle=False``; no pickle is
ever read from a student's process.
"""

from __future__ import annotations

import base64
import builtins
import io
import json
import math
import os
import signal
import struct
import sys

import numpy as np

#: the largest frame either side reads (bytes)
MAX_FRAME = 256 << 20
#: the largest array sent back (elements)
MAX_ELEMENTS = 10_000_000

NO_DELAYLAB = ("delaylab is not available in an implement answer: the function is graded from its own cell, "
               "with numpy (np) and math")


class BuildError(Exception):
    """The answer cell does not give a usable function; ``str(exc)`` is a sentence for the student."""


def _import_without_delaylab(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and name.split(".")[0] == "delaylab":
        raise ImportError(NO_DELAYLAB)
    return builtins.__import__(name, globals, locals, fromlist, level)


def _without_magics(source: str) -> str:
    """The cell's source with IPython's line magics and shell escapes (``%time``, ``!ls``) commented out."""
    return "\n".join(f"# {line}" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def build(source: str, name: str):
    """The function ``name`` that the answer cell ``source`` defines, run in a fresh namespace with
    ``np``, ``numpy`` and ``math`` (and no delaylab): :class:`BuildError` if the cell fails or does
    not define a function of that name."""
    namespace = {"__name__": "__answer__", "__builtins__": {**vars(builtins), "__import__": _import_without_delaylab},
                 "np": np, "numpy": np, "math": math}
    try:
        code = compile(_without_magics(source), "<your answer cell>", "exec")
    except SyntaxError as exc:
        raise BuildError(f"your answer cell has a syntax error on line {exc.lineno}: {exc.msg}") from None
    try:
        exec(code, namespace)
    except ImportError as exc:
        raise BuildError(str(exc) if NO_DELAYLAB in str(exc) else f"your answer cell raised ImportError: {exc}") from None
    fn = namespace.get(name)
    if fn is None:
        raise BuildError(f"your answer cell does not define {name} (an implement answer is graded from its own cell "
                         "alone, with numpy as np and math)")
    if not callable(fn):
        raise BuildError(f"{name} should be a function (def {name}(…): …); got {type(fn).__name__}")
    return fn


# ------------------------------------------------------------------ the wire
def write_frame(stream, message: dict) -> None:
    data = json.dumps(message).encode()
    stream.write(struct.pack(">I", len(data)) + data)
    stream.flush()


def read_exactly(stream, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        chunk = stream.read(n - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(stream) -> dict | None:
    head = read_exactly(stream, 4)
    if head is None:
        return None
    (n,) = struct.unpack(">I", head)
    if n > MAX_FRAME:
        raise ValueError(f"a frame of {n} bytes")
    body = read_exactly(stream, n)
    return None if body is None else json.loads(body)


def encode(value) -> dict:
    """A value as JSON: an array of numbers, text or booleans, ``...``, None, or an opaque object
    (its type's name and a short repr)."""
    if value is Ellipsis:
        return {"ellipsis": True}
    if value is None:
        return {"none": True}
    if type(value) in (bool, int, float) and (type(value) is not int or abs(value) < 2**53):
        return {"py": value}
    try:
        arr = np.asarray(value)
        ok = not arr.dtype.hasobject and arr.size <= MAX_ELEMENTS
    except Exception:  # noqa: BLE001 - whatever the student returned
        ok = False
    if not ok:
        return {"other": {"type": type(value).__name__, "repr": short(value, 80)}}
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return {"array": base64.b64encode(buf.getvalue()).decode(), "type": type(value).__name__}


def decode(message: dict):
    """:func:`encode`'s value back (an opaque object keeps its type's name and repr)."""
    if message.get("ellipsis"):
        return Ellipsis
    if message.get("none"):
        return None
    if "py" in message and type(message["py"]) in (bool, int, float):
        return message["py"]
    if "array" in message:
        arr = np.load(io.BytesIO(base64.b64decode(message["array"])), allow_pickle=False)
        return arr[()] if arr.ndim == 0 and message.get("type") in ("float", "int", "bool") else arr
    other = message.get("other") or {}
    return opaque(str(other.get("type", "object"))[:60], str(other.get("repr", "?"))[:200])


def opaque(type_name: str, text: str):
    """An object that stands for one the student's code made: ``type(x).__name__`` and ``repr(x)``
    are the student's, nothing else of it is."""
    cls = type(type_name if type_name.isidentifier() else "object", (), {"__repr__": lambda self: text})
    return cls()


def short(x, n: int = 60) -> str:
    """``repr(x)`` in at most ``n`` characters (a broken ``__repr__`` gives the type's name)."""
    try:
        s = repr(x)
    except Exception:  # noqa: BLE001 - a broken __repr__
        s = f"<{type(x).__name__}>"
    return s if len(s) <= n else s[: n - 1] + "…"


# ------------------------------------------------------------------ the worker
class _Stop(BaseException):
    pass


def _alarm(signum, frame):
    raise _Stop


def _timed(fn, args, seconds: float):
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _failure(exc: BaseException) -> dict:
    if isinstance(exc, _Stop):
        return {"timeout": True}
    return {"raised": type(exc).__name__, "text": str(exc).strip()[:300],
            "kind": "exit" if isinstance(exc, SystemExit) else "interrupt" if isinstance(exc, KeyboardInterrupt)
            else "error"}


def serve() -> None:
    """The worker: build the function of the first frame (``source``, ``name``, ``seconds``), then
    answer every ``{"args": [...]}`` frame with the call's value or failure, until stdin closes.
    The student's code writes to /dev/null, never into the frames."""
    channel_in = os.fdopen(os.dup(0), "rb", buffering=0)
    channel_out = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdout = sys.stderr = open(os.devnull, "w")
    signal.signal(signal.SIGALRM, _alarm)
    np.seterr(all="ignore")
    hello = read_frame(channel_in)
    if hello is None:
        return
    seconds = float(hello.get("seconds", 3.0))
    try:
        fn = _timed(build, (hello["source"], hello["name"]), max(seconds, 10.0))
    except BuildError as exc:
        write_frame(channel_out, {"build": str(exc)})
        return
    except BaseException as exc:  # noqa: BLE001 - the cell's top-level code, whatever it does
        write_frame(channel_out, {"build_failed": _failure(exc)})
        return
    write_frame(channel_out, {"ready": True})
    while True:
        request = read_frame(channel_in)
        if request is None:
            return
        args = [decode(a) for a in request["args"]]
        try:
            reply = {"value": encode(_timed(fn, args, seconds))}
        except BaseException as exc:  # noqa: BLE001 - the student's function: anything becomes a reply
            reply = _failure(exc)
        write_frame(channel_out, reply)


if __name__ == "__main__":
    serve()
