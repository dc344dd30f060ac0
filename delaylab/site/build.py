"""Build the course site: ``python -m delaylab.site [--out DIR]`` (``python3 tasks.py book``).

1. **Transform** each notebook into the book's source folder (``<out>.src``, next to the site):
   check cells and exercises out, exercise boxes and the launch bar in, formulas as MathML, code
   folded (:mod:`delaylab.site.transform`).
2. **Execute** them, two at a time, each in a kernel set up for the site
   (:mod:`delaylab.site.kernel`): paper figures at the paper's scale and live panels recorded as
   explorables, all written as static HTML; the sweeps read and fill the sweep cache (the
   dashboards' ``$DELAYLAB_CACHE`` or ``~/.cache/delaylab``), so a second build computes nothing
   that did not change.
3. **Jupyter Book 1.x** (Sphinx, myst-nb, sphinx-book-theme) turns them into HTML, offline: no
   notebook execution there, no MathJax (no formula is left in TeX), no widget manager from a CDN.
4. **Assets**: the site's one plotly.js (plotly.js's basic bundle when set-up fetched it —
   scatter, bar, pie: all the workbook draws — else plotly's full bundle), its script and style,
   the notebooks as shipped (the launch bar's downloads), and ``.nojekyll`` for GitHub Pages.

The site is ``<out>/index.html`` and one page per notebook; ``<out>/.delaylab-build.json`` holds
what was built, how long each step took and the site's size.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import html
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat

from ..serve.mathml import markdown_with_mathml
from . import transform as tf
from .config import SiteConfig

#: a notebook's cells may run this long (the paper-scale figures, cold)
CELL_TIMEOUT = 1800
BUILD_INFO = ".delaylab-build.json"


class BuildError(RuntimeError):
    """The site could not be built (a notebook failed, Jupyter Book failed): the message says where."""


def package_root() -> Path:
    return Path(__file__).resolve().parents[1]


def plotly_js() -> tuple[str, bytes, str]:
    """``(file name, content, what)`` of the site's plotly.js: the basic bundle if installed,
    else the full one shipped with the plotly package."""
    from ..viz import plotlyjs

    basic = plotlyjs.installed()
    if basic is not None:
        return f"plotly-basic-{plotlyjs.version()}.min.js", basic, "plotly.js basic bundle"
    import plotly

    full = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    return f"plotly-{plotlyjs.version()}.min.js", full.read_bytes(), "plotly.js full bundle"


def fingerprint(notebooks: list[Path], cfg: SiteConfig) -> str:
    """What the site is made of: the notebooks, delaylab's sources, the configuration, plotly."""
    h = hashlib.sha256()
    for p in notebooks:
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    root = package_root()
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix in (".py", ".js", ".css", ".csv") and "__pycache__" not in p.parts:
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    h.update(json.dumps(cfg.__dict__, sort_keys=True).encode())
    name, _, _ = plotly_js()
    h.update(name.encode())
    return h.hexdigest()[:24]


def _execute(path: str, folder: str) -> tuple[str, float]:
    """Execute one transformed notebook in place (in a worker process)."""
    from nbclient import NotebookClient

    from ..serve.transport import IPCKernelManager

    started = time.perf_counter()
    nb = nbformat.read(path, as_version=4)
    # kernels on Unix sockets (delaylab/serve/transport.py): over TCP, on a busy machine, a port
    # picked as free can be taken before the kernel binds it, and the build fails with "Kernel died
    # before replying to kernel_info"
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3", store_widget_state=False,
                            kernel_manager_class=IPCKernelManager, resources={"metadata": {"path": folder}})
    client.execute()
    nbformat.write(nb, path)
    return Path(path).name, time.perf_counter() - started


def kernel_environment(cache: str | None) -> dict:
    """The variables the site's kernels get (None: removed): the sweep cache as their default
    (the figures at the notebooks' defaults read and fill it too, as the dashboards' kernels do),
    and no exercise expectation of the tests (the site is what a student sees)."""
    from ..cache import default_folder, open_cache

    env = {"DELAYLAB_EXERCISES_EXPECT": None}
    try:
        env["DELAYLAB_DEFAULT_CACHE"] = str(open_cache(cache or str(default_folder())).folder)
    except ValueError:  # an unusable cache folder: the build computes everything
        env["DELAYLAB_DEFAULT_CACHE"] = None
    return env


