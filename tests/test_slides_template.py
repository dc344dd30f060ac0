"""Lecture mode's live slides without a browser: the template that replaces Voila's reveal
template on the dashboards' server (delaylab/serve/share/voila/templates/reveal/), the copy of
reveal.js it ships, and a slides page served over HTTP. tests/test_browser.py puts every
notebook's slides on a screen."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import tomllib
import urllib.request
from pathlib import Path

import nbformat

from test_serve import _serve

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "delaylab"
SHARE = PACKAGE / "serve" / "share"
TEMPLATE = SHARE / "voila" / "templates" / "reveal"
REVEAL = TEMPLATE / "static" / "revealjs"
_spec = importlib.util.spec_from_file_location("slides", ROOT / "tools" / "slides.py")
slides = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(slides)


def test_the_shipped_reveal_js_is_the_npm_package_s_own_files():
    source = json.loads((REVEAL / "SOURCE.json").read_text())
    assert source["package"] == "reveal.js" and source["integrity"].startswith("sha512-")
    assert source["tarball"].endswith(f"/reveal.js-{source['version']}.tgz")
    assert sorted(source["sha256"]) == sorted(p.name for p in REVEAL.iterdir() if p.name != "SOURCE.json")
    for name, digest in source["sha256"].items():
        assert hashlib.sha256((REVEAL / name).read_bytes()).hexdigest() == digest, name
    code = (REVEAL / "reveal.js").read_text()
    assert code.startswith("/*!\n * reveal.js") and f"`{source['version']}`" in code
    assert "Permission is hereby granted, free of charge" in (REVEAL / "LICENSE").read_text()  # MIT


def test_the_package_ships_every_file_of_the_templates():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["delaylab"]
    shipped = {p for pattern in patterns for p in PACKAGE.glob(pattern) if p.is_file()}
    files = {p for p in SHARE.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert files - shipped == set()
    assert {TEMPLATE / "index.html.j2", REVEAL / "reveal.js", REVEAL / "reveal.css"} <= shipped


def test_nothing_the_slides_load_names_another_host():
    ours = [TEMPLATE / "index.html.j2", TEMPLATE / "static" / "delaylab-slides.js",
            TEMPLATE / "static" / "delaylab-slides.css", SHARE / "voila" / "templates" / "delaylab" / "page.macro.html.j2"]
    for path in ours:
        text = re.sub(r'xmlns="[^"]*"', "", path.read_text())  # a namespace's name, not an address
        assert not re.search(r"(https?:)?//[\w.-]+\.[a-z]{2,}/", text), path
    # reveal.js: the two addresses of its licence header only; its stylesheet: no @import, data: URLs only
    code = (REVEAL / "reveal.js").read_text()
    header = code[:code.index("*/") + 2]
    assert re.findall(r"https?://", code) == re.findall(r"https?://", header) and len(re.findall(r"https?://", header)) == 2
    css = (REVEAL / "reveal.css").read_text()
    assert "@import" not in css and all(u.startswith("data:") for u in re.findall(r"url\(([^)]*)\)", css))


def _two_slides(folder: Path) -> Path:
    """A notebook of two slides whose hidden check sits right before the second slide's heading."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title slide\n\nThe text of the first slide, with $\\hat\\mu_i$."),
                nbformat.v4.new_code_cell("print('SHOWN-' + str(6 * 7))"),
                nbformat.v4.new_code_cell("print('HIDDEN-' + str(17))", metadata={"tags": ["hide"]}),
                nbformat.v4.new_markdown_cell("## Second slide\n\nMore text."),
                nbformat.v4.new_code_cell("print('LAST-' + str(3))")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    slides.apply(nb)
    path = folder / "two_slides.ipynb"
    nbformat.write(nb, path)
    return path


def test_a_slides_page_comes_with_its_own_assets_and_without_the_hidden_cells(tmp_path):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    _two_slides(folder)
    serving = _serve(folder, tmp_path)
    url, _ = next(serving)
    try:
        page = urllib.request.urlopen(url + "/voila/render/two_slides.ipynb?template=reveal", timeout=300).read().decode()
        # the sections: two slides of one sub-slide each, balanced, the hidden cell neither run nor shown
        assert page.count("<section") == page.count("</section>") == 4
        assert "SHOWN-42" in page and "LAST-3" in page and "HIDDEN-17" not in page
        assert page.count("cell-index=") == 4 and re.search(r'"kernelId":\s*"[0-9a-f-]{36}"', page)
        assert "<math" in page  # the formulas as MathML, from voila.json's preprocessor
        # every script and stylesheet from this server: reveal.js and its stylesheet from the package
        addresses = re.findall(r'(?:src|href)="([^"]*)"', page)
        assert addresses and all(a.startswith(("/", "data:", "#")) for a in addresses), addresses
        for path in (REVEAL / "reveal.js", REVEAL / "reveal.css", TEMPLATE / "static" / "delaylab-slides.js",
                     TEMPLATE / "static" / "delaylab-slides.css"):
            relative = path.relative_to(TEMPLATE / "static").as_posix()
            found = [a for a in addresses if a.split("?")[0] == f"/voila/templates/reveal/static/{relative}"]
            assert len(found) == 1, (relative, addresses)
            assert urllib.request.urlopen(url + found[0], timeout=30).read() == path.read_bytes()
    finally:
        serving.close()
