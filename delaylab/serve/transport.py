"""Kernels on Unix sockets (ZeroMQ's ``ipc`` transport) wherever their paths fit.

Over TCP, jupyter_client picks a kernel's five ports as free a moment before the kernel binds
them, and on a busy machine another process can take one in between (the kernel then dies, and
its restarts may keep the port it cached); ipykernel 7 also warns at every start that TCP sends
everything in plain text. Unix sockets have neither problem, and only the folder's owner can
open them. Their paths must fit in ``sun_path``: :func:`socket_paths_fit` is the one check, used
by the dashboards' server (:func:`unix_sockets_fit`), by delaylab's Jupyter
server extension for JupyterLab's kernels (:mod:`delaylab.serve.extension`) and by the notebooks'
tests (:class:`IPCKernelManager`, for nbval).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid

from jupyter_client.manager import AsyncKernelManager, KernelManager
from jupyter_core.utils import run_sync

#: the longest path a Unix socket can have: ``sun_path`` holds 108 bytes on Linux and 104 on
#: macOS and the BSDs, its closing NUL included
SOCKET_PATH_MAX = 103


def longest_socket_path(folder) -> str:
    """The longest socket path jupyter_client makes for a kernel whose connection file is in
    ``folder``: ``<folder>/kernel-<uuid>-ipc-NN`` (its sockets are numbered from 1)."""
    return os.path.join(folder, f"kernel-{uuid.UUID(int=0)}-ipc-99")


def socket_paths_fit(folder) -> bool:
    """Whether kernels whose connection files are in ``folder`` can use Unix sockets: POSIX, and
    :func:`longest_socket_path` within :data:`SOCKET_PATH_MAX` bytes."""
    return os.name == "posix" and len(os.fsencode(longest_socket_path(folder))) <= SOCKET_PATH_MAX


def unix_sockets_fit(root=None) -> bool:
    """Whether the dashboards' kernels' Unix sockets fit in ``sun_path`` on this system: POSIX,
    and the longest socket path Voila and jupyter_client make,
    ``<root>/voila_XXXXXXXX/kernel-<uuid>-ipc-NN``, within :data:`SOCKET_PATH_MAX` bytes
    (:func:`socket_paths_fit`). ``root`` is Voila's ``connection_dir_root``, the temporary folder
    by default (on macOS a long one under ``/var/folders``, where it does not fit)."""
    return socket_paths_fit(os.path.join(root or tempfile.gettempdir(), "voila_" + "x" * 8))


def private_folder() -> str | None:
    """A new folder only this user can open (``tempfile.mkdtemp``: mode 0700) for one kernel's
    connection file and sockets, if Unix sockets fit there; else None (nothing created)."""
    probe = os.path.join(tempfile.gettempdir(), "delaylab-kernel-" + "x" * 8)
    if not socket_paths_fit(probe):
        return None
    return tempfile.mkdtemp(prefix="delaylab-kernel-")


class PrivateSockets:
    """What :class:`IPCKernelManager` and :class:`AsyncIPCKernelManager` add to jupyter_client's
    kernel managers: the kernel talks over Unix sockets in a private folder of its own
    (:func:`private_folder`, removed with the kernel's files: :meth:`remove_folder`), where their
    paths fit; elsewhere TCP, as jupyter_client does."""

    def __init__(self, **kwargs):
        self.socket_folder = None
        if "transport" not in kwargs and "connection_file" not in kwargs:
            self.socket_folder = private_folder()
            if self.socket_folder is not None:
                kwargs["transport"] = "ipc"
                kwargs["connection_file"] = os.path.join(self.socket_folder, f"kernel-{uuid.uuid4()}.json")
        super().__init__(**kwargs)

    # (the sockets' paths, ``ip``, are then ``<connection file without .json>-ipc-N``:
    # jupyter_client's default for the ipc transport)

    def remove_folder(self) -> None:
        if self.socket_folder is not None:
            shutil.rmtree(self.socket_folder, ignore_errors=True)


class IPCKernelManager(PrivateSockets, KernelManager):
    """jupyter_client's ``KernelManager`` on Unix sockets (:class:`PrivateSockets`). For clients
    that create their kernel managers without any configuration, such as nbval (see ``conftest.py``)."""

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            self.remove_folder()

    cleanup_resources = run_sync(_async_cleanup_resources)


class AsyncIPCKernelManager(PrivateSockets, AsyncKernelManager):
    """jupyter_client's ``AsyncKernelManager`` on Unix sockets (:class:`PrivateSockets`): with it,
    nbclient's clients are asynchronous and notice within a second that their kernel died (with the
    synchronous one, a client waiting for the kernel's output waits for good)."""

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            self.remove_folder()

    cleanup_resources = _async_cleanup_resources
