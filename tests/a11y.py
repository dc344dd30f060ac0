"""Accessibility checks shared by the browser tests (the course site and the dashboards).

* **axe-core** (npm, a test-only tool: never part of the workbook's install) is fetched at test
  set-up, as plotly.js's basic bundle is (``python3 tasks.py test`` runs ``python tests/a11y.py``):
  the registry's tarball, checked against its SHA-512, kept in ``.venv/share/delaylab-test/``.
  :func:`axe` injects it into a page and returns every WCAG 2.0/2.1 A and AA violation.
* :data:`FIGURE_CONTRAST` measures, inside every drawn plotly figure (which axe does not look
  into: SVG), the contrast of each text against the colour behind it (≥ 4.5:1) and of each
  curve, marker and shape line against the plot's background (≥ 3:1), that background being the
  first opaque colour among the plot's, the paper's and the page's.
* :data:`SIDEWAYS` says whether a page is wider than its screen, and which elements stick out.
* :data:`RAW_TEX` finds TeX left in a page's rendered text (a backslash command, ``$…$``).

``python tests/a11y.py`` fetches axe-core (nothing if it is there already).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import sys
import tarfile
import urllib.request
from pathlib import Path

AXE_PACKAGE, AXE_VERSION = "axe-core", "4.14.1"
REGISTRY = "https://registry.npmjs.org"
#: WCAG 2.0 and 2.1, levels A and AA: what the issue asks of every page
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: the seconds each axe-core run took in this process (what the checks cost; printed by the tests)
TIMES: list = []


def axe_path() -> Path:
    return Path(sys.prefix, "share", "delaylab-test", f"axe-{AXE_VERSION}.min.js")


def fetch_axe(timeout: float = 60) -> Path:
    """axe-core's ``axe.min.js`` from the npm registry, checked against the registry's SHA-512."""
    path = axe_path()
    if path.exists():
        return path
    meta = json.loads(urllib.request.urlopen(f"{REGISTRY}/{AXE_PACKAGE}/{AXE_VERSION}", timeout=timeout).read())
    tarball = urllib.request.urlopen(meta["dist"]["tarball"], timeout=timeout).read()
    algorithm, _, expected = meta["dist"]["integrity"].partition("-")
    actual = base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    if algorithm != "sha512" or actual != expected:
        raise ValueError(f"{AXE_PACKAGE} {AXE_VERSION}: the download's SHA-512 {actual} is not the registry's {expected}")
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as tar:
        code = tar.extractfile("package/axe.min.js").read()
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    part.write_bytes(code)
    part.replace(path)
    return path


def axe_source() -> str:
    path = axe_path()
    if not path.exists():
        try:
            fetch_axe()
        except OSError as exc:
            raise AssertionError(f"axe-core {AXE_VERSION} is not installed and could not be fetched from the npm "
                                 f"registry ({exc}): run `python tests/a11y.py` once online") from None
    return path.read_text(encoding="utf-8")


def axe(page, exclude=()) -> list[dict]:
    """Every WCAG 2.0/2.1 A and AA violation axe-core finds in ``page`` (playwright), each as
    ``{id, impact, help, nodes: [target and summary, …]}``; ``exclude``: selectors left out."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(content=axe_source())
    result = page.evaluate(
        """([tags, exclude]) => axe.run(exclude.length ? {include: [document], exclude: exclude.map((s) => [s])} : document,
             {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})
           .then((r) => r.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
               nodes: v.nodes.slice(0, 6).map((n) => n.target.join(' ') + ' :: ' + (n.failureSummary || '').slice(0, 160)),
               count: v.nodes.length})))""", [WCAG, list(exclude)])
    return result


