"""What a spare dashboard kernel may import before it knows its page, and what it completes at
hand-over, so that the page sees what a kernel started for it shows.

A dashboard's first cell imports delaylab's paper, panel and exercise modules, with plotly,
ipywidgets and anywidget: the largest part of a warm page's wait once its kernel is the spare
(:mod:`delaylab.serve.spare`; benchmarks/RESULTS.md). The spare imports ahead only what the page's
first cell is certain to import itself (:func:`modules_every_notebook_imports`), so a page gets no
module it would not have had, and only *when* each module was imported differs: before the kernel
existed rather than in the first cell. Of what those modules do when imported, exactly three
things depend on that moment, all on IPython's ``get_ipython()`` (None before the kernel exists);
``tests/test_extension.py`` records every module-level call of ``get_ipython()``, every
environment variable, ``sys.argv`` and working-folder access, and every change to the standard
streams, signal handlers, warning filters and threads that the imports make, and fails on any
other:

* ``plotly.io._renderers`` picks plotly's default renderer from the kernel it finds (the
  ``plotly_mimetype`` renderer in an ipykernel; in plain Python, the ``browser``).
  :func:`complete` evaluates plotly's own module code again in the kernel (into a throw-away
  module, so that plotly's one ``renderers`` object is kept) and gives ``renderers`` the default
  that code picked. During the spare's imports ``PLOTLY_RENDERER`` is set (unless the server's
  environment sets it) so that plotly does not look for a web browser.
* ``ipywidgets`` registers its comm targets (``jupyter.widget``, ``jupyter.widget.control``) with
  the kernel's comm manager when imported in a kernel (its ``_handle_ipython()``): :func:`complete`
  calls the ``register_comm_target()`` that it calls.
* ``delaylab.exercises`` installs its answer capture (an IPython ``post_run_cell`` callback, and
  the answers of cells run before it, none before a first cell): :func:`complete` calls its
  ``install_capture()``.

Everything else those modules read when imported is the same in the spare as in the page's
kernel: the environment but for the page's own variables (the spare is used only then,
:func:`delaylab.serve.spare.Spare.fits`), which no module reads when imported. Two things are
checked at hand-over (:func:`refusal`), and a page for which either fails gets a kernel started
afresh in the spare's process (``exec``: the same process id, the provisioner none the wiser):

* the page's notebook's first cell imports every module imported ahead (a student's own
  notebook may import none of them);
* the page's folder holds no file or package of the name of a module imported ahead (a kernel
  puts its working folder on ``sys.path``, before site-packages: there, ``plotly.py`` would
  be imported instead of plotly).

Which modules the first cell is certain to import is read from the source, without importing it:
the modules its ``import`` statements name, and, for delaylab's own modules, what their
unconditional module-level imports name, recursively (:func:`certain_imports`). Modules imported
only under a condition, or inside functions, are not counted: the set is never larger than what
the cell imports. The modules imported ahead are those every dashboard notebook of the served
folder imports so (:func:`modules_every_notebook_imports`, the ``notebooks`` folders under the
server's root).
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import json
import os
import sys
from pathlib import Path

#: the package whose own modules' imports are followed (others' are imported as named)
PACKAGE = "delaylab"
#: where a server's dashboard notebooks are looked for, under its root: ``notebooks`` folders at
#: most this deep (a course's clone of the repository: ``~/delaylab/notebooks``)
NOTEBOOK_DEPTH = 3
#: at most this many notebooks are read (a spare's start stays cheap in a large home folder)
MAX_NOTEBOOKS = 64
#: the renderer plotly is told while the spare imports it (any whose choice involves no browser)
PLACEHOLDER_RENDERER = "json"
#: in a kernel that was a spare: the modules it imported before its page (:func:`import_ahead`)
IMPORTED_AHEAD: tuple = ()


# ============================================================================ reading the source
def first_code_cell(path) -> str | None:
    """The source of a notebook's first code cell, or None (unreadable, no code cell)."""
    try:
        with open(path, encoding="utf-8") as f:
            nb = json.load(f)
    except (OSError, ValueError):
        return None
    for cell in nb.get("cells", []) if isinstance(nb, dict) else []:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            return "".join(source) if isinstance(source, list) else str(source)
    return None


