"""Accessibility, checked without a browser: the palette's contrast in both themes, the formulas'
MathML (no TeX left, no namespace prefix, a spoken name), the dashboards' template (MathJax left
out, Voila's cell loop kept in step) and the site's figure markup. The browser checks (axe-core on
every page, the contrast inside the figures, the keyboard, a phone's width) are in
``tests/test_a11y_browser.py`` and, for the dashboards, ``tests/test_browser.py``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from nbconvert.filters.strings import add_anchor

from delaylab.serve.mathml import UnreadableFormula, markdown_with_mathml, spoken, tex_to_mathml
from delaylab.viz import style
from delaylab.viz.style import DARK, FOREGROUND, PALETTE, STYLES, contrast, text_colour
from delaylab.viz.theme import THEME_JS

ROOT = Path(__file__).resolve().parents[1]
WHITE = "#FFFFFF"
#: the dark themes' backgrounds: JupyterLab's and Voila's (#111111), the course site's (#14181E)
DARK_BACKGROUNDS = ("#111111", "#14181E")
#: the dark themes' text colours (what black curves become): JupyterLab's, the site's
DARK_TEXT = ("#E0E0E0", "#CED6DD")


def _dark(colour: str) -> list[str]:
    mapped = DARK.get(colour.upper(), DARK.get(colour, colour))
    return list(DARK_TEXT) if mapped == FOREGROUND else [mapped]


def every_colour() -> set[str]:
    """Every colour a curve of the workbook is drawn in: the styles, the palette, the fallbacks."""
    colours = {c.upper() for c, _ in STYLES.values()} | {c.upper() for c in PALETTE}
    colours |= {style.style(name)["color"].upper() for name in ("something new", "another", "x (y)")}
    return colours


@pytest.mark.parametrize("colour", sorted(every_colour()))
def test_every_curve_colour_is_3_to_1_on_white_and_on_dark_pages(colour):
    """WCAG 1.4.11: a curve at least 3:1 against the plot's background, in the light theme (white)
    and, after the theme's dark variant (style.DARK), on the dark themes' backgrounds."""
    assert contrast(colour, WHITE) >= 3, f"{colour} is {contrast(colour, WHITE):.2f}:1 on white"
    for bg in DARK_BACKGROUNDS:
        for c in _dark(colour):
            assert contrast(c, bg) >= 3, f"{colour} (dark: {c}) is {contrast(c, bg):.2f}:1 on {bg}"


def test_contrast_matches_wcag_and_the_theme_script_knows_the_dark_variants():
    assert contrast("#000000", WHITE) == pytest.approx(21)
    assert contrast("#767676", WHITE) == pytest.approx(4.54, abs=0.01)  # WCAG's classic 4.5:1 grey
    assert contrast("#E69F00", WHITE) == pytest.approx(2.25, abs=0.01)  # the orange
    assert json.dumps({k.upper(): v for k, v in DARK.items()}) in THEME_JS


@given(st.from_regex(r"#[0-9A-F]{6}", fullmatch=True))
@settings(max_examples=60, deadline=None)
def test_text_colour_always_reaches_4_5_to_1_keeping_darker(colour):
    out = text_colour(colour)
    assert contrast(out, WHITE) >= 4.5
    assert style.luminance(out) <= style.luminance(colour) + 1e-12  # darkened, never lightened


def test_the_colour_key_names_colours_and_line_styles():
    from delaylab.viz.describe import describe
    from delaylab.viz.plots import palette_figure

    text = describe(palette_figure())
    assert "D-UCB: blue solid line" in text and "UD-UCB: blue dashed line" in text
    assert "KL-UCB: black dotted line" in text and "unnamed" not in text


# ----------------------------------------------------------------------------- formulas
@pytest.mark.parametrize("tex, shown", [(r"\arg\max_i \hat\mu_i", "<mi>arg</mi>"),
                                        (r"\Big\lceil \log_2 K \Big\rceil", "\u2308"),
                                        (r"\lfloor x \rfloor", "\u230b")])
def test_commands_latex2mathml_writes_out_become_what_they_stand_for(tex, shown):
    mathml = tex_to_mathml(tex)
    assert shown in mathml and not re.search(r">[^<]*\\[A-Za-z]", mathml.replace("&#92;", "\\")), mathml


def test_a_command_that_would_stay_tex_is_refused_and_the_formula_left_for_mathjax():
    with pytest.raises(UnreadableFormula):
        tex_to_mathml(r"\unknowncommandxyz x")
    assert markdown_with_mathml(r"a $\unknowncommandxyz x$ b") == r"a $\unknowncommandxyz x$ b"


def test_a_formula_in_a_heading_stays_mathml_through_nbconvert_anchors():
    """nbconvert re-serialises a heading with ElementTree: a namespaced <math> came out as <ns0:math>,
    which a browser shows as its bare text ("N~ and θ^=S/N~")."""
    page = add_anchor(markdown2html_mistune(markdown_with_mathml(r"## 2 · $\tilde N$ and $\hat\theta = S/\tilde N$")))
    assert "ns0" not in page and page.count("<math ") == 2 and "<mover" in page


@pytest.mark.parametrize("tex, words", [
    (r"\hat\theta = S/\tilde N", "theta hat equals S over N tilde"),
    (r"T^{3/4}", "T to the power 3 over 4"),
    (r"\sqrt{\frac{2\log T}{N_i(t)}}", "square root of fraction 2 log T over N sub i ( t ) end fraction end root"),
    (r"\sum_{s=t-m}^{t-1} x_s", "sum from s equals t minus m to t minus 1 of x sub s"),
    (r"\mu^*", "mu star"),
])
def test_every_formula_has_a_spoken_name(tex, words):
    mathml = tex_to_mathml(tex)
    assert re.search(r'<math [^>]*aria-label="([^"]*)"', mathml).group(1) == words
    assert spoken("<math><mi>x</mi></math>") == "x" and spoken("not xml <") == ""


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")) + [ROOT / "docs" / "readings.md"],
                         ids=lambda p: p.stem)
def test_no_formula_of_the_workbook_leaves_tex_or_lacks_a_name(path):
    if path.suffix == ".md":
        sources = [path.read_text(encoding="utf-8")]
    else:
        sources = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"]
    for source in sources:
        out = markdown_with_mathml(source)
        outside_code = re.sub(r"`[^`]*`|```.*?```", "", out, flags=re.S)
        assert not re.search(r"\$[^$\n]{1,60}\$", outside_code), re.search(r".{0,40}\$[^$\n]{1,60}\$", outside_code)
        for m in re.findall(r"<math [^>]*>", out):
            assert 'aria-label="' in m and "xmlns" not in m, m


# ----------------------------------------------------------------------------- the dashboards' template
TEMPLATE = ROOT / "delaylab" / "serve" / "share" / "voila" / "templates" / "delaylab"


def _block(text: str, name: str) -> str:
    m = re.search(r"\{%-? block " + name + r" -?%\}(.*?)\{%-? endblock " + name + r" -?%\}", text, flags=re.S)
    assert m, name
    return m.group(1)


def test_the_dashboards_cell_loop_is_voilas_own_but_for_mathjax():
    """The template replaces Voila's ``body_loop`` to name a no-op MathJax in the page's
    configuration: the rest of the loop must stay Voila's (a Voila upgrade that changes it fails here)."""
    import voila

    voila_lab = Path(voila.__file__).parents[4] / "share" / "jupyter" / "voila" / "templates" / "lab" / "index.html.j2"
    if not voila_lab.exists():
        pytest.skip(f"Voila's lab template is not at {voila_lab}")
    ours, theirs = _block((TEMPLATE / "index.html.j2").read_text(), "body_loop"), _block(voila_lab.read_text(), "body_loop")
    code = lambda t: [line.strip() for line in re.sub(r"\{#.*?#\}", "", t, flags=re.S).splitlines() if line.strip()]  # noqa: E731
    # ours calls super.super() in the cell's block: its parent is Voila's own any_cell (the wrapper)
    assert [line.replace(", **page.NO_MATHJAX", "").replace("super.super()", "super()") for line in code(ours)] == code(theirs)
    assert code(ours).count("{{ super.super() }}") == 1
    macros = (TEMPLATE / "page.macro.html.j2").read_text()
    assert '"fullMathjaxUrl": "data:text/javascript,window.MathJax=' in macros and macros.count("}};//\",") == 1
    config = json.loads((ROOT / "voila.json").read_text())
    assert "@jupyterlab/mathjax3-extension" in config["VoilaConfiguration"]["extension_denylist"]


