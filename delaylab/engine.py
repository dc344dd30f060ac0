"""The simulation engine: one loop for all five settings.

A batch of B independent runs (grid cells × run indices) advances in lockstep on numpy arrays.
Each step, for each policy::

    arms  = policy.choose(t, block.context(i))      # (B,) one arm per run
    pull  = block.pull(i, arms)                      # regret, delay, revealed?, value
    calendar.add(t, arrival, arms, value)            # schedule the feedback at t + delay
    policy.update(t, arms, calendar.pop(t))          # what arrives at the end of step t

The setting draws the random numbers of a block of steps once and every policy reads the same
ones (common random numbers); policies never share state, so a policy's results do not depend
on the others in the comparison. Large batches are split into chunks of runs, which does not
change any result (see :mod:`delaylab.streams`).

Optional block path (anonymous feedback only). A policy that keeps its arms fixed for long
stretches (the phased policies of Pike-Burke et al. 2018) may define ``fixed_steps(t)`` (how many
steps from t its arms stay as chosen, ≥ 1) and ``update_block(t, h, arms, totals)`` (learn from
the anonymous sums ``totals`` (h, B) of steps t … t + h − 1). The engine then simulates such a
stretch at once (cut at the draw blocks and at the checkpoints): the pulls through
``Block.pull_many``, the pending sums in a dense ring of per-step totals instead of the calendar.
Rewards are whole numbers, so the sums — and the runs — are exactly those of the step-by-step
path (tests/test_pikeburke2018_policies.py); every other policy takes the step-by-step path.

Compiled path: when :func:`delaylab.kernels.kernel_for` has a kernel for the policy, the steps of
a block run in one compiled call on the same draws, calendar and policy state; the checkpoints
are still recorded by ``_Runner._record`` (tests/test_kernels.py: the same runs as step by step).
A kernel takes precedence over the block path (the phased policies' kernel, for the batch sizes
where it is faster: :mod:`delaylab.kernels.odaaf`).
"""

from __future__ import annotations

import time

import numpy as np

from . import kernels
from ._validate import check_callable, check_real
from .feedback import AnonymousSums, Calendar
from .plan import Plan
from .policies.base import Policy, Problem
from .result import Result
from .streams import Batch
from .summary import Moments, merge_all

#: memory allowed for the calendars and delay buffers of one chunk of runs
MEMORY_BUDGET = 1 << 30
#: random numbers drawn per block (bounds the memory of a block of draws)
_BLOCK_NUMBERS = 1 << 21
#: memory allowed for the policy states recorded with trace=True
TRACE_BUDGET = 2 << 30
#: use the optional block path for policies that declare fixed_steps (see the module docstring)
BLOCK_STEPS = True


