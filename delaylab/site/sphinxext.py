"""The course site's Sphinx extension (named in the book's ``_config.yml`` by the build): adds the
site's stylesheet and script to every page, deferred (the text shows before any script runs);
the script loads the shared plotly.js (named in its ``data-plotly``) on pages with figures only.

It also takes two scripts off the pages. Thebe: Jupyter Book adds sphinx-thebe (live code cells
from a Binder kernel, loaded from a CDN on a click), twice, and its second copy of ``const
THEBE_JS_URL`` is a JavaScript error on every page; the site's live versions are its launch bar's
links instead. (Font Awesome's script, which the theme's template names directly, is taken out by
the build: delaylab.site.build.)"""

from __future__ import annotations


def _assets(app) -> None:
    app.add_css_file("delaylab-site.css")
    # plotly.js is not a script of every page: the site's script loads it, on a page with
    # figures only, when the first figure comes near the screen (a phone reads the text first)
    extra = {"data-plotly": app.config.delaylab_plotly_js} if app.config.delaylab_plotly_js else {}
    app.add_js_file("delaylab-site.js", defer="defer", **extra)


def _thebe(value) -> bool:
    text = " ".join(str(v) for v in (getattr(value, "filename", None) or value,
                                      *(getattr(value, "attributes", {}) or {}).values()))
    return "thebe" in text.lower()


def _without_thebe(app, pagename, templatename, context, doctree) -> None:
    """Thebe's scripts and styles out; every other script and style once (Jupyter Book's set-up
    adds some twice)."""
    for key in ("script_files", "css_files"):
        if key in context:
            kept: dict = {}
            for f in context[key]:
                attributes = getattr(f, "attributes", {}) or {}
                name = (str(getattr(f, "filename", None) or f), str(attributes.get("body", "")))
                if _thebe(f):
                    continue
                # of two copies, the one with more attributes (ours are deferred)
                if name not in kept or len(attributes) > len(getattr(kept[name], "attributes", {}) or {}):
                    kept[name] = f
            context[key] = list(kept.values())


def _once(handler):
    """``handler`` run on the first event only, however often the event comes (one per
    :func:`setup`, that is per Sphinx application)."""
    done = []

    def first(app, *args):
        if not done:
            done.append(True)
            handler(app, *args)

    return first


def setup(app):
    app.add_config_value("delaylab_plotly_js", "", "html")
    app.connect("builder-inited", _once(_assets))
    app.connect("html-page-context", _without_thebe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
