"""Issue 17, part 3: the sweep cache as a managed store (info, clear, a size cap with LRU
eviction, `tasks.py clean --cache`), whose entries are served only for their own full key."""

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import delaylab as dl
from delaylab.cache import Cache

ROOT = Path(__file__).resolve().parents[1]
LAW = dl.Geometric(5)
ENV = dl.Conversions([0.3, 0.1], LAW)


def run(cache, seed=0, runs=6, chunk_runs=3):
    return dl.sweep(ENV, {"UCB1": dl.UCB1()}, 40, runs, seed=seed, checkpoints=5, chunk_runs=chunk_runs, cache=cache)


def test_info_and_clear(tmp_path):
    empty = dl.cache_info(tmp_path)
    assert (empty["entries"], empty["size"], empty["oldest"]) == (0, 0, None)
    run(tmp_path, seed=0)
    run(tmp_path, seed=1)
    info = dl.cache_info(tmp_path)
    assert info["entries"] == 4 and info["problems"] == 2 and info["size"] > 0
    assert isinstance(info["oldest"], datetime.datetime) and info["oldest"] <= info["newest"]
    assert dl.cache_clear(tmp_path) == info["size"]
    assert dl.cache_info(tmp_path)["entries"] == 0 and not any(tmp_path.iterdir())
    assert run(tmp_path).notes["computed_runs"] == 6  # recomputed, not served from anything left


def test_size_cap_evicts_the_least_recently_used(tmp_path):
    run(tmp_path, seed=0)
    one = dl.cache_info(tmp_path)["size"]  # two entries of one problem
    store = Cache(tmp_path, max_bytes=int(2.2 * one))  # room for four entries
    run(store, seed=1)
    past = datetime.datetime.now().timestamp() - 3600
    for i, path in enumerate(sorted(tmp_path.glob("*/runs-*.npz"), key=os.path.getmtime)):
        os.utime(path, (past + i, past + i))  # seed 0's entries are now the oldest
    assert run(store, seed=0).notes["cached_runs"] == 6  # reading them marks them used ...
    run(store, seed=2)  # ... so seed 1's (the least recently used) are evicted for seed 2's
    info = dl.cache_info(store)
    assert info["size"] <= store.max_bytes and info["entries"] == 4
    assert run(store, seed=0).notes["cached_runs"] == 6
    assert run(store, seed=1).notes["cached_runs"] == 0


def test_cap_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("DELAYLAB_CACHE_MAX", "3M")
    assert Cache(tmp_path).max_bytes == 3 << 20
    monkeypatch.setenv("DELAYLAB_CACHE_MAX", "lots")
    with pytest.raises(ValueError, match=r"DELAYLAB_CACHE_MAX must be a size in bytes such as 2G.*got 'lots'"):
        Cache(tmp_path)
    with pytest.raises(ValueError, match=r"max_bytes = -1 is outside the valid range \[0, ∞\)"):
        Cache(tmp_path, max_bytes=-1)


def _rewrite(path: Path, edit) -> None:
    """Rewrite an entry with ``edit(manifest, arrays)``, checksums recomputed to match."""
    import hashlib

    with np.load(path) as z:
        members = {k: z[k] for k in z.files}
    manifest = json.loads(bytes(members["manifest"]).decode())
    edit(manifest, members)
    for j, m in enumerate(manifest["arrays"]):
        a = np.ascontiguousarray(members[f"a{j}"])
        m[1], m[2], m[3] = a.dtype.str, list(a.shape), hashlib.sha256(a.tobytes()).hexdigest()
    members["manifest"] = np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **members)


@pytest.mark.parametrize("edit", [
    lambda m, a: m.update(version="0.0.1+somebody-elses;numpy 1.0"),  # another delaylab
    lambda m, a: m.update(problem="0" * 64),  # another problem
    lambda m, a: m.update(keys=m["keys"][:-1]),  # another set of arrays
    lambda m, a: (m["arrays"][0].__setitem__(0, m["arrays"][1][0])),  # arrays under other names
], ids=["version", "problem", "keys", "array names"])
def test_an_entry_with_matching_checksums_but_another_key_is_not_served(tmp_path, edit):
    ref = run(tmp_path)
    for path in tmp_path.glob("*/runs-*.npz"):
        _rewrite(path, edit)
    again = run(tmp_path)
    assert again.notes["cached_runs"] == 0 and again.notes["corrupt_entries"] == 2
    np.testing.assert_array_equal(again.regret["UCB1"], ref.regret["UCB1"])


def test_an_entry_with_other_content_and_matching_checksums_is_not_served(tmp_path):
    ref = run(tmp_path)

    def edit(m, a):  # another run's values under this entry's key
        for j, (_key, *_rest) in enumerate(m["arrays"]):
            a[f"a{j}"] = a[f"a{j}"][::-1].copy()
        m["run_ids"] = m["run_ids"][::-1]

    for path in tmp_path.glob("*/runs-*.npz"):
        _rewrite(path, edit)
    again = run(tmp_path)
    assert again.notes["cached_runs"] == 0
    np.testing.assert_array_equal(again.regret["UCB1"], ref.regret["UCB1"])


def test_tasks_clean_cache(tmp_path):
    run(tmp_path)
    assert dl.cache_info(tmp_path)["entries"] == 2
    out = subprocess.run([sys.executable, str(ROOT / "tasks.py"), "clean", "--cache"], cwd=ROOT, check=True,
                         capture_output=True, text=True, env={**os.environ, "DELAYLAB_CACHE": str(tmp_path)})
    assert "removed 2 cache entries" in out.stdout
    assert dl.cache_info(tmp_path)["entries"] == 0
    assert (ROOT / ".venv").is_dir()  # the cache only


def test_package_hash_ignores_the_server_and_drawing_code_but_not_the_simulation(tmp_path):
    """Editing delaylab/serve or delaylab/viz keeps the cached sweeps; editing a policy does not."""
    import shutil

    from delaylab import cache

    root = tmp_path / "delaylab"
    shutil.copytree(Path(cache.__file__).parent, root, ignore=shutil.ignore_patterns("__pycache__"))
    before = cache._hash_package(root)
    assert before == cache._hash_package(Path(cache.__file__).parent)
    for folder in cache.NOT_HASHED:
        (root / folder / "app.py").write_text("# edited\n")
    assert cache._hash_package(root) == before
    (root / "policies" / "__init__.py").write_text((root / "policies" / "__init__.py").read_text() + "\n# edited\n")
    assert cache._hash_package(root) != before
