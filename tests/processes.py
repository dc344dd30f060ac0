"""A server process the tests and benchmarks start: stopping it in order, and its children."""

from __future__ import annotations

import subprocess
from pathlib import Path


def stop(proc: subprocess.Popen, wait: float = 30) -> None:
    """SIGTERM (the server stops its kernels in order), then SIGKILL if it is still running after
    ``wait`` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(wait)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def children(pid: int) -> set[int]:
    """Live (not zombie) processes whose parent is ``pid``, read from /proc: a server's kernels."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found
