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
    # general-r6, finding 4: not "to 2,500" alone, which reads as a crossing there (it is near 3,300)
    assert (f"D-UCB lies above Discarding UCB from t = {paper.UCB_BEHIND:,} to at least {paper.PANEL_HORIZON:,}, "
            f"the live panel's T, and below it only from about t = {paper.UCB_AHEAD:,}") in text
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
    assert "for large d ODAAF-B's phase sizes revert to ODAAF's, as printed, yet it keeps its bridge periods" in odaaf_b
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
    "ODAAF-B": ("ODAAF", "ODAAF-B and ODAAF-V"), "ODAAF-V": ("ODAAF", "ODAAF-B and ODAAF-V"),
    "D-KLUCB (estimated CDF)": ("D-KLUCB", "the indices with an estimated delay law"),
    "UD-KLUCB (estimated geometric law)": ("UD-KLUCB", "the indices with an estimated delay law"),
    # general-r9, finding 3: variants the notebooks draw (03's Figures 1 and 3, 05's Example 8, 04's bridges)
    "OTFLinUCB (authors' code)": ("OTFLinUCB", "OTFLinUCB with the index of the authors' code"),
    "Skipper (oracle β)": ("Skipper", "Skipper at the oracle β"),
    "ODAAF (with bridges)": ("ODAAF", "ODAAF with bridge periods"),
    "ODAAF-B (without bridges)": ("ODAAF-B", "ODAAF-B without"),
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


# ------------------------------------------------------------------ review general-r6
def _flat(text: str) -> str:
    return " ".join(text.split())


def test_r6_1_row_2_says_what_notebook_2_measures_of_the_bias_term_and_d_ucb():
    """General-r6, finding 1: notebook 02 measures that the bias term is not what finds the better arm
    on Figure 5's instance (it costs regret there), and that D-UCB told each arm's law does best, helped
    also by its narrower width; the row must not answer "how can a learner … find the better arm?" with
    the bias term, and must say no more than the notebook."""
    text = row(2)
    assert "still find the better arm?" not in text and "pays an explicit bias term" not in text
    assert "on the paper's Figure 5 instance it is not what finds the better arm: the term costs regret there" in text
    assert "upper confidence bound" in text and "(notebook 2's §4 and §7)" in text
    assert ("has a linear regret on that instance (the paper's Section 8.2 and Figure 5, as printed), in notebook 2 for "
            "m = 10 and 50, while m = 100 plays close to uniformly at T = 3000 and only m = 200 recovers") in text
    assert "only with small windows" not in text  # nb02-r7, finding 1: m = 100 does not recover either
    # general-r8, finding 2: "best of all" said which curves, and is checked in figure45_claims
    assert ("told each arm's own law, it ends lowest of all the curves (level with D-UCB without a window told the "
            "same laws), helped also by a narrower width than Patient Bandits'") in text
    # what notebook 02 says and checks
    nb02 = _flat(notebook_source("02_arm_dependent_delays.ipynb"))
    assert "the bias term is not what finds the better arm here" in nb02
    assert "told each arm's own law, it does best of all, helped also by a narrower width than Patient Bandits'" in nb02
    assert "At the horizons here the term costs regret where the observed means stop misleading early (Figure 5's instance)" in nb02
    import inspect

    from delaylab.papers import manegueu2020
    claims = _flat(inspect.getsource(manegueu2020.figure45_claims))
    for said in ("not what finds the better arm", "ends below both Patient Bandits",
                 "the width alone", "the law alone", "for m in (10, 50):", "grows linearly"):
        assert said in claims, said


#: the reproductions whose run count the paper prints (module, panel, runs): the paper's text or caption
PRINTED_RUNS = {("vernade2017", "figure1_panel"): 100, ("vernade2017", "figure2_panel"): 200,
                ("vernade2017", "figure3_panel"): 100, ("vernade2020", "figure1_panel"): 50,
                ("manegueu2020", "figure2_panel"): 400,
                ("manegueu2020", "figure6_panel"): 100, ("manegueu2020", "figure7_panel"): 100}


