"""The output-stripping git filter for students' notebooks (tools/strip_notebook.py, configured by
``python3 tasks.py lab``): a notebook run and saved in JupyterLab is, for git, the committed one."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from strip_notebook import strip  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def as_saved_by_jupyter(text: str) -> str:
    """The notebook with what a run adds: outputs, counts, timings, widget state, kernel details."""
    nb = json.loads(text)
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            cell["execution_count"] = i + 1
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["42\n"]}]
            cell["metadata"]["execution"] = {"iopub.execute_input": "2026-11-23T10:00:00Z"}
    nb["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {"x": 1}}}
    nb["metadata"]["language_info"] = {"name": "python", "version": "3.11.2", "mimetype": "text/x-python"}
    nb["metadata"]["kernelspec"]["display_name"] = "Python 3 (ipykernel)"  # what JupyterLab writes on save
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_run_notebook_strips_back_to_the_committed_one(path):
    committed = path.read_text(encoding="utf-8")
    assert strip(committed) == committed  # nothing to strip: byte for byte
    assert strip(as_saved_by_jupyter(committed)) == committed


def test_every_notebook_names_its_kernel_as_jupyterlab_saves_it():
    """Opening, running and saving a notebook in JupyterLab leaves no diff, not even the kernel's name."""
    for path in NOTEBOOKS:
        spec = json.loads(path.read_text(encoding="utf-8"))["metadata"]["kernelspec"]
        assert spec == {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}, path.name
    nb = json.loads(NOTEBOOKS[0].read_text(encoding="utf-8"))
    nb["metadata"]["kernelspec"]["display_name"] = "Python 3"  # an older copy
    assert json.loads(strip(json.dumps(nb)))["metadata"]["kernelspec"]["display_name"] == "Python 3 (ipykernel)"


def test_edits_are_kept_and_other_files_pass():
    nb = json.loads(NOTEBOOKS[1].read_text(encoding="utf-8"))
    code = next(c for c in nb["cells"] if c["cell_type"] == "code")
    code["source"] = ["my answer = 42\n"]
    out = json.loads(strip(as_saved_by_jupyter(json.dumps(nb))))
    assert any(c["source"] == ["my answer = 42\n"] for c in out["cells"])
    assert all(not c.get("outputs") for c in out["cells"] if c["cell_type"] == "code")
    for text in ("not json", '{"no": "cells"}', ""):
        assert strip(text) == text


@pytest.mark.skipif(not shutil.which("git"), reason="needs git")
def test_git_sees_a_run_notebook_as_unchanged(tmp_path):
    def git(*args):
        return subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, text=True).stdout

    (tmp_path / "notebooks").mkdir()
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "strip_notebook.py", tmp_path / "tools")
    shutil.copy(ROOT / ".gitattributes", tmp_path)
    nb = tmp_path / "notebooks" / NOTEBOOKS[3].name
    shutil.copy(NOTEBOOKS[3], nb)
    git("init", "-q")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    git("config", "filter.delaylab-strip.clean", f'"{sys.executable}" tools/strip_notebook.py')
    git("add", ".")
    git("commit", "-qm", "workbook")
    nb.write_text(as_saved_by_jupyter(nb.read_text(encoding="utf-8")), encoding="utf-8")
    assert git("diff") == ""  # outputs are not a change…
    git("add", "notebooks")  # …and once git has looked (its stat cache), not even a "modified" flag
    assert git("status", "--porcelain") == "" and git("diff", "--cached") == ""
    text = nb.read_text(encoding="utf-8").replace("import numpy as np", "import numpy as np  # mine", 1)
    nb.write_text(text, encoding="utf-8")
    assert git("status", "--porcelain").strip() == f"M notebooks/{nb.name}"  # an edit is


@pytest.mark.skipif(not shutil.which("git"), reason="needs git")
def test_tasks_lab_configures_the_filter_once(tmp_path, capsys):
    import importlib.util

    shutil.copy(ROOT / "tasks.py", tmp_path)
    shutil.copy(ROOT / ".gitattributes", tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    spec = importlib.util.spec_from_file_location("tasks_copy", tmp_path / "tasks.py")
    tasks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tasks)
    tasks.configure_git_filter()
    tasks.configure_git_filter()  # the second time: nothing to do, nothing said
    said = capsys.readouterr().out
    assert said.count("git now ignores the outputs") == 1
    got = subprocess.run(["git", "config", "--local", "filter.delaylab-strip.clean"], cwd=tmp_path,
                         capture_output=True, text=True).stdout.strip()
    assert got.endswith("tools/strip_notebook.py") and Path(sys.executable).as_posix() in got
