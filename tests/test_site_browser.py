"""The course site in a real browser: Debian's chromium (playwright), the site served by a local
static file server, as any static host would serve it.

Every page: no request to another host, no JavaScript error, every figure drawn (scrolled to, as
a reader would) and named for a screen reader by its text alternative; one precomputed slider per
explorable moved with the mouse, and every figure of that panel and its caption change. The
budgets of issue 27 are measured and printed (``test-artifacts/site/budgets.txt``), with only
gross bounds asserted: the first figure (≤ 1 s), a slider's redraw (≤ 100 ms), what a page
transfers besides the shared plotly.js (≤ 3 MB), the whole site (≤ 60 MB), the build (≤ 5 min
from a warm sweep cache; printed when this session built the site). A dark colour scheme gives
dark figures whose curves stay readable, and the theme's switch restyles them back.
"""

from __future__ import annotations

import functools
import json
import re
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

import a11y
from test_browser import ARGS, browser, chromium_path  # noqa: F401  (the module-scoped chromium)
from test_site import NOTEBOOKS, ROOT, built_site

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("site")]  # one built site, one budgets table
ARTIFACTS = ROOT / "test-artifacts" / "site"
BUDGETS: dict = {"pages": {}}

#: each .dl-plot: drawn, with data, its role, its <figure> and caption (the figure's accessible name,
#: checked through the accessibility tree by get_by_role below), and whether its SVG is hidden
PLOTS = """() => [...document.querySelectorAll('.dl-plot')].map(el => ({
    drawn: el.dataset.drawn === 'yes' && !!el.querySelector('.main-svg'),
    traces_with_data: (el._fullData || []).filter(d => d.visible !== false && d.y && d.y.length).length,
    role: el.getAttribute('role'), figure: el.parentElement.tagName.toLowerCase(),
    svg_hidden: [...el.querySelectorAll('svg.main-svg')].every(s => s.getAttribute('aria-hidden') === 'true'),
    caption: (el.parentElement.querySelector('figcaption.dl-alt') || {}).textContent || ''}))"""

#: the time of the first figure drawn, from the navigation's start (ms)
FIRST_FIGURE = """(() => {
    new MutationObserver((_, obs) => {
        if (document.querySelector('.dl-plot .main-svg')) { window.__first_figure_ms = performance.now(); obs.disconnect(); }
    }).observe(document, {childList: true, subtree: true});
})()"""