def _buttons(monkeypatch) -> dict:
    """Every paper figure's button label, building the reproduction without computing it."""
    import importlib

    from delaylab.panels.reproduce import FigureReproduction

    monkeypatch.setattr(FigureReproduction, "run", lambda self, runs: None)
    out = {}
    for module in ("vernade2017", "manegueu2020", "vernade2020", "pikeburke2018", "thune2019"):
        paper = importlib.import_module(f"delaylab.papers.{module}")
        for name in dir(paper):
            if name.endswith("_panel") and callable(getattr(paper, name)):
                rep = getattr(paper, name)()
                if isinstance(rep, FigureReproduction):
                    out[(module, name)] = rep
    return out


def test_r6_2_a_button_names_the_papers_run_count_only_where_the_paper_prints_one(monkeypatch):
    """General-r6, finding 2: Figures 3–5 of Manegueu et al. state no run count, Thune et al. have no
    experiments and Pike-Burke et al.'s numbers were lost: their buttons say "our full scale"; the index
    says which."""
    buttons = _buttons(monkeypatch)
    assert set(PRINTED_RUNS) <= set(buttons), set(PRINTED_RUNS) - set(buttons)
    ours = set()
    for key, rep in buttons.items():
        label = rep.button.description
        if key in PRINTED_RUNS:
            assert label == f"Run with the paper's {PRINTED_RUNS[key]} runs", (key, label)
        else:
            assert label == f"Run at our full scale: {rep.paper_runs} runs", (key, label)
            ours.add(key)
    assert {("manegueu2020", f"figure{n}_panel") for n in (3, 4, 5)} | {("thune2019", "example8_panel")} <= ours
    how = _flat(next(c for c in cells() if c.startswith("## How to use the workbook")))
    assert "at the paper's scale, with a progress bar" not in how
    # general-r8, finding 1: Pike-Burke et al. give a run count our copy lost; 03's Figure 3 is our reading
    assert "where the paper gives none" not in how
    assert ("where the paper states none (notebook 2's Figures 3–5, notebook 5), where our copy lost it (notebook 4), "
            "or where we read it from an earlier figure (notebook 3's Figure 3: \"the same setting as before\", "
            "Section 8) they say *Run at our full scale: … runs*") in how
    assert {m for m, _ in ours} == {"manegueu2020", "pikeburke2018", "thune2019", "vernade2020"}


def test_r6_3_the_index_does_not_say_every_notebook_reproduces_its_papers_figures():
    """General-r6, finding 3: paper 5 has no experiments (notebook 05 says so) and notebook 04's are
    reconstructed."""
    opening = _flat(cells()[0])
    assert "and reproduce the paper's figures" not in opening
    assert "reproduce the figures of the four papers that have experiments" in opening
    assert "notebook 4's experiments are reconstructed; paper 5 has none" in opening
    assert "notebook 5: instances of our design, and the paper's Example 8 with our losses" in _flat(cells()[1])
    nb05 = _flat(notebook_source("05_adversarial_delays.ipynb"))
    assert "The paper has no experiments" in nb05
    nb04 = _flat(notebook_source("04_aggregated_anonymous.ipynb"))
    assert "the experiments below are **reconstructed**" in nb04


def test_r6_5_explain_answers_are_not_said_to_be_never_graded():
    """General-r6, finding 5: the check grades nothing, but a graded homework marks explain answers by
    hand (docs/instructor.md)."""
    path = _flat(next(c for c in cells() if c.startswith("## Studying alone")))
    assert "(nothing is graded)" not in path
    assert "the check grades nothing: you tick the points you made; in graded homework your lecturer may mark it by hand" in path
    guide = _flat((ROOT / "docs" / "instructor.md").read_text(encoding="utf-8"))
    assert "In a graded release it is marked by hand" in guide


