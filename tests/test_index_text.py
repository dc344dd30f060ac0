"""The index notebook's statements about the five papers and its colour key, against the papers'
assumptions, the notebooks' checks and the palette (delaylab.viz.style).

A row of "The five papers" that credits a paper with a result must state the assumption it rests on
and point to its place; a row that says what a simulation shows must name the parameters of the
notebook check that backs it. The colour key must be true of STYLES, which every figure draws from.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from delaylab.viz import style

ROOT = Path(__file__).resolve().parent.parent
INDEX = ROOT / "notebooks" / "00_index.ipynb"


def cells() -> list[str]:
    nb = json.loads(INDEX.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"]]


def row(n: int) -> str:
    """The text of row n of the table of the five papers, with its whitespace collapsed."""
    table = next(c for c in cells() if c.startswith("## The five papers"))
    line = next(ln for ln in table.splitlines() if ln.startswith(f"| {n} |"))
    return " ".join(line.split())


def bullet(title: str) -> str:
    conventions = next(c for c in cells() if c.startswith("## Conventions"))
    m = re.search(rf"^\* \*\*{title}\*\*(.*?)(?=^\* |\Z)", conventions, re.M | re.S)
    assert m, f"no '{title}' bullet in the conventions"
    return " ".join(m.group(1).split())


def notebook_source(name: str) -> str:
    nb = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"])


# ------------------------------------------------------------------ the table of the five papers
def test_row_1_states_only_what_notebook_1_checks_against_discarding():
    """Vernade et al. 2017 limit the gap to horizons of the order of m (Section 4, after Theorem 3)
    and call Discarding asymptotically optimal (Section 6); the index's comparison must name the
    parameters of notebook 01's check (figure2_claims at the paper's Figure 2 instance)."""
    from delaylab.papers import vernade2017 as paper

    text = row(1)
    assert "beat discarding" not in text, "an unconditional verdict against Discarding"
    instance = (f"θ_L, μ = {paper.MEAN_DELAY}, m = {paper.WINDOW}, T = {paper.HORIZON:,}")
    assert instance in text, f"name the check's parameters: {instance}"
    assert paper.THETA_L == (0.1, 0.05, 0.03)
    assert "§7" in text and "asymptotically optimal" in text and "Section 6, as printed" in text
    assert "Section 4, after Theorem 3, as printed" in text
    # at horizons of the order of m only the KL pair learns faster here: D-UCB lies above Discarding
    # UCB from t = UCB_BEHIND to the panel's T (notebook 1's §7 checks it, short_horizon_claims)
    assert "lesson about horizons of the order of m" not in text
    assert "depends on the horizon" in text
    assert "only the KL pair does" in text
    assert f"D-UCB lies above Discarding UCB from t = {paper.UCB_BEHIND:,} to {paper.PANEL_HORIZON:,}" in text
    assert "in the long run" not in text  # behind early, ahead at T, possibly behind again beyond T
    # the check the row points to: both orderings, on the figure's own runs at the stated horizon
    source = notebook_source("01_delayed_conversions.ipynb")
    assert "res2 = paper.figure2(runs=40)" in source and "dl.claims.check(*paper.figure2_claims(res2))" in source
    res = paper.figure2(runs=3, horizon=600)
    texts = {c.text for c in paper.figure2_claims(res)}
    assert {"D-UCB ends below Discarding UCB", "D-KLUCB ends below Discarding KL-UCB"} <= texts


def test_row_4_gives_plain_odaaf_no_bridges_and_states_its_assumption():
    """Pike-Burke et al. 2018: plain ODAAF runs without bridge periods (Section 4.1, "Step 4 of the
    algorithm could be omitted"; Section 5), ODAAF-B and ODAAF-V have them; everything rests on a
    known expected delay (Assumption 1). delaylab follows the paper."""
    from delaylab.policies import odaaf

    text = row(4)
    assert "bridge periods and still learns" not in text
    assert "Assumption 1" in text and "as printed" in text
    before, _, after = text.partition("bridge periods")
    assert after and "ODAAF-B" in before and "ODAAF-V" in before, "bridges belong to ODAAF-B and ODAAF-V"
    assert "up to log factors" in text
    # ODAAF-B's bound matches QPM-D's only when d is not too large (Section 4.2's corollary, its
    # condition lost in our copy): notebook 04's "What to remember" keeps the condition, so must the row
    odaaf_b = text[text.index("ODAAF-B's bound"):text.index("ODAAF-V's pays")]
    assert "not too large" in odaaf_b and "condition lost in our copy" in odaaf_b, odaaf_b
    assert "reverts to ODAAF" in odaaf_b
    nb04 = " ".join(notebook_source("04_aggregated_anonymous.ipynb").split())
    assert "when $d$ is not too large (Section 4.2's corollary, its condition lost in our copy" in nb04
    plain = [c for c in vars(odaaf).values() if isinstance(c, type) and getattr(c, "default_bridge", None) is False]
    assert plain, "delaylab's plain ODAAF has no bridge period"


def test_row_5_says_doubling_needs_the_delays_at_action_time():
    """Thune et al. 2019, Section 4 ("Delay available at action time"): Doubling needs no T or D
    only because each delay is observed before the action; delaylab's setting says the same."""
    from delaylab.settings import adversarial

    text = row(5)
    doubling = text[text.index("Doubling"):]
    assert "revealed when the action is taken" in doubling and "Section 4, as printed" in doubling
    assert "at action time" in adversarial.__doc__


@pytest.mark.parametrize("n, places", [
    (2, ["Theorem 1 and Algorithm 1, as printed", "Section 8.2 and Figure 5, as printed"]),
    (5, ["Theorem 1 and the paragraph after it, Section 3.1, as printed", "(Lemma 2, as printed)"]),
])
def test_each_statement_a_row_attributes_to_its_paper_points_to_its_place(n, places):
    """Row 2: the bias term is Theorem 1's and Algorithm 1's, D-UCB misled is Section 8.2's Figure 5
    (Manegueu et al. 2020); row 5: d_max ruining the rate is Theorem 1 and the paragraph after it (Section 3.1; review nb05-r6,
    finding 4: Section 3.2 introduces Skipper), one unit
    per skipped round is Lemma 2 (Thune et al. 2019)."""
    text = row(n)
    for place in places:
        assert place in text, (n, place)


# ------------------------------------------------------------------ conventions
def test_the_band_convention_names_its_exception():
    """Notebook 04's Figure 2 draws ratios of mean regrets without bands (RatioPlot)."""
    from delaylab.papers import pikeburke2018

    text = bullet("Regret")
    assert "unless the caption says otherwise" in text and "notebook 4's Figure 2" in text
    assert "ratio" in pikeburke2018.RatioPlot.__doc__.lower()
    assert "band" not in pikeburke2018.RatioPlot.__doc__.lower()


#: each variant the key names, its algorithm and the words the key uses for it
VARIANTS = {
    "UD-UCB": ("D-UCB", "UD-UCB"), "UD-KLUCB": ("D-KLUCB", "UD-KLUCB"),
    "Patient Bandits (no bias term)": ("Patient Bandits", "Patient Bandits without its bias term"),
    "D-UCB without Ñ": ("D-UCB", 'the indices "without Ñ"'),
    "D-KLUCB without Ñ": ("D-KLUCB", 'the indices "without Ñ"'),
    "OTFLinUCB without delay term": ("OTFLinUCB", "OTFLinUCB without its delay term"),
    "Skipper without skipping": ("Skipper", "Skipper without skipping"),
    "ODAAF-B": ("ODAAF", "ODAAF-B"), "ODAAF-V": ("ODAAF", "ODAAF-V"),
    "D-KLUCB (estimated CDF)": ("D-KLUCB", "the indices with an estimated delay law"),
    "UD-KLUCB (estimated geometric law)": ("UD-KLUCB", "the indices with an estimated delay law"),
}


def sentence(text: str, marker: str) -> str:
    return next(s for s in re.split(r"(?<=\.)\s", text) if marker in s)


def test_the_colour_key_is_true_of_the_palette():
    """Each variant the key says shares its algorithm's colour does, and each it says has a colour of
    its own has; every variant of the key's figure is named; the baselines it lists are dotted, and
    uniform random play is dashed grey."""
    text = bullet("Colours")
    assert "one colour per algorithm across all notebooks" not in text
    shared, own = sentence(text, "share its colour"), sentence(text, "colour of their own")
    keyed = {n for names in style.PAPERS.values() for n in names}
    for variant, (base, words) in VARIANTS.items():
        assert variant in keyed, variant
        same = style.STYLES[variant][0] == style.STYLES[base][0]
        assert words in (shared if same else own), f"{variant}: {'shares' if same else 'has its own'} colour"
        assert words not in (own if same else shared), variant
    baselines = re.search(r"baselines \(([^)]+)\) are dotted", text)
    assert baselines, "list the dotted baselines"
    for name in baselines.group(1).split(", "):
        assert style.STYLES[name][1] == "dot", name
    dotted = {n for n, (_, dash) in style.STYLES.items() if dash == "dot"}
    assert dotted == set(baselines.group(1).split(", ")) | {n for n in dotted if "without Ñ" in n}
    assert style.STYLES[style.UNIFORM] == (style.GREY, "dash") and "uniform random play is dashed grey" in text
    # the palette's own description says the same
    doc = " ".join(style.__doc__.split())
    own_doc = sentence(doc, "colour of their own")
    for variant, (base, words) in VARIANTS.items():
        if style.STYLES[variant][0] != style.STYLES[base][0]:
            assert words.replace("the indices", "indices") in own_doc.replace("the indices", "indices"), variant


@pytest.mark.parametrize("names, words", [
    (["Patient Bandits (α-hat = 0.1)", "Patient Bandits (α-hat = 0.3)", "Patient Bandits (α-hat = 0.5)",
      "Patient Bandits (α-hat = 0.6)"], "Figures 3–6 by α₂, α̂ or m"),
    (["D-UCB (m = 10)", "D-UCB (m = 50)", "D-UCB (m = 100)", "D-UCB (m = 200)"], "Figures 3–6 by α₂, α̂ or m"),
    (["α₂ = 0.2", "α₂ = 0.3", "α₂ = 0.4", "α₂ = 0.5", "α₂ = 0.8"], "Figures 3–6 by α₂, α̂ or m"),
    (["arm 1", "arm 2", "arm 3", "arm 4"], "the per-arm figures by arm"),
])
def test_the_colour_key_names_the_figures_that_colour_by_a_parameter(names, words):
    """One algorithm in several colours: the key must say so, and the palette must do so."""
    assert len({style.STYLES[n][0] for n in names}) == len(names)
    assert words in bullet("Colours")


def test_notebook_4_figure_2_colours_by_delay_law_as_the_key_says():
    from delaylab.papers import pikeburke2018

    assert "colour = delay law" in pikeburke2018.RatioPlot.__doc__
    assert "notebook 4's Figure 2 by delay law" in bullet("Colours")


# ------------------------------------------------------------------ the study path
def _time(name: str) -> str:
    """The time a notebook's header gives for the whole notebook ("two hours")."""
    source = notebook_source(name)
    m = re.search(r"\*Time\*: about ([^,]+), including", source) or re.search(r"Allow \*\*about ([^*]+)\*\*", source)
    assert m, f"{name} states no time"
    return m.group(1)


def test_the_study_path_gives_each_notebook_the_time_it_states():
    """The path's "about two hours each" is what notebooks 01–05 say, and it names every notebook
    that says otherwise (notebook 05: an hour and three quarters)."""
    names = sorted(p.name for p in (ROOT / "notebooks").glob("0[1-5]_*.ipynb"))
    times = {name[:2]: _time(name) for name in names}
    path = " ".join(next(c for c in cells() if c.startswith("## Studying alone")).split())
    stated = re.search(r"about (two hours) each( \(([^)]*)\))?, exercises included", path)
    assert stated, "the path states the time of a notebook"
    exceptions = dict(re.findall(r"(\d\d): ([^;)]+)", stated.group(3) or ""))
    for nb, time in times.items():
        assert exceptions.get(nb, stated.group(1)) == time, (nb, time, stated.group(0))
