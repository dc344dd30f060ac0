"""``import delaylab`` imports jsonschema without rfc3987_syntax's grammar (delaylab.startup):
a notebook's first cell no longer builds a parser it never uses; nothing else changes."""

import subprocess
import sys

import pytest

CHECK = """
import sys
import delaylab.papers.vernade2017, delaylab.viz.plots  # plotly, nbformat and jsonschema with them
import jsonschema
print("rfc3987_syntax" in sys.modules, "iri" in jsonschema.FormatChecker.checkers)
import rfc3987_syntax  # still importable afterwards
print(rfc3987_syntax.__name__)
"""


def test_a_notebook_s_imports_leave_out_the_iri_grammar_and_nothing_else():
    pytest.importorskip("rfc3987_syntax", reason="only costly when installed (Jupyter's dependencies bring it)")
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False", "rfc3987_syntax"], out


def test_jsonschema_imported_first_keeps_its_iri_check():
    # a process that imported jsonschema before delaylab keeps it as it was
    code = "import jsonschema, delaylab; print('iri' in jsonschema.FormatChecker.checkers)"
    pytest.importorskip("rfc3987_syntax")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "True"
