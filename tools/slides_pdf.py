#!/usr/bin/env python3
"""Lecture mode's backup: each deck of live slides as a PDF, for a room without a server.

    python3 tasks.py slides --pdf                   every notebook, into _build/slides/
    python3 tasks.py slides --pdf 01 03 --out DIR   notebooks 01 and 03, into DIR
    python3 tasks.py slides --pdf --size 1024x768   for a 4:3 projector (default 1280x720)
    python3 tasks.py slides --pdf --url http://127.0.0.1:8866   from a dashboards server already running

The live slides themselves are photographed: the dashboards' server (``python -m
delaylab.serve``, started here on a free loopback port unless ``--url`` names one) runs each
notebook as for the lecture, Debian's chromium (driven by playwright, as in the browser tests)
opens its slides at the projector's size, and → walks them from the title to the end exactly as
a presenter's clicker does: one page per screen, a slide taller than the screen giving a page
per screenful. So the PDF shows what the room would have seen — the figures and panels at their
defaults, formulas, the exercises with their numbers for the default student — in any PDF viewer,
with no server, no network and no browser. Pages are JPEG images at 1.5 times the slide's size
(1920×1080 for 1280×720: sharp on a full-HD projector); the PDF's outline (bookmarks) names each
slide by its heading. What the PDF cannot do is move: sliders, buttons and checks need the live
slides, and the paper-scale figures show their default runs unless their buttons were pressed on
that server before (then the cache serves them).

Needs the test tools (``playwright``, in the ``test`` extra) and chromium: ``tasks.py slides
--pdf`` installs both as ``tasks.py test`` does. The PDF itself is written here with the
standard library (a page is an image: no PDF package needed).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: what the browser tests give chromium (tests/test_browser.py): no request leaves the machine
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
#: px a slide may be taller than the screen before → scrolls it (delaylab-slides.js's SLACK)
SLACK = 24
#: the page's images at this many times the slide's size
PIXEL_RATIO = 1.5
#: a page of the PDF is this many points wide (13.33 in: a presentation program's wide slide)
PAGE_WIDTH_PT = 960
LOAD_TIMEOUT = 600_000  # ms: the server runs the whole notebook before the last slide arrives

#: the slide on screen: where the deck is, how far the slide scrolls, the stack's heading
STATE = r"""() => {
  const slide = document.querySelector('.reveal .slides > section.present > section.present')
    || document.querySelector('.reveal .slides > section.present');
  if (!slide || !window.Reveal || !Reveal.isReady()) return null;
  const stack = document.querySelector('.reveal .slides > section.present');
  const text = h => h ? [...h.childNodes].filter(n => !(n.classList && n.classList.contains('anchor-link')))
    .map(n => n.textContent).join('').replace(/\s+/g, ' ').trim() : '';  // without JupyterLab's ¶ link
  return {h: Reveal.getIndices().h, v: Reveal.getIndices().v, top: slide.scrollTop,
          overflow: slide.scrollHeight - slide.clientHeight, past: Reveal.getSlidePastCount(),
          total: Reveal.getTotalSlides(), heading: text(stack && stack.querySelector('h1, h2')),
          subheading: text(slide.querySelector('h3'))};
}"""
#: every figure on screen drawn at its box's width (a figure drawn while its slide was hidden is
#: resized as its slide comes near: delaylab-slides.js) and laid out for the slides (its fonts
#: raised, its legend clear of its axis: delaylab/viz/theme.py's slidesChange has nothing left)
FIGURES_FITTED = """() => { const theme = globalThis[Symbol.for('delaylab.theme')];
  return [...document.querySelectorAll('.reveal .slides section.present .js-plotly-plot')]
    .filter(f => f.getClientRects().length)
    .every(f => { const s = f.querySelector('.main-svg');
      return s && s.getBoundingClientRect().width >= 0.95 * f.getBoundingClientRect().width
        && !(theme && theme.slidesChange && theme.slidesChange(f)); }); }"""


# ------------------------------------------------------------------ the walk
def wait_drawn(page, settle: float = 3.0, timeout_s: float = 300) -> None:
    """Every cell executed (no "computing" bar), the deck started, and every figure drawn (their
    number stable for ``settle`` seconds)."""
    page.wait_for_function("() => !document.querySelector('#loading') && window.Reveal && Reveal.isReady()",
                           timeout=LOAD_TIMEOUT)
    t0, n, since = time.time(), -1, time.time()
    while time.time() - since < settle and time.time() - t0 < timeout_s:
        k = page.evaluate("document.querySelectorAll('.js-plotly-plot .main-svg').length + "
                          "document.querySelectorAll('.widget-slider .noUi-handle').length")
        if k != n:
            n, since = k, time.time()
        time.sleep(0.25)
    page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].every(e => e.querySelector('.main-svg'))",
                           timeout=60_000)


def at_end(state) -> bool:
    """The last slide, scrolled to its end: → has nothing left to show."""
    return state["past"] >= state["total"] - 1 and state["overflow"] - state["top"] <= SLACK


def settle(page) -> None:
    """The screen after a move: figures resized to their slide (within 3 s), then a frame drawn."""
    try:
        page.wait_for_function(FIGURES_FITTED, timeout=3_000, polling=50)
    except Exception:  # noqa: BLE001 - photographed as it is (a figure that never fits is the slides' bug, not ours)
        pass
    page.wait_for_timeout(250)


def walk(page, limit: int = 400):
    """The screens of the deck open in ``page``, from the title slide (Home) to the end, one → at a
    time, as a presenter's clicker goes: yields each screen's state (``STATE``) once it is drawn."""
    page.keyboard.press("Home")
    page.wait_for_function("() => { const s = (" + STATE + ")(); return s && s.past === 0 && s.top === 0; }",
                           timeout=10_000)
    settle(page)
    state = page.evaluate(STATE)
    for _ in range(limit):
        yield state
        if at_end(state):
            return
        page.keyboard.press("ArrowRight")
        moved = (f"() => {{ const s = ({STATE})(); return s && (s.h !== {state['h']} || s.v !== {state['v']} "
                 f"|| Math.abs(s.top - {state['top']}) > 1); }}")
        page.wait_for_function(moved, timeout=10_000, polling=50)
        settle(page)
        state = page.evaluate(STATE)
    raise RuntimeError(f"more than {limit} screens: the walk does not end")


# ------------------------------------------------------------------ the PDF
def jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a baseline or progressive JPEG."""
    if data[:2] != b"\xff\xd8":
        raise ValueError("not a JPEG")
    i = 2
    while i < len(data) - 9:
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xC0, 0xC1, 0xC2):
            return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
    raise ValueError("no frame header in the JPEG")