# ------------------------------------------------------------------ review general-r7
def test_r7_1_row_1_says_for_which_policies_discarding_s_optimality_holds():
    """General-r7, finding 1: the paper calls the Discarding policies asymptotically optimal (end of
    Section 6, as printed; no proof); notebook 1's §7 finds that true, up to the Poisson factor, of
    Discarding KL-UCB only: Discarding UCB's slope, and D-UCB's, are 3.5 and 4 times the lower bound's
    on θ_L. The row must not teach the claim bare, nor ("too") extend it to the D- policies."""
    from delaylab.papers import vernade2017 as paper

    text = row(1)
    assert "The paper calls Discarding asymptotically optimal too" not in text
    assert "The paper calls the Discarding policies asymptotically optimal (its Section 6, as printed)" in text
    assert ("Our reading (notebook 1's §7): up to the Poisson divergence's factor, Discarding KL-UCB is; Discarding UCB "
            "and D-UCB are not, with slopes 3.5 and 4 times the lower bound's on θ_L") in text
    bound = paper.lower_bound(paper.THETA_L, paper.WINDOW)
    assert f"{paper.ucb_slope(paper.THETA_L, paper.WINDOW) / bound:.1f}" == "3.5"
    assert f"{paper.ucb_slope(paper.THETA_L, paper.WINDOW, factor=True) / bound:.1f}" == "4.0"
    nb01 = _flat(notebook_source("01_delayed_conversions.ipynb"))
    assert "Only Discarding KL-UCB comes close" in nb01 and "Discarding UCB is not" in nb01


def test_r7_2_the_index_tells_a_hub_s_students_to_leave_the_quotes_empty(monkeypatch):
    """General-r7, finding 2: on a hub that sets DELAYLAB_STUDENT (the guide's set-up), empty quotes
    give the hub's id, not the default numbers, and a typed name wins over it (docs/instructor.md,
    "On a JupyterHub")."""
    from delaylab.exercises import instance

    own = _flat(next(c for c in cells() if c.startswith("## Studying alone")))
    assert "(on a course hub that sets your id, leave them empty)" in own
    assert "Left empty, you get the default numbers" not in own
    assert "Left empty, with no id set by your hub (`DELAYLAB_STUDENT`), you get the default numbers" in own
    assert "Tell students to leave the quotes empty: a name typed there wins over the variable" in _flat(
        (ROOT / "docs" / "instructor.md").read_text(encoding="utf-8"))
    before = instance.current()
    try:
        monkeypatch.setenv(instance.STUDENT_ENV, "Bob")
        assert instance.set_current("") == "bob" and instance.set_current("alice") == "alice"
        monkeypatch.delenv(instance.STUDENT_ENV)
        assert instance.set_current("") == ""
    finally:
        instance.set_current(before)


def test_r7_4_row_4_keeps_odaaf_b_s_bridges_for_large_d():
    """General-r7, finding 4: for large d Section 4.2 reverts ODAAF-B's choice of n_m to ODAAF's (as
    printed); ODAAF-B still plays bridge periods (Section 5), as delaylab's ODAAFB does whatever d."""
    from delaylab.policies import odaaf

    text = row(4)
    assert "for large d ODAAF-B reverts to ODAAF)" not in text
    assert "for large d ODAAF-B's phase sizes revert to ODAAF's, as printed, yet it keeps its bridge periods" in text
    assert odaaf.ODAAFB.default_bridge is True and odaaf.ODAAF.default_bridge is False


