"""What every kernel shares: the Bernoulli settings' pulls and the engine's calendar, per run.

A kernel advances one run (column b) of the batch through steps i0 … i1 − 1 of a block. Per
step, exactly as :meth:`delaylab.engine._Runner.advance` with
:meth:`~delaylab.settings.bernoulli._BernoulliBlock.pull` and :class:`~delaylab.feedback.Calendar`:

* the pull of arm a: reward 1{U < θ_a}, delay D (the arm's law, or the shared one), regret Δ_a;
* revealed: conversions only if rewarded and D ≤ window; labelled/anonymous if D ≤ window;
  scheduled (``due``) if revealed and it arrives within the horizon, D ≤ T − 1 − t;
* the calendar: the pull is stored in ring slot t mod W and, if due, linked at the head of the
  list of step t + D; at the end of step t the list of slot t mod W is walked (latest pull
  first, the order of the numpy path's layers) and emptied.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..settings.bernoulli import _BernoulliBlock, _BernoulliSetting

CONVERSIONS, LABELLED, ANONYMOUS = 0, 1, 2
_KINDS = {"conversions": CONVERSIONS, "labelled": LABELLED, "anonymous": ANONYMOUS}


def owned(x, shape=None, dtype=float) -> np.ndarray:
    """A writable C-contiguous copy of ``x`` (broadcast to ``shape``): the kernels are compiled
    for these arrays only (a read-only or strided view would compile another specialisation)."""
    x = np.asarray(x, dtype=dtype)
    return np.array(np.broadcast_to(x, x.shape if shape is None else shape), dtype=dtype, order="C", copy=True)


def per_run(x, B) -> np.ndarray:
    """A scalar or per-run (B,) / (B, 1) parameter as a (B,) float array."""
    return owned(np.asarray(x, float).reshape(-1), (B,))


def supported(setting) -> bool:
    """Whether kernels can simulate this setting (the three Bernoulli settings)."""
    return isinstance(setting, _BernoulliSetting)


class Env:
    """The arrays a kernel reads from the setting, for one runner (B columns)."""

    def __init__(self, setting, problem, calendar):
        B, K = problem.size, problem.n_arms
        self.kind = _KINDS[setting.feedback]
        self.window = -1 if setting.window is None else int(setting.window)
        self.T = int(problem.horizon)
        self.cal = calendar
        self.cal_value = calendar.value if calendar.value is not None else np.zeros((1, 1))
        self.B, self.K = B, K
        self._ep = None

    def block(self, block):
        """(u (n, B), delays (n, B, 1 or K), θ (B, K), Δ (B, K)) of a block of draws."""
        if not isinstance(block, _BernoulliBlock):  # pragma: no cover - guarded by supported()
            raise TypeError(f"kernels simulate Bernoulli settings; got {type(block).__name__}")
        ep = block.ep
        if ep is not self._ep:
            self._ep = ep
            self.theta = owned(ep.theta, (self.B, self.K))
            self.gap = owned(ep.gap, (self.B, self.K))
        d = block.delays
        d = d[:, :, None] if d.ndim == 2 else d
        u = block.u if block.u.flags.c_contiguous and block.u.flags.writeable else owned(block.u)
        d = d if d.flags.c_contiguous and d.flags.writeable and d.dtype == np.int64 else owned(d, dtype=np.int64)
        return u, d, self.theta, self.gap


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
def schedule(b, t, a, due, d, value, head, nxt, cal_arm, cal_value, with_values):
    """Calendar.add for run b: store the pull of step t; if due, link it at step t + d."""
    W = head.shape[0]
    slot = t % W
    cal_arm[slot, b] = a
    if with_values:
        cal_value[slot, b] = value
    if due:
        s2 = (d + t) % W
        nxt[slot, b] = head[s2, b]
        head[s2, b] = t


@njit(cache=True, inline="always")
def play(i, i0, b, t, a, pulls, cum, gap, out, u, delays, theta, kind, window, T, head, nxt, cal_arm, cal_value,
         with_values):
    """Arm a played at step t (row i of the block) of run b: the pull counted, its regret added to
    the run's cumulative regret (row i − i0 of ``out``), its feedback drawn and scheduled."""
    pulls[b, a] += 1
    cum[b] += gap[b, a]
    out[i - i0, b] = cum[b]
    due, d, value = pull(i, b, t, a, u, delays, theta, kind, window, T)
    schedule(b, t, a, due, d, value, head, nxt, cal_arm, cal_value, with_values)


class Kernel:
    """Base of the kernels: the engine calls :meth:`run` for steps i0 … i1 − 1 of a block.

    Subclasses set ``self._fn`` (the compiled loop) and ``self._state()`` (the policy's arrays
    and parameters, appended to the shared arguments).
    """

    #: largest batch (columns of a chunk) for which the kernel beats numpy; None: every batch.
    #: Both paths give the same runs, so this choice changes only the speed.
    max_batch = None

    def __init__(self, policy, setting, problem, calendar):
        self.policy = policy
        self.env = Env(setting, problem, calendar)

    def run(self, block, t0: int, i0: int, i1: int, cum: np.ndarray, pulls: np.ndarray) -> np.ndarray:
        """Advance every run through steps t0 + i0 … t0 + i1 − 1: ``cum`` (B,) and ``pulls``
        (B, K) are updated in place; returns the cumulative regret after each step, (i1 − i0, B)."""
        e, cal = self.env, self.env.cal
        u, d, theta, gap = e.block(block)
        out = np.empty((i1 - i0, e.B))
        i = i0
        while i < i1:  # a kernel may stop early at a step (returning it) for Python to make room
            stop = self._fn(int(i), int(i1), int(t0), u, d, theta, gap, e.kind, e.window, e.T,
                            cal.head, cal.next, cal.arm, e.cal_value, cal.value is not None, cum, out[i - i0:],
                            pulls, *self._state())
            i = i1 if stop is None else int(stop)
            if i < i1:
                self._make_room()
        self._after(t0 + i1 - 1)
        return out

    def _make_room(self) -> None:  # pragma: no cover - only kernels that stop early
        raise NotImplementedError

    def _state(self) -> tuple:  # pragma: no cover - abstract
        raise NotImplementedError

    def _after(self, last_step: int) -> None:
        """Bookkeeping of the policy's Python attributes after a call (e.g. its clock)."""