def _text(s: str) -> bytes:
    """A PDF text string (UTF-16 with its byte-order mark: any character of a heading)."""
    return b"<feff" + s.encode("utf-16-be").hex().encode() + b">"


def write_pdf(path: Path, pages: list[bytes], title: str = "", outline=()) -> None:
    """A PDF of one JPEG image per page, each page the image's shape, :data:`PAGE_WIDTH_PT` wide;
    ``outline``: (page index, title) bookmarks in order."""
    objects: list[bytes] = []  # object n is objects[n - 1]

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below
    tree = add(b"")
    kids = []
    for data in pages:
        w, h = jpeg_size(data)
        height_pt = PAGE_WIDTH_PT * h / w
        image = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
                    b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n" % (w, h, len(data))
                    + data + b"\nendstream")
        drawing = zlib.compress(b"q %.2f 0 0 %.2f 0 0 cm /Im0 Do Q" % (PAGE_WIDTH_PT, height_pt))
        content = add(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(drawing) + drawing + b"\nendstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.2f %.2f] /Resources << /XObject << /Im0 %d 0 R >> >> "
                        b"/Contents %d 0 R >>" % (tree, PAGE_WIDTH_PT, height_pt, image, content)))
    objects[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    outline = [(i, t) for i, t in outline if 0 <= i < len(kids) and t]
    extra = b""
    if outline:
        root = add(b"")
        items = [add(b"") for _ in outline]
        for n, (item, (i, t)) in enumerate(zip(items, outline)):
            links = b""
            if n > 0:
                links += b" /Prev %d 0 R" % items[n - 1]
            if n < len(items) - 1:
                links += b" /Next %d 0 R" % items[n + 1]
            objects[item - 1] = (b"<< /Title " + _text(t) + b" /Parent %d 0 R /Dest [%d 0 R /Fit]" % (root, kids[i])
                                 + links + b" >>")
        objects[root - 1] = b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (items[0], items[-1], len(items))
        extra = b" /Outlines %d 0 R /PageMode /UseOutlines" % root
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R%s >>" % (tree, extra)
    info = add(b"<< /Title " + _text(title) + b" /Producer (delaylab tools/slides_pdf.py) >>")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, catalog, info, xref)
    path.write_bytes(bytes(out))


