"""Calling a student's code safely: whatever it does, the caller gets a value or one sentence.

A student's function may raise anything (``SystemExit`` and ``KeyboardInterrupt`` included), return
``None`` (a forgotten ``return``, or ``return np.add.at(...)``, which works in place), return
something that is not an array of numbers, or never return (an infinite loop). :func:`call`
turns each case into a :class:`StudentError` whose message is a sentence for the student, and
stops a call that runs longer than its time limit.

The time limit works in any thread: a watchdog thread raises :class:`TimeLimit` inside the thread
running the student's code (``PyThreadState_SetAsyncExc``), which Python delivers between two
bytecodes: a Python loop is stopped (an ``except Exception`` in it does not catch the stop); a
single numpy call that runs long is stopped when it returns. The one thing no outside stop can end
is a loop that itself catches ``BaseException`` (a bare ``except:``) and goes on: the stop is
repeated every half second, but such a loop swallows each one — as it would swallow the kernel's
own interrupt.
"""

from __future__ import annotations

import ctypes
import itertools
import sys
import threading
import time

import numpy as np

from ..grading.function_worker import short  # (one helper for the checks and the grader)

#: Seconds one call of a student's function may take before it is stopped.
CALL_SECONDS = 3.0
#: Seconds a whole check (every call of a student's function in it) may take.
CHECK_SECONDS = 60.0


class StudentError(Exception):
    """The student's code failed; ``str(exc)`` is a sentence for the student."""


class NotWritten(Exception):
    """The student's function still returns ``...`` (the stub as shipped)."""


class TimeLimit(BaseException):
    """Raised inside the student's code when its time is up (a BaseException, so that an
    ``except Exception`` in the student's code does not swallow it)."""


class _Watchdog:
    """One daemon thread that stops the guarded calls which outlive their deadline.

    A stop is raised only while the guarded call's frame (:func:`_run`) is still on its thread's
    stack, and :meth:`leave` cancels a stop not yet delivered, under the same lock: a stop never
    lands in the code that runs after the call. It is repeated every half second while the call
    goes on (a bare ``except:`` in the student's loop swallows one).
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._calls: dict[int, list] = {}  # token -> [thread id, deadline, time of the last stop]
        self._ids = itertools.count(1)
        self._thread = None
        self._wake = threading.Event()

    def enter(self, seconds: float) -> int:
        token = next(self._ids)
        with self._lock:
            self._calls[token] = [threading.get_ident(), time.monotonic() + seconds, None]
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._watch, name="delaylab-student-watchdog", daemon=True)
                self._thread.start()
        self._wake.set()
        return token

    def leave(self, token: int) -> None:
        with self._lock:
            entry = self._calls.pop(token, None)
            tid = threading.get_ident()
            if entry is not None and entry[2] is not None and not any(e[0] == tid for e in self._calls.values()):
                _set_async_exc(tid, None)  # a stop raised as the call returned, not yet delivered: cancel it

    def _watch(self) -> None:
        while True:
            with self._lock:
                now = time.monotonic()
                frames = None
                for token, entry in list(self._calls.items()):
                    tid, deadline, fired = entry
                    if deadline > now or (fired is not None and now - fired < 0.5):
                        continue
                    frames = sys._current_frames() if frames is None else frames
                    if not _inside(frames.get(tid), token):
                        del self._calls[token]  # the call has ended (its leave was cut short)
                        continue
                    _set_async_exc(tid, TimeLimit)
                    entry[2] = now
                pending = min((e[1] for e in self._calls.values()), default=None)
            timeout = 0.05 if pending is None else min(max(pending - time.monotonic(), 0.005), 0.05)
            self._wake.wait(timeout)
            self._wake.clear()


def _set_async_exc(tid: int, exc) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), None if exc is None else ctypes.py_object(exc))


def _inside(frame, token: int) -> bool:
    """Whether ``frame``'s stack holds the guarded call :func:`_run` of ``token``."""
    while frame is not None:
        if frame.f_code is _run.__code__ and frame.f_locals.get("_token") == token:
            return True
        frame = frame.f_back
    return False


_WATCHDOG = _Watchdog()


class ExitCalled(SystemExit):
    """IPython's ``exit()`` or ``quit()`` called inside a student's function (see :class:`_NoExit`)."""


def _refuse_exit(*args, **kwargs):
    raise ExitCalled("exit() or quit()")