#: ``window.__dl_measurement``: resolves with the ms from the next key pressed on a range input to
#: the frame in which every figure of the section changed
MEASURE = """(section) => { window.__dl_measurement = new Promise((resolve) => {
    const plots = [...section.querySelectorAll('.dl-plot')];
    const caps = [...section.querySelectorAll('figcaption.dl-alt')];
    const sig = () => plots.map((p) => JSON.stringify((p._fullData || []).map((d) => [d.visible,
        d.y ? d.y.length : 0, d.y ? Array.from(d.y).reduce((s, v) => s + (+v || 0), 0).toFixed(5) : 0,
        d.x ? Array.from(d.x).reduce((s, v) => s + (+v || 0), 0).toFixed(5) : 0])));
    const before = sig(), captions = caps.map((c) => c.textContent);
    section.addEventListener('keydown', () => {
        const t0 = performance.now();
        let main = null;
        const tick = () => {
            const now = sig(), t = performance.now() - t0;
            if (main === null && now[0] !== before[0]) main = t;
            const all = now.every((s, i) => s !== before[i]);
            if (all || t > 10000) {
                resolve({main_ms: main, all_ms: all ? t : null, figures: plots.length,
                         changed: now.map((s, i) => s !== before[i]),
                         captions_changed: caps.map((c, i) => c.textContent !== captions[i]),
                         captions: caps.map((c) => c.textContent.slice(0, 80))});
            } else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
    }, {once: true, capture: true});
}); }"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no access log in the test's output
        pass


@pytest.fixture(scope="module")
def served():
    folder, report = built_site()
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    BUDGETS["build"] = report
    yield f"http://127.0.0.1:{server.server_port}", folder, report
    server.shutdown()
    server.server_close()
    _write_budgets()


def _write_budgets():
    report = BUDGETS.get("build") or {}
    import os

    load = " / ".join(f"{v:.1f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    lines = [f"course site budgets (issue 27), chromium on this machine ({os.cpu_count()} cores, load average "
             f"{load} at the end: timings grow with it)", ""]
    s = report.get("seconds", {})
    if "total" in s:
        lines.append(f"build: {s['total']:.0f} s (notebooks {s.get('execute', 0):.0f} s, Jupyter Book "
                     f"{s.get('jupyter_book', 0):.0f} s)  [budget: ≤ 300 s warm, ≤ 900 s cold]")
    lines.append(f"site: {report.get('site_bytes', 0) / 1e6:.1f} MB  [≤ 60 MB]; plotly.js "
                 f"{report.get('plotly_js_bytes', 0) / 1e6:.2f} MB ({report.get('plotly_js_kind', '?')})")
    lines.append("")
    lines.append(f"{'page':32s} {'first figure':>13s} {'transfer*':>10s} {'figures':>8s}  slider redraw (main / all figures)")
    for name, p in BUDGETS["pages"].items():
        sliders = ", ".join(f"{m['main_ms']:.0f}/{m['all_ms']:.0f} ms" if m.get("all_ms") is not None
                            else f"{m.get('main_ms')}/— ms" for m in p.get("sliders", []))
        lines.append(f"{name:32s} {p['first_figure_ms']:10.0f} ms {p['transfer_bytes'] / 1e6:7.2f} MB "
                     f"{p['figures']:8d}  {sliders or '—'}")
    lines.append("")
    lines.append("* bytes a fresh visit transfers from the static server, besides the shared plotly.js "
                 "[budgets: first figure ≤ 1 s, transfer ≤ 3 MB, slider ≤ 100 ms]")
    if a11y.TIMES:
        lines.append(f"accessibility: {len(a11y.TIMES)} axe-core runs, {sum(a11y.TIMES):.1f} s in all "
                     f"({min(a11y.TIMES):.2f}–{max(a11y.TIMES):.2f} s each); the phone and dark-mode test: "
                     f"{BUDGETS.get('phone_seconds', 0):.0f} s")
    text = "\n".join(lines)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "budgets.txt").write_text(text + "\n")
    (ARTIFACTS / "budgets.json").write_text(json.dumps(BUDGETS, indent=1, default=str))
    print("\n" + text)


def _visit(browser, url, scheme="light"):  # noqa: F811
    """A page in a fresh context (nothing cached: a first visit), its requests and errors recorded."""
    context = browser.new_context(viewport={"width": 1300, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    page.requests, page.finished, page.errors = [], [], []
    page.on("request", lambda r: page.requests.append(r.url))
    page.on("requestfinished", lambda r: page.finished.append(r))
    page.on("pageerror", lambda e: page.errors.append(str(e)[:300]))
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text[:300]))
    page.add_init_script(FIRST_FIGURE)
    page.goto(url)
    return page


def _draw_every_figure(page):
    plots = page.locator(".dl-plot")
    for i in range(plots.count()):
        el = plots.nth(i)
        el.scroll_into_view_if_needed()
        page.wait_for_function("el => el.dataset.drawn === 'yes' && el.querySelector('.main-svg')",
                               arg=el.element_handle(), timeout=30_000)
    return page.evaluate(PLOTS)


def _move_slider(page, section):
    """Move each range input of the section by keyboard alone, as a blind reader or one who cannot
    use a mouse would: Tab reaches it (from the text just before it), End (or Home) moves it to
    the far end; returns the measurement of :data:`MEASURE` for its first input, with what a
    screen reader hears (its accessible name and value text) before and after."""
    inputs = section.locator("input.dl-range")
    assert inputs.count() >= 1
    result = None
    for i in range(inputs.count()):
        rng = inputs.nth(i)
        rng.scroll_into_view_if_needed()
        # focus just before the input, then Tab: the input is the next tab stop
        rng.evaluate("""el => { const before = el.closest('.dl-control').querySelector('label');
            before.tabIndex = -1; before.focus(); }""")
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.classList.contains('dl-range')"), "Tab did not reach the slider"
        spoken = lambda: page.evaluate("""() => { const el = document.activeElement;
            return [el.labels[0].textContent, el.getAttribute('aria-valuetext'), el.value, el.max]; }""")  # noqa: E731
        label, text, value, top = spoken()
        key = "Home" if int(value) > int(top) / 2 else "End"
        if i == 0:
            page.evaluate(MEASURE, section.element_handle())
        page.keyboard.press(key)
        after = spoken()
        assert after[1] != text and after[1].startswith(f"{label} = "), (text, after)
        if i == 0:
            result = page.evaluate("() => window.__dl_measurement")
            result["heard"] = [text, after[1]]
            # the caption says the value it shows
            assert all(c.startswith(f"Shown: {after[1]}") for c in result["captions"]), (after, result["captions"])
    return result


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_page_draws_its_figures_and_answers_its_sliders_with_nothing_from_another_host(served, browser, path):  # noqa: F811
    base, folder, report = served
    page = _visit(browser, f"{base}/{path.stem}.html")
    try:
        # plotly.js and a figure's data load when the figure comes near the screen: the first
        # figure's time counts from the moment the reader scrolls to it (from the navigation's
        # start if it is on the first screen)
        page.wait_for_load_state("load")
        scrolled = page.evaluate("() => performance.now()")
        page.locator(".dl-plot").first.scroll_into_view_if_needed()
        page.wait_for_function("() => window.__first_figure_ms !== undefined", timeout=30_000)
        drawn_at = page.evaluate("window.__first_figure_ms")
        first = drawn_at - scrolled if drawn_at > scrolled else drawn_at
        plots = _draw_every_figure(page)
        assert plots and all(p["drawn"] and p["traces_with_data"] > 0 for p in plots), plots
        # a screen reader reads each figure's text alternative once, as the figure's name (its
        # caption), and never plotly's SVG; no image role around plotly's buttons
        assert all(p["role"] is None and p["figure"] == "figure" and p["svg_hidden"] for p in plots), plots
        assert all(re.match(r"^(Shown: .*?\. )?Figure", p["caption"]) for p in plots), plots
        named = page.get_by_role("figure", name=re.compile(r"^(Shown: .*?\. )?Figure"))
        assert named.count() == len(plots)
        # in the light theme: WCAG 2.1 A and AA (axe-core), the text and curves inside the figures
        # (text 4.5:1, curves 3:1), no TeX left
        a11y.check_page(page, f"{path.stem} desktop light")
        sliders = []
        sections = page.locator("section.dl-explorable")
        for i in range(sections.count()):
            section = sections.nth(i)
            # every live panel is explorable: its precomputed control(s) as native range inputs
            assert section.locator("input.dl-range").count(), f"{path.stem}: the panel of section {i} has no slider"
            m = _move_slider(page, section)
            assert m["changed"][0] and all(m["changed"]), m  # the panel's every figure follows
            assert all(m["captions_changed"]), m  # and so does every text alternative
            sliders.append(m)
        if path.stem[:2] != "00":
            assert sliders, "a paper notebook's page has a live panel made explorable"
        # the same page in dark mode (the reader's system setting): axe-core and the figures' contrast
        _check_dark_page(page, f"{path.stem} desktop")
        page.wait_for_timeout(300)
        foreign = [u for u in page.requests if not u.startswith(base) and not u.startswith(("data:", "blob:"))]
        assert foreign == [], foreign
        assert not page.errors, page.errors
        plotly = report["plotly_js"]
        transfer = sum(max(r.sizes()["responseBodySize"], 0) for r in page.finished if plotly not in r.url)
        BUDGETS["pages"][path.stem] = {"first_figure_ms": first, "transfer_bytes": transfer,
                                       "figures": len(plots), "sliders": sliders}
        # gross bounds only (the budgets are printed): 1 s, 3 MB and 100 ms are the targets
        assert first < 10_000 and transfer < 3e6
        assert all(m["main_ms"] is not None and m["main_ms"] < 2_000 for m in sliders), sliders
        page.screenshot(path=str(ARTIFACTS / f"{path.stem}.png"))
    finally:
        page.context.close()


#: every page of the site: the notebooks, the document they link to, and the index
PAGES = ["index", *[p.stem for p in NOTEBOOKS], "readings"]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}


def _go_dark(page):
    """The reader's system turns to dark mode: the site's theme (auto) and its figures follow."""
    page.emulate_media(color_scheme="dark")
    try:
        page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'", timeout=3_000)
    except Exception:  # the theme reads the system's setting at load: its switch, as a reader would
        page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
    page.wait_for_function("""() => [...document.querySelectorAll('.dl-plot[data-drawn="yes"]')].every(el =>
        el._fullLayout.paper_bgcolor.replace(/ /g, '') === 'rgba(0,0,0,0)')""", timeout=10_000)
    page.wait_for_timeout(400)  # the theme's colour transitions


def _check_dark_page(page, where):
    """In dark mode: axe-core, the figures' contrast, and the figures on the page's own background."""
    _go_dark(page)
    a11y.check_page(page, f"{where} dark")
    bg = page.evaluate("""() => { const f = document.querySelector('.dl-figure'); if (!f) return null;
        let e = f; while (e && getComputedStyle(e).backgroundColor.replace(/ /g, '') === 'rgba(0,0,0,0)') e = e.parentElement;
        return e ? getComputedStyle(e).backgroundColor : null; }""")
    assert bg is None or _is_dark(bg), f"{where}: a figure sits on {bg} in dark mode (the cell output painted light)"


@pytest.mark.parametrize("name", PAGES)
def test_every_page_on_a_phone_light_and_dark(served, browser, name):  # noqa: F811
    """On a phone (390 px; then 320 px): axe-core finds no WCAG 2.1 A/AA violation in light and in
    dark mode, every figure's text and curves keep their contrast in both, the page never scrolls
    sideways, each figure's title and legend fit and the legend lies off the plot, an explorable's
    slider is a finger's size; no TeX is left in the text."""
    base, _, _ = served
    started = time.perf_counter()
    context = browser.new_context(color_scheme="light", **PHONE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)[:300]))
    try:
        page.goto(f"{base}/{name}.html")
        if name == "index":  # the index forwards to the first page
            page.wait_for_url("**/00_index.html")
        _draw_every_figure(page)
        a11y.check_page(page, f"{name} phone light")
        fits = page.evaluate(a11y.FIGURE_FITS)
        assert fits == [], f"{name} on a phone: {fits}"
        sizes = page.locator("input.dl-range").evaluate_all(
            "els => els.map(e => [e.getBoundingClientRect().width, e.getBoundingClientRect().height])")
        assert all(w >= 200 and h >= 40 for w, h in sizes), sizes  # as wide as the column, a finger's height
        _check_dark_page(page, f"{name} phone")
        page.set_viewport_size({"width": 320, "height": 700})
        page.wait_for_timeout(500)  # the figures are laid out again after a resize
        wide = page.evaluate(a11y.SIDEWAYS)
        assert wide["width"] <= wide["screen"], f"{name} at 320 px: {wide}"
        assert page.evaluate(a11y.FIGURE_FITS) == [], name
        if name not in {p.stem for p in NOTEBOOKS}:  # the notebooks' pages on a desktop: the test above
            page.set_viewport_size({"width": 1366, "height": 768})
            a11y.check_page(page, f"{name} desktop dark")
            page.emulate_media(color_scheme="light")
            page.evaluate("() => { document.documentElement.dataset.theme = 'light'; }")
            a11y.check_page(page, f"{name} desktop light")
        assert not errors, errors
    finally:
        context.close()
        BUDGETS["phone_seconds"] = BUDGETS.get("phone_seconds", 0) + time.perf_counter() - started


