"""dl.sweep: the same arrays as dl.simulate whatever the executor and chunking; the on-disk cache
(hits, resumption, corruption); clear errors before any work. Dask is required (test extra)."""

import importlib
import json
import os
import signal
import subprocess
import sys
import zipfile

import distributed  # the test extra installs dask[distributed]: a missing dask must fail, not skip
import numpy as np
import pytest

import delaylab as dl
import delaylab.cache
from delaylab.cache import Cache, fingerprint
from delaylab.papers import vernade2017

sweep_mod = importlib.import_module("delaylab.sweep")  # the module (dl.sweep is the function)


def problem():
    law = dl.Geometric(40)
    env = dl.Conversions([0.5, 0.4, 0.3], law, window=120)
    pols = {"D-KLUCB": dl.DelayedKLUCB(law, 120), "UCB1": dl.UCB1(), "random": dl.UniformRandom(),
            "Disc": dl.DiscardingUCB(law, 120), "est": dl.DelayedUCB(dl.OnlineCDF(), 120)}
    return env, pols


def grid_problem():
    g = dl.grid(gap=[0.05, 0.2], mean=[10.0, 60.0])
    law = dl.Geometric(mean=g.mean)
    env = dl.Conversions(np.stack([0.3 + g.gap, np.full(g.size, 0.3)], axis=1), law, window=80)
    pols = {"D-UCB": dl.DelayedUCB(law, 80, eps=np.linspace(0, 0.3, g.size)), "random": dl.UniformRandom()}
    return env, pols, g


def assert_same(a, b):
    assert a.names == b.names and a.grid_shape == b.grid_shape
    assert np.array_equal(a.times, b.times) and np.array_equal(a.run_ids, b.run_ids)
    for name in a.names:
        assert np.array_equal(a.regret[name], b.regret[name]), name
        assert np.array_equal(a.pulls[name], b.pulls[name]), name
        assert a.regret[name].dtype == b.regret[name].dtype and a.pulls[name].dtype == b.pulls[name].dtype
    assert a.traces.keys() == b.traces.keys()
    for name in a.traces:
        assert a.traces[name].keys() == b.traces[name].keys()
        for f in a.traces[name]:
            assert np.array_equal(a.traces[name][f], b.traces[name][f]), (name, f)


ARGS = dict(horizon=300, runs=11, seed=3, checkpoints=40)


@pytest.fixture(scope="module")
def reference():
    env, pols = problem()
    return dl.simulate(env, pols, **ARGS)