def _set_environment(env: dict) -> None:
    """In a worker process (never in the caller's): ``env`` applied to os.environ."""
    for k, v in env.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def execute_all(paths: list[Path], folder: Path, jobs: int, log, env: dict | None = None) -> dict:
    """Execute the notebooks, ``jobs`` at a time, in worker processes with ``env`` applied
    (:func:`kernel_environment`); returns the seconds each took."""
    seconds = {}
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=ctx, initializer=_set_environment,
                                initargs=(env or {},)) as pool:
        futures = {pool.submit(_execute, str(p), str(folder)): p for p in paths}
        for fut in cf.as_completed(futures):
            p = futures[fut]
            try:
                name, s = fut.result()
            except Exception as exc:  # noqa: BLE001  (nbclient's CellExecutionError names the cell)
                for other in futures:
                    other.cancel()
                raise BuildError(f"{p.name} failed while executing for the site:\n{str(exc)[-4000:]}") from None
            seconds[name] = round(s, 1)
            log(f"executed {name} in {s:.1f} s")
    return seconds


_IPYNB_HREF = re.compile(r"""(href\s*=\s*["'])([\w.-]+)\.ipynb(#[^"']*)?(["'])""")


def finish(path: Path, pages: set[str]) -> list[str]:
    """Tidy an executed notebook for the book: set-up cell out, links between notebooks to their
    pages, nothing a static page cannot show (stderr, widget views). Returns what was dropped."""
    nb = tf.without_setup(nbformat.read(path, as_version=4))
    dropped = []

    def link(m):
        return f"{m.group(1)}{m.group(2)}.html{m.group(3) or ''}{m.group(4)}" if m.group(2) in pages else m.group(0)

    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                dropped.append(f"{path.name} cell {i}: stderr {out.get('text', '')[:200]!r}")
                continue
            data = out.get("data") or {}
            if "application/vnd.jupyter.widget-view+json" in data:
                data.pop("application/vnd.jupyter.widget-view+json")
                if not set(data) - {"text/plain"}:
                    dropped.append(f"{path.name} cell {i}: a widget with no static form")
                    continue
            if "text/html" in data:
                text = data["text/html"]
                text = "".join(text) if isinstance(text, list) else text
                data["text/html"] = _IPYNB_HREF.sub(link, text)
            kept.append(out)
        cell.outputs = kept
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    return dropped


#: where the build moves each figure's data (a script per figure, loaded by the page when the
#: figure comes near the screen: the page's text arrives first, and works from file:// too)
FIGURE_DATA = "_static/dl-data"
_FIGURE_JSON = re.compile(r'<script type="application/json" id="(dl-[a-z]\d+-json)">(.*?)</script>', re.S)


def tidy_page(text: str, title: str) -> str:
    """A page of the book, tidied for every reader:

    * Thebe's inert configuration block out (delaylab.site.sphinxext took its scripts), and Font
      Awesome's script (1.5 MB, a third of a page's first visit): it redraws the theme's icons as
      SVG, which the theme's stylesheet already draws with Font Awesome's web font;
    * the folded code's toggle named by what it says ("Show code cell source"), not by the
      theme's "Toggle hidden content", and the search button by its visible text (a speech
      user says what they see: WCAG 2.5.3);
    * the site's title once in the page's title (the first page's heading is the site's title).
    """
    cleaned = re.sub(r'\s*<script type="text/x-thebe-config">.*?</script>', "", text, flags=re.S)
    cleaned = re.sub(r'\s*<script\b[^>]*src="_static/scripts/fontawesome\.js[^"]*"[^>]*></script>', "", cleaned)
    cleaned = cleaned.replace('<summary aria-label="Toggle hidden content">', "<summary>")
    cleaned = re.sub(r'(<button class="[^"]*search-button-field[^"]*"[^>]*?) aria-label="Search"', r"\1", cleaned)
    t = html.escape(title, quote=False)
    for dash in (" &#8212; ", " — "):
        cleaned = cleaned.replace(f"<title>{t}{dash}{t}</title>", f"<title>{t}</title>")
    return cleaned


def figure_data_out(text: str, page: str, out: Path) -> str:
    """Each figure's JSON out of the page, into ``FIGURE_DATA/<page>/<id>.js`` (a script that
    registers it), and its plot pointed at that file (``data-src``)."""
    folder = out / FIGURE_DATA / page

    def move(m):
        fid, spec = m.group(1), m.group(2)
        folder.mkdir(parents=True, exist_ok=True)
        js = f'(globalThis.delaylabFigures ??= {{}})["{fid}"] = {spec};\n'
        (folder / f"{fid}.js").write_text(js, encoding="utf-8")
        return ""

    moved = _FIGURE_JSON.sub(move, text)
    if moved == text:
        return text
    return re.sub(r'data-spec="(dl-[a-z]\d+-json)"', lambda m: f'{m.group(0)} data-src="{FIGURE_DATA}/{page}/{m.group(1)}.js"',
                  moved)