class _NoExit:
    """While a student's function runs, IPython's ``exit()`` and ``quit()`` raise instead of asking
    the kernel to stop. In a kernel they do not raise: they call the shell's ``ask_exit``, which
    queues a reply that makes the front end shut the kernel down once the cell ends (and all
    state is lost). The shell's ``ask_exit`` is replaced for the duration of the guarded calls
    (from any thread), then restored."""

    def __init__(self):
        self._lock = threading.Lock()
        self._depth = 0
        self._saved = None

    def __enter__(self):
        with self._lock:
            if self._depth == 0:
                shell = _shell()
                if shell is not None and hasattr(shell, "ask_exit"):
                    self._saved = (shell, shell.__dict__.get("ask_exit", _NoExit))
                    shell.ask_exit = _refuse_exit
            self._depth += 1
        return self

    def __exit__(self, *exc):
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._saved is not None:
                shell, before = self._saved
                if before is _NoExit:
                    del shell.ask_exit
                else:
                    shell.ask_exit = before
                self._saved = None
        return False


def _shell():
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    return get() if get is not None else None


_NO_EXIT = _NoExit()


def _run(fn, args, seconds):
    """``fn(*args)`` under a time limit; a stop raised anywhere in here leaves through the caller's handler."""
    _token = _WATCHDOG.enter(seconds)
    try:
        with _NO_EXIT:
            return fn(*args)
    finally:
        _WATCHDOG.leave(_token)


def describe(exc: BaseException, name: str) -> str:
    """What the student's ``name`` did, as one sentence (no traceback)."""
    if isinstance(exc, TimeLimit):
        return (f"your {name} was stopped after running longer than {CALL_SECONDS:g} s on one call "
                f"(an infinite loop, or a loop over every run and arm that numpy could do at once?)")
    if isinstance(exc, ExitCalled):
        return f"your {name} called exit() or quit(), which would stop the kernel: return a value instead"
    if isinstance(exc, SystemExit):
        return f"your {name} called exit() (SystemExit): return a value instead"
    if isinstance(exc, KeyboardInterrupt):
        return f"your {name} was interrupted (KeyboardInterrupt)"
    text = str(exc).strip().rstrip(".")
    return f"your {name} raised {type(exc).__name__}" + (f": {text}" if text else "")


_budget = threading.local()


class budget:
    """``with budget(seconds):`` — the calls of :func:`call` in the block share ``seconds`` in all
    (a check calls the student's function many times: each call has its own limit, the check too)."""

    def __init__(self, seconds: float = CHECK_SECONDS):
        self.seconds = seconds

    def __enter__(self):
        self._outer = getattr(_budget, "deadline", None)
        deadline = time.monotonic() + self.seconds
        _budget.deadline = deadline if self._outer is None else min(deadline, self._outer)
        return self

    def __exit__(self, *exc):
        _budget.deadline = self._outer
        return False


def call(fn, *args, name: str = "function", seconds: float | None = None):
    """``fn(*args)``, or a :class:`StudentError` (a sentence) / :class:`NotWritten` (``...``)."""
    deadline = getattr(_budget, "deadline", None)
    limit = CALL_SECONDS if seconds is None else seconds
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise StudentError(f"your {name} is too slow: the check gave up after {CHECK_SECONDS:g} s in all "
                               f"(a Python loop over runs and arms? numpy can do them at once)")
        limit = min(limit, left)
    try:
        out = _run(fn, args, limit)
    except (NotWritten, StudentError):
        raise
    except BaseException as exc:  # noqa: BLE001 - the student's code: anything at all becomes a sentence
        raise StudentError(describe(exc, name)) from None
    if out is Ellipsis:
        raise NotWritten
    if out is None:
        raise StudentError(f"your {name} returned None: did you forget `return`? (Functions such as "
                           f"np.add.at change an array in place and return None: return the array itself.)")
    return out


def as_array(out, name: str, shape: tuple | None = None, dtype=float) -> np.ndarray:
    """A student's returned value as a numeric array (of ``shape``, broadcast if needed), or a
    :class:`StudentError`. Text, objects and complex numbers are refused, even inside a list."""
    try:
        arr = np.asarray(out)
    except Exception:  # noqa: BLE001 - anything odd the student returned
        raise StudentError(f"your {name} returned {type(out).__name__}, not an array of numbers") from None
    if arr.dtype.kind not in "biuf" or (arr.dtype.kind == "b" and dtype is not bool):
        raise StudentError(f"your {name} returned {_what(out, arr)}, not an array of numbers")
    arr = arr.astype(dtype, copy=False)
    if shape is not None and arr.shape != shape:
        try:
            arr = np.broadcast_to(arr, shape)
        except ValueError:
            raise StudentError(f"your {name} returned shape {arr.shape}; expected {shape} (one value per run "
                               f"and arm)") from None
    return arr


def _what(out, arr) -> str:
    kinds = {"U": "text", "S": "bytes", "O": "objects", "c": "complex numbers", "b": "True/False values"}
    return f"{kinds.get(arr.dtype.kind, type(out).__name__)} ({short(out)})"
