"""IPython's ``exit()`` and ``quit()`` inside a student's function leave the kernel alive.

In a kernel they do not raise: they queue an ``ask_exit`` payload in the cell's reply, and the
front end then shuts the kernel down (every answer, panel and variable lost). A real kernel
(jupyter_client, the venv's ipykernel) runs every implement exercise's check and its race with a
function that calls them: no reply may carry that payload, and the kernel answers afterwards.
"""

import os

import pytest

from delaylab import exercises as ex

jupyter_client = pytest.importorskip("jupyter_client")

IMPLEMENT = [e for e in ex.ids() if ex.kind(e) == "implement"]


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    km = jupyter_client.KernelManager(kernel_name="python3")
    env = {k: v for k, v in os.environ.items() if k != "DELAYLAB_EXERCISES_EXPECT"}  # a student, not a test
    km.start_kernel(cwd=str(tmp_path_factory.mktemp("kernel")), env={**env, "DELAYLAB_RECORD": "off"})
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)
    yield kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def run(kc, code, timeout=300):
    """The execute reply's content, and the text the cell printed."""
    out = []
    reply = kc.execute_interactive(code, timeout=timeout, output_hook=lambda m: out.append(
        m["content"].get("text", "") if m["msg_type"] == "stream" else ""))
    return reply["content"], "".join(out)


@pytest.mark.parametrize("eid", IMPLEMENT)
def test_exit_and_quit_in_a_students_function_keep_the_kernel(kernel, eid):
    kernel_reply, _ = run(kernel, "from delaylab import exercises as ex\nex.start('')")
    assert kernel_reply["status"] == "ok"
    for call in ("exit()", "quit()", "exit(0)", "quit(keep_kernel=False)"):
        code = f"fb = ex.check({eid!r}, lambda *args: {call})\nprint(fb.status, '|', fb.message)"
        reply, printed = run(kernel, code)
        assert reply["status"] == "ok", reply
        assert not any(p.get("source") == "ask_exit" for p in reply.get("payload", [])), (call, reply["payload"])
        assert printed.startswith("wrong |") and "exit() or quit()" in printed, printed
    reply, printed = run(kernel, "print(1 + 1)")
    assert printed.strip() == "2" and not reply.get("payload")


def test_exit_in_a_raced_policy_keeps_the_kernel(kernel):
    code = ("from delaylab.panels.conversions import ConversionsPanel\n"
            "panel = ConversionsPanel(horizon=300, runs=4)\n"
            "r = ex.race(panel, '01.d-klucb-index', namespace={'d_klucb_index': lambda *a: exit()})\n"
            "print(r.feedback.status, '|', r.feedback.message)")
    reply, printed = run(kernel, code)
    assert reply["status"] == "ok", reply
    assert not any(p.get("source") == "ask_exit" for p in reply.get("payload", []))
    assert "exit() or quit()" in printed, printed
    assert run(kernel, "print('alive')")[1].strip() == "alive"
