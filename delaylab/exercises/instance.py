"""Each student their own numbers: the parameters of an exercise drawn from a student's id.

``Draw(student, eid)`` gives a stream of draws that depends only on the two strings: SHA-256 of
the id, the exercise and a counter, so the same student gets the same numbers on every run, on
every machine and with every version of Python or numpy (no salted ``hash``, no numpy generator
whose algorithm could change). Ids are compared without case and surrounding spaces
("S1234 " is "s1234").

The student is set by :func:`start` (``ex.start("s1234")`` in a notebook); with no id, the
environment variable ``DELAYLAB_STUDENT`` is used (a JupyterHub can set it to the user's name), and
without it the *default instance*: the numbers the notebook's text and its solved copy use.
"""

from __future__ import annotations

import hashlib
import os
from fractions import Fraction

#: Set by a course's JupyterHub, for example, to give every student their own numbers without a call.
STUDENT_ENV = "DELAYLAB_STUDENT"
#: What JupyterHub sets in a user's server: the user name, the student id of a graded release by default.
HUB_USER_ENV = "JUPYTERHUB_USER"

_current: str = ""


def normalise(student) -> str:
    """The id as compared: stripped, case-folded ("" for the default instance)."""
    if student is None:
        return ""
    if not isinstance(student, (str, int)) or isinstance(student, bool):
        raise ValueError(f"student must be a name or a student id (a string); got {type(student).__name__} "
                         f"{student!r}")
    text = str(student).strip().casefold()
    if len(text) > 200:
        raise ValueError(f"student must be at most 200 characters; got {len(text)}")
    return text


def set_current(student, graded: bool = False) -> str:
    """Set the current student: ``student``, else ``$DELAYLAB_STUDENT``, else the default instance.
    In a graded release (``graded``) on a JupyterHub, the hub's user name (``$JUPYTERHUB_USER``),
    whatever is typed: that is the id the course's grader knows (:func:`hub_user`)."""
    global _current
    who = normalise(student) or normalise(os.environ.get(STUDENT_ENV, ""))
    if graded and hub_user():
        who = hub_user()
    _current = who
    return _current


def hub_user() -> str:
    """The JupyterHub user name of this server, normalised ("" outside a hub)."""
    return normalise(os.environ.get(HUB_USER_ENV, ""))


def current() -> str:
    """The student whose numbers the exercises use now ("" for the default instance)."""
    return _current


def resolve(student=None) -> str:
    """``student`` normalised, or the current student when None."""
    return _current if student is None else normalise(student)


class Draw:
    """Deterministic draws for one (student, exercise) pair."""

    def __init__(self, student: str, eid: str, attempt: int = 0):
        self._key = f"delaylab-exercise\x00{eid}\x00{student}\x00{attempt}".encode()
        self._n = 0

    def _u64(self) -> int:
        digest = hashlib.sha256(self._key + self._n.to_bytes(8, "big")).digest()
        self._n += 1
        return int.from_bytes(digest[:8], "big")

    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high] (both included)."""
        return low + self._u64() % (high - low + 1)

    def choice(self, options):
        """One of ``options``."""
        options = list(options)
        return options[self.integer(0, len(options) - 1)]

    def grid(self, low, high, step) -> float:
        """A value of low, low + step, …, high (exact decimals: 0.05 steps stay 0.05 steps)."""
        lo, hi, st = (Fraction(str(x)) for x in (low, high, step))
        n = int((hi - lo) / st)
        return float(lo + st * self.integer(0, n))

    def sample(self, options, k: int) -> list:
        """``k`` distinct elements of ``options``, in increasing order."""
        pool = list(options)
        out = []
        for _ in range(k):
            out.append(pool.pop(self.integer(0, len(pool) - 1)))
        return sorted(out)
