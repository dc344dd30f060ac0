"""What a dashboard kernel costs the server (`python3 tasks.py bench serve`): per notebook,
a fresh dashboard kernel (``python -m delaylab.serve.kernel``, reading the sweep cache of
$DELAYLAB_CACHE or ~/.cache/delaylab: fill it first with ``python -m delaylab.serve.precompute
notebooks``, with the same code, or the kernels compute the figures and that is what is timed)
from start to its notebook executed, as a pool refill does it: the wall seconds until it
answers, until the notebook has executed, the CPU seconds the kernel process used (the cores a
refill takes from the visitors' pages) and its resident memory afterwards (what one kernel in
the pool or with a visitor costs). Then the same
for every panel notebook started at once (a burst of refills). Wall times depend on the machine's
load; CPU seconds and memory do not, much."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import table

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))


def _proc(pid: int) -> tuple[float, float]:
    """CPU seconds (user + system, all threads) and resident MiB of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    rss = int(fields[21]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return cpu, rss


async def run_kernel(path: Path, ksm) -> dict:
    """Start a dashboard kernel, execute ``path`` in it as Voila does (cells tagged "hide" left
    out), and return its timings, CPU seconds and memory."""
    import nbformat
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if "hide" not in c.get("metadata", {}).get("tags", [])]
    from delaylab.serve.cli import defaults

    # over the transport the server gives its kernels (Unix sockets where they fit), the
    # connection file and sockets in a private temporary folder, as Voila keeps them
    folder = tempfile.mkdtemp(prefix="voila_")
    km = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=ksm,
                            transport=defaults().get("KernelManager.transport", "tcp"),
                            connection_file=os.path.join(folder, f"kernel-{uuid.uuid4()}.json"))
    t0 = time.perf_counter()
    await km.start_kernel(cwd=str(path.parent))
    client = NotebookClient(nb, km=km, timeout=600, resources={"metadata": {"path": str(path.parent)}})
    try:
        async with client.async_setup_kernel(cwd=str(path.parent)):
            ready = time.perf_counter() - t0
            for index, cell in enumerate(nb.cells):
                await client.async_execute_cell(cell, index)
            executed = time.perf_counter() - t0
            cpu, rss = _proc(km.provisioner.process.pid)
    finally:
        if await km.is_alive():
            await km.shutdown_kernel(now=True)
        shutil.rmtree(folder, ignore_errors=True)
    return {"ready_s": ready, "executed_s": executed, "cpu_s": cpu, "rss_mb": rss}


def main():
    from delaylab.serve.app import DashboardKernelSpecManager

    ksm = DashboardKernelSpecManager()  # the sweep cache of $DELAYLAB_CACHE (or ~/.cache/delaylab)
    print(f"sweep cache: {ksm.cache_folder}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
          flush=True)
    for path in NOTEBOOKS:
        r = asyncio.run(run_kernel(path, ksm))
        name = path.stem[:24]
        table.row(f"one kernel, {name}: answers after", r["ready_s"], "s")
        table.row(f"one kernel, {name}: notebook executed after", r["executed_s"], "s")
        table.row(f"one kernel, {name}: CPU used (start + notebook)", r["cpu_s"], "s")
        table.row(f"one kernel, {name}: resident memory", r["rss_mb"], "MiB")

    async def burst():
        return await asyncio.gather(*(run_kernel(p, ksm) for p in NOTEBOOKS))

    t0 = time.perf_counter()
    results = asyncio.run(burst())
    table.row(f"{len(NOTEBOOKS)} kernels started at once: all executed after", time.perf_counter() - t0, "s")
    table.row(f"{len(NOTEBOOKS)} kernels started at once: CPU used in all", sum(r["cpu_s"] for r in results), "s")
    print(f"load average afterwards {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
