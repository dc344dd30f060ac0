"""Binder's files (binder/), run for real: binder/postBuild in a fresh environment, as a non-root user.

A mybinder.org build cannot run here (nor docker, nor conda): what repo2docker does is done as it
does it, with pip where it uses conda. As a non-root user (repo2docker's ``jovyan``; here
:data:`BUILDER`), in a copy of the checkout: a fresh Python environment (Debian's python3, in a
folder every user can read), the runtime packages of pyproject.toml (which binder/environment.yml
lists: checked below), then ``bash binder/postBuild`` with ``$NB_PYTHON_PREFIX`` set, with nothing
stubbed: its pip install, ``jupyter server extension list``, plotly.js's bundle, the numba kernels
and the notebooks' figures all run. A JupyterHub's admin builds the students' environment the same
way (docs/hub.md), and that is what tests/test_hub.py serves to two students on a real hub, and
tests/test_browser_hub.py's JupyterLab: the environment is built once per content of the checkout
(:func:`environment`), kept in ``/tmp/delaylab-binder-<fingerprint>/`` and reused by the later
tests (as root; it is given to root once built, as an admin's would be, so that no student's uid can
ever own it).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from test_packaging import _name, conda_packages

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"
#: the non-root user who builds the environment, as repo2docker's jovyan does
BUILDER = "dlhub-builder"
#: the version of JupyterHub the hub tests run (its single-user server goes into the environment)
JUPYTERHUB = "jupyterhub==6.1.1"
#: Debian's Python: a Python installed under root's home (0700) cannot be run by the students
SYSTEM_PYTHON = "/usr/bin/python3"
IGNORED = (".venv", ".git", "test-artifacts", "__pycache__", "build", "dist", "*.egg-info", "solved_notebooks",
           ".pytest_cache", "assignments", "_build")


def binder_packages() -> dict:
    """Conda packages of binder/environment.yml (without python and pip)."""
    out = {}
    text = (BINDER / "environment.yml").read_text()
    for line in text[text.index("\ndependencies:"):].splitlines():
        if line.startswith("  - "):
            spec = line[4:].strip()
            if spec not in ("pip", "pip:") and not spec.startswith("python"):
                out[_name(spec)] = spec.replace(" ", "")
    return out


def source_copy(dest: Path) -> Path:
    """A copy of this checkout as it is now, without its environment, caches and artefacts: a
    package built from it leaves the checkout untouched (setuptools builds in the source tree,
    which a test running at the same time may be building too)."""
    shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(*IGNORED))
    return dest


#: what the environment is built from: the package, its metadata, binder/, the notebooks (their
#: figures) and the Jupyter configuration
BUILT_FROM = ("delaylab", "notebooks", "binder", "jupyter-config", "pyproject.toml")


def fingerprint() -> str:
    """SHA-256 (16 hex digits) of the files the environment is built from (:data:`BUILT_FROM`)
    and of the recipe (:func:`_build`)."""
    import inspect

    h = hashlib.sha256(f"{JUPYTERHUB} {SYSTEM_PYTHON} {inspect.getsource(_build)}".encode())
    ignore = shutil.ignore_patterns(*IGNORED)
    for top in BUILT_FROM:
        paths = [ROOT / top] if (ROOT / top).is_file() else []
        for folder, dirs, files in os.walk(ROOT / top):
            skipped = ignore(folder, dirs + files)
            dirs[:] = sorted(d for d in dirs if d not in skipped)
            paths += [Path(folder, name) for name in sorted(files) if name not in skipped]
        for path in paths:
            h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def ensure_user(name: str, home: bool = True) -> pwd.struct_passwd:
    """A local user ``name`` (``useradd -m``), created if missing."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", *(["-m"] if home else ["-M"]), "-s", "/bin/bash", name], check=True)
        return pwd.getpwnam(name)


def remove_user(name: str) -> None:
    subprocess.run(["userdel", "-r", "-f", name], capture_output=True)


def user_env(user: pwd.struct_passwd, **extra) -> dict:
    """The environment of a command run as ``user``: this process's network and certificate
    settings (pip's registry mirror, the npm registry), nothing of its Python, Jupyter or
    delaylab settings, the user's home."""
    keep = {k: v for k, v in os.environ.items()
            if k.startswith(("PIP_", "SSL_", "REQUESTS_", "CURL_", "NODE_", "NPM_", "HTTP", "NO_PROXY", "no_proxy",
                             "http", "https"))}
    return {**keep, "HOME": user.pw_dir, "USER": user.pw_name, "LOGNAME": user.pw_name, "LANG": "C.UTF-8",
            "PATH": "/usr/local/bin:/usr/bin:/bin", **extra}


