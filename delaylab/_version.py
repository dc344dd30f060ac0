"""delaylab's version (read by the package and by the cache's entries, below both)."""

__version__ = "0.1.0"
