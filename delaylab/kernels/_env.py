"""What every kernel shares: the arguments they travel in, the Bernoulli settings' pulls and the
engine's calendar, per run.

A kernel is called as ``fn(i0, i1, t0, draws, cal, cum, out, pulls, state, …)``: it advances
every run (column b) of the batch through steps t0 + i0 … t0 + i1 − 1 of a block of draws.

* ``draws`` — the setting's block of draws, a :class:`Draws` for the Bernoulli settings (the
  linear and adversarial kernels define their own, in their modules);
* ``cal`` — the engine's :class:`~delaylab.feedback.Calendar` as a :class:`CalendarArrays`;
* ``cum`` (B,), ``out`` (i1 − i0, B) and ``pulls`` (B, K) — the cumulative regret, written after
  each step, and the engine's pull counts;
* ``state`` — the policy's declared state, the NamedTuple its ``kernel_state()`` returns (for
  example :class:`delaylab.policies.ucb.BlindIndexState`): its arrays are the policy's own, so
  the kernel updates them in place and ``snapshot()`` sees what the numpy path would show.

Per step, exactly as :meth:`delaylab.engine._Runner.advance` with
:meth:`~delaylab.settings.bernoulli.BernoulliBlock.pull` and :class:`~delaylab.feedback.Calendar`:

* the pull of arm a: reward 1{U < θ_a}, delay D (the arm's law, or the shared one), regret Δ_a;
* revealed: conversions only if rewarded and D ≤ window; labelled/anonymous if D ≤ window;
  scheduled (``due``) if revealed and it arrives within the horizon, D ≤ T − 1 − t;
* the calendar: the pull is stored in ring slot t mod W and, if due, linked at the head of the
  list of step t + D (:func:`schedule`); at the end of step t the list of slot t mod W is
  walked (latest pull first, the order of the numpy path's layers) and emptied
  (:func:`first_arrival` and :func:`next_arrival`, the walk every kernel uses).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types

from ..settings.bernoulli import BernoulliBlock, BernoulliSetting

__all__ = ["Draws", "CalendarArrays", "calendar_arrays", "owned", "writable", "supported", "is_state", "pull",
           "schedule", "play", "first_arrival", "next_arrival", "pending", "Kernel"]

CONVERSIONS, LABELLED, ANONYMOUS = 0, 1, 2
_KINDS = {"conversions": CONVERSIONS, "labelled": LABELLED, "anonymous": ANONYMOUS}


class Draws(NamedTuple):
    """A block of a Bernoulli setting's draws as the kernels read it (row i: step t0 + i)."""

    #: (n, B) reward uniforms: the pull of arm a is rewarded iff u < θ_a
    u: np.ndarray
    #: (n, B, 1) delays with one law for every arm, (n, B, K) with one law per arm; int64
    delays: np.ndarray
    #: (B, K) θ_k of every run
    theta: np.ndarray
    #: (B, K) Δ_k = max θ − θ_k of every run
    gap: np.ndarray
    #: CONVERSIONS, LABELLED or ANONYMOUS: what is revealed
    kind: int
    #: the setting's censoring window m, −1 for none
    window: int
    #: the horizon T (feedback due after step T − 1 is never scheduled)
    T: int


class CalendarArrays(NamedTuple):
    """The arrays of the engine's :class:`~delaylab.feedback.Calendar` (rings of W slots, one
    column per run), updated in place by the kernels."""

    #: (W, B) step of the latest pull due at the end of each slot's step, −1 for none
    head: np.ndarray
    #: (W, B) the next pull of the same list, −1 at its end
    next: np.ndarray
    #: (W, B) the arm of the pull made at each slot's step
    arm: np.ndarray
    #: (W, B) its reward or loss; (1, 1) and unused when ``with_values`` is False
    value: np.ndarray
    #: whether the setting reveals values (labelled and anonymous rewards, losses)
    with_values: bool


_NO_VALUES = np.zeros((1, 1))


def calendar_arrays(calendar) -> CalendarArrays:
    """The kernels' view of ``calendar`` (no copy)."""
    with_values = calendar.value is not None
    return CalendarArrays(calendar.head, calendar.next, calendar.arm,
                          calendar.value if with_values else _NO_VALUES, with_values)


