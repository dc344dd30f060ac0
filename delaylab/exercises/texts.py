"""The exercises' texts with their formulas: MathML in a page, plain text in a terminal.

The strings of an exercise that a student reads after answering — its hints, its feedback
messages, its explanation and its solution (an explain exercise's model answer and points) — may
hold formulas as TeX, the way the notebooks' own text does: inline between single dollars
(``$\\tilde N_k$``) and on a line of their own between double dollars (``$$…$$``). :func:`to_html`
writes them as MathML, which browsers draw themselves (no MathJax, no network: in JupyterLab, on
the dashboards and on the site alike); :func:`to_plain` writes them as plain Unicode text, for a
terminal, a ``repr`` or an assertion message. A literal dollar is written ``\\$``.

Everything else (the student's numbers, the choices of a predict question, code) stays plain
text.
"""

from __future__ import annotations

import html
import re
import unicodedata

#: ``$$…$$`` (display), ``$…$`` (inline: no space just inside the dollars), or an escaped ``\$``
_MATH = re.compile(r"(?P<escaped>\\\$)|\$\$(?P<display>.+?)\$\$|\$(?P<inline>[^$\s](?:[^$]*?[^$\s])?)\$", re.S)


def pieces(text: str):
    """(kind, content) of ``text`` in order: kind "text", "inline" or "display"."""
    pos = 0
    for m in _MATH.finditer(text):
        if m.start() > pos:
            yield "text", text[pos:m.start()]
        if m.group("escaped"):
            yield "text", "$"
        elif m.group("display") is not None:
            yield "display", m.group("display").strip()
        else:
            yield "inline", m.group("inline").strip()
        pos = m.end()
    if pos < len(text):
        yield "text", text[pos:]


def has_math(text: str) -> bool:
    return any(kind != "text" for kind, _ in pieces(text))


def mathml(tex: str, display: bool = False) -> str:
    """One formula as a ``<math>`` element, its TeX kept as ``alttext`` (what a screen reader reads)."""
    from latex2mathml.converter import convert

    out = convert(tex, display="block" if display else "inline").replace("\n", " ")
    return out.replace("<math ", f'<math alttext="{html.escape(tex, quote=True)}" ', 1)


def to_html(text: str) -> str:
    """``text`` as HTML: its prose escaped, its formulas MathML (one the converter cannot read
    stays as its TeX, escaped: never lost)."""
    out = []
    for kind, s in pieces(str(text)):
        if kind == "text":
            out.append(html.escape(s))
            continue
        try:
            out.append(mathml(s, display=kind == "display"))
        except Exception:  # noqa: BLE001 - a formula latex2mathml cannot read: shown as written
            out.append(html.escape(f"${s}$"))
    return "".join(out)


# ------------------------------------------------------------------ plain text
_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "eta": "η",
    "theta": "θ", "vartheta": "ϑ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
    "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    "sum": "Σ", "prod": "∏", "int": "∫", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠",
    "approx": "≈", "cdot": "·", "times": "×", "infty": "∞", "to": "→", "mapsto": "↦", "in": "∈", "propto": "∝",
    "wedge": "∧", "vee": "∨", "langle": "⟨", "rangle": "⟩", "lVert": "‖", "rVert": "‖", "|": "‖", "dots": "…",
    "ldots": "…", "cdots": "⋯", "top": "ᵀ", "pm": "±", "partial": "∂", "nabla": "∇", "sim": "∼",
    "leftarrow": "←", "rightarrow": "→", "Rightarrow": "⇒", "mid": "|", "setminus": "∖", "subset": "⊂",
    "cap": "∩", "cup": "∪", "forall": "∀", "exists": "∃", "ell": "ℓ", "ast": "∗", "circ": "∘", "prime": "′",
    "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "{": "{", "}": "}", "%": "%", "$": "$", "_": "_",
    "ln": "ln", "log": "log", "exp": "exp", "min": "min", "max": "max", "arg": "arg", "sqrt": "√",
    ",": " ", ";": " ", ":": " ", "!": "", "quad": " ", "qquad": "  ", " ": " ", "left": "", "right": "",
    "big": "", "Big": "", "bigl": "", "bigr": "", "Bigl": "", "Bigr": "", "displaystyle": "",
}
_ACCENTS = {"hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303", "bar": "\u0304",
            "overline": "\u0304", "dot": "\u0307", "vec": "\u20d7"}
