import os
import tempfile

import numpy as np
import pytest

import delaylab as dl
from delaylab.policies.base import FEEDBACK_KINDS

# Keep Jupyter and IPython state out of $HOME when tests start kernels.
_JUPYTER_TMP = tempfile.mkdtemp(prefix="delaylab-jupyter-")
for var, sub in [("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                 ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython")]:
    os.environ.setdefault(var, os.path.join(_JUPYTER_TMP, sub))


class Recorder(dl.FixedSequence):
    """Plays a fixed sequence and appends (t, arms, context, feedback) to a shared ``sink``."""

    feedback = FEEDBACK_KINDS

    def __init__(self, arms=(), sink=None):
        self.arms = arms
        self.sink = sink

    def choose(self, t, context=None):
        self._context = context
        return super().choose(t)

    def update(self, t, arms, feedback):
        self.sink.append((t, arms.copy(), self._context, feedback))


@pytest.fixture
def recorder():
    def make(arms):
        sink = []
        return Recorder(arms=list(arms), sink=sink), sink

    return make


@pytest.fixture
def rng():
    return np.random.default_rng(12345)

# The notebooks' two nbval runs (as shipped, and solved) are set up by ../conftest.py.



@pytest.fixture(scope="module", autouse=True)
def panels_compute_in_full(request):
    """Tests of a panel's semantics check its full results, at once: no time budget for them.
    The budget itself (first answers, refinement, cancellation) is tested in test_panel_limits.py."""
    if request.module.__name__.endswith("test_panel_limits"):
        yield
        return
    from delaylab.panels import budget

    saved, budget.BUDGET_SECONDS = budget.BUDGET_SECONDS, float("inf")
    yield
    budget.BUDGET_SECONDS = saved



# Property-based tests (Hypothesis): few examples, derandomized (the same examples every run), no
# per-example deadline (the machine is shared); `HYPOTHESIS_PROFILE=thorough` for a longer search.
try:
    from hypothesis import HealthCheck, settings

    settings.register_profile("delaylab", max_examples=30, derandomize=True, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("thorough", max_examples=1000, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "delaylab"))
except ImportError:  # hypothesis is a test extra; without it only the property tests are skipped
    pass