def test_the_site_and_dashboard_figures_are_figures_not_images():
    from delaylab.site import static
    from delaylab.viz.widget import _LOADER

    markup = static.figure_html({"data": [], "layout": {}}, "Figure: x.")
    assert "<figcaption" in markup and 'role="img"' not in markup and "aria-live" not in markup
    assert 'setAttribute("role", "figure")' in _LOADER and '"img"' not in _LOADER


def test_no_series_is_unnamed_when_its_legend_entry_names_it():
    """A trace drawn without a name of its own (the data of a legend entry drawn apart) takes its
    legend group's name; a helper with neither (a marker, kept out of the legend) is not a series."""
    import plotly.graph_objects as go

    from delaylab.viz.describe import describe

    fig = go.Figure([go.Scatter(x=[None], y=[None], name="zero (never revealed)", legendgroup="zero", mode="markers"),
                     go.Scatter(x=[1, 2, 3], y=[0, 1, 2], legendgroup="zero", showlegend=False, mode="markers"),
                     go.Scatter(x=[3], y=[2], showlegend=False, mode="markers"),
                     go.Scatter(x=[1, 2, 3], y=[1, 1, 1], name="reference")],
                    layout={"xaxis": {"title": {"text": "step"}}, "yaxis": {"title": {"text": "pull"}}})
    text = describe(fig)
    assert "unnamed" not in text and "reference ends at 1" in text
    assert "Series: zero (never revealed): 3 points, y from 0 to 2; reference" in text
