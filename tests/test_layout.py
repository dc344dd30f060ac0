"""The README's map of names (section "Layout"): one key per paper, and every file it names exists.

A sixth paper, or a renamed module, must update the map; a map that names a file that is gone, or
leaves out a notebook or a paper module, fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import delaylab.papers

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = {"notebook": "notebooks", "figures and parameters": "delaylab", "live panel": "delaylab",
           "exercises": "delaylab", "reference loops": "", "benchmark": ""}


def name_map() -> dict[str, dict[str, str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = text[text.index("## Layout"):]
    lines = [ln for ln in layout.splitlines() if ln.startswith("| ")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {}
    for ln in lines[1:]:
        cells = [c.strip().strip("`") for c in ln.strip("|").split("|")]
        if set(cells[0]) <= {"-"}:
            continue
        rows[cells[0]] = dict(zip(header[1:], cells[1:]))
    return rows


def test_every_file_the_map_names_exists():
    rows = name_map()
    assert len(rows) == 5
    for key, row in rows.items():
        assert set(row) == set(COLUMNS), row
        for column, folder in COLUMNS.items():
            path = ROOT / folder / row[column]
            assert path.is_file(), f"{key}: {column} {path} does not exist"


def test_the_map_covers_every_paper_and_notebook():
    rows = name_map()
    papers = {p.stem for p in Path(delaylab.papers.__file__).parent.glob("*.py") if p.stem != "__init__"}
    assert set(rows) == papers
    notebooks = {p.name for p in (ROOT / "notebooks").glob("0[1-9]_*.ipynb")}
    assert {r["notebook"] for r in rows.values()} == notebooks
    for key, row in rows.items():
        assert row["figures and parameters"] == f"papers/{key}.py"
        assert row["reference loops"] == f"tests/oracles/{key}.py"
        number = re.match(r"(\d\d)_", row["notebook"]).group(1)
        assert row["exercises"] == f"exercises/p{number}.py"
        assert list((ROOT / "tests").glob(f"test_{key}_*.py")), f"no tests/test_{key}_*.py"