def owned(x, shape=None, dtype=float) -> np.ndarray:
    """A writable C-contiguous copy of ``x`` (broadcast to ``shape``): the kernels are compiled
    for these arrays only (a read-only or strided view would compile another specialisation)."""
    x = np.asarray(x, dtype=dtype)
    return np.array(np.broadcast_to(x, x.shape if shape is None else shape), dtype=dtype, order="C", copy=True)


def writable(x, dtype=float) -> np.ndarray:
    """``x`` itself if it is a writable C-contiguous array of ``dtype``, else :func:`owned` (x):
    what the kernels are compiled for, without a copy where none is needed."""
    if x.flags.c_contiguous and x.flags.writeable and x.dtype == dtype:
        return x
    return owned(x, dtype=dtype)


def supported(setting) -> bool:
    """Whether kernels can simulate this setting (the three Bernoulli settings)."""
    return isinstance(setting, BernoulliSetting)


class Env:
    """The setting's part of a kernel's arguments, for one runner (B columns)."""

    def __init__(self, setting, problem):
        self.B, self.K = problem.size, problem.n_arms
        self.kind = _KINDS[setting.feedback]
        self.window = -1 if setting.window is None else int(setting.window)
        self.T = int(problem.horizon)
        self._ep = None

    def draws(self, block) -> Draws:
        """The :class:`Draws` of a block (θ and Δ copied once per episode)."""
        if not isinstance(block, BernoulliBlock):  # pragma: no cover - guarded by supported()
            raise TypeError(f"kernels simulate Bernoulli settings; got {type(block).__name__}")
        ep = block.ep
        if ep is not self._ep:
            self._ep = ep
            self.theta = owned(ep.theta, (self.B, self.K))
            self.gap = owned(ep.gap, (self.B, self.K))
        d = block.delays
        d = d[:, :, None] if d.ndim == 2 else d
        return Draws(writable(block.u), writable(d, np.int64), self.theta, self.gap, self.kind, self.window, self.T)


def is_state(typ, cls) -> bool:
    """In a ``numba.extending.overload``: whether the numba type ``typ`` is that of the NamedTuple
    class ``cls`` (a policy's declared state). The kernels compile a step that differs with the
    policy's state (for example Ñ's two counts) as one function overloaded on the state's type."""
    return isinstance(typ, types.BaseNamedTuple) and typ.instance_class is cls


# The helpers below take arrays, not the NamedTuples: a kernel unpacks its arguments once, before
# its loops (a NamedTuple's field read inside a loop costs at every step: numba does not hoist it).
@njit(cache=True, inline="always")
def pull(i, b, t, a, u, delays, theta, kind, window, T):
    """Outcome of arm a at step t (row i of the block) of run b: (due, delay, value)."""
    d = delays[i, b, a if delays.shape[2] > 1 else 0]
    reward = u[i, b] < theta[b, a]
    if kind == CONVERSIONS:
        revealed = reward and (window < 0 or d <= window)
    else:
        revealed = window < 0 or d <= window
    due = revealed and d <= T - 1 - t
    return due, d, 1.0 if reward else 0.0


@njit(cache=True, inline="always")
def schedule(b, t, slot, a, due, d, value, head, nxt, cal_arm, cal_value, with_values):
    """Calendar.add for run b: store the pull of step t in its ring slot (``slot`` = t mod W,
    computed once per step by the kernel); if due, link it at step t + d."""
    W = head.shape[0]
    cal_arm[slot, b] = a
    if with_values:
        cal_value[slot, b] = value
    if due:
        s2 = (d + t) % W
        nxt[slot, b] = head[s2, b]
        head[s2, b] = t


@njit(cache=True, inline="always")
def play(i, i0, b, t, slot, a, pulls, cum, out, gap, u, delays, theta, kind, window, T, head, nxt, cal_arm,
         cal_value, with_values):
    """Arm a played at step t (row i of the block) of run b: the pull counted, its regret added to
    the run's cumulative regret (row i − i0 of ``out``), its feedback drawn (:func:`pull`) and
    scheduled (:func:`schedule`; ``slot`` = t mod W)."""
    pulls[b, a] += 1
    cum[b] += gap[b, a]
    out[i - i0, b] = cum[b]
    due, d, value = pull(i, b, t, a, u, delays, theta, kind, window, T)
    schedule(b, t, slot, a, due, d, value, head, nxt, cal_arm, cal_value, with_values)


