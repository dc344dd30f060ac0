"""The course site: every notebook readable and explorable with no server.

``python3 tasks.py book [--out DIR]`` (or ``python -m delaylab.site``) builds a static site with
Jupyter Book 1.x: one page per notebook, prose and formulas (MathML), code folded, every paper
figure at the paper's scale as interactive plotly, every live panel as an explorable whose main
controls are precomputed and switched by native range inputs in the page, exercises with their statement and a
link to do them live (never their solutions), and a launch bar on each page (Binder, a JupyterHub,
the notebook's download). The modules:

* :mod:`.config` — where the live links point (``[tool.delaylab.site]`` in pyproject.toml);
* :mod:`.transform` — the notebooks as the site shows them, keyed on cell metadata and tags;
* :mod:`.kernel` — what a notebook displays, written as static HTML in the build's kernels;
* :mod:`.static` — static figures and explorables (plotly JSON, slider steps, recordings);
* :mod:`.build` — the whole build, and its report.

Jupyter Book and its Sphinx stack are the ``site`` extra (``pip install -e ".[site]"``), needed only
to build the site, never by the workbook itself.
"""
