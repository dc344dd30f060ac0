"""Where the course site's live links point: one place, ``[tool.delaylab.site]`` in pyproject.toml.

::

    [tool.delaylab.site]
    repository = "https://github.com/<owner>/<repo>"   # the git repository students open live
    branch = "main"
    binderhub = "https://mybinder.org"                 # a BinderHub ("" : no Binder links)
    jupyterhub = ""                                    # your JupyterHub, e.g. "https://hub.example.edu"

``python3 tasks.py book --repository URL --branch B --hub URL --binderhub URL`` overrides them for
one build. With no repository (neither here nor ``git remote get-url origin``), the site has no
Binder or JupyterHub links, only the notebooks' downloads, and the build says so. With no
``jupyterhub``, each page asks the reader for their hub's address (kept in their browser) and
builds the nbgitpuller link from it.

Links (see :func:`links`): Binder ``<binderhub>/v2/gh/<owner>/<repo>/<branch>?urlpath=…`` (any other
git host: ``/v2/git/<url>/<branch>``); JupyterHub through nbgitpuller,
``<hub>/hub/user-redirect/git-pull?repo=<url>&branch=<branch>&targetpath=<folder>&urlpath=…``
(the hub needs nbgitpuller and delaylab's environment in its single-user image: docs/hub.md);
``urlpath`` is ``lab/tree/<folder>/notebooks/…`` for JupyterLab and ``voila/render/…`` for the
dashboard. ``targetpath`` names the folder nbgitpuller clones into: left to itself, nbgitpuller
1.3 takes the address's last part *with* its ``.git`` (``…/delaylab.git`` into ``delaylab.git/``),
which ``urlpath`` would have to guess; given, the folder is :attr:`SiteConfig.repo_name` whatever
the address.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import quote

#: the placeholder of a hub's address in a link template (filled in by the page's script)
HUB = "{hub}"


@dataclass(frozen=True)
class SiteConfig:
    repository: str = ""
    branch: str = "main"
    binderhub: str = "https://mybinder.org"
    jupyterhub: str = ""
    title: str = "delaylab — bandits with delayed feedback"

    def __post_init__(self):
        for name in ("repository", "binderhub", "jupyterhub"):
            value = getattr(self, name)
            if value and not re.match(r"^https?://[^\s/]+", value):
                raise ValueError(f"{name} = {value!r} must be an http(s) address (e.g. https://…), or empty")
        if not re.match(r"^[\w./-]+$", self.branch):
            raise ValueError(f"branch = {self.branch!r} must be a git branch name")

    @property
    def repo_name(self) -> str:
        """The folder the hub links have nbgitpuller clone into (their ``targetpath``): the
        repository's last path part, without .git."""
        return re.sub(r"\.git$", "", self.repository.rstrip("/").rsplit("/", 1)[-1]) if self.repository else ""


def load(root: Path, **overrides) -> SiteConfig:
    """``[tool.delaylab.site]`` of ``root/pyproject.toml``, then ``overrides`` (None: not given);
    the repository falls back to the checkout's ``origin`` remote."""
    table = {}
    pyproject = Path(root) / "pyproject.toml"
    if pyproject.exists():
        table = tomllib.loads(pyproject.read_text()).get("tool", {}).get("delaylab", {}).get("site", {})
    unknown = set(table) - set(SiteConfig.__dataclass_fields__)
    if unknown:
        raise ValueError(f"[tool.delaylab.site] in pyproject.toml: unknown key(s) {sorted(unknown)}; "
                         f"the keys are {sorted(SiteConfig.__dataclass_fields__)}")
    cfg = SiteConfig(**table)
    given = {k: v for k, v in overrides.items() if v is not None}
    cfg = replace(cfg, **given)
    if not cfg.repository:
        origin = _origin(root)
        if origin:
            cfg = replace(cfg, repository=origin)
    return cfg


def _origin(root) -> str:
    try:
        url = subprocess.run(["git", "remote", "get-url", "origin"], cwd=root, capture_output=True, text=True,
                             timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    m = re.match(r"^git@([^:]+):(.+)$", url)  # ssh form: a browser needs https
    if m:
        url = f"https://{m.group(1)}/{m.group(2)}"
    return url if url.startswith(("http://", "https://")) else ""


def _binder_base(cfg: SiteConfig) -> str:
    m = re.match(r"^https://github\.com/([^/]+)/([^/]+?)(?:\.git)?/?$", cfg.repository)
    hub = cfg.binderhub.rstrip("/")
    if m:
        return f"{hub}/v2/gh/{m.group(1)}/{m.group(2)}/{cfg.branch}"
    return f"{hub}/v2/git/{quote(cfg.repository, safe='')}/{cfg.branch}"


def links(cfg: SiteConfig, notebook: str) -> dict:
    """The live links of one notebook (file name in ``notebooks/``): ``binder_lab``,
    ``binder_dashboard``, ``hub_lab``, ``hub_dashboard`` (with :data:`HUB` for the hub's
    address when none is configured); an entry is missing when it cannot be made."""
    out = {}
    if not cfg.repository:
        return out
    path = f"notebooks/{notebook}"
    if cfg.binderhub:
        base = _binder_base(cfg)
        out["binder_lab"] = f"{base}?urlpath={quote('lab/tree/' + path, safe='')}"
        out["binder_dashboard"] = f"{base}?urlpath={quote('voila/render/' + path, safe='')}"
    hub = cfg.jupyterhub.rstrip("/") if cfg.jupyterhub else HUB
    pull = (f"{hub}/hub/user-redirect/git-pull?repo={quote(cfg.repository, safe='')}&branch={quote(cfg.branch)}"
            f"&targetpath={quote(cfg.repo_name, safe='')}")
    inside = f"{cfg.repo_name}/{path}"
    out["hub_lab"] = f"{pull}&urlpath={quote('lab/tree/' + inside, safe='')}"
    out["hub_dashboard"] = f"{pull}&urlpath={quote('voila/render/' + inside, safe='')}"
    return out
