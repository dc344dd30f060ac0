"""No circles in the house: no module of the package or of the benchmarks imports itself back.

Every import is read, at any depth (a function's deferred import is still a dependency), from
the source with ``ast``: ``import a.b``, ``from a import b`` (b a module or a name), relative
imports, and the package's ``__init__`` for ``import delaylab``. The graph is of files; a circle
is a strongly connected component of more than one file, or a file that imports itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = {"delaylab": ROOT / "delaylab", "benchmarks": ROOT / "benchmarks"}


def modules() -> dict[str, Path]:
    """Dotted module name → file: the package's modules, and the benchmarks' top-level scripts
    (which import each other by bare name, as sys.path puts benchmarks/ first)."""
    out = {}
    for path in TREES["delaylab"].rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    for path in TREES["benchmarks"].glob("*.py"):
        out[path.stem] = path
    return out


def _resolve(name: str, known: dict) -> str | None:
    """The longest known module that ``name`` is or lies in."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def imports(name: str, path: Path, known: dict) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (m := _resolve(alias.name, known)) is not None:
                    out.add(m)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                base = ".".join(base + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:  # `from pkg import module` imports the module
                if (full := f"{base}.{alias.name}") in known:
                    out.add(full)
                elif (m := _resolve(base, known)) is not None:
                    out.add(m)
    out.discard(name) if name not in out else None
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module (or with a self-loop)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in g.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_no_module_imports_itself_back():
    found = circles(graph())
    g = graph()
    detail = []
    for comp in found:
        detail.append(" ↔ ".join(comp) + ": " + "; ".join(f"{a} → {b}" for a in comp for b in sorted(g[a]) if b in comp))
    assert not found, "import circles:\n" + "\n".join(detail)


def test_the_check_sees_a_circle_and_deferred_imports(tmp_path):
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert circles(g) == [["a", "b", "c"], ["e"]]
    known = {"delaylab": ROOT / "delaylab/__init__.py", "delaylab.x": None, "delaylab.x.ui": None,
             "delaylab.x._core": None}
    src = tmp_path / "_core.py"
    src.write_text("def f():\n    from .ui import thing\n    import delaylab\n")
    assert imports("delaylab.x._core", src, known) == {"delaylab.x.ui", "delaylab"}
