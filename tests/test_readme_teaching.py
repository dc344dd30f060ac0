"""The README's statements about the teaching content against what they describe: its exercise
example against the exercise registry, its conventions against each setting's regret, its list of
algorithms against the readings' "as printed"/"corrected"/"our reading", its description of the textbook maps
against the instructor's guide (review r5 of the general parts, findings 4–7)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def readme() -> str:
    return README.read_text(encoding="utf-8")


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_exercise_example_checks_the_answer_of_the_student_it_starts():
    """Copied as printed, the example's check must say "Right": its value is the answer for the
    student its ``ex.start`` names (each student has their own numbers)."""
    from delaylab import exercises as ex

    block = next(b for b in re.findall(r"```python\n(.*?)```", readme(), re.S) if "ex.start(" in b and "ex.check(" in b)
    student = re.search(r'ex\.start\("([^"]*)"\)', block).group(1)
    eid, value = re.search(r'ex\.check\("([^"]+)", ([-\d.]+)\)', block).groups()
    verdict = ex.check(eid, float(value), student=student)
    assert verdict.correct, f"{value} is not {student!r}'s answer to {eid}: {ex.solution(eid, student=student)}"


def test_the_conventions_name_notebook_05_s_regret():
    """The regret of the adversarial setting is not Σ Δ: the losses of the arms played minus those
    of the best fixed arm over the horizon (delaylab/settings/adversarial.py)."""
    from delaylab.settings import adversarial

    assert "Regret is measured against the best fixed arm in hindsight over the horizon T" in flat(adversarial.__doc__)
    conventions = flat(re.search(r"^Conventions \(see \[docs/readings\.md\].*?(?=\n\n)", readme(), re.M | re.S).group(0))
    regret = conventions[conventions.index("regret is the pseudo-regret Σ Δ_{A_t}"):]
    assert "notebook 05" in regret and "best fixed arm over the horizon" in regret, regret


def test_the_list_of_notebooks_gives_corollary_4_s_beta_as_the_papers_in_our_reading():
    """Review nb05-r5, finding 1: the paper's Corollary 4 β, read from a display our copy scrambles, is
    the nested sqrt(((eKT/2 + D)/(4e) + D)/(4e ln K)), equal to the minimiser delaylab uses; the README
    attributes it to the paper with the readings' label (our reading), never as "corrected"."""
    row = next(ln for ln in readme().splitlines() if ln.startswith("| `05_adversarial_delays.ipynb`"))
    beta = row[row.index("Corollary 4's β"):]
    assert beta.startswith("Corollary 4's β (the paper's, our reading of its display)"), beta[:80]
    assert "corrected" not in row
    readings = flat((ROOT / "docs" / "readings.md").read_text(encoding="utf-8"))
    assert "*Corollary 4's β* (**our reading**" in readings and "eKT/2 + (1 + 4e)D" in readings


def test_the_textbook_maps_are_described_as_the_guide_checked_them():
    """The guide's maps were checked against the books' tables of contents and mark unconfirmed
    places "check"; the README must not present them as checked against the books."""
    guide = flat((ROOT / "docs" / "instructor.md").read_text(encoding="utf-8"))
    assert "re-read against the two books' tables of contents" in guide and "it says “check”" in guide
    teaching = flat(re.search(r"^## Teaching with delaylab.*?(?=^## )", readme(), re.M | re.S).group(0))
    assert "re-checked section by section" not in teaching
    maps = teaching[teaching.index("Slivkins'"):teaching.index("the numpy")]
    assert "tables of contents" in maps and "“check”" in maps, maps


def test_r6_3_the_readme_does_not_say_every_notebook_reproduces_its_papers_figures():
    """General-r6, finding 3: paper 5 has no experiments (notebook 05 simulates instances of our design),
    notebook 04's are reconstructed, and where the paper gives no run count the button runs "our full
    scale" (delaylab/papers: full_scale=)."""
    text = flat(readme())
    assert "and reproduces the paper's figures. It is written" not in text
    assert ("reproduces the paper's figures (paper 5 has none: its notebook simulates instances of our design, and "
            "the paper's Example 8, its delays with our losses)") in text  # general-r8, finding 3
    notebooks = flat(re.search(r"^## The notebooks.*?(?=^## )", readme(), re.M | re.S).group(0))
    assert "paper's figures at a reduced number of runs, with a button that reruns them at the paper's scale (" not in notebooks
    assert ("paper's figures (notebook 04's from a reconstruction; paper 5 has no experiments, and notebook 05 "
            "simulates instances of our design and the paper's Example 8 with our losses)") in notebooks
    # general-r8, finding 1: paper 4 gives a run count our copy lost
    assert ("at the paper's scale, or at our full scale where the paper states no run count, our copy lost it (paper 4) "
            "or we read it from an earlier figure (paper 3's Figure 3)") in notebooks


def test_r7_6_the_list_of_notebooks_names_the_policies_their_comparisons_rest_on():
    """General-r7, finding 6: notebook 02 compares Patient Bandits with D-UCB (told one law, or each
    arm's) and UCB1 (§4, §7); notebook 03's verdicts rest on OTFLinUCB with the authors' index."""
    from delaylab.papers import manegueu2020, vernade2020

    lines = readme().splitlines()
    row2 = next(ln for ln in lines if ln.startswith("| `02_arm_dependent_delays.ipynb`"))
    row3 = next(ln for ln in lines if ln.startswith("| `03_linear_delayed.ipynb`"))
    assert "; D-UCB (told one delay law, or each arm's) and UCB1 for comparison |" in row2
    assert "OTFLinUCB (as printed, without its delay term, and with the index of the authors' code), OTFLinTS" in row3
    import inspect
    source = inspect.getsource(manegueu2020)
    assert '"D-UCB told the true laws"' in source and '"UCB1": UCB1()' in source
    assert vernade2020.AUTHORS == "OTFLinUCB (authors' code)" and vernade2020.AUTHORS in vernade2020.NAMES
