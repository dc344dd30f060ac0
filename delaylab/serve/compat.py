"""The Voila releases delaylab's dashboard server is written for.

The server reaches into Voila beyond its documented options: it replaces the executor's kernel
set-up (to keep its own signal handlers), swaps the kernel manager factory for its pools and
reads jupyter_client's record of kernels being stopped (every such place is listed in
:mod:`delaylab.serve.voila_patches`). A Voila release that moves one of these
would break every dashboard with an obscure error deep in a page load. So the supported range is
declared once, in ``pyproject.toml``'s dependency on ``voila``, and the server refuses to start
on another version with a message that says what to install.
"""

from __future__ import annotations

from importlib import metadata

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version


def supported_voila() -> SpecifierSet:
    """The range of Voila releases delaylab declares (its installed metadata)."""
    for spec in metadata.requires("delaylab") or []:
        req = Requirement(spec)
        if req.name.lower() == "voila" and req.marker is None:
            return req.specifier
    raise RuntimeError("delaylab's metadata declares no dependency on voila: reinstall delaylab")


def voila_problem(installed: str | None = None, supported: SpecifierSet | None = None) -> str | None:
    """Why the installed Voila cannot serve the dashboards, or None when it can."""
    installed = installed if installed is not None else metadata.version("voila")
    supported = supported if supported is not None else supported_voila()
    if Version(installed) in supported:
        return None
    return (f"delaylab's dashboards are written for voila{supported} and voila {installed} is installed: "
            f"they patch Voila's kernel start and page handler, which other releases may change. "
            f"Install a supported release: pip install 'voila{supported}'")


def check_voila() -> None:
    """Stop with a clear message if the installed Voila is outside the supported range."""
    problem = voila_problem()
    if problem:
        raise SystemExit(f"[delaylab] {problem}")
