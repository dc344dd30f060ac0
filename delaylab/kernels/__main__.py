"""``python -m delaylab.kernels``: compile the kernels into numba's on-disk cache (after installing)."""

from . import enabled, warmup

if __name__ == "__main__":
    if enabled():
        warmup(verbose=True)
    else:
        print("delaylab kernels are off (numba missing or DELAYLAB_KERNELS=numpy): nothing to compile")
