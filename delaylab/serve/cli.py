"""The dashboards' server's command line: ``python -m delaylab.serve NOTEBOOK_FOLDER [--public]
[--solutions=lecture|all|none|1.1,…] [Voila options]`` (:func:`main`).

:func:`command_line` turns it into Voila's: :func:`defaults` first (kernels on Unix sockets
where their paths fit, :func:`~delaylab.serve.transport.unix_sockets_fit`), then ``--public`` expanded into
:data:`PUBLIC`, the settings of a server open to anyone; an option given on the command line
replaces either's entry. :func:`main` checks the installed Voila first
(:func:`delaylab.serve.compat.check_voila`), then starts :class:`delaylab.serve.app.DashboardServer`
with the "delaylab" template (:data:`SHARE`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .compat import check_voila
from .transport import unix_sockets_fit

#: ``--public``: what a server open to anyone adds to voila.json's settings (an option given on
#: the command line too, e.g. ``--DashboardServer.max_kernels=20``, replaces its entry here)
PUBLIC = {
    "Voila.ip": "0.0.0.0",
    "DashboardServer.max_kernels": 10,  # 10 visitors' kernels at once; the 11th: a "busy" page
    # one client (address) at most 4 pages loading at once and 60 pages or websockets a minute: a
    # burst from one address leaves the other seats to the others (delaylab/serve/guards.py)
    "DashboardServer.client_pages_loading": 4,
    "DashboardServer.client_requests_per_minute": 60,
    # two preheated kernels per notebook (voila.json: one): a class opening the five panels at
    # once is served by kernels that executed their notebook beforehand (memory: README)
    "VoilaConfiguration.default_pool_size": 2,
    "DashboardKernelSpecManager.memory_mb": 3072,  # address space per kernel (RLIMIT_AS)
    "MappingKernelManager.cull_connected": True,  # an open but idle tab loses its kernel...
    "MappingKernelManager.cull_idle_timeout": 900,  # ...after 15 minutes without a slider move
    "MappingKernelManager.cull_interval": 10,
    "DashboardKernelManager.cull_unconnected_timeout": 45,  # a closed tab's kernel: 45 s
    "VoilaConfiguration.show_tracebacks": False,
    "VoilaConfiguration.strip_sources": True,
    "DashboardServer.compress": True,  # visitors over a network: far fewer bytes (benchmarks/RESULTS.md)
}


def defaults(given=None) -> dict:
    """What every dashboard server sets unless its command line (``given``: option -> value) says
    otherwise: kernels that talk to the server over Unix sockets (files in the server's private
    temporary folder), not TCP ports on 127.0.0.1. jupyter_client picks a kernel's five ports as
    free a moment before the kernel binds them, and on a busy machine another process's outgoing
    connection can take one in between: the kernel then fails to start, and its restarts may
    reuse the ports it cached, so its visitor's page waits for good. Sockets in a folder only the
    server's user can open are also closed to other local users. TCP where there are no Unix
    sockets (Windows) or where their paths would be too long (:func:`unix_sockets_fit`)."""
    given = given or {}
    if "KernelManager.transport" in given:
        return {}
    return {"KernelManager.transport": "ipc"} if unix_sockets_fit(given.get("Voila.connection_dir_root")) else {}


def command_line(argv) -> list:
    """Voila's command line for ``argv``: :func:`defaults` first, and ``--public`` expanded into
    :data:`PUBLIC`; an option given in ``argv`` replaces either's entry. ``--solutions=X`` (or
    ``--solutions X``) is ``--DashboardServer.solutions=X``: which exercises' solutions the
    dashboards show (:mod:`delaylab.exercises.solutions`)."""
    argv = list(argv)
    for i, a in enumerate(argv):
        if a == "--solutions" and i + 1 < len(argv):
            argv[i:i + 2] = [f"--DashboardServer.solutions={argv[i + 1]}"]
            break
        if a.startswith("--solutions="):
            argv[i] = "--DashboardServer.solutions=" + a.split("=", 1)[1]
            break
    given = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    if "--public" in argv:
        i = argv.index("--public")
        argv[i:i + 1] = [f"--{k}={v}" for k, v in PUBLIC.items() if k not in given]
    return [f"--{k}={v}" for k, v in defaults(given).items()] + argv


#: Jupyter data folder holding the "delaylab" Voila template (the text shows while cells execute)
SHARE = Path(__file__).resolve().parent / "share"


def main(argv=None) -> None:
    """``python -m delaylab.serve NOTEBOOK_FOLDER [--public] [Voila options]``"""
    check_voila()
    from .app import DashboardServer  # after the check: app imports Voila

    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in [str(SHARE), os.environ.get("JUPYTER_PATH", "")] if p)
    argv = ["--VoilaConfiguration.template=delaylab", *command_line(sys.argv[1:] if argv is None else argv)]
    DashboardServer.launch_instance(argv)