#: ``() => [{figure, kind, what, ratio, need, colour, against}]``: every text below 4.5:1 and every
#: curve, marker or line below 3:1 against what is behind it, in every drawn plotly figure
FIGURE_CONTRAST = r"""() => {
  const parse = (c) => {
    if (!c) return null;
    const m = String(c).match(/rgba?\(([^)]+)\)/);
    if (m) { const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(parseFloat); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; }
    const h = String(c).match(/^#([0-9a-f]{6})$/i);
    if (h) return [0, 2, 4].map((i) => parseInt(h[1].slice(i, i + 2), 16)).concat([1]);
    const s = String(c).match(/^#([0-9a-f]{3})$/i);
    if (s) return [...s[1]].map((x) => parseInt(x + x, 16)).concat([1]);
    if (c === 'white') return [255, 255, 255, 1];
    if (c === 'black') return [0, 0, 0, 1];
    return null;
  };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
                       return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const over = (top, under) => top[3] >= 1 ? top : [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
  // the page's colour behind an element: the first opaque background among its ancestors
  const pageBg = (el) => {
    const layers = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let bg = [255, 255, 255, 1];
    if (layers.length && layers[layers.length - 1][3] >= 1) bg = layers.pop();
    for (const c of layers.reverse()) bg = over(c, bg);
    return bg;
  };
  const out = [];
  document.querySelectorAll('.js-plotly-plot').forEach((gd, n) => {
    if (!gd._fullLayout || !gd.querySelector('.main-svg')) return;
    const L = gd._fullLayout, name = (L.title && L.title.text || '').slice(0, 50) || ('figure ' + n);
    const page = pageBg(gd.parentElement || gd);
    const paper = over(parse(L.paper_bgcolor) || [0, 0, 0, 0], page);
    const plot = over(parse(L.plot_bgcolor) || [0, 0, 0, 0], paper);
    const visible = (el) => { const r = el.getBoundingClientRect(); return (r.width > 0 || r.height > 0)
                                && getComputedStyle(el).visibility !== 'hidden' && getComputedStyle(el).display !== 'none'
                                && !el.closest('[display="none"], .hoverlayer'); };
    gd.querySelectorAll('.main-svg text').forEach((t) => {
      if (!t.textContent.trim() || !visible(t)) return;
      const fill = parse(t.style.fill || getComputedStyle(t).fill);
      if (!fill) return;
      const opacity = parseFloat(t.style.opacity || getComputedStyle(t).opacity || '1') * (fill[3] ?? 1);
      // text inside the plotting area (annotations, legend inside) sits on the plot's background
      const inPlot = !!t.closest('.infolayer .annotation') && (() => { const r = t.getBoundingClientRect(), p = gd.querySelector('.bglayer rect, .draglayer .nsewdrag');
                       if (!p) return false; const b = p.getBoundingClientRect(); return r.left >= b.left && r.right <= b.right && r.top >= b.top && r.bottom <= b.bottom; })();
      const bg = inPlot ? plot : paper;
      const fg = over([fill[0], fill[1], fill[2], opacity], bg);
      const r = ratio(fg, bg);
      if (r < 4.5) out.push({figure: name, kind: 'text', what: t.textContent.trim().slice(0, 40), ratio: +r.toFixed(2), need: 4.5,
                             colour: t.style.fill || getComputedStyle(t).fill, against: bg.slice(0, 3).map(Math.round)});
    });
    gd.querySelectorAll('.scatterlayer .trace').forEach((tr) => {
      if (!visible(tr)) return;
      const path = tr.querySelector('path.js-line');
      const point = tr.querySelector('.points path.point');
      for (const [el, attr] of [[path, 'stroke'], [point, 'fill']]) {
        if (!el || !visible(el)) continue;
        if (attr === 'stroke' && parseFloat(el.style.strokeWidth || getComputedStyle(el).strokeWidth) === 0) continue;  // a band's outline
        const c = parse(el.style[attr] || getComputedStyle(el)[attr]);
        if (!c || c[3] < 0.6) continue;
        const op = parseFloat(el.style.opacity || getComputedStyle(el).opacity || '1') * parseFloat(getComputedStyle(tr).opacity || '1');
        if (op < 0.6) continue;  // a faded curve (a legend toggle) is not what the reader compares
        const r = ratio(over([c[0], c[1], c[2], c[3] * op], plot), plot);
        const trName = (tr.__data__ && tr.__data__[0] && tr.__data__[0].trace && tr.__data__[0].trace.name) || '';
        if (r < 3) out.push({figure: name, kind: attr === 'stroke' ? 'curve' : 'marker', what: trName || '(unnamed)',
                             ratio: +r.toFixed(2), need: 3, colour: el.style[attr], against: plot.slice(0, 3).map(Math.round)});
      }
    });
    gd.querySelectorAll('.barlayer .point path').forEach((b) => {
      const c = parse(b.style.fill); if (!c || c[3] < 0.6 || !visible(b)) return;
      const r = ratio(c, plot);
      if (r < 3) out.push({figure: name, kind: 'bar', what: '', ratio: +r.toFixed(2), need: 3, colour: b.style.fill, against: plot.slice(0, 3).map(Math.round)});
    });
  });
  return out;
}"""

#: ``() => {width, screen, wide: [elements wider than the screen]}``
SIDEWAYS = r"""() => {
  const screen = document.documentElement.clientWidth;
  const wide = [];
  document.querySelectorAll('body *').forEach((el) => {
    const r = el.getBoundingClientRect();
    if (r.width && r.right > screen + 1 && getComputedStyle(el).position !== 'fixed') {
      let clipped = false;  // inside a scroller of its own (a table, a formula, code), or off-canvas: not the page's
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const s = getComputedStyle(p);
        if (s.position === 'fixed' || s.display === 'none' || s.visibility === 'hidden') { clipped = true; break; }
        if (['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowX) && p.getBoundingClientRect().right <= screen + 1) { clipped = true; break; }
      }
      if (!clipped) wide.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${[...el.classList].join('.')} ${Math.round(r.right)}px`);
    }
  });
  return {width: document.documentElement.scrollWidth, screen, wide: wide.slice(0, 8)};
}"""