def index_page(title: str, first: str) -> str:
    """The site's ``index.html``: the first page, with a title and a language (not a bare redirect)."""
    t = html.escape(title)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{t}</title>\n'
            f'<meta http-equiv="Refresh" content="0; url={first}">\n<link rel="canonical" href="{first}">\n</head>\n'
            f'<body>\n<main>\n<h1>{t}</h1>\n<p><a href="{first}">Open the course site</a>.</p>\n</main>\n</body>\n</html>\n')


def book_config(cfg: SiteConfig, plotly_name: str) -> str:
    config = {
        "title": cfg.title,
        "author": "",
        "copyright": "",
        "only_build_toc_files": True,
        "execute": {"execute_notebooks": "off"},
        "parse": {"myst_enable_extensions": ["colon_fence"]},
        "html": {"use_repository_button": False, "use_issues_button": False, "use_edit_page_button": False,
                 "home_page_in_navbar": True, "extra_footer": ""},
        "launch_buttons": {"binderhub_url": "", "jupyterhub_url": "", "colab_url": "", "thebe": False},
        "sphinx": {
            "extra_extensions": ["delaylab.site.sphinxext"],
            "config": {
                "html_copy_source": False,
                "html_show_sourcelink": False,
                "html_static_path": ["_static"],
                "nb_ipywidgets_js": {},
                "html_context": {"default_mode": "auto"},
                "html_favicon": "_static/delaylab-favicon.svg",
                "delaylab_plotly_js": plotly_name,
                "html_theme_options": {"use_download_button": False, "use_repository_button": False,
                                       "use_fullscreen_button": True, "launch_buttons": {},
                                       "show_toc_level": 2, "path_to_docs": "", "repository_url": "",
                                       "home_page_in_toc": True},
                "suppress_warnings": ["mystnb.unknown_mime_type"],
            },
        },
    }
    return json.dumps(config, indent=1)  # JSON is YAML


def toc(names: list[str]) -> str:
    root, rest = names[0], names[1:]
    return json.dumps({"format": "jb-book", "root": Path(root).stem,
                       "chapters": [{"file": Path(n).stem} for n in rest]}, indent=1)


#: a markdown link from a notebook to a document of the repository's docs/ folder
_DOC_LINK = re.compile(r"\]\(\.\./docs/([\w.-]+)\.md(#[^)\s]*)?\)")


def linked_documents(notebooks: list[Path]) -> list[Path]:
    """The documents of ``docs/`` (next to the notebooks' folder) that a notebook links to."""
    found = {}
    for p in notebooks:
        for cell in nbformat.read(p, as_version=4).cells:
            if cell.cell_type == "markdown":
                for m in _DOC_LINK.finditer(cell.source):
                    doc = p.parent.parent / "docs" / f"{m.group(1)}.md"
                    if doc.exists():
                        found[doc.name] = doc
    return [found[k] for k in sorted(found)]


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def build(out: Path, notebooks_dir: Path, cfg: SiteConfig, jobs: int = 2, cache: str | None = None,
          log=print) -> dict:
    """Build the site into ``out`` (replaced); returns the build's report (also in
    ``out/.delaylab-build.json``)."""
    started = time.perf_counter()
    out = Path(out).resolve()
    notebooks = sorted(Path(notebooks_dir).glob("*.ipynb"))
    if not notebooks:
        raise BuildError(f"no notebooks in {notebooks_dir}")
    names = [p.name for p in notebooks]
    pages = {n.removesuffix(".ipynb") for n in names}
    work = out.parent / f".{out.name}-src"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    if not cfg.repository:
        log("no repository address: the site gets no Binder or JupyterHub links, only the notebooks' downloads "
            "(set `repository` in [tool.delaylab.site] of pyproject.toml, or give --repository URL)")
    # 1. transform (and the documents the notebooks link to, as pages of their own)
    docs = linked_documents(notebooks)
    for p in notebooks:
        nb = tf.transform(nbformat.read(p, as_version=4), p.name, cfg)
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = _DOC_LINK.sub(lambda m: f"]({m.group(1)}.md{m.group(2) or ''})", cell.source)
        nbformat.write(nb, work / p.name)
    for doc in docs:
        (work / doc.name).write_text(markdown_with_mathml(doc.read_text(encoding="utf-8")), encoding="utf-8")
    t_transform = time.perf_counter() - started
    # 2. execute (largest first: two workers finish together)
    order = sorted((work / n for n in names), key=lambda p: -(notebooks_dir / p.name).stat().st_size)
    t0 = time.perf_counter()
    executed = execute_all(order, work, jobs, log, kernel_environment(cache))
    t_execute = time.perf_counter() - t0
    dropped = []
    for n in names:
        dropped += finish(work / n, pages)
    for d in dropped:
        log(f"not on the site: {d}")
    report = assemble(work, out, notebooks, cfg, log, extra_pages=[d.name for d in docs])
    report["seconds"].update({"transform": round(t_transform, 1), "execute": round(t_execute, 1),
                              "execute_per_notebook": executed, "total": round(time.perf_counter() - started, 1)})
    report["not_shown"] = dropped
    (out / BUILD_INFO).write_text(json.dumps(report, indent=1))
    return report


