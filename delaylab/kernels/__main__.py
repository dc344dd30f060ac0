"""``python -m delaylab.kernels``: compile the kernels into numba's on-disk cache (after
installing), or load them from it, and say which: ``N loaded, M compiled`` and the folder."""

from . import cache_report, enabled, warmup

if __name__ == "__main__":
    if enabled():
        warmup(verbose=True)
        report = cache_report()
        print(f"delaylab kernels: {report['loaded']} loaded from numba's cache, {report['compiled']} compiled, "
              f"in {report['folder']}")
    else:
        print("delaylab kernels are off (numba missing or DELAYLAB_KERNELS=numpy): nothing to compile")