#: ``() => [TeX left in the rendered text]``: a backslash command or a $…$ outside code
RAW_TEX = r"""() => {
  const root = document.querySelector('main, #rendered_cells, body') || document.body;
  const copy = root.cloneNode(true);
  copy.querySelectorAll('code, pre, script, style, textarea, .highlight, [hidden]').forEach((c) => c.remove());
  const text = copy.textContent;
  const found = (text.match(/\\[A-Za-z]{2,}|\$[^$\s][^$\n]{0,40}\$/g) || []);
  const math = [...root.querySelectorAll('math')].map((m) => m.textContent).filter((t) => /\\[A-Za-z]/.test(t));
  const ns = root.innerHTML.match(/<ns\d+:[a-z]+/g) || [];
  return [...new Set(found.concat(math, ns))].slice(0, 10);
}"""


#: ``() => [problems]``: on a phone, each drawn figure's title, legend and plotting area inside the
#: figure's width, the legend not on the plotting area, the plotting area at least 150 px high
FIGURE_FITS = r"""() => {
  const out = [];
  document.querySelectorAll('.js-plotly-plot').forEach((gd, n) => {
    if (!gd._fullLayout || !gd.querySelector('.main-svg')) return;
    const box = gd.getBoundingClientRect(), name = (gd._fullLayout.title && gd._fullLayout.title.text || 'figure ' + n).slice(0, 40);
    const inside = (r) => r.left >= box.left - 1 && r.right <= box.right + 1;
    const title = gd.querySelector('.gtitle');
    if (title && !inside(title.getBoundingClientRect())) out.push(`${name}: the title runs out of the figure`);
    const areas = [...gd.querySelectorAll('.draglayer .nsewdrag')].map((d) => d.getBoundingClientRect());
    areas.forEach((a) => { if (a.height < 150) out.push(`${name}: a plotting area only ${Math.round(a.height)} px high`); });
    const legend = gd.querySelector('.legend');
    if (legend && legend.getBoundingClientRect().width) {
      const l = legend.getBoundingClientRect();
      if (!inside(l)) out.push(`${name}: the legend runs out of the figure`);
      if (areas.some((a) => l.left < a.right - 2 && l.right > a.left + 2 && l.top < a.bottom - 2 && l.bottom > a.top + 2))
        out.push(`${name}: the legend lies on the plotting area`);
    }
  });
  return out;
}"""


def check_page(page, where: str, contrast: bool = True, width: bool = True) -> dict:
    """Fail on any WCAG 2.0/2.1 A or AA violation axe-core finds, any text (4.5:1) or curve (3:1)
    inside a figure below its contrast, any TeX left in the rendered text, and (``width``) a page
    wider than its screen. Returns the seconds axe took."""
    import time

    t0 = time.perf_counter()
    violations = axe(page)
    seconds = time.perf_counter() - t0
    TIMES.append(seconds)
    assert violations == [], f"{where}: axe-core (WCAG 2.1 A/AA): {json.dumps(violations, indent=1, ensure_ascii=False)[:3000]}"
    if contrast:
        low = page.evaluate(FIGURE_CONTRAST)
        assert low == [], f"{where}: contrast inside the figures: {low[:10]}"
    tex = page.evaluate(RAW_TEX)
    assert tex == [], f"{where}: TeX in the rendered text: {tex}"
    if width:
        wide = page.evaluate(SIDEWAYS)
        assert wide["width"] <= wide["screen"], f"{where}: the page is {wide['width']} px wide on a {wide['screen']} px screen: {wide['wide']}"
    return {"axe_s": round(seconds, 2)}


#: ``() => [[name, value text, readout]]`` of every slider handle of a dashboard (ipywidgets):
#: what a screen reader says of it, and what the page shows
SLIDERS = r"""() => [...document.querySelectorAll('.widget-slider')].map((w) => {
  const h = w.querySelector('.noUi-handle'), label = h && document.getElementById(h.getAttribute('aria-labelledby') || '');
  const readout = w.querySelector('.widget-readout');
  return [label ? label.textContent.trim() : '', h ? h.getAttribute('aria-valuetext') : '', readout ? readout.textContent.trim() : ''];
})"""


def check_sliders(page, where: str) -> list:
    """Every dashboard slider is named by its label and says its value as the page shows it
    ("mean delay μ = 500", not a log slider's exponent)."""
    sliders = page.evaluate(SLIDERS)
    for name, text, readout in sliders:
        assert name and text == f"{name} = {readout}", f"{where}: a slider named {name!r} says {text!r} (its readout: {readout!r})"
    return sliders


if __name__ == "__main__":
    try:
        print(f"[delaylab] axe-core {AXE_VERSION} (accessibility tests): {fetch_axe()}", flush=True)
    except (OSError, ValueError) as exc:
        print(f"[delaylab] axe-core not fetched ({exc}): the accessibility tests will fail", flush=True)
        os._exit(0)
