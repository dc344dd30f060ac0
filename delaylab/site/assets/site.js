// delaylab's course site: draws the static figures and explorables (delaylab/site/static.py) with
// the site's one plotly.js, follows the page's light or dark theme (delaylab.viz.theme, included
// above this script by the build), and fills in the JupyterHub links from the reader's hub address.
(() => {
  const THEME = globalThis[Symbol.for("delaylab.theme")];
  const groups = new Map();  // explorable id -> {sizes, index: [per control], members: [{el, x, native}]}
  const CONFIG = {responsive: true, displaylogo: false, modeBarButtonsToRemove: ["select2d", "lasso2d"],
                  toImageButtonOptions: {format: "svg"}};

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

  function specOf(el) {
    return JSON.parse(document.getElementById(el.dataset.spec).textContent);
  }

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
    const {el, x, native} = member;
    caption(el, x, k);
    if (!native && x.updates && x.updates[k]) {
      const [data, layout, traces] = x.updates[k];
      if (Object.keys(data).length || Object.keys(layout).length) Plotly.update(el, decode(data), layout, traces);
    }
    if (THEME) THEME.apply(el);
  }

  function onSlider(g, gd, event) {
    const sliders = (gd._fullLayout && gd._fullLayout.sliders) || [];
    let c = sliders.indexOf(event.slider);
    if (c < 0) c = event.slider && event.slider._index !== undefined ? event.slider._index : 0;
    const steps = event.slider ? event.slider.steps || [] : [];
    let i = steps.indexOf(event.step);
    if (i < 0) i = event.step && event.step._index !== undefined ? event.step._index : Number(event.step.value);
    g.index[c] = i;
    const k = combo(g);
    g.members.forEach((m) => follow(m, k));
    document.dispatchEvent(new CustomEvent("delaylab:step", {detail: {group: g.id, combo: k}}));
  }

  async function draw(el) {
    if (el.dataset.drawn) return;
    el.dataset.drawn = "drawing";
    const spec = specOf(el);
    const layout = spec.layout || {};
    delete layout.width;
    layout.autosize = true;
    await Plotly.newPlot(el, spec.data || [], layout, CONFIG);
    el.style.minHeight = "";
    el.dataset.drawn = "yes";
    const x = spec.delaylab;
    if (x && x.group) {
      let g = groups.get(x.group);
      if (!g) {
        g = {id: x.group, sizes: x.sizes, index: [...x.start], members: []};
        groups.set(x.group, g);
      }
      const native = !x.updates;  // its slider's steps switch it (plotly's "update")
      const member = {el, x, native};
      g.members.push(member);
      const start = x.start.reduce((k, v, c) => k * x.sizes[c] + v, 0);
      if (combo(g) !== start) follow({...member, native: false}, combo(g));
      if ((layout.sliders || []).length) el.on("plotly_sliderchange", (e) => onSlider(g, el, e));
    }
    if (THEME) THEME.follow(el);
    el.dispatchEvent(new CustomEvent("delaylab:drawn", {bubbles: true}));
  }

  // Figures near the screen are drawn at once; the others one at a time, in the page's order, when
  // the browser is idle: the first figure is not kept waiting by the others (a page has up to a
  // dozen), the page stays responsive while they are drawn, and a figure is usually ready before
  // its reader scrolls to it.
  function drawAll() {
    const plots = [...document.querySelectorAll(".dl-plot[data-spec]")];
    const idle = globalThis.requestIdleCallback || ((f) => setTimeout(f, 50));
    let next = 0;
    const background = async () => {
      while (next < plots.length && plots[next].dataset.drawn) next++;
      if (next >= plots.length) return;
      await draw(plots[next]);
      idle(background, {timeout: 500});
    };
    if ("IntersectionObserver" in window) {
      const seen = new IntersectionObserver((entries) => {
        for (const e of entries) {
          if (e.isIntersecting) {
            seen.unobserve(e.target);
            draw(e.target);
          }
        }
      }, {rootMargin: "300px 0px"});
      plots.forEach((p) => seen.observe(p));
    }
    background();
  }

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
    if (globalThis.Plotly) drawAll();
    else document.querySelectorAll(".dl-plot").forEach((p) => { p.textContent = "This figure needs JavaScript and the site's plotly.js."; });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
