"""The notebooks' formulas as MathML, written into a dashboard's HTML by the server.

In JupyterLab and in plain Voila, the text's formulas (``$…$`` and ``$$…$$``, TeX) are set by
MathJax in the browser, once its scripts have loaded: on a dashboard page the visitor read raw TeX
(``$\\hat\\mu_i$``) for the first 2–3 seconds, the very seconds in which the page shows its text
while the figures load. Browsers draw MathML themselves (MathML Core: Chromium 109+, Firefox,
Safari), so the dashboards' server converts every formula of a markdown cell to MathML once, when
it renders the page (:class:`MathMLPreprocessor`, enabled in ``voila.json``): the formulas are
right from the first paint, and MathJax, which Voila still loads, finds nothing left to set. The
pages are lighter too: the browser's main thread no longer typesets (benchmarks/RESULTS.md has the
comparison). The notebooks themselves keep their TeX.

A formula is found the way a reader of the markdown expects: ``$$…$$`` (display) and ``$…$``
(inline), not inside code (fenced blocks or backtick spans), not an escaped ``\\$``. A formula the
converter cannot read is left as TeX for MathJax, so a page never loses text.
"""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert
from nbconvert.preprocessors import Preprocessor

# Pieces of markdown, in the order they are tried at each position: code first (its dollars are
# not formulas), then an escaped dollar, then display and inline formulas.
_TOKEN = re.compile(
    r"(?P<fence>^[ ]{0,3}(?P<ticks>`{3,}|~{3,})[^\n]*\n.*?(?:^[ ]{0,3}(?P=ticks)[ \t]*$|\Z))"
    r"|(?P<code>(?P<run>`+).+?(?<!`)(?P=run)(?!`))"
    r"|(?P<escaped>\\\$)"
    r"|\$\$(?P<display>.+?)\$\$"
    r"|\$(?P<inline>[^$\s](?:[^$\n]|\n(?!\s*\n))*?)(?<![\s\\])\$",
    re.MULTILINE | re.DOTALL,
)

# Characters markdown would read as emphasis, code, links or escapes inside MathML's text.
_MARKDOWN_SIGNS = str.maketrans({c: f"&#{ord(c)};" for c in "*_`[]\\~|"})


def tex_to_mathml(tex: str, display: bool = False) -> str:
    """One formula as a ``<math>`` element on one line, safe to place inside markdown, its TeX
    kept as the element's ``alttext`` (what a screen reader reads)."""
    mathml = convert(tex.strip(), display="block" if display else "inline")
    mathml = mathml.replace("\n", " ")
    # the text between tags, where markdown would still read its signs
    mathml = re.sub(r">([^<]+)<", lambda m: ">" + m.group(1).translate(_MARKDOWN_SIGNS) + "<", mathml)
    # the alternative text a screen reader or a copy gets: the TeX itself
    return mathml.replace("<math ", f'<math alttext="{html.escape(tex.strip(), quote=True)}" ', 1)


def markdown_with_mathml(source: str) -> str:
    """``source`` with each formula outside code replaced by its MathML (:func:`tex_to_mathml`)."""

    def replace(m: re.Match) -> str:
        tex, display = (m.group("display"), True) if m.group("display") is not None else (m.group("inline"), False)
        if tex is None:  # code or an escaped dollar: as it is
            return m.group(0)
        try:
            mathml = tex_to_mathml(tex, display)
        except Exception:  # noqa: BLE001  (a formula the converter cannot read stays TeX, for MathJax)
            return m.group(0)
        return mathml  # inline HTML: a display formula is a block by its own ``display`` attribute

    return _TOKEN.sub(replace, source)


#: Radicals, fractions and big operators need a font with an OpenType MATH table; the generic
#: "math" family may map to one without it (it did on Linux here: square roots too short over a
#: fraction). Written into the page with its first formula, so that every template (the dashboards'
#: and Voila's reveal slides) draws the formulas alike.
MATH_STYLE = """<style>
math { font-family: "STIX Two Math", "Cambria Math", "Latin Modern Math", "DejaVu Math TeX Gyre",
  "Noto Sans Math", math; font-size: 1.05em; }
math[display="block"] { margin: 0.6em 0; }
</style>"""


class MathMLPreprocessor(Preprocessor):
    """Converts the formulas of every markdown cell to MathML (:func:`markdown_with_mathml`); the
    first cell with a formula also carries :data:`MATH_STYLE`."""

    def preprocess(self, nb, resources):
        styled = False
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                source = markdown_with_mathml(cell.source)
                if not styled and "<math " in source:
                    source, styled = f"{source}\n\n{MATH_STYLE}\n", True
                cell.source = source
        return nb, resources
