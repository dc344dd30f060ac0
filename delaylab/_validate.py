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
    if value is None or isinstance(value, (str, bytes, bool, np.bool_)):
        raise ValueError(f"{name} must be a number or an array of numbers; got {_fmt(value)}")
    try:
        if np.asarray(value).dtype == bool:  # True is not 1 here: a silent coercion otherwise
            raise TypeError
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
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
    if not isinstance(value, str) or value not in choices:
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


def check_bool(name: str, value) -> bool:
    """True or False (numpy booleans too); never a truthy string or number."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name} must be True or False; got {_fmt(value)}")


def check_callable(name: str, value, *, allow=(None,), what: str = "None or a callable"):
    """A callable, or one of the ``allow`` values (compared by identity: True is not 1)."""
    if any(value is a for a in allow) or callable(value):
        return value
    raise ValueError(f"{name} must be {what}; got {_fmt(value)}")


def check_seed(name: str, value):
    """A seed for ``numpy.random.default_rng``: None, a whole number ≥ 0 or a Generator."""
    if value is None or isinstance(value, (np.random.Generator, np.random.SeedSequence)):
        return value
    return check_int(name, value, low=0, high=2**128 - 1)


#: largest number of draws one call may ask for (8 bytes each: 800 MB)
MAX_DRAWS = 10**8


def check_size(name: str, value) -> tuple:
    """A numpy ``size``: a whole number ≥ 0 or a tuple of them, at most :data:`MAX_DRAWS` in all."""
    dims = value if isinstance(value, (tuple, list)) else (value,)
    if isinstance(value, (tuple, list)) and len(value) == 0:
        return ()
    out = tuple(check_int(f"{name}[{i}]" if len(dims) > 1 else name, d, low=0, high=MAX_DRAWS)
                for i, d in enumerate(dims))
    total = int(np.prod(out, dtype=object))
    if total > MAX_DRAWS:
        raise ValueError(f"{name} = {_fmt(value)} asks for {total} draws; at most {MAX_DRAWS} per call")
    return out


def check_unit(name: str, value) -> np.ndarray:
    """Probability levels u ∈ [0, 1] (the argument of a quantile function)."""
    return check_real(name, value, low=0.0, high=1.0)


def check_lags(name: str, value) -> np.ndarray:
    """Lags d (any real numbers, ±∞ allowed; NaN, strings and None refused)."""
    arr = as_float_array(name, value)
    if np.isnan(arr).any():
        raise ValueError(f"{_first_bad(name, arr, np.isnan(arr))} is not a number; valid range [−∞, ∞]")
    return arr


def check_times(name: str, value, horizon: int) -> np.ndarray:
    """Checkpoint times: None (every step), a number n of evenly spaced times ending at the
    horizon (an int), or strictly increasing whole times in [1, horizon]."""
    rng = f"[1, {horizon}]"
    if value is None:
        return np.arange(1, horizon + 1)
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        n = min(check_int(name, value, low=1), horizon)
        return np.unique(np.ceil(np.arange(1, n + 1) * horizon / n).astype(np.int64))
    if isinstance(value, (numbers.Number, np.generic, str, bytes)) or not hasattr(value, "__len__"):
        raise ValueError(f"{name} must be None, a whole number n of evenly spaced times, or a list of whole "
                         f"times in {rng}; got {_fmt(value)} (for the single time t, pass [t])")
    items = list(value) if not isinstance(value, np.ndarray) else value
    if isinstance(items, list) and any(isinstance(x, (bool, np.bool_, str, bytes)) or x is None for x in items):
        raise ValueError(f"{name} must be whole times in {rng}; got {_fmt(value)}")
    arr = check_real(name, items, low=1, high=horizon, ndim=(1,))
    frac = arr != np.floor(arr)
    if frac.any():
        raise ValueError(f"{_first_bad(name, arr, frac)} is not a whole time; checkpoints are steps in {rng}")
    if arr.size > 1 and np.any(np.diff(arr) <= 0):
        raise ValueError(f"{name} must be strictly increasing times in {rng}; got {_fmt(value)}")
    return arr.astype(np.int64)
