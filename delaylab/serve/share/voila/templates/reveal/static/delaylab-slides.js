/* delaylab's live slides: reveal.js (static/revealjs/) set up for a notebook that Voila streams
 * in cell by cell (index.html.j2 beside this folder).
 *
 * - The deck starts with the first cell, so the title slide shows while the other cells execute;
 *   each later cell is added with Reveal.sync(). An address with a slide (#/3/1, a reload in the
 *   middle of a lecture) is honoured once that slide has arrived.
 * - Slides are 720 CSS pixels high and as wide as the screen's shape allows between 4:3 and 16:9
 *   (960 to 1280 px: a 1024×768 projector is filled, not letterboxed), scaled by reveal.js to the
 *   screen: 1:1 on a 1280×720 projector, ×1.5 at 1920×1080. The bottom strip of the screen holds
 *   reveal.js's arrows, the slide number and "▼ more below"; no content goes under them. A slide
 *   taller than the screen scrolls inside itself: the mouse wheel, or the keys that go forward (→, ↓, Space, Page Down,
 *   a presenter's clicker) scroll it down by most of a screen before going on to the next slide,
 *   and the keys that go back scroll it up first. "▼ more below" shows while it has more.
 * - Navigation is linear: → and Space go through every slide and sub-slide in the notebook's
 *   order (reveal.js's default → would skip the sub-slides that hold the live panels). Home goes
 *   to the title slide (reveal.js's own goes to the sub-slide of the first slide seen last), End
 *   to the last slide.
 * - Keys pressed on a widget (a slider's handle, a dropdown, a text field) are the widget's: an
 *   arrow moves the slider, not the deck. Esc or a click beside the widget gives them back. On a
 *   button or a check box only Space and Enter are (they press it); reveal.js's own controls
 *   never keep any.
 */
