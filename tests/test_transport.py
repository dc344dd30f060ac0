"""Kernels on Unix sockets where their paths fit (delaylab/serve/transport.py): the one path check,
and the kernel manager that nbval's kernels get (conftest.py)."""

from __future__ import annotations

import os
import socket
import tempfile
import uuid
from pathlib import Path

import pytest

from delaylab.serve import app, transport

posix_only = pytest.mark.skipif(os.name != "posix", reason="Unix sockets: POSIX only (TCP on Windows)")


@posix_only
def test_the_longest_path_admitted_binds_and_one_byte_more_is_refused():
    with tempfile.TemporaryDirectory(prefix="dl", dir="/tmp") as tmp:
        folder = os.path.join(tmp, "f")
        while transport.socket_paths_fit(folder + "f"):
            folder += "f"
        assert transport.socket_paths_fit(folder) and not transport.socket_paths_fit(folder + "f")
        longest = Path(transport.longest_socket_path(folder))
        assert len(os.fsencode(longest)) == transport.SOCKET_PATH_MAX
        assert longest.name == f"kernel-{uuid.UUID(int=0)}-ipc-99"
        longest.parent.mkdir()
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(str(longest))
    # the dashboards' server checks with the same function, for Voila's voila_XXXXXXXX folders
    assert transport.unix_sockets_fit("/tmp") == transport.socket_paths_fit("/tmp/voila_xxxxxxxx")
    assert app.SOCKET_PATH_MAX == transport.SOCKET_PATH_MAX


@posix_only
def test_a_kernel_of_the_ipc_manager_talks_over_sockets_in_a_folder_removed_with_it():
    km = transport.IPCKernelManager(kernel_name="python3")
    folder = Path(km.connection_file).parent
    assert km.transport == "ipc" and folder.name.startswith("delaylab-kernel-")
    assert oct(folder.stat().st_mode & 0o777) == "0o700"  # only this user can connect
    km.start_kernel()
    client = km.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        said = []
        reply = client.execute_interactive("import json, ipykernel.connect; "
                                           "print(json.loads(ipykernel.connect.get_connection_info())['transport'])",
                                           timeout=60, output_hook=lambda m: said.append(m["content"].get("text", "")))
        assert reply["content"]["status"] == "ok" and "".join(said).strip() == "ipc"  # the kernel's own view
        sockets = sorted(p.name for p in folder.iterdir() if "-ipc-" in p.name)
        assert len(sockets) == 5 and all(p.startswith(Path(km.connection_file).stem) for p in sockets)
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)
    assert not folder.exists()


@posix_only
def test_the_ipc_manager_falls_back_to_tcp_where_the_paths_would_be_too_long(monkeypatch):
    # macOS's temporary folder, /var/folders/xx/<28 characters>/T/: no room for the socket paths
    monkeypatch.setattr(tempfile, "tempdir", "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T")
    km = transport.IPCKernelManager(kernel_name="python3")
    assert km.transport == "tcp" and km.socket_folder is None
    # a transport chosen by the caller is the caller's
    monkeypatch.setattr(tempfile, "tempdir", None)
    assert transport.IPCKernelManager(kernel_name="python3", transport="tcp").transport == "tcp"
