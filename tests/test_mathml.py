"""The dashboards' formulas as MathML (delaylab/serve/mathml.py): what is a formula, what is not,
and that every formula of every notebook reaches the page as MathML and nothing else."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from nbconvert.filters.markdown_mistune import markdown2html_mistune

from delaylab.serve.mathml import MATH_STYLE, MathMLPreprocessor, markdown_with_mathml, tex_to_mathml

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def html(markdown: str) -> str:
    """The page's HTML for ``markdown`` after the conversion (nbconvert's renderer, as Voila's)."""
    return markdown2html_mistune(markdown_with_mathml(markdown))


def text_outside_code(page: str) -> str:
    return re.sub(r"<code>.*?</code>|<pre>.*?</pre>", "", page, flags=re.S)


def test_inline_and_display_formulas_become_math_elements_with_their_tex_as_alttext():
    page = html(r"The arm $I_t$ converts with $$P(D > m) \le m^{-\alpha}.$$ Done.")
    assert "$" not in page
    inline, display = re.findall(r"<math [^>]*>", page)
    assert 'display="inline"' in inline and 'alttext="I_t"' in inline
    assert 'display="block"' in display and r'alttext="P(D &gt; m) \le m^{-\alpha}."' in display
    assert "<msub><mi>I</mi><mi>t</mi></msub>" in page
    assert page.count("<p>") == 1  # the display formula did not split the paragraph


def test_dollars_in_code_escaped_or_alone_are_not_formulas():
    source = "Run `echo $HOME $PATH` and\n\n```\ncost = $5 + $6\n```\n\nIt costs \\$5, or 5 $ a run; $K$ arms."
    out = markdown_with_mathml(source)
    assert "`echo $HOME $PATH`" in out and "cost = $5 + $6" in out and "\\$5, or 5 $ a run" in out
    assert out.count("<math ") == 1 and 'alttext="K"' in out


def test_markdown_signs_inside_a_formula_stay_mathematics():
    # two starred quantities in one paragraph: markdown must not read the stars as emphasis
    page = html(r"Compare $\mu^*$ with $a_i^*$ and $[x]_+$, or $[a](b)$, $\text{a*b*c}$, $\text{x_y_z}$.")
    assert "<em>" not in page and "<a " not in page and page.count("<math ") == 6
    assert "<mtext>a*b*c</mtext>" in page and "<mtext>x_y_z</mtext>" in page
    assert page.count("<mo>*</mo>") == 2 and "<msubsup><mi>a</mi><mi>i</mi><mo>*</mo></msubsup>" in page


def test_a_formula_the_converter_cannot_read_stays_tex_for_mathjax():
    for broken in (r"$\frac{1}{$", r"$x^$", r"$\left( x$"):
        assert markdown_with_mathml(f"broken {broken} formula, fine $K$") .startswith(f"broken {broken} formula, fine <math ")


def test_one_formula_is_one_line_markdown_cannot_break():
    mathml = tex_to_mathml(r"\sum_{s=t-m}^{t-1} \|A_s\|_{V_t^{-1}}", display=True)
    assert "\n" not in mathml and mathml.startswith('<math alttext="') and mathml.endswith("</math>")
    assert "<munderover>" in mathml


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_formula_in_the_notebooks_reaches_the_page_as_mathml(path):
    nb = json.loads(path.read_text())
    formulas = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"])
        page = text_outside_code(html(source))
        assert "$" not in page, f"{path.name}: a formula was left as TeX: {page[page.index('$') - 60:][:160]}"
        formulas += page.count("<math ")
        assert "<em>" not in "".join(re.findall(r"<math .*?</math>", page)), "markdown emphasis inside a formula"
    assert formulas >= (0 if path.stem.startswith("00") else 100)


def test_the_preprocessor_converts_markdown_cells_only_and_voila_json_enables_it():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("$K$ arms"),
                                         nbformat.v4.new_code_cell("x = '$K$'")])
    out, _ = MathMLPreprocessor().preprocess(nb, {})
    assert out.cells[0].source.startswith("<math ") and out.cells[1].source == "x = '$K$'"
    # the math font rule comes with the first formula, once, and is a style element on the page
    assert out.cells[0].source.endswith(MATH_STYLE + "\n") and "<style>" in html(out.cells[0].source)
    again, _ = MathMLPreprocessor().preprocess(nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_markdown_cell("$K$"),
        nbformat.v4.new_markdown_cell("$T$")]), {})
    assert [MATH_STYLE in c.source for c in again.cells] == [False, True, False]
    config = json.loads((ROOT / "voila.json").read_text())
    assert "delaylab.serve.mathml.MathMLPreprocessor" in config["VoilaExporter"]["preprocessors"]
