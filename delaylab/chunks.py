"""A sweep's chunks as arrays: the flat dict of named arrays a chunk's result becomes (what a
worker sends back and the cache stores), the layout an entry must have to be used, and the
gathering of chunks, read back or computed, into one :class:`Result`.

An array's name is a JSON list: ``["regret", policy]``, ``["pulls", policy]``, ``["trace",
policy, field]`` with the run axis after the grid axes, or for keep="summary" the moments
``["summary", policy, "regret" | "pulls"]`` + ``n`` / ``mean`` / ``m2`` (no run axis). The cache
keys its entries' arrays by these names: they must not change.
"""

from __future__ import annotations

import json

import numpy as np

from .plan import Plan
from .result import Result
from .summary import Moments


def key(*parts) -> str:
    """The name of an array: the JSON list of ``parts``."""
    return json.dumps(list(parts), ensure_ascii=False)


def to_arrays(res: Result) -> dict:
    """A chunk's Result → flat dict of arrays (what the cache stores)."""
    out = {}
    if res.keep == "summary":
        for name in res.names:
            for kind in ("regret", "pulls"):
                out.update(res.summary[name][kind].arrays(key("summary", name, kind)))
        return out
    for name in res.names:
        out[key("regret", name)] = res.regret[name]
        out[key("pulls", name)] = res.pulls[name]
        for field, a in res.traces.get(name, {}).items():
            out[key("trace", name, field)] = a
    return out


class Layout:
    """The arrays a chunk of ``plan`` holds: name → (dtype or None, shape after the run axis); for
    keep="summary", name → (dtype, ("exact", shape)) of the moments. ``traced``: {policy name:
    {field: shape per column}} of the recorded states (trace=True)."""

    def __init__(self, plan: Plan, traced: dict):
        self.shape = plan.shape
        self.expected = out = {}
        n_times, K, shape = len(plan.times), plan.setting.n_arms, plan.shape
        if plan.keep == "summary":
            for name in plan.policies:
                for kind, rest in (("regret", n_times), ("pulls", K)):
                    prefix = key("summary", name, kind)
                    out[prefix + "n"] = (np.dtype(np.int64), ("exact", (1,)))
                    out[prefix + "mean"] = (np.dtype(float), ("exact", tuple(shape) + (rest,)))
                    out[prefix + "m2"] = (np.dtype(float), ("exact", tuple(shape) + (rest,)))
            return
        for name in plan.policies:
            out[key("regret", name)] = (np.dtype(float), (n_times,))
            out[key("pulls", name)] = (np.dtype(np.int64), (K,))
            for field, rest in traced.get(name, {}).items():
                out[key("trace", name, field)] = (None, (n_times,) + tuple(rest))

    def check(self, arrays: dict, n_runs: int) -> str | None:
        """None if ``arrays`` (of ``n_runs`` runs) have the expected names, shapes and dtypes, else
        what differs."""
        if set(arrays) != set(self.expected):
            return "unexpected arrays"
        for name, (dtype, rest) in self.expected.items():
            a = arrays[name]
            if rest[:1] == ("exact",):
                if a.shape != rest[1] or a.dtype != dtype or (name.endswith('"]n') and int(a[0]) != n_runs):
                    return f"{name} has shape {a.shape} and dtype {a.dtype}"
                continue
            if a.shape != tuple(self.shape) + (n_runs,) + rest or (dtype is not None and a.dtype != dtype):
                return f"{name} has shape {a.shape} and dtype {a.dtype}"
        return None


def gatherer(plan: Plan) -> "RunArrays | RunMoments":
    """What collects the chunks of ``plan``: :class:`RunMoments` for keep="summary", else
    :class:`RunArrays`. Both take ``usable(sources)``, ``add(ids, arrays)`` and ``result(notes)``."""
    return RunMoments(plan) if plan.keep == "summary" else RunArrays(plan)


class RunArrays:
    """keep="all": the chunks' arrays, read back or computed, put in the requested run order."""

    def __init__(self, plan: Plan):
        self.plan, self.sources = plan, []

    @staticmethod
    def usable(sources) -> list:
        """Every entry read back serves its runs (the first one to hold a run serves it)."""
        return sources

    def add(self, ids, arrays: dict) -> None:
        self.sources.append((ids, arrays))

    def result(self, notes: dict) -> Result:
        run_ids, axis = self.plan.run_ids, len(self.plan.shape)  # the run axis of every array
        R = len(run_ids)
        position = {int(r): j for j, r in enumerate(run_ids)}
        out, filled = {}, np.zeros(R, bool)
        for ids, arrays in self.sources:
            rows = [k for k, r in enumerate(ids) if int(r) in position and not filled[position[int(r)]]]
            if not rows:
                continue
            dest = [position[int(ids[k])] for k in rows]
            for name, a in arrays.items():
                if name not in out:
                    out[name] = np.empty(a.shape[:axis] + (R,) + a.shape[axis + 1:], dtype=a.dtype)
                np.moveaxis(out[name], axis, 0)[dest] = np.moveaxis(a, axis, 0)[rows]
            filled[dest] = True
        assert filled.all(), "every run is computed or cached"
        regret, pulls, traces = {}, {}, {}
        for name, a in out.items():
            kind, policy, *field = json.loads(name)
            if kind == "regret":
                regret[policy] = a
            elif kind == "pulls":
                pulls[policy] = a
            else:
                traces.setdefault(policy, {})[field[0]] = a
        return self.plan.result(regret, pulls, traces, notes=notes)


class RunMoments:
    """keep="summary": each chunk's moments merged as it comes; nothing else is kept."""

    def __init__(self, plan: Plan):
        self.plan, self.merged = plan, {}
        self.prefixes = [key("summary", name, kind) for name in plan.policies for kind in ("regret", "pulls")]

    def usable(self, sources) -> list:
        """The entries whose moments are usable whole: all their runs wanted, none counted twice."""
        wanted, have, usable = set(int(r) for r in self.plan.run_ids), set(), []
        for ids, arrays in sources:
            got = set(int(r) for r in ids)
            if got <= wanted and not (got & have):
                usable.append((ids, arrays))
                have |= got
        return usable

    def add(self, ids, arrays: dict) -> None:
        for prefix in self.prefixes:
            m = Moments.from_arrays(arrays, prefix)
            self.merged[prefix] = m if self.merged.get(prefix) is None else self.merged[prefix].merge(m)

    def result(self, notes: dict) -> Result:
        summary = {name: {kind: self.merged[key("summary", name, kind)] for kind in ("regret", "pulls")}
                   for name in self.plan.policies}
        return self.plan.summarised(summary, notes=notes)
