"""The kernels work on declared state: what each policy exposes through ``kernel_state()``.

A kernel reads no underscore name of another module (no ``policy._eps``, no private class of a
setting): the policy's NamedTuple, the setting's draws and the engine's calendar are all it
gets. The NamedTuple holds the policy's own arrays, so the kernel's updates are the policy's
state (``snapshot()`` and traces show them).
"""

import ast
from pathlib import Path

import numpy as np
import pytest

import delaylab as dl
import delaylab.engine as engine
from delaylab import kernels

KERNELS = Path(kernels.__file__).parent


def private_reads(path: Path) -> list[str]:
    """``obj._name`` with obj other than ``self``, and ``from module import _name`` of another
    package (the kernels' own module ``_env`` is theirs)."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "_env")):
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.ImportFrom):
            own = node.level == 1 and node.module in (None, "_env")
            for alias in node.names:
                if alias.name.startswith("_") and not own:
                    found.append(f"{path.name}:{node.lineno} import {alias.name}")
    return found


def test_private_reads_are_found(tmp_path):
    """The check itself: it reports what the kernels used to read."""
    probe = tmp_path / "probe.py"
    probe.write_text("from ..policies.patient import _TINY\n\ndef f(p):\n    return p._eps, self._ok, p.__class__\n")
    assert private_reads(probe) == ["probe.py:1 import _TINY", "probe.py:4 ._eps"]


@pytest.mark.parametrize("path", sorted(KERNELS.glob("*.py")), ids=lambda p: p.name)
def test_kernels_read_no_private_names_of_other_modules(path):
    assert private_reads(path) == []


def started(policy, setting, runs=3, horizon=50):
    problem = dl.Problem(setting.n_arms, horizon, setting.feedback, getattr(setting, "window", None),
                         getattr(setting, "dim", None), engine.Batch(np.arange(runs)), 0)
    return policy.clone().start(problem)


GEO = dl.Geometric(mean=4)
CONV = dl.Conversions([0.5, 0.4, 0.2], GEO, window=20)
LAB = dl.LabelledRewards([0.5, 0.4, 0.2], GEO, window=20)
ADV = dl.AdversarialLosses(np.tile([0.2, 0.6, 0.4], (50, 1)), GEO)


@pytest.mark.parametrize("setting, policy, updated", [
    (CONV, dl.UCB1(c=np.array([1.0])), ("pulls_", "successes_", "revealed_")),
    (CONV, dl.DelayedKLUCB(GEO, 20), ("pulls_", "successes_")),
    (CONV, dl.DiscardingUCB(GEO, 20), ("pulls_", "done_pulls_", "done_successes_")),
    (LAB, dl.QPMD(), ("n_", "s_", "pulls_", "queue_len_", "J_")),
    (CONV, dl.PatientBandits(alpha=0.3), ("pulls_", "successes_", "width_")),
    (CONV, dl.AdaptPatientBandits(), ("pulls_", "successes_", "alpha_", "hist_", "n_est_")),
    (dl.AggregatedAnonymous([0.5, 0.3], GEO), dl.ODAAF(mean_delay=4), ("active_", "sums_", "phase_", "end_")),
    (ADV, dl.DEW(eta=0.1), ("cum_loss_", "p_")),
    (ADV, dl.Doubling(), ("beta_", "epoch_", "epoch_start_")),
], ids=lambda x: type(x).__name__ if isinstance(x, dl.Policy) else None)
def test_kernel_state_holds_the_policys_own_arrays(setting, policy, updated):
    """The arrays a kernel updates are the policy's own (no copies): the kernel's work is the
    policy's state."""
    p = started(policy, setting)
    state = p.kernel_state()
    assert hasattr(state, "_fields"), "kernel_state() returns a NamedTuple"
    arrays = [v for v in state if isinstance(v, np.ndarray)]
    for name in updated:
        assert any(a is getattr(p, name) for a in arrays), name
    per_run = [v for v in state if isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype == float]
    assert all(v.flags.c_contiguous and v.flags.writeable for v in per_run)


def test_the_count_state_of_d_ucb_is_the_counts_own():
    p = started(dl.DelayedUCB(dl.Uniform(0, 6), 20), CONV)
    count = p.kernel_state().count
    assert count.old is p.count_.old and count.buf is p.count_.buf
    g = started(dl.DelayedUCB(GEO, 20), CONV).kernel_state().count
    assert g.m == 20 and g.ring.shape == (21, 3)


@pytest.mark.skipif(not kernels.available(), reason="numba is not installed")
@pytest.mark.parametrize("policy", [dl.DelayedUCB(dl.Fixed(0), 5), dl.DelayedKLUCB(dl.Fixed(0), 5)],
                         ids=["D-UCB", "D-KLUCB"])
def test_a_tabulated_count_without_a_ring_gives_the_numpy_runs(monkeypatch, policy):
    """A law with τ(0) = 1 (no delay) makes a tabulated count of W = 0 lags, with no ring of
    recent pulls: the kernel counts every pull as old, as the numpy path does (a kernel that took
    the missing ring for a ring of one slot wrote outside its arrays)."""
    setting = dl.Conversions([0.5, 0.3, 0.2], dl.Fixed(0), window=5)
    out = []
    for mode in ("numpy", "numba"):
        monkeypatch.setenv("DELAYLAB_KERNELS", mode)
        out.append(dl.simulate(setting, policy, 400, 7, seed=3, checkpoints=4))
    a, b = out
    assert np.array_equal(a.pulls[policy.label], b.pulls[policy.label])
    np.testing.assert_allclose(b.regret[policy.label], a.regret[policy.label], rtol=0, atol=1e-12)
