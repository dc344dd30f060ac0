"""What ``import delaylab`` does first (importing this module does it): jsonschema imported
without its IRI grammar.

plotly imports nbformat, which imports jsonschema, whose format checks look once, at import, for
``rfc3987_syntax``; when it is installed (Jupyter's own dependencies bring it), importing it
builds its grammar's parser: most of what a notebook's first cell costs (benchmarks/RESULTS.md,
`bench runall`). A notebook that imports delaylab never checks a string against the "iri"
format, so :func:`import_jsonschema_lean` imports jsonschema with ``rfc3987_syntax`` hidden for
that one import: jsonschema then has no "iri" check, as when it is not installed (it is written
to do without it). Nothing else changes: ``import rfc3987_syntax`` still works afterwards. The
dashboards' kernels (:mod:`delaylab.serve.kernel`) skip it for good.
"""

from __future__ import annotations

import sys

#: the module hidden while jsonschema is imported
HIDDEN = "rfc3987_syntax"


def import_jsonschema_lean() -> None:
    """Import jsonschema (if installed and not imported yet) with :data:`HIDDEN` unimportable."""
    if "jsonschema" in sys.modules or HIDDEN in sys.modules:
        return
    sys.modules[HIDDEN] = None  # ``import`` raises ImportError, which jsonschema expects
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        pass
    finally:
        if sys.modules.get(HIDDEN, ...) is None:
            del sys.modules[HIDDEN]


import_jsonschema_lean()