def assemble(work: Path, out: Path, notebooks: list[Path], cfg: SiteConfig, log=print, extra_pages=()) -> dict:
    """Steps 3 and 4: the executed notebooks of ``work`` (and the documents ``extra_pages``)
    through Jupyter Book into ``out``."""
    names = [p.name for p in notebooks]
    # 3. the book
    plotly_name, plotly_bytes, plotly_what = plotly_js()
    static = work / "_static"
    shutil.rmtree(static, ignore_errors=True)
    shutil.rmtree(work / "_build", ignore_errors=True)
    static.mkdir()
    from ..viz.theme import THEME_JS

    assets = Path(__file__).resolve().parent / "assets"
    script = "{\n" + THEME_JS + "\n" + (assets / "site.js").read_text() + "\n}\n"  # a block: nothing global but the symbol
    (static / "delaylab-site.js").write_text(script, encoding="utf-8")
    shutil.copy(assets / "site.css", static / "delaylab-site.css")
    (work / "_config.yml").write_text(book_config(cfg, plotly_name), encoding="utf-8")
    (work / "_toc.yml").write_text(toc(names + list(extra_pages)), encoding="utf-8")
    shutil.copy(assets / "favicon.svg", static / "delaylab-favicon.svg")
    t0 = time.perf_counter()
    jb = Path(sys.executable).parent / "jupyter-book"
    cmd = [str(jb) if jb.exists() else "jupyter-book", "build", str(work), "--builder", "html"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    (out.parent / f".{out.name}-book.log").write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise BuildError(f"Jupyter Book failed (exit {proc.returncode}); its output:\n{(proc.stdout + proc.stderr)[-4000:]}")
    warnings = [line for line in (proc.stdout + proc.stderr).splitlines() if "WARNING" in line]
    t_book = time.perf_counter() - t0
    # 4. the site
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(work / "_build" / "html", out)
    # plotly.js joins the site only now: Jupyter Book makes every script of the book's _static a
    # script of every page, and the site's script loads it where a figure needs it (near the screen)
    (out / "_static" / plotly_name).write_bytes(plotly_bytes)
    shutil.rmtree(out / "_sources", ignore_errors=True)
    for page in out.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        cleaned = tidy_page(text, cfg.title)
        cleaned = figure_data_out(cleaned, page.stem, out)
        if cleaned != text:
            page.write_text(cleaned, encoding="utf-8")
    (out / "index.html").write_text(index_page(cfg.title, names[0].removesuffix(".ipynb") + ".html"), encoding="utf-8")
    (out / "notebooks").mkdir(exist_ok=True)
    for p in notebooks:
        shutil.copy(p, out / "notebooks" / p.name)
    (out / ".nojekyll").write_text("")
    report = {
        "fingerprint": fingerprint(notebooks, cfg),
        "pages": [n.removesuffix(".ipynb") + ".html" for n in names],
        "plotly_js": plotly_name, "plotly_js_bytes": len(plotly_bytes), "plotly_js_kind": plotly_what,
        "seconds": {"jupyter_book": round(t_book, 1)},
        "site_bytes": _size(out),
        "page_bytes": {n.removesuffix(".ipynb") + ".html": (out / (n.removesuffix(".ipynb") + ".html")).stat().st_size
                       for n in names},
        "book_warnings": warnings[:50],
        "config": cfg.__dict__,
    }
    return report