def test_r7_5_the_regret_convention_says_paper_1_bounds_another_regret():
    """General-r7, finding 5: paper 1's Lemma 1 regret L(T) counts only the conversions seen by T, and
    Theorem 3's τ_m factor comes from it; the shared conventions must not imply that paper 1's theorems
    bound the plotted pseudo-regret (readings §1 and notebook 1's §5 say so)."""
    readings = _flat((ROOT / "docs" / "readings.md").read_text(encoding="utf-8"))
    regret = readings[readings.index("* **Regret** is the pseudo-regret"):readings.index("* **Unbiased estimators**")]
    # general-r8, finding 4: the theorems that bound L as printed are 9 and 11; 3 and 4 write an undefined R(T)
    assert "and its Theorems 3 and 4 bound that" not in regret
    assert ("(paper 1's own regret, L(T) of Lemma 1, counts only the conversions seen by T: Theorems 9 and 11 bound L "
            "as printed (L_UCB, L_KLUCB); Theorems 3 and 4 write R(T) without defining it, and their proofs (Appendix B) "
            "bound L(T): see §1; paper 5:") in regret
    # (round 7 of notebook 01: the proofs of Appendix B bound L(T), as printed, no longer "our reading")
    assert "their proofs (Appendix B) bound L(T) of Eq. (1)/(3), which counts only the conversions seen by T" in readings
    index = bullet("Regret")
    assert ("(paper 1's theorems bound its own regret, which counts only the conversions seen by T: notebook 1's §5; "
            "in the adversarial notebook:") in index
    nb01 = _flat(notebook_source("01_delayed_conversions.ipynb"))
    assert "bound its $L(T)$, Eq. 1 and 3, which counts only the conversions seen" in nb01


# ------------------------------------------------------------------ review general-r8
def test_r8_2_best_of_all_is_checked_against_every_curve():
    """General-r8, finding 2: "told each arm's own law, it does best of all" was checked only against two curves;
    figure45_claims now compares it, run by run, with every curve of Figure 5 and of the isolation runs, and
    names the tie with UD-UCB told the true laws (14.6 against 15.1 at 30 runs)."""
    import inspect

    from delaylab.papers import manegueu2020
    claims = [c for c in manegueu2020.figure45_claims(runs=30, seed=0)
              if "ends below every other curve" in c.text or "level with UD-UCB told the true laws" in c.text]
    assert len(claims) == 2 and all(c.holds for c in claims), [str(c) for c in claims]
    source = _flat(inspect.getsource(manegueu2020.figure45_claims))
    assert "[(res5, n) for n in [*FIG45_NAMES, UNIFORM]] + [(iso, n) for n in (NO_BIAS, UD_NO_DELAYS)]" in source


def test_r8_3_notebook_5_simulates_the_papers_example_8_too():
    opening = _flat(cells()[0])
    assert "notebook 5 simulates instances of our design and the paper's Example 8, its delays with our losses" in opening
    nb05 = _flat(notebook_source("05_adversarial_delays.ipynb"))
    assert "Example 8" in nb05


# ------------------------------------------------------------------ review general-r9
def test_r9_1_readings_names_every_mark_the_workbook_uses_for_a_reading():
    """General-r9, finding 1: readings.md's introduction announced one mark, **reconstructed**, which
    notebooks 01, 03 and 05 never use: they mark their readings "our reading" (and "as printed",
    "corrected"); a student looking for "reconstructed" would think they took none."""
    readings = _flat((ROOT / "docs" / "readings.md").read_text(encoding="utf-8"))
    intro = readings[:readings.index("## Conventions shared by the whole workbook")]
    assert "Those places are marked **reconstructed** here" not in intro
    marks = re.findall(r"\*\*([a-z ]+)\*\* \(", intro)
    assert marks == ["as printed", "corrected", "our reading", "reconstructed"], marks
    assert "**reconstructed** (our copy lost a whole formula or experiment: most of paper 4, parts of paper 2)" in intro
    for n in range(1, 6):
        (path,) = (ROOT / "notebooks").glob(f"0{n}_*.ipynb")
        text = notebook_source(path.name).lower()
        used = [m for m in marks if m in text]
        assert "our reading" in used or "reconstructed" in used, (path.name, used)
    # the notebooks that take readings but never say "reconstructed": the intro must name their mark
    silent = [n for n in ("01", "03", "05") if "reconstructed" not in notebook_source(
        next((ROOT / "notebooks").glob(f"{n}_*.ipynb")).name).lower()]
    assert silent == ["01", "03", "05"]


