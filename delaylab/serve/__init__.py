"""Serving the notebooks as Voila dashboards: ``python -m delaylab.serve notebooks/`` (what
``python3 tasks.py dashboard`` runs). See :mod:`delaylab.serve.app` for the server and
:mod:`delaylab.serve.kernel` for the kernels it starts."""