def _package_dir() -> Path:
    spec = importlib.machinery.PathFinder.find_spec(PACKAGE, sys.path)
    return Path(spec.origin).parent if spec and spec.origin else Path(__file__).resolve().parents[1]


def _source_of(module: str, root: Path) -> Path | None:
    """The file of one of :data:`PACKAGE`'s modules (``None``: not one, or none found)."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    base = root.joinpath(*parts[1:])
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _is_ours(module: str, root: Path) -> bool:
    return _source_of(module, root) is not None


def _statement_imports(body, package: str, root: Path) -> set:
    """The modules the unconditional ``import`` statements of ``body`` (a module's or cell's
    top-level statements, and the imports that open the body of a ``try``: a statement that
    raises there skips what follows it) import, ``package`` being the package that relative
    imports start from. (An import that fails is no concern here: the spare's then fails too,
    and the page gets a kernel started afresh.)"""
    found = set()
    for node in body:
        if isinstance(node, ast.Try):
            opening = []
            for statement in node.body:
                if not isinstance(statement, (ast.Import, ast.ImportFrom)):
                    break
                opening.append(statement)
            found |= _statement_imports(opening, package, root)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                if node.level > len(parts):
                    continue
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if not base:
                continue
            found.add(base)
            for alias in node.names:  # ``from delaylab import exercises``: a submodule, imported
                if alias.name != "*" and _is_ours(f"{base}.{alias.name}", root):
                    found.add(f"{base}.{alias.name}")
    return found


def _with_parents(names) -> set:
    out = set()
    for name in names:
        parts = name.split(".")
        out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return out


#: a module's file -> (its modification time, what its unconditional imports name)
_PARSED: dict = {}


def _module_imports(name: str, path: Path, root: Path) -> set:
    """What the unconditional module-level imports of ``name`` (its file ``path``) name, with
    their parents (read once per version of the file)."""
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return set()
    cached = _PARSED.get(path)
    if cached is None or cached[0] != stamp:
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        try:
            body = ast.parse(path.read_text(encoding="utf-8")).body
        except (OSError, SyntaxError, ValueError):
            body = []
        cached = _PARSED[path] = (stamp, frozenset(_with_parents(_statement_imports(body, package, root))))
    return set(cached[1])


def certain_imports(source: str, root: Path | None = None) -> set:
    """The modules that running ``source`` (a cell) is certain to import, read, not run: those its
    unconditional ``import`` statements name and their parent packages, and, for
    :data:`PACKAGE`'s modules, the same of their own source, recursively. Empty if the source
    is not Python (a magic, a syntax error)."""
    root = root or _package_dir()
    todo = _with_parents(_statement_imports(_parse_body(source), "", root))
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = _source_of(name, root)
        if path is not None:
            todo |= _module_imports(name, path, root) - seen
    return seen


def dashboard_notebooks(root, depth: int = NOTEBOOK_DEPTH, limit: int = MAX_NOTEBOOKS) -> list:
    """The dashboard notebooks of a server whose root is ``root``: the ``*.ipynb`` of ``root``
    and of the folders named ``notebooks`` at most ``depth`` deep under it (hidden folders
    skipped), whose first code cell imports :data:`PACKAGE`; at most ``limit`` of them are read."""
    root = Path(root)
    found, level = sorted(root.glob("*.ipynb")), [root]
    for _ in range(depth + 1):
        following = []
        for folder in level:
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
                    continue
                if entry.name == "notebooks":
                    found += sorted(Path(entry.path).glob("*.ipynb"))
                else:
                    following.append(Path(entry.path))
        level = following
    picked = []
    for path in found[:limit]:
        source = first_code_cell(path)
        if source and PACKAGE in _with_parents(_statement_imports(_parse_body(source), "", Path("."))):
            picked.append(path)
    return picked


def _parse_body(source: str) -> list:
    try:
        return ast.parse(source).body
    except (SyntaxError, ValueError):
        return []


def modules_every_notebook_imports(root) -> list:
    """The modules the first cell of every dashboard notebook under ``root``
    (:func:`dashboard_notebooks`) is certain to import (:func:`certain_imports`), sorted so that
    a package comes before its modules; empty if there is no such notebook."""
    package_root = _package_dir()
    common = None
    for path in dashboard_notebooks(root):
        mods = certain_imports(first_code_cell(path) or "", package_root)
        common = mods if common is None else common & mods
    return sorted(common or (), key=lambda m: (m.count("."), m))


# ============================================================================ in the spare
def import_ahead(modules) -> tuple:
    """Import ``modules`` (in the spare, before its page), in order: ``(imported, said)``, what
    was imported and what the imports said (printed, warned, failed). What a module prints or
    warns when imported would have been the page's first cell's output: a spare whose imports
    said anything is not used as it is (:func:`delaylab.serve.kernel.main` starts the page's
    kernel afresh)."""
    import io
    import warnings

    renderer = "PLOTLY_RENDERER" not in os.environ
    if renderer:  # plotly's default renderer is chosen again at hand-over (complete)
        os.environ["PLOTLY_RENDERER"] = PLACEHOLDER_RENDERER
    said, done = [], []
    filters = list(warnings.filters)
    streams, show = (sys.stdout, sys.stderr), warnings.showwarning
    sys.stdout = sys.stderr = out = io.StringIO()
    warnings.showwarning = lambda message, category, *args, **kwargs: said.append(
        f"{category.__name__}: {message}")
    try:
        for name in modules:
            try:
                importlib.import_module(name)
                done.append(name)
            except Exception as exc:  # noqa: BLE001 - said: the page's kernel starts afresh
                said.append(f"{name}: {type(exc).__name__}: {exc}")
    finally:
        sys.stdout, sys.stderr = streams
        warnings.showwarning = show
        if renderer:
            os.environ.pop("PLOTLY_RENDERER", None)
    if out.getvalue():
        said.append(out.getvalue())
    global IMPORTED_AHEAD, _FILTERS_AHEAD
    IMPORTED_AHEAD = tuple(done)
    _FILTERS_AHEAD = _added_filters(filters, warnings.filters)
    return done, said


#: the warning filters the imports ahead added: (those put first, those put last)
_FILTERS_AHEAD: tuple = ((), ())


def _added_filters(before: list, after: list) -> tuple:
    """The filters of ``after`` not in ``before``: those in front of the first old one, and
    those behind the last old one (``warnings.filterwarnings`` puts a filter first, or last with
    ``append=True``)."""
    old = {id(f) for f in before}
    positions = [i for i, f in enumerate(after) if id(f) in old]
    if not positions:
        return tuple(after), ()
    return tuple(after[:positions[0]]), tuple(after[positions[-1] + 1:])


def _filters_in_import_order() -> None:
    """The warning filters the imports ahead put first, put first again (in their order), in
    front of those the kernel's start added since, as imports in a started kernel leave them
    (with ``warnings.filterwarnings``, which moves a filter it is given again to the front). A
    filter that call would not give back as it is (a message pattern without ``re.IGNORECASE``)
    is left where it is; so are filters appended (none of the imports appends one: tested)."""
    import re
    import warnings

    for action, message, category, module, lineno in reversed(_FILTERS_AHEAD[0]):
        text, where = (message.pattern if message else ""), (module.pattern if module else "")
        again = (action, re.compile(text, re.I) if text else None, category, re.compile(where) if where else None,
                 lineno)
        if again == (action, message, category, module, lineno) and isinstance(text, str) and isinstance(where, str):
            warnings.filterwarnings(action, text, category, where, lineno)


def _top_level_from_outside(modules) -> set:
    """The top-level names among ``modules`` that a module in the working folder could shadow:
    those not found in Python's own library (which comes before the working folder on a
    kernel's ``sys.path``)."""
    names = set()
    stdlib = set(getattr(sys, "stdlib_module_names", ()))
    for name in modules:
        top = name.split(".")[0]
        if top not in stdlib and top not in sys.builtin_module_names:
            names.add(top)
    return names