def run_as(user: pwd.struct_passwd, cmd, cwd=None, timeout=1800, **extra) -> subprocess.CompletedProcess:
    """``cmd`` as ``user`` (its uid, gid and groups), in :func:`user_env`, its output captured."""
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=user_env(user, **extra), user=user.pw_uid,
                          group=user.pw_gid, extra_groups=os.getgrouplist(user.pw_name, user.pw_gid),
                          capture_output=True, text=True, timeout=timeout)


@contextlib.contextmanager
def _locked(path: Path):
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def environment() -> dict:
    """The students' environment built by binder/postBuild for real (see the module's docstring),
    built by the first caller and reused by the others (a lock file keeps two pytest processes
    from building it at once): ``{"prefix", "repo", "log", "seconds"}``; ``log`` is what
    postBuild printed, ``seconds`` what each step took."""
    base = Path(tempfile.gettempdir()) / f"delaylab-binder-{fingerprint()}"
    stamp = base / "built.json"
    with _locked(Path(tempfile.gettempdir()) / "delaylab-binder.lock"):
        if not stamp.exists():
            for old in Path(tempfile.gettempdir()).glob("delaylab-binder-*"):  # other checkouts' states
                if old.is_dir() and old != base:
                    shutil.rmtree(old, ignore_errors=True)
            shutil.rmtree(base, ignore_errors=True)
            base.mkdir(mode=0o755)
            base.chmod(0o755)
            stamp.write_text(json.dumps(_build(base)))
    return json.loads(stamp.read_text())


def _build(base: Path) -> dict:
    builder = ensure_user(BUILDER)
    repo, prefix = source_copy(base / "repo"), base / "env"
    for path in [base, *base.rglob("*")]:
        os.lchown(path, builder.pw_uid, builder.pw_gid)
    seconds = {}

    def step(name, cmd, **kw):
        t0 = time.perf_counter()
        proc = run_as(builder, cmd, cwd=repo, **kw)
        seconds[name] = round(time.perf_counter() - t0, 1)
        assert proc.returncode == 0, f"{name} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        return proc

    step("venv", [SYSTEM_PYTHON, "-m", "venv", prefix])
    # what repo2docker's conda does from binder/environment.yml, and what docs/hub.md has an admin
    # do: the runtime packages (with the course's JupyterHub and nbgitpuller)
    step("packages", [prefix / "bin" / "pip", "install", "--no-cache-dir", "--quiet", JUPYTERHUB, ".[hub]"])
    proc = step("postBuild", ["bash", "binder/postBuild"], NB_PYTHON_PREFIX=str(prefix))
    subprocess.run(["chown", "-R", "root:root", str(base)], check=True)  # as an admin's (see above)
    remove_user(BUILDER)
    return {"prefix": str(prefix), "repo": str(repo), "log": proc.stdout + proc.stderr, "seconds": seconds}


# ------------------------------------------------------------------------------------- the tests
def test_binder_environment_lists_the_runtime_packages_of_pyproject_and_the_hub_extra():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    hub = {_name(d): d.replace(" ", "") for d in project["optional-dependencies"]["hub"]}
    assert "nbgitpuller" in hub and "jupyterhub" not in hub  # the hub's version goes with the hub (docs/hub.md)
    assert binder_packages() == {**conda_packages(), **hub}
    assert "python=3.11" in (BINDER / "environment.yml").read_text()


def test_postbuild_never_pipes_a_command_into_an_early_exit():
    """``set -o pipefail`` with ``cmd | grep -q``: grep exits at its first match, ``cmd`` dies of
    SIGPIPE, the pipeline fails although it matched (the first real build always failed so)."""
    text = (BINDER / "postBuild").read_text()
    assert "pipefail" in text
    assert not [line for line in text.splitlines() if "|" in line.split("#")[0] and "grep -q" in line]


@pytest.mark.skipif(not is_root() or not Path(SYSTEM_PYTHON).exists(),
                    reason="builds as a non-root user it creates (root needed; CI runs as root)")
