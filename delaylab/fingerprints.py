"""Fingerprints: a sweep's problem reduced to one SHA-256, the key of the sweep cache.

A sweep's *problem* — everything that determines a run's outcome except its index — is reduced
to a fingerprint (:func:`fingerprint`): the setting and each policy (class, hyperparameters,
recursively; numpy arrays by dtype, shape and bytes; delay laws by their defining parameters,
:meth:`~delaylab.laws.DelayLaw.get_params`; policies by
:meth:`~delaylab.policies.base.Policy.get_params`; functions by module, qualified name and
bytecode, with their defaults, closure values and the globals they read), the policies' names,
the horizon, the recorded times, the trace flag, the seed, the grid's shape, and
:func:`delaylab.cache.code_version` (the code that computes the runs). :func:`delaylab.sweep`
assembles that list; the on-disk store (:mod:`delaylab.cache`) files entries under it.

Equal fingerprints mean equal defining content; the converse need not hold (e.g. ``1`` and
``1.0`` differ), which only costs a recomputation. A change of the canonical description below
changes every fingerprint and orphans every cached sweep: ``tests/test_fingerprints.py`` pins
the values of a set of objects.
"""

from __future__ import annotations

import functools
import hashlib
import json
import pickle
import types

import numpy as np

__all__ = ["Uncacheable", "fingerprint", "sha256_hex"]


class Uncacheable(Exception):
    """Raised by :func:`fingerprint` for an object whose defining content cannot be read."""


