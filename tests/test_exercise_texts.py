"""The exercises' texts: formulas as TeX between dollars (the notebooks' convention), drawn as
MathML where a student reads them and as plain Unicode in a terminal; code with no combining
accents (a monospace font draws them beside their letter)."""

import io
import re
import tokenize
from pathlib import Path

import pytest

from delaylab import exercises as ex
from delaylab.exercises.texts import pieces, tex_to_plain, to_html, to_plain

PAPERS = sorted((Path(ex.__file__).parent).glob("p0[1-5].py"))
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f]")  # "\t", "\a", "\b", "\f", "\v", "\r": a TeX command lost to Python
COMBINING = re.compile("[\u0300-\u036f]")


def _texts(eid, who):
    """Every string of an exercise that a student reads after answering, for student ``who``."""
    e, p = ex.get(eid), ex.params(eid, who)
    out = [("hint", h) for h in e.hints]
    out.append(("explanation", e.explanation(p) if callable(e.explanation) else e.explanation))
    if e.given:
        out.append(("given", e.given(p)))
    if e.kind == "explain":
        out += [("model answer", e.solution)] + [("point", x) for x in e.points]
    if e.kind == "predict":
        out += [(f"verdict on {k!r}", ex.check(eid, k, student=who).message) for k in e.choices]
    else:
        out.append(("verdict on the solution", ex.check(eid, ex.solution(eid, who), student=who).message))
        out += [("verdict on a wrong answer", ex.check(eid, w, student=who).message)
                for w in ex.wrong_answers(eid, who)]
    return out


@pytest.mark.parametrize("eid", ex.ids())
def test_every_formula_is_drawn_as_mathml(eid):
    for who in ("", "alice"):
        for what, text in _texts(eid, who):
            assert not CONTROL.search(text), f"{eid} {what}: a control character (a TeX command in a non-raw string?)"
            page = to_html(text)
            for math in re.findall(r"<math.*?</math>", page, re.S):
                body = re.sub(r'alttext="[^"]*"', "", math)
                assert "\\" not in body, f"{eid} {what}: TeX the converter did not read: {math[:200]}"
            assert "$" not in page, f"{eid} {what}: a formula left as TeX: {text[:120]}"
            plain = to_plain(text)
            assert "$" not in plain and "\\" not in plain, f"{eid} {what}: TeX left in the plain text: {plain}"


def test_tex_strings_in_the_sources_are_raw():
    """A TeX command in a string without the ``r`` prefix loses its backslash (``"$\\tau$"`` is a tab)."""
    for path in PAPERS:
        for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
            if tok.type == tokenize.STRING or tok.type == getattr(tokenize, "FSTRING_START", -1):
                prefix = re.match(r"[A-Za-z]*", tok.string).group(0).lower()
                body = tok.string[len(prefix):]
                if "$" in body and "r" not in prefix and re.search(r"(?<!\\)(\\\\)*\\[abfnrtv]", body):
                    pytest.fail(f"{path.name}:{tok.start[0]}: a TeX command lost to a Python escape (write the "
                                f"string raw, r\"…\"): {tok.string[:80]}")


@pytest.mark.parametrize("eid", ex.ids())
def test_code_has_no_combining_accents(eid):
    """Stubs and solutions are code, drawn in a monospace font that sets a combining accent beside
    its letter (θ̂ reads θ ^): they spell such names out (theta_hat)."""
    e = ex.get(eid)
    for what, code in (("stub", e.stub), ("solution", ex.solution_code(eid, student=""))):
        assert not COMBINING.search(code), f"{eid}: a combining accent in its {what}: {code}"


def test_plain_text_and_html():
    assert tex_to_plain(r"\sum_{v=1}^{T} v^{-\alpha}") == "Σᵥ₌₁ᵀ v⁻ᵅ"
    assert tex_to_plain(r"\tilde N_k") == "Ñₖ"
    assert tex_to_plain(r"\sqrt{2\log(2KT^3)/T_i}") == "√(2log(2KT³)/Tᵢ)"
    assert tex_to_plain(r"\frac{\mu}{1-\alpha}") == "μ/(1−α)"
    assert to_plain(r"costs \$5, or $\eta = 1/(4e\beta)$") == "costs $5, or η = 1/(4eβ)"
    page = to_html(r"a <b> and $\hat\theta^W_t$")
    assert page.startswith("a &lt;b&gt; and <math") and 'alttext="\\hat\\theta^W_t"' in page
    assert [k for k, _ in pieces("$$x^2$$ then $y$ and a $ 5 bill")] == ["display", "text", "inline", "text"]
    assert to_html(r"$\frac{1}{$") == "$\\frac{1}{$"  # a formula the converter cannot read stays as written


def test_the_exercises_modules_import_no_circle():
    """Each module of delaylab/exercises imports only modules below it (issue 37: _core ↔ ui)."""
    import ast

    folder = Path(ex.__file__).parent
    graph = {}
    for path in folder.glob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names |= {node.module} if node.module else {a.name for a in node.names}
        graph[path.stem] = {n.split(".")[0] for n in names} & {p.stem for p in folder.glob("*.py")}
    seen, order = set(), []

    def visit(name, stack):
        assert name not in stack, f"an import circle: {' → '.join([*stack, name])}"
        if name in seen:
            return
        for dep in sorted(graph.get(name, ())):
            visit(dep, [*stack, name])
        seen.add(name)
        order.append(name)

    for name in sorted(graph):
        if name != "__init__":
            visit(name, [])
    assert "ui" not in graph["_core"] and "work" not in graph["_core"]