# ---------------------------------------------------------------------------- equality
@pytest.mark.parametrize("chunk_runs", [None, 1, 3, 11, 50])
def test_in_process_equals_simulate_for_any_chunk_size(reference, chunk_runs):
    env, pols = problem()
    res = dl.sweep(env, pols, **ARGS, chunk_runs=chunk_runs)
    assert_same(res, reference)
    assert res.notes["computed_chunks"] == -(-11 // min(chunk_runs or 11, 11))
    assert isinstance(res, dl.Result) and res.setting is env and res.policies.keys() == pols.keys()


def test_grid_trace_and_run_order_equal_simulate(tmp_path):
    env, pols, g = grid_problem()
    kw = dict(horizon=200, runs=[9, 2, 5, 0, 7], seed=1, checkpoints=25, trace=True, grid=g)
    ref = dl.simulate(env, pols, **kw)
    assert ref.regret["D-UCB"].shape == (2, 2, 5, 25) and ref.traces["D-UCB"]
    assert_same(dl.sweep(env, pols, **kw, chunk_runs=2), ref)
    assert_same(dl.sweep(env, pols, **kw, chunk_runs=2, cache=tmp_path), ref)
    cached = dl.sweep(env, pols, **kw, chunk_runs=3, cache=tmp_path)  # another chunking: all hits
    assert cached.notes["computed_runs"] == 0
    assert_same(cached, ref)


def test_local_processes_equal_simulate(reference):
    env, pols = problem()
    res = dl.sweep(env, pols, **ARGS, executor=2, chunk_runs=3)
    assert_same(res, reference)
    assert res.notes["executor"] == "2 processes" and res.notes["computed_chunks"] == 4


# ---------------------------------------------------------------------------- Dask
@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def test_dask_local_cluster_equals_simulate(client, reference):
    env, pols = problem()
    res = dl.sweep(env, pols, **ARGS, executor=client, chunk_runs=2)
    assert_same(res, reference)
    assert res.notes["executor"].startswith("dask tcp://127.0.0.1") and res.notes["workers"] == 2
    by_address = dl.sweep(env, pols, **ARGS, executor=client.scheduler.address, chunk_runs=4)
    assert_same(by_address, reference)


def test_dask_sends_lambdas_with_cloudpickle(client):
    law = dl.SurvivalLaw(lambda m: 0.7 * (1 + m) ** -0.3, label="0.7(1+m)^-0.3")
    env = dl.Conversions([0.5, 0.3], law, window=50)
    ref = dl.simulate(env, dl.UCB1(), horizon=150, runs=4, seed=2)
    assert_same(dl.sweep(env, dl.UCB1(), horizon=150, runs=4, seed=2, executor=client, chunk_runs=1), ref)


def test_worker_killed_mid_sweep_still_gives_identical_results(client):
    env, pols = problem()
    kw = dict(horizon=800, runs=12, seed=5, checkpoints=20)
    ref = dl.simulate(env, pols, **kw)
    pids = client.run(os.getpid)
    killed = []

    def kill_a_busy_worker(fraction):
        if killed or fraction <= 0:
            return
        busy = {w: keys for w, keys in client.processing().items() if keys}
        if busy:  # a worker holding chunks not finished yet
            worker = sorted(busy)[0]
            killed.append((worker, list(busy[worker])))
            os.kill(pids[worker], signal.SIGKILL)

    res = dl.sweep(env, pols, **kw, executor=client, chunk_runs=2, progress=kill_a_busy_worker)
    assert killed and killed[0][1], "a worker holding unfinished chunks was killed"
    assert_same(res, ref)
    assert res.notes["computed_chunks"] == 6
    client.wait_for_workers(2, timeout=30)  # the nanny restarted it
    assert killed[0][0] not in client.nthreads()


def test_unreachable_scheduler_is_reported_before_any_work(monkeypatch, tmp_path):
    monkeypatch.setattr(sweep_mod, "CONNECT_TIMEOUT", 1.0)
    calls = count_chunks(monkeypatch)
    env, pols = problem()
    with pytest.raises(ConnectionError, match=r"could not connect to the Dask scheduler at 'tcp://127.0.0.1:9'"):
        dl.sweep(env, pols, **ARGS, executor="tcp://127.0.0.1:9", cache=tmp_path)
    assert calls == [] and not list(tmp_path.rglob("*.npz"))


# ---------------------------------------------------------------------------- cache
def count_chunks(monkeypatch):
    calls = []
    original = sweep_mod._compute

    def counting(payload, ids, progress=None):
        calls.append(list(ids))
        return original(payload, ids, progress)

    monkeypatch.setattr(sweep_mod, "_compute", counting)
    return calls


def entries(folder):
    return sorted(folder.rglob("runs-*.npz"))


def test_rerun_is_all_cache_hits(reference, tmp_path, monkeypatch):
    env, pols = problem()
    first = dl.sweep(env, pols, **ARGS, chunk_runs=4, cache=tmp_path)
    assert first.notes["computed_chunks"] == 3 and len(entries(tmp_path)) == 3
    calls = count_chunks(monkeypatch)
    env, pols = problem()  # new but equal objects
    again = dl.sweep(env, pols, **ARGS, chunk_runs=4, cache=tmp_path)
    assert calls == [] and again.notes["computed_chunks"] == 0 and again.notes["cached_runs"] == 11
    assert_same(again, reference)
    # other executors and chunk sizes read the same entries; more runs compute only the new ones
    assert dl.sweep(env, pols, **ARGS, executor=2, chunk_runs=5, cache=tmp_path).notes["computed_runs"] == 0
    more = dl.sweep(env, pols, **{**ARGS, "runs": 15}, chunk_runs=4, cache=tmp_path)
    assert calls == [[11, 12, 13, 14]]
    assert_same(more, dl.simulate(env, pols, **{**ARGS, "runs": 15}))


def test_any_change_of_the_problem_or_the_code_misses(tmp_path, monkeypatch):
    env, pols = problem()
    dl.sweep(env, pols, **ARGS, cache=tmp_path)
    law = dl.Geometric(41)
    changed = [
        dict(setting=dl.Conversions([0.5, 0.4, 0.3], law, window=120)),
        dict(policies={**pols, "D-KLUCB": dl.DelayedKLUCB(dl.Geometric(40), 119)}),
        dict(policies={"renamed" if k == "UCB1" else k: v for k, v in pols.items()}),
        dict(seed=4), dict(horizon=301), dict(checkpoints=41), dict(trace=True),
    ]
    for change in changed:
        kw = {"setting": env, "policies": pols, **ARGS, **change}
        assert dl.sweep(**kw, cache=tmp_path).notes["cached_runs"] == 0, change
    assert dl.sweep(env, pols, **ARGS, cache=tmp_path).notes["cached_runs"] == 11
    monkeypatch.setattr(delaylab.cache, "_FILES_HASH", "edited")  # delaylab's source files changed
    assert dl.sweep(env, pols, **ARGS, cache=tmp_path).notes["cached_runs"] == 0


def test_interrupted_sweep_resumes_without_recomputing_finished_chunks(reference, tmp_path, monkeypatch):
    env, pols = problem()

    class Stop(Exception):
        pass

    def stop_after_half(fraction):
        if fraction > 0.5:
            raise Stop

    with pytest.raises(Stop):
        dl.sweep(env, pols, **{**ARGS, "runs": 8}, chunk_runs=2, cache=tmp_path, progress=stop_after_half)
    assert len(entries(tmp_path)) == 2 and not list(tmp_path.rglob(".tmp-*"))
    calls = count_chunks(monkeypatch)
    res = dl.sweep(env, pols, **{**ARGS, "runs": 8}, chunk_runs=2, cache=tmp_path)
    assert calls == [[4, 5], [6, 7]] and res.notes["cached_runs"] == 4
    assert_same(res, dl.simulate(env, pols, **{**ARGS, "runs": 8}))


def test_corrupt_entries_are_detected_and_recomputed(reference, tmp_path):
    env, pols = problem()
    dl.sweep(env, pols, **ARGS, chunk_runs=3, cache=tmp_path)
    files = entries(tmp_path)
    assert len(files) == 4
    with np.load(files[3]) as z:  # left intact
        intact = len(json.loads(bytes(z["manifest"]).decode())["run_ids"])
    # a truncated file, a flipped byte, and a well-formed file whose arrays do not match their checksums
    data = files[0].read_bytes()
    files[0].write_bytes(data[: len(data) // 2])
    data = bytearray(files[1].read_bytes())
    data[len(data) // 3] ^= 0xFF
    files[1].write_bytes(bytes(data))
    with np.load(files[2]) as z:
        members = {k: z[k].copy() for k in z.files}
    members["a0"][..., -1] += 1.0  # a regret array, same shape and dtype
    with zipfile.ZipFile(files[2], "w") as zf:
        for k, v in members.items():
            with zf.open(k + ".npy", "w") as f:
                np.lib.format.write_array(f, v)
    res = dl.sweep(env, pols, **ARGS, chunk_runs=3, cache=tmp_path)
    assert res.notes["corrupt_entries"] == 3 and res.notes["computed_runs"] == 11 - intact
    assert_same(res, reference)
    again = dl.sweep(env, pols, **ARGS, chunk_runs=3, cache=tmp_path)  # rewritten: all valid now
    assert again.notes["corrupt_entries"] == 0 and again.notes["computed_runs"] == 0
    assert entries(tmp_path) == files


def test_a_failed_write_leaves_nothing_behind(reference, tmp_path, monkeypatch):
    env, pols = problem()

    def broken_savez(f, **arrays):
        f.write(b"half an entry")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", broken_savez)
    with pytest.warns(UserWarning, match="could not write its cache"):
        res = dl.sweep(env, pols, **ARGS, chunk_runs=4, cache=tmp_path)
    assert_same(res, reference)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_unwritable_cache_folder_is_reported_before_any_work(tmp_path, monkeypatch):
    calls = count_chunks(monkeypatch)
    env, pols = problem()
    a_file = tmp_path / "file"
    a_file.write_text("")
    with pytest.raises(ValueError, match=r"cache folder .*file/cache.* is not a writable folder"):
        dl.sweep(env, pols, **ARGS, cache=a_file / "cache")
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(ValueError, match="not a writable folder"):
            dl.sweep(env, pols, **ARGS, cache=locked)
    assert calls == []
    monkeypatch.setenv("DELAYLAB_CACHE", str(a_file / "env"))
    with pytest.raises(ValueError, match="DELAYLAB_CACHE"):
        dl.sweep(env, pols, **ARGS, cache=True)


def test_fingerprints_describe_parameters_not_derived_state():
    assert fingerprint(dl.Geometric(40)) == fingerprint(dl.Geometric(40.0))
    assert fingerprint(dl.Geometric(40)) != fingerprint(dl.Geometric(40.5))
    poisson = dl.Poisson(30)
    before = fingerprint(poisson)
    poisson._tables = [t * 0 for t in poisson._tables]  # tables computed from λ are not the definition
    assert fingerprint(poisson) == before
    pol = dl.DelayedKLUCB(dl.Geometric(40), 120)
    before = fingerprint(pol)
    dl.simulate(dl.Conversions([0.5, 0.3], dl.Geometric(40), window=120), pol, horizon=20, runs=2)
    assert fingerprint(pol) == before

    def sf(scale):
        return lambda m: scale * (1 + m) ** -0.3

    assert fingerprint(dl.SurvivalLaw(sf(0.7))) == fingerprint(dl.SurvivalLaw(sf(0.7)))
    assert fingerprint(dl.SurvivalLaw(sf(0.7))) != fingerprint(dl.SurvivalLaw(sf(0.6)))  # closure value
    assert fingerprint(dl.SurvivalLaw(lambda m: 0.7 * (1 + m) ** -0.3)) != fingerprint(
        dl.SurvivalLaw(lambda m: 0.7 * (1 + m) ** -0.4))  # code
    assert fingerprint(np.arange(3)) != fingerprint(np.arange(3.0))


def test_paper_figures_use_the_cache(tmp_path):
    first = vernade2017.figure2(runs=3, horizon=200, cache=tmp_path)
    again = vernade2017.figure2(runs=3, horizon=200, cache=tmp_path)
    assert again.notes["computed_runs"] == 0
    assert_same(again, first)
    assert_same(first, vernade2017.figure2(runs=3, horizon=200))


# ---------------------------------------------------------------------------- bad input, progress
def test_invalid_grid_value_is_reported_before_any_chunk_runs(tmp_path, monkeypatch):
    calls = count_chunks(monkeypatch)
    env, _, g = grid_problem()
    bad = {"D-UCB": dl.DelayedUCB(dl.Geometric(mean=g.mean), 80, eps=np.array([0.0, 0.1, -0.2, 0.3]))}
    with pytest.raises(ValueError, match=r"eps"):
        dl.sweep(env, bad, horizon=100, runs=6, grid=g, chunk_runs=1, cache=tmp_path, executor=2)
    with pytest.raises(ValueError, match=r"4 cells|cells"):
        dl.sweep(env, {"x": dl.DelayedUCB(dl.Geometric(10), 80, eps=np.zeros(3))}, horizon=100, runs=6, grid=g)
    with pytest.raises(ValueError, match="chunk_runs"):
        dl.sweep(env, dl.UCB1(), horizon=100, runs=6, grid=g, chunk_runs=0)
    with pytest.raises(ValueError, match="executor must be"):
        dl.sweep(env, dl.UCB1(), horizon=100, runs=6, grid=g, executor="threads", cache=tmp_path / "new")
    with pytest.raises(ValueError, match="progress must be"):
        dl.sweep(env, dl.UCB1(), horizon=100, runs=6, grid=g, progress="bar", cache=tmp_path / "new")
    assert calls == [] and not entries(tmp_path) and not (tmp_path / "new").exists()


def test_unpicklable_setting_is_named_before_any_work():
    law = dl.SurvivalLaw(lambda m: 0.7 * (1 + m) ** -0.3, label="0.7(1+m)^-0.3")
    env = dl.Conversions([0.5, 0.3], law, window=50)
    with pytest.raises(ValueError, match=r"the setting Conversions.*cannot be sent to worker processes.*executor=None"):
        dl.sweep(env, dl.UCB1(), horizon=100, runs=4, executor=2)
    in_process = dl.sweep(env, dl.UCB1(), horizon=100, runs=4, chunk_runs=2)
    assert_same(in_process, dl.simulate(env, dl.UCB1(), horizon=100, runs=4))


def test_progress_fractions_and_cached_runs_count_at_once(tmp_path):
    env, pols = problem()
    seen = []
    dl.sweep(env, pols, **ARGS, chunk_runs=4, cache=tmp_path, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) > 5
    seen.clear()
    dl.sweep(env, pols, **{**ARGS, "runs": 22}, chunk_runs=4, cache=tmp_path, progress=seen.append)
    assert seen[0] == pytest.approx(11 / 22) and seen == sorted(seen) and seen[-1] == 1.0
    res = dl.sweep(env, pols, **ARGS, progress=True)  # a tqdm bar (text outside notebooks)
    assert res.notes["computed_runs"] == 11


def test_sweep_imports_and_runs_without_dask():
    code = ("import sys; sys.modules['dask'] = sys.modules['distributed'] = None\n"
            "import delaylab as dl\n"
            "r = dl.sweep(dl.Conversions([0.5, 0.3], dl.Fixed(2)), dl.UCB1(), horizon=50, runs=3, chunk_runs=1)\n"
            "assert r.regret['UCB1'].shape == (3, 50)\n"
            "try:\n"
            "    dl.sweep(dl.Conversions([0.5, 0.3], dl.Fixed(2)), dl.UCB1(), horizon=50, executor='tcp://h:1')\n"
            "except ValueError as e:\n"
            "    assert 'delaylab[cluster]' in str(e)\n"
            "else:\n"
            "    raise AssertionError\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_cache_object_reports_its_folder(tmp_path):
    assert repr(Cache(tmp_path)) == f"Cache({str(tmp_path)!r})"


def _button(seen, paper_runs=100):
    """A FigureReproduction whose computation records the cache its sweeps would use."""
    from delaylab.panels.reproduce import FigureReproduction
    from delaylab.sweep import _DEFAULT_CACHE
    from delaylab.viz.plots import CurvePlot

    return FigureReproduction(lambda runs, progress: seen.append((runs, _DEFAULT_CACHE.get())),
                              lambda res, plot: None, CurvePlot(["D-UCB"]), 20, paper_runs)


def test_figure_buttons_cache_only_the_paper_scale(tmp_path, monkeypatch):
    monkeypatch.setenv("DELAYLAB_CACHE", str(tmp_path))
    seen = []
    _button(seen).run(100)
    assert seen == [(20, None), (100, True)]


def test_figure_buttons_run_without_cache_when_the_folder_is_unwritable(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("DELAYLAB_CACHE", str(tmp_path / "file" / "cache"))
    seen = []
    _button(seen).run(100)
    assert [cache for _, cache in seen] == [None, None]


class DieOnce(dl.UniformRandom):
    """Kills its worker process the first time it starts on run 4 (the marker file says so)."""

    def __init__(self, marker=""):
        self.marker = marker

    def reset(self, problem):
        super().reset(problem)
        if 4 in problem.batch.run_ids and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(1)


def test_a_dead_worker_process_is_replaced_and_its_chunk_recomputed(tmp_path):
    env, _ = problem()
    pols = {"die once": DieOnce(marker=str(tmp_path / "died")), "UCB1": dl.UCB1()}
    res = dl.sweep(env, pols, **ARGS, executor=2, chunk_runs=2)
    assert (tmp_path / "died").exists()
    assert_same(res, dl.simulate(env, {"die once": dl.UniformRandom(), "UCB1": dl.UCB1()}, **ARGS))


class Locked(dl.UniformRandom):
    def __init__(self, lock=None):
        self.lock = lock


def test_an_indescribable_hyperparameter_runs_without_cache_and_says_so(tmp_path):
    import threading

    env, _ = problem()
    pols = {"locked": Locked(lock=threading.Lock())}
    with pytest.warns(UserWarning, match="without its cache"):
        res = dl.sweep(env, pols, **ARGS, cache=tmp_path)
    assert "not cached" in res.notes["cache_note"] and not entries(tmp_path)
    assert_same(res, dl.simulate(env, pols, **ARGS))


def test_paper_scale_button_fills_and_reads_the_cache(tmp_path, monkeypatch):
    """FigureReproduction runs its paper-scale computation with the on-disk cache on."""
    from delaylab.panels.reproduce import FigureReproduction
    from delaylab.viz.plots import CurvePlot

    monkeypatch.setenv("DELAYLAB_CACHE", str(tmp_path / "cache"))
    law = dl.Geometric(20)
    env = dl.Conversions([0.5, 0.3], law, window=40)
    notes = []

    def compute(runs, progress):
        res = dl.sweep(env, {"D-UCB": dl.DelayedUCB(law, 40)}, 200, runs, 0, checkpoints=20, progress=progress)
        notes.append(res.notes)
        return res

    fig = FigureReproduction(compute, lambda res, plot: plot.show_result(res), CurvePlot(["D-UCB"]), 3, 6)
    assert notes[-1]["cache"] is None  # the reduced default: no cache
    fig.button.click()
    assert notes[-1]["computed_runs"] == 6 and str(tmp_path) in notes[-1]["cache"]
    fig.run(6)  # the paper's scale again: every run read back
    assert notes[-1]["computed_runs"] == 0 and notes[-1]["cached_runs"] == 6
    assert dl.sweep(env, {"D-UCB": dl.DelayedUCB(law, 40)}, 200, 6, 0, checkpoints=20).notes["cache"] is None


@pytest.mark.parametrize("study", ["vernade2017.estimator_study", "manegueu2020.bias_study"])
def test_notebook_studies_come_from_the_dashboards_cache_and_equal_simulate(study, tmp_path, monkeypatch):
    """Two studies the notebooks run at their defaults (0.9 and 1.0 CPU s of a dashboard kernel's
    start) go through sweep: with the dashboards' default cache a second kernel computes
    nothing, and the result is simulate's, array for array."""
    from delaylab.engine import simulate

    sweep_module = importlib.import_module("delaylab.sweep")  # the module (delaylab.sweep is also the function)

    module, name = study.split(".")
    fn = getattr(importlib.import_module(f"delaylab.papers.{module}"), name)
    kwargs = dict(horizon=400, runs=12, seed=3)
    calls = []
    real = sweep_module.simulate

    def counted(*args, **kw):
        calls.append(kw.get("runs"))
        return real(*args, **kw)

    monkeypatch.setattr(sweep_module, "simulate", counted)
    with sweep_module.default_cache(tmp_path):
        first = fn(**kwargs)
        assert calls, "the first call computes"
        calls.clear()
        again = fn(**kwargs)
        assert calls == [], "the second call reads the cache"
    key = "corrected" if "corrected" in first else "observed"
    assert np.array_equal(first[key], again[key]) and np.array_equal(first["t"], again["t"])
    monkeypatch.setattr(sweep_module, "simulate", simulate)
    plain = fn(**kwargs)  # no default cache: computed, and the same
    assert np.array_equal(plain[key], first[key])