def deck(browser, url: str, notebook: str, out: Path, size=(1280, 720), quality: int = 85) -> dict:
    """The PDF of one notebook's slides (``notebook``: its file name) from the dashboards' server at
    ``url``, written to ``out``/<notebook>.pdf: {"path", "pages", "seconds", "bytes"}."""
    t0 = time.perf_counter()
    page = browser.new_page(viewport={"width": size[0], "height": size[1]}, device_scale_factor=PIXEL_RATIO)
    try:
        page.goto(f"{url.rstrip('/')}/voila/render/{notebook}?template=reveal", wait_until="commit", timeout=LOAD_TIMEOUT)
        wait_drawn(page)
        images, outline, seen = [], [], set()
        for state in walk(page):
            if state["h"] not in seen:
                seen.add(state["h"])
                outline.append((len(images), state["heading"] or f"slide {state['h'] + 1}"))
            elif state["v"] and state["top"] == 0 and state["subheading"]:
                outline.append((len(images), "  " + state["subheading"]))
            images.append(page.screenshot(type="jpeg", quality=quality))
    finally:
        page.close()
    out.mkdir(parents=True, exist_ok=True)
    path = out / (Path(notebook).stem + ".pdf")
    title = re.sub(r"\s+", " ", outline[0][1]) if outline else Path(notebook).stem
    write_pdf(path, images, title=title, outline=outline)
    return {"path": path, "pages": len(images), "seconds": time.perf_counter() - t0, "bytes": path.stat().st_size}


# ------------------------------------------------------------------ the command
def chromium() -> str:
    for candidate in (os.environ.get("DELAYLAB_CHROMIUM"), shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    sys.exit("no chromium: install Debian's chromium (python3 tasks.py slides --pdf does it as root), "
             "or set DELAYLAB_CHROMIUM")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(folder: Path):
    """The dashboards' server on a free loopback port: (process, url)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "delaylab.serve", str(folder), "--no-browser", f"--port={port}",
                             "--Voila.ip=127.0.0.1"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 180
    while True:
        try:
            urllib.request.urlopen(url + "/delaylab/status", timeout=2)
            return proc, url
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                proc.terminate()
                sys.exit("the dashboards' server did not start (try: python3 tasks.py dashboard)")
            time.sleep(0.3)


def notebooks(folder: Path, wanted) -> list[str]:
    names = sorted(p.name for p in folder.glob("[0-9]*.ipynb"))
    if not wanted:
        return names
    chosen = [n for n in names if any(n == w or n.startswith(w) or Path(n).stem == w for w in wanted)]
    missing = [w for w in wanted if not any(n == w or n.startswith(w) or Path(n).stem == w for n in names)]
    if missing:
        sys.exit(f"no notebook {', '.join(missing)} in {folder} (there are: {', '.join(names)})")
    return chosen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 tasks.py slides --pdf", description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="00 … 05 or file names (default: every notebook)")
    parser.add_argument("--out", default=str(ROOT / "_build" / "slides"), help="folder of the PDFs (default _build/slides)")
    parser.add_argument("--size", default="1280x720", help="the projector's size in pixels, WxH (default 1280x720)")
    parser.add_argument("--url", help="a dashboards server already running (default: one started here)")
    parser.add_argument("--notebooks-folder", default=str(ROOT / "notebooks"), help=argparse.SUPPRESS)
    args = parser.parse_args([a for a in (sys.argv[1:] if argv is None else argv) if a != "--pdf"])
    m = re.fullmatch(r"(\d+)x(\d+)", args.size)
    if not m or not (320 <= int(m.group(1)) <= 7680 and 240 <= int(m.group(2)) <= 4320):
        sys.exit(f"--size {args.size!r}: give the projector's pixels as WIDTHxHEIGHT, e.g. 1280x720 or 1024x768")
    size = (int(m.group(1)), int(m.group(2)))
    folder = Path(args.notebooks_folder)
    names = notebooks(folder, args.notebooks)
    from playwright.sync_api import sync_playwright

    server, url = (None, args.url) if args.url else start_server(folder)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS, headless=True)
            try:
                for name in names:
                    made = deck(browser, url, name, Path(args.out), size)
                    print(f"{made['path']}: {made['pages']} pages ({round(size[0] * PIXEL_RATIO)}×"
                          f"{round(size[1] * PIXEL_RATIO)}), {made['bytes'] / 1e6:.1f} MB, {made['seconds']:.0f} s", flush=True)
            finally:
                browser.close()
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
