"""Independent reference implementations of each paper's algorithms: plain per-run Python loops
written from the pseudo-code, sharing nothing with delaylab's policies but the random streams
(common random numbers), so that their regrets must equal the engine's run by run.

One module per paper, named as in ``delaylab.papers``: ``vernade2017``, ``manegueu2020``,
``vernade2020``, ``pikeburke2018``, ``thune2019``. The tests import them as ``oracles.<paper>``
(pytest puts ``tests/`` on the path); the benchmarks time them against the engine.
"""
