"""The benchmark table's rows, and the timing helpers every benchmark module shares.

bench.py prints the whole table; each bench_<topic>.py adds its rows with :func:`row`. They all
import this module (never bench.py, which imports them): one list of rows, whichever script runs.
"""

from __future__ import annotations

import time

ROWS = []


def row(what, value, unit="s", target=None, ok=None):
    ok = None if ok is None else bool(ok)  # numpy's bool is not `False`: the summary below needs bool
    ROWS.append((what, value, unit, target, ok))
    shown = f"{value:,.3g} {unit}" if unit != "×" else f"{value:,.0f}×"
    verdict = "" if ok is None else ("ok" if ok else "MISSED")
    print(f"{what:62s} {shown:>14s} {target or '':>10s} {verdict:>7s}", flush=True)


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def slider_move(panel, slider, values, repeat=3, forget=True):
    """Best time of moving ``slider`` through ``values`` (cycled); ``forget``: with the panel's
    results cache emptied first, so everything shown is recomputed."""
    values = list(values)

    def move():
        if forget:
            panel._cache.clear()
        slider.value = values[0]
        values.append(values.pop(0))

    return best_of(move, repeat)
