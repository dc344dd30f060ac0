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


#: TeX commands latex2mathml (3.x) writes out as text (``<mi>\\arg</mi>``, ``<mo>\\lceil</mo>``):
#: the characters or operator names they stand for
SYMBOLS = {"lceil": "\u2308", "rceil": "\u2309", "lfloor": "\u230a", "rfloor": "\u230b", "langle": "\u27e8",
           "rangle": "\u27e9", "lvert": "|", "rvert": "|", "lVert": "\u2016", "rVert": "\u2016"}
OPERATORS = ("arg", "deg", "det", "dim", "gcd", "hom", "ker", "Pr", "sgn")

_LEFT_AS_TEXT = re.compile(r"<(mi|mo|mtext)([^>]*)>\\([A-Za-z]+)</\1>")


class UnreadableFormula(ValueError):
    """A formula whose conversion would leave TeX on the page."""


def _no_tex_left(mathml: str, tex: str) -> str:
    """latex2mathml's output with the commands it wrote out as text (:data:`SYMBOLS`,
    :data:`OPERATORS`) turned into what they stand for; :class:`UnreadableFormula` if TeX remains."""
    def fix(m):
        tag, attrs, name = m.groups()
        if name in SYMBOLS:
            return f"<mo{attrs}>{SYMBOLS[name]}</mo>"
        if name in OPERATORS:
            return f"<mi{attrs if tag == 'mi' else ''}>{name}</mi>"
        return m.group(0)

    mathml = _LEFT_AS_TEXT.sub(fix, mathml)
    left = re.findall(r">[^<]*\\[A-Za-z]+[^<]*<", mathml)
    if left:
        raise UnreadableFormula(f"{tex!r}: {left[0][1:-1]!r} would be left as TeX")
    return mathml


def tex_to_mathml(tex: str, display: bool = False) -> str:
    """One formula as a ``<math>`` element on one line, safe to place inside markdown, its TeX
    kept as the element's ``alttext`` (what a screen reader reads).

    No ``xmlns``: an HTML page needs none (the parser puts ``<math>`` in MathML's namespace), and
    with one, nbconvert's heading anchors (which re-serialise a heading with ElementTree) wrote
    ``<ns0:math>``, which a browser shows as its bare text ("N~ and θ^=S/N~")."""
    mathml = convert(tex.strip(), display="block" if display else "inline")
    mathml = mathml.replace("\n", " ").replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "")
    mathml = _no_tex_left(mathml, tex)
    label = spoken(mathml)
    if label:  # the formula's accessible name: what a screen reader with no MathML support says
        mathml = mathml.replace("<math ", f'<math aria-label="{html.escape(label, quote=True)}" ', 1)
    # the text between tags, where markdown would still read its signs
    mathml = re.sub(r">([^<]+)<", lambda m: ">" + m.group(1).translate(_MARKDOWN_SIGNS) + "<", mathml)
    # the alternative text a screen reader or a copy gets: the TeX itself
    return mathml.replace("<math ", f'<math alttext="{html.escape(tex.strip(), quote=True)}" ', 1)


GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon", "ζ": "zeta",
         "η": "eta", "θ": "theta", "ϑ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu",
         "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi", "ϕ": "phi",
         "χ": "chi", "ψ": "psi", "ω": "omega", "Γ": "capital gamma", "Δ": "capital delta", "Θ": "capital theta",
         "Λ": "capital lambda", "Σ": "capital sigma", "Φ": "capital phi", "Ψ": "capital psi", "Ω": "capital omega"}
WORDS = {"=": "equals", "+": "plus", "-": "minus", "−": "minus", "±": "plus or minus", "<": "less than",
         ">": "greater than", "≤": "less than or equal to", "≥": "greater than or equal to", "≠": "not equal to",
         "≈": "approximately", "∼": "distributed as", "~": "tilde", "×": "times", "⋅": "times", "·": "times",
         "∗": "star", "*": "star", "/": "over", "∑": "sum", "∏": "product", "∫": "integral", "∈": "in",
         "∉": "not in", "⊂": "subset of", "⊆": "subset of", "∪": "union", "∩": "intersection", "→": "to",
         "↦": "maps to", "⇒": "implies", "∞": "infinity", "∀": "for all", "∃": "there is", "∂": "partial",
         "∇": "nabla", "|": "bar", "‖": "norm", "…": "dots", "⋯": "dots", "′": "prime",
         "⌈": "ceiling of", "⌉": "end ceiling", "⌊": "floor of", "⌋": "end floor", "⟨": "angle bracket",
         "⟩": "end angle bracket", "∣": "given", "¬": "not", "∧": "and", "∨": "or", "ℝ": "the reals",
         "𝔼": "expectation", "ℙ": "probability", "∝": "proportional to", "≡": "equivalent to", "≪": "much less than",
         "≫": "much greater than"}
