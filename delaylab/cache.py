"""An on-disk cache of simulated runs, for :func:`delaylab.sweep`.

What is cached
--------------
A sweep's *problem* — everything that determines a run's outcome except its index — is reduced
to a fingerprint by :mod:`delaylab.fingerprints` (re-exported here: :func:`fingerprint`,
:class:`Uncacheable`). One of its parts is :func:`code_version`, defined here because the store
checks it again when it reads an entry: ``delaylab.__version__``, a SHA-256 of every source file
of the installed package, and numpy's version.

Hashing the package's source files means that *any* edit of delaylab (even a comment)
invalidates every entry. This is deliberate: a version number is only bumped at releases, while
a workbook is often run from a checkout that someone is editing, and a stale figure computed by
older code is worse than a recomputation. (Old entries are then never read again; the size cap
evicts them first, being the least recently used.)

Entries
-------
Each entry holds the results of a set of run indices of one problem: ``<folder>/<problem
fingerprint>/runs-<hash of the run indices>.npz``, with a manifest (the run indices and, for
every array, its dtype, shape and SHA-256). A run's outcome depends only on the seed, its index
and the problem, so any entry holding a run can serve it, whatever the chunking or the executor
that computed it, and a sweep with more runs only computes the new ones.

Each manifest also records the entry's full key — the problem fingerprint, the run indices, the
names of the arrays and :func:`code_version` — and an entry is served only if all of it equals
what the sweep asks for and every array matches its checksum; anything else is recomputed.

Install-time entries, shared read-only
--------------------------------------
Besides its own folder, a cache reads the entries of :func:`shared_folders`: folders filled once
when delaylab is installed for many users (``python -m delaylab.serve.precompute --shared``, run
by Binder's postBuild, an image's build or a hub's admin, writes the notebooks' figures at their
defaults into ``<environment>/share/delaylab/cache``). They are only read: never written, marked
used or evicted, and an entry there that does not check out is skipped, not deleted. Every
student of a JupyterHub sharing one environment thus gets the notebooks' figures from it, and
writes what they compute themselves into their own folder.

A managed store
---------------
The folder is capped (:data:`DEFAULT_MAX_BYTES`, or ``$DELAYLAB_CACHE_MAX`` such as ``20G``, or
``Cache(folder, max_bytes=…)``): after each write, the least recently used entries (reading an
entry marks it used) are deleted until the folder fits. :func:`cache_info` lists its size,
entries and oldest entry; :func:`cache_clear` empties it (``python3 tasks.py clean --cache``).

Entries are written atomically — a temporary file in the same folder, flushed to disk, then
``os.replace`` — so an interrupted write leaves no partial entry (a temporary file left by a
killed process is removed by a later sweep). An entry whose manifest, checksums, shapes or
dtypes do not match is reported as corrupt, deleted and recomputed: it is never used.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .fingerprints import Uncacheable, fingerprint, sha256_hex

__all__ = ["FORMAT", "DEFAULT_MAX_BYTES", "NOT_HASHED", "Cache", "Uncacheable", "cache_clear", "cache_info",
           "code_version", "default_folder", "environment_folder", "fingerprint", "open_cache", "shared_folders"]

#: bump when the layout of entries changes
FORMAT = 2
#: default size cap of a cache folder (bytes); $DELAYLAB_CACHE_MAX overrides it
DEFAULT_MAX_BYTES = 4 << 30
#: temporary files older than this (seconds) were left by a killed process and are removed
_STALE_TEMP = 3600.0
_TEMP_PREFIX = ".tmp-"


# ================================================================================ the code's version
def code_version() -> str:
    """``"<delaylab version>+<SHA-256 of the package's files, 16 hex digits>;numpy <version>"``.

    Hashed once, when delaylab is imported: it describes the code this process runs, even if
    the files are edited afterwards (a running kernel keeps the code it imported).
    """
    from ._version import __version__

    return f"{__version__}+{_FILES_HASH};numpy {np.__version__}"


#: sub-packages that cannot change what a simulation computes (the dashboards' server, the
#: figures' drawing, the course site's build, the grading of homework): left out of the hash, so
#: that editing them keeps the cached sweeps
NOT_HASHED = ("serve", "viz", "site", "grading")


def _hash_package(root: Path | None = None) -> str:
    root = Path(__file__).resolve().parent if root is None else Path(root)
    h = hashlib.sha256()
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".py", ".csv")
                   and "__pycache__" not in p.parts and p.relative_to(root).parts[0] not in NOT_HASHED)
    for p in files:
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()[:16]


_FILES_HASH = _hash_package()


# ================================================================================ the folder
def default_folder() -> Path:
    """``$DELAYLAB_CACHE``, else ``$XDG_CACHE_HOME/delaylab``, else ``~/.cache/delaylab``."""
    if os.environ.get("DELAYLAB_CACHE"):
        return Path(os.environ["DELAYLAB_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "delaylab"


def environment_folder() -> Path:
    """The install-time cache of this Python environment: ``<sys.prefix>/share/delaylab/cache``
    (``python -m delaylab.serve.precompute --shared`` fills it; every user of the environment reads it)."""
    return Path(sys.prefix) / "share" / "delaylab" / "cache"


def shared_folders() -> list:
    """The read-only caches every :class:`Cache` also reads: the folders in
    ``$DELAYLAB_SHARED_CACHE`` (separated by ``os.pathsep``; empty: none), else
    :func:`environment_folder` if it exists."""
    given = os.environ.get("DELAYLAB_SHARED_CACHE")
    if given is not None:
        return [Path(f).expanduser() for f in given.split(os.pathsep) if f]
    folder = environment_folder()
    return [folder] if folder.is_dir() else []


def open_cache(cache) -> "Cache | None":
    """``cache=`` of :func:`delaylab.sweep`: a folder, True (the default folder), None or False."""
    if cache is None or cache is False:
        return None
    if cache is True:
        return Cache(default_folder())
    if isinstance(cache, Cache):
        return cache
    if isinstance(cache, (str, os.PathLike)):
        return Cache(cache)
    raise ValueError(f"cache must be a folder path, True (the default folder {default_folder()}), "
                     f"None or False; got {cache!r}")


class Cache:
    """A cache folder, checked to be writable when opened (before any work starts).

    Parameters
    ----------
    folder : str or Path
        Created if needed.
    shared : list of folders, optional
        Read-only caches whose entries are served too (see the module's docstring); default
        :func:`shared_folders`.
    """

    def __init__(self, folder, max_bytes=None, shared=None):
        from ._validate import check_int
        from .summary import parse_bytes

        self.folder = Path(folder).expanduser()
        if max_bytes is None:
            env = os.environ.get("DELAYLAB_CACHE_MAX")
            max_bytes = parse_bytes("DELAYLAB_CACHE_MAX", env) if env else DEFAULT_MAX_BYTES
        self.max_bytes = check_int("max_bytes", max_bytes, low=0)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, probe = tempfile.mkstemp(dir=self.folder, prefix=_TEMP_PREFIX)
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            raise ValueError(f"the cache folder {str(self.folder)!r} is not a writable folder "
                             f"({exc.strerror or exc}); pass cache=<a writable folder>, set "
                             f"DELAYLAB_CACHE, or cache=None to run without a cache") from None
        self._remove_stale_temporaries(self.folder)
        own = self.folder.resolve()
        self.shared = [Path(f) for f in (shared_folders() if shared is None else shared)
                       if Path(f).expanduser().resolve() != own]

    def __repr__(self):
        return f"Cache({str(self.folder)!r})"

    @staticmethod
    def _remove_stale_temporaries(folder: Path) -> None:
        now = time.time()
        for p in list(folder.glob(_TEMP_PREFIX + "*")) + list(folder.glob("*/" + _TEMP_PREFIX + "*")):
            try:
                if now - p.stat().st_mtime > _STALE_TEMP:
                    p.unlink()
            except OSError:
                pass

    # ---------------------------------------------------------------- entries
    def _problem_folder(self, problem: str) -> Path:
        return self.folder / problem

    def entries(self, problem: str, wanted: np.ndarray, check) -> tuple[list, int]:
        """Valid entries of ``problem`` holding some of the ``wanted`` run indices.

        ``check(arrays, n_runs)`` returns None if the arrays have the expected names, shapes
        and dtypes, else a description of the mismatch. Returns ``([(run_ids, arrays)], number
        of corrupt entries deleted)``.
        """
        wanted_set = set(int(r) for r in wanted)
        found, corrupt = [], 0
        folder = self._problem_folder(problem)
        for path in sorted(folder.glob("runs-*.npz")) if folder.is_dir() else []:
            try:
                run_ids, arrays = _read_entry(path, problem, wanted_set, check)
            except _Corrupt:
                if not path.exists():  # evicted or cleared by another process meanwhile: a miss
                    continue
                corrupt += 1
                try:
                    path.unlink()
                except OSError:
                    pass
                continue
            if arrays is not None:
                found.append((run_ids, arrays))
                try:
                    os.utime(path)  # used now (least-recently-used eviction)
                except OSError:
                    pass
        return found + self._shared_entries(problem, wanted_set, found, check), corrupt

    def _shared_entries(self, problem: str, wanted: set, found: list, check) -> list:
        """Entries of the read-only :attr:`shared` folders holding wanted runs that ``found`` lacks:
        only read (an entry that does not check out is skipped, left as it is)."""
        have = set(int(r) for ids, _ in found for r in ids)
        out = []
        for shared in self.shared:
            folder = Path(shared) / problem
            for path in sorted(folder.glob("runs-*.npz")) if folder.is_dir() else []:
                if wanted <= have:
                    return out
                try:
                    run_ids, arrays = _read_entry(path, problem, wanted - have, check)
                except _Corrupt:
                    continue
                if arrays is not None:
                    out.append((run_ids, arrays))
                    have.update(int(r) for r in run_ids)
        return out

    def store(self, problem: str, run_ids: np.ndarray, arrays: dict) -> None:
        """Write an entry atomically (a temporary file in the same folder, then os.replace)."""
        folder = self._problem_folder(problem)
        folder.mkdir(parents=True, exist_ok=True)
        members, meta = {}, []
        for j, (key, a) in enumerate(arrays.items()):
            a = np.ascontiguousarray(a)
            if a.dtype.hasobject:
                raise Uncacheable(f"{key} holds Python objects (dtype object)")
            members[f"a{j}"] = a
            meta.append([key, a.dtype.str, list(a.shape), sha256_hex(a.tobytes())])
        manifest = {"format": FORMAT, "problem": problem, "run_ids": [int(r) for r in run_ids],
                    "version": code_version(), "keys": sorted(arrays), "arrays": meta}
        members["manifest"] = np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=_TEMP_PREFIX, suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, **members)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, folder / _entry_name(run_ids))
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        self.evict()

    # ---------------------------------------------------------------- the store
    def _entries(self) -> list:
        """(mtime, size, path) of every entry."""
        out = []
        for path in self.folder.glob("*/runs-*.npz"):
            try:
                st = path.stat()
            except OSError:
                continue
            out.append((st.st_mtime, st.st_size, path))
        return out

    def evict(self) -> int:
        """Delete the least recently used entries until the folder fits in ``max_bytes``; returns
        the bytes freed."""
        entries = self._entries()
        total, freed = sum(e[1] for e in entries), 0
        for _, size, path in sorted(entries, key=lambda e: e[0]):
            if total <= self.max_bytes:
                break
            try:
                path.unlink()
            except OSError:
                continue
            total -= size
            freed += size
            try:
                path.parent.rmdir()  # the problem's folder, once empty
            except OSError:
                pass
        return freed

    def info(self) -> dict:
        """``{"folder", "size" (bytes), "entries", "problems", "oldest", "newest" (datetimes of last
        use, None when empty), "max_bytes", "shared"}``; ``shared``: the read-only folders also
        read, each ``{"folder", "size", "entries"}``."""
        import datetime

        entries = self._entries()
        when = [datetime.datetime.fromtimestamp(e[0]) for e in entries]
        shared = []
        for folder in self.shared:
            sizes = [p.stat().st_size for p in Path(folder).glob("*/runs-*.npz")]
            shared.append({"folder": str(folder), "size": sum(sizes), "entries": len(sizes)})
        return {"folder": str(self.folder), "size": sum(e[1] for e in entries), "entries": len(entries),
                "problems": len({e[2].parent for e in entries}), "oldest": min(when, default=None),
                "newest": max(when, default=None), "max_bytes": self.max_bytes, "shared": shared}

    def clear(self) -> int:
        """Delete every entry (and temporary file) of the folder; returns the bytes freed."""
        freed = 0
        for _, size, path in self._entries():
            try:
                path.unlink()
                freed += size
            except OSError:
                pass
        for p in list(self.folder.glob("*/" + _TEMP_PREFIX + "*")) + list(self.folder.glob(_TEMP_PREFIX + "*")):
            try:
                p.unlink()
            except OSError:
                pass
        for d in self.folder.iterdir():
            if d.is_dir():
                try:
                    d.rmdir()
                except OSError:
                    pass
        return freed


def cache_info(cache=True) -> dict:
    """Size, number of entries and oldest entry of the sweep cache (default: the default folder).

    ``cache`` is what ``dl.sweep(cache=…)`` takes: True (``$DELAYLAB_CACHE`` or
    ``~/.cache/delaylab``), a folder, or a :class:`Cache`."""
    store = open_cache(cache)
    if store is None:
        raise ValueError(f"cache must be a folder, True or a Cache; got {cache!r}")
    return store.info()


def cache_clear(cache=True) -> int:
    """Empty the sweep cache (default: the default folder); returns the bytes freed."""
    store = open_cache(cache)
    if store is None:
        raise ValueError(f"cache must be a folder, True or a Cache; got {cache!r}")
    return store.clear()


class _Corrupt(Exception):
    pass


def _entry_name(run_ids: np.ndarray) -> str:
    """The file name of the entry holding ``run_ids`` (a digest of the indices, in order)."""
    return "runs-" + sha256_hex(np.asarray(run_ids, dtype="<i8").tobytes())[:24] + ".npz"


def _read_entry(path: Path, problem: str, wanted: set, check):
    """(run_ids, arrays) of an entry, arrays None if it holds none of the wanted runs."""
    try:
        with np.load(path, allow_pickle=False) as z:
            manifest = json.loads(bytes(z["manifest"]).decode())
            if manifest.get("format") != FORMAT or manifest.get("problem") != problem:
                raise _Corrupt("manifest of another problem")
            if manifest.get("version") != code_version():
                raise _Corrupt("written by another version of delaylab")
            if manifest.get("keys") != sorted(m[0] for m in manifest["arrays"]):
                raise _Corrupt("the manifest's arrays do not match its key")
            run_ids = np.asarray(manifest["run_ids"], dtype=np.int64)
            if path.name != _entry_name(run_ids):
                raise _Corrupt("run indices do not match the file name")
            if not wanted.intersection(run_ids.tolist()):
                return run_ids, None
            arrays = {}
            for j, (key, dtype, shape, digest) in enumerate(manifest["arrays"]):
                a = z[f"a{j}"]
                if a.dtype.str != dtype or list(a.shape) != shape or sha256_hex(a.tobytes()) != digest:
                    raise _Corrupt(f"{key}: checksum, shape or dtype mismatch")
                arrays[key] = a
    except _Corrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - unreadable in any way: corrupt
        raise _Corrupt(str(exc)) from None
    problem_text = check(arrays, len(run_ids))
    if problem_text is not None:
        raise _Corrupt(problem_text)
    return run_ids, arrays
