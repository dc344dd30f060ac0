"""docs/hub.md and docs/hub/jupyterhub_config.py, read and loaded (cheap: no hub, no network).

tests/test_hub.py runs a real hub with the configuration; this checks what it cannot see: that the
guide's table is the file's settings, variables and defaults; that every ``DELAYLAB_…`` variable
the guide names is read by delaylab or by the file (no documented setting that does nothing); that
the file, loaded as JupyterHub loads it, sets what the guide says it sets; that the guide's commands
run as written (Debian's Python, never root's ``python3``; a student's checks as the student); and,
as root, that the pre-spawn hook makes a missing home private.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "hub.md"
CONFIG = ROOT / "docs" / "hub" / "jupyterhub_config.py"
#: ``NAME = os.environ.get("DELAYLAB_HUB_…", "default")`` (or wrapped in int(…) or a set)
SETTING = re.compile(r'^([A-Z_]+) = .*?os\.environ\.get\("(DELAYLAB_HUB_[A-Z_]+)", "([^"]*)"\)', re.M)


def table() -> dict:
    """The guide's table of settings: ``{NAME: (variable, default)}``."""
    out = {}
    for line in GUIDE.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 4 and cells[1].startswith("`DELAYLAB_HUB_"):
            default = cells[2].strip("`") if cells[2].startswith("`") else ""
            out[cells[0].strip("`")] = (cells[1].strip("`"), default)
    return out