def test_postbuild_run_for_real_as_a_non_root_user_builds_the_environment_every_user_reads():
    built = environment()
    prefix, log = Path(built["prefix"]), built["log"]
    print(f"\nthe environment built in {built['seconds']} s (venv, packages, postBuild)")
    assert "Traceback" not in log and "BuildBackendWarning" not in log, log[-4000:]
    assert "running over TCP" not in log  # the precomputing kernels on Unix sockets
    # delaylab from a wheel, with its server extension switched on, beside nbgitpuller's
    etc = prefix / "etc" / "jupyter"
    extensions = {}
    for path in sorted((etc / "jupyter_server_config.d").glob("*.json")):
        extensions.update(json.loads(path.read_text()).get("ServerApp", {}).get("jpserver_extensions", {}))
    assert extensions.get("delaylab.serve.extension") is True and extensions.get("nbgitpuller") is True, extensions
    package = next(prefix.glob("lib/python3*/site-packages/delaylab"))
    assert not list(prefix.glob("lib/python3*/site-packages/__editable__*"))
    assert json.loads((etc / "labconfig" / "page_config.json").read_text()) == \
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}
    assert list((prefix / "share" / "delaylab").glob("plotly-basic-*.min.js"))
    # the compiled kernels next to the installed package (not the checkout's copy), and the
    # notebooks' figures in the environment's sweep cache: both readable by every user
    compiled = list((package / "kernels" / "__pycache__").glob("*.nbi"))
    assert compiled and not list((Path(built["repo"]) / "delaylab" / "kernels").glob("__pycache__/*.nbi"))
    entries = list((prefix / "share" / "delaylab" / "cache").glob("*/runs-*.npz"))
    assert entries
    for path in [*compiled, *entries, prefix / "bin" / "python"]:
        assert os.stat(path).st_mode & 0o004, path
    notebooks = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert all(f"{name}:" in log for name in notebooks), log[-3000:]


def test_the_container_image_is_built_by_binder_s_recipe_outside_the_home():
    """docker/Dockerfile cannot be built here (no docker): it must at least be binder/'s recipe
    (the environment with nbgitpuller, then postBuild), with nothing of delaylab under the home
    that a hub's persistent volume hides."""
    text = (ROOT / "docker" / "Dockerfile").read_text()
    steps = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert any("conda env create" in s and "binder/environment.yml" in s for s in steps)
    assert any("bash binder/postBuild" in s and "NB_PYTHON_PREFIX=/opt/conda/envs/delaylab" in s for s in steps)
    assert not [s for s in steps if "/home/" in s and ("COPY" in s or "DELAYLAB" in s or "pip install" in s)]


@pytest.mark.skipif(not is_root() or not Path(SYSTEM_PYTHON).exists() or not shutil.which("runuser"),
                    reason="the check runs as root, as an admin does (CI runs as root)")
def test_postbuild_as_root_refuses_an_environment_students_cannot_run():
    """Root reads everything: a venv made from root's pyenv Python (under /root, 0700) builds and
    precomputes fine, then no student's server starts. binder/postBuild's own check (sourced, its
    function called as the script calls it) fails such an environment, naming the Python it
    points to and the fix, and passes one made from Debian's Python. (About a second: two venvs
    without pip.)"""
    base = Path(tempfile.mkdtemp(prefix="delaylab-postbuild-check-"))
    try:
        base.chmod(0o755)
        private = base / "root-home"  # as /root: only root may enter it
        private.mkdir(mode=0o700)
        python = private / "python3"  # as pyenv's: a Python installed in root's home
        shutil.copy2(os.path.realpath(SYSTEM_PYTHON), python)
        subprocess.run([python, "-m", "venv", "--without-pip", base / "trap"], check=True)
        subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", base / "fine"], check=True)
        script = BINDER / "postBuild"

        def check(prefix):
            return subprocess.run(["bash", "-c", f'source "{script}" && check_others_can_run "$1" "import sys"',
                                   "check", str(prefix)], capture_output=True, text=True, cwd="/", timeout=120)

        trap = check(base / "trap")
        assert trap.returncode == 1, trap
        assert f"cannot run {base / 'trap' / 'bin' / 'python'} (it is {python})" in trap.stderr, trap.stderr
        assert f"/usr/bin/python3 -m venv {base / 'trap'}" in trap.stderr, trap.stderr
        fine = check(base / "fine")
        assert fine.returncode == 0 and not fine.stderr, fine
    finally:
        shutil.rmtree(base, ignore_errors=True)
    # the script itself runs the check before its long steps, and on the finished environment
    text = script.read_text()
    main = text[text.index('[[ "${BASH_SOURCE[0]}" == "$0" ]] || return 0'):]
    calls = [i for i, line in enumerate(main.splitlines()) if line.startswith("check_others_can_run ")]
    steps = [i for i, line in enumerate(main.splitlines()) if line.startswith("python ")]
    assert len(calls) == 2 and calls[0] < min(steps) and calls[1] > max(steps), calls
    assert main.splitlines()[calls[1]].endswith('"import delaylab"')