@njit(cache=True, inline="always")
def first_arrival(head, slot, b):
    """Calendar.pop for run b at the end of step t, whose ring slot is ``slot`` = t mod W: the
    step s of the latest pull revealed then, −1 for none; the list is taken out of the calendar.
    The pull of step s is in ring slot r = s mod W (its arm ``cal.arm[r, b]``, its value
    ``cal.value[r, b]``).

    With :func:`next_arrival`, the calendar walk of every kernel::

        slot = t % W  # once per step
        ...
        s = first_arrival(head, slot, b)
        while s >= 0:
            r = s % W
            ...  # learn from the pull of step s
            s = next_arrival(nxt, r, b)

    (latest pull first, the order of the numpy path's layers). Two inlined functions rather than
    one that takes the loop's body: numba would call a function argument at every arrival.
    """
    s = head[slot, b]
    head[slot, b] = -1
    return s


@njit(cache=True, inline="always")
def next_arrival(nxt, r, b):
    """The step of the pull revealed after the one in ring slot r (see :func:`first_arrival`), −1
    after the last."""
    return nxt[r, b]


@njit(cache=True, inline="always")
def pending(head, nxt, slot, b):
    """The number of pulls of run b due at the end of the step of ring slot ``slot``, left in the
    calendar (:func:`first_arrival` takes them out)."""
    W = head.shape[0]
    s = head[slot, b]
    n = 0
    while s >= 0:
        n += 1
        s = next_arrival(nxt, s % W, b)
    return n


class Kernel:
    """Base of the Bernoulli settings' kernels: the engine calls :meth:`run` for steps i0 … i1 − 1
    of a block.

    Subclasses set ``fn`` (the compiled loop) and :meth:`arguments` (the policy's declared state
    and the variant, appended to the shared arguments). The arguments are built once, at the
    first call, and kept: the state's arrays are the policy's own, updated in place by the
    kernel, and its numbers do not change during a simulation; a kernel that stops early for
    :meth:`make_room` (which may replace the policy's arrays) gets them built again.
    """

    #: largest batch (columns of a chunk) for which the kernel beats numpy; None: every batch.
    #: Both paths give the same runs, so this choice changes only the speed.
    max_batch = None

    def __init__(self, policy, setting, problem, calendar):
        self.policy = policy
        self.env = Env(setting, problem)
        self.calendar = calendar
        self.args = None

    def run(self, block, t0: int, i0: int, i1: int, cum: np.ndarray, pulls: np.ndarray) -> np.ndarray:
        """Advance every run through steps t0 + i0 … t0 + i1 − 1: ``cum`` (B,) and ``pulls``
        (B, K) are updated in place; returns the cumulative regret after each step, (i1 − i0, B)."""
        draws = self.env.draws(block)
        cal = calendar_arrays(self.calendar)
        out = np.empty((i1 - i0, self.env.B))
        if self.args is None:
            self.args = self.arguments()
        i = i0
        while i < i1:  # a kernel may stop early at a step (returning it) for Python to make room
            stop = self.fn(int(i), int(i1), int(t0), draws, cal, cum, out[i - i0:], pulls, *self.args)
            i = i1 if stop is None else int(stop)
            if i < i1:
                self.make_room()
                self.args = self.arguments()
        self.after(t0 + i1 - 1)
        return out

    def make_room(self) -> None:  # pragma: no cover - only kernels that stop early
        """Called when the kernel stopped early at a step: grow what did not fit."""
        raise NotImplementedError

    def arguments(self) -> tuple:  # pragma: no cover - abstract
        """The policy's state (its ``kernel_state()``) and the variant's arguments."""
        raise NotImplementedError

    def after(self, last_step: int) -> None:
        """Bookkeeping of the policy's Python attributes after a call (e.g. its clock)."""
