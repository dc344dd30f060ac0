"""Figures that follow the page's light or dark theme, in the browser.

Every figure of the workbook is drawn with plotly's white template, its colours chosen for a
white page (``delaylab.viz.style``). On a dark page (JupyterLab's or Voila's dark theme, or the
course site in dark mode) a white rectangle glares in the middle of the text, and its black
curves (KL-UCB, a bound, the ellipse's θ) would vanish on a dark one. :data:`THEME_JS` makes each
figure follow the page instead:

* the page says which theme it has, and its colours, in the CSS variables of its theme:
  JupyterLab and Voila set ``data-jp-theme-light`` on ``<body>`` and ``--jp-layout-color0``,
  ``--jp-ui-font-color1``, ``--jp-border-color2``; the course site (pydata-sphinx-theme) sets
  ``data-theme`` on ``<html>`` and ``--pst-color-background``, ``--pst-color-text-base``,
  ``--pst-color-border``;
* on a dark page the figure's background becomes transparent (the page's own), its text, axes
  and grid take the theme's colours, and every colour drawn that is not readable on the page's
  background (contrast below 3:1, WCAG's bound for graphics) is lightened towards the theme's
  text colour, keeping its hue (black becomes the text colour); translucent fills are left;
* on a light page the figure is exactly as drawn in Python;
* a change of theme (JupyterLab's menu, the site's switch) restyles every figure on the page;
* on a narrow screen (a phone, below 600 px) a dashboard's figure puts its legend under the plot
  and wraps its title (the course site lays its figures out itself, with the same text helpers);
* on the live slides (a page whose ``<body>`` has the class ``delaylab-slides``: the reveal
  template of :mod:`delaylab.serve`) every text of a figure — ticks, legend, axis and figure
  titles, annotations, a bar's labels — is at least :data:`SLIDE_FONT` px, the figure's title
  :data:`SLIDE_TITLE_FONT`: readable from the back of a lecture hall (plotly lays the figure
  out again for them: margins, legend rows).

The change happens in the page only: a notebook's figure in Python, and a figure saved as HTML,
keep the white template. For a ``FigureWidget`` the change is not reported back to the kernel
(plotly's ``_doNotReportToPy``). Used by :mod:`delaylab.viz.widget`'s loader and by the course
site's script (:mod:`delaylab.site`).
"""

import json

from .style import DARK

#: px: the smallest text of a figure on the live slides (ticks, legends, axis titles, annotations)
SLIDE_FONT = 20
#: px: a figure's title on the live slides
SLIDE_TITLE_FONT = 24
#: px: the least height of a figure's plotting area (per row of subplots) on the live slides
SLIDE_PLOT = 300