def load(tmp_path, monkeypatch, **env):
    """The configuration as JupyterHub loads it (``get_config()`` given to the file), with
    ``DELAYLAB_HUB_STATE`` in ``tmp_path`` and the other ``DELAYLAB_HUB_*`` variables from ``env``."""
    from traitlets.config import Config

    for name in [k for k in os.environ if k.startswith("DELAYLAB_HUB_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("DELAYLAB_HUB_STATE", str(tmp_path / "state"))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    config = Config()
    exec(compile(CONFIG.read_text(), str(CONFIG), "exec"), {"get_config": lambda: config, "__file__": str(CONFIG)})
    return config


def test_the_guide_s_table_is_the_configuration_s_settings():
    found = {name: (var, default) for name, var, default in SETTING.findall(CONFIG.read_text())}
    assert len(found) >= 15, found
    assert table() == found


def test_every_variable_the_guide_names_is_read_by_delaylab_or_the_configuration():
    """No documented setting that does nothing: each ``DELAYLAB_HUB_*`` is read by the file, each
    other ``DELAYLAB_*`` by delaylab's code (as a quoted name), and so is every variable the file
    gives the students' servers."""
    config_text = CONFIG.read_text()
    code = "\n".join(p.read_text() for p in (ROOT / "delaylab").rglob("*.py"))
    named = set(re.findall(r"DELAYLAB_[A-Z_]*[A-Z]", GUIDE.read_text()))
    spawner_env = set(re.findall(r'^\s+"(DELAYLAB_[A-Z_]+)":', config_text, re.M))
    assert {"DELAYLAB_SOLUTIONS", "DELAYLAB_CACHE_MAX", "DELAYLAB_STUDENT", "DELAYLAB_DEFAULT_CACHE"} <= spawner_env
    for name in sorted(named | spawner_env):
        if name.startswith("DELAYLAB_HUB_"):
            assert f'os.environ.get("{name}"' in config_text, name
        else:
            assert f'"{name}"' in code, f"{name}: named by docs/hub.md or set by the configuration, read by nothing"


def test_the_configuration_sets_what_the_guide_says(tmp_path, monkeypatch):
    from delaylab.exercises._core import solution_setting
    from delaylab.summary import parse_bytes

    c = load(tmp_path, monkeypatch)
    state = tmp_path / "state"
    # the hub's state: one folder only root can enter, absolute paths whatever the working folder
    assert (state.stat().st_mode & 0o777) == 0o700
    assert c.JupyterHub.db_url == f"sqlite:///{state}/jupyterhub.sqlite" and c.JupyterHub.db_url.startswith("sqlite:////")
    assert c.JupyterHub.cookie_secret_file == str(state / "jupyterhub_cookie_secret")
    assert c.ConfigurableHTTPProxy.pid_file == str(state / "jupyterhub-proxy.pid")
    state.chmod(0o755)  # an existing folder made readable: private again at the next start
    load(tmp_path, monkeypatch)
    assert (state.stat().st_mode & 0o777) == 0o700
    # the students' servers: solutions of the lectures only, a capped own cache, their numbers
    env = c.Spawner.environment
    assert env["DELAYLAB_SOLUTIONS"] == "lecture" and solution_setting(env["DELAYLAB_SOLUTIONS"]) == "lecture"
    assert parse_bytes("DELAYLAB_CACHE_MAX", env["DELAYLAB_CACHE_MAX"]) == 200 << 20
    assert env["DELAYLAB_STUDENT"](type("S", (), {"user": type("U", (), {"name": "s1"})()})()) == "s1"
    assert env["PATH"].split(os.pathsep)[0] == "/opt/delaylab/bin"
    # timeouts for a lecture hall, JupyterLab's idle kernels culled, the dashboards' cap
    assert (c.Spawner.start_timeout, c.Spawner.http_timeout) == (300, 180)
    assert {"--MappingKernelManager.cull_idle_timeout=1800", "--MappingKernelManager.cull_interval=300",
            "--DashboardKernelSpecManager.memory_mb=3072"} <= set(c.Spawner.args)
    assert c.JupyterHub.services[0]["command"][-1] == "--timeout=7200"
    # who may log in: the group; admins only when named, and then admitted too
    assert c.Authenticator.allowed_groups == {"students"}
    assert c.Authenticator.admin_users == set() and c.Authenticator.allowed_users == set()
    assert c.JupyterHub.bind_url == "http://127.0.0.1:8000"
    c = load(tmp_path, monkeypatch, DELAYLAB_HUB_ADMINS="lecturer, ta1,", DELAYLAB_HUB_SOLUTIONS="off",
             DELAYLAB_HUB_KERNEL_IDLE_SECONDS="0")
    assert c.Authenticator.admin_users == {"lecturer", "ta1"} <= c.Authenticator.allowed_users
    assert c.Spawner.environment["DELAYLAB_SOLUTIONS"] == "off"
    assert "--MappingKernelManager.cull_idle_timeout=0" in c.Spawner.args


def test_every_solutions_value_the_guide_gives_is_one_delaylab_knows(monkeypatch):
    from delaylab.exercises._core import known_exercises, solution_setting, solutions_shown

    text = GUIDE.read_text()
    section = text[text.index("**Solutions.**"):text.index("What the rest of the file does")]
    values = re.findall(r"^\* (?:a list such as )?`([^`]+)`", section, re.M)
    assert values == ["lecture", "off", "all", "1.1,1.3"], values
    for value in values:
        solution_setting(value)
    # section 7's check: under "lecture", 1.1's solution is shown, homework 1.2's is not
    known = known_exercises()
    monkeypatch.setenv("DELAYLAB_SOLUTIONS", "lecture")
    assert solutions_shown(known["1.1"]) and not solutions_shown(known["1.2"])
    assert "(1.2)" in text and "(1.1)" in text


def _commands() -> list:
    """The lines of the guide's ``sh`` blocks (comments stripped)."""
    blocks = re.findall(r"```sh\n(.*?)```", GUIDE.read_text(), re.S)
    return [line.split("  #")[0].strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_the_guide_s_commands_run_as_written():
    lines = _commands()
    assert len(lines) > 20
    for line in lines:
        # a venv from Debian's Python: root's `python3` may be a pyenv under /root
        assert not re.search(r"(^|[\s;&|(])python3?\b", line), line
        if "-m venv" in line:
            assert line.startswith("/usr/bin/python3 -m venv /"), line
        # a student's check as the student, never as root in their home
        if re.search(r"/opt/delaylab/bin/python\b", line):
            assert line.startswith("runuser -u <student> -- /opt/delaylab/bin/python -P "), line
        # absolute paths: the commands run from any folder
        for path in re.findall(r"\bcd (\S+)", line):
            assert path.startswith("/"), line
        assert '"./' not in line and " ./" not in line, line
    checks = [line for line in lines if line.startswith("runuser -u <student>")]
    assert len(checks) >= 2


def test_the_guide_s_hub_version_is_the_tested_one():
    from test_binder import JUPYTERHUB

    versions = set(re.findall(r'"jupyterhub==([0-9.]+)"', GUIDE.read_text()))
    assert versions == {JUPYTERHUB.split("==")[1]}, versions
    assert "configurable-http-proxy@5" in GUIDE.read_text()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="creates a user (root; CI runs as root)")
def test_the_pre_spawn_hook_makes_a_missing_home_private(tmp_path, monkeypatch):
    import pwd
    import subprocess

    from test_binder import ensure_user, remove_user

    c = load(tmp_path, monkeypatch)
    hook = c.Spawner.pre_spawn_hook
    name = "dlhub-nohome"
    base = Path(tempfile.mkdtemp(prefix="delaylab-homes-"))
    try:
        base.chmod(0o755)
        remove_user(name)
        subprocess.run(["useradd", "-M", "-d", str(base / name), "-s", "/bin/bash", name], check=True)
        user = pwd.getpwnam(name)
        spawner = type("Spawner", (), {"user": type("User", (), {"name": name})()})()
        hook(spawner)  # a directory account's first login: no home yet
        home = base / name
        assert home.is_dir() and (home.stat().st_mode & 0o777) == 0o700
        assert (home.stat().st_uid, home.stat().st_gid) == (user.pw_uid, user.pw_gid)
        home.chmod(0o755)  # as `useradd -m` makes it
        hook(spawner)
        assert (home.stat().st_mode & 0o777) == 0o700
        assert ensure_user(name).pw_dir == str(home)
    finally:
        remove_user(name)
        shutil.rmtree(base, ignore_errors=True)