ACCENTS = {"^": "hat", "ˆ": "hat", "~": "tilde", "˜": "tilde", "¯": "bar", "‾": "bar", "_": "bar", "→": "vector",
           "˙": "dot", ".": "dot", "¨": "double dot", "⏞": "brace", "⏟": "brace"}


def spoken(mathml: str) -> str:
    """A formula (our ``<math>`` element) as words, the way one reads it aloud: "theta hat equals
    S over N tilde", "T to the power 3 over 4", "square root of fraction 2 log T over N end
    fraction". Empty if the markup cannot be read (the formula then has no name of its own)."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(mathml)
    except ET.ParseError:
        return ""

    def text(e) -> str:
        t = "".join(e.itertext()).strip()
        return " ".join(GREEK.get(ch, ch) for ch in t) if len(t) <= 2 and any(ch in GREEK for ch in t) else t

    def simple(e) -> bool:
        kids = [k for k in e if k.tag != "annotation"]
        return e.tag in ("mi", "mn", "mtext") or (e.tag == "mrow" and len(kids) == 1 and simple(kids[0]))

    def say(e) -> str:
        tag, kids = e.tag, list(e)
        if tag in ("mi", "mn", "mtext", "ms"):
            t = text(e)
            return GREEK.get(t, t)
        if tag == "mo":
            t = "".join(e.itertext()).strip()
            return WORDS.get(t, GREEK.get(t, t))
        if tag == "mspace":
            return ""
        parts = [say(k) for k in kids]
        big = parts[0] in ("sum", "product", "integral", "union", "intersection")
        if tag == "msub" and len(parts) == 2:
            if parts[0].split(" ")[-1] in ("max", "min", "sup", "inf", "lim") or big:
                return f"{parts[0]} over {parts[1]} of" if big else f"{parts[0]} over {parts[1]}"
            return f"{parts[0]} sub {parts[1]}"
        if tag == "msup" and len(parts) == 2:
            power = {"2": "squared", "3": "cubed", "′": "prime", "*": "star", "star": "star", "T": "transpose"}.get(parts[1])
            return f"{parts[0]} {power}" if power else f"{parts[0]} to the power {parts[1]}"
        if tag in ("msubsup", "munderover") and len(parts) == 3 and big:
            return f"{parts[0]} from {parts[1]} to {parts[2]} of"
        if tag == "msubsup" and len(parts) == 3:
            return f"{parts[0]} sub {parts[1]} to the power {parts[2]}"
        if tag == "mfrac" and len(parts) == 2:
            if simple(kids[0]) and simple(kids[1]):
                return f"{parts[0]} over {parts[1]}"
            return f"fraction {parts[0]} over {parts[1]} end fraction"
        if tag == "msqrt":
            return f"square root of {' '.join(parts)}" + ("" if len(kids) == 1 and simple(kids[0]) else " end root")
        if tag == "mroot" and len(parts) == 2:
            return f"root {parts[1]} of {parts[0]} end root"
        if tag == "mover" and len(parts) == 2:
            accent = ACCENTS.get("".join(kids[1].itertext()).strip())
            return f"{parts[0]} {accent}" if accent else f"{parts[0]} over {parts[1]}"
        if tag == "munder" and len(parts) == 2:
            return f"{parts[0]} over {parts[1]}" if parts[0] in ("max", "min", "arg", "sup", "inf", "lim") \
                else f"{parts[0]} under {parts[1]}"
        if tag == "munderover" and len(parts) == 3:
            return f"{parts[0]} from {parts[1]} to {parts[2]} of"
        if tag == "mtr":
            return ", ".join(p for p in parts if p)
        if tag == "mtable":
            return "; ".join(p for p in parts if p)
        return " ".join(p for p in parts if p)

    try:
        words = say(root)
    except RecursionError:
        return ""
    return re.sub(r"\s+", " ", words).strip()


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