def test_r9_2_exercise_1_6s_title_says_delays_alone():
    """General-r9, finding 2: in the censored model longer delays do raise the lower bound (through
    τ_m; the paper after Theorem 3: "longer values of the expected delay μ actually make the problem
    harder", as printed); only without a window (Theorem 4) do they not. The title the index's table
    and the notebook's heading show must say "alone", as the guide does."""
    from delaylab import exercises as ex
    from delaylab.papers import vernade2017 as paper

    title = "Why a window raises the lower bound, and delays alone do not"
    assert ex.get("01.why-window").title == title
    table = ex.table(["01"]).value
    assert title in table and "and delays do not<" not in table
    assert "ex.table()" in cells()[6]
    nb01 = notebook_source("01_delayed_conversions.ipynb")
    assert f"### ✎ Exercise 1.6 (explain why, ★★☆): {title}" in nb01
    assert "explain why a window raises the lower bound and delays alone do not (1.6)" in nb01
    assert "a window raises the lower bound, delays alone do not" in (ROOT / "docs" / "instructor.md").read_text(
        encoding="utf-8")
    # longer delays raise the censored bound: τ_m falls with μ and the slope grows (θ_L, m = 1000)
    slopes = [paper.lower_bound(paper.THETA_L, paper.WINDOW, mean_delay=mu) for mu in (100, 500, 2000)]
    assert slopes[0] < slopes[1] < slopes[2]


def test_r9_3_the_key_draws_every_algorithm_a_regret_figure_draws():
    """General-r9, finding 3: OTFLinUCB with the authors' index (notebook 03's Figures 1 and 3 and panel),
    Skipper at the oracle β (notebook 05's Example 8) and ODAAF/ODAAF-B with the bridges switched
    (notebook 04's bridge figure) were drawn, dash-dotted in their algorithm's colour, but neither named
    in the conventions nor drawn in the key; the key's Discarding baselines are dash-dotted, a pattern
    the text never mentioned."""
    from delaylab.panels import adversarial, anonymous, arm_delays, conversions, linear
    from delaylab.papers import pikeburke2018, thune2019, vernade2017, vernade2020

    keyed = {n for names in style.PAPERS.values() for n in names}
    drawn = {*vernade2017.FIG2_NAMES, *vernade2017.FIG3_NAMES, *vernade2020.NAMES, *thune2019.EXAMPLE8_NAMES,
             *pikeburke2018.BRIDGE_NAMES, *conversions.TOGGLES, *linear.TOGGLES, *arm_delays.TOGGLES,
             *adversarial.NAMES, *anonymous.NAMES}
    assert drawn - keyed == set(), drawn - keyed
    for name in ("OTFLinUCB (authors' code)", "Skipper (oracle β)", "ODAAF (with bridges)", "ODAAF-B (without bridges)"):
        assert style.style(name) == {"color": style.STYLES[name][0], "dash": "dashdot"}, name
    text = bullet("Colours")
    assert "Notebook 1's Discarding baselines are dash-dotted" in text
    assert {style.STYLES[n][1] for n in ("Discarding UCB", "Discarding KL-UCB")} == {"dashdot"}
    assert "dash-dotted, OTFLinUCB with the index of the authors' code, Skipper at the oracle β, ODAAF with bridge " \
           "periods and ODAAF-B without" in text
    dashdot = {n for n in keyed if style.STYLES[n][1] == "dashdot"}
    assert dashdot == {"Discarding UCB", "Discarding KL-UCB", "OTFLinUCB (authors' code)", "Skipper (oracle β)",
                       "ODAAF (with bridges)", "ODAAF-B (without bridges)"}, dashdot
    # notebook 4's Appendix F references without delays: dotted in their algorithm's colour, as the text says
    from delaylab.papers.pikeburke2018 import LinePlot

    assert "as are notebook 4's references without delays (in their algorithm's colour)" in text
    assert "a line dotted in its colour" in LinePlot.__doc__
