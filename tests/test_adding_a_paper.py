"""docs/adding-a-paper.md against the code it describes.

Every file the guide names in backticks (``delaylab/…py``, ``tests/…py``, …) exists, unless it is
a placeholder of the new paper's own (``<key>``, ``NN``), whose folder must exist; every
``file.py::Name`` is defined at the top level of that file; every dotted ``delaylab.…`` name
imports. And the guide names every file that the toy paper of tests/test_toy_paper.py needs: the
modules it imports, the base classes it extends, and the files a paper of its own would create.
So the guide fails the day a file or a symbol it names is renamed or removed.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "adding-a-paper.md"
TOY = ROOT / "tests" / "test_toy_paper.py"
PATH = re.compile(r"^(?:delaylab|tests|benchmarks|tools|docs|notebooks)/[^\s`]+\.(?:py|md|ipynb)(?:::\w+)?$|^README\.md$")
DOTTED = re.compile(r"^delaylab(?:\.\w+)+")
PLACEHOLDER = re.compile(r"<[^>]+>|NN")


def spans(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", text)


def named_paths(text: str) -> set[str]:
    """The files the text names in backticks (without a ``::Name``)."""
    return {s.split("::")[0] for s in spans(text) if PATH.match(s)}


def named_modules(text: str) -> set[str]:
    """The dotted delaylab names the text gives in backticks (each prefix too: a module)."""
    out = set()
    for s in spans(text):
        m = DOTTED.match(s)
        if m:
            parts = m.group(0).split(".")
            out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out


def top_level_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            for t in node.targets:  # (a, b, c) = …
                if isinstance(t, ast.Tuple):
                    names.update(e.id for e in t.elts if isinstance(e, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def resolve(dotted: str):
    """Import the longest module prefix of ``dotted`` and read the rest as attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def problems(text: str) -> list[str]:
    out = []
    for s in spans(text):
        if PATH.match(s):
            file, _, symbol = s.partition("::")
            if PLACEHOLDER.search(file):  # a file of the new paper's: its folder exists
                folder = file[:PLACEHOLDER.search(file).start()].rsplit("/", 1)[0]
                if not (ROOT / folder).is_dir():
                    out.append(f"{s}: no folder {folder}")
            elif not (ROOT / file).is_file():
                out.append(f"{s}: no such file")
            elif symbol and symbol not in top_level_names(ROOT / file):
                out.append(f"{s}: {symbol} is not defined at the top level of {file}")
        else:
            m = DOTTED.match(s)
            if m:
                try:
                    resolve(m.group(0))
                except (ImportError, AttributeError) as exc:
                    out.append(f"{s}: {type(exc).__name__}: {exc}")
    return out


def test_the_checks_find_what_does_not_exist():
    text = ("`delaylab/policies/base.py` `delaylab/policies/nothing.py` `delaylab/papers/<key>.py` "
            "`benchmarks/nowhere/<key>.py` `delaylab/panels/base.py::Panel` `delaylab/panels/base.py::Pane` "
            "`delaylab.panels.base.Panel` `delaylab.panels.base.Nothing` `delaylab.nothing` `Kernel`")
    found = problems(text)
    assert found == ["delaylab/policies/nothing.py: no such file", "benchmarks/nowhere/<key>.py: no folder benchmarks/nowhere",
                     "delaylab/panels/base.py::Pane: Pane is not defined at the top level of delaylab/panels/base.py",
                     "delaylab.panels.base.Nothing: AttributeError: module 'delaylab.panels.base' has no attribute "
                     "'Nothing'",
                     "delaylab.nothing: AttributeError: module 'delaylab' has no attribute 'nothing'"]
    assert named_paths(text) >= {"delaylab/policies/base.py", "delaylab/panels/base.py"}


def test_every_file_and_symbol_the_guide_names_exists():
    text = GUIDE.read_text(encoding="utf-8")
    assert len(spans(text)) > 100  # the guide names things in backticks
    assert problems(text) == []


def toy_modules() -> set[str]:
    """The delaylab modules tests/test_toy_paper.py imports (and the packages they are in)."""
    out = set()
    for node in ast.walk(ast.parse(TOY.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "delaylab")
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "delaylab":
            out.add(node.module)
            package = importlib.import_module(node.module)
            for a in node.names:  # `from delaylab import exercises`: a module too
                if hasattr(package, "__path__") and importlib.util.find_spec(f"{node.module}.{a.name}") is not None:
                    out.add(f"{node.module}.{a.name}")
    return out


def module_file(name: str) -> str:
    return Path(importlib.import_module(name).__file__).resolve().relative_to(ROOT).as_posix()


#: What a paper like the toy one creates or edits besides the modules it imports: its policy, its
#: panel and its exercises module, where those are registered, and its notebook.
TOY_PAPER_FILES = {"delaylab/policies/<family>.py", "delaylab/panels/<panel>.py", "delaylab/exercises/pNN.py",
                   "delaylab/exercises/__init__.py", "delaylab/exercises/ui.py", "delaylab/__init__.py",
                   "delaylab/policies/base.py", "delaylab/panels/base.py", "notebooks/NN_<name>.ipynb",
                   "tests/test_toy_paper.py"}


def test_the_guide_names_every_file_the_toy_paper_needs():
    text = GUIDE.read_text(encoding="utf-8")
    paths, dotted = named_paths(text), named_modules(text)
    modules = toy_modules()
    assert {"delaylab", "delaylab.exercises", "delaylab.panels.base"} <= modules
    missing = [f"{m} ({module_file(m)})" for m in sorted(modules) if m not in dotted and module_file(m) not in paths]
    assert missing == [], f"the guide does not name {missing}"
    assert TOY_PAPER_FILES <= paths, sorted(TOY_PAPER_FILES - paths)


@pytest.mark.parametrize("where", ["## Layout", "Every live panel derives from one base class"])
def test_the_readme_links_the_guide(where):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(where)
    section = text[start:text.find("\n## ", start + 3)]
    assert "docs/adding-a-paper.md" in section
