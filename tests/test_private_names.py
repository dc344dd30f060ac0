"""No module of delaylab reads another module's underscore names.

An underscore name is its module's business: a kernel that reads ``policy._c``, a cache that
reads ``law._knots``, a panel that reads ``plot._slot`` each depend on a detail their owner may
change without notice. What one module needs of another is a public name: a method such as
``Policy.kernel_state()`` or ``DelayLaw.get_params()``, an attribute without the underscore.

A read is ``obj._x`` or ``getattr(obj, "_x")`` (``hasattr``, ``setattr`` and ``delattr`` alike).
Allowed: ``self._x`` and ``cls._x`` (a class's own state), ``super()._x`` (a subclass calling the
hook it overrides), the package's private modules used inside delaylab (``from ._core import
…``), and the few private names of other projects that delaylab cannot do without, listed below
with the reason each is needed; a new one must be added here, on purpose. One module is the
exception by design: ``delaylab/serve/voila_patches.py`` gathers every read of Voila's, Jupyter
Server's and jupyter_client's private state that the dashboards need, and its docstring names each
one (``tests/test_compat.py`` checks that list and that no other serve module reads them).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "delaylab"

#: the one module whose job is other projects' private state (see the module's docstring)
VOILA_PATCHES = "delaylab/serve/voila_patches.py"

#: (file relative to the repository, the expression as written): why it is needed
OTHER_PROJECTS = {
    ("delaylab/executors.py", "os._exit"): "the standard library's documented exit of a forked worker",
    ("delaylab/viz/widget.py", "go.FigureWidget._esm"): "anywidget's attribute for a widget's JavaScript "
    "module (underscored by anywidget's convention; plotly has no other way to it): the dashboards serve "
    "plotly's module once per page instead of once per figure",
    ("delaylab/exercises/guard.py", "sys._current_frames"): "the standard library's documented view of threads' "
    "frames: the time limit on a student's code names where it was stopped",
}


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def private_reads(path: Path) -> list[tuple[int, str]]:
    """(line, expression) of each underscore name of another module read in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name.startswith("_") and not _is_dunder(alias.name):
                    if node.level > 0 and node.module is None:
                        continue  # from . import _submodule: the package's own private module
                    found.append((node.lineno, f"from {'.' * node.level}{node.module or ''} import {alias.name}"))
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not _is_dunder(node.attr):
            if not _own(node.value):
                found.append((node.lineno, ast.unparse(node)))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ATTRIBUTE_FUNCTIONS
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and node.args[1].value.startswith("_")
              and not _is_dunder(node.args[1].value) and not _own(node.args[0])):
            found.append((node.lineno, ast.unparse(node)))  # getattr(obj, "_x", …): the same read
    return found


#: built-ins that read or write an attribute named by a string
ATTRIBUTE_FUNCTIONS = ("getattr", "hasattr", "setattr", "delattr")


def _own(owner: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``: the class's own names."""
    if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
        return True
    return isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super"


def test_no_module_reads_another_modules_private_names():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if rel == VOILA_PATCHES:
            continue
        for line, expr in private_reads(path):
            if (rel, expr) not in OTHER_PROJECTS:
                offenders.append(f"{rel}:{line}: {expr}")
    assert not offenders, "private names read across modules:\n" + "\n".join(offenders)


def test_every_allowed_exception_is_still_there():
    """An exception that is no longer needed leaves the list (it would hide a new read)."""
    for rel, expr in OTHER_PROJECTS:
        assert expr in {e for _, e in private_reads(PACKAGE.parent / rel)}, (rel, expr)


def test_the_walker_sees_what_it_must(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from .x import _hidden\nfrom . import _env\nclass A(B):\n"
                      "    def f(self, p):\n        self._own = p._theirs\n        super()._hook()\n"
                      "        getattr(self, '_mine', None), getattr(p, 'public'), getattr(p, '__doc__')\n"
                      "        setattr(p, '_flag', True)\n"
                      "        return cls._c, p.__class__, getattr(p.q, '_pools', {})\n")
    assert [e for _, e in private_reads(sample)] == [
        "from .x import _hidden", "p._theirs", "setattr(p, '_flag', True)", "getattr(p.q, '_pools', {})"]
