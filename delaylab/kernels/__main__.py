"""``python -m delaylab.kernels``: the same as ``python -m delaylab.warmup`` (compile the kernels
into numba's on-disk cache after installing)."""

import runpy

if __name__ == "__main__":
    runpy.run_module("delaylab.warmup", run_name="__main__", alter_sys=True)