def simulate(setting, policies, horizon, runs=100, seed=0, *, checkpoints=None, trace=False,
             progress=None, grid=None, keep="all") -> Result:
    """Simulate policies on a setting, for a batch of independent runs.

    Parameters
    ----------
    setting : Setting
        E.g. ``dl.Conversions(means=[0.1, 0.05, 0.03], delays=dl.Geometric(mean=500), window=1000)``.
    policies : Policy, list of Policy, or dict name → Policy
        The learners to compare (names default to their labels).
    horizon : int
        T ≥ 1 steps.
    runs : int or sequence of int
        Number of runs (indices 0 … runs − 1), or the run indices themselves. A run's outcome
        depends only on the seed, its index and its parameters.
    seed : int
        Seed of all random streams (≥ 0).
    checkpoints : None, int or sequence of int
        Times t ∈ [1, T] at which the regret is recorded: every step (None), n evenly spaced
        times ending at T (an int), or the given times.
    trace : bool
        Also record each policy's :meth:`~Policy.snapshot` at the checkpoints.
    progress : callable, optional
        Called with the fraction of the work done, after each block of steps.
    grid : Grid, optional
        The grid that per-cell parameters come from; results are reshaped to its shape.
    keep : "all" or "summary"
        Keep every run's regret curve ("all"), or only the mean and variance over runs at each
        checkpoint ("summary": memory independent of the number of runs; see
        :mod:`delaylab.summary`). A result that would not fit in the available memory is refused
        before any work, with its size and this way out.

    Returns
    -------
    Result
        ``res.regret[name]`` has shape (R, n), or (*grid.shape, R, n) for a grid.
    """
    started = time.perf_counter()
    check_callable("progress", progress,
                   what="None or a callable of the fraction done (dl.sweep(progress=True) shows a bar)")
    plan = Plan.of(setting, policies, horizon, runs, seed, checkpoints, grid, trace=trace, keep=keep)
    plan.check_memory("simulate")
    per_column = len(plan.policies) * plan.span * (32 + 8 * setting.n_arms)
    chunks = Batch(plan.run_ids, plan.cells).split(max(1, MEMORY_BUDGET // per_column))
    report = _Report(progress, plan.horizon * len(chunks))
    parts = [_simulate_chunk(plan, b, report) for b in chunks]
    if plan.keep == "summary":  # merge the chunks' moments (Chan et al.)
        summary = {name: {kind: plan.shaped(merge_all(p[j][kind] for p in parts)) for kind in ("regret", "pulls")}
                   for j, name in enumerate(plan.policies)}
        return plan.summarised(summary, elapsed=time.perf_counter() - started)
    regret, pulls, traces = {}, {}, {}
    for j, name in enumerate(plan.policies):
        regret[name] = _assemble(plan, [p[j]["regret"] for p in parts])
        pulls[name] = _assemble(plan, [p[j]["pulls"] for p in parts])
        if plan.trace:
            traces[name] = {f: _assemble(plan, [p[j]["trace"][f] for p in parts]) for f in parts[0][j]["trace"]}
    return plan.result(regret, pulls, traces, elapsed=time.perf_counter() - started)


def _assemble(plan: Plan, arrays) -> np.ndarray:
    """The chunks' arrays of (G·R_c, …) columns → (*grid shape, R, …)."""
    per_chunk = [a.reshape((plan.cells, -1) + a.shape[1:]) for a in arrays]
    full = np.concatenate(per_chunk, axis=1)
    return full.reshape(plan.shape + (len(plan.run_ids),) + full.shape[2:])


class _Report:
    """Counts the steps simulated and passes the fraction done to ``progress`` (if given)."""

    def __init__(self, progress, total: int):
        self.progress, self.total, self.done = progress, total, 0

    def __call__(self, n: int) -> None:
        self.done += n
        if self.progress is not None:
            self.progress(self.done / self.total)


def estimate(setting, policies, horizon, runs=100, seed=0, *, checkpoints=None, grid=None, pilot=0.5) -> dict:
    """What :func:`simulate` (or :func:`delaylab.sweep`, in one process) would cost, before running it.

    Returns a dict: ``bytes`` (the result with keep="all"), ``summary_bytes`` (with keep="summary",
    independent of the number of runs), ``seconds`` (in this process) and ``pilot`` (the pilot
    run's steps, runs and seconds). The time is extrapolated from a pilot: the first steps of the
    first runs (at most 32), lengthened until it takes about ``pilot`` / 4 seconds; the cost of a
    run-step falls as batches grow, so for thousands of runs the estimate errs on the long side.
    The arguments are checked as by :func:`simulate`.
    """
    plan = Plan.of(setting, policies, horizon, runs, seed, checkpoints, grid)
    pilot = check_real("pilot", pilot, low=0.0, high=60.0, low_open=True)
    T, R = plan.horizon, len(plan.run_ids)
    r = min(R, 32)
    h = min(T, 64)
    pilot_runs = dict(runs=plan.run_ids[:r], seed=plan.seed, checkpoints=1, grid=plan.grid, keep="summary")
    simulate(setting, plan.policies, min(T, 8), **pilot_runs)  # loads kernels
    while True:
        t0 = time.perf_counter()
        simulate(setting, plan.policies, h, **pilot_runs)
        took = time.perf_counter() - t0
        if took >= pilot / 4 or h >= T:
            break
        h = min(T, 4 * h)
    return {"bytes": plan.result_bytes("all"), "summary_bytes": plan.result_bytes("summary"),
            "seconds": took * (T / h) * (R / r), "pilot": {"steps": h, "runs": r, "seconds": took}}


class _Runner:
    """One policy's pass over a chunk of runs: its calendar, regret and records."""

    def __init__(self, policy: Policy, problem: Problem, plan: Plan):
        setting, span, times = plan.setting, plan.span, plan.times
        B = problem.size
        self.policy, self.T, self.B = policy, problem.horizon, B
        self.calendar = Calendar(B, span, with_values=setting.feedback not in ("conversions", "linear"))
        self.anonymous = setting.feedback == "anonymous"
        self.flat = np.arange(B) * problem.n_arms  # flat index of (run, arm 0) in (B, K) arrays
        self.cum = np.zeros(B)
        self.times, self.k = times, 0
        self.G = problem.batch.n_cells
        if plan.keep == "summary":  # per cell and checkpoint: mean and M2 over this chunk's runs
            self.regret, self.mean, self.m2 = None, np.empty((self.G, len(times))), np.empty((self.G, len(times)))
        else:
            self.regret = np.empty((B, len(times)))
        self.pulls = np.zeros((B, problem.n_arms), dtype=np.int64)
        self.trace = {} if plan.trace else None
        # compiled path (delaylab.kernels): the same runs, the whole block in one call; it comes
        # first, also for the block path's policies (kernels.odaaf: faster for small batches)
        self.kernel = kernels.kernel_for(policy, setting, problem, self.calendar)
        self.blocks = (self.kernel is None and BLOCK_STEPS and self.anonymous and hasattr(policy, "fixed_steps")
                       and hasattr(policy, "update_block"))
        if self.blocks:  # pending anonymous sums per arrival step (ring of span steps)
            self.calendar, self.W = None, max(1, int(span))
            self.sums = np.zeros((self.W, B))

    def advance(self, block, t0: int, n: int) -> None:
        if self.kernel is not None:
            return self._advance_kernel(block, t0, n)
        if self.blocks:
            return self._advance_blocks(block, t0, n)
        pol, cal = self.policy, self.calendar
        played = np.empty((n, self.B), dtype=np.int64)
        for i in range(n):
            t = t0 + i
            arms = pol.choose(t, block.context(i))
            played[i] = arms
            try:
                out = block.pull(i, arms)
            except IndexError:
                raise ValueError(f"{type(pol).__name__} chose an arm outside 0 … {self.pulls.shape[1] - 1} "
                                 f"at step {t}: {arms}") from None
            self.cum += out.regret
            due = out.revealed & (out.delay <= self.T - 1 - t)  # arrives within the horizon
            cal.add(t, due, out.delay, arms, out.value)
            feedback = cal.pop(t)
            if self.anonymous:
                feedback = AnonymousSums(t, np.bincount(feedback.run, weights=feedback.value, minlength=self.B))
            pol.update(t, arms, feedback)
            if t + 1 == self.times[self.k]:
                self._record()
        K = self.pulls.shape[1]
        if played.min() < 0 or played.max() >= K:  # a policy's bug, reported clearly
            bad = played[(played < 0) | (played >= K)][0]
            raise ValueError(f"{type(pol).__name__} chose arm {bad}; arms are 0 … {K - 1}")
        self.pulls += np.bincount((self.flat + played).ravel(), minlength=self.B * K).reshape(self.B, K)

    def _advance_blocks(self, block, t0: int, n: int) -> None:
        """The block path: stretches of steps where the policy's arms stay fixed, at once."""
        pol, B, W = self.policy, self.B, self.W
        i = 0
        while i < n:
            t = t0 + i
            arms = np.asarray(pol.choose(t, block.context(i)))
            K = self.pulls.shape[1]
            if arms.min() < 0 or arms.max() >= K:
                raise ValueError(f"{type(pol).__name__} chose an arm outside 0 … {K - 1} at step {t}: {arms}")
            nxt = int(self.times[self.k])
            h = min(max(1, int(pol.fixed_steps(t))), n - i, nxt - t if nxt > t else n - i)
            out = block.pull_many(i, h, arms)
            if h == 1:
                self.cum += out.regret[0]
            else:  # sequential sums, as step by step
                self.cum = np.cumsum(np.concatenate([self.cum[None], out.regret]), axis=0)[-1]
            steps = t + np.arange(h)[:, None]
            give = out.revealed & (out.delay <= self.T - 1 - steps) & (out.value != 0)
            hh, cols = np.nonzero(give)
            arrival = hh + t + out.delay[hh, cols]
            value = out.value[hh, cols]
            totals = np.zeros((h, B))
            hp = min(h, W - 1)  # pending sums exist only for steps < t + W − 1
            if hp > 0:
                rows = (t + np.arange(hp)) % W
                totals[:hp] = self.sums[rows]
                self.sums[rows] = 0.0
            inside = arrival < t + h
            if inside.any():
                totals += np.bincount((arrival[inside] - t) * B + cols[inside], weights=value[inside],
                                      minlength=h * B).reshape(h, B)
            if not inside.all():
                out_ = ~inside
                np.add.at(self.sums, (arrival[out_] % W, cols[out_]), value[out_])
            pol.update_block(t, h, arms, totals)
            self.pulls.reshape(-1)[self.flat + arms] += h
            i += h
            if t + h == self.times[self.k]:
                self._record()

    def _advance_kernel(self, block, t0: int, n: int) -> None:
        """The compiled path: steps t0 … t0 + n − 1 in one call (or one per checkpoint if the policy's
        state is traced), then the checkpoints of the block recorded as step by step."""
        i = 0
        while i < n:
            nxt = int(self.times[self.k]) - t0
            j = min(n, nxt) if self.trace is not None and nxt > i else n
            cums = self.kernel.run(block, t0, i, j, self.cum, self.pulls)  # (j − i, B) regret after each step
            while t0 + i < self.times[self.k] <= t0 + j:
                k = self.k
                self.cum = cums[self.times[k] - t0 - i - 1]
                self._record()
                if self.k == k:  # the last checkpoint
                    break
            self.cum = cums[-1].copy()
            i = j

    def _record(self):
        """THE place where the values at a checkpoint are stored (every path ends here)."""
        if self.regret is None:  # keep="summary"
            v = self.cum.reshape(self.G, -1)
            m = v.mean(axis=1)
            d = v - m[:, None]
            self.mean[:, self.k], self.m2[:, self.k] = m, np.einsum("ij,ij->i", d, d)
        else:
            self.regret[:, self.k] = self.cum
        if self.trace is not None:
            for f, v in self.policy.snapshot().items():
                self.trace.setdefault(f, []).append(np.asarray(v))
        self.k = min(self.k + 1, len(self.times) - 1)

    def result(self) -> dict:
        if self.regret is None:
            runs = self.B // self.G
            return {"regret": Moments(runs, self.mean, self.m2),
                    "pulls": Moments.of(self.pulls.reshape(self.G, runs, -1), axis=1), "trace": {}}
        trace = {}
        if self.trace is not None:
            trace = {f: np.stack(v, axis=1) for f, v in self.trace.items()}  # (B, n, …)
        return {"regret": self.regret, "pulls": self.pulls, "trace": trace}


def _simulate_chunk(plan: Plan, batch, report) -> list:
    """The runs of ``batch`` (a chunk of the plan's columns): each policy's :meth:`_Runner.result`."""
    setting, T = plan.setting, plan.horizon
    problem = plan.problem(batch)
    # every policy is validated (started) before the first step of any of them
    runners = [_Runner(p.clone().start(problem), problem, plan) for p in plan.policies.values()]
    if plan.trace:
        for name, r in zip(plan.policies, runners):
            plan.check_trace(name, r.policy.snapshot(), batch.size, TRACE_BUDGET)
    episode = setting.episode(batch, T, plan.seed)
    draws_per_step = {"linear": 2 + setting.n_arms * (setting.dim or 1)}.get(setting.feedback, 2)
    block = int(np.clip(_BLOCK_NUMBERS // (batch.size * draws_per_step), 8, 1024))
    if report.progress is not None:  # at least ~20 progress reports (a panel stops between blocks)
        block = min(block, max(8, -(-T // 20)))
    # (without progress, the longest blocks: each costs a draw and a call per policy, a third of the
    # time of a single run of T = 4000 in blocks of 200; the draws do not depend on the blocks)
    for t0 in range(0, T, block):
        n = min(block, T - t0)
        draws = episode.draw(t0, n)
        for r in runners:
            r.advance(draws, t0, n)
        report(n)
    return [r.result() for r in runners]