def _is_dark(css_colour: str) -> bool:
    values = [float(v) for v in re.findall(r"[\d.]+", css_colour)[:3]]
    return sum(values) < 3 * 80


def test_figures_follow_the_dark_theme_and_come_back(served, browser):  # noqa: F811
    """A reader whose system asks for dark pages gets dark figures (the site's theme in auto mode):
    transparent background, the theme's text colour, and every curve readable on the page (contrast
    at least 3:1); the theme's switch back to light restores the figure as drawn."""
    base, _, _ = served
    page = _visit(browser, f"{base}/01_delayed_conversions.html", scheme="dark")
    try:
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        section = page.locator("section.dl-explorable").first
        main = section.locator(".dl-plot").first
        main.scroll_into_view_if_needed()
        page.wait_for_function("el => el.dataset.drawn === 'yes'", arg=main.element_handle())
        page.wait_for_function("el => el._fullLayout.paper_bgcolor.replace(/ /g, '') === 'rgba(0,0,0,0)'", arg=main.element_handle(),
                               timeout=10_000)
        state = main.evaluate("""el => { const T = globalThis[Symbol.for('delaylab.theme')]; const th = T.page();
            const bg = T.rgb(th.bg);
            const low = el._fullData.filter(d => d.visible === true && d.line && d.line.color && T.rgb(d.line.color)
                        && T.rgb(d.line.color)[3] > 0.6 && T.contrast(T.rgb(d.line.color), bg) < 3).map(d => [d.name, d.line.color]);
            return {font: el._fullLayout.font.color, bg: th.bg, low,
                    black: el.data.filter(d => d.line && d.line.color === '#000000').length}; }""")
        assert state["low"] == [], state  # e.g. the black lower bound is lightened
        font = page.evaluate("c => globalThis[Symbol.for('delaylab.theme')].rgb(c)", state["font"])
        assert sum(font[:3]) > 3 * 150, state  # light text on the dark page
        page.evaluate("document.documentElement.dataset.theme = 'light'")
        page.wait_for_function("el => el._fullLayout.paper_bgcolor.replace(/ /g, '') !== 'rgba(0,0,0,0)'", arg=main.element_handle(),
                               timeout=10_000)
        assert main.evaluate("el => el._fullLayout.paper_bgcolor") in ("#fff", "#ffffff", "white", "rgb(255, 255, 255)")
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_the_hub_links_come_from_the_readers_hub_address(served, browser):  # noqa: F811
    base, _, _ = served
    page = _visit(browser, f"{base}/02_arm_dependent_delays.html")
    try:
        link = page.locator("nav.dl-launch a.dl-hub-lab")
        assert link.get_attribute("href") is None and link.is_hidden()
        page.locator("nav.dl-launch .dl-hub-input").fill("https://hub.example.edu/")
        href = link.get_attribute("href")
        assert href.startswith("https://hub.example.edu/hub/user-redirect/git-pull?repo=") and link.is_visible()
        assert href.endswith("urlpath=lab%2Ftree%2Fdelaylab%2Fnotebooks%2F02_arm_dependent_delays.ipynb")
        page.reload()  # kept in the reader's browser
        assert page.locator("nav.dl-launch a.dl-hub-lab").get_attribute("href") == href
    finally:
        page.context.close()
