"""``python -m delaylab.kernels``: the same as ``python -m delaylab.warmup`` (compile the kernels
into numba's on-disk cache after installing, or load them from it), then say which: ``N loaded,
M compiled`` and the folder (a hub's student whose kernels compiled did not get the installed ones)."""

import runpy

from . import cache_report, enabled

if __name__ == "__main__":
    runpy.run_module("delaylab.warmup", run_name="__main__", alter_sys=True)
    if enabled():
        report = cache_report()
        print(f"delaylab kernels: {report['loaded']} loaded from numba's cache, {report['compiled']} compiled, "
              f"in {report['folder']}")