(function () {
  "use strict";
  const settings = window.delaylabSlides || {};
  // in a cell's output: elements whose keys are their own (a slider's handle, a text field, a
  // dropdown), and elements that Space and Enter press (a button, a check box)
  const KEEPS_KEYS = ".noUi-handle, .noUi-target, select, textarea, [contenteditable], " +
    "input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit])";
  const PRESSED = "button, [role=button], input[type=checkbox], input[type=radio], input[type=button], input[type=submit]";
  const FORWARD = new Set(["ArrowRight", "ArrowDown", "PageDown", " "]);
  const BACK = new Set(["ArrowLeft", "ArrowUp", "PageUp"]);
  const SLACK = 24;  // px: a slide this little taller than the screen is not scrolled (a key goes on)
  const HEIGHT = settings.height || 720, NARROWEST = 4 / 3, WIDEST = 16 / 9;
  const NARROW = 1120;  // px: a slide narrower than this (a 4:3 screen's) has a narrower controls column
  const BAND = 40;  // screen px at the bottom: reveal.js's arrows, the slide number, "▼ more below"

  const wanted = /^#\/(\d+)(?:\/(\d+))?/.exec(location.hash);  // the slide asked for, before reveal.js rewrites the hash
  let started = false, finished = false, syncing = 0, observer = null;

  /** The slide on screen (the innermost present section): the element that scrolls. */
  function present() {
    return document.querySelector(".reveal .slides > section.present > section.present") ||
      document.querySelector(".reveal .slides > section.present");
  }

  /** Scroll the present slide by most of a screen in ``direction`` (1 down, -1 up); false at its end. */
  function scrollSlide(direction) {
    const slide = present();
    if (!slide) return false;
    const room = direction > 0 ? slide.scrollHeight - slide.clientHeight - slide.scrollTop : slide.scrollTop;
    if (room <= SLACK) return false;
    slide.scrollTop += direction * Math.min(room, Math.round(0.85 * slide.clientHeight));
    showMore();
    return true;
  }

  function keyboardCondition(event) {
    const target = event.target, control = target && target.closest && target.closest(".jp-Cell") &&
      (target.closest(KEEPS_KEYS) || target.closest(PRESSED));
    if (control) {
      if (event.key === "Escape") {
        control.blur();  // the keys are the deck's again
        event.preventDefault();
        return false;
      }
      if (control.matches(KEEPS_KEYS) || event.key === " " || event.key === "Enter") return false;
      control.blur();  // any other key on a button or check box is the deck's (reveal.js ignores
                       // every key while an <input>, a check box, has the focus)
    }
    if (event.altKey || event.ctrlKey || event.metaKey) return true;
    const forward = FORWARD.has(event.key) && !event.shiftKey;
    const back = BACK.has(event.key) && !event.shiftKey || (event.key === " " && event.shiftKey);
    if ((forward || back) && !Reveal.isOverview() && scrollSlide(forward ? 1 : -1)) {
      event.preventDefault();
      return false;
    }
    return true;
  }

  /** "▼ more below" while the present slide has more content below the screen. */
  function showMore() {
    const more = document.getElementById("delaylab-more"), slide = present();
    if (!more) return;
    const below = slide && !Reveal.isOverview() && slide.scrollHeight - slide.clientHeight - slide.scrollTop > SLACK;
    more.classList.toggle("visible", Boolean(below));
  }

  /** The slide's size for this window: about 720 high and as wide as the window's shape between
   * 4:3 and 16:9, chosen so that reveal.js's scale (which it rounds to hundredths) puts the whole
   * slide on the screen: at 1024×768 it is 966×724 at a scale of 1.06, not 960×720 at 1.07. */
  function slideSize() {
    const W = Math.max(window.innerWidth, 1), H = Math.max(window.innerHeight, 1);
    const width = HEIGHT * Math.min(Math.max(W / H, NARROWEST), WIDEST);
    const scale = Math.max(Math.floor(Math.min(W / width, H / HEIGHT) * 100) / 100, 0.2);
    let w = Math.floor(W / scale), h = Math.floor(H / scale);
    if (w > h * WIDEST) w = Math.floor(h * WIDEST);         // wider than 16:9: bands at the sides
    if (w < h * NARROWEST) h = Math.floor(w / NARROWEST);   // narrower than 4:3: bands above and below
    return {width: w, height: h};
  }

  /** After a resize: the slide's shape follows the window's, and the bottom strip its scale. */
  function fitWindow() {
    const size = slideSize(), config = Reveal.getConfig();
    if (config.width !== size.width || config.height !== size.height) Reveal.configure(size);
    document.body.classList.toggle("delaylab-slides-narrow", size.width < NARROW);
    const band = Math.ceil(BAND / Math.max(Reveal.getScale(), 0.2));
    document.body.style.setProperty("--delaylab-band", band + "px");
  }

  /** Home: the title slide, from its top; End: the last slide. */
  function home() {
    Reveal.slide(0, 0);
    const slide = present();
    if (slide) slide.scrollTop = 0;
  }

  function end() {
    const stacks = Reveal.getHorizontalSlides(), last = stacks.length - 1;
    if (last < 0) return;
    Reveal.slide(last, Math.max(stacks[last].querySelectorAll(":scope > section").length - 1, 0));
  }

  function onSlideChanged() {
    const slide = present();
    if (observer) {
      observer.disconnect();
      if (slide) observer.observe(slide);  // its widgets may still be rendering
    }
    fitFigures();
    showMore();
  }

  /** A figure drawn while its slide was hidden (display: none) got plotly's default width
   * (700 px). reveal.js lays out the slides next to the present one (its viewDistance) while
   * keeping them invisible: their figures are resized to their slide's width there (plotly's
   * autosize, as on a dashboard), before the lecturer gets to them. */
  const fitting = new WeakSet();
  function fitFigures() {
    if (!window.Plotly || !Plotly.Plots) return;
    document.querySelectorAll(".reveal .slides .js-plotly-plot").forEach(function (figure) {
      const drawn = figure._fullLayout && figure._fullLayout.width;
      if (drawn && !fitting.has(figure) && figure.getClientRects().length && Math.abs(drawn - figure.clientWidth) > 2) {
        fitting.add(figure);  // once: a second resize would restart plotly's 100 ms timer
        Promise.resolve(Plotly.Plots.resize(figure)).finally(function () { fitting.delete(figure); });
      }
    });
  }

  function start() {
    if (started || !window.Reveal || !document.querySelector(".reveal .slides > section")) return;
    started = true;
    const size = slideSize();
    Reveal.initialize({
      width: size.width,
      height: size.height,
      margin: 0,
      minScale: 0.2,
      maxScale: 4,
      center: false,
      hash: true,
      history: false,
      navigationMode: "linear",
      transition: settings.transition || "none",
      backgroundTransition: "none",
      controls: true,
      controlsTutorial: false,
      progress: true,
      slideNumber: "c/t",
      scrollActivationWidth: null,  // never reveal.js's "scroll view" (every slide in one long page)
      keyboardCondition: keyboardCondition,
      keyboard: {36: home, 35: end},
    }).then(function () {
      observer = "ResizeObserver" in window ? new ResizeObserver(showMore) : null;
      Reveal.on("slidechanged", onSlideChanged);
      Reveal.on("resize", fitWindow);
      window.addEventListener("resize", fitWindow);
      fitWindow();
      Reveal.on("overviewshown", showMore);
      Reveal.on("overviewhidden", showMore);
      document.addEventListener("scroll", showMore, true);
      onSlideChanged();
      if (finished) finish();
    });
  }

  /** A cell has arrived: start the deck, or add the new sections to it (once per frame at most). */
  function cellArrived() {
    if (!started) {
      start();
      return;
    }
    if (!Reveal.isReady() || syncing) return;
    syncing = requestAnimationFrame(function () {
      syncing = 0;
      Reveal.sync();
      goToWanted();
      showMore();
    });
  }

  let wentToWanted = false;
  function goToWanted() {
    if (!wanted || wentToWanted) return;
    const h = Number(wanted[1]), v = Number(wanted[2] || 0);
    const slides = Reveal.getHorizontalSlides();
    const stack = slides[h];
    if (!stack) return;  // not arrived yet
    const subslides = stack.querySelectorAll(":scope > section");
    if (v > 0 && subslides.length <= v && !finished) return;
    wentToWanted = true;
    Reveal.slide(h, Math.min(v, Math.max(subslides.length - 1, 0)));
  }

  /** Every cell is in (voila_finish): the last sections join the deck. */
  function finish() {
    finished = true;
    if (!started) start();
    if (!started || !Reveal.isReady()) return;  // start()'s promise comes back here
    Reveal.sync();
    goToWanted();
    Reveal.layout();
    onSlideChanged();
  }

  settings.cellArrived = cellArrived;
  settings.finish = finish;
  window.delaylabSlides = settings;
})();