_FONTS = ("mathbb", "mathrm", "mathbf", "mathit", "mathcal", "text", "textrm", "operatorname", "boldsymbol")
_SUP = dict(zip("0123456789+-−=()nitaebdklmoprsuvxyTW", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱᵗᵃᵉᵇᵈᵏˡᵐᵒᵖʳˢᵘᵛˣʸᵀᵂ"))
_SUP.update({"α": "ᵅ", "β": "ᵝ", "γ": "ᵞ", "δ": "ᵟ", "θ": "ᶿ", "φ": "ᵠ", "χ": "ᵡ", "ᵀ": "ᵀ", "·": "˙"})
_SUB = dict(zip("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))
_SUB.update({"β": "ᵦ", "γ": "ᵧ", "ρ": "ᵨ", "φ": "ᵩ", "χ": "ᵪ"})
#: a control word, a control symbol, a sign, spaces, a character
_TOKEN = re.compile(r"\\([A-Za-z]+)|\\(.)|([{}^_])|(\s+)|(.)", re.S)
_OPERATORS = ("ln", "log", "exp", "min", "max", "arg")


class _Tex:
    """A small reader of the TeX the exercises use, writing it as plain Unicode."""

    def __init__(self, tex: str):
        self.tokens = [m for m in _TOKEN.finditer(tex)]
        self.i = 0

    def _next(self):
        m = self.tokens[self.i]
        self.i += 1
        return m

    def group(self) -> str:
        """The next argument: a {…} group or one token."""
        while self.i < len(self.tokens) and self.tokens[self.i].group(4):
            self.i += 1
        if self.i >= len(self.tokens):
            return ""
        m = self.tokens[self.i]
        if m.group(3) == "{":
            self.i += 1
            return self.read(until="}")
        return self.atom()

    def atom(self) -> str:
        m = self._next()
        word, symbol, special, space, char = m.groups()
        cmd = word or symbol
        if space:
            return " "
        if char is not None:
            return "−" if char == "-" else char
        if special == "{":
            return self.read(until="}")
        if special == "}":
            return ""
        if special in ("^", "_"):
            arg = self.group()
            return _script(arg, _SUP if special == "^" else _SUB, "^" if special == "^" else "_")
        if cmd in _ACCENTS:
            arg = self.group()
            return unicodedata.normalize("NFC", arg[:1] + _ACCENTS[cmd] + arg[1:]) if arg else ""
        if cmd in _FONTS:
            return self.group()
        if cmd in ("frac", "tfrac", "dfrac"):
            a, b = self.group(), self.group()
            return f"{_wrap(a)}/{_wrap(b)}"
        if cmd == "sqrt":
            a = self.group()
            return f"√{_wrap(a)}"
        if cmd in _OPERATORS:
            return cmd + " "
        return _SYMBOLS.get(cmd, cmd)

    def read(self, until: str | None = None) -> str:
        out = []
        while self.i < len(self.tokens):
            m = self.tokens[self.i]
            if until and m.group(3) == until:
                self.i += 1
                break
            out.append(self.atom())
        return "".join(out)


def _wrap(s: str) -> str:
    s = s.strip()
    return s if len(s) <= 1 or re.fullmatch(r"[\w.]+|\(.*\)", s) else f"({s})"


def _script(arg: str, table: dict, sign: str) -> str:
    arg = arg.strip()
    if arg and all(c in table for c in arg):
        return "".join(table[c] for c in arg)
    return sign + _wrap(arg)


def tex_to_plain(tex: str) -> str:
    """One formula as plain Unicode text (``\\sum_{v=1}^{T} v^{-\\alpha}`` → ``Σ_(v=1)ᵀ v⁻ᵅ``)."""
    try:
        text = _Tex(tex).read()
    except Exception:  # noqa: BLE001 - never lose a formula: as written
        return tex
    text = re.sub(r"([·∧]) ", r"\1", text)
    text = re.sub(r"(?<![A-Za-z])(ln|log|exp|min|max|arg) (?=[(\s]|$)", r"\1", text)
    return re.sub(r" {2,}", " ", text).strip()


def to_plain(text: str) -> str:
    """``text`` with its formulas as plain Unicode text (a terminal, a repr, an assertion)."""
    return "".join(s if kind == "text" else tex_to_plain(s) for kind, s in pieces(str(text)))


__all__ = ["pieces", "has_math", "mathml", "to_html", "to_plain", "tex_to_plain"]
