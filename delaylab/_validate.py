"""Input checks shared by every public entry point.

Every check raises a ``ValueError`` that names the parameter, the offending value and the
valid range, so that bad input is reported where it enters (an API call or a widget) and
never as a numpy traceback deep inside the simulation loop.
"""

from __future__ import annotations

import numbers

import numpy as np


def _fmt(value) -> str:
    """Short representation of a value for an error message."""
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, np.floating):
        return repr(float(value))
    if isinstance(value, np.ndarray):
        if value.size <= 8:
            return np.array2string(value, separator=", ")
        return f"array of shape {value.shape}"
    return repr(value)


def _first_bad(name: str, arr: np.ndarray, bad: np.ndarray) -> str:
    """``name[i] = v`` for the first offending entry of an array (or ``name = v``)."""
    if arr.ndim == 0:
        return f"{name} = {_fmt(arr.item())}"
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    where = ", ".join(str(i) for i in idx)
    return f"{name}[{where}] = {_fmt(arr[idx].item())}"


def as_float_array(name: str, value) -> np.ndarray:
    """Convert to a float array; reject strings, None and non-numeric input."""
    if value is None or isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be a number or an array of numbers; got {_fmt(value)}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a number or an array of numbers; got {_fmt(value)}"
        ) from None
    return arr


def _bound(x: float) -> str:
    return "∞" if x == np.inf else ("−∞" if x == -np.inf else _fmt(float(x)))


def check_real(
    name: str,
    value,
    *,
    low: float = -np.inf,
    high: float = np.inf,
    low_open: bool = False,
    high_open: bool = False,
    ndim: tuple[int, ...] | None = None,
    allow_inf: bool = False,
) -> np.ndarray:
    """Check that every entry of ``value`` is a real number in the given interval.

    Infinite values are refused unless ``allow_inf`` (where +∞ means "never", e.g. a delay).
    Returns the value as a float array. ``ndim`` restricts the allowed dimensions.
    """
    arr = as_float_array(name, value)
    lo_b = "(" if (low_open or low == -np.inf) else "["
    hi_b = ")" if (high_open or (high == np.inf and not allow_inf)) else "]"
    rng = f"{lo_b}{_bound(low)}, {_bound(high)}{hi_b}"
    if ndim is not None and arr.ndim not in ndim:
        shapes = " or ".join({0: "a number", 1: "a 1-d list", 2: "a 2-d array"}[d] for d in ndim)
        raise ValueError(f"{name} must be {shapes}; got {_fmt(value)} (shape {arr.shape})")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    bad = np.isnan(arr) | (np.isinf(arr) & ~(allow_inf & np.isposinf(arr) & (high == np.inf)))
    if bad.any():
        raise ValueError(f"{_first_bad(name, arr, bad)} is not a finite number; valid range {rng}")
    with np.errstate(invalid="ignore"):
        bad = (arr <= low) if low_open else (arr < low)
        bad |= (arr >= high) if high_open else (arr > high)
    if bad.any():
        raise ValueError(f"{_first_bad(name, arr, bad)} is outside the valid range {rng}")
    return arr


def check_probability(name: str, value, *, ndim=None) -> np.ndarray:
    """Probabilities (means of Bernoulli rewards) must lie in [0, 1]."""
    return check_real(name, value, low=0.0, high=1.0, ndim=ndim)


def check_int(name: str, value, *, low: int = 0, high: int | None = None) -> int:
    """A whole number in ``[low, high]`` (``high=None``: no upper bound)."""
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not ok and isinstance(value, numbers.Real) and not isinstance(value, bool):
        ok = bool(np.isfinite(value)) and float(value).is_integer()
    rng = f"[{low}, {'∞)' if high is None else str(high) + ']'}"
    if not ok:
        raise ValueError(f"{name} must be a whole number in {rng}; got {_fmt(value)}")
    v = int(value)
    if v < low or (high is not None and v > high):
        raise ValueError(f"{name} = {v} is outside the valid range {rng}")
    return v


def check_window(name: str, value) -> int | None:
    """A censoring window: ``None`` (uncensored) or a whole number of steps ≥ 0."""
    if value is None:
        return None
    return check_int(name, value, low=0)


def check_choice(name: str, value, choices) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}; got {_fmt(value)}")
    return value


def check_cells(owner: str, sizes: dict[str, int]) -> int:
    """Number of grid cells implied by per-cell parameters; they must agree.

    ``sizes`` maps a parameter name to its number of cells (1 when shared by all cells).
    """
    multi = {k: v for k, v in sizes.items() if v != 1}
    if len(set(multi.values())) > 1:
        desc = ", ".join(f"{k} has {v}" for k, v in multi.items())
        raise ValueError(
            f"{owner}: per-cell parameters must all have the same number of grid cells; {desc}"
        )
    return next(iter(multi.values()), 1)
