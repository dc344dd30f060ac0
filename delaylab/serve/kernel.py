"""The kernel the dashboards run: ipykernel, started after three things a shared server needs.

``python -m delaylab.serve.kernel -f <connection file>`` (the dashboards' kernel spec, see
:class:`delaylab.serve.pools.DashboardKernelSpecManager`) does, before the kernel starts:

1. **a memory cap**, when ``DELAYLAB_KERNEL_MEMORY_MB`` is set: ``RLIMIT_AS`` (the address space
   the kernel may map). A visitor's computation that would need more fails with a
   ``MemoryError`` inside that kernel; the server and the other visitors' kernels are untouched.
2. **the on-disk cache of sweeps**: ``DELAYLAB_DEFAULT_CACHE`` (read by :mod:`delaylab.sweep`)
   makes the notebooks' figures at their default values come from the cache, so that a kernel
   executing a notebook for the pool of preheated kernels is ready in seconds, not half a minute.
3. **compiled kernels**: when :mod:`delaylab.warmup` exists, its ``warmup()`` compiles (or loads
   from numba's on-disk cache) every compiled kernel, in a thread beside the starting kernel,
   before a visitor arrives, not on the visitor's first slider move (``DELAYLAB_WARMUP=0``: not).

It also leaves out an import that costs every kernel start much and serves no dashboard
(:data:`SKIPPED_IMPORTS`). Then it runs ipykernel exactly as ``python -m ipykernel_launcher`` does.

``python -m delaylab.serve.kernel --spare [--import-ahead a,b,…]`` is a spare kernel
(:mod:`delaylab.serve.spare`): the same steps, ipykernel imported, the modules named imported
(:func:`delaylab.serve.preimport.import_ahead`), then it waits on its standard input for the
arguments, environment and folder of the page's kernel it becomes (:func:`take_handover`), and
starts that kernel as ``ipykernel_launcher`` does, with :func:`delaylab.serve.preimport.complete`
run once the kernel's shell exists (before extensions, startup files and the first cell).
"""

from __future__ import annotations

import json
import os
import sys
import threading


def set_memory_cap(megabytes: int) -> None:
    """Limit this process's address space to ``megabytes`` MiB (POSIX only; a no-op elsewhere)."""
    try:
        import resource
    except ImportError:  # Windows: no rlimits; the cap is then documented as unavailable
        return
    limit = int(megabytes) * 1024 * 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def warm_up() -> None:
    """Compile delaylab's numba kernels if this version has them (and they are enabled)."""
    try:
        from delaylab.warmup import warmup
    except ImportError:
        return
    try:
        warmup()
    except Exception as exc:  # a failed warm-up costs speed, never the page
        print(f"delaylab: kernel warm-up skipped ({type(exc).__name__}: {exc})", file=sys.stderr)


#: modules a dashboard kernel never needs whose import is costly: jsonschema (imported by plotly
#: through nbformat) checks the "iri" string format with rfc3987_syntax when it is installed, and
#: importing rfc3987_syntax builds its grammar's parser, most of what a kernel's imports cost
#: (benchmarks/RESULTS.md), spent again by every kernel. No
#: kernel validates IRIs against a schema: jsonschema then simply has no "iri" check (it is
#: written to do without rfc3987_syntax).
SKIPPED_IMPORTS = ("rfc3987_syntax",)


def skip_costly_imports() -> None:
    """Make :data:`SKIPPED_IMPORTS` unimportable in this process (``import`` raises ImportError,
    which their importers expect when they are not installed)."""
    for name in SKIPPED_IMPORTS:
        sys.modules.setdefault(name, None)


def take_handover(warming: threading.Thread | None) -> None:
    """A spare kernel (``--spare``, :mod:`delaylab.serve.spare`), its imports done: say so (once
    ``warming``, the warm-up, has finished too) on the pipe the server gave it, then wait for the
    one line that makes it a page's kernel, and take that kernel's arguments, environment and
    working folder as its own. Exits when the server closes its standard input without a word
    (the server stopped, or it dropped this spare)."""
    from delaylab.serve.spare import READY, READY_FD

    fd = os.environ.pop(READY_FD, "")
    if fd.isdigit():
        def announce(fd=int(fd)):
            if warming is not None:
                warming.join()
            try:
                os.write(fd, READY)
            except OSError:  # the server no longer listens: it has handed this kernel over
                pass
            finally:
                os.close(fd)

        threading.Thread(target=announce, name="delaylab-spare-ready", daemon=True).start()
    line = sys.stdin.buffer.readline()
    if not line.strip():
        sys.exit(0)
    message = json.loads(line)
    if message.get("cwd"):
        os.chdir(message["cwd"])
    os.environ.clear()
    os.environ.update(message["env"])
    sys.argv = [sys.argv[0], *message["args"]]
    memory = os.environ.get("DELAYLAB_KERNEL_MEMORY_MB")
    if memory:
        set_memory_cap(int(memory))


#: the spare's argument naming the modules it imports before its page (comma-separated)
AHEAD = "--import-ahead"


def main() -> None:
    spare = sys.argv[1:2] == ["--spare"]
    ahead = sys.argv[sys.argv.index(AHEAD) + 1].split(",") if spare and AHEAD in sys.argv[:-1] else []
    memory = os.environ.get("DELAYLAB_KERNEL_MEMORY_MB")
    if memory:
        set_memory_cap(int(memory))
    skip_costly_imports()
    warming = None
    if os.environ.get("DELAYLAB_WARMUP", "1") != "0":
        # beside the kernel, not before it: a first compilation (numba's cache empty) may take
        # longer than a client waits for a new kernel to answer; numba's lock keeps it correct
        warming = threading.Thread(target=warm_up, name="delaylab-warmup", daemon=True)
        warming.start()
    if sys.path and sys.path[0] in ("", os.getcwd()):  # as ipykernel_launcher: not the cwd first
        del sys.path[0]
    from ipykernel import kernelapp

    if not spare:
        kernelapp.launch_new_instance()
        return
    from . import preimport

    ahead = [m for m in ahead if m]
    imported, said = preimport.import_ahead(ahead) if ahead else ([], [])
    take_handover(warming)
    if said:  # what the page's first cell would have shown: a kernel started afresh shows it
        print(f"delaylab: the spare's imports said something; the page's kernel starts afresh ({said[0][:200]})",
              file=sys.stderr)
        os.execv(sys.executable, [sys.executable, "-m", __spec__.name, *sys.argv[1:]])
    # as kernelapp.launch_new_instance(), with what the modules imported ahead would have done
    # in this kernel done once its shell exists, before anything else runs in it (extensions,
    # startup files, the first cell)
    app = kernelapp.IPKernelApp.instance()
    init_shell = app.init_shell

    def init_shell_and_complete():
        init_shell()
        preimport.complete(imported)

    app.init_shell = init_shell_and_complete
    app.initialize()
    app.start()


if __name__ == "__main__":
    main()
