"""``python -m delaylab.site [--out DIR] [--notebooks DIR] [--repository URL] [--branch B]
[--hub URL] [--binderhub URL] [--jobs N]``: build the course site (see :mod:`delaylab.site.build`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .build import BuildError, build
from .config import load


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m delaylab.site", description="Build delaylab's course site.")
    parser.add_argument("--out", default="_build/site", help="the site's folder (replaced); default _build/site")
    parser.add_argument("--notebooks", default="notebooks", help="the notebooks' folder; default notebooks")
    parser.add_argument("--root", default=".", help="the checkout, whose pyproject.toml has [tool.delaylab.site]")
    parser.add_argument("--repository", help="the git repository the live links open (https://…)")
    parser.add_argument("--branch", help="its branch")
    parser.add_argument("--hub", dest="jupyterhub", help="your JupyterHub's address (https://…)")
    parser.add_argument("--binderhub", help="a BinderHub's address; '' for no Binder links")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks executed at once; default 2")
    args = parser.parse_args(argv)
    try:
        cfg = load(Path(args.root), repository=args.repository, branch=args.branch, jupyterhub=args.jupyterhub,
                   binderhub=args.binderhub)
        report = build(Path(args.out), Path(args.notebooks), cfg, jobs=args.jobs,
                       log=lambda m: print(f"[site] {m}", flush=True))
    except (BuildError, ValueError) as exc:
        print(f"[site] {exc}", file=sys.stderr)
        return 1
    s = report["seconds"]
    print(f"[site] {Path(args.out).resolve() / 'index.html'}: {len(report['pages'])} pages, "
          f"{report['site_bytes'] / 1e6:.1f} MB; built in {s['total']:.0f} s (notebooks {s['execute']:.0f} s, "
          f"Jupyter Book {s['jupyter_book']:.0f} s); plotly.js: {report['plotly_js_kind']}", flush=True)
    for page, size in report["page_bytes"].items():
        print(f"[site]   {page:38s} {size / 1e6:6.2f} MB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
