"""The linter passes on the whole repository (ruff, configured in pyproject.toml's [tool.ruff])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_is_configured_and_would_see_a_finding(tmp_path):
    """The configuration is read (not ruff's defaults), and it flags what it is meant to flag."""
    config = ROOT / "pyproject.toml"
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f(xs):\n    for x in xs:\n        pass\n    return f'{1}' + f'no placeholder'\n")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--config", str(config),
                           "--output-format", "concise", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert {"F401", "B007", "F541"} <= {part for line in proc.stdout.splitlines() for part in line.split()}