def fingerprint(obj) -> str:
    """A SHA-256 (hex) of a canonical description of ``obj`` (see the module docstring).

    Equal fingerprints mean equal defining content; the converse need not hold (e.g. ``1`` and
    ``1.0`` differ), which only costs a recomputation. Raises :class:`Uncacheable` for objects
    that cannot be described (neither a known type, nor attributes, nor picklable).
    """
    text = json.dumps(_canon(obj, set()), separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data``, in hex (also the checksums of the cache's entries)."""
    return hashlib.sha256(data).hexdigest()


def _qualname(obj) -> str:
    return f"{getattr(obj, '__module__', None)}.{getattr(obj, '__qualname__', getattr(obj, '__name__', '?'))}"


def _ours(module) -> bool:
    """Code of the delaylab package: covered by :func:`code_version`."""
    return isinstance(module, str) and (module == "delaylab" or module.startswith("delaylab."))


def _canon(obj, active: set):
    # leaves
    if obj is None or isinstance(obj, (bool, str)):
        return [type(obj).__name__, obj]
    if isinstance(obj, int) and not isinstance(obj, np.generic):
        return ["int", str(obj)]
    if isinstance(obj, float):
        return ["float", obj.hex()]
    if isinstance(obj, complex):
        return ["complex", obj.real.hex(), obj.imag.hex()]
    if isinstance(obj, (bytes, bytearray)):
        return ["bytes", sha256_hex(bytes(obj))]
    if isinstance(obj, np.generic) and not isinstance(obj, np.object_):
        return ["np", obj.dtype.str, obj.tobytes().hex()]
    if isinstance(obj, np.ndarray) and not obj.dtype.hasobject:
        return ["ndarray", obj.dtype.str, list(obj.shape), sha256_hex(np.ascontiguousarray(obj).tobytes())]
    if isinstance(obj, types.ModuleType):
        return ["module", obj.__name__, str(getattr(obj, "__version__", ""))]
    if isinstance(obj, (types.BuiltinFunctionType, np.ufunc)):
        return ["builtin", _qualname(obj)]
    # containers and objects (cycles are cut)
    if id(obj) in active:
        return ["cycle", _qualname(type(obj))]
    active.add(id(obj))
    try:
        return _canon_composite(obj, active)
    finally:
        active.discard(id(obj))


def _canon_composite(obj, active):
    from .laws import DelayLaw
    from .policies.base import Policy

    if isinstance(obj, np.ndarray):  # object dtype
        return ["ndarray-object", list(obj.shape), [_canon(x, active) for x in obj.ravel()]]
    if isinstance(obj, (list, tuple)):
        return [type(obj).__name__, [_canon(x, active) for x in obj]]
    if isinstance(obj, dict):
        items = [[_canon(k, active), _canon(v, active)] for k, v in obj.items()]
        return ["dict", sorted(items, key=lambda kv: json.dumps(kv[0]))]
    if isinstance(obj, (set, frozenset)):
        return ["set", sorted((_canon(x, active) for x in obj), key=json.dumps)]
    if isinstance(obj, type):
        return _canon_class(obj, active)
    if isinstance(obj, types.FunctionType):
        return _canon_function(obj, active)
    if isinstance(obj, types.MethodType):
        return ["method", _canon(obj.__self__, active), _canon(obj.__func__, active)]
    if isinstance(obj, functools.partial):
        return ["partial", _canon(obj.func, active), _canon(obj.args, active), _canon(obj.keywords, active)]
    if isinstance(obj, types.CodeType):
        return _canon_code(obj, active)
    if isinstance(obj, Policy):  # hyperparameters only: learned state never matters
        return ["policy", _canon(type(obj), active), _canon(obj.get_params(), active)]
    if isinstance(obj, DelayLaw):
        return ["law", _canon(type(obj), active), _canon(_law_definition(obj), active)]
    if hasattr(obj, "__dict__"):
        return ["object", _canon(type(obj), active), _canon(vars(obj), active)]
    try:
        data = pickle.dumps(obj, protocol=4)
    except Exception as exc:  # noqa: BLE001 - anything unpicklable is simply not describable
        raise Uncacheable(f"cannot describe {obj!r} (type {_qualname(type(obj))}): {exc}") from None
    return ["pickle", _qualname(type(obj)), sha256_hex(data)]


def _law_definition(law) -> dict:
    """The parameters that define a delay law (:meth:`~delaylab.laws.DelayLaw.get_params`), not
    the tables computed from them.

    The description keeps the keys of its first version (the names of the attributes the laws
    stored them in), so that a law's fingerprint, and hence the cached sweeps, stay valid.
    """
    import inspect

    from .laws import DelayLaw, Empirical, SurvivalLaw

    if type(law) is SurvivalLaw:
        p = law.get_params()
        return {"_sf_fn": p["sf"], "_name": p["label"], "_given": (p["mean"], p["var"])}
    if type(law) is Empirical:
        p = law.get_params()
        return {"_probs": p["probs"], "_knots": p["delays"], "_scale": p["scale"], "_log": p["log"],
                "_name": p["label"]}
    names = [p for p in inspect.signature(type(law).__init__).parameters if p != "self"]
    if names and type(law).get_params is DelayLaw.get_params:  # parameters stored by DelayLaw
        try:
            params = law.get_params()
        except AttributeError:  # a parameter the law never stored
            params = None
        if params is not None and set(names) <= set(params):
            return {"_par_" + k: v for k, v in params.items()}
    # an unknown law: all its attributes (safe; at worst a needless recomputation)
    return dict(vars(law))


def _canon_class(cls, active):
    out = ["class", _qualname(cls)]
    if _ours(cls.__module__) or cls.__module__ == "builtins" or cls.__module__.split(".")[0] == "numpy":
        return out
    # a class of the user's: its body (methods' bytecode, class attributes), up the MRO
    for klass in cls.__mro__:
        if klass is object or _ours(klass.__module__) or klass.__module__ == "builtins":
            continue
        # methods and class attributes; Python's own machinery (__dict__, _abc_impl, …) is not
        # the class's behaviour, except the special methods it defines (__init__, __call__, …)
        body = {k: v for k, v in vars(klass).items()
                if not (k.startswith("__") and k.endswith("__") and not callable(v)) and k != "_abc_impl"}
        out.append([_qualname(klass), _canon(body, active)])
    return out


def _canon_function(fn, active):
    name = ["function", _qualname(fn)]
    if _ours(fn.__module__):
        return name
    code = fn.__code__
    glob = getattr(fn, "__globals__", {})
    used = {n: glob[n] for n in sorted(_names(code)) if n in glob}
    closure = [c.cell_contents for c in (fn.__closure__ or ()) if _cell_filled(c)]
    return name + [_canon_code(code, active), _canon(fn.__defaults__, active),
                   _canon(fn.__kwdefaults__, active), _canon(closure, active), _canon(used, active)]


def _cell_filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _names(code) -> set:
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


def _canon_code(code, active):
    consts = [_canon_code(c, active) if isinstance(c, types.CodeType) else _canon(c, active)
              for c in code.co_consts]
    return ["code", sha256_hex(code.co_code), consts, list(code.co_names), list(code.co_varnames),
            list(code.co_freevars)]