#: The script: defines ``globalThis[Symbol.for("delaylab.theme")]`` with ``follow(plot, {widget})``
#: (start following a plotly plot; ``widget``: a FigureWidget's view) and ``apply(plot)``.
THEME_JS = r"""
const DL_THEME = (globalThis[Symbol.for("delaylab.theme")] ??= (() => {
  const DARK_VARIANTS = %(dark)s;
  const plots = new Set();          // WeakRefs of the plots that follow the page
  const drawn = new WeakMap();      // plot -> {layout: {path: value}, traces: [{path: value}]} as drawn in Python
  const widgets = new WeakSet();    // plots of FigureWidgets: changes not reported to the kernel
  const FALLBACK = {bg: "#111111", fg: "#e0e0e0", muted: "#a0a0a0", grid: "#444444"};

  function cssVar(name) {
    return getComputedStyle(document.body || document.documentElement).getPropertyValue(name).trim();
  }

  // The page's theme: {dark, bg, fg, muted, grid}.
  function page() {
    const body = document.body, root = document.documentElement;
    let t = null;
    if (body && body.dataset.jpThemeLight !== undefined) {  // JupyterLab, Voila
      t = {dark: body.dataset.jpThemeLight === "false", bg: cssVar("--jp-layout-color0"),
           fg: cssVar("--jp-ui-font-color1") || cssVar("--jp-content-font-color1"),
           muted: cssVar("--jp-ui-font-color2"), grid: cssVar("--jp-border-color2")};
    } else if (root.dataset.theme) {  // the course site (pydata-sphinx-theme)
      t = {dark: root.dataset.theme === "dark", bg: cssVar("--pst-color-background"),
           fg: cssVar("--pst-color-text-base"), muted: cssVar("--pst-color-text-muted"),
           grid: cssVar("--pst-color-border")};
    } else {
      return {dark: false};
    }
    for (const k of ["bg", "fg", "muted", "grid"]) if (!rgb(t[k])) t[k] = FALLBACK[k];
    return t;
  }

  function rgb(c) {
    if (typeof c !== "string") return null;
    c = c.trim().toLowerCase();
    if (c === "black") return [0, 0, 0, 1];
    if (c === "white") return [255, 255, 255, 1];
    let m = c.match(/^#([0-9a-f]{3,8})$/);
    if (m) {
      let h = m[1];
      if (h.length === 3 || h.length === 4) h = [...h].map((x) => x + x).join("");
      if (h.length !== 6 && h.length !== 8) return null;
      return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16),
              h.length === 8 ? parseInt(h.slice(6, 8), 16) / 255 : 1];
    }
    m = c.match(/^rgba?\(([^)]+)\)$/);
    if (m) {
      const p = m[1].split(/[,\s/]+/).filter(Boolean).map(parseFloat);
      if (p.length >= 3 && p.slice(0, 3).every(Number.isFinite)) return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
    }
    return null;
  }

  function luminance(c) {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  }

  function contrast(a, b) {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  }

  const hex = (c) => "#" + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, "0")).join("").toUpperCase();

  // A colour readable on the theme's background (contrast >= need: 3 for a curve, WCAG's bound for
  // graphics, 4.5 for text), keeping its hue; null: keep it. The palette's dark variants first
  // (delaylab.viz.style.DARK: black becomes the theme's text colour, wine and indigo lighter ones).
  function readable(color, theme, need = 3) {
    const c = rgb(color);
    if (!c || c[3] < 0.6) return null;  // not a colour we read, or a translucent fill
    const bg = rgb(theme.bg), fg = rgb(theme.fg);
    const mapped = DARK_VARIANTS[hex(c)];
    if (mapped) {
      const m = mapped === "foreground" ? theme.fg : mapped;
      if (rgb(m) && contrast(rgb(m), bg) >= need) return m;
    }
    if (contrast(c, bg) >= need) return null;
    if (Math.max(c[0], c[1], c[2]) - Math.min(c[0], c[1], c[2]) < 24) return theme.fg;  // black, greys
    for (let t = 0.1; t < 1; t += 0.1) {
      const m = [0, 1, 2].map((i) => Math.round(c[i] + (fg[i] - c[i]) * t));
      if (contrast(m, bg) >= need) return `rgb(${m[0]}, ${m[1]}, ${m[2]})`;
    }
    return theme.fg;
  }

  function get(obj, path) {
    let o = obj;
    for (const k of path.replace(/\[(\d+)\]/g, ".$1").split(".")) {
      if (o == null) return undefined;
      o = o[k];
    }
    return o;
  }

  // The changes a dark theme makes to the figure as drawn: {layout: {path: value}, traces: [{path: value}]}.
  function darkening(gd, theme) {
    const L = gd.layout || {}, full = gd._fullLayout || {};
    const layout = {"paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)", "font.color": theme.fg,
                    "legend.bgcolor": "rgba(0,0,0,0)", "legend.font.color": theme.fg,
                    "modebar.bgcolor": "rgba(0,0,0,0)", "modebar.color": theme.muted, "modebar.activecolor": theme.fg,
                    "title.font.color": theme.fg};
    for (const key of Object.keys(full)) {
      if (/^[xy]axis\d*$/.test(key)) {
        Object.assign(layout, {[`${key}.color`]: theme.fg, [`${key}.gridcolor`]: theme.grid,
                               [`${key}.linecolor`]: theme.grid, [`${key}.zerolinecolor`]: theme.grid});
      }
    }
    (L.annotations || []).forEach((a, i) => {
      const c = readable(get(a, "font.color"), theme, 4.5);
      if (c) layout[`annotations[${i}].font.color`] = c;
    });
    (L.shapes || []).forEach((s, i) => {
      const c = readable(get(s, "line.color"), theme);
      if (c) layout[`shapes[${i}].line.color`] = c;
    });
    (L.sliders || []).forEach((s, i) => {
      Object.assign(layout, {[`sliders[${i}].font.color`]: theme.fg, [`sliders[${i}].currentvalue.font.color`]: theme.fg,
                             [`sliders[${i}].bgcolor`]: theme.grid, [`sliders[${i}].bordercolor`]: theme.grid,
                             [`sliders[${i}].activebgcolor`]: theme.muted, [`sliders[${i}].tickcolor`]: theme.muted});
    });
    const traces = (gd.data || []).map((t) => {
      const out = {};
      for (const path of ["line.color", "marker.color", "textfont.color"]) {
        const c = readable(get(t, path), theme, path === "textfont.color" ? 4.5 : 3);
        if (c) out[path] = c;
      }
      return out;
    });
    return {layout, traces};
  }

  function apply(gd) {
    const P = globalThis.Plotly;
    if (!P || !gd || !gd._fullLayout || !gd.isConnected) return;
    const theme = page(), before = drawn.get(gd);
    if (!theme.dark && !before) return;  // a light page and never darkened: as drawn
    const quiet = widgets.has(gd) ? {_doNotReportToPy: true} : {};
    if (theme.dark) {
      const change = darkening(gd, theme);
      const kept = before || {layout: {}, traces: (gd.data || []).map(() => ({}))};
      for (const p of Object.keys(change.layout)) if (!(p in kept.layout)) kept.layout[p] = get(gd.layout, p);
      change.traces.forEach((t, i) => {
        kept.traces[i] = kept.traces[i] || {};
        for (const p of Object.keys(t)) if (!(p in kept.traces[i])) kept.traces[i][p] = get(gd.data[i], p);
      });
      drawn.set(gd, kept);
      restyle(P, gd, change, quiet);
    } else {  // back to the figure as drawn
      drawn.delete(gd);
      restyle(P, gd, before, quiet);
    }
  }

  function restyle(P, gd, change, quiet) {
    const layout = {};
    for (const [p, v] of Object.entries(change.layout)) layout[p] = v === undefined ? null : v;
    P.relayout(gd, {...layout, ...quiet});
    const paths = new Set();
    change.traces.forEach((t) => Object.keys(t || {}).forEach((p) => paths.add(p)));
    for (const path of paths) {
      const idx = [], values = [];
      change.traces.forEach((t, i) => { if (t && path in t) { idx.push(i); values.push(t[path] === undefined ? null : t[path]); } });
      if (idx.length) P.restyle(gd, {[path]: values, ...quiet}, idx);
    }
  }

  // ---------------------------------------------------------------- a phone's width
  const plain = (s) => String(s ?? "").replace(/<[^>]+>/g, "");

  // ``text`` (plotly's HTML subset: <br>, <sup>, <b> …) broken into lines of at most ``chars``
  function wrap(text, chars) {
    if (!text) return text;
    return String(text).split(/<br\s*\/?>/i).map((part) => {
      const m = part.match(/^\s*<(sup|sub|b|i)>(.*)<\/\1>\s*$/i);
      const [open, inner, close] = m ? [`<${m[1]}>`, m[2], `</${m[1]}>`] : ["", part, ""];
      const room = m && m[1].toLowerCase() === "sup" ? Math.round(chars * 1.4) : chars;
      const lines = [];
      let line = "";
      for (const word of inner.split(/\s+/).filter(Boolean)) {
        if (line && plain(line + " " + word).length > room) { lines.push(line); line = word; }
        else line = line ? `${line} ${word}` : word;
      }
      if (line) lines.push(line);
      return lines.map((l) => open + l + close).join("<br>");
    }).join("<br>");
  }

  const lines = (text) => (text ? String(text).split(/<br\s*\/?>/i).length : 0);

  // the characters a legend entry's line may hold at this width (longer names are wrapped)
  const legendChars = (width) => Math.max(12, Math.floor((width - 70) / 7.2));

  // the height (px) a horizontal legend of these entries (their lengths in characters) takes at this width
  function legendHeight(chars, width) {
    const room = legendChars(width);
    let height = 0, row = 0, used = 0;
    for (const n of chars) {
      const lines = Math.ceil(n / room), w = 46 + 7.2 * Math.min(n, room);
      if (used && used + w > width - 20) { height += row; row = 0; used = 0; }
      used += w;
      row = Math.max(row, 6 + 17 * lines);
    }
    return chars.length ? height + row + 8 : 0;
  }


  // A FigureWidget on a narrow screen (a dashboard on a phone): the legend under the plot, the
  // title wrapped, in the page only (not reported to the kernel). Idempotent: called after every
  // redraw, it changes nothing once the figure is laid out (and re-wraps a title the kernel changed).
  function phone(gd) {
    const P = globalThis.Plotly, L = gd._fullLayout;
    const width = gd.clientWidth;
    if (!P || !L || !width || width >= 600 || !gd.isConnected) return;
    const change = {};
    const title = L.title && L.title.text;
    if (title && title.trim()) {
      const wrapped = wrap(title, Math.max(20, Math.floor((width - 20) / (14 * 0.55))));
      if (wrapped !== title) change["title.text"] = wrapped;
      if ((L.title.font && L.title.font.size) > 14) change["title.font.size"] = 14;
      const t = Math.round(lines(wrapped) * 14 * 1.3 + 26);
      if (L.margin.t < t) change["margin.t"] = t;
    }
    const names = (gd.data || []).filter((d) => d.showlegend !== false && d.visible !== false && d.name && d.type !== "pie")
                                 .map((d) => plain(d.name).length);
    if (names.length && L.showlegend !== false && L.legend && L.legend.orientation !== "h") {
      const extra = legendHeight(names, width);
      Object.assign(change, {"legend.orientation": "h", "legend.x": 0, "legend.xanchor": "left", "legend.y": 0,
                             "legend.yanchor": "bottom", "legend.xref": "container", "legend.yref": "container",
                             "margin.b": (L.margin.b || 50) + extra, "margin.r": 12, "height": (L.height || 450) + extra});
    }
    // subplot titles wrapped to their column, at 12 px
    const domains = (letter) => new Set(Object.keys(L).filter((k) => new RegExp(`^${letter}axis\\d*$`).test(k))
                                          .map((k) => JSON.stringify(L[k].domain || [0, 1])));
    const cols = Math.max(domains("x").size, 1), rows = Math.max(domains("y").size, 1);
    (L.annotations || []).forEach((a, i) => {
      if (a.xref !== "paper" || !a.text || a.showarrow) return;
      const wrapped = wrap(a.text, Math.max(10, Math.floor((width / cols - 10) / (12 * 0.56))));
      if (wrapped !== a.text) change[`annotations[${i}].text`] = wrapped;
      if ((a.font && a.font.size) > 12) change[`annotations[${i}].font.size`] = 12;
    });
    // a plotting area a reader can read: at least 200 px per row of panels
    const height = change.height || L.height || 450;
    const spans = Object.keys(L).filter((k) => /^yaxis\d*$/.test(k)).map((k) => (L[k].domain || [0, 1])[1] - (L[k].domain || [0, 1])[0]);
    const span = Math.min(1, ...spans.filter((v) => v > 0));
    const plot = L._size && !change["margin.b"] ? L._size.h : height - (change["margin.t"] || L.margin.t) - (change["margin.b"] || L.margin.b);
    const area = plot * span;  // the plotting area as drawn (plotly widens the margins for a legend outside it)
    if (area < 200) change.height = Math.round(height + (200 - area) / span);
    if (Object.keys(change).length) P.relayout(gd, {...change, ...(widgets.has(gd) ? {_doNotReportToPy: true} : {})});
  }

  // ---------------------------------------------------------------- the live slides
  const onSlides = () => !!(document.body && document.body.classList.contains("delaylab-slides"));

  // A figure on the live slides, in the page only, step by step (each a relayout, after which
  // plotly redraws and calls this again; idempotent: nothing changes once the figure is laid out,
  // and what a kernel's update sets back is raised again):
  // 1. no text under SLIDE_FONT px (a title SLIDE_TITLE_FONT, or more if it holds a smaller <sup>;
  //    a log axis's labels between decades too);
  // 2. its title and its subplots' titles wrapped to the figure's width;
  // 3. a legend in rows under the plot clear of the x axes' titles and tick labels: moved to the
  //    figure's bottom, the bottom margin grown to hold both (plotly places a legend at y < 0 in
  //    shares of the plot's height, so larger labels run into it);
  // 4. a plotting area of at least SLIDE_PLOT px per row of subplots (the figure grows).
  const relayouts = new WeakMap();  // plot -> times of its last relayouts for the slides
  function slides(gd) {
    const P = globalThis.Plotly, next = slidesChange(gd);
    if (!P || !next) return;
    // a guard, should a layout never settle: at most 20 relayouts in 5 s
    const now = Date.now(), recent = (relayouts.get(gd) || []).filter((t) => now - t < 5000);
    if (recent.length >= 20) return;
    relayouts.set(gd, [...recent, now]);
    const quiet = widgets.has(gd) ? {_doNotReportToPy: true} : {};
    if (next.textfont.length) P.restyle(gd, {"textfont.size": %(font)d, ...quiet}, next.textfont);
    if (Object.keys(next.layout).length) P.relayout(gd, {...next.layout, ...quiet});
  }

  // What slides() would change next: {layout: {path: value}, textfont: [trace indices]}, or null
  // when the figure is laid out for the slides (or not drawn yet).
  function slidesChange(gd) {
    const L = gd._fullLayout;
    if (!L || !gd.isConnected) return null;
    const change = {};
    const lift = (path, font, floor = %(font)d) => {
      if (font && typeof font.size === "number" && font.size < floor) change[path] = floor;
    };
    lift("font.size", L.font);
    if (L.title && L.title.text) {  // plotly draws a <sup> at 70 %% of the title's size
      lift("title.font.size", L.title.font, /<sup>/i.test(L.title.text) ? Math.ceil(%(font)d / 0.7) : %(title)d);
    }
    if (L.legend) {
      lift("legend.font.size", L.legend.font);
      if (L.legend.title && L.legend.title.text) lift("legend.title.font.size", L.legend.title.font);
    }
    const axes = Object.keys(L).filter((k) => /^[xy]axis\d*$/.test(k) && L[k] && L[k].visible !== false);
    for (const key of axes) {
      const axis = L[key];
      // a log axis labels 2 and 5 between its decades at 3/4 of the tick font: over two decades or
      // more, only the decades are labelled; over fewer, the tick font is raised for them
      const minor = axis.type === "log" && typeof axis.dtick === "string" && axis.dtick[0] === "D";
      const decades = Math.abs((axis.range || [0, 0])[1] - (axis.range || [0, 0])[0]);
      if (minor && decades >= 2) Object.assign(change, {[`${key}.dtick`]: 1, [`${key}.tick0`]: 0});
      lift(`${key}.tickfont.size`, axis.tickfont, minor && decades < 2 ? Math.ceil(%(font)d / 0.75) : %(font)d);
      if (axis.title && axis.title.text) lift(`${key}.title.font.size`, axis.title.font);
    }
    (L.annotations || []).forEach((a, i) => lift(`annotations[${i}].font.size`, a.font));
    (L.sliders || []).forEach((s, i) => {
      lift(`sliders[${i}].font.size`, s.font);
      if (s.currentvalue) lift(`sliders[${i}].currentvalue.font.size`, s.currentvalue.font);
    });
    (L.updatemenus || []).forEach((u, i) => lift(`updatemenus[${i}].font.size`, u.font));
    const small = (gd._fullData || []).filter((t) => t.textfont && typeof t.textfont.size === "number"
                                                   && t.textfont.size < %(font)d && t.text !== undefined && t.text !== "")
                                      .map((t) => t.index);
    if (!Object.keys(change).length) Object.assign(change, wrapped(gd) || legendClear(gd) || plotRoom(gd, axes) || {});
    return Object.keys(change).length || small.length ? {layout: change, textfont: small} : null;
  }

  // step 2 of slides(): the figure's title and its subplots' titles wrapped to their width (the
  // larger font makes them longer than the figure), the top margin grown for the title's lines
  function wrapped(gd) {
    const L = gd._fullLayout, change = {}, room = (width, size) => Math.max(12, Math.floor((width - 20) / (size * 0.6)));
    const title = L.title && L.title.text;
    if (title && title.trim()) {
      const size = L.title.font.size, text = wrap(title, room(L.width, size));
      if (text !== title) {
        change["title.text"] = text;
        const top = Math.round(lines(text) * size * 1.3 + 24);
        if (L.margin.t < top) change["margin.t"] = top;
      }
    }
    const domains = (letter) => new Set(Object.keys(L).filter((k) => new RegExp(`^${letter}axis\\d*$`).test(k))
                                          .map((k) => JSON.stringify(L[k].domain || [0, 1])));
    const cols = Math.max(domains("x").size, 1);
    (L.annotations || []).forEach((a, i) => {
      if (a.xref !== "paper" || !a.text || a.showarrow) return;
      const text = wrap(a.text, room(L.width / cols, a.font.size));
      if (text !== a.text) change[`annotations[${i}].text`] = text;
    });
    return Object.keys(change).length ? change : null;
  }

  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

  // step 3 of slides(): the change that puts a legend in rows clear of the x axes' labels, or null
  function legendClear(gd) {
    const L = gd._fullLayout, legend = gd.querySelector(".legend");
    if (!L.showlegend || !L.legend || L.legend.orientation !== "h" || !legend || !L._size) return null;
    const box = legend.getBoundingClientRect(), fig = gd.getBoundingClientRect();
    const labels = [...gd.querySelectorAll(".g-xtitle text, [class^='g-x'][class$='title'] text, .xtick text")]
      .filter((e) => e.textContent).map((e) => e.getBoundingClientRect()).filter((r) => r.height > 0);
    if (!box.height || !fig.width || !labels.some((r) => meets(r, box))) return null;
    const k = fig.width / L.width;  // screen px per figure px (the slides are scaled)
    const below = Math.max(...labels.map((r) => r.bottom)) - fig.top;  // screen px from the figure's top
    const margin = Math.ceil(below / k - (L._size.t + L._size.h) + box.height / k + 16);
    if (margin <= L.margin.b) return null;
    return {"legend.yref": "container", "legend.y": 0, "legend.yanchor": "bottom", "legend.x": 0, "legend.xanchor": "left",
            "margin.b": margin, "height": Math.round(L.height + margin - L.margin.b)};
  }

  // step 4 of slides(): the change that gives each row of subplots SLIDE_PLOT px, or null
  function plotRoom(gd, axes) {
    const L = gd._fullLayout;
    const spans = axes.filter((k) => k[0] === "y").map((k) => (L[k].domain || [0, 1])[1] - (L[k].domain || [0, 1])[0]);
    if (!L._size || !spans.length) return null;
    const span = Math.min(1, ...spans.filter((v) => v > 0));
    const area = L._size.h * span;
    return area < %(plot)d - 1 ? {height: Math.round(L.height + (%(plot)d - area) / span)} : null;
  }

  // the figure laid out for where it is shown: on the live slides, or on a phone's narrow screen
  const fit = (gd) => (onSlides() ? slides(gd) : phone(gd));

  function follow(gd, {widget = false} = {}) {
    if (widget) widgets.add(gd);
    plots.add(new WeakRef(gd));
    let tries = 0;
    const ready = () => {  // once plotly has drawn the figure
      if (gd._fullLayout && globalThis.Plotly) {
        apply(gd);
        if (widget) {  // a dashboard's figure on a phone or a slide (the site lays its figures out itself)
          fit(gd);
          // plotly's widget does not follow its box's width outside JupyterLab (a phone turned, a
          // window narrowed): redrawn at the new width, then laid out for it
          let width = gd.clientWidth, timer = null;
          if (globalThis.ResizeObserver) new ResizeObserver(() => {
            if (Math.abs(gd.clientWidth - width) < 3 || !gd.isConnected) return;
            width = gd.clientWidth;
            clearTimeout(timer);
            // plotly's own resize would report the new size to the kernel: an autosize not reported
            timer = setTimeout(() => globalThis.Plotly.relayout(gd, {autosize: true, _doNotReportToPy: true}), 150);
          }).observe(gd);
          let pending = false;
          gd.on("plotly_afterplot", () => {
            if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; fit(gd); }); }
          });
        }
      } else if (tries++ < 600) requestAnimationFrame(ready);
    };
    ready();
  }

  function applyAll() {
    for (const ref of [...plots]) {
      const gd = ref.deref();
      if (!gd) plots.delete(ref);
      else if (gd.isConnected) apply(gd);
    }
  }

  const watch = () => {
    const observer = new MutationObserver(() => requestAnimationFrame(applyAll));
    observer.observe(document.documentElement, {attributes: true, attributeFilter: ["data-theme"]});
    if (document.body) observer.observe(document.body, {attributes: true,
                                                        attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"]});
  };
  if (document.body) watch(); else document.addEventListener("DOMContentLoaded", watch);
  return {follow, apply, applyAll, page, readable, contrast, rgb, slides, slidesChange,
          text: {plain, wrap, lines, legendChars, legendHeight}};
})());
""" % {"dark": json.dumps({k.upper(): v for k, v in DARK.items()}), "font": SLIDE_FONT, "title": SLIDE_TITLE_FONT,
                     "plot": SLIDE_PLOT}