def shadowed(modules, folder) -> list:
    """Which of ``modules``' top-level packages a file or package in ``folder`` would be imported
    as instead, in a kernel whose working folder is ``folder`` (IPython puts it on ``sys.path``
    before site-packages); and any package metadata there (``*.dist-info``, ``*.egg-info``: plotly,
    nbformat, anywidget and psygnal read their version with ``importlib.metadata`` when imported,
    which looks in the working folder first)."""
    try:
        out = sorted(e.name for e in os.scandir(folder) if e.name.endswith((".dist-info", ".egg-info")))
    except OSError:
        out = []
    for top in sorted(_top_level_from_outside(modules)):
        try:
            spec = importlib.machinery.PathFinder.find_spec(top, [os.fspath(folder)])
        except (ImportError, ValueError, OSError):
            continue
        if spec is not None and spec.loader is not None:  # a namespace portion shadows nothing
            out.append(top)
    return out


def page_notebook(env: dict, cwd) -> Path | None:
    """The notebook of a Voila page's kernel: its request path's (``SCRIPT_NAME``) last part,
    in its working folder."""
    from urllib.parse import unquote

    name = unquote(str(env.get("SCRIPT_NAME", ""))).rstrip("/").rpartition("/")[2]
    if not name.endswith(".ipynb") or cwd is None:
        return None
    return Path(cwd) / name


