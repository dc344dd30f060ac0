// delaylab's course site: draws the static figures and explorables (delaylab/site/static.py) with
// the site's one plotly.js, follows the page's light or dark theme (delaylab.viz.theme, included
// above this script by the build), lays figures out for the screen they are on (a phone: legend
// under the plot, titles wrapped, side-by-side panels stacked), drives the explorables' native
// range inputs, and fills in the JupyterHub links from the reader's hub address.
//
// For a phone's network: plotly.js and each figure's data are loaded only when a figure comes near
// the screen (a page without figures never loads plotly.js), and every figure's place is reserved
// at its final height before it is drawn (no layout shift).
(() => {
  const THEME = globalThis[Symbol.for("delaylab.theme")];
  const SCRIPT = document.querySelector("script[data-plotly]");
  const groups = new Map();  // explorable id -> {sizes, index: [per control], members: [{el, x}]}
  const NARROW = 600;  // px: below, a figure gets the phone layout
  const STACK_GAP = 64;  // px between stacked panels (a subplot title)
  const CONFIG = {responsive: true, displaylogo: false, toImageButtonOptions: {format: "svg"},
                  // two buttons, not eight: a keyboard user tabs past each figure's mode bar
                  modeBarButtons: [["toImage", "resetScale2d"]]};

  const DTYPES = {f4: Float32Array, f8: Float64Array, i1: Int8Array, u1: Uint8Array, i2: Int16Array,
                  u2: Uint16Array, i4: Int32Array, u4: Uint32Array};

  // plotly's typed arrays ({dtype, bdata}) in an update, as JavaScript typed arrays
  function decode(v) {
    if (Array.isArray(v)) return v.map(decode);
    if (v && typeof v === "object") {
      if (typeof v.bdata === "string" && DTYPES[v.dtype]) {
        const bytes = Uint8Array.from(atob(v.bdata), (c) => c.charCodeAt(0));
        return new DTYPES[v.dtype](bytes.buffer);
      }
      const out = {};
      for (const [k, w] of Object.entries(v)) out[k] = decode(w);
      return out;
    }
    return v;
  }

  // ------------------------------------------------------------------ loading, near the screen
  function load(src) {
    return new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = src;
      s.onload = resolve;
      s.onerror = () => reject(new Error(`could not load ${src}`));
      document.head.appendChild(s);
    });
  }

  let plotly = null;
  function loadPlotly() {
    if (globalThis.Plotly) return Promise.resolve(globalThis.Plotly);
    if (!plotly) {
      const name = SCRIPT && SCRIPT.dataset.plotly;
      if (!name) return Promise.reject(new Error("no plotly.js named"));
      plotly = load(new URL(name, SCRIPT.src).href).then(() => globalThis.Plotly);
    }
    return plotly;
  }

  async function specOf(el) {
    const inline = document.getElementById(el.dataset.spec);
    if (inline) return JSON.parse(inline.textContent);
    const store = (globalThis.delaylabFigures ??= {});
    if (!store[el.dataset.spec]) await load(el.dataset.src);
    const spec = store[el.dataset.spec];
    delete store[el.dataset.spec];
    return spec;
  }

  // ------------------------------------------------------------------ a layout for the screen
  const {plain, wrap, lines, legendChars, legendHeight} = THEME.text;  // shared with the dashboards (viz/theme.py)

  // the subplots' grid: the distinct x and y domains of the axes that carry traces
  function grid(layout, data) {
    const key = (ref, letter) => `${letter}axis${(ref || letter).slice(1)}`;
    const cells = new Map();
    for (const t of data || []) {
      if (t.type === "pie") continue;
      const xk = key(t.xaxis, "x"), yk = key(t.yaxis, "y");
      cells.set(`${xk}|${yk}`, [xk, yk]);
    }
    const dom = (k) => JSON.stringify((layout[k] && layout[k].domain) || [0, 1]);
    const xs = new Set([...cells.values()].map(([x]) => dom(x)));
    const ys = new Set([...cells.values()].map(([, y]) => dom(y)));
    return {cells: [...cells.values()], cols: xs.size, rows: ys.size};
  }

  // The height a figure takes at this width (also the height its place is given before it is
  // drawn): on a phone, side-by-side panels stacked, and the legend's rows under the plot.
  function height(base, width, legend, cols, rows) {
    if (width >= NARROW) return base;
    let h = base;
    if (cols > 1) {  // each panel as tall as a row was (at least 220 px), one under the other
      const area = Math.max((base - 120) / Math.max(rows, 1), 220), n = cols * rows;
      h = 120 + n * area + (n - 1) * STACK_GAP;
    }
    return Math.round(Math.max(h, 300) + legendHeight(legend, width));
  }

  function fit(spec, width) {
    const layout = JSON.parse(JSON.stringify(spec.layout || {}));
    delete layout.width;
    layout.autosize = true;
    const narrow = width < NARROW;
    const margin = (layout.margin = {l: 60, r: 10, t: 40, b: 50, ...(layout.margin || {})});
    const font = (layout.font && layout.font.size) || 13;
    // the title: wrapped to the width, clear of the mode bar (top right)
    const title = layout.title && (typeof layout.title === "string" ? {text: layout.title} : layout.title);
    if (title && title.text && title.text.trim()) {
      const size = narrow ? 14 : ((title.font && title.font.size) || font + 4);
      title.font = {...(title.font || {}), size};
      title.text = wrap(title.text, Math.max(20, Math.floor((width - (narrow ? 20 : 90)) / (size * 0.55))));
      layout.title = title;
      margin.t = Math.max(margin.t, Math.round(lines(title.text) * size * 1.3 + 26));
    }
    if (!narrow) return layout;
    const data = spec.data || [];
    const g = grid(layout, data);
    const legend = data.filter((t) => t.showlegend !== false && t.visible !== false && t.name && t.type !== "pie")
                       .map((t) => plain(t.name).length);
    const base = layout.height || 450;
    layout.height = height(base, width, legend, g.cols, g.rows);
    margin.l = Math.min(margin.l, 56);
    margin.r = 12;
    // side-by-side panels one under the other
    if (g.cols > 1) {
      const n = g.cells.length;
      const plotHeight = layout.height - margin.t - (margin.b || 50) - legendHeight(legend, width);
      const gap = Math.min(0.3, STACK_GAP / Math.max(plotHeight, 1)), slot = (1 - gap * (n - 1)) / n;
      const dom = (k) => (layout[k] && layout[k].domain) || [0, 1];
      const order = g.cells.slice().sort((a, b) => dom(b[1])[1] - dom(a[1])[1] || dom(a[0])[0] - dom(b[0])[0]);
      const titles = (layout.annotations || []).filter((a) => a.xref === "paper" && a.yref === "paper" && a.showarrow === false
                                                       && a.yanchor === "bottom");
      order.forEach(([xk, yk], i) => {
        const oldX = dom(xk), oldY = dom(yk);
        const y1 = 1 - i * (slot + gap), y0 = y1 - slot;
        const t = titles.find((a) => a.x >= oldX[0] - 1e-6 && a.x <= oldX[1] + 1e-6 && Math.abs(a.y - oldY[1]) < 0.03);
        layout[xk] = {...(layout[xk] || {}), domain: [0, 1]};
        layout[yk] = {...(layout[yk] || {}), domain: [Math.max(0, y0), y1]};
        if (t) Object.assign(t, {x: 0.5, y: y1, xanchor: "center"});
      });
    }
    // subplot titles and other paper annotations: no smaller than 12 px, wrapped to the width
    (layout.annotations || []).forEach((a) => {
      if (a.xref !== "paper" || !a.text) return;
      const size = Math.max(12, Math.min((a.font && a.font.size) || 16, 13));
      a.font = {...(a.font || {}), size};
      a.text = wrap(a.text, Math.floor((width - 30) / (size * 0.56)));
    });
    // ticks that do not overlap
    for (const k of Object.keys(layout)) {
      if (/^xaxis\d*$/.test(k) && layout[k].nticks === undefined) layout[k].nticks = 5;
    }
    // the legend under the plot, across the width, never on top of the curves
    if (legend.length) {
      layout.legend = {...(layout.legend || {}), orientation: "h", x: 0, xanchor: "left", y: 0, yanchor: "bottom",
                       yref: "container", xref: "container", font: {...((layout.legend || {}).font || {}), size: 12}};
      margin.b = (margin.b || 50) + legendHeight(legend, width);
    }
    // a plotting area a reader can read (a wrapped title and a legend take their room from it)
    const area = (layout.height - margin.t - margin.b) / Math.max(g.cols > 1 ? g.cells.length : g.rows, 1);
    if (area < 220) layout.height += Math.round((220 - area) * Math.max(g.cols > 1 ? g.cells.length : g.rows, 1));
    return layout;
  }

  // on a phone, long legend entries wrapped (a trace's name, in the page only: its caption keeps it)
  function named(data, names, width) {
    if (width >= NARROW) return data.map((t, i) => (t.name === names[i] ? t : {...t, name: names[i]}));
    const room = legendChars(width);
    return data.map((t, i) => (names[i] && t.showlegend !== false ? {...t, name: wrap(names[i], room)} : t));
  }

  function config(width) {
    return width < NARROW ? {...CONFIG, displayModeBar: false} : CONFIG;
  }

  // the plot's SVG is drawing, not text: a screen reader reads the figure's caption instead
  function quiet(el) {
    el.querySelectorAll("svg.main-svg").forEach((svg) => svg.setAttribute("aria-hidden", "true"));
  }

  // ------------------------------------------------------------------ explorables
  function combo(g) {  // the index of the recorded combination of the controls' positions
    let k = 0;
    g.sizes.forEach((n, c) => { k = k * n + g.index[c]; });
    return k;
  }

  function caption(el, x, k) {
    const cap = el.closest("figure").querySelector("figcaption.dl-alt");
    if (cap && x.alts && x.alts[k] !== undefined && cap.textContent !== x.alts[k]) cap.textContent = x.alts[k];
  }

  function follow(member, k) {  // a figure of the group shows combination k
    const {el, x} = member;
    caption(el, x, k);
    if (!el._fullLayout || !x.updates || !x.updates[k]) return;
    const [data, layout, traces] = x.updates[k];
    const fitted = {...layout};
    if (typeof fitted["title.text"] === "string") fitted["title.text"] = fit({layout: {title: {text: fitted["title.text"]},
      font: el.layout.font, margin: el.layout.margin}, data: []}, el.clientWidth).title.text;
    if (Object.keys(data).length || Object.keys(fitted).length) Plotly.update(el, decode(data), fitted, traces);
    if (THEME) THEME.apply(el);
  }

  function group(id) {
    let g = groups.get(id);
    if (!g) {
      const inputs = [...document.querySelectorAll(`input.dl-range[data-group="${id}"]`)];
      g = {id, sizes: inputs.map((i) => Number(i.max) + 1), index: inputs.map((i) => Number(i.value)), members: [], inputs};
      groups.set(id, g);
    }
    return g;
  }

  function onRange(input) {
    const g = group(input.dataset.group), c = Number(input.dataset.control), i = Number(input.value);
    const labels = JSON.parse(input.dataset.labels);
    input.setAttribute("aria-valuetext", `${input.dataset.name} = ${labels[i]}`);
    const out = input.parentElement.querySelector("output");
    if (out) out.textContent = labels[i];
    if (g.index[c] === i) return;
    g.index[c] = i;
    const k = combo(g);
    g.members.forEach((m) => follow(m, k));
    // the figures not drawn yet show the new value when they are
    document.querySelectorAll(`#${g.id} figure`).forEach((f) => {
      const el = f.querySelector(".dl-plot");
      if (el && !el._fullLayout && el._dlSpec) caption(el, el._dlSpec.delaylab, k);
    });
    document.dispatchEvent(new CustomEvent("delaylab:step", {detail: {group: g.id, combo: k}}));
  }

  function ranges() {
    document.querySelectorAll("input.dl-range").forEach((input) => {
      input.addEventListener("input", () => onRange(input));
      input.addEventListener("change", () => onRange(input));
      if (input.value !== input.defaultValue) onRange(input);  // a value the browser restored
    });
  }

  // ------------------------------------------------------------------ drawing
  async function draw(el) {
    if (el.dataset.drawn) return;
    el.dataset.drawn = "drawing";
    let spec;
    try {
      [spec] = await Promise.all([specOf(el), loadPlotly()]);
    } catch (error) {
      el.dataset.drawn = "failed";
      el.textContent = "This figure could not be loaded (it needs JavaScript and the site's plotly.js).";
      console.error("[delaylab]", error);
      return;
    }
    const width = el.clientWidth || document.documentElement.clientWidth;
    el._dlSpec = spec;
    el._dlNames = (spec.data || []).map((t) => t.name);
    await Plotly.newPlot(el, named(spec.data || [], el._dlNames, width), fit(spec, width), config(width));
    el._dlWidth = width;
    el.style.minHeight = "";
    quiet(el);
    el.on("plotly_afterplot", () => quiet(el));
    el.dataset.drawn = "yes";
    const x = spec.delaylab;
    if (x && x.group) {
      const g = group(x.group);
      const member = {el, x};
      g.members.push(member);
      const start = x.start.reduce((k, v, c) => k * x.sizes[c] + v, 0);
      if (combo(g) !== start) follow(member, combo(g));
    }
    if (THEME) THEME.follow(el);
    el.dispatchEvent(new CustomEvent("delaylab:drawn", {bubbles: true}));
  }

  // A figure whose width class changed (a phone turned, a window resized) is laid out again.
  function refit() {
    document.querySelectorAll(".dl-plot[data-drawn='yes']").forEach((el) => {
      const width = el.clientWidth;
      if (!width || ((width < NARROW) === (el._dlWidth < NARROW) && Math.abs(width - el._dlWidth) < 40)) return;
      el._dlWidth = width;
      const layout = fit({layout: el._dlSpec.layout, data: el.data}, width);
      const x = el._dlSpec.delaylab, g = x && x.group && groups.get(x.group);
      Plotly.react(el, named(el.data, el._dlNames, width), layout, config(width)).then(() => {
        if (g && x.updates) follow({el, x}, combo(g));
        if (THEME) THEME.apply(el);
        quiet(el);
      });
    });
  }

  // Each figure's place, at the height it will take on this screen (no layout shift).
  function reserve() {
    document.querySelectorAll(".dl-plot[data-height]").forEach((el) => {
      if (el.dataset.drawn) return;
      const width = el.clientWidth || document.documentElement.clientWidth;
      const legend = JSON.parse(el.dataset.legend || "[]");
      const [cols, rows] = (el.dataset.grid || "1x1").split("x").map(Number);
      el.style.minHeight = `${height(Number(el.dataset.height), width, legend, cols, rows)}px`;
    });
  }

  // Figures near the screen are drawn when they come near it (their data and plotly.js loaded
  // then); once one figure is drawn, the others follow one at a time when the browser is idle, in
  // the page's order, so that a figure is usually ready before its reader scrolls to it.
  function drawAll() {
    const plots = [...document.querySelectorAll(".dl-plot[data-spec]")];
    if (!plots.length) return;
    const idle = globalThis.requestIdleCallback || ((f) => setTimeout(f, 50));
    let next = 0, started = false;
    const background = async () => {
      while (next < plots.length && plots[next].dataset.drawn) next++;
      if (next >= plots.length) return;
      await draw(plots[next]);
      idle(background, {timeout: 1000});
    };
    const begin = () => { if (!started) { started = true; idle(background, {timeout: 1000}); } };
    if ("IntersectionObserver" in window) {
      const seen = new IntersectionObserver((entries) => {
        for (const e of entries) {
          if (e.isIntersecting) {
            seen.unobserve(e.target);
            draw(e.target).then(begin);
          }
        }
      }, {rootMargin: "400px 0px"});
      plots.forEach((p) => seen.observe(p));
    } else begin();
  }

  // ------------------------------------------------------------------ formulas on a narrow screen
  // A formula wider than its column scrolls on its own (the page never scrolls sideways), and a
  // scrolling formula takes the keyboard's focus, so that it can be scrolled without a mouse.
  function formulas() {
    document.querySelectorAll(".bd-article math").forEach((m) => {
      const block = m.getAttribute("display") === "block";
      let box = block ? m : m.parentElement.classList.contains("dl-math-scroll") ? m.parentElement : null;
      const column = (box || m).parentElement.getBoundingClientRect(), r = m.getBoundingClientRect();
      const wide = r.right > column.right + 1 || r.width > column.width + 1 || (box && box.scrollWidth > box.clientWidth + 1);
      if (!block && wide && !box) {
        box = document.createElement("span");
        box.className = "dl-math-scroll";
        m.replaceWith(box);
        box.appendChild(m);
      }
      if (!box) return;
      if (box.scrollWidth > box.clientWidth + 1) {
        box.setAttribute("tabindex", "0");
        if (!block) box.setAttribute("role", "group");
        if (!box.hasAttribute("aria-label")) box.setAttribute("aria-label", "formula, scrolls sideways");
      } else if (box.hasAttribute("tabindex")) {
        box.removeAttribute("tabindex");
      }
    });
  }

  // ------------------------------------------------------------------ the launch bar's hub links
  // The JupyterHub links: the reader types their hub's address once (kept in this browser).
  function hubs() {
    const inputs = [...document.querySelectorAll(".dl-hub-input")];
    let saved = "";
    try { saved = localStorage.getItem("delaylab-hub") || ""; } catch (e) { /* private mode */ }
    const set = (value) => {
      const hub = value.trim().replace(/\/+$/, "");
      const ok = /^https?:\/\/[^\s/]+/.test(hub);
      document.querySelectorAll("a[data-hub-template]").forEach((a) => {
        if (ok) {
          a.href = a.dataset.hubTemplate.replace("{hub}", hub);
          a.hidden = false;
        } else {
          a.removeAttribute("href");
          a.hidden = true;
        }
      });
    };
    inputs.forEach((input) => {
      input.value = saved;
      input.addEventListener("input", () => {
        inputs.forEach((o) => { if (o !== input) o.value = input.value; });
        try { localStorage.setItem("delaylab-hub", input.value.trim()); } catch (e) { /* private mode */ }
        set(input.value);
      });
    });
    set(saved);
  }

  function start() {
    hubs();
    reserve();
    ranges();
    formulas();
    drawAll();
    let timer = null;
    addEventListener("resize", () => {
      clearTimeout(timer);
      timer = setTimeout(() => { reserve(); refit(); formulas(); }, 200);
    });
  }
  globalThis[Symbol.for("delaylab.site")] = {fit, height, wrap, legendHeight, loadPlotly};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
