#!/usr/bin/env python3
"""Copy reveal.js from the npm registry into the live slides' template (lecture mode).

    python3 tools/vendor_reveal.py            the version in SOURCE.json (re-check the copy)
    python3 tools/vendor_reveal.py 6.1.0      another version

The dashboards' slides (``?template=reveal``, delaylab/serve/share/voila/templates/reveal/) need
reveal.js's script and its layout stylesheet in the page. Voila's own reveal template takes the
stylesheet and jQuery from CDNs, which a lecture hall's machine may not reach (the slides are then
drawn off-screen), so delaylab ships both files in the package: a lecturer's server needs no
network. This tool is how they got there and how to update them: it downloads the package's
tarball, checks it against the registry's SHA-512, and writes ``dist/reveal.js``,
``dist/reveal.css`` and ``LICENSE`` with ``SOURCE.json`` (version, tarball, integrity and each
file's SHA-256; tests/test_slides_template.py checks the files against it).
Only the Python standard library is used.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys
import tarfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "delaylab" / "serve" / "share" / "voila" / "templates" / "reveal" / "static" / "revealjs"
REGISTRY = "https://registry.npmjs.org"
PACKAGE = "reveal.js"
#: file in the npm package -> name in TARGET
FILES = {"package/dist/reveal.js": "reveal.js", "package/dist/reveal.css": "reveal.css", "package/LICENSE": "LICENSE"}


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as response:  # noqa: S310 (https, the registry)
        return response.read()


def vendor(version: str) -> dict:
    meta = json.loads(_get(f"{REGISTRY}/{PACKAGE}/{version}"))
    tarball = _get(meta["dist"]["tarball"])
    algorithm, _, expected = meta["dist"]["integrity"].partition("-")
    actual = base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    if algorithm != "sha512" or actual != expected:
        raise SystemExit(f"{PACKAGE} {version}: the tarball's SHA-512 is {actual}, the registry says {expected}")
    files = {}
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as tar:
        for member, name in FILES.items():
            data = tar.extractfile(member).read()
            (TARGET / name).write_bytes(data)
            files[name] = hashlib.sha256(data).hexdigest()
    source = {"package": PACKAGE, "version": version, "tarball": meta["dist"]["tarball"],
              "integrity": meta["dist"]["integrity"], "sha256": files}
    (TARGET / "SOURCE.json").write_text(json.dumps(source, indent=1) + "\n")
    return source


def main(argv) -> int:
    TARGET.mkdir(parents=True, exist_ok=True)
    current = TARGET / "SOURCE.json"
    version = argv[0] if argv else json.loads(current.read_text())["version"]
    source = vendor(version)
    print(f"{PACKAGE} {source['version']} in {TARGET.relative_to(ROOT)}: {', '.join(source['sha256'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