def refusal(modules, env: dict, cwd) -> str | None:
    """Why a page (its kernel's environment and folder) must not get a kernel that imported
    ``modules`` ahead, or None: its notebook's first cell does not import them all, or its folder
    shadows one of them."""
    if not modules:
        return None
    notebook = page_notebook(env, cwd)
    source = first_code_cell(notebook) if notebook else None
    if source is None:
        return f"no notebook found for the page ({env.get('SCRIPT_NAME', '')!r})"
    missing = set(modules) - certain_imports(source)
    if missing:
        return f"{notebook.name}'s first cell does not import {', '.join(sorted(missing)[:5])}"
    hidden = shadowed(modules, cwd) if cwd else []
    if hidden:
        return f"the page's folder holds {', '.join(hidden)}, which its kernel would import instead"
    return None


def complete(modules) -> None:
    """In the kernel, once IPython's shell exists (before its first cell): what the modules
    imported ahead do when imported in a kernel (see the module's docstring)."""
    if not modules:
        return
    _filters_in_import_order()
    # each only if imported before the kernel existed (whatever imported it: all are in the spare)
    if "plotly.io._renderers" in sys.modules:
        _choose_plotly_renderer()
    if "ipywidgets" in sys.modules:  # as ipywidgets does when imported in a kernel
        from IPython import get_ipython

        if get_ipython() is not None:
            sys.modules["ipywidgets"].register_comm_target()
    if "delaylab.exercises" in sys.modules:
        sys.modules["delaylab.exercises"].install_capture()


def _choose_plotly_renderer() -> None:
    """plotly's default renderer, as plotly's module code chooses it in this process now."""
    import importlib.util

    spec = importlib.util.find_spec("plotly.io._renderers")
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)  # not in sys.modules: plotly's own module and objects stay
    real = sys.modules["plotly.io._renderers"].renderers
    real.render_on_display = fresh.renderers.render_on_display
    real.default = fresh.renderers.default
