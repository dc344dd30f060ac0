"""Every control of a live panel answers within a time budget (1 s), whatever its values.

A panel (:class:`~delaylab.panels.base.Panel`) owns one :class:`Budget`: its ``update`` runs
through :meth:`Budget.run`, its simulations through ``self.simulate(...)`` (:meth:`Budget.simulate`,
the arguments of :func:`delaylab.simulate`), and its status line begins with
:meth:`Budget.shown` (what the figures show: all runs, or how many so far). Then, at each move:

1. The cost of the simulation is estimated from measured timings (seconds per step of each
   policy, as a function of the number of runs: ``a + b·R``, refitted after every simulation;
   :class:`CostModel`, scaled by :class:`MachineSpeed` for policies not measured yet). Nothing
   is hard-coded: a faster engine (compiled kernels) or a slower machine changes the
   measurements, hence the sizes.
2. If the whole computation fits the budget, it runs at once, as before.
3. Otherwise a *first answer* that fits is computed at once: the first runs (fewer of them,
   down to :data:`MIN_RUNS`), then if needed a shorter horizon. Later simulations of the same
   update are made no larger than an earlier first answer, and results a panel kept from earlier
   moves are cut to its runs and steps (:func:`~delaylab.panels.results.together`), so that every
   curve drawn together shows the same runs and horizon. The status line says so. The
   full computation (first at the full horizon with those runs, then with every run) goes on in
   a background thread, one policy at a time; the figures are redrawn when each stage is done.
   A run's outcome depends only on the seed, its index and its parameters, so a first answer
   with fewer runs shows exactly the first runs of the full one, and computing policies one at a
   time changes nothing. A first answer with a shorter horizon T' is a simulation *of horizon
   T'*: a learner tuned from the horizon (Exp3's rate) and the best arm in hindsight are those of
   T', so its curves can differ from the first T' steps of the full one.
4. A newer move cancels a stale computation: the engine's ``progress`` hook, called after each
   block of steps, raises :class:`Cancelled` once the budget's generation counter has moved on.
   The controls stay responsive: the kernel's main thread only computes first answers.

Figures are updated on one path: the panel's refresh (under the budget's lock), from the
main thread for a move, from the background thread for a refinement, never both at once. The
first answer is never kept as a full result: :class:`~delaylab.panels.results.ResultCache`
does not count it as computed.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time

import numpy as np

from ..engine import simulate as _simulate

#: seconds within which every control move shows an answer
BUDGET_SECONDS = 1.0
#: a first answer keeps at least this many runs (or all of them, if fewer)
MIN_RUNS = 10
#: ... and at least this many steps (or the whole horizon, if shorter)
MIN_STEPS = 50
#: share of the remaining budget a first answer is sized for (estimates are rough)
SAFETY = 0.5
#: a whole computation runs at once if its estimate is within this share of the time left. An
#: estimate can be low: a policy's cost is learnt from simulations shared with other policies,
#: whose common work (drawing the delays and rewards) is shared out among them, so the policies
#: left after one is switched off cost more each than measured
FIT = 0.7
#: prior cost of one step of one policy: a + b·R seconds (replaced by measurements at once)
PRIOR_A, PRIOR_B = 60e-6, 0.4e-6

log = logging.getLogger("delaylab.panels")

#: how a status line ends while the rest of the runs is computed in the background, and if that failed
COMPUTING = "the rest is being computed…"
FAILED = "the rest could not be computed (the kernel's log says why); move a control to try again"


class Cancelled(Exception):
    """A newer move made this computation stale."""


# ----------------------------------------------------------------------------- cost model
class MachineSpeed:
    """How fast this machine simulates, against the prior cost of a step (``PRIOR_A + PRIOR_B·R``
    seconds): one scale, learnt from every measured simulation of the cost models sharing it.

    A policy never measured is estimated with it, so that a panel's first move on a slow (or
    fast) machine is sized from what the other panels of the kernel have seen. The panels of a
    kernel share one (:attr:`delaylab.panels.base.Panel.speed`).
    """

    def __init__(self, scale: float = 1.0):
        self.scale = scale

    def prior(self, R: int) -> float:
        """Seconds per step of a policy never measured, for R runs."""
        return self.scale * (PRIOR_A + PRIOR_B * R)

    def learn(self, measured: float, R: int) -> None:
        """A policy took ``measured`` seconds per step for R runs: move the scale a fifth of the
        way towards what that says about this machine."""
        prior = self.prior(R)
        self.scale = 0.8 * self.scale + 0.2 * self.scale * measured / prior


class CostModel:
    """Seconds per step of each policy, as ``a + b·R`` for R runs, from measured simulations.

    Keys are (policy name, number of arms, dimension, the policy's window m): what changes a
    policy's cost most. The window matters for the on-the-fly linear policies, whose step sums
    over the last m rounds: their cost grows with m, and estimates that mixed windows sized
    moves from a large window too large.

    ``speed``: the :class:`MachineSpeed` it learns into and estimates unmeasured policies from
    (its own if not given).
    """

    def __init__(self, speed: MachineSpeed | None = None):
        self.obs: dict = {}  # key → {R: seconds per step}
        self.speed = MachineSpeed() if speed is None else speed

    @staticmethod
    def key(name, setting, policy=None):
        window = getattr(policy, "window", None)
        window = int(window) if isinstance(window, (int, np.integer)) and not isinstance(window, bool) else None
        return (name, getattr(setting, "n_arms", None), getattr(setting, "dim", None), window)

    def rate(self, key, R: int) -> float:
        """Estimated seconds per step for R runs."""
        obs = self.obs.get(key)
        if not obs and key[3] is not None:  # this window not measured, others of this policy were
            windows = {k[3]: self.obs[k] for k in self.obs if k[:3] == key[:3] and k[3] is not None and self.obs[k]}
            if windows:  # the nearest larger window's cost (a cost grows with m), else in proportion to m
                above = [w for w in windows if w >= key[3]]
                w = min(above) if above else max(windows)
                return _per_step(windows[w], R) * (1.0 if above else key[3] / w)
        if not obs:  # never measured: as costly as the costliest measured one, else the prior
            known = [self.rate(k, R) for k in list(self.obs) if self.obs.get(k)]
            return max(known) if known else self.speed.prior(R)
        return _per_step(obs, R)

    def seconds(self, keys, T: int, R: int) -> float:
        return T * sum(self.rate(k, R) for k in keys)

    def record(self, keys, T: int, R: int, seconds: float) -> None:
        """A simulation of the policies ``keys`` together took ``seconds``: share it out in
        proportion to the current estimates, and keep it."""
        predicted = [self.rate(k, R) for k in keys]
        total = sum(predicted)
        per_step = seconds / max(T, 1)
        for k, p in zip(keys, predicted):
            measured = per_step * p / total
            self.obs.setdefault(k, {})[int(R)] = measured
            self.speed.learn(measured, R)


def _per_step(obs: dict, R: int) -> float:
    """Seconds per step for R runs, from measurements ``obs`` (runs → seconds per step)."""
    rs = sorted(obs, key=lambda r: abs(np.log(r) - np.log(R)))
    if len(rs) == 1:
        r = rs[0]
        return obs[r] * (PRIOR_A / PRIOR_B + R) / (PRIOR_A / PRIOR_B + r)
    r1, r2 = sorted(rs[:2])
    b = max(0.0, (obs[r2] - obs[r1]) / (r2 - r1))
    a = max(0.0, obs[r1] - b * r1)
    return max(a + b * R, 1e-9)


class _Overrun(Exception):
    def __init__(self, fraction, elapsed):
        super().__init__(fraction, elapsed)
        self.fraction, self.elapsed = fraction, elapsed


#: a computation projected to take more than this many times its estimate is stopped and
#: re-sized (the estimate was wrong), even if it would still end within the time left
OVERRUN = 1.6


def _watchdog(left: float, estimate: float):
    """The engine's progress hook: stop a computation, as soon as that is clear, if it is
    projected to take more than the ``left`` seconds, or more than :data:`OVERRUN` times its
    ``estimate``. The cost model does not know every parameter a policy's cost depends on, so
    an estimate can be far off. Stopped early, the computation is re-sized with the speed it
    showed."""
    t0 = time.perf_counter()
    allowed = max(min(left, OVERRUN * estimate), 0.05)

    def check(fraction):
        elapsed = time.perf_counter() - t0
        if 0 < fraction < 1 and elapsed > 0.1 * allowed and elapsed / fraction > allowed:
            raise _Overrun(fraction, elapsed)

    return check


# ----------------------------------------------------------------------------- the budget
@dataclasses.dataclass
class _Job:
    signature: tuple
    setting: object
    policies: dict
    horizon: int
    runs: int
    seed: int
    kwargs: dict


def _nice(T: int, full: int) -> int:
    """A readable horizon ≤ T: two significant digits."""
    if T >= full:
        return full
    p = 10 ** max(0, int(np.floor(np.log10(max(T, 1)))) - 1)
    return max(1, T // p * p)


def _times_within(checkpoints, T):
    """Checkpoints of a shorter horizon T (integers are a count, sequences are times)."""
    if checkpoints is None or isinstance(checkpoints, (int, np.integer)):
        return checkpoints
    times = np.asarray(checkpoints)
    times = times[times <= T]
    return times if times.size else np.array([T])


def _merge(results):
    """One Result holding the policies of several (same setting, horizon, runs and seed)."""
    first = results[0]
    merged = {f: {} for f in ("regret", "pulls", "traces", "policies")}
    for r in results:
        for f in merged:
            merged[f].update(getattr(r, f))
    return dataclasses.replace(first, **merged, elapsed=sum(r.elapsed for r in results),
                               notes=dict(first.notes))


class Budget:
    """The time budget of one panel: first answers, background refinement, cancellation.

    Parameters
    ----------
    panel : the panel whose ``seed`` the results depend on, and whose ``status`` line says so
        when a refinement fails.
    refresh : callable () -> None
        The panel's computation and drawing (:meth:`~delaylab.panels.base.Panel.refresh`),
        called by :meth:`run` for a move and from the background thread for a refinement.
    controls : list of widgets
        The controls whose values the results depend on (with the seed: :meth:`state`).
    seconds : float, optional
        The budget of each move (default :data:`BUDGET_SECONDS`).
    speed : MachineSpeed, optional
        Shared with other budgets: how fast this machine is (see :class:`CostModel`).
    """

    def __init__(self, panel, refresh, controls, seconds: float | None = None, speed: MachineSpeed | None = None):
        self.panel, self._refresh = panel, refresh
        self._seconds = seconds
        self.model = CostModel(speed)
        self.lock = threading.RLock()
        self.generation = 0
        self.partial = None  # what the figures show when it is not everything: (T1, R1, T, R)
        self.last = {}  # what the latest answer was: sizes, elapsed, stage
        self._depth = 0
        self._deferred: list[_Job] = []
        self._deadline = 0.0
        self._local = threading.local()
        self._controls = list(controls)
        self._thread: threading.Thread | None = None
        self._draw_seconds = 0.1  # time an update spends outside simulations (drawing)
        self._simulating = 0.0
        self._calls, self._calls_expected = 0, 1  # simulations in this update, in the previous one
        self._mover = None

    @property
    def seconds(self) -> float:
        """The budget of each move (:data:`BUDGET_SECONDS` unless set for this panel)."""
        return BUDGET_SECONDS if self._seconds is None else self._seconds

    @seconds.setter
    def seconds(self, value: float) -> None:
        self._seconds = value

    # ------------------------------------------------------------------ a move
    def run(self, unlimited: bool = False) -> None:
        """A move: cancel what is stale, answer within the budget, refine in the background.
        ``unlimited``: compute everything at once (a panel's first drawing, at its defaults)."""
        self.generation += 1
        stale = self._thread
        if stale is not None and stale.is_alive() and self._depth == 0:  # give it a moment to notice, then go on
            stale.join(timeout=min(0.1 * self.seconds, 0.2))
        with self.lock:
            outer = self._depth == 0
            if outer:
                started = time.perf_counter()
                state = self.state()
                self._deadline = started + (np.inf if unlimited else self.seconds)
                self._deferred, self._simulating, self.partial, self._calls = [], 0.0, None, 0
                self._mover = threading.get_ident()  # the thread answering this move
            self._depth += 1
            try:
                self._refresh()
            finally:
                self._depth -= 1
                if outer:
                    spent = time.perf_counter() - started
                    self._draw_seconds = 0.7 * self._draw_seconds + 0.3 * max(0.0, spent - self._simulating)
                    self.last["seconds"] = spent
                    self._calls_expected = max(1, self._calls)
                    if self._deferred:
                        self._start_refinement(self.generation, self._deferred, state)

    # ------------------------------------------------------------------ simulations
    def simulate(self, setting, policies, horizon, runs, seed=0, **kwargs):
        """:func:`delaylab.simulate` within the budget (same arguments; ``runs`` a count).

        Returns the full result, or a first answer (``result.notes["first_answer"]`` holds its
        horizon and runs) whose refinement is then computed in the background.
        """
        policies = dict(policies)
        ids = None if isinstance(runs, (int, np.integer)) else [int(r) for r in runs]  # run indices
        runs = len(ids) if ids is not None else runs
        sig = (type(setting).__name__, tuple(policies), int(horizon), tuple(ids or [runs]), int(seed),
               repr(kwargs.get("checkpoints")), bool(kwargs.get("trace")))
        ready = getattr(self._local, "ready", None)
        if ready is not None:  # a refinement is being drawn
            if sig not in ready or self.state() != self._local.state:
                raise Cancelled  # the controls moved meanwhile: a newer update draws
            return ready[sig]
        keys = [self.model.key(n, setting, p) for n, p in policies.items()]
        T, R = int(horizon), int(runs)
        self._calls += 1
        share = max(1, self._calls_expected - self._calls + 1)  # simulations still to come in this update
        for attempt in range(3):  # an estimate far off is caught by the watchdog, then re-sized
            left = (self._deadline - time.perf_counter() - self._draw_seconds) / share
            if self._depth == 0:  # called outside an update: no budget
                left = np.inf
            T1, R1 = self._size(keys, T, R, left)
            if self._deferred:  # an earlier simulation of this update is a first answer: the same size
                t0, r0 = self.last["first"]
                T1, R1 = min(T1, t0), min(R1, r0)
            kw = dict(kwargs, checkpoints=_times_within(kwargs.get("checkpoints"), T1)) if T1 < T else kwargs
            smallest = T1 <= min(T, MIN_STEPS) and R1 <= min(R, MIN_RUNS)
            watch = (None if (smallest or attempt == 2 or not np.isfinite(left))
                     else _watchdog(left, self.model.seconds(keys, T1, R1)))
            try:
                res = self._timed(setting, policies, T1, R1 if ids is None else ids[:R1], seed, kw, keys,
                                  progress=watch)
                break
            except _Overrun as over:  # learn the true speed, and answer smaller
                self.model.record(keys, max(1, int(over.fraction * T1)), R1, over.elapsed)
                self._simulating += over.elapsed
        if (T1, R1) == (T, R):
            return res
        res.notes["first_answer"] = (T1, R1)
        self._deferred.append(_Job(sig, setting, policies, T, R if ids is None else ids, seed, dict(kwargs)))
        if self._deferred[1:]:  # several simulations in one update: say the smallest answer
            (t0, r0), (T0, R0) = self.last["first"], self.last["full"]
            T1, R1, T, R = min(T1, t0), min(R1, r0), max(T, T0), max(R, R0)
        self.last.update(first=(T1, R1), full=(T, R))
        self.partial = (T1, R1, T, R)
        return res

    def _size(self, keys, T, R, left):
        """(T, R) if it fits the time left, else the first answer's (T', R'): fewer runs, then
        a shorter horizon."""
        if self.model.seconds(keys, T, R) <= FIT * left:  # (always, for an unlimited budget)
            return T, R
        target = max(0.0, SAFETY * left)
        R1 = min(R, MIN_RUNS)
        for r in range(R - 1, R1 - 1, -1):
            if self.model.seconds(keys, T, r) <= target:
                R1 = r
                break
        T1 = T
        if self.model.seconds(keys, T, R1) > target:
            per_step = self.model.seconds(keys, 1, R1)
            T1 = _nice(max(min(T, MIN_STEPS), int(target / per_step)), T)
        return T1, R1

    def shown(self, horizon: int | None = None, runs: int | None = None) -> str:
        """What the figures show now, in a student's words: "All 60 runs, T = 2,500" (given the
        panel's horizon and runs; "" if not given), or, while the rest is computed, "Showing 24 of
        60 runs (T = 2,500) so far — the rest is being computed…" (in bold); a shorter horizon is
        "a shorter run (T = 1,200 of 2,500)", since its curves are not the full run's first steps."""
        if self.partial is None:
            if horizon is None or runs is None:
                return ""
            return (f"One run, T = {horizon:,}" if runs == 1 else f"All {runs:,} runs, T = {horizon:,}")
        T1, R1, T, R = self.partial
        if T1 < T:  # a simulation of horizon T1, not the first T1 steps of the full one
            what = (f"a shorter run (T = {T1:,} of {T:,})" if R1 == R else
                    f"a shorter run (T = {T1:,} of {T:,}), {R1:,} of {R:,} runs,")
        else:
            what = f"{R1:,} of {R:,} runs (T = {T:,})"
        return f"<b>Showing {what} so far — {COMPUTING}</b>"

    def _timed(self, setting, policies, T, runs, seed, kwargs, keys, progress=None):
        t0 = time.perf_counter()
        res = _simulate(setting, policies, T, runs, seed, progress=progress, **kwargs)
        took = time.perf_counter() - t0
        if threading.get_ident() == self._mover:  # (not a refinement's time)
            self._simulating += took
        self.model.record(keys, T, runs if isinstance(runs, (int, np.integer)) else len(runs), took)
        return res

    # ------------------------------------------------------------------ refinement
    def state(self) -> tuple:
        """The values of the panel's controls and its seed: what its results depend on. A
        refinement is drawn only if they are still those it was computed for."""
        return tuple(w.value for w in self._controls) + (self.panel.seed,)

    def _start_refinement(self, generation, jobs, state):
        thread = threading.Thread(target=self._refine, args=(generation, list(jobs), state), daemon=True,
                                  name=f"delaylab-refine-{type(self.panel).__name__}")
        self._thread = thread
        thread.start()

    def _stages(self, jobs):
        """(T, R) of each refinement: the full horizon with the first answer's runs, then all."""
        T1, R1 = self.last.get("first", (None, None))
        stages = []
        if T1 is not None and T1 < max(j.horizon for j in jobs) and R1 < max(_count(j.runs) for j in jobs):
            stages.append(R1)
        stages.append(None)  # every run
        return stages

    def _refine(self, generation, jobs, state):
        def check(_fraction):
            if self.generation != generation:
                raise Cancelled

        started = time.perf_counter()
        try:
            stages = self._stages(jobs)
            for i, runs in enumerate(stages):
                ready = {}
                for job in jobs:
                    R = job.runs if runs is None else (job.runs[:runs] if isinstance(job.runs, list)
                                                       else min(runs, job.runs))
                    parts = []
                    for name, pol in job.policies.items():  # one at a time: a prompt cancellation
                        check(0)
                        parts.append(self._timed(job.setting, {name: pol}, job.horizon, R, job.seed, job.kwargs,
                                                 [self.model.key(name, job.setting, pol)], progress=check))
                    res = _merge(parts)
                    if _count(R) < _count(job.runs):
                        res.notes["first_answer"] = (job.horizon, _count(R))
                    ready[job.signature] = res
                final = i == len(stages) - 1
                with self.lock:
                    if self.generation != generation or self.state() != state:
                        return
                    took = time.perf_counter() - started
                    T = max(j.horizon for j in jobs)
                    most = max(_count(j.runs) for j in jobs)
                    self.partial = None if final else (T, min(runs, most), T, most)
                    self._local.ready, self._local.state = ready, state
                    try:
                        self._refresh()
                    except Cancelled:
                        return
                    finally:
                        self._local.ready = None
                    self.last["refined"] = (took, final)
        except Cancelled:
            return
        except Exception:  # never silently: the kernel's log shows it, the panel keeps its first answer
            log.exception("background refinement of %s failed", type(self.panel).__name__)
            with self.lock:  # and the status line no longer promises the rest
                status = self.panel.status
                if self.generation == generation and COMPUTING in status.value:
                    status.value = status.value.replace(COMPUTING, FAILED)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the background refinement (tests, notebooks run top to bottom); True if
        nothing is left running."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def cancel(self) -> None:
        """Stop the background refinement (it notices at its next block of steps)."""
        self.generation += 1
        self.wait(10)

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()


def _count(runs) -> int:
    return len(runs) if isinstance(runs, list) else int(runs)
