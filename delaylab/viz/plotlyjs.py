"""plotly.js's *basic* bundle for the dashboards: the same plotly.js, a quarter of the code.

Every dashboard page evaluates plotly's widget module before it can draw a figure. That module
(``go.FigureWidget._esm``, about 5 MB) carries all of plotly.js: 3-D, maps, WebGL and some forty
trace types the workbook never draws. On a bare test page on this 2-core machine, evaluating it
took 1.7-1.8 s of the main thread, plotly.js's basic bundle (scatter, bar and pie traces, the
same core and components: axes, legends, shapes, annotations) 0.37 s. On the dashboards, the
first figure came 1.2 s sooner with it (mean of 12 fresh visits: 3.3 s against 4.5 s).

plotly publishes that bundle on the npm registry, not on PyPI: :func:`fetch` downloads the one
of the very version plotly's widget module embeds, checks it against the registry's SHA-512 and
keeps it beside the Python packages (``<sys.prefix>/share/delaylab/``). ``python3 tasks.py``
does it at set-up (``python -m delaylab.viz.plotlyjs``), so does the container recipe.
:func:`splice` then puts it in place of the full plotly.js inside a copy of plotly's widget
module: plotly's own widget code, unchanged, draws with it.

The dashboards' server serves that copy (:func:`delaylab.viz.widget.dashboard_module`); in
JupyterLab the kernel sends it (:func:`delaylab.viz.widget.basic_module`) to the figures whose
traces it draws, and the full module to any other (a student's own ``go.FigureWidget`` keeps
plotly's own). Without the bundle (an offline install), or if a future plotly's module no longer
has the shape :func:`splice` expects, the full module is used (the server says why in its log):
pages are then about a second slower, never broken.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import sys
import tarfile
import urllib.request
from pathlib import Path

#: the npm package and the file in it
PACKAGE = "plotly.js-basic-dist-min"
FILE = "plotly-basic.min.js"
#: the trace types the basic bundle registers (plotly.js's ``lib/index-basic.js``)
TRACES = frozenset({"scatter", "bar", "pie"})
REGISTRY = "https://registry.npmjs.org"


class SpliceError(ValueError):
    """plotly's widget module or the bundle does not have the shape :func:`splice` expects."""


def version() -> str:
    """The plotly.js version of the installed plotly (the one its widget module embeds)."""
    from plotly.offline import get_plotlyjs_version

    return get_plotlyjs_version()


def directory() -> Path:
    """Where the bundle is kept: ``DELAYLAB_ASSETS`` if set, else ``<sys.prefix>/share/delaylab``."""
    return Path(os.environ.get("DELAYLAB_ASSETS") or Path(sys.prefix, "share", "delaylab"))


def bundle_path(ver: str | None = None) -> Path:
    return directory() / f"plotly-basic-{ver or version()}.min.js"


def installed(ver: str | None = None) -> bytes | None:
    """The bundle for plotly.js ``ver`` (default: the installed plotly's), or None if not fetched."""
    try:
        return bundle_path(ver).read_bytes()
    except FileNotFoundError:
        return None


def _get(url: str, timeout: float) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (https, a fixed host)
        return response.read()


def check_integrity(data: bytes, integrity: str) -> None:
    """Raise ``ValueError`` unless ``data`` matches npm's ``sha512-<base64>`` integrity string."""
    algorithm, _, expected = integrity.partition("-")
    if algorithm != "sha512":
        raise ValueError(f"integrity {integrity!r}: expected a sha512 digest")
    actual = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if actual != expected:
        raise ValueError(f"{PACKAGE}: the download's SHA-512 is {actual}, the registry says {expected}")


def extract(tarball: bytes, ver: str) -> bytes:
    """``package/plotly-basic.min.js`` from the npm tarball, checked to be plotly.js ``ver``."""
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as tar:
        try:
            code = tar.extractfile(f"package/{FILE}").read()
        except (KeyError, AttributeError):  # no such member, or not a file
            raise ValueError(f"{PACKAGE}: no {FILE} in the package") from None
    if f"(basic - minified) v{ver}".encode() not in code[:500]:
        raise ValueError(f"{PACKAGE}: {FILE} is not plotly.js v{ver}'s basic bundle")
    return code


def fetch(ver: str | None = None, registry: str = REGISTRY, timeout: float = 60) -> Path:
    """Download the basic bundle of plotly.js ``ver`` (default: the installed plotly's) from the npm
    registry, check it against the registry's SHA-512, and keep it in :func:`directory`. Nothing
    is downloaded if it is there already. Returns its path."""
    ver = ver or version()
    path = bundle_path(ver)
    if path.exists():
        return path
    meta = json.loads(_get(f"{registry}/{PACKAGE}/{ver}", timeout))
    tarball = _get(meta["dist"]["tarball"], timeout)
    check_integrity(tarball, meta["dist"]["integrity"])
    code = extract(tarball, ver)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    partial.write_bytes(code)
    partial.replace(path)  # never a half-written bundle under the final name
    return path


# plotly's widget module (esbuild's output) holds plotly.js's UMD file as a CommonJS module:
#   var <m>=<wrap>((<exports>,<module>)=>{(function(<root>,<factory>){typeof <module>=="object"&&...
#   ...return window.Plotly=<P>,<P>})});
_START = re.compile(r'var ([\w$]+)=([\w$]+)\(\(([\w$]+),([\w$]+)\)=>\{\(function\(([\w$]+),([\w$]+)\)\{'
                    r'typeof \4=="object"&&\4\.exports\?\4\.exports=\6\(\):\5\.moduleName=\6\(\)\}\)')
_END = re.compile(r'return window\.Plotly=([\w$]+),\1\}\)\}\);')


def splice(widget_module: str, basic: str, ver: str | None = None) -> str:
    """plotly's widget module with the plotly.js inside it replaced by ``basic`` (the basic bundle
    of the same version, a UMD file: it fills ``module.exports`` as the original did)."""
    ver = ver or version()
    if f'.version="{ver}"' not in widget_module:
        raise SpliceError(f"plotly's widget module does not embed plotly.js {ver}")
    if f"(basic - minified) v{ver}" not in basic[:500]:
        raise SpliceError(f"the bundle is not plotly.js {ver}'s basic bundle")
    starts = list(_START.finditer(widget_module))
    if len(starts) != 1:
        raise SpliceError(f"plotly's widget module: {len(starts)} places where plotly.js starts, expected 1")
    start = starts[0]
    ends = list(_END.finditer(widget_module, start.end()))
    if len(ends) != 1:
        raise SpliceError(f"plotly's widget module: {len(ends)} places where plotly.js ends, expected 1")
    name, wrap = start.group(1), start.group(2)
    return (widget_module[:start.start()] + f"var {name}={wrap}((exports,module)=>{{\n" + basic + "\n});"
            + widget_module[ends[0].end():])


def main() -> int:
    """``python -m delaylab.viz.plotlyjs``: fetch the bundle; on failure say why, exit 1."""
    try:
        path = fetch()
    except Exception as exc:  # offline, a proxy, the registry down: the dashboards still work
        print(f"[delaylab] plotly.js's basic bundle not fetched ({type(exc).__name__}: {exc}). The dashboards "
              "will serve plotly's full widget module: each page about a second slower. Retry with "
              "`python -m delaylab.viz.plotlyjs`.", file=sys.stderr)
        return 1
    print(f"[delaylab] plotly.js's basic bundle: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
