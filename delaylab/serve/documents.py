"""The documents the notebooks link to, served beside the dashboards as pages.

The notebooks link to ``docs/readings.md`` as ``../docs/readings.md``: JupyterLab (its root is the
repository) opens it, and the course site rewrites the link to its own page. On a dashboard the same
relative link resolves against the page's address, ``…/voila/render/<folder>/<notebook>``, to
``…/voila/docs/readings.md`` (``tasks.py dashboard``: the notebooks' folder is the render root) or
``…/voila/render/<clone>/docs/readings.md`` (Voila inside a Jupyter server, on a hub: the server's
root holds the clone). Voila serves neither: the link was a 404.

:class:`DocumentHandler` answers at those addresses with the document as an HTML page of its own:
the markdown rendered by nbconvert's renderer (the one that renders the notebooks' text), its
formulas as MathML with spoken names (:mod:`delaylab.serve.mathml`), a page language, a title, a
``main`` landmark, a readable measure that fits a phone, and light or dark colours as the reader's
system prefers. Only the documents named in :data:`DOCUMENTS`, in a ``docs`` folder under the
server's root (or beside the dashboards' notebooks folder), are served; any other path is a 404.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import tornado.web
from jupyter_server.base.handlers import JupyterHandler

from .mathml import MATH_STYLE, markdown_with_mathml

#: the documents the notebooks link to (``docs/<name>.md``)
DOCUMENTS = ("readings",)

#: the page around a document: what axe-core asks of a page (lang, title, a main landmark),
#: a measure of about 70 characters, 200% zoom and a 390 px phone without sideways scrolling,
#: and colours with a contrast above 7:1 in both schemes
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · delaylab</title>
<style>
:root {{ color-scheme: light dark; }}
body {{ font-family: system-ui, sans-serif; line-height: 1.55; margin: 0; background: #fff; color: #1a1a1a; }}
main {{ max-width: 46rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; overflow-wrap: break-word; }}
a {{ color: #0b57a4; }}
code {{ font-size: 0.95em; }}
pre {{ overflow-x: auto; }}
table {{ border-collapse: collapse; display: block; overflow-x: auto; }}
th, td {{ border: 1px solid #8a8a8a; padding: 0.25em 0.5em; }}
math[display="block"] {{ overflow-x: auto; overflow-y: hidden; }}
@media (prefers-color-scheme: dark) {{
  body {{ background: #161616; color: #ececec; }}
  a {{ color: #8cc4ff; }}
}}
</style>
</head><body>
<main>
{body}
</main>
{math_style}
</body></html>
"""


def render(source: str) -> str:
    """The markdown ``source`` as a page (:data:`PAGE`), titled by its first heading."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    heading = re.search(r"^#\s+(.+)$", source, flags=re.M)
    title = html.escape(heading.group(1).strip()) if heading else "delaylab"
    body = markdown2html_mistune(markdown_with_mathml(source))
    return PAGE.format(title=title, body=body, math_style=MATH_STYLE if "<math " in body else "")


def find(root: Path, folder: str, name: str) -> Path | None:
    """``root/folder/docs/name.md`` if ``name`` is one of :data:`DOCUMENTS` and the file lies under
    ``root`` (``folder`` is the part of the address between the render root and ``docs/``)."""
    if name not in DOCUMENTS:
        return None
    root = root.resolve()
    path = (root / folder / "docs" / f"{name}.md").resolve()
    if not path.is_file() or not path.is_relative_to(root):
        return None
    return path


#: the page runs no script and loads nothing (a student's own copy of a document could hold raw
#: HTML, and a hub serves it on the hub's origin): styles inline, nothing else
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'"


class DocumentHandler(JupyterHandler):
    """``GET …/docs/<name>.md``: the document as a page (see the module's docstring), to whoever may
    see the server's pages (on a hub: the server's owner)."""

    def initialize(self, root: Path):
        self.root = Path(root)

    @tornado.web.authenticated
    def get(self, folder: str, name: str):
        path = find(self.root, folder or "", name)
        if path is None:
            raise tornado.web.HTTPError(404)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("Content-Security-Policy", POLICY)
        self.finish(render(path.read_text(encoding="utf-8")))


def standalone_handler(server_url: str, notebooks: Path) -> tuple:
    """The handler of ``tasks.py dashboard``: its render root is the notebooks' folder, so
    ``../docs/`` is ``<server_url>voila/docs/``, in the folder beside it."""
    pattern = server_url.rstrip("/") + r"/voila/()docs/([\w-]+)\.md"
    return (pattern, DocumentHandler, {"root": Path(notebooks).resolve().parent})


def extension_handler(base_url: str, root: Path) -> tuple:
    """The handler inside a Jupyter server (a hub's single-user server): the render root is the
    server's root, so ``../docs/`` of ``<clone>/notebooks/…`` is ``voila/render/<clone>/docs/``."""
    pattern = base_url.rstrip("/") + r"/voila/render/((?:[^/]+/)*)docs/([\w-]+)\.md"
    return (pattern, DocumentHandler, {"root": Path(root).resolve()})
